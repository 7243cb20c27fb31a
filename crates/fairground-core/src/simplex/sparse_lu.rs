//! Sparse LU of the basis's core (the kept simplex's rows and columns that are not slacks):
//! Gaussian elimination on the sparse matrix, pivots chosen by Markowitz's rule with a
//! threshold (Duff, Erisman and Reid, *Direct methods for sparse matrices*, 1986, chapter 7).
//!
//! Why not dense: oef-coop's static program at 500 tenants has a core of about 570 columns and
//! needs tens of thousands of pivots; a dense solve costs k^2 per pivot, while its rows hold 2
//! to 16 entries (an envy row touches two tenants), so the factors stay nearly as sparse.

/// A pivot's entry must be at least this share of the largest in its column (stability).
const THRESHOLD: f64 = 0.1;
/// Columns whose cheapest entries are compared before a pivot is taken.
const SEARCH: usize = 4;

/// One elimination step: the pivot (row, column, value), the multiples of the pivot row taken
/// from the rows below it, and the pivot row's other entries (columns pivoted later).
#[derive(Debug, Clone)]
struct Step {
    row: usize,
    col: usize,
    pivot: f64,
    lower: Vec<(usize, f64)>,
    upper: Vec<(usize, f64)>,
}

/// The factors of a square matrix, as the elimination steps that made them.
#[derive(Debug, Clone, Default)]
pub(super) struct SparseLu {
    steps: Vec<Step>,
}

impl SparseLu {
    /// Factorises the k x k matrix given by its columns (row, value). A column whose entries
    /// are all at most `tiny` times its largest entry at the start (at least 1) is dependent:
    /// the pairs (column, row) of the columns and rows left without a pivot are returned
    /// instead.
    pub(super) fn new(
        k: usize,
        cols: &[Vec<(usize, f64)>],
        tiny: f64,
    ) -> Result<Self, Vec<(usize, usize)>> {
        let mut active = Active::new(k, cols);
        let mut steps = Vec::with_capacity(k);
        while steps.len() < k {
            let Some((r, c)) = active.choose(tiny) else {
                break;
            };
            steps.push(active.eliminate(r, c));
        }
        if steps.len() < k {
            let cols_left = (0..k).filter(|&c| !active.col_done[c]);
            let rows_left = (0..k).filter(|&r| !active.row_done[r]);
            return Err(cols_left.zip(rows_left).collect());
        }
        Ok(SparseLu { steps })
    }

    /// x with A x = b (b by row, x by column).
    pub(super) fn solve(&self, mut b: Vec<f64>) -> Vec<f64> {
        for s in &self.steps {
            let br = b[s.row];
            if br != 0.0 {
                for &(i, l) in &s.lower {
                    b[i] -= l * br;
                }
            }
        }
        let mut x = vec![0.0; b.len()];
        for s in self.steps.iter().rev() {
            let rest: f64 = s.upper.iter().map(|&(c, u)| u * x[c]).sum();
            x[s.col] = (b[s.row] - rest) / s.pivot;
        }
        x
    }

    /// y with A^T y = h (h by column, y by row).
    pub(super) fn solve_transpose(&self, mut h: Vec<f64>) -> Vec<f64> {
        let mut y = vec![0.0; h.len()];
        for s in &self.steps {
            let v = h[s.col] / s.pivot;
            y[s.row] = v;
            if v != 0.0 {
                for &(c, u) in &s.upper {
                    h[c] -= u * v;
                }
            }
        }
        for s in self.steps.iter().rev() {
            let sum: f64 = s.lower.iter().map(|&(i, l)| l * y[i]).sum();
            y[s.row] -= sum;
        }
        y
    }
}

/// The part of the matrix not yet eliminated, kept by rows and, for each column, the rows
/// holding it.
struct Active {
    k: usize,
    rows: Vec<Vec<(usize, f64)>>,
    /// Rows holding each column (kept exact: fill adds, elimination removes).
    holders: Vec<Vec<usize>>,
    /// Each column's largest entry at the start, at least 1.
    scale: Vec<f64>,
    col_done: Vec<bool>,
    row_done: Vec<bool>,
    /// Work space: where a column sits in the row being updated.
    at: Vec<usize>,
}

