//! Labels for a chart's points that stay inside the plot and never overlap: points at one spot
//! share one label naming all of them, and each label takes the first free place around its
//! point, nearest first, with a leader line when it had to move away.

/// A box on the chart: left, top, width, height (px of the chart's viewBox).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    pub fn overlaps(&self, other: &Rect) -> bool {
        self.x < other.x + other.w
            && other.x < self.x + self.w
            && self.y < other.y + other.h
            && other.y < self.y + self.h
    }

    pub fn inside(&self, outer: &Rect) -> bool {
        self.x >= outer.x
            && self.y >= outer.y
            && self.x + self.w <= outer.x + outer.w
            && self.y + self.h <= outer.y + outer.h
    }

    /// The distance from `point` to the nearest point of this box (0 inside it).
    pub fn distance_to(&self, point: (f64, f64)) -> f64 {
        let dx = (self.x - point.0).max(point.0 - (self.x + self.w)).max(0.0);
        let dy = (self.y - point.1).max(point.1 - (self.y + self.h)).max(0.0);
        dx.hypot(dy)
    }

    /// Whether the segment from `a` to `b` passes through this box (sampled every px).
    pub fn crossed_by(&self, a: (f64, f64), b: (f64, f64)) -> bool {
        let steps = (b.0 - a.0).hypot(b.1 - a.1).ceil().max(1.0) as usize;
        (0..=steps).any(|k| {
            let t = k as f64 / steps as f64;
            let (x, y) = (a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1));
            x > self.x && x < self.x + self.w && y > self.y && y < self.y + self.h
        })
    }

    /// The point of this box nearest `point`: where a leader line from `point` ends.
    pub fn nearest_to(&self, point: (f64, f64)) -> (f64, f64) {
        (
            point.0.clamp(self.x, self.x + self.w),
            point.1.clamp(self.y, self.y + self.h),
        )
    }

    fn overlap_area(&self, other: &Rect) -> f64 {
        let w = (self.x + self.w).min(other.x + other.w) - self.x.max(other.x);
        let h = (self.y + self.h).min(other.y + other.h) - self.y.max(other.y);
        w.max(0.0) * h.max(0.0)
    }
}

/// The points within `radius` px of each other, as groups of indices in input order: each group
/// is the first point not yet grouped and every later one that close to it.
pub fn group_points(points: &[(f64, f64)], radius: f64) -> Vec<Vec<usize>> {
    let mut taken = vec![false; points.len()];
    let mut groups = Vec::new();
    for k in 0..points.len() {
        if taken[k] {
            continue;
        }
        let (x, y) = points[k];
        let group: Vec<usize> = (k..points.len())
            .filter(|&m| !taken[m] && (points[m].0 - x).hypot(points[m].1 - y) <= radius)
            .collect();
        for &m in &group {
            taken[m] = true;
        }
        groups.push(group);
    }
    groups
}

/// The lines of a label naming `names`: joined by commas, wrapped at `max_chars`.
pub fn label_lines(names: &[&str], max_chars: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for (k, name) in names.iter().enumerate() {
        let piece = if k + 1 < names.len() {
            format!("{name},")
        } else {
            name.to_string()
        };
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + piece.chars().count() <= max_chars => {
                line.push(' ');
                line.push_str(&piece);
            }
            _ => lines.push(piece),
        }
    }
    lines
}

/// A placed label: its lines, its box (text starts at `rect.x`; line k's baseline is
/// `rect.y + (k + 0.8) * line_h`), and whether it sits away from its point and needs a leader line
/// from `point`.
#[derive(Debug, Clone, PartialEq)]
pub struct PlacedLabel {
    pub lines: Vec<String>,
    pub rect: Rect,
    pub point: (f64, f64),
    pub leader: bool,
}

