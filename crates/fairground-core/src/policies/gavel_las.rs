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
///
/// Each z row is divided by its largest rate, so rows of parties with very different speeds
/// have coefficients of one size (fewer pivots); cap rows are added lazily
/// ([`AllocationLp::solve_lazy_caps`]).
pub(super) fn max_min(
    inst: &Instance,
    rates: &[Vec<f64>],
    levels: &[Option<f64>],
) -> Result<(AllocationLp, LpSolution, Var), PolicyError> {
    let mut m = AllocationLp::with_capacity_rows(Lp::maximize(), inst, |_, _| 0.0);
    let z = m.lp.var(1.0);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::random_scenario;

    /// The same LP with every cap row present from the start, unscaled: the textbook model.
    fn full_model_optimum(inst: &Instance, rates: &[Vec<f64>]) -> f64 {
        let mut m = AllocationLp::new(Lp::maximize(), inst, |_, _| 0.0);
        let z = m.lp.var(1.0);
        for (i, r) in rates.iter().enumerate() {
            let mut row = m.weighted(i, r);
            row.push((z, -1.0));
            m.lp.ge(row, 0.0);
        }
        m.lp.solve().unwrap().value(z)
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
            let full = full_model_optimum(&inst, &rates);
            let solution = GavelLas.solve(&inst).unwrap();
            assert!(
                (solution.objective - full).abs() <= 1e-7 * full.max(1.0),
                "{tenants} jobs: lazy {}, full {full}",
                solution.objective
            );
            for (i, row) in solution.allocation.gpus.iter().enumerate() {
                let held: f64 = row.iter().sum();
                assert!(held <= inst.cap[i].unwrap() + 1e-7, "job {i} holds {held}");
            }
            if tenants <= 6 {
                // Every job could use more than it holds only if a cap binds somewhere.
                let capped = (0..tenants)
                    .filter(|&i| {
                        let held: f64 = solution.allocation.gpus[i].iter().sum();
                        held >= inst.cap[i].unwrap() - 1e-7
                    })
                    .count();
                assert!(capped > 0, "{tenants} jobs on 36 GPUs: some cap must bind");
            }
        }
    }
}
