//! The advanced `Select` (the vendor's `adv_api/select/selectwithbytesmask.h`, also known as
//! `SelectWithBytesMask`): choose each element from a tensor or a scalar by a mask of whole
//! elements (not bits), with its host tiling helpers.
//!
//! `dst[i][j] = mask[i][j] == 0 ? src0 : src1` for `i < firstAxis`, `j < srcLastAxis`, where one
//! of `src0`/`src1` is a tensor of `firstAxis × srcLastAxis` and the other a scalar, and the mask
//! is `firstAxis × maskLastAxis` (`maskLastAxis ≥ srcLastAxis`; its extra columns are ignored).
//!
//! Written as the vendor's implementation for `__NPU_ARCH__` 2201 and 2002 (Ascend910B,
//! Ascend310P) writes it (asc-devkit `impl/adv_api/detail/select/selectwithbytesmask/`
//! `selectwithbytesmask_impl.h`, `_common_impl.h`, `_v220_impl.h`, `_v200_impl.h`), one
//! instruction per step in counter mode:
//! 1. `Duplicate` the scalar over one repeat at the start of the scratch and `SetCmpMask` it
//!    (the compare-mask register holds the scalar for `Select`'s mode 1);
//! 2. when `maskLastAxis ≠ srcLastAxis`: on Ascend910B, `GatherMask` (pattern 7, counter mode,
//!    `uint16_t`) packs the first `srcLastAxis` mask elements of each row — into the mask
//!    itself with `isReuseMask`, else into the front of the scratch; on Ascend310P the steps
//!    below run row by row instead;
//! 3. per round of at most `loopSize` elements: `Cast` the mask to `half` (`uint8_t` as is for
//!    1-byte masks, `int16_t` for 2-byte ones, the bits as `float` with `CAST_ODD` for 4-byte
//!    ones), `CompareScalar` it with `0` (`EQ` for tensor/scalar, `NE` for scalar/tensor) into
//!    bits at the same address, and `Select` (mode 1, the register form) between the tensor and
//!    the scalar.
//!
//! A 4-byte mask is read as a `float`: a value whose bits are a `float` zero (`0`,
//! `0x80000000`) selects `src0`; every other value selects `src1` — except that on Ascend310P,
//! whose cores start in saturation mode, the `Cast` turns a NaN pattern (`0x7F800001` …,
//! `0xFFFFFFFF` = `-1`) into `0`, so those masks select `src0` as well. This is what the
//! vendor's steps give; the page says only "0 or not".

use crate::element::{f16, Bool8, Element};
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::soc::Soc;
use crate::sync::{event::PIPE_V, flags::pipe_barrier};
use crate::vector::cast::{cast_masked, RoundMode};
use crate::vector::compare::{compare_scalar_in_place, CMPMODE};
use crate::vector::duplicate::{duplicate_masked, DuplicateElement};
use crate::vector::gather_mask::{gather_mask, GatherMaskParams, GatherPattern};
use crate::vector::mask::{reset_mask, set_cmp_mask, set_mask_count, set_mask_norm, MASK_PLACEHOLDER};
use crate::vector::params::{BinaryRepeatParams, UnaryRepeatParams};
use crate::vector::select::{select_scalar_reg, SelectElement};

use super::V220_V200 as CHIPS;
use super::{align_up, check_apart, check_chip, count_mask, whole, ONE_BLK_SIZE, SAME};

const API: &str = "Select";

/// `MIN_REQUIRED_BUFFER`: the scratch the kernel needs at least.
const MIN_REQUIRED_BUFFER: usize = 1024;
/// `RESERVED_BUFFER` (kernel side): scratch kept back for the last repeat's whole reads.
const RESERVED_BUFFER: usize = 256;
/// `MAX_CALC_BYTE_PER_LOOP / sizeof(half)`: a round stays within 255 repeats of `half`.
const MAX_LOOP: usize = 255 * 256 / 2;

mod sealed {
    pub trait Sealed {}
}

