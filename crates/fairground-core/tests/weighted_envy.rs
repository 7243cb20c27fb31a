//! Weighted envy-freeness, checked against values solved by hand, against HiGHS, and by a
//! property test that recomputes envy from the allocation alone — never through the engine's
//! own fairness helpers (`fairness::must_not_envy`, `Metrics`), which is how an earlier version
//! certified its own mistake (a heavier tenant was never asked not to envy a lighter one).

use fairground_core::policies::{self, EfRows, OefCoop};
use fairground_core::{properties, report, Allocation, Policy, Scenario};
use proptest::prelude::*;

fn scenario(json: &str) -> Scenario {
    Scenario::from_json(json).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-7 * b.abs().max(1.0)
}

/// s_ij from the raw throughputs, normalised to each tenant's slowest type (the default).
fn speedups(s: &Scenario) -> Vec<Vec<f64>> {
    s.tenants
        .iter()
        .map(|t| {
            let slowest = t.throughput.iter().copied().fold(f64::INFINITY, f64::min);
            t.throughput.iter().map(|x| x / slowest).collect()
        })
        .collect()
}

fn value(speedup: &[f64], bundle: &[f64]) -> f64 {
    speedup.iter().zip(bundle).map(|(s, g)| s * g).sum()
}

/// The README's rule, written out again here: i must not envy k iff (w_i/w_k) H_k <= C_i with
/// H_k = min(d_k, N) and C_i = d_i when d_i < N, unbounded otherwise.
fn required(s: &Scenario, i: usize, k: usize) -> bool {
    let total: f64 = s.gpu_types.iter().map(|t| f64::from(t.count)).sum();
    let (ti, tk) = (&s.tenants[i], &s.tenants[k]);
    let held_k = tk.max_gpus.map_or(total, |d| d.min(total));
    match ti.max_gpus.filter(|&d| d < total) {
        None => true,
        Some(limit) => ti.weight / tk.weight * held_k <= limit * (1.0 + 1e-12),
    }
}

/// The worst required envy, relative to the envier's own utility per weight, with its pair.
fn worst_envy(s: &Scenario, g: &Allocation) -> Option<(usize, usize, f64)> {
    let sp = speedups(s);
    let mut worst: Option<(usize, usize, f64)> = None;
    for (i, s_i) in sp.iter().enumerate() {
        let own = value(s_i, &g.gpus[i]) / s.tenants[i].weight;
        for k in (0..s.tenants.len()).filter(|&k| k != i && required(s, i, k)) {
            let theirs = value(s_i, &g.gpus[k]) / s.tenants[k].weight;
            let envy = (theirs - own) / own.abs().max(1e-12);
            if worst.is_none_or(|(_, _, w)| envy > w) {
                worst = Some((i, k, envy));
            }
        }
    }
    worst
}

fn efficiency(s: &Scenario, g: &Allocation) -> f64 {
    let sp = speedups(s);
    (0..s.tenants.len())
        .map(|i| value(&sp[i], &g.gpus[i]))
        .sum()
}

fn oef_both_ways(s: &Scenario) -> Vec<Allocation> {
    let inst = s.instance().unwrap();
    [EfRows::Full, EfRows::Lazy]
        .into_iter()
        .map(|rows| OefCoop { ef_rows: rows }.solve(&inst).unwrap().allocation)
        .collect()
}

#[test]
fn two_tenants_weights_1_and_3_one_type() {
    // 4 GPUs: SI gives light >= 1 and heavy >= 3, which uses all 4, so g = (1, 3); each holds
    // 1 GPU per unit of weight, so neither envies the other.
    let s = scenario(
        r#"{"gpu_types": [{"name": "v100", "count": 4}],
            "tenants": [{"name": "light", "throughput": [2], "weight": 1},
                        {"name": "heavy", "throughput": [5], "weight": 3}]}"#,
    );
    for g in oef_both_ways(&s) {
        assert!(
            close(g.gpus[0][0], 1.0) && close(g.gpus[1][0], 3.0),
            "{g:?}"
        );
    }
}

#[test]
fn two_tenants_weights_1_and_3_two_types() {
    // n = (4, 4); light s = (1, 4), heavy s = (1, 3). Equal split: light (1, 1) worth 5, heavy
    // (3, 3) worth 12. X is worth 1 to both, Y 4 to light and 3 to heavy, so the efficient way
    // to give heavy its 12 is all of X then 8/3 of Y; light keeps 4/3 of Y (worth 16/3 >= 5).
    // Any X left with light could be swapped for a third as much Y to light's gain, so this is
    // the unique optimum: efficiency 16/3 + 12 = 52/3. EF: light 16/3 >= (4 + 32/3)/3 = 44/9;
    // heavy 12/3 = 4 >= 3 x 4/3 = 4 (tight: with two tenants, SI implies EF).
    let s = scenario(
        r#"{"gpu_types": [{"name": "x", "count": 4}, {"name": "y", "count": 4}],
            "tenants": [{"name": "light", "throughput": [1, 4], "weight": 1},
                        {"name": "heavy", "throughput": [1, 3], "weight": 3}]}"#,
    );
    for g in oef_both_ways(&s) {
        let want = [[0.0, 4.0 / 3.0], [4.0, 8.0 / 3.0]];
        for (row, w) in g.gpus.iter().zip(want) {
            assert!(close(row[0], w[0]) && close(row[1], w[1]), "{g:?}");
        }
        assert!(close(efficiency(&s, &g), 52.0 / 3.0));
        assert!(worst_envy(&s, &g).unwrap().2 <= 1e-7);
    }
}

