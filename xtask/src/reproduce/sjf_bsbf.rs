//! SJF-BSBF (Luo, Wang, Shi et al., IWQoS 2024): non-preemptive SJF that shares GPUs between two
//! jobs when it pays, against the preemptive baselines and against sharing first-fit (SJF-FFS),
//! on a 32-GPU cluster like its testbed with Gavel's workload and measured pair slowdowns.
//!
//! The grid is `experiments/sjf-bsbf-load-sweep.toml`: the loads and policies come from its
//! results, so an edit of the spec extends the table; the claims need the six policies below.

use super::{Cli, Row, Section};

const SPEC: &str = "sjf-bsbf-load-sweep.toml";

pub fn section(cli: &Cli) -> Result<Section, String> {
    let sweep = cli.sweep(SPEC)?;
    let loads = sweep.axis("jobs_per_hour");
    let policies = sweep.policies();
    // avg[load][policy], hours
    let avg: Vec<Vec<f64>> = loads
        .iter()
        .map(|l| {
            policies
                .iter()
                .map(|p| sweep.number(&[("jobs_per_hour", l)], p, "avg_jct_h"))
                .collect::<Result<_, _>>()
        })
        .collect::<Result<_, _>>()?;
    let col = |name: &str| sweep.policy_index(name);
    let bsbf = col("sjf-bsbf")?;
    let per_load = |other: usize| {
        loads
            .iter()
            .enumerate()
            .map(|(k, l)| {
                format!(
                    "{:+.0}% at {l}/h",
                    -100.0 * (1.0 - avg[k][bsbf] / avg[k][other])
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let conditions = format!(
        "cluster `{}` (servers of 8 GPUs; a V100 has 16 GB); Gavel's synthetic workload ({} jobs, seed {}, 1/2/4/8 GPUs) with Gavel's measured throughputs and co-located pairs (pairs it lacks: 2x each, time slicing); rounds of 360 s; loads {} jobs/h",
        sweep.setting("cluster")?,
        sweep.setting("synthetic")?,
        sweep.setting("seed")?,
        loads.join(", ")
    );
    let rows = vec![
        Row {
            claim: "SJF-BSBF: 27-33% lower average JCT than the preemptive state of the art (Tiresias)".into(),
            ours: format!(
                "against tiresias-2q (the testbed's two queues): {}; against tiresias (three queues): {}; against srtf: {}; against las: {} (negative: SJF-BSBF lower)",
                per_load(col("tiresias-2q")?),
                per_load(col("tiresias")?),
                per_load(col("srtf")?),
                per_load(col("las")?)
            ),
            conditions: conditions.clone(),
            command: sweep.command(),
        },
        Row {
            claim: "SJF-BSBF: up to 17% lower average JCT than SJF-FFS on large traces".into(),
            ours: format!("against sjf-ffs: {}", per_load(col("sjf-ffs")?)),
            conditions: conditions.clone(),
            command: sweep.command(),
        },
    ];
    let mut after = format!(
        "Average JCT (hours) by load; {conditions}. Generated from `{}` by `fairground sweep`: \
         edit it to rerun or extend the sweep.\n\n| jobs/h | {} |\n|---|{}\n",
        sweep.spec,
        policies.join(" | "),
        "---|".repeat(policies.len())
    );
    for (k, load) in loads.iter().enumerate() {
        let cells: Vec<String> = avg[k].iter().map(|v| format!("{v:.1}")).collect();
        after.push_str(&format!("| {load} | {} |\n", cells.join(" | ")));
    }
    after.push_str(
        "\nThe testbed's pairwise slowdowns are not public; Gavel's measured pairs stand in for them, \
         and the GPU memory footprints of Gavel's models are estimates (docs/simulator.md). The two are the \
         largest differences from the paper's set-up, with the workload (Gavel's, not the testbed's \
         models).\n",
    );
    Ok(Section {
        title: "SJF-BSBF (Luo, Wang, Shi et al., IWQoS 2024)".into(),
        made_by: format!(
            "`{}`, run by `fairground sweep`; `xtask/src/reproduce/sjf_bsbf.rs` reads its \
             results.csv into the claims and the table.",
            sweep.spec
        ),
        rows,
        after,
    })
}
