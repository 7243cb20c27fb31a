use super::base::AllocationLp;
use super::{Policy, PolicyError, Solution};
use crate::lp::{Lp, LpSolution};
use crate::properties::ef_required;
use crate::Instance;

/// How the N(N-1) envy-freeness rows enter the LP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EfRows {
    /// Every row up front.
    Full,
    /// Solve without them; then repeatedly add, per tenant, its most violated row and re-solve
    /// from the previous basis (dual simplex) until none is violated. Ends at the same optimum.
    Lazy,
    /// Whichever BENCHMARKS.md measured faster at the instance's size.
    Auto,
}

/// OEF, cooperative (Mo, Xu, Lau; Middleware 2024), as this project reads it:
///
/// ```text
/// maximise   sum_i u_i(g_i)                              efficiency, u_i(x) = sum_j s_ij x_j
/// subject to base constraints (capacity, caps)
///            u_i(g_i) >= u_i(e_i)              for all i  sharing incentive
///            u_i(g_i) / w_i >= u_i(g_k) / w_k  for (i,k) with d_i/w_i >= d_k/w_k   envy-freeness
/// ```
///
/// With caps, i need not be envy-free towards a tenant allowed more GPUs per unit of weight
/// (i could not use that bundle in full); without caps every pair is constrained. The equal
/// split satisfies every row, so the LP is always feasible.
pub struct OefCoop {
    pub ef_rows: EfRows,
}

/// Instances with at most this many tenants build the EF block whole under [`EfRows::Auto`].
pub const FULL_EF_MAX_TENANTS: usize = 12;

/// Violations smaller than this (in utility per weight) are round-off, not envy.
const EF_TOLERANCE: f64 = 1e-9;

impl Policy for OefCoop {
    fn name(&self) -> &'static str {
        "oef-coop"
    }

    fn summary(&self) -> &'static str {
        "OEF cooperative: most efficient allocation with sharing incentive and envy-freeness"
    }

    fn solve(&self, inst: &Instance) -> Result<Solution, PolicyError> {
        let n = inst.tenants();
        let mut m = AllocationLp::new(Lp::maximize(), inst, |i, j| inst.speedup[i][j]);
        for i in 0..n {
            let target = inst.utility(i, &inst.equal_split(i));
            let own = m.utility(inst, i, i, 1.0);
            m.lp.ge(own, target);
        }
        let full = match self.ef_rows {
            EfRows::Full => true,
            EfRows::Lazy => false,
            EfRows::Auto => n <= FULL_EF_MAX_TENANTS,
        };
        let sol = if full {
            for i in 0..n {
                for k in (0..n).filter(|&k| k != i && ef_required(inst, i, k)) {
                    let row = ef_row(&m, inst, i, k);
                    m.lp.ge(row, 0.0);
                }
            }
            m.lp.solve()?
        } else {
            add_violated_rows(&m, inst, m.lp.solve()?)?
        };
        let allocation = m.read(&sol);
        Ok(Solution {
            objective: allocation.efficiency(inst),
            allocation,
        })
    }
}

/// u_i(g_i)/w_i - u_i(g_k)/w_k, as LP terms (>= 0 means i does not envy k).
fn ef_row(m: &AllocationLp, inst: &Instance, i: usize, k: usize) -> crate::lp::Terms {
    let mut row = m.utility(inst, i, i, 1.0 / inst.weight[i]);
    row.extend(m.utility(inst, i, k, -1.0 / inst.weight[k]));
    row
}

fn add_violated_rows(
    m: &AllocationLp,
    inst: &Instance,
    mut sol: LpSolution,
) -> Result<LpSolution, PolicyError> {
    let n = inst.tenants();
    // A row in the LP holds to the solver's tolerance; never add it twice (that could loop).
    let mut in_lp = vec![vec![false; n]; n];
    loop {
        let g = m.read(&sol);
        let mut added = false;
        for (i, rows_of_i) in in_lp.iter_mut().enumerate() {
            let own = inst.utility(i, &g.gpus[i]) / inst.weight[i];
            let worst = (0..n)
                .filter(|&k| k != i && !rows_of_i[k] && ef_required(inst, i, k))
                .map(|k| (k, inst.utility(i, &g.gpus[k]) / inst.weight[k] - own))
                .filter(|&(_, envy)| envy > EF_TOLERANCE)
                .max_by(|a, b| a.1.total_cmp(&b.1));
            if let Some((k, _)) = worst {
                rows_of_i[k] = true;
                sol = sol.add_ge(ef_row(m, inst, i, k), 0.0)?;
                added = true;
            }
        }
        if !added {
            return Ok(sol);
        }
    }
}
