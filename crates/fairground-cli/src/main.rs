//! `fairground`: the engine on the command line, for researchers and scripts.

use fairground_cli::{out, out_part, simulate, sweep};

use clap::{Parser, Subcommand};
use fairground_core::report::{self, PolicyReport};
use fairground_core::{policies, properties, Instance, Policy, Scenario, SpProbeConfig};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// mimalloc instead of the system allocator: a long simulation places and frees thousands of
/// small placements per round, and glibc's malloc and free were about a tenth of its time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "fairground",
    version,
    about = "Fair, efficient GPU allocation: solve scenarios and check fairness properties"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Solve one scenario with one policy and check every property.
    Solve {
        /// Scenario JSON file (schema in docs/formats.md); `-` reads standard input.
        scenario: PathBuf,
        /// Policy name (`fairground policies` lists them).
        #[arg(long, default_value = fairground_core::policies::DEFAULT_POLICY)]
        policy: String,
        /// Print one JSON object instead of a table.
        #[arg(long)]
        json: bool,
        /// Skip the strategy-proofness probe (it re-solves the policy many times).
        #[arg(long)]
        no_sp_probe: bool,
    },
    /// Run every policy on one scenario, side by side.
    Compare {
        scenario: PathBuf,
        /// Print a JSON array of per-policy objects instead of a table.
        #[arg(long)]
        json: bool,
        /// Run the strategy-proofness probe for each policy as well.
        #[arg(long)]
        sp_probe: bool,
    },
    /// The price of fairness: the most efficient allocation under eps-relaxed SI, EF and both,
    /// for eps from 0 to 1, with every policy placed on the same axes.
    Frontier {
        scenario: PathBuf,
        /// Grid step in eps (each point an exact LP optimum; must divide 1 into whole steps).
        #[arg(long, default_value_t = fairground_core::frontier::DEFAULT_STEP)]
        step: f64,
        /// Print one JSON object instead of tables.
        #[arg(long)]
        json: bool,
    },
    /// Replay a workload on a cluster under one or more scheduling policies.
    Simulate(Box<simulate::SimulateArgs>),
    /// Run a grid of simulations from a spec file (policies x loads x seeds x clusters ...),
    /// sharded for a batch system; `sweep merge` joins the shards.
    Sweep(Box<sweep::SweepArgs>),
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
            out!("{}", policies_text(policies::EVERY_POLICY));
            Ok(())
        }
        Command::Simulate(args) => simulate::run(*args),
        Command::Sweep(args) => sweep::run(*args),
        Command::Frontier {
            scenario,
            step,
            json,
        } => {
            let (_, inst) = load(&scenario)?;
            let f = fairground_core::frontier::frontier(&inst, step)?;
            if json {
                out!("{}", to_json(&f)?);
            } else {
                print_frontier(&f);
            }
            for failure in &f.failed {
                eprintln!("fairground: not placed: {failure}");
            }
            Ok(())
        }
        Command::Solve {
            scenario,
            policy,
            json,
            no_sp_probe,
        } => {
            let (scenario, inst) = load(&scenario)?;
            let policy = find_policy(&policy)?;
            let started = std::time::Instant::now();
            let mut report = report::run(&scenario, &inst, policy, None)
                .map_err(|e| format!("{}: {e}", policy.name()))?;
            if !no_sp_probe {
                let config = SpProbeConfig::default();
                let one_solve = started.elapsed().as_secs_f64();
                let threads = fairground_core::parallel::threads();
                if let Some(notice) =
                    probe_notice(&config, &inst, policy.name(), one_solve, threads)
                {
                    eprintln!("{notice}");
                }
                report.properties.strategy_proofness_probe =
                    // The CLI sets no time limit, so the probe always finishes.
                    Some(properties::sp_probe(&scenario, policy, &config).map_err(|e| e.to_string())?);
            }
            if json {
                out!("{}", to_json(&report)?);
            } else {
                print_report(&inst, &report);
            }
            Ok(())
        }
        Command::Compare {
            scenario,
            json,
            sp_probe,
        } => {
            let (scenario, inst) = load(&scenario)?;
            let sp = sp_probe.then(SpProbeConfig::default);
            if let Some(config) = &sp {
                let solves = config.solves(inst.tenants(), inst.types());
                eprintln!(
                    "fairground: the strategy-proofness probe re-solves each policy up to {solves} \
                     times ({} tenants x {} misreports)",
                    inst.tenants(),
                    config.misreports_per_tenant(inst.types())
                );
            }
            let mut reports = Vec::new();
            let mut failures = Vec::new();
            for policy in policies::all() {
                match report::run(&scenario, &inst, policy, sp.as_ref()) {
                    Ok(r) => reports.push(r),
                    Err(e) => failures.push(format!("{}: {e}", policy.name())),
                }
            }
            if json {
                out!("{}", to_json(&reports)?);
            } else {
                print_comparison(&reports);
            }
            for failure in &failures {
                eprintln!("fairground: {failure}");
            }
            if failures.is_empty() {
                Ok(())
            } else {
                Err(format!("{} policies failed", failures.len()))
            }
        }
    }
}

