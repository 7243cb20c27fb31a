//! Not a test: a timing harness for BENCHMARKS.md, ignored by default (these machines are shared
//! and noisy, so nothing asserts a duration). Run it by hand in headless Chromium:
//! `CHROMEDRIVER=/usr/bin/chromedriver cargo test --release -p fairground-web
//!  --target wasm32-unknown-unknown --test timing -- --include-ignored --nocapture`
#![cfg(target_arch = "wasm32")]

use fairground_core::policies;
use fairground_core::presets::random_scenario;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn now() -> f64 {
    web_sys::window().unwrap().performance().unwrap().now()
}

#[wasm_bindgen_test]
#[ignore]
fn time_oef_coop_in_the_browser() {
    for (n, k) in [(30, 6), (50, 8), (100, 8)] {
        let inst = random_scenario(n, k, 1, false).instance().unwrap();
        let policy = policies::by_name("oef-coop").unwrap();
        let runs = 20;
        let mut times: Vec<f64> = (0..runs)
            .map(|_| {
                let start = now();
                policy.solve(&inst).unwrap();
                now() - start
            })
            .collect();
        times.sort_by(f64::total_cmp);
        console_log!(
            "oef-coop {n}x{k} in wasm: median {:.2} ms, min {:.2} ms over {runs} runs",
            times[runs / 2],
            times[0]
        );
    }
}
