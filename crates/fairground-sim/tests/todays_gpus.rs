//! Today's GPUs (issue 52): every number in the playground's preset and in the simulator's
//! table has its row in the sources file, `www/scenarios/todays-cluster.sources.csv`, with a
//! source a reader can follow, and every derived figure says how it was derived.

use fairground_core::presets::{todays_cluster, TODAYS_GPU_TYPES};
use fairground_sim::sharing::default_gpu_memory_gb;
use fairground_sim::ThroughputTable;
use std::collections::BTreeMap;

#[derive(Debug, serde::Deserialize)]
struct Source {
    model: String,
    gpu_type: String,
    gpus: u32,
    throughput: f64,
    unit: String,
    precision: String,
    batch_size_per_gpu: u32,
    source: String,
    source_row: String,
    source_column: String,
    row_since: String,
    derived: String,
}

fn sources() -> BTreeMap<(String, String, u32), Source> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../www/scenarios/todays-cluster.sources.csv"
    );
    let mut out = BTreeMap::new();
    for row in csv::Reader::from_path(path).unwrap().deserialize() {
        let s: Source = row.unwrap();
        let key = (s.model.clone(), s.gpu_type.clone(), s.gpus);
        assert!(out.insert(key, s).is_none(), "a cell has two rows");
    }
    out
}

#[test]
fn the_sources_file_covers_every_number_of_the_preset_and_the_table() {
    let sources = sources();
    // Every cell has a followable source, one precision, a batch size and a date.
    for (key, s) in &sources {
        assert!(
            s.source
                .starts_with("https://github.com/lambdal/deeplearning-benchmark/blob/"),
            "{key:?}"
        );
        assert!(!s.source_row.is_empty() && !s.source_column.is_empty() && !s.unit.is_empty());
        assert_eq!(s.precision, "mixed FP16", "{key:?}");
        assert!(s.batch_size_per_gpu > 0, "{key:?}");
        assert_eq!(s.row_since.len(), 10, "{key:?}: a date, YYYY-MM-DD");
        // Measured cells are one-GPU figures; every multi-GPU one says it was derived.
        assert_eq!(s.derived == "no", s.gpus == 1, "{key:?}: {}", s.derived);
    }

    // The preset: each tenant's throughput on each type is the one-GPU figure of its row, and
    // that row comes from the Lambda row named for the type.
    let scenario = todays_cluster().scenario;
    let mut cells = 0;
    for tenant in &scenario.tenants {
        for (j, gpu) in scenario.gpu_types.iter().enumerate() {
            let s = &sources[&(tenant.name.clone(), gpu.name.clone(), 1)];
            assert_eq!(
                tenant.throughput[j], s.throughput,
                "{} on {}",
                tenant.name, gpu.name
            );
            assert_eq!(s.source_row, TODAYS_GPU_TYPES[j].2);
            cells += 1;
        }
    }
    assert_eq!(cells, 60, "ten models on six types");

    // The simulator's table: every (model, GPUs, type) figure, and nothing the file lacks.
    let table = ThroughputTable::todays_gpus();
    let mut covered = 0;
    for sf in [1, 2, 4, 8] {
        for model in table.models_with(sf) {
            for (gpu, _, _) in TODAYS_GPU_TYPES {
                let s = &sources[&(model.to_string(), gpu.to_string(), sf)];
                assert_eq!(table.rate_on(model, sf, gpu), Some(s.throughput));
                covered += 1;
            }
        }
    }
    assert_eq!(covered, sources.len(), "rows the table does not use");

    // Each type's memory: the simulator's default, as the type's name in Lambda's table says.
    for (gpu, gb, row) in TODAYS_GPU_TYPES {
        assert_eq!(default_gpu_memory_gb(gpu), gb);
        assert!(
            row.contains(&format!("{gb}GB")) || row == "RTX 6000 Ada" || row.ends_with("A10"),
            "{row}"
        );
    }
}

#[test]
fn the_example_file_is_the_preset() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../www/scenarios/todays-cluster.json"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let example = fairground_core::Scenario::from_json(&text).unwrap();
    assert_eq!(example, todays_cluster().scenario);
}
