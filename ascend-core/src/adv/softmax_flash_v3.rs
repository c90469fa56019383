//! `SoftmaxFlashV3` of the advanced API (the vendor's `adv_api/activation/softmaxflashv3.h`,
//! the "Softmax PASA" step), ND, `half` data with `float` statistics, written as the vendor's
//! implementation for Ascend910B writes it (`softmax_flashv3_base_impl.h`,
//! `membase/v220/softmax_flashv3_impl.h`), on top of [`SoftMax`](crate::adv::softmax)'s
//! building blocks (`BigBlockReduceSum`, `NewReduceMaxLastNDImpl`/`NewReduceSumLastNDImpl`,
//! `GenericSubNDImpl`, `BroadCastLastImpl`), with the host helpers
//! `GetSoftMaxFlashV3MaxMinTmpSize` and `SoftMaxFlashV3TilingFunc`.
//!
//! Per round of the tiling's `splitM` rows (`rangeM` rounds, then `tailM` rows), in `float`:
//! 1. `ModifyInputImpl`: the row's 64 partial sums (8-element block sums of the first 512
//!    columns, then the later 64-column groups added lane by lane), their 8 block sums times
//!    `1/baseK` (`baseK = srcK / 8`) — the "local means" `l[b]` —, the row mean `g = (Σ l[b]) ·
//!    1/8`, and the source shifted by split: `x[c] -= (g − l[c / baseK]) · α/(1 − α)`;
//! 2. without `isUpdate`: `mean = g`; `max = rowmax(x) + (g − mean)·s`; `dst = exp(x − (max −
//!    (g − mean)·s))`; `expSum = rowsum(dst)`;
//! 3. with `isUpdate`: `mean = (inMean · (loopCnt − 1) + g) · (1/loopCnt)`; `shiftCurr = (g −
//!    mean)·s`, `shiftPrev = (inMean − mean)·s`; `max = max(rowmax(x) + shiftCurr, inMax +
//!    shiftPrev)`; `expMax = exp(inMax − max + shiftPrev)`; `dst = exp(x − (max − shiftCurr))`;
//!    `expSum = expMax · inExpSum + rowsum(dst)`; `expMaxTensor` gets `expMax` as 16 `half`s a
//!    row.
//!
//! `dst` and `expMax` are narrowed with `CAST_ROUND` (the v220 `FLOAT2HALF_ROUND_MODE`); the
//! statistics are one 32-byte block (8 `float`s) a row. Each step is the vendor's instruction,
//! with its mask mode, counts and barriers; the scratch layout is the vendor's (`tmpBuffer0` of
//! `splitSize`, `meanTmp`, 64 a row, then `maxTmp`, `shiftCurr`, `shiftPrev` of `reduceSize`
//! and `tmpBuffer2` of `srcK`), including the vendor's `Muls` over `64 · rows` elements of the
//! 8-a-row local means (the values past them are not used; the `BlockReduceSum` after it runs
//! over the `8 · rows` that matter, see `reduce_sum`).
//!
//! The inputs may be the outputs (`meanTensor` = `inMeanTensor`, …, as the page allows); the
//! vendor's steps then read the overwritten values (with `meanTensor` = `inMeanTensor`,
//! `shiftPrev` is 0; with `maxTensor` = `inMaxTensor` too, the old maximum is replaced by the
//! new one before it is compared, so `expMax` is 1), as on the chip.
//!
//! Chips: Ascend910B. The page marks Ascend310P unsupported and its `membase/v200`
//! implementation is an assertion ("softmaxflashv3 is not supported on current device");
//! Ascend910 and Ascend310B do not build it. Those calls fail naming the chip.

use crate::element::f16;
use crate::kernel::ctx::get_soc;
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::soc::Soc;
use crate::sync::{event::PIPE_V, flags::pipe_barrier};
use crate::vector::binary::{add, max, mul, sub, sub_masked};
use crate::vector::brcb::{brcb, BrcbRepeatParams};
use crate::vector::cast::{cast, RoundMode};
use crate::vector::copy::{copy_masked, CopyRepeatParams};
use crate::vector::mask::{reset_mask, set_mask_count, set_mask_norm, MASK_PLACEHOLDER};
use crate::vector::params::UnaryRepeatParams;
use crate::vector::scalar::{muls, muls_masked};
use crate::vector::unary::exp;

use super::softmax::{
    big_block, bin, block_reduce, check_ub, generic_nd, host_shape, reduce_last_nd, rows_tiling, Kind,
    ReduceLastNd, SoftMaxTiling, F,
};
use super::softmax_more::{broadcast_last, check_len};
use super::{check_apart, count_mask, host_checks, span, stack_tensor};

