//! Nash welfare (Eisenberg–Gale) and the partial allocation mechanism against equilibria solved on
//! paper, and the mechanism's published guarantees (strategy-proofness, 1/e) on random scenarios.

use fairground_core::policies::{self, Market};
use fairground_core::properties::{self, SpProbeConfig};
use fairground_core::{Instance, Scenario, Solution};
use proptest::prelude::*;

fn scenario(a: [f64; 2], b: [f64; 2], weights: [f64; 2], cap_a: Option<f64>) -> Scenario {
    let cap = cap_a.map_or(String::new(), |c| format!(r#", "max_gpus": {c}"#));
    Scenario::from_json(&format!(
        r#"{{"gpu_types": [{{"name": "slow", "count": 1}}, {{"name": "fast", "count": 1}}],
            "tenants": [{{"name": "A", "throughput": [{}, {}], "weight": {}{cap}}},
                        {{"name": "B", "throughput": [{}, {}], "weight": {}}}]}}"#,
        a[0], a[1], weights[0], b[0], b[1], weights[1]
    ))
    .unwrap()
}

fn solve(policy: &str, inst: &Instance) -> (Solution, Market) {
    let sol = policies::by_name(policy).unwrap().solve(inst).unwrap();
    let market = sol.market.clone().expect("a market policy reports prices");
    (sol, market)
}

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

fn assert_near(what: &str, got: &[f64], want: &[f64]) {
    assert!(
        got.len() == want.len() && got.iter().zip(want).all(|(g, w)| near(*g, *w)),
        "{what}: got {got:?}, want {want:?}"
    );
}

/// Each of `got` within 1e-9 of `want`'s, relatively (prices of tiny budgets are tiny).
fn assert_relatively_near(what: &str, got: &[f64], want: &[f64]) {
    assert!(
        got.len() == want.len()
            && got
                .iter()
                .zip(want)
                .all(|(g, w)| (g - w).abs() <= 1e-9 * w.abs()),
        "{what}: got {got:?}, want {want:?}"
    );
}

/// The Nash welfare is `welfare`, and the prices' dual bound equals it.
fn assert_certified_at(sol: &Solution, market: &Market, welfare: f64) {
    assert!(
        near(sol.objective, welfare),
        "{} against {welfare}",
        sol.objective
    );
    assert!(
        near(market.dual_bound, sol.objective),
        "bound {}",
        market.dual_bound
    );
}

#[test]
fn nash_welfare_two_by_two_by_hand() {
    // A = (1, 3), B = (1, 2), budgets 1 each, so p_slow + p_fast = 2. A buys only fast GPUs, B the
    // slow one and the rest of the fast one; B spends on both only if 1 / p_slow = 2 / p_fast, so
    // p = (2/3, 4/3). A's budget buys 1 / (4/3) = 3/4 fast; B: slow (2/3) + 1/4 fast (1/3).
    // A's best buy is fast indeed (3 / (4/3) = 2.25 > 1 / (2/3) = 1.5). u = (2.25, 1.5).
    let inst = scenario([1.0, 3.0], [1.0, 2.0], [1.0, 1.0], None)
        .instance()
        .unwrap();
    let (sol, market) = solve("nash-welfare", &inst);
    assert_near("A", &sol.allocation.gpus[0], &[0.0, 0.75]);
    assert_near("B", &sol.allocation.gpus[1], &[1.0, 0.25]);
    assert_near("prices", &market.prices, &[2.0 / 3.0, 4.0 / 3.0]);
    assert!(
        near(sol.objective, 2.25f64.ln() + 1.5f64.ln()),
        "{}",
        sol.objective
    );
    assert!(near(market.dual_bound, sol.objective));
}

#[test]
fn nash_welfare_prices_a_type_worth_a_billionth_of_the_whole() {
    // Found by `cargo xtask fuzz`: one tenant, 482,659 GPUs of a type 3149.380740517351x as fast
    // as the single GPU of the other. It gets everything, u = 3149.380740517351 * 482659 + 1, and
    // spends its budget of 1 so that each type's speedup per price is u: p = (3149.38... / u, 1 / u).
    // The slow GPU adds a billionth to u; the interior point alone priced it 3.5% off.
    let inst = Scenario::from_json(
        r#"{"gpu_types": [{"name": "t0", "count": 482659}, {"name": "t1", "count": 1}],
            "tenants": [{"name": "u0", "throughput": [3149.380740517351, 1.0]}]}"#,
    )
    .unwrap()
    .instance()
    .unwrap();
    let (sol, market) = solve("nash-welfare", &inst);
    let u = 3149.380740517351 * 482659.0 + 1.0;
    assert_near("u0", &sol.allocation.gpus[0], &[482659.0, 1.0]);
    assert_near("prices", &market.prices, &[3149.380740517351 / u, 1.0 / u]);
    assert_certified_at(&sol, &market, u.ln());
}

