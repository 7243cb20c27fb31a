//! Allocation policies, one file each behind the [`Policy`] trait (Gavel's `policies/` layout):
//! a new policy is one new file plus one line in [`all`].

mod base;
mod canonical;
mod declared;
mod equal_share;
mod gandiva_fair;
mod gavel;
mod gavel_fifo;
mod gavel_ftf;
mod gavel_hierarchical;
mod gavel_las;
mod gavel_las_agnostic;
mod gavel_las_incremental;
mod gavel_las_packed;
mod gavel_max_sum;
mod gavel_min_makespan;
mod gavel_water_filling;
mod interior;
mod isolated;
mod nash_welfare;
mod oef_coop;
#[cfg(feature = "kept-basis")]
mod oef_grouped;
#[cfg(feature = "kept-basis")]
pub use oef_grouped::{static_path, StaticPath};
mod oef_noncoop;
mod partial_allocation;
mod twins;

pub use crate::co_location::CoLocation;
pub use base::scale_factor;
pub(crate) use base::AllocationLp;
pub use declared::{
    Family, Grouping, InRounds, Interior, JobGrouping, PartyRule, Reads, RoundAnswer, Rounds, Walk,
    Warm,
};
pub use equal_share::EqualShare;
pub use gandiva_fair::{starting_shares, ExchangeRate, GandivaFair, Trade};
pub use gavel::proportional_throughput;
pub use gavel_fifo::GavelFifo;
pub use gavel_ftf::{finish_time_fairness, finish_time_fairness_interior, FtfHistory, GavelFtf};
pub use gavel_hierarchical::GavelHierarchical;
pub use gavel_las::GavelLas;
pub use gavel_las_agnostic::{interior_agnostic, GavelLasAgnostic};
pub use gavel_las_incremental::{ClassShares, IncrementalLas};
pub use gavel_las_packed::{
    max_min_packed, max_min_packed_interior, GavelLasPacked, PackedAllocation,
};
pub use gavel_max_sum::{interior_max_sum, GavelMaxSum};
pub use gavel_min_makespan::{
    gavel_bound, min_makespan, min_makespan_interior, GavelMinMakespan, MakespanBound,
};
pub use gavel_water_filling::{water_filling_with_units, GavelWaterFilling};
pub use isolated::Isolated;
pub use nash_welfare::{dual_bound, nash_welfare, Market, NashWelfare};
pub use oef_coop::{
    active_memory, most_efficient, most_efficient_envy_free_above, most_efficient_seeded,
    remembering, EfRows, OefCoop, Relaxation, RowMemory,
};
pub use oef_noncoop::OefNonCoop;
pub use partial_allocation::PartialAllocation;

use crate::fairness::TOLERANCE;
use crate::lp::LpError;
use crate::{Allocation, Instance};
use std::fmt;

/// What a policy returns: the allocation and the policy's own objective value, as it defines it.
#[derive(Debug, Clone, PartialEq)]
pub struct Solution {
    pub allocation: Allocation,
    pub objective: f64,
    /// Prices and kept fractions, from the market mechanisms (nash-welfare, partial-allocation).
    pub market: Option<Market>,
    /// shared[p][j]: GPUs of type j pair p of [`Instance::co_located`] holds together, besides
    /// `allocation` (GPUs held alone); empty unless the policy shares GPUs (gavel-las-packed).
    pub shared: Vec<Vec<f64>>,
    /// The trades that led from the starting shares to the allocation (gandiva-fair); empty
    /// for the others.
    pub trades: Vec<Trade>,
}

impl Solution {
    /// u_i for every tenant: its GPUs alone, u_i(g_i), plus what its shared GPUs give it.
    pub fn utilities(&self, inst: &Instance) -> Vec<f64> {
        let mut utility = self.allocation.utilities(inst);
        if !self.shared.is_empty() {
            for (i, u) in utility.iter_mut().enumerate() {
                *u += inst.shared_utility(i, &self.shared);
            }
        }
        utility
    }

