//! `LayerNormGrad` and `LayerNormGradBeta` of the advanced API (the vendor's
//! `adv_api/normalization/layernormgrad.h` and `layernormgradbeta.h`): the backward pass of
//! `LayerNorm` ([`layer_norm_grad`], [`layer_norm_grad_stack`] with the tiling
//! [`LayerNormGradTiling`] and its host helpers [`get_layer_norm_grad_max_min_tmp_size`],
//! [`get_layer_norm_grad_nd_tiling_info`]), and the gradients of `gamma` and `beta` from its
//! `resForGamma` ([`layer_norm_grad_beta`], [`layer_norm_grad_beta_stack`] with
//! [`LayerNormGradBetaTiling`], [`get_layer_norm_grad_beta_max_min_tmp_size`],
//! [`get_layer_norm_grad_beta_nd_tiling_info`]).
//!
//! They are the vendor's `layernormgrad_common_impl.h` and `layernormgradbeta_common_impl.h`
//! (every architecture but Ascend 950's, not emulated) and the host's
//! `layernorm_grad_tiling_impl.cpp` and `layernorm_grad_beta_tiling_impl.cpp`; their pages
//! list Ascend910B and Ascend310P (AI Core) only. Each step below is one basic instruction as
//! the vendor writes it, so results are the hardware's bit for bit.
//!
//! Vendor behaviour kept as it is (each documented on the function it affects):
//! - `GetLayerNormGradNDTilingInfo` rounds each round's rows up to a whole block (8 rows for
//!   `float`, 16 for `half`) *after* fitting them into the buffer, so the tiling's views can
//!   reach beyond `stackBufferSize`; and `GetLayerNormGradMaxMinTmpSize` counts `half`'s
//!   buffers in 2-byte units although they hold `float`s. With the host's minimum the views
//!   often end past the buffer (the chip writes past it); here that is an error naming the
//!   bytes the round touches.
//! - `LayerNormGradBeta` sums rows `originHLength` apart with a mask of `originHLength`
//!   (`hCurLength = originalHLength`), so with padded rows (`originH < H`) it reads across
//!   rows, as the chip does; with `originH` not a multiple of 8 `float`s and several rows in
//!   a round the second row starts unaligned, an error here.
//! - The broadcast of a value per row is `Brcb` on Ascend910B and a scalar read plus
//!   `Duplicate` per row on Ascend310P (the vendor's `BroadcastLastDimImpl`).

use bytemuck::{Pod, Zeroable};

use crate::element::{f16, DType};
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::sync::{
    event::{HardEvent, PIPE_V},
    flags::pipe_barrier,
};
use crate::vector::binary::{add, div_masked, mul, sub};
use crate::vector::brcb::{brcb, BrcbRepeatParams};
use crate::vector::cast::{cast, RoundMode};
use crate::vector::duplicate::{duplicate, duplicate_masked};
use crate::vector::mask::{reset_mask, set_mask_count, set_mask_norm, MASK_PLACEHOLDER};
use crate::vector::params::BinaryRepeatParams;
use crate::vector::reduction::whole_reduce_sum;
use crate::vector::scalar::{adds, muls};
use crate::vector::unary::sqrt;

use super::layernorm::{handshake, host_shape, narrow, LayerNormElement};
use super::{check_apart, check_documented_chip, count_mask, span, stack_tensor, steps, Span, V220_V200};
use crate::kernel::ctx::get_soc;
use crate::soc::Soc;

const LAYER_NORM_GRAD: &str = "LayerNormGrad";
const LAYER_NORM_GRAD_BETA: &str = "LayerNormGradBeta";
/// The chips the pages list.
const LISTED: &str =
    "Atlas A2 training/inference products (Ascend910B) and Atlas inference products' AI Core \
                      (Ascend310P)";

/// `float`s per repeat (`ONE_REPEAT_FLOAT_SIZE`).
const ONE_REPEAT_FLOAT_SIZE: usize = 64;
/// The repeat limit (`MAX_REPEAT_TIMES`).
const MAX_REPEAT_TIMES: usize = 255;
/// Rows one `Brcb` repeat broadcasts (`BRCB_BROADCAST_NUMBER`).
const BRCB_BROADCAST_NUMBER: usize = 8;
/// `BRCB_MAX_REPEAT_SIZE = BRCB_BROADCAST_NUMBER * MAX_REPEAT_TIMES`.
const BRCB_MAX_REPEAT_SIZE: usize = BRCB_BROADCAST_NUMBER * MAX_REPEAT_TIMES;

// ---------------------------------------------------------------------------------------
// Tilings
// ---------------------------------------------------------------------------------------

/// `LayerNormGrad`'s tiling (AscendC `LayerNormGradTiling`, the vendor's fields in
/// snake_case), from [`get_layer_norm_grad_nd_tiling_info`]. `#[repr(C)]` and [`Pod`], so it
/// travels in a kernel's tiling data as the vendor's does. Positions and sizes count `float`s
/// of the temporary buffer; the two `float` factors are stored as their bits, as the vendor
/// stores them (`uint32_t`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct LayerNormGradTiling {
    /// The buffer's bytes the tiling was made for (`stackBufferSize`).
    pub stack_buffer_size: u32,
    /// B (`bLength`).
    pub b_length: u32,
    /// S (`sLength`).
    pub s_length: u32,
    /// H, the row's stored length (`hLength`).
    pub h_length: u32,
    /// H before padding (`originalHLength`).
    pub original_h_length: u32,
    /// Elements of a full round: `nohCalSize * H` (`oneCalSize`).
    pub one_cal_size: u32,
    /// Rows of a full round, rounded up to a block (`nohCalSize`).
    pub noh_cal_size: u32,
    /// Full rounds (`loopNum`).
    pub loop_num: u32,
    /// Elements of the tail round (`tailSize`; 0: none).
    pub tail_size: u32,
    /// Rows of the tail round (`nohTailSize`).
    pub noh_tail_size: u32,
    /// Start of the row-broadcast view (`tmpTensorBSHPos`).
    pub tmp_tensor_bsh_pos: u32,
    /// Its size (`tmpTensorBSHSize`).
    pub tmp_tensor_bsh_size: u32,
    /// Start of `pd_var` (`pdVarTensorPos`).
    pub pd_var_tensor_pos: u32,
    /// Its size (`pdVarTensorSize`).
    pub pd_var_tensor_size: u32,
    /// Start of `pd_mean` (`pdMeanTensorPos`).
    pub pd_mean_tensor_pos: u32,
    /// Its size (`pdMeanTensorSize`).
    pub pd_mean_tensor_size: u32,
    /// Start of `dy * gamma` (`x1TensorPos`).
    pub x1_tensor_pos: u32,
    /// Its size (`x1TensorSize`).
    pub x1_tensor_size: u32,
    /// Start of `x - mean` (`x2TensorPos`).
    pub x2_tensor_pos: u32,
    /// Its size (`x2TensorSize`).
    pub x2_tensor_size: u32,
    /// Start of `x1 * rstd` (`x3TensorPos`).
    pub x3_tensor_pos: u32,
    /// Its size (`x3TensorSize`).
    pub x3_tensor_size: u32,
    /// Start of `half`'s `float` output (`tmpTensorPos`).
    pub tmp_tensor_pos: u32,
    /// Its size (`tmpTensorSize`).
    pub tmp_tensor_size: u32,
    /// Start of `half`'s first widened input (`tmpTensor1Pos`).
    pub tmp_tensor1_pos: u32,
    /// Its size (`tmpTensor1Size`).
    pub tmp_tensor1_size: u32,
    /// Start of `half`'s second widened input (`tmpTensor2Pos`).
    pub tmp_tensor2_pos: u32,
    /// Its size (`tmpTensor2Size`).
    pub tmp_tensor2_size: u32,
    /// `1 / originalHLength` as `float` bits (`lastDimValueBack`).
    pub last_dim_value_back: u32,
    /// `2 / originalHLength` as `float` bits (`lastDimValueBackMulTwo`).
    pub last_dim_value_back_mul_two: u32,
}

