//! oef-noncoop: OEF's non-cooperative form, every tenant the same normalised throughput per unit
//! of weight, maximised. Over the base constraints and the fairness definitions.

use super::base::AllocationLp;
use super::declared::{Family, InRounds, Reads, Rounds};
use super::{Guarantees, Policy, PolicyError, PolicyInfo, Solution};
use crate::fairness::{si_target, TOLERANCE};
use crate::lp::Lp;
use crate::Instance;

/// OEF, non-cooperative (Mo, Xu, Lau; Middleware 2024), as this project reads it: every tenant
/// gets the same speedup-normalised throughput per unit of weight, as large as possible.
///
/// ```text
/// maximise   t
/// subject to base constraints (capacity, caps)
///            u_i(g_i) = w_i t     for all i
/// ```
///
/// The objective reported is t. The paper claims strategy-proofness for this mode; the project's
/// SP probe reports what it observes rather than assuming it (BACKGROUND.md gives a
/// profitable under-report for two types).
pub struct OefNonCoop;

/// The name and the one-line summary the CLI and the playground show.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "oef-noncoop",
    summary: "OEF non-cooperative: equal weighted normalised throughput for all, maximised",
    guarantees: Guarantees::NONE,
    family: Family::Oef,
    reads: Reads::BASE,
    rounds: InRounds::Solved(Rounds::CLASSES),
};

impl Policy for OefNonCoop {
    fn info(&self) -> PolicyInfo {
        INFO
    }

    /// u_i(g_i) / w_i = t for every tenant, to the checker's tolerance relative to t.
    fn check_defining(&self, inst: &Instance, sol: &Solution) -> Result<(), String> {
        let t = sol.objective;
        for (i, u) in sol.allocation.utilities(inst).iter().enumerate() {
            let per_weight = u / inst.weight[i];
            if (per_weight - t).abs() > TOLERANCE * t.abs() {
                return Err(format!(
                    "'{}' gets {per_weight:e} per unit of weight, not the common t = {t:e}",
                    inst.tenant_names[i]
                ));
            }
        }
        Ok(())
    }

    fn allocate(&self, inst: &Instance) -> Result<Solution, PolicyError> {
        let mut m = AllocationLp::new(Lp::maximize(), inst, |_, _| 0.0);
        // t's expected size: the lowest utility per unit of weight any tenant gets from its
        // equal split (every tenant can be scaled down to that level, so t is at least it).
        let t_low = (0..inst.tenants())
            .map(|i| si_target(inst, i) / inst.weight[i])
            .fold(f64::INFINITY, f64::min);
        let t = m.lp.var_scaled(1.0, t_low);
        for i in 0..inst.tenants() {
            let mut row = m.utility(inst, i, i, 1.0);
            row.push((t, -inst.weight[i]));
            m.lp.eq(row, 0.0);
        }
        let sol = m.lp.solve()?;
        Ok(Solution {
            objective: sol.value(t),
            allocation: m.read(&sol),
            market: None,
            shared: Vec::new(),
            trades: Vec::new(),
        })
    }
}
