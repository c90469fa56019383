//! The advanced API's trigonometric functions (`adv/math_trig.rs`): `Sin`, `Cos`, `Tan`,
//! `Asin`, `Acos` and `Atan`, against scalar references that restate the vendor's steps one
//! instruction at a time with each one's rounding — `f32` arithmetic rounded to nearest-even,
//! the rounding of `k` with Rust's `round`/`round_ties_even`/`floor` (Ascend910B) or through
//! `int32_t` (`as i32`, saturating; Ascend310P), `half` widened exactly and the result narrowed
//! to nearest-even (saturated in saturation mode), `half` arithmetic rounded once from the
//! exact result — for both types on both supported chips, counts that leave tails, scratch
//! sizes that force several rounds, `IS_REUSE_SOURCE`, the stack form, and every `half` input
//! in each page's range; bit for bit, with the scratch's last round and the mask state
//! afterwards. Then an accuracy sanity check against `f64`, the host tiling, and the errors.

// The references restate the vendor's literals and steps as written, one rounding per line.
#![allow(
    clippy::excessive_precision,
    clippy::approx_constant,
    clippy::assign_op_pattern,
    clippy::manual_clamp,
    clippy::neg_multiply
)]

use ascend_core::prelude::*;

use crate::common::util;
use util::{adv_io, assert_bits_ctx, expect_panic, on, ub, AdvIo, Rng};

const CHIPS: [Soc; 2] = [Soc::Ascend910B, Soc::Ascend310P];

#[derive(Clone, Copy, Debug, PartialEq)]
enum Api {
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
}

const APIS: [Api; 6] = [Api::Sin, Api::Cos, Api::Tan, Api::Asin, Api::Acos, Api::Atan];

// ---- the references ------------------------------------------------------------------------

/// The element types, with the conversions the references need.
trait Fp:
    Element + SinElement + CosElement + TanElement + AsinElement + AcosElement + AtanElement + std::fmt::Debug
{
    fn to32(self) -> f32;
    /// `float → T` with `CAST_NONE` (to nearest-even; identity for `float`).
    fn from32(x: f32) -> Self {
        Self::from32_sat(x, false)
    }
    /// `float → T` with `CAST_NONE`; for `half` in saturation mode when `sat` (NaN → 0,
    /// clamped to ±65504).
    fn from32_sat(x: f32, sat: bool) -> Self;
    fn random(rng: &mut Rng) -> Self;
    fn from_bits64(b: u64) -> Self;
}

impl Fp for f32 {
    fn to32(self) -> f32 {
        self
    }
    fn from32_sat(x: f32, _sat: bool) -> f32 {
        x
    }
    fn random(rng: &mut Rng) -> f32 {
        f32::from_bits(rng.next() as u32)
    }
    fn from_bits64(b: u64) -> f32 {
        f32::from_bits(b as u32)
    }
}

impl Fp for f16 {
    fn to32(self) -> f32 {
        self.to_f32()
    }
    fn from32_sat(x: f32, sat: bool) -> f16 {
        f16::from_f32(if !sat {
            x
        } else if x.is_nan() {
            0.0
        } else {
            x.clamp(-65504.0, 65504.0)
        })
    }
    fn random(rng: &mut Rng) -> f16 {
        f16::from_bits(rng.next() as u16)
    }
    fn from_bits64(b: u64) -> f16 {
        f16::from_bits(b as u16)
    }
}

/// The rounding modes the vendor's `Cast`s use here.
#[derive(Clone, Copy)]
pub(crate) enum Mode {
    /// `CAST_ROUND`: to nearest, ties away from zero.
    Away,
    /// `CAST_RINT`: to nearest, ties to even.
    Even,
    /// `CAST_FLOOR`.
    Floor,
}

/// `x` rounded to an integral float as the chip's `SinCast`/`CosCast` do.
pub(crate) fn integral(soc: Soc, x: f32, mode: Mode) -> f32 {
    let r = match mode {
        Mode::Away => x.round(),
        Mode::Even => x.round_ties_even(),
        Mode::Floor => x.floor(),
    };
    if soc == Soc::Ascend310P {
        r as i32 as f32
    } else {
        r
    }
}

/// The vendor's float constants (its `double` literals rounded to float).
const INV_PI: f64 = 0.3183098733425140380859375;
const PI_PARTS: [f64; 5] = [
    3.140625,
    0.0009670257568359375,
    6.2771141529083251953125e-7,
    1.21644916362129151821136474609375e-10,
    -1.0290623200529979163359041220560e-13,
];
const COEF: [f64; 4] = [2.604926501e-6, -0.0001980894471, 0.008333049340, -0.1666665792];

/// One element of `Sin` or `Cos` in float: `(result, the round tensor's last value (x₀·P),
/// x₀², x₀)`.
pub(crate) fn r_sin_cos(cos: bool, soc: Soc, x: f32) -> [f32; 4] {
    let f = |v: f64| v as f32;
    let mut k = x * f(INV_PI);
    k = if cos { integral(soc, k + 0.5, Mode::Even) } else { integral(soc, k, Mode::Away) };
    let mut x0 = x - k * f(PI_PARTS[0]);
    x0 = x0 - k * f(PI_PARTS[1]);
    if cos {
        x0 = x0 + f(1.57079637050628662109375);
    }
    x0 = x0 - k * f(PI_PARTS[2]);
    x0 = x0 - k * f(PI_PARTS[3]);
    if cos {
        x0 = x0 - k * f(PI_PARTS[4]);
        x0 = x0 + f(-0.00000004371139000189375);
    }
    let x2 = x0 * x0;
    let sign = integral(soc, k * 0.5, Mode::Floor) * 4.0 + k * -2.0 + 1.0;
    let mut p = x2 * f(COEF[0]) + f(COEF[1]);
    p = p * x2 + f(COEF[2]);
    p = p * x2 + f(COEF[3]);
    p = p * x2 + 1.0;
    let p = p * x0;
    let mut r = p * sign;
    if cos {
        r = r.min(1.0).max(-1.0);
    }
    [r, p, x2, x0]
}

