//! The advanced API's further math (`adv/math_ext.rs`): `Sinh`, `Cosh`, `Atanh`, `Asinh`,
//! `Acosh` and `Fmod`, against scalar references that restate the vendor's steps one
//! instruction at a time with each one's rounding — `half` widened to `float` exactly; `float`
//! arithmetic in `f32`; `Exp`, `Ln` and `Sqrt` in `f64`, rounded once to `f32`; `Trunc` as a
//! `float → float` truncation (Ascend910B) or through `int32_t` (Ascend310P: saturating, NaN →
//! 0); the narrowing to `half` to nearest-even (`CAST_ROUND`: ties away from zero), saturated in
//! saturation mode — for both types on every supported chip, counts that leave tails, scratch
//! sizes that force several rounds, and the stack form; bit for bit, but for NaN payloads (a NaN
//! result must be a NaN; the vendor does not define which). Then the scratch's last round, a
//! sanity check against `f64` math, the host tiling and every error.

use ascend_core::prelude::*;

use crate::common::util;
use util::{adv_io, expect_panic, f16_round_away, on, ub, AdvIo, Rng, SENTINEL};

// ---- the references ------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
enum Api {
    Sinh,
    Cosh,
    Atanh,
    Asinh,
    Acosh,
    Fmod,
}

const APIS: [Api; 6] = [Api::Sinh, Api::Cosh, Api::Atanh, Api::Asinh, Api::Acosh, Api::Fmod];
const CHIPS: [Soc; 2] = [Soc::Ascend910B, Soc::Ascend310P];

/// The element types, with the conversions the references need.
trait Fp:
    Element
    + SinhElement
    + CoshElement
    + AtanhElement
    + AsinhElement
    + AcoshElement
    + FmodElement
    + std::fmt::Debug
{
    fn to32(self) -> f32;
    /// `float → T` with `CAST_NONE` (identity for `float`).
    fn from32(x: f32, sat: bool) -> Self;
    /// `float → T` with `CAST_ROUND` (identity for `float`).
    fn from32_away(x: f32, sat: bool) -> Self;
    fn from_bits_rng(rng: &mut Rng) -> Self;
    fn is_nan(self) -> bool {
        self.to32().is_nan()
    }
}

impl Fp for f32 {
    fn to32(self) -> f32 {
        self
    }
    fn from32(x: f32, _sat: bool) -> f32 {
        x
    }
    fn from32_away(x: f32, _sat: bool) -> f32 {
        x
    }
    fn from_bits_rng(rng: &mut Rng) -> f32 {
        f32::from_bits(rng.next() as u32)
    }
}

impl Fp for f16 {
    fn to32(self) -> f32 {
        self.to_f32()
    }
    fn from32(x: f32, sat: bool) -> f16 {
        f16::from_f32(saturate(x, sat))
    }
    fn from32_away(x: f32, sat: bool) -> f16 {
        let x = saturate(x, sat);
        if x.is_nan() {
            return f16::NAN;
        }
        if x.abs() >= 65520.0 {
            // The tie between 65504 and 65536 and beyond: away from zero, to infinity.
            return if x > 0.0 { f16::INFINITY } else { f16::NEG_INFINITY };
        }
        f16_round_away(x)
    }
    fn from_bits_rng(rng: &mut Rng) -> f16 {
        f16::from_bits(rng.next() as u16)
    }
}

/// Saturation mode's clamp before a narrowing to `half`: NaN → 0, beyond ±65504 → ±65504.
fn saturate(x: f32, sat: bool) -> f32 {
    if !sat {
        x
    } else if x.is_nan() {
        0.0
    } else {
        x.clamp(-65504.0, 65504.0)
    }
}

fn exp32(x: f32) -> f32 {
    (x as f64).exp() as f32
}
fn ln32(x: f32) -> f32 {
    (x as f64).ln() as f32
}
fn sqrt32(x: f32) -> f32 {
    (x as f64).sqrt() as f32
}

const NEG_LN2: f32 = -std::f64::consts::LN_2 as f32;

/// Sinh's steps: `(e^(-x - ln2), e^(x - ln2), the difference)`.
fn r_sinh(x: f32) -> (f32, f32, f32) {
    let a = exp32(-x + NEG_LN2); // Muls(-1): exact
    let b = exp32(x + NEG_LN2);
    (a, b, b - a)
}

/// Cosh's steps: `(x - ln2, y = e^(x - ln2), 0.25 / y, y + 0.25 / y)`.
fn r_cosh(x: f32) -> (f32, f32, f32, f32) {
    let t = x + NEG_LN2;
    let y = exp32(t);
    let q = 0.25 / y;
    (t, y, q, y + q)
}

/// Atanh's steps: `(1 + x, the result)`.
fn r_atanh(x: f32) -> (f32, f32) {
    let p = x + 1.0;
    let m = -x + 1.0; // Muls(-1): exact
    (p, ln32(p / m) * 0.5)
}

/// Asinh's steps: `(the sign, its denominator, the logarithm, the product)`.
fn r_asinh(x: f32) -> (f32, f32, f32, f32) {
    let a = x.abs();
    let l = ln32(sqrt32(a * a + 1.0) + a);
    let m = x * 4_611_686_018_427_387_904.0;
    let den = m.abs() + 1.0 / 4_611_686_018_427_387_904.0;
    let sg = m / den;
    (sg, den, l, l * sg)
}

