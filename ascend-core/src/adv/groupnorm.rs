//! `GroupNorm` (the vendor's `adv_api/normalization/groupnorm.h`: [`group_norm`],
//! [`group_norm_stack`], the tiling [`GroupNormTiling`] and its host helpers
//! [`get_group_norm_max_min_tmp_size`], [`get_group_norm_nd_tiling_info`]): an input of shape
//! `[N, C, H, W]` (each `H·W` row padded to 32 bytes, `hwAlignSize` elements), its `C`
//! channels split into `groupNum` groups of `D = C / groupNum`; per group of `D` rows
//! `mean = Σ x / (D·H·W)`, `variance = Σ (x - mean)² / (D·H·W)` (the sums run over the padded
//! rows, so the padding must be 0), and
//! `output = gamma[ch] · (x - mean) / sqrt(variance + epsilon) + beta[ch]`.
//!
//! The computation is the vendor's implementation
//! (`impl/adv_api/detail/normalization/groupnorm/groupnorm_common_impl.h`), instruction by
//! instruction, in `float` (`half` widened with `Cast`), each step followed by
//! `PipeBarrier<PIPE_V>` where the vendor writes one. Per round of `bsCurLength` groups:
//! - **general path** (`GroupNormExe`): each group summed by a `ReduceSum` (count form; on
//!   Ascend910B the 64-lane trees added in order), scaled by `factor = 1 / (D·H·W)` with a
//!   one-lane `Muls`; `Adds` of `-mean` per row (`H·W` elements), `Mul` (square), the same
//!   sum and scaling for the variance;
//! - **small shape** (`GroupNormExeSmallShape`, the tiling's `smallShape`: `hwAlignSize ≤ 64`
//!   and `D·hwAlignSize ≤ 64·k`): two `WholeReduceSum`s (`mask1` lanes per repeat, the partial
//!   sums every 8 elements, then `mask2` lanes per group), `Adds` of `-mean` on `D` rows as the
//!   repeats of one instruction;
//!
//! then, per group, `rstd = 1 / sqrt(variance + epsilon)` in one lane of a scratch repeat
//! (`Adds`, `Duplicate` of 1, `Sqrt`, `Div`), `Muls` of the group by it, and per channel `Muls`
//! by `gamma` and `Adds` of `beta` (`H·W` elements). `half` means and variances are narrowed at
//! the end.
//!
//! What the implementation does that this one keeps (each reproduced, and the reads and
//! writes it implies checked up front):
//! - On a tail round, the `half` path still casts a full round (`inputRoundSize`) in and out
//!   (`Cast<float, half>(…, tiling.inputRoundSize)` and back), and the small path's first
//!   `WholeReduceSum` still runs a full round's repeats (`repeat1 = dhwAlignSize / mask1 ·
//!   meanVarRoundSize`): `inputX` (and for `half` `output`) must hold `inputTailPos +
//!   inputRoundSize` elements. The elements past the tail are written back unchanged (`half`).
//! - On a tail round, the `float` small path zeroes `output[inputTailPos + i]` for each tail
//!   group `i` (a masked `Duplicate` at `output[64 · (i / 64)]`, lane `i % 64`) instead of the
//!   round's `output`; `output` must hold `inputTailPos + N·groupNum` elements, and the rows'
//!   padding there keeps what it held (it enters the tail's variances, as on the chip).
//! - The general path scales the means and variances with the one-lane mask `1 << index`, a
//!   `uint64_t` shift that is undefined from the 65th group on; it is an error there (`N ·
//!   groupNum` above 64 without `smallShape`).
//! - With `isReuseSource` (`float` only) the first scratch view is `inputX` itself, which is
//!   overwritten.
//! - The `rstd` step writes lane `index % 64` of a repeat at view A and at the view holding
//!   the ones (C for `half`, B for `float`), whatever a view's size: on rounds of fewer than
//!   64 `float`s a view those lanes land in the next view (its data is overwritten, as on the
//!   chip), and past the buffer's end it is an error (lend a larger buffer than the tiling's).

use super::align_up;
use bytemuck::{Pod, Zeroable};

use crate::element::{f16, DType};
use crate::error::ensure;
use crate::soc::Soc;
use crate::sync::{pipe_barrier, HardEvent, PIPE_V};
use crate::tensor::LocalTensor;
use crate::vector::binary::{div_masked, mul};
use crate::vector::cast::{cast, RoundMode};
use crate::vector::duplicate::{duplicate, duplicate_masked};
use crate::vector::params::{BinaryRepeatParams, UnaryRepeatParams};
use crate::vector::reduction::{reduce_sum, whole_reduce_sum};
use crate::vector::scalar::{adds, adds_masked, muls, muls_masked};
use crate::vector::unary::sqrt_masked;

use super::layernorm::{handshake, LayerNormElement};
use super::{check_chip, check_documented_chip, stack_tensor, Span, V220_V200};

const API: &str = "GroupNorm";
/// `GROUPNORM_MASK_MAX_VAL`: the lanes of one `float` repeat.
const LANES: usize = 64;
/// `GROUPNORM_MASK_SMALLEST_VAL` / `GROUPNORM_ONE_BLK_SIZE`: `float`s of one block.
const BLK: usize = 8;
/// `GROUPNORM_MAX_REPEAT_VAL`.
const MAX_REPEAT: usize = 255;
/// `{1, 1, 8, 8}`.
const P8: UnaryRepeatParams = UnaryRepeatParams::new(1, 1, 8, 8);

