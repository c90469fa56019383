//! `SoftmaxFlashV2` of the advanced API (the vendor's `adv_api/activation/softmaxflashv2.h`),
//! ND format, default `SoftmaxConfig`, written as the vendor's `membase` implementation writes
//! it for Ascend910B (`__NPU_ARCH__` 2201, `membase/v220` with `membase/common`'s
//! `softmax_flashv2_impl`), on top of [`SoftMax`](crate::adv::softmax)'s building blocks (its
//! `NewReduceMaxLastNDImpl`/`NewReduceSumLastNDImpl`, `GenericSubNDImpl` and round loop), with
//! the host helpers `GetSoftMaxFlashV2MaxTmpSize`, `GetSoftMaxFlashV2MinTmpSize` and
//! `SoftMaxFlashV2TilingFunc`.
//!
//! Per round of `splitM` rows (`rangeM` rounds and a tail of `tailM` rows, as `SoftMax`):
//! - `isUpdate = false` (`SoftmaxFlashV2NoUpdateImpl`): `max = rowmax(x)`, `dst = exp(x - max)`,
//!   `expSum = rowsum(dst)`;
//! - `isUpdate = true` (`SoftmaxFlashV2UpdateImpl`): `max = max(inMax, rowmax(x))`,
//!   `expMax = exp(inMax - max)`, `dst = exp(x - max)`, `expSum = expMax * inExpSum +
//!   rowsum(dst)`.
//!
//! Everything is computed in `float`; a `half` source is widened first and `dst` narrowed with
//! `CAST_ROUND` (the v220 `FLOAT2HALF_ROUND_MODE`). The statistics get one 32-byte block of
//! `T2` per row (`tiling.reduce_k` elements); `expMaxTensor` is of `T1`, one 32-byte block of
//! `T1` per row — for `half` with `float` statistics the vendor broadcasts the 8 floats of each
//! row to 16 (`BroadCastLastImpl`) before narrowing them. The steps of each type pair are the
//! vendor's own: `half`/`half` and `float`/`float` update in counter mode with
//! `MASK_PLACEHOLDER` repeats, `half`/`float` with the counted instructions; the v220 branches'
//! `DataCopy` (Unified Buffer to Unified Buffer) copies the maxima.
//!
//! **Tiling.** `softmaxShapeInfo`'s `src_m`/`src_k` other than the tiling's make the kernel
//! recompute it from the temporary buffer's size (the vendor's `SoftMaxFlashV2TilingFuncImpl`,
//! `isCheckTiling` of the default configuration): `splitM = work / (2 * 32 / sizeof(T2) + k +
//! 64)` floats for `half`, `work / (32 / sizeof(T2) + 64)` for `float`, rounded down to a
//! multiple of 8 when above 8 and below `m`, over all `src_m` rows (not `ori_src_m`). The
//! reductions run over `ori_src_k` columns; the padding columns up to `src_k` are subtracted
//! and exponentiated with the rest. The host helpers take `isUpdate` without using it (as the
//! vendor's).
//!
//! **The tail round of `half` with `float` statistics** broadcasts `tiling.reduceM` rows of
//! `exp(inMax - max)` (the full round's count, as the vendor's code), of which only the tail's
//! rows are narrowed into `expMaxTensor`.
//!
//! **Basic block** (`isBasicBlock = true`, `float` only): the vendor's
//! `SoftmaxFlashV2NoUpdateBasicBlock` / `SoftmaxFlashV2BasicBlockImpl` for `float`, normal-mode
//! repeats of 64 floats over whole rounds (`tailM` rows are not computed, as the vendor's), the
//! row reductions of `BasicBlockReduceMaxImpl`/`BasicBlockReduceSumImpl` (`k = 512`: block
//! reductions only, `[m,512] -> [m,64] -> [m,8] -> [m,1]`; `k = 1024`: `[8,1024] -> [8,128] ->
//! [8,16]`, the two halves combined, `-> [8,1]`; `k = 64`: one `BlockReduce`; `k > 512`:
//! `BigBlockReduce`; else `BasicBlockMaxImpl`'s groups), the row values spread by `Brcb`. As on
//! the chip, the no-update path overwrites `srcTensor` with `x - max` and the update path
//! overwrites `inExpSumTensor` with `expMax * inExpSum`. It needs `srcK` a multiple of 64 below
//! 2048, `srcM` and the tiling's `splitM` multiples of 8; a recomputed tiling is `SoftMax`'s
//! (`CalculateNDSplitM` with the basic block). The vendor's `k = 1024` step `Max/Add(tmp, tmp,
//! tmp[8], …)` with block strides 1 and 2 on one address (a partial overlap within one repeat,
//! outside the vendor's general overlap rule) is issued into free scratch instead, with the same
//! result (see `bb_reduce`).
//!
//! Not modelled: the `half` basic block (a call panics), the NZ format, non-default
//! `SoftmaxConfig`s (the `outReduceMax` overloads, `SOFTMAX_OUTPUT_WITHOUT_BRC`). A
//! `SoftMaxShapeInfo` with `src_m` or `src_k` 0 is an error: these tensors carry no `ShapeInfo`.
//!
//! Chips: Ascend910B only; Ascend310P's `membase/v200` implementation is not modelled, and the
//! calls fail with a message naming the chip.

use crate::element::{f16, DType, Element};
use crate::kernel::error::ensure;
use crate::memory::copy::data_copy;
use crate::memory::tensor::LocalTensor;
use crate::sync::{event::PIPE_V, flags::pipe_barrier};
use crate::vector::binary::{add, add_masked, max, max_masked, mul, mul_masked, sub, sub_masked};
use crate::vector::cast::{cast, cast_masked, RoundMode};
use crate::vector::mask::{reset_mask, set_mask_count, set_mask_norm, set_vector_mask, MASK_PLACEHOLDER};
use crate::vector::unary::{exp, exp_masked};

use super::softmax::{
    basic_block_op, big_block, bin, block_reduce, device_tiling as device_tiling_nd, generic_nd, host_shape,
    op, reduce_last_nd, rounds, work_needed, Kind, Round, SoftMaxElement, SoftMaxShapeInfo,
    SoftMaxStatElement, SoftMaxTiling, F,
};
use super::softmax::{check_910b, check_shape, check_ub, rows_tiling};
use super::softmax_more::{broadcast_last, check_len};
use super::{check_apart, host_checks, span, stack_tensor, whole, NARROW, SAME, WIDEN};
use crate::vector::brcb::{brcb, BrcbRepeatParams};
use crate::vector::copy::{copy_masked, CopyRepeatParams};

const API: &str = "SoftmaxFlashV2";
/// `FLOAT_REPEAT_SIZE`.
const FLOAT_REPEAT: u32 = 64;
/// `SOFTMAX_BASIC_TILE_NUM`.
const BASIC_TILE: u32 = 8;
/// `SOFTMAX_BASICBLOCK_MIN_SIZE`.
const BASICBLOCK_MIN: u32 = 256;
/// `SOFTMAX_SPECIAL_BASICBLOCK_LEN`: `k = 1024` takes 128 floats of reduction scratch per row.
const SPECIAL_BASICBLOCK_LEN: u32 = BASICBLOCK_MIN * 4;

// ---- host tiling ---------------------------------------------------------------------------

