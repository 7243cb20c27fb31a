//! The fairness-property checker: sharing incentive, envy-freeness and Pareto efficiency of any
//! allocation, and a strategy-proofness probe of any policy. Each failed check carries a witness
//! (who envies whom, a dominating allocation, a profitable lie) as data the UI can show.

use crate::deadline::OutOfTime;
use crate::fairness;
use crate::lp::{Lp, Var};
use crate::metrics::Metrics;
use crate::policies::{AllocationLp, Policy, PolicyError, Solution};
use crate::{Allocation, Instance, Scenario};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

/// Tolerance of every property check, relative to the size of the quantity compared (one
/// value for the LPs and the checker, defined with the properties in [`crate::fairness`]).
pub use crate::fairness::TOLERANCE;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SiCheck {
    pub holds: bool,
    /// min_i u_i(g_i) / u_i(e_i).
    pub worst_ratio: f64,
    pub worst_tenant: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EfCheck {
    /// `None` when envy-freeness is not defined for the allocation (see `undecided`).
    pub holds: Option<bool>,
    /// Why there is no verdict: GPUs shared by two tenants are no bundle another could take.
    pub undecided: Option<String>,
    /// u_i(g_k)/w_k - u_i(g_i)/w_i for the constrained pair with the largest envy relative to
    /// the values compared (<= 0, or within the tolerance, when EF).
    pub worst_envy: f64,
    /// (envious, envied) of that worst pair.
    pub pair: Option<(usize, usize)>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PeCheck {
    /// `None` when the test LP could not be solved reliably (see `undecided`): neither verdict
    /// is shown then.
    pub holds: Option<bool>,
    /// Why the verdict is undecided.
    pub undecided: Option<String>,
    /// max sum_i (u_i(h_i) - u_i(g_i)) over feasible h leaving nobody worse off.
    pub gain: f64,
    /// An allocation that makes nobody worse off and someone better off, when one exists.
    pub dominating: Option<Allocation>,
    /// With it, the GPUs each co-located pair shares in it (empty when the scenario lists no
    /// pairs or the witness shares none).
    #[serde(default)]
    pub dominating_shared: Vec<Vec<f64>>,
    /// When the allocation is envy-free but not PE: the most efficiency an allocation adds that
    /// leaves nobody worse off *and* stays envy-free (`report::run` re-solves for it). 0 means
    /// every improvement breaks envy-freeness: `gain` is then the price of envy-freeness here.
    /// `None` when not asked (PE holds, EF fails, the scenario has co-located pairs) or the
    /// re-solve failed.
    #[serde(default)]
    pub gain_keeping_ef: Option<f64>,
}

/// SI, EF and PE of one allocation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PropertyReport {
    pub sharing_incentive: SiCheck,
    pub envy_freeness: EfCheck,
    pub pareto_efficiency: PeCheck,
}

pub fn check(inst: &Instance, alloc: &Allocation) -> PropertyReport {
    let metrics = Metrics::of(inst, alloc);
    check_with(inst, alloc, &metrics)
}

pub fn check_with(inst: &Instance, alloc: &Allocation, metrics: &Metrics) -> PropertyReport {
    let pe = pareto(inst, alloc, metrics.efficiency);
    report_with(inst, alloc, metrics, pe)
}

/// SI and EF of `alloc`, beside a PE verdict already reached.
fn report_with(
    inst: &Instance,
    alloc: &Allocation,
    metrics: &Metrics,
    pareto_efficiency: PeCheck,
) -> PropertyReport {
    let (worst_tenant, worst_ratio) = metrics
        .si_ratio
        .iter()
        .copied()
        .enumerate()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap_or((0, 1.0));
    // The required pair with the largest envy relative to the values compared; among equals
    // (a tenant with nothing envies everyone by 1), the largest envy.
    let n = inst.tenants();
    let envy = &metrics.envy.envy;
    let worst = (0..n)
        .flat_map(|i| (0..n).map(move |k| (i, k)))
        .filter(|&(i, k)| metrics.envy.required[i][k])
        .map(|(i, k)| (i, k, fairness::relative_envy(inst, alloc, i, k)))
        .max_by(|a, b| {
            a.2.total_cmp(&b.2)
                .then(envy[a.0][a.1].total_cmp(&envy[b.0][b.1]))
        });
    let envy_free = worst.is_none_or(|(_, _, r)| r <= TOLERANCE);
    PropertyReport {
        sharing_incentive: SiCheck {
            holds: (0..n).all(|i| fairness::meets_share(inst, alloc, i)),
            worst_ratio,
            worst_tenant,
        },
        envy_freeness: EfCheck {
            holds: Some(envy_free),
            undecided: None,
            worst_envy: worst.map_or(0.0, |(i, k, _)| metrics.envy.envy[i][k]),
            pair: worst.filter(|_| !envy_free).map(|(i, k, _)| (i, k)),
        },
        pareto_efficiency,
    }
}

/// SI, EF and PE of a policy's answer, GPUs shared by co-located pairs included (`metrics` from
/// [`Metrics::of_solution`]). SI compares each tenant's utility, shared GPUs counted, with its
/// equal split. EF has no verdict when a pair shares GPUs: a shared GPU's worth to a tenant
/// depends on its partner, so "i prefers k's bundle" has no meaning there. PE, when the
/// scenario lists pairs, searches allocations that may share GPUs too ([`pareto_sharing`]).
pub fn check_solution(inst: &Instance, sol: &Solution, metrics: &Metrics) -> PropertyReport {
    let pe = if inst.co_located.is_empty() {
        pareto(inst, &sol.allocation, metrics.efficiency)
    } else {
        pareto_sharing(inst, &metrics.utility, metrics.efficiency)
    };
    let mut report = report_with(inst, &sol.allocation, metrics, pe);
    if !sol.shared.is_empty() {
        report.sharing_incentive.holds = (0..inst.tenants())
            .all(|i| fairness::shortfall_of_utility(inst, i, metrics.utility[i]) <= TOLERANCE);
    }
    if inst.shares_any(&sol.shared) {
        report.envy_freeness = EfCheck {
            holds: None,
            undecided: Some(
                "two tenants share GPUs: what a shared GPU is worth depends on the partner, \
                 so no tenant can take another's bundle"
                    .into(),
            ),
            worst_envy: f64::NAN,
            pair: None,
        };
    }
    report
}

/// The Pareto test as one LP:
///
/// ```text
/// maximise   sum_i u_i(h_i) - sum_i u_i(g_i)
/// subject to base constraints on h (capacity, caps)
///            u_i(h_i) >= u_i(g_i)     for all i
/// ```
///
/// g is Pareto efficient iff the optimum is 0 (within tolerance); otherwise h dominates it.
///
/// h_ij is measured in g_ij (or, where g_ij is 0, in a size worth at most u_i(g_i) to i), so each
/// floor row holds to the solver's tolerance relative to u_i(g_i) however small that is. "Not PE"
/// is only said with a witness checked here: feasible ([`Allocation::check`]), nobody worse off
/// beyond [`TOLERANCE`] (relative), efficiency higher by more than it; otherwise the verdict is
/// undecided, with the reason.
fn pareto(inst: &Instance, alloc: &Allocation, efficiency: f64) -> PeCheck {
    let utility: Vec<f64> = alloc.utilities(inst);
    let share: Vec<Vec<f64>> = (0..inst.tenants()).map(|i| inst.equal_split(i)).collect();
    let size = |i: usize, j: usize| {
        let g = alloc.gpus[i][j];
        let s = inst.speedup[i][j];
        if g > 0.0 {
            g
        } else if utility[i] > 0.0 && s > 0.0 {
            (utility[i] / (s * inst.types() as f64)).min(share[i][j].max(f64::MIN_POSITIVE))
        } else {
            share[i][j]
        }
    };
    let mut m = AllocationLp::with_sizes(Lp::maximize(), inst, |i, j| inst.speedup[i][j], size);
    for (i, &floor) in utility.iter().enumerate() {
        // A hair below u_i(g_i), so g itself stays feasible despite its own round-off.
        let own = m.utility(inst, i, i, 1.0);
        m.lp.ge(own, floor - 1e-9 * floor.abs());
    }
    let sol = match m.lp.solve() {
        Ok(sol) => sol,
        Err(err) => {
            return undecided(
                inst,
                format!("the Pareto test's LP could not be solved ({err})"),
            )
        }
    };
    let h = Solution {
        allocation: m.read(&sol),
        objective: f64::NAN,
        market: None,
        shared: Vec::new(),
        trades: Vec::new(),
    };
    verdict(inst, h, &utility, efficiency)
}

/// The Pareto test's verdict on its LP's answer `h`: it dominates when nobody is worse off
/// than `utility` (to [`TOLERANCE`], relative) and efficiency is higher by more than it; "not
/// PE" is only said with `h` feasible ([`Solution::check`]), else the verdict is undecided.
fn verdict(inst: &Instance, h: Solution, utility: &[f64], efficiency: f64) -> PeCheck {
    let after = h.utilities(inst);
    let gain = after.iter().sum::<f64>() - efficiency;
    let nobody_worse = after
        .iter()
        .zip(utility)
        .all(|(a, b)| *a >= b * (1.0 - TOLERANCE));
    let dominates = nobody_worse && gain > TOLERANCE * efficiency.abs();
    if dominates {
        if let Err(why) = h.check(inst) {
            // The LP's witness breaks a constraint: the solver could not be trusted here.
            return undecided(
                inst,
                format!("the Pareto test's dominating allocation is not feasible ({why})"),
            );
        }
    }
    let shares = inst.shares_any(&h.shared);
    PeCheck {
        holds: Some(!dominates),
        undecided: None,
        gain: gain.max(0.0),
        dominating_shared: if dominates && shares {
            h.shared
        } else {
            Vec::new()
        },
        dominating: dominates.then_some(h.allocation),
        gain_keeping_ef: None,
    }
}

/// The Pareto test on a scenario with co-located pairs: the same LP over allocations that may
/// share GPUs, g'_ij held alone and h'_pj held by pair p together,
///
/// ```text
/// maximise   sum_i u_i(g', h')
/// subject to sum_i g'_ij + sum_p h'_pj <= n_j                 capacity (a pair's GPUs once)
///            sum_j g'_ij + sum_{p ∋ i} sum_j h'_pj <= d_i      caps (alone and shared)
///            u_i(g', h') >= u_i                               nobody worse off
/// ```
///
/// with u_i(g', h') = sum_j s_ij g'_ij + sum_{p ∋ i} sum_j (T^p_ij / T_i,ref) h'_pj, and u_i what
/// the answer tested gives (its own shared GPUs counted). Variables are measured in the
/// tenant's equal split (a pair's in its first tenant's), as the policies' are.
fn pareto_sharing(inst: &Instance, utility: &[f64], efficiency: f64) -> PeCheck {
    let (n, k) = (inst.tenants(), inst.types());
    let mut lp = Lp::maximize();
    let share: Vec<Vec<f64>> = (0..n).map(|i| inst.equal_split(i)).collect();
    let size = |i: usize, j: usize| share[i][j].max(1e-9 * inst.count[j]).max(f64::MIN_POSITIVE);
    let g: Vec<Vec<Var>> = (0..n)
        .map(|i| {
            (0..k)
                .map(|j| lp.var_scaled(inst.speedup[i][j], size(i, j)))
                .collect()
        })
        .collect();
    let reference: Vec<f64> = (0..n).map(|i| inst.reference_throughput(i)).collect();
    // A pair's term in each of its tenants' utility; its objective is both together.
    let h: Vec<Vec<Var>> = inst
        .co_located
        .iter()
        .map(|p| {
            p.throughput
                .iter()
                .enumerate()
                .map(|(j, &(ta, tb))| {
                    lp.var_scaled(ta / reference[p.a] + tb / reference[p.b], size(p.a, j))
                })
                .collect()
        })
        .collect();
    let mut own: Vec<Vec<(Var, f64)>> = (0..n)
        .map(|i| (0..k).map(|j| (g[i][j], inst.speedup[i][j])).collect())
        .collect();
    let mut held: Vec<Vec<Var>> = g.clone();
    for (p, vars) in inst.co_located.iter().zip(&h) {
        for (j, &v) in vars.iter().enumerate() {
            own[p.a].push((v, p.throughput[j].0 / reference[p.a]));
            own[p.b].push((v, p.throughput[j].1 / reference[p.b]));
            held[p.a].push(v);
            held[p.b].push(v);
        }
    }
    for j in 0..k {
        let row = g.iter().map(|gi| gi[j]).chain(h.iter().map(|hp| hp[j]));
        lp.le(row.map(|v| (v, 1.0)), inst.count[j]);
    }
    for (i, vars) in held.iter().enumerate() {
        if let Some(cap) = inst.cap[i] {
            lp.le(vars.iter().map(|&v| (v, 1.0)), cap);
        }
    }
    for (i, terms) in own.into_iter().enumerate() {
        // A hair below u_i, so the answer itself stays feasible despite its own round-off.
        lp.ge(terms, utility[i] - 1e-9 * utility[i].abs());
    }
    let sol = match lp.solve() {
        Ok(sol) => sol,
        Err(err) => {
            return undecided(
                inst,
                format!("the Pareto test's LP could not be solved ({err})"),
            )
        }
    };
    let read = |vars: &Vec<Vec<Var>>| -> Vec<Vec<f64>> {
        vars.iter()
            .map(|row| row.iter().map(|&v| sol.value(v).max(0.0)).collect())
            .collect()
    };
    let h = Solution {
        allocation: Allocation { gpus: read(&g) },
        objective: f64::NAN,
        market: None,
        shared: read(&h),
        trades: Vec::new(),
    };
    verdict(inst, h, utility, efficiency)
}

/// A PE verdict left open, with the reason and the scenario's widely spread numbers if any.
fn undecided(inst: &Instance, why: String) -> PeCheck {
    let blame =
        crate::scenario::wide_spread(inst).map_or(String::new(), |spread| format!("; {spread}"));
    PeCheck {
        holds: None,
        undecided: Some(format!("{why}{blame}")),
        gain: f64::NAN,
        dominating: None,
        dominating_shared: Vec::new(),
        gain_keeping_ef: None,
    }
}

/// How hard the strategy-proofness probe searches.
#[derive(Debug, Clone, PartialEq)]
pub struct SpProbeConfig {
    /// Factors applied to one reported throughput at a time.
    pub grid: Vec<f64>,
    /// Random misreports per tenant (every type scaled by a log-uniform factor in [1/4, 4]).
    pub random: usize,
    pub seed: u64,
}

impl Default for SpProbeConfig {
    fn default() -> Self {
        SpProbeConfig {
            grid: vec![0.0, 0.25, 0.5, 0.75, 0.9, 1.1, 1.25, 1.5, 2.0, 4.0],
            random: 16,
            seed: 7,
        }
    }
}

impl SpProbeConfig {
    /// Misreports tried per tenant on `types` GPU types: each type scaled by each grid factor,
    /// then the random rescalings (those that make the scenario invalid are skipped, so at most).
    pub fn misreports_per_tenant(&self, types: usize) -> usize {
        types * self.grid.len() + self.random
    }

    /// Re-solves of the policy the probe makes on `tenants` x `types`, at most: the CLI and the
    /// playground say this before a probe that would take long.
    pub fn solves(&self, tenants: usize, types: usize) -> usize {
        tenants * self.misreports_per_tenant(types)
    }
}

/// A duration as a reader wants it before a long run: "about 40 s", "about 12 min", "about 6.8 h".
pub fn rough_duration(seconds: f64) -> String {
    if seconds < 90.0 {
        format!("about {:.0} s", seconds.max(1.0))
    } else if seconds < 5400.0 {
        format!("about {:.0} min", seconds / 60.0)
    } else {
        format!("about {:.1} h", seconds / 3600.0)
    }
}

/// A misreport and what it earns the liar, in its TRUE utility.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lie {
    pub tenant: usize,
    pub reported: Vec<f64>,
    pub truthful_utility: f64,
    pub lying_utility: f64,
    /// lying_utility - truthful_utility.
    pub gain: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpProbe {
    /// No profitable lie was found (which does not prove strategy-proofness).
    pub no_lie_found: bool,
    /// The most profitable lie found per tenant, if any was profitable.
    pub best_per_tenant: Vec<Option<Lie>>,
    /// The most profitable lie overall.
    pub best: Option<Lie>,
    pub misreports_tried: usize,
}

/// Searches misreports of each tenant's throughput row: every type scaled by each grid factor
/// in turn, then random rescalings of the whole row. A misreport that makes the scenario
/// invalid (say, zero on the normalisation reference) or the policy fail is skipped. Under a
/// time limit ([`crate::deadline`]) the probe stops with `Err` once it passes, rather than
/// report a search it did not finish.
pub fn sp_probe(
    scenario: &Scenario,
    policy: &dyn Policy,
    config: &SpProbeConfig,
) -> Result<SpProbe, OutOfTime> {
    let Ok(inst) = scenario.instance() else {
        return Ok(SpProbe {
            no_lie_found: true,
            best_per_tenant: vec![],
            best: None,
            misreports_tried: 0,
        });
    };
    // oef-coop's rows at the truthful optimum seed every misreport's solve: a misreport moves
    // one tenant's row a little, and the rows it needs are mostly the same (RowMemory).
    let mut rows = crate::policies::active_memory();
    let truthful = match crate::policies::remembering(&mut rows, || policy.solve(&inst)) {
        Ok(truthful) => truthful,
        Err(PolicyError::OutOfTime(stop)) => return Err(stop),
        Err(_) => {
            return Ok(SpProbe {
                no_lie_found: true,
                best_per_tenant: vec![None; inst.tenants()],
                best: None,
                misreports_tried: 0,
            })
        }
    };
    let mut rng = StdRng::seed_from_u64(config.seed);
    let honest_utilities = truthful.utilities(&inst);
    // Every tenant's misreports first, in the order the seeded draws have always been made; then
    // the tenants' re-solves on the machine's cores (natively; one after another in the browser).
    let candidates: Vec<Vec<Vec<f64>>> = (0..inst.tenants())
        .map(|i| {
            let truth = &scenario.tenants[i].throughput;
            let mut candidates: Vec<Vec<f64>> = Vec::new();
            for j in 0..truth.len() {
                for &f in &config.grid {
                    let mut r = truth.clone();
                    r[j] *= f;
                    candidates.push(r);
                }
            }
            for _ in 0..config.random {
                candidates.push(
                    truth
                        .iter()
                        .map(|t| t * 4f64.powf(rng.random_range(-1.0..=1.0)))
                        .collect(),
                );
            }
            candidates
        })
        .collect();
    let per_tenant = crate::parallel::map_indices(inst.tenants(), |i| {
        let honest = honest_utilities[i];
        let (mut best, mut tried): (Option<Lie>, usize) = (None, 0);
        for reported in &candidates[i] {
            crate::deadline::check()?;
            let mut lying = scenario.clone();
            lying.tenants[i].throughput = reported.clone();
            let Ok(lying_inst) = lying.instance() else {
                continue;
            };
            let Ok(sol) =
                crate::policies::remembering(&mut rows.clone(), || policy.solve(&lying_inst))
            else {
                continue;
            };
            tried += 1;
            // Judged by the TRUE speedups of tenant i (its shared GPUs' too).
            let gained = sol.utilities(&inst)[i];
            let gain = gained - honest;
            if gain > TOLERANCE * honest.abs().max(1e-12)
                && best.as_ref().is_none_or(|b| gain > b.gain)
            {
                best = Some(Lie {
                    tenant: i,
                    reported: reported.clone(),
                    truthful_utility: honest,
                    lying_utility: gained,
                    gain,
                });
            }
        }
        // A re-solve the limit stopped was skipped above as a failure: it must not end a search
        // reported as whole.
        crate::deadline::check()?;
        Ok((best, tried))
    })
    .into_iter()
    .collect::<Result<Vec<_>, OutOfTime>>()?;
    let tried = per_tenant.iter().map(|(_, t)| t).sum();
    let best_per_tenant: Vec<Option<Lie>> = per_tenant.into_iter().map(|(b, _)| b).collect();
    let best = best_per_tenant
        .iter()
        .flatten()
        .max_by(|a, b| a.gain.total_cmp(&b.gain))
        .cloned();
    Ok(SpProbe {
        no_lie_found: best.is_none(),
        best_per_tenant,
        best,
        misreports_tried: tried,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::random_scenario;

    /// The count the CLI and the playground announce is what the probe runs: every grid factor on
    /// every type plus the random rows, per tenant; only misreports that make the scenario invalid
    /// (a factor 0 on the type a tenant's throughputs are normalised by) are skipped.
    #[test]
    fn the_announced_solves_are_the_misreports_tried() {
        let config = SpProbeConfig::default();
        for (tenants, types) in [(3, 2), (5, 4)] {
            let scenario = random_scenario(tenants, types, 3, false);
            let policy = crate::policies::by_name("equal-share").unwrap();
            let probe = sp_probe(&scenario, policy, &config).unwrap();
            let announced = config.solves(tenants, types);
            assert_eq!(announced, tenants * (types * 10 + 16));
            assert!(probe.misreports_tried <= announced);
            assert!(
                probe.misreports_tried >= announced - tenants,
                "{} of {announced}",
                probe.misreports_tried
            );
        }
    }

    #[test]
    fn rough_durations_read_as_a_reader_would_say_them() {
        assert_eq!(rough_duration(0.2), "about 1 s");
        assert_eq!(rough_duration(42.4), "about 42 s");
        assert_eq!(rough_duration(720.0), "about 12 min");
        assert_eq!(rough_duration(24_480.0), "about 6.8 h");
    }
}
