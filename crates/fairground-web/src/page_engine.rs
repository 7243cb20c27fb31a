//! The engine on the page's own thread, for small solves of the opening views' policies
//! ([`PAGE_POLICIES`]: oef-coop, the equal split and isolation): they are linked into the page's
//! wasm, so the opening scenario is solved before the first render and that render already has
//! its chart; later small edits are solved here too, in milliseconds. Anything larger, another
//! policy, Compare all, the probe and the frontier go to the solve worker, whose full engine
//! (`fairground-full.js`: every policy, the simulator, the conic solver) the page starts
//! fetching as it opens (`lazy=false` on the worker's provider, app.rs), so the first chart
//! never waits for that download and a second policy rarely does.
//!
//! One wasm for the page and its engine rather than two: they share std, serde and the scenario
//! reader, which two modules would each carry (BENCHMARKS.md: 485 KB gzip before the first chart
//! merged, 565 KB as two). Why only three policies: every policy the page links is carried
//! twice by the site, once here and once in the full engine; the other LP policies cost 28 KB
//! gzip here, and issue 49's 1,000 KB for everything the site fetches does not hold with them.

use crate::worker::{Registry, SolveRequest, SolveResponse};
use fairground_core::policies::{EfRows, EqualShare, Isolated, OefCoop};
use fairground_core::Policy;

/// Jobs up to this many tenants x types, one policy or all of them, no probe, no frontier.
pub const MAX_CELLS: usize = 64;

/// The policies the page's own engine solves.
pub const PAGE_POLICIES: Registry = Registry(page_policies);

fn page_policies() -> Vec<&'static dyn Policy> {
    vec![
        &OefCoop {
            ef_rows: EfRows::Lazy,
        },
        &EqualShare,
        &Isolated,
    ]
}

/// Whether `request` is for the page's thread: small enough, and only policies the page's
/// engine holds.
pub fn suits(request: &SolveRequest, cells: usize) -> bool {
    cells <= MAX_CELLS
        && !request.sp_probe
        && request.frontier_step.is_none()
        && request
            .policies
            .iter()
            .all(|p| PAGE_POLICIES.by_name(p).is_some())
}

/// Solves on the page with [`PAGE_POLICIES`].
pub fn solve(request: &SolveRequest) -> Result<SolveResponse, String> {
    crate::worker::solve_plain_in(request, PAGE_POLICIES)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worker::{solve_request_in, EVERY_POLICY};
    use fairground_core::presets;

    /// Issue 78: at the 60 x 6 preset typing must never wait for a solve. Every solve of that
    /// size, even of the page's own policies, goes to the worker, off the page's thread.
    #[test]
    fn a_large_preset_is_never_solved_on_the_page() {
        let large = presets::large_random().scenario;
        let cells = large.tenants.len() * large.gpu_types.len();
        assert_eq!(cells, 360);
        for policies in [
            vec!["oef-coop".to_string()],
            vec!["equal-share".into(), "isolated".into()],
        ] {
            let request = SolveRequest::new(&large, policies, false, None);
            assert!(!suits(&request, cells));
        }
        // The largest the page takes is well under it.
        assert!(MAX_CELLS * 4 < cells);
    }

    /// The page's engine solves its policies as the workers' does, to the bit; every other
    /// policy goes to the worker, and if one were asked of it anyway, it answers with a message
    /// rather than a wrong report.
    #[test]
    fn the_page_solves_its_policies_alike_and_sends_the_others_away() {
        let scenario = presets::default_scenario();
        let ours = vec![
            "oef-coop".to_string(),
            "equal-share".into(),
            "isolated".into(),
        ];
        let request = SolveRequest::new(&scenario, ours, false, None);
        assert!(suits(&request, 4));
        let full = solve_request_in(&request, EVERY_POLICY).unwrap().reports;
        assert_eq!(solve(&request).unwrap().reports, full);
        for other in ["gavel-las", "nash-welfare"] {
            let elsewhere = SolveRequest::new(&scenario, vec![other.into()], false, None);
            assert!(!suits(&elsewhere, 4), "{other}");
            let answer = solve(&elsewhere).unwrap().reports;
            let message = answer[0].as_ref().unwrap_err();
            assert!(message.contains("not in this engine"), "{message}");
        }
        // Too big, or a probe, goes away too.
        assert!(!suits(&request, MAX_CELLS + 1));
        let probe = SolveRequest::new(&scenario, vec!["oef-coop".into()], true, None);
        assert!(!suits(&probe, 4));
    }
}
