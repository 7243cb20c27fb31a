//! `fairground simulate` with Hadar's flags, run as a user would: an 8-GPU job no single type
//! can hold runs under hadar (across two types, at the speed the --mixed-rate rule gives) and is
//! reported as unschedulable under gavel-las; bad options give located errors.

mod common;
use common::{fairground, json};

fn temp(name: &str, text: &str) -> String {
    common::temp("hadar", name, text)
}

/// Whole-job rates 4 / 2 / 1 steps/s, 7,200 steps on 4+4+4 GPUs (servers of 4): slowest rule
/// 2 steps/s (3,600 s), sum rule 3 steps/s (2,400 s).
#[test]
fn a_big_job_runs_across_types_at_the_rule_s_speed() {
    let csv = temp(
        "jobs.csv",
        "id,tenant,job_type,arrival_s,total_steps,scale_factor,throughput.v100,throughput.p100,throughput.k80\n\
         5,a,big,0,7200,8,4,2,1\n",
    );
    for (rule, jct) in [("slowest", 3600.0), ("sum", 2400.0)] {
        let r = json(&[
            "simulate",
            "--trace",
            &csv,
            "--cluster",
            "v100=4,p100=4,k80=4",
            "--server-shape",
            "4,16,256",
            "--mixed-rate",
            rule,
            "--policy",
            "hadar",
            "--policy",
            "gavel-las",
            "--json",
        ]);
        assert_eq!(r[0]["policy"], "hadar");
        let got = r[0]["jobs"][0]["jct_s"].as_f64().unwrap();
        assert!((got - jct).abs() < 1e-6, "{rule}: {got}");
        assert_eq!(r[1]["jobs_unschedulable"], serde_json::json!([5]));
    }
}

#[test]
fn bad_hadar_options_are_located() {
    let base = [
        "simulate",
        "--synthetic",
        "5",
        "--cluster",
        "v100=4",
        "--policy",
        "hadare",
    ];
    let cases: [(&[&str], &str); 3] = [
        (
            &["--mixed-rate", "fastest"],
            "--mixed-rate: mixed rate 'fastest'",
        ),
        (&["--sync-overhead=-5"], "sync overhead must be >= 0"),
        (&["--sync-overhead", "400"], "shorter than a round (360 s)"),
    ];
    for (extra, want) in cases {
        let mut args: Vec<&str> = base.to_vec();
        args.extend_from_slice(extra);
        let out = fairground(&args);
        assert!(!out.status.success(), "{extra:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{extra:?}: {err}");
    }
    let out = fairground(&[
        "simulate",
        "--synthetic",
        "5",
        "--cluster",
        "v100=4",
        "--policy",
        "hadar:fifo",
    ]);
    assert!(!out.status.success());
}
