//! gavel-las: Gavel's heterogeneity-aware max-min fairness (LAS) of normalised throughput. Over
//! the base constraints and Gavel's shared notions.

use super::base::{scale_factor, AllocationLp};
use super::canonical::spread_optimum;
use super::declared::{
    Family, InRounds, JobGrouping, PartyRule, Reads, RoundAnswer, Rounds, Walk, Warm,
};
use super::gavel::proportional_throughput;
use super::{Guarantees, Policy, PolicyError, PolicyInfo, Promise, Solution};
use crate::lp::{Lp, LpSolution, Var};
use crate::Instance;

/// Gavel's heterogeneity-aware max-min fairness ("LAS", Narayanan et al., OSDI 2020):
///
/// ```text
/// maximise   min_i  (s_i / (w_i prop_i)) sum_j T_ij x_ij   =  min_i sum_j T_ij g_ij / (w_i prop_i)
/// subject to base constraints (capacity; sum_j g_ij <= s_i)
/// ```
///
/// solved as: maximise z subject to z <= sum_j c_ij g_ij for every i, c_ij = T_ij / (w_i prop_i).
/// The objective reported is that minimum normalised throughput.
pub struct GavelLas;

/// The name and the one-line summary the CLI and the playground show.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "gavel-las",
    summary: "Gavel: heterogeneity-aware max-min fairness of normalised throughput",
    guarantees: Guarantees {
        si: Promise::WithoutCaps,
        ef: Promise::No,
        pe: Promise::No,
        sp: Promise::No,
    },
    family: Family::Gavel,
    reads: Reads::BASE,
    rounds: InRounds::Solved(Rounds {
        parties: PartyRule::AsAsked(JobGrouping::Classes),
        answer: RoundAnswer::Solve,
        walk: Walk::Fixed,
        warm: Warm::MaxMinClasses,
    }),
};

impl Policy for GavelLas {
    fn info(&self) -> PolicyInfo {
        INFO
    }

    fn allocate(&self, inst: &Instance) -> Result<Solution, PolicyError> {
        max_min_solution(inst, &las_rates(inst))
    }
}

/// c_ij = T_ij / (w_i prop_i).
pub fn las_rates(inst: &Instance) -> Vec<Vec<f64>> {
    (0..inst.tenants())
        .map(|i| {
            let scale = 1.0 / (inst.weight[i] * proportional_throughput(inst, i));
            inst.throughput[i].iter().map(|t| t * scale).collect()
        })
        .collect()
}

pub(super) fn max_min_solution(
    inst: &Instance,
    rates: &[Vec<f64>],
) -> Result<Solution, PolicyError> {
    let levels = vec![None; inst.tenants()];
    let (m, sol, z) = max_min(inst, rates, &levels)?;
    Ok(Solution {
        objective: sol.value(z),
        allocation: m.read(&sol),
        market: None,
        shared: Vec::new(),
        trades: Vec::new(),
    })
}

/// maximise z subject to the base constraints, sum_j rates_ij g_ij >= level_i for tenants with a
/// fixed level, and z <= sum_j rates_ij g_ij for the others.
///
/// Each z row is divided by its largest rate, so rows of parties with very different speeds
/// have coefficients of one size (fewer pivots); cap rows are added lazily
/// ([`AllocationLp::solve_lazy_caps`]).
pub(super) fn max_min(
    inst: &Instance,
    rates: &[Vec<f64>],
    levels: &[Option<f64>],
) -> Result<(AllocationLp, LpSolution, Var), PolicyError> {
    let mut m = if caps_rarely_bind(inst) {
        AllocationLp::with_capacity_rows(Lp::maximize(), inst, |_, _| 0.0)
    } else {
        AllocationLp::new(Lp::maximize(), inst, |_, _| 0.0)
    };
    // z's expected size: the lowest rate any party gets from its equal split (the max-min
    // level is at least that).
    let at_share = (0..inst.tenants())
        .filter(|&i| levels[i].is_none())
        .map(|i| {
            inst.equal_split(i)
                .iter()
                .zip(&rates[i])
                .map(|(e, r)| e * r)
                .sum::<f64>()
        })
        .fold(f64::INFINITY, f64::min);
    let z = m.lp.var_scaled(1.0, at_share);
    for (i, level) in levels.iter().enumerate() {
        let largest = rates[i].iter().fold(0.0_f64, |a, &r| a.max(r.abs()));
        let scale = if largest > 0.0 { 1.0 / largest } else { 1.0 };
        let scaled: Vec<f64> = rates[i].iter().map(|r| r * scale).collect();
        let rate = m.weighted(i, &scaled);
        match level {
            Some(level) => m.lp.ge(rate, level * scale),
            None => {
                let mut row = rate;
                row.push((z, -scale));
                m.lp.ge(row, 0.0);
            }
        }
    }
    let sol = m.solve_lazy_caps(inst)?;
    Ok((m, sol, z))
}

