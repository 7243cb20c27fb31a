//! What is wrong with an input, located: the vocabulary every validation shares, at the bottom of
//! the crate so the scenario and its parts (co-located pairs, entities) all import it and none
//! imports another for it.

use serde::{Deserialize, Serialize};
use std::fmt;

/// One thing wrong with a scenario, located by a path into its JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    /// Where: `tenants[3].throughput[1]`, `gpu_types`, or `.` for the whole document.
    pub path: String,
    pub message: String,
}

impl Problem {
    pub(crate) fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Problem {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// `{at}.throughput` must have one entry per GPU type.
pub(crate) fn one_per_type(len: usize, types: usize, at: &str, problems: &mut Vec<Problem>) {
    if len != types {
        problems.push(Problem::new(
            format!("{at}.throughput"),
            format!("has {len} entries but there are {types} GPU types"),
        ));
    }
}
