//! The LP layer: a thin, typed wrapper over microlp so model code reads like the formulation.
//!
//! ```text
//! let mut lp = Lp::maximize();
//! let x = lp.var(1.0);                    // objective coefficient 1, x >= 0
//! lp.le([(x, 1.0)], 4.0);                 // x <= 4
//! let sol = lp.solve()?;                  // typed errors: Infeasible, Unbounded, Numerical
//! ```
//!
//! Solver failures never panic: microlp returns an error where minilp would panic on a singular
//! basis, and every error becomes an [`LpError`].

use microlp::{ComparisonOp, OptimizationDirection, Problem, Variable};
use std::fmt;

/// A decision variable of an [`Lp`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Var(Variable);

/// A linear row: (variable, coefficient) terms.
pub type Terms = Vec<(Var, f64)>;

/// Why an LP has no optimal solution.
#[derive(Debug, Clone, PartialEq)]
pub enum LpError {
    Infeasible,
    Unbounded,
    /// Numerical failure or invalid numbers; the solver's message.
    Numerical(String),
}

impl fmt::Display for LpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LpError::Infeasible => write!(f, "the constraints admit no solution"),
            LpError::Unbounded => write!(f, "the objective is unbounded"),
            LpError::Numerical(msg) => write!(f, "numerical failure: {msg}"),
        }
    }
}

impl From<microlp::Error> for LpError {
    fn from(err: microlp::Error) -> Self {
        match err {
            microlp::Error::Infeasible => LpError::Infeasible,
            microlp::Error::Unbounded => LpError::Unbounded,
            other => LpError::Numerical(other.to_string()),
        }
    }
}

/// A linear program under construction.
pub struct Lp {
    problem: Problem,
    rows: usize,
}

impl Lp {
    pub fn maximize() -> Self {
        Lp {
            problem: Problem::new(OptimizationDirection::Maximize),
            rows: 0,
        }
    }

    pub fn minimize() -> Self {
        Lp {
            problem: Problem::new(OptimizationDirection::Minimize),
            rows: 0,
        }
    }

    /// A variable >= 0 with objective coefficient `objective`.
    pub fn var(&mut self, objective: f64) -> Var {
        Var(self.problem.add_var(objective, (0.0, f64::INFINITY)))
    }

    /// A variable with objective coefficient `objective` and bounds `lower..=upper`.
    pub fn bounded_var(&mut self, objective: f64, lower: f64, upper: f64) -> Var {
        Var(self.problem.add_var(objective, (lower, upper)))
    }

    /// sum terms <= rhs
    pub fn le(&mut self, terms: impl IntoIterator<Item = (Var, f64)>, rhs: f64) {
        self.row(terms, ComparisonOp::Le, rhs);
    }

    /// sum terms >= rhs
    pub fn ge(&mut self, terms: impl IntoIterator<Item = (Var, f64)>, rhs: f64) {
        self.row(terms, ComparisonOp::Ge, rhs);
    }

    /// sum terms == rhs
    pub fn eq(&mut self, terms: impl IntoIterator<Item = (Var, f64)>, rhs: f64) {
        self.row(terms, ComparisonOp::Eq, rhs);
    }

    fn row(&mut self, terms: impl IntoIterator<Item = (Var, f64)>, op: ComparisonOp, rhs: f64) {
        let terms: Vec<(Variable, f64)> = merge(terms).into_iter().map(|(v, c)| (v.0, c)).collect();
        self.problem.add_constraint(terms.as_slice(), op, rhs);
        self.rows += 1;
    }

    /// Constraint rows so far.
    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn solve(&self) -> Result<LpSolution, LpError> {
        let outcome = self.problem.solve()?;
        let solution = outcome
            .into_solution()
            .map_err(|_| LpError::Numerical("the solve was interrupted".into()))?;
        Ok(LpSolution { solution })
    }
}

/// An optimal solution; more rows can be added and re-solved from its basis (dual simplex).
pub struct LpSolution {
    solution: microlp::Solution,
}

impl LpSolution {
    pub fn value(&self, var: Var) -> f64 {
        self.solution.var_value(var.0)
    }

