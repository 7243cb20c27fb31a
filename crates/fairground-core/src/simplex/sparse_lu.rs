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
        let mut rows: Vec<Vec<(usize, f64)>> = vec![Vec::new(); k];
        // Rows holding each column (kept exact: fill adds, elimination removes).
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
        let mut col_done = vec![false; k];
        let mut row_done = vec![false; k];
        let mut steps = Vec::with_capacity(k);
        // Work space: where a column sits in the row being updated.
        let mut at = vec![usize::MAX; k];
        let value = |rows: &[Vec<(usize, f64)>], r: usize, c: usize| {
            rows[r].iter().find(|e| e.0 == c).map_or(0.0, |e| e.1)
        };
        for _ in 0..k {
            // The few columns held by the fewest rows (a column singleton ends the search).
            let mut fewest: Vec<usize> = Vec::with_capacity(SEARCH + 1);
            for c in (0..k).filter(|&c| !col_done[c] && !holders[c].is_empty()) {
                let count = holders[c].len();
                if fewest.len() == SEARCH && count >= holders[fewest[SEARCH - 1]].len() {
                    continue;
                }
                let at = fewest.partition_point(|&f| holders[f].len() <= count);
                fewest.insert(at, c);
                fewest.truncate(SEARCH);
                if count == 1 && holders[fewest[0]].len() == 1 {
                    let r = holders[c][0];
                    if value(&rows, r, c).abs() > tiny * scale[c] {
                        fewest = vec![c];
                        break;
                    }
                }
            }
            let mut best: Option<(usize, usize, usize)> = None; // (cost, row, col)
            for &c in &fewest {
                let largest = holders[c]
                    .iter()
                    .map(|&r| value(&rows, r, c).abs())
                    .fold(0.0, f64::max);
                if largest <= tiny * scale[c] {
                    continue;
                }
                for &r in &holders[c] {
                    let a = value(&rows, r, c).abs();
                    if a < THRESHOLD * largest {
                        continue;
                    }
                    let cost = (rows[r].len() - 1) * (holders[c].len() - 1);
                    if best.is_none_or(|(b, _, _)| cost < b) {
                        best = Some((cost, r, c));
                    }
                }
            }
            if best.is_none() {
                // The fewest-held columns are all too small: look at every column.
                for c in (0..k).filter(|&c| !col_done[c]) {
                    let largest = holders[c]
                        .iter()
                        .map(|&r| (r, value(&rows, r, c).abs()))
                        .fold((usize::MAX, 0.0), |m, e| if e.1 > m.1 { e } else { m });
                    if largest.1 > tiny * scale[c] {
                        best = Some((0, largest.0, c));
                        break;
                    }
                }
            }
            let Some((_, r, c)) = best else {
                break;
            };
            let pivot_row = std::mem::take(&mut rows[r]);
            let pivot = pivot_row.iter().find(|e| e.0 == c).map_or(0.0, |e| e.1);
            let upper: Vec<(usize, f64)> = pivot_row.iter().copied().filter(|e| e.0 != c).collect();
            for &(j, _) in &pivot_row {
                holders[j].retain(|&h| h != r);
            }
            let mut lower = Vec::new();
            for i in std::mem::take(&mut holders[c]) {
                let row = &mut rows[i];
                let Some(pos) = row.iter().position(|e| e.0 == c) else {
                    continue;
                };
                let l = row.swap_remove(pos).1 / pivot;
                lower.push((i, l));
                for (p, e) in row.iter().enumerate() {
                    at[e.0] = p;
                }
                for &(j, u) in &upper {
                    if at[j] != usize::MAX {
                        row[at[j]].1 -= l * u;
                    } else {
                        row.push((j, -l * u));
                        holders[j].push(i);
                    }
                }
                for e in row.iter() {
                    at[e.0] = usize::MAX;
                }
                // Entries that cancelled exactly leave the row.
                for &(j, _) in row.iter().filter(|e| e.1 == 0.0) {
                    holders[j].retain(|&h| h != i);
                }
                row.retain(|e| e.1 != 0.0);
            }
            col_done[c] = true;
            row_done[r] = true;
            steps.push(Step {
                row: r,
                col: c,
                pivot,
                lower,
                upper,
            });
        }
        if steps.len() < k {
            let cols_left = (0..k).filter(|&c| !col_done[c]);
            let rows_left = (0..k).filter(|&r| !row_done[r]);
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
