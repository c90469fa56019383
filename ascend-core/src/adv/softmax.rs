//! `SoftMax` of the advanced API (the vendor's `adv_api/activation/softmax`), ND format — the
//! form without outputs ([`soft_max`]) and the one with `sumTensor`/`maxTensor`
//! ([`soft_max_with_sum_max`]) — written as the vendor's `membase/v220` implementation writes it
//! for Ascend910B, with the `SoftMaxTiling` struct, the host-side tiling helpers
//! (`SoftMaxTilingFunc`, `GetSoftMaxMaxTmpSize`, `GetSoftMaxMinTmpSize`) and the post-processing
//! `AdjustSoftMaxRes` ([`adjust_soft_max_res`]).
//!
//! For each row of the `[m, k]` source: the row maximum, `x - max`, `exp`, the row sum and the
//! quotient — the vendor's `SingleSoftMaxImpl`, one round of `tiling.split_m` rows at a time
//! (`rangeM` full rounds and a tail of `tailM` rows). `half` is widened to `float` first (the
//! whole computation is in `float`) and the quotient narrowed with `CAST_ROUND`.
//!
//! **Order of the sums.** The row sum is the vendor's `NewReduceSumLastNDImpl`, so its float
//! additions happen in this order (`T64` is the binary tree over 64 lanes, neighbours added
//! level by level, the same tree as two `BlockReduceSum`s of 8):
//! - `k < 64`: `T64` over the row's `k` values and `64 - k` zeros (`WholeReduceSum`);
//! - `64 <= k < 128`: `acc = row[0..64]`, then `acc[i] += row[64 + i]` for the tail;
//! - `128 <= k < 512`: `acc = row[0..64] + row[64..128]`, then `acc += row[64c..64c + 64]` for
//!   each further full group `c`, then the tail;
//! - `k >= 512`: `acc[j] = T8(row[8j..8j + 8])` for `j < 64` (the 64 block sums of the first 512
//!   values), then `acc += row[64c..64c + 64]` for each further full group `c >= 8`, then the
//!   tail;
//!
//! and the result is `T64(acc)`. `k` is `softmaxShapeInfo.oriSrcK`; the padding columns up to
//! `srcK` are subtracted, exponentiated and divided with the rest, as on the chip (the vendor's
//! page: the padded data takes part in some of the computation).
//!
//! **Tiling.** The host tiling's rounds cover its `src_m` rows (rows past `ori_src_m` are
//! computed as rows). When `shape_info`'s `src_m`/`src_k` differ from `tiling`'s, the kernel
//! recomputes the tiling from the temporary buffer's size, as the vendor's `SoftMaxImpl` does
//! (its kernel-side `SoftMaxTilingFunc`): `reduceK` one 32-byte block of the outputs' type
//! (`float` for the form without outputs), `splitM` the buffer's floats over `reduceK + k + 64`
//! for `half` and over `reduceK + 64` for `float` (the scratch the rounds need), and rounds
//! over `ori_src_m` rows. The maximum is exact whatever the order.
//!
//! The vendor's repeat counts and strides are 8-bit where its code casts them to `uint8_t`
//! (`splitM` as a repeat count for `128 <= k < 512`, `srcK / 8` as a repeat stride); they are
//! kept so here, as on the chip.
//!
//! **Basic block.** With outputs and `isBasicBlock = true`, the vendor's `SoftMaxBasicBlock`
//! (`membase/common`): whole rounds only, normal-mode repeats of 64 floats, `k` a multiple of
//! 64 with no tail, and the row sums in the `128 <= k < 512` order above for every `k >= 128`
//! (`k = 64`: `T64` of the row); the outputs get one 32-byte block of their type per row. Its
//! conditions (the vendor's page and `IsBasicBlockInSoftMax`) are checked. Without outputs the
//! vendor's ND implementation does not branch on `isBasicBlock`: only the recomputed tiling takes
//! it (`splitM` a divisor of `m`, a multiple of 8, halved while `splitM * k >= 16384`).
//!
//! Not modelled: `SoftmaxConfig` (the default configuration) and the NZ format
//! (`isDataFormatNZ`, left out of the signatures). A
//! `SoftMaxShapeInfo` with `src_m` or `src_k` 0 (take the shape from the tensor) is an error:
//! these tensors carry no `ShapeInfo`.
//!
//! Chips: Ascend910B only; the other chips that have `SoftMax` (Ascend310P's `v200`, Ascend310B)
//! use other implementations, not modelled, and fail with a message naming the chip.

use bytemuck::{Pod, Zeroable};

use crate::element::{f16, DType, Element};
use crate::kernel::ctx::get_soc;
use crate::kernel::error::ensure;
use crate::memory::copy::{data_copy_params, DataCopyParams};
use crate::memory::tensor::LocalTensor;
use crate::soc::Soc;
use crate::sync::{
    event::{Event, HardEvent, PIPE_V},
    flags::{fetch_free_event, pipe_barrier, set_flag_event, wait_flag_event},
};
use crate::vector::binary::{add_masked, div_masked, max_masked, sub_masked};
use crate::vector::brcb::{brcb, BrcbRepeatParams};
use crate::vector::cast::{cast, cast_masked, RoundMode};
use crate::vector::copy::{copy_masked, CopyRepeatParams};
use crate::vector::duplicate::duplicate_masked;
use crate::vector::mask::{reset_mask, set_mask_count, set_mask_norm, set_vector_mask, MASK_PLACEHOLDER};
use crate::vector::params::{BinaryRepeatParams, UnaryRepeatParams};
use crate::vector::reduction::{
    block_reduce_max, block_reduce_sum, whole_reduce_max, whole_reduce_sum, ReduceOrder,
};
use crate::vector::unary::{exp, exp_masked};

use super::{check_apart, host_checks, span, stack_tensor, whole};

mod sealed {
    pub trait Sealed {}
}

const API: &str = "SoftMax";
/// `FLOAT_REPEAT_SIZE`: floats in one repeat.
const FLOAT_REPEAT: usize = 64;
/// `FLOAT_NUM_PER_BLK`: floats in one 32-byte block.
const FLOAT_BLK: usize = 8;
/// `MAX_REPEAT_TIMES`.
const MAX_REPEAT: usize = 255;
/// `SOFTMAX_MAX_REPEAT_STRIDE`: the largest `srcK` a repeat stride can step over.
const MAX_REPEAT_STRIDE: usize = MAX_REPEAT * 8;
/// `SOFTMAX_FLOAT_SPECIAL_BLOCKREDUCE_LEN`: from this `k` on, the first 512 values are
/// block-reduced.
const BIG_BLOCK_LEN: usize = 512;
/// `HALF_REPEAT_SIZE`.
const HALF_REPEAT: usize = 128;
/// `SOFTMAX_SUB_DIV_ROW_COLUMN_SIZE`: below this `srcK`, `Sub`/`Div` go column block by column
/// block; from it on, row by row.
const SUB_DIV_ROW_COLUMN: usize = 192;
/// `SOFTMAX_BASIC_TILE_NUM`.
const BASIC_TILE: u32 = 8;
/// `SOFTMAX_BASICBLOCK_UNIT` (the host's 64 floats of reduction scratch per row).
const BASICBLOCK_UNIT: u32 = 64;

/// The vendor's `SoftMaxTiling` (`adv_api/activation/softmax_tilingdata.h`), field for field
/// (`#[repr(C)]`, sixteen `uint32_t`s, so it can sit in a kernel's tiling data).
///
/// Filled on the host by [`soft_max_tiling_func`]; the kernel recomputes it when the shape it
/// is given differs (see the module documentation).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Pod, Zeroable)]
pub struct SoftMaxTiling {
    /// Rows of the source (`m`, the product of the non-last axes).
    pub src_m: u32,
    /// Length of the last axis (`k`, 32-byte aligned).
    pub src_k: u32,
    /// `src_m * src_k`.
    pub src_size: u32,
    /// Rows of the max/sum outputs (`src_m`).
    pub out_max_m: u32,
    /// Elements per row of the max/sum outputs (one 32-byte block).
    pub out_max_k: u32,
    /// `out_max_m * out_max_k`.
    pub out_max_size: u32,
    /// Rows computed per round.
    pub split_m: u32,
    /// Last-axis length of a round (`src_k`).
    pub split_k: u32,
    /// Elements per round (`split_m * split_k`).
    pub split_size: u32,
    /// Rows of the per-round reduction results (`split_m`).
    pub reduce_m: u32,
    /// Elements per row of the reduction results (one 32-byte block of the data type).
    pub reduce_k: u32,
    /// `reduce_m * reduce_k`.
    pub reduce_size: u32,
    /// Full rounds.
    pub range_m: u32,
    /// Rows of the last, partial round (0 if none).
    pub tail_m: u32,
    /// `tail_m * split_k`.
    pub tail_split_size: u32,
    /// `tail_m * reduce_k`.
    pub tail_reduce_size: u32,
}

/// The vendor's `SoftMaxShapeInfo`: the source's `[src_m, src_k]` as laid out in the Unified
/// Buffer (`src_k` padded to 32 bytes) and the original `[ori_src_m, ori_src_k]` before
/// padding.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SoftMaxShapeInfo {
    /// Rows (the product of the non-last axes).
    pub src_m: u32,
    /// Last-axis length as stored, 32-byte aligned.
    pub src_k: u32,
    /// Original rows.
    pub ori_src_m: u32,
    /// Original last-axis length (the reductions run over it).
    pub ori_src_k: u32,
}

impl SoftMaxShapeInfo {
    /// The shape info in the vendor's field order.
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let s = SoftMaxShapeInfo::new(4, 64, 4, 60);
    /// assert_eq!((s.src_k, s.ori_src_k), (64, 60));
    /// ```
    ///
    /// # Panics
    /// Never.
    pub const fn new(src_m: u32, src_k: u32, ori_src_m: u32, ori_src_k: u32) -> Self {
        SoftMaxShapeInfo { src_m, src_k, ori_src_m, ori_src_k }
    }
}

