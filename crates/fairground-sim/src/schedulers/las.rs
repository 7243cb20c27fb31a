//! Least attained service (Tiresias-style), preemptive at round boundaries. Depends on the
//! schedulers' shared greedy placement only.

use super::{greedy_fastest, Placement, RoundView, Scheduler};
use crate::error::SimError;
use fairground_core::order::sort_indices_by;

/// Least attained service (Tiresias-style), preemptive at round boundaries: jobs ordered by
/// GPU-seconds received so far (ties by arrival), each on the fastest type with room.
pub struct Las;

impl Scheduler for Las {
    fn name(&self) -> String {
        "las".into()
    }

    fn schedule(&mut self, view: &RoundView) -> Result<Vec<Placement>, SimError> {
        let mut order: Vec<usize> = (0..view.active.len()).collect();
        sort_indices_by(&mut order, &|a, b| {
            view.active[a]
                .attained_gpu_s
                .total_cmp(&view.active[b].attained_gpu_s)
                .then(a.cmp(&b))
        });
        Ok(greedy_fastest(view, order))
    }
}
