//! Row normalisations of a `[rows, cols]` matrix, the rows split across cores: `rms_norm`
//! (`y = x / sqrt(mean(x²) + eps) * gamma`) and `layer_norm` (`y = (x - mean) / sqrt(var +
//! eps) * gamma + beta`, the biased variance).
//!
//! Both compute in `float` (`half` rows and parameters are `Cast` up with `CAST_NONE` and the
//! result back with `CAST_NONE`), following the vendor's normalisation implementations
//! (`impl/adv_api/detail/normalization/rmsnorm/rmsnorm_common_impl.h`,
//! `layernorm/layernorm_common_basic_impl.h`), with the per-row broadcast done by a scalar
//! operand read with `GetValue` (the vendor's general, non-basic-block path):
//!
//! * RMSNorm: `Mul(w, x, x)`, `ReduceSum(red, w)`, `Muls(red, red, 1/cols)`, `Adds(red, red,
//!   eps)`, then the vendor's high-precision `1/sqrt`: `Ln`, `Muls(-0.5)`, `Exp`; `Muls(x, x,
//!   red[0])`, `Mul(y, x, gamma)`.
//! * LayerNorm: `ReduceSum(red, x)`, `Muls(red, red, 1/cols)` (the mean), `Adds(x, x, -mean)`,
//!   `Mul(w, x, x)`, `ReduceSum(red, w)`, `Muls(1/cols)`, `Adds(eps)`, `Sqrt`, then
//!   `Duplicate(one, 1)` and `Div(red, one, red)`; `Muls(x, x, red[0])`, `Mul(x, x, gamma)`,
//!   `Add(y, x, beta)`.
//!
//! ```
//! use ascend_kernels::norm::{rms_norm_reference, run_rms_norm};
//! use ascend_kernels::rows::RowTiling;
//! use ascend_runtime::prelude::*;
//! use ascend_runtime::testing::{assert_close, Tolerance};
//!
//! let x: Vec<f32> = (0..4 * 40).map(|i| (i % 9) as f32 - 4.0).collect();
//! let gamma = vec![2.0f32; 40];
//! let t = RowTiling::new(4, 40, 2);
//! let (y, _) = run_rms_norm(Soc::Ascend910B, &x, &gamma, 1e-6, &t).unwrap();
//! assert_close(&y, &rms_norm_reference(&x, &gamma, 1e-6), Tolerance::of::<f32>());
//! ```

use ascend_runtime::prelude::*;

use crate::rows::{map_rows, rows_custom, run_rows, RowElement, RowOp, RowScratch, RowTiling, RowTilingData};

/// The RMSNorm instruction sequence on one row (a [`RowOp`]; parameter: `gamma`).
#[derive(Clone, Copy, Debug)]
pub struct RmsNorm {
    /// Added to the mean square before the root.
    pub eps: f32,
}

impl RowOp for RmsNorm {
    const API: &'static str = "RmsNorm";
    const PARAMS: usize = 1;
    const WORK: bool = true;

    fn from_tiling(tiling: &RowTilingData) -> Self {
        RmsNorm { eps: tiling.epsilon }
    }

    fn epsilon(&self) -> f32 {
        self.eps
    }

    #[track_caller]
    fn compute(&self, s: &RowScratch, x: &LocalTensor<f32>, y: &LocalTensor<f32>, cols: usize) {
        let (w, red) = (s.work.as_ref().expect("RmsNorm asks for a work row"), &s.red[0]);
        mul(w, x, x, cols);
        reduce_sum(red, w, &s.tmp, cols as i32);
        muls(red, red, 1.0 / cols as f32, 1);
        adds(red, red, self.eps, 1);
        ln(red, red, 1);
        muls(red, red, -0.5, 1);
        exp(red, red, 1);
        muls(x, x, s.scalar(0), cols);
        mul(y, x, &s.params[0], cols);
    }
}

