//! SJF-BSBF and SJF-FFS (Luo, Wang, Shi et al., IWQoS 2024; ../shared/BACKGROUND.md): shortest
//! job first without preemption, where a pending job may share GPUs with one running job.
//!
//! Every round, jobs already running keep their GPUs (no preemption); a running job whose partner
//! has finished runs alone again, at full speed and full batch. Pending jobs are taken shortest
//! remaining exclusive time first (remaining steps over the rate on the fastest type); one that
//! cannot be placed does not block later ones. For a job, GPU types are tried fastest first, and
//! the first type where the rule below places it wins:
//! - servers of the type are taken fewest hosted jobs first; candidate GPUs are idle ones and ones
//!   held by exactly one job, running alone, with room in the GPU's memory for the new job (with
//!   the fewest sub-batches, 1/2/4/8, that make it fit: [`crate::sharing::Accumulation`]);
//! - if idle GPUs suffice, only they are used;
//! - otherwise each resident b is a partner with, E the remaining exclusive times and xi >= 1 the
//!   slowdowns when co-located (a's including its accumulation): T_seq = E_b + E_a / 2, and
//!   T_con = E_a / 2 + (1 - 1 / (2 xi_a)) xi_b E_b if xi_a E_a >= xi_b E_b, else
//!   E_b / 2 + (1 - 1 / (2 xi_b)) xi_a E_a (the pair's mean JCT when both start now and the
//!   survivor then runs alone). BSBF keeps partners with T_con < T_seq and takes them smallest
//!   T_con first; FFS takes them first fit (server order), with no benefit check. Partners are
//!   added until idle plus shared GPUs suffice; else the job waits (for BSBF, that is the other
//!   time point: sharing when b finishes).
//!
//! Slowdowns come from [`crate::SimConfig::interference`] (Gavel's measured pairs), with its
//! documented fallback for a pair it does not hold. A job whose GPU memory is unknown never shares.

use super::{Piece, Placement, RoundView, Scheduler, Sharing};
use crate::model::{Job, SimError};
use crate::sharing::{Accumulation, Interference};
use fairground_core::order::{sort_indices_by, sort_stably_by};
use std::collections::BTreeMap;

/// How partners are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// Best sharing benefit first: only partners with T_con < T_seq, smallest T_con first.
    Bsbf,
    /// First fit, no benefit check.
    Ffs,
}

/// T_seq and T_con for a pending job a next to a running job b (formulas in the module docs).
pub fn pair_times(e_a: f64, e_b: f64, xi_a: f64, xi_b: f64) -> (f64, f64) {
    let t_seq = e_b + e_a / 2.0;
    let t_con = if xi_a * e_a >= xi_b * e_b {
        e_a / 2.0 + (1.0 - 1.0 / (2.0 * xi_a)) * xi_b * e_b
    } else {
        e_b / 2.0 + (1.0 - 1.0 / (2.0 * xi_b)) * xi_a * e_a
    };
    (t_seq, t_con)
}

pub struct SjfShare {
    rule: Rule,
    interference: Interference,
    /// Running jobs' placements, kept from round to round (no preemption).
    running: BTreeMap<usize, Placement>,
    /// Who shares with whom.
    partners: BTreeMap<usize, Vec<usize>>,
    /// Slowdown pairs that fell back to the default, for the run's notes.
    fallbacks: BTreeMap<(String, String, String), ()>,
    shared_pairs: u64,
    /// Job -> class (model, scale factor) id, and the slowdown of class a next to class b on a
    /// type, looked up once (the lookup by name allocates).
    class_of: Vec<Option<usize>>,
    classes: BTreeMap<(String, u32), usize>,
    slowdowns: std::collections::HashMap<(usize, usize, usize), f64>,
}

impl SjfShare {
    pub fn new(rule: Rule, interference: Interference) -> SjfShare {
        SjfShare {
            rule,
            interference,
            running: BTreeMap::new(),
            partners: BTreeMap::new(),
            fallbacks: BTreeMap::new(),
            shared_pairs: 0,
            class_of: Vec::new(),
            classes: BTreeMap::new(),
            slowdowns: std::collections::HashMap::new(),
        }
    }

    fn class(&mut self, index: usize, job: &Job) -> usize {
        if self.class_of.len() <= index {
            self.class_of.resize(index + 1, None);
        }
        if let Some(c) = self.class_of[index] {
            return c;
        }
        let next = self.classes.len();
        let c = *self
            .classes
            .entry((job.job_type.clone(), job.scale_factor))
            .or_insert(next);
        self.class_of[index] = Some(c);
        c
    }

