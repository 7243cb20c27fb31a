//! oef-coop re-solving an edited scenario from the rows its last solve kept (`RowMemory`, as
//! the playground's worker and the JavaScript module do between requests): the same allocation
//! as a fresh solve, with fewer rows to find, whatever the edit.

use fairground_core::policies::{self, remembering, RowMemory};
use fairground_core::presets::random_scenario;
use fairground_core::{Allocation, Scenario};

fn solve_fresh(scenario: &Scenario) -> Allocation {
    let inst = scenario.instance().unwrap();
    policies::by_name("oef-coop")
        .unwrap()
        .solve(&inst)
        .unwrap()
        .allocation
}

fn solve_with(memory: &mut RowMemory, scenario: &Scenario) -> Allocation {
    let inst = scenario.instance().unwrap();
    let oef = policies::by_name("oef-coop").unwrap();
    remembering(memory, || oef.solve(&inst)).unwrap().allocation
}

/// Largest |a - b| over GPUs, relative to the type's count.
fn gap(scenario: &Scenario, a: &Allocation, b: &Allocation) -> f64 {
    let mut worst: f64 = 0.0;
    for (ra, rb) in a.gpus.iter().zip(&b.gpus) {
        for ((x, y), t) in ra.iter().zip(rb).zip(&scenario.gpu_types) {
            worst = worst.max((x - y).abs() / f64::from(t.count));
        }
    }
    worst
}

/// The edits a playground user makes, one after another on the same memory.
fn edits(base: &Scenario) -> Vec<(&'static str, Scenario)> {
    let mut out = Vec::new();
    let mut s = base.clone();
    s.tenants[3].throughput[1] *= 1.3;
    out.push(("a throughput up", s.clone()));
    s.tenants[9].throughput[0] *= 0.5;
    out.push(("another down", s.clone()));
    s.gpu_types[2].count += 1;
    out.push(("a GPU more", s.clone()));
    s.tenants[5].weight = 2.0;
    out.push(("a weight", s.clone()));
    s.tenants.remove(7);
    out.push(("a tenant removed", s.clone()));
    let mut added = s.tenants[0].clone();
    added.name = "newcomer".into();
    added.throughput.iter_mut().for_each(|t| *t *= 1.1);
    s.tenants.push(added);
    out.push(("a tenant added", s.clone()));
    s.tenants.reverse();
    out.push(("tenants reordered", s.clone()));
    out
}

/// Both memories: rows only (the playground's), and rows with the last optimum's basis for the
/// kept simplex (the simulator's and the probe's; microlp where the build has no kept simplex).
#[test]
fn an_edited_scenario_gets_the_fresh_allocation_with_fewer_rows_to_find() {
    for (seed, keeping) in [
        (1, false),
        (2, false),
        (3, false),
        (1, true),
        (2, true),
        (3, true),
    ] {
        let base = random_scenario(40, 6, seed, false);
        let mut memory = if keeping {
            RowMemory::keeping_basis()
        } else {
            RowMemory::default()
        };
        solve_with(&mut memory, &base);
        let first = memory.rows_added();
        assert!(
            first > 20,
            "seed {seed}: a fresh solve finds its rows ({first})"
        );
        // The same scenario again: every row it needs is remembered.
        let again = solve_with(&mut memory, &base);
        assert_eq!(memory.rows_added(), 0, "seed {seed}");
        assert!(gap(&base, &again, &solve_fresh(&base)) < 1e-9);
        for (edit, scenario) in edits(&base) {
            let warm = solve_with(&mut memory, &scenario);
            let fresh = solve_fresh(&scenario);
            let g = gap(&scenario, &warm, &fresh);
            assert!(g < 1e-9, "seed {seed}, {edit}: allocations differ by {g:e}");
            assert!(
                memory.rows_added() * 4 < first,
                "seed {seed}, {edit}: {} rows added against {first} fresh",
                memory.rows_added()
            );
        }
    }
}

/// Weighted and capped tenants (jobs): rows the caps exempt are not imposed, even if remembered
/// from a scenario without caps.
#[test]
fn remembered_rows_of_exempt_pairs_are_not_imposed() {
    let free = random_scenario(30, 4, 5, false);
    let mut capped = free.clone();
    for (i, t) in capped.tenants.iter_mut().enumerate() {
        t.weight = [1.0, 2.0, 0.5][i % 3];
        t.max_gpus = Some([1.0, 2.0, 4.0][i % 3]);
    }
    let mut memory = RowMemory::default();
    solve_with(&mut memory, &free);
    let warm = solve_with(&mut memory, &capped);
    assert!(gap(&capped, &warm, &solve_fresh(&capped)) < 1e-9);
}

/// Other policies neither read nor fill the memory, and a memory lent to an inner call comes
/// back to the outer one.
#[test]
fn only_oef_coop_uses_the_memory() {
    let scenario = random_scenario(12, 3, 4, false);
    let inst = scenario.instance().unwrap();
    let mut memory = RowMemory::default();
    let nash = policies::by_name("nash-welfare").unwrap();
    remembering(&mut memory, || nash.solve(&inst)).unwrap();
    assert!(memory.is_empty());
    solve_with(&mut memory, &scenario);
    let kept = memory.clone();
    assert!(!kept.is_empty());
    let mut inner = RowMemory::default();
    remembering(&mut memory, || {
        remembering(&mut inner, || nash.solve(&inst)).unwrap();
        assert_eq!(policies::active_memory(), kept);
    });
    assert_eq!(memory, kept);
    assert!(inner.is_empty());
}
