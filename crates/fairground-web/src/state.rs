//! The one reducer that owns the playground's state. Components read it and dispatch actions;
//! the App turns a new `generation` into a (debounced) solve in the web worker and dispatches
//! the answer back, which is dropped if the draft changed meanwhile.

use crate::draft::{grid_columns, Cell, Column, Draft};
use crate::paste::parse_block;
use fairground_core::frontier::Frontier;
use fairground_core::report::PolicyReport;
use fairground_core::{policies, presets, Normalization, Problem, Scenario};
use std::rc::Rc;
use yew::Reducible;

/// Largest scenario the editor holds and solves while typing; bigger ones are for the CLI. Every
/// cell of the grid is an input, so a bigger grid would hold the page's main thread too long on
/// each edit: a paste, import, link or added row past this is refused at once, with a message.
pub const MAX_INTERACTIVE_TENANTS: usize = 150;
pub const MAX_INTERACTIVE_TYPES: usize = 12;
/// Co-located pairs the editor takes: each is a row of 2 x types cells, and each adds a
/// variable per type to gavel-las-packed's program and the Pareto test's (300 pairs at 150 x 12:
/// `fairground compare` 20 s natively against 15.5 s without pairs).
pub const MAX_INTERACTIVE_PAIRS: usize = 300;
/// Pasted text longer than this is refused before it is parsed.
pub const MAX_PASTE_BYTES: usize = 256 * 1024;
/// The strategy-proofness probe runs by itself only up to this many tenants (it re-solves the
/// policy tens of times per tenant); above, it runs when asked.
pub const AUTO_SP_TENANTS: usize = 8;
/// Up to this many tenants the playground's frontier is drawn every 0.05 in eps, above every 0.1.
/// (60 x 6 at 0.05 takes about as long natively, 0.6 s, as 30 x 6 did before the frontier's
/// LPs started from their neighbours' rows, BENCHMARKS.md.)
pub const FINE_FRONTIER_TENANTS: usize = 60;
/// Past this many tenants the page does not compute the frontier (33 LPs of oef-coop's size and
/// every policy: 1.5 s natively at 100 x 6, 7.7 s at 150 x 12, BENCHMARKS.md); it points to the
/// CLI instead.
pub const MAX_FRONTIER_TENANTS: usize = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// One policy, in depth.
    Single,
    /// Every policy side by side.
    Compare,
    /// The price of fairness: efficiency under relaxed guarantees, every policy placed on it.
    Frontier,
}

impl Mode {
    /// The mode's name in a link (`codec::View`); one policy, the default, has none.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Single => "",
            Mode::Compare => "compare",
            Mode::Frontier => "frontier",
        }
    }

    /// The mode a link names, if it names one.
    pub fn from_name(name: &str) -> Option<Mode> {
        [Mode::Compare, Mode::Frontier]
            .into_iter()
            .find(|m| m.name() == name)
    }
}

/// What the worker answered for one generation.
#[derive(Debug, Clone, PartialEq)]
pub struct Results {
    pub generation: u64,
    pub scenario: Scenario,
    pub reports: Vec<Result<PolicyReport, String>>,
    pub sp_probed: bool,
    /// The price-of-fairness frontier (Frontier mode only), or why it failed.
    pub frontier: Option<Result<Frontier, String>>,
    /// Seconds one policy's solve and checks took, on average, where this answer was computed
    /// (timed when it ran without the probe): what the SP badge estimates the probe's time from.
    pub seconds_per_policy: Option<f64>,
}

/// Past this many seconds, estimated, the page does not offer the strategy-proofness probe: the
/// watchdog gives up on an answer after 30 s, and the worker would stay busy long after.
pub const PAGE_PROBE_SECONDS: f64 = 20.0;

/// What the probe would cost on `scenario` with the answer's timing: its re-solves and, when
/// timed, the seconds they would take.
pub fn probe_cost(scenario: &Scenario, seconds_per_policy: Option<f64>) -> (usize, Option<f64>) {
    let types = scenario.gpu_types.len();
    let solves = fairground_core::SpProbeConfig::default().solves(scenario.tenants.len(), types);
    (solves, seconds_per_policy.map(|s| s * solves as f64))
}

