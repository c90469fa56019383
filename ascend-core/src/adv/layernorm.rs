//! `LayerNorm` of the advanced API (the vendor's `adv_api/normalization/layernorm.h`): the
//! form with the tiling [`LayerNormTiling`] that outputs each row's mean and variance
//! ([`layer_norm`], [`layer_norm_stack`]) and its host helpers
//! ([`get_layer_norm_max_min_tmp_size`], [`get_layer_norm_nd_tiling_info`]); the form with
//! [`LayerNormPara`] and [`LayerNormSeparateTiling`] that outputs each row's mean and rstd
//! ([`layer_norm_rstd`], [`layer_norm_rstd_stack`], the vendor's `LNCFG_NORM`) with its host
//! helpers ([`get_layer_norm_rstd_max_min_tmp_size`], [`get_layer_norm_rstd_nd_tiling_info`]);
//! and
//! `WelfordFinalize` (`adv_api/normalization/welfordfinalize.h`: [`welford_finalize`],
//! [`welford_finalize_counts`] and their `_stack` forms, [`WelfordFinalizePara`],
//! [`get_welford_finalize_max_min_tmp_size`]), which sums as `LayerNorm` does.
//!
//! It is the vendor's `layernorm_common_impl.h` and `layernorm_common_basic_impl.h`, which
//! Ascend910B and Ascend310P share (the chips whose build of the library implements it; its
//! page also lists Ascend 950, not emulated): in counter mode, `loopRound` rounds of
//! `bsCurLength` rows of `hLength` elements and a tail round, each computed in `float` in
//! three views of the temporary buffer.

use super::align_up;
use bytemuck::{Pod, Zeroable};

use crate::element::{f16, DType, Element};
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::sync::{event::PIPE_V, flags::pipe_barrier};
use crate::vector::binary::{add_masked, div_masked, mul_masked};
use crate::vector::cast::{cast_masked, RoundMode};
use crate::vector::duplicate::duplicate_masked;
use crate::vector::mask::{reset_mask, set_cmp_mask, set_mask_count, set_mask_norm, MASK_PLACEHOLDER};
use crate::vector::params::BinaryRepeatParams;
use crate::vector::reduction::whole_reduce_sum;
use crate::vector::select::select_scalar_reg;

use super::steps;
use super::{check_apart, check_chip, count_mask, span, stack_tensor, Span, NARROW, SAME, V220_V200};

mod sealed {
    pub trait Sealed {}
}
impl sealed::Sealed for f16 {}
impl sealed::Sealed for f32 {}

/// Element types of [`layer_norm`]: `half` and `float` (the vendor's page).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<i32>, tmp: &LocalTensor<u8>, tiling: &mut LayerNormTiling) {
///     layer_norm::<_, false>(t, t, t, t, t, t, tmp, 0, tiling)
/// }
/// ```
pub trait LayerNormElement: Element + sealed::Sealed {}
impl LayerNormElement for f16 {}
impl LayerNormElement for f32 {}

const LAYER_NORM: &str = "LayerNorm";

/// `float`s per repeat (`ONE_REPEAT_FLOAT_SIZE`).
const ONE_REPEAT_FLOAT_SIZE: usize = 64;
/// The repeat limit of `WholeReduceSum` (`MAX_REPEAT_TIMES`).
const MAX_REPEAT_TIMES: usize = 255;
/// `float`s per 32-byte block (`B32_DATA_NUM_PER_BLOCK`).
const FLOAT_PER_BLOCK: usize = 8;

/// `LayerNorm`'s tiling (AscendC `LayerNormTiling`, the vendor's fields in snake_case), from
/// [`get_layer_norm_nd_tiling_info`] on the host. `#[repr(C)]` and [`Pod`], so it travels in a
/// kernel's tiling data as the vendor's does. Positions and sizes count `float`s of the
/// temporary buffer.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct LayerNormTiling {
    /// B of the shape `[B, S, H]` (`bLength`).
    pub b_length: u32,
    /// S (`sLength`).
    pub s_length: u32,
    /// H, the row's stored length (`hLength`).
    pub h_length: u32,
    /// H before padding, the divisor of the mean and variance (`originalHLength`).
    pub original_h_length: u32,
    /// `B * S * H` (`inputXSize`).
    pub input_x_size: u32,
    /// `B * S`, the rows (`meanVarSize`).
    pub mean_var_size: u32,
    /// The row-sized views of the buffer: 3, or 2 for `float` with `isReuseSource`
    /// (`numberOfTmpBuf`).
    pub number_of_tmp_buf: u32,
    /// Start of `half`'s `float` means (`meanTmpTensorPos`).
    pub mean_tmp_tensor_pos: u32,
    /// `B * S` rounded up to 8 (`meanTmpTensorSize`).
    pub mean_tmp_tensor_size: u32,
    /// Start of `half`'s `float` variances (`varianceTmpTensorPos`).
    pub variance_tmp_tensor_pos: u32,
    /// As `meanTmpTensorSize` (`varianceTmpTensorSize`).
    pub variance_tmp_tensor_size: u32,
    /// The buffer's `float`s (`tmpBufSize`).
    pub tmp_buf_size: u32,
    /// `float`s of one view: the rows of one round times H (`oneTmpSize`).
    pub one_tmp_size: u32,
    /// Start of the first view (`firstTmpStartPos`).
    pub first_tmp_start_pos: u32,
    /// Start of the second view (`secondTmpStartPos`).
    pub second_tmp_start_pos: u32,
    /// Start of the third view (`thirdTmpStartPos`).
    pub third_tmp_start_pos: u32,
    /// Full rounds (`loopRound`).
    pub loop_round: u32,
    /// Elements of a full round (`inputRoundSize`).
    pub input_round_size: u32,
    /// Elements of the tail round (`inputTailSize`; 0: no tail).
    pub input_tail_size: u32,
    /// First element of the tail round (`inputTailPos`).
    pub input_tail_pos: u32,
    /// Rows of a full round (`meanVarRoundSize`).
    pub mean_var_round_size: u32,
    /// Rows of the tail round (`meanVarTailSize`).
    pub mean_var_tail_size: u32,
    /// First row of the tail round (`meanVarTailPos`).
    pub mean_var_tail_pos: u32,
    /// Elements of the current round (`bshCurLength`; the kernel sets it to the tail's).
    pub bsh_cur_length: u32,
    /// Rows of the current round (`bsCurLength`; the kernel sets it to the tail's).
    pub bs_cur_length: u32,
    /// `1 / originalHLength` (`lastDimValueBack`).
    pub last_dim_value_back: f32,
}

// ---------------------------------------------------------------------------------------
// Host tiling
// ---------------------------------------------------------------------------------------

/// The vendor's `CheckLayerNormHostCommon`: a non-empty shape of four dimensions `[B, S, H,
/// originH]`, `typeSize` 2 or 4; returns `(B, S, H, originH)`.
#[track_caller]
pub(crate) fn host_shape(
    api: &'static str,
    shape: &[usize],
    type_size: usize,
) -> (usize, usize, usize, usize) {
    ensure(shape.len() == 4, api, || {
        format!(
            "srcShape = {shape:?} has {} dimensions; it must be [B, S, storageHLength, originHLength]",
            shape.len()
        )
    });
    super::host_checks(api, shape.iter().product(), type_size);
    (shape[0], shape[1], shape[2], shape[3])
}

/// The temporary buffer's `(max, min)` bytes for [`layer_norm`] on a source of shape `[B, S,
/// H, originH]` (AscendC `GetLayerNormMaxMinTmpSize(srcShape, typeSize, isReuseSource,
/// maxValue, minValue)`), `type_size` 2 (`half`) or 4 (`float`): the maximum computes all
/// rows in one round, `k * align_up(4 * B*S*H) + 2 * align_up(4 * B*S)`, the minimum one row,
/// `k * align_up(4 * H) + 2 * align_up(4 * B*S)`, with `k` 2 for `float` with
/// `is_reuse_source` and 3 otherwise.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_layer_norm_max_min_tmp_size(&[2, 32, 16, 16], 4, false), (12800, 704));
/// assert_eq!(get_layer_norm_max_min_tmp_size(&[2, 32, 16, 16], 4, true), (8704, 640));
/// ```
///
/// # Panics
/// Panics if the shape does not have four dimensions or has no elements, or `type_size` is
/// neither 2 nor 4.
#[track_caller]
pub fn get_layer_norm_max_min_tmp_size(
    src_shape: &[usize],
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let (b, s, h, _) = host_shape("GetLayerNormMaxMinTmpSize", src_shape, type_size);
    let k = if is_reuse_source && type_size == 4 { 2 } else { 3 };
    let mv = 2 * align_up(b * s * 4, 32);
    (k * align_up(b * s * h * 4, 32) + mv, k * align_up(h * 4, 32) + mv)
}

