//! Shortest remaining time first, preemptive at round boundaries. Depends on the schedulers'
//! shared greedy placement only.

use super::{greedy_fastest, Placement, RoundView, Scheduler};
use crate::error::SimError;
use fairground_core::order::sort_indices_by;

/// Shortest remaining time first, preemptive at round boundaries: jobs ordered by remaining
/// steps over their best rate (ties by arrival), each on the fastest type with room.
pub struct Srtf;

impl Scheduler for Srtf {
    fn name(&self) -> String {
        "srtf".into()
    }

    fn schedule(&mut self, view: &RoundView) -> Result<Vec<Placement>, SimError> {
        let remaining = |k: usize| {
            let s = &view.active[k];
            s.remaining_steps
                / view.jobs[s.job]
                    .best_rate(view.cluster)
                    .max(f64::MIN_POSITIVE)
        };
        let mut order: Vec<usize> = (0..view.active.len()).collect();
        sort_indices_by(&mut order, &|a, b| {
            remaining(a).total_cmp(&remaining(b)).then(a.cmp(&b))
        });
        Ok(greedy_fastest(view, order))
    }
}
