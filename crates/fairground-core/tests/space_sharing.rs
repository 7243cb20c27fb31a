//! `gavel-las-packed` as an allocation policy: scenarios with co-located pairs, the GPUs pairs
//! share, the properties checked on them, and the scenario's validation of pairs. Every value
//! is recomputed here from the definitions, not through the engine's helpers.

#![allow(clippy::needless_range_loop)] // the tests index as the formulas do

use fairground_core::report;
use fairground_core::{policies, CoLocated, GpuType, Normalization, Scenario, Solution, Tenant};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn tenant(name: &str, throughput: &[f64], cap: Option<f64>) -> Tenant {
    Tenant {
        name: name.into(),
        throughput: throughput.to_vec(),
        weight: 1.0,
        max_gpus: cap,
        work: None,
        entity: None,
    }
}

fn pair(a: &str, b: &str, throughput: &[[f64; 2]]) -> CoLocated {
    CoLocated {
        tenants: vec![a.into(), b.into()],
        throughput: throughput.iter().map(|r| r.to_vec()).collect(),
    }
}

fn scenario(counts: &[u32], tenants: Vec<Tenant>, pairs: Vec<CoLocated>) -> Scenario {
    Scenario {
        version: 1,
        gpu_types: counts
            .iter()
            .enumerate()
            .map(|(j, &count)| GpuType {
                name: format!("gpu{j}"),
                count,
            })
            .collect(),
        tenants,
        normalization: Normalization::Slowest,
        entities: Vec::new(),
        co_located: pairs,
    }
}

/// A random scenario with pairs: 1-3 types of 1..=`max_count` GPUs, 2..=`max_tenants`
/// single-GPU jobs running 0.5-4 per GPU, each pair co-located with probability `p_pair`, each
/// sharing at `slowest`-0.9 of its speed alone.
fn random_with_pairs(
    rng: &mut StdRng,
    max_count: u32,
    max_tenants: usize,
    p_pair: f64,
    slowest: f64,
) -> Scenario {
    let types = rng.random_range(1..=3);
    let counts: Vec<u32> = (0..types)
        .map(|_| rng.random_range(1..=max_count))
        .collect();
    let n = rng.random_range(2..=max_tenants);
    let tenants: Vec<Tenant> = (0..n)
        .map(|i| {
            let t: Vec<f64> = (0..types).map(|_| rng.random_range(0.5..4.0)).collect();
            tenant(&format!("j{i}"), &t, Some(1.0))
        })
        .collect();
    let mut pairs = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            if rng.random_bool(p_pair) {
                let t: Vec<[f64; 2]> = (0..types)
                    .map(|j| {
                        [
                            tenants[a].throughput[j] * rng.random_range(slowest..0.9),
                            tenants[b].throughput[j] * rng.random_range(slowest..0.9),
                        ]
                    })
                    .collect();
                pairs.push(pair(&tenants[a].name, &tenants[b].name, &t));
            }
        }
    }
    scenario(&counts, tenants, pairs)
}

/// V100 x1, K80 x1; single-GPU jobs a (4 on a V100, 1 on a K80) and b (2 and 1); sharing the
/// V100 they run 3 and 1.5, the K80 0.5 and 0.5. Solved by hand in gavel_las_packed.rs's
/// tests: the V100 shared 14/17 of the time, b alone on it 3/17, a alone on the K80 3/17;
/// level 18/17 (without sharing 1).
fn hand_case() -> Scenario {
    scenario(
        &[1, 1],
        vec![
            tenant("a", &[4.0, 1.0], Some(1.0)),
            tenant("b", &[2.0, 1.0], Some(1.0)),
        ],
        vec![pair("a", "b", &[[3.0, 1.5], [0.5, 0.5]])],
    )
}

