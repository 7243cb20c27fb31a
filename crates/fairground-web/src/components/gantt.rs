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

/// One row per GPU, one bar per job stretch; colours cycle over job ids.
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
            { for p.bars.iter().map(|b| {
                let (x0, x1) = (x.map(b.t0 / 3600.0), x.map(b.t1 / 3600.0));
                html! {
                    <rect class="gantt-bar" x={x0.to_string()} y={(top + row_of(b) as f64 * row_h + 1.0).to_string()}
                          width={(x1 - x0).max(0.5).to_string()} height={(row_h - 2.0).to_string()} fill={type_colour(b.job)}>
                        <title>{ format!("job {}: {:.2} h to {:.2} h", b.job, b.t0 / 3600.0, b.t1 / 3600.0) }</title>
                    </rect>
                }
            }) }
            <text class="axis-label" x={((left + w) / 2.0).to_string()} y={(h - 8.0).to_string()} text-anchor="middle">{ "time (hours)" }</text>
        </svg>
    }
}