/// Places one label per `(point, lines)` inside `plot`, in order: each at the first spot around
/// its point (right, left, above, below, then the corners, at growing distances) that leaves the
/// plot's bounds untouched and overlaps no label placed before it nor any point's marker (`marker`
/// px around every point). A label too big for any free spot takes the one it overlaps least.
/// Text widths are estimated at `char_w` px a character, so `char_w` should not be less than the
/// font's widest common glyphs on average (about 0.6 em for sans-serif digits and letters).
pub fn place_labels(
    labels: &[((f64, f64), Vec<String>)],
    plot: Rect,
    char_w: f64,
    line_h: f64,
    marker: f64,
) -> Vec<PlacedLabel> {
    let markers: Vec<Rect> = labels
        .iter()
        .map(|((x, y), _)| Rect {
            x: x - marker,
            y: y - marker,
            w: 2.0 * marker,
            h: 2.0 * marker,
        })
        .collect();
    let mut placed: Vec<PlacedLabel> = Vec::with_capacity(labels.len());
    for ((px, py), lines) in labels {
        let (px, py) = (*px, *py);
        let w = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0) as f64 * char_w;
        let h = lines.len() as f64 * line_h;
        let mut best: Option<(f64, Rect, bool)> = None;
        'search: for (step, d) in [6.0, 18.0, 34.0, 54.0, 80.0, 110.0].into_iter().enumerate() {
            let spots = [
                (px + d, py - h / 2.0),
                (px - d - w, py - h / 2.0),
                (px - w / 2.0, py - d - h),
                (px - w / 2.0, py + d),
                (px + d, py - d - h),
                (px + d, py + d),
                (px - d - w, py - d - h),
                (px - d - w, py + d),
            ];
            for (x, y) in spots {
                let rect = Rect { x, y, w, h };
                if !rect.inside(&plot) {
                    continue;
                }
                let on_labels: f64 = placed.iter().map(|p| rect.overlap_area(&p.rect)).sum();
                let on_markers: f64 = markers.iter().map(|m| rect.overlap_area(m)).sum();
                let on_leaders = leaders_crossed(&rect, (px, py), &placed) as f64;
                // Overlapping a label or a leader line is far worse than covering a point's
                // marker (a crossing counts as a label's corner covered).
                let cost = 1000.0 * (on_labels + 50.0 * on_leaders) + on_markers;
                let leader = step >= 2;
                if cost == 0.0 {
                    best = Some((0.0, rect, leader));
                    break 'search;
                }
                if best.is_none_or(|(c, _, _)| cost < c) {
                    best = Some((cost, rect, leader));
                }
            }
        }
        if best.is_none_or(|(cost, _, _)| cost >= 1000.0 * 1e-9) {
            // No free spot near the point (or only ones over other points' markers): the free
            // spot nearest it anywhere in the plot, on a grid of half a line, with a leader.
            if let Some(rect) = nearest_free(&plot, (px, py), (w, h), &placed, &markers, line_h) {
                best = Some((0.0, rect, true));
            }
        }
        let (_, rect, mut leader) = best.unwrap_or_else(|| {
            // Bigger than the plot: pinned to its top left.
            let rect = Rect {
                x: plot.x,
                y: plot.y,
                w,
                h,
            };
            (0.0, rect, true)
        });
        // Without a leader, a label reads as naming the point nearest it: it gets one when it
        // is not beside its own point, or another policy's point is as near.
        let own = rect.distance_to((px, py));
        let others_nearer = labels
            .iter()
            .map(|(q, _)| *q)
            .filter(|&q| q != (px, py))
            .any(|q| rect.distance_to(q) <= own + AMBIGUOUS);
        leader |= own > BESIDE || others_nearer;
        placed.push(PlacedLabel {
            lines: lines.clone(),
            rect,
            point: (px, py),
            leader,
        });
    }
    placed
}

/// How far from its point (px) a label still reads as beside it, without a leader: the nearest
/// spot the placement tries is 6 px away.
const BESIDE: f64 = 10.0;
/// How much nearer its own point than any other a label without a leader must be (px): the
/// box is an estimate of the text's, so a closer call could read either way on screen.
const AMBIGUOUS: f64 = 4.0;

