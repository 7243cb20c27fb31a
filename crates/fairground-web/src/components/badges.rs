//! The property badges (SI, EF, PE, SP) beside a policy's result: each verdict, whether the
//! policy's theory promises it, and its counterexample. Reads the app's state.

use crate::explain::Definition;
use crate::state::{probe_cost, Action, AppState, PAGE_PROBE_SECONDS};
use fairground_core::policies::{self, Promise};
use fairground_core::properties::rough_duration;
use fairground_core::report::PolicyReport;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct BadgesProps {
    pub report: PolicyReport,
    /// The probe's answer is on its way.
    pub sp_pending: bool,
    pub state: UseReducerHandle<AppState>,
}

/// Whether `policy`'s theory guarantees `property` on this scenario (`capped`: a cap below the
/// cluster binds), in a sentence, so a reader can tell a promise from an outcome.
pub fn promise_sentence(policy: &str, property: &str, capped: bool) -> String {
    let promise = policies::info(policy).map_or(Promise::No, |i| i.guarantees.of(property));
    match promise {
        Promise::Always => {
            format!("Guaranteed: {policy}'s theory promises {property} on every scenario.")
        }
        Promise::WithoutCaps if !capped => {
            format!("Guaranteed: {policy}'s theory promises {property} when no cap binds, as here.")
        }
        Promise::WithoutCaps => format!(
            "Not guaranteed here: {policy}'s theory promises {property} only when no cap binds, \
             and one does in this scenario."
        ),
        Promise::No => format!(
            "Not guaranteed by {policy}'s theory: {property} holds or fails with the scenario."
        ),
    }
}

fn badge(name: &str, holds: Option<bool>, promise: String, witness: Html) -> Html {
    let (mark, class) = match holds {
        Some(true) => ("✓", "pass"),
        Some(false) => ("✗", "fail"),
        None => ("?", "unknown"),
    };
    html! {
        // Closed until opened, failed or not: the verdicts are a glance (✓ / ✗) under the chart,
        // and a reader opens the one to read; expanded witnesses pushed the first figure down
        // and read as alarms before the page had said what they mean (issue 46).
        <details class={classes!("badge", class)} data-testid={format!("badge-{name}")}>
            // The letters with the words: PE and SP meant nothing to a reader who had not
            // opened the badge (issue 78).
            <summary>{ format!("{mark} {name} ") }<span class="badge-words">{ property_words(name) }</span></summary>
            <div class="witness"><Definition id={name.to_string()} />
                <p class="promise" data-testid={format!("promise-{name}")}>{ promise }</p>{ witness }</div>
        </details>
    }
}

/// A property's letters in words, as its badge says them.
pub fn property_words(letters: &str) -> &'static str {
    match letters {
        "SI" => "sharing incentive",
        "EF" => "envy-free",
        "PE" => "Pareto efficient",
        "SP" => "strategy-proof",
        _ => "",
    }
}

/// `part` as a percentage of `whole`, as a reader compares gains ("0.03%"; "<0.01%" below).
pub fn percent(part: f64, whole: f64) -> String {
    if whole.abs() <= f64::MIN_POSITIVE || !part.is_finite() || !whole.is_finite() {
        return "n/a".to_string();
    }
    let p = 100.0 * part / whole.abs();
    if p.abs() < 0.01 {
        "<0.01%".to_string()
    } else {
        format!("{p:.2}%")
    }
}

/// The cells a misreport changed, as "v100 7.47 → 1.87 (understated)".
pub fn misreported_cells(types: &[String], truth: &[f64], reported: &[f64]) -> String {
    let cells: Vec<String> = types
        .iter()
        .zip(truth.iter().zip(reported))
        .filter(|(_, (t, r))| (*t - *r).abs() > 1e-9 * t.abs().max(r.abs()))
        .map(|(name, (t, r))| {
            let how = if r < t { "understated" } else { "overstated" };
            format!("{name} {t:.3} → {r:.3} ({how})")
        })
        .collect();
    if cells.is_empty() {
        "its true throughputs".to_string()
    } else {
        cells.join(", ")
    }
}

