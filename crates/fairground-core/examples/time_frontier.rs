//! Times one price-of-fairness frontier on a random scenario (BENCHMARKS.md):
//! `cargo run --release -p fairground-core --example time_frontier -- TENANTS TYPES STEP`.

use fairground_core::frontier;
use fairground_core::presets::random_scenario;
use std::time::Instant;

fn main() {
    let args: Vec<f64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let [n, k, step] = args[..] else {
        eprintln!("usage: time_frontier TENANTS TYPES STEP");
        std::process::exit(2);
    };
    let inst = random_scenario(n as usize, k as usize, 1, false)
        .instance()
        .expect("random scenarios are valid");
    let start = Instant::now();
    match frontier::frontier(&inst, step) {
        Ok(f) => println!(
            "{n} x {k}, step {step}: {:.2} s ({} points per curve, {} policies placed)",
            start.elapsed().as_secs_f64(),
            f.eps.len(),
            f.policies.len()
        ),
        Err(e) => println!("failed: {e}"),
    }
}
