use crate::draft::Cell;
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
    #[prop_or_default]
    numeric: bool,
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
    let invalid = p.problem.is_some();
    html! {
        <input class={classes!("cell", p.numeric.then_some("numeric"), invalid.then_some("invalid"))}
               type="text" inputmode={p.numeric.then_some("decimal")}
               aria-label={p.label.clone()} aria-invalid={invalid.to_string()}
               title={p.problem.clone()} data-path={cell.path()}
               value={p.text.clone()} {oninput} onpaste={onpaste} />
    }
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
    let dispatch = |make: fn(usize) -> Action, index: usize| {
        let state = state.clone();
        Callback::from(move |_: MouseEvent| state.dispatch(make(index)))
    };
    // The same callbacks on every render (the dispatcher never changes), so a cell whose text
    // and problem are unchanged is not re-rendered: an edit redraws one cell, not the whole grid.
    let on_edit = use_callback(state.dispatcher(), |(cell, text): (Cell, String), state| {
        state.dispatch(Action::Edit(cell, text))
    });
    let on_paste = use_callback(state.dispatcher(), |(cell, text): (Cell, String), state| {
        if let Cell::Throughput(tenant, gpu) = cell {
            state.dispatch(Action::Paste { tenant, gpu, text });
        }
    });
    let problem = |cell: Cell| {
        state
            .problem_at(cell)
            .map(|m| AttrValue::from(m.to_string()))
    };
    let cell = |cell: Cell, label: String, numeric: bool, paste: bool| {
        html! {
            <CellInput {cell} label={label} text={draft.text(cell).to_string()} problem={problem(cell)}
                       on_edit={on_edit.clone()} on_paste={paste.then(|| on_paste.clone())} {numeric} />
        }
    };
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
    let add_type = {
        let state = state.clone();
        Callback::from(move |_: MouseEvent| state.dispatch(Action::AddType))
    };
    let add_tenant = {
        let state = state.clone();
        Callback::from(move |_: MouseEvent| state.dispatch(Action::AddTenant))
    };
    let add_entity = {
        let state = state.clone();
        Callback::from(move |_: MouseEvent| state.dispatch(Action::AddEntity))
    };
    let add_pair = {
        let state = state.clone();
        Callback::from(move |_: MouseEvent| state.dispatch(Action::AddPair))
    };
    let type_name = |j: usize| {
        draft
            .types
            .get(j)
            .map(|t| t.name.clone())
            .unwrap_or_default()
    };
    let tenant_name = |i: usize| {
        draft
            .tenants
            .get(i)
            .map(|t| t.name.clone())
            .unwrap_or_default()
    };
    let normalization_options = ["slowest", "fastest", "raw"]
        .into_iter()
        .map(String::from)
        .chain(draft.types.iter().map(|t| t.name.clone()))
        .collect::<Vec<_>>();

    let undo = {
        let state = state.clone();
        Callback::from(move |_: MouseEvent| state.dispatch(Action::Undo))
    };
    let redo = {
        let state = state.clone();
        Callback::from(move |_: MouseEvent| state.dispatch(Action::Redo))
    };

    html! {
        <section class="editor" aria-label="Scenario editor">
            <div class="editor-bar">
                <button type="button" onclick={undo} disabled={!state.history.can_undo()}
                        title="Undo (Ctrl+Z)" data-testid="undo">{ "Undo" }</button>
                <button type="button" onclick={redo} disabled={!state.history.can_redo()}
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

            <h2>{ "GPU types" }</h2>
            <table class="types" data-testid="types-table">
                <thead><tr><th>{ "name" }</th><th>{ "GPUs" }</th><th></th></tr></thead>
                <tbody>
                { for (0..draft.types.len()).map(|j| html! {
                    <tr>
                        <td>{ cell(Cell::TypeName(j), format!("name of GPU type {}", j + 1), false, false) }</td>
                        <td>{ cell(Cell::TypeCount(j), format!("GPUs of {}", type_name(j)), true, false) }</td>
                        <td class="row-tools">
                            <button type="button" aria-label={format!("move {} left", type_name(j))} onclick={{
                                let state = state.clone(); Callback::from(move |_: MouseEvent| state.dispatch(Action::MoveType(j, -1)))
                            }}>{ "←" }</button>
                            <button type="button" aria-label={format!("move {} right", type_name(j))} onclick={{
                                let state = state.clone(); Callback::from(move |_: MouseEvent| state.dispatch(Action::MoveType(j, 1)))
                            }}>{ "→" }</button>
                            <button type="button" aria-label={format!("remove {}", type_name(j))}
                                    onclick={dispatch(Action::RemoveType, j)}>{ "✕" }</button>
                        </td>
                    </tr>
                }) }
                </tbody>
            </table>
            <button type="button" onclick={add_type} data-testid="add-type">{ "+ GPU type" }</button>

            <h2>{ "Tenants and throughput per GPU" }</h2>
            <p class="hint">{ "Paste a block copied from a spreadsheet into any throughput cell." }</p>
            <div class="grid-scroll">
            <table class="tenants" data-testid="tenants-table">
                <thead><tr>
                    <th>{ "tenant" }</th><th>{ "weight" }</th><th>{ "max GPUs" }</th>
                    { for (0..draft.types.len()).map(|j| html! { <th>{ type_name(j) }</th> }) }
                    <th title="work left in steps, for gavel-min-makespan (empty: 1 each)">{ "work" }</th>
                    <th title="the entity (group) it belongs to, for gavel-hierarchical (empty: top level)">{ "entity" }</th>
                    <th></th>
                </tr></thead>
                <tbody>
                { for (0..draft.tenants.len()).map(|i| html! {
                    <tr>
                        <td>{ cell(Cell::TenantName(i), format!("name of tenant {}", i + 1), false, false) }</td>
                        <td>{ cell(Cell::Weight(i), format!("weight of {}", tenant_name(i)), true, false) }</td>
                        <td>{ cell(Cell::MaxGpus(i), format!("max GPUs of {}", tenant_name(i)), true, false) }</td>
                        { for (0..draft.types.len()).map(|j| html! {
                            <td>{ cell(Cell::Throughput(i, j), format!("throughput of {} on {}", tenant_name(i), type_name(j)), true, true) }</td>
                        }) }
                        <td>{ cell(Cell::Work(i), format!("work left of {}", tenant_name(i)), true, false) }</td>
                        <td>{ cell(Cell::Entity(i), format!("entity of {}", tenant_name(i)), false, false) }</td>
                        <td class="row-tools">
                            <button type="button" aria-label={format!("move {} up", tenant_name(i))} onclick={{
                                let state = state.clone(); Callback::from(move |_: MouseEvent| state.dispatch(Action::MoveTenant(i, -1)))
                            }}>{ "↑" }</button>
                            <button type="button" aria-label={format!("move {} down", tenant_name(i))} onclick={{
                                let state = state.clone(); Callback::from(move |_: MouseEvent| state.dispatch(Action::MoveTenant(i, 1)))
                            }}>{ "↓" }</button>
                            <button type="button" aria-label={format!("remove {}", tenant_name(i))}
                                    onclick={dispatch(Action::RemoveTenant, i)}>{ "✕" }</button>
                        </td>
                    </tr>
                }) }
                </tbody>
            </table>
            </div>
            <button type="button" onclick={add_tenant} data-testid="add-tenant">{ "+ tenant" }</button>

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
                                <td>{ cell(Cell::EntityName(e), format!("name of entity {}", e + 1), false, false) }</td>
                                <td>{ cell(Cell::EntityWeight(e), format!("weight of entity {}", entity.name), true, false) }</td>
                                <td>
                                    <select aria-label={format!("how {} shares", entity.name)} onchange={on_within}
                                            data-path={format!("entities[{e}].within")}>
                                        { for ["fairness", "fifo"].into_iter().map(|w| html! {
                                            <option value={w} selected={entity.within == w}>{ w }</option>
                                        }) }
                                    </select>
                                </td>
                                <td>{ cell(Cell::EntityParent(e), format!("parent of entity {}", entity.name), false, false) }</td>
                                <td class="row-tools">
                                    <button type="button" aria-label={format!("remove entity {}", entity.name)}
                                            onclick={dispatch(Action::RemoveEntity, e)}>{ "✕" }</button>
                                </td>
                            </tr>
                        }
                    }) }
                    </tbody>
                </table>
            }
            <button type="button" onclick={add_entity} data-testid="add-entity">{ "+ entity" }</button>

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
                                    <td>{ cell(Cell::PairTenant(p, k), format!("tenant {} of pair {}", k + 1, p + 1), false, false) }</td>
                                }) }
                                { for pair.throughput.iter().enumerate().map(|(j, row)| html! {
                                    <td class="pair-rates">{ for (0..row.len()).map(|k| {
                                        cell(Cell::PairThroughput(p, j, k), format!("throughput of {} beside {} on {}", side(k), side(1 - k.min(1)), type_name(j)), true, false)
                                    }) }</td>
                                }) }
                                <td class="row-tools">
                                    <button type="button" aria-label={format!("remove pair {label}")}
                                            onclick={dispatch(Action::RemovePair, p)}>{ "✕" }</button>
                                </td>
                            </tr>
                        }
                    }) }
                    </tbody>
                </table>
            }
            <button type="button" onclick={add_pair} data-testid="add-pair">{ "+ pair" }</button>

            if !state.problems.is_empty() {
                <ul class="errors" role="alert" data-testid="problems">
                    { for state.problems.iter().map(|p| html! { <li>{ p.to_string() }</li> }) }
                </ul>
            }
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undo_and_redo_keys() {
        assert_eq!(undo_key("z", true, false), Some(true));
        assert_eq!(undo_key("Z", true, true), Some(false));
        assert_eq!(undo_key("y", true, false), Some(false));
        assert_eq!(undo_key("z", false, false), None);
        assert_eq!(undo_key("x", true, false), None);
    }
}
