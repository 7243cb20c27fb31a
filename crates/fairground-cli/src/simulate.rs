//! `fairground simulate`: replay a workload under one or more policies (in parallel).

use fairground_sim::metrics::SimResult;
use fairground_sim::sharing::read_gavel_file;
use fairground_sim::sharing::{GpuMemory, Interference};
use fairground_sim::tenants::{ShareAmong, WithinTenant};
use fairground_sim::traces::{self, TenantField, TraceFormat, TraceOptions};
use fairground_sim::workload::{
    csv_tenant_weights, csv_trace, gavel_trace, parse_split, synergy, synthetic, write_gavel_trace,
    SynergyConfig, SyntheticConfig, TenantMix,
};
use fairground_sim::{
    schedulers, simulate, Cluster, Job, MixedRate, Profiles, ServerShape, SimConfig,
    ThroughputTable,
};
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::Path;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

#[derive(clap::Args)]
pub struct SimulateArgs {
    /// A trace: Gavel's tab-separated `.trace` format, Fairground's `.csv`, or a public trace
    /// (docs/simulator.md, "Public traces").
    #[arg(long, conflicts_with_all = ["synthetic", "synthetic_synergy"])]
    trace: Option<PathBuf>,
    /// The trace's format; by default recognised from the file (a JSON array of jobs with
    /// attempts is Philly's, pai_job_table / pai_task_table PAI's, a `.csv` with Helios's
    /// header Helios's, any other `.csv` Fairground's, anything else Gavel's).
    #[arg(long, value_parser = ["gavel", "csv", "helios", "philly", "pai"], requires = "trace")]
    trace_format: Option<String>,
    /// PAI's trace is two tables: --trace gives one, this the other (default: the other's
    /// published name, pai_task_table.csv or pai_job_table.csv, in the same folder).
    #[arg(long, value_name = "FILE", requires = "trace")]
    trace_tasks: Option<PathBuf>,
    /// Public traces: which field names the tenant, the user or the virtual cluster.
    #[arg(long, default_value = "user", value_parser = ["user", "vc"])]
    trace_tenant: String,
    /// Public traces: the GPU type their durations were measured on (steps = duration x the
    /// model's rate on it).
    #[arg(long, default_value = "v100")]
    trace_gpu_type: String,
    /// Public traces: keep the jobs submitted at or after this time ("YYYY-MM-DD HH:MM:SS", or
    /// seconds as the trace counts them, as in PAI's).
    #[arg(long, value_name = "TIME")]
    from: Option<String>,
    /// Public traces: keep the jobs submitted before this time (as --from).
    #[arg(long, value_name = "TIME")]
    until: Option<String>,
    /// Public traces: keep N of the jobs left, drawn by --seed.
    #[arg(long, value_name = "N")]
    sample: Option<usize>,
    /// Generate this many jobs with Gavel's synthetic workload instead of reading a trace.
    #[arg(long, conflicts_with = "synthetic_synergy")]
    synthetic: Option<usize>,
    /// Generate this many jobs with Synergy's workload (models from the profiles, by task split).
    #[arg(long, value_name = "N")]
    synthetic_synergy: Option<usize>,
    /// Most jobs a workload may have (about 650 B a job for each policy run; docs/simulator.md, "Limits").
    #[arg(long, value_name = "N", default_value_t = fairground_sim::limits::DEFAULT_MAX_JOBS)]
    max_jobs: usize,
    /// Synergy workload: target percentages of image, language and speech jobs.
    #[arg(long, default_value = "20,70,10", value_name = "IMAGE,LANGUAGE,SPEECH")]
    split: String,
    /// Synergy workload: 1/2/4/8-GPU jobs w.p. .70/.10/.15/.05 (default: all single-GPU).
    #[arg(long)]
    multi_gpu: bool,
    /// Synergy's model profiles (its profiles.json format); default: the built-in copy.
    #[arg(long, value_name = "FILE")]
    profiles: Option<PathBuf>,
    /// GPUs, CPU cores and GB of memory per server (Synergy's: 8,24,500).
    #[arg(long, default_value = "8,24,500", value_name = "GPUS,CPUS,MEM_GB")]
    server_shape: String,
    /// Report average and p99 JCT of the jobs with ids in [A, B), e.g. 4000..5000, and stop once
    /// they have all finished (Synergy's steady-state measurement).
    #[arg(long, value_name = "A..B")]
    measure_ids: Option<String>,
    /// Poisson arrival rate of the synthetic workload, jobs per hour.
    #[arg(long, default_value_t = 6.0)]
    jobs_per_hour: f64,
    /// Seed of the synthetic workload, and of the model each job of a public trace is given.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Tenants the synthetic jobs are spread over (uniformly; see --share-among).
    #[arg(long, default_value_t = 4)]
    tenants: usize,
    /// Which models each tenant runs, for synthetic workloads and public traces: uniform (every
    /// tenant the same random mix) or skewed (tenant k draws 80% of its jobs from its own model
    /// family, the k-th of the table's in name order, the rest from all models).
    #[arg(long, default_value = "uniform", value_name = "uniform|skewed")]
    tenant_mix: String,
    /// Who an allocation policy shares the cluster among: jobs (each job a party, as Gavel) or
    /// tenants (each tenant a party with its jobs' speedups, its GPUs split among its jobs by
    /// what each does best). gavel-hierarchical is always tenants then jobs; the output says who
    /// each policy shared among.
    #[arg(long, default_value = "jobs", value_name = "jobs|tenants")]
    share_among: String,
    /// How a tenant's GPUs reach its jobs, for every tenant-level policy (tenants as parties,
    /// gandiva-fair, gavel-hierarchical): fairness (the default: max-min of the jobs'
    /// normalised throughput, water filled, as gavel-hierarchical), fifo (jobs in arrival
    /// order, each up to its scale factor) or equal-time (equal time, then comparative
    /// advantage). An error for a policy that shares among jobs.
    #[arg(long, value_name = "fairness|fifo|equal-time")]
    within_tenant: Option<String>,
    /// Tenants' weights, e.g. team-a=2,team-b=1 (a tenant not named: 1, or the CSV trace's
    /// `weight` column).
    #[arg(long, value_name = "NAME=W,...")]
    tenant_weights: Option<String>,
    /// Gavel's throughput file (simulation_throughputs.json), or a built-in table by name:
    /// `gavel` (the default: Gavel's six models on K80, P100 and V100) or `todays-gpus` (ten
    /// models Lambda measured on h100, a100-80, a100-40, rtx6000-ada, a10 and v100). Built-in
    /// multi-GPU rates assume perfect scaling.
    #[arg(long, value_name = "FILE|gavel|todays-gpus")]
    throughputs: Option<PathBuf>,
    /// GB of memory per GPU by type, e.g. v100=16,k80=12 (defaults: k80 12, a100/a100-40 40,
    /// h100 and a100-80 80, a6000/rtx6000-ada 48, a10/l4 24, any other 16), checked where two
    /// jobs share a GPU (sjf-bsbf, sjf-ffs).
    #[arg(long, value_name = "TYPE=GB,...")]
    gpu_memory: Option<String>,
    /// GPUs per type, e.g. v100=4,p100=4,k80=4, on servers of --server-shape. Required, except
    /// with --synthetic-synergy, where it defaults to Synergy's 128 GPUs (gpu=128).
    #[arg(long)]
    cluster: Option<String>,
    /// Scheduling policy; repeat to compare several on the same workload (they run in parallel).
    #[arg(long = "policy", required = true)]
    pub policies: Vec<String>,
    /// Round length in seconds (default: 300 with Synergy's workload or policies, as its
    /// simulator; otherwise 360, as Gavel's).
    #[arg(long = "round")]
    round_s: Option<f64>,
    /// Seconds of progress lost when a job resumes on other GPUs.
    #[arg(long, default_value_t = 0.0)]
    restart_overhead: f64,
    /// How fast a job runs on several GPU types at once (hadar, hadare): slowest (a synchronous
    /// job waits for its slowest worker) or sum (batches rebalanced by speed).
    #[arg(long, default_value = "slowest", value_name = "slowest|sum")]
    mixed_rate: String,
    /// Seconds of progress a job forked into copies (hadare) loses each round to combine them.
    #[arg(long, default_value_t = fairground_sim::config::DEFAULT_SYNC_OVERHEAD_S, value_name = "SECONDS")]
    sync_overhead: f64,
    /// Least simulated seconds between recomputations of an allocation policy (Gavel: 1920).
    #[arg(long, default_value_t = 1920.0)]
    reallocation_interval: f64,
    /// Print JSON (one object, or an array with several --policy).
    #[arg(long)]
    json: bool,
    /// Write each job's outcome to FILE as CSV, one row per (policy, job): policy, id, tenant,
    /// arrival_s, start_s, finish_s, jct_s, rho (empty when the job did not start or finish).
    /// The --json output then leaves out its per-job list, so a large run stays readable.
    #[arg(long, value_name = "FILE")]
    jobs_csv: Option<PathBuf>,
    /// Also write the workload as a Gavel trace to FILE (e.g. to replay it in Gavel itself).
    #[arg(long, value_name = "FILE")]
    write_trace: Option<PathBuf>,
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// `A..B` as (A, B), A < B.
fn parse_id_range(spec: &str) -> Result<(usize, usize), String> {
    let bad =
        || format!("--measure-ids '{spec}': give A..B with whole numbers A < B, e.g. 4000..5000");
    let (a, b) = spec.split_once("..").ok_or_else(bad)?;
    let (a, b): (usize, usize) = (
        a.trim().parse().map_err(|_| bad())?,
        b.trim().parse().map_err(|_| bad())?,
    );
    if a >= b {
        return Err(bad());
    }
    Ok((a, b))
}

/// A run made ready: the cluster, the workload and the engine's settings, every flag checked.
pub struct Prepared {
    pub cluster: Cluster,
    pub jobs: Vec<Job>,
    pub config: SimConfig,
    /// Whether the table shows CPU and memory columns (Synergy's runs, steady-state ids).
    resources: bool,
}

pub fn run(a: SimulateArgs) -> Result<(), String> {
    let prepared = prepare(&a)?;
    run_prepared(&a, prepared)
}

/// Everything before the policies run: flags checked, cluster made, workload generated or read.
/// `--within-tenant`, when given, has a meaning for every policy of the run (each shares among
/// tenants): checked before any workload is made, and for every case of a sweep's spec.
pub fn check_within_tenant(a: &SimulateArgs) -> Result<(), String> {
    let Some(text) = a.within_tenant.as_deref() else {
        return Ok(());
    };
    let config = SimConfig {
        share_among: ShareAmong::parse(&a.share_among)?,
        within_tenant: WithinTenant::parse(text)?,
        within_tenant_asked: true,
        ..SimConfig::default()
    };
    for policy in &a.policies {
        // Only the option's own refusal: an unknown policy is reported where it always is.
        if let Err(e) = schedulers::by_name(policy, &config) {
            let e = e.to_string();
            if e.contains("--within-tenant") {
                return Err(e);
            }
        }
    }
    Ok(())
}

pub fn prepare(a: &SimulateArgs) -> Result<Prepared, String> {
    check_within_tenant(a)?;
    // Before anything is generated or read: a typo of one zero too many is refused at once.
    for (flag, n) in [
        ("--synthetic", a.synthetic),
        ("--synthetic-synergy", a.synthetic_synergy),
    ] {
        if let Some(n) = n {
            fairground_sim::limits::check_job_count(n, a.max_jobs)
                .map_err(|e| format!("{flag}: {e}"))?;
        }
    }
    let cluster = cluster_of(a)?;
    let profiles = match &a.profiles {
        Some(path) => {
            Profiles::from_json(&read(path)?).map_err(|e| format!("{}: {e}", path.display()))?
        }
        None => Profiles::builtin(),
    };
    let measure_ids = a.measure_ids.as_deref().map(parse_id_range).transpose()?;
    let tenant_mix = TenantMix::parse(&a.tenant_mix).map_err(|e| e.to_string())?;
    let share_among = ShareAmong::parse(&a.share_among)?;
    let within_tenant = a
        .within_tenant
        .as_deref()
        .map(WithinTenant::parse)
        .transpose()?;
    let (table, interference) = throughput_table(a)?;
    let Workload {
        jobs,
        models_drawn,
        mut tenant_weights,
    } = workload(a, &cluster, &table, &profiles, tenant_mix)?;
    if let Some(spec) = &a.tenant_weights {
        for (name, w) in parse_tenant_weights(spec)? {
            if !jobs.iter().any(|j| j.tenant == name) {
                return Err(format!(
                    "--tenant-weights: the workload has no tenant '{name}' (its tenants: {})",
                    tenant_names(&jobs)
                ));
            }
            tenant_weights.insert(name, w);
        }
    }
    if tenant_mix == TenantMix::Skewed && !models_drawn {
        return Err(
            "--tenant-mix skewed draws the models of a synthetic workload (--synthetic) \
                    or of a public trace (helios, philly, pai); other traces name their own"
                .into(),
        );
    }
    if let Some(path) = &a.write_trace {
        std::fs::write(path, write_gavel_trace(&jobs))
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let synergy_run =
        a.synthetic_synergy.is_some() || a.policies.iter().any(|p| p.starts_with("synergy-"));
    let config = SimConfig {
        round_s: a.round_s.unwrap_or(if synergy_run { 300.0 } else { 360.0 }),
        restart_overhead_s: a.restart_overhead,
        reallocation_interval_s: a.reallocation_interval,
        measure_ids,
        interference,
        mixed_rate: MixedRate::parse(&a.mixed_rate).map_err(|e| format!("--mixed-rate: {e}"))?,
        sync_overhead_s: a.sync_overhead,
        share_among,
        within_tenant: within_tenant.unwrap_or_default(),
        within_tenant_asked: within_tenant.is_some(),
        tenant_weights,
        max_jobs: a.max_jobs,
        ..SimConfig::default()
    };
    Ok(Prepared {
        cluster,
        jobs,
        config,
        resources: measure_ids.is_some() || synergy_run,
    })
}

/// The cluster the flags describe: `--cluster` (Synergy's 128 GPUs for its workload), its
/// servers' shape and its GPUs' memory.
fn cluster_of(a: &SimulateArgs) -> Result<Cluster, String> {
    let shape = ServerShape::parse(&a.server_shape).map_err(|e| e.to_string())?;
    let cluster_spec = match (&a.cluster, a.synthetic_synergy) {
        (Some(spec), _) => spec.clone(),
        (None, Some(_)) => "gpu=128".to_string(),
        (None, None) => return Err("give the cluster: --cluster v100=4,p100=4,k80=4".into()),
    };
    let mut cluster = Cluster::parse_shaped(&cluster_spec, &shape).map_err(|e| e.to_string())?;
    cluster.gpu_memory_gb = GpuMemory::parse(a.gpu_memory.as_deref().unwrap_or(""), &cluster.types)
        .map_err(|e| e.to_string())?
        .0;
    Ok(cluster)
}

/// The throughput table (a built-in one by name, or Gavel's file with its co-located pairs), and
/// the interference those pairs give; a policy that shares GPUs is refused on a table that
/// measures no pair.
fn throughput_table(a: &SimulateArgs) -> Result<(ThroughputTable, Interference), String> {
    let builtin = a
        .throughputs
        .as_ref()
        .and_then(|p| p.to_str())
        .and_then(|name| ThroughputTable::named(name).map(|t| (name, t)));
    if let Some((name, _)) = &builtin {
        fairground_sim::throughputs::check_sharing(name, &a.policies).map_err(|e| e.to_string())?;
    }
    Ok(match (&a.throughputs, builtin) {
        (_, Some((_, table))) => (table, Interference::default()),
        (Some(path), None) => {
            let text = read(path)?;
            read_gavel_file(&text).map_err(|e| format!("{}: {e}", path.display()))?
        }
        (None, None) => (ThroughputTable::builtin(), Interference::default()),
    })
}

/// A run's jobs, whether their models were drawn (synthetic, public traces: a tenant mix
/// applies), and the tenants' weights a trace gives.
struct Workload {
    jobs: Vec<Job>,
    models_drawn: bool,
    tenant_weights: BTreeMap<String, f64>,
}

/// The workload the flags ask for: Synergy's generator, a trace, or Gavel's generator.
fn workload(
    a: &SimulateArgs,
    cluster: &Cluster,
    table: &ThroughputTable,
    profiles: &Profiles,
    tenant_mix: TenantMix,
) -> Result<Workload, String> {
    let generated = |jobs| Workload {
        jobs,
        models_drawn: a.synthetic.is_some(),
        tenant_weights: BTreeMap::new(),
    };
    match (&a.trace, a.synthetic) {
        _ if a.synthetic_synergy.is_some() => {
            let config = SynergyConfig {
                jobs: a.synthetic_synergy.unwrap_or_default(),
                jobs_per_hour: a.jobs_per_hour,
                split: parse_split(&a.split).map_err(|e| e.to_string())?,
                multi_gpu: a.multi_gpu,
                seed: a.seed,
            };
            synergy(&config, profiles, &cluster.largest_server(), &cluster.types)
                .map(generated)
                .map_err(|e| e.to_string())
        }
        (Some(path), _) => trace_workload(a, path, cluster, table, profiles, tenant_mix),
        (None, Some(n)) => {
            let config = SyntheticConfig {
                jobs: n,
                jobs_per_hour: a.jobs_per_hour,
                seed: a.seed,
                tenants: a.tenants,
                tenant_mix,
            };
            synthetic(&config, table, &cluster.types)
                .map(generated)
                .map_err(|e| e.to_string())
        }
        (None, None) => {
            Err("give a workload: --trace FILE, --synthetic N or --synthetic-synergy N".into())
        }
    }
}

/// The jobs of the trace at `path`, read in the format named or recognised.
fn trace_workload(
    a: &SimulateArgs,
    path: &Path,
    cluster: &Cluster,
    table: &ThroughputTable,
    profiles: &Profiles,
    tenant_mix: TenantMix,
) -> Result<Workload, String> {
    let text = read(path)?;
    let name = path.to_string_lossy();
    let format = match a.trace_format.as_deref() {
        Some(f) => TraceFormat::parse(f).map_err(|e| e.to_string())?,
        None => TraceFormat::recognise(&name, &text),
    };
    if !format.is_public() && (a.from.is_some() || a.until.is_some() || a.sample.is_some()) {
        return Err(format!(
            "--from, --until and --sample cut public traces (helios, philly, pai); {} is \
             read \
             as a {} trace",
            path.display(),
            format.name()
        ));
    }
    let opts = TraceOptions {
        seed: a.seed,
        tenant: TenantField::parse(&a.trace_tenant).map_err(|e| e.to_string())?,
        gpu_type: a.trace_gpu_type.clone(),
        tenant_mix,
        from: time_flag("--from", a.from.as_deref())?,
        until: time_flag("--until", a.until.as_deref())?,
        sample: a.sample,
    };
    let second = second_table(a, path, format)?;
    let second = second.as_ref().map(|(n, t)| (n.as_str(), t.as_str()));
    let mut tenant_weights = BTreeMap::new();
    let parsed = match format.read_public((&name, &text), second, table, &cluster.types, &opts) {
        Some(read) => read.map(|read| {
            for line in read.summary() {
                eprintln!("{}: {line}", path.display());
            }
            read.jobs
        }),
        None if format == TraceFormat::Csv => {
            let largest = cluster.largest_server();
            csv_tenant_weights(&text)
                .map(|w| tenant_weights = w)
                .and_then(|_| csv_trace(&text, table, &cluster.types, Some((profiles, &largest))))
        }
        None => gavel_trace(&text, table, &cluster.types),
    };
    let jobs = parsed.map_err(|e| match format {
        // Its reader names the file of each message (one of two).
        TraceFormat::Pai => e.to_string(),
        _ => format!("{}: {e}", path.display()),
    })?;
    Ok(Workload {
        jobs,
        models_drawn: format.is_public(),
        tenant_weights,
    })
}

/// PAI's second table (its tasks), named by `--trace-tasks` or found beside its jobs' table;
/// `--trace-tasks` refused for any other format.
fn second_table(
    a: &SimulateArgs,
    path: &Path,
    format: TraceFormat,
) -> Result<Option<(String, String)>, String> {
    match (format, &a.trace_tasks) {
        (TraceFormat::Pai, given) => {
            let other = given.clone().unwrap_or_else(|| pai_companion(path));
            let text = read(&other).map_err(|e| {
                if given.is_some() {
                    e
                } else {
                    format!(
                        "{e}\n(PAI's trace is two tables: name the other with \
                         --trace-tasks FILE)"
                    )
                }
            })?;
            Ok(Some((other.to_string_lossy().into_owned(), text)))
        }
        (_, Some(_)) => Err(format!(
            "--trace-tasks is PAI's task table; {} is read as a {} trace",
            path.display(),
            format.name()
        )),
        (_, None) => Ok(None),
    }
}

/// The policies' schedulers and runs them side by side (the rest of [`run`]).
fn run_prepared(
    a: &SimulateArgs,
    Prepared {
        cluster,
        jobs,
        config,
        resources,
    }: Prepared,
) -> Result<(), String> {
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
    // The policies ran side by side in this process, so the peak is theirs together.
    if let Some(mb) = peak_memory_mb() {
        let note = match a.policies.len() {
            1 => format!("peak memory of this run: {mb:.0} MB"),
            n => format!("peak memory of this run, all {n} policies together: {mb:.0} MB"),
        };
        for r in &mut ok {
            r.notes.push(note.clone());
        }
    }
    if let Some(path) = &a.jobs_csv {
        write_jobs_csv(path, &ok).map_err(|e| format!("{}: {e}", path.display()))?;
        for r in &mut ok {
            r.jobs.clear();
        }
    }
    if a.json {
        let text = if ok.len() == 1 {
            serde_json::to_string_pretty(&ok[0])
        } else {
            serde_json::to_string_pretty(&ok)
        };
        out!("{}", text.map_err(|e| e.to_string())?);
    } else {
        print_table(&cluster, total, &ok, resources);
    }
    Ok(())
}

/// Every job's outcome under every policy, as CSV (tenant names are quoted by the writer).
fn write_jobs_csv(path: &std::path::Path, results: &[SimResult]) -> Result<(), csv::Error> {
    let mut w = csv::Writer::from_path(path)?;
    w.write_record([
        "policy",
        "id",
        "tenant",
        "arrival_s",
        "start_s",
        "finish_s",
        "jct_s",
        "rho",
    ])?;
    let opt = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
    for r in results {
        for j in &r.jobs {
            w.write_record([
                r.policy.clone(),
                j.id.to_string(),
                j.tenant.clone(),
                j.arrival_s.to_string(),
                opt(j.start_s),
                opt(j.finish_s),
                opt(j.jct_s),
                opt(j.rho),
            ])?;
        }
    }
    w.flush()?;
    Ok(())
}

/// What tenants received, a line each: realised against linear utility, SI and EF held.
fn tenant_lines(f: &fairground_sim::tenants::TenantFairness) -> Vec<String> {
    let mut lines = vec![format!(
        "{:<16} {:>8} {:>12} {:>14} {:>14} {:>9} {:>9}",
        "tenant", "weight", "split gain", "SI u / V", "EF u / V", "worst SI", "max envy"
    )];
    for (t, name) in f.tenants.iter().enumerate() {
        if f.recomputations[t] == 0 {
            continue;
        }
        let of = |held: usize, n: usize| format!("{held}/{n}");
        lines.push(format!(
            "{:<16} {:>8} {:>11.1}% {:>14} {:>14} {:>9.3} {:>9.3}",
            name,
            f.weights[t],
            100.0 * (f.mean_split_gain[t] - 1.0),
            format!(
                "{} {}",
                of(f.linear_si_held[t], f.recomputations[t]),
                of(f.si_held[t], f.judged[t])
            ),
            format!(
                "{} {}",
                of(f.linear_ef_held[t], f.recomputations[t]),
                of(f.ef_held[t], f.judged[t])
            ),
            f.worst_si_ratio[t],
            f.worst_envy[t]
        ));
    }
    lines.push(
        "(u: the tenant's linear utility, which a two-stage policy solves with, at every \
         recomputation; V: what the tenant's jobs got, judged at 8 recomputations per doubling; \
         split gain: V over u on average)"
            .into(),
    );
    if let (Some(rule), Some(gap)) = (f.within_tenant, &f.proxy_gap) {
        lines.push(format!(
            "inside each tenant: {}; V over the proxy u, least and median over recomputations:",
            rule.describe()
        ));
        for (t, name) in f.tenants.iter().enumerate() {
            if f.recomputations[t] > 0 {
                lines.push(format!(
                    "  {name}: {:.3} least, {:.3} median",
                    gap.min[t], gap.median[t]
                ));
            }
        }
    }
    lines
}

/// The process's peak resident memory, from the kernel's own accounting (Linux's VmHWM in
/// /proc/self/status; None elsewhere).
fn peak_memory_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line
        .trim_start_matches("VmHWM:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb / 1024.0)
}

fn print_table(cluster: &Cluster, total: usize, results: &[SimResult], resources: bool) {
    let hours = |s: f64| s / 3600.0;
    out_part!(
        "{:<28} {:>11} {:>12} {:>12} {:>12} {:>12} {:>8} {:>8} {:>10}",
        "policy",
        "done",
        "avg JCT h",
        "median h",
        "p99 h",
        "makespan h",
        "avg rho",
        "work/h",
        "idle GPU-h"
    );
    for t in &cluster.types {
        out_part!(" {:>8}", format!("util {t}"));
    }
    if resources {
        out_part!(" {:>8} {:>8}", "util cpu", "util mem");
    }
    let measured = results.iter().find_map(|r| r.measured.as_ref());
    if let Some(m) = measured {
        let ids = format!("ids {}..{}", m.from_id, m.to_id);
        out_part!(" {:>22} {:>14}", format!("{ids} avg JCT h"), "p99 h");
    }
    out!();
    for r in results {
        out_part!(
            "{:<28} {:>11} {:>12.3} {:>12.3} {:>12.3} {:>12.3} {:>8.3} {:>8.2} {:>10.1}",
            r.policy,
            format!("{}/{total}", r.jobs_completed),
            hours(r.avg_jct_s),
            hours(r.median_jct_s),
            hours(r.p99_jct_s),
            hours(r.makespan_s),
            r.avg_rho,
            r.normalised_work_per_hour,
            r.idle_while_waiting_gpu_h
        );
        for u in &r.utilization {
            out_part!(" {:>8.3}", u);
        }
        if resources {
            out_part!(" {:>8.3} {:>8.3}", r.cpu_utilization, r.mem_utilization);
        }
        if let Some(m) = &r.measured {
            out_part!(" {:>22.3} {:>14.3}", hours(m.avg_jct_s), hours(m.p99_jct_s));
        }
        out!();
        if let Some(m) = r.measured.as_ref().filter(|m| m.completed < m.jobs) {
            out!(
                "  only {} of the {} jobs with ids {}..{} finished",
                m.completed,
                m.jobs,
                m.from_id,
                m.to_id
            );
        }
        if r.jobs_unfinished > 0 {
            out!(
                "  stopped once the measured jobs finished; {} other job(s) were still running or waiting (not in the all-jobs figures)",
                r.jobs_unfinished
            );
        }
        for note in &r.notes {
            out!("  {note}");
        }
        if r.parties != "jobs" && !r.parties.is_empty() {
            out!("  shared among {}", r.parties);
        }
        if let Some(f) = &r.tenant_fairness {
            for line in tenant_lines(f) {
                out!("  {line}");
            }
        }
        if !r.jobs_unschedulable.is_empty() {
            out!(
                "  {} job(s) can run nowhere on this cluster: {:?}",
                r.jobs_unschedulable.len(),
                r.jobs_unschedulable
            );
        }
    }
}

/// The workload's first few tenant names, for a message.
fn tenant_names(jobs: &[Job]) -> String {
    let mut names: Vec<&str> = Vec::new();
    for job in jobs {
        if !names.contains(&job.tenant.as_str()) {
            names.push(&job.tenant);
            if names.len() == 8 {
                return format!("{}, ...", names.join(", "));
            }
        }
    }
    names.join(", ")
}

/// `--tenant-weights team-a=2,team-b=1`: each weight a number > 0, each name once.
fn parse_tenant_weights(spec: &str) -> Result<Vec<(String, f64)>, String> {
    let mut out: Vec<(String, f64)> = Vec::new();
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let bad =
            || format!("--tenant-weights '{part}': give NAME=W with W a number > 0, e.g. team-a=2");
        let (name, w) = part.rsplit_once('=').ok_or_else(bad)?;
        let w: f64 = w.trim().parse().map_err(|_| bad())?;
        let name = name.trim();
        if name.is_empty() || !(w.is_finite() && w > 0.0) {
            return Err(bad());
        }
        if out.iter().any(|(n, _)| n == name) {
            return Err(format!("--tenant-weights: '{name}' is given twice"));
        }
        out.push((name.to_string(), w));
    }
    Ok(out)
}

/// A `--from` / `--until` value in seconds, or a message naming the flag.
fn time_flag(flag: &str, value: Option<&str>) -> Result<Option<f64>, String> {
    value
        .map(|text| {
            traces::seconds_of(text)
                .or_else(|| text.trim().parse::<f64>().ok().filter(|t| t.is_finite()))
                .ok_or_else(|| {
                    format!(
                        "{flag}: '{text}' is not a time (YYYY-MM-DD HH:MM:SS, or seconds as the \
                         trace counts them)"
                    )
                })
        })
        .transpose()
}

/// The other PAI table beside `path`, by its published name.
fn pai_companion(path: &std::path::Path) -> PathBuf {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let other = if name.starts_with("pai_task_table") {
        "pai_job_table.csv"
    } else {
        "pai_task_table.csv"
    };
    path.with_file_name(other)
}
