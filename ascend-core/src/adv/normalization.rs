//! Normalization functions of the advanced API (the vendor's `adv_api/normalization`):
//! `RmsNorm` ([`rms_norm`], [`rms_norm_stack`]) with its tiling struct [`RmsNormTiling`] and host
//! tiling helpers ([`get_rms_norm_max_min_tmp_size`], [`get_rms_norm_tiling_info`]).
//!
//! `RmsNorm` is the vendor's `rmsnorm_common_impl.h` on Ascend910B and Ascend310P (the chips
//! whose build of the library implements it; its page also lists Ascend 950, not emulated):
//! in counter mode, `loopRound` rounds of `mainBsLength` rows and a tail of `tailBsLength`
//! rows, each row of `H` elements normalized in `float` in the temporary buffer. The
//! broadcast of the basic-block path (`isBasicBlock`) is `Brcb` on Ascend910B and
//! `TransDataTo5HD` on Ascend310P, as in the vendor's `rmsnorm_v220_impl.h` and
//! `rmsnorm_v200_impl.h`.
//!
//! One deviation in form, not in result: the broadcast's first `Adds(dst[0], dst, 0, {1, 0,
//! rep, rep})` reads each row's block 0 and writes blocks 0..8 of the same row, a source that
//! meets `dst` in another layout, which the emulator's engine rejects; it is issued with lanes
//! 8..64 (blocks 1..8) in normal mode, one repeat per row, which writes the same values
//! (block 0 `+ 0` is itself).

use super::align_up;
use bytemuck::{Pod, Zeroable};

use crate::element::{f16, DType, Element};
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::soc::Soc;
use crate::sync::{
    event::{Event, HardEvent, PIPE_V},
    flags::{fetch_free_event, pipe_barrier, set_flag_event, wait_flag_event},
};
use crate::vector::binary::{add_masked, mul_masked};
use crate::vector::brcb::{brcb, BrcbRepeatParams};
use crate::vector::cast::{cast_masked, RoundMode};
use crate::vector::mask::{
    reset_mask, set_mask_count, set_mask_norm, set_vector_mask_hi_lo, MASK_PLACEHOLDER,
};
use crate::vector::params::{BinaryRepeatParams, UnaryRepeatParams};
use crate::vector::reduction::repeat_reduce_sum;
use crate::vector::scalar::{adds_masked, muls_masked};
use crate::vector::transpose::{trans_data_to_5hd_addr, TransDataTo5HDParams};

use super::steps;
use super::{check_apart, check_common, host_checks, span, stack_tensor};
use super::{NARROW, SAME};

mod sealed {
    pub trait Sealed {}
}
impl sealed::Sealed for f16 {}
impl sealed::Sealed for f32 {}

/// Element types of [`rms_norm`]: `half` and `float` (the vendor's page), on the chips that
/// have an implementation (Ascend910B, Ascend310P).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<i32>, tmp: &LocalTensor<u8>, tiling: &RmsNormTiling) {
///     rms_norm::<_, false>(t, t, t, tmp, 0, tiling)
/// }
/// ```
pub trait RmsNormElement: Element + sealed::Sealed {}
impl RmsNormElement for f16 {}
impl RmsNormElement for f32 {}

const RMS_NORM: &str = "RmsNorm";

/// The chips whose build of the vendor's library implements `RmsNorm` (`__NPU_ARCH__` 2201
/// and 2002).
const RMS_NORM_CHIPS: [Soc; 2] = [Soc::Ascend910B, Soc::Ascend310P];

/// The vendor's `BASIC_BLK_HLENGTH`: the basic block's row chunk.
const BASIC_BLK_HLENGTH: usize = 64;
/// The vendor's `BASIC_BLK_BSLENGTH`: rows per `Brcb` repeat.
const BASIC_BLK_BSLENGTH: usize = 8;
/// `float`s per 32-byte block.
const FLOAT_PER_BLOCK: usize = 8;
/// `float`s per repeat (`ONE_REPEAT_FLOAT_SIZE`).
const ONE_REPEAT_FLOAT_SIZE: usize = 64;
/// The vendor's `RSQRT_EXPONENT`: `1 / sqrt(x)` as `exp(-0.5 * ln(x))`.
const RSQRT_EXPONENT: f32 = -0.5;
/// The largest `H` of the basic block (exclusive; the vendor's `maxBasicBlockH`).
const MAX_BASIC_BLOCK_H: usize = 2048;
/// The repeat limit of the tiling's rows per round (`MAX_REPEAT`).
const MAX_REPEAT: usize = 255;

