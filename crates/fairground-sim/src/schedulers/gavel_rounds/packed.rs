//! `gavel-las-packed`: Gavel's max-min fairness with space sharing (`max_min_fairness_packed`)
//! under Gavel's round mechanism, as its simulator runs it (`scheduler.py` with a policy whose
//! name has "Packing"; read for this port).
//!
//! Gavel schedules *units*: each active job alone, and each pair of active jobs of the same
//! scale factor, which runs both on the same GPUs, each at its measured co-located throughput.
//! Each unit has its own clocks, deficits and priorities, exactly as a job has in
//! [`super::book`]; a round walks each type's list of units, highest (priority, deficit, x)
//! first, and picks a unit if none of its jobs is picked yet, it can run on the type and its
//! scale factor fits. What differs from the single-job mechanism, as in Gavel's code:
//! - a pair's clock on a type starts at 0 when the pair is formed (a job's starts at the
//!   half-round credit); at every reset all units' clocks restart from the credit, and the
//!   type's total is the sum of those credits (pairs included);
//! - a pair that ran counts the longer of its two jobs' times, once, on its clock and the
//!   type's total;
//! - when a job finishes, every unit with it goes (with its clocks and deficits);
//! - the types are walked in the cluster's order, never shuffled ("Packing" policies).
//!
//! The allocation is [`fairground_core::policies::max_min_packed_interior`] (Gavel's program,
//! solved once by an interior point as ECOS solves it, crumbs included) over the active jobs and
//! every pair of them with the same scale factor that has a measured co-located throughput on
//! some type (`--throughputs` with Gavel's file): the pairs Gavel's LP gets, less those measured
//! at 0 everywhere (Gavel keeps those in its books, where they can never run or change an
//! order). The co-located throughput is the job's own rate over its measured slowdown
//! ([`crate::sharing::Interference`]), which is the measured figure. Without measurements no
//! pair is offered, and the policy is `gavel-las` through this mechanism.
//!
//! Gavel's own policy reshapes its LP's terms per job assuming every job has the same number of
//! pairs, so it fails on workloads that mix scale factors (checked on its sample traces: every
//! trace but medium_test); this port has no such limit. The program has a variable per pair and
//! type: 100 active jobs make about 15,000 and a solve of about 0.1 s, and it grows with the
//! square of the active jobs, so this policy is for traces of up to a few hundred concurrent jobs.

use super::super::{Placement, RoundView, Scheduler, Sharing};
use super::{instance_over, per_gpu_rates, snap};
use crate::error::SimError;
use crate::pool::GpuPool;
use crate::sharing::Interference;
use fairground_core::order::sort_indices_by;
use fairground_core::policies::{max_min_packed_interior, CoLocation};
use fairground_core::Tenant;
use std::collections::BTreeMap;

/// A job alone, or two jobs (earlier arrival first) on the same GPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Unit {
    Alone(usize),
    Pair(usize, usize),
}

impl Unit {
    fn jobs(self) -> impl Iterator<Item = usize> {
        let (a, b) = match self {
            Unit::Alone(a) => (a, None),
            Unit::Pair(a, b) => (a, Some(b)),
        };
        std::iter::once(a).chain(b)
    }
}

/// A unit's bookkeeping (see [`super::book`] for the meaning of each figure).
#[derive(Debug, Clone)]
struct Clocks {
    /// When the unit was formed: Gavel's lists break ties in that order (its dicts').
    seq: u64,
    job_time: Vec<f64>,
    deficit: Vec<f64>,
    /// Per type: the throughput of each of its jobs there (a pair's co-located ones), for the
    /// "cannot run there" test.
    rates: Vec<(f64, f64)>,
    /// Per type, for a pair: each job's slowdown next to the other.
    slowdown: Vec<(f64, f64)>,
    scale_factor: u32,
}

pub struct GavelPacked {
    interval: f64,
    interference: Interference,
    credit: f64,
    units: BTreeMap<Unit, Clocks>,
    /// x per unit over the cluster's types, for the units present at the last recomputation.
    x: BTreeMap<Unit, Vec<f64>>,
    worker_time: Vec<f64>,
    last_reset: f64,
    active_changed: bool,
    last_arrival: f64,
    next_seq: u64,
    /// Jobs that have clocks.
    known: Vec<bool>,
    /// What this scheduler ran in the round before: (unit, type).
    ran: Vec<(Unit, usize)>,
    /// Job-rounds run sharing a GPU, and alone.
    shared_runs: usize,
    alone_runs: usize,
    started: bool,
}

