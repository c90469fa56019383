//! More normalizations of the advanced API: `DeepNorm` (the vendor's
//! `adv_api/normalization/deepnorm.h`: [`deep_norm`], [`deep_norm_stack`], the tiling
//! [`DeepNormTiling`] and its host helpers [`get_deep_norm_max_min_tmp_size`],
//! [`get_deep_norm_tiling_info`]).
//!
//! `DeepNorm` is the vendor's `deepnorm_common_impl.h` with, for `isBasicBlock`, the chip's
//! broadcast (`deepnorm_v220_impl.h`: `Brcb`; `deepnorm_v200_impl.h`: `TransDataTo5HD`) —
//! Ascend910B and Ascend310P, the chips whose build of the library implements it (its page
//! also lists Ascend 950, not emulated). It is `LayerNorm` of `alpha * x + gx` and shares
//! `LayerNorm`'s tiling layout, host arithmetic and checks ([`super::layernorm`]); its sums
//! and broadcasts are its own.
//!
//! `BatchNorm` is in [`super::batchnorm`]. Not ported yet: `GroupNorm` (`groupnorm.h`,
//! `GroupNormTiling`, `GetGroupNormMaxMinTmpSize`, `GetGroupNormNDTilingInfo`).

use crate::element::{f16, DType};
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::sync::{
    event::{HardEvent, PIPE_V},
    flags::pipe_barrier,
};
use crate::vector::binary::{add_masked, mul_masked, sub_masked};
use crate::vector::brcb::{brcb, BrcbRepeatParams};
use crate::vector::duplicate::duplicate_masked;
use crate::vector::mask::{reset_mask, set_mask_count, set_mask_norm, MASK_PLACEHOLDER};
use crate::vector::params::{BinaryRepeatParams, UnaryRepeatParams};
use crate::vector::reduction::repeat_reduce_sum;
use crate::vector::scalar::{adds_masked, muls_masked};
use crate::vector::transpose::{trans_data_to_5hd, TransDataTo5HDParams, NCHW_CONV_ADDR_LIST_SIZE};

use super::align_up;
use super::layernorm::{
    check_layer_norm, duplicate_rows, get_layer_norm_max_min_tmp_size, handshake, narrow, tiling_of,
    used_floats, LayerNormElement, LayerNormTiling,
};
use super::steps;
use super::{check_apart, count_mask, span, stack_tensor, Span};
use crate::kernel::ctx::get_soc;
use crate::soc::Soc;

// ---------------------------------------------------------------------------------------
// DeepNorm
// ---------------------------------------------------------------------------------------

const DEEP_NORM: &str = "DeepNorm";
/// `float`s of one repeat (`ONE_REPEAT_FLOAT_SIZE`, `BASIC_BLOCK_HLENGTH`).
const REPEAT_FLOATS: usize = 64;
/// `isBasicBlock`'s row multiple (`BASIC_BLOCK_BSLENGTH`).
const BASIC_BS: usize = 8;
/// The longest H (`hLength / 8` must fit a `uint8_t` repeat stride).
const MAX_H: usize = 2040;

/// `DeepNorm`'s tiling (AscendC `DeepNormTiling`): the vendor's struct has exactly
/// [`LayerNormTiling`]'s fields in the same order and meaning (`oneTmpSize`, `loopRound`, …,
/// `lastDimValueBack`), so it is that type; get it from [`get_deep_norm_tiling_info`].
pub type DeepNormTiling = LayerNormTiling;

/// Element types of [`deep_norm`]: `half` and `float` (the vendor's page), as
/// [`LayerNormElement`]:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<i32>, tmp: &LocalTensor<u8>, tiling: &mut DeepNormTiling) {
///     deep_norm::<_, false, false>(t, t, t, t, t, t, t, tmp, 0, 0, tiling)
/// }
/// ```
pub trait DeepNormElement: LayerNormElement {}
impl DeepNormElement for f16 {}
impl DeepNormElement for f32 {}

/// The vendor's `CheckDeepNormHostCommon`: a non-empty `[B, S, H]`, `typeSize` 2 or 4, H
/// 32-byte aligned and at most 2040, and for `isBasicBlock` H a multiple of 64 and `B * S` of
/// 8; returns `(B, S, H)`.
#[track_caller]
fn deep_host(api: &'static str, shape: &[usize], type_size: usize, basic: bool) -> (usize, usize, usize) {
    super::host_checks(api, shape.iter().product(), type_size);
    ensure(shape.len() == 3, api, || {
        format!("srcShape = {shape:?} has {} dimensions; it must be [B, S, H]", shape.len())
    });
    let (b, s, h) = (shape[0], shape[1], shape[2]);
    ensure(h * type_size % 32 == 0, api, || {
        format!("the last axis H = {h} is not 32-byte aligned for typeSize = {type_size}")
    });
    ensure(h <= MAX_H, api, || format!("the last axis H = {h} is greater than {MAX_H}"));
    if basic {
        ensure(h % REPEAT_FLOATS == 0, api, || {
            format!("isBasicBlock: the last axis H = {h} must be a multiple of {REPEAT_FLOATS}")
        });
        ensure(b * s % BASIC_BS == 0, api, || {
            format!("isBasicBlock: B * S = {} must be a multiple of {BASIC_BS}", b * s)
        });
    }
    (b, s, h)
}

