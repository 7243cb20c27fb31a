//! oef-coop: OEF's cooperative form, the most efficient allocation with sharing incentive and
//! envy-freeness, its envy rows added lazily or remembered between solves. Over the base
//! constraints and the fairness definitions.

use super::base::AllocationLp;
use super::declared::{
    Family, InRounds, JobGrouping, PartyRule, Reads, RoundAnswer, Rounds, Walk, Warm,
};
use super::{Guarantees, Policy, PolicyError, PolicyInfo, Promise, Solution};
use crate::fairness::{
    envy_relative_to_larger, meets_share, must_not_envy, relative_envy, relative_shortfall,
    relaxed_relative_envy, si_target, LP_MARGIN, TOLERANCE,
};
use crate::lp::{Lp, LpSolution};
use crate::Instance;
#[cfg(feature = "kept-basis")]
use crate::{lp::Basis, simplex::Status};

/// How the N(N-1) envy-freeness rows enter the LP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EfRows {
    /// Every row up front.
    Full,
    /// Solve without them; then repeatedly add the single most violated row (envy relative to
    /// the envier's own utility) and re-solve from the previous basis (dual simplex) until none
    /// is violated. Ends at the same optimum, with a few percent of the rows; faster than
    /// [`EfRows::Full`] at every size measured (BENCHMARKS.md), so the registry uses it.
    Lazy,
}

/// OEF, cooperative (Mo, Xu, Lau; Middleware 2024), as this project reads it:
///
/// ```text
/// maximise   sum_i u_i(g_i)                              efficiency, u_i(x) = sum_j s_ij x_j
/// subject to base constraints (capacity, caps)
///            u_i(g_i) >= u_i(e_i)              for all i  sharing incentive
///            u_i(g_i) / w_i >= u_i(g_k) / w_k  for (i,k) with must_not_envy(i, k)     envy-freeness
/// ```
///
/// Without caps every pair is constrained (plain weighted EF). With caps, i is exempt towards k
/// only when k's largest bundle scaled to i's weight exceeds i's cap ([`crate::fairness`] states
/// the rule). The capped equal split satisfies every row, so the LP is always feasible.
pub struct OefCoop {
    pub ef_rows: EfRows,
}

/// The name and the one-line summary the CLI and the playground show.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "oef-coop",
    summary: "OEF cooperative: most efficient allocation with sharing incentive and envy-freeness",
    guarantees: Guarantees {
        si: Promise::Always,
        ef: Promise::Always,
        pe: Promise::No,
        sp: Promise::No,
    },
    family: Family::Oef,
    reads: Reads::BASE,
    rounds: InRounds::Solved(Rounds {
        parties: PartyRule::AsAsked(JobGrouping::Classes),
        answer: RoundAnswer::Solve,
        walk: Walk::Fixed,
        warm: Warm::EnvyRows,
    }),
};

impl Policy for OefCoop {
    fn info(&self) -> PolicyInfo {
        INFO
    }

    /// Sharing incentive for every tenant and envy-freeness for every required pair.
    fn check_defining(&self, inst: &Instance, sol: &Solution) -> Result<(), String> {
        let g = &sol.allocation;
        let n = inst.tenants();
        if let Some(i) = (0..n).find(|&i| !meets_share(inst, g, i)) {
            return Err(format!(
                "'{}' gets {:e} less than its equal-split utility (relative), breaking sharing incentive",
                inst.tenant_names[i],
                relative_shortfall(inst, g, i)
            ));
        }
        for i in 0..n {
            for k in (0..n).filter(|&k| must_not_envy(inst, i, k)) {
                let r = relative_envy(inst, g, i, k);
                if r > TOLERANCE {
                    return Err(format!(
                        "'{}' envies '{}' by {r:e} (relative), breaking envy-freeness",
                        inst.tenant_names[i], inst.tenant_names[k]
                    ));
                }
            }
        }
        Ok(())
    }

    /// Inside [`remembering`], the lazy program starts from the rows the memory kept from the
    /// last solve and leaves there the rows tight at this optimum.
    fn allocate(&self, inst: &Instance) -> Result<Solution, PolicyError> {
        if self.ef_rows == EfRows::Full {
            return most_efficient(inst, Relaxation::NONE, EfRows::Full);
        }
        let seed = ACTIVE_MEMORY.with(|m| {
            m.borrow().as_ref().map(|m| {
                let index = TenantIndex::of(inst);
                (
                    m.rows_in(&index),
                    m.share_rows_in(inst, &index),
                    m.start_in(inst, &index),
                )
            })
        });
        // Without a memory, a large uncapped program is first solved over groups of tenants
        // with equal bundles and proved optimal (natively; `oef_grouped`'s docs). When that
        // spends its work budget, the lazy program starts from the rows it learned.
        #[cfg(feature = "kept-basis")]
        let seed = match seed {
            None => match super::oef_grouped::solve(inst)? {
                super::oef_grouped::GroupedAnswer::Proved(g) => {
                    return Ok(solution(inst, without_crumbs(inst, g)));
                }
                super::oef_grouped::GroupedAnswer::HandOver(rows) => Some((rows, None, None)),
            },
            seed => seed,
        };
        let (rows, shares, start) = seed.unwrap_or_default();
        let seeded = solve_floored(
            inst,
            Relaxation::NONE,
            &rows,
            shares.as_ref(),
            None,
            start.as_ref(),
        )?;
        ACTIVE_MEMORY.with(|m| {
            if let Some(memory) = m.borrow_mut().as_mut() {
                memory.keep(inst, &seeded);
            }
        });
        Ok(seeded.solution)
    }
}

