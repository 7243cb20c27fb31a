//! A sweep's plots, `DIR/plots/*.svg`, drawn from its `results.csv` and `jct_quantiles.csv` with
//! the playground's own line chart ([`fairground_chart::line`]):
//!
//! - `avg_jct[-axis=value...].svg`: average JCT against load (the `jobs-per-hour` axis), one line
//!   per policy at the mean over seeds (the `seed` axis), its band from the lowest to the highest
//!   seed; one plot per combination of the other axes.
//! - `jct_cdf[-axis=value...].svg`: JCT CDFs, one plot per load and combination of the other axes,
//!   one line per policy. Over seeds the CDFs are averaged quantile by quantile (each seed's
//!   JCT at the same share of jobs), which keeps the curves' shape.

use fairground_chart::line::{line_chart, Series};
use fairground_chart::scale::WIDE;
use fairground_chart::svg::SvgNode;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The playground's chart style (www/style.css), for a standalone file.
const FILE_STYLE: &str = "text { font: 12px sans-serif; fill: #1a1a1a } \
    .axis-label { fill: #555 } .grid { stroke: #e0e0e0; stroke-width: 1 }";

/// The shares of jobs at which each (case, policy)'s JCT is recorded: 0, 0.01, ..., 1.
pub const QUANTILES: usize = 101;

