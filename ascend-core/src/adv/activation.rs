//! Activation functions of the advanced API (the vendor's `adv_api/activation`).

use crate::element::{f16, Element};
use crate::kernel::ctx::get_soc;
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::soc::Soc;
use crate::sync::{event::PIPE_V, flags::pipe_barrier};
use crate::vector::binary::{div_masked, DivElement};
use crate::vector::duplicate::{duplicate_masked, DuplicateElement};
use crate::vector::mask::{
    reset_mask, set_mask_count, set_mask_norm, set_vector_mask, Mask, MASK_PLACEHOLDER,
};
use crate::vector::params::{BinaryRepeatParams, UnaryRepeatParams};
use crate::vector::scalar::{adds_masked, muls_masked, AddsElement, MulsElement};
use crate::vector::unary::{exp_masked, ExpElement};

use super::{check_apart, check_common, host_checks, span, split_size, stack_tensor, whole};

mod sealed {
    pub trait Sealed {}
}

/// Element types of [`sigmoid`]: `half` and `float` (the vendor's page), on the chips that
/// have an implementation (Ascend910, Ascend910B, Ascend310P).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<i32>, tmp: &LocalTensor<u8>) { sigmoid::<_, false>(t, t, tmp, 8) }
/// ```
pub trait SigmoidElement:
    Element + MulsElement + ExpElement + AddsElement + DuplicateElement + DivElement + sealed::Sealed
{
    /// `1` and `-1` in this type.
    #[doc(hidden)]
    const ONE: Self;
    #[doc(hidden)]
    const MINUS_ONE: Self;
}
impl sealed::Sealed for f16 {}
impl SigmoidElement for f16 {
    const ONE: f16 = f16::ONE;
    const MINUS_ONE: f16 = f16::NEG_ONE;
}
impl sealed::Sealed for f32 {}
impl SigmoidElement for f32 {
    const ONE: f32 = 1.0;
    const MINUS_ONE: f32 = -1.0;
}

const SIGMOID: &str = "Sigmoid";
/// The chips whose build of the vendor's library implements `Sigmoid` (`__NPU_ARCH__` 1001,
/// 2002 and 2201; on Ascend310B it compiles to nothing).
const SIGMOID_CHIPS: [Soc; 3] = [Soc::Ascend910, Soc::Ascend910B, Soc::Ascend310P];

/// `dst[i] = 1 / (1 + exp(-src[i]))` for `i < count`, with `shared_tmp_buffer` as scratch
/// (AscendC `Sigmoid<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, calCount)`).
///
/// As the vendor's implementation: rounds of `splitSize = shared_tmp_buffer.get_size() /
/// size_of::<T>()` elements, each `Muls(-1)`, `Exp`, `Adds(1)`, `Duplicate(1)` into the
/// scratch and `Div` of the scratch by the result, separated by `PipeBarrier<PIPE_V>` — in
/// counter mode on Ascend910B and Ascend310P; on Ascend910 (no counter mode) as full repeats
/// of 255, the remaining repeats, then a continuous mask for the tail. The scratch holds
/// ones afterwards, and the mask is reset (normal mode, all lanes). `IS_REUSE_SOURCE` is
/// reserved, as in AscendC: `src` is never written.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 64 * 4);
/// pipe.init_tbuf(&mut tmp, 256);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// x.copy_from_slice(&[0.0f32; 64]);
/// x.set_value(1, 2.0);
/// sigmoid::<_, false>(&y, &x, &tmp.get::<u8>(), 64);
/// assert_eq!(y.get_value(0), 0.5);
/// assert_eq!(y.get_value(1), 1.0 / (1.0 + (-2.0f32).exp()));
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend310B); `count` exceeds `src` or `dst`; a
/// tensor is not in the Unified Buffer; `shared_tmp_buffer` holds less than one element;
/// `dst` overlaps `src`, or the scratch overlaps either (the vendor's constraints); or any
/// instruction's own check fails.
#[track_caller]
pub fn sigmoid<T: SigmoidElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    check_common(SIGMOID, &SIGMOID_CHIPS, dst, src, count);
    let (d, s, t) =
        (span("dst", dst, count), span("src", src, count), whole("sharedTmpBuffer", shared_tmp_buffer));
    check_apart(SIGMOID, &[(d, s), (t, s), (t, d)]);
    let split = split_size::<T>(SIGMOID, shared_tmp_buffer);
    let tmp = shared_tmp_buffer.reinterpret_cast::<T>();
    let (loops, tail) = (count / split, count % split);
    if get_soc() == Soc::Ascend910 {
        // sigmoid_v100_impl.h: no counter mode.
        for i in 0..loops {
            sigmoid_norm(&dst.view(i * split), &src.view(i * split), &tmp, split);
        }
        if tail > 0 {
            sigmoid_norm(&dst.view(loops * split), &src.view(loops * split), &tmp, tail);
        }
        reset_mask();
        return;
    }
    // sigmoid_impl.h
    set_mask_count();
    set_vector_mask::<T>(Mask::Bits([split as u64, 0]));
    for i in 0..loops {
        sigmoid_rounds(&dst.view(i * split), &src.view(i * split), &tmp, 1);
    }
    if tail > 0 {
        set_vector_mask::<T>(Mask::Bits([tail as u64, 0]));
        sigmoid_rounds(&dst.view(loops * split), &src.view(loops * split), &tmp, 1);
    }
    set_mask_norm();
    reset_mask();
}

