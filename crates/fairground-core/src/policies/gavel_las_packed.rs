//! Gavel's max-min fairness with space sharing (`MaxMinFairnessPolicyWithPacking`,
//! `max_min_fairness_packed`, Narayanan et al., OSDI 2020, section 4.2): besides running alone,
//! two jobs of the same scale factor may share the same GPUs, each at its measured co-located
//! throughput. At tenant level, with g_ij the GPUs tenant (job) i holds alone on type j and h_pj
//! the GPUs pair p = {a, b} holds together:
//!
//! ```text
//! maximise   min_i  ( sum_j T_ij g_ij + sum_{p ∋ i} sum_j T^p_ij h_pj ) / (w_i prop_i)
//! subject to sum_i g_ij + sum_p h_pj <= n_j                    capacity of type j
//!            sum_j g_ij + sum_{p ∋ i} sum_j h_pj <= s_i        job i runs at most all the time
//!            g, h >= 0
//! ```
//!
//! T^p_ij is i's throughput per GPU next to its partner on type j, prop_i Gavel's proportional
//! throughput of i alone ([`proportional_throughput`]). A pair's jobs have one scale factor s, so
//! h_pj = s x_pj for Gavel's time fraction x_pj: the rows are Gavel's `sum_c s_c x_cj <= n_j` and
//! `sum_{c ∋ i} x_ic <= 1`, and the objective its `T_i(c) s_c x_c / (w_i prop_i)` with T per
//! job. Without pairs this is [`super::GavelLas`]'s program.

use super::declared::{Family, InRounds, Reads};
use super::gavel::proportional_throughput;
use super::interior::significant;
use super::twins::Twins;
use super::{Guarantees, Policy, PolicyError, PolicyInfo, Solution};
use crate::barrier::WeightedLp;
pub use crate::co_location::CoLocation;
use crate::lp::{Lp, Var};
use crate::{Allocation, Instance};

/// The allocation policy: the program above over the scenario's `co_located` pairs, solved by
/// [`max_min_packed`] (the canonical optimum: the max-min level, then the most total
/// normalised throughput). GPUs held alone are the allocation, each pair's GPUs
/// [`Solution::shared`]; its objective is the level. Without pairs it is Gavel's max-min
/// fairness (`gavel-las`'s program, with this tie-break).
pub struct GavelLasPacked;

/// The name and the one-line summary the CLI and the playground show.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "gavel-las-packed",
    summary: "Gavel: max-min fairness with space sharing (co-located pairs share GPUs)",
    guarantees: Guarantees::NONE,
    family: Family::Gavel,
    reads: Reads {
        co_location: true,
        ..Reads::BASE
    },
    rounds: InRounds::Packed,
};

impl Policy for GavelLasPacked {
    fn info(&self) -> PolicyInfo {
        INFO
    }

    fn allocate(&self, inst: &Instance) -> Result<Solution, PolicyError> {
        let packed = max_min_packed(inst, &inst.co_located)?;
        Ok(Solution {
            allocation: packed.alone,
            objective: packed.level,
            market: None,
            shared: if inst.co_located.is_empty() {
                Vec::new()
            } else {
                packed.pairs
            },
            trades: Vec::new(),
        })
    }
}

/// The packed optimum: GPUs held alone, GPUs each pair holds, and the max-min level.
#[derive(Debug, Clone, PartialEq)]
pub struct PackedAllocation {
    pub alone: Allocation,
    /// h[p][j], in the order of the pairs given.
    pub pairs: Vec<Vec<f64>>,
    /// The lowest normalised throughput, min_i u_i / (w_i prop_i).
    pub level: f64,
}

/// Solves the program above. A pair's two tenants need equal caps (their scale factor); a
/// tenant without a cap has no time row (it may hold any number of GPUs). Pairs naming a
/// missing tenant or a tenant twice are refused.
///
/// The max-min optimum is rarely unique: only the lowest tenants are pinned, and the others can
/// be given time alone or in pairs in many ways. Gavel takes whatever its interior-point
/// solver (ECOS) lands on, and so does the simulator ([`max_min_packed_interior`]). Here, a
/// simplex vertex often shared GPUs no fairness needed, so a second program picks, among the
/// optima, the one with the most total normalised throughput: a canonical answer, exact to the
/// simplex's tolerance, which the tests hold the interior answer's level to.
pub fn max_min_packed(
    inst: &Instance,
    pairs: &[CoLocation],
) -> Result<PackedAllocation, PolicyError> {
    check_pairs(inst, pairs)?;
    let first = program(inst, pairs, None)?;
    program(inst, pairs, Some(first.level))
}

