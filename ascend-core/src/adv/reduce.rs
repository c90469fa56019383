//! The advanced API's reductions along the last axis: `Sum` and `Mean` (the vendor's
//! `reduce/sum` and `reduce/mean`, `sum_common_impl.h` and `mean_common_impl.h`), with their
//! host tiling helpers.
//!
//! Both take a source of `outter` rows of `inner` elements (`inner * sizeof(T)` a multiple of
//! 32 bytes), of which the first `n` of each row are summed with `RepeatReduceSum` in counter
//! mode: one pass of the binary tree over each repeat (128 `half` or 64 `float` lanes), then
//! passes over the partial sums until one is left, each pass written to the temporary buffer
//! and the last to `dst[row]`.
//!
//! The vendor's template parameters `reduceDim`, `isReuseSource` and `isBasicBlock` are
//! reserved (its checks warn that they have no effect), so the forms here leave them out.

use super::align_up;
use crate::element::{f16, Element};
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::sync::{event::PIPE_V, flags::pipe_barrier};
use crate::vector::cast::{cast_masked, RoundMode};
use crate::vector::mask::{reset_mask, set_mask_count, set_mask_norm, MASK_PLACEHOLDER};
use crate::vector::params::UnaryRepeatParams;
use crate::vector::reduce::ReduceElement;
use crate::vector::reduction::repeat_reduce_sum;
use crate::vector::scalar::{muls_masked, MulsElement};

use super::steps;
use super::{
    check_apart, check_common, check_documented_chip, count_mask, host_checks, span, stack_tensor, whole,
};
use super::{NARROW, ONE_BLK_SIZE, V220_V200};

mod sealed {
    pub trait Sealed {}
}
impl sealed::Sealed for f16 {}
impl sealed::Sealed for f32 {}

/// Bytes of one repeat (the vendor's `ONE_REPEAT_BYTE_SIZE`).
const ONE_REPEAT_BYTE_SIZE: usize = 256;

const SUM: &str = "Sum";
const MEAN: &str = "Mean";

/// Element types of [`sum`] and [`mean`]: `half` and `float` (the vendor's pages).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<i32>, tmp: &LocalTensor<u8>) {
///     sum(t, t, tmp, &SumParams { outter: 1, inner: 8, n: 8 })
/// }
/// ```
pub trait SumElement: ReduceElement + MulsElement + sealed::Sealed {}
impl SumElement for f16 {}
impl SumElement for f32 {}

/// The shape of [`sum`]'s source (AscendC `SumParams`): `outter` rows of `inner` elements
/// (`inner * sizeof(T)` a multiple of 32 bytes), the first `n` of each summed
/// (`1 <= n <= inner`; `inner = (n * sizeof(T) + 31) / 32 * 32 / sizeof(T)`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SumParams {
    /// Rows.
    pub outter: u32,
    /// Elements from one row to the next: `n` rounded up to 32 bytes.
    pub inner: u32,
    /// Elements summed in each row.
    pub n: u32,
}

/// The shape of [`mean`]'s source (AscendC `MeanParams`), as [`SumParams`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MeanParams {
    /// Rows.
    pub outter: u32,
    /// Elements from one row to the next: `n` rounded up to 32 bytes.
    pub inner: u32,
    /// Elements averaged in each row.
    pub n: u32,
}

/// `RepeatReduceSum<T, false>(dst, src, 1, MASK_PLACEHOLDER, 1, 1, 1, 8)`: the binary tree of
/// each repeat under the counter mask set, the sums one after another.
#[track_caller]
fn repeat_sum<T: ReduceElement>(dst: &LocalTensor<T>, src: &LocalTensor<T>) {
    repeat_reduce_sum::<T, false>(dst, src, 1, MASK_PLACEHOLDER, 1, 1, 1, 8);
}

