//! Built-in scenarios: the playground opens on [`default_scenario`].

pub mod corpus;

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

/// Gavel's measured throughputs of two of [`GAVEL_MEASURED`]'s models sharing one GPU (steps/s
/// of each, the first model's first), on K80 / P100 / V100, for the first four models' pairs.
/// Same source, licence and rounding as [`GAVEL_MEASURED`]; the same test checks them.
pub const GAVEL_CO_LOCATED: [(usize, usize, [[f64; 2]; 3]); 6] = [
    (0, 1, [[0.3478, 0.7673], [1.494, 2.396], [2.55, 1.774]]),
    (0, 2, [[0.3092, 1.869], [1.439, 3.047], [2.951, 1.684]]),
    (0, 3, [[0.4155, 6.715], [2.035, 18.96], [3.021, 24.8]]),
    (1, 2, [[0.7295, 2.089], [2.624, 3.534], [5.769, 6.2]]),
    (1, 3, [[1.059, 7.772], [3.446, 23.38], [6.504, 52.36]]),
    (2, 3, [[1.958, 6.918], [3.697, 24.9], [3.595, 41.82]]),
];

/// Today's GPU types (issue 52), fastest first as measured: our name, GB of memory, and the row
/// of Lambda's benchmark table the throughputs come from.
pub const TODAYS_GPU_TYPES: [(&str, f64, &str); 6] = [
    ("h100", 80.0, "H100 80GB SXM5"),
    ("a100-80", 80.0, "A100 80GB SXM4"),
    ("a100-40", 40.0, "LambdaCloud A100 40GB PCIe"),
    ("rtx6000-ada", 48.0, "RTX 6000 Ada"),
    ("a10", 24.0, "LambdaCloud A10"),
    ("v100", 16.0, "LambdaCloud V100 16GB"),
];

/// Training throughputs on one GPU of each of [`TODAYS_GPU_TYPES`], mixed FP16, for all ten
/// models of Lambda's PyTorch benchmark (none left out, so none was chosen for its ranks), in
/// the unit each model's script reports (images/s, sequences/s, tokens/s, ...; a tenant's unit
/// cancels out of every speedup). Source: Lambda, `lambdal/deeplearning-benchmark`,
/// `pytorch/pytorch-train-throughput-fp16.csv` at commit 4e11f689 (2024-07-24); each cell's
/// batch size, row and date are in `www/scenarios/todays-cluster.sources.csv`, and a test checks
/// every figure here against that file. Lambda sizes the batch to each GPU's memory, so a
/// model's batch size differs between types (see the guide's "Today's cluster").
pub const TODAYS_MODELS: [(&str, [f64; 6]); 10] = [
    ("ResNet-50", [2616.0, 1582.0, 1396.0, 1146.0, 638.0, 833.0]),
    ("SSD", [782.0, 458.0, 395.0, 341.0, 174.0, 229.0]),
    (
        "BERT-base SQuAD",
        [812.0, 443.0, 368.0, 255.0, 135.0, 189.0],
    ),
    ("BERT-large SQuAD", [301.0, 152.0, 117.0, 79.0, 42.0, 57.0]),
    (
        "GNMT",
        [467071.0, 243500.0, 186947.0, 160184.0, 67836.0, 79111.0],
    ),
    (
        "NCF",
        [
            52418903.0, 30787381.0, 37012517.0, 33148978.0, 15343208.0, 23476979.0,
        ],
    ),
    (
        "Tacotron 2",
        [78108.0, 59716.0, 38131.0, 40331.0, 16900.0, 12611.0],
    ),
    (
        "Transformer-XL base",
        [62259.0, 43078.0, 35366.0, 36745.0, 16283.0, 18493.0],
    ),
    (
        "Transformer-XL large",
        [30841.0, 17918.0, 16034.0, 16049.0, 5614.0, 6071.0],
    ),
    (
        "WaveGlow",
        [393500.0, 244438.0, 195108.0, 156904.0, 80357.0, 47253.0],
    ),
];