/// The LayerNorm instruction sequence on one row (a [`RowOp`]; parameters: `gamma`, `beta`).
#[derive(Clone, Copy, Debug)]
pub struct LayerNorm {
    /// Added to the variance before the root.
    pub eps: f32,
}

impl RowOp for LayerNorm {
    const API: &'static str = "LayerNorm";
    const PARAMS: usize = 2;
    const WORK: bool = true;

    fn from_tiling(tiling: &RowTilingData) -> Self {
        LayerNorm { eps: tiling.epsilon }
    }

    fn epsilon(&self) -> f32 {
        self.eps
    }

    #[track_caller]
    fn compute(&self, s: &RowScratch, x: &LocalTensor<f32>, y: &LocalTensor<f32>, cols: usize) {
        let (w, [red, one]) = (s.work.as_ref().expect("LayerNorm asks for a work row"), &s.red);
        let inv_n = 1.0 / cols as f32;
        reduce_sum(red, x, &s.tmp, cols as i32);
        muls(red, red, inv_n, 1);
        adds(x, x, -s.scalar(0), cols);
        mul(w, x, x, cols);
        reduce_sum(red, w, &s.tmp, cols as i32);
        muls(red, red, inv_n, 1);
        adds(red, red, self.eps, 1);
        sqrt(red, red, 1);
        duplicate(one, 1.0f32, 1);
        div(red, one, red, 1);
        muls(x, x, s.scalar(0), cols);
        mul(x, x, &s.params[0], cols);
        add(y, x, &s.params[1], cols);
    }
}

/// The kernel entry point: RMSNorm of this core's rows of `x` with `gamma` (`cols` elements)
/// into `y`, the split and `eps` read from the [`RowTilingData`] at `tiling` (AscendC
/// `GET_TILING_DATA`).
///
/// # Panics
/// As [`rows_custom`] (a tiling buffer too small),
/// [`KernelRows::init`](crate::rows::KernelRows::init) and the AscendC calls it makes.
#[track_caller]
pub fn rms_norm<T: RowElement>(x: GmAddr, gamma: GmAddr, y: GmAddr, tiling: GmAddr) {
    rows_custom::<T, RmsNorm>(x, &[gamma], y, tiling);
}

/// The kernel entry point: LayerNorm of this core's rows of `x` with `gamma` and `beta`
/// (`cols` elements each) into `y`, the split and `eps` read from the [`RowTilingData`] at
/// `tiling` (AscendC `GET_TILING_DATA`).
///
/// # Panics
/// As [`rows_custom`] (a tiling buffer too small),
/// [`KernelRows::init`](crate::rows::KernelRows::init) and the AscendC calls it makes.
#[track_caller]
pub fn layer_norm<T: RowElement>(x: GmAddr, gamma: GmAddr, beta: GmAddr, y: GmAddr, tiling: GmAddr) {
    rows_custom::<T, LayerNorm>(x, &[gamma, beta], y, tiling);
}

/// Host side of [`rms_norm`] (`eps` written into its tiling data): returns `y` with the
/// launch statistics.
///
/// # Errors
/// The [`LaunchError`] of a failing core.
///
/// # Panics
/// Panics if `x` does not hold `rows × cols` elements or `gamma` `cols`.
pub fn run_rms_norm<T: RowElement>(
    soc: Soc,
    x: &[T],
    gamma: &[T],
    eps: f32,
    tiling: &RowTiling,
) -> Result<(Vec<T>, LaunchStats), LaunchError> {
    run_rows(soc, x, [gamma], RmsNorm { eps }, tiling)
}