#[test]
fn nash_welfare_prices_a_single_gpu_between_tiny_budgets() {
    // Found by `cargo xtask fuzz`. Budgets 1e-7 and 1e-9; speedups (each tenant's slowest type
    // is 1): A = (0, 1e4, 1), B = (1, 0, s) with s = 0.01 / 0.0022845583665858727. A takes every
    // t1 GPU, B every t0 and the one t2: at B's price for t2, w_B s / u_B, A's speedup per price
    // there is about 1e12, below the u_A / w_A = 6.2e14 it gets from t1. So u = (6.2e7, 5378 + s)
    // and p_j = w_i s_ij / u_i for the tenant holding j.
    let inst = Scenario::from_json(
        r#"{"gpu_types": [{"name": "t0", "count": 5378}, {"name": "t1", "count": 6200},
                          {"name": "t2", "count": 1}],
            "tenants": [{"name": "A", "throughput": [0, 100000000, 10000], "weight": 1e-7},
                        {"name": "B", "throughput": [0.0022845583665858727, 0, 0.01],
                         "weight": 1e-9}]}"#,
    )
    .unwrap()
    .instance()
    .unwrap();
    let (sol, market) = solve("nash-welfare", &inst);
    let s = 0.01 / 0.0022845583665858727;
    let (ua, ub) = (6200.0 * 1e4, 5378.0 + s);
    assert_near("A", &sol.allocation.gpus[0], &[0.0, 6200.0, 0.0]);
    assert_near("B", &sol.allocation.gpus[1], &[5378.0, 0.0, 1.0]);
    let want = [1e-9 / ub, 1e-7 * 1e4 / ua, 1e-9 * s / ub];
    assert_relatively_near("prices", &market.prices, &want);
    let welfare = 1e-7 * ua.ln() + 1e-9 * ub.ln();
    assert!(
        (sol.objective - welfare).abs() <= 1e-9 * welfare,
        "{}",
        sol.objective
    );
}

#[test]
fn nash_welfare_of_a_capped_tenant_on_one_type_of_many() {
    // Found by `cargo xtask fuzz`: one tenant that runs only on t1 (1,977 of the cluster's
    // 173,012 GPUs), capped at d = 2.986...; the interior point stalled. It takes d GPUs of t1;
    // no type is full, so p = 0 and the cap carries the price: q = w s / u = 1 / d (w = s = 1,
    // u = d).
    let d = 2.986186246826008;
    let inst = Scenario::from_json(&format!(
        r#"{{"gpu_types": [{{"name": "t0", "count": 171035}}, {{"name": "t1", "count": 1977}}],
            "tenants": [{{"name": "u0", "throughput": [0, 1], "max_gpus": {d}}}]}}"#
    ))
    .unwrap()
    .instance()
    .unwrap();
    let (sol, market) = solve("nash-welfare", &inst);
    assert_near("u0", &sol.allocation.gpus[0], &[0.0, d]);
    assert_near("prices", &market.prices, &[0.0, 0.0]);
    assert_near("cap price", &market.cap_prices, &[1.0 / d]);
    assert!(near(sol.objective, d.ln()), "{}", sol.objective);
}

