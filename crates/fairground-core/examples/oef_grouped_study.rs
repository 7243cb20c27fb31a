//! A study for issue 67's static goal, not a solver: how fast oef-coop's *grouped* program and
//! its certificate are when the groups are right. It solves the benchmarks' random scenario
//! (seed 1) with oef-coop as shipped, groups the tenants holding equal bundles per unit of
//! weight, then times
//!
//! 1. the grouped program, one bundle y_m per group (the kept simplex, each envious tenant's
//!    most violated row added per round):
//!
//!    ```text
//!    maximise   sum_m (sum_{i in G_m} w_i s_i) . y_m
//!    subject to sum_m W_m y_m <= n                     capacity, duals p
//!               s_i . y_{m(i)} >= s_i . y_h   h != m(i)  i does not envy group h, duals mu_ih
//!    ```
//!
//! 2. each group's certificate: the grouped duals split back over its members, which proves
//!    the grouped optimum optimal for the full program (N(N-1) envy rows). For group H, find
//!    lambda_ki >= 0 (k's row towards i, both in H) and a split beta_tk >= 0 of each outside
//!    sender's mu_tH (sum_k beta_tk = mu_tH) with, for every member k and type j,
//!
//!    ```text
//!    w_k p_j - (w_k + M_k + sum_i lambda_ki) s_kj + sum_i lambda_ik s_ij + sum_t beta_tk s_tj >= 0
//!    ```
//!
//!    with equality where the group holds type j (M_k = k's own mu towards other groups).
//!    Summed over the members this is the grouped program's dual row for y_H, so the split
//!    exists when the grouping is optimal; with it, (p, lambda) is dual feasible for the full
//!    program and n . p, the grouped optimum, bounds it. Each is solved by microlp as a phase-one
//!    program (minimise the artificials' sum: 0 means certified).
//!
//! Sharing incentive is left out of both: the full program without it is a relaxation, and the
//! grouped optimum meets it (a full allocation without envy does). The engine's solve over
//! groups (`policies/oef_grouped.rs`) finds the groups itself and asks each group the Farkas
//! alternative of this split (can its members move apart to gain?); this study measures the
//! split itself, with the groups known.
//!
//! `cargo run --release -p fairground-core --features kept-basis --example oef_grouped_study -- TENANTS`

use fairground_core::lp::Lp;
use fairground_core::policies;
use fairground_core::presets::random_scenario;
use fairground_core::simplex::Simplex;
use fairground_core::Instance;
use std::time::Instant;

/// The grouped program's optimum and duals.
struct Grouped {
    /// Per group, its bundle per unit of weight.
    y: Vec<Vec<f64>>,
    /// Capacity duals (prices), as a maximisation's: >= 0.
    p: Vec<f64>,
    /// The envy rows in the program, (tenant, group), and their duals (>= 0).
    rows: Vec<(usize, usize)>,
    mu: Vec<f64>,
    objective: f64,
}

fn main() {
    let Some(n) = std::env::args()
        .nth(1)
        .and_then(|a| a.parse::<usize>().ok())
    else {
        eprintln!("usage: oef_grouped_study TENANTS");
        std::process::exit(2);
    };
    let inst = random_scenario(n, 8, 1, false)
        .instance()
        .expect("random scenarios are valid");
    let start = Instant::now();
    let full = policies::by_name("oef-coop")
        .expect("oef-coop is registered")
        .solve(&inst)
        .expect("oef-coop solves random scenarios");
    println!(
        "{n} x 8: oef-coop as shipped {:.3} s, efficiency {:.12}",
        start.elapsed().as_secs_f64(),
        full.objective
    );
    let bundles: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            let w = inst.weight[i];
            full.allocation.gpus[i].iter().map(|g| g / w).collect()
        })
        .collect();
    let groups = equal_bundles(&bundles);
    let mut sizes: Vec<usize> = groups.iter().map(Vec::len).collect();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    println!(
        "{} groups, the largest {:?}",
        groups.len(),
        &sizes[..sizes.len().min(8)]
    );

    study(&inst, &groups, "the optimum's groups");
    // The check can fail: with two groups made one, the grouped optimum is lower and some
    // group's duals no longer split.
    let mut merged = groups.clone();
    if merged.len() > 2 {
        let second = merged.remove(1);
        merged[0].extend(second);
        study(&inst, &merged, "the first two groups merged");
    }
}

