//! Exact schedules of 2-job traces, computed by hand (round 360 s, no restart overhead).

use fairground_sim::metrics::SimResult;
use fairground_sim::{schedulers, simulate, Cluster, Job, SimConfig};

fn job(id: usize, tenant: &str, arrival: f64, steps: f64, rate: &[f64]) -> Job {
    Job {
        id,
        tenant: tenant.into(),
        job_type: "synthetic".into(),
        arrival,
        total_steps: steps,
        scale_factor: 1,
        rate: rate.to_vec(),
        resources: None,
        gpu_mem_mb: None,
    }
}

fn run(policy: &str, cluster: &str, jobs: &[Job]) -> SimResult {
    let cluster = Cluster::parse(cluster).unwrap();
    let config = SimConfig::default();
    let mut scheduler = schedulers::by_name(policy, &config).unwrap();
    simulate(&cluster, jobs, scheduler.as_mut(), &config, &mut |_, _| {}).unwrap()
}

fn finishes(r: &SimResult) -> Vec<f64> {
    r.jobs.iter().map(|j| j.finish_s.unwrap()).collect()
}

#[test]
fn fifo_fastest_type_mid_round_arrival_and_early_round_end() {
    // A (0 s, 1080 steps) takes the V100 at 3 steps/s and finishes at 360 s, ending round 1.
    // B arrives at 100 s, waits for round 2 (360 s), runs on the V100: 540 / 3 = 180 s -> 540 s.
    let jobs = [
        job(0, "a", 0.0, 1080.0, &[3.0, 1.0]),
        job(1, "b", 100.0, 540.0, &[3.0, 1.0]),
    ];
    let r = run("fifo", "v100=1,k80=1", &jobs);
    assert_eq!(finishes(&r), [360.0, 540.0]);
    assert_eq!(r.jobs[1].start_s, Some(360.0));
    assert_eq!(r.avg_jct_s, (360.0 + 440.0) / 2.0);
    assert_eq!(r.makespan_s, 540.0);
    assert_eq!(r.jobs_completed, 2);
}

/// One V100; A (0 s, 3600 steps at 1/s), B (100 s, `b_steps` at 1/s).
fn one_gpu(b_steps: f64) -> [Job; 2] {
    [
        job(0, "a", 0.0, 3600.0, &[1.0]),
        job(1, "b", 100.0, b_steps, &[1.0]),
    ]
}

#[test]
fn fifo_runs_to_completion_in_arrival_order() {
    // A holds the GPU for ten full rounds (0..3600); B then runs 3600..3800.
    let r = run("fifo", "v100=1", &one_gpu(200.0));
    assert_eq!(finishes(&r), [3600.0, 3800.0]);
}

#[test]
fn srtf_preempts_at_the_round_boundary() {
    // Round 1: A alone (0..360, 3240 left). Round 2 at 360: B (200 s) < A (3240 s): B runs
    // and finishes at 560, ending the round. A resumes at 560 and finishes at 3800.
    let r = run("srtf", "v100=1", &one_gpu(200.0));
    assert_eq!(finishes(&r), [3800.0, 560.0]);
    // With B = 720 steps: B runs 360..1080 (two rounds), then A 1080..4320.
    let r = run("srtf", "v100=1", &one_gpu(720.0));
    assert_eq!(finishes(&r), [4320.0, 1080.0]);
}

#[test]
fn las_alternates_by_attained_service() {
    // B = 720 steps. Round 1: A (0..360, attained 360). Round 2: B has 0 -> B 360..720.
    // Round 3 at 720: tie at 360, A first (arrival) -> A 720..1080. Round 4: B (360 < 720)
    // runs 1080..1440 and finishes. A then runs its last 2880 s: 1440..4320.
    let r = run("las", "v100=1", &one_gpu(720.0));
    assert_eq!(finishes(&r), [4320.0, 1440.0]);
}

