//! What a simulation measures, and the recorder the engine fills as it goes.

use crate::limits::MAX_SAMPLES;
use crate::model::{Cluster, Job};
use crate::schedulers::Placement;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobOutcome {
    pub id: usize,
    pub tenant: String,
    pub arrival_s: f64,
    /// First time it ran.
    pub start_s: Option<f64>,
    pub finish_s: Option<f64>,
    /// finish - arrival.
    pub jct_s: Option<f64>,
    /// Finish-time fairness rho = JCT / JCT on an isolated 1/N share of the cluster, N the
    /// time-averaged number of active jobs over its life (Themis; < 1 is better than isolated).
    pub rho: Option<f64>,
}

/// GPUs busy per type over one round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UtilSample {
    pub t0: f64,
    pub t1: f64,
    /// Fraction of each type's GPUs busy, time-averaged over [t0, t1].
    pub busy: Vec<f64>,
}

/// GPUs held per tenant over one round (time-averaged).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShareSample {
    pub t0: f64,
    pub t1: f64,
    pub gpus: Vec<f64>,
}

/// One job on one GPU for a stretch of time, with the CPUs and memory it held with that GPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GanttBar {
    pub server: usize,
    pub gpu: u32,
    pub job: usize,
    pub t0: f64,
    pub t1: f64,
    #[serde(default)]
    pub cpus: f64,
    #[serde(default)]
    pub mem_gb: f64,
    /// When the GPU is shared with another job: this job's slowdown and sub-batches per step.
    #[serde(default)]
    pub slowdown: Option<f64>,
    #[serde(default)]
    pub accumulation: Option<u32>,
    /// Which copy of a forked job (HadarE) this GPU runs; 0 for a job that is not forked.
    #[serde(default)]
    pub copy: u32,
}

/// What a Gantt chart's tooltip says of a job it draws: its model, tenant, GPUs at once and
/// steps/s on each GPU type (0: cannot run there).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GanttJob {
    pub id: usize,
    pub model: String,
    pub tenant: String,
    pub gpus: u32,
    pub rate: Vec<f64>,
}

/// JCT over the jobs with ids in [from, to) (Synergy measures jobs 4000-4999 in steady state).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeasuredJct {
    pub from_id: usize,
    pub to_id: usize,
    /// Jobs with ids in the range, and how many of them finished.
    pub jobs: usize,
    pub completed: usize,
    pub avg_jct_s: f64,
    pub p99_jct_s: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimResult {
    pub policy: String,
    pub gpu_types: Vec<String>,
    pub jobs_completed: usize,
    /// Jobs that could never run on this cluster (not counted in the JCT figures).
    pub jobs_unschedulable: Vec<usize>,
    pub avg_jct_s: f64,
    pub median_jct_s: f64,
    pub p99_jct_s: f64,
    /// When the last job finished.
    pub makespan_s: f64,
    /// Busy GPU-seconds over (GPUs x makespan), per type.
    pub utilization: Vec<f64>,
    pub avg_rho: f64,
    pub max_rho: f64,
    pub jobs: Vec<JobOutcome>,
    pub utilization_over_time: Vec<UtilSample>,
    pub tenants: Vec<String>,
    pub tenant_share_over_time: Vec<ShareSample>,
    /// Per-GPU bars, recorded for small traces only (see `SimConfig::gantt_max_jobs`).
    pub gantt: Vec<GanttBar>,
    /// The jobs the bars draw, by id (empty when no bars were recorded).
    #[serde(default)]
    pub gantt_jobs: Vec<GanttJob>,
    /// Booked CPU-seconds (GB-seconds) over (the cluster's CPUs (GB) x makespan).
    #[serde(default)]
    pub cpu_utilization: f64,
    #[serde(default)]
    pub mem_utilization: f64,
    /// Per round: `busy` = [fraction of the cluster's CPUs booked, fraction of its memory].
    #[serde(default)]
    pub cpu_mem_over_time: Vec<UtilSample>,
    /// Steady-state JCT over an id range, when asked for (`SimConfig::measure_ids`).
    #[serde(default)]
    pub measured: Option<MeasuredJct>,
    /// Jobs that had not finished when the run stopped (it stops once the measured range has
    /// finished, as Synergy's simulator does).
    #[serde(default)]
    pub jobs_unfinished: usize,
    /// Work done per hour of the makespan, in reference-GPU hours: each job's steps times its
    /// scale factor over its rate on its slowest type (so an hour of one GPU of a job's slowest
    /// type is 1, of a type k times faster k) — the simulator's counterpart of the playground's
    /// efficiency, sum_i u_i, averaged over the run.
    #[serde(default)]
    pub normalised_work_per_hour: f64,
    /// The same over the rounds in which every tenant of the workload had a job waiting (none
    /// such: None; not checked past [`BACKLOG_TENANTS`] tenants), and those rounds' seconds.
    #[serde(default)]
    pub backlogged_work_per_hour: Option<f64>,
    #[serde(default)]
    pub backlogged_s: f64,
    /// GPU-hours idle while a waiting job could have used them: per round, the idle GPUs the
    /// waiting jobs could have taken, each job on one type that fits it, times the round's length
    /// (the same measure for every scheduler).
    #[serde(default)]
    pub idle_while_waiting_gpu_h: f64,
    /// What the scheduler reports about itself (e.g. Synergy-OPT's deployable rounds).
    #[serde(default)]
    pub notes: Vec<String>,
    /// Who the allocation was shared among (`--share-among`), as the scheduler honoured it.
    #[serde(default)]
    pub parties: String,
    /// With tenants as parties: what tenants actually received ([`crate::tenants`]).
    #[serde(default)]
    pub tenant_fairness: Option<crate::tenants::TenantFairness>,
}