#[test]
fn nash_welfare_with_weights_four_orders_apart() {
    // Found by `cargo xtask fuzz`. Each type has its own buyers: t0 (1 GPU) only B, t2 (98,641)
    // only C, t1 (1 GPU) A and D, who split it by their budgets. The interior point stopped
    // with C holding 58% of t2 and A 0.10 of t1.
    let w = [
        4.2242783921724673e-8,
        0.0004999010275820729,
        6.862585759305286e-8,
        1e-6,
    ];
    let inst = Scenario::from_json(&format!(
        r#"{{"gpu_types": [{{"name": "t0", "count": 1}}, {{"name": "t1", "count": 1}},
                           {{"name": "t2", "count": 98641}}],
            "tenants": [{{"name": "A", "throughput": [0, 1, 0], "weight": {}}},
                        {{"name": "B", "throughput": [1, 0, 0], "weight": {}}},
                        {{"name": "C", "throughput": [0, 0, 1], "weight": {}}},
                        {{"name": "D", "throughput": [0, 1, 0], "weight": {}}}]}}"#,
        w[0], w[1], w[2], w[3]
    ))
    .unwrap()
    .instance()
    .unwrap();
    let (sol, market) = solve("nash-welfare", &inst);
    let a = w[0] / (w[0] + w[3]);
    assert_near("A", &sol.allocation.gpus[0], &[0.0, a, 0.0]);
    assert_near("B", &sol.allocation.gpus[1], &[1.0, 0.0, 0.0]);
    assert_near("C", &sol.allocation.gpus[2], &[0.0, 0.0, 98641.0]);
    assert_near("D", &sol.allocation.gpus[3], &[0.0, 1.0 - a, 0.0]);
    // Each type's price is its buyers' budgets over its GPUs.
    let want = [w[1], w[0] + w[3], w[2] / 98641.0];
    assert_relatively_near("prices", &market.prices, &want);
}

#[test]
fn nash_welfare_when_a_cap_and_a_type_bind_together() {
    // Found by `cargo xtask fuzz`: one tenant capped at 1 GPU, a single GPU of its faster type
    // (s = 13.71... / 7.30...) and 39,899 of the slower. It takes the fast GPU: u = s. Its cap and
    // that type's capacity bind together, so the prices are not unique; the certificate needs a
    // cap price that keeps the spare slow GPUs unwanted (q >= 1 / u), which the solver's duals
    // did not give. Checked: the allocation, and the bound equal to the welfare.
    let inst = Scenario::from_json(
        r#"{"gpu_types": [{"name": "t0", "count": 39899}, {"name": "t1", "count": 1}],
            "tenants": [{"name": "u0", "throughput": [7.300095340134897, 13.712839374742856],
                         "max_gpus": 1}]}"#,
    )
    .unwrap()
    .instance()
    .unwrap();
    let (sol, market) = solve("nash-welfare", &inst);
    let s: f64 = 13.712839374742856 / 7.300095340134897;
    assert_near("u0", &sol.allocation.gpus[0], &[0.0, 1.0]);
    assert_certified_at(&sol, &market, s.ln());
}

#[test]
fn nash_welfare_of_a_capped_big_budget_beside_a_tiny_one() {
    // Found by `cargo xtask fuzz`: one type of 1,025 GPUs; A (w = 0.184...) capped at 87.2...,
    // B (w = 6.78e-6) uncapped. Split by budgets A would take nearly all; its cap binds, so A
    // holds d and B the rest, 1,025 - d, about 25,000 times its equal split. B sets the price,
    // p = w_B / (1,025 - d), and A's cap the rest of A's: q_A = w_A / d - p. The bound is then
    // p (1,025 - d) + w_A + sum_i w_i (ln x_i - 1) = w_A ln d + w_B ln (1,025 - d).
    let (w_a, w_b, d) = (0.18423791841274823, 6.778692338509136e-6, 87.22884688612963);
    let inst = Scenario::from_json(&format!(
        r#"{{"gpu_types": [{{"name": "t0", "count": 1025}}],
            "tenants": [{{"name": "A", "throughput": [1], "weight": {w_a}, "max_gpus": {d}}},
                        {{"name": "B", "throughput": [1], "weight": {w_b}}}]}}"#
    ))
    .unwrap()
    .instance()
    .unwrap();
    let (sol, market) = solve("nash-welfare", &inst);
    let rest = 1025.0 - d;
    assert_near("A", &sol.allocation.gpus[0], &[d]);
    assert_near("B", &sol.allocation.gpus[1], &[rest]);
    assert_relatively_near("price", &market.prices, &[w_b / rest]);
    assert_relatively_near(
        "cap prices",
        &market.cap_prices,
        &[w_a / d - w_b / rest, 0.0],
    );
    assert_certified_at(&sol, &market, w_a * d.ln() + w_b * rest.ln());
}

