//! The rest of the softmax family of the advanced API (the vendor's `adv_api/activation`),
//! ND format, default `SoftmaxConfig`, written as the vendor's `membase` implementations write
//! them for Ascend910B (`__NPU_ARCH__` 2201) on top of [`SoftMax`](crate::adv::softmax)'s
//! building blocks (its `NewReduceMaxLastNDImpl`/`NewReduceSumLastNDImpl`, `GenericSubNDImpl`,
//! `GenericDivNDImpl`, its kernel-side `SoftMaxTilingFunc` and its round loop):
//!
//! - `LogSoftMax` ([`log_soft_max`]) with its host helpers `GetLogSoftMaxMaxTmpSize`,
//!   `GetLogSoftMaxMinTmpSize` and `LogSoftMaxTilingFunc` (the same numbers as `SoftMax`'s);
//! - `SimpleSoftMax` ([`simple_soft_max`], [`simple_soft_max_stack`]): the softmax from given
//!   row maxima and sums, with `SoftMax`'s tiling;
//! - `SoftmaxGrad` ([`softmax_grad`], [`softmax_grad_stack`]) and `SoftmaxGradFront`
//!   ([`softmax_grad_front`], [`softmax_grad_front_stack`], with its basic block) with
//!   `GetSoftMaxGradMaxTmpSize`, `GetSoftMaxGradMinTmpSize` and `SoftMaxGradTilingFunc`. Their
//!   row sums are the older `ReduceSumLastNDImpl`'s (not `SoftMax`'s `NewReduceSumLastNDImpl`).
//!
//! Not modelled: `SoftmaxFlashV2` (and the other flash variants), the NZ format and
//! non-default `SoftmaxConfig`s.
//!
//! **`LogSoftMax` is `log10`.** The vendor's `GenericLogNDImpl` takes `Ln` and multiplies by
//! `SCALAR_NATURE_LOG_10 = 0.4342944819` (`log10(e)`), and its example's golden is `np.log10`
//! of the softmax: the result is the decimal logarithm, kept so here. Its rows of `srcK >= 192`
//! call `Muls<float, false>(dst, src, scalar, 1, MASK_PLACEHOLDER, …)` — mask and repeat count
//! swapped —, which in counter mode with `isSetMask = false` does what the intended call does
//! (both arguments are ignored there); it is issued here with the placeholder and a repeat of 0.
//!
//! **`LogSoftMax`'s tiling.** The vendor's `LogSoftMaxImpl` always recomputes the tiling in the
//! kernel from the temporary buffer's size (`SoftMaxTilingFunc(workSize, {m, k, oriM, k}, …,
//! sizeof(T), sizeof(T))`): the `tiling` argument is not read (it is kept in the signature, as
//! the vendor's). `sumTensor`/`maxTensor` get one 32-byte block of `T` per row.
//!
//! Chips: Ascend910B only. These functions also build for Ascend310P
//! (`membase/v200`, whose reductions differ), not modelled here (as `SoftMax`); the calls fail
//! with a message naming the chip.

use crate::element::{f16, DType, Element};
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::sync::{event::PIPE_V, flags::pipe_barrier};
use crate::vector::cast::{cast, RoundMode};
use crate::vector::mask::{reset_mask, set_mask_count, set_mask_norm, set_vector_mask, MASK_PLACEHOLDER};
use crate::vector::params::UnaryRepeatParams;
use crate::vector::scalar::muls_masked;
use crate::vector::unary::{exp, ln_masked};

use super::softmax::{
    bin, block_reduce, check_910b, check_shape, check_ub, device_tiling, generic_float, generic_half_half,
    generic_nd, host_shape, op, rounds, rows_tiling, split_reduce, Kind, ReduceLastNd, SoftMaxElement,
    SoftMaxShapeInfo, SoftMaxStatElement, SoftMaxTiling, F,
};
use super::{check_apart, span, stack_tensor, whole, SAME};
use crate::memory::copy::{data_copy_params, DataCopyParams};
use crate::sync::{
    event::{Event, HardEvent},
    flags::{fetch_free_event, set_flag_event, wait_flag_event},
};
use crate::vector::binary::{add_masked, mul, sub};
use crate::vector::brcb::{brcb, BrcbRepeatParams};
use crate::vector::copy::{copy_masked, CopyRepeatParams};
use crate::vector::duplicate::duplicate_masked;
use crate::vector::mask::Mask;

/// `SOFTMAX_SUB_DIV_ROW_COLUMN_SIZE`: below this `srcK`, column block by column block.
const ROW_COLUMN: usize = 192;
/// `FLOAT_NUM_PER_BLK`.
const FLOAT_BLK: usize = 8;
/// `SCALAR_NATURE_LOG_10`: the vendor's `0.4342944819` as `float`, which is `log10(e)` rounded
/// to `float`.
const NATURE_LOG_10: f32 = std::f32::consts::LOG10_E;

// ---- shared checks -----------------------------------------------------------------------

/// `t` holds at least `need` elements.
#[track_caller]
pub(crate) fn check_len<T: Element>(
    api: &'static str,
    name: &'static str,
    t: &LocalTensor<T>,
    need: usize,
    what: &str,
) {
    ensure(need <= t.get_size(), api, || {
        format!("{name} has {} {} elements, fewer than the {need} {what}", t.get_size(), T::DTYPE)
    });
}

/// `GenericLogNDImpl`: `Ln` then `Muls` by `log10(e)`, in place, over `m` rows of `src_k`
/// (column block by column block below 192 columns, else row by row).
#[track_caller]
fn generic_log(t: &F, m: usize, src_k: usize) {
    set_mask_count();
    if src_k < ROW_COLUMN {
        let blk = (src_k / FLOAT_BLK) as u8;
        set_vector_mask::<f32>((m * FLOAT_BLK) as u64);
        let p = UnaryRepeatParams::new(u16::from(blk), u16::from(blk), src_k as u8, src_k as u8);
        for j in 0..usize::from(blk) {
            let c = t.view(j * FLOAT_BLK);
            ln_masked::<f32, false>(&c, &c, MASK_PLACEHOLDER, 1, &p);
            pipe_barrier::<PIPE_V>();
            muls_masked::<f32, false>(&c, &c, NATURE_LOG_10, MASK_PLACEHOLDER, 1, &p);
            pipe_barrier::<PIPE_V>();
        }
    } else {
        set_vector_mask::<f32>(src_k as u64);
        for j in 0..m {
            let r = t.view(j * src_k);
            ln_masked::<f32, false>(&r, &r, MASK_PLACEHOLDER, 1, &SAME);
            pipe_barrier::<PIPE_V>();
            // The vendor's swapped `1, MASK_PLACEHOLDER`: ignored in counter mode.
            muls_masked::<f32, false>(&r, &r, NATURE_LOG_10, MASK_PLACEHOLDER, 0, &SAME);
            pipe_barrier::<PIPE_V>();
        }
    }
    set_mask_norm();
    reset_mask();
}

// ---- LogSoftMax ------------------------------------------------------------------------------

/// The vendor's `LogSoftMaxTiling` (`logsoftmax_tilingdata.h`): the same sixteen `uint32_t`
/// fields as [`SoftMaxTiling`].
pub type LogSoftMaxTiling = SoftMaxTiling;

/// Bytes of temporary buffer with which the host tiling of [`log_soft_max`] takes all rows in
/// one round (AscendC `GetLogSoftMaxMaxTmpSize(srcShape, dataTypeSize, isReuseSource)` for
/// Ascend910B): `m * (32 / dataTypeSize + k + 64)` floats, as `GetSoftMaxMaxTmpSize`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_log_soft_max_max_tmp_size(&[128, 128], 4, false), 128 * (8 + 128 + 64) * 4);
/// ```
///
/// # Panics
/// Panics if the shape has no elements, its last axis is 0 or not 32-byte aligned, or
/// `data_type_size` is not 2 or 4.
#[track_caller]
pub fn get_log_soft_max_max_tmp_size(src_shape: &[u32], data_type_size: u32, is_reuse_source: bool) -> u32 {
    let _ = is_reuse_source;
    let (m, k) = host_shape("GetLogSoftMaxMaxTmpSize", src_shape, data_type_size);
    m * (32 / data_type_size + k + 64) * 4
}

/// The fewest bytes of temporary buffer for one row per round (AscendC
/// `GetLogSoftMaxMinTmpSize(srcShape, dataTypeSize, isReuseSource)` for Ascend910B):
/// `32 / dataTypeSize + k + 64` floats.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_log_soft_max_min_tmp_size(&[128, 128], 4, false), (8 + 128 + 64) * 4);
/// ```
///
/// # Panics
/// As [`get_log_soft_max_max_tmp_size`].
#[track_caller]
pub fn get_log_soft_max_min_tmp_size(src_shape: &[u32], data_type_size: u32, is_reuse_source: bool) -> u32 {
    let _ = is_reuse_source;
    let (_, k) = host_shape("GetLogSoftMaxMinTmpSize", src_shape, data_type_size);
    (32 / data_type_size + k + 64) * 4
}

