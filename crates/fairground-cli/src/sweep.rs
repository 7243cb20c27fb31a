//! `fairground sweep SPEC.toml --out DIR`: a grid of simulations from a spec file, on every
//! core, written as one tidy CSV row per (case, policy); `--shard I/N` runs one of N disjoint
//! slices (a batch system's array job), `fairground sweep merge` joins the slices.
//!
//! A spec's keys are `fairground simulate`'s flags (`jobs-per-hour`, `cluster`, `seed`, ...;
//! `jobs_per_hour` is read the same). A single value is fixed for every case; a list is an axis of
//! the grid, and the cases are every combination of the axes (keys in name order, the first one
//! slowest). `policy` (a name or a list) is not an axis: every case runs every policy on the same
//! workload. Paths (`trace`, `trace-tasks`, `throughputs`, `profiles`) are relative to the spec's
//! folder, or start with `$FAIRGROUND_SHARED/`: the test data's directory, wherever this machine
//! keeps it (`fairground_core::shared_data_dir`), so a spec over Gavel's files runs in any clone.
//!
//! The output folder holds `spec.toml` (the spec as run, with the engine's version, the spec's
//! hash and the shard) and `results.csv`. A case's rows are written together once all its
//! policies have run, so a sweep that is stopped and started again (a preempted array task) keeps
//! every finished case and runs only the others; a torn last line is dropped.

use crate::plots::{jct_quantiles, read_csv, write_plots};
use crate::simulate::{prepare, Prepared, SimulateArgs};
use clap::{Args, FromArgMatches};
use fairground_sim::metrics::SimResult;
use fairground_sim::{schedulers, simulate, SimConfig};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct SweepArgs {
    #[command(subcommand)]
    command: Option<SweepCommand>,
    /// The spec: a TOML file whose keys are `fairground simulate`'s flags, a list being an axis
    /// of the grid (docs/sweeps.md).
    spec: Option<PathBuf>,
    /// The folder for `results.csv` and `spec.toml` (made if missing; a folder holding this
    /// spec's results is resumed, one holding another spec's is refused).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Run only the I-th of N disjoint slices of the grid (0 <= I < N), e.g. a Slurm array
    /// task's `--shard $SLURM_ARRAY_TASK_ID/N`; join the slices with `fairground sweep merge`.
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
    /// Simulations at once (default: the machine's cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Check the spec and list its cases (this shard's, with `--shard`), running nothing: how
    /// many there are, to choose the number of shards of a batch job.
    #[arg(long, conflicts_with = "out")]
    list: bool,
}

#[derive(clap::Subcommand)]
enum SweepCommand {
    /// Join the folders of a sweep's shards into one (same spec; each row once).
    Merge {
        /// The shards' output folders.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// The merged folder.
        #[arg(long)]
        out: PathBuf,
        /// Exit 0 though some cases are in no shard yet (a shard missing or unfinished); without
        /// it the partial merge is still written, and the exit status is 1 so a script can tell.
        #[arg(long)]
        allow_partial: bool,
    },
}

pub fn run(a: SweepArgs) -> Result<(), String> {
    match a.command {
        Some(SweepCommand::Merge {
            dirs,
            out,
            allow_partial,
        }) => merge(&dirs, &out, allow_partial),
        None => {
            let spec = a
                .spec
                .ok_or("give the spec: fairground sweep SPEC.toml --out DIR")?;
            let shard = a.shard.as_deref().map(parse_shard).transpose()?;
            if a.list {
                return list(&spec, shard);
            }
            let out = a
                .out
                .ok_or("give the output folder: fairground sweep SPEC.toml --out DIR")?;
            let threads = a.threads.unwrap_or_else(|| {
                std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
            });
            if threads == 0 {
                return Err("--threads: give 1 or more".into());
            }
            sweep(&spec, &out, shard, threads)
        }
    }
}

/// `I/N` with 0 <= I < N.
fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let bad = || format!("--shard '{text}': give I/N with whole numbers 0 <= I < N, e.g. 0/4");
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if n == 0 || i >= n {
        return Err(format!(
            "--shard {text}: the index must be below the number of shards (0 to {})",
            n.saturating_sub(1)
        ));
    }
    Ok((i, n))
}

/// Flags a spec may not set: output options of `simulate` the sweep makes itself.
const NOT_IN_SPECS: [&str; 4] = ["json", "jobs-csv", "write-trace", "help"];
/// Keys whose values are paths, read relative to the spec's folder (see [`spec_path`]).
const PATH_KEYS: [&str; 4] = ["trace", "trace-tasks", "throughputs", "profiles"];

/// How a spec's path value starts when it lies in the test data's directory.
const DATA_DIR: &str = "$FAIRGROUND_SHARED/";

/// Where a spec's path `value` points: under the data directory for `$FAIRGROUND_SHARED/...`,
/// else relative to the spec's folder `dir`.
fn spec_path(dir: &Path, value: &str) -> PathBuf {
    match value.strip_prefix(DATA_DIR) {
        Some(rest) => Path::new(&fairground_core::shared_data_dir()).join(rest),
        None => dir.join(value),
    }
}