#[test]
fn gavel_rounds_follow_allocation_over_received_time() {
    // Two identical jobs on one V100: gavel-las gives x = 1/2 each. Round 1: both have
    // priority infinity, job 0 first (0..360). Round 2: job 0 has received 1 -> 0.5/1; job 1
    // infinity -> job 1 (360..720). Round 3: both received 1/2 -> tie -> job 0 (720..1080),
    // finishing its 720 steps; round 4: job 1 (1080..1440).
    let jobs = [
        job(0, "a", 0.0, 720.0, &[1.0]),
        job(1, "b", 0.0, 720.0, &[1.0]),
    ];
    for policy in ["gavel-las", "gavel-ftf", "oef-noncoop"] {
        let r = run(policy, "v100=1", &jobs);
        assert_eq!(finishes(&r), [1080.0, 1440.0], "{policy}");
    }
    // OEF-coop at tenant level: identical tenants must get equal shares (envy-freeness).
    let r = run("oef-coop", "v100=1", &jobs);
    assert_eq!(finishes(&r), [1080.0, 1440.0]);
}

#[test]
fn an_allocation_waits_for_its_reallocation_interval() {
    // One V100, gavel-max-sum. Job 0 (100 s, 720 steps at 2/s) is alone at the first
    // recomputation (t = 100) and runs 100..460. Job 1 (200 s, 720 steps at 1/s) joins at the
    // round at 460 s without an allocation: it is picked (priority 0) but, as in Gavel, not
    // run. The next recomputation is due 1,920 s after the last (100 + 1920 = 2020), i.e. at
    // the round starting at 2260 s (rounds from 460 s are idle): job 1 runs 2260..2980. Job 2
    // (5000 s, 360 steps at 1/s) keeps a later arrival in the trace, so nothing forces an
    // earlier reset; it runs 5000..5360.
    let jobs = [
        job(0, "a", 100.0, 720.0, &[2.0]),
        job(1, "b", 200.0, 720.0, &[1.0]),
        job(2, "c", 5000.0, 360.0, &[1.0]),
    ];
    assert_eq!(
        finishes(&run("gavel-max-sum", "v100=1", &jobs)),
        [460.0, 2980.0, 5360.0]
    );
    // Without job 2, nothing is left to arrive when the round at 460 s would run nothing, so
    // the allocation is reset at once (Gavel's simulator does the same): job 1 runs 460..1180.
    assert_eq!(
        finishes(&run("gavel-max-sum", "v100=1", &jobs[..2])),
        [460.0, 1180.0]
    );
    // Recomputing at every change: job 1 runs from 460 s as well.
    let cluster = Cluster::parse("v100=1").unwrap();
    let config = SimConfig {
        reallocation_interval_s: 0.0,
        ..SimConfig::default()
    };
    let mut scheduler = schedulers::by_name("gavel-max-sum", &config).unwrap();
    let r = simulate(&cluster, &jobs, scheduler.as_mut(), &config, &mut |_, _| {}).unwrap();
    assert_eq!(finishes(&r), [460.0, 1180.0, 5360.0]);
}

#[test]
fn a_job_with_no_time_in_its_allocation_still_fills_a_free_gpu() {
    // One V100: gavel-max-sum gives job 0 (2 steps/s) x = 1 and job 1 (1 step/s) x = 0. Job 1
    // has priority 0, yet it is in the allocation, so once job 0 finishes (360 s) it is picked
    // and run (as in Gavel, whose lists hold every active job): 360..1080, with no wait for a
    // recomputation.
    let jobs = [
        job(0, "a", 0.0, 720.0, &[2.0]),
        job(1, "b", 0.0, 720.0, &[1.0]),
    ];
    assert_eq!(
        finishes(&run("gavel-max-sum", "v100=1", &jobs)),
        [360.0, 1080.0]
    );
}

