use super::base::AllocationLp;
use super::gavel::proportional_throughput;
use super::{Policy, PolicyError, Solution};
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

impl Policy for GavelLas {
    fn name(&self) -> &'static str {
        "gavel-las"
    }

    fn summary(&self) -> &'static str {
        "Gavel: heterogeneity-aware max-min fairness of normalised throughput"
    }

    fn solve(&self, inst: &Instance) -> Result<Solution, PolicyError> {
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
    })
}

/// maximise z subject to the base constraints, sum_j rates_ij g_ij >= level_i for tenants with a
/// fixed level, and z <= sum_j rates_ij g_ij for the others.
pub(super) fn max_min(
    inst: &Instance,
    rates: &[Vec<f64>],
    levels: &[Option<f64>],
) -> Result<(AllocationLp, LpSolution, Var), PolicyError> {
    let mut m = AllocationLp::new(Lp::maximize(), inst, |_, _| 0.0);
    let z = m.lp.var(1.0);
    for (i, level) in levels.iter().enumerate() {
        let rate = m.weighted(i, &rates[i]);
        match level {
            Some(level) => m.lp.ge(rate, *level),
            None => {
                let mut row = rate;
                row.push((z, -1.0));
                m.lp.ge(row, 0.0);
            }
        }
    }
    let sol = m.lp.solve()?;
    Ok((m, sol, z))
}
