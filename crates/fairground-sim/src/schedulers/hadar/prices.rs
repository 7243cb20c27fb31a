//! Hadar's dual side: a price per (GPU type, time slot) that rises with the GPUs committed in
//! that slot, and the dual step that gives one job the schedule maximising its utility minus
//! the priced cost.
//!
//! Slots are rounds, slot 0 the round being planned; the book looks `horizon` slots ahead.
//! A job's schedule is a start slot `s` and a composition `y` (GPUs per type, summing to its
//! scale factor `n`), held from `s` until it finishes. With
//! - `D*` the slots its remaining work takes at its fastest possible composition,
//! - `d(y)` the slots it takes on `y` (at the engine's mixed-type rule),
//!
//! its utility for finishing at slot `s + d(y)` is
//!
//! ```text
//!     f(s, y) = n D*^2 / (s + d(y))
//! ```
//!
//! so a job is worth, per GPU-slot, 1 when it starts now on its fastest composition (U = 1),
//! `(D*/d)^2` on a slower one, and less the later it starts: decreasing in its completion time
//! `s + d`, and comparable between jobs of any length. The papers' stated aim is average (and
//! total) completion time, so the value of a schedule is that of the job's whole remaining work
//! finishing at `s + d`, also for a job that outlives the horizon: its completion time is what the
//! schedule decides. (Before session 27 only the share of such a job's work inside the horizon
//! counted, `f x (H - s) / d`: a long job's value then ignored when it would finish.) The cost
//! of a schedule is
//!
//! ```text
//!     sum_{t in [s, s + d)} sum_h y_h p_h^t,     p_h^t = L (U/L)^(g_h^t / C_h)
//! ```
//!
//! (the last, partly used slot paid in proportion: a job about to finish must stay cheap, or it
//! could be refused for ever),
//! with `g_h^t` the GPUs of type h already committed in slot t and `C_h` the type's GPUs: the
//! exponential price of the online primal-dual literature (OASiS, Bao et al., INFOCOM 2018), at
//! L when the type is idle and U when it is full. The book knows no slot past the horizon; the
//! slots a schedule holds there are priced at the book's last slot, `p_h^(H-1)` (ours: the jobs
//! booked in that slot are the ones still running past it, so its load is the best guess of the
//! load beyond), and booked nowhere (re-planning every round revises them anyway).

use crate::mixed::MixedRate;

/// Price of one GPU of a type for one slot, with `load` of its `capacity` GPUs committed:
/// `lower (upper / lower)^(load / capacity)`.
pub fn price(lower: f64, upper: f64, load: u32, capacity: u32) -> f64 {
    if capacity == 0 {
        return upper;
    }
    lower * (upper / lower).powf(f64::from(load) / f64::from(capacity))
}

/// The largest utility per GPU-slot a job can have: starting now on its fastest composition.
pub const UPPER: f64 = 1.0;

/// The price of an idle GPU, `L`: below the utility per GPU-slot of every job in `ratios` (each
/// job's slowest usable per-GPU rate over its fastest) wherever it starts within the horizon,
/// so that on an idle cluster every job is admitted. Starting at slot s on its slowest types,
/// a job's utility per paid GPU-slot is `ratio^2 d / (s + d)`: >= `ratio^2 / (H + 1)` when
/// `d >= 1` slot, and `ratio^2` at slot 0 for a job with less than a slot left. L is half of the
/// smallest, floored at 1e-9.
pub fn lower_bound(ratios: impl Iterator<Item = f64>, horizon: usize) -> f64 {
    let worst = ratios.fold(1.0_f64, f64::min).max(0.0);
    (worst * worst / (2.0 * (horizon as f64 + 1.0))).clamp(1e-9, UPPER / 2.0)
}

/// Committed GPUs and prices over (type, slot).
#[derive(Debug, Clone)]
pub struct PriceBook {
    capacity: Vec<u32>,
    horizon: usize,
    /// load[h][t]: GPUs of type h committed in slot t.
    load: Vec<Vec<u32>>,
    /// prefix[h][t]: sum of the prices of type h over slots [0, t).
    prefix: Vec<Vec<f64>>,
    /// by_load[h][g]: the price of type h with g GPUs committed (pow is costly; loads are few).
    by_load: Vec<Vec<f64>>,
    /// headroom[h][s x horizon + k - 1]: the fewest free GPUs of type h over slots [s, s + k).
    headroom: Vec<Vec<u32>>,
}

