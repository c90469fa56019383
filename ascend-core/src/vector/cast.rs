//! `Cast`: element type conversion with a rounding mode (AscendC `Cast`, `RoundMode`).
//!
//! Supported `(src, dst, mode)` triples per chip follow the vendor's `Cast` tables, checked
//! against each chip's implementation (a triple the implementation rejects is unsupported
//! even where a table lists it: `float → int64_t` on Ascend910 and Ascend310P; a triple it
//! dispatches to a dedicated instruction is supported even where a table omits it:
//! `float → int32_t` on the same chips). See [`CastFrom`] and the support guide's matrix
//! (`docs/support.md`).
//!
//! Rounding, as the vendor's precision conversion rules define it:
//! - `CastRint`: to nearest, ties to even; `CastRound`: to nearest, ties away from zero;
//!   `CastFloor`/`CastCeil`: towards −∞/+∞; `CastTrunc`: towards zero; `CastOdd`: if
//!   inexact, to the neighbour whose last mantissa bit is 1 (round to odd);
//! - `CastNone`: no rounding when the conversion is exact, `CastRint` otherwise.
//!
//! Out-of-range values saturate: to an integer type, the value is clamped to the type's range,
//! ±inf gives its MIN/MAX and NaN gives 0 (the vendor's saturation rules; the non-saturating
//! integer mode exists only on newer chips). To `half` or `bfloat16_t`, the core's overflow
//! mode ([`get_overflow_mode`], the control bit `CTRL[48]` that the vendor applies to float
//! conversions into half/bfloat16_t as to half arithmetic) decides: in
//! [`OverflowMode::Saturation`] a result beyond the finite range (±inf included) becomes ±MAX
//! and NaN becomes 0; in [`OverflowMode::InfNan`] the result is IEEE 754's for the rounding
//! mode (overflow gives ±inf when rounding to nearest, ±MAX when rounding towards zero, …),
//! and NaN stays NaN (its payload is not specified). A zero result keeps the sign of the
//! source (`-0.3` truncated is `-0.0`). Widening conversions are exact.
//!
//! ```
//! use ascend_core::prelude::*;
//! let mut pipe = TPipe::new();
//! let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
//! pipe.init_tbuf(&mut a, 256);
//! pipe.init_tbuf(&mut b, 256);
//! let (x, y) = (a.get::<f32>(), b.get::<i32>());
//! x.copy_from_slice(&[2.5; 64]);
//! x.set_value(1, -2.5);
//! cast(&y, &x, RoundMode::CastRint, 64);
//! assert_eq!(y.to_vec()[..2], [2, -2]);
//! cast(&y, &x, RoundMode::CastRound, 64);
//! assert_eq!(y.to_vec()[..2], [3, -3]);
//! ```

use core::marker::PhantomData;

use crate::element::{bf16, f16, DType, Element, Int4b, TensorType};
use crate::kernel::ctx::{get_overflow_mode, get_soc};
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::soc::{OverflowMode, Soc};
use crate::vector::engine::{apply_count_mixed, apply_mixed, MixedLanes, Operand};
use crate::vector::mask::{resolve, Mask, Plan};
use crate::vector::params::UnaryRepeatParams;

const API: &str = "Cast";

/// The rounding of a conversion (AscendC `RoundMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RoundMode {
    /// `CAST_NONE`: exact conversions do not round; lossy ones round as [`RoundMode::CastRint`].
    CastNone,
    /// `CAST_RINT`: to nearest, ties to even.
    CastRint,
    /// `CAST_FLOOR`: towards −∞.
    CastFloor,
    /// `CAST_CEIL`: towards +∞.
    CastCeil,
    /// `CAST_ROUND`: to nearest, ties away from zero.
    CastRound,
    /// `CAST_TRUNC`: towards zero.
    CastTrunc,
    /// `CAST_ODD`: round to odd (an inexact result takes the neighbour with an odd last bit).
    CastOdd,
}

impl RoundMode {
    /// Every mode, in AscendC's order.
    pub const ALL: [RoundMode; 7] = [
        RoundMode::CastNone,
        RoundMode::CastRint,
        RoundMode::CastFloor,
        RoundMode::CastCeil,
        RoundMode::CastRound,
        RoundMode::CastTrunc,
        RoundMode::CastOdd,
    ];

    /// The AscendC spelling (`CAST_RINT`, …).
    pub const fn name(self) -> &'static str {
        match self {
            RoundMode::CastNone => "CAST_NONE",
            RoundMode::CastRint => "CAST_RINT",
            RoundMode::CastFloor => "CAST_FLOOR",
            RoundMode::CastCeil => "CAST_CEIL",
            RoundMode::CastRound => "CAST_ROUND",
            RoundMode::CastTrunc => "CAST_TRUNC",
            RoundMode::CastOdd => "CAST_ODD",
        }
    }

    const fn bit(self) -> u8 {
        1 << self as u8
    }
}

impl core::fmt::Display for RoundMode {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "RoundMode::{}", self.name())
    }
}

// ---------------------------------------------------------------------------------------
// Exact values and rounding
// ---------------------------------------------------------------------------------------

/// A lane value, exactly: NaN, ±inf, or `(-1)^neg * m * 2^e`.
#[derive(Clone, Copy, Debug)]
enum Val {
    Nan,
    Inf(bool),
    Fin { neg: bool, m: u128, e: i32 },
}

