//! The advanced API's `Gelu`, `FasterGelu` and `FasterGeluV2` (`adv/activation_gelu.rs`) against
//! slow, obviously correct scalar references that take the vendor's steps one by one with the
//! vector unit's roundings (`half` steps computed in `f32` and rounded once; `Exp` and
//! `Reciprocal` in `f64` and rounded once; `float` steps in `f32`; high precision on `half`:
//! the `float` steps between an exact cast in and a rounding cast out) — random inputs from a
//! fixed seed, `half` and `float`, every `highPrecision`/`highPerformance` combination, on
//! Ascend910B and Ascend310P, with counts that leave tails and scratch sizes that force
//! several rounds, in place, and the stack form; then the scratch layout of the last round, the
//! mask state afterwards and every error.

use ascend_core::prelude::*;

use crate::common::util;
use util::{assert_bits_ctx, expect_panic, on, ub, Rng};

const CHIPS: [Soc; 2] = [Soc::Ascend910B, Soc::Ascend310P];

/// The reference's per-type arithmetic: one rounding per step, as the vector unit.
trait Lane: Element {
    fn of(x: f32) -> Self;
    fn lit(c: f64) -> Self;
    fn f(self) -> f32;
    fn exp(a: Self) -> Self;
    fn recip(a: Self) -> Self;
    fn r_add(a: Self, b: Self) -> Self {
        Self::of(a.f() + b.f())
    }
    fn r_mul(a: Self, b: Self) -> Self {
        Self::of(a.f() * b.f())
    }
    fn r_div(a: Self, b: Self) -> Self {
        Self::of(a.f() / b.f())
    }
    /// IEEE `minimum`: NaN wins, `-0 < +0`.
    fn r_min(a: Self, b: Self) -> Self {
        let (x, y) = (a.f(), b.f());
        Self::of(if x.is_nan() || y.is_nan() {
            f32::NAN
        } else if x < y || (x == y && x.is_sign_negative()) {
            x
        } else {
            y
        })
    }
    fn r_abs(a: Self) -> Self {
        Self::of(a.f().abs())
    }
}
impl Lane for f32 {
    fn of(x: f32) -> f32 {
        x
    }
    fn lit(c: f64) -> f32 {
        c as f32
    }
    fn f(self) -> f32 {
        self
    }
    fn exp(a: f32) -> f32 {
        (a as f64).exp() as f32
    }
    fn recip(a: f32) -> f32 {
        (1.0 / a as f64) as f32
    }
}
thread_local! {
    /// Whether the core's `half` results saturate (Ascend310P's default overflow mode): NaN
    /// becomes 0 and values beyond ±65504 clamp, before the rounding.
    static SAT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Reads the core's overflow mode into [`SAT`].
fn sync_sat() {
    SAT.with(|s| s.set(get_overflow_mode() == OverflowMode::Saturation));
}

fn sat64(x: f64) -> f64 {
    if !SAT.with(|s| s.get()) {
        x
    } else if x.is_nan() {
        0.0
    } else {
        x.clamp(-65504.0, 65504.0)
    }
}

impl Lane for f16 {
    fn of(x: f32) -> f16 {
        f16::from_f64(sat64(x as f64))
    }
    fn lit(c: f64) -> f16 {
        // The vendor's `const half c = <double literal>`; the test `literals_round_alike`
        // shows rounding through `float` gives the same values.
        f16::from_f64(c)
    }
    fn f(self) -> f32 {
        self.to_f32()
    }
    fn exp(a: f16) -> f16 {
        f16::from_f64(sat64(a.to_f64().exp()))
    }
    fn recip(a: f16) -> f16 {
        f16::from_f64(sat64(1.0 / a.to_f64()))
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Gelu,
    Faster,
    FasterV2,
}

/// One element of `kind` in `U`, step by step as the vendor's `*CalcSimplified*`.
#[allow(clippy::approx_constant)] // the vendor's 0.7071, not 1/√2
fn r_formula<U: Lane>(kind: Kind, perf: bool, x: U) -> U {
    let l = U::lit;
    let div = |n: U, d: U| if perf { U::r_mul(n, U::recip(d)) } else { U::r_div(n, d) };
    match kind {
        Kind::Gelu => {
            let a = U::r_mul(x, x);
            let b = U::r_mul(x, a);
            let a = U::r_mul(b, l(0.044715));
            let b = U::r_add(x, a);
            let y = U::r_mul(b, l(1.5957691216057308));
            let e = U::exp(U::r_min(y, l(0.0)));
            let a = U::exp(U::r_mul(U::r_abs(y), l(-1.0)));
            let a = div(x, U::r_add(a, l(1.0)));
            U::r_mul(a, e)
        }
        Kind::Faster => {
            let s = U::r_add(U::exp(U::r_mul(x, l(-1.702))), l(1.0));
            div(x, s)
        }
        Kind::FasterV2 => {
            let a = U::r_abs(U::r_mul(x, l(0.7071)));
            let a = U::r_add(U::r_min(a, l(1.769)), l(-1.769));
            let a = U::r_add(U::r_mul(U::r_mul(a, a), l(-0.1444)), l(0.5));
            let b = U::r_add(x, l(0.000000000001));
            let b = div(b, U::r_abs(b));
            U::r_mul(x, U::r_add(U::r_mul(a, b), l(0.5)))
        }
    }
}

/// The whole call's element: high precision on `half` goes through `float`.
fn r_elem<T: Lane>(kind: Kind, hp: bool, perf: bool, x: T) -> T {
    if hp && T::DTYPE == DType::F16 {
        T::of(r_formula::<f32>(kind, perf, x.f()))
    } else {
        r_formula(kind, perf, x)
    }
}

fn call<T: GeluElement, const HP: bool, const PERF: bool>(
    kind: Kind,
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: Option<&LocalTensor<u8>>,
    n: usize,
) {
    match (kind, tmp) {
        (Kind::Gelu, Some(t)) => gelu::<T, HP, PERF>(dst, src, t, n),
        (Kind::Faster, Some(t)) => faster_gelu::<T, HP, PERF>(dst, src, t, n),
        (Kind::FasterV2, Some(t)) => faster_gelu_v2::<T, HP, PERF>(dst, src, t, n),
        (Kind::Gelu, None) => gelu_stack::<T, HP, PERF>(dst, src, n),
        (Kind::Faster, None) => faster_gelu_stack::<T, HP, PERF>(dst, src, n),
        (Kind::FasterV2, None) => faster_gelu_v2_stack::<T, HP, PERF>(dst, src, n),
    }
}

fn rand_vec<T: Lane>(rng: &mut Rng, n: usize, lo: f32, hi: f32) -> Vec<T> {
    (0..n).map(|_| T::of(lo + (hi - lo) * (rng.below(1 << 24) as f32 / (1 << 24) as f32))).collect()
}

const COUNTS: [usize; 5] = [1, 15, 64, 200, 1531];
const KINDS: [Kind; 3] = [Kind::Gelu, Kind::Faster, Kind::FasterV2];

fn run<T: Lane + GeluElement, const HP: bool, const PERF: bool>(seed: u64) {
    let mut rng = Rng(seed);
    for soc in CHIPS {
        on(soc, || {
            sync_sat();
            for kind in KINDS {
                for tmp_bytes in [768, 1000, 4096] {
                    for count in COUNTS {
                        let cap = count + 13;
                        let bytes = (cap * T::SIZE).div_ceil(32) * 32;
                        let u = ub(2 * bytes + tmp_bytes);
                        let (dst, src, tmp) =
                            (u.t::<T>(0, cap), u.t::<T>(bytes, cap), u.t::<u8>(2 * bytes, tmp_bytes));
                        let mut x = rand_vec::<T>(&mut rng, cap, -6.0, 6.0);
                        x[0] = T::of(0.0);
                        src.copy_from_slice(&x);
                        dst.copy_from_slice(&vec![T::of(77.0); cap]);
                        call::<T, HP, PERF>(kind, &dst, &src, Some(&tmp), count);
                        let ctx = format!(
                            "{kind:?} {soc} {} hp {HP} perf {PERF} count {count} tmp {tmp_bytes}",
                            T::DTYPE
                        );
                        let want: Vec<T> = x[..count].iter().map(|&v| r_elem(kind, HP, PERF, v)).collect();
                        let got = dst.to_vec();
                        assert_bits_ctx(&got[..count], &want, &ctx);
                        assert!(got[count..].iter().all(|v| v.f() == 77.0), "{ctx}: past count");
                        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
                        assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{ctx}");
                        // In place (dst = src), which the vendor's pages allow.
                        call::<T, HP, PERF>(kind, &src, &src, Some(&tmp), count);
                        assert_bits_ctx(&src.to_vec()[..count], &want, format!("{ctx} in place"));
                    }
                }
                // The stack form.
                let count = 999;
                let bytes = (count * T::SIZE).div_ceil(32) * 32;
                let u = ub(2 * bytes);
                let (dst, src) = (u.t::<T>(0, count), u.t::<T>(bytes, count));
                let x = rand_vec::<T>(&mut rng, count, -6.0, 6.0);
                src.copy_from_slice(&x);
                call::<T, HP, PERF>(kind, &dst, &src, None, count);
                let want: Vec<T> = x.iter().map(|&v| r_elem(kind, HP, PERF, v)).collect();
                assert_bits_ctx(&dst.to_vec(), &want, format!("{kind:?} stack {soc}"));
            }
        });
    }
}

#[test]
fn match_the_reference_f16() {
    run::<f16, false, false>(1);
    run::<f16, false, true>(2);
}

#[test]
fn match_the_reference_f16_high_precision() {
    run::<f16, true, false>(3);
    run::<f16, true, true>(4);
}

#[test]
fn match_the_reference_f32() {
    run::<f32, false, false>(5);
    run::<f32, false, true>(6);
    // highPrecision does nothing for float.
    run::<f32, true, false>(5);
}

#[test]
#[allow(clippy::approx_constant)] // the vendor's 0.7071, not 1/√2
fn literals_round_alike() {
    for c in [0.044715, 1.5957691216057308, -1.702, -0.1444, -1.769, 1.769, 0.7071, 0.5, 0.000000000001] {
        assert_eq!(f16::from_f64(c).to_bits(), f16::from_f32(c as f32).to_bits(), "{c}");
    }
}

#[test]
fn faster_gelu_v2_half_zero_is_nan() {
    // 1e-12 is 0 in half: x2 = 0 / 0.
    let u = ub(64 + 768);
    let (d, s, t) = (u.t::<f16>(0, 16), u.t::<f16>(32, 16), u.t::<u8>(64, 768));
    s.copy_from_slice(&[f16::ZERO; 16]);
    faster_gelu_v2::<f16, false, false>(&d, &s, &t, 16);
    assert!(d.get_value(0).is_nan());
    faster_gelu_v2::<f16, true, false>(&d, &s, &t, 16);
    assert_eq!(d.get_value(0).to_bits(), 0);
    // In Ascend310P's default saturation mode the NaN of 0 / 0 becomes 0.
    on(Soc::Ascend310P, || {
        let u = ub(64 + 768);
        let (d, s, t) = (u.t::<f16>(0, 16), u.t::<f16>(32, 16), u.t::<u8>(64, 768));
        s.copy_from_slice(&[f16::ZERO; 16]);
        faster_gelu_v2::<f16, false, false>(&d, &s, &t, 16);
        assert_eq!(d.get_value(0).to_bits(), 0);
    });
}

#[test]
fn scratch_layout_of_the_last_round() {
    // FasterGelu on half with high precision, 768 bytes: 192 floats in two parts of 96 (the
    // stack part, then the float copy); count 200 = 2 × 96 + 8.
    let u = ub(2 * 416 + 768);
    let (d, s, t) = (u.t::<f16>(0, 200), u.t::<f16>(416, 200), u.t::<u8>(832, 768));
    let mut rng = Rng(9);
    let x = rand_vec::<f16>(&mut rng, 200, -4.0, 4.0);
    s.copy_from_slice(&x);
    faster_gelu::<f16, true, false>(&d, &s, &t, 200);
    let f = t.reinterpret_cast::<f32>().to_vec();
    for i in 0..96 {
        let k = if i < 8 { 192 + i } else { 96 + i };
        let v = x[k].to_f32();
        let den = ((v * -1.702f64 as f32) as f64).exp() as f32 + 1.0;
        assert_eq!(f[i].to_bits(), den.to_bits(), "denominator at {i}");
        assert_eq!(f[96 + i].to_bits(), (v / den).to_bits(), "result at {i}");
    }
}

#[test]
fn errors() {
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        on(soc, || {
            let u = ub(256 + 768);
            let (d, s, t) = (u.t::<f32>(0, 32), u.t::<f32>(128, 32), u.t::<u8>(256, 768));
            let name = soc.to_string();
            expect_panic(|| gelu::<f32, false, false>(&d, &s, &t, 32), &["Gelu", "not supported on", &name]);
            expect_panic(
                || faster_gelu_stack::<f32, false, false>(&d, &s, 32),
                &["FasterGelu", "not supported on", &name],
            );
            expect_panic(
                || faster_gelu_v2::<f32, false, false>(&d, &s, &t, 32),
                &["FasterGeluV2", "not supported on", &name],
            );
        });
    }
    let u = ub(256 + 1024);
    let (d, s, t) = (u.t::<f32>(0, 32), u.t::<f32>(128, 32), u.t::<u8>(256, 1024));
    expect_panic(|| gelu::<f32, false, false>(&d, &s, &t, 33), &["Gelu", "calCount = 33 exceeds"]);
    expect_panic(
        || faster_gelu::<f32, false, false>(&d, &s, &t.view_len(0, 767), 32),
        &["FasterGelu", "sharedTmpBuffer has 767 bytes", "768", "GetGeluMaxMinTmpSize"],
    );
    expect_panic(
        || faster_gelu_v2::<f32, false, false>(&d, &s, &u.t::<u8>(128, 768), 32),
        &["FasterGeluV2", "sharedTmpBuffer UB bytes [0x80, 0x380) overlap srcLocal"],
    );
    expect_panic(
        || gelu::<f32, true, true>(&d, &s, &u.t::<u8>(0, 768), 1),
        &["Gelu", "overlap dstLocal UB bytes [0x0, 0x4)"],
    );
    // count 0: no round, no error.
    gelu::<f32, false, false>(&d, &s, &t, 0);
    assert_eq!(get_mask_mode(), MaskMode::Normal);
}

#[test]
fn tiling() {
    assert_eq!(get_gelu_max_min_tmp_size(1024, 2), (12288, 768));
    assert_eq!(get_gelu_max_min_tmp_size(64, 4), (768, 768));
    assert_eq!(get_gelu_max_min_tmp_size(65, 4), (780, 768));
    assert_eq!((get_gelu_max_tmp_size(65, 2), get_gelu_min_tmp_size(65, 2)), (780, 768));
    expect_panic(
        || {
            let _ = get_gelu_min_tmp_size(0, 2);
        },
        &["GetGeluMinTmpSize", "greater than 0"],
    );
    expect_panic(
        || {
            let _ = get_gelu_max_tmp_size(4, 8);
        },
        &["GetGeluMaxTmpSize", "typeSize = 8"],
    );
    expect_panic(
        || {
            let _ = get_gelu_max_min_tmp_size(0, 2);
        },
        &["GetGeluMaxMinTmpSize", "greater than 0"],
    );
    expect_panic(
        || {
            let _ = get_gelu_max_min_tmp_size(8, 1);
        },
        &["GetGeluMaxMinTmpSize", "typeSize = 1"],
    );
}
