//! The one stated tolerance of every verdict and check, at the bottom of the crate: allocations'
//! own checks use it as the fairness definitions do (`fairness.rs` re-exports it, its home for
//! readers), and neither imports the other for it.

/// Relative tolerance of every fairness verdict and of the checks on every answer a policy
/// gives: a constraint holds when it is broken by at most `TOLERANCE` times the size of the
/// quantities it compares (so the verdict does not change with the units of throughput).
pub const TOLERANCE: f64 = 1e-6;

/// The LPs impose each constraint to `TOLERANCE * LP_MARGIN`, so an answer they accept passes
/// the checker with room for round-off.
pub const LP_MARGIN: f64 = 1e-2;
