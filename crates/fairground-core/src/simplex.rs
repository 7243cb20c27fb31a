//! A simplex that starts from a basis it is given: the LP layer's second solver
//! ([`crate::lp::Lp::solve_from`]), for a program solved again and again with a few changes,
//! as oef-coop is in the simulator (a job class more or less, a class's size changed).
//!
//! ```text
//! minimise   c^T x
//! subject to A x - s = 0                 s_r is row r's activity, its slack
//!            lo_v <= x_v, s_v <= hi_v    bounds on every variable, structural or slack
//! ```
//!
//! Why its own: microlp, the engine's solver, starts every program from nothing and cannot be
//! handed a basis, so even with the right rows a recomputation costs about 220 pivots
//! (docs/benchmarks-history.md, issue 67). Here a basis (which variables are basic, which sit
//! at which bound) is carried over by the caller; from it the program usually needs a few
//! pivots or none.
//!
//! How it solves, the textbook bounded simplex (Koberstein, *The dual simplex method, techniques
//! for a fast and stable implementation*, 2005, chapters 2-3):
//! - The basis is factorised as its slack columns (unit vectors: their rows are read off
//!   directly) and a sparse LU (`sparse_lu`, Markowitz pivots with a threshold) of the rows and
//!   columns left (the core); pivots are kept as sparse eta vectors (product form) and rows
//!   added later as bordering rows, until the next refactorisation. oef-coop's rows touch two
//!   tenants each, so the factors stay sparse: a dense LU cost k^2 per solve and made the
//!   static program at 500 tenants (a core of about 590) six times slower than microlp.
//! - A basis that is not dual feasible has its costs shifted until it is (or, asked with
//!   [`Simplex::flip_boxed`], its variables with two finite bounds moved to the other one); the
//!   dual simplex then restores primal feasibility (the row leaving is the largest infeasibility
//!   squared over its dual Devex weight; Harris's two-pass ratio test), the shifts are removed,
//!   and the primal simplex restores dual feasibility. After [`DEGENERATE_RUN`] primal pivots in
//!   a row that move nothing, the primal simplex takes Bland's rule until one does (Bland, *New
//!   finite pivoting rules for the simplex method*, 1977): its usual rules had cycled.
//! - A singular basis given by the caller is repaired: dependent columns leave for the slacks of
//!   the rows they leave uncovered.
//!
//! Every answer is checked after a fresh refactorisation (primal and dual feasible to
//! [`FEASIBILITY`]); anything else is an error, and the LP layer then solves the program with
//! microlp from nothing.

mod sparse_lu;

use sparse_lu::SparseLu;

/// Bound violations up to this are feasible (absolute, in the LP layer's scaled units, as
/// microlp's tolerance is).
pub const FEASIBILITY: f64 = 1e-9;
/// Reduced costs of the wrong sign up to this are optimal.
const OPTIMALITY: f64 = 1e-9;
/// Pivot elements below this are not taken.
const PIVOT: f64 = 1e-9;
/// Primal pivots in a row that move nothing before the primal simplex takes Bland's rule.
const DEGENERATE_RUN: usize = 100;
/// Pivots kept as etas (and rows as borders) before the basis is factorised again.
const REFACTOR_EVERY: usize = 48;

/// A row: its structural terms (variable, coefficient), then the lower and upper bound of its
/// activity.
pub type Row = (Vec<(usize, f64)>, f64, f64);

/// Where a variable is: in the basis, or at one of its bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Basic,
    Lower,
    Upper,
}

/// Why a solve stopped without an optimum.
#[derive(Debug, Clone, PartialEq)]
pub enum SimplexError {
    Infeasible,
    Unbounded,
    /// Too many pivots, a singular basis that could not be repaired, or an answer that failed
    /// its final check.
    Numerical(&'static str),
}

/// One step in the product form of the basis inverse since the last factorisation.
#[derive(Debug, Clone)]
enum Update {
    /// A pivot: the entering column in basis coordinates, at the leaving position (`pivot`
    /// there; `w` its other nonzeros).
    Eta {
        pos: usize,
        pivot: f64,
        w: Vec<(usize, f64)>,
    },
    /// A row added with its slack basic: its coefficients on the basic variables then (by
    /// position); the slack took the next position.
    Border {
        row: usize,
        terms: Vec<(usize, f64)>,
    },
}

/// The factorised basis: slack columns read off, the core in sparse LU, then the updates.
#[derive(Debug, Clone, Default)]
struct Factor {
    /// Positions when factorised (the updates grow them).
    size: usize,
    /// Core rows (rows whose slack is nonbasic), in LU row order before pivoting.
    core_rows: Vec<usize>,
    /// Core columns: (position, structural variable).
    core_cols: Vec<(usize, usize)>,
    /// Rows whose slack is basic: (row, position).
    slack_rows: Vec<(usize, usize)>,
    /// Each structural's position if it is a core column, else usize::MAX.
    core_pos: Vec<usize>,
    /// Whether each row (of those at factorisation) is a core row.
    is_core: Vec<bool>,
    /// The core's sparse LU (rows and columns by their place in `core_rows` and `core_cols`).
    lu: SparseLu,
    updates: Vec<Update>,
}

/// A program and its current basis; rows can be added, bounds changed and the program
/// solved again from where it stands.
#[derive(Debug, Clone)]
pub struct Simplex {
    n: usize,
    /// Per variable (structurals, then one slack per row): cost (minimised), bounds.
    cost: Vec<f64>,
    lo: Vec<f64>,
    hi: Vec<f64>,
    /// Cost shifts in force during the dual phase.
    shift: Vec<f64>,
    /// Structural coefficients by row and by column.
    rows: Vec<Vec<(usize, f64)>>,
    cols: Vec<Vec<(usize, f64)>>,
    status: Vec<Status>,
    /// Basic variable at each position, and each variable's position (usize::MAX if nonbasic).
    basic: Vec<usize>,
    pos_of: Vec<usize>,
    x: Vec<f64>,
    d: Vec<f64>,
    factor: Factor,
    /// Whether the factorisation, x and d must be computed afresh before the next pivot.
    stale: bool,
    /// Dual Devex reference weights, by position (the dual simplex's pricing).
    devex: Vec<f64>,
    /// Pivots over this simplex's life.
    pub pivots: usize,
    /// Whether a dual infeasible variable with two finite bounds moves to its other bound
    /// rather than having its cost shifted ([`Simplex::flip_boxed`]).
    flip_boxed: bool,
    /// Degenerate primal pivots in a row before Bland's rule ([`DEGENERATE_RUN`]; the tests
    /// take it from the first pivot).
    bland_after: usize,
}

impl Simplex {
    /// A program of `n` structural variables with these costs (minimised) and bounds, and
    /// these rows (terms, lower, upper), every variable nonbasic at a finite bound and every
    /// slack basic. Call [`Simplex::set_status`] to start elsewhere, then [`Simplex::solve`].
    pub fn new(cost: &[f64], bounds: &[(f64, f64)], rows: &[Row]) -> Self {
        let n = cost.len();
        let mut s = Simplex {
            n,
            cost: cost.to_vec(),
            lo: bounds.iter().map(|b| b.0).collect(),
            hi: bounds.iter().map(|b| b.1).collect(),
            shift: vec![0.0; n],
            rows: Vec::with_capacity(rows.len()),
            cols: vec![Vec::new(); n],
            status: (0..n).map(|v| resting(bounds[v].0, bounds[v].1)).collect(),
            basic: Vec::new(),
            pos_of: vec![usize::MAX; n],
            x: vec![0.0; n],
            d: vec![0.0; n],
            factor: Factor::default(),
            stale: true,
            devex: Vec::new(),
            pivots: 0,
            flip_boxed: false,
            bland_after: DEGENERATE_RUN,
        };
        for (terms, lo, hi) in rows {
            s.push_row(terms, *lo, *hi);
        }
        s
    }