impl GavelPacked {
    pub fn new(reallocation_interval_s: f64, interference: Interference) -> GavelPacked {
        GavelPacked {
            interval: reallocation_interval_s,
            interference,
            credit: 0.0,
            units: BTreeMap::new(),
            x: BTreeMap::new(),
            worker_time: Vec::new(),
            last_reset: 0.0,
            active_changed: false,
            last_arrival: 0.0,
            next_seq: 0,
            known: Vec::new(),
            ran: Vec::new(),
            shared_runs: 0,
            alone_runs: 0,
            started: false,
        }
    }

    fn form(&mut self, unit: Unit, clocks_from: f64, view: &RoundView) {
        let cluster = view.cluster;
        let types = cluster.types.len();
        let (rates, slowdown, scale_factor) = match unit {
            Unit::Alone(i) => {
                let job = &view.jobs[i];
                let rates = job.rate.iter().map(|&r| (r, r)).collect();
                (rates, vec![(1.0, 1.0); types], job.scale_factor)
            }
            Unit::Pair(a, b) => {
                let (ja, jb) = (&view.jobs[a], &view.jobs[b]);
                let sf = ja.scale_factor;
                let mut rates = Vec::with_capacity(types);
                let mut slowdown = Vec::with_capacity(types);
                for (j, name) in cluster.types.iter().enumerate() {
                    let (sa, ma) =
                        self.interference
                            .of(name, (&ja.job_type, sf), (&jb.job_type, sf));
                    let (sb, mb) =
                        self.interference
                            .of(name, (&jb.job_type, sf), (&ja.job_type, sf));
                    if ma && mb && ja.rate[j] > 0.0 && jb.rate[j] > 0.0 {
                        rates.push((ja.rate[j] / sa, jb.rate[j] / sb));
                        slowdown.push((sa, sb));
                    } else {
                        rates.push((0.0, 0.0));
                        slowdown.push((1.0, 1.0));
                    }
                }
                (rates, slowdown, sf)
            }
        };
        self.units.insert(
            unit,
            Clocks {
                seq: self.next_seq,
                job_time: vec![clocks_from; types],
                deficit: vec![0.0; types],
                rates,
                slowdown,
                scale_factor,
            },
        );
        self.next_seq += 1;
    }

    /// Counts the last round's time, drops finished jobs' units, forms the arrivals' units
    /// (Gavel: the done callbacks, `_remove_job`, then `add_job`).
    fn update(&mut self, view: &RoundView) {
        let types = view.cluster.types.len();
        let mut seconds: BTreeMap<(usize, usize), f64> = BTreeMap::new();
        let mut finished = Vec::new();
        for r in view.last_round {
            seconds.insert((r.job, r.gpu_type), r.seconds);
            if r.finished {
                finished.push(r.job);
            }
        }
        for &(unit, j) in &self.ran {
            let took = unit
                .jobs()
                .filter_map(|i| seconds.get(&(i, j)).copied())
                .fold(0.0, f64::max);
            self.worker_time[j] += took;
            if let Some(c) = self.units.get_mut(&unit) {
                c.job_time[j] += took;
            }
        }
        if !finished.is_empty() {
            self.active_changed = true;
            self.units
                .retain(|u, _| !u.jobs().any(|i| finished.contains(&i)));
            self.x
                .retain(|u, _| !u.jobs().any(|i| finished.contains(&i)));
        }
        // Arrivals, in arrival order: the job alone, then its pairs with the jobs before it.
        for (pos, s) in view.active.iter().enumerate() {
            if self.known[s.job] {
                continue;
            }
            self.known[s.job] = true;
            self.active_changed = true;
            self.form(Unit::Alone(s.job), self.credit, view);
            for earlier in &view.active[..pos] {
                let (a, b) = (earlier.job, s.job);
                if view.jobs[a].scale_factor != view.jobs[b].scale_factor {
                    continue;
                }
                self.form(Unit::Pair(a, b), 0.0, view);
                let can_share = self.units[&Unit::Pair(a, b)]
                    .rates
                    .iter()
                    .any(|&(ra, rb)| ra > 0.0 && rb > 0.0);
                if !can_share {
                    self.units.remove(&Unit::Pair(a, b));
                }
            }
        }
        debug_assert_eq!(self.worker_time.len(), types);
    }

