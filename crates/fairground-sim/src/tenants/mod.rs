//! Tenants in the simulator: who the allocation policy shares among ([`ShareAmong`]), a tenant's
//! utility in its jobs' own units ([`TenantJobs::utility`]), how a tenant's GPUs reach its jobs
//! (the rule inside tenants, [`WithinTenant`], in `within.rs`; this file holds the `equal-time`
//! rule, [`TenantJobs::split`]: equal time, then each job where it gains most, within the
//! bundle), and what tenants received ([`TenantFairness`]).
//!
//! What follows describes the `equal-time` rule and its proxy; `within.rs` describes the others.
//!
//! OEF's parties are tenants (teams) running many jobs (../shared/BACKGROUND.md, "OEF in a
//! cluster over time"). Two things make a tenant-level allocation mean what the paper means:
//!
//! 1. **Utility in units that add across jobs.** Job i's per-GPU rate on type j, divided by its
//!    per-GPU rate on its reference type (its slowest type that can host it), is its speedup
//!    s_ij: a job of any model does 1 "reference-GPU second" of work per second on its reference
//!    type. A tenant t with active jobs J_t, scale factors f_i and S_t = sum_{i in J_t} f_i is one
//!    linear utility
//!
//!    ```text
//!    s_tj = sum_{i in J_t} f_i s_ij / S_t        u_t(g) = sum_j s_tj g_j
//!    ```
//!
//!    the scale-factor-weighted mean of its jobs' speedups: exactly the work its jobs do when the
//!    bundle g is shared equally in time (each job running g_j / S_t of the time on type j, so on
//!    f_i g_j / S_t GPUs). This is the paper's speedup vector of a tenant, in the engine's units
//!    (reference-GPU equivalents, as the playground's u_i), and no longer the plain mean of raw
//!    steps/s, which mostly said which models a tenant runs.
//!
//! 2. **The bundle placed by comparative advantage.** Given the policy's g_t, the tenant's jobs
//!    get the GPUs as the LP over the tenant's jobs says (y_ij: GPUs of type j job i holds on
//!    average):
//!
//!    ```text
//!    V_t(g) = max  sum_ij s_ij y_ij
//!             s.t. sum_i y_ij <= g_j                      (the bundle)
//!                  sum_j y_ij <= f_i                      (a job runs on at most f_i GPUs)
//!                  sum_j s_ij y_ij >= f_i sum_j s_ij g_j / D   (no job below its equal-time split)
//!                  y >= 0                                 D = max(S_t, sum_j g_j)
//!    ```
//!
//!    The equal-time split is feasible, so V_t(g) >= u_t(g): a tenant never gets less than the
//!    utility the policy solved with, and each job at least what sharing equally in time gives
//!    it. A tenant's jobs with the same speedups are one class in the LP, whatever their scale
//!    factors: the program reads a job only through its speedups and, scaled by f_i, its cap and
//!    floor, so the class's total y is split among its members in proportion to f_i (the same
//!    time share x_ij each) and an optimum over jobs averages to one over classes.
//!
//! Because the tenant receives V_t(g_t), not u_t(g_t), the run judges sharing incentive and
//! envy-freeness on V ([`Verdicts`]): SI holds for t when V_t(g_t) >= V_t(e_t), e_t its capped
//! weighted equal split; t does not envy k (where the engine's EF requires it,
//! [`fairground_core::fairness::must_not_envy`]) when V_t(g_t) >= V_t((w_t / w_k) g_k).

mod within;

pub use within::{InnerRule, WithinTenant};

use crate::small_lp::DenseLp;
use fairground_core::lp::{Lp, LpError};
use fairground_core::order::sort_indices_by;
use serde::{Deserialize, Serialize};

/// Who an allocation policy shares the cluster among (`--share-among`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ShareAmong {
    /// Each job is a party (Gavel's formulation; the default).
    #[default]
    Jobs,
    /// Each tenant is a party; its GPUs reach its jobs by [`TenantJobs::split`].
    Tenants,
}

impl ShareAmong {
    pub fn parse(text: &str) -> Result<ShareAmong, String> {
        match text {
            "jobs" => Ok(ShareAmong::Jobs),
            "tenants" => Ok(ShareAmong::Tenants),
            other => Err(format!(
                "--share-among '{other}': give jobs (each job a party) or tenants (each tenant a \
                 party, its GPUs split among its jobs by what each does best)"
            )),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ShareAmong::Jobs => "jobs",
            ShareAmong::Tenants => "tenants",
        }
    }
}

/// A job's speedups: its per-GPU rates divided by the rate on its reference type, the slowest
/// type it can run on (rate > 0). All zeros when it can run nowhere.
pub fn speedups(per_gpu_rates: &[f64]) -> Vec<f64> {
    let reference = per_gpu_rates
        .iter()
        .copied()
        .filter(|&r| r > 0.0)
        .fold(f64::INFINITY, f64::min);
    if !reference.is_finite() {
        return vec![0.0; per_gpu_rates.len()];
    }
    per_gpu_rates.iter().map(|r| r / reference).collect()
}

