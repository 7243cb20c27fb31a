//! Sorting index lists through one compiled copy of the sort.
//!
//! Every distinct closure handed to `sort_by` compiles the whole stable sort again, about 5 KB
//! of wasm each: the browser's engine carried 26 copies (128 KB before wasm-opt). Index lists
//! sorted through [`sort_indices_by`] share one. The order is `sort_by`'s (stable), so results
//! are the same to the bit; the cost is an indirect call per comparison, so the few sorts in
//! the simulator's per-placement paths keep their own closures.

use std::cmp::Ordering;

/// Sorts `v` (indices) stably by `cmp`, as `v.sort_by(|a, b| cmp(*a, *b))` would.
pub fn sort_indices_by(v: &mut [usize], cmp: &dyn Fn(usize, usize) -> Ordering) {
    v.sort_by(|a, b| cmp(*a, *b));
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
}
