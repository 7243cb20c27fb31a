//! Issue 13's speed figures: Gavel's synthetic workload (seed 0) with Gavel's measured
//! throughputs on 12 V100 + 12 P100 + 12 K80, run to the last job under Hadar, timed once.
//! `cargo run --release -p fairground-sim --example hadar_speed -- [jobs] [jobs/h] [policy...]`
//! (default 10,000 jobs at 3 jobs/h under hadar). Figures in BENCHMARKS.md.

use fairground_core::shared_data_dir as shared;
use fairground_sim::workload::{synthetic, SyntheticConfig};
use fairground_sim::{schedulers, simulate, Cluster, SimConfig, ThroughputTable};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let jobs: usize = args.next().map_or(10_000, |n| n.parse().expect("jobs"));
    let rate: f64 = args.next().map_or(3.0, |r| r.parse().expect("jobs/h"));
    let mut policies: Vec<String> = args.collect();
    if policies.is_empty() {
        policies = vec!["hadar".into()];
    }
    let text = std::fs::read_to_string(format!(
        "{}/data/gavel/simulation_throughputs.json",
        shared()
    ))
    .expect("Gavel's throughputs: run `cargo xtask data` (docs/development.md)");
    let table = ThroughputTable::from_gavel_json(&text).unwrap();
    let cluster = Cluster::parse("v100=12,p100=12,k80=12").unwrap();
    let cfg = SyntheticConfig {
        jobs,
        jobs_per_hour: rate,
        seed: 0,
        tenants: 10,
        tenant_mix: Default::default(),
    };
    let jobs = synthetic(&cfg, &table, &cluster.types).unwrap();
    let config = SimConfig::default();
    for policy in policies {
        let mut scheduler = schedulers::by_name(&policy, &config).unwrap();
        let start = Instant::now();
        let r = simulate(&cluster, &jobs, scheduler.as_mut(), &config, &mut |_, _| {}).unwrap();
        println!(
            "{policy}, {} jobs at {rate} jobs/h: {:.2} s; avg JCT {:.1} h, makespan {:.0} h",
            jobs.len(),
            start.elapsed().as_secs_f64(),
            r.avg_jct_s / 3600.0,
            r.makespan_s / 3600.0
        );
    }
}
