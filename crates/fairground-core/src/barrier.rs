//! A primal-dual interior point (Mehrotra's predictor-corrector) for small linear programs
//! whose rows each stand for several identical rows of a larger program.
//!
//! ```text
//! minimise   c'x
//! subject to a_r'x <= b_r   for each row r, of weight rho_r
//!            x_v >= 0       for each variable v, of weight omega_v
//! ```
//!
//! It follows the central path of the weighted barrier c'x - mu sum_r rho_r log(b_r - a_r'x) -
//! mu sum_v omega_v log x_v. Why weights: when a program is symmetric under swapping some of
//! its variables (Gavel's packed max-min over identical jobs, say), its central path stays in
//! the symmetric subspace, where the rows that coincide merge into one row of weight equal to
//! how many there were. The barrier of the merged program with those weights is the big one's
//! restricted to the subspace, so both have the same central path and the small one ends where
//! an interior point on the big one does, at a fraction of the cost.
//!
//! Every row, bounds included, is `A x + s = b` with a slack s > 0 and a multiplier y > 0
//! (clarabel's form, started infeasible); the central path is s_r y_r = rho_r mu. A Newton step
//! reduces to the rows other than bounds: `K = W_c + A_c W_B A_c'` (W = s / y), dense, factored
//! by Cholesky. That suits programs of at most a few hundred rows and any number of variables.
//! There are no free variables: bordering K with one (a max-min level, say) lost the step's
//! accuracy near the end, where K spans twenty orders of magnitude, and the path stalled even
//! with the step refined; a level is >= 0 anyway, and its bound's barrier term vanishes with mu.

/// The program, built variable by variable and row by row.
#[derive(Debug, Default)]
pub struct WeightedLp {
    /// Each variable's cost c_v.
    cost: Vec<f64>,
    /// Each variable's bound weight omega_v.
    bound: Vec<f64>,
    /// Each variable's column in the rows: (row, a_rv).
    column: Vec<Vec<(usize, f64)>>,
    rhs: Vec<f64>,
    weight: Vec<f64>,
}

/// Stops at clarabel's default tolerances (ECOS's): residuals and the gap to 1e-8.
const TOLERANCE: f64 = 1e-8;
const MAX_ITERATIONS: usize = 100;
/// How close to the boundary a step goes.
const STEP_FRACTION: f64 = 0.99;

impl WeightedLp {
    /// A new variable x >= 0 of cost `cost`, its bound of weight `bound`.
    pub fn var(&mut self, cost: f64, bound: f64) -> usize {
        self.cost.push(cost);
        self.bound.push(bound);
        self.column.push(Vec::new());
        self.cost.len() - 1
    }

    /// The row sum_v a_v x_v <= rhs, of weight `weight`; each variable at most once.
    pub fn le(&mut self, terms: &[(usize, f64)], rhs: f64, weight: f64) {
        let r = self.rhs.len();
        for &(v, a) in terms {
            if a != 0.0 {
                self.column[v].push((r, a));
            }
        }
        self.rhs.push(rhs);
        self.weight.push(weight);
    }

    /// The point where the path stops, once the residuals and the gap are within [`TOLERANCE`]
    /// (relative to the data's size), or a message saying how it ended. Each x_v is read from
    /// its bound's slack, so it is > 0.
    pub fn minimise(&self) -> Result<Vec<f64>, String> {
        let mut state = State::start(self);
        for _ in 0..MAX_ITERATIONS {
            let residuals = state.residuals(self);
            if residuals.converged(self) {
                // Each x_v >= 0 row's slack, which equals x_v to the tolerance and is > 0: an
                // interior point's crumbs stay crumbs, never -1e-11.
                state.s.truncate(self.vars());
                return Ok(state.s);
            }
            let normal = Normal::factor(self, &state);
            // Predictor: the affine step (sigma = 0).
            let r_c: Vec<f64> = state.s.iter().zip(&state.y).map(|(s, y)| s * y).collect();
            let affine = normal.step(self, &state, &residuals, &r_c);
            let a = state.max_step(&affine).min(1.0);
            let mu = dot(&state.s, &state.y) / state.total_weight;
            let mu_affine = state
                .s
                .iter()
                .zip(&affine.ds)
                .zip(state.y.iter().zip(&affine.dy))
                .map(|((s, ds), (y, dy))| (s + a * ds) * (y + a * dy))
                .sum::<f64>()
                / state.total_weight;
            let sigma = (mu_affine / mu).clamp(0.0, 1.0).powi(3);
            // Corrector: towards sigma mu on the path, with the affine step's second-order term.
            let r_c: Vec<f64> = (0..state.s.len())
                .map(|r| {
                    state.s[r] * state.y[r] + affine.ds[r] * affine.dy[r]
                        - sigma * mu * state.rho[r]
                })
                .collect();
            let step = normal.step(self, &state, &residuals, &r_c);
            // One step length for both sides: the residuals then shrink as fast as the gap, so
            // the gap cannot close while the point is still infeasible.
            let alpha = (STEP_FRACTION * state.max_step(&step)).min(1.0);
            axpy(&mut state.x, alpha, &step.dx);
            axpy(&mut state.s, alpha, &step.ds);
            axpy(&mut state.y, alpha, &step.dy);
            if !state
                .x
                .iter()
                .chain(&state.s)
                .chain(&state.y)
                .all(|v| v.is_finite())
            {
                return Err("the interior point's iterates stopped being finite".into());
            }
        }
        Err(format!(
            "the interior point did not converge in {MAX_ITERATIONS} iterations"
        ))
    }

