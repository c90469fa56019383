//! The advanced API's `Lgamma` (`adv/lgamma.rs`), against a scalar reference that restates
//! the vendor's steps (`lgamma_common_impl.h`, `lgamma_common_basic_impl.h`) one instruction
//! at a time with each one's rounding — `f32` arithmetic rounded to nearest-even, `Ln` through
//! `f64`, `LGammaFloor` with Rust's `floor` (Ascend910B) or through `int32_t` (Ascend310P), the
//! masks as comparisons, each `Select` + `Add` as `(mask ? v : 0) + dst`, and the advanced
//! `Sin` steps as `adv_math_trig`'s reference — for both types on both chips, with and without
//! `IS_REUSE_SOURCE`, counts that leave tails, scratch sizes that force several rounds, the
//! stack form and every `half` input; then the page's example, the true `ln|Γ|`
//! approximately, the host helpers, and every error.

// The reference restates the vendor's literals and steps as written, one rounding per line.
#![allow(
    clippy::excessive_precision,
    clippy::approx_constant,
    clippy::assign_op_pattern,
    clippy::neg_cmp_op_on_partial_ord,
    clippy::neg_multiply
)]

use ascend_core::prelude::*;

use crate::adv_digamma::with_tensors;
use crate::adv_math_trig::{integral, r_sin_cos, Mode};
use crate::common::util;
use util::{adv_io, assert_bits_ctx, expect_panic, on, ub, AdvIo, Fp, Rng};

const CHIPS: [Soc; 2] = [Soc::Ascend910B, Soc::Ascend310P];
const PI: f32 = std::f32::consts::PI;
const INF: f32 = f32::INFINITY;
const MIN_F: f32 = 9.99999968266e-20;

// ---- the reference -------------------------------------------------------------------------

fn ln(x: f32) -> f32 {
    (x as f64).ln() as f32
}

/// `Select` against the scalar 0 and `Add(dst, tmp, dst)`.
fn sel(m: bool, v: f32, d: f32) -> f32 {
    (if m { v } else { 0.0 }) + d
}

/// `LGammaCalcMulAdd`.
fn mul_add(x: f32, c: &[f32]) -> f32 {
    let mut t = x * c[0];
    t = t + c[1];
    for &k in &c[2..] {
        t = t * x;
        t = t + k;
    }
    t * x
}

/// `LGammaPositive` of `a = |x|`.
fn positive(a: f32) -> f32 {
    let p007 = [
        0.00358751555905f32,
        -0.00547128543258,
        -0.0446271263063,
        0.167317703366,
        -0.0421359799802,
        -0.655867278576,
        0.577215373516,
    ];
    let p0715 = [
        0.0458826646209f32,
        0.103739671409,
        0.122803635895,
        0.127524212003,
        0.143216684461,
        0.169343575835,
        0.207407936454,
        0.27058750391,
        0.400685429573,
        0.82246696949,
        0.577215671539,
    ];
    let p153 = [
        4.95984932058e-05f32,
        -0.000220894842641,
        0.000541314249858,
        -0.00120451697148,
        0.00288425176404,
        -0.00738275796175,
        0.0205813199282,
        -0.067352488637,
        0.322467029095,
        0.422784328461,
    ];
    let in_range = |lo: f32, hi: f32| a >= lo && a < hi;
    let mut r = 0.0;
    let mut t = mul_add(a, &p007);
    t = t * a;
    t = t + a;
    r = sel(a < 0.7, ln(t) * -1.0, r);
    let t1 = a * -1.0 + 1.0;
    r = sel(in_range(0.7, 1.5), mul_add(t1, &p0715), r);
    r = sel(in_range(1.5, 3.0), mul_add(a + -2.0, &p153), r);
    let t1 = a + -3.0;
    let t2 = mul_add(t1, &[-748.890319824, -12349.7421875, -41061.375, -48310.6640625]) + -143033.40625;
    let t3 = mul_add(t1, &[-259.250976562, -10777.1796875, -92685.046875]) + -206353.578125;
    r = sel(in_range(3.0, 5.8), t2 / t3 + t1, r);
    let l = ln(a) * 0.5;
    let t2 = (a + -0.5) * l;
    let inv = 1.0 / a;
    let t4 = inv * inv;
    let mut t1 = mul_add(t4, &[0.000777830660809, -0.00277765537612]);
    t1 = t1 + 0.0833332762122;
    t1 = t1 * inv;
    t1 = t1 + 0.91893851757;
    t1 = t1 + t2;
    t1 = t1 + t2;
    t1 = t1 - a;
    r = sel(in_range(5.8, INF), t1, r);
    sel(a >= INF, a, r)
}