pub(crate) struct Recorder {
    gpus_per_type: Vec<f64>,
    start: Vec<Option<f64>>,
    finish: Vec<Option<f64>>,
    /// contention[job]: the integral of the number of active jobs over the job's time in the
    /// system; kept as the running integral at admission, turned into the job's own at its
    /// finish (so a round costs O(1) here, not one update per waiting job).
    contention: Vec<f64>,
    /// The integral of the number of active jobs over time, so far.
    active_integral: f64,
    busy_total: Vec<f64>,
    series: Vec<UtilSample>,
    tenants: Vec<String>,
    tenant_of: Vec<usize>,
    shares: Vec<ShareSample>,
    gantt: Option<Vec<GanttBar>>,
    round: Option<(f64, f64, Vec<f64>, Vec<f64>)>,
    cluster_cpus: f64,
    cluster_mem: f64,
    /// CPU-seconds and GB-seconds booked: in all, and in the open round.
    cpu_mem_total: (f64, f64),
    cpu_mem_round: (f64, f64),
    cpu_mem_series: Vec<UtilSample>,
    /// Per job: reference-GPU-seconds of work per step (scale factor / its rate on its slowest
    /// type that can host it), and the work done, in all and in the open round.
    work_per_step: Vec<f64>,
    work_total: f64,
    work_round: f64,
    /// Per tenant (for at most [`BACKLOG_TENANTS`] tenants): active jobs now, at the open
    /// round's start, and placed in it; and the work and seconds of rounds in which every tenant
    /// had a job waiting.
    active_of_tenant: Vec<u32>,
    round_active: Vec<u32>,
    placed_of_tenant: Vec<u32>,
    backlogged: (f64, f64),
    idle_while_waiting_gpu_s: f64,
}

/// Tenants past this many are not checked for being backlogged each round (a trace with a
/// tenant per job is never all backlogged, and the check would cost a pass over them a round).
pub const BACKLOG_TENANTS: usize = 64;

