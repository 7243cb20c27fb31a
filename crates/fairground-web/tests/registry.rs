//! A policy is one file: defined here, in a test, and handed over in a registry, it shows in every
//! consumer that reads the registry — the catalogue, the palette's family, the Simulation tab's
//! groups and the simulator, which runs it as it declares — with no name matched anywhere.

use fairground_chart::palette;
use fairground_core::policies::{
    self, Family, Grouping, Guarantees, InRounds, PartyRule, Policy, PolicyError, PolicyInfo,
    Reads, Registry, RoundAnswer, Rounds, Solution, Walk, Warm,
};
use fairground_core::Instance;
use fairground_sim::config::SimConfig;
use fairground_sim::tenants::ShareAmong;
use fairground_sim::throughputs::ThroughputTable;
use fairground_sim::workload::{synthetic, SyntheticConfig};
use fairground_sim::{engine, schedulers, Cluster};
use fairground_web::components::sim_form::FAMILIES;

/// The equal split under another name, declared a market whose parties are always single jobs.
struct FromATest;

const INFO: PolicyInfo = PolicyInfo {
    name: "from-a-test",
    summary: "the equal split, declared in a test",
    guarantees: Guarantees::NONE,
    family: Family::Market,
    reads: Reads::BASE,
    rounds: InRounds::Solved(Rounds {
        parties: PartyRule::Always(Grouping::Jobs),
        answer: RoundAnswer::Solve,
        walk: Walk::Fixed,
        warm: Warm::Cold,
    }),
};

impl Policy for FromATest {
    fn info(&self) -> PolicyInfo {
        INFO
    }
    fn allocate(&self, inst: &Instance) -> Result<Solution, PolicyError> {
        policies::EqualShare.allocate(inst)
    }
}

fn with_it() -> Vec<&'static dyn Policy> {
    let mut all = policies::all();
    all.push(&FromATest);
    all
}

const WITH_IT: Registry = Registry(with_it);

#[test]
fn a_policy_declared_in_a_test_shows_in_every_consumer() {
    let catalogue = WITH_IT.infos();
    assert_eq!(catalogue.last(), Some(&INFO));
    assert!(WITH_IT.by_name("from-a-test").is_some());

    // Drawn in its family's colour, and in a label that adds to its name.
    assert_eq!(
        palette::family_in(&catalogue, "from-a-test"),
        Family::Market
    );
    assert_eq!(
        palette::family_in(&catalogue, "from-a-test CPU"),
        Family::Market
    );

    // In the Simulation tab's Market group, with its summary, and in no other group.
    let groups: Vec<&str> = FAMILIES
        .iter()
        .filter(|f| {
            f.policies_from(&catalogue)
                .contains(&("from-a-test", "the equal split, declared in a test"))
        })
        .map(|f| f.name)
        .collect();
    assert_eq!(groups, ["Market"]);

    // The simulator takes it, and runs it with the parties it declares: jobs, even when tenants
    // are asked for.
    assert!(schedulers::names_in(WITH_IT).contains(&"from-a-test".to_string()));
    let table = ThroughputTable::builtin();
    let cluster = Cluster::parse("v100=2,k80=2").unwrap();
    let jobs = synthetic(
        &SyntheticConfig {
            jobs: 12,
            jobs_per_hour: 4.0,
            seed: 3,
            tenants: 2,
            tenant_mix: Default::default(),
        },
        &table,
        &cluster.types,
    )
    .unwrap();
    let config = SimConfig {
        share_among: ShareAmong::Tenants,
        ..SimConfig::default()
    };
    let mut scheduler = schedulers::by_name_in("from-a-test", &config, WITH_IT).unwrap();
    assert!(scheduler.parties(ShareAmong::Tenants).starts_with("jobs"));
    let result =
        engine::simulate(&cluster, &jobs, scheduler.as_mut(), &config, &mut |_, _| {}).unwrap();
    assert_eq!(result.jobs_completed + result.jobs_unschedulable.len(), 12);

    // The engine's own registry does not know it.
    assert!(schedulers::by_name("from-a-test", &SimConfig::default()).is_err());
}

#[test]
fn every_policy_file_is_in_the_registry() {
    // Each file under policies/ that declares a PolicyInfo has its every `name:` in the
    // catalogue, and the catalogue is what the engine's registry solves, in its order.
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fairground-core/src/policies"
    );
    let mut declared = Vec::new();
    let mut stack = vec![std::path::PathBuf::from(dir)];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let body = text.split("#[cfg(test)]").next().unwrap();
            for (k, _) in body.match_indices(": PolicyInfo = PolicyInfo {") {
                let rest = &body[k..];
                let name = rest
                    .split("name: \"")
                    .nth(1)
                    .unwrap()
                    .split('"')
                    .next()
                    .unwrap();
                declared.push((name.to_string(), path.display().to_string()));
            }
        }
    }
    assert!(declared.len() >= 17, "{declared:?}");
    let registry = policies::EVERY_POLICY.names();
    for (name, file) in &declared {
        assert!(
            registry.contains(&name.as_str()),
            "{file} declares {name}, which is not in policies::all()"
        );
    }
    let catalogue: Vec<&str> = policies::CATALOGUE.iter().map(|p| p.name).collect();
    assert_eq!(catalogue, registry);
}
