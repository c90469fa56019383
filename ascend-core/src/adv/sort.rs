//! Sorting functions of the advanced API (the vendor's `adv_api/sort`): `TopK` ([`top_k`],
//! [`top_k_stack`]) with its tiling struct [`TopkTiling`], its shape [`TopKInfo`], its modes
//! [`TopKMode`] and host helpers ([`get_top_k_max_min_tmp_size`], [`top_k_tiling_func`]).
//!
//! `TopK` is the vendor's merge-sort algorithm (`topk_common_impl.h` with `topk_v220_impl.h`)
//! on Ascend910B, built from the basic sorting instructions: per row of `inner` elements,
//! `Sort32` on groups of 32 (score, index) regions, `MrgSort` four lists at a time while four
//! lists fit, then `MrgSort` two lists at a time (each truncated to `k`), then `GatherMask`
//! picks the scores and the indices out of the regions (normal mode, `TopKMode::TopkNormal`).
//! Small mode (`TopKMode::TopkNsmall`, `inner == 32`) sorts every row with one `Sort32` of
//! `outter` repeats and gathers with user bit patterns the host tiling prepared. The smallest
//! `k` (`is_largest = false`) sorts the negated source (`Muls` by -1) and negates the result
//! back — over the destination's padded rows (`maskOffset` elements), so the padding of each
//! row (`k` up to `kAlignFourBytes`/`kAlignTwoBytes`) is negated too, as on the hardware.
//!
//! The vendor's Ascend310P implementation (`topk_v200_impl.h`, Region Proposals with `RpSort16`
//! and `MrgSort4`) is not built here: on Ascend310P [`top_k`] fails naming the chip. The host
//! helpers do return the vendor's Ascend310P numbers.
//!
//! **Alignment.** This emulator's `Sort32` enforces its page's per-repeat alignment (src0 128
//! bytes for `float` / 64 for `half`, src1 128, dst 256) on absolute UB addresses, so
//! `tmp_local` (whose start is `TopK`'s `Sort32` destination) must start on a 256-byte
//! boundary; the vendor's page asks 32 bytes of it, and its `topk` example's buffer starts at
//! byte 544. Small mode's generated indices, which the vendor's layout puts 64 bytes past a
//! 128-byte boundary, are moved 64 bytes earlier with the same results (see
//! `nsmall_index_offset`).
//!
//! AscendC's `LocalTensor<bool>` `finishLocal` is a `LocalTensor<u8>` here (a C++ `bool` is one
//! byte; a non-zero byte is `true`).
//!
//! The order is the basic instructions' (see [`sort32`]): by score,
//! largest first, stable (of equal scores the earlier element first), NaN above `+inf`,
//! `-0 == +0`. All `inner` elements of a row take part; `n` only gives the index written into
//! a finished row (`isHasfinish`).

use bytemuck::{Pod, Zeroable};

use crate::element::{f16, Element};
use crate::kernel::error::ensure;
use crate::memory::copy::{data_copy_params, DataCopyParams};
use crate::memory::tensor::LocalTensor;
use crate::soc::Soc;
use crate::sync::{
    event::{Event, HardEvent, PIPE_V},
    flags::{fetch_free_event, pipe_barrier, set_flag_event, wait_flag_event},
};
use crate::vector::copy::{copy_masked, CopyRepeatParams};
use crate::vector::duplicate::duplicate_masked;
use crate::vector::gather_mask::{gather_mask, GatherMaskParams, GatherPattern};
use crate::vector::mask::{reset_mask, set_mask_count, set_mask_norm, MASK_PLACEHOLDER};
use crate::vector::params::UnaryRepeatParams;
use crate::vector::scalar::muls_masked;
use crate::vector::sort::{mrg_sort, sort32, MrgSort4Info, MrgSortSrcList, SortElement};

use super::index::arith_progression;
use super::{check_chip, count_mask, stack_tensor, ONE_BLK_SIZE};

mod sealed {
    pub trait Sealed {}
}
impl sealed::Sealed for f16 {}
impl sealed::Sealed for f32 {}

/// Element types of [`top_k`]: `half` and `float` (the vendor's merge-sort algorithm).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(v: &LocalTensor<i32>, i: &LocalTensor<i32>, b: &LocalTensor<u8>, t: &TopkTiling) {
///     top_k::<_, false, false, false>(v, i, v, i, b, b, 1, t, &TopKInfo::new(1, 32, 32), true, TopKMode::TopkNormal)
/// }
/// ```
pub trait TopKElement:
    SortElement + crate::vector::gather::GatherElement + crate::vector::scalar::MulsElement + sealed::Sealed
{
    /// The negation `Muls(·, T(-1))` multiplies by.
    #[doc(hidden)]
    const MINUS_ONE: Self;
}
impl TopKElement for f16 {
    const MINUS_ONE: Self = f16::NEG_ONE;
}
impl TopKElement for f32 {
    const MINUS_ONE: Self = -1.0;
}

const TOP_K: &str = "TopK";

/// The chips this emulator runs `TopK` on (the vendor's `__NPU_ARCH__` 2201).
const TOP_K_CHIPS: [Soc; 1] = [Soc::Ascend910B];

/// `Sort32`'s group (`MIN_SORT32_SIZE`).
const MIN_SORT32_SIZE: usize = 32;
/// Lists of one four-way merge (`MRGSORT_VALID_QUEUE`).
const MRGSORT_VALID_QUEUE: usize = 4;
/// `inner`'s alignment (`TOPK_INNER_ALIGN_LEN`).
const TOPK_INNER_ALIGN_LEN: usize = 32;
/// The largest `inner` of normal mode (`TOPK_NORMAL_INNER_MAX_LEN`).
const TOPK_NORMAL_INNER_MAX_LEN: usize = 4096;
/// `inner` of small mode (`TOPK_NSMALL_INNER_LEN`).
const TOPK_NSMALL_INNER_LEN: usize = 32;
/// The `half` pattern words before the index pattern (`SRC1_STACK_VAL_OFFSET`, in `half`s).
const SRC1_STACK_VAL_OFFSET: usize = 16;
/// `GatherMask`'s counter-mode mask of small mode: one row of regions (`VREDUCEV2_*_MASK`).
const VREDUCEV2_HALF_MASK: u32 = 128;
const VREDUCEV2_FOUR_BYTE_MASK: u32 = 64;
/// The pattern block of small mode on Ascend910B (`TOPKNSMALL_MASK_BYTES`).
const TOPKNSMALL_MASK_BYTES: usize = 64;

