//! Synergy's mechanisms: schedules solved by hand, and invariants on random workloads.
//!
//! Profile figures quoted below are Synergy's (simulator/models/<model>_1.py, via the built-in
//! copy of ../shared/data/synergy/profiles.json): res50 ideal 4 CPUs, 62.5 GB, speedup 1.15,
//! iteration 0.78 s; mobilenet ideal 6 CPUs, 62.5 GB, speedup 1.55, 0.71 s; alexnet ideal
//! 12 CPUs, 125 GB, speedup 2.94, 0.6 s, matrix 1.75 at 6 CPUs; res18 ideal 9 CPUs, 62.5 GB,
//! speedup 2.4, 0.64 s, matrix 1.75 at 6 CPUs.

use fairground_sim::metrics::SimResult;
use fairground_sim::workload::{synergy, SynergyConfig};
use fairground_sim::{schedulers, simulate, Cluster, Job, Profiles, ServerShape, SimConfig};
use proptest::prelude::*;

mod common;
use common::{close, jcts};

/// A single-GPU job of `model` arriving at `arrival` that takes `seconds` at the proportional
/// share (Synergy's iterations = duration / iteration time).
fn job(id: usize, model: &str, arrival: f64, seconds: f64, shape: &ServerShape) -> Job {
    let profiles = Profiles::builtin();
    let iter = profiles.get(model).unwrap().iter_time_s;
    Job {
        id,
        tenant: model.into(),
        job_type: model.into(),
        arrival,
        total_steps: seconds / iter,
        scale_factor: 1,
        rate: vec![1.0 / iter],
        resources: Some(profiles.job_resources(model, 1, shape).unwrap()),
        gpu_mem_mb: None,
    }
}

fn run(shape: &str, jobs: &[Job], policy: &str) -> SimResult {
    let shape = ServerShape::parse(shape).unwrap();
    let gpus = shape.gpus;
    let cluster = Cluster::parse_shaped(&format!("gpu={gpus}"), &shape).unwrap();
    let config = SimConfig {
        round_s: 300.0,
        ..SimConfig::default()
    };
    let mut s = schedulers::by_name(policy, &config).unwrap();
    simulate(&cluster, jobs, s.as_mut(), &config, &mut |_, _| {}).unwrap()
}

/// One server of 2 GPUs, 6 CPUs, 125 GB (proportional share 3 CPUs, 62.5 GB per GPU). res50
/// (600 s at the share) arrives first, then mobilenet (900 s).
/// - proportional: both at the share, speed 1: JCTs 600 and 900.
/// - greedy: res50 at its ideal 4 CPUs (x1.15) leaves 2 CPUs, too few for mobilenet's 6, so
///   mobilenet waits; res50 finishes at 600 / 1.15 = 521.739 s; then mobilenet runs at its
///   ideal (x1.55): 521.739 + 900 / 1.55 = 1102.384 s.
/// - tune: mobilenet fits neither at its ideal nor at the share (2 CPUs free), so Tune takes
///   res50's extra CPU back: both at the share, speed 1, until res50 finishes at 600 s; then
///   mobilenet alone gets its ideal: 300 s of work left at x1.55, done at 600 + 193.548.
#[test]
fn tune_takes_back_cpus_so_both_jobs_run() {
    let shape = ServerShape::parse("2,6,125").unwrap();
    let jobs = [
        job(0, "res50", 0.0, 600.0, &shape),
        job(1, "mobilenet", 0.0, 900.0, &shape),
    ];
    let p = jcts(&run("2,6,125", &jobs, "synergy-proportional"));
    assert!(close(&p, &[600.0, 900.0]), "{p:?}");
    let g = jcts(&run("2,6,125", &jobs, "synergy-greedy"));
    assert!(
        close(&g, &[600.0 / 1.15, 600.0 / 1.15 + 900.0 / 1.55]),
        "{g:?}"
    );
    let t = jcts(&run("2,6,125", &jobs, "synergy-tune"));
    assert!(close(&t, &[600.0, 600.0 + 300.0 / 1.55]), "{t:?}");
}