const API: &str = "SoftmaxFlashV3";
/// `FLOAT_REPEAT_SIZE`.
const FLOAT_REPEAT: usize = 64;
/// `FLOAT_NUM_PER_BLK` (also `reduceK`: the statistics' floats a row).
const FLOAT_BLK: usize = 8;
/// `SOFTMAXV3_TMPBUFFER_COUNT`, `SOFTMAX_TMPBUFFER_COUNT`, `SOFTMAX_BASICBLOCK_UNIT`: the host's
/// floats a row, `8 · 5 + 2 · k + 64`.
const fn per_row(k: u32) -> u32 {
    8 * 5 + 2 * k + 64
}

/// The vendor's `SoftMaxParams`: the source's shape and the step's constants.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SoftMaxParams {
    /// Rows (`srcM`, the product of the non-last axes).
    pub src_m: u32,
    /// Last-axis length (`srcK`): at least 512 and a multiple of 64.
    pub src_k: u32,
    /// Original rows (`oriSrcM`, equal to `src_m`: unaligned shapes are not supported).
    pub ori_src_m: u32,
    /// Original last-axis length (`oriSrcK`, equal to `src_k`).
    pub ori_src_k: u32,
    /// The formula's loop count (`loopCnt`), at least 1 with `isUpdate`.
    pub loop_cnt: u32,
    /// Splits of a row for its local means (`splitMeanCnt`): 8.
    pub split_mean_cnt: u32,
    /// The formula's `alpha` (the page recommends 0.9375, 0.96889, 0.984497).
    pub alpha: f32,
}

impl SoftMaxParams {
    /// `{srcM, srcK, oriSrcM, oriSrcK, loopCnt, splitMeanCnt, alpha}`.
    pub const fn new(
        src_m: u32,
        src_k: u32,
        ori_src_m: u32,
        ori_src_k: u32,
        loop_cnt: u32,
        split_mean_cnt: u32,
        alpha: f32,
    ) -> Self {
        SoftMaxParams { src_m, src_k, ori_src_m, ori_src_k, loop_cnt, split_mean_cnt, alpha }
    }
}

/// One round: offsets into the data (`o1`) and the statistics (`o2`), its sizes and rows.
struct Round {
    o1: usize,
    o2: usize,
    split_size: usize,
    reduce_size: usize,
    rp: ReduceLastNd,
}

/// The scratch views of `SoftmaxFlashV3UpdateImpl`/`NoUpdateImpl` (at the tiling's sizes).
struct Work {
    tmp0: F,
    mean_tmp: F,
    tmp1: F,
    max_tmp: F,
    shift_curr: F,
    shift_prev: F,
    tmp2_no_update: F,
    tmp2_update: F,
}

impl Work {
    fn new(w: &F, t: &SoftMaxTiling) -> Work {
        let (s, r, x) = (t.split_size as usize, t.reduce_size as usize, t.split_m as usize * FLOAT_REPEAT);
        Work {
            tmp0: w.view(0),
            mean_tmp: w.view(s),
            tmp1: w.view(s + r),
            max_tmp: w.view(s + x + r),
            shift_curr: w.view(s + x + 2 * r),
            shift_prev: w.view(s + x + 3 * r),
            tmp2_no_update: w.view(s + x + 3 * r),
            tmp2_update: w.view(s + x + 4 * r),
        }
    }
}

/// `SoftmaxFlashV3ReduceSumImpl`: the rows' 64 partial sums into `dst`, their local means into
/// `row_mean_local` (8 a row), the row means into `mean_tmp` (8 copies a row) through
/// `row_mean_global_tmp`.
#[allow(clippy::too_many_arguments)] // the vendor's parameters
#[track_caller]
fn reduce_sum(dst: &F, src: &F, rml: &F, rmgt: &F, mean_tmp: &F, rp: &ReduceLastNd, base_k: usize, n: usize) {
    let m = rp.original_src_m;
    let split_count = rp.original_src_k / FLOAT_REPEAT;
    big_block(Kind::Sum, dst, src, split_count, m, rp.src_k);
    // `tailSrcK = originalSrcK % 64` is 0: `srcK` is a multiple of 64 and `oriSrcK` equals it
    // (both checked), so the vendor's `TailAddImpl` branch never runs.
    pipe_barrier::<PIPE_V>();
    set_mask_count();
    count_mask::<f32>(m * FLOAT_REPEAT);
    block_reduce(Kind::Sum, rml, dst, 1, 1, 1, 8);
    pipe_barrier::<PIPE_V>();
    let un = UnaryRepeatParams::default();
    if base_k != 0 {
        // Over `m · 64` elements, as the vendor's (its comment says `M * 8`).
        muls_masked::<f32, false>(rml, rml, 1.0 / base_k as f32, MASK_PLACEHOLDER, 1, &un);
    }
    pipe_barrier::<PIPE_V>();
    // The vendor issues this `BlockReduceSum` over the same `m · 64` elements: its repeats past
    // the first `m / 8` read what the `Muls` left past the local means and write
    // `rowMeanGlobalTmp[m..8m)` (inside that source: `rowMeanGlobalTmp` is `rowMeanLocal +
    // reduceSize`), which the `Copy` below overwrites before anything reads it. The row sums
    // come from the first `m` blocks only, so it is issued over `m · 8` elements: the same
    // results and the same scratch afterwards, without the partial overlap the emulator's
    // `BlockReduceSum` rejects.
    count_mask::<f32>(m * FLOAT_BLK);
    block_reduce(Kind::Sum, rmgt, rml, 1, 1, 1, 8);
    pipe_barrier::<PIPE_V>();
    brcb(dst, rmgt, m.div_ceil(8) as u8, &BrcbRepeatParams::new(1, 8));
    pipe_barrier::<PIPE_V>();
    count_mask::<f32>(m * rp.dst_k);
    copy_masked::<f32, false>(rmgt, dst, MASK_PLACEHOLDER, 1, &CopyRepeatParams::new(1, 1, 8, 8));
    pipe_barrier::<PIPE_V>();
    count_mask::<f32>(n);
    muls_masked::<f32, false>(mean_tmp, rmgt, 1.0 / FLOAT_BLK as f32, MASK_PLACEHOLDER, 1, &un);
    set_mask_norm();
    reset_mask();
}

