//! `fairground simulate --share-among tenants`: tenants' weights from a CSV trace reach the
//! allocation, and the tenant flags' mistakes get located messages.

mod common;
use common::{fairground, json, temp};

/// Two backlogged tenants of identical one-GPU jobs, weights 3 and 1 from the trace's `weight`
/// column, on 12 GPUs under the weighted equal split: 9 and 3 GPUs (3/4 and 1/4 of each type).
#[test]
fn csv_weights_reach_the_tenants_shares() {
    let mut csv = String::from("tenant,weight,job_type,arrival_s,total_steps,scale_factor\n");
    for _ in 0..20 {
        csv.push_str("team-a,3,A3C,0,10000000,1\nteam-b,1,A3C,0,10000000,1\n");
    }
    let trace = temp("tenants", "weights.csv", &csv);
    let r = json(&[
        "simulate",
        "--trace",
        &trace,
        "--cluster",
        "v100=4,k80=8",
        "--policy",
        "equal-share",
        "--share-among",
        "tenants",
        "--json",
    ]);
    assert_eq!(r["tenants"], serde_json::json!(["team-a", "team-b"]));
    assert_eq!(
        r["tenant_fairness"]["weights"],
        serde_json::json!([3.0, 1.0])
    );
    assert!(r["parties"].as_str().unwrap().starts_with("tenants"));
    for sample in r["tenant_share_over_time"]
        .as_array()
        .unwrap()
        .iter()
        .take(5)
    {
        let gpus = sample["gpus"].as_array().unwrap();
        let (a, b) = (gpus[0].as_f64().unwrap(), gpus[1].as_f64().unwrap());
        assert!((a - 9.0).abs() < 0.1 && (b - 3.0).abs() < 0.1, "{sample}");
    }
}

#[test]
fn tenant_flags_mistakes_are_located() {
    let header = "tenant,weight,job_type,arrival_s,total_steps,scale_factor\n";
    let bad = temp(
        "tenants",
        "two-weights.csv",
        &format!("{header}a,2,A3C,0,100,1\na,3,A3C,0,100,1\n"),
    );
    let good = temp(
        "tenants",
        "one-weight.csv",
        &format!("{header}a,2,A3C,0,100,1\n"),
    );
    let cases: [(&str, &[&str], &str); 5] = [
        (
            &bad,
            &[],
            "CSV line 3: tenant 'a' has weight 3 here and 2 on an earlier line",
        ),
        (
            &good,
            &["--share-among", "everyone"],
            "--share-among 'everyone': give jobs",
        ),
        (
            &good,
            &["--tenant-weights", "a=0"],
            "--tenant-weights 'a=0': give NAME=W",
        ),
        (
            &good,
            &["--tenant-weights", "b=2"],
            "the workload has no tenant 'b' (its tenants: a)",
        ),
        (
            &good,
            &["--tenant-mix", "skewed"],
            "--tenant-mix skewed draws the models of a synthetic",
        ),
    ];
    for (trace, extra, message) in cases {
        let mut args = vec![
            "simulate",
            "--trace",
            trace,
            "--cluster",
            "v100=2",
            "--policy",
            "oef-coop",
        ];
        args.extend_from_slice(extra);
        let out = fairground(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(message),
            "{extra:?}: {err}"
        );
    }
}