#[derive(Debug, Clone, PartialEq)]
pub struct AppState {
    pub draft: Draft,
    pub policy: String,
    pub mode: Mode,
    /// Every problem of the current draft, located (empty when it is valid).
    pub problems: Vec<Problem>,
    /// The current draft's scenario when it is valid and small enough to solve now.
    pub solvable: Option<Scenario>,
    /// Bumped whenever something to solve changes; a reply for an older one is stale.
    pub generation: u64,
    /// Whether the next solve includes the SP probe.
    pub want_sp: bool,
    /// The last answer; stays on screen while the draft is invalid or a solve is running.
    pub results: Option<Rc<Results>>,
    pub solving: bool,
    /// A message for the user that is not about one cell (a bad link, a failed import).
    pub notice: Option<String>,
    /// Earlier and undone drafts, for undo and redo.
    pub history: History,
}

/// How many drafts undo keeps: a 150 x 12 draft is about 30 KB, so at most a few MB.
pub const UNDO_DEPTH: usize = 100;

/// Drafts to go back to and forward to, newest last. Typing in one cell is one step: edits to
/// the cell last edited join the step its first keystroke opened.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct History {
    undo: Vec<Draft>,
    redo: Vec<Draft>,
    typing_in: Option<Cell>,
}

impl History {
    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    /// Records `before` as the step back from a change; `edited` is the cell typed in, if the
    /// change was typing (which joins the previous step when it is the same cell).
    fn record(&mut self, before: Draft, edited: Option<Cell>) {
        let joins = edited.is_some() && edited == self.typing_in;
        self.typing_in = edited;
        self.redo.clear();
        if !joins {
            if self.undo.len() == UNDO_DEPTH {
                self.undo.remove(0);
            }
            self.undo.push(before);
        }
    }
}

pub enum Action {
    Edit(Cell, String),
    AddType,
    RemoveType(usize),
    MoveType(usize, isize),
    AddTenant,
    RemoveTenant(usize),
    MoveTenant(usize, isize),
    /// Pasted text with its top-left at a cell of the tenant grid.
    Paste {
        cell: Cell,
        text: String,
    },
    SetNormalization(String),
    AddEntity,
    RemoveEntity(usize),
    /// A new co-located pair (gavel-las-packed), and dropping pair p.
    AddPair,
    RemovePair(usize),
    /// An entity's `within` rule: `fairness` or `fifo`.
    SetWithin(usize, String),
    LoadPreset(String),
    /// A whole scenario from a file or a link.
    Load(Scenario),
    /// A saved draft (from storage), kept as typed.
    Restore(Draft),
    SelectPolicy(String),
    SetMode(Mode),
    ProbeStrategyProofness,
    Solved(Rc<Results>),
    SolveFailed {
        generation: u64,
        message: String,
    },
    Notice(Option<String>),
    /// Back to the draft before the last change (an edit, a paste, a preset, an import), and
    /// forward again.
    Undo,
    Redo,
}

impl AppState {
    /// The state for `draft`, or for the default scenario with a notice when `draft` is past
    /// the editor's limits (a link or saved draft from elsewhere).
    pub fn new(draft: Draft, policy: &str) -> Self {
        let oversized = too_big(
            "The opened scenario",
            draft.tenants.len(),
            draft.types.len(),
        )
        .or_else(|| too_many_pairs("The opened scenario", draft.co_located.len()))
        .map(|why| {
            why.replace(
                "nothing was changed",
                "the default scenario is shown instead",
            )
        });
        let draft = if oversized.is_some() {
            Draft::from_scenario(&presets::default_scenario())
        } else {
            draft
        };
        let mut state = AppState {
            draft,
            policy: policy.to_string(),
            mode: Mode::Single,
            problems: Vec::new(),
            solvable: None,
            generation: 0,
            want_sp: false,
            results: None,
            solving: false,
            notice: oversized,
            history: History::default(),
        };
        state.revalidate();
        state
    }

    /// The policies the next solve runs.
    pub fn policies_to_run(&self) -> Vec<String> {
        match self.mode {
            Mode::Single => vec![self.policy.clone()],
            Mode::Compare => policies::CATALOGUE
                .iter()
                .map(|p| p.name.to_string())
                .collect(),
            // The frontier solves and places every policy itself.
            Mode::Frontier => vec![],
        }
    }

    /// The eps step of the frontier the next solve computes (Frontier mode only): 0.05, or 0.1
    /// past [`FINE_FRONTIER_TENANTS`] tenants, none past [`MAX_FRONTIER_TENANTS`].
    pub fn frontier_step(&self) -> Option<f64> {
        let tenants = self.solvable.as_ref()?.tenants.len();
        if tenants > MAX_FRONTIER_TENANTS {
            return None;
        }
        (self.mode == Mode::Frontier).then_some(if tenants <= FINE_FRONTIER_TENANTS {
            fairground_core::frontier::DEFAULT_STEP
        } else {
            0.1
        })
    }

