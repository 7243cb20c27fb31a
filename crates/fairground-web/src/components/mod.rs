//! Presentational components: they take data as props and draw it; the editor and badges
//! dispatch actions to the one reducer in `state.rs`.

mod allocation_chart;
mod badges;
mod chart_frame;
mod compare;
mod editor;
mod envy_heatmap;
mod frontier_chart;
mod gantt;
pub mod line_chart;
mod market;
mod shared_gpus;
pub mod sim_form;
mod simulate_tab;
mod trades;
mod utility_chart;

pub use allocation_chart::{
    allocation_svg, allocation_table, AllocationChart, AllocationChartProps,
};
pub use badges::Badges;
pub use chart_frame::ChartFrame;
pub use compare::{CompareTable, Scatter};
pub use editor::{use_undo_keys, Editor};
pub use envy_heatmap::{envy_table, EnvyHeatmap};
pub use frontier_chart::FrontierChart;
pub use gantt::{gantt_table, Gantt};
pub use line_chart::LineChart;
pub use market::MarketPanel;
pub use shared_gpus::SharedPanel;
pub use simulate_tab::SimulateTab;
pub use trades::TradesPanel;
pub use utility_chart::{utility_table, UtilityChart};

/// What the page's margins take from the window's width around a full-width chart (measured:
/// a 390-px phone leaves its charts 348 px).
const PAGE_MARGINS: f64 = 42.0;

/// The width to draw full-width charts at: [`crate::scale::chart_width`] of the window's width
/// less the page's margins, so on a phone charts are drawn for the phone rather than shrunk from
/// a desktop's 720 units. A window under 200 px is one not laid out yet (a frame its page has
/// not sized, or hides): the full width then. Read when a chart renders (each result redraws
/// it): a resize listener cost about 1 KB of the first chart's download, which has no room for
/// it, so a phone turned sideways keeps its charts' layout until the next result. (The width of
/// the charts' own column was tried, issue 78: it is not laid out at a chart's first render, and
/// a chart drawn for the narrow column beside the editor was blown up on entering presenter
/// mode, which redraws nothing.)
pub fn chart_width() -> f64 {
    let window = gloo::utils::window().inner_width().ok();
    match window.and_then(|v| v.as_f64()) {
        Some(px) if px >= 200.0 => crate::scale::chart_width(px - PAGE_MARGINS),
        _ => crate::scale::WIDE,
    }
}

/// Keeps long user-given names from overrunning a chart; the full name stays in the tooltip.
pub fn shorten(name: &str, max_chars: usize) -> String {
    if name.chars().count() <= max_chars {
        name.to_string()
    } else {
        let head: String = name.chars().take(max_chars.saturating_sub(1)).collect();
        format!("{head}…")
    }
}

#[cfg(test)]
mod tests {
    use super::shorten;

    #[test]
    fn shortens_by_characters_not_bytes() {
        assert_eq!(shorten("ResNet", 10), "ResNet");
        assert_eq!(shorten("ääääääääää-long", 5), "ääää…");
    }
}