    /// Variables: structurals then slacks.
    fn vars(&self) -> usize {
        self.cost.len()
    }

    fn push_row(&mut self, terms: &[(usize, f64)], lo: f64, hi: f64) {
        let r = self.rows.len();
        let v = self.vars();
        for &(j, a) in terms {
            self.cols[j].push((r, a));
        }
        self.rows.push(terms.to_vec());
        self.cost.push(0.0);
        self.shift.push(0.0);
        self.lo.push(lo);
        self.hi.push(hi);
        self.status.push(Status::Basic);
        self.pos_of.push(self.basic.len());
        self.basic.push(v);
        self.x.push(0.0);
        self.d.push(0.0);
    }

    /// Structural variables.
    pub fn structurals(&self) -> usize {
        self.n
    }

    /// Rows.
    pub fn row_count(&self) -> usize {
        self.rows.len()
    }

    /// The status of structural `j` or, from `structurals()` on, of row r's slack.
    pub fn status(&self, v: usize) -> Status {
        self.status[v]
    }

    /// Value of structural `j`.
    pub fn value(&self, j: usize) -> f64 {
        self.x[j]
    }

    /// Each row's dual value at the current basis, y = B^-T c_B, so that a variable's reduced
    /// cost is c_v - a_v^T y (a slack's column is -e_r: its reduced cost is y_r). At an optimum
    /// of this minimisation, a row held at its upper bound has y_r <= 0 and one at its lower
    /// bound y_r >= 0. For the study of oef-coop's grouped program, whose certificate splits
    /// these duals over each group's members (examples/oef_grouped_study.rs).
    pub fn row_duals(&self) -> Vec<f64> {
        let cb: Vec<f64> = self.basic.iter().map(|&v| self.cost[v]).collect();
        self.btran(&cb)
    }

    /// c^T x over the structurals.
    pub fn objective(&self) -> f64 {
        (0..self.n).map(|j| self.cost[j] * self.x[j]).sum()
    }

    /// Sets where each variable starts (structurals, then slacks). The basis need not have the
    /// right size or be nonsingular: [`Simplex::solve`] repairs it. A bound that is infinite is
    /// replaced by the other.
    pub fn set_status(&mut self, status: &[Status]) {
        for (v, &st) in status.iter().enumerate().take(self.vars()) {
            self.status[v] = match st {
                Status::Basic => Status::Basic,
                Status::Lower if self.lo[v].is_finite() => Status::Lower,
                Status::Upper if self.hi[v].is_finite() => Status::Upper,
                _ => resting(self.lo[v], self.hi[v]),
            };
        }
        self.rebuild_positions();
    }

    /// Positions from the statuses: too many basic variables lose their last structurals, too
    /// few gain the slacks of the rows no basic structural can cover (the factorisation sorts
    /// out which).
    fn rebuild_positions(&mut self) {
        let m = self.rows.len();
        let mut basic: Vec<usize> = (0..self.vars())
            .filter(|&v| self.status[v] == Status::Basic)
            .collect();
        while basic.len() > m {
            // Structurals first go back to a bound (slacks are the safer basis).
            let at = basic
                .iter()
                .rposition(|&v| v < self.n)
                .unwrap_or(basic.len() - 1);
            let v = basic.remove(at);
            self.status[v] = resting(self.lo[v], self.hi[v]);
        }
        if basic.len() < m {
            for r in 0..m {
                if basic.len() == m {
                    break;
                }
                let v = self.n + r;
                if self.status[v] != Status::Basic {
                    self.status[v] = Status::Basic;
                    basic.push(v);
                }
            }
        }
        self.pos_of = vec![usize::MAX; self.vars()];
        for (p, &v) in basic.iter().enumerate() {
            self.pos_of[v] = p;
        }
        self.basic = basic;
        self.stale = true;
    }

    /// Adds `lo <= sum terms <= hi` with its slack basic; the basis stays dual feasible.
    pub fn add_row(&mut self, terms: &[(usize, f64)], lo: f64, hi: f64) {
        let r = self.rows.len();
        let border: Vec<(usize, f64)> = terms
            .iter()
            .filter(|&&(j, _)| self.status[j] == Status::Basic)
            .map(|&(j, a)| (self.pos_of[j], a))
            .collect();
        self.push_row(terms, lo, hi);
        let v = self.n + r;
        self.x[v] = terms.iter().map(|&(j, a)| a * self.x[j]).sum();
        self.factor.updates.push(Update::Border {
            row: r,
            terms: border,
        });
    }

    /// From now on, a nonbasic variable with two finite bounds whose reduced cost has the wrong
    /// sign is moved to its other bound before the dual simplex, instead of having its cost
    /// shifted: it is then dual feasible for good, and when every dual infeasible variable is
    /// boxed the primal simplex has nothing left to do. For programs whose primal simplex
    /// stalls (oef-coop's local programs over groups: every row's right-hand side is 0, so
    /// the vertices are highly degenerate, and from a kept basis the primal phase took over
    /// 2,000 pivots without settling).
    pub fn flip_boxed(&mut self) {
        self.flip_boxed = true;
    }

    /// Changes structural `j`'s bounds; a nonbasic variable moves to its new bound.
    pub fn set_bounds(&mut self, j: usize, lo: f64, hi: f64) {
        self.lo[j] = lo;
        self.hi[j] = hi;
        if self.status[j] != Status::Basic {
            self.status[j] = match self.status[j] {
                Status::Upper if hi.is_finite() => Status::Upper,
                _ => resting(lo, hi),
            };
        }
        // x and d follow at the next solve.
        self.stale = true;
    }

