//! Policies checked against values solved by hand or published.

use fairground_core::policies::{self, EfRows, OefCoop};
use fairground_core::properties::{self, SpProbeConfig};
use fairground_core::{Instance, Policy, Scenario};

fn scenario(json: &str) -> Scenario {
    Scenario::from_json(json).unwrap()
}

fn solve(policy: &str, inst: &Instance) -> fairground_core::Solution {
    policies::by_name(policy).unwrap().solve(inst).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-7
}

/// Gavel's example: T = [[0.5, 1, 2], [1, 2, 3]] on k80/p100/v100, scale factor 1, weight 1.
fn gavel_example(counts: [u32; 3]) -> Instance {
    scenario(&format!(
        r#"{{"gpu_types": [{{"name": "k80", "count": {}}}, {{"name": "p100", "count": {}}}, {{"name": "v100", "count": {}}}],
            "tenants": [{{"name": "a", "throughput": [0.5, 1, 2], "max_gpus": 1}},
                        {{"name": "b", "throughput": [1, 2, 3], "max_gpus": 1}}]}}"#,
        counts[0], counts[1], counts[2]
    ))
    .instance()
    .unwrap()
}

#[test]
fn gavel_las_matches_the_hand_checked_values() {
    // ../shared/BACKGROUND.md: 48/31 with n = (3, 2, 1), 24/19 with n = (1, 1, 1).
    let sol = solve("gavel-las", &gavel_example([3, 2, 1]));
    assert!(close(sol.objective, 48.0 / 31.0), "{}", sol.objective);
    let sol = solve("gavel-las", &gavel_example([1, 1, 1]));
    assert!(close(sol.objective, 24.0 / 19.0), "{}", sol.objective);
}

#[test]
fn gavel_max_sum_matches_the_hand_checked_value() {
    let sol = solve("gavel-max-sum", &gavel_example([1, 1, 1]));
    assert!(close(sol.objective, 4.0), "{}", sol.objective);
}

#[test]
fn water_filling_first_level_equals_las() {
    for counts in [[3, 2, 1], [1, 1, 1]] {
        let inst = gavel_example(counts);
        let las = solve("gavel-las", &inst).objective;
        let wf = solve("gavel-water-filling", &inst).objective;
        assert!(close(las, wf), "{counts:?}: las {las}, water filling {wf}");
    }
}

/// Two types with one GPU each; A = (1, 2), B = (1, 1) (BACKGROUND.md's SP example).
fn two_by_two(a: [f64; 2], b: [f64; 2], weights: [f64; 2]) -> Scenario {
    scenario(&format!(
        r#"{{"gpu_types": [{{"name": "slow", "count": 1}}, {{"name": "fast", "count": 1}}],
            "tenants": [{{"name": "A", "throughput": [{}, {}], "weight": {}}},
                        {{"name": "B", "throughput": [{}, {}], "weight": {}}}]}}"#,
        a[0], a[1], weights[0], b[0], b[1], weights[1]
    ))
}

#[test]
fn oef_coop_two_by_two_by_hand() {
    // A = (1, 2), B = (1, 1): the fast GPU to A, the slow one to B is efficient (3), SI (2 >= 1.5,
    // 1 >= 1) and EF (B is indifferent between the bundles). Unique: any slow GPU to A breaks B's SI.
    let inst = two_by_two([1.0, 2.0], [1.0, 1.0], [1.0, 1.0])
        .instance()
        .unwrap();
    for rows in [EfRows::Full, EfRows::Lazy] {
        let sol = OefCoop { ef_rows: rows }.solve(&inst).unwrap();
        assert!(close(sol.objective, 3.0), "{rows:?}: {}", sol.objective);
        assert!(close(sol.allocation.gpus[0][1], 1.0) && close(sol.allocation.gpus[1][0], 1.0));
    }
    // A = (1, 3), B = (1, 2): with A = (a1, a2), efficiency is 3 + a2; B's SI and EF both say
    // a1 + 2 a2 <= 1.5, A's say a1 + 3 a2 >= 2, so the optimum is a1 = 0, a2 = 3/4:
    // A = (0, 0.75), B = (1, 0.25), efficiency 3.75, u = (2.25, 1.5).
    let inst = two_by_two([1.0, 3.0], [1.0, 2.0], [1.0, 1.0])
        .instance()
        .unwrap();
    for rows in [EfRows::Full, EfRows::Lazy] {
        let sol = OefCoop { ef_rows: rows }.solve(&inst).unwrap();
        assert!(close(sol.objective, 3.75), "{rows:?}: {}", sol.objective);
        let g = &sol.allocation.gpus;
        assert!(
            close(g[0][0], 0.0)
                && close(g[0][1], 0.75)
                && close(g[1][0], 1.0)
                && close(g[1][1], 0.25),
            "{g:?}"
        );
    }
}

