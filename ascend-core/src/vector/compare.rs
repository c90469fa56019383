//! `Compare`: compare two tensors lane by lane into a bit mask (AscendC `Compare`, `CMPMODE`).
//!
//! The result has one bit per compared element, little-endian: element `k` of the call (lane
//! `j` of repeat `r`, `k = r * PAR + j`) is bit `k % 8` of byte `k / 8` of `dst`; 1 means true.
//! Each repeat writes `PAR / 8` whole bytes (8 for f32, 16 for f16) right after the previous
//! repeat's, whatever `dstBlkStride`/`dstRepStride` say (the vector compare instruction has
//! no destination strides). Comparisons are IEEE: anything involving NaN is false, except `NE`.
//!
//! The result is exactly what [`select`](crate::vector::select::select) takes as `selMask` in
//! mode 2, so a kernel can build a selection from data:
//! ```
//! use ascend_core::prelude::*;
//! let mut pipe = TPipe::new();
//! let (mut a, mut b, mut c, mut m) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
//! for t in [&mut a, &mut b, &mut c, &mut m] { pipe.init_tbuf(t, 256); }
//! let (dst, x, y, mask) = (a.get::<f32>(), b.get::<f32>(), c.get::<f32>(), m.get::<u8>());
//! let xs: Vec<f32> = (0..64).map(|i| i as f32).collect();
//! let ys: Vec<f32> = (0..64).map(|i| 63.0 - i as f32).collect();
//! x.copy_from_slice(&xs);
//! y.copy_from_slice(&ys);
//! compare(&mask, &x, &y, CMPMODE::GT, 64);
//! select(&dst, &mask, &x, &y, SelMode::VselTensorTensorMode, 64);
//! assert!(dst.to_vec().iter().zip(xs.iter().zip(&ys)).all(|(d, (a, b))| *d == a.max(*b)));
//! ```

use crate::element::{f16, Element};
use crate::kernel::ctx::MaskMode;
use crate::kernel::ctx::{get_soc, with_core};
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::soc::Soc;
use crate::vector::engine::{apply_sources, span_of, Lanes, Operand};
use crate::vector::mask::{
    get_mask_mode, get_vector_mask, prefix_bits, resolve, Mask, Plan, MASK_PLACEHOLDER,
};
use crate::vector::params::{BinaryRepeatParams, UnaryRepeatParams};

const API: &str = "Compare";

/// The comparison (AscendC `CMPMODE`): `src0 <op> src1`.
#[allow(clippy::upper_case_acronyms)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CMPMODE {
    /// `src0 < src1` (`CMPMODE::LT`).
    LT,
    /// `src0 > src1` (`CMPMODE::GT`).
    GT,
    /// `src0 == src1` (`CMPMODE::EQ`).
    EQ,
    /// `src0 <= src1` (`CMPMODE::LE`).
    LE,
    /// `src0 >= src1` (`CMPMODE::GE`).
    GE,
    /// `src0 != src1` (`CMPMODE::NE`); the only mode that is true for NaN.
    NE,
}

impl std::fmt::Display for CMPMODE {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CMPMODE::{self:?}")
    }
}

mod sealed {
    pub trait CompareSealed {
        /// `int32_t`: only `EQ`, only on the chips that have it.
        const EQ_ONLY: bool;
    }
}

/// Element types `Compare` accepts for `src0`/`src1`: `f16` and `f32` on every chip (all
/// modes), and `i32` with `CMPMODE::EQ` only on Ascend910B (a run-time error elsewhere).
/// Other types do not compile (`u16` is asserted at the end of this module).
pub trait CompareElement: Element + sealed::CompareSealed {}

impl sealed::CompareSealed for f16 {
    const EQ_ONLY: bool = false;
}
impl CompareElement for f16 {}
impl sealed::CompareSealed for f32 {
    const EQ_ONLY: bool = false;
}
impl CompareElement for f32 {}
impl sealed::CompareSealed for i32 {
    const EQ_ONLY: bool = true;
}
impl CompareElement for i32 {}

