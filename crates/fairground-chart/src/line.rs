//! The line chart (JCT CDFs, utilisation over time, JCT against load) as an [`SvgNode`]: lines
//! over a shared x axis from 0, a legend, grid and ticks, and for each line an optional band (the
//! spread over seeds). The playground's `LineChart` component and the CLI's sweep plots both draw
//! this, so a figure from the CLI looks like the page's.

use crate::palette::series_styles;
use crate::scale::{legend_layout, nice_ticks, tick_label, LinearScale};
use crate::svg::SvgNode;

/// One line: its label, its points, and optionally a band (x, low, high) drawn under it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    pub band: Vec<(f64, f64, f64)>,
}

impl Series {
    pub fn new(label: impl Into<String>, points: Vec<(f64, f64)>) -> Series {
        Series {
            label: label.into(),
            points,
            band: Vec::new(),
        }
    }
}

/// Lines over a shared x axis, with a legend, `w` units wide (the legend wraps to fit).
pub fn line_chart(
    series: &[Series],
    x_label: &str,
    y_label: &str,
    testid: &str,
    w: f64,
) -> SvgNode {
    let labels: Vec<&str> = series.iter().map(|s| s.label.as_str()).collect();
    // A series is a policy's: its family's colour, and a dash that sets it apart from its
    // family's other lines (lines that coincide stay distinguishable).
    let styles = series_styles(&labels);
    let entries: Vec<(&str, &str, &str)> = labels
        .iter()
        .zip(&styles)
        .map(|(l, (c, d))| (*l, *c, *d))
        .collect();
    let legend = legend_layout(&labels, 56.0, w - 16.0, 7.0);
    let rows = legend.last().map_or(1, |e| e.1 + 1) as f64;
    // The plot moves down by the legend's extra rows.
    let extra = 16.0 * (rows - 1.0);
    let (h, left, bottom, top) = (300.0 + extra, 56.0, 44.0, 30.0 + extra);
    let points = series.iter().flat_map(|s| {
        s.points
            .iter()
            .copied()
            .chain(s.band.iter().map(|&(x, _, hi)| (x, hi)))
    });
    let (xmax, ymax) = points.fold((0.0f64, 0.0f64), |(a, b), (x, y)| (a.max(x), b.max(y)));
    let (xt, yt) = (nice_ticks(xmax, 6), nice_ticks(ymax, 5));
    let x = LinearScale::new((0.0, *xt.last().unwrap_or(&1.0)), (left, w - 16.0));
    let y = LinearScale::new((0.0, *yt.last().unwrap_or(&1.0)), (h - bottom, top));
    let xy = |a: f64, b: f64| format!("{:.2},{:.2}", x.map(a), y.map(b));
    let bands = series
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.band.is_empty())
        .map(|(k, s)| {
            let upper = s.band.iter().map(|&(a, _, hi)| xy(a, hi));
            let lower = s.band.iter().rev().map(|&(a, lo, _)| xy(a, lo));
            SvgNode::new("polygon")
                .attr("class", "band")
                .attr("data-series", &s.label)
                .attr("points", upper.chain(lower).collect::<Vec<_>>().join(" "))
                .attr("fill", styles[k].0)
                .attr("fill-opacity", "0.18")
                .attr("stroke", "none")
        });
    let lines = series.iter().enumerate().map(|(k, s)| {
        let path: Vec<String> = s.points.iter().map(|&(a, b)| xy(a, b)).collect();
        SvgNode::new("polyline")
            .attr("class", "series")
            .attr("data-series", &s.label)
            .attr("points", path.join(" "))
            .attr("fill", "none")
            .attr("stroke", styles[k].0)
            .attr("stroke-width", "2")
            .attr("stroke-dasharray", styles[k].1)
            .child(SvgNode::new("title").text(s.label.clone()))
    });
    SvgNode::new("svg")
        .attr("viewBox", format!("0 0 {w} {h}"))
        .attr("role", "img")
        .attr("data-testid", testid)
        .attr("aria-label", format!("{y_label} against {x_label}"))
        .children(legend_entries(&entries, &legend))
        .children(grid_and_ticks(
            &xt,
            &yt,
            &x,
            &y,
            (left, w - 16.0, top, h - bottom),
        ))
        .children(bands)
        .children(lines)
        .child(
            SvgNode::new("text")
                .attr("class", "axis-label")
                .attr("x", (left + w) / 2.0)
                .attr("y", h - 8.0)
                .attr("text-anchor", "middle")
                .text(x_label),
        )
        .child(
            SvgNode::new("text")
                .attr("class", "axis-label")
                .attr(
                    "transform",
                    format!("translate(14, {}) rotate(-90)", (h - bottom + top) / 2.0),
                )
                .attr("text-anchor", "middle")
                .text(y_label),
        )
}

