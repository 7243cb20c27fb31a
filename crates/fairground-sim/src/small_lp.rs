//! A dense simplex for the tenant split's small LPs ([`crate::tenants::TenantJobs::split`]), each
//! answer certified optimal before it is used.
//!
//! Why not microlp, the project's LP layer: a split has a few dozen rows (a bundle row per GPU
//! type, a cap and a floor per class of jobs) and is solved thousands of times per run. microlp
//! is made for sparse models; on these it spends most of its time in its sparse LU and its dual
//! phase (every floor is broken at y = 0), about 0.3-0.7 ms a solve (BENCHMARKS.md, "Tenants in
//! the simulator"). A dense tableau of this size pivots in a few microseconds.
//!
//! Why it can be trusted: [`DenseLp::solve`] returns an answer only with its proof. The
//! solution x is checked against every row, the dual y read from the final tableau is checked
//! to be feasible for the dual program (y >= 0, A^T y >= c), and the two objectives must agree
//! (c.x = b.y, weak duality then makes x optimal), each to a tolerance relative to the sizes
//! involved. Anything else (infeasible, unbounded, a numerical failure, too many pivots) is
//! `None`, and the caller solves the same LP with microlp.
//!
//! The method is the textbook two-phase simplex: rows `a.x <= b` with b < 0 get an artificial
//! variable, phase 1 drives the artificials' sum to zero, phase 2 maximises c.x. Entering
//! columns by the largest reduced cost (Dantzig), by the lowest index once pivots stop making
//! progress (Bland's rule, which cannot cycle); leaving rows by the ratio test, ties to the
//! lowest basic index.

/// Pivot elements and reduced costs smaller than this count as zero.
const EPS: f64 = 1e-11;

/// The certificate's tolerance, relative to the sizes of the numbers in each check.
const CERTIFY: f64 = 1e-7;

/// maximise c.x subject to rows a.x <= b and x >= 0, dense.
#[derive(Debug, Clone)]
pub struct DenseLp {
    objective: Vec<f64>,
    rows: Vec<(Vec<f64>, f64)>,
}

/// A certified optimum: x and c.x.
#[derive(Debug, Clone)]
pub struct DenseSolution {
    pub x: Vec<f64>,
    pub objective: f64,
}

impl DenseLp {
    /// maximise `objective` . x over x >= 0 (one entry per variable).
    pub fn maximize(objective: Vec<f64>) -> DenseLp {
        DenseLp {
            objective,
            rows: Vec::new(),
        }
    }

    /// a.x <= b (`a` one coefficient per variable).
    pub fn le(&mut self, a: Vec<f64>, b: f64) {
        debug_assert_eq!(a.len(), self.objective.len());
        self.rows.push((a, b));
    }

    /// a.x >= b, kept as -a.x <= -b.
    pub fn ge(&mut self, a: Vec<f64>, b: f64) {
        self.le(a.into_iter().map(|v| -v).collect(), -b);
    }

    /// The certified optimum, or `None` (no optimum, or none this method could prove).
    pub fn solve(&self) -> Option<DenseSolution> {
        let numbers = self.objective.iter().chain(
            self.rows
                .iter()
                .flat_map(|(a, b)| a.iter().chain(std::iter::once(b))),
        );
        if numbers.clone().any(|v| !v.is_finite()) {
            return None;
        }
        let mut tableau = Tableau::new(self);
        tableau.phase_one()?;
        tableau.phase_two(&self.objective)?;
        let (x, y) = tableau.primal_and_dual();
        self.certify(&x, &y).then(|| DenseSolution {
            objective: dot(&self.objective, &x),
            x,
        })
    }

