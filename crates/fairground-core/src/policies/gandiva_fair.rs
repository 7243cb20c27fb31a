//! gandiva-fair and gandiva-fair:midpoint: equal shares of every type, then trades of fast GPUs
//! for slow ones. No solver.

use super::declared::{
    Family, Grouping, InRounds, PartyRule, Reads, RoundAnswer, Rounds, Walk, Warm,
};
use super::{Guarantees, Policy, PolicyError, PolicyInfo, Solution};
use crate::fairness::TOLERANCE;
use crate::{Allocation, Instance};
use serde::{Deserialize, Serialize};

/// Gandiva_fair (Chaudhary, Ramjee, Sivathanu, Kwatra, Viswanatha; EuroSys 2020), as this project
/// reads it: fair shares of every GPU type, then trades of fast GPUs for slow ones between
/// tenants. The paper's body is not available here; what is known (its abstract, secondary
/// accounts and a public re-implementation, mhomidi/threashold-util-sim) fixes the outline, and
/// every other choice is ours, stated here and in docs/policies.md.
///
/// **Start.** Tenant i holds the fraction phi_i of every type: phi_i = w_i / sum_k w_k, except
/// that a capped tenant holds at most its cap (phi_i <= d_i / sum_j n_j) and what it leaves is
/// spread over the others by weight (water-filling). Every tenant starts at or above its capped
/// equal split e_i, so sharing incentive holds from the start.
///
/// **Trades.** The types are ranked by speed (the mean of the tenants' speedups on the type;
/// ties by the scenario's order). For each slow type l, slowest first, and each faster type h,
/// fastest first, tenants holding both trade: tenant i values one GPU of h as r_i = s_ih / s_il
/// GPUs of l (infinite when it cannot use l at all; a tenant that can use neither type stays out
/// of the pair's market). The holder with the lowest r (the seller) sells GPUs of h to the
/// holder with the highest (the buyer) for p GPUs of l each:
///
/// ```text
/// p = r of the tenant ranked just below the buyer, among every tenant that can use the pair
///     (default: with two tenants that is the seller's own r, so the seller gains nothing)
/// p = (r_seller + r_buyer) / 2                                   (gandiva-fair:midpoint)
/// ```
///
/// As much changes hands as either side holds: the seller's whole holding of h, or the buyer's
/// whole holding of l, whichever runs out first, so each trade takes one of them out of the
/// pair's market. r_seller <= p <= r_buyer, so neither side loses:
/// seller: +x s_il (p - r_seller), buyer: +x s_il' (r_buyer - p) for x GPUs of h sold.
///
/// Our choices where nothing published says: trading on a pair stops when fewer than two tenants
/// hold both types or the highest r is no higher than the lowest (no trade gains anyone
/// anything); of tenants with equal r the one listed later ranks higher; a trade that would take a capped tenant
/// over its cap is cut to fit and that tenant leaves the pair's market (so trading ends); the
/// ranking that sets p includes tenants not holding the pair (as the re-implementation ranks all
/// users): it is still between the seller's r and the buyer's.
///
/// Not envy-free or strategy-proof in general (a seller that overstates its fast-type speedup
/// raises the rate it is paid). With two types, no binding caps and every tenant able to use
/// both, the end is Pareto-efficient: sellers leave the market in rising order of r and buyers
/// in falling order, so every tenant left holding only the slow type has an r no higher than any
/// holder of the fast type (then sum_i u_i / s_i,slow is at its maximum). A tenant that cannot
/// use one type may be the last holder of both and keep GPUs it cannot use: trading stops when
/// fewer than two tenants hold both, as in the re-implementation.
/// The objective reported is the efficiency sum_i u_i.
pub struct GandivaFair {
    pub rate: ExchangeRate,
}

/// How the price of a fast GPU, in slow GPUs, is set in a trade.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExchangeRate {
    /// The r of the tenant ranked just below the buyer (the re-implementation's rule).
    NextBelowBuyer,
    /// Halfway between the seller's r and the buyer's.
    Midpoint,
}

/// Its shares and trades are per tenant (its users), whatever the simulator is asked.
const ROUNDS: InRounds = InRounds::Solved(Rounds {
    parties: PartyRule::Always(Grouping::Tenants),
    answer: RoundAnswer::Solve,
    walk: Walk::Fixed,
    warm: Warm::Cold,
});

