//! The rule inside a tenant (`--within-tenant`): where the two-stage form (a tenant-level policy,
//! then `fairness` inside each tenant) must agree with gavel-hierarchical's joint program, it
//! does at every recomputation; where the option has no meaning it is refused.

use fairground_sim::schedulers::{self, GavelRounds};
use fairground_sim::tenants::{ShareAmong, WithinTenant};
use fairground_sim::workload::{synthetic, SyntheticConfig, TenantMix};
use fairground_sim::{simulate, Cluster, Job, SimConfig, ThroughputTable};
use rand::{Rng, SeedableRng};

const INTERVAL: f64 = 1920.0;

/// gavel-water-filling over tenants with `rule` inside them, checked at every recomputation
/// against gavel-hierarchical (tenants as entities of weight 1, `rule` within) solved on the
/// same active jobs: every job's normalised level to 1e-6.
fn two_stage_against_joint(cluster: &Cluster, jobs: &[Job], rule: WithinTenant) -> usize {
    let reference = GavelRounds::new("gavel-hierarchical", INTERVAL)
        .unwrap()
        .within_tenant(rule, true)
        .unwrap();
    let mut two_stage = GavelRounds::new("gavel-water-filling", INTERVAL)
        .unwrap()
        .sharing_among(ShareAmong::Tenants, Default::default())
        .within_tenant(rule, true)
        .unwrap()
        .with_level_check(reference, 1e-6);
    let config = SimConfig::default();
    let r = simulate(cluster, jobs, &mut two_stage, &config, &mut |_, _| {})
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.jobs_completed, jobs.len());
    two_stage.levels_checked()
}

/// On a cluster of one type every job's speedups are the same (1), whatever its model: the
/// two stages are the joint program, under fairness and under fifo (a tenant's total rises as
/// its entity's does, and its earliest jobs take it up to their scale factors in both). Gavel's
/// measured models, three tenants, a busy cluster.
#[test]
fn on_one_type_the_two_stages_are_gavel_hierarchical() {
    let cluster = Cluster::parse("v100=8").unwrap();
    let cfg = SyntheticConfig {
        jobs: 60,
        jobs_per_hour: 6.0,
        seed: 3,
        tenants: 3,
        tenant_mix: TenantMix::Uniform,
    };
    let jobs = synthetic(&cfg, &ThroughputTable::builtin(), &cluster.types).unwrap();
    for rule in [WithinTenant::Fairness, WithinTenant::Fifo] {
        let checked = two_stage_against_joint(&cluster, &jobs, rule);
        assert!(checked > 20, "{rule:?}: {checked} recomputations checked");
    }
}

/// Each tenant's jobs share one speedup vector and one scale factor (of their own: the tenants
/// differ, 1, 2 and 4 GPUs), with different base rates (models), on three types: the outer water
/// filling sees each tenant's exact utility, its jobs are interchangeable, and the two stages
/// are the joint program again.
///
/// With one speedup vector but mixed scale factors they are not: a 1-GPU job at its scale
/// factor gains from the type it is given, which the joint program sees and the outer stage
/// does not (on this cluster, a 1-GPU job of the second tenant at 1.0 under the two stages,
/// 1.33 jointly, with its 4-GPU sibling at 3.5 and 3.0; docs/simulator.md).
#[test]
fn with_one_kind_of_job_per_tenant_the_two_stages_are_gavel_hierarchical() {
    let cluster = Cluster::parse("k80=4,p100=4,v100=4").unwrap();
    let speedups = [[1.0, 2.0, 4.0], [1.0, 1.5, 2.0], [1.0, 3.0, 3.2]];
    let mut rng = rand::rngs::StdRng::seed_from_u64(9);
    let mut arrival = 0.0;
    let jobs: Vec<Job> = (0..45)
        .map(|id| {
            arrival += rng.random_range(0.0..1800.0);
            let t = rng.random_range(0..speedups.len());
            let sf = [1u32, 2, 4][t];
            let base = rng.random_range(0.5..3.0);
            Job {
                id,
                tenant: format!("tenant{t}"),
                job_type: format!("model{t}"),
                arrival,
                total_steps: rng.random_range(2_000.0..60_000.0),
                scale_factor: sf,
                rate: speedups[t]
                    .iter()
                    .map(|s| base * s * f64::from(sf))
                    .collect(),
                resources: None,
                gpu_mem_mb: None,
            }
        })
        .collect();
    let checked = two_stage_against_joint(&cluster, &jobs, WithinTenant::Fairness);
    assert!(checked > 20, "{checked} recomputations checked");
}