/// A cluster like those readers run in 2026: 4 GPUs of each of six types from H100 to V100, and
/// the ten models of Lambda's benchmark as tenants, with throughputs cited in
/// [`TODAYS_MODELS`].
pub fn todays_cluster() -> Preset {
    Preset {
        id: "todays-cluster",
        title: "Today's cluster: H100, A100, RTX 6000 Ada, A10 and V100",
        description: "Ten models with training throughputs measured by Lambda (mixed FP16, one \
                      GPU) on six GPU types; 4 GPUs of each. Sources in the guide.",
        scenario: measured(
            &TODAYS_GPU_TYPES.map(|t| t.0),
            TODAYS_MODELS.iter().map(|(m, r)| (*m, &r[..])),
        ),
    }
}

/// 4 GPUs of each of `types`, and one tenant per measured model (its throughput on each type),
/// weight 1, uncapped: the shape of the presets built on published measurements.
fn measured<'a>(types: &[&str], models: impl Iterator<Item = (&'a str, &'a [f64])>) -> Scenario {
    Scenario {
        version: crate::scenario::SCHEMA_VERSION,
        gpu_types: types
            .iter()
            .map(|name| GpuType {
                name: (*name).into(),
                count: 4,
            })
            .collect(),
        tenants: models
            .map(|(name, throughput)| Tenant {
                name: name.into(),
                throughput: throughput.to_vec(),
                weight: 1.0,
                max_gpus: None,
                work: None,
                entity: None,
            })
            .collect(),
        normalization: Normalization::Slowest,
        entities: Vec::new(),
        co_located: Vec::new(),
    }
}

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
    Preset {
        id: "gavel-measured",
        title: "Gavel's measured models on K80 / P100 / V100",
        description:
            "Six models with throughputs measured by Gavel (OSDI 2020); 4 GPUs of each type.",
        scenario: measured(
            &["k80", "p100", "v100"],
            GAVEL_MEASURED.iter().map(|(m, r)| (*m, &r[..])),
        ),
    }
}

/// Four of Gavel's models as single-GPU jobs on one K80, one P100 and one V100, with every
/// pair's measured co-located throughputs: gavel-las-packed shares GPUs, and the others
/// time-slice them.
pub fn gavel_space_sharing() -> Preset {
    let names: Vec<&str> = GAVEL_MEASURED[..4].iter().map(|(name, _)| *name).collect();
    let mut scenario = gavel_measured().scenario;
    scenario.gpu_types.iter_mut().for_each(|t| t.count = 1);
    scenario.tenants.truncate(4);
    scenario
        .tenants
        .iter_mut()
        .for_each(|t| t.max_gpus = Some(1.0));
    scenario.co_located = GAVEL_CO_LOCATED
        .iter()
        .map(|&(a, b, rates)| crate::CoLocated {
            tenants: vec![names[a].into(), names[b].into()],
            throughput: rates.iter().map(|r| r.to_vec()).collect(),
        })
        .collect();
    Preset {
        id: "gavel-space-sharing",
        title: "Space sharing: four of Gavel's models, two at a time on a GPU",
        description: "Single-GPU jobs on one K80, P100 and V100, with Gavel's measured \
                      throughputs of each pair sharing a GPU; see gavel-las-packed.",
        scenario,
    }
}

