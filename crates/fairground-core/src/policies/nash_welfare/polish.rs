//! Newton polish of the interior point's answer.
//!
//! The interior point stops with the Nash welfare within ~1e-11 of the optimum, but where the
//! optimum is interior in some direction (two tenants both holding a type) the welfare is flat
//! there to first order, so the allocation itself is only good to ~1e-6: enough to flip an
//! envy-freeness verdict that holds with equality. The polish solves the optimality conditions on
//! the interior point's support to machine precision:
//!
//! ```text
//! S = {(i, j): g_ij > 0, i paying the most for j},  F = full types (and those a tenant below
//!     its cap values),  B = binding caps
//! w_i s_ij / u_i(g) = p_j + q_i      (i, j) in S
//! sum_i g_ij = n_j                   j in F
//! sum_j g_ij = d_i                   i in B
//! ```
//!
//! by regularised Newton steps on min -sum_i w_i ln u_i subject to those equalities: each step
//! solves the quasi-definite system [M + dI, A'; A, -eI] [dx; dy] = [-grad - A'y; b - Ax] with clarabel's
//! sparse LDL (QDLDL), M being the Hessian (one rank-one block per tenant). The proximal term d
//! keeps the system solvable where the allocation is not unique and leaves the iterate where it
//! is along such flat directions. A pair the optimum does not hold is driven towards 0 but never
//! reaches it (each step stops short of the boundary), so when Newton stalls with such a pair
//! the polish starts again without it. The caller keeps the polish only if it then passes every
//! check the interior point's answer would (see `equilibrium`).

use crate::Instance;
use clarabel::algebra::CscMatrix;
use clarabel::qdldl::{QDLDLFactorisation, QDLDLSettingsBuilder};

/// A polished answer: g over every pair, prices p_j and cap prices q_i.
pub(super) struct Polished {
    pub gpus: Vec<Vec<f64>>,
    pub prices: Vec<f64>,
    pub cap_prices: Vec<f64>,
}

/// A pair counts as held when its g is above this fraction of the tenant's equal split of the
/// type; the interior point leaves pairs outside the optimum's support some 1e-11 of it.
const SUPPORT: f64 = 1e-7;
/// A pair whose worth (see `polish`) is below its type's highest by more than this fraction is
/// left out of the support, when the caller asks.
pub(super) const OUTBID: f64 = 1e-3;
/// A type (cap) counts as full (binding) within this fraction of its size.
const FULL: f64 = 1e-6;
const MAX_STEPS: usize = 30;
/// How many times the polish starts again without the pairs it drove to the boundary.
const RESTARTS: usize = 3;

pub(super) fn polish(
    inst: &Instance,
    share: &[Vec<f64>],
    gpus: &[Vec<f64>],
    cap_prices: &[f64],
    outbid: Option<f64>,
) -> Option<Polished> {
    polish_from(inst, share, gpus, cap_prices, outbid, RESTARTS)
}

/// [`polish`], starting again up to `restarts` times (for a start with pairs that may not be
/// held at the optimum, each of which may need one).
pub(super) fn polish_with_restarts(
    inst: &Instance,
    share: &[Vec<f64>],
    gpus: &[Vec<f64>],
    restarts: usize,
) -> Option<Polished> {
    polish_from(
        inst,
        share,
        gpus,
        &vec![0.0; inst.tenants()],
        None,
        restarts,
    )
}

/// [`polish`], and when Newton stops short with some held pair driven to the boundary (a pair
/// the optimum does not hold, which the fraction to the boundary lets no step cross), again from
/// where it stopped without that pair, up to `restarts` times.
fn polish_from(
    inst: &Instance,
    share: &[Vec<f64>],
    gpus: &[Vec<f64>],
    cap_prices: &[f64],
    outbid: Option<f64>,
    restarts: usize,
) -> Option<Polished> {
    let (n, m) = (inst.tenants(), inst.types());
    let kkt = Kkt::at(inst, share, gpus, cap_prices, outbid);
    let mut x: Vec<f64> = kkt
        .support
        .iter()
        .map(|&(i, j)| gpus[i][j] / share[i][j])
        .collect();
    let mut y = vec![0.0; kkt.rows()];
    let mut converged = false;
    for _ in 0..MAX_STEPS {
        let (dx, stationary) = kkt.newton(inst, &x, &mut y)?;
        if stationary {
            converged = true;
            break;
        }
        // Fraction to the boundary: stay strictly inside x > 0.
        let step = dx
            .iter()
            .zip(&x)
            .filter(|(d, _)| **d < 0.0)
            .map(|(d, x)| 0.99 * x / -d)
            .fold(1.0_f64, f64::min);
        for (x, d) in x.iter_mut().zip(&dx) {
            *x += step * d;
        }
        // A pair driven to the boundary stops every later step short (the fraction to the
        // boundary): start again without it now rather than after MAX_STEPS tiny steps.
        if step < 1.0 && x.iter().any(|&v| v <= SUPPORT) {
            break;
        }
    }
    if !converged && restarts > 0 && x.iter().any(|&v| v <= SUPPORT) {
        let mut now = vec![vec![0.0; m]; n];
        for (v, &(i, j)) in kkt.support.iter().enumerate() {
            now[i][j] = x[v] * share[i][j];
        }
        return polish_from(inst, share, &now, cap_prices, outbid, restarts - 1);
    }
    kkt.polished(inst, share, &x, &y)
}

