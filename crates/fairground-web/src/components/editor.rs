//! The scenario editor: GPU types, tenants and the throughput grid as text cells, each marked
//! with the engine's message when invalid. Dispatches to the app's state; reads the draft.

use crate::draft::{neighbour, Cell, Draft};
use crate::state::{Action, AppState};
use fairground_core::presets;
use wasm_bindgen::JsCast;
use yew::prelude::*;
use yew::UseReducerDispatcher;

#[derive(Properties, PartialEq)]
pub struct EditorProps {
    pub state: UseReducerHandle<AppState>,
}

/// One text cell of the editor: marks itself invalid with the engine's message.
#[derive(Properties, PartialEq)]
struct CellInputProps {
    cell: Cell,
    label: AttrValue,
    text: AttrValue,
    problem: Option<AttrValue>,
    on_edit: Callback<(Cell, String)>,
    #[prop_or_default]
    on_paste: Option<Callback<(Cell, String)>>,
    /// Moves the focus (rows, columns) from this cell, as arrow keys and Enter ask.
    #[prop_or_default]
    on_move: Option<Callback<(Cell, isize, isize)>>,
    #[prop_or_default]
    numeric: bool,
}

/// The step an arrow key or Enter asks for in the grid: up and down always, left and right
/// only when the caret is at the start or the end of the cell's text (so it still moves within
/// the text), Enter down and Shift+Enter up.
pub fn key_step(key: &str, shift: bool, at_start: bool, at_end: bool) -> Option<(isize, isize)> {
    match key {
        "ArrowUp" => Some((-1, 0)),
        "ArrowDown" => Some((1, 0)),
        "Enter" => Some((if shift { -1 } else { 1 }, 0)),
        "ArrowLeft" if at_start => Some((0, -1)),
        "ArrowRight" if at_end => Some((0, 1)),
        _ => None,
    }
}

#[component]
fn CellInput(p: &CellInputProps) -> Html {
    let cell = p.cell;
    let oninput = {
        let on_edit = p.on_edit.clone();
        Callback::from(move |e: InputEvent| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            on_edit.emit((cell, input.value()));
        })
    };
    let onpaste = p.on_paste.clone().map(|on_paste| {
        Callback::from(move |e: Event| {
            let e: web_sys::ClipboardEvent = e.unchecked_into();
            let text = e
                .clipboard_data()
                .and_then(|d| d.get_data("text/plain").ok())
                .unwrap_or_default();
            // A block (several cells) fills the grid; a single value pastes as usual.
            if text.trim_end().contains(['\t', '\n']) {
                e.prevent_default();
                on_paste.emit((cell, text));
            }
        })
    });
    let onkeydown = p.on_move.clone().map(|on_move| {
        Callback::from(move |e: KeyboardEvent| {
            if e.alt_key() || e.ctrl_key() || e.meta_key() {
                return;
            }
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            let len = input.value().encode_utf16().count() as u32;
            let (start, end) = (
                input.selection_start().ok().flatten().unwrap_or(0),
                input.selection_end().ok().flatten().unwrap_or(len),
            );
            if let Some((rows, cols)) = key_step(
                &e.key(),
                e.shift_key(),
                start == 0 && end == 0,
                start == len,
            ) {
                e.prevent_default();
                on_move.emit((cell, rows, cols));
            }
        })
    });
    let invalid = p.problem.is_some();
    let path = cell.path();
    let error_id = format!("error-{path}");
    html! {
        <>
            <input class={classes!("cell", p.numeric.then_some("numeric"), invalid.then_some("invalid"))}
                   type="text" inputmode={p.numeric.then_some("decimal")}
                   aria-label={p.label.clone()} aria-invalid={invalid.to_string()}
                   aria-describedby={invalid.then(|| error_id.clone())} data-path={path}
                   value={p.text.clone()} {oninput} onpaste={onpaste} {onkeydown} />
            // What is wrong, beside the cell while it has the focus (and for screen readers).
            if let Some(problem) = &p.problem {
                <span class="cell-error" id={error_id} role="status">{ problem.clone() }</span>
            }
        </>
    }
}