/// The name and the one-line summary the CLI and the playground show.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "gandiva-fair",
    summary:
        "Gandiva_fair: equal shares of every type, then fast GPUs traded for slow ones at the \
              next bidder's speedup",
    guarantees: Guarantees::NONE,
    family: Family::Market,
    reads: Reads::BASE,
    rounds: ROUNDS,
};

pub const INFO_MIDPOINT: PolicyInfo = PolicyInfo {
    name: "gandiva-fair:midpoint",
    summary: "Gandiva_fair, each trade at the midpoint of the seller's and the buyer's speedups",
    guarantees: Guarantees::NONE,
    family: Family::Market,
    reads: Reads::BASE,
    rounds: ROUNDS,
};

/// One trade: `seller` gave `sold` GPUs of type `fast` to `buyer` for `paid` GPUs of type
/// `slow` (`rate` = paid / sold, slow GPUs per fast GPU). Indices into the scenario's tenants
/// and types.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trade {
    pub slow: usize,
    pub fast: usize,
    pub seller: usize,
    pub buyer: usize,
    pub rate: f64,
    pub sold: f64,
    pub paid: f64,
}

impl Policy for GandivaFair {
    fn info(&self) -> PolicyInfo {
        match self.rate {
            ExchangeRate::NextBelowBuyer => INFO,
            ExchangeRate::Midpoint => INFO_MIDPOINT,
        }
    }

    /// No tenant below where it started (each trade gains both sides something or nothing).
    fn check_defining(&self, inst: &Instance, sol: &Solution) -> Result<(), String> {
        let start = starting_shares(inst);
        for i in 0..inst.tenants() {
            let (now, then) = (
                inst.utility(i, &sol.allocation.gpus[i]),
                inst.utility(i, &start.gpus[i]),
            );
            if now < then - TOLERANCE * then.abs().max(1.0) {
                return Err(format!(
                    "'{}' traded down from {then} to {now}",
                    inst.tenant_names[i]
                ));
            }
        }
        Ok(())
    }

    fn allocate(&self, inst: &Instance) -> Result<Solution, PolicyError> {
        let (allocation, trades) = trade(inst, self.rate);
        Ok(Solution {
            objective: allocation.efficiency(inst),
            allocation,
            market: None,
            shared: Vec::new(),
            trades,
        })
    }
}

/// The start: phi_i of every type, phi water-filled by weight under the caps.
pub fn starting_shares(inst: &Instance) -> Allocation {
    let total: f64 = inst.count.iter().sum();
    let n = inst.tenants();
    let mut phi = vec![0.0; n];
    if total > 0.0 {
        let mut open: Vec<usize> = (0..n).collect();
        let mut left = 1.0;
        while !open.is_empty() {
            let weight: f64 = open.iter().map(|&i| inst.weight[i]).sum();
            let level = left / weight;
            let (capped, free): (Vec<usize>, Vec<usize>) = open
                .iter()
                .partition(|&&i| inst.cap[i].is_some_and(|d| d / total < level * inst.weight[i]));
            if capped.is_empty() {
                free.iter().for_each(|&i| phi[i] = level * inst.weight[i]);
                break;
            }
            for &i in &capped {
                phi[i] = inst.cap[i].unwrap_or(0.0) / total;
                left -= phi[i];
            }
            open = free;
        }
    }
    Allocation {
        gpus: phi
            .iter()
            .map(|f| inst.count.iter().map(|n| n * f).collect())
            .collect(),
    }
}

/// The types from slowest to fastest: by the mean of the tenants' speedups, ties in order.
fn by_speed(inst: &Instance) -> Vec<usize> {
    let speed = |j: usize| (0..inst.tenants()).map(|i| inst.speedup[i][j]).sum::<f64>();
    let mut order: Vec<usize> = (0..inst.types()).collect();
    crate::order::sort_indices_by(&mut order, &|a, b| {
        speed(a).total_cmp(&speed(b)).then(a.cmp(&b))
    });
    order
}