/// The equality-constrained program Newton polishes: the pairs held (the support, tenant-major,
/// in scaled units x = g / e), the full types and binding caps as equality rows, each variable's
/// row coefficients and its utility coefficient.
struct Kkt {
    support: Vec<(usize, usize)>,
    full: Vec<usize>,
    binding: Vec<usize>,
    /// Each variable's rows: its type's capacity over n_j, its tenant's cap over d_i.
    terms: Vec<Vec<(usize, f64)>>,
    coeff: Vec<f64>,
    total_weight: f64,
}

impl Kkt {
    /// The program at the interior point's `gpus`: which pairs are held, which types are full
    /// and which caps bind.
    fn at(
        inst: &Instance,
        share: &[Vec<f64>],
        gpus: &[Vec<f64>],
        cap_prices: &[f64],
        outbid: Option<f64>,
    ) -> Kkt {
        let (n, m) = (inst.tenants(), inst.types());
        let total_weight: f64 = inst.weight.iter().sum();
        // What tenant i would pay at most for one more GPU of type j: w_i s_ij / u_i less its
        // cap price. At the optimum a held pair's is the type's price, the highest anyone's.
        // With `outbid`, a pair that far below its type's highest is taken as not held at the
        // optimum, however much the interior point left there (a few millionths of a GPU that
        // adds a billionth of the welfare): keeping it would ask Newton for an equality that
        // cannot hold.
        let u: Vec<f64> = (0..n).map(|i| inst.utility(i, &gpus[i])).collect();
        let worth = |i: usize, j: usize| inst.weight[i] * inst.speedup[i][j] / u[i] - cap_prices[i];
        let highest: Vec<f64> = (0..m)
            .map(|j| (0..n).map(|i| worth(i, j)).fold(0.0_f64, f64::max))
            .collect();
        let support: Vec<(usize, usize)> = (0..n)
            .flat_map(|i| (0..m).map(move |j| (i, j)))
            .filter(|&(i, j)| inst.speedup[i][j] > 0.0 && gpus[i][j] > SUPPORT * share[i][j])
            .filter(|&(i, j)| outbid.is_none_or(|o| worth(i, j) >= (1.0 - o) * highest[j]))
            .collect();
        let used: Vec<f64> = (0..m).map(|j| gpus.iter().map(|r| r[j]).sum()).collect();
        let binding: Vec<usize> = (0..n)
            .filter(|&i| {
                inst.cap[i].is_some_and(|d| gpus[i].iter().sum::<f64>() >= d * (1.0 - FULL))
            })
            .collect();
        // A type valued by a tenant whose cap does not bind is full at the optimum (that
        // tenant would gain from the rest of it), however little it adds: the interior point
        // may leave such a type short when it adds a billionth of the welfare, and its price
        // would then be lost.
        let mut bound = vec![false; n];
        binding.iter().for_each(|&i| bound[i] = true);
        let wanted_by_unbound = |j: usize| (0..n).any(|i| !bound[i] && inst.speedup[i][j] > 0.0);
        let full: Vec<usize> = (0..m)
            .filter(|&j| inst.count[j] > 0.0)
            .filter(|&j| used[j] >= inst.count[j] * (1.0 - FULL) || wanted_by_unbound(j))
            .filter(|&j| support.iter().any(|&(_, t)| t == j))
            .collect();
        let terms: Vec<Vec<(usize, f64)>> = support
            .iter()
            .map(|&(i, j)| {
                let e = share[i][j];
                let mut out = vec![];
                if let Some(r) = full.iter().position(|&t| t == j) {
                    out.push((r, e / inst.count[j]));
                }
                if let (Some(r), Some(d)) = (binding.iter().position(|&t| t == i), inst.cap[i]) {
                    out.push((full.len() + r, e / d));
                }
                out
            })
            .collect();
        let coeff: Vec<f64> = support
            .iter()
            .map(|&(i, j)| inst.speedup[i][j] * share[i][j])
            .collect();
        Kkt {
            support,
            full,
            binding,
            terms,
            coeff,
            total_weight,
        }
    }

    fn rows(&self) -> usize {
        self.full.len() + self.binding.len()
    }

