//! Elementwise two-source instructions: `Add` and `Sub` (`dst = src0 ± src1`, lane by lane).
//!
//! Every instruction comes in three forms, as in AscendC:
//! - the count form ([`sub`], [`add`]): elements `0..count` of every operand, contiguously;
//! - the high-dimensional form ([`sub_masked`], [`add_masked`]): a continuous or bit mask,
//!   `repeat_times` repeats and [`BinaryRepeatParams`] strides (SPEC §4), with `IS_SET_MASK`;
//! - the whole-tensor form: `&src0 - &src1` builds a lazy expression that
//!   [`LocalTensor::assign`] evaluates over `dst.get_size()` elements.
//!
//! Integer lanes wrap. `half` lanes are computed in `f32` and rounded once to nearest-even,
//! which is the hardware's rounding of one operation; the core's `f16` overflow mode
//! ([`get_overflow_mode`](crate::ctx::get_overflow_mode), read once per call) decides what a
//! result beyond ±65504 becomes: ±65504 in [`OverflowMode::Saturation`], ±inf in
//! [`OverflowMode::InfNan`]. In saturation mode a NaN result becomes 0 (the vendor's
//! description of the saturation control bit: "inf → ±MAX, NaN → 0"); in inf/nan mode it
//! stays NaN.

use core::marker::PhantomData;

use crate::ctx::{get_overflow_mode, get_soc};
use crate::element::{f16, Element, F16_SAT_MAX};
use crate::error::ensure;
use crate::soc::{OverflowMode, Soc};
use crate::tensor::LocalTensor;
use crate::vector::engine::{apply, apply_count, Lanes, Operand};
use crate::vector::mask::{resolve, Mask};
use crate::vector::params::BinaryRepeatParams;

mod sealed {
    /// The arithmetic of one binary operation, on exact lanes and on `f32` lanes.
    pub trait Op {
        /// The AscendC API name (for error messages).
        const API: &'static str;
        /// The exact lane result (wrapping for integers).
        fn exact<T: crate::element::Element>(a: T, b: T) -> T;
        /// The `f32` result that is then rounded to a 16-bit float.
        fn wide(a: f32, b: f32) -> f32;
    }

    /// Types with a bulk lane kernel for binary arithmetic.
    pub trait BinaryLane: crate::element::Element {
        /// Computes `dst[i] = O(a[i], b[i])` for `i in 0..n`; `SAT` clamps `f16` results.
        ///
        /// # Safety
        /// `dst` is valid for `n` writes, `a` and `b` for `n` reads; `dst` equals or does not
        /// overlap each source.
        unsafe fn run_op<O: Op, const SAT: bool>(dst: *mut Self, a: *const Self, b: *const Self, n: usize);
    }
}

use sealed::{BinaryLane, Op};

/// `Sub`.
pub(crate) struct SubOp;
/// `Add`.
pub(crate) struct AddOp;

impl Op for SubOp {
    const API: &'static str = "Sub";
    #[inline(always)]
    fn exact<T: Element>(a: T, b: T) -> T {
        T::sub(a, b)
    }
    #[inline(always)]
    fn wide(a: f32, b: f32) -> f32 {
        a - b
    }
}

impl Op for AddOp {
    const API: &'static str = "Add";
    #[inline(always)]
    fn exact<T: Element>(a: T, b: T) -> T {
        T::add(a, b)
    }
    #[inline(always)]
    fn wide(a: f32, b: f32) -> f32 {
        a + b
    }
}

