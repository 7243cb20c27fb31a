//! An allocation: g_ij, the time-averaged number of type-j GPUs tenant i holds.

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
}
