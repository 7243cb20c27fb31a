//! First in, first out, on the fastest type with room (Gavel's `fifo_perf`). Depends on the
//! schedulers' shared greedy placement only.

use super::{greedy_fastest, Placement, RoundView, Scheduler};
use crate::error::SimError;

/// First in, first out, heterogeneity-aware as Gavel's `fifo_perf`: in arrival order, each job
/// takes the fastest GPU type with enough free GPUs; one that fits nowhere waits while later
/// jobs may still start.
pub struct Fifo;

impl Scheduler for Fifo {
    fn name(&self) -> String {
        "fifo".into()
    }

    fn schedule(&mut self, view: &RoundView) -> Result<Vec<Placement>, SimError> {
        // active is in arrival order; the pass stops once no GPU is left.
        Ok(greedy_fastest(view, 0..view.active.len()))
    }
}