/// `LGammaNegative` of `a = |x|` with `pos = LGammaPositive(a)`.
fn negative(soc: Soc, a: f32, pos: f32) -> f32 {
    let mut r = 0.0;
    r = sel(a < MIN_F, ln(a) * -1.0, r);
    let n = integral(soc, a + a + 0.5, Mode::Floor);
    let mut t3 = integral(soc, n * 0.5, Mode::Floor);
    t3 = t3 * 2.0;
    t3 = n - t3;
    let odd = t3 >= 0.5;
    let y = (n * -0.5 + a) * PI;
    let y2 = y * y;
    let mut e = mul_add(
        y2,
        &[
            -0.000195746586541645228862762451171875,
            0.0083327032625675201416015625,
            -0.16666662693023681640625,
        ],
    );
    e = e * y;
    e = e + y;
    let mut s = sel(!odd, e, 0.0);
    let o = mul_add(
        y2,
        &[
            0.00002427957952022552490234375,
            -0.001388786011375486850738525390625,
            0.0416667275130748748779296875,
            -0.4999999701976776123046875,
        ],
    ) + 1.0;
    s = sel(odd, o, s);
    let prod = s.abs() * a;
    let t1 = ln(prod) * -1.0 + 1.1447298526763916015625;
    let refl = t1 + pos * -1.0;
    let m = integral(soc, a, Mode::Floor) != a && prod < INF && a >= MIN_F;
    r = sel(m, refl, r);
    sel(!m && a >= MIN_F, INF, r)
}

/// One `float` element.
fn r_float(soc: Soc, x: f32) -> f32 {
    let a = x.abs();
    let pos = positive(a);
    let mut d = sel(x >= 0.0, pos, 0.0);
    d = sel(x < 0.0, negative(soc, a, pos), d);
    sel(!(x >= 0.0) && !(x < 0.0), a, d)
}

/// `Lgamma1Compute`.
fn lgamma1(x: f32) -> f32 {
    let t1 = x + 4.0;
    let inv = 1.0 / t1;
    let mut t2 = inv * PI;
    t2 = t2 * 2.0;
    t2 = ln(t2) * 0.5;
    let t3 = inv * -0.1;
    let mut t4 = t1 * 12.0;
    t4 = t4 + t3;
    t4 = 1.0 / t4;
    t4 = t4 + t1;
    t4 = ln(t4) + -1.0;
    t4 = t4 * t1;
    t4 + t2
}

/// `LgammaComputePosHalf`.
fn pos_half(x: f32) -> f32 {
    let d = lgamma1(x);
    let mut t3 = ln(x);
    for c in [1.0, 2.0, 3.0] {
        t3 = t3 + ln(x + c);
    }
    d - t3
}

/// `LgammaComputeNegHalf`.
fn neg_half(soc: Soc, x: f32) -> f32 {
    let d = pos_half(x * -1.0 + 1.0) * -1.0;
    let f = (x - integral(soc, x, Mode::Floor)) * PI;
    let s = r_sin_cos(false, soc, f)[0];
    d + ln(PI / s.abs())
}

/// One `half` element.
fn r_half(soc: Soc, x: f16) -> f16 {
    let x = x.to_f32();
    let mut d = sel(x >= 0.0, pos_half(x), 0.0);
    d = sel(x < 0.0, neg_half(soc, x), d);
    d = sel(!(x >= 0.0) && !(x < 0.0), x, d);
    if x.abs() >= 65504.0 {
        d = 655040.0;
    }
    let sat = get_overflow_mode() == OverflowMode::Saturation;
    // CAST_NONE to half; in saturation mode NaN becomes 0 and the infinities ±65504.
    f16::from_f32(if !sat {
        d
    } else if d.is_nan() {
        0.0
    } else {
        d.clamp(-65504.0, 65504.0)
    })
}

