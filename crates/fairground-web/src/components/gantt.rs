//! The simulation's schedule as a Gantt chart: a row per GPU, a bar per job's stay. Presentational:
//! data from props, scale math in plain functions.

use crate::palette::type_colour;
use crate::scale::legend_layout;
use crate::scale::{nice_ticks, tick_label, LinearScale};
use crate::svg::SvgRender;
use fairground_chart::line::legend_entries;
use fairground_chart::table::DataTable;
use fairground_sim::metrics::{GanttBar, GanttJob};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct GanttProps {
    pub bars: Vec<GanttBar>,
    /// The jobs the bars draw (model, tenant, GPUs, rates), for colours and tooltips.
    pub jobs: Vec<GanttJob>,
    /// Server -> GPU type name, for row labels.
    pub server_types: Vec<String>,
    /// The cluster's GPU types, in the order of a job's `rate`.
    pub types: Vec<String>,
}

/// Where a bar sits in its GPU's row: the whole row, or half of it when two jobs share the GPU.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Lane {
    Full,
    Top,
    Bottom,
}

/// The lane of each bar: a bar sharing its GPU takes the top half, unless a sharing bar of a job
/// with a smaller id overlaps it on the same GPU, then the bottom half.
pub fn lanes(bars: &[GanttBar]) -> Vec<Lane> {
    bars.iter()
        .map(|b| {
            if b.slowdown.is_none() {
                return Lane::Full;
            }
            let below = bars.iter().any(|o| {
                o.slowdown.is_some()
                    && (o.server, o.gpu) == (b.server, b.gpu)
                    && o.job < b.job
                    && o.t0 < b.t1
                    && b.t0 < o.t1
            });
            if below {
                Lane::Bottom
            } else {
                Lane::Top
            }
        })
        .collect()
}

/// What each bar's job held in that stretch beyond one GPU type: the types a copy spans when it
/// mixes them (Hadar), and which copy the bar runs when the job is forked (HadarE); empty for a
/// plain placement.
pub fn placement_notes(bars: &[GanttBar], server_types: &[String]) -> Vec<String> {
    use std::collections::BTreeMap;
    // (job, t0) -> copy -> type names; and the number of copies.
    let mut held: BTreeMap<(usize, u64), BTreeMap<u32, Vec<&str>>> = BTreeMap::new();
    for b in bars {
        let ty = server_types.get(b.server).map_or("?", String::as_str);
        let types = held
            .entry((b.job, b.t0.to_bits()))
            .or_default()
            .entry(b.copy)
            .or_default();
        if !types.contains(&ty) {
            types.push(ty);
        }
    }
    bars.iter()
        .map(|b| {
            let copies = &held[&(b.job, b.t0.to_bits())];
            let mut note = String::new();
            if copies.len() > 1 {
                note.push_str(&format!(", copy {} of {}", b.copy + 1, copies.len()));
            }
            let types = &copies[&b.copy];
            if types.len() > 1 {
                note.push_str(&format!(", across {}", types.join("+")));
            }
            note
        })
        .collect()
}

/// The bars to draw: each with its lane and placement note, and a job's stretches in a row on
/// one GPU, in the same lane with the same note and sharing, merged into one bar (the engine
/// records a bar per round: a 40-job run is about 19,000 of them, which made the page and its
/// accessibility checks slow).
pub fn merged(bars: &[GanttBar], server_types: &[String]) -> Vec<(GanttBar, Lane, String)> {
    let mut all: Vec<(GanttBar, Lane, String)> = bars
        .iter()
        .cloned()
        .zip(lanes(bars))
        .zip(placement_notes(bars, server_types))
        .map(|((b, lane), note)| (b, lane, note))
        .collect();
    all.sort_by(|(a, _, _), (b, _, _)| {
        (a.server, a.gpu, a.job, a.copy)
            .cmp(&(b.server, b.gpu, b.job, b.copy))
            .then(a.t0.total_cmp(&b.t0))
    });
    let mut out: Vec<(GanttBar, Lane, String)> = Vec::with_capacity(all.len());
    for (b, lane, note) in all {
        if let Some((last, last_lane, last_note)) = out.last_mut() {
            let same = (last.server, last.gpu, last.job, last.copy)
                == (b.server, b.gpu, b.job, b.copy)
                && *last_lane == lane
                && *last_note == note
                && last.slowdown == b.slowdown
                && last.accumulation == b.accumulation
                && (last.cpus, last.mem_gb) == (b.cpus, b.mem_gb)
                && (b.t0 - last.t1).abs() < 1e-6;
            if same {
                last.t1 = b.t1;
                continue;
            }
        }
        out.push((b, lane, note));
    }
    out
}

