//! A small deterministic random generator (SplitMix64): the same seed gives the same program
//! on every machine.

/// SplitMix64.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x6a09_e667_f3bc_c909)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u32) -> u32 {
        (((self.next_u64() >> 32) * u64::from(n.max(1))) >> 32) as u32
    }

    /// True with probability `p` (in percent).
    pub fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent
    }

    /// One element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len() as u32) as usize]
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + i64::from(self.below((hi - lo + 1).clamp(1, i64::from(u32::MAX)) as u32))
    }
}

/// A seed for program `i` of a campaign started with `seed` (distinct for every `i`).
pub fn program_seed(seed: u64, i: u64) -> u64 {
    let mut r = Rng::new(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ i);
    r.next_u64()
}
