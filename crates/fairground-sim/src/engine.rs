//! The event loop. Decisions happen at round starts; inside a round, each placed job runs at
//! its placement's rate and finishes at its exact instant. As in Gavel's simulator: a job that
//! arrives mid-round waits for the next round (its JCT still counts from its arrival); a round
//! ends at `round_s` or, when every placed job finishes earlier, at the last of those finishes;
//! when nothing is active, time jumps to the next arrival.

pub use crate::config::SimConfig;
use crate::metrics::{Recorder, SimResult};
use crate::mixed::MixedRate;
use crate::model::{Cluster, Job, SimError};
use crate::schedulers::{JobState, Piece, Placement, Ran, RoundView, Scheduler};
use fairground_core::order::{sort_indices_by, sort_stably_by};

/// The pieces a job held in its last round: moving elsewhere costs the overhead.
type GpusHeld = Vec<Piece>;

/// Checks the jobs against the cluster; every problem is located by job id.
fn validate(cluster: &Cluster, jobs: &[Job], config: &SimConfig) -> Result<(), SimError> {
    if !(config.round_s.is_finite() && config.round_s > 0.0) {
        return Err(SimError::Input(format!(
            "round length must be > 0 seconds (got {})",
            config.round_s
        )));
    }
    if !(config.restart_overhead_s.is_finite() && config.restart_overhead_s >= 0.0) {
        return Err(SimError::Input(
            "restart overhead must be >= 0 seconds".into(),
        ));
    }
    if !(config.sync_overhead_s.is_finite()
        && config.sync_overhead_s >= 0.0
        && config.sync_overhead_s < config.round_s)
    {
        return Err(SimError::Input(format!(
            "sync overhead must be >= 0 seconds and shorter than a round ({} s); got {}",
            config.round_s, config.sync_overhead_s
        )));
    }
    if jobs.len() >= u32::MAX as usize {
        return Err(SimError::Input(format!(
            "{} jobs: at most {} can be simulated",
            jobs.len(),
            u32::MAX - 1
        )));
    }
    crate::limits::check_job_count(jobs.len(), config.max_jobs).map_err(SimError::Input)?;
    // Per-job outcomes are keyed by id: two jobs of one id would be one row.
    let mut seen: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    for (k, job) in jobs.iter().enumerate() {
        if let Some(first) = seen.insert(job.id, k) {
            return Err(SimError::Input(format!(
                "job id {} is used twice (the workload's jobs {} and {}, counting from 0): ids \
                 must be unique",
                job.id, first, k
            )));
        }
    }
    for job in jobs {
        let at = format!("job {}", job.id);
        if job.rate.len() != cluster.types.len() {
            return Err(SimError::Input(format!(
                "{at}: {} rates for {} GPU types",
                job.rate.len(),
                cluster.types.len()
            )));
        }
        if !(job.arrival.is_finite() && job.arrival >= 0.0) {
            return Err(SimError::Input(format!(
                "{at}: arrival must be a time >= 0 (got {})",
                job.arrival
            )));
        }
        if !(job.total_steps.is_finite() && job.total_steps > 0.0) {
            return Err(SimError::Input(format!(
                "{at}: total steps must be > 0 (got {})",
                job.total_steps
            )));
        }
        if job.scale_factor == 0 {
            return Err(SimError::Input(format!("{at}: needs at least one GPU")));
        }
        if job.rate.iter().any(|r| !(r.is_finite() && *r >= 0.0)) {
            return Err(SimError::Input(format!(
                "{at}: rates must be finite and >= 0"
            )));
        }
        if let Some(mb) = job.gpu_mem_mb.filter(|mb| !(mb.is_finite() && *mb >= 0.0)) {
            return Err(SimError::Input(format!(
                "{at}: GPU memory must be finite and >= 0 MB (got {mb})"
            )));
        }
        crate::limits::check_job(job.arrival, job.total_steps, &job.rate)
            .map_err(|e| SimError::Input(format!("{at}: {e}")))?;
    }
    Ok(())
}

/// A placement that accounts no CPU or memory is given the GPU-proportional share of the servers
/// it uses (the smallest per-GPU share among them; half of it for a job sharing its GPUs): that
/// is what a scheduler unaware of CPU and memory leaves a job with, and it keeps the capacity
/// check and the speed honest for it.
fn account_proportional_share(cluster: &Cluster, placements: &mut [Placement]) {
    for p in placements {
        if p.cpus_per_gpu == 0.0 && p.mem_gb_per_gpu == 0.0 {
            let (mut cpus, mut mem) = (f64::INFINITY, f64::INFINITY);
            for piece in &p.pieces {
                if let Some(s) = cluster.servers.get(piece.server) {
                    let gpus = f64::from(s.gpus.max(1));
                    cpus = cpus.min(s.cpus / gpus);
                    mem = mem.min(s.mem_gb / gpus);
                }
            }
            // Two jobs sharing GPUs split the share between them.
            let split = if p.sharing.is_some() { 2.0 } else { 1.0 };
            if cpus.is_finite() && mem.is_finite() {
                (p.cpus_per_gpu, p.mem_gb_per_gpu) = (cpus / split, mem / split);
            }
        }
    }
}

