//! Nash welfare: the Eisenberg–Gale program, solved by clarabel's interior point over exponential
//! cones (a convex program, not an LP), with the GPU prices read from its duals.
//!
//! ```text
//! maximise   sum_i w_i ln u_i(g_i)                     Nash welfare, u_i(x) = sum_j s_ij x_j
//! subject to sum_i g_ij <= n_j         (price p_j)     capacity
//!            sum_j g_ij <= d_i         (price q_i)     cap, when tenant i has one
//!            g_ij >= 0
//! ```
//!
//! With linear utilities and no caps this is the competitive equilibrium from equal incomes
//! (Eisenberg and Gale 1959): each tenant spends its budget w_i on GPUs priced p_j, buying only
//! types of the best speedup per price, and every GPU valued by anyone is sold
//! (sum_j p_j n_j = sum_i w_i). A cap adds q_i to the price tenant i pays per GPU of any type.
//!
//! **Why trust the answer.** The interior point stops at a tolerance, so every answer is
//! certified by weak duality, recomputed from the prices in [`Market::dual_bound`]: for any
//! p, q >= 0 the Lagrangian dual
//!
//! ```text
//! D(p, q) = sum_j p_j n_j + sum_i q_i d_i + sum_i w_i (ln(w_i r_i) - 1),
//!           r_i = max_j s_ij / (p_j + q_i)          (tenant i's best speedup per price)
//! ```
//!
//! bounds the Nash welfare of every feasible allocation from above. An answer is shown only when
//! its Nash welfare is within [`TOLERANCE`] x sum_i w_i of that bound: the weighted geometric mean
//! of the utilities is then within a relative 1e-6 of the optimum.
//!
//! Every tenant can reach a positive utility (validation refuses a tenant that runs nowhere, and
//! caps are > 0), so the program always has a finite optimum.

mod polish;

use super::declared::{Family, InRounds, Reads, Rounds};
use super::{Guarantees, Policy, PolicyError, PolicyInfo, Promise, Solution};
use crate::fairness::TOLERANCE;
use crate::{Allocation, Instance};
use clarabel::algebra::CscMatrix;
use clarabel::solver::{
    DefaultSettingsBuilder, DefaultSolver, IPSolver, SolverStatus, SupportedConeT,
};
use serde::{Deserialize, Serialize};

/// The prices of an equilibrium, and what a mechanism built on it reports beside its allocation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Market {
    /// p_j: the price of one GPU of type j, in budget units (tenant i's budget is w_i), from the
    /// capacity row's dual. 0 for a type with no GPUs or one nobody can use.
    pub prices: Vec<f64>,
    /// q_i: the extra price per GPU tenant i pays because its cap binds (0 when uncapped or when
    /// the cap does not bind).
    pub cap_prices: Vec<f64>,
    /// sum_i w_i ln u_i(g_i) of the Nash-welfare allocation.
    pub nash_welfare: f64,
    /// D(p, q), the dual bound above: no allocation has more Nash welfare.
    pub dual_bound: f64,
    /// partial-allocation only: f_i, the fraction of its Nash-welfare bundle tenant i keeps.
    // Always written (null when absent): the playground's worker codec (bincode) cannot skip fields.
    #[serde(default)]
    pub kept_fraction: Option<Vec<f64>>,
    /// partial-allocation only: GPUs of each type left unallocated.
    // Always written (null when absent): the playground's worker codec (bincode) cannot skip fields.
    #[serde(default)]
    pub unallocated: Option<Vec<f64>>,
}

/// Maximum Nash welfare (Eisenberg–Gale), reported with the equilibrium prices.
pub struct NashWelfare;

/// The name and the one-line summary the CLI and the playground show.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "nash-welfare",
    summary:
        "Nash welfare (Eisenberg-Gale): equilibrium from equal weighted incomes, with GPU prices",
    guarantees: Guarantees {
        si: Promise::WithoutCaps,
        ef: Promise::WithoutCaps,
        pe: Promise::Always,
        sp: Promise::No,
    },
    family: Family::Market,
    reads: Reads::BASE,
    rounds: InRounds::Solved(Rounds::CLASSES),
};

