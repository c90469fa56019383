//! `softmax`: row softmax of a `[rows, cols]` matrix, `y = exp(x - max(x)) / sum(exp(x -
//! max(x)))` along each row, the rows split across cores.
//!
//! Per row, in `float` (a `half` row is `Cast` up with `CAST_NONE` and back with `CAST_NONE`,
//! as the vendor's `SoftMax` computes `half` in `float`), the sequence of the vendor's
//! softmax implementations with the per-row broadcast done by a scalar operand:
//!
//! 1. `ReduceMax(red, x, tmp, cols)`, `m = red.GetValue(0)`;
//! 2. `Adds(x, x, -m, cols)` (the broadcast `Sub` of the max);
//! 3. `Exp(x, x, cols)`;
//! 4. `ReduceSum(red, x, tmp, cols)`, `s = red.GetValue(0)`;
//! 5. `Muls(y, x, 1 / s, cols)` (the broadcast `Div` by the sum, as a multiplication by the
//!    `float` reciprocal).
//!
//! The pipeline (queues, one row per tile, multi-core split, UB budget) is
//! [`KernelRows`](crate::rows::KernelRows).
//!
//! ```
//! use ascend_kernels::rows::RowTiling;
//! use ascend_kernels::softmax::{run_softmax, softmax_reference};
//! use ascend_runtime::prelude::*;
//! use ascend_runtime::testing::{assert_close, Tolerance};
//!
//! let x: Vec<f32> = (0..3 * 100).map(|i| (i % 17) as f32 * 0.25).collect();
//! let t = RowTiling::new(3, 100, 2);
//! let (y, _) = run_softmax(Soc::Ascend910B, &x, &t).unwrap();
//! assert!((y[..100].iter().sum::<f32>() - 1.0).abs() < 1e-5);
//! assert_close(&y, &softmax_reference(&x, 100), Tolerance::of::<f32>());
//! ```

use ascend_runtime::prelude::*;

use crate::rows::{map_rows, run_rows, RowElement, RowOp, RowScratch, RowTiling, RowTilingData};

/// The softmax instruction sequence on one row (a [`RowOp`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct SoftMax;

impl RowOp for SoftMax {
    const API: &'static str = "SoftMax";
    const PARAMS: usize = 0;
    const WORK: bool = false;

    fn from_tiling(_tiling: &RowTilingData) -> Self {
        SoftMax
    }

    #[track_caller]
    fn compute(&self, s: &RowScratch, x: &LocalTensor<f32>, y: &LocalTensor<f32>, cols: usize) {
        let n = cols as i32;
        reduce_max(&s.red[0], x, &s.tmp, n, false);
        let max = s.scalar(0);
        adds(x, x, -max, cols);
        exp(x, x, cols);
        reduce_sum(&s.red[0], x, &s.tmp, n);
        let sum = s.scalar(0);
        muls(y, x, 1.0 / sum, cols);
    }
}

/// The kernel entry point: softmax of this core's rows of `x` into `y`, the split read from
/// the [`RowTilingData`] at `tiling` (AscendC `GET_TILING_DATA`).
///
/// # Panics
/// As [`rows_custom`](crate::rows::rows_custom) (a tiling buffer too small),
/// [`KernelRows::init`](crate::rows::KernelRows::init) (`cols` 0 or too long for UB) and the
/// AscendC calls it makes.
#[track_caller]
pub fn softmax<T: RowElement>(x: GmAddr, y: GmAddr, tiling: GmAddr) {
    crate::rows::rows_custom::<T, SoftMax>(x, &[], y, tiling);
}

/// Host side: launches [`softmax`] on `tiling.block_dim` cores of `soc` and returns `y`.
///
/// # Errors
/// The [`LaunchError`] of a failing core.
///
/// # Panics
/// Panics if `x` does not hold `rows × cols` elements.
pub fn run_softmax<T: RowElement>(
    soc: Soc,
    x: &[T],
    tiling: &RowTiling,
) -> Result<(Vec<T>, LaunchStats), LaunchError> {
    run_rows(soc, x, [], SoftMax, tiling)
}

/// Host reference (numpy's `e = np.exp(x - x.max(-1, keepdims=True)); e / e.sum(-1,
/// keepdims=True)` in `float64`), rounded to `T`.
pub fn softmax_reference<T: Element>(x: &[T], cols: usize) -> Vec<T> {
    map_rows(x, cols, |r| {
        let m = r.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let e: Vec<f64> = r.iter().map(|v| (v - m).exp()).collect();
        let s: f64 = e.iter().sum();
        e.iter().map(|v| v / s).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::random_vec;
    use ascend_runtime::testing::{assert_close, Tolerance};

    fn check<T: RowElement>(soc: Soc, rows: usize, cols: usize, cores: u32) {
        let x: Vec<T> = random_vec(rows * cols, (rows * 31 + cols) as u64, -8.0, 8.0);
        let t = RowTiling::new(rows, cols, cores);
        let (y, stats) = run_softmax(soc, &x, &t).unwrap();
        assert_eq!(stats.block_dim, cores);
        assert_close(&y, &softmax_reference(&x, cols), Tolerance::of::<T>());
    }

    #[test]
    fn softmax_f32_and_f16_on_1_8_48_cores() {
        for cores in [1, 8, 48] {
            for (rows, cols) in [(1, 64), (13, 100), (50, 1000), (97, 33), (7, 4096)] {
                check::<f32>(Soc::Ascend910B, rows, cols, cores);
                check::<f16>(Soc::Ascend910B, rows, cols, cores);
            }
        }
        check::<f32>(Soc::Ascend310B, 29, 777, 8);
        // Whole 32-byte rows need no DataCopyPad: Ascend310P runs them.
        check::<f16>(Soc::Ascend310P, 29, 256, 8);
    }

    #[test]
    fn softmax_rows_sum_to_one_and_large_logits_do_not_overflow() {
        let (rows, cols) = (5, 300);
        let x: Vec<f32> = random_vec(rows * cols, 3, 500.0, 1000.0);
        let (y, _) = run_softmax(Soc::Ascend910B, &x, &RowTiling::new(rows, cols, 3)).unwrap();
        for r in y.chunks(cols) {
            assert!((r.iter().map(|&v| v as f64).sum::<f64>() - 1.0).abs() < 1e-5);
        }
        assert_close(&y, &softmax_reference(&x, cols), Tolerance::of::<f32>());
    }

    #[test]
    fn softmax_long_rows_fit_up_to_the_ub_and_then_fail() {
        check::<f32>(Soc::Ascend910B, 3, 8192, 2);
        let x = vec![0.0f32; 20_000];
        let e = run_softmax(Soc::Ascend910B, &x, &RowTiling::new(1, 20_000, 1)).unwrap_err().to_string();
        assert!(
            e.contains("SoftMax: cols = 20000 float elements need") && e.contains("Ascend910B has 196608"),
            "{e}"
        );
        let e = run_softmax(Soc::Ascend910B, &x[..0], &RowTiling::new(0, 0, 1)).unwrap_err().to_string();
        assert!(e.contains("cols = 0"), "{e}");
    }
}