/// Every tenant's cap (its scale factor), for the interior program, which needs one for each.
fn checked_caps(inst: &Instance, pairs: &[CoLocation]) -> Result<Vec<f64>, PolicyError> {
    check_pairs(inst, pairs)?;
    (0..inst.tenants())
        .map(|i| {
            inst.cap[i].ok_or_else(|| {
                PolicyError::Infeasible(format!(
                    "space sharing: tenant {} needs max_gpus (its scale factor)",
                    inst.tenant_names[i]
                ))
            })
        })
        .collect()
}

/// Each pair names two different tenants, of equal caps, and gives a throughput pair per type.
fn check_pairs(inst: &Instance, pairs: &[CoLocation]) -> Result<(), PolicyError> {
    let (tenants, types) = (inst.tenants(), inst.types());
    let cap = &inst.cap;
    for (k, p) in pairs.iter().enumerate() {
        if p.a >= tenants || p.b >= tenants || p.a == p.b || p.throughput.len() != types {
            return Err(PolicyError::Infeasible(format!(
                "space sharing: pair {k} must name two different tenants and give one \
                 throughput pair per GPU type"
            )));
        }
        if cap[p.a].is_none() || cap[p.a] != cap[p.b] {
            return Err(PolicyError::Infeasible(format!(
                "space sharing: {} and {} hold different numbers of GPUs and cannot share",
                inst.tenant_names[p.a], inst.tenant_names[p.b]
            )));
        }
    }
    Ok(())
}

/// The same program as [`max_min_packed`] solved as Gavel's simulator solves it: once, by an
/// interior point at ECOS's tolerances (1e-8), with Gavel's variables, every pair on every type.
/// Its answer is near the centre of the max-min optima, not a vertex, and it leaves every pair a
/// crumb (about 1e-9) of time, which Gavel's round mechanism ranks above none. The simulator's
/// `gavel-las-packed` uses it: average JCT within 0.2% of Gavel's own on its sample traces
/// (12+12+12 GPUs), where the vertex program's choice was -3.8% to +1.9% (BENCHMARKS.md, "Space
/// sharing"). Values are kept to 8 significant digits, as every interior answer here.
///
/// Jobs of one model and scale factor are twins: the program is unchanged when two of them trade
/// places, so its central path treats them alike, and it is solved over classes of twins
/// ([`Twins`], [`crate::barrier`]): one variable per class and type, one per pair of classes and
/// type, rows weighted by how many rows each stands for. At 100 jobs of 25 models that is 25
/// classes for 100 jobs and about 325 pair variables per type for 4,950. (It was solved per job
/// by clarabel before, with the same JCTs to 0.7% and 5x the time: BENCHMARKS.md.)
pub fn max_min_packed_interior(
    inst: &Instance,
    pairs: &[CoLocation],
) -> Result<PackedAllocation, PolicyError> {
    let cap = checked_caps(inst, pairs)?;
    merged_program(inst, &cap, &Twins::of(inst, pairs))
        .map_err(|e| PolicyError::Solver(format!("space sharing: {e}")))
}