/// The vendor's Taylor expansion of atan to `level` terms, Horner's scheme in `u²`.
fn taylor(u: f32, level: usize) -> f32 {
    let c = [
        1.0,
        -0.3333333333333333_f64 as f32,
        0.2,
        -0.14285714285714285_f64 as f32,
        0.1111111111111111_f64 as f32,
        -0.09090909090909091_f64 as f32,
        0.07692307692307693_f64 as f32,
    ];
    let sq = u * u;
    let mut d = u * u * c[level];
    for &ci in c[1..level].iter().rev() {
        d = (d + ci) * sq;
    }
    (d + c[0]) * u
}

/// One element of `Atan` in float: `(result, clip, |clip|, sign, sign's denominator, the last
/// square)`.
fn r_atan(x: f32) -> [f32; 6] {
    let pi4 = 0.78539816339744830961566084581988_f64 as f32;
    let pi8 = 0.39269908169872415480783042290994_f64 as f32;
    let t8 = 0.4142135623730950_f64 as f32;
    let c = x.min(10000.0).max(-10000.0);
    let a = c.abs();
    let transform = |v: f32| ((v + -t8) / (v * t8 + 1.0)).abs();
    let mut d = taylor(a, 4);
    d = d.min(taylor(transform(a), 4) + pi8);
    let b = ((a + -1.0) / (a + 1.0)).abs();
    d = d.min(taylor(b, 4) + pi4);
    let u = transform(b);
    d = d.min(taylor(u, 6) + pi8 + pi4);
    let s = c * 4611686018427387904.0;
    let den = s.abs() + 2.168404344971009e-19_f64 as f32;
    let sign = s / den;
    [d * sign, c, a, sign, den, u * u]
}

/// One element of `Tan` in float: `(result, the last product k·π₄, the denominator, x₀ + π/2,
/// x₀ − π/2, x₀)`.
pub(crate) fn r_tan(soc: Soc, x: f32) -> [f32; 6] {
    let f = |v: f64| v as f32;
    let k = integral(soc, x * f(INV_PI), Mode::Even);
    let mut x0 = x + 0.0;
    x0 = x0 - k * f(PI_PARTS[0]);
    x0 = x0 - k * f(PI_PARTS[1]);
    let half_pi = f(1.57079637050628662109375);
    let (mut d1, mut d2) = (x0 + half_pi, x0 + -half_pi);
    let p2 = k * f(PI_PARTS[2]);
    x0 = x0 - p2;
    d1 = d1 - p2 + f(-0.00000004371139000189375);
    d2 = d2 - p2 + f(0.00000004371139000189375);
    let mut p = 0.0;
    for part in [PI_PARTS[3], -1.0291767438275201129727065563201904296875e-13] {
        p = k * f(part);
        x0 = x0 - p;
        d1 = d1 - p;
        d2 = d2 - p;
    }
    let x2 = x0 * x0;
    let num = ((x2 * f(0.0698520831551998762793) + f(-6.8711573651634203789)) * x2
        + f(61.20362572811089435388))
        * x0;
    let den = (x2 + f(-24.8048928861126769186219)) * d1 * d2;
    [num / den, p, den, d1, d2, x0]
}

/// The vendor's asin constants: π/2, √½ and the Taylor coefficients (`kCOEF`).
const HALF_PI: f64 = 1.5707963267948966192313216916398;
const BOUNDARY: f64 = 0.70710678118654752440084436210485;
const ASIN_COEF: [f64; 8] = [
    1.0,
    0.16666666666666666666666666666667,
    0.075,
    0.04464285714285714285714285714286,
    0.03038194444444444444444444444444,
    0.02237215909090909090909090909091,
    0.01735276442307692307692307692308,
    0.01396484375,
];

/// The expansion from `sq = x²` in float (`AsinTaylorComputeBySquareValue`): `(t, √sq)`.
fn asin_by_square(sq: f32) -> (f32, f32) {
    let mut d = sq * 1.0;
    d = d * ASIN_COEF[7] as f32;
    for &c in ASIN_COEF[1..7].iter().rev() {
        d = d + c as f32;
        d = d * sq;
    }
    d = d + ASIN_COEF[0] as f32;
    let r = sq.sqrt();
    (d * r, r)
}

/// One element of `Asin` (`acos`: `Acos`) for float: `(result, den, sign)` — the scratch's
/// first two tensors at the end.
fn r_asin_f32(acos: bool, x: f32) -> [f32; 3] {
    let f = |v: f64| v as f32;
    let mut t2 = x * x;
    t2 = t2 * -1.0;
    t2 = t2 + 1.0;
    let d = t2.sqrt();
    // AsinTaylorCompute(t2, d, t1) in float.
    let sq = d * d;
    let mut t = d * d * f(ASIN_COEF[7]);
    for &c in ASIN_COEF[1..7].iter().rev() {
        t = (t + f(c)) * sq;
    }
    t = (t + f(ASIN_COEF[0])) * d;
    t2 = t * -1.0 + f(HALF_PI);
    let (mut dd, mut t1) = asin_by_square(x * x);
    t1 = t1.min(f(BOUNDARY)) + -f(BOUNDARY);
    t1 = t1.floor() as i32 as f32;
    t1 = t1 * -1.0;
    dd = dd * t1;
    t1 = t1 * -1.0 + 1.0;
    t2 = t2 * t1;
    dd = dd + t2;
    let s = x * 4611686018427387904.0;
    let den = s.abs() + f(2.168404344971009e-19);
    let sign = s / den;
    dd = dd * sign;
    if acos {
        dd = (dd + -f(HALF_PI)) * -1.0;
    }
    [dd, den, sign]
}

/// One `half` operation's result: the exact value rounded once (saturated in saturation mode).
fn h(v: f64, sat: bool) -> f16 {
    f16::from_f64(if sat && v.is_nan() {
        0.0
    } else if sat {
        v.clamp(-65504.0, 65504.0)
    } else {
        v
    })
}

