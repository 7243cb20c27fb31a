//! Gavel's round mechanism over an allocation policy of the engine: who the parties are, when the
//! allocation is recomputed, and how its shares become each round's placements (priorities,
//! the types' lists, the walk order), all as the policy's `PolicyInfo::rounds` declares. Depends
//! on fairground-core's policies and on the simulator's model, tenants and pool.

mod book;
mod lists;
mod packed;
mod shares;

pub use packed::GavelPacked;

use super::{Placement, RoundView, Scheduler};
use crate::error::SimError;
use crate::model::{Cluster, Job};
use crate::pool::GpuPool;
use crate::tenants::{speedups, InnerRule, ShareAmong, TenantFairness, TenantJobs, WithinTenant};
use fairground_core::order::{sort_indices_by, sort_stably_by};
use fairground_core::policies::{
    Grouping, InRounds, IncrementalLas, JobGrouping, PartyRule, RoundAnswer, Rounds, Walk,
};
use fairground_core::{policies, Entity, GpuType, Normalization, Policy, Scenario, Tenant, Within};
use std::collections::BTreeMap;

/// Gavel's round mechanism driven by any allocation policy of the engine, as Gavel's
/// simulator runs it (`scheduler.py`, read for this port; differences are listed below).
///
/// The policy computes x_ij, the fraction of time job i should run on type j. x is recomputed
/// when the set of active jobs has changed and `reallocation_interval_s` (Gavel: 1,920 s) have
/// passed since the last recomputation (or none has happened at a time > 0); a job that
/// arrives meanwhile has no allocation until then. Each round:
/// - priorities and deficits come from [`book::Book`] (Gavel's time-since-reset bookkeeping);
/// - each GPU type in the cluster's order (Gavel: v100, p100, k80) lists every active job by
///   (priority, deficit, x_ij), highest first, ties in arrival order; the lists are walked in
///   turn and a job is picked for a type if it has not been picked yet, can run there and its
///   `scale_factor` fits in the type's GPUs not yet picked;
/// - the picked jobs are placed per type, largest first, packed onto as few servers as
///   possible. As in Gavel, a job picked while it has no allocation (it arrived after the last
///   recomputation, so its priority is 0) holds its GPUs' place but is not run.
///
/// When a round would run nothing and no job is left to arrive, the allocation is recomputed
/// at once, as Gavel's simulator does.
///
/// Left out of the port: Gavel runs a whole number of steps per round (so its rounds end a
/// little before 360 s) and keeps a job on its previous GPUs when they are free; here progress
/// is exact and GPUs are packed afresh (the restart overhead is 0 by default, as in Gavel).
/// When a round runs nothing while jobs are still to arrive, Gavel's simulator jumps to the
/// next arrival; the engine here goes on round by round, so a waiting job gets its allocation
/// as soon as the interval allows rather than at the next arrival.
///
/// Job-level policies (Gavel's) see each job as a tenant with `max_gpus` = scale factor and
/// per-GPU throughput rate/scale_factor, so g_ij = s_i x_ij is exactly Gavel's formulation —
/// except that a type with fewer GPUs than the job's scale factor shows throughput 0 for it
/// (time there could never be given in a round; left in, it stalls the job).
/// With tenants as parties (`--share-among tenants`, and gandiva-fair always), each tenant is
/// one party: its utility is the proxy of the rule inside tenants (`--within-tenant`,
/// [`crate::tenants`]'s `within` module: a mean of its active jobs' speedups), its cap the sum of
/// their scale factors; its allocation g_t reaches its jobs by that rule. gavel-hierarchical
/// solves tenants and their jobs in one program (the tenants are its entities) and takes the
/// rule as its entities' `within` (fairness or fifo).
///
/// For speed, policies whose objective is symmetric in identical jobs (LAS, water
/// filling, equal share) solve one party per job class — same model, scale factor and
/// rates — with weight m and cap m s for its m jobs: averaging an optimal solution over the
/// class's jobs keeps it feasible and optimal, so the optimum is the same while the LP has
/// classes, not jobs, as rows. FTF and the isolated share depend on the job count and stay
/// per job; so do max-sum and agnostic max-min, whose interior-point answers (Gavel's kind)
/// come from the per-job program's central path, which core follows over classes of twin jobs
/// itself ([`policies::interior_max_sum`], [`policies::interior_agnostic`]).
///
/// For `gavel-las`, the class LP is built once over every class in the workload and re-solved
/// warm as the classes' job counts change ([`IncrementalLas`], which adds cap rows as they
/// bind); when it runs out of cap rows, or the workload has more than [`MAX_WARM_CLASSES`]
/// classes, the LP is solved afresh as for the other policies. Both give LAS's optimum, though
/// where the optimum is not unique they may pick different optimal allocations.
pub struct GavelRounds {
    policy: &'static dyn Policy,
    /// What the policy declares about its rounds.
    rounds: Rounds,
    parties: Parties,
    interval: f64,
    /// The active jobs (in arrival order) the allocation was computed for.
    allocated_for: Vec<usize>,
    /// x per job over cluster types; none for jobs without an allocation.
    shares: shares::Shares,
    book: Option<book::Book>,
    /// The types' lists, kept between rounds ([`lists`]).
    lists: Option<lists::Lists>,
    /// Jobs arrived or left since the allocation was computed.
    active_changed: bool,
    /// Scratch: the jobs that arrived since the last round.
    arrived: Vec<usize>,
    /// Lists every type the full way too, and fails the round if the kept lists pick
    /// differently. For tests.
    check_lists: bool,
    /// Types walked from the kept lists, and listed the full way.
    walks: (usize, usize),
    /// The latest arrival in the workload.
    last_arrival: f64,
    /// Scratch reused every round: whether a job was picked.
    picked: Vec<bool>,
    warm: Warm,
    warm_answers: usize,
    fresh_check: bool,
    /// Every recomputation's program and the policy's answer to it, when asked (for tests that
    /// check the answers against another solve; native builds only, the browser's carry none).
    #[cfg(not(target_arch = "wasm32"))]
    answer_log: Option<Vec<(fairground_core::Instance, policies::Solution)>>,
    /// For heterogeneity-agnostic policies: shuffles the order the types' lists are walked
    /// in, every round (see [`agnostic_walk`]).
    shuffler: Option<crate::python_random::PythonRandom>,
    /// gavel-ftf's history per job: time it would have run so far under its isolated share,
    /// and the steps left and isolated throughput at the last recomputation.
    ftf: Vec<Option<FtfSeen>>,
    /// oef-coop's EF rows from the last recomputation, by tenant: the next round's program
    /// differs by the jobs that came or went, and starts from them (core's `RowMemory`; the
    /// same optimum, 3x faster over 60 tenants, BENCHMARKS.md). None: every round afresh, and
    /// for every other policy.
    ef_rows: Option<policies::RowMemory>,
    /// Who the policy shares among, as asked (`--share-among`); `parties` is what it honours.
    share_among: ShareAmong,
    /// Tenants' weights by name (1 for a tenant not named).
    tenant_weights: BTreeMap<String, f64>,
    /// With tenants as parties: what they actually received, recorded at every recomputation
    /// (judged on the realised utility at 8 per doubling, [`crate::tenants::judged_at`]).
    tenant_fairness: Option<TenantFairness>,
    /// Recomputations with tenants as parties so far.
    recomputations: usize,
    /// Each tenant's last split, with the jobs and bundle it was for.
    last_splits: BTreeMap<String, (TenantJobs, Vec<f64>, crate::tenants::Split)>,
    /// How a tenant's GPUs reach its jobs, with tenants as parties and for gavel-hierarchical.
    within: WithinTenant,
    /// For tests: another scheduler solved on the same active jobs at every recomputation,
    /// whose jobs' normalised levels must equal this one's to the tolerance ([`LevelCheck`]).
    level_check: Option<Box<LevelCheck>>,
}

