//! The declaration mechanism of the elementwise instructions.
//!
//! Every elementwise instruction (`Add`, `Mul`, `Adds`, `Exp`, `MulAddDst`, …) is declared
//! once, with the `binary_instr!`, `scalar_instr!` or `unary_instr!` macro: its AscendC name,
//! its lane operation (a `LaneOp`: the exact lane, and the `f32` lane that `half` uses), its
//! capability trait and the chips each type exists on. The macro generates the public forms —
//! count form, high-dimensional form with `IS_SET_MASK`, and for binary instructions with an
//! AscendC operator the whole-tensor expression — with their docs and a runnable example.
//!
//! The lane operation is all an instruction supplies; `run_count` and `run_masked` hand it
//! to the one addressing engine (`engine.rs`), and [`Lane::run`] runs it over a contiguous
//! run: exact types (`float` and the integers) as a plain slice loop the compiler vectorizes,
//! `half` widened to `f32` in bulk ([`crate::f16conv`]), computed, saturated when the core is
//! in saturation mode, and narrowed with one rounding.

use core::marker::PhantomData;
use core::mem::MaybeUninit;

use crate::element::{f16, DType, Element, F16_SAT_MAX};
use crate::kernel::error::check;
use crate::memory::tensor::LocalTensor;
use crate::soc::{OverflowMode, Soc};
use crate::vector::engine::{apply, apply_count, Lanes, Operand};
use crate::vector::mask::{resolve, Mask};

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

/// [`saturate`] on an `f64` result.
#[inline(always)]
fn saturate64(r: f64) -> f64 {
    if r.is_nan() {
        0.0
    } else {
        r.clamp(-(F16_SAT_MAX as f64), F16_SAT_MAX as f64)
    }
}

/// An intermediate result of a two-step `half` instruction (`MulAddDst`, `Axpy`, …) as the
/// hardware keeps it: rounded to `half` (saturated when `SAT`) and widened back.
#[inline(always)]
pub(crate) fn round16<const SAT: bool>(r: f32) -> f32 {
    f16::from_f32(if SAT { saturate(r) } else { r }).to_f32()
}

/// IEEE 754-2019 `maximum`: NaN if either is NaN, and `-0 < +0`.
#[inline(always)]
pub(crate) fn fmax(a: f32, b: f32) -> f32 {
    if a > b {
        a
    } else if b > a {
        b
    } else if a == b {
        if a.is_sign_negative() {
            b
        } else {
            a
        }
    } else {
        a + b
    }
}

/// IEEE 754-2019 `minimum`: NaN if either is NaN, and `-0 < +0`.
#[inline(always)]
pub(crate) fn fmin(a: f32, b: f32) -> f32 {
    if a < b {
        a
    } else if b < a {
        b
    } else if a == b {
        if a.is_sign_negative() {
            a
        } else {
            b
        }
    } else {
        a + b
    }
}

/// `Relu` on `f32`: `+0` for every negative value and `-0`, NaN stays NaN.
#[inline(always)]
pub(crate) fn frelu(x: f32) -> f32 {
    if x > 0.0 || x.is_nan() {
        x
    } else {
        0.0
    }
}

/// The lane-operation trait, public in a private module (unnameable outside the crate).
mod op {
    /// The lane operation of one instruction on `N` source lanes.
    ///
    /// `exact` is the lane on `float` and the integers (and the definition for every type);
    /// `wide` is the `half` lane computed in `f32` and then rounded once (exact for `+ - *`, and
    /// innocuous double rounding for `/` and `sqrt`, since `f32` carries more than `2 * 11 + 2`
    /// bits); `SAT` is the overflow mode, for instructions that round an intermediate result.
    /// Instructions whose `f32` result is not the correctly rounded `half` result (`Exp`, `Ln`,
    /// `Rsqrt`, `Reciprocal`) set `F64` and supply `wide64`, which `half` rounds once from `f64`.
    pub trait LaneOp<T, const N: usize>: Copy {
        /// Whether the `half` lane is `wide64` (one rounding from `f64`) rather than `wide`.
        const F64: bool = false;
        /// The exact lane.
        fn exact(self, x: [T; N]) -> T;
        /// The `half` lane in `f32`, before the final rounding.
        fn wide<const SAT: bool>(self, x: [f32; N]) -> f32;
        /// The `half` lane in `f64`, before the final rounding (only when `F64`).
        #[inline(always)]
        fn wide64(self, x: [f64; N]) -> f64 {
            let _ = x;
            unreachable!("wide64 of an instruction without F64")
        }
    }
}
pub(crate) use op::LaneOp;