    /// Solves from the current basis: an optimum, or why none.
    pub fn solve(&mut self, max_pivots: usize) -> Result<(), SimplexError> {
        let limit = self.pivots + max_pivots;
        for attempt in 0..3 {
            if self.stale || attempt > 0 {
                self.refactor()?;
            }
            self.shift_costs();
            self.dual(limit)?;
            if self.unshift_costs() {
                self.refresh();
            }
            self.primal(limit)?;
            // The final check, on numbers recomputed from the nonbasic values.
            self.refresh();
            if self.primal_infeasibility().is_none() && self.dual_infeasibility().is_none() {
                return Ok(());
            }
        }
        Err(SimplexError::Numerical(
            "no stable optimum after three passes",
        ))
    }

    // ---- factorisation -------------------------------------------------------------------

    /// Factorises the basis afresh (repairing it if singular), then recomputes x_B and d.
    fn refactor(&mut self) -> Result<(), SimplexError> {
        if self.basic.len() != self.rows.len() {
            self.rebuild_positions();
        }
        for _ in 0..2 {
            match self.factorise() {
                Ok(()) => {
                    self.stale = false;
                    self.refresh();
                    return Ok(());
                }
                Err(dependent) => self.repair(&dependent),
            }
        }
        Err(SimplexError::Numerical("singular basis"))
    }

    /// The LU of the core; on failure, the core columns with no pivot (by position), each with
    /// a core row left without one.
    fn factorise(&mut self) -> Result<(), Vec<(usize, usize)>> {
        let m = self.rows.len();
        let mut core_row_of = vec![usize::MAX; m];
        let mut f = Factor {
            size: m,
            core_pos: vec![usize::MAX; self.n],
            ..Factor::default()
        };
        for (p, &v) in self.basic.iter().enumerate() {
            if v >= self.n {
                f.slack_rows.push((v - self.n, p));
            } else {
                f.core_cols.push((p, v));
                f.core_pos[v] = p;
            }
        }
        let mut has_slack = vec![false; m];
        for &(r, _) in &f.slack_rows {
            has_slack[r] = true;
        }
        for r in (0..m).filter(|&r| !has_slack[r]) {
            core_row_of[r] = f.core_rows.len();
            f.core_rows.push(r);
        }
        f.is_core = has_slack.iter().map(|&s| !s).collect();
        let k = f.core_cols.len();
        let cols: Vec<Vec<(usize, f64)>> = f
            .core_cols
            .iter()
            .map(|&(_, j)| {
                self.cols[j]
                    .iter()
                    .filter(|&&(r, _)| core_row_of[r] != usize::MAX)
                    .map(|&(r, val)| (core_row_of[r], val))
                    .collect()
            })
            .collect();
        let lu = SparseLu::new(k, &cols, PIVOT).map_err(|left| {
            left.into_iter()
                .map(|(b, row)| (f.core_cols[b].0, f.core_rows[row]))
                .collect::<Vec<_>>()
        })?;
        f.lu = lu;
        self.factor = f;
        Ok(())
    }

    /// Dependent basic columns leave, each for the slack of a row the elimination left without
    /// a pivot: the pivoted columns and those unit columns are nonsingular (block triangular).
    fn repair(&mut self, dependent: &[(usize, usize)]) {
        for &(p, r) in dependent {
            let (v, s) = (self.basic[p], self.n + r);
            self.status[v] = resting(self.lo[v], self.hi[v]);
            self.pos_of[v] = usize::MAX;
            self.status[s] = Status::Basic;
            self.basic[p] = s;
            self.pos_of[s] = p;
        }
        self.stale = true;
    }

    /// z = B^-1 a, for `a` in row space; z by position.
    fn ftran(&self, a: &[f64]) -> Vec<f64> {
        let f = &self.factor;
        let mut z = vec![0.0; f.size];
        // Core: C z_x = a[core rows].
        let t = f.lu.solve(f.core_rows.iter().map(|&r| a[r]).collect());
        for (b, &(p, _)) in f.core_cols.iter().enumerate() {
            z[p] = t[b];
        }
        // Slack rows: A[r, S] z_x - z_s = a_r.
        for &(r, p) in &f.slack_rows {
            let s: f64 = self.rows[r]
                .iter()
                .filter_map(|&(j, val)| self.core_value(j, &z).map(|zj| val * zj))
                .sum();
            z[p] = s - a[r];
        }
        for u in &f.updates {
            match u {
                Update::Eta { pos, pivot, w } => {
                    let zp = z[*pos] / pivot;
                    if zp != 0.0 {
                        for &(i, wi) in w {
                            z[i] -= wi * zp;
                        }
                    }
                    z[*pos] = zp;
                }
                Update::Border { row, terms } => {
                    let s: f64 = terms.iter().map(|&(p, val)| val * z[p]).sum();
                    z.push(s - a[*row]);
                }
            }
        }
        z
    }

    /// z_j for a structural j in the factorised core (by its position then).
    fn core_value(&self, j: usize, z: &[f64]) -> Option<f64> {
        let p = self.factor.core_pos[j];
        (p != usize::MAX).then(|| z[p])
    }

    /// y = B^-T h, for `h` by position; y in row space.
    fn btran(&self, h: &[f64]) -> Vec<f64> {
        let f = &self.factor;
        let mut h = h.to_vec();
        let mut y = vec![0.0; self.rows.len()];
        for u in f.updates.iter().rev() {
            match u {
                Update::Eta { pos, pivot, w } => {
                    let s: f64 = w.iter().map(|&(i, wi)| h[i] * wi).sum();
                    h[*pos] = (h[*pos] - s) / pivot;
                }
                Update::Border { row, terms } => {
                    // Its slack's column is -e_row: -y_row = h_last.
                    let yr = -h.pop().unwrap_or(0.0);
                    y[*row] = yr;
                    for &(p, val) in terms {
                        h[p] -= val * yr;
                    }
                }
            }
        }
        // Slack positions: -y_r = h_p.
        for &(r, p) in &f.slack_rows {
            y[r] = -h[p];
        }
        // Core: C^T y_core = h_x - A[slack rows, S]^T y_slack.
        let rhs: Vec<f64> = f
            .core_cols
            .iter()
            .map(|&(p, j)| {
                let outside: f64 = self.cols[j]
                    .iter()
                    .filter(|&&(r, _)| r < f.size && !f.is_core[r])
                    .map(|&(r, val)| val * y[r])
                    .sum();
                h[p] - outside
            })
            .collect();
        let core = f.lu.solve_transpose(rhs);
        for (row, &r) in f.core_rows.iter().enumerate() {
            y[r] = core[row];
        }
        y
    }

