//! Entities: groups of tenants with weights, nested as a tree (Gavel's hierarchical fairness).
//!
//! A scenario may list entities; a tenant may name the entity it belongs to, and an entity may
//! name its parent. The root's children are the entities without a parent and the tenants
//! without an entity. Each node passes the weight it gets to its children that still want more
//! (those with an unfrozen tenant below them), by its `within` rule:
//! - `fairness`: in proportion to the children's weights (an entity's `weight`, a tenant's);
//! - `fifo`: all of it to the first such child, in the order of the tenants list (a
//!   sub-entity's place is its first tenant's).
//!
//! With two levels (entities holding tenants) this is Gavel's priority reweighting
//! (`max_min_fairness_water_filling.py`, `_compute_priority_weights`); deeper trees apply the
//! same rule at every level. [`priority_weights`] computes it; `gavel-hierarchical` uses it.

use crate::problem::Problem;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// A group of tenants, as a user describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entity {
    pub name: String,
    /// Its share against its siblings (entities and tenants with the same parent).
    #[serde(default = "unit_weight")]
    pub weight: f64,
    /// How its members share what it gets.
    #[serde(default)]
    pub within: Within,
    /// The entity it belongs to; none: the top level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
}

fn unit_weight() -> f64 {
    1.0
}

/// How an entity's members share its weight (Gavel's two reweighting policies).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Within {
    /// In proportion to the members' weights.
    #[default]
    Fairness,
    /// All to the first member that still wants more, in the tenants list's order.
    Fifo,
}

impl Within {
    pub fn as_str(self) -> &'static str {
        match self {
            Within::Fairness => "fairness",
            Within::Fifo => "fifo",
        }
    }
}

/// The validated entity tree, by index: what [`crate::Instance`] carries.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EntityTree {
    pub names: Vec<String>,
    pub weight: Vec<f64>,
    pub within: Vec<Within>,
    pub parent: Vec<Option<usize>>,
    /// `entity_of[i]`: the entity tenant i belongs to (none: the top level).
    pub entity_of: Vec<Option<usize>>,
}

impl EntityTree {
    /// Whether the scenario has entities at all.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The same tree without tenant `i` (an entity left empty stays, and gets nothing).
    pub fn without_tenant(&self, i: usize) -> EntityTree {
        let mut out = self.clone();
        if i < out.entity_of.len() {
            out.entity_of.remove(i);
        }
        out
    }
}

/// Checks a scenario's entities and its tenants' `entity` fields (`tenant_entities[i]`, in the
/// tenants' order), pushing every problem found (located), and returns the tree when there is
/// nothing wrong with it.
pub(crate) fn check(
    entities: &[Entity],
    tenant_entities: &[Option<&str>],
    problems: &mut Vec<Problem>,
) -> Option<EntityTree> {
    let before = problems.len();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (e, entity) in entities.iter().enumerate() {
        let at = format!("entities[{e}]");
        if entity.name.trim().is_empty() {
            problems.push(Problem::new(format!("{at}.name"), "must not be empty"));
        } else if let Some(first) = index.get(entity.name.as_str()) {
            problems.push(Problem::new(
                format!("{at}.name"),
                format!("duplicate name '{}' (also entities[{first}])", entity.name),
            ));
        } else {
            index.insert(&entity.name, e);
        }
        if !(entity.weight.is_finite() && entity.weight > 0.0) {
            problems.push(Problem::new(
                format!("{at}.weight"),
                format!("must be finite and > 0 (got {})", entity.weight),
            ));
        }
    }
    let known = || {
        let names: Vec<&str> = entities.iter().map(|e| e.name.as_str()).collect();
        if names.is_empty() {
            "the scenario lists no entities".to_string()
        } else {
            format!("entities: {}", names.join(", "))
        }
    };
    let mut parent = vec![None; entities.len()];
    for (e, entity) in entities.iter().enumerate() {
        let Some(name) = &entity.parent else { continue };
        match index.get(name.as_str()) {
            Some(&p) => parent[e] = Some(p),
            None => problems.push(Problem::new(
                format!("entities[{e}].parent"),
                format!("names no entity '{name}' ({})", known()),
            )),
        }
    }
    report_cycles(entities, &parent, problems);
    let mut entity_of = vec![None; tenant_entities.len()];
    for (i, entity) in tenant_entities.iter().enumerate() {
        let Some(name) = entity else { continue };
        match index.get(name) {
            Some(&e) => entity_of[i] = Some(e),
            None => problems.push(Problem::new(
                format!("tenants[{i}].entity"),
                format!("names no entity '{name}' ({})", known()),
            )),
        }
    }
    if problems.len() > before {
        return None;
    }
    report_empty(entities, &parent, &entity_of, problems);
    (problems.len() == before).then(|| EntityTree {
        names: entities.iter().map(|e| e.name.clone()).collect(),
        weight: entities.iter().map(|e| e.weight).collect(),
        within: entities.iter().map(|e| e.within).collect(),
        parent,
        entity_of,
    })
}

