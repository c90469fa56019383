//! Deterministic input data for tests, examples and benchmarks: a tiny xorshift generator
//! (no dependency), and the host references the kernels are checked against.

use ascend_runtime::prelude::*;

/// Marsaglia's xorshift64: small, fast, deterministic; not for cryptography.
///
/// ```
/// use ascend_kernels::data::XorShift64;
/// let mut a = XorShift64::new(7);
/// let mut b = XorShift64::new(7);
/// assert_eq!(a.next_u64(), b.next_u64());
/// ```
#[derive(Clone, Debug)]
pub struct XorShift64(u64);

impl XorShift64 {
    /// A generator from `seed` (0 is replaced by a fixed non-zero constant).
    pub const fn new(seed: u64) -> Self {
        XorShift64(if seed == 0 { 0x9E37_79B9_7F4A_7C15 } else { seed })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A uniform `f64` in `[0, 1)`.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A uniform integer in `lo..hi` (`hi > lo`).
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next_u64() % (hi - lo) as u64) as i64
    }
}

/// `n` values of `T` uniform in `[lo, hi)` (rounded to `T`; integers truncated toward zero),
/// from `seed`.
///
/// ```
/// use ascend_kernels::data::random_vec;
/// use half::f16;
/// let v = random_vec::<f16>(100, 1, -2.0, 2.0);
/// assert!(v.iter().all(|x| x.to_f32() >= -2.0 && x.to_f32() <= 2.0));
/// assert_eq!(v, random_vec::<f16>(100, 1, -2.0, 2.0));
/// ```
pub fn random_vec<T: Element>(n: usize, seed: u64, lo: f64, hi: f64) -> Vec<T> {
    let mut rng = XorShift64::new(seed);
    (0..n).map(|_| T::from_f64(lo + (hi - lo) * rng.next_f64())).collect()
}
