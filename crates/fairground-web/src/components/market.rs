//! nash-welfare's prices and partial-allocation's kept fractions as tables. Presentational.

use fairground_core::policies::Market;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct MarketPanelProps {
    pub market: Market,
    pub gpu_types: Vec<String>,
    pub tenants: Vec<String>,
}

/// The equilibrium prices of nash-welfare, and partial-allocation's kept fractions and leftover
/// GPUs, as small tables (names are text, never markup).
#[component]
pub fn MarketPanel(p: &MarketPanelProps) -> Html {
    let m = &p.market;
    let capped = m.cap_prices.iter().any(|&q| q > 0.0);
    html! {
        <section class="market" data-testid="market">
            <h2>{ "Market" }</h2>
            <p class="hint">{ "Prices per GPU at the equilibrium from equal incomes: each tenant's budget is its weight, and it buys only the types with the best speedup per price." }</p>
            <table class="market-prices" data-testid="market-prices">
                <thead><tr><th>{ "GPU type" }</th><th>{ "price" }</th>
                    if let Some(_) = &m.unallocated { <th>{ "left unallocated" }</th> }
                </tr></thead>
                <tbody>
                    { for p.gpu_types.iter().enumerate().map(|(j, name)| html! {
                        <tr><td>{ name.clone() }</td><td>{ format!("{:.4}", m.prices[j]) }</td>
                            if let Some(left) = &m.unallocated { <td>{ format!("{:.4}", left[j]) }</td> }
                        </tr>
                    }) }
                </tbody>
            </table>
            if m.kept_fraction.is_some() || capped {
                <table class="market-tenants" data-testid="market-tenants">
                    <thead><tr><th>{ "tenant" }</th>
                        if m.kept_fraction.is_some() { <th>{ "keeps of its Nash-welfare bundle" }</th> }
                        if capped { <th>{ "cap price" }</th> }
                    </tr></thead>
                    <tbody>
                        { for p.tenants.iter().enumerate().map(|(i, name)| html! {
                            <tr><td>{ name.clone() }</td>
                                if let Some(kept) = &m.kept_fraction { <td>{ format!("{:.4}", kept[i]) }</td> }
                                if capped { <td>{ format!("{:.4}", m.cap_prices[i]) }</td> }
                            </tr>
                        }) }
                    </tbody>
                </table>
            }
        </section>
    }
}
