use super::gavel_las::max_min_solution;
use super::{Policy, PolicyError, Solution};
use crate::Instance;

/// Gavel's heterogeneity-agnostic max-min fairness: LAS with every T_ij = 1 (so prop_i = 1):
///
/// ```text
/// maximise   min_i  sum_j g_ij / w_i
/// subject to base constraints
/// ```
///
/// It balances GPUs held, blind to which type is faster for whom; the objective is that minimum.
pub struct GavelLasAgnostic;

impl Policy for GavelLasAgnostic {
    fn name(&self) -> &'static str {
        "gavel-las-agnostic"
    }

    fn summary(&self) -> &'static str {
        "Gavel: max-min fairness of GPUs held, ignoring heterogeneity"
    }

    fn allocate(&self, inst: &Instance) -> Result<Solution, PolicyError> {
        let rates: Vec<Vec<f64>> = inst
            .weight
            .iter()
            .map(|w| vec![1.0 / w; inst.types()])
            .collect();
        max_min_solution(inst, &rates)
    }
}
