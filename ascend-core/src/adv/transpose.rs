//! Transpose functions of the advanced API (the vendor's `adv_api/transpose`):
//! `ConfusionTranspose` (the vendor's advanced `Transpose` with a [`TransposeType`] and a
//! tiling; [`confusion_transpose`], [`confusion_transpose_stack`]) with its tiling struct
//! [`ConfusionTransposeTiling`] and host helpers ([`get_confusion_transpose_max_min_tmp_size`],
//! [`get_confusion_transpose_tiling_info`], [`get_confusion_transpose_only_tiling_info`]).
//!
//! The kernel is the vendor's `confusion_transpose_base_impl.h` and
//! `confusion_transpose_base_0213.h`, which `confusion_transpose_v220_impl.h` (Ascend910B) and
//! `confusion_transpose_v200_impl.h` (Ascend310P) both call: every move is a `TransDataTo5HD`
//! with lists of UB addresses, each preceded by `PipeBarrier<PIPE_V>` where the vendor has one.
//! Ported scenarios:
//! - `TRANSPOSE_NZ2ND_0213` / `TRANSPOSE_NZ2NZ_0213` (scenes 1 and 2): per batch, `A1` and
//!   16-column block of `A3`, the `alignA2 / 16` fractals are transposed into the scratch in
//!   rounds of `newPopSize` elements (a tail round of `tailSize`), then transposed again into
//!   `dst`; `float` takes two half passes of 8 columns each way;
//! - `TRANSPOSE_NZ2ND_012_WITHOUT_N` / `TRANSPOSE_NZ2NZ_012_WITHOUT_N` (scenes 5 and 6): the
//!   heads' 16-column blocks transposed one at a time into the scratch's first fractal, their
//!   valid rows gathered by `DataCopy` into the second until 16 columns of `H` are there, then
//!   transposed into `dst` (the vendor's row-count state machine, quirks included: with `H <
//!   16` nothing is written, see [`confusion_transpose`]);
//! - `TRANSPOSE_ND2ND_ONLY` (scene 7): one `TransDataTo5HD` per 16 rows, no scratch.
//!
//! The element types are the vendor's check's: `half`, `float`, `int16_t`, `uint16_t`,
//! `int32_t`, `uint32_t` (32-bit types on both emulated chips). The other `TransposeType`s
//! the vendor's check rejects on these chips (`TRANSPOSE_TYPE_NONE`, `TRANSPOSE_ND_UB_GM`,
//! `TRANSPOSE_GRAD_ND_UB_GM`, `TRANSPOSE_ND2ND_B16`, `TRANSPOSE_NCHW2NHWC`,
//! `TRANSPOSE_NHWC2NCHW`) are errors. Left out (for time): the kernels of scenes 3 and 4
//! (`TRANSPOSE_NZ2NZ_012_WITH_N`, `TRANSPOSE_NZ2ND_012_WITH_N`, another row-count state
//! machine), which fail with an error naming them (their host tiling is ported).
//! `TransData` is in [`transdata`](super::transdata).

use bytemuck::{Pod, Zeroable};

use crate::element::{f16, Element};
use crate::kernel::error::ensure;
use crate::memory::copy::{data_copy_params, DataCopyParams};
use crate::memory::tensor::LocalTensor;
use crate::sync::{event::PIPE_V, flags::pipe_barrier};
use crate::vector::transpose::{
    trans_data_to_5hd_addr, TransDataTo5HDElement, TransDataTo5HDParams, TransposeType,
    NCHW_CONV_ADDR_LIST_SIZE,
};

use super::{check_chip, stack_tensor, ONE_BLK_SIZE, V220_V200};

mod sealed {
    pub trait Sealed {}
}
impl sealed::Sealed for i16 {}
impl sealed::Sealed for u16 {}
impl sealed::Sealed for f16 {}
impl sealed::Sealed for i32 {}
impl sealed::Sealed for u32 {}
impl sealed::Sealed for f32 {}

/// Element types of [`confusion_transpose`]: `int16_t`, `uint16_t`, `half`, `int32_t`,
/// `uint32_t`, `float` (the vendor's check on Ascend910B and Ascend310P).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<u8>, tiling: &ConfusionTransposeTiling) {
///     confusion_transpose(t, t, t, TransposeType::TRANSPOSE_ND2ND_ONLY, tiling)
/// }
/// ```
pub trait ConfusionTransposeElement: TransDataTo5HDElement + sealed::Sealed {}
impl ConfusionTransposeElement for i16 {}
impl ConfusionTransposeElement for u16 {}
impl ConfusionTransposeElement for f16 {}
impl ConfusionTransposeElement for i32 {}
impl ConfusionTransposeElement for u32 {}
impl ConfusionTransposeElement for f32 {}

const API: &str = "ConfusionTranspose";

/// The vendor's `BLOCK_CUBE`: the side of a fractal.
const BLOCK_CUBE: usize = 16;
/// The vendor's `CUBE_MAX_SIZE`: the elements of a 16×16 fractal.
const CUBE_MAX_SIZE: usize = BLOCK_CUBE * BLOCK_CUBE;
/// The vendor's `TWO_TIMES`: scenes 3 to 6 keep two fractals in the scratch.
const TWO_TIMES: usize = 2;
/// `TransDataTo5HD`'s 8-bit `repeatTimes` limit.
const MAX_REPEAT: usize = 255;

