//! The compound instructions with a conversion step: `AddReluCast`
//! (`dst = Cast(Relu(src0 + src1))`), `SubReluCast` (`dst = Cast(Relu(src0 - src1))`) and
//! `MulCast` (`dst = Cast(src0 * src1)`): two sources of one type into a narrower destination.
//! (`MulAddRelu`, whose operands share one type, is in [`binary`](crate::vector::binary).)
//!
//! Type pairs (`src → dst`) per chip, from the vendor's per-chip tables
//! (`docs/zh/api/SIMD-API/基础API/Memory矢量计算/复合计算/`) and checked against each chip's
//! implementation (`impl/basic_api/dav_*/kernel_operator_vec_vconv_impl.h`,
//! `kernel_operator_vec_mulcast_impl.h`); Ascend910 (`dav_c100`) has none of them:
//!
//! | instruction | Ascend910 | Ascend910B | Ascend310P | Ascend310B |
//! | --- | --- | --- | --- | --- |
//! | `AddReluCast`, `SubReluCast` | — | half→int8, int16→int8, float→half | half→int8, int16→int8, float→half | half→int8, float→half |
//! | `MulCast` | — | half→int8, half→uint8 | half→int8, half→uint8 | half→int8, half→uint8 |
//!
//! A pair no chip has does not compile ([`ReluCastFrom`], [`MulCastFrom`]); a pair the current
//! chip lacks is a run-time error naming the chip.
//!
//! **Mask and repeat.** As for `Cast`, the mask and the repeat count lanes of the wider type
//! (the vendor: "the mask of a type conversion follows the larger of `sizeof` of the input and
//! output types"): 128 lanes per repeat for `half`/`int16_t` sources into `int8_t`/`uint8_t`,
//! 64 for `float` into `half`. Lane `j` of repeat `r` reads each source's element at that
//! source's own block and repeat strides and writes `dst`'s element at `dst`'s, each operand
//! with its own element size, so a repeat writes 4 blocks of the destination and a contiguous
//! walk is `BinaryRepeatParams::new(1, 1, 1, 4, 8, 8)` — the vendor's examples. The count form
//! covers elements `0..count` of every operand contiguously. `count = 0` and
//! `repeat_times = 0` write nothing (the vendor documents a NOP for Ascend910B). `IS_SET_MASK`
//! works as for every vector instruction on every chip, although Ascend310B's implementation
//! of the continuous-mask form reads its `mask` argument whatever `isSetMask` says.
//!
//! **Arithmetic.** The sum, difference or product is computed in the source type, then `Relu`
//! (`max(x, +0)`: `-0` becomes `+0`, NaN stays NaN), then the conversion — the steps of the
//! Ascend310B implementation (`dav_m300`: `vadd`/`vsub`/`vmul` on source-type registers,
//! `vrelu`, `vcvt`); the other chips run one instruction (`vaddreluconv_*`, `vmulconv_*`) whose
//! intermediate the vendor does not describe, and the same steps are the model there:
//! - `float` sources: the `float` result, rounded once to nearest-even;
//! - `half` sources: the result rounded to `half` (nearest-even; the product of two halves is
//!   exact before that rounding), so the conversion rounds a second time — `64.5 + 2^-7`
//!   becomes `64.5` in `half`, then `64` in `int8_t`, where one rounding would give `65`;
//! - `int16_t` sources: the exact sum or difference saturated to `int16_t` (the vendor's
//!   boundary tables: `MAX + MAX` gives `MAX`, not a wrapped negative), which after `Relu` and
//!   the conversion is the exact value clamped to `0..=127`.
//!
//! **Conversion.** Rounding to nearest, ties to even (the `vcvt ... ROUND_R` of `dav_m300`; the
//! other chips' instructions take no mode, which is `Cast`'s `CAST_NONE`: `CAST_RINT` when
//! lossy), with `Cast`'s saturation ([`cast`](crate::vector::cast) does the conversion):
//! into `int8_t`/`uint8_t` the value is clamped to the type's range, ±inf gives MAX/MIN and
//! NaN gives 0 (a negative product into `uint8_t`, which the vendor's conversion rules call
//! "abnormal", is clamped to 0 as `Cast` does); into `half` the core's overflow mode decides
//! ([`get_overflow_mode`], read once per call): in saturation mode beyond ±65504 (±inf
//! included) gives ±65504 and NaN gives 0, in inf/nan mode the results are IEEE 754's
//! (overflow gives ±inf, NaN stays NaN). The `half` intermediate of the
//! `int8_t`/`uint8_t` forms is not saturated: ±65504 and ±inf convert alike, and so do NaN and
//! 0, so the overflow mode cannot change those results.
//!
//! Where the vendor's texts disagree: the boundary-value tables of `AddReluCast`/`SubReluCast`
//! (`docs/zh/api/附录/Memory矢量计算接口边界值汇总.md`, tables 26 and 27) list a NaN result
//! of `float → half` as `+0` in inf/nan mode, while `Cast`'s table 32 lists `nan` and the
//! Ascend310B implementation converts with the same `vcvt ... RS_ENABLE` as its `Cast`; the
//! model follows `Cast` (NaN stays NaN in inf/nan mode, becomes 0 in saturation mode).
//!
//! **Overlap.** `dst` may not overlap a source at all (the two have different element sizes,
//! so they cannot overlap completely, the only overlap the vendor allows); the two sources may
//! overlap each other.