    /// The slowdown of job a next to job b on type j, memoised by class.
    fn slowdown_of(
        &mut self,
        cluster: &crate::model::Cluster,
        j: usize,
        (ia, a): (usize, &Job),
        (ib, b): (usize, &Job),
    ) -> f64 {
        let key = (j, self.class(ia, a), self.class(ib, b));
        if let Some(&s) = self.slowdowns.get(&key) {
            return s;
        }
        let s = self.slowdown(&cluster.types[j], a, b);
        self.slowdowns.insert(key, s);
        s
    }

    fn slowdown(&mut self, gpu_type: &str, a: &Job, b: &Job) -> f64 {
        let (s, measured) = self.interference.of(
            gpu_type,
            (&a.job_type, a.scale_factor),
            (&b.job_type, b.scale_factor),
        );
        if !measured {
            self.fallbacks.insert(
                (gpu_type.to_string(), a.job_type.clone(), b.job_type.clone()),
                (),
            );
        }
        s
    }
}

/// Remaining steps of the active jobs, indexed by job.
struct Remaining(Vec<f64>);

impl Remaining {
    fn of(view: &RoundView) -> Remaining {
        let mut steps = vec![f64::NAN; view.jobs.len()];
        for s in view.active {
            steps[s.job] = s.remaining_steps;
        }
        Remaining(steps)
    }

    fn has(&self, job: usize) -> bool {
        self.0.get(job).is_some_and(|v| !v.is_nan())
    }

    fn steps(&self, job: usize) -> f64 {
        self.0[job]
    }
}

/// Remaining seconds of a job alone on `gpu_type` (infinite where it cannot run).
fn exclusive_time(job: &Job, remaining_steps: f64, j: usize) -> f64 {
    if job.rate[j] > 0.0 {
        remaining_steps / job.rate[j]
    } else {
        f64::INFINITY
    }
}

impl SjfShare {
    /// Drops finished jobs; a survivor of a pair runs alone again.
    fn drop_finished(&mut self, remaining: &Remaining) {
        self.running.retain(|job, _| remaining.has(*job));
        self.partners.retain(|job, _| remaining.has(*job));
        for list in self.partners.values_mut() {
            list.retain(|b| remaining.has(*b));
        }
        for (job, p) in self.running.iter_mut() {
            if self.partners.get(job).is_none_or(Vec::is_empty) {
                p.sharing = None;
            }
        }
    }

    /// The jobs not running, shortest remaining time (on their best type) first, ties by index.
    fn shortest_first(&self, view: &RoundView) -> Vec<(f64, usize)> {
        let mut pending: Vec<(f64, usize)> = view
            .active
            .iter()
            .filter(|s| !self.running.contains_key(&s.job))
            .map(|s| {
                let job = &view.jobs[s.job];
                (
                    s.remaining_steps / job.best_rate(view.cluster).max(f64::MIN_POSITIVE),
                    s.job,
                )
            })
            .collect();
        // Its own copy of the sort (every pending job, every round), as Tiresias's.
        pending.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        pending
    }

    /// The residents of type j job a (of `mem_a` MB) may share a GPU with: each as (time of the
    /// pair run together, b, a's sub-batches, a's slowdown, b's slowdown); under BSBF only the
    /// pairs that finish sooner together, best first; under FFS all, in residents' order.
    fn partner_options(
        &mut self,
        view: &RoundView,
        remaining: &Remaining,
        (a, mem_a): (usize, f64),
        j: usize,
        residents: &[usize],
    ) -> Vec<(f64, usize, u32, f64, f64)> {
        let cluster = view.cluster;
        let job_a = &view.jobs[a];
        let capacity = cluster.gpu_memory_mb(j);
        let e_a = exclusive_time(job_a, remaining.steps(a), j);
        let mut options: Vec<(f64, usize, u32, f64, f64)> = Vec::new();
        for &b in residents {
            let job_b = &view.jobs[b];
            let Some(mem_b) = job_b.gpu_mem_mb else {
                continue;
            };
            let Some(k) = Accumulation::fewest_to_fit(mem_a, capacity - mem_b) else {
                continue;
            };
            let xi_a =
                self.slowdown_of(cluster, j, (a, job_a), (b, job_b)) * Accumulation::time_factor(k);
            let xi_b = self.slowdown_of(cluster, j, (b, job_b), (a, job_a));
            let held_b = self.running[&b]
                .pieces
                .first()
                .map_or(j, |p| cluster.servers[p.server].gpu_type);
            let e_b = exclusive_time(job_b, remaining.steps(b), held_b);
            let (t_seq, t_con) = pair_times(e_a, e_b, xi_a, xi_b);
            if self.rule == Rule::Ffs || t_con < t_seq {
                options.push((t_con, b, k, xi_a, xi_b));
            }
        }
        if self.rule == Rule::Bsbf {
            sort_stably_by(&mut options, |x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
        }
        options
    }
}

impl Scheduler for SjfShare {
    fn name(&self) -> String {
        match self.rule {
            Rule::Bsbf => "sjf-bsbf".into(),
            Rule::Ffs => "sjf-ffs".into(),
        }
    }