/// The temporary buffer's `(max, min)` bytes for [`deep_norm`] on a source of shape `[B, S,
/// H]` (AscendC `GetDeepNormMaxMinTmpSize(srcShape, typeSize, isReuseSource, isBasicBlock,
/// maxValue, minValue)`): as `LayerNorm`'s, `k * align32(4 * B*S*H) + 2 * align32(4 * B*S)`
/// and `k * align32(4 * H) + 2 * align32(4 * B*S)`, `k` 2 for `float` with
/// `is_reuse_source`, else 3.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_deep_norm_max_min_tmp_size(&[4, 16, 64], 4, false, true), (49664, 1280));
/// ```
///
/// # Panics
/// Panics if the shape is not `[B, S, H]` or has no elements, `type_size` is neither 2 nor 4,
/// H is not 32-byte aligned or above 2040; with `is_basic_block`, if H is not a multiple of
/// 64 or `B * S` of 8 (where the vendor returns `false`).
#[track_caller]
pub fn get_deep_norm_max_min_tmp_size(
    src_shape: &[usize],
    type_size: usize,
    is_reuse_source: bool,
    is_basic_block: bool,
) -> (usize, usize) {
    let (b, s, h) = deep_host("GetDeepNormMaxMinTmpSize", src_shape, type_size, is_basic_block);
    get_layer_norm_max_min_tmp_size(&[b, s, h, h], type_size, is_reuse_source)
}

/// `DeepNorm`'s tiling for a source of shape `[B, S, H]` whose rows hold `originH` data
/// (`origin_src_shape = [B, S, originH]`) with a temporary buffer of `stack_buffer_size`
/// bytes (AscendC `GetDeepNormTilingInfo(srcShape, originSrcShape, stackBufferSize, typeSize,
/// isReuseSource, isBasicBlock, tiling)`): `LayerNorm`'s layout, with for `isBasicBlock` the
/// rows of a round rounded down to a multiple of 8 when there are at least 8.
///
/// ```
/// use ascend_core::prelude::*;
/// let t = get_deep_norm_tiling_info(&[4, 16, 64], &[4, 16, 64], 1280, 4, false, true);
/// assert_eq!((t.one_tmp_size, t.loop_round, t.bs_cur_length), (64, 64, 1));
/// let t = get_deep_norm_tiling_info(&[4, 16, 64], &[4, 16, 64], 9 * 1024, 4, false, true);
/// assert_eq!((t.one_tmp_size, t.loop_round, t.input_tail_size), (512, 8, 0));
/// ```
///
/// # Panics
/// As [`get_deep_norm_max_min_tmp_size`], and where the vendor returns `false`:
/// `origin_src_shape` is not `[B, S, originH]` with `0 < originH <= H` (`originH = H` for
/// `is_basic_block`), or `stack_buffer_size` is below the minimum.
#[track_caller]
pub fn get_deep_norm_tiling_info(
    src_shape: &[usize],
    origin_src_shape: &[usize],
    stack_buffer_size: usize,
    type_size: usize,
    is_reuse_source: bool,
    is_basic_block: bool,
) -> DeepNormTiling {
    const API: &str = "GetDeepNormTilingInfo";
    let (b, s, h) = deep_host(API, src_shape, type_size, is_basic_block);
    let oh = origin_src_shape.get(2).copied().unwrap_or(0);
    let same_bs = origin_src_shape.len() == 3 && origin_src_shape[..2] == src_shape[..2];
    ensure(same_bs && oh > 0 && oh <= h, API, || {
        format!("originSrcShape = {origin_src_shape:?} must be [B, S, originH] with B, S of srcShape and 0 < originH <= H = {h}")
    });
    ensure(!is_basic_block || oh == h, API, || {
        format!("isBasicBlock: originH = {oh} must be equal to H = {h}")
    });
    let (_, min) = get_layer_norm_max_min_tmp_size(&[b, s, h, h], type_size, is_reuse_source);
    ensure(stack_buffer_size >= min, API, || {
        format!(
            "stackBufferSize = {stack_buffer_size} bytes is below GetDeepNormMaxMinTmpSize's minimum {min}"
        )
    });
    let bufs = if is_reuse_source && type_size == 4 { 2 } else { 3 };
    let mv_total = if type_size == 4 { 0 } else { 2 * align_up(b * s, 8) };
    let tmp_buf = stack_buffer_size / 4;
    let mut one = ((tmp_buf - mv_total) / bufs / h * h).min(b * s * h);
    if is_basic_block && one / (BASIC_BS * h) > 0 {
        one = one / (BASIC_BS * h) * (BASIC_BS * h);
    }
    tiling_of((b, s, h, oh), bufs, mv_total, tmp_buf, one)
}

