//! Trigonometric functions of the advanced API (the vendor's `adv_api/math`): `Sin`, `Cos`,
//! `Tan`, `Asin`, `Acos` and `Atan`, with their host tiling helpers.
//!
//! They compute in `float` (a `half` source is widened into the temporary buffer first and the
//! result narrowed back with `CAST_NONE`; `Asin`/`Acos` keep part of their `half` steps in
//! `half`), in counter mode over rounds of the vendor's split, with a `PipeBarrier<PIPE_V>`
//! where the vendor has one:
//! - `Sin` and `Cos` reduce `x` by a multiple `k` of π (`π` split into four or five `float`
//!   parts, Cody–Waite style), evaluate the vendor's odd polynomial on the reduced value and
//!   give it the sign `(-1)^k`, computed as `4·floor(k/2) − 2k + 1`. `k` is rounded with a
//!   `Cast` — `float → float` on Ascend910B, through `int32_t` (saturating) on Ascend310P,
//!   in place in the tensor it rounds. The vendor's pages limit inputs to `[-65504, 65504]`;
//!   beyond that the results are still the instructions' (not checked).
//! - `Tan` reduces `x` the same way (`k` rounded to even), carries `x₀ ± π/2` along, and
//!   divides the vendor's rational approximation `x₀·P(x₀²) / ((x₀² + c)·(x₀ + π/2)·(x₀ − π/2))`.
//! - `Asin` evaluates the degree-15 Taylor expansion both at `|x|` and at `√(1 − x²)` (as
//!   `π/2 − …`), picks one with `0/1` factors from `floor(min(|x|, √½) − √½)` and restores the
//!   sign with a `float`/`half` approximation of `sign(x)`; `Acos` is `−(asin x − π/2)`. Their
//!   pages limit inputs to `[-1, 1]` (outside, the results are invalid; not checked).
//! - `Atan` clips `x` to `[-10000, 10000]`, evaluates three Taylor expansions on reduced
//!   arguments of `|x|` and keeps their minimum, then multiplies by a `float` approximation
//!   of `sign(x)` (`2^62·x / (2^-62 + 2^62·|x|)`).
//!
//! Ascend 950 (the vendor's `*_3510_impl.h`, with the `SinConfig`/`CosConfig`/`AtanConfig`
//! algorithms) is not emulated; on Ascend910 and Ascend310B the vendor's library has no
//! implementation, and the functions fail there.

use crate::element::{f16, DType, Element};
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::sync::{event::PIPE_V, flags::pipe_barrier};
use crate::vector::binary::{mul_masked, DivElement, MulElement};
use crate::vector::cast::{cast_masked, RoundMode};
use crate::vector::mask::{
    reset_mask, set_mask_count, set_mask_norm, set_vector_mask, Mask, MASK_PLACEHOLDER,
};
use crate::vector::params::{BinaryRepeatParams, UnaryRepeatParams};
use crate::vector::scalar::{
    adds_masked, maxs_masked, mins_masked, muls_masked, AddsElement, MinsElement, MulsElement,
};
use crate::vector::unary::AbsElement;

use super::steps::{self, integral, via_float};
use super::V220_V200 as CHIPS;
use super::{
    check_common, check_tmp_operands, counter_rounds, host_checks, split_count, stack_tensor, NARROW,
    ONE_BLK_SIZE, SAME, WIDEN,
};

mod sealed {
    pub trait Sealed {}
}
impl sealed::Sealed for f16 {}
impl sealed::Sealed for f32 {}

/// Declares an API's sealed element trait (`half` and `float`), with its compile_fail doctest.
macro_rules! element_trait {
    ($name:ident, $f:ident) => {
        #[doc = concat!("Element types of [`", stringify!($f), "`]: `half` and `float` (the vendor's page), on the")]
        /// chips that have an implementation (Ascend910B, Ascend310P).
        ///
        /// Any other type does not compile:
        /// ```compile_fail
        /// use ascend_core::prelude::*;
        #[doc = concat!("fn f(t: &LocalTensor<i32>, tmp: &LocalTensor<u8>) { ", stringify!($f), "::<_, false>(t, t, tmp, 8) }")]
        /// ```
        pub trait $name: Element + sealed::Sealed {}
        impl $name for f16 {}
        impl $name for f32 {}
    };
}

element_trait!(SinElement, sin);
element_trait!(CosElement, cos);
element_trait!(TanElement, tan);
element_trait!(AsinElement, asin);
element_trait!(AcosElement, acos);
element_trait!(AtanElement, atan);

const SIN: &str = "Sin";
const COS: &str = "Cos";
const TAN: &str = "Tan";
const ASIN: &str = "Asin";
const ACOS: &str = "Acos";
const ATAN: &str = "Atan";

// ---------------------------------------------------------------------------------------
// Shared steps
// ---------------------------------------------------------------------------------------

/// The elements one round computes: `bytes / 4 / procedure`, rounded down to a multiple of
/// 32 (the vendor's `stackSize`/`calSize`); fails as the vendor's two `CheckTmpBufferSize`
/// do when `bytes / 4` or the split is 0.
#[track_caller]
fn split_floats(api: &'static str, tmp: &LocalTensor<u8>, procedure: usize) -> usize {
    let bytes = tmp.get_size();
    ensure(bytes / 4 > 0, api, || {
        format!("sharedTmpBuffer has {bytes} bytes, less than one float (tmpBufferSize would be 0)")
    });
    split_count(api, tmp, 4, procedure)
}

// ---------------------------------------------------------------------------------------
// Sin, Cos
// ---------------------------------------------------------------------------------------

/// `1/π` as the vendor's `float` constant (`SIN_PI_FOR_X_TODIV`, `COS_PI_FOR_X_TODIV`).
#[allow(clippy::excessive_precision)] // the vendor's literal, as written
const INV_PI: f32 = 0.3183098733425140380859375_f64 as f32;
/// The parts of π the reduction subtracts (`SIN_PI_V2`/`PI_0`, `*_KPI_FIRS_PI_MULS`,
/// `*_KPI_TWI_PI_MULS`, `*_KPI_THIR_PI_MULS`; `Cos` adds `COS_KPI_FOR_PI_MULS`).
const PI_0: f32 = 3.140625;
#[allow(clippy::excessive_precision)] // the vendor's literal, as written
const PI_1: f32 = 0.0009670257568359375_f64 as f32;
#[allow(clippy::excessive_precision)] // the vendor's literal, as written
const PI_2: f32 = 6.2771141529083251953125e-7_f64 as f32;
#[allow(clippy::excessive_precision)] // the vendor's literal, as written
const PI_3: f32 = 1.21644916362129151821136474609375e-10_f64 as f32;
#[allow(clippy::excessive_precision)] // the vendor's literal, as written
const PI_4: f32 = -1.0290623200529979163359041220560e-13_f64 as f32;
/// `Cos`'s π/2 in two parts (`COS_PI_DOWN`, `COS_PI_RESDOWN_ADDS_NEG`).
#[allow(clippy::excessive_precision)] // the vendor's literal, as written
const PI_DOWN: f32 = 1.57079637050628662109375_f64 as f32;
#[allow(clippy::excessive_precision)] // the vendor's literal, as written
const PI_DOWN_RES: f32 = -0.00000004371139000189375_f64 as f32;
/// The polynomial's coefficients, highest first (`*_RES_MULTI_SCA`, `*_RES_ADDICT_UP`,
/// `*_2ADDS`, `*_3ADDS`).
const POLY: [f32; 4] = [
    2.604926501e-6_f64 as f32,
    -0.0001980894471_f64 as f32,
    0.008333049340_f64 as f32,
    -0.1666665792_f64 as f32,
];

/// The `float` tensors of `Sin`'s and `Cos`'s scratch per element for `half`, `float`
/// without and with `IS_REUSE_SOURCE` (`*_HALF_CALC_PROCEDURE`, …).
const SC_HALF_PROC: usize = 4;
const SC_FLOAT_PROC: usize = 3;
const SC_FLOAT_REUSE_PROC: usize = 2;