    /// One Newton step from (x, y): the step in x, with y moved to its new multipliers, and
    /// whether (x, y) was already stationary and feasible to the polish's tolerances. None when
    /// a utility or the step is not finite and positive.
    fn newton(&self, inst: &Instance, x: &[f64], y: &mut [f64]) -> Option<(Vec<f64>, bool)> {
        let n = inst.tenants();
        let (support, terms, coeff) = (&self.support, &self.terms, &self.coeff);
        let (nv, nr) = (support.len(), self.rows());
        let weight = |i: usize| inst.weight[i] / self.total_weight;
        let mut u = vec![0.0; n];
        for (v, &(i, _)) in support.iter().enumerate() {
            u[i] += coeff[v] * x[v];
        }
        if u.iter().any(|&u| u <= 0.0) {
            return None;
        }
        let grad: Vec<f64> = (0..nv)
            .map(|v| -weight(support[v].0) * coeff[v] / u[support[v].0])
            .collect();
        let k = self.matrix(inst, &u);
        let signs: Vec<i8> = (0..nv + nr).map(|c| if c < nv { 1 } else { -1 }).collect();
        // The regularisation is ours (`matrix`); QDLDL's own would replace small pivots by 1e-7.
        let settings = QDLDLSettingsBuilder::default()
            .Dsigns(signs)
            .regularize_enable(false)
            .build()
            .ok()?;
        let mut ldl = QDLDLFactorisation::new(&k, Some(settings)).ok()?;
        let mut lhs = vec![0.0; nr];
        for (v, row) in terms.iter().enumerate() {
            for &(r, a) in row {
                lhs[r] += a * x[v];
            }
        }
        let worst_equality = lhs.iter().fold(0.0_f64, |w, l| w.max((l - 1.0).abs()));
        // In increments (y + dy), so the regularisation -e dy vanishes at the fixed point.
        let mut rhs: Vec<f64> = (0..nv)
            .map(|v| -grad[v] - terms[v].iter().map(|&(r, a)| a * y[r]).sum::<f64>())
            .collect();
        rhs.extend(lhs.iter().map(|l| 1.0 - l));
        ldl.solve(&mut rhs);
        if rhs.iter().any(|v| !v.is_finite()) {
            return None;
        }
        let (dx, dy) = rhs.split_at(nv);
        y.iter_mut().zip(dy).for_each(|(y, d)| *y += d);
        // Stationarity at x with the new multipliers: grad + A'y = 0, relative to grad.
        let worst_stationarity = (0..nv)
            .map(|v| {
                let priced: f64 = terms[v].iter().map(|&(r, a)| a * y[r]).sum();
                (grad[v] + priced).abs() / grad[v].abs()
            })
            .fold(0.0_f64, f64::max);
        let stationary = worst_stationarity < 1e-13 && worst_equality < 1e-14;
        Some((dx.to_vec(), stationary))
    }

    /// K = [H A'; A -eI], upper triangle, column by column: the welfare's Hessian at utilities
    /// `u` (one block per tenant), regularised, over the equality rows.
    fn matrix(&self, inst: &Instance, u: &[f64]) -> CscMatrix<f64> {
        let (support, coeff) = (&self.support, &self.coeff);
        let (nv, nr) = (support.len(), self.rows());
        let weight = |i: usize| inst.weight[i] / self.total_weight;
        let first = |i: usize| support.partition_point(|&(t, _)| t < i);
        let (mut colptr, mut rowval, mut nzval) = (vec![0], vec![], vec![]);
        for v in 0..nv {
            let i = support[v].0;
            let h = |a: usize| weight(i) * coeff[a] * coeff[v] / (u[i] * u[i]);
            for a in first(i)..v {
                rowval.push(a);
                nzval.push(h(a));
            }
            rowval.push(v);
            nzval.push(h(v) * (1.0 + 1e-9) + 1e-12);
            colptr.push(rowval.len());
        }
        let mut by_row: Vec<Vec<(usize, f64)>> = vec![vec![]; nr];
        for (v, row) in self.terms.iter().enumerate() {
            for &(r, a) in row {
                by_row[r].push((v, a));
            }
        }
        for (r, entries) in by_row.iter().enumerate() {
            for &(v, a) in entries {
                rowval.push(v);
                nzval.push(a);
            }
            rowval.push(nv + r);
            nzval.push(-1e-10);
            colptr.push(rowval.len());
        }
        CscMatrix::new(nv + nr, nv + nr, colptr, rowval, nzval)
    }

    /// The allocation at x in GPUs, and the prices from the multipliers y: each full type's, each
    /// binding cap's, in the welfare's units.
    fn polished(
        &self,
        inst: &Instance,
        share: &[Vec<f64>],
        x: &[f64],
        y: &[f64],
    ) -> Option<Polished> {
        let (n, m) = (inst.tenants(), inst.types());
        let mut out = Polished {
            gpus: vec![vec![0.0; m]; n],
            prices: vec![0.0; m],
            cap_prices: vec![0.0; n],
        };
        for (v, &(i, j)) in self.support.iter().enumerate() {
            out.gpus[i][j] = x[v] * share[i][j];
        }
        for (r, &j) in self.full.iter().enumerate() {
            out.prices[j] = (self.total_weight * y[r] / inst.count[j]).max(0.0);
        }
        for (r, &i) in self.binding.iter().enumerate() {
            let cap = inst.cap[i]?;
            out.cap_prices[i] = (self.total_weight * y[self.full.len() + r] / cap).max(0.0);
        }
        Some(out)
    }
}