#[test]
fn restart_overhead_is_paid_when_a_job_moves() {
    // LAS with B = 720 steps and 60 s overhead whenever a job resumes (attained service counts
    // the time GPUs are held, overhead included):
    //   round 1  0..360    A (first start, free)   A: 360 done,  attained 360
    //   round 2  360..720  B (first start, free)   B: 360 done,  attained 360
    //   round 3  720..1080 A (tie, arrival order)  A: 60 + 300,  attained 720, 2940 left
    //   round 4 1080..1440 B (360 < 720)           B: 60 + 300,  attained 720, 60 left
    //   round 5 1440..1800 A (tie)                 A: 60 + 300,  attained 1080, 2640 left
    //   round 6 1800..1920 B (720 < 1080)          B: 60 + 60: finishes at 1920
    //   then A alone: resumes with 60 s overhead at 1920, 2640 left: 1920 + 60 + 2640 = 4620.
    let cluster = Cluster::parse("v100=1").unwrap();
    let config = SimConfig {
        restart_overhead_s: 60.0,
        ..SimConfig::default()
    };
    let mut scheduler = schedulers::by_name("las", &config).unwrap();
    let r = simulate(
        &cluster,
        &one_gpu(720.0),
        scheduler.as_mut(),
        &config,
        &mut |_, _| {},
    )
    .unwrap();
    assert_eq!(r.jobs[1].finish_s, Some(1920.0));
    assert_eq!(r.jobs[0].finish_s, Some(4620.0));
}

#[test]
fn a_job_too_big_for_any_type_is_reported_not_waited_for() {
    let mut big = job(1, "b", 0.0, 100.0, &[1.0]);
    big.scale_factor = 4;
    let jobs = [job(0, "a", 0.0, 100.0, &[1.0]), big];
    let r = run("fifo", "v100=2", &jobs);
    assert_eq!(r.jobs_completed, 1);
    assert_eq!(r.jobs_unschedulable, vec![1]);
}

#[test]
fn gavel_fifo_keeps_the_queue_and_waits_for_the_next_recomputation() {
    // Two V100s on one server. A (10 s, 2 GPUs, 100 steps at 1/s) and B (10 s, 1 GPU, 100
    // steps) arrive together; C (5,000 s) keeps jobs still to arrive. (At t = 0 a reset would
    // count as none, as in Gavel, so the run starts at 10 s.) Gavel's FIFO at 10 s: A takes
    // both V100s, B finds none free and the queue stops, so x_B = 0. A finishes at 110 s,
    // ending the round. B has priority 0 and is not run until the allocation is recomputed,
    // which needs 1,920 s since the reset at 10 s: rounds of 360 s from 110 s start at
    // 470, ..., 1,910, 2,270, so B runs 2,270..2,370. C arrives while nothing runs and starts
    // at once (5,000 - 2,270 >= 1,920), finishing at 5,100.
    let mut a = job(0, "a", 10.0, 100.0, &[1.0]);
    a.scale_factor = 2;
    let jobs = [
        a,
        job(1, "b", 10.0, 100.0, &[1.0]),
        job(2, "c", 5000.0, 100.0, &[1.0]),
    ];
    let r = run("gavel-fifo", "v100=2", &jobs);
    assert_eq!(finishes(&r), [110.0, 2370.0, 5100.0]);
    // `fifo` fills GPUs every round: B runs as soon as A is done, 110..210.
    let r = run("fifo", "v100=2", &jobs);
    assert_eq!(finishes(&r), [110.0, 210.0, 5100.0]);
}

#[test]
fn hierarchical_gives_each_tenant_its_share_whatever_its_job_count() {
    // Two V100s; tenant a has three jobs, b one, all 720 steps at 1/s from 0 s.
    // gavel-hierarchical (tenants are the entities, of equal weight): a's jobs share one GPU
    // (x = 1/3 each), b's job has the other (x = 1). Round 1: every share is 0, so priority is
    // x * 1e9: b, then a's first job. Round 2 (shares count a half-round credit per job: 180 of
    // 1,440 s): b 540/1440 -> 1 / 0.375 = 2.67, a2 and a3 180/1440 -> (1/3) / 0.125 = 2.67,
    // a1 0.89; the tie goes to the larger deficit, b's (720 promised - 360) over a2's (240):
    // b and a2 run, and b is done at 720 s. Round 3: a3 (nothing yet), then a1 before a2 in
    // arrival order: a1 is done at 1,080 s. Round 4: a2 and a3, done at 1,440 s.
    let jobs = [
        job(0, "a", 0.0, 720.0, &[1.0]),
        job(1, "a", 0.0, 720.0, &[1.0]),
        job(2, "a", 0.0, 720.0, &[1.0]),
        job(3, "b", 0.0, 720.0, &[1.0]),
    ];
    let r = run("gavel-hierarchical", "v100=2", &jobs);
    assert_eq!(finishes(&r), [1080.0, 1440.0, 1440.0, 720.0]);
    // Water filling over jobs gives each job x = 1/2: rounds run (a1, a2), (b, a3), (a1, a2),
    // (a3, b), so b waits like everyone else.
    let r = run("gavel-water-filling", "v100=2", &jobs);
    assert_eq!(finishes(&r), [1080.0, 1080.0, 1440.0, 1440.0]);
}