/// Times the grouped program and its certificates for `groups`, and prints what they found.
fn study(inst: &Instance, groups: &[Vec<usize>], what: &str) {
    println!("with {what}:");
    let start = Instant::now();
    let grouped = solve_grouped(inst, groups);
    let bound: f64 = grouped.p.iter().zip(&inst.count).map(|(p, n)| p * n).sum();
    println!(
        "  grouped program {:.3} s: efficiency {:.12} (n . p {bound:.12}), {} envy rows",
        start.elapsed().as_secs_f64(),
        grouped.objective,
        grouped.rows.len()
    );
    let start = Instant::now();
    let residuals = certificates(inst, groups, &grouped);
    let failed = residuals.iter().filter(|&&r| r > 1e-9).count();
    let worst = residuals.iter().fold(0.0f64, |a, &b| a.max(b));
    println!(
        "  certificates {:.3} s: {failed} of {} groups not certified, largest residual {worst:e}",
        start.elapsed().as_secs_f64(),
        groups.len()
    );
}

/// Tenants whose bundles per unit of weight agree to 1e-7 (relative), in first-seen order.
fn equal_bundles(bundles: &[Vec<f64>]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, x) in bundles.iter().enumerate() {
        let same = |g: &Vec<usize>| {
            bundles[g[0]]
                .iter()
                .zip(x)
                .all(|(a, b)| (a - b).abs() <= 1e-7 * (1.0 + a.abs().max(b.abs())))
        };
        match groups.iter_mut().find(|g| same(g)) {
            Some(g) => g.push(i),
            None => groups.push(vec![i]),
        }
    }
    groups
}

/// The grouped program (module docs), its envy rows added per round: each envious tenant's
/// most violated one, relative to the larger side, above 1e-9.
fn solve_grouped(inst: &Instance, groups: &[Vec<usize>]) -> Grouped {
    let (n, types, m) = (inst.tenants(), inst.types(), groups.len());
    let (w, s) = (&inst.weight, &inst.speedup);
    let mut group_of = vec![0; n];
    for (g, members) in groups.iter().enumerate() {
        members.iter().for_each(|&i| group_of[i] = g);
    }
    let var = |g: usize, j: usize| g * types + j;
    // The simplex minimises: costs are minus the efficiency's.
    let mut cost = vec![0.0; m * types];
    let mut weight = vec![0.0; m];
    for i in 0..n {
        weight[group_of[i]] += w[i];
        for j in 0..types {
            cost[var(group_of[i], j)] -= w[i] * s[i][j];
        }
    }
    let capacity: Vec<_> = (0..types)
        .map(|j| {
            let terms = (0..m).map(|g| (var(g, j), weight[g])).collect();
            (terms, f64::NEG_INFINITY, inst.count[j])
        })
        .collect();
    let mut lp = Simplex::new(&cost, &vec![(0.0, f64::INFINITY); m * types], &capacity);
    let mut rows = Vec::new();
    let mut added = vec![vec![false; m]; n];
    loop {
        lp.solve(1_000_000).expect("the grouped program solves");
        let value =
            |i: usize, g: usize| -> f64 { (0..types).map(|j| s[i][j] * lp.value(var(g, j))).sum() };
        let mut new = Vec::new();
        for i in 0..n {
            let own = value(i, group_of[i]);
            let worst = (0..m)
                .filter(|&h| h != group_of[i] && !added[i][h])
                .map(|h| {
                    let theirs = value(i, h);
                    (
                        h,
                        (theirs - own) / own.abs().max(theirs.abs()).max(f64::MIN_POSITIVE),
                    )
                })
                .filter(|&(_, r)| r > 1e-9)
                .max_by(|a, b| a.1.total_cmp(&b.1));
            new.extend(worst.map(|(h, _)| (i, h)));
        }
        if new.is_empty() {
            break;
        }
        for (i, h) in new {
            added[i][h] = true;
            let mut terms: Vec<(usize, f64)> =
                (0..types).map(|j| (var(group_of[i], j), s[i][j])).collect();
            terms.extend((0..types).map(|j| (var(h, j), -s[i][j])));
            lp.add_row(&terms, 0.0, f64::INFINITY);
            rows.push((i, h));
        }
    }
    let duals = lp.row_duals();
    Grouped {
        y: (0..m)
            .map(|g| (0..types).map(|j| lp.value(var(g, j))).collect())
            .collect(),
        p: duals[..types].iter().map(|y| -y).collect(),
        mu: duals[types..].to_vec(),
        rows,
        objective: -lp.objective(),
    }
}

