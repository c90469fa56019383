//! The advanced API's math (`adv/math.rs`): `Floor`, `Ceil`, `Trunc`, `Frac`, `Round` and
//! `Sign`, against scalar references that take the vendor's per-element steps
//! with the same roundings — `half` widened to `float` exactly; the rounding to an integral
//! `float` (Rust's `floor`/`ceil`/`trunc`/`round_ties_even`, NaN kept), or on Ascend310P
//! through `int32_t` (`as i32`: saturating, NaN → 0, then `as f32`: to nearest-even); `Frac`'s
//! subtraction in `f32`; the narrowing to `half` to nearest-even (clamped to ±65504 and NaN → 0
//! in saturation mode); `Sign` as `(x < 0 ? 0 : 1) + (x > 0 ? 0 : -1)` in `T` — for both types on every supported chip, random and edge inputs,
//! counts that leave tails, scratch sizes that force several rounds, and the stack form;
//! bit for bit, with the scratch's last round and the mask state afterwards. Then the errors.

use ascend_core::prelude::*;

use crate::common::util;
use util::{adv_io, assert_bits_ctx, expect_panic, f16_round_away, on, ub, AdvIo, Rng, SENTINEL};

// ---- the references ------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
enum Api {
    Floor,
    Ceil,
    Trunc,
    Frac,
    Round,
    Sign,
    Tanh,
    Log,
    Log2,
    Log10,
    Erf,
}

const APIS: [Api; 11] = [
    Api::Erf,
    Api::Floor,
    Api::Ceil,
    Api::Trunc,
    Api::Frac,
    Api::Round,
    Api::Sign,
    Api::Tanh,
    Api::Log,
    Api::Log2,
    Api::Log10,
];

impl Api {
    fn chips(self) -> &'static [Soc] {
        match self {
            Api::Floor => &[Soc::Ascend910B, Soc::Ascend310P, Soc::Ascend310B],
            _ => &[Soc::Ascend910B, Soc::Ascend310P],
        }
    }
    /// The integral rounding of one `float` (Frac: trunc).
    fn integral(self, x: f32) -> f32 {
        match self {
            Api::Floor => x.floor(),
            Api::Ceil => x.ceil(),
            Api::Trunc | Api::Frac => x.trunc(),
            Api::Round => x.round_ties_even(),
            _ => unreachable!(),
        }
    }
}

/// The element types, with the conversions the references need.
trait Fp:
    Element
    + FloorElement
    + ClampElement
    + CeilElement
    + TruncElement
    + FracElement
    + RoundElement
    + SignElement
    + TanhElement
    + LogElement
    + ErfElement
    + std::fmt::Debug
{
    fn to32(self) -> f32;
    /// `float → T` with `CAST_NONE` (identity for `float`).
    fn from32(x: f32, sat: bool) -> Self;
    fn from_bits_rng(rng: &mut Rng) -> Self;
    fn from_bits64(b: u64) -> Self;
    fn edges() -> Vec<f32>;
}

impl Fp for f32 {
    fn to32(self) -> f32 {
        self
    }
    fn from32(x: f32, _sat: bool) -> f32 {
        x
    }
    fn from_bits_rng(rng: &mut Rng) -> f32 {
        f32::from_bits(rng.next() as u32)
    }
    fn from_bits64(b: u64) -> f32 {
        f32::from_bits(b as u32)
    }
    fn edges() -> Vec<f32> {
        let mut v = vec![
            0.0,
            0.5,
            1.5,
            2.5,
            3.5,
            0.49999997,
            0.50000006,
            1.0 - f32::EPSILON / 2.0,
            1.0 + f32::EPSILON,
            1e-45,
            1.2e-38,
            8388607.5,
            8388608.0,
            16777216.0,
            1e10,
            3e38,
            f32::MAX,
            f32::INFINITY,
            f32::NAN,
            2147483520.0,
            2147483648.0,
            2147483904.0,
            65504.0,
            65520.0,
            9.33,
            8.07,
            6.38,
        ];
        v.extend(v.clone().iter().map(|x| -x));
        v
    }
}

impl Fp for f16 {
    fn to32(self) -> f32 {
        self.to_f32()
    }
    fn from32(x: f32, sat: bool) -> f16 {
        let x = if sat {
            if x.is_nan() {
                0.0
            } else {
                x.clamp(-65504.0, 65504.0)
            }
        } else {
            x
        };
        f16::from_f32(x)
    }
    fn from_bits_rng(rng: &mut Rng) -> f16 {
        f16::from_bits(rng.next() as u16)
    }
    fn from_bits64(b: u64) -> f16 {
        f16::from_bits(b as u16)
    }
    fn edges() -> Vec<f32> {
        let mut v = vec![
            0.0,
            0.5,
            1.5,
            2.5,
            3.5,
            0.49975586,
            1025.0 / 2048.0,
            2047.0 / 2048.0,
            1.0009766,
            5.9604645e-8,
            1023.5,
            1024.0,
            2047.0,
            65504.0,
            f32::INFINITY,
            f32::NAN,
            9.33,
            8.07,
            6.38,
        ];
        v.extend(v.clone().iter().map(|x| -x));
        v
    }
}

/// `float` rounded to an integral `float` as the chip's steps do.
fn r_integral(api: Api, soc: Soc, x: f32) -> f32 {
    if soc == Soc::Ascend310P {
        api.integral(x) as i32 as f32
    } else if x.is_nan() {
        x
    } else {
        api.integral(x)
    }
}

/// One element of `api` on `soc`.
fn reference<T: Fp>(api: Api, soc: Soc, sat: bool, x: T) -> T {
    let xf = x.to32();
    if api == Api::Tanh {
        return T::from32(r_tanh(xf).1, sat);
    }
    if matches!(api, Api::Log | Api::Log2 | Api::Log10) {
        return r_log(api, sat, x);
    }
    if api == Api::Erf {
        let q = r_erf(xf).0;
        return if T::SIZE == 2 && soc == Soc::Ascend910B {
            T::from_bits64(u64::from(f16_round_away(q).to_bits()))
        } else {
            T::from32(q, sat)
        };
    }
    if api == Api::Sign {
        let a = if xf < 0.0 { 0.0 } else { 1.0 };
        let b = if xf > 0.0 { 0.0 } else { -1.0 };
        return T::from32(a + b, sat);
    }
    let t = r_integral(api, soc, xf);
    T::from32(if api == Api::Frac { xf - t } else { t }, sat)
}

/// Tanh's steps in float: the clip to [-8.8, 8.8] (IEEE minimum/maximum), `* 2`, `Exp` (in f64,
/// rounded once), `- 1` and `+ 1`, the quotient; returns `(e^2x + 1, quotient)`.
fn r_tanh(x: f32) -> (f32, f32) {
    let c = ieee_max_min(ieee_max_min(x, 8.8, false), -8.8, true) * 2.0;
    let e = (c as f64).exp() as f32;
    let den = e + 1.0;
    (den, (e + -1.0) / den)
}

/// `x` to `half` as the hardware rounds a result: once, saturated in saturation mode.
fn sat16(x: f64, sat: bool) -> f16 {
    f16::from_f64(if sat && x.is_nan() {
        0.0
    } else if sat {
        x.clamp(-65504.0, 65504.0)
    } else {
        x
    })
}