impl PriceBook {
    pub fn new(capacity: Vec<u32>, horizon: usize, lower: f64) -> PriceBook {
        let horizon = horizon.max(1);
        let types = capacity.len();
        let mut book = PriceBook {
            load: vec![vec![0; horizon]; types],
            prefix: vec![vec![0.0; horizon + 1]; types],
            headroom: vec![vec![0; horizon * horizon]; types],
            by_load: capacity
                .iter()
                .map(|&c| (0..=c).map(|g| price(lower, UPPER, g, c)).collect())
                .collect(),
            capacity,
            horizon,
        };
        for h in 0..types {
            book.refresh(h);
        }
        book
    }

    pub fn horizon(&self) -> usize {
        self.horizon
    }

    pub fn capacity(&self, h: usize) -> u32 {
        self.capacity[h]
    }

    pub fn load(&self, h: usize, t: usize) -> u32 {
        self.load[h][t]
    }

    /// p_h^t at the current load.
    pub fn price(&self, h: usize, t: usize) -> f64 {
        self.by_load[h][self.load[h][t] as usize]
    }

    /// Sum of p_h^t over slots [start, start + slots).
    pub fn window_price(&self, h: usize, start: usize, slots: usize) -> f64 {
        self.prefix[h][start + slots] - self.prefix[h][start]
    }

    /// Whether `gpus` more GPUs of type h are free in every slot of [start, start + slots).
    pub fn fits(&self, h: usize, start: usize, slots: usize, gpus: u32) -> bool {
        gpus == 0 || (slots > 0 && self.headroom[h][start * self.horizon + slots - 1] >= gpus)
    }

    /// GPUs free in slot 0 over all types.
    pub fn free_now(&self) -> u32 {
        (0..self.capacity.len())
            .map(|h| self.capacity[h] - self.load[h][0])
            .sum()
    }

    /// Books `plan`'s GPUs in its slots.
    pub fn commit(&mut self, plan: &Plan) {
        for (h, &y) in plan.counts.iter().enumerate() {
            if y == 0 {
                continue;
            }
            for t in plan.start..plan.start + plan.slots {
                self.load[h][t] += y;
            }
            self.refresh(h);
        }
    }

    fn refresh(&mut self, h: usize) {
        let c = self.capacity[h];
        for t in 0..self.horizon {
            self.prefix[h][t + 1] = self.prefix[h][t] + self.by_load[h][self.load[h][t] as usize];
        }
        let horizon = self.horizon;
        let (load, headroom) = (&self.load[h], &mut self.headroom[h]);
        for s in 0..horizon {
            let mut least = u32::MAX;
            for t in s..horizon {
                least = least.min(c - load[t]);
                headroom[s * horizon + t - s] = least;
            }
        }
    }
}

/// What the dual step needs to know of a job.
pub struct Offer<'a> {
    pub scale_factor: u32,
    /// Whole-job steps/s on `scale_factor` GPUs of each type (0: cannot run there).
    pub rate: &'a [f64],
    pub remaining_steps: f64,
    pub slot_s: f64,
    pub rule: MixedRate,
    /// The job's fastest possible rate on this cluster ([`MixedRate::best_rate`]): its D*.
    pub best_rate: f64,
    /// The compositions to consider (GPUs per type, each summing to the scale factor).
    pub compositions: &'a [Vec<u32>],
}

/// A job's schedule: `counts[h]` GPUs of type h from slot `start`, booked for `slots` slots
/// (within the horizon).
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub start: usize,
    pub counts: Vec<u32>,
    pub slots: usize,
    pub utility: f64,
    pub cost: f64,
}

