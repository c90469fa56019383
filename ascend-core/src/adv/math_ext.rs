//! More math functions of the advanced API (the vendor's `adv_api/math`): the hyperbolic
//! `Sinh`, `Cosh`, `Asinh`, `Acosh` and `Atanh`, and the remainder `Fmod`, with their host
//! tiling helpers. (`Fma` exists only on Ascend 950, which is not emulated.)
//!
//! Each is computed in `float`, with the vendor's formula and instructions, in counter mode over
//! splits of the temporary buffer; `half` is widened into the buffer first and narrowed back at
//! the end. The vendor's builds implement them on Ascend910B (`__NPU_ARCH__` 2201) and
//! Ascend310P (2002) only; other chips get an error naming the chip.

use crate::element::{f16, DType, Element};
use crate::kernel::ctx::get_soc;
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::soc::Soc;
use crate::sync::{event::PIPE_V, flags::pipe_barrier};
use crate::vector::binary::{div, mul, sub};
use crate::vector::cast::{cast, cast_masked, RoundMode};
use crate::vector::duplicate::duplicate_masked;
use crate::vector::mask::MASK_PLACEHOLDER;

use super::math::trunc;
use super::steps as step;
use super::V220_V200 as CHIPS;
use super::{
    check_apart, check_common, check_tmp_operands, counter_rounds, host_checks, span, split_count,
    stack_tensor, tail_up, whole, NARROW, ONE_BLK_SIZE,
};

mod sealed {
    pub trait Sealed {}
}
impl sealed::Sealed for f16 {}
impl sealed::Sealed for f32 {}

/// Declares an API's sealed element trait (`half` and `float`), with its compile_fail doctest.
macro_rules! element_trait {
    ($name:ident, $f:ident, $args:literal) => {
        #[doc = concat!("Element types of [`", stringify!($f), "`]: `half` and `float` (the vendor's page), on the")]
        /// chips that have an implementation (Ascend910B, Ascend310P).
        ///
        /// Any other type does not compile:
        /// ```compile_fail
        /// use ascend_core::prelude::*;
        #[doc = concat!("fn f(t: &LocalTensor<i32>, tmp: &LocalTensor<u8>) { ", stringify!($f), $args, " }")]
        /// ```
        pub trait $name: Element + sealed::Sealed {}
        impl $name for f16 {}
        impl $name for f32 {}
    };
}

element_trait!(SinhElement, sinh, "::<_, false>(t, t, tmp, 8)");
element_trait!(CoshElement, cosh, "::<_, false>(t, t, tmp, 8)");
element_trait!(AsinhElement, asinh, "::<_, false>(t, t, tmp, 8)");
element_trait!(AcoshElement, acosh, "::<_, false>(t, t, tmp, 8)");
element_trait!(AtanhElement, atanh, "::<_, false>(t, t, tmp, 8)");
element_trait!(FmodElement, fmod, "::<_, false>(t, t, t, tmp, 8)");

const SINH: &str = "Sinh";
const COSH: &str = "Cosh";
const ASINH: &str = "Asinh";
const ACOSH: &str = "Acosh";
const ATANH: &str = "Atanh";
const FMOD: &str = "Fmod";

/// `-ln 2` as a `float` (the vendor's `SINH_NEG_LN_TWO` and `SCALAR_LN2`).
const NEG_LN_TWO: f32 = -std::f64::consts::LN_2 as f32;

// ---------------------------------------------------------------------------------------
// Shared steps
// ---------------------------------------------------------------------------------------

/// `dst` and `src` of a `half` function's round at `off`.
fn halves<T: Element>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    off: usize,
) -> (LocalTensor<f16>, LocalTensor<f16>) {
    (dst.reinterpret_cast::<f16>().view(off), src.reinterpret_cast::<f16>().view(off))
}

/// `dst` and `src` of a `float` function's round at `off`.
fn floats<T: Element>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    off: usize,
) -> (LocalTensor<f32>, LocalTensor<f32>) {
    (dst.reinterpret_cast::<f32>().view(off), src.reinterpret_cast::<f32>().view(off))
}

/// `Cast<half, float>` with `mode` under the mask (no barrier).
#[track_caller]
fn narrow(dst: &LocalTensor<f16>, src: &LocalTensor<f32>, mode: RoundMode) {
    cast_masked::<f16, f32, false>(dst, src, mode, MASK_PLACEHOLDER, 1, &NARROW);
}

/// `(fac * max(input bytes, 256), fac * 256)`, `fac` per type (the tilings of `Sinh`, `Cosh`,
/// `Asinh`, `Atanh` and `Fmod`).
fn fac_sizes(input_size: usize, type_size: usize, half_fac: usize, float_fac: usize) -> (usize, usize) {
    let fac = if type_size == 4 { float_fac } else { half_fac };
    (fac * (input_size * type_size).max(256), fac * 256)
}

// ---------------------------------------------------------------------------------------
// Sinh
// ---------------------------------------------------------------------------------------

