//! `fairground solve` with a scenario of co-located tenants: gavel-las-packed's shared GPUs in
//! the table and the JSON, and a bad pair refused with its location.

use std::process::Command;

/// V100 x1, K80 x1; a and b single-GPU jobs that share the V100 at 3 and 1.5 (solved by hand
/// in fairground-core's gavel_las_packed.rs: the V100 shared 14/17 of the time, level 18/17).
const SCENARIO: &str = r#"{"gpu_types": [{"name": "v100", "count": 1}, {"name": "k80", "count": 1}],
  "tenants": [{"name": "a", "throughput": [4, 1], "max_gpus": 1},
              {"name": "b", "throughput": [2, 1], "max_gpus": 1}],
  "co_located": [{"tenants": ["a", "b"], "throughput": [[3, 1.5], [0.5, 0.5]]}]}"#;

fn file(tag: &str, text: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!(
        "fairground-sharing-{tag}-{}.json",
        std::process::id()
    ));
    std::fs::write(&path, text).unwrap();
    path
}

fn fairground(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_fairground"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn solve_shows_the_shared_gpus() {
    let path = file("ok", SCENARIO);
    let path = path.to_str().unwrap();
    let out = fairground(&["solve", path, "--policy", "gavel-las-packed"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let row = text
        .lines()
        .find(|l| l.starts_with("a + b"))
        .unwrap_or_else(|| panic!("no shared row in:\n{text}"));
    let v100: f64 = row.split_whitespace().nth(3).unwrap().parse().unwrap();
    assert!((v100 - 14.0 / 17.0).abs() < 1e-4, "{row}");
    assert!(text.contains("envy-freeness: not defined"), "{text}");

    let out = fairground(&["solve", path, "--policy", "gavel-las-packed", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let shared = json["shared"][0][0].as_f64().unwrap();
    assert!((shared - 14.0 / 17.0).abs() < 1e-7, "{json}");
    assert!((json["objective"].as_f64().unwrap() - 18.0 / 17.0).abs() < 1e-7);
    assert!(json["properties"]["envy_freeness"]["holds"].is_null());
}

#[test]
fn a_bad_pair_is_located() {
    let bad = SCENARIO.replace(r#"["a", "b"]"#, r#"["a", "nobody"]"#);
    let path = file("bad", &bad);
    let out = fairground(&[
        "solve",
        path.to_str().unwrap(),
        "--policy",
        "gavel-las-packed",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("co_located[0].tenants[1]") && err.contains("'nobody'"),
        "{err}"
    );
}