/// `TopK`'s two modes (AscendC `TopKMode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TopKMode {
    /// `TOPK_NORMAL`: any `inner` (a multiple of 32, at most 4096), one row at a time.
    #[default]
    TopkNormal,
    /// `TOPK_NSMALL`: `inner == 32`, all rows at once.
    TopkNsmall,
}

/// The shape of `TopK`'s source (AscendC `TopKInfo`): `outter` rows of `inner` elements, of
/// which the first `n` are data (`inner` is `n` rounded up to 32; the caller pads the rest).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TopKInfo {
    /// Rows (`outter`, default 1).
    pub outter: i32,
    /// Elements of a row, a multiple of 32 (`inner`).
    pub inner: i32,
    /// Data elements of a row (`n`).
    pub n: i32,
}

impl Default for TopKInfo {
    /// The vendor's defaults: one row, `inner = n = 0` (which `TopK` rejects).
    fn default() -> Self {
        TopKInfo { outter: 1, inner: 0, n: 0 }
    }
}

impl TopKInfo {
    /// `{outter, inner, n}`.
    pub const fn new(outter: i32, inner: i32, n: i32) -> Self {
        TopKInfo { outter, inner, n }
    }
}

/// `TopK`'s tiling (AscendC `TopkTiling`, the vendor's fields in snake_case and order), from
/// [`top_k_tiling_func`] on the host. `#[repr(C)]` and [`Pod`], so it travels in a kernel's
/// tiling data as the vendor's does. Offsets and sizes count elements of the source type.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[allow(missing_docs)]
pub struct TopkTiling {
    /// Elements of `T` the temporary buffer needs (`tmpLocalSize`).
    pub tmp_local_size: i32,
    /// `inner * outter` (`allDataSize`).
    pub all_data_size: i32,
    /// The second half of the scratch (`innerDataSize`): a row's regions in normal mode, all
    /// rows' in small mode.
    pub inner_data_size: i32,
    /// `Sort32` repeats of a row (`sortRepeat`).
    pub sort_repeat: u32,
    /// `inner / 4` (`mrgSortRepeat`).
    pub mrg_sort_repeat: i32,
    /// `k` rounded up to 8 (`kAlignFourBytes`): a row of `float` values and of indices.
    pub k_align_four_bytes: i32,
    /// `k` rounded up to 16 (`kAlignTwoBytes`): a row of `half` values.
    pub k_align_two_bytes: i32,
    /// Values negated back when `isLargest` is false (`maskOffset`).
    pub mask_offset: i32,
    /// `2 * k` (`maskVreducev2FourBytes`).
    pub mask_vreducev2_four_bytes: i32,
    /// `4 * k` (`maskVreducev2TwoBytes`).
    pub mask_vreducev2_two_bytes: i32,
    /// Elements of `T` per region, times 1, 2, 3 (`mrgSortSrc{1,2,3}offset`).
    pub mrg_sort_src1offset: i32,
    pub mrg_sort_src2offset: i32,
    pub mrg_sort_src3offset: i32,
    /// Elements of `T` per region (`mrgSortTwoQueueSrc1Offset`).
    pub mrg_sort_two_queue_src1_offset: i32,
    /// Unused by the kernels (`mrgFourQueueTailPara1`, `mrgFourQueueTailPara2`).
    pub mrg_four_queue_tail_para1: i32,
    pub mrg_four_queue_tail_para2: i32,
    /// The generated indices in normal mode (`srcIndexOffset`).
    pub src_index_offset: i32,
    /// 32-byte blocks of a row's regions (`copyUbToUbBlockCount`).
    pub copy_ub_to_ub_block_count: u32,
    /// Small mode: the gather patterns (`topkMrgSrc1MaskSizeOffset`).
    pub topk_mrg_src1_mask_size_offset: i32,
    /// Small mode: the generated indices (`topkNSmallSrcIndexOffset`).
    pub topk_n_small_src_index_offset: i32,
    /// Small mode: the score and index gather patterns (`vreduceValMask0/1`,
    /// `vreduceIdxMask0/1`, `vreducehalfValMask0..7`).
    pub vreduce_val_mask0: u32,
    pub vreduce_val_mask1: u32,
    pub vreduce_idx_mask0: u32,
    pub vreduce_idx_mask1: u32,
    pub vreducehalf_val_mask0: u16,
    pub vreducehalf_val_mask1: u16,
    pub vreducehalf_val_mask2: u16,
    pub vreducehalf_val_mask3: u16,
    pub vreducehalf_val_mask4: u16,
    pub vreducehalf_val_mask5: u16,
    pub vreducehalf_val_mask6: u16,
    pub vreducehalf_val_mask7: u16,
}

// ---------------------------------------------------------------------------------------
// Host tiling
// ---------------------------------------------------------------------------------------

const TOP_K_HOST_CHIPS: [Soc; 2] = [Soc::Ascend910B, Soc::Ascend310P];