    fn vars(&self) -> usize {
        self.cost.len()
    }

    fn rows(&self) -> usize {
        self.rhs.len()
    }
}

/// Iterates. Slacks and multipliers hold the bound rows first (slot v is x_v >= 0), then the
/// program's rows (slot `vars + r`).
struct State {
    x: Vec<f64>,
    s: Vec<f64>,
    y: Vec<f64>,
    /// Each slack's weight.
    rho: Vec<f64>,
    total_weight: f64,
}

impl State {
    /// x = 0, every slack 1, every multiplier its row's weight: on the path at mu = 1 but for
    /// the residuals.
    fn start(lp: &WeightedLp) -> Self {
        let rho: Vec<f64> = lp.bound.iter().chain(&lp.weight).copied().collect();
        State {
            x: vec![0.0; lp.vars()],
            s: vec![1.0; rho.len()],
            y: rho.clone(),
            total_weight: rho.iter().sum::<f64>().max(f64::MIN_POSITIVE),
            rho,
        }
    }

    /// r_d = c + A'y, r_p = A x + s - b.
    fn residuals(&self, lp: &WeightedLp) -> Residuals {
        let n = lp.vars();
        let dual: Vec<f64> = (0..n)
            .map(|v| {
                lp.cost[v] - self.y[v]
                    + lp.column[v]
                        .iter()
                        .map(|&(r, a)| a * self.y[n + r])
                        .sum::<f64>()
            })
            .collect();
        let mut primal: Vec<f64> = self.s.clone();
        for (v, col) in lp.column.iter().enumerate() {
            primal[v] -= self.x[v];
            for &(r, a) in col {
                primal[n + r] += a * self.x[v];
            }
        }
        for (r, b) in lp.rhs.iter().enumerate() {
            primal[n + r] -= b;
        }
        Residuals {
            dual,
            primal,
            cost: dot(&lp.cost, &self.x),
            gap: dot(&self.s, &self.y),
        }
    }

    /// The largest step, up to 1 / STEP_FRACTION, keeping every slack and multiplier >= 0.
    fn max_step(&self, step: &Step) -> f64 {
        self.s
            .iter()
            .zip(&step.ds)
            .chain(self.y.iter().zip(&step.dy))
            .filter(|&(_, &d)| d < 0.0)
            .map(|(v, d)| -v / d)
            .fold(1.0 / STEP_FRACTION, f64::min)
    }
}

struct Residuals {
    dual: Vec<f64>,
    primal: Vec<f64>,
    /// c'x.
    cost: f64,
    /// s'y, the duality gap once feasible.
    gap: f64,
}

impl Residuals {
    fn converged(&self, lp: &WeightedLp) -> bool {
        let b = norm_inf(&lp.rhs);
        let c = norm_inf(&lp.cost);
        norm_inf(&self.primal) <= TOLERANCE * (1.0 + b)
            && norm_inf(&self.dual) <= TOLERANCE * (1.0 + c)
            && self.gap <= TOLERANCE * self.cost.abs().max(1.0)
    }
}

/// A Newton step.
struct Step {
    dx: Vec<f64>,
    ds: Vec<f64>,
    dy: Vec<f64>,
}

