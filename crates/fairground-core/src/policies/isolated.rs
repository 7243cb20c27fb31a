use super::gavel::isolated_share;
use super::{Policy, PolicyError, Solution};
use crate::{Allocation, Instance};

/// Gavel's isolated share: x_ij = n_j / (m s_i) over m tenants, each row scaled down so
/// sum_j x_ij <= 1, i.e. an unweighted 1/m of every type, capped at s_i GPUs. The objective
/// reported is the efficiency sum_i u_i.
pub struct Isolated;

impl Policy for Isolated {
    fn name(&self) -> &'static str {
        "isolated"
    }

    fn summary(&self) -> &'static str {
        "Gavel's isolated share: 1/m of every type, capped at the tenant's scale factor"
    }

    fn allocate(&self, inst: &Instance) -> Result<Solution, PolicyError> {
        let allocation = Allocation {
            gpus: (0..inst.tenants())
                .map(|i| isolated_share(inst, i))
                .collect(),
        };
        Ok(Solution {
            objective: allocation.efficiency(inst),
            allocation,
            market: None,
        })
    }
}