/// `m >> sh` rounded by `mode` (`CastNone` is never passed here).
#[inline(always)]
fn shr_round(m: u128, sh: u32, neg: bool, mode: RoundMode) -> u128 {
    if sh == 0 {
        return m;
    }
    let sh = sh.min(127);
    let n = m >> sh;
    let rem = m & ((1u128 << sh) - 1);
    let half = 1u128 << (sh - 1);
    let up = match mode {
        RoundMode::CastNone | RoundMode::CastRint => rem > half || (rem == half && n & 1 == 1),
        RoundMode::CastRound => rem >= half,
        RoundMode::CastFloor => neg && rem != 0,
        RoundMode::CastCeil => !neg && rem != 0,
        RoundMode::CastTrunc => false,
        RoundMode::CastOdd => return n | (rem != 0) as u128,
    };
    n + up as u128
}

/// A binary floating-point format: `E` exponent bits, `M` stored mantissa bits.
trait FloatFmt: Element {
    const E: u32;
    const M: u32;
    fn to_raw(self) -> u32;
    fn from_raw(b: u32) -> Self;

    #[inline(always)]
    fn bias() -> i32 {
        (1 << (Self::E - 1)) - 1
    }

    #[inline(always)]
    fn decode(self) -> Val {
        let b = self.to_raw();
        let neg = b >> (Self::E + Self::M) & 1 == 1;
        let exp = (b >> Self::M) & ((1 << Self::E) - 1);
        let man = b & ((1 << Self::M) - 1);
        let m = man as u128;
        if exp == (1 << Self::E) - 1 {
            return if man != 0 { Val::Nan } else { Val::Inf(neg) };
        }
        if exp == 0 {
            Val::Fin { neg, m, e: 1 - Self::bias() - Self::M as i32 }
        } else {
            Val::Fin { neg, m: m | 1 << Self::M, e: exp as i32 - Self::bias() - Self::M as i32 }
        }
    }

    /// Rounds `v` into the format; `sat` applies the saturation rule.
    #[inline(always)]
    fn encode(v: Val, mode: RoundMode, sat: bool) -> Self {
        let sign_bit = 1u32 << (Self::E + Self::M);
        let inf = ((1u32 << Self::E) - 1) << Self::M;
        let max = inf - 1;
        let (neg, m, e) = match v {
            Val::Nan => return Self::from_raw(if sat { 0 } else { inf | 1 << (Self::M - 1) }),
            Val::Inf(neg) => return Self::from_raw((neg as u32 * sign_bit) | if sat { max } else { inf }),
            Val::Fin { neg, m, e } => (neg, m, e),
        };
        let sign = neg as u32 * sign_bit;
        if m == 0 {
            return Self::from_raw(sign);
        }
        let emin = 1 - Self::bias();
        let ev = 127 - m.leading_zeros() as i32 + e;
        let mut q = ev.max(emin) - Self::M as i32;
        let mut n = if q <= e { m << (e - q) as u32 } else { shr_round(m, (q - e) as u32, neg, mode) };
        if n == 0 {
            return Self::from_raw(sign);
        }
        if n >> (Self::M + 1) != 0 {
            n >>= 1;
            q += 1;
        }
        let biased = if n < 1 << Self::M { 0 } else { q + Self::M as i32 + Self::bias() };
        if biased >= (1 << Self::E) - 1 {
            let to_max = sat
                || match mode {
                    RoundMode::CastTrunc | RoundMode::CastOdd => true,
                    RoundMode::CastFloor => !neg,
                    RoundMode::CastCeil => neg,
                    _ => false,
                };
            return Self::from_raw(sign | if to_max { max } else { inf });
        }
        Self::from_raw(sign | (biased as u32) << Self::M | (n as u32 & ((1 << Self::M) - 1)))
    }
}

impl FloatFmt for f16 {
    const E: u32 = 5;
    const M: u32 = 10;
    #[inline(always)]
    fn to_raw(self) -> u32 {
        self.to_bits() as u32
    }
    #[inline(always)]
    fn from_raw(b: u32) -> Self {
        f16::from_bits(b as u16)
    }
}
impl FloatFmt for bf16 {
    const E: u32 = 8;
    const M: u32 = 7;
    #[inline(always)]
    fn to_raw(self) -> u32 {
        self.to_bits() as u32
    }
    #[inline(always)]
    fn from_raw(b: u32) -> Self {
        bf16::from_bits(b as u16)
    }
}
impl FloatFmt for f32 {
    const E: u32 = 8;
    const M: u32 = 23;
    #[inline(always)]
    fn to_raw(self) -> u32 {
        self.to_bits()
    }
    #[inline(always)]
    fn from_raw(b: u32) -> Self {
        f32::from_bits(b)
    }
}

/// Integer lane types: exact decode, rounding-and-saturating encode.
trait IntFmt: Element {
    fn to_i128(self) -> i128;
    fn from_i128(v: i128) -> Self;
    const LO: i128;
    const HI: i128;

    #[inline(always)]
    fn decode(self) -> Val {
        let v = self.to_i128();
        Val::Fin { neg: v < 0, m: v.unsigned_abs(), e: 0 }
    }

    #[inline(always)]
    fn encode(v: Val, mode: RoundMode) -> Self {
        let r = match v {
            Val::Nan => 0,
            Val::Inf(neg) => {
                if neg {
                    Self::LO
                } else {
                    Self::HI
                }
            }
            Val::Fin { neg, m, e } => {
                // Float sources have m < 2^24, so a shift by at most 64 fits; beyond, the
                // value saturates anyway.
                let mag = if e >= 0 {
                    if e > 64 {
                        1u128 << 100
                    } else {
                        m << e as u32
                    }
                } else {
                    shr_round(m, (-e) as u32, neg, mode)
                };
                let mag = mag.min(1 << 100) as i128;
                if neg {
                    -mag
                } else {
                    mag
                }
            }
        };
        Self::from_i128(r.clamp(Self::LO, Self::HI))
    }
}

