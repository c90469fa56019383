//! Data-layout functions of the advanced API (the vendor's `adv_api/pad`): `Broadcast`
//! ([`broadcast`], [`broadcast_stack`]) with its host helper
//! [`get_broad_cast_max_min_tmp_size`]; `Pad` ([`pad`], [`pad_stack`]) and `UnPad`
//! ([`un_pad`], [`un_pad_stack`]) with [`PadParams`], [`UnPadParams`], their tilings
//! [`PadTiling`], [`UnPadTiling`] and host helpers ([`get_pad_max_min_tmp_size`],
//! [`pad_tiling_func`], [`get_un_pad_max_min_tmp_size`], [`un_pad_tiling_func`]).
//!
//! `Broadcast` is the vendor's `broadcast_common_impl.h` with `broadcast_v220_impl.h` on
//! Ascend910B and `broadcast_v200_impl.h` on Ascend310P (its page also lists Ascend 950, not
//! emulated), for `half` and `float`: in counter mode, a copy when the shapes are equal
//! (`Copy` on Ascend910B, `DataCopy` on Ascend310P), `Duplicate` of the one element when the
//! source has one, and otherwise, for two dimensions:
//! - `axis = 0` (`[1, k] → [m, k]`, both chips): a zero block, then `Or` of each source block
//!   with it into 8 rows per instruction (normal mode, the destination's block stride one
//!   row), or, for rows of 255 blocks or more, one counter-mode `Or` per row;
//! - `axis = 1` (`[m, 1] → [m, k]`) on Ascend910B: `Brcb` of each source element to one
//!   block of the scratch, then counter-mode `Copy` of that block to each row (the `Copy`
//!   counter mode counts the elements of each repeat); for `k` not 32-byte aligned the rows
//!   go to the scratch padded to a block and `GatherMask` (pattern 7, counter mode) packs
//!   them into the destination. Rounds of as many rows as the scratch holds.
//! - `axis = 1` on Ascend310P: the `axis = 0` broadcast of the source row to `k` rows of
//!   the scratch, then `Transpose` (`TRANSPOSE_NCHW2NHWC`, `C = k`, `H = 1`, `W = m`) into
//!   the destination; in rounds of rows, or, for `m` of 255 blocks or more, one counter-mode
//!   `Or` per scratch row and one `Transpose`.
//!
//! One check the vendor does not make: on Ascend310P its round size (`GetAlignLoopNumbers200`)
//! gives rounds of `(tmp - 32/sizeof(T)) / (32/sizeof(T) * ceil(k / 8)) * 32/sizeof(T)` rows,
//! but a round's scratch holds `k` rows of that many elements, about 8 times the buffer; so
//! a buffer that does not hold the round is an error here (the hardware writes past it).
//! A round that fits is always the only one, so the buffer must hold one block and `m * k`
//! elements (the host's maximum); the host's minimum does not pass the kernel's own check.
//!
//! `Pad` and `UnPad` are the vendor's `pad_base_impl.h`, `pad_v220_impl.h` and
//! `pad_v200_impl.h` (see [`pad`] and [`un_pad`]). Where the vendor's code silently goes
//! wrong, the call fails instead: an unaligned `Pad` whose `leftPad + width + rightPad` is not
//! the aligned width (the column stream would shift into the next row); on Ascend310P an
//! `UnPad` whose kept elements are not whole blocks (its last copy drops the remainder) or
//! whose `rightPad` exceeds the last fractal of a row (its count wraps); a tiling whose
//! `tmpBuffer1BlockNum` exceeds `TransDataTo5HD`'s 8-bit repeat.

use crate::element::{f16, Element};
use crate::kernel::ctx::get_soc;
use crate::kernel::error::ensure;
use crate::memory::copy::DataCopyParams;
use crate::memory::tensor::LocalTensor;
use crate::position::TPosition;
use crate::soc::Soc;
use crate::sync::{
    event::{HardEvent, PIPE_V},
    flags::pipe_barrier,
};
use crate::vector::binary::or_masked;
use crate::vector::brcb::{brcb, BrcbElement, BrcbRepeatParams};
use crate::vector::copy::{copy_masked, CopyElement, CopyRepeatParams};
use crate::vector::duplicate::{duplicate, duplicate_masked, DuplicateElement};
use crate::vector::gather::GatherElement;
use crate::vector::gather_mask::{gather_mask, GatherMaskParams, GatherPattern};
use crate::vector::mask::{reset_mask, set_mask_count, set_mask_norm, set_vector_mask, MASK_PLACEHOLDER};
use crate::vector::params::BinaryRepeatParams;
use crate::vector::transpose::{
    trans_data_to_5hd_addr, transpose_ext, TransDataTo5HDParams, TransposeExtElement, TransposeParamsExt,
    TransposeType,
};

use super::index::sync;
use super::{check_apart, check_chip, count_mask, span, stack_tensor, whole, ONE_BLK_SIZE, V220_V200};

mod sealed {
    pub trait Sealed {}
}
impl sealed::Sealed for f16 {}
impl sealed::Sealed for f32 {}

/// Element types of [`broadcast`]: `half` and `float` (the vendor's page also lists
/// `int8_t`/`uint8_t`, which it casts to `half`; not provided here).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<i32>, tmp: &LocalTensor<u8>) {
///     broadcast::<_, 1, 0, false>(t, t, &[8], &[1], tmp)
/// }
/// ```
pub trait BroadcastElement:
    Element + CopyElement + BrcbElement + GatherElement + TransposeExtElement + DuplicateElement + sealed::Sealed
{
}
impl BroadcastElement for f16 {}
impl BroadcastElement for f32 {}

const BROADCAST: &str = "Broadcast";

/// Elements `Brcb` broadcasts per repeat (`BRCB_ONE_SIZE`).
const BRCB_ONE_SIZE: usize = 8;
/// Rows one `Or` of the first-axis broadcast writes (`ONE_VOR_BLOCK_DIM`).
const ONE_VOR_BLOCK_DIM: usize = 8;
/// `uint16_t` lanes of a block (`ELEMENT_NUM_FOR_UINT16`).
const ELEMENT_NUM_FOR_UINT16: usize = 16;
/// The repeat limit (`MAX_REPEAT_NUM`, `MAX_REPEAT_TIMES`).
const MAX_REPEAT: usize = 255;
/// The most `Brcb` repeats per instruction: 254 for `half` (`BRCB_HALF_MAX_REPEATE_TIMES`),
/// 255 for `float`.
const fn brcb_max_repeat(size: usize) -> usize {
    if size == 4 {
        255
    } else {
        254
    }
}

/// The empty tensor the vendor passes as `Transpose`'s `sharedTmpBuffer` on Ascend310P
/// (which neither checks nor uses it).
fn no_tmp() -> LocalTensor<u8> {
    LocalTensor::new(TPosition::VECCALC, 0, 0)
}

// ---------------------------------------------------------------------------------------
// Broadcast
// ---------------------------------------------------------------------------------------

/// The product of a shape's dimensions.
fn size_of_shape(shape: &[u32]) -> usize {
    shape.iter().map(|&d| d as usize).product()
}

/// Broadcasts `src_local` of shape `src_shape` to `dst_local` of shape `dst_shape` (AscendC
/// `Broadcast<T, dim, axis, isReuseSource>(dstLocal, srcLocal, dstShape, srcShape,
/// sharedTmpBuffer)`), `DIM` 1 or 2, `AXIS` the broadcast axis (0 or 1): each `srcShape[i]`
/// is `dstShape[i]` or 1, and the result is the source repeated along the axes where it is 1,
/// bit for bit, on Ascend910B and Ascend310P, as the [module documentation](self) describes.
/// Elements past `dstShape`'s product are not written.
///
/// The scratch a two-dimensional broadcast needs ([`get_broad_cast_max_min_tmp_size`]):
/// `axis = 0`: one block. `axis = 1` on Ascend910B: `(32/sizeof(T))²` elements of `T`, plus
/// `32/sizeof(T) * k'` for `k` not aligned (`k'` is `k` rounded up to a block), for rounds of
/// `32/sizeof(T)` rows; a larger buffer makes larger rounds. `axis = 1` on Ascend310P: one
/// block plus `k` times a round's rows (see the [module documentation](self)).
///
/// `IS_REUSE_SOURCE` is the vendor's reserved parameter; it changes nothing.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut t) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 64);
/// pipe.init_tbuf(&mut b, 16 * 16 * 4);
/// let (max, _min) = get_broad_cast_max_min_tmp_size(Soc::Ascend910B, &[16, 1], &[16, 16], 4, false);
/// pipe.init_tbuf(&mut t, max);
/// let (src, dst, tmp) = (a.get::<f32>(), b.get::<f32>(), t.get::<u8>());
/// src.copy_from_slice(&(1..=16).map(|i| i as f32).collect::<Vec<_>>());
/// broadcast::<f32, 2, 1, false>(&dst, &src, &[16, 16], &[16, 1], &tmp);
/// assert_eq!(dst.get_value(0), 1.0);
/// assert_eq!(dst.get_value(16 * 3 + 15), 4.0);
/// ```
///
/// `DIM` and `AXIS` out of range do not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<f32>, tmp: &LocalTensor<u8>) {
///     broadcast::<f32, 3, 0, false>(t, t, &[1, 2, 8], &[1, 2, 1], tmp)
/// }
/// let _instantiated: fn(&LocalTensor<f32>, &LocalTensor<u8>) = f;
/// ```
///
/// # Panics
/// Panics if the chip has no implementation; an operand is not in the Unified Buffer; a
/// dimension is 0 or `srcShape[i]` is neither `dstShape[i]` nor 1; the shapes broadcast
/// another axis than `AXIS`; `src_local` or `dst_local` holds fewer elements than its shape
/// (for `axis = 1` on Ascend910B `src_local` must also hold `m` rounded up to 8, which
/// `Brcb` reads); `dst_local` and `src_local` overlap, or the scratch overlaps either;
/// `axis = 0` with `k` not 32-byte aligned, or `axis = 1` on Ascend310P with `m` not 32-byte
/// aligned (the vendor's "Non-alignment is not supported"); the scratch is smaller than the
/// vendor's minimum or (Ascend310P) than a round; or an instruction's own check fails (e.g.
/// `Transpose`'s 4095 limits on Ascend310P, a copy of an unaligned size with equal shapes on
/// Ascend310P).
#[track_caller]
pub fn broadcast<T: BroadcastElement, const DIM: usize, const AXIS: usize, const IS_REUSE_SOURCE: bool>(
    dst_local: &LocalTensor<T>,
    src_local: &LocalTensor<T>,
    dst_shape: &[u32; DIM],
    src_shape: &[u32; DIM],
    shared_tmp_buffer: &LocalTensor<u8>,
) {
    const {
        assert!(DIM == 1 || DIM == 2, "Broadcast: dim must be 1 or 2");
        assert!(AXIS == 0 || AXIS == 1, "Broadcast: axis must be 0 or 1");
    }
    broadcast_impl::<T>(dst_local, src_local, dst_shape, src_shape, AXIS, shared_tmp_buffer);
}