/// `dst[i] = sinh(src[i])` for `i < count`, with `shared_tmp_buffer` as scratch (AscendC
/// `Sinh<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, calCount)`).
///
/// As the vendor's implementation, in `float` as `e^(x - ln2) - e^(-x - ln2)`: in counter mode,
/// splits of `shared_tmp_buffer.get_size() / size_of::<T>()` elements (over 4 for `half`) `/ 32 *
/// 32`, each for `float`: `Muls(-1)`, `Adds(-ln2)` and `Exp` into the scratch, `Adds(-ln2)` and
/// `Exp` into `dst`, `Sub(dst, dst, scratch)`; for `half`: widened into the scratch's first
/// split of floats, `Adds(-ln2)` and `Exp` into its second, `Muls(-1)`, `Adds(-ln2)` and `Exp`
/// in the first, `Sub` into the second, narrowed into `dst` (`CAST_NONE`) —
/// `PipeBarrier<PIPE_V>` after each step. Normal mode and a reset mask afterwards.
/// `IS_REUSE_SOURCE` is reserved: `src` is never written.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 64 * 4);
/// pipe.init_tbuf(&mut tmp, 256);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// x.copy_from_slice(&[1.5f32; 64]);
/// sinh::<_, false>(&y, &x, &tmp.get::<u8>(), 64);
/// assert!((y.get_value(0) - 1.5f32.sinh()).abs() < 1e-6);
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); `count` exceeds `src` or
/// `dst`; a tensor is not in the Unified Buffer; `dst` overlaps `src`, or the scratch overlaps
/// either (the vendor's constraints); the scratch has no split (less than 128 bytes for
/// `float`, 256 for `half`); or any instruction's own check fails.
#[track_caller]
pub fn sinh<T: SinhElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    check_common(SINH, &CHIPS, dst, src, count);
    check_tmp_operands(SINH, dst, src, shared_tmp_buffer, count, true);
    let half = T::DTYPE == DType::F16;
    let split = split_count(SINH, shared_tmp_buffer, T::SIZE, if half { 4 } else { 1 });
    let t1 = shared_tmp_buffer.reinterpret_cast::<f32>();
    counter_rounds::<T>(
        count,
        split,
        |_| split,
        |off, offset| {
            if half {
                let (d, s) = halves(dst, src, off);
                let t2 = t1.view(offset);
                step::widen(&t1, &s);
                step::adds(&t2, &t1, NEG_LN_TWO);
                step::exp(&t2, &t2);
                step::muls(&t1, &t1, -1.0);
                step::adds(&t1, &t1, NEG_LN_TWO);
                step::exp(&t1, &t1);
                step::sub(&t2, &t2, &t1);
                narrow(&d, &t2, RoundMode::CastNone);
                pipe_barrier::<PIPE_V>();
            } else {
                let (d, s) = floats(dst, src, off);
                step::muls(&t1, &s, -1.0);
                step::adds(&t1, &t1, NEG_LN_TWO);
                step::exp(&t1, &t1);
                step::adds(&d, &s, NEG_LN_TWO);
                step::exp(&d, &d);
                step::sub(&d, &d, &t1);
            }
        },
    );
}

/// [`sinh`] with the stack buffer as scratch (AscendC `Sinh<T, isReuseSource>(dstTensor,
/// srcTensor, calCount)`): the Unified Buffer after the core's `TPipe` buffers (see
/// [`pop_stack_buffer`](super::pop_stack_buffer)).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 128 * 2);
/// let (x, y) = (q.get_with_offset::<f16>(128, 0), q.get_with_offset::<f16>(128, 256));
/// x.copy_from_slice(&[f16::from_f32(-1.0); 128]);
/// sinh_stack::<_, false>(&y, &x, 128);
/// assert!((y.get_value(0).to_f32() + 1.1752012).abs() < 1e-3);
/// ```
///
/// # Panics
/// As [`sinh`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn sinh_stack<T: SinhElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    sinh::<T, IS_REUSE_SOURCE>(dst, src, &stack_tensor(SINH), count);
}

/// The scratch bytes `Sinh` needs for `input_size` elements of `type_size` bytes: `(max, min)`
/// (AscendC `GetSinhMaxMinTmpSize`): `fac * max(input bytes, 256)` and `fac * 256`, `fac` 4 for
/// `half`, 1 for `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_sinh_max_min_tmp_size(1024, 2, false), (8192, 1024));
/// assert_eq!(get_sinh_max_min_tmp_size(16, 4, false), (256, 256));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0 (the vendor's host check) or `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_sinh_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let _ = is_reuse_source;
    host_checks("GetSinhMaxMinTmpSize", input_size, type_size);
    fac_sizes(input_size, type_size, 4, 1)
}

/// `Sinh`'s `(maxLiveNodeCount, extraBuf)` (AscendC `GetSinhTmpBufferFactorSize`): 4 for
/// `half`, 1 for `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_sinh_tmp_buffer_factor_size(2), (4, 0));
/// ```
///
/// # Panics
/// Panics if `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_sinh_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    host_checks("GetSinhTmpBufferFactorSize", 1, type_size);
    (if type_size == 4 { 1 } else { 4 }, 0)
}

// ---------------------------------------------------------------------------------------
// Cosh
// ---------------------------------------------------------------------------------------

