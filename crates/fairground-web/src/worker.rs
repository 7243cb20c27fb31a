//! The solve task that runs in the web worker (yew-agent oneshot): every request is validated
//! and solved in full, and the reply carries per-policy reports or a readable failure.

use fairground_core::frontier::{self, Frontier};
use fairground_core::policies::{self, RowMemory};
use fairground_core::report::{self, PolicyReport};
use fairground_core::{PolicyError, Scenario, SpProbeConfig};
use serde::{Deserialize, Serialize};
use yew_agent::prelude::*;

/// Crosses to the worker through yew-agent's bincode codec, which cannot skip fields, so the
/// scenario travels as its JSON text (the schema omits absent optional fields).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SolveRequest {
    pub scenario_json: String,
    /// Policy names to run, in order.
    pub policies: Vec<String>,
    /// Run the strategy-proofness probe as well (many re-solves).
    pub sp_probe: bool,
    /// Compute the price-of-fairness frontier at this eps step (every policy is placed on it).
    pub frontier_step: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SolveResponse {
    /// One entry per requested policy: its report or why it failed.
    pub reports: Vec<Result<PolicyReport, String>>,
    /// The frontier, when asked for, or why it could not be computed.
    pub frontier: Option<Result<Frontier, String>>,
    /// Seconds one policy's solve and checks took here, on average (the frontier and the
    /// worker's start not counted); None when the probe ran too. The SP badge's estimate.
    pub seconds_per_policy: Option<f64>,
}

/// How long a request without the probe may run. The page's watchdog gives up on an answer
/// after 30 s (`app.rs`), and the worker used to go on past it, busy, so that later edits got
/// no answer until a reload (a `compare` at 150 x 12 with 300 co-located pairs takes 21 s in
/// headless Chromium on the benchmarks' machine, so past 30 s on one half as fast). Now the
/// policies not finished by then come back stopped, with the reports done before, and the
/// worker is free for the next edit. The probe's pass, offered only when
/// estimated under [`crate::state::PAGE_PROBE_SECONDS`], runs without a limit.
pub const WORKER_SECONDS: f64 = 25.0;

/// The policies an engine solves ([`policies::Registry`]): the workers' engine carries every
/// policy, the light engine those of [`policies::all_lp`], the page's own, which solves the
/// first chart, three ([`crate::page_engine::PAGE_POLICIES`]). A policy an engine lacks is
/// answered with a message, never a wrong report.
pub use fairground_core::policies::{Registry, EVERY_POLICY, LP_POLICIES};

/// Validates and solves with every policy (pure: the same function runs on the main thread in
/// tests and for the JavaScript API); a request without the probe under [`WORKER_SECONDS`].
pub fn solve_request(req: &SolveRequest) -> Result<SolveResponse, String> {
    solve_request_in(req, EVERY_POLICY)
}

/// [`solve_request`] with the policies `registry` holds.
pub fn solve_request_in(req: &SolveRequest, registry: Registry) -> Result<SolveResponse, String> {
    if req.sp_probe {
        solve_request_now(req, registry)
    } else {
        fairground_core::deadline::within(WORKER_SECONDS, || solve_request_now(req, registry))
    }
}

thread_local! {
    /// oef-coop's rows from the last solve on this thread (the solve worker's, or the page's
    /// for the scenarios it solves itself, or the JavaScript module's).
    static ROWS: std::cell::RefCell<RowMemory> = std::cell::RefCell::new(RowMemory::default());
}

/// Runs `f` with oef-coop starting from the rows of the last solve on this thread and leaving
/// its own there: a request is mostly an edit of the one before, and then needs mostly the same
/// rows ([`RowMemory`]; 6-8x faster at 150 x 12, BENCHMARKS.md).
pub fn with_remembered_rows<T>(f: impl FnOnce() -> T) -> T {
    // Taken out while `f` runs, not borrowed: a call inside `f` finds an empty memory rather
    // than a RefCell already borrowed (a panic).
    let mut rows = ROWS.with(|rows| rows.take());
    let out = policies::remembering(&mut rows, f);
    ROWS.with(|kept| kept.replace(rows));
    out
}

/// [`solve_request`] under whatever time limit the caller set.
fn solve_request_now(req: &SolveRequest, registry: Registry) -> Result<SolveResponse, String> {
    let (scenario, inst) = read(req)?;
    let sp = req.sp_probe.then(SpProbeConfig::default);
    let (reports, seconds_per_policy) = reports(req, &scenario, &inst, registry, sp.as_ref());
    let frontier = req
        .frontier_step
        .map(|step| frontier::frontier_among(&inst, step, registry.0));
    Ok(SolveResponse {
        reports,
        frontier,
        seconds_per_policy,
    })
}

/// The plain reports of a request, without the probe or the frontier, under
/// [`WORKER_SECONDS`]: what the page's own engine answers ([`crate::page_engine`]). A separate
/// path so the page's wasm links neither the probe nor the frontier, which it never runs.
pub fn solve_plain_in(req: &SolveRequest, registry: Registry) -> Result<SolveResponse, String> {
    fairground_core::deadline::within(WORKER_SECONDS, || {
        let (scenario, inst) = read(req)?;
        let (reports, seconds_per_policy) = reports(req, &scenario, &inst, registry, None);
        Ok(SolveResponse {
            reports,
            frontier: None,
            seconds_per_policy,
        })
    })
}