/// [`broadcast`] with the scratch from the stack buffer (AscendC `Broadcast<T, dim, axis,
/// isReuseSource>(dstLocal, srcLocal, dstShape, srcShape)`, which takes it from
/// `PopStackBuffer`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 64);
/// pipe.init_tbuf(&mut b, 4 * 16 * 2);
/// let (src, dst) = (a.get::<f16>(), b.get::<f16>());
/// src.copy_from_slice(&(0..16).map(|i| f16::from_f32(i as f32)).collect::<Vec<_>>());
/// broadcast_stack::<f16, 2, 0, false>(&dst, &src, &[4, 16], &[1, 16]);
/// assert_eq!(dst.get_value(3 * 16 + 5), f16::from_f32(5.0));
/// ```
///
/// # Panics
/// As [`broadcast`], and if the core has no `TPipe` or its buffers leave no stack buffer.
#[track_caller]
pub fn broadcast_stack<
    T: BroadcastElement,
    const DIM: usize,
    const AXIS: usize,
    const IS_REUSE_SOURCE: bool,
>(
    dst_local: &LocalTensor<T>,
    src_local: &LocalTensor<T>,
    dst_shape: &[u32; DIM],
    src_shape: &[u32; DIM],
) {
    const {
        assert!(DIM == 1 || DIM == 2, "Broadcast: dim must be 1 or 2");
        assert!(AXIS == 0 || AXIS == 1, "Broadcast: axis must be 0 or 1");
    }
    let tmp = stack_tensor(BROADCAST);
    broadcast_impl::<T>(dst_local, src_local, dst_shape, src_shape, AXIS, &tmp);
}

/// What a call computes, from the shapes: the vendor's three branches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BrcCase {
    /// `srcSize == dstSize`: a copy.
    Same,
    /// `srcSize == 1`: `Duplicate`.
    One,
    /// `[1, k] → [m, k]`.
    First { m: usize, k: usize },
    /// `[m, 1] → [m, k]`.
    Last { m: usize, k: usize },
}

/// The checks of [`broadcast`], returning its case.
#[track_caller]
fn check_broadcast<T: BroadcastElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    dst_shape: &[u32],
    src_shape: &[u32],
    axis: usize,
    tmp: &LocalTensor<u8>,
) -> BrcCase {
    let api = BROADCAST;
    let soc = get_soc();
    check_chip(api, &V220_V200);
    for (name, pos) in [
        ("dstLocal", dst.get_position()),
        ("srcLocal", src.get_position()),
        ("sharedTmpBuffer", tmp.get_position()),
    ] {
        ensure(pos.is_ub(), api, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
    }
    for i in 0..dst_shape.len() {
        let (d, s) = (dst_shape[i], src_shape[i]);
        ensure(d > 0 && s > 0, api, || {
            format!("dstShape = {dst_shape:?}, srcShape = {src_shape:?}: a dimension is 0")
        });
        ensure(s == d || s == 1, api, || {
            format!(
                "srcShape = {src_shape:?} cannot broadcast to dstShape = {dst_shape:?}: srcShape[{i}] = {s} is \
                 neither dstShape[{i}] = {d} nor 1"
            )
        });
    }
    let (src_size, dst_size) = (size_of_shape(src_shape), size_of_shape(dst_shape));
    let case = if src_size == dst_size {
        BrcCase::Same
    } else if src_size == 1 {
        BrcCase::One
    } else {
        // Two dimensions, one of them broadcast (a one-dimensional source of more than one
        // element has the destination's size).
        let (m, k) = (dst_shape[0] as usize, dst_shape[1] as usize);
        let broadcast_axis = if src_shape[0] == 1 { 0 } else { 1 };
        ensure(broadcast_axis == axis, api, || {
            format!(
                "axis = {axis}, but srcShape = {src_shape:?} broadcasts axis {broadcast_axis} of dstShape = \
                 {dst_shape:?}"
            )
        });
        if axis == 0 {
            BrcCase::First { m, k }
        } else {
            BrcCase::Last { m, k }
        }
    };
    ensure(src.get_size() >= src_size, api, || {
        format!("srcLocal holds {} elements, fewer than srcShape {src_shape:?}'s {src_size}", src.get_size())
    });
    ensure(dst.get_size() >= dst_size, api, || {
        format!("dstLocal holds {} elements, fewer than dstShape {dst_shape:?}'s {dst_size}", dst.get_size())
    });
    let (d, s) = (span("dstLocal", dst, dst_size), span("srcLocal", src, src_size));
    let t = whole("sharedTmpBuffer", tmp);
    check_apart(api, &[(d, s), (t, d), (t, s)]);
    let obe = ONE_BLK_SIZE / T::SIZE;
    let tmp_elems = tmp.get_size() / T::SIZE;
    match case {
        BrcCase::Same | BrcCase::One => {}
        BrcCase::First { k, .. } => {
            ensure(k % obe == 0, api, || {
                format!(
                    "axis = 0 with dstShape[1] = {k} {}: Non-alignment is not supported (dstShape[1] must be a \
                     multiple of {obe}, 32 bytes)",
                    T::DTYPE
                )
            });
            need_tmp(api, tmp, ONE_BLK_SIZE, "one block of zeros");
        }
        BrcCase::Last { m, k } if soc == Soc::Ascend310P => {
            ensure(m % obe == 0, api, || {
                format!(
                    "axis = 1 with dstShape[0] = {m} {} on {soc}: Non-alignment is not supported (dstShape[0] must \
                     be a multiple of {obe}, 32 bytes)",
                    T::DTYPE
                )
            });
            if m < MAX_REPEAT * obe {
                let (one, _, _) = align_loop_numbers_200(api, obe, m, k, tmp_elems);
                let need = (obe + k * one.min(m)) * T::SIZE;
                need_tmp(api, tmp, need, "a round's rows (the vendor's round size overruns its buffer)");
            } else {
                need_tmp(api, tmp, (obe + k * m) * T::SIZE, "the zero block and k rows of m elements");
            }
        }
        BrcCase::Last { m, k } => {
            let min = if k % obe == 0 { obe * obe } else { obe * obe + obe * k.div_ceil(obe) * obe };
            ensure(tmp_elems >= min, api, || {
                format!(
                    "sharedTmpBuffer holds {tmp_elems} {} elements; axis = 1 with dstShape[1] = {k} needs at least \
                     {min} (minTmpBufferSize; see GetBroadCastMaxMinTmpSize)",
                    T::DTYPE
                )
            });
            ensure(src.get_size() >= m.div_ceil(BRCB_ONE_SIZE) * BRCB_ONE_SIZE, api, || {
                format!(
                    "srcLocal holds {} elements; Brcb reads dstShape[0] = {m} rounded up to {BRCB_ONE_SIZE}",
                    src.get_size()
                )
            });
        }
    }
    case
}

/// Fails unless `tmp` holds `need` bytes (`what` names them).
#[track_caller]
fn need_tmp(api: &'static str, tmp: &LocalTensor<u8>, need: usize, what: &str) {
    ensure(tmp.get_size() >= need, api, || {
        format!("sharedTmpBuffer holds {} bytes; it must hold {need} for {what}", tmp.get_size())
    });
}

/// The vendor's `GetAlignLoopNumbers200`: `(oneRepeatSize, rangeM, tailM)` with its two
/// checks (`tmp_elems` is the scratch in elements of `T`).
#[track_caller]
fn align_loop_numbers_200(
    api: &'static str,
    obe: usize,
    first_dim: usize,
    num_blocks: usize,
    tmp_elems: usize,
) -> (usize, usize, usize) {
    let min = obe * num_blocks.div_ceil(ONE_VOR_BLOCK_DIM);
    ensure(tmp_elems > obe && tmp_elems - obe > min, api, || {
        format!(
            "sharedTmpBuffer holds {tmp_elems} elements; less one block ({obe}) it must hold more than \
             minTmpBufferSize = {min}"
        )
    });
    let one = (tmp_elems - obe) / min * obe;
    (one, first_dim / one, first_dim % one)
}

/// The vendor's `BroadCastCommon` (sharedTmpBuffer form) for `half` and `float`.
#[track_caller]
fn broadcast_impl<T: BroadcastElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    dst_shape: &[u32],
    src_shape: &[u32],
    axis: usize,
    shared_tmp_buffer: &LocalTensor<u8>,
) {
    let case = check_broadcast(dst, src, dst_shape, src_shape, axis, shared_tmp_buffer);
    let tmp = shared_tmp_buffer.reinterpret_cast::<T>();
    set_mask_count();
    let dst_size = size_of_shape(dst_shape);
    match case {
        BrcCase::Same => no_broad(dst, src, dst_size),
        BrcCase::One => {
            sync::<HardEvent::V_S>();
            let scalar = src.get_value(0);
            sync::<HardEvent::S_V>();
            duplicate(dst, scalar, dst_size);
            pipe_barrier::<PIPE_V>();
        }
        BrcCase::First { m, k } => first_dim(dst, src, &tmp, m, k),
        BrcCase::Last { m, k } => {
            if get_soc() == Soc::Ascend310P {
                last_dim_200(dst, src, &tmp, m, k)
            } else {
                last_dim_220(dst, src, &tmp, m, k)
            }
        }
    }
    set_mask_count();
    set_mask_norm();
    reset_mask();
}

