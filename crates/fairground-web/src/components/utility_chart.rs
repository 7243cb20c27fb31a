//! Each tenant's utility against its sharing-incentive target as bars. Presentational: data from
//! props, scale math in plain functions.

use crate::scale::{bar_rows, nice_ticks, tick_label, LinearScale};
use fairground_chart::table::{grid, DataTable};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct UtilityChartProps {
    pub tenants: Vec<String>,
    pub utility: Vec<f64>,
    /// u_i(e_i): the sharing-incentive line per tenant.
    pub si_target: Vec<f64>,
}

const LABEL: f64 = 210.0;
const BAR: f64 = 18.0;
const GAP: f64 = 10.0;

/// Each tenant's utility (reference-GPU equivalents) against its sharing-incentive target, drawn
/// at the width the page has for it; names go above the bars on a narrow chart, and the legend's
/// second entry under its first.
#[component]
pub fn UtilityChart(p: &UtilityChartProps) -> Html {
    let w = super::chart_width();
    let rows = bar_rows(w, LABEL, BAR, GAP);
    let left = rows.plot_left;
    // The legend's two entries take about 380 units side by side.
    let (second_x, second_y, top) = if w - left >= 380.0 {
        (left + 130.0, 0.0, 30.0)
    } else {
        (left, 16.0, 46.0)
    };
    let max = p
        .utility
        .iter()
        .chain(&p.si_target)
        .copied()
        .fold(0.0, f64::max);
    let ticks = nice_ticks(max, 6);
    let x = LinearScale::new(
        (0.0, ticks.last().copied().unwrap_or(1.0)),
        (left, w - 24.0),
    );
    let bottom = top + p.tenants.len() as f64 * rows.pitch;
    let height = bottom + 44.0;
    html! {
        <svg viewBox={format!("0 0 {w} {height}")} role="img" data-testid="utility-chart"
             aria-label="Utility of each tenant against its sharing-incentive target">
            <g class="legend-item">
                <rect x={left.to_string()} y="8" width="14" height="12" class="utility-bar" />
                <text x={(left + 20.0).to_string()} y="18">{ "utility u_i" }</text>
                <line x1={(second_x + 7.0).to_string()} x2={(second_x + 7.0).to_string()} y1={(6.0 + second_y).to_string()} y2={(22.0 + second_y).to_string()} class="si-line" />
                <text x={(second_x + 20.0).to_string()} y={(18.0 + second_y).to_string()}>{ "sharing-incentive target u_i(e_i)" }</text>
            </g>
            { for ticks.iter().map(|&t| html! {
                <g class="tick">
                    <line x1={x.map(t).to_string()} x2={x.map(t).to_string()} y1={top.to_string()} y2={bottom.to_string()} class="grid" />
                    <text x={x.map(t).to_string()} y={(bottom + 16.0).to_string()} text-anchor="middle">{ tick_label(t) }</text>
                </g>
            }) }
            { for p.tenants.iter().enumerate().map(|(i, name)| {
                let row_top = top + i as f64 * rows.pitch;
                let y = row_top + rows.bar_offset;
                let (u, target) = (p.utility[i], p.si_target[i]);
                html! {
                    <g class="utility-row" data-tenant={name.clone()}>
                        if rows.names_above {
                            <text x={left.to_string()} y={(row_top + 12.0).to_string()}>{ super::shorten(name, 40) }</text>
                        } else {
                            <text x={(left - 8.0).to_string()} y={(y + BAR * 0.75).to_string()} text-anchor="end">{ super::shorten(name, 27) }</text>
                        }
                        <rect class="utility-bar" x={left.to_string()} y={y.to_string()}
                              width={(x.map(u) - left).max(0.0).to_string()} height={BAR.to_string()}>
                            <title>{ format!("{name}: utility {u:.4}, sharing-incentive target {target:.4} (ratio {:.4})", u / target) }</title>
                        </rect>
                        <line class="si-line" x1={x.map(target).to_string()} x2={x.map(target).to_string()}
                              y1={(y - 3.0).to_string()} y2={(y + BAR + 3.0).to_string()} />
                    </g>
                }
            }) }
            <text class="axis-label" x={((left + w) / 2.0).to_string()} y={(height - 8.0).to_string()} text-anchor="middle">
                { "utility (reference-GPU equivalents)" }
            </text>
        </svg>
    }
}

/// The utility chart's numbers: each tenant's utility, its sharing-incentive target and their ratio.
pub fn utility_table(tenants: &[String], utility: &[f64], si_target: &[f64]) -> DataTable {
    let columns = ["utility u_i", "target u_i(e_i)", "ratio"].map(String::from);
    grid("tenant", tenants, &columns, &|i, j| {
        let (u, target) = (utility[i], si_target[i]);
        format!("{:.4}", [u, target, u / target][j])
    })
}