/// The worked example of docs/simulator.md ("Who shares"), end to end: four 1-GPU jobs and
/// one 8-GPU job of one tenant on 6 V100s. Under fairness each 1-GPU job holds 1 GPU and the
/// 8-GPU job 2 (equal levels, the 1-GPU jobs at their scale factor); under equal-time each
/// job runs half the time (1-GPU jobs 0.5 GPU, the 8-GPU job 4); under fifo the 8-GPU job,
/// first in line, takes all 6 and the others wait.
#[test]
fn the_worked_example_under_each_rule() {
    let cluster = Cluster::parse("v100=8").unwrap();
    let job = |id: usize, sf: u32| Job {
        id,
        tenant: "team".into(),
        job_type: "m".into(),
        arrival: 0.0,
        total_steps: 1e6,
        scale_factor: sf,
        rate: vec![f64::from(sf)],
        resources: None,
        gpu_mem_mb: None,
    };
    // A second tenant with one 2-GPU job takes 2 of the 8 GPUs under any fair policy, leaving
    // the team 6 (the team's cap is 12, the other's 2; equal split 4 each, capped at 2).
    let mut jobs = vec![job(0, 8), job(1, 1), job(2, 1), job(3, 1), job(4, 1)];
    jobs.push(Job {
        tenant: "other".into(),
        ..job(5, 2)
    });
    for (rule, want) in [
        (WithinTenant::Fairness, [2.0, 1.0, 1.0, 1.0, 1.0]),
        (WithinTenant::EqualTime, [4.0, 0.5, 0.5, 0.5, 0.5]),
        (WithinTenant::Fifo, [6.0, 0.0, 0.0, 0.0, 0.0]),
    ] {
        let config = SimConfig {
            share_among: ShareAmong::Tenants,
            within_tenant: rule,
            within_tenant_asked: true,
            ..SimConfig::default()
        };
        let mut scheduler = GavelRounds::new("gavel-water-filling", INTERVAL)
            .unwrap()
            .sharing_among(ShareAmong::Tenants, Default::default())
            .within_tenant(rule, true)
            .unwrap();
        let mut sim =
            fairground_sim::Simulation::new(&cluster, &jobs, &config, &scheduler).unwrap();
        sim.step(&mut scheduler, 1).unwrap();
        let held = scheduler.gpus_held(&jobs);
        for (i, w) in want.iter().enumerate() {
            assert!(
                (held[i] - w).abs() < 1e-6,
                "{}: job {i} holds {} GPUs, not {w} ({held:?})",
                rule.name(),
                held[i]
            );
        }
        assert!((held[5] - 2.0).abs() < 1e-6, "{held:?}");
    }
}

/// Asked for where it means nothing, `--within-tenant` is refused with the flag, the value and
/// the reason; not asked for, the same runs go ahead.
#[test]
fn a_rule_inside_tenants_where_there_are_none_is_refused() {
    let refused = |policy: &str, share: ShareAmong, rule: WithinTenant| -> String {
        let config = SimConfig {
            share_among: share,
            within_tenant: rule,
            within_tenant_asked: true,
            ..SimConfig::default()
        };
        match schedulers::by_name(policy, &config) {
            Ok(_) => String::new(),
            Err(e) => e.to_string(),
        }
    };
    let tenants = ShareAmong::Tenants;
    let fair = WithinTenant::Fairness;
    let e = refused("oef-coop", ShareAmong::Jobs, fair);
    assert!(
        e.contains("--within-tenant fairness") && e.contains("--share-among tenants"),
        "{e}"
    );
    for policy in ["gavel-ftf", "isolated", "gavel-min-makespan", "gavel-fifo"] {
        let e = refused(policy, tenants, WithinTenant::Fifo);
        assert!(
            e.contains("--within-tenant fifo") && e.contains("per job"),
            "{policy}: {e}"
        );
    }
    let e = refused("fifo", tenants, fair);
    assert!(e.contains("no tenant's share"), "{e}");
    let e = refused(
        "gavel-hierarchical",
        ShareAmong::Jobs,
        WithinTenant::EqualTime,
    );
    assert!(e.contains("--within-tenant equal-time"), "{e}");
    // Meaningful uses go ahead.
    for (policy, share) in [
        ("oef-coop", tenants),
        ("gandiva-fair", ShareAmong::Jobs),
        ("gavel-hierarchical", ShareAmong::Jobs),
    ] {
        assert_eq!(refused(policy, share, WithinTenant::Fifo), "", "{policy}");
    }
    // Not asked for: no error anywhere.
    let config = SimConfig::default();
    for policy in ["gavel-ftf", "fifo", "oef-coop"] {
        assert!(schedulers::by_name(policy, &config).is_ok(), "{policy}");
    }
}

/// gavel-hierarchical is judged as the two-stage policies are: every tenant is judged on what
/// its jobs received. On one type, with the tenants as entities of equal weight, each tenant
/// holds at least its equal split or all its jobs can use, so sharing incentive holds on V at
/// every judged recomputation, and each tenant's V is the GPUs its jobs hold (speedup 1).
#[test]
fn gavel_hierarchical_has_verdicts_on_what_tenants_received() {
    let cluster = Cluster::parse("v100=8").unwrap();
    let cfg = SyntheticConfig {
        jobs: 40,
        jobs_per_hour: 6.0,
        seed: 4,
        tenants: 3,
        tenant_mix: TenantMix::Uniform,
    };
    let jobs = synthetic(&cfg, &ThroughputTable::builtin(), &cluster.types).unwrap();
    let config = SimConfig::default();
    let mut scheduler = schedulers::by_name("gavel-hierarchical", &config).unwrap();
    let r = simulate(&cluster, &jobs, scheduler.as_mut(), &config, &mut |_, _| {}).unwrap();
    let f = r
        .tenant_fairness
        .expect("gavel-hierarchical judges its tenants");
    assert_eq!(f.tenants, ["tenant0", "tenant1", "tenant2"]);
    for t in 0..3 {
        assert!(f.judged[t] > 5, "{:?}", f.judged);
        assert_eq!(
            f.si_held[t], f.judged[t],
            "tenant {t}: {:?}",
            f.worst_si_ratio
        );
    }
    for sample in &f.over_time {
        let held: f64 = sample.realised.iter().sum();
        assert!(held <= 8.0 + 1e-6, "t = {}: {held} GPUs", sample.t);
    }
}
