//! Hadar and HadarE: hand-solved schedules (a job spread over two GPU types; a job forked into
//! copies), and invariants over random workloads checked from the Gantt bars alone, against
//! rates recomputed here from the mixed-type rules' definitions.

mod common;

use fairground_sim::metrics::{GanttBar, SimResult};
use fairground_sim::schedulers::{by_name, Hadar};
use fairground_sim::{simulate, Cluster, Job, MixedRate, ServerShape, SimConfig};
use proptest::prelude::*;
use std::collections::BTreeMap;

fn job(id: usize, arrival: f64, steps: f64, n: u32, rate: Vec<f64>) -> Job {
    Job {
        id,
        tenant: format!("t{id}"),
        job_type: "m".into(),
        arrival,
        total_steps: steps,
        scale_factor: n,
        rate,
        resources: None,
        gpu_mem_mb: None,
    }
}

fn run(policy: &str, cluster: &Cluster, jobs: &[Job], config: &SimConfig) -> SimResult {
    let mut s = by_name(policy, config).unwrap();
    simulate(cluster, jobs, s.as_mut(), config, &mut |_, _| {}).unwrap()
}

/// An 8-GPU job on 4 V100 + 4 P100 + 4 K80 (servers of 4), whole-job rates 4 / 2 / 1 steps/s,
/// 7,200 steps. No single type has 8 GPUs, so Gavel's policies cannot run it; Hadar takes the
/// 4 V100s and 4 P100s. Slowest rule: 8 x min(4, 2) / 8 = 2 steps/s, 3,600 s. Sum rule:
/// 4 x 4/8 + 4 x 2/8 = 3 steps/s, 2,400 s.
#[test]
fn a_job_too_big_for_any_type_runs_across_two() {
    let shape = ServerShape::parse("4,16,256").unwrap();
    let cluster = Cluster::parse_shaped("v100=4,p100=4,k80=4", &shape).unwrap();
    let jobs = vec![job(0, 0.0, 7200.0, 8, vec![4.0, 2.0, 1.0])];
    for (rule, jct) in [(MixedRate::Slowest, 3600.0), (MixedRate::Sum, 2400.0)] {
        let config = SimConfig {
            mixed_rate: rule,
            ..SimConfig::default()
        };
        let r = run("hadar", &cluster, &jobs, &config);
        assert!(
            common::close(&common::jcts(&r), &[jct]),
            "{rule}: {:?}",
            r.jobs
        );
        // The Gantt shows it on the V100 and the P100 servers, never the K80s.
        let mut servers: Vec<usize> = r.gantt.iter().map(|b| b.server).collect();
        servers.sort_unstable();
        servers.dedup();
        assert_eq!(servers, [0, 1], "{rule}");
        let gavel = run("gavel-las", &cluster, &jobs, &config);
        assert_eq!(gavel.jobs_unschedulable, [0]);
    }
}

/// One 1-GPU job (1 step/s, 3,600 steps) on three 1-GPU V100 servers. Hadar: one GPU, 3,600 s.
/// HadarE: three copies at 3 steps/s, less 10 s a round to combine them: 3 x 350 = 1,050
/// steps a round, 3,150 after three rounds; the last 450 take 10 + 150 s: 1,240 s.
#[test]
fn hadare_forks_a_job_over_idle_servers() {
    let shape = ServerShape::parse("1,4,64").unwrap();
    let cluster = Cluster::parse_shaped("v100=3", &shape).unwrap();
    let jobs = vec![job(0, 0.0, 3600.0, 1, vec![1.0])];
    let config = SimConfig::default();
    assert_eq!(config.sync_overhead_s, 10.0);
    assert!(common::close(
        &common::jcts(&run("hadar", &cluster, &jobs, &config)),
        &[3600.0]
    ));
    let forked = run("hadare", &cluster, &jobs, &config);
    assert!(
        common::close(&common::jcts(&forked), &[1240.0]),
        "{:?}",
        forked.jobs
    );
    let copies: Vec<u32> = forked
        .gantt
        .iter()
        .filter(|b| b.t0 == 0.0)
        .map(|b| b.copy)
        .collect();
    assert_eq!(copies, [0, 1, 2]);
    // A sync overhead that eats the gain is not worth forking for: 1 x 360 >= 2 x (360 - 180).
    let dear = SimConfig {
        sync_overhead_s: 180.0,
        ..SimConfig::default()
    };
    let r = run("hadare", &cluster, &jobs, &dear);
    assert!(common::close(&common::jcts(&r), &[3600.0]), "{:?}", r.jobs);
}