    /// Whether x is feasible, y dual feasible and c.x = b.y, each to [`CERTIFY`] relative.
    fn certify(&self, x: &[f64], y: &[f64]) -> bool {
        let primal = x.iter().all(|&v| v >= -CERTIFY)
            && self.rows.iter().all(|(a, b)| {
                let size: f64 =
                    1.0 + b.abs() + a.iter().zip(x).map(|(a, x)| (a * x).abs()).sum::<f64>();
                dot(a, x) <= b + CERTIFY * size
            });
        let dual = y.iter().all(|&v| v >= -CERTIFY)
            && self.objective.iter().enumerate().all(|(j, &c)| {
                let (sum, size) = self
                    .rows
                    .iter()
                    .zip(y)
                    .fold((0.0, 1.0 + c.abs()), |(s, z), ((a, _), y)| {
                        (s + a[j] * y, z + (a[j] * y).abs())
                    });
                sum >= c - CERTIFY * size
            });
        let primal_value = dot(&self.objective, x);
        let dual_value: f64 = self.rows.iter().zip(y).map(|((_, b), y)| b * y).sum();
        let size = 1.0
            + self
                .objective
                .iter()
                .zip(x)
                .map(|(c, x)| (c * x).abs())
                .sum::<f64>()
            + self
                .rows
                .iter()
                .zip(y)
                .map(|((_, b), y)| (b * y).abs())
                .sum::<f64>();
        primal && dual && (primal_value - dual_value).abs() <= CERTIFY * size
    }
}

/// The simplex tableau: row i reads basic[i] = rhs_i - sum_j t[i][j] x_j over the non-basic j.
/// Columns: the n variables, one slack per row (s_i, so that a_i.x + s_i = b_i), then one
/// artificial per row with b_i < 0 (that row is kept negated, -a_i.x - s_i + art = -b_i).
struct Tableau {
    n: usize,
    m: usize,
    /// Columns before the artificials (n + m); artificials never re-enter.
    real: usize,
    width: usize,
    /// m rows of `width` coefficients then the right-hand side.
    t: Vec<f64>,
    basic: Vec<usize>,
    /// Reduced costs d_j = c_B . column_j - c_j, then the objective's value.
    d: Vec<f64>,
}

impl Tableau {
    fn new(lp: &DenseLp) -> Tableau {
        let n = lp.objective.len();
        let m = lp.rows.len();
        let artificials = lp.rows.iter().filter(|(_, b)| *b < 0.0).count();
        let real = n + m;
        let width = real + artificials;
        let stride = width + 1;
        let mut t = vec![0.0; m * stride];
        let mut basic = Vec::with_capacity(m);
        let mut next_artificial = real;
        for (i, (a, b)) in lp.rows.iter().enumerate() {
            let row = &mut t[i * stride..(i + 1) * stride];
            let sign = if *b < 0.0 { -1.0 } else { 1.0 };
            for (cell, a) in row.iter_mut().zip(a) {
                *cell = sign * a;
            }
            row[n + i] = sign;
            row[width] = sign * b;
            if *b < 0.0 {
                row[next_artificial] = 1.0;
                basic.push(next_artificial);
                next_artificial += 1;
            } else {
                basic.push(n + i);
            }
        }
        Tableau {
            n,
            m,
            real,
            width,
            t,
            basic,
            d: vec![0.0; width + 1],
        }
    }

    fn at(&self, i: usize, j: usize) -> f64 {
        self.t[i * (self.width + 1) + j]
    }

    fn rhs(&self, i: usize) -> f64 {
        self.at(i, self.width)
    }

    /// d from scratch for costs `cost(j)`.
    fn price(&mut self, cost: impl Fn(usize) -> f64) {
        for j in 0..=self.width {
            let sum: f64 = (0..self.m)
                .map(|i| cost(self.basic[i]) * self.at(i, j))
                .sum();
            self.d[j] = if j == self.width { sum } else { sum - cost(j) };
        }
    }

    /// Phase 1: maximise minus the artificials' sum; `None` if it stays below zero.
    fn phase_one(&mut self) -> Option<()> {
        if self.width == self.real {
            return Some(());
        }
        let real = self.real;
        self.price(|j| if j >= real { -1.0 } else { 0.0 });
        self.iterate(self.width)?;
        let scale = 1.0 + (0..self.m).map(|i| self.rhs(i).abs()).sum::<f64>();
        if -self.d[self.width] > CERTIFY * scale {
            return None; // infeasible
        }
        // Artificials left in the basis are at zero: swap each for a real column of its row.
        for i in 0..self.m {
            if self.basic[i] >= real {
                if let Some(j) = (0..real).find(|&j| self.at(i, j).abs() > 1e-9) {
                    self.pivot(i, j);
                }
                // else the row is redundant: its artificial stays basic at zero.
            }
        }
        Some(())
    }