    fn schedule(&mut self, view: &RoundView) -> Result<Vec<Placement>, SimError> {
        let cluster = view.cluster;
        let remaining = Remaining::of(view);
        self.drop_finished(&remaining);
        // Occupants per GPU: (server, gpu) -> jobs.
        let mut occupants: BTreeMap<(usize, u32), Vec<usize>> = BTreeMap::new();
        for p in self.running.values() {
            for piece in &p.pieces {
                for &g in &piece.gpus {
                    occupants.entry((piece.server, g)).or_default().push(p.job);
                }
            }
        }
        let pending = self.shortest_first(view);
        // Per type, what a pending job can use; recomputed after each placement.
        let mut layouts: Vec<Option<TypeLayout>> = vec![None; cluster.types.len()];
        for (_, a) in pending {
            let job_a = &view.jobs[a];
            let g = job_a.scale_factor as usize;
            let mut types: Vec<usize> = (0..cluster.types.len())
                .filter(|&j| job_a.rate[j] > 0.0 && job_a.fits_alone(cluster, j))
                .collect();
            sort_indices_by(&mut types, &|x, y| {
                job_a.rate[y].total_cmp(&job_a.rate[x]).then(x.cmp(&y))
            });
            for j in types {
                if layouts[j].is_none() {
                    layouts[j] = Some(layout(cluster, &occupants, &self.running, j));
                }
                let Some(TypeLayout {
                    idle, residents, ..
                }) = layouts[j].clone()
                else {
                    continue;
                };
                // Nothing to try on a type with no idle GPU and no job running alone.
                if idle.is_empty() && residents.is_empty() {
                    continue;
                }
                let mut chosen: Vec<(usize, u32)> = idle.iter().take(g).copied().collect();
                let mut partners: Vec<(usize, u32)> = Vec::new(); // (b, k for a)
                if chosen.len() < g {
                    let Some(mem_a) = job_a.gpu_mem_mb else {
                        continue;
                    };
                    let options = self.partner_options(view, &remaining, (a, mem_a), j, &residents);
                    for (_, b, k, _, _) in &options {
                        if chosen.len() >= g {
                            break;
                        }
                        for piece in &self.running[b].pieces {
                            for &gpu in &piece.gpus {
                                if chosen.len() < g && occupants[&(piece.server, gpu)].len() == 1 {
                                    chosen.push((piece.server, gpu));
                                }
                            }
                        }
                        partners.push((*b, *k));
                    }
                    if chosen.len() < g {
                        continue; // this type cannot take it now
                    }
                    // Keep only the partners whose GPUs were used.
                    partners.retain(|(b, _)| {
                        chosen
                            .iter()
                            .any(|key| occupants.get(key).is_some_and(|v| v.contains(b)))
                    });
                    let k = partners.iter().map(|p| p.1).max().unwrap_or(1);
                    let mut xi_a: f64 = 1.0;
                    for &(b, _) in &partners {
                        let job_b = &view.jobs[b];
                        xi_a = xi_a.max(self.slowdown_of(cluster, j, (a, job_a), (b, job_b)));
                        let xi_b = self.slowdown_of(cluster, j, (b, job_b), (a, job_a));
                        if let Some(pb) = self.running.get_mut(&b) {
                            pb.sharing = Some(Sharing {
                                slowdown: xi_b,
                                accumulation: 1,
                                measured_together: false,
                            });
                        }
                        self.partners.entry(b).or_default().push(a);
                        self.partners.entry(a).or_default().push(b);
                        self.shared_pairs += 1;
                    }
                    let placement = place(
                        a,
                        &chosen,
                        Some(Sharing {
                            slowdown: xi_a,
                            accumulation: k,
                            measured_together: false,
                        }),
                    );
                    book(&mut occupants, &placement);
                    self.running.insert(a, placement);
                    layouts.iter_mut().for_each(|l| *l = None);
                    break;
                }
                let placement = place(a, &chosen, None);
                book(&mut occupants, &placement);
                self.running.insert(a, placement);
                layouts.iter_mut().for_each(|l| *l = None);
                break;
            }
        }
        Ok(self.running.values().cloned().collect())
    }