/// The vendor's `SinRound`/`CosRound` with `SinKpi`/`KPI`: `k` into `round`, the reduced `x`
/// into `x`, `kpi` the last product.
#[track_caller]
fn reduce(
    cos: bool,
    x: &LocalTensor<f32>,
    src: &LocalTensor<f32>,
    round: &LocalTensor<f32>,
    kpi: &LocalTensor<f32>,
) {
    steps::muls(round, src, INV_PI);
    if cos {
        steps::adds(round, round, 0.5);
        integral(round, round, &round.reinterpret_cast::<i32>(), RoundMode::CastRint);
    } else {
        integral(round, round, &round.reinterpret_cast::<i32>(), RoundMode::CastRound);
    }
    steps::muls(kpi, round, PI_0);
    steps::sub(x, src, kpi);
    steps::muls(kpi, round, PI_1);
    steps::sub(x, x, kpi);
    if cos {
        steps::adds(x, x, PI_DOWN);
    }
    steps::muls(kpi, round, PI_2);
    steps::sub(x, x, kpi);
    steps::muls(kpi, round, PI_3);
    steps::sub(x, x, kpi);
    if cos {
        steps::muls(kpi, round, PI_4);
        steps::sub(x, x, kpi);
        steps::adds(x, x, PI_DOWN_RES);
    }
}

/// The vendor's `SinPolynomialApproximation`/`CosPolynomialApproximation` with their sign
/// step: `x²` into `kpi`, the sign `4·floor(k/2) − 2k + 1` into `dst` (`round` becomes
/// `−2k`), `x·P(x²)` into `round`, the product into `dst`; `Cos` clamps it to `[-1, 1]`.
#[track_caller]
fn polynomial(
    cos: bool,
    dst: &LocalTensor<f32>,
    x: &LocalTensor<f32>,
    round: &LocalTensor<f32>,
    kpi: &LocalTensor<f32>,
) {
    steps::mul(kpi, x, x);
    steps::muls(dst, round, 0.5);
    integral(dst, dst, &dst.reinterpret_cast::<i32>(), RoundMode::CastFloor);
    steps::muls(dst, dst, 4.0);
    steps::muls(round, round, -2.0);
    steps::add(dst, dst, round);
    steps::adds(dst, dst, 1.0);

    steps::muls(round, kpi, POLY[0]);
    steps::adds(round, round, POLY[1]);
    steps::mul(round, round, kpi);
    steps::adds(round, round, POLY[2]);
    steps::mul(round, round, kpi);
    steps::adds(round, round, POLY[3]);
    steps::mul(round, round, kpi);
    steps::adds(round, round, 1.0);
    steps::mul(round, round, x);
    steps::mul(dst, round, dst);
    if cos {
        let unary = UnaryRepeatParams::default();
        mins_masked::<f32, false>(dst, dst, 1.0, MASK_PLACEHOLDER, 1, &unary);
        pipe_barrier::<PIPE_V>();
        maxs_masked::<f32, false>(dst, dst, -1.0, MASK_PLACEHOLDER, 1, &unary);
        pipe_barrier::<PIPE_V>();
    }
}

/// `Sin` or `Cos` (the vendor's `SinImpl`/`CosImpl` and `*Compute`).
#[track_caller]
fn sin_cos<T: Element>(
    cos: bool,
    reuse: bool,
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    let api = if cos { COS } else { SIN };
    check_common(api, &CHIPS, dst, src, count);
    check_tmp_operands(api, dst, src, shared_tmp_buffer, count, true);
    let half = T::DTYPE == DType::F16;
    let proc = match (half, reuse) {
        (true, _) => SC_HALF_PROC,
        (false, false) => SC_FLOAT_PROC,
        (false, true) => SC_FLOAT_REUSE_PROC,
    };
    let split = split_floats(api, shared_tmp_buffer, proc);
    let tmp = shared_tmp_buffer.reinterpret_cast::<f32>();
    counter_rounds::<T>(
        count,
        split,
        |t| t,
        |off, _| {
            if half {
                let (d, s) =
                    (dst.reinterpret_cast::<f16>().view(off), src.reinterpret_cast::<f16>().view(off));
                let (conv, round, kpi, x) =
                    (tmp.clone(), tmp.view(split), tmp.view(2 * split), tmp.view(3 * split));
                via_float(&d, &s, &conv, |_| {
                    reduce(cos, &x, &conv, &round, &kpi);
                    polynomial(cos, &conv, &x, &round, &kpi);
                });
            } else {
                let (d, s) =
                    (dst.reinterpret_cast::<f32>().view(off), src.reinterpret_cast::<f32>().view(off));
                let (round, kpi) = (tmp.clone(), tmp.view(split));
                let x = if reuse { s.clone() } else { tmp.view(2 * split) };
                reduce(cos, &x, &s, &round, &kpi);
                polynomial(cos, &d, &x, &round, &kpi);
            }
        },
    );
}

/// The vendor's `SinCompute<float>`/`CosCompute<float>(dst, src, tmpBuffer, calSize, true)`
/// (`isReuseSource` set): `k` into `tmp`, the products into `tmp[cal..]`, `src` reduced in
/// place, the result into `dst`. Under the mask already set (`Digamma` calls them).
#[track_caller]
pub(crate) fn sin_cos_compute_float_reuse(
    cos: bool,
    dst: &LocalTensor<f32>,
    src: &LocalTensor<f32>,
    tmp: &LocalTensor<f32>,
    cal: usize,
) {
    let (round, kpi) = (tmp.clone(), tmp.view(cal));
    reduce(cos, src, src, &round, &kpi);
    polynomial(cos, dst, src, &round, &kpi);
}

/// The vendor's `SinCompute<float>(dst, src, tmpTensor, splitSize, false)` (`isReuseSource`
/// clear): `k` into `tmp`, the products into `tmp[cal..]`, the reduced `x` into
/// `tmp[2·cal..]`, the result into `dst`. Under the mask already set (`Lgamma` calls it).
#[track_caller]
pub(crate) fn sin_compute_float(
    dst: &LocalTensor<f32>,
    src: &LocalTensor<f32>,
    tmp: &LocalTensor<f32>,
    cal: usize,
) {
    let (round, kpi, x) = (tmp.clone(), tmp.view(cal), tmp.view(2 * cal));
    reduce(false, &x, src, &round, &kpi);
    polynomial(false, dst, &x, &round, &kpi);
}

/// `dst[i] = sin(src[i])` for `i < count`, with `shared_tmp_buffer` as scratch (AscendC
/// `Sin<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, calCount)`).
///
/// As the vendor's implementation, in `float`: `k = round(x · 1/π)` (ties away from zero,
/// `CAST_ROUND`), `x₀ = x − k·π₀ − k·π₁ − k·π₂ − k·π₃` (each product and difference rounded),
/// `sin x ≈ (4·floor(k/2) − 2k + 1) · x₀·P(x₀²)` with the vendor's degree-4 `P` in Horner's
/// scheme — one instruction per step, a `PipeBarrier<PIPE_V>` after each. In counter mode over
/// rounds of `split` elements: `shared_tmp_buffer.get_size() / 4 / n / 32 * 32` with `n` 4 for
/// `half`, 3 for `float`, 2 for `float` with `IS_REUSE_SOURCE`. The scratch holds `n` `float`
/// tensors of `split`: `k` (then the polynomial), `x₀²`, and `x₀` — which is `src` itself for
/// `float` with `IS_REUSE_SOURCE` (`src`'s first `count` elements are overwritten by `x₀`); for
/// `half` a first one holds the widened source and the `float` result. For `float` `dst` holds
/// the sign before the product. Normal mode and a reset mask afterwards. `IS_REUSE_SOURCE` has
/// no effect for `half` (the vendor's check only warns).
///
/// The vendor's page limits inputs to `[-65504, 65504]` (not checked); on Ascend310P `k` goes
/// through `int32_t`.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 64 * 4);
/// pipe.init_tbuf(&mut tmp, 768);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// x.copy_from_slice(&[0.5f32; 64]);
/// x.set_value(1, 100.0);
/// sin::<_, false>(&y, &x, &tmp.get::<u8>(), 64);
/// assert!((y.get_value(0) - 0.5f32.sin()).abs() < 1e-6);
/// assert!((y.get_value(1) - 100f32.sin()).abs() < 1e-6);
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); `count` exceeds `src` or
/// `dst`; a tensor is not in the Unified Buffer; `dst` overlaps `src`, or the scratch overlaps
/// either (the vendor's constraints); the scratch has no split (less than 512 bytes for `half`,
/// 384 for `float`, 256 with `IS_REUSE_SOURCE`); or any instruction's own check fails.
#[track_caller]
pub fn sin<T: SinElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    sin_cos(false, IS_REUSE_SOURCE, dst, src, shared_tmp_buffer, count);
}