    /// Gavel's `_reset_time_run_so_far`: deficits grow by what the allocation promised less what
    /// was received, and every clock restarts from the credit.
    fn reset(&mut self, now: f64) {
        let elapsed = now - self.last_reset;
        self.worker_time.iter_mut().for_each(|w| *w = 0.0);
        for (unit, c) in self.units.iter_mut() {
            let x = self.x.get(unit);
            for j in 0..c.job_time.len() {
                let received = c.job_time[j] - self.credit;
                let promised = x.map_or(0.0, |x| x[j] * elapsed);
                c.deficit[j] += promised - received;
                c.job_time[j] = self.credit;
                self.worker_time[j] += self.credit;
            }
        }
        self.last_reset = now;
    }

    /// x over the active jobs and their pairs, from the packed max-min program.
    fn recompute(&mut self, view: &RoundView) -> Result<(), SimError> {
        let cluster = view.cluster;
        let types = cluster.types.len();
        // Inserted, not collected (a collected map compiles a stable sort for its key type).
        let mut index: BTreeMap<usize, usize> = BTreeMap::new();
        for (t, s) in view.active.iter().enumerate() {
            index.insert(s.job, t);
        }
        let tenants: Vec<Tenant> = view
            .active
            .iter()
            .map(|s| {
                let job = &view.jobs[s.job];
                Tenant {
                    name: format!("job {}", job.id),
                    throughput: per_gpu_rates(cluster, job),
                    weight: 1.0,
                    max_gpus: Some(f64::from(job.scale_factor)),
                    work: None,
                    entity: None,
                }
            })
            .collect();
        let inst = instance_over(
            cluster,
            tenants,
            Vec::new(),
            fairground_core::Normalization::Slowest,
        )?;
        let pair_units: Vec<Unit> = self
            .units
            .keys()
            .copied()
            .filter(|u| matches!(u, Unit::Pair(..)))
            .collect();
        let pairs: Vec<CoLocation> = pair_units
            .iter()
            .map(|&u| {
                let Unit::Pair(a, b) = u else {
                    unreachable!("filtered")
                };
                let c = &self.units[&u];
                let sf = f64::from(c.scale_factor);
                CoLocation {
                    a: index[&a],
                    b: index[&b],
                    // Per GPU, as the instance's throughputs; 0 where the type is too small.
                    throughput: (0..types)
                        .map(|j| {
                            if cluster.gpus_of_type(j) >= c.scale_factor {
                                (c.rates[j].0 / sf, c.rates[j].1 / sf)
                            } else {
                                (0.0, 0.0)
                            }
                        })
                        .collect(),
                }
            })
            .collect();
        let packed = max_min_packed_interior(&inst, &pairs)
            .map_err(|e| SimError::Policy(format!("gavel-las-packed: {e}")))?;
        // Gavel clips x to [0, 1]; snapped so that equal shares compare equal.
        let x_of = |gpus: &[f64], sf: u32| -> Vec<f64> {
            gpus.iter()
                .map(|g| snap((g / f64::from(sf)).clamp(0.0, 1.0)))
                .collect()
        };
        self.x.clear();
        for (t, s) in view.active.iter().enumerate() {
            let sf = view.jobs[s.job].scale_factor;
            self.x
                .insert(Unit::Alone(s.job), x_of(&packed.alone.gpus[t], sf));
        }
        for (u, h) in pair_units.iter().zip(&packed.pairs) {
            let sf = self.units[u].scale_factor;
            self.x.insert(*u, x_of(h, sf));
        }
        self.active_changed = false;
        Ok(())
    }

    /// Gavel's priority of a unit on type j.
    fn priority(&self, unit: Unit, c: &Clocks, j: usize) -> f64 {
        let Some(x) = self.x.get(&unit).map(|x| x[j]) else {
            return 0.0;
        };
        let (ra, rb) = c.rates[j];
        if x == 0.0 || ra <= 0.0 || rb <= 0.0 {
            return 0.0;
        }
        let fraction = if self.worker_time[j] == 0.0 {
            0.0
        } else {
            c.job_time[j] / self.worker_time[j]
        };
        if fraction > 0.0 {
            x / fraction
        } else {
            x * 1e9
        }
    }

