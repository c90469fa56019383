//! `BatchNorm` (the vendor's `adv_api/normalization/batchnorm.h`: [`batch_norm`],
//! [`batch_norm_stack`], the tiling [`BatchNormTiling`] and its host helpers
//! [`get_batch_norm_max_min_tmp_size`], [`get_batch_norm_nd_tiling_info`]): each column `j` of
//! `[originB, S·H]` normalized over the batch axis:
//! `mean[j] = Σ_b x[b][j] / B`,
//! `variance[j] = Σ_b (x[b][j] - mean[j])² / B`,
//! `output[b][j] = gamma[b] · (x[b][j] - mean[j]) / sqrt(variance[j] + epsilon) + beta[b]`.
//!
//! The computation is the vendor's Ascend910B/Ascend310P implementation
//! (`impl/adv_api/detail/normalization/batchnorm/batchnorm_common_impl.h` and
//! `batchnorm_common_pre_impl.h`, with the chip's broadcast of `isBasicBlock`:
//! `batchnorm_v220_impl.h` `Brcb`, `batchnorm_v200_impl.h` `TransDataTo5HD`), instruction by
//! instruction, in `float` (`half` widened with `Cast`): per round of `shCurLength` columns,
//! `Muls` by `1 / B` per row, the rows summed into the means (`DataCopy` of the first, `Add` of
//! each next), `Sub` of the mean per row, `Mul` (square), `Muls` by `1 / B`, the same sum into
//! the variances, then `rstd = Exp(-0.5 · Ln(variance + epsilon))` (`Adds`, `Ln`, `Muls`,
//! `Exp`), `Mul` of each row by it, and `gamma`/`beta` broadcast over each row (`Duplicate` of
//! the value the scalar unit reads; with `isBasicBlock` the chip's broadcast and `Adds` of 0)
//! for a `Mul` and an `Add`. Each step is followed by `PipeBarrier<PIPE_V>` as the vendor
//! writes it.
//!
//! `isBasicBlock` (the page: `originB` a multiple of 8, `S·H` a multiple of 64 and below 2048)
//! runs the rows as the repeats of normal-mode instructions, 255 at a time. The vendor's loops
//! for more than 255 rows (`originB` ≥ 256) are kept as written (the sum's last partial group
//! restarts at row 1; the final `Add` of `beta` and the first spread of the broadcast
//! `gamma`/`beta` blocks do not advance by group), but no call reaches them: the basic block's
//! minimum buffer for 256 rows, `3 · 256 · 256` bytes, is the whole 192 KiB Unified Buffer.

use super::align_up;
use bytemuck::{Pod, Zeroable};

use crate::element::{f16, DType};
use crate::kernel::ctx::get_soc;
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::soc::Soc;
use crate::sync::{
    event::{HardEvent, PIPE_V},
    flags::pipe_barrier,
};
use crate::vector::binary::{add_masked, mul_masked, sub_masked};
use crate::vector::brcb::{brcb, BrcbRepeatParams};
use crate::vector::cast::{cast_masked, RoundMode};
use crate::vector::duplicate::duplicate_masked;
use crate::vector::mask::{
    reset_mask, set_mask_count, set_mask_norm, set_vector_mask, Mask, MASK_PLACEHOLDER,
};
use crate::vector::params::{BinaryRepeatParams, UnaryRepeatParams};
use crate::vector::scalar::{adds_masked, muls_masked};
use crate::vector::transpose::{trans_data_to_5hd, TransDataTo5HDParams, NCHW_CONV_ADDR_LIST_SIZE};

use super::layernorm::{handshake, LayerNormElement};
use super::{check_apart, check_chip, count_mask, span, stack_tensor, steps, Span, NARROW, V220_V200, WIDEN};

const API: &str = "BatchNorm";
/// `float`s of one 32-byte block (`FLOAT_BLOCK_NUMBER`).
const FLOAT_BLOCK: usize = 8;
/// `float`s of one repeat (`BASIC_BLOCK_LEN`).
const BASIC_LEN: usize = 64;
/// `MAX_REPEAT_TIMES`.
const MAX_REPEAT: usize = 255;
/// The page's bound on `S·H` for `isBasicBlock` (below 2048, so its block counts fit the
/// `uint8_t` repeat strides).
const BASIC_MAX_SH: usize = 2048;

/// `BatchNorm`'s tiling (AscendC `BatchNormTiling`, the vendor's `batchnorm_tilingdata.h`
/// field for field), filled by [`get_batch_norm_nd_tiling_info`]. `#[repr(C)]` and [`Pod`],
/// so it travels in tiling data. [`batch_norm`] writes it (after a tail round it holds the
/// tail's lengths), as the vendor's does.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct BatchNormTiling {
    /// The batch `originB` (`originalBLength`).
    pub original_b_length: u32,
    /// `S·H`, the elements of one row and of the means and variances (`meanVarSize`).
    pub mean_var_size: u32,
    /// Where the `float` means start in the buffer, in `float`s (`meanTmpTensorPos`; `half` only).
    pub mean_tmp_tensor_pos: u32,
    /// Where the `float` variances start (`varianceTmpTensorPos`; `half` only).
    pub variance_tmp_tensor_pos: u32,
    /// The buffer's `float`s (`tmpBufSize`).
    pub tmp_buf_size: u32,
    /// `float`s of each of the three views (`oneTmpSize`).
    pub one_tmp_size: u32,
    /// Where view A starts (`firstTmpStartPos`).
    pub first_tmp_start_pos: u32,
    /// Where view B starts (`secondTmpStartPos`).
    pub second_tmp_start_pos: u32,
    /// Where view C starts (`thirdTmpStartPos`).
    pub third_tmp_start_pos: u32,
    /// Full rounds (`loopRound`).
    pub loop_round: u32,
    /// Elements of the tail round, all rows (`inputTailSize`).
    pub input_tail_size: u32,
    /// The tail's first column (`inputTailPos`).
    pub input_tail_pos: u32,
    /// Columns of the tail round (`meanVarTailSize`).
    pub mean_var_tail_size: u32,
    /// The tail's first mean (`meanVarTailPos`).
    pub mean_var_tail_pos: u32,
    /// Elements of one round, all rows (`bshCurLength`).
    pub bsh_cur_length: u32,
    /// Columns of one round (`shCurLength`).
    pub sh_cur_length: u32,
    /// `1 / originB` in `float` (`firstDimValueBack`).
    pub first_dim_value_back: f32,
    /// `half`'s repeat stride in a `Cast` (`castHalfRepStride`, 4).
    pub cast_half_rep_stride: u32,
    /// `shCurLength / 8` (`shCurLengthBlockNum`).
    pub sh_cur_length_block_num: u32,
    /// `S·H / 16`, a `half` row in blocks (`castHalfOutRepStride`).
    pub cast_half_out_rep_stride: u32,
}

