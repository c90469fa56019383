//! The deprecated `SoftmaxFlash` of the advanced API (the vendor's `adv_api/activation/softmaxflash.h`,
//! page `SoftmaxFlash.md`, host page `SoftmaxFlash-Tiling接口.md`), ND format, written as the
//! vendor's `membase` implementation runs it on Ascend910B (`softmax_flash_base_impl.h`,
//! `softmax_common/softmax_common_flash.h`, `softmax_flash_base_impl/softmax_flash_nd_process_impl.h`
//! over the `membase/v220` building blocks), with the host helpers `GetSoftMaxFlashMaxTmpSize`,
//! `GetSoftMaxFlashMinTmpSize` and `SoftMaxFlashTilingFunc` (`impl/adv_api/tiling/activation/softmax_tiling.cpp`).
//!
//! `isUpdate` is a run-time argument, as in the vendor's signature (a kernel may pass `i > 0`).
//!
//! - `isUpdate = false`: the vendor calls `SoftMaxNDImpl<T1, T2>` — exactly
//!   [`soft_max_with_sum_max`](crate::adv::softmax::soft_max_with_sum_max)'s rounds (the page:
//!   "不开启update时，该接口等同于SoftMax"): `dst = exp(x - max) / sum`, `max`, `sum`.
//! - `isUpdate = true` (`SoftmaxFlashNDImpl`), per round of `splitM` rows, in `float` (a `half`
//!   source widened, `half` outputs narrowed with `CAST_ROUND`): `rmax = rowmax(x)` and
//!   `rsum = rowsum(exp(x - rmax))` with the *older* row reductions `ReduceMaxLastNDImpl` /
//!   `ReduceSumLastNDImpl` (per row: the 8 block sums of each 64-column group added group by
//!   group, their tree, plus the tree of the tail columns); `max = max(inMax, rmax)`;
//!   `a = exp(rmax - max)`; `b = exp(inMax - max) * inSum`; `sum = b + a * rsum`;
//!   `expMax = b / sum`; `dst = exp(x - rmax) * (a / sum)`. The instruction order and rounding are
//!   the vendor's (see [`softmax_flash`]).
//!
//! **Vendor quirks kept.** The `half` update paths reduce `splitM` rows in the tail round too
//! (the vendor passes the full round's `reduceParam`); only the tail's rows reach the outputs.
//! The `half`/`half` update path works in the *stack buffer* (`PopStackBuffer`) even in the form
//! with `sharedTmpBuffer` (its `SoftmaxFlashNDImpl<T, isBasicBlock>` overload takes no buffer),
//! while a recomputed tiling is sized from `sharedTmpBuffer`. The `float` update path's main
//! rounds copy `sumTensor` onto itself (`DataCopy(sum, sum)`, a no-op).
//!
//! **Tiling.** A `softmaxShapeInfo` whose `src_m`/`src_k` differ from the tiling's makes the
//! kernel recompute it (the kernel-side `SoftMaxFlashTilingFunc`): `splitM = work / (2 * perBlk +
//! 2 * k)` floats without update, `work / (4 * perBlk + 2 * k)` with it, at most `src_m`, and for
//! `isBasicBlock` (with `src_m` a multiple of 8) the largest multiple of 8 dividing `src_m`;
//! `perBlk` is 8 for `half` with `float` statistics, else `32 / sizeof(T)`. The statistics hold one
//! 32-byte block of `T2` per row (the page: their last axis is fixed at 32 bytes); a tiling whose
//! `reduce_k` is another count is an error here. `expMaxTensor` holds one 32-byte block of `T1`
//! per row (for `half` with `float` statistics the 8 floats of a row are broadcast to 16 first).
//!
//! Not modelled: `isBasicBlock = true` with `isUpdate = true` (the vendor's
//! `SoftmaxFlashBasicBlock`; the call fails; without update `isBasicBlock` only changes the
//! recomputed tiling, as the vendor's); a `SoftMaxShapeInfo` with `src_m` or `src_k` 0 (these
//! tensors carry no `ShapeInfo`). Chips: Ascend910B. The page also lists Atlas inference AI Core
//! (Ascend310P, the same steps over `membase/v200`'s reductions) and the Ascend 950 family
//! (`regbase/3510`): not modelled, the calls fail naming the chip.

use crate::element::{f16, DType, Element};
use crate::kernel::error::ensure;
use crate::memory::copy::data_copy;
use crate::memory::tensor::LocalTensor;
use crate::sync::{event::PIPE_V, flags::pipe_barrier};
use crate::vector::binary::{add, div, max, mul, sub};
use crate::vector::cast::{cast, RoundMode};
use crate::vector::unary::exp;

use super::softmax::{
    check_910b, check_shape, check_ub, generic_float, generic_half_float, generic_half_half, host_shape,
    rounds, rows_tiling, work_needed, Kind, ReduceLastNd, SoftMaxElement, SoftMaxShapeInfo,
    SoftMaxStatElement, SoftMaxTiling, F,
};
use super::softmax_more::{broadcast_last, check_len, reduce_last_nd_old};
use super::{check_apart, span, stack_tensor, whole};

const API: &str = "SoftmaxFlash";
/// `SOFTMAX_BASIC_TILE_NUM`.
const BASIC_TILE: u32 = 8;
/// `SOFTMAX_BASICBLOCK_UNIT`.
const BASICBLOCK_UNIT: u32 = 64;
/// `HALF_NUM_PER_BLK`: `expMaxTensor`'s halves per row.
const HALF_BLK: usize = 16;