/// The models of `jobs` in order of first appearance, for colours and the legend.
pub fn models(jobs: &[GanttJob]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for j in jobs {
        if !out.contains(&j.model.as_str()) {
            out.push(&j.model);
        }
    }
    out
}

/// One row per GPU, one bar per job stretch (half a row each where two jobs share the GPU),
/// coloured by the job's model, with a legend of the models; a bar's tooltip names the job's
/// model, tenant, GPUs and speed there.
#[component]
pub fn Gantt(p: &GanttProps) -> Html {
    let mut rows: Vec<(usize, u32)> = p.bars.iter().map(|b| (b.server, b.gpu)).collect();
    fairground_core::order::sort_stably_by(&mut rows, |a, b| a.cmp(b));
    rows.dedup();
    let models = models(&p.jobs);
    let w = super::chart_width();
    let legend = legend_layout(&models, 8.0, w - 8.0, 7.0);
    let legend_h = 16.0 * (legend.last().map_or(0, |e| e.1) + 1) as f64 + 6.0;
    let entries: Vec<(&str, &str, &str)> = models
        .iter()
        .enumerate()
        .map(|(k, m)| (*m, type_colour(k), ""))
        .collect();
    let (left, row_h, top) = (120.0, 16.0, legend_h + 4.0);
    let h = top + rows.len() as f64 * row_h + 40.0;
    let end_h = p.bars.iter().map(|b| b.t1).fold(0.0, f64::max) / 3600.0;
    let ticks = nice_ticks(end_h, 6);
    let x = LinearScale::new((0.0, *ticks.last().unwrap_or(&1.0)), (left, w - 16.0));
    let row_of = |b: &GanttBar| {
        rows.iter()
            .position(|r| *r == (b.server, b.gpu))
            .unwrap_or(0)
    };
    let job_of = |id: usize| p.jobs.iter().find(|j| j.id == id);
    let bottom = top + rows.len() as f64 * row_h;
    html! {
        <svg viewBox={format!("0 0 {w} {h}")} role="img" data-testid="gantt" aria-label="Jobs on each GPU over time">
            { for legend_entries(&entries, &legend).iter().map(SvgRender::to_html) }
            { for rows.iter().enumerate().map(|(r, (server, gpu))| html! {
                <text x={(left - 6.0).to_string()} y={(top + r as f64 * row_h + 12.0).to_string()} text-anchor="end" class="gantt-row">
                    { format!("{} s{server} g{gpu}", p.server_types.get(*server).map(String::as_str).unwrap_or("?")) }
                </text>
            }) }
            { for ticks.iter().map(|&t| html! {
                <g class="tick"><line class="grid" x1={x.map(t).to_string()} x2={x.map(t).to_string()} y1={top.to_string()} y2={bottom.to_string()} />
                <text x={x.map(t).to_string()} y={(bottom + 16.0).to_string()} text-anchor="middle">{ tick_label(t) }</text></g>
            }) }
            { for merged(&p.bars, &p.server_types).into_iter().map(|(b, lane, held)| {
                let (x0, x1) = (x.map(b.t0 / 3600.0), x.map(b.t1 / 3600.0));
                let y = top + row_of(&b) as f64 * row_h + 1.0;
                let half = (row_h - 2.0) / 2.0;
                let (y, height, mut class) = match lane {
                    Lane::Full => (y, row_h - 2.0, "gantt-bar".to_string()),
                    Lane::Top => (y, half, "gantt-bar shared".to_string()),
                    Lane::Bottom => (y + half, half, "gantt-bar shared".to_string()),
                };
                // Forked copies and mixed-type placements are outlined, so they show at a glance
                // (not on slivers, which an outline would turn solid).
                if held.contains("copy") {
                    class.push_str(" copy");
                }
                if held.contains("across") {
                    class.push_str(" mixed");
                }
                let sliver = x1 - x0 < 4.0;
                let job = job_of(b.job);
                let ty = p.server_types.get(b.server).map_or("?", String::as_str);
                let colour = job.and_then(|j| models.iter().position(|m| *m == j.model)).map_or("#999999", type_colour);
                let about = job.map_or(String::new(), |j| {
                    // The job's steps/s on this server's type, slowed when it shares the GPU.
                    let rate = p.types.iter().position(|t| t == ty).and_then(|k| j.rate.get(k)).copied()
                        .unwrap_or(0.0) / b.slowdown.unwrap_or(1.0);
                    format!(" ({}, tenant {}, {} GPU{}, {rate:.3} steps/s on {ty})", j.model, j.tenant, j.gpus, if j.gpus == 1 { "" } else { "s" })
                });
                let sharing = b.slowdown.map_or(String::new(), |s| {
                    format!(", sharing the GPU: {s:.2}x slower, {} sub-batches", b.accumulation.unwrap_or(1))
                });
                html! {
                    <rect class={class} x={x0.to_string()} y={y.to_string()} style={sliver.then_some("stroke:none")}
                          width={(x1 - x0).max(0.5).to_string()} height={height.to_string()} fill={colour}>
                        <title>{ format!("job {}{about}: {:.2} h to {:.2} h{sharing}{held}", b.job, b.t0 / 3600.0, b.t1 / 3600.0) }</title>
                    </rect>
                }
            }) }
            <text class="axis-label" x={((left + w) / 2.0).to_string()} y={(h - 8.0).to_string()} text-anchor="middle">{ "time (hours)" }</text>
        </svg>
    }
}