/// The host helpers' checks (both type sizes) and `[m, k]` of `src_shape`.
#[track_caller]
fn flash_shape(
    api: &'static str,
    src_shape: &[u32],
    data_type_size1: u32,
    data_type_size2: u32,
) -> (u32, u32) {
    let (m, k) = host_shape(api, src_shape, data_type_size1);
    host_checks(api, (m * k) as usize, data_type_size2 as usize);
    (m, k)
}

/// Floats per row of the temporary buffer (the vendor's non-basic-block and basic-block
/// divisors of `GetSoftMaxFlashV2Max/MinTmpSize` and `SoftMaxFlashV2TilingFunc`).
fn per_row(basic: bool, half: bool, per_blk: u32, k: u32) -> u32 {
    let scratch = if basic && k == SPECIAL_BASICBLOCK_LEN { FLOAT_REPEAT * 2 } else { FLOAT_REPEAT };
    match (basic, half) {
        (true, true) => per_blk + k + scratch,
        (true, false) => per_blk + scratch,
        (false, true) => per_blk * 2 + k + FLOAT_REPEAT,
        (false, false) => per_blk + FLOAT_REPEAT,
    }
}

/// Bytes of temporary buffer with which [`softmax_flash_v2`] computes all rows of `src_shape`
/// in one round (AscendC `GetSoftMaxFlashV2MaxTmpSize(srcShape, dataTypeSize1, dataTypeSize2,
/// isUpdate, isBasicBlock, isFlashOutputBrc)` for Ascend910B): `m * (2 * 32 / dataTypeSize2 + k
/// + 64)` floats for `half` sources, `m * (32 / dataTypeSize2 + 64)` for `float`; with
/// `is_basic_block` and a basic-block shape (`k` a multiple of 64, `m` of 8) `m` halved while `m
/// * k >= 16384` and `m * (32 / dataTypeSize2 [+ k] + 64)` (128 for `k = 1024`). `is_update`
/// and `is_flash_output_brc` do not change it.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_soft_max_flash_v2_max_tmp_size(&[16, 64], 4, 4, true, false, false), 16 * (8 + 64) * 4);
/// assert_eq!(get_soft_max_flash_v2_max_tmp_size(&[4, 32], 2, 2, false, false, false), 4 * (32 + 32 + 64) * 4);
/// ```
///
/// # Panics
/// Panics if the shape has no elements, its last axis is not 32-byte aligned for
/// `data_type_size1`, or a type size is not 2 or 4.
#[track_caller]
pub fn get_soft_max_flash_v2_max_tmp_size(
    src_shape: &[u32],
    data_type_size1: u32,
    data_type_size2: u32,
    is_update: bool,
    is_basic_block: bool,
    is_flash_output_brc: bool,
) -> u32 {
    let _ = (is_update, is_flash_output_brc);
    let (mut m, k) = flash_shape("GetSoftMaxFlashV2MaxTmpSize", src_shape, data_type_size1, data_type_size2);
    let basic = is_basic_block && k % FLOAT_REPEAT == 0 && m % BASIC_TILE == 0;
    if basic {
        while m * k >= FLOAT_REPEAT * BASICBLOCK_MIN {
            m /= 2;
        }
    }
    m * per_row(basic, data_type_size1 == 2, 32 / data_type_size2, k) * 4
}

/// The fewest bytes of temporary buffer [`softmax_flash_v2`] works with (AscendC
/// `GetSoftMaxFlashV2MinTmpSize(srcShape, dataTypeSize1, dataTypeSize2, isUpdate, isBasicBlock,
/// isFlashOutputBrc)` for Ascend910B): one row of [`get_soft_max_flash_v2_max_tmp_size`]'s
/// floats (8 rows with `is_basic_block` and `k` a multiple of 64), times `min(32 /
/// dataTypeSize1, m)` with `is_flash_output_brc` (divided by 8 first for the basic block).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_soft_max_flash_v2_min_tmp_size(&[16, 64], 4, 4, true, false, false), (8 + 64) * 4);
/// assert_eq!(get_soft_max_flash_v2_min_tmp_size(&[16, 64], 4, 4, true, true, false), 8 * (8 + 64) * 4);
/// ```
///
/// # Panics
/// As [`get_soft_max_flash_v2_max_tmp_size`].
#[track_caller]
pub fn get_soft_max_flash_v2_min_tmp_size(
    src_shape: &[u32],
    data_type_size1: u32,
    data_type_size2: u32,
    is_update: bool,
    is_basic_block: bool,
    is_flash_output_brc: bool,
) -> u32 {
    let _ = is_update;
    let (m, k) = flash_shape("GetSoftMaxFlashV2MinTmpSize", src_shape, data_type_size1, data_type_size2);
    let basic = is_basic_block && k % FLOAT_REPEAT == 0;
    let row = per_row(basic, data_type_size1 == 2, 32 / data_type_size2, k);
    let mut need = if basic { BASIC_TILE * row } else { row };
    if is_flash_output_brc {
        let rows = (32 / data_type_size1).min(m);
        need = if basic { need / BASIC_TILE * rows } else { need * rows };
    }
    need * 4
}

/// The tiling of [`softmax_flash_v2`] for `src_shape` with a temporary buffer of
/// `local_work_space_size` bytes (AscendC `SoftMaxFlashV2TilingFunc(srcShape, dataTypeSize1,
/// dataTypeSize2, localWorkSpaceSize, softmaxFlashTiling, isUpdate, isBasicBlock,
/// isFlashOutputBrc)`, which fills its fifth argument).
///
/// `split_m` is `min(workspace / 4 / perRow, m)` with the rows' floats of
/// [`get_soft_max_flash_v2_max_tmp_size`], adjusted for a basic-block shape as `SoftMax`'s
/// (the largest multiple of 8 dividing `m`, halved while `split_m * k >= 16384`), then rounded
/// down to a multiple of 8 (16 for `half` with `is_flash_output_brc`) when above it and below
/// `m`. `reduce_k` is one 32-byte block of `dataTypeSize2`. `is_update` is not used.
///
/// ```
/// use ascend_core::prelude::*;
/// let t = soft_max_flash_v2_tiling_func(&[20, 64], 4, 4, 12 * (8 + 64) * 4, true, false, false);
/// assert_eq!((t.split_m, t.range_m, t.tail_m, t.reduce_k), (8, 2, 4, 8));
/// ```
///
/// # Panics
/// As [`get_soft_max_flash_v2_max_tmp_size`]; if `local_work_space_size` is 0; and with
/// `is_flash_output_brc`, if there is more than one round and `split_m` is not a multiple of
/// `32 / dataTypeSize1`.
#[allow(clippy::too_many_arguments)]
#[track_caller]
pub fn soft_max_flash_v2_tiling_func(
    src_shape: &[u32],
    data_type_size1: u32,
    data_type_size2: u32,
    local_work_space_size: u32,
    is_update: bool,
    is_basic_block: bool,
    is_flash_output_brc: bool,
) -> SoftMaxTiling {
    let _ = is_update;
    let api = "SoftMaxFlashV2TilingFunc";
    let (m, k) = flash_shape(api, src_shape, data_type_size1, data_type_size2);
    ensure(local_work_space_size > 0, api, || "localWorkSpaceSize is 0; it must be greater than 0".into());
    let per_blk = 32 / data_type_size2;
    let work = local_work_space_size / 4;
    let half = data_type_size1 == 2;
    let mut base_m;
    if is_basic_block && k % FLOAT_REPEAT == 0 && m % BASIC_TILE == 0 {
        base_m = (work / per_row(true, half, per_blk, k)).min(m);
        // AdjustToBasicBlockBaseM.
        if base_m > BASIC_TILE {
            base_m = base_m / BASIC_TILE * BASIC_TILE;
            while m % base_m != 0 {
                base_m -= BASIC_TILE;
            }
            while base_m * k >= FLOAT_REPEAT * BASICBLOCK_MIN {
                base_m /= 2;
            }
        }
    } else {
        base_m = work / per_row(false, half, per_blk, k);
    }
    let tile = if is_flash_output_brc && half { 16 } else { BASIC_TILE };
    base_m = base_m.min(m);
    if base_m < m && base_m > tile {
        base_m = base_m / tile * tile;
    }
    let tiling = rows_tiling(m, k, per_blk, base_m);
    if is_flash_output_brc && (tiling.range_m > 1 || tiling.tail_m != 0) {
        let unit = 32 / data_type_size1;
        ensure(tiling.reduce_m % unit == 0, api, || {
            format!(
                "with isFlashOutputBrc, reduceM = {} must be a multiple of {unit} for dataTypeSize1 = \
                 {data_type_size1}; adjust localWorkSpaceSize",
                tiling.reduce_m
            )
        });
    }
    tiling
}

