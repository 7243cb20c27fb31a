//! gavel-water-filling: Gavel's water filling (lexicographic max-min) of normalised throughput,
//! shared by gavel-hierarchical. Over the base constraints and LAS.

use super::base::AllocationLp;
use super::declared::{Family, InRounds, Reads, Rounds};
use super::gavel::proportional_throughput;
use super::gavel_las::caps_rarely_bind;
use super::{Guarantees, Policy, PolicyError, PolicyInfo, Promise, Solution};
use crate::lp::{Lp, LpSolution, Var};
use crate::{Allocation, Instance};

/// Gavel's water filling: lexicographic max-min of LAS's normalised throughputs, each tenant's
/// in proportion to its weight. It is [`water_filling`] with every tenant's priority weight its
/// own weight, whichever tenants are still rising. The objective reported is the lowest level
/// of `u_i / w_i` (LAS's objective, which the first round reaches).
pub struct GavelWaterFilling;

/// The name and the one-line summary the CLI and the playground show.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "gavel-water-filling",
    summary: "Gavel: water filling (lexicographic max-min) of normalised throughput",
    guarantees: Guarantees {
        si: Promise::WithoutCaps,
        ef: Promise::No,
        pe: Promise::No,
        sp: Promise::No,
    },
    family: Family::Gavel,
    reads: Reads::BASE,
    rounds: InRounds::Solved(Rounds::CLASSES),
};

impl Policy for GavelWaterFilling {
    fn info(&self) -> PolicyInfo {
        INFO
    }

    fn allocate(&self, inst: &Instance) -> Result<Solution, PolicyError> {
        let filled = water_filling(inst, &|frozen| {
            (0..inst.tenants())
                .map(|i| if frozen[i] { 0.0 } else { inst.weight[i] })
                .collect()
        })?;
        let objective = filled
            .levels
            .iter()
            .zip(&inst.weight)
            .map(|(u, w)| u / w)
            .fold(f64::INFINITY, f64::min);
        Ok(Solution {
            objective,
            allocation: filled.allocation,
            market: None,
            shared: Vec::new(),
            trades: Vec::new(),
        })
    }
}

/// Relative: a tenant that cannot rise past its level by more than this is frozen there.
const LEVEL_TOLERANCE: f64 = 1e-6;
/// Levels are held a hair below the level reached (relative), so the next LP stays feasible
/// despite the solver's tolerance on the rows that reached it.
const HAIR: f64 = 1e-7;

/// What [`water_filling`] ends with.
pub(super) struct Filled {
    pub allocation: Allocation,
    /// U_i: the level of u_i(g) each tenant reached.
    pub levels: Vec<f64>,
}

/// Gavel's water filling with priority weights recomputed each round (its
/// `_run_get_allocation_iterations`, `max_min_fairness_water_filling.py`):
///
/// ```text
/// U_i = 0 for every tenant
/// repeat:
///   p = priority(frozen)                         p_i = 0 for frozen and waiting tenants
///   c* = max c  s.t. base, u_i(g) >= U_i + c p_i  for every i
///   U_i += c* p_i
///   freeze each i with p_i > 0 that cannot exceed U_i while every k keeps u_k(g) >= U_k
/// until a round freezes nobody, or everybody is frozen
/// ```
///
/// with u_i(g) = sum_j T_ij g_ij / prop_i, LAS's normalised throughput times the tenant's size
/// (Gavel's `scale_factor` times its normalised effective throughput). A tenant is frozen when
/// maximising its u_i alone, every tenant kept at its level, cannot pass its level; Gavel's MILP
/// finds the largest set of tenants that can rise together, which is the same set (if each can
/// rise alone, their average rises together: the feasible set is convex). [`stuck`] finds that
/// set in a few LPs rather than one per rising tenant. If round-off leaves nobody frozen in a round, the
/// rising tenants at their level in that round's solution are frozen, so every round makes
/// progress. The allocation is the last round's solution, as Gavel's.
pub(super) fn water_filling(
    inst: &Instance,
    priority: &dyn Fn(&[bool]) -> Vec<f64>,
) -> Result<Filled, PolicyError> {
    let unit: Vec<Vec<f64>> = (0..inst.tenants())
        .map(|i| {
            let prop = proportional_throughput(inst, i);
            inst.throughput[i].iter().map(|t| t / prop).collect()
        })
        .collect();
    fill(inst, &unit, priority)
}