// ---- host tiling ---------------------------------------------------------------------------

/// Floats per row of the host helpers (Ascend910B): `perBlk + k + 64` without update,
/// `4 * perBlk + 2 * k` with it (`SOFTMAX_TMPFLASHUPDATE_COUNT`, `SOFTMAX_TMPBUFFER_COUNT`).
fn host_row(is_update: bool, per_blk: u32, k: u32) -> u32 {
    if is_update {
        per_blk * 4 + k * 2
    } else {
        per_blk + k + BASICBLOCK_UNIT
    }
}

/// Bytes of temporary buffer with which [`softmax_flash`] computes all rows of `src_shape` in
/// one round (AscendC `GetSoftMaxFlashMaxTmpSize(srcShape, dataTypeSize, isUpdate,
/// isReuseSource)` for Ascend910B): `m * (32 / dataTypeSize + k + 64)` floats without update,
/// `m * (4 * 32 / dataTypeSize + 2 * k)` with it. `is_reuse_source` is not used (as the
/// vendor's).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_soft_max_flash_max_tmp_size(&[80, 144], 2, false, false), 80 * (16 + 144 + 64) * 4);
/// assert_eq!(get_soft_max_flash_max_tmp_size(&[80, 144], 2, true, false), 80 * (64 + 288) * 4);
/// ```
///
/// # Panics
/// Panics if the shape has no elements, its last axis is not 32-byte aligned for
/// `data_type_size`, or `data_type_size` is not 2 or 4.
#[track_caller]
pub fn get_soft_max_flash_max_tmp_size(
    src_shape: &[u32],
    data_type_size: u32,
    is_update: bool,
    is_reuse_source: bool,
) -> u32 {
    let _ = is_reuse_source;
    let (m, k) = host_shape("GetSoftMaxFlashMaxTmpSize", src_shape, data_type_size);
    m * host_row(is_update, 32 / data_type_size, k) * 4
}

/// The fewest bytes of temporary buffer [`softmax_flash`] works with, one row per round
/// (AscendC `GetSoftMaxFlashMinTmpSize(srcShape, dataTypeSize, isUpdate, isReuseSource)` for
/// Ascend910B): one row of [`get_soft_max_flash_max_tmp_size`]'s floats.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_soft_max_flash_min_tmp_size(&[80, 144], 2, false, false), (16 + 144 + 64) * 4);
/// assert_eq!(get_soft_max_flash_min_tmp_size(&[8, 64], 4, true, false), (32 + 128) * 4);
/// ```
///
/// # Panics
/// As [`get_soft_max_flash_max_tmp_size`].
#[track_caller]
pub fn get_soft_max_flash_min_tmp_size(
    src_shape: &[u32],
    data_type_size: u32,
    is_update: bool,
    is_reuse_source: bool,
) -> u32 {
    let _ = is_reuse_source;
    let (_, k) = host_shape("GetSoftMaxFlashMinTmpSize", src_shape, data_type_size);
    host_row(is_update, 32 / data_type_size, k) * 4
}

/// The tiling of [`softmax_flash`] for `src_shape` with a temporary buffer of
/// `local_work_space_size` bytes (AscendC `SoftMaxFlashTilingFunc(srcShape, dataTypeSize,
/// localWorkSpaceSize, softmaxFlashTiling, isUpdate)`, which fills its fourth argument).
///
/// `split_m` is `min(workspace / 4 / perRow, m)` with [`get_soft_max_flash_max_tmp_size`]'s
/// floats per row, rounded down to a multiple of 8 when above 8 and below `m`, then, for a
/// basic-block shape (`m` a multiple of 8, `k` of 64, `split_m > 8`), the largest multiple of 8
/// dividing `m`, halved while `split_m * k >= 16384` (the vendor's `AdjustToBasicBlockBaseM`,
/// applied whatever the kernel's `isBasicBlock`). `reduce_k` is one 32-byte block of
/// `data_type_size`: for `half` with `float` statistics pass 4. A buffer too small for one row
/// leaves `split_m`, `range_m` and `tail_m` 0 (as the vendor's), which the kernel rejects.
///
/// ```
/// use ascend_core::prelude::*;
/// let t = soft_max_flash_tiling_func(&[20, 64], 4, 12 * (32 + 128) * 4, true);
/// assert_eq!((t.split_m, t.range_m, t.tail_m, t.reduce_k), (8, 2, 4, 8));
/// ```
///
/// # Panics
/// As [`get_soft_max_flash_max_tmp_size`], and if `local_work_space_size` is 0.
#[track_caller]
pub fn soft_max_flash_tiling_func(
    src_shape: &[u32],
    data_type_size: u32,
    local_work_space_size: u32,
    is_update: bool,
) -> SoftMaxTiling {
    let api = "SoftMaxFlashTilingFunc";
    let (m, k) = host_shape(api, src_shape, data_type_size);
    ensure(local_work_space_size > 0, api, || "localWorkSpaceSize is 0; it must be greater than 0".into());
    let per_blk = 32 / data_type_size;
    let mut base_m = (local_work_space_size / 4 / host_row(is_update, per_blk, k)).min(m);
    if base_m < m && base_m > BASIC_TILE {
        base_m = base_m / BASIC_TILE * BASIC_TILE;
    }
    // AdjustToBasicBlockBaseM.
    if base_m > BASIC_TILE && m % BASIC_TILE == 0 && k % BASICBLOCK_UNIT == 0 {
        base_m = base_m / BASIC_TILE * BASIC_TILE;
        while m % base_m != 0 {
            base_m -= BASIC_TILE;
        }
        while base_m * k >= BASICBLOCK_UNIT * 256 {
            base_m /= 2;
        }
    }
    rows_tiling(m, k, per_blk, base_m)
}

