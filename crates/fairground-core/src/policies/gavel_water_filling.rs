use super::base::AllocationLp;
use super::gavel_las::{las_rates, max_min};
use super::{Policy, PolicyError, PolicyInfo, Solution};
use crate::lp::Lp;
use crate::Instance;

/// Gavel's water filling: lexicographic max-min of LAS's normalised throughputs.
///
/// ```text
/// repeat until every tenant is frozen:
///   z* = max z  s.t. base, r_i(g) >= level_i (frozen i), z <= r_i(g) (others)
///   freeze each unfrozen i that cannot exceed z* while every other tenant keeps its level / z*
/// ```
///
/// r_i(g) = sum_j T_ij g_ij / (w_i prop_i). The bottleneck test is one LP per unfrozen tenant
/// (maximise r_i); a tenant whose maximum is within a relative 1e-6 of z* is frozen at z*. If
/// round-off leaves no tenant frozen in a round, those at z* in the current solution are frozen,
/// so every round makes progress. The objective reported is the lowest level (as LAS's).
pub struct GavelWaterFilling;

const LEVEL_TOLERANCE: f64 = 1e-6;
/// Frozen levels are held a hair below the level reached (relative), so the next LP stays
/// feasible despite the solver's tolerance on the rows that reached it.
const HAIR: f64 = 1e-7;

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
        let rates = las_rates(inst);
        let n = inst.tenants();
        let mut levels: Vec<Option<f64>> = vec![None; n];
        let mut lowest = f64::INFINITY;
        loop {
            let (m, sol, z) = max_min(inst, &rates, &levels)?;
            let z_star = sol.value(z);
            lowest = lowest.min(z_star);
            let unfrozen: Vec<usize> = (0..n).filter(|&i| levels[i].is_none()).collect();
            let mut frozen_now = Vec::new();
            for &i in &unfrozen {
                if best_alone(inst, &rates, &levels, z_star, i)?
                    <= z_star * (1.0 + LEVEL_TOLERANCE) + 1e-12
                {
                    frozen_now.push(i);
                }
            }
            if frozen_now.is_empty() {
                let g = m.read(&sol);
                frozen_now = unfrozen
                    .iter()
                    .copied()
                    .filter(|&i| {
                        rate_of(&rates[i], &g.gpus[i]) <= z_star * (1.0 + LEVEL_TOLERANCE) + 1e-12
                    })
                    .collect();
            }
            if frozen_now.is_empty() || frozen_now.len() == unfrozen.len() {
                // The last round: everyone left sits at z*; this solution keeps every level.
                let allocation = m.read(&sol);
                return Ok(Solution {
                    objective: lowest,
                    allocation,
                    market: None,
                });
            }
            for i in frozen_now {
                levels[i] = Some(z_star * (1.0 - HAIR));
            }
        }
    }
}

fn rate_of(rates: &[f64], bundle: &[f64]) -> f64 {
    rates.iter().zip(bundle).map(|(r, g)| r * g).sum()
}

/// max r_i(g) keeping frozen tenants at their levels and other unfrozen ones at z*.
fn best_alone(
    inst: &Instance,
    rates: &[Vec<f64>],
    levels: &[Option<f64>],
    z_star: f64,
    tenant: usize,
) -> Result<f64, PolicyError> {
    let mut m = AllocationLp::new(Lp::maximize(), inst, |i, j| {
        if i == tenant {
            rates[i][j]
        } else {
            0.0
        }
    });
    for (k, level) in levels.iter().enumerate() {
        if k != tenant {
            let floor = level.unwrap_or(z_star * (1.0 - HAIR));
            let row = m.weighted(k, &rates[k]);
            m.lp.ge(row, floor);
        }
    }
    Ok(m.lp.solve()?.objective())
}