/// Element types of [`soft_max`]: `half` and `float` (the vendor's page).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<i32>, b: &LocalTensor<u8>) {
///     soft_max::<_, false, false>(t, t, b, &SoftMaxTiling::default(), &SoftMaxShapeInfo::default())
/// }
/// ```
pub trait SoftMaxElement: Element + sealed::Sealed {}
impl sealed::Sealed for f16 {}
impl SoftMaxElement for f16 {}
impl sealed::Sealed for f32 {}
impl SoftMaxElement for f32 {}

/// Element types of the `sumTensor`/`maxTensor` of [`soft_max_with_sum_max`] for a source of
/// `T1`: `T1` itself, or `float` for a `half` source (the vendor's page: the same types, or
/// `half` with `float` outputs).
///
/// Any other pair does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(x: &LocalTensor<f32>, s: &LocalTensor<f16>, b: &LocalTensor<u8>) {
///     let (t, i) = (SoftMaxTiling::default(), SoftMaxShapeInfo::default());
///     soft_max_with_sum_max::<f32, f16, false, false>(x, s, s, x, b, &t, &i)
/// }
/// ```
pub trait SoftMaxStatElement<T1: SoftMaxElement>: Element + sealed::Sealed {}
impl SoftMaxStatElement<f16> for f16 {}
impl SoftMaxStatElement<f32> for f32 {}
impl SoftMaxStatElement<f16> for f32 {}

// ---- host tiling ---------------------------------------------------------------------------

/// The host helpers' checks and `[m, k]` of `src_shape` (the vendor's `GetLastAxisShapeND`).
#[track_caller]
pub(crate) fn host_shape(api: &'static str, src_shape: &[u32], data_type_size: u32) -> (u32, u32) {
    let size: u64 = src_shape.iter().map(|&d| u64::from(d)).product();
    host_checks(api, if src_shape.is_empty() { 0 } else { size as usize }, data_type_size as usize);
    let k = *src_shape.last().unwrap_or(&0);
    ensure(k > 0, api, || "the shape's last axis is 0; it must be greater than 0".into());
    ensure(k * data_type_size % 32 == 0, api, || {
        format!(
            "the shape's last axis ({k} elements of {data_type_size} bytes, {} bytes) is not 32-byte aligned",
            k * data_type_size
        )
    });
    ((size / u64::from(k)) as u32, k)
}

/// Bytes of temporary buffer with which [`soft_max`] computes all rows of `src_shape` in one
/// round (AscendC `GetSoftMaxMaxTmpSize(srcShape, dataTypeSize, isReuseSource)` for
/// Ascend910B): `m * (32 / dataTypeSize + k + 64)` floats.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_soft_max_max_tmp_size(&[32, 32], 4, false), 32 * (8 + 32 + 64) * 4);
/// assert_eq!(get_soft_max_max_tmp_size(&[2, 4, 128], 2, false), 8 * (16 + 128 + 64) * 4);
/// ```
///
/// # Panics
/// Panics if the shape has no elements, its last axis is not 32-byte aligned, or
/// `data_type_size` is not 2 or 4.
#[track_caller]
pub fn get_soft_max_max_tmp_size(src_shape: &[u32], data_type_size: u32, is_reuse_source: bool) -> u32 {
    let _ = is_reuse_source;
    let (m, k) = host_shape("GetSoftMaxMaxTmpSize", src_shape, data_type_size);
    m * (32 / data_type_size + k + BASICBLOCK_UNIT) * 4
}

/// The fewest bytes of temporary buffer [`soft_max`] works with, one row per round (AscendC
/// `GetSoftMaxMinTmpSize(srcShape, dataTypeSize, isReuseSource)` for Ascend910B):
/// `32 / dataTypeSize + k + 64` floats.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_soft_max_min_tmp_size(&[32, 32], 4, false), (8 + 32 + 64) * 4);
/// ```
///
/// # Panics
/// As [`get_soft_max_max_tmp_size`].
#[track_caller]
pub fn get_soft_max_min_tmp_size(src_shape: &[u32], data_type_size: u32, is_reuse_source: bool) -> u32 {
    let _ = is_reuse_source;
    let (_, k) = host_shape("GetSoftMaxMinTmpSize", src_shape, data_type_size);
    (32 / data_type_size + k + BASICBLOCK_UNIT) * 4
}

/// The tiling of [`soft_max`] for `src_shape` with a temporary buffer of
/// `local_work_space_size` bytes (AscendC `SoftMaxTilingFunc(srcShape, dataTypeSize,
/// localWorkSpaceSize, softmaxTiling)`, which fills its last argument).
///
/// `split_m` is `min(workspace / 4 / (32 / dataTypeSize + k + 64), m)`, rounded down to a
/// multiple of 8 when it is above 8 and below `m`, and further for a basic-block shape (`m` a
/// multiple of 8 and `k` of 64): the largest multiple of 8 dividing `m`, halved while `split_m *
/// k >= 16384`. `reduce_k` is one 32-byte block of the data type.
///
/// ```
/// use ascend_core::prelude::*;
/// let t = soft_max_tiling_func(&[32, 32], 4, get_soft_max_min_tmp_size(&[32, 32], 4, false));
/// assert_eq!((t.split_m, t.range_m, t.tail_m, t.reduce_k), (1, 32, 0, 8));
/// let t = soft_max_tiling_func(&[20, 48], 2, 18 * (16 + 48 + 64) * 4);
/// assert_eq!((t.split_m, t.range_m, t.tail_m, t.split_size), (16, 1, 4, 16 * 48));
/// ```
///
/// # Panics
/// As [`get_soft_max_max_tmp_size`], and if `local_work_space_size` is 0.
#[track_caller]
pub fn soft_max_tiling_func(
    src_shape: &[u32],
    data_type_size: u32,
    local_work_space_size: u32,
) -> SoftMaxTiling {
    let api = "SoftMaxTilingFunc";
    let (src_m, src_k) = host_shape(api, src_shape, data_type_size);
    ensure(local_work_space_size > 0, api, || "localWorkSpaceSize is 0; it must be greater than 0".into());
    let per_blk = 32 / data_type_size;
    let work = local_work_space_size / 4;
    let mut base_m = (work / (per_blk + src_k + BASICBLOCK_UNIT)).min(src_m);
    if base_m < src_m && base_m > BASIC_TILE {
        base_m = base_m / BASIC_TILE * BASIC_TILE;
    }
    // AdjustToBasicBlockBaseM.
    if base_m > BASIC_TILE && src_m % BASIC_TILE == 0 && src_k % BASICBLOCK_UNIT == 0 {
        base_m = base_m / BASIC_TILE * BASIC_TILE;
        while src_m % base_m != 0 {
            base_m -= BASIC_TILE;
        }
        while base_m * src_k >= BASICBLOCK_UNIT * 256 {
            base_m /= 2;
        }
    }
    rows_tiling(src_m, src_k, per_blk, base_m)
}

/// The `SoftMaxTiling` of `m` rows of `k` in rounds of `base_m` rows, the statistics
/// `per_blk` to a row (`range_m`/`tail_m` 0 when `base_m` is 0, as the vendor's host
/// functions leave them).
pub(crate) fn rows_tiling(m: u32, k: u32, per_blk: u32, base_m: u32) -> SoftMaxTiling {
    let (range_m, tail) = (m.checked_div(base_m).unwrap_or(0), m.checked_rem(base_m).unwrap_or(0));
    SoftMaxTiling {
        src_m: m,
        src_k: k,
        src_size: m * k,
        out_max_m: m,
        out_max_k: per_blk,
        out_max_size: m * per_blk,
        split_m: base_m,
        split_k: k,
        split_size: base_m * k,
        reduce_m: base_m,
        reduce_k: per_blk,
        reduce_size: base_m * per_blk,
        range_m,
        tail_m: tail,
        tail_split_size: tail * k,
        tail_reduce_size: tail * per_blk,
    }
}

/// The kernel-side `SoftMaxTilingFunc(workLocalSize, {m, k, oriM, k}, tiling, sizeof(T1),
/// sizeof(T2))` (ND, not basic block): the tiling recomputed for a shape the host tiling was
/// not made for. `work` is the temporary buffer in floats, `t_size` `sizeof(T1)`, `per_blk`
/// `32 / sizeof(T2)` (`T2` is `float` for the form without outputs).
#[allow(clippy::too_many_arguments)]
pub(crate) fn device_tiling(
    work: usize,
    m: u32,
    k: u32,
    ori_m: u32,
    t_size: usize,
    per_blk: u32,
    is_basic_block: bool,
) -> SoftMaxTiling {
    let work = work as u32;
    // CalculateNDSplitM.
    let split = if t_size == 2 { work / (per_blk + k + 64) } else { work / (per_blk + 64) };
    let mut reduce_m = split.min(m);
    if is_basic_block && reduce_m > BASIC_TILE && m % BASIC_TILE == 0 {
        reduce_m = reduce_m / BASIC_TILE * BASIC_TILE;
        while m % reduce_m != 0 {
            reduce_m -= BASIC_TILE;
        }
        while reduce_m * k >= BASICBLOCK_UNIT * 256 {
            reduce_m /= 2;
        }
    }
    if reduce_m < ori_m && reduce_m > BASIC_TILE {
        reduce_m = reduce_m / BASIC_TILE * BASIC_TILE;
    }
    reduce_m = reduce_m.min(ori_m);
    ensure(reduce_m > 0, API, || {
        format!(
            "the temporary buffer holds {work} floats, too few for one row of k = {k} (softmax need min tmpbuffer \
             is not enough): one row needs {} bytes in the tiling the kernel recomputes",
            if t_size == 2 { (per_blk + k + 64) * 4 } else { (per_blk + 64) * 4 }
        )
    });
    let tail = ori_m % reduce_m;
    SoftMaxTiling {
        src_m: m,
        src_k: k,
        src_size: m * k,
        out_max_m: m,
        out_max_k: per_blk,
        out_max_size: m * per_blk,
        reduce_m,
        reduce_k: per_blk,
        reduce_size: reduce_m * per_blk,
        split_m: reduce_m,
        split_k: k,
        split_size: reduce_m * k,
        range_m: ori_m / reduce_m,
        tail_m: tail,
        tail_split_size: tail * k,
        tail_reduce_size: tail * per_blk,
    }
}

// ---- the vendor's building blocks (all on float) ------------------------------------------

