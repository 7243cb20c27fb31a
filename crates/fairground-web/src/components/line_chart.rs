use crate::palette::type_colour;
use crate::scale::{legend_layout, nice_ticks, tick_label, LinearScale};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct LineChartProps {
    /// (label, points) per line.
    pub series: Vec<(String, Vec<(f64, f64)>)>,
    pub x_label: AttrValue,
    pub y_label: AttrValue,
    pub testid: AttrValue,
}

/// Lines over a shared x axis, with a legend; used for JCT CDFs and utilisation over time.
#[component]
pub fn LineChart(p: &LineChartProps) -> Html {
    let labels: Vec<&str> = p.series.iter().map(|(l, _)| l.as_str()).collect();
    let legend = legend_layout(&labels, 56.0, 704.0, 7.0);
    let rows = legend.last().map_or(1, |e| e.1 + 1) as f64;
    // The plot moves down by the legend's extra rows.
    let extra = 16.0 * (rows - 1.0);
    let (w, h, left, bottom, top) = (720.0, 300.0 + extra, 56.0, 44.0, 30.0 + extra);
    let all = p.series.iter().flat_map(|(_, pts)| pts.iter());
    let (xmax, ymax) = all.fold((0.0f64, 0.0f64), |(a, b), &(x, y)| (a.max(x), b.max(y)));
    let (xt, yt) = (nice_ticks(xmax, 6), nice_ticks(ymax, 5));
    let x = LinearScale::new((0.0, *xt.last().unwrap_or(&1.0)), (left, w - 16.0));
    let y = LinearScale::new((0.0, *yt.last().unwrap_or(&1.0)), (h - bottom, top));
    html! {
        <svg viewBox={format!("0 0 {w} {h}")} role="img" data-testid={p.testid.clone()}
             aria-label={format!("{} against {}", p.y_label, p.x_label)}>
            { legend_entries(&labels, &legend) }
            { grid_and_ticks(&xt, &yt, &x, &y, (left, w - 16.0, top, h - bottom)) }
            { for p.series.iter().enumerate().map(|(k, (label, pts))| {
                let path: Vec<String> = pts.iter().map(|&(a, b)| format!("{:.2},{:.2}", x.map(a), y.map(b))).collect();
                html! {
                    <polyline class="series" data-series={label.clone()} points={path.join(" ")} fill="none"
                              stroke={type_colour(k)} stroke-width="2">
                        <title>{ label }</title>
                    </polyline>
                }
            }) }
            <text class="axis-label" x={((left + w) / 2.0).to_string()} y={(h - 8.0).to_string()} text-anchor="middle">{ p.x_label.clone() }</text>
            <text class="axis-label" transform={format!("translate(14, {}) rotate(-90)", (h - bottom + top) / 2.0)} text-anchor="middle">{ p.y_label.clone() }</text>
        </svg>
    }
}

/// A chart legend: a colour swatch and its label per entry, at `layout`'s (x, row) places.
pub fn legend_entries(labels: &[&str], layout: &[(f64, usize)]) -> Html {
    html! {
        { for labels.iter().zip(layout).enumerate().map(|(k, (label, &(lx, row)))| {
            let ly = 8.0 + 16.0 * row as f64;
            html! {
                <g class="legend-item">
                    <rect x={lx.to_string()} y={ly.to_string()} width="14" height="4" fill={type_colour(k)} />
                    <text x={(lx + 20.0).to_string()} y={(ly + 6.0).to_string()}>{ label.to_string() }</text>
                </g>
            }
        }) }
    }
}

/// Grid lines and tick labels for both axes over the plot area (left, right, top, bottom).
pub fn grid_and_ticks(
    xt: &[f64],
    yt: &[f64],
    x: &LinearScale,
    y: &LinearScale,
    (left, right, top, bottom): (f64, f64, f64, f64),
) -> Html {
    html! {
        <>
            { for xt.iter().map(|&t| html! {
                <g class="tick"><line class="grid" x1={x.map(t).to_string()} x2={x.map(t).to_string()} y1={top.to_string()} y2={bottom.to_string()} />
                <text x={x.map(t).to_string()} y={(bottom + 16.0).to_string()} text-anchor="middle">{ tick_label(t) }</text></g>
            }) }
            { for yt.iter().map(|&t| html! {
                <g class="tick"><line class="grid" x1={left.to_string()} x2={right.to_string()} y1={y.map(t).to_string()} y2={y.map(t).to_string()} />
                <text x={(left - 6.0).to_string()} y={(y.map(t) + 4.0).to_string()} text-anchor="end">{ tick_label(t) }</text></g>
            }) }
        </>
    }
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
}
