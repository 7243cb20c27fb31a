//! `fairground`: the engine on the command line, for researchers and scripts.

use clap::{Parser, Subcommand};
use fairground_core::{policies, Instance, Scenario, Solution};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "fairground",
    version,
    about = "Fair, efficient GPU allocation: solve scenarios from the command line"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Solve one scenario with one policy.
    Solve {
        /// Scenario JSON file (schema in the README); `-` reads standard input.
        scenario: PathBuf,
        /// Policy name (`fairground policies` lists them).
        #[arg(long, default_value = "equal-share")]
        policy: String,
        /// Print one JSON object instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// List the policies.
    Policies,
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("fairground: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Policies => {
            for p in policies::all() {
                println!("{:<24} {}", p.name(), p.summary());
            }
            Ok(())
        }
        Command::Solve {
            scenario,
            policy,
            json,
        } => {
            let inst = load(&scenario)?;
            let policy = policies::by_name(&policy).ok_or_else(|| {
                let names: Vec<&str> = policies::all().iter().map(|p| p.name()).collect();
                format!("unknown policy '{policy}' (policies: {})", names.join(", "))
            })?;
            let solution = policy
                .solve(&inst)
                .map_err(|e| format!("{}: {e}", policy.name()))?;
            if json {
                println!("{}", solution_json(policy.name(), &inst, &solution));
            } else {
                print_table(policy.name(), &inst, &solution);
            }
            Ok(())
        }
    }
}

fn load(path: &PathBuf) -> Result<Instance, String> {
    let text = if path.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin()).map_err(|e| format!("standard input: {e}"))?
    } else {
        std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?
    };
    let scenario = Scenario::from_json(&text).map_err(|p| format!("{}: {p}", path.display()))?;
    scenario.instance().map_err(|problems| {
        let lines: Vec<String> = problems
            .iter()
            .map(|p| format!("  {}: {p}", path.display()))
            .collect();
        format!(
            "the scenario has {} problem(s):\n{}",
            problems.len(),
            lines.join("\n")
        )
    })
}

fn solution_json(policy: &str, inst: &Instance, sol: &Solution) -> serde_json::Value {
    let utility = sol.allocation.utilities(inst);
    serde_json::json!({
        "policy": policy,
        "objective": sol.objective,
        "efficiency": utility.iter().sum::<f64>(),
        "gpu_types": inst.type_names,
        "tenants": inst.tenant_names,
        "allocation": sol.allocation,
        "utility": utility,
    })
}

fn print_table(policy: &str, inst: &Instance, sol: &Solution) {
    let utility = sol.allocation.utilities(inst);
    let name_width = inst
        .tenant_names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(6)
        .max(6);
    println!(
        "policy {policy}: objective {:.6}, efficiency {:.6}",
        sol.objective,
        utility.iter().sum::<f64>()
    );
    print!("{:<name_width$}", "tenant");
    for t in &inst.type_names {
        print!(" {t:>10}");
    }
    println!(" {:>10}", "utility");
    for (i, name) in inst.tenant_names.iter().enumerate() {
        print!("{name:<name_width$}");
        for g in &sol.allocation.gpus[i] {
            print!(" {g:>10.4}");
        }
        println!(" {:>10.4}", utility[i]);
    }
}
