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

/// The family a policy belongs to: an allocation policy declares it
/// ([`fairground_core::policies::PolicyInfo::family`]); a policy is drawn in its family's colour
/// on every chart.
pub use fairground_core::policies::Family;
use fairground_core::policies::PolicyInfo;

/// Each family's name and colour, in legend order. The colours keep a contrast of at least 3:1
/// (WCAG's for graphics) on the page's light (#ffffff) and dark (#0d1117) backgrounds; Okabe and
/// Ito's blue, vermillion and green lead, and their yellow and sky blue (2.3:1 at most on white)
/// are left out.
pub const FAMILIES: [(Family, &str, &str); 7] = [
    (Family::Oef, Family::Oef.name(), "#0072B2"),
    (Family::Gavel, Family::Gavel.name(), "#D55E00"),
    (Family::Market, Family::Market.name(), "#009E73"),
    (Family::Synergy, Family::Synergy.name(), "#9467BD"),
    (Family::Hadar, Family::Hadar.name(), "#A16207"),
    (Family::Sharing, Family::Sharing.name(), "#0891B2"),
    (Family::Baseline, Family::Baseline.name(), "#6E7681"),
];

/// The family of a policy: an allocation policy's declared one (a chart's label may add to its
/// name: "oef-coop CPU"), else the simulator's schedulers' by their names' prefixes.
pub fn family_of(policy: &str) -> Family {
    family_in(fairground_core::policies::CATALOGUE, policy)
}

/// [`family_of`] among the allocation policies `catalogue` declares.
pub fn family_in(catalogue: &[PolicyInfo], policy: &str) -> Family {
    let name = policy.trim_start();
    let first = name.split_whitespace().next().unwrap_or(name);
    if let Some(info) = catalogue.iter().find(|p| p.name == first) {
        return info.family;
    }
    let starts = |prefix: &str| name.starts_with(prefix);
    if starts("oef-") {
        Family::Oef
    } else if starts("gavel-") {
        Family::Gavel
    } else if starts("synergy-") {
        Family::Synergy
    } else if starts("hadar") {
        Family::Hadar
    } else if starts("sjf-") {
        Family::Sharing
    } else {
        Family::Baseline
    }
}

/// A family's legend name and colour.
pub fn family_style(family: Family) -> (&'static str, &'static str) {
    FAMILIES
        .iter()
        .find(|f| f.0 == family)
        .map_or(("baselines", "#6E7681"), |f| (f.1, f.2))
}

/// The colour of a policy on every chart: its family's.
pub fn policy_colour(policy: &str) -> &'static str {
    family_style(family_of(policy)).1
}

/// Stroke dash patterns that tell apart lines of one colour (one family) on one chart: the
/// first solid, the others dashed or dotted.
const DASHES: [&str; 6] = ["", "8 4", "2 3", "12 3 2 3", "4 4", "1 6"];

/// The colour and dash of each of a chart's series labelled by policy: a series takes its
/// family's colour and the next dash of that family among the series before it.
pub fn series_styles(labels: &[&str]) -> Vec<(&'static str, &'static str)> {
    labels
        .iter()
        .enumerate()
        .map(|(k, label)| {
            let family = family_of(label);
            let nth = labels[..k]
                .iter()
                .filter(|l| family_of(l) == family)
                .count();
            (policy_colour(label), DASHES[nth % DASHES.len()])
        })
        .collect()
}

/// Colour of an envy cell: vermillion where the row's tenant envies the column's (`envious`),
/// blue where it does not, both ends from the Okabe-Ito palette, deeper the larger the value's
/// magnitude against `max_abs`, the largest shown. Never lighter than [`LIGHTEST`] of the way
/// from near-white: a pair without envy reads as blue, as the caption says, not as a hole in
/// the panel (issue 78 found indifferent pairs drawn rgb(247, 247, 247) on white).
pub fn envy_colour(value: f64, max_abs: f64, envious: bool) -> String {
    let t = if max_abs > 0.0 && value.is_finite() {
        (value.abs() / max_abs).min(1.0)
    } else {
        0.0
    };
    let end = if envious {
        (213.0, 94.0, 0.0)
    } else {
        (0.0, 114.0, 178.0)
    };
    let strength = LIGHTEST + (1.0 - LIGHTEST) * t;
    let mix = |e: f64| (247.0 + (e - 247.0) * strength).round() as u8;
    format!("rgb({}, {}, {})", mix(end.0), mix(end.1), mix(end.2))
}

/// The weakest an envy cell's colour gets: a third of the way from near-white to its end.
const LIGHTEST: f64 = 0.35;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_take_their_familys_colour_and_lines_of_one_family_differ_by_dash() {
        assert_eq!(family_of("oef-coop"), Family::Oef);
        assert_eq!(family_of("gavel-las-packed"), Family::Gavel);
        assert_eq!(family_of("gandiva-fair:midpoint"), Family::Market);
        assert_eq!(family_of("synergy-tune CPU"), Family::Synergy);
        assert_eq!(family_of("hadar:strict"), Family::Hadar);
        assert_eq!(family_of("sjf-bsbf"), Family::Sharing);
        assert_eq!(family_of("tiresias-2q"), Family::Baseline);
        let styles = series_styles(&["synergy-tune", "fifo", "synergy-opt", "synergy-tune CPU"]);
        assert_eq!(styles[0], ("#9467BD", ""));
        assert_eq!(styles[1], ("#6E7681", ""));
        assert_eq!(styles[2], ("#9467BD", "8 4"));
        assert_eq!(styles[3], ("#9467BD", "2 3"));
        // Every family has its own colour.
        let mut colours: Vec<&str> = FAMILIES.iter().map(|f| f.2).collect();
        colours.dedup();
        assert_eq!(colours.len(), FAMILIES.len());
    }

    #[test]
    fn envy_scale_runs_from_blue_to_vermillion_and_is_never_the_panel_s_white() {
        // No envy at all (indifference) is a light blue, not the panel's white.
        assert_eq!(envy_colour(0.0, 1.0, false), "rgb(161, 200, 223)");
        assert_eq!(envy_colour(1.0, 1.0, true), "rgb(213, 94, 0)");
        assert_eq!(envy_colour(-2.0, 1.0, false), "rgb(0, 114, 178)");
        assert_eq!(envy_colour(f64::NAN, 1.0, false), "rgb(161, 200, 223)");
        assert_eq!(envy_colour(0.5, 0.0, true), "rgb(235, 193, 161)");
        // Halfway: (247 + (e - 247) * 0.675).
        assert_eq!(envy_colour(-0.5, 1.0, false), "rgb(80, 157, 200)");
    }
}
