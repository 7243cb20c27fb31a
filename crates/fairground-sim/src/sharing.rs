//! Two jobs on the same GPUs (SJF-BSBF, IWQoS 2024): GPU memory, the slowdown each suffers next
//! to the other, and gradient accumulation for a job that would not fit otherwise.
//!
//! - **GPU memory** per type ([`GpuMemory`]): given with `--gpu-memory v100=16,p100=16,k80=12`
//!   (GB), or the defaults of [`default_gpu_memory_gb`].
//! - **A job's footprint** (`Job::gpu_mem_mb`): from a CSV trace's `gpu_mem_mb` column, else the
//!   model table [`model_memory_mb`] (the SJF-BSBF testbed's measured footprints; documented
//!   estimates for Gavel's models).
//! - **Interference** ([`Interference`]): Gavel's measured co-located throughputs
//!   (simulation_throughputs.json pairs): a job's slowdown next to another is its rate alone over
//!   its rate when sharing. A pair the file does not hold falls back to [`FALLBACK_SLOWDOWN`] for
//!   both, which is plain time slicing (each gets half the GPU), never "no slowdown".
//! - **Gradient accumulation** ([`Accumulation`]): a job run as k sub-batches of B/k, accumulating
//!   k steps per update, keeps its convergence; the model here is stated with its parameters.

use crate::error::SimError;
use std::collections::BTreeMap;

/// Reads Gavel's `simulation_throughputs.json` once for both of its parts: every job's rates
/// alone, and the slowdowns of the co-located pairs (`--throughputs` on the CLI, the
/// Simulation tab's upload).
pub fn read_gavel_file(
    text: &str,
) -> Result<(crate::throughputs::ThroughputTable, Interference), SimError> {
    let value = crate::throughputs::parse_gavel_json(text)?;
    Ok((
        crate::throughputs::ThroughputTable::from_gavel_value(&value)?,
        Interference::from_gavel_value(&value),
    ))
}

/// Slowdown assumed for both jobs of a pair with no measurement: time slicing, half the GPU each.
pub const FALLBACK_SLOWDOWN: f64 = 2.0;

/// GB per GPU by type name, for types `--gpu-memory` does not give: the cards Gavel measured
/// (V100 16 GB, P100 16 GB, K80 12 GB a die), an A100 40 GB, the SJF-BSBF testbed's 48 GB cards
/// (`a6000`), today's types as [`fairground_core::presets::TODAYS_GPU_TYPES`] names them (H100
/// 80 GB, ...), L4 24 GB and T4 16 GB, and 16 GB for any other name.
pub fn default_gpu_memory_gb(gpu_type: &str) -> f64 {
    let name = gpu_type.to_ascii_lowercase();
    if let Some(t) = fairground_core::presets::TODAYS_GPU_TYPES
        .iter()
        .find(|t| t.0 == name)
    {
        return t.1;
    }
    match name.as_str() {
        "k80" => 12.0,
        "a100" => 40.0,
        "a6000" | "l40" | "l40s" => 48.0,
        "l4" => 24.0,
        _ => 16.0,
    }
}

/// GPU memory (GB) for each type of a cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct GpuMemory(pub Vec<f64>);

impl GpuMemory {
    /// Parses `v100=16,k80=12` over `types`; types not named get their default.
    pub fn parse(spec: &str, types: &[String]) -> Result<GpuMemory, SimError> {
        let mut gb: Vec<f64> = types.iter().map(|t| default_gpu_memory_gb(t)).collect();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let bad = |why: &str| {
                SimError::Input(format!(
                    "--gpu-memory '{part}': {why} (give TYPE=GB, e.g. v100=16)"
                ))
            };
            let (name, value) = part.split_once('=').ok_or_else(|| bad("no '='"))?;
            let j = types
                .iter()
                .position(|t| t == name.trim())
                .ok_or_else(|| bad("no such GPU type in the cluster"))?;
            gb[j] = value
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v > 0.0)
                .ok_or_else(|| bad("GB must be a number > 0"))?;
        }
        Ok(GpuMemory(gb))
    }

    pub fn defaults(types: &[String]) -> GpuMemory {
        GpuMemory(types.iter().map(|t| default_gpu_memory_gb(t)).collect())
    }
}