/// Acosh's steps: `(the quotient s / s, the product, the result)`; `x_first` orders the sum as
/// `float`'s `Add(src, t)` does (the same value; NaN payloads aside).
fn r_acosh(x: f32) -> (f32, f32, f32) {
    let t = sqrt32(x * x + -1.0);
    let s = x + t;
    #[allow(clippy::eq_op)] // the vendor's Div(t, s, s): 1, or NaN
    let q = s / s;
    let p = s * q;
    (q, p, ln32(p))
}

/// Fmod's steps in float on `soc`.
fn r_fmod(soc: Soc, a: f32, b: f32) -> f32 {
    let q = a / b;
    let t = if soc == Soc::Ascend310P {
        q.trunc() as i32 as f32
    } else if q.is_nan() {
        q
    } else {
        q.trunc()
    };
    a - t * b
}

/// One element of a unary `api` on `soc`.
fn reference<T: Fp>(api: Api, soc: Soc, sat: bool, x: T) -> T {
    let xf = x.to32();
    let r = match api {
        Api::Sinh => r_sinh(xf).2,
        Api::Cosh => {
            let r = r_cosh(xf).3;
            return if T::SIZE == 2 && soc == Soc::Ascend910B {
                T::from32_away(r, sat)
            } else {
                T::from32(r, sat)
            };
        }
        Api::Atanh => r_atanh(xf).1,
        Api::Asinh => r_asinh(xf).3,
        Api::Acosh => r_acosh(xf).2,
        Api::Fmod => unreachable!(),
    };
    T::from32(r, sat)
}

/// Bit for bit, but any NaN for a NaN.
#[track_caller]
fn assert_same<T: Fp>(got: &[T], want: &[T], ctx: impl std::fmt::Display) {
    assert_eq!(got.len(), want.len(), "length differs; {ctx}");
    let mut bad = got
        .iter()
        .zip(want)
        .enumerate()
        .filter(|(_, (g, w))| g.to_bits_u64() != w.to_bits_u64() && !(g.is_nan() && w.is_nan()));
    if let Some((i, (g, w))) = bad.next() {
        panic!(
            "element {i}: got {g:?} ({:#x}), want {w:?} ({:#x}); {} more differ; {ctx}",
            g.to_bits_u64(),
            w.to_bits_u64(),
            bad.count()
        );
    }
}

/// Random inputs: the function's domain and beyond, edge values and random bits.
fn inputs<T: Fp>(api: Api, rng: &mut Rng, n: usize) -> Vec<T> {
    let edges =
        [0.0f32, -0.0, 1.0, -1.0, 0.5, 0.99, 1e-3, 2.0, 11.0, 88.0, 90.0, 65504.0, f32::INFINITY, f32::NAN];
    let (lo, hi) = match api {
        Api::Sinh | Api::Cosh => (-12.0, 12.0),
        Api::Atanh => (-1.0, 1.0),
        Api::Asinh => (-1000.0, 1000.0),
        Api::Acosh => (1.0, 1000.0),
        Api::Fmod => (-1000.0, 1000.0),
    };
    (0..n)
        .map(|_| match rng.below(8) {
            0 => {
                let e = edges[rng.index(edges.len())];
                T::from_f64(if rng.below(2) == 0 { e as f64 } else { -e as f64 })
            }
            1 => T::from_bits_rng(rng),
            _ => T::from_f64(lo + (hi - lo) * (rng.next() as f64 / u64::MAX as f64)),
        })
        .collect()
}

fn call<T: Fp>(
    api: Api,
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: Option<&LocalTensor<u8>>,
    n: usize,
) {
    match (api, tmp) {
        (Api::Sinh, Some(t)) => sinh::<T, false>(dst, src, t, n),
        (Api::Cosh, Some(t)) => cosh::<T, false>(dst, src, t, n),
        (Api::Atanh, Some(t)) => atanh::<T, false>(dst, src, t, n),
        (Api::Asinh, Some(t)) => asinh::<T, false>(dst, src, t, n),
        (Api::Acosh, Some(t)) => acosh::<T, false>(dst, src, t, n),
        (Api::Sinh, None) => sinh_stack::<T, false>(dst, src, n),
        (Api::Cosh, None) => cosh_stack::<T, false>(dst, src, n),
        (Api::Atanh, None) => atanh_stack::<T, false>(dst, src, n),
        (Api::Asinh, None) => asinh_stack::<T, false>(dst, src, n),
        (Api::Acosh, None) => acosh_stack::<T, false>(dst, src, n),
        (Api::Fmod, _) => unreachable!("binary"),
    }
}

/// `(unit, div)`: a round is `bytes / unit / div / 32 * 32` elements.
fn split_params<T: Fp>(api: Api) -> (usize, usize) {
    let half = T::SIZE == 2;
    match api {
        Api::Sinh | Api::Atanh => (T::SIZE, if half { 4 } else { 1 }),
        Api::Cosh => (T::SIZE, if half { 6 } else { 2 }),
        Api::Asinh => (4, 3),
        Api::Acosh => (4, if half { 2 } else { 1 }),
        Api::Fmod => (T::SIZE, if half { 8 } else { 1 }),
    }
}

