//! Quantization of the advanced API (the vendor's `adv_api/quantization`): `AscendQuant`.
//!
//! Written as the vendor's `ascend_quant_pre_impl.h` (shared by `__NPU_ARCH__` 2201 and 2002,
//! Ascend910B and Ascend310P): counter mode, rounds of `splitSize` elements, the scalar (or
//! per-channel) scale and offset applied in `half` in the scratch, then `Cast<int8_t, half>`
//! with `CAST_NONE`, each instruction followed by `PipeBarrier<PIPE_V>`.

use crate::ctx::get_soc;
use crate::element::{f16, Element};
use crate::error::ensure;
use crate::soc::Soc;
use crate::sync::{pipe_barrier, PIPE_V};
use crate::tensor::LocalTensor;
use crate::vector::cast::{cast_masked, RoundMode};
use crate::vector::mask::{reset_mask, set_mask_count, set_mask_norm, MASK_PLACEHOLDER};

use super::steps::{add, adds, mul, muls};
use super::{
    check_chip, check_tmp_operands, count_mask, counter_rounds, host_checks, split_count, stack_tensor,
    NARROW, ONE_BLK_SIZE, V220_V200,
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
/// [`ascend_quant_per_channel_offset`]): `half` here. The vendor's `float` path narrows
/// `scaleTensor` (and `offsetTensor`) to `half` in place, a `Cast<half, float>` onto the start
/// of its own source, which this emulator's `Cast` rejects (only a complete overlap of
/// same-size types is allowed), so `float` is left out and does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(d: &LocalTensor<i8>, s: &LocalTensor<f32>, tmp: &LocalTensor<u8>) {
///     ascend_quant_per_channel::<_, false>(d, s, tmp, s, 0.0, 32, 32)
/// }
/// ```
pub trait AscendQuantPerChannelElement: AscendQuantElement {}
impl AscendQuantPerChannelElement for f16 {}

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
enum Offset<'a> {
    Scalar(f16),
    Tensor(&'a LocalTensor<f16>),
}

/// The vendor's per-channel `AscendQuantCalc` for `half`: counter mode; for each of the
/// `count / scale_count` rows, rounds of `splitSize` elements (the tail under its own count),
/// each `Mul` by the scale row into the scratch, `Adds` or `Add` of the offset, `Cast<int8_t,
/// half>`, each followed by `PipeBarrier<PIPE_V>`; then normal mode and the mask reset.
#[track_caller]
fn per_channel(
    dst: &LocalTensor<i8>,
    src: &LocalTensor<f16>,
    shared_tmp_buffer: &LocalTensor<u8>,
    scale: &LocalTensor<f16>,
    offset: Offset<'_>,
    scale_count: usize,
    count: usize,
) {
    set_mask_count();
    let tmp = shared_tmp_buffer.reinterpret_cast::<f16>();
    for row in (0..count).step_by(scale_count) {
        // AscendQuantPerChannelImpl on one row of scale_count elements.
        let split = split_count(ASCEND_QUANT, shared_tmp_buffer, f16::SIZE, 1);
        let (loops, tail) = (scale_count / split, scale_count % split);
        count_mask::<f16>(split);
        let round = |c: usize| {
            mul(&tmp, &src.view(row + c), &scale.view(c));
            match offset {
                Offset::Scalar(o) => adds(&tmp, &tmp, o),
                Offset::Tensor(o) => add(&tmp, &tmp, &o.view(c)),
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
/// As the vendor's implementation on Ascend910B and Ascend310P: in counter mode, for each row
/// of `scale_count` elements, rounds of `splitSize = shared_tmp_buffer.get_size() / 2` rounded
/// down to a multiple of 32 elements, each `Mul` by the matching scales into the scratch,
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
    let (src, scale) = (src.reinterpret_cast::<f16>(), scale_tensor.reinterpret_cast::<f16>());
    let offset = f16::from_bits(offset.to_bits_u64() as u16);
    per_channel(dst, &src, shared_tmp_buffer, &scale, Offset::Scalar(offset), scale_count, count);
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
/// `Add` of the offsets instead of `Adds`.
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
    let (src, scale) = (src.reinterpret_cast::<f16>(), scale_tensor.reinterpret_cast::<f16>());
    let offset = offset_tensor.reinterpret_cast::<f16>();
    per_channel(dst, &src, shared_tmp_buffer, &scale, Offset::Tensor(&offset), scale_count, count);
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