/// Where a problem is, in words: "Transformer on p100" for `tenants[1].throughput[2]`, "k80's
/// GPU count" for `gpu_types[0].count`, "Transformer's throughputs" for a whole row. Never the
/// engine's path: a place it does not name in words is "the scenario".
pub fn plain_place(path: &str, draft: &Draft) -> String {
    let index = |part: &str, key: &str| -> Option<usize> {
        part.strip_prefix(key)?
            .strip_prefix('[')?
            .strip_suffix(']')?
            .parse()
            .ok()
    };
    // `name[a][b]` as ("name", [a, b]).
    let indices = |part: &str| -> (String, Vec<usize>) {
        let mut pieces = part.split('[');
        let name = pieces.next().unwrap_or("").to_string();
        let found = pieces
            .filter_map(|p| p.strip_suffix(']')?.parse().ok())
            .collect();
        (name, found)
    };
    let named = |name: Option<&str>, fallback: String| match name.map(str::trim) {
        Some(name) if !name.is_empty() => name.to_string(),
        _ => fallback,
    };
    let tenant = |i: usize| {
        named(
            draft.tenants.get(i).map(|t| t.name.as_str()),
            format!("tenant {}", i + 1),
        )
    };
    let ty = |j: usize| {
        named(
            draft.types.get(j).map(|t| t.name.as_str()),
            format!("GPU type {}", j + 1),
        )
    };
    let mut parts = path.split('.');
    let (first, rest, more) = (
        parts.next().unwrap_or(""),
        parts.next().unwrap_or(""),
        parts.next(),
    );
    if more.is_some() {
        return "the scenario".to_string();
    }
    if let Some(i) = index(first, "tenants") {
        let tenant = tenant(i);
        if let Some(j) = index(rest, "throughput") {
            return format!("{tenant} on {}", ty(j));
        }
        return match rest {
            // A bare item is named by its place: "(also tenant 1)" after a duplicate name.
            "" => format!("tenant {}", i + 1),
            "name" => format!("tenant {}'s name", i + 1),
            "throughput" => format!("{tenant}'s throughputs"),
            "weight" => format!("{tenant}'s weight"),
            "max_gpus" => format!("{tenant}'s max GPUs"),
            "work" => format!("{tenant}'s work"),
            "entity" => format!("{tenant}'s entity"),
            _ => tenant,
        };
    }
    if let Some(j) = index(first, "gpu_types") {
        return match rest {
            "count" => format!("{}'s GPU count", ty(j)),
            "name" => format!("GPU type {}'s name", j + 1),
            "" => format!("GPU type {}", j + 1),
            _ => ty(j),
        };
    }
    if let Some(e) = index(first, "entities") {
        let entity = format!(
            "entity {}",
            named(
                draft.entities.get(e).map(|x| x.name.as_str()),
                (e + 1).to_string()
            )
        );
        return match rest {
            "name" => format!("entity {}'s name", e + 1),
            "weight" => format!("{entity}'s weight"),
            "parent" => format!("{entity}'s parent"),
            "within" => format!("{entity}'s rule inside"),
            "" => format!("entity {}", e + 1),
            _ => entity,
        };
    }
    if let Some(p) = index(first, "co_located") {
        let pair = format!("pair {}", p + 1);
        let member = |k: usize| {
            named(
                draft
                    .co_located
                    .get(p)
                    .and_then(|x| x.tenants.get(k))
                    .map(String::as_str),
                format!("tenant {}", k + 1),
            )
        };
        return match indices(rest) {
            (field, at) if field == "tenants" && at.len() == 1 => {
                format!("{pair}'s tenant {}", at[0] + 1)
            }
            (field, at) if field == "throughput" && at.len() == 2 => {
                format!("{pair}: {} on {}", member(at[1]), ty(at[0]))
            }
            (field, at) if field == "throughput" && at.len() == 1 => {
                format!("{pair} on {}", ty(at[0]))
            }
            _ => pair,
        };
    }
    match path {
        "tenants" => "the tenants",
        "gpu_types" => "the GPU types",
        "entities" => "the entities",
        "co_located" => "the pairs",
        "normalization" => "the normalization",
        "version" => "the scenario's format",
        _ => "the scenario",
    }
    .to_string()
}

