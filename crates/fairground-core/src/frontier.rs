//! The price of fairness: the most efficient allocation under eps-relaxed guarantees, for eps from
//! 0 (the guarantees exactly; with both, oef-coop) to 1 (no guarantee left: maximum efficiency),
//! one curve per guarantee, with every named policy placed as a point.
//!
//! ```text
//! E_G(eps) = max sum_i u_i(g_i)  over base-feasible g meeting guarantee G relaxed by eps:
//!   SI:  u_i(g_i) >= (1 - eps) u_i(e_i)
//!   EF:  u_i(g_i) / w_i >= (1 - eps) u_i(g_k) / w_k     (the required pairs)
//! ```
//!
//! **Resolution.** E_G is computed at eps = 0, h, 2h, ..., 1 (h = `step`, 0.05 by default), each
//! point an exact LP optimum; between grid points the curve is drawn straight. The SI curve is
//! piecewise linear and concave (a parametric right-hand side), so its chords lie below it; the
//! EF rows scale a coefficient, not a right-hand side, so no finite set of breakpoints is known.
//! Every E_G is non-decreasing in eps (the feasible set grows), so a policy whose guarantees
//! hold relaxed by eps has efficiency at most E_G at the next grid point above eps.
//!
//! A policy's point: its efficiency against the smallest eps at which it meets both guarantees
//! ([`fairness::si_relaxation`], [`fairness::ef_relaxation`]; both are in the JSON).

use crate::fairness::{self, TOLERANCE};
use crate::policies::{
    self, most_efficient_seeded, OefCoop, Policy, PolicyError, Relaxation, Solution,
};
use crate::{Allocation, Instance};
use serde::{Deserialize, Serialize};

/// The grid step when none is given.
pub const DEFAULT_STEP: f64 = 0.05;
/// The finest grid accepted (2,001 points per curve).
pub const FINEST_STEP: f64 = 0.0005;

/// The guarantees a curve imposes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Guarantee {
    SharingIncentive,
    EnvyFreeness,
    Both,
}

impl Guarantee {
    pub const ALL: [Guarantee; 3] = [
        Guarantee::SharingIncentive,
        Guarantee::EnvyFreeness,
        Guarantee::Both,
    ];

    /// Short label for tables and legends.
    pub fn label(self) -> &'static str {
        match self {
            Guarantee::SharingIncentive => "SI only",
            Guarantee::EnvyFreeness => "EF only",
            Guarantee::Both => "SI + EF",
        }
    }

    fn relaxation(self, eps: f64) -> Relaxation {
        let on = |yes: bool| yes.then_some(eps);
        Relaxation {
            sharing_incentive: on(self != Guarantee::EnvyFreeness),
            envy_freeness: on(self != Guarantee::SharingIncentive),
        }
    }
}

/// One guarantee's curve over the grid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Curve {
    pub guarantee: Guarantee,
    /// E_G(eps) at each grid point.
    pub efficiency: Vec<f64>,
    /// 1 - E_G(0) / E_G(1): the share of the maximum efficiency the exact guarantee costs.
    pub price_of_fairness: f64,
}

/// A named policy on the same axes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PolicyPoint {
    pub policy: String,
    pub efficiency: f64,
    /// The smallest eps at which it meets SI, EF, and both.
    pub eps_sharing_incentive: f64,
    pub eps_envy_freeness: f64,
    pub eps_both: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Frontier {
    pub step: f64,
    /// The grid: 0, step, ..., 1.
    pub eps: Vec<f64>,
    pub curves: Vec<Curve>,
    pub max_efficiency: f64,
    pub policies: Vec<PolicyPoint>,
    /// Policies that could not be placed, with why.
    pub failed: Vec<String>,
}

