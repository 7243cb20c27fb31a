//! Criterion benchmarks of the policies at the sizes issue 3 names (figures in BENCHMARKS.md).
//! Sizes whose single solve takes seconds are timed once with `examples/time_policy.rs`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use fairground_core::policies::{EfRows, GavelLas, OefCoop};
use fairground_core::presets::random_scenario;
use fairground_core::Policy;
use std::hint::black_box;

fn oef_coop(c: &mut Criterion) {
    let mut group = c.benchmark_group("oef-coop");
    group.sample_size(10);
    for (n, k) in [(10, 4), (30, 6), (50, 8), (100, 8), (200, 8)] {
        let inst = random_scenario(n, k, 1, false).instance().unwrap();
        group.bench_with_input(
            BenchmarkId::new("lazy-ef", format!("{n}x{k}")),
            &inst,
            |b, inst| {
                b.iter(|| {
                    OefCoop {
                        ef_rows: EfRows::Lazy,
                    }
                    .solve(black_box(inst))
                    .unwrap()
                })
            },
        );
        if n <= 50 {
            group.bench_with_input(
                BenchmarkId::new("full-ef", format!("{n}x{k}")),
                &inst,
                |b, inst| {
                    b.iter(|| {
                        OefCoop {
                            ef_rows: EfRows::Full,
                        }
                        .solve(black_box(inst))
                        .unwrap()
                    })
                },
            );
        }
    }
    group.finish();
}

fn gavel_las(c: &mut Criterion) {
    let mut group = c.benchmark_group("gavel-las");
    group.sample_size(10);
    for jobs in [256, 2048] {
        let inst = random_scenario(jobs, 3, 1, true).instance().unwrap();
        group.bench_with_input(
            BenchmarkId::from_parameter(format!("{jobs}x3")),
            &inst,
            |b, inst| b.iter(|| GavelLas.solve(black_box(inst)).unwrap()),
        );
    }
    group.finish();
}

criterion_group!(benches, oef_coop, gavel_las);
criterion_main!(benches);
