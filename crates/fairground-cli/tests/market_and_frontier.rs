//! `fairground solve` with the market mechanisms and `fairground frontier`, run as a user would,
//! against the equilibrium and end points solved by hand (fairground-core's tests/market.rs and
//! tests/frontier.rs derive them).

use std::process::{Command, Output};

/// One slow and one fast GPU; A = (1, 3), B = (1, 2).
const SCENARIO: &str = r#"{"gpu_types": [{"name": "slow", "count": 1}, {"name": "fast", "count": 1}],
  "tenants": [{"name": "A", "throughput": [1, 3]}, {"name": "B", "throughput": [1, 2]}]}"#;

fn scenario_file(tag: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!(
        "fairground-market-{tag}-{}.json",
        std::process::id()
    ));
    std::fs::write(&path, SCENARIO).unwrap();
    path
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fairground"))
        .args(args)
        .output()
        .unwrap()
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = run(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn numbers(v: &serde_json::Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn close(got: &[f64], want: &[f64]) -> bool {
    got.len() == want.len() && got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-9)
}

#[test]
fn nash_welfare_prints_its_prices() {
    let path = scenario_file("nw");
    let p = path.to_str().unwrap();
    let v = json(&[
        "solve",
        p,
        "--policy",
        "nash-welfare",
        "--json",
        "--no-sp-probe",
    ]);
    // Prices (2/3, 4/3): B spends on both types, so 1 / p_slow = 2 / p_fast, and they sum to 2.
    assert!(
        close(&numbers(&v["market"]["prices"]), &[2.0 / 3.0, 4.0 / 3.0]),
        "{v}"
    );
    let out = run(&["solve", p, "--policy", "nash-welfare", "--no-sp-probe"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(
            "prices per GPU (each tenant's budget is its weight): slow 0.666667, fast 1.333333"
        ),
        "{text}"
    );
}

#[test]
fn partial_allocation_prints_fractions_and_finds_no_lie() {
    let path = scenario_file("pa");
    let p = path.to_str().unwrap();
    let v = json(&["solve", p, "--policy", "partial-allocation", "--json"]);
    assert!(
        close(&numbers(&v["market"]["kept_fraction"]), &[0.5, 0.5625]),
        "{v}"
    );
    assert!(
        close(&numbers(&v["market"]["unallocated"]), &[0.4375, 0.484375]),
        "{v}"
    );
    assert_eq!(
        v["properties"]["strategy_proofness_probe"]["no_lie_found"],
        true
    );
    let text =
        String::from_utf8(run(&["solve", p, "--policy", "partial-allocation"]).stdout).unwrap();
    assert!(
        text.contains("each tenant keeps: A 0.500000, B 0.562500"),
        "{text}"
    );
    assert!(
        text.contains("GPUs left unallocated: slow 0.437500, fast 0.484375"),
        "{text}"
    );
}

#[test]
fn frontier_table_and_json() {
    let path = scenario_file("frontier");
    let p = path.to_str().unwrap();
    let v = json(&["frontier", p, "--step", "0.25", "--json"]);
    assert!(close(&numbers(&v["eps"]), &[0.0, 0.25, 0.5, 0.75, 1.0]));
    let both = v["curves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["guarantee"] == "both")
        .unwrap();
    let eff = numbers(&both["efficiency"]);
    assert!(
        (eff[0] - 3.75).abs() < 1e-9 && (eff[4] - 4.0).abs() < 1e-9,
        "{eff:?}"
    );
    let out = run(&["frontier", p]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("price of fairness, SI + EF: 6.25% of the maximum efficiency 4.00000"),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("gavel-max-sum") && l.ends_with("1.0000   1.0000   1.0000")),
        "{text}"
    );
}

#[test]
fn frontier_refuses_a_bad_step_with_a_message() {
    let path = scenario_file("bad");
    let out = run(&["frontier", path.to_str().unwrap(), "--step", "0.3"]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("the eps step must divide 1 into whole steps"),
        "{err}"
    );
}