/// The envious pair's bundles side by side, and what each is worth to the envious tenant per
/// unit of weight (its own speedups).
fn envy_pair(p: &BadgesProps, i: usize, k: usize) -> Html {
    let r = &p.report;
    let Some(inst) = p
        .state
        .results
        .as_ref()
        .and_then(|res| res.scenario.instance().ok())
    else {
        return html! {};
    };
    let (Some(own), Some(other)) = (r.allocation.gpus.get(i), r.allocation.gpus.get(k)) else {
        return html! {};
    };
    let worth = |bundle: &[f64], w: f64| inst.utility(i, bundle) / w;
    let name = |t: usize| r.tenants.get(t).cloned().unwrap_or_default();
    html! {
        <table class="witness-table" data-testid="envy-pair">
            <thead><tr><th></th><th>{ format!("{}'s GPUs", name(i)) }</th><th>{ format!("{}'s GPUs", name(k)) }</th></tr></thead>
            <tbody>
                { for r.gpu_types.iter().enumerate().map(|(j, t)| html! {
                    <tr><td>{ t }</td><td>{ format!("{:.3}", own[j]) }</td><td>{ format!("{:.3}", other[j]) }</td></tr>
                }) }
                <tr><td>{ format!("worth to {} per unit of weight", name(i)) }</td>
                    <td>{ format!("{:.4}", worth(own, inst.weight[i])) }</td>
                    <td>{ format!("{:.4}", worth(other, inst.weight[k])) }</td></tr>
            </tbody>
        </table>
    }
}

/// The SP badge before a probe: what it would cost, and a button when the page can run it.
fn not_probed(p: &BadgesProps) -> Html {
    let state = p.state.clone();
    let results = state.results.as_ref();
    let (solves, seconds) =
        results.map_or((0, None), |r| probe_cost(&r.scenario, r.seconds_per_policy));
    let cost = match seconds {
        Some(s) => format!(
            "{solves} times, {} at this scenario's speed",
            rough_duration(s)
        ),
        None => format!("{solves} times"),
    };
    if seconds.is_some_and(|s| s > PAGE_PROBE_SECONDS) {
        return html! {
            <p data-testid="sp-too-long">{ format!(
                "Not probed: the probe would re-solve {} {cost}, longer than the page waits for \
                 an answer. `fairground solve` runs it natively (it says how long first).",
                p.report.policy
            ) }</p>
        };
    }
    html! {
        <p>{ format!("Not probed yet: the probe re-solves the policy {cost}. ") }
           <button type="button" data-testid="run-sp-probe"
                   onclick={Callback::from(move |_: MouseEvent| state.dispatch(Action::ProbeStrategyProofness))}>
               { "Probe now" }
           </button>
        </p>
    }
}