/// A plain slice loop for types whose lane arithmetic is exact in the type itself
/// (`f32`, `i16`, `i32`). Never holds a shared and a mutable slice of the same memory.
///
/// # Safety
/// As [`BinaryLane::run_op`].
#[inline(always)]
unsafe fn exact_run<T: Element, O: Op>(dst: *mut T, a: *const T, b: *const T, n: usize) {
    let d = dst as *const T;
    // SAFETY: (all arms) the caller guarantees validity for n elements, and that dst equals
    // or is disjoint from each source, so the only slice formed over dst's memory is the one
    // `&mut` slice.
    unsafe {
        match (d == a, d == b) {
            (false, false) => {
                let (dst, a, b) = (
                    core::slice::from_raw_parts_mut(dst, n),
                    core::slice::from_raw_parts(a, n),
                    core::slice::from_raw_parts(b, n),
                );
                for ((d, &x), &y) in dst.iter_mut().zip(a).zip(b) {
                    *d = O::exact(x, y);
                }
            }
            (true, false) => {
                let (dst, b) = (core::slice::from_raw_parts_mut(dst, n), core::slice::from_raw_parts(b, n));
                for (d, &y) in dst.iter_mut().zip(b) {
                    *d = O::exact(*d, y);
                }
            }
            (false, true) => {
                let (dst, a) = (core::slice::from_raw_parts_mut(dst, n), core::slice::from_raw_parts(a, n));
                for (d, &x) in dst.iter_mut().zip(a) {
                    *d = O::exact(x, *d);
                }
            }
            (true, true) => {
                for d in core::slice::from_raw_parts_mut(dst, n) {
                    *d = O::exact(*d, *d);
                }
            }
        }
    }
}

/// What saturation mode makes of an `f32` result before it is rounded to `f16`: NaN → 0,
/// beyond ±65504 (including ±inf) → ±65504. Clamping before the rounding gives the same bits
/// as saturating the rounded result.
#[inline(always)]
pub(crate) fn saturate(r: f32) -> f32 {
    if r.is_nan() {
        0.0
    } else {
        r.clamp(-F16_SAT_MAX, F16_SAT_MAX)
    }
}

/// Lanes widened to `f32` per stack chunk.
const CHUNK: usize = 512;

/// `f16` lanes: widened to `f32` in stack chunks, computed, saturated when `SAT`
/// ([`saturate`]), and narrowed back with one rounding.
///
/// # Safety
/// As [`BinaryLane::run_op`].
#[inline(always)]
unsafe fn f16_run<O: Op, const SAT: bool>(dst: *mut f16, a: *const f16, b: *const f16, n: usize) {
    // Uninitialised scratch: only the widened prefix of each chunk is ever read.
    let mut wa = [core::mem::MaybeUninit::<f32>::uninit(); CHUNK];
    let mut wb = [core::mem::MaybeUninit::<f32>::uninit(); CHUNK];
    let (pa, pb) = (wa.as_mut_ptr().cast::<f32>(), wb.as_mut_ptr().cast::<f32>());
    let mut done = 0;
    while done < n {
        let len = CHUNK.min(n - done);
        // SAFETY: the sources are valid for n reads and the scratch for CHUNK >= len writes;
        // the scratch is a distinct stack buffer. After widening, the first len scratch
        // elements are initialised, so the slices over them are valid.
        let (xs, ys) = unsafe {
            crate::f16conv::widen(a.add(done), pa, len);
            crate::f16conv::widen(b.add(done), pb, len);
            (core::slice::from_raw_parts_mut(pa, len), core::slice::from_raw_parts(pb, len))
        };
        for (x, &y) in xs.iter_mut().zip(ys) {
            let r = O::wide(*x, y);
            *x = if SAT { saturate(r) } else { r };
        }
        // SAFETY: dst is valid for n writes (it may be a source, whose lanes of this chunk
        // were already read into the scratch); the scratch holds len initialised values.
        unsafe { crate::f16conv::narrow(pa, dst.add(done), len) };
        done += len;
    }
}

macro_rules! exact_lane {
    ($($t:ty),*) => {$(
        impl BinaryLane for $t {
            #[inline(always)]
            unsafe fn run_op<O: Op, const SAT: bool>(dst: *mut Self, a: *const Self, b: *const Self, n: usize) {
                // SAFETY: forwarded contract.
                unsafe { exact_run::<$t, O>(dst, a, b, n) }
            }
        }
    )*};
}
exact_lane!(f32, i16, i32);

