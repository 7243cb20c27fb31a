//! Families of random scenarios for judging a solver's worst case, not its average on one shape
//! (issue 77): oef-coop's static solve over groups was fast on [`super::random_scenario`]'s
//! uniform throughputs and ran for more than 25 minutes on sorted speedups. `cargo xtask
//! bench-oef --corpus` times every family on a grid of sizes, and oef-coop's tests draw their
//! regression cases from here. Seeded: the same family, size and seed give the same scenario.

use super::{random_scenario_of, random_tenant, GAVEL_MEASURED, TODAYS_MODELS};
use crate::{GpuType, Scenario};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A family of scenarios, by how its throughputs (and weights, caps) are drawn. Every family
/// gives each type 4 to 32 GPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Each throughput uniform in [1, 8), independently.
    Uniform,
    /// Each tenant a base speed in [0.5, 4) times speedups uniform in [1, 5), sorted so type 0
    /// is its slowest (speedup 1) and the last its fastest: every tenant ranks the types alike
    /// (the shape issue 77 found the tail on).
    Sorted,
    /// Each type a common speed in [1, 6) that every tenant sees times its own noise in
    /// [0.7, 1.4): speedups correlated across tenants, not sorted.
    Correlated,
    /// Six archetypes drawn uniform in [1, 8), each tenant a copy of one (many tenants alike).
    Alike,
    /// Uniform in [1, 4), but the last one or two types (by seed) 10 to 40 times faster for
    /// each tenant.
    FastTypes,
    /// Uniform throughputs, a third of the tenants capped at 1 to 4 GPUs (a control: capped
    /// scenarios go to the lazy program).
    Capped,
    /// Uniform throughputs with weights uniform in [0.25, 4).
    Weighted,
    /// Integers 1 to 4: many ties within a row and many equal rows.
    IntegerTies,
    /// Gavel's six measured models (K80, P100, V100) resampled: each type one of the three
    /// columns times a factor in [0.8, 1.25), each tenant one of the models times noise in
    /// [0.9, 1.1) per cell.
    Gavel,
    /// Lambda's ten models on today's six GPUs resampled the same way.
    Todays,
}

impl Family {
    pub const ALL: [Family; 10] = [
        Family::Uniform,
        Family::Sorted,
        Family::Correlated,
        Family::Alike,
        Family::FastTypes,
        Family::Capped,
        Family::Weighted,
        Family::IntegerTies,
        Family::Gavel,
        Family::Todays,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Family::Uniform => "uniform",
            Family::Sorted => "sorted",
            Family::Correlated => "correlated",
            Family::Alike => "alike",
            Family::FastTypes => "fast-types",
            Family::Capped => "capped",
            Family::Weighted => "weighted",
            Family::IntegerTies => "integer-ties",
            Family::Gavel => "gavel",
            Family::Todays => "todays",
        }
    }

    pub fn by_name(name: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The family's scenario of `tenants` x `types` for `seed`.
    pub fn scenario(self, tenants: usize, types: usize, seed: u64) -> Scenario {
        // The family's index in the seed, so two families never share a stream.
        let family = Family::ALL.iter().position(|&f| f == self).unwrap_or(0) as u64;
        let mut rng = StdRng::seed_from_u64(seed.wrapping_mul(1_000_003).wrapping_add(family));
        let gpu_types = (0..types)
            .map(|j| GpuType {
                name: format!("type{j}"),
                count: rng.random_range(4..=32),
            })
            .collect();
        let rows = self.throughputs(&mut rng, tenants, types);
        let tenants = rows
            .into_iter()
            .enumerate()
            .map(|(i, throughput)| {
                let weight = match self {
                    Family::Weighted => rng.random_range(0.25..4.0),
                    _ => 1.0,
                };
                let max_gpus = (self == Family::Capped && i % 3 == 0)
                    .then(|| f64::from(rng.random_range(1..=4u32)));
                random_tenant(i, throughput, weight, max_gpus)
            })
            .collect();
        random_scenario_of(gpu_types, tenants)
    }

    fn throughputs(self, rng: &mut StdRng, n: usize, k: usize) -> Vec<Vec<f64>> {
        let uniform = |rng: &mut StdRng, lo: f64, hi: f64| -> Vec<f64> {
            (0..k).map(|_| rng.random_range(lo..hi)).collect()
        };
        match self {
            Family::Uniform | Family::Capped | Family::Weighted => {
                (0..n).map(|_| uniform(rng, 1.0, 8.0)).collect()
            }
            Family::Sorted => (0..n)
                .map(|_| {
                    let base = rng.random_range(0.5..4.0);
                    let mut up = uniform(rng, 1.0, 5.0);
                    up[0] = 1.0;
                    up.sort_by(f64::total_cmp);
                    up.into_iter().map(|s| base * s).collect()
                })
                .collect(),
            Family::Correlated => {
                let common = uniform(rng, 1.0, 6.0);
                (0..n)
                    .map(|_| {
                        common
                            .iter()
                            .map(|c| c * rng.random_range(0.7..1.4))
                            .collect()
                    })
                    .collect()
            }
            Family::Alike => {
                let archetypes: Vec<Vec<f64>> = (0..6).map(|_| uniform(rng, 1.0, 8.0)).collect();
                (0..n)
                    .map(|_| archetypes[rng.random_range(0..archetypes.len())].clone())
                    .collect()
            }
            Family::FastTypes => {
                let fast = rng.random_range(1..=2usize).min(k - 1);
                (0..n)
                    .map(|_| {
                        let mut row = uniform(rng, 1.0, 4.0);
                        for t in &mut row[k - fast..] {
                            *t *= rng.random_range(10.0..40.0);
                        }
                        row
                    })
                    .collect()
            }
            Family::IntegerTies => (0..n)
                .map(|_| {
                    (0..k)
                        .map(|_| f64::from(rng.random_range(1..=4u32)))
                        .collect()
                })
                .collect(),
            Family::Gavel => {
                let models: Vec<&[f64]> = GAVEL_MEASURED.iter().map(|(_, r)| &r[..]).collect();
                resampled(rng, &models, n, k)
            }
            Family::Todays => {
                let models: Vec<&[f64]> = TODAYS_MODELS.iter().map(|(_, r)| &r[..]).collect();
                resampled(rng, &models, n, k)
            }
        }
    }
}