use core::marker::PhantomData;
use core::mem::MaybeUninit;

use crate::element::{f16, DType, Element};
use crate::kernel::ctx::{get_overflow_mode, get_soc};
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::soc::{OverflowMode, Soc};
use crate::vector::cast::{CastFrom, RoundMode};
use crate::vector::engine::{apply_count_mixed, apply_mixed, MixedLanes, Operand};
use crate::vector::lane::frelu;
use crate::vector::mask::{resolve, Mask};
use crate::vector::params::BinaryRepeatParams;

const ADD_RELU_CAST: &str = "AddReluCast";
const SUB_RELU_CAST: &str = "SubReluCast";
const MUL_CAST: &str = "MulCast";

/// Lanes per stack chunk of the kernels.
const CHUNK: usize = 512;

mod sealed {
    use crate::element::Element;

    /// The operation before the conversion.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Op {
        /// `Relu(a + b)`.
        AddRelu,
        /// `Relu(a - b)`.
        SubRelu,
        /// `a * b`.
        Mul,
    }

    /// One `src → dst` pair of a compound instruction: the wider type (whose lanes the mask
    /// counts) and the kernel.
    pub trait Pair<S: Element>: Element {
        /// The wider of the two types.
        type Wide: Element;
        /// `dst[i] = convert(op(a[i], b[i]))` for `i in 0..n`; `sat` is the `half` saturation.
        ///
        /// # Safety
        /// `dst` is valid for `n` writes, `a` and `b` for `n` reads, and `dst` overlaps neither.
        unsafe fn run(dst: *mut Self, a: *const S, b: *const S, n: usize, op: Op, sat: bool);
    }
}
use sealed::{Op, Pair};

/// `op` in `f32` over `a` and `b` into `out`.
#[inline(always)]
fn op_f32(op: Op, out: &mut [MaybeUninit<f32>], a: &[f32], b: &[f32]) {
    let it = out.iter_mut().zip(a).zip(b);
    match op {
        Op::AddRelu => it.for_each(|((o, &x), &y)| {
            o.write(frelu(x + y));
        }),
        Op::SubRelu => it.for_each(|((o, &x), &y)| {
            o.write(frelu(x - y));
        }),
        Op::Mul => it.for_each(|((o, &x), &y)| {
            o.write(x * y);
        }),
    }
}