/// The vendor's `DeepNormParams<float>`: views A, B, C and the `float` means and variances.
struct Views {
    a: LocalTensor<f32>,
    b: LocalTensor<f32>,
    c: LocalTensor<f32>,
    mean: LocalTensor<f32>,
    variance: LocalTensor<f32>,
}

/// `RepeatReduceSum<float, false>(dst, src, 1, 1, 1, 1, 1, srcRepStride)` under the counter
/// mask, then `PipeBarrier<PIPE_V>`.
///
/// The vendor passes a mask argument of 1 with `isSetMask = false`, which the chip ignores (the
/// mask register set by `SetVectorMask` is used), and so does the emulator; the same holds for
/// the vendor's `Duplicate` with mask 1 in `GetDeepNormOutputPre`.
#[track_caller]
fn repeat_sum(dst: &LocalTensor<f32>, src: &LocalTensor<f32>, src_rep: u16) {
    repeat_reduce_sum::<f32, false>(dst, src, 1, 1, 1, 1, 1, src_rep);
    pipe_barrier::<PIPE_V>();
}

/// `DeepNormReduceSumImpl`: per row, the first `originH` elements summed by `RepeatReduceSum`
/// (one sum per 64) into the row's start until one is left, the last pass into `dst_mv[row]`
/// and again into `dst[row]`. A row of `originH = 1` is never summed (the vendor's `while
/// (totalNum > 1)`): `dst_mv[row]` keeps what it held.
#[track_caller]
fn reduce_sum(
    dst_mv: &LocalTensor<f32>,
    dst: &LocalTensor<f32>,
    src: &LocalTensor<f32>,
    bs: usize,
    h: usize,
    oh: usize,
) {
    for i in 0..bs {
        let mut total = oh;
        let mut s = src.view(i * h);
        let mut d = dst.view(i * h);
        while total > 1 {
            count_mask::<f32>(total);
            if total <= REPEAT_FLOATS {
                repeat_sum(&dst_mv.view(i), &s, 8);
                d = dst.view(i);
            }
            repeat_sum(&d, &s, 8);
            total = total.div_ceil(REPEAT_FLOATS);
            s = d.clone();
        }
    }
    count_mask::<f32>(bs);
}

/// `DeepNormBasicBlockReduceSum` (H = 64 n): each row's 64-element chunks added into its
/// first (`Add` over all rows at once, repeat strides `8 n`), then `RepeatReduceSum` of the
/// first chunks into `output` and `tmp`.
#[track_caller]
fn basic_reduce_sum(
    output: &LocalTensor<f32>,
    tmp: &LocalTensor<f32>,
    input: &LocalTensor<f32>,
    bs: usize,
    h: usize,
) {
    // `uint8_t num`.
    let num = (h / REPEAT_FLOATS) as u8;
    let rep = num.wrapping_mul(8);
    let p = BinaryRepeatParams::new(1, 1, 1, rep, rep, rep);
    count_mask::<f32>(bs * REPEAT_FLOATS);
    for i in 1..num as usize {
        add_masked::<f32, false>(input, &input.view(i * REPEAT_FLOATS), input, MASK_PLACEHOLDER, 1, &p);
        pipe_barrier::<PIPE_V>();
    }
    repeat_sum(output, input, u16::from(rep));
    repeat_sum(tmp, input, u16::from(rep));
    count_mask::<f32>(bs);
}