/// Host side of [`layer_norm`] (`eps` written into its tiling data): returns `y` with the
/// launch statistics.
///
/// # Errors
/// The [`LaunchError`] of a failing core.
///
/// # Panics
/// Panics if `x` does not hold `rows × cols` elements or `gamma`/`beta` `cols`.
pub fn run_layer_norm<T: RowElement>(
    soc: Soc,
    x: &[T],
    gamma: &[T],
    beta: &[T],
    eps: f32,
    tiling: &RowTiling,
) -> Result<(Vec<T>, LaunchStats), LaunchError> {
    run_rows(soc, x, [gamma, beta], LayerNorm { eps }, tiling)
}

/// Host reference of RMSNorm in `float64` (`x / np.sqrt((x**2).mean(-1, keepdims=True) +
/// eps) * gamma`), rounded to `T`; the row length is `gamma.len()`.
pub fn rms_norm_reference<T: Element>(x: &[T], gamma: &[T], eps: f32) -> Vec<T> {
    map_rows(x, gamma.len(), |r| {
        let ms = r.iter().map(|v| v * v).sum::<f64>() / r.len() as f64;
        let inv = 1.0 / (ms + eps as f64).sqrt();
        r.iter().zip(gamma).map(|(v, g)| v * inv * g.to_f64()).collect()
    })
}