impl Active {
    fn new(k: usize, cols: &[Vec<(usize, f64)>]) -> Self {
        let mut rows: Vec<Vec<(usize, f64)>> = vec![Vec::new(); k];
        let mut holders: Vec<Vec<usize>> = vec![Vec::new(); k];
        let mut scale = vec![1.0f64; k];
        for (c, col) in cols.iter().enumerate() {
            for &(r, a) in col {
                if a != 0.0 {
                    rows[r].push((c, a));
                    holders[c].push(r);
                    scale[c] = scale[c].max(a.abs());
                }
            }
        }
        Active {
            k,
            rows,
            holders,
            scale,
            col_done: vec![false; k],
            row_done: vec![false; k],
            at: vec![usize::MAX; k],
        }
    }

    fn value(&self, r: usize, c: usize) -> f64 {
        self.rows[r].iter().find(|e| e.0 == c).map_or(0.0, |e| e.1)
    }

    /// The few columns held by the fewest rows, fewest first (a usable column singleton alone).
    fn fewest_held(&self, tiny: f64) -> Vec<usize> {
        let held = |c: usize| self.holders[c].len();
        let mut fewest: Vec<usize> = Vec::with_capacity(SEARCH + 1);
        for c in (0..self.k).filter(|&c| !self.col_done[c] && held(c) > 0) {
            let count = held(c);
            if fewest.len() == SEARCH && count >= held(fewest[SEARCH - 1]) {
                continue;
            }
            let at = fewest.partition_point(|&f| held(f) <= count);
            fewest.insert(at, c);
            fewest.truncate(SEARCH);
            if count == 1
                && held(fewest[0]) == 1
                && self.value(self.holders[c][0], c).abs() > tiny * self.scale[c]
            {
                return vec![c];
            }
        }
        fewest
    }

    /// The next pivot (row, column): among the fewest-held columns, the entry within the
    /// threshold of its column's largest with the least Markowitz cost (row count - 1) x
    /// (column count - 1); failing that, any column's largest entry that is not too small.
    fn choose(&self, tiny: f64) -> Option<(usize, usize)> {
        let mut best: Option<(usize, usize, usize)> = None; // (cost, row, col)
        for c in self.fewest_held(tiny) {
            let holders = &self.holders[c];
            let largest = holders
                .iter()
                .map(|&r| self.value(r, c).abs())
                .fold(0.0, f64::max);
            if largest <= tiny * self.scale[c] {
                continue;
            }
            for &r in holders {
                if self.value(r, c).abs() < THRESHOLD * largest {
                    continue;
                }
                let cost = (self.rows[r].len() - 1) * (holders.len() - 1);
                if best.is_none_or(|(b, _, _)| cost < b) {
                    best = Some((cost, r, c));
                }
            }
        }
        if let Some((_, r, c)) = best {
            return Some((r, c));
        }
        (0..self.k).filter(|&c| !self.col_done[c]).find_map(|c| {
            let (r, largest) = self.holders[c]
                .iter()
                .map(|&r| (r, self.value(r, c).abs()))
                .fold((usize::MAX, 0.0), |m, e| if e.1 > m.1 { e } else { m });
            (largest > tiny * self.scale[c]).then_some((r, c))
        })
    }

