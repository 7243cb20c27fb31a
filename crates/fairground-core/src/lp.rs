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
//!
//! With feature `kept-basis`, [`Lp::solve_from`] solves instead with [`crate::simplex`], from
//! where a neighbouring program's optimum stood ([`Basis`]); microlp answers any program the
//! kept simplex does not settle.

use microlp::{ComparisonOp, OptimizationDirection, Problem, SolveOptions, Variable};
use std::fmt;
use std::sync::Arc;

/// microlp's feasibility tolerance is absolute: every row holds to it. Rows are normalised (their
/// largest term near 1) and variables measured in their expected size, so this absolute figure
/// is a relative one, kept well inside the checker's 1e-6 (`fairness::TOLERANCE`).
const FEASIBILITY: f64 = 1e-9;

/// A decision variable of an [`Lp`]: its index in the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Var(usize);

impl Var {
    /// Its place among the model's variables (the order they were made in), as in [`Basis`].
    pub fn index(self) -> usize {
        self.0
    }
}

/// Where each variable (in the order made) and each row's slack (in the order added, lazily
/// added rows included) stood at an optimum: basic or at a bound. Handed to [`Lp::solve_from`]
/// for a neighbouring program; entries past the end, or for rows and variables that are new,
/// start as a fresh solve does (variables at a bound, slacks basic).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Basis {
    pub vars: Vec<crate::simplex::Status>,
    pub rows: Vec<crate::simplex::Status>,
}

/// Pivots a kept solve may take before microlp is asked instead.
#[cfg(feature = "kept-basis")]
const KEPT_PIVOTS: usize = 20_000;

/// Solves [`Lp::solve_from`] handed to microlp because the kept simplex did not settle them, on
/// any thread; for tests and benchmarks.
#[cfg(feature = "kept-basis")]
static KEPT_FALLBACKS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// How many kept solves (and re-solves after an added row or a bound change) microlp finished
/// instead, since the process began.
#[cfg(feature = "kept-basis")]
pub fn kept_fallbacks() -> usize {
    KEPT_FALLBACKS.load(std::sync::atomic::Ordering::Relaxed)
}

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
///
/// Scaling, so that the answer does not depend on the scenario's units: a variable made with
/// [`Lp::var_scaled`] is handed to the solver as x / scale (its expected size); every row, and
/// the objective, is divided by a power of two near its largest coefficient (so no mantissa is
/// rounded). Values and the objective read back are in the caller's units. The model is kept
/// here and handed to microlp when solved, once the objective's size is known.
pub struct Lp {
    direction: OptimizationDirection,
    /// Per variable: objective coefficient (caller's units), bounds (solver's units).
    vars: Vec<(f64, f64, f64)>,
    scales: Vec<f64>,
    rows: Vec<Row>,
}

/// A row in the solver's units: (variable index, coefficient) terms, comparison, right side.
type Row = (Vec<(usize, f64)>, ComparisonOp, f64);

impl Lp {
    pub fn maximize() -> Self {
        Lp::new(OptimizationDirection::Maximize)
    }

    pub fn minimize() -> Self {
        Lp::new(OptimizationDirection::Minimize)
    }

    fn new(direction: OptimizationDirection) -> Self {
        Lp {
            direction,
            vars: Vec::new(),
            scales: Vec::new(),
            rows: Vec::new(),
        }
    }

    /// A variable >= 0 with objective coefficient `objective`.
    pub fn var(&mut self, objective: f64) -> Var {
        self.var_scaled(objective, 1.0)
    }

    /// A variable >= 0 whose values are expected to be of about `scale` (a positive, finite
    /// size; anything else counts as 1): the solver works with x / scale.
    pub fn var_scaled(&mut self, objective: f64, scale: f64) -> Var {
        let scale = if scale.is_finite() && scale > 0.0 {
            scale
        } else {
            1.0
        };
        self.vars.push((objective, 0.0, f64::INFINITY));
        self.scales.push(scale);
        Var(self.vars.len() - 1)
    }

