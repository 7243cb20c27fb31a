//! Fairground from Python: `import fairground`.
//!
//! Scenarios go in and reports come out as plain dicts with the CLI's JSON shapes: a report is
//! the very `serde_json` text `fairground solve --json` prints, read back by Python's `json`
//! module, so the two cannot drift apart. Bad input raises `ValueError` with the CLI's located
//! message. Solving runs with the GIL released; `compare` checks for Ctrl+C between policies.

use fairground_core::frontier::frontier as price_of_fairness;
use fairground_core::policies::{self as engine, Policy};
use fairground_core::properties::{self, SpProbeConfig};
use fairground_core::report;
use fairground_core::{Instance, Scenario};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyString;

mod simulate;

/// A dict (or JSON text) in, the scenario and its checked instance out, with every problem
/// located as the CLI words it.
fn scenario_of(py: Python<'_>, scenario: &Bound<'_, PyAny>) -> PyResult<(Scenario, Instance)> {
    let given_text = scenario.is_instance_of::<PyString>();
    let text: String = if given_text {
        scenario.extract()?
    } else {
        py.import("json")?
            .call_method1("dumps", (scenario,))?
            .extract()?
    };
    let parsed = Scenario::from_json(&text).map_err(|p| {
        let mut message = p.to_string();
        // A line and column locate a problem in text the caller wrote, not in our dump of a dict.
        if !given_text {
            if let Some(at) = message.rfind(" at line ") {
                message.truncate(at);
            }
        }
        PyValueError::new_err(message)
    })?;
    let inst = parsed.instance().map_err(|problems| {
        let lines: Vec<String> = problems.iter().map(|p| format!("  {p}")).collect();
        PyValueError::new_err(format!(
            "the scenario has {} problem(s):\n{}",
            problems.len(),
            lines.join("\n")
        ))
    })?;
    Ok((parsed, inst))
}

/// A serialisable value as Python objects, through the JSON text the CLI prints.
pub(crate) fn to_python<'py>(
    py: Python<'py>,
    value: &impl serde::Serialize,
) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(value)
        .map_err(|e| PyValueError::new_err(format!("cannot write JSON: {e}")))?;
    py.import("json")?.call_method1("loads", (text,))
}

fn find_policy(name: &str) -> PyResult<&'static dyn Policy> {
    engine::by_name(name).ok_or_else(|| {
        let names: Vec<&str> = engine::all().iter().map(|p| p.name()).collect();
        PyValueError::new_err(format!(
            "unknown policy '{name}' (policies: {})",
            names.join(", ")
        ))
    })
}

/// One policy's allocation and every property checked: `fairground solve --json` (with
/// `probe=False`, `--no-sp-probe`).
#[pyfunction]
#[pyo3(signature = (scenario, policy = fairground_core::policies::DEFAULT_POLICY, probe = false))]
fn solve<'py>(
    py: Python<'py>,
    scenario: &Bound<'py, PyAny>,
    policy: &str,
    probe: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let (scenario, inst) = scenario_of(py, scenario)?;
    let policy = find_policy(policy)?;
    let report = py.detach(|| -> Result<_, String> {
        let mut report = report::run(&scenario, &inst, policy, None)
            .map_err(|e| format!("{}: {e}", policy.name()))?;
        if probe {
            report.properties.strategy_proofness_probe = Some(
                properties::sp_probe(&scenario, policy, &SpProbeConfig::default())
                    .map_err(|e| e.to_string())?,
            );
        }
        Ok(report)
    });
    to_python(py, &report.map_err(PyValueError::new_err)?)
}

/// Every policy on one scenario, side by side: `fairground compare --json`. Ctrl+C stops it
/// between two policies.
#[pyfunction]
fn compare<'py>(py: Python<'py>, scenario: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let (scenario, inst) = scenario_of(py, scenario)?;
    let mut reports = Vec::new();
    let mut failures = Vec::new();
    for policy in engine::all() {
        py.check_signals()?;
        match py.detach(|| report::run(&scenario, &inst, policy, None)) {
            Ok(r) => reports.push(r),
            Err(e) => failures.push(format!("{}: {e}", policy.name())),
        }
    }
    if !failures.is_empty() {
        return Err(PyValueError::new_err(format!(
            "{} policies failed: {}",
            failures.len(),
            failures.join("; ")
        )));
    }
    to_python(py, &reports)
}

/// The price of fairness: the most efficient allocation under eps-relaxed SI, EF and both, for
/// eps from 0 to 1 by `step`, with every policy placed: `fairground frontier --json`.
#[pyfunction]
#[pyo3(signature = (scenario, step = 0.05))]
fn frontier<'py>(
    py: Python<'py>,
    scenario: &Bound<'py, PyAny>,
    step: f64,
) -> PyResult<Bound<'py, PyAny>> {
    let (_, inst) = scenario_of(py, scenario)?;
    let f = py
        .detach(|| price_of_fairness(&inst, step))
        .map_err(PyValueError::new_err)?;
    to_python(py, &f)
}

/// The allocation policies: a list of `{"name", "family", "summary"}`, in the catalogue's order.
#[pyfunction(name = "policies")]
fn policy_list<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
    let list: Vec<serde_json::Value> = engine::EVERY_POLICY
        .infos()
        .iter()
        .map(|p| serde_json::json!({"name": p.name, "family": p.family.name(), "summary": p.summary}))
        .collect();
    to_python(py, &list)
}

#[pymodule]
fn fairground(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    m.add_function(wrap_pyfunction!(frontier, m)?)?;
    m.add_function(wrap_pyfunction!(policy_list, m)?)?;
    m.add_function(wrap_pyfunction!(simulate::simulate, m)?)?;
    m.add_function(wrap_pyfunction!(simulate::sweep, m)?)?;
    Ok(())
}
