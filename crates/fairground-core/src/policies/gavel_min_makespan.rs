//! gavel-min-makespan: Gavel's minimum makespan over each tenant's work, by bisection, and the
//! interior-point bound its simulator settles on. Over LAS and the interior point solver.

use super::canonical::CRUMB;
use super::declared::{
    Family, Grouping, InRounds, Interior, PartyRule, Reads, RoundAnswer, Rounds, Walk, Warm,
};
use super::gavel_las::{max_min_solution, spread_max_min};
use super::interior::{allocation_of, ConeProgram};
use super::{Guarantees, Policy, PolicyError, PolicyInfo, Solution};
use crate::Instance;

/// Gavel's minimum makespan (`min_total_duration_perf`): finish everyone's work as early as
/// possible.
///
/// ```text
/// minimise   T
/// subject to base constraints
///            sum_j T_ij g_ij >= R_i / T       for every i (R_i: its work left, `work`)
/// ```
///
/// With z = 1/T this is LAS's max-min LP with rates T_ij / R_i (maximise min_i thr_i / R_i),
/// so it is solved exactly: T* = 1 / z*. Gavel bisects T instead ([`gavel_bound`]), which
/// stops within 5% of T*. The allocation returned is the canonical one at the bound (every
/// tenant at the rate that finishes its work by then, no more, spread over the types:
/// [`spread_max_min`]); the objective reported is the makespan T in seconds.
pub struct GavelMinMakespan;

/// The name and the one-line summary the CLI and the playground show.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "gavel-min-makespan",
    summary: "Gavel: finish every tenant's work (its `work`) as early as possible",
    guarantees: Guarantees::NONE,
    family: Family::Gavel,
    reads: Reads {
        work: true,
        ..Reads::BASE
    },
    rounds: InRounds::Solved(Rounds {
        parties: PartyRule::Always(Grouping::Jobs),
        answer: RoundAnswer::GavelInterior(Interior::MinMakespan),
        walk: Walk::Fixed,
        warm: Warm::Cold,
    }),
};

/// Which makespan bound the allocation is made for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MakespanBound {
    /// The least makespan T*, exactly.
    Exact,
    /// The bound Gavel's bisection settles on ([`gavel_bound`]), as its simulator runs it.
    GavelBisection,
}

impl Policy for GavelMinMakespan {
    fn info(&self) -> PolicyInfo {
        INFO
    }

    fn allocate(&self, inst: &Instance) -> Result<Solution, PolicyError> {
        min_makespan(inst, MakespanBound::Exact)
    }
}

/// The allocation that finishes every tenant's work by the chosen bound (see
/// [`GavelMinMakespan`]).
pub fn min_makespan(inst: &Instance, bound: MakespanBound) -> Result<Solution, PolicyError> {
    let rates = rates(inst);
    let best = max_min_solution(inst, &rates)?;
    let least = 1.0 / best.objective;
    let makespan = match bound {
        MakespanBound::Exact => least,
        MakespanBound::GavelBisection => gavel_bound(least),
    };
    Ok(Solution {
        allocation: spread_max_min(inst, &rates, 1.0 / makespan)?,
        objective: makespan,
        market: None,
        shared: Vec::new(),
        trades: Vec::new(),
    })
}

