//! Helpers shared by the property-test files.

use fairground_core::{GpuType, Normalization, Scenario, Tenant};

/// A scenario from drawn GPU counts and tenant rows (throughputs, weight, cap), named t0.. and
/// u0..; None when it is not valid (say, a tenant with no positive throughput).
pub fn scenario_from(counts: &[u32], rows: Vec<(Vec<f64>, f64, Option<f64>)>) -> Option<Scenario> {
    let s = Scenario {
        version: 1,
        gpu_types: counts
            .iter()
            .enumerate()
            .map(|(j, &count)| GpuType {
                name: format!("t{j}"),
                count,
            })
            .collect(),
        tenants: rows
            .into_iter()
            .enumerate()
            .map(|(i, (throughput, weight, max_gpus))| Tenant {
                name: format!("u{i}"),
                throughput,
                weight,
                max_gpus,
                work: None,
                entity: None,
            })
            .collect(),
        normalization: Normalization::Slowest,
        entities: Vec::new(),
        co_located: Vec::new(),
    };
    s.instance().is_ok().then_some(s)
}
