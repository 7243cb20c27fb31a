use crate::palette::type_colour;
use crate::scale::{legend_layout, nice_ticks, range_ticks, LinearScale};
use crate::svg::SvgRender;
use fairground_chart::line::{grid_and_ticks, legend_entries};
use fairground_core::frontier::Frontier;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct FrontierChartProps {
    pub frontier: Rc<Frontier>,
}

/// The smallest and largest efficiency on the chart: curves and policy points together.
pub fn efficiency_range(f: &Frontier) -> (f64, f64) {
    f.curves
        .iter()
        .flat_map(|c| c.efficiency.iter().copied())
        .chain(f.policies.iter().map(|p| p.efficiency))
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        })
}

/// Each point with how many earlier points lie within 6 px of it (its label's line in a stack).
pub fn label_spots(points: &[(f64, f64)]) -> Vec<(f64, f64, usize)> {
    points
        .iter()
        .enumerate()
        .map(|(k, &(px, py))| {
            let nth = points[..k]
                .iter()
                .filter(|&&(qx, qy)| (qx - px).hypot(qy - py) < 6.0)
                .count();
            (px, py, nth)
        })
        .collect()
}

/// One curve per guarantee (efficiency against eps, straight between grid points) and every
/// policy as a point at the eps it needs for both guarantees.
#[component]
pub fn FrontierChart(p: &FrontierChartProps) -> Html {
    let f = &p.frontier;
    let labels: Vec<&str> = f.curves.iter().map(|c| c.guarantee.label()).collect();
    let legend = legend_layout(&labels, 56.0, 704.0, 7.0);
    let (w, h, left, bottom, top) = (720.0, 340.0, 64.0, 44.0, 30.0);
    let (lo, hi) = efficiency_range(f);
    let yt = range_ticks(lo, hi, 5);
    let xt = nice_ticks(1.0, 5);
    let x = LinearScale::new((0.0, 1.0), (left, w - 16.0));
    let y = LinearScale::new((yt[0], *yt.last().unwrap_or(&1.0)), (h - bottom, top));
    let spots = label_spots(
        &f.policies
            .iter()
            .map(|pt| (x.map(pt.eps_both), y.map(pt.efficiency)))
            .collect::<Vec<_>>(),
    );
    html! {
        <svg viewBox={format!("0 0 {w} {h}")} role="img" data-testid="frontier-chart"
             aria-label="most efficient allocation against the relaxation eps of each guarantee">
            { for legend_entries(&labels, &legend).iter().map(SvgRender::to_html) }
            { for grid_and_ticks(&xt, &yt, &x, &y, (left, w - 16.0, top, h - bottom)).iter().map(SvgRender::to_html) }
            { for f.curves.iter().enumerate().map(|(k, c)| {
                let path: Vec<String> = f.eps.iter().zip(&c.efficiency)
                    .map(|(&e, &v)| format!("{:.2},{:.2}", x.map(e), y.map(v))).collect();
                html! {
                    <polyline class="series" data-series={c.guarantee.label()} points={path.join(" ")} fill="none"
                              stroke={type_colour(k)} stroke-width="2">
                        <title>{ format!("{}: price of fairness {:.2}%", c.guarantee.label(), 100.0 * c.price_of_fairness) }</title>
                    </polyline>
                }
            }) }
            { for f.policies.iter().zip(&spots).map(|(pt, &(cx, cy, nth))| {
                // Labels of points at one spot stack downwards; near the right edge they go left.
                let right = pt.eps_both > 0.75;
                let lx = if right { cx - 7.0 } else { cx + 7.0 };
                html! {
                    <g class="point" data-policy={pt.policy.clone()}>
                        <circle cx={cx.to_string()} cy={cy.to_string()} r="4.5" fill="none" stroke="currentColor" stroke-width="1.5">
                            <title>{ format!("{}: efficiency {:.4}; meets SI relaxed by {:.4}, EF by {:.4}",
                                pt.policy, pt.efficiency, pt.eps_sharing_incentive, pt.eps_envy_freeness) }</title>
                        </circle>
                        <text x={lx.to_string()} y={(cy - 5.0 + 11.0 * nth as f64).to_string()} class="point-label"
                              text-anchor={if right { "end" } else { "start" }}>{ pt.policy.clone() }</text>
                    </g>
                }
            }) }
            <text class="axis-label" x={((left + w) / 2.0).to_string()} y={(h - 8.0).to_string()} text-anchor="middle">
                { "eps: how far each guarantee is relaxed (0 exact, 1 none)" }
            </text>
            <text class="axis-label" transform={format!("translate(14, {}) rotate(-90)", (h - bottom + top) / 2.0)} text-anchor="middle">
                { "efficiency" }
            </text>
        </svg>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairground_core::frontier::{Curve, Guarantee, PolicyPoint};

    #[test]
    fn labels_of_points_at_one_spot_stack() {
        let spots = label_spots(&[(10.0, 10.0), (50.0, 10.0), (12.0, 11.0), (10.0, 10.0)]);
        let nth: Vec<usize> = spots.iter().map(|s| s.2).collect();
        assert_eq!(nth, [0, 0, 1, 2]);
    }

    #[test]
    fn the_range_spans_curves_and_points() {
        let f = Frontier {
            step: 0.5,
            eps: vec![0.0, 0.5, 1.0],
            curves: vec![Curve {
                guarantee: Guarantee::Both,
                efficiency: vec![3.75, 3.9, 4.0],
                price_of_fairness: 0.0625,
            }],
            max_efficiency: 4.0,
            policies: vec![PolicyPoint {
                policy: "partial-allocation".into(),
                efficiency: 1.97,
                eps_sharing_incentive: 0.44,
                eps_envy_freeness: 0.0,
                eps_both: 0.44,
            }],
            failed: vec![],
        };
        assert_eq!(efficiency_range(&f), (1.97, 4.0));
    }
}