/// `ConfusionTranspose`'s tiling (AscendC `ConfusionTransposeTiling`: 18 `uint32_t`s
/// `param0..param17`, which each scenario reads as its own struct), from
/// [`get_confusion_transpose_tiling_info`] or [`get_confusion_transpose_only_tiling_info`] on
/// the host. `#[repr(C)]` and [`Pod`], so it travels in a kernel's tiling data as the vendor's
/// does.
///
/// For `TRANSPOSE_NZ2ND_0213` / `TRANSPOSE_NZ2NZ_0213` (`ConfusionTranspose0213Tiling`) the
/// params are `blockSize, shapeB, shapeA1, alignA3, alignA2, widthTiling, newPopSize,
/// newPopH, needSize, mainBlocks, tailSize, alignA2MulAlignA3, batchOffset, alignA3MulA1,
/// shapeA1BlockCube, mainOffset`; for `TRANSPOSE_ND2ND_ONLY` (`ConfusionTransposeOnlyTiling`)
/// `blockSize, height, width, highBlock, stride, repeat`; for scenes 3 to 6 see
/// [`get_confusion_transpose_tiling_info`].
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct ConfusionTransposeTiling {
    /// `param0`.
    pub param0: u32,
    /// `param1`.
    pub param1: u32,
    /// `param2`.
    pub param2: u32,
    /// `param3`.
    pub param3: u32,
    /// `param4`.
    pub param4: u32,
    /// `param5`.
    pub param5: u32,
    /// `param6`.
    pub param6: u32,
    /// `param7`.
    pub param7: u32,
    /// `param8`.
    pub param8: u32,
    /// `param9`.
    pub param9: u32,
    /// `param10`.
    pub param10: u32,
    /// `param11`.
    pub param11: u32,
    /// `param12`.
    pub param12: u32,
    /// `param13`.
    pub param13: u32,
    /// `param14`.
    pub param14: u32,
    /// `param15`.
    pub param15: u32,
    /// `param16`.
    pub param16: u32,
    /// `param17`.
    pub param17: u32,
}

impl ConfusionTransposeTiling {
    /// The params as an array, `param0` first.
    fn params(&self) -> [usize; 18] {
        let p: [u32; 18] = bytemuck::cast(*self);
        p.map(|v| v as usize)
    }

    /// A tiling with `values` in `param0..`, the rest 0.
    fn from_params(values: &[usize]) -> Self {
        let mut p = [0u32; 18];
        for (d, &v) in p.iter_mut().zip(values) {
            *d = v as u32;
        }
        bytemuck::cast(p)
    }
}

// ---------------------------------------------------------------------------------------
// Host tiling
// ---------------------------------------------------------------------------------------

/// The scenarios `ConfusionTranspose` has on Ascend910B and Ascend310P.
const SUPPORTED: [TransposeType; 7] = [
    TransposeType::TRANSPOSE_NZ2ND_0213,
    TransposeType::TRANSPOSE_NZ2NZ_0213,
    TransposeType::TRANSPOSE_NZ2NZ_012_WITH_N,
    TransposeType::TRANSPOSE_NZ2ND_012_WITH_N,
    TransposeType::TRANSPOSE_NZ2ND_012_WITHOUT_N,
    TransposeType::TRANSPOSE_NZ2NZ_012_WITHOUT_N,
    TransposeType::TRANSPOSE_ND2ND_ONLY,
];

/// Fails unless `t` is one of the seven scenarios of Ascend910B and Ascend310P.
#[track_caller]
fn check_type(api: &'static str, t: TransposeType) {
    ensure(SUPPORTED.contains(&t), api, || {
        format!(
            "transposeType = {t} is not supported; on Ascend910B and Ascend310P it must be one of {}",
            SUPPORTED.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join(", ")
        )
    });
}

/// The shape's dimensions, failing unless it has `n` of them, none 0, and `type_size` is 2
/// or 4 (the vendor's `typeSize > 0` assertion; its `ONE_BLK_SIZE / typeSize` needs 2 or 4).
#[track_caller]
fn dims<const N: usize>(api: &'static str, shape: &[usize], type_size: usize, what: &str) -> [usize; N] {
    ensure(shape.len() == N, api, || {
        format!("srcShape = {shape:?} has {} dimensions; it must be {what}", shape.len())
    });
    ensure(shape.iter().all(|&d| d > 0), api, || format!("srcShape = {shape:?} has a dimension of 0"));
    ensure(type_size == 2 || type_size == 4, api, || {
        format!("typeSize = {type_size} is unsupported; it must be 2 or 4")
    });
    std::array::from_fn(|i| shape[i])
}

/// `v` rounded up to a multiple of 16.
const fn align16(v: usize) -> usize {
    v.div_ceil(BLOCK_CUBE) * BLOCK_CUBE
}

/// The temporary buffer's `(max, min)` bytes for `ConfusionTranspose` of `transpose_type` on
/// a source of shape `src_shape` (AscendC `GetConfusionTransposeMaxMinTmpSize(srcShape,
/// typeSize, transposeTypeIn, maxValue, minValue)`, also named `GetTransposeMaxMinTmpSize`),
/// `type_size` 2 or 4:
/// - `TRANSPOSE_NZ2ND_0213` / `TRANSPOSE_NZ2NZ_0213`, `[B, A1, A2, A3]`: the maximum holds
///   the `alignA2 * 16` elements of one column block (`alignA2` = `A2` rounded up to 16), the
///   minimum one fractal (256 elements);
/// - scenes 3 to 6, `[B, N, S, H/N]`: two fractals, both;
/// - `TRANSPOSE_ND2ND_ONLY`, `[H, W]`: none.
///
/// ```
/// use ascend_core::prelude::*;
/// let t = TransposeType::TRANSPOSE_NZ2ND_0213;
/// assert_eq!(get_confusion_transpose_max_min_tmp_size(&[1, 2, 64, 32], 2, t), (2048, 512));
/// let t = TransposeType::TRANSPOSE_NZ2ND_012_WITH_N;
/// assert_eq!(get_confusion_transpose_max_min_tmp_size(&[1, 2, 64, 32], 4, t), (2048, 2048));
/// ```
///
/// # Panics
/// Panics if `transpose_type` is not one of the seven scenarios of Ascend910B and Ascend310P
/// (the vendor leaves the outputs unset), the shape has the wrong number of dimensions or a 0,
/// or `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_confusion_transpose_max_min_tmp_size(
    src_shape: &[usize],
    type_size: usize,
    transpose_type: TransposeType,
) -> (usize, usize) {
    const API: &str = "GetConfusionTransposeMaxMinTmpSize";
    check_type(API, transpose_type);
    match transpose_type {
        TransposeType::TRANSPOSE_NZ2ND_0213 | TransposeType::TRANSPOSE_NZ2NZ_0213 => {
            let [_, _, a2, _] = dims::<4>(API, src_shape, type_size, "[B, A1, A2, A3]");
            (align16(a2) * BLOCK_CUBE * type_size, CUBE_MAX_SIZE * type_size)
        }
        TransposeType::TRANSPOSE_ND2ND_ONLY => {
            dims::<2>(API, src_shape, type_size, "[H, W]");
            (0, 0)
        }
        _ => {
            dims::<4>(API, src_shape, type_size, "[B, N, S, H/N]");
            let two = TWO_TIMES * CUBE_MAX_SIZE * type_size;
            (two, two)
        }
    }
}

