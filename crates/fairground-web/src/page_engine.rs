//! The engine on the page's own thread, for small solves: the allocation engine with the LP
//! policies ([`crate::worker::LP_POLICIES`]) is linked into the page's wasm, so the opening
//! scenario is solved before the first render and that render already has its chart; later
//! small edits are solved here too, in milliseconds. Anything larger, the probe, the frontier
//! and the market mechanisms go to the worker, whose full engine (`fairground.js`: the simulator
//! and the conic solver too) is fetched when it first starts, so the page never freezes and its
//! first chart never waits for that download.
//!
//! One wasm for the page and its engine rather than two: they share std, serde and the scenario
//! reader, which two modules would each carry (BENCHMARKS.md: 485 KB gzip before the first chart
//! merged, 565 KB as two). The page reaches neither `policies::all` nor `frontier::frontier`, so
//! wasm linking leaves clarabel and the simulator out of it.

use crate::worker::{SolveRequest, SolveResponse};

/// Jobs up to this many tenants x types, one policy or all of them, no probe, no frontier.
pub const MAX_CELLS: usize = 64;

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

/// Solves on the page with the LP policies.
pub fn solve(request: &SolveRequest) -> Result<SolveResponse, String> {
    crate::worker::solve_request_in(request, crate::worker::LP_POLICIES)
}
