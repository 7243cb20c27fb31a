//! Hadar (Sultana et al., IPDPS 2024) and HadarE (arXiv 2503.10918).
//!
//! **Hadar** places a job's workers on several GPU types at once (task-level heterogeneity) and
//! decides in space and time with an online primal-dual algorithm. Neither paper's body nor code
//! is public; this follows the template in BACKGROUND.md, and every choice the papers leave open
//! is stated here (and in docs/simulator.md):
//! - *Slots* are the simulator's rounds (`--round`, 360 s as Gavel), slot 0 the round being
//!   planned; the plan looks [`DEFAULT_HORIZON`] slots ahead (two hours at 360 s: long enough for
//!   a job to choose between starting now on a slow type and waiting a few rounds for a fast
//!   one, short enough that prices of far-off slots, which re-planning revises anyway, do not
//!   dominate).
//! - *Prices* `p_h^t = L (U/L)^(g/C_h)` per GPU of type h in slot t (see [`prices`]); U = 1, the
//!   utility per GPU-slot of a job starting now on its fastest placement; L from the jobs
//!   active this round so that on an idle cluster every job is admitted
//!   ([`prices::lower_bound`]).
//! - *Utility* of a job finishing at slot c: `n D*^2 / c`, D* its remaining work in slots at its
//!   fastest placement: decreasing in completion time, equal per GPU-slot for all jobs at
//!   their best, so jobs compete on how well they use each type; the whole remaining work is
//!   valued, also for a job that outlives the horizon, its slots past it priced at the
//!   horizon's last slot (see [`prices`]).
//! - *Schedules*: a start slot and one composition (GPUs per type, summing to the job's scale
//!   factor: `sum_h y_jh^t in {0, n_j}`) held until the job finishes.
//! - *Dual step*: each job in turn gets the schedule maximising utility minus priced cost; it
//!   is admitted when that surplus is positive and its GPUs are committed, raising the prices
//!   for the jobs after it. The turn order is shortest remaining time (at the job's fastest
//!   placement) first ([`Order::ShortestFirst`]): the papers aim at total and average
//!   completion time, and re-running the online arrival order every round
//!   ([`Order::Arrival`], `hadar:arrival`) is FIFO with preemption only by price, which on
//!   Gavel's workload gives ~3x the average JCT of gavel-las, the opposite of Hadar's claim of
//!   2.5x better; both are kept so the difference can be seen. Those whose schedule starts in slot
//!   0 run this round; the rest wait.
//! - *Re-planning*: every round, from an empty book, with each job's remaining work (a job
//!   may so move, or be paused, between rounds, as under Gavel). Planning stops early once slot
//!   0 has no free GPU, which cannot change this round's placements.
//! - *Work conservation* (ours; nothing in the seeds says Hadar leaves GPUs idle while jobs
//!   wait): after the dual step, every GPU still free this round goes to a job not placed
//!   (deferred, refused or never reached), in turn order, each on its fastest composition of
//!   the free GPUs, mixed types allowed (`Hadar::backfill`). The prices still decide who runs
//!   where first and may defer a job to a later slot; they never leave a GPU idle now that a
//!   waiting job could use. `hadar:strict` (and `hadare:strict`, `hadar:arrival:strict`) is the
//!   template without it, kept for comparison: with the utility `n D*^2 / c` a slow type is
//!   worth almost nothing, so the strict template idles slow GPUs while jobs wait. The run's
//!   notes say how many GPU-hours each placed.
//! - GPUs of a type are packed as Gavel does ([`crate::pool::GpuPool::take`]).
//!
//! The engine rates a mixed placement by `--mixed-rate` ([`crate::mixed`]); the planner prices
//! compositions at that same rule.
//!
//! **HadarE** runs Hadar's plan, then forks: each server left with enough free GPUs for one
//! copy of a running job gets one, the job with the longest estimated remaining time first, on
//! the fastest type it can use there. A copy holds the job's scale factor in GPUs on one server;
//! no server holds two copies of a job; the copies' progress adds up, less the engine's
//! synchronisation overhead per round (`--sync-overhead`), and a job is forked only when its two
//! copies beat the one after that overhead. Forking comes after the backfill, so a waiting job
//! that fits the free GPUs gets its first copy there before running jobs get more copies
//! (`hadare:strict`: no backfill, copies of admitted jobs only).

pub mod prices;

use crate::mixed::MixedRate;
use crate::model::{Cluster, Job, SimError};
use crate::pool::GpuPool;
use crate::schedulers::{Placement, RoundView, Scheduler};
use fairground_core::order::sort_indices_by;
use prices::{
    best_plan, compositions, lower_bound, outlives_horizon, refused_however_long, Offer, PriceBook,
};
use std::collections::HashMap;

