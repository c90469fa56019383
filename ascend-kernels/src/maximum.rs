//! `maximum`: `z = max(x, y)` elementwise with `Compare` and `Select`.
//!
//! For each tile, `compare(&mask, &x, &y, CMPMODE::GT, n)` writes one bit per element
//! (`x > y`), and `select` in tensor-tensor mode (`VSEL_TENSOR_TENSOR_MODE`, mode 2) takes
//! `x` where the bit is set and `y` where it is clear. `Compare`'s count form works on whole
//! 256-byte repeats, so the tile length is a multiple of one repeat and a short last tile is
//! computed over its whole last repeat (only its `len` elements are written back).
//!
//! With a NaN on either side `x > y` is false, so the result is `y` (as the hardware's
//! compare-and-select gives). Select mode 2 does not exist on Ascend910: the kernel fails
//! there with the chip named.
//!
//! ```
//! use ascend_kernels::maximum::{maximum_reference, run_maximum};
//! use ascend_kernels::tiling::TilingConfig;
//! use ascend_runtime::prelude::*;
//!
//! let x: Vec<f32> = (0..1000).map(|i| (i % 13) as f32).collect();
//! let y: Vec<f32> = (0..1000).map(|i| (i % 7) as f32).collect();
//! let (z, _) = run_maximum(Soc::Ascend910B, &x, &y, &TilingConfig::new::<f32>(1000, 4)).unwrap();
//! assert_eq!(z, maximum_reference(&x, &y));
//! ```

use ascend_runtime::prelude::*;

use crate::elementwise::{binary_custom, run_binary, BinaryOp, KernelBinary};
use crate::tiling::TilingConfig;

/// Element types of the kernel: those `Compare` and `Select` both accept (`f16`, `f32`).
pub trait MaximumElement: CompareElement + SelectElement {}
impl<T: CompareElement + SelectElement> MaximumElement for T {}

/// The instruction of `maximum`: `Compare` into a bit mask, then `Select` in tensor-tensor
/// mode, over whole 256-byte repeats; it owns the mask buffer (one bit per tile element).
#[derive(Default)]
pub struct Max {
    mask_buf: TBuf<VecCalc>,
}

impl<T: MaximumElement> BinaryOp<T> for Max {
    const API: &'static str = "Maximum";
    /// `Compare`'s count form works on whole repeats.
    const TILE_MULTIPLE: usize = T::PAR;

    /// One bit per tile element for the comparison mask.
    fn init_buffers(&mut self, pipe: &mut TPipe, tile_length: usize) {
        pipe.init_tbuf(&mut self.mask_buf, tile_length / 8);
    }

    /// `mask = x > y`, then `z = mask ? x : y`, over whole repeats.
    fn apply(&self, z: &LocalTensor<T>, x: &LocalTensor<T>, y: &LocalTensor<T>, len: usize) {
        let mask = self.mask_buf.get::<u8>();
        let count = len.next_multiple_of(T::PAR);
        compare(&mask, x, y, CMPMODE::GT, count);
        select(z, &mask, x, y, SelMode::VselTensorTensorMode, count);
    }
}

/// One core's state of the `maximum` kernel: the [`KernelBinary`] pipeline with [`Max`] as
/// its `compute` instruction (its `init` also carves the mask buffer).
pub type KernelMaximum<T> = KernelBinary<T, Max>;

/// The kernel entry point: `z = max(x, y)` over this core's share, the tiling read from the
/// [`TilingData`](crate::tiling::TilingData) at `tiling`.
///
/// # Panics
/// As [`binary_custom`] (a tiling buffer too small), [`KernelMaximum::init`] (the tile length must be whole repeats), and on Ascend910 (no
/// select mode 2).
pub fn maximum<T: MaximumElement>(x: GmAddr, y: GmAddr, z: GmAddr, tiling: GmAddr) {
    binary_custom::<T, Max>(x, y, z, tiling);
}

/// Host side: launches [`maximum`] and returns `z`.
///
/// # Errors
/// The [`LaunchError`] of a failing core.
///
/// # Panics
/// Panics if `x` or `y` does not hold `tiling.total_length` elements.
pub fn run_maximum<T: MaximumElement>(
    soc: Soc,
    x: &[T],
    y: &[T],
    tiling: &TilingConfig,
) -> Result<(Vec<T>, LaunchStats), LaunchError> {
    run_binary(soc, x, y, tiling, maximum::<T>)
}

/// Host reference: `if x > y { x } else { y }` per element.
pub fn maximum_reference<T: Element>(x: &[T], y: &[T]) -> Vec<T> {
    x.iter().zip(y).map(|(&a, &b)| if a > b { a } else { b }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::random_vec;
    use ascend_runtime::testing::assert_bits_eq;

    fn check<T: MaximumElement>(soc: Soc, tiling: TilingConfig, seed: u64) {
        let n = tiling.total_length;
        let x = random_vec::<T>(n, seed, -100.0, 100.0);
        let y = random_vec::<T>(n, seed + 1, -100.0, 100.0);
        let (z, _) = run_maximum(soc, &x, &y, &tiling).unwrap();
        assert_bits_eq(&z, &maximum_reference(&x, &y));
    }

    macro_rules! per_type {
        ($($t:ident),*) => {$(
            paste::paste! {
                #[test]
                fn [<shapes_and_core_counts_ $t>]() {
                    for (n, cores) in [(1, 1), (300, 1), (8 * 2048, 8), (10_007, 8), (48 * 256, 48), (999, 48)] {
                        for tiles in [1, 4] {
                            let t = TilingConfig { total_length: n, block_dim: cores, tile_length: tiles * <$t as Element>::PAR };
                            check::<$t>(Soc::Ascend910B, t, n as u64);
                        }
                    }
                }

                #[test]
                fn [<aligned_on_chips_with_mode_2_ $t>]() {
                    for soc in [Soc::Ascend310P, Soc::Ascend310B, Soc::Ascend910B] {
                        check::<$t>(soc, TilingConfig::new::<$t>(8 * 1024, 8), 3);
                    }
                }
            }
        )*};
    }

    per_type!(f16, f32);

    #[test]
    fn equal_values_signed_zeros_and_nan() {
        let x = [1.0f32, -0.0, 0.0, f32::NAN, 2.0, f32::NEG_INFINITY, 5.0, f32::NAN];
        let y = [1.0f32, 0.0, -0.0, 3.0, f32::NAN, -1.0, f32::INFINITY, f32::NAN];
        let (z, _) = run_maximum(Soc::Ascend910B, &x, &y, &TilingConfig::new::<f32>(8, 1)).unwrap();
        assert_bits_eq(&z, &maximum_reference(&x, &y));
        assert_bits_eq(&z[..3], &[1.0, 0.0, -0.0]);
    }

    #[test]
    fn ascend910_has_no_select_mode_2() {
        let x = vec![1.0f32; 64];
        let e = run_maximum(Soc::Ascend910, &x, &x, &TilingConfig::new::<f32>(64, 1)).unwrap_err();
        assert!(e.to_string().contains("Ascend910"), "{e}");
    }

    #[test]
    fn tile_not_whole_repeats_is_an_error() {
        let x = vec![f16::ONE; 64];
        let e = run_maximum(Soc::Ascend910B, &x, &x, &TilingConfig::new::<f16>(64, 1).with_tile_length(64))
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("Maximum: tile_length = 64 is not a positive multiple of 128 half elements"),
            "{e}"
        );
    }
}