fn split_of<T: Fp>(api: Api, bytes: usize) -> usize {
    let (unit, div) = split_params::<T>(api);
    bytes / unit / div / 32 * 32
}

/// Runs a unary `api` on `soc` over `count` random elements with `tmp_bytes` of scratch (or the
/// stack form); checks the result, the untouched rest of `dst`, `src`, the mask state and the
/// scratch's last round.
fn check<T: Fp>(api: Api, soc: Soc, count: usize, tmp_bytes: Option<usize>, seed: u64) {
    on(soc, || {
        let mut rng = Rng(seed);
        let cap = count + 40;
        let AdvIo { src, dst, tmp, .. } = &adv_io::<T>(cap, tmp_bytes.unwrap_or(0));
        let x: Vec<T> = inputs(api, &mut rng, cap);
        src.copy_from_slice(&x);
        let old: Vec<T> = inputs(api, &mut rng, cap);
        dst.copy_from_slice(&old);
        call(api, dst, src, tmp_bytes.map(|_| tmp), count);
        let sat = get_overflow_mode() == OverflowMode::Saturation;
        let ctx = format!("{api:?} {} on {soc}, count {count}, tmp {tmp_bytes:?}", T::DTYPE);
        let mut want: Vec<T> = x[..count].iter().map(|&v| reference(api, soc, sat, v)).collect();
        want.extend_from_slice(&old[count..]);
        assert_same(&dst.to_vec(), &want, &ctx);
        assert_same(&src.to_vec(), &x, format!("src written; {ctx}"));
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
        assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{ctx}");
        let Some(bytes) = tmp_bytes else { return };
        if count == 0 {
            return;
        }
        // The scratch's last round: the float tensors at their offsets (the vendor lays out a
        // tail by its size rounded up to 32 for Atanh, Asinh and Acosh).
        let split = split_of::<T>(api, bytes);
        let off = if count % split != 0 { count / split * split } else { count - split };
        let last: Vec<f32> = x[off..count].iter().map(|v| v.to32()).collect();
        let n = last.len();
        let cal = if n < split && matches!(api, Api::Atanh | Api::Asinh | Api::Acosh) {
            n.div_ceil(32) * 32
        } else {
            split
        };
        let f = tmp.reinterpret_cast::<f32>().to_vec();
        let half = T::SIZE == 2;
        let col = |k: usize, v: Vec<f32>, what: &str| {
            assert_same(&f[k..k + n], &v, format!("scratch's {what}; {ctx}"));
        };
        let map = |g: &dyn Fn(f32) -> f32| -> Vec<f32> { last.iter().map(|&v| g(v)).collect() };
        match api {
            Api::Sinh => {
                col(0, map(&|v| r_sinh(v).0), "e^(-x-ln2)");
                if half {
                    col(split, map(&|v| r_sinh(v).2), "difference");
                }
            }
            Api::Cosh => {
                col(0, map(&|v| r_cosh(v).1), "e^(x-ln2)");
                col(cal, map(&|v| r_cosh(v).2), "0.25 / y");
                if half {
                    col(2 * cal, map(&|v| r_cosh(v).3), "sum");
                }
            }
            Api::Atanh => {
                if half {
                    col(0, map(&|v| r_atanh(v).1), "result");
                    col(cal, map(&|v| r_atanh(v).0), "1 + x");
                } else {
                    col(0, map(&|v| r_atanh(v).0), "1 + x");
                }
            }
            Api::Asinh => {
                col(0, map(&|v| r_asinh(v).0), "sign");
                col(cal, map(&|v| r_asinh(v).1), "denominator");
                col(2 * cal, map(&|v| if half { r_asinh(v).3 } else { r_asinh(v).2 }), "logarithm");
            }
            Api::Acosh => {
                if half {
                    col(0, map(&|v| r_acosh(v).0), "quotient");
                    col(cal, map(&|v| r_acosh(v).2), "logarithm");
                } else {
                    col(0, map(&|v| r_acosh(v).1), "product");
                }
            }
            Api::Fmod => unreachable!(),
        }
    });
}

/// Every unary function, type and chip: counts with tails, scratch sizes from the minimum up
/// (several rounds), one not a multiple of 32, and the stack form.
fn sweep<T: Fp>(seed: u64) {
    let mut s = seed;
    for api in [Api::Sinh, Api::Cosh, Api::Atanh, Api::Asinh, Api::Acosh] {
        let (unit, div) = split_params::<T>(api);
        let min = unit * div * 32;
        for soc in CHIPS {
            for count in [1usize, 37, 64, 200, 1000] {
                for tmp in [Some(min), Some(min * 3 / 2 + 20), Some(3 * min), Some(40 * min), None] {
                    s += 1;
                    check::<T>(api, soc, count, tmp, s);
                }
            }
        }
    }
}

#[test]
fn every_unary_function_half() {
    sweep::<f16>(100);
}

#[test]
fn every_unary_function_float() {
    sweep::<f32>(200);
}

