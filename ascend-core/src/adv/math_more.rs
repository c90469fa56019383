//! More math of the advanced API (the vendor's `adv_api/math`): `Xor` for 16-bit integers,
//! the prefix sums `CumSum` and the complementary error function `Erfc` for `half` and `float`,
//! with their host tiling helpers.
//!
//! `Xor` is computed as the vendor writes it, `(x | y) & ~(x & y)`, with the basic `And`, `Or`
//! and `Not` over splits of the temporary buffer: in counter mode with `PipeBarrier<PIPE_V>`s
//! on Ascend910B (`__NPU_ARCH__` 2201) and Ascend310P (2002), with the instructions' count
//! forms on Ascend310B (3002). Ascend910 has no implementation and gets an error naming it.
//!
//! `CumSum` runs on Ascend910B and Ascend310P: along the last axis through two
//! `TransDataTo5HD` transposes in the scratch, along the first axis row by row; the sums are in
//! `float`. `Erfc` runs on the same two chips, in `float` over splits of the scratch. (`Hypot`
//! exists only on Ascend 950, which is not emulated.)

use crate::element::{f16, Element};
use crate::kernel::ctx::get_soc;
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::soc::Soc;
use crate::sync::{event::PIPE_V, flags::pipe_barrier};
use crate::vector::binary::{add_masked, and, and_masked, or, or_masked, AndElement, OrElement};
use crate::vector::cast::{cast_masked, RoundMode};
use crate::vector::mask::{reset_mask, set_mask_count, set_mask_norm, MASK_PLACEHOLDER};
use crate::vector::params::{BinaryRepeatParams, UnaryRepeatParams};
use crate::vector::scalar::{adds_masked, maxs_masked, AddsElement};
use crate::vector::transpose::{trans_data_to_5hd_addr, TransDataTo5HDElement, TransDataTo5HDParams};
use crate::vector::unary::{not, not_masked, NotElement};

use super::steps as step;
use super::{
    check_apart, check_chip, check_common, check_tmp_operands, count_mask, counter_rounds, span, split_count,
    stack_tensor, whole, NARROW, ONE_BLK_SIZE, SAME, V220_V200,
};

mod sealed {
    pub trait Sealed {}
}
impl sealed::Sealed for i16 {}
impl sealed::Sealed for u16 {}

/// Element types of [`xor`]: `int16_t` and `uint16_t` (the vendor's `static_assert`).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<i32>, tmp: &LocalTensor<u8>) { xor::<_, false>(t, t, t, tmp, 8) }
/// ```
pub trait XorElement: Element + AndElement + OrElement + NotElement + sealed::Sealed {}
impl XorElement for i16 {}
impl XorElement for u16 {}

const XOR: &str = "Xor";

/// The chips whose build of the vendor's library implements `Xor` (`__NPU_ARCH__` 2201, 2002
/// and 3002).
const XOR_CHIPS: [Soc; 3] = [Soc::Ascend910B, Soc::Ascend310P, Soc::Ascend310B];