impl Recorder {
    pub(crate) fn new(cluster: &Cluster, jobs: &[Job], gantt_max_jobs: usize) -> Recorder {
        let mut tenant_index: BTreeMap<&str, usize> = BTreeMap::new();
        for j in jobs {
            let next = tenant_index.len();
            tenant_index.entry(j.tenant.as_str()).or_insert(next);
        }
        let mut tenants = vec![String::new(); tenant_index.len()];
        for (name, &k) in &tenant_index {
            tenants[k] = name.to_string();
        }
        Recorder {
            gpus_per_type: (0..cluster.types.len())
                .map(|j| f64::from(cluster.gpus_of_type(j)))
                .collect(),
            start: vec![None; jobs.len()],
            finish: vec![None; jobs.len()],
            contention: vec![0.0; jobs.len()],
            active_integral: 0.0,
            busy_total: vec![0.0; cluster.types.len()],
            series: Vec::new(),
            tenant_of: jobs
                .iter()
                .map(|j| tenant_index[j.tenant.as_str()])
                .collect(),
            tenants,
            shares: Vec::new(),
            gantt: (jobs.len() <= gantt_max_jobs).then(Vec::new),
            round: None,
            cluster_cpus: cluster.total_cpus(),
            cluster_mem: cluster.total_mem_gb(),
            cpu_mem_total: (0.0, 0.0),
            cpu_mem_round: (0.0, 0.0),
            cpu_mem_series: Vec::new(),
            work_per_step: jobs
                .iter()
                .map(|j| {
                    let reference = (0..cluster.types.len())
                        .filter(|&t| cluster.gpus_of_type(t) >= j.scale_factor && j.rate[t] > 0.0)
                        .map(|t| j.rate[t])
                        .fold(f64::INFINITY, f64::min);
                    if reference.is_finite() {
                        f64::from(j.scale_factor) / reference
                    } else {
                        0.0
                    }
                })
                .collect(),
            work_total: 0.0,
            work_round: 0.0,
            active_of_tenant: if tenant_index.len() <= BACKLOG_TENANTS {
                vec![0; tenant_index.len()]
            } else {
                Vec::new()
            },
            round_active: Vec::new(),
            placed_of_tenant: Vec::new(),
            backlogged: (0.0, 0.0),
            idle_while_waiting_gpu_s: 0.0,
        }
    }

    /// A round [t0, t1] begins with these jobs active.
    /// `job` joins the active jobs.
    pub(crate) fn admit(&mut self, job: usize) {
        self.contention[job] = self.active_integral;
        if let Some(n) = self.active_of_tenant.get_mut(self.tenant_of[job]) {
            *n += 1;
        }
    }

    /// `job` did `steps` steps (its normalised work counts toward the figures).
    pub(crate) fn worked(&mut self, job: usize, steps: f64) {
        let work = steps * self.work_per_step[job];
        self.work_total += work;
        self.work_round += work;
    }

    /// `active` jobs were in the system over [t0, t1].
    /// GPU-seconds idle in a round while a waiting job could have used them.
    pub(crate) fn idle_while_waiting(&mut self, gpu_s: f64) {
        self.idle_while_waiting_gpu_s += gpu_s;
    }

    pub(crate) fn contention(&mut self, t0: f64, t1: f64, active: usize) {
        self.close_round();
        self.active_integral += active as f64 * (t1 - t0);
        if !self.active_of_tenant.is_empty() {
            self.round_active.clone_from(&self.active_of_tenant);
            self.placed_of_tenant.clear();
            self.placed_of_tenant.resize(self.active_of_tenant.len(), 0);
        }
        self.round = Some((
            t0,
            t1,
            vec![0.0; self.busy_total.len()],
            vec![0.0; self.tenants.len()],
        ));
    }

    /// The index of job `job`'s tenant (for [`Recorder::held`]).
    pub(crate) fn tenant_of(&self, job: usize) -> usize {
        self.tenant_of[job]
    }

    /// `p` held its GPUs over [t0, t1]; `tenant` is [`Recorder::tenant_of`] its job (the
    /// engine keeps it with the job's other per-placement fields).
    pub(crate) fn held(
        &mut self,
        (cluster, jobs): (&Cluster, &[Job]),
        p: &Placement,
        tenant: usize,
        t0: f64,
        t1: f64,
    ) {
        let gpus: usize = p.pieces.iter().map(|x| x.gpus.len()).sum();
        if let Some(n) = self.placed_of_tenant.get_mut(tenant) {
            *n += 1;
        }
        let (cpu_s, mem_s) = (
            p.cpus_per_gpu * gpus as f64 * (t1 - t0),
            p.mem_gb_per_gpu * gpus as f64 * (t1 - t0),
        );
        self.cpu_mem_total.0 += cpu_s;
        self.cpu_mem_total.1 += mem_s;
        self.cpu_mem_round.0 += cpu_s;
        self.cpu_mem_round.1 += mem_s;
        // A job sharing its GPUs counts half of each: two sharers make one busy GPU.
        let weight = if p.sharing.is_some() { 0.5 } else { 1.0 };
        for piece in &p.pieces {
            let j = cluster.servers[piece.server].gpu_type;
            let gpu_s = weight * piece.gpus.len() as f64 * (t1 - t0);
            self.busy_total[j] += gpu_s;
            if let Some((_, _, busy, share)) = &mut self.round {
                busy[j] += gpu_s;
                share[tenant] += gpu_s;
            }
            if let Some(bars) = &mut self.gantt {
                for &gpu in &piece.gpus {
                    bars.push(GanttBar {
                        server: piece.server,
                        gpu,
                        job: jobs[p.job].id,
                        t0,
                        t1,
                        cpus: p.cpus_per_gpu,
                        mem_gb: p.mem_gb_per_gpu,
                        slowdown: p.sharing.map(|s| s.slowdown),
                        accumulation: p.sharing.map(|s| s.accumulation),
                        copy: piece.copy,
                    });
                }
            }
        }
    }

