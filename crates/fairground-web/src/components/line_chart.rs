//! The playground's line chart: [`fairground_chart::line::line_chart`] drawn through Yew.

use crate::svg::SvgRender;
use fairground_chart::line::line_chart;
pub use fairground_chart::line::{cdf, downsample, Series};
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
    let series: Vec<Series> = p
        .series
        .iter()
        .map(|(label, points)| Series::new(label.clone(), points.clone()))
        .collect();
    let w = super::chart_width();
    line_chart(&series, &p.x_label, &p.y_label, &p.testid, w).to_html()
}
