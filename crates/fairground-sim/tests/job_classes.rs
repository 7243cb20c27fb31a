//! The round mechanism solves one party per class of identical jobs (weight m, cap m s). For
//! LAS and max-sum this must give the same optimum as one party per job.

use fairground_core::{policies, GpuType, Normalization, Scenario, Tenant};

fn scenario(tenants: Vec<Tenant>) -> Scenario {
    Scenario {
        version: 1,
        gpu_types: vec![
            GpuType {
                name: "v100".into(),
                count: 3,
            },
            GpuType {
                name: "k80".into(),
                count: 5,
            },
        ],
        tenants,
        normalization: Normalization::Slowest,
    }
}

fn tenant(name: &str, throughput: [f64; 2], weight: f64, cap: f64) -> Tenant {
    Tenant {
        name: name.into(),
        throughput: throughput.to_vec(),
        weight,
        max_gpus: Some(cap),
    }
}

#[test]
fn classes_reach_the_per_job_optimum() {
    // Three identical 2-GPU jobs of one model and one 1-GPU job of another.
    let per_job = scenario(vec![
        tenant("a1", [4.0, 1.0], 1.0, 2.0),
        tenant("a2", [4.0, 1.0], 1.0, 2.0),
        tenant("a3", [4.0, 1.0], 1.0, 2.0),
        tenant("b", [2.0, 1.5], 1.0, 1.0),
    ]);
    let classes = scenario(vec![
        tenant("a", [4.0, 1.0], 3.0, 6.0),
        tenant("b", [2.0, 1.5], 1.0, 1.0),
    ]);
    for name in [
        "gavel-las",
        "gavel-max-sum",
        "gavel-las-agnostic",
        "gavel-water-filling",
    ] {
        let policy = policies::by_name(name).unwrap();
        let jobs = policy.solve(&per_job.instance().unwrap()).unwrap();
        let grouped = policy.solve(&classes.instance().unwrap()).unwrap();
        assert!(
            (jobs.objective - grouped.objective).abs() < 1e-7,
            "{name}: {} vs {}",
            jobs.objective,
            grouped.objective
        );
    }
}