    pub(crate) fn start(&mut self, job: usize, t: f64) {
        self.start[job].get_or_insert(t);
    }

    pub(crate) fn finish(&mut self, job: usize, t: f64) {
        if let Some(n) = self.active_of_tenant.get_mut(self.tenant_of[job]) {
            *n -= 1;
        }
        self.finish[job] = Some(t);
        self.contention[job] = self.active_integral - self.contention[job];
    }

    fn close_round(&mut self) {
        if let Some((t0, t1, busy, share)) = self.round.take() {
            let span = (t1 - t0).max(f64::MIN_POSITIVE);
            let work = std::mem::take(&mut self.work_round);
            let all_waiting = !self.round_active.is_empty()
                && self
                    .round_active
                    .iter()
                    .zip(&self.placed_of_tenant)
                    .all(|(active, placed)| active > placed);
            if all_waiting {
                self.backlogged.0 += work;
                self.backlogged.1 += t1 - t0;
            }
            let busy = busy
                .iter()
                .zip(&self.gpus_per_type)
                .map(|(b, n)| if *n > 0.0 { b / (n * span) } else { 0.0 })
                .collect();
            push_bounded(&mut self.series, (t0, t1, busy), MAX_SAMPLES);
            let gpus = share.iter().map(|g| g / span).collect();
            // With a tenant per job (Gavel traces), keep the share series to a bounded size.
            let max_shares = (MAX_SHARE_VALUES / self.tenants.len().max(1)).clamp(64, MAX_SAMPLES);
            push_bounded(&mut self.shares, (t0, t1, gpus), max_shares);
            let (cpu_s, mem_s) = std::mem::take(&mut self.cpu_mem_round);
            let fraction = |used: f64, total: f64| {
                if total > 0.0 {
                    used / (total * span)
                } else {
                    0.0
                }
            };
            push_bounded(
                &mut self.cpu_mem_series,
                (
                    t0,
                    t1,
                    vec![
                        fraction(cpu_s, self.cluster_cpus),
                        fraction(mem_s, self.cluster_mem),
                    ],
                ),
                MAX_SAMPLES,
            );
        }
    }

