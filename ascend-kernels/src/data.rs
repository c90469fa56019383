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