/// `ConfusionTranspose`'s tiling for `transpose_type` on a source of shape `src_shape` with a
/// temporary buffer of `stack_buffer_size` bytes (AscendC `GetConfusionTransposeTilingInfo(
/// srcShape, stackBufferSize, typeSize, transposeTypeIn, tiling)`, also named
/// `GetTransposeTilingInfo`), the vendor's numbers:
/// - `TRANSPOSE_NZ2ND_0213` / `TRANSPOSE_NZ2NZ_0213`, `[B, A1, A2, A3]`: see
///   [`ConfusionTransposeTiling`]; `newPopSize` is the buffer in whole fractals, `needSize =
///   alignA2 * 16`, `mainBlocks = needSize / newPopSize`, `tailSize = needSize % newPopSize`;
/// - `TRANSPOSE_NZ2NZ_012_WITH_N`, `[B, N, S, H/N]`: `blockSize, shapeB, shapeN, hnDiv,
///   blockNum, shapeH, hBlockNum, sBlockNum, alignH, alignS, hnDivBlockNum, alignHnDiv, gap,
///   alignsBlockCube, prehBlockNum, dstBatchOffset, srcBatchOffset`;
/// - `TRANSPOSE_NZ2ND_012_WITH_N`: `blockSize, shapeB, shapeN, hnDiv, shapeH, hBlockNum,
///   sBlockNum, hnDivBlockNum, alignHnDiv, gap, alignsCube, prehBlockNum,
///   alignsMulAlignHnDiv, alignHnDivCube, alignHnDivBlockSize, dstBatchOffset,
///   srcBatchOffset, blockNum`;
/// - `TRANSPOSE_NZ2ND_012_WITHOUT_N` / `TRANSPOSE_NZ2NZ_012_WITHOUT_N`: `blockSize, shapeB,
///   shapeN, hnDiv, shapeH, hBlockNum, sBlockNum, hnDivBlockNum, alignH, alignsCube,
///   alignhBlockCube, blockSizeMulAlignH, srcBatchOffset, dstBatchOffset, blockNum`;
/// - `TRANSPOSE_ND2ND_ONLY`: [`get_confusion_transpose_only_tiling_info`].
///
/// ```
/// use ascend_core::prelude::*;
/// let t = get_confusion_transpose_tiling_info(&[1, 2, 64, 32], 512, 2, TransposeType::TRANSPOSE_NZ2ND_0213);
/// // blockSize 16, B 1, A1 2, alignA3 32, alignA2 64, 2 column blocks, 256-element rounds.
/// assert_eq!([t.param0, t.param1, t.param2, t.param3, t.param4, t.param5, t.param6], [16, 1, 2, 32, 64, 2, 256]);
/// // newPopH 16, needSize 1024: 4 rounds, no tail.
/// assert_eq!([t.param7, t.param8, t.param9, t.param10], [16, 1024, 4, 0]);
/// ```
///
/// # Panics
/// Panics as [`get_confusion_transpose_max_min_tmp_size`]; and for scenes 1 and 2 if
/// `stack_buffer_size` is below its minimum (one fractal: the vendor divides by 0).
#[track_caller]
pub fn get_confusion_transpose_tiling_info(
    src_shape: &[usize],
    stack_buffer_size: usize,
    type_size: usize,
    transpose_type: TransposeType,
) -> ConfusionTransposeTiling {
    const API: &str = "GetConfusionTransposeTilingInfo";
    check_type(API, transpose_type);
    let block_size = ONE_BLK_SIZE / type_size.max(1);
    match transpose_type {
        TransposeType::TRANSPOSE_NZ2ND_0213 | TransposeType::TRANSPOSE_NZ2NZ_0213 => {
            let [b, a1, a2, a3] = dims::<4>(API, src_shape, type_size, "[B, A1, A2, A3]");
            let min = CUBE_MAX_SIZE * type_size;
            ensure(stack_buffer_size >= min, API, || {
                format!(
                    "stackBufferSize = {stack_buffer_size} is below the minimum {min} bytes (one 16x16 fractal; see \
                     GetConfusionTransposeMaxMinTmpSize)"
                )
            });
            let align_a2 = align16(a2);
            let width_tiling = a3.div_ceil(BLOCK_CUBE);
            let align_a3 = width_tiling * BLOCK_CUBE;
            let new_pop_size = stack_buffer_size / type_size / CUBE_MAX_SIZE * CUBE_MAX_SIZE;
            let new_pop_h = new_pop_size / BLOCK_CUBE;
            let need_size = align_a2 * BLOCK_CUBE;
            let main_blocks = need_size / new_pop_size;
            let align_a3_mul_a1 = a1 * align_a3;
            ConfusionTransposeTiling::from_params(&[
                block_size,
                b,
                a1,
                align_a3,
                align_a2,
                width_tiling,
                new_pop_size,
                new_pop_h,
                need_size,
                main_blocks,
                need_size % new_pop_size,
                align_a2 * align_a3,
                a1 * align_a2 * align_a3,
                align_a3_mul_a1,
                a1 * BLOCK_CUBE,
                new_pop_h * main_blocks * align_a3_mul_a1,
            ])
        }
        TransposeType::TRANSPOSE_ND2ND_ONLY => get_only(API, src_shape, type_size),
        _ => {
            let [b, n, s, hn_div] = dims::<4>(API, src_shape, type_size, "[B, N, S, H/N]");
            let block_num = BLOCK_CUBE / block_size;
            let shape_h = hn_div * n;
            let h_block_num = shape_h.div_ceil(BLOCK_CUBE);
            let s_block_num = s.div_ceil(BLOCK_CUBE);
            let align_h = h_block_num * BLOCK_CUBE;
            let align_s = s_block_num * BLOCK_CUBE;
            let hn_div_block_num = hn_div.div_ceil(BLOCK_CUBE);
            let align_hn_div = hn_div_block_num * BLOCK_CUBE;
            let gap = align_hn_div - hn_div;
            let preh_block_num = n * hn_div_block_num;
            let p = match transpose_type {
                TransposeType::TRANSPOSE_NZ2NZ_012_WITH_N => vec![
                    block_size,
                    b,
                    n,
                    hn_div,
                    block_num,
                    shape_h,
                    h_block_num,
                    s_block_num,
                    align_h,
                    align_s,
                    hn_div_block_num,
                    align_hn_div,
                    gap,
                    align_s * BLOCK_CUBE,
                    preh_block_num,
                    n * align_hn_div * align_s,
                    align_h * align_s,
                ],
                TransposeType::TRANSPOSE_NZ2ND_012_WITH_N => vec![
                    block_size,
                    b,
                    n,
                    hn_div,
                    shape_h,
                    h_block_num,
                    s_block_num,
                    hn_div_block_num,
                    align_hn_div,
                    gap,
                    s_block_num * CUBE_MAX_SIZE,
                    preh_block_num,
                    align_s * align_hn_div,
                    align_hn_div * BLOCK_CUBE,
                    align_hn_div * block_size,
                    n * align_hn_div * align_s,
                    h_block_num * s_block_num * CUBE_MAX_SIZE,
                    block_num,
                ],
                _ => vec![
                    block_size,
                    b,
                    n,
                    hn_div,
                    shape_h,
                    h_block_num,
                    s_block_num,
                    hn_div_block_num,
                    align_h,
                    s_block_num * CUBE_MAX_SIZE,
                    align_h * BLOCK_CUBE,
                    block_size * align_h,
                    n * hn_div_block_num * BLOCK_CUBE * align_s,
                    align_h * align_s,
                    block_num,
                ],
            };
            ConfusionTransposeTiling::from_params(&p)
        }
    }
}