fn reference<T: Fp>(soc: Soc, x: T) -> T {
    if T::SIZE == 2 {
        T::from32(r_half(soc, f16::from_f32(x.to32())).to_f32())
    } else {
        T::from32(r_float(soc, x.to32()))
    }
}

// ---- runs ----------------------------------------------------------------------------------

/// Inputs: the poles and around them, the branch bounds, tiny values, large values,
/// infinities, NaN, random values and random bits.
fn inputs<T: Fp>(rng: &mut Rng, n: usize) -> Vec<T> {
    let from_bits = |b: u64| -> T {
        if T::SIZE == 2 {
            T::from32(f16::from_bits(b as u16).to_f32())
        } else {
            T::from32(f32::from_bits(b as u32))
        }
    };
    let edges = [
        0.0,
        -0.0,
        1.0,
        2.0,
        0.5,
        -0.5,
        0.7,
        1.5,
        3.0,
        5.8,
        -1.0,
        -2.0,
        -3.0,
        -100.0,
        -1.5,
        -2.5,
        1e-30,
        -1e-30,
        -1e-19,
        -9.99999968266e-20,
        -5e-5,
        65504.0,
        -65504.0,
        1e6,
        -1e6,
        -8388607.5,
        -8388609.0,
        -3e9,
        -1e10,
        3e38,
        -3e38,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    (0..n)
        .map(|_| match rng.below(6) {
            0 => T::from_f64(edges[rng.index(edges.len())]),
            1 => {
                let k = -(rng.range(0, 60) as f64);
                let y = T::from_f64(k);
                from_bits(y.to_bits_u64().wrapping_add(rng.range(0, 2)).wrapping_sub(1))
            }
            2 => T::from_f64((rng.next() as f64 / u64::MAX as f64 - 0.5) * 40.0),
            3 => T::from_f64((rng.next() as f64 / u64::MAX as f64 - 0.5) * 2e-3),
            4 => T::from_f64((rng.next() as f64 / u64::MAX as f64 - 0.5) * 1e5),
            _ => from_bits(rng.next() & ((1u64 << (T::SIZE * 8)) - 1)),
        })
        .collect()
}

fn call<T: Fp + LgammaElement, const R: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: Option<&LocalTensor<u8>>,
    n: usize,
) {
    match tmp {
        Some(t) => lgamma::<T, R>(dst, src, t, n),
        None => lgamma_stack::<T, R>(dst, src, n),
    }
}

/// Runs `Lgamma` on `soc` over `count` random elements with `tmp_bytes` of scratch (or the
/// stack form), `IS_REUSE_SOURCE = R`: `dst` up to `count`, its untouched rest, `src` (with
/// `IS_REUSE_SOURCE` for float, zeros over the first round's elements: `tmpScalar`) and the
/// mask state afterwards.
fn check<T: Fp + LgammaElement, const R: bool>(soc: Soc, count: usize, tmp_bytes: Option<usize>, seed: u64) {
    on(soc, || {
        let mut rng = Rng(seed);
        let cap = count + 72;
        let AdvIo { src, dst, tmp, .. } = &adv_io::<T>(cap, tmp_bytes.unwrap_or(0));
        let x: Vec<T> = inputs(&mut rng, cap);
        src.copy_from_slice(&x);
        let old: Vec<T> = inputs(&mut rng, cap);
        dst.copy_from_slice(&old);
        call::<T, R>(dst, src, tmp_bytes.map(|_| tmp), count);
        let ctx = format!("Lgamma {} on {soc}, count {count}, tmp {tmp_bytes:?}, reuse {R}", T::DTYPE);
        let half = T::SIZE == 2;
        let bytes = tmp_bytes.unwrap_or_else(|| {
            // The stack form's scratch: the UB after the pipe's buffer, less KfcMsg on 910B.
            let pipe_end = (2 * (cap * T::SIZE).div_ceil(32) * 32) + 32;
            soc.ub_size() - pipe_end - if soc == Soc::Ascend910B { 64 } else { 0 }
        });
        let proc = match (half, R) {
            (true, _) => 13,
            (false, false) => 8,
            (false, true) => 7,
        };
        let split = bytes / 4 / proc / 32 * 32;
        let mut want: Vec<T> = x[..count].iter().map(|&v| reference(soc, v)).collect();
        want.extend_from_slice(&old[count..]);
        assert_bits_ctx(&dst.to_vec(), &want, &ctx);
        let mut want_src = x.clone();
        if R && !half {
            for w in want_src.iter_mut().take(count.min(split)) {
                *w = T::from32(0.0);
            }
        }
        assert_bits_ctx(&src.to_vec(), &want_src, format!("src; {ctx}"));
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
        assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{ctx}");
    });
}