/// Whether a memory also keeps cap and sharing-incentive rows and leaves the others lazy
/// ([`RowMemory`]): feature `lazy-share-rows`, which the CLI, Python and the workers' engine
/// build with. The playground's page, which never solves from a memory, builds without: its
/// download has no room for code it would not run (about 2 KB gzip; without it the page still
/// grows about 0.5 KB, BENCHMARKS.md).
const LAZY_SHARE_ROWS: bool = cfg!(feature = "lazy-share-rows");

/// oef-coop's envy-freeness rows carried from one solve to the next, by tenant name: the pairs
/// whose rows held with equality at the last optimum. A scenario edited a little (a throughput,
/// a GPU count, a weight, a tenant more or less) mostly needs the same rows, and a solve that
/// starts with them is 6-8x faster at 150 x 12 than finding them one by one (BENCHMARKS.md).
/// They only seed the lazy program ([`most_efficient_seeded`]): rows still missing are added and
/// rows of pairs no longer required are dropped, so the optimum is the same. Where it is not
/// unique (twin tenants, say), the solve may end at another optimal allocation than a fresh one.
///
/// The playground's solve worker and the JavaScript module keep one between requests, the
/// simulator between recomputations; the strategy-proofness probe seeds each misreport's solve
/// with the truthful solve's rows.
///
/// It also keeps the tenants whose cap and sharing-incentive rows were tight. From the second
/// solve on, those rows are the only ones of their kind put in up front, and the others are
/// added when an answer breaks them, as the EF rows are: in the simulator, where a class's cap
/// or share binds for few classes, the programs are half as long and a solve about twice as
/// fast (BENCHMARKS.md). The first solve, with nothing remembered, puts them all in.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RowMemory {
    /// (envier, envied) tenant names.
    pairs: Vec<(String, String)>,
    /// The tenants whose cap and sharing-incentive rows were tight at the last optimum; None
    /// before the first solve.
    shares: Option<ShareRows<String>>,
    /// Rows the last solve added to those it started with.
    added: usize,
    /// Where the last optimum's variables and remembered rows stood, when the kept simplex
    /// found it (feature `kept-basis`, [`crate::lp::Lp::solve_from`]).
    #[cfg(feature = "kept-basis")]
    basis: Option<NamedBasis>,
    /// Solves whose optimum the kept simplex found.
    kept: usize,
    /// Whether to keep bases at all ([`RowMemory::keeping_basis`]).
    keep_basis: bool,
}

/// The largest program (tenants x types variables) solved from a kept basis. The kept simplex
/// factorises sparse now, but a start from a kept basis has been measured only below this (the
/// simulator's job classes, up to about 80 x 3; the SP probe at 60 x 6), so larger programs
/// keep microlp.
#[cfg(feature = "kept-basis")]
const KEPT_VARIABLES: usize = 1024;

/// An optimum's statuses by tenant name: each tenant's g_ij, then the remembered rows.
#[cfg(feature = "kept-basis")]
#[derive(Debug, Clone, Default, PartialEq)]
struct NamedBasis {
    vars: Vec<(String, Vec<Status>)>,
    rows: Vec<(NamedRow, Status)>,
}

/// A row of oef-coop's program by what it says, tenants by name.
#[cfg(feature = "kept-basis")]
#[derive(Debug, Clone, PartialEq)]
enum NamedRow {
    Capacity(usize),
    Cap(String),
    Share(String),
    Envy(String, String),
}

/// The keys of a program's rows in order, kept only where there is a kept simplex to start
/// from them (elsewhere `push` does nothing: the browser's builds carry none of it).
#[derive(Debug, Default)]
struct RowKeys {
    #[cfg(feature = "kept-basis")]
    keys: Vec<RowKey>,
}

impl RowKeys {
    fn push(&mut self, key: RowKey) {
        #[cfg(feature = "kept-basis")]
        self.keys.push(key);
        #[cfg(not(feature = "kept-basis"))]
        let _ = key;
    }
}

/// A row of oef-coop's program by what it says, tenants by index: the LP's rows in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum RowKey {
    Capacity(usize),
    Cap(usize),
    /// A floor under a tenant's utility (the Pareto test's program).
    Floor(usize),
    Share(usize),
    Envy(usize, usize),
}