/// The placement's rate in steps/s (the rule is in `schedulers`' module documentation): each
/// copy at [`MixedRate::copy_rate`] of the GPUs it holds per type, copies adding up, times the
/// speedup the job's profile gives it for the CPUs and memory it holds.
fn placement_rate(
    cluster: &Cluster,
    (rates, scale_factor, job): (&[f64], u32, Option<&Job>),
    p: &Placement,
    rule: MixedRate,
) -> f64 {
    let copies = p.pieces.iter().map(|x| x.copy).max().unwrap_or(0) + 1;
    // One copy's GPUs per type, on the stack for the usual handful of types (this runs for
    // every placement of every round).
    let types = cluster.types.len();
    let mut stack = [0u32; 16];
    let mut heap = Vec::new();
    let per_type: &mut [u32] = if types <= stack.len() {
        &mut stack[..types]
    } else {
        heap.resize(types, 0);
        &mut heap
    };
    let mut rate = 0.0;
    for copy in 0..copies {
        per_type.fill(0);
        for piece in p.pieces.iter().filter(|x| x.copy == copy) {
            per_type[cluster.servers[piece.server].gpu_type] += piece.gpus.len() as u32;
        }
        rate += rule.rate_of(rates, scale_factor, per_type);
    }
    let speedup = job
        .and_then(|job| job.resources.as_ref())
        .map_or(1.0, |r| r.speedup(p.cpus_per_gpu, p.mem_gb_per_gpu));
    let shared = p.sharing.map_or(1.0, |s| {
        s.slowdown * crate::sharing::Accumulation::time_factor(s.accumulation)
    });
    rate * speedup / shared
}

/// Copies a placement runs as (the distinct `copy` numbers of its pieces).
pub fn copies(p: &Placement) -> usize {
    if let Some(first) = p.pieces.first() {
        if p.pieces.iter().all(|x| x.copy == first.copy) {
            return 1;
        }
    }
    let mut seen: Vec<u32> = p.pieces.iter().map(|x| x.copy).collect();
    sort_stably_by(&mut seen, |a, b| a.cmp(b));
    seen.dedup();
    seen.len()
}

/// Sorts pairs by their first value, which is below `bound`, keeping equal ones in order: a
/// least-significant-digit radix sort, so sorting a round's placed jobs by arrival rank costs a
/// few passes over them rather than n log n comparisons (it was 4% of a 100,000-job run). A
/// digit has about log2(n) bits (4 to 11), so a short list does not pay for clearing 2,048
/// counts a pass. Pairs already in order (fifo places its jobs by arrival) are left as they
/// are after one look.
fn radix_sort_by_first(pairs: &mut Vec<(u32, u32)>, bound: usize) {
    if pairs.is_sorted_by_key(|p| p.0) {
        return;
    }
    let bits = (usize::BITS - pairs.len().leading_zeros()).clamp(4, 11);
    let mut scratch = vec![(0, 0); pairs.len()];
    let mut start = vec![0usize; 1 << bits];
    let mut shift = 0;
    while shift < u32::BITS && (bound.saturating_sub(1) >> shift) > 0 {
        let digit = |v: u32| ((v >> shift) & ((1 << bits) - 1)) as usize;
        start.fill(0);
        for &(v, _) in pairs.iter() {
            start[digit(v)] += 1;
        }
        let mut sum = 0;
        for c in start.iter_mut() {
            (*c, sum) = (sum, sum + *c);
        }
        for &pair in pairs.iter() {
            let d = digit(pair.0);
            scratch[start[d]] = pair;
            start[d] += 1;
        }
        std::mem::swap(pairs, &mut scratch);
        shift += bits;
    }
}

/// What a round's placements book, per GPU and per server: scratch for [`check_placements`],
/// kept between rounds (allocating it afresh cost a page-zeroing per round on large clusters).
struct Booked {
    /// The index of each server's first GPU in `gpus`.
    first_gpu: Vec<usize>,
    /// (occupants, all of them sharing, MB they hold, all footprints known, all measured
    /// together) per GPU, servers laid end to end.
    gpus: Vec<(u32, bool, f64, bool, bool)>,
    cpus: Vec<f64>,
    mem: Vec<f64>,
}

impl Booked {
    fn new(cluster: &Cluster) -> Booked {
        let first_gpu: Vec<usize> = cluster
            .servers
            .iter()
            .scan(0, |next, s| {
                let first = *next;
                *next += s.gpus as usize;
                Some(first)
            })
            .collect();
        let total_gpus = cluster.servers.iter().map(|s| s.gpus as usize).sum();
        Booked {
            first_gpu,
            gpus: vec![(0, true, 0.0, true, true); total_gpus],
            cpus: vec![0.0; cluster.servers.len()],
            mem: vec![0.0; cluster.servers.len()],
        }
    }
}