/// `message` with every engine path in it (`tenants[0].name`, `co_located[1]`) put in words
/// by [`plain_place`]: the engine's messages name other places that way ("duplicate name 'A'
/// (also tenants[0])").
pub fn paths_in_words(message: &str, draft: &Draft) -> String {
    const LISTS: [&str; 4] = ["tenants[", "gpu_types[", "entities[", "co_located["];
    let mut out = String::new();
    let mut rest = message;
    while let Some(at) = LISTS.iter().filter_map(|list| rest.find(list)).min() {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let len = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '[' | ']' | '.')))
            .unwrap_or(tail.len());
        let token = tail[..len].trim_end_matches('.');
        out.push_str(&plain_place(token, draft));
        rest = &tail[token.len()..];
    }
    out.push_str(rest);
    out
}

/// A problem as the editor's list shows it: where, then what, all in words.
pub fn problem_in_words(problem: &fairground_core::Problem, draft: &Draft) -> String {
    format!(
        "{}: {}",
        plain_place(&problem.path, draft),
        paths_in_words(&problem.message, draft)
    )
}

/// Whether a key is undo (`Some(true)`) or redo (`Some(false)`): Ctrl+Z and Ctrl+Shift+Z or
/// Ctrl+Y (Cmd on a Mac).
pub fn undo_key(key: &str, command: bool, shift: bool) -> Option<bool> {
    match (command, key) {
        (true, "z" | "Z") => Some(!shift),
        (true, "y" | "Y") if !shift => Some(false),
        _ => None,
    }
}

/// Undo and redo from the keyboard while the scenario is on screen (`active`), wherever the
/// focus is, a cell included: the cells' text is the draft's, so the browser's own undo of a
/// field would only fight the page's.
#[hook]
pub fn use_undo_keys(state: UseReducerDispatcher<AppState>, active: bool) {
    use_effect_with(active, move |&active| {
        let listener = active.then(|| {
            let document = gloo::utils::document();
            let options = gloo::events::EventListenerOptions::enable_prevent_default();
            gloo::events::EventListener::new_with_options(
                &document,
                "keydown",
                options,
                move |event| {
                    let Some(event) = event.dyn_ref::<web_sys::KeyboardEvent>() else {
                        return;
                    };
                    let command = event.ctrl_key() || event.meta_key();
                    if let Some(undo) = undo_key(&event.key(), command, event.shift_key()) {
                        event.prevent_default();
                        state.dispatch(if undo { Action::Undo } else { Action::Redo });
                    }
                },
            )
        });
        move || drop(listener)
    });
}

/// The scenario editor: presets, GPU types, tenants and their throughput grid.
#[component]
pub fn Editor(props: &EditorProps) -> Html {
    let state = &props.state;
    let draft = &state.draft;
    // The same callbacks on every render (the dispatcher never changes), so a cell whose text
    // and problem are unchanged is not re-rendered: an edit redraws one cell, not the whole grid.
    let on_edit = use_callback(state.dispatcher(), |(cell, text): (Cell, String), state| {
        state.dispatch(Action::Edit(cell, text))
    });
    let on_paste = use_callback(state.dispatcher(), |(cell, text): (Cell, String), state| {
        state.dispatch(Action::Paste { cell, text });
    });
    let columns = state.grid_columns();
    // Arrow keys and Enter move the focus to the neighbouring cell of the grid as shown.
    let on_move = use_callback(
        (columns.clone(), draft.tenants.len()),
        |(cell, rows, cols): (Cell, isize, isize), (columns, tenants)| {
            let Some(to) = neighbour(cell, rows, cols, *tenants, columns) else {
                return;
            };
            let selector = format!("input[data-path=\"{}\"]", to.path());
            if let Ok(Some(element)) = gloo::utils::document().query_selector(&selector) {
                if let Ok(input) = element.dyn_into::<web_sys::HtmlInputElement>() {
                    let _ = input.focus();
                    input.select();
                }
            }
        },
    );
    let cells = Cells {
        state,
        on_edit,
        on_paste,
        on_move,
    };
    let grid = use_node_ref();
    let overflowing = use_overflowing(grid.clone());
    html! {
        <section class="editor" aria-label="Scenario editor">
            { editor_bar(state) }
            { types_table(&cells) }
            { tenants_table(&cells, grid, overflowing) }
            { entities_table(&cells) }
            { pairs_table(&cells) }
            if !state.problems.is_empty() {
                <ul class="errors" role="alert" data-testid="problems">
                    { for state.problems.iter().map(|p| html! { <li>{ problem_in_words(p, draft) }</li> }) }
                </ul>
            }
        </section>
    }
}