/// Three tenants where the heavy one's envy of a light one binds: the case the old rule got
/// wrong (it never constrained heavy -> light and reported efficiency 22 with heavy envying).
fn heavy_envies_light() -> Scenario {
    scenario(
        r#"{"gpu_types": [{"name": "x", "count": 5}, {"name": "y", "count": 5}],
            "tenants": [{"name": "a", "throughput": [1, 4], "weight": 1},
                        {"name": "b", "throughput": [1, 1], "weight": 1},
                        {"name": "c", "throughput": [1, 3], "weight": 3}]}"#,
    )
}

#[test]
fn three_tenants_heavy_towards_light_by_hand() {
    // W = 5: equal splits a (1,1), b (1,1), c (3,3). All of X is worth 1 to everyone, so
    // efficiency = 5 + 4 y_a + y_b + 3 y_c; b takes no Y and a no X at the optimum. With
    // x_b + x_c = 5 and y_a + y_c = 5 the binding rows are
    //   c -> a:  (x_c + 3 y_c) / 3 = 3 y_a   =>  x_c = 12 y_a - 15
    //   b -> c:  3 x_b = x_c + y_c           =>  x_c = (10 + y_a) / 4
    // so 47 y_a = 70: y_a = 70/47, x_c = 135/47, x_b = 100/47, y_c = 165/47, and efficiency is
    // 20 + y_a = 1010/47 (HiGHS on the full model agrees: 21.4893617).
    let s = heavy_envies_light();
    for g in oef_both_ways(&s) {
        let want = [
            [0.0, 70.0 / 47.0],
            [100.0 / 47.0, 0.0],
            [135.0 / 47.0, 165.0 / 47.0],
        ];
        for (row, w) in g.gpus.iter().zip(want) {
            assert!(close(row[0], w[0]) && close(row[1], w[1]), "{g:?}");
        }
        assert!(close(efficiency(&s, &g), 1010.0 / 47.0));
        let (_, _, envy) = worst_envy(&s, &g).unwrap();
        assert!(envy <= 1e-7, "{envy}");
    }
}

#[test]
fn every_verdict_condemns_the_old_answer() {
    // The old rule's optimum: a (0, 2), b (2, 0), c (3, 3), efficiency 22. c holds 4 per unit
    // of weight in its own eyes and values a's bundle at 6: envy 2, 50% of its own.
    let s = heavy_envies_light();
    let inst = s.instance().unwrap();
    let old = Allocation {
        gpus: vec![vec![0.0, 2.0], vec![2.0, 0.0], vec![3.0, 3.0]],
    };
    let (i, k, envy) = worst_envy(&s, &old).unwrap();
    assert_eq!((i, k), (2, 0));
    assert!(close(envy, 0.5));
    // The checker (CLI table, --json, compare, JS API and the playground's badge all read it).
    let verdict = properties::check(&inst, &old).envy_freeness;
    assert_eq!(verdict.holds, Some(false));
    assert_eq!(verdict.pair, Some((2, 0)));
    assert!(close(verdict.worst_envy, 2.0));
    // The envy heatmap's data marks the pair as constrained.
    let metrics = fairground_core::Metrics::of(&inst, &old);
    assert!(metrics.envy.required[2][0]);
    assert!(close(metrics.envy.envy[2][0], 2.0));
}

#[test]
fn a_cap_below_the_cluster_exempts_only_bundles_it_could_not_hold() {
    // One type, 8 GPUs. a is capped at 2, b uncapped; weights 1. SI: a >= 2 (its split of 4,
    // capped), b >= 4. b must not envy a; a need not envy b, whose bundle (up to 8) a could not
    // hold. The efficient answer is a = 2, b = 6 (efficiency 8), envy-free under the rule although
    // a would like b's bundle; were a -> b required, b could hold only 2 and 4 GPUs would idle.
    let s = scenario(
        r#"{"gpu_types": [{"name": "v100", "count": 8}],
            "tenants": [{"name": "a", "throughput": [1], "max_gpus": 2},
                        {"name": "b", "throughput": [1]}]}"#,
    );
    assert!(!required(&s, 0, 1) && required(&s, 1, 0));
    let inst = s.instance().unwrap();
    for g in oef_both_ways(&s) {
        assert!(
            close(g.gpus[0][0], 2.0) && close(g.gpus[1][0], 6.0),
            "{g:?}"
        );
        let verdict = properties::check(&inst, &g).envy_freeness;
        assert_eq!(verdict.holds, Some(true));
    }
    // A cap at or above the cluster (a's 8) never binds: a is then as if uncapped, and EF
    // splits the GPUs 4 / 4 by weight.
    let s = scenario(
        r#"{"gpu_types": [{"name": "v100", "count": 8}],
            "tenants": [{"name": "a", "throughput": [1], "max_gpus": 8},
                        {"name": "b", "throughput": [1], "weight": 1}]}"#,
    );
    for g in oef_both_ways(&s) {
        assert!(
            close(g.gpus[0][0], 4.0) && close(g.gpus[1][0], 4.0),
            "{g:?}"
        );
    }
}

