//! The simulation reactor (yew-agent): runs each requested policy in chunks of rounds, sending
//! progress after each chunk and stopping when a `Cancel` arrives between chunks.

use fairground_chart::line::{cdf, downsample};
use fairground_sim::metrics::{GanttBar, GanttJob, MeasuredJct, SimResult, UtilSample};
use fairground_sim::sharing::read_gavel_file;
use fairground_sim::sharing::{GpuMemory, Interference};
use fairground_sim::tenants::{ShareAmong, WithinTenant};
use fairground_sim::throughputs::check_sharing;
use fairground_sim::traces::{TraceFormat, TraceOptions};
use fairground_sim::workload::{
    csv_trace, gavel_trace, synergy, synthetic, SynergyConfig, SyntheticConfig,
};
use fairground_sim::{
    schedulers, Cluster, Job, MixedRate, Profiles, ServerShape, SimConfig, Simulation,
    ThroughputTable,
};
use futures::{FutureExt, SinkExt, StreamExt};
use serde::{Deserialize, Serialize};
use yew_agent::prelude::*;

/// Rounds simulated between two progress messages (and chances to cancel).
const ROUNDS_PER_CHUNK: usize = 50;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Workload {
    Synthetic(SyntheticConfig),
    /// Synergy's generator over the built-in model profiles.
    Synergy(SynergyConfig),
    /// A trace file's name and text, in any format the CLI reads, recognised the same way
    /// (`TraceFormat::recognise`): Gavel's TSV, Fairground's CSV, Helios's or Philly's logs.
    Trace {
        name: String,
        text: String,
        /// A second file, read with the first: PAI's other table.
        second: Option<(String, String)>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimRequest {
    /// e.g. `v100=4,p100=4,k80=4`
    pub cluster: String,
    pub workload: Workload,
    pub policies: Vec<String>,
    /// Round length in seconds (default 360, Gavel's).
    #[serde(default = "default_round_s")]
    pub round_s: f64,
    /// `GPUS,CPUS,MEM_GB` per server (default Synergy's 8,24,500).
    #[serde(default = "default_server_shape")]
    pub server_shape: String,
    /// Steady-state JCT over ids [from, to) (the run stops once they finish).
    pub measure_ids: Option<(usize, usize)>,
    /// `TYPE=GB,...` per GPU (empty: the defaults).
    #[serde(default)]
    pub gpu_memory: String,
    /// How a job on several GPU types runs (`slowest` or `sum`; empty: slowest).
    #[serde(default)]
    pub mixed_rate: String,
    /// HadarE's seconds lost per round to combine copies (None: the engine's default).
    #[serde(default)]
    pub sync_overhead_s: Option<f64>,
    /// Gavel's `simulation_throughputs.json` (as `fairground simulate --throughputs`): measured
    /// rates for every (model, GPU count) and the co-located pairs `gavel-las-packed` shares
    /// GPUs by. None: the built-in table of six models.
    #[serde(default)]
    pub throughputs: Option<NamedText>,
    /// Who an allocation policy shares among: `jobs` (or empty) or `tenants`
    /// (`fairground simulate --share-among`).
    #[serde(default)]
    pub share_among: String,
    /// How a tenant's GPUs reach its jobs: `fairness` (or empty), `fifo` or `equal-time`
    /// (`fairground simulate --within-tenant`). The form always holds one, so policies it
    /// means nothing to ignore it rather than refuse the run.
    #[serde(default)]
    pub within_tenant: String,
    /// The built-in throughput table without a file: `gavel` (or empty) or `todays-gpus`
    /// (`fairground simulate --throughputs NAME`).
    #[serde(default)]
    pub table: String,
}

/// A file's name and text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NamedText {
    pub name: String,
    pub text: String,
}

/// What a request's files and fields come to, checked.
#[derive(Debug)]
pub struct Prepared {
    pub cluster: Cluster,
    pub jobs: Vec<Job>,
    /// What reading a public trace reported (kept and skipped jobs), shown with the results.
    pub notes: Vec<String>,
    /// Co-located pairs measured in the throughputs file (none without one).
    pub interference: Interference,
}

fn default_round_s() -> f64 {
    360.0
}

fn default_server_shape() -> String {
    "8,24,500".into()
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum SimInput {
    Run(Box<SimRequest>),
    Cancel,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum SimOutput {
    Progress {
        policy: usize,
        done: usize,
        total: usize,
    },
    Done(Vec<Result<SimSummary, String>>),
    Failed(String),
    Cancelled,
}

/// What the page shows of one policy's run, summarised in the worker: the table's figures, the
/// notes in words, the charts' points (downsampled) and the Gantt bars. The page never decodes a
/// whole [`SimResult`] (every job, sample and tenant check), which keeps that decoding out of
/// its download.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimSummary {
    pub policy: String,
    pub jobs: usize,
    pub completed: usize,
    pub unschedulable: usize,
    pub avg_jct_s: f64,
    pub median_jct_s: f64,
    pub p99_jct_s: f64,
    pub makespan_s: f64,
    pub avg_rho: f64,
    /// Busy share per GPU type, then of the CPUs and of the memory booked.
    pub utilization: Vec<f64>,
    pub cpu_utilization: f64,
    pub mem_utilization: f64,
    pub measured: Option<MeasuredJct>,
    pub notes: Vec<String>,
    /// JCT CDF (hours, share of jobs); busy share of all GPUs, and of CPUs and memory, over
    /// time (hours).
    pub jct_cdf: Vec<(f64, f64)>,
    pub busy: Vec<(f64, f64)>,
    pub cpu: Vec<(f64, f64)>,
    pub mem: Vec<(f64, f64)>,
    pub gantt: Vec<GanttBar>,
    pub gantt_jobs: Vec<GanttJob>,
}

impl SimSummary {
    /// The summary of `r`, run on `cluster`.
    pub fn of(r: &SimResult, cluster: &Cluster) -> SimSummary {
        let gpus: Vec<f64> = (0..cluster.types.len())
            .map(|j| f64::from(cluster.gpus_of_type(j)))
            .collect();
        let total: f64 = gpus.iter().sum();
        let over_time = |samples: &[UtilSample], value: &dyn Fn(&UtilSample) -> f64| {
            let points: Vec<(f64, f64)> = samples
                .iter()
                .map(|s| ((s.t0 + s.t1) / 7200.0, value(s)))
                .collect();
            downsample(&points, 300)
        };
        let jcts: Vec<f64> = r
            .jobs
            .iter()
            .filter_map(|j| j.jct_s.map(|s| s / 3600.0))
            .collect();
        SimSummary {
            policy: r.policy.clone(),
            jobs: r.jobs.len(),
            completed: r.jobs_completed,
            unschedulable: r.jobs_unschedulable.len(),
            avg_jct_s: r.avg_jct_s,
            median_jct_s: r.median_jct_s,
            p99_jct_s: r.p99_jct_s,
            makespan_s: r.makespan_s,
            avg_rho: r.avg_rho,
            utilization: r.utilization.clone(),
            cpu_utilization: r.cpu_utilization,
            mem_utilization: r.mem_utilization,
            measured: r.measured.clone(),
            notes: notes(r),
            jct_cdf: downsample(&cdf(&jcts), 600),
            busy: over_time(&r.utilization_over_time, &|s| {
                s.busy.iter().zip(&gpus).map(|(b, n)| b * n).sum::<f64>() / total.max(1.0)
            }),
            cpu: over_time(&r.cpu_mem_over_time, &|s| {
                s.busy.first().copied().unwrap_or(0.0)
            }),
            mem: over_time(&r.cpu_mem_over_time, &|s| {
                s.busy.get(1).copied().unwrap_or(0.0)
            }),
            gantt: r.gantt.clone(),
            gantt_jobs: r.gantt_jobs.clone(),
        }
    }
}

/// A run's notes in words: why it stopped early, the scheduler's and the trace reader's own
/// notes, who it shared among, and how the tenants fared when they were the parties.
fn notes(r: &SimResult) -> Vec<String> {
    let mut notes: Vec<String> = Vec::new();
    if r.jobs_unfinished > 0 {
        notes.push(format!(
            "{}: stopped once the measured jobs finished; {} other jobs were still running or \
             waiting (not in the all-jobs figures)",
            r.policy, r.jobs_unfinished
        ));
    }
    notes.extend(r.notes.iter().cloned());
    if !r.parties.is_empty() && r.parties != "jobs" {
        notes.push(format!("{}: shared among {}", r.policy, r.parties));
    }
    if let Some(f) = &r.tenant_fairness {
        let sum = |v: &[usize]| v.iter().sum::<usize>();
        let gain = f.mean_split_gain.iter().copied().fold(0.0, f64::max);
        notes.push(format!(
            "{}: on what tenants received, SI held at {} of {} judged (tenant, recomputation) \
             pairs and EF at {}; by the utility the policy solved with, SI {} and EF {} of {}; \
             the split gained tenants up to {:.1}%",
            r.policy,
            sum(&f.si_held),
            sum(&f.judged),
            sum(&f.ef_held),
            sum(&f.linear_si_held),
            sum(&f.linear_ef_held),
            sum(&f.recomputations),
            100.0 * (gain - 1.0)
        ));
        if let (Some(rule), Some(gap)) = (f.within_tenant, &f.proxy_gap) {
            let least = gap.min.iter().copied().fold(f64::INFINITY, f64::min);
            notes.push(format!(
                "{}: inside each tenant, {}; what tenants' jobs received over the utility the \
                 policy solved with was at least {:.2}, at median (per tenant) {}",
                r.policy,
                rule.describe(),
                least,
                gap.median
                    .iter()
                    .zip(&f.tenants)
                    .map(|(m, t)| format!("{t} {m:.2}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    notes
}

/// The cluster and jobs of a request, with located errors. Rates come from the request's
/// throughputs file or else the built-in cited table; model profiles are the built-in ones.
pub fn prepare(req: &SimRequest) -> Result<Prepared, String> {
    let shape = ServerShape::parse(&req.server_shape).map_err(|e| e.to_string())?;
    let mut cluster = Cluster::parse_shaped(&req.cluster, &shape).map_err(|e| e.to_string())?;
    cluster.gpu_memory_gb = GpuMemory::parse(&req.gpu_memory, &cluster.types)
        .map_err(|e| e.to_string())?
        .0;
    let (table, interference) = match &req.throughputs {
        Some(file) => read_gavel_file(&file.text).map_err(|e| format!("{}: {e}", file.name))?,
        None => {
            let name = if req.table.is_empty() {
                "gavel"
            } else {
                &req.table
            };
            check_sharing(name, &req.policies).map_err(|e| e.to_string())?;
            let table = ThroughputTable::named(name)
                .ok_or_else(|| format!("no built-in throughput table '{name}'"))?;
            (table, Interference::default())
        }
    };
    let profiles = Profiles::builtin();
    let largest = cluster.largest_server();
    let mut notes = Vec::new();
    let jobs = match &req.workload {
        Workload::Synthetic(cfg) => synthetic(cfg, &table, &cluster.types),
        Workload::Synergy(cfg) => synergy(cfg, &profiles, &largest, &cluster.types),
        Workload::Trace { name, text, second } => {
            let format = TraceFormat::recognise(name, text);
            if second.is_some() && format != TraceFormat::Pai {
                return Err(format!(
                    "two files are read together only as PAI's two tables; {name} is read as a \
                     {} trace: upload it alone",
                    format.name()
                ));
            }
            let second = second.as_ref().map(|(n, t)| (n.as_str(), t.as_str()));
            let read = format.read_public(
                (name, text),
                second,
                &table,
                &cluster.types,
                &TraceOptions::default(),
            );
            match read {
                Some(read) => read.map(|read| {
                    notes = read
                        .summary()
                        .into_iter()
                        .map(|line| format!("{name}: {line}"))
                        .collect();
                    read.jobs
                }),
                None if format == TraceFormat::Csv => {
                    csv_trace(text, &table, &cluster.types, Some((&profiles, &largest)))
                }
                None => gavel_trace(text, &table, &cluster.types),
            }
        }
    }
    .map_err(|e| e.to_string())?;
    if jobs.is_empty() {
        return Err("the workload has no jobs".into());
    }
    Ok(Prepared {
        cluster,
        jobs,
        notes,
        interference,
    })
}

#[reactor]
pub async fn SimulateReactor(mut scope: ReactorScope<SimInput, SimOutput>) {
    while let Some(input) = scope.next().await {
        let SimInput::Run(req) = input else { continue };
        let output = match prepare(&req) {
            Err(why) => SimOutput::Failed(why),
            Ok(Prepared {
                cluster,
                jobs,
                notes,
                interference,
            }) => match run(&req, &cluster, &jobs, interference, &mut scope).await {
                Ok(mut results) => {
                    for r in results.iter_mut().flatten() {
                        r.notes.splice(0..0, notes.iter().cloned());
                    }
                    let summaries = results
                        .iter()
                        .map(|r| {
                            r.as_ref()
                                .map(|r| SimSummary::of(r, &cluster))
                                .map_err(Clone::clone)
                        })
                        .collect();
                    SimOutput::Done(summaries)
                }
                Err(other) => other,
            },
        };
        if scope.send(output).await.is_err() {
            return;
        }
    }
}

async fn run(
    req: &SimRequest,
    cluster: &Cluster,
    jobs: &[Job],
    interference: Interference,
    scope: &mut ReactorScope<SimInput, SimOutput>,
) -> Result<Vec<Result<SimResult, String>>, SimOutput> {
    let config = match config(req, interference) {
        Ok(config) => config,
        Err(e) => return Err(SimOutput::Failed(e)),
    };
    let mut results = Vec::new();
    for (k, name) in req.policies.iter().enumerate() {
        let mut scheduler = match schedulers::by_name(name, &config) {
            Ok(s) => s,
            Err(e) => {
                results.push(Err(format!("{name}: {e}")));
                continue;
            }
        };
        let mut sim = match Simulation::new(cluster, jobs, &config, scheduler.as_ref()) {
            Ok(sim) => sim,
            Err(e) => return Err(SimOutput::Failed(e.to_string())),
        };
        let outcome = loop {
            match sim.step(scheduler.as_mut(), ROUNDS_PER_CHUNK) {
                Err(e) => break Err(format!("{name}: {e}")),
                Ok(true) => break Ok(()),
                Ok(false) => {}
            }
            let (done, total) = sim.progress();
            if scope
                .send(SimOutput::Progress {
                    policy: k,
                    done,
                    total,
                })
                .await
                .is_err()
            {
                return Err(SimOutput::Cancelled);
            }
            // Let the worker's message queue run, then look for a Cancel without waiting.
            gloo::timers::future::TimeoutFuture::new(0).await;
            if let Some(Some(SimInput::Cancel)) = scope.next().now_or_never() {
                return Err(SimOutput::Cancelled);
            }
        };
        results.push(outcome.map(|()| {
            let mut result = sim.finish(scheduler.as_ref());
            result.policy = name.clone(); // as the page named it
            result
        }));
    }
    Ok(results)
}

/// The engine's settings for a request.
fn config(req: &SimRequest, interference: Interference) -> Result<SimConfig, String> {
    let mixed_rate = match req.mixed_rate.as_str() {
        "" => MixedRate::default(),
        text => MixedRate::parse(text)?,
    };
    Ok(SimConfig {
        round_s: req.round_s,
        measure_ids: req.measure_ids,
        mixed_rate,
        sync_overhead_s: req
            .sync_overhead_s
            .unwrap_or(fairground_sim::config::DEFAULT_SYNC_OVERHEAD_S),
        interference,
        share_among: match req.share_among.as_str() {
            "" => ShareAmong::Jobs,
            text => ShareAmong::parse(text)?,
        },
        within_tenant: match req.within_tenant.as_str() {
            "" => WithinTenant::default(),
            text => WithinTenant::parse(text)?,
        },
        ..SimConfig::default()
    })
}

/// Runs a whole request at once (the JavaScript module's `simulate`, on the caller's thread;
/// the page's Simulation tab uses the reactor, which reports progress and can be cancelled).
/// One result per policy, as the reactor's `Done`; an error for the request as a whole.
/// A workload of more than `max_jobs` jobs is refused before it runs. Under a time limit
/// ([`fairground_core::deadline`]) a policy whose run it stops, and each after it, is an error
/// saying so, followed by `stop_note`.
pub fn run_to_end(
    req: &SimRequest,
    max_jobs: usize,
    stop_note: &str,
) -> Result<Vec<Result<SimResult, String>>, String> {
    let Prepared {
        cluster,
        jobs,
        notes,
        interference,
    } = prepare(req)?;
    if jobs.len() > max_jobs {
        return Err(format!(
            "the workload has {} jobs, past the {max_jobs} run here: use the playground's \
             Simulation tab or `fairground simulate`",
            jobs.len()
        ));
    }
    let config = config(req, interference)?;
    let mut results = Vec::new();
    for name in &req.policies {
        // Past the limit, a failure is the stop (a policy solve inside a round fails with it).
        let stopped = |e: String| match fairground_core::deadline::check() {
            Err(stop) => format!("{name}: {stop}{stop_note}"),
            Ok(()) => e,
        };
        let outcome = schedulers::by_name(name, &config)
            .map_err(|e| format!("{name}: {e}"))
            .and_then(|mut scheduler| {
                fairground_core::deadline::check().map_err(|_| String::new())?;
                let mut sim = Simulation::new(&cluster, &jobs, &config, scheduler.as_ref())
                    .map_err(|e| format!("{name}: {e}"))?;
                // A round at a time, so that a time limit the caller set (the module's calls)
                // stops the run between rounds.
                while !sim
                    .step(scheduler.as_mut(), 1)
                    .map_err(|e| format!("{name}: {e}"))?
                {
                    fairground_core::deadline::check().map_err(|_| String::new())?;
                }
                let mut result = sim.finish(scheduler.as_ref());
                result.policy = name.clone();
                result.notes.splice(0..0, notes.iter().cloned());
                Ok(result)
            })
            .map_err(stopped);
        results.push(outcome);
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request with the page's defaults for everything but these.
    fn request(cluster: &str, workload: Workload, policy: &str) -> SimRequest {
        SimRequest {
            cluster: cluster.into(),
            workload,
            policies: vec![policy.into()],
            round_s: 360.0,
            server_shape: "8,24,500".into(),
            measure_ids: None,
            gpu_memory: String::new(),
            mixed_rate: String::new(),
            sync_overhead_s: None,
            throughputs: None,
            table: String::new(),
            share_among: String::new(),
            within_tenant: String::new(),
        }
    }

    #[test]
    fn todays_gpus_table_runs_and_refuses_sharing_policies() {
        let workload = || {
            Workload::Synthetic(SyntheticConfig {
                jobs: 20,
                jobs_per_hour: 4.0,
                seed: 1,
                tenants: 3,
                tenant_mix: Default::default(),
            })
        };
        let cluster = "h100=8,a100-80=8,a100-40=8,rtx6000-ada=8,a10=8,v100=8";
        let mut req = request(cluster, workload(), "oef-coop");
        req.table = "todays-gpus".into();
        let Prepared { cluster, jobs, .. } = prepare(&req).unwrap();
        // Every job draws one of Lambda's ten models; the H100's memory is 80 GB by default.
        let models = fairground_core::presets::TODAYS_MODELS.map(|m| m.0);
        assert!(jobs.iter().all(|j| models.contains(&j.job_type.as_str())));
        assert_eq!(cluster.gpu_memory_gb[0], 80.0);
        req.policies = vec!["sjf-ffs".into()];
        let e = prepare(&req).err().unwrap();
        assert!(e.contains("policy 'sjf-ffs' shares GPUs"), "{e}");
        req.table = "nope".into();
        req.policies = vec!["fifo".into()];
        assert_eq!(
            prepare(&req).err().unwrap(),
            "no built-in throughput table 'nope'"
        );
    }

    #[test]
    fn a_summary_carries_what_the_page_draws_of_a_run() {
        let mut req = request(
            "v100=2,k80=2",
            Workload::Synthetic(SyntheticConfig {
                jobs: 12,
                jobs_per_hour: 6.0,
                seed: 3,
                tenants: 2,
                tenant_mix: Default::default(),
            }),
            "oef-coop",
        );
        req.share_among = "tenants".into();
        req.within_tenant = "fifo".into();
        let result = run_to_end(&req, 100, "").unwrap().remove(0).unwrap();
        let cluster = prepare(&req).unwrap().cluster;
        let s = SimSummary::of(&result, &cluster);
        assert_eq!((s.jobs, s.completed), (12, result.jobs_completed));
        // The CDF climbs to every finished job, at the longest JCT (hours).
        let last = *s.jct_cdf.last().unwrap();
        let longest = result
            .jobs
            .iter()
            .filter_map(|j| j.jct_s)
            .fold(0.0, f64::max)
            / 3600.0;
        assert!(
            (last.0 - longest).abs() < 1e-9 && (last.1 - 1.0).abs() < 1e-12,
            "{last:?}"
        );
        // The busy share of all 4 GPUs over time (rounds of equal length, merged in equal
        // groups) averages to the run's utilisation, each type weighted by its 2 GPUs.
        let mean = s.busy.iter().map(|p| p.1).sum::<f64>() / s.busy.len() as f64;
        let expected = (result.utilization[0] + result.utilization[1]) / 2.0;
        assert!((mean - expected).abs() < 0.02, "{mean} against {expected}");
        assert!(s.busy.iter().all(|p| (0.0..=1.0).contains(&p.1)));
        assert!(
            s.notes
                .iter()
                .any(|n| n.starts_with("oef-coop: shared among tenants")),
            "{:?}",
            s.notes
        );
        assert!(s
            .notes
            .iter()
            .any(|n| n.contains("on what tenants received, SI held at")));
        assert!(
            s.notes
                .iter()
                .any(|n| n.starts_with("oef-coop: inside each tenant, fifo: its jobs in arrival")),
            "{:?}",
            s.notes
        );
        assert_eq!(s.gantt.len(), result.gantt.len());
        assert_eq!(s.gantt_jobs.len(), 12);
    }

    #[test]
    fn prepares_synthetic_and_trace_workloads_with_located_errors() {
        let synthetic = request(
            "v100=2,k80=2",
            Workload::Synthetic(SyntheticConfig {
                jobs: 10,
                jobs_per_hour: 4.0,
                seed: 1,
                tenants: 2,
                tenant_mix: Default::default(),
            }),
            "fifo",
        );
        let Prepared { cluster, jobs, .. } = prepare(&synthetic).unwrap();
        assert_eq!((cluster.total_gpus(), jobs.len()), (4, 10));
        let bad = SimRequest {
            workload: Workload::Trace {
                name: "t.csv".into(),
                text: "tenant,job_type,arrival_s,total_steps,scale_factor\na,A3C,0,x,1\n".into(),
                second: None,
            },
            ..synthetic.clone()
        };
        assert_eq!(
            prepare(&bad).unwrap_err(),
            "CSV line 2: 'x' in column 'total_steps' is not a number"
        );
        let helios = SimRequest {
            workload: Workload::Trace {
                name: "cluster_log.csv".into(),
                text: "job_id,user,vc,gpu_num,state,submit_time,duration\n\
                       1,u1,vc1,1,COMPLETED,2020-06-09 18:41:01,100\n\
                       2,u2,vc1,0,COMPLETED,2020-06-09 18:42:01,100\n"
                    .into(),
                second: None,
            },
            ..synthetic.clone()
        };
        let Prepared { jobs, notes, .. } = prepare(&helios).unwrap();
        assert_eq!(jobs.len(), 1);
        assert_eq!(
            notes,
            [
                "cluster_log.csv: 2 job lines: 1 kept (1 COMPLETED)",
                "cluster_log.csv: 1 skipped: no GPUs (a CPU job)"
            ]
        );
        let bad_cluster = SimRequest {
            cluster: "v100".into(),
            ..synthetic
        };
        assert!(prepare(&bad_cluster).unwrap_err().contains("TYPE=GPUS"));
    }

    #[test]
    fn prepares_synergy_workloads_and_refuses_bad_shapes() {
        let req = SimRequest {
            cluster: "gpu=16".into(),
            workload: Workload::Synergy(SynergyConfig {
                jobs: 50,
                ..SynergyConfig::default()
            }),
            policies: vec!["synergy-tune".into()],
            round_s: 300.0,
            server_shape: "8,24,500".into(),
            measure_ids: Some((10, 20)),
            gpu_memory: "gpu=40".into(),
            mixed_rate: "sum".into(),
            sync_overhead_s: Some(5.0),
            throughputs: None,
            table: String::new(),
            share_among: String::new(),
            within_tenant: String::new(),
        };
        let Prepared { cluster, jobs, .. } = prepare(&req).unwrap();
        assert_eq!((cluster.servers.len(), jobs.len()), (2, 50));
        assert!(jobs.iter().all(|j| j.resources.is_some()));
        let bad = SimRequest {
            server_shape: "8,0,500".into(),
            ..req.clone()
        };
        assert!(prepare(&bad).unwrap_err().contains("CPUs must be > 0"));
        let csv = SimRequest {
            workload: Workload::Trace {
                name: "t.csv".into(),
                text: "tenant,job_type,arrival_s,total_steps,scale_factor\na,vgg,0,10,1\n".into(),
                second: None,
            },
            ..req
        };
        let err = prepare(&csv).unwrap_err();
        assert!(err.contains("and no model profile of that name"), "{err}");
    }

    /// Gavel's measured file, as a page uploads it: the jobs get its rates (ResNet-50 on one
    /// V100 runs at the file's "null" figure, not the built-in table's), its co-located pairs
    /// reach the engine (gavel-las-packed shares GPUs, and says so in its notes), and a broken
    /// file is refused with its name in the message.
    #[test]
    fn a_throughputs_file_gives_measured_rates_and_space_sharing() {
        let path = format!(
            "{}/data/gavel/simulation_throughputs.json",
            fairground_core::shared_data_dir()
        );
        let text = std::fs::read_to_string(&path)
            .expect("Gavel's throughputs: run `cargo xtask data` (docs/development.md)");
        let file: serde_json::Value = serde_json::from_str(&text).unwrap();
        let req = SimRequest {
            throughputs: Some(NamedText {
                name: "simulation_throughputs.json".into(),
                text,
            }),
            ..request(
                "v100=2,p100=2,k80=2",
                Workload::Trace {
                    name: "two.trace".into(),
                    // Gavel's columns: model, command, working directory, steps argument, needs
                    // data, total steps, scale factor, priority, SLO, arrival.
                    text: "ResNet-50 (batch size 64)\tpython3 main.py\timagenet\t-n\t1\t2000\t1\t1\t-1\t0\n"
                        .into(),
                    second: None,
                },
                "gavel-las-packed",
            )
        };
        let prepared = prepare(&req).unwrap();
        let v100 = prepared
            .cluster
            .types
            .iter()
            .position(|t| t == "v100")
            .unwrap();
        let measured = file["v100"]["('ResNet-50 (batch size 64)', 1)"]["null"]
            .as_f64()
            .unwrap();
        assert_eq!(prepared.jobs[0].rate[v100], measured);
        assert!(prepared.interference.pairs() > 1000);

        // Gavel's synthetic generator over the file: twelve single-GPU-heavy jobs on two GPUs
        // of each type, so pairs are worth sharing.
        let synthetic = SimRequest {
            workload: Workload::Synthetic(SyntheticConfig {
                jobs: 12,
                jobs_per_hour: 60.0,
                seed: 3,
                tenants: 2,
                tenant_mix: Default::default(),
            }),
            ..req.clone()
        };
        let results = run_to_end(&synthetic, 100, "").unwrap();
        let result = results[0].as_ref().unwrap();
        let note = result
            .notes
            .iter()
            .find(|n| n.starts_with("space sharing:"))
            .expect("a space-sharing note");
        let shared: usize = note["space sharing: ".len()..]
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(shared > 0, "{note}");
        // Without the file no pair is measured: nothing shares, and the notes say why.
        let without = SimRequest {
            throughputs: None,
            table: String::new(),
            ..synthetic
        };
        let result = run_to_end(&without, 100, "").unwrap().remove(0).unwrap();
        assert!(result
            .notes
            .iter()
            .any(|n| n.starts_with("space sharing: 0 of ")));
        assert!(result
            .notes
            .iter()
            .any(|n| n.starts_with("no co-located throughputs were loaded")));

        let broken = SimRequest {
            throughputs: Some(NamedText {
                name: "mine.json".into(),
                text: "{\"v100\": 3}".into(),
            }),
            ..req
        };
        let err = prepare(&broken).err().unwrap();
        assert!(
            err.starts_with("mine.json: ") && err.contains("'v100' is not an object"),
            "{err}"
        );
    }
}
