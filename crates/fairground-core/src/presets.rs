//! Built-in scenarios: the playground opens on [`default_scenario`].

use crate::{GpuType, Normalization, Scenario, Tenant};

/// Gavel's measured throughputs (steps/s, one GPU, job alone) on K80 / P100 / V100 for a handful
/// of models. Source: Gavel (Narayanan et al., OSDI 2020), `simulation_throughputs.json` in the
/// Gavel repository (MIT licence), rounded to 4 significant figures. A test checks these against
/// the file in ../shared/data/gavel.
pub const GAVEL_MEASURED: [(&str, [f64; 3]); 6] = [
    ("ResNet-50 (batch size 64)", [0.619, 2.619, 4.395]),
    ("Transformer (batch size 64)", [1.752, 5.092, 8.618]),
    ("A3C", [3.439, 5.681, 7.176]),
    ("LM (batch size 20)", [17.14, 58.17, 64.74]),
    ("Recommendation (batch size 2048)", [10.44, 16.60, 7.470]),
    ("CycleGAN", [0.5048, 2.403, 4.426]),
];

/// A built-in scenario with a title and one line on what it shows.
#[derive(Debug, Clone)]
pub struct Preset {
    pub id: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub scenario: Scenario,
}

/// Six models from Gavel's measurements sharing 4 K80s, 4 P100s and 4 V100s.
pub fn gavel_measured() -> Preset {
    let gpu_types = ["k80", "p100", "v100"]
        .into_iter()
        .map(|name| GpuType {
            name: name.into(),
            count: 4,
        })
        .collect();
    let tenants = GAVEL_MEASURED
        .iter()
        .map(|(name, throughput)| Tenant {
            name: (*name).into(),
            throughput: throughput.to_vec(),
            weight: 1.0,
            max_gpus: None,
        })
        .collect();
    Preset {
        id: "gavel-measured",
        title: "Gavel's measured models on K80 / P100 / V100",
        description:
            "Six models with throughputs measured by Gavel (OSDI 2020); 4 GPUs of each type.",
        scenario: Scenario {
            version: crate::scenario::SCHEMA_VERSION,
            gpu_types,
            tenants,
            normalization: Normalization::Slowest,
        },
    }
}

/// The scenario the playground opens on.
pub fn default_scenario() -> Scenario {
    gavel_measured().scenario
}

/// Every preset, the default first.
pub fn all() -> Vec<Preset> {
    vec![gavel_measured()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_scenario_is_valid() {
        let inst = default_scenario()
            .instance()
            .expect("the default preset validates");
        assert_eq!(inst.tenants(), 6);
        assert_eq!(inst.count, vec![4.0, 4.0, 4.0]);
    }

    /// The cited figures match Gavel's file (read from ../shared, never copied into the repo).
    #[test]
    fn gavel_figures_match_the_measurement_file() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/data/gavel/simulation_throughputs.json"
        );
        let Ok(text) = std::fs::read_to_string(path) else {
            panic!(
                "Gavel's throughputs are expected at {path} (the shared/ folder beside the repo)"
            );
        };
        let file: serde_json::Value = serde_json::from_str(&text).unwrap();
        for (model, figures) in GAVEL_MEASURED {
            for (gpu, &ours) in ["k80", "p100", "v100"].iter().zip(&figures) {
                let key = format!("('{model}', 1)");
                let measured = file[gpu][&key]["null"].as_f64().unwrap();
                assert!(
                    (measured - ours).abs() / measured < 5e-4,
                    "{model} on {gpu}: file {measured}, preset {ours}"
                );
            }
        }
    }
}