/// The basic block's broadcast of `src[row]` over the first 64 `float`s of row `row` of
/// `dst` (`bs` a multiple of 8): Ascend910B `DeepNormBasicBlockVbrcb` (`Brcb` of each value
/// to one block every 8 blocks, normal mode), Ascend310P `DeepNormBasicBlockTransdata`
/// (`TransDataTo5HD` with 16 or 8 values per repeat); then in counter mode `Adds` of 0 with
/// `src` block stride 0 (the block over the 64).
#[track_caller]
fn basic_broadcast(dst: &LocalTensor<f32>, src: &LocalTensor<f32>, bs: usize) {
    set_mask_norm();
    reset_mask();
    if get_soc() == Soc::Ascend310P {
        let base = if bs % 16 == 0 { 2 } else { 1 };
        let repeat = (bs / (BASIC_BS * base)) as u8;
        let (dst_rep, src_rep) =
            if repeat == 1 { (0, 0) } else { ((REPEAT_FLOATS * base) as u16, base as u16) };
        let p = TransDataTo5HDParams::new(false, false, repeat, dst_rep, src_rep);
        let dl: [LocalTensor<f32>; NCHW_CONV_ADDR_LIST_SIZE] = std::array::from_fn(|k| {
            let i = k / 2;
            let second = if base == 2 { BASIC_BS * REPEAT_FLOATS } else { BASIC_BS };
            dst.view(i * REPEAT_FLOATS + if k % 2 == 1 { second } else { 0 })
        });
        let sl: [LocalTensor<f32>; NCHW_CONV_ADDR_LIST_SIZE] =
            std::array::from_fn(|k| if k >= 8 && base == 2 { src.view(BASIC_BS) } else { src.clone() });
        trans_data_to_5hd(&dl, &sl, &p);
    } else {
        brcb(dst, src, (bs / BASIC_BS) as u8, &BrcbRepeatParams::new(8, 64));
    }
    pipe_barrier::<PIPE_V>();
    spread_first_block(dst, bs);
}

/// The vendor's `Adds<float, false>(dst, dst, 0, MASK_PLACEHOLDER, 1, {1, 0, 8, 8})` under a
/// counter mask of `bs * 64`: each row's first block, plus 0, over the row's 8 blocks.
///
/// This emulator rejects that call: `dst` and `src` are one tensor and, with `src`'s block
/// stride 0, a repeat writes 8 blocks while reading 1 — a partial overlap, which the vendor's
/// general address-overlap rule (通用说明和约束, 通用地址重叠约束: within one iteration the
/// source and destination must overlap 100%) does not support either. The port gets the same
/// result with two normal-mode `Adds` of `{1, 0, 8, 8}` and `bs` repeats (255 at a time): the
/// blocks 1 to 7 of each row from its block 0 (mask lanes 8 to 63; their blocks are apart
/// from the blocks read), then block 0 onto itself (lanes 0 to 7 with `{1, 1, 8, 8}`, a
/// complete overlap) — so
/// every block is block 0 `+ 0` (a `-0` becomes `+0`), as the hardware computes it. Then
/// counter mode again and `PipeBarrier<PIPE_V>`.
#[track_caller]
fn spread_first_block(dst: &LocalTensor<f32>, bs: usize) {
    let spread = UnaryRepeatParams::new(1, 0, 8, 8);
    let itself = UnaryRepeatParams::new(1, 1, 8, 8);
    for (lanes, p) in [([!0xff_u64, 0], spread), ([0xff, 0], itself)] {
        let mut r = 0;
        while r < bs {
            let n = (bs - r).min(255);
            let d = dst.view(r * REPEAT_FLOATS);
            adds_masked::<f32, true>(&d, &d, 0.0, lanes, n as u8, &p);
            r += n;
        }
    }
    set_mask_count();
    pipe_barrier::<PIPE_V>();
}

/// `IsBasicBlockTmp8HBetter`: the view is `8 H n` and there are more rows than `H / 64`.
fn tmp_8h_better(t: &DeepNormTiling) -> bool {
    let h = t.h_length as usize;
    t.one_tmp_size as usize % (h * BASIC_BS) == 0 && t.bs_cur_length as usize > h / REPEAT_FLOATS
}

/// `DeepNormBshHCalc`: `dst = src0 op src1` with `src1` one row; the basic block over all
/// rows per 64-element column (`src1` repeat stride 0), then the mask `H`.
#[track_caller]
fn bsh_h(
    dst: &LocalTensor<f32>,
    src0: &LocalTensor<f32>,
    src1: &LocalTensor<f32>,
    (bs, h): (usize, usize),
    basic: bool,
    add: bool,
) {
    if !basic {
        duplicate_rows(dst, src0, src1, bs, h, add);
        return;
    }
    // `uint16_t repStride` narrowed to the `uint8_t` repeat strides.
    let rep = (h / 8) as u8;
    let p = BinaryRepeatParams::new(1, 1, 1, rep, rep, 0);
    count_mask::<f32>(bs * REPEAT_FLOATS);
    for i in 0..h / REPEAT_FLOATS {
        let o = i * REPEAT_FLOATS;
        if add {
            add_masked::<f32, false>(&dst.view(o), &src0.view(o), &src1.view(o), MASK_PLACEHOLDER, 1, &p);
        } else {
            mul_masked::<f32, false>(&dst.view(o), &src0.view(o), &src1.view(o), MASK_PLACEHOLDER, 1, &p);
        }
    }
    pipe_barrier::<PIPE_V>();
    count_mask::<f32>(h);
}

