//! Hadar (Sultana et al., IPDPS 2024) and HadarE (arXiv 2503.10918) against gavel-las and
//! gavel-min-makespan (Gavel's policy for total time), with the strict template beside them, on
//! Gavel's sample traces and synthetic workload with Gavel's measured throughputs, on 4+4+4 and
//! 12+12+12 clusters, under both mixed-type rules; where gavel-las cannot run some jobs, again
//! without those jobs, so every policy does the same work.

use super::{gavel_data, Cli, Row, Section};
use serde_json::Value;

const POLICIES: [&str; 5] = [
    "gavel-las",
    "gavel-min-makespan",
    "hadar",
    "hadar:strict",
    "hadare",
];
/// Their places in POLICIES.
const LAS: usize = 0;
const MIN_MAKESPAN: usize = 1;
const HADAR: usize = 2;
const STRICT: usize = 3;
const HADARE: usize = 4;
const RULES: [&str; 2] = ["slowest", "sum"];

struct Workload {
    label: &'static str,
    cluster: &'static str,
    /// The workload's flags (a trace from the test data's directory, or the synthetic generator's).
    flags: Vec<String>,
}

fn workloads() -> Vec<Workload> {
    let trace = |name: &str| {
        vec![
            "--trace".into(),
            gavel_data(&format!("traces/{name}.trace")),
        ]
    };
    let synthetic = |jobs: usize, per_hour: f64| {
        vec![
            "--synthetic".into(),
            jobs.to_string(),
            "--jobs-per-hour".into(),
            per_hour.to_string(),
            "--seed".into(),
            "0".into(),
        ]
    };
    vec![
        Workload {
            label: "Gavel's minimize_makespan trace (100 jobs), 4+4+4",
            cluster: "v100=4,p100=4,k80=4",
            flags: trace("minimize_makespan"),
        },
        Workload {
            label: "Gavel's max_min_fairness trace (96 jobs), 4+4+4",
            cluster: "v100=4,p100=4,k80=4",
            flags: trace("max_min_fairness"),
        },
        Workload {
            label: "synthetic, 300 jobs at 1 job/h, 4+4+4",
            cluster: "v100=4,p100=4,k80=4",
            flags: synthetic(300, 1.0),
        },
        Workload {
            label: "synthetic, 1,000 jobs at 3 jobs/h, 12+12+12",
            cluster: "v100=12,p100=12,k80=12",
            flags: synthetic(1000, 3.0),
        },
    ]
}

fn args(w: &Workload, rule: &str) -> Vec<String> {
    args_with(&w.flags, w.cluster, rule)
}

fn args_with(flags: &[String], cluster: &str, rule: &str) -> Vec<String> {
    let mut a: Vec<String> = vec!["simulate".into()];
    a.extend(flags.iter().cloned());
    a.extend(
        [
            "--cluster",
            cluster,
            "--throughputs",
            &gavel_data("simulation_throughputs.json"),
            "--mixed-rate",
            rule,
        ]
        .map(String::from),
    );
    for p in POLICIES {
        a.push("--policy".into());
        a.push(p.into());
    }
    a
}

fn shown(w: &Workload, rule: &str) -> String {
    super::shown(&args(w, rule))
}

/// One policy's figures on one run.
struct Figures {
    /// Total time: the last finish less the first arrival.
    total_h: f64,
    avg_jct_h: f64,
    avg_rho: f64,
    utilization: f64,
    by_type: Vec<f64>,
    idle_waiting_h: f64,
    /// The last finish less the finish of the job `gpus` from the end: how long the run's last
    /// jobs, as many as the cluster has GPUs, took to finish.
    tail_h: f64,
    unschedulable: Vec<u64>,
    notes: Vec<String>,
}

