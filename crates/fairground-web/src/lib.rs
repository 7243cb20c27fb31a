//! The Fairground playground: one reducer ([`state::AppState`]) owns the app state; small
//! presentational components draw the charts as SVG, with their scale math in [`scale`].

pub mod app;
pub mod components;
pub mod palette;
pub mod scale;
pub mod state;

pub use app::App;
