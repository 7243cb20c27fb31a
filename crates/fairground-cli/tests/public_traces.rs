//! `fairground simulate --trace` on a public trace (Helios's `cluster_log.csv`), run as a user
//! would: the format is recognised from its header, jobs replay their recorded durations on the
//! trace's GPU type, skipped lines are reported, and a trace with nothing usable is refused.

use std::process::Output;

mod common;
use common::fairground;

fn temp(name: &str, text: &str) -> String {
    common::temp("traces", name, text)
}

/// `fairground simulate --trace TRACE --cluster CLUSTER --policy fifo EXTRA...`
fn replay(trace: &str, cluster: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "simulate",
        "--trace",
        trace,
        "--cluster",
        cluster,
        "--policy",
        "fifo",
    ];
    args.extend_from_slice(extra);
    fairground(&args)
}

const HEADER: &str =
    "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n";

/// Two 1-GPU jobs on 4 V100s under fifo: alice's (3,600 s, submitted first) runs from 0 and
/// ends at 3,600 s; bob's (1,800 s, submitted 100 s later) waits for the next 360-s round and
/// ends at 360 + 1,800: JCT 2,060 s. bob's CPU job is skipped and reported.
#[test]
fn a_helios_trace_replays_its_durations() {
    let trace = temp(
        "cluster_log.csv",
        &format!(
            "{HEADER}\
             7,alice,vcA,1,1,1,COMPLETED,2020-06-09 10:00:00,2020-06-09 10:00:00,2020-06-09 11:00:00,3600,0\n\
             8,bob,vcB,1,1,1,FAILED,2020-06-09 10:01:40,2020-06-09 10:01:40,2020-06-09 10:31:40,1800,0\n\
             9,bob,vcB,0,4,1,COMPLETED,2020-06-09 10:02:00,2020-06-09 10:02:00,2020-06-09 10:31:40,1800,0\n"
        ),
    );
    let out = replay(&trace, "v100=4", &["--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["jobs_completed"], 2);
    assert_eq!(result["tenants"], serde_json::json!(["alice", "bob"]));
    let jct: Vec<f64> = result["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["jct_s"].as_f64().unwrap())
        .collect();
    assert!(
        (jct[0] - 3600.0).abs() < 1e-6 && (jct[1] - 2060.0).abs() < 1e-6,
        "{jct:?}"
    );
    let report = String::from_utf8_lossy(&out.stderr);
    assert!(
        report.contains("3 job lines: 2 kept (1 COMPLETED, 1 FAILED)"),
        "{report}"
    );
    assert!(
        report.contains("1 skipped: no GPUs (a CPU job)"),
        "{report}"
    );

    // Tenants by virtual cluster instead.
    let out = replay(&trace, "v100=4", &["--json", "--trace-tenant", "vc"]);
    let result: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["tenants"], serde_json::json!(["vcA", "vcB"]));
}

#[test]
fn a_trace_with_nothing_usable_is_refused_with_the_reasons() {
    let trace = temp(
        "bad_log.csv",
        &format!(
            "{HEADER}\
             1,u1,vc1,0,4,1,COMPLETED,2020-06-09 10:00:00,2020-06-09 10:00:00,2020-06-09 11:00:00,3600,0\n\
             2,u1,vc1,1,4,1,COMPLETED,June 9th,2020-06-09 10:00:00,2020-06-09 11:00:00,3600,0\n"
        ),
    );
    let out = replay(&trace, "v100=4", &[]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad_log.csv: no job could be read"), "{err}");
    assert!(
        err.contains("line 3, field 'submit_time': 'June 9th' is not a time"),
        "{err}"
    );
    // Told to read it as Gavel's format, it fails on Gavel's terms, naming the line.
    let out = replay(&trace, "v100=4", &["--trace-format", "gavel"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("trace line 1"));
}

/// Philly's job log (a JSON array, recognised without an extension): one 2-GPU job whose two
/// attempts held its GPUs for 600 + 3,000 s, on 4 V100s under fifo: JCT 3,600 s.
#[test]
fn a_philly_job_log_replays_its_attempts() {
    let log = temp(
        "cluster_job_log",
        r#"[{"status": "Pass", "vc": "vc1", "jobid": "application_1_1",
             "attempts": [
               {"start_time": "2017-10-07 01:00:00", "end_time": "2017-10-07 01:10:00",
                "detail": [{"ip": "m1", "gpus": ["gpu0", "gpu1"]}]},
               {"start_time": "2017-10-07 01:20:00", "end_time": "2017-10-07 02:10:00",
                "detail": [{"ip": "m2", "gpus": ["gpu0", "gpu1"]}]}],
             "submitted_time": "2017-10-07 00:59:00", "user": "u1"}]"#,
    );
    let out = replay(&log, "v100=4", &["--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["jobs_completed"], 1);
    let jct = result["jobs"][0]["jct_s"].as_f64().unwrap();
    assert!((jct - 3600.0).abs() < 1e-6, "{jct}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 job lines: 1 kept (1 Pass)"));
}

#[test]
fn windows_and_samples_cut_public_traces_only() {
    let trace = temp(
        "window_log.csv",
        &format!(
            "{HEADER}\
             7,alice,vcA,1,1,1,COMPLETED,2020-06-09 10:00:00,2020-06-09 10:00:00,2020-06-09 11:00:00,3600,0\n\
             8,bob,vcB,1,1,1,FAILED,2020-06-09 10:01:40,2020-06-09 10:01:40,2020-06-09 10:31:40,1800,0\n"
        ),
    );
    let out = replay(
        &trace,
        "v100=4",
        &["--json", "--from", "2020-06-09 10:01:00"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["tenants"], serde_json::json!(["bob"]));
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 skipped: submitted outside"));

    let out = replay(&trace, "v100=4", &["--until", "ten past ten"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--until: 'ten past ten' is not a time"));

    let csv = temp(
        "ours.csv",
        "tenant,job_type,arrival_s,total_steps,scale_factor\na,ResNet-50 (batch size 64),0,100,1\n",
    );
    let out = replay(&csv, "v100=4", &["--sample", "1"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cut public traces"));
}

/// PAI's two headerless tables, under their published names in one folder: `--trace` names the
/// job table and the task table is found beside it. Both jobs ran on P100s: alice's 1,800 s
/// from 0; bob's 2 instances x 50% = 1 GPU, 1,200 s from his launch, submitted at 100 s, starts
/// at the next 360-s round: JCT 360 - 100 + 1,200 = 1,460 s. --until in the trace's seconds
/// keeps alice's only; a task table named otherwise is given with --trace-tasks.
#[test]
fn pai_tables_are_joined_and_replayed() {
    let dir = std::env::temp_dir().join(format!("fairground-pai-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let jobs = dir.join("pai_job_table.csv");
    std::fs::write(
        &jobs,
        "ja,ia,alice,Terminated,5000.0,6800.0\n\
         jb,ib,bob,Failed,5100.0,6400.0\n\
         jc,ic,carol,Running,5200.0,\n",
    )
    .unwrap();
    let tasks_text = "ja,worker,1.0,Terminated,5000.0,6800.0,600.0,10.0,100.0,P100\n\
                      jb,worker,2.0,Failed,5200.0,6400.0,600.0,10.0,50.0,P100\n\
                      jc,worker,1.0,Running,5300.0,,600.0,10.0,100.0,P100\n";
    std::fs::write(dir.join("pai_task_table.csv"), tasks_text).unwrap();
    let jobs = jobs.to_string_lossy().into_owned();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "simulate",
            "--trace",
            &jobs,
            "--cluster",
            "p100=4",
            "--policy",
            "fifo",
            "--json",
        ];
        args.extend_from_slice(extra);
        fairground(&args)
    };
    let out = run(&[]);
    let report = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{report}");
    let result: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["tenants"], serde_json::json!(["alice", "bob"]));
    let jct: Vec<f64> = result["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["jct_s"].as_f64().unwrap())
        .collect();
    assert!(
        (jct[0] - 1800.0).abs() < 1e-6 && (jct[1] - 1460.0).abs() < 1e-6,
        "{jct:?}"
    );
    assert!(
        report.contains("3 job lines: 2 kept (1 Failed, 1 Terminated)"),
        "{report}"
    );
    assert!(report.contains("1 skipped: Running or Waiting"), "{report}");

    let out = run(&["--until", "5050"]);
    let result: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["tenants"], serde_json::json!(["alice"]));

    let renamed = temp("tasks-july.csv", tasks_text);
    let out = run(&["--trace-tasks", &renamed]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // Without its task table the job table cannot be read: the message says what to give.
    let alone = dir.join("alone");
    std::fs::create_dir_all(&alone).unwrap();
    let lone = alone.join("pai_job_table.csv");
    std::fs::write(&lone, "ja,ia,alice,Terminated,5000.0,6800.0\n").unwrap();
    let lone = lone.to_string_lossy().into_owned();
    let out = replay(&lone, "p100=4", &[]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--trace-tasks FILE"));
}

/// `--jobs-csv` writes one row per (policy, job) with the outcomes the JSON would list, and the
/// JSON then leaves its per-job list out. A tenant name with a comma and a quote stays one field.
#[test]
fn jobs_csv_holds_every_outcome_and_json_stays_small() {
    let trace = temp(
        "jobs_csv.csv",
        "tenant,job_type,arrival_s,total_steps,scale_factor\n\
         \"lab, \"\"north\"\"\",ResNet-50 (batch size 64),0,4000,1\n\
         bob,A3C,100,7000,1\n",
    );
    let base = [
        "simulate",
        "--trace",
        &trace,
        "--cluster",
        "v100=1",
        "--policy",
        "fifo",
        "--policy",
        "gavel-las",
        "--json",
    ];
    let full = fairground(&base);
    assert!(
        full.status.success(),
        "{}",
        String::from_utf8_lossy(&full.stderr)
    );
    let full: serde_json::Value = serde_json::from_slice(&full.stdout).unwrap();
    let csv_path = temp("outcomes.csv", "");
    let mut args = base.to_vec();
    args.extend(["--jobs-csv", &csv_path]);
    let out = fairground(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let small: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(small[0]["jobs"], serde_json::json!([]));
    assert_eq!(small[1]["avg_jct_s"], full[1]["avg_jct_s"]);

    let text = std::fs::read_to_string(&csv_path).unwrap();
    let mut rows = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = rows.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(
        header,
        [
            "policy",
            "id",
            "tenant",
            "arrival_s",
            "start_s",
            "finish_s",
            "jct_s",
            "rho"
        ]
    );
    let rows: Vec<csv::StringRecord> = rows.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 4);
    for (k, row) in rows.iter().enumerate() {
        let (p, j) = (k / 2, k % 2);
        let job = &full[p]["jobs"][j];
        assert_eq!(row[0], *full[p]["policy"].as_str().unwrap());
        assert_eq!(row[2], *job["tenant"].as_str().unwrap());
        let finish: f64 = row[5].parse().unwrap();
        assert_eq!(finish, job["finish_s"].as_f64().unwrap());
    }
    assert_eq!(&rows[0][2], "lab, \"north\"");
}
