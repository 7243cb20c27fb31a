//! The allocation as per-tenant bars stacked by GPU type. Presentational: data from props,
//! scale math in plain functions.

use super::shorten;
use crate::palette::type_colour;
use crate::scale::{bar_rows, legend_layout, nice_ticks, tick_label, BarRows, LinearScale};
use crate::svg::{SvgNode, SvgRender};
use fairground_chart::table::{grid, DataTable};
use fairground_core::{Allocation, Instance};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct AllocationChartProps {
    pub instance: Rc<Instance>,
    pub allocation: Rc<Allocation>,
}

const LABEL_WIDTH: f64 = 210.0;
const RIGHT_PAD: f64 = 24.0;
const BAR: f64 = 22.0;
const GAP: f64 = 10.0;
const AXIS: f64 = 46.0;
const NAME_CHARS: usize = 27;

/// Per-tenant horizontal bars of GPUs held, stacked by GPU type, with a legend and an x axis,
/// drawn at the width the page has for it (`chart_width`).
#[component]
pub fn AllocationChart(props: &AllocationChartProps) -> Html {
    let inst = &props.instance;
    let w = super::chart_width();
    allocation_svg(
        &inst.tenant_names,
        &inst.type_names,
        &props.allocation.gpus,
        w,
    )
    .to_html()
}

/// The allocation chart, `w` units wide (one definition: the playground draws it through Yew,
/// the JavaScript module's `renderChart` through the DOM). `gpus[i][j]`: GPUs of type j tenant
/// i holds. Names sit left of their bars, or above them on a narrow chart
/// ([`fairground_chart::scale::bar_rows`]); the legend wraps.
pub fn allocation_svg(tenants: &[String], types: &[String], gpus: &[Vec<f64>], w: f64) -> SvgNode {
    let rows = bar_rows(w, LABEL_WIDTH, BAR, GAP);
    let held: Vec<f64> = gpus.iter().map(|row| row.iter().sum()).collect();
    let ticks = nice_ticks(held.iter().copied().fold(0.0, f64::max), 6);
    let x_max = ticks.last().copied().unwrap_or(1.0);
    let x = LinearScale::new((0.0, x_max), (rows.plot_left, w - RIGHT_PAD));
    let names: Vec<String> = types.iter().map(|t| shorten(t, 12)).collect();
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let places = legend_layout(&name_refs, rows.plot_left, w - RIGHT_PAD, 7.0);
    let top = 34.0 + 16.0 * places.last().map_or(0, |p| p.1) as f64;
    let plot_bottom = top + tenants.len() as f64 * rows.pitch;
    let height = plot_bottom + AXIS;

    let legend = names
        .iter()
        .zip(&places)
        .enumerate()
        .map(|(j, (name, &(left, row)))| legend_item(j, name, left, row));
    let grid = ticks.iter().map(|&t| {
        let px = x.map(t);
        SvgNode::new("g")
            .attr("class", "tick")
            .child(
                SvgNode::new("line")
                    .attr("x1", px)
                    .attr("x2", px)
                    .attr("y1", top)
                    .attr("y2", plot_bottom)
                    .attr("class", "grid"),
            )
            .child(
                SvgNode::new("text")
                    .attr("x", px)
                    .attr("y", plot_bottom + 16.0)
                    .attr("text-anchor", "middle")
                    .text(tick_label(t)),
            )
    });
    let bars = gpus.iter().enumerate().map(|(i, row)| {
        let row_top = top + i as f64 * rows.pitch;
        tenant_bar((&tenants[i], held[i], row), types, &x, &rows, row_top)
    });
    SvgNode::new("svg")
        .attr("viewBox", format!("0 0 {w} {height}"))
        .attr("role", "img")
        .attr("data-testid", "allocation-chart")
        .attr(
            "aria-label",
            "GPUs held by each tenant, stacked by GPU type",
        )
        .children(legend)
        .children(grid)
        .children(bars)
        .child(
            SvgNode::new("text")
                .attr("class", "axis-label")
                .attr("x", (rows.plot_left + w - RIGHT_PAD) / 2.0)
                .attr("y", height - 8.0)
                .attr("text-anchor", "middle")
                .text("GPUs held (time-averaged)"),
        )
}

/// A GPU type's legend entry: its colour's square and its name, at `left` on legend row `row`.
fn legend_item(j: usize, name: &str, left: f64, row: usize) -> SvgNode {
    let y = 6.0 + 16.0 * row as f64;
    SvgNode::new("g")
        .attr("class", "legend-item")
        .child(
            SvgNode::new("rect")
                .attr("x", left)
                .attr("y", y)
                .attr("width", 14)
                .attr("height", 14)
                .attr("fill", type_colour(j)),
        )
        .child(
            SvgNode::new("text")
                .attr("x", left + 20.0)
                .attr("y", y + 12.0)
                .attr("class", "legend-label")
                .text(name.to_string()),
        )
}