/// The checks of a function with two sources and a scratch: the chip, the operands' positions,
/// `count` against each tensor, and the overlaps the vendor's page forbids (`dst` with either
/// source, the scratch with any operand; the sources may overlap).
#[track_caller]
pub(crate) fn check_binary<T: Element>(
    api: &'static str,
    chips: &[Soc],
    dst: &LocalTensor<T>,
    src0: &LocalTensor<T>,
    src1: &LocalTensor<T>,
    tmp: &LocalTensor<u8>,
    count: usize,
) {
    check_chip(api, chips);
    for (name, pos) in [
        ("dst", dst.get_position()),
        ("src0", src0.get_position()),
        ("src1", src1.get_position()),
        ("sharedTmpBuffer", tmp.get_position()),
    ] {
        ensure(pos.is_ub(), api, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
    }
    for (name, size) in
        [("dstTensor", dst.get_size()), ("src0Tensor", src0.get_size()), ("src1Tensor", src1.get_size())]
    {
        ensure(count <= size, api, || {
            format!("calCount = {count} exceeds {name}'s {size} {} elements", T::DTYPE)
        });
    }
    let (d, s0, s1) = (span("dst", dst, count), span("src0", src0, count), span("src1", src1, count));
    let t = whole("sharedTmpBuffer", tmp);
    check_apart(api, &[(d, s0), (d, s1), (t, s0), (t, s1), (t, d)]);
}

// ---------------------------------------------------------------------------------------
// Xor
// ---------------------------------------------------------------------------------------

/// `dst[i] = src0[i] ^ src1[i]` for `i < count`, with `shared_tmp_buffer` as scratch (AscendC
/// `Xor<T, isReuseSource>(dstTensor, src0Tensor, src1Tensor, sharedTmpBuffer, calCount)`).
///
/// As the vendor's implementation, in splits of `stackSize = shared_tmp_buffer.get_size() / 2 /
/// 32 * 32` elements, each: `And(dst, src0, src1)`, `Or(scratch, src0, src1)`, then `Not(dst,
/// dst)` and `And(dst, scratch, dst)`. On Ascend910B and Ascend310P in counter mode (the mask
/// set to the split, then the tail) with `PipeBarrier<PIPE_V>` after the `Or`, the `Not` and the
/// last `And`, normal mode and a reset mask afterwards; on Ascend310B with the instructions'
/// count forms. The vendor's form without `count` is this call with `src0.get_size()`.
/// `IS_REUSE_SOURCE` is reserved: the sources are never written.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 3 * 64);
/// pipe.init_tbuf(&mut tmp, 256);
/// let (a, b, y) = (q.get_with_offset::<i16>(32, 0), q.get_with_offset::<i16>(32, 64), q.get_with_offset::<i16>(32, 128));
/// a.copy_from_slice(&[2, 3, 5, 7, 11, 13, 17, 19].repeat(4));
/// b.copy_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8].repeat(4));
/// xor::<_, false>(&y, &a, &b, &tmp.get::<u8>(), 8);
/// // The page's example (which prints 10 for 13 ^ 6).
/// assert_eq!(y.to_vec()[..8], [3, 1, 6, 3, 14, 11, 22, 27]);
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910); `count` exceeds `dst`, `src0` or
/// `src1`; a tensor is not in the Unified Buffer; `dst` overlaps a source or the scratch overlaps
/// any operand (the vendor's page); the scratch holds no split (less than 64 bytes, the vendor's
/// `CheckTmpBufferSize`); or an instruction's own check fails (operands not 32-byte aligned).
#[track_caller]
pub fn xor<T: XorElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src0: &LocalTensor<T>,
    src1: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    check_binary(XOR, &XOR_CHIPS, dst, src0, src1, shared_tmp_buffer, count);
    let split = split_count(XOR, shared_tmp_buffer, T::SIZE, 1);
    let tmp = shared_tmp_buffer.reinterpret_cast::<T>();
    if get_soc() == Soc::Ascend310B {
        let (loops, tail) = (count / split, count % split);
        let round = |off: usize, n: usize| {
            let (d, a, b) = (dst.view(off), src0.view(off), src1.view(off));
            and(&d, &a, &b, n);
            or(&tmp, &a, &b, n);
            not(&d, &d, n);
            and(&d, &tmp, &d, n);
        };
        for i in 0..loops {
            round(i * split, split);
        }
        if tail > 0 {
            round(loops * split, tail);
        }
        return;
    }
    let (bin, un) = (BinaryRepeatParams::default(), UnaryRepeatParams::default());
    counter_rounds::<T>(
        count,
        split,
        |t| t,
        |off, _| {
            let (d, a, b) = (dst.view(off), src0.view(off), src1.view(off));
            and_masked::<T, false>(&d, &a, &b, MASK_PLACEHOLDER, 1, &bin);
            or_masked::<T, false>(&tmp, &a, &b, MASK_PLACEHOLDER, 1, &bin);
            pipe_barrier::<PIPE_V>();
            not_masked::<T, false>(&d, &d, MASK_PLACEHOLDER, 1, &un);
            pipe_barrier::<PIPE_V>();
            and_masked::<T, false>(&d, &tmp, &d, MASK_PLACEHOLDER, 1, &bin);
            pipe_barrier::<PIPE_V>();
        },
    );
}

/// [`xor`] with the stack buffer as scratch (AscendC `Xor<T, isReuseSource>(dstTensor,
/// src0Tensor, src1Tensor, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 3 * 256);
/// let (a, b, y) = (q.get_with_offset::<u16>(128, 0), q.get_with_offset::<u16>(128, 256), q.get_with_offset::<u16>(128, 512));
/// a.copy_from_slice(&[0xFF00u16; 128]);
/// b.copy_from_slice(&[0x0FF0u16; 128]);
/// xor_stack::<_, false>(&y, &a, &b, 128);
/// assert_eq!(y.get_value(127), 0xF0F0);
/// ```
///
/// # Panics
/// As [`xor`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn xor_stack<T: XorElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src0: &LocalTensor<T>,
    src1: &LocalTensor<T>,
    count: usize,
) {
    xor::<T, IS_REUSE_SOURCE>(dst, src0, src1, &stack_tensor(XOR), count);
}

/// The scratch bytes `Xor` needs: `(max, min)` (AscendC `GetXorMaxMinTmpSize`): `min` is one
/// repeat, 256 bytes; `max` the source's bytes, at least `min`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_xor_max_min_tmp_size(1024, 2, false), (2048, 256));
/// assert_eq!(get_xor_max_min_tmp_size(16, 2, false), (256, 256));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0 (the vendor's host check). `type_size` is not checked (the
/// vendor's helper takes any).
#[track_caller]
pub fn get_xor_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let _ = is_reuse_source;
    ensure(input_size > 0, "GetXorMaxMinTmpSize", || {
        "the source shape has no elements; its size must be greater than 0".into()
    });
    let min = 256;
    ((input_size * type_size).max(min), min)
}