/// What `fairground policies` prints: the registry's allocation policies, each with its family
/// and summary, then the simulator's own schedulers.
fn policies_text(registry: policies::Registry) -> String {
    let mut text = String::from("Allocation policies (solve, compare, and simulate):\n");
    let catalogue = registry.infos();
    for p in &catalogue {
        let family = p.family.name();
        text.push_str(&format!("  {:<22} [{family}] {}\n", p.name, p.summary));
    }
    let schedulers: Vec<String> = fairground_sim::schedulers::names_in(registry)
        .into_iter()
        .filter(|n| !catalogue.iter().any(|p| p.name == n))
        .collect();
    text.push_str(&format!(
        "Simulation-only schedulers (simulate): {}",
        schedulers.join(", ")
    ));
    text
}

fn find_policy(name: &str) -> Result<&'static dyn Policy, String> {
    policies::by_name(name).ok_or_else(|| {
        let names: Vec<&str> = policies::all().iter().map(|p| p.name()).collect();
        format!("unknown policy '{name}' (policies: {})", names.join(", "))
    })
}

fn load(path: &Path) -> Result<(Scenario, Instance), String> {
    let text = if path.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin()).map_err(|e| format!("standard input: {e}"))?
    } else {
        std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?
    };
    let scenario = Scenario::from_json(&text).map_err(|p| format!("{}: {p}", path.display()))?;
    let inst = scenario.instance().map_err(|problems| {
        let lines: Vec<String> = problems
            .iter()
            .map(|p| format!("  {}: {p}", path.display()))
            .collect();
        format!(
            "the scenario has {} problem(s):\n{}",
            problems.len(),
            lines.join("\n")
        )
    })?;
    Ok((scenario, inst))
}

fn to_json(value: &impl serde::Serialize) -> Result<String, String> {
    serde_json::to_string_pretty(value).map_err(|e| format!("cannot write JSON: {e}"))
}

fn yes_no(holds: bool) -> &'static str {
    if holds {
        "yes"
    } else {
        "NO"
    }
}

/// gandiva-fair's trades, in the order they happened.
fn print_trades(inst: &Instance, trades: &[fairground_core::policies::Trade]) {
    if trades.is_empty() {
        return;
    }
    out!("trades (fast GPUs sold for slow ones, in order):");
    for t in trades {
        out!(
            "  {} sold {} {:.4} {} for {:.4} {} (rate {:.4} {} per {})",
            inst.tenant_names[t.seller],
            inst.tenant_names[t.buyer],
            t.sold,
            inst.type_names[t.fast],
            t.paid,
            inst.type_names[t.slow],
            t.rate,
            inst.type_names[t.slow],
            inst.type_names[t.fast]
        );
    }
}

