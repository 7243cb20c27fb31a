//! A run's settings, below the engine and the schedulers: both read them (a scheduler is made
//! for a run's settings, `schedulers::by_name`), so neither imports the other for them.

use crate::mixed::MixedRate;

#[derive(Debug, Clone, PartialEq)]
pub struct SimConfig {
    /// Round length (Gavel: 360 s).
    pub round_s: f64,
    /// Progress lost when a job starts on GPUs other than those it last ran on (0: none, as
    /// Gavel's simulator).
    pub restart_overhead_s: f64,
    /// Least simulated time between two recomputations of an allocation policy (Gavel: 1,920 s).
    pub reallocation_interval_s: f64,
    /// Record per-GPU bars for a Gantt chart when the trace has at most this many jobs.
    pub gantt_max_jobs: usize,
    /// Rounds in a row in which no job runs although some are waiting, before giving up.
    pub max_idle_rounds: usize,
    /// Report JCT over the jobs with ids in [from, to) and stop once they have all finished
    /// (Synergy's steady-state measurement: jobs 4000-4999, arrivals going on meanwhile).
    pub measure_ids: Option<(usize, usize)>,
    /// Measured slowdowns of co-located pairs (GPU-sharing schedulers); empty: every pair at
    /// [`crate::sharing::FALLBACK_SLOWDOWN`].
    pub interference: crate::sharing::Interference,
    /// How fast a job runs on several GPU types at once (see [`crate::mixed`]).
    pub mixed_rate: MixedRate,
    /// Seconds of progress a forked job (HadarE) loses each round in which it runs as two or
    /// more copies: the copies stop to combine their models once per round.
    pub sync_overhead_s: f64,
    /// Who an allocation policy shares among: each job (Gavel's formulation) or each tenant
    /// (OEF's), see [`crate::tenants`].
    pub share_among: crate::tenants::ShareAmong,
    /// How a tenant's GPUs reach its jobs under every tenant-level policy (`--within-tenant`).
    pub within_tenant: crate::tenants::WithinTenant,
    /// Whether the user named the rule (the CLI's flag), so that a policy it means nothing to
    /// (one that shares among jobs) is refused rather than silently run without it. The page's
    /// form always holds a rule and leaves this false: policies it does not apply to ignore it.
    pub within_tenant_asked: bool,
    /// Tenants' weights by name (with `share_among` tenants, and gavel-hierarchical's); a tenant
    /// not named has weight 1.
    pub tenant_weights: std::collections::BTreeMap<String, f64>,
    /// Most jobs a workload may have ([`crate::limits::DEFAULT_MAX_JOBS`] unless raised).
    pub max_jobs: usize,
}

/// Default [`SimConfig::sync_overhead_s`]: averaging a model of Gavel's zoo (up to ~0.5 GB of
/// parameters) across servers over 10 Gb/s takes about a second; checkpointing, shipping and
/// reloading it on each copy a few more. 10 s is 2.8% of a 360 s round.
pub const DEFAULT_SYNC_OVERHEAD_S: f64 = 10.0;

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            round_s: 360.0,
            restart_overhead_s: 0.0,
            reallocation_interval_s: 1920.0,
            gantt_max_jobs: 60,
            max_idle_rounds: 10_000,
            measure_ids: None,
            interference: crate::sharing::Interference::default(),
            mixed_rate: MixedRate::default(),
            sync_overhead_s: DEFAULT_SYNC_OVERHEAD_S,
            share_among: crate::tenants::ShareAmong::Jobs,
            within_tenant: crate::tenants::WithinTenant::Fairness,
            within_tenant_asked: false,
            tenant_weights: std::collections::BTreeMap::new(),
            max_jobs: crate::limits::DEFAULT_MAX_JOBS,
        }
    }
}
