//! The GPUs co-located pairs hold together (gavel-las-packed) as a table. Presentational: data
//! from props only.

use fairground_core::Instance;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SharedPanelProps {
    pub instance: Rc<Instance>,
    /// shared[p][j]: GPUs of type j the scenario's pair p holds together.
    pub shared: Vec<Vec<f64>>,
}

/// The GPUs co-located pairs hold together (gavel-las-packed), one row per pair, as a table
/// (names are text, never markup). Pairs that share nothing are listed as such.
#[component]
pub fn SharedPanel(p: &SharedPanelProps) -> Html {
    let inst = &p.instance;
    html! {
        <section class="shared" data-testid="shared-gpus">
            <h2>{ "GPUs shared by co-located pairs" }</h2>
            <p class="hint">{ "Both tenants of a pair run on these GPUs at once, each at its co-located throughput; the utilities count them, the chart below shows GPUs held alone." }</p>
            <table class="shared-table">
                <thead><tr><th>{ "pair" }</th>{ for inst.type_names.iter().map(|t| html! { <th>{ t.clone() }</th> }) }</tr></thead>
                <tbody>{ for inst.co_located.iter().zip(&p.shared).map(|(pair, h)| html! {
                    <tr data-pair={format!("{}+{}", inst.tenant_names[pair.a], inst.tenant_names[pair.b])}>
                        <td>{ format!("{} + {}", inst.tenant_names[pair.a], inst.tenant_names[pair.b]) }</td>
                        { for h.iter().map(|g| html! { <td>{ format!("{g:.3}") }</td> }) }
                    </tr>
                }) }</tbody>
            </table>
        </section>
    }
}