/// `LayerNorm`'s tiling for a source of shape `[B, S, H, originH]` (H the stored row,
/// `originH` its data, the divisor of mean and variance) with a temporary buffer of
/// `stack_buffer_size` bytes (AscendC `GetLayerNormNDTilingInfo(srcShape, stackBufferSize,
/// typeSize, isReuseSource, tiling)`), the vendor's numbers: for `half` the buffer starts with
/// the `float` means and variances (each `B * S` rounded up to 8), then `numberOfTmpBuf` views
/// of the most whole rows that fit, at most all rows.
///
/// ```
/// use ascend_core::prelude::*;
/// let t = get_layer_norm_nd_tiling_info(&[2, 32, 16, 16], 704, 4, false);
/// assert_eq!((t.one_tmp_size, t.loop_round, t.input_tail_size), (48, 21, 16));
/// assert_eq!((t.bs_cur_length, t.mean_var_tail_size, t.mean_var_tail_pos), (3, 1, 63));
/// assert_eq!(t.last_dim_value_back, 1.0 / 16.0);
/// ```
///
/// # Panics
/// Panics if the shape does not have four dimensions or has no elements, `type_size` is
/// neither 2 nor 4; and where the vendor leaves the tiling unset or computes it from a
/// wrapped subtraction: the buffer holds less than one row in each view (see
/// [`get_layer_norm_max_min_tmp_size`]'s minimum).
#[track_caller]
pub fn get_layer_norm_nd_tiling_info(
    src_shape: &[usize],
    stack_buffer_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> LayerNormTiling {
    const API: &str = "GetLayerNormNDTilingInfo";
    let (b, s, h, oh) = host_shape(API, src_shape, type_size);
    let input = b * s * h;
    let mv = b * s;
    let bufs = if is_reuse_source && type_size == 4 { 2 } else { 3 };
    let mv_size = align_up(mv, FLOAT_PER_BLOCK);
    let mv_total = if type_size == 4 { 0 } else { 2 * mv_size };
    let tmp_buf = stack_buffer_size / 4;
    let one = tmp_buf.saturating_sub(mv_total) / bufs / h * h;
    let one = one.min(input);
    ensure(one > 0, API, || {
        format!(
            "stackBufferSize = {stack_buffer_size} bytes holds {tmp_buf} floats: fewer than the {} of the means and \
             variances and {bufs} rows of H = {h} (see GetLayerNormMaxMinTmpSize's minimum)",
            mv_total
        )
    });
    tiling_of((b, s, h, oh), bufs, mv_total, tmp_buf, one)
}

/// The tiling for `[B, S, H, originH]` (`dims`) with `bufs` views of `one` `float`s after
/// `mv_total` `float`s of `half`'s means and variances, in a buffer of `tmp_buf` `float`s:
/// the vendor's rounds, tail and positions (shared with `DeepNorm`'s host helper).
pub(crate) fn tiling_of(
    (b, s, h, oh): (usize, usize, usize, usize),
    bufs: usize,
    mv_total: usize,
    tmp_buf: usize,
    one: usize,
) -> LayerNormTiling {
    let input = b * s * h;
    let mv = b * s;
    let mv_size = align_up(mv, FLOAT_PER_BLOCK);
    let tail = input % one;
    LayerNormTiling {
        b_length: b as u32,
        s_length: s as u32,
        h_length: h as u32,
        original_h_length: oh as u32,
        input_x_size: input as u32,
        mean_var_size: mv as u32,
        number_of_tmp_buf: bufs as u32,
        mean_tmp_tensor_pos: 0,
        mean_tmp_tensor_size: mv_size as u32,
        variance_tmp_tensor_pos: mv_size as u32,
        variance_tmp_tensor_size: mv_size as u32,
        tmp_buf_size: tmp_buf as u32,
        one_tmp_size: one as u32,
        first_tmp_start_pos: mv_total as u32,
        second_tmp_start_pos: (mv_total + one) as u32,
        third_tmp_start_pos: (mv_total + 2 * one) as u32,
        loop_round: (input / one) as u32,
        input_round_size: one as u32,
        input_tail_size: tail as u32,
        input_tail_pos: (input - tail) as u32,
        mean_var_round_size: (one / h) as u32,
        mean_var_tail_size: (tail / h) as u32,
        mean_var_tail_pos: (mv - tail / h) as u32,
        bsh_cur_length: one as u32,
        bs_cur_length: (one / h) as u32,
        last_dim_value_back: 1.0 / oh as f32,
    }
}

// ---------------------------------------------------------------------------------------
// The shared steps (layernorm_common_basic_impl.h)
// ---------------------------------------------------------------------------------------

/// The vendor's `LayerNormParams<float>`: the three row-sized views and the `float` means
/// and variances.
struct Views {
    a: LocalTensor<f32>,
    b: LocalTensor<f32>,
    c: LocalTensor<f32>,
    mean: LocalTensor<f32>,
    variance: LocalTensor<f32>,
}

/// `LayerNormReduceSumImpl<isRelocate = true>`: in normal mode, each row's 64-element chunks
/// added in order into its first (`Add` with `dst`'s and `src1`'s repeat stride 0), the
/// row's last partial chunk added with a count mask; then `WholeReduceSum` of each row's
/// first `min(H, 64)` elements into `dst_mv` (contiguous) and into `dst` (at `row * H`), 255
/// rows at a time; counter mode again.
#[track_caller]
fn reduce_sum(
    dst_mv: &LocalTensor<f32>,
    dst: &LocalTensor<f32>,
    src: &LocalTensor<f32>,
    bs: usize,
    h: usize,
) {
    reset_mask();
    set_mask_norm();
    let acc = BinaryRepeatParams::new(1, 1, 1, 0, 8, 0);
    if h > ONE_REPEAT_FLOAT_SIZE {
        // `uint32_t` repeat and tail numbers narrowed to the `uint8_t` repeat time.
        let repeats = h / ONE_REPEAT_FLOAT_SIZE - 1;
        let tail = h % ONE_REPEAT_FLOAT_SIZE;
        let head = h / ONE_REPEAT_FLOAT_SIZE * ONE_REPEAT_FLOAT_SIZE;
        for i in (0..bs * h).step_by(h) {
            let row = src.view(i);
            if repeats > 0 {
                add_masked::<f32, true>(
                    &row,
                    &src.view(i + ONE_REPEAT_FLOAT_SIZE),
                    &row,
                    ONE_REPEAT_FLOAT_SIZE as u64,
                    repeats as u8,
                    &acc,
                );
                pipe_barrier::<PIPE_V>();
            }
            if tail != 0 {
                add_masked::<f32, true>(&row, &src.view(i + head), &row, tail as u64, 1, &acc);
                pipe_barrier::<PIPE_V>();
            }
        }
    }
    let lanes = h.min(ONE_REPEAT_FLOAT_SIZE) as u64;
    // `hLength >> 3`, narrowed to the `uint16_t` repeat stride.
    let rep = (h >> 3) as u16;
    let mut r = 0;
    while r < bs {
        let n = (bs - r).min(MAX_REPEAT_TIMES);
        let s = src.view(r * h);
        whole_reduce_sum::<f32, true>(&dst_mv.view(r), &s, lanes, n as u8, 1, 1, rep);
        whole_reduce_sum::<f32, true>(&dst.view(r * h), &s, lanes, n as u8, h as u16, 1, rep);
        pipe_barrier::<PIPE_V>();
        r += n;
    }
    set_mask_count();
}

/// `BroadcastLastDim`: `src[row * H]` over row `row` of `dst` — the compare-mask register
/// loaded from it (`SetCmpMask`), `Select` mode 1 with an all-zero selection mask (`src`'s
/// first `H` `int16_t`s zeroed by `Muls` by 0), one row at a time.
#[track_caller]
fn broadcast_last_dim(dst: &LocalTensor<f32>, src: &LocalTensor<f32>, bs: usize, h: usize) {
    count_mask::<f32>(h);
    set_cmp_mask(src);
    pipe_barrier::<PIPE_V>();
    let mask = src.reinterpret_cast::<i16>();
    steps::muls(&mask, &mask, 0);
    let sel = mask.reinterpret_cast::<u16>();
    let p = BinaryRepeatParams::default();
    select_scalar_reg::<f32, u16>(dst, &sel, dst, 1, &p);
    pipe_barrier::<PIPE_V>();
    for i in 1..bs {
        set_cmp_mask(&src.view(i * h));
        pipe_barrier::<PIPE_V>();
        select_scalar_reg::<f32, u16>(&dst.view(i * h), &sel, dst, 1, &p);
        pipe_barrier::<PIPE_V>();
    }
}

/// `DuplicateMulImpl` / `DuplicateAddImpl`: `dst = src0 op src1` row by row with `src1` one
/// row (the mask already `H`), then one `PipeBarrier<PIPE_V>`.
#[track_caller]
pub(crate) fn duplicate_rows(
    dst: &LocalTensor<f32>,
    src0: &LocalTensor<f32>,
    src1: &LocalTensor<f32>,
    bs: usize,
    h: usize,
    add: bool,
) {
    let p = BinaryRepeatParams::default();
    for i in 0..bs {
        let (d, s) = (dst.view(i * h), src0.view(i * h));
        if add {
            add_masked::<f32, false>(&d, &s, src1, MASK_PLACEHOLDER, 1, &p);
        } else {
            mul_masked::<f32, false>(&d, &s, src1, MASK_PLACEHOLDER, 1, &p);
        }
    }
    pipe_barrier::<PIPE_V>();
}

/// One round (`LayerNormExe`) of `bs` rows of `x` (the `float` source: `half`'s widened into
/// view A): the mean (`GetLayerNormOutputMean`), the variance
/// (`GetLayerNormOutputVariance`), `(x - mean) / sqrt(variance + epsilon)`
/// (`GetLayerNormOutputPre`), then `* gamma + beta` (`GetLayerNormOutput`).
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn exe<T: LayerNormElement>(
    input_x: &LocalTensor<T>,
    gamma: &LocalTensor<T>,
    beta: &LocalTensor<T>,
    output: &LocalTensor<T>,
    mean: &LocalTensor<f32>,
    variance: &LocalTensor<f32>,
    epsilon: f32,
    (bs, bsh, h, back): (usize, usize, usize, f32),
    v: &Views,
) {
    let half = T::DTYPE == DType::F16;
    let x = if half {
        count_mask::<f32>(bsh);
        steps::widen(&v.a, &input_x.reinterpret_cast::<f16>());
        v.a.clone()
    } else {
        input_x.reinterpret_cast::<f32>()
    };
    // The mean: x / originH, summed per row, into `mean` and B[row * H].
    count_mask::<f32>(bsh);
    steps::muls(&v.c, &x, back);
    reduce_sum(mean, &v.b, &v.c, bs, h);
    // The variance: (x - mean)² / originH summed, into `variance` and C[row * H].
    broadcast_last_dim(&v.c, &v.b, bs, h);
    count_mask::<f32>(bsh);
    steps::sub(&v.b, &x, &v.c);
    steps::mul(&v.c, &v.b, &v.b);
    steps::muls(&v.a, &v.c, back);
    reduce_sum(variance, &v.c, &v.a, bs, h);
    pipe_barrier::<PIPE_V>();
    // (x - mean) * 1 / sqrt(variance + epsilon) into C.
    broadcast_last_dim(&v.a, &v.c, bs, h);
    count_mask::<f32>(bsh);
    steps::adds(&v.c, &v.a, epsilon);
    steps::sqrt(&v.a, &v.c);
    count_mask::<f32>(FLOAT_PER_BLOCK);
    duplicate_masked::<f32, false>(&v.c, 1.0, MASK_PLACEHOLDER, 1, 1, 8);
    pipe_barrier::<PIPE_V>();
    count_mask::<f32>(bsh);
    div_masked::<f32, false>(
        &v.a,
        &v.c,
        &v.a,
        MASK_PLACEHOLDER,
        1,
        &BinaryRepeatParams::new(1, 0, 1, 8, 0, 8),
    );
    pipe_barrier::<PIPE_V>();
    steps::mul(&v.c, &v.a, &v.b);
    // * gamma + beta.
    count_mask::<f32>(h);
    if half {
        steps::widen(&v.a, &gamma.reinterpret_cast::<f16>());
        duplicate_rows(&v.b, &v.c, &v.a, bs, h, false);
        steps::widen(&v.c, &beta.reinterpret_cast::<f16>());
        duplicate_rows(&v.a, &v.b, &v.c, bs, h, true);
        count_mask::<f32>(bsh);
        narrow(&output.reinterpret_cast::<f16>(), &v.a);
    } else {
        duplicate_rows(&v.a, &v.c, &gamma.reinterpret_cast::<f32>(), bs, h, false);
        duplicate_rows(&output.reinterpret_cast::<f32>(), &v.a, &beta.reinterpret_cast::<f32>(), bs, h, true);
    }
}

/// `Cast<half, float>` (`CAST_NONE`) under the mask, then `PipeBarrier<PIPE_V>`.
#[track_caller]
pub(crate) fn narrow(dst: &LocalTensor<f16>, src: &LocalTensor<f32>) {
    cast_masked::<f16, f32, false>(dst, src, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &NARROW);
    pipe_barrier::<PIPE_V>();
}

// ---------------------------------------------------------------------------------------
// LayerNorm
// ---------------------------------------------------------------------------------------

/// The `float`s of the temporary buffer [`layer_norm`] uses: up to the end of its last view.
pub(crate) fn used_floats(t: &LayerNormTiling, reuse_float: bool) -> usize {
    let last = if reuse_float { t.second_tmp_start_pos } else { t.third_tmp_start_pos };
    last as usize + t.one_tmp_size as usize
}

/// `LayerNorm`'s checks: chip, positions, the tiling's consistency, H's alignment, the
/// tensors' and the buffer's sizes, and the overlaps; `api` names the caller in errors and
/// `host` the host helper that makes its tiling (`DeepNorm` shares them).
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub(crate) fn check_layer_norm<T: LayerNormElement, const REUSE: bool>(
    api: &'static str,
    host: &'static str,
    output: &LocalTensor<T>,
    mean: &LocalTensor<T>,
    variance: &LocalTensor<T>,
    x: &LocalTensor<T>,
    gamma: &LocalTensor<T>,
    beta: &LocalTensor<T>,
    tmp: &LocalTensor<u8>,
    t: &LayerNormTiling,
) {
    check_chip(api, &V220_V200);
    let named: [(&str, crate::position::TPosition); 7] = [
        ("output", output.get_position()),
        ("outputMean", mean.get_position()),
        ("outputVariance", variance.get_position()),
        ("inputX", x.get_position()),
        ("gamma", gamma.get_position()),
        ("beta", beta.get_position()),
        ("sharedTmpBuffer", tmp.get_position()),
    ];
    for (name, pos) in named {
        ensure(pos.is_ub(), api, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
    }
    ensure(t.one_tmp_size > 0, api, || {
        format!("tiling.oneTmpSize = 0: the tiling is unset ({t:?}); get it from {host}")
    });
    let (h, bs, bsh) = (t.h_length as usize, t.bs_cur_length as usize, t.bsh_cur_length as usize);
    let reuse_float = REUSE && T::DTYPE == DType::F32;
    let half = T::DTYPE == DType::F16;
    let one = t.one_tmp_size as usize;
    let total = t.input_x_size as usize;
    let rows = t.mean_var_size as usize;
    let (rounds, round, tail) =
        (t.loop_round as usize, t.input_round_size as usize, t.input_tail_size as usize);
    let consistent = h > 0
        && t.original_h_length > 0
        && total
            == (t.b_length as usize).saturating_mul(t.s_length as usize).saturating_mul(t.h_length as usize)
        && rows == t.b_length as usize * t.s_length as usize
        && one % h == 0
        && bsh == bs * h
        && bsh <= one
        && round == one
        && t.mean_var_round_size as usize * h == round
        && t.mean_var_tail_size as usize * h == tail
        && rounds * round + tail == total
        && t.input_tail_pos as usize == rounds * round
        && t.mean_var_tail_pos as usize + t.mean_var_tail_size as usize == rows
        && t.second_tmp_start_pos as usize == t.first_tmp_start_pos as usize + one
        && t.third_tmp_start_pos as usize == t.second_tmp_start_pos as usize + one
        && (!half
            || (t.mean_tmp_tensor_pos as usize + rows <= t.variance_tmp_tensor_pos as usize
                && t.variance_tmp_tensor_pos as usize + rows <= t.first_tmp_start_pos as usize));
    ensure(consistent, api, || {
        format!(
            "the tiling is inconsistent ({t:?}): it needs oneTmpSize a multiple of hLength, bshCurLength = \
             bsCurLength * hLength <= oneTmpSize = inputRoundSize, loopRound * inputRoundSize + inputTailSize = \
             inputXSize = bLength * sLength * hLength, the views one after another and, for half, the means and \
             variances before them; get it from {host}"
        )
    });
    ensure(h * T::SIZE % 32 == 0, api, || {
        format!(
            "tiling.hLength = {h} {} elements is not 32-byte aligned: H must be a multiple of {}",
            T::DTYPE,
            32 / T::SIZE
        )
    });
    let used = used_floats(t, reuse_float);
    ensure(used <= t.tmp_buf_size as usize, api, || {
        format!(
            "the tiling's last view ends at float {used}, beyond its tmpBufSize = {} (thirdTmpStartPos + oneTmpSize \
             <= tmpBufSize)",
            t.tmp_buf_size
        )
    });
    ensure(tmp.get_size() / 4 >= t.tmp_buf_size as usize, api, || {
        format!(
            "sharedTmpBuffer has {} bytes, fewer than the tiling's tmpBufSize = {} floats ({} bytes)",
            tmp.get_size(),
            t.tmp_buf_size,
            4 * t.tmp_buf_size as u64
        )
    });
    for (name, n) in [("inputX", x.get_size()), ("output", output.get_size())] {
        ensure(n >= total, api, || {
            format!("{name} has {n} {} elements, fewer than B * S * H = {total}", T::DTYPE)
        });
    }
    for (name, n) in [("outputMean", mean.get_size()), ("outputVariance", variance.get_size())] {
        ensure(n >= rows, api, || format!("{name} has {n} {} elements, fewer than B * S = {rows}", T::DTYPE));
    }
    for (name, n) in [("gamma", gamma.get_size()), ("beta", beta.get_size())] {
        ensure(n >= h, api, || format!("{name} has {n} {} elements, fewer than H = {h}", T::DTYPE));
    }
    let (o, m, v, xs) = (
        span("output", output, total),
        span("outputMean", mean, rows),
        span("outputVariance", variance, rows),
        span("inputX", x, total),
    );
    let (g, b) = (span("gamma", gamma, h), span("beta", beta, h));
    let tw: Span = ("sharedTmpBuffer", tmp.get_phy_addr(), tmp.get_phy_addr() + 4 * used);
    let mut pairs =
        vec![(o, m), (o, v), (m, v), (m, xs), (v, xs), (o, g), (o, b), (m, g), (m, b), (v, g), (v, b)];
    pairs.extend([o, m, v, xs, g, b].map(|s| (tw, s)));
    check_apart(api, &pairs);
}

/// LayerNorm of `input_x` (shape `[B, S, H]` in `tiling`) into `output`, with each row's mean
/// and variance into `output_mean` and `output_variance` (`B * S` elements), the scaling
/// `gamma` and shift `beta` (`H` elements), `shared_tmp_buffer` as scratch (AscendC
/// `LayerNorm<T, isReuseSource>(output, outputMean, outputVariance, inputX, gamma, beta,
/// sharedTmpBuffer, epsilon, tiling)`): per row `mean = Σ x / originH`, `variance = Σ (x -
/// mean)² / originH`, `output = (x - mean) / sqrt(variance + epsilon) * gamma + beta`.
///
/// As the vendor's implementation (Ascend910B, Ascend310P), in counter mode, per round of
/// `bsCurLength` rows and then the tail: `half` widened to `float` in view A; `Muls` by
/// `1 / originH`; the row sums (each row's 64-element chunks added in order into its first,
/// then `WholeReduceSum`) into the means and view B; the mean broadcast over each row
/// (`SetCmpMask` and `Select` mode 1 per row); `Sub`, `Mul`, `Muls`; the row sums into the
/// variances and view C; the variance broadcast; `Adds` of `epsilon`, `Sqrt`, `Div` into a
/// block of ones; `Mul` by `x - mean`; per row `Mul` by `gamma` and `Add` of `beta`
/// (`half`'s widened into the buffer); for `half` narrowed into `output` — each step
/// separated by `PipeBarrier<PIPE_V>`. For `half` the `float` means and variances stay in the
/// buffer until the end, then are narrowed into the outputs. Rows are summed over all `H`
/// stored elements (padding included, so it must be 0) and divided by `originH`. It leaves
/// normal mode and a reset mask.
///
/// Scratch layout (`float`s): for `half` the means and variances at `meanTmpTensorPos` and
/// `varianceTmpTensorPos`; views A, B, C of `oneTmpSize` at `firstTmpStartPos`,
/// `secondTmpStartPos`, `thirdTmpStartPos`, or with `IS_REUSE_SOURCE` for `float` view A is
/// `input_x` itself (overwritten) and B, C start at the first two positions. The broadcasts
/// zero the first `H / 2` `float`s of views B and C.
///
/// As the vendor's (its `tiling` is `LayerNormTiling&`), a tail round sets
/// `tiling.bsh_cur_length` and `tiling.bs_cur_length` to the tail's; a later call with the
/// same tiling computes its full rounds over that many rows only.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 6 * 64);
/// let (_, min) = get_layer_norm_max_min_tmp_size(&[1, 2, 8, 8], 4, false);
/// pipe.init_tbuf(&mut tmp, min);
/// let mut tiling = get_layer_norm_nd_tiling_info(&[1, 2, 8, 8], min, 4, false);
/// let t = |i: usize, n: usize| q.get_with_offset::<f32>(n, i * 64);
/// let (x, g, b, y, mean, var) = (t(0, 16), t(1, 8), t(2, 8), t(3, 16), t(4, 2), t(5, 2));
/// x.copy_from_slice(&[1.0, 3.0, 1.0, 3.0, 1.0, 3.0, 1.0, 3.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]);
/// g.copy_from_slice(&[2.0; 8]);
/// b.copy_from_slice(&[0.5; 8]);
/// layer_norm::<_, false>(&y, &mean, &var, &x, &g, &b, &tmp.get::<u8>(), 0.0, &mut tiling);
/// assert_eq!(mean.to_vec(), [2.0, 2.0]);
/// assert_eq!(var.to_vec(), [1.0, 0.0]);
/// assert_eq!(y.to_vec()[..2], [-1.5, 2.5]);
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); a tensor is not in the
/// Unified Buffer; the tiling is unset (`oneTmpSize` 0) or inconsistent; `hLength` elements
/// are not 32-byte aligned; `shared_tmp_buffer` holds fewer than `tmpBufSize` `float`s;
/// `input_x` or `output` holds fewer than B * S * H elements, a mean or variance output fewer
/// than B * S, `gamma` or `beta` fewer than H; the outputs overlap each other, `gamma`,
/// `beta` or (mean and variance) `input_x`, or the used scratch overlaps any tensor; or any
/// instruction's own check fails.
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn layer_norm<T: LayerNormElement, const IS_REUSE_SOURCE: bool>(
    output: &LocalTensor<T>,
    output_mean: &LocalTensor<T>,
    output_variance: &LocalTensor<T>,
    input_x: &LocalTensor<T>,
    gamma: &LocalTensor<T>,
    beta: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    epsilon: T,
    tiling: &mut LayerNormTiling,
) {
    check_layer_norm::<T, IS_REUSE_SOURCE>(
        LAYER_NORM,
        "GetLayerNormNDTilingInfo",
        output,
        output_mean,
        output_variance,
        input_x,
        gamma,
        beta,
        shared_tmp_buffer,
        tiling,
    );
    let half = T::DTYPE == DType::F16;
    let stack = shared_tmp_buffer.reinterpret_cast::<f32>();
    let t = *tiling;
    let at = |p: u32| stack.view(p as usize);
    let v = if half {
        Views {
            a: at(t.first_tmp_start_pos),
            b: at(t.second_tmp_start_pos),
            c: at(t.third_tmp_start_pos),
            mean: at(t.mean_tmp_tensor_pos),
            variance: at(t.variance_tmp_tensor_pos),
        }
    } else if IS_REUSE_SOURCE {
        Views {
            a: input_x.reinterpret_cast::<f32>(),
            b: at(t.first_tmp_start_pos),
            c: at(t.second_tmp_start_pos),
            mean: output_mean.reinterpret_cast::<f32>(),
            variance: output_variance.reinterpret_cast::<f32>(),
        }
    } else {
        Views {
            a: at(t.first_tmp_start_pos),
            b: at(t.second_tmp_start_pos),
            c: at(t.third_tmp_start_pos),
            mean: output_mean.reinterpret_cast::<f32>(),
            variance: output_variance.reinterpret_cast::<f32>(),
        }
    };
    let (h, back) = (t.h_length as usize, t.last_dim_value_back);
    let eps = epsilon.to_f64() as f32;
    set_mask_count();
    let round = |off: usize, mv: usize, bs: usize, bsh: usize| {
        exe(
            &input_x.view(off),
            gamma,
            beta,
            &output.view(off),
            &v.mean.view(mv),
            &v.variance.view(mv),
            eps,
            (bs, bsh, h, back),
            &v,
        );
    };
    let (mut off, mut mv) = (0, 0);
    for _ in 0..t.loop_round {
        round(off, mv, t.bs_cur_length as usize, t.bsh_cur_length as usize);
        off += t.input_round_size as usize;
        mv += t.mean_var_round_size as usize;
    }
    if t.input_tail_size > 0 {
        tiling.bsh_cur_length = t.input_tail_size;
        tiling.bs_cur_length = t.mean_var_tail_size;
        round(
            t.input_tail_pos as usize,
            t.mean_var_tail_pos as usize,
            t.mean_var_tail_size as usize,
            t.input_tail_size as usize,
        );
    }
    if half {
        count_mask::<f32>(t.mean_var_size as usize);
        narrow(&output_mean.reinterpret_cast::<f16>(), &v.mean);
        narrow(&output_variance.reinterpret_cast::<f16>(), &v.variance);
    }
    set_mask_norm();
    reset_mask();
}

/// [`layer_norm`] with the stack buffer as scratch (AscendC `LayerNorm<T,
/// isReuseSource>(output, outputMean, outputVariance, inputX, gamma, beta, epsilon,
/// tiling)`): the Unified Buffer after the core's `TPipe` buffers (see
/// [`pop_stack_buffer`](super::pop_stack_buffer)); the tiling's `tmpBufSize` must fit in it.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 6 * 64);
/// let stack = pop_stack_buffer::<u8>().get_size();
/// let mut tiling = get_layer_norm_nd_tiling_info(&[1, 1, 16, 16], stack, 2, false);
/// let t = |i: usize, n: usize| q.get_with_offset::<f16>(n, i * 64);
/// let (x, g, b, y, mean, var) = (t(0, 16), t(1, 16), t(2, 16), t(3, 16), t(4, 16), t(5, 16));
/// x.copy_from_slice(&[f16::from_f32(4.0); 16]);
/// g.copy_from_slice(&[f16::from_f32(1.0); 16]);
/// b.copy_from_slice(&[f16::from_f32(3.0); 16]);
/// layer_norm_stack::<_, false>(&y, &mean, &var, &x, &g, &b, f16::from_f32(1.0), &mut tiling);
/// assert_eq!((mean.get_value(0), var.get_value(0)), (f16::from_f32(4.0), f16::ZERO));
/// assert_eq!(y.get_value(15), f16::from_f32(3.0));
/// ```
///
/// # Panics
/// As [`layer_norm`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn layer_norm_stack<T: LayerNormElement, const IS_REUSE_SOURCE: bool>(
    output: &LocalTensor<T>,
    output_mean: &LocalTensor<T>,
    output_variance: &LocalTensor<T>,
    input_x: &LocalTensor<T>,
    gamma: &LocalTensor<T>,
    beta: &LocalTensor<T>,
    epsilon: T,
    tiling: &mut LayerNormTiling,
) {
    let stack = stack_tensor(LAYER_NORM);
    layer_norm::<T, IS_REUSE_SOURCE>(
        output,
        output_mean,
        output_variance,
        input_x,
        gamma,
        beta,
        &stack,
        epsilon,
        tiling,
    );
}

