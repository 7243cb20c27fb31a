//! equal-share: each tenant's weighted equal split of every type, the baseline sharing incentive
//! is measured against. No solver.

use super::declared::{Family, InRounds, Reads, Rounds};
use super::{Guarantees, Policy, PolicyError, PolicyInfo, Promise, Solution};
use crate::{Allocation, Instance};

/// Every tenant gets its weighted equal split of every type, e_ij = n_j w_i / sum_k w_k (capped
/// at d_i GPUs). The objective is the efficiency sum_i u_i(e_i). No optimisation: the baseline
/// the sharing-incentive property is measured against.
pub struct EqualShare;

/// The name and the one-line summary the CLI and the playground show.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "equal-share",
    summary: "each tenant gets its weighted equal split of every GPU type",
    guarantees: Guarantees {
        si: Promise::Always,
        ef: Promise::Always,
        pe: Promise::No,
        sp: Promise::Always,
    },
    family: Family::Baseline,
    reads: Reads::BASE,
    rounds: InRounds::Solved(Rounds::CLASSES),
};

impl Policy for EqualShare {
    fn info(&self) -> PolicyInfo {
        INFO
    }

    fn allocate(&self, inst: &Instance) -> Result<Solution, PolicyError> {
        let allocation = Allocation {
            gpus: (0..inst.tenants()).map(|i| inst.equal_split(i)).collect(),
        };
        let objective = allocation.efficiency(inst);
        Ok(Solution {
            allocation,
            objective,
            market: None,
            shared: Vec::new(),
            trades: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Scenario;

    #[test]
    fn splits_by_weight_and_fills_the_cluster() {
        let inst = Scenario::from_json(
            r#"{"gpu_types": [{"name": "k80", "count": 3}, {"name": "v100", "count": 6}],
                "tenants": [{"name": "a", "throughput": [1, 2]},
                            {"name": "b", "throughput": [1, 3], "weight": 2}]}"#,
        )
        .unwrap()
        .instance()
        .unwrap();
        let sol = EqualShare.solve(&inst).unwrap();
        assert_eq!(sol.allocation.gpus, vec![vec![1.0, 2.0], vec![2.0, 4.0]]);
        assert_eq!(sol.allocation.used(2), vec![3.0, 6.0]);
        // u_a = 1 + 2*2 = 5, u_b = 2 + 3*4 = 14 (hand-computed).
        assert_eq!(sol.objective, 19.0);
    }
}
