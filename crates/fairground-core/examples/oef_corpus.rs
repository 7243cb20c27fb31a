//! oef-coop's static solve on a corpus of scenario families (issue 77), against the lazy program
//! on the same scenarios in turns: `cargo xtask bench-oef --corpus` runs this (BENCHMARKS.md has
//! the command and the table). By hand:
//!
//! ```text
//! cargo run --release -p fairground-core --features kept-basis --example oef_corpus -- OUT \
//!     [--families uniform,sorted,...] [--tenants 150,300,500,1000] [--types 2,4,8,12] \
//!     [--seeds 5] [--no-lazy]
//! ```
//!
//! For each scenario: oef-coop as shipped (the grouped path, handing over to the lazy program
//! when its work budget is spent) and the lazy program alone (`most_efficient`, every row added
//! as it is broken: what oef-coop ran before the grouped path), one after the other, the order
//! alternating by seed. Each answer is checked: its efficiency against the lazy program's (1e-9
//! relative), and capacity, sharing incentive and envy-freeness written out here from their
//! definitions. Prints per-family and per-cell tables (median, p90, worst) and writes OUT/runs.csv
//! and the slowest scenario as OUT/worst.json.

use fairground_core::policies::{self, most_efficient, static_path, EfRows, Relaxation};
use fairground_core::presets::corpus::Family;
use fairground_core::{Allocation, Instance};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

struct Args {
    out: PathBuf,
    families: Vec<Family>,
    tenants: Vec<usize>,
    types: Vec<usize>,
    seeds: u64,
    lazy: bool,
}

fn parse() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let out = PathBuf::from(it.next().ok_or("usage: oef_corpus OUT [options]")?);
    let mut args = Args {
        out,
        families: Family::ALL.to_vec(),
        tenants: vec![150, 300, 500, 1000],
        types: vec![2, 4, 8, 12],
        seeds: 5,
        lazy: true,
    };
    let numbers = |v: Option<String>, what: &str| -> Result<Vec<usize>, String> {
        let v = v.ok_or(format!("{what} needs a value"))?;
        v.split(',')
            .map(|x| x.parse().map_err(|_| format!("{what}: not a number '{x}'")))
            .collect()
    };
    while let Some(flag) = it.next() {
        match flag.as_str() {
            "--families" => {
                let v = it.next().ok_or("--families needs a value")?;
                args.families = v
                    .split(',')
                    .map(|f| Family::by_name(f).ok_or(format!("no family '{f}'")))
                    .collect::<Result<_, _>>()?;
            }
            "--tenants" => args.tenants = numbers(it.next(), "--tenants")?,
            "--types" => args.types = numbers(it.next(), "--types")?,
            "--seeds" => args.seeds = numbers(it.next(), "--seeds")?[0] as u64,
            "--no-lazy" => args.lazy = false,
            other => return Err(format!("unknown option '{other}'")),
        }
    }
    Ok(args)
}

/// One scenario's run.
struct Run {
    family: Family,
    n: usize,
    k: usize,
    seed: u64,
    shipped: f64,
    lazy: Option<f64>,
    proved: bool,
    spent: usize,
    budget: usize,
    /// The grouped path alone, timed apart (no hand-over).
    path_s: f64,
    /// |efficiency - the lazy program's| / the lazy program's.
    agree: Option<f64>,
}