macro_rules! int_fmt {
    ($($t:ty),*) => {$(
        impl IntFmt for $t {
            const LO: i128 = <$t>::MIN as i128;
            const HI: i128 = <$t>::MAX as i128;
            #[inline(always)]
            fn to_i128(self) -> i128 { self as i128 }
            #[inline(always)]
            fn from_i128(v: i128) -> Self { v as $t }
        }
    )*};
}
int_fmt!(u8, i8, i16, i32, i64);

// ---------------------------------------------------------------------------------------
// Conversions per kind
// ---------------------------------------------------------------------------------------

/// How one pair converts a run of lanes.
///
/// # Safety (of `run`)
/// `dst` is valid for `n` writes and `src` for `n` reads; they are equal (same size) or do
/// not overlap.
trait Conv<D: Element, S: Element> {
    unsafe fn run(dst: *mut D, src: *const S, n: usize, mode: RoundMode, sat: bool);
}

/// Element-by-element through an exact value; reads lane `i` before writing lane `i`.
///
/// # Safety
/// As [`Conv::run`].
#[inline(always)]
unsafe fn each<D: Element, S: Element>(dst: *mut D, src: *const S, n: usize, f: impl Fn(S) -> D) {
    for i in 0..n {
        // SAFETY: i < n (caller's contract); the read precedes the write of the same lane.
        unsafe { dst.add(i).write(f(src.add(i).read())) };
    }
}

/// Float to float (narrowing rounds; widening is exact).
struct FloatToFloat;
/// Float to integer: round by mode, saturate, NaN → 0.
struct FloatToInt;
/// Integer to float: round by mode.
struct IntToFloat;
/// Integer to integer: saturate.
struct IntToInt;
/// `float → float`: round to an integral value, keep the format.
struct RoundIntegral;

impl<D: FloatFmt, S: FloatFmt> Conv<D, S> for FloatToFloat {
    #[inline(always)]
    unsafe fn run(dst: *mut D, src: *const S, n: usize, mode: RoundMode, sat: bool) {
        // Bulk fast paths: f16 ⇄ f32 with F16C where the rounding is to nearest-even.
        if S::DTYPE == DType::F16 && D::DTYPE == DType::F32 {
            // SAFETY: the pointers reinterpreted as their real types (checked by DTYPE);
            // different element sizes never coincide, so the buffers are disjoint.
            unsafe { crate::f16conv::widen(src.cast::<f16>(), dst.cast::<f32>(), n) };
            return;
        }
        if S::DTYPE == DType::F32
            && D::DTYPE == DType::F16
            && matches!(mode, RoundMode::CastNone | RoundMode::CastRint)
        {
            // SAFETY: forwarded contract; the types are the real ones (checked by DTYPE).
            unsafe { narrow_f16_rint(dst.cast::<f16>(), src.cast::<f32>(), n, sat) };
            return;
        }
        if S::DTYPE == DType::BF16 && D::DTYPE == DType::F32 {
            // SAFETY: forwarded contract.
            unsafe { each(dst.cast::<f32>(), src.cast::<u16>(), n, |b| f32::from_bits((b as u32) << 16)) };
            return;
        }
        // SAFETY: forwarded contract.
        unsafe { each(dst, src, n, |x| D::encode(x.decode(), mode, sat)) }
    }
}

/// `f32 → f16` rounding to nearest-even in bulk with `crate::f16conv` (F16C where the host
/// has it); in saturation mode the values are clamped first (NaN → 0, beyond ±65504 →
/// ±65504), which gives the same bits as saturating the rounded result.
///
/// # Safety
/// As [`Conv::run`] (`dst` and `src` cannot coincide: their sizes differ).
#[inline(always)]
unsafe fn narrow_f16_rint(dst: *mut f16, src: *const f32, n: usize, sat: bool) {
    if !sat {
        // SAFETY: forwarded contract; the buffers do not overlap.
        unsafe { crate::f16conv::narrow(src, dst, n) };
        return;
    }
    const CHUNK: usize = 512;
    let mut buf = [0f32; CHUNK];
    let mut done = 0;
    while done < n {
        let len = CHUNK.min(n - done);
        // SAFETY: src is valid for n reads; the stack buffer holds CHUNK >= len values.
        let xs = unsafe { core::slice::from_raw_parts(src.add(done), len) };
        for (b, &x) in buf.iter_mut().zip(xs) {
            *b = crate::vector::binary::saturate(x);
        }
        // SAFETY: dst is valid for n writes; the buffer is a distinct stack array.
        unsafe { crate::f16conv::narrow(buf.as_ptr(), dst.add(done), len) };
        done += len;
    }
}

impl<D: IntFmt, S: FloatFmt> Conv<D, S> for FloatToInt {
    #[inline(always)]
    unsafe fn run(dst: *mut D, src: *const S, n: usize, mode: RoundMode, _sat: bool) {
        // SAFETY: forwarded contract.
        unsafe { each(dst, src, n, |x| D::encode(x.decode(), mode)) }
    }
}