/// [`sin`] with the stack buffer as scratch (AscendC `Sin<T, isReuseSource>(dstTensor,
/// srcTensor, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 128 * 2);
/// let (x, y) = (q.get_with_offset::<f16>(128, 0), q.get_with_offset::<f16>(128, 256));
/// x.copy_from_slice(&[f16::from_f32(-2.56); 128]);
/// sin_stack::<_, false>(&y, &x, 128);
/// assert!((y.get_value(0).to_f32() + 0.5489).abs() < 1e-3);
/// ```
///
/// # Panics
/// As [`sin`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn sin_stack<T: SinElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    sin::<T, IS_REUSE_SOURCE>(dst, src, &stack_tensor(SIN), count);
}

/// `dst[i] = cos(src[i])` for `i < count`, with `shared_tmp_buffer` as scratch (AscendC
/// `Cos<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, calCount)`).
///
/// As the vendor's implementation, in `float`, as `sin(x₀ + π/2)`: `k = rint(x · 1/π + 0.5)`
/// (ties to even, `CAST_RINT`), `x₀ = x − k·π₀ − k·π₁ + π/2₀ − k·π₂ − k·π₃ − k·π₄ + π/2₁` (each
/// step rounded, in that order), then [`sin`]'s sign and polynomial, clamped to `[-1, 1]` with
/// `Mins`/`Maxs`. Rounds, scratch layout, `IS_REUSE_SOURCE` (for `float`, `src`'s first
/// `count` elements are overwritten by the reduced `x`) and modes as [`sin`].
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 64 * 4);
/// pipe.init_tbuf(&mut tmp, 512);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// x.copy_from_slice(&[0.5f32; 64]);
/// x.set_value(1, 0.0);
/// cos::<_, true>(&y, &x, &tmp.get::<u8>(), 64); // x is overwritten
/// assert!((y.get_value(0) - 0.5f32.cos()).abs() < 1e-6);
/// assert_eq!(y.get_value(1), 1.0);
/// ```
///
/// # Panics
/// As [`sin`].
#[track_caller]
pub fn cos<T: CosElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    sin_cos(true, IS_REUSE_SOURCE, dst, src, shared_tmp_buffer, count);
}

/// [`cos`] with the stack buffer as scratch (AscendC `Cos<T, isReuseSource>(dstTensor,
/// srcTensor, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 128 * 2);
/// let (x, y) = (q.get_with_offset::<f16>(128, 0), q.get_with_offset::<f16>(128, 256));
/// x.copy_from_slice(&[f16::from_f32(3.0); 128]);
/// cos_stack::<_, false>(&y, &x, 128);
/// assert!((y.get_value(0).to_f32() - 3f32.cos()).abs() < 1e-3);
/// ```
///
/// # Panics
/// As [`cos`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn cos_stack<T: CosElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    cos::<T, IS_REUSE_SOURCE>(dst, src, &stack_tensor(COS), count);
}

/// The `Sin`/`Cos` tilings' factor: 8 for `half` (4 `float` tensors per `half` element), 2 or
/// 3 for `float` with or without `isReuseSource`; `half` with `isReuseSource` is the vendor's
/// host error.
#[track_caller]
fn sin_cos_factor(api: &'static str, type_size: usize, is_reuse_source: bool) -> usize {
    if type_size == 4 {
        return if is_reuse_source { 2 } else { 3 };
    }
    ensure(!is_reuse_source, api, || {
        "isReuseSource = true with typeSize = 2: when the input data type is half, isReuseSource is not supported"
            .into()
    });
    8
}

/// The scratch bytes `Sin` needs for `input_size` elements of `type_size` bytes: `(max, min)`
/// (AscendC `GetSinMaxMinTmpSize`): `fac * max(input bytes, 256)` and `fac * 256`, `fac` 8 for
/// `half`, 3 for `float`, 2 for `float` with `is_reuse_source`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_sin_max_min_tmp_size(1024, 2, false), (16384, 2048));
/// assert_eq!(get_sin_max_min_tmp_size(1024, 4, true), (8192, 512));
/// assert_eq!(get_sin_max_min_tmp_size(16, 4, false), (768, 768));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0, `type_size` is neither 2 nor 4, or `is_reuse_source` is set
/// for `half` (the vendor's host checks).
#[track_caller]
pub fn get_sin_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    const API: &str = "GetSinMaxMinTmpSize";
    host_checks(API, input_size, type_size);
    let fac = sin_cos_factor(API, type_size, is_reuse_source);
    (fac * (input_size * type_size).max(256), fac * 256)
}

/// `Sin`'s `(maxLiveNodeCount, extraBuf)` (AscendC `GetSinTmpBufferFactorSize`): 8 for `half`,
/// 3 for `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_sin_tmp_buffer_factor_size(2), (8, 0));
/// assert_eq!(get_sin_tmp_buffer_factor_size(4), (3, 0));
/// ```
///
/// # Panics
/// Panics if `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_sin_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    host_checks("GetSinTmpBufferFactorSize", 1, type_size);
    (if type_size == 4 { 3 } else { 8 }, 0)
}

/// The scratch bytes `Cos` needs: `(max, min)` (AscendC `GetCosMaxMinTmpSize`), as
/// [`get_sin_max_min_tmp_size`].
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_cos_max_min_tmp_size(1024, 2, false), (16384, 2048));
/// assert_eq!(get_cos_max_min_tmp_size(100, 4, false), (1200, 768));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0, `type_size` is neither 2 nor 4, or `is_reuse_source` is set
/// for `half` (the vendor's host checks).
#[track_caller]
pub fn get_cos_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    const API: &str = "GetCosMaxMinTmpSize";
    host_checks(API, input_size, type_size);
    let fac = sin_cos_factor(API, type_size, is_reuse_source);
    (fac * (input_size * type_size).max(256), fac * 256)
}

/// `Cos`'s `(maxLiveNodeCount, extraBuf)` (AscendC `GetCosTmpBufferFactorSize`): 8 for `half`,
/// 3 for `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_cos_tmp_buffer_factor_size(4), (3, 0));
/// ```
///
/// # Panics
/// Panics if `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_cos_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    host_checks("GetCosTmpBufferFactorSize", 1, type_size);
    (if type_size == 4 { 3 } else { 8 }, 0)
}

// ---------------------------------------------------------------------------------------
// Atan
// ---------------------------------------------------------------------------------------

/// `1/(2k+1)` with alternating signs, as the vendor's `float` array of `double` literals.
const ATAN_FACTORS: [f32; 7] = [
    1.0,
    -0.3333333333333333_f64 as f32,
    0.2,
    -0.14285714285714285_f64 as f32,
    0.1111111111111111_f64 as f32,
    -0.09090909090909091_f64 as f32,
    0.07692307692307693_f64 as f32,
];
#[allow(clippy::excessive_precision, clippy::approx_constant)] // the vendor's literal
const PI_BY_FOUR: f32 = 0.78539816339744830961566084581988_f64 as f32;
#[allow(clippy::excessive_precision, clippy::approx_constant)] // the vendor's literal
const PI_BY_EIGHT: f32 = 0.39269908169872415480783042290994_f64 as f32;
#[allow(clippy::excessive_precision)] // the vendor's literal, as written
const TAN_PI_BY_EIGHT: f32 = 0.4142135623730950_f64 as f32;

