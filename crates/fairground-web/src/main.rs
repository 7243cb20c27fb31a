fn main() {
    // The engine module first (page_engine.rs), so the first render already has its chart.
    wasm_bindgen_futures::spawn_local(async {
        fairground_web::page_engine::load().await;
        yew::Renderer::<fairground_web::App>::new().render();
    });
}
