//! `Gelu`, `FasterGelu` and `FasterGeluV2` of the advanced API (the vendor's
//! `adv_api/activation/gelu.h`), written as the vendor's `gelu_impl.h` writes them for Ascend910B
//! and Ascend310P, with the host-side `GetGeluMaxMinTmpSize`.
//!
//! All three split the scratch into `bufferNumber` equal parts (2 for `Gelu`, 1 for
//! `FasterGelu`, 3 for `FasterGeluV2`; one more for the `float` copy of the data in
//! `half`'s high-precision mode) of `stackSize` elements, rounded down to a multiple of 32
//! elements, and run rounds of `stackSize` elements in counter mode, then the tail; the core is
//! left in normal mode with the full mask.
//!
//! Chips: the vendor's pages list them for Ascend910B and Ascend310P. Their header would build
//! `gelu_impl.h` on any chip, but the pages mark Ascend910 and Ascend310B unsupported, so those
//! chips fail here, with a message saying so.

use crate::element::{f16, DType, Element};
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::sync::{event::PIPE_V, flags::pipe_barrier};
use crate::vector::binary::{add_masked, div_masked, mul_masked, AddElement, DivElement, MulElement};
use crate::vector::cast::{cast_masked, RoundMode};
use crate::vector::mask::{reset_mask, set_mask_count, set_mask_norm, set_vector_mask, MASK_PLACEHOLDER};
use crate::vector::params::{BinaryRepeatParams, UnaryRepeatParams};
use crate::vector::scalar::{adds_masked, mins_masked, muls_masked, AddsElement, MinsElement, MulsElement};
use crate::vector::unary::{
    abs_masked, exp_masked, reciprocal_masked, AbsElement, ExpElement, ReciprocalElement,
};

use super::V220_V200 as CHIPS;
use super::{check_common, check_documented_chip, host_checks, stack_tensor};

mod sealed {
    pub trait Sealed {}
}

/// `GELU_THREE_TIMES * GELU_ONE_REPEAT_BYTE_SIZE`: the minimum scratch, any type.
const MIN_TMP: usize = 3 * 256;

/// Element types of [`gelu`], [`faster_gelu`] and [`faster_gelu_v2`]: `half` and `float` (the
/// vendor's pages).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<i32>, tmp: &LocalTensor<u8>) { gelu::<_, false, false>(t, t, tmp, 8) }
/// ```
pub trait GeluElement:
    Element
    + MulElement
    + AddElement
    + DivElement
    + MulsElement
    + AddsElement
    + MinsElement
    + ExpElement
    + AbsElement
    + ReciprocalElement
    + sealed::Sealed
{
    /// The vendor's `const T c = <double literal>;`: the literal rounded once to `T`.
    #[doc(hidden)]
    fn lit(c: f64) -> Self;
}
impl sealed::Sealed for f16 {}
impl GeluElement for f16 {
    fn lit(c: f64) -> f16 {
        f16::from_f64(c)
    }
}
impl sealed::Sealed for f32 {}
impl GeluElement for f32 {
    fn lit(c: f64) -> f32 {
        c as f32
    }
}

/// Which of the three formulas.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Gelu,
    Faster,
    FasterV2,
}

impl Kind {
    fn api(self) -> &'static str {
        match self {
            Kind::Gelu => "Gelu",
            Kind::Faster => "FasterGelu",
            Kind::FasterV2 => "FasterGeluV2",
        }
    }

    /// The vendor's `bufferNumber`.
    fn buffers(self) -> usize {
        match self {
            Kind::Gelu => 2,
            Kind::Faster => 1,
            Kind::FasterV2 => 3,
        }
    }
}

/// The scratch parts of one call (`GeluParams`' `tempTensorA/B/C`).
struct Temps<U: Element> {
    a: LocalTensor<U>,
    b: LocalTensor<U>,
    c: LocalTensor<U>,
}