/// `dst[i] = cosh(src[i])` for `i < count`, with `shared_tmp_buffer` as scratch (AscendC
/// `Cosh<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, calCount)`).
///
/// As the vendor's implementation, in `float` as `y + 0.25 / y` with `y = e^(x - ln2)`: in
/// counter mode, splits of `calSize = shared_tmp_buffer.get_size() / size_of::<T>()` over 6 for
/// `half`, 2 for `float`, `/ 32 * 32`; the scratch holds `calSize`-element tensors of `T` for
/// `float` (two: `e^(x - ln2)` and `x - ln2`, then `0.25 / y`, with `dst` holding the 0.25s), of
/// `float` for `half` (three: the same two, and the widened `x`, then the 0.25s, then the sum,
/// narrowed into `dst` with `CAST_ROUND` — ties away from zero — on Ascend910B, `CAST_NONE` on
/// Ascend310P). `PipeBarrier<PIPE_V>` after each step; normal mode and a reset mask afterwards.
/// `IS_REUSE_SOURCE` is reserved: `src` is never written.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 64 * 4);
/// pipe.init_tbuf(&mut tmp, 512);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// x.copy_from_slice(&[2.0f32; 64]);
/// cosh::<_, false>(&y, &x, &tmp.get::<u8>(), 64);
/// assert!((y.get_value(0) - 2.0f32.cosh()).abs() < 1e-6);
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); `count` exceeds `src` or
/// `dst`; a tensor is not in the Unified Buffer; `dst` overlaps `src`, or the scratch overlaps
/// either (the vendor's constraints); the scratch has no split (less than 256 bytes for
/// `float`, 384 for `half`); or any instruction's own check fails.
#[track_caller]
pub fn cosh<T: CoshElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    const QUARTER: f32 = 0.25;
    check_common(COSH, &CHIPS, dst, src, count);
    check_tmp_operands(COSH, dst, src, shared_tmp_buffer, count, true);
    let bytes = shared_tmp_buffer.get_size();
    ensure(bytes / T::SIZE > 0, COSH, || {
        format!("sharedTmpBuffer has {bytes} bytes, less than one {} (tmpBufferSize would be 0)", T::DTYPE)
    });
    let half = T::DTYPE == DType::F16;
    let cal = split_count(COSH, shared_tmp_buffer, T::SIZE, if half { 6 } else { 2 });
    let f1 = shared_tmp_buffer.reinterpret_cast::<f32>();
    let soc = get_soc();
    counter_rounds::<T>(
        count,
        cal,
        |_| cal,
        |off, cal| {
            if half {
                let (d, s) = halves(dst, src, off);
                let (f2, f3) = (f1.view(cal), f1.view(2 * cal));
                step::widen(&f3, &s);
                step::adds(&f2, &f3, NEG_LN_TWO);
                step::exp(&f1, &f2);
                duplicate_masked::<f32, false>(&f3, QUARTER, MASK_PLACEHOLDER, 1, 1, 8);
                pipe_barrier::<PIPE_V>();
                step::div(&f2, &f3, &f1);
                step::add(&f3, &f1, &f2);
                let mode = if soc == Soc::Ascend910B { RoundMode::CastRound } else { RoundMode::CastNone };
                narrow(&d, &f3, mode);
                pipe_barrier::<PIPE_V>();
            } else {
                let (d, s) = floats(dst, src, off);
                let t2 = f1.view(cal);
                step::adds(&t2, &s, NEG_LN_TWO);
                step::exp(&f1, &t2);
                duplicate_masked::<f32, false>(&d, QUARTER, MASK_PLACEHOLDER, 1, 1, 8);
                pipe_barrier::<PIPE_V>();
                step::div(&t2, &d, &f1);
                step::add(&d, &f1, &t2);
            }
        },
    );
}

/// [`cosh`] with the stack buffer as scratch (AscendC `Cosh<T, isReuseSource>(dstTensor,
/// srcTensor, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 128 * 2);
/// let (x, y) = (q.get_with_offset::<f16>(128, 0), q.get_with_offset::<f16>(128, 256));
/// x.copy_from_slice(&[f16::ZERO; 128]);
/// cosh_stack::<_, false>(&y, &x, 128);
/// assert_eq!(y.get_value(0), f16::ONE);
/// ```
///
/// # Panics
/// As [`cosh`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn cosh_stack<T: CoshElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    cosh::<T, IS_REUSE_SOURCE>(dst, src, &stack_tensor(COSH), count);
}

/// The scratch bytes `Cosh` needs: `(max, min)` (AscendC `GetCoshMaxMinTmpSize`): `fac *
/// max(input bytes, 256)` and `fac * 256`, `fac` 6 for `half`, 2 for `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_cosh_max_min_tmp_size(1024, 2, false), (12288, 1536));
/// assert_eq!(get_cosh_max_min_tmp_size(16, 4, false), (512, 512));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0 (the vendor's host check) or `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_cosh_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let _ = is_reuse_source;
    host_checks("GetCoshMaxMinTmpSize", input_size, type_size);
    fac_sizes(input_size, type_size, 6, 2)
}

/// `Cosh`'s `(maxLiveNodeCount, extraBuf)` (AscendC `GetCoshTmpBufferFactorSize`): 6 for
/// `half`, 2 for `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_cosh_tmp_buffer_factor_size(4), (2, 0));
/// ```
///
/// # Panics
/// Panics if `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_cosh_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    host_checks("GetCoshTmpBufferFactorSize", 1, type_size);
    (if type_size == 4 { 2 } else { 6 }, 0)
}