impl Policy for NashWelfare {
    fn info(&self) -> PolicyInfo {
        INFO
    }

    fn allocate(&self, inst: &Instance) -> Result<Solution, PolicyError> {
        let (allocation, market) = equilibrium(inst)?;
        Ok(Solution {
            objective: market.nash_welfare,
            allocation,
            market: Some(market),
            shared: Vec::new(),
            trades: Vec::new(),
        })
    }

    /// The answer is within the tolerance of its dual bound (module docs).
    fn check_defining(&self, inst: &Instance, sol: &Solution) -> Result<(), String> {
        certify(inst, &sol.allocation, sol.market.as_ref())
    }
}

/// Recomputes the Nash welfare of `g` and the dual bound of `market`'s prices from their
/// definitions, and checks the gap: the optimality certificate of the module docs.
pub(crate) fn certify(
    inst: &Instance,
    g: &Allocation,
    market: Option<&Market>,
) -> Result<(), String> {
    let market = market.ok_or("no prices came with the allocation, so it cannot be certified")?;
    let welfare = nash_welfare(inst, g);
    let bound = dual_bound(inst, &market.prices, &market.cap_prices);
    let total_weight: f64 = inst.weight.iter().sum();
    let gap = (bound - welfare) / total_weight;
    if gap.is_finite() && gap <= TOLERANCE {
        Ok(())
    } else {
        Err(format!(
            "its Nash welfare {welfare:.9} is {gap:e} (per unit of weight) below the dual bound \
             {bound:.9} of its prices, more than the tolerance {TOLERANCE:e}"
        ))
    }
}

/// sum_i w_i ln u_i(g_i) (minus infinity when someone gets nothing).
pub fn nash_welfare(inst: &Instance, g: &Allocation) -> f64 {
    (0..inst.tenants())
        .map(|i| inst.weight[i] * inst.utility(i, &g.gpus[i]).ln())
        .sum()
}

/// D(p, q) of the module docs, from the definition; +infinity when a tenant can use a type at no
/// price (then no finite bound follows from these prices).
pub fn dual_bound(inst: &Instance, prices: &[f64], cap_prices: &[f64]) -> f64 {
    let mut bound: f64 = prices.iter().zip(&inst.count).map(|(p, n)| p * n).sum();
    for (i, &q) in cap_prices.iter().enumerate() {
        if let Some(d) = inst.cap[i] {
            bound += q * d;
        }
        let best = (0..inst.types())
            .filter(|&j| inst.count[j] > 0.0 && inst.speedup[i][j] > 0.0)
            .map(|j| inst.speedup[i][j] / (prices[j] + q))
            .fold(0.0_f64, f64::max);
        bound += inst.weight[i] * ((inst.weight[i] * best).ln() - 1.0);
    }
    bound
}

/// The scale of each tenant's variables on each type it runs on: its share of the type at the
/// filling level, n_j min(1, lambda w_i), but at most its cap (0 on types it cannot use).
/// lambda is the level, per unit of weight, at which the tenants that their caps do not stop
/// share the cluster ([`filling_level`]): 1 / W without caps, more when a capped tenant leaves
/// what its weight would take to the others. Each way of scaling tried before stalled the
/// interior point on a case the fuzz suite found: spreading the cap over the types in
/// proportion, a tenant that runs on a single type of 1% of the cluster, or whose fastest type
/// has one GPU in 40,000, needed variables in the hundreds or thousands; and the equal split
/// n_j w_i / W made a tiny budget beside a capped big one, which takes what the big one cannot,
/// need 24,000.
fn useful_split(inst: &Instance) -> Vec<Vec<f64>> {
    let level = filling_level(inst);
    (0..inst.tenants())
        .map(|i| {
            let phi = (level * inst.weight[i]).min(1.0);
            (0..inst.types())
                .map(|j| {
                    if inst.speedup[i][j] > 0.0 {
                        let e = inst.count[j] * phi;
                        inst.cap[i].map_or(e, |d| e.min(d))
                    } else {
                        0.0
                    }
                })
                .collect()
        })
        .collect()
}