/// The vendor's `GeluCalcSimplifiedAvoid`: `y = 1.5957691 · (x + 0.044715 · x³)`, then
/// `x / (exp(-|y|) + 1) · exp(min(y, 0))`.
#[track_caller]
fn gelu_calc<U: GeluElement, const HIGH_PERFORMANCE: bool>(
    dst: &LocalTensor<U>,
    src: &LocalTensor<U>,
    t: &Temps<U>,
) {
    let (u, b) = (UnaryRepeatParams::default(), BinaryRepeatParams::default());
    let (ta, tb) = (&t.a, &t.b);
    // GeluCalcTanhParams
    mul_masked::<U, false>(ta, src, src, MASK_PLACEHOLDER, 1, &b);
    pipe_barrier::<PIPE_V>();
    mul_masked::<U, false>(tb, src, ta, MASK_PLACEHOLDER, 1, &b);
    pipe_barrier::<PIPE_V>();
    muls_masked::<U, false>(ta, tb, U::lit(0.044715), MASK_PLACEHOLDER, 1, &u);
    pipe_barrier::<PIPE_V>();
    add_masked::<U, false>(tb, src, ta, MASK_PLACEHOLDER, 1, &b);
    pipe_barrier::<PIPE_V>();
    muls_masked::<U, false>(ta, tb, U::lit(1.5957691216057308), MASK_PLACEHOLDER, 1, &u);
    pipe_barrier::<PIPE_V>();
    // GeluCalcYGreaterThanZero
    mins_masked::<U, false>(tb, ta, U::lit(0.0), MASK_PLACEHOLDER, 1, &u);
    pipe_barrier::<PIPE_V>();
    exp_masked::<U, false>(tb, tb, MASK_PLACEHOLDER, 1, &u);
    pipe_barrier::<PIPE_V>();
    // GeluCalcYLessThanZero
    abs_masked::<U, false>(ta, ta, MASK_PLACEHOLDER, 1, &u);
    pipe_barrier::<PIPE_V>();
    muls_masked::<U, false>(ta, ta, U::lit(-1.0), MASK_PLACEHOLDER, 1, &u);
    pipe_barrier::<PIPE_V>();
    exp_masked::<U, false>(ta, ta, MASK_PLACEHOLDER, 1, &u);
    pipe_barrier::<PIPE_V>();
    adds_masked::<U, false>(ta, ta, U::lit(1.0), MASK_PLACEHOLDER, 1, &u);
    pipe_barrier::<PIPE_V>();
    if HIGH_PERFORMANCE {
        reciprocal_masked::<U, false>(ta, ta, MASK_PLACEHOLDER, 1, &u);
        pipe_barrier::<PIPE_V>();
        mul_masked::<U, false>(ta, src, ta, MASK_PLACEHOLDER, 1, &b);
        pipe_barrier::<PIPE_V>();
    } else {
        div_masked::<U, false>(ta, src, ta, MASK_PLACEHOLDER, 1, &b);
        pipe_barrier::<PIPE_V>();
    }
    mul_masked::<U, false>(dst, ta, tb, MASK_PLACEHOLDER, 1, &b);
    pipe_barrier::<PIPE_V>();
}

/// The vendor's `FastGeluCalcSimplified`: `x / (1 + exp(-1.702 · x))`.
#[track_caller]
fn faster_gelu_calc<U: GeluElement, const HIGH_PERFORMANCE: bool>(
    dst: &LocalTensor<U>,
    src: &LocalTensor<U>,
    t: &Temps<U>,
) {
    let (u, b) = (UnaryRepeatParams::default(), BinaryRepeatParams::default());
    let s = &t.a;
    muls_masked::<U, false>(s, src, U::lit(-1.702), MASK_PLACEHOLDER, 1, &u);
    pipe_barrier::<PIPE_V>();
    exp_masked::<U, false>(s, s, MASK_PLACEHOLDER, 1, &u);
    pipe_barrier::<PIPE_V>();
    adds_masked::<U, false>(s, s, U::lit(1.0), MASK_PLACEHOLDER, 1, &u);
    pipe_barrier::<PIPE_V>();
    if HIGH_PERFORMANCE {
        reciprocal_masked::<U, false>(s, s, MASK_PLACEHOLDER, 1, &u);
        pipe_barrier::<PIPE_V>();
        mul_masked::<U, false>(dst, src, s, MASK_PLACEHOLDER, 1, &b);
        pipe_barrier::<PIPE_V>();
    } else {
        div_masked::<U, false>(dst, src, s, MASK_PLACEHOLDER, 1, &b);
        pipe_barrier::<PIPE_V>();
    }
}