/// The checks of the vendor's `CheckSumParams`/`MeanParamsCheck` shared by both: `inner`
/// non-zero and 32-byte aligned, `1 <= n <= inner`, `src` holding the rows and `dst` the
/// results rounded up to 32 bytes, the temporary buffer in the Unified Buffer and of `need`
/// bytes, and no operands overlapping (the vendor's pages).
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn check_shape<T: Element>(
    api: &'static str,
    params: &'static str,
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: &LocalTensor<u8>,
    (outter, inner, n): (usize, usize, usize),
    need: usize,
    tiling: &'static str,
) {
    ensure(inner != 0 && inner * T::SIZE % ONE_BLK_SIZE == 0, api, || {
        format!(
            "{params}.inner = {inner} {} elements is not a non-zero multiple of 32 bytes ({} elements)",
            T::DTYPE,
            ONE_BLK_SIZE / T::SIZE
        )
    });
    ensure(n >= 1 && n <= inner, api, || {
        format!("{params}.n = {n} must be at least 1 and at most {params}.inner = {inner}")
    });
    ensure(src.get_size() >= outter * inner, api, || {
        format!(
            "srcTensor holds {} elements, fewer than {params}.outter * {params}.inner = {outter} * {inner} = {}",
            src.get_size(),
            outter * inner
        )
    });
    let dst_need = align_up(outter * T::SIZE, ONE_BLK_SIZE) / T::SIZE;
    ensure(dst.get_size() >= dst_need, api, || {
        format!(
            "dstTensor holds {} elements, fewer than {dst_need}: {params}.outter = {outter} results rounded up to 32 \
             bytes",
            dst.get_size()
        )
    });
    let pos = tmp.get_position();
    ensure(pos.is_ub(), api, || {
        format!("sharedTmpBuffer is at position {pos}; it must be VECIN, VECOUT or VECCALC")
    });
    ensure(tmp.get_size() >= need, api, || {
        format!(
            "sharedTmpBuffer has {} bytes, fewer than the {need} it needs for {params}.n = {n} (see {tiling})",
            tmp.get_size()
        )
    });
    let (d, s, t) = (
        span("dst", dst, dst_need.max(outter)),
        span("src", src, outter * inner),
        whole("sharedTmpBuffer", tmp),
    );
    check_apart(api, &[(d, s), (t, s), (t, d)]);
}

// ---- Sum -------------------------------------------------------------------------------------

/// The bytes [`sum`] needs in its temporary buffer: the first pass's `ceil(n / per repeat)`
/// partial sums, rounded up to a block (the vendor's `finalWorkSize`).
fn sum_work_size(n: usize, type_size: usize) -> usize {
    let (per_blk, per_rep) = (ONE_BLK_SIZE / type_size, ONE_REPEAT_BYTE_SIZE / type_size);
    align_up(n.div_ceil(per_rep), per_blk) * type_size
}

/// The temporary buffer's `(max, min)` bytes for [`sum`] over rows of `n` elements of
/// `type_size` bytes (AscendC `GetSumMaxMinTmpSize(n, typeSize, isReuseSource, maxValue,
/// minValue)`): both the first pass's `ceil(n / (256 / typeSize))` partial sums rounded up to
/// 32 bytes. `is_reuse_source` has no effect (the vendor warns).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_sum_max_min_tmp_size(3, 2, false), (32, 32));
/// assert_eq!(get_sum_max_min_tmp_size(64 * 9, 4, false), (64, 64));
/// ```
///
/// # Panics
/// Panics if `n` is 0 or `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_sum_max_min_tmp_size(n: usize, type_size: usize, is_reuse_source: bool) -> (usize, usize) {
    let _ = is_reuse_source;
    host_checks("GetSumMaxMinTmpSize", n, type_size);
    let size = sum_work_size(n, type_size);
    (size, size)
}