/// The vendor's `CheckTopKHostCommon`: `inner` a positive multiple of 32 (32 in small mode; at
/// most 2048 on Ascend310P without `isInitIndex`), `outter` positive, the source within the
/// UB, `dataTypeSize` 2 or 4.
#[track_caller]
fn check_host(api: &'static str, soc: Soc, inner: i32, outter: i32, init: bool, mode: TopKMode, size: u32) {
    ensure(TOP_K_HOST_CHIPS.contains(&soc), api, || {
        format!(
            "{soc} ({}) has no TopK merge-sort tiling; it exists for Ascend910B and Ascend310P",
            soc.product_line()
        )
    });
    ensure(inner > 0, api, || {
        format!("inner = {inner}: the length of the inner axis must be greater than 0")
    });
    ensure(inner % 32 == 0, api, || {
        format!("inner = {inner}: the length of the inner axis must be a multiple of 32")
    });
    if mode == TopKMode::TopkNsmall {
        ensure(inner == 32, api, || {
            format!("inner = {inner}: in small mode the length of the inner axis must be 32")
        });
    }
    if soc == Soc::Ascend310P && !init {
        ensure(inner <= 2048, api, || {
            format!(
                "inner = {inner}: on Ascend310P with isInitIndex = false the inner axis must be at most 2048"
            )
        });
    }
    ensure(outter > 0, api, || {
        format!("outter = {outter}: the length of the outter axis must be greater than 0")
    });
    ensure(size == 2 || size == 4, api, || {
        format!("dataTypeSize = {size} is unsupported; it must be 2 or 4")
    });
    let bytes = inner as u64 * outter as u64 * u64::from(size);
    ensure(bytes <= soc.ub_size() as u64, api, || {
        format!("the source holds {bytes} bytes, more than the {} bytes of the Unified Buffer", soc.ub_size())
    });
}

/// The temporary buffer's `(max, min)` bytes for `TopK` (AscendC `GetTopKMaxMinTmpSize(
/// ascendcPlatform, inner, outter, isReuseSource, isInitIndex, mode, isLargest, dataTypeSize,
/// maxValue, minValue)`; the platform is `soc`), the vendor's numbers, max = min:
/// Ascend910B normal mode `16 * inner` (+ `4 * inner` for generated indices), small mode
/// `8 * inner * outter + 64` (+ `4 * inner * outter` each for the negated source and the
/// generated indices); Ascend310P `2 * 8 * dataTypeSize` per element (+ `4 * inner` in normal
/// mode).
///
/// ```
/// use ascend_core::prelude::*;
/// let f = |mode, init, largest| get_top_k_max_min_tmp_size(Soc::Ascend910B, 32, 2, false, init, mode, largest, 4);
/// assert_eq!(f(TopKMode::TopkNormal, false, true), (640, 640));
/// assert_eq!(f(TopKMode::TopkNsmall, false, false), (1088, 1088));
/// ```
///
/// # Panics
/// Panics if the chip is neither Ascend910B nor Ascend310P, `inner` is not a positive multiple
/// of 32 (32 in small mode, at most 2048 on Ascend310P without `is_init_index`), `outter` is
/// not positive, `data_type_size` is neither 2 nor 4, or the source exceeds the UB (where the
/// vendor logs and returns).
#[allow(clippy::too_many_arguments)]
#[track_caller]
pub fn get_top_k_max_min_tmp_size(
    soc: Soc,
    inner: i32,
    outter: i32,
    is_reuse_source: bool,
    is_init_index: bool,
    mode: TopKMode,
    is_largest: bool,
    data_type_size: u32,
) -> (u32, u32) {
    let _ = is_reuse_source;
    check_host("GetTopKMaxMinTmpSize", soc, inner, outter, is_init_index, mode, data_type_size);
    let (inner, outter) = (inner as u32, outter as u32);
    let v = if soc == Soc::Ascend310P {
        match mode {
            TopKMode::TopkNormal => inner * 8 * data_type_size * 2 + inner * 4,
            TopKMode::TopkNsmall => inner * outter * 8 * data_type_size * 2,
        }
    } else {
        match mode {
            TopKMode::TopkNormal => (16 + if is_init_index { 0 } else { 4 }) * inner,
            TopKMode::TopkNsmall => {
                let all = inner * outter;
                let neg = if is_largest { 0 } else { all * 4 };
                let idx = if is_init_index { 0 } else { all * 4 };
                all * 8 + neg + TOPKNSMALL_MASK_BYTES as u32 + idx
            }
        }
    };
    (v, v)
}

/// `k` ones (`GenerateBinary1`).
fn binary1(k: i32) -> u32 {
    (0..k).fold(0u32, |m, _| (m << 1) | 1)
}
/// `k` pairs `10` (`GenerateBinary10`).
fn binary10(k: i32) -> u32 {
    (1..k).fold(2u32, |m, _| (m << 2) | m)
}
/// `k` pairs `01` (`GenerateBinary01`).
fn binary01(k: i32) -> u32 {
    (1..k).fold(1u32, |m, _| (m << 2) | m)
}
/// `k` nibbles `0001` (`GenerateBinary0001`).
fn binary0001(k: i32) -> u16 {
    (1..k).fold(1u16, |m, _| (m << 4) | m)
}

/// The gather patterns of small mode on Ascend910B (`GetVreduceMask`).
fn vreduce_masks(k: i32, size: u32, t: &mut TopkTiling) {
    if k < 17 {
        t.vreduce_idx_mask0 = binary10(k);
    } else if k <= 32 {
        t.vreduce_idx_mask0 = 2_863_311_530;
        t.vreduce_idx_mask1 = binary10(k - 16);
    }
    if size == 4 {
        if k < 17 {
            t.vreduce_val_mask0 = binary01(k);
        } else if k <= 32 {
            t.vreduce_val_mask0 = binary01(16);
            t.vreduce_val_mask1 = binary01(k - 16);
        }
    } else {
        // Word w covers elements 4w..4w+4: all four (4369 = 0x1111) once k passes them.
        let word = |w: i32| match k - 4 * w {
            r if r >= 4 && w == 0 => 4369,
            r if r >= 5 => binary0001(4),
            r if r >= 1 => binary0001(r),
            _ => 0,
        };
        t.vreducehalf_val_mask0 = if k < 5 { binary0001(k) } else { 4369 };
        let words = [
            &mut t.vreducehalf_val_mask1,
            &mut t.vreducehalf_val_mask2,
            &mut t.vreducehalf_val_mask3,
            &mut t.vreducehalf_val_mask4,
            &mut t.vreducehalf_val_mask5,
            &mut t.vreducehalf_val_mask6,
            &mut t.vreducehalf_val_mask7,
        ];
        for (w, slot) in (1..).zip(words) {
            *slot = word(w);
        }
    }
}