/// One round: `DeepNormExec` (`alpha * x + gx` into view A) and `DeepNormLayerNormExec`.
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn exe<T: DeepNormElement>(
    x: &LocalTensor<T>,
    gx: &LocalTensor<T>,
    gamma: &LocalTensor<T>,
    beta: &LocalTensor<T>,
    output: &LocalTensor<T>,
    mean: &LocalTensor<f32>,
    variance: &LocalTensor<f32>,
    (alpha, epsilon): (f32, f32),
    t: &DeepNormTiling,
    v: &Views,
    basic: bool,
) {
    let (bs, bsh, h, oh) = (
        t.bs_cur_length as usize,
        t.bsh_cur_length as usize,
        t.h_length as usize,
        t.original_h_length as usize,
    );
    let half = T::DTYPE == DType::F16;
    let back = t.last_dim_value_back;
    // DeepNormExec.
    count_mask::<f32>(bsh);
    if half {
        steps::widen(&v.a, &x.reinterpret_cast::<f16>());
        steps::widen(&v.c, &gx.reinterpret_cast::<f16>());
        steps::muls(&v.a, &v.a, alpha);
        steps::add(&v.a, &v.c, &v.a);
    } else {
        steps::muls(&v.b, &x.reinterpret_cast::<f32>(), alpha);
        steps::add(&v.a, &gx.reinterpret_cast::<f32>(), &v.b);
    }
    let better = basic && tmp_8h_better(t);
    // GetDeepNormOutputMean: x / originH summed into the means and C.
    count_mask::<f32>(bsh);
    steps::muls(&v.c, &v.a, back);
    if basic {
        basic_reduce_sum(mean, &v.c, &v.c, bs, h);
    } else {
        reduce_sum(mean, &v.c, &v.c, bs, h, oh);
    }
    // GetDeepNormOutputVariance: x - mean into B, (x - mean)² / originH summed.
    let p = UnaryRepeatParams::default();
    if better {
        basic_broadcast(&v.c, mean, bs);
        let rep = ((h / REPEAT_FLOATS) as u8).wrapping_mul(8);
        let bp = BinaryRepeatParams::new(1, 1, 1, rep, rep, 8);
        count_mask::<f32>(bsh / (h / REPEAT_FLOATS));
        for i in 0..h / REPEAT_FLOATS {
            let o = i * REPEAT_FLOATS;
            sub_masked::<f32, false>(&v.b.view(o), &v.a.view(o), &v.c, MASK_PLACEHOLDER, 1, &bp);
        }
        pipe_barrier::<PIPE_V>();
        count_mask::<f32>(bsh);
    } else {
        handshake::<HardEvent::V_S>();
        count_mask::<f32>(h);
        for i in 0..bs {
            // `inputMean.GetValue(i) * (-1)`: a sign flip, exact.
            let m = -mean.get_value(i);
            adds_masked::<f32, false>(&v.b.view(i * h), &v.a.view(i * h), m, MASK_PLACEHOLDER, 1, &p);
        }
        pipe_barrier::<PIPE_V>();
        count_mask::<f32>(bsh);
    }
    steps::mul(&v.c, &v.b, &v.b);
    steps::muls(&v.a, &v.c, back);
    if basic {
        basic_reduce_sum(variance, &v.c, &v.a, bs, h);
    } else {
        reduce_sum(variance, &v.c, &v.a, bs, h, oh);
    }
    // GetDeepNormOutputPre: 1 / sqrt(variance + epsilon) times x - mean into C.
    count_mask::<f32>(bs);
    steps::adds(&v.a, &v.c, epsilon);
    duplicate_masked::<f32, false>(&v.c, 1.0, 1, 1, 1, 8);
    pipe_barrier::<PIPE_V>();
    steps::sqrt(&v.a, &v.a);
    steps::div(&v.a, &v.c, &v.a);
    if better {
        basic_broadcast(&v.c, &v.a, bs);
        let rep = ((h / REPEAT_FLOATS) as u8).wrapping_mul(8);
        let bp = BinaryRepeatParams::new(1, 1, 1, rep, 8, rep);
        count_mask::<f32>(bsh / (h / REPEAT_FLOATS));
        for i in 0..h / REPEAT_FLOATS {
            let o = i * REPEAT_FLOATS;
            mul_masked::<f32, false>(&v.a.view(o), &v.c, &v.b.view(o), MASK_PLACEHOLDER, 1, &bp);
        }
        pipe_barrier::<PIPE_V>();
        count_mask::<f32>(bsh);
        steps::adds(&v.c, &v.a, 0.0);
    } else {
        handshake::<HardEvent::V_S>();
        count_mask::<f32>(h);
        for i in 0..bs {
            let r = v.a.get_value(i);
            muls_masked::<f32, false>(&v.c.view(i * h), &v.b.view(i * h), r, MASK_PLACEHOLDER, 1, &p);
        }
        pipe_barrier::<PIPE_V>();
        count_mask::<f32>(bsh);
    }
    // GetDeepNormOutput: * gamma + beta.
    count_mask::<f32>(h);
    if half {
        steps::widen(&v.a, &gamma.reinterpret_cast::<f16>());
        bsh_h(&v.b, &v.c, &v.a, (bs, h), basic, false);
        steps::widen(&v.c, &beta.reinterpret_cast::<f16>());
        bsh_h(&v.a, &v.b, &v.c, (bs, h), basic, true);
        count_mask::<f32>(bsh);
        narrow(&output.reinterpret_cast::<f16>(), &v.a);
    } else {
        bsh_h(&v.a, &v.c, &gamma.reinterpret_cast::<f32>(), (bs, h), basic, false);
        bsh_h(&output.reinterpret_cast::<f32>(), &v.a, &beta.reinterpret_cast::<f32>(), (bs, h), basic, true);
    }
}

