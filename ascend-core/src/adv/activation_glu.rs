//! `Silu`, `Swish` and the gated linear units `SwiGLU`, `ReGlu` and `GeGLU` of the advanced API
//! (the vendor's `adv_api/activation`), written as the vendor's `*_common_impl.h` (and, for
//! `ReGlu`, `reglu_v220_impl.h`/`reglu_v200_impl.h`) write them for Ascend910B and Ascend310P,
//! with the host-side tiling helpers.
//!
//! All of them run in counter mask mode on these chips and leave the core in normal mode with
//! the full mask (`SetMaskNorm`, `ResetMask`). In counter mode the mask is the element count,
//! so `count = 0` fails at the vendor's `SetVectorMask(0, 0)`, as any counter-mode instruction
//! would with a zero count.
//!
//! Chips: the vendor's pages list all five for Ascend910B and Ascend310P only. `ReGlu`'s header
//! compiles it to nothing elsewhere; `Silu`, `Swish`, `SwiGLU` and `GeGLU`'s headers would build
//! their common implementation on any chip, but the pages mark Ascend910 and Ascend310B
//! unsupported, so those chips fail here too, with a message saying so.

use crate::element::{bf16, f16, DType, Element};
use crate::kernel::ctx::get_soc;
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::soc::Soc;
use crate::sync::{event::PIPE_V, flags::pipe_barrier};
use crate::vector::binary::{div_masked, mul_masked, DivElement};
use crate::vector::cast::{cast_masked, RoundMode};
use crate::vector::mask::{reset_mask, set_mask_count, set_mask_norm, set_vector_mask, MASK_PLACEHOLDER};
use crate::vector::params::{BinaryRepeatParams, UnaryRepeatParams};
use crate::vector::scalar::{adds_masked, maxs_masked, muls_masked, AddsElement, MulsElement};
use crate::vector::unary::{exp_masked, ExpElement};

use super::steps;
use super::V220_V200 as CHIPS;
use super::{check_apart, check_common, check_documented_chip, host_checks, span, stack_tensor};
use super::{NARROW, ONE_BLK_SIZE, WIDEN};

mod sealed {
    pub trait Sealed {}
}

/// [`CHIPS`] in messages.
const LISTED: &str = "Ascend910B and Ascend310P";

/// The checks of the GLU forms: the chip, positions, `count` against every tensor, the
/// sources' equal sizes where the vendor asserts them, the scratch's minimum and the overlaps.
#[allow(clippy::too_many_arguments)]
#[track_caller]
fn check_glu<T: Element>(
    api: &'static str,
    documented_only: bool,
    dst: &LocalTensor<T>,
    src0: &LocalTensor<T>,
    src1: &LocalTensor<T>,
    tmp: &LocalTensor<u8>,
    count: usize,
    same_sizes: bool,
    min_tmp: usize,
) {
    if documented_only {
        check_documented_chip(api, &CHIPS, LISTED);
    }
    check_common(api, &CHIPS, dst, src0, count);
    let pos = src1.get_position();
    ensure(pos.is_ub(), api, || {
        format!("srcTensor1 is at position {pos}; it must be VECIN, VECOUT or VECCALC")
    });
    ensure(count <= src1.get_size(), api, || {
        format!("calCount = {count} exceeds srcTensor1's {} {} elements", src1.get_size(), T::DTYPE)
    });
    let pos = tmp.get_position();
    ensure(pos.is_ub(), api, || {
        format!("sharedTmpBuffer is at position {pos}; it must be VECIN, VECOUT or VECCALC")
    });
    if same_sizes {
        ensure(src0.get_size() == src1.get_size(), api, || {
            format!(
                "srcTensor0 has {} elements and srcTensor1 {}; their sizes must be equal",
                src0.get_size(),
                src1.get_size()
            )
        });
    }
    ensure(tmp.get_size() >= min_tmp, api, || {
        format!(
            "sharedTmpBuffer has {} bytes, less than the {min_tmp} bytes {api} needs for {} (the minimum of \
             Get{api}MaxMinTmpSize)",
            tmp.get_size(),
            T::DTYPE
        )
    });
    let (d, s0, s1) = (span("dst", dst, count), span("src0", src0, count), span("src1", src1, count));
    let t = ("sharedTmpBuffer", tmp.get_phy_addr(), tmp.get_phy_addr() + tmp.get_size());
    check_apart(api, &[(d, s0), (d, s1), (t, s0), (t, s1), (t, d)]);
}

/// A `T` tensor seen as `U` (the same type: the vendor's `if constexpr` branches).
fn as_<T: Element, U: Element>(t: &LocalTensor<T>) -> LocalTensor<U> {
    debug_assert_eq!(T::DTYPE, U::DTYPE);
    t.reinterpret_cast::<U>()
}

// ---- Silu and Swish ------------------------------------------------------------------------

