//! The scenario a user writes (JSON, versioned) and its validation into a numeric [`Instance`].
//!
//! Validation never stops at the first problem: it returns every one, each located by a path such
//! as `tenants[3].throughput[1]`, so an editor can mark every bad cell at once.

use crate::co_location::{self, CoLocated, CoLocation};
use crate::entities::{Entity, EntityTree};
use crate::problem::one_per_type;
pub use crate::problem::Problem;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The scenario schema version this build reads and writes.
pub const SCHEMA_VERSION: u32 = 1;

/// A cluster of GPU types and the tenants sharing it, as a user describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Schema version; absent means the current one.
    #[serde(default = "current_version")]
    pub version: u32,
    pub gpu_types: Vec<GpuType>,
    pub tenants: Vec<Tenant>,
    /// Which throughput a tenant's speedups are measured against.
    #[serde(default)]
    pub normalization: Normalization,
    /// Groups of tenants, nested, for hierarchical fairness ([`crate::entities`]); none by
    /// default, and then every policy sees tenants only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entities: Vec<Entity>,
    /// Pairs of tenants that can share GPUs, with their co-located throughputs
    /// ([`crate::co_location`]); only `gavel-las-packed` uses them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub co_located: Vec<CoLocated>,
}

fn current_version() -> u32 {
    SCHEMA_VERSION
}

/// One GPU type and how many GPUs of it the cluster has (n_j).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuType {
    pub name: String,
    pub count: u32,
}

/// One tenant: its throughput per GPU of each type (T_ij), weight w_i and optional GPU cap d_i.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tenant {
    pub name: String,
    /// `throughput[j]`: work units per second on one GPU of type j; 0 means it cannot run there.
    pub throughput: Vec<f64>,
    #[serde(default = "unit_weight")]
    pub weight: f64,
    /// Most GPUs the tenant can hold at once (a Gavel job of scale factor 1 has 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_gpus: Option<f64>,
    /// The work it has left, in its throughput's units (steps): what `gavel-min-makespan`
    /// finishes as early as it can. Without it a tenant counts as having 1 unit, so with none
    /// given every tenant has the same work.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work: Option<f64>,
    /// The entity (group) it belongs to, by name; none: the top level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entity: Option<String>,
}

fn unit_weight() -> f64 {
    1.0
}

/// The reference a tenant's speedups s_ij = T_ij / T_i,ref are taken against.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum Normalization {
    /// The tenant's slowest type it can run on (BACKGROUND.md's default).
    #[default]
    Slowest,
    /// The tenant's fastest type.
    Fastest,
    /// No normalisation: utilities are raw throughputs.
    Raw,
    /// A named GPU type.
    Type(String),
}

impl From<String> for Normalization {
    fn from(text: String) -> Self {
        match text.as_str() {
            "slowest" => Normalization::Slowest,
            "fastest" => Normalization::Fastest,
            "raw" => Normalization::Raw,
            _ => Normalization::Type(text),
        }
    }
}

impl From<Normalization> for String {
    fn from(n: Normalization) -> Self {
        match n {
            Normalization::Slowest => "slowest".into(),
            Normalization::Fastest => "fastest".into(),
            Normalization::Raw => "raw".into(),
            Normalization::Type(name) => name,
        }
    }
}

impl Scenario {
    /// Parses scenario JSON; a syntax or type error is located by its JSON path and line/column.
    pub fn from_json(text: &str) -> Result<Scenario, Problem> {
        Self::from_deserializer(&mut serde_json::Deserializer::from_str(text))
    }