/// The sum of the first `n` elements of each of the `outter` rows of `src` into
/// `dst[0..outter]` (AscendC `Sum<T>(dstTensor, srcTensor, sharedTmpBuffer, sumParams)`), as
/// the vendor's `SumCompute` on Ascend910B and Ascend310P: in counter mode, a row of one
/// repeat is one `RepeatReduceSum` into `dst[row]`; a longer row is reduced into the
/// temporary buffer, pass after pass (each followed by `PipeBarrier<PIPE_V>`), the last pass
/// into `dst[row]`. The short path ends with `SetMaskNorm` and `ResetMask`, the long one with
/// `SetMaskNorm` only (the mask keeps the last pass's count).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 32 + 32 + 32);
/// let (x, y, tmp) = (q.get_with_len::<f16>(32), q.get_with_offset::<f16>(16, 64), q.get_with_offset::<u8>(32, 96));
/// let row = [1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
/// let src: Vec<f16> = row.iter().chain(&[4.0, 5.0, 6.0]).chain(&[0.0; 13]).map(|&v| f16::from_f32(v)).collect();
/// x.copy_from_slice(&src);
/// sum(&y, &x, &tmp, &SumParams { outter: 2, inner: 16, n: 3 });
/// assert_eq!((y.get_value(0).to_f32(), y.get_value(1).to_f32()), (6.0, 15.0));
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); a tensor is not in the
/// Unified Buffer; `inner` is 0 or not 32-byte aligned; `n` is 0 or above `inner`; `src`
/// holds fewer than `outter * inner` elements or `dst` fewer than `outter` rounded up to 32
/// bytes; `shared_tmp_buffer` is smaller than [`get_sum_max_min_tmp_size`]; two operands
/// overlap (the vendor's page); or any instruction's own check fails.
#[track_caller]
pub fn sum<T: SumElement>(
    dst_tensor: &LocalTensor<T>,
    src_tensor: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    sum_params: &SumParams,
) {
    check_common(SUM, &V220_V200, dst_tensor, src_tensor, 0);
    let (outter, inner, n) = (sum_params.outter as usize, sum_params.inner as usize, sum_params.n as usize);
    let need = sum_work_size(n, T::SIZE);
    let shape = (outter, inner, n);
    check_shape(
        SUM,
        "SumParams",
        dst_tensor,
        src_tensor,
        shared_tmp_buffer,
        shape,
        need,
        "GetSumMaxMinTmpSize",
    );
    let per_rep = ONE_REPEAT_BYTE_SIZE / T::SIZE;
    let first_repeat_times = n.div_ceil(per_rep);
    set_mask_count();
    if first_repeat_times == 1 {
        count_mask::<T>(n);
        for row in 0..outter {
            repeat_sum(&dst_tensor.view(row), &src_tensor.view(row * inner));
        }
        set_mask_norm();
        reset_mask();
        return;
    }
    let mut total_cnt = 1;
    let mut data_size = first_repeat_times;
    while data_size > 1 {
        total_cnt += 1;
        data_size = data_size.div_ceil(per_rep);
    }
    let tmp = shared_tmp_buffer.reinterpret_cast::<T>();
    for row in 0..outter {
        let mut low = n;
        count_mask::<T>(low);
        repeat_sum(&tmp, &src_tensor.view(row * inner));
        pipe_barrier::<PIPE_V>();
        low = low.div_ceil(per_rep);
        for cnt in (1..total_cnt).rev() {
            count_mask::<T>(low);
            if cnt == 1 {
                repeat_sum(&dst_tensor.view(row), &tmp);
            } else {
                repeat_sum(&tmp, &tmp);
            }
            pipe_barrier::<PIPE_V>();
            low = low.div_ceil(per_rep);
        }
    }
    set_mask_norm();
}

/// [`sum`] with the stack buffer as scratch (AscendC `Sum<T>(dstTensor, srcTensor,
/// sumParams)`): the Unified Buffer after the core's `TPipe` buffers (see
/// [`pop_stack_buffer`](super::pop_stack_buffer)).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 4 * 1024 + 32);
/// let (x, y) = (q.get_with_len::<f32>(1024), q.get_with_offset::<f32>(8, 4096));
/// x.copy_from_slice(&[0.5f32; 1024]);
/// sum_stack(&y, &x, &SumParams { outter: 1, inner: 1024, n: 1000 });
/// assert_eq!(y.get_value(0), 500.0);
/// ```
///
/// # Panics
/// As [`sum`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn sum_stack<T: SumElement>(
    dst_tensor: &LocalTensor<T>,
    src_tensor: &LocalTensor<T>,
    sum_params: &SumParams,
) {
    let stack = stack_tensor(SUM);
    sum(dst_tensor, src_tensor, &stack, sum_params);
}

// ---- Mean ------------------------------------------------------------------------------------

/// The `(T, accType)` pairs of [`mean`]: `(half, half)`, `(half, float)` (the sum in `float`)
/// and `(float, float)` (the vendor's check).
///
/// Any other pair does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<f32>, tmp: &LocalTensor<u8>) {
///     mean::<f32, f16>(t, t, tmp, &MeanParams { outter: 1, inner: 8, n: 8 })
/// }
/// ```
pub trait MeanElement<Acc: SumElement>: SumElement {}
impl MeanElement<f16> for f16 {}
impl MeanElement<f32> for f16 {}
impl MeanElement<f32> for f32 {}