/// The vendor's `FastGeluV2CalcSimplified`: `x1 = -0.1444 · (min(|0.7071 · x|, 1.769) - 1.769)² +
/// 0.5`, `x2 = (x + 1e-12) / |x + 1e-12|`, `x · (x1 · x2 + 0.5)`.
#[track_caller]
#[allow(clippy::approx_constant)] // the vendor's 0.7071, not 1/√2
fn faster_gelu_v2_calc<U: GeluElement, const HIGH_PERFORMANCE: bool>(
    dst: &LocalTensor<U>,
    src: &LocalTensor<U>,
    t: &Temps<U>,
) {
    let (u, b) = (UnaryRepeatParams::default(), BinaryRepeatParams::default());
    let (ta, tb, tc) = (&t.a, &t.b, &t.c);
    // FastGeluV2ClipParams
    muls_masked::<U, false>(ta, src, U::lit(0.7071), MASK_PLACEHOLDER, 1, &u);
    pipe_barrier::<PIPE_V>();
    abs_masked::<U, false>(ta, ta, MASK_PLACEHOLDER, 1, &u);
    pipe_barrier::<PIPE_V>();
    mins_masked::<U, false>(ta, ta, U::lit(1.769), MASK_PLACEHOLDER, 1, &u);
    pipe_barrier::<PIPE_V>();
    adds_masked::<U, false>(ta, ta, U::lit(-1.769), MASK_PLACEHOLDER, 1, &u);
    pipe_barrier::<PIPE_V>();
    mul_masked::<U, false>(ta, ta, ta, MASK_PLACEHOLDER, 1, &b);
    pipe_barrier::<PIPE_V>();
    muls_masked::<U, false>(ta, ta, U::lit(-0.1444), MASK_PLACEHOLDER, 1, &u);
    pipe_barrier::<PIPE_V>();
    adds_masked::<U, false>(ta, ta, U::lit(0.5), MASK_PLACEHOLDER, 1, &u);
    pipe_barrier::<PIPE_V>();
    // x2 = (x + 1e-12) / |x + 1e-12|
    adds_masked::<U, false>(tb, src, U::lit(0.000000000001), MASK_PLACEHOLDER, 1, &u);
    pipe_barrier::<PIPE_V>();
    abs_masked::<U, false>(tc, tb, MASK_PLACEHOLDER, 1, &u);
    pipe_barrier::<PIPE_V>();
    if HIGH_PERFORMANCE {
        reciprocal_masked::<U, false>(tc, tc, MASK_PLACEHOLDER, 1, &u);
        pipe_barrier::<PIPE_V>();
        mul_masked::<U, false>(tb, tb, tc, MASK_PLACEHOLDER, 1, &b);
        pipe_barrier::<PIPE_V>();
    } else {
        div_masked::<U, false>(tb, tb, tc, MASK_PLACEHOLDER, 1, &b);
        pipe_barrier::<PIPE_V>();
    }
    mul_masked::<U, false>(ta, ta, tb, MASK_PLACEHOLDER, 1, &b);
    pipe_barrier::<PIPE_V>();
    adds_masked::<U, false>(ta, ta, U::lit(0.5), MASK_PLACEHOLDER, 1, &u);
    pipe_barrier::<PIPE_V>();
    mul_masked::<U, false>(dst, src, ta, MASK_PLACEHOLDER, 1, &b);
    pipe_barrier::<PIPE_V>();
}

/// One round of `kind` in `U` under the counter mask.
#[track_caller]
fn formula<U: GeluElement, const HIGH_PERFORMANCE: bool>(
    kind: Kind,
    dst: &LocalTensor<U>,
    src: &LocalTensor<U>,
    t: &Temps<U>,
) {
    match kind {
        Kind::Gelu => gelu_calc::<U, HIGH_PERFORMANCE>(dst, src, t),
        Kind::Faster => faster_gelu_calc::<U, HIGH_PERFORMANCE>(dst, src, t),
        Kind::FasterV2 => faster_gelu_v2_calc::<U, HIGH_PERFORMANCE>(dst, src, t),
    }
}

/// `GeluFormulasTmpCalc`: the part size (elements of `U`, a multiple of 32) and the parts; the
/// conversion buffer follows the parts.
fn layout<U: Element>(
    tmp: &LocalTensor<u8>,
    buffers: usize,
    conv: bool,
) -> (usize, Temps<U>, LocalTensor<U>) {
    let p = tmp.reinterpret_cast::<U>();
    let need = buffers + usize::from(conv);
    let stack = tmp.get_size() / U::SIZE / need / 32 * 32;
    let part = |k: usize| if k < need { p.view(k * stack) } else { p.view(0) };
    let t = Temps {
        a: part(0),
        b: if buffers >= 2 { part(1) } else { p.view(0) },
        c: if buffers >= 3 { part(2) } else { p.view(0) },
    };
    (stack, t, part(buffers))
}