#[test]
fn the_hand_case_through_solve() {
    let s = hand_case();
    let inst = s.instance().unwrap();
    let policy = policies::by_name("gavel-las-packed").unwrap();
    let r = report::run(&s, &inst, policy, None).unwrap();
    let near = |x: f64, want: f64| (x - want).abs() < 1e-7;
    assert!(near(r.objective, 18.0 / 17.0), "level {}", r.objective);
    assert!(near(r.shared[0][0], 14.0 / 17.0), "{:?}", r.shared);
    assert!(near(r.shared[0][1], 0.0));
    assert!(
        near(r.allocation.gpus[0][1], 3.0 / 17.0),
        "{:?}",
        r.allocation
    );
    assert!(
        near(r.allocation.gpus[1][0], 3.0 / 17.0),
        "{:?}",
        r.allocation
    );
    // Utilities in K80 equivalents (each tenant's slowest type runs at 1): alone plus shared.
    let h = r.shared[0][0];
    let ua = 4.0 * r.allocation.gpus[0][0] + r.allocation.gpus[0][1] + 3.0 * h;
    let ub = 2.0 * r.allocation.gpus[1][0] + r.allocation.gpus[1][1] + 1.5 * h;
    assert!(
        near(r.utility[0], ua) && near(r.utility[1], ub),
        "{:?}",
        r.utility
    );
    assert!(near(r.efficiency, ua + ub));
    // Equal splits (half of each GPU): a 2.5, b 1.5; both get 18/17 of theirs.
    assert!(near(r.metrics.si_ratio[0], ua / 2.5) && near(ua / 2.5, 18.0 / 17.0));
    assert!(r.properties.sharing_incentive.holds);
    // With GPUs shared, EF has no verdict; PE has one (pareto_efficiency_counts_sharing).
    assert_eq!(r.properties.envy_freeness.holds, None);
    assert!(r.properties.envy_freeness.undecided.is_some());
    // The V100 counted once: b alone 3/17 plus the pair's 14/17.
    assert!(
        near(r.metrics.utilisation[0], 1.0),
        "{:?}",
        r.metrics.utilisation
    );
    // gavel-las on the same scenario cannot share: level 1.
    let las = report::run(&s, &inst, policies::by_name("gavel-las").unwrap(), None).unwrap();
    assert!(near(las.objective, 1.0), "{}", las.objective);
    assert!(las.shared.is_empty());
}

/// Pairs whose sharing is slow (each runs at 0.4 of alone, so slicing beats sharing) share
/// nothing, and EF is then checked as usual.
#[test]
fn slow_sharing_is_left_unused_and_ef_is_judged() {
    let s = scenario(
        &[2],
        vec![
            tenant("a", &[1.0], Some(1.0)),
            tenant("b", &[1.0], Some(1.0)),
        ],
        vec![pair("a", "b", &[[0.4, 0.4]])],
    );
    let inst = s.instance().unwrap();
    let r = report::run(
        &s,
        &inst,
        policies::by_name("gavel-las-packed").unwrap(),
        None,
    )
    .unwrap();
    assert!(r.shared[0][0] < 1e-9, "{:?}", r.shared);
    assert_eq!(r.properties.envy_freeness.holds, Some(true));
    // One GPU each (their caps), normalised throughput 1 / (2 * 1 / 2) = 1.
    assert!((r.objective - 1.0).abs() < 1e-9, "{}", r.objective);
}

/// Without pairs the policy is Gavel's max-min fairness: the same level as gavel-las, and no
/// shared GPUs reported.
#[test]
fn without_pairs_it_is_gavel_las() {
    for mut s in [fairground_core::presets::default_scenario()]
        .into_iter()
        .chain(
            fairground_core::presets::all()
                .into_iter()
                .map(|p| p.scenario),
        )
    {
        s.co_located.clear();
        let inst = s.instance().unwrap();
        let packed = policies::by_name("gavel-las-packed")
            .unwrap()
            .solve(&inst)
            .unwrap();
        let las = policies::by_name("gavel-las")
            .unwrap()
            .solve(&inst)
            .unwrap();
        assert!(
            (packed.objective - las.objective).abs() <= 1e-7 * las.objective,
            "{} against {}",
            packed.objective,
            las.objective
        );
        assert!(packed.shared.is_empty());
    }
}