/// The request's scenario, validated.
fn read(req: &SolveRequest) -> Result<(Scenario, fairground_core::Instance), String> {
    let scenario = Scenario::from_json(&req.scenario_json).map_err(|p| p.to_string())?;
    let inst = scenario.instance().map_err(|problems| {
        problems
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join("; ")
    })?;
    Ok((scenario, inst))
}

type Reports = Vec<Result<PolicyReport, String>>;

/// Each policy's report (with the probe when `sp` is given), and the seconds one policy took
/// when there was no probe.
fn reports(
    req: &SolveRequest,
    scenario: &Scenario,
    inst: &fairground_core::Instance,
    registry: Registry,
    sp: Option<&SpProbeConfig>,
) -> (Reports, Option<f64>) {
    // web-time: performance.now() in WebAssembly (std's Instant panics there), std's natively.
    let started = web_time::Instant::now();
    let reports: Vec<_> = with_remembered_rows(|| {
        req.policies
            .iter()
            .map(|name| {
                let policy = registry.by_name(name).ok_or_else(|| {
                    if policies::info(name).is_some() {
                        format!("{name}: not in this engine (the page's holds the LP policies)")
                    } else {
                        format!("unknown policy '{name}'")
                    }
                })?;
                report::run(scenario, inst, policy, sp).map_err(|e| match e {
                    PolicyError::OutOfTime(_) => {
                        format!("{name}: {e} here; `fairground compare` has none")
                    }
                    e => format!("{name}: {e}"),
                })
            })
            .collect()
    });
    let seconds_per_policy = (sp.is_none() && !reports.is_empty())
        .then(|| started.elapsed().as_secs_f64() / reports.len() as f64);
    (reports, seconds_per_policy)
}

/// bincode with fixed-width integers: what crosses between the page and its workers. Its
/// decoder is simpler than the variable-width default's, which takes bytes off the page's
/// download (BENCHMARKS.md); the messages are a little longer, which a worker's message does
/// not notice.
const WIRE: bincode::config::Configuration<bincode::config::LittleEndian, bincode::config::Fixint> =
    bincode::config::standard().with_fixed_int_encoding();

/// The workers' message codec (in place of yew-agent's default, bincode's standard
/// configuration): the page's providers and the workers' registrars both name it.
pub struct Wire;

impl yew_agent::Codec for Wire {
    fn encode<I: Serialize>(input: I) -> wasm_bindgen::JsValue {
        js_sys::Uint8Array::from(encode(&input).as_slice()).into()
    }

    fn decode<O: for<'de> Deserialize<'de>>(input: wasm_bindgen::JsValue) -> O {
        let bytes = js_sys::Uint8Array::from(input).to_vec();
        match bincode::serde::decode_from_slice(&bytes, WIRE) {
            Ok((value, _)) => value,
            // Both ends are this build: a message that does not decode is a bug, not input.
            Err(e) => panic!("a worker message did not decode: {e}"),
        }
    }
}

/// The bytes of a request or an answer between the page and its workers ([`Wire`]).
pub fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    bincode::serde::encode_to_vec(value, WIRE).unwrap_or_default()
}

/// Reads what [`encode`] wrote; None for bytes that are not a `T`.
pub fn decode<T: for<'de> Deserialize<'de>>(bytes: &[u8]) -> Option<T> {
    bincode::serde::decode_from_slice(bytes, WIRE)
        .ok()
        .map(|(value, _)| value)
}

#[oneshot]
pub async fn SolveTask(req: SolveRequest) -> Result<SolveResponse, String> {
    solve_request(&req)
}

