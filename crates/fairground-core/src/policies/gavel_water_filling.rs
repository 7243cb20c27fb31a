use super::base::AllocationLp;
use super::gavel::proportional_throughput;
use super::gavel_las::caps_rarely_bind;
use super::{Policy, PolicyError, PolicyInfo, Solution};
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
/// (Gavel's `scale_factor` times its normalised effective throughput). The freezing test is one
/// LP per rising tenant (maximise its u_i); Gavel's MILP finds the largest set of tenants that
/// can rise together, which is the same set (if each can rise alone, their average rises
/// together: the feasible set is convex). If round-off leaves nobody frozen in a round, the
/// rising tenants at their level in that round's solution are frozen, so every round makes
/// progress. The allocation is the last round's solution, as Gavel's.
pub(super) fn water_filling(
    inst: &Instance,
    priority: &dyn Fn(&[bool]) -> Vec<f64>,
) -> Result<Filled, PolicyError> {
    let n = inst.tenants();
    let unit: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            let prop = proportional_throughput(inst, i);
            inst.throughput[i].iter().map(|t| t / prop).collect()
        })
        .collect();
    let mut levels = vec![0.0; n];
    let mut frozen = vec![false; n];
    loop {
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
        let mut frozen_now = Vec::new();
        for &i in &rising {
            if best_alone(inst, &unit, &levels, i)? <= top(levels[i]) {
                frozen_now.push(i);
            }
        }
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
    let mut m = if caps_rarely_bind(inst) {
        AllocationLp::with_capacity_rows(Lp::maximize(), inst, |_, _| 0.0)
    } else {
        AllocationLp::new(Lp::maximize(), inst, |_, _| 0.0)
    };
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
    for i in 0..inst.tenants() {
        let largest = unit[i].iter().fold(0.0_f64, |a, &r| a.max(r.abs()));
        let scale = if largest > 0.0 { 1.0 / largest } else { 1.0 };
        let scaled: Vec<f64> = unit[i].iter().map(|r| r * scale).collect();
        let mut row = m.weighted(i, &scaled);
        if step[i] > 0.0 {
            row.push((c, -step[i] * scale));
        }
        m.lp.ge(row, levels[i] * (1.0 - HAIR) * scale);
    }
    let sol = m.solve_lazy_caps(inst)?;
    Ok((m, sol, c))
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