/// Element types of [`batch_norm`]: `half` and `float` (the vendor's page):
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<i32>, tmp: &LocalTensor<u8>, tiling: &mut BatchNormTiling) {
///     batch_norm::<_, false, false>(t, t, t, t, t, t, tmp, 0, tiling)
/// }
/// ```
pub trait BatchNormElement: LayerNormElement {}
impl BatchNormElement for f16 {}
impl BatchNormElement for f32 {}

/// The shape checks of the vendor's host helpers: `[B, S, H]` and `[originB, S, H]`, and
/// (its `CheckBasicBlockShape`) for `isBasicBlock` `S·H` a multiple of 64 and `originB` of 8;
/// returns `(originB, S·H)`.
#[track_caller]
fn host_shape(
    api: &'static str,
    src: &[usize],
    origin: &[usize],
    type_size: usize,
    basic: bool,
) -> (usize, usize) {
    super::host_checks(api, src.iter().product(), type_size);
    for (name, s) in [("srcShape", src), ("originSrcShape", origin)] {
        ensure(s.len() == 3, api, || {
            format!("{name} = {s:?} has {} dimensions; it must be [B, S, H]", s.len())
        });
    }
    let (b, sh) = (origin[0], src[1] * src[2]);
    ensure(b > 0, api, || format!("originSrcShape = {origin:?}: originB must be greater than 0"));
    if basic {
        ensure(sh % BASIC_LEN == 0 && b % FLOAT_BLOCK == 0, api, || {
            format!(
                "isBasicBlock: S * H = {sh} must be a multiple of {BASIC_LEN} and originB = {b} a multiple of \
                 {FLOAT_BLOCK} (the vendor's CheckBasicBlockShape returns false)"
            )
        });
    }
    (b, sh)
}

/// The temporary buffer's `(max, min)` bytes for [`batch_norm`] on a source of shape `[B, S,
/// H]` holding `originB` rows (`origin_src_shape = [originB, S, H]`) (AscendC
/// `GetBatchNormMaxMinTmpSize(srcShape, originSrcShape, typeSize, isReuseSource, maxValue,
/// minValue, isBasicBlock)`), as the vendor's host library computes them
/// (`batchnorm_tiling_impl.cpp`): the maximum `3 · align32(4 · originB·S·H) + 2 · align32(4 ·
/// S·H)`, the minimum `3 · k · originB + 2 · align32(4 · S·H)` with `k` 32 bytes for `float`,
/// 64 for `half` and 256 for `isBasicBlock`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_batch_norm_max_min_tmp_size(&[8, 4, 2], &[8, 4, 2], 4, false, false), (832, 832));
/// assert_eq!(get_batch_norm_max_min_tmp_size(&[16, 4, 16], &[16, 4, 16], 2, false, true), (12800, 12800));
/// ```
///
/// # Panics
/// Panics if a shape is not three-dimensional or has no elements, `type_size` is neither 2
/// nor 4, or, with `is_basic_block`, `S·H` is not a multiple of 64 or `originB` of 8 (where the
/// vendor returns `false`).
#[track_caller]
pub fn get_batch_norm_max_min_tmp_size(
    src_shape: &[usize],
    origin_src_shape: &[usize],
    type_size: usize,
    is_reuse_source: bool,
    is_basic_block: bool,
) -> (usize, usize) {
    let _ = is_reuse_source;
    let (b, sh) =
        host_shape("GetBatchNormMaxMinTmpSize", src_shape, origin_src_shape, type_size, is_basic_block);
    let mv = align_up(4 * sh, 32);
    let max = 3 * align_up(4 * b * sh, 32) + 2 * mv;
    let k = if is_basic_block {
        4 * BASIC_LEN
    } else if type_size == 2 {
        64
    } else {
        32
    };
    (max, 3 * k * b + 2 * mv)
}

/// `BatchNorm`'s tiling for a source of shape `[B, S, H]` holding `originB` rows
/// (`origin_src_shape = [originB, S, H]`) with a temporary buffer of `stack_buffer_byte_size`
/// bytes (AscendC `GetBatchNormNDTilingInfo(srcShape, originSrcShape, stackBufferByteSize,
/// typeSize, isReuseSource, tiling, isBasicBlock)`), as the vendor's host library lays it out:
/// for `half` the `float` means and variances first (`align8(S·H)` each), then three views of
/// `oneTmpSize` `float`s, a third of the rest rounded down to `originB` columns of 16 (`half`)
/// or 8 (`float`), at most the whole source, and for `isBasicBlock` to columns of 64.
///
/// ```
/// use ascend_core::prelude::*;
/// let t = get_batch_norm_nd_tiling_info(&[8, 4, 2], &[8, 4, 2], 832, 4, false, false);
/// assert_eq!((t.one_tmp_size, t.sh_cur_length, t.loop_round, t.input_tail_size), (64, 8, 1, 0));
/// assert_eq!(t.first_dim_value_back, 0.125);
/// let t = get_batch_norm_nd_tiling_info(&[2, 1, 48], &[2, 1, 48], 1024, 4, false, false);
/// assert_eq!((t.sh_cur_length, t.loop_round, t.mean_var_tail_size, t.mean_var_tail_pos), (40, 1, 8, 40));
/// ```
///
/// # Panics
/// As [`get_batch_norm_max_min_tmp_size`], and where the vendor returns `false`: `S·H` is not
/// 32-byte aligned for `type_size`, or `stack_buffer_byte_size` is below the minimum.
#[track_caller]
pub fn get_batch_norm_nd_tiling_info(
    src_shape: &[usize],
    origin_src_shape: &[usize],
    stack_buffer_byte_size: usize,
    type_size: usize,
    is_reuse_source: bool,
    is_basic_block: bool,
) -> BatchNormTiling {
    const HOST: &str = "GetBatchNormNDTilingInfo";
    let (b, sh) = host_shape(HOST, src_shape, origin_src_shape, type_size, is_basic_block);
    ensure(sh * type_size % 32 == 0, HOST, || {
        format!("S * H = {sh} is not 32-byte aligned for typeSize = {type_size}")
    });
    let (_, min) = get_batch_norm_max_min_tmp_size(
        src_shape,
        origin_src_shape,
        type_size,
        is_reuse_source,
        is_basic_block,
    );
    ensure(stack_buffer_byte_size >= min, HOST, || {
        format!("stackBufferByteSize = {stack_buffer_byte_size} bytes is below GetBatchNormMaxMinTmpSize's minimum {min}")
    });
    let total = b * sh;
    let mv_tmp = sh.next_multiple_of(FLOAT_BLOCK);
    let mv_total = if type_size == 4 { 0 } else { 2 * mv_tmp };
    let tmp_buf = stack_buffer_byte_size / 4;
    let unit = b * if type_size == 4 { FLOAT_BLOCK } else { 16 };
    let mut one = ((tmp_buf - mv_total) / 3 / unit * unit).min(total);
    let mut sh_cur = one / b;
    if is_basic_block && sh_cur % BASIC_LEN != 0 {
        sh_cur = sh_cur / BASIC_LEN * BASIC_LEN;
        one = sh_cur * b;
    }
    // The minimum leaves at least one unit a view, so `one` is never 0 here.
    let tail = total % one;
    let meanvar_tail = tail / b;
    let u = |n: usize| n as u32;
    BatchNormTiling {
        original_b_length: u(b),
        mean_var_size: u(sh),
        mean_tmp_tensor_pos: 0,
        variance_tmp_tensor_pos: u(mv_tmp),
        tmp_buf_size: u(tmp_buf),
        one_tmp_size: u(one),
        first_tmp_start_pos: u(mv_total),
        second_tmp_start_pos: u(mv_total + one),
        third_tmp_start_pos: u(mv_total + 2 * one),
        loop_round: u(total / one),
        input_tail_size: u(tail),
        input_tail_pos: u((total - tail) / b),
        mean_var_tail_size: u(meanvar_tail),
        mean_var_tail_pos: u(sh - meanvar_tail),
        bsh_cur_length: u(one),
        sh_cur_length: u(sh_cur),
        first_dim_value_back: 1.0 / b as f32,
        cast_half_rep_stride: 4,
        sh_cur_length_block_num: u(sh_cur / FLOAT_BLOCK),
        cast_half_out_rep_stride: u(sh / 16),
    }
}

/// The vendor's `BatchNormParams<float>` for one round (`GetSrcOffset`, `GetUpdateParams`).
struct Params {
    /// Elements between rows of the source the mean reads: `S·H` for `float` (the input),
    /// `shCurLength` for `half` (its widened copy in view A).
    src_offset: usize,
    /// `srcOffset / 8` as the `uint8_t` field.
    src_rep: u8,
    basic_loop: usize,
    brc_repeat: usize,
    ori_bloop: usize,
    ori_btail: usize,
    tmp_loop_off: usize,
    tmp_tail_off: usize,
    out_loop_off: usize,
    out_tail_off: usize,
    reduce_add_loop: usize,
    reduce_add_tail: usize,
    back: f32,
    sh: usize,
    bsh: usize,
    b: usize,
    mv: usize,
    sh_blk: u8,
    a: LocalTensor<f32>,
    bb: LocalTensor<f32>,
    c: LocalTensor<f32>,
}

impl Params {
    /// `GetSrcOffset` and `GetUpdateParams` for the tiling's current lengths.
    fn new(t: &BatchNormTiling, half: bool, views: [LocalTensor<f32>; 3]) -> Params {
        let (b, sh, mv) = (t.original_b_length as usize, t.sh_cur_length as usize, t.mean_var_size as usize);
        let src_offset = if half { sh } else { mv };
        let ori_bloop = b / MAX_REPEAT;
        let [a, bb, c] = views;
        Params {
            src_offset,
            src_rep: (src_offset / FLOAT_BLOCK) as u8,
            basic_loop: sh / BASIC_LEN,
            brc_repeat: b / FLOAT_BLOCK,
            ori_bloop,
            ori_btail: b % MAX_REPEAT,
            tmp_loop_off: sh * MAX_REPEAT,
            tmp_tail_off: ori_bloop * sh * MAX_REPEAT,
            out_loop_off: mv * MAX_REPEAT,
            out_tail_off: ori_bloop * mv * MAX_REPEAT,
            reduce_add_loop: (b - 1) / MAX_REPEAT,
            reduce_add_tail: (b - 1) % MAX_REPEAT,
            back: t.first_dim_value_back,
            sh,
            bsh: t.bsh_cur_length as usize,
            b,
            mv,
            sh_blk: t.sh_cur_length_block_num as u8,
            a,
            bb,
            c,
        }
    }

    /// The row groups of the basic block: `(i, 255)` per whole group (`oriBloop`), then
    /// `(oriBloop, oriBTail)` when there is a tail.
    fn groups(&self) -> impl Iterator<Item = (usize, u8)> {
        let tail = (self.ori_btail > 0).then_some((self.ori_bloop, self.ori_btail as u8));
        (0..self.ori_bloop).map(|i| (i, MAX_REPEAT as u8)).chain(tail)
    }
}

/// `GetReduceAddResult`: `dst` = row 0 of `src` (`DataCopy` of `shCurLength / 8` blocks in
/// normal mode), then the other rows added: the basic block per 64 columns as repeats (`dst`
/// and `src1` repeat stride 0, so each repeat adds one row to the running sum; the vendor's
/// tail group restarts at row 1), otherwise one counter-mode `Add` per row.
#[track_caller]
fn reduce_add(dst: &LocalTensor<f32>, src: &LocalTensor<f32>, p: &Params, basic: bool) {
    set_mask_norm();
    reset_mask();
    crate::memory::copy::data_copy_params(
        dst,
        src,
        &crate::memory::copy::DataCopyParams::new(1, u16::from(p.sh_blk), 0, 0),
    );
    pipe_barrier::<PIPE_V>();
    if basic {
        let bp = BinaryRepeatParams::new(1, 1, 1, 0, p.sh_blk, 0);
        for m in 0..p.basic_loop {
            let d = dst.view(m * BASIC_LEN);
            for i in 0..p.reduce_add_loop {
                let s = src.view(p.sh + i * p.tmp_loop_off + m * BASIC_LEN);
                add_masked::<f32, false>(&d, &s, &d, MASK_PLACEHOLDER, MAX_REPEAT as u8, &bp);
            }
            if p.reduce_add_tail > 0 {
                let s = src.view(p.sh + m * BASIC_LEN);
                add_masked::<f32, false>(&d, &s, &d, MASK_PLACEHOLDER, p.reduce_add_tail as u8, &bp);
            }
        }
    } else {
        set_mask_count();
        count_mask::<f32>(p.sh);
        for i in 1..p.b {
            steps::add(dst, dst, &src.view(i * p.sh));
        }
    }
    pipe_barrier::<PIPE_V>();
}

/// `BrcFirstDimByDup`: per row `Duplicate` of `src[row]` (read by the scalar unit) over the
/// row's `sh` columns, under the counter mask set.
#[track_caller]
fn brc_dup(dst: &LocalTensor<f32>, src: &LocalTensor<f32>, sh: usize, b: usize) {
    for i in 0..b {
        duplicate_masked::<f32, false>(&dst.view(i * sh), src.get_value(i), MASK_PLACEHOLDER, 1, 1, 8);
    }
    pipe_barrier::<PIPE_V>();
}

/// `BrcFirstDim`: `src[row]` over every column of row `row` of `dst`, in normal mode: the
/// chip's broadcast into the row's first block(s) (Ascend910B `BrcFirstDimByBrcb`: `Brcb`,
/// one block per row; Ascend310P `BrcFirstDimByTransData`: `TransDataTo5HD`, two blocks per
/// row), then `BrcFirstBlockByAdds`: `Adds` of 0 from the first block(s) over the row's first
/// 64 (the vendor's groups of 255 rows all start at row 0) and from those 64 over the rest.
#[track_caller]
fn brc_first_dim(dst: &LocalTensor<f32>, src: &LocalTensor<f32>, p: &Params) {
    set_mask_norm();
    reset_mask();
    let (first, repeat, params) = if get_soc() == Soc::Ascend310P {
        let sh = p.sh;
        let dl: [LocalTensor<f32>; NCHW_CONV_ADDR_LIST_SIZE] =
            std::array::from_fn(|k| dst.view((k / 2) * sh + if k % 2 == 1 { FLOAT_BLOCK } else { 0 }));
        let sl: [LocalTensor<f32>; NCHW_CONV_ADDR_LIST_SIZE] = std::array::from_fn(|_| src.clone());
        let rep = p.brc_repeat as u8;
        let (dst_rep, src_rep) = if rep == 1 { (0, 0) } else { (sh as u16, 1) };
        trans_data_to_5hd(&dl, &sl, &TransDataTo5HDParams::new(false, false, rep, dst_rep, src_rep));
        pipe_barrier::<PIPE_V>();
        set_vector_mask::<f32>(Mask::Count(16));
        (16, 3, UnaryRepeatParams::new(1, 0, p.sh_blk, p.sh_blk))
    } else {
        let bp = BrcbRepeatParams::new(u16::from(p.sh_blk), p.sh as u16);
        brcb(dst, src, p.brc_repeat as u8, &bp);
        pipe_barrier::<PIPE_V>();
        set_vector_mask::<f32>(Mask::Count(FLOAT_BLOCK as u64));
        (FLOAT_BLOCK, 7, UnaryRepeatParams::new(1, 0, p.sh_blk, p.sh_blk))
    };
    // BrcFirstBlockByAdds.
    for m in 0..repeat {
        let d = dst.view(first + m * first);
        for (_, n) in p.groups() {
            adds_masked::<f32, false>(&d, dst, 0.0, MASK_PLACEHOLDER, n, &params);
        }
    }
    pipe_barrier::<PIPE_V>();
    reset_mask();
    let params = UnaryRepeatParams::new(1, 1, p.sh_blk, p.sh_blk);
    for m in 0..p.basic_loop.saturating_sub(1) {
        for (i, n) in p.groups() {
            let o = i * p.tmp_loop_off;
            adds_masked::<f32, false>(
                &dst.view(BASIC_LEN + m * BASIC_LEN + o),
                &dst.view(o),
                0.0,
                MASK_PLACEHOLDER,
                n,
                &params,
            );
        }
    }
    pipe_barrier::<PIPE_V>();
}

/// `GetBatchNormOutputMean`: `Muls` of each row by `1 / B` into view C, then the rows summed
/// into `mean`.
#[track_caller]
fn output_mean(mean: &LocalTensor<f32>, x: &LocalTensor<f32>, p: &Params, basic: bool, half: bool) {
    if basic {
        set_mask_norm();
        reset_mask();
        let up = UnaryRepeatParams::new(1, 1, p.sh_blk, p.src_rep);
        let in_loop = if half { p.tmp_loop_off } else { p.out_loop_off };
        for m in 0..p.basic_loop {
            for (i, n) in p.groups() {
                let (d, s) =
                    (p.c.view(i * p.tmp_loop_off + m * BASIC_LEN), x.view(i * in_loop + m * BASIC_LEN));
                muls_masked::<f32, false>(&d, &s, p.back, MASK_PLACEHOLDER, n, &up);
            }
        }
    } else {
        set_mask_count();
        count_mask::<f32>(p.sh);
        for i in 0..p.b {
            let (d, s) = (p.c.view(i * p.sh), x.view(i * p.src_offset));
            muls_masked::<f32, false>(&d, &s, p.back, MASK_PLACEHOLDER, 1, &UnaryRepeatParams::default());
        }
    }
    pipe_barrier::<PIPE_V>();
    reduce_add(mean, &p.c, p, basic);
}

/// `GetBatchNormOutputVariance`: `Sub` of the mean from each row into C, `Mul` (square) into
/// B, `Muls` by `1 / B` into A, the rows summed into `variance`.
#[track_caller]
fn output_variance(
    variance: &LocalTensor<f32>,
    x: &LocalTensor<f32>,
    mean: &LocalTensor<f32>,
    p: &Params,
    basic: bool,
    half: bool,
) {
    if basic {
        set_mask_norm();
        reset_mask();
        let bp = BinaryRepeatParams::new(1, 1, 1, p.sh_blk, p.src_rep, 0);
        let in_loop = if half { p.tmp_loop_off } else { p.out_loop_off };
        for m in 0..p.basic_loop {
            for (i, n) in p.groups() {
                let d = p.c.view(i * p.tmp_loop_off + m * BASIC_LEN);
                let s = x.view(i * in_loop + m * BASIC_LEN);
                sub_masked::<f32, false>(&d, &s, &mean.view(m * BASIC_LEN), MASK_PLACEHOLDER, n, &bp);
                pipe_barrier::<PIPE_V>();
            }
        }
        set_mask_count();
    } else {
        set_mask_count();
        count_mask::<f32>(p.sh);
        for i in 0..p.b {
            let (d, s) = (p.c.view(i * p.sh), x.view(i * p.src_offset));
            sub_masked::<f32, false>(&d, &s, mean, MASK_PLACEHOLDER, 1, &BinaryRepeatParams::default());
        }
        pipe_barrier::<PIPE_V>();
    }
    count_mask::<f32>(p.bsh);
    steps::mul(&p.bb, &p.c, &p.c);
    steps::muls(&p.a, &p.bb, p.back);
    reduce_add(variance, &p.a, p, basic);
    if basic {
        set_mask_norm();
        reset_mask();
    }
}

/// `GetBatchNormOutputPre`: `rstd = Exp(-0.5 · Ln(variance + epsilon))` into B (through A),
/// then each row of C (`x - mean`) multiplied by it.
#[track_caller]
fn output_pre(variance: &LocalTensor<f32>, epsilon: f32, p: &Params, basic: bool) {
    set_mask_count();
    count_mask::<f32>(p.sh);
    steps::adds(&p.a, variance, epsilon);
    steps::ln(&p.bb, &p.a);
    steps::muls(&p.a, &p.bb, -0.5);
    steps::exp(&p.bb, &p.a);
    if basic {
        set_mask_norm();
        reset_mask();
        let bp = BinaryRepeatParams::new(1, 1, 1, p.sh_blk, 0, p.sh_blk);
        for m in 0..p.basic_loop {
            for (i, n) in p.groups() {
                let d = p.c.view(i * p.tmp_loop_off + m * BASIC_LEN);
                mul_masked::<f32, false>(&d, &p.bb.view(m * BASIC_LEN), &d, MASK_PLACEHOLDER, n, &bp);
            }
        }
    } else {
        for i in 0..p.b {
            let d = p.c.view(i * p.sh);
            mul_masked::<f32, false>(&d, &d, &p.bb, MASK_PLACEHOLDER, 1, &BinaryRepeatParams::default());
        }
    }
    pipe_barrier::<PIPE_V>();
}

/// `CastGammBeta`: `originB` `half`s widened into `dst` (counter mode), then the scalar
/// unit's wait (`V_S`, the non-basic path reads them) or a barrier.
#[track_caller]
fn cast_gamm_beta(dst: &LocalTensor<f32>, src: &LocalTensor<f16>, p: &Params, basic: bool) {
    set_mask_count();
    count_mask::<f32>(p.b);
    cast_masked::<f32, f16, false>(dst, src, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &WIDEN);
    if basic {
        pipe_barrier::<PIPE_V>();
    } else {
        handshake::<HardEvent::V_S>();
    }
}

/// `GetBatchNormOutput` for `float`: `gamma` broadcast into B, `Mul` into C, `beta` broadcast
/// into B, `Add` into `output`.
#[track_caller]
fn output_float(
    output: &LocalTensor<f32>,
    gamma: &LocalTensor<f32>,
    beta: &LocalTensor<f32>,
    p: &Params,
    basic: bool,
) {
    let dp = BinaryRepeatParams::default();
    if basic {
        brc_first_dim(&p.bb, gamma, p);
        set_mask_count();
        count_mask::<f32>(p.bsh);
        mul_masked::<f32, false>(&p.c, &p.bb, &p.c, MASK_PLACEHOLDER, 1, &dp);
        pipe_barrier::<PIPE_V>();
        brc_first_dim(&p.bb, beta, p);
        let bp = BinaryRepeatParams::new(1, 1, 1, (p.mv / FLOAT_BLOCK) as u8, p.sh_blk, p.sh_blk);
        for m in 0..p.basic_loop {
            let o = m * BASIC_LEN;
            for i in 0..p.ori_bloop {
                // The vendor's `tempTensorB[oriBTmpLoopOffset + …]`: no `i *`.
                let (s0, s1) = (p.bb.view(p.tmp_loop_off + o), p.c.view(p.tmp_loop_off + o));
                add_masked::<f32, false>(
                    &output.view(i * p.out_loop_off + o),
                    &s0,
                    &s1,
                    MASK_PLACEHOLDER,
                    MAX_REPEAT as u8,
                    &bp,
                );
            }
            if p.ori_btail > 0 {
                let (s0, s1) = (p.bb.view(p.tmp_tail_off + o), p.c.view(p.tmp_tail_off + o));
                add_masked::<f32, false>(
                    &output.view(p.out_tail_off + o),
                    &s0,
                    &s1,
                    MASK_PLACEHOLDER,
                    p.ori_btail as u8,
                    &bp,
                );
            }
        }
    } else {
        set_mask_count();
        count_mask::<f32>(p.sh);
        brc_dup(&p.bb, gamma, p.sh, p.b);
        count_mask::<f32>(p.bsh);
        mul_masked::<f32, false>(&p.c, &p.bb, &p.c, MASK_PLACEHOLDER, 1, &dp);
        pipe_barrier::<PIPE_V>();
        count_mask::<f32>(p.sh);
        brc_dup(&p.bb, beta, p.sh, p.b);
        for i in 0..p.b {
            let (d, s0, s1) = (output.view(i * p.mv), p.bb.view(i * p.sh), p.c.view(i * p.sh));
            add_masked::<f32, false>(&d, &s0, &s1, MASK_PLACEHOLDER, 1, &dp);
        }
    }
    pipe_barrier::<PIPE_V>();
}

/// `GetBatchNormOutput` for `half`: `gamma`/`beta` widened into A and broadcast into B, `Mul`
/// into C, `Add` into B (the caller narrows B into `output`).
#[track_caller]
fn output_half(gamma: &LocalTensor<f16>, beta: &LocalTensor<f16>, p: &Params, basic: bool) {
    let dp = BinaryRepeatParams::default();
    if basic {
        cast_gamm_beta(&p.a, gamma, p, true);
        brc_first_dim(&p.bb, &p.a, p);
        set_mask_count();
        count_mask::<f32>(p.bsh);
        mul_masked::<f32, false>(&p.c, &p.bb, &p.c, MASK_PLACEHOLDER, 1, &dp);
        pipe_barrier::<PIPE_V>();
        cast_gamm_beta(&p.a, beta, p, true);
        brc_first_dim(&p.bb, &p.a, p);
        set_mask_count();
        count_mask::<f32>(p.bsh);
        add_masked::<f32, false>(&p.bb, &p.bb, &p.c, MASK_PLACEHOLDER, 1, &dp);
        pipe_barrier::<PIPE_V>();
        set_mask_norm();
        reset_mask();
    } else {
        cast_gamm_beta(&p.a, gamma, p, false);
        set_mask_count();
        count_mask::<f32>(p.sh);
        brc_dup(&p.bb, &p.a, p.sh, p.b);
        count_mask::<f32>(p.bsh);
        mul_masked::<f32, false>(&p.c, &p.bb, &p.c, MASK_PLACEHOLDER, 1, &dp);
        pipe_barrier::<PIPE_V>();
        cast_gamm_beta(&p.a, beta, p, false);
        set_mask_count();
        count_mask::<f32>(p.sh);
        brc_dup(&p.bb, &p.a, p.sh, p.b);
        pipe_barrier::<PIPE_V>();
        for i in 0..p.b {
            let d = p.bb.view(i * p.sh);
            add_masked::<f32, false>(&d, &d, &p.c.view(i * p.sh), MASK_PLACEHOLDER, 1, &dp);
        }
    }
    pipe_barrier::<PIPE_V>();
}

/// `CastInput` (`half` rows into view A as `float`) or `CastOutput` (B narrowed into the
/// rows), `CAST_NONE`: the basic block per 64 columns with the rows as repeats, otherwise one
/// counter-mode `Cast` per row.
#[track_caller]
fn cast_rows(half_rows: &LocalTensor<f16>, floats: &LocalTensor<f32>, p: &Params, basic: bool, widen: bool) {
    let half_rep = (p.mv / 16) as u8;
    let one = |hv: LocalTensor<f16>, fv: LocalTensor<f32>, n: u8, up: &UnaryRepeatParams| {
        if widen {
            cast_masked::<f32, f16, false>(&fv, &hv, RoundMode::CastNone, MASK_PLACEHOLDER, n, up);
        } else {
            cast_masked::<f16, f32, false>(&hv, &fv, RoundMode::CastNone, MASK_PLACEHOLDER, n, up);
        }
    };
    if basic {
        let up = if widen {
            UnaryRepeatParams::new(1, 1, p.sh_blk, half_rep)
        } else {
            UnaryRepeatParams::new(1, 1, half_rep, p.sh_blk)
        };
        for m in 0..p.basic_loop {
            let o = m * BASIC_LEN;
            for (i, n) in p.groups() {
                one(half_rows.view(i * p.out_loop_off + o), floats.view(i * p.tmp_loop_off + o), n, &up);
            }
        }
    } else {
        count_mask::<f32>(p.sh);
        let up = if widen { WIDEN } else { NARROW };
        for i in 0..p.b {
            one(half_rows.view(i * p.mv), floats.view(i * p.sh), 1, &up);
        }
    }
    pipe_barrier::<PIPE_V>();
}

/// `GetOutputMeanVariance`: the round's `float` means or variances narrowed into the `half`
/// output (counter mode, `CAST_NONE`).
#[track_caller]
fn narrow_mv(dst: &LocalTensor<f16>, src: &LocalTensor<f32>, p: &Params, basic: bool) {
    set_mask_count();
    count_mask::<f32>(p.sh);
    cast_masked::<f16, f32, false>(dst, src, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &NARROW);
    if basic {
        set_mask_norm();
        reset_mask();
    }
    pipe_barrier::<PIPE_V>();
}

/// `BatchNormExeImpl`: one round of `shCurLength` columns.
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn exe<T: BatchNormElement>(
    x: &LocalTensor<T>,
    gamma: &LocalTensor<T>,
    beta: &LocalTensor<T>,
    output: &LocalTensor<T>,
    out_mean: &LocalTensor<T>,
    out_var: &LocalTensor<T>,
    (mean, var): (&LocalTensor<f32>, &LocalTensor<f32>),
    epsilon: f32,
    p: &Params,
    basic: bool,
) {
    if T::DTYPE == DType::F16 {
        let h = |t: &LocalTensor<T>| t.reinterpret_cast::<f16>();
        if basic {
            set_mask_norm();
            reset_mask();
        }
        cast_rows(&h(x), &p.a, p, basic, true);
        output_mean(mean, &p.a, p, basic, true);
        narrow_mv(&h(out_mean), mean, p, basic);
        output_variance(var, &p.a, mean, p, basic, true);
        narrow_mv(&h(out_var), var, p, basic);
        output_pre(var, epsilon, p, basic);
        output_half(&h(gamma), &h(beta), p, basic);
        cast_rows(&h(output), &p.bb, p, basic, false);
    } else {
        let f = |t: &LocalTensor<T>| t.reinterpret_cast::<f32>();
        output_mean(mean, &f(x), p, basic, false);
        output_variance(var, &f(x), mean, p, basic, false);
        output_pre(var, epsilon, p, basic);
        output_float(&f(output), &f(gamma), &f(beta), p, basic);
    }
}

/// `BatchNorm`'s checks: the chip, the positions, the vendor's asserts (`gamm`/`beta` 32-byte
/// aligned, the views inside `tmpBufSize`, the buffer at least `tmpBufSize` `float`s), the
/// tiling's consistency, the page's `isBasicBlock` shape, the sizes the instructions touch and
/// the overlaps (the outputs apart from each other, the vendor's check; `inputX` may be
/// `output`, the page's allowance, but not overlap it otherwise).
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn check<T: BatchNormElement>(
    basic: bool,
    [output, mean, variance, x, gamma, beta]: [&LocalTensor<T>; 6],
    tmp: &LocalTensor<u8>,
    t: &BatchNormTiling,
) {
    check_chip(API, &V220_V200);
    for (name, pos) in [
        ("output", output.get_position()),
        ("outputMean", mean.get_position()),
        ("outputVariance", variance.get_position()),
        ("inputX", x.get_position()),
        ("gamm", gamma.get_position()),
        ("beta", beta.get_position()),
        ("sharedTmpBuffer", tmp.get_position()),
    ] {
        ensure(pos.is_ub(), API, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
    }
    let (b, mv, sh, one) = (
        t.original_b_length as usize,
        t.mean_var_size as usize,
        t.sh_cur_length as usize,
        t.one_tmp_size as usize,
    );
    let half = T::DTYPE == DType::F16;
    let rounds = t.loop_round as usize * sh;
    let unit = if half { 16 } else { FLOAT_BLOCK };
    let tail_ok = t.input_tail_size == 0
        || (t.input_tail_size as usize == b * t.mean_var_tail_size as usize
            && t.input_tail_size as usize <= one
            && t.mean_var_tail_size as usize % if basic { BASIC_LEN } else { unit } == 0
            && t.input_tail_pos as usize == rounds
            && t.mean_var_tail_pos as usize == rounds
            && rounds + t.mean_var_tail_size as usize == mv);
    let (first, second, third) =
        (t.first_tmp_start_pos as usize, t.second_tmp_start_pos as usize, t.third_tmp_start_pos as usize);
    ensure(
        b > 0
            && first + one <= second
            && second + one <= third
            && sh > 0
            && sh % unit == 0
            && mv * T::SIZE % 32 == 0
            && t.bsh_cur_length as usize == b * sh
            && one >= b * sh
            && t.sh_cur_length_block_num as usize == sh / FLOAT_BLOCK
            && rounds <= mv
            && (t.input_tail_size > 0 || rounds == mv)
            && tail_ok,
        API,
        || {
            format!(
                "the tiling is unset or inconsistent (make it with GetBatchNormNDTilingInfo for this shape and type): \
                 {t:?}"
            )
        },
    );
    let views_end = t.third_tmp_start_pos as usize + one;
    ensure(views_end <= t.tmp_buf_size as usize, API, || {
        format!(
            "thirdTmpStartPos + oneTmpSize ({views_end}) should be <= tmpBufSize ({}) (the vendor's assert)",
            t.tmp_buf_size
        )
    });
    if half {
        let mv8 = mv.next_multiple_of(FLOAT_BLOCK);
        let ok = (t.mean_tmp_tensor_pos as usize + mv8 <= t.first_tmp_start_pos as usize
            || t.mean_tmp_tensor_pos as usize >= views_end)
            && (t.variance_tmp_tensor_pos as usize + mv8 <= t.first_tmp_start_pos as usize
                || t.variance_tmp_tensor_pos as usize >= views_end)
            && t.mean_tmp_tensor_pos.abs_diff(t.variance_tmp_tensor_pos) as usize >= mv8
            && (t.mean_tmp_tensor_pos.max(t.variance_tmp_tensor_pos) as usize + mv8)
                <= t.tmp_buf_size as usize;
        ensure(ok, API, || {
            format!("the tiling's float means and variances overlap each other or its views: {t:?}")
        });
    }
    let floats = tmp.get_size() / 4;
    ensure(floats >= t.tmp_buf_size as usize, API, || {
        format!(
            "sharedTmpBuffer has {} bytes ({floats} floats); stackBuffer.GetSize() should be >= tiling.tmpBufSize ({})",
            tmp.get_size(),
            t.tmp_buf_size
        )
    });
    if basic {
        ensure(
            b % FLOAT_BLOCK == 0 && mv % BASIC_LEN == 0 && mv < BASIC_MAX_SH && sh % BASIC_LEN == 0,
            API,
            || {
                format!(
                "isBasicBlock = true needs originB a multiple of 8 and S * H a multiple of 64 below 2048 (the page), \
                 and shCurLength a multiple of 64; the tiling has originalBLength = {b}, meanVarSize = {mv}, \
                 shCurLength = {sh}"
            )
            },
        );
    }
    for (name, g) in [("gamm", gamma), ("beta", beta)] {
        let n = g.get_size();
        ensure(n * T::SIZE % 32 == 0, API, || {
            format!("The {name} length is {} bytes, should be 32B aligned", n * T::SIZE)
        });
        ensure(n >= b, API, || format!("{name} has {n} elements, fewer than originB = {b}"));
    }
    for (name, n) in [("inputX", x.get_size()), ("output", output.get_size())] {
        ensure(n >= b * mv, API, || {
            format!("{name} has {n} elements, fewer than originB * S * H = {}", b * mv)
        });
    }
    for (name, n) in [("outputMean", mean.get_size()), ("outputVariance", variance.get_size())] {
        ensure(n >= mv, API, || format!("{name} has {n} elements, fewer than S * H = {mv}"));
    }
    let (o, m, v) =
        (span("output", output, b * mv), span("outputMean", mean, mv), span("outputVariance", variance, mv));
    let (xs, g, be) = (span("inputX", x, b * mv), span("gamm", gamma, b), span("beta", beta, b));
    let tw: Span = ("sharedTmpBuffer", tmp.get_phy_addr(), tmp.get_phy_addr() + 4 * t.tmp_buf_size as usize);
    let mut pairs = vec![(o, m), (o, v), (m, v), (o, g), (o, be)];
    if o.1 != xs.1 {
        pairs.push((o, xs));
    }
    for out in [m, v] {
        pairs.extend([(out, xs), (out, g), (out, be)]);
    }
    for any in [o, m, v, xs, g, be] {
        pairs.push((tw, any));
    }
    check_apart(API, &pairs);
}

/// BatchNorm of `input_x` (`[originB, S·H]`, the tiling's shape) into `output`, with each
/// column's mean and variance over the batch into `output_mean` and `output_variance` (`S·H`
/// elements), the per-row scaling `gamm` and shift `beta` (`originB` elements, 32-byte
/// aligned), `shared_tmp_buffer` as scratch (AscendC `BatchNorm<T, isReuseSource,
/// isBasicBlock>(output, outputMean, outputVariance, inputX, gamm, beta, sharedTmpBuffer,
/// epsilon, tiling)`): `output[b][j] = gamm[b] · (x[b][j] - mean[j]) · rstd[j] + beta[b]` with
/// `rstd = exp(-0.5 · ln(variance + epsilon))`, each operation rounded as the vendor's
/// instructions round it (see the [module](self)). `isReuseSource` is reserved (the page:
/// pass `false`); the vendor's check only warns, and it changes nothing. A tail round leaves
/// its lengths in `tiling`. It leaves normal mode and a reset mask.
///
/// The page's worked example (`[8, 4, 2]`, `x = 0..64`, `gamm = beta = 0..8`, `epsilon =
/// 0.01`):
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 256 + 4 * 32);
/// let (_, min) = get_batch_norm_max_min_tmp_size(&[8, 4, 2], &[8, 4, 2], 4, false, false);
/// pipe.init_tbuf(&mut tmp, min);
/// let mut tiling = get_batch_norm_nd_tiling_info(&[8, 4, 2], &[8, 4, 2], min, 4, false, false);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// let t = |i: usize| q.get_with_offset::<f32>(8, 512 + 32 * i);
/// let (mean, var, gamma, beta) = (t(0), t(1), t(2), t(3));
/// x.copy_from_slice(&(0..64).map(|v| v as f32).collect::<Vec<_>>());
/// gamma.copy_from_slice(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
/// beta.copy_from_slice(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
/// batch_norm::<f32, false, false>(&y, &mean, &var, &x, &gamma, &beta, &tmp.get::<u8>(), 0.01, &mut tiling);
/// assert_eq!(mean.to_vec(), [28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0]);
/// assert_eq!(var.to_vec(), [336.0; 8]);
/// let y = y.to_vec();
/// assert!((y[8] + 0.091073155).abs() < 1e-6 && (y[63] - 17.692516).abs() < 1e-5);
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); a tensor is not in the
/// Unified Buffer; the tiling is unset or inconsistent, or its views exceed `tmpBufSize`; the
/// buffer holds fewer than `tmpBufSize` `float`s; `gamm` or `beta` is not 32-byte aligned or
/// shorter than `originB`; a tensor is too small; with `IS_BASIC_BLOCK`, `originB` is not a
/// multiple of 8 or `S·H` of 64 below 2048; the outputs overlap each other, `gamm`, `beta`
/// or (the mean and variance, or `output` other than exactly) `inputX`, or the buffer
/// overlaps any tensor; or any instruction's own check fails.
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn batch_norm<T: BatchNormElement, const IS_REUSE_SOURCE: bool, const IS_BASIC_BLOCK: bool>(
    output: &LocalTensor<T>,
    output_mean: &LocalTensor<T>,
    output_variance: &LocalTensor<T>,
    input_x: &LocalTensor<T>,
    gamm: &LocalTensor<T>,
    beta: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    epsilon: T,
    tiling: &mut BatchNormTiling,
) {
    check::<T>(
        IS_BASIC_BLOCK,
        [output, output_mean, output_variance, input_x, gamm, beta],
        shared_tmp_buffer,
        tiling,
    );
    let half = T::DTYPE == DType::F16;
    let stack = shared_tmp_buffer.reinterpret_cast::<f32>();
    let t0 = *tiling;
    let at = |pos: u32| stack.view(pos as usize);
    let (mean, var) = if half {
        (at(t0.mean_tmp_tensor_pos), at(t0.variance_tmp_tensor_pos))
    } else {
        (output_mean.reinterpret_cast::<f32>(), output_variance.reinterpret_cast::<f32>())
    };
    let views = || [at(t0.first_tmp_start_pos), at(t0.second_tmp_start_pos), at(t0.third_tmp_start_pos)];
    let eps = epsilon.to_f64() as f32;
    set_mask_count();
    let round = |off: usize, mvo: usize, p: &Params| {
        exe(
            &input_x.view(off),
            gamm,
            beta,
            &output.view(off),
            &output_mean.view(mvo),
            &output_variance.view(mvo),
            (&mean.view(mvo), &var.view(mvo)),
            eps,
            p,
            IS_BASIC_BLOCK,
        );
    };
    let p = Params::new(tiling, half, views());
    let mut mvo = 0;
    for _ in 0..t0.loop_round {
        round(mvo, mvo, &p);
        mvo += t0.sh_cur_length as usize;
    }
    if t0.input_tail_size > 0 {
        tiling.bsh_cur_length = t0.input_tail_size;
        tiling.sh_cur_length = t0.mean_var_tail_size;
        tiling.sh_cur_length_block_num = t0.mean_var_tail_size / FLOAT_BLOCK as u32;
        let p = Params::new(tiling, half, views());
        round(t0.input_tail_pos as usize, t0.mean_var_tail_pos as usize, &p);
    }
    set_mask_norm();
    reset_mask();
}