/// `TopK`'s tiling for `outter` rows of `inner` elements of `data_type_size` bytes and top `k`
/// (AscendC `TopKTilingFunc(ascendcPlatform, inner, outter, k, dataTypeSize, isInitIndex,
/// mode, isLargest, topKTiling)`; the platform is `soc`), the vendor's numbers for Ascend910B
/// (`SetTopkNormalVal`, `SetTopkNSmallVal`) and Ascend310P (`SetTopkNormalVal200`,
/// `SetTopkNSmallVal200`).
///
/// ```
/// use ascend_core::prelude::*;
/// let t = top_k_tiling_func(Soc::Ascend910B, 64, 3, 5, 4, false, TopKMode::TopkNormal, true);
/// assert_eq!((t.tmp_local_size, t.inner_data_size, t.src_index_offset), (320, 128, 256));
/// assert_eq!((t.k_align_four_bytes, t.mask_offset, t.mask_vreducev2_four_bytes), (8, 24, 10));
/// ```
///
/// # Panics
/// Panics as [`get_top_k_max_min_tmp_size`] does, and if `k` is outside `[1, inner]` (the
/// kernel's limit; the vendor's host function does not check it).
#[allow(clippy::too_many_arguments)]
#[track_caller]
pub fn top_k_tiling_func(
    soc: Soc,
    inner: i32,
    outter: i32,
    k: i32,
    data_type_size: u32,
    is_init_index: bool,
    mode: TopKMode,
    is_largest: bool,
) -> TopkTiling {
    const API: &str = "TopKTilingFunc";
    check_host(API, soc, inner, outter, is_init_index, mode, data_type_size);
    ensure((1..=inner).contains(&k), API, || format!("k = {k} is outside [1, inner = {inner}]"));
    let size = data_type_size as i32;
    let mut t = TopkTiling::default();
    let k4 = (k + 7) / 8 * 8;
    let k2 = (k + 15) / 16 * 16;
    if soc == Soc::Ascend310P {
        if mode == TopKMode::TopkNormal {
            let mrg = inner * 8 * 2;
            t.tmp_local_size = mrg + inner * 4 / size;
            t.src_index_offset = mrg;
            t.inner_data_size = inner * 8;
            t.sort_repeat = (inner / 16) as u32;
            t.copy_ub_to_ub_block_count = (inner * 8 * size / 32) as u32;
            t.mrg_sort_src1offset = 8;
            t.mrg_sort_src2offset = 16;
            t.mrg_sort_src3offset = 24;
            t.mrg_sort_repeat = inner / 4;
            t.mask_offset = outter * if size == 2 { k2 } else { k4 };
            t.k_align_two_bytes = k2;
            t.k_align_four_bytes = k4;
        } else {
            let proposals = inner * outter * 8;
            t.tmp_local_size = proposals * 2;
            let idx = proposals + inner * outter;
            t.topk_n_small_src_index_offset = idx;
            t.inner_data_size = proposals;
            t.mask_offset = outter * k;
            t.all_data_size = inner * outter;
            t.sort_repeat = (inner * outter / 16) as u32;
            t.copy_ub_to_ub_block_count = (proposals * size / 32) as u32;
            t.mrg_sort_two_queue_src1_offset = 16 * 8;
            t.mrg_sort_src1offset = inner * 8;
            t.vreduce_idx_mask0 = binary1(k);
            if size == 4 {
                t.src_index_offset = idx;
                t.vreduce_val_mask0 = binary1(k);
            } else {
                t.src_index_offset = idx + inner * outter;
                if k <= 16 {
                    t.vreduce_val_mask0 = binary1(k);
                } else {
                    t.vreduce_val_mask0 = 65535;
                    t.vreduce_val_mask1 = binary1(k - 16);
                }
            }
        }
        return t;
    }
    t.all_data_size = inner * outter;
    t.k_align_four_bytes = k4;
    if mode == TopKMode::TopkNormal {
        // Per region: 2 floats or 4 halves.
        let per = 8 / size;
        t.tmp_local_size = 16 / size * inner;
        t.inner_data_size = inner * per;
        t.copy_ub_to_ub_block_count = (inner * 2 * 4 / ONE_BLK_SIZE as i32) as u32;
        t.sort_repeat = (inner / 32) as u32;
        t.mrg_sort_repeat = inner / 4;
        t.k_align_two_bytes = k2;
        t.mask_offset = outter * if size == 2 { k2 } else { k4 };
        t.mask_vreducev2_four_bytes = 2 * k;
        t.mask_vreducev2_two_bytes = 4 * k;
        t.mrg_sort_src1offset = per;
        t.mrg_sort_src2offset = 2 * per;
        t.mrg_sort_src3offset = 3 * per;
        t.mrg_sort_two_queue_src1_offset = per;
        t.mrg_four_queue_tail_para1 = inner * 2;
        t.mrg_four_queue_tail_para2 = 4 / size;
        if !is_init_index {
            t.src_index_offset = t.tmp_local_size;
            t.tmp_local_size += inner * 4 / size;
        }
    } else {
        let inner_data = inner * outter * (8 / size);
        t.inner_data_size = inner_data;
        t.mask_offset = outter * k;
        let neg = if is_largest { 0 } else { inner * outter };
        t.topk_mrg_src1_mask_size_offset = inner_data + neg;
        t.tmp_local_size = inner_data + neg + TOPKNSMALL_MASK_BYTES as i32 / size;
        if !is_init_index {
            t.topk_n_small_src_index_offset = t.tmp_local_size;
            t.tmp_local_size += inner * outter * 4 / size;
        }
        vreduce_masks(k, data_type_size, &mut t);
    }
    t
}

// ---------------------------------------------------------------------------------------
// Kernel
// ---------------------------------------------------------------------------------------

/// `PipeBarrier<PIPE_V>`.
fn bar() {
    pipe_barrier::<PIPE_V>();
}