// ---------------------------------------------------------------------------------------
// WelfordFinalize
// ---------------------------------------------------------------------------------------

const WELFORD_FINALIZE: &str = "WelfordFinalize";
/// `float`s of one repeat (`B32_LEN`): the partial sums kept before they are folded.
const B32_LEN: usize = 64;
/// The outputs' `float`s (`OUTPUT_SIZE`).
const OUTPUT_SIZE: usize = 8;

/// `WelfordFinalize`'s parameters (AscendC `WelfordFinalizePara`, the vendor's fields in
/// snake_case): the `abLength` partial means and variances of a Welford reduction and how many
/// elements each summarises. `#[repr(C)]` and [`Pod`], so it travels in tiling data.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct WelfordFinalizePara {
    /// Elements each partial summarises without a tail (`rnLength`).
    pub rn_length: u32,
    /// Partials, a multiple of 8 (`abLength`).
    pub ab_length: u32,
    /// Elements each of the first `headCountLength` partials summarises (`headCount`).
    pub head_count: u32,
    /// Partials with `headCount` elements (`headCountLength`).
    pub head_count_length: u32,
    /// Elements each of the other partials summarises (`tailCount`; 0: no tail).
    pub tail_count: u32,
    /// Partials with `tailCount` elements (`tailCountLength`; 0: no tail).
    pub tail_count_length: u32,
    /// `1 / abLength` (`abRec`), the weight of each partial mean without a tail.
    pub ab_rec: f32,
    /// `1 / total elements` (`rRec`).
    pub r_rec: f32,
}