/// Checks a round's placements: each job active and placed once, on GPUs that exist and where
/// it can run, no GPU booked twice unless both declare sharing, CPU and memory within each
/// server. Each placed job's `slot` is its index in `active` (u32::MAX: not active);
/// `round` is a value not yet written to any job's `placed_in`.
fn check_placements(
    (cluster, jobs): (&Cluster, &[Job]),
    (hot, booked): (&mut Hot, &mut Booked),
    active: &[JobState],
    round: u64,
    placements: &[Placement],
) -> Result<(), SimError> {
    booked.gpus.fill((0, true, 0.0, true, true));
    booked.cpus.fill(0.0);
    booked.mem.fill(0.0);
    let Booked {
        first_gpu,
        gpus: occupants,
        cpus,
        mem,
    } = booked;
    for p in placements {
        let Some(job) = hot.job.get_mut(p.job) else {
            return Err(SimError::InvalidSchedule(format!(
                "job {} is not active",
                p.job
            )));
        };
        let id = JobId(jobs, p.job);
        if active.get(job.slot as usize).is_none_or(|s| s.job != p.job) {
            return Err(SimError::InvalidSchedule(format!("job {id} is not active")));
        }
        if std::mem::replace(&mut job.placed_in, round) == round {
            return Err(SimError::InvalidSchedule(format!(
                "job {id} is placed twice"
            )));
        }
        let (gpu_mem_mb, scale_factor) = (job.gpu_mem_mb(), job.scale_factor);
        let rates = hot.rates(p.job);
        check_placement_fields(scale_factor, p, id)?;
        for piece in &p.pieces {
            let server = cluster.servers.get(piece.server).ok_or_else(|| {
                SimError::InvalidSchedule(format!("job {id}: no server {}", piece.server))
            })?;
            if rates[server.gpu_type] <= 0.0 {
                return Err(SimError::InvalidSchedule(format!(
                    "job {id} placed on {}, where it cannot run",
                    cluster.types[server.gpu_type]
                )));
            }
            for &g in &piece.gpus {
                if g >= server.gpus {
                    return Err(SimError::InvalidSchedule(format!(
                        "job {id}: server {} has no GPU {g}",
                        piece.server
                    )));
                }
                let here = &mut occupants[first_gpu[piece.server] + g as usize];
                here.0 += 1;
                here.1 &= p.sharing.is_some();
                here.4 &= p.sharing.is_some_and(|s| s.measured_together);
                match (gpu_mem_mb, p.sharing) {
                    (Some(mb), Some(s)) => {
                        here.2 += mb * crate::sharing::Accumulation::memory_factor(s.accumulation)
                    }
                    (Some(mb), None) => here.2 += mb,
                    (None, _) => here.3 = false,
                }
            }
            cpus[piece.server] += p.cpus_per_gpu * piece.gpus.len() as f64;
            mem[piece.server] += p.mem_gb_per_gpu * piece.gpus.len() as f64;
        }
    }
    check_bookings(cluster, first_gpu, occupants, cpus, mem)
}

/// A placement's own fields: GPUs in every piece, CPUs and memory per GPU, its copies, and its
/// sharing's slowdown and sub-batches.
fn check_placement_fields(scale_factor: u32, p: &Placement, id: JobId) -> Result<(), SimError> {
    if p.pieces.is_empty() || p.pieces.iter().any(|piece| piece.gpus.is_empty()) {
        return Err(SimError::InvalidSchedule(format!(
            "job {id}: a placement needs GPUs"
        )));
    }
    if !(p.cpus_per_gpu.is_finite()
        && p.cpus_per_gpu >= 0.0
        && p.mem_gb_per_gpu.is_finite()
        && p.mem_gb_per_gpu >= 0.0)
    {
        return Err(SimError::InvalidSchedule(format!(
            "job {id}: CPUs and memory per GPU must be >= 0"
        )));
    }
    check_copies(scale_factor, p, id)?;
    if let Some(s) = p.sharing {
        if !(s.slowdown.is_finite() && s.slowdown >= 1.0) {
            return Err(SimError::InvalidSchedule(format!(
                "job {id}: slowdown must be >= 1"
            )));
        }
        if !(1..=64).contains(&s.accumulation) {
            return Err(SimError::InvalidSchedule(format!(
                "job {id}: {} sub-batches (1 to 64)",
                s.accumulation
            )));
        }
    }
    Ok(())
}