/// Element types of the advanced `Select`'s operands (`T`): `half` and `float` (the vendor's
/// page).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(d: &LocalTensor<i32>, m: &LocalTensor<u8>, t: &LocalTensor<u8>) {
///     select_with_bytes_mask::<i32, u8, true>(d, d, 1, m, t, &SelectWithBytesMaskShapeInfo::new(1, 8, 32));
/// }
/// ```
pub trait SelectWithBytesMaskElement: SelectElement + DuplicateElement + sealed::Sealed {}
impl SelectWithBytesMaskElement for f16 {}
impl SelectWithBytesMaskElement for f32 {}
impl sealed::Sealed for f16 {}
impl sealed::Sealed for f32 {}

/// Element types of the advanced `Select`'s mask (`U`): `bool` ([`Bool8`]), `int8_t`,
/// `uint8_t`, `int16_t`, `uint16_t`, `int32_t`, `uint32_t` (the vendor's page). Each is cast to
/// `half` by its size: 1-byte masks as `uint8_t`, 2-byte as `int16_t`, 4-byte as the bits of a
/// `float` with `CAST_ODD` (`CastMaskToHalfImpl`).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(d: &LocalTensor<f32>, m: &LocalTensor<f32>, t: &LocalTensor<u8>) {
///     select_with_bytes_mask::<f32, f32, true>(d, d, 1.0, m, t, &SelectWithBytesMaskShapeInfo::new(1, 8, 32));
/// }
/// ```
pub trait BytesMaskElement: Element + sealed::Sealed {}
macro_rules! bytes_mask {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl BytesMaskElement for $t {}
    )*};
}
bytes_mask!(Bool8, i8, u8, i16, u16, i32, u32);

/// The shapes of the advanced `Select`'s operands (AscendC `SelectWithBytesMaskShapeInfo`):
/// the source tensor is `first_axis × src_last_axis`, the mask `first_axis × mask_last_axis`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SelectWithBytesMaskShapeInfo {
    /// Rows of the source tensor and of the mask (`firstAxis`).
    pub first_axis: u32,
    /// Elements in a row of the source tensor (`srcLastAxis`); `src_last_axis · sizeof(T)` must
    /// be a multiple of 32 bytes.
    pub src_last_axis: u32,
    /// Elements in a row of the mask (`maskLastAxis`): at least `src_last_axis`, a multiple of
    /// 16, and `mask_last_axis · sizeof(U)` a multiple of 32 bytes.
    pub mask_last_axis: u32,
}

impl SelectWithBytesMaskShapeInfo {
    /// `{firstAxis, srcLastAxis, maskLastAxis}`.
    pub const fn new(first_axis: u32, src_last_axis: u32, mask_last_axis: u32) -> Self {
        SelectWithBytesMaskShapeInfo { first_axis, src_last_axis, mask_last_axis }
    }
}

