//! The advanced API's `Digamma` (`adv/digamma.rs`), against a scalar reference that restates
//! the vendor's steps (`digamma_common_impl.h`, `digamma_common_basic_impl.h`) one instruction
//! at a time with each one's rounding — `f32` arithmetic rounded to nearest-even, `Ln` through
//! `f64`, `DigammaCast` with Rust's `round`/`floor` (Ascend910B) or through `int32_t`
//! (Ascend310P), the masks as comparisons, each `Select` + `Add` as `(mask ? v : 0) + dst`, and
//! the advanced `Tan`/`Sin`/`Cos` steps as `adv_math_trig`'s references — for both types on
//! both chips, with and without `IS_REUSE_SOURCE`, counts that leave tails (the tail rounded up
//! to 8 is computed too), scratch sizes that force several rounds, the stack form and every
//! `half` input; then the page's example, the true digamma approximately, the host helpers,
//! and every error.

// The reference restates the vendor's literals and steps as written, one rounding per line.
#![allow(
    clippy::excessive_precision,
    clippy::approx_constant,
    clippy::assign_op_pattern,
    clippy::neg_cmp_op_on_partial_ord,
    clippy::neg_multiply
)]

use ascend_core::prelude::*;

use crate::adv_math_trig::{integral, r_sin_cos, r_tan, Mode};
use crate::common::util;
use util::{adv_io, assert_bits_ctx, expect_panic, on, ub, AdvIo, Fp, Rng};

const CHIPS: [Soc; 2] = [Soc::Ascend910B, Soc::Ascend310P];
const PI: f32 = std::f32::consts::PI;
const MIN_NEG: f32 = -8388608.0;
const NAN: f32 = f32::from_bits(0x7fc0_0000);

// ---- the reference -------------------------------------------------------------------------

fn ln(x: f32) -> f32 {
    (x as f64).ln() as f32
}

/// `Select` against the scalar 0 and `Add(dst, tmp, dst)`.
fn sel(m: bool, v: f32, d: f32) -> f32 {
    (if m { v } else { 0.0 }) + d
}

/// `DigammaGenNegIntMask`.
fn neg_int(soc: Soc, x: f32) -> bool {
    x < 0.0 && x > MIN_NEG && x == integral(soc, x, Mode::Away)
}

/// `DigammaGenNanMask`.
fn is_nan_mask(x: f32) -> bool {
    !(x < 0.0) && !(x >= 0.0)
}

/// `DigammaPositive` (float).
fn positive(x: f32) -> f32 {
    let pos = [
        2.10927960927960927961e-2_f64 as f32,
        7.57575757575757575758e-3_f64 as f32,
        4.16666666666666666667e-3_f64 as f32,
        3.96825396825396825397e-3_f64 as f32,
        8.33333333333333333333e-3_f64 as f32,
        8.33333333333333333333e-2_f64 as f32,
    ];
    let w = x + 10.0;
    let mut t0 = ln(w);
    let inv = 1.0 / w;
    t0 = t0 - inv * 0.5;
    let z = inv * inv;
    let mut c = 8.33333333333333333333e-2_f64 as f32;
    for k in pos {
        c = z * c;
        c = k - c;
    }
    c = z * c;
    t0 = t0 - c;
    let mut t1 = 1.0 / x;
    for i in 1..=9 {
        t1 = t1 + 1.0 / (x + i as f32);
    }
    t0 - t1
}

/// `DigammaNegPicotPix` (float).
fn picot(soc: Soc, x: f32) -> f32 {
    let f7 = x + x;
    let f8 = integral(soc, f7, Mode::Away);
    let f36 = (f7 - f8) * 1.5707963267948966_f64 as f32;
    let r51 = f8.round() as i32; // Cast<int32_t, float> with CAST_ROUND: saturating, NaN → 0
    let p = (r51 & 1) as f32;
    let f17 = f36 * f36;
    let mut d = 0.0093383789065f32;
    for c in [0.00326538085938f32, 0.0242919921875, 0.053466796875, 0.133377909660, 0.333332300186] {
        d = d * f17;
        d = d + c;
    }
    d = d * f17;
    d = d * f36;
    let f30 = d + f36;
    let mut r = sel(p >= 0.5, f30, 0.0);
    let f34 = -1.0 / f30;
    r = sel(p < 0.5, f34, r);
    r * PI
}