/// lambda, by progressive filling with the cluster's types taken as one pool: every tenant's
/// share of it grows as lambda w_i until its cap stops it at d_i / (the GPUs of the types it
/// runs on), and lambda is where the shares add up to 1 (infinite when every cap stops its
/// tenant first). Only a scale for the solver: the program and its optimum do not depend on it.
fn filling_level(inst: &Instance) -> f64 {
    let n = inst.tenants();
    let usable = |i: usize| -> f64 {
        (0..inst.types())
            .filter(|&j| inst.speedup[i][j] > 0.0)
            .map(|j| inst.count[j])
            .sum()
    };
    let limit: Vec<f64> = (0..n)
        .map(|i| inst.cap[i].map_or(f64::INFINITY, |d| d / usable(i)))
        .collect();
    let mut by_limit: Vec<usize> = (0..n).collect();
    crate::order::sort_indices_by(&mut by_limit, &|a, b| {
        (limit[a] / inst.weight[a]).total_cmp(&(limit[b] / inst.weight[b]))
    });
    let (mut left, mut weight_left) = (1.0, inst.weight.iter().sum::<f64>());
    for &i in &by_limit {
        if limit[i] >= left * inst.weight[i] / weight_left {
            return left / weight_left;
        }
        left -= limit[i];
        weight_left -= inst.weight[i];
    }
    f64::INFINITY
}