/// The temporary buffer's `(max, min)` bytes for [`welford_finalize`] on `abLength` partials
/// (AscendC `GetWelfordFinalizeMaxMinTmpSize(srcShape, typeSize, isReuseSource, maxValue,
/// minValue)`, `srcShape = [abLength]`): the minimum `4 * 64 * 4`, the maximum `4 * (2 * 64 +
/// 2 * abLength)` when `abLength > 64` (one round), else the minimum. `type_size` and
/// `is_reuse_source` are unused, as in the vendor's.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_welford_finalize_max_min_tmp_size(&[64], 4, false), (1024, 1024));
/// assert_eq!(get_welford_finalize_max_min_tmp_size(&[200], 4, false), (2112, 1024));
/// ```
///
/// # Panics
/// Panics, where the vendor's host helper fails, if the shape does not have one dimension or
/// `abLength` is 0 or not a multiple of 8 (32 bytes of `float`).
#[track_caller]
pub fn get_welford_finalize_max_min_tmp_size(
    src_shape: &[usize],
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    const API: &str = "GetWelfordFinalizeMaxMinTmpSize";
    let _ = (type_size, is_reuse_source);
    ensure(src_shape.len() == 1, API, || {
        format!("srcShape = {src_shape:?} has {} dimensions; it must be [abLength]", src_shape.len())
    });
    let ab = src_shape[0];
    ensure(ab > 0 && ab % FLOAT_PER_BLOCK == 0, API, || {
        format!("abLength = {ab} must be a non-zero multiple of {FLOAT_PER_BLOCK} (32 bytes of float)")
    });
    let min = B32_LEN * 4 * 4;
    let max = if ab <= B32_LEN { min } else { (B32_LEN * 2 + ab * 2) * 4 };
    (max, min)
}

/// The vendor's `WelfordFinalizeTmpTensors` and `WelfordFinalizeTilingData`.
struct WelfordViews {
    out_mean: LocalTensor<f32>,
    out_variance: LocalTensor<f32>,
    mean: LocalTensor<f32>,
    variance: LocalTensor<f32>,
    compute_length: usize,
    round: usize,
    tail: usize,
}

/// `GetWelfordFinalizeTensorInfo`: from the buffer's `float`s `S`, rounds of `computeLength =
/// (S - 128) / 128 * 64` partials; the 64 partial means, the 64 partial variances, then two
/// views of `computeLength`.
fn welford_views(stack: &LocalTensor<f32>, ab: usize) -> WelfordViews {
    let cl = (stack.get_size() - 2 * B32_LEN) / (2 * B32_LEN) * B32_LEN;
    WelfordViews {
        out_mean: stack.clone(),
        out_variance: stack.view(B32_LEN),
        mean: stack.view(2 * B32_LEN),
        variance: stack.view(2 * B32_LEN + cl),
        compute_length: cl,
        round: ab / cl,
        tail: ab % cl,
    }
}

/// The partials of a round that summarise `headCount` elements, `headCountLength - offset`
/// clamped to `[0, cl]` (the vendor's `headComputeLength`).
fn head_compute_length(para: &WelfordFinalizePara, offset: usize, cl: usize) -> usize {
    (i64::from(para.head_count_length as i32) - offset as i64).clamp(0, cl as i64) as usize
}

/// `(float)headCount / (float)tailCount` under a mask of the round's head partials.
#[track_caller]
fn head_scale(t: &LocalTensor<f32>, para: &WelfordFinalizePara, offset: usize, cl: usize) {
    let head = head_compute_length(para, offset, cl);
    if head > 0 {
        count_mask::<f32>(head);
        steps::muls(t, t, para.head_count as i32 as f32 / para.tail_count as i32 as f32);
    }
    count_mask::<f32>(cl);
}

/// Whether the partials all summarise `rnLength` elements (no tail).
fn no_tail(para: &WelfordFinalizePara) -> bool {
    para.tail_count_length == 0 || para.tail_count == 0
}

/// One round of the mean (`WelfordFinalizeExeMean`): each partial mean weighted (`abRec`; with
/// a tail `tailCount * rRec`, the head's scaled by `headCount / tailCount`; with counts
/// `count * rRec`), summed into `out`.
#[track_caller]
fn welford_mean(
    input_mean: &LocalTensor<f32>,
    out: &LocalTensor<f32>,
    counts: Option<&LocalTensor<i32>>,
    v: &WelfordViews,
    para: &WelfordFinalizePara,
    cl: usize,
    offset: usize,
) {
    set_mask_count();
    count_mask::<f32>(cl);
    if let Some(c) = counts {
        cast_masked::<f32, i32, false>(&v.mean, c, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &SAME);
        pipe_barrier::<PIPE_V>();
        steps::mul(&v.mean, input_mean, &v.mean);
        steps::muls(&v.mean, &v.mean, para.r_rec);
    } else if no_tail(para) {
        steps::muls(&v.mean, input_mean, para.ab_rec);
    } else {
        steps::muls(&v.variance, input_mean, para.tail_count as i32 as f32);
        steps::muls(&v.mean, &v.variance, para.r_rec);
        head_scale(&v.mean, para, offset, cl);
    }
    reduce_sum(&v.variance, out, &v.mean, 1, cl);
    pipe_barrier::<PIPE_V>();
}

/// One round of the variance (`WelfordFinalizeExeVariance`): the final mean (in
/// `v.mean[0]`) broadcast; each partial's `variance + count * (mean_i - mean)²` (`rnLength`,
/// or `tailCount` with the head scaled, or the counts), `* rRec`, summed into `out`.
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn welford_variance(
    input_mean: &LocalTensor<f32>,
    input_variance: &LocalTensor<f32>,
    out: &LocalTensor<f32>,
    counts: Option<&LocalTensor<i32>>,
    v: &WelfordViews,
    para: &WelfordFinalizePara,
    cl: usize,
    offset: usize,
) {
    crate::vector::scalar::adds(&v.variance, &v.mean, 0.0, 1);
    pipe_barrier::<PIPE_V>();
    set_mask_count();
    broadcast_last_dim(&v.mean, &v.variance, 1, cl);
    set_mask_count();
    count_mask::<f32>(cl);
    steps::sub(&v.variance, input_mean, &v.mean);
    steps::mul(&v.mean, &v.variance, &v.variance);
    if let Some(c) = counts {
        cast_masked::<f32, i32, false>(&v.variance, c, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &SAME);
        pipe_barrier::<PIPE_V>();
        steps::mul(&v.mean, &v.mean, &v.variance);
        steps::add(&v.variance, &v.mean, input_variance);
        steps::muls(&v.variance, &v.variance, para.r_rec);
    } else {
        let weight = if no_tail(para) { para.rn_length } else { para.tail_count } as i32 as f32;
        steps::muls(&v.variance, &v.mean, weight);
        if !no_tail(para) {
            head_scale(&v.variance, para, offset, cl);
        }
        steps::add(&v.mean, input_variance, &v.variance);
        steps::muls(&v.variance, &v.mean, para.r_rec);
    }
    reduce_sum(&v.mean, out, &v.variance, 1, cl);
    pipe_barrier::<PIPE_V>();
}

/// `WholeReduceSum` of the first `n` partials in place into the first (normal mode).
#[track_caller]
fn fold_partials(t: &LocalTensor<f32>, n: usize) {
    set_mask_norm();
    whole_reduce_sum::<f32, true>(t, t, n as u64, 1, 1, 1, (n >> 3) as u16);
    pipe_barrier::<PIPE_V>();
}

/// `WelfordFinalizeComputeImpl`: the rounds of the mean, each sum into the next of 64
/// partial slots (folded into the first when full), the slots folded; then the same for the
/// variance, each round starting from the final mean; then the outputs.
#[track_caller]
fn welford_compute(
    output_mean: &LocalTensor<f32>,
    output_variance: &LocalTensor<f32>,
    input_mean: &LocalTensor<f32>,
    input_variance: &LocalTensor<f32>,
    counts: Option<&LocalTensor<i32>>,
    v: &WelfordViews,
    para: &WelfordFinalizePara,
) {
    let cl = v.compute_length;
    let rounds = |variance: bool| {
        let (slots, mut offset, mut out) = (if variance { &v.out_variance } else { &v.out_mean }, 0, 0);
        let one = |len: usize, offset: usize, out: usize| {
            let c = counts.map(|c| c.view(offset));
            if variance {
                crate::vector::scalar::adds(&v.mean, &v.out_mean, 0.0, 1);
                pipe_barrier::<PIPE_V>();
                let (m, var) = (input_mean.view(offset), input_variance.view(offset));
                welford_variance(&m, &var, &slots.view(out), c.as_ref(), v, para, len, offset);
            } else {
                welford_mean(&input_mean.view(offset), &slots.view(out), c.as_ref(), v, para, len, offset);
            }
        };
        for _ in 0..v.round {
            one(cl, offset, out);
            offset += cl;
            out += 1;
            if out == B32_LEN {
                fold_partials(slots, B32_LEN);
                out = 1;
            }
        }
        if v.tail > 0 {
            one(v.tail, offset, out);
            out += 1;
        }
        fold_partials(slots, out);
    };
    rounds(false);
    rounds(true);
    // welfordFinalizeOutputPre: the sums into element 0, elements 1..8 zeroed.
    crate::vector::scalar::adds(output_mean, &v.out_mean, 0.0, 1);
    crate::vector::scalar::adds(output_variance, &v.out_variance, 0.0, 1);
    pipe_barrier::<PIPE_V>();
    set_mask_norm();
    crate::vector::mask::set_vector_mask::<f32>(crate::vector::mask::Mask::Bits([254, 0]));
    for out in [output_mean, output_variance] {
        duplicate_masked::<f32, false>(out, 0.0, MASK_PLACEHOLDER, 1, 1, 8);
        pipe_barrier::<PIPE_V>();
    }
}

