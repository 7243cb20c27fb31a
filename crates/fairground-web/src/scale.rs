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

/// Round tick values from 0 covering `max`: steps of 1, 2 or 5 times a power of ten, about
/// `target` of them. The last tick is >= `max`, so it can serve as the axis end.
pub fn nice_ticks(max: f64, target: usize) -> Vec<f64> {
    if !(max.is_finite() && max > 0.0) || target == 0 {
        return vec![0.0, 1.0];
    }
    let rough = max / target as f64;
    let magnitude = 10f64.powf(rough.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * magnitude)
        .find(|&s| s >= rough)
        .unwrap_or(10.0 * magnitude);
    let count = (max / step - 1e-9).ceil() as usize;
    (0..=count).map(|k| k as f64 * step).collect()
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
    fn labels_hide_float_noise() {
        assert_eq!(tick_label(0.1 + 0.2), "0.3");
        assert_eq!(tick_label(5.0), "5");
        assert_eq!(tick_label(-0.0), "0");
    }
}
