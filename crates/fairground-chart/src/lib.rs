//! Charts as data, with no web dependency: an SVG element tree ([`svg::SvgNode`]), the scale math
//! ([`scale`]), the palette ([`palette`]) and the line/CDF chart ([`line`]) and
//! each chart's numbers as a table ([`table`]). The playground draws
//! them through Yew or the DOM, the CLI writes them as `.svg` files.

pub mod labels;
pub mod line;
pub mod palette;
pub mod scale;
pub mod svg;
pub mod table;