#[test]
fn both_overflow_modes() {
    // Ascend910B can switch: the narrowing to half of results beyond its range.
    for mode in [OverflowMode::Saturation, OverflowMode::InfNan] {
        for api in [Api::Sinh, Api::Cosh] {
            on(Soc::Ascend910B, || {
                set_overflow_mode(mode);
                let u = ub(3 * 512);
                let (x, y, tmp) = (u.t::<f16>(0, 64), u.t::<f16>(512, 64), u.t::<u8>(1024, 512));
                let v: Vec<f16> = [12.0f32, -12.0, 11.08, 11.1, 65504.0, f32::INFINITY, -0.0, 3.0]
                    .iter()
                    .cycle()
                    .take(64)
                    .map(|&v| f16::from_f32(v))
                    .collect();
                x.copy_from_slice(&v);
                call(api, &y, &x, Some(&tmp), 64);
                let sat = mode == OverflowMode::Saturation;
                let want: Vec<f16> = v.iter().map(|&e| reference(api, Soc::Ascend910B, sat, e)).collect();
                assert_same(&y.to_vec(), &want, format!("{api:?} {mode:?}"));
            });
        }
    }
}

#[test]
fn cosh_half_rounds_ties_away_on_ascend910b() {
    // A float sum exactly between two halves: CAST_ROUND on Ascend910B, CAST_NONE on Ascend310P.
    assert_eq!(f16_round_away(1.0 + 1.0 / 2048.0), f16::from_f32(1.0 + 1.0 / 1024.0));
    assert_eq!(f16::from_f32(1.0 + 1.0 / 2048.0), f16::ONE);
    let mut seen_difference = false;
    for x in (0..=0x7BFFu16).map(f16::from_bits) {
        let r = r_cosh(x.to_f32()).3;
        if r < 65504.0 && f16_round_away(r) != f16::from_f32(r) {
            seen_difference = true;
            for soc in CHIPS {
                on(soc, || {
                    let u = ub(2 * 64 + 512);
                    let (s, d, t) = (u.t::<f16>(0, 32), u.t::<f16>(64, 32), u.t::<u8>(128, 512));
                    s.copy_from_slice(&[x; 32]);
                    cosh::<_, false>(&d, &s, &t, 32);
                    let want = if soc == Soc::Ascend910B { f16_round_away(r) } else { f16::from_f32(r) };
                    assert_eq!(d.get_value(0).to_bits(), want.to_bits(), "cosh({x}) on {soc}");
                });
            }
            break;
        }
    }
    assert!(seen_difference, "no tie found");
}

// ---- Fmod ----------------------------------------------------------------------------------

/// Runs `Fmod` on `soc` over `count` random pairs; checks the result, the rest of `dst`, the
/// sources and the scratch (half: the last round's widened sources).
fn check_fmod<T: Fp>(soc: Soc, count: usize, tmp_bytes: Option<usize>, seed: u64) {
    on(soc, || {
        let mut rng = Rng(seed);
        // A multiple of 32 elements: the vendor caps a half round at src0's size and lays out
        // its scratch by it.
        let cap = (count + 40).div_ceil(32) * 32;
        let region = cap * T::SIZE;
        let scratch = tmp_bytes.unwrap_or(0).div_ceil(32) * 32;
        let u = ub(3 * region + scratch.max(32));
        let (a, b, dst) = (u.t::<T>(0, cap), u.t::<T>(region, cap), u.t::<T>(2 * region, cap));
        let tmp = u.t::<u8>(3 * region, tmp_bytes.unwrap_or(0));
        let xa: Vec<T> = inputs(Api::Fmod, &mut rng, cap);
        let xb: Vec<T> = (0..cap)
            .map(|_| match rng.below(4) {
                0 => T::from_f64((rng.next() as f64 / u64::MAX as f64 - 0.5) * 6.0),
                1 => T::from_f64((rng.next() as f64 / u64::MAX as f64 - 0.5) * 0.02),
                _ => inputs::<T>(Api::Fmod, &mut rng, 1)[0],
            })
            .collect();
        a.copy_from_slice(&xa);
        b.copy_from_slice(&xb);
        let old: Vec<T> = inputs(Api::Fmod, &mut rng, cap);
        dst.copy_from_slice(&old);
        tmp.copy_from_slice(&vec![SENTINEL; tmp.get_size()]);
        match tmp_bytes {
            Some(_) => fmod::<T, false>(&dst, &a, &b, &tmp, count),
            None => fmod_stack::<T, false>(&dst, &a, &b, count),
        }
        let sat = get_overflow_mode() == OverflowMode::Saturation;
        let ctx = format!("Fmod {} on {soc}, count {count}, tmp {tmp_bytes:?}", T::DTYPE);
        let mut want: Vec<T> =
            (0..count).map(|i| T::from32(r_fmod(soc, xa[i].to32(), xb[i].to32()), sat)).collect();
        want.extend_from_slice(&old[count..]);
        assert_same(&dst.to_vec(), &want, &ctx);
        assert_same(&a.to_vec(), &xa, format!("src0 written; {ctx}"));
        assert_same(&b.to_vec(), &xb, format!("src1 written; {ctx}"));
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
        let Some(bytes) = tmp_bytes else { return };
        if T::SIZE == 2 && count > 0 {
            let stack = split_of::<T>(Api::Fmod, bytes).min(cap);
            let off = if count % stack != 0 { count / stack * stack } else { count - stack };
            let f = tmp.reinterpret_cast::<f32>().to_vec();
            let wa: Vec<f32> = xa[off..count].iter().map(|v| v.to32()).collect();
            let wb: Vec<f32> = xb[off..count].iter().map(|v| v.to32()).collect();
            let r: Vec<f32> = wa.iter().zip(&wb).map(|(&p, &q)| r_fmod(soc, p, q)).collect();
            let n = wa.len();
            assert_same(&f[..n], &r, format!("scratch's result; {ctx}"));
            assert_same(&f[stack..stack + n], &wa, format!("scratch's src0; {ctx}"));
            assert_same(&f[2 * stack..2 * stack + n], &wb, format!("scratch's src1; {ctx}"));
        }
    });
}