impl BinaryLane for f16 {
    #[inline(always)]
    unsafe fn run_op<O: Op, const SAT: bool>(dst: *mut Self, a: *const Self, b: *const Self, n: usize) {
        // SAFETY: forwarded contract.
        unsafe { f16_run::<O, SAT>(dst, a, b, n) }
    }
}

/// Element types `Sub` accepts: `half`, `int16_t`, `float`, `int32_t` (seed 003).
/// `int16_t` is not supported on Ascend910 (a run-time error naming the chip).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<u8>) { sub(t, t, t, 32); }
/// ```
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<u64>) { sub(t, t, t, 4); }
/// ```
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<bf16>) { sub(t, t, t, 16); }
/// ```
pub trait SubElement: BinaryLane {
    /// Whether `Sub` on this type exists on `soc`.
    fn sub_supported(soc: Soc) -> bool;

    /// The bulk lane kernel: `dst[i] = src0[i] - src1[i]` for `i in 0..n`; `SAT` selects
    /// `f16` saturation.
    ///
    /// # Safety
    /// `dst` is valid for `n` writes, `src0` and `src1` for `n` reads; `dst` equals or does
    /// not overlap each source.
    #[doc(hidden)]
    #[inline(always)]
    unsafe fn sub_run<const SAT: bool>(dst: *mut Self, src0: *const Self, src1: *const Self, n: usize) {
        // SAFETY: forwarded contract.
        unsafe { Self::run_op::<SubOp, SAT>(dst, src0, src1, n) }
    }
}

/// Element types `Add` accepts: `half`, `int16_t`, `float`, `int32_t` (as `Sub`; AscendC's
/// `Add` documentation lists the same types per chip). `int16_t` is not supported on
/// Ascend910 (a run-time error naming the chip).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<u16>) { add(t, t, t, 16); }
/// ```
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<i64>) { add(t, t, t, 4); }
/// ```
pub trait AddElement: BinaryLane {
    /// Whether `Add` on this type exists on `soc`.
    fn add_supported(soc: Soc) -> bool;

    /// The bulk lane kernel: `dst[i] = src0[i] + src1[i]` for `i in 0..n`; `SAT` selects
    /// `f16` saturation.
    ///
    /// # Safety
    /// As [`SubElement::sub_run`].
    #[doc(hidden)]
    #[inline(always)]
    unsafe fn add_run<const SAT: bool>(dst: *mut Self, src0: *const Self, src1: *const Self, n: usize) {
        // SAFETY: forwarded contract.
        unsafe { Self::run_op::<AddOp, SAT>(dst, src0, src1, n) }
    }
}

macro_rules! arith_types {
    ($($t:ty => $all_chips:expr),*) => {$(
        impl SubElement for $t {
            fn sub_supported(soc: Soc) -> bool {
                $all_chips || soc != Soc::Ascend910
            }
        }
        impl AddElement for $t {
            fn add_supported(soc: Soc) -> bool {
                $all_chips || soc != Soc::Ascend910
            }
        }
    )*};
}
arith_types!(f16 => true, f32 => true, i32 => true, i16 => false);

/// Binds an operation to its capability trait.
pub(crate) trait OpFor<T: Element>: Op {
    fn supported(soc: Soc) -> bool;
}
impl<T: SubElement> OpFor<T> for SubOp {
    fn supported(soc: Soc) -> bool {
        T::sub_supported(soc)
    }
}
impl<T: AddElement> OpFor<T> for AddOp {
    fn supported(soc: Soc) -> bool {
        T::add_supported(soc)
    }
}

/// The engine kernel of one binary operation, monomorphized per type, op and saturation.
struct BinaryKernel<T, O, const SAT: bool>(PhantomData<(T, O)>);

impl<T: BinaryLane, O: Op, const SAT: bool> Lanes<T, 2> for BinaryKernel<T, O, SAT> {
    #[inline(always)]
    unsafe fn run(&mut self, _lane: usize, dst: *mut T, src: [*const T; 2], n: usize) {
        // SAFETY: the engine's contract is the kernel's.
        unsafe { T::run_op::<O, SAT>(dst, src[0], src[1], n) }
    }
}

