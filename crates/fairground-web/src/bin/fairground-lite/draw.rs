//! Drawing the allocation chart into a documentation page's element: the light engine's alone,
//! so the full engine (the workers') carries no chart code. A market mechanism's chart is drawn
//! here too, from the report the full engine solved (`www/fairground.js`).

use crate::api::{solve_report, throw, to_js};
use fairground_web::components::allocation_svg;
use fairground_web::svg::SvgRender;
use serde::Deserialize;
use wasm_bindgen::prelude::*;

/// `renderChart(element, scenario, policy?)` or `(element, scenario, { policy, seconds })`:
/// solves and draws the playground's allocation chart (an SVG built with DOM calls, no Yew app)
/// into `element`, replacing what it held; returns the report drawn.
#[wasm_bindgen(js_name = renderChart)]
pub fn render_chart(
    element: web_sys::Element,
    scenario: JsValue,
    options: JsValue,
) -> Result<JsValue, JsError> {
    let report = solve_report(&scenario, &options)?;
    draw(
        &element,
        &report.tenants,
        &report.gpu_types,
        &report.allocation.gpus,
    )?;
    to_js(&report)
}

/// What [`draw_report`] reads of a report.
#[derive(Deserialize)]
struct Drawn {
    tenants: Vec<String>,
    gpu_types: Vec<String>,
    /// GPUs of each type per tenant, one row per tenant (`Allocation` is written as its matrix).
    allocation: Vec<Vec<f64>>,
}

/// `drawReport(element, report)`: draws a report another engine solved (`solve`'s object), as
/// `renderChart` draws its own. `fairground.js` uses it for the market mechanisms.
#[wasm_bindgen(js_name = drawReport)]
pub fn draw_report(element: web_sys::Element, report: JsValue) -> Result<(), JsError> {
    let drawn: Drawn = serde_wasm_bindgen::from_value(report)
        .map_err(|e| throw(format!("drawReport: not a report of solve ({e})")))?;
    if drawn.allocation.len() != drawn.tenants.len()
        || drawn
            .allocation
            .iter()
            .any(|row| row.len() != drawn.gpu_types.len())
    {
        return Err(throw(
            "drawReport: the allocation is not one row per tenant and one column per GPU type",
        ));
    }
    draw(
        &element,
        &drawn.tenants,
        &drawn.gpu_types,
        &drawn.allocation,
    )
}

fn draw(
    element: &web_sys::Element,
    tenants: &[String],
    types: &[String],
    gpus: &[Vec<f64>],
) -> Result<(), JsError> {
    // Drawn for the element's width, as the playground draws for its column (a hidden element
    // has none: the full width then).
    let w = match element.client_width() {
        0 => fairground_web::scale::WIDE,
        px => fairground_web::scale::chart_width(px as f64),
    };
    let svg = allocation_svg(tenants, types, gpus, w);
    let document = element
        .owner_document()
        .ok_or_else(|| throw("the element is not in a document"))?;
    let node = svg.to_dom(&document).map_err(throw)?;
    element.replace_children_with_node_1(&node);
    Ok(())
}
