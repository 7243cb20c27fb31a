//! Compare all: every policy's figures as a table and as a scatter of efficiency against
//! fairness, points labelled in their family's colour. Presentational.

use crate::palette::{family_of, family_style, policy_colour, Family, FAMILIES};
use crate::scale::{legend_layout, nice_ticks, tick_label, LinearScale};
use crate::svg::SvgRender;
use fairground_chart::labels::{group_points, label_lines, place_labels, Rect};
use fairground_chart::line::legend_entries;
use fairground_core::report::PolicyReport;
use yew::prelude::*;

/// Where a label's text is anchored: on its box's side toward its point (the end of a box left
/// of it, the start of one to its right), or the middle when the point is about the box's middle
/// (above or below it); SVG's `text-anchor` and the x it applies to.
fn text_anchor(rect: &Rect, point_x: f64) -> (&'static str, f64) {
    let middle = rect.x + rect.w / 2.0;
    if (point_x - middle).abs() <= rect.w / 4.0 {
        ("middle", middle)
    } else if point_x > middle {
        ("end", rect.x + rect.w)
    } else {
        ("start", rect.x)
    }
}

#[derive(Properties, PartialEq)]
pub struct ScatterProps {
    /// (label, x, y)
    pub points: Vec<(String, f64, f64)>,
    pub x_label: AttrValue,
    pub y_label: AttrValue,
    pub testid: AttrValue,
    /// Opens a policy when its point or name is clicked.
    #[prop_or_default]
    pub on_pick: Option<Callback<String>>,
}

/// A scatter plot of policies: each point in its family's colour, with a legend of the
/// families; one label per spot naming every policy there, placed inside the plot where it
/// overlaps no other label (`fairground_chart::labels`).
#[component]
pub fn Scatter(p: &ScatterProps) -> Html {
    // Two to a row on a desktop; on a phone, as wide as the phone.
    let w = super::chart_width().min(460.0);
    let (left, bottom) = (56.0, 44.0);
    // The legend first: a second row of families (a phone's width) moves the plot down by a
    // row, so the legend never sits on the plot (issue 78: "baselines" overlapped its top).
    let mut families: Vec<Family> = p.points.iter().map(|q| family_of(&q.0)).collect();
    families.sort_by_key(|f| FAMILIES.iter().position(|g| g.0 == *f));
    families.dedup();
    let entries: Vec<(&str, &str, &str)> = families
        .iter()
        .map(|&f| {
            let (name, colour) = family_style(f);
            (name, colour, "")
        })
        .collect();
    let names: Vec<&str> = entries.iter().map(|e| e.0).collect();
    let legend = legend_layout(&names, left, w - 16.0, 7.0);
    let extra_rows = legend.iter().map(|&(_, row)| row).max().unwrap_or(0) as f64;
    let (top, h) = (30.0 + 16.0 * extra_rows, 320.0 + 16.0 * extra_rows);
    let finite = |v: f64| if v.is_finite() { v } else { 0.0 };
    let xmax = p.points.iter().map(|q| finite(q.1)).fold(0.0, f64::max);
    let ymax = p.points.iter().map(|q| finite(q.2)).fold(0.0, f64::max);
    let (xt, yt) = (nice_ticks(xmax, 5), nice_ticks(ymax, 5));
    let x = LinearScale::new((0.0, *xt.last().unwrap_or(&1.0)), (left, w - 16.0));
    let y = LinearScale::new((0.0, *yt.last().unwrap_or(&1.0)), (h - bottom, top));
    let points: Vec<(String, f64, f64, String)> = p
        .points
        .iter()
        .map(|(label, px, py)| {
            let title = format!("{label}: {} {px:.4}, {} {py:.4}", p.x_label, p.y_label);
            (label.clone(), x.map(finite(*px)), y.map(finite(*py)), title)
        })
        .collect();
    let plot = label_area(w, h, left, top, bottom);
    html! {
        // Never drawn larger than it is made (text at 12 px, not 18 px in a wide column).
        <svg viewBox={format!("0 0 {w} {h}")} style={format!("max-width: {w}px")} role="img" data-testid={p.testid.clone()}
             aria-label={format!("{} against {}", p.y_label, p.x_label)}>
            { for legend_entries(&entries, &legend).iter().map(SvgRender::to_html) }
            { for xt.iter().map(|&t| html! {
                <g class="tick"><line class="grid" x1={x.map(t).to_string()} x2={x.map(t).to_string()} y1={top.to_string()} y2={(h - bottom).to_string()} />
                <text x={x.map(t).to_string()} y={(h - bottom + 16.0).to_string()} text-anchor="middle">{ tick_label(t) }</text></g>
            }) }
            { for yt.iter().map(|&t| html! {
                <g class="tick"><line class="grid" x1={left.to_string()} x2={(w - 16.0).to_string()} y1={y.map(t).to_string()} y2={y.map(t).to_string()} />
                <text x={(left - 6.0).to_string()} y={(y.map(t) + 4.0).to_string()} text-anchor="end">{ tick_label(t) }</text></g>
            }) }
            { labelled_points(&points, plot, p.on_pick.clone()) }
            <text class="axis-label" x={((left + w) / 2.0).to_string()} y={(h - 8.0).to_string()} text-anchor="middle">{ p.x_label.clone() }</text>
            <text class="axis-label" transform={format!("translate(14, {}) rotate(-90)", (h - bottom + top) / 2.0)} text-anchor="middle">{ p.y_label.clone() }</text>
        </svg>
    }
}