/// `ModifyInputImpl`: `reduce_sum`, the shifts `(g − l[b]) · α/(1 − α)` and `x -= shift` row by
/// row (each split's shift spread over `baseK` columns in `tmp2`).
#[track_caller]
fn modify_input(src: &F, w: &Work, tmp2: &F, rp: &ReduceLastNd, p: &SoftMaxParams, n: usize) {
    let (rml, rmgt) = (&w.max_tmp, &w.shift_curr);
    let cnt = p.split_mean_cnt as usize;
    let base_k = rp.original_src_k / cnt;
    reduce_sum(&w.tmp1, src, rml, rmgt, &w.mean_tmp, rp, base_k, n);
    pipe_barrier::<PIPE_V>();
    set_mask_count();
    count_mask::<f32>(n);
    sub_masked::<f32, false>(rmgt, &w.mean_tmp, rml, MASK_PLACEHOLDER, 1, &bin(1, 1, 1, 8, 8, 8));
    pipe_barrier::<PIPE_V>();
    let s = p.alpha / (1.0 - p.alpha);
    muls_masked::<f32, false>(rmgt, rmgt, s, MASK_PLACEHOLDER, 1, &UnaryRepeatParams::default());
    pipe_barrier::<PIPE_V>();
    for i in 0..rp.original_src_m {
        brcb(&w.tmp1, &rmgt.view(i * cnt), 1, &BrcbRepeatParams::new(1, 8));
        pipe_barrier::<PIPE_V>();
        count_mask::<f32>(base_k);
        let cp = CopyRepeatParams::new(1, 0, (base_k / FLOAT_BLK) as u16, 1);
        copy_masked::<f32, false>(tmp2, &w.tmp1, MASK_PLACEHOLDER, cnt as u8, &cp);
        pipe_barrier::<PIPE_V>();
        count_mask::<f32>(rp.src_k);
        let row = src.view(i * rp.src_k);
        sub_masked::<f32, false>(&row, &row, tmp2, MASK_PLACEHOLDER, 1, &bin(1, 1, 1, 8, 8, 8));
        pipe_barrier::<PIPE_V>();
    }
    set_mask_norm();
    reset_mask();
}

/// `ModifyMaxImpl`: `shift = (mean_tmp − mean) · α/(1 − α)`, `max = max_tmp + shift`.
#[track_caller]
fn modify_max(max_out: &F, mean: &F, mean_tmp: &F, max_tmp: &F, shift: &F, p: &SoftMaxParams, n: usize) {
    let s = p.alpha / (1.0 - p.alpha);
    sub(shift, mean_tmp, mean, n);
    pipe_barrier::<PIPE_V>();
    muls(shift, shift, s, n);
    pipe_barrier::<PIPE_V>();
    add(max_out, max_tmp, shift, n);
}

/// The tensors of one call.
struct Io<'a> {
    dst: &'a LocalTensor<f16>,
    mean: &'a F,
    exp_sum: &'a F,
    max: &'a F,
    src: &'a LocalTensor<f16>,
    exp_max: &'a LocalTensor<f16>,
    in_mean: &'a F,
    in_exp_sum: &'a F,
    in_max: &'a F,
}

