//! A chart's frame: its title, SVG and PNG export, and its numbers behind a Table disclosure.

use crate::export;
use fairground_chart::table::DataTable;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ChartFrameProps {
    pub title: AttrValue,
    /// File name stem for exports.
    pub file: AttrValue,
    pub children: Html,
    #[prop_or_default]
    pub export: bool,
    /// The chart's numbers, shown on demand below it: the chart's text alternative.
    #[prop_or_default]
    pub table: Option<Rc<DataTable>>,
}

/// A titled chart with SVG and PNG export buttons for the `<svg>` inside it, and its numbers as
/// a table behind a "Table" disclosure.
#[component]
pub fn ChartFrame(p: &ChartFrameProps) -> Html {
    let node = use_node_ref();
    let save = |png: bool| {
        let node = node.clone();
        let file = p.file.to_string();
        Callback::from(move |_: MouseEvent| {
            let Some(svg) = node
                .cast::<web_sys::Element>()
                .and_then(|f| f.query_selector("svg").ok().flatten())
            else {
                return;
            };
            let result = if png {
                export::download_png(&svg, &format!("{file}.png"))
            } else {
                export::svg_markup(&svg)
                    .and_then(|m| export::download(&format!("{file}.svg"), "image/svg+xml", &m))
            };
            if let Err(e) = result {
                gloo::console::error!("export failed", e);
            }
        })
    };
    html! {
        <figure class="chart" ref={node.clone()}>
            <figcaption>
                <span>{ p.title.clone() }</span>
                if p.export {
                    <span class="chart-tools">
                        <button type="button" onclick={save(false)} aria-label={format!("download {} as SVG", p.title)}>{ "SVG" }</button>
                        <button type="button" onclick={save(true)} aria-label={format!("download {} as PNG", p.title)}>{ "PNG" }</button>
                    </span>
                }
            </figcaption>
            { p.children.clone() }
            if let Some(t) = &p.table {
                <details class="chart-table" data-testid="chart-table">
                    <summary>{ "Table" }</summary>
                    <div class="table-scroll">
                        <table>
                            <caption>{ p.title.clone() }</caption>
                            <thead><tr>{ for t.head.iter().map(|h| html! { <th scope="col">{ h }</th> }) }</tr></thead>
                            <tbody>{ for t.rows.iter().map(|row| html! {
                                <tr>{ for row.iter().enumerate().map(|(j, c)| if j == 0 {
                                    html! { <th scope="row">{ c }</th> }
                                } else {
                                    html! { <td>{ c }</td> }
                                }) }</tr>
                            }) }</tbody>
                        </table>
                    </div>
                </details>
            }
        </figure>
    }
}