/// `TRANSPOSE_ND2ND_ONLY`'s tiling (the vendor's `GetConfusionTransposeOnlyTilingInfo`).
#[track_caller]
fn get_only(api: &'static str, src_shape: &[usize], type_size: usize) -> ConfusionTransposeTiling {
    let [height, width] = dims::<2>(api, src_shape, type_size, "[H, W]");
    let block_size = ONE_BLK_SIZE / type_size;
    ConfusionTransposeTiling::from_params(&[
        block_size,
        height,
        width,
        height / BLOCK_CUBE,
        height * block_size * type_size / ONE_BLK_SIZE,
        width / block_size,
    ])
}

/// `TRANSPOSE_ND2ND_ONLY`'s tiling for a source of shape `[H, W]` (AscendC
/// `GetConfusionTransposeOnlyTilingInfo(srcShape, stackBufferSize, typeSize, tiling)`;
/// `stack_buffer_size` is unused, as in the vendor's): `blockSize = 32 / typeSize, height,
/// width, highBlock = H / 16, stride = H` (blocks between the repeats' destinations),
/// `repeat = W / blockSize`.
///
/// ```
/// use ascend_core::prelude::*;
/// let t = get_confusion_transpose_only_tiling_info(&[32, 48], 0, 4);
/// assert_eq!([t.param0, t.param1, t.param2, t.param3, t.param4, t.param5], [8, 32, 48, 2, 32, 6]);
/// ```
///
/// # Panics
/// Panics if the shape is not `[H, W]` or has a 0, or `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_confusion_transpose_only_tiling_info(
    src_shape: &[usize],
    stack_buffer_size: usize,
    type_size: usize,
) -> ConfusionTransposeTiling {
    let _ = stack_buffer_size;
    get_only("GetConfusionTransposeOnlyTilingInfo", src_shape, type_size)
}

// ---------------------------------------------------------------------------------------
// Kernel
// ---------------------------------------------------------------------------------------