/// `Xor`'s `(maxLiveNodeCount, extraBuf)` (AscendC `GetXorTmpBufferFactorSize`): `(1, 0)` for
/// any `type_size`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_xor_tmp_buffer_factor_size(2), (1, 0));
/// ```
///
/// # Panics
/// Never panics.
pub fn get_xor_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    let _ = type_size;
    (1, 0)
}

// ---------------------------------------------------------------------------------------
// CumSum
// ---------------------------------------------------------------------------------------

/// Element types of [`cum_sum`]: `half` and `float` (the vendor's checks).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<i32>, tmp: &LocalTensor<u8>) {
///     cum_sum(t, t, t, tmp, &CumSumInfo { outter: 1, inner: 8 }, &DEFAULT_CUM_SUM_CONFIG)
/// }
/// ```
pub trait CumSumElement: Element + TransDataTo5HDElement + AddsElement + cum_sealed::Sealed {}
impl CumSumElement for f16 {}
impl CumSumElement for f32 {}

mod cum_sealed {
    pub trait Sealed {}
    impl Sealed for crate::element::f16 {}
    impl Sealed for f32 {}
}

/// The vendor's `CumSumConfig`: which axis to sum along and whether to copy out the last row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CumSumConfig {
    /// `isLastAxis`: sum along each row (`true`) or down each column (`false`).
    pub is_last_axis: bool,
    /// `isReuseSource`: reserved; the source is never written.
    pub is_reuse_source: bool,
    /// `outputLastRow`: copy the result's last row into `last_row_tensor`.
    pub output_last_row: bool,
}

/// The vendor's `defaultCumSumConfig`: `{isLastAxis = true, isReuseSource = false,
/// outputLastRow = true}`.
pub const DEFAULT_CUM_SUM_CONFIG: CumSumConfig =
    CumSumConfig { is_last_axis: true, is_reuse_source: false, output_last_row: true };

/// The vendor's `CumSumInfo`: the source as `outter` rows of `inner` elements (`inner` 32-byte
/// aligned).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CumSumInfo {
    /// Rows.
    pub outter: usize,
    /// Elements of a row.
    pub inner: usize,
}

const CUMSUM: &str = "CumSum";
/// `NCHW_CONV_ADDR_LIST_SIZE`.
const LIST: usize = 16;

/// The byte address of element `i` of `t`.
fn addr<T: Element>(t: &LocalTensor<T>, i: usize) -> u64 {
    (t.get_phy_addr() + i * T::SIZE) as u64
}