/// `SelectWithBytesMaskImpl`'s checks (the vendor's `CheckFuncClassSelectWithBytesMask` and
/// the kernel's scratch assertions), once per call. Returns the extra scratch bytes the packed
/// mask takes (`tmpMaskRequiredBuffer`, 0 when it is not used).
#[track_caller]
fn checks<T: SelectWithBytesMaskElement, U: BytesMaskElement, const IS_REUSE_MASK: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    mask: &LocalTensor<U>,
    tmp: &LocalTensor<u8>,
    info: &SelectWithBytesMaskShapeInfo,
) -> usize {
    check_chip(API, &CHIPS);
    let tensor = "the source tensor";
    for (name, pos) in [
        ("dst", dst.get_position()),
        (tensor, src.get_position()),
        ("mask", mask.get_position()),
        ("sharedTmpBuffer", tmp.get_position()),
    ] {
        ensure(pos.is_ub(), API, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
    }
    let (first, src_last, mask_last) =
        (info.first_axis as usize, info.src_last_axis as usize, info.mask_last_axis as usize);
    let src_size = src.get_size();
    ensure(src_size == first * src_last, API, || {
        format!(
            "info.firstAxis * info.srcLastAxis is {first} * {src_last} = {}; it must equal {tensor}'s size {src_size}",
            first * src_last
        )
    });
    ensure(mask.get_size() == first * mask_last, API, || {
        format!(
            "info.firstAxis * info.maskLastAxis is {first} * {mask_last} = {}; it must equal mask's size {}",
            first * mask_last,
            mask.get_size()
        )
    });
    ensure(mask_last >= src_last, API, || {
        format!(
            "info.maskLastAxis = {mask_last} must be greater than or equal to info.srcLastAxis = {src_last}"
        )
    });
    ensure(mask_last * U::SIZE % ONE_BLK_SIZE == 0, API, || {
        format!(
            "info.maskLastAxis = {mask_last} {} elements is {} bytes; it must be 32-byte aligned",
            U::DTYPE,
            mask_last * U::SIZE
        )
    });
    ensure(mask_last % 16 == 0, API, || {
        format!("info.maskLastAxis = {mask_last} must be an integer multiple of 16")
    });
    ensure(src_last * T::SIZE % ONE_BLK_SIZE == 0, API, || {
        format!(
            "info.srcLastAxis = {src_last} {} elements is {} bytes; it must be 32-byte aligned",
            T::DTYPE,
            src_last * T::SIZE
        )
    });
    ensure(dst.get_size() >= src_size, API, || {
        format!("dst has {} {} elements; it must hold {tensor}'s {src_size}", dst.get_size(), T::DTYPE)
    });
    let bytes = tmp.get_size();
    ensure(bytes >= MIN_REQUIRED_BUFFER, API, || {
        format!(
            "sharedTmpBuffer has {bytes} bytes; it must be at least {MIN_REQUIRED_BUFFER} (see the host's \
             GetSelectMaxMinTmpSize)"
        )
    });
    // `ComputeMaskExtraBufSize`: the packed mask's bytes on Ascend910B, 0 on Ascend310P.
    let extra = if !IS_REUSE_MASK && src_last != mask_last && crate::kernel::ctx::get_soc() == Soc::Ascend910B
    {
        align_up(src_size * U::SIZE, ONE_BLK_SIZE)
    } else {
        0
    };
    if !IS_REUSE_MASK && src_last != mask_last {
        ensure(bytes >= MIN_REQUIRED_BUFFER + extra, API, || {
            format!(
                "sharedTmpBuffer has {bytes} bytes; with isReuseMask = false and info.srcLastAxis = {src_last} != \
                 info.maskLastAxis = {mask_last} it must be at least {} ({MIN_REQUIRED_BUFFER} + {extra} for the \
                 packed mask)",
                MIN_REQUIRED_BUFFER + extra
            )
        });
    }
    let (d, s, m, t) =
        (whole("dst", dst), whole(tensor, src), whole("mask", mask), whole("sharedTmpBuffer", tmp));
    check_apart(API, &[(t, d), (t, s), (t, m)]);
    extra
}

/// `CastMaskToHalfImpl`: the mask's counted elements as `half`, by the mask's size.
#[track_caller]
fn cast_mask_to_half<U: BytesMaskElement>(dst: &LocalTensor<f16>, mask: &LocalTensor<U>) {
    match U::SIZE {
        4 => cast_masked::<f16, f32, false>(
            dst,
            &mask.reinterpret_cast::<f32>(),
            RoundMode::CastOdd,
            MASK_PLACEHOLDER,
            1,
            &UnaryRepeatParams::new(1, 1, 4, 8),
        ),
        2 => cast_masked::<f16, i16, false>(
            dst,
            &mask.reinterpret_cast::<i16>(),
            RoundMode::CastNone,
            MASK_PLACEHOLDER,
            1,
            &SAME,
        ),
        _ => cast_masked::<f16, u8, false>(
            dst,
            &mask.reinterpret_cast::<u8>(),
            RoundMode::CastNone,
            MASK_PLACEHOLDER,
            1,
            &UnaryRepeatParams::new(1, 1, 8, 4),
        ),
    }
}

/// `SelectWithBytesMaskPerAxisImpl`: `len` elements (the round's count; the scratch `buf`
/// holds the mask as `half`, then its compare bits at the same address).
#[track_caller]
fn per_axis<T: SelectWithBytesMaskElement, U: BytesMaskElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    mask: &LocalTensor<U>,
    buf: &LocalTensor<u8>,
    len: usize,
    reverse: bool,
) {
    let mask_half = buf.reinterpret_cast::<f16>();
    count_mask::<f16>(len);
    cast_mask_to_half(&mask_half, mask);
    pipe_barrier::<PIPE_V>();
    let mode = if reverse { CMPMODE::NE } else { CMPMODE::EQ };
    let repeat = len.div_ceil(128) as u8;
    compare_scalar_in_place::<f16>(buf, &mask_half, f16::ZERO, mode, repeat, &UnaryRepeatParams::default());
    pipe_barrier::<PIPE_V>();
    select_scalar_reg::<T, u8>(dst, buf, src, 1, &BinaryRepeatParams::default());
}