/// `GroupNorm`'s tiling (AscendC `GroupNormTiling`, the vendor's `groupnorm_tilingdata.h` field
/// for field), filled by [`get_group_norm_nd_tiling_info`]. `#[repr(C)]` and [`Pod`], so it
/// travels in tiling data; the C++ `bool smallShape` and its three padding bytes are the last
/// `u32` (0 or 1). [`group_norm`] sets a tail round's lengths and restores them, as the
/// vendor's does, so the tiling is unchanged afterwards.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GroupNormTiling {
    /// The batch `N` (`n`).
    pub n: u32,
    /// The channels `C` (`c`).
    pub c: u32,
    /// `H·W` (`hw`).
    pub hw: u32,
    /// The groups `groupNum` (`g`).
    pub g: u32,
    /// Channels of one group, `C / groupNum` (`d`).
    pub d: u32,
    /// `H·W` rounded up to 32 bytes, in elements (`hwAlignSize`).
    pub hw_align_size: u32,
    /// `d · hwAlignSize`, the elements of one group (`dhwAlignSize`).
    pub dhw_align_size: u32,
    /// `N·C·hwAlignSize` (`inputXSize`).
    pub input_x_size: u32,
    /// `N·groupNum`, the means and variances (`meanVarSize`).
    pub mean_var_size: u32,
    /// Scratch views: 3, or 2 with `isReuseSource` for `float` (`numberOfTmpBuf`).
    pub number_of_tmp_buf: u32,
    /// Where the `float` means start in the buffer, in `float`s (`meanTmpTensorPos`; `half`).
    pub mean_tmp_tensor_pos: u32,
    /// `N·groupNum` rounded up to 8 (`meanTmpTensorSize`).
    pub mean_tmp_tensor_size: u32,
    /// Where the `float` variances start (`varianceTmpTensorPos`; `half`).
    pub variance_tmp_tensor_pos: u32,
    /// As `meanTmpTensorSize` (`varianceTmpTensorSize`).
    pub variance_tmp_tensor_size: u32,
    /// The buffer's `float`s (`tmpBufSize`).
    pub tmp_buf_size: u32,
    /// `float`s of each scratch view, one round (`oneTmpSize`).
    pub one_tmp_size: u32,
    /// Where view A starts (`firstTmpStartPos`).
    pub first_tmp_start_pos: u32,
    /// Where view B starts (`secondTmpStartPos`).
    pub second_tmp_start_pos: u32,
    /// Where view C starts (`thirdTmpStartPos`).
    pub third_tmp_start_pos: u32,
    /// Full rounds (`loopRound`).
    pub loop_round: u32,
    /// Elements of one round (`inputRoundSize`).
    pub input_round_size: u32,
    /// Elements of the tail round (`inputTailSize`).
    pub input_tail_size: u32,
    /// The tail's first element (`inputTailPos`).
    pub input_tail_pos: u32,
    /// Groups of one round (`meanVarRoundSize`).
    pub mean_var_round_size: u32,
    /// Groups of the tail round (`meanVarTailSize`).
    pub mean_var_tail_size: u32,
    /// The tail's first group (`meanVarTailPos`).
    pub mean_var_tail_pos: u32,
    /// Elements of the current round (`bshCurLength`).
    pub bsh_cur_length: u32,
    /// Groups of the current round (`bsCurLength`).
    pub bs_cur_length: u32,
    /// `1 / (D·H·W)` in `float` (`factor`).
    pub factor: f32,
    /// `smallShape` (the C++ `bool` and its padding): 1 for the two-`WholeReduceSum` path.
    pub small_shape: u32,
}

