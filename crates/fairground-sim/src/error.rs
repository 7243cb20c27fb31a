//! The simulator's one error type, at the bottom of the crate: every module returns it, so it
//! imports nothing of theirs.

use std::fmt;

/// Everything that can go wrong, located where possible.
#[derive(Debug, Clone, PartialEq)]
pub enum SimError {
    /// Bad input: a trace line, a cluster spec, a throughput file.
    Input(String),
    /// A scheduler returned an impossible placement (a bug in the scheduler, never ignored).
    InvalidSchedule(String),
    /// The allocation policy driving the rounds failed.
    Policy(String),
    /// No job could make progress for too long.
    Stalled(String),
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Input(m) => write!(f, "{m}"),
            SimError::InvalidSchedule(m) => write!(f, "invalid schedule: {m}"),
            SimError::Policy(m) => write!(f, "allocation policy failed: {m}"),
            SimError::Stalled(m) => write!(f, "simulation stalled: {m}"),
        }
    }
}

impl std::error::Error for SimError {}