/// `RmsNorm`'s tiling (AscendC `RmsNormTiling`, the vendor's fields in snake_case), from
/// [`get_rms_norm_tiling_info`] on the host. `#[repr(C)]` and [`Pod`], so it travels in a
/// kernel's tiling data as the vendor's does.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct RmsNormTiling {
    /// B of the shape `[B, S, H]` (`bLength`).
    pub b_length: u32,
    /// S (`sLength`).
    pub s_length: u32,
    /// H, 32-byte aligned (`hLength`).
    pub h_length: u32,
    /// H before alignment: the elements of a row that are summed (`originalHLength`).
    pub original_h_length: u32,
    /// `1 / originalHLength` (`reciprocalOfHLength`).
    pub reciprocal_of_h_length: f32,
    /// Elements of one round: `mainBsLength * hLength` (`mainBshLength`).
    pub main_bsh_length: u32,
    /// Rows of one round (`mainBsLength`).
    pub main_bs_length: u32,
    /// `mainBsLength` rounded up to 8 (`mainBsLengthAlign`): the `float`s of the reduced
    /// rows at the start of the temporary buffer.
    pub main_bs_length_align: u32,
    /// Full rounds (`loopRound`).
    pub loop_round: u32,
    /// First element of the tail round (`inputTailPos`).
    pub input_tail_pos: u32,
    /// Elements of the tail round (`tailBshLength`).
    pub tail_bsh_length: u32,
    /// Rows of the tail round (`tailBsLength`; 0: no tail).
    pub tail_bs_length: u32,
}

// ---------------------------------------------------------------------------------------
// Host tiling
// ---------------------------------------------------------------------------------------

/// The `[B, S, H]` of a shape, failing unless it has three dimensions.
#[track_caller]
fn bsh(api: &'static str, name: &str, shape: &[usize]) -> (usize, usize, usize) {
    ensure(shape.len() == 3, api, || {
        format!("{name} = {shape:?} has {} dimensions; it must be [B, S, H]", shape.len())
    });
    (shape[0], shape[1], shape[2])
}

/// Fails unless `[B, S, H]` meets the basic block's requirements (the vendor's
/// `RmsNormCheckBasicBlockShape`).
#[track_caller]
fn check_basic_block_shape(api: &'static str, b: usize, s: usize, h: usize) {
    ensure(h % BASIC_BLK_HLENGTH == 0 && h < MAX_BASIC_BLOCK_H, api, || {
        format!(
            "isBasicBlock with H = {h}: the basic block needs H a multiple of {BASIC_BLK_HLENGTH} and less \
             than {MAX_BASIC_BLOCK_H}"
        )
    });
    ensure((b * s) % BASIC_BLK_BSLENGTH == 0, api, || {
        format!(
            "isBasicBlock with B * S = {}: the basic block needs B * S a multiple of {BASIC_BLK_BSLENGTH}",
            b * s
        )
    });
}

/// The temporary buffer's `(max, min)` bytes for `RmsNorm` on a source of shape `[B, S, H]`
/// (AscendC `GetRmsNormMaxMinTmpSize(srcShape, typeSize, maxValue, minValue,
/// isBasicBlock)`), `type_size` 2 (`half`) or 4 (`float`): the maximum computes the whole
/// shape in one round, `4 * (B*S*H * c + align(B*S, 32 / typeSize))`, the minimum one row,
/// `4 * (H * c + 8)`, with `c` 2 for `half` (the `float` copy of the source) and 1 for
/// `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_rms_norm_max_min_tmp_size(&[4, 8, 64], 4, false), (8320, 288));
/// assert_eq!(get_rms_norm_max_min_tmp_size(&[1, 3, 32], 2, false), (832, 288));
/// ```
///
/// # Panics
/// Panics if the shape is not `[B, S, H]` or has no elements, `type_size` is neither 2 nor 4,
/// or, with `is_basic_block`, the shape is not a basic block (H a multiple of 64 below 2048,
/// B * S a multiple of 8), where the vendor returns `false`.
#[track_caller]
pub fn get_rms_norm_max_min_tmp_size(
    src_shape: &[usize],
    type_size: usize,
    is_basic_block: bool,
) -> (usize, usize) {
    const API: &str = "GetRmsNormMaxMinTmpSize";
    let (b, s, h) = bsh(API, "srcShape", src_shape);
    host_checks(API, b * s * h, type_size);
    if is_basic_block {
        check_basic_block_shape(API, b, s, h);
    }
    let coeff = if type_size == 2 { 2 } else { 1 };
    let max = b * s * h * coeff + align_up(b * s, 32 / type_size);
    let min = h * coeff + FLOAT_PER_BLOCK;
    (max * 4, min * 4)
}