/// Checks a grid step: a number in [[`FINEST_STEP`], 1] that divides 1 into whole steps (to
/// 1e-9), so the grid ends exactly at 1.
pub fn check_step(step: f64) -> Result<usize, String> {
    if !(step.is_finite() && (FINEST_STEP..=1.0).contains(&step)) {
        return Err(format!(
            "the eps step must be between {FINEST_STEP} and 1 (got {step})"
        ));
    }
    let points = (1.0 / step).round();
    if ((points * step) - 1.0).abs() > 1e-9 {
        return Err(format!(
            "the eps step must divide 1 into whole steps, like 0.05 or 0.1 (got {step})"
        ));
    }
    Ok(points as usize)
}

/// Computes every curve at the grid of `step` and places every policy of [`policies::all`].
pub fn frontier(inst: &Instance, step: f64) -> Result<Frontier, String> {
    frontier_among(inst, step, policies::all)
}

/// [`frontier`] placing the policies `registry` lists ([`policies::all`], or
/// [`policies::all_lp`] in an engine built without the conic solver).
pub fn frontier_among(
    inst: &Instance,
    step: f64,
    registry: fn() -> Vec<&'static dyn policies::Policy>,
) -> Result<Frontier, String> {
    let intervals = check_step(step)?;
    let eps: Vec<f64> = (0..=intervals)
        .map(|k| k as f64 / intervals as f64)
        .collect();
    let mut curves = Vec::new();
    // The EF rows tight at each point of the EF curve, which the SI + EF curve starts from too.
    let mut ef_tight = Vec::new();
    // The SI + EF curve's allocation at eps = 0: an optimum of oef-coop's own program.
    let mut both_exact = None;
    for guarantee in Guarantee::ALL {
        let (efficiency, tight, exact) = curve_points(inst, guarantee, &eps, &ef_tight)?;
        if guarantee == Guarantee::EnvyFreeness {
            ef_tight = tight;
        }
        if guarantee == Guarantee::Both {
            both_exact = Some(exact);
        }
        let (first, last) = (efficiency[0], efficiency[efficiency.len() - 1]);
        curves.push(Curve {
            guarantee,
            price_of_fairness: if last > 0.0 { 1.0 - first / last } else { 0.0 },
            efficiency,
        });
    }
    let max_efficiency = curves
        .iter()
        .filter_map(|c| c.efficiency.last().copied())
        .fold(0.0, f64::max);
    let mut points = Vec::new();
    let mut failed = Vec::new();
    for policy in registry() {
        // oef-coop's program is the SI + EF curve's at eps = 0: its point reuses that answer.
        let reused = (policy.name() == OEF_COOP.name())
            .then(|| both_exact.take())
            .flatten();
        let solved = match reused {
            Some(exact) => oef_coop_from(inst, policy, exact),
            None => policy.solve(inst),
        };
        match solved {
            // The curves are over allocations without sharing, and EF is not defined with it.
            Ok(sol) if inst.shares_any(&sol.shared) => failed.push(format!(
                "{}: it shares GPUs between co-located pairs, and these curves are over \
                 allocations without sharing",
                policy.name()
            )),
            Ok(sol) => {
                let g = &sol.allocation;
                let si = fairness::si_relaxation(inst, g);
                let ef = fairness::ef_relaxation(inst, g);
                points.push(PolicyPoint {
                    policy: policy.name().to_string(),
                    efficiency: g.efficiency(inst),
                    eps_sharing_incentive: si,
                    eps_envy_freeness: ef,
                    eps_both: si.max(ef),
                });
            }
            Err(err) => failed.push(format!("{}: {err}", policy.name())),
        }
    }
    Ok(Frontier {
        step,
        eps,
        curves,
        max_efficiency,
        policies: points,
        failed,
    })
}

/// For oef-coop's name.
const OEF_COOP: OefCoop = OefCoop {
    ef_rows: policies::EfRows::Lazy,
};

/// oef-coop's point from the SI + EF curve's allocation at eps = 0, which solved oef-coop's
/// program (the same LP, only seeded with rows): at 150 x 12 solving it again took 1.3 s of the
/// frontier's 5.4 s. Taken only if it passes every check `Policy::solve` makes of oef-coop's own
/// answer; otherwise `oef_coop` (the registry's) is solved as every other policy is.
fn oef_coop_from(
    inst: &Instance,
    oef_coop: &dyn Policy,
    exact: Solution,
) -> Result<Solution, PolicyError> {
    match exact
        .check(inst)
        .and_then(|()| oef_coop.check_defining(inst, &exact))
    {
        Ok(()) => Ok(exact),
        Err(_) => oef_coop.solve(inst),
    }
}

