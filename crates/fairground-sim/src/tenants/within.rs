//! The rule inside a tenant (`--within-tenant`): how the GPUs a tenant-level policy gives a
//! tenant reach the tenant's jobs, and the linear utility the outer policy sees for the tenant.
//!
//! A tenant-level policy solves over tenants, each one linear utility u_t(g) = sum_j s_tj g_j
//! (its proxy), and gives tenant t a bundle g_t; the inner rule then places g_t on t's active
//! jobs. Every tenant-level policy goes through the same rule, so two of them differ only in
//! what the outer policy does. The rules:
//!
//! - **`fairness`** (the default): Gavel's heterogeneity-aware max-min among the tenant's jobs,
//!   water filled, as `gavel-hierarchical` treats the jobs of one entity. Job i holds y_ij GPUs
//!   of type j (on average) and reaches the level
//!
//!   ```text
//!   level_i = sum_j (s_ij / p_i) y_ij      p_i = sum_j s_ij n_j / N
//!   s.t. sum_i y_ij <= g_tj,  sum_j y_ij <= f_i,  y >= 0
//!   ```
//!
//!   where s_ij is its speedup (per-GPU rate over its reference type's) and p_i its equal-share
//!   throughput over the *whole cluster* (n_j GPUs of type j, N in all), in the same units, so
//!   s_ij / p_i is Gavel's normalised throughput per GPU. The levels are raised together
//!   (weight 1 per job) until each job is frozen (its scale factor f_i, or nothing left it can
//!   use), by core's water filling ([`water_filling_with_units`]). Jobs of one model then get
//!   about equal GPUs (until one reaches its scale factor); jobs of different models get equal
//!   normalised levels, not equal GPUs.
//! - **`fifo`**: the tenant's jobs in arrival order, each taking up to its scale factor from
//!   what is left of the bundle, on the types it gains most from first (Gavel's FIFO within an
//!   entity).
//! - **`equal-time`**: the first split Fairground had ([`TenantJobs::split`]): every job the
//!   same fraction of time on each type of the bundle, then types moved between jobs by
//!   comparative advantage above those floors.
//!
//! **The proxy** (what the outer policy sees), in reference-GPU work per GPU of each type:
//! - `equal-time` and `fifo`: s_tj = sum_i f_i s_ij / S_t, the scale-factor-weighted mean of the
//!   jobs' speedups, which is exactly what equal time delivers. Under `fifo` which jobs the
//!   bundle reaches depends on its size, and no linear utility can know that; the weighted mean
//!   is its value when every job is served alike.
//! - `fairness`: s_tj = sum_{i: s_ij > 0} p_i / sum_{i: s_ij > 0} (p_i / s_ij), the
//!   p-weighted harmonic mean of the speedups on type j of the jobs that can run there. It is
//!   exactly what the fairness rule delivers from a bundle of one type while no job is at its
//!   scale factor: every job at one level L holds y_i = L p_i / s_ij GPUs and does s_ij y_i = L
//!   p_i work. (OEF's bundles are mostly of one type.) Bundles of several types and jobs at
//!   their scale factors make the delivered value differ; the run reports by how much.
//!
//! OEF's sharing incentive and envy-freeness are guarantees on the proxy; what a tenant's jobs
//! actually get is judged separately on the delivered value ([`super::TenantFairness`]).

use super::{dot, Split, TenantJobs};
use fairground_core::order::sort_indices_by;
use fairground_core::policies::water_filling_with_units;
use serde::{Deserialize, Serialize};

/// How a tenant's GPUs reach its jobs (`--within-tenant`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WithinTenant {
    /// Heterogeneity-aware max-min among the tenant's jobs, water filled (the default).
    #[default]
    Fairness,
    /// The tenant's jobs in arrival order, each up to its scale factor.
    Fifo,
    /// Equal time, then comparative advantage above the equal-time floors.
    EqualTime,
}

impl WithinTenant {
    pub const ALL: [WithinTenant; 3] = [
        WithinTenant::Fairness,
        WithinTenant::Fifo,
        WithinTenant::EqualTime,
    ];

    pub fn parse(text: &str) -> Result<WithinTenant, String> {
        WithinTenant::ALL
            .into_iter()
            .find(|w| w.name() == text)
            .ok_or_else(|| {
                format!(
                    "--within-tenant '{text}': give fairness (max-min of the jobs' normalised \
                     throughput, as gavel-hierarchical), fifo (jobs in arrival order) or \
                     equal-time (equal time, then comparative advantage)"
                )
            })
    }