fn print_report(inst: &Instance, r: &PolicyReport) {
    out!(
        "policy {}: objective {:.6}, efficiency {:.6}, Jain {:.4}",
        r.policy,
        r.objective,
        r.efficiency,
        r.metrics.jain
    );
    let width = inst
        .tenant_names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(6)
        .max(6);
    out_part!("{:<width$}", "tenant");
    for t in &inst.type_names {
        out_part!(" {t:>9}");
    }
    out!(" {:>9} {:>9}", "utility", "SI ratio");
    for (i, name) in inst.tenant_names.iter().enumerate() {
        out_part!("{name:<width$}");
        for g in &r.allocation.gpus[i] {
            out_part!(" {g:>9.4}");
        }
        out!(" {:>9.4} {:>9.4}", r.utility[i], r.metrics.si_ratio[i]);
    }
    if let Some(market) = &r.market {
        print_market(inst, market);
    }
    print_shared(inst, &r.shared);
    print_trades(inst, &r.trades);
    let p = &r.properties;
    let name = |i: usize| inst.tenant_names[i].as_str();
    out!(
        "sharing incentive: {} (worst ratio {:.6}, {})",
        yes_no(p.sharing_incentive.holds),
        p.sharing_incentive.worst_ratio,
        name(p.sharing_incentive.worst_tenant)
    );
    match p.envy_freeness.pair {
        _ if p.envy_freeness.holds.is_none() => out!(
            "envy-freeness: not defined ({})",
            p.envy_freeness
                .undecided
                .as_deref()
                .unwrap_or("no reason given")
        ),
        Some((i, k)) => out!(
            "envy-freeness: NO ({} envies {} by {:.6})",
            name(i),
            name(k),
            p.envy_freeness.worst_envy
        ),
        None => out!(
            "envy-freeness: yes (worst envy {:.3e})",
            p.envy_freeness.worst_envy
        ),
    }
    match p.pareto_efficiency.holds {
        Some(true) => out!("Pareto efficiency: yes"),
        Some(false) => out!(
            "Pareto efficiency: NO (another allocation leaves nobody worse off and adds {:.6} to efficiency)",
            p.pareto_efficiency.gain
        ),
        None => out!(
            "Pareto efficiency: undecided ({})",
            p.pareto_efficiency.undecided.as_deref().unwrap_or("no reason given")
        ),
    }
    if let Some(sp) = &r.properties.strategy_proofness_probe {
        match &sp.best {
            None => out!("strategy-proofness probe: no profitable lie in {} misreports", sp.misreports_tried),
            Some(lie) => out!(
                "strategy-proofness probe: {} gains {:.6} (true utility {:.6} -> {:.6}) by reporting {:?}",
                name(lie.tenant), lie.gain, lie.truthful_utility, lie.lying_utility, lie.reported
            ),
        }
    }
}

fn print_frontier(f: &fairground_core::frontier::Frontier) {
    out!(
        "most efficient allocation (sum of normalised throughputs) under guarantees relaxed by eps; \
         exact LP optima every {} in eps",
        f.step
    );
    out_part!("{:>6}", "eps");
    for c in &f.curves {
        out_part!(" {:>11}", c.guarantee.label());
    }
    out!();
    for (k, eps) in f.eps.iter().enumerate() {
        out_part!("{eps:>6.3}");
        for c in &f.curves {
            out_part!(" {:>11.5}", c.efficiency[k]);
        }
        out!();
    }
    for c in &f.curves {
        out!(
            "price of fairness, {}: {:.2}% of the maximum efficiency {:.5}",
            c.guarantee.label(),
            100.0 * c.price_of_fairness,
            f.max_efficiency
        );
    }
    out!(
        "{:<22} {:>11} {:>8} {:>8} {:>8}",
        "policy",
        "efficiency",
        "eps SI",
        "eps EF",
        "eps both"
    );
    for p in &f.policies {
        out!(
            "{:<22} {:>11.5} {:>8.4} {:>8.4} {:>8.4}",
            p.policy,
            p.efficiency,
            p.eps_sharing_incentive,
            p.eps_envy_freeness,
            p.eps_both
        );
    }
}