/// Random clusters with random pairs: every answer meets the program's rows, recomputed here
/// (capacity with each pair's GPUs once, each job's time alone and shared within its scale
/// factor), every tenant's normalised throughput reaches the reported level, the level is at
/// least gavel-las's (sharing only adds choices), and the SI verdict matches the utilities.
#[test]
fn random_pairs_meet_the_program_and_beat_slicing() {
    let mut rng = StdRng::seed_from_u64(17);
    let mut shared_somewhere = 0;
    for _ in 0..60 {
        let s = random_with_pairs(&mut rng, 4, 5, 0.5, 0.2);
        let (types, n) = (s.gpu_types.len(), s.tenants.len());
        let counts: Vec<u32> = s.gpu_types.iter().map(|t| t.count).collect();
        let inst = s.instance().unwrap();
        let r = report::run(
            &s,
            &inst,
            policies::by_name("gavel-las-packed").unwrap(),
            None,
        )
        .unwrap();
        let g = &r.allocation.gpus;
        let tol = 1e-6;
        for j in 0..types {
            let used: f64 =
                (0..n).map(|i| g[i][j]).sum::<f64>() + r.shared.iter().map(|h| h[j]).sum::<f64>();
            assert!(used <= counts[j] as f64 + tol, "type {j}: {used}");
        }
        let mut raw = vec![0.0; n];
        let mut time = vec![0.0; n];
        for i in 0..n {
            for j in 0..types {
                raw[i] += s.tenants[i].throughput[j] * g[i][j];
                time[i] += g[i][j];
            }
        }
        for (p, h) in r.shared.iter().enumerate() {
            let names = &s.co_located[p].tenants;
            let a = s.tenants.iter().position(|t| t.name == names[0]).unwrap();
            let b = s.tenants.iter().position(|t| t.name == names[1]).unwrap();
            for j in 0..types {
                assert!(h[j] >= -tol);
                raw[a] += s.co_located[p].throughput[j][0] * h[j];
                raw[b] += s.co_located[p].throughput[j][1] * h[j];
                time[a] += h[j];
                time[b] += h[j];
            }
        }
        let total: f64 = counts.iter().map(|&c| c as f64).sum();
        for i in 0..n {
            assert!(time[i] <= 1.0 + tol, "tenant {i} holds {} GPUs", time[i]);
            // Gavel's normalisation: the throughput of an equal time share of every GPU.
            let prop: f64 = (0..types)
                .map(|j| s.tenants[i].throughput[j] * counts[j] as f64)
                .sum::<f64>()
                / total;
            assert!(raw[i] / prop >= r.objective * (1.0 - tol), "tenant {i}");
            // Utility in slowest-type equivalents.
            let slowest = s.tenants[i]
                .throughput
                .iter()
                .copied()
                .fold(f64::MAX, f64::min);
            assert!((r.utility[i] - raw[i] / slowest).abs() <= tol * r.utility[i].max(1.0));
        }
        let las = policies::by_name("gavel-las")
            .unwrap()
            .solve(&inst)
            .unwrap();
        assert!(r.objective >= las.objective * (1.0 - 1e-7));
        let si = (0..n).all(|i| {
            // Equal split: every type's GPUs over n, scaled to the cap of 1 GPU.
            let share: f64 = counts.iter().map(|&c| c as f64 / n as f64).sum();
            let scale = (1.0 / share).min(1.0);
            let slowest = s.tenants[i]
                .throughput
                .iter()
                .copied()
                .fold(f64::MAX, f64::min);
            let target: f64 = (0..types)
                .map(|j| s.tenants[i].throughput[j] / slowest * counts[j] as f64 / n as f64 * scale)
                .sum();
            r.utility[i] >= target * (1.0 - 1e-6)
        });
        assert_eq!(r.properties.sharing_incentive.holds, si);
        // The most total normalised throughput at the max-min level is PE (see
        // pareto_efficiency_counts_sharing), sharing searched too.
        assert_eq!(r.properties.pareto_efficiency.holds, Some(true));
        if r.shared.iter().flatten().any(|&h| h > 1e-6) {
            shared_somewhere += 1;
            assert_eq!(r.properties.envy_freeness.holds, None);
        }
    }
    assert!(
        shared_somewhere >= 10,
        "only {shared_somewhere} scenarios shared"
    );
}

