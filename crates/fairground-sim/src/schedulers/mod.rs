//! Schedulers: at each round start, decide which active jobs run where. One file each.
//!
//! The interface is shaped for what later schedulers need:
//! - a [`Placement`] has several [`Piece`]s, each on one server, so a job can run on several GPU
//!   types at once (Hadar's task-level placement) and as several copies (`copy`, HadarE);
//! - it states CPU cores and memory (Synergy), checked per server by the engine;
//! - [`Sharing`] declares two jobs on the same GPUs with a slowdown (SJF-BSBF); the engine
//!   allows at most two jobs on a GPU, and only when both declare sharing.
//!
//! The engine turns a placement into a rate: for each copy, the sum over its pieces of
//! `rate[type] x gpus / scale_factor` (a whole single-type placement is exactly the measured
//! rate), copies add up, and a shared placement is divided by its slowdown.

mod fifo;
mod gavel_rounds;
pub mod hadar;
mod las;
mod sjf_share;
mod srtf;
pub mod synergy;
mod tiresias;

pub use fifo::Fifo;
pub use gavel_rounds::{GavelPacked, GavelRounds};
pub use hadar::Hadar;
pub use las::Las;
pub use sjf_share::{pair_times, Rule as ShareRule, SjfShare};
pub use srtf::Srtf;
pub use synergy::Synergy;
pub use tiresias::Tiresias;

use crate::model::{Cluster, Job, SimError};
use crate::pool::GpuPool;
pub use crate::pool::Piece;
use fairground_core::policies::{InRounds, Registry, EVERY_POLICY};
use serde::{Deserialize, Serialize};

/// Two jobs on the same GPUs (at most two per GPU, within the GPU's memory), each slowed down by
/// `slowdown` >= 1; a job may run `accumulation` sub-batches per step (gradient accumulation, see
/// [`crate::sharing::Accumulation`]) to fit, which changes its memory and its step time.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Sharing {
    pub slowdown: f64,
    #[serde(default = "one")]
    pub accumulation: u32,
    /// The two jobs' co-located throughputs were measured on this GPU type (Gavel's pairs), so
    /// they ran together and fit: when both jobs on a GPU say so, the engine does not check
    /// their memory footprints (estimates, for Gavel's models) against the GPU's.
    #[serde(default)]
    pub measured_together: bool,
}

fn one() -> u32 {
    1
}

/// Where one job runs for one round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Placement {
    /// Index into the simulation's job list.
    pub job: usize,
    pub pieces: Vec<Piece>,
    /// CPU cores and memory (GB) held on each server it uses, per GPU (0: none accounted).
    pub cpus_per_gpu: f64,
    pub mem_gb_per_gpu: f64,
    pub sharing: Option<Sharing>,
}

impl Placement {
    /// A plain exclusive placement with no CPU/memory accounting.
    pub fn exclusive(job: usize, pieces: Vec<Piece>) -> Placement {
        Placement {
            job,
            pieces,
            cpus_per_gpu: 0.0,
            mem_gb_per_gpu: 0.0,
            sharing: None,
        }
    }
}

/// What the engine knows of an active job (arrived, unfinished).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JobState {
    pub job: usize,
    pub remaining_steps: f64,
    /// GPU-seconds received so far (Gavel's and Tiresias' attained service).
    pub attained_gpu_s: f64,
}

/// Time one job spent on one GPU type in the previous round.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ran {
    pub job: usize,
    pub gpu_type: usize,
    /// From the round's start to when the job stopped (its finish or the round's end).
    pub seconds: f64,
    /// The job finished in that round (it is no longer active).
    pub finished: bool,
}

/// Everything a scheduler may look at when a round starts.
pub struct RoundView<'a> {
    pub now: f64,
    pub round_s: f64,
    pub cluster: &'a Cluster,
    pub jobs: &'a [Job],
    /// Active jobs, in arrival order.
    pub active: &'a [JobState],
    /// What ran in the previous round that had placements, including jobs that finished in it
    /// (Gavel's mechanism counts their time).
    pub last_round: &'a [Ran],
    /// How the engine rates a job on several GPU types at once.
    pub mixed_rate: crate::mixed::MixedRate,
}

pub trait Scheduler {
    fn name(&self) -> String;
    /// The placements for the round starting at `view.now`.
    fn schedule(&mut self, view: &RoundView) -> Result<Vec<Placement>, SimError>;
    /// What the run's result should say about how the scheduler fared (e.g. Synergy-OPT's
    /// deployable rounds).
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
    /// Who this scheduler shares the cluster among, given what the run asked for
    /// ([`crate::config::SimConfig::share_among`]). By default a scheduler orders or places
    /// jobs, with no notion of parties, and says so when tenants were asked for.
    fn parties(&self, asked: crate::tenants::ShareAmong) -> String {
        match asked {
            crate::tenants::ShareAmong::Jobs => "jobs".into(),
            crate::tenants::ShareAmong::Tenants => format!(
                "jobs: {} orders and places jobs and has no parties' shares, so --share-among \
                 tenants does not apply",
                self.name()
            ),
        }
    }
    /// Whether it gives tenants shares that reach their jobs by a rule inside tenants
    /// (`--within-tenant`): only Gavel's round mechanism over an allocation policy does.
    fn has_tenant_shares(&self) -> bool {
        false
    }
    /// With tenants as parties, what they actually received (see [`crate::tenants`]).
    fn tenant_fairness(&self) -> Option<crate::tenants::TenantFairness> {
        None
    }
    /// Whether `job` can ever run on `cluster` under this scheduler (a job that cannot is
    /// reported unschedulable, not waited for). By default: on one GPU type with enough GPUs.
    fn can_run(&self, job: &Job, cluster: &Cluster, _rule: crate::mixed::MixedRate) -> bool {
        job.best_rate(cluster) > 0.0
    }
}