    pub fn name(self) -> &'static str {
        match self {
            WithinTenant::Fairness => "fairness",
            WithinTenant::Fifo => "fifo",
            WithinTenant::EqualTime => "equal-time",
        }
    }

    /// What the rule does, in the words a run's output uses.
    pub fn describe(self) -> &'static str {
        match self {
            WithinTenant::Fairness => {
                "fairness: max-min of its jobs' normalised throughput, water filled"
            }
            WithinTenant::Fifo => "fifo: its jobs in arrival order, each up to its scale factor",
            WithinTenant::EqualTime => {
                "equal-time: equal time, then comparative advantage above those floors"
            }
        }
    }
}

/// A rule with what it reads of the cluster: its GPUs of each type (the fairness rule normalises
/// each job by its equal-share throughput over the whole cluster, which a bundle cannot tell).
#[derive(Debug, Clone, PartialEq)]
pub struct InnerRule {
    pub rule: WithinTenant,
    cluster: Vec<f64>,
}

impl InnerRule {
    pub fn new(rule: WithinTenant, cluster: Vec<f64>) -> InnerRule {
        InnerRule { rule, cluster }
    }

    /// p_i: the mean of a job's speedups over the cluster's GPUs (its equal-share throughput in
    /// reference-GPU units).
    fn equal_share(&self, speedup: &[f64]) -> f64 {
        let total: f64 = self.cluster.iter().sum();
        if total > 0.0 {
            dot(speedup, &self.cluster) / total
        } else {
            0.0
        }
    }

    /// s_ij / p_i: Gavel's normalised throughput per GPU (0 for a job that can run nowhere).
    fn unit(&self, speedup: &[f64]) -> Vec<f64> {
        let p = self.equal_share(speedup);
        speedup
            .iter()
            .map(|s| if p > 0.0 { s / p } else { 0.0 })
            .collect()
    }

    /// s_t: the linear utility per GPU of each type the outer policy sees (the module's proxy).
    pub fn proxy(&self, jobs: &TenantJobs, types: usize) -> Vec<f64> {
        match self.rule {
            WithinTenant::EqualTime | WithinTenant::Fifo => jobs.utility(types),
            WithinTenant::Fairness => {
                let p: Vec<f64> = jobs
                    .classes
                    .iter()
                    .map(|c| self.equal_share(&c.speedup))
                    .collect();
                (0..types)
                    .map(|j| {
                        let (mut work, mut gpus) = (0.0, 0.0);
                        for job in &jobs.jobs {
                            let s = jobs.classes[job.class].speedup[j];
                            if s > 0.0 {
                                work += p[job.class];
                                gpus += p[job.class] / s;
                            }
                        }
                        if gpus > 0.0 {
                            work / gpus
                        } else {
                            0.0
                        }
                    })
                    .collect()
            }
        }
    }

    /// The rule's split of `bundle`; None when its LP failed (the caller falls back to
    /// [`TenantJobs::equal_time`] and says so).
    pub fn split(&self, jobs: &TenantJobs, bundle: &[f64]) -> Option<Split> {
        match self.rule {
            WithinTenant::EqualTime => jobs.split(bundle).ok(),
            WithinTenant::Fifo => Some(fifo_split(jobs, bundle)),
            WithinTenant::Fairness => self.fairness_split(jobs, bundle),
        }
    }

    /// V_t(bundle): what the tenant's jobs get from `bundle` under the rule (the equal-time
    /// split's value if the rule's LP fails).
    pub fn value(&self, jobs: &TenantJobs, bundle: &[f64]) -> f64 {
        self.split(jobs, bundle)
            .map_or_else(|| jobs.equal_time(bundle).utility, |s| s.utility)
    }

