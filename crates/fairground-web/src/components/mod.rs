//! Presentational components: they take data as props and draw it; no app state lives here.

mod allocation_chart;

pub use allocation_chart::{AllocationChart, AllocationChartProps};