/// The vendor's `TaylorExpand`: `dst = x·(1 + x²·(f₁ + x²·(… + x²·f_level)))` with `x²` into
/// `square`; no barrier after the last `Mul` (as the vendor).
#[track_caller]
fn taylor(dst: &LocalTensor<f32>, src: &LocalTensor<f32>, square: &LocalTensor<f32>, level: usize) {
    let binary = BinaryRepeatParams::default();
    mul_masked::<f32, false>(square, src, src, MASK_PLACEHOLDER, 1, &binary);
    mul_masked::<f32, false>(dst, src, src, MASK_PLACEHOLDER, 1, &binary);
    pipe_barrier::<PIPE_V>();
    steps::muls(dst, dst, ATAN_FACTORS[level]);
    for i in (1..level).rev() {
        steps::adds(dst, dst, ATAN_FACTORS[i]);
        steps::mul(dst, dst, square);
    }
    steps::adds(dst, dst, ATAN_FACTORS[0]);
    mul_masked::<f32, false>(dst, dst, src, MASK_PLACEHOLDER, 1, &binary);
}

/// The vendor's `AtanTransform`: `dst = |(x − y) / (1 + x·y)|`, `tmp` holding `x − y`.
#[track_caller]
fn atan_transform(dst: &LocalTensor<f32>, src: &LocalTensor<f32>, tmp: &LocalTensor<f32>, y: f32) {
    let unary = UnaryRepeatParams::default();
    steps::muls(dst, src, y);
    adds_masked::<f32, false>(dst, dst, 1.0, MASK_PLACEHOLDER, 1, &unary);
    steps::adds(tmp, src, 0.0 - y);
    steps::div(dst, tmp, dst);
    steps::abs(dst, dst);
}

/// The vendor's `AtanFormulaImpl` on five `float` tensors of `split` in `tmp` (the result's
/// candidates, the clip, `|x|`, a second temporary, `x²`).
#[track_caller]
fn atan_formula(dst: &LocalTensor<f32>, src: &LocalTensor<f32>, tmp: &LocalTensor<f32>, split: usize) {
    const MAX_INPUT: f32 = 10000.0;
    const FP32_MAX: f32 = 4611686018427387904.0; // 2^62
    const FP32_MIN: f32 = 2.168404344971009e-19_f64 as f32; // 2^-62
    let unary = UnaryRepeatParams::default();
    let (t1, clip, abs, t2, square) =
        (tmp.clone(), tmp.view(split), tmp.view(2 * split), tmp.view(3 * split), tmp.view(4 * split));
    mins_masked::<f32, false>(&clip, src, MAX_INPUT, MASK_PLACEHOLDER, 1, &unary);
    pipe_barrier::<PIPE_V>();
    maxs_masked::<f32, false>(&clip, &clip, -MAX_INPUT, MASK_PLACEHOLDER, 1, &unary);
    pipe_barrier::<PIPE_V>();
    steps::abs(&abs, &clip);

    // |x| in (0, tan(π/8)).
    taylor(dst, &abs, &square, 4);
    // π/8 + atan((|x| − tan(π/8)) / (1 + |x|·tan(π/8))).
    atan_transform(&t1, &abs, &t2, TAN_PI_BY_EIGHT);
    taylor(&t2, &t1, &square, 4);
    pipe_barrier::<PIPE_V>();
    steps::adds(&t2, &t2, PI_BY_EIGHT);
    steps::min(dst, dst, &t2);

    // π/4 + atan(|(|x| − 1) / (|x| + 1)|).
    adds_masked::<f32, false>(&t2, &abs, 1.0, MASK_PLACEHOLDER, 1, &unary);
    steps::adds(&t1, &abs, -1.0);
    steps::div(&t1, &t1, &t2);
    steps::abs(&t1, &t1);
    taylor(&t2, &t1, &square, 4);
    pipe_barrier::<PIPE_V>();
    steps::adds(&t2, &t2, PI_BY_FOUR);
    steps::min(dst, dst, &t2);

    // π/8 + π/4 + atan of that argument transformed again.
    atan_transform(&t2, &t1, &square, TAN_PI_BY_EIGHT);
    taylor(&t1, &t2, &square, 6);
    pipe_barrier::<PIPE_V>();
    steps::adds(&t1, &t1, PI_BY_EIGHT);
    steps::adds(&t1, &t1, PI_BY_FOUR);
    steps::min(dst, dst, &t1);

    // The vendor's `Sign`: 2^62·x / (2^-62 + |2^62·x|) into t1, t2 the denominator.
    steps::muls(&t1, &clip, FP32_MAX);
    steps::abs(&t2, &t1);
    steps::adds(&t2, &t2, FP32_MIN);
    steps::div(&t1, &t1, &t2);
    steps::mul(dst, dst, &t1);
}

/// `dst[i] = atan(src[i])` for `i < count`, with `shared_tmp_buffer` as scratch (AscendC
/// `Atan<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, calCount)`).
///
/// As the vendor's implementation, in `float`: `x` clipped to `[-10000, 10000]`, then with
/// `a = |x|` the minimum of three Taylor expansions `t(u) = u − u³/3 + u⁵/5 − u⁷/7` (Horner's
/// scheme in `u²`): `t(a)`; `π/8 + t(|(a − tan π/8)/(1 + a·tan π/8)|)`; `π/4 + t(b)` with `b =
/// |(a − 1)/(a + 1)|`; and `π/8 + π/4 + t₆(|(b − tan π/8)/(1 + b·tan π/8)|)` (to `u¹³/13`);
/// times `2^62·x / (2^-62 + |2^62·x|)` (the vendor's `Sign`, which is not ±1 for tiny `x`).
/// In counter mode over rounds of `split = shared_tmp_buffer.get_size() / 4 / n / 32 * 32`
/// elements, `n` 6 for `half`, 5 for `float`: five `float` tensors of `split` in the scratch,
/// and for `half` a sixth holding the widened source and the `float` result. Normal mode and a
/// reset mask afterwards. `IS_REUSE_SOURCE` is reserved: `src` is never written.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 64 * 4);
/// pipe.init_tbuf(&mut tmp, 640);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// x.copy_from_slice(&[0.5f32; 64]);
/// x.set_value(1, -1e6);
/// atan::<_, false>(&y, &x, &tmp.get::<u8>(), 64);
/// assert!((y.get_value(0) - 0.5f32.atan()).abs() < 1e-5);
/// assert!((y.get_value(1) + std::f32::consts::FRAC_PI_2).abs() < 1e-3);
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); `count` exceeds `src` or
/// `dst`; a tensor is not in the Unified Buffer; `dst` overlaps `src`, or the scratch overlaps
/// either (the vendor's constraints); the scratch has no split (less than 768 bytes for
/// `half`, 640 for `float`); or any instruction's own check fails.
#[track_caller]
pub fn atan<T: AtanElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    check_common(ATAN, &CHIPS, dst, src, count);
    check_tmp_operands(ATAN, dst, src, shared_tmp_buffer, count, true);
    let half = T::DTYPE == DType::F16;
    let split = split_floats(ATAN, shared_tmp_buffer, if half { 6 } else { 5 });
    let tmp = shared_tmp_buffer.reinterpret_cast::<f32>();
    counter_rounds::<T>(
        count,
        split,
        |t| t,
        |off, _| {
            if half {
                let (d, s) =
                    (dst.reinterpret_cast::<f16>().view(off), src.reinterpret_cast::<f16>().view(off));
                let conv = tmp.view(5 * split);
                via_float(&d, &s, &conv, |_| atan_formula(&conv, &conv, &tmp, split));
            } else {
                let (d, s) =
                    (dst.reinterpret_cast::<f32>().view(off), src.reinterpret_cast::<f32>().view(off));
                atan_formula(&d, &s, &tmp, split);
            }
        },
    );
}

