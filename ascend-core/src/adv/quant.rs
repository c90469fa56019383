//! Quantization of the advanced API (the vendor's `adv_api/quantization`): `AscendQuant` and
//! `AscendDequant`, on the chips whose implementations are ported (`__NPU_ARCH__` 2201 and
//! 2002: Ascend910B and Ascend310P).
//!
//! `AscendQuant` is written as the vendor's `ascend_quant_pre_impl.h`: counter mode, rounds of
//! `splitSize` elements, the scalar (or per-channel) scale and offset applied in `half` in the
//! scratch, then `Cast<int8_t, half>` with `CAST_NONE`, each instruction followed by
//! `PipeBarrier<PIPE_V>`. `AscendDequant` is written as `ascend_dequant_common_impl.h`: the
//! scales and a buffer of whole rows as `float` in the scratch, `Cast<float, int32_t>`, the
//! scaling `Mul`s (counter mode, then normal mode for the last columns), the conversion to the
//! destination.
//!
//! Not here: `AscendAntiQuant`; `AscendDequant`'s `bfloat16_t` pairs (Ascend910B only); the compile-time `AscendQuantConfig`;
//! Ascend910's `AscendQuant` (`ascend_quant_v100_impl.h`); the Ascend 950 APIs (`Quantize`,
//! `Dequantize`, `AntiQuantize` and the policy/config forms).

use crate::element::{f16, Element};
use crate::kernel::ctx::get_soc;
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::soc::Soc;
use crate::sync::{event::PIPE_V, flags::pipe_barrier};
use crate::vector::binary::mul_masked;
use crate::vector::cast::{cast_masked, RoundMode};
use crate::vector::duplicate::duplicate;
use crate::vector::gather_mask::{gather_mask, GatherMaskParams, GatherPattern};
use crate::vector::mask::{
    reset_mask, set_mask_count, set_mask_norm, set_vector_mask, Mask, MASK_PLACEHOLDER,
};
use crate::vector::params::BinaryRepeatParams;

use super::steps::{add, adds, mul, muls};
use super::{
    check_apart, check_chip, check_tmp_operands, count_mask, counter_rounds, host_checks, span, split_count,
    stack_tensor, whole, NARROW, ONE_BLK_SIZE, SAME, V220_V200,
};

mod sealed {
    pub trait Sealed {}
}

/// Source types of [`ascend_quant`]: `half` and `float` (the vendor's page).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(d: &LocalTensor<i8>, s: &LocalTensor<i32>, tmp: &LocalTensor<u8>) {
///     ascend_quant::<_, false>(d, s, tmp, 1.0, 0.0, 32)
/// }
/// ```
pub trait AscendQuantElement: Element + sealed::Sealed {
    /// The source of the round's `half` steps: `src` itself for `half`; for `float`,
    /// `Cast<half, float>` (`CAST_NONE`) of `src` into `tmp` then `PipeBarrier<PIPE_V>`, and
    /// `tmp`.
    #[doc(hidden)]
    fn as_half(src: &LocalTensor<Self>, tmp: &LocalTensor<f16>) -> LocalTensor<f16>;
}
impl sealed::Sealed for f16 {}
impl AscendQuantElement for f16 {
    fn as_half(src: &LocalTensor<f16>, _tmp: &LocalTensor<f16>) -> LocalTensor<f16> {
        src.clone()
    }
}
impl sealed::Sealed for f32 {}
impl AscendQuantElement for f32 {
    #[track_caller]
    fn as_half(src: &LocalTensor<f32>, tmp: &LocalTensor<f16>) -> LocalTensor<f16> {
        narrow(tmp, src);
        tmp.clone()
    }
}

const ASCEND_QUANT: &str = "AscendQuant";

/// `Cast<half, float>` (`CAST_NONE`, the vendor's `f162s8Params`) under the mask, then
/// `PipeBarrier<PIPE_V>`.
#[track_caller]
fn narrow(dst: &LocalTensor<f16>, src: &LocalTensor<f32>) {
    cast_masked::<f16, f32, false>(dst, src, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &NARROW);
    pipe_barrier::<PIPE_V>();
}

/// `Cast<int8_t, half>` (`CAST_NONE`: to nearest, ties to even, saturated) under the mask, then
/// `PipeBarrier<PIPE_V>`.
#[track_caller]
fn to_int8(dst: &LocalTensor<i8>, src: &LocalTensor<f16>) {
    cast_masked::<i8, f16, false>(dst, src, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &NARROW);
    pipe_barrier::<PIPE_V>();
}

/// Fails unless the chip has the implementation ported here, `dst` and `src` are in the
/// Unified Buffer and hold `count` elements, and the scratch is in the UB and apart from both
/// (`dst` may overlap `src`: the vendor's page lets them share).
#[track_caller]
fn check_quant_operands<D: Element, S: Element>(
    api: &'static str,
    dst: &LocalTensor<D>,
    src: &LocalTensor<S>,
    tmp: &LocalTensor<u8>,
    count: usize,
) {
    ensure(get_soc() != Soc::Ascend910, api, || {
        format!(
            "{api} on Ascend910 (the vendor's ascend_quant_v100_impl.h, normal-mode repeats) is not emulated; it runs \
             on Ascend910B and Ascend310P here"
        )
    });
    check_chip(api, &V220_V200);
    for (name, pos) in [("dstTensor", dst.get_position()), ("srcTensor", src.get_position())] {
        ensure(pos.is_ub(), api, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
    }
    ensure(count <= src.get_size(), api, || {
        format!("calCount = {count} exceeds srcTensor's {} {} elements", src.get_size(), S::DTYPE)
    });
    ensure(count <= dst.get_size(), api, || {
        format!("calCount = {count} exceeds dstTensor's {} {} elements", dst.get_size(), D::DTYPE)
    });
    check_tmp_operands(api, dst, src, tmp, count, false);
}

/// Per-tensor quantization: `dst[i] = int8(half(src[i]) * half(scale) + half(offset))` for
/// `i < count`, with `shared_tmp_buffer` as scratch (AscendC `AscendQuant<T, isReuseSource>(
/// dstTensor, srcTensor, sharedTmpBuffer, scale, offset, calCount)`).
///
/// As the vendor's implementation on Ascend910B and Ascend310P: `scale` and `offset` are
/// rounded to `half` once; in counter mode, rounds of `splitSize = shared_tmp_buffer.get_size()
/// / 2` rounded down to a multiple of 32 elements, each (`float` first `Cast<half, float>` into
/// the scratch) `Muls(scale)` into the scratch, `Adds(offset)`, `Cast<int8_t, half>` with
/// `CAST_NONE` (to nearest, ties to even, saturated to `[-128, 127]`), each followed by
/// `PipeBarrier<PIPE_V>`. Every step rounds to `half`. The scratch holds the last round's
/// `half` values afterwards; the mask is reset (normal mode, all lanes). `IS_REUSE_SOURCE` is
/// reserved, as in AscendC: `src` is never written. `dst` may be `src`'s memory.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 64 * 4 + 64);
/// pipe.init_tbuf(&mut tmp, 512);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<i8>(64, 256));
/// x.copy_from_slice(&[1.25f32; 64]);
/// x.set_value(1, -100.0);
/// ascend_quant::<_, false>(&y, &x, &tmp.get::<u8>(), 2.0, 0.9, 64);
/// assert_eq!(y.get_value(0), 3); // 2.5 + 0.8999 = 3.3999 in half
/// assert_eq!(y.get_value(1), -128); // saturated
/// ```
///
/// # Panics
/// Panics on Ascend310B (no implementation) and on Ascend910 (its implementation is not
/// emulated); if `count` exceeds `src` or `dst`; a tensor is not in the Unified Buffer;
/// `shared_tmp_buffer` holds less than 64 bytes (`splitSize` would be 0) or overlaps `src` or
/// `dst`; or any instruction's own check fails.
#[track_caller]
pub fn ascend_quant<T: AscendQuantElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<i8>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    scale: f32,
    offset: f32,
    count: usize,
) {
    check_quant_operands(ASCEND_QUANT, dst, src, shared_tmp_buffer, count);
    let split = split_count(ASCEND_QUANT, shared_tmp_buffer, f16::SIZE, 1);
    let tmp = shared_tmp_buffer.reinterpret_cast::<f16>();
    let (scale, offset) = (f16::from_f32(scale), f16::from_f32(offset));
    // AscendQuantIntrinsicsImpl per round.
    counter_rounds::<T>(
        count,
        split,
        |t| t,
        |off, _| {
            let x = T::as_half(&src.view(off), &tmp);
            muls(&tmp, &x, scale);
            adds(&tmp, &tmp, offset);
            to_int8(&dst.view(off), &tmp);
        },
    );
}