#[test]
fn fmod_every_type_and_chip() {
    let mut s = 300;
    for soc in CHIPS {
        for count in [1usize, 37, 64, 200, 1000] {
            for tmp in [Some(512usize), Some(800), Some(2048), Some(16384), None] {
                s += 1;
                check_fmod::<f16>(soc, count, tmp, s);
                check_fmod::<f32>(soc, count, tmp.map(|b| b / 2), s);
            }
        }
    }
}

#[test]
fn fmod_page_examples_and_ascend310p_saturation() {
    for soc in CHIPS {
        on(soc, || {
            let u = ub(3 * 128 + 256);
            let (a, b, d) = (u.t::<f32>(0, 32), u.t::<f32>(128, 32), u.t::<f32>(256, 32));
            let t = u.t::<u8>(384, 256);
            let xa = [2.0f32, -3.0, 7.5, -7.5, 1e10, 5.0, 0.0, 1.0];
            let xb = [1.5f32, 1.1, 2.0, 2.0, 3.0, 0.0, 1.0, f32::INFINITY];
            a.copy_from_slice(&xa.repeat(4));
            b.copy_from_slice(&xb.repeat(4));
            fmod::<_, false>(&d, &a, &b, &t, 32);
            assert_eq!(d.get_value(0), 0.5, "{soc}");
            assert!((d.get_value(1) + 0.8).abs() < 1e-6, "{soc}");
            assert_eq!((d.get_value(2), d.get_value(3)), (1.5, -1.5), "{soc}");
            // 1e10 / 3 is beyond int32_t: Ascend310P's Trunc saturates the quotient.
            let big = d.get_value(4);
            if soc == Soc::Ascend310P {
                assert_eq!(big, 1e10 - 2147483647.0f32 * 3.0);
            } else {
                assert_eq!(big, r_fmod(soc, 1e10, 3.0));
            }
            let nan_on_zero = d.get_value(5);
            if soc == Soc::Ascend310P {
                // inf saturates to int32_t's max: 5 - 2147483647 * 0 = 5.
                assert_eq!(nan_on_zero, 5.0);
            } else {
                assert!(nan_on_zero.is_nan());
            }
        });
    }
}

// ---- sanity against f64 math ---------------------------------------------------------------

#[test]
fn close_to_f64_math() {
    type Case = (Api, f64, f64, fn(f64) -> f64, f64);
    let cases: [Case; 5] = [
        (Api::Sinh, -5.0, 5.0, f64::sinh, 2e-6),
        (Api::Cosh, -5.0, 5.0, f64::cosh, 2e-6),
        (Api::Atanh, 0.1, 0.9, f64::atanh, 1e-5),
        (Api::Asinh, -100.0, 100.0, f64::asinh, 1e-5),
        (Api::Acosh, 1.5, 1000.0, f64::acosh, 1e-5),
    ];
    for (api, lo, hi, f, tol) in cases {
        for soc in CHIPS {
            on(soc, || {
                let n = 512;
                let u = ub(2 * n * 4 + 8192);
                let (s, d, t) = (u.t::<f32>(0, n), u.t::<f32>(n * 4, n), u.t::<u8>(8 * n, 8192));
                let x: Vec<f32> =
                    (0..n).map(|i| (lo + (hi - lo) * i as f64 / (n - 1) as f64) as f32).collect();
                s.copy_from_slice(&x);
                call(api, &d, &s, Some(&t), n);
                for (i, &v) in x.iter().enumerate() {
                    let want = f(v as f64);
                    let got = d.get_value(i) as f64;
                    let err = (got - want).abs() / want.abs().max(1.0);
                    assert!(err < tol, "{api:?}({v}) on {soc}: got {got}, want {want}");
                }
                // half: within half's precision.
                let (sh, dh) = (u.t::<f16>(0, n), u.t::<f16>(n * 4, n));
                sh.copy_from_slice(&x.iter().map(|&v| f16::from_f32(v)).collect::<Vec<_>>());
                call(api, &dh, &sh, Some(&t), n);
                for i in 0..n {
                    let v = sh.get_value(i).to_f64();
                    let want = f(v);
                    let got = dh.get_value(i).to_f64();
                    if want.abs() > 65504.0 {
                        continue;
                    }
                    let err = (got - want).abs() / want.abs().max(1e-2);
                    assert!(err < 2e-3, "{api:?}({v}) half on {soc}: got {got}, want {want}");
                }
            });
        }
    }
    // Fmod: exact where the quotient is exact.
    on(Soc::Ascend910B, || {
        let u = ub(3 * 1024 + 256);
        let (a, b, d) = (u.t::<f32>(0, 256), u.t::<f32>(1024, 256), u.t::<f32>(2048, 256));
        let t = u.t::<u8>(3072, 256);
        let xa: Vec<f32> = (0..256).map(|i| i as f32 * 0.75 - 90.0).collect();
        a.copy_from_slice(&xa);
        b.copy_from_slice(&[4.0f32; 256]);
        fmod::<_, false>(&d, &a, &b, &t, 256);
        for (i, &v) in xa.iter().enumerate() {
            assert_eq!(d.get_value(i), v % 4.0, "fmod({v}, 4)");
        }
    });
}