/// Checks that the current chip supports `O` on `T`; returns whether `f16` results saturate.
#[track_caller]
fn prologue<T: Element, O: OpFor<T>>() -> bool {
    let soc = get_soc();
    ensure(O::supported(soc), O::API, || {
        format!("T = {} is not supported by {} on {soc} ({})", T::DTYPE, O::API, soc.product_line())
    });
    T::DTYPE == crate::element::DType::F16 && get_overflow_mode() == OverflowMode::Saturation
}

#[track_caller]
fn binary_count<T: BinaryLane, O: OpFor<T>>(
    dst: &LocalTensor<T>,
    src0: &LocalTensor<T>,
    src1: &LocalTensor<T>,
    count: usize,
) {
    let sat = prologue::<T, O>();
    let (d, s) = ((dst, "dst"), [(src0, "src0"), (src1, "src1")]);
    if sat {
        apply_count(O::API, count, d, s, &mut BinaryKernel::<T, O, true>(PhantomData));
    } else {
        apply_count(O::API, count, d, s, &mut BinaryKernel::<T, O, false>(PhantomData));
    }
}

#[track_caller]
fn binary_masked<T: BinaryLane, O: OpFor<T>, const IS_SET_MASK: bool>(
    dst: &LocalTensor<T>,
    src0: &LocalTensor<T>,
    src1: &LocalTensor<T>,
    mask: Mask,
    repeat_times: u8,
    p: &BinaryRepeatParams,
) {
    let sat = prologue::<T, O>();
    let Some(plan) = resolve::<T, IS_SET_MASK>(O::API, mask, repeat_times as usize) else {
        return;
    };
    let d = Operand::new(dst, p.dst_blk_stride, p.dst_rep_stride, "dst");
    let a = Operand::new(src0, p.src0_blk_stride, p.src0_rep_stride, "src0");
    let b = Operand::new(src1, p.src1_blk_stride, p.src1_rep_stride, "src1");
    if sat {
        apply(O::API, &plan, &d, [&a, &b], &mut BinaryKernel::<T, O, true>(PhantomData));
    } else {
        apply(O::API, &plan, &d, [&a, &b], &mut BinaryKernel::<T, O, false>(PhantomData));
    }
}

/// `dst[i] = src0[i] - src1[i]` for `i in 0..count` (AscendC `Sub(dst, src0, src1, calCount)`).
///
/// `dst` may be the same tensor as a source (complete overlap).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut c) = (TBuf::<VecIn>::new(), TBuf::<VecIn>::new(), TBuf::<VecOut>::new());
/// for buf in [&mut a, &mut b] {
///     pipe.init_tbuf(buf, 256);
/// }
/// pipe.init_tbuf(&mut c, 256);
/// let (x, y, z) = (a.get::<f32>(), b.get::<f32>(), c.get::<f32>());
/// x.copy_from_slice(&[5.0; 64]);
/// y.copy_from_slice(&[1.5; 64]);
/// sub(&z, &x, &y, 64);
/// assert_eq!(z.get_value(63), 3.5);
/// ```
///
/// # Panics
/// Panics if the chip does not support `T` (`int16_t` on Ascend910), if an operand is not a
/// VECIN/VECOUT/VECCALC tensor, is not 32-byte aligned or holds fewer than `count` elements,
/// or if `dst` partially overlaps a source.
#[track_caller]
pub fn sub<T: SubElement>(dst: &LocalTensor<T>, src0: &LocalTensor<T>, src1: &LocalTensor<T>, count: usize) {
    binary_count::<T, SubOp>(dst, src0, src1, count)
}

