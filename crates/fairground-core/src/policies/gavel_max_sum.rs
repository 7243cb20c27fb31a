use super::base::AllocationLp;
use super::{Policy, PolicyError, PolicyInfo, Solution};
use crate::lp::Lp;
use crate::Instance;

/// Gavel's maximum total throughput, in raw units (no normalisation):
///
/// ```text
/// maximise   sum_ij T_ij g_ij            (T per GPU; = Gavel's sum_ij T'_ij x_ij, where
/// subject to base constraints             T'_ij = s_i T_ij is the whole job's throughput)
/// ```
pub struct GavelMaxSum;

/// The name and the one-line summary the CLI and the playground show.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "gavel-max-sum",
    summary: "Gavel: maximum total raw throughput, no fairness",
};

impl Policy for GavelMaxSum {
    fn info(&self) -> PolicyInfo {
        INFO
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