    /// Reads scenario JSON written when the schema was `version` (a link says which), upgraded to
    /// this build's: an old link keeps working after the format grows. A document that names no
    /// version of its own is taken to be `version`, not the current one. Version 1 is the only
    /// one so far, so nothing is upgraded yet; each later version adds its step here.
    pub fn from_json_of_version(text: &str, version: u32) -> Result<Scenario, Problem> {
        if version == 0 || version > SCHEMA_VERSION {
            return Err(Problem::new(
                "version",
                format!(
                    "scenario format {version} is not one this build reads (1 to \
                     {SCHEMA_VERSION}); a newer Fairground made it"
                ),
            ));
        }
        /// The document's own version, if it states one (every other field is skipped).
        #[derive(Deserialize)]
        struct Stated {
            version: Option<u32>,
        }
        // Not through serde_json's `Value`, which would link a second JSON reader and writer
        // into the page (issue 49). A document that is not an object, or states its version
        // wrongly, fails here and is then reported, located, by the scenario reader.
        let stated = serde_json::from_str::<Stated>(text)
            .ok()
            .and_then(|doc| doc.version);
        let mut scenario = Self::from_json(text)?;
        if stated.is_none() {
            scenario.version = version;
        }
        Ok(scenario)
    }

    /// Reads a scenario from any serde source (JSON text, a JavaScript object), locating a
    /// type error by its path as [`Scenario::from_json`] does (feature `json-paths`; without it,
    /// by the source's own location: serde_json's line and column).
    pub fn from_deserializer<'de, D: serde::Deserializer<'de>>(de: D) -> Result<Scenario, Problem> {
        #[cfg(feature = "json-paths")]
        let read = serde_path_to_error::deserialize(de).map_err(|err| {
            let path = err.path().to_string();
            let inner = err.into_inner();
            Problem::new(path, inner.to_string())
        });
        #[cfg(not(feature = "json-paths"))]
        let read = <Scenario as serde::Deserialize>::deserialize(de)
            .map_err(|err| Problem::new(".", err.to_string()));
        read
    }

    /// Pretty JSON, as the CLI and the playground export it.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Checks everything and, if nothing is wrong, builds the numeric instance the policies use.
    pub fn instance(&self) -> Result<Instance, Vec<Problem>> {
        let mut problems = Vec::new();
        if self.version != SCHEMA_VERSION {
            problems.push(Problem::new(
                "version",
                format!(
                    "unsupported schema version {} (this build reads version {SCHEMA_VERSION})",
                    self.version
                ),
            ));
        }
        self.check_gpu_types(&mut problems);
        self.check_tenants(&mut problems);
        let reference = self.check_normalization(&mut problems);
        let tenant_entities: Vec<Option<&str>> =
            self.tenants.iter().map(|t| t.entity.as_deref()).collect();
        let tree = crate::entities::check(&self.entities, &tenant_entities, &mut problems);
        let tenants: Vec<(&str, Option<f64>)> = self
            .tenants
            .iter()
            .map(|t| (t.name.as_str(), t.max_gpus))
            .collect();
        let pairs = co_location::check(
            &self.co_located,
            &tenants,
            self.gpu_types.len(),
            &mut problems,
        );
        match tree {
            Some(tree) if problems.is_empty() => Ok(self.build_instance(reference, tree, pairs)),
            _ => Err(problems),
        }
    }

    fn check_gpu_types(&self, problems: &mut Vec<Problem>) {
        if self.gpu_types.is_empty() {
            problems.push(Problem::new("gpu_types", "at least one GPU type is needed"));
            return;
        }
        check_names(
            self.gpu_types.iter().map(|t| t.name.as_str()),
            "gpu_types",
            problems,
        );
        if self.gpu_types.iter().all(|t| t.count == 0) {
            problems.push(Problem::new(
                "gpu_types",
                "the cluster has no GPUs: every count is 0",
            ));
        }
    }