/// `RmsNorm`'s tiling for a source of shape `src_shape` (`[B, S, H]`, H 32-byte aligned)
/// holding data of shape `origin_src_shape` (`[B, S, H₀]`, `H₀ <= H`: the unpadded rows) with
/// a temporary buffer of `stack_buffer_byte_size` bytes (AscendC
/// `GetRmsNormTilingInfo(srcShape, originSrcShape, stackBufferByteSize, typeSize, tiling,
/// isBasicBlock)`), the vendor's numbers: the most rows `r` with `r * H * c + align(r, 8)`
/// `float`s in the buffer (`c` 2 for `half`, 1 for `float`), at most all rows, then at most
/// 255 rows, or with `is_basic_block` a multiple of 8 rows when there are 8 or more.
///
/// ```
/// use ascend_core::prelude::*;
/// let t = get_rms_norm_tiling_info(&[2, 5, 64], &[2, 5, 60], 2 * 1024, 4, false);
/// assert_eq!((t.main_bs_length, t.main_bsh_length, t.main_bs_length_align), (7, 448, 8));
/// assert_eq!((t.loop_round, t.tail_bs_length, t.input_tail_pos), (1, 3, 448));
/// assert_eq!(t.reciprocal_of_h_length, 1.0 / 60.0);
/// ```
///
/// # Panics
/// Panics, where the vendor returns `false`, if a shape is not `[B, S, H]`, the two shapes'
/// B or S differ, `H₀` is 0 or greater than H, `H * typeSize` is not a multiple of 32, the
/// buffer is below [`get_rms_norm_max_min_tmp_size`]'s minimum, or with `is_basic_block`
/// the shape is not a basic block; and if the shape has no elements or `type_size` is
/// neither 2 nor 4.
#[track_caller]
pub fn get_rms_norm_tiling_info(
    src_shape: &[usize],
    origin_src_shape: &[usize],
    stack_buffer_byte_size: usize,
    type_size: usize,
    is_basic_block: bool,
) -> RmsNormTiling {
    const API: &str = "GetRmsNormTilingInfo";
    let (b, s, h) = bsh(API, "srcShape", src_shape);
    let (ob, os, oh) = bsh(API, "originSrcShape", origin_src_shape);
    host_checks(API, b * s * h, type_size);
    ensure(b == ob && s == os, API, || {
        format!("srcShape = {src_shape:?} and originSrcShape = {origin_src_shape:?} differ in B or S")
    });
    ensure(oh != 0 && oh <= h, API, || {
        format!("originSrcShape's H = {oh} must be between 1 and srcShape's H = {h}")
    });
    ensure(h * type_size % 32 == 0, API, || {
        format!("H = {h} of {type_size}-byte elements is not 32-byte aligned")
    });
    if is_basic_block {
        check_basic_block_shape(API, b, s, h);
    }
    let coeff = if type_size == 4 { 1 } else { 2 };
    let min = (h * coeff + FLOAT_PER_BLOCK) * 4;
    ensure(stack_buffer_byte_size >= min, API, || {
        format!(
            "stackBufferByteSize = {stack_buffer_byte_size} is below the minimum {min} bytes (one row; see \
             GetRmsNormMaxMinTmpSize)"
        )
    });
    let total = stack_buffer_byte_size / 4;
    let mut bs = 1;
    while total >= (bs + 1) * h * coeff + align_up(bs + 1, FLOAT_PER_BLOCK) {
        bs += 1;
    }
    let input = b * s * h;
    let one = (bs * h).min(input);
    let mut bs = one / h;
    if is_basic_block {
        if bs >= BASIC_BLK_BSLENGTH {
            bs = bs / BASIC_BLK_BSLENGTH * BASIC_BLK_BSLENGTH;
        }
    } else if bs > MAX_REPEAT {
        bs = MAX_REPEAT;
    }
    let one = bs * h;
    let tail = input % one;
    RmsNormTiling {
        b_length: b as u32,
        s_length: s as u32,
        h_length: h as u32,
        original_h_length: oh as u32,
        // `1.0 / static_cast<float>(originalHLength)`: a double division, narrowed.
        reciprocal_of_h_length: (1.0 / f64::from(oh as f32)) as f32,
        main_bsh_length: one as u32,
        main_bs_length: bs as u32,
        main_bs_length_align: align_up(bs, FLOAT_PER_BLOCK) as u32,
        loop_round: (input / one) as u32,
        input_tail_pos: (input - tail) as u32,
        tail_bsh_length: tail as u32,
        tail_bs_length: (tail / h) as u32,
    }
}

// ---------------------------------------------------------------------------------------
// RmsNorm
// ---------------------------------------------------------------------------------------

/// The counter-mode mask to `n` elements (`SetVectorMask<T>(0, n)`).
#[track_caller]
fn count<T: Element>(n: usize) {
    set_vector_mask_hi_lo::<T>(0, n as u64);
}

/// The vendor's `RmsNormParams`: the rows and elements of the current round, and the views
/// of the temporary buffer.
struct Params {
    cur_bs: usize,
    cur_bsh: usize,
    /// The reduced rows (`reducedAddr`, the buffer's start).
    reduced: LocalTensor<f32>,
    /// `x²`, then the normalized rows (`tmpAddr`).
    tmp: LocalTensor<f32>,
    /// The `float` copy of a `half` source, then of `gamma` (`srcFp32Addr`).
    src_fp32: LocalTensor<f32>,
}