/// The program over classes of twins, by [`crate::barrier`]:
///
/// ```text
/// maximise   z
/// subject to sum_j g_cj + sum_{groups G ∋ c} partners_c(G) sum_j h_Gj <= s_c     weight |c|
///            z <= ( sum_j T_cj g_cj + sum_G partners_c(G) sum_j T^G_cj h_Gj ) / (w_c prop_c)
///                                                                                weight |c|
///            sum_c |c| g_cj + sum_G |G| h_Gj <= n_j                              weight 1
///            g_cj >= 0 (weight |c|),  h_Gj >= 0 (weight |G|, the pairs in G)
/// ```
///
/// with g_cj each job's GPUs alone in class c and h_Gj each pair's GPUs in group G: the per-job
/// program on the subspace where twins hold the same, each row weighted by the rows it merges.
fn merged_program(inst: &Instance, cap: &[f64], twins: &Twins) -> Result<PackedAllocation, String> {
    let (k, classes) = (inst.types(), twins.size.len());
    let first = twins.first();
    let mut lp = WeightedLp::default();
    let g: Vec<Vec<usize>> = twins
        .size
        .iter()
        .map(|&size| (0..k).map(|_| lp.var(0.0, size as f64)).collect())
        .collect();
    let h: Vec<Vec<usize>> = twins
        .groups
        .iter()
        .map(|group| (0..k).map(|_| lp.var(0.0, group.pairs as f64)).collect())
        .collect();
    let z = lp.var(-1.0, 1.0);
    for (c, &i) in first.iter().enumerate() {
        let weight = twins.size[c] as f64;
        let scale = normalising_scale(inst, i).map_err(|e| e.to_string())?;
        let mut time: Vec<(usize, f64)> = g[c].iter().map(|&v| (v, 1.0)).collect();
        let mut level: Vec<(usize, f64)> = (0..k)
            .map(|j| (g[c][j], -scale * inst.throughput[i][j]))
            .collect();
        for (group, vars) in twins.groups.iter().zip(&h) {
            let Some((partners, throughput)) = group.partners_of(c, &twins.size) else {
                continue;
            };
            for (&v, t) in vars.iter().zip(throughput) {
                time.push((v, partners));
                level.push((v, -scale * partners * t));
            }
        }
        lp.le(&time, cap[i], weight);
        level.push((z, 1.0));
        lp.le(&level, 0.0, weight);
    }
    for j in 0..k {
        let mut row: Vec<(usize, f64)> = (0..classes)
            .map(|c| (g[c][j], twins.size[c] as f64))
            .collect();
        row.extend(
            twins
                .groups
                .iter()
                .zip(&h)
                .map(|(group, vars)| (vars[j], group.pairs as f64)),
        );
        lp.le(&row, inst.count[j], 1.0);
    }
    let x = lp.minimise()?;
    let value = |v: usize| significant(x[v].max(0.0));
    Ok(PackedAllocation {
        alone: Allocation {
            gpus: twins
                .class_of
                .iter()
                .map(|&c| g[c].iter().map(|&v| value(v)).collect())
                .collect(),
        },
        pairs: twins
            .group_of
            .iter()
            .map(|&group| h[group].iter().map(|&v| value(v)).collect())
            .collect(),
        level: x[z],
    })
}

/// 1 / (w_i prop_i): what turns tenant i's throughput into its normalised one.
fn normalising_scale(inst: &Instance, i: usize) -> Result<f64, PolicyError> {
    let scale = 1.0 / (inst.weight[i] * proportional_throughput(inst, i));
    if scale.is_finite() {
        Ok(scale)
    } else {
        Err(PolicyError::Infeasible(format!(
            "space sharing: {} can run on no GPU type",
            inst.tenant_names[i]
        )))
    }
}