    fn check_tenants(&self, problems: &mut Vec<Problem>) {
        if self.tenants.is_empty() {
            problems.push(Problem::new("tenants", "at least one tenant is needed"));
            return;
        }
        check_names(
            self.tenants.iter().map(|t| t.name.as_str()),
            "tenants",
            problems,
        );
        let types = self.gpu_types.len();
        for (i, tenant) in self.tenants.iter().enumerate() {
            let at = format!("tenants[{i}]");
            one_per_type(tenant.throughput.len(), types, &at, problems);
            let mut all_valid = true;
            for (j, &t) in tenant.throughput.iter().enumerate() {
                if !(t.is_finite() && t >= 0.0) {
                    all_valid = false;
                    problems.push(Problem::new(
                        format!("{at}.throughput[{j}]"),
                        format!("must be finite and >= 0 (got {t})"),
                    ));
                }
            }
            let runs_somewhere = tenant
                .throughput
                .iter()
                .zip(&self.gpu_types)
                .any(|(&t, ty)| t > 0.0 && ty.count > 0);
            if all_valid && tenant.throughput.len() == types && !runs_somewhere && types > 0 {
                problems.push(Problem::new(
                    format!("{at}.throughput"),
                    "the tenant can run nowhere: its throughput is 0 on every GPU type the cluster has",
                ));
            }
            if !(tenant.weight.is_finite() && tenant.weight > 0.0) {
                problems.push(Problem::new(
                    format!("{at}.weight"),
                    format!("must be finite and > 0 (got {})", tenant.weight),
                ));
            }
            if let Some(cap) = tenant.max_gpus {
                if !(cap.is_finite() && cap > 0.0) {
                    problems.push(Problem::new(
                        format!("{at}.max_gpus"),
                        format!("must be finite and > 0 when given (got {cap})"),
                    ));
                }
            }
            if let Some(work) = tenant.work {
                if !(work.is_finite() && work > 0.0) {
                    problems.push(Problem::new(
                        format!("{at}.work"),
                        format!("must be finite and > 0 when given (got {work})"),
                    ));
                }
            }
        }
    }

    /// Returns the index of the reference type for `Normalization::Type`, checking it exists and
    /// every tenant can run on it (else its speedups would divide by zero).
    fn check_normalization(&self, problems: &mut Vec<Problem>) -> Option<usize> {
        let Normalization::Type(name) = &self.normalization else {
            return None;
        };
        let Some(j) = self.gpu_types.iter().position(|t| &t.name == name) else {
            let known: Vec<&str> = self.gpu_types.iter().map(|t| t.name.as_str()).collect();
            problems.push(Problem::new(
                "normalization",
                format!(
                    "'{name}' is neither slowest, fastest, raw nor a GPU type (types: {})",
                    known.join(", ")
                ),
            ));
            return None;
        };
        for (i, tenant) in self.tenants.iter().enumerate() {
            if tenant.throughput.get(j) == Some(&0.0) {
                problems.push(Problem::new(
                    format!("tenants[{i}].throughput[{j}]"),
                    format!(
                        "is 0 on the normalization reference '{name}', so speedups are undefined"
                    ),
                ));
            }
        }
        Some(j)
    }

    fn build_instance(
        &self,
        reference: Option<usize>,
        entities: EntityTree,
        co_located: Vec<CoLocation>,
    ) -> Instance {
        let speedup = self
            .tenants
            .iter()
            .map(|tenant| {
                let positive = tenant.throughput.iter().copied().filter(|&t| t > 0.0);
                let base = match &self.normalization {
                    Normalization::Raw => 1.0,
                    Normalization::Slowest => positive.fold(f64::INFINITY, f64::min),
                    Normalization::Fastest => positive.fold(0.0, f64::max),
                    // Validation has checked the named type exists and is > 0 for every tenant.
                    Normalization::Type(_) => reference.map_or(f64::NAN, |j| tenant.throughput[j]),
                };
                tenant.throughput.iter().map(|&t| t / base).collect()
            })
            .collect();
        Instance {
            type_names: self.gpu_types.iter().map(|t| t.name.clone()).collect(),
            tenant_names: self.tenants.iter().map(|t| t.name.clone()).collect(),
            count: self.gpu_types.iter().map(|t| f64::from(t.count)).collect(),
            throughput: self.tenants.iter().map(|t| t.throughput.clone()).collect(),
            speedup,
            weight: self.tenants.iter().map(|t| t.weight).collect(),
            cap: self.tenants.iter().map(|t| t.max_gpus).collect(),
            work: self.tenants.iter().map(|t| t.work.unwrap_or(1.0)).collect(),
            entities,
            co_located,
        }
    }
}

