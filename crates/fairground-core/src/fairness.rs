//! What the fairness properties mean, in one home: the LP policies impose these definitions and
//! the checker and metrics test against them, so the two can never disagree.
//!
//! Notation of ../shared/BACKGROUND.md: N GPUs in all, tenant i with weight w_i, optional cap d_i
//! (most GPUs held at once), utility u_i(x) = sum_j s_ij x_j.
//!
//! **Weighted envy-freeness.** i does not envy k when u_i(g_i) / w_i >= u_i(g_k) / w_k: per unit
//! of weight, i values its own bundle at least as much as k's.
//!
//! **With caps.** Scaling k's bundle to i's weight gives (w_i / w_k) g_k, which may hold more GPUs
//! than i's cap lets it use; envying a bundle one could not hold is not envy. So i is required not
//! to envy k exactly when i could hold the largest bundle k may ever have, scaled to i's weight:
//!
//! ```text
//! (w_i / w_k) H_k <= C_i     H_k = min(d_k, N)  (the most k can hold; N when uncapped)
//!                            C_i = d_i if d_i < N, else unbounded (a cap >= N never binds)
//! ```
//!
//! Consequences: an uncapped tenant (or one whose cap is at least the cluster) must not envy
//! anyone; between two uncapped tenants this is plain weighted EF, whatever the weights. Between
//! tenants capped below N it reads d_k / w_k <= d_i / w_i: i may hold at least as many GPUs per
//! unit of weight as k. The rule is static (it depends on the scenario, not on the allocation),
//! so the EF rows stay linear, and the capped equal split e_i (sharing incentive's reference)
//! meets every required row — per unit of weight e_i is (n / W) min(1, d_i W / (w_i N)), which
//! grows with d_i / w_i — so SI + EF is always feasible.

use crate::{Allocation, Instance};

pub use crate::tolerance::{LP_MARGIN, TOLERANCE};

/// N: GPUs in the cluster, all types together.
pub fn cluster_size(inst: &Instance) -> f64 {
    inst.count.iter().sum()
}

/// H_k: the most GPUs tenant k can ever hold (its cap, or the whole cluster).
pub fn most_held(inst: &Instance, k: usize) -> f64 {
    let n = cluster_size(inst);
    inst.cap[k].map_or(n, |cap| cap.min(n))
}

/// C_i: the largest bundle tenant i could use, `None` when unbounded (no cap, or a cap of at
/// least the whole cluster, which can never bind).
pub fn usable_limit(inst: &Instance, i: usize) -> Option<f64> {
    inst.cap[i].filter(|&cap| cap < cluster_size(inst))
}

/// Whether envy-freeness requires that i not envy k (see the module docs for why).
pub fn must_not_envy(inst: &Instance, i: usize, k: usize) -> bool {
    if i == k {
        return false;
    }
    match usable_limit(inst, i) {
        None => true,
        // Relative slack: a pair on the boundary (equal caps per weight) is required.
        Some(limit) => {
            inst.weight[i] / inst.weight[k] * most_held(inst, k) <= limit * (1.0 + 1e-12)
        }
    }
}

/// u_i(g_k) / w_k - u_i(g_i) / w_i: how much more i values k's bundle than its own, per unit of
/// weight (> 0 means i envies k).
pub fn envy(inst: &Instance, alloc: &Allocation, i: usize, k: usize) -> f64 {
    inst.utility(i, &alloc.gpus[k]) / inst.weight[k]
        - inst.utility(i, &alloc.gpus[i]) / inst.weight[i]
}

/// i's envy of k relative to the larger of the two values compared (u_i(g_i)/w_i and
/// u_i(g_k)/w_k): in [-1, 1], 0 when both are 0.
pub fn relative_envy(inst: &Instance, alloc: &Allocation, i: usize, k: usize) -> f64 {
    relaxed_relative_envy(inst, alloc, i, k, 1.0)
}

/// As [`relative_envy`], with k's bundle discounted by `factor` = 1 - eps: how far
/// u_i(g_i)/w_i >= (1 - eps) u_i(g_k)/w_k is broken, relative to the larger side.
pub fn relaxed_relative_envy(
    inst: &Instance,
    alloc: &Allocation,
    i: usize,
    k: usize,
    factor: f64,
) -> f64 {
    let own = inst.utility(i, &alloc.gpus[i]) / inst.weight[i];
    let theirs = factor * inst.utility(i, &alloc.gpus[k]) / inst.weight[k];
    envy_relative_to_larger(own, theirs)
}

/// (theirs - own) / max(|own|, |theirs|), 0 when both are 0: relative envy from the two values
/// compared, each per unit of weight (`theirs` already discounted by any relaxation).
pub fn envy_relative_to_larger(own: f64, theirs: f64) -> f64 {
    let scale = own.abs().max(theirs.abs());
    if scale > 0.0 {
        (theirs - own) / scale
    } else {
        0.0
    }
}

/// The smallest eps for which `alloc` meets eps-relaxed sharing incentive,
/// u_i(g_i) >= (1 - eps) u_i(e_i) for every i: max(0, max_i 1 - u_i(g_i) / u_i(e_i)).
pub fn si_relaxation(inst: &Instance, alloc: &Allocation) -> f64 {
    (0..inst.tenants())
        .map(|i| relative_shortfall(inst, alloc, i))
        .fold(0.0, f64::max)
        .min(1.0)
}

