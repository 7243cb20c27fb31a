//! Definitions, the glossary and the guided tour: their text is `www/explain.json`, fetched the
//! first time one is opened, not compiled into the page (the download budget, issue 49), and the
//! same file makes the guide's `docs/glossary.md` and `docs/tour.md` (`cargo xtask glossary`).

use js_sys::Reflect;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use yew::prelude::*;

/// One term: what it is called, what it means in plain words, its formula, and which policies
/// guarantee it (empty for terms that are not properties).
#[derive(Debug, Clone, PartialEq)]
pub struct Term {
    pub id: String,
    pub name: String,
    pub plain: String,
    pub formula: String,
    pub guaranteed: String,
}

/// One step of the guided tour: what it shows (a preset, a policy, a view: `compare`,
/// `frontier`, or empty for one policy) and what it says.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub title: String,
    pub text: String,
    pub preset: String,
    pub policy: String,
    pub view: String,
    /// What the step talks about, by `data-testid`: opened (a badge), scrolled to and
    /// highlighted.
    pub focus: Vec<String>,
    /// The terms (ids of `terms`) the step uses first, defined under its text.
    pub terms: Vec<String>,
}

/// The whole data file.
#[derive(Debug, Clone, PartialEq)]
pub struct Explain {
    pub terms: Vec<Term>,
    pub tour: Vec<Step>,
}

thread_local! {
    static LOADED: RefCell<Option<Rc<Explain>>> = const { RefCell::new(None) };
}

/// The data file, fetched once (beside the page, so it works under a sub-path too).
pub async fn explain() -> Result<Rc<Explain>, String> {
    if let Some(loaded) = LOADED.with(|t| t.borrow().clone()) {
        return Ok(loaded);
    }
    let window = web_sys::window().ok_or("no window")?;
    let response = JsFuture::from(window.fetch_with_str("explain.json"))
        .await
        .map_err(|_| {
            "the definitions could not be fetched: the page seems to be offline. Check the \
             connection and open this again; after one complete visit they are kept offline."
                .to_string()
        })?;
    let response: web_sys::Response = response.dyn_into().map_err(|_| "not a response")?;
    if !response.ok() {
        return Err(format!(
            "the definitions could not be fetched ({})",
            response.status()
        ));
    }
    let text = JsFuture::from(response.text().map_err(|_| "no text")?)
        .await
        .map_err(|_| "the definitions could not be read")?;
    let loaded = Rc::new(parse(&text.as_string().unwrap_or_default())?);
    LOADED.with(|t| *t.borrow_mut() = Some(loaded.clone()));
    Ok(loaded)
}

/// explain.json's text, read (JSON.parse, field by field: no second JSON reader compiled into
/// the page).
fn parse(text: &str) -> Result<Explain, String> {
    let bad = || "the definitions file is damaged".to_string();
    let doc = js_sys::JSON::parse(text).map_err(|_| bad())?;
    let list = |key: &str| -> Result<js_sys::Array, String> {
        Reflect::get(&doc, &key.into())
            .map_err(|_| bad())?
            .dyn_into()
            .map_err(|_| bad())
    };
    let field = |item: &JsValue, key: &str| {
        Reflect::get(item, &key.into())
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_default()
    };
    let names = |item: &JsValue, key: &str| -> Vec<String> {
        Reflect::get(item, &key.into())
            .ok()
            .and_then(|v| v.dyn_into::<js_sys::Array>().ok())
            .map(|a| a.iter().filter_map(|v| v.as_string()).collect())
            .unwrap_or_default()
    };
    Ok(Explain {
        terms: list("terms")?
            .iter()
            .map(|item| Term {
                id: field(&item, "id"),
                name: field(&item, "name"),
                plain: field(&item, "plain"),
                formula: field(&item, "formula"),
                guaranteed: field(&item, "guaranteed"),
            })
            .collect(),
        tour: list("tour")?
            .iter()
            .map(|item| Step {
                title: field(&item, "title"),
                text: field(&item, "text"),
                preset: field(&item, "preset"),
                policy: field(&item, "policy"),
                view: field(&item, "view"),
                focus: names(&item, "focus"),
                terms: names(&item, "terms"),
            })
            .collect(),
    })
}

