//! The one reducer that owns the playground's state. Components read it and dispatch actions.

use fairground_core::{policies, presets, Instance, Scenario, Solution};
use std::rc::Rc;
use yew::Reducible;

/// A solved scenario: the instance and what the selected policy made of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub instance: Rc<Instance>,
    pub solution: Rc<Solution>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct AppState {
    pub scenario: Scenario,
    pub policy: String,
    /// The last solve: an outcome, or every message that explains why there is none.
    pub result: Result<Outcome, Vec<String>>,
}

pub enum Action {
    LoadPreset(String),
    SelectPolicy(String),
}

impl AppState {
    pub fn new(scenario: Scenario, policy: &str) -> Self {
        let result = solve(&scenario, policy);
        AppState {
            scenario,
            policy: policy.to_string(),
            result,
        }
    }
}

impl Default for AppState {
    fn default() -> Self {
        AppState::new(presets::default_scenario(), "oef-coop")
    }
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let next = match action {
            Action::LoadPreset(id) => match presets::all().into_iter().find(|p| p.id == id) {
                Some(preset) => AppState::new(preset.scenario, &self.policy),
                None => return self,
            },
            Action::SelectPolicy(name) => AppState::new(self.scenario.clone(), &name),
        };
        Rc::new(next)
    }
}

/// Validates and solves; failures come back as readable, located messages.
pub fn solve(scenario: &Scenario, policy: &str) -> Result<Outcome, Vec<String>> {
    let instance = scenario
        .instance()
        .map_err(|problems| problems.iter().map(|p| p.to_string()).collect::<Vec<_>>())?;
    let policy =
        policies::by_name(policy).ok_or_else(|| vec![format!("unknown policy '{policy}'")])?;
    let solution = policy.solve(&instance).map_err(|e| vec![e.to_string()])?;
    Ok(Outcome {
        instance: Rc::new(instance),
        solution: Rc::new(solution),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_on_oef_and_switches_policy() {
        let state = Rc::new(AppState::default());
        assert_eq!(state.policy, "oef-coop");
        let oef = state.result.clone().expect("the default preset solves");
        assert_eq!(oef.instance.tenants(), 6);
        let state = state.reduce(Action::SelectPolicy("equal-share".into()));
        let equal = state.result.clone().unwrap();
        // Equal split of 4+4+4 GPUs over 6 tenants: 2/3 of each type each.
        assert!((equal.solution.allocation.gpus[0][0] - 2.0 / 3.0).abs() < 1e-12);
        assert!(oef.solution.objective >= equal.solution.objective);
    }

    #[test]
    fn an_unknown_policy_is_an_error_not_a_panic() {
        let state = Rc::new(AppState::default()).reduce(Action::SelectPolicy("nope".into()));
        assert_eq!(state.result, Err(vec!["unknown policy 'nope'".to_string()]));
    }
}