/// Whether the element `grid` refers to is wider than its panel, checked after each render and
/// on resizing the window: a grid that scrolls inside itself gives no sign of its cut-off
/// columns and row buttons, so a line under it says so.
#[hook]
fn use_overflowing(grid: NodeRef) -> bool {
    let overflowing = use_state(|| false);
    {
        let overflowing = overflowing.clone();
        use_effect(move || {
            let check = move || {
                if let Some(el) = grid.cast::<web_sys::Element>() {
                    let wider = el.scroll_width() > el.client_width() + 1;
                    if wider != *overflowing {
                        overflowing.set(wider);
                    }
                }
            };
            check();
            let listener =
                gloo::events::EventListener::new(&gloo::utils::window(), "resize", move |_| {
                    check()
                });
            move || drop(listener)
        });
    }
    *overflowing
}

/// What every cell of the editor is made with: the state and the cells' shared callbacks.
struct Cells<'a> {
    state: &'a UseReducerHandle<AppState>,
    on_edit: Callback<(Cell, String)>,
    on_paste: Callback<(Cell, String)>,
    on_move: Callback<(Cell, isize, isize)>,
}

impl Cells<'_> {
    /// A text cell; `grid`: a cell of the tenant grid, which takes pasted blocks and moves by
    /// keys.
    fn cell(&self, cell: Cell, label: String, numeric: bool, grid: bool) -> Html {
        let problem = self
            .state
            .problem_at(cell)
            .map(|m| AttrValue::from(paths_in_words(m, &self.state.draft)));
        html! {
            <CellInput {cell} label={label} text={self.state.draft.text(cell).to_string()} {problem}
                       on_edit={self.on_edit.clone()} on_paste={grid.then(|| self.on_paste.clone())}
                       on_move={grid.then(|| self.on_move.clone())} {numeric} />
        }
    }

    /// A button dispatching `make(index)`.
    fn dispatch(&self, make: fn(usize) -> Action, index: usize) -> Callback<MouseEvent> {
        let state = self.state.clone();
        Callback::from(move |_: MouseEvent| state.dispatch(make(index)))
    }

    fn type_name(&self, j: usize) -> String {
        let types = &self.state.draft.types;
        types.get(j).map(|t| t.name.clone()).unwrap_or_default()
    }

    fn tenant_name(&self, i: usize) -> String {
        let tenants = &self.state.draft.tenants;
        tenants.get(i).map(|t| t.name.clone()).unwrap_or_default()
    }
}

/// A button dispatching the action `make` makes, on every click.
fn action_button(
    state: &UseReducerHandle<AppState>,
    make: impl Fn() -> Action + 'static,
) -> Callback<MouseEvent> {
    let state = state.clone();
    Callback::from(move |_: MouseEvent| state.dispatch(make()))
}

/// Undo, redo, the presets and what speedups are relative to.
fn editor_bar(state: &UseReducerHandle<AppState>) -> Html {
    let draft = &state.draft;
    let on_preset = {
        let state = state.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            if !select.value().is_empty() {
                state.dispatch(Action::LoadPreset(select.value()));
            }
        })
    };
    let on_normalization = {
        let state = state.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            state.dispatch(Action::SetNormalization(select.value()));
        })
    };
    let normalization_options = ["slowest", "fastest", "raw"]
        .into_iter()
        .map(String::from)
        .chain(draft.types.iter().map(|t| t.name.clone()))
        .collect::<Vec<_>>();
    html! {
        <div class="editor-bar">
            <button type="button" onclick={action_button(state, move || Action::Undo)} disabled={!state.history.can_undo()}
                    title="Undo (Ctrl+Z)" data-testid="undo">{ "Undo" }</button>
            <button type="button" onclick={action_button(state, move || Action::Redo)} disabled={!state.history.can_redo()}
                    title="Redo (Ctrl+Shift+Z)" data-testid="redo">{ "Redo" }</button>
            <label>{ "Preset " }
                <select onchange={on_preset} data-testid="preset-select">
                    <option value="" selected=true>{ "load a preset…" }</option>
                    { for presets::all().into_iter().map(|p| html! {
                        <option value={p.id}>{ p.title }</option>
                    }) }
                </select>
            </label>
            <label>{ "Speedups relative to " }
                <select onchange={on_normalization} data-testid="normalization-select">
                    { for normalization_options.iter().map(|n| html! {
                        <option value={n.clone()} selected={*n == draft.normalization}>{ n }</option>
                    }) }
                </select>
            </label>
        </div>
    }
}