/// One server of 4 GPUs, 12 CPUs, 500 GB (share 3 CPUs, 125 GB per GPU); alexnet then res18,
/// each 1750 s at the share. OPT's program, by hand: alexnet's cells at or above its share's
/// speed are 3 CPUs x1, 4 x1.25, 5 x1.53, 6 x1.75, 9 x2.0, 12 x2.94; res18's 3 x1, 4 x1.3,
/// 5 x1.53, 6 x1.75, 9 x2.4. With 12 CPUs between them the best pair is 6 + 6 (3.5; next
/// 3 + 9 = 3.4, 9 + 3 = 3.0, 12 + 0 is not allowed): both at x1.75, done at 1000 s.
/// Tune gives alexnet its 12 CPUs, then must take them back for res18: both at x1, 1750 s.
/// Greedy runs alexnet alone at x2.94 (595.238 s), then res18 at x2.4 (+729.167 s).
#[test]
fn opt_shares_cpus_where_tune_and_greedy_cannot() {
    let shape = ServerShape::parse("4,12,500").unwrap();
    let jobs = [
        job(0, "alexnet", 0.0, 1750.0, &shape),
        job(1, "res18", 0.0, 1750.0, &shape),
    ];
    let o = run("4,12,500", &jobs, "synergy-opt");
    assert!(close(&jcts(&o), &[1000.0, 1000.0]), "{:?}", jcts(&o));
    assert!(o.notes[0].contains("deployable"), "{:?}", o.notes);
    let held: Vec<f64> = o.gantt.iter().map(|b| b.cpus).collect();
    assert!(held.iter().all(|&c| c == 6.0), "6 CPUs each: {held:?}");
    let t = jcts(&run("4,12,500", &jobs, "synergy-tune"));
    assert!(close(&t, &[1750.0, 1750.0]), "{t:?}");
    let g = jcts(&run("4,12,500", &jobs, "synergy-greedy"));
    assert!(
        close(&g, &[1750.0 / 2.94, 1750.0 / 2.94 + 1750.0 / 2.4]),
        "{g:?}"
    );
}

/// Orderings: with one GPU, SRTF runs the shorter job first whatever the arrival order; FIFO
/// the earlier.
#[test]
fn orderings_pick_who_runs() {
    let shape = ServerShape::parse("1,3,62.5").unwrap();
    let jobs = [
        job(0, "gnmt", 0.0, 900.0, &shape),
        job(1, "gnmt", 0.0, 300.0, &shape),
    ];
    let fifo = jcts(&run("1,3,62.5", &jobs, "synergy-tune:fifo"));
    assert!(close(&fifo, &[900.0, 1200.0]), "{fifo:?}");
    let srtf = jcts(&run("1,3,62.5", &jobs, "synergy-tune:srtf"));
    assert!(close(&srtf, &[1200.0, 300.0]), "{srtf:?}");
}

#[test]
fn unknown_mechanisms_and_orders_are_named() {
    let config = SimConfig::default();
    let err = schedulers::by_name("synergy-tuned", &config).err().unwrap();
    assert!(
        err.to_string()
            .contains("unknown Synergy mechanism 'tuned'"),
        "{err}"
    );
    let err = schedulers::by_name("synergy-tune:lifo", &config)
        .err()
        .unwrap();
    assert!(err.to_string().contains("unknown ordering 'lifo'"), "{err}");
}