/// Slots Hadar plans ahead.
pub const DEFAULT_HORIZON: usize = 20;
/// Copies of one job, at most (the engine's limit).
const MAX_COPIES: u32 = 64;

#[derive(Debug, Default, Clone)]
struct Stats {
    rounds: u64,
    started: u64,
    deferred: u64,
    refused: u64,
    forked_job_rounds: u64,
    most_copies: u32,
    /// GPU-seconds (GPUs x round length) placed by the price admission and by the backfill.
    admitted_gpu_s: f64,
    backfilled_gpu_s: f64,
    backfilled: u64,
    /// Jobs (kinds) planned over only the first [`prices::MAX_COMPOSITIONS`] compositions.
    capped_jobs: u64,
    lower: Option<(f64, f64)>,
}

/// The order in which jobs take their dual step each round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    ShortestFirst,
    Arrival,
}

pub struct Hadar {
    fork: bool,
    order: Order,
    /// The template alone (`hadar:strict`): no backfill of GPUs the prices left idle.
    strict: bool,
    horizon: usize,
    sync_overhead_s: f64,
    /// What never changes about a job on this cluster, by job index (filled as jobs arrive).
    known: Vec<Option<Known>>,
    /// Distinct composition lists, and where each (scale factor, usable types) has its own.
    compositions: Vec<Vec<Vec<u32>>>,
    composition_index: HashMap<(u32, Vec<bool>), usize>,
    /// Jobs with the same rates and scale factor share a class (and a quick-refusal verdict).
    class_index: HashMap<(u32, Vec<u64>), usize>,
    capacity: Vec<u32>,
    /// Last round's turn order, by job index.
    last_turns: Vec<usize>,
    /// Scratch: each active job's index in the round's active list (usize::MAX otherwise).
    slot: Vec<usize>,
    stats: Stats,
}

impl Hadar {
    /// The order the active jobs take their turns in (their positions in `view.active`): by
    /// arrival, or shortest remaining time first.
    fn turns(&mut self, view: &RoundView, known: &[Known]) -> Vec<usize> {
        match self.order {
            Order::Arrival => (0..view.active.len()).collect(),
            Order::ShortestFirst => {
                let left: Vec<f64> = view
                    .active
                    .iter()
                    .zip(known)
                    .map(|(s, j)| s.remaining_steps / j.best_rate.max(f64::MIN_POSITIVE))
                    .collect();
                // Start from last round's order (few jobs' remaining times change in a round)
                // with new jobs after it: the stable sort then finds long sorted runs, so a
                // queue of thousands costs about one pass. The key (time left, then arrival) is
                // total, so the order is the same as sorting from scratch.
                let slot = &mut self.slot;
                slot.resize(view.jobs.len(), usize::MAX);
                for (k, s) in view.active.iter().enumerate() {
                    slot[s.job] = k;
                }
                let mut placed = vec![false; view.active.len()];
                let mut turns: Vec<usize> = Vec::with_capacity(view.active.len());
                for &job in &self.last_turns {
                    if let Some(&k) = slot.get(job).filter(|&&k| k != usize::MAX) {
                        placed[k] = true;
                        turns.push(k);
                    }
                }
                turns.extend((0..view.active.len()).filter(|&k| !placed[k]));
                for s in view.active {
                    slot[s.job] = usize::MAX;
                }
                sort_indices_by(&mut turns, &|a, b| {
                    left[a].total_cmp(&left[b]).then(a.cmp(&b))
                });
                self.last_turns = turns.iter().map(|&k| view.active[k].job).collect();
                turns
            }
        }
    }

    /// Hadar (`fork` false) or HadarE (`fork` true), planning `horizon` slots ahead;
    /// `sync_overhead_s` is the engine's, for HadarE's decision to fork.
    pub fn new(fork: bool, order: Order, horizon: usize, sync_overhead_s: f64) -> Hadar {
        Hadar {
            fork,
            order,
            strict: false,
            horizon: horizon.max(1),
            sync_overhead_s,
            known: Vec::new(),
            compositions: Vec::new(),
            composition_index: HashMap::new(),
            class_index: HashMap::new(),
            capacity: Vec::new(),
            last_turns: Vec::new(),
            slot: Vec::new(),
            stats: Stats::default(),
        }
    }

    /// Without the backfill: GPUs the prices leave idle stay idle (the template alone).
    pub fn strict(mut self, on: bool) -> Hadar {
        self.strict = on;
        self
    }

