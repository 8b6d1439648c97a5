//! The seeded generator and settings of the workspace's bounded fuzz tests (shape text and
//! patterns here; op calls and spec JSON in core; safetensors files in the facade), kept in the
//! leaf crate and included by path (`#[path = …] mod fuzz;`) by the tests that need it.
#![allow(dead_code)]

/// splitmix64: a tiny, seeded, good-enough PRNG (no dependency).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// True once in `one_in` draws, on average.
    pub fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }

    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
}

/// The number in the environment variable `name` (`EXTYPE_FUZZ_ITERS`, `EXTYPE_FUZZ_SEED`), or
/// `default` (so CI runs are bounded and reproducible).
pub fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