/// Jobs of one tenant with the same speedups: the speedups, and the GPUs the jobs run on at once
/// together (sum of their scale factors).
#[derive(Debug, Clone, PartialEq)]
pub struct JobClass {
    pub speedup: Vec<f64>,
    pub gpus: f64,
}

/// One tenant's active jobs, as classes of jobs with the same speedups, and each job in arrival
/// order (the order they were added).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TenantJobs {
    pub classes: Vec<JobClass>,
    pub jobs: Vec<TenantJob>,
}

/// One job of a tenant: its class in [`TenantJobs::classes`] and its scale factor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TenantJob {
    pub class: usize,
    pub gpus: f64,
}

/// How a bundle reaches a tenant's jobs: rows of fractions of time on each type (x_ij =
/// y_ij / f_i), which row each job takes (`row_of_job`, in [`TenantJobs::jobs`]' order; the
/// equal-time split has a row per class, fairness one per class and scale factor, fifo one per
/// job), and the tenant's realised utility V_t(g) in reference-GPU work.
#[derive(Debug, Clone, PartialEq)]
pub struct Split {
    pub time_share: Vec<Vec<f64>>,
    pub row_of_job: Vec<usize>,
    pub utility: f64,
}

impl TenantJobs {
    /// Each job's class: the equal-time split's rows.
    fn class_rows(&self) -> Vec<usize> {
        self.jobs.iter().map(|j| j.class).collect()
    }
}

impl TenantJobs {
    /// Adds one job (its speedups and scale factor) to its class; returns the class.
    pub fn add(&mut self, speedup: Vec<f64>, gpus: f64) -> usize {
        let class = match self.classes.iter().position(|c| c.speedup == speedup) {
            Some(c) => {
                self.classes[c].gpus += gpus;
                c
            }
            None => {
                self.classes.push(JobClass { speedup, gpus });
                self.classes.len() - 1
            }
        };
        self.jobs.push(TenantJob { class, gpus });
        class
    }

    /// S_t: the GPUs its jobs run on at once (the tenant's cap).
    pub fn gpus(&self) -> f64 {
        self.classes.iter().map(|c| c.gpus).sum()
    }

    /// s_t: the scale-factor-weighted mean of its jobs' speedups (the module's formula).
    pub fn utility(&self, types: usize) -> Vec<f64> {
        let total = self.gpus();
        (0..types)
            .map(|j| {
                let sum: f64 = self.classes.iter().map(|c| c.gpus * c.speedup[j]).sum();
                if total > 0.0 {
                    sum / total
                } else {
                    0.0
                }
            })
            .collect()
    }

    /// The equal-time split of `bundle`: every job runs bundle_j / D of the time on type j.
    pub fn equal_time(&self, bundle: &[f64]) -> Split {
        let d = self.gpus().max(bundle.iter().sum());
        let x: Vec<f64> = bundle
            .iter()
            .map(|g| if d > 0.0 { g / d } else { 0.0 })
            .collect();
        let utility = self
            .classes
            .iter()
            .map(|c| c.gpus * dot(&c.speedup, &x))
            .sum();
        Split {
            time_share: vec![x; self.classes.len()],
            row_of_job: self.class_rows(),
            utility,
        }
    }

    /// The split of `bundle` that maximises the tenant's work, no job below its equal-time
    /// split (the module's LP). An LP failure is returned, for the caller to fall back to
    /// [`TenantJobs::equal_time`] and say so.
    pub fn split(&self, bundle: &[f64]) -> Result<Split, LpError> {
        let mut held = (0..bundle.len()).filter(|&j| bundle[j] > 0.0);
        match (held.next(), held.next()) {
            (None, _) => Ok(self.equal_time(bundle)),
            (Some(j), None) => Ok(self.one_type_split(bundle, j)),
            _ => self.split_lp(bundle),
        }
    }