    /// Re-parses and re-validates the draft; a solvable change starts a new generation.
    fn revalidate(&mut self) {
        let checked = self
            .draft
            .to_scenario()
            .and_then(|s| s.instance().map(|inst| (s, inst)));
        match checked {
            Ok((scenario, inst)) => {
                self.problems.clear();
                self.want_sp = inst.tenants() <= AUTO_SP_TENANTS && self.mode == Mode::Single;
                self.solvable = Some(scenario);
                self.bump();
            }
            Err(problems) => {
                self.problems = problems;
                self.solvable = None;
            }
        }
    }

    fn bump(&mut self) {
        self.generation += 1;
        self.solving = self.solvable.is_some();
    }

    /// Solves the current scenario right here with the page's own engine, without the SP
    /// probe, when it is small enough (`page_engine::suits`): used once when the page opens, so
    /// the first render has its chart. On failure, the worker answers.
    pub fn solve_on_page(&mut self) {
        let Some(scenario) = self.solvable.clone() else {
            return;
        };
        let request = crate::worker::SolveRequest::new(
            &scenario,
            self.policies_to_run(),
            false,
            self.frontier_step(),
        );
        let cells = scenario.tenants.len() * scenario.gpu_types.len();
        if !crate::page_engine::suits(&request, cells) {
            return;
        }
        if let Ok(response) = crate::page_engine::solve(&request) {
            self.adopt_first_answer(scenario, response);
        }
    }

    /// Takes an answer for the current generation solved without the probe (the probe, when
    /// wanted, follows from the worker).
    pub fn adopt_first_answer(
        &mut self,
        scenario: Scenario,
        response: crate::worker::SolveResponse,
    ) {
        self.results = Some(Rc::new(Results {
            generation: self.generation,
            scenario,
            reports: response.reports,
            sp_probed: false,
            frontier: response.frontier,
            seconds_per_policy: response.seconds_per_policy,
        }));
        self.solving = self.want_sp;
    }

    /// Whether the probe is wanted but its answer has not arrived yet.
    pub fn probe_pending(&self) -> bool {
        self.want_sp
            && self
                .results
                .as_ref()
                .is_some_and(|r| !r.sp_probed && r.generation == self.generation)
    }

    /// Whether the tenant grid shows the work column: the open policy reads it
    /// (gavel-min-makespan), or a tenant has a value there.
    pub fn shows_work(&self) -> bool {
        fairground_core::policies::info(&self.policy).is_some_and(|p| p.reads.work)
            || self.draft.tenants.iter().any(|t| !t.work.trim().is_empty())
    }

    /// Whether it shows the entity column: the open policy reads it (gavel-hierarchical), or
    /// an entity exists or is named.
    pub fn shows_entity(&self) -> bool {
        fairground_core::policies::info(&self.policy).is_some_and(|p| p.reads.entities)
            || !self.draft.entities.is_empty()
            || self
                .draft
                .tenants
                .iter()
                .any(|t| !t.entity.trim().is_empty())
    }

    /// The tenant grid's columns as shown.
    pub fn grid_columns(&self) -> Vec<Column> {
        grid_columns(
            self.draft.types.len(),
            self.shows_work(),
            self.shows_entity(),
        )
    }

    /// The message for a cell, if it has a problem: its own, else its row's (a tenant's whole
    /// throughput row, `tenants[0].throughput`, marks each of the row's cells; issue 78 found
    /// the banner asking to fix marked cells with none marked).
    pub fn problem_at(&self, cell: Cell) -> Option<&str> {
        let mut path = cell.path();
        loop {
            if let Some(p) = self.problems.iter().find(|p| p.path == path) {
                return Some(p.message.as_str());
            }
            match path.rfind('[') {
                Some(at) if path.ends_with(']') => path.truncate(at),
                _ => return None,
            }
        }
    }
}

/// The message for a grid past the editor's limits, if `tenants` x `types` is.
fn too_big(what: &str, tenants: usize, types: usize) -> Option<String> {
    (tenants > MAX_INTERACTIVE_TENANTS || types > MAX_INTERACTIVE_TYPES).then(|| {
        format!(
            "{what} would make {tenants} tenants x {types} GPU types, past the editor's \
             {MAX_INTERACTIVE_TENANTS} x {MAX_INTERACTIVE_TYPES}; nothing was changed. Solve \
             bigger scenarios with `fairground solve FILE` (see docs/cli.md)."
        )
    })
}