    pub(crate) fn result(
        mut self,
        policy: String,
        cluster: &Cluster,
        jobs: &[Job],
        runnable: &[bool],
        measure_ids: Option<(usize, usize)>,
    ) -> SimResult {
        self.close_round();
        let outcomes: Vec<JobOutcome> = jobs
            .iter()
            .enumerate()
            .map(|(i, job)| {
                let jct = self.finish[i].map(|f| f - job.arrival);
                let rho = jct.map(|jct| {
                    let contention = (self.contention[i] / jct.max(f64::MIN_POSITIVE)).max(1.0);
                    jct / isolated_time(cluster, job, contention)
                });
                JobOutcome {
                    id: job.id,
                    tenant: job.tenant.clone(),
                    arrival_s: job.arrival,
                    start_s: self.start[i],
                    finish_s: self.finish[i],
                    jct_s: jct,
                    rho,
                }
            })
            .collect();
        let jcts = ascending(outcomes.iter().filter_map(|o| o.jct_s).collect());
        let rhos: Vec<f64> = outcomes.iter().filter_map(|o| o.rho).collect();
        let makespan = self.finish.iter().flatten().copied().fold(0.0, f64::max);
        let measured = measure_ids.map(|(from, to)| measure(&outcomes, from, to));
        let over_makespan = |used: f64, total: f64| {
            if total > 0.0 && makespan > 0.0 {
                used / (total * makespan)
            } else {
                0.0
            }
        };
        let jobs_unfinished = runnable
            .iter()
            .zip(&outcomes)
            .filter(|(r, o)| **r && o.jct_s.is_none())
            .count();
        SimResult {
            policy,
            gpu_types: cluster.types.clone(),
            jobs_completed: jcts.len(),
            jobs_unschedulable: jobs
                .iter()
                .zip(runnable)
                .filter(|(_, r)| !**r)
                .map(|(j, _)| j.id)
                .collect(),
            avg_jct_s: mean(&jcts),
            median_jct_s: percentile(&jcts, 50.0),
            p99_jct_s: percentile(&jcts, 99.0),
            makespan_s: makespan,
            utilization: self
                .busy_total
                .iter()
                .zip(&self.gpus_per_type)
                .map(|(b, n)| {
                    if *n > 0.0 && makespan > 0.0 {
                        b / (n * makespan)
                    } else {
                        0.0
                    }
                })
                .collect(),
            avg_rho: mean(&rhos),
            max_rho: rhos.iter().copied().fold(0.0, f64::max),
            jobs: outcomes,
            utilization_over_time: self.series,
            tenants: self.tenants,
            tenant_share_over_time: self.shares,
            gantt_jobs: if self.gantt.is_some() {
                jobs.iter()
                    .map(|job| GanttJob {
                        id: job.id,
                        model: job.job_type.clone(),
                        tenant: job.tenant.clone(),
                        gpus: job.scale_factor,
                        rate: job.rate.clone(),
                    })
                    .collect()
            } else {
                Vec::new()
            },
            gantt: self.gantt.unwrap_or_default(),
            cpu_utilization: over_makespan(self.cpu_mem_total.0, self.cluster_cpus),
            mem_utilization: over_makespan(self.cpu_mem_total.1, self.cluster_mem),
            cpu_mem_over_time: self.cpu_mem_series,
            measured,
            jobs_unfinished,
            normalised_work_per_hour: if makespan > 0.0 {
                self.work_total / makespan
            } else {
                0.0
            },
            backlogged_work_per_hour: (self.backlogged.1 > 0.0)
                .then(|| self.backlogged.0 / self.backlogged.1),
            backlogged_s: self.backlogged.1,
            idle_while_waiting_gpu_h: self.idle_while_waiting_gpu_s / 3600.0,
            notes: Vec::new(),
            parties: String::new(),
            tenant_fairness: None,
        }
    }
}

/// Average and p99 JCT of the jobs with ids in [from, to) that finished.
pub fn measure(outcomes: &[JobOutcome], from: usize, to: usize) -> MeasuredJct {
    let in_range: Vec<&JobOutcome> = outcomes
        .iter()
        .filter(|o| (from..to).contains(&o.id))
        .collect();
    let jcts = ascending(in_range.iter().filter_map(|o| o.jct_s).collect());
    MeasuredJct {
        from_id: from,
        to_id: to,
        jobs: in_range.len(),
        completed: jcts.len(),
        avg_jct_s: mean(&jcts),
        p99_jct_s: percentile(&jcts, 99.0),
    }
}

/// Numbers kept in the tenant-share series (samples x tenants), at most.
const MAX_SHARE_VALUES: usize = 200_000;

/// A time series of per-interval averages (utilisation, shares).
pub(crate) trait Sample {
    fn span(&self) -> (f64, f64);
    fn values(&mut self) -> &mut Vec<f64>;
    fn make(t0: f64, t1: f64, values: Vec<f64>) -> Self;
}

impl Sample for UtilSample {
    fn span(&self) -> (f64, f64) {
        (self.t0, self.t1)
    }
    fn values(&mut self) -> &mut Vec<f64> {
        &mut self.busy
    }
    fn make(t0: f64, t1: f64, busy: Vec<f64>) -> Self {
        UtilSample { t0, t1, busy }
    }
}

impl Sample for ShareSample {
    fn span(&self) -> (f64, f64) {
        (self.t0, self.t1)
    }
    fn values(&mut self) -> &mut Vec<f64> {
        &mut self.gpus
    }
    fn make(t0: f64, t1: f64, gpus: Vec<f64>) -> Self {
        ShareSample { t0, t1, gpus }
    }
}

