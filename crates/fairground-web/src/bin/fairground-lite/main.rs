//! The light engine for documentation pages: `fairground-lite.js` + `fairground-lite_bg.wasm` in
//! `dist/`, which `fairground.js` (www/) loads first. `solve`, `renderChart` (and
//! `drawReport`, for a report the full engine solved) and `policies` with the LP policies
//! ([`LP_POLICIES`]): neither the simulator nor the conic solver is
//! reachable from its exports, so a page that draws a chart downloads less than half of the
//! full engine (BENCHMARKS.md). `compare`, `simulate` and the market mechanisms are the full
//! engine's (`fairground-full`), which `fairground.js` loads the first time they are asked for.

#[path = "../fairground/api.rs"]
mod api;
mod draw;

use fairground_web::worker::{Registry, LP_POLICIES};

/// The policies `api` solves: the LP ones.
const REGISTRY: Registry = LP_POLICIES;

fn main() {
    // Panics are otherwise a bare "unreachable" in the console.
    std::panic::set_hook(Box::new(console_error_panic_hook::hook));
}