/// `WelfordFinalize`'s checks (the vendor's `welfordFinalizeCommonCheck` and the buffer's
/// minimum), positions and overlaps.
#[track_caller]
fn check_welford(
    output_mean: &LocalTensor<f32>,
    output_variance: &LocalTensor<f32>,
    input_mean: &LocalTensor<f32>,
    input_variance: &LocalTensor<f32>,
    counts: Option<&LocalTensor<i32>>,
    tmp: &LocalTensor<u8>,
    para: &WelfordFinalizePara,
) {
    const API: &str = WELFORD_FINALIZE;
    check_chip(API, &V220_V200);
    let mut named = vec![
        ("outputMean", output_mean.get_position()),
        ("outputVariance", output_variance.get_position()),
        ("inputMean", input_mean.get_position()),
        ("inputVariance", input_variance.get_position()),
        ("sharedTmpBuffer", tmp.get_position()),
    ];
    if let Some(c) = counts {
        named.push(("counts", c.get_position()));
    }
    for (name, pos) in named {
        ensure(pos.is_ub(), API, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
    }
    let ab = para.ab_length as usize;
    ensure(ab > 0 && ab % FLOAT_PER_BLOCK == 0, API, || {
        format!("para.abLength = {ab} must be a non-zero multiple of {FLOAT_PER_BLOCK} (32 bytes of float)")
    });
    let (hl, tl) = (para.head_count_length as usize, para.tail_count_length as usize);
    ensure(hl + tl == ab, API, || {
        format!(
            "para.headCountLength = {hl} and para.tailCountLength = {tl} must add up to para.abLength = {ab}"
        )
    });
    ensure(para.tail_count != 0 || tl == 0, API, || {
        format!("para.tailCount = 0 with para.tailCountLength = {tl}; the vendor's page forbids a non-zero tailCountLength then")
    });
    let mut sizes = vec![("inputMean", input_mean.get_size()), ("inputVariance", input_variance.get_size())];
    if let Some(c) = counts {
        sizes.push(("counts", c.get_size()));
    }
    for (name, n) in sizes {
        ensure(n >= ab, API, || format!("{name} has {n} elements, fewer than para.abLength = {ab}"));
    }
    for (name, n) in [("outputMean", output_mean.get_size()), ("outputVariance", output_variance.get_size())]
    {
        ensure(n >= OUTPUT_SIZE, API, || {
            format!("{name} has {n} float elements; it must hold {OUTPUT_SIZE}")
        });
    }
    let min = 4 * B32_LEN * 4;
    ensure(tmp.get_size() >= min, API, || {
        format!("sharedTmpBuffer has {} bytes; it must hold at least {min}", tmp.get_size())
    });
    let (om, ov) =
        (span("outputMean", output_mean, OUTPUT_SIZE), span("outputVariance", output_variance, OUTPUT_SIZE));
    let (im, iv) = (span("inputMean", input_mean, ab), span("inputVariance", input_variance, ab));
    let tw: Span = ("sharedTmpBuffer", tmp.get_phy_addr(), tmp.get_phy_addr() + tmp.get_size() / 4 * 4);
    let mut pairs =
        vec![(om, ov), (om, im), (om, iv), (ov, im), (ov, iv), (tw, om), (tw, ov), (tw, im), (tw, iv)];
    if let Some(c) = counts {
        let cs = span("counts", c, ab);
        pairs.extend([(om, cs), (ov, cs), (tw, cs)]);
    }
    check_apart(API, &pairs);
}

/// The mean and variance of the data a Welford reduction summarised as `abLength` partial
/// means and variances (`M2` sums) (AscendC `WelfordFinalize<isReuseSource>(outputMean,
/// outputVariance, inputMean, inputVariance, sharedTmpBuffer, para)`): `mean = Σ w_i *
/// mean_i` and `variance = Σ (M2_i + n_i * (mean_i - mean)²) * rRec`, into element 0 of
/// `output_mean` and `output_variance` (elements 1..8 zeroed). Without a tail (`tailCount` or
/// `tailCountLength` 0) each partial summarises `rnLength` elements and weighs `abRec`;
/// otherwise the first `headCountLength` summarise `headCount`, the others `tailCount`, and
/// weigh `count * rRec`.
///
/// As the vendor's implementation (Ascend910B, Ascend310P): rounds of `computeLength = (S -
/// 128) / 128 * 64` partials (`S` the buffer's `float`s) in counter mode, each weighted by
/// `Muls` and summed as `LayerNorm`'s rows are (64-element chunks added in order, then
/// `WholeReduceSum`) into the next of 64 slots at the buffer's start, which are folded by
/// `WholeReduceSum` into the first when full and at the end; then the variance the same way,
/// each round broadcasting the mean (`SetCmpMask`, `Select` mode 1) and computing `Sub`,
/// `Mul`, `Muls`, `Add`, `Muls` by `rRec`; each step followed by `PipeBarrier<PIPE_V>`. The
/// sums go to element 0 with `Adds(…, 0, 1)` and elements 1..8 are zeroed by `Duplicate` under
/// the mask 254. It leaves normal mode and a reset mask.
///
/// The buffer's layout (`float`s): 64 mean slots, 64 variance slots, two views of
/// `computeLength`.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 4 * 32);
/// let (_, min) = get_welford_finalize_max_min_tmp_size(&[8], 4, false);
/// pipe.init_tbuf(&mut tmp, min);
/// let t = |i: usize| q.get_with_offset::<f32>(8, i * 32);
/// let (mean, var, in_mean, in_var) = (t(0), t(1), t(2), t(3));
/// // 8 partials of 4 elements each: means 0..8, M2 sums 1.
/// in_mean.copy_from_slice(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
/// in_var.copy_from_slice(&[1.0; 8]);
/// let para = WelfordFinalizePara {
///     rn_length: 4, ab_length: 8, head_count: 4, head_count_length: 8, tail_count: 0,
///     tail_count_length: 0, ab_rec: 1.0 / 8.0, r_rec: 1.0 / 32.0,
/// };
/// welford_finalize::<false>(&mean, &var, &in_mean, &in_var, &tmp.get::<u8>(), &para);
/// assert_eq!(mean.to_vec(), [3.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
/// assert_eq!(var.get_value(0), (8.0 + 4.0 * 42.0) / 32.0);
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); a tensor is not in the
/// Unified Buffer; `abLength` is 0 or not a multiple of 8; `headCountLength +
/// tailCountLength` is not `abLength`; `tailCount` is 0 with a non-zero `tailCountLength` (the
/// vendor's page forbids it); an input holds fewer than `abLength` elements or an output fewer
/// than 8; the buffer holds fewer than 1024 bytes; the outputs overlap each other or an input,
/// or the buffer overlaps any tensor; or any instruction's own check fails.
#[track_caller]
pub fn welford_finalize<const IS_REUSE_SOURCE: bool>(
    output_mean: &LocalTensor<f32>,
    output_variance: &LocalTensor<f32>,
    input_mean: &LocalTensor<f32>,
    input_variance: &LocalTensor<f32>,
    shared_tmp_buffer: &LocalTensor<u8>,
    para: &WelfordFinalizePara,
) {
    welford_finalize_impl(
        output_mean,
        output_variance,
        input_mean,
        input_variance,
        None,
        shared_tmp_buffer,
        para,
    );
}

/// [`welford_finalize`] with each partial's element count in `counts` (AscendC
/// `WelfordFinalize<isReuseSource>(outputMean, outputVariance, inputMean, inputVariance,
/// counts, sharedTmpBuffer, para)`): `mean = Σ count_i * mean_i * rRec` and `variance = Σ
/// (M2_i + count_i * (mean_i - mean)²) * rRec`, the counts converted by `Cast<float,
/// int32_t>`.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 5 * 32);
/// pipe.init_tbuf(&mut tmp, 1024);
/// let t = |i: usize| q.get_with_offset::<f32>(8, i * 32);
/// let (mean, var, in_mean, in_var) = (t(0), t(1), t(2), t(3));
/// let counts = q.get_with_offset::<i32>(8, 128);
/// in_mean.copy_from_slice(&[2.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
/// in_var.copy_from_slice(&[0.0; 8]);
/// counts.copy_from_slice(&[1, 3, 0, 0, 0, 0, 0, 0]);
/// let para = WelfordFinalizePara { ab_length: 8, head_count_length: 8, r_rec: 0.25, ..Default::default() };
/// welford_finalize_counts::<false>(&mean, &var, &in_mean, &in_var, &counts, &tmp.get::<u8>(), &para);
/// assert_eq!((mean.get_value(0), var.get_value(0)), (3.5, 0.75));
/// ```
///
/// # Panics
/// As [`welford_finalize`], and if `counts` is not in the Unified Buffer, holds fewer than
/// `abLength` elements or overlaps an output or the buffer.
#[track_caller]
pub fn welford_finalize_counts<const IS_REUSE_SOURCE: bool>(
    output_mean: &LocalTensor<f32>,
    output_variance: &LocalTensor<f32>,
    input_mean: &LocalTensor<f32>,
    input_variance: &LocalTensor<f32>,
    counts: &LocalTensor<i32>,
    shared_tmp_buffer: &LocalTensor<u8>,
    para: &WelfordFinalizePara,
) {
    welford_finalize_impl(
        output_mean,
        output_variance,
        input_mean,
        input_variance,
        Some(counts),
        shared_tmp_buffer,
        para,
    );
}

/// `WelfordFinalizeImpl`, with or without counts.
#[track_caller]
fn welford_finalize_impl(
    output_mean: &LocalTensor<f32>,
    output_variance: &LocalTensor<f32>,
    input_mean: &LocalTensor<f32>,
    input_variance: &LocalTensor<f32>,
    counts: Option<&LocalTensor<i32>>,
    tmp: &LocalTensor<u8>,
    para: &WelfordFinalizePara,
) {
    check_welford(output_mean, output_variance, input_mean, input_variance, counts, tmp, para);
    let stack = tmp.reinterpret_cast::<f32>();
    let v = welford_views(&stack, para.ab_length as usize);
    set_mask_count();
    welford_compute(output_mean, output_variance, input_mean, input_variance, counts, &v, para);
    set_mask_norm();
    reset_mask();
}

/// [`welford_finalize`] with the stack buffer as scratch (AscendC
/// `WelfordFinalize<isReuseSource>(outputMean, outputVariance, inputMean, inputVariance,
/// para)`): the Unified Buffer after the core's `TPipe` buffers (see
/// [`pop_stack_buffer`](super::pop_stack_buffer)), all of it setting `computeLength`.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 4 * 32);
/// let t = |i: usize| q.get_with_offset::<f32>(8, i * 32);
/// let (mean, var, in_mean, in_var) = (t(0), t(1), t(2), t(3));
/// in_mean.copy_from_slice(&[1.0; 8]);
/// in_var.copy_from_slice(&[2.0; 8]);
/// let para = WelfordFinalizePara { rn_length: 2, ab_length: 8, head_count_length: 8, ab_rec: 0.125, r_rec: 1.0 / 16.0, ..Default::default() };
/// welford_finalize_stack::<false>(&mean, &var, &in_mean, &in_var, &para);
/// assert_eq!((mean.get_value(0), var.get_value(0)), (1.0, 1.0));
/// ```
///
/// # Panics
/// As [`welford_finalize`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn welford_finalize_stack<const IS_REUSE_SOURCE: bool>(
    output_mean: &LocalTensor<f32>,
    output_variance: &LocalTensor<f32>,
    input_mean: &LocalTensor<f32>,
    input_variance: &LocalTensor<f32>,
    para: &WelfordFinalizePara,
) {
    let stack = stack_tensor(WELFORD_FINALIZE);
    welford_finalize::<IS_REUSE_SOURCE>(
        output_mean,
        output_variance,
        input_mean,
        input_variance,
        &stack,
        para,
    );
}