/// Appends a sample; once the series holds 2 x `max`, merges neighbours in pairs, so a long
/// run keeps between `max` and 2 x `max` samples. A merged sample is the time-weighted mean
/// over its whole span, a gap between the two (an idle jump) counting as zero, so the integral
/// of every series over time is kept.
pub(crate) fn push_bounded<S: Sample>(
    series: &mut Vec<S>,
    (t0, t1, values): (f64, f64, Vec<f64>),
    max: usize,
) {
    series.push(S::make(t0, t1, values));
    if series.len() < 2 * max.max(1) {
        return;
    }
    let old = std::mem::take(series);
    let mut it = old.into_iter();
    while let Some(mut a) = it.next() {
        let Some(mut b) = it.next() else {
            series.push(a);
            break;
        };
        let ((a0, a1), (b0, b1)) = (a.span(), b.span());
        let span = (b1 - a0).max(f64::MIN_POSITIVE);
        let (wa, wb) = ((a1 - a0) / span, (b1 - b0) / span);
        let merged: Vec<f64> = a
            .values()
            .iter()
            .zip(b.values().iter())
            .map(|(x, y)| x * wa + y * wb)
            .collect();
        series.push(S::make(a0, b1, merged));
    }
}

/// The job's run time on an isolated 1/N share: x_j = n_j / (N s), scaled down so sum_j x_j <= 1.
fn isolated_time(cluster: &Cluster, job: &Job, contention: f64) -> f64 {
    let s = f64::from(job.scale_factor);
    let mut x: Vec<f64> = (0..cluster.types.len())
        .map(|j| f64::from(cluster.gpus_of_type(j)) / (contention * s))
        .collect();
    let sum: f64 = x.iter().sum();
    if sum > 1.0 {
        x.iter_mut().for_each(|v| *v /= sum);
    }
    let rate: f64 = x.iter().zip(&job.rate).map(|(x, r)| x * r).sum();
    job.total_steps / rate.max(f64::MIN_POSITIVE)
}

pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

/// Nearest-rank percentile of sorted values (the median averages the two middle values).
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    match sorted.len() {
        0 => 0.0,
        n if p == 50.0 && n % 2 == 0 => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
        n => {
            let rank = ((p / 100.0) * n as f64).ceil() as usize;
            sorted[rank.clamp(1, n) - 1]
        }
    }
}

/// `values` in ascending order (`total_cmp`), through the shared index sort
/// (`fairground_core::order`): the same order as `sort_by(f64::total_cmp)`, without compiling
/// another copy of the stable sort into the browser's engine (5 KB).
fn ascending(values: Vec<f64>) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    fairground_core::order::sort_indices_by(&mut order, &|a, b| values[a].total_cmp(&values[b]));
    order.into_iter().map(|i| values[i]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_series_are_merged_keeping_their_integral() {
        let mut series: Vec<UtilSample> = Vec::new();
        let mut integral = 0.0;
        let mut t = 0.0;
        for k in 0..1000 {
            // Rounds of 360 s with an idle gap of 100 s every tenth round.
            if k % 10 == 0 {
                t += 100.0;
            }
            let v = (k % 7) as f64 / 7.0;
            integral += v * 360.0;
            push_bounded(&mut series, (t, t + 360.0, vec![v]), 100);
            t += 360.0;
        }
        assert!(
            series.len() >= 100 && series.len() < 200,
            "{} samples",
            series.len()
        );
        let kept: f64 = series.iter().map(|s| s.busy[0] * (s.t1 - s.t0)).sum();
        assert!(
            (kept - integral).abs() < 1e-6 * integral,
            "{kept} vs {integral}"
        );
        assert_eq!(series.last().unwrap().t1, t, "the end stays where it was");
        assert!(
            series.windows(2).all(|w| w[0].t1 <= w[1].t0),
            "in order, no overlap"
        );
    }

    #[test]
    fn percentiles_by_hand() {
        assert_eq!(percentile(&[1.0, 2.0, 3.0, 4.0], 50.0), 2.5);
        assert_eq!(percentile(&[1.0, 2.0, 3.0], 50.0), 2.0);
        let hundred: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&hundred, 99.0), 99.0);
        assert_eq!(percentile(&[], 99.0), 0.0);
        assert_eq!(mean(&[1.0, 2.0]), 1.5);
    }
}