/// `SoftmaxFlashV3NoUpdateImpl`, one round.
#[track_caller]
fn no_update(io: &Io, w: &Work, t: &SoftMaxTiling, p: &SoftMaxParams, r: &Round) {
    let n = r.reduce_size;
    cast(&w.tmp0, &io.src.view(r.o1), RoundMode::CastNone, r.split_size);
    pipe_barrier::<PIPE_V>();
    modify_input(&w.tmp0, w, &w.tmp2_no_update, &r.rp, p, n);
    pipe_barrier::<PIPE_V>();
    let mean = io.mean.view(r.o2);
    // `Copy(meanTensor[offset2], meanTmp, reduceSize, 1, …)`: a normal-mode mask of
    // `reduceSize` lanes (the instruction's check applies: at most 64, i.e. 8 rows a round).
    copy_masked::<f32, true>(&mean, &w.mean_tmp, n as u64, 1, &CopyRepeatParams::new(1, 1, 8, 8));
    pipe_barrier::<PIPE_V>();
    reset_mask();
    reduce_last_nd(Kind::Max, &w.max_tmp, &w.tmp0, &w.tmp1, &r.rp);
    pipe_barrier::<PIPE_V>();
    let mx = io.max.view(r.o2);
    modify_max(&mx, &mean, &w.mean_tmp, &w.max_tmp, &w.shift_curr, p, n);
    pipe_barrier::<PIPE_V>();
    exp_to_dst(io, w, t, r, &mx);
    pipe_barrier::<PIPE_V>();
    reduce_last_nd(Kind::Sum, &io.exp_sum.view(r.o2), &w.tmp0, &w.tmp1, &r.rp);
}

/// The step both forms end a round with: `shiftCurr = max - shiftCurr`, `dst = Cast(Exp(x -
/// shiftCurr))` row by row, `x` in `tmp0` (left there as float for the sum).
#[track_caller]
fn exp_to_dst(io: &Io, w: &Work, t: &SoftMaxTiling, r: &Round, mx: &F) {
    sub(&w.shift_curr, mx, &w.shift_curr, r.reduce_size);
    pipe_barrier::<PIPE_V>();
    generic_nd(
        false,
        &w.tmp0,
        &w.tmp0,
        &w.shift_curr,
        r.rp.original_src_m,
        t.src_k as usize,
        t.reduce_k as usize,
    );
    pipe_barrier::<PIPE_V>();
    exp(&w.tmp0, &w.tmp0, r.split_size);
    pipe_barrier::<PIPE_V>();
    cast(&io.dst.view(r.o1), &w.tmp0, RoundMode::CastRound, r.split_size);
}

/// `SoftmaxFlashV3UpdateImpl`, one round.
#[track_caller]
fn update(io: &Io, w: &Work, t: &SoftMaxTiling, p: &SoftMaxParams, r: &Round) {
    let n = r.reduce_size;
    cast(&w.tmp0, &io.src.view(r.o1), RoundMode::CastNone, r.split_size);
    pipe_barrier::<PIPE_V>();
    modify_input(&w.tmp0, w, &w.tmp2_update, &r.rp, p, n);
    pipe_barrier::<PIPE_V>();
    let (mean, in_mean) = (io.mean.view(r.o2), io.in_mean.view(r.o2));
    let (mx, in_max) = (io.max.view(r.o2), io.in_max.view(r.o2));
    let sum = io.exp_sum.view(r.o2);
    // SoftmaxFlashV3UpdateMeanImpl: mean = (inMean · (loopCnt − 1) + meanTmp) / loopCnt.
    muls(&mean, &in_mean, p.loop_cnt as f32 - 1.0, n);
    pipe_barrier::<PIPE_V>();
    add(&mean, &mean, &w.mean_tmp, n);
    pipe_barrier::<PIPE_V>();
    muls(&mean, &mean, 1.0 / p.loop_cnt as f32, n);
    pipe_barrier::<PIPE_V>();
    reduce_last_nd(Kind::Max, &w.max_tmp, &w.tmp0, &w.tmp1, &r.rp);
    pipe_barrier::<PIPE_V>();
    modify_max(&mx, &mean, &w.mean_tmp, &w.max_tmp, &w.shift_curr, p, n);
    pipe_barrier::<PIPE_V>();
    modify_max(&w.max_tmp, &mean, &in_mean, &in_max, &w.shift_prev, p, n);
    pipe_barrier::<PIPE_V>();
    max(&mx, &mx, &w.max_tmp, n);
    pipe_barrier::<PIPE_V>();
    sub(&w.max_tmp, &in_max, &mx, n);
    pipe_barrier::<PIPE_V>();
    add(&w.max_tmp, &w.shift_prev, &w.max_tmp, n);
    pipe_barrier::<PIPE_V>();
    exp(&w.max_tmp, &w.max_tmp, n);
    pipe_barrier::<PIPE_V>();
    mul(&sum, &w.max_tmp, &io.in_exp_sum.view(r.o2), n);
    pipe_barrier::<PIPE_V>();
    exp_to_dst(io, w, t, r, &mx);
    pipe_barrier::<PIPE_V>();
    reduce_last_nd(Kind::Sum, &w.mean_tmp, &w.tmp0, &w.tmp1, &r.rp);
    pipe_barrier::<PIPE_V>();
    add(&sum, &sum, &w.mean_tmp, n);
    pipe_barrier::<PIPE_V>();
    broadcast_last(&w.tmp0, &w.max_tmp, 16, t.reduce_m as usize, t.reduce_k as usize);
    pipe_barrier::<PIPE_V>();
    cast(&io.exp_max.view(r.o2 * 2), &w.tmp0, RoundMode::CastRound, n * 2);
}