/// The kernel-side `SoftMaxFlashTilingFunc(workLocalSize, {m, k}, tiling, perBlk, isUpdate,
/// isBasicBlock)` (`softmax_tiling_func.h`): `work` in floats.
#[track_caller]
fn device_tiling(
    work: usize,
    m: u32,
    k: u32,
    per_blk: u32,
    is_update: bool,
    is_basic_block: bool,
) -> SoftMaxTiling {
    // SOFTMAX_COMPUTE_DIM = 2, SOFTMAXFLASH_COMPUTE_DIM = 4.
    let row = if is_update { per_blk * 4 + k * 2 } else { per_blk * 2 + k * 2 };
    let mut reduce_m = (work.min(u32::MAX as usize) as u32 / row).min(m);
    if is_basic_block && reduce_m > BASIC_TILE && m % BASIC_TILE == 0 {
        reduce_m = reduce_m / BASIC_TILE * BASIC_TILE;
        while m % reduce_m != 0 {
            reduce_m -= BASIC_TILE;
        }
    }
    ensure(reduce_m > 0, API, || {
        format!(
            "the temporary buffer holds {} bytes, fewer than the {} bytes one row of srcK = {k} needs in the tiling \
             the kernel recomputes for a shape other than the tiling's (softmaxflash need min tmpbuffer is not enough)",
            work * 4,
            row * 4
        )
    });
    rows_tiling(m, k, per_blk, reduce_m)
}

// ---- the update rounds -----------------------------------------------------------------------

/// One round of `SoftmaxFlashNDImpl` with update.
struct Round {
    o1: usize,
    o2: usize,
    /// The round's elements (`splitSize` / `tailSplitSize`).
    ss: usize,
    /// The round's statistics (`reduceSize` / `tailReduceSize`).
    rs: usize,
    /// The reduction parameters the vendor passes (the tail's for `float`, the full round's for
    /// `half`).
    rp: ReduceLastNd,
    /// Rows of the broadcasts (`BroadCastLastND.srcM`).
    brc_m: usize,
    /// A full round (`rangeM` loop), not the tail.
    main: bool,
}

/// The vendor's loop: `rangeM` rounds, a barrier, then the tail if `tailM != 0`. `full_tail`:
/// the tail keeps the full round's `reduceParam` and broadcast rows (the `half` paths).
#[track_caller]
fn update_rounds(t: &SoftMaxTiling, ori_k: u32, full_tail: bool, mut f: impl FnMut(&Round)) {
    let rp = |m: u32| ReduceLastNd {
        original_src_m: m as usize,
        original_src_k: ori_k as usize,
        src_m: m as usize,
        src_k: t.split_k as usize,
        dst_k: t.reduce_k as usize,
    };
    for i in 0..t.range_m as usize {
        f(&Round {
            o1: i * t.split_size as usize,
            o2: i * t.reduce_size as usize,
            ss: t.split_size as usize,
            rs: t.reduce_size as usize,
            rp: rp(t.split_m),
            brc_m: t.split_m as usize,
            main: true,
        });
    }
    pipe_barrier::<PIPE_V>();
    if t.tail_m != 0 {
        let m = if full_tail { t.split_m } else { t.tail_m };
        f(&Round {
            o1: t.range_m as usize * t.split_size as usize,
            o2: t.range_m as usize * t.reduce_size as usize,
            ss: t.tail_split_size as usize,
            rs: t.tail_reduce_size as usize,
            rp: rp(m),
            brc_m: m as usize,
            main: false,
        });
    }
}

/// The statistics of one call, typed.
struct Stats<'a, T1: SoftMaxElement, T2: Element> {
    sum: &'a LocalTensor<T2>,
    max: &'a LocalTensor<T2>,
    exp_max: &'a LocalTensor<T1>,
    in_sum: &'a LocalTensor<T2>,
    in_max: &'a LocalTensor<T2>,
}

/// The work buffer's regions: `[tmp0 | tmp1 | 4 × reduceSize]` (`splitSize` each for the first
/// two).
fn regions(work: &F, t: &SoftMaxTiling) -> [F; 6] {
    let (ss, rs) = (t.split_size as usize, t.reduce_size as usize);
    [
        work.view(0),
        work.view(ss),
        work.view(2 * ss),
        work.view(2 * ss + rs),
        work.view(2 * ss + 2 * rs),
        work.view(2 * ss + 3 * rs),
    ]
}