    /// `hadar`, `hadare`, each with an optional `:arrival` and then an optional `:strict` (None:
    /// not one of these names).
    pub fn parse(name: &str, sync_overhead_s: f64) -> Option<Hadar> {
        let mut parts = name.split(':');
        let fork = match parts.next()? {
            "hadar" => false,
            "hadare" => true,
            _ => return None,
        };
        let (mut order, mut strict) = (Order::ShortestFirst, false);
        let mut next = parts.next();
        if next == Some("arrival") {
            order = Order::Arrival;
            next = parts.next();
        }
        if next == Some("strict") {
            strict = true;
            next = parts.next();
        }
        if next.is_some() {
            return None;
        }
        Some(Hadar::new(fork, order, DEFAULT_HORIZON, sync_overhead_s).strict(strict))
    }

    /// The job's [`Known`] facts, computed on first sight.
    fn known(&mut self, job_index: usize, job: &Job, cluster: &Cluster, rule: MixedRate) -> Known {
        if self.known.len() <= job_index {
            self.known.resize(job_index + 1, None);
        }
        if let Some(k) = self.known[job_index] {
            return k;
        }
        let usable: Vec<bool> = (0..cluster.types.len())
            .map(|h| job.rate[h] > 0.0 && job.fits_alone(cluster, h))
            .collect();
        let (lo, hi) = job
            .rate
            .iter()
            .zip(&usable)
            .filter(|(_, u)| **u)
            .fold((f64::INFINITY, 0.0_f64), |(lo, hi), (r, _)| {
                (lo.min(*r), hi.max(*r))
            });
        let key = (job.scale_factor, usable);
        let compositions = match self.composition_index.get(&key) {
            Some(&i) => i,
            None => {
                let (all, cut) = compositions(key.0, &key.1, &self.capacity);
                if cut {
                    self.stats.capped_jobs += 1;
                }
                self.compositions.push(all);
                self.composition_index
                    .insert(key, self.compositions.len() - 1);
                self.compositions.len() - 1
            }
        };
        let classes = self.class_index.len();
        let class = *self
            .class_index
            .entry((
                job.scale_factor,
                job.rate.iter().map(|r| r.to_bits()).collect(),
            ))
            .or_insert(classes);
        let k = Known {
            class,
            compositions,
            ratio: if hi > 0.0 { lo / hi } else { 1.0 },
            best_rate: rule.best_rate(job, cluster),
        };
        self.known[job_index] = Some(k);
        k
    }
}

/// What never changes about a job on one cluster.
#[derive(Debug, Clone, Copy)]
struct Known {
    /// Jobs with the same rates and scale factor.
    class: usize,
    /// Index into `Hadar::compositions`.
    compositions: usize,
    /// Its slowest usable type's rate over its fastest's.
    ratio: f64,
    /// Its fastest placement's rate (mixing types if it must).
    best_rate: f64,
}

/// A job placed this round, as HadarE forks it.
struct Running {
    placement: usize,
    remaining_steps: f64,
    rate: f64,
    copies: u32,
    servers: Vec<usize>,
}

impl Hadar {
    /// HadarE's forking: copies of running jobs onto servers with room, longest remaining
    /// time first.
    fn fork_copies(
        &mut self,
        view: &RoundView,
        pool: &mut GpuPool,
        placements: &mut [Placement],
        running: &mut [Running],
    ) {
        let cluster = view.cluster;
        let (round, sync) = (view.round_s, self.sync_overhead_s);
        loop {
            let mut pick: Option<(f64, usize, usize)> = None; // (remaining time, running, server)
            for (k, r) in running.iter().enumerate() {
                if r.copies >= MAX_COPIES {
                    continue;
                }
                let job = &view.jobs[placements[r.placement].job];
                let server = (0..cluster.servers.len())
                    .filter(|&s| {
                        let h = cluster.servers[s].gpu_type;
                        pool.free_on_server(s) >= job.scale_factor
                            && job.rate[h] > 0.0
                            && job.fits_alone(cluster, h)
                            && !r.servers.contains(&s)
                    })
                    .max_by(|&a, &b| {
                        let (ha, hb) = (cluster.servers[a].gpu_type, cluster.servers[b].gpu_type);
                        job.rate[ha]
                            .total_cmp(&job.rate[hb])
                            .then(pool.free_on_server(b).cmp(&pool.free_on_server(a)))
                            .then(b.cmp(&a))
                    });
                let Some(s) = server else { continue };
                let gain = job.rate[cluster.servers[s].gpu_type];
                // Every copy loses `sync` seconds of each round once the job is forked.
                let now = r.rate * (round - if r.copies > 1 { sync } else { 0.0 });
                if (r.rate + gain) * (round - sync) <= now {
                    continue;
                }
                let left = r.remaining_steps / r.rate;
                if pick.is_none_or(|(t, _, _)| left > t) {
                    pick = Some((left, k, s));
                }
            }
            let Some((_, k, s)) = pick else { break };
            let r = &mut running[k];
            let p = &mut placements[r.placement];
            let n = view.jobs[p.job].scale_factor;
            let Some(piece) = pool.take_on_server(s, n, r.copies) else {
                break;
            };
            p.pieces.push(piece);
            r.rate += view.jobs[p.job].rate[cluster.servers[s].gpu_type];
            r.copies += 1;
            r.servers.push(s);
        }
        for r in running.iter() {
            if r.copies > 1 {
                self.stats.forked_job_rounds += 1;
                self.stats.most_copies = self.stats.most_copies.max(r.copies);
            }
        }
    }
}