/// The host tiling of `LogSoftMax` (AscendC `LogSoftMaxTilingFunc(srcShape, dataTypeSize,
/// localWorkSpaceSize, softmaxTiling)`): the vendor's code is `SoftMaxTilingFunc`'s, line for
/// line, so this is [`soft_max_tiling_func`](crate::adv::softmax::soft_max_tiling_func) under
/// `LogSoftMax`'s name. The kernel does not read it (see the module documentation).
///
/// ```
/// use ascend_core::prelude::*;
/// let t = log_soft_max_tiling_func(&[20, 48], 2, 18 * (16 + 48 + 64) * 4);
/// assert_eq!((t.split_m, t.range_m, t.tail_m), (16, 1, 4));
/// ```
///
/// # Panics
/// As [`get_log_soft_max_max_tmp_size`], and if `local_work_space_size` is 0.
#[track_caller]
pub fn log_soft_max_tiling_func(
    src_shape: &[u32],
    data_type_size: u32,
    local_work_space_size: u32,
) -> LogSoftMaxTiling {
    let api = "LogSoftMaxTilingFunc";
    host_shape(api, src_shape, data_type_size);
    ensure(local_work_space_size > 0, api, || "localWorkSpaceSize is 0; it must be greater than 0".into());
    super::softmax::soft_max_tiling_func(src_shape, data_type_size, local_work_space_size)
}

/// Log-softmax along the last axis of the `[src_m, src_k]` source, with the row maxima and
/// sums as outputs (AscendC `LogSoftMax<T, isReuseSource, isDataFormatNZ = false>(dst, sum, max,
/// src, sharedTmpBuffer, tiling, softmaxShapeInfo)`, ND): `dst = log10(exp(x - max) / sum)`
/// row by row over the first `ori_src_k` columns (the padding columns get values too).
///
/// As the vendor's `LogSoftMaxNDImpl` on Ascend910B: the tiling recomputed from
/// `shared_tmp_buffer`'s size for `ori_src_m` rows (see the module documentation), normal
/// mode with the full mask, then each round `SoftMax`'s steps with `sum`/`max` of `T`
/// (`32 / sizeof(T)` copies per row; `half` computed in `float` in the buffer, the outputs
/// narrowed with `CAST_ROUND`), a `PipeBarrier`, and `GenericLogNDImpl` (`Ln`, `Muls` by
/// `log10(e)`) before the narrowing. `tiling` is not read; `IS_REUSE_SOURCE` is reserved. `dst`
/// may be `src`. Leaves the core in normal mask mode with the full mask.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut t) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// let tmp = get_log_soft_max_min_tmp_size(&[2, 8], 4, false);
/// pipe.init_tbuf(&mut a, 2 * 8 * 4);
/// pipe.init_tbuf(&mut b, 2 * 2 * 8 * 4);
/// pipe.init_tbuf(&mut t, tmp as usize);
/// let x = a.get::<f32>();
/// let (sum, max) = (b.get_with_offset::<f32>(16, 0), b.get_with_offset::<f32>(16, 64));
/// x.copy_from_slice(&[1.0f32; 16]);
/// let tiling = log_soft_max_tiling_func(&[2, 8], 4, tmp);
/// let info = SoftMaxShapeInfo::new(2, 8, 2, 8);
/// log_soft_max::<f32, false>(&x, &sum, &max, &x, &t.get::<u8>(), &tiling, &info);
/// assert!((x.get_value(0) + 0.903_09).abs() < 1e-5); // log10(1 / 8)
/// assert_eq!((sum.get_value(0), max.get_value(15)), (8.0, 1.0));
/// ```
///
/// # Panics
/// Panics if the chip is not Ascend910B; a tensor is not in the Unified Buffer;
/// `shape_info.src_m` or `src_k` is 0, `src_k` is not 32-byte aligned, or `ori_src_k`/`ori_src_m`
/// is 0 or exceeds `src_k`/`src_m`; `shared_tmp_buffer` is too small for one row; `src` or
/// `dst` holds fewer than `ori_src_m * src_k` elements, or `sum`/`max` fewer than `ori_src_m *
/// 32 / sizeof(T)`; `shared_tmp_buffer`, `sum` and `max` overlap each other or `src`/`dst`, or
/// `dst` overlaps `src` other than at the same address; or any instruction's own check fails.
#[allow(clippy::too_many_arguments)]
#[track_caller]
pub fn log_soft_max<T: SoftMaxElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    sum: &LocalTensor<T>,
    max: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    tiling: &LogSoftMaxTiling,
    shape_info: &SoftMaxShapeInfo,
) {
    const API: &str = "LogSoftMax";
    let _ = tiling;
    check_910b(API);
    let tmp = shared_tmp_buffer;
    check_ub(
        API,
        &[
            ("dst", dst.get_position()),
            ("sum", sum.get_position()),
            ("max", max.get_position()),
            ("src", src.get_position()),
            ("sharedTmpBuffer", tmp.get_position()),
        ],
    );
    check_shape::<T>(API, shape_info);
    let half = T::DTYPE == DType::F16;
    let (k, ori_m) = (shape_info.src_k, shape_info.ori_src_m);
    let per_blk = (32 / T::SIZE) as u32;
    let work = tmp.get_size() / 4;
    // CalculateNDSplitM's divisor: the floats one row takes.
    let per_row = if half { per_blk + k + 64 } else { per_blk + 64 } as usize;
    ensure(work >= per_row, API, || {
        format!(
            "sharedTmpBuffer has {} bytes, fewer than the {} one row of srcK = {k} {} needs in the tiling the kernel \
             computes (softmax need min tmpbuffer is not enough)",
            tmp.get_size(),
            per_row * 4,
            T::DTYPE
        )
    });
    let tiling = device_tiling(work, shape_info.src_m, k, ori_m, T::SIZE, per_blk, false);
    let (n, stats) = ((ori_m * k) as usize, (ori_m * per_blk) as usize);
    check_len(API, "src", src, n, "elements of oriSrcM rows of srcK");
    check_len(API, "dst", dst, n, "elements of oriSrcM rows of srcK");
    check_len(API, "sum", sum, stats, "elements of one 32-byte block per row");
    check_len(API, "max", max, stats, "elements of one 32-byte block per row");
    let (d, s) = (whole("dst", dst), whole("src", src));
    let (su, mx) = (span("sum", sum, stats), span("max", max, stats));
    let t = ("sharedTmpBuffer", tmp.get_phy_addr(), tmp.get_phy_addr() + tmp.get_size());
    check_apart(API, &[(t, s), (t, d), (t, su), (t, mx), (su, mx), (su, s), (su, d), (mx, s), (mx, d)]);
    if d.1 != s.1 {
        check_apart(API, &[(d, s)]);
    }
    let work = tmp.reinterpret_cast::<f32>();
    let k = k as usize;
    rounds(&tiling, shape_info.ori_src_k, |r| {
        if half {
            let (d, s) = (dst.reinterpret_cast::<f16>(), src.reinterpret_cast::<f16>());
            let (su, mx) = (sum.reinterpret_cast::<f16>(), max.reinterpret_cast::<f16>());
            let m = r.rp.original_src_m;
            generic_half_half(&d, &su, &mx, &s, &work, &tiling, r, |t| generic_log(t, m, k));
        } else {
            let (d, s) = (dst.reinterpret_cast::<f32>(), src.reinterpret_cast::<f32>());
            let (su, mx) = (sum.reinterpret_cast::<f32>(), max.reinterpret_cast::<f32>());
            generic_float(&d, &su, &mx, &s, &work, &tiling, r);
            pipe_barrier::<PIPE_V>();
            generic_log(&d.view(r.offset1), r.rp.original_src_m, k);
        }
    });
}

// ---- SimpleSoftMax ---------------------------------------------------------------------------

const SIMPLE: &str = "SimpleSoftMax";

/// `Sub` (`div = false`) or `Div` of the basic block: each 64-column group of `m` rows against
/// the row's value in `stat` (`stat_rep` blocks per row), `m` repeats in normal mode or, with
/// `m = 1`, the count already in the register.
#[allow(clippy::too_many_arguments)]
#[track_caller]
fn bb_arith(div: bool, dst: &F, src: &F, stat: &F, groups: usize, repeat: u8, row_rep: u8, stat_rep: u8) {
    let p = crate::vector::params::BinaryRepeatParams::new(1, 1, 0, row_rep, row_rep, stat_rep);
    for j in 0..groups {
        let (d, s) = (dst.view(64 * j), src.view(64 * j));
        if div {
            crate::vector::binary::div_masked::<f32, false>(&d, &s, stat, MASK_PLACEHOLDER, repeat, &p);
        } else {
            crate::vector::binary::sub_masked::<f32, false>(&d, &s, stat, MASK_PLACEHOLDER, repeat, &p);
        }
    }
}