/// `SetFlag` / `WaitFlag` of a fetched event `E` (`GetTPipePtr()->FetchEventID(E)`).
fn sync_event<E: Event>() {
    let e = E::EVENT;
    let id = fetch_free_event("TPipe::FetchEventID", e);
    set_flag_event(e, id);
    wait_flag_event(e, id);
}

/// `Muls(dst, src, T(-1))` under the mask set, no barrier.
fn negate<T: TopKElement>(dst: &LocalTensor<T>, src: &LocalTensor<T>) {
    muls_masked::<T, false>(dst, src, T::MINUS_ONE, MASK_PLACEHOLDER, 1, &UnaryRepeatParams::default());
}

/// `DataCopy(dst, src, {copyUbToUbBlockCount, 1, 0, 0})` and a barrier.
fn copy_regions<T: Element>(dst: &LocalTensor<T>, src: &LocalTensor<T>, tiling: &TopkTiling) {
    let p = DataCopyParams::new(tiling.copy_ub_to_ub_block_count as u16, 1, 0, 0);
    data_copy_params(dst, src, &p);
    bar();
}

fn us(v: i32) -> usize {
    v as usize
}

/// The vendor's `TopkInputCheck` and `CheckTopKParamsClass`, and the scratch size.
#[allow(clippy::too_many_arguments)]
#[track_caller]
fn check_args<T: TopKElement, const INIT: bool, const FINISH: bool>(
    dst_value: &LocalTensor<T>,
    dst_index: &LocalTensor<i32>,
    src: &LocalTensor<T>,
    src_index: &LocalTensor<i32>,
    finish: &LocalTensor<u8>,
    tmp_bytes: usize,
    k: i32,
    tiling: &TopkTiling,
    info: &TopKInfo,
    mode: TopKMode,
) {
    check_chip(TOP_K, &TOP_K_CHIPS);
    let TopKInfo { outter, inner, n } = *info;
    ensure(outter >= 1, TOP_K, || format!("topKInfo.outter = {outter} must be at least 1"));
    ensure(1 <= k && k <= n, TOP_K, || format!("k = {k} must be in [1, topKInfo.n = {n}]"));
    ensure(1 <= n && n <= inner, TOP_K, || {
        format!("topKInfo.n = {n} must be in [1, topKInfo.inner = {inner}]")
    });
    ensure(inner as usize % TOPK_INNER_ALIGN_LEN == 0, TOP_K, || {
        format!("topKInfo.inner = {inner} must be a multiple of {TOPK_INNER_ALIGN_LEN}")
    });
    let (o, i, k) = (us(outter), us(inner), us(k));
    let idx_need = if mode == TopKMode::TopkNormal {
        ensure(i <= TOPK_NORMAL_INNER_MAX_LEN, TOP_K, || {
            format!("topKInfo.inner = {inner} must be at most {TOPK_NORMAL_INNER_MAX_LEN} when topkMode is TOPK_NORMAL")
        });
        i
    } else {
        ensure(i == TOPK_NSMALL_INNER_LEN, TOP_K, || {
            format!("topKInfo.inner = {inner} must be {TOPK_NSMALL_INNER_LEN} when topkMode is TOPK_NSMALL")
        });
        ensure(!FINISH, TOP_K, || "isHasfinish = true: it must be false when topkMode is TOPK_NSMALL".into());
        i * o
    };
    let (val_need, idx_out_need) = if mode == TopKMode::TopkNormal {
        let per = ONE_BLK_SIZE / T::SIZE;
        (k.div_ceil(per) * per * o, k.div_ceil(8) * 8 * o)
    } else {
        (k * o, k * o)
    };
    let holds = |name: &str, has: usize, need: usize, what: &str| {
        ensure(has >= need, TOP_K, || format!("{name} holds {has} elements, fewer than {what} = {need}"));
    };
    holds("srcLocal", src.get_size(), i * o, "inner * outter");
    if INIT {
        holds("srcIndexLocal", src_index.get_size(), idx_need, "the indices read");
    }
    if FINISH {
        holds("finishLocal", finish.get_size(), o, "outter");
    }
    holds("dstValueLocal", dst_value.get_size(), val_need, "the padded rows written");
    holds("dstIndexLocal", dst_index.get_size(), idx_out_need, "the padded rows written");
    let need = tiling.tmp_local_size.max(0) as usize * T::SIZE;
    ensure(tmp_bytes >= need, TOP_K, || {
        format!(
            "the temporary buffer holds {tmp_bytes} bytes, fewer than tiling.tmpLocalSize * sizeof(T) = {need} \
             (see GetTopKMaxMinTmpSize)"
        )
    });
}