/// A parsed spec: the policies, the fixed flags and the axes.
#[derive(Debug)]
pub struct Spec {
    pub policies: Vec<String>,
    /// (flag, value) set for every case ("" for a switch such as `multi-gpu`).
    fixed: Vec<(String, String)>,
    /// (flag, values), in name order.
    pub axes: Vec<(String, Vec<String>)>,
    /// FNV-1a of the spec's canonical form (its keys sorted, values as read).
    pub hash: String,
    /// The spec's folder: relative paths in it are read from there.
    dir: Option<PathBuf>,
}

/// One combination of the axes' values.
#[derive(Debug, Clone)]
pub struct Case {
    pub index: usize,
    /// The axes' values, in the spec's axis order.
    pub values: Vec<String>,
    /// `key=value` of each axis, space-separated: the row key with the policy.
    pub key: String,
}

/// The line (from 1) where `key` is set in `text`, for located errors (0 if not found).
fn line_of(text: &str, key: &str) -> usize {
    let spellings = [key.to_string(), key.replace('-', "_")];
    text.lines()
        .position(|line| {
            let line = line.trim_start();
            spellings.iter().any(|k| {
                line.strip_prefix(k.as_str())
                    .or_else(|| {
                        line.strip_prefix('"')
                            .and_then(|l| l.strip_prefix(k.as_str()))
                            .and_then(|l| l.strip_prefix('"'))
                    })
                    .is_some_and(|rest| rest.trim_start().starts_with('='))
            })
        })
        .map_or(0, |i| i + 1)
}

/// `simulate`'s flags: long name and whether it takes a value.
fn simulate_flags() -> BTreeMap<String, bool> {
    let command = SimulateArgs::augment_args(clap::Command::new("simulate"));
    command
        .get_arguments()
        .filter_map(|arg| {
            let long = arg.get_long()?;
            Some((long.to_string(), arg.get_action().takes_values()))
        })
        .filter(|(long, _)| !NOT_IN_SPECS.contains(&long.as_str()))
        .collect()
}