/// Prefix sums of a 2-D tensor (AscendC `CumSum<T, config>(dstTensor, lastRowTensor,
/// srcTensor, sharedTmpBuffer, cumSumInfo)`): with `config.is_last_axis`,
/// `dst[r][c] = src[r][0] + … + src[r][c]` along each row; without,
/// `dst[r][c] = src[0][c] + … + src[r][c]` down each column; with `config.output_last_row`, `dst`'s last row copied into `last_row_tensor`.
///
/// As the vendor's implementation (Ascend910B, Ascend310P):
/// - last axis: blocks of `shared_tmp_buffer.get_size() / min * 16` rows (`min` the host's
///   minimum for `inner`), each transposed with `TransDataTo5HD` into the scratch as `inner` rows
///   of `alignOutter` (the block's rows rounded up to 16; the missing rows repeat earlier ones),
///   summed row after row with `Add` in `float` (`half` widened into the scratch after the
///   transposed data and narrowed back, `CAST_NONE`), transposed back after it and copied into
///   `dst` with `Adds(0)` (so `-0` becomes `+0`);
/// - first axis: `float` copied with `Adds(0)` then `Add` row by row; `half` widened into the
///   scratch, summed there in `float`, narrowed into `dst` (`CAST_NONE`), in counter mode.
///
/// The sums are sequential (no pairwise tree), each rounded to `float`. Normal mode and a reset
/// mask afterwards (but for `half` along the first axis, which the vendor leaves in counter
/// mode, as here).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 16 * 8 * 4 + 32);
/// let info = CumSumInfo { outter: 16, inner: 8 };
/// let min = get_cum_sum_max_min_tmp_size(&[16, 8], 4, true, false).1; // 1024 bytes
/// pipe.init_tbuf(&mut tmp, min);
/// let (x, y) = (q.get_with_offset::<f32>(128, 0), q.get_with_offset::<f32>(128, 512));
/// let last = q.get_with_offset::<f32>(8, 1024);
/// x.copy_from_slice(&[1.0f32; 128]);
/// cum_sum(&y, &last, &x, &tmp.get::<u8>(), &info, &DEFAULT_CUM_SUM_CONFIG);
/// assert_eq!(y.to_vec()[..8], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
/// assert_eq!(last.get_value(7), 8.0);
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); `outter` or `inner` is 0,
/// `inner` is not 32 bytes of `T`, `outter · inner` exceeds `src` or `dst`, or (with
/// `output_last_row`) `inner` exceeds `last_row_tensor` (the vendor's checks); a tensor is not
/// in the Unified Buffer; the scratch is below the host's minimum (the vendor's assertion); or
/// an instruction's own check fails.
#[track_caller]
pub fn cum_sum<T: CumSumElement>(
    dst: &LocalTensor<T>,
    last_row_tensor: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    cum_sum_info: &CumSumInfo,
    config: &CumSumConfig,
) {
    let soc = get_soc();
    ensure(V220_V200.contains(&soc), CUMSUM, || {
        format!(
            "{CUMSUM} has no implementation on {soc} ({}): the vendor's library compiles it to nothing there; it \
             runs on Ascend910B, Ascend310P",
            soc.product_line()
        )
    });
    let CumSumInfo { outter, inner } = *cum_sum_info;
    ensure(inner > 0, CUMSUM, || format!("cumSumInfo.inner = {inner}; it must be greater than 0"));
    ensure(outter > 0, CUMSUM, || format!("cumSumInfo.outter = {outter}; it must be greater than 0"));
    ensure(inner * T::SIZE % ONE_BLK_SIZE == 0, CUMSUM, || {
        format!("cumSumInfo.inner * sizeof(T) = {} bytes; it must be a multiple of 32", inner * T::SIZE)
    });
    let total = inner * outter;
    for (name, size) in [("srcTensor", src.get_size()), ("dstTensor", dst.get_size())] {
        ensure(total <= size, CUMSUM, || {
            format!(
                "cumSumInfo.inner * cumSumInfo.outter = {total} exceeds {name}'s {size} {} elements",
                T::DTYPE
            )
        });
    }
    if config.output_last_row {
        ensure(inner <= last_row_tensor.get_size(), CUMSUM, || {
            format!(
                "cumSumInfo.inner = {inner} exceeds lastRowTensor's {} elements (config.outputLastRow is true)",
                last_row_tensor.get_size()
            )
        });
    }
    for (name, pos) in [
        ("dst", dst.get_position()),
        ("lastRowTensor", last_row_tensor.get_position()),
        ("src", src.get_position()),
        ("sharedTmpBuffer", shared_tmp_buffer.get_position()),
    ] {
        ensure(pos.is_ub(), CUMSUM, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
    }
    let bytes = shared_tmp_buffer.get_size();
    if config.is_last_axis {
        let cast = if T::SIZE == 2 { inner * LIST * 2 } else { 0 };
        let min = cast + LIST * inner * T::SIZE * 2;
        ensure(bytes >= min, CUMSUM, || {
            format!(
                "sharedTmpBuffer has {bytes} bytes; the last axis needs at least {min} (16 rows; see the host's \
                 GetCumSumMaxMinTmpSize)"
            )
        });
        let rows = bytes / min * LIST;
        let tmp = shared_tmp_buffer.reinterpret_cast::<T>();
        let (range, tail) = (outter / rows, outter % rows);
        for i in 0..range {
            let off = i * rows * inner;
            last_dim(&dst.view(off), &src.view(off), &tmp, rows, inner);
        }
        if tail != 0 {
            let off = range * rows * inner;
            last_dim(&dst.view(off), &src.view(off), &tmp, tail, inner);
        }
    } else {
        first_dim(dst, src, shared_tmp_buffer, outter, inner);
    }
    if config.output_last_row {
        set_mask_count();
        count_mask::<T>(inner);
        adds_masked::<T, false>(
            last_row_tensor,
            &dst.view((outter - 1) * inner),
            T::ZERO,
            MASK_PLACEHOLDER,
            1,
            &SAME,
        );
        pipe_barrier::<PIPE_V>();
        set_mask_norm();
        reset_mask();
    }
}

/// The vendor's `CumSumFirstDim`.
#[track_caller]
fn first_dim<T: CumSumElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: &LocalTensor<u8>,
    outter: usize,
    inner: usize,
) {
    let bin = BinaryRepeatParams::default();
    if T::SIZE == 2 {
        let min = outter * inner * 4;
        ensure(tmp.get_size() >= min, CUMSUM, || {
            format!(
                "sharedTmpBuffer has {} bytes; the first axis of half needs at least {min} (outter * inner floats; \
                 see the host's GetCumSumMaxMinTmpSize)",
                tmp.get_size()
            )
        });
        let (d, s) = (dst.reinterpret_cast::<f16>(), src.reinterpret_cast::<f16>());
        let f = tmp.reinterpret_cast::<f32>();
        set_mask_count();
        count_mask::<f32>(outter * inner);
        step::widen(&f, &s);
        count_mask::<T>(inner);
        for row in 1..outter {
            let cur = f.view(row * inner);
            add_masked::<f32, false>(&cur, &f.view((row - 1) * inner), &cur, MASK_PLACEHOLDER, 1, &bin);
            pipe_barrier::<PIPE_V>();
        }
        count_mask::<T>(outter * inner);
        cast_masked::<f16, f32, false>(&d, &f, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &NARROW);
        pipe_barrier::<PIPE_V>();
    } else {
        set_mask_count();
        count_mask::<T>(inner);
        adds_masked::<T, false>(dst, src, T::ZERO, MASK_PLACEHOLDER, 1, &SAME);
        pipe_barrier::<PIPE_V>();
        let (d, s) = (dst.reinterpret_cast::<f32>(), src.reinterpret_cast::<f32>());
        for row in 1..outter {
            add_masked::<f32, false>(
                &d.view(row * inner),
                &d.view((row - 1) * inner),
                &s.view(row * inner),
                MASK_PLACEHOLDER,
                1,
                &bin,
            );
            pipe_barrier::<PIPE_V>();
        }
        set_mask_norm();
        reset_mask();
    }
}

