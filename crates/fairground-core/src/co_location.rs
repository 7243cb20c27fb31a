//! Co-located tenants, for Gavel's space sharing: two tenants whose jobs can run on the same
//! GPUs at once, each at its own measured throughput next to the other (Gavel's
//! `simulation_throughputs.json` measures such pairs). A scenario lists them in `co_located`;
//! `gavel-las-packed` may give a pair GPUs together, and its [`crate::Solution::shared`] says
//! how many. Every other policy ignores the list.

use crate::problem::{one_per_type, Problem};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// One pair as a user writes it. (Lists, not fixed-size arrays, in the struct: they reuse the
/// deserialising code every scenario already has, where `[T; 2]` cost the page 17 KB of wasm;
/// [`check`] holds each to two entries.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoLocated {
    /// The two tenants, by name. Both need the same `max_gpus`: their jobs share that many GPUs.
    pub tenants: Vec<String>,
    /// `throughput[j]`: [first's, second's] throughput per GPU of type j while they share, in
    /// the tenants' own units; [0, 0] where they cannot share.
    pub throughput: Vec<Vec<f64>>,
}

/// One pair as the policies use it: tenants by index, throughputs per GPU type.
#[derive(Debug, Clone, PartialEq)]
pub struct CoLocation {
    pub a: usize,
    pub b: usize,
    /// Per GPU type: (a's, b's) throughput per GPU while they share, in the units of
    /// `Instance::throughput`; (0, 0) where they cannot share.
    pub throughput: Vec<(f64, f64)>,
}

/// A tenant as the pairs' check reads it: its name and its `max_gpus`.
pub(crate) type TenantCap<'a> = (&'a str, Option<f64>);

/// Checks a scenario's `co_located` list against its tenants and its number of GPU types (every
/// problem, located) and returns the pairs by index; only meaningful once the tenants and types
/// are themselves valid.
pub(crate) fn check(
    co_located: &[CoLocated],
    tenants: &[TenantCap],
    types: usize,
    problems: &mut Vec<Problem>,
) -> Vec<CoLocation> {
    let index: HashMap<&str, usize> = tenants.iter().enumerate().map(|(i, t)| (t.0, i)).collect();
    let earlier = listed_before(co_located, tenants.len(), &index);
    let mut pairs = Vec::new();
    for (p, pair) in co_located.iter().enumerate() {
        let at = format!("co_located[{p}]");
        let before = problems.len();
        if pair.tenants.len() != 2 {
            problems.push(Problem::new(
                format!("{at}.tenants"),
                format!("names {} tenants; a pair is two", pair.tenants.len()),
            ));
        }
        let ends: Vec<Option<usize>> = pair
            .tenants
            .iter()
            .enumerate()
            .map(|(k, name)| {
                let found = index.get(name.as_str()).copied();
                if found.is_none() {
                    problems.push(Problem::new(
                        format!("{at}.tenants[{k}]"),
                        format!("no tenant is named '{name}'"),
                    ));
                }
                found
            })
            .collect();
        if let [Some(a), Some(b)] = ends[..] {
            let ((a_name, a_cap), (b_name, b_cap)) = (tenants[a], tenants[b]);
            if a == b {
                problems.push(Problem::new(
                    format!("{at}.tenants"),
                    format!(
                        "names '{}' twice: a tenant cannot share with itself",
                        a_name
                    ),
                ));
            } else if let Some(first) = earlier[p] {
                problems.push(Problem::new(
                    format!("{at}.tenants"),
                    format!(
                        "'{}' and '{}' are already paired in co_located[{first}]",
                        a_name, b_name
                    ),
                ));
            } else if a_cap.is_none() || a_cap != b_cap {
                problems.push(Problem::new(
                    format!("{at}.tenants"),
                    format!(
                        "'{}' and '{}' must both set max_gpus, to the same number: their jobs \
                         share that many GPUs",
                        a_name, b_name
                    ),
                ));
            }
        }
        one_per_type(pair.throughput.len(), types, &at, problems);
        for (j, rates) in pair.throughput.iter().enumerate() {
            if rates.len() != 2 {
                problems.push(Problem::new(
                    format!("{at}.throughput[{j}]"),
                    format!(
                        "has {} numbers; it needs two, the first tenant's and the second's",
                        rates.len()
                    ),
                ));
            }
            for (k, &t) in rates.iter().enumerate() {
                if !(t.is_finite() && t >= 0.0) {
                    problems.push(Problem::new(
                        format!("{at}.throughput[{j}][{k}]"),
                        format!("must be finite and >= 0 (got {t})"),
                    ));
                }
            }
        }
        if let ([Some(a), Some(b)], true) = (&ends[..], problems.len() == before) {
            let (a, b) = (*a, *b);
            pairs.push(CoLocation {
                a,
                b,
                throughput: pair.throughput.iter().map(|t| (t[0], t[1])).collect(),
            });
        }
    }
    pairs
}

/// For each pair, the first earlier pair of the same two tenants (either order), if any. Pairs
/// are bucketed by their lower tenant, so a file with very many pairs is checked in time
/// proportional to pairs x tenants at worst, with no sort or tuple-keyed map in the wasm.
fn listed_before(
    co_located: &[CoLocated],
    tenants: usize,
    index: &HashMap<&str, usize>,
) -> Vec<Option<usize>> {
    let mut by_low: Vec<Vec<(usize, usize)>> = vec![Vec::new(); tenants];
    let mut earlier = vec![None; co_located.len()];
    for (p, pair) in co_located.iter().enumerate() {
        let [a, b] = pair.tenants.as_slice() else {
            continue;
        };
        let (Some(&a), Some(&b)) = (index.get(a.as_str()), index.get(b.as_str())) else {
            continue;
        };
        let (low, high) = (a.min(b), a.max(b));
        match by_low[low].iter().find(|&&(h, _)| h == high) {
            Some(&(_, first)) => earlier[p] = Some(first),
            None => by_low[low].push((high, p)),
        }
    }
    earlier
}