/// The Gantt chart's numbers, one row per job that ran: its model, tenant and GPUs asked, when it
/// first started and last stopped, the GPU-hours its bars cover, and the GPU types it ran on.
pub fn gantt_table(bars: &[GanttBar], jobs: &[GanttJob], server_types: &[String]) -> DataTable {
    let head = [
        "job",
        "model",
        "tenant",
        "GPUs",
        "started (h)",
        "ended (h)",
        "GPU-hours",
        "on",
    ];
    let mut ids: Vec<usize> = bars.iter().map(|b| b.job).collect();
    ids.sort_unstable();
    ids.dedup();
    let rows = ids
        .into_iter()
        .map(|id| {
            let own = bars.iter().filter(|b| b.job == id);
            let start = own.clone().map(|b| b.t0).fold(f64::INFINITY, f64::min);
            let end = own.clone().map(|b| b.t1).fold(0.0, f64::max);
            let held: f64 = own.clone().map(|b| b.t1 - b.t0).sum();
            let mut on: Vec<&str> = Vec::new();
            for b in own {
                let ty = server_types.get(b.server).map_or("?", String::as_str);
                if !on.contains(&ty) {
                    on.push(ty);
                }
            }
            let job = jobs.iter().find(|j| j.id == id);
            vec![
                id.to_string(),
                job.map_or(String::new(), |j| j.model.clone()),
                job.map_or(String::new(), |j| j.tenant.clone()),
                job.map_or(String::new(), |j| j.gpus.to_string()),
                format!("{:.2}", start / 3600.0),
                format!("{:.2}", end / 3600.0),
                format!("{:.2}", held / 3600.0),
                on.join(", "),
            ]
        })
        .collect();
    DataTable {
        head: head.map(String::from).to_vec(),
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bar(job: usize, gpu: u32, t0: f64, t1: f64, shared: bool) -> GanttBar {
        GanttBar {
            server: 0,
            gpu,
            job,
            t0,
            t1,
            cpus: 0.0,
            mem_gb: 0.0,
            slowdown: shared.then_some(1.2),
            accumulation: shared.then_some(1),
            copy: 0,
        }
    }

    #[test]
    fn notes_name_mixed_types_and_copies() {
        let types: Vec<String> = ["v100", "p100", "k80"].map(String::from).to_vec();
        let on = |server: usize, gpu: u32, job: usize, copy: u32| GanttBar {
            server,
            copy,
            ..bar(job, gpu, 0.0, 60.0, false)
        };
        let bars = [
            on(0, 0, 1, 0), // job 1 on a V100 and a P100
            on(1, 0, 1, 0),
            on(2, 0, 2, 0), // job 2 forked: copy 0 on the K80 server, copy 1 on the V100's
            on(0, 1, 2, 1),
            on(2, 1, 3, 0), // job 3 plain
        ];
        assert_eq!(
            placement_notes(&bars, &types),
            [
                ", across v100+p100",
                ", across v100+p100",
                ", copy 1 of 2",
                ", copy 2 of 2",
                ""
            ]
        );
    }

    #[test]
    fn a_job_s_stretches_in_a_row_on_one_gpu_merge() {
        let types: Vec<String> = vec!["v100".into()];
        let bars = [
            bar(1, 0, 0.0, 60.0, false),
            bar(1, 0, 60.0, 120.0, false),
            bar(1, 0, 180.0, 240.0, false), // after a gap: its own bar
            bar(2, 0, 240.0, 300.0, false),
            bar(2, 0, 300.0, 360.0, true), // now sharing the GPU: its own bar
        ];
        let m = merged(&bars, &types);
        let spans: Vec<(usize, f64, f64)> = m.iter().map(|(b, _, _)| (b.job, b.t0, b.t1)).collect();
        assert_eq!(
            spans,
            [
                (1, 0.0, 120.0),
                (1, 180.0, 240.0),
                (2, 240.0, 300.0),
                (2, 300.0, 360.0)
            ]
        );
    }

    #[test]
    fn shared_bars_split_their_row() {
        let bars = [
            bar(3, 0, 0.0, 60.0, false),
            bar(3, 0, 60.0, 120.0, true),
            bar(1, 0, 60.0, 120.0, true),
            bar(5, 1, 60.0, 120.0, true), // another GPU: no partner below it
        ];
        assert_eq!(
            lanes(&bars),
            [Lane::Full, Lane::Bottom, Lane::Top, Lane::Top]
        );
    }

    #[test]
    fn gantt_table_sums_each_job_over_its_bars() {
        // Job 3 holds two GPUs for an hour, then one for half an hour on the second server.
        let types: Vec<String> = ["v100", "k80"].map(String::from).to_vec();
        let mut bars = vec![bar(3, 0, 0.0, 3600.0, false), bar(3, 1, 0.0, 3600.0, false)];
        bars.push(GanttBar {
            server: 1,
            ..bar(3, 0, 3600.0, 5400.0, false)
        });
        bars.push(bar(1, 2, 1800.0, 2700.0, false));
        let jobs = vec![GanttJob {
            id: 3,
            model: "ResNet-50".into(),
            tenant: "vision".into(),
            gpus: 2,
            rate: vec![1.0, 0.5],
        }];
        let t = gantt_table(&bars, &jobs, &types);
        assert_eq!(t.head[0], "job");
        assert_eq!(t.rows[0], ["1", "", "", "", "0.50", "0.75", "0.25", "v100"]);
        assert_eq!(
            t.rows[1],
            [
                "3",
                "ResNet-50",
                "vision",
                "2",
                "0.00",
                "1.50",
                "2.50",
                "v100, k80"
            ]
        );
    }
}
