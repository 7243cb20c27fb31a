//! gandiva-fair: trades worked out on paper, its properties through the checker, and a property
//! test of what trading may never do (lower anyone below its start, create or lose GPUs, break a
//! cap), with Pareto efficiency for two types checked by an LP written here from the definition.

use fairground_core::lp::Lp;
use fairground_core::policies::{self, starting_shares, Policy};
use fairground_core::properties::{self, SpProbeConfig};
use fairground_core::{report, Allocation, Instance, Scenario};
use proptest::prelude::*;

fn scenario(json: &str) -> Scenario {
    Scenario::from_json(json).unwrap()
}

fn gandiva(name: &str) -> &'static dyn Policy {
    policies::by_name(name).unwrap()
}

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

fn assert_gpus(got: &Allocation, want: &[[f64; 2]]) {
    for (i, row) in want.iter().enumerate() {
        for (j, &w) in row.iter().enumerate() {
            assert!(
                near(got.gpus[i][j], w),
                "tenant {i} type {j}: {:?}",
                got.gpus
            );
        }
    }
}

const TWO: &str = r#"{"gpu_types": [{"name": "k80", "count": 4}, {"name": "v100", "count": 4}],
    "tenants": [{"name": "a", "throughput": [1, 2]}, {"name": "b", "throughput": [1, 5]}]}"#;

/// Two tenants, 4 + 4 GPUs, each starting with 2 + 2. a values a V100 at 2 K80s, b at 5, so a
/// sells to b. Default rate: the r of the tenant just below the buyer, a's own 2: b's 2 K80s buy
/// 1 V100 (b runs out of K80s first, 2 / 2 < 2). a: (4, 1), u = 4 + 2 = 6, its start's 2 + 4;
/// b: (0, 3), u = 15 against 12. Midpoint 3.5: 2 K80s buy 4/7 V100: a (4, 10/7), u = 4 + 20/7;
/// b (0, 18/7), u = 90/7.
#[test]
fn two_tenants_trade_at_the_sellers_rate_or_the_midpoint() {
    let inst = scenario(TWO).instance().unwrap();
    let sol = gandiva("gandiva-fair").solve(&inst).unwrap();
    assert_gpus(&sol.allocation, &[[4.0, 1.0], [0.0, 3.0]]);
    assert_eq!(sol.trades.len(), 1);
    let t = &sol.trades[0];
    assert_eq!((t.slow, t.fast, t.seller, t.buyer), (0, 1, 0, 1));
    assert!(
        near(t.rate, 2.0) && near(t.sold, 1.0) && near(t.paid, 2.0),
        "{t:?}"
    );
    let u = sol.utilities(&inst);
    assert!(near(u[0], 6.0) && near(u[1], 15.0), "{u:?}");

    let mid = gandiva("gandiva-fair:midpoint").solve(&inst).unwrap();
    assert_gpus(&mid.allocation, &[[4.0, 10.0 / 7.0], [0.0, 18.0 / 7.0]]);
    assert!(near(mid.trades[0].rate, 3.5));
    let u = mid.utilities(&inst);
    assert!(
        near(u[0], 4.0 + 20.0 / 7.0) && near(u[1], 90.0 / 7.0),
        "{u:?}"
    );
}

/// Three tenants, c of weight 2, on 4 + 4: starts a (1, 1), b (1, 1), c (2, 2). r = 1.2, 1.5, 6.
/// First trade: a sells to c at b's 1.5; a's one V100 is worth 1.5 K80s, fewer than c's 2, so the
/// seller runs out: a (2.5, 0), c (0.5, 3). Then b (lowest r left) sells to c at b's own 1.5:
/// c's 0.5 K80 buys 1/3 V100: b (1.5, 2/3), c (0, 10/3).
#[test]
fn three_tenants_where_the_first_trade_exhausts_the_seller() {
    let inst = scenario(
        r#"{"gpu_types": [{"name": "k80", "count": 4}, {"name": "v100", "count": 4}],
            "tenants": [{"name": "a", "throughput": [1, 1.2]}, {"name": "b", "throughput": [1, 1.5]},
                        {"name": "c", "throughput": [1, 6], "weight": 2}]}"#,
    )
    .instance()
    .unwrap();
    let sol = gandiva("gandiva-fair").solve(&inst).unwrap();
    assert_gpus(
        &sol.allocation,
        &[[2.5, 0.0], [1.5, 2.0 / 3.0], [0.0, 10.0 / 3.0]],
    );
    let who: Vec<(usize, usize)> = sol.trades.iter().map(|t| (t.seller, t.buyer)).collect();
    assert_eq!(who, vec![(0, 2), (1, 2)]);
    assert!(near(sol.trades[0].sold, 1.0) && near(sol.trades[0].paid, 1.5));
    assert!(near(sol.trades[1].sold, 1.0 / 3.0) && near(sol.trades[1].paid, 0.5));
}