    /// A variable with objective coefficient `objective` and bounds `lower..=upper`.
    pub fn bounded_var(&mut self, objective: f64, lower: f64, upper: f64) -> Var {
        self.vars.push((objective, lower, upper));
        self.scales.push(1.0);
        Var(self.vars.len() - 1)
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
        let (terms, rhs) = scaled_row(&self.scales, terms, rhs);
        self.rows.push((terms, op, rhs));
    }

    /// Constraint rows so far.
    pub fn rows(&self) -> usize {
        self.rows.len()
    }

    pub fn solve(&self) -> Result<LpSolution, LpError> {
        let (vars, objective_factor) = self.solver_vars();
        let (solution, vars) = solve_microlp(self.direction, vars, &self.rows)?;
        Ok(LpSolution {
            solution: Backend::Microlp(solution),
            model: Arc::new(Model {
                vars,
                scales: self.scales.clone(),
                objective_factor,
            }),
        })
    }

    /// Solves with the kept simplex ([`crate::simplex`]) from `start`, the statuses a
    /// neighbouring program's optimum had ([`LpSolution::basis`]). Only the solver differs:
    /// the program, its scaling and the optimum's value are [`Lp::solve`]'s, and a program the
    /// kept simplex does not settle (numerical trouble, its pivot limit, or a verdict of
    /// infeasible or unbounded) goes to microlp, whose answer or error is returned.
    ///
    /// For programs solved often with a few changes: from a neighbour's basis they take a few
    /// pivots. (From nothing it is no faster than microlp on large programs: oef-coop's static
    /// program at 500 x 8 took 41,821 pivots, docs/benchmarks-history.md.)
    ///
    /// Without feature `kept-basis` this is [`Lp::solve`] (the browser's builds).
    #[cfg(not(feature = "kept-basis"))]
    pub fn solve_from(&self, _start: &Basis) -> Result<LpSolution, LpError> {
        self.solve()
    }

    /// See the other [`Lp::solve_from`].
    #[cfg(feature = "kept-basis")]
    pub fn solve_from(&self, start: &Basis) -> Result<LpSolution, LpError> {
        use crate::simplex::{Simplex, Status};
        let program = self.program();
        let n = program.vars.len();
        let rows: Vec<crate::simplex::Row> = program.rows.iter().map(simplex_row).collect();
        let bounds: Vec<(f64, f64)> = program.vars.iter().map(|v| (v.1, v.2)).collect();
        let mut kept = Simplex::new(&program.kept_costs(), &bounds, &rows);
        let mut status: Vec<Status> = (0..n)
            .map(|v| start.vars.get(v).copied().unwrap_or(Status::Lower))
            .collect();
        status.extend((0..rows.len()).map(|r| start.rows.get(r).copied().unwrap_or(Status::Basic)));
        kept.set_status(&status);
        let model = Arc::new(Model {
            vars: Vec::new(),
            scales: self.scales.clone(),
            objective_factor: program.objective_factor,
        });
        finish_kept(
            Box::new(Kept {
                kept,
                program,
                bounds,
            }),
            model,
        )
    }

    /// The variables in the solver's units (cost, lower, upper): costs scaled by the variables'
    /// sizes and by a power of two near the largest, which is returned too.
    fn solver_vars(&self) -> (impl Iterator<Item = (f64, f64, f64)> + '_, f64) {
        let costs: Vec<f64> = self
            .vars
            .iter()
            .zip(&self.scales)
            .map(|((c, _, _), s)| c * s)
            .collect();
        let objective_factor = power_of_two_below(costs.iter().fold(0.0, |m, c| m.max(c.abs())));
        let vars = costs
            .into_iter()
            .zip(&self.vars)
            .map(move |(c, (_, lo, hi))| (c * objective_factor, *lo, *hi));
        (vars, objective_factor)
    }