/// The GPU types: name and count, each movable and removable.
fn types_table(cells: &Cells) -> Html {
    let state = cells.state;
    html! {
        <>
            <h2>{ "GPU types" }</h2>
            <table class="types" data-testid="types-table">
                <thead><tr><th>{ "name" }</th><th>{ "GPUs" }</th><th></th></tr></thead>
                <tbody>
                { for (0..state.draft.types.len()).map(|j| html! {
                    <tr>
                        <td>{ cells.cell(Cell::TypeName(j), format!("name of GPU type {}", j + 1), false, false) }</td>
                        <td>{ cells.cell(Cell::TypeCount(j), format!("GPUs of {}", cells.type_name(j)), true, false) }</td>
                        <td class="row-tools">
                            <button type="button" aria-label={format!("move {} left", cells.type_name(j))}
                                    onclick={action_button(state, move || Action::MoveType(j, -1))}>{ "←" }</button>
                            <button type="button" aria-label={format!("move {} right", cells.type_name(j))}
                                    onclick={action_button(state, move || Action::MoveType(j, 1))}>{ "→" }</button>
                            <button type="button" aria-label={format!("remove {}", cells.type_name(j))}
                                    onclick={cells.dispatch(Action::RemoveType, j)}>{ "✕" }</button>
                        </td>
                    </tr>
                }) }
                </tbody>
            </table>
            <button type="button" onclick={action_button(state, move || Action::AddType)} data-testid="add-type">{ "+ GPU type" }</button>
        </>
    }
}