/// SI / EF / PE / SP-probe verdicts; a failed one opens on its witness.
#[component]
pub fn Badges(p: &BadgesProps) -> Html {
    let r = &p.report;
    let props = &r.properties;
    let name = |i: usize| r.tenants.get(i).cloned().unwrap_or_default();
    let si = &props.sharing_incentive;
    let si_witness = html! {
        <p>{ format!("Worst: {} gets {:.4} of its equal-split utility ({}).", name(si.worst_tenant), si.worst_ratio, percent(si.worst_ratio, 1.0)) }</p>
    };
    let ef = &props.envy_freeness;
    let ef_witness = match ef.pair {
        _ if ef.holds.is_none() => {
            html! { <p>{ format!("Not defined: {}", ef.undecided.as_deref().unwrap_or("no reason given")) }</p> }
        }
        Some((i, k)) => {
            html! {
                <>
                    <p>{ format!("{} envies {}: it values that bundle {:.4} more per unit of weight than its own.", name(i), name(k), ef.worst_envy) }</p>
                    { envy_pair(p, i, k) }
                </>
            }
        }
        None => html! { <p>{ "Nobody prefers another tenant's bundle (per unit of weight)." }</p> },
    };
    let pe = &props.pareto_efficiency;
    let pe_witness = match &pe.dominating {
        Some(h) => html! {
            <>
                <p>{ format!("This allocation leaves nobody worse off and adds {:.4} ({}) to efficiency:", pe.gain, percent(pe.gain, r.efficiency)) }</p>
                <table class="witness-table">
                    <thead><tr><th>{ "tenant" }</th>{ for r.gpu_types.iter().map(|t| html! { <th>{ t }</th> }) }</tr></thead>
                    <tbody>{ for h.gpus.iter().enumerate().map(|(i, row)| html! {
                        <tr><td>{ name(i) }</td>{ for row.iter().map(|g| html! { <td>{ format!("{g:.3}") }</td> }) }</tr>
                    }) }
                    // GPUs the witness has co-located pairs share, all pairs together.
                    if !pe.dominating_shared.is_empty() {
                        <tr class="shared-row"><td>{ "shared by pairs" }</td>{ for (0..r.gpu_types.len()).map(|j| {
                            let g: f64 = pe.dominating_shared.iter().map(|h| h[j]).sum();
                            html! { <td>{ format!("{g:.3}") }</td> }
                        }) }</tr>
                    }
                    </tbody>
                </table>
                { match pe.gain_keeping_ef {
                    Some(0.0) => html! { <p data-testid="pe-keeping-ef">{ format!(
                        "It breaks envy-freeness, and so does every improvement: keeping envy-freeness, \
                         nothing gains. This gap is the price of envy-freeness, {} here.",
                        percent(pe.gain, r.efficiency)
                    ) }</p> },
                    Some(g) => html! { <p data-testid="pe-keeping-ef">{ format!(
                        "Even keeping envy-freeness, an allocation adds {g:.4} ({}).",
                        percent(g, r.efficiency)
                    ) }</p> },
                    None => html! {},
                } }
            </>
        },
        None if pe.holds == Some(true) => {
            html! { <p>{ "No other allocation makes someone better off without making someone worse off." }</p> }
        }
        None => {
            html! { <p>{ format!("Undecided: {}", pe.undecided.as_deref().unwrap_or("the test could not be solved")) }</p> }
        }
    };
    // The throughputs the tenant truly has, from the scenario that was solved.
    let truth = |i: usize| -> Vec<f64> {
        p.state
            .results
            .as_ref()
            .and_then(|res| res.scenario.tenants.get(i))
            .map_or_else(Vec::new, |t| t.throughput.clone())
    };
    let (sp_holds, sp_witness) = match (&props.strategy_proofness_probe, p.sp_pending) {
        (Some(probe), _) => match &probe.best {
            Some(lie) => (
                Some(false),
                html! {
                    <p>{ format!(
                        "{} gains {:.4} ({}; true utility {:.4} → {:.4}) by reporting {}.",
                        name(lie.tenant), lie.gain, percent(lie.gain, lie.truthful_utility),
                        lie.truthful_utility, lie.lying_utility,
                        misreported_cells(&r.gpu_types, &truth(lie.tenant), &lie.reported)
                    ) }</p>
                },
            ),
            None => (
                Some(true),
                html! { <p>{ format!("No profitable lie among {} misreports tried (not a proof).", probe.misreports_tried) }</p> },
            ),
        },
        (None, true) => (
            None,
            html! { <p>{ "Probing: re-solving with misreported throughputs…" }</p> },
        ),
        (None, false) => (None, not_probed(p)),
    };
    let capped = p.state.results.as_ref().is_some_and(|res| {
        let cluster: f64 = res
            .scenario
            .gpu_types
            .iter()
            .map(|t| f64::from(t.count))
            .sum();
        res.scenario
            .tenants
            .iter()
            .any(|t| t.max_gpus.is_some_and(|c| c < cluster))
    });
    let promise = |property: &str| promise_sentence(&r.policy, property, capped);
    html! {
        <div class="badges" data-testid="badges">
            { badge("SI", Some(si.holds), promise("SI"), si_witness) }
            { badge("EF", ef.holds, promise("EF"), ef_witness) }
            { badge("PE", pe.holds, promise("PE"), pe_witness) }
            { badge("SP", sp_holds, promise("SP"), sp_witness) }
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_verdict_says_whether_the_theory_promises_it() {
        assert_eq!(
            promise_sentence("oef-coop", "EF", true),
            "Guaranteed: oef-coop's theory promises EF on every scenario."
        );
        assert_eq!(
            promise_sentence("oef-coop", "PE", false),
            "Not guaranteed by oef-coop's theory: PE holds or fails with the scenario."
        );
        assert!(
            promise_sentence("nash-welfare", "SI", false).ends_with("when no cap binds, as here.")
        );
        assert!(promise_sentence("nash-welfare", "SI", true).starts_with("Not guaranteed here"));
        assert!(promise_sentence("equal-share", "SP", true).starts_with("Guaranteed"));
        assert!(promise_sentence("no-such-policy", "SI", false).starts_with("Not guaranteed"));
    }

    #[test]
    fn gains_read_as_percentages() {
        // The landing scenario's PE gap (issue 46): 0.0148 of an efficiency of about 49.
        assert_eq!(percent(0.0148, 49.3), "0.03%");
        assert_eq!(percent(0.5, 2.5), "20.00%");
        assert_eq!(percent(1e-5, 10.0), "<0.01%");
        assert_eq!(percent(1.0, 0.0), "n/a");
    }

    #[test]
    fn a_misreport_names_the_cells_it_changed() {
        let types = vec!["k80".to_string(), "v100".to_string()];
        assert_eq!(
            misreported_cells(&types, &[1.0, 7.47], &[1.0, 1.87]),
            "v100 7.470 → 1.870 (understated)"
        );
        assert_eq!(
            misreported_cells(&types, &[1.0, 2.0], &[3.0, 1.0]),
            "k80 1.000 → 3.000 (overstated), v100 2.000 → 1.000 (understated)"
        );
        assert_eq!(
            misreported_cells(&types, &[1.0, 2.0], &[1.0, 2.0]),
            "its true throughputs"
        );
    }
}