/// The dual step: the (start, composition) maximising utility minus cost among those that fit,
/// if its surplus is positive (the job is admitted); ties go to the earlier start, then the
/// earlier composition.
pub fn best_plan(book: &PriceBook, offer: &Offer) -> Option<Plan> {
    let best_rate = offer.best_rate;
    if best_rate <= 0.0 || offer.remaining_steps <= 0.0 {
        return None;
    }
    let n = f64::from(offer.scale_factor);
    let ideal = offer.remaining_steps / (best_rate * offer.slot_s);
    let horizon = book.horizon();
    let mut best: Option<Plan> = None;
    let mut best_surplus = 0.0;
    let mut used: Vec<(usize, f64)> = Vec::with_capacity(book.capacity.len());
    for y in offer.compositions {
        let rate = offer.rule.rate_of(offer.rate, offer.scale_factor, y);
        if rate <= 0.0 {
            continue;
        }
        used.clear();
        used.extend(
            y.iter()
                .enumerate()
                .filter(|(_, &g)| g > 0)
                .map(|(h, &g)| (h, f64::from(g))),
        );
        let d = offer.remaining_steps / (rate * offer.slot_s);
        for start in 0..horizon {
            // Utility only falls with a later start (it is at most n D*^2 / (s + d)): once that
            // bound cannot beat the best surplus, no later start can.
            if n * ideal * ideal / (start as f64 + d) <= best_surplus {
                break;
            }
            // Slots of work inside the horizon; the GPUs are booked for whole slots, but paid
            // for the part of the last one the job uses (so a job about to finish is cheap).
            // Slots past the horizon are paid at the last slot's price.
            let inside = d.min((horizon - start) as f64);
            let beyond = d - inside;
            // (`as` truncates: floor for these positive values; libm's ceil is slow here.)
            let full = inside as usize;
            let part = inside - full as f64;
            let slots = (full + usize::from(part > 0.0)).clamp(1, horizon - start);
            if !used
                .iter()
                .all(|&(h, g)| book.fits(h, start, slots, g as u32))
            {
                continue;
            }
            let utility = n * ideal * ideal / (start as f64 + d);
            let cost: f64 = used
                .iter()
                .map(|&(h, g)| {
                    let last = if part > 0.0 {
                        part * book.price(h, start + full)
                    } else {
                        0.0
                    };
                    let past = beyond * book.price(h, horizon - 1);
                    g * (book.window_price(h, start, full) + last + past)
                })
                .sum();
            if utility - cost > best_surplus {
                best_surplus = utility - cost;
                best = Some(Plan {
                    start,
                    counts: y.clone(),
                    slots,
                    utility,
                    cost,
                });
            }
        }
    }
    best
}

/// Whether the job outlives the horizon on every composition (D* >= H slots).
pub fn outlives_horizon(book: &PriceBook, offer: &Offer) -> bool {
    offer.remaining_steps / (offer.best_rate * offer.slot_s) >= book.horizon() as f64
}

/// A quick, exact refusal for jobs that outlive the horizon (D* >= H). For such a job on
/// composition y (rate `rho` times its fastest) from slot s, as a function of its length D =
/// D* (in slots at its fastest; d = D / rho):
///
/// ```text
///     utility(D) = n D^2 / (s + D / rho)         convex, its slope rising towards n rho
///     cost(D)    = A + B (D / rho - (H - s))     A = sum_h y_h (prices of slots s..H)
///                                                B = sum_h y_h p_h^(H-1)
/// ```
///
/// When `n rho^2 <= B` the surplus falls with D, so it is at most its value at D = H; when
/// `n rho^2 > B` it grows without bound, and a long enough job is admitted. So every job of
/// these rates that outlives the horizon is refused exactly when, for every (s, y) that fits,
/// `n rho^2 <= B` and the surplus at D = H is at most 0. Commits only add load (A and B only
/// grow), so the verdict holds for the rest of the round, for every job of the same model.
pub fn refused_however_long(book: &PriceBook, offer: &Offer) -> bool {
    let n = f64::from(offer.scale_factor);
    let horizon = book.horizon();
    let h_slots = horizon as f64;
    offer.compositions.iter().all(|y| {
        let rho = offer.rule.rate_of(offer.rate, offer.scale_factor, y) / offer.best_rate;
        if rho <= 0.0 {
            return true;
        }
        (0..horizon).all(|start| {
            let slots = horizon - start;
            if !y
                .iter()
                .enumerate()
                .all(|(h, &g)| book.fits(h, start, slots, g))
            {
                return true;
            }
            let held = y.iter().enumerate().filter(|(_, &g)| g > 0);
            let a: f64 = held
                .clone()
                .map(|(h, &g)| f64::from(g) * book.window_price(h, start, slots))
                .sum();
            let b: f64 = held
                .map(|(h, &g)| f64::from(g) * book.price(h, horizon - 1))
                .sum();
            let d = h_slots / rho;
            let utility = n * h_slots * h_slots / (start as f64 + d);
            n * rho * rho <= b && utility <= a + b * (d - slots as f64)
        })
    })
}