/// The smallest eps for which `alloc` meets eps-relaxed envy-freeness,
/// u_i(g_i)/w_i >= (1 - eps) u_i(g_k)/w_k for every required pair:
/// max(0, max 1 - (u_i(g_i)/w_i) / (u_i(g_k)/w_k)).
pub fn ef_relaxation(inst: &Instance, alloc: &Allocation) -> f64 {
    let n = inst.tenants();
    (0..n)
        .flat_map(|i| (0..n).map(move |k| (i, k)))
        .filter(|&(i, k)| must_not_envy(inst, i, k))
        .map(|(i, k)| {
            let own = inst.utility(i, &alloc.gpus[i]) / inst.weight[i];
            let theirs = inst.utility(i, &alloc.gpus[k]) / inst.weight[k];
            if theirs > 0.0 {
                1.0 - own / theirs
            } else {
                0.0
            }
        })
        .fold(0.0, f64::max)
        .min(1.0)
}

/// Whether i envies k beyond [`TOLERANCE`] (whether or not EF requires it not to).
pub fn envies(inst: &Instance, alloc: &Allocation, i: usize, k: usize) -> bool {
    i != k && relative_envy(inst, alloc, i, k) > TOLERANCE
}

/// How far i falls short of its sharing-incentive target, relative to it (<= 0 when met).
pub fn relative_shortfall(inst: &Instance, alloc: &Allocation, i: usize) -> f64 {
    shortfall_of_utility(inst, i, inst.utility(i, &alloc.gpus[i]))
}

/// [`relative_shortfall`] for a utility u_i given whole (GPUs shared with a partner counted).
pub fn shortfall_of_utility(inst: &Instance, i: usize, utility: f64) -> f64 {
    let target = si_target(inst, i);
    if target > 0.0 {
        (target - utility) / target
    } else {
        0.0
    }
}

/// Whether i gets its sharing-incentive utility, to [`TOLERANCE`].
pub fn meets_share(inst: &Instance, alloc: &Allocation, i: usize) -> bool {
    relative_shortfall(inst, alloc, i) <= TOLERANCE
}

/// u_i(e_i): the utility sharing incentive guarantees tenant i (its capped weighted equal split,
/// [`Instance::equal_split`]).
pub fn si_target(inst: &Instance, i: usize) -> f64 {
    inst.utility(i, &inst.equal_split(i))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Scenario;

    fn instance(tenants: &str) -> Instance {
        Scenario::from_json(&format!(
            r#"{{"gpu_types": [{{"name": "v100", "count": 8}}], "tenants": [{tenants}]}}"#
        ))
        .unwrap()
        .instance()
        .unwrap()
    }

    #[test]
    fn uncapped_tenants_must_not_envy_each_other_whatever_the_weights() {
        let inst = instance(
            r#"{"name": "light", "throughput": [1], "weight": 1},
               {"name": "heavy", "throughput": [1], "weight": 3}"#,
        );
        assert!(must_not_envy(&inst, 0, 1));
        assert!(
            must_not_envy(&inst, 1, 0),
            "the heavy tenant was exempt (the old bug)"
        );
        assert!(!must_not_envy(&inst, 0, 0));
    }

    #[test]
    fn capped_rule_by_hand() {
        // N = 8. a: cap 2, w 1 (2 per weight); b: cap 4, w 1 (4 per weight); c: cap 6, w 3
        // (2 per weight); d: uncapped, w 1; e: cap 20 >= N, w 4 (a cap that cannot bind).
        let inst = instance(
            r#"{"name": "a", "throughput": [1], "max_gpus": 2},
               {"name": "b", "throughput": [1], "max_gpus": 4},
               {"name": "c", "throughput": [1], "weight": 3, "max_gpus": 6},
               {"name": "d", "throughput": [1]},
               {"name": "e", "throughput": [1], "weight": 4, "max_gpus": 20}"#,
        );
        let (a, b, c, d, e) = (0, 1, 2, 3, 4);
        // a holds at most 2; b's 4 GPUs (scaled by 1/1) do not fit: exempt. b can hold a's 2.
        assert!(!must_not_envy(&inst, a, b));
        assert!(must_not_envy(&inst, b, a));
        // a and c both allow 2 GPUs per weight: a can hold c's 6 scaled by 1/3 = 2, c can hold
        // a's 2 scaled by 3 = 6. Both required.
        assert!(must_not_envy(&inst, a, c));
        assert!(must_not_envy(&inst, c, a));
        // c (limit 6) vs b: 3 x 4 = 12 > 6 exempt; b vs c: 6 / 3 = 2 <= 4 required.
        assert!(!must_not_envy(&inst, c, b));
        assert!(must_not_envy(&inst, b, c));
        // d is uncapped: it must not envy anyone; a capped tenant below N need not envy d, who
        // may hold all 8 (b: 8 > 4).
        for k in [a, b, c, e] {
            assert!(must_not_envy(&inst, d, k));
        }
        assert!(!must_not_envy(&inst, b, d));
        // e's cap of 20 is at least N = 8: unbounded, like d.
        for k in [a, b, c, d] {
            assert!(must_not_envy(&inst, e, k));
        }
        // a must not envy e only if 1/4 x 8 = 2 <= 2: on the boundary, required.
        assert!(must_not_envy(&inst, a, e));
    }

    #[test]
    fn envy_by_hand() {
        let inst = instance(
            r#"{"name": "light", "throughput": [1], "weight": 1},
               {"name": "heavy", "throughput": [1], "weight": 3}"#,
        );
        let alloc = Allocation {
            gpus: vec![vec![3.0], vec![5.0]],
        };
        // heavy: 5 / 3 per weight against light's 3 / 1: envy 3 - 5/3 = 4/3.
        assert!((envy(&inst, &alloc, 1, 0) - 4.0 / 3.0).abs() < 1e-12);
        assert!((envy(&inst, &alloc, 0, 1) + 4.0 / 3.0).abs() < 1e-12);
        assert!((si_target(&inst, 1) - 6.0).abs() < 1e-12);
    }
}