/// `dst = src0 - src1` over the lanes a mask enables, for `repeat_times` repeats with the
/// strides of `params` (AscendC `Sub<T, isSetMask>(dst, src0, src1, mask, repeatTimes,
/// repeatParams)`, continuous and bit-mask forms).
///
/// `mask` is a `u64` (continuous: lanes `0..mask`) or a `[u64; 2]` (bit mode). In counter
/// mode ([`set_mask_count`](crate::vector::mask::set_mask_count)) a continuous mask is the
/// total element count and `repeat_times` is ignored. With `IS_SET_MASK = false` the mask
/// register ([`set_vector_mask`](crate::vector::mask::set_vector_mask)) is used and `mask`
/// must be [`MASK_PLACEHOLDER`](crate::vector::mask::MASK_PLACEHOLDER). Disabled lanes keep
/// their old values. `repeat_times = 0` does nothing.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 512);
/// pipe.init_tbuf(&mut b, 512);
/// let (x, y) = (a.get::<f16>(), b.get::<f16>());
/// x.copy_from_slice(&[f16::from_f32(3.0); 256]);
/// y.copy_from_slice(&[f16::ONE; 256]);
/// // In place, the first 64 lanes of each of 2 repeats.
/// sub_masked::<f16, true>(&x, &x, &y, 64, 2, &BinaryRepeatParams::default());
/// assert_eq!(x.get_value(0), f16::from_f32(2.0));
/// assert_eq!(x.get_value(64), f16::from_f32(3.0));
/// assert_eq!(x.get_value(128), f16::from_f32(2.0));
/// ```
///
/// # Panics
/// Panics if the chip does not support `T`; if the mask is out of range for `T` (a count
/// outside `1..=PAR`, `mask[1] != 0` for 32-bit types), is `MASK_PLACEHOLDER` with
/// `IS_SET_MASK = true` or anything else with `IS_SET_MASK = false`; if an operand is not a
/// VECIN/VECOUT/VECCALC tensor or not 32-byte aligned; if any touched element lies outside
/// its tensor; or if `dst` partially overlaps a source.
#[track_caller]
pub fn sub_masked<T: SubElement, const IS_SET_MASK: bool>(
    dst: &LocalTensor<T>,
    src0: &LocalTensor<T>,
    src1: &LocalTensor<T>,
    mask: impl Into<Mask>,
    repeat_times: u8,
    params: &BinaryRepeatParams,
) {
    binary_masked::<T, SubOp, IS_SET_MASK>(dst, src0, src1, mask.into(), repeat_times, params)
}

/// `dst[i] = src0[i] + src1[i]` for `i in 0..count` (AscendC `Add(dst, src0, src1, calCount)`).
///
/// `dst` may be the same tensor as a source (complete overlap).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut a = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut a, 64);
/// let x = a.get::<i32>();
/// x.copy_from_slice(&[i32::MAX; 16]);
/// add(&x, &x, &x, 16); // in place; integers wrap
/// assert_eq!(x.get_value(0), -2);
/// ```
///
/// # Panics
/// As [`sub`].
#[track_caller]
pub fn add<T: AddElement>(dst: &LocalTensor<T>, src0: &LocalTensor<T>, src1: &LocalTensor<T>, count: usize) {
    binary_count::<T, AddOp>(dst, src0, src1, count)
}

/// `dst = src0 + src1` over the lanes a mask enables (AscendC `Add<T, isSetMask>(dst, src0,
/// src1, mask, repeatTimes, repeatParams)`); see [`sub_masked`] for the mask, repeat and
/// stride rules.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut a = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut a, 256);
/// let x = a.get::<f32>();
/// x.copy_from_slice(&[1.0; 64]);
/// // Bit mode: lanes 0 and 63 only.
/// add_masked::<f32, true>(&x, &x, &x, [1 | 1 << 63, 0], 1, &BinaryRepeatParams::default());
/// assert_eq!((x.get_value(0), x.get_value(1), x.get_value(63)), (2.0, 1.0, 2.0));
/// ```
///
/// # Panics
/// As [`sub_masked`].
#[track_caller]
pub fn add_masked<T: AddElement, const IS_SET_MASK: bool>(
    dst: &LocalTensor<T>,
    src0: &LocalTensor<T>,
    src1: &LocalTensor<T>,
    mask: impl Into<Mask>,
    repeat_times: u8,
    params: &BinaryRepeatParams,
) {
    binary_masked::<T, AddOp, IS_SET_MASK>(dst, src0, src1, mask.into(), repeat_times, params)
}