// ---- the rounds ------------------------------------------------------------------------------

/// `SoftmaxFlashV2NoUpdateImpl` for `float`/`float`: the results straight into `max`/`sum`, the
/// work buffer the reductions' scratch.
#[track_caller]
fn no_update_float(dst: &F, sum: &F, max: &F, src: &F, work: &F, tiling: &SoftMaxTiling, r: &Round) {
    let (src_k, reduce_k) = (tiling.src_k as usize, tiling.reduce_k as usize);
    let (d, s) = (dst.view(r.offset1), src.view(r.offset1));
    let (mx, sm) = (max.view(r.offset2), sum.view(r.offset2));
    reduce_last_nd(Kind::Max, &mx, &s, work, &r.rp);
    pipe_barrier::<PIPE_V>();
    generic_nd(false, &d, &s, &mx, r.rp.original_src_m, src_k, reduce_k);
    pipe_barrier::<PIPE_V>();
    exp(&d, &d, r.split_size);
    pipe_barrier::<PIPE_V>();
    reduce_last_nd(Kind::Sum, &sm, &d, work, &r.rp);
}

/// `SoftmaxFlashV2NoUpdateImpl` for `half`/`half`: the round widened into the buffer, the row
/// results in `float` narrowed into `max`/`sum`.
#[track_caller]
fn no_update_half_half(
    dst: &LocalTensor<f16>,
    sum: &LocalTensor<f16>,
    max: &LocalTensor<f16>,
    src: &LocalTensor<f16>,
    work: &F,
    tiling: &SoftMaxTiling,
    r: &Round,
) {
    let (ss, rs) = (tiling.split_size as usize, tiling.reduce_size as usize);
    let (tmp0, reduce, tmp2) = (work.view(0), work.view(ss), work.view(ss + rs));
    let (src_k, reduce_k) = (tiling.src_k as usize, tiling.reduce_k as usize);
    cast(&tmp0, &src.view(r.offset1), RoundMode::CastNone, r.split_size);
    pipe_barrier::<PIPE_V>();
    reduce_last_nd(Kind::Max, &reduce, &tmp0, &tmp2, &r.rp);
    pipe_barrier::<PIPE_V>();
    generic_nd(false, &tmp0, &tmp0, &reduce, r.rp.original_src_m, src_k, reduce_k);
    pipe_barrier::<PIPE_V>();
    cast(&max.view(r.offset2), &reduce, RoundMode::CastRound, r.reduce_size);
    exp(&tmp0, &tmp0, r.split_size);
    pipe_barrier::<PIPE_V>();
    cast(&dst.view(r.offset1), &tmp0, RoundMode::CastRound, r.split_size);
    pipe_barrier::<PIPE_V>();
    reduce_last_nd(Kind::Sum, &reduce, &tmp0, &tmp2, &r.rp);
    pipe_barrier::<PIPE_V>();
    cast(&sum.view(r.offset2), &reduce, RoundMode::CastRound, r.reduce_size);
}

/// `SoftmaxFlashV2NoUpdateImpl` for `half` with `float` statistics: the round widened into the
/// buffer, the row results straight into `max`/`sum`.
#[track_caller]
fn no_update_half_float(
    dst: &LocalTensor<f16>,
    sum: &F,
    max: &F,
    src: &LocalTensor<f16>,
    work: &F,
    tiling: &SoftMaxTiling,
    r: &Round,
) {
    let (tmp0, tmp1) = (work.view(0), work.view(tiling.split_size as usize));
    let (src_k, reduce_k) = (tiling.src_k as usize, tiling.reduce_k as usize);
    let (mx, sm) = (max.view(r.offset2), sum.view(r.offset2));
    cast(&tmp0, &src.view(r.offset1), RoundMode::CastNone, r.split_size);
    pipe_barrier::<PIPE_V>();
    reduce_last_nd(Kind::Max, &mx, &tmp0, &tmp1, &r.rp);
    pipe_barrier::<PIPE_V>();
    generic_nd(false, &tmp0, &tmp0, &mx, r.rp.original_src_m, src_k, reduce_k);
    pipe_barrier::<PIPE_V>();
    exp(&tmp0, &tmp0, r.split_size);
    pipe_barrier::<PIPE_V>();
    cast(&dst.view(r.offset1), &tmp0, RoundMode::CastRound, r.split_size);
    pipe_barrier::<PIPE_V>();
    reduce_last_nd(Kind::Sum, &sm, &tmp0, &tmp1, &r.rp);
}

/// The statistics' tensors of one call: outputs `sum`/`max`/`exp_max`, inputs
/// `in_sum`/`in_max`.
struct Stats<'a, T1: Element, T2: Element> {
    sum: &'a LocalTensor<T2>,
    max: &'a LocalTensor<T2>,
    exp_max: &'a LocalTensor<T1>,
    in_sum: &'a LocalTensor<T2>,
    in_max: &'a LocalTensor<T2>,
}

/// `SoftmaxFlashV2UpdateImpl` for `float`/`float`.
#[track_caller]
fn update_float(dst: &F, src: &F, st: &Stats<f32, f32>, work: &F, tiling: &SoftMaxTiling, r: &Round) {
    let (tmp0, tmp1) = (work.view(0), work.view(tiling.reduce_size as usize));
    let (src_k, reduce_k) = (tiling.src_k as usize, tiling.reduce_k as usize);
    let (d, s) = (dst.view(r.offset1), src.view(r.offset1));
    let (mx, sm, em) = (st.max.view(r.offset2), st.sum.view(r.offset2), st.exp_max.view(r.offset2));
    let (imx, ism) = (st.in_max.view(r.offset2), st.in_sum.view(r.offset2));
    let p = bin(1, 1, 1, 8, 8, 8);
    reduce_last_nd(Kind::Max, &tmp0, &s, &tmp1, &r.rp);
    pipe_barrier::<PIPE_V>();
    set_mask_count();
    set_vector_mask::<f32>(r.reduce_size as u64);
    max_masked::<f32, false>(&tmp0, &imx, &tmp0, MASK_PLACEHOLDER, 1, &p);
    pipe_barrier::<PIPE_V>();
    sub_masked::<f32, false>(&tmp1, &imx, &tmp0, MASK_PLACEHOLDER, 1, &p);
    pipe_barrier::<PIPE_V>();
    exp_masked::<f32, false>(&em, &tmp1, MASK_PLACEHOLDER, 1, &SAME);
    set_mask_norm();
    reset_mask();
    generic_nd(false, &d, &s, &tmp0, r.rp.original_src_m, src_k, reduce_k);
    pipe_barrier::<PIPE_V>();
    exp(&d, &d, r.split_size);
    // The v220 branch (`__NPU_ARCH__ == 2201`): `DataCopy`; v200 takes `Adds(…, 0)`.
    data_copy(&mx, &tmp0, r.reduce_size);
    pipe_barrier::<PIPE_V>();
    reduce_last_nd(Kind::Sum, &tmp0, &d, &tmp1, &r.rp);
    set_mask_count();
    set_vector_mask::<f32>(r.reduce_size as u64);
    mul_masked::<f32, false>(&sm, &em, &ism, MASK_PLACEHOLDER, 1, &p);
    pipe_barrier::<PIPE_V>();
    add_masked::<f32, false>(&sm, &sm, &tmp0, MASK_PLACEHOLDER, 1, &p);
    set_mask_norm();
    reset_mask();
}

