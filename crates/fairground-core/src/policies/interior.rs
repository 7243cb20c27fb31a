//! Gavel's simulator solves its policies' programs with ECOS, an interior-point method, and uses
//! the answer as it is. Where that answer decides what the simulator does (which optimum among
//! many, and the crumbs an interior point leaves on every variable), the simulator here solves
//! the same program the same way: with clarabel (FTF's cones, min-makespan), or, for the LPs
//! whose jobs come in twins (max-sum, space sharing), with [`crate::barrier`] over classes of
//! twins. This module is what the clarabel solves share, and the rounding all of them use.

use super::PolicyError;
use crate::{Allocation, Instance};
use clarabel::algebra::CscMatrix;
use clarabel::solver::{
    DefaultSettingsBuilder, DefaultSolver, IPSolver, SolverStatus, SupportedConeT,
};

/// A conic program `minimise c'x subject to A x + s = b, s in K`, built row by row. Variables
/// 0..n*k are g_ij (tenant i, type j) at `i * k + j`; a program adds its own after them.
pub(super) struct ConeProgram {
    rows: Vec<usize>,
    cols: Vec<usize>,
    vals: Vec<f64>,
    pub b: Vec<f64>,
    cones: Vec<SupportedConeT<f64>>,
    /// Rows already given to a cone.
    coned: usize,
    /// Each type's capacity row (its g columns, n_j), added when solving (see `minimise`).
    capacity: Vec<(Vec<usize>, f64)>,
}

impl ConeProgram {
    /// The base constraints of an allocation: g >= 0 and each cap as non-negative rows now,
    /// each type's capacity when solving ([`ConeProgram::minimise`]).
    pub fn with_base_constraints(inst: &Instance) -> Self {
        let (n, k) = (inst.tenants(), inst.types());
        let mut p = ConeProgram {
            rows: Vec::new(),
            cols: Vec::new(),
            vals: Vec::new(),
            b: Vec::new(),
            cones: Vec::new(),
            coned: 0,
            capacity: Vec::new(),
        };
        for v in 0..n * k {
            p.entry(p.b.len(), v, -1.0);
            p.b.push(0.0);
        }
        for i in 0..n {
            if let Some(cap) = inst.cap[i] {
                (0..k).for_each(|j| p.entry(p.b.len(), i * k + j, 1.0));
                p.b.push(cap);
            }
        }
        for j in 0..k {
            p.capacity
                .push(((0..n).map(|i| i * k + j).collect(), inst.count[j]));
        }
        p
    }

    /// Adds `x` at (row, column) of A.
    pub fn entry(&mut self, row: usize, col: usize, x: f64) {
        self.rows.push(row);
        self.cols.push(col);
        self.vals.push(x);
    }

    /// The rows added since the last cone form a cone of this kind (its dimension is set here
    /// for the non-negative cone).
    pub fn close_nonnegative(&mut self) {
        self.cones
            .push(SupportedConeT::NonnegativeConeT(self.b.len() - self.coned));
        self.coned = self.b.len();
    }

    /// The last three rows form a second-order cone: s_0 >= ||(s_1, s_2)||.
    pub fn close_second_order(&mut self) {
        self.cones.push(SupportedConeT::SecondOrderConeT(3));
        self.coned = self.b.len();
    }

    /// Each type's capacity row, sum_i g_ij <= n_j, written through partial sums: the tenants
    /// in blocks of about sqrt(n), a variable per block equal to its sum (a zero cone: no
    /// barrier term, so the central path is the same), and the row over the block sums. A row
    /// over every tenant is a dense row of the KKT system, which its AMD ordering (clarabel
    /// treats a row as dense only past 15 sqrt(size)) took a third of the solve time to order
    /// around; blocks cut max-sum's 1,000-job run from 6.0 s to 4.1 s (when max-sum was solved here).
    fn add_capacity_rows(&mut self, c: &mut Vec<f64>) {
        let capacity = std::mem::take(&mut self.capacity);
        if capacity.is_empty() {
            return;
        }
        let mut sums: Vec<Vec<usize>> = Vec::with_capacity(capacity.len());
        for (cols, _) in &capacity {
            let block = (cols.len() as f64).sqrt().ceil().max(1.0) as usize;
            let mut mine = Vec::new();
            for chunk in cols.chunks(block) {
                let sum = c.len();
                c.push(0.0);
                let row = self.b.len();
                chunk.iter().for_each(|&g| self.entry(row, g, 1.0));
                self.entry(row, sum, -1.0);
                self.b.push(0.0);
                mine.push(sum);
            }
            sums.push(mine);
        }
        self.cones
            .push(SupportedConeT::ZeroConeT(self.b.len() - self.coned));
        self.coned = self.b.len();
        for ((_, n_j), mine) in capacity.iter().zip(&sums) {
            let row = self.b.len();
            mine.iter().for_each(|&sum| self.entry(row, sum, 1.0));
            self.b.push(*n_j);
        }
        self.close_nonnegative();
    }