/// The checks and rounds shared by the three (`GeluClass`, `GeluFormulas` and
/// `GeluFormulasHighPrecision`).
#[track_caller]
fn gelu_class<T: GeluElement, const HIGH_PRECISION: bool, const HIGH_PERFORMANCE: bool>(
    kind: Kind,
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: &LocalTensor<u8>,
    count: usize,
) {
    let api = kind.api();
    check_chip(api);
    check_common(api, &CHIPS, dst, src, count);
    let pos = tmp.get_position();
    ensure(pos.is_ub(), api, || {
        format!("sharedTmpBuffer is at position {pos}; it must be VECIN, VECOUT or VECCALC")
    });
    ensure(tmp.get_size() >= MIN_TMP, api, || {
        format!(
            "sharedTmpBuffer has {} bytes, less than the {MIN_TMP} bytes {api} needs (the minimum of \
             GetGeluMaxMinTmpSize)",
            tmp.get_size()
        )
    });
    let t = (tmp.get_phy_addr(), tmp.get_phy_addr() + tmp.get_size());
    for (name, x) in [("dstLocal", dst), ("srcLocal", src)] {
        let r = (x.get_phy_addr(), x.get_phy_addr() + count * T::SIZE);
        ensure(r.0 == r.1 || r.1 <= t.0 || t.1 <= r.0, api, || {
            format!(
                "sharedTmpBuffer UB bytes [{:#x}, {:#x}) overlap {name} UB bytes [{:#x}, {:#x}); the vendor's page \
                 forbids it",
                t.0, t.1, r.0, r.1
            )
        });
    }
    let high_precision = HIGH_PRECISION && T::DTYPE == DType::F16;
    if high_precision {
        let (dst, src) = (dst.reinterpret_cast::<f16>(), src.reinterpret_cast::<f16>());
        let (stack, temps, conv) = layout::<f32>(tmp, kind.buffers(), true);
        let widen = UnaryRepeatParams::new(1, 1, 8, 4);
        let narrow = UnaryRepeatParams::new(1, 1, 4, 8);
        let round = |off: usize| {
            cast_masked::<f32, f16, false>(
                &conv,
                &src.view(off),
                RoundMode::CastNone,
                MASK_PLACEHOLDER,
                1,
                &widen,
            );
            pipe_barrier::<PIPE_V>();
            formula::<f32, HIGH_PERFORMANCE>(kind, &conv, &conv, &temps);
            cast_masked::<f16, f32, false>(
                &dst.view(off),
                &conv,
                RoundMode::CastNone,
                MASK_PLACEHOLDER,
                1,
                &narrow,
            );
            pipe_barrier::<PIPE_V>();
        };
        rounds(stack, count, round);
    } else {
        let (stack, temps, _) = layout::<T>(tmp, kind.buffers(), false);
        rounds(stack, count, |off| {
            formula::<T, HIGH_PERFORMANCE>(kind, &dst.view(off), &src.view(off), &temps)
        });
    }
}

/// Counter mode, `count / stack` rounds of `stack` and the tail, then normal mode and the full
/// mask.
#[track_caller]
fn rounds(stack: usize, count: usize, round: impl Fn(usize)) {
    set_mask_count();
    set_vector_mask::<u8>(stack as u64);
    for i in 0..count / stack {
        round(i * stack);
    }
    if count % stack != 0 {
        set_vector_mask::<u8>((count % stack) as u64);
        round(count / stack * stack);
    }
    set_mask_norm();
    reset_mask();
}

#[track_caller]
fn check_chip(api: &'static str) {
    check_documented_chip(api, &CHIPS, "Ascend910B and Ascend310P");
}

#[track_caller]
fn stack(api: &'static str) -> LocalTensor<u8> {
    check_chip(api);
    stack_tensor(api)
}

