use super::base::AllocationLp;
use super::{Policy, PolicyError, Solution};
use crate::lp::Lp;
use crate::Instance;

/// Gavel's maximum total throughput, in raw units (no normalisation):
///
/// ```text
/// maximise   sum_ij T_ij g_ij            (T per GPU; = Gavel's sum_ij T'_ij x_ij, where
/// subject to base constraints             T'_ij = s_i T_ij is the whole job's throughput)
/// ```
pub struct GavelMaxSum;

impl Policy for GavelMaxSum {
    fn name(&self) -> &'static str {
        "gavel-max-sum"
    }

    fn summary(&self) -> &'static str {
        "Gavel: maximum total raw throughput, no fairness"
    }

    fn allocate(&self, inst: &Instance) -> Result<Solution, PolicyError> {
        let m = AllocationLp::new(Lp::maximize(), inst, |i, j| inst.throughput[i][j]);
        let sol = m.lp.solve()?;
        Ok(Solution {
            objective: sol.objective(),
            allocation: m.read(&sol),
            market: None,
        })
    }
}
