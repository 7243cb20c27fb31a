//! One run of issue 5's benchmark workload, timed: 1,000 synthetic jobs on 12 V100 + 12 P100 +
//! 12 K80. `cargo run --release -p fairground-sim --example thousand_jobs -- [policy] [jobs/h]`
//! (criterion's figure is in BENCHMARKS.md; this is for profiling a single run).

use fairground_core::shared_data_dir;
use fairground_sim::workload::{synthetic, SyntheticConfig};
use fairground_sim::{schedulers, simulate, Cluster, SimConfig, ThroughputTable};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let policy = args.next().unwrap_or_else(|| "gavel-las".into());
    let rate: f64 = args.next().map_or(6.0, |r| r.parse().expect("jobs/h"));
    let text = std::fs::read_to_string(format!(
        "{}/data/gavel/simulation_throughputs.json",
        shared_data_dir()
    ))
    .expect("Gavel's throughputs: run `cargo xtask data` (docs/development.md)");
    let table = ThroughputTable::from_gavel_json(&text).unwrap();
    let cluster = Cluster::parse("v100=12,p100=12,k80=12").unwrap();
    let cfg = SyntheticConfig {
        jobs: 1000,
        jobs_per_hour: rate,
        seed: 0,
        tenants: 10,
        tenant_mix: Default::default(),
    };
    let jobs = synthetic(&cfg, &table, &cluster.types).unwrap();
    let config = SimConfig::default();
    let start = Instant::now();
    // FRESH=1: gavel-las without its warm LP, for comparison.
    let fresh = std::env::var_os("FRESH").is_some();
    let (result, warm) = if ["fifo", "srtf", "las"].contains(&policy.as_str()) {
        let mut scheduler = schedulers::by_name(&policy, &config).unwrap();
        let result = simulate(&cluster, &jobs, scheduler.as_mut(), &config, &mut |_, _| {});
        (result.unwrap(), 0)
    } else {
        let mut scheduler = schedulers::GavelRounds::new(&policy, config.reallocation_interval_s)
            .unwrap()
            .with_warm_las(!fresh);
        let result = simulate(&cluster, &jobs, &mut scheduler, &config, &mut |_, _| {});
        (result.unwrap(), scheduler.warm_answers())
    };
    println!(
        "{policy} at {rate} jobs/h: {:.3} s; {} jobs, avg JCT {:.1} h, makespan {:.1} h; {warm} warm LAS answers",
        start.elapsed().as_secs_f64(),
        result.jobs_completed,
        result.avg_jct_s / 3600.0,
        result.makespan_s / 3600.0
    );
}