/// [`GavelRounds::with_level_check`]'s reference, its tolerance and how many recomputations
/// it has checked.
struct LevelCheck {
    reference: GavelRounds,
    tolerance: f64,
    checked: usize,
}

#[derive(Debug, Clone, Copy)]
struct FtfSeen {
    isolated_s: f64,
    remaining: f64,
    iso: f64,
}

/// Gavel's simulator walks the types' lists in the fixed order v100, p100, k80 only for
/// policies whose name has "Perf" or "Packing" (the heterogeneity-aware ones); for the others
/// (its agnostic max-min, FIFO, FTF and the isolated share) it shuffles that order every round
/// with a seeded generator (`scheduler.py`, `_schedule_jobs_on_workers`), so an agnostic
/// policy's jobs land on slow and fast types alike. The engine's counterparts of those are
/// `gavel-las-agnostic` and `isolated`; their walk order is shuffled the same way, by the same
/// generator: Python's Mersenne Twister seeded with 5, which is Gavel's `seed + 5` for the
/// seed 0 its runs here used. Gavel shuffles the list [v100, p100, k80]; so does this, taking
/// the cluster's types in that order (others after them, by name), so on Gavel's cluster the
/// sequence of walk orders is Gavel's, round for round, as long as both draw in the same rounds
/// (Gavel draws once per round it schedules; so does this, and not in rounds with no job).
pub fn agnostic_walk(rounds: &Rounds) -> bool {
    rounds.walk == Walk::Shuffled
}

/// x_ij rounded to a multiple of 2^-40 (about 1e-12). A job's x comes from its party's GPUs
/// divided by the party's size, so jobs the policy treats alike (a class's jobs; jobs at the
/// same cap) can differ in the last bits, and Gavel's lists compare priorities exactly: left
/// alone, that noise and not arrival order would break their ties.
fn snap(x: f64) -> f64 {
    const GRID: f64 = (1u64 << 40) as f64;
    (x * GRID).round() / GRID
}

/// The seed of the agnostic walk order's generator (Gavel seeds its own with seed + 5).
const WALK_SEED: u64 = 5;

/// The order Gavel's simulator lists types in before shuffling: v100, p100, k80, then any
/// other type of the cluster by name.
fn gavel_type_order(cluster: &Cluster) -> Vec<usize> {
    let rank = |name: &str| match name {
        "v100" => 0,
        "p100" => 1,
        "k80" => 2,
        _ => 3,
    };
    let mut order: Vec<usize> = (0..cluster.types.len()).collect();
    sort_indices_by(&mut order, &|a, b| {
        let (a, b) = (&cluster.types[a], &cluster.types[b]);
        rank(a).cmp(&rank(b)).then(a.cmp(b))
    });
    order
}

/// The warm LAS path's state: not tried yet, running, or not available for this workload.
enum Warm {
    Untried,
    Ready(Box<WarmLas>),
    Off,
}

struct WarmLas {
    las: IncrementalLas,
    /// GPUs per job of each class.
    job_gpus: Vec<f64>,
    /// class[job]: the job's class, or [`NO_CLASS`] for a job that can run nowhere (u32, not
    /// `Option<usize>`: every reset reads it for every active job, a quarter of the bytes).
    class: Vec<u32>,
}

/// [`WarmLas::class`] of a job that can run nowhere.
const NO_CLASS: u32 = u32::MAX;

/// More classes than this and the kept LP would be larger than the fresh ones it replaces.
pub const MAX_WARM_CLASSES: usize = 256;

/// A job's throughput per GPU of each type, 0 on types with fewer GPUs than it needs: those can
/// never host it in a round, so a policy must not give it time there.
fn per_gpu_rates(cluster: &Cluster, job: &Job) -> Vec<f64> {
    (0..cluster.types.len())
        .map(|j| {
            if cluster.gpus_of_type(j) >= job.scale_factor {
                job.rate[j] / f64::from(job.scale_factor)
            } else {
                0.0
            }
        })
        .collect()
}

/// LAS's objective for per-job x: min over active jobs of their [`normalised_level`].
fn lowest_normalised_throughput(view: &RoundView, x: &shares::Shares) -> f64 {
    view.active
        .iter()
        .map(|s| normalised_level(view, s.job, x.of(s.job)))
        .fold(f64::INFINITY, f64::min)
}

/// Job i's normalised level under x_i: sum_j T_ij s_i x_ij / prop_i, with T per GPU as the
/// policies see it (types too small for the job masked) and prop_i = sum_j T_ij n_j / N.
fn normalised_level(view: &RoundView, i: usize, x: &[f64]) -> f64 {
    let cluster = view.cluster;
    let gpus: Vec<f64> = (0..cluster.types.len())
        .map(|j| f64::from(cluster.gpus_of_type(j)))
        .collect();
    let total: f64 = gpus.iter().sum();
    let job = &view.jobs[i];
    let rates = per_gpu_rates(cluster, job);
    let prop = rates.iter().zip(&gpus).map(|(r, n)| r * n).sum::<f64>() / total;
    let sf = f64::from(job.scale_factor);
    let got: f64 = x.iter().zip(&rates).map(|(x, r)| x * r * sf).sum();
    got / prop
}

/// The engine's instance of `tenants` (and `entities`) on the cluster's GPU types; a scenario
/// the engine refuses becomes [`SimError::Policy`] with its located messages.
fn instance_over(
    cluster: &Cluster,
    tenants: Vec<Tenant>,
    entities: Vec<Entity>,
    normalization: Normalization,
) -> Result<fairground_core::Instance, SimError> {
    let gpu_types: Vec<GpuType> = cluster
        .types
        .iter()
        .enumerate()
        .map(|(j, name)| GpuType {
            name: name.clone(),
            count: cluster.gpus_of_type(j),
        })
        .collect();
    let scenario = Scenario {
        version: 1,
        gpu_types,
        tenants,
        normalization,
        entities,
        co_located: Vec::new(),
    };
    scenario.instance().map_err(|problems| {
        SimError::Policy(
            problems
                .iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .join("; "),
        )
    })
}

/// Jobs of one model and scale factor with the same rates: identical for every policy.
fn class_key(job: &Job) -> (String, u32, Vec<u64>) {
    (
        job.job_type.clone(),
        job.scale_factor,
        job.rate.iter().map(|r| r.to_bits()).collect(),
    )
}