/// The vendor's `NoBroad`: the counter mask to `size`, then `Copy` (Ascend910B) or
/// `DataCopy` (Ascend310P), and `PipeBarrier<PIPE_V>`.
#[track_caller]
fn no_broad<T: BroadcastElement>(dst: &LocalTensor<T>, src: &LocalTensor<T>, size: usize) {
    count_mask::<T>(size);
    if get_soc() == Soc::Ascend310P {
        crate::memory::copy::data_copy(dst, src, size);
    } else {
        copy_masked::<T, false>(dst, src, MASK_PLACEHOLDER, 1, &CopyRepeatParams::default());
    }
    pipe_barrier::<PIPE_V>();
}

/// `uint16_t`s per element (the vendor's `dtypeCount`).
const fn dtype_count(size: usize) -> usize {
    if size == 4 {
        2
    } else {
        1
    }
}

/// The vendor's `TwoDimBroadCastDimAlign`: `rows` copies of the `cols`-element row `src` into
/// `dst` by `Or` with the zero block, 8 rows per instruction in normal mode, one repeat per
/// block of the row; then `PipeBarrier<PIPE_V>`.
#[track_caller]
fn dim_align<T: BroadcastElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    zero: &LocalTensor<T>,
    rows: usize,
    cols: usize,
) {
    let obe = ONE_BLK_SIZE / T::SIZE;
    let or_counts = rows / ONE_VOR_BLOCK_DIM;
    let repeat = (cols / obe) as u8;
    set_mask_norm();
    set_vector_mask::<u16>((ONE_VOR_BLOCK_DIM * ELEMENT_NUM_FOR_UINT16) as u64);
    let dst_blk = (cols * dtype_count(T::SIZE) / ELEMENT_NUM_FOR_UINT16) as u8;
    let params = BinaryRepeatParams::new(dst_blk, 0, 0, 1, 1, 0);
    let (s16, z16) = (src.reinterpret_cast::<u16>(), zero.reinterpret_cast::<u16>());
    let mut off = 0;
    for _ in 0..or_counts {
        or_masked::<u16, false>(
            &dst.view(off).reinterpret_cast(),
            &s16,
            &z16,
            MASK_PLACEHOLDER,
            repeat,
            &params,
        );
        off += ONE_VOR_BLOCK_DIM * cols;
    }
    let tail = rows - or_counts * ONE_VOR_BLOCK_DIM;
    if tail > 0 {
        set_mask_norm();
        set_vector_mask::<u16>((tail * ELEMENT_NUM_FOR_UINT16) as u64);
        or_masked::<u16, false>(
            &dst.view(off).reinterpret_cast(),
            &s16,
            &z16,
            MASK_PLACEHOLDER,
            repeat,
            &params,
        );
    }
    pipe_barrier::<PIPE_V>();
}

/// The vendor's `LoopBroadCast`: `rows` copies of the `cols`-element row `src` into `dst`,
/// one counter-mode `Or` with the zero block per row; then `PipeBarrier<PIPE_V>`.
#[track_caller]
fn loop_broadcast<T: BroadcastElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    zero: &LocalTensor<T>,
    cols: usize,
    rows: usize,
) {
    set_mask_count();
    count_mask::<T>(cols * dtype_count(T::SIZE));
    let params = BinaryRepeatParams::new(1, 1, 0, 8, 8, 0);
    let (s16, z16) = (src.reinterpret_cast::<u16>(), zero.reinterpret_cast::<u16>());
    for i in 0..rows {
        or_masked::<u16, false>(
            &dst.view(i * cols).reinterpret_cast(),
            &s16,
            &z16,
            MASK_PLACEHOLDER,
            1,
            &params,
        );
    }
    pipe_barrier::<PIPE_V>();
}

/// The zero block at the scratch's start (`Duplicate<uint16_t>(zeroTemp, 0, 16)` and
/// `PipeBarrier<PIPE_V>`).
#[track_caller]
fn zero_block<T: BroadcastElement>(tmp: &LocalTensor<T>) -> LocalTensor<T> {
    duplicate(&tmp.reinterpret_cast::<u16>(), 0u16, ONE_BLK_SIZE / 2);
    pipe_barrier::<PIPE_V>();
    tmp.clone()
}

/// The vendor's `TwoDimBroadCastFirstDim`: `[1, k] → [m, k]`.
#[track_caller]
fn first_dim<T: BroadcastElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: &LocalTensor<T>,
    m: usize,
    k: usize,
) {
    let obe = ONE_BLK_SIZE / T::SIZE;
    let zero = zero_block(tmp);
    if k >= MAX_REPEAT * obe {
        loop_broadcast(dst, src, &zero, k, m);
        return;
    }
    dim_align(dst, src, &zero, m, k);
}

/// The vendor's `BrcbToOneBlock`: each of `rows` elements of `src` to one block of `tmp`, by
/// `Brcb` of at most 254 (`half`) or 255 (`float`) repeats; then `PipeBarrier<PIPE_V>`.
#[track_caller]
fn brcb_to_one_block<T: BroadcastElement>(src: &LocalTensor<T>, rows: usize, tmp: &LocalTensor<T>) {
    let obe = ONE_BLK_SIZE / T::SIZE;
    let repeat = rows.div_ceil(BRCB_ONE_SIZE);
    let max = brcb_max_repeat(T::SIZE);
    let params = BrcbRepeatParams::new(1, 8);
    for i in 0..repeat / max {
        brcb(
            &tmp.view(i * max * obe * BRCB_ONE_SIZE),
            &src.view(i * max * BRCB_ONE_SIZE),
            max as u8,
            &params,
        );
    }
    let tail = repeat % max;
    if tail != 0 {
        let done = repeat / max * max;
        brcb(&tmp.view(done * obe * BRCB_ONE_SIZE), &src.view(done * BRCB_ONE_SIZE), tail as u8, &params);
    }
    pipe_barrier::<PIPE_V>();
}

/// Counter-mode `Copy` of the block `src[r * 32/sizeof(T)]` to row `r` of `dst` (rows of
/// `row_blocks` blocks), for `rows` rows in instructions of at most 255 repeats, the mask
/// already set; then `PipeBarrier<PIPE_V>`.
#[track_caller]
fn copy_rows<T: BroadcastElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    rows: usize,
    row_blocks: usize,
) {
    let obe = ONE_BLK_SIZE / T::SIZE;
    let params = CopyRepeatParams::new(1, 0, row_blocks as u16, 1);
    let row = row_blocks * obe;
    for i in 0..rows / MAX_REPEAT {
        let r = i * MAX_REPEAT;
        copy_masked::<T, false>(
            &dst.view(r * row),
            &src.view(r * obe),
            MASK_PLACEHOLDER,
            MAX_REPEAT as u8,
            &params,
        );
    }
    let tail = rows % MAX_REPEAT;
    if tail != 0 {
        let r = rows / MAX_REPEAT * MAX_REPEAT;
        copy_masked::<T, false>(
            &dst.view(r * row),
            &src.view(r * obe),
            MASK_PLACEHOLDER,
            tail as u8,
            &params,
        );
    }
    pipe_barrier::<PIPE_V>();
}

/// The vendor's `TwoDimBroadCastLastDim` for Ascend910B: `[m, 1] → [m, k]` in rounds.
#[track_caller]
fn last_dim_220<T: BroadcastElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: &LocalTensor<T>,
    m: usize,
    k: usize,
) {
    let obe = ONE_BLK_SIZE / T::SIZE;
    let aligned = k % obe == 0;
    let k_align = k.div_ceil(obe) * obe;
    let unit = if aligned { obe * obe } else { obe * obe + obe * k_align };
    let one = tmp.get_size() / unit * obe;
    let round = |d_off: usize, s_off: usize, rows: usize| {
        let (d, s) = (dst.view(d_off), src.view(s_off));
        brcb_to_one_block(&s, rows, tmp);
        if aligned {
            count_mask::<T>(k);
            copy_rows(&d, tmp, rows, k / obe);
        } else {
            count_mask::<T>(k_align);
            let copy_tmp = tmp.view(rows * obe);
            copy_rows(&copy_tmp, tmp, rows, k_align / obe);
            let params = GatherMaskParams::new(1, rows as u16, (k_align / obe) as u16, 0);
            gather_mask::<T, T>(&d, &copy_tmp, GatherPattern::Fixed(7), true, k as u32, &params);
            set_mask_count();
            pipe_barrier::<PIPE_V>();
        }
    };
    for i in 0..m / one {
        round(i * one * k, i * one, one);
    }
    if m % one != 0 {
        round(m / one * one * k, m / one * one, m % one);
    }
}

/// The vendor's `BroadCastTranse`: `Transpose` `[k][rows] → [rows][k]`
/// (`TRANSPOSE_NCHW2NHWC`, `{1, k, 1, rows}`), no scratch.
#[track_caller]
fn transe<T: BroadcastElement>(dst: &LocalTensor<T>, src: &LocalTensor<T>, rows: usize, k: usize) {
    let p = TransposeParamsExt::new(1, k as u16, 1, rows as u16, TransposeType::TRANSPOSE_NCHW2NHWC);
    transpose_ext(dst, src, &no_tmp(), &p);
}

/// The vendor's `TwoDimBroadCastLastDim` for Ascend310P: `[m, 1] → [m, k]`.
#[track_caller]
fn last_dim_200<T: BroadcastElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: &LocalTensor<T>,
    m: usize,
    k: usize,
) {
    let obe = ONE_BLK_SIZE / T::SIZE;
    let zero = zero_block(tmp);
    let rows_tmp = tmp.view(obe);
    if m >= MAX_REPEAT * obe {
        loop_broadcast(&rows_tmp, src, &zero, m, k);
        transe(dst, &rows_tmp, m, k);
        pipe_barrier::<PIPE_V>();
        return;
    }
    let (one, range, tail) = align_loop_numbers_200(BROADCAST, obe, m, k, tmp.get_size());
    let round = |i: usize, rows: usize| {
        dim_align(&rows_tmp, &src.view(i * one), &zero, k, rows);
        transe(&dst.view(i * one * k), &rows_tmp, rows, k);
        pipe_barrier::<PIPE_V>();
    };
    for i in 0..range {
        round(i, one);
    }
    if tail != 0 {
        round(range, tail);
    }
}