/// The Log family's steps: `Ln` (in f64, rounded once to `T`; `Log2` for half on the widened
/// value in float), then for `Log2` a float `Muls` by `(float)1.4426950408889634`, for `Log10` a
/// `T` `Muls` by `(T)0.43429448190325176` (half: in float, rounded once).
fn r_log<T: Fp>(api: Api, sat: bool, x: T) -> T {
    let ln32 = |v: f32| (v as f64).ln() as f32;
    let log2_e = std::f64::consts::LOG2_E as f32;
    let c10 = 0.434_294_481_903_251_76_f64 as f32;
    if T::SIZE == 4 {
        let l = ln32(x.to32());
        return T::from32(
            match api {
                Api::Log => l,
                Api::Log2 => l * log2_e,
                _ => l * c10,
            },
            sat,
        );
    }
    let ln16 = sat16((x.to32() as f64).ln(), sat);
    match api {
        Api::Log => T::from32(ln16.to_f32(), sat),
        Api::Log2 => T::from32(ln32(x.to32()) * log2_e, sat),
        _ => T::from32(ln16.to_f32() * f16::from_f32(c10).to_f32(), sat),
    }
}

/// Erf's steps in float: `(P / Q, P, Q, the last product of Q's scheme, x²)`, `x` clipped to
/// [-3.92, 3.92] (IEEE minimum/maximum), the constants the float values of the vendor's double
/// literals.
fn r_erf(x: f32) -> (f32, f32, f32, f32, f32) {
    let p = [
        0.29639384698e5_f64,
        0.50637915060e4,
        0.13938061484e4,
        0.10162808918e3,
        0.75517016694e1,
        0.053443748819,
    ]
    .map(|c| c as f32);
    let q = [0.26267224157e5_f64, 0.13243365831e5, 0.30231248150e4, 0.39856963806e3, 0.31212858877e2]
        .map(|c| c as f32);
    let b = 3.92_f64 as f32;
    let c = ieee_max_min(ieee_max_min(x, b, false), -b, true);
    let x2 = c * c;
    let mut t2 = x2 * p[5];
    for k in (0..5).rev() {
        let t3 = t2 + p[k];
        t2 = if k == 0 { c } else { x2 } * t3;
    }
    let mut q3 = x2 + q[4];
    let mut xm = 0.0;
    for qk in q[..4].iter().rev() {
        xm = x2 * q3;
        q3 = xm + qk;
    }
    (t2 / q3, t2, q3, xm, x2)
}