/// `SimpleSoftMaxGenericNDImpl` for `half` with statistics of `T2` (`half`: widened into the
/// buffer after the round; `float`: read in place), one round of `cur` rows.
#[allow(clippy::too_many_arguments)]
#[track_caller]
fn simple_half<T2: Element>(
    dst: &LocalTensor<f16>,
    sum: &LocalTensor<T2>,
    max: &LocalTensor<T2>,
    src: &LocalTensor<f16>,
    work: &F,
    tiling: &SoftMaxTiling,
    o1: usize,
    o2: usize,
    cur: usize,
) {
    let (tmp0, tmp2) = (work.view(0), work.view(tiling.split_size as usize));
    let (split, src_k, reduce_k) =
        (cur * tiling.split_k as usize, tiling.src_k as usize, tiling.reduce_k as usize);
    cast(&tmp0, &src.view(o1), RoundMode::CastNone, split);
    if T2::DTYPE == DType::F16 {
        let reduce = cur * reduce_k;
        let (su, mx) = (sum.reinterpret_cast::<f16>(), max.reinterpret_cast::<f16>());
        cast(&tmp2, &mx.view(o2), RoundMode::CastNone, reduce);
        pipe_barrier::<PIPE_V>();
        generic_nd(false, &tmp0, &tmp0, &tmp2, cur, src_k, reduce_k);
        pipe_barrier::<PIPE_V>();
        exp(&tmp0, &tmp0, split);
        cast(&tmp2, &su.view(o2), RoundMode::CastNone, reduce);
        pipe_barrier::<PIPE_V>();
        generic_nd(true, &tmp0, &tmp0, &tmp2, cur, src_k, reduce_k);
    } else {
        let (su, mx) = (sum.reinterpret_cast::<f32>(), max.reinterpret_cast::<f32>());
        pipe_barrier::<PIPE_V>();
        generic_nd(false, &tmp0, &tmp0, &mx.view(o2), cur, src_k, reduce_k);
        pipe_barrier::<PIPE_V>();
        // The vendor's `Exp` over the whole `splitSize`, in the tail round too.
        exp(&tmp0, &tmp0, tiling.split_size as usize);
        pipe_barrier::<PIPE_V>();
        generic_nd(true, &tmp0, &tmp0, &su.view(o2), cur, src_k, reduce_k);
    }
    pipe_barrier::<PIPE_V>();
    cast(&dst.view(o1), &tmp0, RoundMode::CastRound, split);
}

/// `SimpleSoftMaxBasicBlock` for `half` (`rangeM` rounds, no tail).
#[track_caller]
fn simple_bb_half<T2: Element>(
    dst: &LocalTensor<f16>,
    sum: &LocalTensor<T2>,
    max: &LocalTensor<T2>,
    src: &LocalTensor<f16>,
    work: &F,
    tiling: &SoftMaxTiling,
) {
    use crate::vector::cast::cast_masked;
    use crate::vector::unary::exp_masked;
    let (ss, m) = (tiling.split_size as usize, tiling.split_m as u8);
    let (tmp0, tmp1) = (work.view(0), work.view(ss));
    let repeat = (ss / 64) as u8;
    let groups = tiling.split_k as usize / 64;
    let row_rep = (FLOAT_BLK * groups) as u8;
    let reduce_ceil = (tiling.reduce_size as usize).div_ceil(64) as u8;
    let widen = UnaryRepeatParams::new(1, 1, 8, 4);
    pipe_barrier::<PIPE_V>();
    for i in 0..tiling.range_m as usize {
        let o1 = i * ss;
        if T2::DTYPE == DType::F16 {
            let o2 = i * tiling.reduce_size as usize;
            let (su, mx) = (sum.reinterpret_cast::<f16>(), max.reinterpret_cast::<f16>());
            cast_masked::<f32, f16, false>(
                &tmp1,
                &mx.view(o2),
                RoundMode::CastNone,
                MASK_PLACEHOLDER,
                reduce_ceil,
                &widen,
            );
            cast_masked::<f32, f16, false>(
                &tmp0,
                &src.view(o1),
                RoundMode::CastNone,
                MASK_PLACEHOLDER,
                repeat,
                &widen,
            );
            pipe_barrier::<PIPE_V>();
            bb_arith(false, &tmp0, &tmp0, &tmp1, groups, m, row_rep, 2);
            pipe_barrier::<PIPE_V>();
            exp_masked::<f32, false>(&tmp0, &tmp0, MASK_PLACEHOLDER, repeat, &SAME);
            cast_masked::<f32, f16, false>(
                &tmp1,
                &su.view(o2),
                RoundMode::CastNone,
                MASK_PLACEHOLDER,
                reduce_ceil,
                &widen,
            );
            pipe_barrier::<PIPE_V>();
            bb_arith(true, &tmp0, &tmp0, &tmp1, groups, m, row_rep, 2);
        } else {
            let o2 = i * tiling.reduce_m as usize * FLOAT_BLK;
            let (su, mx) = (sum.reinterpret_cast::<f32>(), max.reinterpret_cast::<f32>());
            cast_masked::<f32, f16, false>(
                &tmp0,
                &src.view(o1),
                RoundMode::CastNone,
                MASK_PLACEHOLDER,
                repeat,
                &widen,
            );
            pipe_barrier::<PIPE_V>();
            bb_arith(false, &tmp0, &tmp0, &mx.view(o2), groups, m, row_rep, 1);
            pipe_barrier::<PIPE_V>();
            exp_masked::<f32, false>(&tmp0, &tmp0, MASK_PLACEHOLDER, repeat, &SAME);
            pipe_barrier::<PIPE_V>();
            bb_arith(true, &tmp0, &tmp0, &su.view(o2), groups, m, row_rep, 1);
        }
        pipe_barrier::<PIPE_V>();
        let narrow = UnaryRepeatParams::new(1, 1, 4, 8);
        cast_masked::<f16, f32, false>(
            &dst.view(o1),
            &tmp0,
            RoundMode::CastRound,
            MASK_PLACEHOLDER,
            repeat,
            &narrow,
        );
    }
}

/// `SimpleSoftMaxBasicBlock` for `float` (the chip's branch, not the CPU-debug one): all
/// `srcM` rows at once in counter mode.
#[track_caller]
fn simple_bb_float(dst: &F, sum: &F, max: &F, src: &F, tiling: &SoftMaxTiling) {
    use crate::vector::unary::exp_masked;
    let groups = tiling.src_k as usize / 64;
    let rep = (tiling.src_k as usize / FLOAT_BLK) as u8;
    let rows = tiling.src_m as u64 * 64;
    pipe_barrier::<PIPE_V>();
    set_mask_count();
    set_vector_mask::<f32>(rows);
    bb_arith(false, dst, src, max, groups, 1, rep, 1);
    set_vector_mask::<f32>(u64::from(tiling.src_size));
    pipe_barrier::<PIPE_V>();
    exp_masked::<f32, false>(dst, dst, MASK_PLACEHOLDER, 1, &SAME);
    pipe_barrier::<PIPE_V>();
    set_vector_mask::<f32>(rows);
    bb_arith(true, dst, dst, sum, groups, 1, rep, 1);
    set_mask_norm();
    reset_mask();
}

/// The rows a round loop covers and the elements of the statistics it reads.
struct SimplePlan {
    rows: usize,
    stats: usize,
    work: usize,
}

/// What [`simple_soft_max_impl`] touches under `tiling` (the vendor's loops, without running them).
fn simple_plan(half: bool, stat_half: bool, bb: bool, t: &SoftMaxTiling) -> SimplePlan {
    let (sm, rk, ss, rs) =
        (t.split_m as usize, t.reduce_k as usize, t.split_size as usize, t.reduce_size as usize);
    let (range, tail) = (t.range_m as usize, t.tail_m as usize);
    // The last element a round of `cur` rows at `o2` reads in the statistics.
    let read = |o2: usize, cur: usize| {
        if cur == 0 {
            0
        } else if stat_half {
            o2 + cur * rk
        } else {
            o2 + (cur - 1) * rk + 8
        }
    };
    if !half {
        let m = t.src_m as usize;
        let stats = if bb { m * 8 } else { read(0, m) };
        return SimplePlan { rows: m, stats, work: 0 };
    }
    if bb {
        let stats =
            if stat_half { range.saturating_sub(1) * rs + rs.div_ceil(64) * 64 } else { range * sm * 8 };
        let work = if stat_half { ss + rs.div_ceil(64) * 64 } else { ss };
        return SimplePlan { rows: range * sm, stats: if range == 0 { 0 } else { stats }, work };
    }
    let step = if stat_half { rs } else { sm * 8 };
    let mut stats = if range == 0 { 0 } else { read((range - 1) * step, sm) };
    if tail != 0 {
        stats = stats.max(read(range * step, tail));
    }
    SimplePlan { rows: range * sm + tail, stats, work: if stat_half { ss + rs } else { ss } }
}