fn figures(r: &Value, gpus: usize) -> Result<Figures, String> {
    let num = |k: &str| r[k].as_f64().ok_or_else(|| format!("no {k} in the result"));
    let util: Vec<f64> = r["utilization"]
        .as_array()
        .ok_or("no utilization in the result")?
        .iter()
        .filter_map(Value::as_f64)
        .collect();
    let first_arrival = r["jobs"]
        .as_array()
        .ok_or("no per-job outcomes in the result")?
        .iter()
        .filter_map(|j| j["arrival_s"].as_f64())
        .fold(f64::INFINITY, f64::min);
    let mut finishes: Vec<f64> = r["jobs"]
        .as_array()
        .ok_or("no per-job outcomes in the result")?
        .iter()
        .filter_map(|j| j["finish_s"].as_f64())
        .collect();
    finishes.sort_by(f64::total_cmp);
    let tail_h = match finishes.len().checked_sub(gpus + 1) {
        Some(k) => (finishes[finishes.len() - 1] - finishes[k]) / 3600.0,
        None => f64::NAN,
    };
    Ok(Figures {
        tail_h,
        total_h: (num("makespan_s")? - first_arrival.min(num("makespan_s")?)) / 3600.0,
        avg_jct_h: num("avg_jct_s")? / 3600.0,
        avg_rho: num("avg_rho")?,
        // The clusters here have as many GPUs of each type: the plain mean is the cluster's.
        utilization: util.iter().sum::<f64>() / util.len().max(1) as f64,
        by_type: util,
        idle_waiting_h: num("idle_while_waiting_gpu_h")?,
        unschedulable: r["jobs_unschedulable"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_u64).collect())
            .unwrap_or_default(),
        notes: r["notes"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|n| n.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default(),
    })
}

/// All five policies under both rules on one workload: runs[rule][policy].
fn run_both(cli: &Cli, flags: &[String], cluster: &str) -> Result<Vec<Vec<Figures>>, String> {
    // GPUs in the cluster: the counts of "v100=4,p100=4,k80=4".
    let gpus: usize = cluster
        .split(',')
        .filter_map(|t| t.split_once('=').and_then(|(_, n)| n.parse::<usize>().ok()))
        .sum();
    RULES
        .iter()
        .map(|rule| {
            let out = cli.json(&args_with(flags, cluster, rule))?;
            out.as_array()
                .ok_or("expected one result per policy")?
                .iter()
                .map(|r| figures(r, gpus))
                .collect::<Result<Vec<_>, _>>()
        })
        .collect()
}

/// The workload written as a Gavel trace without the jobs `drop` (their ids), in
/// target/reproduce-hadar/.
fn without(cli: &Cli, w: &Workload, drop: &[u64], tag: usize) -> Result<Vec<String>, String> {
    let dir = crate::project_root().join("target").join("reproduce-hadar");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let all = dir.join(format!("workload{tag}.trace"));
    let mut a = args_with(&w.flags, w.cluster, "slowest");
    a.truncate(a.len() - 2 * POLICIES.len());
    a.extend([
        "--policy".into(),
        "fifo".into(),
        "--write-trace".into(),
        all.display().to_string(),
    ]);
    cli.json(&a)?;
    let text = std::fs::read_to_string(&all).map_err(|e| format!("{}: {e}", all.display()))?;
    let kept: Vec<&str> = text
        .lines()
        .enumerate()
        .filter(|(i, _)| !drop.contains(&(*i as u64)))
        .map(|(_, l)| l)
        .collect();
    let path = dir.join(format!("workload{tag}-runnable-by-gavel.trace"));
    std::fs::write(&path, kept.join("\n") + "\n")
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(vec!["--trace".into(), path.display().to_string()])
}

pub fn section(cli: &Cli) -> Result<Section, String> {
    let loads = workloads();
    // runs[w][rule][policy], and the same without the jobs gavel-las cannot run (where any).
    let mut runs: Vec<Vec<Vec<Figures>>> = Vec::new();
    let mut same_work: Vec<SameWork> = Vec::new();
    for (k, w) in loads.iter().enumerate() {
        let by_rule = run_both(cli, &w.flags, w.cluster)?;
        let drop = by_rule[0][LAS].unschedulable.clone();
        same_work.push(if drop.is_empty() {
            None
        } else {
            let flags = without(cli, w, &drop, k)?;
            Some((drop.len(), run_both(cli, &flags, w.cluster)?))
        });
        runs.push(by_rule);
    }
    // Per workload, the like-for-like runs: without the jobs gavel-las cannot run where there
    // are any, else the full workload.
    let like: Vec<&Vec<Vec<Figures>>> = runs
        .iter()
        .zip(&same_work)
        .map(|(all, same)| same.as_ref().map_or(all, |(_, s)| s))
        .collect();
    let rows = claim_rows(&loads, &like);
    let after = tables(&loads, &runs, &same_work);
    Ok(Section {
        title: "Hadar and HadarE (Sultana et al., IPDPS 2024; arXiv 2503.10918)".into(),
        made_by: "code, `xtask/src/reproduce/hadar.rs`: each workload has its own cluster \
                  (a list of cases, not a grid), the policies run again on the jobs every one \
                  of them can run, and the last-jobs and placement figures come from each run's \
                  jobs and notes, which a sweep's results.csv does not carry."
            .into(),
        rows,
        after,
    })
}

