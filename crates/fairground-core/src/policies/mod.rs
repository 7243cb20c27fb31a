//! Allocation policies, one file each behind the [`Policy`] trait (Gavel's `policies/` layout):
//! a new policy is one new file plus one line in [`all`].

mod base;
mod equal_share;
mod gavel;
mod gavel_ftf;
mod gavel_las;
mod gavel_las_agnostic;
mod gavel_las_incremental;
mod gavel_max_sum;
mod gavel_water_filling;
mod isolated;
mod oef_coop;
mod oef_noncoop;

pub use base::scale_factor;
pub(crate) use base::AllocationLp;
pub use equal_share::EqualShare;
pub use gavel::proportional_throughput;
pub use gavel_ftf::GavelFtf;
pub use gavel_las::GavelLas;
pub use gavel_las_agnostic::GavelLasAgnostic;
pub use gavel_las_incremental::{ClassShares, IncrementalLas};
pub use gavel_max_sum::GavelMaxSum;
pub use gavel_water_filling::GavelWaterFilling;
pub use isolated::Isolated;
pub use oef_coop::{EfRows, OefCoop};
pub use oef_noncoop::OefNonCoop;

use crate::lp::LpError;
use crate::{Allocation, Instance};
use std::fmt;

/// What a policy returns: the allocation and the policy's own objective value, as it defines it.
#[derive(Debug, Clone, PartialEq)]
pub struct Solution {
    pub allocation: Allocation,
    pub objective: f64,
}

/// Why a policy could not produce an allocation.
#[derive(Debug, Clone, PartialEq)]
pub enum PolicyError {
    /// The policy's constraints admit no allocation for this scenario.
    Infeasible(String),
    /// The LP solver failed (numerical trouble); the message says where.
    Solver(String),
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PolicyError::Infeasible(why) => write!(f, "no feasible allocation: {why}"),
            PolicyError::Solver(why) => write!(f, "the LP solver failed: {why}"),
        }
    }
}

impl std::error::Error for PolicyError {}

impl From<LpError> for PolicyError {
    fn from(err: LpError) -> Self {
        match err {
            LpError::Infeasible => PolicyError::Infeasible("the LP's constraints conflict".into()),
            other => PolicyError::Solver(other.to_string()),
        }
    }
}

/// An allocation policy: turns a validated instance into an allocation.
pub trait Policy: Sync {
    /// Stable identifier used by the CLI (`--policy`) and in JSON.
    fn name(&self) -> &'static str;
    /// One line for people: what the policy optimises.
    fn summary(&self) -> &'static str;
    fn solve(&self, inst: &Instance) -> Result<Solution, PolicyError>;
}

/// Every policy, in the order the playground and `fairground compare` show them.
pub fn all() -> Vec<&'static dyn Policy> {
    vec![
        &OefCoop {
            ef_rows: EfRows::Lazy,
        },
        &OefNonCoop,
        &GavelLas,
        &GavelLasAgnostic,
        &GavelWaterFilling,
        &GavelMaxSum,
        &GavelFtf,
        &EqualShare,
        &Isolated,
    ]
}

/// Looks a policy up by its [`Policy::name`].
pub fn by_name(name: &str) -> Option<&'static dyn Policy> {
    all().into_iter().find(|p| p.name() == name)
}