    /// The program in the solver's units, owned (a kept solve grows it).
    #[cfg(feature = "kept-basis")]
    fn program(&self) -> Program {
        let (vars, objective_factor) = self.solver_vars();
        Program {
            direction: self.direction,
            vars: vars.collect(),
            rows: self.rows.clone(),
            objective_factor,
        }
    }
}

/// microlp's optimum of a program in the solver's units (variables as cost, lower, upper), and
/// its variables.
fn solve_microlp(
    direction: OptimizationDirection,
    vars: impl Iterator<Item = (f64, f64, f64)>,
    rows: &[Row],
) -> Result<(microlp::Solution, Vec<Variable>), LpError> {
    let mut problem = Problem::new(direction);
    let vars: Vec<Variable> = vars
        .map(|(c, lo, hi)| problem.add_var(c, (lo, hi)))
        .collect();
    for (terms, op, rhs) in rows {
        let terms: Vec<(Variable, f64)> = terms.iter().map(|&(v, c)| (vars[v], c)).collect();
        problem.add_constraint(terms.as_slice(), *op, *rhs);
    }
    let mut options = SolveOptions::default();
    options.tolerances.feasibility = FEASIBILITY;
    let outcome = problem.solve_with(options)?;
    let solution = outcome
        .into_solution()
        .map_err(|_| LpError::Numerical("the solve was interrupted".into()))?;
    Ok((solution, vars))
}

/// An [`Lp`] in the solver's units, as a kept solve grows it.
#[cfg(feature = "kept-basis")]
#[derive(Clone)]
struct Program {
    direction: OptimizationDirection,
    /// Per variable: cost, lower and upper bound.
    vars: Vec<(f64, f64, f64)>,
    rows: Vec<Row>,
    objective_factor: f64,
}

#[cfg(feature = "kept-basis")]
impl Program {
    /// Costs as the kept simplex takes them (it minimises).
    fn kept_costs(&self) -> Vec<f64> {
        let sign = match self.direction {
            OptimizationDirection::Maximize => -1.0,
            OptimizationDirection::Minimize => 1.0,
        };
        self.vars.iter().map(|v| sign * v.0).collect()
    }
}

/// A row as the kept simplex takes it: terms, lower and upper bound of its activity.
#[cfg(feature = "kept-basis")]
fn simplex_row((terms, op, rhs): &Row) -> crate::simplex::Row {
    let (lo, hi) = match op {
        ComparisonOp::Le => (f64::NEG_INFINITY, *rhs),
        ComparisonOp::Ge => (*rhs, f64::INFINITY),
        _ => (*rhs, *rhs),
    };
    (terms.clone(), lo, hi)
}

/// A kept solve: the simplex where it stands, and its program as it has grown (for microlp,
/// should the simplex not settle it).
#[cfg(feature = "kept-basis")]
#[derive(Clone)]
struct Kept {
    kept: crate::simplex::Simplex,
    program: Program,
    /// The variables' bounds as made, for [`LpSolution::unfix`].
    bounds: Vec<(f64, f64)>,
}

/// Runs the kept simplex from where it stands. Whatever it does not settle (numerical trouble,
/// its pivot limit, and also a verdict of infeasible or unbounded, which a tolerance could have
/// made) microlp solves afresh, and its answer or error is the one returned.
#[cfg(feature = "kept-basis")]
fn finish_kept(mut kept: Box<Kept>, model: Arc<Model>) -> Result<LpSolution, LpError> {
    if kept.kept.solve(KEPT_PIVOTS).is_ok() {
        return Ok(LpSolution {
            solution: Backend::Kept(kept),
            model,
        });
    }
    KEPT_FALLBACKS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let program = &kept.program;
    let vars = program.vars.iter().copied();
    let (solution, vars) = solve_microlp(program.direction, vars, &program.rows)?;
    Ok(LpSolution {
        solution: Backend::Microlp(solution),
        model: Arc::new(Model {
            vars,
            scales: model.scales.clone(),
            objective_factor: model.objective_factor,
        }),
    })
}

