//! `fairground sweep`: the shipped example runs and agrees with `simulate`, shards merged give the
//! one run's rows, a restarted sweep keeps its finished cases, and bad specs, shards and folders
//! are refused with located messages before anything is lost.

mod common;

use std::path::{Path, PathBuf};

/// The shipped example spec (from the repository root).
fn example() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../experiments/example.toml")
        .to_string_lossy()
        .into_owned()
}

/// A fresh scratch folder named after the test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fairground-sweep-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn sweep(args: &[&str]) -> String {
    let mut all = vec!["sweep"];
    all.extend(args);
    let out = common::fairground(&all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn refused(args: &[&str]) -> String {
    let mut all = vec!["sweep"];
    all.extend(args);
    let out = common::fairground(&all);
    assert!(!out.status.success(), "accepted: {args:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// results.csv as rows of fields (header first).
fn rows(dir: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(dir.join("results.csv")).unwrap();
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes());
    reader
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect()
}

/// The rows without the wall-time column (which differs from run to run).
fn without_wall(rows: &[Vec<String>]) -> Vec<Vec<String>> {
    let wall = rows[0].iter().position(|c| c == "wall_s").unwrap();
    rows.iter()
        .map(|r| {
            let mut r = r.clone();
            r.remove(wall);
            r
        })
        .collect()
}

/// The example: 2 loads x 2 seeds, 2 policies: 8 tidy rows, and each row says what
/// `fairground simulate` says of the same case.
#[test]
fn the_example_writes_a_tidy_row_per_case_and_policy_as_simulate_would() {
    let out = scratch("example");
    let dir = out.to_str().unwrap();
    sweep(&[&example(), "--out", dir]);
    let rows = rows(&out);
    assert_eq!(
        rows[0][..4],
        ["case", "jobs_per_hour", "seed", "policy"].map(String::from)
    );
    assert_eq!(rows.len(), 1 + 8);
    let col = |name: &str| rows[0].iter().position(|c| c == name).unwrap();
    let row = rows
        .iter()
        .find(|r| {
            r[col("jobs_per_hour")] == "4" && r[col("seed")] == "1" && r[col("policy")] == "fifo"
        })
        .expect("the case jobs-per-hour=4 seed=1 under fifo");
    assert_eq!(row[0], "jobs-per-hour=4 seed=1");
    let alone = common::json(&[
        "simulate",
        "--synthetic",
        "300",
        "--jobs-per-hour",
        "4",
        "--seed",
        "1",
        "--cluster",
        "v100=4,p100=4,k80=4",
        "--policy",
        "fifo",
        "--json",
    ]);
    let avg_h = alone["avg_jct_s"].as_f64().unwrap() / 3600.0;
    let swept: f64 = row[col("avg_jct_h")].parse().unwrap();
    assert!((swept - avg_h).abs() < 1e-5, "{swept} against {avg_h}");
    assert_eq!(
        row[col("jobs_done")],
        alone["jobs_completed"].as_u64().unwrap().to_string()
    );
    let spec = std::fs::read_to_string(out.join("spec.toml")).unwrap();
    assert!(spec.contains("# spec-hash: ") && spec.contains("jobs-per-hour = [2, 4]"));
    assert!(rows[1..].iter().all(|r| r.last() == rows[1].last()));

    // The plots: average JCT against load (a line per policy through its two loads, at the
    // mean over the two seeds, a band over them) and a CDF per load.
    let plots: Vec<String> = std::fs::read_dir(out.join("plots"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for name in [
        "avg_jct.svg",
        "jct_cdf-jobs_per_hour=2.svg",
        "jct_cdf-jobs_per_hour=4.svg",
    ] {
        assert!(plots.contains(&name.to_string()), "{plots:?}");
    }
    let svg = std::fs::read_to_string(out.join("plots/avg_jct.svg")).unwrap();
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    for policy in ["gavel-las", "fifo"] {
        let line = svg
            .split("<polyline")
            .skip(1)
            .find(|l| l.contains(&format!("data-series=\"{policy}\"")))
            .unwrap_or_else(|| panic!("no line for {policy}"));
        let points = line
            .split("points=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        assert_eq!(points.split(' ').count(), 2, "{points}");
    }
    assert_eq!(svg.matches("class=\"band\"").count(), 2);
    let quantiles = std::fs::read_to_string(out.join("jct_quantiles.csv")).unwrap();
    assert_eq!(quantiles.lines().count(), 1 + 8 * 101);
}

/// Two shards in two processes at once, merged, give the rows of one run, in grid order.
/// A measured window: its columns say what `simulate --json` says of the same run (how many of
/// the window finished, when the last did, the workload's last arrival), and a policy is named as
/// the spec names it (`synergy-tune`, which calls itself `synergy-tune:fifo`) in both CSVs.
#[test]
fn a_window_row_says_when_its_jobs_and_the_arrivals_ended() {
    let spec = common::temp(
        "sweep",
        "window.toml",
        "policy = [\"synergy-tune\", \"fifo\"]\nsynthetic-synergy = 300\n\
         jobs-per-hour = 20\nseed = 1\nmeasure-ids = \"100..200\"\n",
    );
    let out = scratch("window");
    sweep(&[&spec, "--out", out.to_str().unwrap()]);
    let rows = rows(&out);
    let col = |name: &str| rows[0].iter().position(|c| c == name).unwrap();
    let policies: Vec<&str> = rows[1..]
        .iter()
        .map(|r| r[col("policy")].as_str())
        .collect();
    assert_eq!(policies, ["synergy-tune", "fifo"]);
    let quantiles = std::fs::read_to_string(out.join("jct_quantiles.csv")).unwrap();
    assert!(quantiles.contains(",synergy-tune,0.50,"), "{quantiles}");
    for (k, policy) in ["synergy-tune", "fifo"].iter().enumerate() {
        let alone = common::json(&[
            "simulate",
            "--synthetic-synergy",
            "300",
            "--jobs-per-hour",
            "20",
            "--seed",
            "1",
            "--measure-ids",
            "100..200",
            "--policy",
            policy,
            "--json",
        ]);
        let jobs = alone["jobs"].as_array().unwrap();
        let in_window = |j: &&serde_json::Value| (100..200).contains(&j["id"].as_u64().unwrap());
        let last_finish = jobs
            .iter()
            .filter(in_window)
            .filter_map(|j| j["finish_s"].as_f64())
            .fold(0.0, f64::max);
        let last_arrival = jobs
            .iter()
            .filter_map(|j| j["arrival_s"].as_f64())
            .fold(0.0, f64::max);
        let done = jobs
            .iter()
            .filter(in_window)
            .filter(|j| j["finish_s"].is_number())
            .count();
        let row = &rows[1 + k];
        let hours = |c: &str| row[col(c)].parse::<f64>().unwrap();
        assert_eq!(row[col("measured_done")], done.to_string(), "{policy}");
        assert_eq!(
            done, 100,
            "{policy}: the run goes on until the window is done"
        );
        assert!((hours("measured_last_finish_h") - last_finish / 3600.0).abs() < 1e-5);
        assert!((hours("last_arrival_h") - last_arrival / 3600.0).abs() < 1e-5);
        assert!(last_arrival > 0.0 && last_finish > 0.0);
    }
}

/// Every spec shipped in `experiments/` is accepted (keys, policies, clusters, the shared data it
/// names), as `--list` checks it without running; the shards' lists split the grid's cases.
#[test]
fn every_shipped_spec_is_checked_and_its_shards_split_its_cases() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments");
    let mut specs: Vec<PathBuf> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    specs.sort();
    assert!(specs.len() >= 5, "{specs:?}");
    let lines =
        |args: &[&str]| -> Vec<String> { sweep(args).lines().map(str::to_string).collect() };
    for spec in &specs {
        let spec = spec.to_str().unwrap();
        let all = lines(&[spec, "--list"]);
        assert!(!all.is_empty(), "{spec}");
        let mut shards: Vec<String> = (0..3)
            .flat_map(|i| lines(&[spec, "--list", "--shard", &format!("{i}/3")]))
            .collect();
        let mut sorted = all.clone();
        sorted.sort();
        shards.sort();
        assert_eq!(
            shards, sorted,
            "{spec}: the shards' cases are the grid's, each once"
        );
    }
    // The example: 2 loads x 2 seeds.
    assert_eq!(
        lines(&[&example(), "--list"]),
        [
            "jobs-per-hour=2 seed=0",
            "jobs-per-hour=2 seed=1",
            "jobs-per-hour=4 seed=0",
            "jobs-per-hour=4 seed=1"
        ]
    );
}

#[test]
fn two_shards_merged_give_the_rows_of_one_run() {
    let (one, a, b, merged) = (
        scratch("one"),
        scratch("shard-a"),
        scratch("shard-b"),
        scratch("merged"),
    );
    let spec = example();
    let bin = env!("CARGO_BIN_EXE_fairground");
    let shard = |dir: &Path, s: &str| {
        std::process::Command::new(bin)
            .args(["sweep", &spec, "--out", dir.to_str().unwrap(), "--shard", s])
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let (mut first, mut second) = (shard(&a, "0/2"), shard(&b, "1/2"));
    assert!(first.wait().unwrap().success() && second.wait().unwrap().success());
    assert_eq!(rows(&a).len(), 1 + 4);
    sweep(&[&spec, "--out", one.to_str().unwrap()]);
    let said = sweep(&[
        "merge",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert!(said.contains("8 rows (4 of 4 cases)"), "{said}");
    // The merge writes the grid's order; one run writes each case as it finishes, in whatever
    // order its threads end (seen to differ under load): the same rows, compared as a set.
    let (mut merged_rows, mut one_rows) = (without_wall(&rows(&merged)), without_wall(&rows(&one)));
    merged_rows[1..].sort();
    one_rows[1..].sort();
    assert_eq!(merged_rows, one_rows);
    // One shard of two: merged, but a script is told by the exit status, unless it accepts it.
    let partial = scratch("partial");
    let (a_dir, partial_dir) = (a.to_str().unwrap(), partial.to_str().unwrap());
    let e = refused(&["merge", a_dir, "--out", partial_dir]);
    assert!(e.contains("2 of 4 cases are in no shard"), "{e}");
    assert_eq!(rows(&partial).len(), 1 + 4, "the partial merge is written");
    let said = sweep(&["merge", a_dir, "--out", partial_dir, "--allow-partial"]);
    assert!(said.contains("(2 of 4 cases; 2 not run yet)"), "{said}");
    // The quantiles' lines as a set, for the same reason as the rows'; the plots exactly.
    let sorted_lines = |dir: &Path| {
        let text = std::fs::read_to_string(dir.join("jct_quantiles.csv")).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        lines[1..].sort();
        lines
    };
    assert_eq!(sorted_lines(&merged), sorted_lines(&one));
    for file in ["plots/avg_jct.svg", "plots/jct_cdf-jobs_per_hour=4.svg"] {
        assert_eq!(
            std::fs::read_to_string(merged.join(file)).unwrap(),
            std::fs::read_to_string(one.join(file)).unwrap(),
            "{file}"
        );
    }
}

/// A sweep killed after some cases (its file holding finished cases and a torn line) finishes
/// the rest when run again, and keeps the finished rows as they were (their wall times too: not
/// run again).
#[test]
fn a_restarted_sweep_runs_only_the_cases_not_finished() {
    let out = scratch("resume");
    let dir = out.to_str().unwrap();
    sweep(&[&example(), "--out", dir]);
    let full = rows(&out);
    // As a kill leaves it: the first case's two rows, and half of the next row.
    let text = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let torn = format!(
        "{}\n{}\n{}\n{}",
        lines[0],
        lines[1],
        lines[2],
        &lines[3][..20]
    );
    std::fs::write(out.join("results.csv"), torn).unwrap();
    let said = sweep(&[&example(), "--out", dir]);
    assert!(said.contains("(1 already there)"), "{said}");
    let again = rows(&out);
    assert_eq!(again.len(), full.len());
    assert_eq!(again[1..3], full[1..3], "the finished case was run again");
    let mut sorted = without_wall(&again);
    let mut expected = without_wall(&full);
    sorted.sort();
    expected.sort();
    assert_eq!(sorted, expected);
}

#[test]
fn bad_specs_shards_and_folders_are_refused_with_located_messages() {
    let spec = |name: &str, text: &str| common::temp("sweep", name, text);
    let typo = spec(
        "typo.toml",
        "policy = [\"fifo\"]\nsynthetic = 10\nclustr = \"v100=1\"\n",
    );
    let e = refused(&[&typo, "--out", scratch("typo").to_str().unwrap()]);
    assert!(e.contains("typo.toml:3: clustr: unknown key"), "{e}");
    let policy = spec(
        "policy.toml",
        "synthetic = 10\npolicy = [\"fifo\", \"nope\"]\n",
    );
    let e = refused(&[&policy, "--out", scratch("policy").to_str().unwrap()]);
    assert!(
        e.contains("policy.toml:2: policy: unknown policy 'nope'"),
        "{e}"
    );
    let cluster = spec(
        "cluster.toml",
        "policy = \"fifo\"\nsynthetic = 10\ncluster = [\"v100=1\", \"v100=x\"]\n",
    );
    let e = refused(&[&cluster, "--out", scratch("cluster").to_str().unwrap()]);
    assert!(
        e.contains("cluster.toml:3: cluster:") && e.contains("v100=x"),
        "{e}"
    );
    let trace = spec(
        "trace.toml",
        "policy = \"fifo\"\ntrace = \"missing.trace\"\n",
    );
    let e = refused(&[&trace, "--out", scratch("trace").to_str().unwrap()]);
    assert!(e.contains("trace.toml:2: trace: no such file"), "{e}");
    let value = spec("value.toml", "policy = \"fifo\"\njobs_per_hour = \"abc\"\n");
    let e = refused(&[&value, "--out", scratch("value").to_str().unwrap()]);
    assert!(
        e.contains("value.toml:2: jobs_per_hour: invalid value 'abc'"),
        "{e}"
    );
    // None of these made its folder.
    assert!(!scratch("typo").exists());

    let out = scratch("guarded");
    let dir = out.to_str().unwrap();
    let e = refused(&[&example(), "--out", dir, "--shard", "2/2"]);
    assert!(e.contains("--shard 2/2: the index must be below"), "{e}");
    sweep(&[&example(), "--out", dir, "--shard", "0/2"]);
    let before = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let e = refused(&[&example(), "--out", dir, "--shard", "1/2"]);
    assert!(
        e.contains("holds shard 0/2's results, not shard 1/2's"),
        "{e}"
    );
    let other = spec(
        "other.toml",
        "policy = \"fifo\"\nsynthetic = 20\ncluster = \"v100=2\"\n",
    );
    let e = refused(&[&other, "--out", dir]);
    assert!(e.contains("holds the results of another spec"), "{e}");
    assert_eq!(
        std::fs::read_to_string(out.join("results.csv")).unwrap(),
        before
    );
    let elsewhere = scratch("other");
    sweep(&[&other, "--out", elsewhere.to_str().unwrap()]);
    let e = refused(&[
        "merge",
        dir,
        elsewhere.to_str().unwrap(),
        "--out",
        scratch("mixed").to_str().unwrap(),
    ]);
    assert!(e.contains("shards of different specs do not merge"), "{e}");
}

/// `within-tenant` is a spec key like any `simulate` flag: as an axis, each case's row says
/// what `simulate --within-tenant` says of the same run, and a value with no meaning for a
/// policy is refused before anything runs, naming the key.
#[test]
fn the_rule_inside_tenants_is_an_axis() {
    let spec = common::temp(
        "sweep",
        "within.toml",
        "policy = [\"oef-coop\"]\nsynthetic = 40\ntenants = 3\nshare-among = \"tenants\"\n\
         within-tenant = [\"fairness\", \"equal-time\"]\ncluster = \"v100=4,p100=4,k80=4\"\n",
    );
    let out = scratch("within");
    sweep(&[&spec, "--out", out.to_str().unwrap()]);
    let rows = rows(&out);
    assert_eq!(rows.len(), 1 + 2);
    let col = |name: &str| rows[0].iter().position(|c| c == name).unwrap();
    for rule in ["fairness", "equal-time"] {
        let row = rows
            .iter()
            .find(|r| r[col("within_tenant")] == rule)
            .unwrap_or_else(|| panic!("no row for {rule}: {rows:?}"));
        let alone = common::json(&[
            "simulate",
            "--synthetic",
            "40",
            "--tenants",
            "3",
            "--share-among",
            "tenants",
            "--within-tenant",
            rule,
            "--cluster",
            "v100=4,p100=4,k80=4",
            "--policy",
            "oef-coop",
            "--json",
        ]);
        let avg_h = alone["avg_jct_s"].as_f64().unwrap() / 3600.0;
        let swept: f64 = row[col("avg_jct_h")].parse().unwrap();
        assert!(
            (swept - avg_h).abs() < 1e-5,
            "{rule}: {swept} against {avg_h}"
        );
    }
    let bad = common::temp(
        "sweep",
        "within-bad.toml",
        "policy = [\"oef-coop\"]\nsynthetic = 40\nwithin-tenant = \"fifo\"\ncluster = \"v100=4\"\n",
    );
    let bad_out = scratch("within-bad");
    let err = refused(&[&bad, "--out", bad_out.to_str().unwrap()]);
    assert!(
        err.contains("--within-tenant fifo: oef-coop shares among jobs here"),
        "{err}"
    );
    assert!(!bad_out.exists(), "refused before anything was written");
}
