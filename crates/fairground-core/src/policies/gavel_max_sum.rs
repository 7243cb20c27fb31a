use super::base::{scale_factor, AllocationLp};
use super::{Policy, PolicyError, Solution};
use crate::lp::Lp;
use crate::Instance;

/// Gavel's maximum total throughput, in raw units (no scale factor in the objective):
///
/// ```text
/// maximise   sum_ij T_ij x_ij   =  sum_ij T_ij g_ij / s_i
/// subject to base constraints
/// ```
pub struct GavelMaxSum;

impl Policy for GavelMaxSum {
    fn name(&self) -> &'static str {
        "gavel-max-sum"
    }

    fn summary(&self) -> &'static str {
        "Gavel: maximum total raw throughput, no fairness"
    }

    fn solve(&self, inst: &Instance) -> Result<Solution, PolicyError> {
        let m = AllocationLp::new(Lp::maximize(), inst, |i, j| {
            inst.throughput[i][j] / scale_factor(inst, i)
        });
        let sol = m.lp.solve()?;
        Ok(Solution {
            objective: sol.objective(),
            allocation: m.read(&sol),
        })
    }
}