/// 1 / the power of two at or below `largest` (1 for 0 or a non-finite value).
fn power_of_two_below(largest: f64) -> f64 {
    if largest > 0.0 && largest.is_finite() {
        2f64.powi(-(largest.log2().floor() as i32).clamp(-1000, 1000))
    } else {
        1.0
    }
}

/// A row in the solver's units: each coefficient times its variable's scale, then the whole row
/// (and its right-hand side) divided by the power of two at or below its largest coefficient.
fn scaled_row(
    scales: &[f64],
    terms: impl IntoIterator<Item = (Var, f64)>,
    rhs: f64,
) -> (Vec<(usize, f64)>, f64) {
    let terms: Vec<(usize, f64)> = merge(terms)
        .into_iter()
        .map(|(v, c)| (v.0, c * scales[v.0]))
        .collect();
    let factor = power_of_two_below(terms.iter().map(|(_, c)| c.abs()).fold(0.0, f64::max));
    let scaled_rhs = rhs * factor;
    if !scaled_rhs.is_finite() {
        return (terms, rhs); // leave it as written; the solver reports what it cannot do
    }
    (
        terms.into_iter().map(|(v, c)| (v, c * factor)).collect(),
        scaled_rhs,
    )
}

/// What a solution needs to speak in the caller's units.
struct Model {
    vars: Vec<Variable>,
    scales: Vec<f64>,
    objective_factor: f64,
}

/// An optimal solution; more rows can be added and re-solved from its basis (dual simplex).
pub struct LpSolution {
    solution: Backend,
    model: Arc<Model>,
}

/// Which solver holds the optimum.
enum Backend {
    Microlp(microlp::Solution),
    #[cfg(feature = "kept-basis")]
    Kept(Box<Kept>),
}

/// The solution a warm re-solve reached.
fn resolved(outcome: microlp::SolveOutcome, model: Arc<Model>) -> Result<LpSolution, LpError> {
    let solution = outcome
        .into_solution()
        .map_err(|_| LpError::Numerical("the re-solve was interrupted".into()))?;
    Ok(LpSolution {
        solution: Backend::Microlp(solution),
        model,
    })
}

impl LpSolution {
    pub fn value(&self, var: Var) -> f64 {
        let x = match &self.solution {
            Backend::Microlp(s) => s.var_value(self.model.vars[var.0]),
            #[cfg(feature = "kept-basis")]
            Backend::Kept(k) => k.kept.value(var.0),
        };
        x * self.model.scales[var.0]
    }

    pub fn objective(&self) -> f64 {
        let objective = match &self.solution {
            Backend::Microlp(s) => s.objective(),
            #[cfg(feature = "kept-basis")]
            Backend::Kept(k) => k
                .program
                .vars
                .iter()
                .enumerate()
                .map(|(j, v)| v.0 * k.kept.value(j))
                .sum(),
        };
        objective / self.model.objective_factor
    }

    /// Where the optimum's variables and rows stand, when the kept simplex holds it (a start
    /// for [`Lp::solve_from`]); None from microlp, which does not tell.
    pub fn basis(&self) -> Option<Basis> {
        match &self.solution {
            Backend::Microlp(_) => None,
            #[cfg(feature = "kept-basis")]
            Backend::Kept(k) => {
                let n = k.kept.structurals();
                Some(Basis {
                    vars: (0..n).map(|v| k.kept.status(v)).collect(),
                    rows: (0..k.kept.row_count())
                        .map(|r| k.kept.status(n + r))
                        .collect(),
                })
            }
        }
    }

    /// Adds `sum terms >= rhs` and re-solves from the current basis.
    pub fn add_ge(
        self,
        terms: impl IntoIterator<Item = (Var, f64)>,
        rhs: f64,
    ) -> Result<LpSolution, LpError> {
        let (terms, rhs) = scaled_row(&self.model.scales, terms, rhs);
        match self.solution {
            Backend::Microlp(solution) => {
                let terms: Vec<(Variable, f64)> = terms
                    .iter()
                    .map(|&(v, c)| (self.model.vars[v], c))
                    .collect();
                let outcome = solution.add_constraint(terms.as_slice(), ComparisonOp::Ge, rhs)?;
                resolved(outcome, self.model)
            }
            #[cfg(feature = "kept-basis")]
            Backend::Kept(mut k) => {
                k.kept.add_row(&terms, rhs, f64::INFINITY);
                k.program.rows.push((terms, ComparisonOp::Ge, rhs));
                finish_kept(k, self.model)
            }
        }
    }