#[test]
fn nash_welfare_weighted_by_hand() {
    // w = (2, 1): budgets 2 and 1, p_slow + p_fast = 3. A takes the fast GPU, B the slow one:
    // stationarity w_i s_ij / u_i = p_j on what each holds gives p_fast = 2 x 3 / 3 = 2 and
    // p_slow = 1 x 1 / 1 = 1; A's slow (2/3 < 1) and B's fast (2/1 = 2 <= 2) buy no better.
    let inst = scenario([1.0, 3.0], [1.0, 2.0], [2.0, 1.0], None)
        .instance()
        .unwrap();
    let (sol, market) = solve("nash-welfare", &inst);
    assert_near("A", &sol.allocation.gpus[0], &[0.0, 1.0]);
    assert_near("B", &sol.allocation.gpus[1], &[1.0, 0.0]);
    assert_near("prices", &market.prices, &[1.0, 2.0]);
}

#[test]
fn nash_welfare_with_a_binding_cap_by_hand() {
    // A capped at half a GPU takes half the fast one (u_A = 1.5); B the rest (u_B = 1 + 2 x 0.5 = 2).
    // B holds both types: p = (1/2, 2/2) = (0.5, 1). A's fast: 3 / 1.5 = 2 = p_fast + q_A, q_A = 1.
    // Incomes: 0.5 x 1 + 1 x 1 + 1 x 0.5 = 2 = w_A + w_B.
    let inst = scenario([1.0, 3.0], [1.0, 2.0], [1.0, 1.0], Some(0.5))
        .instance()
        .unwrap();
    let (sol, market) = solve("nash-welfare", &inst);
    assert_near("A", &sol.allocation.gpus[0], &[0.0, 0.5]);
    assert_near("B", &sol.allocation.gpus[1], &[1.0, 0.5]);
    assert_near("prices", &market.prices, &[0.5, 1.0]);
    assert_near("cap prices", &market.cap_prices, &[1.0, 0.0]);
}

#[test]
fn partial_allocation_fractions_by_hand() {
    // Equal weights, the first case above: u* = (2.25, 1.5). Without A, B takes both GPUs
    // (u_B = 3); without B, A does (u_A = 1 + 3 = 4). f_A = 1.5 / 3 = 1/2, f_B = 2.25 / 4 = 9/16.
    let inst = scenario([1.0, 3.0], [1.0, 2.0], [1.0, 1.0], None)
        .instance()
        .unwrap();
    let (sol, market) = solve("partial-allocation", &inst);
    assert_near(
        "kept",
        market.kept_fraction.as_ref().unwrap(),
        &[0.5, 0.5625],
    );
    assert_near("A", &sol.allocation.gpus[0], &[0.0, 0.375]);
    assert_near("B", &sol.allocation.gpus[1], &[0.5625, 0.140625]);
    assert_near(
        "unallocated",
        market.unallocated.as_ref().unwrap(),
        &[0.4375, 0.484375],
    );
    // Weighted, w = (2, 1): u* = (3, 1), alone u_B = 3 and u_A = 4.
    // f_A = (1/3)^(1/2), f_B = (3/4)^(2/1).
    let inst = scenario([1.0, 3.0], [1.0, 2.0], [2.0, 1.0], None)
        .instance()
        .unwrap();
    let (_, market) = solve("partial-allocation", &inst);
    assert_near(
        "weighted kept",
        market.kept_fraction.as_ref().unwrap(),
        &[(1.0f64 / 3.0).sqrt(), 0.5625],
    );
}

#[test]
fn partial_allocation_keeps_fractions_when_weights_scale() {
    let base = scenario([1.0, 3.0], [1.0, 2.0], [2.0, 1.0], None);
    let scaled = scenario([1.0, 3.0], [1.0, 2.0], [20.0, 10.0], None);
    let (_, a) = solve("partial-allocation", &base.instance().unwrap());
    let (_, b) = solve("partial-allocation", &scaled.instance().unwrap());
    assert_near(
        "scaled",
        b.kept_fraction.as_ref().unwrap(),
        a.kept_fraction.as_ref().unwrap(),
    );
}

