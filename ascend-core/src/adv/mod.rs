//! The advanced API (the vendor's `adv_api`: activation, math, …): functions built from the
//! basic vector instructions, written here as the vendor's implementations write them for each
//! chip — the same instructions, in the same order, with the same mask modes, repeat splits
//! and `PipeBarrier<PIPE_V>`s — so their results and their use of the temporary buffer are the
//! hardware's bit for bit, and the sanitizer sees the same pipe traffic.
//!
//! A function with a temporary buffer has two forms, as in AscendC:
//! - `xxx(dst, src, shared_tmp_buffer, count)` (the vendor's `sharedTmpBuffer` overload): the
//!   caller lends a `LocalTensor<u8>`; its size sets how many elements one round computes;
//! - `xxx_stack(dst, src, count)` (the overload without it): the buffer is the Unified Buffer
//!   after the core's `TPipe` buffers ([`pop_stack_buffer`]).
//!
//! The vendor's forms without `count` (the whole source tensor) are the same calls with
//! `src.get_size()`. `IS_REUSE_SOURCE` is kept where the vendor's signature has it, so
//! `Sigmoid<T, false>(…)` ports as `sigmoid::<_, false>(…)`.
//!
//! A chip whose build of the vendor's library compiles the function to nothing (no
//! implementation for its architecture) gets an error naming the chip, not a silent no-op.

pub mod activation;
pub mod activation_gelu;
pub mod activation_glu;
pub mod antiquant;
pub mod batchnorm;
pub mod digamma;
pub mod dropout;
pub mod groupnorm;
pub mod index;
pub mod layernorm;
pub mod layernorm_grad;
pub mod lgamma;
pub mod math;
pub mod math_ext;
pub mod math_more;
pub mod math_power;
pub mod math_trig;
pub mod matmul;
pub mod matmul_tiling;
pub mod norm_more;
pub mod normalization;
pub mod normalize;
pub mod pad;
pub mod quant;
pub mod reduce;
pub mod reduce_xy;
pub mod select;
pub mod softmax;
pub mod softmax_flash;
pub mod softmax_flash_v1;
pub mod softmax_flash_v3;
pub mod softmax_more;
pub mod sort;
pub(crate) mod steps;
pub mod transdata;
pub mod transpose;
pub mod welford_update;

use crate::element::Element;
use crate::kernel::ctx::{get_soc, with_core};
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::position::TPosition;
use crate::soc::Soc;
use crate::vector::mask::{reset_mask, set_mask_count, set_mask_norm, set_vector_mask, Mask};
use crate::vector::params::UnaryRepeatParams;

/// Bytes at the end of the Unified Buffer that `PopStackBuffer` leaves out on Ascend910B (the
/// vendor's `KfcMsg` slot).
pub(crate) const KFC_MSG_BYTES: usize = 64;

/// The chips of `__NPU_ARCH__` 2201 and 2002 (Ascend910B and Ascend310P), the two most
/// advanced functions have an implementation for.
pub(crate) const V220_V200: [Soc; 2] = [Soc::Ascend910B, Soc::Ascend310P];

/// The vendor's `ONE_BLK_SIZE`: bytes in a data block; split counts are multiples of it.
pub(crate) const ONE_BLK_SIZE: usize = 32;

/// `{1, 1, DEFAULT_REPEAT_STRIDE, DEFAULT_REPEAT_STRIDE}`.
pub(crate) const SAME: UnaryRepeatParams = UnaryRepeatParams::new(1, 1, 8, 8);
/// `half → float`: `{1, 1, DEFAULT_REPEAT_STRIDE, HALF_DEFAULT_REPEAT_STRIDE}`.
pub(crate) const WIDEN: UnaryRepeatParams = UnaryRepeatParams::new(1, 1, 8, 4);
/// `float → half`: `{1, 1, HALF_DEFAULT_REPEAT_STRIDE, DEFAULT_REPEAT_STRIDE}`.
pub(crate) const NARROW: UnaryRepeatParams = UnaryRepeatParams::new(1, 1, 4, 8);

/// The Unified Buffer after the core's `TPipe` buffers, as a `VECCALC` tensor of `T` (AscendC
/// `PopStackBuffer<T, TPosition::LCM>`): from the pipe's end to the UB's end, less the 64-byte
/// `KfcMsg` slot on Ascend910B. The advanced API's forms without a temporary buffer take theirs
/// from here.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut buf = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut buf, 1024);
/// let stack = pop_stack_buffer::<u8>();
/// assert_eq!(stack.get_phy_addr(), 1024);
/// assert_eq!(stack.get_size(), get_soc().ub_size() - 1024 - 64); // Ascend910B by default
/// ```
///
/// # Panics
/// Panics if the core has no `TPipe`, or its buffers leave no room.
#[track_caller]
pub fn pop_stack_buffer<T: Element>() -> LocalTensor<T> {
    let (start, bytes) = stack_bytes("PopStackBuffer", "the stack buffer");
    LocalTensor::new(TPosition::VECCALC, start, bytes / T::SIZE)
}

