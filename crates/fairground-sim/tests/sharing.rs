//! GPU sharing (SJF-BSBF, SJF-FFS) and Tiresias: schedules solved by hand, and invariants.

use fairground_sim::metrics::SimResult;
use fairground_sim::schedulers::{JobState, Ran, RoundView, Scheduler, Tiresias};
use fairground_sim::sharing::{Accumulation, Interference};
use fairground_sim::workload::{synthetic, SyntheticConfig};
use fairground_sim::{schedulers, simulate, Cluster, Job, SimConfig, ThroughputTable};
use proptest::prelude::*;

mod common;
use common::{close, jcts};

fn job(id: usize, model: &str, arrival: f64, seconds: f64, mem_mb: f64) -> Job {
    Job {
        id,
        tenant: format!("t{id}"),
        job_type: model.into(),
        arrival,
        total_steps: seconds,
        scale_factor: 1,
        rate: vec![1.0],
        resources: None,
        gpu_mem_mb: Some(mem_mb),
    }
}

/// A and B slow each other down 1.2x on a V100 (alone 1.2 steps/s, 1.0 sharing).
fn measured() -> Interference {
    Interference::from_gavel_json(
        r#"{"v100": {"('A', 1)": {"null": 1.2, "('B', 1)": [1.0, 1.0]},
                     "('B', 1)": {"null": 1.2, "('A', 1)": [1.0, 1.0]}}}"#,
    )
    .unwrap()
}

fn run(jobs: &[Job], policy: &str, interference: Interference, gpu_gb: f64) -> SimResult {
    let mut cluster = Cluster::parse("v100=1").unwrap();
    cluster.gpu_memory_gb = vec![gpu_gb];
    let config = SimConfig {
        round_s: 60.0,
        interference,
        ..SimConfig::default()
    };
    let mut s = schedulers::by_name(policy, &config).unwrap();
    simulate(&cluster, jobs, s.as_mut(), &config, &mut |_, _| {}).unwrap()
}

/// B (3000 s alone) starts at 0; A (600 s) arrives at 30 and is considered at 60, when
/// E_b = 2940, E_a = 600, xi = 1.2 both: xi_a E_a = 720 < xi_b E_b = 3528, so
/// T_con = 2940 / 2 + (1 - 1 / 2.4) x 720 = 1890 < T_seq = 2940 + 300 = 3240: share.
/// A runs at 1 / 1.2 and ends at 60 + 720 = 780 (JCT 750); B did 600 s of its work meanwhile,
/// then runs alone: 780 + 2340 = 3120.
#[test]
fn bsbf_shares_when_it_lowers_the_pairs_mean_jct() {
    let jobs = [
        job(0, "B", 0.0, 3000.0, 6000.0),
        job(1, "A", 30.0, 600.0, 6000.0),
    ];
    let r = run(&jobs, "sjf-bsbf", measured(), 16.0);
    assert!(close(&jcts(&r), &[3120.0, 750.0]), "{:?}", jcts(&r));
    let shared = r.gantt.iter().filter(|b| b.slowdown == Some(1.2)).count();
    assert!(
        shared > 0,
        "the Gantt bars record the sharing and its slowdown"
    );
}

/// Equal remaining work (B: 1060 s, 1000 left at 60; A: 1000 s) and no measured pair (the
/// documented fallback, 2x each): T_con = 500 + (1 - 1/4) x 2000 = 2000 > T_seq = 1500, so BSBF
/// waits: B ends at 1060, A runs 1060..2060 (JCT 2030). FFS shares anyway: both at half speed,
/// both end at 60 + 2000 = 2060 (JCTs 2060 and 2030).
#[test]
fn bsbf_waits_where_sharing_would_not_pay_and_ffs_does_not() {
    let jobs = [
        job(0, "B", 0.0, 1060.0, 6000.0),
        job(1, "A", 30.0, 1000.0, 6000.0),
    ];
    let bsbf = run(&jobs, "sjf-bsbf", Interference::default(), 16.0);
    assert!(close(&jcts(&bsbf), &[1060.0, 2030.0]), "{:?}", jcts(&bsbf));
    let ffs = run(&jobs, "sjf-ffs", Interference::default(), 16.0);
    assert!(close(&jcts(&ffs), &[2060.0, 2030.0]), "{:?}", jcts(&ffs));
    assert!(
        ffs.notes.iter().any(|n| n.contains("no measured slowdown")),
        "{:?}",
        ffs.notes
    );
}