/// [`welford_finalize_counts`] with the stack buffer as scratch (AscendC
/// `WelfordFinalize<isReuseSource>(outputMean, outputVariance, inputMean, inputVariance,
/// counts, para)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 5 * 32);
/// let t = |i: usize| q.get_with_offset::<f32>(8, i * 32);
/// let (mean, var, in_mean, in_var) = (t(0), t(1), t(2), t(3));
/// let counts = q.get_with_offset::<i32>(8, 128);
/// in_mean.copy_from_slice(&[3.0; 8]);
/// in_var.copy_from_slice(&[0.0; 8]);
/// counts.copy_from_slice(&[2; 8]);
/// let para = WelfordFinalizePara { ab_length: 8, head_count_length: 8, r_rec: 1.0 / 16.0, ..Default::default() };
/// welford_finalize_counts_stack::<false>(&mean, &var, &in_mean, &in_var, &counts, &para);
/// assert_eq!((mean.get_value(0), var.get_value(0)), (3.0, 0.0));
/// ```
///
/// # Panics
/// As [`welford_finalize_counts`], and if the core has no `TPipe` or its buffers leave no
/// room.
#[track_caller]
pub fn welford_finalize_counts_stack<const IS_REUSE_SOURCE: bool>(
    output_mean: &LocalTensor<f32>,
    output_variance: &LocalTensor<f32>,
    input_mean: &LocalTensor<f32>,
    input_variance: &LocalTensor<f32>,
    counts: &LocalTensor<i32>,
    para: &WelfordFinalizePara,
) {
    let stack = stack_tensor(WELFORD_FINALIZE);
    welford_finalize_counts::<IS_REUSE_SOURCE>(
        output_mean,
        output_variance,
        input_mean,
        input_variance,
        counts,
        &stack,
        para,
    );
}

// ---------------------------------------------------------------------------------------
// LayerNorm with rstd (LayerNormPara, LayerNormSeparateTiling)
// ---------------------------------------------------------------------------------------

/// The shape of [`layer_norm_rstd`]'s source (AscendC `LayerNormPara`): `[A, R]` rows, each
/// stored in `rLengthWithPadding` elements (32-byte aligned).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct LayerNormPara {
    /// Rows (`aLength`).
    pub a_length: u32,
    /// Elements of a row (`rLength`).
    pub r_length: u32,
    /// The row's stored length, `rLength` rounded up to 32 bytes (`rLengthWithPadding`).
    pub r_length_with_padding: u32,
}

/// [`layer_norm_rstd`]'s tiling (AscendC `LayerNormSeparateTiling`, the vendor's fields in
/// snake_case), from [`get_layer_norm_rstd_nd_tiling_info`]. Positions and sizes count
/// `float`s of the temporary buffer; `halfAddRepeatTimes`, `rHeadLength`, `k2Rec`, `k2RRec`
/// and `thirdTmpStartPos` are Ascend 950's and stay 0 here.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct LayerNormSeparateTiling {
    /// Rows (`aLength`).
    pub a_length: u32,
    /// Elements of a row (`rLength`).
    pub r_length: u32,
    /// Ascend 950 only (`halfAddRepeatTimes`).
    pub half_add_repeat_times: u32,
    /// Ascend 950 only (`rHeadLength`).
    pub r_head_length: u32,
    /// Ascend 950 only (`k2Rec`).
    pub k2_rec: f32,
    /// Ascend 950 only (`k2RRec`).
    pub k2_r_rec: f32,
    /// `A * rLengthWithPadding` (`inputXSize`).
    pub input_x_size: u32,
    /// `A` (`meanVarSize`).
    pub mean_var_size: u32,
    /// 2 (`numberOfTmpBuf`).
    pub number_of_tmp_buf: u32,
    /// Start of the variances, 0 (`varianceTmpTensorPos`).
    pub variance_tmp_tensor_pos: u32,
    /// `A` rounded up to 8 (`varianceTmpTensorSize`).
    pub variance_tmp_tensor_size: u32,
    /// The buffer's `float`s (`tmpBufSize`).
    pub tmp_buf_size: u32,
    /// `float`s of one view: the rows of one round times `rLengthWithPadding` (`oneTmpSize`).
    pub one_tmp_size: u32,
    /// Start of the first view (`firstTmpStartPos`).
    pub first_tmp_start_pos: u32,
    /// Start of the second view (`secondTmpStartPos`).
    pub second_tmp_start_pos: u32,
    /// Ascend 950 only (`thirdTmpStartPos`).
    pub third_tmp_start_pos: u32,
    /// Full rounds (`loopRound`).
    pub loop_round: u32,
    /// Elements of a full round (`inputRoundSize`).
    pub input_round_size: u32,
    /// Elements of the tail round (`inputTailSize`; 0: no tail).
    pub input_tail_size: u32,
    /// First element of the tail round (`inputTailPos`).
    pub input_tail_pos: u32,
    /// Rows of a full round (`meanVarRoundSize`).
    pub mean_var_round_size: u32,
    /// Rows of the tail round (`meanVarTailSize`).
    pub mean_var_tail_size: u32,
    /// First row of the tail round (`meanVarTailPos`).
    pub mean_var_tail_pos: u32,
    /// Elements of the current round (`arCurLength`; the kernel sets it to the tail's).
    pub ar_cur_length: u32,
    /// Rows of the current round (`aCurLength`; the kernel sets it to the tail's).
    pub a_cur_length: u32,
    /// `1 / rLength` (`rValueBack`).
    pub r_value_back: f32,
}

/// `[A, R]` of a shape, `R` rounded up to 32 bytes of `type_size`.
#[track_caller]
fn ar_shape(api: &'static str, shape: &[usize], type_size: usize) -> (usize, usize, usize) {
    ensure(shape.len() == 2, api, || {
        format!("srcShape = {shape:?} has {} dimensions; it must be [A, R]", shape.len())
    });
    super::host_checks(api, shape.iter().product(), type_size);
    (shape[0], shape[1], align_up(shape[1], 32 / type_size))
}

/// The temporary buffer's `(max, min)` bytes for [`layer_norm_rstd`] on `[A, R]` (AscendC
/// `GetLayerNormMaxMinTmpSize(srcShape, typeSize, isReuseSource, isComputeRstd, isOnlyOutput,
/// maxValue, minValue)`): `2 * align_up(4 * A * Rp) + align_up(4 * A)` and
/// `2 * align_up(4 * Rp) + align_up(4 * A)` (`Rp` the padded row), each raised to `Normalize`'s
/// own (its `GetNormalizeMaxMinTmpSize` with `typeSize` for both types) plus `align_up(4 * A)`
/// when that is larger.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_layer_norm_rstd_max_min_tmp_size(&[32, 32], 4, false, true, false), (8576, 384));
/// ```
///
/// # Panics
/// Panics if the shape is not `[A, R]` or has no elements, `type_size` is neither 2 nor 4,
/// `is_compute_rstd` is false or `is_only_output` true (the vendor supports neither).
#[track_caller]
pub fn get_layer_norm_rstd_max_min_tmp_size(
    src_shape: &[usize],
    type_size: usize,
    is_reuse_source: bool,
    is_compute_rstd: bool,
    is_only_output: bool,
) -> (usize, usize) {
    const API: &str = "GetLayerNormMaxMinTmpSize";
    let _ = is_reuse_source;
    ensure(is_compute_rstd && !is_only_output, API, || {
        format!(
            "isComputeRstd = {is_compute_rstd}, isOnlyOutput = {is_only_output}: the vendor's Normalize supports only \
             isComputeRstd = true and isOnlyOutput = false"
        )
    });
    let (a, _, rp) = ar_shape(API, src_shape, type_size);
    let al = |b: usize| align_up(b, 32);
    let mv = al(a * 4);
    let mut max = 2 * al(a * rp * 4) + mv;
    let mut min = 2 * al(rp * 4) + mv;
    let norm_max = 2 * al(rp * 4) + 2 * al(align_up(a, 8) * rp * 4);
    let nr = if type_size == 4 { 2 * al(rp * 4) } else { 4 * al(rp * 4) };
    let norm_min = mv.max(nr);
    if min - mv <= norm_min {
        min = norm_min + mv;
    }
    if max - mv <= norm_max {
        max = norm_max + mv;
    }
    (max, min)
}

/// [`layer_norm_rstd`]'s tiling for `[A, R]` with a buffer of `stack_buffer_size` bytes
/// (AscendC `GetLayerNormNDTilingInfo(srcShape, stackBufferSize, typeSize, isReuseSource,
/// isComputeRstd, tiling)`): the variances (`A` rounded up to 8 `float`s), then two views of
/// the most whole padded rows that fit, at most all rows.
///
/// ```
/// use ascend_core::prelude::*;
/// let t = get_layer_norm_rstd_nd_tiling_info(&[32, 32], 8320, 4, false, true);
/// assert_eq!((t.one_tmp_size, t.loop_round, t.a_cur_length, t.second_tmp_start_pos), (1024, 1, 32, 1056));
/// ```
///
/// # Panics
/// Panics if the shape is not `[A, R]` or has no elements, `type_size` is neither 2 nor 4, or
/// the buffer holds less than the variances and one padded row in each view.
#[track_caller]
pub fn get_layer_norm_rstd_nd_tiling_info(
    src_shape: &[usize],
    stack_buffer_size: usize,
    type_size: usize,
    is_reuse_source: bool,
    is_compute_rstd: bool,
) -> LayerNormSeparateTiling {
    const API: &str = "GetLayerNormNDTilingInfo";
    let _ = (is_reuse_source, is_compute_rstd);
    let (a, r, rp) = ar_shape(API, src_shape, type_size);
    let input = a * rp;
    let var_size = align_up(a, FLOAT_PER_BLOCK);
    let tmp_buf = stack_buffer_size / 4;
    let one = (tmp_buf.saturating_sub(var_size) / 2 / rp * rp).min(input);
    ensure(one > 0, API, || {
        format!(
            "stackBufferSize = {stack_buffer_size} bytes holds {tmp_buf} floats: fewer than the {var_size} variances \
             and 2 rows of {rp} (see GetLayerNormMaxMinTmpSize's minimum)"
        )
    });
    let tail = input % one;
    LayerNormSeparateTiling {
        a_length: a as u32,
        r_length: r as u32,
        input_x_size: input as u32,
        mean_var_size: a as u32,
        number_of_tmp_buf: 2,
        variance_tmp_tensor_pos: 0,
        variance_tmp_tensor_size: var_size as u32,
        tmp_buf_size: tmp_buf as u32,
        one_tmp_size: one as u32,
        first_tmp_start_pos: var_size as u32,
        second_tmp_start_pos: (var_size + one) as u32,
        loop_round: (input / one) as u32,
        input_round_size: one as u32,
        input_tail_size: tail as u32,
        input_tail_pos: (input - tail) as u32,
        mean_var_round_size: (one / rp) as u32,
        mean_var_tail_size: (tail / rp) as u32,
        mean_var_tail_pos: (a - tail / rp) as u32,
        ar_cur_length: one as u32,
        a_cur_length: (one / rp) as u32,
        r_value_back: 1.0 / r as f32,
        ..Default::default()
    }
}

/// The `(gamma/beta, source)` type pairs of [`layer_norm_rstd`]: `float`/`float`,
/// `half`/`half` and `float`/`half` (the vendor's `CheckLayerNormRstd`). `Self` is `U`, the
/// type parameter `T`:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<f32>, h: &LocalTensor<f16>, m: &LocalTensor<f32>, p: &LayerNormPara, s: &mut LayerNormSeparateTiling) {
///     layer_norm_rstd_stack::<f16, f32, false>(t, m, m, t, h, h, 0.0, p, s)
/// }
/// ```
pub trait LayerNormGammaType<T: LayerNormElement>: LayerNormElement {}
impl LayerNormGammaType<f32> for f32 {}
impl LayerNormGammaType<f16> for f16 {}
impl LayerNormGammaType<f16> for f32 {}

