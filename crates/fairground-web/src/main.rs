fn main() {
    // The page's engine is in this wasm (page_engine.rs): the first render already has its chart.
    yew::Renderer::<fairground_web::App>::new().render();
}