/// Whether `Mean<T, Acc>` takes the vendor's `MeanCast` path (`half` summed in `float`).
fn widens<T: Element, Acc: Element>() -> bool {
    T::SIZE == 2 && Acc::SIZE == 4
}

/// The vendor's `finalWorkSize` for `Mean` (bytes): `ceil(n / per repeat)` rounded up to 32
/// (the count of partial sums taken as bytes), plus, for `half` summed in `float`, the
/// `float` copy of a row of `inner` elements.
fn mean_vendor_size(n: usize, src_size: usize, acc_size: usize) -> usize {
    let inner = align_up(n * src_size, ONE_BLK_SIZE) / src_size;
    if src_size == 2 && acc_size == 4 {
        align_up(n.div_ceil(ONE_REPEAT_BYTE_SIZE / 4), ONE_BLK_SIZE) + inner * 4
    } else {
        align_up(n.div_ceil(ONE_REPEAT_BYTE_SIZE / src_size), ONE_BLK_SIZE)
    }
}

/// The temporary buffer's `(max, min)` bytes for [`mean`] over rows of `n` elements
/// (AscendC `GetMeanMaxMinTmpSize(n, srcTypeSize, accTypeSize, isReuseSource, maxValue,
/// minValue)`), the vendor's numbers: both `ceil(n / (256 / typeSize))` rounded up to 32,
/// plus `4 * inner` for `half` summed in `float` (`typeSize` the accumulator's then).
/// `is_reuse_source` has no effect (the vendor warns).
///
/// The vendor counts the partial sums in bytes although each takes `typeSize`: for rows of
/// more than 512 `float` (or 2048 `half`) elements this is less than [`mean`] writes, and
/// [`mean`] asks for the bytes it writes (see its "# Panics").
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_mean_max_min_tmp_size(20, 2, 2, false), (32, 32));
/// assert_eq!(get_mean_max_min_tmp_size(20, 2, 4, false), (32 + 32 * 4, 32 + 32 * 4));
/// ```
///
/// # Panics
/// Panics if `n` is 0 or `(src_type_size, acc_type_size)` is not `(2, 2)`, `(2, 4)` or
/// `(4, 4)`.
#[track_caller]
pub fn get_mean_max_min_tmp_size(
    n: usize,
    src_type_size: usize,
    acc_type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    const API: &str = "GetMeanMaxMinTmpSize";
    let _ = is_reuse_source;
    let pair = (src_type_size, acc_type_size);
    ensure(matches!(pair, (2, 2) | (4, 4) | (2, 4)), API, || {
        format!("(srcTypeSize, accTypeSize) = {pair:?} is unsupported; it must be (2, 2), (4, 4) or (2, 4)")
    });
    ensure(n > 0, API, || "n = 0; it must be greater than 0".into());
    let size = mean_vendor_size(n, src_type_size, acc_type_size);
    (size, size)
}

/// The factors of [`mean`]'s temporary buffer (AscendC `GetMeanTmpBufferFactorSize(typeSize,
/// maxLiveNodeCount, extraBuffer)`): `(maxLiveNodeCount, extraBuffer)`, the vendor's `(1, 0)`
/// for any type.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_mean_tmp_buffer_factor_size(2), (1, 0));
/// ```
///
/// # Panics
/// Never.
pub fn get_mean_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    let _ = type_size;
    (1, 0)
}