/// Where a solve starts: each g_ij's status and the rows' (by key); anything absent starts as a
/// fresh solve does.
#[cfg(feature = "kept-basis")]
#[derive(Debug, Clone, Default)]
struct Start {
    vars: Vec<Vec<Status>>,
    rows: std::collections::HashMap<RowKey, Status>,
}

/// Without the kept simplex no solve has a start (and the browser's builds carry none of it).
#[cfg(not(feature = "kept-basis"))]
#[derive(Debug, Clone)]
enum Start {}

/// The tenants (names in a memory, indices in a program) whose cap rows, sum_j g_ij <= d_i, and
/// sharing-incentive rows, u_i(g_i) >= u_i(e_i), are in the program.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ShareRows<T> {
    capped: Vec<T>,
    floored: Vec<T>,
}

impl RowMemory {
    /// A memory that also keeps each optimum's basis and solves the next program from it with
    /// the kept simplex, where the build has one (feature `kept-basis`, native): the
    /// simulator's and the strategy-proofness probe's. A default memory (the playground's
    /// workers, the JavaScript module) keeps rows only, so the page and the workers answer
    /// alike to the bit whatever the build.
    pub fn keeping_basis() -> Self {
        RowMemory {
            keep_basis: true,
            ..RowMemory::default()
        }
    }

    /// How many rows it holds.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// How many cap and sharing-incentive rows it holds (tight at the last optimum), as (caps,
    /// sharing incentive); None before the first solve, when every such row goes in up front.
    pub fn share_rows(&self) -> Option<(usize, usize)> {
        self.shares
            .as_ref()
            .map(|s| (s.capped.len(), s.floored.len()))
    }

    /// How many rows the last solve had to add to the remembered ones it started with (all of
    /// them, from an empty memory).
    pub fn rows_added(&self) -> usize {
        self.added
    }

    /// How many of the solves it saw the kept simplex answered (feature `kept-basis`), from
    /// the last one's basis; the others were microlp's.
    pub fn kept_answers(&self) -> usize {
        self.kept
    }

    /// The remembered rows between tenants the instance `index` was made from still has, as
    /// index pairs.
    fn rows_in(&self, index: &TenantIndex) -> Vec<(usize, usize)> {
        self.pairs
            .iter()
            .filter_map(|(i, k)| Some((index.get(i)?, index.get(k)?)))
            .collect()
    }

    /// The share rows to put in up front, as indices: the remembered ones of tenants `inst`
    /// still has, or every one before the first solve; None without `lazy-share-rows`.
    fn share_rows_in(&self, inst: &Instance, index: &TenantIndex) -> Option<ShareRows<usize>> {
        if !LAZY_SHARE_ROWS {
            return None;
        }
        let Some(shares) = &self.shares else {
            let every: Vec<usize> = (0..inst.tenants()).collect();
            return Some(ShareRows {
                capped: every.clone(),
                floored: every,
            });
        };
        let indices = |names: &[String]| -> Vec<usize> {
            names.iter().filter_map(|name| index.get(name)).collect()
        };
        Some(ShareRows {
            capped: indices(&shares.capped),
            floored: indices(&shares.floored),
        })
    }

    /// Where the next solve starts, for the tenants `inst` still has: the last optimum's
    /// statuses, or an empty start (every row's slack basic) before the first solve. None
    /// when this build has no kept simplex.
    #[cfg(not(feature = "kept-basis"))]
    fn start_in(&self, _inst: &Instance, _index: &TenantIndex) -> Option<Start> {
        None
    }

    /// See the other `start_in`.
    #[cfg(feature = "kept-basis")]
    fn start_in(&self, inst: &Instance, index: &TenantIndex) -> Option<Start> {
        if !self.keep_basis || inst.tenants() * inst.types() > KEPT_VARIABLES {
            return None;
        }
        let Some(basis) = &self.basis else {
            return Some(Start::default());
        };
        let mut start = Start {
            vars: vec![Vec::new(); inst.tenants()],
            rows: Default::default(),
        };
        for (name, statuses) in &basis.vars {
            if let Some(i) = index.get(name) {
                start.vars[i] = statuses.clone();
            }
        }
        for (row, status) in &basis.rows {
            let key = match row {
                NamedRow::Capacity(j) => Some(RowKey::Capacity(*j)),
                NamedRow::Cap(i) => index.get(i).map(RowKey::Cap),
                NamedRow::Share(i) => index.get(i).map(RowKey::Share),
                NamedRow::Envy(i, k) => index
                    .get(i)
                    .zip(index.get(k))
                    .map(|(i, k)| RowKey::Envy(i, k)),
            };
            if let Some(key) = key {
                start.rows.insert(key, *status);
            }
        }
        Some(start)
    }