/// One element of `Asin` (`acos`: `Acos`) for half: `(result, the float result in the
/// scratch, sign as half, its denominator as half)`.
fn r_asin_f16(acos: bool, x: f16, sat: bool) -> (f16, f32, f16, f16) {
    let w = |v: f16| v.to_f64();
    let c = |v: f64| f16::from_f32(v as f32);
    // π/2 − taylor(√(1 − x²)) in float.
    let mut f2 = x.to_f32();
    f2 = f2 * f2;
    f2 = f2 * -1.0;
    f2 = f2 + 1.0;
    let mut f1 = asin_by_square(f2).0;
    f1 = f1 * -1.0 + HALF_PI as f32;
    // taylor(|x|) in half.
    let a = f16::from_bits(x.to_bits() & 0x7FFF);
    let sq = h(w(a) * w(a), sat);
    let mut d = h(w(sq) * w(c(ASIN_COEF[7])), sat);
    for &k in ASIN_COEF[1..7].iter().rev() {
        d = h(w(d) + w(c(k)), sat);
        d = h(w(d) * w(sq), sat);
    }
    d = h(w(d) + w(c(ASIN_COEF[0])), sat);
    d = h(w(d) * w(a), sat);
    // The choices.
    let mut h2 = if w(a) < w(c(BOUNDARY)) { a } else { c(BOUNDARY) };
    h2 = h(w(h2) + w(c(-BOUNDARY)), sat);
    h2 = f16::from_f64(h2.to_f64().floor() as i8 as f64);
    h2 = h(w(h2) * -1.0, sat);
    d = h(w(d) * w(h2), sat);
    h2 = h(w(h2) * -1.0, sat);
    h2 = h(w(h2) + 1.0, sat);
    f1 = f1 * h2.to_f32();
    f1 = d.to_f32() + f1;
    // sign(x) in half.
    let s = h(w(x) * 32768.0, sat);
    let den = h(w(s).abs() + w(c(3.0517578125e-05)), sat);
    let sign = h(w(s) / w(den), sat);
    f1 = f1 * sign.to_f32();
    if acos {
        f1 = (f1 + -(HALF_PI as f32)) * -1.0;
    }
    (h(f1 as f64, sat), f1, sign, den)
}

/// `api` of one element on `soc`, rounded to `T`.
fn reference<T: Fp>(api: Api, soc: Soc, x: T) -> T {
    let sat = get_overflow_mode() == OverflowMode::Saturation;
    if matches!(api, Api::Asin | Api::Acos) {
        let acos = api == Api::Acos;
        return if T::SIZE == 2 {
            T::from_bits64(u64::from(r_asin_f16(acos, f16::from_f32(x.to32()), sat).0.to_bits()))
        } else {
            T::from32(r_asin_f32(acos, x.to32())[0])
        };
    }
    let r = match api {
        Api::Sin => r_sin_cos(false, soc, x.to32())[0],
        Api::Cos => r_sin_cos(true, soc, x.to32())[0],
        Api::Tan => r_tan(soc, x.to32())[0],
        Api::Atan => r_atan(x.to32())[0],
        Api::Asin | Api::Acos => unreachable!(),
    };
    T::from32_sat(r, sat)
}

/// Random inputs: values near multiples of π/2 and of 1, moderate and large values, random
/// bits; finite and, but for `Atan`, in `[-65504, 65504]` (the page's range for `Sin`/`Cos`);
/// for `Asin`/`Acos` in the page's `[-1, 1]`.
fn inputs<T: Fp>(api: Api, rng: &mut Rng, n: usize) -> Vec<T> {
    if matches!(api, Api::Asin | Api::Acos) {
        return asin_inputs(rng, n);
    }
    let edges = [0.0, 1.0, 0.5, 1e-30, 1e-45, 0.41421357, 2.4142137, 10000.0, 10001.0, 65504.0, 3e38];
    (0..n)
        .map(|_| loop {
            let v = match rng.below(5) {
                0 => T::from_f64(edges[rng.index(edges.len())] * if rng.chance(2) { -1.0 } else { 1.0 }),
                1 => {
                    let k = rng.range(0, 2000) as f64 - 1000.0;
                    let y = T::from_f64(k * std::f64::consts::FRAC_PI_2);
                    T::from_bits64(y.to_bits_u64().wrapping_add(rng.range(0, 2)).wrapping_sub(1))
                }
                2 => T::from_f64((rng.next() as f64 / u64::MAX as f64 - 0.5) * 20.0),
                3 => T::from_f64((rng.next() as f64 / u64::MAX as f64 - 0.5) * 131000.0),
                _ => T::random(rng),
            };
            let f = v.to32();
            let limit = if api == Api::Atan { f32::INFINITY } else { 65504.0 };
            if !f.is_nan() && f.abs() <= limit {
                break v;
            }
        })
        .collect()
}

/// Inputs in `[-1, 1]`: edges (±1, 0, √½ and its neighbours, tiny values), uniform values and
/// random bits.
fn asin_inputs<T: Fp>(rng: &mut Rng, n: usize) -> Vec<T> {
    let b = T::from_f64(BOUNDARY);
    let edges = [
        T::from_f64(0.0),
        T::from_f64(1.0),
        T::from_bits64(T::from_f64(1.0).to_bits_u64() - 1),
        b,
        T::from_bits64(b.to_bits_u64() + 1),
        T::from_bits64(b.to_bits_u64() - 1),
        T::from_f64(BOUNDARY as f32 as f64),
        T::from_f64(1e-30),
        T::from_f64(6e-8),
        T::from_f64(0.5),
    ];
    (0..n)
        .map(|_| loop {
            let v = match rng.below(3) {
                0 => edges[rng.index(edges.len())],
                1 => T::from_f64(rng.next() as f64 / u64::MAX as f64),
                _ => T::random(rng),
            };
            let v =
                if rng.chance(2) { T::from_bits64(v.to_bits_u64() ^ (1 << (T::SIZE * 8 - 1))) } else { v };
            if v.to32().abs() <= 1.0 {
                break v;
            }
        })
        .collect()
}