mod sealed {
    pub trait Sealed {}
}

/// Lanes per stack chunk of the bulk kernels.
const CHUNK: usize = 512;

/// The element types the elementwise instructions compute on, with their lane arithmetic:
/// `half` computed in `f32` and rounded once, `float` in IEEE single precision, integers
/// wrapping. Sealed; the capability traits (`MulElement`, …) narrow it per instruction.
pub trait Lane: Element + sealed::Sealed {
    /// `a + b` (wrapping for integers).
    #[doc(hidden)]
    fn l_add(a: Self, b: Self) -> Self;
    /// `a - b`.
    #[doc(hidden)]
    fn l_sub(a: Self, b: Self) -> Self;
    /// `a * b`.
    #[doc(hidden)]
    fn l_mul(a: Self, b: Self) -> Self;
    /// `a / b` (floats).
    #[doc(hidden)]
    fn l_div(a: Self, b: Self) -> Self;
    /// IEEE `maximum` (floats) or `max`.
    #[doc(hidden)]
    fn l_max(a: Self, b: Self) -> Self;
    /// IEEE `minimum` (floats) or `min`.
    #[doc(hidden)]
    fn l_min(a: Self, b: Self) -> Self;
    /// Bitwise and of the bits.
    #[doc(hidden)]
    fn l_and(a: Self, b: Self) -> Self;
    /// Bitwise or of the bits.
    #[doc(hidden)]
    fn l_or(a: Self, b: Self) -> Self;
    /// Bitwise not of the bits.
    #[doc(hidden)]
    fn l_not(a: Self) -> Self;
    /// `a << s`, 0 once `s` reaches the width.
    #[doc(hidden)]
    fn l_shl(a: Self, s: u32) -> Self;
    /// `a >> s`: logical for unsigned, arithmetic for signed types; the sign fill once `s`
    /// reaches the width.
    #[doc(hidden)]
    fn l_shr(a: Self, s: u32) -> Self;
    /// `|a|` (wrapping for integers).
    #[doc(hidden)]
    fn l_abs(a: Self) -> Self;
    /// `max(a, 0)`, `+0` for `-0`, NaN kept.
    #[doc(hidden)]
    fn l_relu(a: Self) -> Self;
    /// A float function computed in `f64` and rounded once to the type.
    #[doc(hidden)]
    fn l_f64(a: Self, f: fn(f64) -> f64) -> Self;
    /// The value as a shift amount (`None` if negative).
    #[doc(hidden)]
    fn l_shift_amount(self) -> Option<u32>;
    /// The value in `f32` (exact for `half`).
    #[doc(hidden)]
    fn l_wide(self) -> f32;

    /// Runs `op` over `n` contiguous lanes: `dst[i] = op(src[0][i], …)`.
    ///
    /// # Safety
    /// `dst` is valid for `n` writes, every `src[k]` for `n` reads; `dst` equals or does not
    /// overlap each source.
    #[doc(hidden)]
    unsafe fn run<O: LaneOp<Self, N>, const N: usize, const SAT: bool>(
        op: O,
        dst: *mut Self,
        src: [*const Self; N],
        n: usize,
    );
}

/// The inner loop of the exact kernels, over disjoint slices of one length; a source slot
/// beyond `N` repeats source 0 and is never used.
#[inline(always)]
fn exact_loop<T: Copy, O: LaneOp<T, N>, const N: usize>(op: O, d: &mut [T], s0: &[T], s1: &[T], s2: &[T]) {
    for (((d, &a), &b), &c) in d.iter_mut().zip(s0).zip(s1).zip(s2) {
        let v = [a, b, c];
        *d = op.exact(core::array::from_fn(|k| v[k]));
    }
}