/// gavel-min-makespan as the simulator runs it, with Gavel's bisection's bound, by two
/// interior-point solves instead of [`min_makespan`]'s three simplex LPs (1,000 jobs in 9.6 s
/// against 286 s, the same JCTs to 0.3%; BENCHMARKS.md):
///
/// ```text
/// z*  = max z  s.t. base, sum_j r_ij g_ij >= z          (r_ij = T_ij / R_i; T* = 1 / z*)
/// T   = the bound Gavel's bisection settles on for T* (+ 1e-7, the solver's tolerance)
/// min  sum_ij g_ij + eps sum_i (1/E_i) sum_j d_ij       s.t. base, sum_j r_ij g_ij >= 1 / T,
///                                                          d_ij >= c_j h_i - g_ij, d >= 0
/// ```
///
/// The second program is [`spread_max_min`]'s canonical choice (the fewest GPUs, then the
/// closest to spreading each tenant's GPUs over the types in proportion to their counts) with
/// its two steps weighted into one, eps = 1e-4: spreading may cost at most about eps of a GPU
/// per tenant's equal split, so the total stays at the fewest to that order. Holdings under
/// 1e-7 of a tenant's equal split are zeroed, as the canonical optimum's are, so no job keeps
/// an interior point's crumbs.
pub fn min_makespan_interior(inst: &Instance) -> Result<Solution, PolicyError> {
    let (n, k) = (inst.tenants(), inst.types());
    let rates = rates(inst);
    // The least makespan: each job's row divided by its largest rate, z measured in the
    // smallest of those, so the solver sees numbers of order one.
    let largest: Vec<f64> = rates
        .iter()
        .map(|r| r.iter().fold(0.0_f64, |a, &b| a.max(b)))
        .collect();
    if largest.iter().any(|&r| r.is_nan() || r <= 0.0) {
        return Err(PolicyError::Infeasible(
            "a job can run on no GPU type of the cluster".into(),
        ));
    }
    let unit = largest.iter().fold(f64::INFINITY, |a, &b| a.min(b));
    let z = n * k;
    let mut level = ConeProgram::with_base_constraints(inst);
    for (i, rate) in rates.iter().enumerate() {
        let row = work_row(&mut level, i, rate, -1.0 / largest[i]);
        level.entry(row, z, unit / largest[i]);
        level.b.push(0.0);
    }
    level.close_nonnegative();
    let mut c = vec![0.0; z + 1];
    c[z] = -1.0;
    let least = 1.0 / (unit * level.minimise(&c, "min-makespan's level")?[z]);
    let makespan = gavel_bound(least * (1.0 + 1e-7));

    // The canonical allocation at that bound, in one program.
    let d = |i: usize, j: usize| n * k + i * k + j;
    let total: f64 = inst.count.iter().sum();
    let total_weight: f64 = inst.weight.iter().sum();
    let size: Vec<f64> = (0..n)
        .map(|i| inst.equal_split_with(i, total_weight).iter().sum::<f64>())
        .collect();
    let mut spread = ConeProgram::with_base_constraints(inst);
    for (i, rate) in rates.iter().enumerate() {
        work_row(&mut spread, i, rate, -makespan);
        spread.b.push(-(1.0 - 1e-9));
    }
    for i in 0..n {
        for j in 0..k {
            // c_j h_i - g_ij - d_ij <= 0 and -d_ij <= 0.
            let share = inst.count[j] / total;
            let row = spread.b.len();
            for other in 0..k {
                let coeff = if other == j { share - 1.0 } else { share };
                spread.entry(row, i * k + other, coeff);
            }
            spread.entry(row, d(i, j), -1.0);
            spread.entry(row + 1, d(i, j), -1.0);
            spread.b.extend([0.0, 0.0]);
        }
    }
    spread.close_nonnegative();
    let mut c = vec![1.0; 2 * n * k];
    for i in 0..n {
        for j in 0..k {
            c[d(i, j)] = SPREAD_WEIGHT / size[i].max(1e-12);
        }
    }
    let x = spread.minimise(&c, "min-makespan's allocation")?;
    let mut allocation = allocation_of(inst, &x);
    for (row, size) in allocation.gpus.iter_mut().zip(&size) {
        row.iter_mut()
            .filter(|g| **g < CRUMB * size)
            .for_each(|g| *g = 0.0);
    }
    Ok(Solution {
        allocation,
        objective: makespan,
        market: None,
        shared: Vec::new(),
        trades: Vec::new(),
    })
}

/// Starts a row with tenant i's work rate, scale sum_j r_ij g_ij, and returns its index (the
/// caller adds the rest and its right-hand side).
fn work_row(program: &mut ConeProgram, i: usize, rate: &[f64], scale: f64) -> usize {
    let (row, k) = (program.b.len(), rate.len());
    for (j, r) in rate.iter().enumerate() {
        if *r != 0.0 {
            program.entry(row, i * k + j, r * scale);
        }
    }
    row
}

/// eps above: the weight of spreading against the GPUs held.
const SPREAD_WEIGHT: f64 = 1e-4;

/// r_ij = T_ij / R_i: tenant i's share of its work done per second on a GPU of type j.
fn rates(inst: &Instance) -> Vec<Vec<f64>> {
    (0..inst.tenants())
        .map(|i| {
            inst.throughput[i]
                .iter()
                .map(|t| t / inst.work[i])
                .collect()
        })
        .collect()
}

