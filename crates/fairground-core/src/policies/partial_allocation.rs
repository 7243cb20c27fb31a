//! Cole, Gkatzelis and Goel's partial allocation mechanism (EC 2013), weighted: each tenant keeps
//! a fraction of its Nash-welfare bundle, the rest is left unallocated, and that makes lying
//! unprofitable.
//!
//! ```text
//! x*     = the Nash-welfare allocation (nash_welfare.rs)
//! x*_-i  = the Nash-welfare allocation of the same cluster without tenant i
//! f_i    = ( prod_{k != i} u_k(x*)^w_k / prod_{k != i} u_k(x*_-i)^w_k )^(1 / w_i)
//! g_i    = f_i x*_i
//! ```
//!
//! f_i is in (0, 1]: x*_-i maximises the others' weighted product, so x* gives them no more. The
//! root 1 / w_i keeps f unchanged when every weight is scaled by one factor; with equal weights
//! it is the paper's rule, which gives each tenant at least 1/e of its Nash-welfare utility.
//!
//! **Why it is strategy-proof.** Tenant i's utility is f_i u_i(x*_i), and
//! (f_i u_i(x*_i))^w_i = u_i(x*_i)^w_i prod_{k != i} u_k(x*_k)^w_k / prod_{k != i} u_k(x*_-i)^w_k.
//! The denominator does not depend on i's report; the numerator is the Nash welfare of x* judged
//! by i's true utility, which the truthful x* maximises over every allocation, including the one
//! a lie produces. Caps do not change this: they bound the feasible set whatever i reports.
//!
//! Costs n + 1 Nash-welfare solves, each certified by its dual bound. The n markets without one
//! tenant start from x* with that tenant's bundle handed to the others, and are polished from
//! there by Newton's method alone when that answer certifies (the interior point otherwise).

use super::declared::{Family, InRounds, Reads, Rounds};
use super::nash_welfare::{certify, equilibrium, equilibrium_from, Market};
use super::{Guarantees, Policy, PolicyError, PolicyInfo, Solution};
use crate::fairness::TOLERANCE;
use crate::{Allocation, Instance};

pub struct PartialAllocation;

/// The name and the one-line summary the CLI and the playground show.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "partial-allocation",
    summary: "Partial allocation (Cole-Gkatzelis-Goel): a fraction of the Nash-welfare bundle, strategy-proof",
    guarantees: Guarantees::NONE,
    family: Family::Market,
    reads: Reads::BASE,
    rounds: InRounds::Solved(Rounds::CLASSES),
};

/// The Nash-welfare allocation without tenant i, guessed from x*: the others' bundles, each type
/// of i's bundle handed to the others holding that type, in proportion to what they hold but
/// never past a cap (what no one can take is left unallocated). A start for the Newton polish
/// of the market without i, indexed as [`Instance::without`] indexes it; where it is not near
/// enough, the certificate sends the solve to the interior point.
fn handed_on(inst: &Instance, star: &Allocation, i: usize) -> Vec<Vec<f64>> {
    let mut rest = star.gpus.clone();
    let freed = rest.remove(i);
    let mut caps = inst.cap.clone();
    caps.remove(i);
    for (j, &left) in freed.iter().enumerate() {
        let held: f64 = rest.iter().map(|row| row[j]).sum();
        if held <= 0.0 {
            continue;
        }
        for (row, cap) in rest.iter_mut().zip(&caps) {
            let room = cap.map_or(f64::INFINITY, |d| (d - row.iter().sum::<f64>()).max(0.0));
            row[j] += (left * row[j] / held).min(room);
        }
    }
    rest
}

impl Policy for PartialAllocation {
    fn info(&self) -> PolicyInfo {
        INFO
    }

