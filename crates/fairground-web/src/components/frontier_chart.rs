use super::compare::{label_area, labelled_points};
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

/// One curve per guarantee (efficiency against eps, straight between grid points) and every
/// policy as a point at the eps it needs for both guarantees.
#[component]
pub fn FrontierChart(p: &FrontierChartProps) -> Html {
    let f = &p.frontier;
    let labels: Vec<&str> = f.curves.iter().map(|c| c.guarantee.label()).collect();
    let entries: Vec<(&str, &str, &str)> = labels
        .iter()
        .enumerate()
        .map(|(k, l)| (*l, type_colour(k), ""))
        .collect();
    let legend = legend_layout(&labels, 56.0, 704.0, 7.0);
    let (w, h, left, bottom, top) = (720.0, 340.0, 64.0, 44.0, 30.0);
    let (lo, hi) = efficiency_range(f);
    let yt = range_ticks(lo, hi, 5);
    let xt = nice_ticks(1.0, 5);
    let x = LinearScale::new((0.0, 1.0), (left, w - 16.0));
    let y = LinearScale::new((yt[0], *yt.last().unwrap_or(&1.0)), (h - bottom, top));
    let points: Vec<(String, f64, f64, String)> = f
        .policies
        .iter()
        .map(|pt| {
            let title = format!(
                "{}: efficiency {:.4}; meets SI relaxed by {:.4}, EF by {:.4}",
                pt.policy, pt.efficiency, pt.eps_sharing_incentive, pt.eps_envy_freeness
            );
            (
                pt.policy.clone(),
                x.map(pt.eps_both),
                y.map(pt.efficiency),
                title,
            )
        })
        .collect();
    let plot = label_area(w, h, left, top, bottom);
    html! {
        <svg viewBox={format!("0 0 {w} {h}")} role="img" data-testid="frontier-chart"
             aria-label="most efficient allocation against the relaxation eps of each guarantee">
            { for legend_entries(&entries, &legend).iter().map(SvgRender::to_html) }
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
            { labelled_points(&points, plot, None) }
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
