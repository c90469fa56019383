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
use crate::vector::mask::MASK_PLACEHOLDER;

use super::steps::{adds, muls};
use super::{
    check_chip, check_tmp_operands, counter_rounds, host_checks, split_count, stack_tensor, NARROW,
    ONE_BLK_SIZE, V220_V200,
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