// ---------------------------------------------------------------------------------------
// Atanh
// ---------------------------------------------------------------------------------------

/// `dst[i] = atanh(src[i])` for `i < count`, with `shared_tmp_buffer` as scratch (AscendC
/// `Atanh<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, calCount)`).
///
/// As the vendor's implementation, in `float` as `0.5 · ln((1 + x) / (1 - x))`: in counter mode,
/// splits of `shared_tmp_buffer.get_size() / size_of::<T>()` elements (over 4 for `half`),
/// rounded down to a multiple of 32, each for `float`: `Adds(1)` into the scratch, `Muls(-1)` and `Adds(1)` into `dst`,
/// `Div(dst, scratch, dst)`, `Ln`, `Muls(0.5)`; for `half` the same on the scratch's two float
/// tensors (`x` widened into the first, `1 + x` in the second, which starts after the split —
/// after the tail rounded up to 32 for the last round), narrowed into `dst` (`CAST_NONE`, with no
/// barrier after, as the vendor's). `PipeBarrier<PIPE_V>` after each other step; normal mode and
/// a reset mask afterwards. The vendor's page limits inputs to `(-0.99, -0.001)` and `(0.001,
/// 0.99)`. `IS_REUSE_SOURCE` is reserved: `src` is never written.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 64 * 4);
/// pipe.init_tbuf(&mut tmp, 256);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// x.copy_from_slice(&[0.5f32; 64]);
/// atanh::<_, false>(&y, &x, &tmp.get::<u8>(), 64);
/// assert!((y.get_value(0) - 0.5f32.atanh()).abs() < 1e-6);
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); `count` exceeds `src` or
/// `dst`; a tensor is not in the Unified Buffer; `dst` overlaps `src`, or the scratch overlaps
/// either (the vendor's constraints); the scratch has no split (less than 128 bytes for
/// `float`, 256 for `half`); or any instruction's own check fails.
#[track_caller]
pub fn atanh<T: AtanhElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    check_common(ATANH, &CHIPS, dst, src, count);
    check_tmp_operands(ATANH, dst, src, shared_tmp_buffer, count, true);
    let half = T::DTYPE == DType::F16;
    let split = split_count(ATANH, shared_tmp_buffer, T::SIZE, if half { 4 } else { 1 });
    let t1 = shared_tmp_buffer.reinterpret_cast::<f32>();
    counter_rounds::<T>(count, split, tail_up, |off, cal| {
        if half {
            let (d, s) = halves(dst, src, off);
            let t2 = t1.view(cal);
            step::widen(&t1, &s);
            step::adds(&t2, &t1, 1.0);
            step::muls(&t1, &t1, -1.0);
            step::adds(&t1, &t1, 1.0);
            step::div(&t1, &t2, &t1);
            step::ln(&t1, &t1);
            step::muls(&t1, &t1, 0.5);
            narrow(&d, &t1, RoundMode::CastNone);
        } else {
            let (d, s) = floats(dst, src, off);
            step::adds(&t1, &s, 1.0);
            step::muls(&d, &s, -1.0);
            step::adds(&d, &d, 1.0);
            step::div(&d, &t1, &d);
            step::ln(&d, &d);
            step::muls(&d, &d, 0.5);
        }
    });
}

/// [`atanh`] with the stack buffer as scratch (AscendC `Atanh<T, isReuseSource>(dstTensor,
/// srcTensor, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 128 * 2);
/// let (x, y) = (q.get_with_offset::<f16>(128, 0), q.get_with_offset::<f16>(128, 256));
/// x.copy_from_slice(&[f16::from_f32(-0.5); 128]);
/// atanh_stack::<_, false>(&y, &x, 100);
/// assert!((y.get_value(99).to_f32() + 0.54930615).abs() < 1e-3);
/// ```
///
/// # Panics
/// As [`atanh`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn atanh_stack<T: AtanhElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    atanh::<T, IS_REUSE_SOURCE>(dst, src, &stack_tensor(ATANH), count);
}

/// The scratch bytes `Atanh` needs: `(max, min)` (AscendC `GetAtanhMaxMinTmpSize`): `fac *
/// max(input bytes, 256)` and `fac * 256`, `fac` 4 for `half`, 1 for `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_atanh_max_min_tmp_size(1024, 2, false), (8192, 1024));
/// assert_eq!(get_atanh_max_min_tmp_size(1024, 4, false), (4096, 256));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0 (the vendor's host check) or `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_atanh_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let _ = is_reuse_source;
    host_checks("GetAtanhMaxMinTmpSize", input_size, type_size);
    fac_sizes(input_size, type_size, 4, 1)
}

/// `Atanh`'s `(maxLiveNodeCount, extraBuf)` (AscendC `GetAtanhTmpBufferFactorSize`): 4 for
/// `half`, 1 for `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_atanh_tmp_buffer_factor_size(2), (4, 0));
/// ```
///
/// # Panics
/// Panics if `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_atanh_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    host_checks("GetAtanhTmpBufferFactorSize", 1, type_size);
    (if type_size == 4 { 1 } else { 4 }, 0)
}