/// A tenant's bar: its name (left of the bar, or above it on a narrow chart) and a segment per
/// GPU type it holds, in the type's colour, each titled with its GPUs.
fn tenant_bar(
    (name, held, row): (&str, f64, &[f64]),
    types: &[String],
    x: &LinearScale,
    rows: &BarRows,
    row_top: f64,
) -> SvgNode {
    let y = row_top + rows.bar_offset;
    let mut left = 0.0;
    let segments: Vec<SvgNode> = row
        .iter()
        .enumerate()
        .filter(|(_, &g)| g > 1e-9)
        .map(|(j, &g)| {
            let (x0, x1) = (x.map(left), x.map(left + g));
            left += g;
            SvgNode::new("rect")
                .attr("class", "segment")
                .attr("x", x0)
                .attr("y", y)
                .attr("width", (x1 - x0).max(0.0))
                .attr("height", BAR)
                .attr("fill", type_colour(j))
                .child(SvgNode::new("title").text(format!("{name} on {}: {g:.4} GPUs", types[j])))
        })
        .collect();
    let (label_x, label_y, anchor, chars) = if rows.names_above {
        (rows.plot_left, row_top + 12.0, "start", 40)
    } else {
        (rows.plot_left - 8.0, y + BAR * 0.7, "end", NAME_CHARS)
    };
    SvgNode::new("g")
        .attr("class", "bar")
        .attr("data-tenant", name)
        .child(
            SvgNode::new("text")
                .attr("class", "tenant-label")
                .attr("x", label_x)
                .attr("y", label_y)
                .attr("text-anchor", anchor)
                .text(shorten(name, chars))
                .child(SvgNode::new("title").text(format!("{name}: {held:.4} GPUs in all"))),
        )
        .children(segments)
}

/// The allocation chart's numbers: GPUs of each type per tenant, and in all.
pub fn allocation_table(tenants: &[String], types: &[String], gpus: &[Vec<f64>]) -> DataTable {
    let mut columns = types.to_vec();
    columns.push("all types".into());
    grid("tenant", tenants, &columns, &|i, j| {
        let held = gpus[i]
            .get(j)
            .copied()
            .unwrap_or_else(|| gpus[i].iter().sum());
        format!("{held:.3}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scale::WIDE;

    /// On a phone (340 units) the names go on their own line above their bars, which start at
    /// the left edge; the legend wraps within the width.
    #[test]
    fn a_narrow_chart_puts_names_above_full_width_bars() {
        let tenants = vec!["Recommendation (batch size 2048)".to_string()];
        let types: Vec<String> = ["k80", "p100", "v100", "a100", "h100"]
            .map(String::from)
            .to_vec();
        let svg = allocation_svg(&tenants, &types, &[vec![1.0; 5]], 340.0);
        assert_eq!(svg.get("viewBox").unwrap().split(' ').nth(2), Some("340"));
        let all = svg.descendants();
        let name = all
            .iter()
            .find(|n| n.get("class") == Some("tenant-label"))
            .unwrap();
        assert_eq!(
            name.text.as_deref(),
            Some("Recommendation (batch size 2048)")
        );
        assert_eq!(
            (name.get("x"), name.get("text-anchor")),
            (Some("8"), Some("start"))
        );
        let first = all
            .iter()
            .find(|n| n.get("class") == Some("segment"))
            .unwrap();
        assert_eq!(first.get("x"), Some("8"));
        let y = |n: &SvgNode| n.get("y").unwrap().parse::<f64>().unwrap();
        assert!(y(first) > y(name), "the bar is under its name");
        // Five entries of about 77 units do not fit on one 316-unit line: two rows.
        let legend_y: Vec<f64> = all
            .iter()
            .filter(|n| n.get("class") == Some("legend-label"))
            .map(|n| y(n))
            .collect();
        assert_eq!((legend_y[0], legend_y[4]), (18.0, 34.0));
    }

    /// What a reader checks on the chart: one bar per tenant, one segment per type held, each
    /// segment as wide as its GPUs on the axis, names kept whole in the tooltips.
    #[test]
    fn bars_and_segments_follow_the_allocation() {
        let tenants = vec!["A".to_string(), "<b>B</b>".to_string()];
        let types = vec!["k80".to_string(), "v100".to_string()];
        let gpus = vec![vec![1.0, 0.5], vec![0.0, 1.5]];
        let svg = allocation_svg(&tenants, &types, &gpus, WIDE);
        let all = svg.descendants();
        let bars: Vec<_> = all
            .iter()
            .filter(|n| n.get("class") == Some("bar"))
            .collect();
        assert_eq!(bars.len(), 2);
        assert_eq!(bars[1].get("data-tenant"), Some("<b>B</b>"));
        let segments: Vec<_> = all
            .iter()
            .filter(|n| n.get("class") == Some("segment"))
            .collect();
        assert_eq!(segments.len(), 3, "B holds no k80");
        // Ticks 0..1.5 step 0.25 end at 1.5: the plot spans [LABEL_WIDTH, WIDTH - RIGHT_PAD].
        let px_per_gpu = (WIDE - RIGHT_PAD - LABEL_WIDTH) / 1.5;
        let width = |n: &SvgNode| n.get("width").unwrap().parse::<f64>().unwrap();
        assert!((width(segments[0]) - px_per_gpu).abs() < 1e-9);
        assert!((width(segments[2]) - 1.5 * px_per_gpu).abs() < 1e-9);
        assert_eq!(
            segments[2].children[0].text.as_deref(),
            Some("<b>B</b> on v100: 1.5000 GPUs")
        );
    }

    #[test]
    fn allocation_table_lists_each_type_and_the_total() {
        let t = super::allocation_table(
            &["a".into(), "b".into()],
            &["V100".into(), "K80".into()],
            &[vec![1.5, 0.0], vec![0.25, 2.0]],
        );
        assert_eq!(t.head, ["tenant", "V100", "K80", "all types"]);
        assert_eq!(t.rows[0], ["a", "1.500", "0.000", "1.500"]);
        assert_eq!(t.rows[1], ["b", "0.250", "2.000", "2.250"]);
    }
}