/// Element types of [`group_norm`]: `half` and `float` (the vendor's page):
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<i32>, tmp: &LocalTensor<u8>, tiling: &mut GroupNormTiling) {
///     group_norm::<_, false>(t, t, t, t, t, t, tmp, 0, tiling)
/// }
/// ```
pub trait GroupNormElement: LayerNormElement {}
impl GroupNormElement for f16 {}
impl GroupNormElement for f32 {}

/// The vendor's host shape checks (`CheckGroupNormHostCommon`, the asserts of
/// `GetGroupNormTmpSize`/`GetGroupNormNDTilingInfo`), and this crate's: `C` a multiple of
/// `groupNum`. Returns `[n, c, h·w]`.
#[track_caller]
fn host_shape(api: &'static str, src: &[usize], type_size: usize, group_num: usize) -> [usize; 3] {
    ensure(src.len() == 4, api, || {
        format!("srcShape = {src:?} has {} dimensions, should be 4 (e.g. [N, C, H, W])", src.len())
    });
    super::host_checks(api, src.iter().product(), type_size);
    ensure(group_num > 0, api, || "groupNum must be greater than 0".into());
    let (n, c, hw) = (src[0], src[1], src[2] * src[3]);
    ensure(group_num <= c, api, || {
        format!(
            "groupNum = {group_num} exceeds C = {c}: a group would have no channel (dhwAlignSize would be 0)"
        )
    });
    ensure(c % group_num == 0, api, || {
        format!(
            "C = {c} is not a multiple of groupNum = {group_num}: the vendor's rounds walk inputX in groups of C / \
             groupNum channels and would run past the N * groupNum means"
        )
    });
    [n, c, hw]
}

/// The temporary buffer's `(max, min)` bytes for [`group_norm`] on `[N, C, H, W]` with
/// `group_num` groups (AscendC `GetGroupNormMaxMinTmpSize(srcShape, typeSize, isReuseSource,
/// groupNum, maxValue, minValue)`), as the vendor's host library computes them
/// (`groupnorm_tiling_impl.cpp`, `GetGroupNormTmpSize`): `k · rows · align32(H·W·typeSize) /
/// typeSize · 4 + 2 · align32(4·N·groupNum)` with `rows = N·C` for the maximum and `C /
/// groupNum` for the minimum, `k = 2` with `isReuseSource` for `float`, else 3. For `half`
/// the minimum does not promise a tiling: [`get_group_norm_nd_tiling_info`] also needs a
/// round's view to hold the `C` widened `gamma` values (the vendor's host returns without a
/// tiling otherwise).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_group_norm_max_min_tmp_size(&[2, 8, 4, 2], 4, false, 4), (1600, 256));
/// assert_eq!(get_group_norm_max_min_tmp_size(&[2, 16, 8, 8], 2, false, 4), (24640, 3136));
/// ```
///
/// # Panics
/// Panics if the shape is not four-dimensional or has no elements, `type_size` is neither 2
/// nor 4, `group_num` is 0 or above `C`, or `C` is not a multiple of it.
#[track_caller]
pub fn get_group_norm_max_min_tmp_size(
    src_shape: &[usize],
    type_size: usize,
    is_reuse_source: bool,
    group_num: usize,
) -> (usize, usize) {
    let [n, c, hw] = host_shape("GetGroupNormMaxMinTmpSize", src_shape, type_size, group_num);
    let mv = align_up(n * group_num * 4, 32);
    let row = align_up(hw * type_size, 32) / type_size * 4;
    let k = if is_reuse_source && type_size == 4 { 2 } else { 3 };
    (k * n * c * row + 2 * mv, k * (c / group_num) * row + 2 * mv)
}

/// The vendor's `GetGroupNormNDTilingInfo` for `[n, c, hw]` with `g` groups, `stack` bytes;
/// `Err` names why it returns without filling the tiling.
fn layout(
    [n, c, hw]: [usize; 3],
    g: usize,
    stack: usize,
    type_size: usize,
    reuse: bool,
) -> Result<GroupNormTiling, String> {
    let d = c / g;
    let hw_align = align_up(type_size * hw, 32) / type_size;
    let dhw = d * hw_align;
    let input_x = n * c * hw_align;
    let mean_var = n * g;
    let mv_tmp = mean_var.next_multiple_of(BLK);
    let mv_total = if type_size == 4 { 0 } else { 2 * mv_tmp };
    let bufs = if reuse && type_size == 4 { 2 } else { 3 };
    let tmp_buf = stack / 32 * 32 / 4;
    if tmp_buf < mv_total {
        return Err(format!(
            "stackBufferSize = {stack} bytes holds {tmp_buf} floats, fewer than the {mv_total} of the half means and \
             variances (the vendor's unsigned subtraction would wrap)"
        ));
    }
    let mut bs = (tmp_buf - mv_total) / bufs / dhw;
    let mut k = 8;
    while (dhw / BLK) % k != 0 {
        k -= 1;
    }
    let small = hw_align <= LANES && dhw <= LANES * k;
    if small {
        let m1 = mask1(dhw);
        bs = bs.min(MAX_REPEAT / (dhw / m1) / BLK * BLK);
    }
    if type_size == 2 && bs * dhw < c {
        return Err(format!(
            "a round of {bs} groups ({} floats a view) cannot hold the C = {c} widened gamma/beta values (the \
             vendor returns without a tiling)",
            bs * dhw
        ));
    }
    let mut one = bs * dhw;
    if one > input_x {
        bs = mean_var;
        one = input_x;
    }
    if one == 0 {
        return Err(format!(
            "stackBufferSize = {stack} bytes leaves no room for one group of {dhw} floats in each of {bufs} views \
             (oneTmpSize would be 0)"
        ));
    }
    if input_x > u32::MAX as usize {
        return Err(format!("N * C * hwAlignSize = {input_x} does not fit the tiling's uint32_t"));
    }
    let tail = input_x % one;
    let u = |v: usize| v as u32;
    Ok(GroupNormTiling {
        n: u(n),
        c: u(c),
        hw: u(hw),
        g: u(g),
        d: u(d),
        hw_align_size: u(hw_align),
        dhw_align_size: u(dhw),
        input_x_size: u(input_x),
        mean_var_size: u(mean_var),
        number_of_tmp_buf: u(bufs),
        mean_tmp_tensor_pos: 0,
        mean_tmp_tensor_size: u(mv_tmp),
        variance_tmp_tensor_pos: u(mv_tmp),
        variance_tmp_tensor_size: u(mv_tmp),
        tmp_buf_size: u(tmp_buf),
        one_tmp_size: u(one),
        first_tmp_start_pos: u(mv_total),
        second_tmp_start_pos: u(mv_total + one),
        third_tmp_start_pos: u(mv_total + 2 * one),
        loop_round: u(input_x / one),
        input_round_size: u(one),
        input_tail_size: u(tail),
        input_tail_pos: u(input_x - tail),
        mean_var_round_size: u(one / dhw),
        mean_var_tail_size: u(tail / dhw),
        mean_var_tail_pos: u(mean_var - tail / dhw),
        bsh_cur_length: u(one),
        bs_cur_length: u(bs),
        factor: 1.0 / (d * hw) as f32,
        small_shape: u32::from(small),
    })
}

/// `GetGroupNormWholeReduceMask1`: the largest multiple of 8 up to 64 dividing `dhwAlignSize`
/// (`dhwAlignSize` itself up to 64).
fn mask1(dhw: usize) -> usize {
    if dhw > LANES {
        let mut m = LANES;
        while m != 0 && dhw % m != 0 {
            m -= BLK;
        }
        m
    } else {
        dhw
    }
}

/// `GroupNorm`'s tiling for `[N, C, H, W]` with `group_num` groups and a temporary buffer of
/// `stack_buffer_size` bytes (AscendC `GetGroupNormNDTilingInfo(srcShape, stackBufferSize,
/// typeSize, isReuseSource, groupNum, tiling)`), as the vendor's host library lays it out: for
/// `half` the `float` means and variances first (`N·groupNum` rounded up to 8 each), then
/// `numberOfTmpBuf` views of whole groups (`bsCurLength`, at most 248/k·… for the small shape,
/// at most the whole input).
///
/// ```
/// use ascend_core::prelude::*;
/// let t = get_group_norm_nd_tiling_info(&[2, 8, 4, 2], 1600, 4, false, 4);
/// assert_eq!((t.d, t.hw_align_size, t.dhw_align_size, t.input_x_size), (2, 8, 16, 128));
/// assert_eq!((t.bs_cur_length, t.loop_round, t.input_tail_size, t.small_shape), (8, 1, 0, 1));
/// assert_eq!(t.factor, 1.0 / 16.0);
/// let t = get_group_norm_nd_tiling_info(&[2, 16, 8, 8], 3136, 2, false, 4);
/// assert_eq!((t.first_tmp_start_pos, t.one_tmp_size, t.loop_round, t.small_shape), (16, 256, 8, 1));
/// ```
///
/// # Panics
/// As [`get_group_norm_max_min_tmp_size`], and where the vendor returns without a tiling: the
/// buffer leaves no room for one group a view, or (`half`) a round's view cannot hold the `C`
/// widened `gamma` values; or `N·C·hwAlignSize` exceeds `u32`.
#[track_caller]
pub fn get_group_norm_nd_tiling_info(
    src_shape: &[usize],
    stack_buffer_size: usize,
    type_size: usize,
    is_reuse_source: bool,
    group_num: usize,
) -> GroupNormTiling {
    const HOST: &str = "GetGroupNormNDTilingInfo";
    let s = host_shape(HOST, src_shape, type_size, group_num);
    match layout(s, group_num, stack_buffer_size, type_size, is_reuse_source) {
        Ok(t) => t,
        Err(why) => {
            ensure(false, HOST, || why);
            unreachable!()
        }
    }
}

type F = LocalTensor<f32>;

/// The round's position: `(loopCount, mvOffset)` and the tiling's current lengths.
#[derive(Clone, Copy)]
struct Round {
    lc: usize,
    mvo: usize,
    bs: usize,
    bsh: usize,
}

impl Round {
    /// The global index of the round's group `i` (`i + loopCount · bsCurLength + mvOffset`).
    fn idx(&self, i: usize) -> usize {
        i + self.lc * self.bs + self.mvo
    }
}

/// The tiling's lengths as `usize`.
struct Dims {
    c: usize,
    hw: usize,
    d: usize,
    hwa: usize,
    dhw: usize,
    round: usize,
    mv_round: usize,
    factor: f32,
}

/// A one-lane bit mask for lane `lane` (`uint64_t mask[1] = {1 << lane}`).
fn lane_mask(lane: usize) -> [u64; 2] {
    [1u64 << lane, 0]
}

/// The one-lane `Muls` by `factor` of the round's means or variances: at `mv[0]` with lane
/// `index` (the general path, `index < 64` checked up front) or at `mv[64·(index / 64)]`
/// (the small path); a barrier after each when `barrier`.
#[track_caller]
fn scale(mv: &F, k: &Dims, r: Round, split: bool, barrier: bool) {
    for i in 0..r.bs {
        let idx = r.idx(i);
        let (base, lane) = if split { (idx / LANES * LANES, idx % LANES) } else { (0, idx) };
        let t = mv.view(base);
        muls_masked::<f32, true>(&t, &t, k.factor, lane_mask(lane), 1, &P8);
        if barrier {
            pipe_barrier::<PIPE_V>();
        }
    }
}

/// `GetGroupNormOutputMean`: a `ReduceSum` per group into `mean`, then the scaling.
#[track_caller]
fn output_mean(x: &F, tmp: &F, mean: &F, k: &Dims, r: Round) {
    for i in 0..r.bs {
        let b = i * k.dhw;
        reduce_sum::<f32>(&mean.view(r.idx(i)), &x.view(b), &tmp.view(b), k.dhw as i32);
        pipe_barrier::<PIPE_V>();
    }
    scale(mean, k, r, false, false);
    handshake::<HardEvent::V_S>();
}

/// `GetGroupNormOutputVar`: `tmp1 = x - mean` per row, `tmp2 = tmp1²`, a `ReduceSum` per group
/// into `var`, the scaling.
#[track_caller]
fn output_var(x: &F, tmp1: &F, tmp2: &F, mean: &F, var: &F, k: &Dims, r: Round) {
    for i in 0..k.d * r.bs {
        let b = i * k.hwa;
        let m = mean.get_value((i + r.lc * k.d * r.bs + r.mvo * k.d) / k.d);
        adds(&tmp1.view(b), &x.view(b), -m, k.hw);
        pipe_barrier::<PIPE_V>();
    }
    mul(tmp2, tmp1, tmp1, r.bsh);
    pipe_barrier::<PIPE_V>();
    for i in 0..r.bs {
        let b = i * k.dhw;
        reduce_sum::<f32>(&var.view(r.idx(i)), &tmp2.view(b), &tmp2.view(b), k.dhw as i32);
        pipe_barrier::<PIPE_V>();
    }
    scale(var, k, r, false, true);
}

/// `GetGroupNormOutputPre`: per group `rstd = 1 / sqrt(var + epsilon)` in lane `index % 64` of
/// `tmp` (`ones` holding the 1), then each group of `inout` times it.
#[track_caller]
fn output_pre(inout: &F, tmp: &F, ones: &F, var: &F, eps: f32, k: &Dims, r: Round) {
    for i in 0..r.bs {
        let idx = r.idx(i);
        let (base, m) = (idx / LANES * LANES, lane_mask(idx % LANES));
        adds_masked::<f32, true>(tmp, &var.view(base), eps, m, 1, &P8);
        pipe_barrier::<PIPE_V>();
        duplicate_masked::<f32, true>(ones, 1.0, m, 1, 1, 1);
        pipe_barrier::<PIPE_V>();
        sqrt_masked::<f32, true>(tmp, tmp, m, 1, &P8);
        pipe_barrier::<PIPE_V>();
        div_masked::<f32, true>(tmp, ones, tmp, m, 1, &BinaryRepeatParams::new(1, 1, 1, 8, 8, 8));
        pipe_barrier::<PIPE_V>();
    }
    handshake::<HardEvent::V_S>();
    for i in 0..r.bs {
        let g = inout.view(i * k.dhw);
        muls(&g, &g, tmp.get_value(r.idx(i) % LANES), k.dhw);
        pipe_barrier::<PIPE_V>();
    }
    // The vendor fetches an `S_V` event id and sets and waits `V_S` flags with it.
    handshake::<HardEvent::V_S>();
    pipe_barrier::<PIPE_V>();
}

/// `GetGroupNormOutput`: each channel's row times `gamma[ch % C]`, then plus `beta[ch % C]`.
#[track_caller]
fn output(inout: &F, gamma: &F, beta: &F, k: &Dims, r: Round) {
    let first = r.lc * r.bs * k.d + r.mvo * k.d;
    for (co, ch) in (0..r.bs * k.d).zip(first..) {
        let row = inout.view(co * k.hwa);
        muls(&row, &row, gamma.get_value(ch % k.c), k.hw);
        pipe_barrier::<PIPE_V>();
    }
    for (co, ch) in (0..r.bs * k.d).zip(first..) {
        let row = inout.view(co * k.hwa);
        adds(&row, &row, beta.get_value(ch % k.c), k.hw);
        pipe_barrier::<PIPE_V>();
    }
}

/// The scratch views and the `float` means and variances.
struct Views {
    a: F,
    b: F,
    c: F,
    mean: F,
    var: F,
}

/// `WholeReduceSum<float, true>(dst, src, mask, repeat, dstRepStride, 1, mask / 8)`, then a
/// barrier.
#[track_caller]
fn wrs(dst: &F, src: &F, mask: usize, repeat: usize, dst_rep: u16) {
    whole_reduce_sum::<f32, true>(dst, src, mask as u64, repeat as u8, dst_rep, 1, (mask / BLK) as u16);
    pipe_barrier::<PIPE_V>();
}

/// The small path's `Adds` of `-mean` to each group's `D` rows (the repeats of one
/// instruction, `hw` lanes each, rows `hwAlignSize` apart).
#[track_caller]
fn small_center(dst: &F, src: &F, mean: &F, k: &Dims, r: Round) {
    let rs = (k.hwa / BLK) as u8;
    for i in 0..r.bs {
        let b = i * k.dhw;
        let m = mean.get_value(r.idx(i));
        adds_masked::<f32, true>(
            &dst.view(b),
            &src.view(b),
            -m,
            k.hw as u64,
            k.d as u8,
            &UnaryRepeatParams::new(1, 1, rs, rs),
        );
        pipe_barrier::<PIPE_V>();
    }
}

/// One round of the `half` path (`GroupNormExe` / `GroupNormExeSmallShape` for `half`).
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn exe_half(
    x: &LocalTensor<f16>,
    gamma: &LocalTensor<f16>,
    beta: &LocalTensor<f16>,
    out: &LocalTensor<f16>,
    eps: f32,
    v: &Views,
    k: &Dims,
    r: Round,
    small: bool,
) {
    let (a, b, c) = (&v.a, &v.b, &v.c);
    if small {
        duplicate(a, 0.0, k.round * 3);
        pipe_barrier::<PIPE_V>();
        cast(b, x, RoundMode::CastNone, k.round);
        pipe_barrier::<PIPE_V>();
        let m1 = mask1(k.dhw);
        let (rep1, m2) = (k.dhw / m1 * k.mv_round, k.dhw / m1 * BLK);
        pipe_barrier::<PIPE_V>();
        wrs(c, b, m1, rep1, BLK as u16);
        wrs(&v.mean.view(r.lc * r.bs + r.mvo), c, m2, r.bs, 1);
        scale(&v.mean, k, r, true, true);
        handshake::<HardEvent::V_S>();
        small_center(b, b, &v.mean, k, r);
        mul(c, b, b, r.bsh);
        pipe_barrier::<PIPE_V>();
        wrs(a, c, m1, rep1, BLK as u16);
        wrs(&v.var.view(r.lc * r.bs + r.mvo), a, m2, r.bs, 1);
        scale(&v.var, k, r, true, true);
    } else {
        duplicate(a, 0.0, r.bsh);
        pipe_barrier::<PIPE_V>();
        cast(b, x, RoundMode::CastNone, k.round);
        pipe_barrier::<PIPE_V>();
        output_mean(b, c, &v.mean, k, r);
        output_var(b, b, c, &v.mean, &v.var, k, r);
    }
    output_pre(b, a, c, &v.var, eps, k, r);
    cast(a, gamma, RoundMode::CastNone, k.c);
    pipe_barrier::<PIPE_V>();
    cast(c, beta, RoundMode::CastNone, k.c);
    pipe_barrier::<PIPE_V>();
    output(b, a, c, k, r);
    cast(out, b, RoundMode::CastNone, k.round);
    pipe_barrier::<PIPE_V>();
}

/// One round of the `float` path (`GroupNormExe` / `GroupNormExeSmallShape` for `float`).
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn exe_float(x: &F, gamma: &F, beta: &F, out: &F, eps: f32, v: &Views, k: &Dims, r: Round, small: bool) {
    let (a, b, c) = (&v.a, &v.b, &v.c);
    if small {
        if r.mvo != 0 {
            for i in 0..r.bs {
                let idx = r.idx(i);
                let t = out.view(idx / LANES * LANES);
                duplicate_masked::<f32, true>(&t, 0.0, lane_mask(idx % LANES), 1, 1, BLK as u8);
                pipe_barrier::<PIPE_V>();
            }
        } else {
            duplicate(out, 0.0, k.round);
            pipe_barrier::<PIPE_V>();
        }
        duplicate(c, 0.0, k.round);
        pipe_barrier::<PIPE_V>();
        let m1 = mask1(k.dhw);
        let (rep1, m2) = (k.dhw / m1 * k.mv_round, k.dhw / m1 * BLK);
        pipe_barrier::<PIPE_V>();
        wrs(c, x, m1, rep1, BLK as u16);
        wrs(&v.mean.view(r.lc * r.bs + r.mvo), c, m2, r.bs, 1);
        scale(&v.mean, k, r, true, false);
        handshake::<HardEvent::V_S>();
        small_center(out, x, &v.mean, k, r);
        mul(c, out, out, r.bsh);
        pipe_barrier::<PIPE_V>();
        duplicate(a, 0.0, k.round);
        pipe_barrier::<PIPE_V>();
        wrs(a, c, m1, rep1, BLK as u16);
        wrs(&v.var.view(r.lc * r.bs + r.mvo), a, m2, r.bs, 1);
        scale(&v.var, k, r, true, true);
        output_pre(out, a, b, &v.var, eps, k, r);
    } else {
        output_mean(x, out, &v.mean, k, r);
        duplicate(out, 0.0, r.bsh);
        pipe_barrier::<PIPE_V>();
        output_var(x, out, c, &v.mean, &v.var, k, r);
        output_pre(out, a, b, &v.var, eps, k, r);
    }
    output(out, gamma, beta, k, r);
}

/// `GroupNorm`'s checks, once per call: the chip, the positions, `isReuseSource` for `half`
/// (the vendor's check), the tiling (it must be the one [`get_group_norm_nd_tiling_info`]
/// makes for its own `n`, `c`, `hw`, `g`, `tmpBufSize` and `numberOfTmpBuf`), the vendor's
/// asserts (the views inside `tmpBufSize`, the buffer at least `tmpBufSize` `float`s), the
/// general path's 64 groups, the sizes every instruction touches, and the overlaps.
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn check<T: GroupNormElement>(
    reuse: bool,
    [out, mean, var, x, gamma, beta]: [&LocalTensor<T>; 6],
    tmp: &LocalTensor<u8>,
    t: &GroupNormTiling,
) {
    check_chip(API, &V220_V200);
    check_documented_chip(
        API,
        &[Soc::Ascend910B],
        "Atlas A2/A3 training and inference products (Ascend910B)",
    );
    for (name, pos) in [
        ("output", out.get_position()),
        ("outputMean", mean.get_position()),
        ("outputVariance", var.get_position()),
        ("inputX", x.get_position()),
        ("gamma", gamma.get_position()),
        ("beta", beta.get_position()),
        ("sharedTmpBuffer", tmp.get_position()),
    ] {
        ensure(pos.is_ub(), API, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
    }
    let half = T::DTYPE == DType::F16;
    ensure(!(half && reuse), API, || {
        "isReuseSource = true is not supported for half (the page; the vendor's check requires false)".into()
    });
    let n_bufs = t.number_of_tmp_buf;
    let want = if t.g == 0 || t.c == 0 || t.c % t.g != 0 || !(n_bufs == 3 || (n_bufs == 2 && !half)) {
        Err("n, c, g or numberOfTmpBuf is out of range".to_string())
    } else {
        layout(
            [t.n as usize, t.c as usize, t.hw as usize],
            t.g as usize,
            t.tmp_buf_size as usize * 4,
            T::SIZE,
            n_bufs == 2,
        )
    };
    ensure(want.as_ref().is_ok_and(|w| w == t), API, || {
        let why = match &want {
            Err(e) => e.clone(),
            Ok(w) => format!("GetGroupNormNDTilingInfo gives {w:?}"),
        };
        format!(
            "the tiling is unset or inconsistent (make it with GetGroupNormNDTilingInfo for this shape, type and \
             groupNum): {t:?}; {why}"
        )
    });
    let (one, tmp_buf) = (t.one_tmp_size as usize, t.tmp_buf_size as usize);
    let (last, pos) = if reuse {
        ("secondTmpStartPos", t.second_tmp_start_pos as usize)
    } else {
        ("thirdTmpStartPos", t.third_tmp_start_pos as usize)
    };
    ensure(pos + one <= tmp_buf, API, || {
        format!(
            "{last} + oneTmpSize is ({}) should <= tmpBufSize is ({tmp_buf}) (the vendor's assert)",
            pos + one
        )
    });
    let floats = tmp.get_size() / 4;
    ensure(floats >= tmp_buf, API, || {
        format!(
            "sharedTmpBuffer has {} bytes ({floats} floats); stackBuffer.GetSize() should be >= tiling.tmpBufSize \
             ({tmp_buf})",
            tmp.get_size()
        )
    });
    let (mv, small) = (t.mean_var_size as usize, t.small_shape != 0);
    // `GetGroupNormOutputPre` writes lane `index % 64` of a repeat at view A (the rstd) and at
    // the `ones` view (C for half, B for float), whatever the views' size.
    let lanes = mv.min(LANES);
    let ones = match (half, reuse) {
        (true, _) => ("C", t.third_tmp_start_pos),
        (false, false) => ("B", t.second_tmp_start_pos),
        (false, true) => ("B", t.first_tmp_start_pos),
    };
    // With isReuseSource view A is inputX, which holds more than 64 elements.
    for (view, at) in [ones, ("A", t.first_tmp_start_pos)].into_iter().take(if reuse { 1 } else { 2 }) {
        let at = at as usize;
        ensure(at + lanes <= floats, API, || {
            format!(
                "the rstd step writes lane index % 64 (up to {}) of a repeat at view {view} (float {at} of \
                 sharedTmpBuffer), past the buffer's {floats} floats: the vendor writes one lane per group there \
                 whatever the view's size (GetGroupNormOutputPre); lend at least {} bytes",
                lanes - 1,
                4 * (at + lanes)
            )
        });
    }
    ensure(small || mv <= LANES, API, || {
        format!(
            "N * groupNum = {mv} groups without smallShape: the vendor's general path scales each mean and variance \
             with the one-lane mask 1 << index in a uint64_t (groupnorm_common_impl.h GetGroupNormOutputMean), \
             undefined from index 64 on"
        )
    });
    let (input, round, tail, tail_pos) = (
        t.input_x_size as usize,
        t.input_round_size as usize,
        t.input_tail_size as usize,
        t.input_tail_pos as usize,
    );
    let full_tail = if tail > 0 && (half || small) { tail_pos + round } else { 0 };
    let x_need = input.max(full_tail);
    let out_need = input.max(if half { full_tail } else { 0 }).max(if tail > 0 && small && !half {
        tail_pos + mv
    } else {
        0
    });
    let c = t.c as usize;
    for (name, have, need, why) in [
        (
            "inputX",
            x.get_size(),
            x_need,
            "N * C * hwAlignSize, or on a tail round inputTailPos + inputRoundSize",
        ),
        ("output", out.get_size(), out_need, "N * C * hwAlignSize, or more on a tail round"),
        ("outputMean", mean.get_size(), mv, "N * groupNum"),
        ("outputVariance", var.get_size(), mv, "N * groupNum"),
        ("gamma", gamma.get_size(), c, "C"),
        ("beta", beta.get_size(), c, "C"),
    ] {
        ensure(have >= need, API, || {
            format!(
                "{name} has {have} elements; it must hold {need} ({why}; the vendor's tail round reads and writes a \
                 full round, see the module docs)"
            )
        });
    }
    let s = |name: &'static str, a: usize, n: usize| -> Span { (name, a, a + n) };
    let (o, m, va) = (
        s("output", out.get_phy_addr(), out_need * T::SIZE),
        s("outputMean", mean.get_phy_addr(), mv * T::SIZE),
        s("outputVariance", var.get_phy_addr(), mv * T::SIZE),
    );
    let (xs, g, b) = (
        s("inputX", x.get_phy_addr(), x_need * T::SIZE),
        s("gamma", gamma.get_phy_addr(), c * T::SIZE),
        s("beta", beta.get_phy_addr(), c * T::SIZE),
    );
    let tw = s("sharedTmpBuffer", tmp.get_phy_addr(), 4 * tmp_buf);
    let mut pairs = vec![(o, m), (o, va), (m, va)];
    for out in [o, m, va] {
        pairs.extend([(out, xs), (out, g), (out, b)]);
    }
    for any in [o, m, va, xs, g, b] {
        pairs.push((tw, any));
    }
    for (p, q) in pairs {
        let apart = p.2 <= q.1 || q.2 <= p.1 || p.1 == p.2 || q.1 == q.2;
        ensure(apart, API, || {
            format!(
                "{} UB bytes [{:#x}, {:#x}) overlap {} UB bytes [{:#x}, {:#x}); the outputs must not share memory \
                 (the vendor's check), nor an input or the buffer (the implementation overwrites them before it has \
                 read them)",
                p.0, p.1, p.2, q.0, q.1, q.2
            )
        });
    }
}

/// GroupNorm of `input_x` (`[N, C, H, W]`, each `H·W` row padded to `hwAlignSize`, the
/// padding 0) into `output`, with each group's mean and variance into `output_mean` and
/// `output_variance` (`[N, groupNum]`), the per-channel scaling `gamma` and shift `beta` (`C`
/// elements), `shared_tmp_buffer` as scratch (AscendC `GroupNorm<T, isReuseSource>(output,
/// outputMean, outputVariance, inputX, gamma, beta, sharedTmpBuffer, epsilon, tiling)`):
/// `output = gamma[ch] · (x - mean) · rstd + beta[ch]` with `rstd = 1 / sqrt(variance +
/// epsilon)`, each operation rounded as the vendor's instructions round it (see the
/// [module](self), which also lists what a tail round reads and writes beyond the input).
/// `output`'s row padding is 0 on the general path and what it held on the small path. With
/// `IS_REUSE_SOURCE` (`float`) `input_x` is overwritten.
///
/// The page's worked example (`[2, 8, 4, 2]`, 4 groups, `x = 0..128`, `gamma = beta = 0..8`):
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 512 + 4 * 32);
/// let (max, _) = get_group_norm_max_min_tmp_size(&[2, 8, 4, 2], 4, false, 4);
/// pipe.init_tbuf(&mut tmp, max);
/// let mut tiling = get_group_norm_nd_tiling_info(&[2, 8, 4, 2], max, 4, false, 4);
/// let (x, y) = (q.get_with_offset::<f32>(128, 0), q.get_with_offset::<f32>(128, 512));
/// let t = |i: usize| q.get_with_offset::<f32>(8, 1024 + 32 * i);
/// let (mean, var, gamma, beta) = (t(0), t(1), t(2), t(3));
/// x.copy_from_slice(&(0..128).map(|v| v as f32).collect::<Vec<_>>());
/// gamma.copy_from_slice(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
/// beta.copy_from_slice(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
/// group_norm::<f32, false>(&y, &mean, &var, &x, &gamma, &beta, &tmp.get::<u8>(), 1e-5, &mut tiling);
/// assert_eq!(mean.to_vec(), [7.5, 23.5, 39.5, 55.5, 71.5, 87.5, 103.5, 119.5]);
/// assert_eq!(var.to_vec(), [21.25; 8]);
/// assert!((y.get_value(8) - 1.1084652).abs() < 1e-6 && (y.get_value(127) - 18.388847).abs() < 1e-5);
/// ```
///
/// # Panics
/// Panics if the chip is not Ascend910B (the page; the header builds nothing on Ascend910 and
/// Ascend310B); a tensor is not in the Unified Buffer; `IS_REUSE_SOURCE` with `half`; the
/// tiling is unset or not what [`get_group_norm_nd_tiling_info`] makes for its shape, or its
/// views exceed `tmpBufSize`; the buffer holds fewer than `tmpBufSize` `float`s; the general
/// path has more than 64 groups (`N · groupNum`, the vendor's undefined shift); a tensor holds
/// fewer elements than the implementation touches (see the [module](self) for the tail
/// round); the outputs overlap each other, an input or the buffer, or the buffer an input; or
/// any instruction's own check fails.
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn group_norm<T: GroupNormElement, const IS_REUSE_SOURCE: bool>(
    output: &LocalTensor<T>,
    output_mean: &LocalTensor<T>,
    output_variance: &LocalTensor<T>,
    input_x: &LocalTensor<T>,
    gamma: &LocalTensor<T>,
    beta: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    epsilon: T,
    tiling: &mut GroupNormTiling,
) {
    check::<T>(
        IS_REUSE_SOURCE,
        [output, output_mean, output_variance, input_x, gamma, beta],
        shared_tmp_buffer,
        tiling,
    );
    let t = *tiling;
    let half = T::DTYPE == DType::F16;
    let stack = shared_tmp_buffer.reinterpret_cast::<f32>();
    let at = |pos: u32| stack.view(pos as usize);
    let f = |x: &LocalTensor<T>| x.reinterpret_cast::<f32>();
    let (a, b, c) = if !half && IS_REUSE_SOURCE {
        (f(input_x), at(t.first_tmp_start_pos), at(t.second_tmp_start_pos))
    } else {
        (at(t.first_tmp_start_pos), at(t.second_tmp_start_pos), at(t.third_tmp_start_pos))
    };
    let (mean, var) = if half {
        (at(t.mean_tmp_tensor_pos), at(t.variance_tmp_tensor_pos))
    } else {
        (f(output_mean), f(output_variance))
    };
    let v = Views { a, b, c, mean, var };
    let k = Dims {
        c: t.c as usize,
        hw: t.hw as usize,
        d: t.d as usize,
        hwa: t.hw_align_size as usize,
        dhw: t.dhw_align_size as usize,
        round: t.input_round_size as usize,
        mv_round: t.mean_var_round_size as usize,
        factor: t.factor,
    };
    let eps = epsilon.to_f64() as f32;
    let small = t.small_shape != 0;
    let h = |x: &LocalTensor<T>| x.reinterpret_cast::<f16>();
    let run = |off: usize, r: Round| {
        if half {
            exe_half(
                &h(&input_x.view(off)),
                &h(gamma),
                &h(beta),
                &h(&output.view(off)),
                eps,
                &v,
                &k,
                r,
                small,
            );
        } else {
            exe_float(
                &f(&input_x.view(off)),
                &f(gamma),
                &f(beta),
                &f(&output.view(off)),
                eps,
                &v,
                &k,
                r,
                small,
            );
        }
    };
    let full = |lc: usize, mvo: usize| Round {
        lc,
        mvo,
        bs: t.bs_cur_length as usize,
        bsh: t.bsh_cur_length as usize,
    };
    for i in 0..t.loop_round as usize {
        run(i * k.round, full(i, 0));
    }
    if t.input_tail_size > 0 {
        tiling.bsh_cur_length = t.input_tail_size;
        tiling.bs_cur_length = t.mean_var_tail_size;
        let r = Round {
            lc: 0,
            mvo: t.mean_var_tail_pos as usize,
            bs: t.mean_var_tail_size as usize,
            bsh: t.input_tail_size as usize,
        };
        run(t.input_tail_pos as usize, r);
        tiling.bsh_cur_length = t.input_round_size;
        tiling.bs_cur_length = t.mean_var_round_size;
    }
    if half {
        let mv = t.mean_var_size as usize;
        cast(&h(output_mean), &v.mean, RoundMode::CastNone, mv);
        cast(&h(output_variance), &v.var, RoundMode::CastNone, mv);
    }
}

/// [`group_norm`] with the stack buffer as scratch (AscendC `GroupNorm<T,
/// isReuseSource>(output, outputMean, outputVariance, inputX, gamma, beta, epsilon, tiling)`);
/// the tiling's `tmpBufSize` must fit in it.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 256 + 4 * 32);
/// let stack = pop_stack_buffer::<u8>().get_size();
/// let mut tiling = get_group_norm_nd_tiling_info(&[1, 2, 8, 8], stack, 2, false, 1);
/// let (x, y) = (q.get_with_offset::<f16>(128, 0), q.get_with_offset::<f16>(128, 256));
/// let t = |i: usize| q.get_with_offset::<f16>(16, 512 + 32 * i);
/// let (mean, var, gamma, beta) = (t(0), t(1), t(2), t(3));
/// let v: Vec<f16> = (0..128).map(|i| f16::from_f32(if i < 64 { 1.0 } else { 3.0 })).collect();
/// x.copy_from_slice(&v);
/// gamma.copy_from_slice(&[f16::from_f32(2.0); 16]);
/// beta.copy_from_slice(&[f16::from_f32(0.5); 16]);
/// group_norm_stack::<f16, false>(&y, &mean, &var, &x, &gamma, &beta, f16::ZERO, &mut tiling);
/// assert_eq!((mean.get_value(0).to_f32(), var.get_value(0).to_f32()), (2.0, 1.0));
/// assert_eq!((y.get_value(0).to_f32(), y.get_value(127).to_f32()), (-1.5, 2.5));
/// ```
///
/// # Panics
/// As [`group_norm`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn group_norm_stack<T: GroupNormElement, const IS_REUSE_SOURCE: bool>(
    output: &LocalTensor<T>,
    output_mean: &LocalTensor<T>,
    output_variance: &LocalTensor<T>,
    input_x: &LocalTensor<T>,
    gamma: &LocalTensor<T>,
    beta: &LocalTensor<T>,
    epsilon: T,
    tiling: &mut GroupNormTiling,
) {
    let stack = stack_tensor(API);
    group_norm::<T, IS_REUSE_SOURCE>(
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