/// The stack buffer's first byte and length (see [`pop_stack_buffer`]); `api` names the caller
/// `v` rounded up to a multiple of `unit` (the host helpers' `align32` is `align_up(v, 32)`).
pub(crate) const fn align_up(v: usize, unit: usize) -> usize {
    v.div_ceil(unit) * unit
}

/// in errors, `what` the buffer.
#[track_caller]
pub(crate) fn stack_bytes(api: &'static str, what: &'static str) -> (usize, usize) {
    let soc = get_soc();
    let (alive, que_end, ub_size) = with_core(|c| (c.pipe_alive.get(), c.pipe_end.get(), c.ub.size()));
    ensure(alive, api, || {
        format!(
            "the core has no TPipe: {api} takes {what} from the Unified Buffer after the TPipe's buffers \
             (PopStackBuffer, which needs GetTPipePtr()); create the TPipe first"
        )
    });
    let end = if soc == Soc::Ascend910B { ub_size - KFC_MSG_BYTES } else { ub_size };
    ensure(que_end < end, api, || {
        format!(
            "no space left in the Unified Buffer for {what}: the TPipe's buffers reach byte {que_end}, and {what} \
             is the space after them up to byte {end}"
        )
    });
    (que_end, end - que_end)
}

/// The checks every advanced function makes first: the chip has an implementation, `count`
/// fits the source and destination, and the tensors are in the Unified Buffer.
#[track_caller]
pub(crate) fn check_common<T: Element>(
    api: &'static str,
    supported: &[Soc],
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    check_chip(api, supported);
    for (name, t) in [("dst", dst), ("src", src)] {
        let pos = t.get_position();
        ensure(pos.is_ub(), api, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
    }
    ensure(count <= src.get_size(), api, || {
        format!("calCount = {count} exceeds srcTensor's {} {} elements", src.get_size(), T::DTYPE)
    });
    ensure(count <= dst.get_size(), api, || {
        format!("calCount = {count} exceeds dstTensor's {} {} elements", dst.get_size(), T::DTYPE)
    });
}

/// Fails unless the chip is one of `supported`, the chips the vendor's library implements `api`
/// for (elsewhere its build compiles the call to nothing).
#[track_caller]
pub(crate) fn check_chip(api: &'static str, supported: &[Soc]) {
    let soc = get_soc();
    ensure(supported.contains(&soc), api, || {
        format!(
            "{api} has no implementation on {soc} ({}): the vendor's library compiles it to nothing there; it runs \
             on {}",
            soc.product_line(),
            supported.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", ")
        )
    });
}

/// The elements of `T` one round computes with a temporary buffer of `tmp` (the vendor's
/// `splitSize = sharedTmpBuffer.GetSize() / sizeof(T)`); fails when it is 0.
#[track_caller]
pub(crate) fn split_size<T: Element>(api: &'static str, tmp: &LocalTensor<u8>) -> usize {
    let split = tmp.get_size() / T::SIZE;
    ensure(split != 0, api, || {
        format!(
            "sharedTmpBuffer has {} bytes, less than one {} element (splitSize would be 0)",
            tmp.get_size(),
            T::DTYPE
        )
    });
    split
}

/// The stack buffer as a `u8` tensor (`PopStackBuffer<uint8_t, TPosition::LCM>`), for the
/// forms without a temporary buffer; `api` names the caller in errors.
#[track_caller]
pub(crate) fn stack_tensor(api: &'static str) -> LocalTensor<u8> {
    let (start, bytes) = stack_bytes(api, "the stack buffer");
    LocalTensor::new(TPosition::VECCALC, start, bytes)
}

/// Fails unless the chip is one of `chips`, for a function whose header would build it on any
/// chip but whose page lists `chips` only (`listed` names them in the message).
#[track_caller]
pub(crate) fn check_documented_chip(api: &'static str, chips: &[Soc], listed: &'static str) {
    let soc = get_soc();
    ensure(chips.contains(&soc), api, || {
        format!(
            "{api} is not supported on {soc} ({}): the vendor's page lists it for {listed} only",
            soc.product_line()
        )
    });
}