/// The vendor's `ReduceLastND`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ReduceLastNd {
    pub(crate) original_src_m: usize,
    pub(crate) original_src_k: usize,
    pub(crate) src_m: usize,
    pub(crate) src_k: usize,
    pub(crate) dst_k: usize,
}

/// Max or sum: the two reductions share every step but the instruction.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Max,
    Sum,
}

pub(crate) type F = LocalTensor<f32>;

pub(crate) const fn bin(d: u8, s0: u8, s1: u8, dr: u8, s0r: u8, s1r: u8) -> BinaryRepeatParams {
    BinaryRepeatParams {
        dst_blk_stride: d,
        src0_blk_stride: s0,
        src1_blk_stride: s1,
        dst_rep_stride: dr,
        src0_rep_stride: s0r,
        src1_rep_stride: s1r,
    }
}

/// `Max` or `Add` by `kind`.
#[track_caller]
pub(crate) fn op<const SET: bool>(
    kind: Kind,
    d: &F,
    a: &F,
    b: &F,
    mask: u64,
    repeat: u8,
    p: &BinaryRepeatParams,
) {
    match kind {
        Kind::Max => max_masked::<f32, SET>(d, a, b, mask, repeat, p),
        Kind::Sum => add_masked::<f32, SET>(d, a, b, mask, repeat, p),
    }
}

/// `BlockReduceMax` or `BlockReduceSum` by `kind`, with the mask already set.
#[track_caller]
pub(crate) fn block_reduce(kind: Kind, d: &F, s: &F, repeat: u8, dst_rep: u16, src_blk: u16, src_rep: u16) {
    match kind {
        Kind::Max => {
            block_reduce_max::<f32, false>(d, s, repeat, MASK_PLACEHOLDER, dst_rep, src_blk, src_rep)
        }
        Kind::Sum => {
            block_reduce_sum::<f32, false>(d, s, repeat, MASK_PLACEHOLDER, dst_rep, src_blk, src_rep)
        }
    }
}

/// `WholeReduceMax` (only the value) or `WholeReduceSum` by `kind`.
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn whole_reduce<const SET: bool>(
    kind: Kind,
    d: &F,
    s: &F,
    mask: u64,
    repeat: u8,
    dst_rep: u16,
    src_rep: u16,
) {
    match kind {
        Kind::Max => whole_reduce_max::<f32, SET>(
            d,
            s,
            mask,
            repeat,
            dst_rep,
            1,
            src_rep,
            ReduceOrder::ORDER_ONLY_VALUE,
        ),
        Kind::Sum => whole_reduce_sum::<f32, SET>(d, s, mask, repeat, dst_rep, 1, src_rep),
    }
}

/// `ReduceMaxLastNDSplitImpl` / `ReduceSumLastNDSplitImpl`: one `WholeReduce` per row over
/// `mask` values from column `split_num * 64`, 255 rows per call.
#[track_caller]
pub(crate) fn split_reduce(kind: Kind, dst: &F, src: &F, rp: &ReduceLastNd, mask: u64, split_num: usize) {
    let (range, tail) = (rp.src_m / MAX_REPEAT, rp.src_m % MAX_REPEAT);
    let src_rep = (rp.src_k / FLOAT_BLK) as u16;
    for i in 0..range {
        let s = src.view(split_num * FLOAT_REPEAT + i * MAX_REPEAT * rp.src_k);
        whole_reduce::<true>(kind, &dst.view(i * MAX_REPEAT), &s, mask, MAX_REPEAT as u8, 1, src_rep);
    }
    if tail != 0 {
        let s = src.view(split_num * FLOAT_REPEAT + range * MAX_REPEAT * rp.src_k);
        whole_reduce::<true>(kind, &dst.view(range * MAX_REPEAT), &s, mask, tail as u8, 1, src_rep);
    }
}

/// `BigBlockReduceMax` / `BigBlockReduceSum` (`k >= 512`).
#[track_caller]
pub(crate) fn big_block(kind: Kind, dst: &F, src: &F, split_block: usize, split_m: usize, split_k: usize) {
    for i in 0..split_m {
        block_reduce(kind, &dst.view(FLOAT_REPEAT * i), &src.view(i * split_k), FLOAT_BLK as u8, 1, 1, 8);
    }
    let remain = (split_block - FLOAT_BLK) as u8;
    if remain == 0 {
        return;
    }
    pipe_barrier::<PIPE_V>();
    for j in 0..split_m {
        let d = dst.view(j * FLOAT_REPEAT);
        op::<false>(
            kind,
            &d,
            &src.view(BIG_BLOCK_LEN + j * split_k),
            &d,
            MASK_PLACEHOLDER,
            remain,
            &bin(1, 1, 1, 0, 8, 0),
        );
    }
}

/// `NextBlockMaxImpl` / `NextBlockAddImpl` (`128 <= k < 512`, the groups after the first two).
#[track_caller]
fn next_block(kind: Kind, dst: &F, src: &F, split_m: u8, src_rep: u8, split_block: usize, src_k: usize) {
    if usize::from(split_m) > split_block {
        for i in 2..split_block {
            pipe_barrier::<PIPE_V>();
            let p = bin(1, 1, 1, 8, 8, src_rep);
            op::<false>(kind, dst, dst, &src.view(FLOAT_REPEAT * i), MASK_PLACEHOLDER, split_m, &p);
        }
    } else {
        pipe_barrier::<PIPE_V>();
        for j in 0..usize::from(split_m) {
            let d = dst.view(j * FLOAT_REPEAT);
            let s = src.view(HALF_REPEAT + j * src_k);
            op::<false>(kind, &d, &s, &d, MASK_PLACEHOLDER, (split_block - 2) as u8, &bin(1, 1, 1, 0, 8, 0));
        }
    }
}

/// `FirstBlockCopyImpl` (`64 <= k < 128`; the chip's `Copy`, not the CPU-debug `DataCopy`).
#[track_caller]
fn first_block_copy(dst: &F, src: &F, src_m: usize, src_k: usize, src_rep: u16) {
    let (range, tail) = (src_m / MAX_REPEAT, src_m % MAX_REPEAT);
    let p = CopyRepeatParams::new(1, 1, 8, src_rep);
    for i in 0..range {
        let (d, s) = (dst.view(i * MAX_REPEAT * FLOAT_REPEAT), src.view(i * MAX_REPEAT * src_k));
        copy_masked::<f32, false>(&d, &s, MASK_PLACEHOLDER, MAX_REPEAT as u8, &p);
    }
    if tail != 0 {
        let (d, s) = (dst.view(range * MAX_REPEAT * FLOAT_REPEAT), src.view(range * MAX_REPEAT * src_k));
        copy_masked::<f32, false>(&d, &s, MASK_PLACEHOLDER, tail as u8, &p);
    }
}

/// `TailMaxImpl` / `TailAddImpl`: the last `mask` (< 64) values of each row into the 64
/// partial results.
#[track_caller]
fn tail_reduce(kind: Kind, dst: &F, src: &F, rp: &ReduceLastNd, mask: u64, src_rep: u8, split_count: usize) {
    let start = FLOAT_REPEAT * split_count;
    if rp.src_k > MAX_REPEAT_STRIDE {
        for i in 0..rp.original_src_m {
            let d = dst.view(i * FLOAT_REPEAT);
            op::<true>(kind, &d, &d, &src.view(start + i * rp.src_k), mask, 1, &bin(1, 1, 1, 8, 8, 8));
        }
    } else {
        let (range, tail) = (rp.original_src_m / MAX_REPEAT, rp.original_src_m % MAX_REPEAT);
        let p = bin(1, 1, 1, 8, 8, src_rep);
        for i in 0..range {
            let d = dst.view(i * MAX_REPEAT * FLOAT_REPEAT);
            op::<true>(
                kind,
                &d,
                &d,
                &src.view(start + i * MAX_REPEAT * rp.src_k),
                mask,
                MAX_REPEAT as u8,
                &p,
            );
        }
        if tail != 0 {
            let d = dst.view(range * MAX_REPEAT * FLOAT_REPEAT);
            op::<true>(kind, &d, &d, &src.view(start + range * MAX_REPEAT * rp.src_k), mask, tail as u8, &p);
        }
    }
}

/// `BasicBlockReduceMaxImpl` / `BasicBlockReduceSumImpl`: the 64 partial results of each row
/// to one value.
#[track_caller]
fn basic_block_reduce(kind: Kind, dst: &F, src: &F, original_src_m: usize, reduce_k: usize) {
    if original_src_m == 1 {
        whole_reduce::<false>(kind, dst, src, MASK_PLACEHOLDER, 8, 1, 0);
        if reduce_k == 2 * FLOAT_BLK {
            pipe_barrier::<PIPE_V>();
            data_copy_params(&dst.view(FLOAT_BLK), dst, &DataCopyParams::new(1, 1, 0, 0));
        }
    } else {
        set_mask_count();
        set_vector_mask::<f32>((original_src_m * FLOAT_REPEAT) as u64);
        block_reduce(kind, src, src, 1, 1, 1, 8);
        pipe_barrier::<PIPE_V>();
        set_vector_mask::<f32>((original_src_m * FLOAT_BLK) as u64);
        block_reduce(kind, dst, src, 1, 1, 1, 8);
        set_mask_norm();
        reset_mask();
    }
}

/// `AlignedBroadCastImpl`: each row's value (compact in `dst`) spread over `dst_k` elements,
/// through `tmp`.
#[track_caller]
fn aligned_broadcast(dst: &F, tmp: &F, rp: &ReduceLastNd) {
    let repeat = rp.original_src_m.div_ceil(8) as u8;
    if rp.dst_k == 2 * FLOAT_BLK {
        if rp.original_src_m != 1 {
            brcb(tmp, dst, repeat, &BrcbRepeatParams::new(2, 16));
            brcb(&tmp.view(8), dst, repeat, &BrcbRepeatParams::new(2, 16));
        } else {
            brcb(tmp, dst, repeat, &BrcbRepeatParams::new(1, 8));
            pipe_barrier::<PIPE_V>();
            data_copy_params(&tmp.view(FLOAT_BLK), tmp, &DataCopyParams::new(1, 1, 0, 0));
        }
    } else {
        brcb(tmp, dst, repeat, &BrcbRepeatParams::new(1, 8));
    }
    pipe_barrier::<PIPE_V>();
    set_mask_count();
    set_vector_mask::<f32>((rp.original_src_m * rp.dst_k) as u64);
    copy_masked::<f32, false>(dst, tmp, MASK_PLACEHOLDER, 1, &CopyRepeatParams::new(1, 1, 8, 8));
    set_mask_norm();
    reset_mask();
}