/// The max-min program (`at_level` None), or, given its optimum, the second one: every
/// tenant's normalised throughput at least that level (to a relative 1e-9), the total of them
/// maximised.
fn program(
    inst: &Instance,
    pairs: &[CoLocation],
    at_level: Option<f64>,
) -> Result<PackedAllocation, PolicyError> {
    let (tenants, types) = (inst.tenants(), inst.types());
    let mut lp = Lp::maximize();
    let total_weight: f64 = inst.weight.iter().sum();
    let size = variable_sizes(inst, total_weight);
    // A type with no GPUs: exactly zero, not zero to the solver's tolerance (which is relative
    // to the size, and a size of hundreds of GPUs left 5e-7 of a GPU that does not exist).
    let g: Vec<Vec<Var>> = (0..tenants)
        .map(|i| {
            (0..types)
                .map(|j| {
                    if inst.count[j] > 0.0 {
                        lp.var_scaled(0.0, size[i])
                    } else {
                        lp.bounded_var(0.0, 0.0, 0.0)
                    }
                })
                .collect()
        })
        .collect();
    // A pair gets a variable only on the types that have GPUs and where both its jobs run:
    // elsewhere its time would take GPUs and give nothing, so some optimum leaves it at 0 (and
    // most measured pairs run on only some types, so this keeps the LP a third of the size).
    let h: Vec<Vec<Option<Var>>> = pairs
        .iter()
        .map(|p| {
            p.throughput
                .iter()
                .zip(&inst.count)
                .map(|(&(ta, tb), &n)| {
                    (ta > 0.0 && tb > 0.0 && n > 0.0).then(|| lp.var_scaled(0.0, size[p.a]))
                })
                .collect()
        })
        .collect();
    // Every term of tenant i: (variable, throughput per GPU).
    let mut terms: Vec<Vec<(Var, f64)>> = (0..tenants)
        .map(|i| {
            (0..types)
                .map(|j| (g[i][j], inst.throughput[i][j]))
                .collect()
        })
        .collect();
    for (p, vars) in pairs.iter().zip(&h) {
        for (j, v) in vars.iter().enumerate() {
            let Some(v) = *v else { continue };
            terms[p.a].push((v, p.throughput[j].0));
            terms[p.b].push((v, p.throughput[j].1));
        }
    }
    for j in 0..types {
        let row = g
            .iter()
            .map(|gi| (gi[j], 1.0))
            .chain(h.iter().filter_map(|hp| hp[j]).map(|v| (v, 1.0)));
        lp.le(row, inst.count[j]);
    }
    for (row, cap) in terms.iter().zip(&inst.cap) {
        if let Some(cap) = *cap {
            lp.le(row.iter().map(|&(v, _)| (v, 1.0)), cap);
        }
    }
    // z is measured in its expected size: the lowest normalised throughput any tenant gets from
    // its equal split (the max-min level is at least that). That is about 1 / (total weight),
    // so with weights in the billions a z measured in units of 1 would be lost in the solver's
    // tolerance. The total, t, is measured in the sum of those.
    let at_share = levels_at_equal_split(inst, total_weight)?;
    let unit = |x: f64| if x.is_finite() && x > 0.0 { x } else { 1.0 };
    let lowest = unit(at_share.iter().copied().fold(f64::INFINITY, f64::min));
    let z = lp.var_scaled(if at_level.is_none() { 1.0 } else { 0.0 }, lowest);
    let mut total: Vec<(Var, f64)> = Vec::new();
    for (i, own) in terms.iter().enumerate() {
        let scale = normalising_scale(inst, i)?;
        let row: Vec<(Var, f64)> = own.iter().map(|&(v, t)| (v, t * scale)).collect();
        total.extend(row.iter().copied());
        match at_level {
            None => {
                let mut row = row;
                row.push((z, -1.0));
                lp.ge(row, 0.0);
            }
            Some(level) => lp.ge(row, level * (1.0 - 1e-9)),
        }
    }
    if at_level.is_some() {
        // t = the total normalised throughput, the second program's objective.
        let t = lp.var_scaled(1.0, unit(at_share.iter().sum()));
        total.push((t, -1.0));
        lp.eq(total, 0.0);
    }
    let sol = lp
        .solve()
        .map_err(|e| PolicyError::Solver(format!("space sharing: {e}")))?;
    Ok(PackedAllocation {
        alone: Allocation {
            gpus: g
                .iter()
                .map(|row| row.iter().map(|&v| sol.value(v).max(0.0)).collect())
                .collect(),
        },
        pairs: h
            .iter()
            .map(|row| {
                row.iter()
                    .map(|v| v.map_or(0.0, |v| sol.value(v).max(0.0)))
                    .collect()
            })
            .collect(),
        level: at_level.unwrap_or_else(|| sol.value(z)),
    })
}

/// Each tenant's variables measured in the GPUs a job holds (or, uncapped, its equal split),
/// so the solver's tolerance is relative to that.
fn variable_sizes(inst: &Instance, total_weight: f64) -> Vec<f64> {
    (0..inst.tenants())
        .map(|i| {
            inst.cap[i].unwrap_or_else(|| {
                inst.equal_split_with(i, total_weight)
                    .iter()
                    .sum::<f64>()
                    .max(f64::MIN_POSITIVE)
            })
        })
        .collect()
}