impl Hadar {
    /// Work conservation: GPUs still free after the dual step go to jobs not placed this round
    /// (deferred, refused, or never reached), in turn order, each on its fastest composition
    /// (mixed types allowed) of the free GPUs. The prices may defer a job to a later slot; they
    /// never leave a GPU idle now that a waiting job could use. A job that fits nowhere is
    /// passed over, so a smaller one behind it can still take what is left.
    #[allow(clippy::too_many_arguments)]
    fn backfill(
        &mut self,
        view: &RoundView,
        known: &[Known],
        turns: &[usize],
        placed: &[bool],
        pool: &mut GpuPool,
        placements: &mut Vec<Placement>,
        running: &mut Vec<Running>,
    ) {
        let types = view.cluster.types.len();
        for &k in turns {
            if pool.is_empty() {
                break;
            }
            if placed[k] {
                continue;
            }
            let state = &view.active[k];
            let job = &view.jobs[state.job];
            let free: Vec<u32> = (0..types).map(|h| pool.free_on_type(h)).collect();
            // Cheap first: the free GPUs of the types it can use must add up to its size.
            let usable: u32 = (0..types)
                .filter(|&h| job.rate[h] > 0.0)
                .map(|h| free[h])
                .sum();
            if usable < job.scale_factor {
                continue;
            }
            let comps = &self.compositions[known[k].compositions];
            let best = comps
                .iter()
                .filter(|y| y.iter().zip(&free).all(|(g, f)| g <= f))
                .map(|y| (view.mixed_rate.rate_of(&job.rate, job.scale_factor, y), y))
                .filter(|(rate, _)| *rate > 0.0)
                .fold(None::<(f64, &Vec<u32>)>, |best, (rate, y)| match best {
                    Some((r, _)) if r >= rate => best,
                    _ => Some((rate, y)),
                });
            let Some((rate, y)) = best else { continue };
            let mut pieces = Vec::new();
            for (h, &g) in y.iter().enumerate() {
                if g > 0 {
                    // Fits: g <= the type's free GPUs, which is all `take` needs.
                    pieces.extend(pool.take(h, g).unwrap_or_default());
                }
            }
            self.stats.backfilled += 1;
            self.stats.backfilled_gpu_s += f64::from(job.scale_factor) * view.round_s;
            running.push(Running {
                placement: placements.len(),
                remaining_steps: state.remaining_steps,
                rate,
                copies: 1,
                servers: pieces.iter().map(|p| p.server).collect(),
            });
            placements.push(Placement::exclusive(state.job, pieces));
        }
    }
}

impl Scheduler for Hadar {
    fn name(&self) -> String {
        let mut name = String::from(if self.fork { "hadare" } else { "hadar" });
        if self.order == Order::Arrival {
            name.push_str(":arrival");
        }
        if self.strict {
            name.push_str(":strict");
        }
        name
    }

    fn can_run(&self, job: &Job, cluster: &Cluster, rule: MixedRate) -> bool {
        rule.best_rate(job, cluster) > 0.0
    }

