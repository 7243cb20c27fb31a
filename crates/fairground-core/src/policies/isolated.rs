//! isolated: Gavel's isolated share, an unweighted 1/m of every type capped at the tenant's
//! scale factor. No solver.

use super::declared::{
    Family, Grouping, InRounds, PartyRule, Reads, RoundAnswer, Rounds, Walk, Warm,
};
use super::gavel::isolated_share;
use super::{Guarantees, Policy, PolicyError, PolicyInfo, Promise, Solution};
use crate::{Allocation, Instance};

/// Gavel's isolated share: x_ij = n_j / (m s_i) over m tenants, each row scaled down so
/// sum_j x_ij <= 1, i.e. an unweighted 1/m of every type, capped at s_i GPUs. The objective
/// reported is the efficiency sum_i u_i.
pub struct Isolated;

/// The name and the one-line summary the CLI and the playground show.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "isolated",
    summary: "Gavel's isolated share: 1/m of every type, capped at the tenant's scale factor",
    guarantees: Guarantees {
        si: Promise::No,
        ef: Promise::No,
        pe: Promise::No,
        sp: Promise::Always,
    },
    family: Family::Baseline,
    reads: Reads::BASE,
    rounds: InRounds::Solved(Rounds {
        parties: PartyRule::Always(Grouping::Jobs),
        answer: RoundAnswer::Solve,
        walk: Walk::Shuffled,
        warm: Warm::Cold,
    }),
};

impl Policy for Isolated {
    fn info(&self) -> PolicyInfo {
        INFO
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
            shared: Vec::new(),
            trades: Vec::new(),
        })
    }
}