impl<D: FloatFmt, S: IntFmt> Conv<D, S> for IntToFloat {
    #[inline(always)]
    unsafe fn run(dst: *mut D, src: *const S, n: usize, mode: RoundMode, sat: bool) {
        // SAFETY: forwarded contract.
        unsafe { each(dst, src, n, |x| D::encode(x.decode(), mode, sat)) }
    }
}

impl<D: IntFmt, S: IntFmt> Conv<D, S> for IntToInt {
    #[inline(always)]
    unsafe fn run(dst: *mut D, src: *const S, n: usize, _mode: RoundMode, _sat: bool) {
        // SAFETY: forwarded contract.
        unsafe { each(dst, src, n, |x| D::from_i128(x.to_i128().clamp(D::LO, D::HI))) }
    }
}

impl Conv<f32, f32> for RoundIntegral {
    #[inline(always)]
    unsafe fn run(dst: *mut f32, src: *const f32, n: usize, mode: RoundMode, _sat: bool) {
        // SAFETY: forwarded contract.
        unsafe {
            each(dst, src, n, |x| match x.decode() {
                Val::Fin { neg, m, e } if e < 0 => {
                    let r = shr_round(m, (-e) as u32, neg, mode) as f32;
                    if neg {
                        -r
                    } else {
                        r
                    }
                }
                _ => x,
            })
        }
    }
}

// ---------------------------------------------------------------------------------------
// The supported pairs
// ---------------------------------------------------------------------------------------

mod sealed {
    pub trait CastSealed<S> {}
    pub trait DstSealed<S> {}
}

/// Modes as bit sets, per chip.
const N: u8 = RoundMode::CastNone.bit();
const R: u8 = RoundMode::CastRint.bit();
const F: u8 = RoundMode::CastFloor.bit();
const C: u8 = RoundMode::CastCeil.bit();
const A: u8 = RoundMode::CastRound.bit();
const Z: u8 = RoundMode::CastTrunc.bit();
const O: u8 = RoundMode::CastOdd.bit();
const RFCAZ: u8 = R | F | C | A | Z;
/// Every mode: the mode has no effect (`int32_t → half` through the `DEQSCALE` register).
const ANY: u8 = N | RFCAZ | O;

/// `Self` can be the destination of a `Cast` from `S` on at least one chip. Implemented for
/// exactly the pairs of the vendor's tables (the `int4b_t` pairs excepted); which rounding
/// modes a chip accepts is a run-time check naming the chip and the triple. `int32_t → half`
/// on Ascend910B and Ascend310P is the dequantisation through the `DEQSCALE` register
/// ([`set_deq_scale`](crate::vector::dequant::set_deq_scale)), which takes every mode and
/// ignores it (the vendor: "roundMode does not take effect").
///
/// A pair no chip supports does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(d: &LocalTensor<u8>, s: &LocalTensor<f32>) { cast(d, s, RoundMode::CastRint, 64); }
/// ```
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(d: &LocalTensor<bf16>, s: &LocalTensor<f16>) { cast(d, s, RoundMode::CastRint, 64); }
/// ```
pub trait CastFrom<S: Element>: Element + sealed::CastSealed<S> {
    /// The wider of the two types: the mask and the repeat count its lanes.
    #[doc(hidden)]
    type Wide: Element;
    /// The modes each chip accepts for this pair, as bit sets indexed by `RoundMode as u8`
    /// (order: Ascend910, Ascend910B, Ascend310P, Ascend310B).
    #[doc(hidden)]
    const MODES: [u8; 4];
    /// Converts `n` lanes.
    ///
    /// # Safety
    /// `dst` is valid for `n` writes and `src` for `n` reads; they are equal (same size) or
    /// do not overlap.
    #[doc(hidden)]
    unsafe fn cast_run(dst: *mut Self, src: *const S, n: usize, mode: RoundMode, sat: bool);

    /// Whether `soc` supports this pair with `mode`.
    fn cast_supported(soc: Soc, mode: RoundMode) -> bool {
        let i = match soc {
            Soc::Ascend910 => 0,
            Soc::Ascend910B => 1,
            Soc::Ascend310P => 2,
            Soc::Ascend310B => 3,
        };
        Self::MODES[i] & mode.bit() != 0
    }
}

macro_rules! cast_pairs {
    ($($s:ty => $d:ty, $wide:ty, $kind:ty, [$m910:expr, $m910b:expr, $m310p:expr, $m310b:expr]);* $(;)?) => {$(
        impl sealed::CastSealed<$s> for $d {}
        impl CastFrom<$s> for $d {
            type Wide = $wide;
            const MODES: [u8; 4] = [$m910, $m910b, $m310p, $m310b];
            #[inline(always)]
            unsafe fn cast_run(dst: *mut Self, src: *const $s, n: usize, mode: RoundMode, sat: bool) {
                // SAFETY: forwarded contract.
                unsafe { <$kind as Conv<$d, $s>>::run(dst, src, n, mode, sat) }
            }
        }
    )*};
}