/// [`ascend_quant`] with the stack buffer as scratch (AscendC `AscendQuant<T, isReuseSource>(
/// dstTensor, srcTensor, scale, offset, calCount)`): the Unified Buffer after the core's
/// `TPipe` buffers (see [`pop_stack_buffer`](super::pop_stack_buffer)).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 32 * 2 + 32);
/// let (x, y) = (q.get_with_offset::<f16>(32, 0), q.get_with_offset::<i8>(32, 64));
/// x.copy_from_slice(&[f16::from_f32(-1.5); 32]);
/// ascend_quant_stack::<_, false>(&y, &x, 3.0, 0.0, 32);
/// assert_eq!(y.get_value(31), -4); // -4.5, ties to even
/// ```
///
/// # Panics
/// As [`ascend_quant`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn ascend_quant_stack<T: AscendQuantElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<i8>,
    src: &LocalTensor<T>,
    scale: f32,
    offset: f32,
    count: usize,
) {
    ascend_quant::<T, IS_REUSE_SOURCE>(dst, src, &stack_tensor(ASCEND_QUANT), scale, offset, count);
}

// ---- per channel ----------------------------------------------------------------------------

/// Source types of the per-channel forms ([`ascend_quant_per_channel`],
/// [`ascend_quant_per_channel_offset`]): `half` and `float`. For `float` the vendor first
/// narrows `scaleTensor` (and `offsetTensor`) to `half` in place, a `Cast<half, float>`
/// (`CAST_NONE`, counter mode, `scaleCount` elements) onto the start of its own source, so
/// the caller's scales (and offsets) are overwritten, and casts each round's `src` to `half`.
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(d: &LocalTensor<i8>, s: &LocalTensor<i32>, tmp: &LocalTensor<u8>) {
///     ascend_quant_per_channel::<_, false>(d, s, tmp, s, 0, 32, 32)
/// }
/// ```
pub trait AscendQuantPerChannelElement: AscendQuantElement {
    /// The scalar offset as `half` (`static_cast<half>`: to nearest, ties to even).
    #[doc(hidden)]
    fn half_of(v: Self) -> f16;
    /// The scale (and offset) tensor as `half`: itself for `half`; for `float`, narrowed in
    /// place (`Cast<half, float>` under a counter mask of `scale_count`, then
    /// `PipeBarrier<PIPE_V>` when there is no offset tensor, as the vendor's two paths do).
    #[doc(hidden)]
    fn halves(
        scale: &LocalTensor<Self>,
        offset: Option<&LocalTensor<Self>>,
        scale_count: usize,
    ) -> [LocalTensor<f16>; 2];
}
impl AscendQuantPerChannelElement for f16 {
    fn half_of(v: f16) -> f16 {
        v
    }
    fn halves(
        scale: &LocalTensor<f16>,
        offset: Option<&LocalTensor<f16>>,
        _: usize,
    ) -> [LocalTensor<f16>; 2] {
        [scale.clone(), offset.unwrap_or(scale).clone()]
    }
}
impl AscendQuantPerChannelElement for f32 {
    fn half_of(v: f32) -> f16 {
        f16::from_f32(v)
    }
    #[track_caller]
    fn halves(
        scale: &LocalTensor<f32>,
        offset: Option<&LocalTensor<f32>>,
        scale_count: usize,
    ) -> [LocalTensor<f16>; 2] {
        count_mask::<f16>(scale_count);
        let in_place = |t: &LocalTensor<f32>| {
            let h = t.reinterpret_cast::<f16>();
            cast_masked::<f16, f32, false>(&h, t, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &NARROW);
            h
        };
        let scale_h = in_place(scale);
        match offset {
            // The vendor issues the two casts and the first round's `Mul` without a barrier
            // between them (the compiler's automatic synchronisation orders them).
            Some(o) => [scale_h, in_place(o)],
            None => {
                pipe_barrier::<PIPE_V>();
                [scale_h.clone(), scale_h]
            }
        }
    }
}

/// The checks of the per-channel forms (the vendor's `IsQuantParamValid`), after
/// [`check_quant_operands`]: the scale (and offset) tensor in the UB and holding its count,
/// the counts equal and not 0, `count` a non-zero multiple of `scale_count`.
#[track_caller]
fn check_per_channel<T: Element>(
    count: usize,
    scale: (&LocalTensor<T>, usize),
    offset: Option<(&LocalTensor<T>, usize)>,
) {
    let api = ASCEND_QUANT;
    for (name, what, (t, n)) in [("scaleTensor", "scaleCount", scale)]
        .into_iter()
        .chain(offset.map(|o| ("offsetTensor", "offsetCount", o)))
    {
        let pos = t.get_position();
        ensure(pos.is_ub(), api, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
        ensure(n <= t.get_size(), api, || {
            format!("{what} = {n} exceeds {name}'s {} {} elements", t.get_size(), T::DTYPE)
        });
    }
    let sc = scale.1;
    if let Some((_, oc)) = offset {
        ensure(sc == oc, api, || {
            format!("scaleCount = {sc} differs from offsetCount = {oc}; they must be equal")
        });
    }
    ensure(sc > 0, api, || "scaleCount = 0; it must not be 0".into());
    ensure(count > 0 && count % sc == 0, api, || {
        format!("calCount = {count} is not a non-zero multiple of scaleCount = {sc}")
    });
}

/// The per-channel offset: a scalar (`Adds`) or a tensor (`Add`).
enum Offset<'a, T: Element> {
    Scalar(T),
    Tensor(&'a LocalTensor<T>),
}

/// [`Offset`] as the rounds use it, in `half`.
enum HalfOffset {
    Scalar(f16),
    Tensor(LocalTensor<f16>),
}

/// The vendor's per-channel `AscendQuantCalc`: counter mode; for `float`, the scales (and
/// offsets) narrowed to `half` in place first; for each of the `count / scale_count` rows,
/// rounds of `splitSize` elements (the tail under its own count), each (for `float`, the
/// `Cast<half, float>` of `src` into the scratch, then) `Mul` by the scale row into the
/// scratch, `Adds` or `Add` of the offset, `Cast<int8_t, half>`, each followed by
/// `PipeBarrier<PIPE_V>`; then normal mode and the mask reset.
#[track_caller]
fn per_channel<T: AscendQuantPerChannelElement>(
    dst: &LocalTensor<i8>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    scale: &LocalTensor<T>,
    offset: Offset<'_, T>,
    scale_count: usize,
    count: usize,
) {
    set_mask_count();
    let (scale, offset) = match offset {
        Offset::Scalar(o) => {
            (T::halves(scale, None, scale_count)[0].clone(), HalfOffset::Scalar(T::half_of(o)))
        }
        Offset::Tensor(o) => {
            let [s, o] = T::halves(scale, Some(o), scale_count);
            (s, HalfOffset::Tensor(o))
        }
    };
    let tmp = shared_tmp_buffer.reinterpret_cast::<f16>();
    for row in (0..count).step_by(scale_count) {
        // AscendQuantPerChannelImpl on one row of scale_count elements.
        let split = split_count(ASCEND_QUANT, shared_tmp_buffer, f16::SIZE, 1);
        let (loops, tail) = (scale_count / split, scale_count % split);
        count_mask::<f16>(split);
        let round = |c: usize| {
            let x = T::as_half(&src.view(row + c), &tmp);
            mul(&tmp, &x, &scale.view(c));
            match &offset {
                HalfOffset::Scalar(o) => adds(&tmp, &tmp, *o),
                HalfOffset::Tensor(o) => add(&tmp, &tmp, &o.view(c)),
            }
            to_int8(&dst.view(row + c), &tmp);
        };
        for j in 0..loops {
            round(j * split);
        }
        if tail > 0 {
            count_mask::<f16>(tail);
            round(loops * split);
        }
    }
    set_mask_norm();
    reset_mask();
}

/// Per-channel quantization with a scalar offset: `dst[i] = int8(src[i] * scale_tensor[i %
/// scale_count] + offset)` for `i < count`, in `half`, with `shared_tmp_buffer` as scratch
/// (AscendC `AscendQuant<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, scaleTensor,
/// offset, scaleCount, calCount)`).
///
/// As the vendor's implementation on Ascend910B and Ascend310P: in counter mode (for `float`,
/// first `scale_tensor`'s first `scale_count` elements narrowed to `half` in place, which
/// overwrites them, and the offset rounded to `half`), for each row of `scale_count` elements,
/// rounds of `splitSize = shared_tmp_buffer.get_size() / 2` rounded down to a multiple of 32
/// elements, each (for `float`, `Cast<half, float>` of `src` into the scratch, then) `Mul` by
/// the matching scales into the scratch,
/// `Adds(offset)`, `Cast<int8_t, half>` with `CAST_NONE` (to nearest, ties to even,
/// saturated), each followed by `PipeBarrier<PIPE_V>`. The scratch holds the last round's
/// `half` values afterwards; the mask is reset (normal mode, all lanes).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 64 * 2 + 64 + 32 * 2);
/// pipe.init_tbuf(&mut tmp, 512);
/// let (x, y) = (q.get_with_offset::<f16>(64, 0), q.get_with_offset::<i8>(64, 128));
/// let s = q.get_with_offset::<f16>(32, 192);
/// x.copy_from_slice(&[f16::from_f32(1.5); 64]);
/// let scales: Vec<f16> = (0..32).map(|c| f16::from_f32(c as f32)).collect();
/// s.copy_from_slice(&scales);
/// ascend_quant_per_channel::<_, false>(&y, &x, &tmp.get::<u8>(), &s, f16::from_f32(1.0), 32, 64);
/// assert_eq!(y.get_value(3), 6); // 1.5 * 3 + 1 = 5.5, ties to even
/// assert_eq!(y.get_value(32 + 3), 6); // the second row takes the same scales
/// ```
///
/// # Panics
/// Panics on Ascend310B (no implementation) and Ascend910 (the vendor has none for per-channel
/// there); if `count` exceeds `src` or `dst`, is 0 or not a multiple of `scale_count`;
/// `scale_count` is 0 or exceeds `scale_tensor`; a tensor is not in the Unified Buffer;
/// `shared_tmp_buffer` holds less than 64 bytes or overlaps `src` or `dst`; or any
/// instruction's own check fails.
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn ascend_quant_per_channel<T: AscendQuantPerChannelElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<i8>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    scale_tensor: &LocalTensor<T>,
    offset: T,
    scale_count: usize,
    count: usize,
) {
    ensure(get_soc() != Soc::Ascend910, ASCEND_QUANT, || {
        "per-channel quantization is not supported on Ascend910 (the vendor's implementation there fails with \"This \
         device does not support per channel quant!\")"
            .into()
    });
    check_quant_operands(ASCEND_QUANT, dst, src, shared_tmp_buffer, count);
    check_per_channel(count, (scale_tensor, scale_count), None);
    per_channel(dst, src, shared_tmp_buffer, scale_tensor, Offset::Scalar(offset), scale_count, count);
}

/// [`ascend_quant_per_channel`] with the stack buffer as scratch (AscendC `AscendQuant<T,
/// isReuseSource>(dstTensor, srcTensor, scaleTensor, offset, scaleCount, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 32 * 2 + 32 + 32 * 2);
/// let (x, y) = (q.get_with_offset::<f16>(32, 0), q.get_with_offset::<i8>(32, 64));
/// let s = q.get_with_offset::<f16>(32, 96);
/// x.copy_from_slice(&[f16::from_f32(2.0); 32]);
/// s.copy_from_slice(&[f16::from_f32(-3.0); 32]);
/// ascend_quant_per_channel_stack::<_, false>(&y, &x, &s, f16::from_f32(0.0), 32, 32);
/// assert_eq!(y.get_value(0), -6);
/// ```
///
/// # Panics
/// As [`ascend_quant_per_channel`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn ascend_quant_per_channel_stack<T: AscendQuantPerChannelElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<i8>,
    src: &LocalTensor<T>,
    scale_tensor: &LocalTensor<T>,
    offset: T,
    scale_count: usize,
    count: usize,
) {
    let tmp = stack_tensor(ASCEND_QUANT);
    ascend_quant_per_channel::<T, IS_REUSE_SOURCE>(dst, src, &tmp, scale_tensor, offset, scale_count, count);
}

