//! gandiva-fair's trades as a table. Presentational: data from props only.

use fairground_core::policies::Trade;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct TradesPanelProps {
    pub trades: Vec<Trade>,
    pub gpu_types: Vec<String>,
    pub tenants: Vec<String>,
}

/// gandiva-fair's trades, in the order they happened: who sold how many fast GPUs to whom, for
/// how many slow ones (names are text, never markup).
#[component]
pub fn TradesPanel(p: &TradesPanelProps) -> Html {
    let name = |list: &[String], i: usize| list.get(i).cloned().unwrap_or_default();
    html! {
        <section class="market" data-testid="trades">
            <h2>{ "Trades" }</h2>
            <p class="hint">{ "From equal shares of every type, a tenant that gains least from a fast type sells it to the one that gains most, paid in slow GPUs at the rate shown (slow GPUs per fast GPU). Neither side ends below where it started." }</p>
            <table class="market-prices">
                <thead><tr>
                    <th>{ "seller" }</th><th>{ "buyer" }</th><th>{ "sold" }</th><th>{ "paid" }</th><th>{ "rate" }</th>
                </tr></thead>
                <tbody>
                    { for p.trades.iter().map(|t| html! {
                        <tr>
                            <td>{ name(&p.tenants, t.seller) }</td>
                            <td>{ name(&p.tenants, t.buyer) }</td>
                            <td>{ format!("{:.4} {}", t.sold, name(&p.gpu_types, t.fast)) }</td>
                            <td>{ format!("{:.4} {}", t.paid, name(&p.gpu_types, t.slow)) }</td>
                            <td>{ format!("{:.4}", t.rate) }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
        </section>
    }
}
