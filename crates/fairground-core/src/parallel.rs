//! Independent pieces of work on the machine's cores: the markets of `partial-allocation` and
//! the misreports of the strategy-proofness probe. Natively they run on as many threads as the
//! machine has; in WebAssembly (one thread) one after another. Each piece is computed as it would
//! be alone and the results come back in order, so the answer does not depend on the threads.

/// The threads [`map_indices`] uses at most: the machine's, natively; 1 in WebAssembly.
pub fn threads() -> usize {
    if cfg!(target_arch = "wasm32") {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |t| t.get())
    }
}

/// `f(0), f(1), ..., f(n - 1)`, in that order.
pub fn map_indices<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let threads = threads().min(n);
        if threads > 1 {
            return on_threads(n, threads, &f);
        }
    }
    (0..n).map(f).collect()
}

/// Threads take the next index as they finish one (pieces differ in cost); a panic in one is
/// raised again here, as it would be without threads.
#[cfg(not(target_arch = "wasm32"))]
fn on_threads<T: Send>(n: usize, threads: usize, f: &(impl Fn(usize) -> T + Sync)) -> Vec<T> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    // The caller's time limit holds on its helpers too.
    let limit = crate::deadline::current();
    let done: Vec<Vec<(usize, T)>> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    crate::deadline::under(limit, || {
                        let mut mine = Vec::new();
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            if i >= n {
                                return mine;
                            }
                            mine.push((i, f(i)));
                        }
                    })
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| {
                w.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    let mut slots: Vec<Option<T>> = (0..n).map(|_| None).collect();
    for (i, value) in done.into_iter().flatten() {
        slots[i] = Some(value);
    }
    slots.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The caller's time limit holds on the helper threads (partial-allocation's markets and the
    /// probe's tenants check it there).
    #[test]
    fn helpers_work_under_the_callers_time_limit() {
        let seen = crate::deadline::within(1e-9, || {
            std::thread::sleep(std::time::Duration::from_millis(2));
            on_threads(8, 2, &|_| crate::deadline::check().is_err())
        });
        assert_eq!(seen, vec![true; 8]);
        // And not after it.
        assert_eq!(
            on_threads(8, 2, &|_| crate::deadline::check().is_ok()),
            vec![true; 8]
        );
    }

    #[test]
    fn results_come_back_in_order_whatever_the_threads() {
        // Uneven pieces, so threads finish out of order.
        let got = map_indices(200, |i| {
            let mut x = i as u64;
            for _ in 0..(i % 7) * 1000 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            }
            (i, x)
        });
        assert_eq!(got.len(), 200);
        assert!(got.iter().enumerate().all(|(k, &(i, _))| k == i));
        assert_eq!(
            on_threads(200, 3, &|i| i * i),
            (0..200).map(|i| i * i).collect::<Vec<_>>()
        );
        assert_eq!(map_indices(0, |i| i), Vec::<usize>::new());
    }

    #[test]
    #[should_panic(expected = "piece 5")]
    fn a_panic_in_a_piece_is_raised_here() {
        on_threads(10, 2, &|i| {
            if i == 5 {
                panic!("piece 5");
            }
            i
        });
    }
}