    /// Phase 2: maximise c.x (the slacks cost nothing).
    fn phase_two(&mut self, c: &[f64]) -> Option<()> {
        let n = self.n;
        self.price(|j| if j < n { c[j] } else { 0.0 });
        self.iterate(self.real)
    }

    /// Pivots until no column below `enter_below` has a negative reduced cost. `None` if
    /// unbounded or out of pivots.
    fn iterate(&mut self, enter_below: usize) -> Option<()> {
        let limit = 50 * (self.m + self.width);
        let mut stalled = 0;
        for _ in 0..limit {
            let bland = stalled > self.m;
            let entering = if bland {
                (0..enter_below).find(|&j| self.d[j] < -EPS)
            } else {
                (0..enter_below)
                    .filter(|&j| self.d[j] < -EPS)
                    .min_by(|&a, &b| self.d[a].total_cmp(&self.d[b]))
            };
            let Some(j) = entering else {
                return Some(());
            };
            let mut leaving: Option<(usize, f64)> = None;
            for i in 0..self.m {
                let a = self.at(i, j);
                if a > EPS {
                    let ratio = self.rhs(i).max(0.0) / a;
                    let better = match leaving {
                        None => true,
                        Some((k, best)) => {
                            ratio < best - 1e-12 * best.abs().max(1e-12)
                                || (ratio <= best + 1e-12 * best.abs().max(1e-12)
                                    && self.basic[i] < self.basic[k])
                        }
                    };
                    if better {
                        leaving = Some((i, ratio));
                    }
                }
            }
            let (i, ratio) = leaving?; // no row limits the column: unbounded
            stalled = if ratio > 1e-12 { 0 } else { stalled + 1 };
            self.pivot(i, j);
        }
        None
    }

    fn pivot(&mut self, r: usize, j: usize) {
        let stride = self.width + 1;
        let p = self.at(r, j);
        for v in &mut self.t[r * stride..(r + 1) * stride] {
            *v /= p;
        }
        let (before, rest) = self.t.split_at_mut(r * stride);
        let (pivot_row, after) = rest.split_at_mut(stride);
        for row in before
            .chunks_exact_mut(stride)
            .chain(after.chunks_exact_mut(stride))
        {
            let f = row[j];
            if f != 0.0 {
                for (v, p) in row.iter_mut().zip(pivot_row.iter()) {
                    *v -= f * p;
                }
                row[j] = 0.0;
            }
        }
        let f = self.d[j];
        if f != 0.0 {
            for (v, p) in self.d.iter_mut().zip(pivot_row.iter()) {
                *v -= f * p;
            }
            self.d[j] = 0.0;
        }
        self.basic[r] = j;
    }

