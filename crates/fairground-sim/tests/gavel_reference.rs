//! Gavel's policies against Gavel's own simulator on Gavel's sample traces.
//!
//! The reference figures were produced by Gavel's simulation code (stanford-futuredata/gavel,
//! `scheduler.py` with `max_min_fairness_perf`, ECOS via cvxpy 1.9), run on 2026-11-21 from
//! the stored public copy, trimmed to its trace-simulation path: cluster 12 V100 + 12 P100 +
//! 12 K80 (servers of 4), rounds of 360 s, reallocation at most every 1,920 s, Gavel's
//! `simulation_throughputs.json`. BENCHMARKS.md has the method and the other figures.
//!
//! Both follow LAS's optimum, which is often not unique; the LP solvers (ECOS there, microlp
//! here) pick different optimal allocations, so runs agree closely but not exactly. Measured
//! differences: -3.6% to +2.9%; the bound below is 5%.

use fairground_core::shared_data_dir as shared;
use fairground_sim::workload::gavel_trace;
use fairground_sim::{schedulers, simulate, Cluster, SimConfig, ThroughputTable};

/// Gavel's measured throughputs (from ../shared), its 12 + 12 + 12 GPU cluster, default rounds.
fn gavel_setup() -> (ThroughputTable, Cluster, SimConfig) {
    let table = ThroughputTable::from_gavel_json(
        &std::fs::read_to_string(format!(
            "{}/data/gavel/simulation_throughputs.json",
            shared()
        ))
        .expect("Gavel's throughputs: run `cargo xtask data` (docs/development.md)"),
    )
    .unwrap();
    let cluster = Cluster::parse("v100=12,p100=12,k80=12").unwrap();
    (table, cluster, SimConfig::default())
}

/// (trace, Gavel's average JCT in seconds, Gavel's makespan in seconds).
const GAVEL: [(&str, f64, f64); 5] = [
    ("artifact_evaluation", 1348.3, 4040.7),
    ("max_min_fairness", 14981.3, 63438.6),
    ("medium_test", 8866.6, 15906.7),
    ("minimize_makespan", 38668.3, 75297.8),
    ("small_test", 63.8, 130.4),
];

/// (trace, Gavel's average JCT in seconds) under its `fifo_perf`, `max_min_fairness`
/// (heterogeneity-agnostic), `finish_time_fairness_perf`, `min_total_duration_perf` and
/// `max_sum_throughput_perf` policies: Gavel's simulator at commit c4fa400, unmodified (its
/// `scripts/drivers/simulate_scheduler_with_trace.py`, `--seed 0`, ECOS via cvxpy 1.x, two
/// unused imports stubbed), run on 2026-11-24, cluster 12:12:12 with 4 GPUs per server.
const GAVEL_MORE: [(&str, [f64; 5]); 5] = [
    (
        "artifact_evaluation",
        [1231.006, 1616.184, 1339.640, 1305.702, 1349.5],
    ),
    (
        "max_min_fairness",
        [20396.222, 19145.183, 15839.886, 27819.678, 16823.5],
    ),
    (
        "medium_test",
        [8869.434, 13998.659, 8968.307, 9078.595, 8905.4],
    ),
    (
        "minimize_makespan",
        [42981.889, 41300.827, 39766.984, 71569.898, 40074.9],
    ),
    ("small_test", [63.522, 64.683, 63.814, 60.035, 63.4]),
];

/// Measured: gavel-fifo -0.3% to 0.0%, gavel-las-agnostic -0.7% to +0.1% (its walk order is
/// Gavel's shuffled one, so the rounds are Gavel's), gavel-ftf -0.9% to +1.3% (with each job's
/// history, solved by an interior point as Gavel's is; Dinkelbach LPs and a canonical optimum
/// gave -1.9% to +3.3%), gavel-min-makespan -1.0% to +3.2% (at the bound Gavel's bisection
/// settles on), gavel-max-sum 0.0% to +3.8% (Gavel's interior-point answer, crumbs and all:
/// +7.3% on max_min_fairness with the canonical optimum); the bound is 5%, as for LAS.
#[test]
fn every_gavel_policy_is_within_five_percent_of_gavels() {
    let (table, cluster, config) = gavel_setup();
    for (trace, gavel) in GAVEL_MORE {
        let text = std::fs::read_to_string(format!("{}/data/gavel/traces/{trace}.trace", shared()))
            .unwrap();
        let jobs = gavel_trace(&text, &table, &cluster.types).unwrap();
        let policies = [
            "gavel-fifo",
            "gavel-las-agnostic",
            "gavel-ftf",
            "gavel-min-makespan",
            "gavel-max-sum",
        ];
        for (policy, gavel) in policies.into_iter().zip(gavel) {
            let mut scheduler = schedulers::by_name(policy, &config).unwrap();
            let r = simulate(&cluster, &jobs, scheduler.as_mut(), &config, &mut |_, _| {}).unwrap();
            assert_eq!(r.jobs_completed, jobs.len(), "{trace} {policy}");
            let off = r.avg_jct_s / gavel - 1.0;
            assert!(
                off.abs() <= 0.05,
                "{trace} {policy}: average JCT {:.1} s against Gavel's {gavel} s ({:+.1}%)",
                r.avg_jct_s,
                100.0 * off
            );
        }
    }
}