    /// The base constraints with shared GPUs counted ([`Allocation::check`] without them):
    /// sum_i g_ij + sum_p h_pj <= n_j, and each tenant's GPUs alone and shared within its cap.
    pub fn check(&self, inst: &Instance) -> Result<(), String> {
        if self.shared.is_empty() {
            return self.allocation.check(inst);
        }
        if self.shared.len() != inst.co_located.len()
            || self.shared.iter().any(|h| h.len() != inst.types())
        {
            return Err(format!(
                "the shared GPUs are not {} pairs x {} types",
                inst.co_located.len(),
                inst.types()
            ));
        }
        if let Some((p, j, h)) = self.shared.iter().enumerate().find_map(|(p, row)| {
            row.iter()
                .enumerate()
                .find(|(_, h)| !(h.is_finite() && **h >= -TOLERANCE))
                .map(|(j, &h)| (p, j, h))
        }) {
            let pair = &inst.co_located[p];
            return Err(format!(
                "'{}' and '{}' share {h} GPUs of type '{}'",
                inst.tenant_names[pair.a], inst.tenant_names[pair.b], inst.type_names[j]
            ));
        }
        // Capacity: each pair's GPUs once (they are one set of GPUs).
        let mut used = self.allocation.clone();
        let mut held: Vec<f64> = self
            .allocation
            .gpus
            .iter()
            .map(|g| g.iter().sum())
            .collect();
        for (pair, h) in inst.co_located.iter().zip(&self.shared) {
            for (j, &h) in h.iter().enumerate() {
                used.gpus[pair.a][j] += h;
            }
            held[pair.a] += h.iter().sum::<f64>();
            held[pair.b] += h.iter().sum::<f64>();
        }
        used.check(inst)
            .map_err(|why| format!("{why} (a shared GPU counted once)"))?;
        // Caps: a tenant's GPUs alone and shared, both.
        for (i, held) in held.iter().enumerate() {
            if let Some(cap) = inst.cap[i] {
                if *held > cap * (1.0 + TOLERANCE) {
                    return Err(format!(
                        "tenant '{}' holds {held} GPUs alone and shared, over its cap of {cap} \
                         (tenants[{i}].max_gpus)",
                        inst.tenant_names[i]
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Why a policy could not produce an allocation.
#[derive(Debug, Clone, PartialEq)]
pub enum PolicyError {
    /// The policy's constraints admit no allocation for this scenario.
    Infeasible(String),
    /// The LP solver failed (numerical trouble); the message says where.
    Solver(String),
    /// The answer failed its own check (base constraints or the policy's defining ones), so
    /// it is not shown; the message says what failed and, where the scenario's numbers are
    /// spread widely, which values are to blame.
    Unreliable(String),
    /// Stopped at the time limit its caller set (the JavaScript module's calls, on the page's
    /// thread; [`crate::deadline`]).
    OutOfTime(crate::deadline::OutOfTime),
}

impl From<crate::deadline::OutOfTime> for PolicyError {
    fn from(stop: crate::deadline::OutOfTime) -> Self {
        PolicyError::OutOfTime(stop)
    }
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PolicyError::Infeasible(why) => write!(f, "no feasible allocation: {why}"),
            PolicyError::Solver(why) => write!(f, "the LP solver failed: {why}"),
            PolicyError::Unreliable(why) => write!(
                f,
                "the solver's answer failed its own check, so it is not shown: {why}"
            ),
            PolicyError::OutOfTime(stop) => write!(f, "{stop}"),
        }
    }
}

impl std::error::Error for PolicyError {}

impl From<LpError> for PolicyError {
    fn from(err: LpError) -> Self {
        match err {
            LpError::Infeasible => PolicyError::Infeasible("the LP's constraints conflict".into()),
            other => PolicyError::Solver(other.to_string()),
        }
    }
}

/// An allocation policy: turns a validated instance into an allocation.
pub trait Policy: Sync {
    /// Its name and summary (a constant in the policy's file, listed in [`CATALOGUE`]).
    fn info(&self) -> PolicyInfo;
    /// Stable identifier used by the CLI (`--policy`) and in JSON.
    fn name(&self) -> &'static str {
        self.info().name
    }
    /// One line for people: what the policy optimises.
    fn summary(&self) -> &'static str {
        self.info().summary
    }
    /// Computes the allocation. Callers use [`Policy::solve`], which checks it.
    fn allocate(&self, inst: &Instance) -> Result<Solution, PolicyError>;

    /// The policy's own defining constraints beyond the base ones (oef-coop: SI and EF;
    /// oef-noncoop: equal weighted utility), checked on every answer to
    /// [`crate::fairness::TOLERANCE`]; the error says which failed.
    fn check_defining(&self, _inst: &Instance, _sol: &Solution) -> Result<(), String> {
        Ok(())
    }

    /// Solves and checks the answer before anyone sees it: the base constraints
    /// ([`Allocation::check`]) and the policy's defining ones. A failure is
    /// [`PolicyError::Unreliable`], never an allocation shown as valid.
    ///
    /// Every policy here has an allocation for every valid scenario (the equal split, or all
    /// zeros, meets its constraints), so a solver that reports none has failed numerically: that
    /// is reported as [`PolicyError::Unreliable`] too, naming the scenario's widely spread
    /// numbers when there are any.
    fn solve(&self, inst: &Instance) -> Result<Solution, PolicyError> {
        let blame = || crate::scenario::spread_note(inst);
        let sol = match self.allocate(inst) {
            Ok(sol) => sol,
            Err(PolicyError::Infeasible(why)) | Err(PolicyError::Solver(why)) => {
                return Err(PolicyError::Unreliable(format!(
                    "{}: the solver found no allocation, though one always exists ({why}){}",
                    self.name(),
                    blame()
                )))
            }
            Err(other) => return Err(other),
        };
        let check = |sol: &Solution| {
            sol.check(inst)
                .and_then(|()| self.check_defining(inst, sol))
        };
        let Err(why) = check(&sol) else {
            return Ok(sol);
        };
        // Once more, measuring each g_ij in what the first answer gave it: where a tenant holds
        // far less of a type than its equal split, that makes the solver's tolerance fine enough.
        match base::with_sizes_from(&sol.allocation, || self.allocate(inst)) {
            Ok(second) if check(&second).is_ok() => Ok(second),
            _ => Err(PolicyError::Unreliable(format!(
                "{}: {why}{}",
                self.name(),
                blame()
            ))),
        }
    }
}

/// What a policy is called and what it optimises, without its code: the playground's page lists
/// the policies from this, so it does not link the solvers (they run in the engine's worker).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PolicyInfo {
    pub name: &'static str,
    pub summary: &'static str,
    /// The properties the policy's theory guarantees on every scenario, so a reader can tell a
    /// verdict the policy promises from one that depends on the numbers.
    pub guarantees: Guarantees,
    /// Its family: its colour on every chart and its group in the Simulation tab.
    pub family: Family,
    /// What it reads from a scenario beyond throughputs, weights and caps.
    pub reads: Reads,
    /// How the simulator's rounds run it.
    pub rounds: InRounds,
}

/// Which properties a policy guarantees by construction (the playground says so beside each
/// verdict). Why, per policy:
/// - oef-coop: SI and EF are constraints of its program.
/// - equal-share: its bundles are the (capped) weighted equal split itself, so SI holds with
///   equality and EF between every pair the capped rule requires; it ignores throughputs, so no
///   misreport changes what anyone gets (SP).
/// - isolated: ignores throughputs too (SP); its unweighted, capped share is not the weighted
///   equal split, so nothing else is promised.
/// - nash-welfare: the equilibrium from incomes by weight is weighted-envy-free, and so meets SI,
///   when no cap binds (Eisenberg–Gale); a cap can leave a tenant a bundle of other types than
///   its capped equal split, worth less to it. It maximises a product of utilities, so no Pareto
///   improvement exists, caps or not.
/// - gavel-max-sum: the most efficient allocation, so no Pareto improvement exists.
/// - gavel-las, gavel-water-filling: without caps, the weighted equal split gives every tenant
///   the same normalised share, so the max-min level is at least that and everyone gets its SI
///   utility. Their normalisation is Gavel's isolated share (unweighted, capped), so with a cap
///   binding the argument fails, and so can SI (a tenant beside a capped one).
///
/// `tests/invariants.rs` checks every claim here against the definitions on random scenarios.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Guarantees {
    pub si: Promise,
    pub ef: Promise,
    pub pe: Promise,
    pub sp: Promise,
}

/// Whether a policy's theory promises a property.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Promise {
    /// Not promised: it holds or fails with the scenario.
    No,
    /// On every scenario.
    Always,
    /// When no tenant's cap binds (a cap below the cluster's size).
    WithoutCaps,
}