// ---- host tiling ---------------------------------------------------------------------------

#[test]
fn host_tiling() {
    assert_eq!(get_sinh_max_min_tmp_size(1000, 2, false), (8000, 1024));
    assert_eq!(get_sinh_max_min_tmp_size(10, 4, true), (256, 256));
    assert_eq!(get_sinh_tmp_buffer_factor_size(4), (1, 0));
    assert_eq!(get_cosh_max_min_tmp_size(1000, 2, false), (12000, 1536));
    assert_eq!(get_cosh_max_min_tmp_size(1000, 4, false), (8000, 512));
    assert_eq!(get_cosh_tmp_buffer_factor_size(2), (6, 0));
    assert_eq!(get_atanh_max_min_tmp_size(1000, 2, false), (8000, 1024));
    assert_eq!(get_atanh_tmp_buffer_factor_size(4), (1, 0));
    assert_eq!(get_asinh_max_min_tmp_size(1000, 2, false), (6000, 768));
    assert_eq!(get_asinh_max_min_tmp_size(10, 4, false), (768, 768));
    assert_eq!(get_asinh_tmp_buffer_factor_size(4), (3, 0));
    assert_eq!(get_acosh_max_min_tmp_size(1000, 2, false), (4000, 512));
    assert_eq!(get_acosh_max_min_tmp_size(1000, 4, false), (4000, 256));
    assert_eq!(get_acosh_max_min_tmp_size(100, 2, false), (512, 512));
    assert_eq!(get_acosh_tmp_buffer_factor_size(4), (1, 0));
    assert_eq!(get_fmod_max_min_tmp_size(1000, 2, false), (16000, 2048));
    assert_eq!(get_fmod_max_min_tmp_size(1000, 4, false), (4000, 256));
    assert_eq!(get_fmod_tmp_buffer_factor_size(4), (1, 0));
    assert_eq!(get_fmod_tmp_buffer_factor_size(2), (8, 0));
    // The maximum is enough for one round of all the input (Acosh and Asinh half: two rounds).
    for api in [Api::Sinh, Api::Cosh, Api::Atanh, Api::Fmod] {
        let max = match api {
            Api::Sinh => get_sinh_max_min_tmp_size(1000, 2, false).0,
            Api::Cosh => get_cosh_max_min_tmp_size(1000, 2, false).0,
            Api::Atanh => get_atanh_max_min_tmp_size(1000, 2, false).0,
            _ => get_fmod_max_min_tmp_size(1000, 2, false).0,
        };
        assert!(split_of::<f16>(api, max) >= 992, "{api:?}");
    }
    assert_eq!(split_of::<f16>(Api::Acosh, get_acosh_max_min_tmp_size(1024, 2, false).0), 512);
    assert_eq!(split_of::<f16>(Api::Asinh, get_asinh_max_min_tmp_size(1024, 2, false).0), 512);
    assert_eq!(split_of::<f32>(Api::Asinh, get_asinh_max_min_tmp_size(1024, 4, false).0), 1024);
    type Host = fn(usize, usize, bool) -> (usize, usize);
    let host: [(&str, Host); 6] = [
        ("GetSinhMaxMinTmpSize", get_sinh_max_min_tmp_size),
        ("GetCoshMaxMinTmpSize", get_cosh_max_min_tmp_size),
        ("GetAtanhMaxMinTmpSize", get_atanh_max_min_tmp_size),
        ("GetAsinhMaxMinTmpSize", get_asinh_max_min_tmp_size),
        ("GetAcoshMaxMinTmpSize", get_acosh_max_min_tmp_size),
        ("GetFmodMaxMinTmpSize", get_fmod_max_min_tmp_size),
    ];
    for (name, f) in host {
        expect_panic(
            || {
                f(0, 2, false);
            },
            &[name, "greater than 0"],
        );
        expect_panic(
            || {
                f(8, 8, false);
            },
            &[name, "typeSize = 8"],
        );
    }
    type Factor = fn(usize) -> (usize, usize);
    let factor: [(&str, Factor); 6] = [
        ("GetSinhTmpBufferFactorSize", get_sinh_tmp_buffer_factor_size),
        ("GetCoshTmpBufferFactorSize", get_cosh_tmp_buffer_factor_size),
        ("GetAtanhTmpBufferFactorSize", get_atanh_tmp_buffer_factor_size),
        ("GetAsinhTmpBufferFactorSize", get_asinh_tmp_buffer_factor_size),
        ("GetAcoshTmpBufferFactorSize", get_acosh_tmp_buffer_factor_size),
        ("GetFmodTmpBufferFactorSize", get_fmod_tmp_buffer_factor_size),
    ];
    for (name, f) in factor {
        expect_panic(
            || {
                f(1);
            },
            &[name, "typeSize = 1"],
        );
    }
}