/// `SelectWithBytesMaskLoopImpl`: rounds of `loop_size` over `total` elements from `src_off` of
/// `dst`/`src` and `mask_off` of the mask.
#[allow(clippy::too_many_arguments)] // the vendor's parameters
#[track_caller]
fn rounds<T: SelectWithBytesMaskElement, U: BytesMaskElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    mask: &LocalTensor<U>,
    buf: &LocalTensor<u8>,
    loop_size: usize,
    total: usize,
    (src_off, mask_off): (usize, usize),
    reverse: bool,
) {
    for off in (0..total).step_by(loop_size) {
        let len = loop_size.min(total - off);
        per_axis(
            &dst.view(src_off + off),
            &src.view(src_off + off),
            &mask.view(mask_off + off),
            buf,
            len,
            reverse,
        );
        pipe_barrier::<PIPE_V>();
    }
}

/// `SelectWithBytesMaskImpl<T, U, isReuseMask, reverse>`: `src` is the tensor, `scalar` the
/// scalar; `reverse` when the scalar is the first operand.
#[allow(clippy::too_many_arguments)] // the vendor's parameters
#[track_caller]
fn select_impl<T: SelectWithBytesMaskElement, U: BytesMaskElement, const IS_REUSE_MASK: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    scalar: T,
    mask: &LocalTensor<U>,
    tmp: &LocalTensor<u8>,
    info: &SelectWithBytesMaskShapeInfo,
    reverse: bool,
) {
    let extra = checks::<T, U, IS_REUSE_MASK>(dst, src, mask, tmp, info);
    pipe_barrier::<PIPE_V>();
    let (first, src_last, mask_last) =
        (info.first_axis as usize, info.src_last_axis as usize, info.mask_last_axis as usize);
    let src_size = src.get_size();
    let packed = !IS_REUSE_MASK && src_last != mask_last && extra > 0;
    let tmp_mask =
        if packed { tmp.reinterpret_cast::<U>().view_len(0, extra / U::SIZE) } else { mask.clone() };
    let buffer = tmp.get_size() - extra - RESERVED_BUFFER;
    let loop_size = (buffer / 2 / ONE_BLK_SIZE * ONE_BLK_SIZE).min(MAX_LOOP);
    set_mask_count();
    // InitScalarSelectMask
    let scalar_t = tmp.reinterpret_cast::<T>();
    count_mask::<f16>(256 / T::SIZE);
    duplicate_masked::<T, false>(&scalar_t, scalar, MASK_PLACEHOLDER, 1, 1, 8);
    pipe_barrier::<PIPE_V>();
    set_cmp_mask(&scalar_t);
    pipe_barrier::<PIPE_V>();
    let buf = tmp.view(extra);
    if crate::kernel::ctx::get_soc() == Soc::Ascend910B {
        if src_last != mask_last {
            // RemoveRedundantMask
            let _kept = gather_mask::<u16, u16>(
                &tmp_mask.reinterpret_cast::<u16>(),
                &mask.reinterpret_cast::<u16>(),
                GatherPattern::Fixed(7),
                true,
                (src_last * U::SIZE / 2) as u32,
                &GatherMaskParams::new(1, first as u16, (mask_last * U::SIZE / ONE_BLK_SIZE) as u16, 0),
            );
            set_mask_count();
            pipe_barrier::<PIPE_V>();
        }
        rounds(dst, src, &tmp_mask, &buf, loop_size, src_size, (0, 0), reverse);
    } else if src_last == mask_last {
        rounds(dst, src, mask, &buf, loop_size, src_size, (0, 0), reverse);
    } else {
        for row in 0..first {
            rounds(dst, src, mask, &buf, loop_size, src_last, (row * src_last, row * mask_last), reverse);
        }
    }
    set_mask_norm();
    reset_mask();
}