#[test]
fn oef_noncoop_two_by_two_by_hand() {
    // u_A = u_B = t with A = (a1, a2): 2 a1 + 3 a2 = 2, t = 1 + a2 / 2, so a2 = 2/3, t = 4/3.
    let inst = two_by_two([1.0, 2.0], [1.0, 1.0], [1.0, 1.0])
        .instance()
        .unwrap();
    let sol = solve("oef-noncoop", &inst);
    assert!(close(sol.objective, 4.0 / 3.0), "{}", sol.objective);
    let u = sol.allocation.utilities(&inst);
    assert!(close(u[0], 4.0 / 3.0) && close(u[1], 4.0 / 3.0));
    // Weighted 2:1: u_A = 2t, u_B = t gives 3 a1 + 4 a2 = 4 and t = 2/3 + a2/3: a2 = 1, t = 1.
    let inst = two_by_two([1.0, 2.0], [1.0, 1.0], [2.0, 1.0])
        .instance()
        .unwrap();
    let sol = solve("oef-noncoop", &inst);
    assert!(close(sol.objective, 1.0), "{}", sol.objective);
}

#[test]
fn sp_probe_finds_the_known_lie_against_oef_noncoop() {
    // BACKGROUND.md: truthful A gets 4/3; reporting (1, 1.5) gives A a true 1.6 (a2 = 0.8).
    let s = two_by_two([1.0, 2.0], [1.0, 1.0], [1.0, 1.0]);
    let probe = properties::sp_probe(&s, &policies::OefNonCoop, &SpProbeConfig::default()).unwrap();
    assert!(!probe.no_lie_found);
    let lie = probe.best_per_tenant[0]
        .as_ref()
        .expect("A has a profitable lie");
    assert!(close(lie.truthful_utility, 4.0 / 3.0));
    assert!(lie.lying_utility >= 1.6 - 1e-7, "{lie:?}");
}

#[test]
fn equal_split_is_not_pareto_efficient_and_the_witness_dominates() {
    let inst = two_by_two([1.0, 2.0], [1.0, 1.0], [1.0, 1.0])
        .instance()
        .unwrap();
    let equal = solve("equal-share", &inst);
    let report = properties::check(&inst, &equal.allocation);
    assert!(report.sharing_incentive.holds && report.envy_freeness.holds == Some(true));
    assert_eq!(report.pareto_efficiency.holds, Some(false));
    let h = report.pareto_efficiency.dominating.unwrap();
    let (before, after) = (equal.allocation.utilities(&inst), h.utilities(&inst));
    assert!(before.iter().zip(&after).all(|(b, a)| a >= &(b - 1e-7)));
    assert!(after.iter().sum::<f64>() > before.iter().sum::<f64>() + 0.1);
    // OEF-coop's allocation on the same scenario is Pareto efficient.
    let oef = solve("oef-coop", &inst);
    assert_eq!(
        properties::check(&inst, &oef.allocation)
            .pareto_efficiency
            .holds,
        Some(true)
    );
}

#[test]
fn max_sum_on_gavel_measurements_breaks_si_and_ef() {
    // On Gavel's measured models (../shared data) max-sum gives the cluster to whoever is fastest.
    let inst = fairground_core::presets::default_scenario()
        .instance()
        .unwrap();
    let max_sum = solve("gavel-max-sum", &inst);
    let report = properties::check(&inst, &max_sum.allocation);
    assert!(!report.sharing_incentive.holds);
    assert!(report.envy_freeness.pair.is_some());
}

#[test]
fn gavel_max_sum_counts_a_multi_gpu_job_at_its_whole_throughput() {
    // Two V100s. Job a: 1 step/s per GPU on 2 GPUs (Gavel's whole-job throughput 2); job b:
    // 0.8 per GPU on 1 GPU. Both GPUs to a give 2.0 steps/s; one each gives 1.8. Dividing a's
    // throughput by its scale factor (as if T were whole-job figures) would wrongly prefer b.
    let inst = scenario(
        r#"{"gpu_types": [{"name": "v100", "count": 2}],
            "tenants": [{"name": "a", "throughput": [1.0], "max_gpus": 2},
                        {"name": "b", "throughput": [0.8], "max_gpus": 1}]}"#,
    )
    .instance()
    .unwrap();
    let sol = solve("gavel-max-sum", &inst);
    assert!(close(sol.objective, 2.0), "{}", sol.objective);
    assert!(close(sol.allocation.gpus[0][0], 2.0));
}