fn call<T: Fp, const R: bool>(
    api: Api,
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: Option<&LocalTensor<u8>>,
    n: usize,
) {
    match (api, tmp) {
        (Api::Sin, Some(t)) => sin::<T, R>(dst, src, t, n),
        (Api::Sin, None) => sin_stack::<T, R>(dst, src, n),
        (Api::Cos, Some(t)) => cos::<T, R>(dst, src, t, n),
        (Api::Cos, None) => cos_stack::<T, R>(dst, src, n),
        (Api::Tan, Some(t)) => tan::<T, R>(dst, src, t, n),
        (Api::Tan, None) => tan_stack::<T, R>(dst, src, n),
        (Api::Asin, Some(t)) => asin::<T, R>(dst, src, t, n),
        (Api::Asin, None) => asin_stack::<T, R>(dst, src, n),
        (Api::Acos, Some(t)) => acos::<T, R>(dst, src, t, n),
        (Api::Acos, None) => acos_stack::<T, R>(dst, src, n),
        (Api::Atan, Some(t)) => atan::<T, R>(dst, src, t, n),
        (Api::Atan, None) => atan_stack::<T, R>(dst, src, n),
    }
}

/// The `float` tensors of the scratch per round element (Tan, Asin, Acos: `T` elements).
fn procedure(api: Api, half: bool, reuse: bool) -> usize {
    match (api, half, reuse) {
        (Api::Asin | Api::Acos, true, _) => 6,
        (Api::Asin | Api::Acos, false, _) => 4,
        (Api::Tan, true, _) => 10,
        (Api::Tan, false, _) => 4,
        (Api::Atan, true, _) => 6,
        (Api::Atan, false, _) => 5,
        (_, true, _) => 4,
        (_, false, false) => 3,
        (_, false, true) => 2,
    }
}

/// Runs `api` on `soc` over `count` random elements with `tmp_bytes` of scratch (or the stack
/// form), `IS_REUSE_SOURCE = R`; checks the result, the untouched tail of `dst`, `src`, the
/// scratch's last round and the mask state.
fn check<T: Fp, const R: bool>(api: Api, soc: Soc, count: usize, tmp_bytes: Option<usize>, seed: u64) {
    on(soc, || {
        let mut rng = Rng(seed);
        let cap = count + 40;
        let AdvIo { src, dst, tmp, .. } = &adv_io::<T>(cap, tmp_bytes.unwrap_or(0));
        let x: Vec<T> = inputs(api, &mut rng, cap);
        src.copy_from_slice(&x);
        let old: Vec<T> = inputs(api, &mut rng, cap);
        dst.copy_from_slice(&old);
        call::<T, R>(api, dst, src, tmp_bytes.map(|_| tmp), count);
        let ctx = format!("{api:?} {} on {soc}, count {count}, tmp {tmp_bytes:?}, reuse {R}", T::DTYPE);
        let mut want: Vec<T> = x[..count].iter().map(|&v| reference(api, soc, v)).collect();
        want.extend_from_slice(&old[count..]);
        assert_bits_ctx(&dst.to_vec(), &want, &ctx);
        let half = T::SIZE == 2;
        let reuse = R && !half && matches!(api, Api::Sin | Api::Cos);
        // src: untouched, or (Sin/Cos, float, IS_REUSE_SOURCE) the reduced x.
        let mut want_src = x.clone();
        if reuse {
            for v in &mut want_src[..count] {
                *v = T::from32(r_sin_cos(api == Api::Cos, soc, v.to32())[3]);
            }
        }
        assert_bits_ctx(&src.to_vec(), &want_src, format!("src; {ctx}"));
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
        assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{ctx}");
        // The scratch: the last round's intermediates.
        let Some(bytes) = tmp_bytes else { return };
        let unit = if matches!(api, Api::Tan | Api::Asin | Api::Acos) { T::SIZE } else { 4 };
        let split = bytes / unit / procedure(api, half, R) / 32 * 32;
        if count == 0 {
            return;
        }
        let off = if count % split != 0 { count / split * split } else { count - split };
        let last = &x[off..count];
        let n = last.len();
        // Tan's tail round lays its tensors out at the tail rounded up to 32.
        let stride = if api == Api::Tan && count % split != 0 { n.div_ceil(32) * 32 } else { split };
        let f = tmp.reinterpret_cast::<f32>().to_vec();
        let at = |k: usize| &f[k * stride..k * stride + n];
        let col = |steps: &[[f32; 6]], j: usize| -> Vec<f32> { steps.iter().map(|s| s[j]).collect() };
        if matches!(api, Api::Asin | Api::Acos) {
            let acos = api == Api::Acos;
            if half {
                // The float result, sign as float; then (in halves) sign and its denominator.
                let sat = get_overflow_mode() == OverflowMode::Saturation;
                let steps: Vec<_> =
                    last.iter().map(|v| r_asin_f16(acos, f16::from_f32(v.to32()), sat)).collect();
                let hv = tmp.reinterpret_cast::<f16>().to_vec();
                let f1: Vec<f32> = steps.iter().map(|s| s.1).collect();
                let f2: Vec<f32> = steps.iter().map(|s| s.2.to_f32()).collect();
                let sign: Vec<f16> = steps.iter().map(|s| s.2).collect();
                let den: Vec<f16> = steps.iter().map(|s| s.3).collect();
                assert_bits_ctx(at(0), &f1, format!("scratch's float result; {ctx}"));
                assert_bits_ctx(at(1), &f2, format!("scratch's float sign; {ctx}"));
                assert_bits_ctx(&hv[4 * split..4 * split + n], &sign, format!("scratch's half sign; {ctx}"));
                assert_bits_ctx(&hv[5 * split..5 * split + n], &den, format!("scratch's denominator; {ctx}"));
            } else {
                let steps: Vec<[f32; 6]> = last
                    .iter()
                    .map(|v| {
                        let r = r_asin_f32(acos, v.to32());
                        [r[0], r[1], r[2], 0.0, 0.0, 0.0]
                    })
                    .collect();
                assert_bits_ctx(at(0), &col(&steps, 1), format!("scratch's denominator; {ctx}"));
                assert_bits_ctx(at(1), &col(&steps, 2), format!("scratch's sign; {ctx}"));
            }
            return;
        }
        if api == Api::Tan {
            // float: the denominator, x₀ ± π/2, x₀ (dst held the products); half: the result,
            // x₀, the denominator, x₀ ± π/2.
            let steps: Vec<[f32; 6]> = last.iter().map(|v| r_tan(soc, v.to32())).collect();
            let order: &[(usize, &str)] = if half {
                &[(0, "result"), (5, "x₀"), (2, "denominator"), (3, "x₀ + π/2"), (4, "x₀ − π/2")]
            } else {
                &[(2, "denominator"), (3, "x₀ + π/2"), (4, "x₀ − π/2"), (5, "x₀")]
            };
            for (k, &(j, what)) in order.iter().enumerate() {
                assert_bits_ctx(at(k), &col(&steps, j), format!("scratch's {what}; {ctx}"));
            }
            return;
        }
        if api == Api::Atan {
            let steps: Vec<[f32; 6]> = last.iter().map(|v| r_atan(v.to32())).collect();
            for (k, j, what) in
                [(0, 3, "sign"), (1, 1, "clip"), (2, 2, "|x|"), (3, 4, "denominator"), (4, 5, "square")]
            {
                assert_bits_ctx(at(k), &col(&steps, j), format!("scratch's {what}; {ctx}"));
            }
            if half {
                assert_bits_ctx(at(5), &col(&steps, 0), format!("scratch's conversion; {ctx}"));
            }
            return;
        }
        let steps: Vec<[f32; 6]> = last
            .iter()
            .map(|v| {
                let s = r_sin_cos(api == Api::Cos, soc, v.to32());
                [s[0], s[1], s[2], s[3], 0.0, 0.0]
            })
            .collect();
        // float: round (x₀·P), x₀², [x₀]; half: the result, then those three.
        let first = usize::from(half);
        if half {
            assert_bits_ctx(at(0), &col(&steps, 0), format!("scratch's conversion; {ctx}"));
        }
        assert_bits_ctx(at(first), &col(&steps, 1), format!("scratch's round tensor; {ctx}"));
        assert_bits_ctx(at(first + 1), &col(&steps, 2), format!("scratch's x²; {ctx}"));
        if !reuse {
            assert_bits_ctx(at(first + 2), &col(&steps, 3), format!("scratch's x₀; {ctx}"));
        }
    });
}

