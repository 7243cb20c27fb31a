use crate::scale::{nice_ticks, tick_label, LinearScale};
use fairground_core::report::PolicyReport;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ScatterProps {
    /// (label, x, y)
    pub points: Vec<(String, f64, f64)>,
    pub x_label: AttrValue,
    pub y_label: AttrValue,
    pub testid: AttrValue,
}

/// A labelled scatter plot (policies as points).
#[component]
pub fn Scatter(p: &ScatterProps) -> Html {
    let (w, h, left, bottom) = (460.0, 300.0, 56.0, 44.0);
    let finite = |v: f64| if v.is_finite() { v } else { 0.0 };
    let xmax = p.points.iter().map(|q| finite(q.1)).fold(0.0, f64::max);
    let ymax = p.points.iter().map(|q| finite(q.2)).fold(0.0, f64::max);
    let (xt, yt) = (nice_ticks(xmax, 5), nice_ticks(ymax, 5));
    let x = LinearScale::new((0.0, *xt.last().unwrap_or(&1.0)), (left, w - 16.0));
    let y = LinearScale::new((0.0, *yt.last().unwrap_or(&1.0)), (h - bottom, 12.0));
    html! {
        <svg viewBox={format!("0 0 {w} {h}")} role="img" data-testid={p.testid.clone()}
             aria-label={format!("{} against {}", p.y_label, p.x_label)}>
            { for xt.iter().map(|&t| html! {
                <g class="tick"><line class="grid" x1={x.map(t).to_string()} x2={x.map(t).to_string()} y1="12" y2={(h - bottom).to_string()} />
                <text x={x.map(t).to_string()} y={(h - bottom + 16.0).to_string()} text-anchor="middle">{ tick_label(t) }</text></g>
            }) }
            { for yt.iter().map(|&t| html! {
                <g class="tick"><line class="grid" x1={left.to_string()} x2={(w - 16.0).to_string()} y1={y.map(t).to_string()} y2={y.map(t).to_string()} />
                <text x={(left - 6.0).to_string()} y={(y.map(t) + 4.0).to_string()} text-anchor="end">{ tick_label(t) }</text></g>
            }) }
            { for p.points.iter().enumerate().map(|(k, (label, px, py))| html! {
                <g class="point" data-policy={label.clone()}>
                    <circle cx={x.map(finite(*px)).to_string()} cy={y.map(finite(*py)).to_string()} r="5"
                            fill={crate::palette::type_colour(k)}>
                        <title>{ format!("{label}: {} {px:.4}, {} {py:.4}", p.x_label, p.y_label) }</title>
                    </circle>
                    <text x={(x.map(finite(*px)) + 7.0).to_string()} y={(y.map(finite(*py)) - 6.0 + (k % 3) as f64 * 5.0).to_string()} class="point-label">{ label }</text>
                </g>
            }) }
            <text class="axis-label" x={((left + w) / 2.0).to_string()} y={(h - 8.0).to_string()} text-anchor="middle">{ p.x_label.clone() }</text>
            <text class="axis-label" transform={format!("translate(14, {}) rotate(-90)", (h - bottom) / 2.0)} text-anchor="middle">{ p.y_label.clone() }</text>
        </svg>
    }
}

#[derive(Properties, PartialEq)]
pub struct CompareTableProps {
    pub reports: Vec<PolicyReport>,
}

/// Every policy's metrics in one table.
#[component]
pub fn CompareTable(p: &CompareTableProps) -> Html {
    let yes = |b: bool| if b { "✓" } else { "✗" };
    html! {
        <table class="compare-table" data-testid="compare-table">
            <thead><tr>
                <th>{ "policy" }</th><th>{ "objective" }</th><th>{ "efficiency" }</th><th>{ "Jain" }</th>
                <th>{ "worst SI ratio" }</th><th>{ "worst envy" }</th><th>{ "SI" }</th><th>{ "EF" }</th><th>{ "PE" }</th>
            </tr></thead>
            <tbody>{ for p.reports.iter().map(|r| {
                let q = &r.properties;
                html! {
                    <tr data-policy={r.policy.clone()}>
                        <td>{ &r.policy }</td>
                        <td>{ format!("{:.4}", r.objective) }</td>
                        <td class="efficiency">{ format!("{:.4}", r.efficiency) }</td>
                        <td>{ format!("{:.4}", r.metrics.jain) }</td>
                        <td>{ format!("{:.4}", q.sharing_incentive.worst_ratio) }</td>
                        <td>{ if q.envy_freeness.holds.is_some() { format!("{:.4}", q.envy_freeness.worst_envy.max(0.0)) } else { "–".to_string() } }</td>
                        <td>{ yes(q.sharing_incentive.holds) }</td>
                        <td>{ q.envy_freeness.holds.map_or("?", yes) }</td>
                        <td>{ q.pareto_efficiency.holds.map_or("?", yes) }</td>
                    </tr>
                }
            }) }</tbody>
        </table>
    }
}