    fn allocate(&self, inst: &Instance) -> Result<Solution, PolicyError> {
        let (star, market) = equilibrium(inst)?;
        certify(inst, &star, Some(&market)).map_err(|why| {
            PolicyError::Unreliable(format!(
                "partial-allocation: the Nash-welfare allocation: {why}"
            ))
        })?;
        let n = inst.tenants();
        let ln_u: Vec<f64> = (0..n)
            .map(|k| inst.utility(k, &star.gpus[k]).ln())
            .collect();
        // The Newton start serves markets where no cap binds. Where caps bind, the start's
        // caps and full types pin it (as many equalities as pairs held), so Newton stops where
        // it starts, and the rounds only cost time before the interior point (BENCHMARKS.md).
        let no_cap_binds = (0..n).all(|k| {
            inst.cap[k].is_none_or(|d| star.gpus[k].iter().sum::<f64>() < d * (1.0 - 1e-6))
        });
        // The markets without one tenant are independent: on the machine's cores natively.
        let kept = crate::parallel::map_indices(n, |i| {
            if n == 1 {
                return Ok(1.0);
            }
            crate::deadline::check()?;
            let others = inst.without(i);
            let (without, sub_market) = if no_cap_binds {
                equilibrium_from(&others, &handed_on(inst, &star, i))?
            } else {
                equilibrium(&others)?
            };
            certify(&others, &without, Some(&sub_market)).map_err(|why| {
                PolicyError::Unreliable(format!(
                    "partial-allocation: the Nash-welfare allocation without '{}': {why}",
                    inst.tenant_names[i]
                ))
            })?;
            // Others are re-indexed without i: k < i keeps its index, k > i moves down one.
            let loss: f64 = (0..n)
                .filter(|&k| k != i)
                .map(|k| {
                    let sub = if k < i { k } else { k - 1 };
                    let u_without = others.utility(sub, &without.gpus[sub]);
                    inst.weight[k] * (ln_u[k] - u_without.ln())
                })
                .sum();
            Ok((loss / inst.weight[i]).exp().min(1.0))
        })
        .into_iter()
        .collect::<Result<Vec<f64>, PolicyError>>()?;
        let gpus: Vec<Vec<f64>> = star
            .gpus
            .iter()
            .zip(&kept)
            .map(|(row, f)| row.iter().map(|g| g * f).collect())
            .collect();
        let allocation = Allocation { gpus };
        let used = allocation.used(inst.types());
        let unallocated = inst
            .count
            .iter()
            .zip(&used)
            .map(|(n, u)| (n - u).max(0.0))
            .collect();
        Ok(Solution {
            objective: super::nash_welfare::nash_welfare(inst, &allocation),
            allocation,
            market: Some(Market {
                kept_fraction: Some(kept),
                unallocated: Some(unallocated),
                ..market
            }),
            shared: Vec::new(),
            trades: Vec::new(),
        })
    }

    /// The fractions are in (0, 1] and the bundles, scaled back up by them, are the certified
    /// Nash-welfare allocation.
    fn check_defining(&self, inst: &Instance, sol: &Solution) -> Result<(), String> {
        let market = sol
            .market
            .as_ref()
            .ok_or("no fractions came with the allocation")?;
        let kept = market
            .kept_fraction
            .as_ref()
            .ok_or("no fractions came with the allocation")?;
        if let Some(i) =
            (0..inst.tenants()).find(|&i| !(kept[i] > 0.0 && kept[i] <= 1.0 + TOLERANCE))
        {
            return Err(format!(
                "'{}' keeps a fraction {} of its bundle, outside (0, 1]",
                inst.tenant_names[i], kept[i]
            ));
        }
        let star = Allocation {
            gpus: sol
                .allocation
                .gpus
                .iter()
                .zip(kept)
                .map(|(row, f)| row.iter().map(|g| g / f).collect())
                .collect(),
        };
        certify(inst, &star, Some(market))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policies::nash_welfare::polished_from;
    use crate::presets::random_scenario;

    /// The speed-up is real and exact: each market without one tenant, polished from x* with that
    /// tenant's bundle handed on, certifies without the interior point, and every tenant's
    /// utility is the interior point's (Nash-welfare utilities are unique) to 1e-9. The 12-type
    /// scenarios are ones where some markets fell to the interior point when pairs just below
    /// their type's price were added as contenders too (3 of 40 and 5 of 60 markets).
    #[test]
    fn markets_without_a_tenant_polish_from_the_handed_on_start() {
        let small = (1..=4).map(|seed| (6 + 6 * seed as usize, 4, seed));
        for (tenants, types, seed) in small.chain([(40, 12, 3), (60, 12, 7)]) {
            let inst = random_scenario(tenants, types, seed, false)
                .instance()
                .unwrap();
            let (star, _) = equilibrium(&inst).unwrap();
            for i in 0..inst.tenants() {
                let others = inst.without(i);
                let (warm, market) = polished_from(&others, &handed_on(&inst, &star, i))
                    .unwrap_or_else(|| panic!("seed {seed}, without {i}: no certified polish"));
                certify(&others, &warm, Some(&market)).unwrap();
                let (cold, _) = equilibrium(&others).unwrap();
                for k in 0..others.tenants() {
                    let (a, b) = (
                        others.utility(k, &warm.gpus[k]),
                        others.utility(k, &cold.gpus[k]),
                    );
                    assert!(
                        (a - b).abs() <= 1e-9 * b,
                        "seed {seed}, without {i}: {k} {a} {b}"
                    );
                }
            }
        }
    }
}