/// At any instant, what the Gantt bars on a server hold stays within its CPUs, memory and GPUs
/// (recomputed here from the bars, independently of the engine's own check): a sweep over bar
/// starts and ends, ends first at equal times.
fn within_capacity(cluster: &Cluster, r: &SimResult) -> Result<(), TestCaseError> {
    for (s, server) in cluster.servers.iter().enumerate() {
        let mut events: Vec<(f64, i8, f64, f64)> = Vec::new();
        for b in r.gantt.iter().filter(|b| b.server == s) {
            events.push((b.t0, 1, b.cpus, b.mem_gb));
            events.push((b.t1, -1, b.cpus, b.mem_gb));
        }
        events.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let (mut gpus, mut cpus, mut mem) = (0i64, 0.0, 0.0);
        for (t, sign, c, m) in events {
            gpus += i64::from(sign);
            cpus += f64::from(sign) * c;
            mem += f64::from(sign) * m;
            prop_assert!(
                cpus <= server.cpus + 1e-6,
                "{}: {cpus} CPUs on server {s} at {t}",
                &r.policy
            );
            prop_assert!(
                mem <= server.mem_gb + 1e-6,
                "{}: {mem} GB on server {s} at {t}",
                &r.policy
            );
            prop_assert!(
                gpus <= i64::from(server.gpus),
                "{}: GPUs overbooked on server {s} at {t}",
                &r.policy
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    #[test]
    fn every_mechanism_respects_servers_and_finishes_every_job(
        seed in 0u64..1000,
        multi_gpu in any::<bool>(),
        shape in prop::sample::select(vec!["8,24,500", "4,16,200", "8,12,500", "2,24,100"]),
        gpus in 4u32..20,
        order in prop::sample::select(vec!["fifo", "srtf", "las", "ftf", "drf", "tetris"]),
    ) {
        let shape = ServerShape::parse(shape).unwrap();
        let cluster = Cluster::parse_shaped(&format!("gpu={gpus}"), &shape).unwrap();
        let cfg = SynergyConfig { jobs: 20, jobs_per_hour: 20.0, split: [40.0, 40.0, 20.0], multi_gpu, seed };
        let jobs = synergy(&cfg, &Profiles::builtin(), &cluster.largest_server(), &cluster.types).unwrap();
        let config = SimConfig { round_s: 300.0, gantt_max_jobs: 100, ..SimConfig::default() };
        for mech in ["proportional", "greedy", "tune", "opt"] {
            let name = format!("synergy-{mech}:{order}");
            let mut s = schedulers::by_name(&name, &config).unwrap();
            let r = simulate(&cluster, &jobs, s.as_mut(), &config, &mut |_, _| {}).unwrap();
            let runnable = jobs.iter().filter(|j| j.scale_factor <= gpus).count();
            prop_assert_eq!(r.jobs_completed, runnable, "{}", &name);
            within_capacity(&cluster, &r)?;
            // Work is conserved: steps run at the speed the held CPUs and memory buy.
            for (job, out) in jobs.iter().zip(&r.jobs) {
                if out.finish_s.is_none() { continue; }
                let res = job.resources.as_ref().unwrap();
                let steps: f64 = r.gantt.iter().filter(|b| b.job == job.id).map(|b| {
                    (b.t1 - b.t0) * job.rate[0] * res.speedup(b.cpus, b.mem_gb) / f64::from(job.scale_factor)
                }).sum();
                prop_assert!((steps - job.total_steps).abs() <= 1e-6 * job.total_steps,
                    "{}: job {} ran {} of {} steps", &name, job.id, steps, job.total_steps);
            }
        }
    }
}

#[test]
fn synergy_workload_follows_the_split_and_round_robins_models() {
    let shape = ServerShape::default();
    let cfg = SynergyConfig {
        jobs: 1000,
        jobs_per_hour: 9.0,
        split: [20.0, 70.0, 10.0],
        multi_gpu: true,
        seed: 4,
    };
    let jobs = synergy(&cfg, &Profiles::builtin(), &shape, &["gpu".to_string()]).unwrap();
    let share = |task: &str| jobs.iter().filter(|j| j.tenant == task).count();
    assert_eq!(
        (share("image"), share("language"), share("speech")),
        (200, 700, 100)
    );
    let image: Vec<&str> = jobs
        .iter()
        .filter(|j| j.tenant == "image")
        .take(6)
        .map(|j| j.job_type.as_str())
        .collect();
    assert_eq!(
        image,
        [
            "alexnet",
            "res18",
            "res50",
            "mobilenet",
            "shufflenet",
            "alexnet"
        ]
    );
    let single = jobs.iter().filter(|j| j.scale_factor == 1).count() as f64 / 1000.0;
    assert!((single - 0.70).abs() < 0.05, "{single}");
    // Mean inter-arrival 400 s at 9 jobs/hour; durations at the share within 10^1.5..10^4 min.
    let gap = jobs.last().unwrap().arrival / 999.0;
    assert!((gap - 400.0).abs() < 40.0, "{gap}");
    for j in &jobs {
        let minutes = j.total_steps / j.rate[0] / 60.0;
        assert!((31.0..=10_001.0).contains(&minutes), "{minutes}");
    }
    assert_eq!(
        jobs,
        synergy(&cfg, &Profiles::builtin(), &shape, &["gpu".to_string()]).unwrap()
    );
}

/// `measure_ids` reports the range's JCT and stops once those jobs are done.
#[test]
fn steady_state_measurement_covers_the_id_range() {
    let shape = ServerShape::parse("1,3,62.5").unwrap();
    let jobs: Vec<Job> = (0..4)
        .map(|i| job(i, "gnmt", 0.0, 100.0 * (i + 1) as f64, &shape))
        .collect();
    let cluster = Cluster::parse_shaped("gpu=1", &shape).unwrap();
    let config = SimConfig {
        round_s: 300.0,
        measure_ids: Some((1, 3)),
        ..SimConfig::default()
    };
    let mut s = schedulers::by_name("synergy-tune", &config).unwrap();
    let r = simulate(&cluster, &jobs, s.as_mut(), &config, &mut |_, _| {}).unwrap();
    // FIFO on one GPU: finishes at 100, 300, 600, 1000; jobs 1 and 2 -> 300 and 600.
    let m = r.measured.unwrap();
    assert_eq!((m.jobs, m.completed), (2, 2));
    assert!((m.avg_jct_s - 450.0).abs() < 1e-6 && (m.p99_jct_s - 600.0).abs() < 1e-6);
    assert_eq!(
        r.jobs_unfinished, 1,
        "job 3 was still running when job 2 finished"
    );
    assert_eq!(r.jobs_completed, 3);
}

/// OPT's program against brute force: on one server, every assignment of a grid cell (or the
/// proportional share) to each job, within the server's CPUs and memory and each job at least its
/// share's speed, enumerated here; OPT's placements must reach the best total speedup.
#[test]
fn opt_matches_brute_force_on_small_rounds() {
    use fairground_sim::schedulers::{JobState, RoundView, Scheduler, Synergy};
    let models = [
        "alexnet",
        "res18",
        "res50",
        "mobilenet",
        "shufflenet",
        "gnmt",
        "m5",
        "deepspeech",
    ];
    let shapes = ["4,12,500", "4,16,250", "3,14,400", "4,10,300"];
    let mut seed: u64 = 7;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n
    };
    for case in 0..40 {
        let shape = ServerShape::parse(shapes[case % shapes.len()]).unwrap();
        let cluster = Cluster::parse_shaped(&format!("gpu={}", shape.gpus), &shape).unwrap();
        let count = 2 + next(shape.gpus as usize - 1);
        let jobs: Vec<Job> = (0..count)
            .map(|i| job(i, models[next(models.len())], 0.0, 1000.0, &shape))
            .collect();
        let active: Vec<JobState> = (0..count)
            .map(|i| JobState {
                job: i,
                remaining_steps: jobs[i].total_steps,
                attained_gpu_s: 0.0,
            })
            .collect();
        let view = RoundView {
            now: 0.0,
            round_s: 300.0,
            cluster: &cluster,
            jobs: &jobs,
            active: &active,
            last_round: &[],
            mixed_rate: Default::default(),
        };
        let mut opt = Synergy::parse("synergy-opt").unwrap().unwrap();
        let placed = opt.schedule(&view).unwrap();
        assert_eq!(placed.len(), count, "case {case}: every job runs");
        let got: f64 = placed
            .iter()
            .map(|p| {
                jobs[p.job]
                    .resources
                    .as_ref()
                    .unwrap()
                    .speedup(p.cpus_per_gpu, p.mem_gb_per_gpu)
            })
            .sum();
        // Brute force over each job's options.
        let (fair_c, fair_m) = shape.share_per_gpu();
        let options: Vec<Vec<(f64, f64, f64)>> = jobs
            .iter()
            .map(|j| {
                let r = j.resources.as_ref().unwrap();
                let floor = r.speedup(fair_c, fair_m);
                let mut o = vec![(fair_c, fair_m, floor)];
                for &c in &r.cpu_rows {
                    for &m in &r.mem_cols_gb {
                        o.push((c, m, r.speedup(c, m)));
                    }
                }
                o.push((
                    r.ideal_cpus_per_gpu,
                    r.ideal_mem_gb_per_gpu,
                    r.speedup_at_ideal,
                ));
                o.retain(|x| x.2 >= floor);
                o
            })
            .collect();
        let mut best = 0.0f64;
        let mut pick = vec![0usize; count];
        loop {
            let (c, m, v) = pick
                .iter()
                .enumerate()
                .fold((0.0, 0.0, 0.0), |(c, m, v), (k, &i)| {
                    let o = options[k][i];
                    (c + o.0, m + o.1, v + o.2)
                });
            if c <= shape.cpus + 1e-9 && m <= shape.mem_gb + 1e-9 {
                best = best.max(v);
            }
            let mut k = 0;
            while k < count {
                pick[k] += 1;
                if pick[k] < options[k].len() {
                    break;
                }
                pick[k] = 0;
                k += 1;
            }
            if k == count {
                break;
            }
        }
        assert!(
            (got - best).abs() < 1e-9,
            "case {case}: OPT {got} vs brute force {best} on {:?}",
            jobs.iter().map(|j| j.job_type.as_str()).collect::<Vec<_>>()
        );
    }
}