    fn keep(&mut self, inst: &Instance, seeded: &Seeded) {
        let name = |i: usize| inst.tenant_names[i].clone();
        self.kept += usize::from(seeded.basis.is_some());
        #[cfg(feature = "kept-basis")]
        self.keep_basis_of(inst, seeded);
        self.pairs = seeded
            .tight
            .iter()
            .map(|&(i, k)| (name(i), name(k)))
            .collect();
        let names = |rows: &[usize]| rows.iter().map(|&i| name(i)).collect();
        self.shares = LAZY_SHARE_ROWS.then(|| {
            let tight = seeded.tight_shares.clone().unwrap_or_default();
            ShareRows {
                capped: names(&tight.capped),
                floored: names(&tight.floored),
            }
        });
        self.added = seeded.added;
    }

    /// Keeps the statuses of `seeded`'s optimum by name, for the variables and for the rows
    /// the memory keeps.
    #[cfg(feature = "kept-basis")]
    fn keep_basis_of(&mut self, inst: &Instance, seeded: &Seeded) {
        let name = |i: usize| inst.tenant_names[i].clone();
        self.basis = seeded.basis.as_ref().map(|Statuses { vars, rows }| {
            let remembered = |key: &RowKey| match *key {
                RowKey::Capacity(j) => Some(NamedRow::Capacity(j)),
                RowKey::Envy(i, k) => seeded
                    .tight
                    .contains(&(i, k))
                    .then(|| NamedRow::Envy(name(i), name(k))),
                RowKey::Cap(i) => seeded
                    .tight_shares
                    .as_ref()
                    .is_some_and(|t| t.capped.contains(&i))
                    .then(|| NamedRow::Cap(name(i))),
                RowKey::Share(i) => seeded
                    .tight_shares
                    .as_ref()
                    .is_some_and(|t| t.floored.contains(&i))
                    .then(|| NamedRow::Share(name(i))),
                RowKey::Floor(_) => None,
            };
            NamedBasis {
                vars: vars
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (name(i), v.clone()))
                    .collect(),
                rows: rows
                    .iter()
                    .filter_map(|(key, status)| remembered(key).map(|row| (row, *status)))
                    .collect(),
            }
        });
    }
}

/// Each tenant's index in an instance, by name: how a memory's names become rows again.
struct TenantIndex<'a>(std::collections::HashMap<&'a str, usize>);

impl<'a> TenantIndex<'a> {
    fn of(inst: &'a Instance) -> Self {
        TenantIndex(
            inst.tenant_names
                .iter()
                .enumerate()
                .map(|(i, name)| (name.as_str(), i))
                .collect(),
        )
    }

    fn get(&self, name: &str) -> Option<usize> {
        self.0.get(name).copied()
    }
}

thread_local! {
    /// The memory [`remembering`] lends to oef-coop's solves on this thread.
    static ACTIVE_MEMORY: std::cell::RefCell<Option<RowMemory>> =
        const { std::cell::RefCell::new(None) };
}

/// Runs `f` with every oef-coop solve on this thread seeded from `memory` and leaving its tight
/// rows there ([`RowMemory`]); an enclosing call's memory is set aside meanwhile. Other policies
/// are unaffected. Helper threads ([`crate::parallel`]) do not see it: give each its own.
pub fn remembering<T>(memory: &mut RowMemory, f: impl FnOnce() -> T) -> T {
    let outer = ACTIVE_MEMORY.with(|m| m.replace(Some(std::mem::take(memory))));
    let out = f();
    *memory = ACTIVE_MEMORY.with(|m| m.replace(outer)).unwrap_or_default();
    out
}

/// A copy of the memory [`remembering`] has lent this thread, or outside it an empty one that
/// keeps bases ([`RowMemory::keeping_basis`]).
pub fn active_memory() -> RowMemory {
    ACTIVE_MEMORY
        .with(|m| m.borrow().clone())
        .unwrap_or_else(RowMemory::keeping_basis)
}

/// How far each guarantee is relaxed: `Some(eps)` imposes it relaxed by eps (0 = exact),
/// `None` drops it. oef-coop is both at 0; the price-of-fairness frontier sweeps eps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Relaxation {
    pub sharing_incentive: Option<f64>,
    pub envy_freeness: Option<f64>,
}

impl Relaxation {
    /// Both guarantees, exactly: oef-coop.
    pub const NONE: Relaxation = Relaxation {
        sharing_incentive: Some(0.0),
        envy_freeness: Some(0.0),
    };
}

/// oef-coop's program with each guarantee relaxed by its eps (BACKGROUND.md's eps-relaxed
/// properties):
///
/// ```text
/// maximise   sum_i u_i(g_i)
/// subject to base constraints
///            u_i(g_i) >= (1 - eps_SI) u_i(e_i)                        for all i
///            u_i(g_i) / w_i >= (1 - eps_EF) u_i(g_k) / w_k            for required (i, k)
/// ```
pub fn most_efficient(
    inst: &Instance,
    relax: Relaxation,
    ef_rows: EfRows,
) -> Result<Solution, PolicyError> {
    let n = inst.tenants();
    // Every row up front is the seed of every required pair: none is then left to add.
    let seed: Vec<(usize, usize)> = match ef_rows {
        EfRows::Lazy => Vec::new(),
        EfRows::Full => (0..n)
            .flat_map(|i| (0..n).map(move |k| (i, k)))
            .filter(|&(i, k)| must_not_envy(inst, i, k))
            .collect(),
    };
    most_efficient_seeded(inst, relax, &seed).map(|(sol, _)| sol)
}