/// [`atan`] with the stack buffer as scratch (AscendC `Atan<T, isReuseSource>(dstTensor,
/// srcTensor, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 128 * 2);
/// let (x, y) = (q.get_with_offset::<f16>(128, 0), q.get_with_offset::<f16>(128, 256));
/// x.copy_from_slice(&[f16::from_f32(1.0); 128]);
/// atan_stack::<_, false>(&y, &x, 128);
/// assert!((y.get_value(0).to_f32() - std::f32::consts::FRAC_PI_4).abs() < 1e-3);
/// ```
///
/// # Panics
/// As [`atan`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn atan_stack<T: AtanElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    atan::<T, IS_REUSE_SOURCE>(dst, src, &stack_tensor(ATAN), count);
}

/// The scratch bytes `Atan` needs: `(max, min)` (AscendC `GetAtanMaxMinTmpSize`): `fac *
/// max(input bytes, 256)` and `fac * 256`, `fac` 12 for `half`, 5 for `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_atan_max_min_tmp_size(1024, 2, false), (24576, 3072));
/// assert_eq!(get_atan_max_min_tmp_size(16, 4, false), (1280, 1280));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0 (the vendor's host check) or `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_atan_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let _ = is_reuse_source;
    host_checks("GetAtanMaxMinTmpSize", input_size, type_size);
    let fac = if type_size == 4 { 5 } else { 12 };
    (fac * (input_size * type_size).max(256), fac * 256)
}

/// `Atan`'s `(maxLiveNodeCount, extraBuf)` (AscendC `GetAtanTmpBufferFactorSize`): 12 for
/// `half`, 5 for `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_atan_tmp_buffer_factor_size(2), (12, 0));
/// ```
///
/// # Panics
/// Panics if `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_atan_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    host_checks("GetAtanTmpBufferFactorSize", 1, type_size);
    (if type_size == 4 { 5 } else { 12 }, 0)
}

// ---------------------------------------------------------------------------------------
// Tan
// ---------------------------------------------------------------------------------------

/// `Tan`'s last part of π (`KPI_FOR_PI_MULS`; not `Cos`'s).
#[allow(clippy::excessive_precision)] // the vendor's literal, as written
const TAN_PI_4: f32 = -1.0291767438275201129727065563201904296875e-13_f64 as f32;
/// `Tan`'s rational approximation (`TAN_RES_MULTI_SCA`, `TAN_RES_ADDICT_UP`, `TAN_2ADDS`,
/// `TAN_3ADDS`).
#[allow(clippy::excessive_precision)] // the vendor's literals, as written
const TAN_COEF: [f32; 4] = [
    0.0698520831551998762793_f64 as f32,
    -6.8711573651634203789_f64 as f32,
    61.20362572811089435388_f64 as f32,
    -24.8048928861126769186219_f64 as f32,
];

/// The vendor's `TanRound` (`KPI_0` … `KPI_4`): `k = rint(x/π)` into `round`, `x` reduced in
/// place, `down1 = x₀ + π/2` and `down2 = x₀ − π/2` carried along; `kpi` the products.
#[track_caller]
fn tan_round(
    kpi: &LocalTensor<f32>,
    x: &LocalTensor<f32>,
    round: &LocalTensor<f32>,
    down1: &LocalTensor<f32>,
    down2: &LocalTensor<f32>,
) {
    steps::muls(round, x, INV_PI);
    integral(round, round, &round.reinterpret_cast::<i32>(), RoundMode::CastRint);
    steps::muls(kpi, round, PI_0);
    steps::sub(x, x, kpi);
    steps::muls(kpi, round, PI_1);
    steps::sub(x, x, kpi);
    steps::adds(down1, x, PI_DOWN);
    steps::adds(down2, x, -PI_DOWN);
    steps::muls(kpi, round, PI_2);
    steps::sub(x, x, kpi);
    steps::sub(down1, down1, kpi);
    steps::sub(down2, down2, kpi);
    steps::adds(down1, down1, PI_DOWN_RES);
    steps::adds(down2, down2, -PI_DOWN_RES);
    for part in [PI_3, TAN_PI_4] {
        steps::muls(kpi, round, part);
        steps::sub(x, x, kpi);
        steps::sub(down1, down1, kpi);
        steps::sub(down2, down2, kpi);
    }
}

/// The vendor's `TanPolynomialApproximation`: `dst = x·((x²·r₀ + r₁)·x² + r₂) /
/// ((x² + r₃)·down1·down2)`, `round` holding `x²` and then the denominator.
#[track_caller]
fn tan_polynomial(
    dst: &LocalTensor<f32>,
    x: &LocalTensor<f32>,
    round: &LocalTensor<f32>,
    down1: &LocalTensor<f32>,
    down2: &LocalTensor<f32>,
) {
    steps::mul(round, x, x);
    steps::muls(dst, round, TAN_COEF[0]);
    steps::adds(dst, dst, TAN_COEF[1]);
    steps::mul(dst, dst, round);
    steps::adds(dst, dst, TAN_COEF[2]);
    steps::mul(dst, dst, x);
    steps::adds(round, round, TAN_COEF[3]);
    steps::mul(round, round, down1);
    steps::mul(round, round, down2);
    steps::div(dst, dst, round);
}

/// The vendor's `TanCompute<float>(dst, src, tmpBuffer, calSize)`: four `float` tensors of
/// `cal` from `tmp` — `k` (then the denominator), `x₀ + π/2`, `x₀ − π/2`, and a copy of `src`
/// (`Adds` of 0) reduced in place; `dst` holds the products `k·πᵢ` before the result. Under
/// the mask already set (`Digamma` calls it too).
#[track_caller]
pub(crate) fn tan_compute_float(
    dst: &LocalTensor<f32>,
    src: &LocalTensor<f32>,
    tmp: &LocalTensor<f32>,
    cal: usize,
) {
    let t: [LocalTensor<f32>; 4] = core::array::from_fn(|i| tmp.view(i * cal));
    steps::adds(&t[3], src, 0.0);
    tan_round(dst, &t[3], &t[0], &t[1], &t[2]);
    tan_polynomial(dst, &t[3], &t[0], &t[1], &t[2]);
}