/// `DeepNorm`'s checks: `LayerNorm`'s (chip, positions, the tiling, sizes, overlaps), then
/// `gxLocal`'s, the vendor's `half` without `isReuseSrc`, `gamma`/`beta` 32-byte aligned and
/// at most 2040, and `isBasicBlock`'s shape.
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn check_deep_norm<T: DeepNormElement, const REUSE: bool, const BASIC: bool>(
    dst: &LocalTensor<T>,
    mean: &LocalTensor<T>,
    rstd: &LocalTensor<T>,
    src: &LocalTensor<T>,
    gx: &LocalTensor<T>,
    beta: &LocalTensor<T>,
    gamma: &LocalTensor<T>,
    tmp: &LocalTensor<u8>,
    t: &DeepNormTiling,
) {
    const API: &str = DEEP_NORM;
    check_layer_norm::<T, REUSE>(API, "GetDeepNormTilingInfo", dst, mean, rstd, src, gamma, beta, tmp, t);
    let half = T::DTYPE == DType::F16;
    ensure(!(half && REUSE), API, || "isReuseSrc = true is not supported for half; it must be false".into());
    let pos = gx.get_position();
    ensure(pos.is_ub(), API, || format!("gxLocal is at position {pos}; it must be VECIN, VECOUT or VECCALC"));
    let total = t.input_x_size as usize;
    ensure(gx.get_size() >= total, API, || {
        format!("gxLocal has {} {} elements, fewer than B * S * H = {total}", gx.get_size(), T::DTYPE)
    });
    for (name, n) in [("betaLocal", beta.get_size()), ("gammaLocal", gamma.get_size())] {
        ensure(n * T::SIZE % 32 == 0, API, || {
            format!("{name} has {} bytes; its length must be 32-byte aligned", n * T::SIZE)
        });
        ensure(n <= MAX_H, API, || {
            format!("{name} has {n} elements; the last axis can not be greater than {MAX_H}")
        });
    }
    if BASIC {
        let (h, oh, bs) = (t.h_length, t.original_h_length, u64::from(t.b_length) * u64::from(t.s_length));
        ensure(h % 64 == 0 && oh % 64 == 0 && bs % 8 == 0, API, || {
            format!(
                "isBasicBlock = true needs hLength % 64 = 0, originalHLength % 64 = 0 and (bLength * sLength) % 8 = 0; \
                 the tiling has hLength = {h}, originalHLength = {oh}, bLength * sLength = {bs}"
            )
        });
    }
    let reuse_float = REUSE && !half;
    let tw: Span =
        ("sharedTmpBuffer", tmp.get_phy_addr(), tmp.get_phy_addr() + 4 * used_floats(t, reuse_float));
    let rows = t.mean_var_size as usize;
    let g = span("gxLocal", gx, total);
    check_apart(API, &[(tw, g), (span("meanLocal", mean, rows), g), (span("rstdLocal", rstd, rows), g)]);
}