/// K = W_c + A_c W_B A_c' factored (lower Cholesky, row-major).
struct Normal {
    chol: Vec<f64>,
    /// W = s / y per slack.
    w: Vec<f64>,
}

impl Normal {
    fn factor(lp: &WeightedLp, st: &State) -> Self {
        let (n, m) = (lp.vars(), lp.rows());
        let w: Vec<f64> = st.s.iter().zip(&st.y).map(|(s, y)| s / y).collect();
        let mut k = vec![0.0; m * m];
        for r in 0..m {
            k[r * m + r] = w[n + r];
        }
        for (col, wv) in lp.column.iter().zip(&w) {
            for &(r, a) in col {
                for &(q, b) in col.iter().filter(|&&(q, _)| q <= r) {
                    k[r * m + q] += wv * a * b;
                }
            }
        }
        cholesky(&mut k, m);
        Normal { chol: k, w }
    }

    /// Solves [0 A'; A -W] [dx; dy] = [p; q] with p = -r_d, q = -r_p + r_c / y, then
    /// ds = -(r_c + s dy) / y. (Refining the solution against the full system changed nothing
    /// on Gavel's traces once the program had no free variable, so it is not done.)
    fn step(&self, lp: &WeightedLp, st: &State, res: &Residuals, r_c: &[f64]) -> Step {
        let p: Vec<f64> = res.dual.iter().map(|d| -d).collect();
        let q: Vec<f64> = (0..st.s.len())
            .map(|r| -res.primal[r] + r_c[r] / st.y[r])
            .collect();
        let (dx, dy) = self.solve_kkt(lp, &p, &q);
        let ds: Vec<f64> = (0..st.s.len())
            .map(|r| -(r_c[r] + st.s[r] * dy[r]) / st.y[r])
            .collect();
        Step { dx, ds, dy }
    }

    /// [0 A'; A -W] [dx; dy] = [p; q] through K. A bound row gives dy_v = -(q_v + dx_v) / W_v;
    /// then x_v's column gives dx_v = W_v (p_v - (A_c' dy_c)_v) - q_v, and the program's rows
    /// K dy_c = A_c (W_B p - q_B) - q_c.
    fn solve_kkt(&self, lp: &WeightedLp, p: &[f64], q: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let (n, m) = (lp.vars(), lp.rows());
        let mut dy_c: Vec<f64> = q[n..].iter().map(|v| -v).collect();
        for (v, col) in lp.column.iter().enumerate() {
            let u = self.w[v] * p[v] - q[v];
            for &(r, a) in col {
                dy_c[r] += a * u;
            }
        }
        solve(&self.chol, m, &mut dy_c);
        let mut dx = vec![0.0; n];
        let mut dy = vec![0.0; q.len()];
        for (v, col) in lp.column.iter().enumerate() {
            let at_dy: f64 = col.iter().map(|&(r, a)| a * dy_c[r]).sum();
            dx[v] = self.w[v] * (p[v] - at_dy) - q[v];
            dy[v] = -(q[v] + dx[v]) / self.w[v];
        }
        dy[n..].copy_from_slice(&dy_c);
        (dx, dy)
    }
}

/// In-place lower Cholesky of the n x n row-major matrix (its lower triangle). A pivot that
/// round-off has left at or below 0 is replaced by a huge one, which drops that direction from
/// the step rather than failing (the usual guard in interior-point codes).
fn cholesky(a: &mut [f64], n: usize) {
    for j in 0..n {
        let d = a[j * n + j] - a[j * n..j * n + j].iter().map(|v| v * v).sum::<f64>();
        let d = if d > 1e-300 { d.sqrt() } else { 1e150 };
        a[j * n + j] = d;
        let (head, tail) = a.split_at_mut((j + 1) * n);
        let pivot = &head[j * n..j * n + j];
        for row in tail.chunks_exact_mut(n) {
            let dot: f64 = row[..j].iter().zip(pivot).map(|(x, y)| x * y).sum();
            row[j] = (row[j] - dot) / d;
        }
    }
}

