//! The engine for the browser: `fairground.js` + `fairground_bg.wasm` in `dist/`.
//!
//! One wasm, three users: documentation pages import it as an ES module (the JavaScript API in
//! [`api`]), and the playground's two module workers import the same file and start their
//! yew-agent side (`startSolveWorker`, `startSimWorker`), so the engine is downloaded once. The
//! playground's page itself (the `fairground-web` binary) holds no engine.

mod api;

use wasm_bindgen::prelude::*;
use yew_agent::Registrable;

fn main() {
    // Panics are otherwise a bare "unreachable" in the console.
    std::panic::set_hook(Box::new(console_error_panic_hook::hook));
}

/// Called by www/solve-worker.js inside the playground's solve worker (not for pages).
#[wasm_bindgen(js_name = startSolveWorker)]
pub fn start_solve_worker() {
    fairground_web::worker::SolveTask::registrar().register();
}

/// Called by www/sim-worker.js inside the playground's simulation worker (not for pages).
#[wasm_bindgen(js_name = startSimWorker)]
pub fn start_sim_worker() {
    fairground_web::sim_worker::SimulateReactor::registrar().register();
}