// ---------------------------------------------------------------------------------------
// Asinh
// ---------------------------------------------------------------------------------------

/// `dst[i] = asinh(src[i])` for `i < count`, with `shared_tmp_buffer` as scratch (AscendC
/// `Asinh<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, calCount)`).
///
/// As the vendor's implementation, in `float` as `ln(|x| + sqrt(x² + 1))` times the sign of `x`,
/// the sign computed as `x·2⁶² / (|x·2⁶²| + 2⁻⁶²)`: in counter mode, splits of
/// `shared_tmp_buffer.get_size() / 4 / 3 / 32 * 32` elements (both types); the scratch holds three
/// float tensors of the split (of the tail rounded up to 32 for the last round): `|x|` then the
/// sign, the sign's denominator, and the logarithm. For `half`, `x` is widened into the first
/// (twice: once for `|x|`, once for the sign) and the product narrowed into `dst` (`CAST_NONE`).
/// `PipeBarrier<PIPE_V>` after each step; normal mode and a reset mask afterwards. The vendor's
/// page limits inputs to `[-65504, 65504]`. `IS_REUSE_SOURCE` is reserved: `src` is never
/// written.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 64 * 4);
/// pipe.init_tbuf(&mut tmp, 768);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// x.copy_from_slice(&[-3.0f32; 64]);
/// asinh::<_, false>(&y, &x, &tmp.get::<u8>(), 64);
/// assert!((y.get_value(0) - (-3.0f32).asinh()).abs() < 1e-6);
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); `count` exceeds `src` or
/// `dst`; a tensor is not in the Unified Buffer; `dst` overlaps `src`, or the scratch overlaps
/// either (the vendor's constraints); the scratch has no split (less than 384 bytes); or any
/// instruction's own check fails.
#[track_caller]
pub fn asinh<T: AsinhElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    check_common(ASINH, &CHIPS, dst, src, count);
    check_tmp_operands(ASINH, dst, src, shared_tmp_buffer, count, true);
    let half = T::DTYPE == DType::F16;
    let split = split_count(ASINH, shared_tmp_buffer, 4, 3);
    let t1 = shared_tmp_buffer.reinterpret_cast::<f32>();
    counter_rounds::<T>(count, split, tail_up, |off, cal| {
        let (t3, t2) = (t1.view(cal), t1.view(2 * cal));
        if half {
            let (d, s) = halves(dst, src, off);
            step::widen(&t1, &s);
            step::abs(&t1, &t1);
            asinh_magnitude(&t1, &t2);
            step::widen(&t1, &s);
            asinh_sign(&t1, &t1, &t3);
            pipe_barrier::<PIPE_V>();
            step::mul(&t2, &t2, &t1);
            narrow(&d, &t2, RoundMode::CastNone);
            pipe_barrier::<PIPE_V>();
        } else {
            let (d, s) = floats(dst, src, off);
            step::abs(&t1, &s);
            asinh_magnitude(&t1, &t2);
            asinh_sign(&t1, &s, &t3);
            pipe_barrier::<PIPE_V>();
            step::mul(&d, &t2, &t1);
        }
    });
}

/// `ln(|x| + sqrt(|x|² + 1))` into `t2` from `|x|` in `abs`.
#[track_caller]
fn asinh_magnitude(abs: &LocalTensor<f32>, t2: &LocalTensor<f32>) {
    step::mul(t2, abs, abs);
    step::adds(t2, t2, 1.0);
    step::sqrt(t2, t2);
    step::add(t2, t2, abs);
    step::ln(t2, t2);
}

/// The vendor's `AsinhGetSign` (with `float`'s constants, for both types): `x·2⁶²` into `dst`,
/// its `Abs` plus `2⁻⁶²` into `den`, the quotient into `dst`.
#[track_caller]
fn asinh_sign(dst: &LocalTensor<f32>, src: &LocalTensor<f32>, den: &LocalTensor<f32>) {
    const FP_MAX: f32 = 4_611_686_018_427_387_904.0; // 2^62
    const FP_MIN: f32 = 1.0 / FP_MAX; // 2^-62
    step::muls(dst, src, FP_MAX);
    step::abs(den, dst);
    step::adds(den, den, FP_MIN);
    step::div(dst, dst, den);
}

/// [`asinh`] with the stack buffer as scratch (AscendC `Asinh<T, isReuseSource>(dstTensor,
/// srcTensor, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 128 * 2);
/// let (x, y) = (q.get_with_offset::<f16>(128, 0), q.get_with_offset::<f16>(128, 256));
/// x.copy_from_slice(&[f16::from_f32(1.0); 128]);
/// asinh_stack::<_, false>(&y, &x, 128);
/// assert!((y.get_value(0).to_f32() - 0.8813736).abs() < 1e-3);
/// ```
///
/// # Panics
/// As [`asinh`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn asinh_stack<T: AsinhElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    asinh::<T, IS_REUSE_SOURCE>(dst, src, &stack_tensor(ASINH), count);
}