/// The round's bookings against the cluster: at most two jobs on a GPU, both sharing, fitting
/// its memory together unless measured together; each server's CPUs and memory.
fn check_bookings(
    cluster: &Cluster,
    first_gpu: &[usize],
    occupants: &[(u32, bool, f64, bool, bool)],
    cpus: &[f64],
    mem: &[f64],
) -> Result<(), SimError> {
    for (server, s) in cluster.servers.iter().enumerate() {
        for gpu in 0..s.gpus {
            let (count, shared, mb, known, measured) = occupants[first_gpu[server] + gpu as usize];
            if count > 2 || (count == 2 && !shared) {
                return Err(SimError::InvalidSchedule(format!(
                    "server {server} GPU {gpu} is booked by {count} jobs"
                )));
            }
            // Two jobs on a GPU must fit its memory together (a job alone is taken to fit: its
            // footprint was measured on a card it ran on; so is a pair measured together).
            if count == 2 && !measured {
                let capacity = cluster.gpu_memory_mb(s.gpu_type);
                if !known {
                    return Err(SimError::InvalidSchedule(format!(
                        "server {server} GPU {gpu}: shared by a job whose GPU memory is unknown"
                    )));
                }
                if mb > capacity + 1e-6 {
                    return Err(SimError::InvalidSchedule(format!(
                        "server {server} GPU {gpu}: {mb:.0} MB booked of {capacity:.0}"
                    )));
                }
            }
        }
    }
    for (s, server) in cluster.servers.iter().enumerate() {
        if cpus[s] > server.cpus * (1.0 + 1e-9) + 1e-9
            || mem[s] > server.mem_gb * (1.0 + 1e-9) + 1e-9
        {
            return Err(SimError::InvalidSchedule(format!(
                "server {s}: {:.3} CPUs and {:.3} GB booked of {} and {}",
                cpus[s], mem[s], server.cpus, server.mem_gb
            )));
        }
    }
    Ok(())
}

/// Each copy of the job holds exactly its scale factor in GPUs, copies are numbered 0, 1, ...
/// (at most 64), and no server holds pieces of two copies.
fn check_copies(scale_factor: u32, p: &Placement, id: JobId) -> Result<(), SimError> {
    let n = copies(p);
    if n > 64 || p.pieces.iter().any(|x| x.copy as usize >= n) {
        return Err(SimError::InvalidSchedule(format!(
            "job {id}: copies must be numbered 0 to {} (at most 64)",
            n - 1
        )));
    }
    let mut gpus = [0usize; 64]; // n <= 64, checked above
    let gpus = &mut gpus[..n];
    for (k, piece) in p.pieces.iter().enumerate() {
        gpus[piece.copy as usize] += piece.gpus.len();
        if p.pieces[..k]
            .iter()
            .any(|o| o.server == piece.server && o.copy != piece.copy)
        {
            return Err(SimError::InvalidSchedule(format!(
                "job {id}: two of its copies on server {}",
                piece.server
            )));
        }
    }
    let need = scale_factor as usize;
    if let Some((c, g)) = gpus.iter().enumerate().find(|(_, g)| **g != need) {
        return Err(SimError::InvalidSchedule(format!(
            "job {id}: copy {c} holds {g} GPUs; the job needs {need}"
        )));
    }
    Ok(())
}

/// Replays `jobs` on `cluster` under `scheduler`. `progress(done, total)` is called as jobs
/// finish. Jobs that can run nowhere (no type with both a rate and enough GPUs for their scale
/// factor) never start; they are listed in the result, not waited for.
pub fn simulate(
    cluster: &Cluster,
    jobs: &[Job],
    scheduler: &mut dyn Scheduler,
    config: &SimConfig,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<SimResult, SimError> {
    let mut sim = Simulation::new(cluster, jobs, config, scheduler)?;
    let mut reported = 0;
    while !sim.step(scheduler, 1)? {
        let (done, total) = sim.progress();
        if done != reported {
            reported = done;
            progress(done, total);
        }
    }
    Ok(sim.finish(scheduler))
}

/// `Job::id` of job i, for messages: read only when one is written.
#[derive(Clone, Copy)]
struct JobId<'a>(&'a [Job], usize);

impl std::fmt::Display for JobId<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0[self.1].id)
    }
}

/// Rates kept in the job's record when the cluster has at most this many types (Gavel's has
/// 3), so the record fills one cache line.
const INLINE_RATES: usize = 3;

/// What the engine keeps per job for placing it, one record per job: read from `Job` (strings
/// and a rate vector on the heap) and from separate vectors, a placement cost several cache
/// misses once a run holds tens of thousands of jobs; here it costs one (rates included, on
/// clusters of up to [`INLINE_RATES`] types).
#[derive(Debug, Clone)]
#[repr(align(64))]
struct HotJob {
    /// `Job::rate` when the cluster has at most [`INLINE_RATES`] types (else in `Hot::rate`).
    rate: [f64; INLINE_RATES],
    /// `Job::gpu_mem_mb`, NaN for None (`validate` refuses a NaN), so the record fits a line.
    gpu_mem_mb: f64,
    /// The round in which the job was last placed (u64::MAX: never).
    placed_in: u64,
    /// Its rank in arrival order (`active` is sorted by it, so a placed job is found by
    /// binary search in `Simulation::active_rank`).
    rank: u32,
    /// Where the job sits in the live range this round (scratch; u32::MAX: not active; fewer
    /// than u32::MAX jobs: `validate`).
    slot: u32,
    scale_factor: u32,
    /// The job has a CPU/memory profile (`Job::resources`).
    profiled: bool,
    /// The job has run before (a later start on other GPUs pays the restart overhead).
    ran_before: bool,
    /// Its tenant's index in the recorder.
    tenant: u32,
}

