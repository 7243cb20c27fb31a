//! The simulation worker: runs `fairground-sim` off the main thread, reporting progress.
use yew_agent::Registrable;

fn main() {
    std::panic::set_hook(Box::new(console_error_panic_hook::hook));
    fairground_web::sim_worker::SimulateReactor::registrar().register();
}