/// One `float` element: the result and picotpix (what `IS_REUSE_SOURCE` leaves in `src`).
fn r_float(soc: Soc, x: f32) -> (f32, f32) {
    let mut d = 0.0;
    d = sel(x <= MIN_NEG, NAN, d);
    d = sel(neg_int(soc, x), NAN, d);
    d = sel(is_nan_mask(x), x, d);
    d = sel(x >= 0.0, positive(x), d);
    let pic = picot(soc, x);
    let neg = positive(x * -1.0 + 1.0) + pic;
    d = sel(x < 0.0, neg, d);
    (d, pic)
}

/// `DigammaPositiveHalf`.
fn positive_half(x: f32) -> f32 {
    let w = x + 3.0;
    let mut t = ln(w);
    let inv = 1.0 / w;
    t = t - inv * 0.5;
    let z = inv * inv;
    t = t - z * 0.0833333333333333;
    let z2 = z * z;
    t = t - z2 * 0.0083333333333333;
    let z3 = z2 * z;
    t = t - z3 * 0.003968253968254;
    let mut t1 = 1.0 / x;
    t1 = t1 + 1.0 / (x + 1.0);
    t1 = t1 + 1.0 / (x + 2.0);
    t - t1
}

/// One `half` element.
fn r_half(soc: Soc, x: f16) -> f16 {
    let x = x.to_f32();
    let frac = (x - integral(soc, x, Mode::Floor)) * PI;
    let t3 = PI / r_tan(soc, frac)[0];
    let mut d = 0.0;
    d = sel(x <= MIN_NEG, NAN, d);
    d = sel(neg_int(soc, x), NAN, d);
    d = sel(is_nan_mask(x), x, d);
    d = sel(x >= 0.0, positive_half(x), d);
    let p1 = positive_half(1.0 - x) + 0.0;
    d = sel(x < -0.0001, p1 - t3, d);
    let c = r_sin_cos(true, soc, frac)[0];
    let s = r_sin_cos(false, soc, x * -PI)[0];
    let r = p1 - (c * PI) / s;
    d = sel((-0.0001..0.0).contains(&x), r, d);
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
        T::from32(r_float(soc, x.to32()).0)
    }
}

// ---- runs ----------------------------------------------------------------------------------

/// Inputs: the poles and around them, negatives, tiny negatives (half's range branch), large
/// values, infinities, NaN, random values and random bits.
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
        -1.0,
        -2.0,
        -3.0,
        -100.0,
        -1.5,
        -2.5,
        1e-30,
        -1e-30,
        -5e-5,
        -1e-4,
        -1.0001e-4,
        65504.0,
        -65504.0,
        1e6,
        -1e6,
        8388607.0,
        -8388607.0,
        -8388608.0,
        -8388609.0,
        -1e10,
        3e38,
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

fn call<T: Fp + DigammaElement, const R: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: Option<&LocalTensor<u8>>,
    n: usize,
) {
    match tmp {
        Some(t) => digamma::<T, R>(dst, src, t, n),
        None => digamma_stack::<T, R>(dst, src, n),
    }
}

/// Runs `Digamma` on `soc` over `count` random elements with `tmp_bytes` of scratch (or the
/// stack form), `IS_REUSE_SOURCE = R`: `dst` up to the tail rounded up to 8, its untouched
/// rest, `src` (with `IS_REUSE_SOURCE` for float, each round's picotpix at its start) and the
/// mask state afterwards.
fn check<T: Fp + DigammaElement, const R: bool>(soc: Soc, count: usize, tmp_bytes: Option<usize>, seed: u64) {
    on(soc, || {
        let mut rng = Rng(seed);
        let cap = count + 72;
        let AdvIo { src, dst, tmp, .. } = &adv_io::<T>(cap, tmp_bytes.unwrap_or(0));
        let x: Vec<T> = inputs(&mut rng, cap);
        src.copy_from_slice(&x);
        let old: Vec<T> = inputs(&mut rng, cap);
        dst.copy_from_slice(&old);
        call::<T, R>(dst, src, tmp_bytes.map(|_| tmp), count);
        let ctx = format!("Digamma {} on {soc}, count {count}, tmp {tmp_bytes:?}, reuse {R}", T::DTYPE);
        let half = T::SIZE == 2;
        let bytes = tmp_bytes.unwrap_or_else(|| {
            let mut pipe_end = 0;
            // The stack form's scratch: the UB after the pipe's buffer, less KfcMsg on 910B.
            pipe_end += (2 * (cap * T::SIZE).div_ceil(32) * 32) + 32;
            soc.ub_size() - pipe_end - if soc == Soc::Ascend910B { 64 } else { 0 }
        });
        let proc = match (half, R) {
            (true, _) => 8,
            (false, false) => 7,
            (false, true) => 6,
        };
        let split = bytes / 4 / proc / 32 * 32;
        let (loops, tail) = (count / split, count % split);
        let mut rounds: Vec<(usize, usize)> = (0..loops).map(|i| (i * split, split)).collect();
        if tail > 0 {
            rounds.push((loops * split, tail.div_ceil(8) * 8));
        }
        let end = rounds.last().map_or(0, |&(o, n)| o + n);
        let mut want: Vec<T> = x[..end].iter().map(|&v| reference(soc, v)).collect();
        want.extend_from_slice(&old[end..]);
        assert_bits_ctx(&dst.to_vec(), &want, &ctx);
        let mut want_src = x.clone();
        if R && !half {
            for &(o, n) in &rounds {
                for i in 0..n {
                    want_src[i] = T::from32(r_float(soc, x[o + i].to32()).1);
                }
            }
        }
        assert_bits_ctx(&src.to_vec(), &want_src, format!("src; {ctx}"));
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
        assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{ctx}");
    });
}