/// `RmsNormGenericReduceSum`: per row, `RepeatReduceSum` over its first `original_h`
/// elements, in place while more than 64 partial sums remain, the last into `dst[i]`.
#[track_caller]
fn generic_reduce_sum(
    dst: &LocalTensor<f32>,
    src: &LocalTensor<f32>,
    bs: usize,
    h: usize,
    original_h: usize,
) {
    for i in 0..bs {
        let mut total = original_h;
        let src_tmp = src.view(i * h);
        let mut dst_tmp = src_tmp.clone();
        while total > 1 {
            if total <= ONE_REPEAT_FLOAT_SIZE {
                dst_tmp = dst.view(i);
            }
            count::<f32>(total);
            repeat_reduce_sum::<f32, false>(&dst_tmp, &src_tmp, 1, MASK_PLACEHOLDER, 1, 1, 1, 8);
            pipe_barrier::<PIPE_V>();
            total = total.div_ceil(ONE_REPEAT_FLOAT_SIZE);
        }
    }
}

/// `RmsNormReduceSum`: the basic block adds each row's 64-element chunks into its first
/// (in order), then one `RepeatReduceSum` per row; otherwise [`generic_reduce_sum`].
#[track_caller]
fn reduce_sum<const BB: bool>(
    dst: &LocalTensor<f32>,
    src: &LocalTensor<f32>,
    bs: usize,
    h: usize,
    original_h: usize,
) {
    if BB {
        count::<f32>(bs * BASIC_BLK_HLENGTH);
        let rep = (h / FLOAT_PER_BLOCK) as u8;
        let p = BinaryRepeatParams::new(1, 1, 1, rep, rep, rep);
        for i in 1..h / BASIC_BLK_HLENGTH {
            add_masked::<f32, false>(src, src, &src.view(i * BASIC_BLK_HLENGTH), MASK_PLACEHOLDER, 1, &p);
            pipe_barrier::<PIPE_V>();
        }
        repeat_reduce_sum::<f32, false>(dst, src, 1, MASK_PLACEHOLDER, 1, 1, 1, u16::from(rep));
        pipe_barrier::<PIPE_V>();
    } else {
        generic_reduce_sum(dst, src, bs, h, original_h);
    }
}

/// `RmsNormBasicBlockBrc`: `reduce[i]` broadcast over row `i` of `dst` — its first block by
/// `Brcb` (Ascend910B, in normal mode) or `TransDataTo5HD` (Ascend310P, its first two
/// blocks), then `Adds(…, 0)` from the first block to every 64-element chunk.
#[track_caller]
fn basic_block_brc(dst: &LocalTensor<f32>, reduce: &LocalTensor<f32>, h: usize, bs: usize) {
    if crate::kernel::ctx::get_soc() == Soc::Ascend310P {
        // rmsnorm_v200_impl.h: no Brcb; TransDataTo5HD of 16 copies of the reduced block.
        let mut dst_list = [0u64; 16];
        let src_list = [reduce.get_phy_addr() as u64; 16];
        for i in 0..8 {
            dst_list[2 * i] = dst.view(i * h).get_phy_addr() as u64;
            dst_list[2 * i + 1] = dst.view(i * h + FLOAT_PER_BLOCK).get_phy_addr() as u64;
        }
        let p = TransDataTo5HDParams::new(
            false,
            false,
            (bs / FLOAT_PER_BLOCK) as u8,
            (h * BASIC_BLK_BSLENGTH / FLOAT_PER_BLOCK) as u16,
            1,
        );
        trans_data_to_5hd_addr::<f32>(&dst_list, &src_list, &p);
        pipe_barrier::<PIPE_V>();
    } else {
        // rmsnorm_v220_impl.h.
        let dst_blk_stride = (h / FLOAT_PER_BLOCK) as u16;
        let dst_rep_stride = dst_blk_stride * BASIC_BLK_BSLENGTH as u16;
        set_mask_norm();
        reset_mask();
        brcb(
            dst,
            reduce,
            (bs / BASIC_BLK_BSLENGTH) as u8,
            &BrcbRepeatParams::new(dst_blk_stride, dst_rep_stride),
        );
        pipe_barrier::<PIPE_V>();
        set_mask_count();
    }
    count::<f32>(bs * BASIC_BLK_HLENGTH);
    let rep = (h / FLOAT_PER_BLOCK) as u8;
    let p = UnaryRepeatParams::new(1, 0, rep, rep);
    for i in 0..h / BASIC_BLK_HLENGTH {
        if i == 0 {
            first_chunk_brc(dst, bs, &p);
            continue;
        }
        adds_masked::<f32, false>(&dst.view(i * BASIC_BLK_HLENGTH), dst, 0.0, MASK_PLACEHOLDER, 1, &p);
    }
    pipe_barrier::<PIPE_V>();
}