fn sweep<T: Fp + LgammaElement>(seed: u64) {
    let mut s = seed;
    for soc in CHIPS {
        for count in [0usize, 1, 7, 37, 64, 100, 200, 1000] {
            for tmp in [Some(1664usize), Some(1700), Some(4096), Some(16384), None] {
                s += 1;
                check::<T, false>(soc, count, tmp, s);
            }
            s += 1;
            check::<T, true>(soc, count, Some(1664), s);
            s += 1;
            check::<T, true>(soc, count, Some(7000), s);
        }
    }
}

#[test]
fn lgamma_half() {
    sweep::<f16>(300);
}

#[test]
fn lgamma_float() {
    sweep::<f32>(400);
}

#[test]
fn float_minimum_scratch() {
    // 1024 bytes (896 with IS_REUSE_SOURCE): one split of 32, so 1000 elements take 32 rounds.
    for soc in CHIPS {
        check::<f32, false>(soc, 1000, Some(1024), 11);
        check::<f32, true>(soc, 1000, Some(896), 12);
    }
}

#[test]
fn every_half_input() {
    for soc in CHIPS {
        on(soc, || {
            let xs: Vec<f16> = (0..=u16::MAX).map(f16::from_bits).collect();
            let n = 8192;
            let u = ub(2 * n * 2 + 64 * 1024);
            let (src, dst, tmp) = (u.t::<f16>(0, n), u.t::<f16>(2 * n, n), u.t::<u8>(4 * n, 64 * 1024));
            for xs in xs.chunks(n) {
                src.copy_from_slice(xs);
                lgamma::<f16, false>(&dst, &src, &tmp, n);
                let want: Vec<f16> = xs.iter().map(|&v| r_half(soc, v)).collect();
                assert_bits_ctx(&dst.to_vec(), &want, format!("every half on {soc}"));
            }
        });
    }
}

/// `Lgamma` of 64 copies of the float `x` on `soc`, checked against the reference.
fn one(soc: Soc, x: f32) -> f32 {
    on(soc, || {
        let u = ub(2 * 256 + 2048);
        let (s, d, t) = (u.t::<f32>(0, 64), u.t::<f32>(256, 64), u.t::<u8>(512, 2048));
        s.copy_from_slice(&[x; 64]);
        lgamma::<f32, false>(&d, &s, &t, 64);
        let r = d.get_value(63);
        assert_eq!(r.to_bits(), r_float(soc, x).to_bits(), "Lgamma({x}) on {soc}");
        r
    })
}

/// `Lgamma` of 64 copies of the half `x` on `soc`, checked against the reference.
fn one_half(soc: Soc, x: f32) -> f16 {
    on(soc, || {
        let u = ub(2 * 128 + 6656);
        let (s, d, t) = (u.t::<f16>(0, 64), u.t::<f16>(128, 64), u.t::<u8>(256, 6656));
        let x = f16::from_f32(x);
        s.copy_from_slice(&[x; 64]);
        lgamma::<f16, false>(&d, &s, &t, 64);
        let r = d.get_value(63);
        assert_eq!(r.to_bits(), r_half(soc, x).to_bits(), "half Lgamma({x}) on {soc}");
        r
    })
}