/// `dst[i] = tan(src[i])` for `i < count`, with `shared_tmp_buffer` as scratch (AscendC
/// `Tan<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, calCount)`).
///
/// As the vendor's implementation, in `float`: `k = rint(x · 1/π)` (ties to even,
/// `CAST_RINT`; through `int32_t` on Ascend310P), `x₀ = x − k·π₀ − … − k·π₄` with `x₀ + π/2`
/// and `x₀ − π/2` reduced alongside (each in two parts), then `tan x ≈ x₀·P(x₀²) / ((x₀² +
/// r₃)·(x₀ + π/2)·(x₀ − π/2))` — one instruction per step, a `PipeBarrier<PIPE_V>` after each.
/// In counter mode over rounds of `split = shared_tmp_buffer.get_size() / size_of::<T>() / n /
/// 32 * 32` elements, `n` 10 for `half`, 4 for `float`; the tail round lays its tensors out
/// at the tail rounded up to 32 elements instead of `split` (as the vendor). The scratch holds
/// `k` (then the denominator), `x₀ + π/2`, `x₀ − π/2` and — for `float` — a copy of the source
/// (`Adds` of 0, so `-0` becomes `+0`) reduced in place; `dst` holds the products `k·πᵢ`
/// before the result. For `half` five `float` tensors: the products then the result, the
/// widened source reduced in place, and the three. Normal mode and a reset mask afterwards.
/// `IS_REUSE_SOURCE` is reserved: `src` is never written.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 64 * 4);
/// pipe.init_tbuf(&mut tmp, 1024);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// x.copy_from_slice(&[0.5f32; 64]);
/// x.set_value(1, 4.0);
/// tan::<_, false>(&y, &x, &tmp.get::<u8>(), 64);
/// assert!((y.get_value(0) - 0.5f32.tan()).abs() < 1e-6);
/// assert!((y.get_value(1) - 4f32.tan()).abs() < 1e-5);
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); `count` exceeds `src` or
/// `dst`; a tensor is not in the Unified Buffer; `dst` overlaps `src`, or the scratch overlaps
/// either (the vendor's constraints); the scratch has no split (less than 640 bytes for
/// `half`, 512 for `float`); or any instruction's own check fails.
#[track_caller]
pub fn tan<T: TanElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    check_common(TAN, &CHIPS, dst, src, count);
    check_tmp_operands(TAN, dst, src, shared_tmp_buffer, count, true);
    let half = T::DTYPE == DType::F16;
    let proc = if half { 10 } else { 4 };
    let bytes = shared_tmp_buffer.get_size();
    let split = bytes / T::SIZE / proc / ONE_BLK_SIZE * ONE_BLK_SIZE;
    ensure(split > 0, TAN, || {
        format!(
            "sharedTmpBuffer has {bytes} bytes; it must hold at least {} ({proc} {} tensors of {ONE_BLK_SIZE} \
             elements; see the host's GetTanMaxMinTmpSize)",
            T::SIZE * proc * ONE_BLK_SIZE,
            T::DTYPE
        )
    });
    let tmp = shared_tmp_buffer.reinterpret_cast::<f32>();
    let compute = |off: usize, cal: usize| {
        if half {
            let (d, s) = (dst.reinterpret_cast::<f16>().view(off), src.reinterpret_cast::<f16>().view(off));
            let t: [LocalTensor<f32>; 5] = core::array::from_fn(|i| tmp.view(i * cal));
            steps::widen(&t[1], &s);
            tan_round(&t[0], &t[1], &t[2], &t[3], &t[4]);
            tan_polynomial(&t[0], &t[1], &t[2], &t[3], &t[4]);
            cast_masked::<f16, f32, false>(&d, &t[0], RoundMode::CastNone, MASK_PLACEHOLDER, 1, &NARROW);
            pipe_barrier::<PIPE_V>();
        } else {
            let (d, s) = (dst.reinterpret_cast::<f32>().view(off), src.reinterpret_cast::<f32>().view(off));
            tan_compute_float(&d, &s, &tmp, cal);
        }
    };
    let (full, tail) = (count / split, count % split);
    set_mask_count();
    set_vector_mask::<T>(Mask::Bits([split as u64, 0]));
    for i in 0..full {
        compute(i * split, split);
    }
    if tail > 0 {
        set_vector_mask::<T>(Mask::Bits([tail as u64, 0]));
        compute(full * split, tail.div_ceil(ONE_BLK_SIZE) * ONE_BLK_SIZE);
    }
    set_mask_norm();
    reset_mask();
}

/// [`tan`] with the stack buffer as scratch (AscendC `Tan<T, isReuseSource>(dstTensor,
/// srcTensor, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 128 * 2);
/// let (x, y) = (q.get_with_offset::<f16>(128, 0), q.get_with_offset::<f16>(128, 256));
/// x.copy_from_slice(&[f16::from_f32(1.0); 128]);
/// tan_stack::<_, false>(&y, &x, 128);
/// assert!((y.get_value(0).to_f32() - 1f32.tan()).abs() < 2e-3);
/// ```
///
/// # Panics
/// As [`tan`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn tan_stack<T: TanElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    tan::<T, IS_REUSE_SOURCE>(dst, src, &stack_tensor(TAN), count);
}

/// The scratch bytes `Tan` needs: `(max, min)` (AscendC `GetTanMaxMinTmpSize`): `fac *
/// max(input bytes, 256)` and `fac * 256`, `fac` 10 for `half`, 4 for `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_tan_max_min_tmp_size(1024, 2, false), (20480, 2560));
/// assert_eq!(get_tan_max_min_tmp_size(16, 4, false), (1024, 1024));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0 (the vendor's host check) or `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_tan_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let _ = is_reuse_source;
    host_checks("GetTanMaxMinTmpSize", input_size, type_size);
    let fac = if type_size == 4 { 4 } else { 10 };
    (fac * (input_size * type_size).max(256), fac * 256)
}

/// `Tan`'s `(maxLiveNodeCount, extraBuf)` (AscendC `GetTanTmpBufferFactorSize`): 10 for
/// `half`, 4 for `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_tan_tmp_buffer_factor_size(2), (10, 0));
/// ```
///
/// # Panics
/// Panics if `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_tan_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    host_checks("GetTanTmpBufferFactorSize", 1, type_size);
    (if type_size == 4 { 4 } else { 10 }, 0)
}

// ---------------------------------------------------------------------------------------
// Asin, Acos
// ---------------------------------------------------------------------------------------

/// `π/2` and `√½` as the vendor's `float` constants (`HALF_PI`, `BOUNDARY`).
#[allow(clippy::excessive_precision, clippy::approx_constant)] // the vendor's literal
const HALF_PI: f32 = 1.5707963267948966192313216916398_f64 as f32;
#[allow(clippy::excessive_precision, clippy::approx_constant)] // the vendor's literal
const BOUNDARY: f32 = 0.70710678118654752440084436210485_f64 as f32;
/// The Taylor coefficients of asin (`kCOEF`): `(2n)! / (4ⁿ (n!)² (2n + 1))`.
#[allow(clippy::excessive_precision)] // the vendor's literals, as written
const ASIN_COEF: [f32; 8] = [
    1.0,
    0.16666666666666666666666666666667_f64 as f32,
    0.075,
    0.04464285714285714285714285714286_f64 as f32,
    0.03038194444444444444444444444444_f64 as f32,
    0.02237215909090909090909090909091_f64 as f32,
    0.01735276442307692307692307692308_f64 as f32,
    0.01396484375,
];

/// An element type's view of a `float` constant (`static_cast<T>`): rounded to nearest-even
/// for `half`.
trait Scalar: Element + MulsElement + AddsElement + MinsElement + MulElement + AbsElement + DivElement {
    fn of(v: f32) -> Self;
}
impl Scalar for f16 {
    fn of(v: f32) -> f16 {
        f16::from_f32(v)
    }
}
impl Scalar for f32 {
    fn of(v: f32) -> f32 {
        v
    }
}

/// The vendor's `GetSign`: `dst = m·x / (m⁻¹ + |m·x|)`, `m` `2^62` for `float`, `2^15` for
/// `half` (its constants as `T`), `den` holding the denominator.
#[track_caller]
#[allow(clippy::excessive_precision)] // the vendor's literal, as written
fn get_sign<T: Scalar>(dst: &LocalTensor<T>, src: &LocalTensor<T>, den: &LocalTensor<T>) {
    let (max, min) = if T::SIZE == 4 {
        (4611686018427387904.0, 2.168404344971009e-19_f64 as f32)
    } else {
        (32768.0, 3.0517578125e-05)
    };
    steps::muls(dst, src, T::of(max));
    steps::abs(den, dst);
    steps::adds(den, den, T::of(min));
    steps::div(dst, dst, den);
}

/// The vendor's `AsinTaylorCompute`: `dst = x·(c₀ + x²·(c₁ + … + x²·c₇))` in `T`, `x²` into
/// `sq`.
#[track_caller]
fn asin_taylor<T: Scalar>(dst: &LocalTensor<T>, src: &LocalTensor<T>, sq: &LocalTensor<T>) {
    let binary = BinaryRepeatParams::default();
    mul_masked::<T, false>(dst, src, src, MASK_PLACEHOLDER, 1, &binary);
    mul_masked::<T, false>(sq, src, src, MASK_PLACEHOLDER, 1, &binary);
    pipe_barrier::<PIPE_V>();
    steps::muls(dst, dst, T::of(ASIN_COEF[7]));
    for &c in ASIN_COEF[1..7].iter().rev() {
        steps::adds(dst, dst, T::of(c));
        steps::mul(dst, dst, sq);
    }
    steps::adds(dst, dst, T::of(ASIN_COEF[0]));
    steps::mul(dst, dst, src);
}