impl Promise {
    /// Whether the promise covers a scenario with (`capped`) or without caps below the cluster.
    pub fn covers(self, capped: bool) -> bool {
        match self {
            Promise::No => false,
            Promise::Always => true,
            Promise::WithoutCaps => !capped,
        }
    }
}

impl Guarantees {
    pub const NONE: Guarantees = Guarantees {
        si: Promise::No,
        ef: Promise::No,
        pe: Promise::No,
        sp: Promise::No,
    };

    /// The promise for the property named as on the badges (SI, EF, PE, SP).
    pub fn of(&self, property: &str) -> Promise {
        match property {
            "SI" => self.si,
            "EF" => self.ef,
            "PE" => self.pe,
            "SP" => self.sp,
            _ => Promise::No,
        }
    }
}

/// Every policy's [`PolicyInfo`], in the order of [`all`] (a test keeps the two equal): what the
/// page lists without linking the solvers.
pub const CATALOGUE: &[PolicyInfo] = &[
    oef_coop::INFO,
    oef_noncoop::INFO,
    nash_welfare::INFO,
    partial_allocation::INFO,
    gavel_las::INFO,
    gavel_las_agnostic::INFO,
    gavel_las_packed::INFO,
    gavel_water_filling::INFO,
    gavel_hierarchical::INFO,
    gavel_max_sum::INFO,
    gavel_ftf::INFO,
    gavel_fifo::INFO,
    gavel_min_makespan::INFO,
    gandiva_fair::INFO,
    gandiva_fair::INFO_MIDPOINT,
    equal_share::INFO,
    isolated::INFO,
];