/// Converts `src` into `dst` as `transpose_type` says, with the temporary buffer
/// `shared_tmp_buffer` (AscendC `ConfusionTranspose(dstTensor, srcTensor, sharedTmpBuffer,
/// transposeType, tiling)`, also named `Transpose`) on Ascend910B and Ascend310P:
/// - `TRANSPOSE_NZ2ND_0213`: `src` NZ `[B, A1, A3/16, A2/16, 16, 16]` (origin `[B, A1, A2,
///   A3]`) to `dst` ND `[B, A2, A1, A3]`;
/// - `TRANSPOSE_NZ2NZ_0213`: the same source to `dst` NZ `[B, A2, A3/16, A1/16, 16, 16]`
///   (for each row of `A2`, the `A3/16` column blocks of `A1` rows of 16);
/// - `TRANSPOSE_NZ2ND_012_WITHOUT_N`: `src` NZ `[B, N, H/N/16, S/16, 16, 16]` (origin `[B, N,
///   S, H/N]`) to `dst` ND `[B, S, H]` (row stride `H` rounded up to 16; the heads' padding
///   dropped, the padding columns after `H` left with whatever the scratch held);
/// - `TRANSPOSE_NZ2NZ_012_WITHOUT_N`: the same source to `dst` NZ `[B, H/16, S/16, 16, 16]`;
/// - `TRANSPOSE_ND2ND_ONLY`: `src` ND `[H, W]` to `dst` ND `[W, H]` (H, W multiples of 16;
///   the scratch is not used).
///
/// With `H = N * H/N < 16` scenes 5 and 6 write nothing, as the vendor's: its
/// `InitConfusionTranspose012TransParams` sets `tmp2NeedRowCount = shapeH` and then
/// overwrites it with 16, so the 16 columns it waits for never gather.
///
/// `A2` and `A3` are taken rounded up to 16 (the tiling's `alignA2`, `alignA3`): the padding
/// moves with the data. `tiling` comes from [`get_confusion_transpose_tiling_info`] with the
/// same `typeSize` and a `stackBufferSize` no larger than `shared_tmp_buffer`.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut t) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 16 * 32 * 2);
/// pipe.init_tbuf(&mut b, 16 * 32 * 2);
/// pipe.init_tbuf(&mut t, 32);
/// let (src, dst) = (a.get::<u16>(), b.get::<u16>());
/// src.copy_from_slice(&(0..512).collect::<Vec<u16>>());
/// let tiling = get_confusion_transpose_tiling_info(&[16, 32], 0, 2, TransposeType::TRANSPOSE_ND2ND_ONLY);
/// confusion_transpose(&dst, &src, &t.get::<u8>(), TransposeType::TRANSPOSE_ND2ND_ONLY, &tiling);
/// // dst[w][h] = src[h][w]
/// assert_eq!(dst.get_value(16 + 3), 3 * 32 + 1);
/// ```
///
/// # Panics
/// Panics on a chip other than Ascend910B and Ascend310P; if `transpose_type` is not one of
/// the seven scenarios of these chips, or is one of scenes 3 and 4 (not ported); if a tensor
/// is not in the Unified Buffer; if the tiling's `blockSize` is not `32 / sizeof(T)`; if
/// `src` or `dst` is smaller than the tiling's shape, or the scratch smaller than one round
/// (scenes 1 and 2) or two fractals (scenes 5 and 6);
/// or if a `TransDataTo5HD` repeat count exceeds 255 or a stride 65535.
#[track_caller]
pub fn confusion_transpose<T: ConfusionTransposeElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    transpose_type: TransposeType,
    tiling: &ConfusionTransposeTiling,
) {
    check_chip(API, &V220_V200);
    for (name, pos) in [
        ("dstTensor", dst.get_position()),
        ("srcTensor", src.get_position()),
        ("sharedTmpBuffer", shared_tmp_buffer.get_position()),
    ] {
        ensure(pos.is_ub(), API, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
    }
    check_type(API, transpose_type);
    let p = tiling.params();
    ensure(p[0] == ONE_BLK_SIZE / T::SIZE, API, || {
        format!(
            "tiling.param0 (blockSize) = {}, but T = {} has {} elements per 32-byte block: the tiling was made for \
             another typeSize",
            p[0],
            T::DTYPE,
            ONE_BLK_SIZE / T::SIZE
        )
    });
    match transpose_type {
        TransposeType::TRANSPOSE_NZ2ND_0213 | TransposeType::TRANSPOSE_NZ2NZ_0213 => {
            transpose_0213(dst, src, shared_tmp_buffer, transpose_type, &p)
        }
        TransposeType::TRANSPOSE_ND2ND_ONLY => transpose_only(dst, src, &p),
        TransposeType::TRANSPOSE_NZ2ND_012_WITHOUT_N | TransposeType::TRANSPOSE_NZ2NZ_012_WITHOUT_N => {
            transpose_012(dst, src, shared_tmp_buffer, transpose_type, &p)
        }
        _ => ensure(false, API, || {
            format!(
                "transposeType = {transpose_type} (scenes 3 and 4) is not emulated yet; TRANSPOSE_NZ2ND_0213, \
                 TRANSPOSE_NZ2NZ_0213, TRANSPOSE_NZ2ND_012_WITHOUT_N, TRANSPOSE_NZ2NZ_012_WITHOUT_N and \
                 TRANSPOSE_ND2ND_ONLY are"
            )
        }),
    }
}

/// [`confusion_transpose`] with the temporary buffer taken from the stack buffer
/// ([`pop_stack_buffer`](super::pop_stack_buffer); AscendC `ConfusionTranspose(dstTensor,
/// srcTensor, transposeType, tiling)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 2 * 16 * 16 * 2);
/// pipe.init_tbuf(&mut b, 2 * 16 * 16 * 2);
/// let (src, dst) = (a.get::<f16>(), b.get::<f16>());
/// src.copy_from_slice(&(0..512).map(|i| f16::from_f32(i as f32)).collect::<Vec<_>>());
/// // [B, A1, A2, A3] = [1, 2, 16, 16]: src NZ [1, 2, 1, 1, 16, 16], dst ND [1, 16, 2, 16].
/// let t = TransposeType::TRANSPOSE_NZ2ND_0213;
/// let tiling = get_confusion_transpose_tiling_info(&[1, 2, 16, 16], 512, 2, t);
/// confusion_transpose_stack(&dst, &src, t, &tiling);
/// // dst[s = 1][a1 = 1][h = 2] = src[a1 = 1][s = 1][h = 2]
/// assert_eq!(dst.get_value(32 + 16 + 2).to_f32(), (256 + 16 + 2) as f32);
/// ```
///
/// # Panics
/// As [`confusion_transpose`]; and if the core has no `TPipe` or no space after its buffers.
#[track_caller]
pub fn confusion_transpose_stack<T: ConfusionTransposeElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    transpose_type: TransposeType,
    tiling: &ConfusionTransposeTiling,
) {
    let tmp = stack_tensor(API);
    confusion_transpose(dst, src, &tmp, transpose_type, tiling);
}

/// The UB byte address of element `idx` of `t` (`(uint64_t)t[idx].GetPhyAddr()`).
pub(super) fn at<T: Element>(t: &LocalTensor<T>, idx: usize) -> u64 {
    (t.get_phy_addr() + idx * T::SIZE) as u64
}

/// `TransDataTo5HDParams{false, false, repeat, dst, src}`, with the vendor's 8- and 16-bit
/// fields checked instead of truncated.
#[track_caller]
fn five_hd(repeat: usize, dst_stride: usize, src_stride: usize) -> TransDataTo5HDParams {
    ensure(repeat <= MAX_REPEAT, API, || {
        format!(
            "a TransDataTo5HD of {repeat} repeats: its repeatTimes is 8 bits (at most {MAX_REPEAT}); use a smaller \
             stackBufferSize in the tiling"
        )
    });
    for s in [dst_stride, src_stride] {
        ensure(s <= usize::from(u16::MAX), API, || {
            format!("a TransDataTo5HD stride of {s} blocks exceeds the 16-bit dstRepStride/srcRepStride")
        });
    }
    TransDataTo5HDParams::new(false, false, repeat as u8, dst_stride as u16, src_stride as u16)
}

/// Fails unless `t` holds `need` elements (`what` names the shape).
#[track_caller]
fn check_len<T: Element>(name: &str, t: &LocalTensor<T>, need: usize, what: &str) {
    ensure(t.get_size() >= need, API, || {
        format!("{name} has {} {} elements, less than the {need} of {what}", t.get_size(), T::DTYPE)
    });
}