/// [`batch_norm`] with the stack buffer as scratch (AscendC `BatchNorm<T, isReuseSource,
/// isBasicBlock>(output, outputMean, outputVariance, inputX, gamm, beta, epsilon, tiling)`);
/// the tiling's `tmpBufSize` must fit in it.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 512 + 4 * 32);
/// let stack = pop_stack_buffer::<u8>().get_size();
/// let mut tiling = get_batch_norm_nd_tiling_info(&[16, 1, 16], &[16, 1, 16], stack, 2, false, false);
/// let (x, y) = (q.get_with_offset::<f16>(256, 0), q.get_with_offset::<f16>(256, 512));
/// let t = |i: usize| q.get_with_offset::<f16>(16, 1024 + 32 * i);
/// let (mean, var, gamma, beta) = (t(0), t(1), t(2), t(3));
/// let v: Vec<f16> = (0..256).map(|i| f16::from_f32(if i < 128 { 1.0 } else { 3.0 })).collect();
/// x.copy_from_slice(&v);
/// gamma.copy_from_slice(&[f16::from_f32(2.0); 16]);
/// beta.copy_from_slice(&[f16::from_f32(0.5); 16]);
/// batch_norm_stack::<f16, false, false>(&y, &mean, &var, &x, &gamma, &beta, f16::ZERO, &mut tiling);
/// assert_eq!((mean.get_value(0).to_f32(), var.get_value(0).to_f32()), (2.0, 1.0));
/// assert_eq!((y.get_value(0).to_f32(), y.get_value(255).to_f32()), (-1.5, 2.5));
/// ```
///
/// # Panics
/// As [`batch_norm`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn batch_norm_stack<T: BatchNormElement, const IS_REUSE_SOURCE: bool, const IS_BASIC_BLOCK: bool>(
    output: &LocalTensor<T>,
    output_mean: &LocalTensor<T>,
    output_variance: &LocalTensor<T>,
    input_x: &LocalTensor<T>,
    gamm: &LocalTensor<T>,
    beta: &LocalTensor<T>,
    epsilon: T,
    tiling: &mut BatchNormTiling,
) {
    let stack = stack_tensor(API);
    batch_norm::<T, IS_REUSE_SOURCE, IS_BASIC_BLOCK>(
        output,
        output_mean,
        output_variance,
        input_x,
        gamm,
        beta,
        &stack,
        epsilon,
        tiling,
    );
}
