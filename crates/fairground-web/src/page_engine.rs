//! The engine on the page's own thread, for small solves: index.html imports `fairground.js`
//! (the module the workers load, so its wasm is fetched once) while the playground starts, and
//! puts the promise of it at `window.fairgroundEngine`. A small scenario (the opening one above
//! all) is then solved here in milliseconds instead of waiting for the worker to start; anything
//! larger, the probe and the frontier go to the worker, so the page never freezes.

use crate::worker::{SolveRequest, SolveResponse};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// Jobs up to this many tenants x types, one policy or all of them, no probe, no frontier.
pub const MAX_CELLS: usize = 64;

/// Whether `request` is small enough for the page's thread.
pub fn suits(request: &SolveRequest, cells: usize) -> bool {
    cells <= MAX_CELLS && !request.sp_probe && request.frontier_step.is_none()
}

/// Solves on the page; None when the engine module is not there (it failed to load, or the page
/// was built without it): the caller asks the worker instead.
pub async fn solve(request: &SolveRequest) -> Option<Result<SolveResponse, String>> {
    let window = web_sys::window()?;
    let promise = js_sys::Reflect::get(&window, &"fairgroundEngine".into()).ok()?;
    let promise = promise.dyn_into::<js_sys::Promise>().ok()?;
    let engine = JsFuture::from(promise).await.ok()?;
    let solve = js_sys::Reflect::get(&engine, &"solveRequestJson".into()).ok()?;
    let solve = solve.dyn_into::<js_sys::Function>().ok()?;
    let json = serde_json::to_string(request).ok()?;
    let answer = solve
        .call1(&JsValue::NULL, &json.into())
        .ok()?
        .as_string()?;
    serde_json::from_str(&answer).ok()
}
