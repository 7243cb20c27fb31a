//! Criterion benchmarks of the policies at the sizes issue 3 names (figures in BENCHMARKS.md).
//! Sizes whose single solve takes seconds are timed once with `examples/time_policy.rs`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use fairground_core::frontier;
use fairground_core::policies::{EfRows, GavelLas, NashWelfare, OefCoop, PartialAllocation};
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

/// Issue 14: Nash welfare at 100 x 8 (target < 0.5 s natively) and 30 x 6 (the browser's case,
/// < 50 ms there); partial allocation (n + 1 Nash-welfare solves) and the frontier at 30 x 6.
fn market_and_frontier(c: &mut Criterion) {
    let mut group = c.benchmark_group("nash-welfare");
    group.sample_size(10);
    for (n, k) in [(30, 6), (100, 8)] {
        let inst = random_scenario(n, k, 1, false).instance().unwrap();
        group.bench_with_input(
            BenchmarkId::from_parameter(format!("{n}x{k}")),
            &inst,
            |b, inst| b.iter(|| NashWelfare.solve(black_box(inst)).unwrap()),
        );
    }
    group.finish();
    let inst = random_scenario(30, 6, 1, false).instance().unwrap();
    let mut group = c.benchmark_group("30x6");
    group.sample_size(10);
    group.bench_function("partial-allocation", |b| {
        b.iter(|| PartialAllocation.solve(black_box(&inst)).unwrap())
    });
    group.bench_function("frontier-step-0.05", |b| {
        b.iter(|| frontier::frontier(black_box(&inst), 0.05).unwrap())
    });
    group.finish();
}

criterion_group!(benches, oef_coop, gavel_las, market_and_frontier);
criterion_main!(benches);
