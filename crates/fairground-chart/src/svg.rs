//! A chart as plain data: an SVG element tree that the playground (through Yew), the JavaScript
//! module (through the DOM, with no Yew app) and the CLI (as an `.svg` file) all draw, so a
//! chart has one definition. Text is always set as text, never parsed as markup: a tenant's
//! name cannot inject anything (in a file it is escaped).

/// The SVG namespace.
pub const SVG_NS: &str = "http://www.w3.org/2000/svg";

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

    /// The tree as an SVG document's text (a standalone `.svg` file): attribute values and text
    /// escaped, the root given the SVG namespace.
    pub fn to_svg_text(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, true);
        out.push('\n');
        out
    }

    fn write(&self, out: &mut String, root: bool) {
        out.push('<');
        out.push_str(self.tag);
        if root && self.get("xmlns").is_none() {
            out.push_str(&format!(" xmlns=\"{SVG_NS}\""));
        }
        for (name, value) in &self.attrs {
            out.push_str(&format!(" {name}=\"{}\"", escape(value)));
        }
        if self.text.is_none() && self.children.is_empty() {
            out.push_str("/>");
            return;
        }
        out.push('>');
        if let Some(text) = &self.text {
            out.push_str(&escape(text));
        }
        for child in &self.children {
            child.write(out, false);
        }
        out.push_str(&format!("</{}>", self.tag));
    }
}

/// Text and attribute values as XML character data.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_escapes_names_and_declares_the_namespace() {
        let svg = SvgNode::new("svg")
            .attr("viewBox", "0 0 10 10")
            .child(
                SvgNode::new("text")
                    .attr("data-series", "a\"b")
                    .text("<b>&x</b>"),
            )
            .child(SvgNode::new("line"));
        assert_eq!(
            svg.to_svg_text(),
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 10 10\">\
             <text data-series=\"a&quot;b\">&lt;b&gt;&amp;x&lt;/b&gt;</text><line/></svg>\n"
        );
    }
}