/// `SoftmaxFlashV2UpdateImpl` for `half`/`half`: the round and the input statistics widened
/// into the buffer, every output narrowed with `CAST_ROUND`.
#[track_caller]
fn update_half_half(
    dst: &LocalTensor<f16>,
    src: &LocalTensor<f16>,
    st: &Stats<f16, f16>,
    work: &F,
    tiling: &SoftMaxTiling,
    r: &Round,
) {
    let (ss, rs) = (tiling.split_size as usize, tiling.reduce_size as usize);
    let scratch = tiling.split_m as usize * FLOAT_REPEAT as usize;
    let (tmp0, tmp1, tmp2, tmp3) =
        (work.view(0), work.view(ss), work.view(ss + rs), work.view(ss + rs + scratch));
    let (src_k, reduce_k) = (tiling.src_k as usize, tiling.reduce_k as usize);
    let o2 = r.offset2;
    let p = bin(1, 1, 1, 8, 8, 8);
    cast(&tmp1, &st.in_max.view(o2), RoundMode::CastNone, r.reduce_size);
    cast(&tmp0, &src.view(r.offset1), RoundMode::CastNone, r.split_size);
    pipe_barrier::<PIPE_V>();
    reduce_last_nd(Kind::Max, &tmp3, &tmp0, &tmp2, &r.rp);
    pipe_barrier::<PIPE_V>();
    set_mask_count();
    set_vector_mask::<f32>(r.reduce_size as u64);
    max_masked::<f32, false>(&tmp3, &tmp1, &tmp3, MASK_PLACEHOLDER, 1, &p);
    pipe_barrier::<PIPE_V>();
    sub_masked::<f32, false>(&tmp1, &tmp1, &tmp3, MASK_PLACEHOLDER, 1, &p);
    cast_masked::<f16, f32, false>(
        &st.max.view(o2),
        &tmp3,
        RoundMode::CastRound,
        MASK_PLACEHOLDER,
        1,
        &NARROW,
    );
    set_mask_norm();
    reset_mask();
    generic_nd(false, &tmp0, &tmp0, &tmp3, r.rp.original_src_m, src_k, reduce_k);
    pipe_barrier::<PIPE_V>();
    set_mask_count();
    set_vector_mask::<f32>(r.split_size as u64);
    exp_masked::<f32, false>(&tmp0, &tmp0, MASK_PLACEHOLDER, 1, &SAME);
    pipe_barrier::<PIPE_V>();
    cast_masked::<f16, f32, false>(
        &dst.view(r.offset1),
        &tmp0,
        RoundMode::CastRound,
        MASK_PLACEHOLDER,
        1,
        &NARROW,
    );
    set_mask_norm();
    reset_mask();
    reduce_last_nd(Kind::Sum, &tmp3, &tmp0, &tmp2, &r.rp);
    set_mask_count();
    set_vector_mask::<f32>(r.reduce_size as u64);
    exp_masked::<f32, false>(&tmp1, &tmp1, MASK_PLACEHOLDER, 1, &SAME);
    pipe_barrier::<PIPE_V>();
    cast_masked::<f16, f32, false>(
        &st.exp_max.view(o2),
        &tmp1,
        RoundMode::CastRound,
        MASK_PLACEHOLDER,
        1,
        &NARROW,
    );
    cast_masked::<f32, f16, false>(
        &tmp2,
        &st.in_sum.view(o2),
        RoundMode::CastNone,
        MASK_PLACEHOLDER,
        1,
        &WIDEN,
    );
    pipe_barrier::<PIPE_V>();
    mul_masked::<f32, false>(&tmp1, &tmp1, &tmp2, MASK_PLACEHOLDER, 1, &p);
    pipe_barrier::<PIPE_V>();
    add_masked::<f32, false>(&tmp2, &tmp1, &tmp3, MASK_PLACEHOLDER, 1, &p);
    pipe_barrier::<PIPE_V>();
    cast_masked::<f16, f32, false>(
        &st.sum.view(o2),
        &tmp2,
        RoundMode::CastRound,
        MASK_PLACEHOLDER,
        1,
        &NARROW,
    );
    set_mask_norm();
    reset_mask();
}

/// `SoftmaxFlashV2UpdateImpl` for `half` with `float` statistics: the counted instructions,
/// `exp(inMax - max)` broadcast from 8 to 16 per row before its narrowing into `expMaxTensor`.
#[track_caller]
fn update_half_float(
    dst: &LocalTensor<f16>,
    src: &LocalTensor<f16>,
    st: &Stats<f16, f32>,
    work: &F,
    tiling: &SoftMaxTiling,
    r: &Round,
) {
    let (ss, rs) = (tiling.split_size as usize, tiling.reduce_size as usize);
    let scratch = tiling.split_m as usize * FLOAT_REPEAT as usize;
    let (tmp0, tmp1, tmp2, tmp3) =
        (work.view(0), work.view(ss), work.view(ss + rs), work.view(ss + rs + scratch));
    let (src_k, reduce_k) = (tiling.src_k as usize, tiling.reduce_k as usize);
    let (o2, n) = (r.offset2, r.reduce_size);
    let (mx, imx) = (st.max.view(o2), st.in_max.view(o2));
    // The v220 branch (`__NPU_ARCH__ == 2201`): `DataCopy`; v200 takes `Adds(…, 0)`.
    data_copy(&tmp1, &imx, n);
    cast(&tmp0, &src.view(r.offset1), RoundMode::CastNone, r.split_size);
    pipe_barrier::<PIPE_V>();
    reduce_last_nd(Kind::Max, &tmp3, &tmp0, &tmp2, &r.rp);
    pipe_barrier::<PIPE_V>();
    max(&mx, &imx, &tmp3, n);
    pipe_barrier::<PIPE_V>();
    generic_nd(false, &tmp0, &tmp0, &mx, r.rp.original_src_m, src_k, reduce_k);
    pipe_barrier::<PIPE_V>();
    exp(&tmp0, &tmp0, r.split_size);
    pipe_barrier::<PIPE_V>();
    cast(&dst.view(r.offset1), &tmp0, RoundMode::CastRound, r.split_size);
    reduce_last_nd(Kind::Sum, &tmp3, &tmp0, &tmp2, &r.rp);
    sub(&tmp1, &tmp1, &mx, n);
    pipe_barrier::<PIPE_V>();
    exp(&tmp1, &tmp1, n);
    pipe_barrier::<PIPE_V>();
    broadcast_last(&tmp0, &tmp1, 16, tiling.reduce_m as usize, reduce_k);
    pipe_barrier::<PIPE_V>();
    cast(&st.exp_max.view(o2 * 2), &tmp0, RoundMode::CastRound, n * 2);
    mul(&tmp1, &tmp1, &st.in_sum.view(o2), n);
    pipe_barrier::<PIPE_V>();
    add(&st.sum.view(o2), &tmp1, &tmp3, n);
}