// (src => dst, wider type, conversion, [Ascend910, Ascend910B, Ascend310P, Ascend310B])
cast_pairs! {
    f16 => f32, f32, FloatToFloat, [N, N, N, N];
    f32 => f16, f32, FloatToFloat, [O | N, RFCAZ | O | N, O | N, RFCAZ | O | N];
    f32 => bf16, f32, FloatToFloat, [0, RFCAZ, 0, RFCAZ];
    bf16 => f32, f32, FloatToFloat, [0, N, 0, N];
    f32 => f32, f32, RoundIntegral, [0, RFCAZ, 0, RFCAZ];
    f16 => i8, f16, FloatToInt, [F | C | A | Z | N, RFCAZ | N, F | C | A | Z | N, RFCAZ | N];
    f16 => u8, f16, FloatToInt, [F | C | A | Z | N, RFCAZ | N, F | C | A | Z | N, RFCAZ | N];
    f16 => i16, f16, FloatToInt, [0, RFCAZ, R, RFCAZ];
    f16 => i32, i32, FloatToInt, [RFCAZ, RFCAZ, RFCAZ, RFCAZ];
    bf16 => i32, i32, FloatToInt, [0, RFCAZ, 0, RFCAZ];
    f32 => i16, f32, FloatToInt, [0, RFCAZ, 0, RFCAZ];
    f32 => i32, f32, FloatToInt, [RFCAZ, RFCAZ, RFCAZ, RFCAZ];
    f32 => i64, i64, FloatToInt, [0, RFCAZ, 0, RFCAZ];
    i8 => f16, f16, IntToFloat, [N, N, N, N];
    u8 => f16, f16, IntToFloat, [N, N, N, N];
    i16 => f16, f16, IntToFloat, [N, RFCAZ | N, N, RFCAZ | N];
    i16 => f32, f32, IntToFloat, [0, N, 0, N];
    i32 => f32, f32, IntToFloat, [N, RFCAZ | N, N, RFCAZ | N];
    i32 => f16, i32, IntToFloat, [0, ANY, ANY, N];
    i64 => f32, i64, IntToFloat, [0, RFCAZ, 0, RFCAZ];
    i32 => i16, i32, IntToInt, [0, N, N, N];
    i32 => i64, i64, IntToInt, [0, N, 0, N];
    i64 => i32, i64, IntToInt, [0, N, 0, N];
}

// ---------------------------------------------------------------------------------------
// The API
// ---------------------------------------------------------------------------------------

/// The engine kernel: one pair, with the mode and saturation fixed for the call; `deq` is
/// the `DEQSCALE` register's scale when the pair is the dequantising `int32_t → half`.
struct CastKernel<D, S> {
    mode: RoundMode,
    sat: bool,
    deq: Option<f32>,
    _p: PhantomData<(D, S)>,
}

impl<D: CastFrom<S>, S: Element> MixedLanes<D, S> for CastKernel<D, S> {
    #[inline(always)]
    unsafe fn run(&mut self, dst: *mut D, [src]: [*const S; 1], n: usize) {
        // The pair test is on constants: every other pair's kernel has no branch here.
        let deq = if S::DTYPE == DType::I32 && D::DTYPE == DType::F16 { self.deq } else { None };
        if let Some(scale) = deq {
            // SAFETY: `deq` is set only for S = int32_t and D = half (checked by DTYPE in
            // `prologue`), so the casts are to the real types; the engine's contract (different
            // sizes: no overlap) is `deq_to_half`'s.
            unsafe {
                crate::vector::dequant::deq_to_half::<1, false>(
                    dst.cast::<f16>(),
                    [src.cast::<i32>()],
                    n,
                    scale,
                    self.sat,
                )
            };
            return;
        }
        // SAFETY: the engine's contract is the kernel's.
        unsafe { D::cast_run(dst, src, n, self.mode, self.sat) }
    }

    const NARROW_IN_PLACE: bool = true;
}

/// Checks the triple against the chip; returns the call's kernel.
#[track_caller]
fn prologue<D: CastFrom<S>, S: Element>(mode: RoundMode) -> CastKernel<D, S> {
    let soc = get_soc();
    ensure(D::cast_supported(soc, mode), API, || {
        let ok: Vec<&str> =
            RoundMode::ALL.iter().filter(|m| D::cast_supported(soc, **m)).map(|m| m.name()).collect();
        format!(
            "{} -> {} with {} is not supported on {soc} ({}); supported modes there: {}",
            S::DTYPE,
            D::DTYPE,
            mode.name(),
            soc.product_line(),
            if ok.is_empty() { "none".to_string() } else { ok.join(", ") }
        )
    });
    let sat = matches!(D::DTYPE, DType::F16 | DType::BF16) && get_overflow_mode() == OverflowMode::Saturation;
    // Not a closure: the register check must report the kernel's call site.
    let deq = if S::DTYPE == DType::I32
        && D::DTYPE == DType::F16
        && matches!(soc, Soc::Ascend910B | Soc::Ascend310P)
    {
        Some(crate::vector::dequant::half_scale(API))
    } else {
        None
    };
    CastKernel { mode, sat, deq, _p: PhantomData }
}