/// DeepNorm of `src_local` with the residual `gx_local` (shape `[B, S, H]` in `tiling`) into
/// `dst_local`, with each row's mean and variance into `mean_local` and `rstd_local` (`B * S`
/// elements), the shift `beta_local` and scaling `gamma_local` (`H` elements), as scratch
/// `shared_tmp_buffer` (AscendC `DeepNorm<T, isReuseSrc, isBasicBlock>(dstLocal, meanLocal,
/// rstdLocal, srcLocal, gxLocal, betaLocal, gammaLocal, sharedTmpBuffer, alpha, epsilon,
/// tiling)`): per row `x1 = alpha * x + gx`, `mean = Σ x1 / originH`, `variance = Σ (x1 -
/// mean)² / originH`, `dst = (x1 - mean) / sqrt(variance + epsilon) * gamma + beta`.
///
/// As the vendor's implementation (Ascend910B, Ascend310P), in counter mode, per round of
/// `bsCurLength` rows and then the tail, in `float` (`half` widened): `Muls` by `alpha`,
/// `Add` of `gx` into view A; `Muls` by `1 / originH`; each row's first `originH` elements
/// summed by `RepeatReduceSum` passes (one sum per 64, until one is left) into the means;
/// per row `Adds` of `-mean` read by the scalar unit; `Mul`, `Muls`, the same sums into the
/// variances; `Adds` of `epsilon`, `Sqrt`, `Div` into ones; per row `Muls` by the value read;
/// per row `Mul` by `gamma` and `Add` of `beta`; for `half` narrowed into the output; and for
/// `half` the `float` means and variances narrowed at the end. With `IS_BASIC_BLOCK` (H a
/// multiple of 64, `B * S` of 8): the rows' 64-element chunks added into the first and one
/// `RepeatReduceSum`; when the view is `8 H n` and there are more rows than `H / 64`, the
/// mean and rstd broadcast (Ascend910B `Brcb`, Ascend310P `TransDataTo5HD`, then `Adds` of 0)
/// and subtracted or multiplied per 64-element column; `gamma`/`beta` per column. Scratch and
/// `IS_REUSE_SRC` as [`layer_norm`](super::layernorm::layer_norm)'s (`float` only: view A is
/// `src_local`, overwritten). A tail round leaves its lengths in `tiling` (the vendor's
/// `DeepNormTiling&`). It leaves normal mode and a reset mask.
///
/// With `originH = 1` the vendor's sum loop never runs: the means and variances keep what
/// their tensors held and the outputs follow from them.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 7 * 64);
/// let (_, min) = get_deep_norm_max_min_tmp_size(&[1, 2, 8], 4, false, false);
/// pipe.init_tbuf(&mut tmp, min);
/// let mut tiling = get_deep_norm_tiling_info(&[1, 2, 8], &[1, 2, 8], min, 4, false, false);
/// let t = |i: usize, n: usize| q.get_with_offset::<f32>(n, i * 64);
/// let (x, gx, g, b, y, mean, var) = (t(0, 16), t(1, 16), t(2, 8), t(3, 8), t(4, 16), t(5, 2), t(6, 2));
/// x.copy_from_slice(&[1.0, 3.0, 1.0, 3.0, 1.0, 3.0, 1.0, 3.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]);
/// gx.copy_from_slice(&[0.0; 16]);
/// g.copy_from_slice(&[2.0; 8]);
/// b.copy_from_slice(&[0.5; 8]);
/// deep_norm::<_, false, false>(&y, &mean, &var, &x, &gx, &b, &g, &tmp.get::<u8>(), 2.0, 0.0, &mut tiling);
/// assert_eq!(mean.to_vec(), [4.0, 4.0]);
/// assert_eq!(var.to_vec(), [4.0, 0.0]);
/// assert_eq!(y.to_vec()[..2], [-1.5, 2.5]);
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); a tensor is not in the
/// Unified Buffer; `IS_REUSE_SRC` for `half`; the tiling is unset or inconsistent, H is not
/// 32-byte aligned; the buffer holds fewer than `tmpBufSize` `float`s; a tensor is too small,
/// `gamma`/`beta` not 32-byte aligned or longer than 2040; with `IS_BASIC_BLOCK` H or
/// `originH` not a multiple of 64 or `B * S` of 8; outputs overlap each other, `gamma`,
/// `beta` or (mean and variance) the inputs, or the used scratch overlaps any tensor; or any
/// instruction's own check fails.
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn deep_norm<T: DeepNormElement, const IS_REUSE_SRC: bool, const IS_BASIC_BLOCK: bool>(
    dst_local: &LocalTensor<T>,
    mean_local: &LocalTensor<T>,
    rstd_local: &LocalTensor<T>,
    src_local: &LocalTensor<T>,
    gx_local: &LocalTensor<T>,
    beta_local: &LocalTensor<T>,
    gamma_local: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    alpha: T,
    epsilon: T,
    tiling: &mut DeepNormTiling,
) {
    check_deep_norm::<T, IS_REUSE_SRC, IS_BASIC_BLOCK>(
        dst_local,
        mean_local,
        rstd_local,
        src_local,
        gx_local,
        beta_local,
        gamma_local,
        shared_tmp_buffer,
        tiling,
    );
    let half = T::DTYPE == DType::F16;
    let stack = shared_tmp_buffer.reinterpret_cast::<f32>();
    let t0 = *tiling;
    let at = |p: u32| stack.view(p as usize);
    let (mean, variance) = if half {
        (at(t0.mean_tmp_tensor_pos), at(t0.variance_tmp_tensor_pos))
    } else {
        (mean_local.reinterpret_cast::<f32>(), rstd_local.reinterpret_cast::<f32>())
    };
    let v = if !half && IS_REUSE_SRC {
        Views {
            a: src_local.reinterpret_cast::<f32>(),
            b: at(t0.first_tmp_start_pos),
            c: at(t0.second_tmp_start_pos),
            mean,
            variance,
        }
    } else {
        Views {
            a: at(t0.first_tmp_start_pos),
            b: at(t0.second_tmp_start_pos),
            c: at(t0.third_tmp_start_pos),
            mean,
            variance,
        }
    };
    let scalars = (alpha.to_f64() as f32, epsilon.to_f64() as f32);
    set_mask_count();
    let round = |off: usize, mv: usize, t: &DeepNormTiling| {
        exe(
            &src_local.view(off),
            &gx_local.view(off),
            gamma_local,
            beta_local,
            &dst_local.view(off),
            &v.mean.view(mv),
            &v.variance.view(mv),
            scalars,
            t,
            &v,
            IS_BASIC_BLOCK,
        );
    };
    let (mut off, mut mv) = (0, 0);
    for _ in 0..t0.loop_round {
        round(off, mv, tiling);
        off += t0.input_round_size as usize;
        mv += t0.mean_var_round_size as usize;
    }
    if t0.input_tail_size > 0 {
        tiling.bsh_cur_length = t0.input_tail_size;
        tiling.bs_cur_length = t0.mean_var_tail_size;
        round(t0.input_tail_pos as usize, t0.mean_var_tail_pos as usize, tiling);
    }
    if half {
        count_mask::<f32>(t0.mean_var_size as usize);
        narrow(&mean_local.reinterpret_cast::<f16>(), &v.mean);
        narrow(&rstd_local.reinterpret_cast::<f16>(), &v.variance);
    }
    set_mask_norm();
    reset_mask();
}

