//! Today's cluster from the CLI (issue 52): the example scenario solves, and the simulator runs
//! the same types from its built-in table, refusing policies that need measured GPU sharing.

use std::process::Command;

fn fairground(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_fairground"))
        .args(args)
        .output()
        .unwrap()
}

const CLUSTER: &str = "h100=8,a100-80=8,a100-40=8,rtx6000-ada=8,a10=8,v100=8";

#[test]
fn the_example_solves_with_oef_fair_and_every_tenant_placed() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../www/scenarios/todays-cluster.json"
    );
    let out = fairground(&["solve", path, "--policy", "oef-coop", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let gpus = report["allocation"].as_array().unwrap();
    assert_eq!(gpus.len(), 10);
    // All 4 GPUs of each of the six types are handed out.
    for j in 0..6 {
        let held: f64 = gpus.iter().map(|row| row[j].as_f64().unwrap()).sum();
        assert!((held - 4.0).abs() < 1e-6, "type {j}: {held}");
    }
    let properties = &report["properties"];
    assert_eq!(properties["sharing_incentive"]["holds"], true);
    assert_eq!(properties["envy_freeness"]["holds"], true);
}

#[test]
fn the_simulator_runs_todays_gpus_and_refuses_sharing_on_them() {
    let out = fairground(&[
        "simulate",
        "--throughputs",
        "todays-gpus",
        "--cluster",
        CLUSTER,
        "--synthetic",
        "30",
        "--policy",
        "fifo",
        "--policy",
        "oef-coop",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("util rtx6000-ada"), "{text}");
    let done = |policy: &str| -> String {
        let row = text.lines().find(|l| l.starts_with(policy)).unwrap();
        row.split_whitespace().nth(1).unwrap().to_string()
    };
    assert_eq!(done("fifo"), "30/30");
    assert_eq!(done("oef-coop"), "30/30");

    let out = fairground(&[
        "simulate",
        "--throughputs",
        "todays-gpus",
        "--cluster",
        CLUSTER,
        "--synthetic",
        "5",
        "--policy",
        "sjf-bsbf",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("policy 'sjf-bsbf' shares GPUs"), "{err}");
}