/// A 10 GB GPU: B holds 6000 MB, A needs 6432 MB, so only 4240 MB are free. A runs with 4
/// sub-batches (6432 x (0.35 + 0.65 / 4) = 3296.4 MB; 2 would need 4341.6), which makes its
/// steps 1.3x slower on top of the 1.2x slowdown: 1.56. At 60: T_con = 1470 + (1 - 1/2.4) x
/// 1.56 x 600 = 2016 < 3240: share. A ends at 60 + 936 = 996 (JCT 966); B did 780 s of work.
/// Sharing is set per round, so B stays slowed until that round ends at 1020 (24 s, 20 s of
/// work), then runs alone: 1020 + 2940 - 780 - 20 = 3160.
#[test]
fn accumulation_lets_a_job_fit_and_slows_it_by_the_stated_amount() {
    assert_eq!(
        Accumulation::fewest_to_fit(6432.0, 10.0 * 1024.0 - 6000.0),
        Some(4)
    );
    assert!((Accumulation::time_factor(4) - 1.3).abs() < 1e-12);
    let jobs = [
        job(0, "B", 0.0, 3000.0, 6000.0),
        job(1, "A", 30.0, 600.0, 6432.0),
    ];
    let r = run(&jobs, "sjf-bsbf", measured(), 10.0);
    assert!(close(&jcts(&r), &[3160.0, 966.0]), "{:?}", jcts(&r));
    assert!(r
        .gantt
        .iter()
        .any(|b| b.job == 1 && b.accumulation == Some(4)));
}

/// gavel-las-packed, hand-solved: one V100, A and B (1.2 steps/s alone, 1.0 next to each other,
/// 1,200 steps each, arriving at 0). prop = 1.2 each; alone the max-min level is 0.5 (half the
/// GPU each), sharing 1.0 / 1.2 = 0.83, so x puts the pair on the GPU all the time: both run at
/// 1.0 and end at 1,200 s. Their estimated footprints (6,000 MB each) overflow an 8 GB card, but
/// the pair was measured together, so the engine lets it run. Time-sliced (gavel-las) the two
/// need 2,000 s of GPU between them, and the later one ends at 2,000 s.
#[test]
fn packed_max_min_shares_a_gpu_when_both_keep_more_than_half() {
    let jobs = [
        job(0, "A", 0.0, 1200.0, 6000.0),
        job(1, "B", 0.0, 1200.0, 6000.0),
    ];
    let jobs = jobs.map(|j| Job {
        rate: vec![1.2],
        ..j
    });
    let packed = run(&jobs, "gavel-las-packed", measured(), 8.0);
    assert!(
        close(&jcts(&packed), &[1200.0, 1200.0]),
        "{:?}",
        jcts(&packed)
    );
    assert!(
        packed.notes[0].starts_with("space sharing: 40 of 40 job-rounds"),
        "{:?}",
        packed.notes
    );
    let las = run(&jobs, "gavel-las", measured(), 8.0);
    let last = jcts(&las).into_iter().fold(0.0, f64::max);
    assert!((last - 2000.0).abs() < 1e-6, "{:?}", jcts(&las));
}

/// When sharing would leave each job under half its speed (1.2 alone, 0.5 together), x gives
/// the pair nothing and the schedule is gavel-las's, round for round.
#[test]
fn packed_max_min_does_not_share_when_it_does_not_pay() {
    let slow = Interference::from_gavel_json(
        r#"{"v100": {"('A', 1)": {"null": 1.2, "('B', 1)": [0.5, 0.5]},
                     "('B', 1)": {"null": 1.2, "('A', 1)": [0.5, 0.5]}}}"#,
    )
    .unwrap();
    let jobs = [
        job(0, "A", 0.0, 1200.0, 6000.0),
        job(1, "B", 100.0, 600.0, 6000.0),
    ];
    let jobs = jobs.map(|j| Job {
        rate: vec![1.2],
        ..j
    });
    let packed = run(&jobs, "gavel-las-packed", slow.clone(), 16.0);
    let las = run(&jobs, "gavel-las", slow, 16.0);
    assert!(
        close(&jcts(&packed), &jcts(&las)),
        "{:?} vs {:?}",
        jcts(&packed),
        jcts(&las)
    );
    assert!(
        packed.notes[0].starts_with("space sharing: 0 of"),
        "{:?}",
        packed.notes
    );
}

