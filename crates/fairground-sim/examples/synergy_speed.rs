//! Issue 11's speed figure: a 10,000-job Synergy workload on 128 GPUs (16 servers of 8 GPUs,
//! 24 CPUs, 500 GB), single-GPU, split 20/70/10, run to the last job, timed per policy.
//! `cargo run --release -p fairground-sim --example synergy_speed -- [jobs/h] [policy...]`
//! (default 9 jobs/h; synergy-proportional, synergy-tune, synergy-opt). Figures in BENCHMARKS.md.

use fairground_sim::workload::{synergy, SynergyConfig};
use fairground_sim::{schedulers, simulate, Cluster, Profiles, ServerShape, SimConfig};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let rate: f64 = args.next().map_or(9.0, |r| r.parse().expect("jobs/h"));
    let mut policies: Vec<String> = args.collect();
    if policies.is_empty() {
        policies = ["synergy-proportional", "synergy-tune", "synergy-opt"]
            .map(String::from)
            .to_vec();
    }
    let shape = ServerShape::default();
    let cluster = Cluster::parse_shaped("gpu=128", &shape).unwrap();
    let cfg = SynergyConfig {
        jobs: 10_000,
        jobs_per_hour: rate,
        seed: 1,
        ..SynergyConfig::default()
    };
    let jobs = synergy(&cfg, &Profiles::builtin(), &shape, &cluster.types).unwrap();
    let config = SimConfig {
        round_s: 300.0,
        ..SimConfig::default()
    };
    for policy in policies {
        let mut scheduler = schedulers::by_name(&policy, &config).unwrap();
        let start = Instant::now();
        let r = simulate(&cluster, &jobs, scheduler.as_mut(), &config, &mut |_, _| {}).unwrap();
        println!(
            "{policy} at {rate} jobs/h: {:.2} s; {} jobs, avg JCT {:.1} h, makespan {:.0} h",
            start.elapsed().as_secs_f64(),
            r.jobs_completed,
            r.avg_jct_s / 3600.0,
            r.makespan_s / 3600.0
        );
    }
}