/// The vendor's checks (`CheckFuncClassSoftmaxFlashV3`, the page's constraints and the kernel's
/// assertion), once per call; returns the floats of scratch a round touches.
#[track_caller]
fn checks<const IS_UPDATE: bool>(
    io: &Io,
    tmp: &LocalTensor<u8>,
    t: &SoftMaxTiling,
    p: &SoftMaxParams,
) -> usize {
    let soc = get_soc();
    ensure(soc == Soc::Ascend910B, API, || {
        format!(
            "{API} is not supported on {soc} ({}): the vendor's page (SoftmaxFlashV3.md) lists Atlas A2/A3 \
             (Ascend910B) only; on Ascend310P its membase/v200 implementation asserts \"softmaxflashv3 is not \
             supported on current device\"",
            soc.product_line()
        )
    });
    check_ub(
        API,
        &[
            ("dstTensor", io.dst.get_position()),
            ("meanTensor", io.mean.get_position()),
            ("expSumTensor", io.exp_sum.get_position()),
            ("maxTensor", io.max.get_position()),
            ("srcTensor", io.src.get_position()),
            ("expMaxTensor", io.exp_max.get_position()),
            ("inMeanTensor", io.in_mean.get_position()),
            ("inExpSumTensor", io.in_exp_sum.get_position()),
            ("inMaxTensor", io.in_max.get_position()),
            ("sharedTmpBuffer", tmp.get_position()),
        ],
    );
    let (m, k) = (p.src_m, p.src_k);
    ensure(m != 0 && k != 0, API, || {
        format!(
            "params.srcM = {m} and params.srcK = {k}: with either 0 the vendor reads the source's ShapeInfo, which \
             these tensors do not carry; pass the shape"
        )
    });
    ensure(k * 2 % 32 == 0, API, || format!("params.srcK = {k} half elements is not 32-byte aligned"));
    let n = m as usize * k as usize;
    ensure(n <= io.src.get_size(), API, || {
        format!(
            "params.srcM * params.srcK = {m} * {k} = {n} is greater than srcTensor's size {}",
            io.src.get_size()
        )
    });
    ensure(io.dst.get_size() == io.src.get_size(), API, || {
        format!(
            "dstTensor has {} elements; it must equal srcTensor's {}",
            io.dst.get_size(),
            io.src.get_size()
        )
    });
    if IS_UPDATE {
        ensure(p.loop_cnt >= 1, API, || {
            format!("params.loopCnt = {}; it must be at least 1 when isUpdate is true", p.loop_cnt)
        });
    }
    ensure(p.split_mean_cnt == 8, API, || {
        format!("params.splitMeanCnt = {}; it must be 8", p.split_mean_cnt)
    });
    ensure(p.ori_src_m == m, API, || {
        format!(
            "params.srcM = {m} and params.oriSrcM = {}: they must be equal (no unaligned shapes)",
            p.ori_src_m
        )
    });
    ensure(p.ori_src_k == k, API, || {
        format!(
            "params.srcK = {k} and params.oriSrcK = {}: they must be equal (no unaligned shapes)",
            p.ori_src_k
        )
    });
    ensure(k >= 512 && k % 64 == 0, API, || {
        format!("params.srcK = {k}; it must be at least 512 and a multiple of 64")
    });
    ensure(m % 8 == 0, API, || {
        format!("params.srcM = {m}; the page requires the rows (the non-last axes' product) to be a multiple of 8")
    });
    ensure(t.split_m > 0 && t.split_k == k && t.reduce_k == FLOAT_BLK as u32, API, || {
        format!(
            "tiling has splitM = {}, splitK = {}, reduceK = {} for srcK = {k}; fill it with SoftMaxFlashV3TilingFunc",
            t.split_m, t.split_k, t.reduce_k
        )
    });
    let rows = (t.range_m as usize).saturating_mul(t.split_m as usize).saturating_add(t.tail_m as usize);
    let (data, stats) = (rows.saturating_mul(k as usize), rows.saturating_mul(FLOAT_BLK));
    check_len(API, "srcTensor", io.src, data, "elements of the tiling's rows");
    check_len(API, "dstTensor", io.dst, data, "elements of the tiling's rows");
    let mut outs = vec![("meanTensor", io.mean), ("expSumTensor", io.exp_sum), ("maxTensor", io.max)];
    if IS_UPDATE {
        outs.extend([
            ("inMeanTensor", io.in_mean),
            ("inExpSumTensor", io.in_exp_sum),
            ("inMaxTensor", io.in_max),
        ]);
        check_len(
            API,
            "expMaxTensor",
            io.exp_max,
            rows.saturating_mul(16),
            "elements of the tiling's rows' expMax",
        );
    }
    for (name, t) in &outs {
        check_len(API, name, t, stats, "elements of the tiling's rows' statistics");
    }
    // Floats of scratch a round touches: the layout up to `tmpBuffer2` (of `srcK`), and the
    // `m · 64` elements the local-mean `Muls` and `BlockReduceSum` run over.
    let (s, r, x) = (t.split_size as usize, t.reduce_size as usize, t.split_m as usize * FLOAT_REPEAT);
    let need = (s + x + if IS_UPDATE { 4 } else { 3 } * r + k as usize).max(s + x + r + x);
    ensure(tmp.get_size() / 4 >= need, API, || {
        format!(
            "sharedTmpBuffer has {} bytes, less than the {} bytes the tiling's rounds of splitM = {} rows need; make \
             the tiling with SoftMaxFlashV3TilingFunc for this buffer's size",
            tmp.get_size(),
            need * 4,
            t.split_m
        )
    });
    let tb = ("sharedTmpBuffer", tmp.get_phy_addr(), tmp.get_phy_addr() + need * 4);
    let mut spans = vec![span("dstTensor", io.dst, data), span("srcTensor", io.src, data)];
    spans.extend(outs.iter().map(|(name, t)| span(name, t, stats)));
    if IS_UPDATE {
        spans.push(span("expMaxTensor", io.exp_max, rows * 16));
    }
    check_apart(API, &spans.iter().map(|&s| (tb, s)).collect::<Vec<_>>());
    need
}

