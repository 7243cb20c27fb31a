//! The web worker: solves off the main thread so the page never freezes.
use yew_agent::Registrable;

fn main() {
    // Panics in the worker are otherwise a bare "unreachable" in the console.
    std::panic::set_hook(Box::new(console_error_panic_hook::hook));
    fairground_web::worker::SolveTask::registrar().register();
}