#[test]
fn special_values() {
    for soc in CHIPS {
        for x in [0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, -1.0, -2.0, -7.0, -1e6, -8388608.0, -3e38] {
            assert_eq!(one(soc, x), f32::INFINITY, "Lgamma({x}) on {soc}");
        }
        let nan = one(soc, -f32::NAN);
        assert!(nan.is_nan() && nan.is_sign_positive(), "NaN keeps its payload, sign cleared");
        // 1 and 2 are zeros of lgamma; the polynomials give exactly 0 at 1 and 2.
        assert_eq!(one(soc, 1.0), 0.0);
        assert_eq!(one(soc, 2.0), 0.0);
        // Below 1e-19 in magnitude a negative x gives -ln|x|.
        assert_eq!(one(soc, -1e-30), -(1e-30f64.ln() as f32));
    }
    // half: the poles give inf (65504 in Ascend310P's saturation mode), NaN stays NaN (0 in
    // saturation mode), |x| = 65504 and the infinities give 655040 before narrowing.
    let (inf, sat_max) = (f16::INFINITY, f16::from_f32(65504.0));
    for (soc, top) in [(Soc::Ascend910B, inf), (Soc::Ascend310P, sat_max)] {
        for x in [0.0, -0.0, -1.0, -4.0, 65504.0, -65504.0, f32::INFINITY, f32::NEG_INFINITY] {
            assert_eq!(one_half(soc, x).to_bits(), top.to_bits(), "half Lgamma({x}) on {soc}");
        }
        let nan = one_half(soc, f32::NAN);
        if soc == Soc::Ascend910B {
            assert!(nan.is_nan());
        } else {
            assert_eq!(nan.to_bits(), 0);
        }
    }
}

/// `ln|Γ(x)|` in f64: recurrence up to x ≥ 15, Stirling's series, reflection below 0.5.
fn true_lgamma(x: f64) -> f64 {
    use std::f64::consts::PI;
    if x < 0.5 {
        return (PI / (PI * x).sin().abs()).ln() - true_lgamma(1.0 - x);
    }
    let (mut x, mut acc) = (x, 0.0);
    while x < 15.0 {
        acc -= x.ln();
        x += 1.0;
    }
    let z = 1.0 / (x * x);
    acc + (x - 0.5) * x.ln() - x
        + 0.5 * (2.0 * PI).ln()
        + (1.0 / x) * (1.0 / 12.0 - z * (1.0 / 360.0 - z * (1.0 / 1260.0 - z / 1680.0)))
}

#[test]
fn accuracy_against_the_true_lgamma() {
    let ln_sqrt_pi = 0.5 * std::f64::consts::PI.ln();
    assert!((true_lgamma(0.5) - ln_sqrt_pi).abs() < 1e-13);
    assert!((true_lgamma(10.0) - 362880f64.ln()).abs() < 1e-12);
    let points = [
        (1.0f32, 0.0f64),
        (2.0, 0.0),
        (0.5, ln_sqrt_pi),
        (10.0, 362880f64.ln()),
        (3.0, 2f64.ln()),
        (0.1, 2.252712651734206),
        (-0.5, 1.2655121234846454),
        (-2.5, -0.05624371649767457),
        (-7.25, -7.541883443475751),
        (30.0, 71.25703896716801),
    ];
    for soc in CHIPS {
        for (x, want) in points {
            // (0.1 is not a float: its float is 1.5e-9 above, lgamma there 1.6e-8 lower.)
            assert!((true_lgamma(x as f64) - want).abs() < 1e-7, "true_lgamma({x})");
            // float: within 2e-6 (relative above 1).
            let v = one(soc, x) as f64;
            assert!(
                (v - want).abs() <= 2e-6 * want.abs().max(1.0),
                "Lgamma({x}) on {soc} = {v}, want {want}"
            );
            // half: within 1% (relative above 1) of the exact value, before and after narrowing.
            let h = one_half(soc, x).to_f32() as f64;
            assert!(
                (h - want).abs() <= 1e-2 * want.abs().max(1.0),
                "half Lgamma({x}) on {soc} = {h}, want {want}"
            );
        }
        // Relative to max(1, |lgamma|): 1e-6, except where |x| is in [3, 5.8): there the
        // vendor's rational `(x − 3) + P₄(x − 3)/Q₃(x − 3)` is itself 1.8e-4 off near 5.8 (in
        // exact arithmetic), 4.6e-5 relative.
        let mut rng = Rng(17);
        for _ in 0..20000 {
            let x = ((rng.next() as f64 / u64::MAX as f64 - 0.5) * 60.0) as f32;
            let t = true_lgamma(x as f64);
            let v = r_float(soc, x) as f64;
            let tol = if (3.0..5.8).contains(&x.abs()) { 5e-5 } else { 1e-6 };
            // Away from the poles (the reflection's ln|x·sin πx| loses digits there).
            if (x - x.round()).abs() > 0.01 {
                assert!((v - t).abs() <= tol * t.abs().max(1.0), "Lgamma({x}) = {v}, want {t}");
            }
        }
    }
}