/// `dst = mask == 0 ? src0 : src1` element by element, `src0` a tensor and `src1` a scalar
/// (AscendC's advanced `Select<T, U, isReuseMask>(dst, src0, src1, mask, sharedTmpBuffer,
/// info)`, `SelectWithBytesMask`), over the `info.first_axis × info.src_last_axis` elements of
/// `src0`; row `i` of the mask starts at element `i · info.mask_last_axis`, and its elements
/// past `src_last_axis` are ignored. See the [module](self) for the steps.
///
/// With `IS_REUSE_MASK` and `mask_last_axis ≠ src_last_axis`, on Ascend910B the mask is
/// overwritten (its rows packed to `src_last_axis`, as the page warns); without it the packed
/// mask takes `align32(size · sizeof(U))` more bytes of scratch. `dst` may be `src0` (the page:
/// "源操作数与目的操作数可以复用"). The compare-mask register is left holding the scalar.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut m, mut t) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 64);
/// pipe.init_tbuf(&mut b, 64);
/// pipe.init_tbuf(&mut m, 64);
/// pipe.init_tbuf(&mut t, 1056); // GetSelectMaxMinTmpSize: (1056, 1056)
/// let (src, dst, mask) = (a.get::<f16>(), b.get::<f16>(), m.get::<Bool8>());
/// src.copy_from_slice(&[f16::from_f32(1.0); 32]);
/// // Two rows of 16 halfs; the mask rows have 32 bools, of which the first 16 count.
/// mask.copy_from_slice(&(0..64).map(|i| Bool8::new(i % 3 == 0)).collect::<Vec<_>>());
/// let info = SelectWithBytesMaskShapeInfo::new(2, 16, 32);
/// select_with_bytes_mask::<f16, Bool8, false>(&dst, &src, f16::from_f32(7.0), &mask, &t.get::<u8>(), &info);
/// assert_eq!(dst.get_value(0).to_f32(), 7.0); // mask[0][0] is true: the scalar
/// assert_eq!(dst.get_value(1).to_f32(), 1.0);
/// assert_eq!(dst.get_value(16).to_f32(), 1.0); // mask[1][0] = element 32: 32 % 3 != 0
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); a tensor is not in the
/// Unified Buffer; `info` does not describe the tensors (`first_axis · src_last_axis` is not
/// `src0`'s size, `first_axis · mask_last_axis` not the mask's), `mask_last_axis <
/// src_last_axis`, `mask_last_axis` is not a multiple of 16 or of 32 bytes, or
/// `src_last_axis` not of 32 bytes; `dst` is shorter than `src0`; the scratch has fewer than
/// 1024 bytes (plus the packed mask's, see above); or the scratch overlaps another operand; or any instruction's own check fails.
#[track_caller]
pub fn select_with_bytes_mask<
    T: SelectWithBytesMaskElement,
    U: BytesMaskElement,
    const IS_REUSE_MASK: bool,
>(
    dst: &LocalTensor<T>,
    src0: &LocalTensor<T>,
    src1: T,
    mask: &LocalTensor<U>,
    shared_tmp_buffer: &LocalTensor<u8>,
    info: &SelectWithBytesMaskShapeInfo,
) {
    select_impl::<T, U, IS_REUSE_MASK>(dst, src0, src1, mask, shared_tmp_buffer, info, false);
}