/// `SimpleSoftMaxImpl` / `SimpleSoftMaxBaseImpl` + `SimpleSoftMaxNDImpl`.
#[allow(clippy::too_many_arguments)]
#[track_caller]
fn simple_soft_max_impl<T1: SoftMaxElement, T2: SoftMaxStatElement<T1>, const IS_BASIC_BLOCK: bool>(
    dst: &LocalTensor<T1>,
    sum: &LocalTensor<T2>,
    max: &LocalTensor<T2>,
    src: &LocalTensor<T1>,
    tmp: &LocalTensor<u8>,
    tiling: &SoftMaxTiling,
    shape: &SoftMaxShapeInfo,
) {
    check_910b(SIMPLE);
    check_ub(
        SIMPLE,
        &[
            ("dstTensor", dst.get_position()),
            ("inSumTensor", sum.get_position()),
            ("inMaxTensor", max.get_position()),
            ("srcTensor", src.get_position()),
            ("sharedTmpBuffer", tmp.get_position()),
        ],
    );
    check_shape::<T1>(SIMPLE, shape);
    let (half, stat_half) = (T1::DTYPE == DType::F16, T2::DTYPE == DType::F16);
    let work = tmp.get_size() / 4;
    let tiling = if shape.src_k != tiling.src_k || shape.src_m != tiling.src_m {
        let per_blk = (32 / T2::SIZE) as u32;
        let per_row = if half { per_blk + shape.src_k + 64 } else { per_blk + 64 } as usize;
        ensure(work >= per_row, SIMPLE, || {
            format!(
                "sharedTmpBuffer has {} bytes, fewer than the {} one row of srcK = {} {} needs in the tiling the \
                 kernel recomputes for a shape other than the tiling's (softmax need min tmpbuffer is not enough)",
                tmp.get_size(),
                per_row * 4,
                shape.src_k,
                T1::DTYPE
            )
        });
        device_tiling(work, shape.src_m, shape.src_k, shape.ori_src_m, T1::SIZE, per_blk, IS_BASIC_BLOCK)
    } else {
        *tiling
    };
    ensure(tiling.split_m > 0 && tiling.split_k == shape.src_k, SIMPLE, || {
        format!(
            "tiling has splitM = {} and splitK = {} for srcK = {}; fill it with SoftMaxTilingFunc",
            tiling.split_m, tiling.split_k, shape.src_k
        )
    });
    if IS_BASIC_BLOCK {
        let k = shape.src_k as usize;
        let min_k = 256 / T1::SIZE;
        ensure(k % 64 == 0 && k >= min_k && k < 2048, SIMPLE, || {
            format!(
                "isBasicBlock = true needs srcK a multiple of 64 in [{min_k}, 2048) for {}; srcK = {k}",
                T1::DTYPE
            )
        });
        ensure(shape.src_m % 8 == 0, SIMPLE, || {
            format!("isBasicBlock = true needs srcM a multiple of 8; srcM = {}", shape.src_m)
        });
    }
    let plan = simple_plan(half, stat_half, IS_BASIC_BLOCK, &tiling);
    ensure(work >= plan.work, SIMPLE, || {
        format!(
            "sharedTmpBuffer has {} bytes, less than the {} bytes the tiling's rounds of splitM = {} rows of {} need; \
             make the tiling with SoftMaxTilingFunc for this buffer's size",
            tmp.get_size(),
            plan.work * 4,
            tiling.split_m,
            T1::DTYPE
        )
    });
    let n = plan.rows * tiling.split_k as usize;
    check_len(SIMPLE, "srcTensor", src, n, "elements of the tiling's rows");
    check_len(SIMPLE, "dstTensor", dst, n, "elements of the tiling's rows");
    check_len(SIMPLE, "inSumTensor", sum, plan.stats, "elements the tiling's rows read");
    check_len(SIMPLE, "inMaxTensor", max, plan.stats, "elements the tiling's rows read");
    let (d, s) = (whole("dstTensor", dst), whole("srcTensor", src));
    let (su, mx) = (span("inSumTensor", sum, plan.stats), span("inMaxTensor", max, plan.stats));
    let mut pairs = vec![(su, d), (mx, d)];
    if half {
        let t = ("sharedTmpBuffer", tmp.get_phy_addr(), tmp.get_phy_addr() + plan.work * 4);
        pairs.extend([(t, s), (t, d), (t, su), (t, mx)]);
    }
    check_apart(SIMPLE, &pairs);
    if d.1 != s.1 {
        check_apart(SIMPLE, &[(d, s)]);
    }
    set_mask_norm();
    reset_mask();
    let work = tmp.reinterpret_cast::<f32>();
    if !half {
        let (d, s) = (dst.reinterpret_cast::<f32>(), src.reinterpret_cast::<f32>());
        let (su, mx) = (sum.reinterpret_cast::<f32>(), max.reinterpret_cast::<f32>());
        if IS_BASIC_BLOCK {
            simple_bb_float(&d, &su, &mx, &s, &tiling);
        } else {
            let (m, k) = (tiling.src_m as usize, tiling.src_k as usize);
            generic_nd(false, &d, &s, &mx, m, k, tiling.reduce_k as usize);
            pipe_barrier::<PIPE_V>();
            exp(&d, &d, m * tiling.split_k as usize);
            pipe_barrier::<PIPE_V>();
            generic_nd(true, &d, &d, &su, m, k, tiling.reduce_k as usize);
        }
        return;
    }
    let (d, s) = (dst.reinterpret_cast::<f16>(), src.reinterpret_cast::<f16>());
    if IS_BASIC_BLOCK {
        simple_bb_half(&d, sum, max, &s, &work, &tiling);
        return;
    }
    let step = if stat_half { tiling.reduce_size } else { tiling.reduce_m * FLOAT_BLK as u32 } as usize;
    let ss = tiling.split_size as usize;
    pipe_barrier::<PIPE_V>();
    for i in 0..tiling.range_m as usize {
        simple_half(&d, sum, max, &s, &work, &tiling, i * ss, i * step, tiling.split_m as usize);
    }
    pipe_barrier::<PIPE_V>();
    if tiling.tail_m != 0 {
        let r = tiling.range_m as usize;
        simple_half(&d, sum, max, &s, &work, &tiling, r * ss, r * step, tiling.tail_m as usize);
    }
}

/// Softmax from given row maxima and sums (AscendC `SimpleSoftMax<T, isReuseSource,
/// isBasicBlock, isDataFormatNZ = false>(dstTensor, inSumTensor, inMaxTensor, srcTensor,
/// sharedTmpBuffer, tiling, softmaxShapeInfo)`, ND, and its `half`-with-`float` overload):
/// `dst = exp(x - inMax) / inSum` row by row, the statistics laid out as `SoftMax` writes them
/// (`tiling.reduce_k` per row).
///
/// As the vendor's `SimpleSoftMaxNDImpl` on Ascend910B, with `SoftMax`'s tiling (recomputed in
/// the kernel when `shape_info`'s `src_m`/`src_k` differ from the tiling's, with 32-byte
/// blocks of `T2`):
/// - `float`: one pass over the tiling's `src_m` rows in `dst` (no temporary buffer): `Sub`,
///   `Exp`, `Div`;
/// - `half`: `rangeM` rounds of `splitM` rows and a tail, widened into the buffer (`half`
///   statistics widened after the round; `float` statistics read in place, a round's rows at
///   `reduceM * 8` floats and its `Exp` over the whole `splitSize`, in the tail round too), the
///   quotient narrowed with `CAST_ROUND`;
/// - `IS_BASIC_BLOCK`: the vendor's `SimpleSoftMaxBasicBlock` (`rangeM` rounds of normal-mode
///   repeats for `half`, the tail round left out as the vendor's; for `float` the chip's
///   counter-mode branch over all `srcM` rows).
///
/// `IS_REUSE_SOURCE` is reserved. `dst` may be `src`. Leaves the core in normal mask mode with
/// the full mask.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 2 * 8 * 4);
/// pipe.init_tbuf(&mut b, 2 * 2 * 8 * 4);
/// let x = a.get::<f32>();
/// let (sum, max) = (b.get_with_offset::<f32>(16, 0), b.get_with_offset::<f32>(16, 64));
/// x.copy_from_slice(&[2.0f32; 16]);
/// sum.copy_from_slice(&[4.0f32; 16]);
/// max.copy_from_slice(&[2.0f32; 16]);
/// let tiling = soft_max_tiling_func(&[2, 8], 4, get_soft_max_min_tmp_size(&[2, 8], 4, false));
/// let info = SoftMaxShapeInfo::new(2, 8, 2, 8);
/// let none = pop_stack_buffer::<u8>(); // float takes no buffer
/// simple_soft_max::<f32, f32, false, false>(&x, &sum, &max, &x, &none, &tiling, &info);
/// assert_eq!(x.get_value(3), 0.25);
/// ```
///
/// # Panics
/// Panics if the chip is not Ascend910B; a tensor is not in the Unified Buffer;
/// `shape_info.src_m` or `src_k` is 0, `src_k` is not 32-byte aligned, or `ori_src_k`/`ori_src_m`
/// is 0 or exceeds `src_k`/`src_m`; the tiling's rounds need more temporary buffer than
/// `shared_tmp_buffer` (or a recomputed tiling fits no row); `src`/`dst` hold fewer elements
/// than the tiling's rows or `in_sum_tensor`/`in_max_tensor` fewer than those rows read; the
/// operands overlap (but `dst` at `src`'s address); with `IS_BASIC_BLOCK`, if `src_k` is not a
/// multiple of 64 in `[256 / sizeof(T1), 2048)` or `src_m` not a multiple of 8; or any
/// instruction's own check fails.
#[allow(clippy::too_many_arguments)]
#[track_caller]
pub fn simple_soft_max<
    T1: SoftMaxElement,
    T2: SoftMaxStatElement<T1>,
    const IS_REUSE_SOURCE: bool,
    const IS_BASIC_BLOCK: bool,
>(
    dst_tensor: &LocalTensor<T1>,
    in_sum_tensor: &LocalTensor<T2>,
    in_max_tensor: &LocalTensor<T2>,
    src_tensor: &LocalTensor<T1>,
    shared_tmp_buffer: &LocalTensor<u8>,
    tiling: &SoftMaxTiling,
    shape_info: &SoftMaxShapeInfo,
) {
    simple_soft_max_impl::<T1, T2, IS_BASIC_BLOCK>(
        dst_tensor,
        in_sum_tensor,
        in_max_tensor,
        src_tensor,
        shared_tmp_buffer,
        tiling,
        shape_info,
    );
}