/// The vendor's `AsinTaylorComputeBySquareValue` in `float`: the expansion from `sq = x²`,
/// `sq` becoming `√sq` for the last product.
#[track_caller]
fn asin_taylor_by_square(dst: &LocalTensor<f32>, sq: &LocalTensor<f32>) {
    steps::muls(dst, sq, 1.0);
    steps::muls(dst, dst, ASIN_COEF[7]);
    for &c in ASIN_COEF[1..7].iter().rev() {
        steps::adds(dst, dst, c);
        steps::mul(dst, dst, sq);
    }
    steps::adds(dst, dst, ASIN_COEF[0]);
    steps::sqrt(sq, sq);
    steps::mul(dst, dst, sq);
}

/// The vendor's `AsinCompute` for `float`: `t1`, `t2` the scratch's first two tensors.
#[track_caller]
fn asin_float(dst: &LocalTensor<f32>, src: &LocalTensor<f32>, t1: &LocalTensor<f32>, t2: &LocalTensor<f32>) {
    // t2 = π/2 − taylor(√(1 − x²)).
    steps::mul(t2, src, src);
    steps::muls(t2, t2, -1.0);
    steps::adds(t2, t2, 1.0);
    steps::sqrt(dst, t2);
    asin_taylor(t2, dst, t1);
    pipe_barrier::<PIPE_V>();
    steps::muls(t2, t2, -1.0);
    steps::adds(t2, t2, HALF_PI);
    // dst = taylor(|x|) from x², t1 = √(x²).
    steps::mul(t1, src, src);
    asin_taylor_by_square(dst, t1);
    pipe_barrier::<PIPE_V>();
    // choice₁ = −floor(min(|x|, √½) − √½), choice₂ = 1 − choice₁.
    steps::mins(t1, t1, BOUNDARY);
    steps::adds(t1, t1, -BOUNDARY);
    let ti = t1.reinterpret_cast::<i32>();
    cast_masked::<i32, f32, false>(&ti, t1, RoundMode::CastFloor, MASK_PLACEHOLDER, 1, &SAME);
    pipe_barrier::<PIPE_V>();
    cast_masked::<f32, i32, false>(t1, &ti, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &SAME);
    pipe_barrier::<PIPE_V>();
    pipe_barrier::<PIPE_V>();
    steps::muls(t1, t1, -1.0);
    steps::mul(dst, dst, t1);
    steps::muls(t1, t1, -1.0);
    steps::adds(t1, t1, 1.0);
    steps::mul(t2, t2, t1);
    steps::add(dst, dst, t2);
    get_sign(t2, src, t1);
    pipe_barrier::<PIPE_V>();
    steps::mul(dst, dst, t2);
}

/// The vendor's `AsinFp16Compute`: the result in `float` in `f1` (the scratch's first `cal`
/// floats) and narrowed into `dst`; `f2` the next `cal` floats, `h1`/`h2` the `half` tensors
/// at `4·cal` and `5·cal` halves.
#[track_caller]
fn asin_half(dst: &LocalTensor<f16>, src: &LocalTensor<f16>, tmp: &LocalTensor<u8>, cal: usize) {
    let (f1, h) = (tmp.reinterpret_cast::<f32>(), tmp.reinterpret_cast::<f16>());
    let (f2, h1, h2) = (f1.view(cal), h.view(4 * cal), h.view(5 * cal));
    let widen = |d: &LocalTensor<f32>, s: &LocalTensor<f16>| {
        steps::widen(d, s);
    };
    // f1 = π/2 − taylor(√(1 − x²)) in float.
    widen(&f2, src);
    steps::mul(&f2, &f2, &f2);
    steps::muls(&f2, &f2, -1.0);
    steps::adds(&f2, &f2, 1.0);
    asin_taylor_by_square(&f1, &f2);
    pipe_barrier::<PIPE_V>();
    steps::muls(&f1, &f1, -1.0);
    steps::adds(&f1, &f1, HALF_PI);
    // dst = taylor(|x|) in half.
    steps::abs(&h2, src);
    asin_taylor(dst, &h2, &h1);
    pipe_barrier::<PIPE_V>();
    // The choices in half, through int8_t.
    steps::mins(&h2, &h2, f16::from_f32(BOUNDARY));
    steps::adds(&h2, &h2, f16::from_f32(-BOUNDARY));
    let s8 = h1.reinterpret_cast::<i8>();
    cast_masked::<i8, f16, false>(&s8, &h2, RoundMode::CastFloor, MASK_PLACEHOLDER, 1, &NARROW);
    pipe_barrier::<PIPE_V>();
    cast_masked::<f16, i8, false>(&h2, &s8, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &WIDEN);
    pipe_barrier::<PIPE_V>();
    steps::muls(&h2, &h2, f16::from_f32(-1.0));
    steps::mul(dst, dst, &h2);
    steps::muls(&h2, &h2, f16::from_f32(-1.0));
    steps::adds(&h2, &h2, f16::from_f32(1.0));
    widen(&f2, &h2);
    steps::mul(&f1, &f1, &f2);
    widen(&f2, dst);
    steps::add(&f1, &f2, &f1);
    get_sign(&h1, src, &h2);
    pipe_barrier::<PIPE_V>();
    widen(&f2, &h1);
    steps::mul(&f1, &f1, &f2);
    cast_masked::<f16, f32, false>(dst, &f1, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &NARROW);
    pipe_barrier::<PIPE_V>();
}

/// `Asin` or `Acos` (the vendor's `AsinImpl`/`AcosImpl` and `*Compute`).
#[track_caller]
fn asin_acos<T: Element>(
    acos: bool,
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    let api = if acos { ACOS } else { ASIN };
    check_common(api, &CHIPS, dst, src, count);
    check_tmp_operands(api, dst, src, shared_tmp_buffer, count, true);
    let half = T::DTYPE == DType::F16;
    let bytes = shared_tmp_buffer.get_size();
    ensure(bytes / T::SIZE > 0, api, || {
        format!("sharedTmpBuffer has {bytes} bytes, less than one {} (tmpBufferSize would be 0)", T::DTYPE)
    });
    // ASIN_HALF_CALC_PROCEDURE halves, ASIN_FLOAT_CALC_PROCEDURE floats per element.
    let proc = if half { 6 } else { 4 };
    let cal = bytes / T::SIZE / proc / ONE_BLK_SIZE * ONE_BLK_SIZE;
    ensure(cal > 0, api, || {
        format!(
            "sharedTmpBuffer has {bytes} bytes; it must hold at least {} ({proc} {} tensors of {ONE_BLK_SIZE} \
             elements; see the host's Get{api}MaxMinTmpSize)",
            T::SIZE * proc * ONE_BLK_SIZE,
            T::DTYPE
        )
    });
    counter_rounds::<T>(
        count,
        cal,
        |t| t,
        |off, _| {
            if half {
                let (d, s) =
                    (dst.reinterpret_cast::<f16>().view(off), src.reinterpret_cast::<f16>().view(off));
                asin_half(&d, &s, shared_tmp_buffer, cal);
                if acos {
                    pipe_barrier::<PIPE_V>();
                    let f1 = shared_tmp_buffer.reinterpret_cast::<f32>();
                    steps::adds(&f1, &f1, -HALF_PI);
                    steps::muls(&f1, &f1, -1.0);
                    cast_masked::<f16, f32, false>(
                        &d,
                        &f1,
                        RoundMode::CastNone,
                        MASK_PLACEHOLDER,
                        1,
                        &NARROW,
                    );
                }
            } else {
                let (d, s) =
                    (dst.reinterpret_cast::<f32>().view(off), src.reinterpret_cast::<f32>().view(off));
                let t = shared_tmp_buffer.reinterpret_cast::<f32>();
                asin_float(&d, &s, &t, &t.view(cal));
                if acos {
                    pipe_barrier::<PIPE_V>();
                    steps::adds(&d, &d, -HALF_PI);
                    muls_masked::<f32, false>(
                        &d,
                        &d,
                        -1.0,
                        MASK_PLACEHOLDER,
                        1,
                        &UnaryRepeatParams::default(),
                    );
                }
            }
        },
    );
}

