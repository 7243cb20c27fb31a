//! Helpers shared by the simulator's integration tests.

use fairground_sim::metrics::SimResult;

/// Every job's JCT, in job order (all of them must have finished).
pub fn jcts(r: &SimResult) -> Vec<f64> {
    r.jobs.iter().map(|o| o.jct_s.unwrap()).collect()
}

/// Same length and equal to 1e-6 s.
pub fn close(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6)
}