    /// The split of a bundle of one type j (most of OEF's bundles: its allocations are vertices,
    /// so most tenants hold one type), without an LP. The module's LP is then a fractional
    /// knapsack with lower bounds: every class that can run on j needs y_c >= f_c g_j / D (its
    /// floor, s_cj y_c >= f_c s_cj g_j / D), the floors use at most g_j (sum_c f_c <= D), and
    /// what is left is best spent on the highest s_cj first, up to each class's f_c. (Left
    /// over at all only when D > sum_c f_c, i.e. the bundle exceeds the jobs, or some class
    /// cannot run on j and its equal-time share of j would be wasted.)
    fn one_type_split(&self, bundle: &[f64], j: usize) -> Split {
        let d = self.gpus().max(bundle.iter().sum());
        let floor = |c: &JobClass| c.gpus * bundle[j] / d;
        let mut y: Vec<f64> = self
            .classes
            .iter()
            .map(|c| if c.speedup[j] > 0.0 { floor(c) } else { 0.0 })
            .collect();
        let mut left = bundle[j] - y.iter().sum::<f64>();
        let mut order: Vec<usize> = (0..self.classes.len())
            .filter(|&c| self.classes[c].speedup[j] > 0.0)
            .collect();
        sort_indices_by(&mut order, &|a, b| {
            self.classes[b].speedup[j].total_cmp(&self.classes[a].speedup[j])
        });
        for c in order {
            if left <= 0.0 {
                break;
            }
            let more = (self.classes[c].gpus - y[c]).max(0.0).min(left);
            y[c] += more;
            left -= more;
        }
        let time_share = self
            .classes
            .iter()
            .zip(&y)
            .map(|(c, &y)| {
                let mut x = vec![0.0; bundle.len()];
                x[j] = (y / c.gpus).min(1.0);
                x
            })
            .collect();
        let utility = self
            .classes
            .iter()
            .zip(&y)
            .map(|(c, y)| c.speedup[j] * y)
            .sum();
        Split {
            time_share,
            row_of_job: self.class_rows(),
            utility,
        }
    }

    /// The module's LP, for bundles of two or more types: solved by the dense simplex of
    /// [`crate::small_lp`] (certified optimal), by microlp where that finds no certified optimum.
    fn split_lp(&self, bundle: &[f64]) -> Result<Split, LpError> {
        match self.split_dense(bundle) {
            Some(split) => Ok(split),
            None => self.split_microlp(bundle),
        }
    }

    /// The module's LP as a dense program: one variable per class and type it can run on.
    fn split_dense(&self, bundle: &[f64]) -> Option<Split> {
        let types = bundle.len();
        let equal = self.equal_time(bundle);
        // (class, type) of each variable, in order.
        let vars: Vec<(usize, usize)> = self
            .classes
            .iter()
            .enumerate()
            .flat_map(|(c, class)| {
                (0..types)
                    .filter(move |&j| class.speedup[j] > 0.0)
                    .map(move |j| (c, j))
            })
            .collect();
        let speedup = |&(c, j): &(usize, usize)| self.classes[c].speedup[j];
        let mut lp = DenseLp::maximize(vars.iter().map(speedup).collect());
        for (j, g) in bundle.iter().enumerate() {
            if vars.iter().any(|v| v.1 == j) {
                lp.le(
                    vars.iter()
                        .map(|v| if v.1 == j { 1.0 } else { 0.0 })
                        .collect(),
                    g.max(0.0),
                );
            }
        }
        for (c, class) in self.classes.iter().enumerate() {
            lp.le(
                vars.iter()
                    .map(|v| if v.0 == c { 1.0 } else { 0.0 })
                    .collect(),
                class.gpus,
            );
            // Its equal-time work, a hair below so round-off cannot make the split infeasible.
            let floor = class.gpus * dot(&class.speedup, &equal.time_share[0]) * (1.0 - 1e-9);
            lp.ge(
                vars.iter()
                    .map(|v| if v.0 == c { speedup(v) } else { 0.0 })
                    .collect(),
                floor,
            );
        }
        let sol = lp.solve()?;
        let mut time_share = vec![vec![0.0; types]; self.classes.len()];
        for (&(c, j), y) in vars.iter().zip(&sol.x) {
            time_share[c][j] = y / self.classes[c].gpus;
        }
        for x in &mut time_share {
            // A member runs at most all the time (round-off can leave 1 + 1e-12).
            let sum: f64 = x.iter().sum();
            if sum > 1.0 {
                x.iter_mut().for_each(|v| *v /= sum);
            }
        }
        Some(Split {
            time_share,
            row_of_job: self.class_rows(),
            utility: sol.objective.max(equal.utility),
        })
    }

    /// The module's LP in microlp.
    fn split_microlp(&self, bundle: &[f64]) -> Result<Split, LpError> {
        let types = bundle.len();
        let equal = self.equal_time(bundle);
        let mut lp = Lp::maximize();
        // y[c][j]: GPUs of type j the whole class holds (None where it cannot run).
        let mut y = Vec::with_capacity(self.classes.len());
        for c in &self.classes {
            let size = c.gpus;
            y.push(
                (0..types)
                    .map(|j| (c.speedup[j] > 0.0).then(|| lp.var_scaled(c.speedup[j], size)))
                    .collect::<Vec<_>>(),
            );
        }
        for j in 0..types {
            let terms: Vec<_> = y
                .iter()
                .filter_map(|row| row[j].map(|v| (v, 1.0)))
                .collect();
            if !terms.is_empty() {
                lp.le(terms, bundle[j].max(0.0));
            }
        }
        for (c, row) in self.classes.iter().zip(&y) {
            let size = c.gpus;
            lp.le(row.iter().flatten().map(|&v| (v, 1.0)), size);
            // Its equal-time work, a hair below so round-off cannot make the split infeasible.
            let floor = size * dot(&c.speedup, &equal.time_share[0]) * (1.0 - 1e-9);
            let work = row
                .iter()
                .enumerate()
                .filter_map(|(j, v)| v.map(|v| (v, c.speedup[j])));
            lp.ge(work, floor);
        }
        let sol = lp.solve()?;
        let time_share = self
            .classes
            .iter()
            .zip(&y)
            .map(|(c, row)| {
                let size = c.gpus;
                let mut x: Vec<f64> = row
                    .iter()
                    .map(|v| v.map_or(0.0, |v| (sol.value(v) / size).max(0.0)))
                    .collect();
                // A member runs at most all the time (round-off can leave 1 + 1e-12).
                let sum: f64 = x.iter().sum();
                if sum > 1.0 {
                    x.iter_mut().for_each(|v| *v /= sum);
                }
                x
            })
            .collect();
        Ok(Split {
            time_share,
            row_of_job: self.class_rows(),
            utility: sol.objective().max(equal.utility),
        })
    }