/// The `k` largest (`is_largest`) or smallest elements of each of `top_k_info.outter` rows of
/// `top_k_info.inner` elements of `src_local`, with their indices (AscendC `TopK<T,
/// isInitIndex, isHasfinish, isReuseSrc, topkMode>(dstValueLocal, dstIndexLocal, srcLocal,
/// srcIndexLocal, finishLocal, tmpLocal, k, tilling, topKInfo, isLargest)`; `topk_mode` is the
/// vendor's template parameter), on Ascend910B. See the [module documentation](self).
///
/// Row `j`'s values go to `dst_value_local[j * kAlign..]` and its indices to
/// `dst_index_local[j * kAlignFourBytes..]` in normal mode (`kAlign` = `kAlignFourBytes` for
/// `float`, `kAlignTwoBytes` for `half`), packed at `j * k` in small mode. The indices are
/// `src_index_local`'s (`IS_INIT_INDEX`: the first `inner` for every row in normal mode, one
/// per element in small mode) or the positions `0..inner`. With `IS_HASFINISH` (normal mode
/// only) a row whose `finish_local` byte is non-zero gets the index `n` for all `k`.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut c, mut t) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// let tiling = top_k_tiling_func(Soc::Ascend910B, 64, 1, 3, 4, false, TopKMode::TopkNormal, true);
/// let (max, _) = get_top_k_max_min_tmp_size(Soc::Ascend910B, 64, 1, false, false, TopKMode::TopkNormal, true, 4);
/// pipe.init_tbuf(&mut t, max as usize); // first: Sort32's destination is 256-byte aligned
/// pipe.init_tbuf(&mut a, 256);
/// pipe.init_tbuf(&mut b, 32);
/// pipe.init_tbuf(&mut c, 32);
/// let (src, val, idx) = (a.get::<f32>(), b.get::<f32>(), c.get::<i32>());
/// src.copy_from_slice(&(0..64).map(|i| ((i * 37) % 64) as f32).collect::<Vec<_>>());
/// let info = TopKInfo::new(1, 64, 64);
/// let none = LocalTensor::<u8>::new(TPosition::VECCALC, 0, 0);
/// top_k::<f32, false, false, false>(&val, &idx, &src, &idx, &none, &t.get::<u8>(), 3, &tiling, &info, true, TopKMode::TopkNormal);
/// assert_eq!(val.to_vec()[..3], [63.0, 62.0, 61.0]);
/// assert_eq!(idx.to_vec()[..3], [19, 38, 57]); // 19 * 37 % 64 = 63
/// ```
///
/// # Panics
/// Panics if the chip is not Ascend910B; `k` is outside `[1, n]`, `n` outside `[1, inner]`,
/// `inner` not a multiple of 32 (in normal mode at most 4096, in small mode 32), `outter` below
/// 1; `IS_HASFINISH` in small mode; a tensor holds fewer elements than the call reads or
/// writes; `tmp_local` holds fewer than `tiling.tmp_local_size` elements of `T`; or a basic
/// instruction rejects its operands (e.g. `Sort32`'s 256-byte aligned destination at
/// `tmp_local`'s start).
#[allow(clippy::too_many_arguments)]
#[track_caller]
pub fn top_k<
    T: TopKElement,
    const IS_INIT_INDEX: bool,
    const IS_HASFINISH: bool,
    const IS_REUSE_SRC: bool,
>(
    dst_value_local: &LocalTensor<T>,
    dst_index_local: &LocalTensor<i32>,
    src_local: &LocalTensor<T>,
    src_index_local: &LocalTensor<i32>,
    finish_local: &LocalTensor<u8>,
    tmp_local: &LocalTensor<u8>,
    k: i32,
    tilling: &TopkTiling,
    top_k_info: &TopKInfo,
    is_largest: bool,
    topk_mode: TopKMode,
) {
    check_args::<T, IS_INIT_INDEX, IS_HASFINISH>(
        dst_value_local,
        dst_index_local,
        src_local,
        src_index_local,
        finish_local,
        tmp_local.get_size(),
        k,
        tilling,
        top_k_info,
        topk_mode,
    );
    let tmp = tmp_local.reinterpret_cast::<T>();
    let args = Args {
        dst_value: dst_value_local,
        dst_index: dst_index_local,
        src: src_local,
        src_index: src_index_local,
        finish: finish_local,
        tmp: &tmp,
        k: us(k),
        t: tilling,
        info: top_k_info,
        is_largest,
    };
    match topk_mode {
        TopKMode::TopkNormal => top_k_normal::<T, IS_INIT_INDEX, IS_HASFINISH>(&args),
        TopKMode::TopkNsmall => top_k_nsmall::<T, IS_INIT_INDEX>(&args),
    }
}

/// [`top_k`] with its temporary buffer from the stack buffer (AscendC `TopK` without
/// `tmpLocal`: `PopStackBuffer`, of which `tilling.tmpLocalSize` elements of `T` are used).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut c) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 128);
/// pipe.init_tbuf(&mut b, 64);
/// pipe.init_tbuf(&mut c, 64); // the stack buffer starts at 256
/// let (src, val, idx) = (a.get::<f32>(), b.get::<f32>(), c.get::<i32>());
/// src.copy_from_slice(&(0..32).map(|i| i as f32).collect::<Vec<_>>());
/// let tiling = top_k_tiling_func(Soc::Ascend910B, 32, 1, 2, 4, false, TopKMode::TopkNsmall, false);
/// let none = LocalTensor::<u8>::new(TPosition::VECCALC, 0, 0);
/// top_k_stack::<f32, false, false, false>(&val, &idx, &src, &idx, &none, 2, &tiling, &TopKInfo::new(1, 32, 32), false, TopKMode::TopkNsmall);
/// assert_eq!((val.get_value(0), val.get_value(1), idx.get_value(1)), (0.0, 1.0, 1));
/// ```
///
/// # Panics
/// Panics as [`top_k`] does, if the core has no `TPipe`, or if the stack buffer holds fewer
/// than `tilling.tmp_local_size` elements of `T`.
#[allow(clippy::too_many_arguments)]
#[track_caller]
pub fn top_k_stack<
    T: TopKElement,
    const IS_INIT_INDEX: bool,
    const IS_HASFINISH: bool,
    const IS_REUSE_SRC: bool,
>(
    dst_value_local: &LocalTensor<T>,
    dst_index_local: &LocalTensor<i32>,
    src_local: &LocalTensor<T>,
    src_index_local: &LocalTensor<i32>,
    finish_local: &LocalTensor<u8>,
    k: i32,
    tilling: &TopkTiling,
    top_k_info: &TopKInfo,
    is_largest: bool,
    topk_mode: TopKMode,
) {
    check_chip(TOP_K, &TOP_K_CHIPS);
    let mut stack = stack_tensor(TOP_K);
    let need = tilling.tmp_local_size.max(0) as usize;
    let has = stack.get_size() / T::SIZE;
    ensure(has >= need, TOP_K, || {
        format!("the stack buffer is insufficient: TopK needs tiling.tmpLocalSize = {need} elements, but only {has} exist")
    });
    stack.set_size(need * T::SIZE);
    top_k::<T, IS_INIT_INDEX, IS_HASFINISH, IS_REUSE_SRC>(
        dst_value_local,
        dst_index_local,
        src_local,
        src_index_local,
        finish_local,
        &stack,
        k,
        tilling,
        top_k_info,
        is_largest,
        topk_mode,
    );
}