// ---- the basic block (float) -----------------------------------------------------------------

/// `BasicBlockReduceMaxImpl` / `BasicBlockReduceSumImpl` (`softmax_flashv2_block_reduce_impl.h`):
/// each row of `split_k` into one value per row, compact, in `dst` (scratch `tmp`, 64 floats a
/// row): `k = 512` and `k = 1024` by block reductions only (`SpecialBasicBlockMaxImpl`), `k =
/// 64` one `BlockReduce`, `k > 512` `BigBlockReduce`, else `BasicBlockMaxImpl`; then two
/// `BlockReduce`s.
#[track_caller]
fn bb_reduce(kind: Kind, dst: &F, src: &F, tmp: &F, split_m: usize, split_k: usize) {
    let split_block = split_k / FLOAT_REPEAT as usize;
    let ceil_m = split_m.div_ceil(8) as u8;
    if split_k == 512 {
        // [m, 512] -> [m, 64] -> [m, 8] -> [m, 1]; the vendor's repeat `splitM * 8` is a uint8_t.
        block_reduce(kind, tmp, src, (split_m * 8) as u8, 1, 1, 8);
        pipe_barrier::<PIPE_V>();
        block_reduce(kind, tmp, tmp, split_m as u8, 1, 1, 8);
        pipe_barrier::<PIPE_V>();
        block_reduce(kind, dst, tmp, ceil_m, 1, 1, 8);
        return;
    }
    if split_k == SPECIAL_BASICBLOCK_LEN as usize {
        // [8, 1024] -> [8, 128] -> [8, 16] -> [8, 8] -> [8, 1] (the vendor's fixed repeats).
        block_reduce(kind, tmp, src, 128, 1, 1, 8);
        pipe_barrier::<PIPE_V>();
        block_reduce(kind, tmp, tmp, 16, 1, 1, 8);
        pipe_barrier::<PIPE_V>();
        // The vendor calls `Max/Add<float, false>(tmp, tmp, tmp[8], 1, 1, {1, 2, 2, 8, 16, 16})`:
        // `dst` and `src0` at the same address with block strides 1 and 2, a partial overlap
        // within one repeat, which the vendor's general address-overlap rule does not allow
        // ("within one iteration source and destination must overlap 100%") and this emulator
        // rejects; it also passes a mask of 1 with `isSetMask = false` (ignored, the mask
        // register is used). Issued here with the vendor's mask into the free floats at
        // `tmp[256..320)` (the 16 values per row sit in `tmp[0..128)`), and the last
        // `BlockReduce` reads them there: the same values as the chip's in-place result.
        let pair = tmp.view(256);
        op::<false>(kind, &pair, tmp, &tmp.view(8), 1, 1, &bin(1, 2, 2, 8, 16, 16));
        pipe_barrier::<PIPE_V>();
        block_reduce(kind, dst, &pair, 1, 1, 1, 8);
        return;
    }
    if split_block == 1 {
        block_reduce(kind, tmp, src, split_m as u8, 1, 1, 8);
    } else if split_k > 512 {
        big_block(kind, tmp, src, split_block, split_m, split_k);
        pipe_barrier::<PIPE_V>();
        block_reduce(kind, tmp, tmp, split_m as u8, 1, 1, 8);
    } else {
        basic_block_op(kind, tmp, src, split_m as u8, (8 * split_block) as u8, split_block);
        pipe_barrier::<PIPE_V>();
        block_reduce(kind, tmp, tmp, split_m as u8, 1, 1, 8);
    }
    pipe_barrier::<PIPE_V>();
    block_reduce(kind, dst, tmp, ceil_m, 1, 1, 8);
}

/// `Sub<float, false>` of each 64-column group of the round's rows against the row's block of
/// maxima (`(m,k) - (m,8)`).
#[track_caller]
fn bb_sub(dst: &F, src: &F, max: &F, split_m: usize, split_k: usize) {
    let split_block = split_k / FLOAT_REPEAT as usize;
    let offset = (8 * split_block) as u8;
    for j in 0..split_block {
        let (d, s) = (dst.view(FLOAT_REPEAT as usize * j), src.view(FLOAT_REPEAT as usize * j));
        sub_masked::<f32, false>(
            &d,
            &s,
            max,
            MASK_PLACEHOLDER,
            split_m as u8,
            &bin(1, 1, 0, offset, offset, 1),
        );
    }
}

/// `SoftmaxFlashV2NoUpdateBasicBlock` for `float` (whole rounds; `src` is overwritten with `x -
/// max`, as the vendor's).
#[track_caller]
fn bb_no_update_float(dst: &F, sum: &F, max: &F, src: &F, work: &F, tiling: &SoftMaxTiling) {
    let (m, k) = (tiling.split_m as usize, tiling.split_k as usize);
    let (tmp1, tmp2) = (work.view(0), work.view(m * FLOAT_REPEAT as usize));
    let ceil_m = m.div_ceil(8) as u8;
    let repeat = (tiling.split_size / FLOAT_REPEAT) as u8;
    for i in 0..tiling.range_m as usize {
        let (o1, o2) = (i * tiling.split_size as usize, i * tiling.reduce_size as usize);
        let (d, s, mx) = (dst.view(o1), src.view(o1), max.view(o2));
        pipe_barrier::<PIPE_V>();
        bb_reduce(Kind::Max, &tmp2, &s, &tmp1, m, k);
        pipe_barrier::<PIPE_V>();
        brcb(&mx, &tmp2, ceil_m, &BrcbRepeatParams::new(1, 8));
        pipe_barrier::<PIPE_V>();
        bb_sub(&s, &s, &mx, m, k);
        pipe_barrier::<PIPE_V>();
        exp_masked::<f32, false>(&d, &s, MASK_PLACEHOLDER, repeat, &SAME);
        pipe_barrier::<PIPE_V>();
        bb_reduce(Kind::Sum, &tmp2, &d, &tmp1, m, k);
        pipe_barrier::<PIPE_V>();
        brcb(&sum.view(o2), &tmp2, ceil_m, &BrcbRepeatParams::new(1, 8));
    }
}

