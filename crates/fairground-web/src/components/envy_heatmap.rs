use crate::palette::envy_colour;
use fairground_chart::table::{grid, DataTable};
use fairground_core::EnvyMatrix;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct EnvyHeatmapProps {
    pub tenants: Vec<String>,
    pub envy: EnvyMatrix,
}

/// Row i, column k: how much more tenant i values k's bundle than its own, per unit of weight.
/// Vermillion cells are envy; blue ones are no envy; grey pairs are not constrained (caps).
#[component]
pub fn EnvyHeatmap(p: &EnvyHeatmapProps) -> Html {
    let n = p.tenants.len();
    let cell = (360.0 / n.max(1) as f64).clamp(8.0, 44.0);
    let label = 150.0;
    let size = label + cell * n as f64;
    // The column names lean right at 45 degrees from their cells' middles: the last one reaches
    // past the grid by its length (about 7 units a character at 12 px) times cos 45, less half a
    // cell; the view is widened by that, so no name is cut at the edge.
    let longest = p
        .tenants
        .iter()
        .map(|t| super::shorten(t, 16).chars().count())
        .max()
        .unwrap_or(0) as f64;
    let overhang = (longest * 7.0 * std::f64::consts::FRAC_1_SQRT_2 - cell / 2.0).max(0.0);
    let max_abs = p
        .envy
        .envy
        .iter()
        .flatten()
        .map(|v| v.abs())
        .fold(0.0, f64::max);
    html! {
        <svg viewBox={format!("0 0 {} {}", size + 10.0 + overhang, size + 10.0)} role="img" data-testid="envy-heatmap"
             aria-label="Envy matrix: rows envy columns">
            { for p.tenants.iter().enumerate().map(|(k, name)| html! {
                <text class="heat-col" transform={format!("translate({}, {}) rotate(-45)", label + cell * (k as f64 + 0.5), label - 6.0)}>
                    { super::shorten(name, 16) }
                </text>
            }) }
            { for p.tenants.iter().enumerate().map(|(i, name)| html! {
                <g>
                    <text x={(label - 6.0).to_string()} y={(label + cell * (i as f64 + 0.65)).to_string()} text-anchor="end">
                        { super::shorten(name, 16) }
                    </text>
                    { for (0..n).map(|k| {
                        let value = p.envy.envy[i][k];
                        let required = p.envy.required[i][k];
                        let envious = p.envy.envies[i][k];
                        let fill = if i == k || !required { "#bbbbbb".to_string() } else { envy_colour(value, max_abs) };
                        let tip = if i == k {
                            format!("{name} (own bundle)")
                        } else if !required {
                            format!("{name} vs {}: exempt (it could not hold that bundle scaled to its weight under its cap)", p.tenants[k])
                        } else if envious {
                            format!("{name} envies {}: values that bundle {value:.4} more per unit of weight", p.tenants[k])
                        } else {
                            format!("{name} does not envy {}: values its own {:.4} more per unit of weight", p.tenants[k], -value)
                        };
                        html! {
                            <rect class={classes!("heat-cell", (required && envious).then_some("envy"))}
                                  x={(label + cell * k as f64).to_string()} y={(label + cell * i as f64).to_string()}
                                  width={(cell - 1.0).to_string()} height={(cell - 1.0).to_string()} fill={fill}>
                                <title>{ tip }</title>
                            </rect>
                        }
                    }) }
                </g>
            }) }
        </svg>
    }
}

/// The heatmap's numbers: row i, column k is how much more i values k's bundle than its own per
/// unit of weight ("own" on the diagonal, "exempt" where EF does not constrain the pair).
pub fn envy_table(tenants: &[String], envy: &EnvyMatrix) -> DataTable {
    grid("envies →", tenants, tenants, &|i, k| {
        if i == k {
            "own".into()
        } else if !envy.required[i][k] {
            "exempt".into()
        } else {
            format!("{:.4}", envy.envy[i][k])
        }
    })
}