impl WarmLas {
    /// One class per distinct key among the jobs that can run; None past the size limit.
    fn build(cluster: &Cluster, jobs: &[Job]) -> Option<WarmLas> {
        let mut index: BTreeMap<(String, u32, Vec<u64>), usize> = BTreeMap::new();
        let mut throughput = Vec::new();
        let mut job_gpus = Vec::new();
        let mut class = Vec::with_capacity(jobs.len());
        for job in jobs {
            if job.best_rate(cluster) <= 0.0 {
                class.push(NO_CLASS);
                continue;
            }
            let next = index.len();
            let c = *index.entry(class_key(job)).or_insert(next);
            if c == next {
                throughput.push(per_gpu_rates(cluster, job));
                job_gpus.push(f64::from(job.scale_factor));
            }
            class.push(c as u32); // at most MAX_WARM_CLASSES + 1
            if index.len() > MAX_WARM_CLASSES {
                return None;
            }
        }
        let count: Vec<f64> = (0..cluster.types.len())
            .map(|j| f64::from(cluster.gpus_of_type(j)))
            .collect();
        let las = IncrementalLas::new(&throughput, &job_gpus, &count).ok()?;
        Some(WarmLas {
            las,
            job_gpus,
            class,
        })
    }

    /// Writes x for every active job (one row per class with members), or returns false
    /// when the full model must decide.
    fn allocate(&mut self, view: &RoundView, x: &mut shares::Shares) -> bool {
        let mut members = vec![0usize; self.las.classes()];
        for s in view.active {
            match self.class[s.job] {
                NO_CLASS => return false,
                c => members[c as usize] += 1,
            }
        }
        let Ok(Some(shares)) = self.las.solve(&members) else {
            return false;
        };
        let mut row_of_class = vec![usize::MAX; members.len()];
        for s in view.active {
            let c = self.class[s.job] as usize; // not NO_CLASS: counted above
            if row_of_class[c] == usize::MAX {
                let per_job = members[c] as f64 * self.job_gpus[c];
                row_of_class[c] = x.push_row(shares.gpus[c].iter().map(|g| g / per_job).collect());
            }
            x.set(s.job, row_of_class[c]);
        }
        true
    }
}

impl GavelRounds {
    pub fn new(policy: &str, reallocation_interval_s: f64) -> Result<GavelRounds, SimError> {
        let policy = policies::by_name(policy).ok_or_else(|| {
            SimError::Input(format!(
                "unknown policy '{policy}' (policies: {})",
                super::names().join(", ")
            ))
        })?;
        GavelRounds::for_policy(policy, reallocation_interval_s)
    }

    /// Rounds of `policy`, run as its [`PolicyInfo::rounds`](policies::PolicyInfo) declares; an
    /// error for a policy whose rounds are a scheduler of its own ([`InRounds::Packed`]).
    pub fn for_policy(
        policy: &'static dyn Policy,
        reallocation_interval_s: f64,
    ) -> Result<GavelRounds, SimError> {
        let InRounds::Solved(rounds) = policy.info().rounds else {
            return Err(SimError::Input(format!(
                "{} is not solved in Gavel's rounds: it runs as a scheduler of its own",
                policy.name()
            )));
        };
        let parties = parties_for(&rounds, ShareAmong::Jobs);
        Ok(GavelRounds {
            rounds,
            parties,
            policy,
            interval: reallocation_interval_s,
            allocated_for: Vec::new(),
            shares: shares::Shares::default(),
            book: None,
            lists: None,
            active_changed: false,
            arrived: Vec::new(),
            check_lists: false,
            walks: (0, 0),
            last_arrival: 0.0,
            picked: Vec::new(),
            ef_rows: (rounds.warm == policies::Warm::EnvyRows)
                .then(policies::RowMemory::keeping_basis),
            warm: Warm::Untried,
            warm_answers: 0,
            fresh_check: false,
            #[cfg(not(target_arch = "wasm32"))]
            answer_log: None,
            ftf: Vec::new(),
            shuffler: agnostic_walk(&rounds)
                .then(|| crate::python_random::PythonRandom::new(WALK_SEED)),
            share_among: ShareAmong::Jobs,
            tenant_weights: BTreeMap::new(),
            tenant_fairness: None,
            last_splits: BTreeMap::new(),
            recomputations: 0,
            within: WithinTenant::default(),
            level_check: None,
        })
    }

    /// Solves `reference` too at every recomputation, on the same active jobs, and fails the
    /// round with [`SimError::Policy`] when a job's normalised level (sum_j T_ij s_i x_ij /
    /// prop_i, as [`lowest_normalised_throughput`] reads it) differs from the reference's by
    /// more than `tolerance`, relative (absolute below a level of 1). For tests: a two-stage
    /// allocation against the joint one.
    pub fn with_level_check(mut self, reference: GavelRounds, tolerance: f64) -> Self {
        self.level_check = Some(Box::new(LevelCheck {
            reference,
            tolerance,
            checked: 0,
        }));
        self
    }

    /// GPUs each job holds on average under the last allocation: sum_j s_i x_ij (0 without
    /// one). For tests and for reading what a rule gave.
    pub fn gpus_held(&self, jobs: &[Job]) -> Vec<f64> {
        jobs.iter()
            .enumerate()
            .map(|(i, job)| self.shares.of(i).iter().sum::<f64>() * f64::from(job.scale_factor))
            .collect()
    }

    /// Recomputations checked by [`GavelRounds::with_level_check`].
    pub fn levels_checked(&self) -> usize {
        self.level_check.as_ref().map_or(0, |c| c.checked)
    }

    /// The rule inside each tenant (`--within-tenant`). `asked`: the user named it, so a
    /// policy that has no tenants to share within is an error rather than a silent no-op.
    /// Call after [`GavelRounds::sharing_among`], which decides who the parties are.
    pub fn within_tenant(mut self, rule: WithinTenant, asked: bool) -> Result<Self, SimError> {
        let name = self.policy.name();
        let refuse =
            |why: String| SimError::Input(format!("--within-tenant {}: {why}", rule.name()));
        if asked {
            match self.parties {
                Parties::Tenants => {}
                Parties::TenantClasses if rule == WithinTenant::EqualTime => {
                    return Err(refuse(format!(
                        "{name} shares among a tenant's jobs by max-min (fairness) or in \
                         arrival order (fifo) in one program with the tenants; equal-time is \
                         for policies that share among tenants (--share-among tenants)"
                    )))
                }
                Parties::TenantClasses => {}
                _ if parties_for(&self.rounds, ShareAmong::Tenants) == Parties::Tenants => {
                    return Err(refuse(format!(
                        "{name} shares among jobs here (--share-among jobs), so no tenant's GPUs \
                         are shared among its jobs; add --share-among tenants"
                    )))
                }
                _ => {
                    return Err(refuse(format!(
                        "{name}'s shares are per job (each job's own steps, times or place in \
                         line), so there is no tenant's share to split among its jobs"
                    )))
                }
            }
        }
        self.within = rule;
        if self.parties == Parties::TenantClasses && rule == WithinTenant::Fifo {
            self.parties = Parties::TenantQueue;
        }
        Ok(self)
    }