/// Where a chart's point labels may go: its plot, from the left axis to the right edge and
/// from just above the top grid line to the x axis (`w` x `h`, margins `left`, `top`, `bottom`).
pub fn label_area(w: f64, h: f64, left: f64, top: f64, bottom: f64) -> Rect {
    Rect {
        x: left,
        y: top - 4.0,
        w: w - left - 4.0,
        h: h - bottom - top + 4.0,
    }
}

/// Policies as points (name, x, y in px, tooltip), each in its family's colour, and one label
/// per spot naming every policy there, placed inside `plot` where it overlaps no other label
/// (`fairground_chart::labels`, with a leader line when it had to move away). Clicking a point
/// or a name in a label opens that policy, when `on_pick` is given.
pub fn labelled_points(
    points: &[(String, f64, f64, String)],
    plot: Rect,
    on_pick: Option<Callback<String>>,
) -> Html {
    let at: Vec<(f64, f64)> = points.iter().map(|q| (q.1, q.2)).collect();
    let labels: Vec<((f64, f64), Vec<String>)> = group_points(&at, 4.0)
        .into_iter()
        .map(|group| {
            let names: Vec<&str> = group.iter().map(|&k| points[k].0.as_str()).collect();
            (at[group[0]], label_lines(&names, 26))
        })
        .collect();
    let placed = place_labels(&labels, plot, 7.0, 14.0, 5.0);
    let pick = |name: &str| {
        on_pick.clone().map(|on_pick| {
            let name = name.to_string();
            Callback::from(move |_: MouseEvent| on_pick.emit(name.clone()))
        })
    };
    html! {
        <>
            { for points.iter().map(|(name, cx, cy, title)| html! {
                <circle class="point" data-policy={name.clone()} cx={cx.to_string()} cy={cy.to_string()} r="5"
                        fill={policy_colour(name)} onclick={pick(name)}>
                    <title>{ title.clone() }</title>
                </circle>
            }) }
            { for placed.iter().map(|l| {
                // The text is anchored on its box's side toward the point: the box's width is an
                // estimate (7 units a character), and a name narrower than it must not end up
                // away from its point.
                let (anchor, text_x) = text_anchor(&l.rect, l.point.0);
                html! {
                <g class="point-label">
                    if l.leader {
                        // In its points' colour, so it reads as theirs; grey when they are of
                        // several families (issue 78: a grey point's line was drawn orange).
                        <line class="leader" style={leader_style(&l.lines)}
                              x1={l.point.0.to_string()} y1={l.point.1.to_string()}
                              x2={l.point.0.clamp(l.rect.x, l.rect.x + l.rect.w).to_string()}
                              y2={l.point.1.clamp(l.rect.y, l.rect.y + l.rect.h).to_string()} />
                    }
                    <text text-anchor={anchor}>
                        { for l.lines.iter().enumerate().map(|(k, line)| html! {
                            <tspan x={text_x.to_string()} y={(l.rect.y + (k as f64 + 0.8) * 14.0).to_string()}>
                                { for line.split(' ').enumerate().map(|(m, piece)| {
                                    let name = piece.trim_end_matches(',');
                                    html! { <>
                                        if m > 0 { { " " } }
                                        <tspan data-policy={name.to_string()} onclick={pick(name)}>{ name }</tspan>
                                        { &piece[name.len()..] }
                                    </> }
                                }) }
                            </tspan>
                        }) }
                    </text>
                </g>
            } }) }
        </>
    }
}

/// A leader line's style for a label naming `lines`' policies: their family's colour when they
/// share one, else none (style.css's muted grey).
pub fn leader_style(lines: &[String]) -> Option<String> {
    let names: Vec<&str> = lines
        .iter()
        .flat_map(|line| line.split(' '))
        .map(|piece| piece.trim_end_matches(','))
        .filter(|name| !name.is_empty())
        .collect();
    let first = *names.first()?;
    names
        .iter()
        .all(|name| family_of(name) == family_of(first))
        .then(|| format!("stroke:{}", policy_colour(first)))
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
        <table class="compare-table" data-testid="compare-table" tabindex="0">
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_leader_takes_its_family_s_colour_or_grey_for_a_mix() {
        let lines = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            leader_style(&lines(&["gavel-las, gavel-ftf"])),
            Some(format!("stroke:{}", policy_colour("gavel-las")))
        );
        assert_eq!(
            leader_style(&lines(&["gavel-las-agnostic,", "equal-share, isolated"])),
            None
        );
        assert_eq!(leader_style(&[]), None);
    }

    #[test]
    fn a_label_is_anchored_on_the_side_toward_its_point() {
        let rect = |x: f64| Rect {
            x,
            y: 0.0,
            w: 70.0,
            h: 14.0,
        };
        // Left of the point: its text ends at the box's right edge, beside the point.
        assert_eq!(text_anchor(&rect(24.0), 100.0), ("end", 94.0));
        // Above or below (centred on it): the middle.
        assert_eq!(text_anchor(&rect(65.0), 100.0), ("middle", 100.0));
        // Right of it: the start.
        assert_eq!(text_anchor(&rect(106.0), 100.0), ("start", 106.0));
        // A box found anywhere over the point, its left part above it: toward the point, the start.
        assert_eq!(text_anchor(&rect(90.0), 100.0), ("start", 90.0));
    }
}