/// How many leader lines a label at `rect` for the point at `point` would meet: placed labels'
/// leaders through it, and its own (from its point to its nearest edge) through placed labels.
fn leaders_crossed(rect: &Rect, point: (f64, f64), placed: &[PlacedLabel]) -> usize {
    let theirs = placed
        .iter()
        .filter(|p| p.leader && rect.crossed_by(p.point, p.rect.nearest_to(p.point)))
        .count();
    let end = rect.nearest_to(point);
    let own = placed
        .iter()
        .filter(|p| p.rect.crossed_by(point, end))
        .count();
    theirs + own
}

/// The spot for a `size` box inside `plot` nearest `point` that overlaps no placed label, and
/// preferably no marker either, on a grid of `step / 2`.
fn nearest_free(
    plot: &Rect,
    point: (f64, f64),
    size: (f64, f64),
    placed: &[PlacedLabel],
    markers: &[Rect],
    step: f64,
) -> Option<Rect> {
    let step = (step / 2.0).max(1.0);
    let (cols, rows) = (
        ((plot.w - size.0) / step).floor(),
        ((plot.h - size.1) / step).floor(),
    );
    if cols < 0.0 || rows < 0.0 {
        return None;
    }
    let mut spots: Vec<Rect> = (0..=rows as usize)
        .flat_map(|r| {
            (0..=cols as usize).map(move |c| Rect {
                x: plot.x + c as f64 * step,
                y: plot.y + r as f64 * step,
                w: size.0,
                h: size.1,
            })
        })
        .filter(|rect| !placed.iter().any(|p| p.rect.overlaps(rect)))
        .collect();
    let distance = |r: &Rect| (r.x + r.w / 2.0 - point.0).hypot(r.y + r.h / 2.0 - point.1);
    spots.sort_by(|a, b| distance(a).total_cmp(&distance(b)));
    // The nearest with no leader line through it or from it through a label, and on no marker;
    // failing that, the nearest on no marker; failing that, the nearest.
    let clear = |r: &Rect| !markers.iter().any(|m| m.overlaps(r));
    spots
        .iter()
        .find(|r| clear(r) && leaders_crossed(r, point, placed) == 0)
        .or_else(|| spots.iter().find(|r| clear(r)))
        .or(spots.first())
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLOT: Rect = Rect {
        x: 50.0,
        y: 10.0,
        w: 400.0,
        h: 250.0,
    };

    #[test]
    fn points_at_one_spot_form_one_group() {
        let groups = group_points(
            &[
                (10.0, 10.0),
                (50.0, 10.0),
                (12.0, 11.0),
                (10.0, 10.0),
                (51.0, 10.0),
            ],
            4.0,
        );
        assert_eq!(groups, vec![vec![0, 2, 3], vec![1, 4]]);
    }

    #[test]
    fn a_label_not_beside_its_point_or_nearer_another_has_a_leader() {
        let own = |l: &PlacedLabel, other: (f64, f64)| {
            // Recomputed here from the boxes: the nearest point of the label's box.
            let d = |p: (f64, f64)| {
                let dx = (l.rect.x - p.0).max(p.0 - l.rect.x - l.rect.w).max(0.0);
                let dy = (l.rect.y - p.1).max(p.1 - l.rect.y - l.rect.h).max(0.0);
                dx.hypot(dy)
            };
            (d(l.point), d(other))
        };
        // Alone: beside its point (6 px to the right), no leader.
        let alone = place_labels(&[((200.0, 100.0), vec!["a".into()])], PLOT, 7.0, 14.0, 5.0);
        assert!(!alone[0].leader);
        assert!(own(&alone[0], (0.0, 0.0)).0 <= 10.0);
        // Two points 20 px apart, the second's label long: wherever it lands, a label without a
        // leader is nearer its own point than the other, and beside it.
        let pair = vec![
            ((200.0, 100.0), vec!["first-policy-name".to_string()]),
            (
                (220.0, 100.0),
                vec!["second-policy-with-a-long-name".to_string()],
            ),
        ];
        let placed = place_labels(&pair, PLOT, 7.0, 14.0, 5.0);
        for (k, l) in placed.iter().enumerate() {
            let (mine, theirs) = own(l, pair[1 - k].0);
            if !l.leader {
                assert!(
                    mine <= 10.0 && mine < theirs,
                    "label {k}: {mine} vs {theirs}"
                );
            }
        }
        // Hemmed in by points all around at 12 px: any free spot is nearer a neighbour.
        let ring: Vec<((f64, f64), Vec<String>)> =
            std::iter::once(((250.0, 130.0), vec!["centre".to_string()]))
                .chain((0..8).map(|k| {
                    let a = k as f64 * std::f64::consts::FRAC_PI_4;
                    (
                        (250.0 + 12.0 * a.cos(), 130.0 + 12.0 * a.sin()),
                        vec![format!("n{k}")],
                    )
                }))
                .collect();
        let placed = place_labels(&ring, PLOT, 7.0, 14.0, 5.0);
        assert!(placed[0].leader, "{:?}", placed[0]);
    }

    #[test]
    fn a_group_label_names_everyone_wrapped() {
        let lines = label_lines(&["gavel-las", "gavel-ftf", "gavel-fifo", "isolated"], 22);
        assert_eq!(lines, ["gavel-las, gavel-ftf,", "gavel-fifo, isolated"]);
        assert_eq!(label_lines(&["oef-coop"], 22), ["oef-coop"]);
    }

    #[test]
    fn crowded_labels_stay_apart_and_inside() {
        // Fifteen points in a tight cluster near the right edge, each with a long label: the
        // case that stacked unreadably and ran off the chart before.
        let labels: Vec<((f64, f64), Vec<String>)> = (0..15)
            .map(|k| {
                let point = (430.0 - (k % 4) as f64 * 9.0, 40.0 + (k / 4) as f64 * 9.0);
                (point, vec![format!("gavel-water-filling {k}")])
            })
            .collect();
        let placed = place_labels(&labels, PLOT, 7.0, 14.0, 5.0);
        assert_eq!(placed.len(), 15);
        for (k, a) in placed.iter().enumerate() {
            assert!(
                a.rect.inside(&PLOT),
                "label {k} leaves the plot: {:?}",
                a.rect
            );
            for b in &placed[k + 1..] {
                assert!(
                    !a.rect.overlaps(&b.rect),
                    "{:?} overlaps {:?}",
                    a.rect,
                    b.rect
                );
            }
            assert_eq!(a.rect.w, a.lines[0].len() as f64 * 7.0);
        }
    }

    /// A label whose nearest free spot is away from its point takes one its leader line can
    /// reach without running through another label, when the plot has one.
    #[test]
    fn a_leader_line_goes_round_labels_when_it_can() {
        // Two points close together on the left: the first label takes the spot right of its
        // point; the second's spots nearby are taken or on the first point, and its leader must
        // not run through the first label.
        let labels = vec![
            ((120.0, 130.0), vec!["first-policy-name".to_string()]),
            ((126.0, 130.0), vec!["second-policy-name".to_string()]),
        ];
        let placed = place_labels(&labels, PLOT, 7.0, 14.0, 5.0);
        let (a, b) = (&placed[0], &placed[1]);
        assert!(!a.rect.overlaps(&b.rect));
        if b.leader {
            assert!(
                !a.rect.crossed_by(b.point, b.rect.nearest_to(b.point)),
                "{a:?} {b:?}"
            );
        }
        assert!(
            !b.rect.crossed_by(a.point, a.rect.nearest_to(a.point)),
            "{a:?} {b:?}"
        );
    }

    #[test]
    fn a_lone_label_sits_right_of_its_point_or_left_at_the_edge() {
        let placed = place_labels(
            &[((100.0, 100.0), vec!["fifo".into()])],
            PLOT,
            7.0,
            14.0,
            5.0,
        );
        assert_eq!(
            placed[0].rect,
            Rect {
                x: 106.0,
                y: 93.0,
                w: 28.0,
                h: 14.0
            }
        );
        assert!(!placed[0].leader);
        let placed = place_labels(
            &[((445.0, 100.0), vec!["fifo".into()])],
            PLOT,
            7.0,
            14.0,
            5.0,
        );
        assert_eq!(placed[0].rect.x, 445.0 - 6.0 - 28.0);
    }
}