/// [`simple_soft_max`] with the temporary buffer from the stack buffer (AscendC
/// `SimpleSoftMax<T, isReuseSource, isBasicBlock>(dstTensor, inSumTensor, inMaxTensor,
/// srcTensor, tiling, softmaxShapeInfo)`, whose buffer is `PopStackBuffer`'s).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 4 * 16 * 2);
/// pipe.init_tbuf(&mut b, 2 * 4 * 16 * 2);
/// let x = a.get::<f16>();
/// let (sum, max) = (b.get_with_offset::<f16>(64, 0), b.get_with_offset::<f16>(64, 128));
/// x.copy_from_slice(&[f16::from_f32(1.0); 64]);
/// sum.copy_from_slice(&[f16::from_f32(16.0); 64]);
/// max.copy_from_slice(&[f16::from_f32(1.0); 64]);
/// let tiling = soft_max_tiling_func(&[4, 16], 2, get_soft_max_max_tmp_size(&[4, 16], 2, false));
/// let info = SoftMaxShapeInfo::new(4, 16, 4, 16);
/// simple_soft_max_stack::<f16, f16, false, false>(&x, &sum, &max, &x, &tiling, &info);
/// assert_eq!(x.get_value(63).to_f32(), 1.0 / 16.0);
/// ```
///
/// # Panics
/// As [`simple_soft_max`], and if the core has no `TPipe` or its buffers leave no stack buffer.
#[track_caller]
pub fn simple_soft_max_stack<
    T1: SoftMaxElement,
    T2: SoftMaxStatElement<T1>,
    const IS_REUSE_SOURCE: bool,
    const IS_BASIC_BLOCK: bool,
>(
    dst_tensor: &LocalTensor<T1>,
    in_sum_tensor: &LocalTensor<T2>,
    in_max_tensor: &LocalTensor<T2>,
    src_tensor: &LocalTensor<T1>,
    tiling: &SoftMaxTiling,
    shape_info: &SoftMaxShapeInfo,
) {
    let tmp = stack_tensor(SIMPLE);
    simple_soft_max_impl::<T1, T2, IS_BASIC_BLOCK>(
        dst_tensor,
        in_sum_tensor,
        in_max_tensor,
        src_tensor,
        &tmp,
        tiling,
        shape_info,
    );
}

// ---- SoftmaxGrad -----------------------------------------------------------------------------

const GRAD: &str = "SoftmaxGrad";

/// `AlignedReduceSumNDImpl` / `AlignedReduceMaxNDImpl`: per row, the 8 block sums (maxima) of
/// each 64-value group combined group by group, then one `BlockReduceSum` (`BlockReduceMax`)
/// of the 8: one value per row, compact, in `dst`.
#[track_caller]
fn aligned_reduce(kind: Kind, dst: &F, src: &F, tmp: &F, rp: &ReduceLastNd, split_count: usize) {
    let src_rep = (rp.src_k / FLOAT_BLK) as u16;
    let (rows64, rows8) = ((rp.src_m * 64) as u64, (rp.src_m * FLOAT_BLK) as u64);
    set_mask_count();
    set_vector_mask::<f32>(rows64);
    block_reduce(kind, tmp, src, 1, 1, 1, src_rep);
    set_mask_norm();
    reset_mask();
    pipe_barrier::<PIPE_V>();
    data_copy_params(dst, tmp, &DataCopyParams::new(1, rp.src_m as u16, 0, 0));
    pipe_barrier::<PIPE_V>();
    set_mask_count();
    for i in 1..split_count {
        set_vector_mask::<f32>(rows64);
        block_reduce(kind, tmp, &src.view(i * 64), 1, 1, 1, src_rep);
        pipe_barrier::<PIPE_V>();
        set_vector_mask::<f32>(rows8);
        op::<false>(kind, dst, dst, tmp, MASK_PLACEHOLDER, 1, &bin(1, 1, 1, 8, 8, 8));
        pipe_barrier::<PIPE_V>();
    }
    set_vector_mask::<f32>(rows8);
    block_reduce(kind, dst, dst, 1, 1, 1, 8);
    set_mask_norm();
    reset_mask();
}

/// `SingleBlockBroadCastImpl`: each row's value (compact in `src`) to `dst_k` copies in `dst`:
/// `Brcb` for whole groups of 8 rows, the scalar unit and `Duplicate` for the rest.
#[track_caller]
fn single_block_broadcast(dst: &F, src: &F, rp: &ReduceLastNd) {
    let (range, tail) = (rp.original_src_m / 8, rp.original_src_m % 8);
    if range != 0 {
        if rp.dst_k == 2 * FLOAT_BLK {
            brcb(dst, src, range as u8, &BrcbRepeatParams::new(2, 16));
            brcb(&dst.view(FLOAT_BLK), src, range as u8, &BrcbRepeatParams::new(2, 16));
        } else {
            brcb(dst, src, range as u8, &BrcbRepeatParams::new(1, 8));
        }
    }
    if tail != 0 {
        let (vs, sv) = (<HardEvent::V_S as Event>::EVENT, <HardEvent::S_V as Event>::EVENT);
        let vs_id = fetch_free_event("TPipe::FetchEventID", vs);
        let sv_id = fetch_free_event("TPipe::FetchEventID", sv);
        set_flag_event(vs, vs_id);
        wait_flag_event(vs, vs_id);
        let vals: Vec<f32> = (0..tail).map(|j| src.get_value(range * 8 + j)).collect();
        set_flag_event(sv, sv_id);
        wait_flag_event(sv, sv_id);
        for (k, &v) in vals.iter().enumerate() {
            let d = dst.view((range * 8 + k) * rp.dst_k);
            duplicate_masked::<f32, true>(&d, v, rp.dst_k as u64, 1, 1, 8);
        }
    }
}

/// `ReduceSumLastNDImpl` / `ReduceMaxLastNDImpl` (the older row reductions `SoftmaxGrad` and
/// `SoftmaxFlash` use): [`aligned_reduce`] over the 64-value groups, `WholeReduceSum`
/// (`WholeReduceMax`) over the tail combined with it, and the broadcast to `dst_k` copies per
/// row in `dst`; `tmp` holds 8 floats per row.
#[track_caller]
pub(crate) fn reduce_last_nd_old(kind: Kind, dst: &F, src: &F, tmp: &F, rp: &ReduceLastNd) {
    let (split, tail) = (rp.original_src_k / 64, rp.original_src_k % 64);
    if split > 0 {
        aligned_reduce(kind, tmp, src, dst, rp, split);
    }
    if tail != 0 {
        split_reduce(kind, dst, src, rp, tail as u64, split);
        pipe_barrier::<PIPE_V>();
        if split == 0 {
            data_copy_params(tmp, dst, &DataCopyParams::new(1, rp.src_m as u16, 0, 0));
        } else {
            set_mask_count();
            set_vector_mask::<f32>((rp.src_m * FLOAT_BLK) as u64);
            op::<false>(kind, tmp, tmp, dst, MASK_PLACEHOLDER, 1, &bin(1, 1, 1, 8, 8, 8));
            set_mask_norm();
            reset_mask();
        }
    }
    pipe_barrier::<PIPE_V>();
    single_block_broadcast(dst, tmp, rp);
}

/// `BroadCastLastImpl` (the chip's branch): `Copy` in counter mode, `src_m * 8` elements a
/// repeat, one column block of every row per repeat.
#[track_caller]
pub(crate) fn broadcast_last(dst: &F, src: &F, dst_k: usize, src_m: usize, src_k: usize) {
    let low = (src_m * FLOAT_BLK) as u64;
    let repeat = dst_k / FLOAT_BLK;
    let p = CopyRepeatParams::new(repeat as u16, (src_k / FLOAT_BLK) as u16, 1, 0);
    let (range, tail) = (repeat / 255, repeat % 255);
    set_mask_count();
    for i in 0..range {
        copy_masked::<f32, true>(&dst.view(i * FLOAT_BLK * 255), src, Mask::Bits([low, 0]), 255, &p);
    }
    if tail != 0 {
        copy_masked::<f32, true>(
            &dst.view(range * FLOAT_BLK * 255),
            src,
            Mask::Bits([low, 0]),
            tail as u8,
            &p,
        );
    }
    set_mask_norm();
    reset_mask();
}

/// The kernel-side `SoftMaxGradTilingFunc(workSize, {m, k}, tiling, 32 / sizeof(T), isFront)`
/// (ND, not basic block).
#[track_caller]
fn grad_device_tiling(
    api: &'static str,
    work: usize,
    m: u32,
    k: u32,
    per_blk: u32,
    is_front: bool,
    bb: bool,
) -> SoftMaxTiling {
    let per_row = grad_per_row(per_blk, k, is_front);
    ensure(work as u32 >= per_row, api, || {
        format!(
            "the temporary buffer holds {work} floats, fewer than the {per_row} one row of k = {k} needs in the tiling \
             the kernel recomputes (softmaxgrad need min tmpbuffer is not enough)"
        )
    });
    let mut reduce_m = work as u32 / per_row;
    if reduce_m < m && reduce_m > 8 {
        reduce_m = reduce_m / 8 * 8;
    }
    reduce_m = reduce_m.min(m);
    if bb && is_front && reduce_m > 8 && m % 8 == 0 {
        reduce_m = reduce_m / 8 * 8;
        while m % reduce_m != 0 {
            reduce_m -= 8;
        }
        while reduce_m * k >= 64 * 256 {
            reduce_m /= 2;
        }
    }
    rows_tiling(m, k, per_blk, reduce_m)
}

/// The floats of temporary buffer one row takes in `SoftMaxGradTilingFunc`.
fn grad_per_row(per_blk: u32, k: u32, is_front: bool) -> u32 {
    if per_blk != 8 {
        per_blk * 2 + k * 3 + 64
    } else if is_front {
        per_blk + k + 64
    } else {
        k + per_blk * 2 + 64
    }
}

