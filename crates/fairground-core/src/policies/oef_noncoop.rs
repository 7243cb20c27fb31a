use super::base::AllocationLp;
use super::{Policy, PolicyError, Solution};
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

impl Policy for OefNonCoop {
    fn name(&self) -> &'static str {
        "oef-noncoop"
    }

    fn summary(&self) -> &'static str {
        "OEF non-cooperative: equal weighted normalised throughput for all, maximised"
    }

    fn solve(&self, inst: &Instance) -> Result<Solution, PolicyError> {
        let mut m = AllocationLp::new(Lp::maximize(), inst, |_, _| 0.0);
        let t = m.lp.var(1.0);
        for i in 0..inst.tenants() {
            let mut row = m.utility(inst, i, i, 1.0);
            row.push((t, -inst.weight[i]));
            m.lp.eq(row, 0.0);
        }
        let sol = m.lp.solve()?;
        Ok(Solution {
            objective: sol.value(t),
            allocation: m.read(&sol),
        })
    }
}
