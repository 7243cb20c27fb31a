//! The full engine for the browser: `fairground-full.js` + `fairground-full_bg.wasm` in `dist/`.
//!
//! Every policy, the simulator and the conic solver. Two users: the playground's two module
//! workers import it and start their yew-agent side (`startSolveWorker`, `startSimWorker`), so it
//! is downloaded once; and `fairground.js`, the module documentation pages import, loads it the
//! first time a page calls `compare` or `simulate` (or `loadFullEngine`). The playground's page
//! solves its small requests with the LP policies linked into its own wasm, and documentation
//! pages start with the light engine (`fairground-lite`).

mod api;
mod api_full;

use fairground_web::worker::{Registry, EVERY_POLICY};
use wasm_bindgen::prelude::*;
use yew_agent::Registrable;

/// The policies `api` solves: all of them.
const REGISTRY: Registry = EVERY_POLICY;

fn main() {
    // Panics are otherwise a bare "unreachable" in the console.
    std::panic::set_hook(Box::new(console_error_panic_hook::hook));
}

/// Called by www/solve-worker.js inside the playground's solve worker (not for pages).
#[wasm_bindgen(js_name = startSolveWorker)]
pub fn start_solve_worker() {
    fairground_web::worker::SolveTask::registrar()
        .encoding::<fairground_web::worker::Wire>()
        .register();
}

/// Called by www/sim-worker.js inside the playground's simulation worker (not for pages).
#[wasm_bindgen(js_name = startSimWorker)]
pub fn start_sim_worker() {
    fairground_web::sim_worker::SimulateReactor::registrar()
        .encoding::<fairground_web::worker::Wire>()
        .register();
}