/// `SoftmaxFlashNDImpl` for `float`, one round.
#[track_caller]
fn update_float(d: &F, s: &F, st: &Stats<f32, f32>, work: &F, t: &SoftMaxTiling, r: &Round) {
    let [tmp0, tmp1, tmp2, rsum, tmp4, in_sum_tmp] = regions(work, t);
    let in_max_tmp = tmp0.clone();
    let (sk, rk) = (t.split_k as usize, t.reduce_k as usize);
    let (d, s) = (d.view(r.o1), s.view(r.o1));
    let (su, mx, em) = (st.sum.view(r.o2), st.max.view(r.o2), st.exp_max.view(r.o2));
    pipe_barrier::<PIPE_V>();
    reduce_last_nd_old(Kind::Max, &tmp4, &s, &rsum, &r.rp);
    pipe_barrier::<PIPE_V>();
    broadcast_last(&tmp1, &tmp4, sk, r.brc_m, rk);
    pipe_barrier::<PIPE_V>();
    sub(&tmp1, &s, &tmp1, r.ss);
    pipe_barrier::<PIPE_V>();
    exp(&tmp1, &tmp1, r.ss);
    pipe_barrier::<PIPE_V>();
    reduce_last_nd_old(Kind::Sum, &rsum, &tmp1, &tmp2, &r.rp);
    pipe_barrier::<PIPE_V>();
    data_copy(&in_max_tmp, &st.in_max.view(r.o2), r.rs);
    pipe_barrier::<PIPE_V>();
    max(&tmp2, &in_max_tmp, &tmp4, r.rs);
    pipe_barrier::<PIPE_V>();
    data_copy(&mx, &tmp2, r.rs);
    pipe_barrier::<PIPE_V>();
    sub(&tmp4, &tmp4, &tmp2, r.rs);
    pipe_barrier::<PIPE_V>();
    exp(&tmp4, &tmp4, r.rs);
    sub(&in_max_tmp, &in_max_tmp, &tmp2, r.rs);
    pipe_barrier::<PIPE_V>();
    exp(&in_max_tmp, &in_max_tmp, r.rs);
    data_copy(&in_sum_tmp, &st.in_sum.view(r.o2), r.rs);
    pipe_barrier::<PIPE_V>();
    mul(&in_max_tmp, &in_max_tmp, &in_sum_tmp, r.rs);
    mul(&rsum, &tmp4, &rsum, r.rs);
    pipe_barrier::<PIPE_V>();
    add(&su, &in_max_tmp, &rsum, r.rs);
    pipe_barrier::<PIPE_V>();
    div(&em, &in_max_tmp, &su, r.rs);
    if r.main {
        pipe_barrier::<PIPE_V>();
        // The vendor's copy of `sumTensor` onto itself (main rounds only).
        data_copy(&su, &su, r.rs);
    }
    div(&tmp4, &tmp4, &su, r.rs);
    pipe_barrier::<PIPE_V>();
    broadcast_last(&tmp0, &tmp4, sk, r.brc_m, rk);
    pipe_barrier::<PIPE_V>();
    mul(&d, &tmp1, &tmp0, r.ss);
}

/// `SoftmaxFlashNDImpl<half>` (`half` statistics), one round, in `float` in `work`.
#[track_caller]
fn update_half_half(
    d: &LocalTensor<f16>,
    s: &LocalTensor<f16>,
    st: &Stats<f16, f16>,
    work: &F,
    t: &SoftMaxTiling,
    r: &Round,
) {
    let [tmp0, tmp1, tmp2, rsum, tmp4, in_sum_tmp] = regions(work, t);
    let in_max_tmp = tmp0.clone();
    let (sk, rk) = (t.split_k as usize, t.reduce_k as usize);
    let round = RoundMode::CastRound;
    cast(&tmp0, &s.view(r.o1), RoundMode::CastNone, r.ss);
    pipe_barrier::<PIPE_V>();
    reduce_last_nd_old(Kind::Max, &tmp4, &tmp0, &rsum, &r.rp);
    pipe_barrier::<PIPE_V>();
    broadcast_last(&tmp1, &tmp4, sk, r.brc_m, rk);
    pipe_barrier::<PIPE_V>();
    sub(&tmp1, &tmp0, &tmp1, r.ss);
    pipe_barrier::<PIPE_V>();
    exp(&tmp1, &tmp1, r.ss);
    pipe_barrier::<PIPE_V>();
    reduce_last_nd_old(Kind::Sum, &rsum, &tmp1, &tmp2, &r.rp);
    pipe_barrier::<PIPE_V>();
    cast(&in_max_tmp, &st.in_max.view(r.o2), RoundMode::CastNone, r.rs);
    pipe_barrier::<PIPE_V>();
    max(&tmp2, &in_max_tmp, &tmp4, r.rs);
    pipe_barrier::<PIPE_V>();
    cast(&st.max.view(r.o2), &tmp2, round, r.rs);
    pipe_barrier::<PIPE_V>();
    sub(&tmp4, &tmp4, &tmp2, r.rs);
    pipe_barrier::<PIPE_V>();
    exp(&tmp4, &tmp4, r.rs);
    sub(&in_max_tmp, &in_max_tmp, &tmp2, r.rs);
    pipe_barrier::<PIPE_V>();
    exp(&in_max_tmp, &in_max_tmp, r.rs);
    cast(&in_sum_tmp, &st.in_sum.view(r.o2), RoundMode::CastNone, r.rs);
    pipe_barrier::<PIPE_V>();
    mul(&in_max_tmp, &in_max_tmp, &in_sum_tmp, r.rs);
    mul(&rsum, &tmp4, &rsum, r.rs);
    pipe_barrier::<PIPE_V>();
    add(&in_sum_tmp, &in_max_tmp, &rsum, r.rs);
    pipe_barrier::<PIPE_V>();
    div(&in_max_tmp, &in_max_tmp, &in_sum_tmp, r.rs);
    pipe_barrier::<PIPE_V>();
    cast(&st.exp_max.view(r.o2), &in_max_tmp, round, r.rs);
    cast(&st.sum.view(r.o2), &in_sum_tmp, round, r.rs);
    div(&tmp4, &tmp4, &in_sum_tmp, r.rs);
    pipe_barrier::<PIPE_V>();
    broadcast_last(&tmp0, &tmp4, sk, r.brc_m, rk);
    pipe_barrier::<PIPE_V>();
    mul(&tmp1, &tmp1, &tmp0, r.ss);
    pipe_barrier::<PIPE_V>();
    cast(&d.view(r.o1), &tmp1, round, r.ss);
}