/// Not envy-free: a (r = 1), b (4), c (5) start at (1, 1) each on 3 + 3. a sells c 1/4 V100 for
/// c's K80 at b's rate 4; then a sells b its last 3/4 V100 at a's own rate 1. c ends at (0, 5/4),
/// u = 6.25, and values b's (1/4, 7/4) at 1/4 + 35/4 = 9: c envies b, who bought at a's price.
#[test]
fn the_checker_finds_envy_after_trading() {
    let s = scenario(
        r#"{"gpu_types": [{"name": "k80", "count": 3}, {"name": "v100", "count": 3}],
            "tenants": [{"name": "a", "throughput": [1, 1]}, {"name": "b", "throughput": [1, 4]},
                        {"name": "c", "throughput": [1, 5]}]}"#,
    );
    let inst = s.instance().unwrap();
    let r = report::run(&s, &inst, gandiva("gandiva-fair"), None).unwrap();
    assert_gpus(&r.allocation, &[[2.75, 0.0], [0.25, 1.75], [0.0, 1.25]]);
    let ef = &r.properties.envy_freeness;
    assert_eq!(ef.holds, Some(false));
    assert_eq!(ef.pair, Some((2, 1)), "c envies b");
    assert!(near(ef.worst_envy, 9.0 - 6.25), "{ef:?}");
    // Sharing incentive holds (everyone starts at its equal split and only gains).
    assert!(r.properties.sharing_incentive.holds);
}

/// Not strategy-proof: in the two-tenant case a is paid its own r, so trading gains it nothing. Overstating its V100 speedup (4.9 for 2) raises the rate to 4.9
/// while a stays the seller: b's 2 K80s now buy 2/4.9 V100, and a, by its true rates, gets
/// 4 + 2 (2 - 2/4.9) = 7.18 > 6. The SP probe finds a profitable lie for a too.
#[test]
fn a_seller_gains_by_overstating_its_fast_speedup() {
    let truthful = scenario(TWO);
    let inst = truthful.instance().unwrap();
    let honest = gandiva("gandiva-fair").solve(&inst).unwrap();
    let mut lie = truthful.clone();
    lie.tenants[0].throughput = vec![1.0, 4.9];
    let lied = gandiva("gandiva-fair")
        .solve(&lie.instance().unwrap())
        .unwrap();
    let true_u = |g: &[f64]| g[0] + 2.0 * g[1];
    let (before, after) = (
        true_u(&honest.allocation.gpus[0]),
        true_u(&lied.allocation.gpus[0]),
    );
    assert!(near(before, 6.0));
    assert!(near(after, 4.0 + 2.0 * (2.0 - 2.0 / 4.9)), "{after}");
    let probe = properties::sp_probe(
        &truthful,
        gandiva("gandiva-fair"),
        &SpProbeConfig::default(),
    )
    .unwrap();
    assert!(!probe.no_lie_found);
    assert!(probe.best_per_tenant[0].is_some(), "a's lie is found");
}

/// A capped tenant's unused share goes to the others by weight: c (cap 1 of 6 GPUs) holds 1/6
/// of each type; a and b (weights 1 and 2) split the rest 5/18 and 10/18.
#[test]
fn a_capped_tenants_share_is_spread_by_weight() {
    let inst = scenario(
        r#"{"gpu_types": [{"name": "k80", "count": 3}, {"name": "v100", "count": 3}],
            "tenants": [{"name": "a", "throughput": [1, 2]}, {"name": "b", "throughput": [1, 2], "weight": 2},
                        {"name": "c", "throughput": [1, 2], "max_gpus": 1}]}"#,
    )
    .instance()
    .unwrap();
    let start = starting_shares(&inst);
    assert_gpus(
        &start,
        &[[5.0 / 6.0, 5.0 / 6.0], [5.0 / 3.0, 5.0 / 3.0], [0.5, 0.5]],
    );
    // Same speedups: nobody gains from a trade, so none happens.
    let sol = gandiva("gandiva-fair").solve(&inst).unwrap();
    assert!(sol.trades.is_empty());
    assert_eq!(sol.allocation, start);
}