/// Every function and chip for `T`: counts with tails, scratch sizes from the minimum up
/// (several rounds), one not a multiple of 32, the stack form, and `IS_REUSE_SOURCE`.
fn sweep<T: Fp>(seed: u64) {
    let mut s = seed;
    for api in APIS {
        for soc in CHIPS {
            for count in [0usize, 1, 37, 64, 200, 1000] {
                for tmp in [Some(768usize), Some(1000), Some(2048), Some(8192), None] {
                    s += 1;
                    check::<T, false>(api, soc, count, tmp, s);
                }
                s += 1;
                check::<T, true>(api, soc, count, Some(1536), s);
            }
        }
    }
}

#[test]
fn every_function_half() {
    sweep::<f16>(1000);
}

#[test]
fn every_function_float() {
    sweep::<f32>(2000);
}

#[test]
fn every_half_input() {
    // All finite halves (and the infinities for Atan; for Asin/Acos those in [-1, 1]) once, on
    // both chips.
    for api in APIS {
        for soc in CHIPS {
            on(soc, || {
                let xs: Vec<f16> = (0..=u16::MAX)
                    .map(f16::from_bits)
                    .filter(|v| match api {
                        Api::Atan => !v.is_nan(),
                        Api::Asin | Api::Acos => v.to_f32().abs() <= 1.0,
                        _ => v.is_finite(),
                    })
                    .collect();
                let n = 8192;
                let u = ub(2 * n * 2 + 24 * 1024);
                let (src, dst, tmp) = (u.t::<f16>(0, n), u.t::<f16>(2 * n, n), u.t::<u8>(4 * n, 24 * 1024));
                for xs in xs.chunks(n) {
                    let n = xs.len();
                    src.view_len(0, n).copy_from_slice(xs);
                    call::<f16, false>(api, &dst, &src, Some(&tmp), n);
                    let want: Vec<f16> = xs.iter().map(|&v| reference(api, soc, v)).collect();
                    assert_bits_ctx(&dst.to_vec()[..n], &want, format!("{api:?} on {soc}"));
                }
            });
        }
    }
}

#[test]
fn rounding_of_k_per_chip_and_ties() {
    // Beyond 2^31·π the int32_t step saturates k on Ascend310P; Ascend910B keeps it.
    let x = 1.0e10f32;
    let (b, p) = (r_sin_cos(false, Soc::Ascend910B, x), r_sin_cos(false, Soc::Ascend310P, x));
    assert_ne!(b[3].to_bits(), p[3].to_bits());
    for soc in CHIPS {
        check_one(Api::Sin, soc, x);
        check_one(Api::Cos, soc, x);
        check_one(Api::Tan, soc, x);
    }
    // Ties: Sin rounds x/π away from zero, Cos x/π + 1/2 and Tan x/π to even. Inputs whose
    // product with the float 1/π is exactly a tie:
    let tie = |t: f32| -> f32 {
        let x0 = t / INV_PI as f32;
        (-64i32..64)
            .map(|d| f32::from_bits((x0.to_bits() as i32 + d) as u32))
            .find(|&x| x * INV_PI as f32 == t)
            .expect("an input on the tie")
    };
    for soc in CHIPS {
        for t in [2.5f32, 1.5, -2.5, 2.0, -3.0] {
            let x = tie(t);
            for api in [Api::Sin, Api::Cos, Api::Tan] {
                check_one(api, soc, x);
            }
        }
        // x/π = 2.5: k = round(2.5) = 3 for Sin (x₀ ≈ −π/2), rint(2.5) = 2 for Tan (x₀ ≈ π/2).
        let x = tie(2.5);
        assert!(r_sin_cos(false, soc, x)[3] < 0.0 && r_tan(soc, x)[5] > 0.0);
    }
    // Tan copies its float source with Adds(0): tan(-0) is +0.
    check_one(Api::Tan, Soc::Ascend910B, -0.0);
    assert_eq!(r_tan(Soc::Ascend910B, -0.0)[0].to_bits(), 0);
}