impl Interior {
    /// The answer Gavel's simulator takes from this program: an interior point's, crumbs and
    /// all (for min-makespan, the bound its bisection settles on).
    pub fn solve(self, inst: &Instance) -> Result<Solution, PolicyError> {
        let allocation = match self {
            Interior::MinMakespan => return min_makespan_interior(inst),
            Interior::MaxSum => interior_max_sum(inst)?,
            Interior::MaxMinAgnostic => interior_agnostic(inst)?,
        };
        Ok(Solution {
            allocation,
            objective: f64::NAN,
            market: None,
            shared: Vec::new(),
            trades: Vec::new(),
        })
    }
}

/// Every policy's [`PolicyInfo`] as a constant, for code that names a policy as data (a recipe's
/// list, a default choice): a renamed policy is renamed there too, and one removed fails the
/// build, where a name written out would go stale unseen.
pub mod named {
    pub use super::equal_share::INFO as EQUAL_SHARE;
    pub use super::gandiva_fair::{INFO as GANDIVA_FAIR, INFO_MIDPOINT as GANDIVA_FAIR_MIDPOINT};
    pub use super::gavel_fifo::INFO as GAVEL_FIFO;
    pub use super::gavel_ftf::INFO as GAVEL_FTF;
    pub use super::gavel_hierarchical::INFO as GAVEL_HIERARCHICAL;
    pub use super::gavel_las::INFO as GAVEL_LAS;
    pub use super::gavel_las_agnostic::INFO as GAVEL_LAS_AGNOSTIC;
    pub use super::gavel_las_packed::INFO as GAVEL_LAS_PACKED;
    pub use super::gavel_max_sum::INFO as GAVEL_MAX_SUM;
    pub use super::gavel_min_makespan::INFO as GAVEL_MIN_MAKESPAN;
    pub use super::gavel_water_filling::INFO as GAVEL_WATER_FILLING;
    pub use super::isolated::INFO as ISOLATED;
    pub use super::nash_welfare::INFO as NASH_WELFARE;
    pub use super::oef_coop::INFO as OEF_COOP;
    pub use super::oef_noncoop::INFO as OEF_NONCOOP;
    pub use super::partial_allocation::INFO as PARTIAL_ALLOCATION;
}