/// [`most_efficient`] with lazily added EF rows, the rows of the pairs in `seed` in the LP from
/// the start; also returns the pairs whose rows hold with equality at the optimum (to 1e-9,
/// relatively). A neighbouring program, as the next eps of the price-of-fairness frontier,
/// mostly needs the same rows, and a cold solve with them is several times faster than finding
/// them again one by one (BENCHMARKS.md). The seed only saves time: rows still missing are
/// added lazily, so the optimum is the same.
pub fn most_efficient_seeded(
    inst: &Instance,
    relax: Relaxation,
    seed: &[(usize, usize)],
) -> Result<(Solution, Vec<(usize, usize)>), PolicyError> {
    solve_seeded(inst, relax, seed).map(|s| (s.solution, s.tight))
}

/// What [`solve_seeded`] ends with.
struct Seeded {
    solution: Solution,
    /// The rows in the program that hold with equality at the optimum.
    tight: Vec<(usize, usize)>,
    /// The tenants whose cap and sharing-incentive rows are in the program and tight, when they
    /// were lazy.
    tight_shares: Option<ShareRows<usize>>,
    /// How many rows it added to the seed's.
    added: usize,
    /// Where the optimum's variables (by tenant and type) and rows stood, when the kept
    /// simplex found it.
    basis: Option<Statuses>,
}

/// An optimum's statuses in a program's indices: each g_ij's, and each row's by key.
#[cfg(feature = "kept-basis")]
struct Statuses {
    vars: Vec<Vec<Status>>,
    rows: Vec<(RowKey, Status)>,
}

/// Without the kept simplex no optimum has statuses.
#[cfg(not(feature = "kept-basis"))]
enum Statuses {}

/// The most efficient envy-free allocation that leaves each tenant at least `floor[i]`, the
/// Pareto test's second question (does an improvement exist that keeps envy-freeness?):
///
/// ```text
/// maximise   sum_i u_i(h_i)
/// subject to base constraints
///            u_i(h_i) >= floor_i                          for all i    (nobody worse off)
///            u_i(h_i) / w_i >= u_i(h_k) / w_k              for required (i, k)
/// ```
///
/// With `floor` the utilities of an envy-free allocation g, h = g is feasible; when g is
/// oef-coop's own optimum nothing gains, and what the plain Pareto test finds above g is the
/// price of envy-freeness.
pub fn most_efficient_envy_free_above(
    inst: &Instance,
    floor: &[f64],
) -> Result<Solution, PolicyError> {
    let relax = Relaxation {
        sharing_incentive: None,
        envy_freeness: Some(0.0),
    };
    solve_floored(inst, relax, &[], None, Some(floor), None).map(|s| s.solution)
}

/// [`most_efficient_seeded`], also counting the rows it added to the seed's.
fn solve_seeded(
    inst: &Instance,
    relax: Relaxation,
    seed: &[(usize, usize)],
) -> Result<Seeded, PolicyError> {
    solve_floored(inst, relax, seed, None, None, None)
}