/// A random scenario for scale tests and benchmarks: `tenants` x `types`, throughputs uniform
/// in [1, 8) (speedups up to 8x, as in TOOLCHAIN.md's HiGHS measurements), GPU counts cycling
/// through 4, 8, 12 per type. With `jobs`, every tenant is a Gavel job: `max_gpus` is a scale
/// factor 1/2/4/8 with probability 0.70/0.10/0.15/0.05 (Gavel's synthetic workload), and each
/// type has tenants/4 GPUs (at least 4). Seeded: the same arguments give the same scenario.
pub fn random_scenario(tenants: usize, types: usize, seed: u64, jobs: bool) -> Scenario {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let gpu_types = (0..types)
        .map(|j| GpuType {
            name: format!("type{j}"),
            count: if jobs {
                (tenants as u32 / 4).max(4)
            } else {
                4 + (j as u32 % 3) * 4
            },
        })
        .collect();
    let tenants = (0..tenants)
        .map(|i| {
            let throughput = (0..types).map(|_| rng.random_range(1.0..8.0)).collect();
            let max_gpus = jobs.then(|| match rng.random_range(0.0..1.0) {
                p if p < 0.70 => 1.0,
                p if p < 0.80 => 2.0,
                p if p < 0.95 => 4.0,
                _ => 8.0,
            });
            random_tenant(i, throughput, 1.0, max_gpus)
        })
        .collect();
    random_scenario_of(gpu_types, tenants)
}

/// Tenant `i` of a random scenario: named `tenant{i}`, with no work or entity.
fn random_tenant(i: usize, throughput: Vec<f64>, weight: f64, max_gpus: Option<f64>) -> Tenant {
    Tenant {
        name: format!("tenant{i}"),
        throughput,
        weight,
        max_gpus,
        work: None,
        entity: None,
    }
}

/// A random scenario of these types and tenants: speedups against each tenant's slowest type,
/// no entities, no co-located pairs.
fn random_scenario_of(gpu_types: Vec<GpuType>, tenants: Vec<Tenant>) -> Scenario {
    Scenario {
        version: crate::scenario::SCHEMA_VERSION,
        gpu_types,
        tenants,
        normalization: Normalization::Slowest,
        entities: Vec::new(),
        co_located: Vec::new(),
    }
}

/// The textbook 2 x 2 case where OEF and max-min fairness differ visibly: one fast and one slow
/// GPU; tenant "vision" runs twice as fast on the fast one, "rl" runs the same on both. OEF gives
/// the fast GPU to vision and the slow one to rl (efficiency 3, SI and EF hold); Gavel's LAS
/// splits both GPUs to equalise normalised throughput (efficiency 20/7 = 2.857).
pub fn textbook_two_by_two() -> Preset {
    let scenario = Scenario {
        version: crate::scenario::SCHEMA_VERSION,
        gpu_types: vec![
            GpuType {
                name: "slow".into(),
                count: 1,
            },
            GpuType {
                name: "fast".into(),
                count: 1,
            },
        ],
        tenants: vec![
            Tenant {
                name: "vision".into(),
                throughput: vec![1.0, 2.0],
                weight: 1.0,
                max_gpus: None,
                work: None,
                entity: None,
            },
            Tenant {
                name: "rl".into(),
                throughput: vec![1.0, 1.0],
                weight: 1.0,
                max_gpus: None,
                work: None,
                entity: None,
            },
        ],
        normalization: Normalization::Slowest,
        entities: Vec::new(),
        co_located: Vec::new(),
    };
    Preset {
        id: "textbook-2x2",
        title: "Textbook 2 x 2: OEF vs max-min fairness",
        description:
            "One slow and one fast GPU; one tenant gains 2x from the fast one, the other nothing.",
        scenario,
    }
}

/// A large random scenario (60 tenants x 6 types) to feel the solver's speed.
pub fn large_random() -> Preset {
    Preset {
        id: "large-random",
        title: "Large random: 60 tenants x 6 GPU types",
        description: "Throughputs uniform in [1, 8) per GPU type, seeded; 4 to 12 GPUs per type.",
        scenario: random_scenario(60, 6, 42, false),
    }
}

/// The scenario the playground opens on.
pub fn default_scenario() -> Scenario {
    gavel_measured().scenario
}