/// The vendor's first `Adds(dst[0], dst, 0, …)` of [`basic_block_brc`]: in each row, block 0
/// `+ 0` into blocks 0..8. On the chip a repeat reads its source block before writing, so
/// block 0 keeps its value and blocks 1..8 receive it; the emulator's engine rejects a source
/// that meets `dst` in another layout, so the same writes are issued as the vendor's `Adds`
/// with lanes 8..64 (blocks 1..8) in normal mode, one repeat per row (255 at a time), and
/// counter mode restored with the vendor's mask.
#[track_caller]
fn first_chunk_brc(dst: &LocalTensor<f32>, bs: usize, p: &UnaryRepeatParams) {
    set_mask_norm();
    set_vector_mask_hi_lo::<f32>(0, !0xFFu64);
    let row = usize::from(p.dst_rep_stride) * FLOAT_PER_BLOCK;
    let mut r = 0;
    while r < bs {
        let n = (bs - r).min(MAX_REPEAT);
        let t = dst.view(r * row);
        adds_masked::<f32, false>(&t, &t, 0.0, MASK_PLACEHOLDER, n as u8, p);
        r += n;
    }
    set_mask_count();
    count::<f32>(bs * BASIC_BLK_HLENGTH);
}

/// `RmsNormGeneralFirstAxisBrcMul`: row `i` times `src1[i]`, read by the scalar unit after a
/// `V_S` flag, one `Muls` per row.
#[track_caller]
fn general_first_axis_brc_mul(
    dst: &LocalTensor<f32>,
    src0: &LocalTensor<f32>,
    src1: &LocalTensor<f32>,
    bsh: usize,
    bs: usize,
    h: usize,
) {
    count::<f32>(h);
    let e = <HardEvent::V_S as Event>::EVENT;
    let id = fetch_free_event("TPipe::FetchEventID", e);
    set_flag_event(e, id);
    wait_flag_event(e, id);
    for i in 0..bs {
        let off = i * h;
        muls_masked::<f32, false>(
            &dst.view(off),
            &src0.view(off),
            src1.get_value(i),
            MASK_PLACEHOLDER,
            1,
            &SAME,
        );
    }
    pipe_barrier::<PIPE_V>();
    count::<f32>(bsh);
}

/// `RmsNormFirstAxisBrcMul`: `dst = input * reduce[row]` — with the basic block and more
/// than 8 rows and than `H / 64`, [`basic_block_brc`] then one `Mul`; otherwise
/// [`general_first_axis_brc_mul`].
#[track_caller]
fn first_axis_brc_mul<const BB: bool>(
    dst: &LocalTensor<f32>,
    input: &LocalTensor<f32>,
    reduce: &LocalTensor<f32>,
    bsh: usize,
    bs: usize,
    h: usize,
) {
    if BB && bs > BASIC_BLK_BSLENGTH && bs > h / BASIC_BLK_HLENGTH {
        basic_block_brc(dst, reduce, h, bs);
        count::<f32>(bsh);
        mul_masked::<f32, false>(dst, dst, input, MASK_PLACEHOLDER, 1, &BinaryRepeatParams::default());
        pipe_barrier::<PIPE_V>();
    } else {
        general_first_axis_brc_mul(dst, input, reduce, bsh, bs, h);
    }
}

/// `RmsNormLastAxisBrcMulImpl`: `dst = src0 * src1` with `src1` one row — per row when there
/// are no more rows than 64-element chunks; otherwise per chunk over all rows (`src1`'s
/// repeat stride 0), and the chunk's tail in normal mode with a bit mask, one repeat per row.
#[track_caller]
fn last_axis_brc_mul_impl(
    dst: &LocalTensor<f32>,
    src0: &LocalTensor<f32>,
    src1: &LocalTensor<f32>,
    bs: usize,
    h: usize,
) {
    let lp = h / BASIC_BLK_HLENGTH;
    if lp >= bs {
        count::<f32>(h);
        for i in 0..bs {
            let off = i * h;
            mul_masked::<f32, false>(
                &dst.view(off),
                &src0.view(off),
                src1,
                MASK_PLACEHOLDER,
                1,
                &BinaryRepeatParams::default(),
            );
        }
    } else {
        count::<f32>(bs * BASIC_BLK_HLENGTH);
        // `const uint16_t repStride`, narrowed to the `uint8_t` of `BinaryRepeatParams`.
        let rep = (h / FLOAT_PER_BLOCK) as u8;
        let p = BinaryRepeatParams::new(1, 1, 1, rep, rep, 0);
        for i in 0..lp {
            let off = i * BASIC_BLK_HLENGTH;
            mul_masked::<f32, false>(
                &dst.view(off),
                &src0.view(off),
                &src1.view(off),
                MASK_PLACEHOLDER,
                1,
                &p,
            );
        }
        if h % BASIC_BLK_HLENGTH != 0 {
            let off = lp * BASIC_BLK_HLENGTH;
            let tail = h - off;
            set_mask_norm();
            set_vector_mask_hi_lo::<f32>(0, (1u64 << tail) - 1);
            // `bsLength` as the `uint8_t` repeat time (the tiling keeps it below 256).
            mul_masked::<f32, false>(
                &dst.view(off),
                &src0.view(off),
                &src1.view(off),
                MASK_PLACEHOLDER,
                bs as u8,
                &p,
            );
            set_mask_count();
        }
    }
}

