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
mod sim_form;
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
