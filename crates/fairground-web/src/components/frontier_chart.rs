//! The price of fairness: the efficiency frontier under each fairness constraint, with the
//! policies' points. Presentational: data from props, scale math in plain functions.

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

/// The dash of a curve drawn over an equal one: the one below shows through its gaps.
const COINCIDING_DASH: &str = "8 6";

/// For each curve, the first earlier curve it equals (within 1e-9 of the larger value at every
/// eps), if any.
fn same_as_earlier(curves: &[&[f64]]) -> Vec<Option<usize>> {
    let equal = |a: &[f64], b: &[f64]| {
        a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|(x, y)| (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0))
    };
    curves
        .iter()
        .enumerate()
        .map(|(k, c)| (0..k).find(|&j| equal(curves[j], c)))
        .collect()
}

/// One curve per guarantee (efficiency against eps, straight between grid points) and every
/// policy as a point at the eps it needs for both guarantees.
#[component]
pub fn FrontierChart(p: &FrontierChartProps) -> Html {
    let f = &p.frontier;
    // A curve equal to an earlier one would hide under it (EF only often is SI + EF): it is
    // drawn dashed on top, and its legend entry names the curve it coincides with.
    let same_as = same_as_earlier(
        &f.curves
            .iter()
            .map(|c| c.efficiency.as_slice())
            .collect::<Vec<_>>(),
    );
    let named: Vec<String> = f
        .curves
        .iter()
        .zip(&same_as)
        .map(|(c, same)| match same {
            Some(j) => format!(
                "{} (= {})",
                c.guarantee.label(),
                f.curves[*j].guarantee.label()
            ),
            None => c.guarantee.label().to_string(),
        })
        .collect();
    let labels: Vec<&str> = named.iter().map(String::as_str).collect();
    let entries: Vec<(&str, &str, &str)> = labels
        .iter()
        .enumerate()
        .map(|(k, l)| {
            (
                *l,
                type_colour(k),
                if same_as[k].is_some() {
                    COINCIDING_DASH
                } else {
                    ""
                },
            )
        })
        .collect();
    let w = super::chart_width();
    let legend = legend_layout(&labels, 56.0, w - 16.0, 7.0);
    // The plot moves down by the legend's extra rows (a narrow chart wraps it).
    let extra = 16.0 * legend.last().map_or(0, |e| e.1) as f64;
    let (h, left, bottom, top) = (340.0 + extra, 64.0, 44.0, 30.0 + extra);
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
                              stroke={type_colour(k)} stroke-width="2"
                              stroke-dasharray={same_as[k].map(|_| COINCIDING_DASH)}>
                        <title>{ format!("{}: price of fairness {:.2}%", c.guarantee.label(), 100.0 * c.price_of_fairness) }</title>
                    </polyline>
                }
            }) }
            { labelled_points(&points, plot, None) }
            <text class="axis-label" x={((left + w) / 2.0).to_string()} y={(h - 8.0).to_string()} text-anchor="middle">
                // Short enough for a phone's chart; the glossary and the tour define eps.
                { "eps: relaxation (0 exact, 1 none)" }
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
    fn a_curve_equal_to_an_earlier_one_is_told_apart() {
        let si = [1.0, 2.0, 3.0];
        let ef = [1.5, 2.5, 3.0];
        let both = [1.5, 2.5 + 1e-12, 3.0];
        assert_eq!(same_as_earlier(&[&si, &ef, &both]), [None, None, Some(1)]);
        assert_eq!(same_as_earlier(&[&si, &[1.0, 2.0]]), [None, None]);
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
