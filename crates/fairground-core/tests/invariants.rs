//! Properties every policy must keep on random scenarios (proptest).

mod common;
use fairground_core::policies::{self, GavelLas};
use fairground_core::{properties, GpuType, Instance, Normalization, Policy, Scenario, Tenant};
use proptest::prelude::*;

fn scenario_strategy() -> impl Strategy<Value = Scenario> {
    (1usize..=4, 1usize..=6).prop_flat_map(|(types, tenants)| {
        let counts = proptest::collection::vec(0u32..=5, types)
            .prop_filter("some GPUs", |c| c.iter().any(|&n| n > 0));
        let rows = proptest::collection::vec(
            (
                proptest::collection::vec(prop_oneof![1 => Just(0.0), 6 => 0.1f64..10.0], types),
                0.5f64..3.0,
                proptest::option::weighted(0.3, 0.5f64..4.0),
            ),
            tenants,
        );
        (counts, rows).prop_filter_map("every tenant runs somewhere", |(counts, rows)| {
            common::scenario_from(&counts, rows)
        })
    })
}

fn las_value(inst: &Instance, alloc: &fairground_core::Allocation) -> f64 {
    let rates: Vec<Vec<f64>> = (0..inst.tenants())
        .map(|i| {
            let prop = policies::proportional_throughput(inst, i);
            inst.throughput[i]
                .iter()
                .map(|t| t / (inst.weight[i] * prop))
                .collect()
        })
        .collect();
    (0..inst.tenants())
        .map(|i| {
            rates[i]
                .iter()
                .zip(&alloc.gpus[i])
                .map(|(r, g)| r * g)
                .sum::<f64>()
        })
        .fold(f64::INFINITY, f64::min)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn every_policy_respects_capacity_caps_and_signs(s in scenario_strategy()) {
        let inst = s.instance().unwrap();
        for policy in policies::all() {
            let sol = policy.solve(&inst).map_err(|e| TestCaseError::fail(format!("{}: {e}", policy.name())))?;
            let g = &sol.allocation.gpus;
            prop_assert!(g.iter().flatten().all(|&x| x >= 0.0 && x.is_finite()), "{}", policy.name());
            for (j, used) in sol.allocation.used(inst.types()).iter().enumerate() {
                prop_assert!(*used <= inst.count[j] + 1e-6, "{}: type {j} uses {used}", policy.name());
            }
            for (i, row) in g.iter().enumerate() {
                if let Some(cap) = inst.cap[i] {
                    prop_assert!(row.iter().sum::<f64>() <= cap + 1e-6, "{}: tenant {i} over cap", policy.name());
                }
            }
        }
    }

    #[test]
    fn oef_coop_is_si_ef_and_at_least_as_efficient_as_equal_share(s in scenario_strategy()) {
        let inst = s.instance().unwrap();
        let oef = policies::by_name("oef-coop").unwrap().solve(&inst).unwrap();
        let equal = policies::by_name("equal-share").unwrap().solve(&inst).unwrap();
        let metrics = fairground_core::Metrics::of(&inst, &oef.allocation);
        for (i, (u, target)) in metrics.utility.iter().zip(&metrics.si_target).enumerate() {
            prop_assert!(*u >= target - 1e-7, "tenant {i}: u {u} < SI target {target}");
        }
        if let Some((i, k, envy)) = metrics.envy.worst() {
            prop_assert!(envy <= 1e-7, "{i} envies {k} by {envy}");
        }
        prop_assert!(metrics.efficiency >= equal.allocation.efficiency(&inst) - 1e-7);
    }

    #[test]
    fn oef_coop_lazy_and_full_ef_rows_reach_the_same_optimum(s in scenario_strategy()) {
        use policies::{EfRows, OefCoop};
        let inst = s.instance().unwrap();
        let full = OefCoop { ef_rows: EfRows::Full }.solve(&inst).unwrap().objective;
        let lazy = OefCoop { ef_rows: EfRows::Lazy }.solve(&inst).unwrap().objective;
        prop_assert!((full - lazy).abs() <= 1e-6 * full.abs().max(1.0), "full {full}, lazy {lazy}");
    }

    #[test]
    fn gavel_las_is_the_best_min_normalised_share(s in scenario_strategy()) {
        let inst = s.instance().unwrap();
        let las = GavelLas.solve(&inst).unwrap();
        prop_assert!((las.objective - las_value(&inst, &las.allocation)).abs() < 1e-6 * las.objective.max(1.0));
        for policy in policies::all() {
            let other = policy.solve(&inst).unwrap();
            let value = las_value(&inst, &other.allocation);
            prop_assert!(las.objective >= value - 1e-6 * value.abs().max(1.0), "{} reaches {value} > {}", policy.name(), las.objective);
        }
    }

    #[test]
    fn pareto_witnesses_are_feasible_and_dominate(s in scenario_strategy()) {
        let inst = s.instance().unwrap();
        for policy in policies::all() {
            let sol = policy.solve(&inst).unwrap();
            let report = properties::check(&inst, &sol.allocation);
            let Some(h) = report.pareto_efficiency.dominating else { continue };
            for (j, used) in h.used(inst.types()).iter().enumerate() {
                prop_assert!(*used <= inst.count[j] + 1e-6, "{}: witness over capacity", policy.name());
            }
            let (before, after) = (sol.allocation.utilities(&inst), h.utilities(&inst));
            for (b, a) in before.iter().zip(&after) {
                prop_assert!(*a >= b - 1e-6 * b.abs().max(1.0), "{}: witness hurts someone", policy.name());
            }
            prop_assert!(after.iter().sum::<f64>() > before.iter().sum::<f64>(), "{}", policy.name());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Any text: parsing never panics (it returns a located problem instead).
    #[test]
    fn parsing_any_text_never_panics(text in ".{0,300}") {
        let _ = Scenario::from_json(&text);
    }

    /// Any numbers, valid or not: validation never panics, and whatever it accepts every
    /// policy solves or refuses with an error, never a panic.
    #[test]
    fn validating_and_solving_any_numbers_never_panics(
        counts in proptest::collection::vec(0u32..4, 0..4),
        rows in proptest::collection::vec(
            (proptest::collection::vec(prop_oneof![Just(f64::NAN), Just(f64::INFINITY), Just(-1.0), Just(0.0), 1e-9f64..1e9], 0..4),
             prop_oneof![Just(0.0), Just(-1.0), Just(f64::NAN), 1e-6f64..1e6],
             proptest::option::of(prop_oneof![Just(0.0), Just(f64::NAN), 1e-6f64..1e6])),
            0..4),
        normalization in prop_oneof![Just("slowest"), Just("fastest"), Just("raw"), Just("t0"), Just("nope")],
    ) {
        let s = Scenario {
            version: 1,
            gpu_types: counts.iter().enumerate().map(|(j, &count)| GpuType { name: format!("t{j}"), count }).collect(),
            tenants: rows.into_iter().enumerate().map(|(i, (throughput, weight, max_gpus))| Tenant {
                name: format!("u{i}"), throughput, weight, max_gpus, work: None,
                entity: None,
            }).collect(),
            normalization: Normalization::from(normalization.to_string()),
            entities: Vec::new(),
            co_located: Vec::new(),
        };
        if let Ok(inst) = s.instance() {
            for policy in policies::all() {
                if let Ok(sol) = policy.solve(&inst) {
                    let _ = properties::check(&inst, &sol.allocation);
                }
            }
        }
    }
}

/// What a policy's theory promises (`PolicyInfo::guarantees`), checked from the definitions,
/// computed here from the scenario's own numbers and not through the checker's helpers.
// Indices read like the formulas' i, j, k.
#[allow(clippy::needless_range_loop)]
mod guarantees {
    use super::*;
    use microlp::{ComparisonOp, OptimizationDirection, Problem};

    /// u_i(x) in raw throughput: SI, EF and PE compare each tenant's utilities with each other
    /// only, so a tenant's choice of reference type cannot change a verdict.
    fn utility(s: &Scenario, i: usize, bundle: &[f64]) -> f64 {
        s.tenants[i]
            .throughput
            .iter()
            .zip(bundle)
            .map(|(t, g)| t * g)
            .sum()
    }

    fn cluster(s: &Scenario) -> f64 {
        s.gpu_types.iter().map(|t| f64::from(t.count)).sum()
    }

    /// The weighted equal split of every type, scaled down to the tenant's cap.
    fn equal_split(s: &Scenario, i: usize) -> Vec<f64> {
        let total: f64 = s.tenants.iter().map(|t| t.weight).sum();
        let share = s.tenants[i].weight / total;
        let mut e: Vec<f64> = s
            .gpu_types
            .iter()
            .map(|t| f64::from(t.count) * share)
            .collect();
        let held: f64 = e.iter().sum();
        if let Some(cap) = s.tenants[i].max_gpus.filter(|&c| c < held) {
            e.iter_mut().for_each(|g| *g *= cap / held);
        }
        e
    }

    /// EF binds i towards k unless k's largest possible bundle, scaled to i's weight, is more
    /// than i's cap lets it hold (a cap of the whole cluster or more never binds).
    fn must_not_envy(s: &Scenario, i: usize, k: usize) -> bool {
        let n = cluster(s);
        let (a, b) = (&s.tenants[i], &s.tenants[k]);
        match a.max_gpus.filter(|&c| c < n) {
            None => true,
            Some(limit) => {
                a.weight / b.weight * b.max_gpus.map_or(n, |c| c.min(n)) <= limit * (1.0 + 1e-12)
            }
        }
    }

    /// a >= b to 1e-5 relative: nash-welfare's interior-point answers sit about 1e-6 off.
    fn close_below(a: f64, b: f64) -> bool {
        a >= b - 1e-5 * b.abs().max(1.0)
    }

    /// The most total (per-tenant scaled) utility any allocation reaches that leaves nobody
    /// worse off than under `g`: above g's own, `g` is not Pareto efficient.
    fn best_pareto_improvement(s: &Scenario, g: &[Vec<f64>]) -> (f64, f64) {
        let (n, m) = (s.tenants.len(), s.gpu_types.len());
        let scale: Vec<f64> = (0..n)
            .map(|i| 1.0 / s.tenants[i].throughput.iter().cloned().fold(0.0, f64::max))
            .collect();
        let mut lp = Problem::new(OptimizationDirection::Maximize);
        let h: Vec<Vec<_>> = (0..n)
            .map(|i| {
                (0..m)
                    .map(|j| {
                        lp.add_var(s.tenants[i].throughput[j] * scale[i], (0.0, f64::INFINITY))
                    })
                    .collect()
            })
            .collect();
        for j in 0..m {
            let col: Vec<_> = (0..n).map(|i| (h[i][j], 1.0)).collect();
            lp.add_constraint(&col, ComparisonOp::Le, f64::from(s.gpu_types[j].count));
        }
        for i in 0..n {
            if let Some(cap) = s.tenants[i].max_gpus {
                let row: Vec<_> = (0..m).map(|j| (h[i][j], 1.0)).collect();
                lp.add_constraint(&row, ComparisonOp::Le, cap);
            }
            let u: Vec<_> = (0..m)
                .map(|j| (h[i][j], s.tenants[i].throughput[j] * scale[i]))
                .collect();
            // A hair under u_i(g_i): the allocation under test meets its own rows only to the
            // solver's tolerance.
            let now = utility(s, i, &g[i]) * scale[i];
            lp.add_constraint(&u, ComparisonOp::Ge, now - 1e-9 * now.max(1.0));
        }
        let best = lp
            .solve()
            .expect("g itself is feasible")
            .solution()
            .expect("no limits set")
            .objective();
        let now: f64 = (0..n).map(|i| utility(s, i, &g[i]) * scale[i]).sum();
        (best, now)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        #[test]
        fn every_policy_keeps_what_its_theory_guarantees(s in scenario_strategy(), lie in proptest::collection::vec(0.1f64..10.0, 4)) {
            let inst = s.instance().unwrap();
            let n = s.tenants.len();
            for policy in policies::all() {
                let promised = policy.info().guarantees;
                let name = policy.name();
                // A cap binds when it is below the cluster's size.
                let capped = s.tenants.iter().any(|t| t.max_gpus.is_some_and(|c| c < cluster(&s)));
                let g = policy.solve(&inst).unwrap().allocation.gpus;
                if promised.si.covers(capped) {
                    for i in 0..n {
                        let (u, target) = (utility(&s, i, &g[i]), utility(&s, i, &equal_split(&s, i)));
                        prop_assert!(close_below(u, target), "{name}: tenant {i} gets {u} < its equal split's {target}");
                    }
                }
                if promised.ef.covers(capped) {
                    for i in 0..n {
                        for k in (0..n).filter(|&k| must_not_envy(&s, i, k)) {
                            let own = utility(&s, i, &g[i]) / s.tenants[i].weight;
                            let other = utility(&s, i, &g[k]) / s.tenants[k].weight;
                            prop_assert!(close_below(own, other), "{name}: {i} envies {k}: {own} < {other}");
                        }
                    }
                }
                if promised.pe.covers(capped) {
                    let (best, now) = best_pareto_improvement(&s, &g);
                    prop_assert!(best <= now + 1e-5 * now.max(1.0), "{name}: a Pareto improvement reaches {best} > {now}");
                }
                if promised.sp.covers(capped) {
                    // Tenant 0 reports other throughputs: what it gets must not change.
                    let mut told = s.clone();
                    for (t, f) in told.tenants[0].throughput.iter_mut().zip(&lie) {
                        *t *= f;
                    }
                    let g_told = policy.solve(&told.instance().unwrap()).unwrap().allocation.gpus;
                    let (honest, lying) = (utility(&s, 0, &g[0]), utility(&s, 0, &g_told[0]));
                    prop_assert!(lying <= honest + 1e-9 * honest.max(1.0), "{name}: tenant 0 gains by lying: {lying} > {honest}");
                }
            }
        }
    }

    /// The claims themselves, as the theory states them (a change here is a change to what the
    /// page tells readers).
    #[test]
    fn the_guarantees_are_the_theorys() {
        use policies::Promise::{Always, No, WithoutCaps};
        let of = |name: &str| policies::info(name).unwrap().guarantees;
        let coop = of("oef-coop");
        assert_eq!(
            (coop.si, coop.ef, coop.pe, coop.sp),
            (Always, Always, No, No)
        );
        let nash = of("nash-welfare");
        assert_eq!(
            (nash.si, nash.ef, nash.pe),
            (WithoutCaps, WithoutCaps, Always)
        );
        assert_eq!(
            (of("gavel-max-sum").pe, of("gavel-max-sum").ef),
            (Always, No)
        );
        assert_eq!(
            (of("gavel-las").si, of("gavel-water-filling").si),
            (WithoutCaps, WithoutCaps)
        );
        // Only the policies that never read the throughputs are strategy-proof here.
        for p in policies::CATALOGUE {
            let reads_reports = !["equal-share", "isolated"].contains(&p.name);
            assert_eq!(
                p.guarantees.sp,
                if reads_reports { No } else { Always },
                "{}",
                p.name
            );
        }
    }
}
