//! Deterministic input data for tests, examples and benchmarks, from `rand`'s small seeded
//! generator: the same seed gives the same data on every run and machine.

use ascend_runtime::prelude::*;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// The generator every data helper uses: `rand`'s `SmallRng` seeded from `seed` (fast and
/// reproducible; not for cryptography).
///
/// ```
/// use ascend_kernels::data::seeded_rng;
/// use rand::RngCore;
/// assert_eq!(seeded_rng(7).next_u64(), seeded_rng(7).next_u64());
/// ```
pub fn seeded_rng(seed: u64) -> SmallRng {
    SmallRng::seed_from_u64(seed)
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
    let mut rng = seeded_rng(seed);
    (0..n).map(|_| T::from_f64(lo + (hi - lo) * rng.random::<f64>())).collect()
}

/// A seeded generator with the small interface earlier code used (`new`, `next_u64`,
/// `next_f64`, `range`), now backed by [`seeded_rng`]; new code can use `rand`'s API on
/// [`seeded_rng`] directly.
///
/// ```
/// use ascend_kernels::data::XorShift64;
/// let (mut a, mut b) = (XorShift64::new(7), XorShift64::new(7));
/// assert_eq!(a.next_u64(), b.next_u64());
/// assert!((0..100).all(|_| (-3..5).contains(&a.range(-3, 5))));
/// ```
#[derive(Clone, Debug)]
pub struct XorShift64(SmallRng);

impl XorShift64 {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Self {
        XorShift64(seeded_rng(seed))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0.random()
    }

    /// A uniform `f64` in `[0, 1)`.
    pub fn next_f64(&mut self) -> f64 {
        self.0.random()
    }

    /// A uniform integer in `lo..hi` (`hi > lo`).
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        self.0.random_range(lo..hi)
    }
}