fn main() {
    let args = parse().unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    std::fs::create_dir_all(&args.out).expect("OUT can be made");
    let oef = policies::by_name("oef-coop").expect("registered");
    let mut runs: Vec<Run> = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    let mut csv = String::from(
        "family,tenants,types,seed,shipped_s,lazy_s,ratio,proved,work_spent,work_budget,grouped_path_s,efficiency_agree\n",
    );
    for &family in &args.families {
        for &n in &args.tenants {
            for &k in &args.types {
                for seed in 0..args.seeds {
                    let scenario = family.scenario(n, k, seed);
                    let inst = scenario.instance().expect("corpus scenarios are valid");
                    let what = format!("{} {n} x {k} seed {seed}", family.name());
                    let time_shipped = || {
                        let t = Instant::now();
                        let sol = oef.solve(&inst);
                        (t.elapsed().as_secs_f64(), sol)
                    };
                    let time_lazy = || {
                        let t = Instant::now();
                        let sol = most_efficient(&inst, Relaxation::NONE, EfRows::Lazy);
                        (t.elapsed().as_secs_f64(), sol)
                    };
                    let ((shipped_s, shipped), lazy) = if !args.lazy {
                        (time_shipped(), None)
                    } else if seed % 2 == 0 {
                        let a = time_shipped();
                        (a, Some(time_lazy()))
                    } else {
                        let b = time_lazy();
                        (time_shipped(), Some(b))
                    };
                    let shipped = match shipped {
                        Ok(sol) => sol,
                        Err(e) => {
                            failures.push(format!("{what}: oef-coop failed: {e}"));
                            continue;
                        }
                    };
                    if let Err(e) = check(&inst, &shipped.allocation) {
                        failures.push(format!("{what}: {e}"));
                    }
                    let (lazy_s, agree) = match lazy {
                        Some((s, Ok(l))) => {
                            let ours = shipped.allocation.efficiency(&inst);
                            let gap = (ours - l.objective).abs() / l.objective.abs().max(1e-300);
                            if gap > 1e-9 {
                                failures.push(format!(
                                    "{what}: efficiency {ours} against the lazy program's {}",
                                    l.objective
                                ));
                            }
                            (Some(s), Some(gap))
                        }
                        Some((_, Err(e))) => {
                            failures.push(format!("{what}: the lazy program failed: {e}"));
                            (None, None)
                        }
                        None => (None, None),
                    };
                    let t = Instant::now();
                    let path = static_path(&inst).expect("no deadline here");
                    let path_s = t.elapsed().as_secs_f64();
                    let run = Run {
                        family,
                        n,
                        k,
                        seed,
                        shipped: shipped_s,
                        lazy: lazy_s,
                        proved: path.proved,
                        spent: path.spent,
                        budget: path.budget,
                        path_s,
                        agree,
                    };
                    let _ = writeln!(
                        csv,
                        "{},{n},{k},{seed},{:.4},{},{},{},{},{},{:.4},{}",
                        family.name(),
                        run.shipped,
                        run.lazy.map_or(String::new(), |l| format!("{l:.4}")),
                        run.lazy
                            .map_or(String::new(), |l| format!("{:.3}", run.shipped / l)),
                        run.proved,
                        run.spent,
                        run.budget,
                        run.path_s,
                        run.agree.map_or(String::new(), |a| format!("{a:.1e}")),
                    );
                    eprintln!(
                        "{what}: {:.3} s{} ({}, work {} of {})",
                        run.shipped,
                        run.lazy
                            .map_or(String::new(), |l| format!(", lazy {l:.3} s")),
                        if run.proved { "proved" } else { "lazy" },
                        run.spent,
                        run.budget
                    );
                    let worst = runs.iter().all(|r| r.shipped < run.shipped);
                    if worst {
                        std::fs::write(args.out.join("worst.json"), scenario.to_json())
                            .expect("OUT is writable");
                    }
                    runs.push(run);
                    std::fs::write(args.out.join("runs.csv"), &csv).expect("OUT is writable");
                }
            }
        }
    }
    print!("{}", report(&runs));
    if !failures.is_empty() {
        eprintln!("\n{} answers failed their checks:", failures.len());
        failures.iter().for_each(|f| eprintln!("  {f}"));
        std::process::exit(1);
    }
}

/// The answer's capacity, sharing incentive and envy-freeness, from the definitions (not the
/// engine's checker): no type used past its count; u_i(g_i) >= u_i(e_i) with e_i the weighted
/// equal split (w_i / W of every type; capped tenants: the engine's capped split, documented in
/// fairness.rs); u_i(g_i)/w_i >= u_i(g_k)/w_k for every pair, and for a capped i only towards
/// k whose largest bundle at i's weight fits i's cap.
fn check(inst: &Instance, g: &Allocation) -> Result<(), String> {
    let (n, k) = (inst.tenants(), inst.types());
    let u = |i: usize, b: &[f64]| -> f64 { (0..k).map(|j| inst.speedup[i][j] * b[j]).sum() };
    for j in 0..k {
        let used: f64 = g.gpus.iter().map(|b| b[j]).sum();
        if used > inst.count[j] * (1.0 + 1e-9) {
            return Err(format!("type {j}: {used} of {} used", inst.count[j]));
        }
    }
    let total_weight: f64 = inst.weight.iter().sum();
    let cluster: f64 = inst.count.iter().sum();
    for i in 0..n {
        let split: Vec<f64> = match inst.cap[i] {
            None => inst
                .count
                .iter()
                .map(|c| c * inst.weight[i] / total_weight)
                .collect(),
            Some(_) => inst.equal_split(i),
        };
        let own = u(i, &g.gpus[i]);
        if own < u(i, &split) * (1.0 - 1e-6) {
            return Err(format!("tenant {i} below its equal split"));
        }
        if let Some(cap) = inst.cap[i] {
            let held: f64 = g.gpus[i].iter().sum();
            if held > cap * (1.0 + 1e-9) {
                return Err(format!("tenant {i} holds {held} over its cap {cap}"));
            }
        }
        for other in (0..n).filter(|&o| o != i) {
            if let Some(cap) = inst.cap[i].filter(|&c| c < cluster) {
                let most = inst.cap[other].map_or(cluster, |c| c.min(cluster));
                if inst.weight[i] / inst.weight[other] * most > cap * (1.0 + 1e-12) {
                    continue;
                }
            }
            let mine = own / inst.weight[i];
            let theirs = u(i, &g.gpus[other]) / inst.weight[other];
            if theirs > mine * (1.0 + 1e-6) {
                return Err(format!("tenant {i} envies {other}"));
            }
        }
    }
    Ok(())
}

