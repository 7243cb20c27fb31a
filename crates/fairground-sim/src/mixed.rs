//! How fast a job runs on GPUs of several types at once (Hadar's task-level placements), and as
//! several forked copies (HadarE).
//!
//! A job's measured rate on type h, `rate[h]`, is for `n` (its scale factor) GPUs of that type,
//! so one of its workers on h does `rate[h] / n`. Which rule applies to a mix is a modelling
//! choice that decides results, so both are offered:
//! - [`MixedRate::Slowest`] (the default): synchronous data-parallel training waits for its
//!   slowest worker every step, so a copy on `g_h` GPUs of each type runs at
//!   `(sum_h g_h) x min_{h: g_h > 0} rate[h] / n`. This is what an unmodified training script
//!   does, and it is the conservative choice: a mix is never better than its slowest type.
//! - [`MixedRate::Sum`]: batches are rebalanced by speed (each worker gets a share of the global
//!   batch proportional to its speed), so the copy runs at `sum_h g_h x rate[h] / n`. This is the
//!   best case a heterogeneity-aware runtime can reach, and the rule Hadar's throughput model
//!   implies (each task contributes its own type's throughput).
//!
//! On one type both rules give `rate[h]` for `n` GPUs, exactly the measured figure.

use crate::model::{Cluster, Job};
use fairground_core::order::sort_indices_by;
use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MixedRate {
    #[default]
    Slowest,
    Sum,
}

impl MixedRate {
    pub const NAMES: [&'static str; 2] = ["slowest", "sum"];

    pub fn parse(text: &str) -> Result<MixedRate, String> {
        match text.trim() {
            "slowest" => Ok(MixedRate::Slowest),
            "sum" => Ok(MixedRate::Sum),
            other => Err(format!(
                "mixed rate '{other}': give slowest (a synchronous job waits for its slowest \
                 worker) or sum (batches rebalanced by speed)"
            )),
        }
    }

    /// Steps/s of one copy of `job` holding `gpus[h]` GPUs of each type h.
    pub fn copy_rate(self, job: &Job, gpus: &[u32]) -> f64 {
        self.rate_of(&job.rate, job.scale_factor, gpus)
    }

    /// Steps/s of one copy of a job measured at `rate[h]` on `scale_factor` GPUs of type h,
    /// holding `gpus[h]` GPUs of each type.
    pub fn rate_of(self, rate: &[f64], scale_factor: u32, gpus: &[u32]) -> f64 {
        let n = f64::from(scale_factor.max(1));
        match self {
            MixedRate::Slowest => {
                let total: u32 = gpus.iter().sum();
                let slowest = gpus
                    .iter()
                    .zip(rate)
                    .filter(|(g, _)| **g > 0)
                    .map(|(_, r)| *r)
                    .fold(f64::INFINITY, f64::min);
                if total == 0 {
                    0.0
                } else {
                    f64::from(total) * slowest / n
                }
            }
            MixedRate::Sum => gpus
                .iter()
                .zip(rate)
                .map(|(g, r)| f64::from(*g) * r / n)
                .sum(),
        }
    }

    /// The fastest rate of one copy of `job` on `scale_factor` GPUs of any mix of the cluster's
    /// types (those it can run on and whose memory holds it alone); 0 when they have too few
    /// GPUs together. Both rules are maximised by taking the fastest types first.
    pub fn best_rate(self, job: &Job, cluster: &Cluster) -> f64 {
        let mut types: Vec<usize> = (0..cluster.types.len())
            .filter(|&h| job.rate[h] > 0.0 && job.fits_alone(cluster, h))
            .collect();
        sort_indices_by(&mut types, &|a, b| {
            job.rate[b].total_cmp(&job.rate[a]).then(a.cmp(&b))
        });
        let mut gpus = vec![0u32; cluster.types.len()];
        let mut left = job.scale_factor;
        for h in types {
            let take = left.min(cluster.gpus_of_type(h));
            gpus[h] = take;
            left -= take;
            if left == 0 {
                return self.copy_rate(job, &gpus);
            }
        }
        0.0
    }
}

impl fmt::Display for MixedRate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MixedRate::Slowest => "slowest",
            MixedRate::Sum => "sum",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(rate: Vec<f64>, n: u32) -> Job {
        Job {
            id: 0,
            tenant: "t".into(),
            job_type: "m".into(),
            arrival: 0.0,
            total_steps: 100.0,
            scale_factor: n,
            rate,
            resources: None,
            gpu_mem_mb: None,
        }
    }

    #[test]
    fn rules_on_a_hand_case() {
        // 4 workers: 3 on V100 (whole-job rate 8, so 2 per worker), 1 on K80 (rate 2: 0.5).
        let j = job(vec![8.0, 2.0], 4);
        assert_eq!(MixedRate::Slowest.copy_rate(&j, &[3, 1]), 4.0 * 0.5);
        assert_eq!(MixedRate::Sum.copy_rate(&j, &[3, 1]), 3.0 * 2.0 + 0.5);
        // One type: the measured rate, under both rules.
        for rule in [MixedRate::Slowest, MixedRate::Sum] {
            assert_eq!(rule.copy_rate(&j, &[4, 0]), 8.0);
            assert_eq!(rule.copy_rate(&j, &[0, 4]), 2.0);
            assert_eq!(rule.copy_rate(&j, &[0, 0]), 0.0);
        }
    }

    #[test]
    fn best_rate_mixes_only_when_one_type_is_too_small() {
        let cluster = Cluster::parse("v100=4,k80=4").unwrap();
        let small = job(vec![8.0, 2.0], 4);
        assert_eq!(MixedRate::Slowest.best_rate(&small, &cluster), 8.0);
        let big = job(vec![16.0, 4.0], 8); // 2 and 0.5 per worker
        assert_eq!(MixedRate::Slowest.best_rate(&big, &cluster), 4.0);
        assert_eq!(MixedRate::Sum.best_rate(&big, &cluster), 10.0);
        let huge = job(vec![16.0, 4.0], 9);
        assert_eq!(MixedRate::Sum.best_rate(&huge, &cluster), 0.0);
        assert!(MixedRate::parse("fastest").is_err());
        assert_eq!(MixedRate::parse(" sum ").unwrap(), MixedRate::Sum);
    }
}