    /// An upper bound of V_t(bundle) without an LP: no more than every GPU at the best speedup
    /// any of the tenant's jobs has on its type, nor every job all the time on its best type.
    pub fn value_bound(&self, bundle: &[f64]) -> f64 {
        let per_gpu: f64 = bundle
            .iter()
            .enumerate()
            .map(|(j, g)| {
                g * self
                    .classes
                    .iter()
                    .map(|c| c.speedup[j])
                    .fold(0.0, f64::max)
            })
            .sum();
        let per_job: f64 = self
            .classes
            .iter()
            .map(|c| c.gpus * c.speedup.iter().copied().fold(0.0, f64::max))
            .sum();
        per_gpu.min(per_job)
    }
}

/// What tenants actually received over a run with `--share-among tenants`: per tenant (in name
/// order), how often sharing incentive and envy-freeness held on the realised utility V_t and on
/// the policy's own linear view u_t, the worst cases, how far V_t rose above u_t, and which
/// envy-freeness rows of the policy's allocation were tight (the rows that cost efficiency).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TenantFairness {
    pub tenants: Vec<String>,
    pub weights: Vec<f64>,
    /// Recomputations at which the tenant had active jobs (was a party).
    pub recomputations: Vec<usize>,
    /// SI and EF by the linear utility u_t the policy solved with: at how many of those
    /// recomputations each held.
    pub linear_si_held: Vec<usize>,
    pub linear_ef_held: Vec<usize>,
    /// Recomputations judged on V (each costs an LP per tenant and required pair, so a run
    /// judges its recomputations 1-16, then every 2nd up to 32, every 4th up to 64, ...: 8 per
    /// doubling, [`judged_at`]), at which the tenant was a party ...
    pub judged: Vec<usize>,
    /// ... and at which V_t(g_t) >= V_t(e_t) held.
    pub si_held: Vec<usize>,
    /// ... and at which the tenant envied no one it must not envy, by V_t.
    pub ef_held: Vec<usize>,
    /// min over recomputations of V_t(g_t) / V_t(e_t), at most 1 (1: SI always held, or never a
    /// party).
    pub worst_si_ratio: Vec<f64>,
    /// max over recomputations and required k of (V_t(w_t/w_k g_k) - V_t(g_t)) / the larger, at
    /// least 0 (0: never envious; > 1e-6 is envy).
    pub worst_envy: Vec<f64>,
    /// Mean over recomputations of V_t(g_t) / u_t(g_t) (>= 1: the split's gain; 0 when never a
    /// party).
    pub mean_split_gain: Vec<f64>,
    /// tight_envy[t][k]: recomputations at which u_t(g_t)/w_t = u_t(g_k)/w_k held with equality
    /// (to 1e-6, both sides > 0) for a required pair: the EF rows that bound the policy.
    pub tight_envy: Vec<Vec<usize>>,
    /// Recomputations at which the split LP failed and the equal-time split was used instead.
    pub equal_time_fallbacks: usize,
    /// Per recomputation (thinned to at most 2 x [`crate::limits::MAX_SAMPLES`]): the time and
    /// each tenant's V_t and u_t (0 for a tenant with no active jobs).
    pub over_time: Vec<TenantSample>,
    /// The rule inside each tenant, when it is not `equal-time` (left out for `equal-time`, so
    /// that rule's output is what it was before there was a choice).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within_tenant: Option<WithinTenant>,
    /// With such a rule: per tenant, the least and the median over recomputations of V_t(g_t) /
    /// u_t(g_t), how far what the rule delivered is from the proxy the policy solved with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy_gap: Option<ProxyGap>,
    /// Every recomputation's V_t / u_t per tenant, for [`TenantFairness::proxy_gap`].
    #[serde(skip)]
    gains: Vec<Vec<f64>>,
}

/// Per tenant (the record's order): the least and the median of V_t(g_t) / u_t(g_t) over the
/// recomputations at which it was a party (1 where it never was).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProxyGap {
    pub min: Vec<f64>,
    pub median: Vec<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TenantSample {
    pub t: f64,
    pub realised: Vec<f64>,
    pub linear: Vec<f64>,
}

