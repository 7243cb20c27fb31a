//! Python's `random.Random(seed).shuffle`, reproduced so that a port of a Python simulator can
//! draw the same sequence (Gavel's simulator shuffles the GPU types' walk order with it).
//!
//! Python seeds its Mersenne Twister (MT19937) from an integer by `init_by_array` over the
//! integer's 32-bit words, least significant first (`[0]` for 0); `shuffle` is Fisher-Yates
//! from the end, drawing each index with `_randbelow(n)`: k = bit length of n, then
//! `getrandbits(k)` (the next 32-bit output shifted right by 32 - k) until it is below n.
//! The generator is `rand_mt`'s reference MT19937.

use rand_mt::Mt;

/// A Python `random.Random` seeded with an integer, for `shuffle`.
pub struct PythonRandom {
    mt: Mt,
}

impl PythonRandom {
    pub fn new(seed: u64) -> PythonRandom {
        let low = seed as u32;
        let high = (seed >> 32) as u32;
        let key: Vec<u32> = if high == 0 {
            vec![low]
        } else {
            vec![low, high]
        };
        PythonRandom {
            mt: Mt::new_with_key(key),
        }
    }

    /// `getrandbits(k)` for 1 <= k <= 32.
    fn bits(&mut self, k: u32) -> u32 {
        self.mt.next_u32() >> (32 - k)
    }

    /// `_randbelow(n)` for 1 <= n < 2^32: uniform in 0..n by rejection.
    fn below(&mut self, n: u32) -> u32 {
        let k = u32::BITS - n.leading_zeros();
        loop {
            let r = self.bits(k);
            if r < n {
                return r;
            }
        }
    }

    /// `shuffle(x)`, in place.
    pub fn shuffle<T>(&mut self, x: &mut [T]) {
        for i in (1..x.len()).rev() {
            let j = self.below(i as u32 + 1) as usize;
            x.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Printed by CPython 3.11: `r = random.Random(); r.seed(5)`, then eight times
    /// `w = ['v100', 'p100', 'k80']; r.shuffle(w)`; and `getrandbits(32)` three times after a
    /// fresh `seed(5)`.
    #[test]
    fn draws_what_cpython_draws() {
        let mut r = PythonRandom::new(5);
        let got: Vec<[&str; 3]> = (0..8)
            .map(|_| {
                let mut w = ["v100", "p100", "k80"];
                r.shuffle(&mut w);
                w
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ["v100", "p100", "k80"],
                ["v100", "p100", "k80"],
                ["p100", "v100", "k80"],
                ["k80", "v100", "p100"],
                ["p100", "v100", "k80"],
                ["p100", "k80", "v100"],
                ["v100", "k80", "p100"],
                ["k80", "p100", "v100"],
            ]
        );
        let mut r = PythonRandom::new(5);
        let words: Vec<u32> = (0..3).map(|_| r.bits(32)).collect();
        assert_eq!(words, vec![2675342405, 1097127993, 3185950873]);
    }
}