/// The operands of one `TopK` call.
struct Args<'a, T: Element> {
    dst_value: &'a LocalTensor<T>,
    dst_index: &'a LocalTensor<i32>,
    src: &'a LocalTensor<T>,
    src_index: &'a LocalTensor<i32>,
    finish: &'a LocalTensor<u8>,
    tmp: &'a LocalTensor<T>,
    k: usize,
    t: &'a TopkTiling,
    info: &'a TopKInfo,
    is_largest: bool,
}

/// The vendor's `TopKNormal` (`topk_common_impl.h`) with `TopKCompute` (`topk_v220_impl.h`).
fn top_k_normal<T: TopKElement, const INIT: bool, const FINISH: bool>(a: &Args<'_, T>) {
    let (t, tmp) = (a.t, a.tmp);
    let inner = us(a.info.inner);
    let ids = if INIT {
        a.src_index.reinterpret_cast::<u32>()
    } else {
        let iota = tmp.view(us(t.src_index_offset)).reinterpret_cast::<i32>();
        arith_progression(&iota, 0, 1, inner as i32);
        bar();
        iota.reinterpret_cast::<u32>()
    };
    set_mask_count();
    let second = tmp.view(us(t.inner_data_size));
    for j in 0..us(a.info.outter) {
        let dst_off4 = j.saturating_mul(us(t.k_align_four_bytes));
        // TmpLocalSort32.
        let row = a.src.view(j * inner);
        if a.is_largest {
            sort32(tmp, &row, &ids, t.sort_repeat as i32);
        } else {
            count_mask::<T>(inner);
            negate(&second, &row);
            bar();
            sort32(tmp, &second, &ids, t.sort_repeat as i32);
        }
        bar();
        copy_regions(&second, tmp, t);
        // MrgFourQueueSort.
        let mut count = 0usize;
        let mut z = MIN_SORT32_SIZE;
        let mut dst_idx = 0usize;
        let half = |which: usize| if which == 1 { second.clone() } else { tmp.clone() };
        while z * MRGSORT_VALID_QUEUE <= inner {
            let src = half(count % 2);
            dst_idx = (count + 1) % 2;
            let dst = half(dst_idx);
            count += 1;
            let list = MrgSortSrcList::new(
                &src,
                &src.view(z.saturating_mul(us(t.mrg_sort_src1offset))),
                &src.view(z.saturating_mul(us(t.mrg_sort_src2offset))),
                &src.view(z.saturating_mul(us(t.mrg_sort_src3offset))),
            );
            let info = MrgSort4Info::new([z as u16; 4], false, 0b1111, (us(t.mrg_sort_repeat) / z) as u8);
            mrg_sort(&dst, &list, &info);
            bar();
            copy_regions(&src, &dst, t);
            z *= MRGSORT_VALID_QUEUE;
        }
        // MrgTwoQueueSort.
        if z < inner {
            let mut lens = Vec::new();
            let mut rest = inner;
            let mut i = z;
            while i >= MIN_SORT32_SIZE {
                lens.extend(std::iter::repeat_n(i, rest / i));
                rest %= i;
                i /= MRGSORT_VALID_QUEUE;
            }
            let mut sorted = 0usize;
            for i in 0..lens.len() - 1 {
                let src = half((count + i) % 2);
                dst_idx = (count + 1 + i) % 2;
                let dst = half(dst_idx);
                sorted += lens[i];
                let l = [sorted.min(a.k) as u16, lens[i + 1].min(a.k) as u16, 0, 0];
                let second_list = src.view(sorted.saturating_mul(us(t.mrg_sort_two_queue_src1_offset)));
                let list = MrgSortSrcList::new(&src, &second_list, &src, &src);
                mrg_sort(&dst, &list, &MrgSort4Info::new(l, false, 0b0011, 1));
                bar();
            }
        }
        gather_row(a, &half(dst_idx), dst_off4, j);
        if FINISH {
            let finished = a.finish.get_value(j) != 0;
            sync_event::<HardEvent::S_V>();
            if finished {
                count_mask::<T>(a.k);
                duplicate_masked::<i32, false>(
                    &a.dst_index.view(dst_off4),
                    a.info.n,
                    MASK_PLACEHOLDER,
                    1,
                    1,
                    8,
                );
            }
        }
        bar();
    }
    if !a.is_largest {
        count_mask::<T>(us(t.mask_offset));
        negate(a.dst_value, a.dst_value);
    }
    set_mask_norm();
    reset_mask();
}

/// The vendor's `GatherDstValAndDstIdx`: the scores (pattern 1 for `float`, 3 for `half`) and
/// the indices (pattern 2 on the regions as `float`) of the first `k` regions.
fn gather_row<T: TopKElement>(a: &Args<'_, T>, regions: &LocalTensor<T>, dst_off4: usize, j: usize) {
    let t = a.t;
    let params = GatherMaskParams::new(1, 1, 8, 1);
    if T::SIZE == 4 {
        let dst = a.dst_value.view(dst_off4);
        gather_mask::<T, u32>(
            &dst,
            regions,
            GatherPattern::Fixed(1),
            true,
            t.mask_vreducev2_four_bytes as u32,
            &params,
        );
    } else {
        let dst = a.dst_value.view(j.saturating_mul(us(t.k_align_two_bytes)));
        gather_mask::<T, u16>(
            &dst,
            regions,
            GatherPattern::Fixed(3),
            true,
            t.mask_vreducev2_two_bytes as u32,
            &params,
        );
    }
    bar();
    let dst = a.dst_index.view(dst_off4).reinterpret_cast::<f32>();
    let src = regions.reinterpret_cast::<f32>();
    gather_mask::<f32, u32>(
        &dst,
        &src,
        GatherPattern::Fixed(2),
        true,
        t.mask_vreducev2_four_bytes as u32,
        &params,
    );
    bar();
    set_mask_count();
}