/// [`sigmoid`] with the stack buffer as scratch (AscendC `Sigmoid<T, isReuseSource>(dstTensor,
/// srcTensor, calCount)`): the Unified Buffer after the core's `TPipe` buffers (see
/// [`pop_stack_buffer`](super::pop_stack_buffer)).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 32 * 2);
/// let (x, y) = (q.get_with_offset::<f16>(32, 0), q.get_with_offset::<f16>(32, 64));
/// x.copy_from_slice(&[f16::ZERO; 32]);
/// sigmoid_stack::<_, false>(&y, &x, 32);
/// assert_eq!(y.get_value(31), f16::from_f32(0.5));
/// ```
///
/// # Panics
/// As [`sigmoid`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn sigmoid_stack<T: SigmoidElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    sigmoid::<T, IS_REUSE_SOURCE>(dst, src, &stack_tensor(SIGMOID), count);
}

/// The scratch bytes `Sigmoid` needs for `input_size` elements of `type_size` bytes: `(max,
/// min)` (AscendC's host-side `GetSigmoidMaxMinTmpSize(srcShape, typeSize, isReuseSource,
/// maxValue, minValue)`, with the shape's element count): at least 256 bytes, at most the
/// input's bytes.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_sigmoid_max_min_tmp_size(1024, 2, false), (2048, 256));
/// assert_eq!(get_sigmoid_max_min_tmp_size(16, 4, false), (256, 256));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0, `type_size` is neither 2 nor 4, or `is_reuse_source` is true
/// (the vendor's host checks).
#[track_caller]
pub fn get_sigmoid_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    const API: &str = "GetSigmoidMaxMinTmpSize";
    const MEMORY_SIZE: usize = 256;
    host_checks(API, input_size, type_size);
    ensure(!is_reuse_source, API, || "isReuseSource = true is not supported; pass false".into());
    ((input_size * type_size).max(MEMORY_SIZE), MEMORY_SIZE)
}

/// One round of `repeat_times` repeats under the mask set (the vendor's
/// `SigmoidIntrinsicsImpl`).
#[track_caller]
fn sigmoid_rounds<T: SigmoidElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: &LocalTensor<T>,
    repeat_times: u8,
) {
    let (unary, binary) = (UnaryRepeatParams::default(), BinaryRepeatParams::default());
    pipe_barrier::<PIPE_V>();
    muls_masked::<T, false>(dst, src, T::MINUS_ONE, MASK_PLACEHOLDER, repeat_times, &unary);
    pipe_barrier::<PIPE_V>();
    exp_masked::<T, false>(dst, dst, MASK_PLACEHOLDER, repeat_times, &unary);
    pipe_barrier::<PIPE_V>();
    adds_masked::<T, false>(dst, dst, T::ONE, MASK_PLACEHOLDER, repeat_times, &unary);
    duplicate_masked::<T, false>(tmp, T::ONE, MASK_PLACEHOLDER, repeat_times, 1, 8);
    pipe_barrier::<PIPE_V>();
    div_masked::<T, false>(dst, tmp, dst, MASK_PLACEHOLDER, repeat_times, &binary);
    pipe_barrier::<PIPE_V>();
}

/// Ascend910's round of `count` elements in normal mask mode (the vendor's `NormCompute`):
/// rounds of 255 full repeats, the remaining full repeats, then the tail under a continuous
/// mask.
#[track_caller]
fn sigmoid_norm<T: SigmoidElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: &LocalTensor<T>,
    count: usize,
) {
    let per_repeat = 256 / T::SIZE;
    let (repeat, tail) = (count / per_repeat, count % per_repeat);
    let (rounding, remaining) = (repeat / 255, repeat % 255);
    set_vector_mask::<T>(per_repeat as u64);
    let mut off = 0;
    for _ in 0..rounding {
        sigmoid_rounds(&dst.view(off), &src.view(off), tmp, 255);
        off += 255 * per_repeat;
    }
    if remaining != 0 {
        sigmoid_rounds(&dst.view(off), &src.view(off), tmp, remaining as u8);
        off += remaining * per_repeat;
    }
    if tail != 0 {
        set_vector_mask::<T>(tail as u64);
        sigmoid_rounds(&dst.view(off), &src.view(off), tmp, 1);
    }
}