    /// x_B from the nonbasic values, and every reduced cost, afresh.
    fn refresh(&mut self) {
        let m = self.rows.len();
        let mut rhs = vec![0.0; m];
        for v in 0..self.vars() {
            if self.status[v] == Status::Basic {
                continue;
            }
            let xv = match self.status[v] {
                Status::Upper => self.hi[v],
                _ => self.lo[v],
            };
            let xv = if xv.is_finite() { xv } else { 0.0 };
            self.x[v] = xv;
            if xv != 0.0 {
                self.add_column(v, -xv, &mut rhs);
            }
        }
        let z = self.ftran(&rhs);
        for (p, &v) in self.basic.iter().enumerate() {
            self.x[v] = z[p];
        }
        let cb: Vec<f64> = self.basic.iter().map(|&v| self.cost[v]).collect();
        let y = self.btran(&cb);
        for v in 0..self.vars() {
            self.d[v] = if self.status[v] == Status::Basic {
                0.0
            } else {
                self.cost[v] - self.column_dot(v, &y)
            };
        }
    }

    /// out += scale * column v.
    fn add_column(&self, v: usize, scale: f64, out: &mut [f64]) {
        if v < self.n {
            for &(r, a) in &self.cols[v] {
                out[r] += scale * a;
            }
        } else {
            out[v - self.n] -= scale;
        }
    }

    /// column v . y
    fn column_dot(&self, v: usize, y: &[f64]) -> f64 {
        if v < self.n {
            self.cols[v].iter().map(|&(r, a)| a * y[r]).sum()
        } else {
            -y[v - self.n]
        }
    }

    /// Row p of B^-1 N over every variable (0 for basic ones).
    fn pivot_row(&self, p: usize) -> Vec<f64> {
        let mut e = vec![0.0; self.basic.len()];
        e[p] = 1.0;
        let rho = self.btran(&e);
        let mut alpha = vec![0.0; self.vars()];
        for (r, &rr) in rho.iter().enumerate() {
            if rr == 0.0 {
                continue;
            }
            for &(j, a) in &self.rows[r] {
                alpha[j] += rr * a;
            }
            alpha[self.n + r] = -rr;
        }
        for &v in &self.basic {
            alpha[v] = 0.0;
        }
        alpha
    }

    /// B^-1 times column v, by position.
    fn pivot_column(&self, v: usize) -> Vec<f64> {
        let mut a = vec![0.0; self.rows.len()];
        self.add_column(v, 1.0, &mut a);
        self.ftran(&a)
    }

    /// Makes `enter` basic at position `p` (its leaving variable already moved to its bound).
    fn change_basis(&mut self, p: usize, enter: usize, w: Vec<f64>) -> Result<(), SimplexError> {
        let leave = self.basic[p];
        self.pos_of[leave] = usize::MAX;
        self.basic[p] = enter;
        self.pos_of[enter] = p;
        self.status[enter] = Status::Basic;
        self.d[enter] = 0.0;
        let pivot = w[p];
        let w = w
            .into_iter()
            .enumerate()
            .filter(|&(i, wi)| i != p && wi != 0.0)
            .collect();
        self.factor.updates.push(Update::Eta { pos: p, pivot, w });
        self.pivots += 1;
        if self.factor.updates.len() >= REFACTOR_EVERY {
            self.refactor()?;
        }
        Ok(())
    }

    // ---- the two simplex methods ---------------------------------------------------------

    /// The basic position most outside its bounds, and whether it is above (to leave at its
    /// upper bound).
    fn primal_infeasibility(&self) -> Option<(usize, bool)> {
        self.most_infeasible(|_, amount| amount)
    }

    /// The dual simplex's leaving position: the largest infeasibility squared over its Devex
    /// weight (an estimate of how long a step in the dual that row's pivot makes, Forrest and
    /// Goldfarb 1992; Koberstein 2005, section 3.3), and whether it is above its bound.
    fn leaving_by_devex(&self) -> Option<(usize, bool)> {
        self.most_infeasible(|p, amount| {
            amount * amount / self.devex.get(p).copied().unwrap_or(1.0)
        })
    }

    /// The infeasible basic position with the highest `score(position, amount outside)`, and
    /// whether it is above its bound.
    fn most_infeasible(&self, score: impl Fn(usize, f64) -> f64) -> Option<(usize, bool)> {
        let mut best: Option<(usize, bool, f64)> = None;
        for (p, &v) in self.basic.iter().enumerate() {
            let (below, above) = (self.lo[v] - self.x[v], self.x[v] - self.hi[v]);
            let (amount, up) = if above > below {
                (above, true)
            } else {
                (below, false)
            };
            if amount > FEASIBILITY {
                let score = score(p, amount);
                if best.is_none_or(|b| score > b.2) {
                    best = Some((p, up, score));
                }
            }
        }
        best.map(|(p, up, _)| (p, up))
    }

    /// The Devex weights after a pivot at position `p` with column `w` = B^-1 a_q.
    fn update_devex(&mut self, p: usize, w: &[f64]) {
        if self.devex.len() < w.len() {
            self.devex.resize(w.len(), 1.0);
        }
        let (wp, bp) = (w[p], self.devex[p]);
        for (i, &wi) in w.iter().enumerate() {
            if i != p && wi != 0.0 {
                let ratio = wi / wp;
                self.devex[i] = self.devex[i].max(ratio * ratio * bp);
            }
        }
        self.devex[p] = (bp / (wp * wp)).max(1.0);
    }

    /// A nonbasic variable whose reduced cost says the objective improves by moving it: the
    /// largest such, and whether it moves up.
    fn dual_infeasibility(&self) -> Option<(usize, bool)> {
        let mut worst: Option<(usize, bool, f64)> = None;
        for v in 0..self.vars() {
            let (amount, up) = match self.status[v] {
                Status::Basic => continue,
                _ if self.lo[v] == self.hi[v] => continue,
                Status::Lower => (-self.d[v], true),
                Status::Upper => (self.d[v], false),
            };
            if amount > OPTIMALITY && worst.is_none_or(|w| amount > w.2) {
                worst = Some((v, up, amount));
            }
        }
        worst.map(|(v, up, _)| (v, up))
    }

    /// The first dual infeasible nonbasic variable by index, and whether it should rise
    /// (Bland's entering rule).
    fn first_dual_infeasibility(&self) -> Option<(usize, bool)> {
        (0..self.vars()).find_map(|v| {
            let (amount, up) = match self.status[v] {
                Status::Basic => return None,
                _ if self.lo[v] == self.hi[v] => return None,
                Status::Lower => (-self.d[v], true),
                Status::Upper => (self.d[v], false),
            };
            (amount > OPTIMALITY).then_some((v, up))
        })
    }