/// [`solve_seeded`] with, optionally, a floor under each tenant's utility (a hair below it, so
/// an allocation at exactly the floor stays feasible despite its own round-off), and optionally
/// lazy share rows: with `shares` (a memory's), only those tenants' cap and sharing-incentive
/// rows go in up front, the rest when an answer breaks them ([`RowMemory`]). With `start`
/// (a memory's, in a build with the kept simplex), the program is solved from those statuses
/// ([`crate::lp::Lp::solve_from`]) and the optimum's are returned.
fn solve_floored(
    inst: &Instance,
    relax: Relaxation,
    seed: &[(usize, usize)],
    shares: Option<&ShareRows<usize>>,
    floor: Option<&[f64]>,
    start: Option<&Start>,
) -> Result<Seeded, PolicyError> {
    let n = inst.tenants();
    let lazy = shares.filter(|_| LAZY_SHARE_ROWS && relax.envy_freeness.is_some());
    let mut lazy_rows = lazy.map(|seed| LazyShares::new(inst, relax, seed));
    let objective = |i: usize, j: usize| inst.speedup[i][j];
    // Rows in this order (capacity, caps, floors, SI): with none lazy, the program as it was
    // before caps and SI could be. `keys` names them in order.
    let mut keys = RowKeys::default();
    (0..inst.types()).for_each(|j| keys.push(RowKey::Capacity(j)));
    let mut m = match &lazy_rows {
        None => {
            (0..n)
                .filter(|&i| inst.cap[i].is_some())
                .for_each(|i| keys.push(RowKey::Cap(i)));
            AllocationLp::new(Lp::maximize(), inst, objective)
        }
        Some(rows) => {
            let mut m = AllocationLp::with_capacity_rows(Lp::maximize(), inst, objective);
            for (i, cap) in inst.cap.iter().enumerate() {
                if let (true, Some(cap)) = (rows.capped[i], cap) {
                    m.lp.le(m.g[i].iter().map(|&v| (v, 1.0)), *cap);
                    keys.push(RowKey::Cap(i));
                }
            }
            m
        }
    };
    for (i, &u) in floor.unwrap_or(&[]).iter().enumerate().take(n) {
        let own = m.utility(inst, i, i, 1.0);
        m.lp.ge(own, u - 1e-9 * u.abs());
        keys.push(RowKey::Floor(i));
    }
    if let Some(eps) = relax.sharing_incentive {
        for i in 0..n {
            if lazy_rows.as_ref().is_none_or(|rows| rows.floored[i]) {
                let target = (1.0 - eps) * si_target(inst, i);
                let own = m.utility(inst, i, i, 1.0);
                m.lp.ge(own, target);
                keys.push(RowKey::Share(i));
            }
        }
    }
    let Some(eps) = relax.envy_freeness else {
        let allocation = m.read(&m.lp.solve()?);
        return Ok(Seeded {
            solution: solution(inst, allocation),
            tight: Vec::new(),
            tight_shares: None,
            added: 0,
            basis: None,
        });
    };
    let factor = 1.0 - eps;
    // Pairs still to check; a row in the LP holds to the solver's tolerance and is never added
    // twice (that could loop).
    let mut open: Vec<Vec<bool>> = (0..n)
        .map(|i| (0..n).map(|k| must_not_envy(inst, i, k)).collect())
        .collect();
    for &(i, k) in seed {
        if i < n && k < n && open[i][k] {
            m.lp.ge(ef_row(&m, inst, i, k, factor), 0.0);
            open[i][k] = false;
            keys.push(RowKey::Envy(i, k));
        }
    }
    let sol = match start {
        #[cfg(feature = "kept-basis")]
        Some(start) => m.lp.solve_from(&start.basis(&m, &keys.keys))?,
        _ => m.lp.solve()?,
    };
    let mut rows = Rows {
        open: &mut open,
        shares: lazy_rows.as_mut(),
        keys: &mut keys,
    };
    let (sol, added) = add_violated_rows(&m, inst, sol, &mut rows, factor)?;
    #[cfg(feature = "kept-basis")]
    let basis = sol.basis().map(|b| {
        let vars =
            m.g.iter()
                .map(|row| row.iter().map(|v| b.vars[v.index()]).collect())
                .collect();
        Statuses {
            vars,
            rows: keys.keys.iter().copied().zip(b.rows).collect(),
        }
    });
    #[cfg(not(feature = "kept-basis"))]
    let basis: Option<Statuses> = None;
    let g = without_crumbs(inst, m.read(&sol));
    let tight = (0..n)
        .flat_map(|i| (0..n).map(move |k| (i, k)))
        .filter(|&(i, k)| !open[i][k] && must_not_envy(inst, i, k))
        .filter(|&(i, k)| relaxed_relative_envy(inst, &g, i, k, factor) > -1e-9)
        .collect();
    Ok(Seeded {
        solution: solution(inst, g.clone()),
        tight,
        tight_shares: lazy_rows.map(|rows| rows.tight(inst, &g)),
        added,
        basis,
    })
}

#[cfg(feature = "kept-basis")]
impl Start {
    /// The statuses in the program's own order: its variables, then its rows by `keys`.
    fn basis(&self, m: &AllocationLp, keys: &[RowKey]) -> Basis {
        let mut vars = vec![Status::Lower; m.g.iter().map(Vec::len).sum()];
        for (row, statuses) in m.g.iter().zip(&self.vars) {
            for (v, &status) in row.iter().zip(statuses) {
                vars[v.index()] = status;
            }
        }
        let rows = keys
            .iter()
            .map(|key| self.rows.get(key).copied().unwrap_or(Status::Basic))
            .collect();
        Basis { vars, rows }
    }
}

/// The lazy rows' bookkeeping while they are added: the pairs still open, the share rows in,
/// and every row's key in the program's order.
struct Rows<'a> {
    open: &'a mut [Vec<bool>],
    shares: Option<&'a mut LazyShares>,
    keys: &'a mut RowKeys,
}

/// The cap and sharing-incentive rows when they are lazy: which are in the program so far.
struct LazyShares {
    /// Each tenant's sharing-incentive floor, (1 - eps_SI) u_i(e_i); None when SI is not imposed.
    targets: Option<Vec<f64>>,
    /// capped[i]: tenant i's cap row is in the program, or it has no cap.
    capped: Vec<bool>,
    /// floored[i]: tenant i's sharing-incentive row is in the program, or none is imposed.
    floored: Vec<bool>,
}