/// Shortest remaining first: a short job that arrives behind a long one on a single GPU runs
/// first under `hadar`, after it under `hadar:arrival`.
#[test]
fn turn_order_decides_who_runs_first() {
    let cluster = Cluster::parse("v100=1").unwrap();
    let jobs = vec![
        job(0, 0.0, 36_000.0, 1, vec![1.0]),
        job(1, 0.0, 360.0, 1, vec![1.0]),
    ];
    let config = SimConfig::default();
    let srtf = run("hadar", &cluster, &jobs, &config);
    assert!(common::close(&common::jcts(&srtf), &[36_360.0, 360.0]));
    let fifo = run("hadar:arrival", &cluster, &jobs, &config);
    assert!(common::close(&common::jcts(&fifo), &[36_000.0, 36_360.0]));
    assert!(Hadar::parse("hadar:fastest", 10.0).is_none());
}

#[test]
fn bad_options_are_refused_with_the_reason() {
    let cluster = Cluster::parse("v100=1").unwrap();
    let jobs = vec![job(0, 0.0, 10.0, 1, vec![1.0])];
    for overhead in [-1.0, 360.0, f64::NAN] {
        let config = SimConfig {
            sync_overhead_s: overhead,
            ..SimConfig::default()
        };
        let mut s = by_name("hadare", &config).unwrap();
        let err = simulate(&cluster, &jobs, s.as_mut(), &config, &mut |_, _| {}).unwrap_err();
        assert!(err.to_string().contains("sync overhead"), "{err}");
    }
}

/// Steps/s of one round's bars of a job, recomputed from the definitions: per copy, `slowest`
/// = GPUs x the slowest type's whole-job rate / n, `sum` = the sum over GPUs of rate / n;
/// copies add up.
fn rate_from_bars(job: &Job, cluster: &Cluster, bars: &[&GanttBar], rule: MixedRate) -> f64 {
    let n = f64::from(job.scale_factor);
    let mut copies: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
    for b in bars {
        copies
            .entry(b.copy)
            .or_default()
            .push(job.rate[cluster.servers[b.server].gpu_type]);
    }
    copies
        .values()
        .map(|rates| match rule {
            MixedRate::Slowest => {
                rates.len() as f64 * rates.iter().copied().fold(f64::INFINITY, f64::min) / n
            }
            MixedRate::Sum => rates.iter().sum::<f64>() / n,
        })
        .sum()
}

/// The fastest one copy can go: the job's GPUs taken from its fastest types first.
fn fastest_copy(job: &Job, cluster: &Cluster, rule: MixedRate) -> f64 {
    let mut per_gpu: Vec<f64> = Vec::new();
    for (h, r) in job.rate.iter().enumerate() {
        if *r > 0.0 {
            per_gpu.extend(std::iter::repeat_n(*r, cluster.gpus_of_type(h) as usize));
        }
    }
    per_gpu.sort_by(|a, b| b.total_cmp(a));
    let top = &per_gpu[..job.scale_factor as usize];
    let n = f64::from(job.scale_factor);
    match rule {
        MixedRate::Slowest => top.len() as f64 * top[top.len() - 1] / n,
        MixedRate::Sum => top.iter().sum::<f64>() / n,
    }
}