/// Solves L L' x = b in place, L from [`cholesky`].
fn solve(l: &[f64], n: usize, b: &mut [f64]) {
    for i in 0..n {
        let dot: f64 = l[i * n..i * n + i]
            .iter()
            .zip(&b[..i])
            .map(|(x, y)| x * y)
            .sum();
        b[i] = (b[i] - dot) / l[i * n + i];
    }
    for i in (0..n).rev() {
        let dot: f64 = (i + 1..n).map(|k| l[k * n + i] * b[k]).sum();
        b[i] = (b[i] - dot) / l[i * n + i];
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn axpy(y: &mut [f64], alpha: f64, x: &[f64]) {
    y.iter_mut().zip(x).for_each(|(y, x)| *y += alpha * x);
}

fn norm_inf(v: &[f64]) -> f64 {
    v.iter().fold(0.0f64, |m, x| m.max(x.abs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// maximise x + 2y s.t. x + y <= 4, x <= 3, y <= 2 (hand-solved: y = 2, x = 2, value 6).
    #[test]
    fn hand_solved_vertex() {
        let mut lp = WeightedLp::default();
        let x = lp.var(-1.0, 1.0);
        let y = lp.var(-2.0, 1.0);
        lp.le(&[(x, 1.0), (y, 1.0)], 4.0, 1.0);
        lp.le(&[(x, 1.0)], 3.0, 1.0);
        lp.le(&[(y, 1.0)], 2.0, 1.0);
        let v = lp.minimise().unwrap();
        assert!(
            (v[x] - 2.0).abs() < 1e-6 && (v[y] - 2.0).abs() < 1e-6,
            "{v:?}"
        );
    }

    /// The reduction's reason: a program with a variable's bound of weight 3 ends where the
    /// program with three copies of that variable ends (each copy at the merged value). Here
    /// maximise x1 + x2 s.t. x1 + x2 <= 1, whose optima are a segment: an interior point ends
    /// inside it, near the centre weighted by the bounds (1/4 for x1, the exact centre, is only
    /// reached as mu -> 0 on the path), and the merged and copied programs end at the same point.
    #[test]
    fn weights_are_copies_of_rows() {
        let mut lp = WeightedLp::default();
        let x1 = lp.var(-1.0, 1.0);
        let x2 = lp.var(-1.0, 3.0);
        lp.le(&[(x1, 1.0), (x2, 1.0)], 1.0, 1.0);
        let v = lp.minimise().unwrap();
        assert!((v[x1] + v[x2] - 1.0).abs() < 1e-7, "{v:?}");
        assert!(v[x1] > 0.1 && v[x1] < 0.4, "{v:?}");
        // Copied: x2 as three variables p, each a third of x2's cost and of its row entry.
        let mut big = WeightedLp::default();
        let y1 = big.var(-1.0, 1.0);
        let parts: Vec<usize> = (0..3).map(|_| big.var(-1.0 / 3.0, 1.0)).collect();
        let mut row = vec![(y1, 1.0)];
        row.extend(parts.iter().map(|&p| (p, 1.0 / 3.0)));
        big.le(&row, 1.0, 1.0);
        let u = big.minimise().unwrap();
        assert!((u[y1] - v[x1]).abs() < 1e-7, "{u:?} vs {v:?}");
        for &p in &parts {
            assert!((u[p] - v[x2]).abs() < 1e-7, "{u:?} vs {v:?}");
        }
        // Without the weight the point moves: the weights are what make the programs agree.
        let mut plain = WeightedLp::default();
        let z1 = plain.var(-1.0, 1.0);
        let z2 = plain.var(-1.0, 1.0);
        plain.le(&[(z1, 1.0), (z2, 1.0)], 1.0, 1.0);
        let w = plain.minimise().unwrap();
        assert!((w[z1] - v[x1]).abs() > 0.1, "{w:?} vs {v:?}");
    }

    /// An infeasible program ends with a message, not a point.
    #[test]
    fn infeasible_program_fails() {
        let mut lp = WeightedLp::default();
        let x = lp.var(-1.0, 1.0);
        lp.le(&[(x, -1.0)], -2.0, 1.0);
        lp.le(&[(x, 1.0)], 1.0, 1.0);
        assert!(lp.minimise().is_err());
    }

    /// A program with rows but no variables (a cluster with no job in it) ends at once, and
    /// one with nothing at all too.
    #[test]
    fn empty_programs_end() {
        let mut lp = WeightedLp::default();
        lp.le(&[], 4.0, 1.0);
        assert_eq!(lp.minimise().unwrap(), Vec::<f64>::new());
        assert_eq!(WeightedLp::default().minimise().unwrap(), Vec::<f64>::new());
    }
}
