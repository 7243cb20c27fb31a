//! Throughput tables: steps/s of a (model, scale factor) job on each GPU type.

use crate::error::SimError;
use std::collections::BTreeMap;

/// The name of the built-in table of today's GPUs ([`ThroughputTable::todays_gpus`]).
pub const TODAYS_GPUS: &str = "todays-gpus";

/// The built-in tables: name and what it holds (`fairground simulate --throughputs NAME`, the
/// Simulation tab's table choice). The first is the default.
pub const BUILTIN_TABLES: [(&str, &str); 2] = [
    ("gavel", "Gavel's six models on K80, P100 and V100 (2020)"),
    (
        TODAYS_GPUS,
        "ten models on H100, A100 80/40 GB, RTX 6000 Ada, A10 and V100 (Lambda, 2023-24)",
    ),
];

/// The simulator's schedulers that put two jobs on one GPU by co-located throughputs.
pub const SHARING_SCHEDULERS: [&str; 2] = ["sjf-bsbf", "sjf-ffs"];

/// The policies that share a GPU between jobs by measured co-located throughputs: the
/// allocation policies that read co-location, then the simulator's sharing schedulers.
pub fn sharing_policies() -> Vec<&'static str> {
    let mut names: Vec<&str> = fairground_core::policies::CATALOGUE
        .iter()
        .filter(|p| p.reads.co_location)
        .map(|p| p.name)
        .collect();
    names.extend(SHARING_SCHEDULERS);
    names
}

