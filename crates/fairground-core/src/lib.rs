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
pub mod tolerance;

pub use allocation::Allocation;
pub use co_location::{CoLocated, CoLocation};
pub use entities::{Entity, EntityTree, Within};
pub use metrics::{EnvyMatrix, Metrics};
pub use policies::{Policy, PolicyError, Solution};
pub use properties::{PropertyReport, SpProbe, SpProbeConfig};
pub use scenario::{GpuType, Instance, Normalization, Problem, Scenario, Tenant};

/// Where tests and benchmarks find the project's shared data (`../shared` beside the repository,
/// or `$FAIRGROUND_SHARED`): Gavel's measured throughputs and traces, never copied into the repo.
pub fn shared_data_dir() -> String {
    std::env::var("FAIRGROUND_SHARED")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared").into())
}