/// Each group's certificate residual (module docs): 0 when the grouped duals split over its
/// members.
fn certificates(inst: &Instance, groups: &[Vec<usize>], grouped: &Grouped) -> Vec<f64> {
    let types = inst.types();
    let (w, s, p) = (&inst.weight, &inst.speedup, &grouped.p);
    let mut outgoing = vec![0.0; inst.tenants()];
    let mut senders: Vec<Vec<(usize, f64)>> = vec![Vec::new(); groups.len()];
    for (&(i, h), &mu) in grouped.rows.iter().zip(&grouped.mu) {
        if mu > 1e-12 {
            outgoing[i] += mu;
            senders[h].push((i, mu));
        }
    }
    groups
        .iter()
        .zip(&senders)
        .zip(&grouped.y)
        .map(|((members, senders), held)| {
            let l = members.len();
            let mut lp = Lp::minimize();
            // terms[a * types + j]: member a's row for type j; then one row per sender.
            let mut terms = vec![Vec::new(); l * types + senders.len()];
            for (a, &k) in members.iter().enumerate() {
                for b in (0..l).filter(|&b| b != a) {
                    // lambda_ki, i = members[b]: k gains along s_k, i gives along s_k.
                    let v = lp.var(0.0);
                    for j in 0..types {
                        terms[a * types + j].push((v, -s[k][j]));
                        terms[b * types + j].push((v, s[k][j]));
                    }
                }
            }
            for (t, &(sender, _)) in senders.iter().enumerate() {
                for b in 0..l {
                    let v = lp.var(0.0);
                    for j in 0..types {
                        terms[b * types + j].push((v, s[sender][j]));
                    }
                    terms[l * types + t].push((v, 1.0));
                }
            }
            for (a, &k) in members.iter().enumerate() {
                for j in 0..types {
                    let rhs = (w[k] + outgoing[k]) * s[k][j] - w[k] * p[j];
                    let scale = 1.0 + rhs.abs();
                    let mut row = std::mem::take(&mut terms[a * types + j]);
                    row.push((lp.var(1.0 / scale), 1.0));
                    if held[j] > 1e-12 {
                        row.push((lp.var(1.0 / scale), -1.0));
                        lp.eq(row, rhs);
                    } else {
                        lp.ge(row, rhs);
                    }
                }
            }
            for (t, &(_, mu)) in senders.iter().enumerate() {
                let mut row = std::mem::take(&mut terms[l * types + t]);
                row.push((lp.var(1.0 / mu), 1.0));
                row.push((lp.var(1.0 / mu), -1.0));
                lp.eq(row, mu);
            }
            lp.solve().map_or(f64::INFINITY, |sol| sol.objective())
        })
        .collect()
}