fn sweep<T: Fp + DigammaElement>(seed: u64) {
    let mut s = seed;
    for soc in CHIPS {
        for count in [0usize, 1, 7, 37, 64, 100, 200, 1000] {
            for tmp in [Some(1024usize), Some(1100), Some(4096), Some(16384), None] {
                s += 1;
                check::<T, false>(soc, count, tmp, s);
            }
            s += 1;
            check::<T, true>(soc, count, Some(1024), s);
            s += 1;
            check::<T, true>(soc, count, Some(7000), s);
        }
    }
}

#[test]
fn digamma_half() {
    sweep::<f16>(100);
}

#[test]
fn digamma_float() {
    sweep::<f32>(200);
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
                digamma::<f16, false>(&dst, &src, &tmp, n);
                let want: Vec<f16> = xs.iter().map(|&v| r_half(soc, v)).collect();
                assert_bits_ctx(&dst.to_vec(), &want, format!("every half on {soc}"));
            }
        });
    }
}

/// `Digamma` of 64 copies of the float `x` on `soc`.
fn one(soc: Soc, x: f32) -> f32 {
    on(soc, || {
        let u = ub(2 * 256 + 1792);
        let (s, d, t) = (u.t::<f32>(0, 64), u.t::<f32>(256, 64), u.t::<u8>(512, 1792));
        s.copy_from_slice(&[x; 64]);
        digamma::<f32, false>(&d, &s, &t, 64);
        let r = d.get_value(63);
        assert_eq!(r.to_bits(), r_float(soc, x).0.to_bits(), "Digamma({x}) on {soc}");
        r
    })
}

#[test]
fn special_values() {
    for soc in CHIPS {
        assert_eq!(one(soc, 0.0), f32::NEG_INFINITY);
        assert_eq!(one(soc, -0.0), f32::INFINITY);
        assert_eq!(one(soc, f32::INFINITY), f32::INFINITY);
        for x in [-1.0, -2.0, -7.0, -1e6, -8388607.0, -8388608.0, -1e20, f32::NEG_INFINITY, f32::NAN] {
            assert!(one(soc, x).is_nan(), "Digamma({x}) on {soc}");
        }
    }
    // The half path: -0.00005 takes the range branch (Cos/Sin), -0.5 the Tan reflection.
    for soc in CHIPS {
        for x in [-5e-5f32, -0.5, -1.5, 0.0, 3.0] {
            let v = on(soc, || r_half(soc, f16::from_f32(x))).to_f32();
            let t = true_digamma(f16::from_f32(x).to_f32() as f64);
            if t.is_finite() {
                assert!((v as f64 - t).abs() <= 2e-3 * t.abs().max(1.0), "half Digamma({x}) = {v}, want {t}");
            }
        }
    }
}

/// ψ(x) in f64: recurrence up to x ≥ 10, the asymptotic series, reflection below 0.
fn true_digamma(x: f64) -> f64 {
    if x < 0.0 {
        return true_digamma(1.0 - x) - std::f64::consts::PI / (std::f64::consts::PI * x).tan();
    }
    let (mut x, mut acc) = (x, 0.0);
    while x < 10.0 {
        acc -= 1.0 / x;
        x += 1.0;
    }
    let z = 1.0 / (x * x);
    acc + x.ln() - 0.5 / x - z * (1.0 / 12.0 - z * (1.0 / 120.0 - z * (1.0 / 252.0 - z / 240.0)))
}