/// [`deep_norm`] with the stack buffer as scratch (AscendC `DeepNorm<T, isReuseSrc,
/// isBasicBlock>(dstLocal, meanLocal, rstdLocal, srcLocal, gxLocal, betaLocal, gammaLocal,
/// alpha, epsilon, tiling)`); the tiling's `tmpBufSize` must fit in it.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 7 * 64);
/// let stack = pop_stack_buffer::<u8>().get_size();
/// let mut tiling = get_deep_norm_tiling_info(&[1, 1, 16], &[1, 1, 16], stack, 2, false, false);
/// let t = |i: usize| q.get_with_offset::<f16>(16, i * 64);
/// let (x, gx, g, b, y, mean, var) = (t(0), t(1), t(2), t(3), t(4), t(5), t(6));
/// x.copy_from_slice(&[f16::from_f32(1.0); 16]);
/// gx.copy_from_slice(&[f16::from_f32(2.0); 16]);
/// g.copy_from_slice(&[f16::from_f32(1.0); 16]);
/// b.copy_from_slice(&[f16::from_f32(3.0); 16]);
/// deep_norm_stack::<_, false, false>(&y, &mean, &var, &x, &gx, &b, &g, f16::from_f32(2.0), f16::from_f32(1.0), &mut tiling);
/// assert_eq!((mean.get_value(0), var.get_value(0)), (f16::from_f32(4.0), f16::ZERO));
/// assert_eq!(y.get_value(15), f16::from_f32(3.0));
/// ```
///
/// # Panics
/// As [`deep_norm`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn deep_norm_stack<T: DeepNormElement, const IS_REUSE_SRC: bool, const IS_BASIC_BLOCK: bool>(
    dst_local: &LocalTensor<T>,
    mean_local: &LocalTensor<T>,
    rstd_local: &LocalTensor<T>,
    src_local: &LocalTensor<T>,
    gx_local: &LocalTensor<T>,
    beta_local: &LocalTensor<T>,
    gamma_local: &LocalTensor<T>,
    alpha: T,
    epsilon: T,
    tiling: &mut DeepNormTiling,
) {
    let stack = stack_tensor(DEEP_NORM);
    deep_norm::<T, IS_REUSE_SRC, IS_BASIC_BLOCK>(
        dst_local,
        mean_local,
        rstd_local,
        src_local,
        gx_local,
        beta_local,
        gamma_local,
        &stack,
        alpha,
        epsilon,
        tiling,
    );
}
