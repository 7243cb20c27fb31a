use super::base::AllocationLp;
use super::{Policy, PolicyError, Solution};
use crate::fairness::{
    meets_share, must_not_envy, relative_envy, relative_shortfall, relaxed_relative_envy,
    si_target, LP_MARGIN, TOLERANCE,
};
use crate::lp::{Lp, LpSolution};
use crate::Instance;

/// How the N(N-1) envy-freeness rows enter the LP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EfRows {
    /// Every row up front.
    Full,
    /// Solve without them; then repeatedly add the single most violated row (envy relative to
    /// the envier's own utility) and re-solve from the previous basis (dual simplex) until none
    /// is violated. Ends at the same optimum, with a few percent of the rows; faster than
    /// [`EfRows::Full`] at every size measured (BENCHMARKS.md), so the registry uses it.
    Lazy,
}

/// OEF, cooperative (Mo, Xu, Lau; Middleware 2024), as this project reads it:
///
/// ```text
/// maximise   sum_i u_i(g_i)                              efficiency, u_i(x) = sum_j s_ij x_j
/// subject to base constraints (capacity, caps)
///            u_i(g_i) >= u_i(e_i)              for all i  sharing incentive
///            u_i(g_i) / w_i >= u_i(g_k) / w_k  for (i,k) with must_not_envy(i, k)     envy-freeness
/// ```
///
/// Without caps every pair is constrained (plain weighted EF). With caps, i is exempt towards k
/// only when k's largest bundle scaled to i's weight exceeds i's cap ([`crate::fairness`] states
/// the rule). The capped equal split satisfies every row, so the LP is always feasible.
pub struct OefCoop {
    pub ef_rows: EfRows,
}

impl Policy for OefCoop {
    fn name(&self) -> &'static str {
        "oef-coop"
    }

    fn summary(&self) -> &'static str {
        "OEF cooperative: most efficient allocation with sharing incentive and envy-freeness"
    }

    /// Sharing incentive for every tenant and envy-freeness for every required pair.
    fn check_defining(&self, inst: &Instance, sol: &Solution) -> Result<(), String> {
        let g = &sol.allocation;
        let n = inst.tenants();
        if let Some(i) = (0..n).find(|&i| !meets_share(inst, g, i)) {
            return Err(format!(
                "'{}' gets {:e} less than its equal-split utility (relative), breaking sharing incentive",
                inst.tenant_names[i],
                relative_shortfall(inst, g, i)
            ));
        }
        for i in 0..n {
            for k in (0..n).filter(|&k| must_not_envy(inst, i, k)) {
                let r = relative_envy(inst, g, i, k);
                if r > TOLERANCE {
                    return Err(format!(
                        "'{}' envies '{}' by {r:e} (relative), breaking envy-freeness",
                        inst.tenant_names[i], inst.tenant_names[k]
                    ));
                }
            }
        }
        Ok(())
    }

    fn allocate(&self, inst: &Instance) -> Result<Solution, PolicyError> {
        most_efficient(inst, Relaxation::NONE, self.ef_rows)
    }
}

/// How far each guarantee is relaxed: `Some(eps)` imposes it relaxed by eps (0 = exact),
/// `None` drops it. oef-coop is both at 0; the price-of-fairness frontier sweeps eps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Relaxation {
    pub sharing_incentive: Option<f64>,
    pub envy_freeness: Option<f64>,
}

impl Relaxation {
    /// Both guarantees, exactly: oef-coop.
    pub const NONE: Relaxation = Relaxation {
        sharing_incentive: Some(0.0),
        envy_freeness: Some(0.0),
    };
}

/// oef-coop's program with each guarantee relaxed by its eps (BACKGROUND.md's eps-relaxed
/// properties):
///
/// ```text
/// maximise   sum_i u_i(g_i)
/// subject to base constraints
///            u_i(g_i) >= (1 - eps_SI) u_i(e_i)                        for all i
///            u_i(g_i) / w_i >= (1 - eps_EF) u_i(g_k) / w_k            for required (i, k)
/// ```
pub fn most_efficient(
    inst: &Instance,
    relax: Relaxation,
    ef_rows: EfRows,
) -> Result<Solution, PolicyError> {
    let n = inst.tenants();
    let mut m = AllocationLp::new(Lp::maximize(), inst, |i, j| inst.speedup[i][j]);
    if let Some(eps) = relax.sharing_incentive {
        for i in 0..n {
            let target = (1.0 - eps) * si_target(inst, i);
            let own = m.utility(inst, i, i, 1.0);
            m.lp.ge(own, target);
        }
    }
    let sol = match relax.envy_freeness {
        None => m.lp.solve()?,
        Some(eps) if ef_rows == EfRows::Full => {
            for i in 0..n {
                for k in (0..n).filter(|&k| must_not_envy(inst, i, k)) {
                    let row = ef_row(&m, inst, i, k, 1.0 - eps);
                    m.lp.ge(row, 0.0);
                }
            }
            m.lp.solve()?
        }
        Some(eps) => add_violated_rows(&m, inst, m.lp.solve()?, 1.0 - eps)?,
    };
    let allocation = m.read(&sol);
    Ok(Solution {
        objective: allocation.efficiency(inst),
        allocation,
        market: None,
    })
}

/// u_i(g_i)/w_i - factor u_i(g_k)/w_k, as LP terms (>= 0 means i does not envy k's bundle
/// discounted by `factor`).
fn ef_row(m: &AllocationLp, inst: &Instance, i: usize, k: usize, factor: f64) -> crate::lp::Terms {
    let mut row = m.utility(inst, i, i, 1.0 / inst.weight[i]);
    row.extend(m.utility(inst, i, k, -factor / inst.weight[k]));
    row
}

fn add_violated_rows(
    m: &AllocationLp,
    inst: &Instance,
    mut sol: LpSolution,
    factor: f64,
) -> Result<LpSolution, PolicyError> {
    let n = inst.tenants();
    // Pairs still to check; a row in the LP holds to the solver's tolerance and is never added
    // twice (that could loop).
    let mut open: Vec<Vec<bool>> = (0..n)
        .map(|i| (0..n).map(|k| must_not_envy(inst, i, k)).collect())
        .collect();
    loop {
        let g = m.read(&sol);
        let mut worst: Option<(usize, usize, f64)> = None;
        for (i, open_i) in open.iter().enumerate() {
            // Ranked by relative envy: tenants with large speedups would otherwise dominate, and
            // ranking this way needs ~25% fewer rows (BENCHMARKS.md). A row is added while the
            // envy is above the checker's tolerance times LP_MARGIN.
            for k in (0..n).filter(|&k| open_i[k]) {
                let r = relaxed_relative_envy(inst, &g, i, k, factor);
                if r > TOLERANCE * LP_MARGIN && worst.is_none_or(|(_, _, w)| r > w) {
                    worst = Some((i, k, r));
                }
            }
        }
        let Some((i, k, _)) = worst else {
            return Ok(sol);
        };
        open[i][k] = false;
        sol = sol.add_ge(ef_row(m, inst, i, k, factor), 0.0)?;
    }
}