/// The V→S or S→V handshake the vendor makes with a fetched event id.
#[track_caller]
pub(crate) fn handshake<E: crate::sync::event::Event>() {
    let e = E::EVENT;
    let id = crate::sync::flags::fetch_free_event("TPipe::FetchEventID", e);
    crate::sync::flags::set_flag_event(e, id);
    crate::sync::flags::wait_flag_event(e, id);
}

/// `src` (one round) into view A as `float` (`Cast` or `DataCopy`, count forms).
#[track_caller]
fn copy_float<T: LayerNormElement>(a: &LocalTensor<f32>, src: &LocalTensor<T>, n: usize) {
    if T::DTYPE == DType::F16 {
        crate::vector::cast::cast(a, &src.reinterpret_cast::<f16>(), RoundMode::CastNone, n);
    } else {
        crate::memory::copy::data_copy(a, &src.reinterpret_cast::<f32>(), n);
    }
    pipe_barrier::<PIPE_V>();
}

/// `ComputeMeanVariance`: one round of `ac` rows — `x / R` summed per row into `mean`; `x -
/// mean` (one `Adds` of the scalar unit's `-mean` per row, after a `V_S` and an `S_V` flag),
/// squared, `/ R`, summed into `variance`.
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn mean_variance<T: LayerNormElement>(
    mean: &LocalTensor<f32>,
    variance: &LocalTensor<f32>,
    src: &LocalTensor<T>,
    a: &LocalTensor<f32>,
    b: &LocalTensor<f32>,
    para: &LayerNormPara,
    (arc, ac, back): (usize, usize, f32),
) {
    use crate::vector::scalar::{adds, muls};
    let (r, rp) = (para.r_length as usize, para.r_length_with_padding as usize);
    copy_float(a, src, arc);
    muls(a, a, back, arc);
    pipe_barrier::<PIPE_V>();
    reduce_sum(mean, b, a, ac, rp);
    handshake::<crate::sync::event::HardEvent::V_S>();
    if T::DTYPE == DType::F16 {
        pipe_barrier::<PIPE_V>();
    }
    copy_float(a, src, arc);
    for j in 0..ac {
        // `static_cast<float>(-1) * outputMean.GetValue(j)`: the negation.
        let scalar = -mean.get_value(j);
        handshake::<crate::sync::event::HardEvent::S_V>();
        let row = a.view(j * rp);
        adds(&row, &row, scalar, r);
    }
    pipe_barrier::<PIPE_V>();
    crate::vector::binary::mul(a, a, a, arc);
    pipe_barrier::<PIPE_V>();
    muls(a, a, back, arc);
    pipe_barrier::<PIPE_V>();
    reduce_sum(variance, b, a, ac, rp);
    pipe_barrier::<PIPE_V>();
}

/// `LayerNormPreProc`: each row's padding zeroed in place (`x * [1; R] ++ [0; Rp - R]`).
#[track_caller]
fn pre_proc<T: LayerNormElement>(x: &LocalTensor<T>, stack: &LocalTensor<f32>, para: &LayerNormPara) {
    if T::DTYPE == DType::F16 {
        pre_proc_typed::<f16>(&x.reinterpret_cast(), stack, para);
    } else {
        pre_proc_typed::<f32>(&x.reinterpret_cast(), stack, para);
    }
}

/// [`pre_proc`] on the concrete element type.
#[track_caller]
fn pre_proc_typed<E>(x: &LocalTensor<E>, stack: &LocalTensor<f32>, para: &LayerNormPara)
where
    E: crate::vector::duplicate::DuplicateElement
        + crate::vector::scalar::AddsElement
        + crate::vector::binary::MulElement,
{
    let t = stack.reinterpret_cast::<E>();
    let rp = para.r_length_with_padding as usize;
    crate::vector::duplicate::duplicate(&t, E::ZERO, rp);
    pipe_barrier::<PIPE_V>();
    crate::vector::scalar::adds(&t, &t, E::from_f64(1.0), para.r_length as usize);
    pipe_barrier::<PIPE_V>();
    for i in 0..para.a_length as usize {
        let row = x.view(i * rp);
        crate::vector::binary::mul(&row, &row, &t, rp);
    }
    pipe_barrier::<PIPE_V>();
}

/// `Normalize<U, T, false, config>` (`normalize_common_impl.h`), as `LayerNorm` calls it
/// (`NLCFG_NORM`) and as the public [`normalize`](super::normalize::normalize) does:
/// `rstd = 1 / sqrt(variance + epsilon)`; per round of `N` rows (as many as two views of `Rp`
/// fit in `tmp`, after `half` `gamma` and `beta` widened), `(x - mean) * rstd * gamma + beta`
/// with `mean` and `rstd` broadcast by one `Duplicate` per row of the scalar unit's value; the
/// `* gamma` (and its widening) left out with `no_gamma`, the `+ beta` with `no_beta`
/// (`isNoGamma`, `isNoBeta`).
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub(crate) fn normalize_rows<U: LayerNormGammaType<T>, T: LayerNormElement>(
    output: &LocalTensor<T>,
    rstd: &LocalTensor<f32>,
    mean: &LocalTensor<f32>,
    variance: &LocalTensor<f32>,
    x: &LocalTensor<T>,
    gamma: &LocalTensor<U>,
    beta: &LocalTensor<U>,
    tmp: &LocalTensor<f32>,
    epsilon: f32,
    para: &LayerNormPara,
    (no_gamma, no_beta): (bool, bool),
) {
    let (al, r, rp) = (para.a_length as usize, para.r_length as usize, para.r_length_with_padding as usize);
    let u_half = U::DTYPE == DType::F16;
    let r2 = 2 * rp;
    let n = if u_half { (tmp.get_size() - r2) / r2 } else { tmp.get_size() / r2 }.min(al);
    let (a, b) = (tmp.clone(), tmp.view(n * rp));
    let (gf, bf) = if u_half {
        (tmp.view(r2 * n), tmp.view(r2 * n + rp))
    } else {
        (gamma.reinterpret_cast::<f32>(), beta.reinterpret_cast::<f32>())
    };
    set_mask_count();
    count_mask::<f32>(al);
    steps::adds(rstd, variance, epsilon);
    duplicate_masked::<f32, false>(&a, 1.0, MASK_PLACEHOLDER, 1, 1, 8);
    pipe_barrier::<PIPE_V>();
    steps::sqrt(rstd, rstd);
    steps::div(rstd, &a, rstd);
    if u_half {
        count_mask::<f32>(r);
        if !no_gamma {
            steps::widen(&gf, &gamma.reinterpret_cast::<f16>());
        }
        if !no_beta {
            steps::widen(&bf, &beta.reinterpret_cast::<f16>());
        }
    }
    let round = |index: usize, rows: usize, base: usize| {
        // CastSrc.
        count_mask::<f32>(rows * rp);
        if T::DTYPE == DType::F16 {
            steps::widen(&a, &x.view(index).reinterpret_cast::<f16>());
        } else {
            steps::adds(&a, &x.view(index).reinterpret_cast::<f32>(), 0.0);
        }
        // GetNormalizeOutputPre.
        for (k, src) in [mean, rstd].into_iter().enumerate() {
            count_mask::<f32>(r);
            if k == 0 {
                handshake::<crate::sync::event::HardEvent::V_S>();
            }
            for i in 0..rows {
                let value = src.get_value(i + base);
                handshake::<crate::sync::event::HardEvent::S_V>();
                duplicate_masked::<f32, false>(&b.view(i * rp), value, MASK_PLACEHOLDER, 1, 1, 8);
            }
            pipe_barrier::<PIPE_V>();
            count_mask::<f32>(rows * rp);
            if k == 0 {
                steps::sub(&a, &a, &b);
            } else {
                steps::mul(&a, &a, &b);
            }
        }
        // GetNormalizeOutput.
        count_mask::<f32>(r);
        for i in 0..rows {
            let row = a.view(i * rp);
            if !no_gamma {
                steps::mul(&row, &row, &gf);
            }
            if !no_beta {
                steps::add(&row, &row, &bf);
            }
        }
        count_mask::<f32>(rows * rp);
        if T::DTYPE == DType::F16 {
            narrow(&output.view(index).reinterpret_cast::<f16>(), &a);
        } else {
            steps::adds(&output.view(index).reinterpret_cast::<f32>(), &a, 0.0);
        }
    };
    for i in 0..al / n {
        round(rp * n * i, n, n * i);
    }
    if al % n > 0 {
        round(rp * n * (al / n), al % n, n * (al / n));
    }
    set_mask_norm();
    reset_mask();
}

/// How many elements an operand of an `[aLength, rLength]` API must hold (see
/// [`check_ar_operands`]).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArExtent {
    /// No size check (the scratch buffer, which each API checks itself).
    Unchecked,
    /// `aLength * rLengthWithPadding` elements: the source and the output.
    Full,
    /// `aLength` float elements: a per-row mean, variance or rstd.
    Rows,
    /// `rLength` elements: gamma and beta.
    Cols,
}