/// Per-channel quantization with per-channel offsets: `dst[i] = int8(src[i] *
/// scale_tensor[c] + offset_tensor[c])`, `c = i % scale_count`, for `i < count`, in `half`
/// (AscendC `AscendQuant<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, scaleTensor,
/// offsetTensor, scaleCount, offsetCount, calCount)`): as [`ascend_quant_per_channel`] with
/// `Add` of the offsets instead of `Adds`. For `float` both `scale_tensor` and
/// `offset_tensor` are narrowed to `half` in place (overwritten), with no `PipeBarrier` before
/// the first round, as the vendor's.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 32 * 2 + 32 + 2 * 32 * 2);
/// pipe.init_tbuf(&mut tmp, 64);
/// let (x, y) = (q.get_with_offset::<f16>(32, 0), q.get_with_offset::<i8>(32, 64));
/// let (s, o) = (q.get_with_offset::<f16>(32, 96), q.get_with_offset::<f16>(32, 160));
/// x.copy_from_slice(&[f16::from_f32(2.0); 32]);
/// s.copy_from_slice(&[f16::from_f32(10.0); 32]);
/// o.copy_from_slice(&[f16::from_f32(-0.5); 32]);
/// ascend_quant_per_channel_offset::<_, false>(&y, &x, &tmp.get::<u8>(), &s, &o, 32, 32, 32);
/// assert_eq!(y.get_value(0), 20); // 19.5, ties to even
/// ```
///
/// # Panics
/// As [`ascend_quant_per_channel`], and if `offset_count` exceeds `offset_tensor` or differs
/// from `scale_count`, or `offset_tensor` is not in the Unified Buffer.
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn ascend_quant_per_channel_offset<T: AscendQuantPerChannelElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<i8>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    scale_tensor: &LocalTensor<T>,
    offset_tensor: &LocalTensor<T>,
    scale_count: usize,
    offset_count: usize,
    count: usize,
) {
    ensure(get_soc() != Soc::Ascend910, ASCEND_QUANT, || {
        "per-channel quantization is not supported on Ascend910 (the vendor's implementation there fails with \"This \
         device does not support per channel quant!\")"
            .into()
    });
    check_quant_operands(ASCEND_QUANT, dst, src, shared_tmp_buffer, count);
    check_per_channel(count, (scale_tensor, scale_count), Some((offset_tensor, offset_count)));
    per_channel(dst, src, shared_tmp_buffer, scale_tensor, Offset::Tensor(offset_tensor), scale_count, count);
}