/// EF pairs (i, k): the rows of an LP.
type Pairs = Vec<(usize, usize)>;

/// E_G at each point of the grid, the EF rows tight at each, and the solution at eps = 0.
/// Solved from eps = 1 down, each LP starting with the rows tight at the point before and at the
/// same point of `also` (the EF curve's, for SI + EF): most are needed again, and a cold solve
/// with them is faster than finding them one by one (BENCHMARKS.md, "Nash welfare, partial allocation and the frontier").
/// The optimum is the same: rows still missing are added lazily.
fn curve_points(
    inst: &Instance,
    guarantee: Guarantee,
    eps: &[f64],
    also: &[Pairs],
) -> Result<(Vec<f64>, Vec<Pairs>, Solution), String> {
    let mut efficiency = vec![0.0; eps.len()];
    let mut tight_at = vec![Vec::new(); eps.len()];
    let mut seed: Pairs = Vec::new();
    let mut last = None;
    for (k, &e) in eps.iter().enumerate().rev() {
        seed.extend(also.get(k).into_iter().flatten().copied());
        let (sol, tight) = most_efficient_seeded(inst, guarantee.relaxation(e), &seed)
            .map_err(|err: PolicyError| format!("{} at eps = {e}: {err}", guarantee.label()))?;
        check_point(inst, guarantee, e, &sol.allocation).map_err(|why| {
            format!(
                "{} at eps = {e}: the solver's answer failed its check, so no curve is shown: \
                 {why}{}",
                guarantee.label(),
                crate::scenario::spread_note(inst)
            )
        })?;
        efficiency[k] = sol.allocation.efficiency(inst);
        seed.clone_from(&tight);
        tight_at[k] = tight;
        last = Some(sol);
    }
    // The grid always holds eps = 0, solved last.
    let at_zero = last.ok_or("the eps grid is empty")?;
    // The feasible set grows with eps, so a point below the one before is not an optimum.
    if let Some(k) = (1..eps.len()).find(|&k| {
        efficiency[k]
            < efficiency[k - 1] - TOLERANCE * efficiency[k - 1].abs().max(efficiency[k].abs())
    }) {
        return Err(format!(
            "{}: the most efficient allocation at eps = {} ({}) is below the one at eps = {} ({}), \
             so one of the solver's answers is not an optimum and no curve is shown{}",
            guarantee.label(),
            eps[k],
            efficiency[k],
            eps[k - 1],
            efficiency[k - 1],
            crate::scenario::spread_note(inst)
        ));
    }
    Ok((efficiency, tight_at, at_zero))
}

/// A point's allocation must meet what its LP imposed, to the checker's tolerance: the base
/// constraints and each guarantee relaxed by eps. Where the numbers span many orders of
/// magnitude the solver can return one that does not (the fuzz suite found a type with no GPUs
/// handed out, and a curve 1e6 times too high), and a curve through it would be silently wrong.
fn check_point(
    inst: &Instance,
    guarantee: Guarantee,
    eps: f64,
    g: &Allocation,
) -> Result<(), String> {
    g.check(inst)?;
    let relax = guarantee.relaxation(eps);
    let needs = [
        (
            relax.sharing_incentive,
            fairness::si_relaxation(inst, g),
            "sharing incentive",
        ),
        (
            relax.envy_freeness,
            fairness::ef_relaxation(inst, g),
            "envy-freeness",
        ),
    ];
    for (imposed, needed, name) in needs {
        if let Some(allowed) = imposed.filter(|&allowed| needed > allowed + TOLERANCE) {
            return Err(format!(
                "its allocation meets {name} only relaxed by {needed}, not by {allowed}"
            ));
        }
    }
    Ok(())
}