/// The tenants and their throughput per GPU (with the work and entity columns when shown), the
/// lines saying the grid scrolls or holds copied figures, and the button adding a tenant.
fn tenants_table(cells: &Cells, grid: NodeRef, overflowing: bool) -> Html {
    let state = cells.state;
    let draft = &state.draft;
    let (shows_work, shows_entity) = (state.shows_work(), state.shows_entity());
    let copied: Vec<String> = draft
        .types
        .iter()
        .filter(|t| t.copied)
        .map(|t| t.name.clone())
        .collect();
    html! {
        <>
            <h2>{ "Tenants and throughput per GPU" }</h2>
            <p class="hint">{ "Arrow keys and Enter move between cells. Paste a block copied from a spreadsheet \
                               into any cell: whole rows with their names from the name column. The work and \
                               entity columns appear with the policies that read them (gavel-min-makespan, \
                               gavel-hierarchical)." }</p>
            <div class="grid-scroll" ref={grid}>
            // Each column's class places it (style.css): on a phone the names and throughputs
            // come first and the other columns after them; on a desktop the names are as wide as
            // the longest (`--name-ch`), so none is cut.
            <table class="tenants" data-testid="tenants-table" style={format!("--name-ch: {}", name_width(draft))}>
                <thead><tr>
                    <th class="c-name">{ "tenant" }</th><th class="c-weight">{ "weight" }</th><th class="c-max">{ "max GPUs" }</th>
                    { for draft.types.iter().map(|t| if t.copied {
                        html! { <th class="c-tp copied" title="each tenant's slowest type's figure, copied: type the measured ones">{ format!("{} (copied)", t.name) }</th> }
                    } else {
                        html! { <th class="c-tp">{ t.name.clone() }</th> }
                    }) }
                    if shows_work {
                        <th class="c-work" title="work left in steps, for gavel-min-makespan (empty: 1 each)">{ "work" }</th>
                    }
                    if shows_entity {
                        <th class="c-entity" title="the entity (group) it belongs to, for gavel-hierarchical (empty: top level)">{ "entity" }</th>
                    }
                    <th class="row-tools"></th>
                </tr></thead>
                <tbody>
                { for (0..draft.tenants.len()).map(|i| html! {
                    <tr>
                        <td class="c-name">{ cells.cell(Cell::TenantName(i), format!("name of tenant {}", i + 1), false, true) }</td>
                        <td class="c-weight">{ cells.cell(Cell::Weight(i), format!("weight of {}", cells.tenant_name(i)), true, true) }</td>
                        <td class="c-max">{ cells.cell(Cell::MaxGpus(i), format!("max GPUs of {}", cells.tenant_name(i)), true, true) }</td>
                        { for (0..draft.types.len()).map(|j| html! {
                            <td class="c-tp">{ cells.cell(Cell::Throughput(i, j), format!("throughput of {} on {}", cells.tenant_name(i), cells.type_name(j)), true, true) }</td>
                        }) }
                        if shows_work {
                            <td class="c-work">{ cells.cell(Cell::Work(i), format!("work left of {}", cells.tenant_name(i)), true, true) }</td>
                        }
                        if shows_entity {
                            <td class="c-entity">{ cells.cell(Cell::Entity(i), format!("entity of {}", cells.tenant_name(i)), false, true) }</td>
                        }
                        <td class="row-tools">
                            <button type="button" aria-label={format!("move {} up", cells.tenant_name(i))}
                                    onclick={action_button(state, move || Action::MoveTenant(i, -1))}>{ "↑" }</button>
                            <button type="button" aria-label={format!("move {} down", cells.tenant_name(i))}
                                    onclick={action_button(state, move || Action::MoveTenant(i, 1))}>{ "↓" }</button>
                            <button type="button" aria-label={format!("remove {}", cells.tenant_name(i))}
                                    onclick={cells.dispatch(Action::RemoveTenant, i)}>{ "✕" }</button>
                        </td>
                    </tr>
                }) }
                </tbody>
            </table>
            </div>
            if overflowing {
                <p class="hint" data-testid="grid-scroll-hint">{ "→ More columns and the row buttons: scroll the grid sideways." }</p>
            }
            if !copied.is_empty() {
                <p class="hint" data-testid="copied-note">{ format!(
                    "{}: each tenant's figure is copied from its slowest type, so results keep coming \
                     and nobody's speedups move; type the measured throughputs.",
                    copied.join(", ")
                ) }</p>
            }
            <button type="button" onclick={action_button(state, move || Action::AddTenant)} data-testid="add-tenant">{ "+ tenant" }</button>
        </>
    }
}

/// How wide the name column is, in characters: the longest name's, between 8 and 34 (a name
/// longer than that scrolls inside its cell).
pub fn name_width(draft: &Draft) -> usize {
    let longest = draft
        .tenants
        .iter()
        .map(|t| t.name.chars().count())
        .max()
        .unwrap_or(0);
    longest.clamp(8, 34)
}