/// The mean of the first `n` elements of each of the `outter` rows of `src` into
/// `dst[0..outter]` (AscendC `Mean<T, accType>(dstTensor, srcTensor, sharedTmpBuffer,
/// meanParams)`), as the vendor's `MeanImpl` on Ascend910B and Ascend310P, in counter mode:
/// - `half` summed in `float` (`MeanCast`), per row: the row widened into the temporary
///   buffer, its sums by `RepeatReduceSum<float>` after the row's `inner` floats, pass after
///   pass, times `1.0f / n` (`Muls`), narrowed to `half` at the buffer's start (`CAST_NONE`)
///   and copied to `dst[row]` by a one-element `RepeatReduceSum<half>`;
/// - otherwise (`MeanCommon`), as [`sum`]'s passes in `T`, then `dst[0..outter]` times
///   `(T)(1.0f / n)` by one `Muls`.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 32 + 32 + 160);
/// let (x, y, tmp) = (q.get_with_len::<f16>(32), q.get_with_offset::<f16>(16, 64), q.get_with_offset::<u8>(160, 96));
/// let src: Vec<f16> = (0..32).map(|i| f16::from_f32(if i % 16 < 5 { (i / 16 * 5 + i % 16) as f32 } else { 0.0 })).collect();
/// x.copy_from_slice(&src);
/// mean::<f16, f32>(&y, &x, &tmp, &MeanParams { outter: 2, inner: 16, n: 5 });
/// assert_eq!((y.get_value(0).to_f32(), y.get_value(1).to_f32()), (2.0, 7.0));
/// ```
///
/// # Panics
/// Panics if the chip is not one the vendor's page lists (Ascend910B, Ascend310P); a tensor is
/// not in the Unified Buffer; `outter` is 0; `inner` is 0 or not 32-byte aligned; `n` is 0 or
/// above `inner`; `src` holds fewer than `outter * inner` elements or `dst` fewer than
/// `outter` rounded up to 32 bytes; `shared_tmp_buffer` is smaller than
/// [`get_mean_max_min_tmp_size`] or than the bytes the passes write (`4 * inner` plus the
/// `float` partial sums rounded up to 32 bytes for `half` summed in `float`, the partial sums
/// of `T` rounded up to 32 bytes otherwise, where a row takes more than one repeat); two
/// operands overlap (the vendor's page); or any instruction's own check fails.
#[track_caller]
pub fn mean<T: MeanElement<Acc>, Acc: SumElement>(
    dst_tensor: &LocalTensor<T>,
    src_tensor: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    mean_params: &MeanParams,
) {
    check_documented_chip(MEAN, &V220_V200, "Ascend910B and Ascend310P");
    check_common(MEAN, &V220_V200, dst_tensor, src_tensor, 0);
    let (outter, inner, n) =
        (mean_params.outter as usize, mean_params.inner as usize, mean_params.n as usize);
    ensure(outter != 0, MEAN, || "MeanParams.outter = 0; it must not be zero".into());
    let cast = widens::<T, Acc>();
    let acc = if cast { 4 } else { T::SIZE };
    let repeat_times = n.div_ceil(ONE_REPEAT_BYTE_SIZE / acc);
    let vendor = if cast {
        align_up(repeat_times, ONE_BLK_SIZE) + inner * 4
    } else {
        align_up(repeat_times, ONE_BLK_SIZE)
    };
    // The bytes the passes write: the float row and its partial sums, or the partial sums.
    let written = if cast {
        inner * 4 + align_up(repeat_times * 4, ONE_BLK_SIZE)
    } else if repeat_times > 1 {
        align_up(repeat_times * T::SIZE, ONE_BLK_SIZE)
    } else {
        0
    };
    let shape = (outter, inner, n);
    check_shape(
        MEAN,
        "MeanParams",
        dst_tensor,
        src_tensor,
        shared_tmp_buffer,
        shape,
        vendor,
        "GetMeanMaxMinTmpSize",
    );
    ensure(shared_tmp_buffer.get_size() >= written, MEAN, || {
        format!(
            "sharedTmpBuffer has {} bytes, fewer than the {written} the reduction writes for MeanParams.n = {n}, \
             inner = {inner}: GetMeanMaxMinTmpSize's {vendor} counts the {repeat_times} partial sums as bytes, and the \
             hardware would write past the buffer",
            shared_tmp_buffer.get_size()
        )
    });
    let scalar = 1.0f32 / n as i32 as f32;
    if cast {
        mean_cast(
            &dst_tensor.reinterpret_cast::<f16>(),
            &src_tensor.reinterpret_cast::<f16>(),
            shared_tmp_buffer,
            (outter, inner, n),
            scalar,
        );
    } else {
        mean_common(
            dst_tensor,
            src_tensor,
            shared_tmp_buffer,
            (outter, inner, n),
            T::from_f64(f64::from(scalar)),
        );
    }
}