/// [`ascend_quant_per_channel_offset`] with the stack buffer as scratch (AscendC
/// `AscendQuant<T, isReuseSource>(dstTensor, srcTensor, scaleTensor, offsetTensor, scaleCount,
/// offsetCount, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 32 * 2 + 32 + 2 * 32 * 2);
/// let (x, y) = (q.get_with_offset::<f16>(32, 0), q.get_with_offset::<i8>(32, 64));
/// let (s, o) = (q.get_with_offset::<f16>(32, 96), q.get_with_offset::<f16>(32, 160));
/// x.copy_from_slice(&[f16::from_f32(1.0); 32]);
/// s.copy_from_slice(&[f16::from_f32(1.0); 32]);
/// o.copy_from_slice(&[f16::from_f32(200.0); 32]);
/// ascend_quant_per_channel_offset_stack::<_, false>(&y, &x, &s, &o, 32, 32, 32);
/// assert_eq!(y.get_value(0), 127); // saturated
/// ```
///
/// # Panics
/// As [`ascend_quant_per_channel_offset`], and if the core has no `TPipe` or its buffers leave
/// no room.
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn ascend_quant_per_channel_offset_stack<T: AscendQuantPerChannelElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<i8>,
    src: &LocalTensor<T>,
    scale_tensor: &LocalTensor<T>,
    offset_tensor: &LocalTensor<T>,
    scale_count: usize,
    offset_count: usize,
    count: usize,
) {
    let tmp = stack_tensor(ASCEND_QUANT);
    ascend_quant_per_channel_offset::<T, IS_REUSE_SOURCE>(
        dst,
        src,
        &tmp,
        scale_tensor,
        offset_tensor,
        scale_count,
        offset_count,
        count,
    );
}

// ---- AscendDequant --------------------------------------------------------------------------

/// `AscendDequant`'s shape (AscendC `DequantParams`): `m` rows of `n` `int32_t` elements (`n`
/// a multiple of 8, 32 bytes of `float`); the first `cal_count` of each row are multiplied by
/// `deqScale`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct DequantParams {
    /// Rows (`m`).
    pub m: usize,
    /// Elements per row (`n`), a multiple of 8.
    pub n: usize,
    /// Elements of each row that are scaled (`calCount`), in `1..=n`.
    pub cal_count: usize,
}

/// How `AscendDequant` reads a single row `{1, m·n, n}` (AscendC `DeQuantMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum DeQuantMode {
    /// `DEQUANT_WITH_SINGLE_ROW` (the default): `{1, n, c}` with `n` a multiple of `c` and `c`
    /// a whole number of 32-byte blocks of the destination becomes `{n / c, c, c}`, every `c`
    /// elements scaled by the same `c` scales.
    #[default]
    DequantWithSingleRow,
    /// `DEQUANT_WITH_MULTI_ROW`: the parameters are taken as given.
    DequantWithMultiRow,
}

/// The `(destination, deqScale)` type pairs of [`ascend_dequant`] on both chips (the vendor's
/// `IsTemplateValid`): `half` with `uint64_t` scales (the `float` in each one's low 32 bits) and
/// `float` with `float` scales. (The `bfloat16_t` pairs of Ascend910B are not implemented here.)
///
/// Any other pair does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(d: &LocalTensor<f16>, s: &LocalTensor<i32>, q: &LocalTensor<f32>, t: &LocalTensor<u8>) {
///     ascend_dequant(d, s, q, t, DequantParams { m: 1, n: 8, cal_count: 8 }, DeQuantMode::DequantWithMultiRow)
/// }
/// ```
pub trait AscendDequantElement<S: Element>: Element + sealed::Sealed {
    /// The vendor's `CastDeqscale`: the first `n` scales as `float` into `dst`.
    #[doc(hidden)]
    fn cast_deq_scale(dst: &LocalTensor<f32>, deq_scale: &LocalTensor<S>, n: usize);
    /// The vendor's `CastDst` of `n` elements under a counter mask already in counter mode
    /// (`src_inner` and `dst_inner` the row lengths of the source and the destination).
    #[doc(hidden)]
    fn cast_dst(
        dst: &LocalTensor<Self>,
        src: &LocalTensor<f32>,
        src_inner: usize,
        dst_inner: usize,
        n: usize,
    );
}