/// Bytes of temporary buffer with which [`softmax_grad`] computes all rows in one round
/// (AscendC `GetSoftMaxGradMaxTmpSize(srcShape, dataTypeSize, isFront, isReuseSource)` for
/// Ascend910B): `m` times `2 * 16 + 3k + 64` floats for `half`, `8 + k + 64` (`isFront`) or
/// `2 * 8 + k + 64` for `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_soft_max_grad_max_tmp_size(&[4, 32], 2, false, false), 4 * (32 + 96 + 64) * 4);
/// assert_eq!(get_soft_max_grad_max_tmp_size(&[4, 32], 4, true, false), 4 * (8 + 32 + 64) * 4);
/// ```
///
/// # Panics
/// Panics if the shape has no elements, its last axis is 0 or not 32-byte aligned, or
/// `data_type_size` is not 2 or 4.
#[track_caller]
pub fn get_soft_max_grad_max_tmp_size(
    src_shape: &[u32],
    data_type_size: u32,
    is_front: bool,
    is_reuse_source: bool,
) -> u32 {
    let _ = is_reuse_source;
    let (m, k) = host_shape("GetSoftMaxGradMaxTmpSize", src_shape, data_type_size);
    m * grad_per_row(32 / data_type_size, k, is_front) * 4
}

/// The fewest bytes of temporary buffer [`softmax_grad`] works with, one row per round (AscendC
/// `GetSoftMaxGradMinTmpSize(srcShape, dataTypeSize, isFront, isReuseSource)` for
/// Ascend910B).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_soft_max_grad_min_tmp_size(&[4, 32], 4, false, false), (16 + 32 + 64) * 4);
/// ```
///
/// # Panics
/// As [`get_soft_max_grad_max_tmp_size`].
#[track_caller]
pub fn get_soft_max_grad_min_tmp_size(
    src_shape: &[u32],
    data_type_size: u32,
    is_front: bool,
    is_reuse_source: bool,
) -> u32 {
    let _ = is_reuse_source;
    let (_, k) = host_shape("GetSoftMaxGradMinTmpSize", src_shape, data_type_size);
    grad_per_row(32 / data_type_size, k, is_front) * 4
}

/// The host tiling of [`softmax_grad`] (AscendC `SoftMaxGradTilingFunc(srcShape,
/// dataTypeSize, localWorkSpaceSize, softmaxGradTiling, isFront)`): rounds of the rows the
/// buffer holds (per row as [`get_soft_max_grad_min_tmp_size`]), rounded down to a multiple of
/// 8 above 8 rows, and for a basic-block shape (`m` a multiple of 8, `k` of 64) the largest
/// multiple of 8 dividing `m`, halved while `splitM * k >= 16384`.
///
/// ```
/// use ascend_core::prelude::*;
/// let t = soft_max_grad_tiling_func(&[20, 32], 4, 18 * (16 + 32 + 64) * 4, false);
/// assert_eq!((t.split_m, t.range_m, t.tail_m, t.reduce_k), (16, 1, 4, 8));
/// ```
///
/// # Panics
/// As [`get_soft_max_grad_max_tmp_size`], and if `local_work_space_size` is 0.
#[track_caller]
pub fn soft_max_grad_tiling_func(
    src_shape: &[u32],
    data_type_size: u32,
    local_work_space_size: u32,
    is_front: bool,
) -> SoftMaxTiling {
    let api = "SoftMaxGradTilingFunc";
    let (m, k) = host_shape(api, src_shape, data_type_size);
    ensure(local_work_space_size > 0, api, || "localWorkSpaceSize is 0; it must be greater than 0".into());
    let per_blk = 32 / data_type_size;
    let mut base_m = (local_work_space_size / 4 / grad_per_row(per_blk, k, is_front)).min(m);
    if base_m < m && base_m > 8 {
        base_m = base_m / 8 * 8;
    }
    if base_m > 8 && m % 8 == 0 && k % 64 == 0 {
        base_m = base_m / 8 * 8;
        while m % base_m != 0 {
            base_m -= 8;
        }
        while base_m * k >= 64 * 256 {
            base_m /= 2;
        }
    }
    rows_tiling(m, k, per_blk, base_m)
}

/// One round of `SoftmaxGrad` for `half` (`SoftmaxGradNDGenericImpl`).
#[allow(clippy::too_many_arguments)]
#[track_caller]
fn grad_half_round(
    dst: &LocalTensor<f16>,
    grad: &LocalTensor<f16>,
    src: &LocalTensor<f16>,
    work: &F,
    t: &SoftMaxTiling,
    rp: &ReduceLastNd,
    is_front: bool,
    o: (usize, usize, usize, usize),
) {
    let (o1, o2, split, reduce) = o;
    let (ss, rs) = (t.split_size as usize, t.reduce_size as usize);
    let (sb, gb, db) = (work.view(0), work.view(ss), work.view(2 * ss));
    let (rb, ab) = (work.view(3 * ss), work.view(3 * ss + rs));
    cast(&sb, &src.view(o1), RoundMode::CastNone, split);
    cast(&gb, &grad.view(o1), RoundMode::CastNone, split);
    pipe_barrier::<PIPE_V>();
    mul(&db, &sb, &gb, split);
    pipe_barrier::<PIPE_V>();
    reduce_last_nd_old(Kind::Sum, &ab, &db, &rb, rp);
    pipe_barrier::<PIPE_V>();
    if is_front {
        cast(&dst.view(o2), &ab, RoundMode::CastRound, reduce);
    } else {
        // The vendor's local `brcParam` of `reduceM` rows, in the tail round too.
        broadcast_last(&db, &ab, t.src_k as usize, t.reduce_m as usize, t.reduce_k as usize);
        pipe_barrier::<PIPE_V>();
        sub(&db, &gb, &db, split);
        pipe_barrier::<PIPE_V>();
        mul(&db, &db, &sb, split);
        pipe_barrier::<PIPE_V>();
        cast(&dst.view(o1), &db, RoundMode::CastRound, split);
    }
}

/// One round of `SoftmaxGrad` for `float`: `SoftmaxGradPostProcess`'s loop body
/// (`is_front = false`) or `SoftmaxGradFrontNDImpl<float>`'s (with `gradTensor` and
/// `srcTensor` swapped, as the vendor passes them).
#[allow(clippy::too_many_arguments)]
#[track_caller]
fn grad_float_round(
    dst: &F,
    grad: &F,
    src: &F,
    work: &F,
    t: &SoftMaxTiling,
    rp: &ReduceLastNd,
    is_front: bool,
    o: (usize, usize, usize),
) {
    let (o1, o2, split) = o;
    let (ss, rs) = (t.split_size as usize, t.reduce_size as usize);
    if is_front {
        let (sb, rb) = (work.view(0), work.view(ss));
        mul(&sb, &grad.view(o1), &src.view(o1), split);
        pipe_barrier::<PIPE_V>();
        reduce_last_nd_old(Kind::Sum, &dst.view(o2), &sb, &rb, rp);
        pipe_barrier::<PIPE_V>();
    } else {
        let (sb, rb, ab) = (work.view(0), work.view(ss), work.view(ss + rs));
        mul(&sb, &src.view(o1), &grad.view(o1), split);
        pipe_barrier::<PIPE_V>();
        reduce_last_nd_old(Kind::Sum, &ab, &sb, &rb, rp);
        pipe_barrier::<PIPE_V>();
        broadcast_last(&sb, &ab, t.src_k as usize, t.reduce_m as usize, FLOAT_BLK);
        pipe_barrier::<PIPE_V>();
        sub(&sb, &grad.view(o1), &sb, split);
        pipe_barrier::<PIPE_V>();
        mul(&dst.view(o1), &src.view(o1), &sb, split);
    }
}