/// Solves the Eisenberg–Gale program. Variables, in the order clarabel sees them: y_ij for each
/// pair with n_j > 0 and s_ij > 0 (a pair worth nothing to i stays at 0), g_ij = e_ij y_ij with
/// e_ij tenant i's share of type j, at most its cap ([`useful_split`]; so y is about 1 and the
/// solver's absolute tolerances are relative); then t_i, the epigraph of ln(u_i / u_i(e_i))
/// (dividing u_i by a constant moves every ln by a constant: same optimum, same prices, and
/// u / u(e) is about 1).
///
/// ```text
/// minimise   -sum_i (w_i / W) t_i
/// subject to sum_i (e_ij / n_j) y_ij <= 1          capacity, divided by n_j
///            sum_j (e_ij / d_i) y_ij <= 1          caps, divided by d_i
///            -y_ij <= 0
///            (t_i, 1, sum_j s_ij e_ij y_ij / u_i(e_i)) in K_exp    t_i <= ln(u_i / u_i(e_i))
/// ```
///
/// A capacity row's dual z_j is the price in units of the objective: p_j = W z_j / n_j. The
/// answer is then polished by Newton's method on its optimality conditions (polish.rs).
pub(crate) fn equilibrium(inst: &Instance) -> Result<(Allocation, Market), PolicyError> {
    let (n, m) = (inst.tenants(), inst.types());
    let total_weight: f64 = inst.weight.iter().sum();
    let share = useful_split(inst);
    let target: Vec<f64> = (0..n).map(|i| inst.utility(i, &share[i])).collect();
    let pairs: Vec<(usize, usize)> = (0..n)
        .flat_map(|i| (0..m).map(move |j| (i, j)))
        .filter(|&(i, j)| inst.count[j] > 0.0 && inst.speedup[i][j] > 0.0)
        .collect();
    let types: Vec<usize> = (0..m).filter(|&j| inst.count[j] > 0.0).collect();
    let capped: Vec<usize> = (0..n).filter(|&i| inst.cap[i].is_some()).collect();
    let row_of_type = |j: usize| types.iter().position(|&t| t == j);
    let row_of_cap = |i: usize| capped.iter().position(|&t| t == i).map(|r| types.len() + r);
    let linear_rows = types.len() + capped.len() + pairs.len();
    let cone_row = |i: usize| linear_rows + 3 * i;
    let vars = pairs.len() + n;

    let (mut rows, mut cols, mut vals) = (vec![], vec![], vec![]);
    for (v, &(i, j)) in pairs.iter().enumerate() {
        let e = share[i][j];
        let mut put = |row: usize, value: f64| {
            rows.push(row);
            cols.push(v);
            vals.push(value);
        };
        if let Some(r) = row_of_type(j) {
            put(r, e / inst.count[j]);
        }
        if let (Some(r), Some(d)) = (row_of_cap(i), inst.cap[i]) {
            put(r, e / d);
        }
        put(types.len() + capped.len() + v, -1.0);
        put(cone_row(i) + 2, -inst.speedup[i][j] * e / target[i]);
    }
    for i in 0..n {
        rows.push(cone_row(i));
        cols.push(pairs.len() + i);
        vals.push(-1.0);
    }
    let total_rows = linear_rows + 3 * n;
    let a = CscMatrix::new_from_triplets(total_rows, vars, rows, cols, vals);
    let mut b = vec![0.0; total_rows];
    b[..types.len() + capped.len()].fill(1.0);
    for i in 0..n {
        b[cone_row(i) + 1] = 1.0;
    }
    let mut c = vec![0.0; vars];
    for i in 0..n {
        c[pairs.len() + i] = -inst.weight[i] / total_weight;
    }
    let p = CscMatrix::<f64>::zeros((vars, vars));
    let mut cones = vec![SupportedConeT::NonnegativeConeT(linear_rows)];
    cones.extend((0..n).map(|_| SupportedConeT::ExponentialConeT()));
    // Tighter than clarabel's defaults (1e-8): the answer must certify to 1e-6 of the bound.
    let settings = DefaultSettingsBuilder::default()
        .verbose(false)
        .tol_gap_abs(1e-11)
        .tol_gap_rel(1e-11)
        .tol_feas(1e-10)
        .max_iter(200)
        .build()
        .map_err(|e| PolicyError::Solver(format!("clarabel settings: {e:?}")))?;
    let mut solver = DefaultSolver::new(&p, &c, &a, &b, &cones, settings)
        .map_err(|e| PolicyError::Solver(format!("clarabel: {e:?}")))?;
    solver.solve();
    let sol = &solver.solution;
    match sol.status {
        // Stalled short of its tolerances, the point is often still close: it is polished and
        // must certify like any other answer (`certify`), or is refused then.
        SolverStatus::Solved | SolverStatus::AlmostSolved | SolverStatus::InsufficientProgress => {}
        status => {
            return Err(PolicyError::Solver(format!(
                "the Nash-welfare program ended {status:?}"
            )))
        }
    }
    let mut allocation = Allocation::zeros(n, m);
    for (v, &(i, j)) in pairs.iter().enumerate() {
        allocation.gpus[i][j] = share[i][j] * sol.x[v].max(0.0);
    }
    let mut prices = vec![0.0; m];
    for (r, &j) in types.iter().enumerate() {
        prices[j] = total_weight * sol.z[r].max(0.0) / inst.count[j];
    }
    let mut cap_prices = vec![0.0; n];
    for (r, &i) in capped.iter().enumerate() {
        let d = inst.cap[i].unwrap_or(1.0);
        cap_prices[i] = total_weight * sol.z[types.len() + r].max(0.0) / d;
    }
    let ipm = Market {
        nash_welfare: nash_welfare(inst, &allocation),
        dual_bound: dual_bound(inst, &prices, &cap_prices),
        prices,
        cap_prices,
        kept_fraction: None,
        unallocated: None,
    };
    // The polish is kept when it is feasible and certifies more tightly (polish.rs). It is tried
    // on the interior point's support as it is, and on it less the pairs outbid for their type
    // (where the interior point left a few millionths of a GPU with the wrong tenant); a point
    // far from the optimum can make the second drop a pair the optimum holds, hence both.
    let gap = |market: &Market| market.dual_bound - market.nash_welfare;
    let start = allocation.gpus.clone();
    let mut best = with_prices_of_allocation(inst, allocation, ipm);
    for outbid in [None, Some(polish::OUTBID)] {
        let polished = polish::polish(inst, &share, &start, &best.1.cap_prices, outbid)
            .and_then(|p| polished_market(inst, p));
        if let Some(candidate) = polished {
            if gap(&candidate.1).is_finite() && gap(&candidate.1) <= gap(&best.1) {
                best = candidate;
            }
        }
    }
    Ok(best)
}