    /// Eliminates column c below the pivot in row r: each other row holding c loses a multiple
    /// of row r (fill joins it), and row r leaves as U's row.
    fn eliminate(&mut self, r: usize, c: usize) -> Step {
        let pivot_row = std::mem::take(&mut self.rows[r]);
        let pivot = pivot_row.iter().find(|e| e.0 == c).map_or(0.0, |e| e.1);
        let upper: Vec<(usize, f64)> = pivot_row.iter().copied().filter(|e| e.0 != c).collect();
        for &(j, _) in &pivot_row {
            self.holders[j].retain(|&h| h != r);
        }
        let mut lower = Vec::new();
        for i in std::mem::take(&mut self.holders[c]) {
            let row = &mut self.rows[i];
            let Some(pos) = row.iter().position(|e| e.0 == c) else {
                continue;
            };
            let l = row.swap_remove(pos).1 / pivot;
            lower.push((i, l));
            for (p, e) in row.iter().enumerate() {
                self.at[e.0] = p;
            }
            for &(j, u) in &upper {
                if self.at[j] != usize::MAX {
                    row[self.at[j]].1 -= l * u;
                } else {
                    row.push((j, -l * u));
                    self.holders[j].push(i);
                }
            }
            for e in row.iter() {
                self.at[e.0] = usize::MAX;
            }
            // Entries that cancelled exactly leave the row.
            for &(j, _) in row.iter().filter(|e| e.1 == 0.0) {
                self.holders[j].retain(|&h| h != i);
            }
            row.retain(|e| e.1 != 0.0);
        }
        self.col_done[c] = true;
        self.row_done[r] = true;
        Step {
            row: r,
            col: c,
            pivot,
            lower,
            upper,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn times(cols: &[Vec<(usize, f64)>], x: &[f64], k: usize) -> Vec<f64> {
        let mut b = vec![0.0; k];
        for (c, col) in cols.iter().enumerate() {
            for &(r, a) in col {
                b[r] += a * x[c];
            }
        }
        b
    }

    fn times_transpose(cols: &[Vec<(usize, f64)>], y: &[f64]) -> Vec<f64> {
        cols.iter()
            .map(|col| col.iter().map(|&(r, a)| a * y[r]).sum())
            .collect()
    }

    /// Random sparse matrices with a nonzero diagonal under a random row order (so nonsingular
    /// in general): solving against a known x and y gives them back.
    #[test]
    fn solves_random_sparse_systems_both_ways() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for _ in 0..300 {
            let k = rng.random_range(1..40);
            let mut order: Vec<usize> = (0..k).collect();
            for i in (1..k).rev() {
                order.swap(i, rng.random_range(0..=i));
            }
            let cols: Vec<Vec<(usize, f64)>> = (0..k)
                .map(|c| {
                    let mut col = vec![(order[c], rng.random_range(1.0..4.0))];
                    for _ in 0..rng.random_range(0..4) {
                        let r = rng.random_range(0..k);
                        if col.iter().all(|e| e.0 != r) {
                            col.push((r, rng.random_range(-2.0..2.0)));
                        }
                    }
                    col
                })
                .collect();
            let Ok(lu) = SparseLu::new(k, &cols, 1e-9) else {
                continue; // the random entries made it singular
            };
            let x: Vec<f64> = (0..k).map(|_| rng.random_range(-1.0..1.0)).collect();
            let got = lu.solve(times(&cols, &x, k));
            let y: Vec<f64> = (0..k).map(|_| rng.random_range(-1.0..1.0)).collect();
            let got_y = lu.solve_transpose(times_transpose(&cols, &y));
            for c in 0..k {
                assert!(
                    (got[c] - x[c]).abs() < 1e-6,
                    "x[{c}]: {} vs {}",
                    got[c],
                    x[c]
                );
                assert!(
                    (got_y[c] - y[c]).abs() < 1e-6,
                    "y[{c}]: {} vs {}",
                    got_y[c],
                    y[c]
                );
            }
        }
    }

    /// Worked by hand: columns (1, 1) and (2, 2) are dependent; one pair comes back.
    #[test]
    fn a_dependent_column_is_named() {
        let cols = vec![vec![(0, 1.0), (1, 1.0)], vec![(0, 2.0), (1, 2.0)]];
        let dependent = SparseLu::new(2, &cols, 1e-9).unwrap_err();
        assert_eq!(dependent.len(), 1);
    }
}