/// A workload's runs again without the jobs gavel-las cannot run: how many were dropped, and the
/// figures [rule][policy]; none when gavel-las runs them all.
type SameWork = Option<(usize, Vec<Vec<Figures>>)>;

/// The claims' rows: each published claim against our ratio on every workload, like for like.
fn claim_rows(loads: &[Workload], like: &[&Vec<Vec<Figures>>]) -> Vec<Row> {
    let ratios = |f: &dyn Fn(&[Figures]) -> f64| {
        loads
            .iter()
            .zip(like)
            .map(|(w, by_rule)| {
                format!(
                    "{}: {:.2}x (slowest), {:.2}x (sum)",
                    w.label,
                    f(&by_rule[0]),
                    f(&by_rule[1])
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    let conditions =
        "Gavel's measured throughputs (simulation_throughputs.json); rounds of 360 s; \
                      servers of 8 GPUs; HadarE's sync overhead 10 s a round; gavel-las \
                      recomputed every 1,920 s as Gavel; hadar plans 20 slots ahead, shortest \
                      remaining time first, GPUs the prices leave idle backfilled (docs/simulator.md); the \
                      same jobs for every policy (on 4+4+4, the jobs gavel-las cannot run left \
                      out); total time = last finish - first arrival"
            .to_string();
    let rows = vec![
        Row {
            claim: "Hadar: total time to finish all jobs 1.20x shorter than Gavel (simulation)"
                .into(),
            ours: format!(
                "gavel-las total time / hadar's: {}. gavel-min-makespan's / hadar's: {}. \
                 gavel-las's / hadar:strict's: {}",
                ratios(&|r| r[LAS].total_h / r[HADAR].total_h),
                ratios(&|r| r[MIN_MAKESPAN].total_h / r[HADAR].total_h),
                ratios(&|r| r[LAS].total_h / r[STRICT].total_h)
            ),
            conditions: conditions.clone(),
            command: shown(&loads[0], "slowest"),
        },
        Row {
            claim: "Hadar (IPDPS): average JCT 2.5x better than Gavel".into(),
            ours: format!(
                "gavel-las avg JCT / hadar avg JCT: {}",
                ratios(&|r| r[LAS].avg_jct_h / r[HADAR].avg_jct_h)
            ),
            conditions: conditions.clone(),
            command: shown(&loads[3], "slowest"),
        },
        Row {
            claim: "Hadar (IPDPS): finish-time fairness 1.5% better than Gavel".into(),
            ours: format!(
                "gavel-las average rho / hadar's (rho = JCT over the job's time alone on its \
                 share of the cluster, lower is fairer; above 1: hadar's better): {}",
                ratios(&|r| r[LAS].avg_rho / r[HADAR].avg_rho)
            ),
            conditions: conditions.clone(),
            command: shown(&loads[3], "slowest"),
        },
        Row {
            claim: "HadarE: 1.45x higher cluster utilisation than Hadar (physical clusters)".into(),
            ours: format!(
                "hadare utilisation / hadar utilisation: {}",
                ratios(&|r| r[HADARE].utilization / r[HADAR].utilization)
            ),
            conditions: conditions.clone(),
            command: shown(&loads[0], "slowest"),
        },
        Row {
            claim: "HadarE: 50% (AWS) / 80% (lab) shorter total time than Hadar".into(),
            ours: format!(
                "hadar total time / hadare's: {}",
                ratios(&|r| r[HADAR].total_h / r[HADARE].total_h)
            ),
            conditions,
            command: shown(&loads[0], "slowest"),
        },
    ];
    rows
}

/// The figures' tables after the claims (every policy, workload and rule), what placed hadar's
/// GPUs, and what the figures do and do not say.
fn tables(loads: &[Workload], runs: &[Vec<Vec<Figures>>], same_work: &[SameWork]) -> String {
    let mut after = String::from(
        "Total time (last finish - first arrival, h), average JCT (h), average rho, GPU \
         utilisation (mean, and v100/p100/k80) and GPU-hours idle while a waiting job could have \
         used them, per policy, workload and mixed-type rule (gavel-las and gavel-min-makespan do \
         not mix types, so their figures are the same under both rules), and how long the last \
         jobs took to finish (as many jobs as the cluster has GPUs: from when fewer jobs are left \
         than GPUs, so some GPUs must idle, to the end). `hadar:strict` is the template without \
         the backfill.\n",
    );
    let table = |title: &str, by_rule: &Vec<Vec<Figures>>| {
        let mut t = format!(
            "\n{title}\n\n| rule | policy | total h | avg JCT h | avg rho | utilisation | by type | \
             idle GPU-h while a job waited | last jobs h | jobs it cannot run |\n\
             |---|---|---|---|---|---|---|---|---|---|\n"
        );
        for (rule, figs) in RULES.iter().zip(by_rule) {
            for (p, f) in POLICIES.iter().zip(figs) {
                t.push_str(&format!(
                    "| {rule} | {p} | {:.1} | {:.1} | {:.2} | {:.3} | {} | {:.1} | {:.1} | {} |\n",
                    f.total_h,
                    f.avg_jct_h,
                    f.avg_rho,
                    f.utilization,
                    f.by_type
                        .iter()
                        .map(|u| format!("{u:.2}"))
                        .collect::<Vec<_>>()
                        .join("/"),
                    f.idle_waiting_h,
                    f.tail_h,
                    f.unschedulable.len()
                ));
            }
        }
        t
    };
    for ((w, by_rule), same) in loads.iter().zip(runs).zip(same_work) {
        after.push_str(&table(
            &format!("{} (`{}`).", w.label, shown(w, "slowest")),
            by_rule,
        ));
        if let Some((dropped, same)) = same {
            after.push_str(&table(
                &format!(
                    "{}, without the {dropped} jobs gavel-las cannot run (more GPUs than any one \
                     type has), so every policy does the same work (`target/reproduce-hadar/`).",
                    w.label
                ),
                same,
            ));
        }
    }
    // How much of hadar's result is its pricing: GPU-hours each placed, from the notes.
    after.push_str(
        "\nWhat placed hadar's GPUs (from its notes, the slowest rule, full workloads): \n\n",
    );
    for (w, by_rule) in loads.iter().zip(runs) {
        let note = |p: usize| {
            by_rule[0][p]
                .notes
                .iter()
                .find(|n| n.contains("GPU-hours placed"))
                .cloned()
                .unwrap_or_default()
        };
        after.push_str(&format!(
            "- {}: {}; {}\n",
            w.label,
            note(HADAR),
            note(STRICT)
        ));
    }
    after.push_str(
        "\nWith the backfill no GPU idles while a job that fits it waits (the idle column), so \
         where hadar's utilisation is below gavel-las's the GPUs idle with nothing that fits left \
         to run on them; compare how long each policy's last jobs take to finish (the last-jobs \
         column). Shortest remaining time first leaves the longest jobs for the end, each then on \
         its own scale factor of GPUs; gavel-las shares the cluster among all jobs throughout.\n\n\
         Neither paper's body nor code was available: the price function, utility, horizon, turn \
         order and the backfill are our choices (docs/simulator.md, `schedulers/hadar`). With the full \
         workloads on 4+4+4, Hadar runs the jobs gavel-las cannot (across types), so those rows \
         compare different work; the rows without them, and the claims above, compare the same \
         jobs. HadarE's published figures are from physical clusters, ours from the simulator with \
         a modelled synchronisation cost.\n",
    );
    after
}