/// `SoftmaxGradImpl` + `SoftmaxGradPostProcess` (ND), or with `front_bb = Some(isBasicBlock)`
/// `SoftmaxGradFrontImpl` + `SoftmaxGradFrontNDImpl`.
#[allow(clippy::too_many_arguments)]
#[track_caller]
fn softmax_grad_impl<T: SoftMaxElement>(
    dst: &LocalTensor<T>,
    grad: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: &LocalTensor<u8>,
    tiling: &SoftMaxTiling,
    is_front: bool,
    shape: &SoftMaxShapeInfo,
    front_bb: Option<bool>,
) {
    let api = if front_bb.is_some() { FRONT } else { GRAD };
    let is_front = is_front || front_bb.is_some();
    let bb = front_bb == Some(true);
    check_910b(api);
    check_ub(
        api,
        &[
            ("dstTensor", dst.get_position()),
            ("gradTensor", grad.get_position()),
            ("srcTensor", src.get_position()),
            ("sharedTmpBuffer", tmp.get_position()),
        ],
    );
    check_shape::<T>(api, shape);
    let half = T::DTYPE == DType::F16;
    let per_blk = (32 / T::SIZE) as u32;
    let work = tmp.get_size() / 4;
    let t = if shape.src_k != tiling.src_k || shape.src_m != tiling.src_m {
        grad_device_tiling(api, work, shape.src_m, shape.src_k, per_blk, is_front, bb)
    } else {
        *tiling
    };
    ensure(t.split_m > 0 && t.split_k == shape.src_k && t.reduce_k % 8 == 0 && t.reduce_k > 0, api, || {
        format!(
            "tiling has splitM = {}, splitK = {} and reduceK = {} for srcK = {}; fill it with SoftMaxGradTilingFunc",
            t.split_m, t.split_k, t.reduce_k, shape.src_k
        )
    });
    let (ss, rs) = (t.split_size as usize, t.reduce_size as usize);
    if bb {
        let k = shape.src_k as usize;
        ensure(k % 64 == 0 && k < 2048, api, || {
            format!("isBasicBlock = true needs srcK a multiple of 64 below 2048; srcK = {k}")
        });
        ensure(shape.src_m % 8 == 0, api, || {
            format!("isBasicBlock = true needs srcM a multiple of 8; srcM = {}", shape.src_m)
        });
        ensure(ss / 64 <= 255, api, || {
            format!(
                "isBasicBlock = true: splitM = {} rows of srcK = {k} make {} repeats, more than 255; make the tiling \
                 with SoftMaxGradTilingFunc",
                t.split_m,
                ss / 64
            )
        });
    }
    let need = if half {
        3 * ss + 2 * rs
    } else if is_front {
        ss + rs
    } else {
        ss + 2 * rs
    };
    ensure(work >= need, api, || {
        format!(
            "sharedTmpBuffer has {} bytes, less than the {} bytes the tiling's rounds of splitM = {} rows of {} need; \
             make the tiling with SoftMaxGradTilingFunc for this buffer's size",
            tmp.get_size(),
            need * 4,
            t.split_m,
            T::DTYPE
        )
    });
    let rows = (t.range_m as usize).saturating_mul(t.split_m as usize).saturating_add(t.tail_m as usize);
    let n = rows.saturating_mul(t.split_k as usize);
    check_len(api, "srcTensor", src, n, "elements of the tiling's rows");
    check_len(api, "gradTensor", grad, n, "elements of the tiling's rows");
    let out = if is_front { rows.saturating_mul(t.reduce_k as usize) } else { n };
    check_len(api, "dstTensor", dst, out, "elements the tiling's rows write");
    let (d, s, g) = (span("dstTensor", dst, out), whole("srcTensor", src), whole("gradTensor", grad));
    let w = ("sharedTmpBuffer", tmp.get_phy_addr(), tmp.get_phy_addr() + tmp.get_size());
    check_apart(api, &[(w, d), (w, s), (w, g)]);
    // `dst` may start where `src` or `grad` does: each round reads its rows before writing
    // (with `isFront` its row sums land on rows already read), as the vendor's example does.
    if d.1 != s.1 {
        check_apart(api, &[(d, s)]);
    }
    if d.1 != g.1 {
        check_apart(api, &[(d, g)]);
    }
    let work = tmp.reinterpret_cast::<f32>();
    let mut rp = ReduceLastNd {
        original_src_m: t.split_m as usize,
        original_src_k: shape.ori_src_k as usize,
        src_m: t.split_m as usize,
        src_k: t.split_k as usize,
        dst_k: t.reduce_k as usize,
    };
    let range = t.range_m as usize;
    let tail = (t.tail_m as usize, t.tail_split_size as usize, t.tail_reduce_size as usize);
    if front_bb.is_some() {
        set_mask_norm();
        reset_mask();
    }
    if half {
        let (d, g, s) =
            (dst.reinterpret_cast::<f16>(), grad.reinterpret_cast::<f16>(), src.reinterpret_cast::<f16>());
        for i in 0..range {
            if bb {
                front_bb_round(&d, &s, &g, &work, &t, i);
            } else {
                grad_half_round(&d, &g, &s, &work, &t, &rp, is_front, (i * ss, i * rs, ss, rs));
            }
        }
        if tail.0 != 0 {
            (rp.original_src_m, rp.src_m) = (tail.0, tail.0);
            grad_half_round(&d, &g, &s, &work, &t, &rp, is_front, (range * ss, range * rs, tail.1, tail.2));
        }
    } else {
        let (d, g, s) =
            (dst.reinterpret_cast::<f32>(), grad.reinterpret_cast::<f32>(), src.reinterpret_cast::<f32>());
        if is_front && front_bb.is_none() {
            set_mask_norm();
            reset_mask();
        }
        // SoftmaxGrad's front path passes (gradTensor, srcTensor) to SoftmaxGradFrontNDImpl's
        // (srcTensor, gradTensor): its Mul is grad * src, SoftmaxGradFront's src * grad.
        let (g, s) = if front_bb.is_some() { (s, g) } else { (g, s) };
        for i in 0..range {
            if bb {
                front_bb_round(&d, &g, &s, &work, &t, i);
            } else {
                grad_float_round(&d, &g, &s, &work, &t, &rp, is_front, (i * ss, i * rs, ss));
            }
        }
        if tail.0 != 0 {
            (rp.original_src_m, rp.src_m) = (tail.0, tail.0);
            grad_float_round(&d, &g, &s, &work, &t, &rp, is_front, (range * ss, range * rs, tail.1));
        }
    }
}

/// The gradient of softmax (AscendC `SoftmaxGrad<T, isReuseSource, isDataFormatNZ =
/// false>(dstTensor, gradTensor, srcTensor, sharedTmpBuffer, tiling, isFront,
/// softmaxShapeInfo)`, ND): with `src` the softmax output `y` and `grad` the incoming gradient
/// `dy`, `dst = (dy - sum(dy * y)) * y` row by row, or with `is_front` only the row sums
/// `sum(dy * y)`, `32 / sizeof(T)` copies per row.
///
/// As the vendor's `SoftmaxGradPostProcess` on Ascend910B, with the tiling recomputed in the
/// kernel (`SoftMaxGradTilingFunc` from the buffer's size) when `shape_info`'s `src_m`/`src_k`
/// differ from `tiling`'s, in rounds of `splitM` rows and a tail: `Mul`, the row sum of the
/// older `ReduceSumLastNDImpl` (per row the 8 block sums of each 64-column group added group by
/// group, one `BlockReduceSum` of the 8, plus the 64-lane `WholeReduceSum` of the tail of
/// `ori_src_k % 64` columns; broadcast by `Brcb` for groups of 8 rows and by the scalar unit
/// and `Duplicate` for the rest), the broadcast over the row (`Copy` in counter mode), `Sub`
/// and `Mul`; `half` in `float` in the buffer, narrowed with `CAST_ROUND`. `IS_REUSE_SOURCE` is
/// reserved. `dst` may start at `src` or `grad` (with `is_front` too). Leaves the mask as the
/// vendor's code does (the last instruction's).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut t) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 3 * 2 * 8 * 4);
/// let tmp = get_soft_max_grad_max_tmp_size(&[2, 8], 4, false, false);
/// pipe.init_tbuf(&mut t, tmp as usize);
/// let (y, dy, dx) = (a.get_with_offset::<f32>(16, 0), a.get_with_offset::<f32>(16, 64), a.get_with_offset::<f32>(16, 128));
/// y.copy_from_slice(&[0.125f32; 16]);
/// dy.copy_from_slice(&[[1.0f32; 8], [2.0; 8]].concat());
/// let tiling = soft_max_grad_tiling_func(&[2, 8], 4, tmp, false);
/// softmax_grad::<f32, false>(&dx, &dy, &y, &t.get::<u8>(), &tiling, false, &SoftMaxShapeInfo::new(2, 8, 2, 8));
/// assert_eq!((dx.get_value(0), dx.get_value(15)), (0.0, 0.0)); // dy - sum(dy * y) = 0
/// ```
///
/// # Panics
/// Panics if the chip is not Ascend910B; a tensor is not in the Unified Buffer;
/// `shape_info.src_m` or `src_k` is 0, `src_k` is not 32-byte aligned, or `ori_src_k`/`ori_src_m`
/// is 0 or exceeds `src_k`/`src_m`; the tiling is not one for `src_k`, or its rounds need more
/// temporary buffer than `shared_tmp_buffer` (or a recomputed tiling fits no row); `src`/`grad`
/// hold fewer elements than the tiling's rows, or `dst` fewer than they write; the buffer
/// overlaps an operand or `dst` overlaps `src`/`grad` other than at the same address; or any
/// instruction's own check fails.
#[track_caller]
pub fn softmax_grad<T: SoftMaxElement, const IS_REUSE_SOURCE: bool>(
    dst_tensor: &LocalTensor<T>,
    grad_tensor: &LocalTensor<T>,
    src_tensor: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    tiling: &SoftMaxTiling,
    is_front: bool,
    shape_info: &SoftMaxShapeInfo,
) {
    softmax_grad_impl(
        dst_tensor,
        grad_tensor,
        src_tensor,
        shared_tmp_buffer,
        tiling,
        is_front,
        shape_info,
        None,
    );
}