/// The vendor's `InitConfusionTranspose0213TransParams` for `size` elements per round: the
/// src → tmp and tmp → dst parameters (strides 0 for a single repeat).
#[track_caller]
fn params_0213(size: usize, block_size: usize, align_a3_mul_a1: usize) -> [TransDataTo5HDParams; 2] {
    let repeat = size / CUBE_MAX_SIZE;
    let one = repeat == 1;
    let pick = |s: usize| if one { 0 } else { s };
    [
        five_hd(repeat, pick(BLOCK_CUBE / block_size), pick(CUBE_MAX_SIZE / block_size)),
        five_hd(repeat, pick(align_a3_mul_a1 * BLOCK_CUBE / block_size), pick(BLOCK_CUBE / block_size)),
    ]
}

/// Scenes 1 and 2 (`ConfusionTranspose0213Compute`).
#[track_caller]
fn transpose_0213<T: ConfusionTransposeElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: &LocalTensor<u8>,
    ty: TransposeType,
    p: &[usize; 18],
) {
    let [block_size, shape_b, shape_a1, align_a3, _align_a2, width_tiling, new_pop_size, new_pop_h, need_size, main_blocks, tail_size, align_a2_mul_align_a3, batch_offset, align_a3_mul_a1, shape_a1_block_cube, main_offset, ..] =
        *p;
    // InitConfusionTranspose0213TransParams first, as the vendor's.
    let main = params_0213(new_pop_size, block_size, align_a3_mul_a1);
    let tail = params_0213(tail_size, block_size, align_a3_mul_a1);
    let total = shape_b * batch_offset;
    check_len("srcTensor", src, total, "the tiling's [B, A1, alignA2, alignA3]");
    check_len("dstTensor", dst, total, "the tiling's [B, alignA2, A1, alignA3]");
    let round = if main_blocks > 0 { new_pop_size } else { tail_size };
    ensure(tmp.get_size() >= round * T::SIZE, API, || {
        format!(
            "sharedTmpBuffer has {} bytes, less than the {} of one round of {round} elements (the tiling's \
             newPopSize; make the tiling with a stackBufferSize no larger than the buffer)",
            tmp.get_size(),
            round * T::SIZE
        )
    });
    let nd = ty == TransposeType::TRANSPOSE_NZ2ND_0213;
    let tmp1 = tmp.reinterpret_cast::<T>();
    // The dst offset of a round starting at `base` (rows of A2 before it times alignA3MulA1).
    let dst_col = |i: usize, j: usize| {
        if nd {
            j * BLOCK_CUBE + i * align_a3
        } else {
            j * shape_a1_block_cube + i * BLOCK_CUBE
        }
    };
    for k in 0..shape_b {
        for i in 0..shape_a1 {
            for j in 0..width_tiling {
                let src_base = j * need_size + i * align_a2_mul_align_a3 + k * batch_offset;
                let dst_base = dst_col(i, j) + k * batch_offset;
                for m in 0..main_blocks {
                    round_0213(
                        dst,
                        src,
                        &tmp1,
                        new_pop_h,
                        block_size,
                        src_base + new_pop_size * m,
                        dst_base + new_pop_h * m * align_a3_mul_a1,
                        align_a3_mul_a1,
                        &main,
                    );
                }
                if tail_size != 0 {
                    round_0213(
                        dst,
                        src,
                        &tmp1,
                        new_pop_h,
                        block_size,
                        src_base + new_pop_size * main_blocks,
                        dst_base + main_offset,
                        align_a3_mul_a1,
                        &tail,
                    );
                }
            }
        }
    }
}

/// One round of scenes 1 and 2 (`ConfusionTranspose0213{Main,Tail}{Half,Float}`): src →
/// tmp1 (rows of `newPopH`), then tmp1 → dst; for 32-bit types each in two passes of 8
/// columns, the 16 entries in pairs (a row's two 8-element halves).
#[allow(clippy::too_many_arguments)]
#[track_caller]
fn round_0213<T: ConfusionTransposeElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp1: &LocalTensor<T>,
    new_pop_h: usize,
    block_size: usize,
    src_off: usize,
    dst_off: usize,
    align_a3_mul_a1: usize,
    params: &[TransDataTo5HDParams; 2],
) {
    const L: usize = NCHW_CONV_ADDR_LIST_SIZE;
    if T::SIZE == 2 {
        let tmp_list: [u64; L] = std::array::from_fn(|n| at(tmp1, new_pop_h * n));
        let src_list: [u64; L] = std::array::from_fn(|n| at(src, src_off + BLOCK_CUBE * n));
        pipe_barrier::<PIPE_V>();
        trans_data_to_5hd_addr::<T>(&tmp_list, &src_list, &params[0]);
        let dst_list: [u64; L] = std::array::from_fn(|n| at(dst, dst_off + align_a3_mul_a1 * n));
        pipe_barrier::<PIPE_V>();
        trans_data_to_5hd_addr::<T>(&dst_list, &tmp_list, &params[1]);
    } else {
        for pass in 0..2 {
            let tmp_list: [u64; L] = std::array::from_fn(|n| {
                at(tmp1, pass * block_size * new_pop_h + new_pop_h * (n / 2) + (n % 2) * block_size)
            });
            let src_list: [u64; L] =
                std::array::from_fn(|n| at(src, pass * block_size + src_off + BLOCK_CUBE * n));
            pipe_barrier::<PIPE_V>();
            trans_data_to_5hd_addr::<T>(&tmp_list, &src_list, &params[0]);
        }
        for pass in 0..2 {
            let dst_list: [u64; L] = std::array::from_fn(|n| {
                at(
                    dst,
                    pass * block_size * align_a3_mul_a1
                        + dst_off
                        + align_a3_mul_a1 * (n / 2)
                        + (n % 2) * block_size,
                )
            });
            let tmp_list: [u64; L] = std::array::from_fn(|n| at(tmp1, pass * block_size + new_pop_h * n));
            pipe_barrier::<PIPE_V>();
            trans_data_to_5hd_addr::<T>(&dst_list, &tmp_list, &params[1]);
        }
    }
}