/// `api` of the float `x` on `soc` (64 copies) equals the reference.
fn check_one(api: Api, soc: Soc, x: f32) {
    on(soc, || {
        let u = ub(3 * 256 + 2048);
        let (s, d, t) = (u.t::<f32>(0, 64), u.t::<f32>(256, 64), u.t::<u8>(512, 2048));
        s.copy_from_slice(&[x; 64]);
        call::<f32, false>(api, &d, &s, Some(&t), 64);
        assert_eq!(d.get_value(63).to_bits(), reference(api, soc, x).to_bits(), "{api:?}({x}) on {soc}");
    });
}

// ---- accuracy ------------------------------------------------------------------------------

#[test]
fn accuracy_against_f64() {
    // Within a few float ulps of the f64 functions for moderate inputs (absolute below 1,
    // relative above); the vendor's page's example for half.
    for soc in CHIPS {
        on(soc, || {
            let n = 4096;
            let u = ub(3 * n * 4 + 64 * 1024);
            let (s, d, t) = (u.t::<f32>(0, n), u.t::<f32>(4 * n, n), u.t::<u8>(8 * n, 64 * 1024));
            let xs: Vec<f32> = (0..n).map(|i| (i as f32 - n as f32 / 2.0) * 0.0123).collect();
            s.copy_from_slice(&xs);
            for (api, f, tol) in [
                (Api::Sin, f64::sin as fn(f64) -> f64, 4e-7),
                (Api::Cos, f64::cos, 4e-7),
                (Api::Tan, f64::tan, 2e-6),
                (Api::Atan, f64::atan, 1e-5),
            ] {
                call::<f32, false>(api, &d, &s, Some(&t), n);
                for (i, (&x, &y)) in xs.iter().zip(&d.to_vec()).enumerate() {
                    let want = f(x as f64);
                    let e = (y as f64 - want).abs() / want.abs().max(1.0);
                    assert!(e <= tol, "{api:?}({x}) = {y}, off by {e} (element {i}) on {soc}");
                }
            }
            // Atan of large inputs: ±π/2 within the clip's 1e-4.
            s.copy_from_slice(&vec![1e30f32; n]);
            call::<f32, false>(Api::Atan, &d, &s, Some(&t), n);
            assert!((d.get_value(0) as f64 - std::f64::consts::FRAC_PI_2).abs() < 1.1e-4);
        });
    }
    // Asin and Acos on [-1, 1]: the degree-15 expansions near √½ leave up to ~6e-5.
    for soc in CHIPS {
        on(soc, || {
            let n = 4097;
            let u = ub(3 * 16448 + 64 * 1024);
            let (s, d, t) = (u.t::<f32>(0, n), u.t::<f32>(16448, n), u.t::<u8>(2 * 16448, 64 * 1024));
            let xs: Vec<f32> = (0..n).map(|i| (i as f32 - 2048.0) / 2048.0).collect();
            s.copy_from_slice(&xs);
            for (api, f) in [(Api::Asin, f64::asin as fn(f64) -> f64), (Api::Acos, f64::acos)] {
                call::<f32, false>(api, &d, &s, Some(&t), n);
                let worst = xs
                    .iter()
                    .zip(&d.to_vec())
                    .map(|(&x, &y)| (y as f64 - f(x as f64)).abs())
                    .fold(0.0, f64::max);
                assert!(worst < 1e-4, "{api:?} off by {worst} on {soc}");
                // Away from √½ the expansions are far more accurate.
                for (&x, &y) in xs.iter().zip(&d.to_vec()).filter(|(x, _)| x.abs() < 0.5 || x.abs() > 0.9) {
                    let e = (y as f64 - f(x as f64)).abs();
                    assert!(e < 2e-6, "{api:?}({x}) = {y}, off by {e} on {soc}");
                }
            }
        });
    }
    // The vendor's Sin page: sin(-2.56) = -0.54889839 in half.
    on(Soc::Ascend910B, || {
        let u = ub(3 * 256 + 2048);
        let (s, d, t) = (u.t::<f16>(0, 128), u.t::<f16>(256, 128), u.t::<u8>(512, 2048));
        s.copy_from_slice(&[f16::from_f32(-2.56); 128]);
        sin::<_, false>(&d, &s, &t, 128);
        assert!((d.get_value(0).to_f32() + 0.548_898_4).abs() < 5e-4);
    });
}

// ---- the host tiling -----------------------------------------------------------------------