    /// Solves with clarabel's default tolerances (1e-8, as ECOS's) and returns the program's
    /// own variables: `what` names the program in an error.
    ///
    /// First without iterative refinement of each Newton step and without equilibration: these
    /// programs are scaled to numbers of order one, where the plain factorisation is accurate
    /// enough and equilibration changes nothing (the same answers to the bit on the 1,000-job
    /// max-sum run); refinement took a third of the time (its extra triangular solves and products;
    /// 1,000 jobs under gavel-min-makespan 14.1 s with it, 9.9 s without, every JCT within
    /// 0.06%). Should that end short of `Solved`, the program is solved again with clarabel's
    /// defaults.
    pub fn minimise(mut self, c: &[f64], what: &str) -> Result<Vec<f64>, PolicyError> {
        debug_assert_eq!(self.coned, self.b.len(), "every row is in a cone");
        let own = c.len();
        let mut c = c.to_vec();
        self.add_capacity_rows(&mut c);
        let vars = c.len();
        let a = CscMatrix::new_from_triplets(self.b.len(), vars, self.rows, self.cols, self.vals);
        let p = CscMatrix::<f64>::zeros((vars, vars));
        let mut status = SolverStatus::Unsolved;
        for careful in [false, true] {
            let settings = DefaultSettingsBuilder::default()
                .verbose(false)
                .iterative_refinement_enable(careful)
                .equilibrate_enable(careful)
                .build()
                .map_err(|e| PolicyError::Solver(format!("clarabel settings: {e:?}")))?;
            let mut solver = DefaultSolver::new(&p, &c, &a, &self.b, &self.cones, settings)
                .map_err(|e| PolicyError::Solver(format!("clarabel: {e:?}")))?;
            solver.solve();
            status = solver.solution.status;
            match status {
                SolverStatus::Solved => {}
                SolverStatus::AlmostSolved if careful => {}
                _ => continue,
            }
            let mut x = solver.solution.x;
            x.truncate(own);
            return Ok(x);
        }
        Err(PolicyError::Solver(format!(
            "{what}: the interior point ended {status:?}"
        )))
    }
}

/// The g_ij of a solved program's x, each rounded to [`SIGNIFICANT`] digits (negative crumbs
/// clipped to 0, as Gavel clips).
pub(super) fn allocation_of(inst: &Instance, x: &[f64]) -> Allocation {
    let k = inst.types();
    let mut allocation = Allocation::zeros(inst.tenants(), k);
    for (i, row) in allocation.gpus.iter_mut().enumerate() {
        for (j, g) in row.iter_mut().enumerate() {
            *g = significant(x[i * k + j].max(0.0));
        }
    }
    allocation
}

/// Digits kept of each g_ij an interior point returns. It stops at a relative 1e-8, so the
/// digits past that are noise (8 digits keep a tenant's row within 1e-7 of its cap), and noise would break ties the programs do not: two identical
/// jobs get 0.5 +- 1e-10 each, and Gavel's round mechanism, which compares priorities exactly,
/// would then pick by the noise rather than by arrival. Rounding relatively keeps the crumbs
/// (1e-9 stays 1e-9, not 0).
pub(super) const SIGNIFICANT: i32 = 8;

/// `x` rounded to [`SIGNIFICANT`] significant digits.
pub(super) fn significant(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let scale = 10f64.powi(SIGNIFICANT - 1 - x.abs().log10().floor() as i32);
    (x * scale).round() / scale
}

#[cfg(test)]
mod tests {
    use super::significant;

    #[test]
    fn values_keep_eight_significant_digits_and_crumbs_stay_crumbs() {
        let near = |a: f64, b: f64| (a - b).abs() <= 1e-15 * b.abs();
        assert_eq!(significant(0.5000000001), 0.5);
        assert_eq!(significant(0.4999999999), 0.5);
        assert!(near(significant(1.234567891e-9), 1.2345679e-9));
        assert!(near(significant(-3.0e-12), -3.0e-12));
        assert!(near(significant(123456.789), 123456.79));
        assert_eq!(significant(0.0), 0.0);
    }
}