    fn notes(&self) -> Vec<String> {
        let mut notes = vec![format!(
            "{}: {} job pairs shared GPUs",
            self.name(),
            self.shared_pairs
        )];
        if !self.fallbacks.is_empty() {
            let some: Vec<String> = self
                .fallbacks
                .keys()
                .take(3)
                .map(|(t, a, b)| format!("{a} next to {b} on {t}"))
                .collect();
            notes.push(format!(
                "{}: {} pairs have no measured slowdown and were taken at {} (time slicing), e.g. {}",
                self.name(),
                self.fallbacks.len(),
                crate::sharing::FALLBACK_SLOWDOWN,
                some.join("; ")
            ));
        }
        notes
    }
}

/// What a pending job may use on one GPU type, at one moment of a round.
#[derive(Clone)]
struct TypeLayout {
    /// Idle GPUs, servers hosting fewest jobs first.
    idle: Vec<(usize, u32)>,
    /// Jobs running alone (not sharing) on GPUs of the type, in that server order.
    residents: Vec<usize>,
}

fn layout(
    cluster: &crate::model::Cluster,
    occupants: &BTreeMap<(usize, u32), Vec<usize>>,
    running: &BTreeMap<usize, Placement>,
    j: usize,
) -> TypeLayout {
    let hosted = |s: usize| {
        let mut jobs: Vec<usize> = occupants
            .range((s, 0)..(s + 1, 0))
            .flat_map(|(_, v)| v.iter().copied())
            .collect();
        sort_indices_by(&mut jobs, &|a, b| a.cmp(&b));
        jobs.dedup();
        jobs.len()
    };
    let mut servers: Vec<(usize, usize)> = (0..cluster.servers.len())
        .filter(|&s| cluster.servers[s].gpu_type == j)
        .map(|s| (hosted(s), s))
        .collect();
    sort_stably_by(&mut servers, |a, b| a.cmp(b));
    let mut idle = Vec::new();
    let mut residents: Vec<usize> = Vec::new();
    for &(_, s) in &servers {
        for gpu in 0..cluster.servers[s].gpus {
            match occupants.get(&(s, gpu)).map(Vec::as_slice) {
                None | Some([]) => idle.push((s, gpu)),
                Some(&[b]) => {
                    if running[&b].sharing.is_none() && !residents.contains(&b) {
                        residents.push(b);
                    }
                }
                Some(_) => {}
            }
        }
    }
    TypeLayout { idle, residents }
}

/// A placement on these GPUs, grouped by server.
fn place(job: usize, gpus: &[(usize, u32)], sharing: Option<Sharing>) -> Placement {
    let mut by_server: BTreeMap<usize, Vec<u32>> = BTreeMap::new();
    for &(s, g) in gpus {
        by_server.entry(s).or_default().push(g);
    }
    let mut p = Placement::exclusive(
        job,
        by_server
            .into_iter()
            .map(|(server, gpus)| Piece {
                server,
                gpus,
                copy: 0,
            })
            .collect(),
    );
    p.sharing = sharing;
    p
}

fn book(occupants: &mut BTreeMap<(usize, u32), Vec<usize>>, p: &Placement) {
    for piece in &p.pieces {
        for &g in &piece.gpus {
            occupants.entry((piece.server, g)).or_default().push(p.job);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::pair_times;

    /// E_a = 100, E_b = 300, xi = 1.5 both: xi_a E_a = 150 < xi_b E_b = 450, so
    /// T_con = E_b / 2 + (1 - 1/3) x 1.5 x 100 = 150 + 100 = 250 (a done at 150, b at 350);
    /// T_seq = 300 + 50 = 350.
    #[test]
    fn pair_times_by_hand() {
        let (seq, con) = pair_times(100.0, 300.0, 1.5, 1.5);
        assert!((seq - 350.0).abs() < 1e-12 && (con - 250.0).abs() < 1e-12);
        // Equal jobs at time slicing (xi = 2): both done at 2000, mean 2000 > T_seq 1500.
        let (seq, con) = pair_times(1000.0, 1000.0, 2.0, 2.0);
        assert_eq!((seq, con), (1500.0, 2000.0));
    }
}