/// The value at quantile q (nearest rank) of sorted xs.
fn quantile(xs: &[f64], q: f64) -> f64 {
    let rank = ((q * xs.len() as f64).ceil() as usize).clamp(1, xs.len());
    xs[rank - 1]
}

fn sorted(mut xs: Vec<f64>) -> Vec<f64> {
    xs.sort_by(f64::total_cmp);
    xs
}

fn report(runs: &[Run]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n| family | scenarios | proved by groups | shipped: median / p90 / worst (s) | worst at | lazy: median / worst (s) | shipped / lazy: median / worst |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|");
    let mut families: Vec<Family> = Vec::new();
    for r in runs {
        if !families.contains(&r.family) {
            families.push(r.family);
        }
    }
    let row = |out: &mut String, name: &str, rs: &[&Run]| {
        let shipped = sorted(rs.iter().map(|r| r.shipped).collect());
        let lazy = sorted(rs.iter().filter_map(|r| r.lazy).collect());
        let ratios = sorted(
            rs.iter()
                .filter_map(|r| r.lazy.map(|l| r.shipped / l))
                .collect(),
        );
        let worst = rs
            .iter()
            .max_by(|a, b| a.shipped.total_cmp(&b.shipped))
            .expect("a run");
        let lazy_part = if lazy.is_empty() {
            "-".to_string()
        } else {
            format!("{:.3} / {:.3}", quantile(&lazy, 0.5), lazy[lazy.len() - 1])
        };
        let ratio_part = if ratios.is_empty() {
            "-".to_string()
        } else {
            format!(
                "{:.2}x / {:.2}x",
                quantile(&ratios, 0.5),
                ratios[ratios.len() - 1]
            )
        };
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {:.3} / {:.3} / {:.3} | {} x {} seed {} | {lazy_part} | {ratio_part} |",
            rs.len(),
            rs.iter().filter(|r| r.proved).count(),
            quantile(&shipped, 0.5),
            quantile(&shipped, 0.9),
            shipped[shipped.len() - 1],
            worst.n,
            worst.k,
            worst.seed,
        );
    };
    for &f in &families {
        let rs: Vec<&Run> = runs.iter().filter(|r| r.family == f).collect();
        row(&mut out, f.name(), &rs);
    }
    let all: Vec<&Run> = runs.iter().collect();
    if !all.is_empty() {
        row(&mut out, "**all**", &all);
    }
    // Cells: worst against the median, and the worst per size over every family.
    let mut cells: BTreeMap<(usize, usize, &str), Vec<f64>> = BTreeMap::new();
    for r in runs {
        cells
            .entry((r.n, r.k, r.family.name()))
            .or_default()
            .push(r.shipped);
    }
    let _ = writeln!(
        out,
        "\n| tenants x types | worst over the families (s) | its family | cells with median > 0.1 s | worst / median in them |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|");
    let mut sizes: BTreeMap<(usize, usize), (f64, &str, usize, f64)> = BTreeMap::new();
    for (&(n, k, family), times) in &cells {
        let times = sorted(times.clone());
        let median = quantile(&times, 0.5);
        let worst = times[times.len() - 1];
        let e = sizes.entry((n, k)).or_insert((0.0, family, 0, 0.0));
        if worst > e.0 {
            e.0 = worst;
            e.1 = family;
        }
        if median > 0.1 {
            e.2 += 1;
            e.3 = e.3.max(worst / median);
        }
    }
    for ((n, k), (worst, family, slow_cells, spread)) in sizes {
        let spread = if slow_cells > 0 {
            format!("{spread:.2}x")
        } else {
            "-".into()
        };
        let _ = writeln!(
            out,
            "| {n} x {k} | {worst:.3} | {family} | {slow_cells} | {spread} |"
        );
    }
    out
}
