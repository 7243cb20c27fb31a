fn main() {
    yew::Renderer::<fairground_web::App>::new().render();
}