impl TenantFairness {
    /// An empty record over `tenants` (every tenant of the workload, in name order).
    pub fn new(tenants: Vec<String>, weights: Vec<f64>) -> TenantFairness {
        let n = tenants.len();
        TenantFairness {
            tenants,
            weights,
            recomputations: vec![0; n],
            judged: vec![0; n],
            si_held: vec![0; n],
            ef_held: vec![0; n],
            linear_si_held: vec![0; n],
            linear_ef_held: vec![0; n],
            worst_si_ratio: vec![1.0; n],
            worst_envy: vec![0.0; n],
            mean_split_gain: vec![0.0; n],
            tight_envy: vec![vec![0; n]; n],
            equal_time_fallbacks: 0,
            over_time: Vec::new(),
            within_tenant: None,
            proxy_gap: None,
            gains: vec![Vec::new(); n],
        }
    }

    /// The record of a run whose rule inside tenants is `rule` (named in the output unless it
    /// is `equal-time`).
    pub fn with_rule(mut self, rule: WithinTenant) -> TenantFairness {
        self.within_tenant = (rule != WithinTenant::EqualTime).then_some(rule);
        self
    }

    /// Fills [`TenantFairness::proxy_gap`] from the recomputations so far (with a named rule).
    pub fn summarise(&mut self) {
        if self.within_tenant.is_none() {
            return;
        }
        let mut gap = ProxyGap::default();
        for gains in &self.gains {
            let mut sorted = gains.clone();
            sorted.sort_by(f64::total_cmp);
            let (min, median) = match sorted.len() {
                0 => (1.0, 1.0),
                n if n % 2 == 1 => (sorted[0], sorted[n / 2]),
                n => (sorted[0], (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
            };
            gap.min.push(min);
            gap.median.push(median);
        }
        self.proxy_gap = Some(gap);
    }

    /// Judges one recomputation: `inst` is the policy's instance over the active tenants,
    /// `index[p]` the record's index of party p, `jobs[p]` its jobs, `alloc` the policy's
    /// allocation and `realised[p]` = V_p(g_p) as `inner` split it. `judge`: also judge SI and
    /// EF on V (what `inner` delivers from each bundle compared).
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &mut self,
        now: f64,
        inst: &fairground_core::Instance,
        index: &[usize],
        jobs: &[TenantJobs],
        alloc: &fairground_core::Allocation,
        realised: &[f64],
        judge: bool,
        inner: &InnerRule,
    ) {
        use fairground_core::fairness::{self, TOLERANCE};
        let n = self.tenants.len();
        let parties = index.len();
        let mut sample = TenantSample {
            t: now,
            realised: vec![0.0; n],
            linear: vec![0.0; n],
        };
        // The verdicts on V, one party per core (each an LP per tenant and required pair).
        let on_v: Vec<Option<OnV>> = if judge {
            fairground_core::parallel::map_indices(parties, |p| {
                Some(judge_on_v(inst, p, &jobs[p], alloc, realised[p], inner))
            })
        } else {
            vec![None; parties]
        };
        for p in 0..parties {
            let t = index[p];
            let own = realised[p];
            let linear = inst.utility(p, &alloc.gpus[p]);
            sample.realised[t] = own;
            sample.linear[t] = linear;
            let seen = self.recomputations[t] as f64;
            self.recomputations[t] += 1;
            let gain = if linear > 0.0 { own / linear } else { 1.0 };
            self.mean_split_gain[t] += (gain - self.mean_split_gain[t]) / (seen + 1.0);
            if self.within_tenant.is_some() {
                self.gains[t].push(gain);
            }
            if fairness::meets_share(inst, alloc, p) {
                self.linear_si_held[t] += 1;
            }
            if let Some(v) = &on_v[p] {
                self.judged[t] += 1;
                self.si_held[t] += usize::from(v.si_held);
                self.worst_si_ratio[t] = self.worst_si_ratio[t].min(v.si_ratio);
                self.ef_held[t] += usize::from(v.envy_free);
                self.worst_envy[t] = self.worst_envy[t].max(v.worst_envy);
            }
            // Envy-freeness on u over the pairs the engine requires, and its tight rows.
            let mut linear_envy_free = true;
            for k in (0..parties).filter(|&k| fairness::must_not_envy(inst, p, k)) {
                let relative = fairness::relative_envy(inst, alloc, p, k);
                if relative > TOLERANCE {
                    linear_envy_free = false;
                }
                let both =
                    inst.utility(p, &alloc.gpus[p]) > 0.0 && inst.utility(p, &alloc.gpus[k]) > 0.0;
                if both && relative.abs() <= TOLERANCE {
                    self.tight_envy[t][index[k]] += 1;
                }
            }
            self.linear_ef_held[t] += usize::from(linear_envy_free);
        }
        self.over_time.push(sample);
        if self.over_time.len() >= 2 * crate::limits::MAX_SAMPLES {
            // Keep every other sample: a long run keeps 1-2 x MAX_SAMPLES of them.
            let kept: Vec<TenantSample> = std::mem::take(&mut self.over_time)
                .into_iter()
                .step_by(2)
                .collect();
            self.over_time = kept;
        }
    }
}

/// One party's verdicts on V at one recomputation.
#[derive(Debug, Clone, Copy)]
struct OnV {
    si_held: bool,
    /// V_p(g_p) / V_p(e_p), at most 1.
    si_ratio: f64,
    envy_free: bool,
    /// The largest relative envy of a required pair, at least 0.
    worst_envy: f64,
}

/// Party p's verdicts on V (`own` = V_p(g_p)): SI against its capped equal split e_p, and envy
/// of each k it must not envy, V_p((w_p / w_k) g_k). [`TenantJobs::value_bound`] settles some
/// comparisons without an LP (p already has at least what the other bundle could give it).
fn judge_on_v(
    inst: &fairground_core::Instance,
    p: usize,
    jobs: &TenantJobs,
    alloc: &fairground_core::Allocation,
    own: f64,
    inner: &InnerRule,
) -> OnV {
    use fairground_core::fairness::{self, envy_relative_to_larger, TOLERANCE};
    let settled = |bundle: &[f64]| own >= jobs.value_bound(bundle) * (1.0 - TOLERANCE);
    let equal = inst.equal_split(p);
    let (si_held, si_ratio) = if settled(&equal) {
        (true, 1.0)
    } else {
        let target = inner.value(jobs, &equal);
        let ratio = if target > 0.0 {
            (own / target).min(1.0)
        } else {
            1.0
        };
        (own >= target * (1.0 - TOLERANCE), ratio)
    };
    let mut worst_envy: f64 = 0.0;
    for k in (0..inst.tenants()).filter(|&k| fairness::must_not_envy(inst, p, k)) {
        let scaled: Vec<f64> = alloc.gpus[k]
            .iter()
            .map(|g| g * inst.weight[p] / inst.weight[k])
            .collect();
        if !settled(&scaled) {
            worst_envy = worst_envy.max(envy_relative_to_larger(own, inner.value(jobs, &scaled)));
        }
    }
    OnV {
        si_held,
        si_ratio,
        envy_free: worst_envy <= TOLERANCE,
        worst_envy,
    }
}

/// Whether the k-th recomputation (from 1) is judged on V: 1-16, then every 2nd up to 32,
/// every 4th up to 64, and so on (8 per doubling, so a run of 1,024 recomputations is judged 64
/// times and the judging costs a small multiple of the splits).
pub fn judged_at(k: usize) -> bool {
    if k <= 16 {
        return k >= 1;
    }
    let doublings = usize::BITS - 1 - ((k - 1) / 16).leading_zeros();
    k.is_multiple_of(2usize << doublings)
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eight_judged_recomputations_per_doubling() {
        let judged = |to: usize| (1..=to).filter(|&k| judged_at(k)).count();
        let first: Vec<usize> = (1..=40).filter(|&k| judged_at(k)).collect();
        let mut expected: Vec<usize> = (1..=16).collect();
        expected.extend([18, 20, 22, 24, 26, 28, 30, 32, 36, 40]);
        assert_eq!(first, expected);
        assert_eq!(judged(64), 32);
        assert_eq!(judged(1024), 64);
        assert!(!judged_at(0));
    }

    #[test]
    fn speedups_are_against_the_slowest_type_that_can_host() {
        assert_eq!(speedups(&[2.0, 0.0, 8.0]), vec![1.0, 0.0, 4.0]);
        assert_eq!(speedups(&[0.0, 0.0]), vec![0.0, 0.0]);
    }

    /// Two one-GPU jobs of one tenant, hand-solved: a gains 2x from the fast type, b 4x; the
    /// bundle is 2 slow GPUs and half a fast one. Equal time (D = max(2, 2.5)): each runs 0.8 of
    /// the time slow and 0.2 fast, a works 1.2 and b 1.6, 2.8 in all. Best within the floors:
    /// work = 3.5 - 2 a_fast once both jobs run all the time, and a's floor 1.2 needs a_fast >=
    /// 0.2, so a = (0.8, 0.2) works 1.2 and b = (0.7, 0.3) works 1.9: 3.1. The fast GPU goes
    /// mostly to b, which gains most from it, as far as a's floor allows.
    #[test]
    fn a_tenants_fast_gpus_go_to_the_job_that_gains_most_within_the_floors() {
        let mut t = TenantJobs::default();
        t.add(vec![1.0, 2.0], 1.0);
        t.add(vec![1.0, 4.0], 1.0);
        assert_eq!(t.utility(2), vec![1.0, 3.0]);
        let bundle = [2.0, 0.5];
        assert!((t.equal_time(&bundle).utility - 2.8).abs() < 1e-12);
        let split = t.split(&bundle).unwrap();
        // To 1e-8: a's floor is imposed a hair (1e-9) below its equal-time work.
        assert!((split.utility - 3.1).abs() < 1e-8, "{split:?}");
        let (a, b) = (&split.time_share[0], &split.time_share[1]);
        assert!(
            (a[0] - 0.8).abs() < 1e-8 && (a[1] - 0.2).abs() < 1e-8,
            "{a:?}"
        );
        assert!(
            (b[0] - 0.7).abs() < 1e-8 && (b[1] - 0.3).abs() < 1e-8,
            "{b:?}"
        );
    }

    /// Where the floors do not bind, each job gets the type it gains most from: a gains nothing
    /// from the fast type, b gains 3x; with 2 slow and 1 fast GPU and a 2-GPU job a, b (1 GPU)
    /// takes the fast GPU, a the two slow ones.
    #[test]
    fn a_job_indifferent_to_speed_leaves_the_fast_gpu_to_one_that_is_not() {
        let mut t = TenantJobs::default();
        t.add(vec![1.0, 1.0], 2.0);
        t.add(vec![1.0, 3.0], 1.0);
        let split = t.split(&[2.0, 1.0]).unwrap();
        // Equal time (D = 3): a 2 x (2/3 + 1/3) = 2, b (2/3 + 3 x 1/3) = 5/3. Best: a on 2 slow
        // (2), b on the fast (3): 5.
        assert!((t.equal_time(&[2.0, 1.0]).utility - 11.0 / 3.0).abs() < 1e-12);
        assert!((split.utility - 5.0).abs() < 1e-9, "{split:?}");
        assert!((split.time_share[0][0] - 1.0).abs() < 1e-9);
        assert!((split.time_share[1][1] - 1.0).abs() < 1e-9);
    }

    /// One job: the split is the job's own allocation, whatever the bundle.
    #[test]
    fn a_tenant_of_one_job_gets_exactly_its_bundle() {
        let mut t = TenantJobs::default();
        t.add(vec![1.0, 2.5, 4.0], 4.0);
        let bundle = [0.5, 1.5, 2.0];
        let split = t.split(&bundle).unwrap();
        let linear: f64 = t.utility(3).iter().zip(&bundle).map(|(s, g)| s * g).sum();
        assert!((split.utility - linear).abs() < 1e-9);
        for (x, g) in split.time_share[0].iter().zip(&bundle) {
            assert!((x * 4.0 - g).abs() < 1e-9);
        }
    }

    /// A bundle of one type is split without an LP; on random tenants (some classes unable to
    /// run on the type, bundles below and above the jobs' GPUs) it reaches the LP's optimum and
    /// keeps every class at or above its equal-time work.
    #[test]
    fn a_one_type_bundle_is_split_as_the_lp_would() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        for _ in 0..300 {
            let types = 3;
            let mut tenant = TenantJobs::default();
            for _ in 0..rng.random_range(1..8) {
                let rates: Vec<f64> = (0..types)
                    .map(|_| {
                        if rng.random_bool(0.2) {
                            0.0
                        } else {
                            rng.random_range(0.5..6.0)
                        }
                    })
                    .collect();
                tenant.add(speedups(&rates), [1.0, 2.0, 4.0][rng.random_range(0..3)]);
            }
            let j = rng.random_range(0..types);
            let mut bundle = vec![0.0; types];
            bundle[j] = rng.random_range(0.1..2.0) * tenant.gpus();
            let greedy = tenant.split(&bundle).unwrap();
            let lp = tenant.split_lp(&bundle).unwrap();
            assert!(
                (greedy.utility - lp.utility).abs() <= 1e-7 * lp.utility.max(1.0),
                "{greedy:?} against {lp:?}: {tenant:?} {bundle:?}"
            );
            let equal = tenant.equal_time(&bundle);
            let mut used = 0.0;
            for (c, class) in tenant.classes.iter().enumerate() {
                let x = &greedy.time_share[c];
                assert!(x.iter().sum::<f64>() <= 1.0 + 1e-12);
                used += class.gpus * x[j];
                let work = class.gpus * dot(&class.speedup, x);
                let floor = class.gpus * dot(&class.speedup, &equal.time_share[c]);
                assert!(work >= floor * (1.0 - 1e-12), "{c}: {work} < {floor}");
            }
            assert!(used <= bundle[j] * (1.0 + 1e-12));
        }
    }

