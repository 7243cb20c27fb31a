//! Work under a time limit (`deadline::within`, which the JavaScript module sets on the page's
//! thread) stops with `OutOfTime` once the limit has passed, and gives the same answer as without
//! one while it has not.

use fairground_core::deadline::{self, OutOfTime};
use fairground_core::presets::random_scenario;
use fairground_core::{policies, properties, report, PolicyError, SpProbeConfig};
use std::time::Duration;

/// A limit that has passed before the work starts.
fn passed<T>(f: impl FnOnce() -> T) -> T {
    deadline::within(1e-6, || {
        std::thread::sleep(Duration::from_millis(2));
        f()
    })
}

#[test]
fn every_policy_stops_past_the_limit_and_is_unchanged_within_it() {
    let scenario = random_scenario(6, 3, 2, true);
    let inst = scenario.instance().unwrap();
    for policy in policies::all() {
        let name = policy.name();
        match passed(|| report::run(&scenario, &inst, policy, None)) {
            Err(PolicyError::OutOfTime(OutOfTime { seconds })) => assert_eq!(seconds, 1e-6),
            other => panic!("{name}: {other:?}"),
        }
        let free = report::run(&scenario, &inst, policy, None).unwrap();
        let limited =
            deadline::within(3600.0, || report::run(&scenario, &inst, policy, None)).unwrap();
        assert_eq!(free.allocation.gpus, limited.allocation.gpus, "{name}");
    }
    // The message a user reads.
    let oef = policies::by_name("oef-coop").unwrap();
    let err = passed(|| report::run(&scenario, &inst, oef, None)).unwrap_err();
    assert_eq!(err.to_string(), "stopped at the time limit of 0.000001 s");
}

/// A limit that passes while the policy works: its loops check it (oef-coop's added rows at
/// 200 x 8 take about a second natively, BENCHMARKS.md; the limit is 50 ms), and
/// partial-allocation's markets check it on every helper thread.
#[test]
fn long_solves_stop_partway() {
    let inst = random_scenario(200, 8, 1, false).instance().unwrap();
    let oef = policies::by_name("oef-coop").unwrap();
    assert!(matches!(
        deadline::within(0.05, || oef.solve(&inst)),
        Err(PolicyError::OutOfTime(_))
    ));
    let jobs = random_scenario(150, 12, 1, true).instance().unwrap();
    let partial = policies::by_name("partial-allocation").unwrap();
    assert!(matches!(
        deadline::within(0.05, || partial.solve(&jobs)),
        Err(PolicyError::OutOfTime(_))
    ));
}

/// The probe does not report a search it did not finish as "no lie found".
#[test]
fn the_probe_stops_with_an_error_not_a_verdict() {
    let scenario = random_scenario(4, 2, 5, false);
    let policy = policies::by_name("gavel-las").unwrap();
    let config = SpProbeConfig::default();
    let stopped = passed(|| properties::sp_probe(&scenario, policy, &config));
    assert_eq!(stopped.unwrap_err(), OutOfTime { seconds: 1e-6 });
    let full = properties::sp_probe(&scenario, policy, &config).unwrap();
    let limited =
        deadline::within(3600.0, || properties::sp_probe(&scenario, policy, &config)).unwrap();
    assert_eq!(full.misreports_tried, config.solves(4, 2));
    assert_eq!(limited.misreports_tried, full.misreports_tried);
    assert_eq!(limited.no_lie_found, full.no_lie_found);
}
