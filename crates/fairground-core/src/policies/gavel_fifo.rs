//! gavel-fifo: Gavel's FIFO allocation at tenant level, each tenant whole or not at all, in the
//! scenario's order. No solver.

use super::declared::{
    Family, Grouping, InRounds, PartyRule, Reads, RoundAnswer, Rounds, Walk, Warm,
};
use super::{Guarantees, Policy, PolicyError, PolicyInfo, Solution};
use crate::order::sort_indices_by;
use crate::{Allocation, Instance};

/// Gavel's FIFO allocation (`policies/fifo.py`, `FIFOPolicyWithPerf`, the one its simulator
/// runs as `fifo_perf`), at tenant level: tenants are served in the scenario's order (Gavel:
/// job id order, which is arrival order), each whole or not at all.
///
/// ```text
/// free_j = n_j
/// for i in order:
///     want_i = d_i                                       (its cap: Gavel's scale factor)
///     fits   = { j : free_j >= want_i }
///     if fits is empty: stop                             (no one jumps the queue)
///     j* = argmax_{j in fits} T_ij, ties to the first type name in sorted order
///     if T_ij* > 0: g_ij* = want_i, free_j* -= want_i    (else i gets nothing; go on)
/// ```
///
/// Gavel sorts the free types by name and keeps the first strict maximum, so equal
/// throughputs go to the alphabetically first type; the same here. A tenant without a cap
/// (the project's extension: Gavel's jobs always have a scale factor) wants one whole type:
/// it takes every free GPU of its fastest type that has any left, so it never blocks the
/// queue. The objective reported is the number of tenants served.
pub struct GavelFifo;

/// The name and the one-line summary the CLI and the playground show.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "gavel-fifo",
    summary: "Gavel: first come, first served, each on its fastest type with room",
    guarantees: Guarantees::NONE,
    family: Family::Gavel,
    reads: Reads::BASE,
    rounds: InRounds::Solved(Rounds {
        parties: PartyRule::Always(Grouping::Queue),
        answer: RoundAnswer::Solve,
        walk: Walk::Fixed,
        warm: Warm::Cold,
    }),
};

impl Policy for GavelFifo {
    fn info(&self) -> PolicyInfo {
        INFO
    }

    fn allocate(&self, inst: &Instance) -> Result<Solution, PolicyError> {
        let mut free = inst.count.clone();
        let mut gpus = vec![vec![0.0; inst.types()]; inst.tenants()];
        // Types in Gavel's order: sorted by name.
        let mut by_name: Vec<usize> = (0..inst.types()).collect();
        sort_indices_by(&mut by_name, &|a, b| {
            inst.type_names[a].cmp(&inst.type_names[b])
        });
        let mut served = 0;
        for (i, held) in gpus.iter_mut().enumerate() {
            let fits = |j: usize, free: &[f64]| match inst.cap[i] {
                Some(want) => free[j] >= want,
                None => free[j] > 0.0,
            };
            let mut best: Option<usize> = None;
            for &j in &by_name {
                if fits(j, &free)
                    && best.is_none_or(|b| inst.throughput[i][j] > inst.throughput[i][b])
                {
                    best = Some(j);
                }
            }
            let Some(j) = best else { break };
            if inst.throughput[i][j] > 0.0 {
                let take = inst.cap[i].unwrap_or(free[j]);
                held[j] = take;
                free[j] -= take;
                served += 1;
            }
        }
        Ok(Solution {
            allocation: Allocation { gpus },
            objective: served as f64,
            market: None,
            shared: Vec::new(),
            trades: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inst(types: &[(&str, u32)], tenants: &[(&[f64], Option<f64>)]) -> Instance {
        let rows: Vec<_> = tenants.iter().map(|&(t, cap)| (t, cap, None)).collect();
        super::super::test_instance(types, &rows)
    }

    fn held(inst: &Instance) -> Vec<Vec<f64>> {
        GavelFifo.solve(inst).unwrap().allocation.gpus
    }

    #[test]
    fn each_job_in_turn_takes_its_fastest_type_with_room() {
        // v100 x 2, k80 x 4. Job 0 (2 GPUs) takes both V100s; job 1 (1 GPU), faster on V100,
        // finds none left and takes a K80; job 2 (4 GPUs) fits nowhere (3 K80s left) and
        // stops the queue, so job 3 (1 GPU) gets nothing although a K80 is free.
        let i = inst(
            &[("v100", 2), ("k80", 4)],
            &[
                (&[4.0, 1.0], Some(2.0)),
                (&[4.0, 1.0], Some(1.0)),
                (&[4.0, 1.0], Some(4.0)),
                (&[4.0, 1.0], Some(1.0)),
            ],
        );
        assert_eq!(
            held(&i),
            vec![
                vec![2.0, 0.0],
                vec![0.0, 1.0],
                vec![0.0, 0.0],
                vec![0.0, 0.0]
            ]
        );
        assert_eq!(GavelFifo.solve(&i).unwrap().objective, 2.0);
    }

    #[test]
    fn equal_throughputs_go_to_the_first_type_by_name_and_zero_throughput_gets_nothing() {
        // Types listed v100 then k80; a job as fast on both goes to "k80" (sorted first). A
        // job with throughput 0 on the only type with room gets nothing, and the next is served.
        let i = inst(
            &[("v100", 1), ("k80", 1)],
            &[
                (&[3.0, 3.0], Some(1.0)),
                (&[2.0, 0.0], Some(1.0)),
                (&[5.0, 5.0], Some(1.0)),
            ],
        );
        assert_eq!(
            held(&i),
            vec![vec![0.0, 1.0], vec![1.0, 0.0], vec![0.0, 0.0]]
        );
        // Swap the second job's speeds: V100 is left and it cannot run there, so it gets
        // nothing and the third job takes the V100.
        let i = inst(
            &[("v100", 1), ("k80", 1)],
            &[
                (&[3.0, 3.0], Some(1.0)),
                (&[0.0, 2.0], Some(1.0)),
                (&[5.0, 5.0], Some(1.0)),
            ],
        );
        assert_eq!(
            held(&i),
            vec![vec![0.0, 1.0], vec![0.0, 0.0], vec![1.0, 0.0]]
        );
    }

    #[test]
    fn an_uncapped_tenant_takes_its_fastest_type_with_any_room() {
        let i = inst(
            &[("a100", 4), ("v100", 8)],
            &[
                (&[2.0, 1.0], None),
                (&[2.0, 1.0], Some(3.0)),
                (&[2.0, 1.0], None),
            ],
        );
        assert_eq!(
            held(&i),
            vec![vec![4.0, 0.0], vec![0.0, 3.0], vec![0.0, 5.0]]
        );
    }
}