/// `SoftmaxFlashV2BasicBlockImpl` for `float` (whole rounds; `inExpSumTensor` is overwritten
/// with `expMax * inExpSum`, as the vendor's).
#[track_caller]
fn bb_update_float(dst: &F, src: &F, st: &Stats<f32, f32>, work: &F, tiling: &SoftMaxTiling) {
    let (m, k) = (tiling.split_m as usize, tiling.split_k as usize);
    let rep = FLOAT_REPEAT as usize;
    let (tmp1, tmp2, tmp3) = (work.view(0), work.view(m * rep), work.view(m * rep / 2));
    let ceil_m = m.div_ceil(8) as u8;
    let reduce_ceil = (tiling.reduce_size as usize).div_ceil(rep) as u8;
    let repeat = (tiling.split_size / FLOAT_REPEAT) as u8;
    let p = bin(1, 1, 1, 8, 8, 8);
    for i in 0..tiling.range_m as usize {
        let (o1, o2) = (i * tiling.split_size as usize, i * tiling.reduce_size as usize);
        let (d, s) = (dst.view(o1), src.view(o1));
        let (mx, em, isu) = (st.max.view(o2), st.exp_max.view(o2), st.in_sum.view(o2));
        pipe_barrier::<PIPE_V>();
        bb_reduce(Kind::Max, &tmp2, &s, &tmp1, m, k);
        pipe_barrier::<PIPE_V>();
        brcb(&tmp1, &tmp2, ceil_m, &BrcbRepeatParams::new(1, 8));
        pipe_barrier::<PIPE_V>();
        let cp = CopyRepeatParams::new(1, 1, 8, 8);
        copy_masked::<f32, false>(&tmp2, &st.in_max.view(o2), MASK_PLACEHOLDER, reduce_ceil, &cp);
        pipe_barrier::<PIPE_V>();
        max_masked::<f32, false>(&mx, &tmp2, &tmp1, MASK_PLACEHOLDER, reduce_ceil, &p);
        pipe_barrier::<PIPE_V>();
        bb_sub(&d, &s, &mx, m, k);
        sub_masked::<f32, false>(&tmp2, &tmp2, &mx, MASK_PLACEHOLDER, reduce_ceil, &p);
        pipe_barrier::<PIPE_V>();
        exp_masked::<f32, false>(&em, &tmp2, MASK_PLACEHOLDER, reduce_ceil, &SAME);
        pipe_barrier::<PIPE_V>();
        exp_masked::<f32, false>(&d, &d, MASK_PLACEHOLDER, repeat, &SAME);
        pipe_barrier::<PIPE_V>();
        bb_reduce(Kind::Sum, &tmp3, &d, &tmp1, m, k);
        pipe_barrier::<PIPE_V>();
        brcb(&tmp1, &tmp3, ceil_m, &BrcbRepeatParams::new(1, 8));
        pipe_barrier::<PIPE_V>();
        mul_masked::<f32, false>(&isu, &em, &isu, MASK_PLACEHOLDER, reduce_ceil, &p);
        pipe_barrier::<PIPE_V>();
        add_masked::<f32, false>(&st.sum.view(o2), &isu, &tmp1, MASK_PLACEHOLDER, reduce_ceil, &p);
    }
}

// ---- SoftmaxFlashV2 --------------------------------------------------------------------------

/// The kernel-side `SoftMaxFlashV2TilingFuncImpl(m, k, sizeof(T1), sizeof(T2), workSize)` (ND,
/// not basic block): the tiling recomputed for a shape the host tiling was not made for.
#[track_caller]
fn device_tiling(work: usize, m: u32, k: u32, half: bool, per_blk: u32) -> SoftMaxTiling {
    let row = per_row(false, half, per_blk, k);
    ensure(work as u32 >= row, API, || {
        format!(
            "the temporary buffer has {} bytes, fewer than the {} one row of k = {k} needs in the tiling the kernel \
             recomputes for a shape other than the tiling's",
            work * 4,
            row * 4
        )
    });
    let mut reduce_m = work as u32 / row;
    if reduce_m < m && reduce_m > BASIC_TILE {
        reduce_m = reduce_m / BASIC_TILE * BASIC_TILE;
    }
    rows_tiling(m, k, per_blk, reduce_m.min(m))
}

/// Floats of temporary buffer one round of `tiling` touches.
fn flash_work(update: bool, half: bool, stat: usize, tiling: &SoftMaxTiling) -> usize {
    let no_update = work_needed(half, Some(stat), false, tiling);
    if !update {
        return no_update;
    }
    let (split, reduce, scratch) = (
        tiling.split_size as usize,
        tiling.reduce_size as usize,
        tiling.split_m as usize * FLOAT_REPEAT as usize,
    );
    if half {
        split + 2 * reduce + scratch
    } else {
        reduce + scratch
    }
}

