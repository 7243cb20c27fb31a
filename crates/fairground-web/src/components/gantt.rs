use crate::palette::type_colour;
use crate::scale::{nice_ticks, tick_label, LinearScale};
use fairground_sim::metrics::GanttBar;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct GanttProps {
    pub bars: Vec<GanttBar>,
    /// Server -> GPU type name, for row labels.
    pub server_types: Vec<String>,
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

/// One row per GPU, one bar per job stretch (half a row each where two jobs share the GPU);
/// colours cycle over job ids.
#[component]
pub fn Gantt(p: &GanttProps) -> Html {
    let mut rows: Vec<(usize, u32)> = p.bars.iter().map(|b| (b.server, b.gpu)).collect();
    rows.sort_unstable();
    rows.dedup();
    let (w, left, row_h, top) = (720.0, 110.0, 12.0, 8.0);
    let h = top + rows.len() as f64 * row_h + 40.0;
    let end_h = p.bars.iter().map(|b| b.t1).fold(0.0, f64::max) / 3600.0;
    let ticks = nice_ticks(end_h, 6);
    let x = LinearScale::new((0.0, *ticks.last().unwrap_or(&1.0)), (left, w - 16.0));
    let row_of = |b: &GanttBar| {
        rows.iter()
            .position(|r| *r == (b.server, b.gpu))
            .unwrap_or(0)
    };
    let bottom = top + rows.len() as f64 * row_h;
    html! {
        <svg viewBox={format!("0 0 {w} {h}")} role="img" data-testid="gantt" aria-label="Jobs on each GPU over time">
            { for rows.iter().enumerate().map(|(r, (server, gpu))| html! {
                <text x={(left - 6.0).to_string()} y={(top + r as f64 * row_h + 9.0).to_string()} text-anchor="end" class="gantt-row">
                    { format!("{} s{server} g{gpu}", p.server_types.get(*server).map(String::as_str).unwrap_or("?")) }
                </text>
            }) }
            { for ticks.iter().map(|&t| html! {
                <g class="tick"><line class="grid" x1={x.map(t).to_string()} x2={x.map(t).to_string()} y1={top.to_string()} y2={bottom.to_string()} />
                <text x={x.map(t).to_string()} y={(bottom + 16.0).to_string()} text-anchor="middle">{ tick_label(t) }</text></g>
            }) }
            { for p.bars.iter().zip(lanes(&p.bars)).map(|(b, lane)| {
                let (x0, x1) = (x.map(b.t0 / 3600.0), x.map(b.t1 / 3600.0));
                let y = top + row_of(b) as f64 * row_h + 1.0;
                let half = (row_h - 2.0) / 2.0;
                let (y, height, class) = match lane {
                    Lane::Full => (y, row_h - 2.0, "gantt-bar"),
                    Lane::Top => (y, half, "gantt-bar shared"),
                    Lane::Bottom => (y + half, half, "gantt-bar shared"),
                };
                let sharing = b.slowdown.map_or(String::new(), |s| {
                    format!(", sharing the GPU: {s:.2}x slower, {} sub-batches", b.accumulation.unwrap_or(1))
                });
                html! {
                    <rect class={class} x={x0.to_string()} y={y.to_string()}
                          width={(x1 - x0).max(0.5).to_string()} height={height.to_string()} fill={type_colour(b.job)}>
                        <title>{ format!("job {}: {:.2} h to {:.2} h{sharing}", b.job, b.t0 / 3600.0, b.t1 / 3600.0) }</title>
                    </rect>
                }
            }) }
            <text class="axis-label" x={((left + w) / 2.0).to_string()} y={(h - 8.0).to_string()} text-anchor="middle">{ "time (hours)" }</text>
        </svg>
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
        }
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
}