/// `n` tenants on `k` types from a table of models' measured rows: type j is one of the table's
/// columns (drawn) times a factor in [0.8, 1.25), each tenant one of the models (drawn) times
/// noise in [0.9, 1.1) per cell.
fn resampled(rng: &mut StdRng, models: &[&[f64]], n: usize, k: usize) -> Vec<Vec<f64>> {
    let columns = models[0].len();
    let types: Vec<(usize, f64)> = (0..k)
        .map(|_| (rng.random_range(0..columns), rng.random_range(0.8..1.25)))
        .collect();
    (0..n)
        .map(|_| {
            let model = models[rng.random_range(0..models.len())];
            types
                .iter()
                .map(|&(c, f)| model[c] * f * rng.random_range(0.9..1.1))
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every family's scenarios are valid at the grid's corners, reproducible, and differ
    /// between seeds and families.
    #[test]
    fn every_family_is_valid_and_seeded() {
        for family in Family::ALL {
            for (n, k) in [(150, 2), (12, 12), (3, 4)] {
                let a = family.scenario(n, k, 7);
                assert!(a.instance().is_ok(), "{} {n} x {k}", family.name());
                assert_eq!(a, family.scenario(n, k, 7));
                assert_ne!(a, family.scenario(n, k, 8), "{}", family.name());
            }
            assert_eq!(Family::by_name(family.name()), Some(family));
        }
        assert_ne!(
            Family::Uniform.scenario(10, 3, 1),
            Family::Weighted.scenario(10, 3, 1)
        );
    }

    /// What each family promises of its rows: sorted rows ascend from 1, capped tenants are
    /// a third, integer rows are integers in 1..=4, alike rows take at most six values.
    #[test]
    fn families_have_their_shapes() {
        let sorted = Family::Sorted.scenario(40, 8, 1);
        for t in &sorted.tenants {
            let s: Vec<f64> = t.throughput.iter().map(|x| x / t.throughput[0]).collect();
            assert!((s[0] - 1.0).abs() < 1e-12);
            assert!(s.windows(2).all(|w| w[0] <= w[1]), "{s:?}");
        }
        let capped = Family::Capped.scenario(30, 4, 1);
        assert_eq!(
            capped
                .tenants
                .iter()
                .filter(|t| t.max_gpus.is_some())
                .count(),
            10
        );
        let ties = Family::IntegerTies.scenario(30, 4, 1);
        assert!(ties
            .tenants
            .iter()
            .flat_map(|t| &t.throughput)
            .all(|&x| x.fract() == 0.0 && (1.0..=4.0).contains(&x)));
        let alike = Family::Alike.scenario(60, 4, 1);
        let mut rows: Vec<&Vec<f64>> = alike.tenants.iter().map(|t| &t.throughput).collect();
        rows.dedup();
        rows.sort_by(|a, b| a.partial_cmp(b).unwrap());
        rows.dedup();
        assert!(rows.len() <= 6);
    }
}