/// The vendor's `MeanCast`: `half` summed in `float`.
#[track_caller]
fn mean_cast(
    dst: &LocalTensor<f16>,
    src: &LocalTensor<f16>,
    tmp_buffer: &LocalTensor<u8>,
    (outter, inner, n): (usize, usize, usize),
    scalar: f32,
) {
    let per_rep = ONE_REPEAT_BYTE_SIZE / 4;
    let repeat_times = n.div_ceil(per_rep);
    let tmp = tmp_buffer.reinterpret_cast::<f32>();
    let cast_tensor = tmp_buffer.reinterpret_cast::<f16>();
    let sums = tmp.view(inner);
    set_mask_count();
    for row in 0..outter {
        count_mask::<f16>(n);
        steps::widen(&tmp, &src.view(row * inner));
        repeat_sum(&sums, &tmp);
        pipe_barrier::<PIPE_V>();
        let mut reduce_nums = repeat_times;
        while reduce_nums > 1 {
            count_mask::<f16>(reduce_nums);
            reduce_nums = reduce_nums.div_ceil(per_rep);
            repeat_sum(&sums, &sums);
            pipe_barrier::<PIPE_V>();
        }
        count_mask::<f16>(1);
        muls_masked::<f32, false>(&sums, &sums, scalar, MASK_PLACEHOLDER, 1, &UnaryRepeatParams::default());
        pipe_barrier::<PIPE_V>();
        cast_masked::<f16, f32, false>(
            &cast_tensor,
            &sums,
            RoundMode::CastNone,
            MASK_PLACEHOLDER,
            1,
            &NARROW,
        );
        pipe_barrier::<PIPE_V>();
        repeat_sum(&dst.view(row), &cast_tensor);
    }
    set_mask_norm();
    reset_mask();
}

/// The vendor's `MeanCommon` (with `MeanForOneRepeatTime`): the sums in `T`, then one `Muls`.
#[track_caller]
fn mean_common<T: SumElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp_buffer: &LocalTensor<u8>,
    (outter, inner, n): (usize, usize, usize),
    scalar: T,
) {
    let per_rep = ONE_REPEAT_BYTE_SIZE / T::SIZE;
    let repeat_times = n.div_ceil(per_rep);
    let unary = UnaryRepeatParams::default();
    set_mask_count();
    if repeat_times == 1 {
        count_mask::<T>(n);
        for row in 0..outter {
            repeat_sum(&dst.view(row), &src.view(row * inner));
        }
        pipe_barrier::<PIPE_V>();
        count_mask::<T>(outter);
        muls_masked::<T, false>(dst, dst, scalar, MASK_PLACEHOLDER, 1, &unary);
        set_mask_norm();
        reset_mask();
        return;
    }
    let tmp = tmp_buffer.reinterpret_cast::<T>();
    for row in 0..outter {
        let mut reduce_nums = repeat_times;
        count_mask::<T>(n);
        repeat_sum(&tmp, &src.view(row * inner));
        pipe_barrier::<PIPE_V>();
        while reduce_nums > 1 {
            count_mask::<T>(reduce_nums);
            reduce_nums = reduce_nums.div_ceil(per_rep);
            if reduce_nums == 1 {
                repeat_sum(&dst.view(row), &tmp);
            } else {
                repeat_sum(&tmp, &tmp);
            }
            pipe_barrier::<PIPE_V>();
        }
    }
    count_mask::<T>(outter);
    muls_masked::<T, false>(dst, dst, scalar, MASK_PLACEHOLDER, 1, &unary);
    set_mask_norm();
}

/// [`mean`] with the stack buffer as scratch (AscendC `Mean<T, accType>(dstTensor, srcTensor,
/// meanParams)`): the Unified Buffer after the core's `TPipe` buffers (see
/// [`pop_stack_buffer`](super::pop_stack_buffer)).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 4 * 1024 + 32);
/// let (x, y) = (q.get_with_len::<f32>(1024), q.get_with_offset::<f32>(8, 4096));
/// x.copy_from_slice(&[3.0f32; 1024]);
/// mean_stack::<f32, f32>(&y, &x, &MeanParams { outter: 1, inner: 1024, n: 1024 });
/// assert_eq!(y.get_value(0), 3.0);
/// ```
///
/// # Panics
/// As [`mean`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn mean_stack<T: MeanElement<Acc>, Acc: SumElement>(
    dst_tensor: &LocalTensor<T>,
    src_tensor: &LocalTensor<T>,
    mean_params: &MeanParams,
) {
    let stack = stack_tensor(MEAN);
    mean::<T, Acc>(dst_tensor, src_tensor, &stack, mean_params);
}
