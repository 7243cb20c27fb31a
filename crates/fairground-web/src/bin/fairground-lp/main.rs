//! The page's engine: `fairground-lp.js` + `fairground-lp_bg.wasm` in `dist/`, which index.html
//! imports while the playground starts, so the opening scenario's chart is solved on the page
//! (`page_engine.rs`) without waiting for a worker.
//!
//! It holds the allocation engine with the LP policies only ([`LP_POLICIES`]): no simulator and
//! no conic solver is reachable from its one export, so its wasm is less than half of the full
//! engine's (`fairground.js`, which the workers and documentation pages import and the page
//! fetches only when a request needs it: a market mechanism, Compare all, the probe, the
//! frontier, a simulation). BENCHMARKS.md has both sizes.

use fairground_web::worker::{decode, encode, solve_request_in, SolveRequest, LP_POLICIES};
use wasm_bindgen::prelude::*;

fn main() {
    // Panics are otherwise a bare "unreachable" in the console.
    std::panic::set_hook(Box::new(console_error_panic_hook::hook));
}

/// The page's small solves: the solve worker's request and answer, in the workers' codec.
#[wasm_bindgen(js_name = solveRequestBytes)]
pub fn solve_request_bytes(request: &[u8]) -> Vec<u8> {
    let answer = decode::<SolveRequest>(request)
        .ok_or_else(|| "a malformed request from the page".to_string())
        .and_then(|req| solve_request_in(&req, LP_POLICIES));
    encode(&answer)
}
