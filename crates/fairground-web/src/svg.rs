//! Drawing a chart's element tree ([`SvgNode`], defined Yew-free in `fairground-chart`) in the
//! page: as Yew nodes for the playground's components, or with the DOM's own calls for pages
//! without Yew (the JavaScript module).

pub use fairground_chart::svg::SvgNode;
use fairground_chart::svg::SVG_NS;
use yew::virtual_dom::{VNode, VTag, VText};

/// How the page draws an [`SvgNode`].
pub trait SvgRender {
    /// For the playground's Yew components.
    fn to_html(&self) -> VNode;
    /// For pages without Yew: the element, built with the DOM's own calls.
    fn to_dom(&self, document: &web_sys::Document) -> Result<web_sys::Element, String>;
}

impl SvgRender for SvgNode {
    fn to_html(&self) -> VNode {
        let mut tag = VTag::new(self.tag);
        for (name, value) in &self.attrs {
            tag.add_attribute(name, value.clone());
        }
        if let Some(text) = &self.text {
            tag.add_child(VNode::VText(VText::new(text.clone())));
        }
        tag.add_children(self.children.iter().map(SvgNode::to_html));
        VNode::from(tag)
    }

    fn to_dom(&self, document: &web_sys::Document) -> Result<web_sys::Element, String> {
        let js = |e: wasm_bindgen::JsValue| format!("the page refused the chart: {e:?}");
        let element = document
            .create_element_ns(Some(SVG_NS), self.tag)
            .map_err(js)?;
        for (name, value) in &self.attrs {
            element.set_attribute(name, value).map_err(js)?;
        }
        if let Some(text) = &self.text {
            element.append_with_str_1(text).map_err(js)?;
        }
        for child in &self.children {
            let node: web_sys::Node = child.to_dom(document)?.into();
            element.append_child(&node).map_err(js)?;
        }
        Ok(element)
    }
}