/// `SoftmaxFlashV2Impl` + `SoftmaxFlashV2PostProcess` (ND, default configuration).
#[allow(clippy::too_many_arguments)]
#[track_caller]
fn softmax_flash_v2_impl<T1: SoftMaxElement, T2: SoftMaxStatElement<T1>, const IS_UPDATE: bool>(
    dst: &LocalTensor<T1>,
    st: &Stats<T1, T2>,
    src: &LocalTensor<T1>,
    tmp: &LocalTensor<u8>,
    tiling: &SoftMaxTiling,
    shape: &SoftMaxShapeInfo,
    is_basic_block: bool,
) {
    check_910b(API);
    let half = T1::DTYPE == DType::F16;
    ensure(!(is_basic_block && half), API, || {
        "isBasicBlock = true for half sources (the vendor's SoftmaxFlashV2BasicBlock for half) is not modelled; \
         call with isBasicBlock = false"
            .into()
    });
    let mut ops = vec![
        ("dstTensor", dst.get_position()),
        ("expSumTensor", st.sum.get_position()),
        ("maxTensor", st.max.get_position()),
        ("srcTensor", src.get_position()),
        ("sharedTmpBuffer", tmp.get_position()),
    ];
    if IS_UPDATE {
        ops.extend([
            ("expMaxTensor", st.exp_max.get_position()),
            ("inExpSumTensor", st.in_sum.get_position()),
            ("inMaxTensor", st.in_max.get_position()),
        ]);
    }
    check_ub(API, &ops);
    check_shape::<T1>(API, shape);
    if is_basic_block {
        let k = shape.src_k;
        ensure(k % FLOAT_REPEAT == 0 && k < 2048, API, || {
            format!("isBasicBlock = true needs srcK a multiple of 64 below 2048; srcK = {k}")
        });
        ensure(shape.src_m % BASIC_TILE == 0, API, || {
            format!("isBasicBlock = true needs srcM a multiple of 8; srcM = {}", shape.src_m)
        });
    }
    let work = tmp.get_size() / 4;
    let per_blk = (32 / T2::SIZE) as u32;
    let tiling = if shape.src_k != tiling.src_k || shape.src_m != tiling.src_m {
        if is_basic_block {
            // `CalculateNDSplitM(…, isBasicBlock)`: SoftMax's kernel-side tiling of a basic block.
            let row = per_row(false, false, per_blk, shape.src_k) as usize;
            ensure(work >= row, API, || {
                format!(
                    "the temporary buffer has {} bytes, fewer than the {} one row of k = {} needs in the tiling the \
                     kernel recomputes for a shape other than the tiling's",
                    work * 4,
                    row * 4,
                    shape.src_k
                )
            });
            device_tiling_nd(work, shape.src_m, shape.src_k, shape.src_m, T1::SIZE, per_blk, true)
        } else {
            device_tiling(work, shape.src_m, shape.src_k, half, per_blk)
        }
    } else {
        *tiling
    };
    ensure(tiling.split_m > 0 && tiling.split_k == shape.src_k, API, || {
        format!(
            "tiling has splitM = {} and splitK = {} for srcK = {}; fill it with SoftMaxFlashV2TilingFunc",
            tiling.split_m, tiling.split_k, shape.src_k
        )
    });
    if is_basic_block {
        ensure(tiling.split_m % BASIC_TILE == 0 && tiling.split_size / FLOAT_REPEAT < 256, API, || {
            format!(
                "isBasicBlock = true needs the tiling's splitM a multiple of 8 and splitM * splitK below 16384; \
                 splitM = {}, splitK = {}; make it with SoftMaxFlashV2TilingFunc(…, isBasicBlock = true)",
                tiling.split_m, tiling.split_k
            )
        });
    }
    let need = if is_basic_block {
        let m = tiling.split_m as usize;
        let scratch = m * if tiling.split_k == SPECIAL_BASICBLOCK_LEN { 128 } else { 64 };
        scratch.max(m * 64 + if IS_UPDATE { m * 8 } else { m.div_ceil(8) * 8 })
    } else {
        flash_work(IS_UPDATE, half, T2::SIZE, &tiling)
    };
    ensure(work >= need, API, || {
        format!(
            "sharedTmpBuffer has {} bytes, less than the {} bytes the tiling's rounds of splitM = {} rows of {} need; \
             make the tiling with SoftMaxFlashV2TilingFunc for this buffer's size",
            tmp.get_size(),
            need * 4,
            tiling.split_m,
            T1::DTYPE
        )
    });
    // The basic block computes whole rounds only (the tail is left out, as the vendor's).
    let tail = if is_basic_block { 0 } else { tiling.tail_m };
    // In usize and saturating: a tiling from elsewhere may hold any values, and the length
    // checks below then fail with its numbers.
    let rows =
        (tiling.range_m as usize).saturating_mul(tiling.split_m as usize).saturating_add(tail as usize);
    let (n, stats, em) = (
        rows.saturating_mul(tiling.split_k as usize),
        rows.saturating_mul(tiling.reduce_k as usize),
        rows.saturating_mul(32) / T1::SIZE,
    );
    check_len(API, "srcTensor", src, n, "elements of the tiling's rows");
    check_len(API, "dstTensor", dst, n, "elements of the tiling's rows");
    check_len(API, "expSumTensor", st.sum, stats, "elements of the tiling's rows' statistics");
    check_len(API, "maxTensor", st.max, stats, "elements of the tiling's rows' statistics");
    let (d, s) = (span("dstTensor", dst, n), span("srcTensor", src, n));
    let (su, mx) = (span("expSumTensor", st.sum, stats), span("maxTensor", st.max, stats));
    let t = ("sharedTmpBuffer", tmp.get_phy_addr(), tmp.get_phy_addr() + need * 4);
    let mut pairs = vec![(t, d), (t, s), (t, su), (t, mx), (su, mx), (su, d), (mx, d), (su, s), (mx, s)];
    if IS_UPDATE {
        check_len(API, "expMaxTensor", st.exp_max, em, "elements of the tiling's rows' exp(inMax - max)");
        check_len(API, "inExpSumTensor", st.in_sum, stats, "elements of the tiling's rows' statistics");
        check_len(API, "inMaxTensor", st.in_max, stats, "elements of the tiling's rows' statistics");
        let e = span("expMaxTensor", st.exp_max, em);
        let (isu, imx) = (span("inExpSumTensor", st.in_sum, stats), span("inMaxTensor", st.in_max, stats));
        pairs.extend([(t, e), (t, isu), (t, imx), (e, d), (e, s), (e, su), (e, mx), (e, isu), (e, imx)]);
        // An input statistic may be its output (same address), not overlap any other operand.
        for (x, out) in [(isu, su), (imx, mx)] {
            pairs.extend([(x, d), (x, s)]);
            if x.1 != out.1 {
                pairs.push((x, out));
            }
        }
        pairs.extend([(isu, mx), (imx, su)]);
    }
    check_apart(API, &pairs);
    if d.1 != s.1 {
        check_apart(API, &[(whole("dstTensor", dst), whole("srcTensor", src))]);
    }
    let work = tmp.reinterpret_cast::<f32>();
    let ori_k = shape.ori_src_k;
    set_mask_norm();
    reset_mask();
    if !half {
        let (d, s) = (dst.reinterpret_cast::<f32>(), src.reinterpret_cast::<f32>());
        let (su, mx) = (st.sum.reinterpret_cast::<f32>(), st.max.reinterpret_cast::<f32>());
        if is_basic_block {
            if IS_UPDATE {
                let (em, isu, imx) = (
                    st.exp_max.reinterpret_cast::<f32>(),
                    st.in_sum.reinterpret_cast::<f32>(),
                    st.in_max.reinterpret_cast::<f32>(),
                );
                let st = Stats { sum: &su, max: &mx, exp_max: &em, in_sum: &isu, in_max: &imx };
                bb_update_float(&d, &s, &st, &work, &tiling);
            } else {
                bb_no_update_float(&d, &su, &mx, &s, &work, &tiling);
            }
        } else if IS_UPDATE {
            let (em, isu, imx) = (
                st.exp_max.reinterpret_cast::<f32>(),
                st.in_sum.reinterpret_cast::<f32>(),
                st.in_max.reinterpret_cast(),
            );
            let st = Stats { sum: &su, max: &mx, exp_max: &em, in_sum: &isu, in_max: &imx };
            rounds(&tiling, ori_k, |r| update_float(&d, &s, &st, &work, &tiling, r));
        } else {
            rounds(&tiling, ori_k, |r| no_update_float(&d, &su, &mx, &s, &work, &tiling, r));
        }
        return;
    }
    let (d, s) = (dst.reinterpret_cast::<f16>(), src.reinterpret_cast::<f16>());
    let em = st.exp_max.reinterpret_cast::<f16>();
    if T2::DTYPE == DType::F16 {
        let (su, mx) = (st.sum.reinterpret_cast::<f16>(), st.max.reinterpret_cast::<f16>());
        if IS_UPDATE {
            let (isu, imx) = (st.in_sum.reinterpret_cast::<f16>(), st.in_max.reinterpret_cast::<f16>());
            let st = Stats { sum: &su, max: &mx, exp_max: &em, in_sum: &isu, in_max: &imx };
            rounds(&tiling, ori_k, |r| update_half_half(&d, &s, &st, &work, &tiling, r));
        } else {
            rounds(&tiling, ori_k, |r| no_update_half_half(&d, &su, &mx, &s, &work, &tiling, r));
        }
    } else {
        let (su, mx) = (st.sum.reinterpret_cast::<f32>(), st.max.reinterpret_cast::<f32>());
        if IS_UPDATE {
            let (isu, imx) = (st.in_sum.reinterpret_cast::<f32>(), st.in_max.reinterpret_cast::<f32>());
            let st = Stats { sum: &su, max: &mx, exp_max: &em, in_sum: &isu, in_max: &imx };
            rounds(&tiling, ori_k, |r| update_half_float(&d, &s, &st, &work, &tiling, r));
        } else {
            rounds(&tiling, ori_k, |r| no_update_half_float(&d, &su, &mx, &s, &work, &tiling, r));
        }
    }
}