/// A solution whose pair takes GPUs the cluster lacks, or time its job does not have, is
/// refused by the check every answer passes before it is shown.
#[test]
fn shared_gpus_count_against_capacity_and_caps() {
    let s = hand_case();
    let inst = s.instance().unwrap();
    let good = policies::by_name("gavel-las-packed")
        .unwrap()
        .solve(&inst)
        .unwrap();
    assert_eq!(good.check(&inst), Ok(()));
    let mut over = good.clone();
    over.shared[0][0] += 0.5; // the V100 was full
    let why = over.check(&inst).unwrap_err();
    assert!(why.contains("'v100'") || why.contains("'gpu0'"), "{why}");
    let mut capped = good.clone();
    capped.shared[0][1] = 0.8; // the K80 has room (3/17 used), but a would hold 1.8 GPUs
    let why = capped.check(&inst).unwrap_err();
    assert!(why.contains("cap"), "{why}");
    let wrong_shape = Solution {
        shared: vec![vec![0.0]],
        trades: Vec::new(),
        ..good
    };
    assert!(wrong_shape.check(&inst).is_err());
}

#[test]
fn bad_pairs_are_located() {
    let mut s = scenario(
        &[1, 1],
        vec![
            tenant("a", &[1.0, 1.0], Some(1.0)),
            tenant("b", &[1.0, 1.0], Some(2.0)),
            tenant("c", &[1.0, 1.0], None),
            tenant("d", &[1.0, 1.0], Some(1.0)),
        ],
        vec![
            pair("a", "zed", &[[1.0, 1.0], [1.0, 1.0]]),
            pair("a", "a", &[[1.0, 1.0], [1.0, 1.0]]),
            pair("a", "b", &[[1.0, 1.0], [1.0, 1.0]]),
            pair("c", "d", &[[1.0, 1.0], [1.0, 1.0]]),
            pair("a", "d", &[[1.0, 1.0]]),
            pair("d", "a", &[[1.0, 1.0], [f64::NAN, -1.0]]),
        ],
    );
    let problems = s.instance().unwrap_err();
    let at = |path: &str| {
        problems
            .iter()
            .find(|p| p.path == path)
            .map(|p| p.message.clone())
            .unwrap_or_else(|| panic!("nothing at {path}: {problems:?}"))
    };
    assert!(at("co_located[0].tenants[1]").contains("'zed'"));
    assert!(at("co_located[1].tenants").contains("twice"));
    assert!(at("co_located[2].tenants").contains("max_gpus"));
    assert!(at("co_located[3].tenants").contains("max_gpus"));
    assert!(at("co_located[4].throughput").contains("2 GPU types"));
    assert!(at("co_located[5].tenants").contains("already paired in co_located[4]"));
    assert!(at("co_located[5].throughput[1][0]").contains("finite"));
    assert!(at("co_located[5].throughput[1][1]").contains(">= 0"));
    // Lists of the wrong length (the JSON takes any list), located too.
    let mut long = s.clone();
    long.co_located = vec![CoLocated {
        tenants: vec!["a".into(), "d".into(), "b".into()],
        throughput: vec![vec![1.0, 1.0], vec![1.0]],
    }];
    let problems = long.instance().unwrap_err();
    let paths: Vec<&str> = problems.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(
        paths,
        ["co_located[0].tenants", "co_located[0].throughput[1]"],
        "{problems:?}"
    );
    assert!(problems[0].message.contains("names 3 tenants"));
    // Fixed, it validates; JSON round-trips with the pairs, and a scenario without pairs
    // writes no `co_located` at all (old documents and links read the same).
    s.co_located.truncate(1);
    s.co_located[0].tenants[1] = "d".into();
    let inst = s.instance().unwrap();
    assert_eq!((inst.co_located[0].a, inst.co_located[0].b), (0, 3));
    assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s);
    assert!(!hand_case_without_pairs().to_json().contains("co_located"));
}

fn hand_case_without_pairs() -> Scenario {
    Scenario {
        co_located: Vec::new(),
        ..hand_case()
    }
}

/// Leaving a tenant out (as partial-allocation does) drops its pairs and renumbers the rest.
#[test]
fn without_a_tenant_its_pairs_go() {
    let s = scenario(
        &[2],
        vec![
            tenant("a", &[1.0], Some(1.0)),
            tenant("b", &[1.0], Some(1.0)),
            tenant("c", &[1.0], Some(1.0)),
        ],
        vec![pair("a", "b", &[[0.6, 0.6]]), pair("c", "b", &[[0.7, 0.5]])],
    );
    let inst = s.instance().unwrap().without(0);
    assert_eq!(inst.co_located.len(), 1);
    let p = &inst.co_located[0];
    assert_eq!((p.a, p.b, p.throughput.clone()), (1, 0, vec![(0.7, 0.5)]));
}