    fn schedule(&mut self, view: &RoundView) -> Result<Vec<Placement>, SimError> {
        let cluster = view.cluster;
        let capacity: Vec<u32> = (0..cluster.types.len())
            .map(|h| cluster.gpus_of_type(h))
            .collect();
        if capacity != self.capacity {
            self.known.clear();
            self.compositions.clear();
            self.composition_index.clear();
            self.class_index.clear();
            self.capacity = capacity.clone();
        }
        let known: Vec<Known> = view
            .active
            .iter()
            .map(|s| self.known(s.job, &view.jobs[s.job], cluster, view.mixed_rate))
            .collect();
        let lower = lower_bound(known.iter().map(|k| k.ratio), self.horizon);
        let seen = self.stats.lower.get_or_insert((lower, lower));
        *seen = (seen.0.min(lower), seen.1.max(lower));
        let turns = self.turns(view, &known);
        let mut book = PriceBook::new(capacity.clone(), self.horizon, lower);
        let mut pool = GpuPool::new(cluster);
        let mut placements = Vec::new();
        let mut running = Vec::new();
        self.stats.rounds += 1;
        let mut refused = vec![false; self.class_index.len()];
        let mut placed = vec![false; view.active.len()];
        for &k in &turns {
            if book.free_now() == 0 {
                break;
            }
            let state = &view.active[k];
            let job = &view.jobs[state.job];
            let comps = &self.compositions[known[k].compositions];
            let offer = Offer {
                scale_factor: job.scale_factor,
                rate: &job.rate,
                remaining_steps: state.remaining_steps,
                slot_s: view.round_s,
                rule: view.mixed_rate,
                best_rate: known[k].best_rate,
                compositions: comps,
            };
            // Commits only raise prices and fill slots, so a class refused however long stays
            // refused for the rest of the round.
            let long = outlives_horizon(&book, &offer);
            let class = known[k].class;
            if long && (refused[class] || refused_however_long(&book, &offer)) {
                refused[class] = true;
                self.stats.refused += 1;
                continue;
            }
            let Some(plan) = best_plan(&book, &offer) else {
                self.stats.refused += 1;
                continue;
            };
            book.commit(&plan);
            if plan.start > 0 {
                self.stats.deferred += 1;
                continue;
            }
            self.stats.started += 1;
            self.stats.admitted_gpu_s += f64::from(job.scale_factor) * view.round_s;
            placed[k] = true;
            let mut pieces = Vec::new();
            for (h, &g) in plan.counts.iter().enumerate() {
                if g > 0 {
                    pieces.extend(pool.take(h, g).ok_or_else(|| {
                        SimError::InvalidSchedule(format!(
                            "{}: job {} planned on {g} free {} GPUs the pool does not have",
                            self.name(),
                            job.id,
                            cluster.types[h]
                        ))
                    })?);
                }
            }
            running.push(Running {
                placement: placements.len(),
                remaining_steps: state.remaining_steps,
                rate: view
                    .mixed_rate
                    .rate_of(&job.rate, job.scale_factor, &plan.counts),
                copies: 1,
                servers: pieces.iter().map(|p| p.server).collect(),
            });
            placements.push(Placement::exclusive(state.job, pieces));
        }
        if !self.strict {
            self.backfill(
                view,
                &known,
                &turns,
                &placed,
                &mut pool,
                &mut placements,
                &mut running,
            );
        }
        if self.fork {
            self.fork_copies(view, &mut pool, &mut placements, &mut running);
        }
        Ok(placements)
    }

    fn notes(&self) -> Vec<String> {
        let s = &self.stats;
        let mut notes = vec![format!(
            "{}: {} rounds planned {} slots ahead; job plans: {} started at once, {} deferred to a later slot, {} refused (utility below the priced cost); idle-GPU price L from {:.2e} to {:.2e}",
            self.name(),
            s.rounds,
            self.horizon,
            s.started,
            s.deferred,
            s.refused,
            s.lower.map_or(0.0, |l| l.0),
            s.lower.map_or(0.0, |l| l.1),
        )];
        let hours = |gpu_s: f64| gpu_s / 3600.0;
        notes.push(if self.strict {
            format!(
                "{}: strict template, no backfill: {:.1} GPU-hours placed by the price admission \
                 (GPUs x round length)",
                self.name(),
                hours(s.admitted_gpu_s)
            )
        } else {
            format!(
                "{}: {:.1} GPU-hours placed by the price admission, {:.1} by the backfill of GPUs \
                 the prices left idle ({} job-rounds; GPUs x round length)",
                self.name(),
                hours(s.admitted_gpu_s),
                hours(s.backfilled_gpu_s),
                s.backfilled
            )
        });
        if s.capped_jobs > 0 {
            notes.push(format!(
                "{}: {} kind(s) of job had more ways to spread their GPUs over the types than the {} planned over",
                self.name(),
                s.capped_jobs,
                prices::MAX_COMPOSITIONS
            ));
        }
        if self.fork {
            notes.push(format!(
                "hadare: {} job-rounds ran as two or more copies (at most {} copies of one job)",
                s.forked_job_rounds, s.most_copies
            ));
        }
        notes
    }
}