/// `NewReduceMaxLastNDImpl` / `NewReduceSumLastNDImpl` (with the broadcast): each row's
/// maximum or sum over its first `original_src_k` values, `dst_k` copies per row in `dst`;
/// `tmp` holds 64 floats per row.
#[track_caller]
pub(crate) fn reduce_last_nd(kind: Kind, dst: &F, src: &F, tmp: &F, rp: &ReduceLastNd) {
    let split_count = rp.original_src_k / FLOAT_REPEAT;
    let tail = rp.original_src_k % FLOAT_REPEAT;
    let src_rep = (rp.src_k / FLOAT_BLK) as u16;
    if rp.original_src_k < FLOAT_REPEAT {
        split_reduce(kind, dst, src, rp, rp.original_src_k as u64, 0);
        reset_mask();
    } else {
        if rp.original_src_k >= BIG_BLOCK_LEN {
            big_block(kind, tmp, src, split_count, rp.original_src_m, rp.src_k);
        } else if rp.original_src_k >= HALF_REPEAT {
            let m = rp.original_src_m as u8;
            let p = bin(1, 1, 1, 8, src_rep as u8, src_rep as u8);
            op::<false>(kind, tmp, src, &src.view(FLOAT_REPEAT), MASK_PLACEHOLDER, m, &p);
            next_block(kind, tmp, src, m, src_rep as u8, split_count, rp.src_k);
        } else {
            first_block_copy(tmp, src, rp.original_src_m, rp.src_k, src_rep);
        }
        if tail != 0 {
            pipe_barrier::<PIPE_V>();
            tail_reduce(kind, tmp, src, rp, tail as u64, src_rep as u8, split_count);
            reset_mask();
        }
        pipe_barrier::<PIPE_V>();
        basic_block_reduce(kind, dst, tmp, rp.original_src_m, rp.dst_k);
    }
    if rp.original_src_m != 1 || rp.original_src_k <= FLOAT_REPEAT {
        pipe_barrier::<PIPE_V>();
        aligned_broadcast(dst, tmp, rp);
    }
}

/// `GenericSubNDImpl` (`div = false`) / `GenericDivNDImpl` (`div = true`): each row of `src0`
/// minus / divided by its row's value in `src1` (`src_reduce_k` per row), over all `src_k`
/// columns.
#[track_caller]
pub(crate) fn generic_nd(
    div: bool,
    dst: &F,
    src0: &F,
    src1: &F,
    original_src_m: usize,
    src_k: usize,
    src_reduce_k: usize,
) {
    let run = |d: &F, a: &F, b: &F, p: &BinaryRepeatParams| {
        if div {
            div_masked::<f32, false>(d, a, b, MASK_PLACEHOLDER, 1, p)
        } else {
            sub_masked::<f32, false>(d, a, b, MASK_PLACEHOLDER, 1, p)
        }
    };
    set_mask_count();
    if src_k < SUB_DIV_ROW_COLUMN {
        let dst_blk = (src_k / FLOAT_BLK) as u8;
        let src1_blk = (src_reduce_k / FLOAT_BLK) as u8;
        set_vector_mask::<f32>((original_src_m * FLOAT_BLK) as u64);
        let p = bin(dst_blk, dst_blk, src1_blk, src_k as u8, src_k as u8, src_reduce_k as u8);
        for j in 0..usize::from(dst_blk) {
            run(&dst.view(j * FLOAT_BLK), &src0.view(j * FLOAT_BLK), src1, &p);
        }
    } else {
        set_vector_mask::<f32>(src_k as u64);
        let p = bin(1, 1, 0, 8, 8, 0);
        for j in 0..original_src_m {
            run(&dst.view(j * src_k), &src0.view(j * src_k), &src1.view(j * src_reduce_k), &p);
        }
    }
    set_mask_norm();
    reset_mask();
}

// ---- SoftMax -------------------------------------------------------------------------------

/// `SingleSoftMaxImpl` for `half`: one round of rows, in float in the temporary buffer.
#[track_caller]
fn single_half(
    dst: &LocalTensor<f16>,
    src: &LocalTensor<f16>,
    work: &F,
    tiling: &SoftMaxTiling,
    offset: usize,
    split_size: usize,
    rp: &ReduceLastNd,
) {
    let (ss, rs) = (tiling.split_size as usize, tiling.reduce_size as usize);
    let (tmp0, tmp1, tmp2) = (work.view(0), work.view(ss), work.view(ss + rs));
    let (src_k, reduce_k) = (tiling.src_k as usize, tiling.reduce_k as usize);
    cast(&tmp0, &src.view(offset), RoundMode::CastNone, split_size);
    pipe_barrier::<PIPE_V>();
    reduce_last_nd(Kind::Max, &tmp1, &tmp0, &tmp2, rp);
    pipe_barrier::<PIPE_V>();
    generic_nd(false, &tmp0, &tmp0, &tmp1, rp.original_src_m, src_k, reduce_k);
    pipe_barrier::<PIPE_V>();
    exp(&tmp0, &tmp0, split_size);
    pipe_barrier::<PIPE_V>();
    reduce_last_nd(Kind::Sum, &tmp1, &tmp0, &tmp2, rp);
    pipe_barrier::<PIPE_V>();
    generic_nd(true, &tmp0, &tmp0, &tmp1, rp.original_src_m, src_k, reduce_k);
    pipe_barrier::<PIPE_V>();
    cast(&dst.view(offset), &tmp0, RoundMode::CastRound, split_size);
}

/// `SingleSoftMaxImpl` for `float`: one round of rows, in `dst` (and `src` with
/// `IS_REUSE_SOURCE`).
#[allow(clippy::too_many_arguments)]
#[track_caller]
fn single_float(
    dst: &F,
    src: &F,
    work: &F,
    tiling: &SoftMaxTiling,
    offset: usize,
    split_size: usize,
    rp: &ReduceLastNd,
    reuse: bool,
) {
    let (tmp0, tmp1) = (work.view(0), work.view(tiling.reduce_size as usize));
    let (src_k, reduce_k) = (tiling.src_k as usize, tiling.reduce_k as usize);
    let (d, s) = (dst.view(offset), src.view(offset));
    reduce_last_nd(Kind::Max, &tmp0, &s, &tmp1, rp);
    pipe_barrier::<PIPE_V>();
    generic_nd(false, &d, &s, &tmp0, rp.original_src_m, src_k, reduce_k);
    pipe_barrier::<PIPE_V>();
    let e = if reuse { &s } else { &d };
    exp(e, &d, split_size);
    pipe_barrier::<PIPE_V>();
    reduce_last_nd(Kind::Sum, &tmp0, e, &tmp1, rp);
    pipe_barrier::<PIPE_V>();
    generic_nd(true, &d, e, &tmp0, rp.original_src_m, src_k, reduce_k);
}

/// `SoftMaxGenericNDImpl` for `float` with `sumTensor`/`maxTensor` of `float`: the results go
/// to `max`/`sum` directly, the work buffer is the reductions' scratch only.
#[allow(clippy::too_many_arguments)]
#[track_caller]
pub(crate) fn generic_float(dst: &F, sum: &F, max: &F, src: &F, work: &F, tiling: &SoftMaxTiling, r: &Round) {
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
    pipe_barrier::<PIPE_V>();
    generic_nd(true, &d, &d, &sm, r.rp.original_src_m, src_k, reduce_k);
}

/// `SoftMaxGenericNDImpl` for `half` with `sumTensor`/`maxTensor` of `half`: the row results
/// in `float` in the work buffer, narrowed into `max`/`sum` (`CAST_ROUND`). `post` runs on the
/// float quotients before their narrowing (`LogSoftMax`'s logarithm; nothing for `SoftMax`).
#[allow(clippy::too_many_arguments)]
#[track_caller]
pub(crate) fn generic_half_half(
    dst: &LocalTensor<f16>,
    sum: &LocalTensor<f16>,
    max: &LocalTensor<f16>,
    src: &LocalTensor<f16>,
    work: &F,
    tiling: &SoftMaxTiling,
    r: &Round,
    post: impl Fn(&F),
) {
    let (ss, rs) = (tiling.split_size as usize, tiling.reduce_size as usize);
    let (tmp0, tmp2, tmp3) = (work.view(0), work.view(ss), work.view(ss + rs));
    let (src_k, reduce_k, m) = (tiling.src_k as usize, tiling.reduce_k as usize, r.rp.original_src_m);
    cast(&tmp0, &src.view(r.offset1), RoundMode::CastNone, r.split_size);
    pipe_barrier::<PIPE_V>();
    reduce_last_nd(Kind::Max, &tmp2, &tmp0, &tmp3, &r.rp);
    pipe_barrier::<PIPE_V>();
    cast(&max.view(r.offset2), &tmp2, RoundMode::CastRound, r.reduce_size);
    pipe_barrier::<PIPE_V>();
    generic_nd(false, &tmp0, &tmp0, &tmp2, m, src_k, reduce_k);
    pipe_barrier::<PIPE_V>();
    exp(&tmp0, &tmp0, r.split_size);
    pipe_barrier::<PIPE_V>();
    reduce_last_nd(Kind::Sum, &tmp2, &tmp0, &tmp3, &r.rp);
    pipe_barrier::<PIPE_V>();
    cast(&sum.view(r.offset2), &tmp2, RoundMode::CastRound, r.reduce_size);
    pipe_barrier::<PIPE_V>();
    generic_nd(true, &tmp0, &tmp0, &tmp2, m, src_k, reduce_k);
    pipe_barrier::<PIPE_V>();
    post(&tmp0);
    cast(&dst.view(r.offset1), &tmp0, RoundMode::CastRound, r.split_size);
}