/// `TransDataTo5HD<T>` with address lists.
#[track_caller]
fn trans<T: CumSumElement>(
    dl: &[u64; LIST],
    sl: &[u64; LIST],
    repeat: usize,
    dst_rep: usize,
    src_rep: usize,
) {
    let p = TransDataTo5HDParams::new(false, false, repeat as u8, dst_rep as u16, src_rep as u16);
    trans_data_to_5hd_addr::<T>(dl, sl, &p);
}

/// The vendor's `ExtractTransDataParam`: `(repeat, dstRepStride, srcRepStride)`.
fn extract(inner: usize, align: usize, epb: usize) -> (usize, usize, usize) {
    let repeat = (inner / epb) as u8 as usize;
    if repeat > 1 {
        (repeat, align, 1)
    } else {
        (repeat, 0, 0)
    }
}

/// The vendor's `CumSumLastDim` for `rows` rows.
#[allow(clippy::needless_range_loop)] // the vendor's address-list loops, index for index
#[track_caller]
fn last_dim<T: CumSumElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: &LocalTensor<T>,
    outter: usize,
    inner: usize,
) {
    let epb = ONE_BLK_SIZE / T::SIZE;
    let align = outter.div_ceil(LIST) * LIST;
    let (mut dl, mut sl) = ([0u64; LIST], [0u64; LIST]);
    let half = T::SIZE == 2;
    // The first transpose: rows of `inner` into `inner` rows of `align`.
    if outter == align && align > inner {
        let repeat = (align / LIST) as u8 as usize;
        let (dr, sr) = match (repeat > 1, half) {
            (false, _) => (0, 0),
            (true, true) => (1, inner),
            (true, false) => (2, inner * 2),
        };
        for i in 0..inner / epb {
            for n in 0..LIST {
                sl[n] = addr(src, i * epb + n * inner);
            }
            if half {
                for n in 0..LIST {
                    dl[n] = addr(tmp, i * epb * align + align * n);
                }
            } else {
                for n in 0..LIST / 2 {
                    dl[n * 2] = addr(tmp, (i * epb + n) * align);
                    dl[n * 2 + 1] = addr(tmp, (i * epb + n) * align + epb);
                }
            }
            trans::<T>(&dl, &sl, repeat, dr, sr);
        }
    } else {
        let (repeat, dr, sr) = extract(inner, align, epb);
        for i in 0..align / LIST {
            for n in 0..LIST {
                sl[n] = addr(src, (i * LIST + n % (outter - i * LIST)) * inner);
            }
            if half {
                for n in 0..LIST {
                    dl[n] = addr(tmp, i * LIST + align * n);
                }
            } else {
                for n in 0..LIST / 2 {
                    dl[n * 2] = addr(tmp, i * LIST + n * align);
                    dl[n * 2 + 1] = addr(tmp, i * LIST + n * align + epb);
                }
            }
            trans::<T>(&dl, &sl, repeat, dr, sr);
        }
    }
    pipe_barrier::<PIPE_V>();
    let bin = BinaryRepeatParams::default();
    set_mask_count();
    if half {
        let h = tmp.reinterpret_cast::<f16>();
        let f = tmp.view(align * inner).reinterpret_cast::<f32>();
        count_mask::<f32>(align * inner);
        step::widen(&f, &h);
        count_mask::<f32>(align);
        for row in 1..inner {
            let cur = f.view(row * align);
            add_masked::<f32, false>(&cur, &f.view((row - 1) * align), &cur, MASK_PLACEHOLDER, 1, &bin);
            pipe_barrier::<PIPE_V>();
        }
        count_mask::<T>(align * inner);
        cast_masked::<f16, f32, false>(&h, &f, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &NARROW);
        pipe_barrier::<PIPE_V>();
    } else {
        let f = tmp.reinterpret_cast::<f32>();
        count_mask::<f32>(align);
        for row in 1..inner {
            let cur = f.view(row * align);
            add_masked::<f32, false>(&cur, &f.view((row - 1) * align), &cur, MASK_PLACEHOLDER, 1, &bin);
            pipe_barrier::<PIPE_V>();
        }
    }
    set_mask_norm();
    reset_mask();
    // The second transpose, into the scratch after the first's.
    let t2 = tmp.view(align * inner);
    if align > inner {
        let (repeat, dr, sr) = if half {
            let r = (align / epb) as u8 as usize;
            if r > 1 {
                (r, inner, 1)
            } else {
                (r, 0, 0)
            }
        } else {
            let r = (align / LIST) as u8 as usize;
            if r > 1 {
                (r, inner * 2, 2)
            } else {
                (r, 0, 0)
            }
        };
        if half {
            for i in 0..inner / LIST {
                for n in 0..LIST {
                    sl[n] = addr(tmp, (i * LIST + n) * align);
                    dl[n] = addr(&t2, i * LIST + n * inner);
                }
                trans::<T>(&dl, &sl, repeat, dr, sr);
            }
        } else {
            for i in 0..inner / epb {
                for n in 0..LIST / 2 {
                    sl[n] = addr(tmp, i * epb * align + n * align);
                    sl[n + LIST / 2] = addr(tmp, i * epb * align + n * align + epb);
                    dl[n * 2] = addr(&t2, i * epb + n * inner);
                    dl[n * 2 + 1] = addr(&t2, i * epb + (n + epb) * inner);
                }
                trans::<T>(&dl, &sl, repeat, dr, sr);
            }
        }
    } else {
        let r = (inner / epb) as u8 as usize;
        // The vendor passes (srcRepStride, dstRepStride) = (1, align) as (dst, src).
        let (repeat, dr, sr) = if r > 1 { (r, 1, align) } else { (r, 0, 0) };
        for i in 0..align / LIST {
            if half {
                for n in 0..LIST {
                    sl[n] = addr(tmp, i * LIST + align * n);
                    dl[n] = addr(&t2, (i * LIST + n) * inner);
                }
            } else {
                for n in 0..LIST / 2 {
                    sl[n] = addr(tmp, i * LIST + n * align);
                    sl[n + LIST / 2] = addr(tmp, i * LIST + n * align + epb);
                    dl[n * 2] = addr(&t2, (i * LIST + n) * inner);
                    dl[n * 2 + 1] = addr(&t2, (i * LIST + n + LIST / 2) * inner);
                }
            }
            trans::<T>(&dl, &sl, repeat, dr, sr);
        }
    }
    pipe_barrier::<PIPE_V>();
    set_mask_count();
    count_mask::<T>(outter * inner);
    adds_masked::<T, false>(dst, &t2, T::ZERO, MASK_PLACEHOLDER, 1, &SAME);
    pipe_barrier::<PIPE_V>();
    set_mask_norm();
    reset_mask();
}