    fn pick_and_place(&mut self, view: &RoundView) -> Result<Vec<Placement>, SimError> {
        let cluster = view.cluster;
        let types = cluster.types.len();
        let due = view.now - self.last_reset >= self.interval - 1e-9 || self.last_reset == 0.0;
        if self.active_changed && due && !view.active.is_empty() {
            self.reset(view.now);
            self.recompute(view)?;
        }
        let mut picked = vec![false; view.jobs.len()];
        let mut picks: Vec<Vec<(Unit, u32)>> = vec![Vec::new(); types];
        for (j, chosen) in picks.iter_mut().enumerate() {
            let mut left = cluster.gpus_of_type(j);
            // Highest (priority, deficit, x) first; equal keys in the order the units formed.
            let list: Vec<([f64; 3], u64, Unit)> = self
                .units
                .iter()
                .map(|(&u, c)| {
                    let x = self.x.get(&u).map_or(0.0, |x| x[j]);
                    // + 0.0: -0.0 and 0.0 compare equal, as Python's do.
                    let key = [self.priority(u, c, j), c.deficit[j], x].map(|k| k + 0.0);
                    (key, c.seq, u)
                })
                .collect();
            // One compiled sort for index lists (fairground_core::order: each sort_by closure
            // is another copy of the sort in the browser's engine).
            let mut order: Vec<usize> = (0..list.len()).collect();
            sort_indices_by(&mut order, &|a, b| {
                let (a, b) = (&list[a], &list[b]);
                a.0.iter()
                    .zip(&b.0)
                    .map(|(p, q)| q.total_cmp(p))
                    .find(|o| o.is_ne())
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then(a.1.cmp(&b.1))
            });
            for u in order.into_iter().map(|k| list[k].2) {
                if left == 0 {
                    break;
                }
                let c = &self.units[&u];
                let (ra, rb) = c.rates[j];
                if u.jobs().any(|i| picked[i]) || ra <= 0.0 || rb <= 0.0 {
                    continue;
                }
                if c.scale_factor > left {
                    continue;
                }
                left -= c.scale_factor;
                u.jobs().for_each(|i| picked[i] = true);
                chosen.push((u, c.scale_factor));
            }
        }
        // Per type, largest first; a unit without an allocation holds its place but is not run.
        let mut pool = GpuPool::new(cluster);
        let mut placements = Vec::new();
        self.ran.clear();
        for (j, chosen) in picks.iter_mut().enumerate() {
            let mut order: Vec<usize> = (0..chosen.len()).collect();
            sort_indices_by(&mut order, &|a, b| chosen[b].1.cmp(&chosen[a].1));
            for &(u, gpus) in order.iter().map(|&k| &chosen[k]) {
                if !self.x.contains_key(&u) {
                    continue;
                }
                let Some(pieces) = pool.take(j, gpus) else {
                    continue;
                };
                self.ran.push((u, j));
                match u {
                    Unit::Alone(i) => {
                        self.alone_runs += 1;
                        placements.push(Placement::exclusive(i, pieces));
                    }
                    Unit::Pair(a, b) => {
                        self.shared_runs += 2;
                        let (sa, sb) = self.units[&u].slowdown[j];
                        for (i, slowdown) in [(a, sa), (b, sb)] {
                            let mut p = Placement::exclusive(i, pieces.clone());
                            p.sharing = Some(Sharing {
                                slowdown,
                                accumulation: 1,
                                measured_together: true,
                            });
                            placements.push(p);
                        }
                    }
                }
            }
        }
        Ok(placements)
    }
}

impl Scheduler for GavelPacked {
    fn name(&self) -> String {
        fairground_core::Policy::name(&fairground_core::policies::GavelLasPacked).to_string()
    }

    fn schedule(&mut self, view: &RoundView) -> Result<Vec<Placement>, SimError> {
        if !self.started {
            self.started = true;
            self.credit = view.round_s / 2.0;
            self.worker_time = vec![0.0; view.cluster.types.len()];
            self.known = vec![false; view.jobs.len()];
            self.last_arrival = view.jobs.iter().map(|j| j.arrival).fold(0.0, f64::max);
        }
        self.update(view);
        let placements = self.pick_and_place(view)?;
        if placements.is_empty() && !view.active.is_empty() && self.last_arrival <= view.now {
            // As gavel-las: nothing runs and no job is left to arrive, so reset at once.
            self.last_reset = 0.0;
            return self.pick_and_place(view);
        }
        Ok(placements)
    }

    fn notes(&self) -> Vec<String> {
        let total = self.shared_runs + self.alone_runs;
        let mut notes = vec![format!(
            "space sharing: {} of {} job-rounds shared a GPU with another job",
            self.shared_runs, total
        )];
        if self.interference.pairs() == 0 {
            notes.push(
                "no co-located throughputs were loaded (give Gavel's \
                 simulation_throughputs.json: --throughputs, or the Simulation tab's measured \
                 throughputs), so no job shared a GPU"
                    .to_string(),
            );
        }
        notes
    }
}