/// PE on a scenario with pairs searches allocations that share GPUs too.
/// - gavel-las-packed's answer is PE: it has the most total normalised throughput among the
///   allocations at its max-min level, and any Pareto improvement would raise that total while
///   keeping everyone at the level (normalised throughput is utility times a positive constant).
/// - gavel-max-sum's answer on the hand case is PE by hand: a holds the V100 alone (utility 4,
///   all its one GPU of time) and b the K80 (1); a keeps 4 only alone on the V100 (sharing it
///   gives 3), so nothing is left for a to share, and b alone can gain only what a loses.
/// - gavel-las's answer (level 1, no sharing) is dominated: the witness is checked here from
///   the definitions (capacity with a pair's GPUs once, each tenant's time, utilities).
#[test]
fn pareto_efficiency_counts_sharing() {
    let s = hand_case();
    let inst = s.instance().unwrap();
    let run = |name: &str| report::run(&s, &inst, policies::by_name(name).unwrap(), None).unwrap();
    assert_eq!(
        run("gavel-las-packed").properties.pareto_efficiency.holds,
        Some(true)
    );
    assert_eq!(
        run("gavel-max-sum").properties.pareto_efficiency.holds,
        Some(true)
    );
    let las = run("gavel-las");
    let pe = &las.properties.pareto_efficiency;
    assert_eq!(pe.holds, Some(false));
    let g = &pe.dominating.as_ref().unwrap().gpus;
    let h = &pe.dominating_shared;
    assert_eq!(
        h.len(),
        1,
        "the witness shares: without sharing gavel-las is PE here"
    );
    let tol = 1e-7;
    assert!(g[0][0] + g[1][0] + h[0][0] <= 1.0 + tol);
    assert!(g[0][1] + g[1][1] + h[0][1] <= 1.0 + tol);
    for i in 0..2 {
        assert!(
            g[i][0] + g[i][1] + h[0][0] + h[0][1] <= 1.0 + tol,
            "tenant {i}'s time"
        );
    }
    let ua = 4.0 * g[0][0] + g[0][1] + 3.0 * h[0][0] + 0.5 * h[0][1];
    let ub = 2.0 * g[1][0] + g[1][1] + 1.5 * h[0][0] + 0.5 * h[0][1];
    assert!(ua >= las.utility[0] * (1.0 - 1e-6) && ub >= las.utility[1] * (1.0 - 1e-6));
    assert!(ua + ub > las.efficiency + 1e-6);
    assert!((ua + ub - las.efficiency - pe.gain).abs() < 1e-6);

    // The same scenario without pairs: gavel-las's answer (each holds half of each GPU) is PE.
    // b's time is all used (cap 1), so b can only swap V100 time for at most as much K80 time,
    // and gains only if it gets twice as much.
    let plain = hand_case_without_pairs();
    let inst = plain.instance().unwrap();
    let r = report::run(&plain, &inst, policies::by_name("gavel-las").unwrap(), None).unwrap();
    assert_eq!(r.properties.pareto_efficiency.holds, Some(true));
    assert!(r.properties.pareto_efficiency.dominating_shared.is_empty());
}

/// The price-of-fairness frontier is over allocations without sharing: a policy that shares
/// is not placed on it (placed by its GPUs held alone, it would show a wrong efficiency), and
/// says why; one that does not is placed as before.
#[test]
fn the_frontier_leaves_out_a_policy_that_shares() {
    let inst = hand_case().instance().unwrap();
    let f = fairground_core::frontier::frontier(&inst, 0.25).unwrap();
    assert!(f.policies.iter().all(|p| p.policy != "gavel-las-packed"));
    assert!(f.policies.iter().any(|p| p.policy == "gavel-las"));
    assert!(f
        .failed
        .iter()
        .any(|why| why.starts_with("gavel-las-packed: it shares GPUs")));
    // Without pairs it shares nothing and is placed.
    let plain = hand_case_without_pairs().instance().unwrap();
    let f = fairground_core::frontier::frontier(&plain, 0.25).unwrap();
    assert!(f.policies.iter().any(|p| p.policy == "gavel-las-packed"));
}

