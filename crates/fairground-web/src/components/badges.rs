use crate::state::{probe_cost, Action, AppState, PAGE_PROBE_SECONDS};
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

fn badge(name: &str, title: &str, holds: Option<bool>, witness: Html) -> Html {
    let (mark, class) = match holds {
        Some(true) => ("✓", "pass"),
        Some(false) => ("✗", "fail"),
        None => ("?", "unknown"),
    };
    html! {
        <details class={classes!("badge", class)} data-testid={format!("badge-{name}")} open={holds == Some(false)}>
            <summary title={title.to_string()}>{ format!("{mark} {name}") }</summary>
            <div class="witness">{ witness }</div>
        </details>
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
        <p>{ format!("Worst: {} gets {:.4} of its equal-split utility.", name(si.worst_tenant), si.worst_ratio) }</p>
    };
    let ef = &props.envy_freeness;
    let ef_witness = match ef.pair {
        _ if ef.holds.is_none() => {
            html! { <p>{ format!("Not defined: {}", ef.undecided.as_deref().unwrap_or("no reason given")) }</p> }
        }
        Some((i, k)) => {
            html! { <p>{ format!("{} envies {}: it values that bundle {:.4} more per unit of weight than its own.", name(i), name(k), ef.worst_envy) }</p> }
        }
        None => html! { <p>{ "Nobody prefers another tenant's bundle (per unit of weight)." }</p> },
    };
    let pe = &props.pareto_efficiency;
    let pe_witness = match &pe.dominating {
        Some(h) => html! {
            <>
                <p>{ format!("This allocation leaves nobody worse off and adds {:.4} to efficiency:", pe.gain) }</p>
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
            </>
        },
        None if pe.holds == Some(true) => {
            html! { <p>{ "No other allocation makes someone better off without making someone worse off." }</p> }
        }
        None => {
            html! { <p>{ format!("Undecided: {}", pe.undecided.as_deref().unwrap_or("the test could not be solved")) }</p> }
        }
    };
    let (sp_holds, sp_witness) = match (&props.strategy_proofness_probe, p.sp_pending) {
        (Some(probe), _) => match &probe.best {
            Some(lie) => (
                Some(false),
                html! {
                    <p>{ format!(
                        "{} gains {:.4} (true utility {:.4} → {:.4}) by reporting throughputs [{}].",
                        name(lie.tenant), lie.gain, lie.truthful_utility, lie.lying_utility,
                        lie.reported.iter().map(|x| format!("{x:.3}")).collect::<Vec<_>>().join(", ")
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
    html! {
        <div class="badges" data-testid="badges">
            { badge("SI", "sharing incentive: everyone at least as well off as with its equal split", Some(si.holds), si_witness) }
            { badge("EF", "envy-freeness: nobody prefers another's bundle, per unit of weight (a cap exempts bundles too big to hold)", ef.holds, ef_witness) }
            { badge("PE", "Pareto efficiency: no allocation is better for someone and worse for none", pe.holds, pe_witness) }
            { badge("SP", "strategy-proofness probe: searched misreports of throughput", sp_holds, sp_witness) }
        </div>
    }
}