fn random_scenario() -> impl Strategy<Value = (Scenario, bool)> {
    (2usize..=4, 2usize..=6, any::<u64>(), any::<bool>()).prop_map(
        |(types, tenants, seed, capped)| {
            use rand::{Rng, SeedableRng};
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let gpu_types: Vec<String> = (0..types)
                .map(|j| {
                    format!(
                        r#"{{"name": "t{j}", "count": {}}}"#,
                        rng.random_range(1..=8)
                    )
                })
                .collect();
            let rows: Vec<String> = (0..tenants)
                .map(|i| {
                    let rates: Vec<String> = (0..types)
                        .map(|j| {
                            // The first type hosts everyone (it is the normalisation reference).
                            if j > 0 && rng.random_bool(0.1) {
                                "0".into()
                            } else {
                                format!("{:.3}", rng.random_range(0.2..6.0))
                            }
                        })
                        .collect();
                    let cap = if capped && rng.random_bool(0.4) {
                        format!(r#", "max_gpus": {:.2}"#, rng.random_range(0.5..4.0))
                    } else {
                        String::new()
                    };
                    format!(
                        r#"{{"name": "u{i}", "throughput": [{}], "weight": {:.2}{cap}}}"#,
                        rates.join(", "),
                        rng.random_range(0.5..3.0)
                    )
                })
                .collect();
            let json = format!(
                r#"{{"gpu_types": [{}], "tenants": [{}], "normalization": "slowest"}}"#,
                gpu_types.join(", "),
                rows.join(", ")
            );
            (scenario(&json), capped)
        },
    )
}

/// Efficiency above g's with nobody worse off (0: g is Pareto-efficient): max sum_i u_i(h_i)
/// over h within capacity and caps with u_i(h_i) >= u_i(g_i), written from the definition.
fn pareto_gain(inst: &Instance, g: &Allocation) -> f64 {
    let mut lp = Lp::maximize();
    let h: Vec<Vec<_>> = (0..inst.tenants())
        .map(|i| {
            (0..inst.types())
                .map(|j| lp.var(inst.speedup[i][j]))
                .collect()
        })
        .collect();
    for j in 0..inst.types() {
        lp.le(h.iter().map(|row| (row[j], 1.0)), inst.count[j]);
    }
    let mut now = 0.0;
    for (i, row) in h.iter().enumerate() {
        let u: f64 = (0..inst.types())
            .map(|j| inst.speedup[i][j] * g.gpus[i][j])
            .sum();
        now += u;
        lp.ge(
            (0..inst.types()).map(|j| (row[j], inst.speedup[i][j])),
            u * (1.0 - 1e-12),
        );
        if let Some(cap) = inst.cap[i] {
            lp.le(row.iter().map(|&v| (v, 1.0)), cap);
        }
    }
    lp.solve().unwrap().objective() - now
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Whatever the rule: every type's GPUs are all still there (none made, none lost), every
    /// cap holds, nobody ends below its start, and each trade is between two sides that both
    /// value it (seller's r <= rate <= buyer's r). With two types, no caps and every tenant able
    /// to use both, the end is Pareto-efficient.
    #[test]
    fn trading_conserves_gpus_and_lowers_no_one((s, capped) in random_scenario()) {
        let inst = s.instance().unwrap();
        let start = starting_shares(&inst);
        for name in ["gandiva-fair", "gandiva-fair:midpoint"] {
            let sol = gandiva(name).solve(&inst).unwrap();
            let g = &sol.allocation;
            for j in 0..inst.types() {
                let used: f64 = g.gpus.iter().map(|row| row[j]).sum();
                let had: f64 = start.gpus.iter().map(|row| row[j]).sum();
                prop_assert!((used - had).abs() <= 1e-9 * inst.count[j], "{name}: type {j} {had} -> {used}");
                prop_assert!(g.gpus.iter().all(|row| row[j] >= -1e-12));
            }
            for i in 0..inst.tenants() {
                let u = |b: &[f64]| b.iter().zip(&inst.speedup[i]).map(|(x, s)| x * s).sum::<f64>();
                prop_assert!(u(&g.gpus[i]) >= u(&start.gpus[i]) * (1.0 - 1e-9) - 1e-12,
                    "{name}: {i} from {} to {}", u(&start.gpus[i]), u(&g.gpus[i]));
                if let Some(cap) = inst.cap[i] {
                    prop_assert!(g.gpus[i].iter().sum::<f64>() <= cap * (1.0 + 1e-9));
                }
            }
            for t in &sol.trades {
                let r = |i: usize| inst.speedup[i][t.fast] / inst.speedup[i][t.slow];
                prop_assert!(r(t.seller) <= t.rate * (1.0 + 1e-12) && t.rate <= r(t.buyer) * (1.0 + 1e-12),
                    "{name}: {t:?}");
            }
            let all_use_both = inst.speedup.iter().all(|row| row.iter().all(|&s| s > 0.0));
            if inst.types() == 2 && !capped && all_use_both {
                let gain = pareto_gain(&inst, g);
                let total: f64 = sol.utilities(&inst).iter().sum();
                prop_assert!(gain <= 1e-7 * total, "{name}: not Pareto-efficient, {gain} more possible");
            }
        }
    }
}
