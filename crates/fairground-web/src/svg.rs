//! A chart as plain data: an SVG element tree that both the playground (through Yew) and the
//! JavaScript module (through the DOM, with no Yew app) draw, so a chart has one definition.
//! Text is always set as text, never parsed as markup: a tenant's name cannot inject anything.

use yew::virtual_dom::{VNode, VTag, VText};

const SVG_NS: &str = "http://www.w3.org/2000/svg";

/// One SVG element: its tag, attributes, text (before its children) and children.
#[derive(Debug, Clone, PartialEq)]
pub struct SvgNode {
    pub tag: &'static str,
    pub attrs: Vec<(&'static str, String)>,
    pub text: Option<String>,
    pub children: Vec<SvgNode>,
}

impl SvgNode {
    pub fn new(tag: &'static str) -> Self {
        SvgNode {
            tag,
            attrs: Vec::new(),
            text: None,
            children: Vec::new(),
        }
    }

    pub fn attr(mut self, name: &'static str, value: impl ToString) -> Self {
        self.attrs.push((name, value.to_string()));
        self
    }

    pub fn text(mut self, text: impl Into<String>) -> Self {
        self.text = Some(text.into());
        self
    }

    pub fn child(mut self, child: SvgNode) -> Self {
        self.children.push(child);
        self
    }

    pub fn children(mut self, children: impl IntoIterator<Item = SvgNode>) -> Self {
        self.children.extend(children);
        self
    }

    /// The value of attribute `name`, if set.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every element below (and including) this one, depth first.
    pub fn descendants(&self) -> Vec<&SvgNode> {
        let mut out = vec![self];
        for c in &self.children {
            out.extend(c.descendants());
        }
        out
    }

    /// For the playground's Yew components.
    pub fn to_html(&self) -> VNode {
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

    /// For pages without Yew: the element, built with the DOM's own calls.
    pub fn to_dom(&self, document: &web_sys::Document) -> Result<web_sys::Element, String> {
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