/// The temporary buffer's `(max, min)` bytes for [`broadcast`] from `src_shape` to
/// `dst_shape` on `soc` (AscendC `GetBroadCastMaxMinTmpSize(ascendcPlatform, srcShape,
/// dstShape, typeSize, isReuseSource, maxValue, minValue)`; `soc` stands for the platform),
/// `type_size` 1, 2 or 4, the vendor's numbers:
/// - equal sizes or a one-element source: 0 (for `type_size` 1, the cast buffers and a block);
/// - `axis = 0`: one block (plus the cast buffers for `type_size` 1);
/// - `axis = 1` on Ascend910B: `(32/typeSize)² * typeSize` (plus `32/typeSize * k'` elements
///   for `k` not aligned) at least, and for `m` rounded up to 8 rows (plus `m * k'`) at most;
/// - `axis = 1` on Ascend310P: `32 + 32/typeSize * ceil(k / 8) * typeSize` at least (which
///   the kernel rejects: it needs more than that, see the [module documentation](self)),
///   `32 + m * k * typeSize` at most.
///
/// The vendor's numbers as they are: on Ascend910B the last axis' maximum is below its
/// minimum when `m` is less than `32 / typeSize` (the maximum counts `m` rounded up to 8
/// rows, the kernel's minimum `32 / typeSize` rows); take the larger.
///
/// `type_size` 1 is the vendor's `int8_t`/`uint8_t`, whose buffer includes the two `half`
/// copies; [`broadcast`] itself takes `half` and `float` only.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_broad_cast_max_min_tmp_size(Soc::Ascend910B, &[96, 1], &[96, 96], 4, false), (3072, 256));
/// assert_eq!(get_broad_cast_max_min_tmp_size(Soc::Ascend910B, &[1, 48], &[96, 48], 4, false), (32, 32));
/// assert_eq!(get_broad_cast_max_min_tmp_size(Soc::Ascend310P, &[96, 1], &[96, 96], 4, false), (36896, 416));
/// ```
///
/// # Panics
/// Panics if `soc` is not Ascend910B or Ascend310P; `type_size` is not 1, 2 or 4; the shapes
/// have other than 1 or 2 dimensions or differ in their number; a source dimension is neither
/// the destination's nor 1; the source has no elements; `axis = 0` with `k` not 32-byte
/// aligned; or `axis = 1` on Ascend310P with `m` not 32-byte aligned.
#[track_caller]
pub fn get_broad_cast_max_min_tmp_size(
    soc: Soc,
    src_shape: &[usize],
    dst_shape: &[usize],
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    const API: &str = "GetBroadCastMaxMinTmpSize";
    let _ = is_reuse_source;
    ensure(V220_V200.contains(&soc), API, || {
        format!(
            "{soc} ({}) is not supported: Broadcast runs on Ascend910B and Ascend310P",
            soc.product_line()
        )
    });
    ensure(matches!(type_size, 1 | 2 | 4), API, || format!("typeSize = {type_size}; it must be 1, 2 or 4"));
    ensure(matches!(src_shape.len(), 1 | 2), API, || {
        format!("srcShape = {src_shape:?} has {} dimensions; it must have 1 or 2", src_shape.len())
    });
    ensure(src_shape.len() == dst_shape.len(), API, || {
        format!("srcShape = {src_shape:?} and dstShape = {dst_shape:?} have different numbers of dimensions")
    });
    for i in 0..src_shape.len() {
        ensure(src_shape[i] == dst_shape[i] || src_shape[i] == 1, API, || {
            format!("srcShape = {src_shape:?} cannot broadcast to dstShape = {dst_shape:?}")
        });
    }
    let src_size: usize = src_shape.iter().product();
    let dst_size: usize = dst_shape.iter().product();
    ensure(src_size > 0, API, || format!("srcShape = {src_shape:?} has no elements"));
    // GetCastTempBuffer: int8 goes through two half copies.
    let (ts, cast) = if type_size == 1 {
        let up = |n: usize| n.div_ceil(16) * 16;
        (2, (up(src_size) + up(dst_size)) * 2)
    } else {
        (type_size, 0)
    };
    if src_size == dst_size || src_size == 1 {
        return if type_size == 1 { (cast + ONE_BLK_SIZE, cast + ONE_BLK_SIZE) } else { (0, 0) };
    }
    let obe = ONE_BLK_SIZE / ts;
    let (m, k) = (dst_shape[0], dst_shape[1]);
    if src_shape[1] != 1 {
        ensure(k % obe == 0, API, || format!("dstShape = {dst_shape:?}: dim[1] is not 32-byte aligned"));
        return (ONE_BLK_SIZE + cast, ONE_BLK_SIZE + cast);
    }
    if soc == Soc::Ascend910B {
        let brcb_min = obe * obe * ts;
        let brcb_max = m.div_ceil(BRCB_ONE_SIZE) * BRCB_ONE_SIZE * obe * ts;
        if k % obe == 0 {
            (brcb_max + cast, brcb_min + cast)
        } else {
            let k_align = k.div_ceil(obe) * obe;
            (brcb_max + m * k_align * ts + cast, brcb_min + obe * k_align * ts + cast)
        }
    } else {
        ensure(m % obe == 0, API, || format!("dstShape = {dst_shape:?}: dim[0] is not 32-byte aligned"));
        let min = obe * k.div_ceil(BRCB_ONE_SIZE) * ts;
        (ONE_BLK_SIZE + cast + m * k * ts, ONE_BLK_SIZE + cast + min)
    }
}

// ---------------------------------------------------------------------------------------
// Pad and UnPad
// ---------------------------------------------------------------------------------------

mod pad_sealed {
    pub trait Sealed {}
}
impl pad_sealed::Sealed for f16 {}
impl pad_sealed::Sealed for f32 {}
impl pad_sealed::Sealed for i16 {}
impl pad_sealed::Sealed for u16 {}
impl pad_sealed::Sealed for i32 {}
impl pad_sealed::Sealed for u32 {}

/// Element types of [`pad`] and [`un_pad`]: `int16_t`, `uint16_t`, `half`, `int32_t`,
/// `uint32_t`, `float` (the vendor's page).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<u8>, tiling: &PadTiling) {
///     pad(t, t, &PadParams::new(0, 1, 0), t, tiling)
/// }
/// ```
pub trait PadElement:
    Element
    + BrcbElement
    + GatherElement
    + DuplicateElement
    + crate::vector::transpose::TransDataTo5HDElement
    + pad_sealed::Sealed
{
    /// `static_cast<T>(padValue)`: the `int32_t` pad value converted as C++ converts it
    /// (rounded to nearest for `half` and `float`, the low bits for the integers).
    fn from_pad_value(v: i32) -> Self;
}
impl PadElement for f16 {
    fn from_pad_value(v: i32) -> Self {
        f16::from_f64(f64::from(v))
    }
}
impl PadElement for f32 {
    fn from_pad_value(v: i32) -> Self {
        v as f32
    }
}
impl PadElement for i16 {
    fn from_pad_value(v: i32) -> Self {
        v as i16
    }
}
impl PadElement for u16 {
    fn from_pad_value(v: i32) -> Self {
        v as u16
    }
}
impl PadElement for i32 {
    fn from_pad_value(v: i32) -> Self {
        v
    }
}
impl PadElement for u32 {
    fn from_pad_value(v: i32) -> Self {
        v as u32
    }
}

/// The columns [`pad`] adds and the value it writes (AscendC `PadParams{leftPad, rightPad,
/// padValue}`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PadParams {
    /// Columns added on the left (`leftPad`).
    pub left_pad: u16,
    /// Columns added on the right (`rightPad`).
    pub right_pad: u16,
    /// The value of the added columns (`padValue`), converted to `T`.
    pub pad_value: i32,
}

impl PadParams {
    /// `{leftPad, rightPad, padValue}`.
    pub const fn new(left_pad: u16, right_pad: u16, pad_value: i32) -> Self {
        PadParams { left_pad, right_pad, pad_value }
    }
}

/// The columns [`un_pad`] removes (AscendC `UnPadParams{leftPad, rightPad}`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UnPadParams {
    /// Columns removed on the left (`leftPad`): the vendor's implementations ignore it.
    pub left_pad: u16,
    /// Columns removed on the right (`rightPad`).
    pub right_pad: u16,
}

impl UnPadParams {
    /// `{leftPad, rightPad}`.
    pub const fn new(left_pad: u16, right_pad: u16) -> Self {
        UnPadParams { left_pad, right_pad }
    }
}

/// [`pad`]'s tiling (AscendC `PadTiling`, the vendor's fields in snake_case, its spelling
/// `Alingned` kept), from [`pad_tiling_func`] on the host. `#[repr(C)]` and [`Pod`](bytemuck::Pod), so it
/// travels in a kernel's tiling data as the vendor's does.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PadTiling {
    /// Rows (`srcHeight`).
    pub src_height: u32,
    /// Columns of the source (`srcWidth`).
    pub src_width: u32,
    /// Columns of valid data (`srcOriWidth`).
    pub src_ori_width: u32,
    /// `srcWidth` less one block (`widthWithoutLastBlock`).
    pub width_without_last_block: u32,
    /// Blocks of a row (`blocksPerRow`).
    pub blocks_per_row: u32,
    /// Rows per `Duplicate` (255, `heightTiling`).
    pub height_tiling: u32,
    /// Full `Duplicate`s (`heightFractal`).
    pub height_fractal: u32,
    /// Rows of the last `Duplicate` (`heightFractalTail`).
    pub height_fractal_tail: u32,
    /// Elements between the `Duplicate`s (`mainLoopOffset`).
    pub main_loop_offset: u32,
    /// Element of the last `Duplicate` (`tailBlockOffset`).
    pub tail_block_offset: u32,
    /// 16-block units of the first scratch half (`tmpBuffer1BlockNum`).
    pub tmp_buffer1_block_num: u32,
    /// Rows (blocks) of the first scratch half (`tmpBuffer1RowNum`).
    pub tmp_buffer1_row_num: u32,
    /// Element where the second scratch half starts (`tmpBuffer2Offset`).
    pub tmp_buffer2_offset: u32,
    /// Columns per fractal (`widthTiling`).
    pub width_tiling: u32,
    /// Full fractals of a row (`widthFractal`).
    pub width_fractal: u32,
    /// Columns of the last fractal (`widthFractalTail`).
    pub width_fractal_tail: u32,
    /// `widthFractalTail` rounded up to a block (`widthFractalTailAlingned`).
    pub width_fractal_tail_alingned: u32,
    /// Source elements per `Brcb` load (`brcbTiling`).
    pub brcb_tiling: u32,
    /// Full loads (`brcbFractal`).
    pub brcb_fractal: u32,
    /// Elements of the last load (`brcbFractalTail`).
    pub brcb_fractal_tail: u32,
    /// `Brcb` repeats per instruction (254, `maxRepeatTimes`).
    pub max_repeat_times: u32,
    /// Full `Brcb`s of a load (`brcbTilingRepeatTimes`).
    pub brcb_tiling_repeat_times: u32,
    /// Repeats of a load's last `Brcb` (`brcbTilingRepeatTimesTail`).
    pub brcb_tiling_repeat_times_tail: u32,
    /// Full `Brcb`s of the last load (`brcbFractalTailRepeatTimes`).
    pub brcb_fractal_tail_repeat_times: u32,
    /// Repeats of the last load's last `Brcb` (`brcbFractalTailRepeatTimesTail`).
    pub brcb_fractal_tail_repeat_times_tail: u32,
    /// Unused (`reserved`).
    pub reserved: u32,
}