/// `dst[i] = gelu(src[i])` for `i < count` in the vendor's overflow-safe tanh form
/// `x / (exp(-|y|) + 1) · exp(min(y, 0))` with `y = 1.5957691216057308 · (x + 0.044715 · x³)`,
/// with `shared_tmp_buffer` as scratch (AscendC `Gelu<T, highPrecision,
/// highPerformance>(dstLocal, srcLocal, sharedTmpBuffer, dataSize)`).
///
/// As the vendor's `gelu_impl.h`: the scratch in two parts of `stackSize` elements (a multiple of
/// 32); rounds of `stackSize` elements in counter mode. `HIGH_PRECISION` with `half` computes in
/// `float` (a third part holds the `float` copy; each round casts in, computes in place and casts
/// back); it does nothing for `float`. `HIGH_PERFORMANCE` replaces each `Div` by `Reciprocal`
/// and `Mul`. The core is left in normal mode with the full mask. `dst` may be `src`.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 64 * 4);
/// pipe.init_tbuf(&mut tmp, 768);
/// let x = q.get::<f32>();
/// x.copy_from_slice(&[0.0f32; 64]);
/// x.set_value(1, 30.0);
/// gelu::<_, false, false>(&x, &x, &tmp.get::<u8>(), 64);
/// assert_eq!((x.get_value(0), x.get_value(1)), (0.0, 30.0));
/// ```
///
/// # Panics
/// Panics if the chip is not Ascend910B or Ascend310P; `count` exceeds `src` or `dst`; a tensor
/// is not in the Unified Buffer; the scratch is under 768 bytes (the minimum of
/// [`get_gelu_max_min_tmp_size`]) or overlaps `src` or `dst` (the vendor's page); or any
/// instruction's own check fails.
#[track_caller]
pub fn gelu<T: GeluElement, const HIGH_PRECISION: bool, const HIGH_PERFORMANCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    gelu_class::<T, HIGH_PRECISION, HIGH_PERFORMANCE>(Kind::Gelu, dst, src, shared_tmp_buffer, count);
}

/// [`gelu`] with the stack buffer as scratch (AscendC `Gelu<T, highPrecision,
/// highPerformance>(dstLocal, srcLocal, dataSize)`; see
/// [`pop_stack_buffer`](super::pop_stack_buffer)).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 16 * 2);
/// let (x, y) = (q.get_with_offset::<f16>(16, 0), q.get_with_offset::<f16>(16, 32));
/// x.copy_from_slice(&[f16::from_f32(-20.0); 16]);
/// gelu_stack::<_, true, false>(&y, &x, 16);
/// assert_eq!(y.get_value(0).to_f32(), 0.0);
/// ```
///
/// # Panics
/// As [`gelu`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn gelu_stack<T: GeluElement, const HIGH_PRECISION: bool, const HIGH_PERFORMANCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    gelu::<T, HIGH_PRECISION, HIGH_PERFORMANCE>(dst, src, &stack("Gelu"), count);
}

/// `dst[i] = src[i] / (1 + exp(-1.702 · src[i]))` for `i < count`, with `shared_tmp_buffer` as
/// scratch (AscendC `FasterGelu<T, highPrecision, highPerformance>(dstLocal, srcLocal,
/// sharedTmpBuffer, dataSize)`).
///
/// As [`gelu`], with the scratch in one part (two with `HIGH_PRECISION` on `half`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 8 * 4);
/// pipe.init_tbuf(&mut tmp, 768);
/// let (x, y) = (q.get_with_offset::<f32>(8, 0), q.get_with_offset::<f32>(8, 32));
/// x.copy_from_slice(&[1.0f32; 8]);
/// faster_gelu::<_, false, false>(&y, &x, &tmp.get::<u8>(), 8);
/// assert_eq!(y.get_value(7), 1.0 / ((-1.702f32 as f64).exp() as f32 + 1.0));
/// ```
///
/// # Panics
/// As [`gelu`].
#[track_caller]
pub fn faster_gelu<T: GeluElement, const HIGH_PRECISION: bool, const HIGH_PERFORMANCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    gelu_class::<T, HIGH_PRECISION, HIGH_PERFORMANCE>(Kind::Faster, dst, src, shared_tmp_buffer, count);
}

/// [`faster_gelu`] with the stack buffer as scratch (AscendC `FasterGelu<T, highPrecision,
/// highPerformance>(dstLocal, srcLocal, dataSize)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 8 * 4);
/// let (x, y) = (q.get_with_offset::<f32>(8, 0), q.get_with_offset::<f32>(8, 32));
/// x.copy_from_slice(&[0.0f32; 8]);
/// faster_gelu_stack::<_, false, true>(&y, &x, 8);
/// assert_eq!(y.get_value(0), 0.0);
/// ```
///
/// # Panics
/// As [`faster_gelu`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn faster_gelu_stack<T: GeluElement, const HIGH_PRECISION: bool, const HIGH_PERFORMANCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    faster_gelu::<T, HIGH_PRECISION, HIGH_PERFORMANCE>(dst, src, &stack("FasterGelu"), count);
}

