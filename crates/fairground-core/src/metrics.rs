//! Metrics of any allocation, whatever produced it.

use crate::fairness;
use crate::{Allocation, Instance, Solution};
use serde::{Deserialize, Serialize};

/// envy[i][k] = u_i(g_k)/w_k - u_i(g_i)/w_i: how much more i values k's bundle than its own,
/// per unit of weight (> 0 means i envies k). `required[i][k]` marks the pairs envy-freeness
/// constrains (every pair of uncapped tenants; see [`fairness::must_not_envy`] for caps).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnvyMatrix {
    pub envy: Vec<Vec<f64>>,
    pub required: Vec<Vec<bool>>,
    /// `envies[i][k]`: i envies k beyond the stated tolerance (relative; see
    /// [`fairness::envies`]), whether or not EF requires it not to.
    pub envies: Vec<Vec<bool>>,
}

impl EnvyMatrix {
    pub fn of(inst: &Instance, alloc: &Allocation) -> Self {
        let n = inst.tenants();
        let envy = (0..n)
            .map(|i| {
                (0..n)
                    .map(|k| {
                        if k == i {
                            0.0
                        } else {
                            fairness::envy(inst, alloc, i, k)
                        }
                    })
                    .collect()
            })
            .collect();
        let required = (0..n)
            .map(|i| {
                (0..n)
                    .map(|k| fairness::must_not_envy(inst, i, k))
                    .collect()
            })
            .collect();
        let envies = (0..n)
            .map(|i| {
                (0..n)
                    .map(|k| fairness::envies(inst, alloc, i, k))
                    .collect()
            })
            .collect();
        EnvyMatrix {
            envy,
            required,
            envies,
        }
    }

    /// The largest envy over the constrained pairs, with (envious, envied); None with one tenant.
    pub fn worst(&self) -> Option<(usize, usize, f64)> {
        let mut worst: Option<(usize, usize, f64)> = None;
        for (i, row) in self.envy.iter().enumerate() {
            for (k, &e) in row.iter().enumerate() {
                if self.required[i][k] && worst.is_none_or(|(_, _, w)| e > w) {
                    worst = Some((i, k, e));
                }
            }
        }
        worst
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    /// u_i(g_i), reference-GPU equivalents.
    pub utility: Vec<f64>,
    /// u_i(e_i): the sharing-incentive target (utility of the weighted equal split).
    pub si_target: Vec<f64>,
    /// u_i(g_i) / u_i(e_i).
    pub si_ratio: Vec<f64>,
    pub envy: EnvyMatrix,
    /// sum_i u_i(g_i).
    pub efficiency: f64,
    /// Jain's index over the SI ratios: 1 when every tenant gets the same multiple of its share.
    pub jain: f64,
    /// sum_i g_ij / n_j per type (0 for a type with no GPUs).
    pub utilisation: Vec<f64>,
}

impl Metrics {
    /// The metrics of a policy's answer: utilities and utilisation count the GPUs pairs share
    /// ([`Solution::shared`]); the envy matrix compares the GPUs held alone.
    pub fn of_solution(inst: &Instance, sol: &Solution) -> Self {
        let mut metrics = Metrics::of(inst, &sol.allocation);
        if sol.shared.is_empty() {
            return metrics;
        }
        metrics.utility = sol.utilities(inst);
        metrics.si_ratio = metrics
            .utility
            .iter()
            .zip(&metrics.si_target)
            .map(|(u, t)| u / t)
            .collect();
        metrics.efficiency = metrics.utility.iter().sum();
        metrics.jain = jain_index(&metrics.si_ratio);
        for h in &sol.shared {
            for (j, (share, n)) in metrics.utilisation.iter_mut().zip(&inst.count).enumerate() {
                if *n > 0.0 {
                    *share += h[j] / n;
                }
            }
        }
        metrics
    }

    pub fn of(inst: &Instance, alloc: &Allocation) -> Self {
        let utility = alloc.utilities(inst);
        let si_target: Vec<f64> = (0..inst.tenants())
            .map(|i| fairness::si_target(inst, i))
            .collect();
        let si_ratio: Vec<f64> = utility.iter().zip(&si_target).map(|(u, t)| u / t).collect();
        let utilisation = alloc
            .used(inst.types())
            .iter()
            .zip(&inst.count)
            .map(|(used, n)| if *n > 0.0 { used / n } else { 0.0 })
            .collect();
        Metrics {
            efficiency: utility.iter().sum(),
            jain: jain_index(&si_ratio),
            envy: EnvyMatrix::of(inst, alloc),
            utility,
            si_target,
            si_ratio,
            utilisation,
        }
    }
}

/// Jain's fairness index (sum x)^2 / (n sum x^2), in [1/n, 1]; 1 for an empty or all-zero list.
pub fn jain_index(values: &[f64]) -> f64 {
    let sum: f64 = values.iter().sum();
    let squares: f64 = values.iter().map(|v| v * v).sum();
    if squares == 0.0 {
        1.0
    } else {
        sum * sum / (values.len() as f64 * squares)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_by_hand() {
        assert_eq!(jain_index(&[1.0, 1.0, 1.0]), 1.0);
        assert_eq!(jain_index(&[1.0, 0.0]), 0.5);
        assert!((jain_index(&[1.0, 2.0]) - 0.9).abs() < 1e-12); // 9 / (2 * 5)
    }
}