/// The message for more co-located pairs than the editor takes, if `pairs` is.
pub fn too_many_pairs(what: &str, pairs: usize) -> Option<String> {
    (pairs > MAX_INTERACTIVE_PAIRS).then(|| {
        format!(
            "{what} would have {pairs} co-located pairs, past the editor's \
             {MAX_INTERACTIVE_PAIRS}; nothing was changed. Solve it with `fairground solve FILE` \
             (see docs/cli.md)."
        )
    })
}

impl Default for AppState {
    fn default() -> Self {
        AppState::new(
            Draft::from_scenario(&presets::default_scenario()),
            fairground_core::policies::DEFAULT_POLICY,
        )
    }
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        let typed_in = match action {
            Action::Edit(cell, _) => Some(cell),
            _ => None,
        };
        // A saved draft opening the page is where history starts, not a step in it.
        let recorded = !matches!(action, Action::Restore(_) | Action::Undo | Action::Redo);
        match self.apply(&mut next, action) {
            Outcome::Unchanged => return self,
            Outcome::Final => return Rc::new(next),
            Outcome::Edited => {}
        }
        if recorded {
            if next.draft != self.draft {
                next.history.record(self.draft.clone(), typed_in);
                // A notice about an earlier change goes with the next one.
                if next.notice == self.notice {
                    next.notice = None;
                }
            } else {
                // Anything else (a policy chosen, a mode) ends a run of typing in one cell.
                next.history.typing_in = None;
            }
        }
        next.revalidate();
        if let (Some(before), Some(after)) = (&self.solvable, &next.solvable) {
            if let Some(note) = reference_change(before, after) {
                next.notice = Some(note);
            }
        }
        Rc::new(next)
    }
}

/// What an action did to the next state: edited it (recorded in history and revalidated), left
/// everything as it was, or set what it sets and nothing more (a notice, an answer).
enum Outcome {
    Edited,
    Unchanged,
    Final,
}

impl AppState {
    /// Applies `action` to `next` (a copy of `self`).
    fn apply(&self, next: &mut AppState, action: Action) -> Outcome {
        let refuse = |next: &mut AppState, why: Option<String>| match why {
            Some(why) => {
                next.notice = Some(why);
                true
            }
            None => false,
        };
        match action {
            Action::Edit(cell, text) => next.draft.set(cell, &text),
            Action::AddType => {
                let size = (next.draft.tenants.len(), next.draft.types.len() + 1);
                if refuse(next, too_big("Another GPU type", size.0, size.1)) {
                    return Outcome::Final;
                }
                next.draft.add_type();
            }
            Action::RemoveType(j) => next.draft.remove_type(j),
            Action::MoveType(j, by) => next.draft.move_type(j, by),
            Action::AddTenant => {
                let size = (next.draft.tenants.len() + 1, next.draft.types.len());
                if refuse(next, too_big("Another tenant", size.0, size.1)) {
                    return Outcome::Final;
                }
                next.draft.add_tenant();
            }
            Action::RemoveTenant(i) => next.draft.remove_tenant(i),
            Action::MoveTenant(i, by) => next.draft.move_tenant(i, by),
            Action::Paste { cell, text } => return self.paste(next, cell, &text),
            Action::SetNormalization(n) => next.draft.normalization = n,
            Action::AddEntity => next.draft.add_entity(),
            Action::RemoveEntity(e) => next.draft.remove_entity(e),
            Action::AddPair => {
                let pairs = next.draft.co_located.len() + 1;
                if refuse(next, too_many_pairs("Another pair", pairs)) {
                    return Outcome::Final;
                }
                next.draft.add_pair();
            }
            Action::RemovePair(p) => next.draft.remove_pair(p),
            Action::SetWithin(e, within) => next.draft.set_within(e, &within),
            Action::LoadPreset(id) => match presets::all().into_iter().find(|p| p.id == id) {
                Some(p) => {
                    next.draft = Draft::from_scenario(&p.scenario);
                    next.notice = None;
                }
                None => return Outcome::Unchanged,
            },
            Action::Load(scenario) => {
                let size = (scenario.tenants.len(), scenario.gpu_types.len());
                let why = too_big("This scenario", size.0, size.1)
                    .or_else(|| too_many_pairs("This scenario", scenario.co_located.len()));
                if refuse(next, why) {
                    return Outcome::Final;
                }
                next.draft = Draft::from_scenario(&scenario);
                next.notice = None;
            }
            Action::Restore(draft) => {
                let why = too_big("The saved draft", draft.tenants.len(), draft.types.len())
                    .or_else(|| too_many_pairs("The saved draft", draft.co_located.len()));
                if refuse(next, why) {
                    return Outcome::Final;
                }
                next.draft = draft;
            }
            Action::SelectPolicy(name) => {
                if policies::info(&name).is_none() {
                    next.notice = Some(format!("unknown policy '{name}'"));
                    return Outcome::Final;
                }
                next.policy = name;
            }
            Action::SetMode(mode) => next.mode = mode,
            Action::Undo => return next.step_history(true),
            Action::Redo => return next.step_history(false),
            answer => return self.answer(next, answer),
        }
        Outcome::Edited
    }