/// [`un_pad`]'s tiling (AscendC `UnPadTiling`, the vendor's fields in snake_case), from
/// [`un_pad_tiling_func`] on the host; `#[repr(C)]` and [`Pod`](bytemuck::Pod).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct UnPadTiling {
    /// Rows (`srcHeight`).
    pub src_height: u32,
    /// Columns of the source (`srcWidth`).
    pub src_width: u32,
    /// 16-block units of the first scratch half (`tmpBuffer1BlockNum`).
    pub tmp_buffer1_block_num: u32,
    /// Rows (blocks) of the first scratch half (`tmpBuffer1RowNum`).
    pub tmp_buffer1_row_num: u32,
    /// Element where the second scratch half starts (`tmpBuffer2Offset`).
    pub tmp_buffer2_offset: u32,
    /// Columns per fractal (`widthTiling`).
    pub width_tiling: u32,
    /// Fractals of a row, the last one partial (`widthFractal`).
    pub width_fractal: u32,
    /// Columns of the last fractal (`widthFractalTail`).
    pub width_fractal_tail: u32,
}

/// `NCHW_CONV_ADDR_LIST_SIZE`: the 16 entries of `TransDataTo5HD`.
const ADDR_LIST: usize = 16;
/// The vendor's `MAX_REPEAT_TIMES` of the host's `Duplicate`s.
const PAD_MAX_REPEAT_TIMES: usize = 255;

/// The `[height, width]` of a host shape, failing unless it has two dimensions.
#[track_caller]
fn hw(api: &'static str, func: &str, name: &str, shape: &[usize]) -> (usize, usize) {
    ensure(shape.len() == 2, api, || {
        format!("[{func}] {name} = {shape:?} has {} dimensions; it must have 2", shape.len())
    });
    (shape[0], shape[1])
}

/// The host checks of Pad/UnPad: `typeSize` 2 or 4, a two-dimensional shape with elements.
#[track_caller]
fn pad_host_checks(api: &'static str, func: &str, shape: &[usize], type_size: usize) -> (usize, usize) {
    ensure(type_size == 2 || type_size == 4, api, || {
        format!("[{func}] typeSize = {type_size}; it must be 2 or 4")
    });
    let (h, w) = hw(api, func, "srcShape", shape);
    ensure(h * w > 0, api, || format!("[{func}] srcShape = {shape:?} has no elements"));
    (h, w)
}

/// The two scratch halves' `(max, min)` bytes of the unaligned path: `ceil(h*w / 16) * 16`
/// blocks twice at most, 16 blocks twice at least.
fn two_halves(h: usize, w: usize, type_size: usize) -> (usize, usize) {
    let epb = ONE_BLK_SIZE / type_size;
    let max = (h * w).div_ceil(ADDR_LIST) * ADDR_LIST * epb * 2 * type_size;
    (max, ADDR_LIST * epb * 2 * type_size)
}

/// The temporary buffer's `(max, min)` bytes for [`pad`] on a source of shape `[height,
/// width]` (AscendC `GetPadMaxMinTmpSize(srcShape, typeSize, maxValue, minValue)`):
/// `ceil(height*width / 16) * 16 * 32 * 2` bytes at most (the whole source in one load),
/// `16 * 32 * 2` at least. Only an unaligned `width` uses it.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_pad_max_min_tmp_size(&[16, 31], 4), (31744, 1024));
/// ```
///
/// # Panics
/// Panics if `type_size` is not 2 or 4, or the shape is not two-dimensional with elements.
#[track_caller]
pub fn get_pad_max_min_tmp_size(src_shape: &[usize], type_size: usize) -> (usize, usize) {
    const API: &str = "GetPadMaxMinTmpSize";
    let (h, w) = pad_host_checks(API, "GetPadMaxMinTmpSize", src_shape, type_size);
    two_halves(h, w, type_size)
}

/// [`pad`]'s tiling for a source of shape `src_shape` (`[height, width]`) holding data of
/// `ori_src_shape` (`[height, oriWidth]`), with a temporary buffer of `stack_buffer_size`
/// bytes (AscendC `PadTilingFunc(srcShape, oriSrcShape, stackBufferSize, typeSize,
/// tiling)`), the vendor's numbers; with `stack_buffer_size = 0` only the aligned path's
/// fields are set.
///
/// ```
/// use ascend_core::prelude::*;
/// let t = pad_tiling_func(&[16, 31], &[16, 31], 31744, 4);
/// assert_eq!((t.tmp_buffer1_block_num, t.tmp_buffer2_offset, t.width_fractal_tail_alingned), (31, 3968, 32));
/// let t = pad_tiling_func(&[4, 16], &[4, 14], 0, 4);
/// assert_eq!((t.width_without_last_block, t.blocks_per_row, t.height_fractal_tail), (8, 2, 4));
/// ```
///
/// # Panics
/// Panics if `type_size` is not 2 or 4, a shape is not two-dimensional, the source has no
/// elements, or `ori_src_shape` has more elements than `src_shape`.
#[track_caller]
pub fn pad_tiling_func(
    src_shape: &[usize],
    ori_src_shape: &[usize],
    stack_buffer_size: usize,
    type_size: usize,
) -> PadTiling {
    const API: &str = "PadTilingFunc";
    let (h, w) = pad_host_checks(API, API, src_shape, type_size);
    let (oh, ow) = hw(API, API, "oriSrcShape", ori_src_shape);
    ensure(oh * ow <= h * w, API, || {
        format!(
            "[{API}] oriSrcShape = {ori_src_shape:?} has {} elements, more than srcShape = {src_shape:?}'s {}",
            oh * ow,
            h * w
        )
    });
    let epb = ONE_BLK_SIZE / type_size;
    let u = |v: usize| v as u32;
    let height_fractal = h / PAD_MAX_REPEAT_TIMES;
    let mut t = PadTiling {
        src_height: u(h),
        src_width: u(w),
        src_ori_width: u(ow),
        width_without_last_block: w.wrapping_sub(epb) as u32,
        blocks_per_row: u(w * type_size / ONE_BLK_SIZE),
        height_tiling: u(PAD_MAX_REPEAT_TIMES),
        height_fractal: u(height_fractal),
        height_fractal_tail: u(h % PAD_MAX_REPEAT_TIMES),
        main_loop_offset: u(PAD_MAX_REPEAT_TIMES * w),
        tail_block_offset: (height_fractal * PAD_MAX_REPEAT_TIMES * w).wrapping_add(w.wrapping_sub(epb))
            as u32,
        ..PadTiling::default()
    };
    if stack_buffer_size == 0 {
        return t;
    }
    let base_block_size = ADDR_LIST * ONE_BLK_SIZE / type_size;
    let block_num = stack_buffer_size / type_size / base_block_size / 2;
    t.tmp_buffer1_row_num = u(ADDR_LIST * block_num);
    t.tmp_buffer1_block_num = u(block_num);
    t.tmp_buffer2_offset = u(block_num * base_block_size);
    let width_tiling = ADDR_LIST * block_num;
    // The vendor divides by widthTiling (0 for a buffer below the minimum: a crash there).
    ensure(width_tiling > 0, API, || {
        format!(
            "[{API}] stackBufferSize = {stack_buffer_size} bytes is below the minimum {} (see GetPadMaxMinTmpSize)",
            2 * base_block_size * type_size
        )
    });
    let tail = w % width_tiling;
    t.width_tiling = u(width_tiling);
    t.width_fractal = u(w / width_tiling);
    t.width_fractal_tail = u(tail);
    t.width_fractal_tail_alingned = (tail.wrapping_sub(1) / epb).wrapping_add(1).wrapping_mul(epb) as u32;
    let brcb_tiling = width_tiling;
    let (brcb_fractal, brcb_tail) = (h * w / brcb_tiling, h * w % brcb_tiling);
    t.brcb_tiling = u(brcb_tiling);
    t.brcb_fractal = u(brcb_fractal);
    t.brcb_fractal_tail = u(brcb_tail);
    let max_rep = 254;
    t.max_repeat_times = max_rep;
    t.brcb_tiling_repeat_times = u(brcb_tiling / 8 / 254);
    t.brcb_tiling_repeat_times_tail = u(brcb_tiling / 8 % 254);
    t.brcb_fractal_tail_repeat_times = u(brcb_tail / 8 / 254);
    t.brcb_fractal_tail_repeat_times_tail = u(brcb_tail / 8 % 254);
    t
}