#[test]
fn the_pages_example() {
    // Lgamma.md, 调用示例 (half, calCount 512): 0 → inf, then the printed (float) values, which
    // the half results match to half precision.
    for (x, want) in [(0.01f32, 4.599480f32), (0.02, 3.900805), (0.03, 3.489971), (0.04, 3.197078)] {
        for soc in CHIPS {
            let v = one_half(soc, x).to_f32();
            assert!((v - want).abs() <= 4e-3, "half Lgamma({x}) on {soc} = {v}, want {want}");
        }
    }
    assert_eq!(one_half(Soc::Ascend910B, 0.0), f16::INFINITY);
}

#[test]
fn reuse_source_has_no_effect_for_half() {
    for soc in CHIPS {
        on(soc, || {
            let u = ub(2 * 256 + 6656);
            let (s, d, t) = (u.t::<f16>(0, 128), u.t::<f16>(256, 128), u.t::<u8>(512, 6656));
            let x: Vec<f16> = (0..128).map(|i| f16::from_f32(i as f32 * 0.37 - 20.0)).collect();
            s.copy_from_slice(&x);
            lgamma::<f16, true>(&d, &s, &t, 128);
            assert_bits_ctx(&s.to_vec(), &x, "src");
            let want: Vec<f16> = x.iter().map(|&v| r_half(soc, v)).collect();
            assert_bits_ctx(&d.to_vec(), &want, "dst");
        });
    }
}

// ---- host ----------------------------------------------------------------------------------

#[test]
fn host_helpers() {
    assert_eq!(get_lgamma_max_min_tmp_size(1024, 4, false), (8 * 4096, 8 * 256));
    assert_eq!(get_lgamma_max_min_tmp_size(1024, 4, true), (7 * 4096, 7 * 256));
    assert_eq!(get_lgamma_max_min_tmp_size(1024, 2, false), (26 * 2048, 26 * 256));
    assert_eq!(get_lgamma_max_min_tmp_size(1024, 2, true), (26 * 2048, 26 * 256));
    assert_eq!(get_lgamma_max_min_tmp_size(10, 4, false), (8 * 256, 8 * 256));
    assert_eq!(get_lgamma_max_min_tmp_size(100, 2, false), (26 * 256, 26 * 256));
    assert_eq!(get_lgamma_tmp_buffer_factor_size(2), (13, 0));
    assert_eq!(get_lgamma_tmp_buffer_factor_size(4), (8, 0));
    expect_panic(
        || {
            let _ = get_lgamma_max_min_tmp_size(0, 4, false);
        },
        &["GetLgammaMaxMinTmpSize", "greater than 0"],
    );
    expect_panic(
        || {
            let _ = get_lgamma_max_min_tmp_size(8, 8, false);
        },
        &["GetLgammaMaxMinTmpSize", "typeSize = 8"],
    );
    expect_panic(
        || {
            let _ = get_lgamma_tmp_buffer_factor_size(1);
        },
        &["GetLgammaTmpBufferFactorSize", "typeSize = 1"],
    );
    // The minimum and the maximum both run.
    for soc in CHIPS {
        for (ts, reuse) in [(4usize, false), (4, true), (2, false)] {
            let (max, min) = get_lgamma_max_min_tmp_size(200, ts, reuse);
            for bytes in [min, max] {
                if ts == 4 {
                    if reuse {
                        check::<f32, true>(soc, 200, Some(bytes), 9)
                    } else {
                        check::<f32, false>(soc, 200, Some(bytes), 9)
                    }
                } else {
                    check::<f16, false>(soc, 200, Some(bytes), 9);
                }
            }
        }
    }
}