/// `SoftmaxFlashV3Impl` + `SoftmaxFlashV3Process` (Ascend910B).
#[track_caller]
fn softmax_flash_v3_impl<const IS_UPDATE: bool>(
    io: &Io,
    tmp: &LocalTensor<u8>,
    t: &SoftMaxTiling,
    p: &SoftMaxParams,
) {
    checks::<IS_UPDATE>(io, tmp, t, p);
    let w = Work::new(&tmp.reinterpret_cast::<f32>(), t);
    set_mask_norm();
    reset_mask();
    let mut r = Round {
        o1: 0,
        o2: 0,
        split_size: t.split_size as usize,
        reduce_size: t.reduce_size as usize,
        rp: ReduceLastNd {
            original_src_m: t.split_m as usize,
            original_src_k: p.ori_src_k as usize,
            src_m: t.split_m as usize,
            src_k: t.split_k as usize,
            dst_k: t.reduce_k as usize,
        },
    };
    let round = |r: &Round| if IS_UPDATE { update(io, &w, t, p, r) } else { no_update(io, &w, t, p, r) };
    pipe_barrier::<PIPE_V>();
    for _ in 0..t.range_m {
        round(&r);
        r.o1 += t.split_size as usize;
        r.o2 += t.reduce_size as usize;
        pipe_barrier::<PIPE_V>();
    }
    if t.tail_m != 0 {
        // SoftmaxFlashV3TailImpl
        r.o1 = t.range_m as usize * t.split_size as usize;
        r.o2 = t.range_m as usize * t.reduce_size as usize;
        r.split_size = t.tail_split_size as usize;
        r.reduce_size = t.tail_reduce_size as usize;
        r.rp.original_src_m = t.tail_m as usize;
        r.rp.src_m = t.tail_m as usize;
        round(&r);
        pipe_barrier::<PIPE_V>();
    }
}