/// The temporary buffer's `(max, min)` bytes for [`un_pad`] on `soc` (AscendC
/// `GetUnPadMaxMinTmpSize(ascendcPlatform, srcShape, typeSize, maxValue, minValue)`; `soc`
/// stands for the platform): none on Ascend910B (one `GatherMask`), else
/// [`get_pad_max_min_tmp_size`]'s numbers.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_un_pad_max_min_tmp_size(Soc::Ascend910B, &[16, 16], 2), (0, 0));
/// assert_eq!(get_un_pad_max_min_tmp_size(Soc::Ascend310P, &[16, 16], 2), (16384, 2048 / 2));
/// ```
///
/// # Panics
/// Panics if `type_size` is not 2 or 4, or the shape is not two-dimensional with elements.
#[track_caller]
pub fn get_un_pad_max_min_tmp_size(soc: Soc, src_shape: &[usize], type_size: usize) -> (usize, usize) {
    const API: &str = "GetUnPadMaxMinTmpSize";
    let (h, w) = pad_host_checks(API, API, src_shape, type_size);
    if soc == Soc::Ascend910B {
        (0, 0)
    } else {
        two_halves(h, w, type_size)
    }
}

/// [`un_pad`]'s tiling for a source of shape `[height, width]` with a temporary buffer of
/// `stack_buffer_size` bytes (AscendC `UnPadTilingFunc(srcShape, stackBufferSize, typeSize,
/// tiling)`), the vendor's numbers: with `stack_buffer_size = 0` only the shape.
///
/// ```
/// use ascend_core::prelude::*;
/// let t = un_pad_tiling_func(&[16, 32], 2048, 4);
/// assert_eq!((t.tmp_buffer1_block_num, t.width_tiling, t.width_fractal, t.width_fractal_tail), (2, 32, 1, 32));
/// ```
///
/// # Panics
/// Panics if `type_size` is not 2 or 4, the shape is not two-dimensional with elements, or a
/// nonzero `stack_buffer_size` is below the minimum (the vendor divides by zero).
#[track_caller]
pub fn un_pad_tiling_func(src_shape: &[usize], stack_buffer_size: usize, type_size: usize) -> UnPadTiling {
    const API: &str = "UnPadTilingFunc";
    let (h, w) = pad_host_checks(API, API, src_shape, type_size);
    let mut t = UnPadTiling { src_height: h as u32, src_width: w as u32, ..UnPadTiling::default() };
    if stack_buffer_size == 0 {
        return t;
    }
    let base_block_size = ADDR_LIST * ONE_BLK_SIZE / type_size;
    let block_num = stack_buffer_size / type_size / base_block_size / 2;
    t.tmp_buffer1_block_num = block_num as u32;
    t.tmp_buffer1_row_num = (ADDR_LIST * block_num) as u32;
    t.tmp_buffer2_offset = (block_num * base_block_size) as u32;
    let width_tiling = ADDR_LIST * block_num;
    ensure(width_tiling > 0, API, || {
        format!(
            "[{API}] stackBufferSize = {stack_buffer_size} bytes is below the minimum {} (see GetUnPadMaxMinTmpSize)",
            2 * base_block_size * type_size
        )
    });
    let (mut fractal, mut tail) = (w / width_tiling, w % width_tiling);
    if tail != 0 {
        fractal += 1;
    } else {
        tail = width_tiling;
    }
    t.width_tiling = width_tiling as u32;
    t.width_fractal = fractal as u32;
    t.width_fractal_tail = tail as u32;
    t
}

const PAD: &str = "Pad";
const UN_PAD: &str = "UnPad";

/// Fails unless the tensors are in the Unified Buffer.
#[track_caller]
fn check_positions(api: &'static str, list: [(&str, TPosition); 3]) {
    for (name, pos) in list {
        ensure(pos.is_ub(), api, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
    }
}

/// Fails unless `t` holds `n` elements (`what` explains `n`).
#[track_caller]
fn need_elems<T: Element>(api: &'static str, name: &str, t: &LocalTensor<T>, n: usize, what: &str) {
    ensure(t.get_size() >= n, api, || {
        format!("{name} holds {} elements, fewer than {what} = {n}", t.get_size())
    });
}

/// The checks of the two-halves scratch (`tmpBuffer1BlockNum` units of 16 blocks each half):
/// at least one unit, at most 255 (`TransDataTo5HD`'s `uint8_t` repeat), and the buffer holds
/// both halves.
#[track_caller]
fn check_halves<T: Element>(api: &'static str, tmp: &LocalTensor<u8>, block_num: u32, offset: u32) {
    ensure((1..=255).contains(&block_num), api, || {
        format!(
            "tiling.tmpBuffer1BlockNum = {block_num}; it must be in [1, 255] (a stack buffer of at least the minimum \
             of the host's GetPadMaxMinTmpSize, and TransDataTo5HD's repeat is 8 bits)"
        )
    });
    let need = 2 * offset as usize * T::SIZE;
    ensure(tmp.get_size() >= need, api, || {
        format!(
            "sharedTmpBuffer holds {} bytes; the tiling's two halves (tmpBuffer2Offset = {offset}) take {need}",
            tmp.get_size()
        )
    });
}

/// Pads each row of the `height x width` source to a 32-byte aligned width (AscendC
/// `Pad(dstTensor, srcTensor, padParams, sharedTmpBuffer, tiling)`), the vendor's
/// `pad_base_impl.h` on Ascend910B and Ascend310P:
/// - `width` 32-byte aligned, with `oriWidth` valid columns (scenario 2): `DataCopy` of the
///   source, then `Duplicate` of `padValue` into the `rightPad` columns after the valid ones,
///   under a bit mask of the last block, 255 rows per instruction (normal mode; the mask
///   register keeps that mask);
/// - otherwise (scenario 1): the source as one column: each element broadcast to a block of
///   the scratch's first half (`Brcb` on Ascend910B; on Ascend310P `GetValue` and
///   `Duplicate` per element between `V_S` and `S_V` flags), blocks gathered with
///   `DataCopy` into the second half behind `leftPad` and before `rightPad` blocks of
///   `padValue`, `TransDataTo5HD` in place, and the first row of each 16x16 tile copied to
///   the destination, whose rows are `leftPad + width + rightPad` (which must be `width`
///   rounded up to a block).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut t) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 16 * 15 * 2);
/// pipe.init_tbuf(&mut b, 16 * 16 * 2);
/// let (max, _) = get_pad_max_min_tmp_size(&[16, 15], 2);
/// pipe.init_tbuf(&mut t, max);
/// let (src, dst, tmp) = (a.get::<f16>(), b.get::<f16>(), t.get::<u8>());
/// src.copy_from_slice(&(0..240).map(|i| f16::from_f32(i as f32)).collect::<Vec<_>>());
/// let tiling = pad_tiling_func(&[16, 15], &[16, 15], max, 2);
/// pad(&dst, &src, &PadParams::new(0, 1, 321), &tmp, &tiling);
/// assert_eq!(dst.get_value(16).to_f32(), 15.0);
/// assert_eq!(dst.get_value(15).to_f32(), 321.0);
/// ```
///
/// # Panics
/// Panics if the chip has no implementation; an operand is not in the Unified Buffer;
/// `src_tensor` or `dst_tensor` holds fewer elements than the shapes; they overlap, or the
/// scratch overlaps either (unaligned width); for an aligned width: `leftPad` is not 0,
/// `oriWidth > width`, the redundant columns exceed one block, `rightPad` exceeds them or is
/// 0, or `blocksPerRow` exceeds 255; for an unaligned width: `leftPad + width + rightPad` is
/// not `width` rounded up to a block, the source is not a whole number of blocks, or the
/// tiling's scratch halves are not in `[1, 255]` units or do not fit the buffer.
#[track_caller]
pub fn pad<T: PadElement>(
    dst_tensor: &LocalTensor<T>,
    src_tensor: &LocalTensor<T>,
    pad_params: &PadParams,
    shared_tmp_buffer: &LocalTensor<u8>,
    tiling: &PadTiling,
) {
    pad_impl(dst_tensor, src_tensor, pad_params, shared_tmp_buffer, tiling);
}

/// [`pad`] with the scratch from the stack buffer (AscendC `Pad(dstTensor, srcTensor,
/// padParams, tiling)`, `PopStackBuffer`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 4 * 16 * 4);
/// pipe.init_tbuf(&mut b, 4 * 16 * 4);
/// let (src, dst) = (a.get::<i32>(), b.get::<i32>());
/// src.copy_from_slice(&(0..64).collect::<Vec<i32>>());
/// // 16 columns, 14 of them valid: the 2 after them become -1.
/// let tiling = pad_tiling_func(&[4, 16], &[4, 14], 0, 4);
/// pad_stack(&dst, &src, &PadParams::new(0, 2, -1), &tiling);
/// assert_eq!(dst.to_vec()[12..18], [12, 13, -1, -1, 16, 17]);
/// ```
///
/// # Panics
/// As [`pad`], and if the core has no `TPipe` or its buffers leave no stack buffer.
#[track_caller]
pub fn pad_stack<T: PadElement>(
    dst_tensor: &LocalTensor<T>,
    src_tensor: &LocalTensor<T>,
    pad_params: &PadParams,
    tiling: &PadTiling,
) {
    let tmp = stack_tensor(PAD);
    pad_impl(dst_tensor, src_tensor, pad_params, &tmp, tiling);
}

#[track_caller]
fn pad_impl<T: PadElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    p: &PadParams,
    tmp: &LocalTensor<u8>,
    t: &PadTiling,
) {
    let api = PAD;
    check_chip(api, &V220_V200);
    check_positions(
        api,
        [
            ("dstTensor", dst.get_position()),
            ("srcTensor", src.get_position()),
            ("sharedTmpBuffer", tmp.get_position()),
        ],
    );
    let epb = ONE_BLK_SIZE / T::SIZE;
    let (h, w) = (t.src_height as usize, t.src_width as usize);
    let (left, right) = (usize::from(p.left_pad), usize::from(p.right_pad));
    need_elems(api, "srcTensor", src, h * w, "srcHeight * srcWidth");
    if w * T::SIZE % ONE_BLK_SIZE == 0 {
        let ori = t.src_ori_width as usize;
        ensure(left == 0, api, || {
            format!("leftPad = {left} with srcWidth = {w} 32-byte aligned: an aligned width pads on the right only")
        });
        ensure(ori <= w && w - ori <= epb, api, || {
            format!(
                "srcOriWidth = {ori} with srcWidth = {w}: the redundant columns must be at most one block ({epb} {})",
                T::DTYPE
            )
        });
        ensure(right >= 1 && right <= w - ori, api, || {
            format!(
                "rightPad = {right}; with srcWidth = {w} and srcOriWidth = {ori} it must be in [1, {}]",
                w - ori
            )
        });
        ensure(t.blocks_per_row <= 255, api, || {
            format!(
                "tiling.blocksPerRow = {} exceeds Duplicate's 8-bit repeat stride (255)",
                t.blocks_per_row
            )
        });
        need_elems(api, "dstTensor", dst, h * w, "srcHeight * srcWidth");
        check_apart(api, &[(span("dstTensor", dst, h * w), span("srcTensor", src, h * w))]);
        aligned_pad(dst, src, p, t);
    } else {
        let total = left + w + right;
        let aligned = w.div_ceil(epb) * epb;
        ensure(total == aligned, api, || {
            format!(
                "leftPad + srcWidth + rightPad = {left} + {w} + {right} = {total}; it must be srcWidth rounded up to a \
                 block, {aligned}"
            )
        });
        ensure(h * w % epb == 0, api, || {
            format!("srcHeight * srcWidth = {} is not a whole number of blocks ({epb} {})", h * w, T::DTYPE)
        });
        check_halves::<T>(api, tmp, t.tmp_buffer1_block_num, t.tmp_buffer2_offset);
        need_elems(api, "dstTensor", dst, h * total, "srcHeight * (leftPad + srcWidth + rightPad)");
        let (d, s) = (span("dstTensor", dst, h * total), span("srcTensor", src, h * w));
        let tb = whole("sharedTmpBuffer", tmp);
        check_apart(api, &[(d, s), (tb, d), (tb, s)]);
        unaligned_pad(dst, src, p, &tmp.reinterpret_cast::<T>(), t);
    }
}

