//! Component tests in headless Chromium (wasm-bindgen-test): the chart draws what the engine
//! computed, and user-given names stay text.
#![cfg(target_arch = "wasm32")]

use fairground_core::{policies, presets, Scenario};
use fairground_web::components::{AllocationChart, AllocationChartProps};
use std::rc::Rc;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn mount(props: AllocationChartProps) -> web_sys::Element {
    let document = web_sys::window().unwrap().document().unwrap();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    yew::Renderer::<AllocationChart>::with_root_and_props(root.clone(), props).render();
    root
}

fn props_for(scenario: &Scenario) -> AllocationChartProps {
    let instance = scenario.instance().unwrap();
    let solution = policies::by_name("equal-share")
        .unwrap()
        .solve(&instance)
        .unwrap();
    AllocationChartProps {
        instance: Rc::new(instance),
        allocation: Rc::new(solution.allocation),
    }
}

#[wasm_bindgen_test]
async fn draws_one_segment_per_tenant_and_type_held() {
    let scenario = presets::default_scenario();
    let root = mount(props_for(&scenario));
    yew::scheduler::flush().await;

    // 6 tenants x 3 types, every tenant holding 2/3 of a GPU of each type.
    let segments = root.query_selector_all("rect.segment").unwrap();
    assert_eq!(segments.length(), 18);
    let bars = root.query_selector_all("g.bar").unwrap();
    assert_eq!(bars.length(), 6);
    let first_tooltip = root.query_selector("rect.segment title").unwrap().unwrap();
    assert_eq!(
        first_tooltip.text_content().unwrap(),
        "ResNet-50 (batch size 64) on k80: 0.6667 GPUs"
    );
}

#[wasm_bindgen_test]
async fn a_name_with_markup_renders_as_text() {
    let mut scenario = presets::default_scenario();
    scenario.tenants[0].name = "<img src=x onerror=alert(1)>".into();
    let root = mount(props_for(&scenario));
    yew::scheduler::flush().await;

    assert!(root.query_selector("img").unwrap().is_none());
    let label = root.query_selector("text.tenant-label").unwrap().unwrap();
    assert!(label
        .text_content()
        .unwrap()
        .starts_with("<img src=x onerror"));
}

/// The simulator's synthetic workload must be bit-identical in wasm and natively for a seed:
/// the same digest as crates/fairground-sim/tests/invariants.rs asserts natively.
#[wasm_bindgen_test]
fn synthetic_workload_is_identical_to_native() {
    use fairground_sim::workload::{digest, synthetic, SyntheticConfig};
    use fairground_sim::{Cluster, ThroughputTable};
    let cluster = Cluster::parse("v100=4,p100=4,k80=4").unwrap();
    let cfg = SyntheticConfig {
        jobs: 200,
        jobs_per_hour: 3.0,
        seed: 42,
        tenants: 3,
        tenant_mix: Default::default(),
    };
    let jobs = synthetic(&cfg, &ThroughputTable::builtin(), &cluster.types).unwrap();
    assert_eq!(digest(&jobs), 6075059981721869792);
}

/// Links through the browser's own deflate (src/deflate.rs): a scenario comes back exactly, a
/// link made by earlier builds (miniz_oxide) still opens, and a small link that inflates past the
/// limit is refused rather than unpacked.
#[wasm_bindgen_test]
async fn links_pack_and_open_through_the_browsers_deflate() {
    use base64::Engine;
    use fairground_web::codec::{from_fragment, to_fragment, MAX_JSON};
    let scenario = presets::default_scenario();
    let fragment = to_fragment(&scenario).await.unwrap();
    assert!(fragment.len() < 600, "{}", fragment.len());
    assert_eq!(
        from_fragment(&format!("#{fragment}")).await.unwrap(),
        Some(scenario)
    );
    // Made by an earlier build (codec.rs's native tests hold the same link).
    let earlier = "v=1&s=bY9BCsMgEEXvMmsR7dKrhFKkWBXMKDomtCF379RFSWmWw_vv82eDxdUWM4LRAnzpN3oW18BMG6CdHRhoKa8g4J47Eqd28SUP2-hIrgLIoUX68Zc4-pmFmrsPpXN40lKJi1SsrC768PGlOnTXdGboP4NPzHW2Kb4sjT_GYMfL9jc";
    assert_eq!(
        from_fragment(earlier).await.unwrap(),
        Some(presets::textbook_two_by_two().scenario)
    );
    // A zip bomb: 1 MB and a bit of spaces, deflated by the browser to about a kilobyte.
    let spaces = vec![b' '; MAX_JSON + 10];
    let bomb = fairground_web::deflate::deflate(&spaces).await.unwrap();
    assert!(bomb.len() < 4096, "{}", bomb.len());
    let link = format!(
        "s={}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bomb)
    );
    let refused = from_fragment(&link).await.unwrap_err();
    assert!(refused.contains("over 1024 KB unpacked"), "{refused}");
    let damaged = from_fragment("#s=AAAA").await.unwrap_err();
    assert!(damaged.contains("damaged"), "{damaged}");
}