/// Host reference of LayerNorm in `float64` (`(x - mean) / np.sqrt(var + eps) * gamma +
/// beta`, `var` the biased variance), rounded to `T`; the row length is `gamma.len()`.
pub fn layer_norm_reference<T: Element>(x: &[T], gamma: &[T], beta: &[T], eps: f32) -> Vec<T> {
    map_rows(x, gamma.len(), |r| {
        let n = r.len() as f64;
        let mean = r.iter().sum::<f64>() / n;
        let var = r.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
        let inv = 1.0 / (var + eps as f64).sqrt();
        r.iter()
            .zip(gamma.iter().zip(beta))
            .map(|(v, (g, b))| (v - mean) * inv * g.to_f64() + b.to_f64())
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::random_vec;
    use ascend_runtime::testing::{assert_close, Tolerance};

    fn inputs<T: Element>(rows: usize, cols: usize) -> (Vec<T>, Vec<T>, Vec<T>) {
        let seed = (rows * 131 + cols) as u64;
        (
            random_vec(rows * cols, seed, -3.0, 5.0),
            random_vec(cols, seed + 1, 0.5, 1.5),
            random_vec(cols, seed + 2, -1.0, 1.0),
        )
    }

    const SHAPES: [(usize, usize); 5] = [(1, 64), (13, 100), (50, 1000), (97, 33), (7, 4096)];

    fn check_rms<T: RowElement>(soc: Soc, rows: usize, cols: usize, cores: u32) {
        let (x, gamma, _) = inputs::<T>(rows, cols);
        let (y, stats) = run_rms_norm(soc, &x, &gamma, 1e-6, &RowTiling::new(rows, cols, cores)).unwrap();
        assert_eq!(stats.block_dim, cores);
        assert_close(&y, &rms_norm_reference(&x, &gamma, 1e-6), Tolerance::of::<T>());
    }

    fn check_ln<T: RowElement>(soc: Soc, rows: usize, cols: usize, cores: u32) {
        let (x, gamma, beta) = inputs::<T>(rows, cols);
        let t = RowTiling::new(rows, cols, cores);
        let (y, stats) = run_layer_norm(soc, &x, &gamma, &beta, 1e-5, &t).unwrap();
        assert_eq!(stats.block_dim, cores);
        assert_close(&y, &layer_norm_reference(&x, &gamma, &beta, 1e-5), Tolerance::of::<T>());
    }

    #[test]
    fn rms_norm_f32_and_f16_on_1_8_48_cores() {
        for cores in [1, 8, 48] {
            for (rows, cols) in SHAPES {
                check_rms::<f32>(Soc::Ascend910B, rows, cols, cores);
                check_rms::<f16>(Soc::Ascend910B, rows, cols, cores);
            }
        }
        check_rms::<f32>(Soc::Ascend310B, 29, 777, 8);
    }

    #[test]
    fn layer_norm_f32_and_f16_on_1_8_48_cores() {
        for cores in [1, 8, 48] {
            for (rows, cols) in SHAPES {
                check_ln::<f32>(Soc::Ascend910B, rows, cols, cores);
                check_ln::<f16>(Soc::Ascend910B, rows, cols, cores);
            }
        }
        check_ln::<f16>(Soc::Ascend310B, 29, 777, 8);
        check_ln::<f32>(Soc::Ascend310P, 29, 256, 8);
    }

    #[test]
    fn layer_norm_of_a_shifted_row_is_centred() {
        // Large offset, small spread: the mean is subtracted before squaring.
        let (rows, cols) = (3, 512);
        let x: Vec<f32> = random_vec(rows * cols, 9, 1000.0, 1001.0);
        let (gamma, beta) = (vec![1.0f32; cols], vec![0.0f32; cols]);
        let (y, _) =
            run_layer_norm(Soc::Ascend910B, &x, &gamma, &beta, 1e-5, &RowTiling::new(rows, cols, 2)).unwrap();
        for r in y.chunks(cols) {
            let mean = r.iter().map(|&v| v as f64).sum::<f64>() / cols as f64;
            let var = r.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / cols as f64;
            assert!(mean.abs() < 1e-3 && (var - 1.0).abs() < 1e-2, "mean {mean} var {var}");
        }
    }

    #[test]
    fn the_ub_budget_is_exact_at_the_largest_row() {
        // 6984 float columns is the longest LayerNorm row Ascend910B's UB holds; one more fails
        // with the kernel's own message (not a later TPipe error).
        for (cols, ok) in [(6984, true), (6985, false)] {
            let (x, gamma, beta) = inputs::<f32>(2, cols);
            let r = run_layer_norm(Soc::Ascend910B, &x, &gamma, &beta, 1e-5, &RowTiling::new(2, cols, 2));
            match r {
                Ok((y, _)) if ok => {
                    assert_close(&y, &layer_norm_reference(&x, &gamma, &beta, 1e-5), Tolerance::of::<f32>())
                }
                Err(e) if !ok => {
                    assert!(e.to_string().contains("LayerNorm: cols = 6985 float elements need"), "{e}")
                }
                other => panic!("cols {cols}: {:?}", other.map(|_| ())),
            }
        }
        let (x, gamma, _) = inputs::<f16>(1, 9760);
        run_rms_norm(Soc::Ascend910B, &x, &gamma, 1e-6, &RowTiling::new(1, 9760, 1)).unwrap();
        let (x, gamma, _) = inputs::<f16>(1, 9761);
        assert!(run_rms_norm(Soc::Ascend910B, &x, &gamma, 1e-6, &RowTiling::new(1, 9761, 1)).is_err());
    }

    #[test]
    fn norms_fit_4096_float_columns_and_fail_clearly_beyond_the_ub() {
        let (x, gamma, beta) = inputs::<f32>(1, 8000);
        let t = RowTiling::new(1, 8000, 1);
        let e = run_layer_norm(Soc::Ascend910B, &x, &gamma, &beta, 1e-5, &t).unwrap_err().to_string();
        assert!(
            e.contains("LayerNorm: cols = 8000 float elements need") && e.contains("Ascend910B has 196608"),
            "{e}"
        );
        // The same row fits the 256 KiB UB of Ascend310B.
        let (y, _) = run_layer_norm(Soc::Ascend310B, &x, &gamma, &beta, 1e-5, &t).unwrap();
        assert_close(&y, &layer_norm_reference(&x, &gamma, &beta, 1e-5), Tolerance::of::<f32>());
        let e = run_rms_norm(
            Soc::Ascend910B,
            &vec![0.0f32; 12_000],
            &vec![1.0; 12_000],
            1e-6,
            &RowTiling::new(1, 12_000, 1),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("RmsNorm: cols = 12000"), "{e}");
    }
}
