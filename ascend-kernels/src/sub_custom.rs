//! `sub_custom`: `z = x - y` elementwise, the [`add_custom`](crate::add_custom) pattern over
//! `Sub`, generic over the element types `Sub` supports (`half`, `float`, `int16_t`,
//! `int32_t`; `int16_t` not on Ascend910).
//!
//! Integer differences wrap; `f16` differences are rounded once to nearest-even.
//!
//! ```
//! use ascend_kernels::sub_custom::{run_sub_custom, sub_reference};
//! use ascend_kernels::tiling::TilingConfig;
//! use ascend_runtime::prelude::*;
//!
//! let x: Vec<i32> = (0..1000).collect();
//! let y: Vec<i32> = (0..1000).map(|i| 2 * i).collect();
//! let t = TilingConfig::new::<i32>(1000, 4);
//! let (z, _) = run_sub_custom(Soc::Ascend910B, &x, &y, &t).unwrap();
//! assert_eq!(z[999], -999);
//! assert_eq!(z, sub_reference(&x, &y));
//! ```
//!
//! Only the four `Sub` types compile:
//! ```compile_fail
//! use ascend_kernels::sub_custom::sub_custom;
//! use ascend_runtime::prelude::*;
//! fn k(x: GmAddr, y: GmAddr, z: GmAddr, tiling: GmAddr) { sub_custom::<u8>(x, y, z, tiling); }
//! ```

use ascend_runtime::prelude::*;

use crate::elementwise::{binary_custom, run_binary, BinaryOp, KernelBinary};
use crate::tiling::TilingConfig;

/// The instruction of `sub_custom`: `Sub(z, x, y, len)`, failing as `SubCustom`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sub;

impl<T: SubElement> BinaryOp<T> for Sub {
    const API: &'static str = "SubCustom";

    /// `z = x - y` on one tile.
    fn apply(&self, z: &LocalTensor<T>, x: &LocalTensor<T>, y: &LocalTensor<T>, len: usize) {
        sub(z, x, y, len);
    }
}

/// One core's state of the `sub_custom` kernel (the `add_custom` sample's class with `Sub`):
/// the [`KernelBinary`] pipeline with [`Sub`] as its `compute` instruction.
pub type KernelSub<T> = KernelBinary<T, Sub>;

/// The kernel entry point: `z = x - y` over this core's share of the elements, the tiling
/// read from the [`TilingData`](crate::tiling::TilingData) at `tiling` (the `add_custom`
/// sample with `Sub`).
///
/// # Panics
/// As [`binary_custom`] (a tiling buffer too small), [`KernelSub::init`] and the AscendC calls it makes (`Sub` of `int16_t` on Ascend910,
/// `DataCopyPad` for a partial block on Ascend910 / Ascend310P).
pub fn sub_custom<T: SubElement>(x: GmAddr, y: GmAddr, z: GmAddr, tiling: GmAddr) {
    binary_custom::<T, Sub>(x, y, z, tiling);
}

/// Host side: copies `x` and `y` to GM, launches [`sub_custom`] on `tiling.block_dim` cores
/// of `soc`, and returns `z` with the launch statistics.
///
/// # Errors
/// The [`LaunchError`] of a failing core (with the core, API and message).
///
/// # Panics
/// Panics if `x` or `y` does not hold `tiling.total_length` elements.
pub fn run_sub_custom<T: SubElement>(
    soc: Soc,
    x: &[T],
    y: &[T],
    tiling: &TilingConfig,
) -> Result<(Vec<T>, LaunchStats), LaunchError> {
    run_binary(soc, x, y, tiling, sub_custom::<T>)
}

/// Host reference: `x[i] - y[i]`, each difference rounded once (`f16`), wrapping (integers).
/// Inputs are expected not to overflow `f16` (the chips differ there: saturation or inf).
pub fn sub_reference<T: Element>(x: &[T], y: &[T]) -> Vec<T> {
    x.iter().zip(y).map(|(&a, &b)| T::sub(a, b)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::random_vec;
    use ascend_runtime::testing::assert_bits_eq;

    fn check<T: SubElement>(soc: Soc, tiling: TilingConfig, seed: u64, lo: f64, hi: f64) {
        let n = tiling.total_length;
        let x = random_vec::<T>(n, seed, lo, hi);
        let y = random_vec::<T>(n, seed + 1, lo, hi);
        let (z, _) = run_sub_custom(soc, &x, &y, &tiling).unwrap();
        assert_bits_eq(&z, &sub_reference(&x, &y));
    }

    macro_rules! per_type {
        ($($t:ident: $lo:expr, $hi:expr);* $(;)?) => {$(
            paste::paste! {
                #[test]
                fn [<shapes_and_core_counts_ $t>]() {
                    for (n, cores) in [(1, 1), (100, 1), (4096, 8), (10_000 + 5, 8), (48 * 64, 48), (777, 48)] {
                        for tile in [64, 512] {
                            let t = TilingConfig { total_length: n, block_dim: cores, tile_length: tile };
                            check::<$t>(Soc::Ascend910B, t, n as u64, $lo, $hi);
                        }
                    }
                }

                #[test]
                fn [<vendor_tiling_on_aligned_chips_ $t>]() {
                    for soc in [Soc::Ascend310P, Soc::Ascend310B, Soc::Ascend910B] {
                        check::<$t>(soc, TilingConfig::new::<$t>(8 * 2048, 8), 11, $lo, $hi);
                    }
                }
            }
        )*};
    }

    per_type! {
        f16: -1000.0, 1000.0;
        f32: -1.0e6, 1.0e6;
        i16: -32768.0, 32767.0;
        i32: -2.0e9, 2.0e9;
    }

    #[test]
    fn integers_wrap() {
        let t = TilingConfig::new::<i16>(16, 1);
        let (z, _) = run_sub_custom(Soc::Ascend910B, &[i16::MIN; 16], &[1i16; 16], &t).unwrap();
        assert_eq!(z, vec![i16::MAX; 16]);
    }

    #[test]
    fn int16_sub_is_not_on_ascend910() {
        let t = TilingConfig::new::<i16>(256, 2);
        let e = run_sub_custom(Soc::Ascend910, &[1i16; 256], &[1i16; 256], &t).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("Sub") && msg.contains("Ascend910"), "{msg}");
    }

    #[test]
    fn f32_on_ascend910() {
        check::<f32>(Soc::Ascend910, TilingConfig::new::<f32>(64 * 100, 8), 3, -10.0, 10.0);
    }
}
