//! The page's entry point: reads the link or the saved draft, then mounts the app.

use fairground_web::app::{App, AppProps};
use fairground_web::{codec, storage};
use std::rc::Rc;

fn main() {
    // A link's scenario is inflated by the browser (asynchronously, crate::deflate) before the
    // first render; the page's engine is in this wasm (page_engine.rs), so that render already
    // has its chart.
    wasm_bindgen_futures::spawn_local(async {
        let opening = codec::from_fragment(&storage::location_hash()).await;
        let props = AppProps {
            opening: Rc::new(opening),
        };
        yew::Renderer::<App>::with_props(props).render();
        // index.html's loading line, shown until now.
        if let Some(boot) = gloo::utils::document().get_element_by_id("boot") {
            boot.remove();
        }
    });
}