/// [`cum_sum`] with the stack buffer as scratch (AscendC `CumSum<T, config>(dstTensor,
/// lastRowTensor, srcTensor, cumSumInfo)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 4 * 16 * 2 + 32);
/// let (x, y) = (q.get_with_offset::<f16>(64, 0), q.get_with_offset::<f16>(64, 128));
/// let last = q.get_with_offset::<f16>(16, 256);
/// x.copy_from_slice(&[f16::from_f32(0.5); 64]);
/// let cfg = CumSumConfig { is_last_axis: false, is_reuse_source: false, output_last_row: true };
/// cum_sum_stack(&y, &last, &x, &CumSumInfo { outter: 4, inner: 16 }, &cfg);
/// assert_eq!(last.get_value(0), f16::from_f32(2.0));
/// ```
///
/// # Panics
/// As [`cum_sum`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn cum_sum_stack<T: CumSumElement>(
    dst: &LocalTensor<T>,
    last_row_tensor: &LocalTensor<T>,
    src: &LocalTensor<T>,
    cum_sum_info: &CumSumInfo,
    config: &CumSumConfig,
) {
    cum_sum(dst, last_row_tensor, src, &stack_tensor(CUMSUM), cum_sum_info, config);
}

/// The scratch bytes `CumSum` needs: `(max, min)` (AscendC `GetCumSumMaxMinTmpSize`) for a
/// source of shape `[outter, inner]`: along the first axis `outter · inner` floats for `half`
/// (both), nothing for `float`; along the last axis two transposes of 16 rows (min) or of all
/// rows rounded up to 16 (max), plus for `half` one more half-sized copy for the cast.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_cum_sum_max_min_tmp_size(&[16, 8], 4, true, false), (1024, 1024));
/// assert_eq!(get_cum_sum_max_min_tmp_size(&[20, 16], 2, true, false), (3072, 1536));
/// assert_eq!(get_cum_sum_max_min_tmp_size(&[20, 16], 2, false, false), (1280, 1280));
/// ```
///
/// # Panics
/// Panics if the shape is not 2-D, `type_size` is neither 2 nor 4, or `inner` is 0 or not 32
/// bytes aligned (the vendor's host checks).
#[track_caller]
pub fn get_cum_sum_max_min_tmp_size(
    src_shape: &[usize],
    type_size: usize,
    is_last_axis: bool,
    is_reuse_source: bool,
) -> (usize, usize) {
    let _ = is_reuse_source;
    const API: &str = "GetCumSumMaxMinTmpSize";
    ensure(src_shape.len() == 2, API, || {
        format!("the source shape has {} dimensions; only 2 are supported", src_shape.len())
    });
    ensure(type_size == 2 || type_size == 4, API, || {
        format!("typeSize = {type_size} is unsupported; only half (2) and float (4)")
    });
    let (outter, inner) = (src_shape[0], src_shape[1]);
    ensure(inner > 0 && inner * type_size % ONE_BLK_SIZE == 0, API, || {
        format!(
            "the inner dim is {inner} elements ({} bytes); it must be positive and 32-byte aligned",
            inner * type_size
        )
    });
    if !is_last_axis {
        let v = if type_size == 2 { outter * inner * 4 } else { 0 };
        return (v, v);
    }
    let align = outter.div_ceil(LIST) * LIST;
    let (min_cast, max_cast) = if type_size == 2 { (inner * LIST * 2, inner * align * 2) } else { (0, 0) };
    (max_cast + align * inner * type_size * 2, min_cast + LIST * inner * type_size * 2)
}