impl LazyShares {
    /// The rows of `seed`'s tenants in, the others left out.
    fn new(inst: &Instance, relax: Relaxation, seed: &ShareRows<usize>) -> Self {
        let n = inst.tenants();
        let targets = relax
            .sharing_incentive
            .map(|eps| (0..n).map(|i| (1.0 - eps) * si_target(inst, i)).collect());
        let mut rows = LazyShares {
            capped: (0..n).map(|i| inst.cap[i].is_none()).collect(),
            floored: vec![relax.sharing_incentive.is_none(); n],
            targets,
        };
        for &i in seed.capped.iter().filter(|&&i| i < n) {
            rows.capped[i] = true;
        }
        for &i in seed.floored.iter().filter(|&&i| i < n) {
            rows.floored[i] = true;
        }
        rows
    }

    /// The first cap or sharing-incentive row not in the program that `g` breaks by more than
    /// the checker's tolerance times LP_MARGIN (relative), as a row ">= rhs"; it is marked in.
    fn broken(
        &mut self,
        m: &AllocationLp,
        inst: &Instance,
        g: &crate::Allocation,
    ) -> Option<(crate::lp::Terms, f64, RowKey)> {
        if !LAZY_SHARE_ROWS {
            return None;
        }
        let limit = TOLERANCE * LP_MARGIN;
        for i in (0..inst.tenants()).filter(|&i| !self.capped[i]) {
            let Some(cap) = inst.cap[i] else { continue };
            if g.gpus[i].iter().sum::<f64>() - cap > limit * cap {
                self.capped[i] = true;
                let row = m.g[i].iter().map(|&v| (v, -1.0)).collect();
                return Some((row, -cap, RowKey::Cap(i)));
            }
        }
        let targets = self.targets.as_ref()?;
        for i in (0..inst.tenants()).filter(|&i| !self.floored[i]) {
            if targets[i] - inst.utility(i, &g.gpus[i]) > limit * targets[i] {
                self.floored[i] = true;
                return Some((m.utility(inst, i, i, 1.0), targets[i], RowKey::Share(i)));
            }
        }
        None
    }

    /// The tenants whose cap and sharing-incentive rows are in the program and tight at `g`.
    fn tight(&self, inst: &Instance, g: &crate::Allocation) -> ShareRows<usize> {
        let n = inst.tenants();
        let capped = (0..n)
            .filter(|&i| self.capped[i])
            .filter(|&i| {
                inst.cap[i].is_some_and(|cap| g.gpus[i].iter().sum::<f64>() >= cap * (1.0 - 1e-9))
            })
            .collect();
        let floored = match &self.targets {
            Some(targets) => (0..n)
                .filter(|&i| self.floored[i] && targets[i] > 0.0)
                .filter(|&i| inst.utility(i, &g.gpus[i]) <= targets[i] * (1.0 + 1e-9))
                .collect(),
            None => Vec::new(),
        };
        ShareRows { capped, floored }
    }
}

/// g with every g_ij below 1e-12 of tenant i's equal split of type j read as 0. The simplex can
/// leave such crumbs (8e-34 GPUs seen) far below its tolerance; a tenant that holds nothing then
/// "envies" a crumb by its whole own utility (relative envy 1), and the frontier's check refused
/// a correct point for it (proptest in tests/frontier.rs, session 23). Zeroing them moves no row by
/// more than the solver's own tolerance.
fn without_crumbs(inst: &Instance, mut g: crate::Allocation) -> crate::Allocation {
    for (i, row) in g.gpus.iter_mut().enumerate() {
        for (x, e) in row.iter_mut().zip(inst.equal_split(i)) {
            if *x < 1e-12 * e {
                *x = 0.0;
            }
        }
    }
    g
}

fn solution(inst: &Instance, allocation: crate::Allocation) -> Solution {
    Solution {
        objective: allocation.efficiency(inst),
        allocation,
        market: None,
        shared: Vec::new(),
        trades: Vec::new(),
    }
}

/// u_i(g_i)/w_i - factor u_i(g_k)/w_k, as LP terms (>= 0 means i does not envy k's bundle
/// discounted by `factor`).
fn ef_row(m: &AllocationLp, inst: &Instance, i: usize, k: usize, factor: f64) -> crate::lp::Terms {
    let mut row = m.utility(inst, i, i, 1.0 / inst.weight[i]);
    row.extend(m.utility(inst, i, k, -factor / inst.weight[k]));
    row
}

/// Adds the rows `sol` breaks, one at a time, re-solving from the last basis after each: a cap
/// or sharing-incentive row not yet in (when they are lazy), else the most violated EF row.
fn add_violated_rows(
    m: &AllocationLp,
    inst: &Instance,
    mut sol: LpSolution,
    rows: &mut Rows,
    factor: f64,
) -> Result<(LpSolution, usize), PolicyError> {
    let mut scan = EnvyScan::new(inst, factor);
    let mut added = 0;
    loop {
        crate::deadline::check()?;
        let g = m.read(&sol);
        if let Some((row, rhs, key)) = rows
            .shares
            .as_deref_mut()
            .and_then(|shares| shares.broken(m, inst, &g))
        {
            sol = sol.add_ge(row, rhs)?;
            rows.keys.push(key);
            added += 1;
            continue;
        }
        // Ranked by relative envy: tenants with large speedups would otherwise dominate, and
        // ranking this way needs ~25% fewer rows (BENCHMARKS.md). A row is added while the
        // envy is above the checker's tolerance times LP_MARGIN.
        let Some((i, k)) = scan.most_violated(&g, rows.open, TOLERANCE * LP_MARGIN) else {
            return Ok((sol, added));
        };
        rows.open[i][k] = false;
        sol = sol.add_ge(ef_row(m, inst, i, k, factor), 0.0)?;
        rows.keys.push(RowKey::Envy(i, k));
        added += 1;
    }
}