/// Places, each round, the jobs its script names for that round (job indices, whatever they
/// are), each on its own GPU from server 0 up; the engine must refuse what is not allowed.
struct Scripted {
    rounds: Vec<Vec<usize>>,
    round: usize,
}

impl fairground_sim::Scheduler for Scripted {
    fn name(&self) -> String {
        "scripted".into()
    }

    fn schedule(
        &mut self,
        view: &fairground_sim::RoundView,
    ) -> Result<Vec<fairground_sim::Placement>, fairground_sim::SimError> {
        let jobs = self.rounds.get(self.round).cloned().unwrap_or_else(|| {
            // After the script: run whatever is active, so the run ends.
            view.active.iter().map(|s| s.job).collect()
        });
        self.round += 1;
        Ok(jobs
            .iter()
            .enumerate()
            .map(|(g, &job)| {
                fairground_sim::Placement::exclusive(
                    job,
                    vec![schedulers::Piece {
                        server: 0,
                        gpus: vec![g as u32],
                        copy: 0,
                    }],
                )
            })
            .collect())
    }
}

#[test]
fn the_engine_refuses_jobs_not_active_or_placed_twice() {
    // Jobs 0 and 3 arrive at 0 s, job 2 at 50 s, job 1 at 1000 s (arrival order 0, 3, 2, 1,
    // unlike the indices). At 1 step/s on a V100, job 0 needs two 360 s rounds, the others one.
    let jobs = [
        job(0, "a", 0.0, 720.0, &[1.0]),
        job(1, "a", 1000.0, 360.0, &[1.0]),
        job(2, "a", 50.0, 360.0, &[1.0]),
        job(3, "a", 0.0, 360.0, &[1.0]),
    ];
    let cluster = Cluster::parse("v100=8").unwrap();
    let config = SimConfig::default();
    let run = |rounds: Vec<Vec<usize>>| {
        let mut s = Scripted { rounds, round: 0 };
        simulate(&cluster, &jobs, &mut s, &config, &mut |_, _| {})
    };
    let refused = |rounds: Vec<Vec<usize>>, says: &str| {
        let err = run(rounds).expect_err(says).to_string();
        assert!(err.contains(says), "{err}");
    };
    // A script the engine accepts: 0 and 3 in round 1; 0 and 2 in round 2 (3 finished).
    let ok = run(vec![vec![3, 0], vec![2, 0]]).unwrap();
    assert_eq!(ok.jobs[3].finish_s, Some(360.0));
    assert_eq!(ok.jobs[0].finish_s, Some(720.0));
    assert_eq!(ok.jobs[2].finish_s, Some(720.0));
    // Not arrived yet (job 2 arrives at 50 s, job 1 at 1000 s), finished, unknown, twice.
    refused(vec![vec![0, 2]], "job 2 is not active");
    refused(vec![vec![3], vec![1]], "job 1 is not active");
    refused(vec![vec![3], vec![3]], "job 3 is not active");
    refused(vec![vec![9]], "job 9 is not active");
    refused(vec![vec![0, 3, 0]], "job 0 is placed twice");
    refused(vec![vec![3], vec![2, 0, 2]], "job 2 is placed twice");
}

/// Places, each round, each scripted (job, server) on GPU 0 of that server.
struct OnServers {
    rounds: Vec<Vec<(usize, usize)>>,
    round: usize,
}

impl fairground_sim::Scheduler for OnServers {
    fn name(&self) -> String {
        "on-servers".into()
    }

