use super::{Placement, RoundView, Scheduler};
use crate::model::SimError;
use crate::pool::GpuPool;
use fairground_core::{policies, GpuType, Normalization, Policy, Scenario, Tenant};
use std::collections::{BTreeMap, BTreeSet};

/// Gavel's round mechanism driven by any allocation policy of the engine.
///
/// The policy computes x_ij, the fraction of time job i should run on type j. Each round, the
/// priority of (i, j) is x_ij / (fraction of its time so far that i ran on j) — infinite while
/// it has not run there — and pairs are taken greedily by priority: a job runs on one type per
/// round, where `scale_factor` GPUs of it are free, packed onto as few servers as possible.
/// x is recomputed when the set of active jobs changed, at most once per
/// `reallocation_interval_s` of simulated time (Gavel: 1,920 s; a job that arrives meanwhile
/// waits for the next recomputation).
///
/// Job-level policies (Gavel's) see each job as a tenant with `max_gpus` = scale factor and
/// per-GPU throughput rate/scale_factor, so g_ij = s_i x_ij is exactly Gavel's formulation —
/// except that a type with fewer GPUs than the job's scale factor shows throughput 0 for it
/// (time there could never be given in a round; left in, it stalls the job).
/// Tenant-level policies (`oef-coop`, `oef-noncoop`) see each tenant as one party: its
/// throughput on a type is the mean per-GPU rate of its active jobs, its cap the sum of their
/// scale factors; its allocation g_tj is shared equally in time by its active jobs,
/// x_ij = g_tj / (m_t s_i) (scaled down so sum_j x_ij <= 1).
///
/// For speed, policies whose objective is symmetric in identical jobs (LAS, agnostic LAS, water
/// filling, max-sum, equal share) solve one party per job class — same model, scale factor and
/// rates — with weight m and cap m s for its m jobs: averaging an optimal solution over the
/// class's jobs keeps it feasible and optimal, so the optimum is the same while the LP has
/// classes, not jobs, as rows. FTF and the isolated share depend on the job count and stay
/// per job.
pub struct GavelRounds {
    policy: &'static dyn Policy,
    parties: Parties,
    interval: f64,
    last_computed: Option<f64>,
    allocated_for: BTreeSet<usize>,
    /// x[job] over cluster types.
    x: BTreeMap<usize, Vec<f64>>,
}

impl GavelRounds {
    pub fn new(policy: &str, reallocation_interval_s: f64) -> Result<GavelRounds, SimError> {
        let policy = policies::by_name(policy).ok_or_else(|| {
            SimError::Input(format!(
                "unknown policy '{policy}' (policies: {})",
                super::names().join(", ")
            ))
        })?;
        let parties = match policy.name() {
            "oef-coop" | "oef-noncoop" => Parties::Tenants,
            "gavel-ftf" | "isolated" => Parties::Jobs,
            _ => Parties::JobClasses,
        };
        Ok(GavelRounds {
            parties,
            policy,
            interval: reallocation_interval_s,
            last_computed: None,
            allocated_for: BTreeSet::new(),
            x: BTreeMap::new(),
        })
    }