/// A lazily evaluated whole-tensor expression, written into a tensor by
/// [`LocalTensor::assign`] (AscendC's `dst = expr` operator overloads).
pub trait TensorExpr<T: Element> {
    /// Evaluates the expression over all `dst.get_size()` elements of `dst`.
    ///
    /// # Panics
    /// As the underlying instruction's count form with `count = dst.get_size()`.
    #[track_caller]
    fn eval_into(&self, dst: &LocalTensor<T>);
}

/// `&src0 - &src1`: a lazy whole-tensor difference (see [`LocalTensor::assign`]).
#[derive(Clone, Copy, Debug)]
pub struct SubExpr<'a, T: SubElement> {
    /// The minuend.
    pub src0: &'a LocalTensor<T>,
    /// The subtrahend.
    pub src1: &'a LocalTensor<T>,
}

/// `&src0 + &src1`: a lazy whole-tensor sum (see [`LocalTensor::assign`]).
#[derive(Clone, Copy, Debug)]
pub struct AddExpr<'a, T: AddElement> {
    /// The first addend.
    pub src0: &'a LocalTensor<T>,
    /// The second addend.
    pub src1: &'a LocalTensor<T>,
}

impl<'a, T: SubElement> core::ops::Sub for &'a LocalTensor<T> {
    type Output = SubExpr<'a, T>;
    fn sub(self, rhs: Self) -> SubExpr<'a, T> {
        SubExpr { src0: self, src1: rhs }
    }
}

impl<'a, T: AddElement> core::ops::Add for &'a LocalTensor<T> {
    type Output = AddExpr<'a, T>;
    fn add(self, rhs: Self) -> AddExpr<'a, T> {
        AddExpr { src0: self, src1: rhs }
    }
}

impl<T: SubElement> TensorExpr<T> for SubExpr<'_, T> {
    #[track_caller]
    fn eval_into(&self, dst: &LocalTensor<T>) {
        sub(dst, self.src0, self.src1, dst.get_size())
    }
}

impl<T: AddElement> TensorExpr<T> for AddExpr<'_, T> {
    #[track_caller]
    fn eval_into(&self, dst: &LocalTensor<T>) {
        add(dst, self.src0, self.src1, dst.get_size())
    }
}

impl<T: Element> LocalTensor<T> {
    /// Evaluates a whole-tensor expression into this tensor over its `get_size()` elements
    /// (AscendC `dst = src0 - src1;` and `dst = src0 + src1;`).
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let (mut a, mut b, mut c) = (TBuf::<VecIn>::new(), TBuf::<VecIn>::new(), TBuf::<VecOut>::new());
    /// for buf in [&mut a, &mut b] {
    ///     pipe.init_tbuf(buf, 64);
    /// }
    /// pipe.init_tbuf(&mut c, 64);
    /// let (x, y, z) = (a.get::<i16>(), b.get::<i16>(), c.get::<i16>());
    /// x.copy_from_slice(&[7; 32]);
    /// y.copy_from_slice(&[2; 32]);
    /// z.assign(&x - &y);
    /// assert_eq!(z.to_vec(), vec![5i16; 32]);
    /// z.assign(&x + &y);
    /// assert_eq!(z.get_value(31), 9);
    /// ```
    ///
    /// # Panics
    /// As the expression's instruction in count form with `count = self.get_size()` (a source
    /// shorter than `self`, an operand outside the vector positions or misaligned, partial
    /// overlap, or a type the chip does not support).
    #[track_caller]
    pub fn assign(&self, expr: impl TensorExpr<T>) {
        expr.eval_into(self)
    }
}