/// `dst[i] = x · (x2 · x1 + 0.5)` for `i < count`, `x = src[i]`, `x1 = -0.1444 ·
/// (min(|0.7071 · x|, 1.769) - 1.769)² + 0.5` and `x2 = (x + 1e-12) / |x + 1e-12|`, with
/// `shared_tmp_buffer` as scratch (AscendC `FasterGeluV2<T, highPrecision,
/// highPerformance>(dstLocal, srcLocal, sharedTmpBuffer, dataSize)`).
///
/// As [`gelu`], with the scratch in three parts (four with `HIGH_PRECISION` on `half`). In
/// `half` without high precision `1e-12` rounds to 0, so `x = 0` gives `0 · NaN`, as on the chip.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 8 * 4);
/// pipe.init_tbuf(&mut tmp, 768);
/// let (x, y) = (q.get_with_offset::<f32>(8, 0), q.get_with_offset::<f32>(8, 32));
/// x.copy_from_slice(&[4.0f32; 8]);
/// faster_gelu_v2::<_, false, false>(&y, &x, &tmp.get::<u8>(), 8);
/// assert_eq!(y.get_value(0), 4.0); // |0.7071 · 4| clips to 1.769: x1 = 0.5, x2 = 1
/// ```
///
/// # Panics
/// As [`gelu`].
#[track_caller]
pub fn faster_gelu_v2<T: GeluElement, const HIGH_PRECISION: bool, const HIGH_PERFORMANCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    gelu_class::<T, HIGH_PRECISION, HIGH_PERFORMANCE>(Kind::FasterV2, dst, src, shared_tmp_buffer, count);
}

/// [`faster_gelu_v2`] with the stack buffer as scratch (AscendC `FasterGeluV2<T,
/// highPrecision, highPerformance>(dstLocal, srcLocal, dataSize)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 16 * 2);
/// let (x, y) = (q.get_with_offset::<f16>(16, 0), q.get_with_offset::<f16>(16, 32));
/// x.copy_from_slice(&[f16::from_f32(-4.0); 16]);
/// faster_gelu_v2_stack::<_, true, false>(&y, &x, 16);
/// assert_eq!(y.get_value(3), f16::ZERO);
/// ```
///
/// # Panics
/// As [`faster_gelu_v2`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn faster_gelu_v2_stack<T: GeluElement, const HIGH_PRECISION: bool, const HIGH_PERFORMANCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    faster_gelu_v2::<T, HIGH_PRECISION, HIGH_PERFORMANCE>(dst, src, &stack("FasterGeluV2"), count);
}

/// The scratch bytes `Gelu`, `FasterGelu` and `FasterGeluV2` need for `input_size` elements of
/// `type_size` bytes: `(max, min)` (AscendC's host-side `GetGeluMaxMinTmpSize(srcShape, typeSize,
/// maxValue, minValue)`): at most `max(3 × 4 × input_size, 768)`, at least 768.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_gelu_max_min_tmp_size(1024, 2), (12288, 768));
/// assert_eq!(get_gelu_max_min_tmp_size(16, 4), (768, 768));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0 or `type_size` is neither 2 nor 4 (the vendor's host checks).
#[track_caller]
pub fn get_gelu_max_min_tmp_size(input_size: usize, type_size: usize) -> (usize, usize) {
    host_checks("GetGeluMaxMinTmpSize", input_size, type_size);
    ((3 * input_size * 4).max(MIN_TMP), MIN_TMP)
}

/// The minimum of [`get_gelu_max_min_tmp_size`] (AscendC's host-side
/// `GetGeluMinTmpSize(srcShape, typeSize)`): 768 bytes.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_gelu_min_tmp_size(32, 4), 768);
/// ```
///
/// # Panics
/// As [`get_gelu_max_min_tmp_size`].
#[track_caller]
pub fn get_gelu_min_tmp_size(input_size: usize, type_size: usize) -> usize {
    host_checks("GetGeluMinTmpSize", input_size, type_size);
    MIN_TMP
}

/// The maximum of [`get_gelu_max_min_tmp_size`] (AscendC's host-side
/// `GetGeluMaxTmpSize(srcShape, typeSize)`): `max(3 × 4 × input_size, 768)` bytes.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_gelu_max_tmp_size(1024, 4), 12288);
/// ```
///
/// # Panics
/// As [`get_gelu_max_min_tmp_size`].
#[track_caller]
pub fn get_gelu_max_tmp_size(input_size: usize, type_size: usize) -> usize {
    host_checks("GetGeluMaxTmpSize", input_size, type_size);
    (3 * input_size * 4).max(MIN_TMP)
}