/// The scratch bytes `Asinh` needs: `(max, min)` (AscendC `GetAsinhMaxMinTmpSize`): `3 *
/// max(input bytes, 256)` and 768, for both types (the vendor's numbers: for `half`, whose
/// rounds the kernel counts in floats, the maximum is half what one round of all the input
/// takes, so it computes in two rounds).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_asinh_max_min_tmp_size(1024, 2, false), (6144, 768));
/// assert_eq!(get_asinh_max_min_tmp_size(1024, 4, false), (12288, 768));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0 (the vendor's host check) or `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_asinh_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let _ = is_reuse_source;
    host_checks("GetAsinhMaxMinTmpSize", input_size, type_size);
    fac_sizes(input_size, type_size, 3, 3)
}

/// `Asinh`'s `(maxLiveNodeCount, extraBuf)` (AscendC `GetAsinhTmpBufferFactorSize`): 3 for both
/// types.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_asinh_tmp_buffer_factor_size(2), (3, 0));
/// ```
///
/// # Panics
/// Panics if `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_asinh_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    host_checks("GetAsinhTmpBufferFactorSize", 1, type_size);
    (3, 0)
}

// ---------------------------------------------------------------------------------------
// Acosh
// ---------------------------------------------------------------------------------------

/// `dst[i] = acosh(src[i])` for `i < count`, with `shared_tmp_buffer` as scratch (AscendC
/// `Acosh<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, calCount)`).
///
/// As the vendor's implementation, in `float` as `ln(x + sqrt(x² - 1))`: in counter mode, splits
/// of `shared_tmp_buffer.get_size() / 4` elements (over 2 for `half`) `/ 32 * 32`, each for
/// `float`: `Mul(x, x)`, `Adds(-1)`, `Sqrt`, `Add(x, ·)` in the scratch, then — as the vendor
/// writes it — `Div(dst, s, s)` (1, or NaN where `s` is 0, ∞ or NaN) and `Mul(s, s, dst)`, and
/// `Ln` into `dst`; for `half` the same with `x` widened into the scratch's first float tensor and
/// the sum in the second (after the split, or the tail rounded up to 32), the quotient in the
/// first, the logarithm narrowed into `dst` (`CAST_NONE`). `PipeBarrier<PIPE_V>` after each step;
/// normal mode and a reset mask afterwards. The vendor's page limits inputs to `[1, 65504]`.
/// `IS_REUSE_SOURCE` is reserved: `src` is never written.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 64 * 4);
/// pipe.init_tbuf(&mut tmp, 256);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// x.copy_from_slice(&[2.0f32; 64]);
/// acosh::<_, false>(&y, &x, &tmp.get::<u8>(), 64);
/// assert!((y.get_value(0) - 2.0f32.acosh()).abs() < 1e-6);
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); `count` exceeds `src` or
/// `dst`; a tensor is not in the Unified Buffer; `dst` overlaps `src`, or the scratch overlaps
/// either (the vendor's constraints); the scratch has no split (less than 128 bytes for
/// `float`, 256 for `half`); or any instruction's own check fails.
#[track_caller]
pub fn acosh<T: AcoshElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    check_common(ACOSH, &CHIPS, dst, src, count);
    check_tmp_operands(ACOSH, dst, src, shared_tmp_buffer, count, true);
    let half = T::DTYPE == DType::F16;
    let split = split_count(ACOSH, shared_tmp_buffer, 4, if half { 2 } else { 1 });
    let t1 = shared_tmp_buffer.reinterpret_cast::<f32>();
    counter_rounds::<T>(count, split, tail_up, |off, cal| {
        if half {
            let (d, s) = halves(dst, src, off);
            let t2 = t1.view(cal);
            step::widen(&t1, &s);
            step::mul(&t2, &t1, &t1);
            step::adds(&t2, &t2, -1.0);
            step::sqrt(&t2, &t2);
            step::add(&t2, &t2, &t1);
            step::div(&t1, &t2, &t2);
            step::mul(&t2, &t2, &t1);
            step::ln(&t2, &t2);
            narrow(&d, &t2, RoundMode::CastNone);
            pipe_barrier::<PIPE_V>();
        } else {
            let (d, s) = floats(dst, src, off);
            step::mul(&t1, &s, &s);
            step::adds(&t1, &t1, -1.0);
            step::sqrt(&t1, &t1);
            step::add(&t1, &s, &t1);
            step::div(&d, &t1, &t1);
            step::mul(&t1, &t1, &d);
            step::ln(&d, &t1);
        }
    });
}

/// [`acosh`] with the stack buffer as scratch (AscendC `Acosh<T, isReuseSource>(dstTensor,
/// srcTensor, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 128 * 2);
/// let (x, y) = (q.get_with_offset::<f16>(128, 0), q.get_with_offset::<f16>(128, 256));
/// x.copy_from_slice(&[f16::ONE; 128]);
/// acosh_stack::<_, false>(&y, &x, 128);
/// assert_eq!(y.get_value(0), f16::ZERO);
/// ```
///
/// # Panics
/// As [`acosh`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn acosh_stack<T: AcoshElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    acosh::<T, IS_REUSE_SOURCE>(dst, src, &stack_tensor(ACOSH), count);
}