    /// Shares among jobs or tenants (`--share-among`), tenants weighted by `weights` (by name,
    /// 1 for a tenant not named). Policies whose targets are per job (gavel-ftf, isolated,
    /// gavel-min-makespan, gavel-fifo) stay per job, and gavel-hierarchical is always tenants
    /// then jobs; [`Scheduler::parties`] says which.
    pub fn sharing_among(mut self, share: ShareAmong, weights: BTreeMap<String, f64>) -> Self {
        self.share_among = share;
        self.tenant_weights = weights;
        self.parties = parties_for(&self.rounds, share);
        self
    }

    fn tenant_weight(&self, name: &str) -> f64 {
        self.tenant_weights.get(name).copied().unwrap_or(1.0)
    }

    /// Turns the warm LAS path off (`false`) or back on: for comparing the two, as the tests do.
    pub fn with_warm_las(mut self, on: bool) -> Self {
        self.warm = if on { Warm::Untried } else { Warm::Off };
        self
    }

    /// Starts oef-coop's program from the last round's EF rows (`true`, the default) or solves
    /// every round afresh: for comparing the two, as the tests do.
    pub fn with_remembered_rows(mut self, on: bool) -> Self {
        self.ef_rows = (on && self.rounds.warm == policies::Warm::EnvyRows)
            .then(policies::RowMemory::keeping_basis);
        self
    }

    /// Checks every warm LAS answer against a fresh solve: both must reach the same lowest
    /// normalised throughput, or the round fails with [`SimError::Policy`]; and every oef-coop
    /// answer from remembered rows: both must reach the same efficiency. For tests.
    pub fn with_fresh_check(mut self, on: bool) -> Self {
        self.fresh_check = on;
        self
    }

