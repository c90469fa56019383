//! The rest of the softmax family of the advanced API (the vendor's `adv_api/activation`),
//! ND format, default `SoftmaxConfig`, written as the vendor's `membase` implementations write
//! them for Ascend910B (`__NPU_ARCH__` 2201) on top of [`SoftMax`](crate::adv::softmax)'s
//! building blocks (its `NewReduceMaxLastNDImpl`/`NewReduceSumLastNDImpl`, `GenericSubNDImpl`,
//! `GenericDivNDImpl`, its kernel-side `SoftMaxTilingFunc` and its round loop):
//!
//! - `LogSoftMax` ([`log_soft_max`]) with its host helpers `GetLogSoftMaxMaxTmpSize`,
//!   `GetLogSoftMaxMinTmpSize` and `LogSoftMaxTilingFunc` (the same numbers as `SoftMax`'s);
//! - `SimpleSoftMax` ([`simple_soft_max`], [`simple_soft_max_stack`]): the softmax from given
//!   row maxima and sums, with `SoftMax`'s tiling.
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
//! Chips: Ascend910B only. `LogSoftMax` and `SimpleSoftMax` also build for Ascend310P
//! (`membase/v200`, whose reductions differ), not modelled here (as `SoftMax`); the calls fail
//! with a message naming the chip.

use crate::ctx::get_soc;
use crate::element::{f16, DType, Element};
use crate::error::ensure;
use crate::soc::Soc;
use crate::sync::{pipe_barrier, PIPE_V};
use crate::tensor::LocalTensor;
use crate::vector::cast::{cast, RoundMode};
use crate::vector::mask::{reset_mask, set_mask_count, set_mask_norm, set_vector_mask, MASK_PLACEHOLDER};
use crate::vector::params::UnaryRepeatParams;
use crate::vector::scalar::muls_masked;
use crate::vector::unary::{exp, ln_masked};

use super::softmax::{
    device_tiling, generic_float, generic_half_half, generic_nd, host_shape, rounds, SoftMaxElement,
    SoftMaxShapeInfo, SoftMaxStatElement, SoftMaxTiling, F,
};
use super::{check_apart, span, stack_tensor, whole, SAME};

/// `SOFTMAX_SUB_DIV_ROW_COLUMN_SIZE`: below this `srcK`, column block by column block.
const ROW_COLUMN: usize = 192;
/// `FLOAT_NUM_PER_BLK`.
const FLOAT_BLK: usize = 8;
/// `SCALAR_NATURE_LOG_10`: the vendor's `0.4342944819` as `float`, which is `log10(e)` rounded
/// to `float`.
const NATURE_LOG_10: f32 = std::f32::consts::LOG10_E;

// ---- shared checks -----------------------------------------------------------------------

/// Ascend910B only (the `membase/v220` path; Ascend310P's `v200` is not modelled).
#[track_caller]
fn check_910b(api: &'static str) {
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
fn check_ub(api: &'static str, operands: &[(&'static str, crate::position::TPosition)]) {
    for &(name, pos) in operands {
        ensure(pos.is_ub(), api, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
    }
}

/// `softmaxShapeInfo`'s checks (as `SoftMax`'s).
#[track_caller]
fn check_shape<T: Element>(api: &'static str, shape: &SoftMaxShapeInfo) {
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

/// `t` holds at least `need` elements.
#[track_caller]
fn check_len<T: Element>(api: &'static str, name: &'static str, t: &LocalTensor<T>, need: usize, what: &str) {
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