    fn recompute(&mut self, view: &RoundView) -> Result<(), SimError> {
        let cluster = view.cluster;
        let gpu_types: Vec<GpuType> = cluster
            .types
            .iter()
            .enumerate()
            .map(|(j, name)| GpuType {
                name: name.clone(),
                count: cluster.gpus_of_type(j),
            })
            .collect();
        // Parties: tenants, job classes or single jobs, each with its active jobs.
        let mut parties: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for s in view.active {
            let job = &view.jobs[s.job];
            let key = match self.parties {
                Parties::Tenants => job.tenant.clone(),
                Parties::Jobs => format!("job {}", job.id),
                Parties::JobClasses => {
                    let bits: Vec<u64> = job.rate.iter().map(|r| r.to_bits()).collect();
                    format!("{} x{} {bits:?}", job.job_type, job.scale_factor)
                }
            };
            parties.entry(key).or_default().push(s.job);
        }
        let weighted = self.parties == Parties::JobClasses;
        let tenants: Vec<Tenant> = parties
            .iter()
            .map(|(name, members)| {
                // A type with fewer GPUs than the job's scale factor can never host it in a
                // round, so the policy must not give it time there.
                let per_gpu = |i: usize, j: usize| {
                    let sf = view.jobs[i].scale_factor;
                    if cluster.gpus_of_type(j) >= sf {
                        view.jobs[i].rate[j] / f64::from(sf)
                    } else {
                        0.0
                    }
                };
                let throughput = (0..cluster.types.len())
                    .map(|j| {
                        members.iter().map(|&i| per_gpu(i, j)).sum::<f64>() / members.len() as f64
                    })
                    .collect();
                let cap: u32 = members.iter().map(|&i| view.jobs[i].scale_factor).sum();
                let weight = if weighted { members.len() as f64 } else { 1.0 };
                Tenant {
                    name: name.clone(),
                    throughput,
                    weight,
                    max_gpus: Some(f64::from(cap)),
                }
            })
            .collect();
        let scenario = Scenario {
            version: 1,
            gpu_types,
            tenants,
            normalization: Normalization::Slowest,
        };
        let inst = scenario.instance().map_err(|problems| {
            SimError::Policy(
                problems
                    .iter()
                    .map(|p| p.to_string())
                    .collect::<Vec<_>>()
                    .join("; "),
            )
        })?;
        let solution = self
            .policy
            .solve(&inst)
            .map_err(|e| SimError::Policy(format!("{}: {e}", self.policy.name())))?;
        self.x.clear();
        for (t, members) in parties.values().enumerate() {
            for &i in members {
                let s = f64::from(view.jobs[i].scale_factor);
                let mut x: Vec<f64> = solution.allocation.gpus[t]
                    .iter()
                    .map(|g| g / (members.len() as f64 * s))
                    .collect();
                let sum: f64 = x.iter().sum();
                if sum > 1.0 {
                    x.iter_mut().for_each(|v| *v /= sum);
                }
                self.x.insert(i, x);
            }
        }
        self.allocated_for = view.active.iter().map(|s| s.job).collect();
        self.last_computed = Some(view.now);
        Ok(())
    }
}

impl Scheduler for GavelRounds {
    fn name(&self) -> String {
        self.policy.name().to_string()
    }

    fn schedule(&mut self, view: &RoundView) -> Result<Vec<Placement>, SimError> {
        let active: BTreeSet<usize> = view.active.iter().map(|s| s.job).collect();
        let due = self
            .last_computed
            .is_none_or(|t| view.now - t >= self.interval - 1e-9);
        if active != self.allocated_for && due && !active.is_empty() {
            self.recompute(view)?;
        }
        // (priority, job, type) over jobs that have an allocation.
        let mut pairs: Vec<(f64, usize, usize)> = Vec::new();
        for s in view.active {
            let Some(x) = self.x.get(&s.job) else {
                continue;
            };
            let elapsed = view.now - view.jobs[s.job].arrival;
            for (j, &xj) in x.iter().enumerate() {
                if xj <= 1e-9 {
                    continue;
                }
                let received = if elapsed > 0.0 {
                    s.time_on_type[j] / elapsed
                } else {
                    0.0
                };
                let priority = if received > 0.0 {
                    xj / received
                } else {
                    f64::INFINITY
                };
                pairs.push((priority, s.job, j));
            }
        }
        pairs.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        let mut pool = GpuPool::new(view.cluster);
        let mut placed = BTreeSet::new();
        let mut placements = Vec::new();
        for (_, i, j) in pairs {
            if pool.is_empty() {
                break;
            }
            if placed.contains(&i) {
                continue;
            }
            if let Some(pieces) = pool.take(j, view.jobs[i].scale_factor) {
                placed.insert(i);
                placements.push(Placement::exclusive(i, pieces));
            }
        }
        Ok(placements)
    }
}

/// Who the allocation policy sees as its tenants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Parties {
    /// The jobs' tenants (OEF is about tenants).
    Tenants,
    /// Each job (policies whose per-job shares depend on how many jobs there are).
    Jobs,
    /// Classes of identical jobs, weighted by their size (same optimum as per job, faster).
    JobClasses,
}