    /// Keeps every recomputation's program and the policy's answer ([`GavelRounds::answers`]).
    /// For tests (native builds).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn with_answer_log(mut self, on: bool) -> Self {
        self.answer_log = on.then(Vec::new);
        self
    }

    /// The programs and answers kept by [`GavelRounds::with_answer_log`], in order.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn answers(&self) -> &[(fairground_core::Instance, policies::Solution)] {
        self.answer_log.as_deref().unwrap_or_default()
    }

    /// Lists every type the full way as well as from the kept lists, and fails the round with
    /// [`SimError::Policy`] if they pick differently. For tests.
    pub fn with_list_check(mut self, on: bool) -> Self {
        self.check_lists = on;
        self
    }

    /// How many type walks the kept lists answered, and how many listed the type the full way
    /// (before the first reset, with W_j = 0, or on a floating-point tie).
    pub fn walks(&self) -> (usize, usize) {
        self.walks
    }

    /// How many recomputations the warm LAS path answered.
    pub fn warm_answers(&self) -> usize {
        self.warm_answers
    }

    /// oef-coop's rows as the last recomputation left them, when it remembers them.
    pub fn remembered_rows(&self) -> Option<&policies::RowMemory> {
        self.ef_rows.as_ref()
    }

    fn recompute(&mut self, view: &RoundView) -> Result<(), SimError> {
        let jobs = view.jobs.len();
        self.shares.clear(jobs, &self.allocated_for);
        let active: Vec<usize> = view.active.iter().map(|s| s.job).collect();
        if self.warm_allocation(view) {
            self.warm_answers += 1;
            if self.fresh_check {
                let warm_shares = self.shares.clone();
                let warm = lowest_normalised_throughput(view, &self.shares);
                self.shares.clear(jobs, &active);
                self.recompute_fresh(view)?;
                let fresh = lowest_normalised_throughput(view, &self.shares);
                if (warm - fresh).abs() > 1e-6 * fresh.abs().max(1e-12) {
                    return Err(SimError::Policy(format!(
                        "warm LAS reached {warm}, a fresh solve {fresh} (t = {:.0} s)",
                        view.now
                    )));
                }
                // Keep the warm answer, as without the check.
                self.shares = warm_shares;
            }
        } else {
            self.shares.clear(jobs, &active);
            self.recompute_fresh(view)?;
        }
        if let Some(check) = self.level_check.as_mut() {
            let reference = &mut check.reference;
            reference.shares.clear(jobs, &reference.allocated_for);
            reference.recompute_fresh(view)?;
            reference.allocated_for = active.clone();
            for &i in &active {
                let (a, b) = (
                    normalised_level(view, i, self.shares.of(i)),
                    normalised_level(view, i, reference.shares.of(i)),
                );
                // Relative, and absolute below a level of 1 (a GPU's worth): an LP leaves
                // crumbs of 1e-7 where a job gets nothing.
                if (a - b).abs() > check.tolerance * a.abs().max(b.abs()).max(1.0) {
                    return Err(SimError::Policy(format!(
                        "job {} at t = {:.0} s: normalised level {a} under {}, {b} under {}",
                        view.jobs[i].id,
                        view.now,
                        self.policy.name(),
                        reference.policy.name()
                    )));
                }
            }
            check.checked += 1;
        }
        self.allocated_for = active;
        self.active_changed = false;
        Ok(())
    }

    /// Writes the warm LAS answer, when this policy has one and it applies (see the type's
    /// docs); false when it does not.
    fn warm_allocation(&mut self, view: &RoundView) -> bool {
        if self.parties != Parties::JobClasses || self.rounds.warm != policies::Warm::MaxMinClasses
        {
            return false;
        }
        if matches!(self.warm, Warm::Untried) {
            self.warm = match WarmLas::build(view.cluster, view.jobs) {
                Some(warm) => Warm::Ready(Box::new(warm)),
                None => Warm::Off,
            };
        }
        match &mut self.warm {
            Warm::Ready(warm) => warm.allocate(view, &mut self.shares),
            _ => false,
        }
    }

    /// A fresh solve of the policy over this round's parties: group the active jobs into
    /// parties, state them as a scenario's tenants, take the answer the policy declares, and
    /// write each job's share.
    fn recompute_fresh(&mut self, view: &RoundView) -> Result<(), SimError> {
        let cluster = view.cluster;
        let parties = self.group_parties(view);
        let by_tenant = self.parties == Parties::Tenants;
        // With tenants as parties: each tenant's jobs as classes, and each member's class.
        let tenant_jobs: Vec<(TenantJobs, Vec<usize>)> = if by_tenant {
            parties
                .values()
                .map(|members| tenant_classes(view, members))
                .collect()
        } else {
            Vec::new()
        };
        let inner = self.inner_rule(cluster);
        let tenants = self.party_tenants(view, &parties, &tenant_jobs, &inner);
        let entities = self.tenant_entities(&tenants);
        // A tenant's vector is already in its jobs' reference-GPU units (see `tenants`).
        let normalization = if by_tenant {
            Normalization::Raw
        } else {
            Normalization::Slowest
        };
        let inst = instance_over(cluster, tenants, entities, normalization)?;
        let solution = self.declared_answer(view, &inst, &parties, by_tenant)?;
        if matches!(self.parties, Parties::TenantClasses | Parties::TenantQueue) {
            self.judge_hierarchical(view, &parties, &solution.allocation)?;
        }
        if by_tenant {
            self.split_among_jobs(
                view,
                &parties,
                &inst,
                &tenant_jobs,
                &solution.allocation,
                &inner,
            );
        } else {
            self.write_party_shares(view, &parties, &solution.allocation);
        }
        Ok(())
    }

    /// This round's parties (tenants, job classes or single jobs, as [`Parties`] says), each
    /// with its active jobs, keyed so the map keeps the order the policy serves them in.
    fn group_parties(&self, view: &RoundView) -> BTreeMap<String, Vec<usize>> {
        let mut parties: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (pos, s) in view.active.iter().enumerate() {
            let job = &view.jobs[s.job];
            let key = match self.parties {
                Parties::Tenants => job.tenant.clone(),
                Parties::Jobs => format!("job {}", job.id),
                // Zero-padded position in arrival order, so the map keeps the queue's order.
                Parties::Queue => format!("{pos:012} job {}", job.id),
                Parties::JobClasses => format!("{:?}", class_key(job)),
                Parties::TenantClasses => format!("{} {:?}", job.tenant, class_key(job)),
                // Each job, in arrival order: the entity's fifo serves the tenants list's order.
                Parties::TenantQueue => format!("{pos:012} job {}", job.id),
            };
            parties.entry(key).or_default().push(s.job);
        }
        parties
    }

    /// Each party as a scenario's tenant: a tenant's utility from its jobs' classes, or a class's
    /// (or a job's) mean per-GPU rates, capped at its jobs' GPUs, weighted by its size when it is
    /// a class, with its entity (gavel-hierarchical) and a single job's work left.
    fn party_tenants(
        &self,
        view: &RoundView,
        parties: &BTreeMap<String, Vec<usize>>,
        tenant_jobs: &[(TenantJobs, Vec<usize>)],
        inner: &InnerRule,
    ) -> Vec<Tenant> {
        let cluster = view.cluster;
        let types = cluster.types.len();
        let weighted = matches!(self.parties, Parties::JobClasses | Parties::TenantClasses);
        // Inserted, not collected (a collected map compiles a stable sort for its key type).
        let mut left: BTreeMap<usize, f64> = BTreeMap::new();
        if self.parties == Parties::Jobs {
            for s in view.active {
                left.insert(s.job, s.remaining_steps);
            }
        }
        parties
            .iter()
            .enumerate()
            .map(|(p, (name, members))| {
                if self.parties == Parties::Tenants {
                    return self.tenant_party(name, &tenant_jobs[p].0, inner, types);
                }
                let rates: Vec<Vec<f64>> = members
                    .iter()
                    .map(|&i| per_gpu_rates(cluster, &view.jobs[i]))
                    .collect();
                let throughput = (0..types)
                    .map(|j| rates.iter().map(|r| r[j]).sum::<f64>() / members.len() as f64)
                    .collect();
                let cap: u32 = members.iter().map(|&i| view.jobs[i].scale_factor).sum();
                let weight = if weighted { members.len() as f64 } else { 1.0 };
                // gavel-hierarchical: the job's tenant is its entity.
                let entity = matches!(self.parties, Parties::TenantClasses | Parties::TenantQueue)
                    .then(|| view.jobs[members[0]].tenant.clone());
                // A single job's steps left (min-makespan's R_i).
                let work = (self.parties == Parties::Jobs)
                    .then(|| left.get(&members[0]).map(|r| r.max(1e-9)))
                    .flatten();
                Tenant {
                    name: name.clone(),
                    throughput,
                    weight,
                    max_gpus: Some(f64::from(cap)),
                    work,
                    entity,
                }
            })
            .collect()
    }

    /// gavel-hierarchical's entities: the jobs' tenants, weighted as asked, each sharing among
    /// its jobs by the rule inside tenants (fairness or fifo); none for other parties.
    fn tenant_entities(&self, tenants: &[Tenant]) -> Vec<Entity> {
        if !matches!(self.parties, Parties::TenantClasses | Parties::TenantQueue) {
            return Vec::new();
        }
        let within = match self.within {
            WithinTenant::Fifo => Within::Fifo,
            _ => Within::Fairness,
        };
        let mut names: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
        for name in tenants.iter().filter_map(|t| t.entity.as_deref()) {
            names.insert(name);
        }
        names
            .into_iter()
            .map(|name| Entity {
                name: name.to_string(),
                weight: self.tenant_weight(name),
                within,
                parent: None,
            })
            .collect()
    }

    /// The answer the policy declares for its rounds ([`RoundAnswer`]): finish-time fairness
    /// from the rounds' history, Gavel's interior-point answer with jobs as parties, or the
    /// policy's own checked solve (oef-coop's from the last round's envy rows, checked against a
    /// fresh solve when asked).
    fn declared_answer(
        &mut self,
        view: &RoundView,
        inst: &fairground_core::Instance,
        parties: &BTreeMap<String, Vec<usize>>,
        by_tenant: bool,
    ) -> Result<policies::Solution, SimError> {
        let failed =
            |e: policies::PolicyError| SimError::Policy(format!("{}: {e}", self.policy.name()));
        match self.rounds.answer {
            RoundAnswer::FinishTimeFair => return self.finish_time_fair(view, inst, parties),
            // As Gavel's simulator runs it: an interior point's answer, crumbs and all (for
            // min-makespan, the bound its bisection settles on; `solve` takes the simplex path
            // to the same canonical allocation).
            RoundAnswer::GavelInterior(program) if !by_tenant => {
                return program.solve(inst).map_err(failed)
            }
            _ => {}
        }
        let solution = match self.ef_rows.as_mut() {
            Some(rows) => policies::remembering(rows, || self.policy.solve(inst)),
            None => self.policy.solve(inst),
        }
        .map_err(failed)?;
        if self.fresh_check && self.ef_rows.is_some() {
            let fresh = self.policy.solve(inst).map_err(failed)?;
            let (a, b) = (solution.objective, fresh.objective);
            if (a - b).abs() > 1e-9 * b.abs().max(1e-12) {
                return Err(SimError::Policy(format!(
                    "{} from the last rows reached {a}, a fresh solve {b} (t = {:.0} s)",
                    self.policy.name(),
                    view.now
                )));
            }
        }
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(log) = self.answer_log.as_mut() {
            log.push((inst.clone(), solution.clone()));
        }
        Ok(solution)
    }

    /// Each job's x from its party's GPUs: the party's share of each type over its members and
    /// the job's scale factor (one row per party and scale factor), scaled down to at most one
    /// round's time.
    fn write_party_shares(
        &mut self,
        view: &RoundView,
        parties: &BTreeMap<String, Vec<usize>>,
        allocation: &fairground_core::Allocation,
    ) {
        for (t, members) in parties.values().enumerate() {
            let mut rows: Vec<(u32, usize)> = Vec::new();
            for &i in members {
                let sf = view.jobs[i].scale_factor;
                let row = match rows.iter().find(|(s, _)| *s == sf) {
                    Some(&(_, row)) => row,
                    None => {
                        let s = f64::from(sf);
                        let mut x: Vec<f64> = allocation.gpus[t]
                            .iter()
                            .map(|g| g / (members.len() as f64 * s))
                            .collect();
                        let sum: f64 = x.iter().sum();
                        if sum > 1.0 {
                            x.iter_mut().for_each(|v| *v /= sum);
                        }
                        let row = self.shares.push_row(x);
                        rows.push((sf, row));
                        row
                    }
                };
                self.shares.set(i, row);
            }
        }
    }
}