/// Element types of [`silu`]: `half` and `float` (the vendor's page).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<i32>) { silu::<_, false>(t, t, 8) }
/// ```
pub trait SiluElement:
    Element + MulsElement + ExpElement + AddsElement + DivElement + sealed::Sealed
{
    /// `-1` in this type.
    #[doc(hidden)]
    const MINUS_ONE: Self;
    /// `1` in this type.
    #[doc(hidden)]
    const ONE: Self;
    /// `-x`, as the vendor's `static_cast<T>(-1.0f * static_cast<float>(x))` (exact).
    #[doc(hidden)]
    fn neg(self) -> Self;
}
impl sealed::Sealed for f16 {}
impl SiluElement for f16 {
    const MINUS_ONE: f16 = f16::NEG_ONE;
    const ONE: f16 = f16::ONE;
    fn neg(self) -> f16 {
        -self
    }
}
impl sealed::Sealed for f32 {}
impl SiluElement for f32 {
    const MINUS_ONE: f32 = -1.0;
    const ONE: f32 = 1.0;
    fn neg(self) -> f32 {
        -self
    }
}

/// Element types of [`swish`]: `half` and `float` (the vendor's page).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<i16>) { swish::<_, false>(t, t, 8, 1) }
/// ```
pub trait SwishElement: SiluElement {}
impl SwishElement for f16 {}
impl SwishElement for f32 {}

const SILU: &str = "Silu";
const SWISH: &str = "Swish";

/// The vendor's `SiluCalcSimplified`/`SwishCalcSimplified` with one repeat under the counter
/// mask: `dst = src / (1 + exp(scalar * src))`.
#[track_caller]
fn swish_calc<T: SiluElement>(dst: &LocalTensor<T>, src: &LocalTensor<T>, scalar: T) {
    let (unary, binary) = (UnaryRepeatParams::default(), BinaryRepeatParams::default());
    muls_masked::<T, false>(dst, src, scalar, MASK_PLACEHOLDER, 1, &unary);
    pipe_barrier::<PIPE_V>();
    exp_masked::<T, false>(dst, dst, MASK_PLACEHOLDER, 1, &unary);
    pipe_barrier::<PIPE_V>();
    adds_masked::<T, false>(dst, dst, T::ONE, MASK_PLACEHOLDER, 1, &unary);
    pipe_barrier::<PIPE_V>();
    div_masked::<T, false>(dst, src, dst, MASK_PLACEHOLDER, 1, &binary);
    pipe_barrier::<PIPE_V>();
}

/// `dst[i] = src[i] / (1 + exp(-src[i]))` for `i < count` (AscendC `Silu<T,
/// isReuseSource>(dstLocal, srcLocal, dataSize)`; it has no temporary buffer).
///
/// As the vendor's `silu_common_impl.h` on Ascend910B and Ascend310P: counter mode with
/// `count` elements, `Muls(-1)`, `Exp`, `Adds(1)` and `Div(src, ·)`, each followed by
/// `PipeBarrier<PIPE_V>`; then normal mode and the full mask. `IS_REUSE_SOURCE` is reserved.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 64 * 4);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// x.copy_from_slice(&[2.0f32; 64]);
/// silu::<_, false>(&y, &x, 40);
/// assert_eq!(y.get_value(0), 2.0 / (1.0 + ((-2.0f64).exp() as f32)));
/// ```
///
/// # Panics
/// Panics if the chip is not Ascend910B or Ascend310P; `count` exceeds `src` or `dst`, or is 0;
/// a tensor is not in the Unified Buffer; `dst` overlaps `src` (the vendor's page forbids it);
/// or any instruction's own check fails.
#[track_caller]
pub fn silu<T: SiluElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    check_documented_chip(SILU, &CHIPS, LISTED);
    check_common(SILU, &CHIPS, dst, src, count);
    check_apart(SILU, &[(span("dstLocal", dst, count), span("srcLocal", src, count))]);
    set_mask_count();
    set_vector_mask::<T>(count as u64);
    swish_calc(dst, src, T::MINUS_ONE);
    set_mask_norm();
    reset_mask();
}

/// `dst[i] = src[i] / (1 + exp(-scalar_value * src[i]))` for `i < count` (AscendC `Swish<T,
/// isReuseSource>(dstLocal, srcLocal, dataSize, scalarValue)`, `scalarValue` being β; it has no
/// temporary buffer).
///
/// As the vendor's `swish_common_impl.h` on Ascend910B and Ascend310P: `-β` in `T`, then
/// counter mode with `count` elements, `Muls(-β)`, `Exp`, `Adds(1)` and `Div(src, ·)`, each
/// followed by `PipeBarrier<PIPE_V>`; then normal mode and the full mask. `IS_REUSE_SOURCE` is
/// reserved.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 32 * 2);
/// let (x, y) = (q.get_with_offset::<f16>(32, 0), q.get_with_offset::<f16>(32, 64));
/// x.copy_from_slice(&[f16::ZERO; 32]);
/// swish::<_, false>(&y, &x, 32, f16::from_f32(1.5));
/// assert_eq!(y.get_value(31), f16::ZERO);
/// ```
///
/// # Panics
/// As [`silu`].
#[track_caller]
pub fn swish<T: SwishElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
    scalar_value: T,
) {
    check_documented_chip(SWISH, &CHIPS, LISTED);
    check_common(SWISH, &CHIPS, dst, src, count);
    check_apart(SWISH, &[(span("dstLocal", dst, count), span("srcLocal", src, count))]);
    let scalar = scalar_value.neg();
    set_mask_count();
    set_vector_mask::<T>(count as u64);
    swish_calc(dst, src, scalar);
    set_mask_norm();
    reset_mask();
}