/// `RmsNormLastAxisBrcMul`: `dst = src0 * src1` with `src1` (`gamma`) one row: the basic
/// block [`last_axis_brc_mul_impl`]; otherwise for `H = 64` one `Mul` with `src1`'s repeat
/// stride 0, for `H < 64` one repeat per row in normal mode with a bit mask, else
/// [`last_axis_brc_mul_impl`]; then a `PipeBarrier<PIPE_V>`.
#[track_caller]
fn last_axis_brc_mul<const BB: bool>(
    dst: &LocalTensor<f32>,
    src0: &LocalTensor<f32>,
    src1: &LocalTensor<f32>,
    bs: usize,
    h: usize,
) {
    if BB || h > BASIC_BLK_HLENGTH {
        last_axis_brc_mul_impl(dst, src0, src1, bs, h);
    } else if h == BASIC_BLK_HLENGTH {
        count::<f32>(bs * h);
        let p = BinaryRepeatParams::new(1, 1, 1, 8, 8, 0);
        mul_masked::<f32, false>(dst, src0, src1, MASK_PLACEHOLDER, 1, &p);
    } else {
        set_mask_norm();
        set_vector_mask_hi_lo::<f32>(0, (1u64 << h) - 1);
        let rep = (h / FLOAT_PER_BLOCK) as u8;
        let p = BinaryRepeatParams::new(1, 1, 1, rep, rep, 0);
        mul_masked::<f32, false>(dst, src0, src1, MASK_PLACEHOLDER, bs as u8, &p);
        set_mask_count();
    }
    pipe_barrier::<PIPE_V>();
}

/// `RmsNormCompute`: one round of `p.cur_bs` rows.
#[track_caller]
fn compute<T: RmsNormElement, const BB: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    gamma: &LocalTensor<T>,
    epsilon: f32,
    tiling: &RmsNormTiling,
    p: &Params,
) {
    let half = T::DTYPE == DType::F16;
    let h = tiling.h_length as usize;
    count::<T>(p.cur_bsh);
    let x = if half {
        steps::widen(&p.src_fp32, &src.reinterpret_cast::<f16>());
        p.src_fp32.clone()
    } else {
        src.reinterpret_cast::<f32>()
    };
    // x², its sum per row, the mean.
    steps::mul(&p.tmp, &x, &x);
    reduce_sum::<BB>(&p.reduced, &p.tmp, p.cur_bs, h, tiling.original_h_length as usize);
    count::<T>(p.cur_bs);
    steps::muls(&p.reduced, &p.reduced, tiling.reciprocal_of_h_length);
    // + epsilon, then 1 / sqrt as exp(-0.5 * ln).
    steps::adds(&p.reduced, &p.reduced, epsilon);
    steps::ln(&p.reduced, &p.reduced);
    steps::muls(&p.reduced, &p.reduced, RSQRT_EXPONENT);
    steps::exp(&p.reduced, &p.reduced);
    // x * rstd[row], then * gamma.
    first_axis_brc_mul::<BB>(&p.tmp, &x, &p.reduced, p.cur_bsh, p.cur_bs, h);
    pipe_barrier::<PIPE_V>();
    if half {
        count::<T>(h);
        steps::widen(&p.src_fp32, &gamma.reinterpret_cast::<f16>());
        last_axis_brc_mul::<BB>(&p.tmp, &p.tmp, &p.src_fp32, p.cur_bs, h);
        count::<T>(p.cur_bsh);
        cast_masked::<f16, f32, false>(
            &dst.reinterpret_cast::<f16>(),
            &p.tmp,
            RoundMode::CastNone,
            MASK_PLACEHOLDER,
            1,
            &NARROW,
        );
    } else {
        last_axis_brc_mul::<BB>(
            &dst.reinterpret_cast::<f32>(),
            &p.tmp,
            &gamma.reinterpret_cast::<f32>(),
            p.cur_bs,
            h,
        );
    }
    pipe_barrier::<PIPE_V>();
}

/// The `float`s of the temporary buffer `RmsNorm` uses with `tiling`: the reduced rows
/// (`mainBsLengthAlign`), `x²` (`mainBshLength`) and for `half` the `float` source
/// (`mainBshLength`).
fn rms_norm_tmp_floats(tiling: &RmsNormTiling, half: bool) -> usize {
    let bsh = tiling.main_bsh_length as usize;
    tiling.main_bs_length_align as usize + bsh + if half { bsh } else { 0 }
}

