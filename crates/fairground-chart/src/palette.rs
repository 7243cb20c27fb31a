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

/// Colour of an envy value on a diverging blue (no envy) to vermillion (envy) scale, both ends
/// from the Okabe-Ito palette; `max_abs` is the largest magnitude shown. Zero is near-white.
pub fn envy_colour(value: f64, max_abs: f64) -> String {
    let t = if max_abs > 0.0 && value.is_finite() {
        (value / max_abs).clamp(-1.0, 1.0)
    } else {
        0.0
    };
    let (end, strength) = if t > 0.0 {
        ((213.0, 94.0, 0.0), t)
    } else {
        ((0.0, 114.0, 178.0), -t)
    };
    let mix = |e: f64| (247.0 + (e - 247.0) * strength).round() as u8;
    format!("rgb({}, {}, {})", mix(end.0), mix(end.1), mix(end.2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envy_scale_runs_from_blue_through_white_to_vermillion() {
        assert_eq!(envy_colour(0.0, 1.0), "rgb(247, 247, 247)");
        assert_eq!(envy_colour(1.0, 1.0), "rgb(213, 94, 0)");
        assert_eq!(envy_colour(-2.0, 1.0), "rgb(0, 114, 178)");
        assert_eq!(envy_colour(f64::NAN, 1.0), "rgb(247, 247, 247)");
        assert_eq!(envy_colour(0.5, 0.0), "rgb(247, 247, 247)");
    }
}