/// `SoftMaxGenericNDImpl` for `half` with `sumTensor`/`maxTensor` of `float`: the row results
/// go to `max`/`sum` directly.
#[track_caller]
pub(crate) fn generic_half_float(
    dst: &LocalTensor<f16>,
    sum: &F,
    max: &F,
    src: &LocalTensor<f16>,
    work: &F,
    tiling: &SoftMaxTiling,
    r: &Round,
) {
    let (tmp0, tmp1) = (work.view(0), work.view(tiling.split_size as usize));
    let (src_k, reduce_k, m) = (tiling.src_k as usize, tiling.reduce_k as usize, r.rp.original_src_m);
    let (mx, sm) = (max.view(r.offset2), sum.view(r.offset2));
    cast(&tmp0, &src.view(r.offset1), RoundMode::CastNone, r.split_size);
    pipe_barrier::<PIPE_V>();
    reduce_last_nd(Kind::Max, &mx, &tmp0, &tmp1, &r.rp);
    pipe_barrier::<PIPE_V>();
    generic_nd(false, &tmp0, &tmp0, &mx, m, src_k, reduce_k);
    pipe_barrier::<PIPE_V>();
    exp(&tmp0, &tmp0, r.split_size);
    pipe_barrier::<PIPE_V>();
    reduce_last_nd(Kind::Sum, &sm, &tmp0, &tmp1, &r.rp);
    pipe_barrier::<PIPE_V>();
    generic_nd(true, &tmp0, &tmp0, &sm, m, src_k, reduce_k);
    pipe_barrier::<PIPE_V>();
    cast(&dst.view(r.offset1), &tmp0, RoundMode::CastRound, r.split_size);
}

/// Floats of temporary buffer one round of `tiling` touches: the widened round (`half`
/// source), the reduction results where they are not written to `maxTensor`/`sumTensor` of
/// `float`, and 64 per row of scratch. `stat` is the outputs' element size (`None`: no outputs).
pub(crate) fn work_needed(
    half: bool,
    stat: Option<usize>,
    basic_block: bool,
    tiling: &SoftMaxTiling,
) -> usize {
    let (scratch, split, reduce) =
        (tiling.split_m as usize * FLOAT_REPEAT, tiling.split_size as usize, tiling.reduce_size as usize);
    if basic_block {
        // SoftMaxBasicBlock: the widened round (half), 64 per row, the row results.
        let results = (tiling.split_m as usize).div_ceil(FLOAT_BLK) * FLOAT_BLK;
        return if half { split + scratch + results } else { scratch + results };
    }
    match (half, stat) {
        (true, None | Some(2)) => split + reduce + scratch,
        (true, Some(_)) => split + scratch,
        (false, None) => reduce + scratch,
        (false, Some(_)) => scratch,
    }
}

/// Ascend910B only (the `membase/v220` path; Ascend310P's `v200` is not modelled).
#[track_caller]
pub(crate) fn check_910b(api: &'static str) {
    let soc = get_soc();
    ensure(soc == Soc::Ascend910B, api, || {
        format!(
            "{api} is modelled on Ascend910B only (the vendor's membase/v220 implementation); {soc} ({}) uses \
             another implementation, not modelled here",
            soc.product_line()
        )
    });
}

/// Every operand in the Unified Buffer.
#[track_caller]
pub(crate) fn check_ub(api: &'static str, operands: &[(&'static str, crate::position::TPosition)]) {
    for &(name, pos) in operands {
        ensure(pos.is_ub(), api, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
    }
}

/// `softmaxShapeInfo`'s checks (as `SoftMax`'s).
#[track_caller]
pub(crate) fn check_shape<T: Element>(api: &'static str, shape: &SoftMaxShapeInfo) {
    ensure(shape.src_m != 0 && shape.src_k != 0, api, || {
        format!(
            "softmaxShapeInfo = {{srcM = {}, srcK = {}}}: a 0 takes the shape from the tensor's ShapeInfo, which \
             these tensors do not carry; pass the shape",
            shape.src_m, shape.src_k
        )
    });
    ensure(shape.src_k as usize * T::SIZE % 32 == 0, api, || {
        format!(
            "softmaxShapeInfo.srcK = {} ({} bytes of {}) is not 32-byte aligned",
            shape.src_k,
            shape.src_k as usize * T::SIZE,
            T::DTYPE
        )
    });
    ensure(shape.ori_src_k >= 1 && shape.ori_src_k <= shape.src_k, api, || {
        format!("softmaxShapeInfo.oriSrcK = {} is out of range [1, srcK = {}]", shape.ori_src_k, shape.src_k)
    });
    ensure(shape.ori_src_m >= 1 && shape.ori_src_m <= shape.src_m, api, || {
        format!("softmaxShapeInfo.oriSrcM = {} is out of range [1, srcM = {}]", shape.ori_src_m, shape.src_m)
    });
}

/// The checks both forms make, and the tiling in effect (recomputed in the kernel for another
/// shape, with 32-byte blocks of the outputs' type, `float` without outputs).
#[allow(clippy::too_many_arguments)]
#[track_caller]
fn prepare<T: SoftMaxElement>(
    is_basic_block: bool,
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: &LocalTensor<u8>,
    tiling: &SoftMaxTiling,
    shape: &SoftMaxShapeInfo,
    stat: Option<usize>,
) -> SoftMaxTiling {
    check_910b(API);
    check_ub(
        API,
        &[
            ("dstTensor", dst.get_position()),
            ("srcTensor", src.get_position()),
            ("sharedTmpBuffer", tmp.get_position()),
        ],
    );
    check_shape::<T>(API, shape);
    let work = tmp.get_size() / 4;
    let tiling = if shape.src_k != tiling.src_k || shape.src_m != tiling.src_m {
        let per_blk = (32 / stat.unwrap_or(4)) as u32;
        device_tiling(work, shape.src_m, shape.src_k, shape.ori_src_m, T::SIZE, per_blk, is_basic_block)
    } else {
        *tiling
    };
    ensure(tiling.split_m > 0 && tiling.split_k == shape.src_k, API, || {
        format!(
            "tiling has splitM = {} and splitK = {} for srcK = {}; fill it with SoftMaxTilingFunc",
            tiling.split_m, tiling.split_k, shape.src_k
        )
    });
    let need = work_needed(T::DTYPE == DType::F16, stat, is_basic_block && stat.is_some(), &tiling);
    ensure(work >= need, API, || {
        format!(
            "sharedTmpBuffer has {} bytes, less than the {} bytes the tiling's rounds of splitM = {} rows of {} \
             need; make the tiling with SoftMaxTilingFunc for this buffer's size",
            tmp.get_size(),
            need * 4,
            tiling.split_m,
            T::DTYPE
        )
    });
    let total = tiling.range_m as usize * tiling.split_size as usize + tiling.tail_split_size as usize;
    for (name, t) in [("srcTensor", src), ("dstTensor", dst)] {
        ensure(total <= t.get_size(), API, || {
            format!(
                "the tiling's {} rows of srcK = {} ({total} elements) exceed {name}'s {} {} elements",
                u64::from(tiling.range_m) * u64::from(tiling.split_m) + u64::from(tiling.tail_m),
                tiling.src_k,
                t.get_size(),
                T::DTYPE
            )
        });
    }
    let (d, s) = (whole("dstTensor", dst), whole("srcTensor", src));
    let t = ("sharedTmpBuffer", tmp.get_phy_addr(), tmp.get_phy_addr() + tmp.get_size());
    check_apart(API, &[(t, s), (t, d)]);
    if d.1 != s.1 {
        check_apart(API, &[(d, s)]);
    }
    tiling
}

/// One round of rows: where it starts in the source (`offset1`) and in the outputs
/// (`offset2`), its elements and the reduction parameters.
pub(crate) struct Round {
    pub(crate) offset1: usize,
    pub(crate) offset2: usize,
    pub(crate) split_size: usize,
    pub(crate) reduce_size: usize,
    pub(crate) rp: ReduceLastNd,
}

/// The rounds of `SoftMaxNDImpl`/`SoftMaxNDExtImpl`: normal mode with the full mask, then
/// `range_m` rounds of `split_m` rows and, if `tail_m` is not 0, one of `tail_m` rows.
#[track_caller]
pub(crate) fn rounds(tiling: &SoftMaxTiling, ori_src_k: u32, mut f: impl FnMut(&Round)) {
    set_mask_norm();
    reset_mask();
    let mut r = Round {
        offset1: 0,
        offset2: 0,
        split_size: tiling.split_size as usize,
        reduce_size: tiling.reduce_size as usize,
        rp: ReduceLastNd {
            original_src_m: tiling.split_m as usize,
            original_src_k: ori_src_k as usize,
            src_m: tiling.split_m as usize,
            src_k: tiling.split_k as usize,
            dst_k: tiling.reduce_k as usize,
        },
    };
    pipe_barrier::<PIPE_V>();
    let range_m = tiling.range_m as usize;
    for i in 0..=range_m {
        f(&r);
        r.offset1 += tiling.split_size as usize;
        r.offset2 += tiling.reduce_size as usize;
        if i + 1 == range_m {
            if tiling.tail_m == 0 {
                break;
            }
            r.offset1 = range_m * tiling.split_size as usize;
            r.offset2 = range_m * tiling.reduce_size as usize;
            r.split_size = tiling.tail_split_size as usize;
            r.reduce_size = tiling.tail_reduce_size as usize;
            r.rp.original_src_m = tiling.tail_m as usize;
            r.rp.src_m = tiling.tail_m as usize;
            pipe_barrier::<PIPE_V>();
        }
    }
}

/// `SoftMaxImpl` + `SoftMaxNDImpl` (no `sumTensor`/`maxTensor`).
#[track_caller]
fn soft_max_impl<T: SoftMaxElement, const IS_REUSE_SOURCE: bool, const IS_BASIC_BLOCK: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: &LocalTensor<u8>,
    tiling: &SoftMaxTiling,
    shape: &SoftMaxShapeInfo,
) {
    let tiling = prepare(IS_BASIC_BLOCK, dst, src, tmp, tiling, shape, None);
    let work = tmp.reinterpret_cast::<f32>();
    rounds(&tiling, shape.ori_src_k, |r| {
        if T::DTYPE == DType::F16 {
            let (d, s) = (dst.reinterpret_cast::<f16>(), src.reinterpret_cast::<f16>());
            single_half(&d, &s, &work, &tiling, r.offset1, r.split_size, &r.rp);
        } else {
            let (d, s) = (dst.reinterpret_cast::<f32>(), src.reinterpret_cast::<f32>());
            single_float(&d, &s, &work, &tiling, r.offset1, r.split_size, &r.rp, IS_REUSE_SOURCE);
        }
    });
}

