//! `fairground simulate` at the edges of its input, as issue 53 found them: each typo or absurd
//! row gets a located message before any work (docs/simulator.md, "Limits").

mod common;
use common::{fairground, json, temp};

/// Runs `simulate` with `args`, which must fail; returns what it printed on stderr.
fn refused(args: &[&str]) -> String {
    let out = fairground(args);
    assert!(
        !out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const HEADER: &str = "id,tenant,job_type,arrival_s,total_steps,scale_factor\n";
const ROW: &str = "a,ResNet-50 (batch size 64)";

/// A CSV trace of `rows` (after the header, each `id,` + [`ROW`] + the rest) simulated under fifo
/// on 4 V100s with `extra` flags, which must fail; returns the message.
fn trace_refused(name: &str, rows: &[&str], extra: &[&str]) -> String {
    let body: String = rows.iter().map(|r| format!("{r}\n")).collect();
    let csv = temp("limits", name, &format!("{HEADER}{body}"));
    let mut args = vec![
        "simulate",
        "--trace",
        &csv,
        "--cluster",
        "v100=4",
        "--policy",
        "fifo",
    ];
    args.extend_from_slice(extra);
    refused(&args)
}

#[test]
fn a_cluster_typo_is_refused_before_its_servers_are_made() {
    let err = refused(&[
        "simulate",
        "--synthetic",
        "10",
        "--jobs-per-hour",
        "1",
        "--cluster",
        "v100=1000000000",
        "--policy",
        "fifo",
    ]);
    assert!(
        err.contains("cluster: 'v100=1000000000' makes 1000000000 GPUs; at most 100000"),
        "{err}"
    );
    // Counted over the types together.
    let err = refused(&[
        "simulate",
        "--synthetic",
        "10",
        "--cluster",
        "v100=60000,k80=60000",
        "--policy",
        "fifo",
    ]);
    assert!(err.contains("'k80=60000' makes 120000 GPUs"), "{err}");
}

#[test]
fn too_many_jobs_are_refused_before_they_are_generated_unless_raised() {
    let err = refused(&[
        "simulate",
        "--synthetic",
        "100000000",
        "--cluster",
        "v100=4",
        "--policy",
        "fifo",
    ]);
    assert!(
        err.contains("--synthetic: 100000000 jobs: at most 2000000"),
        "{err}"
    );
    assert!(err.contains("--max-jobs N raises the limit"), "{err}");
    let err = refused(&[
        "simulate",
        "--synthetic",
        "5",
        "--max-jobs",
        "4",
        "--cluster",
        "v100=4",
        "--policy",
        "fifo",
    ]);
    assert!(err.contains("5 jobs: at most 4"), "{err}");
    let out = fairground(&[
        "simulate",
        "--synthetic",
        "5",
        "--max-jobs",
        "5",
        "--cluster",
        "v100=4",
        "--policy",
        "fifo",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A trace is counted too (here by the engine, after reading).
    let rows = [
        format!("0,{ROW},0,100,1"),
        format!("1,{ROW},0,100,1"),
        format!("2,{ROW},0,100,1"),
    ];
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let err = trace_refused("three.csv", &rows, &["--max-jobs", "2"]);
    assert!(err.contains("3 jobs: at most 2"), "{err}");
}

#[test]
fn an_absurd_row_is_refused_with_its_line() {
    // A corrupt duration: 1e15 steps (ResNet-50 runs at about 10 steps/s on one GPU).
    let (ok, long) = (format!("0,{ROW},0,100,1"), format!("1,{ROW},0,1e15,1"));
    let err = trace_refused("long.csv", &[&ok, &long], &[]);
    assert!(err.contains("CSV line 3: 1e15 steps take"), "{err}");
    assert!(err.contains("at most a year"), "{err}");
    // Both numbers at 1e308: the arrival is refused first.
    let huge = format!("0,{ROW},1e308,1e308,1");
    let err = trace_refused("huge.csv", &[&huge], &[]);
    assert!(
        err.contains("CSV line 2: arrives at 1e308 s, past the 10-year horizon"),
        "{err}"
    );
}

#[test]
fn a_repeated_id_names_both_lines() {
    let rows = [
        format!("7,{ROW},0,100,1"),
        format!("8,{ROW},0,100,1"),
        format!("7,{ROW},5,100,1"),
    ];
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let err = trace_refused("dup.csv", &rows, &[]);
    assert!(
        err.contains("CSV line 4: id 7 is also the id on line 2; ids must be unique"),
        "{err}"
    );
    let frac = format!("1.5,{ROW},0,100,1");
    let err = trace_refused("frac.csv", &[&frac], &[]);
    assert!(
        err.contains("CSV line 2: id must be a whole number >= 0 (got '1.5')"),
        "{err}"
    );
}

/// A run's peak memory in MB, from its notes.
#[cfg(target_os = "linux")]
fn peak_mb(r: &serde_json::Value) -> (f64, String) {
    let note = r["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n.as_str())
        .find(|n| n.starts_with("peak memory of this run: "))
        .unwrap_or_else(|| panic!("no peak memory in {}", r["notes"]))
        .to_string();
    let mb: f64 = note
        .trim_start_matches("peak memory of this run: ")
        .trim_end_matches(" MB")
        .parse()
        .unwrap();
    (mb, note)
}

/// Every run's notes give the process's peak memory (Linux's own accounting): 5,000 jobs under
/// fifo stay far below docs/simulator.md's budget of about 650 B a job on top of the program itself.
#[cfg(target_os = "linux")]
#[test]
fn the_notes_give_the_peak_memory() {
    let r = json(&[
        "simulate",
        "--synthetic",
        "5000",
        "--jobs-per-hour",
        "30",
        "--cluster",
        "v100=8,p100=8",
        "--policy",
        "fifo",
        "--json",
    ]);
    let (mb, note) = peak_mb(&r);
    // The binary and its tables take tens of MB; 5,000 jobs at 650 B are about 3 MB more.
    assert!(mb > 1.0 && mb < 200.0, "{note}");
}

/// The largest workload the limits allow, 2,000,000 jobs, generated and loaded into the engine
/// (which then stops once its first 10 jobs have finished, `--measure-ids 0..10`, so the test
/// takes seconds, not the minutes of a full run): its peak memory, from the process's own
/// accounting, stays under docs/simulator.md's stated bound for a policy's run of it, 650 B a job, 1.3
/// GB (measured: about 1,040 MB).
#[cfg(target_os = "linux")]
#[test]
fn the_largest_workload_stays_under_the_stated_memory() {
    let r = json(&[
        "simulate",
        "--synthetic",
        "2000000",
        "--jobs-per-hour",
        "30",
        "--cluster",
        "v100=100,p100=100,k80=100",
        "--policy",
        "fifo",
        "--measure-ids",
        "0..10",
        "--json",
    ]);
    assert_eq!(r["measured"]["completed"], 10);
    let (mb, note) = peak_mb(&r);
    assert!(mb > 100.0 && mb < 1300.0, "{note}");
}

/// A lone job of the longest length the limits accept (just under a year at its fastest rate)
/// runs to its end, round by round, under an ordering, a sharing, a price-based and a round-based
/// scheduler: its JCT is its steps over its rate (issue 53: "a lone job of any length finishes";
/// BENCHMARKS.md, "Input limits", times it at 0.05-0.4 s per policy in release).
#[test]
fn a_lone_job_of_the_longest_accepted_length_finishes() {
    // ResNet-50 (batch size 64) runs at 4.395 steps/s on a V100 (Gavel's table, as the limit's
    // message above says): 1.38e8 steps are 3.14e7 s, a year being 3.1536e7 s.
    let csv = temp(
        "limits",
        "lone.csv",
        &format!("{HEADER}0,{ROW},0,1.38e8,1\n"),
    );
    let runs = json(&[
        "simulate",
        "--trace",
        &csv,
        "--cluster",
        "v100=4",
        "--policy",
        "fifo",
        "--policy",
        "sjf-ffs",
        "--policy",
        "hadar",
        "--policy",
        "gavel-las",
        "--json",
    ]);
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 4);
    let expected = 1.38e8 / 4.395;
    for r in runs {
        let job = &r["jobs"][0];
        let jct = job["jct_s"].as_f64().unwrap_or_else(|| panic!("{job}"));
        assert!(
            (jct - expected).abs() < 1e-6 * expected,
            "{}: JCT {jct} s, expected {expected} s",
            r["policy"]
        );
    }
}
