//! `add_custom`: the vendor's canonical first kernel, `z = x + y` elementwise.
//!
//! The structure is the AscendC sample's, step for step (the pipeline is
//! [`KernelBinary`], shared with `sub_custom` and `maximum`; this module supplies the
//! instruction, [`Add`]):
//!
//! * a kernel class ([`KernelAdd`]) holding a `TPipe`, two input queues (`VECIN`) and one
//!   output queue (`VECOUT`) of `BUFFER_NUM = 2` buffers each, and three `GlobalTensor`s;
//! * `init` binds each `GlobalTensor` to this core's slice of GM (found from
//!   `get_block_idx()`) and gives the queues their buffers;
//! * `process` walks the slice tile by tile, each tile through the three stages
//!   `copy_in` (GM → UB, `DataCopy`, enqueue), `compute` (dequeue, `Add`, enqueue) and
//!   `copy_out` (dequeue, UB → GM).
//!
//! The sample fixes the sizes (`8 * 2048` half values on 8 cores, tiles of 128); here the
//! [`TilingConfig`] carries them, written to GM by the host and read by the kernel as
//! AscendC's tiling data (see [`elementwise`](crate::elementwise)), so any length works: a core's last tile may be shorter, and
//! a length that is not a whole number of 32-byte blocks is moved with `DataCopyPad`.
//!
//! ```
//! use ascend_kernels::add_custom::{add_reference, run_add_custom};
//! use ascend_kernels::tiling::TilingConfig;
//! use ascend_runtime::prelude::*;
//!
//! let x: Vec<f16> = (0..16384).map(|i| f16::from_f32((i % 100) as f32 * 0.25)).collect();
//! let y: Vec<f16> = (0..16384).map(|i| f16::from_f32((i % 7) as f32 - 3.0)).collect();
//! let (z, stats) = run_add_custom(Soc::Ascend910B, &x, &y, &TilingConfig::default()).unwrap();
//! assert_eq!(stats.block_dim, 8);
//! assert_eq!(z, add_reference(&x, &y));
//! ```

use ascend_runtime::prelude::*;

use crate::elementwise::{binary_custom, run_binary, BinaryOp, KernelBinary};
use crate::tiling::TilingConfig;

/// The instruction of `add_custom`: `Add(z, x, y, len)`, failing as `AddCustom`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Add;

impl<T: AddElement> BinaryOp<T> for Add {
    const API: &'static str = "AddCustom";

    /// `z = x + y` on one tile.
    fn apply(&self, z: &LocalTensor<T>, x: &LocalTensor<T>, y: &LocalTensor<T>, len: usize) {
        add(z, x, y, len);
    }
}

/// One core's state of the `add_custom` kernel (the sample's `KernelAdd` class): the
/// [`KernelBinary`] pipeline with [`Add`] as its `compute` instruction.
pub type KernelAdd<T> = KernelBinary<T, Add>;

/// The kernel entry point: `z = x + y` over this core's share of the elements, the tiling
/// read from the [`TilingData`](crate::tiling::TilingData) at `tiling` (the sample's
/// `add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR tiling)` with `GET_TILING_DATA`).
///
/// # Panics
/// As [`binary_custom`] (a tiling buffer too small), [`KernelAdd::init`] and the AscendC calls it makes (`Add` of `int16_t` on Ascend910,
/// `DataCopyPad` for a partial block on Ascend910 / Ascend310P).
pub fn add_custom<T: AddElement>(x: GmAddr, y: GmAddr, z: GmAddr, tiling: GmAddr) {
    binary_custom::<T, Add>(x, y, z, tiling);
}

/// Host side: copies `x` and `y` to GM, launches [`add_custom`] on `tiling.block_dim` cores
/// of `soc`, and returns `z` with the launch statistics.
///
/// # Errors
/// The [`LaunchError`] of a failing core (with the core, API and message).
///
/// # Panics
/// Panics if `x` or `y` does not hold `tiling.total_length` elements.
pub fn run_add_custom<T: AddElement>(
    soc: Soc,
    x: &[T],
    y: &[T],
    tiling: &TilingConfig,
) -> Result<(Vec<T>, LaunchStats), LaunchError> {
    run_binary(soc, x, y, tiling, add_custom::<T>)
}