impl AscendDequantElement<f32> for f32 {
    #[track_caller]
    fn cast_deq_scale(dst: &LocalTensor<f32>, deq_scale: &LocalTensor<f32>, n: usize) {
        count_mask::<f32>(n);
        adds(dst, deq_scale, 0.0);
    }
    #[track_caller]
    fn cast_dst(
        dst: &LocalTensor<f32>,
        src: &LocalTensor<f32>,
        _src_inner: usize,
        _dst_inner: usize,
        n: usize,
    ) {
        count_mask::<f32>(n);
        adds(dst, src, 0.0);
    }
}

impl AscendDequantElement<u64> for f16 {
    #[track_caller]
    fn cast_deq_scale(dst: &LocalTensor<f32>, deq_scale: &LocalTensor<u64>, n: usize) {
        // GatherMask (its own count in reduce mode): pattern 1 keeps the even floats, the low
        // halves of the uint64_t scales.
        let params = GatherMaskParams { repeat_times: 1, ..GatherMaskParams::default() };
        gather_mask::<f32, u32>(
            dst,
            &deq_scale.reinterpret_cast::<f32>(),
            GatherPattern::Fixed(1),
            true,
            (n * 2) as u32,
            &params,
        );
        pipe_barrier::<PIPE_V>();
        set_mask_count();
    }
    #[track_caller]
    fn cast_dst(
        dst: &LocalTensor<f16>,
        src: &LocalTensor<f32>,
        src_inner: usize,
        dst_inner: usize,
        n: usize,
    ) {
        // float -> half: CAST_NONE on both chips.
        if src_inner == dst_inner {
            count_mask::<f32>(n);
            narrow(dst, src);
            return;
        }
        let (loops, tail) = (n / src_inner, n % src_inner);
        count_mask::<f32>(src_inner);
        for i in 0..loops {
            cast_masked::<f16, f32, false>(
                &dst.view(i * dst_inner),
                &src.view(i * src_inner),
                RoundMode::CastNone,
                MASK_PLACEHOLDER,
                1,
                &NARROW,
            );
        }
        pipe_barrier::<PIPE_V>();
        if tail > 0 {
            count_mask::<f32>(tail);
            narrow(&dst.view(loops * dst_inner), &src.view(loops * src_inner));
        }
    }
}

const ASCEND_DEQUANT: &str = "AscendDequant";
/// `float`s in a data block and in a repeat.
const FLOAT_PER_BLOCK: usize = 8;
const FLOAT_PER_REPEAT: usize = 64;

/// `DequantMul`: the first `cal_count` of `k` rows of `n` floats times the scales, in place.
#[track_caller]
fn dequant_mul(buf: &LocalTensor<f32>, scale: &LocalTensor<f32>, p: &DequantParams, k: usize) {
    if k == 0 {
        return;
    }
    let n = p.n;
    if n > 255 * FLOAT_PER_BLOCK {
        // The repeat stride n / 8 does not fit a u8: one counter-mode Mul per row.
        count_mask::<f32>(p.cal_count);
        for i in 0..k {
            mul_masked::<f32, false>(
                &buf.view(i * n),
                &buf.view(i * n),
                scale,
                MASK_PLACEHOLDER,
                1,
                &BinaryRepeatParams::default(),
            );
        }
        pipe_barrier::<PIPE_V>();
        return;
    }
    let rep = (n / FLOAT_PER_BLOCK) as u8;
    let params = BinaryRepeatParams::new(1, 1, 1, rep, rep, 0);
    let (main_loops, tail) = (p.cal_count / FLOAT_PER_REPEAT, p.cal_count % FLOAT_PER_REPEAT);
    // Counter mode: k repeats of 64 columns, one per row.
    count_mask::<f32>(FLOAT_PER_REPEAT * k);
    for i in 0..main_loops {
        let c = i * FLOAT_PER_REPEAT;
        mul_masked::<f32, false>(&buf.view(c), &buf.view(c), &scale.view(c), MASK_PLACEHOLDER, 1, &params);
    }
    pipe_barrier::<PIPE_V>();
    if tail != 0 {
        // Normal mode: the last columns under a bit mask, up to 255 rows a call.
        set_mask_norm();
        set_vector_mask::<f32>(Mask::Bits([(1u64 << tail) - 1, 0]));
        let base = main_loops * FLOAT_PER_REPEAT;
        let (k_times, k_remains) = (k / 255, k % 255);
        for i in 0..k_times {
            let idx = base + 255 * i * n;
            mul_masked::<f32, false>(
                &buf.view(idx),
                &buf.view(idx),
                &scale.view(base),
                MASK_PLACEHOLDER,
                255,
                &params,
            );
            pipe_barrier::<PIPE_V>();
        }
        if k_remains > 0 {
            let idx = base + 255 * k_times * n;
            mul_masked::<f32, false>(
                &buf.view(idx),
                &buf.view(idx),
                &scale.view(base),
                MASK_PLACEHOLDER,
                k_remains as u8,
                &params,
            );
            pipe_barrier::<PIPE_V>();
        }
    }
}

/// `CastSrc`: `n` `int32_t` to `float` (`CAST_NONE`) under a counter mask.
#[track_caller]
fn cast_src(src: &LocalTensor<i32>, dst: &LocalTensor<f32>, n: usize) {
    count_mask::<f32>(n);
    cast_masked::<f32, i32, false>(dst, src, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &SAME);
    pipe_barrier::<PIPE_V>();
}

