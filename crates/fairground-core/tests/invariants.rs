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