mod dst_sealed {
    pub trait CompareDstSealed {}
}

/// Element types of `Compare`'s bit-mask `dst`: `uint8_t` and `int8_t` (the vendor lists both
/// for every chip); only the bytes matter.
/// Other types do not compile (`u16` is asserted at the end of this module).
pub trait CompareDstElement: Element + dst_sealed::CompareDstSealed {}
impl dst_sealed::CompareDstSealed for u8 {}
impl CompareDstElement for u8 {}
impl dst_sealed::CompareDstSealed for i8 {}
impl CompareDstElement for i8 {}

/// Checks the element type against the chip and the mode.
#[track_caller]
fn check_type<T: CompareElement>(mode: CMPMODE) {
    if T::EQ_ONLY {
        let soc = get_soc();
        ensure(soc == Soc::Ascend910B, API, || {
            format!(
                "{} is not supported on {soc} ({}): only half and float are",
                T::DTYPE,
                soc.product_line()
            )
        });
        ensure(mode == CMPMODE::EQ, API, || {
            format!("cmpMode = {mode} is not supported for {}: only CMPMODE::EQ is", T::DTYPE)
        });
    }
}

/// Writes the comparison bits of a run of lanes into the zeroed staging bytes; `scalar` is
/// the right-hand side of the one-source form (`CompareScalar`).
struct CmpKernel<T> {
    out: *mut u8,
    mode: CMPMODE,
    scalar: T,
}

/// # Safety
/// `a` is valid for `n` reads and `b(j)` reads a valid element for `j < n`; `out` holds bytes
/// up to `(lane + n - 1) / 8`.
#[inline(always)]
unsafe fn cmp_run<T: Copy>(
    out: *mut u8,
    lane: usize,
    a: *const T,
    b: impl Fn(usize) -> T,
    n: usize,
    f: impl Fn(T, T) -> bool,
) {
    for j in 0..n {
        let k = lane + j;
        // SAFETY: j < n and byte k / 8 is in range (function contract).
        unsafe {
            let t = f(*a.add(j), b(j)) as u8;
            *out.add(k >> 3) |= t << (k & 7);
        }
    }
}

impl<T: Element> CmpKernel<T> {
    /// # Safety
    /// As [`cmp_run`].
    #[inline(always)]
    unsafe fn lanes(&self, lane: usize, a: *const T, b: impl Fn(usize) -> T, n: usize) {
        let o = self.out;
        // SAFETY: forwarded.
        unsafe {
            match self.mode {
                CMPMODE::LT => cmp_run(o, lane, a, b, n, |x, y| x < y),
                CMPMODE::GT => cmp_run(o, lane, a, b, n, |x, y| x > y),
                CMPMODE::EQ => cmp_run(o, lane, a, b, n, |x, y| x == y),
                CMPMODE::LE => cmp_run(o, lane, a, b, n, |x, y| x <= y),
                CMPMODE::GE => cmp_run(o, lane, a, b, n, |x, y| x >= y),
                CMPMODE::NE => cmp_run(o, lane, a, b, n, |x, y| x != y),
            }
        }
    }
}

impl<T: Element> Lanes<T, 2> for CmpKernel<T> {
    #[inline]
    unsafe fn run(&mut self, lane: usize, _src0: *mut T, src: [*const T; 2], n: usize) {
        let [a, b] = src;
        // SAFETY: forwarded from the Lanes contract (b valid for n reads); the caller checked
        // that `out` holds every byte of the lanes it plans.
        unsafe { self.lanes(lane, a, |j| *b.add(j), n) }
    }
}

impl<T: Element> Lanes<T, 1> for CmpKernel<T> {
    #[inline]
    unsafe fn run(&mut self, lane: usize, _src0: *mut T, src: [*const T; 1], n: usize) {
        let s = self.scalar;
        // SAFETY: as for the two-source form.
        unsafe { self.lanes(lane, src[0], |_| s, n) }
    }
}