/// A located error when a policy that shares GPUs runs on the table of today's GPUs, which
/// measures no job beside another: its shares would be guesses, not measurements.
pub fn check_sharing(table: &str, policies: &[String]) -> Result<(), SimError> {
    let sharing = sharing_policies();
    match policies.iter().find(|p| sharing.contains(&p.as_str())) {
        Some(p) if table == TODAYS_GPUS => Err(SimError::Input(format!(
            "policy '{p}' shares GPUs by measured throughputs of two jobs on one GPU, and the \
             table '{TODAYS_GPUS}' has none (Lambda measured each model alone): use Gavel's \
             table or a file with co-located pairs for {}",
            sharing.join(", ")
        ))),
        _ => Ok(()),
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ThroughputTable {
    /// (model, scale factor) -> GPU type -> steps/s of the whole job, alone on its GPUs.
    entries: BTreeMap<(String, u32), BTreeMap<String, f64>>,
}

pub(crate) fn parse_gavel_json(text: &str) -> Result<serde_json::Value, SimError> {
    serde_json::from_str(text).map_err(|e| SimError::Input(format!("throughputs: not JSON: {e}")))
}

impl ThroughputTable {
    /// Reads Gavel's `simulation_throughputs.json`: `{gpu_type: {"('Model', sf)": {"null":
    /// steps/s alone, ...co-located pairs...}}}`. Types ending in `_unconsolidated` are skipped.
    pub fn from_gavel_json(text: &str) -> Result<ThroughputTable, SimError> {
        Self::from_gavel_value(&parse_gavel_json(text)?)
    }

    /// [`ThroughputTable::from_gavel_json`] on the file already parsed.
    pub fn from_gavel_value(value: &serde_json::Value) -> Result<ThroughputTable, SimError> {
        let types = value.as_object().ok_or_else(|| {
            SimError::Input("throughputs: expected an object of GPU types".into())
        })?;
        let mut entries: BTreeMap<(String, u32), BTreeMap<String, f64>> = BTreeMap::new();
        for (gpu, jobs) in types
            .iter()
            .filter(|(g, _)| !g.ends_with("_unconsolidated"))
        {
            let jobs = jobs
                .as_object()
                .ok_or_else(|| SimError::Input(format!("throughputs: '{gpu}' is not an object")))?;
            for (key, measured) in jobs {
                let (model, sf) = parse_key(key).ok_or_else(|| {
                    SimError::Input(format!("throughputs: '{gpu}': cannot read job key {key}"))
                })?;
                let alone = measured["null"].as_f64().ok_or_else(|| {
                    SimError::Input(format!(
                        "throughputs: '{gpu}' {key}: no \"null\" (alone) figure"
                    ))
                })?;
                if !(alone.is_finite() && alone >= 0.0) {
                    return Err(SimError::Input(format!(
                        "throughputs: '{gpu}' {key}: {alone} is not a rate"
                    )));
                }
                entries
                    .entry((model, sf))
                    .or_default()
                    .insert(gpu.clone(), alone);
            }
        }
        if entries.is_empty() {
            return Err(SimError::Input("throughputs: no jobs in the file".into()));
        }
        Ok(ThroughputTable { entries })
    }

    /// A small table for the browser: the single-GPU figures Gavel measured for six models
    /// (cited in `fairground_core::presets::GAVEL_MEASURED`). Multi-GPU entries (2, 4, 8) assume
    /// perfect scaling, s x the single-GPU rate: an approximation, stated wherever it is used;
    /// give Gavel's file (`--throughputs`) for measured multi-GPU rates.
    pub fn builtin() -> ThroughputTable {
        let rows = fairground_core::presets::GAVEL_MEASURED.map(|(m, r)| (m, r.to_vec()));
        Self::scaled(&rows, &["k80", "p100", "v100"])
    }

    /// Today's GPUs: the ten models Lambda measured on H100 to V100 (cited in
    /// `fairground_core::presets::TODAYS_MODELS`, every cell in
    /// `www/scenarios/todays-cluster.sources.csv`), multi-GPU entries by perfect scaling as in
    /// [`ThroughputTable::builtin`]. It has no co-located pairs: see [`check_sharing`].
    pub fn todays_gpus() -> ThroughputTable {
        use fairground_core::presets::{TODAYS_GPU_TYPES, TODAYS_MODELS};
        let rows = TODAYS_MODELS.map(|(m, r)| (m, r.to_vec()));
        Self::scaled(&rows, &TODAYS_GPU_TYPES.map(|t| t.0))
    }

    /// A built-in table by name ([`BUILTIN_TABLES`]).
    pub fn named(name: &str) -> Option<ThroughputTable> {
        match name {
            "gavel" => Some(Self::builtin()),
            TODAYS_GPUS => Some(Self::todays_gpus()),
            _ => None,
        }
    }

    /// One-GPU `rows` (model, rate on each of `types`) and s x those for 2, 4 and 8 GPUs.
    fn scaled(rows: &[(&str, Vec<f64>)], types: &[&str]) -> ThroughputTable {
        let mut entries = BTreeMap::new();
        for (model, figures) in rows {
            for sf in [1u32, 2, 4, 8] {
                // Inserted, not collected: a collected map sorts its input, which compiles the
                // whole stable sort for this key type into the browser's engine (5 KB).
                let mut rates = BTreeMap::new();
                for (t, r) in types.iter().zip(figures) {
                    rates.insert(t.to_string(), r * f64::from(sf));
                }
                entries.insert((model.to_string(), sf), rates);
            }
        }
        ThroughputTable { entries }
    }

    /// The job's rate on each of `types` (0 where the table has no figure for that type).
    pub fn rates(
        &self,
        model: &str,
        scale_factor: u32,
        types: &[String],
    ) -> Result<Vec<f64>, SimError> {
        let row = self
            .entries
            .get(&(model.to_string(), scale_factor))
            .ok_or_else(|| {
                SimError::Input(format!(
                    "no throughput for '{model}' on {scale_factor} GPU(s) in the table"
                ))
            })?;
        Ok(types
            .iter()
            .map(|t| row.get(t).copied().unwrap_or(0.0))
            .collect())
    }

    /// The models measured at `scale_factor`, in name order (the table's keys are (model, scale
    /// factor), kept sorted), each once.
    pub fn models_with(&self, scale_factor: u32) -> Vec<&str> {
        self.entries
            .keys()
            .filter(|(_, sf)| *sf == scale_factor)
            .map(|(m, _)| m.as_str())
            .collect()
    }

    /// Whether any entry has a figure for GPU type `gpu`.
    pub fn has_type(&self, gpu: &str) -> bool {
        self.entries.values().any(|row| row.contains_key(gpu))
    }

    /// The job's rate on one named type, if known.
    pub fn rate_on(&self, model: &str, scale_factor: u32, gpu: &str) -> Option<f64> {
        self.entries
            .get(&(model.to_string(), scale_factor))?
            .get(gpu)
            .copied()
    }
}

/// `('ResNet-50 (batch size 64)', 4)` -> ("ResNet-50 (batch size 64)", 4)
pub(crate) fn parse_key(key: &str) -> Option<(String, u32)> {
    let inner = key.strip_prefix("('")?.strip_suffix(')')?;
    let (model, sf) = inner.rsplit_once("', ")?;
    Some((model.to_string(), sf.trim().parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_gavel_keys() {
        assert_eq!(
            parse_key("('ResNet-50 (batch size 64)', 4)"),
            Some(("ResNet-50 (batch size 64)".into(), 4))
        );
        assert_eq!(parse_key("('A3C', 1)"), Some(("A3C".into(), 1)));
        assert_eq!(parse_key("A3C"), None);
    }

    #[test]
    fn builtin_table_cites_the_single_gpu_figures() {
        let t = ThroughputTable::builtin();
        let types = ["k80".to_string(), "v100".to_string(), "a100".to_string()];
        assert_eq!(t.rates("A3C", 1, &types).unwrap(), vec![3.439, 7.176, 0.0]);
        assert_eq!(t.rates("A3C", 4, &types).unwrap()[1], 4.0 * 7.176);
        assert!(t.rates("BERT", 1, &types).is_err());
    }

    #[test]
    fn bad_files_are_located_errors() {
        assert!(ThroughputTable::from_gavel_json("[").is_err());
        let err =
            ThroughputTable::from_gavel_json(r#"{"v100": {"('A', 1)": {"x": 1}}}"#).unwrap_err();
        assert!(err.to_string().contains("no \"null\""), "{err}");
    }

    #[test]
    fn tables_by_name_and_sharing_on_todays_gpus() {
        let todays = ThroughputTable::named("todays-gpus").unwrap();
        assert_eq!(todays.rate_on("ResNet-50", 1, "h100"), Some(2616.0));
        // Perfect scaling: 4 x Lambda's one-GPU V100 figure for BERT-large (57 sequences/s).
        assert_eq!(todays.rate_on("BERT-large SQuAD", 4, "v100"), Some(228.0));
        assert_eq!(todays.models_with(1).len(), 10);
        assert_eq!(
            ThroughputTable::named("gavel"),
            Some(ThroughputTable::builtin())
        );
        assert_eq!(ThroughputTable::named("gavell"), None);
        let policies = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(check_sharing("todays-gpus", &policies(&["fifo", "oef-coop"])).is_ok());
        let e = check_sharing("todays-gpus", &policies(&["fifo", "sjf-bsbf"])).unwrap_err();
        assert!(
            e.to_string().contains("policy 'sjf-bsbf' shares GPUs"),
            "{e}"
        );
        assert!(check_sharing("gavel", &policies(&["sjf-bsbf"])).is_ok());
    }
}