fn check_names<'a>(names: impl Iterator<Item = &'a str>, list: &str, problems: &mut Vec<Problem>) {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (index, name) in names.enumerate() {
        let at = format!("{list}[{index}].name");
        if name.trim().is_empty() {
            problems.push(Problem::new(at, "must not be empty"));
        } else if let Some(first) = seen.get(name) {
            problems.push(Problem::new(
                at,
                format!("duplicate name '{name}' (also {list}[{first}])"),
            ));
        } else {
            seen.insert(name, index);
        }
    }
}

/// A validated scenario as numbers, in BACKGROUND.md's notation: i indexes tenants, j GPU types.
#[derive(Debug, Clone, PartialEq)]
pub struct Instance {
    pub type_names: Vec<String>,
    pub tenant_names: Vec<String>,
    /// n_j: GPUs of type j.
    pub count: Vec<f64>,
    /// T_ij: raw throughput per GPU.
    pub throughput: Vec<Vec<f64>>,
    /// s_ij = T_ij / T_i,ref.
    pub speedup: Vec<Vec<f64>>,
    /// w_i.
    pub weight: Vec<f64>,
    /// d_i: most GPUs tenant i holds at once, if capped.
    pub cap: Vec<Option<f64>>,
    /// R_i: the work tenant i has left (1 where the scenario gives none).
    pub work: Vec<f64>,
    /// The entity tree (empty when the scenario has no entities).
    pub entities: EntityTree,
    /// Pairs that can share GPUs (empty when the scenario lists none).
    pub co_located: Vec<CoLocation>,
}

impl Instance {
    /// What tenant i gets from GPUs shared with a partner, in the units of [`Instance::utility`]:
    /// sum over pairs p holding i, and types j, of (T^p_ij / T_i,ref) h_pj. `shared[p][j]` is
    /// h_pj, for the pairs of `self.co_located` in order (empty: nobody shares).
    pub fn shared_utility(&self, i: usize, shared: &[Vec<f64>]) -> f64 {
        let reference = self.reference_throughput(i);
        self.co_located
            .iter()
            .zip(shared)
            .filter(|(pair, _)| pair.a == i || pair.b == i)
            .map(|(pair, h)| {
                pair.throughput
                    .iter()
                    .zip(h)
                    .map(|(&(ta, tb), &h)| (if pair.a == i { ta } else { tb }) * h)
                    .sum::<f64>()
            })
            .sum::<f64>()
            / reference
    }

    /// True when some pair holds a GPU's worth above round-off (1e-9 of the cluster).
    pub fn shares_any(&self, shared: &[Vec<f64>]) -> bool {
        let dust = 1e-9 * self.count.iter().sum::<f64>();
        shared.iter().flatten().any(|&h| h > dust)
    }

    pub fn tenants(&self) -> usize {
        self.tenant_names.len()
    }

    pub fn types(&self) -> usize {
        self.type_names.len()
    }

    /// u_i(x) = sum_j s_ij x_j: tenant i's utility for bundle x, in reference-GPU equivalents.
    pub fn utility(&self, tenant: usize, bundle: &[f64]) -> f64 {
        self.speedup[tenant]
            .iter()
            .zip(bundle)
            .map(|(s, g)| s * g)
            .sum()
    }

    /// The same cluster and tenants without tenant `i` (those after it move down one index).
    pub fn without(&self, i: usize) -> Instance {
        let mut out = self.clone();
        out.tenant_names.remove(i);
        out.throughput.remove(i);
        out.speedup.remove(i);
        out.weight.remove(i);
        out.cap.remove(i);
        out.work.remove(i);
        out.entities = self.entities.without_tenant(i);
        out.co_located = self
            .co_located
            .iter()
            .filter(|p| p.a != i && p.b != i)
            .map(|p| {
                let down = |k: usize| if k > i { k - 1 } else { k };
                CoLocation {
                    a: down(p.a),
                    b: down(p.b),
                    throughput: p.throughput.clone(),
                }
            })
            .collect();
        out
    }