/// gavel-hierarchical's entities: name, weight, how its members share, and its parent.
fn entities_table(cells: &Cells) -> Html {
    let state = cells.state;
    let draft = &state.draft;
    html! {
        <>
            <h2>{ "Entities" }</h2>
            <p class="hint">{ "Groups of tenants for gavel-hierarchical: each gets a share by its weight, \
                               which its members split by fairness (their weights) or FIFO (in list order). \
                               A tenant names its entity in the entity column; an entity may sit in a parent." }</p>
            if !draft.entities.is_empty() {
                <table class="entities" data-testid="entities-table">
                    <thead><tr>
                        <th>{ "entity" }</th><th>{ "weight" }</th><th>{ "within" }</th><th>{ "parent" }</th><th></th>
                    </tr></thead>
                    <tbody>
                    { for draft.entities.iter().enumerate().map(|(e, entity)| {
                        let on_within = {
                            let state = state.clone();
                            Callback::from(move |ev: Event| {
                                let select: web_sys::HtmlSelectElement = ev.target_unchecked_into();
                                state.dispatch(Action::SetWithin(e, select.value()));
                            })
                        };
                        html! {
                            <tr>
                                <td>{ cells.cell(Cell::EntityName(e), format!("name of entity {}", e + 1), false, false) }</td>
                                <td>{ cells.cell(Cell::EntityWeight(e), format!("weight of entity {}", entity.name), true, false) }</td>
                                <td>
                                    <select aria-label={format!("how {} shares", entity.name)} onchange={on_within}
                                            data-path={format!("entities[{e}].within")}>
                                        { for ["fairness", "fifo"].into_iter().map(|w| html! {
                                            <option value={w} selected={entity.within == w}>{ w }</option>
                                        }) }
                                    </select>
                                </td>
                                <td>{ cells.cell(Cell::EntityParent(e), format!("parent of entity {}", entity.name), false, false) }</td>
                                <td class="row-tools">
                                    <button type="button" aria-label={format!("remove entity {}", entity.name)}
                                            onclick={cells.dispatch(Action::RemoveEntity, e)}>{ "✕" }</button>
                                </td>
                            </tr>
                        }
                    }) }
                    </tbody>
                </table>
            }
            <button type="button" onclick={action_button(state, move || Action::AddEntity)} data-testid="add-entity">{ "+ entity" }</button>
        </>
    }
}

