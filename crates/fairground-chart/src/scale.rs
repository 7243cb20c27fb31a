//! Scale math for the SVG charts, kept out of the components so it can be unit-tested natively.

/// Maps a data interval linearly onto a pixel interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinearScale {
    pub domain: (f64, f64),
    pub range: (f64, f64),
}

impl LinearScale {
    pub fn new(domain: (f64, f64), range: (f64, f64)) -> Self {
        LinearScale { domain, range }
    }

    /// The pixel position of `value`; a degenerate domain maps everything to the range start.
    pub fn map(&self, value: f64) -> f64 {
        let (d0, d1) = self.domain;
        let (r0, r1) = self.range;
        if d1 == d0 {
            return r0;
        }
        r0 + (value - d0) / (d1 - d0) * (r1 - r0)
    }
}

/// The smallest step of 1, 2 or 5 times a power of ten that is at least `rough` (> 0).
fn nice_step(rough: f64) -> f64 {
    let magnitude = 10f64.powf(rough.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * magnitude)
        .find(|&s| s >= rough)
        .unwrap_or(10.0 * magnitude)
}

/// Round tick values from 0 covering `max`: steps of 1, 2 or 5 times a power of ten, about
/// `target` of them. The last tick is >= `max`, so it can serve as the axis end.
pub fn nice_ticks(max: f64, target: usize) -> Vec<f64> {
    if !(max.is_finite() && max > 0.0) || target == 0 {
        return vec![0.0, 1.0];
    }
    let step = nice_step(max / target as f64);
    let count = (max / step - 1e-9).ceil() as usize;
    (0..=count).map(|k| k as f64 * step).collect()
}

/// Round ticks covering [lo, hi] (both finite, lo <= hi) with about `target` steps of 1, 2 or 5
/// times a power of ten: the first tick is <= lo and the last >= hi. For axes that should not
/// start at 0 (efficiency between 3.7 and 4). A flat range gets a unit-wide span around it.
pub fn range_ticks(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite()) || lo > hi || target == 0 {
        return vec![0.0, 1.0];
    }
    let span = if hi - lo > 1e-12 * hi.abs().max(1.0) {
        hi - lo
    } else {
        hi.abs().max(1.0) * 0.1
    };
    let step = nice_step(span / target as f64);
    let first = (lo / step + 1e-9).floor();
    let last = (hi / step - 1e-9).ceil().max(first + 1.0);
    (0..=(last - first) as usize)
        .map(|k| (first + k as f64) * step)
        .collect()
}

/// A tick label without float noise: 0.30000000000000004 prints as 0.3, 5 as 5.
pub fn tick_label(value: f64) -> String {
    let rounded = (value * 1e6).round() / 1e6;
    let text = format!("{rounded}");
    if text == "-0" {
        "0".into()
    } else {
        text
    }
}

/// Where each legend entry of a chart goes: entries of a swatch (20 px) and their label (about
/// `char_w` px a character) laid left to right from `left`, wrapping to a new row (`row_h` apart)
/// before passing `right`. Returns each entry's (x, row).
pub fn legend_layout(labels: &[&str], left: f64, right: f64, char_w: f64) -> Vec<(f64, usize)> {
    let mut x = left;
    let mut row = 0;
    let mut out = Vec::with_capacity(labels.len());
    for label in labels {
        let width = 20.0 + label.chars().count() as f64 * char_w + 16.0;
        if x > left && x + width > right {
            x = left;
            row += 1;
        }
        out.push((x, row));
        x += width;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_linearly_including_flipped_ranges() {
        let s = LinearScale::new((0.0, 10.0), (0.0, 200.0));
        assert_eq!(s.map(2.5), 50.0);
        let y = LinearScale::new((0.0, 4.0), (100.0, 0.0));
        assert_eq!(y.map(1.0), 75.0);
        assert_eq!(LinearScale::new((3.0, 3.0), (5.0, 9.0)).map(3.0), 5.0);
    }

    #[test]
    fn ticks_are_round_and_cover_the_maximum() {
        assert_eq!(nice_ticks(12.0, 5), vec![0.0, 5.0, 10.0, 15.0]);
        assert_eq!(nice_ticks(4.0, 4), vec![0.0, 1.0, 2.0, 3.0, 4.0]);
        assert_eq!(nice_ticks(0.9, 3), vec![0.0, 0.5, 1.0]);
        let t = nice_ticks(0.3, 3);
        assert_eq!(t.len(), 4);
        assert!((t[3] - 0.3).abs() < 1e-12);
        assert_eq!(nice_ticks(0.0, 5), vec![0.0, 1.0]);
        assert_eq!(nice_ticks(f64::NAN, 5), vec![0.0, 1.0]);
    }

    #[test]
    fn range_ticks_cover_the_range_without_zero() {
        let t = range_ticks(3.75, 4.0, 5);
        assert_eq!(t.len(), 6);
        assert!(
            (t[0] - 3.75).abs() < 1e-12 && (t[5] - 4.0).abs() < 1e-12,
            "{t:?}"
        );
        let t = range_ticks(3.71, 4.02, 4);
        assert!(t[0] <= 3.71 && *t.last().unwrap() >= 4.02, "{t:?}");
        assert!((t[1] - t[0] - 0.1).abs() < 1e-12, "{t:?}");
        // A flat curve still gets an axis around it.
        let t = range_ticks(2.0, 2.0, 4);
        assert!(t[0] <= 2.0 && *t.last().unwrap() > t[0], "{t:?}");
        assert_eq!(range_ticks(f64::NAN, 1.0, 4), vec![0.0, 1.0]);
    }

    #[test]
    fn labels_hide_float_noise() {
        assert_eq!(tick_label(0.1 + 0.2), "0.3");
        assert_eq!(tick_label(5.0), "5");
        assert_eq!(tick_label(-0.0), "0");
    }

    #[test]
    fn legends_wrap_instead_of_overlapping() {
        let labels = [
            "synergy-proportional CPU",
            "synergy-proportional memory",
            "a",
            "b",
        ];
        let at = legend_layout(&labels, 56.0, 704.0, 6.5);
        assert_eq!(at[0], (56.0, 0));
        // Each entry starts after the previous one's label on its row.
        assert_eq!(at[1], (56.0 + 20.0 + 24.0 * 6.5 + 16.0, 0));
        let third = at[1].0 + 20.0 + 27.0 * 6.5 + 16.0;
        assert_eq!(at[2], (third, 0));
        // A narrow chart wraps: no entry starts past the right edge.
        let narrow = legend_layout(&labels, 56.0, 300.0, 6.5);
        assert_eq!(narrow.iter().map(|e| e.1).collect::<Vec<_>>(), [0, 1, 2, 2]);
        assert!(narrow.iter().all(|e| e.0 < 300.0));
    }
}