// ---- errors --------------------------------------------------------------------------------

#[test]
fn errors() {
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        with_tensors(soc, 64, 2048, |d, s, t| {
            expect_panic(
                || lgamma::<f32, false>(d, s, t, 64),
                &["Lgamma", "no implementation", &soc.to_string()],
            );
        });
    }
    with_tensors(Soc::Ascend910B, 64, 2048, |d, s, t| {
        expect_panic(|| lgamma::<f32, false>(d, s, t, 65), &["Lgamma", "calCount = 65 exceeds"]);
        expect_panic(|| lgamma::<f32, false>(d, s, &s.reinterpret_cast::<u8>(), 64), &["Lgamma", "overlap"]);
        expect_panic(|| lgamma::<f32, false>(s, s, t, 64), &["Lgamma", "overlap"]);
        let a1 = LocalTensor::<f32>::new(TPosition::A1, 0, 128);
        expect_panic(|| lgamma::<f32, false>(&a1, s, t, 64), &["Lgamma", "dst is at position A1"]);
        let a1 = LocalTensor::<u8>::new(TPosition::A1, 0, 2048);
        expect_panic(
            || lgamma::<f32, false>(d, s, &a1, 64),
            &["Lgamma", "sharedTmpBuffer is at position A1"],
        );
    });
    with_tensors(Soc::Ascend910B, 64, 1023, |d, s, t| {
        expect_panic(
            || lgamma::<f32, false>(d, s, t, 64),
            &["Lgamma", "sharedTmpBuffer has 1023 bytes", "at least 1024"],
        );
    });
    with_tensors(Soc::Ascend310P, 64, 895, |d, s, t| {
        expect_panic(|| lgamma::<f32, true>(d, s, t, 64), &["Lgamma", "at least 896"]);
    });
    on(Soc::Ascend310P, || {
        let AdvIo { src, dst, tmp, .. } = &adv_io::<f16>(64, 1663);
        expect_panic(|| lgamma::<f16, false>(dst, src, tmp, 64), &["Lgamma", "at least 1664"]);
    });
    // Whole repeats of src (float).
    on(Soc::Ascend910B, || {
        let u = ub(8192);
        let (s, d, t) = (u.t::<f32>(0, 100), u.t::<f32>(512, 128), u.t::<u8>(1024, 2048));
        expect_panic(
            || lgamma::<f32, false>(&d, &s, &t, 100),
            &[
                "Lgamma",
                "srcTensor has 100 float elements; calCount = 100 needs 128",
                "whole 256-byte repeats",
            ],
        );
        // half reads src through Cast only: the count is enough.
        let (s, d) = (u.t::<f16>(0, 100), u.t::<f16>(512, 100));
        s.copy_from_slice(&[f16::from_f32(3.0); 100]);
        lgamma::<f16, false>(&d, &s, &u.t::<u8>(1024, 1664 * 2), 100);
        assert_eq!(d.get_value(99), r_half(Soc::Ascend910B, f16::from_f32(3.0)));
    });
    // The stack form needs room after the pipe's buffers.
    on(Soc::Ascend910B, || {
        let u = ub(get_soc().ub_size() - 64);
        let (s, d) = (u.t::<f32>(0, 64), u.t::<f32>(256, 64));
        expect_panic(|| lgamma_stack::<f32, false>(&d, &s, 64), &["Lgamma", "no space left"]);
    });
}