#[test]
fn oef_coop_matches_highs_on_weighted_scenarios() {
    // Expected efficiencies come from tests/reference/oef_coop_highs.py: HiGHS on the full
    // model, written from README's statement (not part of CI; the committed file is its output).
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/oef_coop_weighted.json"
    ))
    .unwrap();
    let data: serde_json::Value = serde_json::from_str(&text).unwrap();
    let cases = data["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 24);
    for (c, case) in cases.iter().enumerate() {
        let s: Scenario = serde_json::from_value(case["scenario"].clone()).unwrap();
        let want = case["efficiency"].as_f64().unwrap();
        for g in oef_both_ways(&s) {
            let got = efficiency(&s, &g);
            assert!(
                (got - want).abs() <= 1e-6 * want,
                "case {c}: efficiency {got}, HiGHS {want}"
            );
            let (i, k, envy) = worst_envy(&s, &g).unwrap();
            assert!(envy <= 1e-7, "case {c}: {i} envies {k} by {envy}");
        }
    }
}

fn weighted_scenario() -> impl Strategy<Value = Scenario> {
    (1usize..=4, 2usize..=8).prop_flat_map(|(types, tenants)| {
        let counts = proptest::collection::vec(1u32..=6, types);
        let rows = proptest::collection::vec(
            (
                proptest::collection::vec(0.2f64..10.0, types),
                prop_oneof![Just(1.0), Just(2.0), Just(3.0), 0.25f64..5.0],
            ),
            tenants,
        );
        (counts, rows).prop_map(|(counts, rows)| {
            let json = serde_json::json!({
                "gpu_types": counts.iter().enumerate()
                    .map(|(j, n)| serde_json::json!({"name": format!("t{j}"), "count": n}))
                    .collect::<Vec<_>>(),
                "tenants": rows.iter().enumerate()
                    .map(|(i, (t, w))| serde_json::json!({"name": format!("u{i}"), "throughput": t, "weight": w}))
                    .collect::<Vec<_>>(),
            });
            Scenario::from_json(&json.to_string()).unwrap()
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Uncapped weighted scenarios: oef-coop is envy-free for every ordered pair, recomputed here
    /// from the allocation alone; and for every policy, the checker's EF verdict (what every
    /// front end shows) agrees with the recomputation.
    #[test]
    fn weighted_envy_recomputed_from_the_allocation(s in weighted_scenario()) {
        let inst = s.instance().unwrap();
        for policy in policies::all() {
            let Ok(shown) = report::run(&s, &inst, policy, None) else { continue };
            let g = &shown.allocation;
            let (i, k, envy) = worst_envy(&s, g).unwrap();
            if policy.name() == "oef-coop" {
                prop_assert!(envy <= 1e-7, "oef-coop: {} envies {} by {}", i, k, envy);
            }
            // The same worst envy in absolute terms (utility per weight), against the largest
            // utility, to judge the verdict away from its tolerance.
            let sp = speedups(&s);
            let utils: Vec<f64> = (0..s.tenants.len()).map(|t| value(&sp[t], &g.gpus[t])).collect();
            let scale = utils.iter().copied().fold(1.0, f64::max);
            let absolute = (0..s.tenants.len())
                .flat_map(|a| (0..s.tenants.len()).map(move |b| (a, b)))
                .filter(|&(a, b)| a != b && required(&s, a, b))
                .map(|(a, b)| value(&sp[a], &g.gpus[b]) / s.tenants[b].weight - utils[a] / s.tenants[a].weight)
                .fold(f64::NEG_INFINITY, f64::max);
            let verdict = shown.properties.envy_freeness;
            if absolute > 1e-4 * scale {
                prop_assert!(verdict.holds == Some(false), "{}: {} envies {} (envy {}) but EF shown as holding", policy.name(), i, k, absolute);
                let (a, b) = verdict.pair.unwrap();
                prop_assert!(required(&s, a, b));
            } else if absolute < 1e-8 * scale {
                prop_assert!(verdict.holds == Some(true), "{}: EF shown as failing at worst envy {}", policy.name(), absolute);
            }
        }
    }
}