/// Random inputs: edge values, values near integers and halves, random bits.
fn inputs<T: Fp>(rng: &mut Rng, n: usize) -> Vec<T> {
    let edges = T::edges();
    (0..n)
        .map(|_| match rng.below(4) {
            0 => T::from_f64(edges[rng.index(edges.len())] as f64),
            1 => {
                // k/4 and its neighbours
                let k = rng.range(0, 4000) as f64 / 4.0 - 500.0;
                let y = T::from_f64(k);
                match rng.below(3) {
                    0 => y,
                    1 => T::from_bits64(y.to_bits_u64().wrapping_add(1)),
                    _ => T::from_bits64(y.to_bits_u64().wrapping_sub(1)),
                }
            }
            2 => T::from_f64((rng.next() as f64 / u64::MAX as f64 - 0.5) * 200.0),
            _ => T::from_bits_rng(rng),
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
        (Api::Floor, Some(t)) => floor::<T, false>(dst, src, t, n),
        (Api::Ceil, Some(t)) => ceil::<T, false>(dst, src, t, n),
        (Api::Trunc, Some(t)) => trunc::<T, false>(dst, src, t, n),
        (Api::Frac, Some(t)) => frac::<T, false>(dst, src, t, n),
        (Api::Round, Some(t)) => round::<T, false>(dst, src, t, n),
        (Api::Sign, Some(t)) => sign::<T, false>(dst, src, t, n),
        (Api::Tanh, Some(t)) => tanh::<T, false>(dst, src, t, n),
        (Api::Log, _) => log::<T, false>(dst, src, n),
        (Api::Log2, Some(t)) => log2::<T, false>(dst, src, t, n),
        (Api::Erf, Some(t)) => erf::<T, false>(dst, src, t, n),
        (Api::Erf, None) => erf_stack::<T, false>(dst, src, n),
        (Api::Log10, _) => log10::<T, false>(dst, src, n),
        (Api::Floor, None) => floor_stack::<T, false>(dst, src, n),
        (Api::Ceil, None) => ceil_stack::<T, false>(dst, src, n),
        (Api::Trunc, None) => trunc_stack::<T, false>(dst, src, n),
        (Api::Frac, None) => frac_stack::<T, false>(dst, src, n),
        (Api::Round, None) => round_stack::<T, false>(dst, src, n),
        (Api::Sign, None) => sign_stack::<T, false>(dst, src, n),
        (Api::Tanh, None) => tanh_stack::<T, false>(dst, src, n),
        (Api::Log2, None) => log2_stack::<T, false>(dst, src, n),
    }
}

/// The elements one round computes with `bytes` of scratch (0: the scratch is not used).
fn split_of<T: Fp>(api: Api, soc: Soc, bytes: usize) -> usize {
    let half = T::SIZE == 2;
    let div = match api {
        Api::Sign => return bytes / T::SIZE / 3 / 32 * 32,
        Api::Tanh if half => 2,
        Api::Log | Api::Log10 => return 0,
        Api::Erf => return bytes / T::SIZE / if half { 8 } else { 3 } / 32 * 32,
        Api::Log2 if !half => return 0,
        Api::Floor if !half => return 0,
        Api::Frac if !half => return 0,
        Api::Frac => 2,
        Api::Round if !half && soc == Soc::Ascend910B => return 0,
        Api::Round if half && soc == Soc::Ascend310P => 2,
        Api::Ceil | Api::Trunc if !half && soc == Soc::Ascend910B => return 0,
        _ => 1,
    };
    bytes / 4 / div / 32 * 32
}

/// Runs `api` on `soc` over `count` random elements with `tmp_bytes` of scratch (or the stack
/// form), in place when `in_place`; checks the result, the untouched tail of `dst`, the
/// scratch's last round and the mask state.
fn check<T: Fp>(api: Api, soc: Soc, count: usize, tmp_bytes: Option<usize>, in_place: bool, seed: u64) {
    on(soc, || {
        let mut rng = Rng(seed);
        // Sign's Compare reads whole repeats past the count: room for one more.
        let cap = count + 168;
        let AdvIo { src, dst, tmp, .. } = &adv_io::<T>(cap, tmp_bytes.unwrap_or(0));
        let dst = if in_place { src } else { dst };
        let mut x: Vec<T> = inputs(&mut rng, cap);
        if matches!(api, Api::Tanh | Api::Log | Api::Log2 | Api::Log10 | Api::Erf) {
            // The page defines no NaN (which payload survives the steps).
            x.iter_mut().filter(|v| v.to32().is_nan()).for_each(|v| *v = T::from32(1.0, false));
        }
        src.copy_from_slice(&x);
        let old: Vec<T> = if in_place { x.clone() } else { inputs(&mut rng, cap) };
        if !in_place {
            dst.copy_from_slice(&old);
        }
        call(api, dst, src, tmp_bytes.map(|_| tmp), count);
        let sat = get_overflow_mode() == OverflowMode::Saturation;
        let ctx =
            format!("{api:?} {} on {soc}, count {count}, tmp {tmp_bytes:?}, in place {in_place}", T::DTYPE);
        let mut want: Vec<T> = x[..count].iter().map(|&v| reference(api, soc, sat, v)).collect();
        want.extend_from_slice(&old[count..]);
        assert_bits_ctx(&dst.to_vec(), &want, &ctx);
        if !in_place {
            assert_bits_ctx(&src.to_vec(), &x, format!("src written; {ctx}"));
        }
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
        assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{ctx}");
        // The scratch: untouched when unused; else the last round's intermediates.
        let Some(bytes) = tmp_bytes else { return };
        let split = split_of::<T>(api, soc, bytes);
        if split == 0 {
            assert!(tmp.to_vec().iter().all(|&b| b == SENTINEL), "scratch written; {ctx}");
            return;
        }
        if count == 0 {
            return;
        }
        let off = if count % split != 0 { count / split * split } else { count - split };
        let last = &x[off..count];
        let n = last.len();
        if api == Api::Erf {
            // Three float tensors of the split: x² (half: then the quotient), P, Q; for half a
            // fourth: x, then Q's last product.
            let f = tmp.reinterpret_cast::<f32>().to_vec();
            let steps: Vec<_> = last.iter().map(|v| r_erf(v.to32())).collect();
            let col = |k: usize| -> Vec<f32> { steps.iter().map(|s| [s.0, s.1, s.2, s.3, s.4][k]).collect() };
            let first = if T::SIZE == 2 { col(0) } else { col(4) };
            assert_bits_ctx(&f[..n], &first, format!("scratch's first tensor; {ctx}"));
            assert_bits_ctx(&f[split..split + n], &col(1), format!("scratch's P; {ctx}"));
            assert_bits_ctx(&f[2 * split..2 * split + n], &col(2), format!("scratch's Q; {ctx}"));
            if T::SIZE == 2 {
                assert_bits_ctx(&f[3 * split..3 * split + n], &col(3), format!("scratch's products; {ctx}"));
            }
            return;
        }
        if api == Api::Log2 {
            // half: the products in the scratch.
            let f = tmp.reinterpret_cast::<f32>().to_vec();
            let want: Vec<f32> = last
                .iter()
                .map(|v| ((v.to32() as f64).ln() as f32) * std::f64::consts::LOG2_E as f32)
                .collect();
            assert_bits_ctx(&f[..n], &want, format!("scratch; {ctx}"));
            return;
        }
        if api == Api::Tanh {
            // half: the quotients in the first split; the denominators in the clip (the second
            // split for half, the first for float).
            let f = tmp.reinterpret_cast::<f32>().to_vec();
            let steps: Vec<(f32, f32)> = last.iter().map(|v| r_tanh(v.to32())).collect();
            let dens: Vec<f32> = steps.iter().map(|s| s.0).collect();
            let clip = if T::SIZE == 2 { split } else { 0 };
            assert_bits_ctx(&f[clip..clip + n], &dens, format!("scratch's clip; {ctx}"));
            if T::SIZE == 2 {
                let quots: Vec<f32> = steps.iter().map(|s| s.1).collect();
                assert_bits_ctx(&f[..n], &quots, format!("scratch's conversion; {ctx}"));
            }
            return;
        }
        if api == Api::Sign {
            // Two bit masks of align_up(split / 8, 32) bytes, then -1s and the first Select.
            let len = (split / 8).div_ceil(32) * 32;
            let b = tmp.to_vec();
            let bit = |base: usize, i: usize| b[base + i / 8] >> (i % 8) & 1 == 1;
            for (i, v) in last.iter().enumerate() {
                let v = v.to32();
                assert_eq!((bit(0, i), bit(len, i)), (v < 0.0, v > 0.0), "scratch masks, lane {i}; {ctx}");
            }
            let t = tmp.view(2 * len).reinterpret_cast::<T>().to_vec();
            let minus: Vec<T> = vec![T::from32(-1.0, false); n];
            assert_bits_ctx(&t[..n], &minus, format!("scratch's third tensor; {ctx}"));
            let first: Vec<T> =
                last.iter().map(|v| T::from32(if v.to32() < 0.0 { 0.0 } else { 1.0 }, false)).collect();
            assert_bits_ctx(&t[split..split + n], &first, format!("scratch's fourth tensor; {ctx}"));
            return;
        }
        if T::SIZE == 4 {
            // Ascend310P's int32_t step in the scratch.
            let ints: Vec<i32> = last.iter().map(|v| api.integral(v.to32()) as i32).collect();
            assert_eq!(tmp.reinterpret_cast::<i32>().to_vec()[..n], ints[..], "scratch; {ctx}");
            return;
        }
        let f = tmp.reinterpret_cast::<f32>().to_vec();
        let wide: Vec<f32> = last.iter().map(|v| v.to32()).collect();
        let integral: Vec<f32> = wide.iter().map(|&v| r_integral(api, soc, v)).collect();
        if api == Api::Frac {
            assert_bits_ctx(&f[..n], &wide, format!("scratch's first split; {ctx}"));
            let fr: Vec<f32> = wide.iter().zip(&integral).map(|(a, b)| a - b).collect();
            assert_bits_ctx(&f[split..split + n], &fr, format!("scratch's second split; {ctx}"));
        } else {
            assert_bits_ctx(&f[..n], &integral, format!("scratch; {ctx}"));
        }
    });
}

/// Every function, type and chip: counts with tails, scratch sizes from the minimum up
/// (several rounds), one not a multiple of 32, and the stack form.
fn sweep<T: Fp>(seed: u64) {
    let mut s = seed;
    for api in APIS {
        for &soc in api.chips() {
            for count in [1usize, 37, 64, 200, 1000] {
                for tmp in [Some(256usize), Some(544), Some(1024), Some(4096), None] {
                    s += 1;
                    let tmp = tmp.map(|b| match api {
                        Api::Sign => 3 * b,
                        Api::Erf => 4 * b,
                        _ => b,
                    });
                    check::<T>(api, soc, count, tmp, false, s);
                }
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
fn trunc_and_round_in_place() {
    for api in [Api::Trunc, Api::Round] {
        for soc in [Soc::Ascend910B, Soc::Ascend310P] {
            check::<f16>(api, soc, 300, Some(512), true, 7);
            check::<f32>(api, soc, 300, Some(512), true, 8);
        }
    }
}

#[test]
fn both_overflow_modes() {
    // half narrowing of inf and NaN in both modes (only Ascend910B can switch; the other chips
    // saturate, which the sweeps cover).
    for soc in [Soc::Ascend910B] {
        for mode in [OverflowMode::Saturation, OverflowMode::InfNan] {
            on(soc, || {
                set_overflow_mode(mode);
                let u = ub(3 * 512);
                let (x, y, tmp) = (u.t::<f16>(0, 64), u.t::<f16>(512, 64), u.t::<u8>(1024, 512));
                let v: Vec<f16> = [f32::INFINITY, f32::NEG_INFINITY, f32::NAN, -2.5]
                    .iter()
                    .cycle()
                    .take(64)
                    .map(|&v| f16::from_f32(v))
                    .collect();
                x.copy_from_slice(&v);
                floor::<_, false>(&y, &x, &tmp, 64);
                let sat = mode == OverflowMode::Saturation;
                let want: Vec<f16> = v.iter().map(|&e| reference(Api::Floor, soc, sat, e)).collect();
                assert_bits_ctx(&y.to_vec(), &want, format!("{soc} {mode:?}"));
            });
        }
    }
}

#[test]
fn vendor_page_examples() {
    // The worked examples of the vendor's pages (half).
    let cases: [(Api, [f32; 8], [f32; 8]); 4] = [
        (Api::Floor, [-1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 4.5, 5.5], [-2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0]),
        (Api::Ceil, [-1.1, 0.0, 0.9, 1.9, 2.9, 3.9, 4.9, 5.9], [-1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
        (
            Api::Trunc,
            [9.33, -8.07, -6.38, 8.45, 5.83, 6.46, 4.18, 1.93],
            [9.0, -8.0, -6.0, 8.0, 5.0, 6.0, 4.0, 1.0],
        ),
        (
            Api::Round,
            [6.6, -4.3, -8.6, 8.8, -8.3, 6.5, 0.5, 1.5],
            [7.0, -4.0, -9.0, 9.0, -8.0, 6.0, 0.0, 2.0],
        ),
    ];
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        for (api, x, want) in cases {
            on(soc, || {
                let u = ub(3 * 1024);
                let (s, d, t) = (u.t::<f16>(0, 8), u.t::<f16>(1024, 8), u.t::<u8>(2048, 1024));
                s.copy_from_slice(&x.map(f16::from_f32));
                call(api, &d, &s, Some(&t), 8);
                let want = want.map(f16::from_f32);
                assert_bits_ctx(&d.to_vec(), &want, format!("{api:?} on {soc}"));
            });
        }
    }
    // Sign (float), with infinities and NaNs.
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        on(soc, || {
            let u = ub(3 * 1024);
            let (s, d, t) = (u.t::<f32>(0, 64), u.t::<f32>(256, 64), u.t::<u8>(512, 768));
            let mut x = vec![0.0f32; 64];
            x[..8].copy_from_slice(&[
                f32::NEG_INFINITY,
                -2.0,
                -0.0,
                0.0,
                f32::NAN,
                -f32::NAN,
                2.0,
                f32::INFINITY,
            ]);
            s.copy_from_slice(&x);
            sign::<_, false>(&d, &s, &t, 8);
            assert_bits_ctx(
                &d.to_vec()[..8],
                &[-1.0, -1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0],
                format!("Sign on {soc}"),
            );
        });
    }
    // Frac: the fractional part with the sign of x (float).
    on(Soc::Ascend910B, || {
        let u = ub(3 * 256);
        let (s, d, t) = (u.t::<f32>(0, 8), u.t::<f32>(256, 8), u.t::<u8>(512, 256));
        let x = [9.33f32, -8.07, -6.38, 8.45, 5.83, 6.46, 4.18, 1.93];
        s.copy_from_slice(&x);
        frac::<_, false>(&d, &s, &t, 8);
        let want: Vec<f32> = x.iter().map(|v| v - v.trunc()).collect();
        assert_bits_ctx(&d.to_vec(), &want, "Frac");
        assert!((d.get_value(0) - 0.33).abs() < 1e-5 && (d.get_value(1) + 0.07).abs() < 1e-5);
    });
}

#[test]
fn ascend310p_saturates_through_int32() {
    on(Soc::Ascend310P, || {
        let u = ub(3 * 256);
        let (s, d, t) = (u.t::<f32>(0, 8), u.t::<f32>(256, 8), u.t::<u8>(512, 256));
        s.copy_from_slice(&[3e9, -3e9, f32::NAN, f32::INFINITY, 2147483520.0, -2147483648.0, 1.5, -1.5]);
        ceil::<_, false>(&d, &s, &t, 8);
        assert_eq!(
            d.to_vec(),
            [2147483648.0, -2147483648.0, 0.0, 2147483648.0, 2147483520.0, -2147483648.0, 2.0, -1.0]
        );
    });
}

// ---- the errors ----------------------------------------------------------------------------

fn with_tensors(soc: Soc, f: impl FnOnce(&LocalTensor<f16>, &LocalTensor<f16>, &LocalTensor<u8>)) {
    on(soc, || {
        let u = ub(3 * 1024);
        f(&u.t::<f16>(0, 512), &u.t::<f16>(1024, 512), &u.t::<u8>(2048, 1024));
    });
}

#[test]
fn unsupported_chips() {
    with_tensors(Soc::Ascend910, |s, d, t| {
        expect_panic(
            || floor::<_, false>(d, s, t, 8),
            &["Floor", "no implementation on Ascend910", "Ascend910B"],
        );
    });
    for (api, name) in [
        (Api::Ceil, "Ceil"),
        (Api::Trunc, "Trunc"),
        (Api::Frac, "Frac"),
        (Api::Round, "Round"),
        (Api::Sign, "Sign"),
        (Api::Tanh, "Tanh"),
        (Api::Log, "Log"),
        (Api::Log2, "Log2"),
        (Api::Log10, "Log10"),
        (Api::Erf, "Erf"),
    ] {
        for soc in [Soc::Ascend910, Soc::Ascend310B] {
            with_tensors(soc, |s, d, t| {
                let msg = format!("no implementation on {soc}");
                expect_panic(|| call(api, d, s, Some(t), 8), &[name, &msg]);
            });
        }
    }
}

#[test]
fn count_beyond_tensors() {
    for api in APIS {
        with_tensors(Soc::Ascend910B, |s, d, t| {
            expect_panic(|| call(api, d, s, Some(t), 513), &["calCount = 513 exceeds"]);
        });
    }
}

#[test]
fn scratch_too_small() {
    for (api, bytes, soc) in [
        (Api::Floor, 96, Soc::Ascend910B),
        (Api::Floor, 96, Soc::Ascend310B),
        (Api::Ceil, 96, Soc::Ascend310P),
        (Api::Trunc, 120, Soc::Ascend910B),
        (Api::Frac, 224, Soc::Ascend910B),
        (Api::Round, 224, Soc::Ascend310P),
        (Api::Sign, 190, Soc::Ascend910B),
        (Api::Tanh, 224, Soc::Ascend310P),
        (Api::Log2, 96, Soc::Ascend910B),
        (Api::Erf, 500, Soc::Ascend310P),
    ] {
        on(soc, || {
            let u = ub(3 * 1024);
            let (s, d, t) = (u.t::<f16>(0, 64), u.t::<f16>(1024, 64), u.t::<u8>(2048, bytes));
            let has = format!("sharedTmpBuffer has {bytes} bytes");
            expect_panic(|| call(api, &d, &s, Some(&t), 64), &[&has]);
        });
    }
    // Frac for float wants one float of scratch.
    on(Soc::Ascend910B, || {
        let u = ub(3 * 256);
        let (s, d, t) = (u.t::<f32>(0, 64), u.t::<f32>(256, 64), u.t::<u8>(512, 2));
        expect_panic(|| frac::<_, false>(&d, &s, &t, 64), &["Frac", "sharedTmpBuffer has 2 bytes"]);
    });
}

#[test]
fn float_scratch_not_needed_where_unused() {
    // Floor (all chips), Round and Ceil/Trunc on Ascend910B for float: a small scratch is fine
    // where the vendor's path does not use it.
    for (api, soc) in
        [(Api::Floor, Soc::Ascend910B), (Api::Floor, Soc::Ascend310P), (Api::Round, Soc::Ascend910B)]
    {
        on(soc, || {
            let u = ub(3 * 256);
            let (s, d, t) = (u.t::<f32>(0, 64), u.t::<f32>(256, 64), u.t::<u8>(512, 32));
            s.copy_from_slice(&[2.5f32; 64]);
            call(api, &d, &s, Some(&t), 64);
            assert_eq!(d.get_value(63), 2.0, "{api:?} {soc}");
        });
    }
}

#[test]
fn forbidden_overlaps() {
    for api in
        [Api::Floor, Api::Ceil, Api::Frac, Api::Sign, Api::Tanh, Api::Log, Api::Log2, Api::Log10, Api::Erf]
    {
        with_tensors(Soc::Ascend910B, |s, _d, t| {
            expect_panic(|| call(api, s, s, Some(t), 64), &["dst UB bytes", "overlap src"]);
            let d2 = s.view(16);
            expect_panic(|| call(api, &d2, s, Some(t), 64), &["overlap src"]);
        });
    }
    // Log and Log10 take no scratch.
    for api in APIS.into_iter().filter(|a| !matches!(a, Api::Log | Api::Log10)) {
        on(Soc::Ascend910B, || {
            let u = ub(3 * 1024);
            let (s, d) = (u.t::<f16>(0, 512), u.t::<f16>(1024, 512));
            let t_on_src = u.t::<u8>(512, 1024);
            expect_panic(
                || call(api, &d, &s, Some(&t_on_src), 512),
                &["sharedTmpBuffer UB bytes", "overlap src"],
            );
            let t_on_dst = u.t::<u8>(1024, 512);
            expect_panic(
                || call(api, &d, &s, Some(&t_on_dst), 64),
                &["sharedTmpBuffer UB bytes", "overlap dst"],
            );
        });
    }
}

#[test]
fn stack_form_needs_a_pipe_with_room() {
    on(Soc::Ascend910B, || {
        let ub_bytes = get_soc().ub_size() - 64;
        let u = ub(ub_bytes);
        let (s, d) = (u.t::<f16>(0, 64), u.t::<f16>(256, 64));
        expect_panic(|| floor_stack::<_, false>(&d, &s, 64), &["Floor", "no space left"]);
    });
}

#[test]
fn host_tiling() {
    assert_eq!(get_floor_max_min_tmp_size(8, 2, false), (512, 512));
    assert_eq!(get_floor_max_min_tmp_size(8, 4, false), (0, 0));
    assert_eq!(get_ceil_max_min_tmp_size(8, 2, false), (512, 512));
    assert_eq!(get_ceil_max_min_tmp_size(1000, 4, false), (4000, 256));
    assert_eq!(get_trunc_max_min_tmp_size(1000, 2, false), (4000, 512));
    assert_eq!(get_frac_max_min_tmp_size(1000, 2, false), (8000, 1024));
    assert_eq!(get_frac_max_min_tmp_size(1000, 4, false), (0, 0));
    assert_eq!(get_round_max_min_tmp_size(Soc::Ascend910B, 1000, 2, false), (2000, 256));
    assert_eq!(get_round_max_min_tmp_size(Soc::Ascend310P, 1000, 4, false), (4000, 256));
    assert_eq!(get_round_max_min_tmp_size(Soc::Ascend310P, 1000, 2, false), (4000, 512));
    assert_eq!(get_sign_max_min_tmp_size(1000, 4, false), (12000, 768));
    assert_eq!(get_sign_max_min_tmp_size(10, 4, false), (768, 768));
    assert_eq!(get_sign_tmp_buffer_factor_size(2), (3, 0));
    assert_eq!(get_tanh_max_min_tmp_size(1000, 2, false), (8000, 1024));
    assert_eq!(get_tanh_max_min_tmp_size(1000, 4, false), (4000, 256));
    assert_eq!(get_tanh_tmp_buffer_factor_size(4), (1, 0));
    assert_eq!(get_erf_max_min_tmp_size(1000, 2, false), (16000, 2048));
    assert_eq!(get_erf_max_min_tmp_size(1000, 4, false), (12000, 768));
    assert_eq!(get_erf_tmp_buffer_factor_size(4), (3, 0));
    assert_eq!(get_log_max_min_tmp_size(1000, 4, false), (0, 0));
    assert_eq!(get_log2_max_min_tmp_size(1000, 2, false), (4000, 256));
    assert_eq!(get_log2_max_min_tmp_size(10, 2, false), (256, 256));
    assert_eq!(get_log2_max_min_tmp_size(1000, 4, false), (0, 0));
    assert_eq!(get_log2_tmp_buffer_factor_size(4), (0, 0));
    // Log10's half constant: the double literal rounds to the same half through float.
    let c = 0.434_294_481_903_251_76_f64;
    assert_eq!(f16::from_f64(c).to_bits(), f16::from_f32(c as f32).to_bits());
    assert_eq!(get_floor_tmp_buffer_factor_size(4), (0, 0));
    assert_eq!(get_ceil_tmp_buffer_factor_size(2), (2, 0));
    assert_eq!(get_trunc_tmp_buffer_factor_size(4), (1, 0));
    assert_eq!(get_frac_tmp_buffer_factor_size(4), (0, 0));
    assert_eq!(get_round_tmp_buffer_factor_size(Soc::Ascend910B, 4), (0, 0));
    assert_eq!(get_round_tmp_buffer_factor_size(Soc::Ascend910B, 2), (1, 0));
    assert_eq!(get_round_tmp_buffer_factor_size(Soc::Ascend310P, 4), (1, 0));
    expect_panic(
        || {
            let _ = get_floor_max_min_tmp_size(0, 2, false);
        },
        &["GetFloorMaxMinTmpSize", "greater than 0"],
    );
    expect_panic(
        || {
            let _ = get_ceil_max_min_tmp_size(8, 8, false);
        },
        &["GetCeilMaxMinTmpSize", "typeSize = 8"],
    );
    expect_panic(
        || {
            let _ = get_round_max_min_tmp_size(Soc::Ascend310B, 8, 2, false);
        },
        &["GetRoundMaxMinTmpSize", "Ascend310B"],
    );
    // The minimum is enough: every function runs with it (one split of 32 elements at least).
    for api in APIS {
        for &soc in api.chips() {
            let min = match api {
                Api::Floor => get_floor_max_min_tmp_size(100, 2, false).1,
                Api::Ceil => get_ceil_max_min_tmp_size(100, 2, false).1,
                Api::Trunc => get_trunc_max_min_tmp_size(100, 2, false).1,
                Api::Frac => get_frac_max_min_tmp_size(100, 2, false).1,
                Api::Round => get_round_max_min_tmp_size(soc, 100, 2, false).1,
                Api::Sign => get_sign_max_min_tmp_size(100, 2, false).1,
                Api::Tanh => get_tanh_max_min_tmp_size(100, 2, false).1,
                Api::Log | Api::Log10 => get_log_max_min_tmp_size(100, 2, false).1,
                Api::Log2 => get_log2_max_min_tmp_size(100, 2, false).1,
                Api::Erf => get_erf_max_min_tmp_size(100, 2, false).1,
            };
            check::<f16>(api, soc, 100, Some(min), false, 99);
        }
    }
}

#[test]
fn sign_compares_whole_repeats() {
    // The vendor's Compare reads the whole last repeat: tensors that end before it fail.
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        on(soc, || {
            let u = ub(3 * 1024);
            let (s, d, t) = (u.t::<f32>(0, 40), u.t::<f32>(256, 40), u.t::<u8>(512, 768));
            expect_panic(|| sign::<_, false>(&d, &s, &t, 40), &["Compare", "would touch element 63"]);
        });
    }
}

// ---- ClampMax, ClampMin ----------------------------------------------------------------------

/// IEEE 754-2019 `maximum` (`max = true`) or `minimum`: NaN if either is NaN (`a + b`), and
/// `-0 < +0`.
fn ieee_max_min(a: f32, b: f32, max: bool) -> f32 {
    if a.is_nan() || b.is_nan() {
        a + b
    } else if a == b {
        // Equal, or zeros of either sign: the maximum takes +0 if either is, the minimum -0.
        if a.is_sign_negative() == max {
            b
        } else {
            a
        }
    } else if (a > b) == max {
        a
    } else {
        b
    }
}

fn check_clamp<T: Fp>(soc: Soc, max: bool, count: usize, stack_form: bool, seed: u64) {
    on(soc, || {
        let mut rng = Rng(seed);
        let cap = count + 40;
        let region = (cap * T::SIZE).div_ceil(32) * 32;
        let u = ub(2 * region + 256);
        let (src, dst, tmp) = (u.t::<T>(0, cap), u.t::<T>(region, cap), u.t::<u8>(2 * region, 256));
        let x: Vec<T> = inputs(&mut rng, cap);
        let old: Vec<T> = inputs(&mut rng, cap);
        src.copy_from_slice(&x);
        dst.copy_from_slice(&old);
        let edges = T::edges();
        let scalar = T::from_f64(edges[rng.index(edges.len())] as f64);
        match (max, stack_form) {
            (true, false) => clamp_max::<T, false>(&dst, &src, &tmp, scalar, count),
            (true, true) => clamp_max_stack::<T, false>(&dst, &src, scalar, count),
            (false, false) => clamp_min::<T, false>(&dst, &src, &tmp, scalar, count),
            (false, true) => clamp_min_stack::<T, false>(&dst, &src, scalar, count),
        }
        // ClampMax is a minimum, ClampMin a maximum.
        // half: computed in float, narrowed once (saturated in saturation mode).
        let sat = get_overflow_mode() == OverflowMode::Saturation;
        let mut want: Vec<T> =
            x[..count].iter().map(|v| T::from32(ieee_max_min(v.to32(), scalar.to32(), !max), sat)).collect();
        want.extend_from_slice(&old[count..]);
        let api = if max { "ClampMax" } else { "ClampMin" };
        let ctx = format!("{api} {} on {soc}, count {count}, scalar {scalar:?}", T::DTYPE);
        assert_bits_ctx(&dst.to_vec(), &want, &ctx);
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
        assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{ctx}");
    });
}

#[test]
fn clamp_max_and_min() {
    let mut seed = 3000;
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        for max in [true, false] {
            for count in [1, 37, 128, 1000] {
                for stack_form in [false, true] {
                    for _ in 0..4 {
                        seed += 1;
                        check_clamp::<f16>(soc, max, count, stack_form, seed);
                        check_clamp::<f32>(soc, max, count, stack_form, seed);
                    }
                }
            }
        }
    }
    // The vendor page's example: ClampMax(half, 2) of 0..127.
    on(Soc::Ascend910B, || {
        let u = ub(3 * 256);
        let (s, d, t) = (u.t::<f16>(0, 128), u.t::<f16>(256, 128), u.t::<u8>(512, 128));
        s.copy_from_slice(&(0..128).map(|i| f16::from_f32(i as f32)).collect::<Vec<_>>());
        clamp_max::<f16, false>(&d, &s, &t, f16::from_f32(2.0), 128);
        let want: Vec<f16> = (0..128).map(|i| f16::from_f32((i as f32).min(2.0))).collect();
        assert_bits_ctx(&d.to_vec(), &want, "ClampMax example");
    });
}

#[test]
fn clamp_errors() {
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        with_tensors(soc, |s, d, t| {
            let msg = format!("no implementation on {soc}");
            expect_panic(|| clamp_max::<_, false>(d, s, t, f16::ONE, 8), &["ClampMax", &msg]);
            expect_panic(|| clamp_min::<_, false>(d, s, t, f16::ONE, 8), &["ClampMin", &msg]);
        });
    }
    with_tensors(Soc::Ascend910B, |s, d, t| {
        expect_panic(
            || clamp_min::<_, false>(d, s, t, f16::ONE, 600),
            &["ClampMin", "calCount = 600 exceeds"],
        );
        expect_panic(
            || clamp_max::<_, false>(s, s, t, f16::ONE, 8),
            &["ClampMax", "dst UB bytes", "overlap src"],
        );
        let t_on_src = s.reinterpret_cast::<u8>();
        expect_panic(
            || clamp_min::<_, false>(d, s, &t_on_src, f16::ONE, 8),
            &["ClampMin", "sharedTmpBuffer UB bytes", "overlap src"],
        );
    });
    assert_eq!(get_clamp_max_min_tmp_size(256, 4, false), (256, 64));
    assert_eq!(get_clamp_max_min_tmp_size(1000, 2, false), (1000, 128));
    assert_eq!(get_clamp_tmp_buffer_factor_size(2), (1, 0));
    expect_panic(
        || {
            let _ = get_clamp_max_min_tmp_size(0, 4, false);
        },
        &["GetClampMaxMinTmpSize", "greater than 0"],
    );
}

// ---- Axpy (advanced) -------------------------------------------------------------------------

/// Runs `axpy_adv::<T, U>` on `soc` and checks it against `dst = (float)src * (float)scalar +
/// (float)dst` (each step rounded to float; narrowed once for a half `dst`; for float/float the
/// basic `Axpy`: the same two roundings), the untouched tail, the scratch's last round and the
/// mask state.
fn check_axpy<T: Fp + AxpyAdvElement<U>, U: Fp>(soc: Soc, count: usize, tmp_bytes: usize, seed: u64) {
    on(soc, || {
        let mut rng = Rng(seed);
        let cap = count + 40;
        let (rs, rd) = ((cap * U::SIZE).div_ceil(32) * 32, (cap * T::SIZE).div_ceil(32) * 32);
        let u = ub(rs + rd + tmp_bytes.div_ceil(32) * 32 + 32);
        let (src, dst, tmp) = (u.t::<U>(0, cap), u.t::<T>(rs, cap), u.t::<u8>(rs + rd, tmp_bytes));
        // No NaN inputs: the page does not define them (which operand's payload an Add keeps);
        // infinities stay (inf - inf gives the default NaN).
        let no_nan =
            |v: Vec<f32>| v.into_iter().map(|e| if e.is_nan() { 1.0 } else { e }).collect::<Vec<f32>>();
        let x: Vec<U> = no_nan(inputs::<U>(&mut rng, cap).iter().map(|v| v.to32()).collect())
            .iter()
            .map(|&e| U::from32(e, false))
            .collect();
        let old: Vec<T> = no_nan(inputs::<T>(&mut rng, cap).iter().map(|v| v.to32()).collect())
            .iter()
            .map(|&e| T::from32(e, false))
            .collect();
        src.copy_from_slice(&x);
        dst.copy_from_slice(&old);
        tmp.copy_from_slice(&vec![SENTINEL; tmp_bytes]);
        let edges = U::edges();
        let scalar = if rng.chance(2) {
            U::from_f64(no_nan(vec![edges[rng.index(edges.len())]])[0] as f64)
        } else {
            U::from_f64((rng.next() as f64 / u64::MAX as f64 - 0.5) * 8.0)
        };
        axpy_adv::<T, U, false>(&dst, &src, scalar, &tmp, count);
        let sat = get_overflow_mode() == OverflowMode::Saturation;
        let product = |v: U| v.to32() * scalar.to32();
        let mut want: Vec<T> =
            x[..count].iter().zip(&old).map(|(&v, &d)| T::from32(product(v) + d.to32(), sat)).collect();
        want.extend_from_slice(&old[count..]);
        let ctx = format!(
            "Axpy {} <- {} on {soc}, count {count}, tmp {tmp_bytes}, scalar {scalar:?}",
            T::DTYPE,
            U::DTYPE
        );
        assert_bits_ctx(&dst.to_vec(), &want, &ctx);
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
        assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{ctx}");
        if U::SIZE == 4 {
            assert!(tmp.to_vec().iter().all(|&b| b == SENTINEL), "scratch written; {ctx}");
            return;
        }
        let split = tmp_bytes / 4 / if T::SIZE == 2 { 2 } else { 1 } / 32 * 32;
        let off = if count % split != 0 { count / split * split } else { count - split };
        let n = count - off;
        let f = tmp.reinterpret_cast::<f32>().to_vec();
        let prods: Vec<f32> = x[off..count].iter().map(|&v| product(v)).collect();
        assert_bits_ctx(&f[..n], &prods, format!("scratch's products; {ctx}"));
        if T::SIZE == 2 {
            let sums: Vec<f32> = prods.iter().zip(&old[off..count]).map(|(p, d)| p + d.to32()).collect();
            assert_bits_ctx(&f[split..split + n], &sums, format!("scratch's sums; {ctx}"));
        }
    });
}

#[test]
fn axpy_adv_every_pair() {
    let mut seed = 5000;
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        for count in [1, 37, 64, 300, 1000] {
            for tmp in [256, 544, 1024, 4096] {
                seed += 1;
                check_axpy::<f16, f16>(soc, count, tmp, seed);
                check_axpy::<f32, f16>(soc, count, tmp, seed);
                check_axpy::<f32, f32>(soc, count, tmp, seed);
            }
        }
    }
    // The vendor page's example: half 1..512 times 3 into float zeros.
    on(Soc::Ascend910B, || {
        let u = ub(1024 + 2048 + 1024);
        let (s, d, t) = (u.t::<f16>(0, 512), u.t::<f32>(1024, 512), u.t::<u8>(3072, 1024));
        s.copy_from_slice(&(1..=512).map(|i| f16::from_f32(i as f32)).collect::<Vec<_>>());
        d.copy_from_slice(&[0.0; 512]);
        axpy_adv::<_, _, false>(&d, &s, f16::from_f32(3.0), &t, 512);
        assert_eq!(d.to_vec(), (1..=512).map(|i| 3.0 * i as f32).collect::<Vec<_>>());
    });
}

#[test]
fn axpy_adv_errors() {
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        with_tensors(soc, |s, d, t| {
            let msg = format!("not supported on {soc}");
            expect_panic(|| axpy_adv::<_, _, false>(d, s, f16::ONE, t, 8), &["Axpy", &msg]);
        });
    }
    with_tensors(Soc::Ascend910B, |s, d, t| {
        expect_panic(|| axpy_adv::<_, _, false>(d, s, f16::ONE, t, 513), &["Axpy", "calCount = 513 exceeds"]);
        expect_panic(
            || axpy_adv::<_, _, false>(s, s, f16::ONE, t, 8),
            &["Axpy", "dst UB bytes", "overlap src"],
        );
        let small = t.view_len(0, 224);
        expect_panic(
            || axpy_adv::<_, _, false>(d, s, f16::ONE, &small, 8),
            &["Axpy", "sharedTmpBuffer has 224 bytes"],
        );
        let t_on_dst = d.reinterpret_cast::<u8>();
        expect_panic(
            || axpy_adv::<_, _, false>(d, s, f16::ONE, &t_on_dst, 8),
            &["Axpy", "sharedTmpBuffer UB bytes", "overlap dst"],
        );
    });
    assert_eq!(get_axpy_max_min_tmp_size(512, 2, false), (4096, 1024));
    assert_eq!(get_axpy_max_min_tmp_size(16, 2, false), (1024, 1024));
    assert_eq!(get_axpy_max_min_tmp_size(512, 4, false), (0, 0));
    assert_eq!(get_axpy_tmp_buffer_factor_size(4), (1, 0));
}