/// `Self` can be the destination of a [`cast`] from `S`: every [`CastFrom`] pair, and the
/// `int4b_t` pairs `half → int4b_t` and `int4b_t → half` ([`Int4b`]). Which modes a chip
/// accepts is a run-time check naming the chip and the triple.
///
/// The `int4b_t` pairs, as the vendor's `Cast` tables and implementations have them
/// (`impl/basic_api/dav_c220/kernel_operator_vec_vconv_impl.h`,
/// `impl/basic_api/dav_m200/kernel_operator_vec_vconv_impl.h`):
/// - Ascend910B: `half → int4b_t` with `CAST_NONE`, `CAST_RINT`, `CAST_FLOOR`, `CAST_CEIL`,
///   `CAST_ROUND`, `CAST_TRUNC` (`CAST_ODD` is the implementation's assert);
///   `int4b_t → half` with `CAST_NONE`;
/// - Ascend310P: `half → int4b_t` with `CAST_NONE` only; no `int4b_t → half`;
/// - Ascend910 and Ascend310B: neither.
///
/// `half → int4b_t` rounds by the mode (`CAST_NONE` as `CAST_RINT`, as for the other
/// narrowing casts) and saturates to `-8..=7`; ±inf gives −8/7 and NaN 0, the saturation rule
/// of every float-to-integer `Cast` here. The mask and the repeat count `half` lanes (128 per
/// repeat); the page's rules for `int4b_t` (约束说明): the count and a continuous mask must be
/// even, and in a bit mask bits `2k` and `2k + 1` must be equal (a byte holds two lanes).
/// Strides count 32-byte blocks of each operand, so a repeat of 128 lanes spans 8 blocks of
/// `half` and 2 of `int4b_t` (`{1, 1, 2, 8}` for `half → int4b_t`, `{1, 1, 8, 2}` back).
pub trait CastDst<S: TensorType>: TensorType + sealed::DstSealed<S> {
    /// Whether `soc` supports this pair with `mode`.
    fn cast_dst_supported(soc: Soc, mode: RoundMode) -> bool;
    /// The count form.
    #[doc(hidden)]
    #[track_caller]
    fn cast_count(dst: &LocalTensor<Self>, src: &LocalTensor<S>, mode: RoundMode, count: usize);
    /// The high-dimensional form.
    #[doc(hidden)]
    #[track_caller]
    fn cast_repeat<const IS_SET_MASK: bool>(
        dst: &LocalTensor<Self>,
        src: &LocalTensor<S>,
        mode: RoundMode,
        mask: Mask,
        repeat_times: u8,
        repeat_params: &UnaryRepeatParams,
    );
}

impl<D: CastFrom<S>, S: Element> sealed::DstSealed<S> for D {}
impl<D: CastFrom<S>, S: Element> CastDst<S> for D {
    fn cast_dst_supported(soc: Soc, mode: RoundMode) -> bool {
        <D as CastFrom<S>>::cast_supported(soc, mode)
    }

    #[track_caller]
    fn cast_count(dst: &LocalTensor<D>, src: &LocalTensor<S>, mode: RoundMode, count: usize) {
        let mut k = prologue::<D, S>(mode);
        apply_count_mixed(API, count, dst, [(src, "src")], &mut k);
    }

    #[track_caller]
    fn cast_repeat<const IS_SET_MASK: bool>(
        dst: &LocalTensor<D>,
        src: &LocalTensor<S>,
        mode: RoundMode,
        mask: Mask,
        repeat_times: u8,
        repeat_params: &UnaryRepeatParams,
    ) {
        let mut k = prologue::<D, S>(mode);
        let Some(plan) = resolve::<D::Wide, IS_SET_MASK>(API, mask, repeat_times as usize) else {
            return;
        };
        let p = repeat_params;
        let d = Operand::new(dst, p.dst_blk_stride, p.dst_rep_stride, "dst");
        let s = Operand::new(src, p.src_blk_stride, p.src_rep_stride, "src");
        apply_mixed::<D::Wide, D, S, 1, _>(API, &plan, &d, [&s], &mut k);
    }
}

/// `dst[i] = src[i]` converted with `round_mode`, for `i in 0..count` (AscendC
/// `Cast(dst, src, roundMode, count)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 512);
/// pipe.init_tbuf(&mut b, 256);
/// let (x, h) = (a.get::<f32>(), b.get::<f16>());
/// x.copy_from_slice(&[1.0 + 1.0 / 4096.0; 128]);
/// cast(&h, &x, RoundMode::CastCeil, 128);
/// assert_eq!(h.get_value(0), f16::from_f32(1.0 + 1.0 / 1024.0));
/// cast(&h, &x, RoundMode::CastNone, 128); // lossy: to nearest-even
/// assert_eq!(h.get_value(0), f16::ONE);
/// ```
///
/// # Panics
/// Panics if the chip does not support `(S, D, round_mode)`, if an operand is not a 32-byte
/// aligned VECIN/VECOUT/VECCALC tensor or holds fewer than `count` elements, or if `dst` and
/// `src` overlap other than completely with the same element size or in place from a wider
/// type (`dst` at `src`'s address, narrower: each repeat reads before it writes, as the vendor's
/// `AscendQuant` relies on; the Cast page warns only against widening in place).
#[track_caller]
pub fn cast<D: CastDst<S>, S: TensorType>(
    dst: &LocalTensor<D>,
    src: &LocalTensor<S>,
    round_mode: RoundMode,
    count: usize,
) {
    D::cast_count(dst, src, round_mode, count);
}