// ---- errors --------------------------------------------------------------------------------

/// Calls `api` (Fmod with `src` as both sources' first, a fresh second).
fn call_any(
    api: Api,
    d: &LocalTensor<f16>,
    s: &LocalTensor<f16>,
    s1: &LocalTensor<f16>,
    t: Option<&LocalTensor<u8>>,
    n: usize,
) {
    match (api, t) {
        (Api::Fmod, Some(t)) => fmod::<_, false>(d, s, s1, t, n),
        (Api::Fmod, None) => fmod_stack::<_, false>(d, s, s1, n),
        _ => call(api, d, s, t, n),
    }
}

fn name(api: Api) -> &'static str {
    match api {
        Api::Sinh => "Sinh",
        Api::Cosh => "Cosh",
        Api::Atanh => "Atanh",
        Api::Asinh => "Asinh",
        Api::Acosh => "Acosh",
        Api::Fmod => "Fmod",
    }
}

/// Tensors of 512 halves: src at 0, dst at 1024, src1 at 2048, a 2048-byte scratch at 3072.
fn with_tensors(
    soc: Soc,
    f: impl FnOnce(&LocalTensor<f16>, &LocalTensor<f16>, &LocalTensor<f16>, &LocalTensor<u8>),
) {
    on(soc, || {
        let u = ub(5 * 1024);
        f(&u.t::<f16>(0, 512), &u.t::<f16>(1024, 512), &u.t::<f16>(2048, 512), &u.t::<u8>(3072, 2048));
    });
}

#[test]
fn unsupported_chips() {
    for api in APIS {
        for soc in [Soc::Ascend910, Soc::Ascend310B] {
            with_tensors(soc, |s, d, s1, t| {
                let msg = format!("no implementation on {soc}");
                expect_panic(
                    || call_any(api, d, s, s1, Some(t), 8),
                    &[name(api), &msg, "Ascend910B, Ascend310P"],
                );
                expect_panic(|| call_any(api, d, s, s1, None, 8), &[name(api), &msg]);
            });
        }
    }
}

#[test]
fn count_beyond_tensors() {
    for api in APIS {
        with_tensors(Soc::Ascend910B, |s, d, s1, t| {
            expect_panic(|| call_any(api, d, s, s1, Some(t), 513), &[name(api), "calCount = 513 exceeds"]);
            let short = d.view_len(0, 100);
            expect_panic(|| call_any(api, &short, s, s1, Some(t), 101), &[name(api), "dstTensor's 100"]);
        });
    }
    with_tensors(Soc::Ascend910B, |s, d, s1, t| {
        let short = s1.view_len(0, 100);
        expect_panic(|| fmod::<_, false>(d, s, &short, t, 101), &["Fmod", "src1Tensor's 100"]);
        expect_panic(
            || fmod::<_, false>(d, s, &short, t, 64),
            &["Fmod", "src0Tensor has 512 elements and src1Tensor 100", "same length"],
        );
    });
}

#[test]
fn scratch_too_small() {
    // (api, half bytes that give no round, float bytes that give none)
    for (api, hb, fb) in [
        (Api::Sinh, 254, 126),
        (Api::Cosh, 380, 254),
        (Api::Atanh, 254, 126),
        (Api::Asinh, 380, 380),
        (Api::Acosh, 254, 126),
        (Api::Fmod, 510, 0),
    ] {
        for soc in CHIPS {
            on(soc, || {
                let u = ub(3 * 1024);
                let (s, d, t) = (u.t::<f16>(0, 64), u.t::<f16>(1024, 64), u.t::<u8>(2048, hb));
                let has = format!("sharedTmpBuffer has {hb} bytes");
                expect_panic(|| call_any(api, &d, &s, &s, Some(&t), 64), &[name(api), &has]);
                if api == Api::Fmod {
                    // float: Trunc's own minimum.
                    let (s, d, t) = (u.t::<f32>(0, 64), u.t::<f32>(1024, 64), u.t::<u8>(2048, 96));
                    let t1 = u.t::<f32>(512, 64);
                    expect_panic(
                        || fmod::<_, false>(&d, &s, &t1, &t, 64),
                        &["Trunc", "sharedTmpBuffer has 96 bytes"],
                    );
                } else {
                    let (s, d, t) = (u.t::<f32>(0, 64), u.t::<f32>(1024, 64), u.t::<u8>(2048, fb));
                    let has = format!("sharedTmpBuffer has {fb} bytes");
                    expect_panic(|| call(api, &d, &s, Some(&t), 64), &[name(api), &has]);
                }
            });
        }
    }
}