// ---- Exp (advanced, Taylor) ------------------------------------------------------------------

/// The advanced Exp's steps in float for one element: `(x - floor(x), the last term, the sum
/// times exp(floor(x)), exp(floor(x)))`, the floor through int32_t on Ascend310P.
fn r_exp_adv(soc: Soc, x: f32, level: u8) -> (f32, f32, f32, f32) {
    let ip = r_integral(Api::Floor, soc, x);
    let dec = x - ip;
    let e = (ip as f64).exp() as f32;
    let mut pow = dec + 0.0;
    let mut res = dec + 0.0;
    res += 1.0;
    for i in 2..=level {
        pow *= dec;
        pow *= 1.0f32 / f32::from(i);
        res += pow;
    }
    (dec, pow, res * e, e)
}

fn check_exp<T: Fp + ExpAdvElement, const L: u8, const R: bool>(
    soc: Soc,
    count: usize,
    tmp_bytes: usize,
    seed: u64,
) {
    on(soc, || {
        let mut rng = Rng(seed);
        let cap = count + 40;
        let region = (cap * T::SIZE).div_ceil(32) * 32;
        let u = ub(2 * region + tmp_bytes.div_ceil(32) * 32 + 32);
        let (src, dst, tmp) = (u.t::<T>(0, cap), u.t::<T>(region, cap), u.t::<u8>(2 * region, tmp_bytes));
        // Finite inputs (the page defines no NaN or infinity), some large enough to overflow.
        let x: Vec<T> = (0..cap)
            .map(|_| match rng.below(4) {
                0 => T::from_f64(((rng.next() % 4000) as f64 - 2000.0) / 64.0),
                1 => T::from_f64(((rng.next() % 400) as f64 - 200.0) / 1.5),
                2 => T::from_f64([0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 88.0, -87.5, 11.0, -17.25][rng.index(10)]),
                _ => T::from_f64((rng.next() as f64 / u64::MAX as f64 - 0.5) * 40.0),
            })
            .collect();
        let old: Vec<T> = inputs(&mut rng, cap);
        src.copy_from_slice(&x);
        dst.copy_from_slice(&old);
        tmp.copy_from_slice(&vec![SENTINEL; tmp_bytes]);
        exp_adv::<T, L, R>(&dst, &src, &tmp, count);
        let sat = get_overflow_mode() == OverflowMode::Saturation;
        let half = T::SIZE == 2;
        // float: `Adds(x, 0)` first (-0 becomes +0); half: widened.
        let wide = |v: T| if half { v.to32() } else { v.to32() + 0.0 };
        let mut want: Vec<T> = x[..count]
            .iter()
            .map(|&v| {
                if L == 0 {
                    if half {
                        T::from32(sat16((v.to32() as f64).exp(), sat).to_f32(), sat)
                    } else {
                        T::from32(((v.to32() as f64).exp()) as f32, sat)
                    }
                } else {
                    T::from32(r_exp_adv(soc, wide(v), L).2, sat)
                }
            })
            .collect();
        want.extend_from_slice(&old[count..]);
        let ctx = format!("Exp<{}, {L}, {R}> on {soc}, count {count}, tmp {tmp_bytes}", T::DTYPE);
        assert_bits_ctx(&dst.to_vec(), &want, &ctx);
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
        assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{ctx}");
        if L == 0 || count == 0 {
            return;
        }
        // The scratch's (and with reuse, src's) last round.
        let bufs = if half {
            4
        } else if R {
            2
        } else {
            3
        };
        let one = tmp_bytes / 4 / bufs / (32 / T::SIZE) * (32 / T::SIZE);
        let off = if count % one != 0 { count / one * one } else { count - one };
        let n = count - off;
        let steps: Vec<(f32, f32, f32, f32)> =
            x[off..count].iter().map(|&v| r_exp_adv(soc, wide(v), L)).collect();
        let f = tmp.reinterpret_cast::<f32>().to_vec();
        let col = |k: usize| -> Vec<f32> { steps.iter().map(|s| [s.0, s.1, s.2, s.3][k]).collect() };
        let (pow_at, int_at) = match (half, R) {
            (true, _) => (one, 3 * one),
            (false, false) => (one, 2 * one),
            (false, true) => (0, one),
        };
        assert_bits_ctx(&f[pow_at..pow_at + n], &col(1), format!("scratch's powers; {ctx}"));
        assert_bits_ctx(&f[int_at..int_at + n], &col(3), format!("scratch's exp(floor); {ctx}"));
        if half {
            assert_bits_ctx(&f[..n], &col(0), format!("scratch's decimals; {ctx}"));
            assert_bits_ctx(&f[2 * one..2 * one + n], &col(2), format!("scratch's results; {ctx}"));
        } else if R {
            // The source holds the decimals of the last round.
            let s = src.reinterpret_cast::<f32>().to_vec();
            assert_bits_ctx(&s[..n], &col(0), format!("src's decimals (reused); {ctx}"));
        } else {
            assert_bits_ctx(&f[..n], &col(0), format!("scratch's decimals; {ctx}"));
            assert_bits_ctx(&src.to_vec(), &x, format!("src written; {ctx}"));
        }
    });
}

