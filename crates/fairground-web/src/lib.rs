//! The Fairground playground: one reducer ([`state::AppState`]) owns the app state; the
//! editor edits a text [`draft::Draft`]; solves run in a web worker ([`worker`]); small
//! presentational components draw the charts as SVG, with their scale math in [`scale`].

pub mod app;
pub mod codec;
pub mod components;
pub mod deflate;
pub mod draft;
pub mod explain;
pub mod export;
pub mod page_engine;
pub use fairground_chart::palette;
pub mod paste;
pub mod present;
pub use fairground_chart::scale;
pub mod sim_worker;
pub mod state;
pub mod storage;
pub mod svg;
pub mod tour;
pub mod worker;

pub use app::App;
