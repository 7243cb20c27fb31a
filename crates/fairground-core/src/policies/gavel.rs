//! Notions Gavel's policies share (Narayanan et al., OSDI 2020), at tenant level: a tenant is a
//! job whose scale factor s_i is its cap d_i (or the whole cluster when uncapped).

use super::base::scale_factor;
use crate::Instance;

/// prop_i = sum_j T_ij n_j / sum_k n_k: the throughput of an equal time share of every GPU,
/// which Gavel's max-min fairness normalises by.
pub fn proportional_throughput(inst: &Instance, tenant: usize) -> f64 {
    let total: f64 = inst.count.iter().sum();
    inst.throughput[tenant]
        .iter()
        .zip(&inst.count)
        .map(|(t, n)| t * n)
        .sum::<f64>()
        / total
}

/// Gavel's isolated share x_ij = n_j / (m s_i), each row scaled down so sum_j x_ij <= 1,
/// returned as GPUs held: g_ij = s_i x_ij.
pub fn isolated_share(inst: &Instance, tenant: usize) -> Vec<f64> {
    let m = inst.tenants() as f64;
    let s = scale_factor(inst, tenant);
    let mut x: Vec<f64> = inst.count.iter().map(|n| n / (m * s)).collect();
    let sum: f64 = x.iter().sum();
    if sum > 1.0 {
        x.iter_mut().for_each(|v| *v /= sum);
    }
    x.into_iter().map(|v| v * s).collect()
}

/// Gavel's job throughput sum_j T_ij x_ij with x_ij = g_ij / s_i (raw steps per second).
pub fn job_throughput(inst: &Instance, tenant: usize, bundle: &[f64]) -> f64 {
    let s = scale_factor(inst, tenant);
    inst.throughput[tenant]
        .iter()
        .zip(bundle)
        .map(|(t, g)| t * g / s)
        .sum()
}