/// A model's GPU memory footprint (MB) at its batch size: the SJF-BSBF testbed's measurements
/// (../shared/BACKGROUND.md: resnet18 6432, shufflenet 5252, vgg19 4304, vgg16 4224, dqn 2230,
/// a2c 2094, bert 8058, gpt2 10532), and for Gavel's models estimates (no measurement is
/// published): roughly the weights, gradients and optimizer state plus activations growing with
/// the batch, rounded. The estimates are stated as such in docs/simulator.md.
pub fn model_memory_mb(model: &str) -> Option<f64> {
    let testbed = [
        ("resnet18", 6432.0),
        ("shufflenet", 5252.0),
        ("vgg19", 4304.0),
        ("vgg16", 4224.0),
        ("dqn", 2230.0),
        ("a2c", 2094.0),
        ("bert", 8058.0),
        ("gpt2", 10532.0),
    ];
    if let Some(&(_, mb)) = testbed.iter().find(|(m, _)| *m == model) {
        return Some(mb);
    }
    // Gavel's models: (name prefix, its smallest batch in Gavel's table, MB at that batch, MB
    // more per doubling of the batch).
    let estimates: [(&str, f64, f64, f64); 7] = [
        ("ResNet-18", 16.0, 1500.0, 700.0),
        ("ResNet-50", 16.0, 3500.0, 2000.0),
        ("Transformer", 16.0, 3000.0, 1500.0),
        ("LM", 5.0, 2500.0, 800.0),
        ("Recommendation", 512.0, 1200.0, 400.0),
        ("CycleGAN", 1.0, 4000.0, 0.0),
        ("A3C", 1.0, 1000.0, 0.0),
    ];
    let (_, smallest, base, per_doubling) =
        estimates.iter().find(|(p, _, _, _)| model.starts_with(p))?;
    let batch = model
        .split("batch size ")
        .nth(1)
        .and_then(|s| s.trim_end_matches(')').trim().parse::<f64>().ok());
    let doublings = batch.map_or(0.0, |b| (b / smallest).max(1.0).log2());
    Some(base + per_doubling * doublings)
}

/// Gradient accumulation: k sub-batches of B/k per update.
///
/// Model (stated, not measured): an iteration's time is a fixed part `f` (kernel launches,
/// optimizer step, communication) plus a part proportional to the samples, so k sub-batches take
/// `T (k f + 1 - f)`; memory is a fixed part `s` (weights, gradients, optimizer state) plus
/// activations proportional to the batch, so `M (s + (1 - s) / k)`. Parameters:
/// [`Accumulation::FIXED_TIME`] and [`Accumulation::FIXED_MEMORY`].
pub struct Accumulation;

impl Accumulation {
    pub const FIXED_TIME: f64 = 0.1;
    pub const FIXED_MEMORY: f64 = 0.35;

    /// Iteration time with k sub-batches over the time with one.
    pub fn time_factor(k: u32) -> f64 {
        let k = f64::from(k.max(1));
        k * Self::FIXED_TIME + 1.0 - Self::FIXED_TIME
    }

    /// Memory with k sub-batches over the memory with one.
    pub fn memory_factor(k: u32) -> f64 {
        let k = f64::from(k.max(1));
        Self::FIXED_MEMORY + (1.0 - Self::FIXED_MEMORY) / k
    }

    /// The fewest sub-batches (1, 2, 4 or 8) with which `mb` fits in `free_mb`.
    pub fn fewest_to_fit(mb: f64, free_mb: f64) -> Option<u32> {
        [1, 2, 4, 8]
            .into_iter()
            .find(|&k| mb * Self::memory_factor(k) <= free_mb + 1e-9)
    }
}

/// A GPU type and two jobs, each (model, scale factor).
type PairKey = (String, (String, u32), (String, u32));

/// Measured slowdowns of co-located pairs, by GPU type.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Interference {
    /// (type, (model a, sf a), (model b, sf b)) -> slowdown of a next to b.
    slowdown: BTreeMap<PairKey, f64>,
}

impl Interference {
    /// Reads the co-located pairs of Gavel's `simulation_throughputs.json`: under a type and a
    /// job key, an entry named by the other job's key holds [rate of this job, rate of the
    /// other] when sharing; this job's slowdown is its "null" (alone) rate over the first.
    pub fn from_gavel_json(text: &str) -> Result<Interference, SimError> {
        Ok(Self::from_gavel_value(
            &crate::throughputs::parse_gavel_json(text)?,
        ))
    }

