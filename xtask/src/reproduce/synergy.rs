//! Synergy (Mohan et al., OSDI 2022): CPU- and memory-aware allocation against GPU-proportional
//! shares, on its own single-GPU workload at 128 GPUs, swept over the load.

use super::{Cli, Row, Section, SweepResults};

const SPEC: &str = "synergy-load-sweep.toml";

/// What one policy gave at one load.
struct Run {
    /// Mean JCT of the measured window, hours.
    measured_h: f64,
    gpu_util: f64,
    /// Arrivals were still going on when the last measured job finished.
    arrivals_outlast: bool,
}

fn read(sweep: &SweepResults, load: &str, policy: &str) -> Result<Run, String> {
    let at = [("jobs_per_hour", load)];
    let number = |column: &str| sweep.number(&at, policy, column);
    if number("measured_done")? != number("jobs")?.min(window_size(sweep)?) {
        return Err(format!(
            "{}: not every measured job finished under {policy} at {load} jobs/h",
            sweep.spec
        ));
    }
    Ok(Run {
        measured_h: number("measured_avg_jct_h")?,
        gpu_util: number("utilisation")?,
        arrivals_outlast: number("measured_last_finish_h")? <= number("last_arrival_h")?,
    })
}

/// How many ids the spec's `measure-ids = "FROM..TO"` covers.
fn window_size(sweep: &SweepResults) -> Result<f64, String> {
    let window = sweep.setting("measure-ids")?;
    let bounds: Vec<f64> = window.split("..").filter_map(|x| x.parse().ok()).collect();
    match bounds[..] {
        [from, to] if to > from => Ok(to - from),
        _ => Err(format!(
            "{}: measure-ids '{window}' is not FROM..TO",
            sweep.spec
        )),
    }
}

pub fn section(cli: &Cli) -> Result<Section, String> {
    let sweep = cli.sweep(SPEC)?;
    let loads = sweep.axis("jobs_per_hour");
    let policies = sweep.policies();
    // runs[load][policy]
    let runs: Vec<Vec<Run>> = loads
        .iter()
        .map(|l| policies.iter().map(|p| read(&sweep, l, p)).collect())
        .collect::<Result<_, _>>()?;
    let col = |name: &str| sweep.policy_index(name);
    let (prop, tune, opt) = (
        col("synergy-proportional")?,
        col("synergy-tune")?,
        col("synergy-opt")?,
    );
    let (prop_srtf, tune_srtf) = (col("synergy-proportional:srtf")?, col("synergy-tune:srtf")?);
    let ratio = |k: usize, a: usize, b: usize| runs[k][a].measured_h / runs[k][b].measured_h;
    let best = |a: usize, b: usize| {
        (0..loads.len())
            .map(|k| (k, ratio(k, a, b)))
            .fold((0, 0.0), |m, x| if x.1 > m.1 { x } else { m })
    };
    let (k_fifo, r_fifo) = best(prop, tune);
    let (k_srtf, r_srtf) = best(prop_srtf, tune_srtf);
    let k9 = loads.iter().position(|l| l == "9").ok_or_else(|| {
        format!(
            "{}: the simulator README's figure is at 9 jobs/h",
            sweep.spec
        )
    })?;
    let window = sweep.setting("measure-ids")?;
    let conditions = format!(
        "128 GPUs (16 servers of 8 GPUs, 24 CPUs, 500 GB); Synergy's workload, single-GPU, split {}, {} jobs, seed {}; rounds of 300 s; mean JCT of jobs {window}",
        sweep.setting("split")?.replace(',', "/"),
        sweep.setting("synthetic-synergy")?,
        sweep.setting("seed")?,
    );
    let command = sweep.command();
    let rows = vec![
        Row {
            claim: "Synergy-Tune gives up to 3.4x better average JCT than GPU-proportional allocation (the paper's headline)".into(),
            ours: format!(
                "FIFO: up to {r_fifo:.2}x (at {} jobs/h); SRTF: up to {r_srtf:.2}x (at {} jobs/h)",
                loads[k_fifo], loads[k_srtf]
            ),
            conditions: format!("{conditions}; loads {} jobs/h", loads.join(", ")),
            command: command.clone(),
        },
        Row {
            claim: "The largest gains come near proportional allocation's saturation, about 7.7 jobs/h for single-GPU jobs on 128 GPUs".into(),
            ours: format!(
                "largest FIFO gain at {} jobs/h, where proportional keeps the GPUs {:.0}% busy",
                loads[k_fifo],
                100.0 * runs[k_fifo][prop].gpu_util
            ),
            conditions: conditions.clone(),
            command: command.clone(),
        },
        Row {
            claim: "FIFO + Tune: mean JCT 21.9 h over jobs 4000-4999 at 9 jobs/h (Synergy simulator's README)".into(),
            ours: format!("{:.1} h", runs[k9][tune].measured_h),
            conditions: conditions.clone(),
            command: command.clone(),
        },
    ];
    let mut after = format!(
        "Mean JCT (hours) of jobs {window} by load; {conditions}. Generated from `{}` by \
         `fairground sweep`: edit it to rerun or extend the sweep.\n\n\
         | jobs/h | proportional | greedy | Tune | OPT | proportional (SRTF) | Tune (SRTF) | proportional / Tune | proportional / Tune (SRTF) | OPT / Tune | GPU util (proportional) | arrivals outlast the measured jobs |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|\n",
        sweep.spec
    );
    for (k, load) in loads.iter().enumerate() {
        let r = &runs[k];
        let outlast = if r.iter().all(|x| x.arrivals_outlast) {
            "yes".to_string()
        } else {
            let names: Vec<&str> = policies
                .iter()
                .zip(r)
                .filter(|(_, x)| !x.arrivals_outlast)
                .map(|(p, _)| p.as_str())
                .collect();
            format!("no for {}", names.join(", "))
        };
        after.push_str(&format!(
            "| {load} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.2} | {:.2} | {:.3} | {:.0}% | {outlast} |\n",
            r[prop].measured_h,
            r[col("synergy-greedy")?].measured_h,
            r[tune].measured_h,
            r[opt].measured_h,
            r[prop_srtf].measured_h,
            r[tune_srtf].measured_h,
            ratio(k, prop, tune),
            ratio(k, prop_srtf, tune_srtf),
            r[opt].measured_h / r[tune].measured_h,
            100.0 * r[prop].gpu_util,
        ));
    }
    after.push_str(
        "\nHow this differs from Synergy's own simulator (see `crates/fairground-sim/src/schedulers/synergy/mod.rs`): \
         a job finishes at its exact instant rather than at the end of its last round; OPT's program is solved exactly \
         and then packed onto servers (every round deployable, reported in the run's notes) instead of Synergy's \
         fractional second LP; one seed per load. When arrivals stop before the measured jobs finish (last column), \
         the tail of the measurement runs on a draining cluster and flatters the policy that starved those jobs.\n",
    );
    Ok(Section {
        title: "Synergy (Mohan et al., OSDI 2022)".into(),
        made_by: format!(
            "`{}`, run by `fairground sweep`; `xtask/src/reproduce/synergy.rs` reads its \
             results.csv into the claims and the table.",
            sweep.spec
        ),
        rows,
        after,
    })
}