/// Per-channel dequantization: for each row `r < m` and column `c < n` of `params`,
/// `dst[r·n' + c] = D(float(src[r·n + c]) * deq_scale[c])` for `c < cal_count` and
/// `D(float(src[r·n + c]))` beyond, where `n'` is `n` rounded up to a 32-byte block of `D`
/// (AscendC `AscendDequant<dstT, scaleT, mode>(dstTensor, srcTensor, deqScale,
/// sharedTmpBuffer, params)`).
///
/// As the vendor's implementation on Ascend910B and Ascend310P (`ascend_dequant_common_impl.h`):
/// `mode` first rewrites a single row (see [`DeQuantMode`]); the scratch, as `float`, holds the
/// scales (rounded up to 8) then a source buffer of whole rows (at most all of them); the
/// scales are brought to `float` (`Adds(0)`, or `GatherMask` of the low halves of `uint64_t`);
/// then per buffer of rows: `Cast<float, int32_t>`, the scaling `Mul`s (counter mode over 64
/// columns of every row with a repeat stride of one row, then the last `cal_count % 64`
/// columns in normal mode under a bit mask, 255 rows a call; one counter-mode `Mul` per row
/// when a row is longer than 2040), and `Adds(0)` into `dst` (`float`) or `Cast<half, float>`
/// (`CAST_NONE`, row by row when the destination's rows are padded), each followed by
/// `PipeBarrier<PIPE_V>`. Then normal mode and the mask reset.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 16 * 4 + 32);
/// pipe.init_tbuf(&mut tmp, 1024);
/// let (x, y) = (q.get_with_offset::<i32>(16, 0), q.get_with_offset::<f32>(16, 64));
/// let s = q.get_with_offset::<f32>(8, 128);
/// x.copy_from_slice(&[3; 16]);
/// s.copy_from_slice(&[0.5, 1.0, 2.0, 4.0, 1.0, 1.0, 1.0, 1.0]);
/// let params = DequantParams { m: 2, n: 8, cal_count: 4 };
/// ascend_dequant(&y, &x, &s, &tmp.get::<u8>(), params, DeQuantMode::DequantWithMultiRow);
/// assert_eq!(y.to_vec()[8..], [1.5, 3.0, 6.0, 12.0, 3.0, 3.0, 3.0, 3.0]);
/// ```
///
/// # Panics
/// Panics on Ascend910 and Ascend310B (no implementation); if `params.n` is not a multiple of
/// 8, `params.cal_count` is 0 or exceeds `params.n` or `deq_scale`, `m · n` exceeds `src`, or
/// `m` padded rows exceed `dst`; a tensor is not in the Unified Buffer; the scratch cannot hold
/// the scales and one row of `float`s, or overlaps `src` or `dst`; or any instruction's own
/// check fails.
#[track_caller]
pub fn ascend_dequant<D: AscendDequantElement<S>, S: Element>(
    dst: &LocalTensor<D>,
    src: &LocalTensor<i32>,
    deq_scale: &LocalTensor<S>,
    shared_tmp_buffer: &LocalTensor<u8>,
    params: DequantParams,
    mode: DeQuantMode,
) {
    dequant_impl(dst, src, deq_scale, shared_tmp_buffer, params, mode, params.m * params.n, true, None);
}

/// The vendor's `AscendDequantImpl`: the checks, `UpdateDequantParams`, the scratch layout and
/// `CalculateByInner` over `cal` elements (`pure`: whole rows only, the `DequantParams` forms).
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn dequant_impl<D: AscendDequantElement<S>, S: Element>(
    dst: &LocalTensor<D>,
    src: &LocalTensor<i32>,
    deq_scale: &LocalTensor<S>,
    shared_tmp_buffer: &LocalTensor<u8>,
    params: DequantParams,
    mode: DeQuantMode,
    cal: usize,
    pure: bool,
    scalar: Option<f32>,
) {
    let api = ASCEND_DEQUANT;
    check_chip(api, &V220_V200);
    for (name, pos) in [("dstTensor", dst.get_position()), ("srcTensor", src.get_position())] {
        ensure(pos.is_ub(), api, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
    }
    // IsDequantParamsValid, IsDeqscaleTensorValid
    let DequantParams { m, n, cal_count } = params;
    ensure(n % FLOAT_PER_BLOCK == 0, api, || format!("params.n = {n} is not a multiple of 8"));
    ensure(m * n <= src.get_size(), api, || {
        format!("params.m * params.n = {m} * {n} exceeds srcTensor's {} int32_t elements", src.get_size())
    });
    ensure(cal_count > 0 && cal_count <= n, api, || {
        format!("params.calCount = {cal_count} is not in 1..=params.n ({n})")
    });
    let block = ONE_BLK_SIZE / D::SIZE;
    let align_inner = n.div_ceil(block) * block;
    ensure(m * align_inner <= dst.get_size(), api, || {
        format!(
            "dstTensor holds {} {} elements, fewer than params.m * {align_inner} (params.n padded to 32 bytes)",
            dst.get_size(),
            D::DTYPE
        )
    });
    let pos = deq_scale.get_position();
    ensure(scalar.is_some() || pos.is_ub(), api, || {
        format!("deqScale is at position {pos}; it must be VECIN, VECOUT or VECCALC")
    });
    ensure(scalar.is_some() || cal_count <= deq_scale.get_size(), api, || {
        format!(
            "params.calCount = {cal_count} exceeds deqScale's {} {} elements",
            deq_scale.get_size(),
            S::DTYPE
        )
    });
    let pos = shared_tmp_buffer.get_position();
    ensure(pos.is_ub(), api, || {
        format!("sharedTmpBuffer is at position {pos}; it must be VECIN, VECOUT or VECCALC")
    });
    let t = whole("sharedTmpBuffer", shared_tmp_buffer);
    check_apart(api, &[(t, span("src", src, m * n)), (t, span("dst", dst, m * align_inner))]);
    let total = cal;
    // UpdateDequantParams
    let mut p = params;
    if mode == DeQuantMode::DequantWithSingleRow
        && p.m == 1
        && p.cal_count % block == 0
        && p.n % p.cal_count == 0
    {
        p = DequantParams { m: p.n / p.cal_count, n: p.cal_count, cal_count: p.cal_count };
    }
    // AscendDequantTmpCalc
    let stack = shared_tmp_buffer.reinterpret_cast::<f32>();
    let deq_size = p.cal_count.div_ceil(FLOAT_PER_BLOCK) * FLOAT_PER_BLOCK;
    let rows = stack.get_size().saturating_sub(deq_size) / p.n * p.n;
    ensure(rows > 0, api, || {
        format!(
            "sharedTmpBuffer has {} bytes; it must hold the {deq_size} float scales and one row of {} floats ({} bytes; \
             see the host's GetAscendDequantMaxMinTmpSize)",
            shared_tmp_buffer.get_size(),
            p.n,
            (deq_size + p.n) * 4
        )
    });
    let tmp_size = rows.min(p.m * p.n);
    let (scale_f, src_f) = (stack.clone(), stack.view(deq_size));
    if let Some(v) = scalar {
        // The scalar form's AscendDequantTmpCalc: Duplicate (a counted call) of the scale.
        set_mask_count();
        duplicate(&scale_f, v, p.cal_count);
        pipe_barrier::<PIPE_V>();
    }
    set_mask_count();
    // CalculateByInner
    let dst_inner = p.n.div_ceil(block) * block;
    let (loops, tail) = (total / tmp_size, total % tmp_size);
    D::cast_deq_scale(&scale_f, deq_scale, p.cal_count);
    let k = tmp_size / p.n;
    let cast_dst_index = if p.n == dst_inner { tmp_size } else { k * dst_inner };
    for i in 0..loops {
        set_mask_count();
        cast_src(&src.view(i * tmp_size), &src_f, tmp_size);
        dequant_mul(&src_f, &scale_f, &p, k);
        set_mask_count();
        D::cast_dst(&dst.view(i * cast_dst_index), &src_f, p.n, dst_inner, tmp_size);
    }
    if tail > 0 {
        cast_src(&src.view(total - tail), &src_f, tail);
        dequant_mul(&src_f, &scale_f, &p, tail / p.n);
        let tail_k = tail % p.n;
        if !pure && tail_k != 0 {
            // The last, partial row.
            set_mask_count();
            count_mask::<f32>(tail_k);
            let idx = tail - tail_k;
            mul_masked::<f32, false>(
                &src_f.view(idx),
                &src_f.view(idx),
                &scale_f,
                MASK_PLACEHOLDER,
                1,
                &BinaryRepeatParams::default(),
            );
            pipe_barrier::<PIPE_V>();
        }
        set_mask_count();
        let index = if p.n == dst_inner { total - tail } else { (total - tail) / p.n * dst_inner };
        D::cast_dst(&dst.view(index), &src_f, p.n, dst_inner, tail);
    }
    set_mask_norm();
    reset_mask();
}

/// [`ascend_dequant`] with the stack buffer as scratch (AscendC `AscendDequant<dstT, scaleT,
/// mode>(dstTensor, srcTensor, deqScale, params)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 16 * 4 + 16 * 2 + 16 * 8);
/// let (x, y) = (q.get_with_offset::<i32>(16, 0), q.get_with_offset::<f16>(16, 64));
/// let s = q.get_with_offset::<u64>(16, 96);
/// x.copy_from_slice(&[-7; 16]);
/// s.copy_from_slice(&[u64::from(0.25f32.to_bits()); 16]);
/// ascend_dequant_stack(&y, &x, &s, DequantParams { m: 1, n: 16, cal_count: 16 }, DeQuantMode::default());
/// assert_eq!(y.get_value(15), f16::from_f32(-1.75));
/// ```
///
/// # Panics
/// As [`ascend_dequant`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn ascend_dequant_stack<D: AscendDequantElement<S>, S: Element>(
    dst: &LocalTensor<D>,
    src: &LocalTensor<i32>,
    deq_scale: &LocalTensor<S>,
    params: DequantParams,
    mode: DeQuantMode,
) {
    ascend_dequant(dst, src, deq_scale, &stack_tensor(ASCEND_DEQUANT), params, mode);
}