/// `BasicBlockMaxImpl` / `BasicBlockAddImpl`: each row's 64-value groups into its 64 partial
/// results (the first two combined, then the others one by one).
#[track_caller]
pub(crate) fn basic_block_op(kind: Kind, dst: &F, src: &F, split_m: u8, offset: u8, split_block: usize) {
    op::<false>(
        kind,
        dst,
        src,
        &src.view(FLOAT_REPEAT),
        MASK_PLACEHOLDER,
        split_m,
        &bin(1, 1, 1, 8, offset, offset),
    );
    if usize::from(split_m) > split_block {
        for i in 2..split_block {
            pipe_barrier::<PIPE_V>();
            let p = bin(1, 1, 1, 8, 8, offset);
            op::<false>(kind, dst, dst, &src.view(FLOAT_REPEAT * i), MASK_PLACEHOLDER, split_m, &p);
        }
    } else {
        pipe_barrier::<PIPE_V>();
        for j in 0..usize::from(split_m) {
            let d = dst.view(j * FLOAT_REPEAT);
            let s = src.view(2 * FLOAT_REPEAT + split_block * FLOAT_REPEAT * j);
            op::<false>(kind, &d, &s, &d, MASK_PLACEHOLDER, (split_block - 2) as u8, &bin(1, 1, 1, 0, 8, 0));
        }
    }
}

/// The basic block's row reduction: the 64 partial results per row in `tmp1` (one
/// `BlockReduce` when `k = 64`), their 8 block results, and one value per row in `results`.
#[track_caller]
fn bb_row_reduce(kind: Kind, tmp1: &F, data: &F, results: &F, tiling: &SoftMaxTiling) {
    let split_m = tiling.split_m as u8;
    let split_block = tiling.split_k as usize / FLOAT_REPEAT;
    let offset = (FLOAT_BLK * split_block) as u8;
    if split_block == 1 {
        block_reduce(kind, tmp1, data, split_m, 1, 1, 8);
    } else {
        basic_block_op(kind, tmp1, data, split_m, offset, split_block);
        pipe_barrier::<PIPE_V>();
        block_reduce(kind, tmp1, tmp1, split_m, 1, 1, 8);
    }
    pipe_barrier::<PIPE_V>();
    block_reduce(kind, results, tmp1, (tiling.split_m as usize).div_ceil(FLOAT_BLK) as u8, 1, 1, 8);
    pipe_barrier::<PIPE_V>();
}

/// `Sub` / `Div` of the basic block: each 64-column group of each row against the row's value
/// (`row_blocks` blocks per row in `src1`).
#[track_caller]
fn basic_block_arith(div: bool, dst: &F, src0: &F, src1: &F, tiling: &SoftMaxTiling, row_blocks: u8) {
    let split_block = tiling.split_k as usize / FLOAT_REPEAT;
    let offset = (FLOAT_BLK * split_block) as u8;
    let p = bin(1, 1, 0, offset, offset, row_blocks);
    for j in 0..split_block {
        let (d, a) = (dst.view(FLOAT_REPEAT * j), src0.view(FLOAT_REPEAT * j));
        if div {
            div_masked::<f32, false>(&d, &d, src1, MASK_PLACEHOLDER, tiling.split_m as u8, &p);
        } else {
            sub_masked::<f32, false>(&d, &a, src1, MASK_PLACEHOLDER, tiling.split_m as u8, &p);
        }
    }
}

/// `SoftMaxBasicBlock` for `float` with `float` outputs (one round at `offset1`/`offset2`).
#[allow(clippy::too_many_arguments)]
#[track_caller]
fn basic_block_float(
    dst: &F,
    sum: &F,
    max: &F,
    src: &F,
    work: &F,
    tiling: &SoftMaxTiling,
    o1: usize,
    o2: usize,
) {
    let (tmp1, tmp2) = (work.view(0), work.view(tiling.split_m as usize * FLOAT_REPEAT));
    let ceil_m = (tiling.split_m as usize).div_ceil(FLOAT_BLK) as u8;
    let (d, s, mx, sm) = (dst.view(o1), src.view(o1), max.view(o2), sum.view(o2));
    set_mask_norm();
    reset_mask();
    bb_row_reduce(Kind::Max, &tmp1, &s, &tmp2, tiling);
    brcb(&mx, &tmp2, ceil_m, &BrcbRepeatParams::new(1, 8));
    pipe_barrier::<PIPE_V>();
    basic_block_arith(false, &d, &s, &mx, tiling, 1);
    pipe_barrier::<PIPE_V>();
    let repeat = (tiling.split_size as usize / FLOAT_REPEAT) as u8;
    exp_masked::<f32, false>(&d, &d, MASK_PLACEHOLDER, repeat, &UnaryRepeatParams::new(1, 1, 8, 8));
    pipe_barrier::<PIPE_V>();
    bb_row_reduce(Kind::Sum, &tmp1, &d, &tmp2, tiling);
    brcb(&sm, &tmp2, ceil_m, &BrcbRepeatParams::new(1, 8));
    pipe_barrier::<PIPE_V>();
    basic_block_arith(true, &d, &d, &sm, tiling, 1);
    pipe_barrier::<PIPE_V>();
}

/// `SoftMaxBasicBlock` for `half`, with `half` outputs (`max`/`sum` `Some` of `half`, narrowed
/// from 16 copies per row in the work buffer) or `float` outputs (written 8 per row).
#[allow(clippy::too_many_arguments)]
#[track_caller]
fn basic_block_half<T2: Element>(
    dst: &LocalTensor<f16>,
    sum: &LocalTensor<T2>,
    max: &LocalTensor<T2>,
    src: &LocalTensor<f16>,
    work: &F,
    tiling: &SoftMaxTiling,
    o1: usize,
    o2: usize,
) {
    let (ss, m) = (tiling.split_size as usize, tiling.split_m as usize);
    let (tmp0, tmp1, red) = (work.view(0), work.view(ss), work.view(ss + m * FLOAT_REPEAT));
    let ceil_m = m.div_ceil(FLOAT_BLK) as u8;
    let repeat = (ss / FLOAT_REPEAT) as u8;
    let half_out = T2::DTYPE == DType::F16;
    set_mask_norm();
    reset_mask();
    cast_masked::<f32, f16, false>(
        &tmp0,
        &src.view(o1),
        RoundMode::CastNone,
        MASK_PLACEHOLDER,
        repeat,
        &UnaryRepeatParams::new(1, 1, 8, 4),
    );
    pipe_barrier::<PIPE_V>();
    for (kind, out) in [(Kind::Max, max), (Kind::Sum, sum)] {
        bb_row_reduce(kind, &tmp1, &tmp0, &red, tiling);
        if half_out {
            brcb(&tmp1, &red, ceil_m, &BrcbRepeatParams::new(2, 16));
            brcb(&tmp1.view(8), &red, ceil_m, &BrcbRepeatParams::new(2, 16));
            pipe_barrier::<PIPE_V>();
            let reduce_ceil = (tiling.reduce_size as usize).div_ceil(FLOAT_REPEAT) as u8;
            let o = out.reinterpret_cast::<f16>().view(o2);
            let p = UnaryRepeatParams::new(1, 1, 4, 8);
            cast_masked::<f16, f32, false>(
                &o,
                &tmp1,
                RoundMode::CastRound,
                MASK_PLACEHOLDER,
                reduce_ceil,
                &p,
            );
            pipe_barrier::<PIPE_V>();
            basic_block_arith(kind == Kind::Sum, &tmp0, &tmp0, &tmp1, tiling, 2);
        } else {
            let o = out.reinterpret_cast::<f32>().view(o2);
            brcb(&o, &red, ceil_m, &BrcbRepeatParams::new(1, 8));
            pipe_barrier::<PIPE_V>();
            basic_block_arith(kind == Kind::Sum, &tmp0, &tmp0, &o, tiling, 1);
        }
        pipe_barrier::<PIPE_V>();
        if kind == Kind::Max {
            exp_masked::<f32, false>(
                &tmp0,
                &tmp0,
                MASK_PLACEHOLDER,
                repeat,
                &UnaryRepeatParams::new(1, 1, 8, 8),
            );
            pipe_barrier::<PIPE_V>();
        }
    }
    let p = UnaryRepeatParams::new(1, 1, 4, 8);
    cast_masked::<f16, f32, false>(&dst.view(o1), &tmp0, RoundMode::CastRound, MASK_PLACEHOLDER, repeat, &p);
}

/// The basic block's conditions (the vendor's page and `IsBasicBlockInSoftMax`): `k` a multiple
/// of 64 in `[256 / sizeof(T), 2048)`, `m` a multiple of 8, and a tiling without a tail round
/// (`SoftMaxBasicBlock` computes `rangeM` rounds only).
#[track_caller]
fn check_basic_block<T: Element>(tiling: &SoftMaxTiling, shape: &SoftMaxShapeInfo) {
    let k = shape.src_k as usize;
    let min_k = 256 / T::SIZE;
    ensure(k % 64 == 0 && k >= min_k && k < 2048, API, || {
        format!(
            "isBasicBlock = true needs srcK a multiple of 64 in [{min_k}, 2048) for {}; srcK = {k}",
            T::DTYPE
        )
    });
    ensure(shape.src_m % 8 == 0, API, || {
        format!("isBasicBlock = true needs srcM a multiple of 8; srcM = {}", shape.src_m)
    });
    ensure(tiling.tail_m == 0, API, || {
        format!(
            "isBasicBlock = true needs a tiling without a tail round (IsBasicBlockInSoftMax): tailM = {} with \
             splitM = {} (SoftMaxBasicBlock computes the rangeM rounds only)",
            tiling.tail_m, tiling.split_m
        )
    });
}