impl SolveRequest {
    pub fn new(
        scenario: &Scenario,
        policies: Vec<String>,
        sp_probe: bool,
        frontier_step: Option<f64>,
    ) -> Self {
        SolveRequest {
            scenario_json: serde_json::to_string(scenario).unwrap_or_default(),
            policies,
            sp_probe,
            frontier_step,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairground_core::presets;

    /// What yew-agent does to a message between the page and the worker (its `Bincode` codec).
    fn through_the_worker_codec<T: Serialize + for<'de> Deserialize<'de>>(value: &T) -> T {
        let bytes = bincode::serde::encode_to_vec(value, bincode::config::standard()).unwrap();
        bincode::serde::decode_from_slice(&bytes, bincode::config::standard())
            .unwrap()
            .0
    }

    /// The light engine (documentation pages) solves an LP policy as the workers' does, to the
    /// bit, and answers a market mechanism with a message rather than a wrong report.
    #[test]
    fn the_lp_registry_solves_alike_and_names_what_it_lacks() {
        let scenario = presets::default_scenario();
        let names = vec!["oef-coop".to_string(), "gavel-las".to_string()];
        let request = SolveRequest::new(&scenario, names, false, None);
        let full = solve_request_in(&request, EVERY_POLICY).unwrap().reports;
        let lp = solve_request_in(&request, LP_POLICIES).unwrap().reports;
        assert_eq!(full, lp);
        let market = SolveRequest::new(&scenario, vec!["nash-welfare".into()], false, None);
        let answer = solve_request_in(&market, LP_POLICIES).unwrap().reports;
        let message = answer[0].as_ref().unwrap_err();
        assert!(
            message.contains("nash-welfare: not in this engine"),
            "{message}"
        );
        assert!(solve_request_in(&market, EVERY_POLICY).unwrap().reports[0].is_ok());
    }

    /// The SP badge's estimate: one policy's time, timed on a plain solve and not on a probe.
    #[test]
    fn a_plain_answer_says_how_long_one_policy_took() {
        let scenario = presets::default_scenario();
        let plain = SolveRequest::new(&scenario, vec!["oef-coop".into()], false, None);
        let took = solve_request(&plain).unwrap().seconds_per_policy.unwrap();
        assert!(took > 0.0 && took.is_finite(), "{took}");
        let probed = SolveRequest::new(&scenario, vec!["equal-share".into()], true, None);
        assert_eq!(solve_request(&probed).unwrap().seconds_per_policy, None);
    }

    /// Past its time limit, a request answers with the reports it finished and each policy after
    /// them stopped, saying where there is no limit (at 150 x 12 with jobs, partial-allocation
    /// takes over a second natively, the limit here is half of one).
    #[test]
    fn a_request_past_its_limit_keeps_what_it_finished() {
        let scenario = presets::random_scenario(150, 12, 1, true);
        let names = ["oef-coop", "partial-allocation", "equal-share"];
        let request = SolveRequest::new(
            &scenario,
            names.iter().map(|n| n.to_string()).collect(),
            false,
            None,
        );
        let answer =
            fairground_core::deadline::within(0.5, || solve_request_now(&request, EVERY_POLICY))
                .unwrap();
        assert_eq!(answer.reports.len(), 3);
        assert_eq!(answer.reports[0].as_ref().unwrap().policy, "oef-coop");
        for (name, report) in names.iter().zip(&answer.reports).skip(1) {
            assert_eq!(
                report.as_ref().unwrap_err(),
                &format!(
                    "{name}: stopped at the time limit of 0.5 s here; `fairground compare` has none"
                )
            );
        }
    }

    /// A request after an edit starts from the rows of the one before (the thread's memory) and
    /// shows the allocation a fresh solve gives.
    #[test]
    fn an_edit_is_solved_from_the_last_requests_rows() {
        let request =
            |scenario: &Scenario| SolveRequest::new(scenario, vec!["oef-coop".into()], false, None);
        let base = presets::random_scenario(40, 6, 1, false);
        solve_request(&request(&base)).unwrap();
        let fresh_rows = ROWS.with(|rows| rows.borrow().rows_added());
        let mut edited = base.clone();
        edited.tenants[4].throughput[2] *= 1.5;
        let answer = solve_request(&request(&edited)).unwrap();
        let warm_rows = ROWS.with(|rows| rows.borrow().rows_added());
        assert!(
            warm_rows * 4 < fresh_rows,
            "{warm_rows} rows added against {fresh_rows}"
        );
        let fresh = policies::by_name("oef-coop")
            .unwrap()
            .solve(&edited.instance().unwrap())
            .unwrap();
        let shown = &answer.reports[0].as_ref().unwrap().allocation;
        for (a, b) in shown
            .gpus
            .iter()
            .flatten()
            .zip(fresh.allocation.gpus.iter().flatten())
        {
            assert!((a - b).abs() < 1e-9, "{a} against {b}");
        }
        // A call inside another answers too (from an empty memory), and the outer keeps its rows.
        let inner =
            with_remembered_rows(|| with_remembered_rows(|| solve_request(&request(&base))));
        assert!(inner.is_ok());
        assert_eq!(ROWS.with(|rows| rows.borrow().rows_added()), warm_rows);
    }

    #[test]
    fn every_answer_survives_the_worker_codec() {
        let request = SolveRequest::new(
            &presets::default_scenario(),
            policies::all()
                .iter()
                .map(|p| p.name().to_string())
                .collect(),
            false,
            Some(0.25),
        );
        assert_eq!(through_the_worker_codec(&request), request);
        let response = solve_request(&request).unwrap();
        assert!(response
            .reports
            .iter()
            .any(|r| r.as_ref().is_ok_and(|r| r.market.is_some())));
        assert!(response.frontier.as_ref().is_some_and(|f| f.is_ok()));
        assert_eq!(through_the_worker_codec(&response), response);
        // The page's own engine (page_engine.rs) passes the same request and answer as bytes.
        assert_eq!(decode::<SolveRequest>(&encode(&request)), Some(request));
        let bytes = encode(&Ok::<_, String>(response.clone()));
        assert_eq!(
            decode::<Result<SolveResponse, String>>(&bytes),
            Some(Ok(response))
        );
        assert_eq!(decode::<SolveRequest>(&bytes[..3]), None);
    }
}