/// The equilibrium of `inst` by Newton's polish alone from `start`, an allocation near it, when
/// that answer certifies to [`WARM_GAP`]; otherwise [`equilibrium`]'s interior point.
///
/// partial-allocation solves the market without each tenant in turn, starting from the market
/// with every tenant, the missing one's bundle handed to the others. The polish solves the
/// optimality conditions on the start's support, so the answer is the optimum only when that
/// support is the optimum's: pairs the optimum drops are driven to the boundary and dropped
/// (one restart each), and pairs it adds (a tenant that now buys a type it did not) are found in
/// rounds: each round adds every pair whose worth w_i s_ij / u_i is above what the type's
/// holders pay and within [`CONTENDER`] of the type's highest, with a little of the type
/// ([`CONTENDER_START`] of the tenant's share). Measured on 150 x 12, 500 x 8 and 1,000 x 8:
/// every market certifies this way, and the kept fractions equal the interior point's to 1e-13.
pub(crate) fn equilibrium_from(
    inst: &Instance,
    start: &[Vec<f64>],
) -> Result<(Allocation, Market), PolicyError> {
    match polished_from(inst, start) {
        Some(answer) => Ok(answer),
        None => equilibrium(inst),
    }
}

/// [`equilibrium_from`]'s Newton rounds: the answer when one certifies to [`WARM_GAP`].
pub(crate) fn polished_from(inst: &Instance, start: &[Vec<f64>]) -> Option<(Allocation, Market)> {
    let (n, m) = (inst.tenants(), inst.types());
    let share = useful_split(inst);
    let total_weight: f64 = inst.weight.iter().sum();
    let mut from = start.to_vec();
    let mut added = 0;
    for _ in 0..CONTENDER_ROUNDS {
        let polished = polish::polish_with_restarts(inst, &share, &from, RESTARTS_FROM + added)
            .and_then(|p| polished_market(inst, p));
        let Some((g, market)) = polished else {
            break;
        };
        if market.dual_bound - market.nash_welfare <= WARM_GAP * total_weight {
            return Some((g, market));
        }
        let u: Vec<f64> = (0..n).map(|i| inst.utility(i, &g.gpus[i])).collect();
        let worth = |i: usize, j: usize| inst.weight[i] * inst.speedup[i][j] / u[i];
        // Who contends for type j: a tenant that would pay more for it than its holders do
        // (their worth is its price on the polished support), and near the most anyone would.
        let bar: Vec<f64> = (0..m)
            .map(|j| {
                let price = (0..n)
                    .filter(|&i| g.gpus[i][j] > HELD * share[i][j])
                    .map(|i| worth(i, j))
                    .fold(0.0_f64, f64::max);
                let highest = (0..n).map(|i| worth(i, j)).fold(0.0_f64, f64::max);
                (price * (1.0 + ABOVE_PRICE)).max(highest * (1.0 - CONTENDER))
            })
            .collect();
        from = g.gpus;
        for (i, row) in from.iter_mut().enumerate() {
            for (j, held) in row.iter_mut().enumerate() {
                let little = CONTENDER_START * share[i][j];
                let contends = inst.speedup[i][j] > 0.0 && worth(i, j) > bar[j];
                if contends && *held < little {
                    *held = little;
                    added += 1;
                }
            }
        }
        // The little added must not overfill a type or pass a cap: the polish takes a type or a
        // cap past its size as binding, and cannot meet every such equality at once.
        for (row, cap) in from.iter_mut().zip(&inst.cap) {
            let held: f64 = row.iter().sum();
            if let Some(d) = cap.filter(|&d| held > d) {
                row.iter_mut().for_each(|g| *g *= d / held);
            }
        }
        let used = Allocation { gpus: from.clone() }.used(m);
        for j in (0..m).filter(|&j| used[j] > inst.count[j]) {
            let scale = inst.count[j] / used[j];
            from.iter_mut().for_each(|row| row[j] *= scale);
        }
    }
    None
}