/// At most this many compositions are planned over per job: a job of many GPUs on a cluster of
/// many types has too many ways to spread them (n = 64 over 10 types: ~10^11) for a page that must
/// not freeze. The first ones in [`compositions`]' order are kept (those that put the most GPUs
/// on the earlier types); the run's notes say when a job's list was cut.
pub const MAX_COMPOSITIONS: usize = 10_000;

/// Every way to spread `n` GPUs over the types in `usable` (true: the job can run there), at
/// most `capacity[h]` on type h; at most [`MAX_COMPOSITIONS`] of them (the second value says
/// whether any were left out).
pub fn compositions(n: u32, usable: &[bool], capacity: &[u32]) -> (Vec<Vec<u32>>, bool) {
    struct Walk<'a> {
        usable: &'a [bool],
        cap: &'a [u32],
        /// room[h]: GPUs the usable types from h on have together.
        room: Vec<u32>,
        cur: Vec<u32>,
        out: Vec<Vec<u32>>,
        cut: bool,
    }
    fn go(w: &mut Walk, h: usize, left: u32) {
        if w.out.len() == MAX_COMPOSITIONS {
            w.cut = true;
            return;
        }
        if h == w.usable.len() {
            if left == 0 {
                w.out.push(w.cur.clone());
            }
            return;
        }
        // Only branches that can still place every GPU: each one explored yields a composition.
        if w.room[h] < left {
            return;
        }
        let most = if w.usable[h] { left.min(w.cap[h]) } else { 0 };
        for g in (0..=most).rev() {
            w.cur[h] = g;
            go(w, h + 1, left - g);
        }
        w.cur[h] = 0;
    }
    let mut room = vec![0u32; usable.len() + 1];
    for h in (0..usable.len()).rev() {
        room[h] = room[h + 1].saturating_add(if usable[h] { capacity[h] } else { 0 });
    }
    let mut w = Walk {
        usable,
        cap: capacity,
        room,
        cur: vec![0; usable.len()],
        out: Vec::new(),
        cut: false,
    };
    go(&mut w, 0, n);
    (w.out, w.cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn price_runs_from_lower_to_upper_exponentially() {
        assert_eq!(price(0.01, 1.0, 0, 4), 0.01);
        assert!((price(0.01, 1.0, 4, 4) - 1.0).abs() < 1e-12);
        // Half full: the geometric mean of the bounds.
        assert!((price(0.01, 1.0, 2, 4) - 0.1).abs() < 1e-12);
        // Each GPU committed multiplies the price by (U/L)^(1/C).
        let step = price(0.01, 1.0, 3, 4) / price(0.01, 1.0, 2, 4);
        assert!((step - 100f64.powf(0.25)).abs() < 1e-12);
    }

    #[test]
    fn lower_bound_admits_the_slowest_latest_job() {
        // A job 4x slower on its worst type, horizon 3: ratio^2 / (H + 1) / 2 = 1/16/4/2.
        let l = lower_bound([1.0, 0.25].into_iter(), 3);
        assert!((l - 1.0 / 128.0).abs() < 1e-15);
    }

    #[test]
    fn compositions_cover_every_split_within_capacity() {
        let (all, cut) = compositions(3, &[true, false, true], &[2, 8, 8]);
        assert_eq!(all, vec![vec![2, 0, 1], vec![1, 0, 2], vec![0, 0, 3]]);
        assert!(!cut);
        assert!(compositions(5, &[true, true], &[2, 2]).0.is_empty());
        // 64 GPUs over 10 types of 64: ~10^11 ways; capped, and quickly.
        let (many, cut) = compositions(64, &[true; 10], &[64; 10]);
        assert!(cut && many.len() == MAX_COMPOSITIONS);
        assert!(many.iter().all(|y| y.iter().sum::<u32>() == 64));
    }

    /// A hand-solved dual step. One type-0 GPU and one type-1 GPU, L = 0.25, horizon 4, a
    /// 1-GPU job with rates 2 (type 0) and 1 (type 1) and 4 slots of work on type 0 (slot = 1 s,
    /// 8 steps: D* = 4).
    #[test]
    fn dual_step_on_a_hand_case() {
        let mut book = PriceBook::new(vec![1, 1], 4, 0.25);
        let comps = compositions(1, &[true, true], &[1, 1]).0;
        let offer = Offer {
            scale_factor: 1,
            rate: &[2.0, 1.0],
            remaining_steps: 8.0,
            slot_s: 1.0,
            rule: MixedRate::Slowest,
            best_rate: 2.0,
            compositions: &comps,
        };
        // Idle: type 0 now: utility 1 x 16 / 4 = 4, cost 4 slots x 0.25 = 1 -> surplus 3.
        // Type 1 now: d = 8 (4 slots past the horizon, at the last slot's 0.25): utility
        // 16 / 8 = 2, cost 8 x 0.25 = 2 -> 0. Later starts lose utility at the same cost.
        let plan = best_plan(&book, &offer).unwrap();
        assert_eq!(
            (plan.start, plan.counts.clone(), plan.slots),
            (0, vec![1, 0], 4)
        );
        assert!((plan.utility - 4.0).abs() < 1e-12 && (plan.cost - 1.0).abs() < 1e-12);
        // Type 0 booked in slots 0-1 (price there is now U = 1, and it is full): the job can
        // start on type 0 at slot 2 (utility 16/6 = 8/3; 2 slots inside and 2 past the
        // horizon, all at 0.25: cost 1; surplus 5/3), at slot 3 (16/7 - 1 = 9/7), or on type 1
        // now (surplus 0): it waits for type 0, booking the 2 slots inside.
        book.commit(&Plan {
            start: 0,
            counts: vec![1, 0],
            slots: 2,
            utility: 0.0,
            cost: 0.0,
        });
        assert_eq!(book.price(0, 0), 1.0);
        assert_eq!(book.free_now(), 1);
        let plan = best_plan(&book, &offer).unwrap();
        assert_eq!(
            (plan.start, plan.counts.clone(), plan.slots),
            (2, vec![1, 0], 2)
        );
        assert!((plan.utility - plan.cost - 5.0 / 3.0).abs() < 1e-12);
        // With type 0 booked throughout, type 1 now has surplus 0: not admitted.
        book.commit(&Plan {
            start: 2,
            counts: vec![1, 0],
            slots: 2,
            utility: 0.0,
            cost: 0.0,
        });
        assert_eq!(best_plan(&book, &offer), None);
    }

    /// The quick refusal agrees with the dual step: a job refused by it is refused, and on a
    /// book where a long job is admitted it does not refuse.
    #[test]
    fn quick_refusal_matches_the_dual_step() {
        let mut book = PriceBook::new(vec![1, 1], 4, 0.25);
        let comps = compositions(1, &[true, true], &[1, 1]).0;
        let offer = |steps: f64| Offer {
            scale_factor: 1,
            rate: &[2.0, 1.0],
            remaining_steps: steps,
            slot_s: 1.0,
            rule: MixedRate::Slowest,
            best_rate: 2.0,
            compositions: &comps,
        };
        assert!(outlives_horizon(&book, &offer(8.0)) && !outlives_horizon(&book, &offer(7.0)));
        assert!(!refused_however_long(&book, &offer(100.0)));
        assert!(best_plan(&book, &offer(100.0)).is_some());
        // Type 0 full throughout, type 1 from slot 1: a job that outlives the horizon needs
        // its GPUs to the horizon's end, and fits nowhere.
        book.commit(&Plan {
            start: 0,
            counts: vec![1, 0],
            slots: 4,
            utility: 0.0,
            cost: 0.0,
        });
        book.commit(&Plan {
            start: 1,
            counts: vec![0, 1],
            slots: 3,
            utility: 0.0,
            cost: 0.0,
        });
        assert!(refused_however_long(&book, &offer(100.0)));
        for steps in [8.0, 50.0, 1e6] {
            assert_eq!(best_plan(&book, &offer(steps)), None, "{steps} steps");
        }
    }

    /// The quick refusal is exact on random books: where it refuses, no length of job that
    /// outlives the horizon is admitted; where it does not, some length is.
    #[test]
    fn quick_refusal_is_exact_on_random_books() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(9);
        let comps = compositions(2, &[true, true], &[4, 4]).0;
        let (mut refused, mut admitted) = (0, 0);
        for _ in 0..300 {
            let mut book = PriceBook::new(vec![4, 4], 5, rng.random_range(0.01..0.3));
            for _ in 0..rng.random_range(0..12) {
                let start = rng.random_range(0..5);
                let mut counts = vec![0, 0];
                counts[rng.random_range(0..2)] = 1;
                let plan = Plan {
                    start,
                    counts,
                    slots: rng.random_range(1..=5 - start),
                    utility: 0.0,
                    cost: 0.0,
                };
                let fits = (0..2).all(|h| book.fits(h, start, plan.slots, plan.counts[h]));
                if fits {
                    book.commit(&plan);
                }
            }
            let rates: [f64; 2] = [rng.random_range(1.0..4.0), rng.random_range(0.2..4.0)];
            let best = rates[0].max(rates[1]);
            let offer = |steps: f64| Offer {
                scale_factor: 2,
                rate: &rates,
                remaining_steps: steps,
                slot_s: 1.0,
                rule: MixedRate::Slowest,
                best_rate: best,
                compositions: &comps,
            };
            // D* (slots at the fastest) from the horizon up.
            let lengths = [1.0, 1.5, 3.0, 10.0, 1e3, 1e6].map(|k| k * 5.0 * best);
            if refused_however_long(&book, &offer(lengths[0])) {
                refused += 1;
                for steps in lengths {
                    assert_eq!(
                        best_plan(&book, &offer(steps)),
                        None,
                        "{steps} steps: {book:?}"
                    );
                }
            } else {
                admitted += 1;
                assert!(
                    lengths
                        .iter()
                        .any(|&steps| best_plan(&book, &offer(steps)).is_some()),
                    "{book:?} {rates:?}"
                );
            }
        }
        assert!(
            refused > 10 && admitted > 10,
            "{refused} refused, {admitted} admitted"
        );
    }

    /// A job with a tenth of a slot left pays a tenth of a slot: on the idle type 1 of the book
    /// above, utility 1 x 0.05^2 / 0.1 = 0.025 > cost 0.1 x 0.25.
    #[test]
    fn a_job_about_to_finish_pays_for_what_it_uses() {
        let book = PriceBook::new(vec![1, 1], 4, 0.2);
        let comps = compositions(1, &[true, true], &[1, 1]).0;
        let offer = Offer {
            scale_factor: 1,
            rate: &[2.0, 1.0],
            remaining_steps: 0.1,
            slot_s: 1.0,
            rule: MixedRate::Slowest,
            best_rate: 2.0,
            compositions: &comps,
        };
        let plan = best_plan(&book, &offer).unwrap();
        // Type 0: d = 0.05, utility 0.05, cost 0.01; type 1: utility 0.025, cost 0.02.
        assert_eq!(
            (plan.start, plan.counts.clone(), plan.slots),
            (0, vec![1, 0], 1)
        );
        assert!((plan.utility - 0.05).abs() < 1e-12 && (plan.cost - 0.01).abs() < 1e-12);
    }
}
