//! A chart's numbers as a table: offered beside every chart so that a reader who cannot see it
//! (or wants the figures) reads the same data (WCAG 1.1.1, a text alternative).

use crate::line::Series;

/// A header row and rows of cells, all text.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DataTable {
    pub head: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// One row per name in `rows`, one column per name in `columns` (under the `corner` heading);
/// `cell(i, j)` fills row i, column j (a `dyn` closure: one copy of this in the page, not one
/// per chart).
pub fn grid(
    corner: &str,
    rows: &[String],
    columns: &[String],
    cell: &dyn Fn(usize, usize) -> String,
) -> DataTable {
    DataTable {
        head: std::iter::once(corner.to_string())
            .chain(columns.iter().cloned())
            .collect(),
        rows: rows
            .iter()
            .enumerate()
            .map(|(i, name)| {
                std::iter::once(name.clone())
                    .chain((0..columns.len()).map(|j| cell(i, j)))
                    .collect()
            })
            .collect(),
    }
}

/// Lines read at `samples` evenly spaced x values over their shared range (both ends included),
/// one row per x and one column per line. A line's value at x is that of its last point at or
/// before x, as the charts draw them (a CDF's steps, a sampled series); blank before its first
/// point. `digits` decimals for x and for the values.
pub fn sampled(series: &[Series], x_name: &str, samples: usize, digits: usize) -> DataTable {
    let xs = series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let (lo, hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
        (lo.min(x), hi.max(x))
    });
    let head = std::iter::once(x_name.to_string())
        .chain(series.iter().map(|s| s.label.clone()))
        .collect();
    if !lo.is_finite() {
        return DataTable {
            head,
            rows: Vec::new(),
        };
    }
    let steps = samples.max(2) - 1;
    let mut at: Vec<f64> = (0..=steps)
        .map(|k| lo + (hi - lo) * k as f64 / steps as f64)
        .collect();
    at.dedup();
    let rows = at
        .iter()
        .map(|&x| {
            std::iter::once(format!("{x:.digits$}"))
                .chain(series.iter().map(|s| {
                    s.points
                        .iter()
                        .take_while(|p| p.0 <= x)
                        .last()
                        .map_or(String::new(), |p| format!("{:.digits$}", p.1))
                }))
                .collect()
        })
        .collect();
    DataTable { head, rows }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_names_rows_and_columns() {
        let t = grid(
            "tenant",
            &["a".into(), "b".into()],
            &["V100".into(), "K80".into()],
            &|i, j| format!("{}", 10 * i + j),
        );
        assert_eq!(t.head, ["tenant", "V100", "K80"]);
        assert_eq!(t.rows, [["a", "0", "1"], ["b", "10", "11"]]);
    }

    #[test]
    fn sampled_reads_each_line_as_a_step() {
        // Hand-read: a CDF of JCTs 1, 2 and 4 hours, and a line that starts at x = 2.
        let cdf = Series::new("fifo", vec![(1.0, 1.0 / 3.0), (2.0, 2.0 / 3.0), (4.0, 1.0)]);
        let late = Series::new("late", vec![(2.0, 0.5), (3.0, 0.25)]);
        let t = sampled(&[cdf, late], "hours", 4, 2);
        assert_eq!(t.head, ["hours", "fifo", "late"]);
        assert_eq!(
            t.rows,
            [
                ["1.00", "0.33", ""],
                ["2.00", "0.67", "0.50"],
                ["3.00", "0.67", "0.25"],
                ["4.00", "1.00", "0.25"],
            ]
        );
    }

    #[test]
    fn sampled_without_points_has_no_rows() {
        let t = sampled(&[Series::new("x", vec![])], "t", 5, 1);
        assert_eq!(t.head, ["t", "x"]);
        assert!(t.rows.is_empty());
    }
}