/// gavel-las-packed's co-located pairs: the two tenants, then per GPU type each one's
/// throughput while they share.
fn pairs_table(cells: &Cells) -> Html {
    let state = cells.state;
    let draft = &state.draft;
    html! {
        <>
            <h2>{ "Co-located pairs" }</h2>
            <p class="hint">{ "Tenants that can run on the same GPUs at once, for gavel-las-packed (space \
                               sharing): their names, then per GPU type each one's throughput per GPU \
                               while they share (0 where they cannot). Both need the same max GPUs." }</p>
            if !draft.co_located.is_empty() {
                <table class="co-located" data-testid="co-located-table">
                    <thead><tr>
                        <th>{ "tenant" }</th><th>{ "shares with" }</th>
                        { for draft.types.iter().map(|t| html! { <th>{ t.name.clone() }</th> }) }
                        <th></th>
                    </tr></thead>
                    <tbody>
                    { for draft.co_located.iter().enumerate().map(|(p, pair)| {
                        let label = pair.tenants.join(" + ");
                        let side = |k: usize| pair.tenants.get(k).cloned().unwrap_or_default();
                        html! {
                            <tr data-path={format!("co_located[{p}]")}>
                                { for (0..pair.tenants.len().max(2)).map(|k| html! {
                                    <td>{ cells.cell(Cell::PairTenant(p, k), format!("tenant {} of pair {}", k + 1, p + 1), false, false) }</td>
                                }) }
                                { for pair.throughput.iter().enumerate().map(|(j, row)| html! {
                                    <td class="pair-rates">{ for (0..row.len()).map(|k| {
                                        cells.cell(Cell::PairThroughput(p, j, k), format!("throughput of {} beside {} on {}", side(k), side(1 - k.min(1)), cells.type_name(j)), true, false)
                                    }) }</td>
                                }) }
                                <td class="row-tools">
                                    <button type="button" aria-label={format!("remove pair {label}")}
                                            onclick={cells.dispatch(Action::RemovePair, p)}>{ "✕" }</button>
                                </td>
                            </tr>
                        }
                    }) }
                    </tbody>
                </table>
            }
            <button type="button" onclick={action_button(state, move || Action::AddPair)} data-testid="add-pair">{ "+ pair" }</button>
        </>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problems_are_placed_in_words() {
        let mut draft = Draft::from_scenario(&fairground_core::presets::default_scenario());
        let ty = draft.types[2].name.clone();
        let tenant = draft.tenants[1].name.clone();
        assert_eq!(
            plain_place("tenants[1].throughput[2]", &draft),
            format!("{tenant} on {ty}")
        );
        assert_eq!(
            plain_place("tenants[1].max_gpus", &draft),
            format!("{tenant}'s max GPUs")
        );
        assert_eq!(
            plain_place("gpu_types[2].count", &draft),
            format!("{ty}'s GPU count")
        );
        assert_eq!(plain_place("tenants[0].name", &draft), "tenant 1's name");
        // A whole row (issue 78: "tenants[0].throughput" was shown as it is).
        assert_eq!(
            plain_place("tenants[1].throughput", &draft),
            format!("{tenant}'s throughputs")
        );
        assert_eq!(
            plain_place("tenants[99].weight", &draft),
            "tenant 100's weight"
        );
        draft.entities.push(crate::draft::DraftEntity {
            name: "lab".into(),
            weight: "1".into(),
            within: "fairness".into(),
            parent: String::new(),
        });
        assert_eq!(
            plain_place("entities[0].parent", &draft),
            "entity lab's parent"
        );
        assert_eq!(plain_place("entities[0]", &draft), "entity 1");
        assert_eq!(
            plain_place("co_located[0].tenants[1]", &draft),
            "pair 1's tenant 2"
        );
        assert_eq!(
            plain_place("co_located[0].throughput[2][1]", &draft),
            format!("pair 1: tenant 2 on {ty}")
        );
        // Whatever else, words, never a path.
        for path in ["gpu_types", "version", ".", "normalization", "x[0].y.z", ""] {
            let words = plain_place(path, &draft);
            assert!(
                !words.contains(['[', '.', '_']) && !words.is_empty(),
                "{path}: {words}"
            );
        }
    }

    /// Every path the engine writes into a message comes out in words.
    #[test]
    fn paths_inside_messages_are_put_in_words() {
        let draft = Draft::from_scenario(&fairground_core::presets::default_scenario());
        let first = draft.tenants[0].name.clone();
        for (message, words) in [
            (
                "duplicate name 'A' (also tenants[0].name)",
                "duplicate name 'A' (also tenant 1's name)",
            ),
            (
                "duplicate name 'A' (also tenants[0])",
                "duplicate name 'A' (also tenant 1)",
            ),
            (
                "'a' and 'b' are already paired in co_located[0].",
                "'a' and 'b' are already paired in pair 1.",
            ),
            ("must be > 0 (got 0)", "must be > 0 (got 0)"),
        ] {
            assert_eq!(paths_in_words(message, &draft), words);
        }
        // Every problem the engine can find in an edited scenario, as the list shows it.
        let mut s = fairground_core::presets::default_scenario();
        s.tenants[0].throughput.iter_mut().for_each(|t| *t = 0.0);
        s.tenants[1].name = s.tenants[2].name.clone();
        s.tenants[3].weight = 0.0;
        s.gpu_types[1].name = s.gpu_types[0].name.clone();
        let draft = Draft::from_scenario(&s);
        let problems = s.instance().unwrap_err();
        assert!(problems.len() >= 4, "{problems:?}");
        for p in &problems {
            let shown = problem_in_words(p, &draft);
            assert!(
                !["tenants[", "gpu_types[", "].", "_"]
                    .iter()
                    .any(|x| shown.contains(x)),
                "{shown}"
            );
        }
        let row = problems
            .iter()
            .find(|p| p.path == "tenants[0].throughput")
            .unwrap();
        assert!(problem_in_words(row, &draft).starts_with(&format!(
            "{first}'s throughputs: the tenant can run nowhere"
        )));
    }

    #[test]
    fn arrows_move_at_the_text_s_edges_and_enter_moves_down() {
        assert_eq!(key_step("ArrowDown", false, false, false), Some((1, 0)));
        assert_eq!(key_step("Enter", true, false, false), Some((-1, 0)));
        assert_eq!(key_step("ArrowLeft", false, false, true), None);
        assert_eq!(key_step("ArrowLeft", false, true, false), Some((0, -1)));
        assert_eq!(key_step("ArrowRight", false, false, true), Some((0, 1)));
        assert_eq!(key_step("a", false, true, true), None);
    }

    #[test]
    fn undo_and_redo_keys() {
        assert_eq!(undo_key("z", true, false), Some(true));
        assert_eq!(undo_key("Z", true, true), Some(false));
        assert_eq!(undo_key("y", true, false), Some(false));
        assert_eq!(undo_key("z", false, false), None);
        assert_eq!(undo_key("x", true, false), None);
    }
}