/// `SoftMaxImpl` + `SoftMaxNDImpl` with `sumTensor`/`maxTensor` (ND).
#[allow(clippy::too_many_arguments)]
#[track_caller]
fn soft_max_ext_impl<T1: SoftMaxElement, T2: SoftMaxStatElement<T1>, const IS_BASIC_BLOCK: bool>(
    dst: &LocalTensor<T1>,
    sum: &LocalTensor<T2>,
    max: &LocalTensor<T2>,
    src: &LocalTensor<T1>,
    tmp: &LocalTensor<u8>,
    tiling: &SoftMaxTiling,
    shape: &SoftMaxShapeInfo,
) {
    let tiling = prepare(IS_BASIC_BLOCK, dst, src, tmp, tiling, shape, Some(T2::SIZE));
    for (name, t) in [("sumTensor", sum), ("maxTensor", max)] {
        let pos = t.get_position();
        ensure(pos.is_ub(), API, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
    }
    let rows = u64::from(tiling.range_m) * u64::from(tiling.split_m) + u64::from(tiling.tail_m);
    let total = (tiling.range_m as usize)
        .saturating_mul(tiling.reduce_size as usize)
        .saturating_add(tiling.tail_reduce_size as usize);
    for (name, t) in [("sumTensor", sum), ("maxTensor", max)] {
        ensure(total <= t.get_size(), API, || {
            format!(
                "{name} has {} {} elements, fewer than the tiling's {rows} rows of reduceK = {} ({total})",
                t.get_size(),
                T2::DTYPE,
                tiling.reduce_k
            )
        });
    }
    let (su, mx) = (span("sumTensor", sum, total), span("maxTensor", max, total));
    let (d, s) = (whole("dstTensor", dst), whole("srcTensor", src));
    let t = ("sharedTmpBuffer", tmp.get_phy_addr(), tmp.get_phy_addr() + tmp.get_size());
    check_apart(API, &[(su, mx), (su, s), (su, d), (su, t), (mx, s), (mx, d), (mx, t)]);
    let work = tmp.reinterpret_cast::<f32>();
    if IS_BASIC_BLOCK {
        check_basic_block::<T1>(&tiling, shape);
        set_mask_norm();
        reset_mask();
        pipe_barrier::<PIPE_V>();
        for i in 0..tiling.range_m as usize {
            let (o1, o2) = (i * tiling.split_size as usize, i * tiling.reduce_size as usize);
            if T1::DTYPE == DType::F32 {
                let (d, s) = (dst.reinterpret_cast::<f32>(), src.reinterpret_cast::<f32>());
                let (su, mx) = (sum.reinterpret_cast::<f32>(), max.reinterpret_cast::<f32>());
                basic_block_float(&d, &su, &mx, &s, &work, &tiling, o1, o2);
            } else {
                let (d, s) = (dst.reinterpret_cast::<f16>(), src.reinterpret_cast::<f16>());
                basic_block_half(&d, sum, max, &s, &work, &tiling, o1, o2);
            }
        }
        return;
    }
    rounds(&tiling, shape.ori_src_k, |r| match (T1::DTYPE, T2::DTYPE) {
        (DType::F32, _) => {
            let (d, s) = (dst.reinterpret_cast::<f32>(), src.reinterpret_cast::<f32>());
            let (su, mx) = (sum.reinterpret_cast::<f32>(), max.reinterpret_cast::<f32>());
            generic_float(&d, &su, &mx, &s, &work, &tiling, r);
        }
        (_, DType::F16) => {
            let (d, s) = (dst.reinterpret_cast::<f16>(), src.reinterpret_cast::<f16>());
            let (su, mx) = (sum.reinterpret_cast::<f16>(), max.reinterpret_cast::<f16>());
            generic_half_half(&d, &su, &mx, &s, &work, &tiling, r, |_| {});
        }
        _ => {
            let (d, s) = (dst.reinterpret_cast::<f16>(), src.reinterpret_cast::<f16>());
            let (su, mx) = (sum.reinterpret_cast::<f32>(), max.reinterpret_cast::<f32>());
            generic_half_float(&d, &su, &mx, &s, &work, &tiling, r);
        }
    });
}

/// Softmax along the last axis of the `[src_m, src_k]` source (AscendC `SoftMax<T,
/// isReuseSource, isBasicBlock>(dstTensor, srcTensor, sharedTmpBuffer, tiling,
/// softmaxShapeInfo)`, ND format): `dst = exp(x - max) / sum(exp(x - max))` row by row, over the
/// first `ori_src_k` columns (the padding columns up to `src_k` get values too).
///
/// As the vendor's `membase/v220` `SoftMaxNDImpl` on Ascend910B: normal mask mode with the full
/// mask, then `tiling.range_m` rounds of `tiling.split_m` rows and a tail round, each the
/// vendor's `SingleSoftMaxImpl` (see the module documentation for the order of the sums); the
/// tiling is recomputed from `shared_tmp_buffer`'s size when `shape_info`'s `src_m`/`src_k`
/// differ from `tiling`'s. `half` is computed in `float` in `shared_tmp_buffer`; `float` in
/// `dst`, and with `IS_REUSE_SOURCE` the exponentials go to `src` (its contents are lost). `dst`
/// may be `src`. `IS_BASIC_BLOCK` only changes the recomputed tiling (see the module
/// documentation). Leaves the core in normal mask mode with the full mask.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut t) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// let tmp_size = get_soft_max_min_tmp_size(&[4, 16], 4, false);
/// let tiling = soft_max_tiling_func(&[4, 16], 4, tmp_size);
/// pipe.init_tbuf(&mut a, 4 * 16 * 4);
/// pipe.init_tbuf(&mut b, 4 * 16 * 4);
/// pipe.init_tbuf(&mut t, tmp_size as usize);
/// let (x, y) = (a.get::<f32>(), b.get::<f32>());
/// x.copy_from_slice(&[1.0f32; 64]);
/// soft_max::<f32, false, false>(&y, &x, &t.get::<u8>(), &tiling, &SoftMaxShapeInfo::new(4, 16, 4, 16));
/// assert_eq!(y.get_value(0), 1.0 / 16.0);
/// ```
///
/// # Panics
/// Panics if the chip is not Ascend910B; a tensor is not in the Unified Buffer; `shape_info.src_m` or `src_k` is 0, `src_k` is not 32-byte
/// aligned, or `ori_src_k`/`ori_src_m` is 0 or exceeds `src_k`/`src_m`; the tiling's rounds need
/// more temporary buffer than `shared_tmp_buffer` (or none fits one row); the rows exceed
/// `src` or `dst`; `shared_tmp_buffer` overlaps `src` or `dst`, or `dst` overlaps `src` other
/// than at the same address; or any instruction's own check fails.
#[track_caller]
pub fn soft_max<T: SoftMaxElement, const IS_REUSE_SOURCE: bool, const IS_BASIC_BLOCK: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    tiling: &SoftMaxTiling,
    shape_info: &SoftMaxShapeInfo,
) {
    soft_max_impl::<T, IS_REUSE_SOURCE, IS_BASIC_BLOCK>(dst, src, shared_tmp_buffer, tiling, shape_info);
}

/// [`soft_max`] with the temporary buffer from the stack buffer (AscendC `SoftMax<T,
/// isReuseSource, isBasicBlock>(dstTensor, srcTensor, tiling, softmaxShapeInfo)`, whose buffer is
/// `PopStackBuffer`'s: the Unified Buffer after the `TPipe`'s buffers).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut a = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut a, 8 * 32 * 2);
/// let x = a.get::<f16>();
/// x.copy_from_slice(&[f16::from_f32(0.5); 256]);
/// // A tiling for the whole shape; the stack buffer is larger, the tiling is used as is.
/// let tiling = soft_max_tiling_func(&[8, 32], 2, get_soft_max_max_tmp_size(&[8, 32], 2, false));
/// soft_max_stack::<f16, false, false>(&x, &x, &tiling, &SoftMaxShapeInfo::new(8, 32, 8, 32));
/// assert_eq!(x.get_value(0).to_f32(), 1.0 / 32.0);
/// ```
///
/// # Panics
/// As [`soft_max`], and if the core has no `TPipe` or its buffers leave no stack buffer.
#[track_caller]
pub fn soft_max_stack<T: SoftMaxElement, const IS_REUSE_SOURCE: bool, const IS_BASIC_BLOCK: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tiling: &SoftMaxTiling,
    shape_info: &SoftMaxShapeInfo,
) {
    let tmp = stack_tensor(API);
    soft_max_impl::<T, IS_REUSE_SOURCE, IS_BASIC_BLOCK>(dst, src, &tmp, tiling, shape_info);
}

/// Softmax along the last axis with the row maxima and sums as outputs (AscendC `SoftMax<T1,
/// T2, isReuseSource, isBasicBlock>(dstTensor, sumTensor, maxTensor, srcTensor, sharedTmpBuffer,
/// tiling, softmaxShapeInfo)`, ND format; with `T1 = T2` the vendor's same-type overload
/// `SoftMax<T, …>`).
///
/// As [`soft_max`], with the vendor's `SoftMaxNDExtImpl`: each round's row maxima and sums,
/// `tiling.reduce_k` copies per row (one 32-byte block of the type the tiling was made for),
/// are written to `max_tensor` and `sum_tensor` at `round * reduce_size`, and `Sub`/`Div` read
/// them from there (`float` outputs) or from the temporary buffer (`half` outputs, narrowed
/// with `CAST_ROUND` — `dst` is computed with the unrounded `float` values). When the kernel
/// recomputes the tiling (another shape), `reduce_k` is one block of `T2`. With
/// `IS_BASIC_BLOCK`, the vendor's `SoftMaxBasicBlock` (see the module documentation).
/// `IS_REUSE_SOURCE` is reserved (the vendor's ND implementation ignores it).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut t) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// let tiling = soft_max_tiling_func(&[2, 16], 4, get_soft_max_max_tmp_size(&[2, 16], 4, false));
/// pipe.init_tbuf(&mut a, 2 * 16 * 4);
/// pipe.init_tbuf(&mut b, 2 * 2 * 8 * 4);
/// pipe.init_tbuf(&mut t, get_soft_max_max_tmp_size(&[2, 16], 4, false) as usize);
/// let x = a.get::<f32>();
/// let (sum, max) = (b.get_with_offset::<f32>(16, 0), b.get_with_offset::<f32>(16, 64));
/// x.copy_from_slice(&[2.0f32; 32]);
/// let info = SoftMaxShapeInfo::new(2, 16, 2, 16);
/// soft_max_with_sum_max::<f32, f32, false, false>(&x, &sum, &max, &x, &t.get::<u8>(), &tiling, &info);
/// assert_eq!((x.get_value(0), max.get_value(15), sum.get_value(8)), (1.0 / 16.0, 2.0, 16.0));
/// ```
///
/// # Panics
/// As [`soft_max`], and if `sum_tensor` or `max_tensor` is not in the Unified Buffer, holds fewer
/// than the tiling's rows times `reduce_k` elements, or overlaps another operand; with
/// `IS_BASIC_BLOCK`, if `src_k` is not a multiple of 64 in `[256 / sizeof(T1), 2048)`, `src_m`
/// not a multiple of 8, or the tiling has a tail round.
#[allow(clippy::too_many_arguments)]
#[track_caller]
pub fn soft_max_with_sum_max<
    T1: SoftMaxElement,
    T2: SoftMaxStatElement<T1>,
    const IS_REUSE_SOURCE: bool,
    const IS_BASIC_BLOCK: bool,