/// [`ascend_dequant`] over the first `count` elements of `src` seen as rows of
/// `deq_scale.get_size()` elements, every one scaled (AscendC `AscendDequant<dstT, scaleT,
/// mode>(dstTensor, srcTensor, deqScale, sharedTmpBuffer, calCount)`; the vendor's form without
/// `calCount` is this with `src.get_size()`): `DequantParams { m: src / deqScale, n: deqScale,
/// calCount: deqScale }`, the last row possibly partial.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 32 * 4 + 8 * 4);
/// pipe.init_tbuf(&mut tmp, 1024);
/// let (x, y) = (q.get_with_offset::<i32>(32, 0), q.get_with_offset::<f32>(32, 128));
/// let s = q.get_with_offset::<f32>(8, 256);
/// x.copy_from_slice(&[2; 32]);
/// s.copy_from_slice(&[0.5; 8]);
/// ascend_dequant_count(&y, &x, &s, &tmp.get::<u8>(), 20, DeQuantMode::default());
/// assert_eq!(y.get_value(19), 1.0);
/// ```
///
/// # Panics
/// As [`ascend_dequant`], and if `count` is 0 or exceeds `src`, `src`'s size is not a multiple
/// of `deq_scale`'s, or (`uint64_t` scales) `deq_scale` holds other than a multiple of 8.
#[track_caller]
pub fn ascend_dequant_count<D: AscendDequantElement<S>, S: Element>(
    dst: &LocalTensor<D>,
    src: &LocalTensor<i32>,
    deq_scale: &LocalTensor<S>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
    mode: DeQuantMode,
) {
    let api = ASCEND_DEQUANT;
    // IsCalCountValid, IsWithoutDequantParamsValid
    let (ss, ds) = (src.get_size(), deq_scale.get_size());
    ensure(count > 0 && count <= ss, api, || {
        format!("calCount = {count} is not in 1..=srcTensor's {ss} elements")
    });
    ensure(ds > 0 && ss % ds == 0, api, || {
        format!("srcTensor's {ss} elements are not a multiple of deqScale's {ds} (the forms without DequantParams)")
    });
    ensure(S::SIZE != 8 || ds % 8 == 0, api, || {
        format!("deqScale holds {ds} uint64_t elements; without DequantParams it must hold a multiple of 8")
    });
    let params = DequantParams { m: ss / ds, n: ds, cal_count: ds };
    dequant_impl(dst, src, deq_scale, shared_tmp_buffer, params, mode, count, false, None);
}

/// [`ascend_dequant_count`] with the stack buffer as scratch (AscendC `AscendDequant<dstT,
/// scaleT, mode>(dstTensor, srcTensor, deqScale, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 16 * 4 + 8 * 4);
/// let (x, y) = (q.get_with_offset::<i32>(16, 0), q.get_with_offset::<f32>(16, 64));
/// let s = q.get_with_offset::<f32>(8, 128);
/// x.copy_from_slice(&[3; 16]);
/// s.copy_from_slice(&[2.0; 8]);
/// ascend_dequant_count_stack(&y, &x, &s, 16, DeQuantMode::default());
/// assert_eq!(y.get_value(15), 6.0);
/// ```
///
/// # Panics
/// As [`ascend_dequant_count`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn ascend_dequant_count_stack<D: AscendDequantElement<S>, S: Element>(
    dst: &LocalTensor<D>,
    src: &LocalTensor<i32>,
    deq_scale: &LocalTensor<S>,
    count: usize,
    mode: DeQuantMode,
) {
    ascend_dequant_count(dst, src, deq_scale, &stack_tensor(ASCEND_DEQUANT), count, mode);
}