/// High-dimensional `Cast` (AscendC `Cast<T, U, isSetMask>(dst, src, roundMode, mask,
/// repeatTime, repeatParams)`, continuous and bit-mask forms).
///
/// The mask and the repeat count lanes of the wider of the two types (64 lanes per repeat
/// when either is 32-bit): lane `j` of repeat `r` reads `src`'s element at its own block and
/// repeat strides and writes `dst`'s at its own, so for `f16 → f32` a contiguous walk is
/// `UnaryRepeatParams::new(1, 1, 8, 4)`. Disabled lanes keep their old values. Counter mode,
/// `IS_SET_MASK` and `MASK_PLACEHOLDER` work as for every vector instruction.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 512);
/// pipe.init_tbuf(&mut b, 1024);
/// let (h, x) = (a.get::<f16>(), b.get::<f32>());
/// h.copy_from_slice(&[f16::from_f32(1.5); 256]);
/// // 4 repeats of 64 lanes: dst advances 8 blocks, src 4 blocks per repeat.
/// cast_masked::<f32, f16, true>(&x, &h, RoundMode::CastNone, 64u64, 4, &UnaryRepeatParams::new(1, 1, 8, 4));
/// assert!(x.to_vec().iter().all(|&v| v == 1.5));
/// ```
///
/// # Panics
/// Panics as [`cast`] (in place from a wider type, also if a repeat writes a block a later
/// repeat reads), and if the mask is out of range for the wider type or breaks the
/// `IS_SET_MASK`/`MASK_PLACEHOLDER` rule, or a touched element lies outside its tensor.
#[track_caller]
pub fn cast_masked<D: CastDst<S>, S: TensorType, const IS_SET_MASK: bool>(
    dst: &LocalTensor<D>,
    src: &LocalTensor<S>,
    round_mode: RoundMode,
    mask: impl Into<Mask>,
    repeat_times: u8,
    repeat_params: &UnaryRepeatParams,
) {
    D::cast_repeat::<IS_SET_MASK>(dst, src, round_mode, mask.into(), repeat_times, repeat_params);
}

// ---------------------------------------------------------------------------------------
// int4b_t
// ---------------------------------------------------------------------------------------

/// `half → int4b_t` modes per chip (Ascend910, Ascend910B, Ascend310P, Ascend310B).
const F16_TO_INT4: [u8; 4] = [0, RFCAZ | N, N, 0];
/// `int4b_t → half` modes per chip.
const INT4_TO_F16: [u8; 4] = [0, N, 0, 0];

fn soc_index(soc: Soc) -> usize {
    match soc {
        Soc::Ascend910 => 0,
        Soc::Ascend910B => 1,
        Soc::Ascend310P => 2,
        Soc::Ascend310B => 3,
    }
}

/// Fails unless `soc` supports `src → dst` with `mode` under the mode table `modes`.
#[track_caller]
fn check_modes(modes: [u8; 4], src: &str, dst: &str, mode: RoundMode) {
    let soc = get_soc();
    let ok = |m: RoundMode| modes[soc_index(soc)] & m.bit() != 0;
    ensure(ok(mode), API, || {
        let list: Vec<&str> = RoundMode::ALL.iter().filter(|m| ok(**m)).map(|m| m.name()).collect();
        format!(
            "{src} -> {dst} with {} is not supported on {soc} ({}); supported modes there: {}",
            mode.name(),
            soc.product_line(),
            if list.is_empty() { "none".to_string() } else { list.join(", ") }
        )
    });
}

/// One `half` rounded by `mode` and saturated to `-8..=7`, as a nibble.
#[inline(always)]
fn int4_nibble(x: f16, mode: RoundMode) -> u8 {
    (<i8 as IntFmt>::encode(x.decode(), mode).clamp(-8, 7) as u8) & 0xF
}

/// `half → int4b_t` on lane pairs: two `half` (read as one 4-byte unit) into one byte.
struct HalfToInt4(RoundMode);

impl MixedLanes<u8, u32> for HalfToInt4 {
    #[inline(always)]
    unsafe fn run(&mut self, dst: *mut u8, [src]: [*const u32; 1], n: usize) {
        for i in 0..n {
            // SAFETY: i < n (the engine's contract); the read precedes the write.
            let b = unsafe { src.add(i).read() }.to_ne_bytes();
            let lo = int4_nibble(f16::from_bits(u16::from_ne_bytes([b[0], b[1]])), self.0);
            let hi = int4_nibble(f16::from_bits(u16::from_ne_bytes([b[2], b[3]])), self.0);
            // SAFETY: as above.
            unsafe { dst.add(i).write(lo | hi << 4) };
        }
    }

    const NARROW_IN_PLACE: bool = true;
}

/// `int4b_t → half` on lane pairs: one byte into two `half` (written as one 4-byte unit).
struct Int4ToHalf;

impl MixedLanes<u32, u8> for Int4ToHalf {
    #[inline(always)]
    unsafe fn run(&mut self, dst: *mut u32, [src]: [*const u8; 1], n: usize) {
        for i in 0..n {
            // SAFETY: i < n (the engine's contract); the read precedes the write.
            let b = unsafe { src.add(i).read() };
            let h = |v: Int4b| f16::from_f32(f32::from(v.value())).to_bits().to_ne_bytes();
            let (lo, hi) = (h(Int4b::from_nibble(b)), h(Int4b::from_nibble(b >> 4)));
            // SAFETY: as above.
            unsafe { dst.add(i).write(u32::from_ne_bytes([lo[0], lo[1], hi[0], hi[1]])) };
        }
    }
}

/// Checks the count form's operands in `int4b_t`/`half` elements (the engine then runs on
/// lane pairs, whose bounds follow).
#[track_caller]
fn check_int4_count<D: TensorType, S: TensorType>(dst: &LocalTensor<D>, src: &LocalTensor<S>, count: usize) {
    dst.check_vector_operand(API, "dst");
    src.check_vector_operand(API, "src");
    ensure(count % 2 == 0, API, || {
        format!("count = {count} is odd: with int4b_t the count must be even (two elements per byte)")
    });
    ensure(count <= dst.get_size(), API, || {
        format!("count = {count} exceeds dst's {} elements", dst.get_size())
    });
    ensure(count <= src.get_size(), API, || {
        format!("count = {count} exceeds src's {} elements", src.get_size())
    });
}