/// Water filling of `inst`'s tenants on its GPUs (`inst.count`, which may be fractional: a
/// tenant's bundle), each tenant's level `sum_j unit[i][j] g_ij` in units the caller gives, and
/// rising in proportion to its weight ([`GavelWaterFilling`]'s rounds, the same LPs and
/// tolerances). The simulator's rule inside a tenant uses it: the tenant's job classes on the
/// tenant's bundle, each class's unit rates normalised by its equal-share throughput over the
/// whole cluster, which the bundle alone cannot tell. Returns each tenant's GPUs and level.
pub fn water_filling_with_units(
    inst: &Instance,
    unit: &[Vec<f64>],
) -> Result<(Allocation, Vec<f64>), PolicyError> {
    let filled = fill(inst, unit, &|frozen| {
        (0..inst.tenants())
            .map(|i| if frozen[i] { 0.0 } else { inst.weight[i] })
            .collect()
    })?;
    Ok((filled.allocation, filled.levels))
}

fn fill(
    inst: &Instance,
    unit: &[Vec<f64>],
    priority: &dyn Fn(&[bool]) -> Vec<f64>,
) -> Result<Filled, PolicyError> {
    let n = inst.tenants();
    let unit = unit.to_vec();
    let mut levels = vec![0.0; n];
    let mut frozen = vec![false; n];
    loop {
        crate::deadline::check()?;
        let step = priority(&frozen);
        let rising: Vec<usize> = (0..n).filter(|&i| !frozen[i] && step[i] > 0.0).collect();
        let (m, sol, c) = raise(inst, &unit, &levels, &step)?;
        if rising.is_empty() {
            return Ok(Filled {
                allocation: m.read(&sol),
                levels,
            });
        }
        let c_star = sol.value(c).max(0.0);
        for &i in &rising {
            levels[i] += c_star * step[i];
        }
        let mut frozen_now = stuck(inst, &unit, &levels, &rising)?;
        if frozen_now.is_empty() {
            let g = m.read(&sol);
            frozen_now = rising
                .iter()
                .copied()
                .filter(|&i| rate_of(&unit[i], &g.gpus[i]) <= top(levels[i]))
                .collect();
        }
        for &i in &frozen_now {
            frozen[i] = true;
        }
        if frozen_now.is_empty() || frozen.iter().all(|&f| f) {
            return Ok(Filled {
                allocation: m.read(&sol),
                levels,
            });
        }
    }
}

/// The most a level counts as not exceeded.
fn top(level: f64) -> f64 {
    level * (1.0 + LEVEL_TOLERANCE) + 1e-12
}

fn rate_of(rates: &[f64], bundle: &[f64]) -> f64 {
    rates.iter().zip(bundle).map(|(r, g)| r * g).sum()
}

/// One round's LP: maximise c subject to the base constraints and
/// `u_i(g) >= U_i + c p_i` for every tenant (levels held a hair below). Each row is divided by
/// its largest rate, so rows of tenants with very different speeds have coefficients of one
/// size; cap rows are added lazily where few bind.
fn raise(
    inst: &Instance,
    unit: &[Vec<f64>],
    levels: &[f64],
    step: &[f64],
) -> Result<(AllocationLp, LpSolution, Var), PolicyError> {
    let mut m = base_model(inst);
    // c's expected size: the least any rising tenant's equal split would raise it by.
    let hint = (0..inst.tenants())
        .filter(|&i| step[i] > 0.0)
        .map(|i| rate_of(&unit[i], &inst.equal_split(i)) / step[i])
        .fold(f64::INFINITY, f64::min);
    let c = m.lp.var_scaled(
        1.0,
        if hint.is_finite() && hint > 0.0 {
            hint
        } else {
            1.0
        },
    );
    add_level_rows(&mut m, unit, levels, |i| {
        (step[i] > 0.0).then_some((c, step[i]))
    });
    let sol = m.solve_lazy_caps(inst)?;
    Ok((m, sol, c))
}

/// The base constraints of [`raise`] and [`stuck`], with the cap rows left to be added lazily
/// where few caps bind ([`caps_rarely_bind`]).
fn base_model(inst: &Instance) -> AllocationLp {
    if caps_rarely_bind(inst) {
        AllocationLp::with_capacity_rows(Lp::maximize(), inst, |_, _| 0.0)
    } else {
        AllocationLp::new(Lp::maximize(), inst, |_, _| 0.0)
    }
}

