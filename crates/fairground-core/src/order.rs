//! Sorting index lists through one compiled copy of the sort.
//!
//! Every distinct closure handed to `sort_by` compiles the whole stable sort again, about 5 KB
//! of wasm each: the browser's engine carried 26 copies (128 KB before wasm-opt). Index lists
//! sorted through [`sort_indices_by`] share one. The order is `sort_by`'s (stable), so results
//! are the same to the bit; the cost is an indirect call per comparison, so the few sorts in
//! Other lists sort through it too ([`sort_stably_by`]: their positions are sorted, then the
//! items copied into that order), short per-placement lists of the simulator included: each
//! closure's copy of the sort was 3-5 KB of the browser's engine (issue 49). The two sorts of
//! every pending job in every round (Tiresias's, SJF-BSBF's) keep their own copies: through
//! this one a 3,000-job Tiresias run took 19% longer.

use std::cmp::Ordering;

/// Sorts `v` (indices) stably by `cmp`, as `v.sort_by(|a, b| cmp(*a, *b))` would.
pub fn sort_indices_by(v: &mut [usize], cmp: &dyn Fn(usize, usize) -> Ordering) {
    v.sort_by(|a, b| cmp(*a, *b));
}

/// Sorts `v` stably by `cmp`, in the order `v.sort_by(cmp)` gives, through the one compiled
/// sort of [`sort_indices_by`].
pub fn sort_stably_by<T: Clone>(v: &mut [T], cmp: impl Fn(&T, &T) -> Ordering) {
    let mut order: Vec<usize> = (0..v.len()).collect();
    sort_indices_by(&mut order, &|a, b| cmp(&v[a], &v[b]));
    let sorted: Vec<T> = order.into_iter().map(|i| v[i].clone()).collect();
    v.clone_from_slice(&sorted);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_stably_by_the_comparator() {
        let key = [3, 1, 3, 0, 1];
        let mut v: Vec<usize> = (0..5).collect();
        sort_indices_by(&mut v, &|a, b| key[a].cmp(&key[b]));
        // Equal keys keep their order: 1 before 4, 0 before 2.
        assert_eq!(v, [3, 1, 4, 0, 2]);
    }

    /// The same order as the standard library's stable `sort_by`, ties included: pairs whose
    /// first field ties keep their places, and floats order by `total_cmp`.
    #[test]
    fn sorts_items_as_the_standard_stable_sort_does() {
        let mut items: Vec<(f64, u32)> = (0..200u32)
            .map(|k| (((k * 37) % 11) as f64 * 0.5, k))
            .collect();
        items.push((f64::NAN, 900));
        items.push((-0.0, 901));
        items.push((0.0, 902));
        let mut expected = items.clone();
        expected.sort_by(|a, b| a.0.total_cmp(&b.0));
        sort_stably_by(&mut items, |a, b| a.0.total_cmp(&b.0));
        let keys = |v: &[(f64, u32)]| v.iter().map(|p| p.1).collect::<Vec<_>>();
        assert_eq!(keys(&items), keys(&expected));
        // -0.0 comes first (total_cmp), then the zeros in their order: k = 0 first.
        assert_eq!((items[0].1, items[1].1), (901, 0));
        assert_eq!(items.last().map(|p| p.1), Some(900), "NaN last");
    }
}
