//! Getting work out of the page: files to download (JSON, CSV, SVG, PNG). The text formats are
//! plain functions, tested natively; the browser plumbing is below them.

use fairground_core::report::PolicyReport;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The allocation as CSV: one row per tenant, GPUs held per type, then utility; then, where
/// co-located pairs share GPUs (gavel-las-packed), one row per pair, "a + b (shared)", with
/// the GPUs it holds together and no utility of its own (the tenants' rows count it). Names
/// are quoted when they contain a comma, quote or newline (RFC 4180).
pub fn allocation_csv(report: &PolicyReport) -> String {
    let quote = |s: &str| {
        if s.contains([',', '"', '\n', '\r']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    };
    let mut out = String::from("tenant");
    for t in &report.gpu_types {
        out.push(',');
        out.push_str(&quote(t));
    }
    out.push_str(",utility\n");
    for (i, name) in report.tenants.iter().enumerate() {
        out.push_str(&quote(name));
        for g in &report.allocation.gpus[i] {
            out.push_str(&format!(",{g}"));
        }
        out.push_str(&format!(",{}\n", report.utility[i]));
    }
    for (&(a, b), h) in report.shared_by.iter().zip(&report.shared) {
        let name = |i: usize| report.tenants.get(i).map_or("?", |s| s.as_str());
        out.push_str(&quote(&format!("{} + {} (shared)", name(a), name(b))));
        for g in h {
            out.push_str(&format!(",{g}"));
        }
        out.push_str(",\n");
    }
    out
}

/// Colours the exported SVG needs, since the page's CSS variables do not travel with it.
const EXPORT_STYLE: &str = "text{font:12px sans-serif;fill:#1b1f24}.grid{stroke:#d0d7de}\
.axis-label{fill:#57606a}.utility-bar{fill:#0072B2}.si-line{stroke:#D55E00;stroke-width:3}";

/// Standalone SVG markup of a chart, with a white background and its own styles.
pub fn svg_markup(svg: &web_sys::Element) -> Result<String, JsValue> {
    let clone: web_sys::Element = svg.clone_node_with_deep(true)?.dyn_into()?;
    clone.set_attribute("xmlns", "http://www.w3.org/2000/svg")?;
    let doc = gloo::utils::document();
    let style = doc.create_element_ns(Some("http://www.w3.org/2000/svg"), "style")?;
    style.set_text_content(Some(EXPORT_STYLE));
    let background = doc.create_element_ns(Some("http://www.w3.org/2000/svg"), "rect")?;
    for (k, v) in [("width", "100%"), ("height", "100%"), ("fill", "#ffffff")] {
        background.set_attribute(k, v)?;
    }
    clone.prepend_with_node_2(&style, &background)?;
    web_sys::XmlSerializer::new()?.serialize_to_string(&clone)
}

/// Offers `data` as a file download.
pub fn download(filename: &str, mime: &str, data: &str) -> Result<(), JsValue> {
    let parts = js_sys::Array::of1(&JsValue::from_str(data));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)?;
    download_blob(filename, &blob)
}

fn download_blob(filename: &str, blob: &web_sys::Blob) -> Result<(), JsValue> {
    let url = web_sys::Url::create_object_url_with_blob(blob)?;
    let a: web_sys::HtmlAnchorElement = gloo::utils::document().create_element("a")?.dyn_into()?;
    a.set_href(&url);
    a.set_download(filename);
    a.click();
    web_sys::Url::revoke_object_url(&url)?;
    Ok(())
}

/// Renders a chart's SVG onto a canvas at twice its size and downloads it as PNG.
pub fn download_png(svg: &web_sys::Element, filename: &str) -> Result<(), JsValue> {
    let markup = svg_markup(svg)?;
    let (width, height) = view_box_size(svg).unwrap_or((720.0, 400.0));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("image/svg+xml");
    let blob = web_sys::Blob::new_with_str_sequence_and_options(
        &js_sys::Array::of1(&markup.into()),
        &options,
    )?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)?;
    let image = web_sys::HtmlImageElement::new()?;
    let filename = filename.to_string();
    let loaded = image.clone();
    let source = url.clone();
    let onload = Closure::once_into_js(move || {
        let draw = || -> Result<(), JsValue> {
            let canvas: web_sys::HtmlCanvasElement = gloo::utils::document()
                .create_element("canvas")?
                .dyn_into()?;
            canvas.set_width((width * 2.0) as u32);
            canvas.set_height((height * 2.0) as u32);
            let ctx: web_sys::CanvasRenderingContext2d = canvas
                .get_context("2d")?
                .ok_or("no 2d context")?
                .dyn_into()?;
            ctx.draw_image_with_html_image_element_and_dw_and_dh(
                &loaded,
                0.0,
                0.0,
                width * 2.0,
                height * 2.0,
            )?;
            web_sys::Url::revoke_object_url(&source)?;
            let callback = Closure::once_into_js(move |blob: Option<web_sys::Blob>| {
                if let Some(blob) = blob {
                    let _ = download_blob(&filename, &blob);
                }
            });
            canvas.to_blob(callback.unchecked_ref())
        };
        if let Err(e) = draw() {
            gloo::console::error!("PNG export failed", e);
        }
    });
    image.set_onload(Some(onload.unchecked_ref()));
    image.set_src(&url);
    Ok(())
}

fn view_box_size(svg: &web_sys::Element) -> Option<(f64, f64)> {
    let view_box = svg.get_attribute("viewBox")?;
    let parts: Vec<f64> = view_box
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect();
    (parts.len() == 4).then(|| (parts[2], parts[3]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairground_core::{policies, presets, report};

    #[test]
    fn csv_has_a_row_per_tenant_and_quotes_awkward_names() {
        let mut scenario = presets::default_scenario();
        scenario.tenants[0].name = "a, \"b\"".into();
        let inst = scenario.instance().unwrap();
        let r = report::run(
            &scenario,
            &inst,
            policies::by_name("equal-share").unwrap(),
            None,
        )
        .unwrap();
        let csv = allocation_csv(&r);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], "tenant,k80,p100,v100,utility");
        assert_eq!(lines.len(), 7);
        assert!(
            lines[1].starts_with("\"a, \"\"b\"\"\",0.6666666666666666,"),
            "{}",
            lines[1]
        );
    }

    /// Space sharing: after the tenants, a row per pair with the GPUs it shares (the hand case
    /// of gavel_las_packed.rs: the V100 shared 14/17 of the time).
    #[test]
    fn csv_lists_the_gpus_pairs_share() {
        let scenario = fairground_core::Scenario::from_json(
            r#"{"gpu_types": [{"name": "v100", "count": 1}, {"name": "k80", "count": 1}],
                "tenants": [{"name": "a", "throughput": [4, 1], "max_gpus": 1},
                            {"name": "b", "throughput": [2, 1], "max_gpus": 1}],
                "co_located": [{"tenants": ["a", "b"], "throughput": [[3, 1.5], [0.5, 0.5]]}]}"#,
        )
        .unwrap();
        let inst = scenario.instance().unwrap();
        let packed = policies::by_name("gavel-las-packed").unwrap();
        let r = report::run(&scenario, &inst, packed, None).unwrap();
        assert_eq!(r.shared_by, vec![(0, 1)]);
        let csv = allocation_csv(&r);
        let last = csv.lines().last().unwrap();
        let cells: Vec<&str> = last.split(',').collect();
        assert_eq!(cells[0], "a + b (shared)");
        assert!(
            (cells[1].parse::<f64>().unwrap() - 14.0 / 17.0).abs() < 1e-7,
            "{last}"
        );
        assert_eq!(cells[3], "");
    }
}