#[test]
fn exp_adv_taylor() {
    let mut seed = 7000;
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        for count in [1, 37, 100, 1000] {
            for tmp in [1024, 1056, 3072, 12288] {
                seed += 1;
                check_exp::<f16, 10, false>(soc, count, tmp, seed);
                check_exp::<f16, 15, true>(soc, count, tmp, seed);
                check_exp::<f32, 10, false>(soc, count, tmp, seed);
                check_exp::<f32, 10, true>(soc, count, tmp, seed);
                check_exp::<f32, 1, false>(soc, count, tmp, seed);
                check_exp::<f32, 0, false>(soc, count, tmp, seed);
                check_exp::<f16, 0, false>(soc, count, tmp, seed);
            }
        }
    }
    // The stack form.
    on(Soc::Ascend910B, || {
        let u = ub(2 * 256);
        let (s, d) = (u.t::<f32>(0, 64), u.t::<f32>(256, 64));
        s.copy_from_slice(&[2.5f32; 64]);
        exp_adv_stack::<_, 10, false>(&d, &s, 64);
        assert_eq!(d.get_value(0).to_bits(), r_exp_adv(Soc::Ascend910B, 2.5, 10).2.to_bits());
    });
}

#[test]
fn exp_adv_errors() {
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        with_tensors(soc, |s, d, t| {
            let msg = format!("no implementation on {soc}");
            expect_panic(|| exp_adv::<_, 10, false>(d, s, t, 8), &["Exp", &msg]);
        });
    }
    with_tensors(Soc::Ascend910B, |s, d, t| {
        expect_panic(|| exp_adv::<_, 10, false>(d, s, t, 513), &["Exp", "calCount = 513 exceeds"]);
        expect_panic(|| exp_adv::<_, 10, false>(s, s, t, 8), &["Exp", "dst UB bytes", "overlap src"]);
        // 4 half tensors of whole 32-byte blocks (16 halves): 224 bytes hold 56 floats, 14 each.
        let small = t.view_len(0, 224);
        expect_panic(|| exp_adv::<_, 10, false>(d, s, &small, 8), &["Exp", "sharedTmpBuffer has 224 bytes"]);
    });
    assert_eq!(get_exp_max_min_tmp_size(8192, 4, false), (98304, 768));
    assert_eq!(get_exp_max_min_tmp_size(8192, 4, true), (65536, 512));
    assert_eq!(get_exp_max_min_tmp_size(10, 2, false), (1024, 1024));
    assert_eq!(get_exp_tmp_buffer_factor_size(4), (3, 0));
}

