//! Fairground's allocation engine: pure Rust, no web dependency, built for native and wasm32.
//!
//! Data flows one way: a [`Scenario`] (what a user wrote, JSON) is validated into an [`Instance`]
//! (the numbers n_j, s_ij, w_i, d_i of ../shared/BACKGROUND.md's notation); a [`Policy`] turns an
//! instance into an [`Allocation`] g_ij (time-averaged GPUs of type j held by tenant i).

pub mod allocation;
pub(crate) mod barrier;
pub mod co_location;
pub mod deadline;
pub mod entities;
pub mod fairness;
pub mod frontier;
pub mod lp;
pub mod metrics;
pub mod order;
pub mod parallel;
pub mod policies;
pub mod presets;
pub mod problem;
pub mod properties;
pub mod report;
pub mod scenario;
pub mod simplex;
pub mod tolerance;

pub use allocation::Allocation;
pub use co_location::{CoLocated, CoLocation};
pub use entities::{Entity, EntityTree, Within};
pub use metrics::{EnvyMatrix, Metrics};
pub use policies::{Policy, PolicyError, Solution};
pub use properties::{PropertyReport, SpProbe, SpProbeConfig};
pub use scenario::{GpuType, Instance, Normalization, Problem, Scenario, Tenant};

/// Where tests and benchmarks find their data directory, which holds `data/gavel/` (Gavel's
/// measured throughputs and traces, never copied into the repo): `$FAIRGROUND_SHARED`, else
/// `../shared` beside the repository when it holds the data, else the cache `cargo xtask data`
/// installs into (`~/.cache/fairground/shared`; the same rule as `xtask/src/data.rs`, which
/// `cargo xtask test` applies and exports for the tests).
pub fn shared_data_dir() -> String {
    if let Ok(dir) = std::env::var("FAIRGROUND_SHARED") {
        return dir;
    }
    let beside = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared");
    if std::path::Path::new(beside)
        .join("data/gavel/simulation_throughputs.json")
        .exists()
    {
        return beside.into();
    }
    let home = std::env::var("HOME").unwrap_or_else(|_| ".".into());
    format!("{home}/.cache/fairground/shared")
}