/// The vendor's `AlignedPad`.
#[track_caller]
fn aligned_pad<T: PadElement>(dst: &LocalTensor<T>, src: &LocalTensor<T>, p: &PadParams, t: &PadTiling) {
    let epb = ONE_BLK_SIZE / T::SIZE;
    let (h, w, ori) = (t.src_height as usize, t.src_width as usize, t.src_ori_width as usize);
    crate::memory::copy::data_copy(dst, src, h * w);
    pipe_barrier::<PIPE_V>();
    let mask = ((1u64 << p.right_pad) - 1) << (epb - (w - ori));
    let value = T::from_pad_value(p.pad_value);
    let bpr = t.blocks_per_row as u8;
    for i in 0..t.height_fractal as usize {
        let d = dst.view(i * t.main_loop_offset as usize + t.width_without_last_block as usize);
        duplicate_masked::<T, true>(&d, value, [mask, 0], t.height_tiling as u8, 1, bpr);
    }
    if t.height_fractal_tail != 0 {
        let d = dst.view(t.tail_block_offset as usize);
        duplicate_masked::<T, true>(&d, value, [mask, 0], t.height_fractal_tail as u8, 1, bpr);
    }
}

/// The vendor's `DuplicateLastDimImpl` (Ascend310P's `Brcb`): each of `n` elements of `src`
/// to `block` elements of `dst`, by `GetValue`s of 8 and their `Duplicate`s, between `V_S`
/// and `S_V` flags.
#[track_caller]
fn duplicate_last_dim<T: PadElement>(dst: &LocalTensor<T>, src: &LocalTensor<T>, n: usize, block: usize) {
    sync::<HardEvent::V_S>();
    for group in (0..n).step_by(BRCB_ONE_SIZE) {
        let k = BRCB_ONE_SIZE.min(n - group);
        let scalars: Vec<T> = (0..k).map(|j| src.get_value(group + j)).collect();
        for (j, &v) in scalars.iter().enumerate() {
            duplicate(&dst.view((group + j) * block), v, block);
        }
    }
    sync::<HardEvent::S_V>();
}

/// The 16 entries of `TransDataTo5HD` in place on `tmp2`: block `i` for entry `i`.
fn addr_list<T: Element>(tmp2: &LocalTensor<T>) -> [u64; ADDR_LIST] {
    let tw = ONE_BLK_SIZE / T::SIZE;
    std::array::from_fn(|i| tmp2.view(i * tw).get_phy_addr() as u64)
}

/// The `TransDataTo5HD` parameters: `tmpBuffer1BlockNum` repeats, strides 16 blocks when
/// more than one.
fn trans_params(block_num: usize) -> TransDataTo5HDParams {
    let stride = if block_num > 1 { 16 } else { 0 };
    TransDataTo5HDParams::new(false, false, block_num as u8, stride, stride)
}

/// `DataCopy(dst, src, {blockCount, blockLen, srcStride, dstStride})`, UB to UB.
#[track_caller]
fn copy_blocks<T: Element>(dst: &LocalTensor<T>, src: &LocalTensor<T>, count: usize, len: u16, src_gap: u16) {
    crate::memory::copy::data_copy_params(dst, src, &DataCopyParams::new(count as u16, len, src_gap, 0));
}

/// The first row of each 16x16 tile of `tmp2` to `dst`: `tiles` tiles, then for `float` a
/// last half tile when `half_tile` (the vendor's two `DataCopy` forms).
#[track_caller]
fn first_rows<T: Element>(dst: &LocalTensor<T>, tmp2: &LocalTensor<T>, tiles: usize, half_tile: bool) {
    if T::SIZE == 2 {
        copy_blocks(dst, tmp2, tiles, 1, 15);
    } else {
        if tiles != 0 {
            copy_blocks(dst, tmp2, tiles, 2, 14);
        }
        if half_tile {
            copy_blocks(&dst.view(tiles * 16), &tmp2.view(tiles * 16 * 8), 1, 1, 15);
        }
    }
}

/// The vendor's `UnAlignedPad`.
#[track_caller]
fn unaligned_pad<T: PadElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    p: &PadParams,
    tmp: &LocalTensor<T>,
    t: &PadTiling,
) {
    let soc = get_soc();
    let tw = ONE_BLK_SIZE / T::SIZE;
    let (left, right) = (usize::from(p.left_pad), usize::from(p.right_pad));
    let value = T::from_pad_value(p.pad_value);
    let (height, width) = (t.src_height as usize, t.src_width as usize);
    let block_num = t.tmp_buffer1_block_num as usize;
    let (tmp1, tmp2) = (tmp.clone(), tmp.view(t.tmp_buffer2_offset as usize));
    let width_fractal = t.width_fractal as usize;
    let tail_aligned = t.width_fractal_tail_alingned as usize;
    let (brcb_tiling, brcb_fractal, brcb_tail) =
        (t.brcb_tiling as usize, t.brcb_fractal as usize, t.brcb_fractal_tail as usize);
    let max_rep = t.max_repeat_times as usize;
    let mut brcb_count = 0;
    let mut tmp1_row_full = t.tmp_buffer1_row_num as usize;
    let mut tmp1_row_count = tmp1_row_full;
    let tmp2_row_full = t.tmp_buffer1_row_num as usize;
    let params = trans_params(block_num);
    let list = addr_list(&tmp2);
    let brcb_p = BrcbRepeatParams::new(1, 8);
    let row = width + left + right;
    for j in 0..height {
        for i in 0..=width_fractal {
            let mut tmp2_row_count = 0;
            if i == 0 && left != 0 {
                duplicate_masked::<T, true>(&tmp2, value, tw as u64, left as u8, 1, 1);
                tmp2_row_count += left;
            }
            let mut need = if i == width_fractal {
                if right != 0 {
                    duplicate_masked::<T, true>(
                        &tmp2.view((tail_aligned - right) * tw),
                        value,
                        tw as u64,
                        right as u8,
                        1,
                        1,
                    );
                }
                tail_aligned - tmp2_row_count - right
            } else {
                tmp2_row_full - tmp2_row_count
            };
            while need != 0 {
                pipe_barrier::<PIPE_V>();
                let remain = tmp1_row_full - tmp1_row_count;
                if need > remain {
                    if remain != 0 {
                        copy_blocks(
                            &tmp2.view(tmp2_row_count * tw),
                            &tmp1.view(tmp1_row_count * tw),
                            1,
                            remain as u16,
                            0,
                        );
                        // (tmp1RowCount += remain: reset by the load below.)
                        tmp2_row_count += remain;
                        need -= remain;
                        pipe_barrier::<PIPE_V>();
                    }
                    // Load the next part of the source into tmp1.
                    let base = brcb_count * brcb_tiling;
                    if soc == Soc::Ascend910B {
                        let (full, tail) = if brcb_count == brcb_fractal {
                            tmp1_row_full = brcb_tail;
                            (t.brcb_fractal_tail_repeat_times, t.brcb_fractal_tail_repeat_times_tail)
                        } else {
                            (t.brcb_tiling_repeat_times, t.brcb_tiling_repeat_times_tail)
                        };
                        let (full, tail) = (full as usize, tail as usize);
                        for k in 0..full {
                            let at = k * max_rep * 8;
                            brcb(&tmp1.view(at * tw), &src.view(base + at), max_rep as u8, &brcb_p);
                        }
                        if tail != 0 {
                            let at = full * max_rep * 8;
                            brcb(&tmp1.view(at * tw), &src.view(base + at), tail as u8, &brcb_p);
                        }
                    } else if brcb_count == brcb_fractal {
                        duplicate_last_dim(&tmp1, &src.view(brcb_fractal * brcb_tiling), brcb_tail, tw);
                        tmp1_row_full = brcb_tail;
                    } else {
                        duplicate_last_dim(&tmp1, &src.view(base), brcb_tiling, tw);
                    }
                    brcb_count += 1;
                    tmp1_row_count = 0;
                } else {
                    copy_blocks(
                        &tmp2.view(tmp2_row_count * tw),
                        &tmp1.view(tmp1_row_count * tw),
                        1,
                        need as u16,
                        0,
                    );
                    tmp1_row_count += need;
                    tmp2_row_count += need;
                    need = 0;
                }
            }
            pipe_barrier::<PIPE_V>();
            trans_data_to_5hd_addr::<T>(&list, &list, &params);
            pipe_barrier::<PIPE_V>();
            let d = dst.view(j * row + i * 16 * block_num);
            if i == width_fractal {
                first_rows(&d, &tmp2, tail_aligned / 16, tail_aligned % 16 != 0);
            } else {
                first_rows(&d, &tmp2, block_num, false);
            }
        }
    }
}