/// The "Softmax PASA" flash-attention step (AscendC `SoftmaxFlashV3<half, float, isUpdate>(
/// dstTensor, meanTensor, expSumTensor, maxTensor, srcTensor, expMaxTensor, inMeanTensor,
/// inExpSumTensor, inMaxTensor, sharedTmpBuffer, tiling, params)`, ND): see the
/// [module](self) for the steps. The vendor's other template parameters (`isReuseSource`,
/// `isBasicBlock`, `isDataFormatNZ`, `config`) are reserved, must keep their defaults, and are
/// not taken. Without `IS_UPDATE`, `exp_max_tensor` and the three inputs are not touched.
///
/// The rows go in rounds of the tiling's `splitM` (from [`soft_max_flash_v3_tiling_func`]);
/// the statistics are 8 `float`s a row, `exp_max_tensor` 16 `half`s a row. Without
/// `IS_UPDATE`, a round's means are copied with one normal-mode `Copy` of `reduceSize` lanes, so
/// a tiling with more than 8 rows a round fails at that instruction (64 `float` lanes at most).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut c) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 2 * 8 * 512 * 2);
/// pipe.init_tbuf(&mut b, 6 * 64 * 4 + 128 * 2);
/// let (max, min) = get_soft_max_flash_v3_max_min_tmp_size(&[8, 512], 2, 4, true, false);
/// assert_eq!((max, min), (8 * min, (40 + 1024 + 64) * 4));
/// pipe.init_tbuf(&mut c, max as usize);
/// let (x, y) = (a.get_with_offset::<f16>(4096, 0), a.get_with_offset::<f16>(4096, 8192));
/// let s = |i: usize| b.get_with_offset::<f32>(64, 256 * i);
/// let (mean, sum, mx, in_mean, in_sum, in_max) = (s(0), s(1), s(2), s(3), s(4), s(5));
/// let em = b.get_with_offset::<f16>(128, 1536);
/// x.copy_from_slice(&[f16::from_f32(1.0); 4096]);
/// in_mean.copy_from_slice(&[1.0; 64]);
/// in_sum.copy_from_slice(&[512.0; 64]);
/// in_max.copy_from_slice(&[1.0; 64]);
/// let tiling = soft_max_flash_v3_tiling_func(&[8, 512], 2, 4, max, true, false);
/// let params = SoftMaxParams::new(8, 512, 8, 512, 2, 8, 0.9375);
/// softmax_flash_v3::<true>(&y, &mean, &sum, &mx, &x, &em, &in_mean, &in_sum, &in_max, &c.get::<u8>(), &tiling, &params);
/// // A constant row: mean 1, max 1, every exp 1, the sum doubles.
/// assert_eq!((mean.get_value(0), mx.get_value(0), sum.get_value(0)), (1.0, 1.0, 1024.0));
/// assert_eq!((y.get_value(0).to_f32(), em.get_value(15).to_f32()), (1.0, 1.0));
/// ```
///
/// # Panics
/// Panics if the chip is not Ascend910B; a tensor is not in the Unified Buffer; `params` breaks
/// a documented rule (`srcK` 32-byte aligned, at least 512 and a multiple of 64; `srcM` a
/// multiple of 8; `srcM · srcK` within `srcTensor`; `oriSrcM`/`oriSrcK` equal to
/// `srcM`/`srcK`; `splitMeanCnt` 8; `loopCnt` at least 1 with `IS_UPDATE`); `dstTensor`'s size
/// is not `srcTensor`'s; the tiling is not for `srcK`, or its rows need more of a tensor or of
/// the scratch than it has; the scratch overlaps another operand; or any instruction's own check
/// fails.
#[allow(clippy::too_many_arguments)] // the vendor's parameters
#[track_caller]
pub fn softmax_flash_v3<const IS_UPDATE: bool>(
    dst_tensor: &LocalTensor<f16>,
    mean_tensor: &LocalTensor<f32>,
    exp_sum_tensor: &LocalTensor<f32>,
    max_tensor: &LocalTensor<f32>,
    src_tensor: &LocalTensor<f16>,
    exp_max_tensor: &LocalTensor<f16>,
    in_mean_tensor: &LocalTensor<f32>,
    in_exp_sum_tensor: &LocalTensor<f32>,
    in_max_tensor: &LocalTensor<f32>,
    shared_tmp_buffer: &LocalTensor<u8>,
    tiling: &SoftMaxTiling,
    params: &SoftMaxParams,
) {
    let io = Io {
        dst: dst_tensor,
        mean: mean_tensor,
        exp_sum: exp_sum_tensor,
        max: max_tensor,
        src: src_tensor,
        exp_max: exp_max_tensor,
        in_mean: in_mean_tensor,
        in_exp_sum: in_exp_sum_tensor,
        in_max: in_max_tensor,
    };
    softmax_flash_v3_impl::<IS_UPDATE>(&io, shared_tmp_buffer, tiling, params);
}

/// [`softmax_flash_v3`] with the scratch from the stack buffer (AscendC `SoftmaxFlashV3<half,
/// float, isUpdate>(…, tiling, params)` without `sharedTmpBuffer`, whose buffer is
/// `PopStackBuffer`'s).
///
/// # Panics
/// As [`softmax_flash_v3`], and if the core has no `TPipe` or its buffers leave no stack buffer.
#[allow(clippy::too_many_arguments)] // the vendor's parameters
#[track_caller]
pub fn softmax_flash_v3_stack<const IS_UPDATE: bool>(
    dst_tensor: &LocalTensor<f16>,
    mean_tensor: &LocalTensor<f32>,
    exp_sum_tensor: &LocalTensor<f32>,
    max_tensor: &LocalTensor<f32>,
    src_tensor: &LocalTensor<f16>,
    exp_max_tensor: &LocalTensor<f16>,
    in_mean_tensor: &LocalTensor<f32>,
    in_exp_sum_tensor: &LocalTensor<f32>,
    in_max_tensor: &LocalTensor<f32>,
    tiling: &SoftMaxTiling,
    params: &SoftMaxParams,
) {
    let tmp = stack_tensor(API);
    softmax_flash_v3::<IS_UPDATE>(
        dst_tensor,
        mean_tensor,
        exp_sum_tensor,
        max_tensor,
        src_tensor,
        exp_max_tensor,
        in_mean_tensor,
        in_exp_sum_tensor,
        in_max_tensor,
        &tmp,
        tiling,
        params,
    );
}

