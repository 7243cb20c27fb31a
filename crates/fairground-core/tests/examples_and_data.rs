//! The shipped example scenarios and Gavel's full measurement file, through the whole engine.

use fairground_core::{policies, presets, properties, GpuType, Normalization, Scenario, Tenant};

use fairground_core::shared_data_dir as shared;

fn example(name: &str) -> Scenario {
    let path = format!("{}/../../www/scenarios/{name}", env!("CARGO_MANIFEST_DIR"));
    Scenario::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

#[test]
fn example_files_are_the_presets_they_claim_to_be() {
    assert_eq!(
        example("gavel-measured.json"),
        presets::gavel_measured().scenario
    );
    assert_eq!(
        example("textbook-2x2.json"),
        presets::textbook_two_by_two().scenario
    );
    assert_eq!(
        example("gavel-space-sharing.json"),
        presets::gavel_space_sharing().scenario
    );
    // Gavel's hand-checked example (BACKGROUND.md): LAS objective 48/31.
    let inst = example("gavel-two-jobs.json").instance().unwrap();
    let las = policies::by_name("gavel-las")
        .unwrap()
        .solve(&inst)
        .unwrap();
    assert!((las.objective - 48.0 / 31.0).abs() < 1e-7);
}

/// Every single-GPU model Gavel measured (26 of them) as a tenant on 8 K80 + 8 P100 + 8 V100.
fn gavel_all_models() -> Scenario {
    let path = format!("{}/data/gavel/simulation_throughputs.json", shared());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let file: serde_json::Value = serde_json::from_str(&text).unwrap();
    let types = ["k80", "p100", "v100"];
    let mut models: Vec<&String> = file["v100"]
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| k.ends_with(", 1)"))
        .collect();
    models.sort();
    Scenario {
        version: 1,
        gpu_types: types
            .iter()
            .map(|t| GpuType {
                name: t.to_string(),
                count: 8,
            })
            .collect(),
        tenants: models
            .iter()
            .map(|key| Tenant {
                name: key
                    .trim_start_matches("('")
                    .trim_end_matches("', 1)")
                    .to_string(),
                throughput: types
                    .iter()
                    .map(|t| file[*t][key.as_str()]["null"].as_f64().unwrap())
                    .collect(),
                weight: 1.0,
                max_gpus: None,
                work: None,
                entity: None,
            })
            .collect(),
        normalization: Normalization::Slowest,
        entities: Vec::new(),
        co_located: Vec::new(),
    }
}

#[test]
fn every_policy_on_all_of_gavels_measured_models() {
    let scenario = gavel_all_models();
    let inst = scenario.instance().unwrap();
    assert_eq!(inst.tenants(), 26);
    let equal = policies::by_name("equal-share")
        .unwrap()
        .solve(&inst)
        .unwrap();
    for policy in policies::all() {
        let sol = policy
            .solve(&inst)
            .unwrap_or_else(|e| panic!("{}: {e}", policy.name()));
        let used = sol.allocation.used(3);
        assert!(
            used.iter().all(|&u| u <= 8.0 + 1e-6),
            "{}: {used:?}",
            policy.name()
        );
        if policy.name() == "oef-coop" {
            let report = properties::check(&inst, &sol.allocation);
            assert!(report.sharing_incentive.holds && report.envy_freeness.holds == Some(true));
            assert!(sol.objective >= equal.objective - 1e-7);
        }
    }
}