/// Scene 7 (`ConfusionTransposeOnlyCompute`): per 16 rows of `src`, one `TransDataTo5HD` of
/// `repeat` repeats (no `PipeBarrier`, as in the vendor's).
#[track_caller]
fn transpose_only<T: ConfusionTransposeElement>(dst: &LocalTensor<T>, src: &LocalTensor<T>, p: &[usize; 18]) {
    const L: usize = NCHW_CONV_ADDR_LIST_SIZE;
    let [block_size, height, width, high_block, stride, repeat, ..] = *p;
    // The kernel writes through raw UB addresses (the address-list `TransDataTo5HD`), which no
    // tensor bounds: a tiling other than the host helper's for its own `[H, W]` would write
    // outside `dst` on the chip too, silently. Every field must be what
    // `GetConfusionTransposeOnlyTilingInfo` makes (`block_size` was checked by the caller).
    let want = [block_size, height, width, height / BLOCK_CUBE, height, width / block_size];
    for (k, (&got, &want)) in p[..6].iter().zip(&want).enumerate() {
        ensure(got == want, API, || {
            format!(
                "tiling.param{k} = {got}, but GetConfusionTransposeOnlyTilingInfo makes {want} for [H, W] = \
                 [{height}, {width}] (param1, param2): a tiling not made by the host helper would write outside \
                 dstTensor"
            )
        });
    }
    check_len("srcTensor", src, height * width, "the tiling's [H, W]");
    check_len("dstTensor", dst, height * width, "the tiling's [W, H]");
    let params = if repeat > 1 { five_hd(repeat, stride, 1) } else { five_hd(repeat, 0, 0) };
    for i in 0..high_block {
        let dst_list: [u64; L] = if T::SIZE == 2 {
            std::array::from_fn(|m| at(dst, i * BLOCK_CUBE + height * m))
        } else {
            std::array::from_fn(|m| at(dst, i * BLOCK_CUBE + height * (m / 2) + (m % 2) * block_size))
        };
        let src_list: [u64; L] = std::array::from_fn(|n| at(src, i * width * BLOCK_CUBE + width * n));
        trans_data_to_5hd_addr::<T>(&dst_list, &src_list, &params);
    }
}

/// The row counters of scenes 5 and 6 (the vendor's `ConfusionTranspose012Params`).
struct State012 {
    /// Rows left in tmp1 (`tmp1RemainRowCount`).
    tmp1_remain: usize,
    /// Rows tmp2 still needs before its transpose to `dst` (`tmp2NeedRowCount`).
    tmp2_need: usize,
    /// 16-column blocks of `H` written for this `S` block (`transdataRepeat`).
    transdata_repeat: usize,
    /// Rows in tmp2 (`tmp2Count`).
    tmp2_count: usize,
    /// First tmp1 row not yet moved (`tmp1Count`).
    tmp1_count: usize,
    /// Columns of `H` gathered for this `S` block (`dstAllCount`).
    dst_all: usize,
    /// Columns of the current head gathered (`dstPreHnCount`).
    dst_pre_hn: usize,
}

/// Scenes 5 and 6 (`ConfusionTranspose012Compute`): per batch and 16-row block of `S`, each
/// 16-column block of each head is transposed into tmp1 (16 rows of `S`), its valid rows
/// (`hnDiv` is not padded in `dst`) copied onto tmp2 until it holds 16 columns of `H` (or the
/// last ones), which are transposed into `dst`. tmp1 is the scratch's first fractal, tmp2 the
/// second.
///
/// As in the vendor's `InitConfusionTranspose012TransParams`, `tmp2NeedRowCount` starts at
/// 16 even when `H < 16` (its `shapeH` assignment is overwritten): then no 16 columns ever
/// gather and `dst` is not written.
#[track_caller]
fn transpose_012<T: ConfusionTransposeElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: &LocalTensor<u8>,
    ty: TransposeType,
    p: &[usize; 18],
) {
    let [_, shape_b, shape_n, hn_div, _, _, s_block_num, hn_div_block_num, _, _, _, _, src_batch_offset, dst_batch_offset, _, ..] =
        *p;
    check_len("srcTensor", src, shape_b * src_batch_offset, "the tiling's [B, N, alignHnDiv, alignS]");
    check_len("dstTensor", dst, shape_b * dst_batch_offset, "the tiling's [B, alignS, alignH]");
    let need = TWO_TIMES * CUBE_MAX_SIZE * T::SIZE;
    ensure(tmp.get_size() >= need, API, || {
        format!(
            "sharedTmpBuffer has {} bytes, less than the {need} of two 16x16 fractals (see \
             GetConfusionTransposeMaxMinTmpSize)",
            tmp.get_size()
        )
    });
    let tmp1 = tmp.reinterpret_cast::<T>();
    let tmp2 = tmp1.view(CUBE_MAX_SIZE);
    let mut st = State012 {
        tmp1_remain: 0,
        tmp2_need: BLOCK_CUBE,
        transdata_repeat: 0,
        tmp2_count: 0,
        tmp1_count: 0,
        dst_all: 0,
        dst_pre_hn: 0,
    };
    let nd = ty == TransposeType::TRANSPOSE_NZ2ND_012_WITHOUT_N;
    for k in 0..shape_b {
        st.transdata_repeat = 0;
        for j in 0..s_block_num {
            st.transdata_repeat = 0;
            for i in 0..hn_div_block_num * shape_n {
                st.tmp1_count = 0;
                src_to_tmp1_012(src, &tmp1, p, &mut st, i, j, k);
                if st.dst_pre_hn == hn_div {
                    st.dst_pre_hn = 0;
                }
                // ConfusionTranspose012Tmp1ToTmp2: the rows from tmp1's start.
                let rows = st.tmp2_need.min(st.tmp1_remain);
                if rows != 0 {
                    copy_rows_012(&tmp2, &tmp1, p, &st, 0, rows);
                    st.tmp1_count += rows;
                    st.dst_all += rows;
                    st.dst_pre_hn += rows;
                    st.tmp2_count += rows;
                    st.tmp1_remain -= rows;
                    st.tmp2_need -= rows;
                }
                tmp2_to_dst_012(dst, &tmp2, p, &mut st, nd, j, k);
                while st.tmp1_remain != 0 {
                    // ConfusionTranspose012Tmp1ToTmp2Remain: from row tmp1Count, which it does not
                    // advance; when tmp1 runs out it sets tmp2Count (not adds), as the vendor's.
                    if st.tmp2_need != 0 {
                        let rows = st.tmp2_need.min(st.tmp1_remain);
                        copy_rows_012(&tmp2, &tmp1, p, &st, st.tmp1_count, rows);
                        st.dst_all += rows;
                        st.dst_pre_hn += rows;
                        if st.tmp1_remain >= st.tmp2_need {
                            st.tmp2_count += rows;
                        } else {
                            st.tmp2_count = rows;
                        }
                        st.tmp1_remain -= rows;
                        st.tmp2_need -= rows;
                    }
                    tmp2_to_dst_012(dst, &tmp2, p, &mut st, nd, j, k);
                }
            }
        }
    }
}