/// Byte span `[start, end)` of an operand's touched elements under `plan`, clipped to the
/// tensor (strides are non-negative, so the last lane of the last repeats is the farthest;
/// elements past the tensor are reported by the engine's bounds check).
fn span<T: Element>(op: &Operand<'_, T>, plan: &Plan) -> (usize, usize) {
    let hi = |b: [u64; 2]| {
        if b[1] != 0 {
            127 - b[1].leading_zeros() as usize
        } else {
            63 - b[0].leading_zeros() as usize
        }
    };
    let at = |r: usize, j: usize| (r * op.rep + (j / T::EPB) * op.blk) * T::EPB + j % T::EPB;
    let mut end = at(plan.repeats - 1, hi(plan.last)) + 1;
    if plan.repeats >= 2 {
        end = end.max(at(plan.repeats - 2, hi(plan.bits)) + 1);
    }
    op.t.byte_range(end.min(op.t.get_size()))
}

/// Checks `dst` and the sources, runs the comparison into a zeroed staging buffer and stores
/// the whole result bytes (disabled lanes give 0 bits).
#[track_caller]
fn run<T: Element, const N: usize>(
    api: &'static str,
    dst: &LocalTensor<u8>,
    srcs: [&Operand<'_, T>; N],
    mode: CMPMODE,
    scalar: T,
    plan: &Plan,
    in_place_ok: bool,
) where
    CmpKernel<T>: Lanes<T, N>,
{
    dst.check_vector_operand(api, "dst");
    let bytes = plan.repeats.checked_mul(T::PAR / 8);
    ensure(bytes.is_some_and(|b| b <= dst.get_size()), api, || {
        format!(
            "dst holds {} bytes but {} repeats of {} write {} bytes ({} per repeat)",
            dst.get_size(),
            plan.repeats,
            T::DTYPE,
            bytes.map_or("more than usize::MAX".to_string(), |b| b.to_string()),
            T::PAR / 8
        )
    });
    let bytes = bytes.unwrap_or(0);
    // Bounds first, so the overlap arithmetic below cannot overflow.
    for s in srcs {
        crate::vector::engine::check_operand(api, s, plan);
    }
    let (d0, d1) = dst.byte_range(bytes);
    // In counter mode the lanes past the count are compared too (whole repeats, above), but
    // their bits mean nothing: an overlap confined to them is allowed, as the vendor's own
    // `Digamma` relies on (its `tmpScalar` is read in whole repeats into the mask buffer after
    // it when the split is not a multiple of 64). The chip reads a repeat before writing it,
    // as the staging below does.
    let counted = (get_mask_mode() == MaskMode::Counter)
        .then(|| get_vector_mask()[0] as usize)
        .filter(|&n| n > 0)
        .map(Plan::contiguous::<T>);
    let overlap_plan = counted.as_ref().unwrap_or(plan);
    for s in srcs {
        let (a, b) = span(s, overlap_plan);
        // See `compare_scalar_in_place`: from the same first byte, repeats a block or more apart.
        let in_place = in_place_ok && d0 == a && s.rep >= 1 && s.blk <= 1;
        ensure(in_place || d1 <= a || b <= d0, api, || {
            format!(
                "dst (bytes {d0:#x}..{d1:#x}) overlaps {} (bytes {a:#x}..{b:#x}); {api}'s output may not overlap its inputs",
                s.name
            )
        });
    }
    let mut out = vec![0u8; bytes];
    apply_sources(api, plan, srcs, &mut CmpKernel { out: out.as_mut_ptr(), mode, scalar });
    crate::observe::events::on_vector(api, &[], &[span_of(dst, bytes)]);
    dst.view_len(0, bytes).copy_from_slice(&out);
}

/// The lanes a count form runs: whole repeats only, except on Ascend310B (counter mode).
fn count_plan<T: Element>(count: usize) -> Option<Plan> {
    let lanes = if get_soc() == Soc::Ascend310B { count } else { count / T::PAR * T::PAR };
    (lanes > 0).then(|| Plan::contiguous::<T>(lanes))
}

/// The mask of a high-dimensional compare: effective on Ascend310B only; elsewhere a
/// reserved parameter (validated, then every lane of each repeat runs).
#[track_caller]
fn masked_plan<T: Element, const IS_SET_MASK: bool>(
    api: &'static str,
    mask: Mask,
    repeat_times: u8,
) -> Option<Plan> {
    let mut plan = resolve::<T, IS_SET_MASK>(api, mask, repeat_times as usize)?;
    if get_soc() != Soc::Ascend310B {
        let full = prefix_bits(T::PAR);
        plan = Plan { repeats: plan.repeats, bits: full, last: full };
    }
    Some(plan)
}

/// `Compare` on the first `count` elements (AscendC `Compare(dst, src0, src1, cmpMode, count)`):
/// bit `i` of `dst` is `src0[i] <op> src1[i]`.
///
/// Any `count` is accepted, and a tail that does not fill a whole 256-byte repeat behaves as
/// in the vendor's implementation of each chip:
/// - Ascend910, Ascend910B, Ascend310P: the call runs `count / PAR` whole repeats (the vendor
///   computes `count * sizeof(T) / 256`); the tail elements are not compared and `dst` keeps
///   its old bytes past `(count / PAR) * PAR / 8`. The vendor documents this ("elements of an
///   unaligned part do not take part; only whole aligned blocks are valid").
/// - Ascend310B: the call runs in counter mode over `ceil(count / PAR)` repeats; bits of lanes
///   at or past `count` in the last repeat are 0, and whole repeats of bytes are written.
///
/// `count = 0` does nothing. `dst` may be `u8` or `i8`.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut m) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// for t in [&mut a, &mut b, &mut m] { pipe.init_tbuf(t, 512); }
/// let (x, y, bits) = (a.get::<f32>(), b.get::<f32>(), m.get::<u8>());
/// x.copy_from_slice(&[1.0; 128]);
/// y.copy_from_slice(&[2.0; 128]);
/// x.set_value(3, 5.0);
/// bits.copy_from_slice(&[0xAA; 512]);
/// compare(&bits, &x, &y, CMPMODE::LT, 100); // one whole repeat of 64; the tail is dropped
/// assert_eq!(bits.to_vec()[..2], [0b1111_0111, 0xFF]);
/// assert_eq!(bits.get_value(8), 0xAA);
/// ```
///
/// # Panics
/// Panics if the type is not supported on the chip (`i32`: Ascend910B and `EQ` only), if an
/// operand is not a 32-byte aligned UB tensor or is too short for the repeats that run, or
/// if `dst` overlaps a source.
#[track_caller]
pub fn compare<T: CompareElement>(
    dst: &LocalTensor<impl CompareDstElement>,
    src0: &LocalTensor<T>,
    src1: &LocalTensor<T>,
    cmp_mode: CMPMODE,
    count: usize,
) {
    check_type::<T>(cmp_mode);
    let Some(plan) = count_plan::<T>(count) else {
        return;
    };
    let p = BinaryRepeatParams::default();
    let s0 = Operand::new(src0, p.src0_blk_stride, p.src0_rep_stride, "src0");
    let s1 = Operand::new(src1, p.src1_blk_stride, p.src1_rep_stride, "src1");
    run(API, &dst.reinterpret_cast::<u8>(), [&s0, &s1], cmp_mode, T::ZERO, &plan, false);
}

/// High-dimensional `Compare` (AscendC `Compare<T, U, isSetMask>(dst, src0, src1, cmpMode,
/// mask, repeatTimes, repeatParams)`), with a continuous (`u64`) or bit (`[u64; 2]`) mask.
/// Repeat `r` writes bytes `r * PAR / 8 .. (r + 1) * PAR / 8` of `dst`; the destination
/// strides of `repeat_params` are unused.
///
/// The mask is validated as for every vector instruction, but it only takes effect on
/// Ascend310B (where a disabled lane's bit is 0); on Ascend910, Ascend910B and Ascend310P the
/// vendor documents it as a reserved parameter with no effect, and all `PAR` lanes of each
/// repeat are compared.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut m) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// for t in [&mut a, &mut b] { pipe.init_tbuf(t, 1024); }
/// pipe.init_tbuf(&mut m, 32);
/// let (x, y, bits) = (a.get::<f32>(), b.get::<f32>(), m.get::<u8>());
/// x.copy_from_slice(&[1.0; 256]);
/// y.copy_from_slice(&[1.0; 256]);
/// // Two repeats reading every other repeat of the sources.
/// let p = BinaryRepeatParams::new(1, 1, 1, 8, 16, 16);
/// compare_masked::<f32, true>(&bits, &x, &y, CMPMODE::EQ, 64u64, 2, &p);
/// assert_eq!(bits.to_vec()[..16], [0xFF; 16]);
/// ```
///
/// # Panics
/// Panics as [`compare`], and if the mask is out of range for `T` or breaks the
/// `IS_SET_MASK`/`MASK_PLACEHOLDER` rule, or a touched element lies outside its tensor.
#[track_caller]
pub fn compare_masked<T: CompareElement, const IS_SET_MASK: bool>(
    dst: &LocalTensor<impl CompareDstElement>,
    src0: &LocalTensor<T>,
    src1: &LocalTensor<T>,
    cmp_mode: CMPMODE,
    mask: impl Into<Mask>,
    repeat_times: u8,
    repeat_params: &BinaryRepeatParams,
) {
    check_type::<T>(cmp_mode);
    let Some(plan) = masked_plan::<T, IS_SET_MASK>(API, mask.into(), repeat_times) else {
        return;
    };
    let p = repeat_params;
    let s0 = Operand::new(src0, p.src0_blk_stride, p.src0_rep_stride, "src0");
    let s1 = Operand::new(src1, p.src1_blk_stride, p.src1_rep_stride, "src1");
    run(API, &dst.reinterpret_cast::<u8>(), [&s0, &s1], cmp_mode, T::ZERO, &plan, false);
}

const SCALAR_API: &str = "CompareScalar";

mod scalar_sealed {
    pub trait CompareScalarSealed {}
}

/// Element types `CompareScalar` (AscendC `Compares`) accepts: `half` and `float` (Ascend910B,
/// Ascend310P, Ascend310B; all modes), `int32_t` (Ascend910B with `CMPMODE::EQ` only;
/// Ascend310B all modes), `int16_t`, `uint16_t`, `uint32_t` (Ascend310B only). Ascend910 has
/// no `Compares`. Other chips and modes are run-time errors naming the chip.
/// Other types do not compile (`bf16` is asserted at the end of this module).
pub trait CompareScalarElement: Element + scalar_sealed::CompareScalarSealed {
    /// Whether `soc` supports `Compares` on this type with `mode`.
    fn compare_scalar_supported(soc: Soc, mode: CMPMODE) -> bool;
}

macro_rules! compare_scalar_types {
    ($($t:ty => |$soc:ident, $mode:ident| $ok:expr),* $(,)?) => {$(
        impl scalar_sealed::CompareScalarSealed for $t {}
        impl CompareScalarElement for $t {
            fn compare_scalar_supported($soc: Soc, $mode: CMPMODE) -> bool {
                let _ = $mode;
                $ok
            }
        }
    )*};
}
compare_scalar_types! {
    f16 => |soc, mode| soc != Soc::Ascend910,
    f32 => |soc, mode| soc != Soc::Ascend910,
    i32 => |soc, mode| soc == Soc::Ascend310B || (soc == Soc::Ascend910B && mode == CMPMODE::EQ),
    i16 => |soc, mode| soc == Soc::Ascend310B,
    u16 => |soc, mode| soc == Soc::Ascend310B,
    u32 => |soc, mode| soc == Soc::Ascend310B,
}

#[track_caller]
fn check_scalar_type<T: CompareScalarElement>(mode: CMPMODE) {
    let soc = get_soc();
    ensure(T::compare_scalar_supported(soc, mode), SCALAR_API, || {
        format!("T = {} with {mode} is not supported on {soc} ({})", T::DTYPE, soc.product_line())
    });
}

/// `CompareScalar` on the first `count` elements (AscendC `Compares(dst, src0, src1Scalar,
/// cmpMode, count)`, also spelled `CompareScalar`): bit `i` of `dst` is
/// `src0[i] <op> src1_scalar`. The count, tail and NaN rules are [`compare`]'s.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut m) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 256);
/// pipe.init_tbuf(&mut m, 32);
/// let (x, bits) = (a.get::<f32>(), m.get::<u8>());
/// x.copy_from_slice(&(0..64).map(|i| i as f32).collect::<Vec<_>>());
/// compare_scalar(&bits, &x, 4.0, CMPMODE::LT, 64);
/// assert_eq!(bits.to_vec()[..2], [0b0000_1111, 0]);
/// ```
///
/// # Panics
/// Panics if the chip does not support `T` with `cmp_mode`, if an operand is not a 32-byte
/// aligned UB tensor or is too short, or if `dst` overlaps `src0`.
#[track_caller]
pub fn compare_scalar<T: CompareScalarElement>(
    dst: &LocalTensor<u8>,
    src0: &LocalTensor<T>,
    src1_scalar: T,
    cmp_mode: CMPMODE,
    count: usize,
) {
    check_scalar_type::<T>(cmp_mode);
    let Some(plan) = count_plan::<T>(count) else {
        return;
    };
    let s0 = Operand::new(src0, 1u8, 8u8, "src0");
    run(SCALAR_API, dst, [&s0], cmp_mode, src1_scalar, &plan, false);
}

/// High-dimensional `CompareScalar` (AscendC `Compares<T, U, isSetMask>(dst, src0,
/// src1Scalar, cmpMode, mask, repeatTime, repeatParams)`); the mask, repeat and destination
/// rules are [`compare_masked`]'s, with `src0`'s strides from `repeat_params`.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut m) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 512);
/// pipe.init_tbuf(&mut m, 32);
/// let (x, bits) = (a.get::<f16>(), m.get::<u8>());
/// x.copy_from_slice(&[f16::from_f32(2.0); 256]);
/// compare_scalar_masked::<f16, true>(&bits, &x, f16::from_f32(2.0), CMPMODE::EQ, 128u64, 2, &UnaryRepeatParams::default());
/// assert_eq!(bits.to_vec(), vec![0xFF; 32]);
/// ```
///
/// # Panics
/// As [`compare_scalar`], and if the mask is out of range for `T` or breaks the
/// `IS_SET_MASK`/`MASK_PLACEHOLDER` rule, or a touched element lies outside `src0`.
#[track_caller]
pub fn compare_scalar_masked<T: CompareScalarElement, const IS_SET_MASK: bool>(
    dst: &LocalTensor<u8>,
    src0: &LocalTensor<T>,
    src1_scalar: T,
    cmp_mode: CMPMODE,
    mask: impl Into<Mask>,
    repeat_times: u8,
    repeat_params: &UnaryRepeatParams,
) {
    check_scalar_type::<T>(cmp_mode);
    let Some(plan) = masked_plan::<T, IS_SET_MASK>(SCALAR_API, mask.into(), repeat_times) else {
        return;
    };
    let s0 = Operand::new(src0, repeat_params.src_blk_stride, repeat_params.src_rep_stride, "src0");
    run(SCALAR_API, dst, [&s0], cmp_mode, src1_scalar, &plan, false);
}

/// [`compare_scalar_masked`] with `IS_SET_MASK = false` and `MASK_PLACEHOLDER`, where `dst` may
/// begin at `src0`'s first byte (the vendor's own advanced `Select` does this:
/// `SelectWithBytesMaskPerAxisImpl` in
/// `impl/adv_api/detail/select/selectwithbytesmask/selectwithbytesmask_common_impl.h` compares a
/// `half` tensor into bits at the same address). The page's general rule (`通用说明和约束.md`,
/// 通用地址重叠约束: no partial overlap within a repeat) forbids it to kernels, so the public
/// forms keep rejecting it. It is safe on the chip in sequence: with repeats a block or more
/// apart, repeat `r` writes its `PAR / 8` bytes at `r · PAR / 8`, inside the source of repeat
/// `r / 16` (`half`) or `r / 32` (`float`), which has been read, never of a later repeat.
#[track_caller]
pub(crate) fn compare_scalar_in_place<T: CompareScalarElement>(
    dst: &LocalTensor<u8>,
    src0: &LocalTensor<T>,
    src1_scalar: T,
    cmp_mode: CMPMODE,
    repeat_times: u8,
    repeat_params: &UnaryRepeatParams,
) {
    check_scalar_type::<T>(cmp_mode);
    let Some(plan) = masked_plan::<T, false>(SCALAR_API, Mask::Count(MASK_PLACEHOLDER), repeat_times) else {
        return;
    };
    let s0 = Operand::new(src0, repeat_params.src_blk_stride, repeat_params.src_rep_stride, "src0");
    run(SCALAR_API, dst, [&s0], cmp_mode, src1_scalar, &plan, true);
}

// ---------------------------------------------------------------------------------------------
// Compare into the compare-mask register.

mod reg_sealed {
    pub trait CompareRegSealed {}
}

/// Element types of `Compare` into the compare-mask register ([`compare_reg`]): `half` and
/// `float`, on Ascend910B and Ascend310P (AI Core); Ascend910 and Ascend310B lack the
/// instruction (a run-time error naming the chip). Other types do not compile:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(a: &LocalTensor<i32>) {
///     compare_reg::<i32, true>(a, a, CMPMODE::EQ, 64u64, &BinaryRepeatParams::default());
/// }
/// ```
pub trait CompareRegElement: Element + reg_sealed::CompareRegSealed {}
impl reg_sealed::CompareRegSealed for f16 {}
impl CompareRegElement for f16 {}
impl reg_sealed::CompareRegSealed for f32 {}
impl CompareRegElement for f32 {}

/// `Compare` into the 128-bit compare-mask register (AscendC `Compare<T, isSetMask>(src0,
/// src1, cmpMode, mask, repeatParams)`, the form with no `dst`), with a continuous (`u64`)
/// or bit (`[u64; 2]`) mask. Read the result with
/// [`get_cmp_mask_local`](crate::vector::mask::get_cmp_mask_local) (AscendC `GetCmpMask`) or
/// [`get_cmp_mask`](crate::vector::mask::get_cmp_mask), or use it directly in
/// [`select_reg`](crate::vector::select::select_reg) with `SelMode::VselCmpmaskSpr`.
///
/// The instruction runs exactly one repeat (256 bytes: 64 `float` or 128 `half` lanes): the
/// vendor's page says "本接口没有repeat输入，repeat默认为1", and its implementation issues the
/// `vcmp_*` intrinsic with a repeat of 1 (`impl/basic_api/dav_c220/kernel_operator_vec_cmp_impl.h`,
/// `dav_m200/kernel_operator_vec_cmpsel_impl.h`). Only the source block strides of
/// `repeat_params` matter; the destination strides and the repeat strides are unused.
///
/// Lane `j` of the repeat is bit `j` of the register (bit `j % 64` of word `j / 64` of
/// [`get_cmp_mask`](crate::vector::mask::get_cmp_mask), byte `j / 8`, bit `j % 8` of what
/// `GetCmpMask` stores): 1 when `src0[j] <op> src1[j]`, IEEE comparisons (NaN compares false
/// except with `NE`). A lane the mask disables leaves its register bit unchanged, as the
/// vendor's C API page (`asc_lt`: "若mask某bit位为0，对应输出寄存器的bit位的值不会改变")
/// documents; so with `float` the upper 64 bits of the register are never written.
///
/// The mask follows `IS_SET_MASK` and the mask register like every high-dimensional
/// instruction. In counter mode (which the vendor does not document for this form) the
/// single repeat compares lanes `0..min(count, PAR)`.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut m) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// for t in [&mut a, &mut b, &mut m] { pipe.init_tbuf(t, 256); }
/// let (x, y, out) = (a.get::<f32>(), b.get::<f32>(), m.get::<u8>());
/// x.copy_from_slice(&(0..64).map(|i| i as f32).collect::<Vec<_>>());
/// y.copy_from_slice(&[10.0; 64]);
/// compare_reg::<f32, true>(&x, &y, CMPMODE::LT, 64u64, &BinaryRepeatParams::default());
/// assert_eq!(get_cmp_mask()[0], 0x3FF); // lanes 0..10 are below 10
/// get_cmp_mask_local(&out);
/// assert_eq!(out.to_vec()[..2], [0xFF, 0x03]);
/// ```
///
/// # Panics
/// Panics if the chip lacks the instruction (Ascend910, Ascend310B); a source is not a
/// 32-byte aligned UB tensor or a lane of the repeat lies outside it; or the mask is out of
/// range for `T` or breaks the `IS_SET_MASK`/`MASK_PLACEHOLDER` rule.
#[track_caller]
pub fn compare_reg<T: CompareRegElement, const IS_SET_MASK: bool>(
    src0: &LocalTensor<T>,
    src1: &LocalTensor<T>,
    cmp_mode: CMPMODE,
    mask: impl Into<Mask>,
    repeat_params: &BinaryRepeatParams,
) {
    let soc = get_soc();
    ensure(matches!(soc, Soc::Ascend910B | Soc::Ascend310P), API, || {
        format!(
            "Compare into the compare-mask register (the form without dst) is not supported on {soc} ({}): only \
             Ascend910B and Ascend310P have it",
            soc.product_line()
        )
    });
    src0.check_vector_operand(API, "src0");
    src1.check_vector_operand(API, "src1");
    let Some(plan) = resolve::<T, IS_SET_MASK>(API, mask.into(), 1) else {
        return;
    };
    // One repeat: in counter mode, the first repeat of the counted lanes.
    let m = plan.mask_of(0);
    let plan = Plan { repeats: 1, bits: m, last: m };
    let p = repeat_params;
    let s0 = Operand::new(src0, p.src0_blk_stride, p.src0_rep_stride, "src0");
    let s1 = Operand::new(src1, p.src1_blk_stride, p.src1_rep_stride, "src1");
    let mut out = [0u8; 16];
    apply_sources(
        API,
        &plan,
        [&s0, &s1],
        &mut CmpKernel { out: out.as_mut_ptr(), mode: cmp_mode, scalar: T::ZERO },
    );
    let word = |k: usize| u64::from_le_bytes(out[8 * k..8 * k + 8].try_into().expect("8 bytes"));
    let res = [word(0), word(1)];
    with_core(|c| {
        let old = c.cmp_mask.get();
        c.cmp_mask.set([(old[0] & !m[0]) | res[0], (old[1] & !m[1]) | res[1]]);
    });
}

static_assertions::assert_not_impl_any!(u16: CompareElement);
static_assertions::assert_not_impl_any!(u16: CompareDstElement);
static_assertions::assert_not_impl_any!(crate::element::bf16: CompareScalarElement);
static_assertions::assert_not_impl_any!(crate::element::Bool8: CompareDstElement);