/// The starting shares and every trade, in order.
fn trade(inst: &Instance, rule: ExchangeRate) -> (Allocation, Vec<Trade>) {
    let mut alloc = starting_shares(inst);
    let mut trades = Vec::new();
    let order = by_speed(inst);
    for (a, &slow) in order.iter().enumerate() {
        for &fast in order[a + 1..].iter().rev() {
            trade_pair(inst, rule, slow, fast, &mut alloc, &mut trades);
        }
    }
    (alloc, trades)
}

/// The market on one pair of types, run until no trade gains anyone anything.
fn trade_pair(
    inst: &Instance,
    rule: ExchangeRate,
    slow: usize,
    fast: usize,
    alloc: &mut Allocation,
    trades: &mut Vec<Trade>,
) {
    let n = inst.tenants();
    // r_i: GPUs of the slow type one of the fast type is worth to i (None: i uses neither).
    let r: Vec<Option<f64>> = (0..n)
        .map(|i| {
            let (sl, sf) = (inst.speedup[i][slow], inst.speedup[i][fast]);
            match (sl > 0.0, sf > 0.0) {
                (false, false) => None,
                (false, true) => Some(f64::INFINITY),
                _ => Some(sf / sl),
            }
        })
        .collect();
    // Every tenant that can use the pair, by r (ties: listed first ranks lower).
    let mut ranking: Vec<usize> = (0..n).filter(|&i| r[i].is_some()).collect();
    crate::order::sort_indices_by(&mut ranking, &|a, b| {
        r[a].unwrap_or(0.0)
            .total_cmp(&r[b].unwrap_or(0.0))
            .then(a.cmp(&b))
    });
    // A holding below this is nothing (round-off of earlier trades).
    let crumbs = |j: usize| TOLERANCE * inst.count[j].max(1.0);
    let mut out = vec![false; n];
    loop {
        let holders: Vec<usize> = ranking
            .iter()
            .copied()
            .filter(|&i| {
                !out[i] && alloc.gpus[i][slow] > crumbs(slow) && alloc.gpus[i][fast] > crumbs(fast)
            })
            .collect();
        let (Some(&seller), Some(&buyer)) = (holders.first(), holders.last()) else {
            return;
        };
        let (r_seller, r_buyer) = (r[seller].unwrap_or(0.0), r[buyer].unwrap_or(0.0));
        if holders.len() < 2 || r_buyer <= r_seller {
            return;
        }
        let rate = match rule {
            ExchangeRate::NextBelowBuyer => {
                let at = ranking.iter().position(|&i| i == buyer).unwrap_or(0);
                r[ranking[at.saturating_sub(1)]].unwrap_or(r_seller)
            }
            ExchangeRate::Midpoint => (r_seller + r_buyer) / 2.0,
        };
        let (has_fast, has_slow) = (alloc.gpus[seller][fast], alloc.gpus[buyer][slow]);
        // Whichever side runs out first (an infinite rate: the buyer's slow GPUs for nothing).
        let (mut sold, mut paid) = if has_fast * rate >= has_slow {
            (has_slow / rate, has_slow)
        } else {
            (has_fast, has_fast * rate)
        };
        // A cap cuts the trade to fit; that tenant then leaves the pair's market.
        let mut fits = 1.0_f64;
        let mut capped = None;
        for (who, gain) in [(seller, paid - sold), (buyer, sold - paid)] {
            if let (Some(cap), true) = (inst.cap[who], gain > 0.0) {
                let held: f64 = alloc.gpus[who].iter().sum();
                let room = ((cap - held) / gain).max(0.0);
                if room < fits {
                    fits = room;
                    capped = Some(who);
                }
            }
        }
        sold *= fits;
        paid *= fits;
        if let Some(who) = capped {
            out[who] = true;
        }
        if sold > 0.0 || paid > 0.0 {
            alloc.gpus[seller][fast] -= sold;
            alloc.gpus[seller][slow] += paid;
            alloc.gpus[buyer][fast] += sold;
            alloc.gpus[buyer][slow] -= paid;
            if capped.is_none() {
                // The side that ran out holds exactly nothing, not round-off.
                if has_fast * rate >= has_slow {
                    alloc.gpus[buyer][slow] = 0.0;
                } else {
                    alloc.gpus[seller][fast] = 0.0;
                }
            }
            trades.push(Trade {
                slow,
                fast,
                seller,
                buyer,
                rate,
                sold,
                paid,
            });
        }
    }
}