impl HotJob {
    fn gpu_mem_mb(&self) -> Option<f64> {
        (!self.gpu_mem_mb.is_nan()).then_some(self.gpu_mem_mb)
    }
}

const _: () = assert!(std::mem::size_of::<HotJob>() == 64, "one cache line");

struct Hot {
    types: usize,
    /// rate[i * types + j]: `Job::rate`, on clusters of more than [`INLINE_RATES`] types.
    rate: Vec<f64>,
    job: Vec<HotJob>,
}

impl Hot {
    fn new(jobs: &[Job], types: usize) -> Hot {
        let rate = |job: &Job, j: usize| job.rate.get(j).copied().unwrap_or(0.0);
        Hot {
            types,
            rate: if types > INLINE_RATES {
                jobs.iter()
                    .flat_map(|job| (0..types).map(move |j| rate(job, j)))
                    .collect()
            } else {
                Vec::new()
            },
            job: jobs
                .iter()
                .map(|job| HotJob {
                    rate: std::array::from_fn(|j| if j < types { rate(job, j) } else { 0.0 }),
                    gpu_mem_mb: job.gpu_mem_mb.unwrap_or(f64::NAN),
                    placed_in: u64::MAX,
                    rank: u32::MAX,
                    slot: u32::MAX,
                    scale_factor: job.scale_factor,
                    profiled: job.resources.is_some(),
                    ran_before: false,
                    tenant: 0,
                })
                .collect(),
        }
    }

    /// Job i's rate per type.
    fn rates(&self, i: usize) -> &[f64] {
        if self.types <= INLINE_RATES {
            &self.job[i].rate[..self.types]
        } else {
            &self.rate[i * self.types..(i + 1) * self.types]
        }
    }
}

/// A simulation that runs in steps, so a caller can report progress and stop it between steps
/// (the playground's worker does).
pub struct Simulation<'a> {
    cluster: &'a Cluster,
    jobs: &'a [Job],
    config: &'a SimConfig,
    hot: Hot,
    booked: Booked,
    order: Vec<usize>,
    runnable: Vec<bool>,
    total_runnable: usize,
    recorder: Recorder,
    /// The pieces each job held last round, kept only when moving costs something
    /// (`restart_overhead_s` > 0): otherwise where a job ran before never matters.
    last_pieces: Vec<Option<GpusHeld>>,
    /// The active jobs are `active[active_start..]`, in arrival order; those before are
    /// finished ones not yet dropped (see `remove_finished`).
    active: Vec<JobState>,
    /// active_rank[k]: the arrival rank of `active[k]`'s job (increasing along the live range).
    active_rank: Vec<u32>,
    active_start: usize,
    /// The jobs placed in the last round (the only ones whose `last_pieces` may be set).
    held_last_round: Vec<usize>,
    rounds: u64,
    last_round: Vec<Ran>,
    next: usize,
    t: f64,
    idle_rounds: usize,
    done: usize,
    /// Runnable jobs in the measured id range not finished yet (None: no range asked for).
    measured_left: Option<usize>,
    over: bool,
}

/// GPUs left idle this round that the jobs left waiting could have taken, each on one type
/// (whichever fitting type has the most idle GPUs; a job needs its scale factor of one type, as
/// the engine places a job on one type unless the scheduler mixes). Greedy over the waiting
/// jobs in arrival order; the same measure for every scheduler, so a round mechanism that idles
/// GPUs (Gavel's, with a job's whole scale factor needed on one type) shows it too. A GPU two
/// jobs share counts once.
fn idle_gpus_a_waiting_job_fits(
    cluster: &Cluster,
    jobs: &[Job],
    live: &[JobState],
    placements: &[Placement],
) -> f64 {
    let types = cluster.types.len();
    let mut idle: Vec<f64> = (0..types)
        .map(|h| f64::from(cluster.gpus_of_type(h)))
        .collect();
    for p in placements {
        let weight = if p.sharing.is_some() { 0.5 } else { 1.0 };
        for piece in &p.pieces {
            idle[cluster.servers[piece.server].gpu_type] -= weight * piece.gpus.len() as f64;
        }
    }
    if idle.iter().all(|&g| g < 1.0 - 1e-9) {
        return 0.0;
    }
    let mut placed: Vec<usize> = placements.iter().map(|p| p.job).collect();
    sort_indices_by(&mut placed, &|a, b| a.cmp(&b));
    let mut taken = 0.0;
    for state in live {
        if placed.binary_search(&state.job).is_ok() {
            continue;
        }
        let job = &jobs[state.job];
        let n = f64::from(job.scale_factor);
        let best = (0..types)
            .filter(|&h| job.rate[h] > 0.0 && job.fits_alone(cluster, h))
            .filter(|&h| idle[h] >= n - 1e-9)
            .max_by(|&a, &b| idle[a].total_cmp(&idle[b]).then(b.cmp(&a)));
        if let Some(h) = best {
            idle[h] -= n;
            taken += n;
            if idle.iter().all(|&g| g < 1.0 - 1e-9) {
                break;
            }
        }
    }
    taken
}