/// A tenant's active jobs as classes of like speedups and scale factors, and each member's class.
fn tenant_classes(view: &RoundView, members: &[usize]) -> (TenantJobs, Vec<usize>) {
    let mut jobs = TenantJobs::default();
    let class = members
        .iter()
        .map(|&i| {
            let job = &view.jobs[i];
            jobs.add(
                speedups(&per_gpu_rates(view.cluster, job)),
                f64::from(job.scale_factor),
            )
        })
        .collect();
    (jobs, class)
}

impl GavelRounds {
    /// A tenant as one party: the rule's proxy utility, its weight, its jobs' GPUs as its cap.
    fn tenant_party(
        &self,
        name: &str,
        jobs: &TenantJobs,
        inner: &InnerRule,
        types: usize,
    ) -> Tenant {
        Tenant {
            name: name.to_string(),
            throughput: inner.proxy(jobs, types),
            weight: self.tenant_weight(name),
            max_gpus: Some(jobs.gpus()),
            work: None,
            entity: None,
        }
    }

    /// The rule inside tenants on this cluster.
    fn inner_rule(&self, cluster: &Cluster) -> InnerRule {
        let gpus = (0..cluster.types.len())
            .map(|j| f64::from(cluster.gpus_of_type(j)))
            .collect();
        InnerRule::new(self.within, gpus)
    }

    /// Each tenant's bundle reaches its jobs by `inner` (`--within-tenant`); what tenants
    /// received is judged and recorded.
    fn split_among_jobs(
        &mut self,
        view: &RoundView,
        parties: &BTreeMap<String, Vec<usize>>,
        inst: &fairground_core::Instance,
        tenant_jobs: &[(TenantJobs, Vec<usize>)],
        alloc: &fairground_core::Allocation,
        inner: &InnerRule,
    ) {
        self.tenant_record(view);
        let record = self
            .tenant_fairness
            .as_mut()
            .expect("made by tenant_record");
        let mut realised = Vec::with_capacity(parties.len());
        let mut index = Vec::with_capacity(parties.len());
        // Each tenant's split, one tenant per core (natively; in turn in wasm): the last one's
        // when its jobs and bundle are as they were.
        let names: Vec<&String> = parties.keys().collect();
        let last = &self.last_splits;
        let splits = fairground_core::parallel::map_indices(names.len(), |p| {
            let (jobs, bundle) = (&tenant_jobs[p].0, &alloc.gpus[p]);
            match last
                .get(names[p])
                .filter(|(j, b, _)| j == jobs && b == bundle)
            {
                Some((_, _, split)) => Some(split.clone()),
                None => inner.split(jobs, bundle),
            }
        });
        for ((p, (name, members)), split) in parties.iter().enumerate().zip(splits) {
            let jobs = &tenant_jobs[p].0;
            let bundle = &alloc.gpus[p];
            let split = split.unwrap_or_else(|| {
                record.equal_time_fallbacks += 1;
                jobs.equal_time(bundle)
            });
            self.last_splits
                .insert(name.clone(), (jobs.clone(), bundle.clone(), split.clone()));
            let rows: Vec<usize> = split
                .time_share
                .iter()
                .map(|x| self.shares.push_row(x.clone()))
                .collect();
            for (&i, &row) in members.iter().zip(&split.row_of_job) {
                self.shares.set(i, rows[row]);
            }
            realised.push(split.utility);
            index.push(
                record
                    .tenants
                    .binary_search(name)
                    .expect("every tenant of the workload is in the record"),
            );
        }
        let jobs: Vec<TenantJobs> = tenant_jobs.iter().map(|(j, _)| j.clone()).collect();
        self.recomputations += 1;
        let judge = crate::tenants::judged_at(self.recomputations);
        record.record(
            view.now, inst, &index, &jobs, alloc, &realised, judge, inner,
        );
    }

    /// The record of what tenants received, made at the first recomputation over every tenant
    /// of the workload.
    fn tenant_record(&mut self, view: &RoundView) -> &mut TenantFairness {
        if self.tenant_fairness.is_none() {
            let mut names = std::collections::BTreeSet::new();
            for job in view.jobs {
                names.insert(job.tenant.as_str());
            }
            let weights = names.iter().map(|n| self.tenant_weight(n)).collect();
            let names = names.into_iter().map(str::to_string).collect();
            self.tenant_fairness = Some(TenantFairness::new(names, weights).with_rule(self.within));
        }
        self.tenant_fairness.as_mut().expect("made above")
    }

    /// gavel-hierarchical's verdicts, judged as the two-stage policies' are: each tenant's bundle
    /// is what its jobs hold together, V_t(g_t) the reference-GPU work they do with it, and
    /// V_t of another bundle what the rule inside tenants (`fairness` or `fifo`) would deliver
    /// from it; SI against the tenant's capped weighted equal split, EF by the engine's pairs.
    /// u_t is the rule's proxy, as for the two-stage policies.
    fn judge_hierarchical(
        &mut self,
        view: &RoundView,
        parties: &BTreeMap<String, Vec<usize>>,
        alloc: &fairground_core::Allocation,
    ) -> Result<(), SimError> {
        let cluster = view.cluster;
        let types = cluster.types.len();
        // By tenant (name order): its jobs, the GPUs they hold, the work they do.
        let mut by_tenant: BTreeMap<String, (TenantJobs, Vec<f64>, f64)> = BTreeMap::new();
        for (p, members) in parties.values().enumerate() {
            let per_job: Vec<f64> = alloc.gpus[p]
                .iter()
                .map(|g| g / members.len() as f64)
                .collect();
            for &i in members {
                let job = &view.jobs[i];
                let s = speedups(&per_gpu_rates(cluster, job));
                let entry = by_tenant
                    .entry(job.tenant.clone())
                    .or_insert_with(|| (TenantJobs::default(), vec![0.0; types], 0.0));
                entry.2 += s.iter().zip(&per_job).map(|(s, y)| s * y).sum::<f64>();
                entry.0.add(s, f64::from(job.scale_factor));
                for (g, y) in entry.1.iter_mut().zip(&per_job) {
                    *g += y;
                }
            }
        }
        let inner = self.inner_rule(cluster);
        let tenants: Vec<Tenant> = by_tenant
            .iter()
            .map(|(name, (jobs, _, _))| self.tenant_party(name, jobs, &inner, types))
            .collect();
        let inst = instance_over(cluster, tenants, Vec::new(), Normalization::Raw)?;
        let bundles = fairground_core::Allocation {
            gpus: by_tenant.values().map(|(_, g, _)| g.clone()).collect(),
        };
        let realised: Vec<f64> = by_tenant.values().map(|(_, _, v)| *v).collect();
        let jobs: Vec<TenantJobs> = by_tenant.values().map(|(j, _, _)| j.clone()).collect();
        let record = self.tenant_record(view);
        let index: Vec<usize> = by_tenant
            .keys()
            .map(|name| {
                record
                    .tenants
                    .binary_search(name)
                    .expect("every tenant of the workload is in the record")
            })
            .collect();
        self.recomputations += 1;
        let judge = crate::tenants::judged_at(self.recomputations);
        let record = self.tenant_fairness.as_mut().expect("made above");
        record.record(
            view.now, &inst, &index, &jobs, &bundles, &realised, judge, &inner,
        );
        Ok(())
    }