/// `RmsNorm`'s checks: chip, positions, the tiling's consistency, H's alignment, the basic
/// block's shape, the tensors' and the buffer's sizes, and the overlaps.
#[track_caller]
fn check_rms_norm<T: RmsNormElement, const BB: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    gamma: &LocalTensor<T>,
    tmp: &LocalTensor<u8>,
    t: &RmsNormTiling,
) {
    const API: &str = RMS_NORM;
    check_common(API, &RMS_NORM_CHIPS, dst, src, 0);
    for (name, pos) in [("gammaLocal", gamma.get_position()), ("sharedTmpBuffer", tmp.get_position())] {
        ensure(pos.is_ub(), API, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
    }
    let (b, s, h, oh) =
        (t.b_length as usize, t.s_length as usize, t.h_length as usize, t.original_h_length as usize);
    let (bs, bsh, rounds) = (t.main_bs_length as usize, t.main_bsh_length as usize, t.loop_round as usize);
    let (tail_bs, tail_bsh, tail_pos) =
        (t.tail_bs_length as usize, t.tail_bsh_length as usize, t.input_tail_pos as usize);
    let total = b * s * h;
    let consistent = h > 0
        && oh >= 1
        && oh <= h
        && bs >= 1
        && bsh == bs * h
        && t.main_bs_length_align as usize >= bs
        && tail_bsh == tail_bs * h
        && tail_pos == rounds * bsh
        && tail_pos + tail_bsh == total;
    ensure(consistent, API, || {
        format!(
            "the tiling is inconsistent ({t:?}): it needs 1 <= originalHLength <= hLength, mainBshLength = \
             mainBsLength * hLength, tailBshLength = tailBsLength * hLength, inputTailPos = loopRound * \
             mainBshLength and inputTailPos + tailBshLength = bLength * sLength * hLength; get it from \
             GetRmsNormTilingInfo"
        )
    });
    ensure(h * T::SIZE % 32 == 0, API, || {
        format!(
            "tiling.hLength = {h} {} elements is not 32-byte aligned: H must be a multiple of {}",
            T::DTYPE,
            32 / T::SIZE
        )
    });
    if BB {
        check_basic_block_shape(API, b, s, h);
    }
    for (name, n) in [("srcLocal", src.get_size()), ("dstLocal", dst.get_size())] {
        ensure(n >= total, API, || {
            format!("{name} has {n} {} elements, fewer than the shape's B * S * H = {total}", T::DTYPE)
        });
    }
    ensure(gamma.get_size() >= h, API, || {
        format!("gammaLocal has {} {} elements, fewer than H = {h}", gamma.get_size(), T::DTYPE)
    });
    let need = rms_norm_tmp_floats(t, T::DTYPE == DType::F16) * 4;
    ensure(tmp.get_size() >= need, API, || {
        format!(
            "sharedTmpBuffer has {} bytes; the tiling's rounds of {bs} rows need {need} (see \
             GetRmsNormTilingInfo)",
            tmp.get_size()
        )
    });
    let (d, sp, g) =
        (span("dstLocal", dst, total), span("srcLocal", src, total), span("gammaLocal", gamma, h));
    let tw = ("sharedTmpBuffer", tmp.get_phy_addr(), tmp.get_phy_addr() + need);
    check_apart(API, &[(d, g), (tw, sp), (tw, d), (tw, g)]);
}

/// RmsNorm of `src` (shape `[B, S, H]` in `tiling`) into `dst` with the scaling `gamma`
/// (shape `[H]`), `shared_tmp_buffer` as scratch (AscendC `RmsNorm<T, isBasicBlock>(dstLocal,
/// srcLocal, gammaLocal, sharedTmpBuffer, epsilon, tiling)`):
/// `dst = x / sqrt(mean(x²) + epsilon) * gamma` per row, the mean over the row's first
/// `originalHLength` elements.
///
/// As the vendor's implementation (Ascend910B, Ascend310P), in counter mode, per round of
/// `mainBsLength` rows and then the tail: `half` widened to `float` in the buffer; `Mul` for
/// `x²`; per row `RepeatReduceSum` (in place while more than 64 partial sums remain), or
/// with `IS_BASIC_BLOCK` the row's 64-element chunks added into the first and one
/// `RepeatReduceSum`; `Muls` by `reciprocalOfHLength`, `Adds` of `epsilon`, `Ln`, `Muls` by
/// -0.5, `Exp`; `x` times each row's result (`Muls` per row with the value read by the scalar
/// unit after a `V_S` flag, or with `IS_BASIC_BLOCK` and more than 8 rows a broadcast —
/// `Brcb` on Ascend910B, `TransDataTo5HD` on Ascend310P — and one `Mul`); times `gamma`
/// (`half`'s `gamma` widened into the buffer) and, for `half`, narrowed into `dst` — each
/// step separated by `PipeBarrier<PIPE_V>`. It leaves normal mode and a reset mask. With
/// `originalHLength` 1 the vendor's reduction writes nothing, and the row's `1 / sqrt`
/// comes from whatever the buffer's reduced slot held (as on the chip).
///
/// Like the vendor's, it relies on the compiler's automatic synchronisation (the default of
/// the vendor's builds and of `Launch`) in two places: with several rounds of the general
/// path, the scalar reads of a round's reduced rows and the next round's `RepeatReduceSum`
/// into them have no `S_V` event between them; and the basic block's broadcast `Adds` over
/// rows longer than 64 have no `PipeBarrier<PIPE_V>` between them.
///
/// The buffer's layout: the reduced rows (`mainBsLengthAlign` `float`s), `x²` and the
/// normalized rows (`mainBshLength`), and for `half` the widened source, then `gamma`
/// (`mainBshLength`).
///
/// ```
/// use ascend_core::prelude::*;
/// // The vendor's page: src = gamma = 0..16, shape [1, 1, 16].
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 3 * 64);
/// let (_, min) = get_rms_norm_max_min_tmp_size(&[1, 1, 16], 4, false);
/// pipe.init_tbuf(&mut tmp, min);
/// let tiling = get_rms_norm_tiling_info(&[1, 1, 16], &[1, 1, 16], min, 4, false);
/// let (x, g, y) =
///     (q.get_with_offset::<f32>(16, 0), q.get_with_offset::<f32>(16, 64), q.get_with_offset::<f32>(16, 128));
/// let v: Vec<f32> = (0..16).map(|i| i as f32).collect();
/// x.copy_from_slice(&v);
/// g.copy_from_slice(&v);
/// rms_norm::<_, false>(&y, &x, &g, &tmp.get::<u8>(), 1e-5, &tiling);
/// assert!((y.get_value(1) - 0.11359233).abs() < 1e-6);
/// assert!((y.get_value(15) - 25.558275).abs() < 1e-4);
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); a tensor is not in the
/// Unified Buffer; the tiling is inconsistent; `hLength` elements are not 32-byte aligned;
/// with `IS_BASIC_BLOCK` the shape is not a basic block (H a multiple of 64 below 2048,
/// B * S a multiple of 8); `src` or `dst` holds fewer than B * S * H elements or `gamma`
/// fewer than H; `shared_tmp_buffer` is smaller than the tiling's rounds need; `dst`
/// overlaps `gamma` (the vendor's page), or the used scratch overlaps `src`, `dst` or
/// `gamma`; or any instruction's own check fails.
#[track_caller]
pub fn rms_norm<T: RmsNormElement, const IS_BASIC_BLOCK: bool>(
    dst_local: &LocalTensor<T>,
    src_local: &LocalTensor<T>,
    gamma_local: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    epsilon: T,
    tiling: &RmsNormTiling,
) {
    check_rms_norm::<T, IS_BASIC_BLOCK>(dst_local, src_local, gamma_local, shared_tmp_buffer, tiling);
    let half = T::DTYPE == DType::F16;
    let tmp = shared_tmp_buffer.reinterpret_cast::<f32>();
    let align = tiling.main_bs_length_align as usize;
    let main_bsh = tiling.main_bsh_length as usize;
    let mut p = Params {
        cur_bs: tiling.main_bs_length as usize,
        cur_bsh: main_bsh,
        reduced: tmp.clone(),
        tmp: tmp.view(align),
        src_fp32: if half { tmp.view(main_bsh + align) } else { tmp.clone() },
    };
    let eps = epsilon.to_f64() as f32;
    set_mask_count();
    for i in 0..tiling.loop_round as usize {
        let off = i * main_bsh;
        compute::<T, IS_BASIC_BLOCK>(
            &dst_local.view(off),
            &src_local.view(off),
            gamma_local,
            eps,
            tiling,
            &p,
        );
    }
    if tiling.tail_bs_length != 0 {
        p.cur_bsh = tiling.tail_bsh_length as usize;
        p.cur_bs = tiling.tail_bs_length as usize;
        let off = tiling.input_tail_pos as usize;
        compute::<T, IS_BASIC_BLOCK>(
            &dst_local.view(off),
            &src_local.view(off),
            gamma_local,
            eps,
            tiling,
            &p,
        );
    }
    set_mask_norm();
    reset_mask();
}