/// `ConfusionTranspose012Tmp1RemainRowCountZero`: when tmp1 is empty, the fractal `(i, j)`
/// of batch `k` transposed into it, and the count of its valid rows.
#[track_caller]
fn src_to_tmp1_012<T: ConfusionTransposeElement>(
    src: &LocalTensor<T>,
    tmp1: &LocalTensor<T>,
    p: &[usize; 18],
    st: &mut State012,
    i: usize,
    j: usize,
    k: usize,
) {
    const L: usize = NCHW_CONV_ADDR_LIST_SIZE;
    if st.tmp1_remain != 0 {
        return;
    }
    let (block_size, hn_div, aligns_cube, src_batch_offset) = (p[0], p[3], p[9], p[12]);
    let one = TransDataTo5HDParams::new(false, false, 1, 0, 0);
    let base = i * aligns_cube + j * CUBE_MAX_SIZE + k * src_batch_offset;
    if T::SIZE == 2 {
        let dl: [u64; L] = std::array::from_fn(|n| at(tmp1, BLOCK_CUBE * n));
        let sl: [u64; L] = std::array::from_fn(|n| at(src, base + BLOCK_CUBE * n));
        pipe_barrier::<PIPE_V>();
        trans_data_to_5hd_addr::<T>(&dl, &sl, &one);
    } else {
        for m in 0..2 {
            let dl: [u64; L] = std::array::from_fn(|n| at(tmp1, m * CUBE_MAX_SIZE / 2 + block_size * n));
            let sl: [u64; L] = std::array::from_fn(|n| at(src, base + m * block_size + BLOCK_CUBE * n));
            pipe_barrier::<PIPE_V>();
            trans_data_to_5hd_addr::<T>(&dl, &sl, &one);
        }
    }
    st.tmp1_remain = if hn_div > BLOCK_CUBE {
        if st.dst_pre_hn < hn_div && st.dst_pre_hn + BLOCK_CUBE > hn_div {
            hn_div - st.dst_pre_hn
        } else {
            BLOCK_CUBE
        }
    } else {
        hn_div
    };
}

/// `DataCopy(tmp2[tmp2Count * 16], tmp1[from * 16], {1, rows * blockNum, 0, 0})`.
#[track_caller]
fn copy_rows_012<T: ConfusionTransposeElement>(
    tmp2: &LocalTensor<T>,
    tmp1: &LocalTensor<T>,
    p: &[usize; 18],
    st: &State012,
    from: usize,
    rows: usize,
) {
    let block_num = p[14];
    pipe_barrier::<PIPE_V>();
    data_copy_params(
        &tmp2.view(st.tmp2_count * BLOCK_CUBE),
        &tmp1.view(from * BLOCK_CUBE),
        &DataCopyParams::new(1, (rows * block_num) as u16, 0, 0),
    );
}

/// `ConfusionTranspose012Tmp2ToDst`: when tmp2 is full, its 16 rows (columns of `H`)
/// transposed into `dst`, and the counters moved to the next 16 columns.
#[track_caller]
fn tmp2_to_dst_012<T: ConfusionTransposeElement>(
    dst: &LocalTensor<T>,
    tmp2: &LocalTensor<T>,
    p: &[usize; 18],
    st: &mut State012,
    nd: bool,
    j: usize,
    k: usize,
) {
    const L: usize = NCHW_CONV_ADDR_LIST_SIZE;
    if st.tmp2_need != 0 {
        return;
    }
    let [block_size, _, _, _, shape_h, h_block_num, _, _, align_h, aligns_cube, alignh_block_cube, block_size_mul_align_h, _, dst_batch_offset, ..] =
        *p;
    let one = TransDataTo5HDParams::new(false, false, 1, 0, 0);
    let r = st.transdata_repeat;
    let kb = k * dst_batch_offset;
    if T::SIZE == 2 {
        let dl: [u64; L] = std::array::from_fn(|n| {
            at(
                dst,
                if nd {
                    r * BLOCK_CUBE + j * alignh_block_cube + align_h * n + kb
                } else {
                    r * aligns_cube + j * CUBE_MAX_SIZE + BLOCK_CUBE * n + kb
                },
            )
        });
        let sl: [u64; L] = std::array::from_fn(|n| at(tmp2, BLOCK_CUBE * n));
        pipe_barrier::<PIPE_V>();
        trans_data_to_5hd_addr::<T>(&dl, &sl, &one);
    } else {
        for m in 0..2 {
            let dl: [u64; L] = std::array::from_fn(|n| {
                at(
                    dst,
                    if nd {
                        r * BLOCK_CUBE
                            + j * alignh_block_cube
                            + m * block_size_mul_align_h
                            + align_h * (n / 2)
                            + (n % 2) * block_size
                            + kb
                    } else {
                        r * aligns_cube + j * CUBE_MAX_SIZE + m * CUBE_MAX_SIZE / 2 + block_size * n + kb
                    },
                )
            });
            let sl: [u64; L] = std::array::from_fn(|n| at(tmp2, m * block_size + BLOCK_CUBE * n));
            pipe_barrier::<PIPE_V>();
            trans_data_to_5hd_addr::<T>(&dl, &sl, &one);
        }
    }
    st.tmp2_count = 0;
    st.transdata_repeat += 1;
    if st.dst_all == shape_h {
        st.tmp1_remain = 0;
        st.dst_all = 0;
    }
    st.tmp2_need = if st.transdata_repeat + 1 != h_block_num {
        BLOCK_CUBE
    } else {
        shape_h - st.transdata_repeat * BLOCK_CUBE
    };
}