    /// Shifts the cost of every dual infeasible nonbasic variable so that it is not (with
    /// [`Simplex::flip_boxed`], one with two finite bounds moves to its other bound instead).
    fn shift_costs(&mut self) {
        let mut flipped = false;
        for v in 0..self.vars() {
            let need = match self.status[v] {
                Status::Basic => continue,
                _ if self.lo[v] == self.hi[v] => continue,
                Status::Lower => -self.d[v],
                Status::Upper => self.d[v],
            };
            let boxed = self.lo[v].is_finite() && self.hi[v].is_finite();
            if need > OPTIMALITY && self.flip_boxed && boxed {
                self.status[v] = match self.status[v] {
                    Status::Lower => Status::Upper,
                    _ => Status::Lower,
                };
                flipped = true;
            } else if need > OPTIMALITY {
                let amount = if self.status[v] == Status::Lower {
                    need
                } else {
                    -need
                };
                self.shift[v] += amount;
                self.cost[v] += amount;
                self.d[v] += amount;
            }
        }
        if flipped {
            // The basic variables follow the flipped ones (the duals do not change).
            self.refresh();
        }
    }

    /// Takes the shifts out again; whether there were any.
    fn unshift_costs(&mut self) -> bool {
        let mut any = false;
        for v in 0..self.vars() {
            if self.shift[v] != 0.0 {
                self.cost[v] -= self.shift[v];
                self.shift[v] = 0.0;
                any = true;
            }
        }
        any
    }

    /// Dual simplex: from a dual feasible basis to an optimal one.
    fn dual(&mut self, limit: usize) -> Result<(), SimplexError> {
        // Refactorisations in a row because the updates drifted: past two, the basis itself
        // is too ill-conditioned to go on (else this could loop without a pivot).
        let mut drifted = 0;
        self.devex.clear();
        self.devex.resize(self.basic.len(), 1.0);
        while let Some((p, up)) = self.leaving_by_devex() {
            if self.pivots >= limit {
                return Err(SimplexError::Numerical("pivot limit"));
            }
            let alpha = self.pivot_row(p);
            let sign = if up { 1.0 } else { -1.0 };
            // Harris: the largest step any candidate allows with the tolerance, then the
            // largest pivot among those within it.
            let slack_of = |v: usize| match self.status[v] {
                Status::Lower => self.d[v].max(0.0),
                _ => (-self.d[v]).max(0.0),
            };
            let eligible = |v: usize| {
                let a = sign * alpha[v];
                match self.status[v] {
                    Status::Basic => false,
                    _ if self.lo[v] == self.hi[v] => false,
                    Status::Lower => a > PIVOT,
                    Status::Upper => a < -PIVOT,
                }
            };
            let mut bound = f64::INFINITY;
            for v in (0..self.vars()).filter(|&v| eligible(v)) {
                bound = bound.min((slack_of(v) + OPTIMALITY) / alpha[v].abs());
            }
            let mut enter: Option<(usize, f64)> = None;
            for v in (0..self.vars()).filter(|&v| eligible(v)) {
                if slack_of(v) / alpha[v].abs() <= bound
                    && enter.is_none_or(|(_, a)| alpha[v].abs() > a)
                {
                    enter = Some((v, alpha[v].abs()));
                }
            }
            let Some((q, _)) = enter else {
                return Err(SimplexError::Infeasible);
            };
            let w = self.pivot_column(q);
            if (w[p] - alpha[q]).abs() > 1e-7 * (1.0 + w[p].abs()) {
                // The updates have drifted: factorise again and look afresh.
                drifted += 1;
                if drifted > 2 {
                    return Err(SimplexError::Numerical("the pivot row and column disagree"));
                }
                self.refactor()?;
                continue;
            }
            drifted = 0;
            self.update_devex(p, &w);
            let leave = self.basic[p];
            let target = if up { self.hi[leave] } else { self.lo[leave] };
            let step = (self.x[leave] - target) / w[p];
            for (i, &v) in self.basic.iter().enumerate() {
                self.x[v] -= step * w[i];
            }
            self.x[q] += step;
            self.x[leave] = target;
            let theta = self.d[q] / w[p];
            for ((d, &status), a) in self.d.iter_mut().zip(&self.status).zip(&alpha) {
                if status != Status::Basic {
                    *d -= theta * a;
                }
            }
            self.d[leave] = -theta;
            self.status[leave] = if up { Status::Upper } else { Status::Lower };
            self.change_basis(p, q, w)?;
        }
        Ok(())
    }

