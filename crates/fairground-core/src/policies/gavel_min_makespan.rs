use super::gavel_las::{max_min_solution, spread_max_min};
use super::{Policy, PolicyError, PolicyInfo, Solution};
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
    let rates: Vec<Vec<f64>> = (0..inst.tenants())
        .map(|i| {
            inst.throughput[i]
                .iter()
                .map(|t| t / inst.work[i])
                .collect()
        })
        .collect();
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
    })
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