/// `LayerNormGradBeta`'s tiling (AscendC `LayerNormGradBetaTiling`), from
/// [`get_layer_norm_grad_beta_nd_tiling_info`]. Positions and sizes count `float`s.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct LayerNormGradBetaTiling {
    /// The buffer's `float`s (`stackBufferSize`; the host's bytes / 4).
    pub stack_buffer_size: u32,
    /// B (`bLength`).
    pub b_length: u32,
    /// S (`sLength`).
    pub s_length: u32,
    /// H (`hLength`).
    pub h_length: u32,
    /// H before padding (`originalHLength`): the row stride and mask of the sums.
    pub original_h_length: u32,
    /// `B * S * H` (`bshLength`).
    pub bsh_length: u32,
    /// `B * S` (`bsLength`).
    pub bs_length: u32,
    /// Elements of a full round (`oneCalSize`).
    pub one_cal_size: u32,
    /// Views of the buffer: 1 for `float`, 2 for `half` (`numberOfTmpBuf`).
    pub number_of_tmp_buf: u32,
    /// Rounds, the first included (`loopRound`).
    pub loop_round: u32,
    /// Elements of the tail round (`inputTailSize`).
    pub input_tail_size: u32,
    /// First element of the tail round (`inputTailPos`).
    pub input_tail_pos: u32,
    /// Rows of the tail round (`bsTailSize`).
    pub bs_tail_size: u32,
    /// Elements of a full round (`bshCurLength`).
    pub bsh_cur_length: u32,
    /// Rows of a full round (`bsCurLength`).
    pub bs_cur_length: u32,
    /// Start of `half`'s `float` gamma sums (`gammaTempTensorPos`).
    pub gamma_temp_tensor_pos: u32,
    /// Start of `half`'s `float` beta sums (`betaTempTensorPos`).
    pub beta_temp_tensor_pos: u32,
    /// Start of `half`'s widened `inputDy` (`inputDyTmpTensorPos`).
    pub input_dy_tmp_tensor_pos: u32,
    /// Start of the products `inputDy * resForGamma` (`resForGammaTmpTensorPos`).
    pub res_for_gamma_tmp_tensor_pos: u32,
    /// Unused (`reserved`).
    pub reserved: u32,
}

// ---------------------------------------------------------------------------------------
// Host helpers
// ---------------------------------------------------------------------------------------

/// The temporary buffer's `(max, min)` bytes for [`layer_norm_grad`] on `[B, S, H, originH]`
/// (AscendC `GetLayerNormGradMaxMinTmpSize(srcShape, typeSize, isReuseSource, maxValue,
/// minValue)`), the vendor's numbers for Ascend910B and Ascend310P: `k * max(B*S*H, H*H) *
/// typeSize` and `k * min(B*S*H, H*H) * typeSize` with `k` 9 for `half`, 4 for `float` with
/// `is_reuse_source`, 6 otherwise. `half`'s are counted in 2-byte units although the
/// buffer holds `float`s, and the tiling rounds each round's rows up to a block: a buffer of
/// the minimum can be too small for the tiling's views ([`layer_norm_grad`] then fails, naming
/// the bytes it needs).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_layer_norm_grad_max_min_tmp_size(&[2, 32, 16, 16], 4, false), (24576, 6144));
/// assert_eq!(get_layer_norm_grad_max_min_tmp_size(&[2, 32, 16, 16], 2, false), (18432, 4608));
/// ```
///
/// # Panics
/// Panics if the shape does not have four dimensions or has no elements, or `type_size` is
/// neither 2 nor 4.
#[track_caller]
pub fn get_layer_norm_grad_max_min_tmp_size(
    src_shape: &[usize],
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let (b, s, h, _) = host_shape("GetLayerNormGradMaxMinTmpSize", src_shape, type_size);
    let input = b * s * h;
    let (max_base, min_base) = (input.max(h * h), input.min(h * h));
    let k = grad_buffers(type_size, is_reuse_source);
    (k * max_base * type_size, k * min_base * type_size)
}

/// The vendor's `needBufferBlock`: 9 views for `half`, 4 for `float` reusing the source, 6.
fn grad_buffers(type_size: usize, is_reuse_source: bool) -> usize {
    match (type_size, is_reuse_source) {
        (2, _) => 9,
        (_, true) => 4,
        _ => 6,
    }
}