    /// The dense simplex reaches microlp's optimum of the same LP on random tenants with
    /// bundles of two and three types (below and above the jobs' GPUs, some classes unable to
    /// run on some types), and certifies an answer every time.
    #[test]
    fn the_dense_split_reaches_microlps_optimum() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(17);
        for _ in 0..400 {
            let types = rng.random_range(2..5);
            let mut tenant = TenantJobs::default();
            for _ in 0..rng.random_range(1..25) {
                let rates: Vec<f64> = (0..types)
                    .map(|_| {
                        if rng.random_bool(0.15) {
                            0.0
                        } else {
                            rng.random_range(0.5..20.0)
                        }
                    })
                    .collect();
                tenant.add(
                    speedups(&rates),
                    [1.0, 2.0, 4.0, 8.0][rng.random_range(0..4)],
                );
            }
            let share = rng.random_range(0.05..1.5) * tenant.gpus();
            let weights: Vec<f64> = (0..types).map(|_| rng.random_range(0.0..1.0)).collect();
            let total: f64 = weights.iter().sum();
            let bundle: Vec<f64> = weights.iter().map(|w| share * w / total).collect();
            let dense = tenant
                .split_dense(&bundle)
                .unwrap_or_else(|| panic!("no certified optimum: {tenant:?} {bundle:?}"));
            let reference = tenant.split_microlp(&bundle).unwrap();
            assert!(
                (dense.utility - reference.utility).abs() <= 1e-7 * reference.utility.max(1.0),
                "{dense:?} against {reference:?}: {tenant:?} {bundle:?}"
            );
            // Checked from the definition: within the bundle, caps, and floors.
            let equal = tenant.equal_time(&bundle);
            for j in 0..types {
                let used: f64 = tenant
                    .classes
                    .iter()
                    .zip(&dense.time_share)
                    .map(|(c, x)| c.gpus * x[j])
                    .sum();
                assert!(used <= bundle[j] * (1.0 + 1e-7) + 1e-9, "type {j}: {used}");
            }
            for (c, class) in tenant.classes.iter().enumerate() {
                let x = &dense.time_share[c];
                assert!(x.iter().all(|&v| v >= 0.0) && x.iter().sum::<f64>() <= 1.0 + 1e-12);
                let work = class.gpus * dot(&class.speedup, x);
                let floor = class.gpus * dot(&class.speedup, &equal.time_share[c]);
                assert!(work >= floor * (1.0 - 1e-7), "{c}: {work} < {floor}");
            }
        }
    }

    #[test]
    fn jobs_with_the_same_speedups_are_one_class() {
        let mut t = TenantJobs::default();
        assert_eq!(t.add(vec![1.0, 2.0], 1.0), 0);
        assert_eq!(t.add(vec![1.0, 3.0], 2.0), 1);
        assert_eq!(t.add(vec![1.0, 2.0], 4.0), 0);
        assert_eq!(t.classes[0].gpus, 5.0);
        assert_eq!(t.gpus(), 7.0);
    }

    /// Merging jobs of the same speedups into one class loses nothing: the split over classes
    /// reaches the optimum of the LP written per job (solved here directly, one variable per job
    /// and type), on random tenants.
    #[test]
    fn classes_reach_the_per_job_optimum() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        for _ in 0..200 {
            let types = rng.random_range(2..4);
            let vectors: Vec<Vec<f64>> = (0..rng.random_range(1..4))
                .map(|_| {
                    speedups(
                        &(0..types)
                            .map(|_| rng.random_range(0.5..6.0))
                            .collect::<Vec<_>>(),
                    )
                })
                .collect();
            let jobs: Vec<(Vec<f64>, f64)> = (0..rng.random_range(1..7))
                .map(|_| {
                    let v = vectors[rng.random_range(0..vectors.len())].clone();
                    (v, [1.0, 2.0, 4.0][rng.random_range(0..3)])
                })
                .collect();
            let bundle: Vec<f64> = (0..types).map(|_| rng.random_range(0.0..5.0)).collect();
            let mut tenant = TenantJobs::default();
            for (v, f) in &jobs {
                tenant.add(v.clone(), *f);
            }
            // The per-job LP of the module docs, written out from the definition.
            let total: f64 = jobs.iter().map(|(_, f)| f).sum();
            let d = total.max(bundle.iter().sum());
            let mut lp = Lp::maximize();
            let y: Vec<Vec<_>> = jobs
                .iter()
                .map(|(v, _)| v.iter().map(|&s| lp.var(s)).collect())
                .collect();
            for j in 0..types {
                lp.le(y.iter().map(|row| (row[j], 1.0)), bundle[j]);
            }
            for ((v, f), row) in jobs.iter().zip(&y) {
                lp.le(row.iter().map(|&x| (x, 1.0)), *f);
                let equal: f64 = v.iter().zip(&bundle).map(|(s, g)| s * f * g / d).sum();
                lp.ge(
                    row.iter().zip(v).map(|(&x, &s)| (x, s)),
                    equal * (1.0 - 1e-9),
                );
            }
            let per_job = lp.solve().unwrap().objective();
            let by_class = tenant.split(&bundle).unwrap().utility;
            assert!(
                (per_job - by_class).abs() <= 1e-7 * per_job.max(1.0),
                "{per_job} per job, {by_class} by class: {jobs:?} {bundle:?}"
            );
        }
    }
}