/// `dst = mask == 0 ? src0 : src1` element by element, `src0` a scalar and `src1` a tensor
/// (AscendC's advanced `Select<T, U, isReuseMask>(dst, src0, src1, mask, sharedTmpBuffer,
/// info)` with the scalar first): as [`select_with_bytes_mask`] with the roles swapped (the
/// vendor's `reverse`: the mask is compared with `NE` instead of `EQ`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut m, mut t) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 32);
/// pipe.init_tbuf(&mut m, 64);
/// pipe.init_tbuf(&mut t, 1024);
/// let (x, mask) = (a.get::<f32>(), m.get::<i32>());
/// x.copy_from_slice(&[1.0; 8]);
/// mask.copy_from_slice(&[0, 5, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0]);
/// let info = SelectWithBytesMaskShapeInfo::new(1, 8, 16);
/// // In place: dst is src1.
/// select_with_bytes_mask_scalar_tensor::<f32, i32, true>(&x, -2.0, &x, &mask, &t.get::<u8>(), &info);
/// assert_eq!(x.to_vec(), [-2.0, 1.0, -2.0, -2.0, -2.0, -2.0, -2.0, 1.0]);
/// ```
///
/// # Panics
/// As [`select_with_bytes_mask`].
#[track_caller]
pub fn select_with_bytes_mask_scalar_tensor<
    T: SelectWithBytesMaskElement,
    U: BytesMaskElement,
    const IS_REUSE_MASK: bool,
>(
    dst: &LocalTensor<T>,
    src0: T,
    src1: &LocalTensor<T>,
    mask: &LocalTensor<U>,
    shared_tmp_buffer: &LocalTensor<u8>,
    info: &SelectWithBytesMaskShapeInfo,
) {
    select_impl::<T, U, IS_REUSE_MASK>(dst, src1, src0, mask, shared_tmp_buffer, info, true);
}

// ---------------------------------------------------------------------------------------
// Host helpers
// ---------------------------------------------------------------------------------------

/// `CheckSelectParams` (`impl/adv_api/tiling/select/selectwithbytesmask_tiling_impl.cpp`); the
/// vendor logs these as errors and carries on, here they fail. `srcTypeSize` is not used (the
/// vendor only warns when it is not 2 or 4).
#[track_caller]
fn host_checks(api: &'static str, src0: &[usize], src1: &[usize], mask: &[usize], mask_type_size: usize) {
    ensure(matches!(mask_type_size, 1 | 2 | 4), api, || {
        format!("maskTypeSize = {mask_type_size}; it must be 1, 2 or 4")
    });
    ensure(src0.len() == 2 || src1.len() == 2, api, || {
        format!(
            "src0Shape has {} dimensions and src1Shape {}; one of them (the tensor) must have 2",
            src0.len(),
            src1.len()
        )
    });
    ensure(mask.len() == 2, api, || format!("maskShape has {} dimensions; it must have 2", mask.len()));
}

/// `ComputeBufferSize`: `max(1024, align32(n) · 2 + 512)` with `n` the tensor's elements (at
/// most 4096 for the minimum), plus `align32(n · maskTypeSize)` when the mask's rows are longer
/// and `is_reuse_mask` is false.
fn buffer_size(
    src0: &[usize],
    src1: &[usize],
    mask: &[usize],
    mask_type_size: usize,
    reuse: bool,
    min: bool,
) -> usize {
    let size = |s: &[usize]| s.iter().product::<usize>();
    let is_scalar = src0.is_empty() || size(src0) == 1;
    let tensor = if is_scalar { src1 } else { src0 };
    let n = size(tensor);
    let cal = if min { n.min(4096) } else { n };
    let mut required = MIN_REQUIRED_BUFFER.max(align_up(cal, ONE_BLK_SIZE) * 2 + 512);
    let (mask_last, src_last) = (mask[mask.len() - 1], tensor.last().copied().unwrap_or(1));
    if mask_last != src_last && !reuse && mask_last > 1 {
        required += align_up(n * mask_type_size, ONE_BLK_SIZE);
    }
    required
}

