//! A time limit for work on a thread that must not be held for long. The JavaScript module runs
//! on the page's thread: a `compare` at 150 tenants x 12 types with jobs held it 16 s
//! (BENCHMARKS.md). Inside [`within`], a policy's report ([`crate::report::run`]) and the long
//! loops (oef-coop's added rows, partial-allocation's markets, water filling's rounds, the
//! probe's misreports; the module's simulations check between rounds) call [`check`], so the work
//! stops soon after the limit, with [`OutOfTime`], instead of freezing the tab. Natively nothing
//! sets a limit and [`check`] always passes.

use std::cell::Cell;
use std::fmt;
use web_time::Instant;

/// A limit in force: when it started and the seconds the caller allowed. (Elapsed seconds against
/// the allowance, rather than an end instant: no Duration from a float, 0.6 KB less wasm.)
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limit {
    from: Instant,
    seconds: f64,
}

thread_local! {
    static LIMIT: Cell<Option<Limit>> = const { Cell::new(None) };
}

/// Work stopped because its time limit had passed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OutOfTime {
    /// The limit the caller set, in seconds.
    pub seconds: f64,
}

impl fmt::Display for OutOfTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "stopped at the time limit of {} s", self.seconds)
    }
}

impl std::error::Error for OutOfTime {}

/// Runs `f` with a limit of `seconds` from now on this thread (and on the threads
/// [`crate::parallel::map_indices`] starts for it); the limit before is restored afterwards, also
/// when `f` panics. A limit that is not a positive finite number is none.
pub fn within<T>(seconds: f64, f: impl FnOnce() -> T) -> T {
    let limit = (seconds.is_finite() && seconds > 0.0).then(|| Limit {
        from: Instant::now(),
        seconds,
    });
    under(limit, f)
}

/// Runs `f` under `limit` (none: no limit), restoring the limit before afterwards.
pub(crate) fn under<T>(limit: Option<Limit>, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<Limit>);
    impl Drop for Restore {
        fn drop(&mut self) {
            LIMIT.with(|l| l.set(self.0));
        }
    }
    let _restore = Restore(LIMIT.with(|l| l.replace(limit)));
    f()
}

/// The limit in force on this thread, to hand to threads working for it.
pub(crate) fn current() -> Option<Limit> {
    LIMIT.with(Cell::get)
}

/// `Err` once the limit in force has passed; always `Ok` without one.
pub fn check() -> Result<(), OutOfTime> {
    match current() {
        Some(limit) if limit.from.elapsed().as_secs_f64() >= limit.seconds => Err(OutOfTime {
            seconds: limit.seconds,
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limit_holds_inside_within_only() {
        assert_eq!(check(), Ok(()));
        // A limit already past: checks inside fail, with the seconds the caller gave.
        within(1e-9, || {
            std::thread::sleep(std::time::Duration::from_millis(2));
            assert_eq!(check(), Err(OutOfTime { seconds: 1e-9 }));
            // An inner limit replaces it, and the outer one comes back afterwards.
            within(3600.0, || assert_eq!(check(), Ok(())));
            assert!(check().is_err());
        });
        assert_eq!(check(), Ok(()));
        // Not a positive finite number: no limit.
        for seconds in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            within(seconds, || assert_eq!(check(), Ok(())));
        }
    }

    #[test]
    fn the_limit_is_restored_after_a_panic() {
        let caught = std::panic::catch_unwind(|| within(1e-9, || panic!("inside")));
        assert!(caught.is_err());
        assert_eq!(check(), Ok(()));
    }
}