/// The equilibrium prices (nash-welfare) and the kept fractions (partial-allocation).
fn print_market(inst: &Instance, market: &policies::Market) {
    let list = |names: &[String], values: &[f64]| {
        names
            .iter()
            .zip(values)
            .map(|(n, v)| format!("{n} {v:.6}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    out!(
        "prices per GPU (each tenant's budget is its weight): {}",
        list(&inst.type_names, &market.prices)
    );
    if market.cap_prices.iter().any(|&q| q > 0.0) {
        out!(
            "cap prices (added per GPU where a cap binds): {}",
            list(&inst.tenant_names, &market.cap_prices)
        );
    }
    if let Some(kept) = &market.kept_fraction {
        out!(
            "fraction of its Nash-welfare bundle each tenant keeps: {}",
            list(&inst.tenant_names, kept)
        );
    }
    if let Some(left) = &market.unallocated {
        out!("GPUs left unallocated: {}", list(&inst.type_names, left));
    }
}

/// The GPUs co-located pairs hold together (gavel-las-packed), one row per pair that shares.
fn print_shared(inst: &Instance, shared: &[Vec<f64>]) {
    let sharing: Vec<(usize, &Vec<f64>)> = shared
        .iter()
        .enumerate()
        .filter(|(_, h)| h.iter().any(|&g| g > 1e-9))
        .collect();
    if sharing.is_empty() {
        if !inst.co_located.is_empty() && !shared.is_empty() {
            out!("shared GPUs: none (no pair is better off sharing)");
        }
        return;
    }
    out!("shared GPUs (held by both tenants of a pair at once; utility above counts them):");
    let names: Vec<String> = sharing
        .iter()
        .map(|&(p, _)| {
            let pair = &inst.co_located[p];
            format!(
                "{} + {}",
                inst.tenant_names[pair.a], inst.tenant_names[pair.b]
            )
        })
        .collect();
    let width = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    out_part!("{:<width$}", "pair");
    for t in &inst.type_names {
        out_part!(" {t:>9}");
    }
    out!("");
    for (name, (_, h)) in names.iter().zip(&sharing) {
        out_part!("{name:<width$}");
        for g in h.iter() {
            out_part!(" {g:>9.4}");
        }
        out!("");
    }
}

fn print_comparison(reports: &[PolicyReport]) {
    out!(
        "{:<22} {:>11} {:>11} {:>9} {:>11} {:>6} {:>4} {:>4} {:>4}",
        "policy",
        "objective",
        "efficiency",
        "Jain",
        "worst SI",
        "envy",
        "SI",
        "EF",
        "PE"
    );
    for r in reports {
        let p = &r.properties;
        out!(
            "{:<22} {:>11.5} {:>11.5} {:>9.4} {:>11.5} {:>6} {:>4} {:>4} {:>4}",
            r.policy,
            r.objective,
            r.efficiency,
            r.metrics.jain,
            p.sharing_incentive.worst_ratio,
            // No envy to show where EF is not defined (an answer that shares GPUs).
            match p.envy_freeness.holds {
                Some(_) => format!("{:.3}", p.envy_freeness.worst_envy.max(0.0)),
                None => "-".to_string(),
            },
            yes_no(p.sharing_incentive.holds),
            p.envy_freeness.holds.map_or("?", yes_no),
            p.pareto_efficiency.holds.map_or("?", yes_no)
        );
    }
}

/// Above this many seconds, estimated, `solve` says how long its probe will take before it starts.
const ANNOUNCE_PROBE_SECONDS: f64 = 10.0;

/// What `solve` tells a user who did not ask to skip the probe, when the probe will be long:
/// the re-solves it makes and, from the time the plain solve and its checks took, about how long
/// on `threads` threads (the probe's tenants run side by side).
fn probe_notice(
    config: &SpProbeConfig,
    inst: &Instance,
    policy: &str,
    one_solve: f64,
    threads: usize,
) -> Option<String> {
    let solves = config.solves(inst.tenants(), inst.types());
    let side_by_side = threads.clamp(1, inst.tenants().max(1));
    let estimate = solves as f64 * one_solve / side_by_side as f64;
    (estimate > ANNOUNCE_PROBE_SECONDS).then(|| {
        format!(
            "fairground: the strategy-proofness probe re-solves {policy} up to {solves} times ({} \
             tenants x {} misreports); one solve and its checks took {one_solve:.3} s here, so \
             {} on {side_by_side} thread(s); --no-sp-probe skips it",
            inst.tenants(),
            config.misreports_per_tenant(inst.types()),
            properties::rough_duration(estimate)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairground_core::presets::random_scenario;

    #[test]
    fn a_long_probe_is_announced_with_its_count_and_time() {
        let config = SpProbeConfig::default();
        let big = random_scenario(150, 12, 1, false).instance().unwrap();
        let said = probe_notice(&config, &big, "oef-coop", 1.274, 1).unwrap();
        // 150 tenants x (12 types x 10 factors + 16 random rows) = 20,400; x 1.274 s = 7.2 h.
        assert!(
            said.contains("re-solves oef-coop up to 20400 times"),
            "{said}"
        );
        assert!(said.contains("(150 tenants x 136 misreports)"), "{said}");
        assert!(said.contains("about 7.2 h on 1 thread(s)"), "{said}");
        // Tenants side by side on 4 threads: a quarter.
        let said = probe_notice(&config, &big, "oef-coop", 1.274, 4).unwrap();
        assert!(said.contains("about 1.8 h on 4 thread(s)"), "{said}");
        let small = random_scenario(4, 2, 1, false).instance().unwrap();
        // 4 x 36 = 144 solves of 10 ms: 1.4 s, said nothing.
        assert_eq!(probe_notice(&config, &small, "oef-coop", 0.01, 1), None);
    }
}