    /// Primal simplex: from a primal feasible basis to an optimal one.
    ///
    /// After [`DEGENERATE_RUN`] pivots in a row that move nothing, it takes Bland's rule (the
    /// first variable by index enters, the first by index among the tied rows leaves) until a
    /// step moves again: the largest-infeasibility choice cycles on degenerate vertices (issue
    /// 77: oef-coop's grouped program at 400 x 8 went round one cycle of 35,000 pivots until the
    /// pivot limit), and Bland's rule cannot.
    fn primal(&mut self, limit: usize) -> Result<(), SimplexError> {
        // Bound flips change no basis, so they count against the limit apart from pivots.
        let mut flips = 0;
        let mut degenerate = 0;
        loop {
            let bland = degenerate >= self.bland_after;
            let entering = if bland {
                self.first_dual_infeasibility()
            } else {
                self.dual_infeasibility()
            };
            let Some((q, up)) = entering else {
                break;
            };
            if self.pivots + flips >= limit {
                return Err(SimplexError::Numerical("pivot limit"));
            }
            let w = self.pivot_column(q);
            let dir = if up { 1.0 } else { -1.0 };
            // x_B moves by -dir t w as x_q moves by dir t.
            let room = |i: usize, v: usize, tol: f64| -> Option<f64> {
                let rate = -dir * w[i];
                if rate < -PIVOT {
                    Some((self.x[v] - self.lo[v] + tol) / -rate)
                } else if rate > PIVOT {
                    Some((self.hi[v] - self.x[v] + tol) / rate)
                } else {
                    None
                }
            };
            let mut bound = self.hi[q] - self.lo[q];
            for (i, &v) in self.basic.iter().enumerate() {
                if let Some(t) = room(i, v, FEASIBILITY) {
                    bound = bound.min(t);
                }
            }
            if !bound.is_finite() {
                return Err(SimplexError::Unbounded);
            }
            if bland {
                // The exact ratio test: the smallest step, and the first variable that ties.
                bound = self.hi[q] - self.lo[q];
                for (i, &v) in self.basic.iter().enumerate() {
                    if let Some(t) = room(i, v, 0.0) {
                        bound = bound.min(t.max(0.0));
                    }
                }
            }
            let mut leave: Option<(usize, f64)> = None;
            for (i, &v) in self.basic.iter().enumerate() {
                let better = |(p, a): (usize, f64)| {
                    if bland {
                        v < self.basic[p]
                    } else {
                        w[i].abs() > a
                    }
                };
                if room(i, v, 0.0).is_some_and(|t| t <= bound) && leave.is_none_or(better) {
                    leave = Some((i, w[i].abs()));
                }
            }
            let span = self.hi[q] - self.lo[q];
            let Some((p, _)) = leave.filter(|_| span > bound || !span.is_finite()) else {
                // The entering variable reaches its other bound first: a bound flip.
                for (i, &v) in self.basic.iter().enumerate() {
                    self.x[v] -= dir * span * w[i];
                }
                self.x[q] += dir * span;
                self.status[q] = if up { Status::Upper } else { Status::Lower };
                flips += 1;
                degenerate = 0;
                continue;
            };
            let leave = self.basic[p];
            let to_upper = -dir * w[p] > 0.0;
            let target = if to_upper {
                self.hi[leave]
            } else {
                self.lo[leave]
            };
            let t = ((target - self.x[leave]) / (-dir * w[p])).max(0.0);
            // A step that moves the objective by less than this is degenerate.
            degenerate = if t * self.d[q].abs() > 1e-11 {
                0
            } else {
                degenerate + 1
            };
            for (i, &v) in self.basic.iter().enumerate() {
                self.x[v] -= dir * t * w[i];
            }
            self.x[q] += dir * t;
            self.x[leave] = target;
            let alpha = self.pivot_row(p);
            let theta = self.d[q] / w[p];
            for ((d, &status), a) in self.d.iter_mut().zip(&self.status).zip(&alpha) {
                if status != Status::Basic {
                    *d -= theta * a;
                }
            }
            self.d[leave] = -theta;
            self.status[leave] = if to_upper {
                Status::Upper
            } else {
                Status::Lower
            };
            self.change_basis(p, q, w)?;
        }
        Ok(())
    }
}

/// Where a nonbasic variable with these bounds rests: its lower bound if finite, else its upper.
fn resting(lo: f64, hi: f64) -> Status {
    if lo.is_finite() || !hi.is_finite() {
        Status::Lower
    } else {
        Status::Upper
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use microlp::{ComparisonOp, OptimizationDirection, Problem};
    use rand::{Rng, SeedableRng};

    type Rows = Vec<Row>;

    /// The same program solved by microlp, an independent simplex: its optimum, or None.
    fn microlp_optimum(cost: &[f64], bounds: &[(f64, f64)], rows: &Rows) -> Option<f64> {
        let mut p = Problem::new(OptimizationDirection::Minimize);
        let vars: Vec<_> = cost
            .iter()
            .zip(bounds)
            .map(|(&c, &b)| p.add_var(c, b))
            .collect();
        for (terms, lo, hi) in rows {
            let t: Vec<_> = terms.iter().map(|&(j, a)| (vars[j], a)).collect();
            if lo.is_finite() {
                p.add_constraint(t.as_slice(), ComparisonOp::Ge, *lo);
            }
            if hi.is_finite() {
                p.add_constraint(t.as_slice(), ComparisonOp::Le, *hi);
            }
        }
        p.solve().ok()?.into_solution().ok().map(|s| s.objective())
    }

    /// Solves `s` (the program `cost`, `bounds`, `rows`): true when it has microlp's optimum
    /// (to 1e-7), false when both find none; anything else fails the test.
    fn solves_as_microlp(
        s: &mut Simplex,
        cost: &[f64],
        bounds: &[(f64, f64)],
        rows: &Rows,
        what: &str,
    ) -> bool {
        match (s.solve(10_000), microlp_optimum(cost, bounds, rows)) {
            (Ok(()), Some(o)) => {
                assert!(
                    (s.objective() - o).abs() <= 1e-7 * (1.0 + o.abs()),
                    "{what}: {} against {o}",
                    s.objective()
                );
                true
            }
            (Err(SimplexError::Infeasible | SimplexError::Unbounded), None) => false,
            (ours, theirs) => panic!("{what}: {ours:?} against {theirs:?}"),
        }
    }

    /// A random row `terms . x <= hi` over `n` variables, added to `s` and to `rows`.
    fn add_random_row(rng: &mut rand::rngs::StdRng, s: &mut Simplex, rows: &mut Rows, n: usize) {
        let terms: Vec<(usize, f64)> = (0..n).map(|j| (j, rng.random_range(-1.0..2.0))).collect();
        let hi = rng.random_range(0.0..4.0);
        s.add_row(&terms, f64::NEG_INFINITY, hi);
        rows.push((terms, f64::NEG_INFINITY, hi));
    }

    fn random_program(rng: &mut rand::rngs::StdRng) -> (Vec<f64>, Vec<(f64, f64)>, Rows) {
        let n = rng.random_range(1..10);
        let m = rng.random_range(1..9);
        let cost: Vec<f64> = (0..n).map(|_| rng.random_range(-5.0..3.0)).collect();
        let bounds: Vec<(f64, f64)> = (0..n)
            .map(|_| match rng.random_range(0..4) {
                0 => (0.0, rng.random_range(0.5..4.0)),
                1 => (-1.0, f64::INFINITY),
                _ => (0.0, f64::INFINITY),
            })
            .collect();
        let inside: Vec<f64> = bounds
            .iter()
            .map(|&(lo, hi)| lo + rng.random_range(0.0..1.0) * (hi - lo).min(3.0))
            .collect();
        let mut rows: Rows = (0..m)
            .map(|_| {
                let mut terms: Vec<(usize, f64)> = Vec::new();
                for j in 0..n {
                    if rng.random_bool(0.6) {
                        terms.push((j, rng.random_range(-2.0..3.0)));
                    }
                }
                // Mostly feasible: each row holds at a point inside the bounds, with room.
                let at: f64 = terms.iter().map(|&(j, c)| c * inside[j]).sum();
                let room = rng.random_range(0.0..2.0);
                match rng.random_range(0..3) {
                    0 => (terms, at - room, f64::INFINITY),
                    1 => (terms, f64::NEG_INFINITY, at + room),
                    _ => (terms, at - room, at + room * 0.5),
                }
            })
            .collect();
        // A box so that most programs are bounded.
        rows.push(((0..n).map(|j| (j, 1.0)).collect(), f64::NEG_INFINITY, 20.0));
        (cost, bounds, rows)
    }

    /// With `flip_boxed`, by hand: minimise -x - 2y with x + y <= 1 and x, y in [0, 1]. Both
    /// costs favour the upper bounds, so both flip there and the row is broken (2 > 1); the dual
    /// simplex then gives the optimum y = 1, x = 0, objective -2.
    #[test]
    fn boxed_variables_flip_to_the_bound_their_cost_favours() {
        let rows: Rows = vec![(vec![(0, 1.0), (1, 1.0)], f64::NEG_INFINITY, 1.0)];
        let mut s = Simplex::new(&[-1.0, -2.0], &[(0.0, 1.0), (0.0, 1.0)], &rows);
        s.flip_boxed();
        s.solve(100).unwrap();
        assert!((s.objective() + 2.0).abs() < 1e-12, "{}", s.objective());
        assert!(s.value(0).abs() < 1e-12 && (s.value(1) - 1.0).abs() < 1e-12);
    }

    /// With `flip_boxed`, random programs whose variables are all boxed, cold and with a row
    /// added, against microlp: the same optimum, or both without one.
    #[test]
    fn boxed_flips_match_microlp_on_random_programs() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(12);
        let mut solved = 0;
        for case in 0..300 {
            let (cost, mut bounds, mut rows) = random_program(&mut rng);
            for b in &mut bounds {
                if !b.1.is_finite() {
                    b.1 = b.0 + rng.random_range(0.5..3.0);
                }
            }
            let mut s = Simplex::new(&cost, &bounds, &rows);
            s.flip_boxed();
            for round in 0..2 {
                let theirs = microlp_optimum(&cost, &bounds, &rows);
                match (s.solve(10_000), theirs) {
                    (Ok(()), Some(o)) => {
                        assert!(
                            (s.objective() - o).abs() <= 1e-7 * (1.0 + o.abs()),
                            "case {case} round {round}: {} against {o}",
                            s.objective()
                        );
                        solved += 1;
                    }
                    (Err(SimplexError::Infeasible), None) => break,
                    (ours, theirs) => {
                        panic!("case {case} round {round}: {ours:?} against {theirs:?}")
                    }
                }
                add_random_row(&mut rng, &mut s, &mut rows, cost.len());
            }
        }
        assert!(solved > 300, "only {solved} solved");
    }

    /// Random programs, cold and after edits (rows added, a bound changed, a new start), against
    /// microlp: the same optimum, or both without one.
    #[test]
    fn matches_microlp_on_random_programs_cold_and_warm() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let mut solved = 0;
        for case in 0..400 {
            let (cost, bounds, mut rows) = random_program(&mut rng);
            let mut s = Simplex::new(&cost, &bounds, &rows);
            let check = |s: &mut Simplex, rows: &Rows, bounds: &[(f64, f64)], what: &str| {
                let ours = s.solve(10_000);
                let theirs = microlp_optimum(&cost, bounds, rows);
                match (ours, theirs) {
                    (Ok(()), Some(o)) => {
                        assert!(
                            (s.objective() - o).abs() <= 1e-7 * (1.0 + o.abs()),
                            "case {case} {what}: {} against {o}",
                            s.objective()
                        );
                        // Feasible by the rows as written.
                        for (terms, lo, hi) in rows {
                            let a: f64 = terms.iter().map(|&(j, c)| c * s.value(j)).sum();
                            assert!(a >= lo - 1e-7 && a <= hi + 1e-7, "case {case} {what}");
                        }
                        true
                    }
                    (Err(SimplexError::Infeasible | SimplexError::Unbounded), None) => false,
                    (ours, theirs) => panic!("case {case} {what}: {ours:?} against {theirs:?}"),
                }
            };
            if !check(&mut s, &rows, &bounds, "cold") {
                continue;
            }
            solved += 1;
            // A row more, from the basis reached.
            add_random_row(&mut rng, &mut s, &mut rows, cost.len());
            if !check(&mut s, &rows, &bounds, "row added") {
                continue;
            }
            // A bound moved.
            let mut bounds = bounds.clone();
            let j = case % cost.len();
            bounds[j] = (bounds[j].0, bounds[j].0 + rng.random_range(0.1..1.0));
            s.set_bounds(j, bounds[j].0, bounds[j].1);
            if !check(&mut s, &rows, &bounds, "bound moved") {
                continue;
            }
            // A new program started from this one's statuses, with costs changed.
            let statuses: Vec<Status> = (0..cost.len() + rows.len()).map(|v| s.status(v)).collect();
            let cost2: Vec<f64> = cost
                .iter()
                .map(|c| c + rng.random_range(-1.0..1.0))
                .collect();
            let mut t = Simplex::new(&cost2, &bounds, &rows);
            t.set_status(&statuses);
            let theirs = microlp_optimum(&cost2, &bounds, &rows);
            match (t.solve(10_000), theirs) {
                (Ok(()), Some(o)) => assert!((t.objective() - o).abs() <= 1e-7 * (1.0 + o.abs())),
                (Err(SimplexError::Infeasible | SimplexError::Unbounded), None) => {}
                (ours, theirs) => panic!("case {case} restart: {ours:?} against {theirs:?}"),
            }
        }
        assert!(solved > 300, "only {solved} programs had an optimum");
    }