/// A cycle: following parents from an entity comes back to it. Reported once, at the cycle's
/// first entity in the list, with the loop spelled out from there. Each entity is walked once
/// (0: not seen, 1: on the walk now, 2: done), so a long chain of parents costs its length, not
/// its square.
fn report_cycles(entities: &[Entity], parent: &[Option<usize>], problems: &mut Vec<Problem>) {
    let mut state = vec![0u8; entities.len()];
    let mut cycles: Vec<Vec<usize>> = Vec::new();
    for start in 0..entities.len() {
        let mut path = Vec::new();
        let mut at = Some(start);
        while let Some(k) = at {
            match state[k] {
                2 => break,
                1 => {
                    let from = path.iter().position(|&p| p == k).unwrap_or(0);
                    let mut cycle = path[from..].to_vec();
                    let first = (0..cycle.len()).min_by_key(|&c| cycle[c]).unwrap_or(0);
                    cycle.rotate_left(first);
                    cycles.push(cycle);
                    break;
                }
                _ => {
                    state[k] = 1;
                    path.push(k);
                    at = parent[k];
                }
            }
        }
        path.iter().for_each(|&k| state[k] = 2);
    }
    // Through the shared index sort (`crate::order`), not a sort of its own (5 KB of wasm).
    let mut by_first: Vec<usize> = (0..cycles.len()).collect();
    crate::order::sort_indices_by(&mut by_first, &|a, b| cycles[a][0].cmp(&cycles[b][0]));
    for cycle in by_first.into_iter().map(|c| &cycles[c]) {
        let names: Vec<&str> = cycle
            .iter()
            .chain(std::iter::once(&cycle[0]))
            .map(|&k| entities[k].name.as_str())
            .collect();
        problems.push(Problem::new(
            format!("entities[{}].parent", cycle[0]),
            format!(
                "the entities form a cycle ({}): an entity cannot be inside itself",
                names.join(" -> ")
            ),
        ));
    }
}

/// Every entity needs a tenant somewhere below it (else its weight would go nowhere).
fn report_empty(
    entities: &[Entity],
    parent: &[Option<usize>],
    entity_of: &[Option<usize>],
    problems: &mut Vec<Problem>,
) {
    let mut has_tenant = vec![false; entities.len()];
    for e in entity_of.iter().flatten() {
        let mut at = Some(*e);
        while let Some(k) = at {
            if has_tenant[k] {
                break;
            }
            has_tenant[k] = true;
            at = parent[k];
        }
    }
    for (e, entity) in entities.iter().enumerate() {
        if !has_tenant[e] {
            problems.push(Problem::new(
                format!("entities[{e}]"),
                format!(
                    "entity '{}' is empty: no tenant names it or an entity inside it",
                    entity.name
                ),
            ));
        }
    }
}

