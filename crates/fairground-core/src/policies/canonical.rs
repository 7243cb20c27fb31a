//! Choosing among a policy's optimal allocations, where the optimum is not unique.

use super::base::AllocationLp;
use super::PolicyError;
use crate::lp::{Lp, Var};
use crate::{Allocation, Instance};

/// Among the allocations that `optimal` admits (the base constraints plus rows that keep the
/// policy's objective at its optimum), a canonical one, by two LPs:
///
/// ```text
/// H* = min sum_ij g_ij              s.t. base, optimal rows
/// minimise   sum_i (1/E_i) sum_j |g_ij - c_j h_i|   h_i = sum_j g_ij, c_j = n_j / sum_k n_k,
/// subject to base, optimal rows, sum_ij g_ij <= H*  E_i = i's equal split, in GPUs
/// ```
///
/// That is: no party gets more than the optimum needs (max-min raises only the lowest; which
/// of the others get more is not its concern), and each party's GPUs are spread over the types
/// in proportion to their counts. Since sum_j (g_ij - c_j h_i) = 0, sum_j |g_ij - c_j h_i| is twice
/// the sum of its negative parts, so one row d_ij >= c_j h_i - g_ij per cell linearises it.
///
/// Why: where the optimum is not unique (agnostic max-min's never is: any split of the same
/// GPU-time is optimal; max-sum's is not when two jobs gain alike from a type) which one a
/// solver returns is an accident of its method, and the simulator's JCTs follow it. Gavel
/// solves with ECOS, an interior-point method, whose answer lies near the centre of the
/// optimal face: spread over the types, and other parties between the level and their caps.
/// A simplex vertex puts each job on few types. This choice is the spread one, made explicit,
/// so the answer does not depend on the solver; with it Gavel's simulator's agnostic JCTs are
/// reproduced to about 1% (BENCHMARKS.md), where a vertex was 14-35% off. The answer is not
/// Pareto efficient where GPUs are left over, as Gavel's is not: the PE verdict says so.
pub(super) fn spread_optimum(
    inst: &Instance,
    optimal: impl Fn(&mut AllocationLp),
) -> Result<Allocation, PolicyError> {
    let model = |lp: Lp| {
        let mut m = AllocationLp::new(lp, inst, |_, _| 0.0);
        optimal(&mut m);
        m
    };
    let total_held =
        |m: &AllocationLp| -> Vec<(Var, f64)> { m.g.iter().flatten().map(|&v| (v, 1.0)).collect() };
    // The fewest GPUs in all that keep the objective at its optimum.
    let least = {
        let m = model(Lp::minimize());
        let all = total_held(&m);
        let mut lp = m.lp;
        let h = lp.var(1.0);
        lp.eq(all.into_iter().chain([(h, -1.0)]), 0.0);
        lp.solve()?.value(h)
    };
    let mut m = model(Lp::minimize());
    m.lp.le(total_held(&m), (1.0 + 1e-9) * least);
    let total: f64 = inst.count.iter().sum();
    // equal_split sums the weights each call: once here, not once per tenant.
    let total_weight: f64 = inst.weight.iter().sum();
    for i in 0..inst.tenants() {
        // One weight per tenant: its equal split in all, so deviations are relative to what it
        // is entitled to.
        let size = inst
            .equal_split_with(i, total_weight)
            .iter()
            .sum::<f64>()
            .max(1e-12);
        for j in 0..inst.types() {
            let c = inst.count[j] / total;
            let d = m.lp.var_scaled(1.0 / size, size);
            // d_ij >= c_j h_i - g_ij, as terms over i's row.
            let row = m.g[i]
                .iter()
                .enumerate()
                .map(|(k, &v)| (v, if k == j { 1.0 - c } else { -c }))
                .chain([(d, 1.0)]);
            m.lp.ge(row, 0.0);
        }
    }
    let sol = m.lp.solve()?;
    let mut allocation = m.read(&sol);
    // The optimality rows' 1e-9 slack lets the LP hand out crumbs (1e-8 of a type to a tenant
    // the optimum gives nothing), which would show as envy of a crumb. Below 1e-7 of a
    // tenant's equal split in all, far under the checks' 1e-6 tolerance, a holding is zero.
    for (i, row) in allocation.gpus.iter_mut().enumerate() {
        let size: f64 = inst.equal_split_with(i, total_weight).iter().sum();
        row.iter_mut()
            .filter(|g| **g < CRUMB * size)
            .for_each(|g| *g = 0.0);
    }
    Ok(allocation)
}

/// What counts as a crumb, relative to a tenant's equal split.
pub(super) const CRUMB: f64 = 1e-7;