    /// Starts that are no basis at all (statuses drawn at random: too many or too few basic
    /// variables, dependent columns) are repaired and solved to microlp's optimum.
    #[test]
    fn any_start_is_repaired_and_solved() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let mut solved = 0;
        for case in 0..300 {
            let (cost, bounds, rows) = random_program(&mut rng);
            let vars = cost.len() + rows.len();
            let statuses: Vec<Status> = (0..vars)
                .map(|_| match rng.random_range(0..3) {
                    0 => Status::Basic,
                    1 => Status::Lower,
                    _ => Status::Upper,
                })
                .collect();
            let mut s = Simplex::new(&cost, &bounds, &rows);
            s.set_status(&statuses);
            if solves_as_microlp(&mut s, &cost, &bounds, &rows, &format!("case {case}")) {
                solved += 1;
            }
        }
        assert!(solved > 200, "only {solved} programs had an optimum");
    }

    /// A basis with two equal columns: the second is dependent and leaves for a slack.
    #[test]
    fn a_singular_start_is_repaired() {
        // max x + y s.t. x + y <= 2 (row 0), x + y <= 3 (row 1): x and y both basic is singular.
        let rows = vec![
            (vec![(0, 1.0), (1, 1.0)], f64::NEG_INFINITY, 2.0),
            (vec![(0, 1.0), (1, 1.0)], f64::NEG_INFINITY, 3.0),
        ];
        let bounds = [(0.0, f64::INFINITY); 2];
        let mut s = Simplex::new(&[-1.0, -1.0], &bounds, &rows);
        s.set_status(&[Status::Basic, Status::Basic, Status::Upper, Status::Upper]);
        s.solve(100).unwrap();
        assert!((s.objective() + 2.0).abs() < 1e-12);
        let basic = (0..4).filter(|&v| s.status(v) == Status::Basic).count();
        assert_eq!(basic, 2);
    }

    /// max x + 2y s.t. x + y <= 4, x + 3y <= 6: the vertex (3, 1), 5 (by hand).
    #[test]
    fn solves_a_small_program_by_hand() {
        let rows = vec![
            (vec![(0, 1.0), (1, 1.0)], f64::NEG_INFINITY, 4.0),
            (vec![(0, 1.0), (1, 3.0)], f64::NEG_INFINITY, 6.0),
        ];
        let bounds = [(0.0, f64::INFINITY); 2];
        let mut s = Simplex::new(&[-1.0, -2.0], &bounds, &rows);
        s.solve(100).unwrap();
        assert!((s.value(0) - 3.0).abs() < 1e-12 && (s.value(1) - 1.0).abs() < 1e-12);
        // y >= 1.5 from there: x = 1.5, objective 4.5.
        s.add_row(&[(1, 1.0)], 1.5, f64::INFINITY);
        s.solve(100).unwrap();
        assert!((s.objective() + 4.5).abs() < 1e-12);
    }

    /// Beale's program (1955), on which the textbook simplex cycles from the slack basis:
    /// min -3/4 x1 + 150 x2 - 1/50 x3 + 6 x4 s.t. 1/4 x1 - 60 x2 - 1/25 x3 + 9 x4 <= 0,
    /// 1/2 x1 - 90 x2 - 1/50 x3 + 3 x4 <= 0, x3 <= 1, x >= 0. By hand: x = (1/25, 0, 1, 0), the
    /// optimum -1/20. Solved with Bland's rule from the first pivot and with the usual rules.
    #[test]
    fn beales_cycling_program_is_solved_with_and_without_blands_rule() {
        let rows: Rows = vec![
            (
                vec![(0, 0.25), (1, -60.0), (2, -0.04), (3, 9.0)],
                f64::NEG_INFINITY,
                0.0,
            ),
            (
                vec![(0, 0.5), (1, -90.0), (2, -0.02), (3, 3.0)],
                f64::NEG_INFINITY,
                0.0,
            ),
            (vec![(2, 1.0)], f64::NEG_INFINITY, 1.0),
        ];
        let cost = [-0.75, 150.0, -0.02, 6.0];
        for bland_after in [0, DEGENERATE_RUN] {
            let mut s = Simplex::new(&cost, &[(0.0, f64::INFINITY); 4], &rows);
            s.bland_after = bland_after;
            s.solve(100).unwrap();
            assert!((s.objective() + 0.05).abs() < 1e-12, "{}", s.objective());
            let want = [0.04, 0.0, 1.0, 0.0];
            for (j, w) in want.iter().enumerate() {
                assert!((s.value(j) - w).abs() < 1e-12, "x{j} = {}", s.value(j));
            }
        }
    }

    /// Bland's rule from the first pivot ends at microlp's optimum on random programs, cold and
    /// with a row added.
    #[test]
    fn blands_rule_matches_microlp_on_random_programs() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(77);
        let mut solved = 0;
        for case in 0..300 {
            let (cost, bounds, mut rows) = random_program(&mut rng);
            let mut s = Simplex::new(&cost, &bounds, &rows);
            s.bland_after = 0;
            for what in ["cold", "row added"] {
                if what == "row added" {
                    add_random_row(&mut rng, &mut s, &mut rows, cost.len());
                }
                if !solves_as_microlp(
                    &mut s,
                    &cost,
                    &bounds,
                    &rows,
                    &format!("case {case} {what}"),
                ) {
                    break;
                }
                solved += 1;
            }
        }
        assert!(solved > 300, "only {solved} solved");
    }

    /// Duals by hand: min -x1 - x2 s.t. x1 + 2 x2 <= 4, 3 x1 + x2 <= 6, x >= 0 has its optimum
    /// at (1.6, 1.2), both rows tight, and y solves A^T y = c: y = (-0.4, -0.2), b^T y = -2.8.
    #[test]
    fn row_duals_by_hand() {
        let rows: Rows = vec![
            (vec![(0, 1.0), (1, 2.0)], f64::NEG_INFINITY, 4.0),
            (vec![(0, 3.0), (1, 1.0)], f64::NEG_INFINITY, 6.0),
        ];
        let mut s = Simplex::new(&[-1.0, -1.0], &[(0.0, f64::INFINITY); 2], &rows);
        s.solve(100).unwrap();
        let y = s.row_duals();
        assert!(
            (y[0] + 0.4).abs() < 1e-12 && (y[1] + 0.2).abs() < 1e-12,
            "{y:?}"
        );
        assert!((s.objective() + 2.8).abs() < 1e-12);
    }

    /// At every optimum of random programs, the duals meet the optimality conditions written
    /// out here: each nonbasic structural's reduced cost c_j - a_j^T y has the sign its bound
    /// allows, each row with a nonzero dual is at the bound that sign says, and the two
    /// objectives agree (c^T x = sum over rows of y_r times that bound, plus the reduced costs
    /// of structurals at nonzero bounds times their values).
    #[test]
    fn row_duals_meet_the_optimality_conditions() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let mut checked = 0;
        for case in 0..300 {
            let (cost, bounds, rows) = random_program(&mut rng);
            let mut s = Simplex::new(&cost, &bounds, &rows);
            if s.solve(10_000).is_err() {
                continue;
            }
            checked += 1;
            let y = s.row_duals();
            let tol = 1e-7;
            let mut dual_objective = 0.0;
            for (r, (terms, lo, hi)) in rows.iter().enumerate() {
                let activity: f64 = terms.iter().map(|&(j, a)| a * s.value(j)).sum();
                if y[r] > tol {
                    assert!(
                        (activity - lo).abs() < 1e-6,
                        "case {case} row {r}: y > 0 off its lower bound"
                    );
                    dual_objective += y[r] * lo;
                } else if y[r] < -tol {
                    assert!(
                        (activity - hi).abs() < 1e-6,
                        "case {case} row {r}: y < 0 off its upper bound"
                    );
                    dual_objective += y[r] * hi;
                }
            }
            for j in 0..cost.len() {
                let d = cost[j]
                    - rows
                        .iter()
                        .zip(&y)
                        .map(|((terms, _, _), yr)| {
                            terms
                                .iter()
                                .filter(|t| t.0 == j)
                                .map(|t| t.1 * yr)
                                .sum::<f64>()
                        })
                        .sum::<f64>();
                let (x, (lo, hi)) = (s.value(j), bounds[j]);
                if d > tol {
                    assert!(
                        (x - lo).abs() < 1e-6,
                        "case {case} var {j}: d > 0 off its lower bound"
                    );
                } else if d < -tol {
                    assert!(
                        (x - hi).abs() < 1e-6,
                        "case {case} var {j}: d < 0 off its upper bound"
                    );
                }
                dual_objective += d * x;
            }
            assert!(
                (dual_objective - s.objective()).abs() < 1e-6 * (1.0 + s.objective().abs()),
                "case {case}: dual {dual_objective} against primal {}",
                s.objective()
            );
        }
        assert!(checked > 100, "only {checked} programs had an optimum");
    }
}