/// The exact kernel: chunks of `CHUNK` lanes; a source that is `dst` itself is copied to the
/// stack first, so the loop only ever sees one `&mut` slice and disjoint `&` slices.
///
/// # Safety
/// As [`Lane::run`].
#[inline(always)]
unsafe fn exact_run<T: Element, O: LaneOp<T, N>, const N: usize>(
    op: O,
    dst: *mut T,
    src: [*const T; N],
    n: usize,
) {
    const { assert!(N >= 1 && N <= 3) };
    let mut scratch = [[MaybeUninit::<T>::uninit(); CHUNK]; N];
    let mut done = 0;
    while done < n {
        let len = CHUNK.min(n - done);
        let mut s: [&[T]; N] = [&[]; N];
        for k in 0..N {
            s[k] = if core::ptr::eq(src[k], dst) {
                let p = scratch[k].as_mut_ptr().cast::<T>();
                // SAFETY: src[k] is valid for n reads; the scratch is a distinct stack buffer
                // of CHUNK >= len elements, initialised by the copy before the slice is formed.
                unsafe {
                    core::ptr::copy_nonoverlapping(src[k].add(done), p, len);
                    core::slice::from_raw_parts(p, len)
                }
            } else {
                // SAFETY: src[k] is valid for n reads and does not overlap dst.
                unsafe { core::slice::from_raw_parts(src[k].add(done), len) }
            };
        }
        // SAFETY: dst is valid for n writes; no other live slice covers its memory (aliased
        // sources were copied to the scratch).
        let d = unsafe { core::slice::from_raw_parts_mut(dst.add(done), len) };
        let (s0, s1, s2) = (s[0], s[1.min(N - 1)], s[2.min(N - 1)]);
        exact_loop(op, d, s0, s1, s2);
        done += len;
    }
}

/// The `half` kernel: sources widened to `f32` in stack chunks, `wide` (or `wide64`) applied,
/// saturated when `SAT`, and narrowed with one rounding.
///
/// # Safety
/// As [`Lane::run`].
#[inline(always)]
unsafe fn f16_run<O: LaneOp<f16, N>, const N: usize, const SAT: bool>(
    op: O,
    dst: *mut f16,
    src: [*const f16; N],
    n: usize,
) {
    const { assert!(N >= 1 && N <= 3) };
    let mut w = [[MaybeUninit::<f32>::uninit(); CHUNK]; N];
    let p: [*mut f32; N] = core::array::from_fn(|k| w[k].as_mut_ptr().cast::<f32>());
    let fin = |r: f32| if SAT { saturate(r) } else { r };
    let mut done = 0;
    while done < n {
        let len = CHUNK.min(n - done);
        for k in 0..N {
            // SAFETY: src[k] is valid for n reads; the scratch is a distinct stack buffer of
            // CHUNK >= len elements.
            unsafe { crate::f16conv::widen(src[k].add(done), p[k], len) };
        }
        // SAFETY: the first len elements of every scratch buffer were initialised by the
        // widening; the buffers are distinct, so the one `&mut` slice aliases nothing.
        let (w0, w1, w2) = unsafe {
            (
                core::slice::from_raw_parts_mut(p[0], len),
                core::slice::from_raw_parts(p[1.min(N - 1)], if N > 1 { len } else { 0 }),
                core::slice::from_raw_parts(p[2.min(N - 1)], if N > 2 { len } else { 0 }),
            )
        };
        if O::F64 {
            for (i, &x0) in w0.iter().enumerate() {
                let v =
                    [x0 as f64, w1.get(i).map_or(0.0, |&x| x as f64), w2.get(i).map_or(0.0, |&x| x as f64)];
                let r = op.wide64(core::array::from_fn(|k| v[k]));
                let r = if SAT { saturate64(r) } else { r };
                // SAFETY: i < len <= n - done; every source lane of this chunk was read into
                // the scratch before any write.
                unsafe { dst.add(done + i).write(f16::from_f64(r)) };
            }
        } else {
            match N {
                1 => {
                    for x in w0.iter_mut() {
                        let v = *x;
                        *x = fin(op.wide::<SAT>(core::array::from_fn(|_| v)));
                    }
                }
                2 => {
                    for (x, &y) in w0.iter_mut().zip(w1) {
                        let v = [*x, y];
                        *x = fin(op.wide::<SAT>(core::array::from_fn(|k| v[k])));
                    }
                }
                _ => {
                    for ((x, &y), &z) in w0.iter_mut().zip(w1).zip(w2) {
                        let v = [*x, y, z];
                        *x = fin(op.wide::<SAT>(core::array::from_fn(|k| v[k])));
                    }
                }
            }
            // SAFETY: dst is valid for n writes (it may be a source, whose lanes of this
            // chunk were already read into the scratch); the scratch holds len values.
            unsafe { crate::f16conv::narrow(p[0], dst.add(done), len) };
        }
        done += len;
    }
}