/// The scratch bytes `Silu` needs: `(max, min)` = `(0, 0)` — it uses none (AscendC's host-side
/// `GetSiluTmpSize(srcShape, typeSize, isReuseSource, maxValue, minValue)`, which ignores its
/// arguments).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_silu_tmp_size(1024, 2, false), (0, 0));
/// ```
///
/// # Panics
/// Never.
pub fn get_silu_tmp_size(input_size: usize, type_size: usize, is_reuse_source: bool) -> (usize, usize) {
    let _ = (input_size, type_size, is_reuse_source);
    (0, 0)
}

/// The scratch bytes `Swish` needs: `(max, min)` = `(0, 0)` — it uses none (AscendC's
/// host-side `GetSwishTmpSize(srcShape, typeSize, isReuseSource, maxValue, minValue)`, which
/// ignores its arguments).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_swish_tmp_size(1024, 4, false), (0, 0));
/// ```
///
/// # Panics
/// Never.
pub fn get_swish_tmp_size(input_size: usize, type_size: usize, is_reuse_source: bool) -> (usize, usize) {
    let _ = (input_size, type_size, is_reuse_source);
    (0, 0)
}

// ---- SwiGLU ---------------------------------------------------------------------------------

/// Element types of [`swiglu`]: `half` and `float` (the vendor's page).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<bf16>, tmp: &LocalTensor<u8>) { swiglu::<_, false>(t, t, t, 1.0, tmp, 8) }
/// ```
pub trait SwiGluElement: Element + sealed::Sealed {}
impl SwiGluElement for f16 {}
impl SwiGluElement for f32 {}

const SWIGLU: &str = "SwiGLU";
/// `SWIGLU_HALF_TMP_SIZE * SWIGLU_ONE_REPEAT_BYTE_SIZE`: the minimum scratch for `half`.
const SWIGLU_HALF_MIN: usize = 6 * 256;

/// `Swish` on `float` tensors with one repeat under the counter mask (the vendor's `float`
/// `SwishCalcSimplified` in `swiglu_common_impl.h`).
#[track_caller]
fn swish_f32(dst: &LocalTensor<f32>, src: &LocalTensor<f32>, scalar: f32) {
    swish_calc(dst, src, scalar);
}

/// `dst[i] = src0[i] * src1[i] / (1 + exp(-scalar_value * src1[i]))` for `i < count`, with
/// `shared_tmp_buffer` as scratch (AscendC `SwiGLU<T, isReuseSource>(dstTensor, srcTensor0,
/// srcTensor1, scalarValue, sharedTmpBuffer, calCount)`, `scalarValue` being β).
///
/// As the vendor's `swiglu_common_impl.h`, in counter mode:
/// - `float`: rounds of `count` rounded down to a whole block (8 elements; 8 if that is 0),
///   then the tail: `Muls(-β)`, `Exp`, `Adds(1)`, `Div(src1, ·)` into `dst`, then
///   `Mul(src0, dst)`, each followed by `PipeBarrier<PIPE_V>`; the scratch is not used.
/// - `half`: rounds of `stackSize = shared_tmp_buffer.get_size() / 4 / 3` elements rounded down
///   to a whole block, each casting `src1` to `float` at scratch `[0, n)`, `Swish` into
///   `[n, 2n)`, casting `src0` into `[2n, 3n)`, multiplying and casting back to `dst` (`n` is
///   `stackSize`, and for the tail the tail rounded up to a whole block).
///
/// Then normal mode and the full mask. `IS_REUSE_SOURCE` is reserved.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 3 * 64 * 2);
/// pipe.init_tbuf(&mut tmp, 1536);
/// let a = q.get_with_offset::<f16>(64, 0);
/// let (b, y) = (q.get_with_offset::<f16>(64, 128), q.get_with_offset::<f16>(64, 256));
/// a.copy_from_slice(&[f16::from_f32(3.0); 64]);
/// b.copy_from_slice(&[f16::ZERO; 64]);
/// swiglu::<_, false>(&y, &a, &b, 1.0, &tmp.get::<u8>(), 64);
/// assert_eq!(y.get_value(5), f16::ZERO);
/// ```
///
/// # Panics
/// Panics if the chip is not Ascend910B or Ascend310P; `count` exceeds a tensor; the
/// sources' sizes differ; a tensor is not in the Unified Buffer; `half`'s scratch is under
/// 1536 bytes (the minimum of [`get_swiglu_max_min_tmp_size`]); `dst` overlaps a source, or
/// the scratch overlaps any tensor (the vendor's page); or any instruction's own check fails.
#[track_caller]
pub fn swiglu<T: SwiGluElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src0: &LocalTensor<T>,
    src1: &LocalTensor<T>,
    scalar_value: f32,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    let half = T::DTYPE == DType::F16;
    let min = if half { SWIGLU_HALF_MIN } else { 0 };
    check_glu(SWIGLU, true, dst, src0, src1, shared_tmp_buffer, count, true, min);
    let tmp = shared_tmp_buffer.reinterpret_cast::<f32>();
    let mut stack_size = if half { shared_tmp_buffer.get_size() / 4 / 3 } else { count };
    stack_size = stack_size * T::SIZE / ONE_BLK_SIZE * ONE_BLK_SIZE / T::SIZE;
    if stack_size == 0 {
        stack_size = ONE_BLK_SIZE / T::SIZE;
    }
    let (rounds, tail) = (count / stack_size, count % stack_size);
    let scalar = -scalar_value;
    let body = |off: usize, n: usize| {
        if half {
            swiglu_half(&as_(&dst.view(off)), &as_(&src0.view(off)), &as_(&src1.view(off)), scalar, &tmp, n);
        } else {
            let d = as_::<T, f32>(&dst.view(off));
            swish_f32(&d, &as_(&src1.view(off)), scalar);
            mul_masked::<f32, false>(
                &d,
                &as_(&src0.view(off)),
                &d,
                MASK_PLACEHOLDER,
                1,
                &BinaryRepeatParams::default(),
            );
            pipe_barrier::<PIPE_V>();
        }
    };
    set_mask_count();
    set_vector_mask::<T>(stack_size as u64);
    for i in 0..rounds {
        body(i * stack_size, stack_size);
    }
    if tail != 0 {
        let tail_aligned = (tail * T::SIZE).div_ceil(ONE_BLK_SIZE) * ONE_BLK_SIZE / T::SIZE;
        set_vector_mask::<T>(tail as u64);
        body(rounds * stack_size, tail_aligned);
    }
    set_mask_norm();
    reset_mask();
}