/// The plan of a high-dimensional `int4b_t` cast, in lane pairs: the `half`-lane plan, whose
/// lanes must come in pairs (the page's rule), folded two lanes to one.
#[track_caller]
fn int4_plan<const IS_SET_MASK: bool>(mask: Mask, repeat_times: u8) -> Option<Plan> {
    let plan = resolve::<f16, IS_SET_MASK>(API, mask, repeat_times as usize)?;
    const EVEN: u64 = 0x5555_5555_5555_5555;
    let paired = |m: [u64; 2]| m.iter().all(|w| (w & EVEN) << 1 == w & !EVEN);
    ensure(paired(plan.bits) && paired(plan.last), API, || {
        format!(
            "mask = {mask:?} (lanes {:#x?}) enables lanes singly: with int4b_t the lanes come in pairs (a continuous \
             mask or counter-mode count must be even, and bits 2k and 2k + 1 of a bit mask equal)",
            plan.mask_of(plan.repeats - 1)
        )
    });
    let fold = |m: [u64; 2]| {
        let mut out = 0u64;
        for k in 0..64 {
            let bit = 2 * k;
            if m[bit / 64] >> (bit % 64) & 1 == 1 {
                out |= 1 << k;
            }
        }
        [out, 0]
    };
    Some(Plan { repeats: plan.repeats, bits: fold(plan.bits), last: fold(plan.last) })
}

impl sealed::DstSealed<f16> for Int4b {}
impl CastDst<f16> for Int4b {
    fn cast_dst_supported(soc: Soc, mode: RoundMode) -> bool {
        F16_TO_INT4[soc_index(soc)] & mode.bit() != 0
    }

    #[track_caller]
    fn cast_count(dst: &LocalTensor<Int4b>, src: &LocalTensor<f16>, mode: RoundMode, count: usize) {
        check_modes(F16_TO_INT4, "half", "int4b_t", mode);
        check_int4_count(dst, src, count);
        let (d, s) = (dst.reinterpret_cast::<u8>(), src.reinterpret_cast::<u32>());
        apply_count_mixed(API, count / 2, &d, [(&s, "src")], &mut HalfToInt4(mode));
    }

    #[track_caller]
    fn cast_repeat<const IS_SET_MASK: bool>(
        dst: &LocalTensor<Int4b>,
        src: &LocalTensor<f16>,
        mode: RoundMode,
        mask: Mask,
        repeat_times: u8,
        p: &UnaryRepeatParams,
    ) {
        check_modes(F16_TO_INT4, "half", "int4b_t", mode);
        dst.check_vector_operand(API, "dst");
        src.check_vector_operand(API, "src");
        let Some(plan) = int4_plan::<IS_SET_MASK>(mask, repeat_times) else {
            return;
        };
        let (dv, sv) = (dst.reinterpret_cast::<u8>(), src.reinterpret_cast::<u32>());
        let d = Operand::new(
            &dv,
            p.dst_blk_stride,
            p.dst_rep_stride,
            "dst (int4b_t, counted in bytes: element pairs)",
        );
        let s = Operand::new(&sv, p.src_blk_stride, p.src_rep_stride, "src (half, counted in element pairs)");
        apply_mixed::<u32, u8, u32, 1, _>(API, &plan, &d, [&s], &mut HalfToInt4(mode));
    }
}

impl sealed::DstSealed<Int4b> for f16 {}
impl CastDst<Int4b> for f16 {
    fn cast_dst_supported(soc: Soc, mode: RoundMode) -> bool {
        INT4_TO_F16[soc_index(soc)] & mode.bit() != 0
    }

    #[track_caller]
    fn cast_count(dst: &LocalTensor<f16>, src: &LocalTensor<Int4b>, mode: RoundMode, count: usize) {
        check_modes(INT4_TO_F16, "int4b_t", "half", mode);
        check_int4_count(dst, src, count);
        let (d, s) = (dst.reinterpret_cast::<u32>(), src.reinterpret_cast::<u8>());
        apply_count_mixed(API, count / 2, &d, [(&s, "src")], &mut Int4ToHalf);
    }

    #[track_caller]
    fn cast_repeat<const IS_SET_MASK: bool>(
        dst: &LocalTensor<f16>,
        src: &LocalTensor<Int4b>,
        mode: RoundMode,
        mask: Mask,
        repeat_times: u8,
        p: &UnaryRepeatParams,
    ) {
        check_modes(INT4_TO_F16, "int4b_t", "half", mode);
        dst.check_vector_operand(API, "dst");
        src.check_vector_operand(API, "src");
        let Some(plan) = int4_plan::<IS_SET_MASK>(mask, repeat_times) else {
            return;
        };
        let (dv, sv) = (dst.reinterpret_cast::<u32>(), src.reinterpret_cast::<u8>());
        let d = Operand::new(&dv, p.dst_blk_stride, p.dst_rep_stride, "dst (half, counted in element pairs)");
        let s = Operand::new(
            &sv,
            p.src_blk_stride,
            p.src_rep_stride,
            "src (int4b_t, counted in bytes: element pairs)",
        );
        apply_mixed::<u32, u32, u8, 1, _>(API, &plan, &d, [&s], &mut Int4ToHalf);
    }
}

// `Cast` has no bool row (see `Bool8`).
static_assertions::assert_not_impl_any!(crate::element::f16: CastDst<crate::element::Bool8>);