/// The policy the playground, the CLI, Python and the JS module solve when none is named.
pub const DEFAULT_POLICY: &str = named::OEF_COOP.name;

/// The catalogue entry named `name`.
pub fn info(name: &str) -> Option<PolicyInfo> {
    CATALOGUE.iter().copied().find(|p| p.name == name)
}

/// The policies an engine solves, as a value: the simulator, the CLI, the workers and the JS
/// module take one, so a test can hand them a registry with a policy of its own. A function
/// rather than a list, so a constant can name it and an engine links only the policies its
/// registry reaches: the workers' engine carries [`EVERY_POLICY`], the light engine
/// documentation pages start with [`LP_POLICIES`] (no conic solver), the page's own fewer.
#[derive(Clone, Copy)]
pub struct Registry(pub fn() -> Vec<&'static dyn Policy>);

/// Every policy ([`all`]).
pub const EVERY_POLICY: Registry = Registry(all);
/// The LP policies alone ([`all_lp`]).
pub const LP_POLICIES: Registry = Registry(all_lp);

impl Registry {
    /// Its policies, in the catalogue's order.
    pub fn policies(self) -> Vec<&'static dyn Policy> {
        (self.0)()
    }

    /// The registry's policy of that name.
    pub fn by_name(self, name: &str) -> Option<&'static dyn Policy> {
        self.policies().into_iter().find(|p| p.name() == name)
    }

    /// What each of its policies declares, in its order.
    pub fn infos(self) -> Vec<PolicyInfo> {
        self.policies().iter().map(|p| p.info()).collect()
    }

    /// Its policies' names, in its order.
    pub fn names(self) -> Vec<&'static str> {
        self.policies().iter().map(|p| p.name()).collect()
    }
}

/// Every policy, in the order the playground and `fairground compare` show them.
pub fn all() -> Vec<&'static dyn Policy> {
    let mut all = all_lp();
    // In the catalogue's order: the market mechanisms after the OEF family.
    let at = all
        .iter()
        .rposition(|p| p.info().family == Family::Oef)
        .map_or(0, |k| k + 1);
    all.insert(at, &NashWelfare);
    all.insert(at + 1, &PartialAllocation);
    all
}

/// The policies that need clarabel's conic solver (Nash welfare's exponential cones); the rest
/// are linear programs over microlp or need no solver at all.
pub const MARKET_MECHANISMS: [&str; 2] = [nash_welfare::INFO.name, partial_allocation::INFO.name];

/// Every policy but [`MARKET_MECHANISMS`], in [`all`]'s order. An engine built on this alone
/// never reaches clarabel, so the browser's page engine, which solves the first chart, leaves
/// it out of its wasm (67 KB gzip, BENCHMARKS.md): listed here, not filtered from [`all`], for
/// that reason.
pub fn all_lp() -> Vec<&'static dyn Policy> {
    vec![
        &OefCoop {
            ef_rows: EfRows::Lazy,
        },
        &OefNonCoop,
        &GavelLas,
        &GavelLasAgnostic,
        &GavelLasPacked,
        &GavelWaterFilling,
        &GavelHierarchical,
        &GavelMaxSum,
        &GavelFtf,
        &GavelFifo,
        &GavelMinMakespan,
        &GandivaFair {
            rate: ExchangeRate::NextBelowBuyer,
        },
        &GandivaFair {
            rate: ExchangeRate::Midpoint,
        },
        &EqualShare,
        &Isolated,
    ]
}

/// Looks a policy up by its [`Policy::name`].
pub fn by_name(name: &str) -> Option<&'static dyn Policy> {
    EVERY_POLICY.by_name(name)
}