#[test]
fn accuracy_against_the_true_digamma() {
    assert!((true_digamma(1.0) + 0.5772156649015329).abs() < 1e-12);
    for soc in CHIPS {
        for (x, want) in [
            (1.0f32, -0.5772156649015329f64),
            (2.0, 0.42278433509846713),
            (0.5, -1.9635100260214235),
            (10.0, 2.251752589066721),
            (-0.5, 0.03648997397857652),
            (-2.5, 1.1031566406452431),
        ] {
            let v = one(soc, x) as f64;
            assert!((v - want).abs() < 1e-5, "Digamma({x}) on {soc} = {v}, want {want}");
            assert!((true_digamma(x as f64) - want).abs() < 1e-9);
        }
        let mut rng = Rng(7);
        for _ in 0..200 {
            let x = ((rng.next() as f64 / u64::MAX as f64 - 0.5) * 60.0) as f32;
            let t = true_digamma(x as f64);
            let v = r_float(soc, x).0 as f64;
            // Near the poles the float reflection loses digits; elsewhere it is close.
            if (x - x.round()).abs() > 0.05 && x.abs() < 25.0 {
                assert!((v - t).abs() <= 1e-4 * t.abs().max(1.0), "Digamma({x}) = {v}, want {t}");
            }
        }
    }
}

#[test]
fn the_pages_example() {
    // Digamma.md, 调用示例 (float, 1024 elements): its first two and last two printed values.
    for soc in CHIPS {
        for (x, want) in [
            (5.3675685f32, 1.5843406f32),
            (0.26528683, -3.978809),
            (-2.872628, -6.2081366),
            (2.9387941, 0.8983184),
            (9.001339, 2.1407988),
        ] {
            let v = one(soc, x);
            assert!(
                (v - want).abs() <= 2e-6 * want.abs().max(1.0),
                "Digamma({x}) on {soc} = {v}, want {want}"
            );
        }
    }
}

#[test]
fn reuse_source_has_no_effect_for_half() {
    for soc in CHIPS {
        on(soc, || {
            let u = ub(2 * 256 + 4096);
            let (s, d, t) = (u.t::<f16>(0, 128), u.t::<f16>(256, 128), u.t::<u8>(512, 4096));
            let x: Vec<f16> = (0..128).map(|i| f16::from_f32(i as f32 * 0.37 - 20.0)).collect();
            s.copy_from_slice(&x);
            digamma::<f16, true>(&d, &s, &t, 128);
            assert_bits_ctx(&s.to_vec(), &x, "src");
            let want: Vec<f16> = x.iter().map(|&v| r_half(soc, v)).collect();
            assert_bits_ctx(&d.to_vec(), &want, "dst");
        });
    }
}

// ---- host ----------------------------------------------------------------------------------