/// [`ascend_dequant`] with one `float` scale for every scaled column (AscendC
/// `AscendDequant<float, float, mode>(dstTensor, srcTensor, deqScale, sharedTmpBuffer,
/// params)`, `deqScale` a scalar; the `bfloat16_t` pairs of Ascend910B are not implemented here).
///
/// As the vendor's implementation: `Duplicate` of the scale into the scratch's first
/// `cal_count` (rounded up to 8) floats, then the tensor form's steps with those as `deqScale`.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 16 * 4);
/// pipe.init_tbuf(&mut tmp, 512);
/// let (x, y) = (q.get_with_offset::<i32>(16, 0), q.get_with_offset::<f32>(16, 64));
/// x.copy_from_slice(&[5; 16]);
/// let params = DequantParams { m: 2, n: 8, cal_count: 6 };
/// ascend_dequant_scalar(&y, &x, 0.5, &tmp.get::<u8>(), params, DeQuantMode::default());
/// assert_eq!(y.to_vec()[..8], [2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 5.0, 5.0]);
/// ```
///
/// # Panics
/// As [`ascend_dequant`] (without the `deqScale` tensor's checks).
#[track_caller]
pub fn ascend_dequant_scalar(
    dst: &LocalTensor<f32>,
    src: &LocalTensor<i32>,
    deq_scale: f32,
    shared_tmp_buffer: &LocalTensor<u8>,
    params: DequantParams,
    mode: DeQuantMode,
) {
    let stack = shared_tmp_buffer.reinterpret_cast::<f32>();
    let total = params.m * params.n;
    dequant_impl(dst, src, &stack, shared_tmp_buffer, params, mode, total, true, Some(deq_scale));
}

/// [`ascend_dequant_scalar`] with the stack buffer as scratch (AscendC `AscendDequant<float,
/// float, mode>(dstTensor, srcTensor, deqScale, params)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 8 * 4);
/// let (x, y) = (q.get_with_offset::<i32>(8, 0), q.get_with_offset::<f32>(8, 32));
/// x.copy_from_slice(&[-4; 8]);
/// ascend_dequant_scalar_stack(&y, &x, 0.25, DequantParams { m: 1, n: 8, cal_count: 8 }, DeQuantMode::default());
/// assert_eq!(y.get_value(7), -1.0);
/// ```
///
/// # Panics
/// As [`ascend_dequant_scalar`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn ascend_dequant_scalar_stack(
    dst: &LocalTensor<f32>,
    src: &LocalTensor<i32>,
    deq_scale: f32,
    params: DequantParams,
    mode: DeQuantMode,
) {
    ascend_dequant_scalar(dst, src, deq_scale, &stack_tensor(ASCEND_DEQUANT), params, mode);
}

/// `AscendDequant`'s scratch per element for a source of `shape`: `(max_live_node_count,
/// extra_buf)` (AscendC's host-side `GetAscendDequantTmpBufferFactorSize(srcShape,
/// maxLiveNodeCount, extraBuf)`): `(1, 72 + n)` for `[m, n]`, `(2, 72)` for `[n]`, `(0, 0)`
/// otherwise.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_ascend_dequant_tmp_buffer_factor_size(&[4, 64]), (1, 136));
/// assert_eq!(get_ascend_dequant_tmp_buffer_factor_size(&[64]), (2, 72));
/// ```
///
/// # Panics
/// Never.
pub fn get_ascend_dequant_tmp_buffer_factor_size(shape: &[usize]) -> (usize, usize) {
    let extra = FLOAT_PER_BLOCK + FLOAT_PER_REPEAT;
    match shape {
        [_, n] => (1, extra + n),
        [_] => (2, extra),
        _ => (0, 0),
    }
}

/// The scratch bytes `AscendDequant` takes for a source of `shape` (`[n]` or `[m, n]`) of
/// `type_size`-byte elements: `(max, min)` (AscendC's host-side
/// `GetAscendDequantMaxMinTmpSize(srcShape, typeSize, maxValue, minValue)`): 64 floats, the
/// scales (`n + 8` floats), and all rows (max) or one row (min).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_ascend_dequant_max_min_tmp_size(&[4, 64], 4), ((64 + 256 + 72) * 4, (64 + 64 + 72) * 4));
/// ```
///
/// # Panics
/// Panics if the shape has no elements or is not 1- or 2-dimensional, or `type_size` is not 4
/// (the vendor's host checks).
#[track_caller]
pub fn get_ascend_dequant_max_min_tmp_size(shape: &[usize], type_size: usize) -> (usize, usize) {
    const API: &str = "GetAscendDequantMaxMinTmpSize";
    ensure(shape.iter().product::<usize>() > 0, API, || {
        "the source shape has no elements; its size must be greater than 0".into()
    });
    ensure(matches!(shape.len(), 1 | 2), API, || {
        format!("the source shape has {} dimensions; it must have 1 or 2", shape.len())
    });
    ensure(type_size == 4, API, || format!("typeSize = {type_size} is unsupported; it must be 4 (int32_t)"));
    let (outer, inner) = if shape.len() == 2 { (shape[0], shape[1]) } else { (1, shape[0]) };
    let deq = inner + FLOAT_PER_BLOCK;
    ((FLOAT_PER_REPEAT + outer * inner + deq) * 4, (FLOAT_PER_REPEAT + inner + deq) * 4)
}

/// The vendor's host-side checks of the quantization tiling helpers (`CheckQuantHostCommon`):
/// a non-empty shape, `typeSize` 2 or 4, and the source's bytes a multiple of 32.
#[track_caller]
fn quant_host_checks(api: &'static str, input_size: usize, type_size: usize) {
    host_checks(api, input_size, type_size);
    ensure(input_size * type_size % ONE_BLK_SIZE == 0, api, || {
        format!(
            "the source shape's {input_size} elements of {type_size} bytes are {} bytes, not 32-byte aligned",
            input_size * type_size
        )
    });
}

/// The scratch bytes `AscendQuant` takes for `input_size` elements of `type_size` bytes:
/// `(max, min)` (AscendC's host-side `GetAscendQuantMaxMinTmpSize(srcShape, typeSize, maxValue,
/// minValue)`, with the shape's element count): at least two repeats (512 bytes), at most two
/// bytes per element, rounded up to 32.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_ascend_quant_max_min_tmp_size(512, 2), (1024, 512));
/// assert_eq!(get_ascend_quant_max_min_tmp_size(16, 4), (512, 512));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0, `type_size` is neither 2 nor 4, or the source's bytes are not a
/// multiple of 32 (the vendor's host checks).
#[track_caller]
pub fn get_ascend_quant_max_min_tmp_size(input_size: usize, type_size: usize) -> (usize, usize) {
    quant_host_checks("GetAscendQuantMaxMinTmpSize", input_size, type_size);
    let min = 2 * 256;
    ((input_size * 2).max(min).div_ceil(ONE_BLK_SIZE) * ONE_BLK_SIZE, min)
}

/// `AscendQuant`'s scratch per element: `(max_live_node_count, extra_buf)` (AscendC's host-side
/// `GetAscendQuantTmpBufferFactorSize(maxLiveNodeCount, extraBuf)`): `(2, 0)`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_ascend_quant_tmp_buffer_factor_size(), (2, 0));
/// ```
///
/// # Panics
/// Never.
pub fn get_ascend_quant_tmp_buffer_factor_size() -> (usize, usize) {
    (2, 0)
}
