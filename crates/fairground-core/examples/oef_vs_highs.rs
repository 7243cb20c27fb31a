//! oef-coop against HiGHS on the same instances, in one run (BENCHMARKS.md): for each size, the
//! random scenario of the benchmarks (seed 1, 8 types) is solved by our engine and handed to
//! `benches/oef_highs.py` (HiGHS through highspy), full model and lazily added rows.
//!
//! `cargo xtask bench-oef [TENANTS...]` installs highspy in a scratch environment and runs this;
//! by hand: `cargo run --release -p fairground-core --example oef_vs_highs -- PYTHON TENANTS...`
//! (the full model is run up to 200 tenants: 500 would build 249,500 rows).

use fairground_core::policies::{self, most_efficient, EfRows, Relaxation};
use fairground_core::presets::random_scenario;
use fairground_core::Instance;
use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

const TYPES: usize = 8;
const FULL_MODEL_UP_TO: usize = 200;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((python, sizes)) = args.split_first() else {
        eprintln!("usage: oef_vs_highs PYTHON TENANTS...");
        std::process::exit(2);
    };
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/oef_highs.py");
    println!("| tenants x types | ours as shipped | ours, lazy rows | HiGHS full model | HiGHS lazy (batch per tenant) | shipped / best HiGHS | objectives agree to |");
    println!("|---|---|---|---|---|---|---|");
    for size in sizes {
        let Ok(n) = size.parse::<usize>() else {
            eprintln!("not a number of tenants: {size}");
            std::process::exit(2);
        };
        let inst = random_scenario(n, TYPES, 1, false)
            .instance()
            .expect("random scenarios are valid");
        // As shipped: the policy (natively with kept-basis, over groups from 151 tenants).
        let start = Instant::now();
        let shipped = match policies::by_name("oef-coop").map(|p| p.solve(&inst)) {
            Some(Ok(sol)) => sol,
            other => {
                let why = other.map_or("not registered".into(), |r| {
                    r.err().map(|e| e.to_string()).unwrap_or_default()
                });
                println!("| {n} x {TYPES} | failed: {why} | | | | | |");
                continue;
            }
        };
        let ours_s = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let ours = match most_efficient(&inst, Relaxation::NONE, EfRows::Lazy) {
            Ok(sol) => sol,
            Err(e) => {
                println!("| {n} x {TYPES} | {ours_s:.3} s | failed: {e} | | | | |");
                continue;
            }
        };
        let lazy_s = start.elapsed().as_secs_f64();
        let full = (n <= FULL_MODEL_UP_TO).then(|| highs(python, script, &inst, "full"));
        let lazy = highs(python, script, &inst, "lazy");
        let mut agree = ((shipped.objective - ours.objective) / ours.objective).abs();
        let mut best = f64::INFINITY;
        let mut cell = |r: &Result<(f64, f64), String>| match r {
            Ok((seconds, objective)) => {
                agree = agree.max((objective - ours.objective).abs() / ours.objective);
                best = best.min(*seconds);
                format!("{seconds:.3} s")
            }
            Err(e) => e.clone(),
        };
        let full_cell = full.as_ref().map_or("not run".to_string(), &mut cell);
        let lazy_cell = cell(&lazy);
        let ratio = if best.is_finite() {
            format!("{:.2}x", ours_s / best)
        } else {
            "n/a".into()
        };
        println!(
            "| {n} x {TYPES} | {ours_s:.3} s | {lazy_s:.3} s | {full_cell} | {lazy_cell} | {ratio} | {agree:.1e} |"
        );
    }
}

/// Runs the HiGHS script on `inst`; (seconds, objective).
fn highs(python: &str, script: &str, inst: &Instance, mode: &str) -> Result<(f64, f64), String> {
    assert!(
        inst.cap.iter().all(Option::is_none),
        "the HiGHS script handles uncapped tenants only"
    );
    let input = json!({
        "speedup": inst.speedup,
        "count": inst.count,
        "weight": inst.weight,
        "mode": mode,
    });
    let mut child = Command::new(python)
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not run {python}: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(input.to_string().as_bytes())
            .map_err(|e| format!("could not write to the HiGHS script: {e}"))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("the HiGHS script failed: {e}"))?;
    // HiGHS prints a banner when it starts; the answer is the last line.
    let stdout = String::from_utf8_lossy(&out.stdout);
    let answer: Value = serde_json::from_str(stdout.lines().last().unwrap_or(""))
        .map_err(|e| format!("the HiGHS script's answer is not JSON: {e}"))?;
    match (answer["seconds"].as_f64(), answer["objective"].as_f64()) {
        (Some(s), Some(o)) => Ok((s, o)),
        _ => Err(format!("HiGHS: {}", answer["error"])),
    }
}