    /// The fairness rule (the module's program), over groups of identical jobs: the same class
    /// (speedups) and scale factor, m jobs, one party of weight m and cap m f.
    fn fairness_split(&self, jobs: &TenantJobs, bundle: &[f64]) -> Option<Split> {
        let types = bundle.len();
        // (class, scale factor, members)
        let mut groups: Vec<(usize, f64, f64)> = Vec::new();
        let mut row_of_job = Vec::with_capacity(jobs.jobs.len());
        for job in &jobs.jobs {
            let g = match groups
                .iter()
                .position(|&(c, f, _)| c == job.class && f == job.gpus)
            {
                Some(g) => {
                    groups[g].2 += 1.0;
                    g
                }
                None => {
                    groups.push((job.class, job.gpus, 1.0));
                    groups.len() - 1
                }
            };
            row_of_job.push(g);
        }
        let unit: Vec<Vec<f64>> = groups
            .iter()
            .map(|&(c, _, _)| self.unit(&jobs.classes[c].speedup))
            .collect();
        // GPUs of each type per member of each group.
        let held: Vec<usize> = (0..types).filter(|&j| bundle[j] > 0.0).collect();
        let per_job: Vec<Vec<f64>> = match held.as_slice() {
            [] => vec![vec![0.0; types]; groups.len()],
            &[j] => one_type_levels(&groups, &unit, bundle, j),
            _ if groups.len() == 1 => one_group(&groups[0], &unit[0], bundle),
            &[a, b] => match levels_two_types(&groups, &unit, bundle, (a, b)) {
                Some(y) => y,
                None => levels_by_lp(&groups, &unit, bundle)?,
            },
            _ => levels_by_lp(&groups, &unit, bundle)?,
        };
        let time_share = per_job
            .iter()
            .zip(&groups)
            .map(|(y, &(_, f, _))| {
                let mut x: Vec<f64> = y.iter().map(|g| (g / f).max(0.0)).collect();
                let sum: f64 = x.iter().sum();
                if sum > 1.0 {
                    x.iter_mut().for_each(|v| *v /= sum);
                }
                x
            })
            .collect::<Vec<_>>();
        let utility = time_share
            .iter()
            .zip(&groups)
            .map(|(x, &(c, f, m))| m * f * dot(&jobs.classes[c].speedup, x))
            .sum();
        Some(Split {
            time_share,
            row_of_job,
            utility,
        })
    }
}

/// Water filling on a bundle of one type j, without an LP: a job of group g at level L holds
/// L / u_gj GPUs, up to its scale factor (level f_g u_gj). Groups reach their caps in order of
/// that level; the rest share what is left at one level. Groups that cannot run on j get none.
fn one_type_levels(
    groups: &[(usize, f64, f64)],
    unit: &[Vec<f64>],
    bundle: &[f64],
    j: usize,
) -> Vec<Vec<f64>> {
    let types = bundle.len();
    let mut order: Vec<usize> = (0..groups.len()).filter(|&g| unit[g][j] > 0.0).collect();
    let cap_level = |g: usize| groups[g].1 * unit[g][j];
    sort_indices_by(&mut order, &|a, b| cap_level(a).total_cmp(&cap_level(b)));
    let mut left = bundle[j];
    // GPUs the uncapped groups need per unit of level.
    let mut per_level: f64 = order.iter().map(|&g| groups[g].2 / unit[g][j]).sum();
    let mut y = vec![vec![0.0; types]; groups.len()];
    for (k, &g) in order.iter().enumerate() {
        let (_, f, m) = groups[g];
        if left / per_level >= cap_level(g) {
            y[g][j] = f;
            left -= m * f;
            per_level -= m / unit[g][j];
            continue;
        }
        let level = left / per_level;
        for &h in &order[k..] {
            y[h][j] = level / unit[h][j];
        }
        break;
    }
    y
}

/// One group (identical jobs) on a bundle of several types: each member an m-th of every type,
/// or, when that exceeds its scale factor, its scale factor's worth from its best types first.
/// Every member reaches the same level, the most the bundle allows.
fn one_group(group: &(usize, f64, f64), unit: &[f64], bundle: &[f64]) -> Vec<Vec<f64>> {
    let &(_, f, m) = group;
    let share: Vec<f64> = bundle
        .iter()
        .zip(unit)
        .map(|(g, u)| if *u > 0.0 { g / m } else { 0.0 })
        .collect();
    if share.iter().sum::<f64>() <= f {
        return vec![share];
    }
    let mut order: Vec<usize> = (0..bundle.len()).filter(|&j| share[j] > 0.0).collect();
    sort_indices_by(&mut order, &|a, b| unit[b].total_cmp(&unit[a]));
    let mut y = vec![0.0; bundle.len()];
    let mut want = f;
    for j in order {
        y[j] = share[j].min(want);
        want -= y[j];
    }
    vec![y]
}

/// Relative: a group that cannot rise past its level by more than this is frozen there (core's
/// water filling's tolerance, `LEVEL_TOLERANCE`).
const LEVEL_TOLERANCE: f64 = 1e-6;

/// The most a level counts as not exceeded (as core's water filling).
fn top(level: f64) -> f64 {
    level * (1.0 + LEVEL_TOLERANCE) + 1e-12
}

