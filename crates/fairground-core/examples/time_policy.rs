//! Times one solve of a policy on a random scenario, for sizes too slow for criterion's repeated
//! samples. `cargo run --release -p fairground-core --example time_policy -- POLICY TENANTS TYPES [jobs]`
//! (`oef-coop-full` builds the whole EF block instead of adding rows lazily).

use fairground_core::policies::{self, EfRows, OefCoop};
use fairground_core::presets::random_scenario;
use fairground_core::Policy;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(name), Some(n), Some(k)) = (
        args.first(),
        args.get(1).and_then(|a| a.parse().ok()),
        args.get(2).and_then(|a| a.parse().ok()),
    ) else {
        eprintln!("usage: time_policy POLICY TENANTS TYPES [jobs]");
        std::process::exit(2);
    };
    let jobs = args.get(3).is_some_and(|a| a == "jobs");
    let full = OefCoop {
        ef_rows: EfRows::Full,
    };
    let policy: &dyn Policy = if name == "oef-coop-full" {
        &full
    } else {
        match policies::by_name(name) {
            Some(p) => p,
            None => {
                eprintln!("unknown policy {name}");
                std::process::exit(2);
            }
        }
    };
    let inst = random_scenario(n, k, 1, jobs)
        .instance()
        .expect("random scenarios are valid");
    let start = Instant::now();
    let result = policy.solve(&inst);
    let seconds = start.elapsed().as_secs_f64();
    match result {
        Ok(sol) => println!(
            "{name} {n}x{k}{}: {seconds:.4} s, objective {:.6}",
            if jobs { " jobs" } else { "" },
            sol.objective
        ),
        Err(e) => println!("{name} {n}x{k}: failed after {seconds:.4} s: {e}"),
    }
}