/// Finds the most violated envy-freeness row of an allocation: the pair (i, k) with the largest
/// [`crate::fairness::relaxed_relative_envy`], computed here for all N^2 pairs at once. Every value is the one
/// `relaxed_relative_envy` gives (the same sums in the same order), so the choice is the same;
/// it is only faster: each own utility once, bundles stored type-major so that i's values of
/// every bundle are one vectorisable pass per type, and a division only for pairs where i
/// values k's bundle above its own.
struct EnvyScan<'a> {
    inst: &'a Instance,
    factor: f64,
    /// by_type[j][k] = g_kj of the allocation being scanned.
    by_type: Vec<Vec<f64>>,
    /// values[k] = u_i(g_k) for the envier i being scanned.
    values: Vec<f64>,
}

impl<'a> EnvyScan<'a> {
    fn new(inst: &'a Instance, factor: f64) -> Self {
        let n = inst.tenants();
        EnvyScan {
            inst,
            factor,
            by_type: vec![vec![0.0; n]; inst.types()],
            values: vec![0.0; n],
        }
    }

    /// The open pair with the largest relative envy above `threshold`, if any.
    fn most_violated(
        &mut self,
        g: &crate::Allocation,
        open: &[Vec<bool>],
        threshold: f64,
    ) -> Option<(usize, usize)> {
        let inst = self.inst;
        for (j, column) in self.by_type.iter_mut().enumerate() {
            for (slot, bundle) in column.iter_mut().zip(&g.gpus) {
                *slot = bundle[j];
            }
        }
        let mut worst: Option<(usize, usize, f64)> = None;
        for (i, open_i) in open.iter().enumerate() {
            self.values.fill(0.0);
            for (column, &s) in self.by_type.iter().zip(&inst.speedup[i]) {
                for (v, &held) in self.values.iter_mut().zip(column) {
                    *v += s * held;
                }
            }
            let own = self.values[i] / inst.weight[i];
            for (k, (&value, &w)) in self.values.iter().zip(&inst.weight).enumerate() {
                let theirs = self.factor * value / w;
                // Envy is positive only where theirs > own; skip the rest before dividing.
                if theirs <= own || !open_i[k] {
                    continue;
                }
                let r = envy_relative_to_larger(own, theirs);
                if r > threshold && worst.is_none_or(|(_, _, best)| r > best) {
                    worst = Some((i, k, r));
                }
            }
        }
        worst.map(|(i, k, _)| (i, k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::random_scenario;
    use crate::Allocation;
    use rand::{Rng, SeedableRng};

    /// The scan's choice against the definition written out here: i's envy of k relative to
    /// the larger side, k's bundle discounted by `factor`, the largest over open pairs.
    #[test]
    fn envy_scan_picks_the_most_violated_pair_by_the_definition() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for case in 0..40 {
            let mut scenario = random_scenario(2 + case % 9, 1 + case % 5, case as u64, false);
            for t in &mut scenario.tenants {
                t.weight = rng.random_range(0.5..4.0);
            }
            let inst = scenario.instance().unwrap();
            let (n, m) = (inst.tenants(), inst.types());
            let g = Allocation {
                gpus: (0..n)
                    .map(|_| (0..m).map(|_| rng.random_range(0.0..2.0)).collect())
                    .collect(),
            };
            let open: Vec<Vec<bool>> = (0..n)
                .map(|i| (0..n).map(|k| i != k && rng.random_bool(0.8)).collect())
                .collect();
            let factor = [1.0, 0.7][case % 2];
            let value = |i: usize, k: usize| -> f64 {
                (0..m)
                    .map(|j| inst.speedup[i][j] * g.gpus[k][j])
                    .sum::<f64>()
                    / inst.weight[k]
            };
            let mut expected: Option<(usize, usize, f64)> = None;
            for (i, open_i) in open.iter().enumerate() {
                for k in (0..n).filter(|&k| open_i[k]) {
                    let (own, theirs) = (value(i, i), factor * value(i, k));
                    let r = (theirs - own) / own.abs().max(theirs.abs());
                    if r > 1e-8 && expected.is_none_or(|(_, _, best)| r > best) {
                        expected = Some((i, k, r));
                    }
                }
            }
            let got = EnvyScan::new(&inst, factor).most_violated(&g, &open, 1e-8);
            assert_eq!(got, expected.map(|(i, k, _)| (i, k)), "case {case}");
        }
    }
}