#[test]
fn erf_half_every_input() {
    // Every finite half through Erf on both chips: Ascend910B narrows with CAST_ROUND (ties away
    // from zero), Ascend310P with CAST_NONE (ties to even); the inputs whose float quotient is
    // a tie tell them apart.
    let xs: Vec<f16> = (0..=u16::MAX).map(f16::from_bits).filter(|h| h.is_finite()).collect();
    let ties = xs
        .iter()
        .filter(|h| {
            let q = r_erf(h.to_f32()).0;
            f16_round_away(q) != f16::from_f32(q)
        })
        .count();
    assert!(ties > 0, "no tie among the half inputs");
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        for chunk in xs.chunks(16384) {
            on(soc, || {
                let n = chunk.len().div_ceil(128) * 128;
                let bytes = n * 2;
                let u = ub(2 * bytes + 4096);
                let (s, d, t) = (u.t::<f16>(0, n), u.t::<f16>(bytes, n), u.t::<u8>(2 * bytes, 4096));
                let mut x = chunk.to_vec();
                x.resize(n, f16::ZERO);
                s.copy_from_slice(&x);
                erf::<f16, false>(&d, &s, &t, chunk.len());
                let sat = get_overflow_mode() == OverflowMode::Saturation;
                let want: Vec<f16> = chunk.iter().map(|&v| reference(Api::Erf, soc, sat, v)).collect();
                assert_bits_ctx(
                    &d.to_vec()[..chunk.len()],
                    &want,
                    format!("Erf half on {soc} ({ties} ties)"),
                );
            });
        }
    }
}