// ---- host tiling ---------------------------------------------------------------------------

/// The host helpers' checks: a non-empty shape with a 32-byte aligned last axis,
/// `dataTypeSize1` 2 (`half`) and `dataTypeSize2` 4 (`float`); `[m, k]` of the shape.
#[track_caller]
fn v3_shape(api: &'static str, src_shape: &[u32], data_type_size1: u32, data_type_size2: u32) -> (u32, u32) {
    let (m, k) = host_shape(api, src_shape, data_type_size1);
    host_checks(api, (m * k) as usize, data_type_size2 as usize);
    ensure(data_type_size1 == 2, api, || {
        format!("dataTypeSize1 = {data_type_size1}; it must be sizeof(half) = 2")
    });
    ensure(data_type_size2 == 4, api, || {
        format!("dataTypeSize2 = {data_type_size2}; it must be sizeof(float) = 4")
    });
    (m, k)
}

/// The scratch bytes of [`softmax_flash_v3`]: `(max, min)` (AscendC
/// `GetSoftMaxFlashV3MaxMinTmpSize(srcShape, dataTypeSize1, dataTypeSize2, maxValue, minValue,
/// isUpdate, isBasicBlock)` for Ascend910B): `min = (8 · 5 + 2 · k + 64) · 4` (one row), `max =
/// m · min`. `is_update` and `is_basic_block` do not change them.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_soft_max_flash_v3_max_min_tmp_size(&[8, 1024], 2, 4, true, false), (8 * 8608, 8608));
/// ```
///
/// # Panics
/// Panics if the shape has no elements or its last axis is not 32-byte aligned, or the type
/// sizes are not 2 and 4 (the vendor's host checks).
#[track_caller]
pub fn get_soft_max_flash_v3_max_min_tmp_size(
    src_shape: &[u32],
    data_type_size1: u32,
    data_type_size2: u32,
    is_update: bool,
    is_basic_block: bool,
) -> (u32, u32) {
    let _ = (is_update, is_basic_block);
    let (m, k) = v3_shape("GetSoftMaxFlashV3MaxMinTmpSize", src_shape, data_type_size1, data_type_size2);
    let min = per_row(k) * 4;
    (m * min, min)
}

/// The tiling of [`softmax_flash_v3`] for `local_work_space_size` bytes of scratch (AscendC
/// `SoftMaxFlashV3TilingFunc(srcShape, dataTypeSize1, dataTypeSize2, localWorkSpaceSize,
/// softmaxFlashV3Tiling, isUpdate, isBasicBlock)`): `splitM = work / (8 · 5 + 2 · k + 64)`
/// floats, at most `m`, rounded down to a multiple of 8 when above 8 and below `m`; the
/// statistics 8 a row. With no row fitting, `splitM` is 0 and the rounds are left 0, as the
/// vendor's.
///
/// ```
/// use ascend_core::prelude::*;
/// let t = soft_max_flash_v3_tiling_func(&[40, 512], 2, 4, 20 * 1128 * 4, false, false);
/// assert_eq!((t.split_m, t.range_m, t.tail_m, t.reduce_size), (16, 2, 8, 128));
/// ```
///
/// # Panics
/// As [`get_soft_max_flash_v3_max_min_tmp_size`], and if `local_work_space_size` is 0.
#[track_caller]
pub fn soft_max_flash_v3_tiling_func(
    src_shape: &[u32],
    data_type_size1: u32,
    data_type_size2: u32,
    local_work_space_size: u32,
    is_update: bool,
    is_basic_block: bool,
) -> SoftMaxTiling {
    let _ = (is_update, is_basic_block);
    let api = "SoftMaxFlashV3TilingFunc";
    let (m, k) = v3_shape(api, src_shape, data_type_size1, data_type_size2);
    ensure(local_work_space_size > 0, api, || "localWorkSpaceSize is 0; it must be greater than 0".into());
    let mut base_m = (local_work_space_size / 4 / per_row(k)).min(m);
    if base_m < m && base_m > 8 {
        base_m = base_m / 8 * 8;
    }
    rows_tiling(m, k, FLOAT_BLK as u32, base_m)
}
