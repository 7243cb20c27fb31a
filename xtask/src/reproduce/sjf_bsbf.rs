//! SJF-BSBF (Luo, Wang, Shi et al., IWQoS 2024): non-preemptive SJF that shares GPUs between two
//! jobs when it pays, against the preemptive baselines and against sharing first-fit (SJF-FFS),
//! on a 32-GPU cluster like its testbed with Gavel's workload and measured pair slowdowns.

use super::{Cli, Row, Section};
use serde_json::Value;

const LOADS: [f64; 3] = [0.5, 1.0, 1.5];
const JOBS: usize = 3000;
const SEED: u64 = 1;
const POLICIES: [&str; 6] = [
    "sjf-bsbf",
    "sjf-ffs",
    "tiresias-2q",
    "tiresias",
    "srtf",
    "las",
];

fn args(load: f64) -> Vec<String> {
    let throughputs = format!(
        "{}/../shared/data/gavel/simulation_throughputs.json",
        crate::project_root().display()
    );
    let mut a: Vec<String> = vec![
        "simulate".into(),
        "--synthetic".into(),
        JOBS.to_string(),
        "--jobs-per-hour".into(),
        load.to_string(),
        "--seed".into(),
        SEED.to_string(),
        "--cluster".into(),
        "v100=32".into(),
        "--throughputs".into(),
        throughputs,
    ];
    for p in POLICIES {
        a.push("--policy".into());
        a.push(p.into());
    }
    a
}

/// The command as a reader would type it, with the shared data's path relative to the clone.
fn shown(load: f64) -> String {
    let root = crate::project_root().display().to_string();
    format!("fairground {}", args(load).join(" ")).replace(&format!("{root}/"), "")
}

pub fn section(cli: &Cli) -> Result<Section, String> {
    // avg[load][policy], hours
    let mut avg: Vec<Vec<f64>> = Vec::new();
    for load in LOADS {
        let out = cli.json(&args(load))?;
        let results = out.as_array().ok_or("expected one result per policy")?;
        avg.push(
            results
                .iter()
                .map(|r: &Value| {
                    r["avg_jct_s"]
                        .as_f64()
                        .map(|s| s / 3600.0)
                        .ok_or_else(|| "no avg_jct_s in the result".to_string())
                })
                .collect::<Result<_, _>>()?,
        );
    }
    let col = |name: &str| POLICIES.iter().position(|p| *p == name).unwrap_or(0);
    let lower = |k: usize, other: usize| 100.0 * (1.0 - avg[k][col("sjf-bsbf")] / avg[k][other]);
    let per_load = |other: usize| {
        LOADS
            .iter()
            .enumerate()
            .map(|(k, l)| format!("{:+.0}% at {l}/h", -lower(k, other)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let conditions = format!(
        "32 V100s (4 servers of 8, 16 GB each); Gavel's synthetic workload ({JOBS} jobs, seed {SEED}, 1/2/4/8 GPUs) with Gavel's measured throughputs and co-located pairs (pairs it lacks: 2x each, time slicing); rounds of 360 s; loads {} jobs/h",
        LOADS.map(|l| l.to_string()).join(", ")
    );
    let rows = vec![
        Row {
            claim: "SJF-BSBF: 27-33% lower average JCT than the preemptive state of the art (Tiresias)".into(),
            ours: format!(
                "against tiresias-2q (the testbed's two queues): {}; against tiresias (three queues): {}; against srtf: {}; against las: {} (negative: SJF-BSBF lower)",
                per_load(col("tiresias-2q")),
                per_load(col("tiresias")),
                per_load(col("srtf")),
                per_load(col("las"))
            ),
            conditions: conditions.clone(),
            command: shown(1.0),
        },
        Row {
            claim: "SJF-BSBF: up to 17% lower average JCT than SJF-FFS on large traces".into(),
            ours: format!("against sjf-ffs: {}", per_load(col("sjf-ffs"))),
            conditions: conditions.clone(),
            command: shown(1.0),
        },
    ];
    let mut after = format!(
        "Average JCT (hours) by load; {conditions}.\n\n| jobs/h | {} |\n|---|{}\n",
        POLICIES.join(" | "),
        "---|".repeat(POLICIES.len())
    );
    for (k, load) in LOADS.iter().enumerate() {
        let cells: Vec<String> = avg[k].iter().map(|v| format!("{v:.1}")).collect();
        after.push_str(&format!("| {load} | {} |\n", cells.join(" | ")));
    }
    after.push_str(
        "\nThe testbed's pairwise slowdowns are not public; Gavel's measured pairs stand in for them, \
         and the GPU memory footprints of Gavel's models are estimates (README). The two are the \
         largest differences from the paper's set-up, with the workload (Gavel's, not the testbed's \
         models).\n",
    );
    Ok(Section {
        title: "SJF-BSBF (Luo, Wang, Shi et al., IWQoS 2024)".into(),
        rows,
        after,
    })
}