/// `SoftmaxFlashNDImpl` for `half` with `float` statistics, one round: the maximum written to
/// `maxTensor` directly, `expMax`'s 8 floats per row broadcast to 16 and narrowed.
#[track_caller]
fn update_half_float(
    d: &LocalTensor<f16>,
    s: &LocalTensor<f16>,
    st: &Stats<f16, f32>,
    work: &F,
    t: &SoftMaxTiling,
    r: &Round,
) {
    // Here the third region is `inMaxTmp` and the first is not reused for it.
    let [tmp0, tmp1, in_max_tmp, rsum, tmp4, in_sum_tmp] = regions(work, t);
    let (sk, rk) = (t.split_k as usize, t.reduce_k as usize);
    let (su, mx) = (st.sum.view(r.o2), st.max.view(r.o2));
    let round = RoundMode::CastRound;
    cast(&tmp0, &s.view(r.o1), RoundMode::CastNone, r.ss);
    pipe_barrier::<PIPE_V>();
    reduce_last_nd_old(Kind::Max, &tmp4, &tmp0, &rsum, &r.rp);
    pipe_barrier::<PIPE_V>();
    broadcast_last(&tmp1, &tmp4, sk, r.brc_m, rk);
    pipe_barrier::<PIPE_V>();
    sub(&tmp1, &tmp0, &tmp1, r.ss);
    pipe_barrier::<PIPE_V>();
    exp(&tmp1, &tmp1, r.ss);
    pipe_barrier::<PIPE_V>();
    reduce_last_nd_old(Kind::Sum, &rsum, &tmp1, &in_max_tmp, &r.rp);
    pipe_barrier::<PIPE_V>();
    data_copy(&in_max_tmp, &st.in_max.view(r.o2), r.rs);
    pipe_barrier::<PIPE_V>();
    max(&mx, &in_max_tmp, &tmp4, r.rs);
    pipe_barrier::<PIPE_V>();
    sub(&tmp4, &tmp4, &mx, r.rs);
    pipe_barrier::<PIPE_V>();
    exp(&tmp4, &tmp4, r.rs);
    sub(&in_max_tmp, &in_max_tmp, &mx, r.rs);
    pipe_barrier::<PIPE_V>();
    exp(&in_max_tmp, &in_max_tmp, r.rs);
    data_copy(&in_sum_tmp, &st.in_sum.view(r.o2), r.rs);
    pipe_barrier::<PIPE_V>();
    mul(&in_max_tmp, &in_max_tmp, &in_sum_tmp, r.rs);
    mul(&rsum, &tmp4, &rsum, r.rs);
    pipe_barrier::<PIPE_V>();
    add(&in_sum_tmp, &in_max_tmp, &rsum, r.rs);
    pipe_barrier::<PIPE_V>();
    div(&in_max_tmp, &in_max_tmp, &in_sum_tmp, r.rs);
    pipe_barrier::<PIPE_V>();
    let em = st.exp_max.view(r.o2 * 2);
    // `BroadCastLastImpl(tmpBuffer0, inMaxTmp, {reduceM, 16, reduceM, reduceK})`: the full
    // round's rows in the tail too.
    let brc_rows = t.reduce_m as usize;
    if r.main {
        data_copy(&su, &in_sum_tmp, r.rs);
        broadcast_last(&tmp0, &in_max_tmp, HALF_BLK, brc_rows, rk);
        pipe_barrier::<PIPE_V>();
        cast(&em, &tmp0, round, r.rs * 2);
    } else {
        broadcast_last(&tmp0, &in_max_tmp, HALF_BLK, brc_rows, rk);
        pipe_barrier::<PIPE_V>();
        cast(&em, &tmp0, round, r.rs * 2);
        data_copy(&su, &in_sum_tmp, r.rs);
    }
    div(&tmp4, &tmp4, &in_sum_tmp, r.rs);
    pipe_barrier::<PIPE_V>();
    broadcast_last(&tmp0, &tmp4, sk, r.brc_m, rk);
    pipe_barrier::<PIPE_V>();
    mul(&tmp1, &tmp1, &tmp0, r.ss);
    pipe_barrier::<PIPE_V>();
    cast(&d.view(r.o1), &tmp1, round, r.ss);
}

// ---- the API ---------------------------------------------------------------------------------