/// The vendor's `SwiGLUImpl<half>` round: `n` sets the scratch layout.
#[track_caller]
fn swiglu_half(
    dst: &LocalTensor<f16>,
    src0: &LocalTensor<f16>,
    src1: &LocalTensor<f16>,
    scalar: f32,
    tmp: &LocalTensor<f32>,
    n: usize,
) {
    let (x1, y, x0) = (tmp.view(0), tmp.view(n), tmp.view(2 * n));
    steps::widen(&x1, src1);
    swish_f32(&y, &x1, scalar);
    steps::widen(&x0, src0);
    mul_masked::<f32, false>(&y, &x0, &y, MASK_PLACEHOLDER, 1, &BinaryRepeatParams::default());
    pipe_barrier::<PIPE_V>();
    cast_masked::<f16, f32, false>(dst, &y, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &NARROW);
    pipe_barrier::<PIPE_V>();
}

/// [`swiglu`] with the stack buffer as scratch (AscendC `SwiGLU<T, isReuseSource>(dstTensor,
/// srcTensor0, srcTensor1, scalarValue, calCount)`): the Unified Buffer after the core's `TPipe`
/// buffers (see [`pop_stack_buffer`](super::pop_stack_buffer)).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 3 * 16 * 4);
/// let a = q.get_with_offset::<f32>(16, 0);
/// let (b, y) = (q.get_with_offset::<f32>(16, 64), q.get_with_offset::<f32>(16, 128));
/// a.copy_from_slice(&[2.0f32; 16]);
/// b.copy_from_slice(&[2.0f32; 16]);
/// swiglu_stack::<_, false>(&y, &a, &b, 1.0, 16);
/// assert_eq!(y.get_value(15), 2.0 * (2.0 / (1.0 + (-2.0f64).exp() as f32)));
/// ```
///
/// # Panics
/// As [`swiglu`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn swiglu_stack<T: SwiGluElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src0: &LocalTensor<T>,
    src1: &LocalTensor<T>,
    scalar_value: f32,
    count: usize,
) {
    check_documented_chip(SWIGLU, &CHIPS, LISTED);
    swiglu::<T, IS_REUSE_SOURCE>(dst, src0, src1, scalar_value, &stack_tensor(SWIGLU), count);
}

/// The scratch bytes `SwiGLU` needs for `input_size` elements of `type_size` bytes: `(max, min)`
/// (AscendC's host-side `GetSwiGLUMaxMinTmpSize(srcShape, typeSize, maxValue, minValue,
/// isReuseSource)`): `half` needs `6 × max(input bytes, 256)` at most and `6 × 256` at least;
/// `float` none. `is_reuse_source` only draws the vendor's warning.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_swiglu_max_min_tmp_size(1024, 2, false), (12288, 1536));
/// assert_eq!(get_swiglu_max_min_tmp_size(1024, 4, false), (0, 0));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0 or `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_swiglu_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let _ = is_reuse_source;
    host_checks("GetSwiGLUMaxMinTmpSize", input_size, type_size);
    let fac = if type_size == 4 { 0 } else { 6 };
    (fac * (input_size * type_size).max(256), fac * 256)
}

/// `SwiGLU`'s scratch per element: `(max_live_node_count, extra_buffer)` (AscendC's host-side
/// `GetSwiGLUTmpBufferFactorSize(typeSize, maxLiveNodeCount, extraBuffer)`): `(6, 0)` for `half`,
/// `(0, 0)` for `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_swiglu_tmp_buffer_factor_size(2), (6, 0));
/// ```
///
/// # Panics
/// Panics if `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_swiglu_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    host_checks("GetSwiGLUTmpBufferFactorSize", 1, type_size);
    (if type_size == 4 { 0 } else { 6 }, 0)
}