/// `LayerNormGrad`'s tiling for `[B, S, H, originH]` with a temporary buffer of
/// `stack_buffer_size` bytes (AscendC `GetLayerNormGradNDTilingInfo(srcShape,
/// stackBufferSize, typeSize, isReuseSource, tiling)`), the vendor's numbers: `oneCalSize` the
/// buffer's `float`s divided by the views (9, 4 or 6, see
/// [`get_layer_norm_grad_max_min_tmp_size`]) rounded down to whole rows, then its rows
/// (`nohCalSize`) rounded *up* to a block (8 for `float`, 16 for `half`); the views one after
/// another from 0 in the vendor's order (`tmpTensorBSH`, `pdVar`, `pdMean`, then `x1`, `x2`
/// unless `float` reuses the source, `x3`, then for `half` `tmp`, `tmp1`, `tmp2`), each
/// `oneCalSize`.
///
/// ```
/// use ascend_core::prelude::*;
/// let t = get_layer_norm_grad_nd_tiling_info(&[2, 32, 16, 16], 6144, 4, false);
/// assert_eq!((t.one_cal_size, t.noh_cal_size, t.loop_num, t.tail_size), (256, 16, 4, 0));
/// assert_eq!((t.x1_tensor_pos, t.x3_tensor_pos), (768, 1280));
/// assert_eq!(f32::from_bits(t.last_dim_value_back_mul_two), 0.125);
/// ```
///
/// # Panics
/// Panics if the shape does not have four dimensions or has no elements, `type_size` is
/// neither 2 nor 4, or the buffer holds less than one row per view (`oneCalSize` would be 0:
/// the vendor's "stackBufferSize is not enough").
#[track_caller]
pub fn get_layer_norm_grad_nd_tiling_info(
    src_shape: &[usize],
    stack_buffer_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> LayerNormGradTiling {
    const API: &str = "GetLayerNormGradNDTilingInfo";
    let (b, s, h, oh) = host_shape(API, src_shape, type_size);
    let input = b * s * h;
    let bufs = grad_buffers(type_size, is_reuse_source);
    let one = stack_buffer_size / 4 / bufs / h * h;
    ensure(one > 0, API, || {
        format!(
            "stackBufferSize is not enough: {stack_buffer_size} bytes hold fewer than {bufs} rows of H = {h} floats \
             (oneCalSize would be 0)"
        )
    });
    let per_block = if type_size == 4 { 8 } else { 16 };
    let noh = (one / h).div_ceil(per_block) * per_block;
    let one = noh * h;
    let bsh_pos = 0;
    let pd_var = bsh_pos + one;
    let pd_mean = pd_var + one;
    let (mut x1, mut x2, mut x3) = (0, 0, pd_mean + one);
    if !(is_reuse_source && type_size == 4) {
        x1 = pd_mean + one;
        x2 = x1 + one;
        x3 = x2 + one;
    }
    let (mut tmp, mut tmp1, mut tmp2) = (0, 0, 0);
    if type_size == 2 {
        tmp = x3 + one;
        tmp1 = tmp + one;
        tmp2 = tmp1 + one;
    }
    let u = |v: usize| v as u32;
    LayerNormGradTiling {
        stack_buffer_size: u(stack_buffer_size),
        b_length: u(b),
        s_length: u(s),
        h_length: u(h),
        original_h_length: u(oh),
        one_cal_size: u(one),
        noh_cal_size: u(noh),
        loop_num: u(input / one),
        tail_size: u(input % one),
        noh_tail_size: u(input % one / h),
        tmp_tensor_bsh_pos: u(bsh_pos),
        tmp_tensor_bsh_size: u(one),
        pd_var_tensor_pos: u(pd_var),
        pd_var_tensor_size: u(one),
        pd_mean_tensor_pos: u(pd_mean),
        pd_mean_tensor_size: u(one),
        x1_tensor_pos: u(x1),
        x1_tensor_size: u(one),
        x2_tensor_pos: u(x2),
        x2_tensor_size: u(one),
        x3_tensor_pos: u(x3),
        x3_tensor_size: u(one),
        tmp_tensor_pos: u(tmp),
        tmp_tensor_size: u(one),
        tmp_tensor1_pos: u(tmp1),
        tmp_tensor1_size: u(one),
        tmp_tensor2_pos: u(tmp2),
        tmp_tensor2_size: u(one),
        last_dim_value_back: (1.0f32 / oh as f32).to_bits(),
        last_dim_value_back_mul_two: (2.0f32 / oh as f32).to_bits(),
    }
}

/// The temporary buffer's `(max, min)` bytes for [`layer_norm_grad_beta`] on `[B, S, H,
/// originH]` (AscendC `GetLayerNormGradBetaMaxMinTmpSize`): `k * B*S*H * 4` and `k * H * 4`
/// with `k` 4 for `half` and 2 for `float` (`is_reuse_source` is ignored, as by the vendor).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_layer_norm_grad_beta_max_min_tmp_size(&[2, 32, 16, 16], 4, false), (8192, 128));
/// assert_eq!(get_layer_norm_grad_beta_max_min_tmp_size(&[2, 32, 16, 16], 2, true), (16384, 256));
/// ```
///
/// # Panics
/// Panics if the shape does not have four dimensions or has no elements, or `type_size` is
/// neither 2 nor 4.
#[track_caller]
pub fn get_layer_norm_grad_beta_max_min_tmp_size(
    src_shape: &[usize],
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let _ = is_reuse_source;
    let (b, s, h, _) = host_shape("GetLayerNormGradBetaMaxMinTmpSize", src_shape, type_size);
    let k = if type_size == 2 { 4 } else { 2 };
    (k * b * s * h * 4, k * h * 4)
}

/// `LayerNormGradBeta`'s tiling for `[B, S, H, originH]` with a temporary buffer of
/// `stack_buffer_size` bytes (AscendC `GetLayerNormGradBetaNDTilingInfo`), the vendor's
/// numbers: `oneCalSize` the buffer's `float`s (for `half`, less the two `H`-sized sums, halved
/// for the two views) rounded down to whole rows, at most `B*S*H`; for `half` the gamma and
/// beta sums at 0 and `H`, the widened `inputDy` at `2H` and the products after it.
///
/// ```
/// use ascend_core::prelude::*;
/// let t = get_layer_norm_grad_beta_nd_tiling_info(&[2, 32, 16, 16], 6144, 4, false);
/// assert_eq!((t.stack_buffer_size, t.one_cal_size, t.loop_round, t.input_tail_size), (1536, 1024, 1, 0));
/// let t = get_layer_norm_grad_beta_nd_tiling_info(&[2, 32, 16, 16], 256, 2, false);
/// assert_eq!((t.one_cal_size, t.loop_round, t.res_for_gamma_tmp_tensor_pos), (16, 64, 48));
/// ```
///
/// # Panics
/// Panics if the shape does not have four dimensions or has no elements, `type_size` is
/// neither 2 nor 4, or the buffer holds fewer than `2 * H` `float`s or no whole row per view
/// (the vendor's "stackBufferSize is not enough").
#[track_caller]
pub fn get_layer_norm_grad_beta_nd_tiling_info(
    src_shape: &[usize],
    stack_buffer_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> LayerNormGradBetaTiling {
    const API: &str = "GetLayerNormGradBetaNDTilingInfo";
    let _ = is_reuse_source;
    let (b, s, h, oh) = host_shape(API, src_shape, type_size);
    let (bsh, bs) = (b * s * h, b * s);
    let floats = stack_buffer_size / 4;
    ensure(floats >= 2 * h, API, || {
        format!(
            "stackBufferSize is not enough: {stack_buffer_size} bytes hold {floats} floats, fewer than 2 * H = {}",
            2 * h
        )
    });
    let mut one = floats;
    let mut bufs = 1;
    if type_size == 2 {
        bufs = 2;
        one = (one - 2 * h) / bufs;
    }
    one = one / h * h;
    ensure(one != 0, API, || {
        format!(
            "stackBufferSize is not enough: {stack_buffer_size} bytes leave no whole row of H = {h} floats per view"
        )
    });
    let one = one.min(bsh);
    let tail = bsh % one;
    let (mut gamma, mut beta, mut dy, mut res) = (0, 0, 0, 0);
    if type_size == 2 {
        gamma = 0;
        beta = gamma + h;
        dy = beta + h;
        res = dy + one;
    }
    let u = |v: usize| v as u32;
    LayerNormGradBetaTiling {
        stack_buffer_size: u(floats),
        b_length: u(b),
        s_length: u(s),
        h_length: u(h),
        original_h_length: u(oh),
        bsh_length: u(bsh),
        bs_length: u(bs),
        one_cal_size: u(one),
        number_of_tmp_buf: u(bufs),
        loop_round: u(bsh / one),
        input_tail_size: u(tail),
        input_tail_pos: u(bsh - tail),
        bs_tail_size: u(tail / h),
        bsh_cur_length: u(one),
        bs_cur_length: u(one / h),
        gamma_temp_tensor_pos: u(gamma),
        beta_temp_tensor_pos: u(beta),
        input_dy_tmp_tensor_pos: u(dy),
        res_for_gamma_tmp_tensor_pos: u(res),
        reserved: 0,
    }
}

// ---------------------------------------------------------------------------------------
// LayerNormGrad: the steps (layernormgrad_common_impl.h)
// ---------------------------------------------------------------------------------------

/// The vendor's `LayerNormGradParams`: the views of the buffer (for `float`, `tmp` is the
/// round's `outputPdX`, and with `isReuseSource` `x1`/`x2` are `inputDy`/`inputX`).
struct GradViews {
    x1: LocalTensor<f32>,
    x2: LocalTensor<f32>,
    x3: LocalTensor<f32>,
    pd_var: LocalTensor<f32>,
    pd_mean: LocalTensor<f32>,
    tmp: LocalTensor<f32>,
    tmp1: LocalTensor<f32>,
    tmp2: LocalTensor<f32>,
    bsh: LocalTensor<f32>,
    h: usize,
    back: f32,
    back2: f32,
}

/// `DuplicateLastDimImpl`: after a V→S handshake, per group of 8 rows the scalar unit reads the
/// 8 values (`GetValue`), then one count-form `Duplicate` of `H` per row.
#[track_caller]
fn duplicate_last_dim(dst: &LocalTensor<f32>, src: &LocalTensor<f32>, bs: usize, h: usize) {
    handshake::<HardEvent::V_S>();
    let mut r = 0;
    while r < bs {
        let n = (bs - r).min(BRCB_BROADCAST_NUMBER);
        let vals: Vec<f32> = (0..n).map(|j| src.get_value(r + j)).collect();
        for (j, v) in vals.into_iter().enumerate() {
            duplicate(&dst.view((r + j) * h), v, h);
        }
        r += n;
    }
}

/// `BroadcastLastDimImpl` then `PipeBarrier<PIPE_V>` (`DuplicateTensor`): each of `bs` values
/// of `src` over a row of `H` of `dst`. Ascend910B (`__NPU_ARCH__` 2201, `BrcbLastDimImpl`):
/// `Brcb` with `dstBlkStride = H / 8` and `dstRepStride = H`, once per block column of the
/// rows, 255 repeats at a time, then the last `bs % 8` rows as Ascend310P does;
/// Ascend310P: [`duplicate_last_dim`].
#[track_caller]
fn broadcast_rows(dst: &LocalTensor<f32>, src: &LocalTensor<f32>, bs: usize, h: usize) {
    if get_soc() == Soc::Ascend910B {
        let max_rep_h = BRCB_MAX_REPEAT_SIZE * h;
        let line_round = h / BRCB_BROADCAST_NUMBER;
        let (row_round, row_tail) = (bs / BRCB_BROADCAST_NUMBER, bs % BRCB_BROADCAST_NUMBER);
        let (repeats, tail_times) = (row_round / MAX_REPEAT_TIMES, row_round % MAX_REPEAT_TIMES);
        // `uint16_t` strides, as the vendor's `BrcbRepeatParams`.
        let p = BrcbRepeatParams::new(line_round as u16, h as u16);
        for i in 0..line_round {
            for j in 0..repeats {
                let d = dst.view(i * BRCB_BROADCAST_NUMBER + j * max_rep_h);
                brcb(&d, &src.view(j * BRCB_MAX_REPEAT_SIZE), MAX_REPEAT_TIMES as u8, &p);
            }
            if tail_times > 0 {
                let d = dst.view(i * BRCB_BROADCAST_NUMBER + repeats * max_rep_h);
                brcb(&d, &src.view(repeats * BRCB_MAX_REPEAT_SIZE), tail_times as u8, &p);
            }
            pipe_barrier::<PIPE_V>();
        }
        if row_tail != 0 {
            let done = bs - row_tail;
            duplicate_last_dim(&dst.view(done * h), &src.view(done), row_tail, h);
            pipe_barrier::<PIPE_V>();
        }
    } else {
        duplicate_last_dim(dst, src, bs, h);
    }
    pipe_barrier::<PIPE_V>();
}

/// `ReduceSumImpl`: each of the `cal / H` rows of `src` summed into `dst[row]` in normal mode —
/// `WholeReduceSum` of its 64-element chunks (255 repeats at a time) into `dst[row * H + k]`,
/// the partial last chunk with a mask of its length, then again over those partial sums (in
/// `dst`) until one is left.
#[track_caller]
fn reduce_rows(dst: &LocalTensor<f32>, src: &LocalTensor<f32>, cal: usize, h: usize) {
    for i in 0..cal / h {
        let ih = i * h;
        let mut total = h;
        let mut s = src.clone();
        while total > 1 {
            let repeats = total / ONE_REPEAT_FLOAT_SIZE;
            let tail = total % ONE_REPEAT_FLOAT_SIZE;
            let (blocks, block_tail) = (repeats / MAX_REPEAT_TIMES, repeats % MAX_REPEAT_TIMES);
            for j in 0..blocks {
                whole_reduce_sum::<f32, true>(
                    &dst.view(ih + j * MAX_REPEAT_TIMES),
                    &s.view(ih + j * MAX_REPEAT_TIMES * ONE_REPEAT_FLOAT_SIZE),
                    ONE_REPEAT_FLOAT_SIZE as u64,
                    MAX_REPEAT_TIMES as u8,
                    1,
                    1,
                    8,
                );
            }
            pipe_barrier::<PIPE_V>();
            if block_tail > 0 {
                let d = if total == ONE_REPEAT_FLOAT_SIZE {
                    dst.view(i)
                } else {
                    dst.view(ih + blocks * MAX_REPEAT_TIMES)
                };
                let src_at = s.view(ih + blocks * MAX_REPEAT_TIMES * ONE_REPEAT_FLOAT_SIZE);
                whole_reduce_sum::<f32, true>(
                    &d,
                    &src_at,
                    ONE_REPEAT_FLOAT_SIZE as u64,
                    block_tail as u8,
                    1,
                    1,
                    8,
                );
                pipe_barrier::<PIPE_V>();
            }
            if tail > 0 {
                let d = if total < ONE_REPEAT_FLOAT_SIZE { dst.view(i) } else { dst.view(ih + repeats) };
                let src_at = s.view(ih + repeats * ONE_REPEAT_FLOAT_SIZE);
                whole_reduce_sum::<f32, true>(&d, &src_at, tail as u64, 1, 1, 1, 8);
                pipe_barrier::<PIPE_V>();
            }
            total = total.div_ceil(ONE_REPEAT_FLOAT_SIZE);
            s = dst.clone();
        }
    }
}

/// `DoOneDiv`: in counter mode a block of ones (`Duplicate`), then `dst = 1 / src` over `n`
/// elements (`Div` with `src0`'s strides 0); back to normal mode.
#[track_caller]
fn one_div(dst: &LocalTensor<f32>, ones: &LocalTensor<f32>, src: &LocalTensor<f32>, n: usize) {
    set_mask_count();
    count_mask::<f32>(8);
    duplicate_masked::<f32, false>(ones, 1.0, MASK_PLACEHOLDER, 1, 1, 8);
    pipe_barrier::<PIPE_V>();
    count_mask::<f32>(n);
    div_masked::<f32, false>(dst, ones, src, MASK_PLACEHOLDER, 1, &BinaryRepeatParams::new(1, 0, 1, 8, 0, 8));
    pipe_barrier::<PIPE_V>();
    set_mask_norm();
}

/// `ComputePdX1`: `x1 = dy * gamma`, row by row (`Mul` of `H` per row).
#[track_caller]
fn pd_x1(v: &GradViews, dy: &LocalTensor<f32>, gamma: &LocalTensor<f32>, noh: usize) {
    let h = v.h;
    for i in 0..noh {
        mul(&v.x1.view(i * h), &dy.view(i * h), gamma, h);
    }
    pipe_barrier::<PIPE_V>();
}

/// `ComputePdX2`: the means broadcast over the rows, `x2 = x - mean`.
#[track_caller]
fn pd_x2(v: &GradViews, x: &LocalTensor<f32>, mean: &LocalTensor<f32>, cal: usize, noh: usize) {
    broadcast_rows(&v.bsh, mean, noh, v.h);
    pipe_barrier::<PIPE_V>();
    sub(&v.x2, x, &v.bsh, cal);
    pipe_barrier::<PIPE_V>();
}

/// `ComputePdX`: `pd_x = x3 + pd_var * (2 / originH) * x2 + pd_mean / originH` into `out`.
#[track_caller]
fn grad_pd_x(v: &GradViews, out: &LocalTensor<f32>, cal: usize, noh: usize) {
    let h = v.h;
    muls(&v.pd_var, &v.pd_var, v.back2, noh);
    pipe_barrier::<PIPE_V>();
    broadcast_rows(&v.bsh, &v.pd_var, noh, h);
    pipe_barrier::<PIPE_V>();
    mul(&v.x1, &v.bsh, &v.x2, cal);
    pipe_barrier::<PIPE_V>();
    muls(&v.pd_mean, &v.pd_mean, v.back, noh);
    pipe_barrier::<PIPE_V>();
    broadcast_rows(&v.bsh, &v.pd_mean, noh, h);
    add(&v.x1, &v.x1, &v.bsh, cal);
    pipe_barrier::<PIPE_V>();
    add(out, &v.x1, &v.x3, cal);
    pipe_barrier::<PIPE_V>();
}

/// The `float`s of the buffer one call of [`layer_norm_grad`] touches: the last view's start
/// plus the elements of its largest round.
fn grad_used_floats(t: &LayerNormGradTiling, half: bool, reuse: bool) -> usize {
    let round = if t.loop_num > 0 { t.one_cal_size } else { t.tail_size } as usize;
    let mut last = [t.tmp_tensor_bsh_pos, t.pd_var_tensor_pos, t.pd_mean_tensor_pos, t.x3_tensor_pos]
        .into_iter()
        .max()
        .unwrap_or(0);
    if !reuse || half {
        last = last.max(t.x1_tensor_pos).max(t.x2_tensor_pos);
    }
    if half {
        last = last.max(t.tmp_tensor_pos).max(t.tmp_tensor1_pos).max(t.tmp_tensor2_pos);
    }
    last as usize + round
}

/// `LayerNormGrad`'s checks (see [`layer_norm_grad`]'s Panics).
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn check_grad<T: LayerNormElement, const REUSE: bool>(
    pd_x: &LocalTensor<T>,
    res_for_gamma: &LocalTensor<T>,
    dy: &LocalTensor<T>,
    x: &LocalTensor<T>,
    variance: &LocalTensor<T>,
    mean: &LocalTensor<T>,
    gamma: &LocalTensor<T>,
    tmp: &LocalTensor<u8>,
    t: &LayerNormGradTiling,
) {
    let api = LAYER_NORM_GRAD;
    check_documented_chip(api, &V220_V200, LISTED);
    let named = [
        ("outputPdX", pd_x.get_position()),
        ("resForGamma", res_for_gamma.get_position()),
        ("inputDy", dy.get_position()),
        ("inputX", x.get_position()),
        ("inputVariance", variance.get_position()),
        ("inputMean", mean.get_position()),
        ("inputGamma", gamma.get_position()),
        ("sharedTmpBuffer", tmp.get_position()),
    ];
    for (name, pos) in named {
        ensure(pos.is_ub(), api, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
    }
    let (h, one, noh) = (t.h_length as usize, t.one_cal_size as usize, t.noh_cal_size as usize);
    ensure(one > 0 && h > 0, api, || {
        format!("tiling.oneCalSize = {one}, hLength = {h}: the tiling is unset; get it from GetLayerNormGradNDTilingInfo")
    });
    let total = (t.b_length as usize).saturating_mul(t.s_length as usize).saturating_mul(t.h_length as usize);
    let rows = t.b_length as usize * t.s_length as usize;
    let consistent = t.original_h_length > 0
        && one == noh * h
        && t.loop_num as usize * one + t.tail_size as usize == total
        && t.noh_tail_size as usize * h == t.tail_size as usize;
    ensure(consistent, api, || {
        format!(
            "the tiling is inconsistent ({t:?}): it needs oneCalSize = nohCalSize * hLength, loopNum * oneCalSize + \
             tailSize = bLength * sLength * hLength and nohTailSize * hLength = tailSize; get it from \
             GetLayerNormGradNDTilingInfo"
        )
    });
    ensure(h * T::SIZE % 32 == 0, api, || {
        format!(
            "tiling.hLength = {h} {} elements is not 32-byte aligned: H must be a multiple of {}",
            T::DTYPE,
            32 / T::SIZE
        )
    });
    ensure(tmp.get_size() >= t.stack_buffer_size as usize, api, || {
        format!(
            "sharedTmpBuffer has {} bytes, fewer than the tiling's stackBufferSize = {} (the vendor's \"Stack buffer \
             size not enough\")",
            tmp.get_size(),
            t.stack_buffer_size
        )
    });
    let half = T::DTYPE == DType::F16;
    let used = grad_used_floats(t, half, REUSE);
    ensure(used * 4 <= tmp.get_size(), api, || {
        format!(
            "the tiling's views reach float {used} ({} bytes) of sharedTmpBuffer, which has {} bytes: \
             GetLayerNormGradNDTilingInfo rounds nohCalSize up to a block after fitting the buffer, so the chip \
             would write past it; give a larger buffer (e.g. GetLayerNormGradMaxMinTmpSize's maximum) or make the \
             tiling for the bytes it needs",
            used * 4,
            tmp.get_size()
        )
    });
    for (name, n) in [
        ("outputPdX", pd_x.get_size()),
        ("resForGamma", res_for_gamma.get_size()),
        ("inputDy", dy.get_size()),
        ("inputX", x.get_size()),
    ] {
        ensure(n >= total, api, || {
            format!("{name} has {n} {} elements, fewer than B * S * H = {total}", T::DTYPE)
        });
    }
    for (name, n) in [("inputVariance", variance.get_size()), ("inputMean", mean.get_size())] {
        ensure(n >= rows, api, || format!("{name} has {n} {} elements, fewer than B * S = {rows}", T::DTYPE));
    }
    ensure(gamma.get_size() >= h, api, || {
        format!("inputGamma has {} {} elements, fewer than H = {h}", gamma.get_size(), T::DTYPE)
    });
    let tw: Span = ("sharedTmpBuffer", tmp.get_phy_addr(), tmp.get_phy_addr() + 4 * used);
    let spans = [
        span("outputPdX", pd_x, total),
        span("resForGamma", res_for_gamma, total),
        span("inputDy", dy, total),
        span("inputX", x, total),
        span("inputVariance", variance, rows),
        span("inputMean", mean, rows),
        span("inputGamma", gamma, h),
    ];
    check_apart(api, &spans.map(|s| (tw, s)));
}

/// The backward pass of LayerNorm (AscendC `LayerNormGrad<T, isReuseSource>(outputPdX,
/// resForGamma, inputDy, inputX, inputVariance, inputMean, inputGamma, sharedTmpBuffer,
/// epsilon, tiling)`, format ND): for each row of `[B, S, H]` (shape in `tiling`), with `rstd =
/// (variance + epsilon)^-0.5`, `x1 = dy * gamma` and `x2 = x - mean`:
/// `pd_var = Σ -0.5 * x1 * x2 * rstd³`, `pd_mean = Σ -x1 * rstd + pd_var / originH * Σ -2 *
/// x2`, `outputPdX = x1 * rstd + pd_var * 2 / originH * x2 + pd_mean / originH` and
/// `resForGamma = x2 * rstd` (the input of [`layer_norm_grad_beta`]).
///
/// As the vendor's implementation, per round of `nohCalSize` rows and the tail, in `float`
/// (`half` widened with `Cast`, the results narrowed with `CAST_NONE`): `Mul` of each row by
/// `gamma`; the mean broadcast over the rows (Ascend910B `Brcb`, Ascend310P a scalar read and
/// a `Duplicate` per row) and `Sub`; `Adds` of `epsilon`, `Mul`, `Mul`, `Sqrt` and `Div` into a
/// block of ones (`rstd³` as `1 / sqrt(t * t * t)`), broadcast, `Mul` by `x2`, by `x1`, `Muls`
/// by -0.5 and the row sums (`WholeReduceSum` of the 64-element chunks, then of the partial
/// sums); `rstd` as `1 / sqrt(t)`, broadcast, `resForGamma`, `x3 = x1 * rstd`, `Muls` by -1
/// and its sums, `Muls` of `x2` by -2 and its sums, `Muls` by `1 / originH`, `Mul` by
/// `pd_var`, `Add`; then `pd_var * (2 / originH)` and `pd_mean * (1 / originH)` broadcast and
/// added: `(pd_var' * x2 + pd_mean') + x3` — each step followed by `PipeBarrier<PIPE_V>`.
/// It leaves normal mode.
///
/// Scratch layout: the tiling's views of `oneCalSize` `float`s at their positions; for `float`
/// the round's `outputPdX` serves as the vendor's `tmpTensor`, and with `IS_REUSE_SOURCE`
/// `inputDy` and `inputX` are `x1` and `x2` (overwritten). Sources and destinations may share
/// memory (the page allows it).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 7 * 64);
/// let (max, _) = get_layer_norm_grad_max_min_tmp_size(&[1, 2, 8, 8], 4, false);
/// pipe.init_tbuf(&mut tmp, max);
/// let mut tiling = get_layer_norm_grad_nd_tiling_info(&[1, 2, 8, 8], max, 4, false);
/// let t = |i: usize, n: usize| q.get_with_offset::<f32>(n, i * 64);
/// let (pd_x, res, dy, x, var, mean, g) = (t(0, 16), t(1, 16), t(2, 16), t(3, 16), t(4, 2), t(5, 2), t(6, 8));
/// x.copy_from_slice(&[1.0, 3.0, 1.0, 3.0, 1.0, 3.0, 1.0, 3.0, 1.0, 3.0, 1.0, 3.0, 1.0, 3.0, 1.0, 3.0]);
/// dy.copy_from_slice(&[1.0; 16]);
/// g.copy_from_slice(&[1.0; 8]);
/// mean.copy_from_slice(&[2.0, 2.0]);
/// var.copy_from_slice(&[1.0, 1.0]);
/// layer_norm_grad::<_, false>(&pd_x, &res, &dy, &x, &var, &mean, &g, &tmp.get::<u8>(), 0.0, &mut tiling);
/// assert_eq!(res.to_vec()[..2], [-1.0, 1.0]);
/// assert!(pd_x.to_vec().iter().all(|&v| v == 0.0));
/// ```
///
/// # Panics
/// Panics if the chip is not one the page lists (Ascend910B, Ascend310P); a tensor is not in
/// the Unified Buffer; the tiling is unset (`oneCalSize` or `hLength` 0) or inconsistent;
/// `hLength` elements are not 32-byte aligned; `shared_tmp_buffer` holds fewer bytes than the
/// tiling's `stackBufferSize`, or fewer than its views reach (see
/// [`get_layer_norm_grad_max_min_tmp_size`]); a `[B, S, H]` tensor holds fewer than B * S * H
/// elements, the variance or mean fewer than B * S, `gamma` fewer than H; the scratch used
/// overlaps a tensor; or any instruction's own check fails.
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn layer_norm_grad<T: LayerNormElement, const IS_REUSE_SOURCE: bool>(
    output_pd_x: &LocalTensor<T>,
    res_for_gamma: &LocalTensor<T>,
    input_dy: &LocalTensor<T>,
    input_x: &LocalTensor<T>,
    input_variance: &LocalTensor<T>,
    input_mean: &LocalTensor<T>,
    input_gamma: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    epsilon: T,
    tiling: &mut LayerNormGradTiling,
) {
    check_grad::<T, IS_REUSE_SOURCE>(
        output_pd_x,
        res_for_gamma,
        input_dy,
        input_x,
        input_variance,
        input_mean,
        input_gamma,
        shared_tmp_buffer,
        tiling,
    );
    let t = *tiling;
    let half = T::DTYPE == DType::F16;
    let stack = shared_tmp_buffer.reinterpret_cast::<f32>();
    let at = |p: u32| stack.view(p as usize);
    let h = t.h_length as usize;
    let mut v = GradViews {
        x1: at(t.x1_tensor_pos),
        x2: at(t.x2_tensor_pos),
        x3: at(t.x3_tensor_pos),
        pd_var: at(t.pd_var_tensor_pos),
        pd_mean: at(t.pd_mean_tensor_pos),
        tmp: at(t.tmp_tensor_pos),
        tmp1: at(t.tmp_tensor1_pos),
        tmp2: at(t.tmp_tensor2_pos),
        bsh: at(t.tmp_tensor_bsh_pos),
        h,
        back: f32::from_bits(t.last_dim_value_back),
        back2: f32::from_bits(t.last_dim_value_back_mul_two),
    };
    let eps = epsilon.to_f64() as f32;
    let rounds = (0..t.loop_num as usize)
        .map(|_| (t.one_cal_size as usize, t.noh_cal_size as usize))
        .chain((t.tail_size != 0).then_some((t.tail_size as usize, t.noh_tail_size as usize)));
    let (mut o0, mut o1) = (0, 0);
    for (cal, noh) in rounds {
        if half {
            let f = |l: &LocalTensor<T>, o: usize| l.view(o).reinterpret_cast::<f16>();
            cast(&v.tmp1, &f(input_dy, o0), RoundMode::CastNone, cal);
            cast(&v.tmp2, &f(input_gamma, 0), RoundMode::CastNone, h);
            pipe_barrier::<PIPE_V>();
            pd_x1(&v, &v.tmp1, &v.tmp2, noh);
            cast(&v.tmp1, &f(input_x, o0), RoundMode::CastNone, cal);
            cast(&v.tmp2, &f(input_mean, o1), RoundMode::CastNone, noh);
            pipe_barrier::<PIPE_V>();
            pd_x2(&v, &v.tmp1, &v.tmp2, cal, noh);
            cast(&v.tmp1, &f(input_variance, o1), RoundMode::CastNone, noh);
            pipe_barrier::<PIPE_V>();
            grad_var_mean(&v, &v.tmp1, &v.tmp2, eps, cal, noh);
            grad_pd_x(&v, &v.tmp, cal, noh);
            cast(&output_pd_x.view(o0).reinterpret_cast::<f16>(), &v.tmp, RoundMode::CastNone, cal);
            cast(&res_for_gamma.view(o0).reinterpret_cast::<f16>(), &v.tmp2, RoundMode::CastNone, cal);
            pipe_barrier::<PIPE_V>();
        } else {
            let f = |l: &LocalTensor<T>, o: usize| l.view(o).reinterpret_cast::<f32>();
            let (dy, x, out) = (f(input_dy, o0), f(input_x, o0), f(output_pd_x, o0));
            // GetTmpTensor.
            v.tmp = out.clone();
            if IS_REUSE_SOURCE {
                v.x1 = dy.clone();
                v.x2 = x.clone();
            }
            pd_x1(&v, &dy, &f(input_gamma, 0), noh);
            pd_x2(&v, &x, &f(input_mean, o1), cal, noh);
            grad_var_mean(&v, &f(input_variance, o1), &f(res_for_gamma, o0), eps, cal, noh);
            pipe_barrier::<PIPE_V>();
            grad_pd_x(&v, &out, cal, noh);
        }
        o0 += cal;
        o1 += noh;
    }
}

/// `ComputePdVar` (`pd_var = Σ -0.5 * x1 * x2 * rstd³`) and `ComputePdMean` (`pd_mean = Σ -x1 *
/// rstd + pd_var / originH * Σ -2 * x2`, with `resForGamma = x2 * rstd` and `x3 = x1 * rstd`).
#[track_caller]
fn grad_var_mean(
    v: &GradViews,
    variance: &LocalTensor<f32>,
    res_for_gamma: &LocalTensor<f32>,
    epsilon: f32,
    cal: usize,
    noh: usize,
) {
    let h = v.h;
    adds(&v.tmp, variance, epsilon, noh);
    pipe_barrier::<PIPE_V>();
    mul(&v.bsh, &v.tmp, &v.tmp, noh);
    pipe_barrier::<PIPE_V>();
    mul(&v.tmp, &v.bsh, &v.tmp, noh);
    pipe_barrier::<PIPE_V>();
    sqrt(&v.tmp, &v.tmp, noh);
    pipe_barrier::<PIPE_V>();
    one_div(&v.tmp, &v.bsh, &v.tmp, noh);
    broadcast_rows(&v.bsh, &v.tmp, noh, h);
    pipe_barrier::<PIPE_V>();
    mul(&v.bsh, &v.x2, &v.bsh, cal);
    pipe_barrier::<PIPE_V>();
    mul(&v.bsh, &v.x1, &v.bsh, cal);
    pipe_barrier::<PIPE_V>();
    muls(&v.bsh, &v.bsh, -0.5, cal);
    pipe_barrier::<PIPE_V>();
    reduce_rows(&v.pd_var, &v.bsh, cal, h);
    pipe_barrier::<PIPE_V>();
    adds(&v.tmp, variance, epsilon, noh);
    pipe_barrier::<PIPE_V>();
    sqrt(&v.tmp, &v.tmp, noh);
    pipe_barrier::<PIPE_V>();
    one_div(&v.tmp, &v.bsh, &v.tmp, noh);
    broadcast_rows(&v.bsh, &v.tmp, noh, h);
    pipe_barrier::<PIPE_V>();
    mul(res_for_gamma, &v.x2, &v.bsh, cal);
    pipe_barrier::<PIPE_V>();
    mul(&v.x3, &v.x1, &v.bsh, cal);
    pipe_barrier::<PIPE_V>();
    muls(&v.bsh, &v.x3, -1.0, cal);
    pipe_barrier::<PIPE_V>();
    reduce_rows(&v.pd_mean, &v.bsh, cal, h);
    muls(&v.bsh, &v.x2, -2.0, cal);
    pipe_barrier::<PIPE_V>();
    reduce_rows(&v.tmp, &v.bsh, cal, h);
    pipe_barrier::<PIPE_V>();
    muls(&v.tmp, &v.tmp, v.back, noh);
    pipe_barrier::<PIPE_V>();
    mul(&v.tmp, &v.pd_var, &v.tmp, noh);
    pipe_barrier::<PIPE_V>();
    add(&v.pd_mean, &v.pd_mean, &v.tmp, noh);
    pipe_barrier::<PIPE_V>();
}

/// [`layer_norm_grad`] with the stack buffer (AscendC `LayerNormGrad<T, isReuseSource>(…,
/// epsilon, tiling)` without `sharedTmpBuffer`: `PopStackBuffer`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 7 * 64);
/// let (max, _) = get_layer_norm_grad_max_min_tmp_size(&[1, 2, 8, 8], 4, false);
/// let mut tiling = get_layer_norm_grad_nd_tiling_info(&[1, 2, 8, 8], max, 4, false);
/// let t = |i: usize, n: usize| q.get_with_offset::<f32>(n, i * 64);
/// let (pd_x, res, dy, x, var, mean, g) = (t(0, 16), t(1, 16), t(2, 16), t(3, 16), t(4, 2), t(5, 2), t(6, 8));
/// x.copy_from_slice(&[2.0; 16]);
/// (dy.copy_from_slice(&[1.0; 16]), g.copy_from_slice(&[1.0; 8]));
/// (mean.copy_from_slice(&[2.0; 2]), var.copy_from_slice(&[0.0; 2]));
/// layer_norm_grad_stack::<_, false>(&pd_x, &res, &dy, &x, &var, &mean, &g, 1.0, &mut tiling);
/// assert!(res.to_vec().iter().all(|&v| v == 0.0));
/// ```
///
/// # Panics
/// As [`layer_norm_grad`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn layer_norm_grad_stack<T: LayerNormElement, const IS_REUSE_SOURCE: bool>(
    output_pd_x: &LocalTensor<T>,
    res_for_gamma: &LocalTensor<T>,
    input_dy: &LocalTensor<T>,
    input_x: &LocalTensor<T>,
    input_variance: &LocalTensor<T>,
    input_mean: &LocalTensor<T>,
    input_gamma: &LocalTensor<T>,
    epsilon: T,
    tiling: &mut LayerNormGradTiling,
) {
    let stack = stack_tensor(LAYER_NORM_GRAD);
    layer_norm_grad::<T, IS_REUSE_SOURCE>(
        output_pd_x,
        res_for_gamma,
        input_dy,
        input_x,
        input_variance,
        input_mean,
        input_gamma,
        &stack,
        epsilon,
        tiling,
    );
}

// ---------------------------------------------------------------------------------------
// LayerNormGradBeta (layernormgradbeta_common_impl.h)
// ---------------------------------------------------------------------------------------

/// `ReduceSumFirstN<isClearDst>`: under a count mask of `h`, `dst = src[0] + 0` (`Adds`) when
/// `clear`, then `dst = src[i * h] + dst` (`Add`) for each further row.
#[track_caller]
fn sum_first_n(dst: &LocalTensor<f32>, src: &LocalTensor<f32>, bs: usize, h: usize, clear: bool) {
    count_mask::<f32>(h);
    let mut start = 0;
    if clear {
        steps::adds(dst, src, 0.0);
        start = 1;
    }
    for i in start..bs {
        steps::add(dst, &src.view(i * h), dst);
    }
}

/// `ComputeProcess<isClearDst>` for `float`: `res = inputDy * resForGamma` over `bsh`, then the
/// row sums of `res` into `pd_gamma` and of `inputDy` into `pd_beta`.
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn beta_round(
    res_for_gamma: &LocalTensor<f32>,
    dy: &LocalTensor<f32>,
    pd_gamma: &LocalTensor<f32>,
    pd_beta: &LocalTensor<f32>,
    res_tmp: &LocalTensor<f32>,
    (bsh, bs, h): (usize, usize, usize),
    clear: bool,
) {
    count_mask::<f32>(bsh);
    steps::mul(res_tmp, dy, res_for_gamma);
    sum_first_n(pd_gamma, res_tmp, bs, h, clear);
    sum_first_n(pd_beta, dy, bs, h, clear);
}

/// `LayerNormGradBeta`'s checks (see [`layer_norm_grad_beta`]'s Panics).
#[track_caller]
fn check_beta<T: LayerNormElement, const REUSE: bool>(
    pd_gamma: &LocalTensor<T>,
    pd_beta: &LocalTensor<T>,
    res_for_gamma: &LocalTensor<T>,
    dy: &LocalTensor<T>,
    tmp: &LocalTensor<u8>,
    t: &LayerNormGradBetaTiling,
) -> usize {
    let api = LAYER_NORM_GRAD_BETA;
    check_documented_chip(api, &V220_V200, LISTED);
    let named = [
        ("outputPdGamma", pd_gamma.get_position()),
        ("outputPdBeta", pd_beta.get_position()),
        ("resForGamma", res_for_gamma.get_position()),
        ("inputDy", dy.get_position()),
        ("sharedTmpBuffer", tmp.get_position()),
    ];
    for (name, pos) in named {
        ensure(pos.is_ub(), api, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
    }
    let (one, h, oh) = (t.one_cal_size as usize, t.h_length as usize, t.original_h_length as usize);
    ensure(one > 0, api, || {
        "tiling.oneCalSize must > 0 (the vendor's check): the tiling is unset; get it from \
         GetLayerNormGradBetaNDTilingInfo"
            .to_string()
    });
    let bsh = t.bsh_length as usize;
    let consistent = h > 0
        && oh > 0
        && bsh
            == (t.b_length as usize).saturating_mul(t.s_length as usize).saturating_mul(t.h_length as usize)
        && t.bsh_cur_length as usize == one
        && t.bs_cur_length as usize * h == one
        && t.loop_round as usize * one + t.input_tail_size as usize == bsh
        && t.input_tail_pos as usize + t.input_tail_size as usize == bsh
        && t.bs_tail_size as usize * h == t.input_tail_size as usize;
    ensure(consistent, api, || {
        format!(
            "the tiling is inconsistent ({t:?}): it needs bshCurLength = oneCalSize = bsCurLength * hLength, \
             loopRound * oneCalSize + inputTailSize = bshLength = bLength * sLength * hLength, inputTailPos + \
             inputTailSize = bshLength and bsTailSize * hLength = inputTailSize; get it from \
             GetLayerNormGradBetaNDTilingInfo"
        )
    });
    ensure(h * T::SIZE % 32 == 0, api, || {
        format!(
            "tiling.hLength = {h} {} elements is not 32-byte aligned: H must be a multiple of {}",
            T::DTYPE,
            32 / T::SIZE
        )
    });
    let rows = (t.bs_cur_length as usize).max(t.bs_tail_size as usize);
    ensure(oh % 8 == 0 || rows <= 1, api, || {
        format!(
            "tiling.originalHLength = {oh} is not a multiple of 8 floats, and a round sums {rows} rows: the vendor \
             sums rows originalHLength apart (its hCurLength), so row 1 would start at a float offset of {oh}, not \
             32-byte aligned for Add"
        )
    });
    let half = T::DTYPE == DType::F16;
    let used = if half {
        (t.res_for_gamma_tmp_tensor_pos as usize + one)
            .max(t.input_dy_tmp_tensor_pos as usize + one)
            .max(t.gamma_temp_tensor_pos as usize + oh)
            .max(t.beta_temp_tensor_pos as usize + oh)
    } else if REUSE {
        0
    } else {
        t.res_for_gamma_tmp_tensor_pos as usize + one
    };
    let sbs = t.stack_buffer_size as usize;
    ensure(used <= sbs, api, || {
        format!(
            "resForGammaTmpTensorPos + oneCalSize is ({used}) should <= stackBufferSize is ({sbs}) (the vendor's \
             check): the tiling's views end beyond its buffer"
        )
    });
    ensure(tmp.get_size() / 4 >= sbs, api, || {
        format!(
            "sharedTmpBuffer has {} floats ({} bytes), fewer than the tiling's stackBufferSize = {sbs} floats",
            tmp.get_size() / 4,
            tmp.get_size()
        )
    });
    for (name, n) in [("resForGamma", res_for_gamma.get_size()), ("inputDy", dy.get_size())] {
        ensure(n >= bsh, api, || {
            format!("{name} has {n} {} elements, fewer than B * S * H = {bsh}", T::DTYPE)
        });
    }
    for (name, n) in [("outputPdGamma", pd_gamma.get_size()), ("outputPdBeta", pd_beta.get_size())] {
        ensure(n >= oh, api, || {
            format!("{name} has {n} {} elements, fewer than the originH = {oh} it writes", T::DTYPE)
        });
    }
    let tw: Span = ("sharedTmpBuffer", tmp.get_phy_addr(), tmp.get_phy_addr() + 4 * used);
    let (g, b) = (span("outputPdGamma", pd_gamma, oh), span("outputPdBeta", pd_beta, oh));
    let (r, d) = (span("resForGamma", res_for_gamma, bsh), span("inputDy", dy, bsh));
    check_apart(api, &[(tw, g), (tw, b), (tw, r), (tw, d)]);
    used
}

/// The gradients of LayerNorm's `gamma` and `beta` (AscendC `LayerNormGradBeta<T,
/// isReuseSource>(outputPdGamma, outputPdBeta, resForGamma, inputDy, sharedTmpBuffer,
/// tiling)`): `outputPdGamma = Σ_rows inputDy * resForGamma` and `outputPdBeta = Σ_rows
/// inputDy`, over the `B * S` rows (shape in `tiling`; `resForGamma` from
/// [`layer_norm_grad`]).
///
/// As the vendor's implementation, in counter mode, per round of `oneCalSize` elements and the
/// tail: `half` widened into the buffer (`Cast`, `CAST_NONE`); `Mul`; then for each of the two
/// sums the rows added in order into the output under a count mask of `originHLength`, the
/// first round starting with `Adds` of 0, rows `originHLength` apart (the vendor's
/// `hCurLength`: with padded rows the sums read across rows, as on the chip); for `half` the
/// `float` sums narrowed into the outputs (`CAST_NONE`) after every round. Each step is
/// followed by `PipeBarrier<PIPE_V>`; it leaves normal mode and a reset mask. With
/// `IS_REUSE_SOURCE` for `float` the products overwrite `res_for_gamma` and no buffer is used.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 4 * 128);
/// let (max, _) = get_layer_norm_grad_beta_max_min_tmp_size(&[1, 3, 8, 8], 4, false);
/// pipe.init_tbuf(&mut tmp, max);
/// let tiling = get_layer_norm_grad_beta_nd_tiling_info(&[1, 3, 8, 8], max, 4, false);
/// let t = |i: usize, n: usize| q.get_with_offset::<f32>(n, i * 128);
/// let (pd_g, pd_b, res, dy) = (t(0, 8), t(1, 8), t(2, 24), t(3, 24));
/// res.copy_from_slice(&[2.0; 24]);
/// dy.copy_from_slice(&(0..24).map(|i| i as f32).collect::<Vec<_>>());
/// layer_norm_grad_beta::<_, false>(&pd_g, &pd_b, &res, &dy, &tmp.get::<u8>(), &tiling);
/// assert_eq!(pd_b.to_vec()[..2], [24.0, 27.0]);
/// assert_eq!(pd_g.to_vec()[..2], [48.0, 54.0]);
/// ```
///
/// # Panics
/// Panics if the chip is not one the page lists (Ascend910B, Ascend310P); a tensor is not in
/// the Unified Buffer; the tiling is unset (`oneCalSize` 0, the vendor's check) or
/// inconsistent; `hLength` elements are not 32-byte aligned, or `originalHLength` is not a
/// multiple of 8 while a round sums several rows (the rows it reads would start unaligned); the
/// tiling's views end beyond its
/// `stackBufferSize` (the vendor's check) or `shared_tmp_buffer` holds fewer `float`s than it;
/// `res_for_gamma` or `input_dy` hold fewer than B * S * H elements, an output fewer than
/// `originHLength`; the scratch used overlaps a tensor; or an instruction's own check fails.
#[track_caller]
pub fn layer_norm_grad_beta<T: LayerNormElement, const IS_REUSE_SOURCE: bool>(
    output_pd_gamma: &LocalTensor<T>,
    output_pd_beta: &LocalTensor<T>,
    res_for_gamma: &LocalTensor<T>,
    input_dy: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    tiling: &LayerNormGradBetaTiling,
) {
    check_beta::<T, IS_REUSE_SOURCE>(
        output_pd_gamma,
        output_pd_beta,
        res_for_gamma,
        input_dy,
        shared_tmp_buffer,
        tiling,
    );
    let t = *tiling;
    let half = T::DTYPE == DType::F16;
    let stack = shared_tmp_buffer.reinterpret_cast::<f32>();
    let at = |p: u32| stack.view(p as usize);
    let (one, oh) = (t.one_cal_size as usize, t.original_h_length as usize);
    let rounds = (0..t.loop_round as usize)
        .map(|i| (i * one, t.bsh_cur_length as usize, t.bs_cur_length as usize))
        .chain((t.input_tail_size > 0).then_some((
            t.input_tail_pos as usize,
            t.input_tail_size as usize,
            t.bs_tail_size as usize,
        )));
    set_mask_count();
    for (r, (off, bsh, bs)) in rounds.enumerate() {
        let clear = r == 0;
        if half {
            let f = |l: &LocalTensor<T>| l.view(off).reinterpret_cast::<f16>();
            let (gamma_tmp, beta_tmp) = (at(t.gamma_temp_tensor_pos), at(t.beta_temp_tensor_pos));
            let (dy_tmp, res_tmp) = (at(t.input_dy_tmp_tensor_pos), at(t.res_for_gamma_tmp_tensor_pos));
            count_mask::<f16>(bsh);
            steps::widen(&dy_tmp, &f(input_dy));
            steps::widen(&res_tmp, &f(res_for_gamma));
            beta_round(&res_tmp, &dy_tmp, &gamma_tmp, &beta_tmp, &res_tmp, (bsh, bs, oh), clear);
            count_mask::<f32>(oh);
            narrow(&output_pd_gamma.reinterpret_cast::<f16>(), &gamma_tmp);
            narrow(&output_pd_beta.reinterpret_cast::<f16>(), &beta_tmp);
        } else {
            let f = |l: &LocalTensor<T>| l.view(off).reinterpret_cast::<f32>();
            let res = f(res_for_gamma);
            let res_tmp = if IS_REUSE_SOURCE { res.clone() } else { at(t.res_for_gamma_tmp_tensor_pos) };
            let (g, b) =
                (output_pd_gamma.reinterpret_cast::<f32>(), output_pd_beta.reinterpret_cast::<f32>());
            beta_round(&res, &f(input_dy), &g, &b, &res_tmp, (bsh, bs, oh), clear);
        }
    }
    set_mask_norm();
    reset_mask();
}

/// [`layer_norm_grad_beta`] with the stack buffer (AscendC `LayerNormGradBeta<T,
/// isReuseSource>(outputPdGamma, outputPdBeta, resForGamma, inputDy, tiling)`:
/// `PopStackBuffer`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 4 * 128);
/// let (max, _) = get_layer_norm_grad_beta_max_min_tmp_size(&[1, 3, 8, 8], 4, false);
/// let mut tiling = get_layer_norm_grad_beta_nd_tiling_info(&[1, 3, 8, 8], max, 4, false);
/// let t = |i: usize, n: usize| q.get_with_offset::<f32>(n, i * 128);
/// let (pd_g, pd_b, res, dy) = (t(0, 8), t(1, 8), t(2, 24), t(3, 24));
/// (res.copy_from_slice(&[1.0; 24]), dy.copy_from_slice(&[0.5; 24]));
/// layer_norm_grad_beta_stack::<_, false>(&pd_g, &pd_b, &res, &dy, &mut tiling);
/// assert_eq!(pd_b.to_vec(), [1.5; 8]);
/// ```
///
/// # Panics
/// As [`layer_norm_grad_beta`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn layer_norm_grad_beta_stack<T: LayerNormElement, const IS_REUSE_SOURCE: bool>(
    output_pd_gamma: &LocalTensor<T>,
    output_pd_beta: &LocalTensor<T>,
    res_for_gamma: &LocalTensor<T>,
    input_dy: &LocalTensor<T>,
    tiling: &mut LayerNormGradBetaTiling,
) {
    let stack = stack_tensor(LAYER_NORM_GRAD_BETA);
    layer_norm_grad_beta::<T, IS_REUSE_SOURCE>(
        output_pd_gamma,
        output_pd_beta,
        res_for_gamma,
        input_dy,
        &stack,
        tiling,
    );
}