/// [`softmax_grad`] with the temporary buffer from the stack buffer (AscendC `SoftmaxGrad<T,
/// isReuseSource>(dstTensor, gradTensor, srcTensor, tiling, isFront, softmaxShapeInfo)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut a = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut a, 2 * 4 * 16 * 2 + 4 * 16 * 2);
/// let (y, dy) = (a.get_with_offset::<f16>(64, 0), a.get_with_offset::<f16>(64, 128));
/// let front = a.get_with_offset::<f16>(64, 256);
/// y.copy_from_slice(&[f16::from_f32(0.0625); 64]);
/// dy.copy_from_slice(&[f16::from_f32(2.0); 64]);
/// let tiling = soft_max_grad_tiling_func(&[4, 16], 2, 4096, true);
/// softmax_grad_stack::<f16, false>(&front, &dy, &y, &tiling, true, &SoftMaxShapeInfo::new(4, 16, 4, 16));
/// assert_eq!(front.get_value(63).to_f32(), 2.0); // sum(dy * y) = 16 * 2 / 16
/// ```
///
/// # Panics
/// As [`softmax_grad`], and if the core has no `TPipe` or its buffers leave no stack buffer.
#[track_caller]
pub fn softmax_grad_stack<T: SoftMaxElement, const IS_REUSE_SOURCE: bool>(
    dst_tensor: &LocalTensor<T>,
    grad_tensor: &LocalTensor<T>,
    src_tensor: &LocalTensor<T>,
    tiling: &SoftMaxTiling,
    is_front: bool,
    shape_info: &SoftMaxShapeInfo,
) {
    let tmp = stack_tensor(GRAD);
    softmax_grad_impl(dst_tensor, grad_tensor, src_tensor, &tmp, tiling, is_front, shape_info, None);
}

const FRONT: &str = "SoftmaxGradFront";

/// One round of `SoftmaxGradFrontNDImpl`'s basic block (`half` or `float`, whole rounds): `Mul`
/// (after widening `half`), the 64-value groups added one by one into the first, two
/// `BlockReduceSum`s, `Brcb` to one 32-byte block of `T` per row (`half`: 16 floats, narrowed).
#[track_caller]
fn front_bb_round<T: Element>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    grad: &LocalTensor<T>,
    work: &F,
    t: &SoftMaxTiling,
    i: usize,
) {
    use crate::vector::binary::mul_masked;
    use crate::vector::cast::cast_masked;
    use crate::vector::reduction::block_reduce_sum;
    let (ss, rs, m) = (t.split_size as usize, t.reduce_size as usize, t.split_m as u8);
    let groups = t.split_k as usize / 64;
    let off = (groups * FLOAT_BLK) as u8;
    let ceil_m = (t.split_m as usize).div_ceil(FLOAT_BLK) as u8;
    let repeat = (ss / 64) as u8;
    let (o1, o2) = (i * ss, i * rs);
    let same = bin(1, 1, 1, 8, 8, 8);
    let half = T::DTYPE == DType::F16;
    let (prod, rb) =
        if half { (work.view(2 * ss), work.view(3 * ss)) } else { (work.view(0), work.view(ss)) };
    if half {
        let (sb, gb) = (work.view(0), work.view(ss));
        let widen = UnaryRepeatParams::new(1, 1, 8, 4);
        let (s, g) = (src.reinterpret_cast::<f16>(), grad.reinterpret_cast::<f16>());
        cast_masked::<f32, f16, false>(
            &sb,
            &s.view(o1),
            RoundMode::CastNone,
            MASK_PLACEHOLDER,
            repeat,
            &widen,
        );
        cast_masked::<f32, f16, false>(
            &gb,
            &g.view(o1),
            RoundMode::CastNone,
            MASK_PLACEHOLDER,
            repeat,
            &widen,
        );
        pipe_barrier::<PIPE_V>();
        mul_masked::<f32, false>(&prod, &sb, &gb, MASK_PLACEHOLDER, repeat, &same);
    } else {
        pipe_barrier::<PIPE_V>();
        let (s, g) = (src.reinterpret_cast::<f32>(), grad.reinterpret_cast::<f32>());
        mul_masked::<f32, false>(&prod, &s.view(o1), &g.view(o1), MASK_PLACEHOLDER, repeat, &same);
    }
    for j in 1..groups {
        pipe_barrier::<PIPE_V>();
        add_masked::<f32, false>(
            &prod,
            &prod,
            &prod.view(64 * j),
            MASK_PLACEHOLDER,
            m,
            &bin(1, 1, 1, off, off, off),
        );
    }
    pipe_barrier::<PIPE_V>();
    block_reduce_sum::<f32, false>(&prod, &prod, m, MASK_PLACEHOLDER, 1, 1, u16::from(off));
    pipe_barrier::<PIPE_V>();
    block_reduce_sum::<f32, false>(&rb, &prod, ceil_m, MASK_PLACEHOLDER, 1, 1, 8);
    pipe_barrier::<PIPE_V>();
    if half {
        brcb(&prod, &rb, ceil_m, &BrcbRepeatParams::new(2, 16));
        brcb(&prod.view(8), &rb, ceil_m, &BrcbRepeatParams::new(2, 16));
        pipe_barrier::<PIPE_V>();
        let d = dst.reinterpret_cast::<f16>().view(o2);
        let narrow = UnaryRepeatParams::new(1, 1, 4, 8);
        let reduce_ceil = rs.div_ceil(64) as u8;
        cast_masked::<f16, f32, false>(
            &d,
            &prod,
            RoundMode::CastRound,
            MASK_PLACEHOLDER,
            reduce_ceil,
            &narrow,
        );
    } else {
        brcb(&dst.reinterpret_cast::<f32>().view(o2), &rb, ceil_m, &BrcbRepeatParams::new(1, 8));
    }
}

/// The row sums of the softmax gradient (AscendC `SoftmaxGradFront<T, isBasicBlock,
/// isDataFormatNZ = false>(dstTensor, gradTensor, srcTensor, sharedTmpBuffer, tiling,
/// softmaxShapeInfo)`, ND): `sum(grad * src)` per row, `32 / sizeof(T)` copies per row in
/// `dst` — [`softmax_grad`]'s `is_front` result.
///
/// As the vendor's `SoftmaxGradFrontNDImpl` on Ascend910B: normal mode with the full mask, then
/// rounds as [`softmax_grad`]'s front path (the tiling recomputed with `isFront` and
/// `isBasicBlock` for another shape); with `IS_BASIC_BLOCK` the whole rounds take the basic
/// block (normal-mode repeats: per row the 64-value groups added into the first one by one,
/// then two `BlockReduceSum`s — per row the tree of the 8 block sums of that 64-lane
/// accumulator — and `Brcb`), the tail round the general path.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut t) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 2 * 8 * 64 * 4 + 8 * 8 * 4);
/// let tmp = get_soft_max_grad_max_tmp_size(&[8, 64], 4, true, false);
/// pipe.init_tbuf(&mut t, tmp as usize);
/// let (y, dy) = (a.get_with_offset::<f32>(512, 0), a.get_with_offset::<f32>(512, 2048));
/// let out = a.get_with_offset::<f32>(64, 4096);
/// y.copy_from_slice(&[0.5f32; 512]);
/// dy.copy_from_slice(&[3.0f32; 512]);
/// let tiling = soft_max_grad_tiling_func(&[8, 64], 4, tmp, true);
/// let info = SoftMaxShapeInfo::new(8, 64, 8, 64);
/// softmax_grad_front::<f32, true>(&out, &dy, &y, &t.get::<u8>(), &tiling, &info);
/// assert_eq!(out.get_value(63), 96.0);
/// ```
///
/// # Panics
/// As [`softmax_grad`] with `is_front`, and with `IS_BASIC_BLOCK` if `src_k` is not a multiple
/// of 64 below 2048, `src_m` not a multiple of 8, or a round has more than 255 repeats.
#[track_caller]
pub fn softmax_grad_front<T: SoftMaxElement, const IS_BASIC_BLOCK: bool>(
    dst_tensor: &LocalTensor<T>,
    grad_tensor: &LocalTensor<T>,
    src_tensor: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    tiling: &SoftMaxTiling,
    shape_info: &SoftMaxShapeInfo,
) {
    softmax_grad_impl(
        dst_tensor,
        grad_tensor,
        src_tensor,
        shared_tmp_buffer,
        tiling,
        true,
        shape_info,
        Some(IS_BASIC_BLOCK),
    );
}

/// [`softmax_grad_front`] with the temporary buffer from the stack buffer (AscendC
/// `SoftmaxGradFront<T, isBasicBlock>(dstTensor, gradTensor, srcTensor, tiling,
/// softmaxShapeInfo)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut a = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut a, 3 * 2 * 32 * 4);
/// let (y, dy, out) = (a.get_with_offset::<f32>(64, 0), a.get_with_offset::<f32>(64, 256), a.get_with_offset::<f32>(16, 512));
/// y.copy_from_slice(&[0.25f32; 64]);
/// dy.copy_from_slice(&[1.0f32; 64]);
/// let tiling = soft_max_grad_tiling_func(&[2, 32], 4, 4096, true);
/// softmax_grad_front_stack::<f32, false>(&out, &dy, &y, &tiling, &SoftMaxShapeInfo::new(2, 32, 2, 32));
/// assert_eq!(out.get_value(15), 8.0);
/// ```
///
/// # Panics
/// As [`softmax_grad_front`], and if the core has no `TPipe` or its buffers leave no stack
/// buffer.
#[track_caller]
pub fn softmax_grad_front_stack<T: SoftMaxElement, const IS_BASIC_BLOCK: bool>(
    dst_tensor: &LocalTensor<T>,
    grad_tensor: &LocalTensor<T>,
    src_tensor: &LocalTensor<T>,
    tiling: &SoftMaxTiling,
    shape_info: &SoftMaxShapeInfo,
) {
    let tmp = stack_tensor(FRONT);
    softmax_grad_impl(
        dst_tensor,
        grad_tensor,
        src_tensor,
        &tmp,
        tiling,
        true,
        shape_info,
        Some(IS_BASIC_BLOCK),
    );
}