/// `u_i(g) >= U_i + a_i v_i` for every tenant, where `rise(i)` gives (v_i, a_i) for a tenant that
/// may rise (none: it holds its level), levels held a hair below. Each row is divided by its
/// largest rate, so rows of tenants with very different speeds have coefficients of one size.
fn add_level_rows(
    m: &mut AllocationLp,
    unit: &[Vec<f64>],
    levels: &[f64],
    rise: impl Fn(usize) -> Option<(Var, f64)>,
) {
    for (i, level) in levels.iter().enumerate() {
        let largest = unit[i].iter().fold(0.0_f64, |a, &r| a.max(r.abs()));
        let scale = if largest > 0.0 { 1.0 / largest } else { 1.0 };
        let scaled: Vec<f64> = unit[i].iter().map(|r| r * scale).collect();
        let mut row = m.weighted(i, &scaled);
        if let Some((v, a)) = rise(i) {
            row.push((v, -a * scale));
        }
        m.lp.ge(row, level * (1.0 - HAIR) * scale);
    }
}

/// How far, relative to its level, [`stuck`] lets each undecided tenant rise in one LP.
const RISE: f64 = 1e-2;

/// The `rising` tenants that cannot pass their level (by [`top`]) while every tenant keeps its
/// level, by the definition's answer (one LP per tenant: [`best_alone`]) but in a few LPs:
///
/// ```text
/// maximise   sum_{i in U} d_i
/// subject to base, u_k(g) >= U_k                 for every tenant k
///            u_i(g) >= U_i + eps_i d_i, 0 <= d_i <= 1   for i in U, eps_i = RISE U_i + 1e-9
/// ```
///
/// over the undecided tenants U, at first all rising ones. A tenant whose u_i in the solution
/// passes its level can rise and leaves U: its d_i is fixed at 0 and the LP re-solved from its
/// basis, or, when more rose than are left undecided, the LP is built again over the smaller U
/// (one cold solve instead of a re-solve per fix: with jobs, where ~150 rise and one freezes
/// per round, 4x cheaper; BENCHMARKS.md). When nobody in U passes it:
/// - if the optimum is at most min_U tol_i / eps_i (tol_i = top(U_i) - U_i), everyone in U is
///   frozen: a tenant that could rise alone by e_i gives a solution of value
///   min(e_i, eps_i) / eps_i, so e_i <= tol_i;
/// - otherwise (several tenants each rising a little) each is tested alone.
fn stuck(
    inst: &Instance,
    unit: &[Vec<f64>],
    levels: &[f64],
    rising: &[usize],
) -> Result<Vec<usize>, PolicyError> {
    let eps = |i: usize| RISE * levels[i] + 1e-9;
    let mut undecided = rising.to_vec();
    let (mut m, mut d, mut caps_added, mut sol) = rise_together(inst, unit, levels, rising, &eps)?;
    while !undecided.is_empty() {
        crate::deadline::check()?;
        let g = m.read(&sol);
        let (risen, rest): (Vec<usize>, Vec<usize>) = undecided
            .iter()
            .partition(|&&i| rate_of(&unit[i], &g.gpus[i]) > top(levels[i]));
        undecided = rest;
        if risen.is_empty() {
            let bound = undecided
                .iter()
                .map(|&i| (top(levels[i]) - levels[i]) / eps(i))
                .fold(f64::INFINITY, f64::min);
            if sol.objective() <= bound {
                return Ok(undecided);
            }
            let mut frozen = Vec::new();
            for i in undecided {
                if best_alone(inst, unit, levels, i)? <= top(levels[i]) {
                    frozen.push(i);
                }
            }
            return Ok(frozen);
        }
        if undecided.is_empty() {
            break;
        }
        if risen.len() > undecided.len() {
            (m, d, caps_added, sol) = rise_together(inst, unit, levels, &undecided, &eps)?;
            continue;
        }
        for i in risen {
            if let Some(di) = d[i] {
                sol = sol.fix(di, 0.0)?;
            }
        }
        sol = m.add_broken_caps(inst, sol, &mut caps_added)?;
    }
    Ok(undecided)
}