/// A definition's first sentence (up to its first ". "), for the tour's short glossary.
pub fn first_sentence(text: &str) -> &str {
    match text.find(". ") {
        Some(end) => &text[..=end],
        None => text,
    }
}

fn term_view(term: &Term) -> Html {
    html! {
        <div class="term" id={format!("term-{}", term.id)} data-testid={format!("term-{}", term.id)}>
            <strong>{ &term.name }</strong>
            <p>{ &term.plain }</p>
            if !term.formula.is_empty() {
                <p><code>{ &term.formula }</code></p>
            }
            if !term.guaranteed.is_empty() {
                <p class="guaranteed">{ "Guaranteed: " }{ &term.guaranteed }</p>
            }
        </div>
    }
}

/// The data file once loaded, or why not; `None` while not asked or on the way.
pub type Loaded = Option<Result<Rc<Explain>, String>>;

/// Asks for the data file once `open` is set, re-rendering when it arrives.
#[hook]
pub fn use_explain(open: bool) -> Loaded {
    let loaded = use_state(|| None::<Result<Rc<Explain>, String>>);
    {
        let loaded = loaded.clone();
        use_effect_with(open, move |&open| {
            if open && loaded.is_none() {
                wasm_bindgen_futures::spawn_local(async move { loaded.set(Some(explain().await)) });
            }
        });
    }
    (*loaded).clone()
}

#[derive(Properties, PartialEq)]
pub struct DefinitionProps {
    /// The term's id in explain.json (SI, EF, PE, SP, ...).
    pub id: AttrValue,
}

/// "What is SI?": a button that opens the term's definition (fetched on first use).
#[component]
pub fn Definition(p: &DefinitionProps) -> Html {
    let open = use_state(|| false);
    let loaded = use_explain(*open);
    let toggle = {
        let open = open.clone();
        Callback::from(move |_: MouseEvent| open.set(!*open))
    };
    let body = match (&loaded, *open) {
        (_, false) => html! {},
        (None, true) => html! { <p class="muted">{ "Loading the definition…" }</p> },
        (Some(Err(why)), true) => html! { <p class="muted">{ why }</p> },
        (Some(Ok(doc)), true) => match doc.terms.iter().find(|t| t.id == p.id.as_str()) {
            Some(term) => term_view(term),
            None => html! { <p class="muted">{ format!("No definition of {} yet.", p.id) }</p> },
        },
    };
    html! {
        <div class="definition">
            <button type="button" class="link" aria-expanded={open.to_string()} onclick={toggle}
                    data-testid={format!("define-{}", p.id)}>
                { if *open { format!("Hide what {} means", p.id) } else { format!("What is {}?", p.id) } }
            </button>
            { body }
        </div>
    }
}

/// The whole glossary, behind the header's button (fetched on first use).
#[component]
pub fn Glossary() -> Html {
    let open = use_state(|| false);
    let loaded = use_explain(*open);
    let toggle = {
        let open = open.clone();
        Callback::from(move |_: MouseEvent| open.set(!*open))
    };
    html! {
        <>
            <button type="button" class="link" aria-expanded={open.to_string()} onclick={toggle}
                    data-testid="glossary-toggle">{ "Glossary" }</button>
            if *open {
                <section class="glossary" aria-label="glossary" data-testid="glossary">
                    { match &loaded {
                        None => html! { <p class="muted">{ "Loading the glossary…" }</p> },
                        Some(Err(why)) => html! { <p class="muted">{ why }</p> },
                        Some(Ok(doc)) => doc.terms.iter().map(term_view).collect::<Html>(),
                    } }
                </section>
            }
        </>
    }
}