// ---- ReGlu ----------------------------------------------------------------------------------

/// Element types of [`reglu`]: `half` and `float`, and `bfloat16_t` on Ascend910B (the
/// vendor's page).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<i32>, tmp: &LocalTensor<u8>) { reglu::<_, false>(t, t, t, tmp, 8) }
/// ```
pub trait ReGluElement: Element + sealed::Sealed {}
impl ReGluElement for f16 {}
impl ReGluElement for f32 {}
impl sealed::Sealed for bf16 {}
impl ReGluElement for bf16 {}

const REGLU: &str = "ReGlu";

/// `dst[i] = src0[i] * max(src1[i], 0)` for `i < count`, with `shared_tmp_buffer` as scratch
/// (AscendC `ReGlu<T, isReuseSource>(dstTensor, srcTensor0, srcTensor1, sharedTmpBuffer,
/// calCount)`).
///
/// As the vendor's `reglu_common_impl.h`, in counter mode:
/// - `float`: `Maxs(src1, 0)` into `dst`, then `Mul(src0, dst)`, each followed by
///   `PipeBarrier<PIPE_V>`; the scratch is not used.
/// - `half`/`bfloat16_t`: rounds of `stackSize = shared_tmp_buffer.get_size() / 4 / 3` rounded
///   down to a multiple of 32 elements, each casting `src0` to `float` at scratch `[0, n)` and
///   `src1` at `[n, 2n)`, the `float` computation into `[2n, 3n)` and a cast back to `dst`
///   (`CAST_NONE`; `CAST_RINT` for `bfloat16_t` on Ascend910B, `reglu_v220_impl.h`), with
///   `n = stackSize` for the tail too.
///
/// Then normal mode and the full mask. `IS_REUSE_SOURCE` is reserved.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 3 * 8 * 4);
/// pipe.init_tbuf(&mut tmp, 256);
/// let a = q.get_with_offset::<f32>(8, 0);
/// let (b, y) = (q.get_with_offset::<f32>(8, 32), q.get_with_offset::<f32>(8, 64));
/// a.copy_from_slice(&[3.0f32; 8]);
/// b.copy_from_slice(&[-1.0, 2.0, 0.5, -4.0, 1.0, 0.0, 7.0, -0.0]);
/// reglu::<_, false>(&y, &a, &b, &tmp.get::<u8>(), 8);
/// assert_eq!(y.to_vec(), vec![0.0, 6.0, 1.5, 0.0, 3.0, 0.0, 21.0, 0.0]);
/// ```
///
/// # Panics
/// Panics if the chip is not Ascend910B or Ascend310P (the vendor compiles it to nothing
/// elsewhere), or `bfloat16_t` is used on Ascend310P; `count` exceeds a tensor, or is 0 for `float`; a
/// tensor is not in the Unified Buffer; the scratch is under the minimum of
/// [`get_reglu_max_min_tmp_size`] (256 bytes for `float`, 1536 otherwise); `dst` overlaps a
/// source, or the scratch overlaps any tensor (the vendor's page); or any instruction's own
/// check fails.
#[track_caller]
pub fn reglu<T: ReGluElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src0: &LocalTensor<T>,
    src1: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    let float = T::DTYPE == DType::F32;
    let min = if float { 256 } else { 6 * 256 };
    check_glu(REGLU, false, dst, src0, src1, shared_tmp_buffer, count, false, min);
    let soc = get_soc();
    ensure(T::DTYPE != DType::BF16 || soc == Soc::Ascend910B, REGLU, || {
        format!("bfloat16_t is not supported on {soc}; the vendor's page lists half and float there")
    });
    set_mask_count();
    if float {
        set_vector_mask::<T>(count as u64);
        reglu_f32(&as_(dst), &as_(src0), &as_(src1));
    } else {
        let tmp = shared_tmp_buffer.reinterpret_cast::<f32>();
        let stack_size = shared_tmp_buffer.get_size() / 4 / 3 / ONE_BLK_SIZE * ONE_BLK_SIZE;
        let (rounds, tail) = (count / stack_size, count % stack_size);
        let body = |off: usize| {
            if T::DTYPE == DType::F16 {
                reglu_narrow::<f16>(
                    &as_(&dst.view(off)),
                    &as_(&src0.view(off)),
                    &as_(&src1.view(off)),
                    &tmp,
                    stack_size,
                );
            } else {
                reglu_narrow::<bf16>(
                    &as_(&dst.view(off)),
                    &as_(&src0.view(off)),
                    &as_(&src1.view(off)),
                    &tmp,
                    stack_size,
                );
            }
        };
        set_vector_mask::<T>(stack_size as u64);
        for i in 0..rounds {
            body(i * stack_size);
        }
        if tail != 0 {
            set_vector_mask::<T>(tail as u64);
            body(rounds * stack_size);
        }
    }
    set_mask_norm();
    reset_mask();
}

