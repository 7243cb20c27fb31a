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

use crate::fairness::{LP_MARGIN, TOLERANCE};
use crate::lp::{Lp, LpError, LpSolution, Terms, Var};
use crate::{Allocation, Instance};
use std::cell::RefCell;

/// How far past its cap a lazily capped party may sit before its cap row is added, relative to
/// the cap (never absolute: a cap of 1e-9 GPUs must not be exceeded by 1e-7).
const CAP_TOLERANCE: f64 = TOLERANCE * LP_MARGIN;

/// An LP over the allocation variables g_ij with the shared constraints already added.
pub struct AllocationLp {
    pub lp: Lp,
    /// g[i][j]
    pub g: Vec<Vec<Var>>,
}

impl AllocationLp {
    /// Variables g_ij with objective coefficients `objective(i, j)`, capacity and cap rows.
    pub fn new(lp: Lp, inst: &Instance, objective: impl Fn(usize, usize) -> f64) -> Self {
        let size = default_sizes(inst);
        AllocationLp::with_sizes(lp, inst, objective, |i, j| size[i][j])
    }

    /// As [`AllocationLp::new`], with g_ij measured in `size(i, j)` (what the solver's absolute
    /// tolerance is relative to) instead of the equal split.
    pub fn with_sizes(
        lp: Lp,
        inst: &Instance,
        objective: impl Fn(usize, usize) -> f64,
        size: impl Fn(usize, usize) -> f64,
    ) -> Self {
        let mut m = AllocationLp::build(lp, inst, objective, size);
        for (i, row) in m.g.iter().enumerate() {
            if let Some(cap) = inst.cap[i] {
                m.lp.le(row.iter().map(|&v| (v, 1.0)), cap);
            }
        }
        m
    }

    /// Variables and capacity rows only: the cap rows are left to [`AllocationLp::solve_lazy_caps`].
    ///
    /// Each g_ij is measured in tenant i's (capped) equal split of type j, so the solver's
    /// absolute tolerance is relative to what the tenant is entitled to, and the two sides of
    /// an envy-freeness row (per unit of weight) have coefficients of one size.
    pub fn with_capacity_rows(
        lp: Lp,
        inst: &Instance,
        objective: impl Fn(usize, usize) -> f64,
    ) -> Self {
        let size = default_sizes(inst);
        AllocationLp::build(lp, inst, objective, |i, j| size[i][j])
    }

    fn build(
        mut lp: Lp,
        inst: &Instance,
        objective: impl Fn(usize, usize) -> f64,
        size: impl Fn(usize, usize) -> f64,
    ) -> Self {
        let g: Vec<Vec<Var>> = (0..inst.tenants())
            .map(|i| {
                (0..inst.types())
                    .map(|j| {
                        if inst.count[j] > 0.0 {
                            lp.var_scaled(objective(i, j), size(i, j))
                        } else {
                            // A type with no GPUs: exactly zero, not zero to a tolerance.
                            lp.bounded_var(objective(i, j), 0.0, 0.0)
                        }
                    })
                    .collect()
            })
            .collect();
        for j in 0..inst.types() {
            lp.le(g.iter().map(|row| (row[j], 1.0)), inst.count[j]);
        }
        AllocationLp { lp, g }
    }

    /// Solves a model built by [`AllocationLp::with_capacity_rows`], adding cap rows only where
    /// the solution breaks them: the most exceeded one, then a warm re-solve, until none is.
    ///
    /// The optimum is the full model's (a solution that meets every cap is optimal for the
    /// full model, whose feasible set is smaller). It pays when caps rarely bind, as in a busy
    /// cluster where each of many parties gets less than it could use: at 70 parties on 36 GPUs
    /// this halves the rows and the solve time.
    pub fn solve_lazy_caps(&self, inst: &Instance) -> Result<LpSolution, LpError> {
        let mut added = vec![false; self.g.len()];
        self.add_broken_caps(inst, self.lp.solve()?, &mut added)
    }

    /// The lazy cap rows of [`AllocationLp::solve_lazy_caps`] added to `sol`, a solution of
    /// this model after any warm edits; `added` marks the caps already in it.
    pub fn add_broken_caps(
        &self,
        inst: &Instance,
        mut sol: LpSolution,
        added: &mut [bool],
    ) -> Result<LpSolution, LpError> {
        loop {
            let worst = self
                .g
                .iter()
                .enumerate()
                .filter_map(|(i, row)| {
                    let cap = inst.cap[i]?;
                    let held: f64 = row.iter().map(|&v| sol.value(v)).sum();
                    let excess = held - cap;
                    (excess > CAP_TOLERANCE * cap).then_some((excess / cap, i))
                })
                .max_by(|a, b| a.0.total_cmp(&b.0));
            // A cap already in the model that still shows as exceeded is round-off: done.
            let Some((_, i)) = worst.filter(|&(_, i)| !added[i]) else {
                return Ok(sol);
            };
            added[i] = true;
            let cap = inst.cap[i].unwrap_or(f64::INFINITY);
            sol = sol.add_ge(self.g[i].iter().map(|&v| (v, -1.0)), -cap)?;
        }
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

thread_local! {
    /// An earlier answer whose sizes the next models on this thread measure g in (see
    /// [`with_sizes_from`]).
    static SIZE_HINT: RefCell<Option<Allocation>> = const { RefCell::new(None) };
}

/// What g_ij is measured in: tenant i's (capped) equal split of type j, or, inside
/// [`with_sizes_from`], the earlier answer's g_ij (at least a millionth of the split).
fn default_sizes(inst: &Instance) -> Vec<Vec<f64>> {
    let share: Vec<Vec<f64>> = (0..inst.tenants()).map(|i| inst.equal_split(i)).collect();
    SIZE_HINT.with(|hint| match hint.borrow().as_ref() {
        Some(a) if a.gpus.len() == share.len() => share
            .iter()
            .zip(&a.gpus)
            .map(|(e, g)| e.iter().zip(g).map(|(e, g)| g.max(1e-6 * e)).collect())
            .collect(),
        _ => share,
    })
}

/// Runs `f` with every allocation LP built on this thread measuring g_ij in `answer`'s g_ij: a
/// second solve after an answer that failed its check because a tenant holds far less of a type
/// than its equal split, where the solver's absolute tolerance (relative to the split) is coarse
/// against what it holds.
pub(crate) fn with_sizes_from<T>(answer: &Allocation, f: impl FnOnce() -> T) -> T {
    SIZE_HINT.with(|hint| *hint.borrow_mut() = Some(answer.clone()));
    let out = f();
    SIZE_HINT.with(|hint| *hint.borrow_mut() = None);
    out
}