    fn schedule(
        &mut self,
        _: &fairground_sim::RoundView,
    ) -> Result<Vec<fairground_sim::Placement>, fairground_sim::SimError> {
        let round = self.rounds.get(self.round).cloned().unwrap_or_default();
        self.round += 1;
        Ok(round
            .into_iter()
            .map(|(job, server)| {
                fairground_sim::Placement::exclusive(
                    job,
                    vec![schedulers::Piece {
                        server,
                        gpus: vec![0],
                        copy: 0,
                    }],
                )
            })
            .collect())
    }
}

#[test]
fn rates_on_clusters_of_few_and_many_types() {
    // The engine keeps a job's rates in its record on clusters of up to 3 types and apart
    // beyond; both must run a job at its rate on the type it is placed on, and refuse a type
    // where its rate is 0. One GPU per type, so server k is type k. Job 0: 720 steps at 2/s
    // on the last type (360 s); job 1: 360 steps at 1/s on the first (360 s), then on the
    // last type, where it cannot run.
    for types in [2, 3, 4, 5] {
        let names = ["v100", "p100", "k80", "a100", "t4"];
        let spec: Vec<String> = names[..types].iter().map(|n| format!("{n}=1")).collect();
        let cluster = Cluster::parse(&spec.join(",")).unwrap();
        let mut rate0 = vec![0.5; types];
        rate0[types - 1] = 2.0;
        let mut rate1 = vec![1.0; types];
        rate1[types - 1] = 0.0;
        let jobs = [
            job(0, "a", 0.0, 720.0, &rate0),
            job(1, "a", 0.0, 360.0, &rate1),
        ];
        let config = SimConfig::default();
        let last = types - 1;
        let mut s = OnServers {
            rounds: vec![vec![(0, last), (1, 0)]],
            round: 0,
        };
        let r = simulate(&cluster, &jobs, &mut s, &config, &mut |_, _| {}).unwrap();
        assert_eq!(finishes(&r), [360.0, 360.0], "{types} types");
        let mut s = OnServers {
            rounds: vec![vec![(1, last)]],
            round: 0,
        };
        let err = simulate(&cluster, &jobs, &mut s, &config, &mut |_, _| {})
            .expect_err("a type where the job cannot run")
            .to_string();
        let says = format!("job 1 placed on {}, where it cannot run", names[last]);
        assert!(err.contains(&says), "{types} types: {err}");
    }
}

#[test]
fn a_bad_job_is_refused_with_its_id_and_field() {
    let cluster = Cluster::parse("v100=1,k80=1").unwrap();
    let config = SimConfig::default();
    let good = job(7, "a", 0.0, 360.0, &[1.0, 1.0]);
    let cases: Vec<(Job, &str)> = vec![
        (
            Job {
                rate: vec![1.0],
                ..good.clone()
            },
            "job 7: 1 rates for 2 GPU types",
        ),
        (
            Job {
                rate: vec![1.0, f64::NAN],
                ..good.clone()
            },
            "job 7: rates must be finite and >= 0",
        ),
        (
            Job {
                arrival: -1.0,
                ..good.clone()
            },
            "job 7: arrival must be a time >= 0",
        ),
        (
            Job {
                total_steps: 0.0,
                ..good.clone()
            },
            "job 7: total steps must be > 0",
        ),
        (
            Job {
                scale_factor: 0,
                ..good.clone()
            },
            "job 7: needs at least one GPU",
        ),
        (
            Job {
                gpu_mem_mb: Some(f64::NAN),
                ..good.clone()
            },
            "job 7: GPU memory must be finite and >= 0 MB (got NaN)",
        ),
    ];
    for (bad, says) in cases {
        let mut scheduler = schedulers::by_name("fifo", &config).unwrap();
        let err = simulate(
            &cluster,
            &[bad],
            scheduler.as_mut(),
            &config,
            &mut |_, _| {},
        )
        .expect_err(says)
        .to_string();
        assert!(err.contains(says), "{err}");
    }
    let mut scheduler = schedulers::by_name("fifo", &config).unwrap();
    let fine = Job {
        gpu_mem_mb: Some(1000.0),
        ..good
    };
    let r = simulate(
        &cluster,
        &[fine],
        scheduler.as_mut(),
        &config,
        &mut |_, _| {},
    )
    .unwrap();
    assert_eq!(finishes(&r), [360.0]);
}