    /// T_i,ref: the throughput tenant i's utilities are measured in (1 for raw normalisation).
    pub fn reference_throughput(&self, i: usize) -> f64 {
        self.throughput[i]
            .iter()
            .zip(&self.speedup[i])
            .find(|(&t, &s)| t > 0.0 && s > 0.0)
            .map_or(1.0, |(t, s)| t / s)
    }

    /// e_i: tenant i's weighted equal split of every type, e_ij = n_j w_i / sum_k w_k, scaled
    /// down to d_i GPUs when its cap is smaller (as Gavel's isolated share is). This is the
    /// bundle the sharing-incentive property compares against.
    pub fn equal_split(&self, tenant: usize) -> Vec<f64> {
        self.equal_split_with(tenant, self.weight.iter().sum())
    }

    /// [`Instance::equal_split`] given the sum of the weights, for callers that ask for every
    /// tenant's (the sum is then taken once, not once per tenant).
    pub fn equal_split_with(&self, tenant: usize, total_weight: f64) -> Vec<f64> {
        let share = self.weight[tenant] / total_weight;
        let mut bundle: Vec<f64> = self.count.iter().map(|n| n * share).collect();
        let held: f64 = bundle.iter().sum();
        if let Some(cap) = self.cap[tenant] {
            if held > cap {
                bundle.iter_mut().for_each(|g| *g *= cap / held);
            }
        }
        bundle
    }
}

/// Past this ratio between two numbers of one kind, an LP over the scenario may not be solved
/// reliably in double precision (microlp's recommended coefficient range is the same 1e6).
pub const RELIABLE_SPREAD: f64 = 1e6;

/// [`wide_spread`] as the tail of an error message: " (the spread)", or nothing within range.
pub fn spread_note(inst: &Instance) -> String {
    wide_spread(inst).map_or(String::new(), |spread| format!(" ({spread})"))
}