    pub fn objective(&self) -> f64 {
        self.solution.objective()
    }

    /// Adds `sum terms >= rhs` and re-solves from the current basis.
    pub fn add_ge(
        self,
        terms: impl IntoIterator<Item = (Var, f64)>,
        rhs: f64,
    ) -> Result<LpSolution, LpError> {
        let terms: Vec<(Variable, f64)> = merge(terms).into_iter().map(|(v, c)| (v.0, c)).collect();
        let outcome = self
            .solution
            .add_constraint(terms.as_slice(), ComparisonOp::Ge, rhs)?;
        let solution = outcome
            .into_solution()
            .map_err(|_| LpError::Numerical("the re-solve was interrupted".into()))?;
        Ok(LpSolution { solution })
    }
}

impl LpSolution {
    /// Fixes `var` at `value` (again, if it was fixed before) and re-solves from the current
    /// basis. A variable used this way stands for a right-hand side that changes between
    /// solves, since microlp cannot edit a row once it is in the model.
    pub fn fix(self, var: Var, value: f64) -> Result<LpSolution, LpError> {
        let outcome = self.solution.fix_var(var.0, value)?;
        let solution = outcome
            .into_solution()
            .map_err(|_| LpError::Numerical("the re-solve was interrupted".into()))?;
        Ok(LpSolution { solution })
    }

    /// Gives a fixed variable its bounds back and re-solves from the current basis.
    pub fn unfix(self, var: Var) -> Result<LpSolution, LpError> {
        let (outcome, _) = self.solution.unfix_var(var.0)?;
        let solution = outcome
            .into_solution()
            .map_err(|_| LpError::Numerical("the re-solve was interrupted".into()))?;
        Ok(LpSolution { solution })
    }
}

/// Sums repeated variables (microlp wants each at most once per row) and drops zero terms.
fn merge(terms: impl IntoIterator<Item = (Var, f64)>) -> Vec<(Var, f64)> {
    let mut merged: Vec<(Var, f64)> = Vec::new();
    for (var, coeff) in terms {
        match merged.iter_mut().find(|(v, _)| *v == var) {
            Some((_, c)) => *c += coeff,
            None => merged.push((var, coeff)),
        }
    }
    merged.retain(|(_, c)| *c != 0.0);
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_small_lp_by_hand() {
        // max x + 2y s.t. x + y <= 4, x + 3y <= 6 -> vertex (3, 1), objective 5.
        let mut lp = Lp::maximize();
        let x = lp.var(1.0);
        let y = lp.var(2.0);
        lp.le([(x, 1.0), (y, 1.0)], 4.0);
        lp.le([(x, 1.0), (y, 3.0)], 6.0);
        let sol = lp.solve().unwrap();
        assert!((sol.objective() - 5.0).abs() < 1e-9);
        assert!((sol.value(x) - 3.0).abs() < 1e-9 && (sol.value(y) - 1.0).abs() < 1e-9);
        // Adding y >= 1.5 re-solves warm: x = 1.5, objective 4.5.
        let sol = sol.add_ge([(y, 1.0)], 1.5).unwrap();
        assert!((sol.objective() - 4.5).abs() < 1e-9);
    }

    #[test]
    fn infeasible_and_unbounded_are_typed_errors() {
        let mut lp = Lp::maximize();
        let x = lp.var(1.0);
        lp.le([(x, 1.0)], -1.0);
        assert_eq!(lp.solve().err(), Some(LpError::Infeasible));
        let mut lp = Lp::maximize();
        let x = lp.var(1.0);
        lp.ge([(x, 1.0)], 1.0);
        assert_eq!(lp.solve().err(), Some(LpError::Unbounded));
    }

    #[test]
    fn repeated_variables_in_a_row_are_summed() {
        let mut lp = Lp::maximize();
        let x = lp.var(1.0);
        lp.le([(x, 1.0), (x, 1.0)], 4.0); // 2x <= 4
        assert!((lp.solve().unwrap().value(x) - 2.0).abs() < 1e-9);
    }
}
