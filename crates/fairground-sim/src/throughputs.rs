//! Throughput tables: steps/s of a (model, scale factor) job on each GPU type.

use crate::error::SimError;
use std::collections::BTreeMap;

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
        let mut entries = BTreeMap::new();
        for (model, figures) in fairground_core::presets::GAVEL_MEASURED {
            for sf in [1u32, 2, 4, 8] {
                // Inserted, not collected: a collected map sorts its input, which compiles the
                // whole stable sort for this key type into the browser's engine (5 KB).
                let mut rates = BTreeMap::new();
                for (t, r) in ["k80", "p100", "v100"].iter().zip(figures) {
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
}