/// The scratch bytes `Acosh` needs: `(max, min)` (AscendC `GetAcoshMaxMinTmpSize`): `max(fac *
/// input_size, 256) * type_size` and `fac * 256`, `fac` 2 for `half`, 1 for `float` (the
/// vendor's numbers: for `half` the maximum is half what one round of all the input takes, so
/// it computes in two rounds).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_acosh_max_min_tmp_size(1024, 2, false), (4096, 512));
/// assert_eq!(get_acosh_max_min_tmp_size(16, 4, false), (1024, 256));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0 (the vendor's host check) or `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_acosh_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let _ = is_reuse_source;
    host_checks("GetAcoshMaxMinTmpSize", input_size, type_size);
    let fac = if type_size == 4 { 1 } else { 2 };
    ((fac * input_size).max(256) * type_size, fac * 256)
}

/// `Acosh`'s `(maxLiveNodeCount, extraBuf)` (AscendC `GetAcoshTmpBufferFactorSize`): 2 for
/// `half`, 1 for `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_acosh_tmp_buffer_factor_size(2), (2, 0));
/// ```
///
/// # Panics
/// Panics if `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_acosh_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    host_checks("GetAcoshTmpBufferFactorSize", 1, type_size);
    (if type_size == 4 { 1 } else { 2 }, 0)
}

// ---------------------------------------------------------------------------------------
// Fmod
// ---------------------------------------------------------------------------------------

/// `dst[i] = src0[i] - trunc(src0[i] / src1[i]) · src1[i]` for `i < count`, with
/// `shared_tmp_buffer` as scratch (AscendC `Fmod<T, isReuseSource>(dstTensor, src0Tensor,
/// src1Tensor, sharedTmpBuffer, calCount)`).
///
/// As the vendor's implementation, with the count forms of the basic instructions:
/// - `float`: `Div(dst, src0, src1)`, the advanced `Trunc(dst, dst, shared_tmp_buffer)`
///   ([`trunc`]: a `float → float` `Cast` with `CAST_TRUNC` on Ascend910B, through `int32_t` on
///   Ascend310P, so the quotient saturates there — the page limits inputs to `±2147483647` on
///   it), `Mul(dst, dst, src1)`, `Sub(dst, src0, dst)`, with `PipeBarrier<PIPE_V>` around each;
/// - `half`: rounds of `stackSize = shared_tmp_buffer.get_size() / 2 / 8 / 32 * 32` elements
///   (at most `src0.get_size()`), each `src0` and `src1` widened into the scratch's second and
///   third float tensors of `stackSize`, the `float` steps into its first (with the bytes after
///   the three tensors as `Trunc`'s scratch), narrowed into `dst` (`CAST_NONE`).
///
/// The result is not the exact remainder C's `fmod` gives: the quotient is rounded before it is
/// truncated, and the product and difference are rounded. `IS_REUSE_SOURCE` is reserved: the
/// sources are never written.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 3 * 64 * 4);
/// pipe.init_tbuf(&mut tmp, 256);
/// let a = q.get_with_offset::<f32>(64, 0);
/// let (b, y) = (q.get_with_offset::<f32>(64, 256), q.get_with_offset::<f32>(64, 512));
/// a.copy_from_slice(&[-3.0f32; 64]);
/// b.copy_from_slice(&[1.1f32; 64]);
/// fmod::<_, false>(&y, &a, &b, &tmp.get::<u8>(), 64);
/// assert!((y.get_value(0) + 0.8).abs() < 1e-6); // the page's Fmod(-3.0, 1.1) = -0.8
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); `count` exceeds `src0`,
/// `src1` or `dst`; `src0` and `src1` differ in size (the vendor's page); a tensor is not in the
/// Unified Buffer; `dst` overlaps `src0` or `src1`, or the scratch overlaps any of them (the
/// vendor's constraints); for `half` the scratch has no round (less than 512 bytes); `Trunc`'s
/// scratch is too small (less than 128 bytes for `float`); or any instruction's own check fails
/// (for `half`, a `src0` shorter than the round and not a multiple of 8 elements misaligns the
/// scratch's tensors).
#[track_caller]
pub fn fmod<T: FmodElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src0: &LocalTensor<T>,
    src1: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    let soc = get_soc();
    ensure(CHIPS.contains(&soc), FMOD, || {
        format!(
            "{FMOD} has no implementation on {soc} ({}): the vendor's library compiles it to nothing there; it runs \
             on Ascend910B, Ascend310P",
            soc.product_line()
        )
    });
    for (name, pos) in
        [("dst", dst.get_position()), ("src0", src0.get_position()), ("src1", src1.get_position())]
    {
        ensure(pos.is_ub(), FMOD, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
    }
    for (name, size) in
        [("src0Tensor", src0.get_size()), ("src1Tensor", src1.get_size()), ("dstTensor", dst.get_size())]
    {
        ensure(count <= size, FMOD, || {
            format!("calCount = {count} exceeds {name}'s {size} {} elements", T::DTYPE)
        });
    }
    ensure(src0.get_size() == src1.get_size(), FMOD, || {
        format!(
            "src0Tensor has {} elements and src1Tensor {}; the vendor's page requires the same length",
            src0.get_size(),
            src1.get_size()
        )
    });
    let pos = shared_tmp_buffer.get_position();
    ensure(pos.is_ub(), FMOD, || {
        format!("sharedTmpBuffer is at position {pos}; it must be VECIN, VECOUT or VECCALC")
    });
    let (d, s0, s1) = (span("dst", dst, count), span("src0", src0, count), span("src1", src1, count));
    let t = whole("sharedTmpBuffer", shared_tmp_buffer);
    check_apart(FMOD, &[(d, s0), (d, s1), (t, s0), (t, s1), (t, d)]);
    if T::DTYPE == DType::F32 {
        let d = dst.reinterpret_cast::<f32>();
        let (a, b) = (src0.reinterpret_cast::<f32>(), src1.reinterpret_cast::<f32>());
        fmod_compute(&d, &a, &b, shared_tmp_buffer, count);
        return;
    }
    let bytes = shared_tmp_buffer.get_size();
    let stack = bytes / 2 / 8 / ONE_BLK_SIZE * ONE_BLK_SIZE;
    ensure(stack > 0, FMOD, || {
        format!(
            "sharedTmpBuffer has {bytes} bytes; it must hold at least {} (one round of {ONE_BLK_SIZE} elements; see \
             the host's GetFmodMaxMinTmpSize)",
            2 * 8 * ONE_BLK_SIZE
        )
    });
    let stack = stack.min(src0.get_size());
    let (d, a, b) =
        (dst.reinterpret_cast::<f16>(), src0.reinterpret_cast::<f16>(), src1.reinterpret_cast::<f16>());
    let f = shared_tmp_buffer.reinterpret_cast::<f32>();
    let (t0, t1) = (f.view(stack), f.view(2 * stack));
    let trunc_tmp = shared_tmp_buffer.view(3 * stack * 4);
    let (rounds, tail) = (count / stack, count % stack);
    let compute = |off: usize, n: usize| {
        pipe_barrier::<PIPE_V>();
        cast(&t0, &a.view(off), RoundMode::CastNone, n);
        cast(&t1, &b.view(off), RoundMode::CastNone, n);
        pipe_barrier::<PIPE_V>();
        fmod_compute(&f, &t0, &t1, &trunc_tmp, n);
        cast(&d.view(off), &f, RoundMode::CastNone, n);
        pipe_barrier::<PIPE_V>();
    };
    for i in 0..rounds {
        compute(i * stack, stack);
    }
    if tail > 0 {
        compute(rounds * stack, tail);
    }
}