/// The scratch bytes the advanced `Select` needs: `(max, min)` (AscendC
/// `GetSelectMaxMinTmpSize`, formerly `GetSelectWithBytesMaskMaxMinTmpSize`). The scalar's
/// shape is `[1]`; the tensor's and the mask's have two dimensions. With `n` the tensor's
/// elements: `max(1024, align32(n)·2 + 512)` for the maximum and the same with `n` capped at
/// 4096 for the minimum, both plus `align32(n · mask_type_size)` when the mask's last axis
/// differs from the tensor's (and is above 1) and `is_reuse_mask` is false.
///
/// ```
/// use ascend_core::prelude::*;
/// // The page's example: a 64 × 128 half tensor, a scalar, a 64 × 128 bool mask.
/// assert_eq!(get_select_max_min_tmp_size(&[64, 128], &[1], 2, &[64, 128], 1, false), (16896, 8704));
/// assert_eq!(get_select_max_min_tmp_size(&[1], &[2, 16], 2, &[2, 32], 1, false), (1056, 1056));
/// ```
///
/// # Panics
/// Panics if `mask_type_size` is not 1, 2 or 4, neither source shape has two dimensions, or
/// the mask's shape does not (the vendor's host checks).
#[track_caller]
pub fn get_select_max_min_tmp_size(
    src0_shape: &[usize],
    src1_shape: &[usize],
    src_type_size: usize,
    mask_shape: &[usize],
    mask_type_size: usize,
    is_reuse_mask: bool,
) -> (usize, usize) {
    let _ = src_type_size;
    host_checks("GetSelectMaxMinTmpSize", src0_shape, src1_shape, mask_shape, mask_type_size);
    (
        buffer_size(src0_shape, src1_shape, mask_shape, mask_type_size, is_reuse_mask, false),
        buffer_size(src0_shape, src1_shape, mask_shape, mask_type_size, is_reuse_mask, true),
    )
}

/// The minimum of [`get_select_max_min_tmp_size`] (AscendC `GetSelectMinTmpSize`, formerly
/// `GetSelectWithBytesMaskMinTmpSize`).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_select_min_tmp_size(&[64, 128], &[1], 4, &[64, 256], 2, false), 8704 + 16384);
/// ```
///
/// # Panics
/// As [`get_select_max_min_tmp_size`].
#[track_caller]
pub fn get_select_min_tmp_size(
    src0_shape: &[usize],
    src1_shape: &[usize],
    src_type_size: usize,
    mask_shape: &[usize],
    mask_type_size: usize,
    is_reuse_mask: bool,
) -> usize {
    let _ = src_type_size;
    host_checks("GetSelectMinTmpSize", src0_shape, src1_shape, mask_shape, mask_type_size);
    buffer_size(src0_shape, src1_shape, mask_shape, mask_type_size, is_reuse_mask, true)
}

/// The maximum of [`get_select_max_min_tmp_size`] (AscendC `GetSelectMaxTmpSize`, formerly
/// `GetSelectWithBytesMaskMaxTmpSize`).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_select_max_tmp_size(&[64, 128], &[1], 4, &[64, 256], 2, true), 16896);
/// ```
///
/// # Panics
/// As [`get_select_max_min_tmp_size`].
#[track_caller]
pub fn get_select_max_tmp_size(
    src0_shape: &[usize],
    src1_shape: &[usize],
    src_type_size: usize,
    mask_shape: &[usize],
    mask_type_size: usize,
    is_reuse_mask: bool,
) -> usize {
    let _ = src_type_size;
    host_checks("GetSelectMaxTmpSize", src0_shape, src1_shape, mask_shape, mask_type_size);
    buffer_size(src0_shape, src1_shape, mask_shape, mask_type_size, is_reuse_mask, false)
}
