//! The envy matrix as a heatmap drawn at its cells' size, with its numbers as a table.
//! Presentational: data from props, scale math in plain functions.

use crate::palette::envy_colour;
use fairground_chart::table::{grid, DataTable};
use fairground_core::EnvyMatrix;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct EnvyHeatmapProps {
    pub tenants: Vec<String>,
    pub envy: EnvyMatrix,
}

/// Where the heatmap's parts go: `label_left` units of row names, `label_top` of column names
/// leaning at 45 degrees, `n` cells of `cell` units, and the `overhang` of the last column's name
/// past the grid; `chars` is how many characters of a name are shown.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeatmapLayout {
    pub chars: usize,
    pub label_left: f64,
    pub label_top: f64,
    pub cell: f64,
    pub overhang: f64,
}

impl HeatmapLayout {
    /// For names of at most `longest` characters, `n` tenants and `w` units available: the names
    /// take what they need (about 8.5 units a character at 12 px, as wide as a name of wide letters, 16 at most, 12 when narrow), and
    /// cells are at most 44 units (a small matrix is not blown up to the page's width) and at
    /// least 8, as many as fit in `w`.
    pub fn new(longest: usize, n: usize, w: f64) -> HeatmapLayout {
        let chars = longest.min(if w < 500.0 { 12 } else { 16 });
        let text = chars as f64 * 8.5;
        let (label_left, label_top) = (text + 12.0, text * std::f64::consts::FRAC_1_SQRT_2 + 12.0);
        let reach = text * std::f64::consts::FRAC_1_SQRT_2;
        // The last name reaches `reach` right of its cell's middle, half a cell past the grid.
        let room = w - label_left - 10.0 - reach;
        let cell = (room / (n.max(1) as f64 + 0.5)).clamp(8.0, 44.0);
        HeatmapLayout {
            chars,
            label_left,
            label_top,
            cell,
            overhang: (reach - cell / 2.0).max(0.0),
        }
    }

    /// The view's width and height: drawn at one pixel a unit, no bigger than its cells need.
    pub fn size(&self, n: usize) -> (f64, f64) {
        let grid = self.cell * n as f64;
        (
            self.label_left + grid + 10.0 + self.overhang,
            self.label_top + grid + 10.0,
        )
    }
}

/// Row i, column k: how much more tenant i values k's bundle than its own, per unit of weight.
/// Vermillion cells are envy; blue ones are no envy (never near-white, `envy_colour`); grey pairs are not constrained (caps).
#[component]
pub fn EnvyHeatmap(p: &EnvyHeatmapProps) -> Html {
    let n = p.tenants.len();
    let longest = p
        .tenants
        .iter()
        .map(|t| t.chars().count())
        .max()
        .unwrap_or(0);
    let at = HeatmapLayout::new(longest, n, super::chart_width());
    let (cell, label, top) = (at.cell, at.label_left, at.label_top);
    let (width, height) = at.size(n);
    let max_abs = p
        .envy
        .envy
        .iter()
        .flatten()
        .map(|v| v.abs())
        .fold(0.0, f64::max);
    html! {
        <svg viewBox={format!("0 0 {width} {height}")} width={width.to_string()} role="img" data-testid="envy-heatmap"
             aria-label="Envy matrix: rows envy columns">
            { for p.tenants.iter().enumerate().map(|(k, name)| html! {
                <text class="heat-col" transform={format!("translate({}, {}) rotate(-45)", label + cell * (k as f64 + 0.5), top - 6.0)}>
                    { super::shorten(name, at.chars) }
                </text>
            }) }
            { for p.tenants.iter().enumerate().map(|(i, name)| html! {
                <g>
                    <text x={(label - 6.0).to_string()} y={(top + cell * (i as f64 + 0.5) + 4.0).to_string()} text-anchor="end">
                        { super::shorten(name, at.chars) }
                    </text>
                    { for (0..n).map(|k| {
                        let value = p.envy.envy[i][k];
                        let required = p.envy.required[i][k];
                        let envious = p.envy.envies[i][k];
                        let fill = if i == k || !required { "#bbbbbb".to_string() } else { envy_colour(value, max_abs, envious) };
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
                                  x={(label + cell * k as f64).to_string()} y={(top + cell * i as f64).to_string()}
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

#[cfg(test)]
mod tests {
    use super::HeatmapLayout;

    /// Two short names: cells at their 44-unit most, and the view only as big as they and the
    /// names need (the embed's 2 x 2 drew a 520 x 504 px heatmap).
    #[test]
    fn a_small_matrix_is_drawn_no_bigger_than_its_cells_need() {
        let at = HeatmapLayout::new(6, 2, 720.0);
        assert_eq!(at.cell, 44.0);
        assert_eq!(at.label_left, 6.0 * 8.5 + 12.0);
        let (w, h) = at.size(2);
        let reach = 51.0 * std::f64::consts::FRAC_1_SQRT_2;
        assert!((w - (63.0 + 88.0 + 10.0 + (reach - 22.0))).abs() < 1e-9);
        assert!((h - (reach + 12.0 + 88.0 + 10.0)).abs() < 1e-9);
    }

    /// Six long names on a phone (340 units): names cut to 12 characters and the whole matrix,
    /// the last column's leaning name included, within the width.
    #[test]
    fn a_phone_s_matrix_fits_its_width() {
        let at = HeatmapLayout::new(32, 6, 340.0);
        assert_eq!(at.chars, 12);
        assert!(at.size(6).0 <= 340.0 + 1e-9, "{:?}", at.size(6));
        assert!(at.cell > 20.0);
    }
}