/// Every policy on random scenarios with pairs: a "not PE" verdict comes with a witness that,
/// recomputed here from the definitions, fits the cluster (each pair's GPUs once, both tenants'
/// caps), leaves nobody worse off and raises efficiency by the gain reported; an answer that
/// shares nothing keeps its EF verdict.
#[test]
fn pareto_witnesses_with_pairs_hold_for_every_policy() {
    let mut rng = StdRng::seed_from_u64(5);
    let mut refuted = 0;
    for _ in 0..12 {
        let s = random_with_pairs(&mut rng, 3, 4, 0.6, 0.3);
        let (types, n) = (s.gpu_types.len(), s.tenants.len());
        let counts: Vec<u32> = s.gpu_types.iter().map(|t| t.count).collect();
        let inst = s.instance().unwrap();
        let index = |name: &str| s.tenants.iter().position(|t| t.name == name).unwrap();
        let slowest: Vec<f64> = s
            .tenants
            .iter()
            .map(|t| t.throughput.iter().copied().fold(f64::MAX, f64::min))
            .collect();
        // u_i of (alone, shared), in slowest-type equivalents, from the definition.
        let utilities = |g: &[Vec<f64>], h: &[Vec<f64>]| -> Vec<f64> {
            let mut u: Vec<f64> = (0..n)
                .map(|i| {
                    (0..types)
                        .map(|j| s.tenants[i].throughput[j] * g[i][j])
                        .sum()
                })
                .collect();
            for (p, hp) in h.iter().enumerate() {
                let (a, b) = (
                    index(&s.co_located[p].tenants[0]),
                    index(&s.co_located[p].tenants[1]),
                );
                for j in 0..types {
                    u[a] += s.co_located[p].throughput[j][0] * hp[j];
                    u[b] += s.co_located[p].throughput[j][1] * hp[j];
                }
            }
            u.iter().zip(&slowest).map(|(u, r)| u / r).collect()
        };
        for policy in policies::all() {
            let Ok(r) = report::run(&s, &inst, policy, None) else {
                continue;
            };
            let shares = r.shared.iter().flatten().any(|&h| h > 1e-9);
            let none = vec![vec![0.0; types]; s.co_located.len()];
            let own = utilities(&r.allocation.gpus, if shares { &r.shared } else { &none });
            for i in 0..n {
                assert!(
                    (own[i] - r.utility[i]).abs() <= 1e-9 * own[i].max(1.0),
                    "{}",
                    r.policy
                );
            }
            if !shares {
                assert!(r.properties.envy_freeness.holds.is_some(), "{}", r.policy);
            }
            let pe = &r.properties.pareto_efficiency;
            let Some(w) = &pe.dominating else { continue };
            refuted += 1;
            let g = &w.gpus;
            let h: Vec<Vec<f64>> = if pe.dominating_shared.is_empty() {
                vec![vec![0.0; types]; s.co_located.len()]
            } else {
                pe.dominating_shared.clone()
            };
            let tol = 1e-6;
            for j in 0..types {
                let used: f64 =
                    (0..n).map(|i| g[i][j]).sum::<f64>() + h.iter().map(|hp| hp[j]).sum::<f64>();
                assert!(
                    used <= counts[j] as f64 * (1.0 + tol),
                    "{}: type {j}",
                    r.policy
                );
            }
            for i in 0..n {
                let alone: f64 = g[i].iter().sum();
                let shared: f64 = h
                    .iter()
                    .enumerate()
                    .filter(|(p, _)| s.co_located[*p].tenants.contains(&s.tenants[i].name))
                    .map(|(_, hp)| hp.iter().sum::<f64>())
                    .sum();
                assert!(
                    alone + shared <= 1.0 + tol,
                    "{}: tenant {i}'s time",
                    r.policy
                );
            }
            let after = utilities(g, &h);
            for i in 0..n {
                assert!(
                    after[i] >= r.utility[i] * (1.0 - tol),
                    "{}: tenant {i}",
                    r.policy
                );
            }
            let gain = after.iter().sum::<f64>() - r.efficiency;
            assert!(
                gain > 0.0 && (gain - pe.gain).abs() <= 1e-6 * r.efficiency,
                "{}",
                r.policy
            );
        }
    }
    assert!(refuted >= 10, "only {refuted} answers were shown not PE");
}