fn fnv1a(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// A TOML value as a flag's text: strings as written, numbers in Rust's shortest form.
fn value_text(value: &toml::Value) -> Option<String> {
    match value {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Integer(i) => Some(i.to_string()),
        toml::Value::Float(f) => Some(f.to_string()),
        toml::Value::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

impl Spec {
    /// Parses and checks a spec (`file` names it in messages; `dir` resolves relative paths).
    /// Every error is located: file, line, key.
    pub fn parse(text: &str, file: &str, dir: &Path) -> Result<Spec, String> {
        Spec::parse_with(text, file, Some(dir))
    }

    /// The spec's grid without checking its values (a merge reads a spec run elsewhere).
    fn parse_unchecked(text: &str) -> Result<Spec, String> {
        Spec::parse_with(text, "spec.toml", None)
    }

    /// `dir`: None skips the checks that read files or run `simulate`'s parser.
    fn parse_with(text: &str, file: &str, dir: Option<&Path>) -> Result<Spec, String> {
        let table: toml::Table = toml::from_str(text).map_err(|e| {
            let line = e.span().map_or(0, |s| {
                text[..s.start.min(text.len())].lines().count().max(1)
            });
            let message = e.message().trim().replace('\n', "; ");
            format!("{file}:{line}: {message}")
        })?;
        let flags = simulate_flags();
        let at = |key: &str| format!("{file}:{}: {key}", line_of(text, key));
        let mut policies = Vec::new();
        let mut fixed = Vec::new();
        let mut axes = Vec::new();
        for (raw_key, value) in &table {
            let key = raw_key.replace('_', "-");
            let values: Vec<String> = match value {
                toml::Value::Array(items) => items
                    .iter()
                    .map(|v| {
                        value_text(v).ok_or_else(|| {
                            format!(
                                "{}: a list's items are strings, numbers or true/false",
                                at(raw_key)
                            )
                        })
                    })
                    .collect::<Result<_, _>>()?,
                other => vec![value_text(other).ok_or_else(|| {
                    format!(
                        "{}: give a value or a list of values (tables are not read)",
                        at(raw_key)
                    )
                })?],
            };
            if values.is_empty() {
                return Err(format!("{}: the list is empty", at(raw_key)));
            }
            if key == "policy" || key == "policies" {
                for name in values.iter().filter(|_| dir.is_some()) {
                    schedulers::by_name(name, &SimConfig::default()).map_err(|e| {
                        format!(
                            "{}: {e} (`fairground simulate --help` and docs/simulator.md list them)",
                            at(raw_key)
                        )
                    })?;
                }
                policies.extend(values);
                continue;
            }
            let Some(&takes_value) = flags.get(&key) else {
                let hint = if NOT_IN_SPECS.contains(&key.as_str()) {
                    " (the sweep writes its own output)".to_string()
                } else {
                    format!(
                        " (a spec's keys are `fairground simulate`'s flags: {})",
                        flags.keys().cloned().collect::<Vec<_>>().join(", ")
                    )
                };
                return Err(format!("{}: unknown key{hint}", at(raw_key)));
            };
            let mut values = values;
            let Some(dir) = dir else {
                if matches!(value, toml::Value::Array(_)) {
                    axes.push((key, values));
                } else {
                    fixed.push((key, values.remove(0)));
                }
                continue;
            };
            if PATH_KEYS.contains(&key.as_str()) {
                for v in &values {
                    let path = spec_path(dir, v);
                    if !path.is_file() {
                        return Err(format!("{}: no such file: {}", at(raw_key), path.display()));
                    }
                }
            }
            // Each value alone through simulate's own parser: its message, located here.
            for v in &values {
                let args =
                    flag_args(&key, v, takes_value).map_err(|e| format!("{}: {e}", at(raw_key)))?;
                parse_simulate(args).map_err(|e| format!("{}: {e}", at(raw_key)))?;
                if key == "cluster" {
                    fairground_sim::Cluster::parse(v)
                        .map_err(|e| format!("{}: {e}", at(raw_key)))?;
                }
            }
            if matches!(value, toml::Value::Array(_)) {
                axes.push((key, values));
            } else {
                fixed.push((key, values.remove(0)));
            }
        }
        if policies.is_empty() {
            return Err(format!(
                "{file}: name the policies every case runs: policy = [\"gavel-las\", ...]"
            ));
        }
        let canonical = toml::to_string(&table).map_err(|e| e.to_string())?;
        Ok(Spec {
            policies,
            fixed,
            axes,
            hash: fnv1a(&canonical),
            dir: dir.map(Path::to_path_buf),
        })
    }

    /// Every combination of the axes' values, the first axis slowest.
    pub fn cases(&self) -> Vec<Case> {
        let total: usize = self.axes.iter().map(|(_, v)| v.len()).product();
        (0..total)
            .map(|index| {
                let mut rest = index;
                let mut values = vec![String::new(); self.axes.len()];
                for (k, (_, options)) in self.axes.iter().enumerate().rev() {
                    values[k] = options[rest % options.len()].clone();
                    rest /= options.len();
                }
                let key = self
                    .axes
                    .iter()
                    .zip(&values)
                    .map(|((name, _), v)| format!("{name}={v}"))
                    .collect::<Vec<_>>()
                    .join(" ");
                Case { index, values, key }
            })
            .collect()
    }

    /// `simulate`'s arguments for a case.
    fn args(&self, case: &Case) -> Result<SimulateArgs, String> {
        let flags = simulate_flags();
        let mut args = Vec::new();
        let pairs = self
            .fixed
            .iter()
            .map(|(k, v)| (k, v))
            .chain(self.axes.iter().map(|(k, _)| k).zip(&case.values));
        for (key, value) in pairs {
            let value = match &self.dir {
                Some(dir) if PATH_KEYS.contains(&key.as_str()) => {
                    spec_path(dir, value).to_string_lossy().into_owned()
                }
                _ => value.clone(),
            };
            args.extend(flag_args(key, &value, flags[key.as_str()])?);
        }
        for p in &self.policies {
            args.extend(["--policy".to_string(), p.clone()]);
        }
        parse_simulate(args)
    }
}

/// `--key value`, or `--key` for a switch set to true (nothing when false).
fn flag_args(key: &str, value: &str, takes_value: bool) -> Result<Vec<String>, String> {
    if takes_value {
        return Ok(vec![format!("--{key}"), value.to_string()]);
    }
    match value {
        "true" => Ok(vec![format!("--{key}")]),
        "false" => Ok(Vec::new()),
        _ => Err(format!("is a switch: give true or false, not '{value}'")),
    }
}

/// The flags of `fairground simulate` (without the command name) read as the command reads them;
/// `--policy fifo` when none is given (a sweep, or a Python scheduler, names no policy).
pub fn parse_simulate(mut args: Vec<String>) -> Result<SimulateArgs, String> {
    if !args.iter().any(|a| a == "--policy") {
        args.extend(["--policy".into(), "fifo".into()]);
    }
    let command = SimulateArgs::augment_args(clap::Command::new("simulate").no_binary_name(true));
    let matches = command
        .try_get_matches_from(args)
        .map_err(|e| first_line(&e.to_string()))?;
    SimulateArgs::from_arg_matches(&matches).map_err(|e| first_line(&e.to_string()))
}

fn first_line(text: &str) -> String {
    text.lines()
        .next()
        .unwrap_or("")
        .trim_start_matches("error: ")
        .to_string()
}

/// The CSV's columns after the case's key and axes.
const METRICS: [&str; 17] = [
    "policy",
    "jobs",
    "jobs_done",
    "avg_jct_h",
    "median_jct_h",
    "p99_jct_h",
    "makespan_h",
    "utilisation",
    "avg_rho",
    "work_per_hour",
    "idle_gpu_h",
    "measured_avg_jct_h",
    "measured_p99_jct_h",
    "measured_done",
    "measured_last_finish_h",
    "last_arrival_h",
    "wall_s",
];

/// One result row's metric fields, in [`METRICS`] order. `policy` is the name as the spec gives
/// it (the scheduler may call itself more fully, `synergy-tune:fifo` for `synergy-tune`), so the
/// rows, the quantiles and a merge's order all use the user's name.
fn metric_fields(
    policy: &str,
    r: &SimResult,
    jobs: usize,
    gpus: &[f64],
    wall_s: f64,
) -> Vec<String> {
    let h = |s: f64| format!("{:.6}", s / 3600.0);
    let total: f64 = gpus.iter().sum();
    let utilisation: f64 = if total > 0.0 {
        r.utilization
            .iter()
            .zip(gpus)
            .map(|(u, g)| u * g)
            .sum::<f64>()
            / total
    } else {
        0.0
    };
    let measured = |f: fn(&fairground_sim::metrics::MeasuredJct) -> f64| {
        r.measured.as_ref().map_or(String::new(), |m| h(f(m)))
    };
    // When the measured window's last job finished, beside the workload's last arrival: a
    // window that finishes after arrivals stop was measured on a draining cluster.
    let measured_last_finish = r.measured.as_ref().map_or(String::new(), |m| {
        let last = r
            .jobs
            .iter()
            .filter(|o| (m.from_id..m.to_id).contains(&o.id))
            .filter_map(|o| o.finish_s)
            .fold(0.0, f64::max);
        h(last)
    });
    let last_arrival = r.jobs.iter().map(|o| o.arrival_s).fold(0.0, f64::max);
    vec![
        policy.to_string(),
        jobs.to_string(),
        r.jobs_completed.to_string(),
        h(r.avg_jct_s),
        h(r.median_jct_s),
        h(r.p99_jct_s),
        h(r.makespan_s),
        format!("{utilisation:.6}"),
        format!("{:.6}", r.avg_rho),
        format!("{:.6}", r.normalised_work_per_hour),
        format!("{:.6}", r.idle_while_waiting_gpu_h),
        measured(|m| m.avg_jct_s),
        measured(|m| m.p99_jct_s),
        r.measured
            .as_ref()
            .map_or(String::new(), |m| m.completed.to_string()),
        measured_last_finish,
        h(last_arrival),
        format!("{wall_s:.3}"),
    ]
}

fn header(spec: &Spec) -> Vec<String> {
    let mut h = vec!["case".to_string()];
    h.extend(spec.axes.iter().map(|(k, _)| k.replace('-', "_")));
    h.extend(METRICS.iter().map(|m| m.to_string()));
    h.push("spec".into());
    h
}

/// What `spec.toml`'s first lines say: the spec's hash and the shard.
struct Stamp {
    hash: String,
    shard: Option<(usize, usize)>,
}

fn stamp_text(spec: &Spec, source: &Path, shard: Option<(usize, usize)>, text: &str) -> String {
    let mut head = format!(
        "# fairground {} sweep of {}\n# spec-hash: {}\n",
        env!("CARGO_PKG_VERSION"),
        source.display(),
        spec.hash
    );
    if let Some((i, n)) = shard {
        head.push_str(&format!("# shard: {i}/{n}\n"));
    }
    head + text
}

/// A file's text, or `None` when there is no such file (a folder a sweep has not written yet).
fn read_if_there(path: &Path) -> Result<Option<String>, String> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// The complete lines of a file a killed run may have cut mid-line: up to its last newline.
fn complete_lines(text: &str) -> &str {
    text.rfind('\n').map_or("", |end| &text[..=end])
}

fn read_stamp(path: &Path) -> Result<Option<(Stamp, String)>, String> {
    let Some(text) = read_if_there(path)? else {
        return Ok(None);
    };
    let field = |name: &str| {
        text.lines()
            .take_while(|l| l.starts_with('#'))
            .find_map(|l| l.strip_prefix(&format!("# {name}: ")).map(str::to_string))
    };
    let hash = field("spec-hash")
        .ok_or_else(|| format!("{}: not a sweep's spec (no spec-hash line)", path.display()))?;
    let shard = field("shard").map(|s| parse_shard(&s)).transpose()?;
    let body = text
        .lines()
        .skip_while(|l| {
            l.starts_with("# fairground ")
                || l.starts_with("# spec-hash")
                || l.starts_with("# shard")
        })
        .map(|l| format!("{l}\n"))
        .collect();
    Ok(Some((Stamp { hash, shard }, body)))
}

/// `jct_quantiles.csv`'s columns.
const QUANTILE_HEADER: [&str; 4] = ["case", "policy", "quantile", "jct_h"];

/// The rows of `jct_quantiles.csv` (complete lines) of the cases in `done`.
fn kept_quantile_rows(path: &Path, done: &HashSet<String>) -> Result<Vec<Vec<String>>, String> {
    let Some(text) = read_if_there(path)? else {
        return Ok(Vec::new());
    };
    let complete = complete_lines(&text);
    let mut reader = csv::ReaderBuilder::new().from_reader(complete.as_bytes());
    let mut rows = Vec::new();
    for row in reader.records() {
        let row = row.map_err(|e| format!("{}: {e}", path.display()))?;
        if done.contains(&row[0]) {
            rows.push(row.iter().map(str::to_string).collect());
        }
    }
    Ok(rows)
}

/// Rows already in `results.csv` (complete lines only), by case key, with every policy's row.
fn finished_rows(path: &Path, spec: &Spec) -> Result<(Vec<Vec<String>>, HashSet<String>), String> {
    let Some(text) = read_if_there(path)? else {
        return Ok((Vec::new(), HashSet::new()));
    };
    let complete = complete_lines(&text);
    let mut reader = csv::ReaderBuilder::new().from_reader(complete.as_bytes());
    let expected = header(spec);
    let head: Vec<String> = reader
        .headers()
        .map_err(|e| format!("{}: {e}", path.display()))?
        .iter()
        .map(str::to_string)
        .collect();
    if !complete.is_empty() && head != expected {
        return Err(format!(
            "{}: its columns are not this spec's; give another --out folder",
            path.display()
        ));
    }
    let mut by_case: BTreeMap<String, Vec<Vec<String>>> = BTreeMap::new();
    for row in reader.records() {
        let row = row.map_err(|e| format!("{}: {e}", path.display()))?;
        let row: Vec<String> = row.iter().map(str::to_string).collect();
        by_case.entry(row[0].clone()).or_default().push(row);
    }
    let mut rows = Vec::new();
    let mut done = HashSet::new();
    for (case, case_rows) in by_case {
        let policies: HashSet<&str> = case_rows
            .iter()
            .map(|r| r[1 + spec.axes.len()].as_str())
            .collect();
        if spec.policies.iter().all(|p| policies.contains(p.as_str())) {
            done.insert(case);
            rows.extend(case_rows);
        }
    }
    Ok((rows, done))
}

fn csv_line(fields: &[String]) -> Result<Vec<u8>, String> {
    let mut w = csv::WriterBuilder::new().from_writer(Vec::new());
    w.write_record(fields).map_err(|e| e.to_string())?;
    w.into_inner().map_err(|e| e.to_string())
}

/// Writes `path` as a CSV file of `header` and `rows`, replacing what it held.
fn write_csv(path: &Path, header: &[String], rows: &[Vec<String>]) -> Result<(), String> {
    let mut text = csv_line(header)?;
    for row in rows {
        text.extend(csv_line(row)?);
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// `jct_quantiles.csv`'s columns, as a header row.
fn quantile_header() -> Vec<String> {
    QUANTILE_HEADER.map(String::from).to_vec()
}

/// Whether `case` is this shard's (every case is, without shards).
fn in_shard(shard: Option<(usize, usize)>, case: &Case) -> bool {
    shard.is_none_or(|(i, n)| case.index % n == i)
}

/// The first failure of a run's threads is kept (the others stop at their next task).
fn record_failure(failure: &Mutex<Option<String>>, why: String) {
    if let Ok(mut f) = failure.lock() {
        f.get_or_insert(why);
    }
}

/// The spec read and every case's arguments checked, as before a run.
fn checked_spec(spec_path: &Path) -> Result<(Spec, String, Vec<Case>, Vec<SimulateArgs>), String> {
    let text =
        std::fs::read_to_string(spec_path).map_err(|e| format!("{}: {e}", spec_path.display()))?;
    let dir = spec_path.parent().unwrap_or(Path::new("."));
    let spec = Spec::parse(&text, &spec_path.display().to_string(), dir)?;
    let cases = spec.cases();
    let args: Vec<SimulateArgs> = cases
        .iter()
        .map(|c| {
            spec.args(c)
                .and_then(|a| crate::simulate::check_within_tenant(&a).map(|()| a))
                .map_err(|e| format!("case {}: {e}", c.key))
        })
        .collect::<Result<_, _>>()?;
    Ok((spec, text, cases, args))
}

/// `--list`: the spec checked, its cases (this shard's) printed one a line, nothing run.
fn list(spec_path: &Path, shard: Option<(usize, usize)>) -> Result<(), String> {
    let (spec, _, cases, _) = checked_spec(spec_path)?;
    let mine: Vec<&Case> = cases.iter().filter(|c| in_shard(shard, c)).collect();
    for c in &mine {
        println!(
            "{}",
            if c.key.is_empty() {
                "(one case)"
            } else {
                &c.key
            }
        );
    }
    let of = shard.map_or(String::new(), |(i, n)| {
        format!(" (shard {i}/{n} of {} cases)", cases.len())
    });
    eprintln!(
        "{}: {} case(s) x {} polic{} ({}){of}; spec checked, nothing run",
        spec_path.display(),
        mine.len(),
        spec.policies.len(),
        if spec.policies.len() == 1 { "y" } else { "ies" },
        spec.policies.join(", ")
    );
    Ok(())
}

/// Runs the spec's cases (this shard's), writing each finished case's rows at once.
fn sweep(
    spec_path: &Path,
    out: &Path,
    shard: Option<(usize, usize)>,
    threads: usize,
) -> Result<(), String> {
    // Each case's arguments before anything runs.
    let (spec, text, cases, args) = checked_spec(spec_path)?;
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let stamp_path = out.join("spec.toml");
    let results_path = out.join("results.csv");
    let quantiles_path = out.join("jct_quantiles.csv");
    check_out_folder(out, &spec, shard)?;
    let (kept, done) = finished_rows(&results_path, &spec)?;
    let kept_quantiles = kept_quantile_rows(&quantiles_path, &done)?;
    std::fs::write(&stamp_path, stamp_text(&spec, spec_path, shard, &text))
        .map_err(|e| format!("{}: {e}", stamp_path.display()))?;
    // The files again from their finished cases (a torn line or a half-written case goes).
    write_csv(&results_path, &header(&spec), &kept)?;
    write_csv(&quantiles_path, &quantile_header(), &kept_quantiles)?;

    let ours: Vec<&Case> = cases.iter().filter(|c| in_shard(shard, c)).collect();
    let mine: Vec<usize> = ours
        .iter()
        .filter(|c| !done.contains(&c.key))
        .map(|c| c.index)
        .collect();
    let skipped = ours.len() - mine.len();
    let started = Instant::now();
    let run = Run::new(&spec, &cases, &args, &mine, &results_path, &quantiles_path)?;
    run.all(threads);
    if let Some(e) = run.failure.into_inner().ok().flatten() {
        return Err(format!(
            "{e}\n(the {} finished cases are kept in {}; run the sweep again to resume)",
            run.cases_done.load(Ordering::Relaxed) + done.len(),
            results_path.display()
        ));
    }
    let plots = write_plots(out)?;
    let resumed = if skipped > 0 {
        format!(" ({skipped} already there)")
    } else {
        String::new()
    };
    println!(
        "sweep: {} cases x {} policies{} in {:.1} s{resumed}: {}",
        mine.len() + skipped,
        spec.policies.len(),
        shard.map_or(String::new(), |(i, n)| format!(
            " (shard {i}/{n} of {} cases)",
            cases.len()
        )),
        started.elapsed().as_secs_f64(),
        results_path.display()
    );
    println!("plots: {} in {}", plots.len(), out.join("plots").display());
    Ok(())
}

/// Refuses an `--out` folder that holds another spec's or another shard's results, or results
/// with no stamp saying whose they are.
fn check_out_folder(out: &Path, spec: &Spec, shard: Option<(usize, usize)>) -> Result<(), String> {
    let Some((stamp, _)) = read_stamp(&out.join("spec.toml"))? else {
        if out.join("results.csv").exists() {
            return Err(format!(
                "{} has a results.csv but no spec.toml: not this sweep's; give another --out \
                 folder",
                out.display()
            ));
        }
        return Ok(());
    };
    if stamp.hash != spec.hash {
        return Err(format!(
            "{} holds the results of another spec (hash {}, this one {}); give another --out \
             folder",
            out.display(),
            stamp.hash,
            spec.hash
        ));
    }
    if stamp.shard != shard {
        let name = |s: Option<(usize, usize)>| {
            s.map_or("the whole grid".to_string(), |(i, n)| {
                format!("shard {i}/{n}")
            })
        };
        return Err(format!(
            "{} holds {}'s results, not {}'s; give each shard its own --out folder",
            out.display(),
            name(stamp.shard),
            name(shard)
        ));
    }
    Ok(())
}

/// A sweep's run of its cases' (case, policy) tasks on threads: what the threads share.
struct Run<'a> {
    spec: &'a Spec,
    cases: &'a [Case],
    args: &'a [SimulateArgs],
    /// The cases to run, by index.
    mine: &'a [usize],
    tasks: Vec<(usize, usize)>,
    states: HashMap<usize, Mutex<CaseState>>,
    results: Mutex<std::fs::File>,
    results_path: &'a Path,
    quantiles: Mutex<std::fs::File>,
    quantiles_path: &'a Path,
    next: AtomicUsize,
    cases_done: AtomicUsize,
    running: AtomicUsize,
    failure: Mutex<Option<String>>,
    started: Instant,
    show_progress: bool,
}

impl<'a> Run<'a> {
    fn new(
        spec: &'a Spec,
        cases: &'a [Case],
        args: &'a [SimulateArgs],
        mine: &'a [usize],
        results_path: &'a Path,
        quantiles_path: &'a Path,
    ) -> Result<Run<'a>, String> {
        let policies = spec.policies.len();
        let append = |path: &Path| {
            std::fs::OpenOptions::new()
                .append(true)
                .open(path)
                .map(Mutex::new)
                .map_err(|e| format!("{}: {e}", path.display()))
        };
        Ok(Run {
            spec,
            cases,
            args,
            mine,
            tasks: mine
                .iter()
                .flat_map(|&c| (0..policies).map(move |p| (c, p)))
                .collect(),
            states: mine
                .iter()
                .map(|&c| {
                    let state = CaseState {
                        prepared: None,
                        rows: vec![None; policies],
                        left: policies,
                    };
                    (c, Mutex::new(state))
                })
                .collect(),
            results: append(results_path)?,
            results_path,
            quantiles: append(quantiles_path)?,
            quantiles_path,
            next: AtomicUsize::new(0),
            cases_done: AtomicUsize::new(0),
            running: AtomicUsize::new(0),
            failure: Mutex::new(None),
            started: Instant::now(),
            show_progress: std::io::stderr().is_terminal(),
        })
    }

    /// Every task, on up to `threads` threads; the first failure stops them.
    fn all(&self, threads: usize) {
        std::thread::scope(|scope| {
            for _ in 0..threads.min(self.tasks.len()) {
                scope.spawn(|| self.work());
            }
        });
        if self.show_progress {
            eprintln!();
        }
    }

    /// One thread: takes the next task until none is left or one has failed.
    fn work(&self) {
        loop {
            if self.failure.lock().map_or(true, |f| f.is_some()) {
                return;
            }
            let k = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(&(c, p)) = self.tasks.get(k) else {
                return;
            };
            self.running.fetch_add(1, Ordering::Relaxed);
            self.progress();
            let outcome = run_task(
                self.spec,
                &self.cases[c],
                &self.args[c],
                &self.states[&c],
                p,
            );
            self.running.fetch_sub(1, Ordering::Relaxed);
            let written = match outcome {
                Ok(Some(finished)) => self.write_case(&finished),
                Ok(None) => Ok(()),
                Err(e) => Err(format!("case {}: {e}", self.cases[c].key)),
            };
            if let Err(e) = written {
                record_failure(&self.failure, e);
                return;
            }
        }
    }

    /// A finished case's rows, appended: its quantiles first, since its results rows are the
    /// mark that it is done.
    fn write_case(&self, finished: &[Finished]) -> Result<(), String> {
        let lines = |rows: &mut dyn Iterator<Item = &Vec<String>>| {
            rows.map(|r| csv_line(r)).collect::<Result<Vec<_>, _>>()
        };
        let quantiles = lines(&mut finished.iter().flat_map(|f| &f.1))?.concat();
        let results = lines(&mut finished.iter().map(|f| &f.0))?.concat();
        append_to(&self.quantiles, self.quantiles_path, &quantiles)?;
        append_to(&self.results, self.results_path, &results)?;
        self.cases_done.fetch_add(1, Ordering::Relaxed);
        self.progress();
        Ok(())
    }

    /// Cases done and running, and about how long is left, on a terminal.
    fn progress(&self) {
        if !self.show_progress {
            return;
        }
        let done = self.cases_done.load(Ordering::Relaxed);
        let left = self.mine.len() - done;
        let eta = if done > 0 {
            let s = self.started.elapsed().as_secs_f64() / done as f64 * left as f64;
            format!(", about {} left", duration_text(s))
        } else {
            String::new()
        };
        eprint!(
            "\rsweep: {done}/{} cases done, {} simulations running{eta}   ",
            self.mine.len(),
            self.running.load(Ordering::Relaxed)
        );
    }
}

/// Appends `bytes` to a file the threads share, flushed.
fn append_to(file: &Mutex<std::fs::File>, path: &Path, bytes: &[u8]) -> Result<(), String> {
    let mut f = file.lock().map_err(|_| "a writer panicked".to_string())?;
    f.write_all(bytes)
        .and_then(|()| f.flush())
        .map_err(|e| format!("{}: {e}", path.display()))
}

fn duration_text(s: f64) -> String {
    if s < 90.0 {
        format!("{s:.0} s")
    } else if s < 5400.0 {
        format!("{:.0} min", s / 60.0)
    } else {
        format!("{:.1} h", s / 3600.0)
    }
}

/// Runs policy `p` of a case (its workload made by the first of its tasks); the case's rows
/// once its last policy is done.
fn run_task(
    spec: &Spec,
    case: &Case,
    args: &SimulateArgs,
    state: &Mutex<CaseState>,
    p: usize,
) -> Result<Option<Vec<Finished>>, String> {
    let prepared = {
        let mut s = state.lock().map_err(|_| "a case's lock was poisoned")?;
        s.prepared(args)?
    };
    let name = &spec.policies[p];
    let mut scheduler = schedulers::by_name(name, &prepared.config).map_err(|e| e.to_string())?;
    let started = Instant::now();
    let result = simulate(
        &prepared.cluster,
        &prepared.jobs,
        scheduler.as_mut(),
        &prepared.config,
        &mut |_, _| {},
    )
    .map_err(|e| format!("{name}: {e}"))?;
    let wall = started.elapsed().as_secs_f64();
    let gpus: Vec<f64> = prepared
        .cluster
        .types
        .iter()
        .enumerate()
        .map(|(j, _)| {
            prepared
                .cluster
                .servers
                .iter()
                .filter(|s| s.gpu_type == j)
                .map(|s| s.gpus as f64)
                .sum()
        })
        .collect();
    let mut row = vec![case.key.clone()];
    row.extend(case.values.iter().cloned());
    row.extend(metric_fields(
        name,
        &result,
        prepared.jobs.len(),
        &gpus,
        wall,
    ));
    row.push(spec.hash.clone());
    let jcts: Vec<f64> = result
        .jobs
        .iter()
        .filter_map(|j| j.jct_s)
        .map(|s| s / 3600.0)
        .collect();
    let quantiles = jct_quantiles(&jcts)
        .into_iter()
        .map(|(q, jct)| {
            vec![
                case.key.clone(),
                name.clone(),
                format!("{q:.2}"),
                format!("{jct:.6}"),
            ]
        })
        .collect();
    let mut s = state.lock().map_err(|_| "a case's lock was poisoned")?;
    Ok(s.finish(p, (row, quantiles)))
}

/// A case's shared state: its workload (made by its first task, dropped when its last policy is
/// done) and its rows.
struct CaseState {
    prepared: Option<Arc<Prepared>>,
    /// Per policy: its results row and its JCT quantile rows.
    rows: Vec<Option<Finished>>,
    left: usize,
}

/// A (case, policy)'s results row and its `jct_quantiles.csv` rows.
type Finished = (Vec<String>, Vec<Vec<String>>);

impl CaseState {
    fn prepared(&mut self, args: &SimulateArgs) -> Result<Arc<Prepared>, String> {
        if self.prepared.is_none() {
            self.prepared = Some(Arc::new(prepare(args)?));
        }
        Ok(self.prepared.clone().expect("made above"))
    }

    /// Policy p's row; all the case's rows (in the spec's policy order) once every one is in.
    fn finish(&mut self, p: usize, row: Finished) -> Option<Vec<Finished>> {
        self.rows[p] = Some(row);
        self.left -= 1;
        if self.left > 0 {
            return None;
        }
        self.prepared = None;
        Some(self.rows.iter_mut().filter_map(Option::take).collect())
    }
}

/// Joins shards' folders: one spec (by hash), each (case, policy) once, rows in grid order.
fn merge(dirs: &[PathBuf], out: &Path, allow_partial: bool) -> Result<(), String> {
    let Shards {
        hash,
        body,
        header: header_row,
        mut rows,
    } = read_shards(dirs)?;
    let policy_col = header_row
        .iter()
        .position(|c| c == "policy")
        .ok_or("results.csv has no policy column")?;
    let mut seen = HashSet::new();
    for row in &rows {
        if !seen.insert((row[0].clone(), row[policy_col].clone())) {
            return Err(format!(
                "case '{}' under {} is in more than one shard: merge each shard once",
                row[0], row[policy_col]
            ));
        }
    }
    // Grid order, from the spec itself (its paths need not exist here).
    let spec = Spec::parse_unchecked(&body)?;
    let order = GridOrder::of(&spec);
    order.sort(&mut rows, policy_col);
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    if let Some((stamp, _)) = read_stamp(&out.join("spec.toml"))? {
        if stamp.hash != hash || stamp.shard.is_some() {
            return Err(format!(
                "{} holds another sweep's results; give another --out folder",
                out.display()
            ));
        }
    }
    let head = format!(
        "# fairground {} sweep, merged from {} shards\n# spec-hash: {hash}\n",
        env!("CARGO_PKG_VERSION"),
        dirs.len()
    );
    std::fs::write(out.join("spec.toml"), head + &body)
        .map_err(|e| format!("{}: {e}", out.display()))?;
    write_csv(&out.join("results.csv"), &header_row, &rows)?;
    let cases: HashSet<String> = rows.iter().map(|r| r[0].clone()).collect();
    let mut quantiles = Vec::new();
    for dir in dirs {
        let path = dir.join("jct_quantiles.csv");
        if path.exists() {
            quantiles.extend(kept_quantile_rows(&path, &cases)?);
        }
    }
    order.sort(&mut quantiles, 1);
    write_csv(
        &out.join("jct_quantiles.csv"),
        &quantile_header(),
        &quantiles,
    )?;
    let plots = write_plots(out)?;
    let all = order.cases.len();
    let missing = all - cases.len().min(all);
    println!(
        "merged {} rows ({} of {all} cases{}) into {}",
        rows.len(),
        cases.len(),
        if missing > 0 {
            format!("; {missing} not run yet")
        } else {
            String::new()
        },
        out.join("results.csv").display()
    );
    println!("plots: {} in {}", plots.len(), out.join("plots").display());
    if missing > 0 && !allow_partial {
        return Err(format!(
            "{missing} of {all} cases are in no shard (a shard missing or unfinished; the partial \
             merge is written): run the missing shards (the same command resumes an unfinished \
             one) and merge again, or pass --allow-partial to accept it"
        ));
    }
    Ok(())
}

/// What the shards' folders hold together: their one spec (hash and text), their results'
/// columns, and every row.
struct Shards {
    hash: String,
    body: String,
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

/// Reads each shard's folder, refusing shards of different specs or columns.
fn read_shards(dirs: &[PathBuf]) -> Result<Shards, String> {
    let mut spec_body: Option<(String, String)> = None;
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut header_row: Option<Vec<String>> = None;
    for dir in dirs {
        let stamp_path = dir.join("spec.toml");
        let (stamp, body) = read_stamp(&stamp_path)?
            .ok_or_else(|| format!("{}: no spec.toml: not a sweep's folder", dir.display()))?;
        match &spec_body {
            None => spec_body = Some((stamp.hash.clone(), body)),
            Some((hash, _)) if *hash != stamp.hash => {
                return Err(format!(
                    "{} is another spec's sweep (hash {}, {} has {}): shards of different specs \
                     do not merge",
                    dir.display(),
                    stamp.hash,
                    dirs[0].display(),
                    hash
                ))
            }
            Some(_) => {}
        }
        let path = dir.join("results.csv");
        let (head, shard_rows) = read_csv(&path)?;
        match &header_row {
            None => header_row = Some(head),
            Some(h) if *h != head => {
                return Err(format!(
                    "{}: its columns differ from {}'s",
                    path.display(),
                    dirs[0].display()
                ))
            }
            Some(_) => {}
        }
        rows.extend(shard_rows);
    }
    let (hash, body) = spec_body.ok_or("give the shards' folders")?;
    Ok(Shards {
        hash,
        body,
        header: header_row.unwrap_or_default(),
        rows,
    })
}

/// A spec's grid order: each case's place, and each policy's.
struct GridOrder {
    cases: HashMap<String, usize>,
    policies: HashMap<String, usize>,
}

impl GridOrder {
    fn of(spec: &Spec) -> GridOrder {
        GridOrder {
            cases: spec.cases().into_iter().map(|c| (c.key, c.index)).collect(),
            policies: spec
                .policies
                .iter()
                .enumerate()
                .map(|(k, p)| (p.clone(), k))
                .collect(),
        }
    }

    /// Rows keyed by case (first column) and policy (column `policy_col`), in grid order;
    /// anything the spec lacks last.
    fn sort(&self, rows: &mut [Vec<String>], policy_col: usize) {
        rows.sort_by_key(|r| {
            (
                self.cases.get(&r[0]).copied().unwrap_or(usize::MAX),
                self.policies
                    .get(&r[policy_col])
                    .copied()
                    .unwrap_or(usize::MAX),
            )
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_path_is_the_spec_folder_s_or_the_data_directory_s() {
        let dir = Path::new("/specs");
        assert_eq!(
            spec_path(dir, "traces/a.trace"),
            Path::new("/specs/traces/a.trace")
        );
        assert_eq!(
            spec_path(dir, "$FAIRGROUND_SHARED/data/gavel/x.json"),
            Path::new(&fairground_core::shared_data_dir()).join("data/gavel/x.json")
        );
    }
}