/// A random scenario: 2-4 types of 1-8 GPUs, 2-5 tenants with throughputs 1-8 per GPU, equal
/// weights (the 1/e bound is the unweighted mechanism's), optionally capped.
fn random_scenario(weighted: bool) -> impl Strategy<Value = Scenario> {
    (2usize..=4, 2usize..=5).prop_flat_map(move |(types, tenants)| {
        (
            prop::collection::vec(1u32..=8, types),
            prop::collection::vec(
                (
                    prop::collection::vec(1.0f64..8.0, types),
                    if weighted {
                        0.5f64..4.0
                    } else {
                        1.0f64..1.0001
                    },
                ),
                tenants,
            ),
        )
            .prop_map(move |(counts, tenants)| {
                let types: Vec<String> = counts
                    .iter()
                    .enumerate()
                    .map(|(j, n)| format!(r#"{{"name": "t{j}", "count": {n}}}"#))
                    .collect();
                let tenants: Vec<String> = tenants
                    .iter()
                    .enumerate()
                    .map(|(i, (row, w))| {
                        let w = if weighted { *w } else { 1.0 };
                        format!(r#"{{"name": "u{i}", "throughput": {row:?}, "weight": {w}}}"#)
                    })
                    .collect();
                Scenario::from_json(&format!(
                    r#"{{"gpu_types": [{}], "tenants": [{}]}}"#,
                    types.join(","),
                    tenants.join(",")
                ))
                .unwrap()
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Cole, Gkatzelis, Goel (EC 2013), Theorem: with equal weights every tenant keeps at least
    /// 1/e of its Nash-welfare utility. Recomputed here from the two allocations' utilities.
    #[test]
    fn partial_allocation_keeps_at_least_one_over_e(s in random_scenario(false)) {
        let inst = s.instance().unwrap();
        let nw = policies::by_name("nash-welfare").unwrap().solve(&inst).unwrap();
        let pa = policies::by_name("partial-allocation").unwrap().solve(&inst).unwrap();
        for i in 0..inst.tenants() {
            let kept = inst.utility(i, &pa.allocation.gpus[i]) / inst.utility(i, &nw.allocation.gpus[i]);
            prop_assert!(kept >= (-1.0f64).exp() * (1.0 - 1e-6) && kept <= 1.0 + 1e-6,
                "tenant {i} keeps {kept}");
        }
    }

    /// CEEI with budgets w_i: every tenant gets its equal split's worth (SI) and envies no one's
    /// bundle per unit of weight (weighted EF), and no one can be made better off for free (PE);
    /// checked from the definitions here, not through the checker.
    #[test]
    fn nash_welfare_is_si_ef_and_pe(s in random_scenario(true)) {
        let inst = s.instance().unwrap();
        let g = policies::by_name("nash-welfare").unwrap().solve(&inst).unwrap().allocation;
        let total_w: f64 = inst.weight.iter().sum();
        let u = |i: usize, k: usize| -> f64 {
            g.gpus[k].iter().zip(&inst.speedup[i]).map(|(x, s)| x * s).sum()
        };
        for i in 0..inst.tenants() {
            let share: f64 = inst.count.iter().zip(&inst.speedup[i])
                .map(|(n, s)| n * inst.weight[i] / total_w * s).sum();
            prop_assert!(u(i, i) >= share * (1.0 - 1e-6), "SI: {i} gets {} < {share}", u(i, i));
            for k in 0..inst.tenants() {
                prop_assert!(u(i, i) / inst.weight[i] >= u(i, k) / inst.weight[k] * (1.0 - 1e-6),
                    "EF: {i} envies {k}: {} vs {}", u(i, i) / inst.weight[i], u(i, k) / inst.weight[k]);
            }
        }
        let report = properties::check(&inst, &g);
        prop_assert_eq!(report.pareto_efficiency.holds, Some(true));
    }
}

#[test]
fn partial_allocation_probe_finds_no_profitable_lie() {
    // The three-tenant, three-type scenario below gives oef-noncoop's and gavel-las's probes
    // profitable lies; the mechanism's must find none.
    let s = Scenario::from_json(
        r#"{"gpu_types": [{"name": "k80", "count": 2}, {"name": "p100", "count": 2}, {"name": "v100", "count": 1}],
            "tenants": [{"name": "a", "throughput": [1, 2, 4]},
                        {"name": "b", "throughput": [1, 1.5, 2], "weight": 2},
                        {"name": "c", "throughput": [1, 3, 3.5], "max_gpus": 2}]}"#,
    )
    .unwrap();
    let probe = properties::sp_probe(
        &s,
        policies::by_name("partial-allocation").unwrap(),
        &SpProbeConfig::default(),
    )
    .unwrap();
    assert!(probe.misreports_tried > 50, "{}", probe.misreports_tried);
    assert!(probe.no_lie_found, "{:?}", probe.best);
    // The probe is not blind: Nash welfare itself is manipulable here.
    let nw = properties::sp_probe(
        &s,
        policies::by_name("nash-welfare").unwrap(),
        &SpProbeConfig::default(),
    )
    .unwrap();
    assert!(
        !nw.no_lie_found,
        "expected a profitable lie against nash-welfare"
    );
}