    /// Fixes `var` at `value` (again, if it was fixed before) and re-solves from the current
    /// basis. A variable used this way stands for a right-hand side that changes between
    /// solves, since microlp cannot edit a row once it is in the model.
    pub fn fix(self, var: Var, value: f64) -> Result<LpSolution, LpError> {
        let value = value / self.model.scales[var.0];
        match self.solution {
            Backend::Microlp(solution) => {
                let outcome = solution.fix_var(self.model.vars[var.0], value)?;
                resolved(outcome, self.model)
            }
            #[cfg(feature = "kept-basis")]
            Backend::Kept(mut k) => {
                k.kept.set_bounds(var.0, value, value);
                k.program.vars[var.0] = (k.program.vars[var.0].0, value, value);
                finish_kept(k, self.model)
            }
        }
    }

    /// Gives a fixed variable its bounds back and re-solves from the current basis.
    pub fn unfix(self, var: Var) -> Result<LpSolution, LpError> {
        match self.solution {
            Backend::Microlp(solution) => {
                let (outcome, _) = solution.unfix_var(self.model.vars[var.0])?;
                resolved(outcome, self.model)
            }
            #[cfg(feature = "kept-basis")]
            Backend::Kept(mut k) => {
                let (lo, hi) = k.bounds[var.0];
                k.kept.set_bounds(var.0, lo, hi);
                k.program.vars[var.0] = (k.program.vars[var.0].0, lo, hi);
                finish_kept(k, self.model)
            }
        }
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

    /// A neighbouring program from the first one's basis: the same optima as by hand, rows
    /// added on the kept path, and microlp's verdict where there is no optimum.
    #[cfg(feature = "kept-basis")]
    #[test]
    fn solves_from_a_neighbours_basis() {
        let program = |rhs: f64| {
            let mut lp = Lp::maximize();
            let x = lp.var(1.0);
            let y = lp.var_scaled(2.0, 4.0);
            lp.le([(x, 1.0), (y, 1.0)], 4.0);
            lp.le([(x, 1.0), (y, 3.0)], rhs);
            (lp, x, y)
        };
        let (lp, _, _) = program(6.0);
        let first = lp.solve_from(&Basis::default()).unwrap();
        assert!((first.objective() - 5.0).abs() < 1e-9);
        let basis = first.basis().expect("the kept simplex's optimum");
        // x + y <= 4, x + 3y <= 7: (2.5, 1.5), 5.5 (by hand).
        let (lp, x, y) = program(7.0);
        let sol = lp.solve_from(&basis).unwrap();
        assert!((sol.value(x) - 2.5).abs() < 1e-9 && (sol.value(y) - 1.5).abs() < 1e-9);
        assert!(sol.basis().is_some());
        // y >= 2: (1, 2), 5.
        let sol = sol.add_ge([(y, 1.0)], 2.0).unwrap();
        assert!((sol.objective() - 5.0).abs() < 1e-9 && sol.basis().is_some());
        let mut lp = Lp::maximize();
        let x = lp.var(1.0);
        lp.le([(x, 1.0)], -1.0);
        assert_eq!(lp.solve_from(&basis).err(), Some(LpError::Infeasible));
    }

    #[test]
    fn repeated_variables_in_a_row_are_summed() {
        let mut lp = Lp::maximize();
        let x = lp.var(1.0);
        lp.le([(x, 1.0), (x, 1.0)], 4.0); // 2x <= 4
        assert!((lp.solve().unwrap().value(x) - 2.0).abs() < 1e-9);
    }
}
