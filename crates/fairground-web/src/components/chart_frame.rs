use crate::export;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ChartFrameProps {
    pub title: AttrValue,
    /// File name stem for exports.
    pub file: AttrValue,
    pub children: Html,
    #[prop_or_default]
    pub export: bool,
}

/// A titled chart with SVG and PNG export buttons for the `<svg>` inside it.
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
        </figure>
    }
}