/// `SoftmaxFlashImpl` → `SoftmaxFlashTmpBufCommonImpl` / `SoftmaxFlashCommonImpl`.
#[allow(clippy::too_many_arguments)]
#[track_caller]
fn softmax_flash_impl<T1: SoftMaxElement, T2: SoftMaxStatElement<T1>>(
    dst: &LocalTensor<T1>,
    st: &Stats<T1, T2>,
    src: &LocalTensor<T1>,
    tmp: &LocalTensor<u8>,
    tiling: &SoftMaxTiling,
    is_update: bool,
    shape: &SoftMaxShapeInfo,
    is_basic_block: bool,
) {
    check_910b(API);
    let half = T1::DTYPE == DType::F16;
    let half_half = half && T2::DTYPE == DType::F16;
    ensure(!(is_basic_block && is_update), API, || {
        "isBasicBlock = true with isUpdate = true (the vendor's SoftmaxFlashBasicBlock) is not modelled; call with \
         isBasicBlock = false, or use SoftmaxFlashV2"
            .into()
    });
    let mut ops = vec![
        ("dstTensor", dst.get_position()),
        ("sumTensor", st.sum.get_position()),
        ("maxTensor", st.max.get_position()),
        ("srcTensor", src.get_position()),
        ("sharedTmpBuffer", tmp.get_position()),
    ];
    if is_update {
        ops.extend([
            ("expMaxTensor", st.exp_max.get_position()),
            ("inSumTensor", st.in_sum.get_position()),
            ("inMaxTensor", st.in_max.get_position()),
        ]);
    }
    check_ub(API, &ops);
    check_shape::<T1>(API, shape);
    let per_blk = (32 / T2::SIZE) as u32;
    let tiling = if shape.src_k != tiling.src_k || shape.src_m != tiling.src_m {
        device_tiling(tmp.get_size() / 4, shape.src_m, shape.src_k, per_blk, is_update, is_basic_block)
    } else {
        *tiling
    };
    ensure(tiling.split_m > 0 && tiling.split_k == shape.src_k, API, || {
        format!(
            "tiling has splitM = {} and splitK = {} for srcK = {}; fill it with SoftMaxFlashTilingFunc",
            tiling.split_m, tiling.split_k, shape.src_k
        )
    });
    ensure(tiling.reduce_k == per_blk, API, || {
        format!(
            "tiling has reduceK = {}, but the statistics of {} hold one 32-byte block ({per_blk} elements) per row \
             (SoftmaxFlash.md: their last axis is fixed at 32 bytes); make the tiling with dataTypeSize = {}",
            tiling.reduce_k,
            T2::DTYPE,
            T2::SIZE
        )
    });
    // The half/half update path works in the stack buffer whichever form is called.
    let stack;
    let work_u8 = if is_update && half_half {
        stack = stack_tensor(API);
        &stack
    } else {
        tmp
    };
    let work = work_u8.get_size() / 4;
    let need = if is_update {
        2 * tiling.split_size as usize + 4 * tiling.reduce_size as usize
    } else {
        work_needed(half, Some(T2::SIZE), false, &tiling)
    };
    ensure(work >= need, API, || {
        format!(
            "{} has {} bytes, less than the {} bytes the tiling's rounds of splitM = {} rows of {} need{}; make the \
             tiling with SoftMaxFlashTilingFunc for this buffer's size",
            if std::ptr::eq(work_u8, tmp) { "sharedTmpBuffer" } else { "the stack buffer" },
            work * 4,
            need * 4,
            tiling.split_m,
            T1::DTYPE,
            if std::ptr::eq(work_u8, tmp) {
                ""
            } else {
                " (the vendor's half update path uses the stack buffer even when sharedTmpBuffer is passed)"
            }
        )
    });
    let rows = (tiling.range_m as usize)
        .saturating_mul(tiling.split_m as usize)
        .saturating_add(tiling.tail_m as usize);
    let n = rows.saturating_mul(tiling.split_k as usize);
    let stats = rows.saturating_mul(tiling.reduce_k as usize);
    let em = if half && !half_half { stats.saturating_mul(2) } else { stats };
    check_len(API, "srcTensor", src, n, "elements of the tiling's rows");
    check_len(API, "dstTensor", dst, n, "elements of the tiling's rows");
    check_len(API, "sumTensor", st.sum, stats, "elements of the tiling's rows' statistics");
    check_len(API, "maxTensor", st.max, stats, "elements of the tiling's rows' statistics");
    let (d, s) = (span("dstTensor", dst, n), span("srcTensor", src, n));
    let (su, mx) = (span("sumTensor", st.sum, stats), span("maxTensor", st.max, stats));
    let t = ("sharedTmpBuffer", work_u8.get_phy_addr(), work_u8.get_phy_addr() + need * 4);
    let mut pairs = vec![(t, d), (t, s), (t, su), (t, mx), (su, mx), (su, d), (mx, d), (su, s), (mx, s)];
    if is_update {
        check_len(API, "expMaxTensor", st.exp_max, em, "elements of the tiling's rows' expMax");
        check_len(API, "inSumTensor", st.in_sum, stats, "elements of the tiling's rows' statistics");
        check_len(API, "inMaxTensor", st.in_max, stats, "elements of the tiling's rows' statistics");
        let e = span("expMaxTensor", st.exp_max, em);
        let (isu, imx) = (span("inSumTensor", st.in_sum, stats), span("inMaxTensor", st.in_max, stats));
        pairs.extend([(t, e), (t, isu), (t, imx), (e, d), (e, s), (e, su), (e, mx), (e, isu), (e, imx)]);
        // The page: inSum may be sum and inMax max (the same address), nothing else.
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
    let work = work_u8.reinterpret_cast::<f32>();
    let ori_k = shape.ori_src_k;
    match (T1::DTYPE, T2::DTYPE) {
        (DType::F32, _) => {
            let (d, s) = (dst.reinterpret_cast::<f32>(), src.reinterpret_cast::<f32>());
            let (su, mx) = (st.sum.reinterpret_cast::<f32>(), st.max.reinterpret_cast::<f32>());
            if is_update {
                let (em, isu, imx) = (
                    st.exp_max.reinterpret_cast::<f32>(),
                    st.in_sum.reinterpret_cast::<f32>(),
                    st.in_max.reinterpret_cast::<f32>(),
                );
                let st = Stats { sum: &su, max: &mx, exp_max: &em, in_sum: &isu, in_max: &imx };
                update_rounds(&tiling, ori_k, false, |r| update_float(&d, &s, &st, &work, &tiling, r));
            } else {
                rounds(&tiling, ori_k, |r| generic_float(&d, &su, &mx, &s, &work, &tiling, r));
            }
        }
        (_, DType::F16) => {
            let (d, s) = (dst.reinterpret_cast::<f16>(), src.reinterpret_cast::<f16>());
            let (su, mx) = (st.sum.reinterpret_cast::<f16>(), st.max.reinterpret_cast::<f16>());
            if is_update {
                let (em, isu, imx) = (
                    st.exp_max.reinterpret_cast::<f16>(),
                    st.in_sum.reinterpret_cast::<f16>(),
                    st.in_max.reinterpret_cast::<f16>(),
                );
                let st = Stats { sum: &su, max: &mx, exp_max: &em, in_sum: &isu, in_max: &imx };
                update_rounds(&tiling, ori_k, true, |r| update_half_half(&d, &s, &st, &work, &tiling, r));
            } else {
                rounds(&tiling, ori_k, |r| generic_half_half(&d, &su, &mx, &s, &work, &tiling, r, |_| {}));
            }
        }
        _ => {
            let (d, s) = (dst.reinterpret_cast::<f16>(), src.reinterpret_cast::<f16>());
            let (su, mx) = (st.sum.reinterpret_cast::<f32>(), st.max.reinterpret_cast::<f32>());
            if is_update {
                let (em, isu, imx) = (
                    st.exp_max.reinterpret_cast::<f16>(),
                    st.in_sum.reinterpret_cast::<f32>(),
                    st.in_max.reinterpret_cast::<f32>(),
                );
                let st = Stats { sum: &su, max: &mx, exp_max: &em, in_sum: &isu, in_max: &imx };
                update_rounds(&tiling, ori_k, true, |r| update_half_float(&d, &s, &st, &work, &tiling, r));
            } else {
                rounds(&tiling, ori_k, |r| generic_half_float(&d, &su, &mx, &s, &work, &tiling, r));
            }
        }
    }
}

/// The deprecated flash-attention softmax step (AscendC `SoftmaxFlash<T, isReuseSource,
/// isBasicBlock>(dstTensor, sumTensor, maxTensor, srcTensor, expMaxTensor, inSumTensor,
/// inMaxTensor, sharedTmpBuffer, tiling, isUpdate, softmaxShapeInfo)`, ND, and its `half`
/// with `float` statistics overload; the vendor recommends `SoftmaxFlashV2`,
/// [`softmax_flash_v2`](crate::adv::softmax_flash::softmax_flash_v2)).
///
/// Without `is_update` it is [`soft_max_with_sum_max`](crate::adv::softmax::soft_max_with_sum_max):
/// `dst = softmax(x)` row by row, `max` and `sum` the row maximum and the sum of `exp(x - max)`;
/// `exp_max_tensor`, `in_sum_tensor` and `in_max_tensor` are not touched. With it, the previous
/// statistics are merged (the page's formula): `max = max(in_max, rowmax(x))`, `sum =
/// exp(in_max - max) * in_sum + rowsum(exp(x - max))`, `exp_max = exp(in_max - max) * in_sum /
/// sum`, `dst = exp(x - max) / sum` — computed as the vendor's steps on Ascend910B (see the
/// module documentation: `dst = exp(x - rowmax) * (exp(rowmax - max) / sum)`, the older row
/// reductions). The statistics hold one 32-byte block of `T2` per row, `exp_max_tensor` one of
/// `T1`. `dst` may be `src`, `sum` `in_sum` and `max` `in_max` (the same address).
/// `IS_REUSE_SOURCE` is reserved. `IS_BASIC_BLOCK` changes only a recomputed tiling without
/// update, and is not modelled with update. The `half`/`half` update path works in the stack
/// buffer, not `shared_tmp_buffer` (the vendor's code).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut c) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 2 * 8 * 4);
/// pipe.init_tbuf(&mut b, 3 * 2 * 8 * 4);
/// let bytes = get_soft_max_flash_min_tmp_size(&[2, 8], 4, true, false);
/// pipe.init_tbuf(&mut c, bytes as usize);
/// let x = a.get::<f32>();
/// let (sum, max, em) = (b.get_with_offset::<f32>(16, 0), b.get_with_offset::<f32>(16, 64), b.get_with_offset::<f32>(16, 128));
/// x.copy_from_slice(&[1.0f32; 16]);
/// sum.copy_from_slice(&[8.0f32; 16]);
/// max.copy_from_slice(&[1.0f32; 16]);
/// let tiling = soft_max_flash_tiling_func(&[2, 8], 4, bytes, true);
/// let info = SoftMaxShapeInfo::new(2, 8, 2, 8);
/// softmax_flash::<f32, f32, false, false>(&x, &sum, &max, &x, &em, &sum, &max, &c.get::<u8>(), &tiling, true, &info);
/// assert_eq!((x.get_value(0), sum.get_value(0), max.get_value(0), em.get_value(0)), (1.0 / 16.0, 16.0, 1.0, 0.5));
/// ```
///
/// # Panics
/// Panics if the chip is not Ascend910B; `IS_BASIC_BLOCK` and `is_update` are both true (not
/// modelled); a tensor is not in the Unified Buffer; `shape_info.src_m` or `src_k` is 0,
/// `src_k` is not 32-byte aligned, or `ori_src_k`/`ori_src_m` is 0 or exceeds `src_k`/`src_m`;
/// the tiling has no rows or its `reduce_k` is not one 32-byte block of `T2`; the tiling's rounds
/// need more temporary buffer than the buffer used (or a recomputed tiling fits no row); a
/// tensor holds fewer elements than the tiling's rows need; the operands overlap (but the pairs
/// named above at the same address); or any instruction's own check fails.
#[allow(clippy::too_many_arguments)]
#[track_caller]
pub fn softmax_flash<
    T1: SoftMaxElement,
    T2: SoftMaxStatElement<T1>,
    const IS_REUSE_SOURCE: bool,
    const IS_BASIC_BLOCK: bool,
>(
    dst_tensor: &LocalTensor<T1>,
    sum_tensor: &LocalTensor<T2>,
    max_tensor: &LocalTensor<T2>,
    src_tensor: &LocalTensor<T1>,
    exp_max_tensor: &LocalTensor<T1>,
    in_sum_tensor: &LocalTensor<T2>,
    in_max_tensor: &LocalTensor<T2>,
    shared_tmp_buffer: &LocalTensor<u8>,
    tiling: &SoftMaxTiling,
    is_update: bool,
    softmax_shape_info: &SoftMaxShapeInfo,
) {
    let st = Stats {
        sum: sum_tensor,
        max: max_tensor,
        exp_max: exp_max_tensor,
        in_sum: in_sum_tensor,
        in_max: in_max_tensor,
    };
    softmax_flash_impl(
        dst_tensor,
        &st,
        src_tensor,
        shared_tmp_buffer,
        tiling,
        is_update,
        softmax_shape_info,
        IS_BASIC_BLOCK,
    );
}

/// [`softmax_flash`] with the temporary buffer from the stack buffer (AscendC
/// `SoftmaxFlash<T, isReuseSource, isBasicBlock>(dstTensor, sumTensor, maxTensor, srcTensor,
/// expMaxTensor, inSumTensor, inMaxTensor, tiling, isUpdate, softmaxShapeInfo)`, whose buffer is
/// `PopStackBuffer`'s). The page's example: `half`, `[80, 144]`, `isUpdate = false`, `dst` at
/// `src`, the statistics their own inputs.
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
/// let tiling = soft_max_flash_tiling_func(&[2, 16], 2, get_soft_max_flash_max_tmp_size(&[2, 16], 2, false, false), false);
/// let info = SoftMaxShapeInfo::new(2, 16, 2, 16);
/// softmax_flash_stack::<f16, f16, false, false>(&x, &sum, &max, &x, &em, &sum, &max, &tiling, false, &info);
/// assert_eq!((x.get_value(0).to_f32(), sum.get_value(0).to_f32(), max.get_value(0).to_f32()), (1.0 / 16.0, 16.0, 2.0));
/// ```
///
/// # Panics
/// As [`softmax_flash`], and if the core has no `TPipe` or its buffers leave no stack buffer.
#[allow(clippy::too_many_arguments)]
#[track_caller]
pub fn softmax_flash_stack<
    T1: SoftMaxElement,
    T2: SoftMaxStatElement<T1>,
    const IS_REUSE_SOURCE: bool,
    const IS_BASIC_BLOCK: bool,
>(
    dst_tensor: &LocalTensor<T1>,
    sum_tensor: &LocalTensor<T2>,
    max_tensor: &LocalTensor<T2>,
    src_tensor: &LocalTensor<T1>,
    exp_max_tensor: &LocalTensor<T1>,
    in_sum_tensor: &LocalTensor<T2>,
    in_max_tensor: &LocalTensor<T2>,
    tiling: &SoftMaxTiling,
    is_update: bool,
    softmax_shape_info: &SoftMaxShapeInfo,
) {
    let tmp = stack_tensor(API);
    softmax_flash::<T1, T2, IS_REUSE_SOURCE, IS_BASIC_BLOCK>(
        dst_tensor,
        sum_tensor,
        max_tensor,
        src_tensor,
        exp_max_tensor,
        in_sum_tensor,
        in_max_tensor,
        &tmp,
        tiling,
        is_update,
        softmax_shape_info,
    );
}
