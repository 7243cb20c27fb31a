//! The engine for the browser: `fairground.js` + `fairground_bg.wasm` in `dist/`.
//!
//! One wasm, three users: documentation pages import it as an ES module (the JavaScript API in
//! [`api`]), and the playground's two module workers import the same file and start their
//! yew-agent side (`startSolveWorker`, `startSimWorker`), so the engine is downloaded once. The
//! playground's page itself (the `fairground-web` binary) holds no engine.

mod api;

use fairground_web::worker::{decode, encode, solve_request, SolveRequest};
use wasm_bindgen::prelude::*;
use yew_agent::Registrable;

fn main() {
    // Panics are otherwise a bare "unreachable" in the console.
    std::panic::set_hook(Box::new(console_error_panic_hook::hook));
}

/// The playground's page solves small scenarios with this (`page_engine.rs`): the solve
/// worker's request and answer, in the workers' codec (not for pages: use `solve`).
#[wasm_bindgen(js_name = solveRequestBytes)]
pub fn solve_request_bytes(request: &[u8]) -> Vec<u8> {
    let answer = decode::<SolveRequest>(request)
        .ok_or_else(|| "a malformed request from the page".to_string())
        .and_then(|req| solve_request(&req));
    encode(&answer)
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