    /// [`Interference::from_gavel_json`] on the file already parsed (what it cannot read as a
    /// pair, it skips).
    pub fn from_gavel_value(value: &serde_json::Value) -> Interference {
        let mut slowdown = BTreeMap::new();
        let Some(types) = value.as_object() else {
            return Interference::default();
        };
        for (gpu, jobs) in types
            .iter()
            .filter(|(g, _)| !g.ends_with("_unconsolidated"))
        {
            let Some(jobs) = jobs.as_object() else {
                continue;
            };
            for (key, measured) in jobs {
                let (Some(a), Some(alone)) = (
                    crate::throughputs::parse_key(key),
                    measured["null"].as_f64(),
                ) else {
                    continue;
                };
                let Some(pairs) = measured.as_object() else {
                    continue;
                };
                for (other, rates) in pairs.iter().filter(|(k, _)| *k != "null") {
                    let (Some(b), Some(shared)) = (
                        crate::throughputs::parse_key(other),
                        rates.get(0).and_then(serde_json::Value::as_f64),
                    ) else {
                        continue;
                    };
                    if alone > 0.0 && shared > 0.0 && shared.is_finite() {
                        // A measured speed-up from sharing is noise: never below 1.
                        let s = (alone / shared).max(1.0);
                        slowdown.insert((gpu.clone(), a.clone(), b), s);
                    }
                }
            }
        }
        Interference { slowdown }
    }

    /// The slowdown of job a next to job b on `gpu_type`, and whether it was measured (else
    /// [`FALLBACK_SLOWDOWN`]).
    pub fn of(&self, gpu_type: &str, a: (&str, u32), b: (&str, u32)) -> (f64, bool) {
        let key = (
            gpu_type.to_string(),
            (a.0.to_string(), a.1),
            (b.0.to_string(), b.1),
        );
        match self.slowdown.get(&key) {
            Some(&s) => (s, true),
            None => (FALLBACK_SLOWDOWN, false),
        }
    }

    pub fn pairs(&self) -> usize {
        self.slowdown.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accumulation_follows_the_stated_model() {
        assert_eq!(Accumulation::time_factor(1), 1.0);
        assert!((Accumulation::time_factor(2) - 1.1).abs() < 1e-12);
        assert!((Accumulation::time_factor(4) - 1.3).abs() < 1e-12);
        assert_eq!(Accumulation::memory_factor(1), 1.0);
        assert!((Accumulation::memory_factor(2) - 0.675).abs() < 1e-12);
        // 6432 MB into 4000 MB: k = 2 gives 4341.6, k = 4 gives 3302.4.
        assert_eq!(Accumulation::fewest_to_fit(6432.0, 4000.0), Some(4));
        assert_eq!(Accumulation::fewest_to_fit(6432.0, 1000.0), None);
    }

    #[test]
    fn gpu_memory_defaults_and_overrides() {
        // Today's types have their card's memory (an H100 SXM5 80 GB); a name we do not know, 16.
        let types: Vec<String> = ["v100", "k80", "h100", "x1"].map(String::from).to_vec();
        assert_eq!(GpuMemory::defaults(&types).0, vec![16.0, 12.0, 80.0, 16.0]);
        assert_eq!(
            GpuMemory::parse("h100=94,x1=24", &types).unwrap().0,
            vec![16.0, 12.0, 94.0, 24.0]
        );
        for bad in ["x100=4", "v100=0", "v100"] {
            assert!(GpuMemory::parse(bad, &types).is_err(), "{bad}");
        }
    }

    #[test]
    fn reads_gavels_pairs_as_slowdowns() {
        let text = r#"{"v100": {"('A', 1)": {"null": 10.0, "('B', 1)": [5.0, 4.0]},
                                 "('B', 1)": {"null": 8.0, "('A', 1)": [4.0, 5.0]}}}"#;
        let i = Interference::from_gavel_json(text).unwrap();
        assert_eq!(i.of("v100", ("A", 1), ("B", 1)), (2.0, true));
        assert_eq!(i.of("v100", ("B", 1), ("A", 1)), (2.0, true));
        assert_eq!(i.of("k80", ("A", 1), ("B", 1)), (FALLBACK_SLOWDOWN, false));
        assert!(
            model_memory_mb("ResNet-50 (batch size 64)").unwrap()
                > model_memory_mb("ResNet-50 (batch size 16)").unwrap()
        );
        assert_eq!(model_memory_mb("resnet18"), Some(6432.0));
        // Gavel ran every model of its table on a 12 GB K80: no estimate may exceed that.
        for model in crate::ThroughputTable::builtin().models_with(1) {
            assert!(model_memory_mb(model).unwrap() <= 12.0 * 1024.0, "{model}");
        }
        for batch in [16, 32, 64, 128, 256] {
            let m = format!("ResNet-50 (batch size {batch})");
            assert!(model_memory_mb(&m).unwrap() <= 12.0 * 1024.0, "{m}");
        }
        assert_eq!(model_memory_mb("nope"), None);
    }
}