/// Every preset, the default first.
pub fn all() -> Vec<Preset> {
    vec![
        gavel_measured(),
        todays_cluster(),
        textbook_two_by_two(),
        gavel_space_sharing(),
        large_random(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_scenarios_are_valid_and_reproducible() {
        let a = random_scenario(30, 6, 3, false);
        assert!(a.instance().is_ok());
        assert_eq!(a, random_scenario(30, 6, 3, false));
        assert_ne!(a, random_scenario(30, 6, 4, false));
        let jobs = random_scenario(64, 3, 1, true);
        assert!(jobs
            .tenants
            .iter()
            .all(|t| matches!(t.max_gpus, Some(1.0 | 2.0 | 4.0 | 8.0))));
        assert!(jobs.instance().is_ok());
    }

    #[test]
    fn every_preset_is_valid() {
        for p in all() {
            assert!(p.scenario.instance().is_ok(), "{}", p.id);
        }
    }

    #[test]
    fn textbook_case_separates_oef_from_las() {
        use crate::policies;
        let inst = textbook_two_by_two().scenario.instance().unwrap();
        let oef = policies::by_name("oef-coop").unwrap().solve(&inst).unwrap();
        let las = policies::by_name("gavel-las")
            .unwrap()
            .solve(&inst)
            .unwrap();
        assert!((oef.allocation.efficiency(&inst) - 3.0).abs() < 1e-7);
        // LAS by hand: prop = (1.5, 1); equalising (a1 + 2 a2)/1.5 = (2 - a1 - a2) with a1 = 0
        // gives a2 = 6/7, efficiency 2 a2 + (2 - a2) = 2 + 6/7 = 20/7.
        assert!((las.allocation.efficiency(&inst) - 20.0 / 7.0).abs() < 1e-7);
    }

    #[test]
    fn default_scenario_is_valid() {
        let inst = default_scenario()
            .instance()
            .expect("the default preset validates");
        assert_eq!(inst.tenants(), 6);
        assert_eq!(inst.count, vec![4.0, 4.0, 4.0]);
    }

    /// The cited figures match Gavel's file (from the data directory, never copied into the repo).
    #[test]
    fn gavel_figures_match_the_measurement_file() {
        let path = format!(
            "{}/data/gavel/simulation_throughputs.json",
            crate::shared_data_dir()
        );
        let Ok(text) = std::fs::read_to_string(&path) else {
            panic!(
                "Gavel's throughputs are expected at {path}: run `cargo xtask data` \
                 (docs/development.md)"
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
        for (a, b, figures) in GAVEL_CO_LOCATED {
            let (first, second) = (GAVEL_MEASURED[a].0, GAVEL_MEASURED[b].0);
            for (gpu, ours) in ["k80", "p100", "v100"].iter().zip(&figures) {
                let measured = &file[gpu][format!("('{first}', 1)")][format!("('{second}', 1)")];
                for k in 0..2 {
                    let measured = measured[k].as_f64().unwrap();
                    assert!(
                        (measured - ours[k]).abs() / measured < 5e-4,
                        "{first} with {second} on {gpu}: file {measured}, preset {}",
                        ours[k]
                    );
                }
            }
        }
    }

    /// With Gavel's measured pairs, space sharing lifts the max-min level above time slicing's
    /// on this cluster (four jobs, three GPUs: sharing gives some job more than 3/4 of a GPU).
    #[test]
    fn the_space_sharing_preset_shares() {
        use crate::policies;
        let inst = gavel_space_sharing().scenario.instance().unwrap();
        let packed = policies::by_name("gavel-las-packed")
            .unwrap()
            .solve(&inst)
            .unwrap();
        let las = policies::by_name("gavel-las")
            .unwrap()
            .solve(&inst)
            .unwrap();
        assert!(packed.shared.iter().flatten().any(|&h| h > 1e-6));
        assert!(
            packed.objective > las.objective * 1.01,
            "{} vs {}",
            packed.objective,
            las.objective
        );
    }
}