/// Removes the last `rightPad` columns of each row of the `height x width` source (AscendC
/// `UnPad(dstTensor, srcTensor, unPadParams, sharedTmpBuffer, tiling)`; `width` 32-byte
/// aligned), packed into rows of `width - rightPad`:
/// - Ascend910B (`pad_v220_impl.h`): one `GatherMask` (pattern 7, counter mode, `width -
///   rightPad` elements of each of `height` repeats), then `ResetMask`; no scratch;
/// - Ascend310P (`pad_v200_impl.h`): the source as one column, a fractal of each row at a
///   time broadcast to blocks of the scratch's first half (`GetValue` and `Duplicate`),
///   the kept ones gathered into the second half by `DataCopy`, `TransDataTo5HD` in place,
///   and the first row of each 16x16 tile copied to the destination, in units of
///   `tmpBuffer1RowNum` elements.
///
/// `leftPad` is ignored, as the vendor's implementations ignore it.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 4 * 16 * 2);
/// pipe.init_tbuf(&mut b, 4 * 16 * 2);
/// let (src, dst) = (a.get::<f16>(), b.get::<f16>());
/// src.copy_from_slice(&(0..64).map(|i| f16::from_f32(i as f32)).collect::<Vec<_>>());
/// let tmp = a.get::<u8>().view_len(0, 0); // Ascend910B needs no scratch
/// un_pad(&dst, &src, &UnPadParams::new(0, 1), &tmp, &un_pad_tiling_func(&[4, 16], 0, 2));
/// assert_eq!(dst.get_value(15).to_f32(), 16.0);
/// ```
///
/// # Panics
/// Panics if the chip has no implementation; an operand is not in the Unified Buffer;
/// `width` is not 32-byte aligned or `rightPad >= width`; `src_tensor` or `dst_tensor` holds
/// fewer elements than the shapes; they overlap, or (Ascend310P) the scratch overlaps
/// either; (Ascend310P) the tiling's scratch halves are not in `[1, 255]` units or do not
/// fit the buffer, or `srcHeight * (srcWidth - rightPad)` is not a whole number of blocks
/// (the vendor's last copy would drop the last elements) or `rightPad` exceeds the tiling's
/// `widthFractalTail` (the last fractal's columns); or (Ascend910B) `height` exceeds
/// 65535.
#[track_caller]
pub fn un_pad<T: PadElement>(
    dst_tensor: &LocalTensor<T>,
    src_tensor: &LocalTensor<T>,
    un_pad_params: &UnPadParams,
    shared_tmp_buffer: &LocalTensor<u8>,
    tiling: &UnPadTiling,
) {
    un_pad_impl(dst_tensor, src_tensor, un_pad_params, shared_tmp_buffer, tiling);
}

/// [`un_pad`] with the scratch from the stack buffer (AscendC `UnPad(dstTensor, srcTensor,
/// unPadParams, tiling)`, `PopStackBuffer`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 2 * 8 * 4);
/// pipe.init_tbuf(&mut b, 2 * 8 * 4);
/// let (src, dst) = (a.get::<u32>(), b.get::<u32>());
/// src.copy_from_slice(&(0..16).collect::<Vec<u32>>());
/// un_pad_stack(&dst, &src, &UnPadParams::new(0, 3), &un_pad_tiling_func(&[2, 8], 0, 4));
/// assert_eq!(dst.to_vec()[..10], [0, 1, 2, 3, 4, 8, 9, 10, 11, 12]);
/// ```
///
/// # Panics
/// As [`un_pad`], and if the core has no `TPipe` or its buffers leave no stack buffer.
#[track_caller]
pub fn un_pad_stack<T: PadElement>(
    dst_tensor: &LocalTensor<T>,
    src_tensor: &LocalTensor<T>,
    un_pad_params: &UnPadParams,
    tiling: &UnPadTiling,
) {
    let tmp = stack_tensor(UN_PAD);
    un_pad_impl(dst_tensor, src_tensor, un_pad_params, &tmp, tiling);
}

#[track_caller]
fn un_pad_impl<T: PadElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    p: &UnPadParams,
    tmp: &LocalTensor<u8>,
    t: &UnPadTiling,
) {
    let api = UN_PAD;
    let soc = get_soc();
    check_chip(api, &V220_V200);
    check_positions(
        api,
        [
            ("dstTensor", dst.get_position()),
            ("srcTensor", src.get_position()),
            ("sharedTmpBuffer", tmp.get_position()),
        ],
    );
    let epb = ONE_BLK_SIZE / T::SIZE;
    let (h, w, right) = (t.src_height as usize, t.src_width as usize, usize::from(p.right_pad));
    ensure(w % epb == 0, api, || {
        format!("srcWidth = {w} {} is not 32-byte aligned (a multiple of {epb})", T::DTYPE)
    });
    ensure(right < w, api, || format!("rightPad = {right}; it must be less than srcWidth = {w}"));
    need_elems(api, "srcTensor", src, h * w, "srcHeight * srcWidth");
    need_elems(api, "dstTensor", dst, h * (w - right), "srcHeight * (srcWidth - rightPad)");
    let (d, s) = (span("dstTensor", dst, h * (w - right)), span("srcTensor", src, h * w));
    check_apart(api, &[(d, s)]);
    if soc == Soc::Ascend910B {
        ensure(h <= usize::from(u16::MAX), api, || {
            format!("srcHeight = {h} exceeds GatherMask's 16-bit repeatTimes (65535)")
        });
        let params = GatherMaskParams {
            repeat_times: h as u16,
            src0_repeat_stride: (w * T::SIZE / ONE_BLK_SIZE) as u16,
            ..GatherMaskParams::default()
        };
        gather_mask::<T, T>(dst, src, GatherPattern::Fixed(7), true, (w - right) as u32, &params);
        reset_mask();
    } else {
        let kept = h * (w - right);
        ensure(kept % epb == 0, api, || {
            format!(
                "srcHeight * (srcWidth - rightPad) = {h} * {} = {kept} is not a whole number of blocks ({epb} {}): \
                 on {soc} the vendor's last DataCopy to dstTensor copies whole blocks of the first row of each 16x16 \
                 tile (one block of a half tile for 32-bit types) and would leave the last elements unwritten",
                w - right,
                T::DTYPE
            )
        });
        check_halves::<T>(api, tmp, t.tmp_buffer1_block_num, t.tmp_buffer2_offset);
        ensure(right <= t.width_fractal_tail as usize, api, || {
            format!(
                "rightPad = {right} exceeds the last fractal's tiling.widthFractalTail = {} columns: on {soc} the \
                 vendor removes the right pad from a row's last fractal only (its count would wrap); use a tiling \
                 for a larger buffer",
                t.width_fractal_tail
            )
        });
        let tb = whole("sharedTmpBuffer", tmp);
        check_apart(api, &[(tb, d), (tb, s)]);
        un_pad_200(dst, src, right, &tmp.reinterpret_cast::<T>(), t);
    }
}

/// The vendor's `UnPadCompute` for Ascend310P.
#[track_caller]
fn un_pad_200<T: PadElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    right: usize,
    tmp: &LocalTensor<T>,
    t: &UnPadTiling,
) {
    let tw = ONE_BLK_SIZE / T::SIZE;
    let (height, width) = (t.src_height as usize, t.src_width as usize);
    let block_num = t.tmp_buffer1_block_num as usize;
    let (tmp1, tmp2) = (tmp.clone(), tmp.view(t.tmp_buffer2_offset as usize));
    let left = 0;
    let (width_tiling, width_fractal, width_fractal_tail) =
        (t.width_tiling as usize, t.width_fractal as usize, t.width_fractal_tail as usize);
    let mut tmp2_row_full = t.tmp_buffer1_row_num as usize;
    let mut tmp2_row_count = 0;
    let to_dst_tiling = t.tmp_buffer1_row_num as usize;
    let kept = height * (width - left - right);
    let (to_dst_fractal, to_dst_tail) = (kept / to_dst_tiling, kept % to_dst_tiling);
    let mut to_dst_count = 0;
    if to_dst_fractal == 0 {
        tmp2_row_full = to_dst_tail;
    }
    let params = trans_params(block_num);
    let list = addr_list(&tmp2);
    for j in 0..height {
        for i in 0..width_fractal {
            let mut tmp2_need = tmp2_row_full - tmp2_row_count;
            let last = i == width_fractal - 1;
            let n = if last { width_fractal_tail } else { width_tiling };
            duplicate_last_dim(&tmp1, &src.view(j * width + i * width_tiling), n, tw);
            let mut tmp1_row_count = if i == 0 { left } else { 0 };
            let tmp1_row_full = if last { width_fractal_tail - right } else { 16 * block_num };
            pipe_barrier::<PIPE_V>();
            while tmp1_row_count != tmp1_row_full {
                let remain = tmp1_row_full - tmp1_row_count;
                if tmp2_need > remain {
                    copy_blocks(
                        &tmp2.view(tmp2_row_count * tw),
                        &tmp1.view(tmp1_row_count * tw),
                        1,
                        remain as u16,
                        0,
                    );
                    // (The vendor also advances tmp1RowCount and lowers tmp2NeedRow here; both
                    // are set afresh before they are read again.)
                    tmp2_row_count += remain;
                    break;
                }
                copy_blocks(
                    &tmp2.view(tmp2_row_count * tw),
                    &tmp1.view(tmp1_row_count * tw),
                    1,
                    tmp2_need as u16,
                    0,
                );
                tmp1_row_count += tmp2_need;
                // (tmp2RowCount += tmp2NeedRow: reset to 0 below.)
                pipe_barrier::<PIPE_V>();
                trans_data_to_5hd_addr::<T>(&list, &list, &params);
                pipe_barrier::<PIPE_V>();
                let d = dst.view(to_dst_count * block_num * 16);
                if to_dst_count == to_dst_fractal {
                    first_rows(&d, &tmp2, to_dst_tail / 16, to_dst_tail % 16 != 0);
                } else {
                    first_rows(&d, &tmp2, block_num, false);
                }
                to_dst_count += 1;
                if to_dst_count == to_dst_fractal {
                    tmp2_row_full = to_dst_tail;
                }
                tmp2_row_count = 0;
                tmp2_need = tmp2_row_full - tmp2_row_count;
            }
        }
    }
}