impl<'a> Simulation<'a> {
    pub fn new(
        cluster: &'a Cluster,
        jobs: &'a [Job],
        config: &'a SimConfig,
        scheduler: &dyn Scheduler,
    ) -> Result<Simulation<'a>, SimError> {
        validate(cluster, jobs, config)?;
        let mut order: Vec<usize> = (0..jobs.len()).collect();
        sort_indices_by(&mut order, &|a, b| {
            jobs[a]
                .arrival
                .total_cmp(&jobs[b].arrival)
                .then(jobs[a].id.cmp(&jobs[b].id))
        });
        let recorder = Recorder::new(cluster, jobs, config.gantt_max_jobs);
        let mut hot = Hot::new(jobs, cluster.types.len());
        for (rank, &i) in order.iter().enumerate() {
            hot.job[i].rank = rank as u32; // fewer than u32::MAX jobs: `validate`
            hot.job[i].tenant = recorder.tenant_of(i) as u32; // tenants <= jobs
        }
        let runnable: Vec<bool> = jobs
            .iter()
            .map(|j| scheduler.can_run(j, cluster, config.mixed_rate))
            .collect();
        // An empty measured range stops nothing (the run goes on to the last job).
        let measured_left = config.measure_ids.and_then(|(from, to)| {
            let n = jobs
                .iter()
                .zip(&runnable)
                .filter(|(j, r)| **r && (from..to).contains(&j.id))
                .count();
            (n > 0).then_some(n)
        });
        Ok(Simulation {
            cluster,
            jobs,
            config,
            hot,
            booked: Booked::new(cluster),
            order,
            total_runnable: runnable.iter().filter(|&&r| r).count(),
            runnable,
            recorder,
            last_pieces: if config.restart_overhead_s > 0.0 {
                vec![None; jobs.len()]
            } else {
                Vec::new()
            },
            active: Vec::new(),
            active_rank: Vec::new(),
            active_start: 0,
            held_last_round: Vec::new(),
            rounds: 0,
            last_round: Vec::new(),
            next: 0,
            t: 0.0,
            idle_rounds: 0,
            done: 0,
            measured_left,
            over: false,
        })
    }

    /// The active jobs, in arrival order.
    fn live(&self) -> &[JobState] {
        &self.active[self.active_start..]
    }

    /// Takes the finished jobs (indices into [`Self::live`]) out of the active ones, keeping
    /// arrival order. Whichever side of the finished jobs is shorter moves over the gaps: the
    /// survivors before the last finished job move towards the back (the live range starts
    /// later), or those after the first move towards the front (it ends earlier). The cost
    /// follows where the finished jobs sat, not how many jobs wait (under fifo they are the
    /// oldest; under LAS often the newest).
    fn remove_finished(&mut self, finished: &[usize]) {
        let (Some(&first), Some(&last)) = (finished.iter().min(), finished.iter().max()) else {
            return;
        };
        self.done += finished.len();
        let start = self.active_start;
        let (live, rank) = (&mut self.active[start..], &mut self.active_rank[start..]);
        let mut gone = vec![false; last - first + 1];
        for &k in finished {
            gone[k - first] = true;
        }
        if last < live.len() - first {
            let mut write = last;
            for read in (0..=last).rev() {
                if read < first || !gone[read - first] {
                    live[write] = live[read];
                    rank[write] = rank[read];
                    write = write.wrapping_sub(1);
                }
            }
            self.active_start += finished.len();
        } else {
            let mut write = first;
            for read in first..live.len() {
                if read > last || !gone[read - first] {
                    live[write] = live[read];
                    rank[write] = rank[read];
                    write += 1;
                }
            }
            self.active.truncate(start + write);
            self.active_rank.truncate(start + write);
        }
        // Finished jobs may sit before the live range; drop them once they are half of it.
        if self.active_start > self.active.len() / 2 {
            self.active.drain(..self.active_start);
            self.active_rank.drain(..self.active_start);
            self.active_start = 0;
        }
    }

    /// Sets each placed job's `slot` (u32::MAX: not active): the placed jobs' ranks, sorted,
    /// are merged into the live range's, galloping over the gaps, so a round costs about
    /// (placements x log of the gap between them) and reads the ranks in order. Returns each
    /// placement's steps left (NaN if not active), read here, in the live range's order, so
    /// that the round's later reads of those jobs' states find them in cache.
    fn find_slots(&mut self, placements: &[Placement]) -> Vec<f64> {
        let live = &self.active_rank[self.active_start..];
        let states = &self.active[self.active_start..];
        let mut remaining = vec![f64::NAN; placements.len()];
        // (rank, index into `placements`), sorted by rank.
        let mut wanted: Vec<(u32, u32)> = placements
            .iter()
            .enumerate()
            .filter_map(|(k, p)| Some((self.hot.job.get(p.job)?.rank, k as u32)))
            .collect();
        radix_sort_by_first(&mut wanted, self.jobs.len());
        let mut at = 0;
        for (rank, k) in wanted {
            let k = k as usize;
            // The first position from `at` on whose rank is >= `rank`.
            let mut step = 1;
            while at + step < live.len() && live[at + step] < rank {
                step *= 2;
            }
            let (from, to) = (at + step / 2, (at + step + 1).min(live.len()));
            at = from + live[from.min(to)..to].partition_point(|&r| r < rank);
            self.hot.job[placements[k].job].slot = if live.get(at) == Some(&rank) {
                remaining[k] = states[at].remaining_steps;
                at as u32 // fewer than u32::MAX jobs: `validate`
            } else {
                u32::MAX
            };
        }
        remaining
    }

    /// (jobs finished, jobs that can run).
    pub fn progress(&self) -> (usize, usize) {
        (self.done, self.total_runnable)
    }

    /// Runs up to `rounds` rounds; true once every runnable job has finished.
    pub fn step(&mut self, scheduler: &mut dyn Scheduler, rounds: usize) -> Result<bool, SimError> {
        for _ in 0..rounds {
            if self.over || !self.round(scheduler)? {
                self.over = true;
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The result so far (complete once `step` has returned true), with the scheduler's name
    /// and notes.
    pub fn finish(self, scheduler: &dyn Scheduler) -> SimResult {
        let mut result = self.recorder.result(
            scheduler.name(),
            self.cluster,
            self.jobs,
            &self.runnable,
            self.config.measure_ids,
        );
        result.notes = scheduler.notes();
        result.parties = scheduler.parties(self.config.share_among);
        result.tenant_fairness = scheduler.tenant_fairness();
        result
    }

    /// Admits arrivals and runs one round; false when there is nothing left to do.
    fn round(&mut self, scheduler: &mut dyn Scheduler) -> Result<bool, SimError> {
        let (cluster, jobs, config) = (self.cluster, self.jobs, self.config);
        if self.measured_left == Some(0) {
            return Ok(false);
        }
        let t = self.t;
        self.admit_arrivals();
        if self.live().is_empty() {
            return Ok(match self.order.get(self.next) {
                Some(&i) => {
                    self.t = jobs[i].arrival;
                    true
                }
                None => false,
            });
        }
        let view = RoundView {
            now: t,
            round_s: config.round_s,
            cluster,
            jobs,
            active: &self.active[self.active_start..],
            last_round: &self.last_round,
            mixed_rate: config.mixed_rate,
        };
        let mut placements = scheduler.schedule(&view)?;
        account_proportional_share(cluster, &mut placements);
        self.rounds += 1;
        // Where each placed job sits in the live range (u32::MAX: not active).
        let remaining = self.find_slots(&placements);
        check_placements(
            (cluster, jobs),
            (&mut self.hot, &mut self.booked),
            &self.active[self.active_start..],
            self.rounds,
            &placements,
        )?;
        let runs = self.planned_runs(&placements, &remaining);
        let end = self.round_end(&runs)?;
        self.recorder.contention(t, end, self.live().len());
        let idle = idle_gpus_a_waiting_job_fits(cluster, jobs, self.live(), &placements);
        self.recorder.idle_while_waiting(idle * (end - t));
        let placed_now: Vec<usize> = if self.last_pieces.is_empty() {
            Vec::new()
        } else {
            placements.iter().map(|p| p.job).collect()
        };
        let finished = self.run_placements(placements, runs, end);
        self.release_unplaced(placed_now);
        self.remove_finished(&finished);
        self.t = end;
        Ok(true)
    }

    /// Jobs arrived by now join the active ones (those that can run somewhere).
    fn admit_arrivals(&mut self) {
        let jobs = self.jobs;
        while self.next < self.order.len() && jobs[self.order[self.next]].arrival <= self.t {
            let i = self.order[self.next];
            if self.runnable[i] {
                self.recorder.admit(i);
                self.active_rank.push(self.hot.job[i].rank);
                self.active.push(JobState {
                    job: i,
                    remaining_steps: jobs[i].total_steps,
                    attained_gpu_s: 0.0,
                });
            }
            self.next += 1;
        }
    }

    /// Each placement's run: its job's slot, its rate, its overhead (a restart after moving, a
    /// sync across copies), and when it would finish if the round were long enough.
    fn planned_runs(&self, placements: &[Placement], remaining: &[f64]) -> Vec<Run> {
        let (cluster, jobs, config) = (self.cluster, self.jobs, self.config);
        let mut runs = Vec::with_capacity(placements.len());
        for (k, p) in placements.iter().enumerate() {
            let hot = &self.hot;
            let job = &hot.job[p.job];
            let state = job.slot as usize;
            let rate = placement_rate(
                cluster,
                (
                    hot.rates(p.job),
                    job.scale_factor,
                    job.profiled.then(|| &jobs[p.job]),
                ),
                p,
                config.mixed_rate,
            );
            // `last_pieces` is kept only when the overhead is not 0.
            let moved = || self.last_pieces[p.job].as_ref() != Some(&p.pieces);
            let mut overhead = if config.restart_overhead_s > 0.0 && job.ran_before && moved() {
                config.restart_overhead_s
            } else {
                0.0
            };
            if copies(p) > 1 {
                overhead += config.sync_overhead_s;
            }
            let finish = self.t + overhead + remaining[k] / rate;
            runs.push((state, rate, overhead, finish));
        }
        runs
    }

    /// When the round ends: at its length, or when its last run finishes if sooner. A round
    /// with nothing placed counts toward the stall limit.
    fn round_end(&mut self, runs: &[Run]) -> Result<f64, SimError> {
        let (t, config) = (self.t, self.config);
        if runs.is_empty() {
            self.idle_rounds += 1;
            if self.idle_rounds > config.max_idle_rounds {
                return Err(SimError::Stalled(format!(
                    "{} jobs waited {} rounds with none placed (at t = {t:.0} s)",
                    self.live().len(),
                    config.max_idle_rounds
                )));
            }
            return Ok(t + config.round_s);
        }
        self.idle_rounds = 0;
        let last_finish = runs.iter().map(|r| r.3).fold(f64::NEG_INFINITY, f64::max);
        Ok(last_finish.min(t + config.round_s))
    }

    /// Runs each placement until `end`: what each job ran on, its steps and GPU-seconds, and
    /// its finish; returns the slots of the jobs that finished.
    fn run_placements(
        &mut self,
        placements: Vec<Placement>,
        runs: Vec<Run>,
        end: f64,
    ) -> Vec<usize> {
        let (cluster, jobs, config, t) = (self.cluster, self.jobs, self.config, self.t);
        let mut finished = Vec::new();
        self.last_round.clear();
        for (p, (state, rate, overhead, finish)) in placements.into_iter().zip(runs) {
            let held_until = finish.min(end);
            let done = finish <= end + 1e-9;
            // One entry per (job, type); a job is placed once a round, so only its own entries
            // (the last ones pushed) need looking at.
            let own = self.last_round.len();
            for piece in &p.pieces {
                let gpu_type = cluster.servers[piece.server].gpu_type;
                if !self.last_round[own..]
                    .iter()
                    .any(|r| r.gpu_type == gpu_type)
                {
                    self.last_round.push(Ran {
                        job: p.job,
                        gpu_type,
                        seconds: held_until - t,
                        finished: done,
                    });
                }
            }
            let ran = (held_until - t - overhead).max(0.0);
            let s = &mut self.active[self.active_start + state];
            let gpus: usize = p.pieces.iter().map(|x| x.gpus.len()).sum();
            s.attained_gpu_s += gpus as f64 * (held_until - t);
            let steps = if done {
                s.remaining_steps
            } else {
                (rate * ran).min(s.remaining_steps)
            };
            self.recorder.worked(p.job, steps);
            if done {
                s.remaining_steps = 0.0;
                self.recorder.finish(p.job, finish);
                if let (Some(left), Some((from, to))) =
                    (&mut self.measured_left, config.measure_ids)
                {
                    if (from..to).contains(&jobs[p.job].id) {
                        *left = left.saturating_sub(1);
                    }
                }
                finished.push(state);
            } else {
                s.remaining_steps = (s.remaining_steps - rate * ran).max(0.0);
            }
            let job = &mut self.hot.job[p.job];
            self.recorder
                .held((cluster, jobs), &p, job.tenant as usize, t, held_until);
            if !job.ran_before {
                self.recorder.start(p.job, t);
            }
            job.ran_before = true;
            if let Some(held) = self.last_pieces.get_mut(p.job) {
                *held = Some(p.pieces);
            }
        }
        finished
    }

    /// Jobs placed last round but not this one lose their GPUs (a later start elsewhere pays
    /// the overhead); only they can hold any.
    fn release_unplaced(&mut self, placed_now: Vec<usize>) {
        if self.last_pieces.is_empty() {
            return;
        }
        for &job in &self.held_last_round {
            if self.hot.job[job].placed_in != self.rounds {
                self.last_pieces[job] = None;
            }
        }
        self.held_last_round = placed_now;
    }
}

/// A placement's run in a round: its job's slot in the live range, its rate, its overhead in
/// seconds, and when it would finish.
type Run = (usize, f64, f64, f64);

#[cfg(test)]
mod tests {
    use super::radix_sort_by_first;
    use rand::{Rng, SeedableRng};

    /// Against the standard library's stable sort, on bounds of one, two and three passes.
    #[test]
    fn radix_sort_orders_pairs_by_first_keeping_ties_in_order() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for bound in [1usize, 2, 100, 2048, 2049, 100_000, 5_000_000] {
            for n in [0usize, 1, 5, 1000] {
                let pairs: Vec<(u32, u32)> = (0..n)
                    .map(|k| (rng.random_range(0..bound) as u32, k as u32))
                    .collect();
                let mut expected = pairs.clone();
                expected.sort_by_key(|p| p.0);
                let mut got = pairs;
                radix_sort_by_first(&mut got, bound);
                assert_eq!(got, expected, "bound {bound}, {n} pairs");
                // Already in order (ties included): unchanged.
                radix_sort_by_first(&mut got, bound);
                assert_eq!(got, expected, "bound {bound}, {n} sorted pairs");
            }
        }
    }
}