/// [`rms_norm`] with the stack buffer as scratch (AscendC `RmsNorm<T, isBasicBlock>(dstLocal,
/// srcLocal, gammaLocal, epsilon, tiling)`): the Unified Buffer after the core's `TPipe`
/// buffers (see [`pop_stack_buffer`](super::pop_stack_buffer)); the tiling's rounds must fit
/// in it.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 3 * 2 * 32 * 2);
/// let stack = pop_stack_buffer::<u8>().get_size();
/// let tiling = get_rms_norm_tiling_info(&[1, 2, 32], &[1, 2, 32], stack, 2, false);
/// let (x, g, y) = (q.get_with_len::<f16>(64), q.get_with_offset::<f16>(32, 128), q.get_with_offset::<f16>(64, 192));
/// x.copy_from_slice(&[f16::from_f32(2.0); 64]);
/// g.copy_from_slice(&[f16::from_f32(3.0); 32]);
/// rms_norm_stack::<_, false>(&y, &x, &g, f16::from_f32(0.0), &tiling);
/// assert_eq!(y.get_value(63), f16::from_f32(3.0));
/// ```
///
/// # Panics
/// As [`rms_norm`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn rms_norm_stack<T: RmsNormElement, const IS_BASIC_BLOCK: bool>(
    dst_local: &LocalTensor<T>,
    src_local: &LocalTensor<T>,
    gamma_local: &LocalTensor<T>,
    epsilon: T,
    tiling: &RmsNormTiling,
) {
    let stack = stack_tensor(RMS_NORM);
    rms_norm::<T, IS_BASIC_BLOCK>(dst_local, src_local, gamma_local, &stack, epsilon, tiling);
}