/// The scenario's widely spread numbers, located, when together they span more than
/// [`RELIABLE_SPREAD`]: the widest spread of one tenant's throughputs (its speedups), the spread
/// of the weights and of the caps against the cluster. These multiply in the LPs (an allocation
/// can need a tenant's speedup ratio times the weight ratio times the cap ratio of a GPU), so it
/// is their product that is held to the range. `None` when it is within range.
pub fn wide_spread(inst: &Instance) -> Option<String> {
    /// The smallest and largest positive value, with where they are.
    fn extremes(items: impl Iterator<Item = (f64, String)>) -> Option<(f64, String, f64, String)> {
        let mut out: Option<(f64, String, f64, String)> = None;
        for (v, at) in items.filter(|(v, _)| *v > 0.0 && v.is_finite()) {
            out = Some(match out {
                None => (v, at.clone(), v, at),
                Some((l, la, h, ha)) => {
                    let (l, la) = if v < l { (v, at.clone()) } else { (l, la) };
                    let (h, ha) = if v > h { (v, at) } else { (h, ha) };
                    (l, la, h, ha)
                }
            });
        }
        out
    }
    let speedups = inst
        .throughput
        .iter()
        .enumerate()
        .filter_map(|(i, row)| {
            extremes(
                row.iter()
                    .enumerate()
                    .map(|(j, &t)| (t, format!("tenants[{i}].throughput[{j}]"))),
            )
        })
        .max_by(|a, b| (a.2 / a.0).total_cmp(&(b.2 / b.0)));
    let weights = extremes(
        inst.weight
            .iter()
            .enumerate()
            .map(|(i, &w)| (w, format!("tenants[{i}].weight"))),
    );
    let total: f64 = inst.count.iter().sum();
    let sizes = extremes(
        inst.cap
            .iter()
            .enumerate()
            .filter_map(|(i, c)| c.map(|c| (c, format!("tenants[{i}].max_gpus"))))
            .chain(std::iter::once((total, "the cluster's GPUs".to_string()))),
    );
    let parts: Vec<(f64, String, f64, String)> =
        [speedups, weights, sizes].into_iter().flatten().collect();
    let span: f64 = parts.iter().map(|(l, _, h, _)| h / l).product();
    (span > RELIABLE_SPREAD).then(|| {
        let named: Vec<String> = parts
            .iter()
            .filter(|(l, _, h, _)| h / l > 1.0)
            .map(|(l, la, h, ha)| format!("{la} = {l:e} against {ha} = {h:e}"))
            .collect();
        format!(
            "numbers spanning more than {RELIABLE_SPREAD:e} together may not be solved \
             reliably (span {span:.1e}): {}",
            named.join("; ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_by_two() -> Scenario {
        Scenario::from_json(
            r#"{"gpu_types": [{"name": "k80", "count": 2}, {"name": "v100", "count": 1}],
                "tenants": [{"name": "a", "throughput": [1, 4]},
                            {"name": "b", "throughput": [2, 3], "weight": 2, "max_gpus": 1}]}"#,
        )
        .unwrap()
    }

    /// A link's format version fills in a version the document does not state; a stated one is
    /// the document's own; a wrong document is reported where it is wrong.
    #[test]
    fn a_link_version_fills_only_a_missing_version() {
        let bare = r#"{"gpu_types": [{"name": "a", "count": 1}],
                       "tenants": [{"name": "t", "throughput": [1]}]}"#;
        assert_eq!(Scenario::from_json_of_version(bare, 1).unwrap().version, 1);
        let stated = bare.replacen('{', r#"{"version": 1, "#, 1);
        assert_eq!(
            Scenario::from_json_of_version(&stated, 1).unwrap().version,
            1
        );
        let wrong = bare.replacen('{', r#"{"version": "one", "#, 1);
        assert_eq!(
            Scenario::from_json_of_version(&wrong, 1).unwrap_err().path,
            "version"
        );
        let list = Scenario::from_json_of_version("[1, 2]", 1).unwrap_err();
        assert!(list.message.contains("expected"), "{}", list.message);
        let late = Scenario::from_json_of_version(bare, SCHEMA_VERSION + 1).unwrap_err();
        assert!(
            late.message.contains("newer Fairground"),
            "{}",
            late.message
        );
    }

    #[test]
    fn defaults_fill_version_weight_and_normalization() {
        let s = two_by_two();
        assert_eq!(s.version, 1);
        assert_eq!(s.tenants[0].weight, 1.0);
        assert_eq!(s.tenants[0].max_gpus, None);
        assert_eq!(s.normalization, Normalization::Slowest);
    }

    #[test]
    fn speedups_follow_each_normalization() {
        let mut s = two_by_two();
        assert_eq!(
            s.instance().unwrap().speedup,
            vec![vec![1.0, 4.0], vec![1.0, 1.5]]
        );
        s.normalization = Normalization::Fastest;
        assert_eq!(
            s.instance().unwrap().speedup,
            vec![vec![0.25, 1.0], vec![2.0 / 3.0, 1.0]]
        );
        s.normalization = Normalization::Type("v100".into());
        assert_eq!(s.instance().unwrap().speedup[1], vec![2.0 / 3.0, 1.0]);
        s.normalization = Normalization::Raw;
        assert_eq!(
            s.instance().unwrap().speedup,
            vec![vec![1.0, 4.0], vec![2.0, 3.0]]
        );
    }

    #[test]
    fn equal_split_is_weighted_and_capped() {
        let inst = two_by_two().instance().unwrap();
        // a: weight 1 of 3 -> (2/3, 1/3), 1 GPU in all, under no cap.
        let a = inst.equal_split(0);
        assert!((a[0] - 2.0 / 3.0).abs() < 1e-12 && (a[1] - 1.0 / 3.0).abs() < 1e-12);
        // b: weight 2 of 3 -> (4/3, 2/3) = 2 GPUs, capped at 1 -> (2/3, 1/3).
        let b = inst.equal_split(1);
        assert!((b[0] - 2.0 / 3.0).abs() < 1e-12 && (b[1] - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn every_problem_is_reported_with_its_location() {
        let s = Scenario {
            entities: Vec::new(),
            co_located: Vec::new(),
            version: 1,
            gpu_types: vec![
                GpuType {
                    name: "k80".into(),
                    count: 0,
                },
                GpuType {
                    name: "k80".into(),
                    count: 0,
                },
            ],
            tenants: vec![
                Tenant {
                    entity: None,
                    name: " ".into(),
                    throughput: vec![f64::NAN, -1.0],
                    weight: 0.0,
                    max_gpus: Some(-2.0),
                    work: None,
                },
                Tenant {
                    entity: None,
                    name: "x".into(),
                    throughput: vec![1.0],
                    weight: 1.0,
                    max_gpus: None,
                    work: None,
                },
                Tenant {
                    entity: None,
                    name: "x".into(),
                    throughput: vec![0.0, 0.0],
                    weight: f64::INFINITY,
                    max_gpus: None,
                    work: None,
                },
            ],
            normalization: Normalization::Type("a100".into()),
        };
        let got: Vec<String> = s
            .instance()
            .unwrap_err()
            .iter()
            .map(|p| p.to_string())
            .collect();
        let expected = [
            "gpu_types[1].name: duplicate name 'k80' (also gpu_types[0])",
            "gpu_types: the cluster has no GPUs: every count is 0",
            "tenants[0].name: must not be empty",
            "tenants[2].name: duplicate name 'x' (also tenants[1])",
            "tenants[0].throughput[0]: must be finite and >= 0 (got NaN)",
            "tenants[0].throughput[1]: must be finite and >= 0 (got -1)",
            "tenants[0].weight: must be finite and > 0 (got 0)",
            "tenants[0].max_gpus: must be finite and > 0 when given (got -2)",
            "tenants[1].throughput: has 1 entries but there are 2 GPU types",
            "tenants[2].throughput: the tenant can run nowhere: its throughput is 0 on every GPU type the cluster has",
            "tenants[2].weight: must be finite and > 0 (got inf)",
            "normalization: 'a100' is neither slowest, fastest, raw nor a GPU type (types: k80, k80)",
        ];
        for line in expected {
            assert!(
                got.contains(&line.to_string()),
                "missing {line:?} in {got:#?}"
            );
        }
        assert_eq!(got.len(), expected.len(), "{got:#?}");
    }

    #[test]
    fn a_named_reference_the_tenant_cannot_use_is_located() {
        let mut s = two_by_two();
        s.tenants[0].throughput = vec![0.0, 4.0];
        s.normalization = Normalization::Type("k80".into());
        let problems = s.instance().unwrap_err();
        assert_eq!(problems[0].path, "tenants[0].throughput[0]");
    }

    #[test]
    fn empty_lists_and_bad_json_are_located() {
        let s = Scenario::from_json(r#"{"gpu_types": [], "tenants": []}"#).unwrap();
        let paths: Vec<String> = s
            .instance()
            .unwrap_err()
            .into_iter()
            .map(|p| p.path)
            .collect();
        assert_eq!(paths, ["gpu_types", "tenants"]);
        let err =
            Scenario::from_json(r#"{"gpu_types": [{"name": "a", "count": -1}], "tenants": []}"#)
                .unwrap_err();
        assert_eq!(err.path, "gpu_types[0].count");
        let err =
            Scenario::from_json(r#"{"gpu_types": [], "tenants": [], "colour": 1}"#).unwrap_err();
        assert!(err.message.contains("unknown field `colour`"), "{err}");
        let err = Scenario::from_json("{").unwrap_err();
        assert!(err.message.contains("EOF"), "{err}");
    }

    #[test]
    fn json_round_trips() {
        let s = two_by_two();
        assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s);
    }
}