#[test]
fn forbidden_overlaps() {
    for api in APIS {
        with_tensors(Soc::Ascend910B, |s, d, s1, t| {
            expect_panic(
                || call_any(api, s, s, s1, Some(t), 64),
                &[name(api), "dst UB bytes", "overlap src"],
            );
            let d2 = s.view(16);
            expect_panic(|| call_any(api, &d2, s, s1, Some(t), 64), &[name(api), "overlap src"]);
            let t_src = s.reinterpret_cast::<u8>().view(512);
            expect_panic(
                || call_any(api, d, s, s1, Some(&t_src), 512),
                &[name(api), "sharedTmpBuffer UB bytes", "overlap src"],
            );
            let t_dst = d.reinterpret_cast::<u8>();
            expect_panic(
                || call_any(api, d, s, s1, Some(&t_dst), 64),
                &[name(api), "sharedTmpBuffer UB bytes", "overlap dst"],
            );
        });
    }
    with_tensors(Soc::Ascend910B, |s, d, s1, t| {
        expect_panic(|| fmod::<_, false>(s1, s, s1, t, 64), &["Fmod", "dst UB bytes", "overlap src1"]);
        let t_s1 = s1.reinterpret_cast::<u8>();
        expect_panic(
            || fmod::<_, false>(d, s, s1, &t_s1, 64),
            &["Fmod", "sharedTmpBuffer UB bytes", "overlap src1"],
        );
        // The sources may be the same tensor.
        s.copy_from_slice(&[f16::from_f32(3.0); 512]);
        fmod::<_, false>(d, s, s, t, 512);
        assert_eq!(d.get_value(511), f16::ZERO);
    });
}

#[test]
fn stack_form_needs_a_pipe_with_room() {
    for api in APIS {
        on(Soc::Ascend910B, || {
            let u = ub(get_soc().ub_size() - 64);
            let (s, d) = (u.t::<f16>(0, 64), u.t::<f16>(256, 64));
            expect_panic(|| call_any(api, &d, &s, &s, None, 64), &[name(api), "no space left"]);
        });
    }
}

#[test]
fn tensors_outside_the_unified_buffer() {
    on(Soc::Ascend910B, || {
        let mut pipe = TPipe::new();
        let (mut v, mut l1) = (TBuf::<VecCalc>::new(), TBuf::<A1>::new());
        pipe.init_tbuf(&mut v, 3 * 1024);
        pipe.init_tbuf(&mut l1, 2048);
        let (s, d) = (v.get_with_offset::<f16>(256, 0), v.get_with_offset::<f16>(256, 512));
        let t = v.get_with_offset::<u8>(2048, 1024);
        let (far, far_t) = (l1.get_with_len::<f16>(256), l1.get::<u8>());
        for api in APIS {
            let n = name(api);
            expect_panic(|| call_any(api, &far, &s, &s, Some(&t), 64), &[n, "dst is at position A1"]);
            let src_name = if api == Api::Fmod { "src0 is at position A1" } else { "src is at position A1" };
            expect_panic(|| call_any(api, &d, &far, &far, Some(&t), 64), &[n, src_name]);
            expect_panic(
                || call_any(api, &d, &s, &s, Some(&far_t), 64),
                &[n, "sharedTmpBuffer is at position A1"],
            );
        }
        expect_panic(|| fmod::<_, false>(&d, &s, &far, &t, 64), &["Fmod", "src1 is at position A1"]);
    });
}

#[test]
fn count_zero_computes_nothing() {
    for soc in CHIPS {
        for api in APIS {
            on(soc, || {
                let u = ub(5 * 1024);
                let (s, d, s1, t) =
                    (u.t::<f16>(0, 512), u.t::<f16>(1024, 512), u.t::<f16>(2048, 512), u.t::<u8>(3072, 2048));
                d.copy_from_slice(&[f16::from_f32(7.0); 512]);
                call_any(api, &d, &s, &s1, Some(&t), 0);
                assert!(d.to_vec().iter().all(|&v| v == f16::from_f32(7.0)), "{api:?} on {soc}");
                assert_eq!(get_mask_mode(), MaskMode::Normal);
            });
        }
    }
}

#[test]
fn fmod_half_round_capped_at_a_short_source_misaligns_the_scratch() {
    // The vendor caps a half round at src0's size and lays out its three float tensors by it:
    // 100 elements put the second at byte 400, not 32-byte aligned, which the Cast refuses.
    on(Soc::Ascend910B, || {
        let u = ub(3 * 256 + 2048);
        let (a, b, d) = (u.t::<f16>(0, 100), u.t::<f16>(256, 100), u.t::<f16>(512, 100));
        let t = u.t::<u8>(768, 2048);
        expect_panic(|| fmod::<_, false>(&d, &a, &b, &t, 100), &["Cast", "32-byte"]);
        // 96 elements keep it aligned.
        let (a, b, d) = (u.t::<f16>(0, 96), u.t::<f16>(256, 96), u.t::<f16>(512, 96));
        a.copy_from_slice(&[f16::from_f32(5.5); 96]);
        b.copy_from_slice(&[f16::from_f32(2.0); 96]);
        fmod::<_, false>(&d, &a, &b, &t, 96);
        assert_eq!(d.get_value(95), f16::from_f32(1.5));
    });
}