    /// gavel-ftf in the simulator: Gavel's finish-time fairness with each job's history, solved
    /// by an interior point as Gavel's is ([`policies::finish_time_fairness_interior`]: one
    /// convex solve; the Dinkelbach LPs and the canonical optimum took 50x longer and were
    /// further from Gavel's JCTs), as its simulator runs it: t_i = now - arrival,
    /// R_i = steps left, I_i += (R at the last recomputation - R now) / iso_i then, for jobs
    /// present at both (Gavel's `_cumulative_isolated_time`). One party per job.
    fn finish_time_fair(
        &mut self,
        view: &RoundView,
        inst: &fairground_core::Instance,
        parties: &BTreeMap<String, Vec<usize>>,
    ) -> Result<fairground_core::policies::Solution, SimError> {
        let mut remaining: BTreeMap<usize, f64> = BTreeMap::new();
        for s in view.active {
            remaining.insert(s.job, s.remaining_steps);
        }
        let jobs: Vec<usize> = parties.values().map(|m| m[0]).collect();
        self.ftf.resize(view.jobs.len(), None);
        let history: Vec<policies::FtfHistory> = jobs
            .iter()
            .map(|&i| {
                let now_left = remaining[&i];
                let isolated_s = self.ftf[i].map_or(0.0, |seen| {
                    seen.isolated_s + (seen.remaining - now_left) / seen.iso
                });
                policies::FtfHistory {
                    elapsed_s: view.now - view.jobs[i].arrival,
                    remaining_steps: now_left.max(f64::MIN_POSITIVE),
                    isolated_s,
                }
            })
            .collect();
        let (solution, iso) = policies::finish_time_fairness_interior(inst, &history)
            .map_err(|e| SimError::Policy(format!("gavel-ftf: {e}")))?;
        // Gavel keeps only the jobs of this recomputation as the last one's.
        self.ftf.iter_mut().for_each(|seen| *seen = None);
        for (k, &i) in jobs.iter().enumerate() {
            self.ftf[i] = Some(FtfSeen {
                isolated_s: history[k].isolated_s,
                remaining: history[k].remaining_steps,
                iso: iso[k],
            });
        }
        Ok(solution)
    }
}

impl Scheduler for GavelRounds {
    fn name(&self) -> String {
        self.policy.name().to_string()
    }

    fn parties(&self, asked: ShareAmong) -> String {
        let name = self.policy.name();
        match (self.parties, asked) {
            (Parties::Tenants, _) if self.within != WithinTenant::EqualTime => {
                let always = if asked == ShareAmong::Jobs {
                    format!("; {name}'s shares are per tenant, so it always shares so")
                } else {
                    String::new()
                };
                format!(
                    "tenants (each tenant's GPUs reach its jobs by {}{always})",
                    self.within.describe()
                )
            }
            (Parties::Tenants, ShareAmong::Jobs) => format!(
                "tenants (each tenant's GPUs split among its jobs by what each does best; \
                 {name}'s shares are per tenant, so it always shares so)"
            ),
            (Parties::Tenants, _) => "tenants (each tenant's GPUs split among its jobs by what \
                                      each does best)"
                .into(),
            (Parties::TenantClasses | Parties::TenantQueue, _) => format!(
                "tenants, then jobs within each tenant by {} in one program (gavel-hierarchical \
                 always shares so)",
                self.within.describe()
            ),
            (_, ShareAmong::Jobs) => "jobs".into(),
            (Parties::Queue, ShareAmong::Tenants) => {
                format!("jobs: {name} serves jobs in arrival order, so --share-among tenants does not apply")
            }
            (_, ShareAmong::Tenants) => format!(
                "jobs: {name}'s targets are per job (each job's own steps and times), so \
                 --share-among tenants does not apply"
            ),
        }
    }

    fn has_tenant_shares(&self) -> bool {
        true
    }

    fn tenant_fairness(&self) -> Option<TenantFairness> {
        let mut record = self.tenant_fairness.clone()?;
        record.summarise();
        Some(record)
    }

    fn schedule(&mut self, view: &RoundView) -> Result<Vec<Placement>, SimError> {
        let types = view.cluster.types.len();
        if self.book.is_none() {
            self.book = Some(book::Book::new(view.jobs.len(), types, view.round_s));
            self.lists = Some(lists::Lists::new(view.jobs, types));
            self.last_arrival = view.jobs.iter().map(|j| j.arrival).fold(0.0, f64::max);
        }
        if let (Some(book), Some(lists)) = (self.book.as_mut(), self.lists.as_mut()) {
            lists.before_update(book, &self.shares, view.last_round);
            self.arrived.clear();
            book.update(view.last_round, view.active, &mut self.arrived);
            lists.after_update(book, &self.shares, view.last_round, &self.arrived);
            if !self.arrived.is_empty() || view.last_round.iter().any(|r| r.finished) {
                self.active_changed = true;
            }
        }
        let placements = self.pick_and_place(view)?;
        if placements.is_empty() && !view.active.is_empty() && self.last_arrival <= view.now {
            // Gavel: when nothing runs and no job is left to arrive, the allocation is reset
            // at once (its simulator loops again at the same time with the last reset zeroed).
            if let Some(book) = self.book.as_mut() {
                book.last_reset = 0.0;
            }
            return self.pick_and_place(view);
        }
        Ok(placements)
    }
}