/// `float` sources into a `half` destination: `op` in `f32`, then `Cast`'s `f32 → f16`
/// conversion to nearest-even with the saturation `sat`.
///
/// # Safety
/// As [`Pair::run`].
#[inline(always)]
unsafe fn run_f32_to_f16(dst: *mut f16, a: *const f32, b: *const f32, n: usize, op: Op, sat: bool) {
    let mut buf = [MaybeUninit::<f32>::uninit(); CHUNK];
    let mut done = 0;
    while done < n {
        let len = CHUNK.min(n - done);
        // SAFETY: a and b are valid for n reads (done + len <= n); they are only read.
        let (x, y) = unsafe {
            (core::slice::from_raw_parts(a.add(done), len), core::slice::from_raw_parts(b.add(done), len))
        };
        op_f32(op, &mut buf[..len], x, y);
        // SAFETY: the first len values of the stack buffer were written just above; dst is
        // valid for n writes and overlaps neither the buffer nor the sources.
        unsafe {
            <f16 as CastFrom<f32>>::cast_run(
                dst.add(done),
                buf.as_ptr().cast::<f32>(),
                len,
                RoundMode::CastRint,
                sat,
            )
        };
        done += len;
    }
}

/// `half` sources into an 8-bit integer destination: `op` in `f32` (exact for the product;
/// the sum's rounding to `f32` is innocuous before the rounding to `half`), rounded to `half`,
/// then `Cast`'s `f16 → D` conversion to nearest-even, saturating.
///
/// # Safety
/// As [`Pair::run`].
#[inline(always)]
unsafe fn run_f16_to_int<D: CastFrom<f16>>(dst: *mut D, a: *const f16, b: *const f16, n: usize, op: Op) {
    let mut wa = [MaybeUninit::<f32>::uninit(); CHUNK];
    let mut wb = [MaybeUninit::<f32>::uninit(); CHUNK];
    let mut r = [MaybeUninit::<f32>::uninit(); CHUNK];
    let mut h = [MaybeUninit::<f16>::uninit(); CHUNK];
    let mut done = 0;
    while done < n {
        let len = CHUNK.min(n - done);
        // SAFETY: a and b are valid for n reads; the stack buffers hold CHUNK >= len values
        // and are distinct from the sources and from each other.
        let (x, y) = unsafe {
            crate::f16conv::widen(a.add(done), wa.as_mut_ptr().cast::<f32>(), len);
            crate::f16conv::widen(b.add(done), wb.as_mut_ptr().cast::<f32>(), len);
            (
                core::slice::from_raw_parts(wa.as_ptr().cast::<f32>(), len),
                core::slice::from_raw_parts(wb.as_ptr().cast::<f32>(), len),
            )
        };
        op_f32(op, &mut r[..len], x, y);
        // SAFETY: the first len values of `r` were written just above and `h` is a distinct
        // stack buffer of CHUNK >= len values; dst is valid for n writes and overlaps neither.
        unsafe {
            crate::f16conv::narrow(r.as_ptr().cast::<f32>(), h.as_mut_ptr().cast::<f16>(), len);
            D::cast_run(dst.add(done), h.as_ptr().cast::<f16>(), len, RoundMode::CastRint, false);
        }
        done += len;
    }
}

/// `int16_t` sources into `int8_t`: the exact sum or difference, saturated to `int16_t`, `Relu`,
/// then saturated to `int8_t` — the exact value clamped to `0..=127`.
///
/// # Safety
/// As [`Pair::run`].
#[inline(always)]
unsafe fn run_i16_to_i8(dst: *mut i8, a: *const i16, b: *const i16, n: usize, op: Op) {
    let f = |x: i16, y: i16| -> i8 {
        let v = match op {
            Op::AddRelu => i32::from(x) + i32::from(y),
            Op::SubRelu => i32::from(x) - i32::from(y),
            Op::Mul => unreachable!("MulCast has no int16_t sources"),
        };
        v.clamp(0, i32::from(i8::MAX)) as i8
    };
    for i in 0..n {
        // SAFETY: i < n; a and b are valid for n reads and dst for n writes, and dst overlaps
        // neither source.
        unsafe { dst.add(i).write(f(a.add(i).read(), b.add(i).read())) };
    }
}

impl Pair<f32> for f16 {
    type Wide = f32;
    #[inline(always)]
    unsafe fn run(dst: *mut f16, a: *const f32, b: *const f32, n: usize, op: Op, sat: bool) {
        // SAFETY: forwarded contract.
        unsafe { run_f32_to_f16(dst, a, b, n, op, sat) }
    }
}