macro_rules! exact_lane_run {
    () => {
        #[inline(always)]
        unsafe fn run<O: LaneOp<Self, N>, const N: usize, const SAT: bool>(
            op: O,
            dst: *mut Self,
            src: [*const Self; N],
            n: usize,
        ) {
            // SAFETY: forwarded contract.
            unsafe { exact_run(op, dst, src, n) }
        }
    };
}

macro_rules! int_lane {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Lane for $t {
            #[inline(always)] fn l_add(a: Self, b: Self) -> Self { a.wrapping_add(b) }
            #[inline(always)] fn l_sub(a: Self, b: Self) -> Self { a.wrapping_sub(b) }
            #[inline(always)] fn l_mul(a: Self, b: Self) -> Self { a.wrapping_mul(b) }
            #[inline(always)] fn l_div(a: Self, b: Self) -> Self { a.checked_div(b).unwrap_or(0) }
            #[inline(always)] fn l_max(a: Self, b: Self) -> Self { a.max(b) }
            #[inline(always)] fn l_min(a: Self, b: Self) -> Self { a.min(b) }
            #[inline(always)] fn l_and(a: Self, b: Self) -> Self { a & b }
            #[inline(always)] fn l_or(a: Self, b: Self) -> Self { a | b }
            #[inline(always)] fn l_not(a: Self) -> Self { !a }
            #[inline(always)] fn l_shl(a: Self, s: u32) -> Self { a.checked_shl(s).unwrap_or(0) }
            #[inline(always)]
            fn l_shr(a: Self, s: u32) -> Self { a >> s.min(<$t>::BITS - 1) >> u32::from(s >= <$t>::BITS) }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn l_abs(a: Self) -> Self { if a < 0 { (0 as $t).wrapping_sub(a) } else { a } }
            #[inline(always)] fn l_relu(a: Self) -> Self { a.max(0) }
            #[inline(always)] fn l_f64(a: Self, f: fn(f64) -> f64) -> Self { f(a as f64) as $t }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn l_shift_amount(self) -> Option<u32> { (self >= 0).then_some(self as u32) }
            #[inline(always)] fn l_wide(self) -> f32 { self as f32 }
            exact_lane_run!();
        }
    )*};
}
int_lane!(u16, i16, u32, i32);

/// The bitwise lane operations of a float type, on its bits. No float instruction uses them
/// (`And`, `Or`, `Not` and the shifts take integers only); `Lane` requires them of every type.
macro_rules! float_bit_lanes {
    ($t:ty) => {
        #[inline(always)]
        fn l_and(a: Self, b: Self) -> Self {
            <$t>::from_bits(a.to_bits() & b.to_bits())
        }
        #[inline(always)]
        fn l_or(a: Self, b: Self) -> Self {
            <$t>::from_bits(a.to_bits() | b.to_bits())
        }
        #[inline(always)]
        fn l_not(a: Self) -> Self {
            <$t>::from_bits(!a.to_bits())
        }
        #[inline(always)]
        fn l_shl(a: Self, s: u32) -> Self {
            <$t>::from_bits(a.to_bits().checked_shl(s).unwrap_or(0))
        }
        #[inline(always)]
        fn l_shr(a: Self, s: u32) -> Self {
            <$t>::from_bits(a.to_bits().checked_shr(s).unwrap_or(0))
        }
    };
}

