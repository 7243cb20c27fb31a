use crate::scale::{nice_ticks, tick_label, LinearScale};
use fairground_chart::table::{grid, DataTable};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct UtilityChartProps {
    pub tenants: Vec<String>,
    pub utility: Vec<f64>,
    /// u_i(e_i): the sharing-incentive line per tenant.
    pub si_target: Vec<f64>,
}

const WIDTH: f64 = 720.0;
const LABEL: f64 = 210.0;
const TOP: f64 = 30.0;
const BAR: f64 = 18.0;
const GAP: f64 = 10.0;

/// Each tenant's utility (reference-GPU equivalents) against its sharing-incentive target.
#[component]
pub fn UtilityChart(p: &UtilityChartProps) -> Html {
    let max = p
        .utility
        .iter()
        .chain(&p.si_target)
        .copied()
        .fold(0.0, f64::max);
    let ticks = nice_ticks(max, 6);
    let x = LinearScale::new(
        (0.0, ticks.last().copied().unwrap_or(1.0)),
        (LABEL, WIDTH - 24.0),
    );
    let bottom = TOP + p.tenants.len() as f64 * (BAR + GAP);
    let height = bottom + 44.0;
    html! {
        <svg viewBox={format!("0 0 {WIDTH} {height}")} role="img" data-testid="utility-chart"
             aria-label="Utility of each tenant against its sharing-incentive target">
            <g class="legend-item">
                <rect x={LABEL.to_string()} y="8" width="14" height="12" class="utility-bar" />
                <text x={(LABEL + 20.0).to_string()} y="18">{ "utility u_i" }</text>
                <line x1={(LABEL + 130.0).to_string()} x2={(LABEL + 130.0).to_string()} y1="6" y2="22" class="si-line" />
                <text x={(LABEL + 138.0).to_string()} y="18">{ "sharing-incentive target u_i(e_i)" }</text>
            </g>
            { for ticks.iter().map(|&t| html! {
                <g class="tick">
                    <line x1={x.map(t).to_string()} x2={x.map(t).to_string()} y1={TOP.to_string()} y2={bottom.to_string()} class="grid" />
                    <text x={x.map(t).to_string()} y={(bottom + 16.0).to_string()} text-anchor="middle">{ tick_label(t) }</text>
                </g>
            }) }
            { for p.tenants.iter().enumerate().map(|(i, name)| {
                let y = TOP + i as f64 * (BAR + GAP);
                let (u, target) = (p.utility[i], p.si_target[i]);
                html! {
                    <g class="utility-row" data-tenant={name.clone()}>
                        <text x={(LABEL - 8.0).to_string()} y={(y + BAR * 0.75).to_string()} text-anchor="end">{ super::shorten(name, 27) }</text>
                        <rect class="utility-bar" x={LABEL.to_string()} y={y.to_string()}
                              width={(x.map(u) - LABEL).max(0.0).to_string()} height={BAR.to_string()}>
                            <title>{ format!("{name}: utility {u:.4}, sharing-incentive target {target:.4} (ratio {:.4})", u / target) }</title>
                        </rect>
                        <line class="si-line" x1={x.map(target).to_string()} x2={x.map(target).to_string()}
                              y1={(y - 3.0).to_string()} y2={(y + BAR + 3.0).to_string()} />
                    </g>
                }
            }) }
            <text class="axis-label" x={((LABEL + WIDTH) / 2.0).to_string()} y={(height - 8.0).to_string()} text-anchor="middle">
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