fn workload() -> impl Strategy<Value = (String, u32, Vec<Job>)> {
    (
        proptest::collection::vec(1u32..=5, 1..=3),
        1u32..=4,
        proptest::collection::vec(
            (
                0.0..3000.0f64,
                100.0..20_000.0f64,
                1u32..=4,
                proptest::collection::vec(0.0..4.0f64, 3),
            ),
            1..=12,
        ),
    )
        .prop_map(|(counts, per_server, specs)| {
            let spec: Vec<String> = counts
                .iter()
                .enumerate()
                .map(|(h, c)| format!("t{h}={c}"))
                .collect();
            let types = counts.len();
            let jobs = specs
                .into_iter()
                .enumerate()
                .map(|(id, (arrival, steps, n, mut rates))| {
                    rates.truncate(types);
                    // Every job runs on the first type; on others, maybe not at all.
                    for (h, r) in rates.iter_mut().enumerate() {
                        *r = if h > 0 && *r < 0.3 { 0.0 } else { r.max(0.5) };
                    }
                    job(id, arrival.round(), steps.round(), n, rates)
                })
                .collect();
            (spec.join(","), per_server, jobs)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    /// No GPU booked twice at once, no two copies of a job on one server, no job faster than
    /// its fastest possible placement (per copy), and every finished job's bars account for
    /// exactly its steps: the sum over rounds of (rate from the bars) x (time held, less the
    /// sync overhead in rounds it ran as copies).
    #[test]
    fn hadar_schedules_keep_the_invariants(
        (spec, per_server, jobs) in workload(),
        fork in any::<bool>(),
        sum in any::<bool>(),
        sync in 0.0..60.0f64,
    ) {
        let shape = ServerShape::parse(&format!("{per_server},32,256")).unwrap();
        let cluster = Cluster::parse_shaped(&spec, &shape).unwrap();
        let rule = if sum { MixedRate::Sum } else { MixedRate::Slowest };
        let config = SimConfig {
            mixed_rate: rule,
            sync_overhead_s: sync,
            gantt_max_jobs: 100,
            ..SimConfig::default()
        };
        let policy = if fork { "hadare" } else { "hadar" };
        let r = run(policy, &cluster, &jobs, &config);
        // A job can run when the types it runs on have its GPUs between them.
        let runnable = jobs
            .iter()
            .filter(|j| {
                let gpus: u32 = (0..j.rate.len())
                    .filter(|&h| j.rate[h] > 0.0)
                    .map(|h| cluster.gpus_of_type(h))
                    .sum();
                gpus >= j.scale_factor
            })
            .count();
        prop_assert_eq!(r.jobs_completed, runnable);

        // No GPU double-booked.
        let mut by_gpu: BTreeMap<(usize, u32), Vec<(f64, f64)>> = BTreeMap::new();
        for b in &r.gantt {
            by_gpu.entry((b.server, b.gpu)).or_default().push((b.t0, b.t1));
        }
        for spans in by_gpu.values_mut() {
            spans.sort_by(|a, b| a.0.total_cmp(&b.0));
            for w in spans.windows(2) {
                prop_assert!(w[1].0 >= w[0].1 - 1e-9, "overlap {:?}", w);
            }
        }
        // Per job and round: copies on distinct servers, no faster than possible, progress.
        let mut rounds: BTreeMap<(usize, u64), Vec<&GanttBar>> = BTreeMap::new();
        for b in &r.gantt {
            rounds.entry((b.job, b.t0.to_bits())).or_default().push(b);
        }
        let mut done: BTreeMap<usize, f64> = BTreeMap::new();
        for ((id, _), bars) in &rounds {
            let j = &jobs[*id];
            let mut server_copy: BTreeMap<usize, u32> = BTreeMap::new();
            for b in bars {
                let copy = *server_copy.entry(b.server).or_insert(b.copy);
                prop_assert_eq!(copy, b.copy, "two copies of job {} on server {}", id, b.server);
            }
            let copies = bars.iter().map(|b| b.copy).max().unwrap() + 1;
            if !fork {
                prop_assert_eq!(copies, 1);
            }
            let rate = rate_from_bars(j, &cluster, bars, rule);
            prop_assert!(rate <= f64::from(copies) * fastest_copy(j, &cluster, rule) * (1.0 + 1e-9));
            let held = bars[0].t1 - bars[0].t0;
            let lost = if copies > 1 { sync } else { 0.0 };
            *done.entry(*id).or_default() += rate * (held - lost).max(0.0);
        }
        for o in &r.jobs {
            if o.finish_s.is_some() {
                let steps = done.get(&o.id).copied().unwrap_or(0.0);
                let want = jobs[o.id].total_steps;
                prop_assert!((steps - want).abs() <= 1e-6 * want, "job {}: {} of {}", o.id, steps, want);
            }
        }
    }
}

/// Round starts (from the bars) at which a GPU sat idle while a job that could use it waited:
/// the job had arrived, had not finished, held no GPU, and the idle GPUs of the types it runs
/// on were enough for its scale factor (Hadar may mix types). Recomputed from the bars and the
/// jobs alone.
fn idle_while_waiting(r: &SimResult, cluster: &Cluster, jobs: &[Job]) -> Vec<f64> {
    let mut starts: Vec<f64> = r.gantt.iter().map(|b| b.t0).collect();
    starts.sort_by(f64::total_cmp);
    starts.dedup();
    let finish: BTreeMap<usize, Option<f64>> = r.jobs.iter().map(|o| (o.id, o.finish_s)).collect();
    let mut found = Vec::new();
    for &t in &starts {
        let here: Vec<&GanttBar> = r.gantt.iter().filter(|b| b.t0 == t).collect();
        let mut free: Vec<u32> = (0..cluster.types.len())
            .map(|h| cluster.gpus_of_type(h))
            .collect();
        let mut busy: std::collections::BTreeSet<(usize, u32)> = Default::default();
        for b in &here {
            if busy.insert((b.server, b.gpu)) {
                free[cluster.servers[b.server].gpu_type] -= 1;
            }
        }
        let running: std::collections::BTreeSet<usize> = here.iter().map(|b| b.job).collect();
        let waits = jobs.iter().any(|j| {
            let active = j.arrival <= t
                && finish
                    .get(&j.id)
                    .is_some_and(|f| f.is_none_or(|f| f > t + 1e-9));
            let usable: u32 = (0..cluster.types.len())
                .filter(|&h| j.rate[h] > 0.0)
                .map(|h| free[h])
                .sum();
            active && !running.contains(&j.id) && usable >= j.scale_factor
        });
        if waits {
            found.push(t);
        }
    }
    found
}

/// The strict template leaves the K80 idle while the second job waits for the V100 (a K80 is
/// worth too little at the prices); with the backfill the second job takes the K80 at once.
#[test]
fn the_backfill_uses_gpus_the_prices_leave_idle() {
    let cluster = Cluster::parse("v100=1,k80=1").unwrap();
    let jobs = vec![
        job(0, 0.0, 36_000.0, 1, vec![4.0, 0.5]),
        job(1, 0.0, 36_000.0, 1, vec![4.0, 0.5]),
    ];
    let config = SimConfig {
        gantt_max_jobs: 100,
        ..SimConfig::default()
    };
    let strict = run("hadar:strict", &cluster, &jobs, &config);
    let idle_rounds = idle_while_waiting(&strict, &cluster, &jobs);
    assert!(!idle_rounds.is_empty());
    // The engine's own count: one idle K80 for each such 360-s round (the strict template runs
    // job 1 there for 6 rounds, then lets it wait for the V100 for the 19 left of job 0's
    // 9,000 s), 1.9 GPU-hours.
    assert!(
        (strict.idle_while_waiting_gpu_h - idle_rounds.len() as f64 * 0.1).abs() < 1e-9,
        "{} against {idle_rounds:?}",
        strict.idle_while_waiting_gpu_h
    );
    assert!(strict
        .notes
        .iter()
        .any(|n| n.contains("strict template, no backfill")));
    let hadar = run("hadar", &cluster, &jobs, &config);
    assert!(idle_while_waiting(&hadar, &cluster, &jobs).is_empty());
    assert_eq!(hadar.idle_while_waiting_gpu_h, 0.0);
    // Both start at once, job 1 on the K80.
    assert!(
        hadar.jobs.iter().all(|o| o.start_s == Some(0.0)),
        "{:?}",
        hadar.jobs
    );
    assert!(
        hadar.notes.iter().any(|n| n.contains("by the backfill")),
        "{:?}",
        hadar.notes
    );
    assert!(Hadar::parse("hadar:arrival:strict", 10.0).is_some());
    assert!(Hadar::parse("hadar:strict:arrival", 10.0).is_none());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    /// Work conservation, from the Gantt bars: at no round start is a GPU idle while a job that
    /// could use it waits, for hadar and hadare under either mixed-type rule.
    #[test]
    fn no_gpu_idles_while_a_fitting_job_waits(
        (spec, per_server, jobs) in workload(),
        fork in any::<bool>(),
        sum in any::<bool>(),
    ) {
        let shape = ServerShape::parse(&format!("{per_server},32,256")).unwrap();
        let cluster = Cluster::parse_shaped(&spec, &shape).unwrap();
        let config = SimConfig {
            mixed_rate: if sum { MixedRate::Sum } else { MixedRate::Slowest },
            gantt_max_jobs: 100,
            ..SimConfig::default()
        };
        let policy = if fork { "hadare" } else { "hadar" };
        let r = run(policy, &cluster, &jobs, &config);
        let idle = idle_while_waiting(&r, &cluster, &jobs);
        prop_assert!(idle.is_empty(), "{policy}: idle GPUs while a job waited at {idle:?}");
        // The engine's own count agrees (a job that fits one type's idle GPUs fits the mix).
        prop_assert_eq!(r.idle_while_waiting_gpu_h, 0.0);
    }
}