#[test]
fn host_helpers() {
    assert_eq!(get_digamma_max_min_tmp_size(1024, 4, false), (7 * 4096, 7 * 256));
    assert_eq!(get_digamma_max_min_tmp_size(1024, 4, true), (6 * 4096, 6 * 256));
    assert_eq!(get_digamma_max_min_tmp_size(1024, 2, false), (16 * 2048, 16 * 256));
    assert_eq!(get_digamma_max_min_tmp_size(1024, 2, true), (16 * 2048, 16 * 256));
    assert_eq!(get_digamma_max_min_tmp_size(10, 4, false), (7 * 256, 7 * 256));
    assert_eq!(get_digamma_max_min_tmp_size(100, 2, false), (16 * 256, 16 * 256));
    assert_eq!(get_digamma_tmp_buffer_factor_size(2), (16, 0));
    assert_eq!(get_digamma_tmp_buffer_factor_size(4), (7, 0));
    expect_panic(
        || {
            let _ = get_digamma_max_min_tmp_size(0, 4, false);
        },
        &["GetDigammaMaxMinTmpSize", "greater than 0"],
    );
    expect_panic(
        || {
            let _ = get_digamma_max_min_tmp_size(8, 8, false);
        },
        &["GetDigammaMaxMinTmpSize", "typeSize = 8"],
    );
    expect_panic(
        || {
            let _ = get_digamma_tmp_buffer_factor_size(1);
        },
        &["GetDigammaTmpBufferFactorSize", "typeSize = 1"],
    );
    // The minimum runs one split of 32; the maximum one round for the whole input.
    for soc in CHIPS {
        for (ts, reuse) in [(4usize, false), (4, true), (2, false)] {
            let (max, min) = get_digamma_max_min_tmp_size(200, ts, reuse);
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

/// Runs `f` on `soc` with float `dst`, `src` of `n` and a scratch of `tmp_bytes` (`adv_io`).
pub(crate) fn with_tensors(
    soc: Soc,
    n: usize,
    tmp_bytes: usize,
    f: impl FnOnce(&LocalTensor<f32>, &LocalTensor<f32>, &LocalTensor<u8>),
) {
    on(soc, || {
        let AdvIo { src, dst, tmp, .. } = &adv_io::<f32>(n, tmp_bytes);
        f(dst, src, tmp);
    });
}

#[test]
fn errors() {
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        with_tensors(soc, 64, 1792, |d, s, t| {
            expect_panic(
                || digamma::<f32, false>(d, s, t, 64),
                &["Digamma", "no implementation", &soc.to_string()],
            );
        });
    }
    with_tensors(Soc::Ascend910B, 64, 1792, |d, s, t| {
        expect_panic(|| digamma::<f32, false>(d, s, t, 65), &["Digamma", "calCount = 65 exceeds"]);
        expect_panic(
            || digamma::<f32, false>(d, s, &s.reinterpret_cast::<u8>(), 64),
            &["Digamma", "overlap"],
        );
        expect_panic(|| digamma::<f32, false>(s, s, t, 64), &["Digamma", "overlap"]);
        let a1 = LocalTensor::<f32>::new(TPosition::A1, 0, 128);
        expect_panic(|| digamma::<f32, false>(&a1, s, t, 64), &["Digamma", "dst is at position A1"]);
        let a1 = LocalTensor::<u8>::new(TPosition::A1, 0, 2048);
        expect_panic(
            || digamma::<f32, false>(d, s, &a1, 64),
            &["Digamma", "sharedTmpBuffer is at position A1"],
        );
    });
    with_tensors(Soc::Ascend910B, 64, 895, |d, s, t| {
        expect_panic(
            || digamma::<f32, false>(d, s, t, 64),
            &["Digamma", "sharedTmpBuffer has 895 bytes", "at least 896"],
        );
    });
    with_tensors(Soc::Ascend310P, 64, 767, |d, s, t| {
        expect_panic(|| digamma::<f32, true>(d, s, t, 64), &["Digamma", "at least 768"]);
    });
    on(Soc::Ascend310P, || {
        let AdvIo { src, dst, tmp, .. } = &adv_io::<f16>(64, 1023);
        expect_panic(|| digamma::<f16, false>(dst, src, tmp, 64), &["Digamma", "at least 1024"]);
    });
    // Whole repeats of src (float) and the tail rounded up to 8 (dst, and src for half).
    on(Soc::Ascend910B, || {
        let u = ub(4096);
        let (s, d, t) = (u.t::<f32>(0, 100), u.t::<f32>(512, 128), u.t::<u8>(1024, 1792));
        expect_panic(
            || digamma::<f32, false>(&d, &s, &t, 100),
            &[
                "Digamma",
                "srcTensor has 100 float elements; calCount = 100 needs 128",
                "whole 256-byte repeats",
            ],
        );
    });
    on(Soc::Ascend910B, || {
        let u = ub(4096);
        let (s, d, t) = (u.t::<f32>(0, 128), u.t::<f32>(512, 100), u.t::<u8>(1024, 1792));
        expect_panic(
            || digamma::<f32, false>(&d, &s, &t, 99),
            &["Digamma", "dstTensor has 100 float elements; calCount = 99 needs 104", "rounded up to 8"],
        );
        let (s, d) = (u.t::<f16>(0, 100), u.t::<f16>(512, 128));
        expect_panic(
            || digamma::<f16, false>(&d, &s, &t, 99),
            &["Digamma", "srcTensor has 100 half elements; calCount = 99 needs 104", "rounded up to 8"],
        );
    });
    // The stack form needs room after the pipe's buffers.
    on(Soc::Ascend910B, || {
        let u = ub(get_soc().ub_size() - 64);
        let (s, d) = (u.t::<f32>(0, 64), u.t::<f32>(256, 64));
        expect_panic(|| digamma_stack::<f32, false>(&d, &s, 64), &["Digamma", "no space left"]);
    });
}