/// Each tenant's priority weight for one round of water filling: the root's weight of 1 passed
/// down the tree to the tenants not `frozen`, by each node's rule (see the module's docs).
/// Frozen tenants get 0, as do tenants a `fifo` entity is not serving yet. Without entities
/// this is each unfrozen tenant's weight over their total.
///
/// `weight[i]` is tenant i's own weight (its share among its siblings).
pub fn priority_weights(tree: &EntityTree, weight: &[f64], frozen: &[bool]) -> Vec<f64> {
    let tenants = weight.len();
    let entities = tree.names.len();
    // Children of each entity and of the root (index `entities`), as nodes: Ok(entity) or
    // Err(tenant), in queue order: walking the tenants in list order, each node joins its
    // parent's list the first time one of its tenants is met. (Validation saw to it that the
    // tree is acyclic and every entity has a tenant.)
    let mut children: Vec<Vec<Result<usize, usize>>> = vec![Vec::new(); entities + 1];
    let mut listed = vec![false; entities];
    let mut wants = vec![false; entities];
    for (i, &is_frozen) in frozen.iter().enumerate().take(tenants) {
        let mut node = Err(i);
        let mut home = tree.entity_of.get(i).copied().flatten();
        loop {
            let parent = home.unwrap_or(entities);
            let first_time = match node {
                Ok(e) => !std::mem::replace(&mut listed[e], true),
                Err(_) => true,
            };
            if first_time {
                children[parent].push(node);
            }
            let Some(e) = home else { break };
            wants[e] |= !is_frozen;
            node = Ok(e);
            home = tree.parent[e];
        }
    }
    let node_wants = |n: &Result<usize, usize>| match *n {
        Ok(e) => wants[e],
        Err(i) => !frozen[i],
    };
    let node_weight = |n: &Result<usize, usize>| match *n {
        Ok(e) => tree.weight[e],
        Err(i) => weight[i],
    };
    let mut out = vec![0.0; tenants];
    // (node, weight it gets), depth first from the root.
    let mut stack: Vec<(usize, f64)> = vec![(entities, 1.0)];
    while let Some((node, share)) = stack.pop() {
        let rule = if node == entities {
            Within::Fairness
        } else {
            tree.within[node]
        };
        let active: Vec<&Result<usize, usize>> =
            children[node].iter().filter(|c| node_wants(c)).collect();
        let gets: Vec<f64> = match rule {
            Within::Fairness => {
                let total: f64 = active.iter().map(|c| node_weight(c)).sum();
                active
                    .iter()
                    .map(|c| share * node_weight(c) / total)
                    .collect()
            }
            Within::Fifo => (0..active.len())
                .map(|k| if k == 0 { share } else { 0.0 })
                .collect(),
        };
        for (child, got) in active.into_iter().zip(gets) {
            match *child {
                Ok(e) => stack.push((e, got)),
                Err(i) => out[i] = got,
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Scenario;

    /// A scenario over one type of 12 GPUs with the given entities (JSON) and tenants
    /// (name, entity, weight).
    fn scenario(entities: &str, tenants: &[(&str, Option<&str>, f64)]) -> Scenario {
        let tenants: Vec<String> = tenants
            .iter()
            .map(|(name, entity, weight)| {
                let entity = entity.map_or(String::new(), |e| format!(r#", "entity": "{e}""#));
                format!(r#"{{"name": "{name}", "throughput": [1], "weight": {weight}{entity}}}"#)
            })
            .collect();
        Scenario::from_json(&format!(
            r#"{{"gpu_types": [{{"name": "v100", "count": 12}}],
                "entities": {entities}, "tenants": [{}]}}"#,
            tenants.join(", ")
        ))
        .unwrap()
    }

    fn problems(s: &Scenario) -> Vec<String> {
        s.instance()
            .unwrap_err()
            .iter()
            .map(|p| p.to_string())
            .collect()
    }

    #[test]
    fn weights_pass_down_by_fairness_and_fifo() {
        // Root: A (2, fairness: a1 w1, a2 w3), B (1, fifo: b1, b2) and c (1, top level).
        let s = scenario(
            r#"[{"name": "A", "weight": 2}, {"name": "B", "within": "fifo"}]"#,
            &[
                ("a1", Some("A"), 1.0),
                ("b1", Some("B"), 1.0),
                ("a2", Some("A"), 3.0),
                ("b2", Some("B"), 1.0),
                ("c", None, 1.0),
            ],
        );
        let inst = s.instance().unwrap();
        let p = |frozen: [bool; 5]| priority_weights(&inst.entities, &inst.weight, &frozen);
        // A gets 2/4 of the root, B 1/4, c 1/4; A's half goes 1:3; B's quarter to b1 first.
        assert_eq!(p([false; 5]), [0.125, 0.25, 0.375, 0.0, 0.25]);
        // a2 and b1 saturated: A's half all to a1, B's quarter to b2 next in line.
        assert_eq!(
            p([false, true, true, false, false]),
            [0.5, 0.0, 0.0, 0.25, 0.25]
        );
        // All of A saturated: B and c share the root 1:1.
        assert_eq!(
            p([true, false, true, false, false]),
            [0.0, 0.5, 0.0, 0.0, 0.5]
        );
        // Nobody left: nothing to give.
        assert_eq!(p([true; 5]), [0.0; 5]);
    }

    #[test]
    fn a_nested_entity_queues_at_its_first_tenant() {
        // X (fifo) holds tenant x1 (listed 2nd) and entity Y (fairness: y1 1st, y2 3rd), so Y
        // is first in X's line; Z (weight 3) is X's sibling.
        let s = scenario(
            r#"[{"name": "X", "within": "fifo"}, {"name": "Y", "parent": "X"},
                {"name": "Z", "weight": 3}]"#,
            &[
                ("y1", Some("Y"), 1.0),
                ("x1", Some("X"), 1.0),
                ("y2", Some("Y"), 1.0),
                ("z1", Some("Z"), 1.0),
            ],
        );
        let inst = s.instance().unwrap();
        let p = |frozen: [bool; 4]| priority_weights(&inst.entities, &inst.weight, &frozen);
        assert_eq!(p([false; 4]), [0.125, 0.0, 0.125, 0.75]);
        assert_eq!(p([true, false, false, false]), [0.0, 0.0, 0.25, 0.75]);
        assert_eq!(p([true, false, true, false]), [0.0, 0.25, 0.0, 0.75]);
    }

    #[test]
    fn bad_trees_are_refused_with_located_messages() {
        let s = scenario(
            r#"[{"name": "A", "parent": "B"}, {"name": "B", "parent": "C"},
                {"name": "C", "parent": "A"}, {"name": "D", "weight": 0},
                {"name": "D", "parent": "nowhere", "weight": -1}]"#,
            &[("t", Some("A"), 1.0), ("u", Some("E"), 1.0)],
        );
        let got = problems(&s);
        let expected = [
            "entities[3].weight: must be finite and > 0 (got 0)",
            "entities[4].name: duplicate name 'D' (also entities[3])",
            "entities[4].weight: must be finite and > 0 (got -1)",
            "entities[4].parent: names no entity 'nowhere' (entities: A, B, C, D, D)",
            "entities[0].parent: the entities form a cycle (A -> B -> C -> A): an entity cannot be inside itself",
            "tenants[1].entity: names no entity 'E' (entities: A, B, C, D, D)",
        ];
        assert_eq!(got, expected);
        // A tree without those faults but with an entity nobody is in.
        let s = scenario(
            r#"[{"name": "A"}, {"name": "B", "parent": "A"}, {"name": "C"}]"#,
            &[("t", Some("B"), 1.0)],
        );
        assert_eq!(
            problems(&s),
            ["entities[2]: entity 'C' is empty: no tenant names it or an entity inside it"]
        );
        // Naming an entity in a scenario that lists none.
        let s = scenario("[]", &[("t", Some("A"), 1.0)]);
        assert_eq!(
            problems(&s),
            ["tenants[0].entity: names no entity 'A' (the scenario lists no entities)"]
        );
        // A bad `within` is a located parse error.
        let err = Scenario::from_json(
            r#"{"gpu_types": [], "tenants": [], "entities": [{"name": "A", "within": "lottery"}]}"#,
        )
        .unwrap_err();
        assert_eq!(err.path, "entities[0].within", "{err}");
        // An entity that is its own parent.
        let s = scenario(
            r#"[{"name": "A", "parent": "A"}]"#,
            &[("t", Some("A"), 1.0)],
        );
        assert_eq!(
            problems(&s),
            ["entities[0].parent: the entities form a cycle (A -> A): an entity cannot be inside itself"]
        );
    }

    #[test]
    fn a_long_chain_and_two_cycles() {
        // 3,000 entities in one chain (each inside the next) with the tenant at the bottom:
        // valid, and walked once each.
        let chain: Vec<String> = (0..3000)
            .map(|k| match k {
                2999 => format!(r#"{{"name": "e{k}"}}"#),
                _ => format!(r#"{{"name": "e{k}", "parent": "e{}"}}"#, k + 1),
            })
            .collect();
        let s = scenario(
            &format!("[{}]", chain.join(", ")),
            &[("t", Some("e0"), 1.0)],
        );
        assert!(s.instance().is_ok());
        // X -> Y -> X and, listed before it, Z inside Y: one cycle, reported at X; W -> W too.
        let s = scenario(
            r#"[{"name": "Z", "parent": "Y"}, {"name": "X", "parent": "Y"},
                {"name": "Y", "parent": "X"}, {"name": "W", "parent": "W"}]"#,
            &[("t", Some("Z"), 1.0), ("u", Some("W"), 1.0)],
        );
        assert_eq!(
            problems(&s),
            [
                "entities[1].parent: the entities form a cycle (X -> Y -> X): an entity cannot be inside itself",
                "entities[3].parent: the entities form a cycle (W -> W): an entity cannot be inside itself",
            ]
        );
    }

    #[test]
    fn entities_round_trip_and_stay_out_of_plain_scenarios() {
        let s = scenario(
            r#"[{"name": "A", "weight": 2, "within": "fifo"}, {"name": "B", "parent": "A"}]"#,
            &[("t", Some("B"), 1.0)],
        );
        assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s);
        let plain = scenario("[]", &[("t", None, 1.0)]);
        assert!(!plain.to_json().contains("entit"), "{}", plain.to_json());
    }
}