/// A chart legend: per (label, colour, dash) entry a stroke as its lines are drawn and the
/// label, at `layout`'s (x, row) places.
pub fn legend_entries(entries: &[(&str, &str, &str)], layout: &[(f64, usize)]) -> Vec<SvgNode> {
    entries
        .iter()
        .zip(layout)
        .map(|(&(label, colour, dash), &(lx, row))| {
            let ly = 8.0 + 16.0 * row as f64;
            SvgNode::new("g")
                .attr("class", "legend-item")
                .child(
                    SvgNode::new("line")
                        .attr("x1", lx)
                        .attr("x2", lx + 14.0)
                        .attr("y1", ly + 2.0)
                        .attr("y2", ly + 2.0)
                        .attr("stroke", colour)
                        .attr("stroke-width", "3")
                        .attr("stroke-dasharray", dash),
                )
                .child(
                    SvgNode::new("text")
                        .attr("x", lx + 20.0)
                        .attr("y", ly + 6.0)
                        .text(label),
                )
        })
        .collect()
}

/// Grid lines and tick labels for both axes over the plot area (left, right, top, bottom).
pub fn grid_and_ticks(
    xt: &[f64],
    yt: &[f64],
    x: &LinearScale,
    y: &LinearScale,
    (left, right, top, bottom): (f64, f64, f64, f64),
) -> Vec<SvgNode> {
    let tick = |line: SvgNode, label: SvgNode| {
        SvgNode::new("g")
            .attr("class", "tick")
            .child(line.attr("class", "grid"))
            .child(label)
    };
    let xs = xt.iter().map(|&t| {
        tick(
            SvgNode::new("line")
                .attr("x1", x.map(t))
                .attr("x2", x.map(t))
                .attr("y1", top)
                .attr("y2", bottom),
            SvgNode::new("text")
                .attr("x", x.map(t))
                .attr("y", bottom + 16.0)
                .attr("text-anchor", "middle")
                .text(tick_label(t)),
        )
    });
    let ys = yt.iter().map(|&t| {
        tick(
            SvgNode::new("line")
                .attr("x1", left)
                .attr("x2", right)
                .attr("y1", y.map(t))
                .attr("y2", y.map(t)),
            SvgNode::new("text")
                .attr("x", left - 6.0)
                .attr("y", y.map(t) + 4.0)
                .attr("text-anchor", "end")
                .text(tick_label(t)),
        )
    });
    xs.chain(ys).collect()
}

/// The empirical CDF of `values` as a step line: (x, share of values <= x).
pub fn cdf(values: &[f64]) -> Vec<(f64, f64)> {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len() as f64;
    let mut points = vec![(0.0, 0.0)];
    for (k, &v) in sorted.iter().enumerate() {
        points.push((v, k as f64 / n));
        points.push((v, (k + 1) as f64 / n));
    }
    points
}

/// At most `max` points, each the mean of a run of consecutive ones (keeps long series light).
pub fn downsample(points: &[(f64, f64)], max: usize) -> Vec<(f64, f64)> {
    if points.len() <= max || max == 0 {
        return points.to_vec();
    }
    let chunk = points.len().div_ceil(max);
    points
        .chunks(chunk)
        .map(|c| {
            let n = c.len() as f64;
            (
                c.iter().map(|p| p.0).sum::<f64>() / n,
                c.iter().map(|p| p.1).sum::<f64>() / n,
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cdf_steps_through_every_value() {
        assert_eq!(
            cdf(&[2.0, 1.0]),
            vec![(0.0, 0.0), (1.0, 0.0), (1.0, 0.5), (2.0, 0.5), (2.0, 1.0)]
        );
        assert_eq!(cdf(&[]), vec![(0.0, 0.0)]);
    }

    #[test]
    fn downsampling_averages_runs() {
        let pts: Vec<(f64, f64)> = (0..10).map(|i| (i as f64, 1.0)).collect();
        let d = downsample(&pts, 5);
        assert_eq!(d.len(), 5);
        assert_eq!(d[0], (0.5, 1.0));
        assert_eq!(downsample(&pts, 20).len(), 10);
    }

    /// Two lines with a band: each line a polyline through its points on the scales (x 0-4 on
    /// 56-704 px, y 0-10 on 256-30 px), the band a polygon from its highs out and lows back.
    #[test]
    fn lines_and_bands_sit_on_the_scales() {
        let mut a = Series::new("a", vec![(0.0, 0.0), (4.0, 10.0)]);
        a.band = vec![(0.0, 0.0, 0.0), (4.0, 5.0, 10.0)];
        let chart = line_chart(
            &[a, Series::new("b <i>", vec![(2.0, 5.0)])],
            "load",
            "JCT",
            "t",
            crate::scale::WIDE,
        );
        let nodes = chart.descendants();
        let lines: Vec<_> = nodes.iter().filter(|n| n.tag == "polyline").collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].get("points"), Some("56.00,256.00 704.00,30.00"));
        assert_eq!(lines[1].get("points"), Some("380.00,143.00"));
        assert_eq!(lines[1].get("data-series"), Some("b <i>"));
        let band = nodes.iter().find(|n| n.tag == "polygon").unwrap();
        assert_eq!(
            band.get("points"),
            Some("56.00,256.00 704.00,30.00 704.00,143.00 56.00,256.00")
        );
        assert!(chart.to_svg_text().contains("b &lt;i&gt;"));
    }
}