/// Host reference: `x[i] + y[i]`, each sum rounded once (`f16`), wrapping (integers).
/// Inputs are expected not to overflow `f16` (the chips differ there: saturation or inf).
pub fn add_reference<T: Element>(x: &[T], y: &[T]) -> Vec<T> {
    x.iter().zip(y).map(|(&a, &b)| T::add(a, b)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::random_vec;
    use ascend_runtime::testing::assert_bits_eq;

    fn check<T: AddElement>(soc: Soc, tiling: TilingConfig, seed: u64) {
        let n = tiling.total_length;
        let x = random_vec::<T>(n, seed, -1000.0, 1000.0);
        let y = random_vec::<T>(n, seed + 1, -1000.0, 1000.0);
        let (z, stats) = run_add_custom(soc, &x, &y, &tiling).unwrap();
        assert_eq!(stats.block_dim, tiling.block_dim);
        assert_bits_eq(&z, &add_reference(&x, &y));
    }

    #[test]
    fn default_reproduces_x_plus_y_bit_for_bit() {
        check::<f16>(Soc::Ascend910B, TilingConfig::default(), 1);
    }

    #[test]
    fn default_on_every_chip() {
        for soc in Soc::ALL {
            check::<f16>(soc, TilingConfig::default(), 2);
        }
    }

    #[test]
    fn tails_and_core_counts() {
        for (n, cores) in
            [(1, 1), (15, 1), (17, 8), (1000, 8), (16384 + 7, 8), (4099, 48), (100, 48), (48 * 16, 48)]
        {
            for tile in [16, 128, 1024] {
                let t = TilingConfig { total_length: n, block_dim: cores, tile_length: tile };
                check::<f16>(Soc::Ascend910B, t, n as u64);
            }
        }
    }

    #[test]
    fn other_types_and_vendor_tiling_rule() {
        check::<f32>(Soc::Ascend910B, TilingConfig::new::<f32>(100_003, 8), 5);
        check::<i32>(Soc::Ascend310B, TilingConfig::new::<i32>(4096 + 3, 48), 6);
        check::<i16>(Soc::Ascend310P, TilingConfig::new::<i16>(48 * 256, 48), 7);
    }

    #[test]
    fn empty_input_is_a_no_op() {
        let t = TilingConfig { total_length: 0, block_dim: 8, tile_length: 128 };
        let (z, _) = run_add_custom::<f16>(Soc::Ascend910B, &[], &[], &t).unwrap();
        assert!(z.is_empty());
    }

    #[test]
    fn partial_block_on_a_chip_without_data_copy_pad_is_an_error() {
        let t = TilingConfig { total_length: 17, block_dim: 1, tile_length: 128 };
        let x = vec![f16::ONE; 17];
        let e = run_add_custom(Soc::Ascend910, &x, &x, &t).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("DataCopyPad") && msg.contains("Ascend910"), "{msg}");
        // The location is the failing call inside the library kernel (the tail copy of
        // `copy_in`), not the entry point or the launch closure.
        let p = e.primary().unwrap();
        assert_eq!(
            (p.api, p.file.replace('\\', "/").ends_with("src/elementwise.rs")),
            ("DataCopyTail", true),
            "{p}"
        );
        let src = include_str!("elementwise.rs");
        let line = src.lines().nth(p.line as usize - 1).unwrap();
        assert!(line.contains("data_copy_tail(&x_local"), "line {}: {line}", p.line);
    }

    #[test]
    fn errors_point_at_the_instruction() {
        // A tile of 20 f32 is not whole blocks for DataCopy, but the tile check runs first
        // in `init`: its location is the `check` call in elementwise.rs.
        let t = TilingConfig { total_length: 64, block_dim: 2, tile_length: 20 };
        let x = vec![1.0f32; 64];
        let e = run_add_custom(Soc::Ascend910B, &x, &x, &t).unwrap_err();
        let p = e.primary().unwrap();
        let line = include_str!("elementwise.rs").lines().nth(p.line as usize - 1).unwrap();
        assert!(p.file.ends_with("elementwise.rs") && line.contains("tiling.check::<T>"), "{p}: {line}");
    }

    #[test]
    fn bad_tiling_is_an_error() {
        let t = TilingConfig { total_length: 64, block_dim: 2, tile_length: 20 };
        let x = vec![f16::ONE; 64];
        let e = run_add_custom(Soc::Ascend910B, &x, &x, &t).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("AddCustom: tile_length = 20 is not a positive multiple of 16 half elements"),
            "{msg}"
        );
    }

    #[test]
    fn tiles_too_large_for_ub_are_an_error() {
        let t = TilingConfig { total_length: 64, block_dim: 1, tile_length: 1 << 16 };
        let x = vec![f16::ONE; 64];
        let e = run_add_custom(Soc::Ascend910B, &x, &x, &t).unwrap_err();
        assert!(e.to_string().contains("TPipe::InitBuffer"), "{e}");
    }

    #[test]
    fn int16_add_is_not_on_ascend910() {
        let t = TilingConfig::new::<i16>(256, 1);
        let x = vec![1i16; 256];
        let e = run_add_custom(Soc::Ascend910, &x, &x, &t).unwrap_err();
        assert!(e.to_string().contains("Ascend910"), "{e}");
    }
}