impl sealed::Sealed for f32 {}
impl Lane for f32 {
    #[inline(always)]
    fn l_add(a: Self, b: Self) -> Self {
        a + b
    }
    #[inline(always)]
    fn l_sub(a: Self, b: Self) -> Self {
        a - b
    }
    #[inline(always)]
    fn l_mul(a: Self, b: Self) -> Self {
        a * b
    }
    #[inline(always)]
    fn l_div(a: Self, b: Self) -> Self {
        a / b
    }
    #[inline(always)]
    fn l_max(a: Self, b: Self) -> Self {
        fmax(a, b)
    }
    #[inline(always)]
    fn l_min(a: Self, b: Self) -> Self {
        fmin(a, b)
    }
    float_bit_lanes!(f32);
    #[inline(always)]
    fn l_abs(a: Self) -> Self {
        a.abs()
    }
    #[inline(always)]
    fn l_relu(a: Self) -> Self {
        frelu(a)
    }
    #[inline(always)]
    fn l_f64(a: Self, f: fn(f64) -> f64) -> Self {
        f(a as f64) as f32
    }
    #[inline(always)]
    fn l_shift_amount(self) -> Option<u32> {
        None
    }
    #[inline(always)]
    fn l_wide(self) -> f32 {
        self
    }
    exact_lane_run!();
}

/// `half` through `f32` with one rounding (the definition; the bulk kernel is `f16_run`).
macro_rules! via32 {
    ($f:expr, $($a:ident),*) => { f16::from_f32($f($($a.to_f32()),*)) };
}

impl sealed::Sealed for f16 {}
impl Lane for f16 {
    #[inline(always)]
    fn l_add(a: Self, b: Self) -> Self {
        via32!(f32::l_add, a, b)
    }
    #[inline(always)]
    fn l_sub(a: Self, b: Self) -> Self {
        via32!(f32::l_sub, a, b)
    }
    #[inline(always)]
    fn l_mul(a: Self, b: Self) -> Self {
        via32!(f32::l_mul, a, b)
    }
    #[inline(always)]
    fn l_div(a: Self, b: Self) -> Self {
        via32!(f32::l_div, a, b)
    }
    #[inline(always)]
    fn l_max(a: Self, b: Self) -> Self {
        via32!(fmax, a, b)
    }
    #[inline(always)]
    fn l_min(a: Self, b: Self) -> Self {
        via32!(fmin, a, b)
    }
    float_bit_lanes!(f16);
    #[inline(always)]
    fn l_abs(a: Self) -> Self {
        f16::from_bits(a.to_bits() & 0x7fff)
    }
    #[inline(always)]
    fn l_relu(a: Self) -> Self {
        via32!(frelu, a)
    }
    #[inline(always)]
    fn l_f64(a: Self, f: fn(f64) -> f64) -> Self {
        f16::from_f64(f(a.to_f64()))
    }
    #[inline(always)]
    fn l_shift_amount(self) -> Option<u32> {
        None
    }
    #[inline(always)]
    fn l_wide(self) -> f32 {
        self.to_f32()
    }
    #[inline(always)]
    unsafe fn run<O: LaneOp<Self, N>, const N: usize, const SAT: bool>(
        op: O,
        dst: *mut Self,
        src: [*const Self; N],
        n: usize,
    ) {
        // SAFETY: forwarded contract.
        unsafe { f16_run::<O, N, SAT>(op, dst, src, n) }
    }
}

/// The engine kernel of one lane operation, monomorphized per type, operation and mode.
struct OpKernel<T, O, const SAT: bool>(O, PhantomData<T>);

impl<T: Lane, O: LaneOp<T, N>, const N: usize, const SAT: bool> Lanes<T, N> for OpKernel<T, O, SAT> {
    #[inline(always)]
    unsafe fn run(&mut self, _lane: usize, dst: *mut T, src: [*const T; N], n: usize) {
        // SAFETY: the engine's contract is the kernel's.
        unsafe { T::run::<O, N, SAT>(self.0, dst, src, n) }
    }
}