// ---------------------------------------------------------------------------------------
// Erfc
// ---------------------------------------------------------------------------------------

/// Element types of [`erfc`]: `half` and `float` (the vendor's page), on the chips that have
/// an implementation (Ascend910B, Ascend310P).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<i32>, tmp: &LocalTensor<u8>) { erfc::<_, false>(t, t, tmp, 8) }
/// ```
pub trait ErfcElement: Element + cum_sealed::Sealed {}
impl ErfcElement for f16 {}
impl ErfcElement for f32 {}

const ERFC: &str = "Erfc";
/// `ERFC_BOUNDARY_MAX`.
const ERFC_MAX: f32 = 10.0;
/// `SCALAR_ERFC_FP32_MIN`, 2^-62.
const ERFC_MIN: f32 = 2.168404344971009e-19_f64 as f32;
/// The numerator's coefficients `R0..R8` (the vendor's decimals, rounded once to `float`).
const ERFC_R: [f32; 9] = [
    0.1735313680e-7_f64 as f32,
    -0.9856738394e-6_f64 as f32,
    0.2517003236e-4_f64 as f32,
    -0.3848015171e-3_f64 as f32,
    0.5681528564e0_f64 as f32,
    0.5245623129e1_f64 as f32,
    0.2107740710e2_f64 as f32,
    0.4212761755e2_f64 as f32,
    0.4380524149e2_f64 as f32,
];
/// The denominator's coefficients `S1..S5` (the vendor's decimals, rounded once to `float`).
const ERFC_S: [f32; 5] = [
    0.9349684299e1_f64 as f32,
    0.3756930664e2_f64 as f32,
    0.8058268949e2_f64 as f32,
    0.9155653738e2_f64 as f32,
    0.4380524152e2_f64 as f32,
];

/// `Maxs` under the mask set, then `PipeBarrier<PIPE_V>`.
#[track_caller]
fn maxs_step(dst: &LocalTensor<f32>, src: &LocalTensor<f32>, scalar: f32) {
    maxs_masked::<f32, false>(dst, src, scalar, MASK_PLACEHOLDER, 1, &UnaryRepeatParams::default());
    pipe_barrier::<PIPE_V>();
}

/// The vendor's `ErfcPreCompute`, `ErfcPublicSteps` and `ErfcPostCompute` on the clipped `x`
/// (in `x`, overwritten with the result's sign then the result's `float` in `out`), with the
/// five `float` tensors of `c` elements at `t`.
#[track_caller]
fn erfc_steps(out: &LocalTensor<f32>, x: &LocalTensor<f32>, t: &LocalTensor<f32>, c: usize) {
    let (t1, t2, t3, t4, t5) = (t.view(0), t.view(c), t.view(2 * c), t.view(3 * c), t.view(4 * c));
    // ErfcPreCompute: the sign.
    step::abs(&t1, x);
    step::adds(&t1, &t1, ERFC_MIN);
    step::div(x, x, &t1);
    // ErfcPublicSteps.
    step::mins(&t2, &t1, ERFC_MAX);
    step::muls(&t3, &t1, ERFC_R[0]);
    step::adds(&t4, &t3, ERFC_R[1]);
    for r in &ERFC_R[2..] {
        step::mul(&t3, &t1, &t4);
        step::adds(&t4, &t3, *r);
    }
    step::adds(&t3, &t1, ERFC_S[0]);
    for s in &ERFC_S[1..] {
        step::mul(&t5, &t1, &t3);
        step::adds(&t3, &t5, *s);
    }
    step::div(&t3, &t4, &t3);
    step::mul(&t1, &t1, &t1);
    step::muls(&t1, &t1, -1.0);
    step::exp(&t1, &t1);
    step::mul(&t3, &t1, &t3);
    // ErfcPostCompute.
    step::muls(&t2, x, -1.0);
    step::adds(&t2, &t2, 1.0);
    step::mul(&t3, &t3, x);
    step::add(out, &t3, &t2);
}

