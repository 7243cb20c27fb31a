//! Invariants on random workloads, and Gavel's sample traces run to completion.

use fairground_sim::metrics::SimResult;
use fairground_sim::workload::{gavel_trace, synthetic, SyntheticConfig};
use fairground_sim::{schedulers, simulate, Cluster, Job, SimConfig, ThroughputTable};
use proptest::prelude::*;

use fairground_core::shared_data_dir as shared;

fn gavel_table() -> ThroughputTable {
    let path = format!("{}/data/gavel/simulation_throughputs.json", shared());
    ThroughputTable::from_gavel_json(
        &std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}")),
    )
    .unwrap()
}

const POLICIES: [&str; 7] = [
    "fifo",
    "srtf",
    "las",
    "gavel-las",
    "gavel-max-sum",
    "gavel-ftf",
    "oef-coop",
];

fn check_invariants(cluster: &Cluster, jobs: &[Job], r: &SimResult) -> Result<(), TestCaseError> {
    let runnable = jobs.iter().filter(|j| j.best_rate(cluster) > 0.0).count();
    prop_assert_eq!(
        r.jobs_completed,
        runnable,
        "{}: every runnable job finishes",
        &r.policy
    );
    for (job, out) in jobs.iter().zip(&r.jobs) {
        if let Some(start) = out.start_s {
            prop_assert!(
                start >= job.arrival,
                "{}: job {} starts before it arrives",
                &r.policy,
                job.id
            );
        }
    }
    // No GPU runs two jobs at once.
    let mut bars = r.gantt.clone();
    bars.sort_by(|a, b| {
        (a.server, a.gpu)
            .cmp(&(b.server, b.gpu))
            .then(a.t0.total_cmp(&b.t0))
    });
    for w in bars.windows(2) {
        if (w[0].server, w[0].gpu) == (w[1].server, w[1].gpu) {
            prop_assert!(
                w[1].t0 >= w[0].t1 - 1e-6,
                "{}: GPU double-booked: {:?}",
                &r.policy,
                w
            );
        }
    }
    // Work is conserved: the steps run on the GPUs held add up to each job's total.
    for (i, job) in jobs.iter().enumerate() {
        if r.jobs[i].finish_s.is_none() {
            continue;
        }
        let steps: f64 = r
            .gantt
            .iter()
            .filter(|b| b.job == job.id)
            .map(|b| {
                (b.t1 - b.t0) * job.rate[cluster.servers[b.server].gpu_type]
                    / f64::from(job.scale_factor)
            })
            .sum();
        prop_assert!(
            (steps - job.total_steps).abs() <= 1e-6 * job.total_steps,
            "{}: job {} ran {steps} of {} steps",
            &r.policy,
            job.id,
            job.total_steps
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn random_workloads_keep_every_invariant(seed in 0u64..1000, rate in 1.0f64..20.0, tenants in 1usize..5) {
        let cluster = Cluster::parse("v100=2,p100=3,k80=4").unwrap();
        let table = ThroughputTable::builtin();
        let jobs = synthetic(&SyntheticConfig { jobs: 25, jobs_per_hour: rate, seed, tenants, tenant_mix: Default::default() }, &table, &cluster.types).unwrap();
        let config = SimConfig { gantt_max_jobs: 100, ..SimConfig::default() };
        for policy in POLICIES {
            let mut scheduler = schedulers::by_name(policy, &config).unwrap();
            let r = simulate(&cluster, &jobs, scheduler.as_mut(), &config, &mut |_, _| {})
                .map_err(|e| TestCaseError::fail(format!("{policy}: {e}")))?;
            check_invariants(&cluster, &jobs, &r)?;
        }
    }
}

#[test]
fn gavels_sample_traces_run_to_completion() {
    let table = gavel_table();
    let cluster = Cluster::parse("v100=8,p100=8,k80=8").unwrap();
    let config = SimConfig {
        gantt_max_jobs: 200,
        ..SimConfig::default()
    };
    for trace in [
        "artifact_evaluation",
        "small_test",
        "medium_test",
        "max_min_fairness",
        "minimize_makespan",
    ] {
        let text = std::fs::read_to_string(format!("{}/data/gavel/traces/{trace}.trace", shared()))
            .unwrap();
        let jobs = gavel_trace(&text, &table, &cluster.types).unwrap();
        for policy in POLICIES {
            let mut scheduler = schedulers::by_name(policy, &config).unwrap();
            let r = simulate(&cluster, &jobs, scheduler.as_mut(), &config, &mut |_, _| {})
                .unwrap_or_else(|e| panic!("{trace} / {policy}: {e}"));
            assert_eq!(r.jobs_completed, jobs.len(), "{trace} / {policy}");
            assert!(r.avg_jct_s > 0.0 && r.makespan_s > 0.0);
            check_invariants(&cluster, &jobs, &r).unwrap();
        }
    }
}

/// The same seed must give the same workload in wasm (tests/browser in fairground-web checks
/// the same digest there).
#[test]
fn synthetic_workload_digest_is_stable() {
    assert_eq!(
        fairground_sim::workload::digest(&reference_workload()),
        REFERENCE_DIGEST
    );
}

fn reference_workload() -> Vec<Job> {
    let cluster = Cluster::parse("v100=4,p100=4,k80=4").unwrap();
    synthetic(
        &SyntheticConfig {
            jobs: 200,
            jobs_per_hour: 3.0,
            seed: 42,
            tenants: 3,
            tenant_mix: Default::default(),
        },
        &ThroughputTable::builtin(),
        &cluster.types,
    )
    .unwrap()
}

const REFERENCE_DIGEST: u64 = 6075059981721869792;
