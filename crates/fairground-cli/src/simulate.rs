//! `fairground simulate`: replay a workload under one or more policies (in parallel).

use fairground_sim::metrics::SimResult;
use fairground_sim::workload::{
    csv_trace, gavel_trace, synthetic, write_gavel_trace, SyntheticConfig,
};
use fairground_sim::{schedulers, simulate, Cluster, Job, SimConfig, ThroughputTable};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

#[derive(clap::Args)]
pub struct SimulateArgs {
    /// A trace: Gavel's tab-separated `.trace` format, or Fairground's `.csv` (README).
    #[arg(long, conflicts_with = "synthetic")]
    trace: Option<PathBuf>,
    /// Generate this many jobs with Gavel's synthetic workload instead of reading a trace.
    #[arg(long)]
    synthetic: Option<usize>,
    /// Poisson arrival rate of the synthetic workload, jobs per hour.
    #[arg(long, default_value_t = 6.0)]
    jobs_per_hour: f64,
    /// Seed of the synthetic workload.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Tenants the synthetic jobs are spread over (for tenant-level policies such as oef-coop).
    #[arg(long, default_value_t = 4)]
    tenants: usize,
    /// Gavel's throughput file (simulation_throughputs.json); default: the small built-in table
    /// (six models; multi-GPU rates assume perfect scaling).
    #[arg(long)]
    throughputs: Option<PathBuf>,
    /// GPUs per type, e.g. v100=4,p100=4,k80=4 (servers of up to 8 GPUs).
    #[arg(long)]
    cluster: String,
    /// Scheduling policy; repeat to compare several on the same workload (they run in parallel).
    #[arg(long = "policy", required = true)]
    policies: Vec<String>,
    /// Round length in seconds.
    #[arg(long = "round", default_value_t = 360.0)]
    round_s: f64,
    /// Seconds of progress lost when a job resumes on other GPUs.
    #[arg(long, default_value_t = 0.0)]
    restart_overhead: f64,
    /// Least simulated seconds between recomputations of an allocation policy (Gavel: 1920).
    #[arg(long, default_value_t = 1920.0)]
    reallocation_interval: f64,
    /// Print JSON (one object, or an array with several --policy).
    #[arg(long)]
    json: bool,
    /// Also write the workload as a Gavel trace to FILE (e.g. to replay it in Gavel itself).
    #[arg(long, value_name = "FILE")]
    write_trace: Option<PathBuf>,
}

fn read(path: &PathBuf) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

pub fn run(a: SimulateArgs) -> Result<(), String> {
    let cluster = Cluster::parse(&a.cluster).map_err(|e| e.to_string())?;
    let table = match &a.throughputs {
        Some(path) => ThroughputTable::from_gavel_json(&read(path)?)
            .map_err(|e| format!("{}: {e}", path.display()))?,
        None => ThroughputTable::builtin(),
    };
    let jobs: Vec<Job> = match (&a.trace, a.synthetic) {
        (Some(path), _) => {
            let text = read(path)?;
            let parsed = if path.extension().is_some_and(|e| e == "csv") {
                csv_trace(&text, &table, &cluster.types)
            } else {
                gavel_trace(&text, &table, &cluster.types)
            };
            parsed.map_err(|e| format!("{}: {e}", path.display()))?
        }
        (None, Some(n)) => synthetic(
            &SyntheticConfig {
                jobs: n,
                jobs_per_hour: a.jobs_per_hour,
                seed: a.seed,
                tenants: a.tenants,
            },
            &table,
            &cluster.types,
        )
        .map_err(|e| e.to_string())?,
        (None, None) => return Err("give a workload: --trace FILE or --synthetic N".into()),
    };
    if let Some(path) = &a.write_trace {
        std::fs::write(path, write_gavel_trace(&jobs))
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let config = SimConfig {
        round_s: a.round_s,
        restart_overhead_s: a.restart_overhead,
        reallocation_interval_s: a.reallocation_interval,
        ..SimConfig::default()
    };
    let mut runs = Vec::new();
    for name in &a.policies {
        runs.push((
            name.clone(),
            schedulers::by_name(name, &config).map_err(|e| e.to_string())?,
        ));
    }
    let done: Vec<AtomicUsize> = runs.iter().map(|_| AtomicUsize::new(0)).collect();
    let total = jobs.len();
    let show_progress = std::io::stderr().is_terminal();
    let printing = Mutex::new(());
    let print_progress = |done: &[AtomicUsize]| {
        if !show_progress {
            return;
        }
        let _guard = printing.lock();
        let parts: Vec<String> = a
            .policies
            .iter()
            .zip(done)
            .map(|(p, d)| format!("{p} {}/{total}", d.load(Ordering::Relaxed)))
            .collect();
        eprint!("\rsimulating: {}   ", parts.join(", "));
    };
    let results: Vec<Result<SimResult, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = runs
            .into_iter()
            .enumerate()
            .map(|(k, (name, mut scheduler))| {
                let (cluster, jobs, config, done, print_progress) =
                    (&cluster, &jobs, &config, &done, &print_progress);
                scope.spawn(move || {
                    simulate(cluster, jobs, scheduler.as_mut(), config, &mut |n, _| {
                        done[k].store(n, Ordering::Relaxed);
                        if n % 25 == 0 {
                            print_progress(done);
                        }
                    })
                    .map_err(|e| format!("{name}: {e}"))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a simulation thread panicked".into()))
            })
            .collect()
    });
    if show_progress {
        eprintln!();
    }
    let mut ok = Vec::new();
    for r in results {
        ok.push(r?);
    }
    if a.json {
        let text = if ok.len() == 1 {
            serde_json::to_string_pretty(&ok[0])
        } else {
            serde_json::to_string_pretty(&ok)
        };
        out!("{}", text.map_err(|e| e.to_string())?);
    } else {
        print_table(&cluster, total, &ok);
    }
    Ok(())
}

fn print_table(cluster: &Cluster, total: usize, results: &[SimResult]) {
    let hours = |s: f64| s / 3600.0;
    out_part!(
        "{:<20} {:>9} {:>12} {:>12} {:>12} {:>12} {:>8}",
        "policy",
        "done",
        "avg JCT h",
        "median h",
        "p99 h",
        "makespan h",
        "avg rho"
    );
    for t in &cluster.types {
        out_part!(" {:>8}", format!("util {t}"));
    }
    out!();
    for r in results {
        out_part!(
            "{:<20} {:>9} {:>12.3} {:>12.3} {:>12.3} {:>12.3} {:>8.3}",
            r.policy,
            format!("{}/{total}", r.jobs_completed),
            hours(r.avg_jct_s),
            hours(r.median_jct_s),
            hours(r.p99_jct_s),
            hours(r.makespan_s),
            r.avg_rho
        );
        for u in &r.utilization {
            out_part!(" {:>8.3}", u);
        }
        out!();
        if !r.jobs_unschedulable.is_empty() {
            out!(
                "  {} job(s) can run nowhere on this cluster: {:?}",
                r.jobs_unschedulable.len(),
                r.jobs_unschedulable
            );
        }
    }
}
