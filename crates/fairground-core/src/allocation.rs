//! An allocation: g_ij, the time-averaged number of type-j GPUs tenant i holds.

use crate::tolerance::TOLERANCE;
use crate::Instance;
use serde::{Deserialize, Serialize};

/// g[i][j] >= 0: GPUs of type j tenant i holds on average over time (fractional).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Allocation {
    pub gpus: Vec<Vec<f64>>,
}

impl Allocation {
    pub fn zeros(tenants: usize, types: usize) -> Self {
        Allocation {
            gpus: vec![vec![0.0; types]; tenants],
        }
    }

    /// u_i(g_i) for every tenant.
    pub fn utilities(&self, inst: &Instance) -> Vec<f64> {
        self.gpus
            .iter()
            .enumerate()
            .map(|(i, bundle)| inst.utility(i, bundle))
            .collect()
    }

    /// Efficiency: sum_i u_i(g_i).
    pub fn efficiency(&self, inst: &Instance) -> f64 {
        self.utilities(inst).iter().sum()
    }

    /// GPUs of each type handed out in all: sum_i g_ij.
    pub fn used(&self, types: usize) -> Vec<f64> {
        (0..types)
            .map(|j| self.gpus.iter().map(|bundle| bundle[j]).sum())
            .collect()
    }

    /// Checks the base constraints every allocation must meet, to [`TOLERANCE`] relative to the
    /// quantity bounded: the shape of the scenario, finite g_ij >= 0, capacity
    /// sum_i g_ij <= n_j and caps sum_j g_ij <= d_i (round-off below 1e-12 of the cluster's GPUs
    /// ignored). The first failure, said in the scenario's names, is the error.
    pub fn check(&self, inst: &Instance) -> Result<(), String> {
        if self.gpus.len() != inst.tenants() || self.gpus.iter().any(|r| r.len() != inst.types()) {
            return Err(format!(
                "the allocation is not {} tenants x {} types",
                inst.tenants(),
                inst.types()
            ));
        }
        for (i, row) in self.gpus.iter().enumerate() {
            for (j, &g) in row.iter().enumerate() {
                if !(g.is_finite() && g >= -TOLERANCE * inst.count[j]) {
                    return Err(format!(
                        "tenant '{}' holds {g} GPUs of type '{}'",
                        inst.tenant_names[i], inst.type_names[j]
                    ));
                }
            }
        }
        // Round-off below this is no allocation (a type with no GPUs may show 1e-33 of one).
        let dust = 1e-12 * inst.count.iter().sum::<f64>();
        for (j, used) in self.used(inst.types()).iter().enumerate() {
            let n = inst.count[j];
            if *used > n * (1.0 + TOLERANCE) + dust {
                return Err(format!(
                    "{used} GPUs of type '{}' are handed out, but it has {n}",
                    inst.type_names[j]
                ));
            }
        }
        for (i, row) in self.gpus.iter().enumerate() {
            let held: f64 = row.iter().sum();
            if let Some(cap) = inst.cap[i] {
                if held > cap * (1.0 + TOLERANCE) {
                    return Err(format!(
                        "tenant '{}' holds {held} GPUs, over its cap of {cap} (tenants[{i}].max_gpus)",
                        inst.tenant_names[i]
                    ));
                }
            }
        }
        Ok(())
    }
}