/// The vendor's `Compute`: `dst = src0 * max(src1, 0)` in `float`.
#[track_caller]
fn reglu_f32(dst: &LocalTensor<f32>, src0: &LocalTensor<f32>, src1: &LocalTensor<f32>) {
    maxs_masked::<f32, false>(dst, src1, 0.0, MASK_PLACEHOLDER, 1, &UnaryRepeatParams::default());
    pipe_barrier::<PIPE_V>();
    mul_masked::<f32, false>(dst, src0, dst, MASK_PLACEHOLDER, 1, &BinaryRepeatParams::default());
    pipe_barrier::<PIPE_V>();
}

/// The narrow types of `ReGlu` and their cast back from `float` (the vendor's `ReGluCast`).
trait ReGluNarrow: Element + crate::vector::cast::CastFrom<f32>
where
    f32: crate::vector::cast::CastFrom<Self>,
{
    /// The round mode of the cast back on the current chip.
    fn back_mode() -> RoundMode;
}
impl ReGluNarrow for f16 {
    fn back_mode() -> RoundMode {
        RoundMode::CastNone
    }
}
impl ReGluNarrow for bf16 {
    fn back_mode() -> RoundMode {
        // reglu_v220_impl.h (bfloat16_t exists on Ascend910B only).
        RoundMode::CastRint
    }
}

/// The vendor's `ReGluCompute` for `half`/`bfloat16_t`: `n` (`stackSize`) sets the layout.
#[track_caller]
fn reglu_narrow<N: ReGluNarrow>(
    dst: &LocalTensor<N>,
    src0: &LocalTensor<N>,
    src1: &LocalTensor<N>,
    tmp: &LocalTensor<f32>,
    n: usize,
) where
    f32: crate::vector::cast::CastFrom<N>,
{
    let (x0, x1, y) = (tmp.view(0), tmp.view(n), tmp.view(2 * n));
    cast_masked::<f32, N, false>(&x0, src0, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &WIDEN);
    cast_masked::<f32, N, false>(&x1, src1, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &WIDEN);
    pipe_barrier::<PIPE_V>();
    reglu_f32(&y, &x0, &x1);
    cast_masked::<N, f32, false>(dst, &y, N::back_mode(), MASK_PLACEHOLDER, 1, &NARROW);
    pipe_barrier::<PIPE_V>();
}

/// [`reglu`] with the stack buffer as scratch (AscendC `ReGlu<T, isReuseSource>(dstTensor,
/// srcTensor0, srcTensor1, calCount)`): the Unified Buffer after the core's `TPipe` buffers
/// (see [`pop_stack_buffer`](super::pop_stack_buffer)).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 3 * 16 * 2);
/// let a = q.get_with_offset::<f16>(16, 0);
/// let (b, y) = (q.get_with_offset::<f16>(16, 32), q.get_with_offset::<f16>(16, 64));
/// a.copy_from_slice(&[f16::from_f32(2.0); 16]);
/// b.copy_from_slice(&[f16::from_f32(-1.0); 16]);
/// b.set_value(3, f16::from_f32(1.5));
/// reglu_stack::<_, false>(&y, &a, &b, 16);
/// assert_eq!(y.get_value(0), f16::ZERO);
/// assert_eq!(y.get_value(3), f16::from_f32(3.0));
/// ```
///
/// # Panics
/// As [`reglu`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn reglu_stack<T: ReGluElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src0: &LocalTensor<T>,
    src1: &LocalTensor<T>,
    count: usize,
) {
    // The vendor's header compiles the call to nothing before PopStackBuffer on other chips.
    check_common(REGLU, &CHIPS, dst, src0, count);
    reglu::<T, IS_REUSE_SOURCE>(dst, src0, src1, &stack_tensor(REGLU), count);
}

/// The scratch bytes `ReGlu` needs for `input_size` elements of `type_size` bytes: `(max, min)`
/// (AscendC's host-side `GetReGluMaxMinTmpSize(srcShape, typeSize, isReuseSource, maxValue,
/// minValue)`): `(256, 256)` for `float`; `(max(6 × input bytes, 1536), 1536)` otherwise.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_reglu_max_min_tmp_size(1024, 2, false), (12288, 1536));
/// assert_eq!(get_reglu_max_min_tmp_size(1024, 4, false), (256, 256));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0, `type_size` is neither 2 nor 4, or `is_reuse_source` is true
/// (the vendor's host checks).
#[track_caller]
pub fn get_reglu_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    const API: &str = "GetReGluMaxMinTmpSize";
    host_checks(API, input_size, type_size);
    ensure(!is_reuse_source, API, || {
        "isReuseSource = true: multiplexing of input memory is not supported".into()
    });
    let (max, min) = if type_size == 4 { (256, 256) } else { (input_size * 6 * type_size, 6 * 256) };
    (max.max(min), min)
}

// ---- GeGLU ----------------------------------------------------------------------------------

/// Element types of [`geglu`]: `half` and `float` (the vendor's page).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<u16>, tmp: &LocalTensor<u8>) { geglu::<_, false>(t, t, t, tmp, 8) }
/// ```
pub trait GeGluElement: Element + sealed::Sealed {}
impl GeGluElement for f16 {}
impl GeGluElement for f32 {}

