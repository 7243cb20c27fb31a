//! The engine on the page's own thread, for small solves: index.html imports `fairground-lp.js`
//! (the allocation engine with the LP policies, less than half the workers' full engine) while
//! the playground starts, and puts the promise of it at `window.fairgroundEngine`. The page waits for it before its first
//! render ([`load`]), so the opening scenario is solved before anything is drawn and the first
//! render already has its chart; later small edits are solved here too, in milliseconds.
//! Anything larger, the probe and the frontier go to the worker, so the page never freezes.

use crate::worker::{decode, encode, SolveRequest, SolveResponse};
use std::cell::RefCell;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// Jobs up to this many tenants x types, one policy or all of them, no probe, no frontier.
pub const MAX_CELLS: usize = 64;

thread_local! {
    /// The engine's `solveRequestBytes`, once loaded.
    static SOLVE: RefCell<Option<js_sys::Function>> = const { RefCell::new(None) };
}

/// Waits for the engine module; when it is missing or fails to load, the page goes on without
/// it (every solve then goes to the worker).
pub async fn load() {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Ok(promise) = js_sys::Reflect::get(&window, &"fairgroundEngine".into()) else {
        return;
    };
    let Ok(promise) = promise.dyn_into::<js_sys::Promise>() else {
        return;
    };
    let Ok(engine) = JsFuture::from(promise).await else {
        return;
    };
    let solve = js_sys::Reflect::get(&engine, &"solveRequestBytes".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    SOLVE.with(|s| *s.borrow_mut() = solve);
}

/// Whether `request` is for the page's thread: small enough, and only policies the page's
/// engine holds (no market mechanism, whose conic solver only the workers' engine carries).
pub fn suits(request: &SolveRequest, cells: usize) -> bool {
    cells <= MAX_CELLS
        && !request.sp_probe
        && request.frontier_step.is_none()
        && !request
            .policies
            .iter()
            .any(|p| fairground_core::policies::MARKET_MECHANISMS.contains(&p.as_str()))
}

/// Solves on the page; None when the engine is not loaded: the caller asks the worker instead.
pub fn solve(request: &SolveRequest) -> Option<Result<SolveResponse, String>> {
    let solve = SOLVE.with(|s| s.borrow().clone())?;
    let bytes = js_sys::Uint8Array::from(encode(request).as_slice());
    let answer = solve.call1(&JsValue::NULL, &bytes).ok()?;
    decode(&js_sys::Uint8Array::new(&answer).to_vec())
}