/// Where small mode generates its indices (`isInitIndex = false`): the vendor's
/// `topkNSmallSrcIndexOffset`, or 64 bytes earlier when that is not 128-byte aligned.
///
/// A deviation in place, not in result: the vendor's layout puts the indices right after the
/// 64-byte pattern block (`TOPKNSMALL_MASK_BYTES`), so with a 256-byte aligned scratch (the
/// alignment `Sort32`'s destination at the scratch's start needs) they start 64 bytes past a
/// 128-byte boundary whenever the pattern block starts on one (`float` always; `half` with
/// `isLargest` true, or false with an even `outter`). This emulator's `Sort32` enforces its
/// page's per-repeat alignment ("每次迭代输入src0要求128B(float)/64B(half)对齐，src1要求128B对齐，
/// 输出dst要求256B对齐", `Sort32.md` 约束说明; its parameter table asks 32 bytes of the start
/// address) and rejects that `src1`. The indices are then generated at the pattern block's
/// start instead: the block is free until after `Sort32` (the patterns are written by the
/// scalar unit after it, behind `V_S`), the range stays inside `tmpLocalSize`, and `Sort32`
/// reads the same indices, so every result is the vendor's.
fn nsmall_index_offset<T: Element>(tmp: &LocalTensor<T>, t: &TopkTiling) -> usize {
    let vendor = us(t.topk_n_small_src_index_offset);
    if (tmp.get_phy_addr() + vendor * T::SIZE) % 128 == 0 {
        vendor
    } else {
        us(t.topk_mrg_src1_mask_size_offset)
    }
}

/// The vendor's `TopKNSmall` (`topk_common_impl.h`) with `TopKNSmallCompute`
/// (`topk_v220_impl.h`).
fn top_k_nsmall<T: TopKElement, const INIT: bool>(a: &Args<'_, T>) {
    let (t, tmp) = (a.t, a.tmp);
    let (inner, outter) = (us(a.info.inner), us(a.info.outter));
    let ids = if INIT {
        a.src_index.reinterpret_cast::<u32>()
    } else {
        let iota = tmp.view(nsmall_index_offset(tmp, t)).reinterpret_cast::<i32>();
        arith_progression(&iota, 0, 1, inner as i32);
        bar();
        if outter > 1 {
            // CopyData: row 0's indices into rows 1.. (normal mask of 32, dst repeat 4 blocks).
            let p = CopyRepeatParams::new(1, 1, 4, 0);
            copy_masked::<i32, true>(&iota.view(inner), &iota, 32u64, (outter - 1) as u8, &p);
            bar();
        }
        iota.reinterpret_cast::<u32>()
    };
    set_mask_count();
    let second = tmp.view(us(t.inner_data_size));
    if !a.is_largest {
        count_mask::<T>(us(t.all_data_size));
        negate(&second, a.src);
        bar();
    }
    let scores = if a.is_largest { a.src.clone() } else { second };
    sort32(tmp, &scores, &ids, outter as i32);
    bar();
    let mask_at = us(t.topk_mrg_src1_mask_size_offset);
    sync_event::<HardEvent::V_S>();
    let params = GatherMaskParams::new(1, outter as u16, 8, 0);
    let idx_dst = a.dst_index.reinterpret_cast::<f32>();
    if T::SIZE == 4 {
        let pat = tmp.view(mask_at).reinterpret_cast::<u32>().view_len(0, 10);
        pat.set_value(0, t.vreduce_val_mask0);
        pat.set_value(1, t.vreduce_val_mask1);
        pat.set_value(8, t.vreduce_idx_mask0);
        pat.set_value(9, t.vreduce_idx_mask1);
        sync_event::<HardEvent::S_V>();
        gather_mask::<T, u32>(
            a.dst_value,
            tmp,
            GatherPattern::Tensor(&pat),
            true,
            VREDUCEV2_FOUR_BYTE_MASK,
            &params,
        );
        let idx_pat = tmp.view(mask_at + 8).reinterpret_cast::<u32>();
        let src = tmp.reinterpret_cast::<f32>();
        gather_mask::<f32, u32>(
            &idx_dst,
            &src,
            GatherPattern::Tensor(&idx_pat),
            true,
            VREDUCEV2_FOUR_BYTE_MASK,
            &params,
        );
    } else {
        let pat = tmp.view(mask_at).reinterpret_cast::<u16>().view_len(0, 8);
        let words = [
            t.vreducehalf_val_mask0,
            t.vreducehalf_val_mask1,
            t.vreducehalf_val_mask2,
            t.vreducehalf_val_mask3,
            t.vreducehalf_val_mask4,
            t.vreducehalf_val_mask5,
            t.vreducehalf_val_mask6,
            t.vreducehalf_val_mask7,
        ];
        for (i, w) in words.into_iter().enumerate() {
            pat.set_value(i, w);
        }
        let idx_pat = tmp.view(mask_at + SRC1_STACK_VAL_OFFSET).reinterpret_cast::<u32>().view_len(0, 2);
        idx_pat.set_value(0, t.vreduce_idx_mask0);
        idx_pat.set_value(1, t.vreduce_idx_mask1);
        sync_event::<HardEvent::S_V>();
        gather_mask::<T, u16>(
            a.dst_value,
            tmp,
            GatherPattern::Tensor(&pat),
            true,
            VREDUCEV2_HALF_MASK,
            &params,
        );
        bar();
        let src = tmp.reinterpret_cast::<f32>();
        let idx_pat = src.view((mask_at + SRC1_STACK_VAL_OFFSET) / 2).reinterpret_cast::<u32>();
        gather_mask::<f32, u32>(
            &idx_dst,
            &src,
            GatherPattern::Tensor(&idx_pat),
            true,
            VREDUCEV2_FOUR_BYTE_MASK,
            &params,
        );
    }
    bar();
    if !a.is_largest {
        bar();
        set_mask_count();
        count_mask::<T>(us(t.mask_offset));
        negate(a.dst_value, a.dst_value);
    }
    set_mask_norm();
    reset_mask();
}
