//! `fairground simulate` with Synergy's flags, run as a user would: the hand-solved schedule of
//! fairground-sim's tests/synergy.rs from a CSV of profiled models, the steady-state range, and
//! located errors for bad input.

mod common;
use common::{fairground, json};

fn temp(name: &str, text: &str) -> String {
    common::temp("synergy", name, text)
}

/// One server of 2 GPUs, 6 CPUs, 125 GB; res50 (600 s at the share, iteration 0.78 s) and
/// mobilenet (900 s, 0.71 s). Tune: res50's extra CPU is taken back so both run at speed 1;
/// res50 ends at 600 s, mobilenet then gets its ideal (x1.55): 600 + 300 / 1.55.
#[test]
fn replays_the_hand_solved_schedule_from_a_csv() {
    let csv = temp(
        "jobs.csv",
        &format!(
            "id,tenant,job_type,arrival_s,total_steps,scale_factor\n\
             10,a,res50,0,{},1\n11,b,mobilenet,0,{},1\n",
            600.0 / 0.78,
            900.0 / 0.71
        ),
    );
    let r = json(&[
        "simulate",
        "--trace",
        &csv,
        "--cluster",
        "gpu=2",
        "--server-shape",
        "2,6,125",
        "--policy",
        "synergy-tune",
        "--measure-ids",
        "11..12",
        "--json",
    ]);
    assert_eq!(r["policy"], "synergy-tune:fifo");
    let jobs = r["jobs"].as_array().unwrap();
    assert_eq!(
        (jobs[0]["id"].as_u64(), jobs[1]["id"].as_u64()),
        (Some(10), Some(11))
    );
    let jct = |k: usize| jobs[k]["jct_s"].as_f64().unwrap();
    assert!((jct(0) - 600.0).abs() < 1e-6 && (jct(1) - (600.0 + 300.0 / 1.55)).abs() < 1e-6);
    let m = &r["measured"];
    assert!((m["avg_jct_s"].as_f64().unwrap() - jct(1)).abs() < 1e-9);
    // Per-round placements carry CPUs and memory: 3 CPUs each while both run.
    let first: Vec<f64> = r["gantt"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["t0"] == 0.0)
        .map(|b| b["cpus"].as_f64().unwrap())
        .collect();
    assert_eq!(first, [3.0, 3.0]);
}

#[test]
fn bad_synergy_input_gets_located_errors() {
    let err = |args: &[&str]| {
        let out = fairground(args);
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let e = err(&[
        "simulate",
        "--synthetic-synergy",
        "10",
        "--server-shape",
        "8,-2,500",
        "--policy",
        "synergy-tune",
    ]);
    assert!(
        e.contains("server shape '8,-2,500': CPUs must be > 0"),
        "{e}"
    );
    let e = err(&[
        "simulate",
        "--synthetic-synergy",
        "10",
        "--measure-ids",
        "50..5",
        "--policy",
        "synergy-tune",
    ]);
    assert!(e.contains("--measure-ids '50..5'"), "{e}");
    let e = err(&[
        "simulate",
        "--synthetic-synergy",
        "10",
        "--policy",
        "synergy-fast",
    ]);
    assert!(e.contains("unknown Synergy mechanism 'fast'"), "{e}");
    let csv = temp(
        "unknown.csv",
        "tenant,job_type,arrival_s,total_steps,scale_factor\na,vgg,0,10,1\n",
    );
    let e = err(&[
        "simulate",
        "--trace",
        &csv,
        "--cluster",
        "gpu=8",
        "--policy",
        "synergy-tune",
    ]);
    assert!(
        e.contains("CSV line 2") && e.contains("no model profile of that name"),
        "{e}"
    );
    let profiles = temp(
        "ragged.json",
        r#"{"cpu_rows":[1,2],"mem_cols_gb":[10],"task_models":{},"models":{"m":{"task":"image","ideal_cpus_per_gpu":1,"ideal_mem_gb_per_gpu":10,"speedup_at_ideal":1,"iter_time_s":1,"tput":[[1],[1,2]]}}}"#,
    );
    let e = err(&[
        "simulate",
        "--synthetic-synergy",
        "10",
        "--profiles",
        &profiles,
        "--policy",
        "synergy-tune",
    ]);
    assert!(
        e.contains("models.m.tput[1] has 2 cells for 1 mem_cols_gb"),
        "{e}"
    );
}