const GEGLU: &str = "GeGLU";
/// The vendor's `COEFF0` (`-0.0713548162726` as `float`; the literal kept as written).
#[allow(clippy::excessive_precision)]
const COEFF0: f32 = -0.071_354_816_272_6;
/// The vendor's `COEFF1` (`2.2363860002236e1` as `float`; the literal kept as written).
#[allow(clippy::excessive_precision)]
const COEFF1: f32 = 2.236_386_000_223_6e1;

/// `dst[i] = src0[i] * gelu(src1[i])` for `i < count`, `gelu(x) = x / (1 + exp(COEFF0 · (x² +
/// COEFF1) · x))` (the tanh approximation), with `shared_tmp_buffer` as scratch (AscendC
/// `GeGLU<T, isReuseSource>(dstTensor, srcTensor0, srcTensor1, sharedTmpBuffer, calCount)`).
///
/// As the vendor's `geglu_common_impl.h`, in counter mode:
/// - `float`: one pass of `Mul(x, x)`, `Adds(COEFF1)`, `Mul(·, x)`, `Muls(COEFF0)`, `Exp`,
///   `Adds(1)`, `Div(x, ·)`, `Mul(src0, ·)` into `dst`, each followed by
///   `PipeBarrier<PIPE_V>`; the scratch is not used.
/// - `half`: rounds of `shared_tmp_buffer.get_size() / 8` elements rounded down to a whole
///   block, each casting `src1` to `float` at scratch `[0, n)`, the same steps in `float` into
///   `[n, 2n)`, casting `src0` into `[0, n)`, multiplying and casting back to `dst` (`n` is the
///   round's size rounded up to a whole block).
///
/// Then normal mode and the full mask. `IS_REUSE_SOURCE` is reserved.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 3 * 64 * 2);
/// pipe.init_tbuf(&mut tmp, 1024);
/// let a = q.get_with_offset::<f16>(64, 0);
/// let (b, y) = (q.get_with_offset::<f16>(64, 128), q.get_with_offset::<f16>(64, 256));
/// a.copy_from_slice(&[f16::from_f32(3.0); 64]);
/// b.copy_from_slice(&[f16::ZERO; 64]);
/// geglu::<_, false>(&y, &a, &b, &tmp.get::<u8>(), 64);
/// assert_eq!(y.get_value(7), f16::ZERO);
/// ```
///
/// # Panics
/// Panics if the chip is not Ascend910B or Ascend310P; `count` exceeds a tensor, or is 0 for `float`; the
/// sources' sizes differ; a tensor is not in the Unified Buffer; `half`'s scratch is under
/// 1024 bytes (the minimum of [`get_geglu_max_min_tmp_size`]); `dst` overlaps a source, or the
/// scratch overlaps any tensor (the vendor's page); or any instruction's own check fails.
#[track_caller]
pub fn geglu<T: GeGluElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src0: &LocalTensor<T>,
    src1: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    let half = T::DTYPE == DType::F16;
    let min = if half { 4 * 256 } else { 0 };
    check_glu(GEGLU, true, dst, src0, src1, shared_tmp_buffer, count, true, min);
    let tmp = shared_tmp_buffer.reinterpret_cast::<f32>();
    set_mask_count();
    if half {
        let buf_count = shared_tmp_buffer.get_size() / 8 * 2 / ONE_BLK_SIZE * ONE_BLK_SIZE / 2;
        let mut off = 0;
        while off < count {
            let split = (count - off).min(buf_count);
            set_vector_mask::<T>(split as u64);
            let n = (split * 2 + 31) / ONE_BLK_SIZE * ONE_BLK_SIZE / 2;
            geglu_half(&as_(&dst.view(off)), &as_(&src0.view(off)), &as_(&src1.view(off)), &tmp, n);
            off += buf_count;
        }
    } else {
        set_vector_mask::<T>(count as u64);
        geglu_f32(&as_(dst), &as_(src0), &as_(src1));
    }
    set_mask_norm();
    reset_mask();
}

/// The vendor's generic `GeGLUCompute` for `float`: `y = src0 * x / (1 + exp(COEFF0 · (x² +
/// COEFF1) · x))`.
#[track_caller]
fn geglu_f32(y: &LocalTensor<f32>, src0: &LocalTensor<f32>, x: &LocalTensor<f32>) {
    let (unary, binary) = (UnaryRepeatParams::default(), BinaryRepeatParams::default());
    mul_masked::<f32, false>(y, x, x, MASK_PLACEHOLDER, 1, &binary);
    pipe_barrier::<PIPE_V>();
    adds_masked::<f32, false>(y, y, COEFF1, MASK_PLACEHOLDER, 1, &unary);
    pipe_barrier::<PIPE_V>();
    mul_masked::<f32, false>(y, y, x, MASK_PLACEHOLDER, 1, &binary);
    pipe_barrier::<PIPE_V>();
    muls_masked::<f32, false>(y, y, COEFF0, MASK_PLACEHOLDER, 1, &unary);
    pipe_barrier::<PIPE_V>();
    exp_masked::<f32, false>(y, y, MASK_PLACEHOLDER, 1, &unary);
    pipe_barrier::<PIPE_V>();
    adds_masked::<f32, false>(y, y, 1.0, MASK_PLACEHOLDER, 1, &unary);
    pipe_barrier::<PIPE_V>();
    div_masked::<f32, false>(y, x, y, MASK_PLACEHOLDER, 1, &binary);
    pipe_barrier::<PIPE_V>();
    mul_masked::<f32, false>(y, src0, y, MASK_PLACEHOLDER, 1, &binary);
    pipe_barrier::<PIPE_V>();
}

