//! Colours for GPU types: the Okabe-Ito palette, distinguishable under the common colour-vision
//! deficiencies (Okabe & Ito, "Color Universal Design", 2002).

const OKABE_ITO: [&str; 8] = [
    "#0072B2", // blue
    "#E69F00", // orange
    "#009E73", // bluish green
    "#CC79A7", // reddish purple
    "#56B4E9", // sky blue
    "#D55E00", // vermillion
    "#F0E442", // yellow
    "#999999", // grey
];

/// The colour of the `index`-th GPU type; repeats after eight.
pub fn type_colour(index: usize) -> &'static str {
    OKABE_ITO[index % OKABE_ITO.len()]
}