/// The vendor's `FmodCompute` for `float`.
#[track_caller]
fn fmod_compute(
    dst: &LocalTensor<f32>,
    src0: &LocalTensor<f32>,
    src1: &LocalTensor<f32>,
    tmp: &LocalTensor<u8>,
    count: usize,
) {
    pipe_barrier::<PIPE_V>();
    div(dst, src0, src1, count);
    pipe_barrier::<PIPE_V>();
    trunc::<f32, false>(dst, dst, tmp, count);
    pipe_barrier::<PIPE_V>();
    mul(dst, dst, src1, count);
    pipe_barrier::<PIPE_V>();
    sub(dst, src0, dst, count);
    pipe_barrier::<PIPE_V>();
}

/// [`fmod`] with the stack buffer as scratch (AscendC `Fmod<T, isReuseSource>(dstTensor,
/// src0Tensor, src1Tensor, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 3 * 128 * 2);
/// let a = q.get_with_offset::<f16>(128, 0);
/// let (b, y) = (q.get_with_offset::<f16>(128, 256), q.get_with_offset::<f16>(128, 512));
/// a.copy_from_slice(&[f16::from_f32(2.0); 128]);
/// b.copy_from_slice(&[f16::from_f32(1.5); 128]);
/// fmod_stack::<_, false>(&y, &a, &b, 128);
/// assert_eq!(y.get_value(0), f16::from_f32(0.5)); // the page's Fmod(2.0, 1.5)
/// ```
///
/// # Panics
/// As [`fmod`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn fmod_stack<T: FmodElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src0: &LocalTensor<T>,
    src1: &LocalTensor<T>,
    count: usize,
) {
    fmod::<T, IS_REUSE_SOURCE>(dst, src0, src1, &stack_tensor(FMOD), count);
}

/// The scratch bytes `Fmod` needs: `(max, min)` (AscendC `GetFmodMaxMinTmpSize`): `Trunc`'s
/// factor (2 for `half`, 1 for `float`) plus 6 for `half`'s three float tensors, times
/// `max(input bytes, 256)` and 256.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_fmod_max_min_tmp_size(1024, 2, false), (16384, 2048));
/// assert_eq!(get_fmod_max_min_tmp_size(1024, 4, false), (4096, 256));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0 (the vendor's host check) or `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_fmod_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let _ = is_reuse_source;
    host_checks("GetFmodMaxMinTmpSize", input_size, type_size);
    fac_sizes(input_size, type_size, 2 + 6, 1)
}

/// `Fmod`'s `(maxLiveNodeCount, extraBuf)` (AscendC `GetFmodTmpBufferFactorSize`): `Trunc`'s
/// plus 6 for `half` (8), `Trunc`'s for `float` (1).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_fmod_tmp_buffer_factor_size(2), (8, 0));
/// ```
///
/// # Panics
/// Panics if `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_fmod_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    host_checks("GetFmodTmpBufferFactorSize", 1, type_size);
    (if type_size == 4 { 1 } else { 8 }, 0)
}