/// Water filling on a bundle of two types (a, b), without an LP: the same rounds as core's
/// ([`water_filling_with_units`]: raise every rising group's level by the most c they can all
/// reach, freeze the groups that cannot pass their level while every group keeps its own,
/// until none rises), with each question answered by [`TwoTypes::fits`], an exact test of
/// whether given levels can all be reached: c by bisection (to 1e-13 relative), a group frozen
/// when it cannot reach [`top`] of its level. None when a round freezes nobody (round-off); the
/// caller then takes core's water filling.
fn levels_two_types(
    groups: &[(usize, f64, f64)],
    unit: &[Vec<f64>],
    bundle: &[f64],
    (a, b): (usize, usize),
) -> Option<Vec<Vec<f64>>> {
    let able: Vec<usize> = (0..groups.len())
        .filter(|&g| unit[g][a] > 0.0 || unit[g][b] > 0.0)
        .collect();
    let two = TwoTypes {
        rates: able.iter().map(|&g| (unit[g][a], unit[g][b])).collect(),
        cap: able.iter().map(|&g| groups[g].1).collect(),
        members: able.iter().map(|&g| groups[g].2).collect(),
        bundle: (bundle[a], bundle[b]),
    };
    let n = able.len();
    let mut levels = vec![0.0; n];
    let mut frozen = vec![false; n];
    while frozen.iter().any(|&f| !f) {
        let with = |c: f64| -> Vec<f64> {
            (0..n)
                .map(|k| levels[k] + if frozen[k] { 0.0 } else { c })
                .collect()
        };
        // The most any rising group could reach alone bounds c.
        let mut hi = (0..n)
            .filter(|&k| !frozen[k])
            .map(|k| two.cap[k] * two.rates[k].0.max(two.rates[k].1) - levels[k])
            .fold(f64::INFINITY, f64::min)
            .max(0.0);
        let mut lo = 0.0;
        if two.fits(&with(hi)).is_some() {
            lo = hi;
        } else {
            while hi - lo > 1e-13 * hi.max(1e-300) {
                let mid = 0.5 * (lo + hi);
                if two.fits(&with(mid)).is_some() {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
        }
        levels = with(lo);
        let mut frozen_now = 0;
        for k in 0..n {
            if frozen[k] {
                continue;
            }
            let mut higher = levels.clone();
            higher[k] = top(levels[k]);
            if two.fits(&higher).is_none() {
                frozen[k] = true;
                frozen_now += 1;
            }
        }
        if frozen_now == 0 {
            return None;
        }
    }
    let held = two.fits(&levels)?;
    let mut y = vec![vec![0.0; bundle.len()]; groups.len()];
    for (k, &g) in able.iter().enumerate() {
        y[g][a] = held[k].0;
        y[g][b] = held[k].1;
    }
    Some(y)
}

/// Groups on a bundle of two types: per group its unit rates on the two types (alpha, beta),
/// its members' cap f and its member count m.
struct TwoTypes {
    rates: Vec<(f64, f64)>,
    cap: Vec<f64>,
    members: Vec<f64>,
    bundle: (f64, f64),
}

impl TwoTypes {
    /// Whether every group's members can each reach level t_k (x of the first type and z of the
    /// second per member, alpha x + beta z >= t_k, x + z <= f, the groups' totals within the
    /// bundle), and if so such (x, z) per member. Exact, in O(n log n):
    ///
    /// A member spending z of the second type needs x(z) = (t - beta z) / alpha of the first
    /// (linear in z), and its cap bounds z to [lo, hi]: beta > alpha forces z >= (t - alpha f)
    /// / (beta - alpha), beta < alpha allows z <= (alpha f - t) / (alpha - beta), and z beyond
    /// t / beta saves nothing. So the least of the first type needed for a given use of the
    /// second is: every group at its lo, then the second type given out by the most of the first
    /// it saves (beta / alpha, highest first) up to each group's hi, while it lasts.
    fn fits(&self, t: &[f64]) -> Option<Vec<(f64, f64)>> {
        let n = t.len();
        let (bundle_a, bundle_b) = self.bundle;
        let tol = |v: f64| v * (1.0 + 1e-12) + 1e-15;
        // Per group: [lo, hi] of z and x(z) = x0 - slope z; slope = beta / alpha (inf: alpha 0).
        let mut range = Vec::with_capacity(n);
        for k in 0..n {
            let (alpha, beta) = self.rates[k];
            let (f, t) = (self.cap[k], t[k]);
            if t <= 0.0 {
                range.push((0.0, 0.0));
                continue;
            }
            if t > tol(f * alpha.max(beta)) {
                return None;
            }
            let (lo, hi) = if alpha <= 0.0 {
                (t / beta, t / beta)
            } else if beta <= 0.0 {
                (0.0, 0.0)
            } else if beta > alpha {
                (((t - alpha * f) / (beta - alpha)).max(0.0), t / beta)
            } else if beta < alpha {
                (
                    0.0,
                    ((alpha * f - t) / (alpha - beta)).min(t / beta).max(0.0),
                )
            } else {
                (0.0, t / beta)
            };
            range.push((lo, hi.max(lo)));
        }
        let first = |k: usize, z: f64| -> f64 {
            let (alpha, beta) = self.rates[k];
            if alpha <= 0.0 {
                0.0
            } else {
                ((t[k] - beta * z) / alpha).max(0.0)
            }
        };
        let mut z: Vec<f64> = range.iter().map(|r| r.0).collect();
        let mut left_b = bundle_b - (0..n).map(|k| self.members[k] * z[k]).sum::<f64>();
        if left_b < bundle_b - tol(bundle_b) {
            return None;
        }
        let mut order: Vec<usize> = (0..n)
            .filter(|&k| self.rates[k].0 > 0.0 && range[k].1 > range[k].0)
            .collect();
        let saves = |k: usize| self.rates[k].1 / self.rates[k].0;
        sort_indices_by(&mut order, &|p, q| saves(q).total_cmp(&saves(p)));
        for k in order {
            if left_b <= 0.0 {
                break;
            }
            let more = (range[k].1 - z[k]).min(left_b / self.members[k]);
            z[k] += more;
            left_b -= more * self.members[k];
        }
        let need_a: f64 = (0..n).map(|k| self.members[k] * first(k, z[k])).sum();
        if need_a > tol(bundle_a) {
            return None;
        }
        Some((0..n).map(|k| (first(k, z[k]), z[k])).collect())
    }
}

/// The general case: core's water filling over the groups, on the bundle's GPUs. Groups that
/// gain nothing from the bundle are left out (their level could never rise, and would hold
/// everyone else's at 0).
fn levels_by_lp(
    groups: &[(usize, f64, f64)],
    unit: &[Vec<f64>],
    bundle: &[f64],
) -> Option<Vec<Vec<f64>>> {
    let types = bundle.len();
    let able: Vec<usize> = (0..groups.len())
        .filter(|&g| dot(&unit[g], bundle) > 0.0)
        .collect();
    let mut y = vec![vec![0.0; types]; groups.len()];
    if able.is_empty() {
        return Some(y);
    }
    let rates: Vec<Vec<f64>> = able.iter().map(|&g| unit[g].clone()).collect();
    let inst = fairground_core::Instance {
        type_names: (0..types).map(|j| format!("type {j}")).collect(),
        tenant_names: able.iter().map(|g| format!("group {g}")).collect(),
        count: bundle.to_vec(),
        throughput: rates.clone(),
        speedup: rates.clone(),
        weight: able.iter().map(|&g| groups[g].2).collect(),
        cap: able
            .iter()
            .map(|&g| Some(groups[g].1 * groups[g].2))
            .collect(),
        work: vec![1.0; able.len()],
        entities: Default::default(),
        co_located: Vec::new(),
    };
    let (alloc, _) = water_filling_with_units(&inst, &rates).ok()?;
    for (k, &g) in able.iter().enumerate() {
        let m = groups[g].2;
        y[g] = alloc.gpus[k].iter().map(|v| v.max(0.0) / m).collect();
    }
    Some(y)
}

/// The fifo rule: jobs in arrival order, each up to its scale factor from what is left, on its
/// fastest types first (ties: the cluster's type order).
fn fifo_split(jobs: &TenantJobs, bundle: &[f64]) -> Split {
    let mut left = bundle.to_vec();
    let mut time_share = Vec::with_capacity(jobs.jobs.len());
    let mut utility = 0.0;
    for job in &jobs.jobs {
        let speedup = &jobs.classes[job.class].speedup;
        let mut order: Vec<usize> = (0..bundle.len()).filter(|&j| speedup[j] > 0.0).collect();
        sort_indices_by(&mut order, &|a, b| speedup[b].total_cmp(&speedup[a]));
        let mut x = vec![0.0; bundle.len()];
        let mut want = job.gpus;
        for j in order {
            let take = left[j].max(0.0).min(want);
            left[j] -= take;
            want -= take;
            x[j] = take / job.gpus;
            utility += speedup[j] * take;
        }
        time_share.push(x);
    }
    Split {
        row_of_job: (0..jobs.jobs.len()).collect(),
        time_share,
        utility,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tenants::speedups;
    use rand::{Rng, SeedableRng};

    fn tenant(jobs: &[(Vec<f64>, f64)]) -> TenantJobs {
        let mut t = TenantJobs::default();
        for (s, f) in jobs {
            t.add(s.clone(), *f);
        }
        t
    }

    /// Each job's level sum_j (s_ij / p_i) y_ij and GPUs sum_j y_ij, from the split, written out
    /// from the module's definition.
    fn levels_and_gpus(inner: &InnerRule, t: &TenantJobs, split: &Split) -> Vec<(f64, f64)> {
        t.jobs
            .iter()
            .zip(&split.row_of_job)
            .map(|(job, &row)| {
                let s = &t.classes[job.class].speedup;
                let total: f64 = inner.cluster.iter().sum();
                let p: f64 = s
                    .iter()
                    .zip(&inner.cluster)
                    .map(|(a, n)| a * n)
                    .sum::<f64>()
                    / total;
                let y: Vec<f64> = split.time_share[row].iter().map(|x| x * job.gpus).collect();
                // A job that can run nowhere (p = 0) has level 0.
                let level = if p > 0.0 {
                    s.iter().zip(&y).map(|(a, y)| a / p * y).sum()
                } else {
                    0.0
                };
                (level, y.iter().sum())
            })
            .collect()
    }

    /// The worked example (docs/simulator.md, "Who shares"): four 1-GPU jobs and one 8-GPU job of
    /// one model on 6 V100s. Fairness: equal levels, the 1-GPU jobs at their scale factor, so 1
    /// GPU each and 2 for the 8-GPU job; equal time: 6/12 of the time each, 0.5 and 4 GPUs; fifo
    /// (the 8-GPU job first): all 6 to it.
    #[test]
    fn the_worked_example() {
        let jobs = [
            (vec![1.0], 8.0),
            (vec![1.0], 1.0),
            (vec![1.0], 1.0),
            (vec![1.0], 1.0),
            (vec![1.0], 1.0),
        ];
        let t = tenant(&jobs);
        for (rule, want) in [
            (WithinTenant::Fairness, [2.0, 1.0, 1.0, 1.0, 1.0]),
            (WithinTenant::EqualTime, [4.0, 0.5, 0.5, 0.5, 0.5]),
            (WithinTenant::Fifo, [6.0, 0.0, 0.0, 0.0, 0.0]),
        ] {
            let inner = InnerRule::new(rule, vec![8.0]);
            let split = inner.split(&t, &[6.0]).unwrap();
            for (k, (job, &row)) in t.jobs.iter().zip(&split.row_of_job).enumerate() {
                let gpus = split.time_share[row][0] * job.gpus;
                assert!((gpus - want[k]).abs() < 1e-9, "{rule:?} job {k}: {gpus}");
            }
            assert!((split.utility - 6.0).abs() < 1e-9, "{rule:?}: {split:?}");
        }
    }

    /// Two types by hand: a k80 and a v100 GPU in the bundle (1 + 1 in the cluster), two 1-GPU
    /// jobs, a with speedups (1, 1) and b with (1, 3). p_a = 1, p_b = 2, so a's level is
    /// y_k80 + y_v100 and b's (y_k80 + 3 y_v100) / 2. Max-min: b takes the v100 (level 1.5 at
    /// most, its cap) and a the k80 (level 1); a cannot rise past 1 without taking v100 time
    /// from b, which would bring b below a... at equal levels L: a = (1 - v, v), b = (0, 1 - v)
    /// with a's level 1 and b's 1.5 (1 - v): b above a for v < 1/3, so the max-min is a at 1, b
    /// at 1.5 (v = 0): a on the k80, b on the v100.
    #[test]
    fn two_types_by_hand() {
        let t = tenant(&[(vec![1.0, 1.0], 1.0), (vec![1.0, 3.0], 1.0)]);
        let inner = InnerRule::new(WithinTenant::Fairness, vec![1.0, 1.0]);
        let split = inner.split(&t, &[1.0, 1.0]).unwrap();
        let got = levels_and_gpus(&inner, &t, &split);
        assert!((got[0].0 - 1.0).abs() < 1e-6, "{got:?} {split:?}");
        assert!((got[1].0 - 1.5).abs() < 1e-6, "{got:?} {split:?}");
        // Work in reference-GPU units: a 1, b 3.
        assert!((split.utility - 4.0).abs() < 1e-6, "{split:?}");
    }

    /// The fast paths (one type; one kind of job) against core's water filling on random
    /// tenants: the same sorted levels, every job within its scale factor and the bundle.
    #[test]
    fn the_fast_paths_reach_the_water_fillings_levels() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(23);
        let mut capped = 0;
        for case in 0..300 {
            let types = 3;
            let cluster: Vec<f64> = (0..types).map(|_| rng.random_range(1..9) as f64).collect();
            let inner = InnerRule::new(WithinTenant::Fairness, cluster);
            let kinds: Vec<Vec<f64>> = (0..rng.random_range(1..4))
                .map(|_| {
                    speedups(
                        &(0..types)
                            .map(|_| {
                                if rng.random_bool(0.2) {
                                    0.0
                                } else {
                                    rng.random_range(0.5..6.0)
                                }
                            })
                            .collect::<Vec<_>>(),
                    )
                })
                .collect();
            let one_kind = case % 2 == 0;
            let jobs: Vec<(Vec<f64>, f64)> = (0..rng.random_range(1..8))
                .map(|_| {
                    let k = if one_kind {
                        0
                    } else {
                        rng.random_range(0..kinds.len())
                    };
                    let f = if one_kind {
                        2.0
                    } else {
                        [1.0, 2.0, 4.0][rng.random_range(0..3)]
                    };
                    (kinds[k].clone(), f)
                })
                .collect();
            let t = tenant(&jobs);
            let mut bundle = vec![0.0; types];
            if one_kind {
                for g in &mut bundle {
                    *g = rng.random_range(0.0..1.0) * t.gpus();
                }
            } else {
                bundle[rng.random_range(0..types)] = rng.random_range(0.1..1.5) * t.gpus();
            }
            let fast = inner.split(&t, &bundle).unwrap();
            // The groups of the split, written again for the LP.
            let groups: Vec<(usize, f64, f64)> = {
                let mut g: Vec<(usize, f64, f64)> = Vec::new();
                for job in &t.jobs {
                    match g
                        .iter_mut()
                        .find(|(c, f, _)| *c == job.class && *f == job.gpus)
                    {
                        Some(e) => e.2 += 1.0,
                        None => g.push((job.class, job.gpus, 1.0)),
                    }
                }
                g
            };
            let unit: Vec<Vec<f64>> = groups
                .iter()
                .map(|&(c, _, _)| inner.unit(&t.classes[c].speedup))
                .collect();
            let by_lp = levels_by_lp(&groups, &unit, &bundle).unwrap();
            let lp_split = Split {
                time_share: by_lp
                    .iter()
                    .zip(&groups)
                    .map(|(y, &(_, f, _))| y.iter().map(|v| v / f).collect())
                    .collect(),
                row_of_job: fast.row_of_job.clone(),
                utility: 0.0,
            };
            let mut a: Vec<(f64, f64)> = levels_and_gpus(&inner, &t, &fast);
            let mut b: Vec<(f64, f64)> = levels_and_gpus(&inner, &t, &lp_split);
            for ((_, gpus), job) in a.iter().zip(&t.jobs) {
                assert!(*gpus <= job.gpus * (1.0 + 1e-9), "case {case}: {a:?}");
                capped += usize::from((gpus - job.gpus).abs() < 1e-9);
            }
            for (j, g) in bundle.iter().enumerate() {
                let used: f64 = t
                    .jobs
                    .iter()
                    .zip(&fast.row_of_job)
                    .map(|(job, &r)| fast.time_share[r][j] * job.gpus)
                    .sum();
                assert!(used <= g * (1.0 + 1e-9) + 1e-12, "case {case}");
            }
            a.sort_by(|x, y| x.0.total_cmp(&y.0));
            b.sort_by(|x, y| x.0.total_cmp(&y.0));
            for (x, y) in a.iter().zip(&b) {
                assert!(
                    (x.0 - y.0).abs() <= 1e-5 * y.0.max(1.0),
                    "case {case}: {a:?} against the LP's {b:?} ({jobs:?} {bundle:?})"
                );
            }
        }
        assert!(capped > 50, "{capped} jobs at their scale factor");
    }

    /// The two-type water filling against core's (microlp) on random tenants: the same sorted
    /// levels, within every scale factor and the bundle, and an answer nearly every time.
    #[test]
    fn the_two_type_water_filling_reaches_cores_levels() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(29);
        let mut certified = 0;
        for case in 0..200 {
            let types = 2;
            let cluster: Vec<f64> = (0..types).map(|_| rng.random_range(1..9) as f64).collect();
            let inner = InnerRule::new(WithinTenant::Fairness, cluster);
            let groups: Vec<(usize, f64, f64)> = (0..rng.random_range(2..12))
                .map(|c| {
                    (
                        c,
                        [1.0, 2.0, 4.0, 8.0][rng.random_range(0..4)],
                        rng.random_range(1..4) as f64,
                    )
                })
                .collect();
            let unit: Vec<Vec<f64>> = groups
                .iter()
                .map(|_| {
                    let rates: Vec<f64> = (0..types)
                        .map(|_| {
                            if rng.random_bool(0.15) {
                                0.0
                            } else {
                                rng.random_range(0.5..8.0)
                            }
                        })
                        .collect();
                    inner.unit(&speedups(&rates))
                })
                .collect();
            let wanted: f64 = groups.iter().map(|g| g.1 * g.2).sum();
            let bundle: Vec<f64> = (0..types)
                .map(|_| rng.random_range(0.05..0.8) * wanted / types as f64)
                .collect();
            let Some(dense) = levels_two_types(&groups, &unit, &bundle, (0, 1)) else {
                continue;
            };
            certified += 1;
            let core = levels_by_lp(&groups, &unit, &bundle).unwrap();
            let levels = |y: &[Vec<f64>]| -> Vec<f64> {
                let mut l: Vec<f64> = y.iter().zip(&unit).map(|(y, u)| dot(u, y)).collect();
                l.sort_by(f64::total_cmp);
                l
            };
            let (a, b) = (levels(&dense), levels(&core));
            for (x, z) in a.iter().zip(&b) {
                assert!(
                    (x - z).abs() <= 1e-5 * z.max(1.0),
                    "case {case}: dense {a:?}, core {b:?}"
                );
            }
            for ((y, g), j) in dense.iter().zip(&groups).zip(0..) {
                assert!(
                    y.iter().sum::<f64>() <= g.1 * (1.0 + 1e-7),
                    "group {j}: {y:?}"
                );
            }
            for (j, b) in bundle.iter().enumerate() {
                let used: f64 = dense.iter().zip(&groups).map(|(y, g)| y[j] * g.2).sum();
                assert!(used <= b * (1.0 + 1e-7) + 1e-9, "type {j}: {used} of {b}");
            }
        }
        assert!(certified >= 190, "{certified} of 200 certified");
    }

    /// The fairness proxy is exact on a bundle of one type while no job is at its scale factor:
    /// V = sum_j s_tj g_j.
    #[test]
    fn the_fairness_proxy_is_what_a_one_type_bundle_delivers() {
        let t = tenant(&[
            (vec![1.0, 2.0, 4.0], 8.0),
            (vec![1.0, 1.5, 2.0], 8.0),
            (vec![1.0, 3.0, 0.0], 8.0),
        ]);
        let inner = InnerRule::new(WithinTenant::Fairness, vec![4.0, 4.0, 4.0]);
        let proxy = inner.proxy(&t, 3);
        for j in 0..3 {
            let mut bundle = vec![0.0; 3];
            bundle[j] = 3.0;
            let v = inner.split(&t, &bundle).unwrap().utility;
            assert!(
                (v - 3.0 * proxy[j]).abs() < 1e-9,
                "type {j}: {v} vs {proxy:?}"
            );
        }
        // Hand-computed on the v100: p = (7/3, 1.5, 4/3); the third job cannot run there, so
        // s = (7/3 + 1.5) / (7/3 / 4 + 1.5 / 2) = 23/8.
        assert!((proxy[2] - 23.0 / 8.0).abs() < 1e-12, "{proxy:?}");
    }

    /// Fifo by hand: jobs in arrival order take their fastest types first, up to their scale
    /// factors: a (2 GPUs, fastest on type 1) takes type 1's 1.5 and 0.5 of type 0; b (1 GPU)
    /// takes what is left of type 0; c gets nothing.
    #[test]
    fn fifo_serves_in_arrival_order() {
        let t = tenant(&[
            (vec![1.0, 2.0], 2.0),
            (vec![1.0, 3.0], 1.0),
            (vec![1.0, 1.0], 1.0),
        ]);
        let inner = InnerRule::new(WithinTenant::Fifo, vec![4.0, 4.0]);
        let split = inner.split(&t, &[1.0, 1.5]).unwrap();
        let gpus = |k: usize| -> Vec<f64> {
            split.time_share[split.row_of_job[k]]
                .iter()
                .map(|x| x * t.jobs[k].gpus)
                .collect()
        };
        assert_eq!(gpus(0), vec![0.5, 1.5]);
        assert_eq!(gpus(1), vec![0.5, 0.0]);
        assert_eq!(gpus(2), vec![0.0, 0.0]);
        assert!((split.utility - (0.5 + 3.0 + 0.5)).abs() < 1e-12);
    }

    #[test]
    fn names_round_trip_and_a_wrong_one_says_what_to_give() {
        for w in WithinTenant::ALL {
            assert_eq!(WithinTenant::parse(w.name()), Ok(w));
        }
        let e = WithinTenant::parse("fair").unwrap_err();
        assert!(
            e.contains("--within-tenant 'fair'") && e.contains("equal-time"),
            "{e}"
        );
    }
}