/// `dst[i] = asin(src[i])` for `i < count`, with `shared_tmp_buffer` as scratch (AscendC
/// `Asin<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, calCount)`).
///
/// As the vendor's implementation: with `t(u) = u·(c₀ + u²·(c₁ + … + u²·c₇))` the degree-15
/// Taylor expansion of asin, `asin x ≈ sign(x)·(t(|x|)·a + (π/2 − t(√(1 − x²)))·(1 − a))` where
/// `a = −floor(min(|x|, √½) − √½)` is 1 below `√½` and 0 from it, and `sign(x) ≈ m·x / (m⁻¹ +
/// |m·x|)`. For `float` all in `float` (`t(|x|)` from `x²`, `|x|` as `√(x²)`, the floor through
/// `int32_t`); scratch `split = shared_tmp_buffer.get_size() / 4 / 4 / 32 * 32` elements, of
/// which the first two `float` tensors are used, `dst` holding `√(1 − x²)` and `t(|x|)`. For
/// `half`: `π/2 − t(√(1 − x²))` and the sum in `float`, but `t(|x|)`, `a` (the floor through
/// `int8_t`) and `sign(x)` (with `m = 2^15`) in `half`; `split = get_size() / 2 / 6 / 32 * 32`
/// elements, two `float` tensors then two `half` ones. One instruction per step in counter
/// mode, a `PipeBarrier<PIPE_V>` after each (the vendor's); normal mode and a reset mask
/// afterwards. `IS_REUSE_SOURCE` is reserved: `src` is never written.
///
/// The vendor's page limits inputs to `[-1, 1]` (not checked; outside, `√(1 − x²)` is NaN).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 64 * 4);
/// pipe.init_tbuf(&mut tmp, 512);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// x.copy_from_slice(&[0.5f32; 64]);
/// x.set_value(1, -0.9);
/// asin::<_, false>(&y, &x, &tmp.get::<u8>(), 64);
/// assert!((y.get_value(0) - 0.5f32.asin()).abs() < 1e-6);
/// assert!((y.get_value(1) + 0.9f32.asin()).abs() < 1e-5);
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); `count` exceeds `src` or
/// `dst`; a tensor is not in the Unified Buffer; `dst` overlaps `src`, or the scratch overlaps
/// either (the vendor's constraints); the scratch has no split (less than 384 bytes for
/// `half`, 512 for `float`); or any instruction's own check fails.
#[track_caller]
pub fn asin<T: AsinElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    asin_acos(false, dst, src, shared_tmp_buffer, count);
}

/// [`asin`] with the stack buffer as scratch (AscendC `Asin<T, isReuseSource>(dstTensor,
/// srcTensor, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 128 * 2);
/// let (x, y) = (q.get_with_offset::<f16>(128, 0), q.get_with_offset::<f16>(128, 256));
/// x.copy_from_slice(&[f16::from_f32(1.0); 128]);
/// asin_stack::<_, false>(&y, &x, 128);
/// assert!((y.get_value(0).to_f32() - std::f32::consts::FRAC_PI_2).abs() < 2e-3);
/// ```
///
/// # Panics
/// As [`asin`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn asin_stack<T: AsinElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    asin::<T, IS_REUSE_SOURCE>(dst, src, &stack_tensor(ASIN), count);
}

/// `dst[i] = acos(src[i])` for `i < count`, with `shared_tmp_buffer` as scratch (AscendC
/// `Acos<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, calCount)`).
///
/// As the vendor's implementation: [`asin`]'s steps, then `Adds(−π/2)` and `Muls(−1)` — for
/// `half` on the `float` result in the scratch, narrowed into `dst` again. Scratch, splits,
/// modes and `IS_REUSE_SOURCE` as [`asin`].
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 64 * 4);
/// pipe.init_tbuf(&mut tmp, 512);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// x.copy_from_slice(&[0.5f32; 64]);
/// x.set_value(1, -1.0);
/// acos::<_, false>(&y, &x, &tmp.get::<u8>(), 64);
/// assert!((y.get_value(0) - 0.5f32.acos()).abs() < 1e-6);
/// assert!((y.get_value(1) - std::f32::consts::PI).abs() < 1e-3);
/// ```
///
/// # Panics
/// As [`asin`].
#[track_caller]
pub fn acos<T: AcosElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    asin_acos(true, dst, src, shared_tmp_buffer, count);
}

/// [`acos`] with the stack buffer as scratch (AscendC `Acos<T, isReuseSource>(dstTensor,
/// srcTensor, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 128 * 2);
/// let (x, y) = (q.get_with_offset::<f16>(128, 0), q.get_with_offset::<f16>(128, 256));
/// x.copy_from_slice(&[f16::from_f32(0.0); 128]);
/// acos_stack::<_, false>(&y, &x, 128);
/// assert!((y.get_value(0).to_f32() - std::f32::consts::FRAC_PI_2).abs() < 1e-3);
/// ```
///
/// # Panics
/// As [`acos`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn acos_stack<T: AcosElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    acos::<T, IS_REUSE_SOURCE>(dst, src, &stack_tensor(ACOS), count);
}

/// The scratch bytes `Asin` needs: `(max, min)` (AscendC `GetAsinMaxMinTmpSize`): `fac *
/// max(input bytes, 256)` and `fac * 256`, `fac` 6 for `half`, 2 for `float` (the host's
/// factor; the kernel's split divides a `float` scratch by 4 but uses two tensors).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_asin_max_min_tmp_size(1024, 2, false), (12288, 1536));
/// assert_eq!(get_asin_max_min_tmp_size(16, 4, false), (512, 512));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0 (the vendor's host check) or `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_asin_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let _ = is_reuse_source;
    host_checks("GetAsinMaxMinTmpSize", input_size, type_size);
    let fac = if type_size == 4 { 2 } else { 6 };
    (fac * (input_size * type_size).max(256), fac * 256)
}

/// `Asin`'s `(maxLiveNodeCount, extraBuf)` (AscendC `GetAsinTmpBufferFactorSize`): 6 for
/// `half`, 2 for `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_asin_tmp_buffer_factor_size(2), (6, 0));
/// ```
///
/// # Panics
/// Panics if `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_asin_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    host_checks("GetAsinTmpBufferFactorSize", 1, type_size);
    (if type_size == 4 { 2 } else { 6 }, 0)
}

/// The scratch bytes `Acos` needs: `(max, min)` (AscendC `GetAcosMaxMinTmpSize`), as
/// [`get_asin_max_min_tmp_size`].
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_acos_max_min_tmp_size(1024, 4, false), (8192, 512));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0 (the vendor's host check) or `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_acos_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let _ = is_reuse_source;
    host_checks("GetAcosMaxMinTmpSize", input_size, type_size);
    let fac = if type_size == 4 { 2 } else { 6 };
    (fac * (input_size * type_size).max(256), fac * 256)
}

/// `Acos`'s `(maxLiveNodeCount, extraBuf)` (AscendC `GetAcosTmpBufferFactorSize`): 6 for
/// `half`, 2 for `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_acos_tmp_buffer_factor_size(4), (2, 0));
/// ```
///
/// # Panics
/// Panics if `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_acos_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    host_checks("GetAcosTmpBufferFactorSize", 1, type_size);
    (if type_size == 4 { 2 } else { 6 }, 0)
}