/// [`equilibrium_from`]'s bar, per unit of weight: far tighter than [`TOLERANCE`], so an answer
/// polished on a support short of a pair (which certifies to about 1e-7 and moves a kept
/// fraction by 1e-4) is not taken; on the right support the gap is about 1e-15.
const WARM_GAP: f64 = 1e-10;
/// Rounds of adding pairs before the interior point is asked.
const CONTENDER_ROUNDS: usize = 6;
/// A pair contends for its type when its worth is this close to the type's highest, relatively,
/// and above what the type's holders pay by [`ABOVE_PRICE`].
const CONTENDER: f64 = 3e-3;
/// Only pairs worth more than the holders pay break the certificate. Adding pairs just below
/// the price too (as first written) had Newton drive them to the boundary one restart at a
/// time, and a pair the optimum needs went out with them: at 500 x 8, 102 of the 500 markets
/// fell to the interior point.
const ABOVE_PRICE: f64 = 1e-12;
/// A pair counts as held, for its type's price, above this fraction of the tenant's share.
const HELD: f64 = 1e-7;
/// What a contending pair starts with, as a fraction of the tenant's share of the type.
const CONTENDER_START: f64 = 1e-3;
/// Restarts the polish may take, besides one per pair added.
const RESTARTS_FROM: usize = 20;

/// A polished answer that fits the cluster and the caps, with its market (prices read off the
/// allocation where they certify more tightly).
fn polished_market(inst: &Instance, p: polish::Polished) -> Option<(Allocation, Market)> {
    let (n, m) = (inst.tenants(), inst.types());
    let polished = Allocation { gpus: p.gpus };
    let used = polished.used(m);
    let within = |held: f64, most: f64| held <= most * (1.0 + 1e-12);
    let fits = (0..m).all(|j| within(used[j], inst.count[j]))
        && (0..n).all(|i| inst.cap[i].is_none_or(|d| within(polished.gpus[i].iter().sum(), d)));
    if !fits {
        return None;
    }
    let market = Market {
        nash_welfare: nash_welfare(inst, &polished),
        dual_bound: dual_bound(inst, &p.prices, &p.cap_prices),
        prices: p.prices,
        cap_prices: p.cap_prices,
        kept_fraction: None,
        unallocated: None,
    };
    Some(with_prices_of_allocation(inst, polished, market))
}

/// The market with its prices read off the allocation instead, when they certify it more
/// tightly: p_j = max(0, max_i w_i s_ij / u_i(g) - q_i), the least price at which no tenant would
/// rather buy type j than what it holds. At the optimum these are the equilibrium prices (each
/// tenant's best speedup per price is u_i / w_i, on the types it holds); where a type adds a
/// billionth of the welfare the solvers' duals can miss its price by percents, these cannot.
/// Two sets of cap prices q are tried: the market's, and, for each tenant at its cap,
/// q_i = max w_i s_ij / u_i over the types with GPUs to spare (what keeps it from wanting more
/// of those, which are free), 0 for the others.
fn with_prices_of_allocation(
    inst: &Instance,
    g: Allocation,
    mut market: Market,
) -> (Allocation, Market) {
    let (n, m) = (inst.tenants(), inst.types());
    let u: Vec<f64> = (0..n).map(|i| inst.utility(i, &g.gpus[i])).collect();
    let worth = |i: usize, j: usize| inst.weight[i] * inst.speedup[i][j] / u[i];
    let used = g.used(m);
    let spare: Vec<usize> = (0..m)
        .filter(|&j| inst.count[j] > 0.0 && used[j] < inst.count[j] * (1.0 - 1e-9))
        .collect();
    let at_cap: Vec<f64> = (0..n)
        .map(|i| match inst.cap[i] {
            Some(d) if g.gpus[i].iter().sum::<f64>() >= d * (1.0 - 1e-9) => {
                spare.iter().map(|&j| worth(i, j)).fold(0.0_f64, f64::max)
            }
            _ => 0.0,
        })
        .collect();
    for cap_prices in [market.cap_prices.clone(), at_cap] {
        let prices: Vec<f64> = (0..m)
            .map(|j| {
                if inst.count[j] <= 0.0 {
                    return 0.0;
                }
                (0..n)
                    .map(|i| worth(i, j) - cap_prices[i])
                    .fold(0.0_f64, f64::max)
            })
            .collect();
        let bound = dual_bound(inst, &prices, &cap_prices);
        if bound.is_finite() && (market.dual_bound.is_nan() || bound < market.dual_bound) {
            market.prices = prices;
            market.cap_prices = cap_prices;
            market.dual_bound = bound;
        }
    }
    (g, market)
}