/// The max-min program's canonical optimum ([`spread_optimum`]): every party at or above the
/// optimum `level` of `sum_j rates_ij g_ij` (to a relative 1e-9).
pub(super) fn spread_max_min(
    inst: &Instance,
    rates: &[Vec<f64>],
    level: f64,
) -> Result<crate::Allocation, PolicyError> {
    spread_optimum(inst, |m| {
        for (i, rate) in rates.iter().enumerate() {
            let largest = rate.iter().fold(0.0_f64, |a, &r| a.max(r.abs()));
            let scale = if largest > 0.0 { 1.0 / largest } else { 1.0 };
            let scaled: Vec<f64> = rate.iter().map(|r| r * scale).collect();
            m.lp.ge(m.weighted(i, &scaled), (1.0 - 1e-9) * level * scale);
        }
    })
}

/// Whether the parties could hold more than twice the GPUs there are: then few caps bind at a
/// max-min optimum and adding them lazily pays; otherwise most bind and each lazy addition
/// would cost a re-solve (measured on the 1,000-job benchmark: lazily, 0.5 s at 6 jobs/h
/// against 0.9 s; with all caps, 0.18 s at 0.5 jobs/h against 0.42 s).
pub(super) fn caps_rarely_bind(inst: &Instance) -> bool {
    let gpus: f64 = inst.count.iter().sum();
    let wanted: f64 = (0..inst.tenants()).map(|i| scale_factor(inst, i)).sum();
    wanted > 2.0 * gpus
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::random_scenario;

    #[test]
    fn agnostic_max_min_returns_the_spread_optimum() {
        // Types a (4 GPUs) and b (8); tenant 0 capped at 1 GPU, tenant 1 at 6. The max-min
        // level of GPUs held is 1 (tenant 0's cap). The fewest GPUs at that level: 1 each.
        // Spread in proportion to the counts (1/3, 2/3): both hold (1/3, 2/3).
        let inst = super::super::test_instance(
            &[("a", 4), ("b", 8)],
            &[
                (&[5.0, 1.0], Some(1.0), None),
                (&[1.0, 5.0], Some(6.0), None),
            ],
        );
        let sol = super::super::GavelLasAgnostic.solve(&inst).unwrap();
        assert!((sol.objective - 1.0).abs() < 1e-9);
        for row in &sol.allocation.gpus {
            assert!((row[0] - 1.0 / 3.0).abs() < 1e-7, "{row:?}");
            assert!((row[1] - 2.0 / 3.0).abs() < 1e-7, "{row:?}");
        }
    }

    /// The LAS LP, unscaled, with every cap row from the start (the textbook model) or with
    /// cap rows added lazily; the optimum and the allocation.
    fn las_lp(inst: &Instance, rates: &[Vec<f64>], lazy: bool) -> (f64, Vec<Vec<f64>>) {
        let mut m = if lazy {
            AllocationLp::with_capacity_rows(Lp::maximize(), inst, |_, _| 0.0)
        } else {
            AllocationLp::new(Lp::maximize(), inst, |_, _| 0.0)
        };
        let z = m.lp.var(1.0);
        for (i, r) in rates.iter().enumerate() {
            let mut row = m.weighted(i, r);
            row.push((z, -1.0));
            m.lp.ge(row, 0.0);
        }
        let sol = if lazy {
            m.solve_lazy_caps(inst).unwrap()
        } else {
            m.lp.solve().unwrap()
        };
        (sol.value(z), m.read(&sol).gpus)
    }

    #[test]
    fn lazy_caps_reach_the_full_models_optimum_and_keep_every_cap() {
        // Few jobs on many GPUs (caps bind) and many jobs on few GPUs (they do not).
        for (tenants, seed) in [(3, 1), (6, 2), (12, 3), (40, 4), (80, 5)] {
            let mut scenario = random_scenario(tenants, 3, seed, true);
            for t in &mut scenario.gpu_types {
                t.count = 12;
            }
            let inst = scenario.instance().unwrap();
            let rates = las_rates(&inst);
            let (full, _) = las_lp(&inst, &rates, false);
            let (lazy, gpus) = las_lp(&inst, &rates, true);
            let policy = GavelLas.solve(&inst).unwrap().objective;
            for (what, value) in [("lazy", lazy), ("gavel-las", policy)] {
                assert!(
                    (value - full).abs() <= 1e-7 * full.max(1.0),
                    "{tenants} jobs: {what} {value}, full {full}"
                );
            }
            for (i, row) in gpus.iter().enumerate() {
                let held: f64 = row.iter().sum();
                assert!(held <= inst.cap[i].unwrap() + 1e-7, "job {i} holds {held}");
            }
            if tenants <= 6 {
                // Some cap binds (few jobs, 36 GPUs), so the lazy model really added rows.
                let capped = (0..tenants)
                    .filter(|&i| gpus[i].iter().sum::<f64>() >= inst.cap[i].unwrap() - 1e-7)
                    .count();
                assert!(capped > 0, "{tenants} jobs on 36 GPUs: some cap must bind");
            }
        }
    }
}