/// Jobs drawn from a few models, as in Gavel's traces (a model's jobs share its rates and cap):
/// 2-3 types of 1-6 GPUs, 2-4 models of rates in [0.1, 5) and cap 1 or 2, 4-12 jobs. Returns the
/// instance, each job's model, and each model's rates and cap.
#[cfg(test)]
pub(crate) struct ModelJobs {
    pub inst: Instance,
    pub model: Vec<usize>,
    pub rates: Vec<Vec<f64>>,
    pub caps: Vec<f64>,
}

#[cfg(test)]
pub(crate) fn jobs_of_models(rng: &mut rand::rngs::StdRng) -> ModelJobs {
    use rand::Rng;
    let types = rng.random_range(2..=3);
    let models = rng.random_range(2..=4);
    let jobs = rng.random_range(4..=12);
    let names: Vec<String> = (0..types).map(|j| format!("t{j}")).collect();
    let counts: Vec<(&str, u32)> = names
        .iter()
        .map(|n| (n.as_str(), rng.random_range(1..=6)))
        .collect();
    let rates: Vec<Vec<f64>> = (0..models)
        .map(|_| (0..types).map(|_| rng.random_range(0.1..5.0)).collect())
        .collect();
    let caps: Vec<f64> = (0..models)
        .map(|_| f64::from(rng.random_range(1..=2)))
        .collect();
    let model: Vec<usize> = (0..jobs).map(|_| rng.random_range(0..models)).collect();
    let spec: Vec<(&[f64], Option<f64>, Option<f64>)> = model
        .iter()
        .map(|&m| (rates[m].as_slice(), Some(caps[m]), None))
        .collect();
    ModelJobs {
        inst: test_instance(&counts, &spec),
        model,
        rates,
        caps,
    }
}

/// A test scenario from plain rows: GPU types (name, count) and tenants (throughput per type,
/// cap, work), each of weight 1, named t0, t1, ...
#[cfg(test)]
pub(crate) fn test_instance(
    types: &[(&str, u32)],
    tenants: &[(&[f64], Option<f64>, Option<f64>)],
) -> Instance {
    crate::Scenario {
        entities: Vec::new(),
        co_located: Vec::new(),
        version: 1,
        gpu_types: types
            .iter()
            .map(|&(name, count)| crate::GpuType {
                name: name.into(),
                count,
            })
            .collect(),
        tenants: tenants
            .iter()
            .enumerate()
            .map(|(i, &(throughput, max_gpus, work))| crate::Tenant {
                entity: None,
                name: format!("t{i}"),
                throughput: throughput.to_vec(),
                weight: 1.0,
                max_gpus,
                work,
            })
            .collect(),
        normalization: crate::Normalization::Slowest,
    }
    .instance()
    .unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The page lists policies from the catalogue and the engine runs them from `all()`: a
    /// policy added to one list only would be shown but not run, or run but not shown.
    #[test]
    fn the_catalogue_lists_every_policy_in_order() {
        let from_code: Vec<PolicyInfo> = all().iter().map(|p| p.info()).collect();
        assert_eq!(from_code, CATALOGUE.to_vec());
        let mut names: Vec<&str> = CATALOGUE.iter().map(|p| p.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), CATALOGUE.len(), "names are unique");
        assert_eq!(info("gavel-ftf").map(|p| p.name), Some("gavel-ftf"));
        assert_eq!(info("no-such-policy"), None);
    }

    /// `all_lp` is the catalogue without the two market mechanisms, in the catalogue's order,
    /// and those two are the only policies that reach the conic solver.
    #[test]
    fn the_lp_registry_is_every_policy_but_the_markets() {
        let lp: Vec<&str> = all_lp().iter().map(|p| p.name()).collect();
        let expected: Vec<&str> = CATALOGUE
            .iter()
            .map(|p| p.name)
            .filter(|n| !MARKET_MECHANISMS.contains(n))
            .collect();
        assert_eq!(lp, expected);
        assert_eq!(all().len(), lp.len() + MARKET_MECHANISMS.len());
        for name in MARKET_MECHANISMS {
            assert!(info(name).is_some(), "{name} is a policy");
        }
    }
}