#[test]
fn host_tiling() {
    assert_eq!(get_sin_max_min_tmp_size(1000, 2, false), (16000, 2048));
    assert_eq!(get_sin_max_min_tmp_size(1000, 4, false), (12000, 768));
    assert_eq!(get_sin_max_min_tmp_size(1000, 4, true), (8000, 512));
    assert_eq!(get_sin_max_min_tmp_size(10, 4, false), (768, 768));
    assert_eq!(get_cos_max_min_tmp_size(1000, 2, false), (16000, 2048));
    assert_eq!(get_cos_max_min_tmp_size(1000, 4, true), (8000, 512));
    assert_eq!(get_cos_max_min_tmp_size(1, 2, false), (2048, 2048));
    assert_eq!(get_tan_max_min_tmp_size(1000, 2, false), (20000, 2560));
    assert_eq!(get_tan_max_min_tmp_size(10, 4, false), (1024, 1024));
    assert_eq!(get_tan_tmp_buffer_factor_size(2), (10, 0));
    assert_eq!(get_tan_tmp_buffer_factor_size(4), (4, 0));
    assert_eq!(get_asin_max_min_tmp_size(1000, 2, false), (12000, 1536));
    assert_eq!(get_asin_max_min_tmp_size(1000, 4, false), (8000, 512));
    assert_eq!(get_acos_max_min_tmp_size(1000, 2, false), (12000, 1536));
    assert_eq!(get_acos_max_min_tmp_size(10, 4, false), (512, 512));
    assert_eq!(get_asin_tmp_buffer_factor_size(2), (6, 0));
    assert_eq!(get_asin_tmp_buffer_factor_size(4), (2, 0));
    assert_eq!(get_acos_tmp_buffer_factor_size(2), (6, 0));
    assert_eq!(get_acos_tmp_buffer_factor_size(4), (2, 0));
    assert_eq!(get_atan_max_min_tmp_size(1000, 2, false), (24000, 3072));
    assert_eq!(get_atan_max_min_tmp_size(1000, 4, true), (20000, 1280));
    assert_eq!(get_sin_tmp_buffer_factor_size(2), (8, 0));
    assert_eq!(get_sin_tmp_buffer_factor_size(4), (3, 0));
    assert_eq!(get_cos_tmp_buffer_factor_size(2), (8, 0));
    assert_eq!(get_cos_tmp_buffer_factor_size(4), (3, 0));
    assert_eq!(get_atan_tmp_buffer_factor_size(2), (12, 0));
    assert_eq!(get_atan_tmp_buffer_factor_size(4), (5, 0));
    for (f, name) in [
        (get_sin_max_min_tmp_size as fn(usize, usize, bool) -> (usize, usize), "GetSinMaxMinTmpSize"),
        (get_cos_max_min_tmp_size, "GetCosMaxMinTmpSize"),
        (get_tan_max_min_tmp_size, "GetTanMaxMinTmpSize"),
        (get_asin_max_min_tmp_size, "GetAsinMaxMinTmpSize"),
        (get_acos_max_min_tmp_size, "GetAcosMaxMinTmpSize"),
        (get_atan_max_min_tmp_size, "GetAtanMaxMinTmpSize"),
    ] {
        expect_panic(
            || {
                let _ = f(0, 2, false);
            },
            &[name, "greater than 0"],
        );
        expect_panic(
            || {
                let _ = f(8, 8, false);
            },
            &[name, "typeSize = 8"],
        );
    }
    for f in [get_sin_max_min_tmp_size, get_cos_max_min_tmp_size] {
        expect_panic(
            || {
                let _ = f(8, 2, true);
            },
            &["isReuseSource is not supported"],
        );
    }
    for f in [
        get_sin_tmp_buffer_factor_size,
        get_cos_tmp_buffer_factor_size,
        get_tan_tmp_buffer_factor_size,
        get_asin_tmp_buffer_factor_size,
        get_acos_tmp_buffer_factor_size,
        get_atan_tmp_buffer_factor_size,
    ] {
        expect_panic(
            || {
                let _ = f(1);
            },
            &["typeSize = 1"],
        );
    }
    // The minimum is enough: every function runs with it.
    for soc in CHIPS {
        check::<f16, false>(Api::Sin, soc, 100, Some(get_sin_max_min_tmp_size(100, 2, false).1), 7);
        check::<f32, true>(Api::Sin, soc, 100, Some(get_sin_max_min_tmp_size(100, 4, true).1), 8);
        check::<f32, false>(Api::Cos, soc, 100, Some(get_cos_max_min_tmp_size(100, 4, false).1), 9);
        check::<f16, false>(Api::Tan, soc, 100, Some(get_tan_max_min_tmp_size(100, 2, false).1), 12);
        check::<f32, false>(Api::Tan, soc, 100, Some(get_tan_max_min_tmp_size(100, 4, false).1), 13);
        check::<f16, false>(Api::Asin, soc, 100, Some(get_asin_max_min_tmp_size(100, 2, false).1), 14);
        check::<f32, false>(Api::Asin, soc, 100, Some(get_asin_max_min_tmp_size(100, 4, false).1), 15);
        check::<f16, false>(Api::Acos, soc, 100, Some(get_acos_max_min_tmp_size(100, 2, false).1), 16);
        check::<f32, false>(Api::Acos, soc, 100, Some(get_acos_max_min_tmp_size(100, 4, false).1), 17);
        check::<f16, false>(Api::Atan, soc, 100, Some(get_atan_max_min_tmp_size(100, 2, false).1), 10);
        check::<f32, false>(Api::Atan, soc, 100, Some(get_atan_max_min_tmp_size(100, 4, false).1), 11);
    }
}

// ---- the errors ----------------------------------------------------------------------------

fn with_tensors(soc: Soc, f: impl FnOnce(&LocalTensor<f16>, &LocalTensor<f16>, &LocalTensor<u8>)) {
    on(soc, || {
        let u = ub(4 * 1024);
        f(&u.t::<f16>(0, 512), &u.t::<f16>(1024, 512), &u.t::<u8>(2048, 2048));
    });
}

#[test]
fn unsupported_chips() {
    for api in APIS {
        for soc in [Soc::Ascend910, Soc::Ascend310B] {
            with_tensors(soc, |s, d, t| {
                let msg = format!("no implementation on {soc}");
                expect_panic(
                    || call::<_, false>(api, d, s, Some(t), 8),
                    &[&format!("{api:?}"), &msg, "Ascend910B, Ascend310P"],
                );
            });
        }
    }
}

