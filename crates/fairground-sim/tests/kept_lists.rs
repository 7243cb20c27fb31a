//! Gavel's round mechanism keeps each type's list between rounds instead of listing every active
//! job every round (`schedulers/gavel_rounds/lists.rs`). Its picks must be the full list's,
//! round for round, under every allocation policy the mechanism runs: with the list check on,
//! each type is listed both ways and a round whose picks differ fails the run.

use fairground_core::policies;
use fairground_sim::schedulers::GavelRounds;
use fairground_sim::workload::{synthetic, SyntheticConfig};
use fairground_sim::{simulate, Cluster, SimConfig, ThroughputTable};

#[test]
fn kept_lists_pick_as_the_full_list_under_every_policy() {
    let table = ThroughputTable::builtin();
    // A queue forms: 120 jobs arriving at 60 an hour on 12 GPUs.
    let cluster = Cluster::parse("v100=4,p100=4,k80=4").unwrap();
    let jobs = synthetic(
        &SyntheticConfig {
            jobs: 120,
            jobs_per_hour: 60.0,
            seed: 3,
            tenants: 3,
            tenant_mix: Default::default(),
        },
        &table,
        &cluster.types,
    )
    .unwrap();
    let config = SimConfig::default();
    // partial-allocation solves Nash welfare once per tenant and recomputation (too slow for
    // this test unoptimised); its allocation reaches the lists as nash-welfare's does. A
    // policy that runs as a scheduler of its own (gavel-las-packed) has no lists here.
    for policy in policies::all().into_iter().filter(|p| {
        p.name() != "partial-allocation" && matches!(p.info().rounds, policies::InRounds::Solved(_))
    }) {
        let name = policy.name();
        let mut scheduler = GavelRounds::new(name, config.reallocation_interval_s)
            .unwrap()
            .with_list_check(true);
        let result = simulate(&cluster, &jobs, &mut scheduler, &config, &mut |_, _| {})
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        // Jobs of 8 GPUs can run nowhere here; every other job finishes.
        assert_eq!(
            result.jobs_completed + result.jobs_unschedulable.len(),
            jobs.len(),
            "{name}"
        );
        let (kept, full) = scheduler.walks();
        // Only the rounds before the first reset are listed the full way.
        assert!(
            kept > 10 * full.max(1),
            "{name}: {kept} kept walks, {full} full"
        );
    }
}

/// The same on a larger, busier run of the policy the speed matters for.
#[test]
fn kept_lists_pick_as_the_full_list_under_las_with_a_long_queue() {
    let table = ThroughputTable::builtin();
    let cluster = Cluster::parse("v100=16,p100=16,k80=16").unwrap();
    let jobs = synthetic(
        &SyntheticConfig {
            jobs: 1500,
            jobs_per_hour: 60.0,
            seed: 11,
            tenants: 4,
            tenant_mix: Default::default(),
        },
        &table,
        &cluster.types,
    )
    .unwrap();
    let config = SimConfig::default();
    let mut scheduler = GavelRounds::new("gavel-las", config.reallocation_interval_s)
        .unwrap()
        .with_list_check(true);
    let result = simulate(&cluster, &jobs, &mut scheduler, &config, &mut |_, _| {}).unwrap();
    assert_eq!(result.jobs_completed, jobs.len());
    let (kept, _) = scheduler.walks();
    assert!(kept > 1000, "{kept} kept walks");
}
