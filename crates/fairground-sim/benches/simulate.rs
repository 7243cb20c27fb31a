//! Issue 5's benchmark: 1,000 synthetic jobs on 12 V100 + 12 P100 + 12 K80 under gavel-las
//! (Gavel's own simulator: about 35 s on this machine kind). Figures in BENCHMARKS.md.

use criterion::{criterion_group, criterion_main, Criterion};
use fairground_sim::workload::{synthetic, SyntheticConfig};
use fairground_sim::{schedulers, simulate, Cluster, SimConfig, ThroughputTable};
use std::hint::black_box;

use fairground_core::shared_data_dir as shared;

/// One whole simulation under `policy`.
fn run(policy: &str, cluster: &Cluster, jobs: &[fairground_sim::Job], config: &SimConfig) {
    let mut scheduler = schedulers::by_name(policy, config).unwrap();
    simulate(cluster, jobs, scheduler.as_mut(), config, &mut |_, _| {}).unwrap();
}

fn thousand_jobs(c: &mut Criterion) {
    let text = std::fs::read_to_string(format!(
        "{}/data/gavel/simulation_throughputs.json",
        shared()
    ))
    .expect("Gavel's throughputs: run `cargo xtask data` (docs/development.md)");
    let table = ThroughputTable::from_gavel_json(&text).unwrap();
    let cluster = Cluster::parse("v100=12,p100=12,k80=12").unwrap();
    let config = SimConfig::default();
    let mut group = c.benchmark_group("simulate-1000-jobs-36-gpus");
    group.sample_size(10);
    // Arrival rates from a light load to a saturated cluster; the policy LP is the cost there.
    for (policy, jobs_per_hour) in [
        ("gavel-las", 0.5),
        ("gavel-las", 1.0),
        ("gavel-las", 2.0),
        ("gavel-las", 6.0),
        ("fifo", 6.0),
    ] {
        let cfg = SyntheticConfig {
            jobs: 1000,
            jobs_per_hour,
            seed: 0,
            tenants: 10,
            tenant_mix: Default::default(),
        };
        let jobs = synthetic(&cfg, &table, &cluster.types).unwrap();
        group.bench_function(format!("{policy}@{jobs_per_hour}jobs-per-h"), |b| {
            b.iter(|| run(policy, &cluster, black_box(&jobs), &config))
        });
    }
    group.finish();
}

/// Issue 13's benchmark: 1,000 synthetic jobs on 12+12+12 under Hadar and HadarE (target
/// under 2 s), from a sustainable load to a saturated cluster, where the queue and so the
/// planning per round are longest.
fn hadar_thousand_jobs(c: &mut Criterion) {
    let text = std::fs::read_to_string(format!(
        "{}/data/gavel/simulation_throughputs.json",
        shared()
    ))
    .expect("Gavel's throughputs: run `cargo xtask data` (docs/development.md)");
    let table = ThroughputTable::from_gavel_json(&text).unwrap();
    let cluster = Cluster::parse("v100=12,p100=12,k80=12").unwrap();
    let config = SimConfig::default();
    let mut group = c.benchmark_group("hadar-1000-jobs-36-gpus");
    group.sample_size(10);
    for (policy, jobs_per_hour) in [
        ("hadar", 1.0),
        ("hadar", 3.0),
        ("hadar", 6.0),
        ("hadare", 6.0),
    ] {
        let cfg = SyntheticConfig {
            jobs: 1000,
            jobs_per_hour,
            seed: 0,
            tenants: 10,
            tenant_mix: Default::default(),
        };
        let jobs = synthetic(&cfg, &table, &cluster.types).unwrap();
        group.bench_function(format!("{policy}@{jobs_per_hour}jobs-per-h"), |b| {
            b.iter(|| run(policy, &cluster, black_box(&jobs), &config))
        });
    }
    group.finish();
}

/// Issue 15's benchmark at the size a criterion run allows: 10,000 synthetic jobs (Gavel's
/// generator, built-in table, seed 0, 300 jobs/h) on 2,400 GPUs (800 per type), a load at which
/// most jobs wait for hours, so a round's cost must not follow the queue. The 100,000-job run
/// is timed with the CLI (BENCHMARKS.md).
fn long_queue(c: &mut Criterion) {
    let table = ThroughputTable::builtin();
    let cluster = Cluster::parse("v100=800,p100=800,k80=800").unwrap();
    let config = SimConfig::default();
    let cfg = SyntheticConfig {
        jobs: 10_000,
        jobs_per_hour: 300.0,
        seed: 0,
        tenants: 4,
        tenant_mix: Default::default(),
    };
    let jobs = synthetic(&cfg, &table, &cluster.types).unwrap();
    let mut group = c.benchmark_group("simulate-10000-jobs-2400-gpus");
    group.sample_size(10);
    for policy in ["fifo", "gavel-las"] {
        group.bench_function(policy, |b| {
            b.iter(|| run(policy, &cluster, black_box(&jobs), &config))
        });
    }
    group.finish();
}

criterion_group!(benches, thousand_jobs, hadar_thousand_jobs, long_queue);
criterion_main!(benches);