/// The vendor's `GeGLUCompute<half>` round: `n` sets the scratch layout.
#[track_caller]
fn geglu_half(
    dst: &LocalTensor<f16>,
    src0: &LocalTensor<f16>,
    src1: &LocalTensor<f16>,
    tmp: &LocalTensor<f32>,
    n: usize,
) {
    let (unary, binary) = (UnaryRepeatParams::default(), BinaryRepeatParams::default());
    let (x, y) = (tmp.view(0), tmp.view(n));
    steps::widen(&x, src1);
    mul_masked::<f32, false>(&y, &x, &x, MASK_PLACEHOLDER, 1, &binary);
    pipe_barrier::<PIPE_V>();
    adds_masked::<f32, false>(&y, &y, COEFF1, MASK_PLACEHOLDER, 1, &unary);
    pipe_barrier::<PIPE_V>();
    mul_masked::<f32, false>(&y, &y, &x, MASK_PLACEHOLDER, 1, &binary);
    pipe_barrier::<PIPE_V>();
    muls_masked::<f32, false>(&y, &y, COEFF0, MASK_PLACEHOLDER, 1, &unary);
    pipe_barrier::<PIPE_V>();
    exp_masked::<f32, false>(&y, &y, MASK_PLACEHOLDER, 1, &unary);
    pipe_barrier::<PIPE_V>();
    adds_masked::<f32, false>(&y, &y, 1.0, MASK_PLACEHOLDER, 1, &unary);
    pipe_barrier::<PIPE_V>();
    div_masked::<f32, false>(&y, &x, &y, MASK_PLACEHOLDER, 1, &binary);
    pipe_barrier::<PIPE_V>();
    steps::widen(&x, src0);
    mul_masked::<f32, false>(&y, &x, &y, MASK_PLACEHOLDER, 1, &binary);
    pipe_barrier::<PIPE_V>();
    cast_masked::<f16, f32, false>(dst, &y, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &NARROW);
    pipe_barrier::<PIPE_V>();
}

/// [`geglu`] with the stack buffer as scratch (AscendC `GeGLU<T, isReuseSource>(dstTensor,
/// srcTensor0, srcTensor1, calCount)`): the Unified Buffer after the core's `TPipe` buffers
/// (see [`pop_stack_buffer`](super::pop_stack_buffer)).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 3 * 16 * 4);
/// let a = q.get_with_offset::<f32>(16, 0);
/// let (b, y) = (q.get_with_offset::<f32>(16, 64), q.get_with_offset::<f32>(16, 128));
/// a.copy_from_slice(&[2.0f32; 16]);
/// b.copy_from_slice(&[0.0f32; 16]);
/// geglu_stack::<_, false>(&y, &a, &b, 16);
/// assert_eq!(y.get_value(0), 0.0);
/// ```
///
/// # Panics
/// As [`geglu`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn geglu_stack<T: GeGluElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src0: &LocalTensor<T>,
    src1: &LocalTensor<T>,
    count: usize,
) {
    check_documented_chip(GEGLU, &CHIPS, LISTED);
    geglu::<T, IS_REUSE_SOURCE>(dst, src0, src1, &stack_tensor(GEGLU), count);
}

/// The scratch bytes `GeGLU` needs for `input_size` elements of `type_size` bytes: `(max, min)`
/// (AscendC's host-side `GetGeGLUMaxMinTmpSize(srcShape, typeSize, isReuseSource, maxValue,
/// minValue)`): `half` needs `4 × max(input bytes, 256)` at most and `4 × 256` at least;
/// `float` none. `is_reuse_source` only draws the vendor's warning.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_geglu_max_min_tmp_size(1024, 2, false), (8192, 1024));
/// assert_eq!(get_geglu_max_min_tmp_size(1024, 4, false), (0, 0));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0 or `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_geglu_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let _ = is_reuse_source;
    host_checks("GetGeGLUMaxMinTmpSize", input_size, type_size);
    let fac = if type_size == 4 { 0 } else { 4 };
    (fac * (input_size * type_size).max(256), fac * 256)
}

/// `GeGLU`'s scratch per element: `(max_live_node_count, extra_buffer)` (AscendC's host-side
/// `GetGeGLUTmpBufferFactorSize(typeSize, maxLiveNodeCount, extraBuf)`): `(4, 0)` for `half`,
/// `(0, 0)` for `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_geglu_tmp_buffer_factor_size(4), (0, 0));
/// ```
///
/// # Panics
/// Panics if `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_geglu_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    host_checks("GetGeGLUTmpBufferFactorSize", 1, type_size);
    (if type_size == 4 { 0 } else { 4 }, 0)
}