/// `dst[i] = erfc(src[i])` for `i < count`, with `shared_tmp_buffer` as scratch (AscendC
/// `Erfc<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, calCount)`).
///
/// As the vendor's implementation, in `float` with a rational approximation: in counter mode,
/// splits of `calSize = shared_tmp_buffer.get_size() / size_of::<T>() / 12` (`half`) or `/ 5`
/// (`float`) `/ 32 * 32` elements, the scratch as `float` tensors of `calSize` (the tail uses the
/// same layout). Each split: `x` clipped to `[-10, 10]` (`Mins`, `Maxs`); `sign = x / (|x| +
/// 2^-62)`; with `a = |x| + 2^-62`, `R(a) / S(a)` by Horner's steps (`Muls`/`Mul` and `Adds`)
/// times `exp(-a·a)`, times `sign`, plus `1 - sign` — `PipeBarrier<PIPE_V>` after each step.
/// `half` is widened into the sixth `float` tensor first and narrowed at the end with
/// `CAST_ROUND` on Ascend910B, `CAST_NONE` on Ascend310P (the vendor's `GetErfcCastType`).
/// Normal mode and a reset mask afterwards. `IS_REUSE_SOURCE` is reserved: `src` is never
/// written.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 64 * 4);
/// pipe.init_tbuf(&mut tmp, get_erfc_max_min_tmp_size(64, 4, false).1);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// x.copy_from_slice(&[0.5f32; 64]);
/// erfc::<_, false>(&y, &x, &tmp.get::<u8>(), 64);
/// assert!((y.get_value(0) - 0.479_500_1).abs() < 1e-5);
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); `count` exceeds `src` or
/// `dst`; a tensor is not in the Unified Buffer; `dst` overlaps `src` or the scratch overlaps
/// either (the vendor's page); the scratch holds no split (less than 768 bytes for `half`, 640
/// for `float`: the vendor's `CheckTmpBufferSize`); or an instruction's own check fails.
#[track_caller]
pub fn erfc<T: ErfcElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    check_common(ERFC, &V220_V200, dst, src, count);
    check_tmp_operands(ERFC, dst, src, shared_tmp_buffer, count, true);
    let half = T::SIZE == 2;
    let c = split_count(ERFC, shared_tmp_buffer, T::SIZE, if half { 12 } else { 5 });
    let t = shared_tmp_buffer.reinterpret_cast::<f32>();
    let narrow_mode = if get_soc() == Soc::Ascend910B { RoundMode::CastRound } else { RoundMode::CastNone };
    counter_rounds::<f16>(
        count,
        c,
        |_| c,
        |off, _| {
            if half {
                let (d, s) =
                    (dst.reinterpret_cast::<f16>().view(off), src.reinterpret_cast::<f16>().view(off));
                let t6 = t.view(5 * c);
                step::widen(&t6, &s);
                step::mins(&t, &t6, ERFC_MAX);
                maxs_step(&t6, &t, -ERFC_MAX);
                erfc_steps(&t, &t6, &t, c);
                cast_masked::<f16, f32, false>(&d, &t, narrow_mode, MASK_PLACEHOLDER, 1, &NARROW);
                pipe_barrier::<PIPE_V>();
            } else {
                let (d, s) =
                    (dst.reinterpret_cast::<f32>().view(off), src.reinterpret_cast::<f32>().view(off));
                step::mins(&d, &s, ERFC_MAX);
                maxs_step(&d, &d, -ERFC_MAX);
                erfc_steps(&d, &d, &t, c);
            }
        },
    );
}

/// [`erfc`] with the stack buffer as scratch (AscendC `Erfc<T, isReuseSource>(dstTensor,
/// srcTensor, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 128 * 2);
/// let (x, y) = (q.get_with_offset::<f16>(128, 0), q.get_with_offset::<f16>(128, 256));
/// x.copy_from_slice(&[f16::from_f32(0.0); 128]);
/// erfc_stack::<_, false>(&y, &x, 128);
/// assert_eq!(y.get_value(0), f16::from_f32(1.0));
/// ```
///
/// # Panics
/// As [`erfc`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn erfc_stack<T: ErfcElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    erfc::<T, IS_REUSE_SOURCE>(dst, src, &stack_tensor(ERFC), count);
}

/// The scratch bytes `Erfc` needs: `(max, min)` (AscendC `GetErfcMaxMinTmpSize`): 16 (`half`)
/// or 7 (`float`) times `max(input bytes, 256)` and 256.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_erfc_max_min_tmp_size(1024, 2, false), (32768, 4096));
/// assert_eq!(get_erfc_max_min_tmp_size(16, 4, false), (1792, 1792));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0 (the vendor's host check).
#[track_caller]
pub fn get_erfc_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let _ = is_reuse_source;
    ensure(input_size > 0, "GetErfcMaxMinTmpSize", || {
        "the source shape has no elements; its size must be greater than 0".into()
    });
    let fac = if type_size == 4 { 7 } else { 16 };
    (fac * (input_size * type_size).max(256), fac * 256)
}

/// `Erfc`'s `(maxLiveNodeCount, extraBuf)` (AscendC `GetErfcTmpBufferFactorSize`): 7 for
/// `float` (`type_size` 4), else 16; no extra bytes.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_erfc_tmp_buffer_factor_size(4), (7, 0));
/// ```
///
/// # Panics
/// Never panics.
pub fn get_erfc_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    (if type_size == 4 { 7 } else { 16 }, 0)
}