/// Tiresias' two-queue variant (700 GPU-seconds, promotion once waiting >= run time): at 900 s,
/// X (800 GPU-s attained, ran last round) is in the low queue and Y (new) takes the one GPU;
/// had X been waiting since it arrived, 900 s >= its 800 s run, it is promoted and, first in
/// FIFO order, runs.
#[test]
fn tiresias_demotes_at_its_threshold_and_promotes_the_starved() {
    let cluster = Cluster::parse("v100=1").unwrap();
    let jobs = [
        job(0, "X", 0.0, 5000.0, 1.0),
        job(1, "Y", 100.0, 5000.0, 1.0),
    ];
    let active = [
        JobState {
            job: 0,
            remaining_steps: 4200.0,
            attained_gpu_s: 800.0,
        },
        JobState {
            job: 1,
            remaining_steps: 5000.0,
            attained_gpu_s: 0.0,
        },
    ];
    let ran = [Ran {
        job: 0,
        gpu_type: 0,
        seconds: 60.0,
        finished: false,
    }];
    let mut view = RoundView {
        now: 900.0,
        round_s: 60.0,
        cluster: &cluster,
        jobs: &jobs,
        active: &active,
        last_round: &ran,
        mixed_rate: Default::default(),
    };
    let placed = Tiresias::two_queue().schedule(&view).unwrap();
    assert_eq!(
        placed.iter().map(|p| p.job).collect::<Vec<_>>(),
        [1],
        "X demoted, Y runs"
    );
    view.last_round = &[];
    let placed = Tiresias::two_queue().schedule(&view).unwrap();
    assert_eq!(
        placed.iter().map(|p| p.job).collect::<Vec<_>>(),
        [0],
        "X starved, promoted"
    );
}

/// At every instant, from the Gantt bars alone: at most two jobs on a GPU, and two only within
/// its memory (footprints scaled by their sub-batches as the stated model says). A sweep per GPU
/// over bar starts and ends, ends first at equal times.
fn gpus_within_limits(cluster: &Cluster, jobs: &[Job], r: &SimResult) -> Result<(), TestCaseError> {
    // (server, GPU) -> (time, +1 start / -1 end, MB)
    type Events = Vec<(f64, i32, f64)>;
    let mut by_gpu: std::collections::BTreeMap<(usize, u32), Events> = Default::default();
    for b in &r.gantt {
        let job = jobs.iter().find(|j| j.id == b.job).unwrap();
        let mb = job.gpu_mem_mb.unwrap_or(0.0)
            * Accumulation::memory_factor(b.accumulation.unwrap_or(1));
        let events = by_gpu.entry((b.server, b.gpu)).or_default();
        events.push((b.t0, 1, mb));
        events.push((b.t1, -1, mb));
    }
    for ((server, _), mut events) in by_gpu {
        events.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let capacity = cluster.gpu_memory_mb(cluster.servers[server].gpu_type);
        let (mut count, mut mb) = (0, 0.0);
        for (_, sign, m) in events {
            count += sign;
            mb += f64::from(sign) * m;
            prop_assert!(count <= 2, "{}: {} jobs on one GPU", &r.policy, count);
            if count == 2 {
                prop_assert!(
                    mb <= capacity + 1e-6,
                    "{}: {mb} MB of {capacity}",
                    &r.policy
                );
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    #[test]
    fn sharing_schedulers_keep_gpus_within_limits(seed in 0u64..1000, gb in 8.0f64..24.0) {
        let mut cluster = Cluster::parse("v100=4,k80=4").unwrap();
        cluster.gpu_memory_gb = vec![gb, gb * 0.75];
        let table = ThroughputTable::builtin();
        let cfg = SyntheticConfig { jobs: 25, jobs_per_hour: 6.0, seed, tenants: 3, tenant_mix: Default::default() };
        let jobs = synthetic(&cfg, &table, &cluster.types).unwrap();
        let config = SimConfig { round_s: 360.0, gantt_max_jobs: 100, ..SimConfig::default() };
        for name in ["sjf-bsbf", "sjf-ffs", "tiresias", "tiresias-2q"] {
            let mut s = schedulers::by_name(name, &config).unwrap();
            let r = simulate(&cluster, &jobs, s.as_mut(), &config, &mut |_, _| {}).unwrap();
            let runnable = jobs.iter().filter(|j| j.best_rate(&cluster) > 0.0).count();
            prop_assert_eq!(r.jobs_completed, runnable, "{}", name);
            gpus_within_limits(&cluster, &jobs, &r)?;
        }
    }
}

/// A job whose footprint exceeds every GPU it could run on is reported, not waited for.
#[test]
fn a_job_too_big_for_every_gpu_is_unschedulable() {
    let jobs = [
        job(0, "B", 0.0, 100.0, 6000.0),
        job(1, "huge", 0.0, 100.0, 20_000.0),
    ];
    let r = run(&jobs, "sjf-bsbf", Interference::default(), 16.0);
    assert_eq!(r.jobs_unschedulable, vec![1]);
    assert_eq!(r.jobs_completed, 1);
}