/// The flash-attention softmax step (AscendC `SoftmaxFlashV2<T, isUpdate, isReuseSource,
/// isBasicBlock, isDataFormatNZ = false>(dstTensor, expSumTensor, maxTensor, srcTensor,
/// expMaxTensor, inExpSumTensor, inMaxTensor, sharedTmpBuffer, tiling, softmaxShapeInfo)`, ND,
/// and its `half`-with-`float`-statistics overload): without `IS_UPDATE`, `max = rowmax(x)`,
/// `dst = exp(x - max)`, `exp_sum = rowsum(dst)`; with it, the running statistics are merged:
/// `max = max(in_max, rowmax(x))`, `exp_max = exp(in_max - max)`, `dst = exp(x - max)`,
/// `exp_sum = exp_max * in_exp_sum + rowsum(dst)`.
///
/// As the vendor's implementation on Ascend910B (see the module documentation): rounds of the
/// tiling's `splitM` rows, in `float`, the statistics one 32-byte block of `T2` per row,
/// `exp_max_tensor` one 32-byte block of `T1` per row. Without `IS_UPDATE`,
/// `exp_max_tensor`, `in_exp_sum_tensor` and `in_max_tensor` are not touched. `dst` may be
/// `src`, `exp_sum` `in_exp_sum` and `max` `in_max` (the same address). `IS_REUSE_SOURCE` is
/// reserved. `IS_BASIC_BLOCK` (`float`) takes the vendor's basic-block path, which overwrites
/// `src` (no update) or `in_exp_sum` (update) as the chip does. Leaves the core in normal mask mode with the full mask.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut c) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 2 * 8 * 4);
/// pipe.init_tbuf(&mut b, 3 * 2 * 8 * 4);
/// let bytes = get_soft_max_flash_v2_min_tmp_size(&[2, 8], 4, 4, false, false, false);
/// pipe.init_tbuf(&mut c, bytes as usize);
/// let x = a.get::<f32>();
/// let (sum, max, em) = (b.get_with_offset::<f32>(16, 0), b.get_with_offset::<f32>(16, 64), b.get_with_offset::<f32>(16, 128));
/// x.copy_from_slice(&[1.0f32; 16]);
/// let tiling = soft_max_flash_v2_tiling_func(&[2, 8], 4, 4, bytes, false, false, false);
/// let info = SoftMaxShapeInfo::new(2, 8, 2, 8);
/// softmax_flash_v2::<f32, f32, false, false, false>(&x, &sum, &max, &x, &em, &sum, &max, &c.get::<u8>(), &tiling, &info);
/// assert_eq!((x.get_value(0), sum.get_value(0), max.get_value(0)), (1.0, 8.0, 1.0));
/// ```
///
/// # Panics
/// Panics if the chip is not Ascend910B; `IS_BASIC_BLOCK` is true for `half` (not modelled) or,
/// for `float`, `src_k` is not a multiple of 64 below 2048 or `src_m` or the tiling's `split_m`
/// not a multiple of 8; a tensor is
/// not in the Unified Buffer; `shape_info.src_m` or `src_k` is 0, `src_k` is not 32-byte
/// aligned, or `ori_src_k`/`ori_src_m` is 0 or exceeds `src_k`/`src_m`; the tiling's rounds
/// need more temporary buffer than `shared_tmp_buffer` (or a recomputed tiling fits no row);
/// a tensor holds fewer elements than the tiling's rows need; the operands overlap (but the
/// pairs named above at the same address); or any instruction's own check fails.
#[allow(clippy::too_many_arguments)]
#[track_caller]
pub fn softmax_flash_v2<
    T1: SoftMaxElement,
    T2: SoftMaxStatElement<T1>,
    const IS_UPDATE: bool,
    const IS_REUSE_SOURCE: bool,
    const IS_BASIC_BLOCK: bool,
>(
    dst_tensor: &LocalTensor<T1>,
    exp_sum_tensor: &LocalTensor<T2>,
    max_tensor: &LocalTensor<T2>,
    src_tensor: &LocalTensor<T1>,
    exp_max_tensor: &LocalTensor<T1>,
    in_exp_sum_tensor: &LocalTensor<T2>,
    in_max_tensor: &LocalTensor<T2>,
    shared_tmp_buffer: &LocalTensor<u8>,
    tiling: &SoftMaxTiling,
    softmax_shape_info: &SoftMaxShapeInfo,
) {
    let st = Stats {
        sum: exp_sum_tensor,
        max: max_tensor,
        exp_max: exp_max_tensor,
        in_sum: in_exp_sum_tensor,
        in_max: in_max_tensor,
    };
    softmax_flash_v2_impl::<T1, T2, IS_UPDATE>(
        dst_tensor,
        &st,
        src_tensor,
        shared_tmp_buffer,
        tiling,
        softmax_shape_info,
        IS_BASIC_BLOCK,
    );
}

/// [`softmax_flash_v2`] with the temporary buffer from the stack buffer (AscendC
/// `SoftmaxFlashV2<T, isUpdate, isReuseSource, isBasicBlock>(dstTensor, expSumTensor,
/// maxTensor, srcTensor, expMaxTensor, inExpSumTensor, inMaxTensor, tiling,
/// softmaxShapeInfo)`, whose buffer is `PopStackBuffer`'s).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 2 * 16 * 2);
/// pipe.init_tbuf(&mut b, 3 * 2 * 16 * 2);
/// let x = a.get::<f16>();
/// let (sum, max, em) = (b.get_with_offset::<f16>(32, 0), b.get_with_offset::<f16>(32, 64), b.get_with_offset::<f16>(32, 128));
/// x.copy_from_slice(&[f16::from_f32(2.0); 32]);
/// sum.copy_from_slice(&[f16::from_f32(16.0); 32]);
/// max.copy_from_slice(&[f16::from_f32(2.0); 32]);
/// let bytes = get_soft_max_flash_v2_max_tmp_size(&[2, 16], 2, 2, true, false, false);
/// let tiling = soft_max_flash_v2_tiling_func(&[2, 16], 2, 2, bytes, true, false, false);
/// let info = SoftMaxShapeInfo::new(2, 16, 2, 16);
/// softmax_flash_v2_stack::<f16, f16, true, false, false>(&x, &sum, &max, &x, &em, &sum, &max, &tiling, &info);
/// assert_eq!((sum.get_value(0).to_f32(), em.get_value(0).to_f32()), (32.0, 1.0));
/// ```
///
/// # Panics
/// As [`softmax_flash_v2`], and if the core has no `TPipe` or its buffers leave no stack buffer.
#[allow(clippy::too_many_arguments)]
#[track_caller]
pub fn softmax_flash_v2_stack<
    T1: SoftMaxElement,
    T2: SoftMaxStatElement<T1>,
    const IS_UPDATE: bool,
    const IS_REUSE_SOURCE: bool,
    const IS_BASIC_BLOCK: bool,
>(
    dst_tensor: &LocalTensor<T1>,
    exp_sum_tensor: &LocalTensor<T2>,
    max_tensor: &LocalTensor<T2>,
    src_tensor: &LocalTensor<T1>,
    exp_max_tensor: &LocalTensor<T1>,
    in_exp_sum_tensor: &LocalTensor<T2>,
    in_max_tensor: &LocalTensor<T2>,
    tiling: &SoftMaxTiling,
    softmax_shape_info: &SoftMaxShapeInfo,
) {
    let tmp = stack_tensor(API);
    softmax_flash_v2::<T1, T2, IS_UPDATE, IS_REUSE_SOURCE, IS_BASIC_BLOCK>(
        dst_tensor,
        exp_sum_tensor,
        max_tensor,
        src_tensor,
        exp_max_tensor,
        in_exp_sum_tensor,
        in_max_tensor,
        &tmp,
        tiling,
        softmax_shape_info,
    );
}