impl Pair<f16> for i8 {
    type Wide = f16;
    #[inline(always)]
    unsafe fn run(dst: *mut i8, a: *const f16, b: *const f16, n: usize, op: Op, _sat: bool) {
        // SAFETY: forwarded contract.
        unsafe { run_f16_to_int(dst, a, b, n, op) }
    }
}

impl Pair<f16> for u8 {
    type Wide = f16;
    #[inline(always)]
    unsafe fn run(dst: *mut u8, a: *const f16, b: *const f16, n: usize, op: Op, _sat: bool) {
        // SAFETY: forwarded contract.
        unsafe { run_f16_to_int(dst, a, b, n, op) }
    }
}

impl Pair<i16> for i8 {
    type Wide = i16;
    #[inline(always)]
    unsafe fn run(dst: *mut i8, a: *const i16, b: *const i16, n: usize, op: Op, _sat: bool) {
        // SAFETY: forwarded contract.
        unsafe { run_i16_to_i8(dst, a, b, n, op) }
    }
}

/// `Self` can be the destination of `AddReluCast` and `SubReluCast` from sources of type `S`
/// on at least one chip: `half → int8_t`, `int16_t → int8_t` and `float → half` (see the module
/// docs for the chips).
///
/// A pair no chip supports does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(d: &LocalTensor<u8>, s: &LocalTensor<f16>) { add_relu_cast(d, s, s, 128); }
/// ```
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(d: &LocalTensor<i8>, s: &LocalTensor<f32>) { sub_relu_cast(d, s, s, 64); }
/// ```
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(d: &LocalTensor<f32>, s: &LocalTensor<f16>) { add_relu_cast(d, s, s, 64); }
/// ```
pub trait ReluCastFrom<S: Element>: Pair<S> {
    /// Whether `AddReluCast`/`SubReluCast` from `S` into this type exist on `soc`.
    fn relu_cast_supported(soc: Soc) -> bool;
}

impl ReluCastFrom<f32> for f16 {
    fn relu_cast_supported(soc: Soc) -> bool {
        soc != Soc::Ascend910
    }
}

impl ReluCastFrom<f16> for i8 {
    fn relu_cast_supported(soc: Soc) -> bool {
        soc != Soc::Ascend910
    }
}

impl ReluCastFrom<i16> for i8 {
    fn relu_cast_supported(soc: Soc) -> bool {
        matches!(soc, Soc::Ascend910B | Soc::Ascend310P)
    }
}

/// `Self` can be the destination of `MulCast` from sources of type `S` on at least one chip:
/// `half → int8_t` and `half → uint8_t` (see the module docs for the chips).
///
/// A pair no chip supports does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(d: &LocalTensor<f16>, s: &LocalTensor<f32>) { mul_cast(d, s, s, 64); }
/// ```
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(d: &LocalTensor<i8>, s: &LocalTensor<i16>) { mul_cast(d, s, s, 128); }
/// ```
pub trait MulCastFrom<S: Element>: Pair<S> {
    /// Whether `MulCast` from `S` into this type exists on `soc`.
    fn mul_cast_supported(soc: Soc) -> bool;
}

impl MulCastFrom<f16> for i8 {
    fn mul_cast_supported(soc: Soc) -> bool {
        soc != Soc::Ascend910
    }
}

impl MulCastFrom<f16> for u8 {
    fn mul_cast_supported(soc: Soc) -> bool {
        soc != Soc::Ascend910
    }
}

/// The engine kernel: one pair, with the operation and the saturation fixed for the call.
struct CompoundKernel<D, S> {
    op: Op,
    sat: bool,
    _p: PhantomData<(D, S)>,
}

impl<D: Pair<S>, S: Element> MixedLanes<D, S, 2> for CompoundKernel<D, S> {
    #[inline(always)]
    unsafe fn run(&mut self, dst: *mut D, [a, b]: [*const S; 2], n: usize) {
        // SAFETY: the engine's contract: dst is valid for n writes and each source for n reads;
        // with different element sizes dst and a source never coincide, so they do not overlap.
        unsafe { D::run(dst, a, b, n, self.op, self.sat) }
    }
}

