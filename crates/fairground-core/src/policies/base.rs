//! The constraints every LP policy shares (Gavel's base constraints, at tenant level):
//!
//! ```text
//! g_ij >= 0                       GPUs of type j held by tenant i, time-averaged
//! sum_i g_ij <= n_j               capacity of type j
//! sum_j g_ij <= d_i               tenant i's cap, when it has one
//! ```
//!
//! A Gavel job of scale factor s_i running a fraction x_ij of the time on type j holds
//! g_ij = s_i x_ij GPUs, so Gavel's `sum_j x_ij <= 1` and `sum_i s_i x_ij <= n_j` are exactly the
//! cap and capacity rows above with d_i = s_i.

use crate::lp::{Lp, LpSolution, Terms, Var};
use crate::{Allocation, Instance};

/// An LP over the allocation variables g_ij with the shared constraints already added.
pub struct AllocationLp {
    pub lp: Lp,
    /// g[i][j]
    pub g: Vec<Vec<Var>>,
}

impl AllocationLp {
    /// Variables g_ij with objective coefficients `objective(i, j)`, capacity and cap rows.
    pub fn new(mut lp: Lp, inst: &Instance, objective: impl Fn(usize, usize) -> f64) -> Self {
        let g: Vec<Vec<Var>> = (0..inst.tenants())
            .map(|i| (0..inst.types()).map(|j| lp.var(objective(i, j))).collect())
            .collect();
        for j in 0..inst.types() {
            lp.le(g.iter().map(|row| (row[j], 1.0)), inst.count[j]);
        }
        for (i, row) in g.iter().enumerate() {
            if let Some(cap) = inst.cap[i] {
                lp.le(row.iter().map(|&v| (v, 1.0)), cap);
            }
        }
        AllocationLp { lp, g }
    }

    /// u_who(g_whose) = sum_j s_who,j g_whose,j: how `who` values `whose`'s bundle, scaled.
    pub fn utility(&self, inst: &Instance, who: usize, whose: usize, scale: f64) -> Terms {
        self.g[whose]
            .iter()
            .zip(&inst.speedup[who])
            .map(|(&v, &s)| (v, s * scale))
            .collect()
    }

    /// sum_j coeff_j g_ij for arbitrary per-type coefficients.
    pub fn weighted(&self, tenant: usize, coeff: &[f64]) -> Terms {
        self.g[tenant]
            .iter()
            .zip(coeff)
            .map(|(&v, &c)| (v, c))
            .collect()
    }

    /// Reads g out of a solution; round-off below zero is clamped to zero.
    pub fn read(&self, sol: &LpSolution) -> Allocation {
        Allocation {
            gpus: self
                .g
                .iter()
                .map(|row| row.iter().map(|&v| sol.value(v).max(0.0)).collect())
                .collect(),
        }
    }
}

/// The number of GPUs a tenant can hold at once: its cap, or the whole cluster.
pub fn scale_factor(inst: &Instance, tenant: usize) -> f64 {
    let total: f64 = inst.count.iter().sum();
    inst.cap[tenant].map_or(total, |cap| cap.min(total))
}