/// Checks that the current chip has the instruction on `T`; returns whether `half` results
/// saturate.
#[track_caller]
pub(crate) fn prologue<T: Element>(api: &'static str, supported: fn(Soc) -> bool) -> bool {
    // One look-up of the core for both.
    let (soc, overflow) = crate::kernel::ctx::with_core(|c| (c.soc, c.overflow.get()));
    check!(
        supported(soc),
        api,
        "T = {} is not supported by {api} on {soc} ({})",
        T::DTYPE,
        soc.product_line()
    );
    T::DTYPE == DType::F16 && overflow == OverflowMode::Saturation
}

/// Runs a count-form instruction: `op` over elements `0..count` of `dst` and the sources.
#[track_caller]
pub(crate) fn run_count<T: Lane, O: LaneOp<T, N>, const N: usize>(
    api: &'static str,
    supported: fn(Soc) -> bool,
    op: O,
    dst: &LocalTensor<T>,
    srcs: [(&LocalTensor<T>, &'static str); N],
    count: usize,
) {
    if prologue::<T>(api, supported) {
        apply_count(api, count, (dst, "dst"), srcs, &mut OpKernel::<T, O, true>(op, PhantomData));
    } else {
        apply_count(api, count, (dst, "dst"), srcs, &mut OpKernel::<T, O, false>(op, PhantomData));
    }
}

/// Runs a high-dimensional instruction: resolves the mask, then `op` over the lanes it
/// enables, through the engine.
#[track_caller]
pub(crate) fn run_masked<T: Lane, O: LaneOp<T, N>, const N: usize, const IS_SET_MASK: bool>(
    api: &'static str,
    supported: fn(Soc) -> bool,
    op: O,
    dst: &Operand<'_, T>,
    srcs: [&Operand<'_, T>; N],
    mask: Mask,
    repeat_times: u8,
) {
    let sat = prologue::<T>(api, supported);
    let Some(plan) = resolve::<T, IS_SET_MASK>(api, mask, repeat_times as usize) else {
        return;
    };
    if sat {
        apply(api, &plan, dst, srcs, &mut OpKernel::<T, O, true>(op, PhantomData));
    } else {
        apply(api, &plan, dst, srcs, &mut OpKernel::<T, O, false>(op, PhantomData));
    }
}

/// Declares the capability trait of one instruction and the types (and chips) it has.
///
/// Types no chip supports are listed after the supported ones. The first is a `compile_fail`
/// doctest of the public call (the bound is on the function a kernel calls); every one of them
/// is a compile-time assertion that the trait is not implemented, so the list costs the build
/// nothing and each doctest binary less (one per trait, not one per type).
macro_rules! capability {
    (
        $api:literal, $trait:ident, $supported:ident, $bound:path,
        [$($t:ty => |$soc:ident| $ok:expr),* $(,)?],
        [$bad0:ty $(, $bad:ty)* $(,)?], $bad_call:expr
    ) => {
        #[doc = concat!("Element types `", $api, "` accepts, and on which chips (see the support guide, `docs/support.md`).")]
        ///
        #[doc = concat!("A type no chip supports does not compile (`", stringify!($bad0) $(, "`, `", stringify!($bad))*, "`):")]
        #[doc = concat!("```compile_fail\nuse ascend_core::prelude::*;\nfn f(t: &LocalTensor<", stringify!($bad0), ">) { ", $bad_call, " }\n```")]
        pub trait $trait: $bound {
            #[doc = concat!("Whether `", $api, "` on this type exists on `soc`.")]
            fn $supported(soc: Soc) -> bool;
        }
        $(
            impl $trait for $t {
                #[allow(unused_variables)]
                fn $supported($soc: Soc) -> bool {
                    $ok
                }
            }
        )*
        static_assertions::assert_not_impl_any!($bad0: $trait);
        $(static_assertions::assert_not_impl_any!($bad: $trait);)*
    };
}
pub(crate) use capability;
