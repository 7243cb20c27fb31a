use super::base::AllocationLp;
use super::canonical::spread_optimum;
use super::{Policy, PolicyError, PolicyInfo, Solution};
use crate::lp::Lp;
use crate::Instance;

/// Gavel's maximum total throughput, in raw units (no normalisation):
///
/// ```text
/// maximise   sum_ij T_ij g_ij            (T per GPU; = Gavel's sum_ij T'_ij x_ij, where
/// subject to base constraints             T'_ij = s_i T_ij is the whole job's throughput)
/// ```
///
/// Where two parties gain alike from a type the optimum is not unique; the allocation returned
/// is then the canonical one ([`spread_optimum`]: the fewest GPUs keeping the sum, spread over
/// the types as far as the sum allows), not the solver's vertex.
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
        let best = m.lp.solve()?.objective();
        let allocation = spread_optimum(inst, |m| {
            let sum: Vec<_> = (0..inst.tenants())
                .flat_map(|i| m.weighted(i, &inst.throughput[i]))
                .collect();
            m.lp.ge(sum, (1.0 - 1e-9) * best);
        })?;
        Ok(Solution {
            objective: best,
            allocation,
            market: None,
        })
    }
}