#[test]
fn average_jct_is_within_five_percent_of_gavels_on_its_sample_traces() {
    let (table, cluster, config) = gavel_setup();
    for (trace, gavel_jct, gavel_makespan) in GAVEL {
        let text = std::fs::read_to_string(format!("{}/data/gavel/traces/{trace}.trace", shared()))
            .unwrap();
        let jobs = gavel_trace(&text, &table, &cluster.types).unwrap();
        let mut scheduler = schedulers::by_name("gavel-las", &config).unwrap();
        let r = simulate(&cluster, &jobs, scheduler.as_mut(), &config, &mut |_, _| {}).unwrap();
        assert_eq!(r.jobs_completed, jobs.len(), "{trace}");
        let off = r.avg_jct_s / gavel_jct - 1.0;
        assert!(
            off.abs() <= 0.05,
            "{trace}: average JCT {:.1} s against Gavel's {gavel_jct} s ({:+.1}%)",
            r.avg_jct_s,
            100.0 * off
        );
        // The makespan hangs on the last job's placement; it stays within a fifth.
        let off = r.makespan_s / gavel_makespan - 1.0;
        assert!(off.abs() <= 0.2, "{trace}: makespan {:+.1}%", 100.0 * off);
    }
}

/// (trace, Gavel's average JCT in seconds) under `max_min_fairness_packed` (space sharing):
/// Gavel's simulator at commit c4fa400 as above, run on 2026-11-25 with numpy 1.26 and cvxpy
/// 1.5 (its packed policy converts a NumPy array of shape (1,) with `float`, which numpy 2
/// refuses). Gavel's packed LP only accepts workloads whose jobs all have the same number of
/// possible partners, so every trace but medium_test is run with each job's scale factor set
/// to 1 (the same rewrite is made here), as Gavel's packing experiments used single-GPU jobs.
const GAVEL_PACKED: [(&str, f64); 5] = [
    ("artifact_evaluation", 1354.486),
    ("max_min_fairness", 15141.747),
    ("medium_test", 8979.696),
    ("minimize_makespan", 28866.586),
    ("small_test", 66.395),
];

/// Measured: -3.8% to +1.9% (with the canonical optimum, the most total normalised throughput
/// among the max-min optima; a plain simplex vertex was +1.8% to +19.6%).
#[test]
fn gavel_las_packed_is_within_five_percent_of_gavels_space_sharing() {
    let (table, cluster, mut config) = gavel_setup();
    config.interference = fairground_sim::sharing::Interference::from_gavel_json(
        &std::fs::read_to_string(format!(
            "{}/data/gavel/simulation_throughputs.json",
            shared()
        ))
        .unwrap(),
    )
    .unwrap();
    let mut shared_somewhere = false;
    for (trace, gavel) in GAVEL_PACKED {
        let text = std::fs::read_to_string(format!("{}/data/gavel/traces/{trace}.trace", shared()))
            .unwrap();
        // Every job on one GPU: the seventh column is the scale factor.
        let single_gpu: String = text
            .lines()
            .map(|line| {
                let mut cols: Vec<&str> = line.split('\t').collect();
                cols[6] = "1";
                cols.join("\t") + "\n"
            })
            .collect();
        let jobs = gavel_trace(&single_gpu, &table, &cluster.types).unwrap();
        assert!(jobs.iter().all(|j| j.scale_factor == 1));
        let mut scheduler = schedulers::by_name("gavel-las-packed", &config).unwrap();
        let r = simulate(&cluster, &jobs, scheduler.as_mut(), &config, &mut |_, _| {}).unwrap();
        assert_eq!(r.jobs_completed, jobs.len(), "{trace}");
        shared_somewhere |= !r.notes[0].starts_with("space sharing: 0 of");
        let off = r.avg_jct_s / gavel - 1.0;
        assert!(
            off.abs() <= 0.05,
            "{trace}: average JCT {:.1} s against Gavel's {gavel} s ({:+.1}%)",
            r.avg_jct_s,
            100.0 * off
        );
    }
    assert!(shared_somewhere, "some trace runs jobs side by side");
}