/// The JCT at each of [`QUANTILES`] shares of `jcts` (nearest rank; empty when none finished).
pub fn jct_quantiles(jcts: &[f64]) -> Vec<(f64, f64)> {
    let mut sorted: Vec<f64> = jcts.iter().copied().filter(|v| v.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    if sorted.is_empty() {
        return Vec::new();
    }
    (0..QUANTILES)
        .map(|k| {
            let q = k as f64 / (QUANTILES - 1) as f64;
            let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
            (q, sorted[rank - 1])
        })
        .collect()
}

/// A CSV file's header and rows.
pub(crate) fn read_csv(path: &Path) -> Result<(Vec<String>, Vec<Vec<String>>), String> {
    let mut reader =
        csv::Reader::from_path(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let head = reader
        .headers()
        .map_err(|e| format!("{}: {e}", path.display()))?
        .iter()
        .map(str::to_string)
        .collect();
    let rows = reader
        .records()
        .map(|r| {
            r.map(|r| r.iter().map(str::to_string).collect())
                .map_err(|e| format!("{}: {e}", path.display()))
        })
        .collect::<Result<_, _>>()?;
    Ok((head, rows))
}

/// A file name's part for `axis=value` (anything but letters, digits, '.' and '-' as '_').
fn name_part(axis: &str, value: &str) -> String {
    let clean = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    format!("-{}={}", clean(axis), clean(value))
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// Writes the plots of the sweep in `dir`; returns the files written.
pub fn write_plots(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let (head, rows) = read_csv(&dir.join("results.csv"))?;
    let layout = Columns::of(&head)?;
    let mut policies: Vec<String> = Vec::new();
    for r in &rows {
        if !policies.contains(&r[layout.policy]) {
            policies.push(r[layout.policy].clone());
        }
    }
    let plots = dir.join("plots");
    std::fs::create_dir_all(&plots).map_err(|e| format!("{}: {e}", plots.display()))?;
    let mut written = Vec::new();
    let mut write = |name: String, series: Vec<Series>, x: &str, y: &str| -> Result<(), String> {
        let path = plots.join(format!("{name}.svg"));
        std::fs::write(&path, chart_file(&series, x, y, &name))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        written.push(path);
        Ok(())
    };
    if let Some(load) = layout.load {
        let y = if layout.seed.is_some() {
            "average JCT, hours (band: range over seeds)"
        } else {
            "average JCT (hours)"
        };
        for (group, series) in jct_by_load(&layout, load, &rows, &policies) {
            write(format!("avg_jct{group}"), series, "load (jobs per hour)", y)?;
        }
    }
    let quantiles_path = dir.join("jct_quantiles.csv");
    if quantiles_path.exists() {
        let (_, qrows) = read_csv(&quantiles_path)?;
        for (name, series) in jct_cdfs(&layout, &rows, &qrows, &policies) {
            write(name, series, "JCT (hours)", "share of jobs")?;
        }
    }
    Ok(written)
}

/// A plot as an SVG file: the page's line chart, with its stylesheet inline and a white ground.
fn chart_file(series: &[Series], x: &str, y: &str, name: &str) -> String {
    let mut chart = line_chart(series, x, y, name, WIDE);
    // The page styles its charts with its stylesheet; a file carries the same look inline.
    chart
        .children
        .insert(0, SvgNode::new("style").text(FILE_STYLE));
    chart.children.insert(
        0,
        SvgNode::new("rect")
            .attr("width", "100%")
            .attr("height", "100%")
            .attr("fill", "white"),
    );
    chart.to_svg_text()
}

/// Where `results.csv` keeps what the plots read: the policy and average JCT columns, the load
/// and seed axes if the grid has them, and the other axes, which name a plot's group.
struct Columns {
    policy: usize,
    jct: usize,
    load: Option<usize>,
    seed: Option<usize>,
    others: Vec<(usize, String)>,
}

impl Columns {
    fn of(head: &[String]) -> Result<Columns, String> {
        let col = |name: &str| head.iter().position(|c| c == name);
        let policy = col("policy").ok_or("results.csv has no policy column")?;
        let jct = col("avg_jct_h").ok_or("results.csv has no avg_jct_h")?;
        let axes: Vec<(usize, &str)> = (1..policy).map(|k| (k, head[k].as_str())).collect();
        let load = axes
            .iter()
            .find(|(_, a)| *a == "jobs_per_hour")
            .map(|a| a.0);
        let seed = axes.iter().find(|(_, a)| *a == "seed").map(|a| a.0);
        let others = axes
            .iter()
            .filter(|(k, _)| Some(*k) != load && Some(*k) != seed)
            .map(|&(k, a)| (k, a.to_string()))
            .collect();
        Ok(Columns {
            policy,
            jct,
            load,
            seed,
            others,
        })
    }

    /// A row's group: its values on the axes other than load and seed, as a file name's part.
    fn group_of(&self, r: &[String]) -> String {
        self.others
            .iter()
            .map(|(k, a)| name_part(a, &r[*k]))
            .collect()
    }
}

/// Average JCT against load, one plot per group: a line per policy, banded by the range over
/// seeds when there are several.
fn jct_by_load(
    layout: &Columns,
    load: usize,
    rows: &[Vec<String>],
    policies: &[String],
) -> Vec<(String, Vec<Series>)> {
    let mut groups: BTreeMap<String, BTreeMap<&str, BTreeMap<u64, Vec<f64>>>> = BTreeMap::new();
    for r in rows {
        let (Ok(x), Ok(jct)) = (r[load].parse::<f64>(), r[layout.jct].parse::<f64>()) else {
            continue;
        };
        groups
            .entry(layout.group_of(r))
            .or_default()
            .entry(r[layout.policy].as_str())
            .or_default()
            .entry(x.to_bits())
            .or_default()
            .push(jct);
    }
    groups
        .into_iter()
        .map(|(group, by_policy)| {
            let series = policies
                .iter()
                .filter_map(|p| {
                    let by_load = by_policy.get(p.as_str())?;
                    let mut points: Vec<(f64, Vec<f64>)> = by_load
                        .iter()
                        .map(|(&x, v)| (f64::from_bits(x), v.clone()))
                        .collect();
                    points.sort_by(|a, b| a.0.total_cmp(&b.0));
                    let mut s = Series::new(
                        p.clone(),
                        points.iter().map(|(x, v)| (*x, mean(v))).collect(),
                    );
                    if points.iter().any(|(_, v)| v.len() > 1) {
                        s.band = points
                            .iter()
                            .map(|(x, v)| {
                                let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
                                let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                                (*x, lo, hi)
                            })
                            .collect();
                    }
                    Some(s)
                })
                .collect();
            (group, series)
        })
        .collect()
}

/// JCT CDFs per load (or per case when there is no load axis), by group: a line per policy, its
/// quantiles averaged over seeds.
fn jct_cdfs(
    layout: &Columns,
    rows: &[Vec<String>],
    qrows: &[Vec<String>],
    policies: &[String],
) -> Vec<(String, Vec<Series>)> {
    // case key -> the results row that names its axes' values.
    let case_rows: BTreeMap<&str, &Vec<String>> = rows.iter().map(|r| (r[0].as_str(), r)).collect();
    // plot name -> policy -> quantile index -> JCTs over seeds.
    let mut plots_q: BTreeMap<String, BTreeMap<&str, BTreeMap<usize, Vec<f64>>>> = BTreeMap::new();
    for q in qrows {
        // A hand-edited file may have fewer columns: such rows are skipped, not read.
        let [case, policy, share, jct, ..] = q.as_slice() else {
            continue;
        };
        let Some(r) = case_rows.get(case.as_str()) else {
            continue;
        };
        let (Ok(share), Ok(jct)) = (share.parse::<f64>(), jct.parse::<f64>()) else {
            continue;
        };
        let mut name = "jct_cdf".to_string();
        if let Some(load) = layout.load {
            name.push_str(&name_part("jobs_per_hour", &r[load]));
        }
        name.push_str(&layout.group_of(r));
        plots_q
            .entry(name)
            .or_default()
            .entry(policy.as_str())
            .or_default()
            .entry((share * (QUANTILES - 1) as f64).round() as usize)
            .or_default()
            .push(jct);
    }
    plots_q
        .into_iter()
        .map(|(name, by_policy)| {
            let series = policies
                .iter()
                .filter_map(|p| {
                    let by_q = by_policy.get(p.as_str())?;
                    let points = by_q
                        .iter()
                        .map(|(&k, v)| (mean(v), k as f64 / (QUANTILES - 1) as f64))
                        .collect();
                    Some(Series::new(p.clone(), points))
                })
                .collect();
            (name, series)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_by_nearest_rank() {
        let q = jct_quantiles(&[4.0, 1.0, 3.0, 2.0]);
        assert_eq!(q.len(), QUANTILES);
        assert_eq!(q[0], (0.0, 1.0));
        assert_eq!(q[25].1, 1.0);
        assert_eq!(q[26].1, 2.0);
        assert_eq!(q[50].1, 2.0);
        assert_eq!(q[100], (1.0, 4.0));
        assert!(jct_quantiles(&[]).is_empty());
    }

    #[test]
    fn file_names_keep_only_safe_characters() {
        assert_eq!(
            name_part("cluster", "v100=4,k80=4"),
            "-cluster=v100_4_k80_4"
        );
    }
}
