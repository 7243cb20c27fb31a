//! `fairground solve --policy gandiva-fair`, run as a user would: the trades are printed and in
//! the JSON, with the allocation worked out by hand in fairground-core's tests/gandiva_fair.rs.

mod common;
use common::{fairground, json, temp};

/// a (r = 1), b (4), c (5) on 3 + 3, starting at (1, 1) each: a sells c 1/4 V100 for c's K80
/// at b's rate 4, then sells b its last 3/4 V100 at its own rate 1; c then envies b.
const SCENARIO: &str = r#"{"gpu_types": [{"name": "k80", "count": 3}, {"name": "v100", "count": 3}],
  "tenants": [{"name": "a", "throughput": [1, 1]}, {"name": "b", "throughput": [1, 4]},
              {"name": "c", "throughput": [1, 5]}]}"#;

#[test]
fn trades_are_reported_in_text_and_json() {
    let path = temp("gandiva", "scenario.json", SCENARIO);
    let out = fairground(&["solve", &path, "--policy", "gandiva-fair"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("a sold c 0.2500 v100 for 1.0000 k80 (rate 4.0000 k80 per v100)"),
        "{text}"
    );
    assert!(
        text.contains("a sold b 0.7500 v100 for 0.7500 k80"),
        "{text}"
    );
    assert!(text.contains("envy-freeness: NO (c envies b"), "{text}");

    let r = json(&[
        "solve",
        &path,
        "--policy",
        "gandiva-fair:midpoint",
        "--json",
    ]);
    let trades = r["trades"].as_array().unwrap();
    // Midpoint: a sells c at (1 + 5) / 2 = 3: c's 1 K80 buys 1/3 V100, then a (2, 2/3) sells b
    // at (1 + 4) / 2 = 2.5: b's 1 K80 buys 0.4 V100.
    let rates: Vec<f64> = trades.iter().map(|t| t["rate"].as_f64().unwrap()).collect();
    assert_eq!(rates, vec![3.0, 2.5]);
    assert_eq!(trades[0]["seller"], 0);
    assert_eq!(trades[0]["buyer"], 2);
    let a = &r["allocation"][0];
    assert!((a[0].as_f64().unwrap() - 3.0).abs() < 1e-9, "{a}");
    assert!(
        (a[1].as_f64().unwrap() - (1.0 - 1.0 / 3.0 - 0.4)).abs() < 1e-9,
        "{a}"
    );
    // Policies that do not trade say so with an empty list.
    let oef = json(&["solve", &path, "--policy", "oef-coop", "--json"]);
    assert_eq!(oef["trades"], serde_json::json!([]));
}