    /// The actions that set what they set and nothing more: the solver's answers and failures,
    /// a notice, and asking for the probe.
    fn answer(&self, next: &mut AppState, action: Action) -> Outcome {
        match action {
            Action::ProbeStrategyProofness => {
                if next.solvable.is_some() {
                    next.want_sp = true;
                    next.bump();
                }
            }
            Action::Solved(results) => {
                if results.generation != self.generation {
                    return Outcome::Unchanged; // stale: the draft changed since this solve started
                }
                // Plain results first; the probe's answer for the same generation follows.
                next.solving = self.want_sp && !results.sp_probed;
                next.results = Some(results);
            }
            Action::SolveFailed {
                generation,
                message,
            } => {
                if generation == self.generation {
                    next.solving = false;
                    next.notice = Some(message);
                }
            }
            Action::Notice(notice) => next.notice = notice,
            // Edits are applied by `apply`.
            _ => return Outcome::Unchanged,
        }
        Outcome::Final
    }

    /// A block pasted at `cell`: rows and columns from there, refused past the editor's limits,
    /// with a note on cells past the grid's last column.
    fn paste(&self, next: &mut AppState, cell: Cell, text: &str) -> Outcome {
        if text.len() > MAX_PASTE_BYTES {
            next.notice = Some(format!(
                "The pasted text is {} KB, over the editor's {} KB limit; nothing was \
                 changed. Save it as a scenario file and run `fairground solve` on it.",
                text.len() / 1024,
                MAX_PASTE_BYTES / 1024
            ));
            return Outcome::Final;
        }
        let columns = self.grid_columns();
        let Some((tenant, from)) =
            Column::of(cell).and_then(|(i, c)| Some((i, columns.iter().position(|&k| k == c)?)))
        else {
            return Outcome::Unchanged;
        };
        let block = parse_block(text);
        let rows = tenant + block.len();
        let cols = match columns[from] {
            Column::Throughput(j) => j + block.iter().map(Vec::len).max().unwrap_or(0),
            _ => 0,
        };
        let (tenants, types) = (
            rows.max(next.draft.tenants.len()),
            cols.max(next.draft.types.len()),
        );
        if let Some(why) = too_big("The pasted block", tenants, types) {
            next.notice = Some(why);
            return Outcome::Final;
        }
        let left_out = next.draft.paste(tenant, &columns, from, &block);
        next.notice = (left_out > 0).then(|| {
            format!("{left_out} pasted cells fell past the grid's last column and were left out.")
        });
        Outcome::Edited
    }

    /// One step back (`undo`) or forward through the drafts' history.
    fn step_history(&mut self, undo: bool) -> Outcome {
        let h = &mut self.history;
        let (from, to) = if undo {
            (&mut h.undo, &mut h.redo)
        } else {
            (&mut h.redo, &mut h.undo)
        };
        let Some(draft) = from.pop() else {
            return Outcome::Unchanged;
        };
        to.push(std::mem::replace(&mut self.draft, draft));
        h.typing_in = None;
        self.notice = None;
        Outcome::Edited
    }
}

/// Each tenant's reference type for its speedups under "slowest" or "fastest" (its slowest or
/// fastest type it can run on; the first of equals), or None for other normalisations.
fn references(s: &Scenario) -> Option<Vec<Option<usize>>> {
    let fastest = match s.normalization {
        Normalization::Slowest => false,
        Normalization::Fastest => true,
        _ => return None,
    };
    Some(
        s.tenants
            .iter()
            .map(|t| {
                let mut best: Option<usize> = None;
                for (j, &x) in t.throughput.iter().enumerate() {
                    let better = |b: usize| {
                        if fastest {
                            x > t.throughput[b]
                        } else {
                            x < t.throughput[b]
                        }
                    };
                    if x > 0.0 && best.is_none_or(better) {
                        best = Some(j);
                    }
                }
                best
            })
            .collect(),
    )
}