    /// x (the basic variables' values, the rest zero) and the dual y: y_i is the reduced cost
    /// of row i's slack (in a negated row the slack's column is negated too, and so is the
    /// row's multiplier, so the two signs cancel).
    fn primal_and_dual(&self) -> (Vec<f64>, Vec<f64>) {
        let mut x = vec![0.0; self.n];
        for i in 0..self.m {
            if self.basic[i] < self.n {
                x[self.basic[i]] = self.rhs(i).max(0.0);
            }
        }
        let y = (0..self.m).map(|i| self.d[self.n + i]).collect();
        (x, y)
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// max 3x + 2y, x + y <= 4, x + 3y <= 6, x <= 3: the optimum is (3, 1), 11.
    #[test]
    fn solves_a_small_lp_by_hand() {
        let mut lp = DenseLp::maximize(vec![3.0, 2.0]);
        lp.le(vec![1.0, 1.0], 4.0);
        lp.le(vec![1.0, 3.0], 6.0);
        lp.le(vec![1.0, 0.0], 3.0);
        let s = lp.solve().unwrap();
        assert!((s.objective - 11.0).abs() < 1e-12);
        assert!((s.x[0] - 3.0).abs() < 1e-12 && (s.x[1] - 1.0).abs() < 1e-12);
    }

    /// Lower bounds (phase 1): max -x - y, x + y >= 2, x >= 0.5, y <= 1.2: any point of x + y = 2
    /// with x >= 0.8; the optimum -2.
    #[test]
    fn finds_a_start_where_zero_is_infeasible() {
        let mut lp = DenseLp::maximize(vec![-1.0, -1.0]);
        lp.ge(vec![1.0, 1.0], 2.0);
        lp.ge(vec![1.0, 0.0], 0.5);
        lp.le(vec![0.0, 1.0], 1.2);
        let s = lp.solve().unwrap();
        assert!((s.objective + 2.0).abs() < 1e-12);
        assert!(s.x[0] >= 0.8 - 1e-12 && (s.x[0] + s.x[1] - 2.0).abs() < 1e-12);
    }

    #[test]
    fn infeasible_unbounded_and_nan_give_none() {
        let mut infeasible = DenseLp::maximize(vec![1.0]);
        infeasible.le(vec![1.0], 1.0);
        infeasible.ge(vec![1.0], 2.0);
        assert!(infeasible.solve().is_none());
        let mut unbounded = DenseLp::maximize(vec![1.0, 0.0]);
        unbounded.le(vec![0.0, 1.0], 1.0);
        assert!(unbounded.solve().is_none());
        let mut nan = DenseLp::maximize(vec![1.0]);
        nan.le(vec![f64::NAN], 1.0);
        assert!(nan.solve().is_none());
    }

    /// A redundant row (twice another) and a degenerate vertex (three rows through (1, 1)).
    #[test]
    fn redundant_and_degenerate_rows() {
        let mut lp = DenseLp::maximize(vec![1.0, 1.0]);
        lp.ge(vec![1.0, 1.0], 2.0);
        lp.ge(vec![2.0, 2.0], 4.0);
        lp.le(vec![1.0, 0.0], 1.0);
        lp.le(vec![0.0, 1.0], 1.0);
        lp.le(vec![1.0, 1.0], 2.0);
        let s = lp.solve().unwrap();
        assert!((s.objective - 2.0).abs() < 1e-12);
    }

    /// Against microlp (the project's LP layer) on random dense LPs with mixed rows, feasible
    /// by construction (every row holds at a random point x0).
    #[test]
    fn agrees_with_microlp_on_random_lps() {
        use fairground_core::lp::Lp;
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        for _ in 0..300 {
            let n = rng.random_range(1..8);
            let m = rng.random_range(1..10);
            let x0: Vec<f64> = (0..n).map(|_| rng.random_range(0.0..3.0)).collect();
            let c: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..4.0)).collect();
            let mut dense = DenseLp::maximize(c.clone());
            let mut lp = Lp::maximize();
            let vars: Vec<_> = c.iter().map(|&c| lp.var(c)).collect();
            for _ in 0..m {
                let a: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..3.0)).collect();
                let at = dot(&a, &x0);
                if rng.random_bool(0.4) {
                    let b = at - rng.random_range(0.0..1.0);
                    dense.ge(a.clone(), b);
                    lp.ge(vars.iter().zip(&a).map(|(&v, &a)| (v, a)), b);
                } else {
                    let b = at + rng.random_range(0.0..1.0);
                    dense.le(a.clone(), b);
                    lp.le(vars.iter().zip(&a).map(|(&v, &a)| (v, a)), b);
                }
            }
            // A box keeps it bounded.
            for j in 0..n {
                let mut a = vec![0.0; n];
                a[j] = 1.0;
                dense.le(a, 10.0);
                lp.le([(vars[j], 1.0)], 10.0);
            }
            let reference = lp.solve().unwrap().objective();
            let s = dense.solve().expect("a certified optimum");
            assert!(
                (s.objective - reference).abs() <= 1e-7 * reference.abs().max(1.0),
                "{} against microlp's {reference}: {dense:?}",
                s.objective
            );
        }
    }
}