/// [`stuck`]'s LP over the undecided tenants, solved: the model, each tenant's d_i, which caps
/// are in the model, and the solution.
#[allow(clippy::type_complexity)]
fn rise_together(
    inst: &Instance,
    unit: &[Vec<f64>],
    levels: &[f64],
    undecided: &[usize],
    eps: &dyn Fn(usize) -> f64,
) -> Result<(AllocationLp, Vec<Option<Var>>, Vec<bool>, LpSolution), PolicyError> {
    let lazy_caps = caps_rarely_bind(inst);
    let mut m = base_model(inst);
    let mut d = vec![None; inst.tenants()];
    for &i in undecided {
        d[i] = Some(m.lp.bounded_var(1.0, 0.0, 1.0));
    }
    add_level_rows(&mut m, unit, levels, |k| d[k].map(|dk| (dk, eps(k))));
    let mut caps_added = vec![!lazy_caps; inst.tenants()];
    let sol = m.add_broken_caps(inst, m.lp.solve()?, &mut caps_added)?;
    Ok((m, d, caps_added, sol))
}

/// max u_i(g) keeping every other tenant at its level.
fn best_alone(
    inst: &Instance,
    unit: &[Vec<f64>],
    levels: &[f64],
    tenant: usize,
) -> Result<f64, PolicyError> {
    let mut m = AllocationLp::new(Lp::maximize(), inst, |i, j| {
        if i == tenant {
            unit[i][j]
        } else {
            0.0
        }
    });
    for (k, level) in levels.iter().enumerate() {
        if k != tenant {
            let row = m.weighted(k, &unit[k]);
            m.lp.ge(row, level * (1.0 - HAIR));
        }
    }
    Ok(m.lp.solve()?.objective())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::random_scenario;

    /// [`stuck`] against the freezing test's definition, written out here: tenant i is frozen
    /// when maximising u_i(g), every other tenant kept at its level, cannot pass top(U_i). Rounds
    /// of water filling on random scenarios (with and without caps), each round's levels from
    /// [`raise`] and the frozen set from the definition.
    #[test]
    fn stuck_is_the_set_that_cannot_rise_alone() {
        let (mut frozen_seen, mut risen_seen) = (0, 0);
        for case in 0..24u64 {
            let jobs = case % 2 == 1;
            let inst =
                random_scenario(3 + (case as usize % 7), 2 + (case as usize % 3), case, jobs)
                    .instance()
                    .unwrap();
            let n = inst.tenants();
            let unit: Vec<Vec<f64>> = (0..n)
                .map(|i| {
                    let prop = proportional_throughput(&inst, i);
                    inst.throughput[i].iter().map(|t| t / prop).collect()
                })
                .collect();
            let rate =
                |i: usize, g: &[f64]| -> f64 { unit[i].iter().zip(g).map(|(r, x)| r * x).sum() };
            let mut levels = vec![0.0; n];
            let mut frozen = vec![false; n];
            for _round in 0..6 {
                let step: Vec<f64> = (0..n).map(|i| if frozen[i] { 0.0 } else { 1.0 }).collect();
                let rising: Vec<usize> = (0..n).filter(|&i| !frozen[i]).collect();
                if rising.is_empty() {
                    break;
                }
                let (_, sol, c) = raise(&inst, &unit, &levels, &step).unwrap();
                for &i in &rising {
                    levels[i] += sol.value(c).max(0.0);
                }
                let expected: Vec<usize> = rising
                    .iter()
                    .copied()
                    .filter(|&i| {
                        let mut m = AllocationLp::new(Lp::maximize(), &inst, |t, j| {
                            if t == i {
                                unit[t][j]
                            } else {
                                0.0
                            }
                        });
                        for k in (0..n).filter(|&k| k != i) {
                            let row = m.g[k]
                                .iter()
                                .zip(&unit[k])
                                .map(|(&v, &r)| (v, r))
                                .collect::<Vec<_>>();
                            m.lp.ge(row, levels[k] * (1.0 - HAIR));
                        }
                        let best = m.lp.solve().unwrap();
                        rate(i, &m.read(&best).gpus[i])
                            <= levels[i] * (1.0 + LEVEL_TOLERANCE) + 1e-12
                    })
                    .collect();
                let got = stuck(&inst, &unit, &levels, &rising).unwrap();
                assert_eq!(got, expected, "case {case}, levels {levels:?}");
                frozen_seen += expected.len();
                risen_seen += rising.len() - expected.len();
                if expected.is_empty() {
                    break;
                }
                for i in expected {
                    frozen[i] = true;
                }
            }
        }
        assert!(
            frozen_seen > 20 && risen_seen > 20,
            "{frozen_seen} frozen, {risen_seen} risen"
        );
    }
}