impl GavelRounds {
    /// Recomputes x if due, then one pick over the types' lists and the placement.
    fn pick_and_place(&mut self, view: &RoundView) -> Result<Vec<Placement>, SimError> {
        let cluster = view.cluster;
        let types = cluster.types.len();
        let book = self.book.as_mut().expect("created by schedule");
        let due = view.now - book.last_reset >= self.interval - 1e-9 || book.last_reset == 0.0;
        if self.active_changed && due && !view.active.is_empty() {
            book.reset(view.now, &self.shares, view.active);
            self.recompute(view)?;
            let (book, lists) = (self.book.as_ref(), self.lists.as_mut());
            if let (Some(book), Some(lists)) = (book, lists) {
                lists.rebuild(book, &self.shares, view.active);
            }
        }
        let book = self.book.as_ref().expect("created above");
        let lists = self.lists.as_mut().expect("created with the book");

        // Walk each type's list in turn; pick (job, type) where the job fits.
        self.picked.resize(view.jobs.len(), false);
        let mut left: Vec<u32> = (0..types).map(|j| cluster.gpus_of_type(j)).collect();
        // Per type, the picked jobs and their GPUs.
        let mut picks: Vec<Vec<(usize, u32)>> = vec![Vec::new(); types];
        let mut walk: Vec<usize> = (0..types).collect();
        if let Some(rng) = self.shuffler.as_mut() {
            if !view.active.is_empty() {
                walk = gavel_type_order(cluster);
                rng.shuffle(&mut walk);
            }
        }
        let queue = self.parties == Parties::Queue;
        for &j in &walk {
            if left[j] == 0 {
                continue;
            }
            let start_left = left[j];
            // Gavel's step for one listed job: pick it if it fits; the GPUs left after it, or
            // None once j is full.
            let step = |picked: &mut [bool],
                        left: &mut u32,
                        chosen: &mut Vec<(usize, u32)>,
                        i: usize,
                        priority: f64,
                        gpus: u32|
             -> Option<u32> {
                // Gavel: under FIFO a job with priority 0 on a type is not scheduled there
                // (the rest of the list has priority 0 too).
                if queue && priority <= 0.0 {
                    return None;
                }
                if !(picked[i] || gpus > *left) {
                    *left -= gpus;
                    picked[i] = true;
                    chosen.push((i, gpus));
                }
                (*left > 0).then_some(*left)
            };
            let mut chosen = Vec::new();
            let kept = lists.walkable(j, book)
                && lists
                    .walk(j, book, &self.shares, start_left, &mut |i, p, gpus| {
                        step(&mut self.picked, &mut left[j], &mut chosen, i, p, gpus)
                    })
                    .is_ok();
            if kept {
                self.walks.0 += 1;
            } else {
                self.walks.1 += 1;
            }
            if !kept || self.check_lists {
                let from_lists = std::mem::take(&mut chosen);
                for &(i, _) in &from_lists {
                    self.picked[i] = false;
                }
                left[j] = start_left;
                full_list(view, book, &self.shares, j, &mut |i, p, gpus| {
                    step(&mut self.picked, &mut left[j], &mut chosen, i, p, gpus)
                });
                if kept && from_lists != chosen {
                    return Err(SimError::Policy(format!(
                        "type {j} at t = {:.0} s: the kept lists picked {from_lists:?}, the full \
                         list {chosen:?}",
                        view.now
                    )));
                }
            }
            picks[j] = chosen;
        }
        // Place per type, largest jobs first; a pick without an allocation is not run.
        let mut pool = GpuPool::new(cluster);
        // Sized once: grown by doubling, a round's vector was a fresh allocation each time.
        let mut placements = Vec::with_capacity(picks.iter().map(Vec::len).sum());
        for (j, picked) in picks.iter_mut().enumerate() {
            sort_stably_by(picked, |a, b| b.1.cmp(&a.1));
            for &(i, gpus) in picked.iter() {
                self.picked[i] = false;
                if self.shares.row(i).is_none() {
                    continue;
                }
                if let Some(pieces) = pool.take(j, gpus) {
                    placements.push(Placement::exclusive(i, pieces));
                }
            }
        }
        Ok(placements)
    }
}

/// Type j's whole list, built from every active job as Gavel builds it, walked with `visit`:
/// highest (priority, deficit, x) first, equal keys in arrival order. Only the head of the
/// list is read (a type fills after a few picks), so it is a heap.
fn full_list(
    view: &RoundView,
    book: &book::Book,
    x: &shares::Shares,
    j: usize,
    visit: &mut dyn FnMut(usize, f64, u32) -> Option<u32>,
) {
    let list: Vec<ListEntry> = view
        .active
        .iter()
        .enumerate()
        .map(|(pos, s)| {
            let xi = x.of(s.job);
            let rate = view.jobs[s.job].rate[j];
            ListEntry::new(
                [
                    book.priority(s.job, j, xi, rate),
                    book.deficit(s.job, j),
                    xi.get(j).copied().unwrap_or(0.0),
                ],
                pos,
                s.job,
            )
        })
        .collect();
    let mut heap = std::collections::BinaryHeap::from(list);
    while let Some(entry) = heap.pop() {
        let job = &view.jobs[entry.job];
        if job.rate[j] <= 0.0 {
            continue;
        }
        if visit(entry.job, entry.key[0], job.scale_factor).is_none() {
            break;
        }
    }
}

/// One job in a type's list: ordered by its key, highest first, then by arrival (earlier first).
struct ListEntry {
    key: [f64; 3],
    pos: usize,
    job: usize,
}

impl ListEntry {
    fn new(key: [f64; 3], pos: usize, job: usize) -> ListEntry {
        // + 0.0 turns -0.0 into 0.0, so equal numbers compare equal under total_cmp (Gavel
        // compares floats with Python's ==).
        ListEntry {
            key: key.map(|k| k + 0.0),
            pos,
            job,
        }
    }
}

impl Ord for ListEntry {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key
            .iter()
            .zip(&other.key)
            .map(|(a, b)| a.total_cmp(b))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(other.pos.cmp(&self.pos))
    }
}

impl PartialOrd for ListEntry {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for ListEntry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for ListEntry {}

/// Who `policy` shares among when `share` is asked for: see [`GavelRounds::sharing_among`].
/// With jobs as parties, policies symmetric in identical jobs solve one party per class (same
/// optimum, fewer rows); FTF, the isolated share and min-makespan depend on each job's count
/// and steps, and max-sum and the agnostic max-min take Gavel's interior-point answer per job.
fn parties_for(rounds: &Rounds, share: ShareAmong) -> Parties {
    match (rounds.parties, share) {
        (PartyRule::Always(Grouping::Jobs), _) => Parties::Jobs,
        (PartyRule::Always(Grouping::Queue), _) => Parties::Queue,
        (PartyRule::Always(Grouping::TenantsThenJobs), _) => Parties::TenantClasses,
        // Gandiva_fair's shares and trades are per tenant (its users), whatever is asked.
        (PartyRule::Always(Grouping::Tenants), _) | (_, ShareAmong::Tenants) => Parties::Tenants,
        (PartyRule::AsAsked(JobGrouping::Jobs), ShareAmong::Jobs) => Parties::Jobs,
        (PartyRule::AsAsked(JobGrouping::Classes), ShareAmong::Jobs) => Parties::JobClasses,
    }
}

/// Who the allocation policy sees as its tenants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Parties {
    /// The jobs' tenants (`--share-among tenants`): each tenant one linear utility, its bundle
    /// split among its jobs by the rule inside tenants ([`InnerRule::split`]).
    Tenants,
    /// Each job (policies whose per-job shares depend on how many jobs there are).
    Jobs,
    /// Classes of identical jobs, weighted by their size (same optimum as per job, faster).
    JobClasses,
    /// Classes of identical jobs within each tenant, weighted by their size; the tenants are
    /// the entities (gavel-hierarchical with fairness inside tenants).
    TenantClasses,
    /// Each job, in arrival order; the tenants are the entities, each serving its jobs in line
    /// (gavel-hierarchical with fifo inside tenants).
    TenantQueue,
    /// Each job, in arrival order (FIFO's queue); a job with priority 0 on a type is not
    /// picked there, as Gavel does for its FIFO policies.
    Queue,
}