/// What a change did to the tenants' speedup references, in words, when it moved any: an edit
/// that makes another type a tenant's slowest rescales every speedup of that tenant, and with
/// it the efficiency, which would otherwise jump unexplained.
fn reference_change(before: &Scenario, after: &Scenario) -> Option<String> {
    let types = |s: &Scenario| {
        s.gpu_types
            .iter()
            .map(|t| t.name.clone())
            .collect::<Vec<_>>()
    };
    let names = |s: &Scenario| s.tenants.iter().map(|t| t.name.clone()).collect::<Vec<_>>();
    if types(before) != types(after)
        || names(before) != names(after)
        || before.normalization != after.normalization
    {
        return None;
    }
    let (old, new) = (references(before)?, references(after)?);
    let moved: Vec<String> = old
        .iter()
        .zip(&new)
        .zip(&after.tenants)
        .filter(|((a, b), _)| a != b)
        .filter_map(|((a, b), t)| {
            let name = |j: &Option<usize>| j.map(|j| after.gpu_types[j].name.clone());
            Some(format!(
                "{} now relative to {} (was {})",
                t.name,
                name(b)?,
                name(a)?
            ))
        })
        .collect();
    (!moved.is_empty()).then(|| {
        format!(
            "The speedup reference changed ({} type): {}. Their speedups, and the efficiency, are rescaled.",
            String::from(after.normalization.clone()),
            moved.join("; ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worker::{solve_request, SolveRequest};

    fn answer(state: &AppState) -> Rc<Results> {
        let scenario = state.solvable.clone().unwrap();
        let request = SolveRequest::new(
            &scenario,
            state.policies_to_run(),
            state.want_sp,
            state.frontier_step(),
        );
        let response = solve_request(&request).unwrap();
        Rc::new(Results {
            generation: state.generation,
            scenario,
            reports: response.reports,
            sp_probed: state.want_sp,
            frontier: response.frontier,
            seconds_per_policy: response.seconds_per_policy,
        })
    }

    #[test]
    fn frontier_mode_solves_the_frontier_with_every_policy_placed() {
        let state = Rc::new(AppState::default()).reduce(Action::SetMode(Mode::Frontier));
        assert_eq!(state.frontier_step(), Some(0.05));
        assert!(state.policies_to_run().is_empty() && state.solving);
        let results = answer(&state);
        let state = state.reduce(Action::Solved(results));
        let f = state
            .results
            .as_ref()
            .unwrap()
            .frontier
            .clone()
            .unwrap()
            .unwrap();
        assert_eq!(f.eps.len(), 21);
        assert_eq!(f.policies.len(), policies::all().len());
        // Past the page's limit no frontier is asked for (the view points to the CLI).
        let big = presets::random_scenario(MAX_FRONTIER_TENANTS + 1, 2, 1, false);
        let state = state.reduce(Action::Load(big));
        assert_eq!(state.mode, Mode::Frontier);
        assert_eq!(state.frontier_step(), None);
        // Back to one policy: no frontier is asked for.
        let state = state.reduce(Action::SetMode(Mode::Single));
        assert_eq!(state.frontier_step(), None);
    }

    /// The probe's cost as the SP badge states it: tenants x (types x 10 grid factors + 16 random
    /// rows) re-solves, each as long as one policy took in the plain answer.
    #[test]
    fn the_probe_costs_its_misreports_times_one_solve() {
        let scenario = fairground_core::presets::random_scenario(60, 8, 1, false);
        assert_eq!(probe_cost(&scenario, None), (5760, None));
        let (solves, seconds) = probe_cost(&scenario, Some(0.01));
        assert_eq!(solves, 5760);
        assert!((seconds.unwrap() - 57.6).abs() < 1e-9 && seconds.unwrap() > PAGE_PROBE_SECONDS);
    }

    #[test]
    fn opens_on_oef_ready_to_solve() {
        let state = AppState::default();
        assert_eq!(state.policy, "oef-coop");
        assert!(state.solving && state.problems.is_empty());
        let results = answer(&state);
        let state = Rc::new(state).reduce(Action::Solved(results));
        assert!(!state.solving);
        let report = state.results.as_ref().unwrap().reports[0].as_ref().unwrap();
        assert!(
            report.properties.sharing_incentive.holds
                && report.properties.envy_freeness.holds == Some(true)
        );
    }

    #[test]
    fn an_answer_solved_on_the_page_is_shown_then_probed() {
        let mut state = AppState::default();
        let request = SolveRequest::new(
            state.solvable.as_ref().unwrap(),
            state.policies_to_run(),
            false,
            None,
        );
        let scenario = state.solvable.clone().unwrap();
        state.adopt_first_answer(scenario, solve_request(&request).unwrap());
        let plain = state.results.clone().expect("shown");
        assert!(!plain.sp_probed && state.want_sp && state.probe_pending() && state.solving);
        let probed = answer(&state); // want_sp: the second pass runs the probe
        let state = Rc::new(state).reduce(Action::Solved(probed));
        assert!(!state.probe_pending() && !state.solving);
        let report = state.results.as_ref().unwrap().reports[0].as_ref().unwrap();
        assert!(report.properties.strategy_proofness_probe.is_some());
    }

    #[test]
    fn an_invalid_edit_keeps_the_last_results_and_locates_the_problem() {
        let state = Rc::new(AppState::default());
        let results = answer(&state);
        let state = state.reduce(Action::Solved(results.clone()));
        let generation = state.generation;
        let state = state.reduce(Action::Edit(Cell::Throughput(0, 1), "-3".into()));
        assert_eq!(state.generation, generation, "nothing new to solve");
        assert_eq!(
            state.problem_at(Cell::Throughput(0, 1)),
            Some("must be finite and >= 0 (got -3)")
        );
        assert_eq!(state.results, Some(results));
        assert_eq!(state.draft.text(Cell::Throughput(0, 1)), "-3");
    }

    #[test]
    fn a_stale_answer_is_dropped() {
        let state = Rc::new(AppState::default());
        let old = answer(&state);
        let state = state.reduce(Action::Edit(Cell::Throughput(0, 1), "3".into()));
        let state = state.reduce(Action::Solved(old));
        assert!(state.results.is_none() && state.solving);
    }

    #[test]
    fn too_big_scenarios_are_refused_at_once_and_nothing_is_lost() {
        let state = Rc::new(AppState::default());
        let before = state.draft.clone();
        // A file or link past the editor's limits.
        let big = presets::random_scenario(MAX_INTERACTIVE_TENANTS + 1, 2, 1, false);
        let after = state.clone().reduce(Action::Load(big));
        assert_eq!(after.draft, before);
        assert!(after
            .notice
            .as_deref()
            .unwrap()
            .contains("151 tenants x 2 GPU types"));
        // A 10,000-row paste: refused before the grid grows.
        let rows = "1\t2\t3\n".repeat(10_000);
        let after = state.clone().reduce(Action::Paste {
            cell: Cell::Throughput(0, 0),
            text: rows,
        });
        assert_eq!(after.draft, before);
        assert!(after
            .notice
            .as_deref()
            .unwrap()
            .contains("10000 tenants x 3 GPU types"));
        // A file with more co-located pairs than the editor takes (each is a row of cells).
        let mut many = presets::gavel_space_sharing().scenario;
        let pair = many.co_located[0].clone();
        many.co_located = vec![pair; MAX_INTERACTIVE_PAIRS + 1];
        let after = state.clone().reduce(Action::Load(many));
        assert_eq!(after.draft, before);
        assert!(after
            .notice
            .as_deref()
            .unwrap()
            .contains("301 co-located pairs"));
        // And "+ pair" stops at the limit, saying why.
        let mut full = (*state).clone();
        full.draft.co_located = vec![
            full.draft.co_located.first().cloned().unwrap_or(
                crate::draft::DraftPair {
                    tenants: vec![],
                    throughput: vec![]
                },
            );
            MAX_INTERACTIVE_PAIRS
        ];
        let after = Rc::new(full).reduce(Action::AddPair);
        assert_eq!(after.draft.co_located.len(), MAX_INTERACTIVE_PAIRS);
        assert!(after
            .notice
            .as_deref()
            .unwrap()
            .contains("301 co-located pairs"));
        // Text past the paste limit is refused unparsed.
        let huge = "1\t".repeat(MAX_PASTE_BYTES);
        let after = state.clone().reduce(Action::Paste {
            cell: Cell::Throughput(0, 0),
            text: huge,
        });
        assert_eq!(after.draft, before);
        assert!(after.notice.as_deref().unwrap().contains("KB limit"));
        // A block that fits is pasted.
        let after = state.reduce(Action::Paste {
            cell: Cell::Throughput(0, 0),
            text: "9\t9\t9".into(),
        });
        assert_eq!(after.draft.text(Cell::Throughput(0, 2)), "9");
        // An oversized draft opened from elsewhere falls back to the default, with the reason.
        let mut huge_draft = Draft::from_scenario(&presets::default_scenario());
        for _ in 0..MAX_INTERACTIVE_TENANTS {
            huge_draft.add_tenant();
        }
        let opened = AppState::new(huge_draft, "oef-coop");
        assert_eq!(opened.draft, before);
        assert!(opened
            .notice
            .as_deref()
            .unwrap()
            .contains("The opened scenario"));
    }

    #[test]
    fn an_unknown_policy_is_a_notice_not_a_panic() {
        let state = Rc::new(AppState::default()).reduce(Action::SelectPolicy("nope".into()));
        assert_eq!(state.policy, "oef-coop");
        assert_eq!(state.notice.as_deref(), Some("unknown policy 'nope'"));
    }

    #[test]
    fn compare_mode_runs_every_policy() {
        let state = Rc::new(AppState::default()).reduce(Action::SetMode(Mode::Compare));
        assert_eq!(state.policies_to_run().len(), policies::all().len());
        let results = answer(&state);
        assert!(results.reports.iter().all(|r| r.is_ok()));
    }

    #[test]
    fn typing_in_one_cell_is_one_step_back_and_redo_returns_it() {
        let start = Rc::new(AppState::default());
        let before = start.draft.text(Cell::Throughput(0, 0)).to_string();
        let mut state = start.clone();
        for typed in ["7", "7.", "7.5"] {
            state = state.reduce(Action::Edit(Cell::Throughput(0, 0), typed.into()));
        }
        state = state.reduce(Action::Edit(Cell::Weight(1), "2".into()));
        let state = state.reduce(Action::Undo);
        assert_eq!(state.draft.text(Cell::Throughput(0, 0)), "7.5");
        assert_eq!(
            state.draft.text(Cell::Weight(1)),
            start.draft.text(Cell::Weight(1))
        );
        let state = state.reduce(Action::Undo);
        assert_eq!(state.draft, start.draft);
        assert_eq!(state.draft.text(Cell::Throughput(0, 0)), before);
        assert!(!state.history.can_undo());
        // Undone changes come back in order, and are solved again.
        let generation = state.generation;
        let state = state.reduce(Action::Redo).reduce(Action::Redo);
        assert_eq!(state.draft.text(Cell::Throughput(0, 0)), "7.5");
        assert_eq!(state.draft.text(Cell::Weight(1)), "2");
        assert!(state.generation > generation && state.solvable.is_some());
        assert!(!state.history.can_redo());
    }

    #[test]
    fn a_preset_can_be_undone_and_a_new_change_drops_the_redo() {
        let start = Rc::new(AppState::default());
        let edited = start.reduce(Action::Edit(Cell::TenantName(0), "mine".into()));
        let preset = edited
            .clone()
            .reduce(Action::LoadPreset("textbook-2x2".into()));
        assert_ne!(preset.draft, edited.draft);
        let back = preset.reduce(Action::Undo);
        assert_eq!(back.draft, edited.draft);
        assert_eq!(back.draft.text(Cell::TenantName(0)), "mine");
        assert!(back.history.can_redo());
        let changed = back.reduce(Action::AddTenant);
        assert!(!changed.history.can_redo());
        // Nothing to undo or redo leaves the state as it is.
        let fresh = Rc::new(AppState::default());
        assert!(Rc::ptr_eq(&fresh.clone().reduce(Action::Redo), &fresh));
        assert!(Rc::ptr_eq(&fresh.clone().reduce(Action::Undo), &fresh));
    }

    #[test]
    fn a_change_of_speedup_reference_is_announced() {
        // The textbook 2 x 2: vision runs 1 on slow and 2 on fast, so its reference is slow.
        let state = Rc::new(AppState::default()).reduce(Action::LoadPreset("textbook-2x2".into()));
        assert!(state.notice.is_none());
        let vision_slow = (0..2)
            .find(|&j| state.draft.types[j].name == "slow")
            .unwrap();
        let edited = state.reduce(Action::Edit(Cell::Throughput(0, vision_slow), "3".into()));
        let note = edited.notice.clone().unwrap();
        assert!(
            note.contains("vision now relative to fast (was slow)"),
            "{note}"
        );
        // An edit that keeps every reference says nothing.
        let again = edited.reduce(Action::Edit(Cell::Throughput(0, vision_slow), "4".into()));
        assert!(again.notice.is_none());
    }

    #[test]
    fn history_keeps_the_last_hundred_steps() {
        let mut state = Rc::new(AppState::default());
        for k in 0..(UNDO_DEPTH + 20) {
            // Alternating cells: each edit is its own step.
            state = state.reduce(Action::Edit(Cell::Weight(k % 2), format!("{}", k + 1)));
        }
        for _ in 0..(UNDO_DEPTH + 20) {
            state = state.reduce(Action::Undo);
        }
        // The oldest 20 steps are gone: the draft is the one after the 20th edit.
        assert_eq!(state.draft.text(Cell::Weight(1)), "20");
        assert_eq!(state.draft.text(Cell::Weight(0)), "19");
    }
}