>(
    dst: &LocalTensor<T1>,
    sum_tensor: &LocalTensor<T2>,
    max_tensor: &LocalTensor<T2>,
    src: &LocalTensor<T1>,
    shared_tmp_buffer: &LocalTensor<u8>,
    tiling: &SoftMaxTiling,
    shape_info: &SoftMaxShapeInfo,
) {
    soft_max_ext_impl::<T1, T2, IS_BASIC_BLOCK>(
        dst,
        sum_tensor,
        max_tensor,
        src,
        shared_tmp_buffer,
        tiling,
        shape_info,
    );
}

/// [`soft_max_with_sum_max`] with the temporary buffer from the stack buffer (AscendC
/// `SoftMax<T1, T2, isReuseSource, isBasicBlock>(dstTensor, sumTensor, maxTensor, srcTensor,
/// tiling, softmaxShapeInfo)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 4 * 32 * 2);
/// pipe.init_tbuf(&mut b, 2 * 4 * 8 * 4);
/// let x = a.get::<f16>();
/// let (sum, max) = (b.get_with_offset::<f32>(32, 0), b.get_with_offset::<f32>(32, 128));
/// x.copy_from_slice(&[f16::from_f32(3.0); 128]);
/// // A tiling made for another shape: the kernel recomputes it, with float blocks of 8.
/// let tiling = soft_max_tiling_func(&[1, 32], 2, 1024);
/// let info = SoftMaxShapeInfo::new(4, 32, 4, 32);
/// soft_max_with_sum_max_stack::<f16, f32, false, false>(&x, &sum, &max, &x, &tiling, &info);
/// assert_eq!((max.get_value(31), sum.get_value(0)), (3.0, 32.0));
/// ```
///
/// # Panics
/// As [`soft_max_with_sum_max`], and if the core has no `TPipe` or its buffers leave no stack
/// buffer.
#[track_caller]
pub fn soft_max_with_sum_max_stack<
    T1: SoftMaxElement,
    T2: SoftMaxStatElement<T1>,
    const IS_REUSE_SOURCE: bool,
    const IS_BASIC_BLOCK: bool,
>(
    dst: &LocalTensor<T1>,
    sum_tensor: &LocalTensor<T2>,
    max_tensor: &LocalTensor<T2>,
    src: &LocalTensor<T1>,
    tiling: &SoftMaxTiling,
    shape_info: &SoftMaxShapeInfo,
) {
    let tmp = stack_tensor(API);
    soft_max_ext_impl::<T1, T2, IS_BASIC_BLOCK>(dst, sum_tensor, max_tensor, src, &tmp, tiling, shape_info);
}

/// Element types of [`adjust_soft_max_res`]'s `softMaxRes`: `half` and `float`.
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(r: &LocalTensor<i16>, m: &LocalTensor<f32>) {
///     adjust_soft_max_res::<_, f32, 0>(r, m, 0, 0, &SoftMaxShapeInfo::default());
/// }
/// ```
pub trait AdjustSoftMaxResElement: SoftMaxElement + crate::vector::duplicate::DuplicateElement {}
impl AdjustSoftMaxResElement for f16 {}
impl AdjustSoftMaxResElement for f32 {}

/// Sets every row of `soft_max_res` whose maximum in `max_tensor` has the bits `from` to `to`,
/// and tells whether any did (AscendC `AdjustSoftMaxRes<T1, T2, isDataFormatNZ = false,
/// stepSizeMode>(softMaxRes, maxTensor, from, to, softmaxShapeInfo)`, ND format).
///
/// As the vendor's `AdjustSoftMaxResNDImpl` (`membase/common`): normal mode with the full mask,
/// a `V_S` flag so the scalar unit reads `max_tensor` after the vector unit wrote it, then
/// counter mode with `src_k` elements and, for each of the `src_m` rows whose maximum — element
/// `j * 32 / sizeof(T2)` (`STEP_SIZE_MODE = 0`, one 32-byte block per row) or element `j`
/// (otherwise) — has the bits `from` (its low 16 bits for `half`), one `Duplicate` of `to` over
/// the row's `src_k` elements. Leaves the core in normal mode with the full mask.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 2 * 8 * 4);
/// pipe.init_tbuf(&mut b, 2 * 8 * 4);
/// let (res, max) = (a.get::<f32>(), b.get::<f32>());
/// res.copy_from_slice(&[0.125f32; 16]);
/// max.copy_from_slice(&[[1.0f32; 8], [f32::MIN; 8]].concat());
/// let info = SoftMaxShapeInfo::new(2, 8, 2, 8);
/// assert!(adjust_soft_max_res::<f32, f32, 0>(&res, &max, 0xFF7F_FFFF, 0.0, &info));
/// assert_eq!((res.get_value(7), res.get_value(8)), (0.125, 0.0));
/// ```
///
/// # Panics
/// Panics if the chip is not Ascend910B; a tensor is not in the Unified Buffer;
/// `shape_info.src_k` is not 32-byte aligned; `soft_max_res` holds fewer than `src_m * src_k`
/// elements or `max_tensor` fewer than the rows it reads; or any instruction's own check
/// fails.
#[track_caller]
pub fn adjust_soft_max_res<T1: AdjustSoftMaxResElement, T2: SoftMaxElement, const STEP_SIZE_MODE: u8>(
    soft_max_res: &LocalTensor<T1>,
    max_tensor: &LocalTensor<T2>,
    from: u32,
    to: T1,
    shape_info: &SoftMaxShapeInfo,
) -> bool {
    const ADJ: &str = "AdjustSoftMaxRes";
    let soc = get_soc();
    ensure(soc == Soc::Ascend910B, ADJ, || {
        format!(
            "AdjustSoftMaxRes is modelled on Ascend910B only, with SoftMax; {soc} ({}) is not modelled here",
            soc.product_line()
        )
    });
    for (name, pos) in [("softMaxRes", soft_max_res.get_position()), ("maxTensor", max_tensor.get_position())]
    {
        ensure(pos.is_ub(), ADJ, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
    }
    let (m, k) = (shape_info.src_m as usize, shape_info.src_k as usize);
    ensure(k * T1::SIZE % 32 == 0, ADJ, || {
        format!(
            "softmaxShapeInfo.srcK = {k} ({} bytes of {}) is not 32-byte aligned",
            k * T1::SIZE,
            T1::DTYPE
        )
    });
    ensure(m * k <= soft_max_res.get_size(), ADJ, || {
        format!(
            "softmaxShapeInfo's {m} rows of srcK = {k} ({} elements) exceed softMaxRes's {} {} elements",
            m * k,
            soft_max_res.get_size(),
            T1::DTYPE
        )
    });
    let step = if STEP_SIZE_MODE != 0 { 1 } else { 32 / T2::SIZE };
    let reads = if m == 0 { 0 } else { (m - 1) * step + 1 };
    ensure(reads <= max_tensor.get_size(), ADJ, || {
        format!(
            "maxTensor has {} {} elements; the {m} rows read element {} (a step of {step})",
            max_tensor.get_size(),
            T2::DTYPE,
            reads - 1
        )
    });
    set_mask_norm();
    reset_mask();
    let e = <HardEvent::V_S as Event>::EVENT;
    let id = fetch_free_event("TPipe::FetchEventID", e);
    set_flag_event(e, id);
    wait_flag_event(e, id);
    let mut found = false;
    set_mask_count();
    set_vector_mask::<f32>(k as u64);
    for j in 0..m {
        let bits = max_tensor.get_value(j * step).to_bits_u64();
        let hit = if T2::SIZE == 4 { bits as u32 == from } else { bits as u16 == from as u16 };
        if hit {
            duplicate_masked::<T1, false>(&soft_max_res.view(j * k), to, MASK_PLACEHOLDER, 1, 1, 8);
            found = true;
        }
    }
    set_mask_norm();
    reset_mask();
    found
}

/// Whether `tiling` meets the basic block's conditions for a source of `data_type_size`-byte
/// elements (AscendC `IsBasicBlockInSoftMax(tiling, dataTypeSize)`): no tail round, and `srcK`
/// a multiple of 64 in `[256 / dataTypeSize, 2048)`.
///
/// ```
/// use ascend_core::prelude::*;
/// let t = soft_max_tiling_func(&[16, 128], 4, get_soft_max_max_tmp_size(&[16, 128], 4, false));
/// assert!(is_basic_block_in_soft_max(&t, 4));
/// assert!(!is_basic_block_in_soft_max(&soft_max_tiling_func(&[16, 32], 4, 4096), 4));
/// ```
///
/// # Panics
/// Never (a `data_type_size` of 0 gives `false`, as the vendor's).
pub fn is_basic_block_in_soft_max(tiling: &SoftMaxTiling, data_type_size: u32) -> bool {
    if data_type_size == 0 {
        return false;
    }
    let k = tiling.src_k;
    tiling.tail_m == 0 && k >= 256 / data_type_size && k < 2048 && k % 64 == 0
}