#[test]
fn count_beyond_tensors() {
    for api in APIS {
        with_tensors(Soc::Ascend910B, |s, d, t| {
            expect_panic(
                || call::<_, false>(api, d, s, Some(t), 513),
                &["calCount = 513 exceeds srcTensor's 512"],
            );
            let d = d.view(100);
            expect_panic(
                || call::<_, false>(api, &d, s, Some(t), 500),
                &["calCount = 500 exceeds dstTensor's 412"],
            );
        });
    }
}

#[test]
fn positions() {
    for api in APIS {
        on(Soc::Ascend910B, || {
            let u = ub(4 * 1024);
            let (s, d, t) = (u.t::<f16>(0, 512), u.t::<f16>(1024, 512), u.t::<u8>(2048, 2048));
            let a1 = LocalTensor::<u8>::new(TPosition::A1, 0, 2048);
            expect_panic(
                || call::<_, false>(api, &d, &s, Some(&a1), 8),
                &["sharedTmpBuffer is at position A1", "VECIN, VECOUT or VECCALC"],
            );
            let a1 = LocalTensor::<f16>::new(TPosition::A1, 0, 512);
            expect_panic(|| call::<_, false>(api, &a1, &s, Some(&t), 8), &["dst is at position A1"]);
            expect_panic(|| call::<_, false>(api, &d, &a1, Some(&t), 8), &["src is at position A1"]);
        });
    }
}

#[test]
fn scratch_too_small() {
    // The split is bytes / 4 / n / 32 * 32 floats; one byte less than n·128 leaves none.
    for (api, half, reuse, n) in [
        (Api::Sin, true, false, 4usize),
        (Api::Sin, false, false, 3),
        (Api::Sin, false, true, 2),
        (Api::Cos, true, false, 4),
        (Api::Cos, false, true, 2),
        (Api::Atan, true, false, 6),
        (Api::Atan, false, false, 5),
    ] {
        on(Soc::Ascend310P, || {
            let bytes = n * 128 - 4;
            let u = ub(2 * 1024 + bytes.div_ceil(32) * 32);
            let t = u.t::<u8>(2048, bytes);
            let has = format!("sharedTmpBuffer has {bytes} bytes; it must hold at least {}", n * 128);
            let name = format!("{api:?}");
            if half {
                let (s, d) = (u.t::<f16>(0, 64), u.t::<f16>(1024, 64));
                expect_panic(|| call::<_, false>(api, &d, &s, Some(&t), 64), &[&name, &has]);
            } else if reuse {
                let (s, d) = (u.t::<f32>(0, 64), u.t::<f32>(1024, 64));
                expect_panic(|| call::<_, true>(api, &d, &s, Some(&t), 64), &[&name, &has]);
            } else {
                let (s, d) = (u.t::<f32>(0, 64), u.t::<f32>(1024, 64));
                expect_panic(|| call::<_, false>(api, &d, &s, Some(&t), 64), &[&name, &has]);
            }
        });
    }
    // Tan, Asin and Acos count their split in T: 10 halves or 4 floats per element (Tan), 6
    // halves or 4 floats (Asin, Acos).
    for (api, half, need, what) in [
        (Api::Tan, true, 640usize, "10 half tensors"),
        (Api::Tan, false, 512, "4 float tensors"),
        (Api::Asin, true, 384, "6 half tensors"),
        (Api::Asin, false, 512, "4 float tensors"),
        (Api::Acos, true, 384, "6 half tensors"),
    ] {
        on(Soc::Ascend910B, || {
            let bytes = need - 2;
            let u = ub(2 * 1024 + 1024);
            let t = u.t::<u8>(2048, bytes);
            let has = format!("sharedTmpBuffer has {bytes} bytes; it must hold at least {need}");
            if half {
                let (s, d) = (u.t::<f16>(0, 64), u.t::<f16>(1024, 64));
                expect_panic(
                    || call::<_, false>(api, &d, &s, Some(&t), 64),
                    &[&format!("{api:?}"), &has, what],
                );
            } else {
                let (s, d) = (u.t::<f32>(0, 64), u.t::<f32>(1024, 64));
                expect_panic(
                    || call::<_, false>(api, &d, &s, Some(&t), 64),
                    &[&format!("{api:?}"), &has, what],
                );
            }
        });
    }
    // Less than one float.
    on(Soc::Ascend910B, || {
        let u = ub(3 * 256);
        let (s, d, t) = (u.t::<f32>(0, 64), u.t::<f32>(256, 64), u.t::<u8>(512, 2));
        expect_panic(
            || atan::<_, false>(&d, &s, &t, 64),
            &["Atan", "sharedTmpBuffer has 2 bytes, less than one float"],
        );
    });
}

#[test]
fn forbidden_overlaps() {
    for api in APIS {
        with_tensors(Soc::Ascend910B, |s, _d, t| {
            expect_panic(|| call::<_, false>(api, s, s, Some(t), 64), &["dst UB bytes", "overlap src"]);
            let d2 = s.view(16);
            expect_panic(|| call::<_, false>(api, &d2, s, Some(t), 64), &["overlap src"]);
        });
        on(Soc::Ascend910B, || {
            let u = ub(4 * 1024);
            let (s, d) = (u.t::<f16>(0, 512), u.t::<f16>(1024, 512));
            let t_on_src = u.t::<u8>(512, 2048);
            expect_panic(
                || call::<_, false>(api, &d, &s, Some(&t_on_src), 512),
                &["sharedTmpBuffer UB bytes", "overlap src"],
            );
            let t_on_dst = u.t::<u8>(1024, 2048);
            expect_panic(
                || call::<_, false>(api, &d, &s, Some(&t_on_dst), 64),
                &["sharedTmpBuffer UB bytes", "overlap dst"],
            );
        });
    }
}

#[test]
fn stack_form_needs_a_pipe_with_room() {
    for api in APIS {
        on(Soc::Ascend910B, || {
            let u = ub(get_soc().ub_size() - 64);
            let (s, d) = (u.t::<f16>(0, 64), u.t::<f16>(256, 64));
            expect_panic(|| call::<_, false>(api, &d, &s, None, 64), &[&format!("{api:?}"), "no space left"]);
        });
    }
}