/// A named UB byte range `[start, end)`.
pub(crate) type Span = (&'static str, usize, usize);

/// The first `n` elements of `t` as a named [`Span`].
pub(crate) fn span<T: Element>(name: &'static str, t: &LocalTensor<T>, n: usize) -> Span {
    (name, t.get_phy_addr(), t.get_phy_addr() + n * T::SIZE)
}

/// All of `t` as a named [`Span`].
pub(crate) fn whole<T: Element>(name: &'static str, t: &LocalTensor<T>) -> Span {
    span(name, t, t.get_size())
}

/// Fails unless each pair of `pairs` is apart (an empty range is apart from everything): the
/// overlaps the vendor's pages forbid.
#[track_caller]
pub(crate) fn check_apart(api: &'static str, pairs: &[(Span, Span)]) {
    for &(x, y) in pairs {
        let apart = x.2 <= y.1 || y.2 <= x.1 || x.1 == x.2 || y.1 == y.2;
        ensure(apart, api, || {
            format!(
                "{} UB bytes [{:#x}, {:#x}) overlap {} UB bytes [{:#x}, {:#x}); the vendor's page forbids it",
                x.0, x.1, x.2, y.0, y.1, y.2
            )
        });
    }
}

/// Fails unless `tmp` is in the Unified Buffer, `dst`'s and `src`'s first `count` elements are
/// apart (when `dst_src` forbids their overlap), and the scratch is apart from both (the
/// vendor's pages).
#[track_caller]
pub(crate) fn check_tmp_operands<T: Element, U: Element>(
    api: &'static str,
    dst: &LocalTensor<T>,
    src: &LocalTensor<U>,
    tmp: &LocalTensor<u8>,
    count: usize,
    dst_src: bool,
) {
    let pos = tmp.get_position();
    ensure(pos.is_ub(), api, || {
        format!("sharedTmpBuffer is at position {pos}; it must be VECIN, VECOUT or VECCALC")
    });
    let (d, s, t) = (span("dst", dst, count), span("src", src, count), whole("sharedTmpBuffer", tmp));
    if dst_src {
        check_apart(api, &[(d, s)]);
    }
    check_apart(api, &[(t, s), (t, d)]);
}

/// The elements one round computes: `bytes / unit / div`, rounded down to a multiple of 32
/// (the vendor's `splitCount`); fails when it is 0 (the vendor's `CheckTmpBufferSize`), naming
/// the bytes one split of 32 needs.
#[track_caller]
pub(crate) fn split_count(api: &'static str, tmp: &LocalTensor<u8>, unit: usize, div: usize) -> usize {
    let bytes = tmp.get_size();
    let split = bytes / unit / div / ONE_BLK_SIZE * ONE_BLK_SIZE;
    ensure(split > 0, api, || {
        format!(
            "sharedTmpBuffer has {bytes} bytes; it must hold at least {} (one split of {ONE_BLK_SIZE} elements; see the \
             host's Get{api}MaxMinTmpSize)",
            unit * div * ONE_BLK_SIZE
        )
    });
    split
}

/// Sets the counter-mode mask to `n` elements (`SetVectorMask<T, MaskMode::COUNTER>(0, n)`).
#[track_caller]
pub(crate) fn count_mask<T: Element>(n: usize) {
    set_vector_mask::<T>(Mask::Bits([n as u64, 0]));
}

/// The vendor's split loop in counter mode: `SetMaskCount`, the mask (counted in `T`) to
/// `split`, `compute(offset, size)` per full split, the mask to the tail and `compute` on it,
/// then `SetMaskNorm` and `ResetMask`. `size` is `split`, or for the tail `tail_size(tail)`
/// (some functions lay their scratch out by the tail rounded up to 32, see [`tail_up`]).
#[track_caller]
pub(crate) fn counter_rounds<T: Element>(
    count: usize,
    split: usize,
    tail_size: impl Fn(usize) -> usize,
    mut compute: impl FnMut(usize, usize),
) {
    let (loops, tail) = (count / split, count % split);
    set_mask_count();
    count_mask::<T>(split);
    for i in 0..loops {
        compute(i * split, split);
    }
    if tail > 0 {
        count_mask::<T>(tail);
        compute(loops * split, tail_size(tail));
    }
    set_mask_norm();
    reset_mask();
}

/// The tail rounded up to a multiple of 32 (the vendor's `tailCount`).
pub(crate) fn tail_up(tail: usize) -> usize {
    tail.div_ceil(ONE_BLK_SIZE) * ONE_BLK_SIZE
}

/// The `(max, min)` scratch bytes of a function whose kernel keeps `fac` tensors per element,
/// `fac` from `[float, float with isReuseSource, half]` (the vendor's `Get*MaxMinTmpSize` of
/// `Digamma`, `Lgamma`): `fac · max(input bytes, 256)` and `fac · 256`, after [`host_checks`].
#[track_caller]
pub(crate) fn factor_tmp_sizes(
    api: &'static str,
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
    fac: [usize; 3],
) -> (usize, usize) {
    host_checks(api, input_size, type_size);
    let fac = match (type_size, is_reuse_source) {
        (4, false) => fac[0],
        (4, true) => fac[1],
        _ => fac[2],
    };
    (fac * (input_size * type_size).max(256), fac * 256)
}

/// The vendor's host-side checks of a tiling helper: a non-empty shape, `typeSize` 2 or 4.
#[track_caller]
pub(crate) fn host_checks(api: &'static str, input_size: usize, type_size: usize) {
    ensure(input_size > 0, api, || {
        "the source shape has no elements; its size must be greater than 0".into()
    });
    ensure(type_size == 2 || type_size == 4, api, || {
        format!("typeSize = {type_size} is unsupported; it must be 2 or 4")
    });
}