/// Each tenant's normalised throughput from its equal split (the max-min level is at least
/// the lowest of them).
fn levels_at_equal_split(inst: &Instance, total_weight: f64) -> Result<Vec<f64>, PolicyError> {
    (0..inst.tenants())
        .map(|i| {
            let scale = normalising_scale(inst, i)?;
            Ok(inst
                .equal_split_with(i, total_weight)
                .iter()
                .zip(&inst.throughput[i])
                .map(|(e, t)| e * t * scale)
                .sum::<f64>())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policies::{test_instance, GavelLas, Policy};

    /// One GPU, two single-GPU jobs with the same speed 1. Alone, max-min gives each half the
    /// GPU: normalised throughput 0.5 / prop, prop = 1 (one type: T_i n / n = 1). Sharing, each
    /// runs at 0.6: all the time together gives each 0.6, better than any mix (a mix of t
    /// shared and the rest split gives 0.6 t + (1 - t) / 2 <= 0.6).
    #[test]
    fn sharing_beats_time_slicing_when_each_keeps_more_than_half() {
        let inst = test_instance(
            &[("v100", 1)],
            &[(&[1.0], Some(1.0), None), (&[1.0], Some(1.0), None)],
        );
        let pair = CoLocation {
            a: 0,
            b: 1,
            throughput: vec![(0.6, 0.6)],
        };
        let packed = max_min_packed(&inst, std::slice::from_ref(&pair)).unwrap();
        assert!((packed.level - 0.6).abs() < 1e-9, "{}", packed.level);
        assert!((packed.pairs[0][0] - 1.0).abs() < 1e-9);
        // At 0.4 each, sharing loses to slicing: the optimum is 0.5 with no shared time.
        let slow = CoLocation {
            throughput: vec![(0.4, 0.4)],
            ..pair
        };
        let packed = max_min_packed(&inst, &[slow]).unwrap();
        assert!((packed.level - 0.5).abs() < 1e-9, "{}", packed.level);
        assert!(packed.pairs[0][0] < 1e-9);
    }

    /// Found by `cargo xtask fuzz`: one GPU and weights 1e9, 4.75e6 and 4.07e6. The max-min
    /// level of u_i / w_i is 1 / (sum of the weights), about 1e-9: each holds w_i / sum of the
    /// GPU. Measured in units of 1, that level was within the solver's tolerance of 0 and the
    /// second program found no allocation.
    #[test]
    fn weights_in_the_billions() {
        let weights = [1e9, 4754477.9700925695, 4070935.553946563];
        let mut inst = test_instance(
            &[("t0", 1)],
            &[
                (&[1.0], None, None),
                (&[1.0], None, None),
                (&[1.0], None, None),
            ],
        );
        inst.weight = weights.to_vec();
        let total: f64 = weights.iter().sum();
        let packed = max_min_packed(&inst, &[]).unwrap();
        assert!(
            (packed.level - 1.0 / total).abs() <= 1e-9 / total,
            "{}",
            packed.level
        );
        for (i, w) in weights.iter().enumerate() {
            let got = packed.alone.gpus[i][0];
            // The second program hands the 1e-9 its level rows leave to whom it favours.
            assert!((got - w / total).abs() <= 1e-8, "{i}: {got}");
        }
    }

    /// The two-type case below: V100 x1, K80 x1, two single-GPU jobs and their pair.
    fn two_types_case() -> (Instance, CoLocation) {
        let inst = test_instance(
            &[("v100", 1), ("k80", 1)],
            &[
                (&[4.0, 1.0], Some(1.0), None),
                (&[2.0, 1.0], Some(1.0), None),
            ],
        );
        let pair = CoLocation {
            a: 0,
            b: 1,
            throughput: vec![(3.0, 1.5), (0.5, 0.5)],
        };
        (inst, pair)
    }

    /// Two types, caps binding. V100 x1, K80 x1, single-GPU jobs; a runs 4 on a V100 and 1 on a
    /// K80, b 2 and 1; sharing the V100 they run 3 and 1.5, the K80 0.5 and 0.5.
    /// prop_a = (4 + 1) / 2 = 2.5, prop_b = (2 + 1) / 2 = 1.5.
    ///
    /// Feasible point: the V100 shared t of the time, b alone on it the rest, a alone on the
    /// K80 the rest: a = (3t + 1 - t) / 2.5, b = (1.5t + 2(1 - t)) / 1.5, equal at t = 14/17,
    /// level 18/17. It is optimal: the dual multipliers V100 8/17, K80 0, a's cap 2/17, b's
    /// cap 8/17, a's level row 5/17, b's 12/17 cover every variable's column (a alone on V100
    /// 10/17 >= 8/17, on K80 2/17 >= 2/17; b 16/17 >= 16/17 and 8/17 >= 8/17; shared V100
    /// 18/17 >= 6/17 + 12/17, shared K80 10/17 >= 1/17 + 4/17; z 5/17 + 12/17 = 1) and bound
    /// the level by 8/17 + 2/17 + 8/17 = 18/17. Without sharing the level is 1 (b half on each).
    #[test]
    fn hand_solved_two_types() {
        let (inst, pair) = two_types_case();
        let packed = max_min_packed(&inst, std::slice::from_ref(&pair)).unwrap();
        assert!(
            (packed.level - 18.0 / 17.0).abs() < 1e-9,
            "{}",
            packed.level
        );
        // The answer is feasible: capacities and caps hold.
        let (g, h) = (&packed.alone.gpus, &packed.pairs[0]);
        for j in 0..2 {
            assert!(g[0][j] + g[1][j] + h[j] <= 1.0 + 1e-9);
        }
        for gi in g {
            assert!(gi[0] + gi[1] + h[0] + h[1] <= 1.0 + 1e-9);
        }
        let alone = max_min_packed(&inst, &[]).unwrap();
        assert!((alone.level - 1.0).abs() < 1e-9, "{}", alone.level);
    }

    /// Without pairs the program is gavel-las's: the same level on a scenario where the
    /// optimum is not trivial (three jobs of scale factors 1, 1 and 2 on two types).
    #[test]
    fn without_pairs_it_is_gavel_las() {
        let inst = test_instance(
            &[("v100", 3), ("k80", 4)],
            &[
                (&[3.0, 1.0], Some(1.0), None),
                (&[1.5, 1.0], Some(1.0), None),
                (&[2.0, 0.5], Some(2.0), None),
            ],
        );
        let packed = max_min_packed(&inst, &[]).unwrap();
        let las = GavelLas.allocate(&inst).unwrap();
        assert!(
            (packed.level - las.objective).abs() < 1e-9 * las.objective,
            "{} vs {}",
            packed.level,
            las.objective
        );
    }

    #[test]
    fn refuses_pairs_of_different_scale_factors() {
        let inst = test_instance(
            &[("v100", 4)],
            &[(&[1.0], Some(1.0), None), (&[1.0], Some(2.0), None)],
        );
        let pair = CoLocation {
            a: 0,
            b: 1,
            throughput: vec![(0.6, 0.6)],
        };
        let err = max_min_packed(&inst, &[pair]).unwrap_err().to_string();
        assert!(err.contains("cannot share"), "{err}");
    }

    /// The interior answer on the hand-solved case above: the level 18/17 (to the solver's
    /// 1e-8), and a crumb of time for the pair on the K80, where no optimum puts it: above 0,
    /// as Gavel's ECOS answer is, and far below anything a check would see.
    #[test]
    fn interior_answer_reaches_the_hand_solved_level_and_leaves_crumbs() {
        let (inst, pair) = two_types_case();
        let packed = max_min_packed_interior(&inst, std::slice::from_ref(&pair)).unwrap();
        assert!(
            (packed.level - 18.0 / 17.0).abs() < 1e-6,
            "{}",
            packed.level
        );
        // The unique optimum's shared V100 time is 14/17.
        assert!(
            (packed.pairs[0][0] - 14.0 / 17.0).abs() < 1e-6,
            "{packed:?}"
        );
        let crumb = packed.pairs[0][1];
        assert!(crumb > 0.0 && crumb < 1e-6, "{crumb}");
    }

    /// Two identical jobs that gain by sharing and a third alone: any optimum gives the twins the
    /// same level, and among the optima an interior point lands at the centre, so the twins get
    /// the same time alone to the digits kept.
    #[test]
    fn interior_answer_treats_twins_alike() {
        let inst = test_instance(
            &[("v100", 2)],
            &[
                (&[1.0], Some(1.0), None),
                (&[1.0], Some(1.0), None),
                (&[2.0], Some(1.0), None),
            ],
        );
        let pair = CoLocation {
            a: 0,
            b: 1,
            throughput: vec![(0.7, 0.7)],
        };
        let packed = max_min_packed_interior(&inst, &[pair]).unwrap();
        let g = &packed.alone.gpus;
        assert!(
            (g[0][0] - g[1][0]).abs() <= 1e-7 * g[0][0].max(1e-9),
            "{g:?}"
        );
    }

    /// Random scenarios (2-4 types, 3-7 jobs of caps 1 or 2, every same-cap pair offered with
    /// random co-located throughputs, some 0): the interior answer's level equals the simplex's
    /// to 1e-6, and its allocation meets every row of the program, recomputed here from the
    /// program's statement: capacity, each job's time, each job's normalised throughput at the
    /// level.
    #[test]
    fn interior_level_matches_the_simplex_and_the_answer_is_feasible() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(17);
        for case in 0..40 {
            let types = rng.random_range(2..=4);
            let jobs = rng.random_range(3..=7);
            let names: Vec<String> = (0..types).map(|j| format!("t{j}")).collect();
            let counts: Vec<(&str, u32)> = names
                .iter()
                .map(|n| (n.as_str(), rng.random_range(1..=4)))
                .collect();
            let rates: Vec<Vec<f64>> = (0..jobs)
                .map(|_| (0..types).map(|_| rng.random_range(0.1..5.0)).collect())
                .collect();
            let caps: Vec<f64> = (0..jobs)
                .map(|_| f64::from(rng.random_range(1..=2)))
                .collect();
            let spec: Vec<(&[f64], Option<f64>, Option<f64>)> = rates
                .iter()
                .zip(&caps)
                .map(|(r, &c)| (r.as_slice(), Some(c), None))
                .collect();
            let inst = test_instance(&counts, &spec);
            let mut pairs = Vec::new();
            for a in 0..jobs {
                for b in a + 1..jobs {
                    if caps[a] != caps[b] {
                        continue;
                    }
                    let throughput = (0..types)
                        .map(|j| {
                            if rng.random_bool(0.2) {
                                (0.0, 0.0)
                            } else {
                                (
                                    rates[a][j] * rng.random_range(0.3..0.9),
                                    rates[b][j] * rng.random_range(0.3..0.9),
                                )
                            }
                        })
                        .collect();
                    pairs.push(CoLocation { a, b, throughput });
                }
            }
            let exact = max_min_packed(&inst, &pairs).unwrap();
            let interior = max_min_packed_interior(&inst, &pairs).unwrap();
            assert!(
                (interior.level - exact.level).abs() <= 1e-6 * exact.level,
                "case {case}: {} vs {}",
                interior.level,
                exact.level
            );
            let (g, h) = (&interior.alone.gpus, &interior.pairs);
            let slack = 1e-6;
            for j in 0..types {
                let used: f64 =
                    g.iter().map(|gi| gi[j]).sum::<f64>() + h.iter().map(|hp| hp[j]).sum::<f64>();
                assert!(
                    used <= inst.count[j] * (1.0 + slack),
                    "case {case} type {j}"
                );
            }
            for i in 0..jobs {
                let mut time: f64 = g[i].iter().sum();
                let mut steps: f64 = (0..types).map(|j| inst.throughput[i][j] * g[i][j]).sum();
                for (p, hp) in pairs.iter().zip(h) {
                    for (&(ta, tb), &x) in p.throughput.iter().zip(hp) {
                        if p.a == i {
                            time += x;
                            steps += ta * x;
                        } else if p.b == i {
                            time += x;
                            steps += tb * x;
                        }
                    }
                }
                assert!(
                    time <= caps[i] * (1.0 + slack),
                    "case {case} job {i}: {time}"
                );
                // prop_i = sum_j T_ij n_j / sum_j n_j (Gavel's proportional throughput).
                let total: f64 = inst.count.iter().sum();
                let prop: f64 = (0..types)
                    .map(|j| inst.throughput[i][j] * inst.count[j])
                    .sum::<f64>()
                    / total;
                assert!(
                    steps / prop >= exact.level * (1.0 - slack),
                    "case {case} job {i}: {} below {}",
                    steps / prop,
                    exact.level
                );
            }
        }
    }

    /// Jobs drawn from a few models (a model's rates, cap and co-located rates shared by its
    /// jobs, as in Gavel's traces): the instance, its pairs (every same-cap pair whose models
    /// run together on some type) and each job's model.
    fn jobs_of_models(rng: &mut rand::rngs::StdRng) -> (Instance, Vec<CoLocation>, Vec<usize>) {
        use rand::Rng;
        let crate::policies::ModelJobs {
            inst,
            model,
            rates,
            caps,
        } = crate::policies::jobs_of_models(rng);
        let (models, types, jobs) = (rates.len(), inst.types(), model.len());
        // Model m's share of its rate next to m2 on type j (0 where the two do not run
        // together, the same both ways for a model with itself).
        let mut draw = |p: f64| -> Vec<Vec<Vec<f64>>> {
            (0..models)
                .map(|_| {
                    (0..models)
                        .map(|_| (0..types).map(|_| rng.random_range(p..0.9)).collect())
                        .collect()
                })
                .collect()
        };
        let (share, runs) = (draw(0.3), draw(0.0));
        let together = |m: usize, m2: usize, j: usize| {
            if runs[m.min(m2)][m.max(m2)][j] < 0.18 {
                0.0
            } else {
                share[m][m2][j]
            }
        };
        let mut pairs = Vec::new();
        for a in 0..jobs {
            for b in a + 1..jobs {
                let (ma, mb) = (model[a], model[b]);
                if caps[ma] != caps[mb] || (0..types).all(|j| together(ma, mb, j) == 0.0) {
                    continue;
                }
                let throughput = (0..types)
                    .map(|j| {
                        (
                            rates[ma][j] * together(ma, mb, j),
                            rates[mb][j] * together(mb, ma, j),
                        )
                    })
                    .collect();
                pairs.push(CoLocation { a, b, throughput });
            }
        }
        (inst, pairs, model)
    }

    /// The merged program ends where the per-job program on the same interior point ends (the
    /// reason for merging: one central path), on 30 random scenarios of jobs from a few models:
    /// every job's GPUs alone and every pair's, to 1e-6 GPUs, and the level. Its level is the
    /// simplex's to 1e-6, and its answer meets every row of the per-job program, recomputed
    /// here from the program's statement. Twins hold exactly the same.
    #[test]
    fn merged_program_ends_where_the_per_job_program_does() {
        use rand::SeedableRng;
        let mut rng = rand::rngs::StdRng::seed_from_u64(29);
        let mut merged_some = 0;
        for case in 0..30 {
            let (inst, pairs, model) = jobs_of_models(&mut rng);
            let cap = checked_caps(&inst, &pairs).unwrap();
            let twins = Twins::of(&inst, &pairs);
            merged_some += usize::from(twins.size.len() < inst.tenants());
            let merged = merged_program(&inst, &cap, &twins).unwrap();
            let per_job = merged_program(&inst, &cap, &Twins::none(&inst, &pairs)).unwrap();
            let exact = max_min_packed(&inst, &pairs).unwrap();
            let near = |a: f64, b: f64| (a - b).abs() <= 1e-6;
            assert!(near(merged.level, per_job.level), "case {case}");
            assert!(
                (merged.level - exact.level).abs() <= 1e-6 * exact.level,
                "case {case}: {} vs {}",
                merged.level,
                exact.level
            );
            for (i, (g, h)) in merged
                .alone
                .gpus
                .iter()
                .zip(&per_job.alone.gpus)
                .enumerate()
            {
                for (a, b) in g.iter().zip(h) {
                    assert!(near(*a, *b), "case {case} job {i}: {g:?} vs {h:?}");
                }
            }
            for (p, (g, h)) in merged.pairs.iter().zip(&per_job.pairs).enumerate() {
                for (a, b) in g.iter().zip(h) {
                    assert!(near(*a, *b), "case {case} pair {p}: {g:?} vs {h:?}");
                }
            }
            for a in 0..model.len() {
                for b in 0..model.len() {
                    if model[a] == model[b] {
                        assert_eq!(merged.alone.gpus[a], merged.alone.gpus[b], "case {case}");
                    }
                }
            }
            // Rows of the per-job program, from its statement.
            let (g, h) = (&merged.alone.gpus, &merged.pairs);
            let slack = 1e-6;
            let total: f64 = inst.count.iter().sum();
            for j in 0..inst.types() {
                let used: f64 =
                    g.iter().map(|gi| gi[j]).sum::<f64>() + h.iter().map(|hp| hp[j]).sum::<f64>();
                assert!(used <= inst.count[j] + slack, "case {case} type {j}");
            }
            for i in 0..inst.tenants() {
                let mut time: f64 = g[i].iter().sum();
                let mut steps: f64 = (0..inst.types())
                    .map(|j| inst.throughput[i][j] * g[i][j])
                    .sum();
                for (p, hp) in pairs.iter().zip(h) {
                    for (&(ta, tb), &x) in p.throughput.iter().zip(hp) {
                        if p.a == i || p.b == i {
                            time += x;
                            steps += if p.a == i { ta } else { tb } * x;
                        }
                    }
                }
                assert!(time <= cap[i] + slack, "case {case} job {i}: {time}");
                let prop: f64 = (0..inst.types())
                    .map(|j| inst.throughput[i][j] * inst.count[j])
                    .sum::<f64>()
                    / total;
                assert!(
                    steps / prop >= exact.level * (1.0 - slack),
                    "case {case} job {i}"
                );
            }
        }
        assert!(merged_some >= 25, "{merged_some} of 30 cases had twins");
    }
}