/// The checks the rstd `LayerNorm` and `Normalize` share (their pages' 约束说明 and the
/// vendor's parameter asserts): every operand (`name`, position, element count,
/// [`ArExtent`], sources first) in the Unified Buffer; `para`'s `(aLength, rLength, rLengthWithPadding)`
/// with `aLength > 0` and `0 < rLength <= rLengthWithPadding`, the padded row a whole number
/// of 32-byte blocks of `T`; every operand as long as its extent. Returns the three lengths.
#[track_caller]
pub(crate) fn check_ar_operands<T: Element>(
    api: &'static str,
    para: &impl core::fmt::Debug,
    (a, r, rp): (usize, usize, usize),
    operands: &[(&'static str, crate::position::TPosition, usize, ArExtent)],
) -> (usize, usize, usize) {
    for &(name, pos, _, _) in operands {
        ensure(pos.is_ub(), api, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
    }
    ensure(a > 0 && r > 0 && r <= rp && rp * T::SIZE % 32 == 0, api, || {
        format!(
            "para = {para:?}: it needs aLength > 0 and 0 < rLength <= rLengthWithPadding, a multiple of {} {} \
             elements (32 bytes)",
            32 / T::SIZE,
            T::DTYPE
        )
    });
    // The vendor's order: the whole tensors, then the per-row ones, then gamma and beta.
    for kind in [ArExtent::Full, ArExtent::Rows, ArExtent::Cols] {
        for &(name, _, n, extent) in operands.iter().filter(|o| o.3 == kind) {
            match extent {
                ArExtent::Full => ensure(n >= a * rp, api, || {
                    format!("{name} has {n} elements, fewer than aLength * rLengthWithPadding = {}", a * rp)
                }),
                ArExtent::Rows => {
                    ensure(n >= a, api, || format!("{name} has {n} float elements, fewer than aLength = {a}"))
                }
                ArExtent::Cols => {
                    ensure(n >= r, api, || format!("{name} has {n} elements, fewer than rLength = {r}"))
                }
                ArExtent::Unchecked => {}
            }
        }
    }
    (a, r, rp)
}

/// `LayerNorm`'s checks for the rstd form.
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn check_layer_norm_rstd<U: LayerNormGammaType<T>, T: LayerNormElement>(
    output: &LocalTensor<T>,
    mean: &LocalTensor<f32>,
    rstd: &LocalTensor<f32>,
    x: &LocalTensor<T>,
    gamma: &LocalTensor<U>,
    beta: &LocalTensor<U>,
    tmp: &LocalTensor<u8>,
    para: &LayerNormPara,
    t: &LayerNormSeparateTiling,
) {
    const API: &str = LAYER_NORM;
    check_chip(API, &V220_V200);
    let ar = (para.a_length as usize, para.r_length as usize, para.r_length_with_padding as usize);
    let (a, r, rp) = check_ar_operands::<T>(
        API,
        para,
        ar,
        &[
            ("inputX", x.get_position(), x.get_size(), ArExtent::Full),
            ("output", output.get_position(), output.get_size(), ArExtent::Full),
            ("outputMean", mean.get_position(), mean.get_size(), ArExtent::Rows),
            ("outputRstd", rstd.get_position(), rstd.get_size(), ArExtent::Rows),
            ("gamma", gamma.get_position(), gamma.get_size(), ArExtent::Cols),
            ("beta", beta.get_position(), beta.get_size(), ArExtent::Cols),
            ("sharedTmpBuffer", tmp.get_position(), 0, ArExtent::Unchecked),
        ],
    );
    let one = t.one_tmp_size as usize;
    let consistent = one > 0
        && t.a_length == para.a_length
        && t.r_length == para.r_length
        && t.input_x_size as usize == a * rp
        && one % rp == 0
        && t.ar_cur_length as usize == t.a_cur_length as usize * rp
        && t.ar_cur_length as usize <= one
        && t.input_round_size as usize == one
        && t.mean_var_round_size as usize * rp == one
        && t.mean_var_tail_size as usize * rp == t.input_tail_size as usize
        && t.loop_round as usize * one + t.input_tail_size as usize == a * rp
        && t.input_tail_pos as usize == t.loop_round as usize * one
        && t.mean_var_tail_pos as usize + t.mean_var_tail_size as usize == a
        && t.variance_tmp_tensor_pos as usize + a <= t.first_tmp_start_pos as usize
        && t.second_tmp_start_pos as usize == t.first_tmp_start_pos as usize + one;
    ensure(consistent, API, || {
        format!(
            "the tiling ({t:?}) does not fit para = {para:?}: get it from GetLayerNormNDTilingInfo for [aLength, \
             rLength]"
        )
    });
    let used = t.second_tmp_start_pos as usize + one;
    ensure(used <= t.tmp_buf_size as usize && tmp.get_size() / 4 >= t.tmp_buf_size as usize, API, || {
        format!(
            "sharedTmpBuffer has {} bytes; the tiling's views end at float {used} and its tmpBufSize is {} floats",
            tmp.get_size(),
            t.tmp_buf_size
        )
    });
    let nf = tmp.get_size() / 4 - t.first_tmp_start_pos as usize;
    let need = if U::DTYPE == DType::F16 { 4 * rp } else { 2 * rp };
    ensure(nf >= need && tmp.get_size() / 4 > rp, API, || {
        format!(
            "sharedTmpBuffer's {nf} floats after the variances hold no round of Normalize: it needs {need} (two rows, \
             and for half gamma and beta one each)"
        )
    });
    let (o, m, s, xs) = (
        span("output", output, a * rp),
        span("outputMean", mean, a),
        span("outputRstd", rstd, a),
        span("inputX", x, a * rp),
    );
    let (g, b) = (span("gamma", gamma, r), span("beta", beta, r));
    let tw: Span = ("sharedTmpBuffer", tmp.get_phy_addr(), tmp.get_phy_addr() + tmp.get_size());
    let mut pairs =
        vec![(o, m), (o, s), (m, s), (m, xs), (s, xs), (o, g), (o, b), (m, g), (m, b), (s, g), (s, b)];
    pairs.extend([o, m, s, xs, g, b].map(|p| (tw, p)));
    check_apart(API, &pairs);
}

/// LayerNorm of `input_x` (`[A, R]` rows stored in `rLengthWithPadding`) into `output`, with
/// each row's mean into `output_mean` and `1 / sqrt(variance + epsilon)` into `output_rstd`
/// (`float`, `A` elements), scaling `gamma` and shift `beta` of type `U` (AscendC
/// `LayerNorm<U, T, isReuseSource, LNCFG_NORM>(output, outputMean, outputRstd, inputX, gamma,
/// beta, epsilon, sharedTmpBuffer, para, tiling)`).
///
/// As the vendor's implementation (Ascend910B, Ascend310P): when `rLength` is padded, the
/// rows' padding of `input_x` is zeroed in place first (`Duplicate`, `Adds`, then a `Mul` per
/// row: `input_x` is modified); per round of `aCurLength` rows, the source copied into view A
/// as `float` (`Cast` or `DataCopy`), `Muls` by `1 / R`, the row sums (as [`layer_norm`]'s)
/// into the means; the source again, `Adds` of each row's `-mean` read by the scalar unit,
/// `Mul`, `Muls`, the row sums into the variances at the buffer's start. Then `Normalize`:
/// `Adds` of `epsilon`, `Sqrt`, `Div` into ones; per round of as many rows as two views fit
/// after the variances (and `half` `gamma`/`beta` widened), the source in `float`, each row's
/// mean and rstd broadcast by `Duplicate` of the scalar unit's value, `Sub`, `Mul`, per row
/// `Mul` by `gamma` and `Add` of `beta`, the result into `output` (`Adds` of 0 or the
/// narrowing `Cast`). Counter mode with `PipeBarrier<PIPE_V>`s as the vendor's; `V_S` and `S_V`
/// flags around the scalar reads. The rows' padding of `output` is left with whatever the
/// broadcast view held there. As the vendor's (through a `const_cast`), a tail round leaves
/// its lengths in `tiling.ar_cur_length` and `tiling.a_cur_length`.
///
/// The vendor's `Normalize` calls `Duplicate<float, false>` with a mask argument of 1; with
/// `isSetMask = false` it is ignored (the counter-mode mask applies), and the port passes
/// `MASK_PLACEHOLDER`. Only the default `LNCFG_NORM` (with `gamma` and `beta`) is provided.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 6 * 64);
/// let (_, min) = get_layer_norm_rstd_max_min_tmp_size(&[2, 8], 4, false, true, false);
/// pipe.init_tbuf(&mut tmp, min);
/// let mut tiling = get_layer_norm_rstd_nd_tiling_info(&[2, 8], min, 4, false, true);
/// let para = LayerNormPara { a_length: 2, r_length: 8, r_length_with_padding: 8 };
/// let t = |i: usize, n: usize| q.get_with_offset::<f32>(n, i * 64);
/// let (x, g, b, y, mean, rstd) = (t(0, 16), t(1, 8), t(2, 8), t(3, 16), t(4, 2), t(5, 2));
/// x.copy_from_slice(&[1.0, 3.0, 1.0, 3.0, 1.0, 3.0, 1.0, 3.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]);
/// g.copy_from_slice(&[2.0; 8]);
/// b.copy_from_slice(&[0.5; 8]);
/// layer_norm_rstd::<f32, f32, false>(&y, &mean, &rstd, &x, &g, &b, 0.0, &tmp.get::<u8>(), &para, &mut tiling);
/// assert_eq!(mean.to_vec(), [2.0, 2.0]);
/// assert_eq!(rstd.get_value(0), 1.0);
/// assert_eq!(y.to_vec()[..2], [-1.5, 2.5]);
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); a tensor is not in the
/// Unified Buffer; `para` is not a padded shape (`0 < R <= Rp`, `Rp` 32-byte aligned); the
/// tiling does not fit `para`; the buffer is smaller than the tiling's `tmpBufSize` or leaves
/// `Normalize` no round; a tensor is too small; the outputs overlap each other, `gamma`,
/// `beta` or (mean and rstd) `input_x`, or the buffer overlaps any tensor; or any
/// instruction's own check fails.
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn layer_norm_rstd<U: LayerNormGammaType<T>, T: LayerNormElement, const IS_REUSE_SOURCE: bool>(
    output: &LocalTensor<T>,
    output_mean: &LocalTensor<f32>,
    output_rstd: &LocalTensor<f32>,
    input_x: &LocalTensor<T>,
    gamma: &LocalTensor<U>,
    beta: &LocalTensor<U>,
    epsilon: f32,
    shared_tmp_buffer: &LocalTensor<u8>,
    para: &LayerNormPara,
    tiling: &mut LayerNormSeparateTiling,
) {
    check_layer_norm_rstd(
        output,
        output_mean,
        output_rstd,
        input_x,
        gamma,
        beta,
        shared_tmp_buffer,
        para,
        tiling,
    );
    let stack = shared_tmp_buffer.reinterpret_cast::<f32>();
    let t = *tiling;
    let variance = stack.view(t.variance_tmp_tensor_pos as usize);
    if para.r_length != para.r_length_with_padding {
        pre_proc(input_x, &stack, para);
    }
    let (a, b) = (stack.view(t.first_tmp_start_pos as usize), stack.view(t.second_tmp_start_pos as usize));
    let round = |off: usize, mv: usize, arc: usize, ac: usize| {
        mean_variance(
            &output_mean.view(mv),
            &variance.view(mv),
            &input_x.view(off),
            &a,
            &b,
            para,
            (arc, ac, t.r_value_back),
        );
    };
    let (mut off, mut mv) = (0, 0);
    for _ in 0..t.loop_round {
        round(off, mv, t.ar_cur_length as usize, t.a_cur_length as usize);
        off += t.input_round_size as usize;
        mv += t.mean_var_round_size as usize;
    }
    if t.input_tail_size > 0 {
        tiling.ar_cur_length = t.input_tail_size;
        tiling.a_cur_length = t.mean_var_tail_size;
        round(
            t.input_tail_pos as usize,
            t.mean_var_tail_pos as usize,
            t.input_tail_size as usize,
            t.mean_var_tail_size as usize,
        );
    }
    let rest = stack.view(t.first_tmp_start_pos as usize);
    normalize_rows(
        output,
        output_rstd,
        output_mean,
        &variance,
        input_x,
        gamma,
        beta,
        &rest,
        epsilon,
        para,
        (false, false),
    );
}

/// [`layer_norm_rstd`] with the stack buffer as scratch (AscendC `LayerNorm<U, T,
/// isReuseSource, LNCFG_NORM>(output, outputMean, outputRstd, inputX, gamma, beta, epsilon,
/// para, tiling)`); the tiling's `tmpBufSize` must fit in it.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 6 * 64);
/// let stack = pop_stack_buffer::<u8>().get_size();
/// let mut tiling = get_layer_norm_rstd_nd_tiling_info(&[1, 16], stack, 2, false, true);
/// let para = LayerNormPara { a_length: 1, r_length: 16, r_length_with_padding: 16 };
/// let (x, g, b, y) = (q.get_with_offset::<f16>(16, 0), q.get_with_offset::<f32>(16, 64), q.get_with_offset::<f32>(16, 128), q.get_with_offset::<f16>(16, 192));
/// let (mean, rstd) = (q.get_with_offset::<f32>(8, 256), q.get_with_offset::<f32>(8, 320));
/// x.copy_from_slice(&[f16::from_f32(4.0); 16]);
/// g.copy_from_slice(&[1.0; 16]);
/// b.copy_from_slice(&[3.0; 16]);
/// layer_norm_rstd_stack::<f32, f16, false>(&y, &mean, &rstd, &x, &g, &b, 1.0, &para, &mut tiling);
/// assert_eq!((mean.get_value(0), rstd.get_value(0)), (4.0, 1.0));
/// assert_eq!(y.get_value(15), f16::from_f32(3.0));
/// ```
///
/// # Panics
/// As [`layer_norm_rstd`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn layer_norm_rstd_stack<U: LayerNormGammaType<T>, T: LayerNormElement, const IS_REUSE_SOURCE: bool>(
    output: &LocalTensor<T>,
    output_mean: &LocalTensor<f32>,
    output_rstd: &LocalTensor<f32>,
    input_x: &LocalTensor<T>,
    gamma: &LocalTensor<U>,
    beta: &LocalTensor<U>,
    epsilon: f32,
    para: &LayerNormPara,
    tiling: &mut LayerNormSeparateTiling,
) {
    let stack = stack_tensor(LAYER_NORM);
    layer_norm_rstd::<U, T, IS_REUSE_SOURCE>(
        output,
        output_mean,
        output_rstd,
        input_x,
        gamma,
        beta,
        epsilon,
        &stack,
        para,
        tiling,
    );
}