/// The makespan Gavel's bisection settles on when the least feasible one is `least`
/// (`MinTotalDurationPolicyWithPerf`): over [100 s, 10^6 s], halve the bracket (a bound is
/// feasible exactly when it is at least `least`) until its ends are within a factor 1.05,
/// keeping the last feasible midpoint; if none was, try [10^6, 10^7], and so on. So it is at
/// most 5% above `least` (and never below about 100 s).
pub fn gavel_bound(least: f64) -> f64 {
    let (mut lo, mut hi, mut last_hi) = (100.0_f64, 1e6_f64, 1e6_f64);
    loop {
        let mut feasible = None;
        while 1.05 * lo < hi {
            let t = (lo + hi) / 2.0;
            if t >= least {
                feasible = Some(t);
                hi = t;
            } else {
                lo = t;
            }
        }
        if let Some(t) = feasible {
            return t;
        }
        if !last_hi.is_finite() {
            return least;
        }
        hi = last_hi * 10.0;
        lo = last_hi;
        last_hi *= 10.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One V100 and one K80, no caps; A does 2 steps/s on the V100 and 1 on the K80, B 1 and
    /// 1; A has 400 steps left, B 100. Both busy to the end: 2 a_v + a_k = 400 / T and
    /// b_v + b_k = 100 / T with a_v + b_v = 1, a_k + b_k = 1. B on the K80 alone
    /// (b_k = 1 is 100 s of work) and A on the V100 (200 s) is worse than sharing: with
    /// T = 500 / 3 s, A on the V100 and B 0.6 of the K80, A 0.4 of it: A does
    /// 2 + 0.4 = 2.4 steps/s = 400 / (500/3), B 0.6 = 100 / (500/3). T* = 500/3 s, since
    /// the total work 500 at the best a fully busy cluster can do (3 steps/s, A on the
    /// V100) takes 500/3. (Capped at 1 GPU each, A could do no better than 2 steps/s: 200 s.)
    #[test]
    fn the_least_makespan_by_hand_and_gavels_bisection_above_it() {
        let inst = super::super::test_instance(
            &[("v100", 1), ("k80", 1)],
            &[
                (&[2.0, 1.0], None, Some(400.0)),
                (&[1.0, 1.0], None, Some(100.0)),
            ],
        );
        let sol = GavelMinMakespan.solve(&inst).unwrap();
        assert!(
            (sol.objective - 500.0 / 3.0).abs() < 1e-7,
            "{}",
            sol.objective
        );
        let g = &sol.allocation.gpus;
        assert!(
            (g[0][0] - 1.0).abs() < 1e-7 && (g[0][1] - 0.4).abs() < 1e-7,
            "{g:?}"
        );
        assert!(
            g[1][0].abs() < 1e-7 && (g[1][1] - 0.6).abs() < 1e-7,
            "{g:?}"
        );
        // Gavel's bisection from [100, 10^6] stops within 5% above.
        let gavel = min_makespan(&inst, MakespanBound::GavelBisection).unwrap();
        assert!(gavel.objective >= 500.0 / 3.0 && gavel.objective <= 1.05 * 500.0 / 3.0);
    }

    /// The interior-point path against the simplex one (a different algorithm): on the hand
    /// case above, on a seeded random 12-job, 3-type instance and on a tie, the same bound, the same
    /// fewest GPUs to 1e-6, every job's work done by the bound (checked from the definition),
    /// and the same allocation to 1e-3 of a GPU.
    #[test]
    fn the_interior_path_gives_the_simplex_paths_canonical_allocation() {
        let hand = super::super::test_instance(
            &[("v100", 1), ("k80", 1)],
            &[
                (&[2.0, 1.0], None, Some(400.0)),
                (&[1.0, 1.0], None, Some(100.0)),
            ],
        );
        let mut random = crate::presets::random_scenario(12, 3, 7, true);
        for (i, tenant) in random.tenants.iter_mut().enumerate() {
            tenant.work = Some(1e3 * (1 + i * i % 7) as f64);
        }
        let random = random.instance().unwrap();
        // A job as fast on both types: its fewest GPUs can sit anywhere, and the spread puts
        // them in proportion to the counts (1 : 2), which the simplex path does by its third LP.
        let tie = super::super::test_instance(
            &[("a", 4), ("b", 8)],
            &[(&[1.0, 1.0], Some(3.0), Some(900.0))],
        );
        for inst in [hand, random, tie] {
            let simplex = min_makespan(&inst, MakespanBound::GavelBisection).unwrap();
            let interior = min_makespan_interior(&inst).unwrap();
            assert!((interior.objective / simplex.objective - 1.0).abs() < 1e-12);
            let t = interior.objective;
            let (a, b) = (&interior.allocation.gpus, &simplex.allocation.gpus);
            for i in 0..inst.tenants() {
                let done: f64 = (0..inst.types())
                    .map(|j| inst.throughput[i][j] * a[i][j] * t)
                    .sum();
                assert!(done >= inst.work[i] * (1.0 - 1e-6), "job {i}: {done}");
                for j in 0..inst.types() {
                    assert!((a[i][j] - b[i][j]).abs() < 1e-3, "{i} {j}: {a:?} {b:?}");
                }
            }
            let held = |g: &Vec<Vec<f64>>| g.iter().flatten().sum::<f64>();
            assert!(
                (held(a) / held(b) - 1.0).abs() < 1e-6,
                "{} {}",
                held(a),
                held(b)
            );
            interior.allocation.check(&inst).unwrap();
        }
    }

    #[test]
    fn gavels_bisection_brackets_the_least_bound_within_five_percent() {
        for least in [1.0, 99.0, 150.0, 3_333.3, 999_999.0, 2.5e6, 4e8] {
            let t = gavel_bound(least);
            assert!(t >= least, "{least}: {t}");
            // Never below about 100 s, and otherwise within 5% (the bracket's last width).
            assert!(t <= (1.05 * least).max(105.0), "{least}: {t}");
        }
    }
}