/// The pairs `api` has on `soc`, for the error message.
fn pairs_on(api: &'static str, soc: Soc) -> &'static str {
    match (api, soc) {
        (_, Soc::Ascend910) => "none",
        (MUL_CAST, _) => "half -> int8_t, half -> uint8_t",
        (_, Soc::Ascend310B) => "half -> int8_t, float -> half",
        _ => "half -> int8_t, int16_t -> int8_t, float -> half",
    }
}

/// Checks the pair against the chip; returns the call's kernel.
#[track_caller]
fn prologue<D: Pair<S>, S: Element>(
    api: &'static str,
    supported: bool,
    soc: Soc,
    op: Op,
) -> CompoundKernel<D, S> {
    const { assert!(D::SIZE < S::SIZE) };
    ensure(supported, api, || {
        format!(
            "src0/src1 = {} with dst = {} is not supported on {soc} ({}); it has: {}",
            S::DTYPE,
            D::DTYPE,
            soc.product_line(),
            pairs_on(api, soc)
        )
    });
    let sat = D::DTYPE == DType::F16 && get_overflow_mode() == OverflowMode::Saturation;
    CompoundKernel { op, sat, _p: PhantomData }
}

/// The count form of a compound instruction.
#[track_caller]
fn count_form<D: Pair<S>, S: Element>(
    api: &'static str,
    k: &mut CompoundKernel<D, S>,
    dst: &LocalTensor<D>,
    src0: &LocalTensor<S>,
    src1: &LocalTensor<S>,
    count: usize,
) {
    apply_count_mixed(api, count, dst, [(src0, "src0"), (src1, "src1")], k);
}

/// The high-dimensional form of a compound instruction.
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn masked_form<D: Pair<S>, S: Element, const IS_SET_MASK: bool>(
    api: &'static str,
    k: &mut CompoundKernel<D, S>,
    dst: &LocalTensor<D>,
    src0: &LocalTensor<S>,
    src1: &LocalTensor<S>,
    mask: Mask,
    repeat_times: u8,
    params: &BinaryRepeatParams,
) {
    let Some(plan) = resolve::<D::Wide, IS_SET_MASK>(api, mask, repeat_times as usize) else {
        return;
    };
    let p = params;
    let d = Operand::new(dst, p.dst_blk_stride, p.dst_rep_stride, "dst");
    let a = Operand::new(src0, p.src0_blk_stride, p.src0_rep_stride, "src0");
    let b = Operand::new(src1, p.src1_blk_stride, p.src1_rep_stride, "src1");
    apply_mixed::<D::Wide, D, S, 2, _>(api, &plan, &d, [&a, &b], k);
}

/// Declares one compound instruction's count and high-dimensional forms: their docs (the
/// formula, the pairs, the shared mask and panic text, and each form's own note and example)
/// and their bodies, which differ only in the API name, the operation and the pair check.
macro_rules! compound_instr {
    (
        $api:ident, $op:expr, $trait:ident :: $supported:ident, $count:ident, $masked:ident,
        formula $formula:literal, vendor $vendor:literal, pairs $pairs:literal, lanes $lanes:literal,
        count { $(#[$cd:meta])* }
        masked { $(#[$md:meta])* }
    ) => {
        #[doc = concat!("`dst[i] = ", $formula, "` for `i in 0..count` (AscendC `", $vendor,
            "<T, U>(dst, src0, src1, count)`): ", $pairs, ".")]
        #[doc = ""]
        $(#[$cd])*
        #[doc = ""]
        #[doc = "# Panics"]
        #[doc = concat!("Panics if the chip lacks the pair (see [`", stringify!($trait), "`]), if an operand is not \
            a 32-byte aligned VECIN/VECOUT/VECCALC tensor or holds fewer than `count` elements, or if `dst` \
            overlaps a source.")]
        #[track_caller]
        pub fn $count<D: $trait<S>, S: Element>(
            dst: &LocalTensor<D>,
            src0: &LocalTensor<S>,
            src1: &LocalTensor<S>,
            count: usize,
        ) {
            let soc = get_soc();
            let mut k = prologue($api, D::$supported(soc), soc, $op);
            count_form($api, &mut k, dst, src0, src1, count);
        }

        #[doc = concat!("`dst = ", $formula, "` over the lanes a mask enables, for `repeat_times` repeats \
            (AscendC `", $vendor, "<T, U, isSetMask>(dst, src0, src1, mask, repeatTime, repeatParams)`, \
            continuous and bit-mask forms).")]
        #[doc = ""]
        #[doc = concat!("The mask counts ", $lanes, "; each operand walks with its own element size and \
            strides, so a contiguous call is `BinaryRepeatParams::new(1, 1, 1, 4, 8, 8)` (the vendor: each \
            repeat writes the first 4 blocks of the destination). Disabled lanes keep their values. Counter \
            mode, `IS_SET_MASK` and `MASK_PLACEHOLDER` work as for every vector instruction \
            ([`sub_masked`](crate::vector::binary::sub_masked)).")]
        #[doc = ""]
        $(#[$md])*
        #[doc = ""]
        #[doc = "# Panics"]
        #[doc = concat!("Panics as [`", stringify!($count), "`], and if the mask is out of range for the \
            wider type or breaks the `IS_SET_MASK`/`MASK_PLACEHOLDER` rule, or a touched element lies \
            outside its tensor.")]
        #[track_caller]
        pub fn $masked<D: $trait<S>, S: Element, const IS_SET_MASK: bool>(
            dst: &LocalTensor<D>,
            src0: &LocalTensor<S>,
            src1: &LocalTensor<S>,
            mask: impl Into<Mask>,
            repeat_times: u8,
            params: &BinaryRepeatParams,
        ) {
            let soc = get_soc();
            let mut k = prologue($api, D::$supported(soc), soc, $op);
            masked_form::<D, S, IS_SET_MASK>($api, &mut k, dst, src0, src1, mask.into(), repeat_times, params);
        }
    };
}

compound_instr!(
    ADD_RELU_CAST, Op::AddRelu, ReluCastFrom::relu_cast_supported, add_relu_cast, add_relu_cast_masked,
    formula "Cast(Relu(src0 + src1))", vendor "AddReluCast",
    pairs "`half → int8_t`, `int16_t → int8_t` or `float → half`",
    lanes "lanes of the wider type (128 for `half`/`int16_t` sources, 64 for `float`)",
    count {
    /// The sum is computed in the source type, then `Relu`, then the conversion to nearest-even
    /// with saturation (see the module docs).
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// run_on_core(CoreConfig::single(Soc::Ascend910B), || {
    ///     let mut pipe = TPipe::new();
    ///     let mut buf = TBuf::<VecCalc>::new();
    ///     pipe.init_tbuf(&mut buf, 3 * 1024);
    ///     let (src0, src1) = (buf.get_with_offset::<f16>(512, 0), buf.get_with_offset::<f16>(512, 1024));
    ///     let dst = buf.get_with_offset::<i8>(512, 2048);
    ///     // The vendor's example: [1 1 3 ... 512] + [0 0.5 -4 ... -513] gives [1 2 0 ... 0].
    ///     src0.copy_from_slice(&(1..=512).map(|i| f16::from_f32(i as f32)).collect::<Vec<_>>());
    ///     src1.copy_from_slice(&(1..=512).map(|i| f16::from_f32(-(i as f32) - 1.0)).collect::<Vec<_>>());
    ///     src0.set_value(1, f16::ONE);
    ///     src1.set_value(0, f16::ZERO);
    ///     src1.set_value(1, f16::from_f32(0.5));
    ///     add_relu_cast(&dst, &src0, &src1, 512);
    ///     assert_eq!(dst.to_vec()[..3], [1, 2, 0]);
    ///     assert_eq!(dst.get_value(511), 0);
    ///     // Saturation into int8_t: 100 + 100 is 127.
    ///     src0.set_value(0, f16::from_f32(100.0));
    ///     src1.set_value(0, f16::from_f32(100.0));
    ///     add_relu_cast(&dst, &src0, &src1, 16);
    ///     assert_eq!(dst.get_value(0), 127);
    /// });
    /// ```
    }
    masked {
    /// ```
    /// use ascend_core::prelude::*;
    /// run_on_core(CoreConfig::single(Soc::Ascend310B), || {
    ///     let mut pipe = TPipe::new();
    ///     let mut buf = TBuf::<VecCalc>::new();
    ///     pipe.init_tbuf(&mut buf, 3 * 1024);
    ///     let (src0, src1) = (buf.get_with_offset::<f32>(256, 0), buf.get_with_offset::<f32>(256, 1024));
    ///     let dst = buf.get_with_offset::<f16>(512, 2048);
    ///     src0.copy_from_slice(&[1.5; 256]);
    ///     src1.copy_from_slice(&[-4.0; 256]);
    ///     src1.set_value(0, 1.0);
    ///     // 4 repeats of 64 float lanes: dst advances 4 blocks per repeat, the sources 8.
    ///     add_relu_cast_masked::<f16, f32, true>(&dst, &src0, &src1, 64u64, 4, &BinaryRepeatParams::new(1, 1, 1, 4, 8, 8));
    ///     assert_eq!(dst.get_value(0), f16::from_f32(2.5));
    ///     assert_eq!(dst.get_value(255), f16::ZERO);
    /// });
    /// ```
    }
);

compound_instr!(
    SUB_RELU_CAST, Op::SubRelu, ReluCastFrom::relu_cast_supported, sub_relu_cast, sub_relu_cast_masked,
    formula "Cast(Relu(src0 - src1))", vendor "SubReluCast",
    pairs "`half → int8_t`, `int16_t → int8_t` or `float → half`",
    lanes "lanes of the wider type (128 for `half`/`int16_t` sources, 64 for `float`)",
    count {
    /// The difference is computed in the source type, then `Relu`, then the conversion to
    /// nearest-even with saturation (see the module docs).
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// run_on_core(CoreConfig::single(Soc::Ascend310P), || {
    ///     let mut pipe = TPipe::new();
    ///     let mut buf = TBuf::<VecCalc>::new();
    ///     pipe.init_tbuf(&mut buf, 3 * 1024);
    ///     let (src0, src1) = (buf.get_with_offset::<i16>(512, 0), buf.get_with_offset::<i16>(512, 1024));
    ///     let dst = buf.get_with_offset::<i8>(512, 2048);
    ///     src0.copy_from_slice(&(0..512).map(|i| i as i16).collect::<Vec<_>>());
    ///     src1.copy_from_slice(&[100; 512]);
    ///     src1.set_value(0, i16::MIN);
    ///     sub_relu_cast(&dst, &src0, &src1, 512);
    ///     // 0 - (-32768) saturates; 99 - 100 is negative; 227 - 100 = 127; 228 - 100 saturates.
    ///     assert_eq!([dst.get_value(0), dst.get_value(99), dst.get_value(227), dst.get_value(228)], [127, 0, 127, 127]);
    ///     assert_eq!(dst.get_value(150), 50);
    /// });
    /// ```
    }
    masked {
    /// ```
    /// use ascend_core::prelude::*;
    /// run_on_core(CoreConfig::single(Soc::Ascend910B), || {
    ///     let mut pipe = TPipe::new();
    ///     let mut buf = TBuf::<VecCalc>::new();
    ///     pipe.init_tbuf(&mut buf, 3 * 1024);
    ///     let (src0, src1) = (buf.get_with_offset::<f16>(512, 0), buf.get_with_offset::<f16>(512, 1024));
    ///     let dst = buf.get_with_offset::<i8>(512, 2048);
    ///     // The vendor's example: [1 2 3 ... 512] - [0 0.5 4 ... 513] gives [1 2 0 ... 0].
    ///     src0.copy_from_slice(&(1..=512).map(|i| f16::from_f32(i as f32)).collect::<Vec<_>>());
    ///     src1.copy_from_slice(&(1..=512).map(|i| f16::from_f32(i as f32 + 1.0)).collect::<Vec<_>>());
    ///     src1.set_value(0, f16::ZERO);
    ///     src1.set_value(1, f16::from_f32(0.5));
    ///     let p = BinaryRepeatParams::new(1, 1, 1, 4, 8, 8);
    ///     sub_relu_cast_masked::<i8, f16, true>(&dst, &src0, &src1, [u64::MAX, u64::MAX], 4, &p);
    ///     assert_eq!(dst.to_vec()[..3], [1, 2, 0]);
    ///     assert_eq!(dst.get_value(511), 0);
    /// });
    /// ```
    }
);

compound_instr!(
    MUL_CAST, Op::Mul, MulCastFrom::mul_cast_supported, mul_cast, mul_cast_masked,
    formula "Cast(src0 * src1)", vendor "MulCast",
    pairs "`half → int8_t` or `half → uint8_t`",
    lanes "`half` lanes (at most 128 per repeat)",
    count {
    /// The product is rounded to `half`, then converted to nearest-even with saturation (see the
    /// module docs).
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// run_on_core(CoreConfig::single(Soc::Ascend310B), || {
    ///     let mut pipe = TPipe::new();
    ///     let mut buf = TBuf::<VecCalc>::new();
    ///     pipe.init_tbuf(&mut buf, 3 * 256);
    ///     let (src0, src1) = (buf.get_with_offset::<f16>(128, 0), buf.get_with_offset::<f16>(128, 256));
    ///     let (s8, u8d) = (buf.get_with_offset::<i8>(128, 512), buf.get_with_offset::<u8>(128, 640));
    ///     let h = |v: &[f32]| v.iter().map(|&x| f16::from_f32(x)).collect::<Vec<_>>();
    ///     // The vendor's example: [1 -2 3 ... -6] * [1 3 -4 ... 5] gives [1 -6 -12 ... -30].
    ///     let mut a = h(&[1.0, -2.0, 3.0]);
    ///     a.resize(128, f16::from_f32(-6.0));
    ///     let mut b = h(&[1.0, 3.0, -4.0]);
    ///     b.resize(128, f16::from_f32(5.0));
    ///     src0.copy_from_slice(&a);
    ///     src1.copy_from_slice(&b);
    ///     mul_cast(&s8, &src0, &src1, 128);
    ///     assert_eq!(s8.to_vec()[..3], [1, -6, -12]);
    ///     assert_eq!(s8.get_value(127), -30);
    ///     // Into uint8_t a negative product saturates to 0.
    ///     mul_cast(&u8d, &src0, &src1, 128);
    ///     assert_eq!(u8d.to_vec()[..3], [1, 0, 0]);
    /// });
    /// ```
    }
    masked {
    /// ```
    /// use ascend_core::prelude::*;
    /// run_on_core(CoreConfig::single(Soc::Ascend910B), || {
    ///     let mut pipe = TPipe::new();
    ///     let mut buf = TBuf::<VecCalc>::new();
    ///     pipe.init_tbuf(&mut buf, 3 * 1024);
    ///     let (src0, src1) = (buf.get_with_offset::<f16>(512, 0), buf.get_with_offset::<f16>(512, 1024));
    ///     let dst = buf.get_with_offset::<i8>(512, 2048);
    ///     src0.copy_from_slice(&[f16::from_f32(2.5); 512]);
    ///     src1.copy_from_slice(&[f16::from_f32(3.0); 512]);
    ///     dst.copy_from_slice(&[-1; 512]);
    ///     // 4 repeats of the first 64 half lanes: 7.5 rounds to 8 (ties to even).
    ///     mul_cast_masked::<i8, f16, true>(&dst, &src0, &src1, 64u64, 4, &BinaryRepeatParams::new(1, 1, 1, 4, 8, 8));
    ///     assert_eq!([dst.get_value(0), dst.get_value(63), dst.get_value(64), dst.get_value(128)], [8, 8, -1, 8]);
    /// });
    /// ```
    }
);
