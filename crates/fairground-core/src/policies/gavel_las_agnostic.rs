use super::gavel_las::max_min_solution;
use super::{Policy, PolicyError, PolicyInfo, Solution};
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

/// The name and the one-line summary the CLI and the playground show.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "gavel-las-agnostic",
    summary: "Gavel: max-min fairness of GPUs held, ignoring heterogeneity",
};

impl Policy for GavelLasAgnostic {
    fn info(&self) -> PolicyInfo {
        INFO
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
