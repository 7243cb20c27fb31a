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

/// A full-width chart's width in SVG units: on a desktop it is shown at about this many CSS
/// pixels.
pub const WIDE: f64 = 720.0;
/// The narrowest a chart is drawn: a 340-px phone column still shows it at about one pixel a unit.
pub const NARROWEST: f64 = 320.0;

/// The width to draw a full-width chart at when `available` CSS pixels are free for it: that
/// width (in steps of 20, so a small resize does not redraw) between [`NARROWEST`] and
/// [`WIDE`]. A unit is then drawn at about a pixel or more, so 12-unit text stays at least
/// 11 px as rendered on a phone, where a 720-unit chart shrunk to 350 px drew it at 5.8 px.
pub fn chart_width(available: f64) -> f64 {
    if !available.is_finite() {
        return WIDE;
    }
    ((available / 20.0).floor() * 20.0).clamp(NARROWEST, WIDE)
}

/// Where a horizontal bar chart's names go: in a column left of the bars when the chart is wide
/// enough, else on their own line above each bar so the bars keep the width (a phone).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BarRows {
    /// Where the bars (and the x axis) start.
    pub plot_left: f64,
    /// Names above their bars (true) or right-aligned in a column ending at `plot_left - 8`.
    pub names_above: bool,
    /// From one row's top to the next: the bar, the gap, and a name's line when above.
    pub pitch: f64,
    /// From a row's top to its bar's top.
    pub bar_offset: f64,
}

/// The rows of a bar chart `w` wide with bars `bar` high, `gap` apart, and a name column of
/// `label` units when it leaves the bars at least half the chart.
pub fn bar_rows(w: f64, label: f64, bar: f64, gap: f64) -> BarRows {
    if w - label >= w / 2.0 {
        BarRows {
            plot_left: label,
            names_above: false,
            pitch: bar + gap,
            bar_offset: 0.0,
        }
    } else {
        BarRows {
            plot_left: 8.0,
            names_above: true,
            pitch: bar + gap + 16.0,
            bar_offset: 16.0,
        }
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
    fn a_chart_is_drawn_at_about_the_pixels_it_gets() {
        assert_eq!(chart_width(1392.0), WIDE);
        // A 390-px phone leaves about 348 px: drawn 340 wide, 12-unit text renders at 12.3 px.
        assert_eq!(chart_width(348.0), 340.0);
        assert!(12.0 * 348.0 / chart_width(348.0) >= 11.0);
        assert_eq!(chart_width(100.0), NARROWEST);
        assert_eq!(chart_width(f64::NAN), WIDE);
    }

    #[test]
    fn bar_names_go_above_their_bars_when_a_column_would_take_half() {
        let wide = bar_rows(720.0, 210.0, 22.0, 10.0);
        assert_eq!(
            (wide.plot_left, wide.names_above, wide.pitch),
            (210.0, false, 32.0)
        );
        let narrow = bar_rows(340.0, 210.0, 22.0, 10.0);
        assert!(narrow.names_above);
        assert_eq!(
            (narrow.plot_left, narrow.pitch, narrow.bar_offset),
            (8.0, 48.0, 16.0)
        );
    }

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