/// Places each job in `order` on the fastest GPU type that still has `scale_factor` free GPUs
/// (Gavel's fifo_perf rule); a job that fits nowhere waits this round.
pub fn greedy_fastest(view: &RoundView, order: impl IntoIterator<Item = usize>) -> Vec<Placement> {
    let mut pool = GpuPool::new(view.cluster);
    let mut placements = Vec::new();
    for k in order {
        if pool.is_empty() {
            break;
        }
        let state = &view.active[k];
        let job = &view.jobs[state.job];
        // Most waiting jobs fit nowhere once the round fills up: turned away at once.
        if (0..view.cluster.types.len()).all(|j| pool.free_on_type(j) < job.scale_factor) {
            continue;
        }
        // The types it can run on, fastest first (then by index), tried without allocating:
        // most rounds try thousands of jobs.
        let usable = |j: usize| job.rate[j] > 0.0 && job.fits_alone(view.cluster, j);
        let mut last: Option<usize> = None;
        let faster =
            |a: usize, b: usize| job.rate[a] > job.rate[b] || (job.rate[a] == job.rate[b] && a < b);
        let after = |j: usize, last: Option<usize>| last.is_none_or(|l| faster(l, j));
        loop {
            let next = (0..view.cluster.types.len())
                .filter(|&j| usable(j) && after(j, last))
                .reduce(|a, b| if faster(b, a) { b } else { a });
            let Some(j) = next else { break };
            if let Some(pieces) = pool.take(j, job.scale_factor) {
                placements.push(Placement::exclusive(state.job, pieces));
                break;
            }
            last = Some(j);
        }
    }
    placements
}

/// Policy names `simulate` accepts: the ordering schedulers, the sharing ones, Hadar and HadarE, Synergy's mechanisms (each
/// also as `synergy-MECHANISM:ORDER`, see [`synergy`]) and every allocation policy of the engine
/// driving Gavel's round mechanism.
pub fn names() -> Vec<String> {
    names_in(EVERY_POLICY)
}

/// [`names`] with the allocation policies of `registry`.
pub fn names_in(registry: Registry) -> Vec<String> {
    let mut names: Vec<String> = [
        "fifo",
        "srtf",
        "las",
        "tiresias",
        "tiresias-2q",
        "sjf-bsbf",
        "sjf-ffs",
        "hadar",
        "hadare",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for mech in synergy::MECHANISMS {
        names.push(format!("synergy-{mech}"));
    }
    names.extend(registry.names().into_iter().map(str::to_string));
    names
}

/// The scheduler for a policy name (see [`names`]).
pub fn by_name(
    name: &str,
    config: &crate::config::SimConfig,
) -> Result<Box<dyn Scheduler + Send>, SimError> {
    by_name_in(name, config, EVERY_POLICY)
}

/// [`by_name`] with the allocation policies of `registry`, each run as it declares
/// ([`fairground_core::policies::PolicyInfo::rounds`]).
pub fn by_name_in(
    name: &str,
    config: &crate::config::SimConfig,
    registry: Registry,
) -> Result<Box<dyn Scheduler + Send>, SimError> {
    let scheduler = scheduler_named(name, config, registry)?;
    if config.within_tenant_asked && !scheduler.has_tenant_shares() {
        return Err(SimError::Input(format!(
            "--within-tenant {}: {name} orders and places jobs and has no tenant's share to \
             split among its jobs",
            config.within_tenant.name()
        )));
    }
    Ok(scheduler)
}

fn scheduler_named(
    name: &str,
    config: &crate::config::SimConfig,
    registry: Registry,
) -> Result<Box<dyn Scheduler + Send>, SimError> {
    Ok(match name {
        "fifo" => Box::new(Fifo),
        "srtf" => Box::new(Srtf),
        "las" => Box::new(Las),
        "tiresias" => Box::new(Tiresias::new()),
        "tiresias-2q" => Box::new(Tiresias::two_queue()),
        "sjf-bsbf" => Box::new(SjfShare::new(ShareRule::Bsbf, config.interference.clone())),
        "sjf-ffs" => Box::new(SjfShare::new(ShareRule::Ffs, config.interference.clone())),
        other => match (
            Synergy::parse(other),
            Hadar::parse(other, config.sync_overhead_s),
        ) {
            (Some(synergy), _) => Box::new(synergy?),
            (None, Some(hadar)) => Box::new(hadar),
            (None, None) => match registry.by_name(other) {
                // Its shares are per pair of jobs on a GPU: a scheduler of its own.
                Some(p) if p.info().rounds == InRounds::Packed => Box::new(GavelPacked::new(
                    config.reallocation_interval_s,
                    config.interference.clone(),
                )),
                Some(policy) => Box::new(
                    GavelRounds::for_policy(policy, config.reallocation_interval_s)?
                        .sharing_among(config.share_among, config.tenant_weights.clone())
                        .within_tenant(config.within_tenant, config.within_tenant_asked)?,
                ),
                None => {
                    return Err(SimError::Input(format!(
                        "unknown policy '{other}' (policies: {})",
                        names_in(registry).join(", ")
                    )))
                }
            },
        },
    })
}
