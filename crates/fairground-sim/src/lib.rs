//! Fairground's trace-driven simulator: pure Rust, native and wasm32.
//!
//! A [`Cluster`] of servers and a list of [`Job`]s (from a [`workload`]) are replayed by
//! [`engine::simulate`] under a [`Scheduler`]: at each round start the scheduler places active
//! jobs on GPUs; inside the round, completions happen at their exact instants; the result has
//! per-job completion times and cluster-wide metrics ([`metrics::SimResult`]).

pub mod config;
pub mod engine;
pub mod error;
pub mod limits;
pub mod metrics;
pub mod mixed;
pub mod model;
pub mod pool;
pub mod python_random;
pub mod resources;
pub mod schedulers;
pub mod sharing;
pub mod small_lp;
pub mod tenants;
pub mod throughputs;
pub mod traces;
pub mod workload;

pub use config::SimConfig;
pub use engine::{simulate, Simulation};
pub use metrics::SimResult;
pub use mixed::MixedRate;
pub use model::{Cluster, Job, Server, SimError};
pub use resources::{JobResources, Profiles, ServerShape};
pub use schedulers::{Placement, RoundView, Scheduler};
pub use throughputs::ThroughputTable;
