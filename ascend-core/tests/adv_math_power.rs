//! The advanced API's `Power` (`adv/math_power.rs`) against a scalar reference that restates
//! the vendor's steps per element (`exp(y · ln|x|)` with `Ln` and `Exp` rounded to `float`,
//! the sign from `rint`/`floor` steps, the masks for 1 and NaN, `half` widened and narrowed),
//! for `float` and `half`, the three forms (tensor–tensor, tensor–scalar, scalar–tensor), with
//! a scratch and with the stack buffer, on Ascend910B and Ascend310P (which rounds through
//! `int32_t`); counts that leave tails, scratches that force many rounds, special values
//! (zeros, ±1, infinities, NaN, huge integral exponents); then the mask state, the host tiling
//! and every error.

use ascend_core::prelude::*;

use crate::common::util;
use util::{assert_bits_ctx, expect_panic, on, ub, Rng, SENTINEL};

const CHIPS: [Soc; 2] = [Soc::Ascend910B, Soc::Ascend310P];

/// `float` rounded to an integral value as the chip's `CastFloat2Float` does: one
/// `Cast<float, float>` on Ascend910B; on Ascend310P through `int32_t` (saturating, NaN → 0).
fn integral(v: f32, floor: bool, v200: bool) -> f32 {
    let r = |x: f32| if floor { x.floor() } else { x.round_ties_even() };
    if !v200 {
        return r(v);
    }
    if v.is_nan() {
        return 0.0;
    }
    let i = r(v).clamp(i32::MIN as f32, i32::MAX as f32);
    (if i >= 2_147_483_648.0 { i32::MAX } else { i as i32 }) as f32
}

/// `CommonPowerF` for one element, in `float`, each step rounded.
fn r_pow(x: f32, y: f32, v200: bool) -> f32 {
    let ln = ((x.abs() as f64).ln()) as f32;
    let e = ((y * ln) as f64).exp() as f32;
    // DetermineSign.
    let a = integral(y.abs(), false, v200);
    let t2 = integral(a * 0.5, true, v200) * 2.0;
    let t1 = integral((a - t2) * -2.0 + 1.0, false, v200);
    // GenMaskForSign.
    let ay = y.abs();
    let fin = (ay - integral(ay, false, v200)).abs() < 0.000_000_01f32;
    let m1 = x.is_sign_negative() && fin;
    let mut d = if m1 { t1 } else { 1.0 } * e;
    // GenMaskForOne.
    let one = ay != 0.0 && x != 1.0 && (x != -1.0 || ay != f32::INFINITY);
    if !one {
        d = 1.0;
    }
    // GenMaskForNan.
    let keep = ay == f32::INFINITY || fin || x >= 0.0 || x == f32::NEG_INFINITY;
    if !keep {
        d = f32::from_bits(0x7fc0_0000);
    }
    d
}

/// `Cast<half, float>` with `CAST_NONE` under the core's overflow mode.
fn narrow(v: f32) -> f16 {
    if get_overflow_mode() == OverflowMode::Saturation {
        if v.is_nan() {
            return f16::from_f32(0.0);
        }
        return f16::from_f32(v.clamp(-65504.0, 65504.0));
    }
    f16::from_f32(v)
}

/// The element types through `float`.
trait Fp: PowerElement + std::fmt::Debug {
    fn of(v: f32) -> Self;
    fn f(self) -> f32;
    fn from_ref(v: f32) -> Self;
}

impl Fp for f32 {
    fn of(v: f32) -> f32 {
        v
    }
    fn f(self) -> f32 {
        self
    }
    fn from_ref(v: f32) -> f32 {
        v
    }
}

impl Fp for f16 {
    fn of(v: f32) -> f16 {
        f16::from_f32(v)
    }
    fn f(self) -> f32 {
        self.to_f32()
    }
    fn from_ref(v: f32) -> f16 {
        narrow(v)
    }
}

const BASES: [f32; 16] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    2.0,
    -2.0,
    0.5,
    -0.5,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    3.0,
    -3.0,
    1e-3,
    7.5,
    -0.75,
];
const EXPS: [f32; 18] = [
    0.0,
    -0.0,
    1.0,
    2.0,
    3.0,
    -1.0,
    -2.0,
    0.5,
    -0.5,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    2.5,
    1e9,
    3e9,
    -3.0,
    5.0,
    1e-9,
];

fn draw(rng: &mut Rng, specials: &[f32], integers: bool) -> f32 {
    match rng.below(4) {
        0 => specials[rng.index(specials.len())],
        1 if integers => rng.range(0, 20) as f32 - 10.0,
        _ => (rng.next() % 2_000_001) as f32 / 100_000.0 - 10.0,
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Form {
    TensorTensor,
    TensorScalar,
    ScalarTensor,
}

const FORMS: [Form; 3] = [Form::TensorTensor, Form::TensorScalar, Form::ScalarTensor];

/// Runs one form on `soc` over `count` random elements; checks the result, the rest of `dst`,
/// the sources and the mask mode.
fn check<T: Fp>(soc: Soc, form: Form, count: usize, tmp_bytes: Option<usize>, seed: u64) {
    on(soc, || {
        let mut rng = Rng(seed);
        let v200 = soc == Soc::Ascend310P;
        let cap = (count + 40).div_ceil(64) * 64;
        let region = cap * T::SIZE;
        let scratch = tmp_bytes.unwrap_or(0).div_ceil(32) * 32;
        let u = ub(3 * region + scratch.max(32));
        let (a, b, dst) = (u.t::<T>(0, cap), u.t::<T>(region, cap), u.t::<T>(2 * region, cap));
        let tmp = u.t::<u8>(3 * region, tmp_bytes.unwrap_or(0));
        tmp.copy_from_slice(&vec![SENTINEL; tmp.get_size()]);
        let xa: Vec<T> = (0..cap).map(|_| T::of(draw(&mut rng, &BASES, false))).collect();
        let xb: Vec<T> = (0..cap).map(|_| T::of(draw(&mut rng, &EXPS, true))).collect();
        let old: Vec<T> = (0..cap).map(|_| T::of(draw(&mut rng, &BASES, false))).collect();
        let (sa, sb) = (xa[rng.index(cap)], xb[rng.index(cap)]);
        a.copy_from_slice(&xa);
        b.copy_from_slice(&xb);
        dst.copy_from_slice(&old);
        match (form, tmp_bytes) {
            (Form::TensorTensor, Some(_)) => power::<T, false>(&dst, &a, &b, &tmp, count),
            (Form::TensorTensor, None) => power_stack::<T, false>(&dst, &a, &b, count),
            (Form::TensorScalar, Some(_)) => power_tensor_scalar::<T, false>(&dst, &a, sb, &tmp, count),
            (Form::TensorScalar, None) => power_tensor_scalar_stack::<T, false>(&dst, &a, sb, count),
            (Form::ScalarTensor, Some(_)) => power_scalar_tensor::<T, false>(&dst, sa, &b, &tmp, count),
            (Form::ScalarTensor, None) => power_scalar_tensor_stack::<T, false>(&dst, sa, &b, count),
        }
        let ctx = format!("Power {form:?} {} on {soc}, count {count}, tmp {tmp_bytes:?}", T::DTYPE);
        let mut want: Vec<T> = (0..count)
            .map(|i| {
                let (x, y) = match form {
                    Form::TensorTensor => (xa[i], xb[i]),
                    Form::TensorScalar => (xa[i], sb),
                    Form::ScalarTensor => (sa, xb[i]),
                };
                T::from_ref(r_pow(x.f(), y.f(), v200))
            })
            .collect();
        want.extend_from_slice(&old[count..]);
        assert_bits_ctx(&dst.to_vec(), &want, &ctx);
        assert_bits_ctx(&a.to_vec(), &xa, format!("src0 written; {ctx}"));
        assert_bits_ctx(&b.to_vec(), &xb, format!("src1 written; {ctx}"));
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
    });
}

/// The host's minimum for `form` and `T` on `soc`, and a few more sizes.
fn tmp_sizes<T: Fp>(soc: Soc, form: Form) -> [Option<usize>; 4] {
    let (s1, s2): (&[usize], &[usize]) = match form {
        Form::TensorTensor => (&[64], &[64]),
        Form::TensorScalar => (&[64], &[1]),
        Form::ScalarTensor => (&[1], &[64]),
    };
    let min = get_power_max_min_tmp_size(soc, s1, s2, false, T::SIZE, false).1;
    [Some(min), Some(min + 1000), Some(16384), None]
}

#[test]
fn power_float_every_form_and_chip() {
    let mut s = 10;
    for soc in CHIPS {
        for form in FORMS {
            for count in [0usize, 1, 37, 64, 200, 1000] {
                for tmp in tmp_sizes::<f32>(soc, form) {
                    s += 1;
                    check::<f32>(soc, form, count, tmp, s);
                }
            }
        }
    }
}

#[test]
fn power_half_every_form_and_chip() {
    let mut s = 5000;
    for soc in CHIPS {
        for form in FORMS {
            for count in [0usize, 1, 37, 128, 300, 1000] {
                for tmp in tmp_sizes::<f16>(soc, form) {
                    s += 1;
                    check::<f16>(soc, form, count, tmp, s);
                }
            }
        }
    }
}

#[test]
fn power_half_inf_nan_mode() {
    on(Soc::Ascend910B, || {
        set_overflow_mode(OverflowMode::InfNan);
        let u = ub(3 * 256 + 4096);
        let (a, b, d) = (u.t::<f16>(0, 128), u.t::<f16>(256, 128), u.t::<f16>(512, 128));
        let t = u.t::<u8>(768, 4096);
        let xs = [f16::from_f32(-2.0), f16::from_f32(10.0), f16::from_f32(-1.5), f16::INFINITY];
        let ys = [f16::from_f32(0.5), f16::from_f32(9.0), f16::from_f32(3.0), f16::from_f32(-1.0)];
        a.copy_from_slice(&(0..128).map(|i| xs[i % 4]).collect::<Vec<_>>());
        b.copy_from_slice(&(0..128).map(|i| ys[i % 4]).collect::<Vec<_>>());
        power::<f16, false>(&d, &a, &b, &t, 128);
        assert!(d.get_value(0).is_nan());
        assert_eq!(d.get_value(1), f16::INFINITY);
        assert_eq!(d.get_value(2).to_f32(), -3.375);
        assert_eq!(d.get_value(3).to_f32(), 0.0);
    });
}

#[test]
fn power_known_values() {
    for soc in CHIPS {
        on(soc, || {
            let u = ub(3 * 256 + 4096);
            let (a, b, d) = (u.t::<f32>(0, 64), u.t::<f32>(256, 64), u.t::<f32>(512, 64));
            let t = u.t::<u8>(768, 4096);
            let cases: [(f32, f32, f32); 10] = [
                (-2.0, 3.0, -8.0),
                (-2.0, 2.0, 4.0),
                (-2.0, 0.5, f32::NAN),
                (f32::NAN, 0.0, 1.0),
                (1.0, f32::NAN, 1.0),
                (-1.0, f32::INFINITY, 1.0),
                (0.0, -1.0, f32::INFINITY),
                (-0.0, -1.0, f32::NEG_INFINITY),
                (f32::NEG_INFINITY, 3.0, f32::NEG_INFINITY),
                (2.0, -1.0, 0.5),
            ];
            a.copy_from_slice(&(0..64).map(|i| cases[i % 10].0).collect::<Vec<_>>());
            b.copy_from_slice(&(0..64).map(|i| cases[i % 10].1).collect::<Vec<_>>());
            power::<f32, false>(&d, &a, &b, &t, 64);
            for (i, &(x, y, z)) in cases.iter().enumerate() {
                let got = d.get_value(i);
                assert!(
                    got == z || got.is_nan() && z.is_nan() || (got - z).abs() <= 1e-5 * z.abs(),
                    "{x}^{y} = {got}, want {z} on {soc}"
                );
            }
        });
    }
}

#[test]
fn power_scratch_layout_and_rounds() {
    // A float tensor-tensor scratch of 256 + 5 · 4 · 32 bytes holds splits of 32 on
    // Ascend310P; check the tmpScalar block (eight 1.0s, eight NaNs) and the last round's |y|
    // left in tmpTensor1.
    on(Soc::Ascend310P, || {
        let u = ub(3 * 512 + 896);
        let (a, b, d) = (u.t::<f32>(0, 128), u.t::<f32>(512, 128), u.t::<f32>(1024, 128));
        let t = u.t::<u8>(1536, 256 + 5 * 4 * 32);
        t.copy_from_slice(&vec![SENTINEL; t.get_size()]);
        let ys: Vec<f32> = (0..128).map(|i| i as f32 - 64.5).collect();
        a.copy_from_slice(&[1.5f32; 128]);
        b.copy_from_slice(&ys);
        power::<f32, false>(&d, &a, &b, &t, 100);
        let f = t.reinterpret_cast::<f32>().to_vec();
        assert_eq!(f[..8], [1.0; 8]);
        assert!(f[8..16].iter().all(|v| v.to_bits() == 0x7fc0_0000));
        assert!(f[16..64].iter().all(|v| v.to_bits() == u32::from_ne_bytes([SENTINEL; 4])));
        // The tail of 4 elements (96..100) leaves |y| in tmpTensor1's first four lanes.
        let t1: Vec<f32> = f[64..68].to_vec();
        assert_eq!(t1, ys[96..100].iter().map(|v| v.abs()).collect::<Vec<_>>());
        for (i, &y) in ys[..100].iter().enumerate() {
            assert_eq!(d.get_value(i).to_bits(), r_pow(1.5, y, true).to_bits(), "element {i}");
        }
    });
}

#[test]
fn power_host_tiling() {
    let b = Soc::Ascend910B;
    let p = Soc::Ascend310P;
    // float: 4 / 5 live nodes (+1 on Ascend310P), 256 extra bytes.
    assert_eq!(get_power_max_min_tmp_size(b, &[16], &[16], false, 4, false), (1280, 1280));
    assert_eq!(get_power_max_min_tmp_size(b, &[1024], &[1024], false, 4, false), (16640, 1280));
    assert_eq!(get_power_max_min_tmp_size(b, &[32, 32], &[1], false, 4, false), (20736, 1536));
    assert_eq!(get_power_max_min_tmp_size(b, &[1], &[1024], false, 4, true), (20736, 1536));
    assert_eq!(get_power_max_min_tmp_size(p, &[1024], &[1024], false, 4, false), (20736, 1536));
    // half: 14 live nodes of half bytes (+2 on Ascend310P).
    assert_eq!(get_power_max_min_tmp_size(b, &[1024], &[1024], false, 2, false), (28928, 2048));
    assert_eq!(get_power_max_min_tmp_size(b, &[8], &[1], false, 2, false), (2048, 2048));
    assert_eq!(get_power_max_min_tmp_size(p, &[1], &[8], false, 2, false), (2304, 2304));
    // int32_t: 6 / 7 (+1), no extra.
    assert_eq!(get_power_max_min_tmp_size(b, &[1024], &[1024], true, 4, false), (24576, 1536));
    assert_eq!(get_power_max_min_tmp_size(p, &[1024], &[1], true, 4, false), (32768, 2048));
    assert_eq!(get_power_tmp_buffer_factor_size(b, true, true, false, 4), (4, 256));
    assert_eq!(get_power_tmp_buffer_factor_size(b, true, false, false, 4), (5, 256));
    assert_eq!(get_power_tmp_buffer_factor_size(p, false, true, false, 2), (16, 256));
    assert_eq!(get_power_tmp_buffer_factor_size(b, true, true, false, 2), (14, 256));
    assert_eq!(get_power_tmp_buffer_factor_size(b, true, true, true, 4), (6, 0));
    assert_eq!(get_power_tmp_buffer_factor_size(p, true, false, true, 4), (8, 0));
    // The kernel's split from the host's minimum is 32 (float tensor-tensor: (1280 - 256) / 16).
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        expect_panic(
            || {
                get_power_max_min_tmp_size(soc, &[8], &[8], false, 4, false);
            },
            &["GetPowerMaxMinTmpSize has no result for", &soc.to_string()],
        );
        expect_panic(
            || {
                get_power_tmp_buffer_factor_size(soc, true, true, false, 4);
            },
            &["GetPowerTmpBufferFactorSize has no result for"],
        );
    }
}

#[test]
fn power_errors() {
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        on(soc, || {
            let u = ub(4096);
            let (a, b, d) = (u.t::<f32>(0, 64), u.t::<f32>(256, 64), u.t::<f32>(512, 64));
            let t = u.t::<u8>(1024, 2048);
            let msg = format!("Power has no implementation on {soc}");
            expect_panic(|| power::<f32, false>(&d, &a, &b, &t, 8), &[&msg, "Ascend910B, Ascend310P"]);
            expect_panic(|| power_stack::<f32, false>(&d, &a, &b, 8), &[&msg]);
            expect_panic(|| power_tensor_scalar::<f32, false>(&d, &a, 2.0, &t, 8), &[&msg]);
            expect_panic(|| power_scalar_tensor::<f32, false>(&d, 2.0, &b, &t, 8), &[&msg]);
        });
    }
    on(Soc::Ascend910B, || {
        let u = ub(8192);
        let (a, b, d) = (u.t::<f32>(0, 64), u.t::<f32>(256, 64), u.t::<f32>(512, 64));
        let t = u.t::<u8>(1024, 2048);
        let short = u.t::<f32>(768, 32);
        let big = u.t::<f32>(4096, 128);
        expect_panic(
            || power::<f32, false>(&d, &a, &b, &t, 65),
            &["Power", "calCount = 65 exceeds dstTensor's 64"],
        );
        expect_panic(
            || power::<f32, false>(&big, &a, &b, &t, 65),
            &["Power", "calCount = 65 exceeds src0Tensor's 64"],
        );
        expect_panic(|| power::<f32, false>(&short, &a, &b, &t, 40), &["Power", "dstTensor's 32"]);
        expect_panic(|| power::<f32, false>(&d, &a, &short, &t, 40), &["Power", "src1Tensor's 32"]);
        expect_panic(
            || power_tensor_scalar::<f32, false>(&big, &a, 1.0, &t, 65),
            &["Power", "calCount = 65 exceeds src0Tensor's 64"],
        );
        expect_panic(
            || power_scalar_tensor::<f32, false>(&short, 1.0, &b, &t, 40),
            &["Power", "calCount = 40 exceeds dstTensor's 32"],
        );
        expect_panic(|| power::<f32, false>(&a, &a, &b, &t, 64), &["Power", "dst UB bytes", "overlap src0"]);
        expect_panic(|| power::<f32, false>(&b, &a, &b, &t, 64), &["Power", "dst UB bytes", "overlap src1"]);
        expect_panic(
            || power_tensor_scalar::<f32, false>(&a, &a, 2.0, &t, 64),
            &["Power", "dst UB bytes", "overlap src0Tensor"],
        );
        let ta = u.t::<u8>(0, 512);
        expect_panic(
            || power::<f32, false>(&d, &a, &b, &ta, 64),
            &["Power", "sharedTmpBuffer UB bytes", "overlap"],
        );
        expect_panic(
            || power_scalar_tensor::<f32, false>(&d, 2.0, &b, &u.t::<u8>(256, 256), 64),
            &["Power", "sharedTmpBuffer UB bytes", "overlap src1Tensor"],
        );
        // The scratch: 256 bytes of tmpScalar, then k floats for 64 elements (Ascend910B).
        for (bytes, need) in [(255usize, 1280usize), (767, 1280), (1279, 1280)] {
            let small = u.t::<u8>(2048, bytes);
            expect_panic(
                || power::<f32, false>(&d, &a, &b, &small, 64),
                &["Power", &format!("sharedTmpBuffer has {bytes} bytes; it must hold at least {need}")],
            );
        }
        let small = u.t::<u8>(2048, 768);
        expect_panic(
            || power::<f32, false>(&d, &a, &b, &small, 64),
            &["Power", "one split of 64 (the vendor's own check allows splits of 32", "finiteIntegerYMask"],
        );
        let small = u.t::<u8>(2048, 1535);
        expect_panic(
            || power_tensor_scalar::<f32, false>(&d, &a, 2.0, &small, 64),
            &["Power", "sharedTmpBuffer has 1535 bytes; it must hold at least 1536"],
        );
        let small = u.t::<u8>(2048, 2047);
        let h = |t: &LocalTensor<f32>| t.reinterpret_cast::<f16>();
        expect_panic(
            || power::<f16, false>(&h(&d), &h(&a), &h(&b), &small, 64),
            &["Power", "it must hold at least 2048"],
        );
    });
    on(Soc::Ascend910B, || {
        let mut pipe = TPipe::new();
        let (mut v, mut l1) = (TBuf::<VecCalc>::new(), TBuf::<A1>::new());
        pipe.init_tbuf(&mut v, 4096);
        pipe.init_tbuf(&mut l1, 1024);
        let (a, b, d) = (
            v.get_with_offset::<f32>(64, 0),
            v.get_with_offset::<f32>(64, 256),
            v.get_with_offset::<f32>(64, 512),
        );
        let t = v.get_with_offset::<u8>(2048, 1024);
        let far = l1.get::<f32>();
        expect_panic(|| power::<f32, false>(&far, &a, &b, &t, 8), &["Power", "dst is at position A1"]);
        expect_panic(|| power::<f32, false>(&d, &far, &b, &t, 8), &["Power", "src0 is at position A1"]);
        expect_panic(
            || power_scalar_tensor::<f32, false>(&d, 1.0, &far, &t, 8),
            &["Power", "src1Tensor is at position A1"],
        );
        expect_panic(
            || power_tensor_scalar::<f32, false>(&d, &a, 1.0, &l1.get::<u8>(), 8),
            &["Power", "sharedTmpBuffer is at position A1"],
        );
    });
    on(Soc::Ascend310P, || {
        // Splits of 32 are fine on Ascend310P (tmpTensor4 lies between tmpTensor3 and the masks).
        let u = ub(4096);
        let (a, b, d) = (u.t::<f32>(0, 64), u.t::<f32>(256, 64), u.t::<f32>(512, 64));
        let t = u.t::<u8>(1024, 895);
        expect_panic(
            || power::<f32, false>(&d, &a, &b, &t, 64),
            &["Power", "sharedTmpBuffer has 895 bytes; it must hold at least 896 (256 bytes of tmpScalar, then 5 floats per element for one split of 32; see"],
        );
        power::<f32, false>(&d, &a, &b, &u.t::<u8>(1024, 896), 64);
    });
    on(Soc::Ascend310P, || {
        let u = ub(get_soc().ub_size());
        let (a, d) = (u.t::<f32>(0, 64), u.t::<f32>(256, 64));
        expect_panic(
            || power_tensor_scalar_stack::<f32, false>(&d, &a, 2.0, 64),
            &["Power", "no space left"],
        );
    });
}

// ---- int32_t -------------------------------------------------------------------------------

/// `CommonPowerI` for one element: `|y|` by halving (squaring the base), the rest one
/// multiplication at a time, `trunc(1 / x^|y|)` for a negative `y` (0 where `x^|y|` is 0); the
/// products wrap. Ascend310P halves through `float` and compares the bits as `float`.
fn r_pow_i(x: i32, y: i32, v200: bool) -> i32 {
    let neg = (y as f32) < 0.0;
    let ori = if neg { y.wrapping_mul(-1) } else { y };
    let zero = |v: i32| if v200 { v as u32 & 0x7fff_ffff == 0 } else { v == 0 };
    let shift = |v: i32| if v200 { (((v & !1) as f32) * 0.5).round_ties_even() as i32 } else { v >> 1 };
    let mut rec = if zero(ori) { 0 } else { 1 };
    let mut d = if zero(ori) { 1 } else { x };
    let mut e = shift(ori);
    while e != 0 {
        d = d.wrapping_mul(d);
        rec *= 2;
        e = shift(e);
    }
    let mut rem = ori - rec;
    while rem != 0 {
        d = d.wrapping_mul(x);
        rem -= 1;
    }
    let t1 = (1.0f32 / d as f32) as i32;
    let r = if neg { t1 } else { d };
    if d == 0 {
        0
    } else {
        r
    }
}

/// Runs one `int32_t` form on `soc`; checks the result, the rest of `dst`, the sources and the
/// mask mode.
fn check_int(soc: Soc, form: Form, count: usize, tmp_bytes: Option<usize>, seed: u64) {
    on(soc, || {
        let mut rng = Rng(seed);
        let v200 = soc == Soc::Ascend310P;
        let cap = (count + 40).div_ceil(64) * 64;
        let region = cap * 4;
        let scratch = tmp_bytes.unwrap_or(0).div_ceil(32) * 32;
        let u = ub(3 * region + scratch.max(32));
        let (a, b, dst) = (u.t::<i32>(0, cap), u.t::<i32>(region, cap), u.t::<i32>(2 * region, cap));
        let tmp = u.t::<u8>(3 * region, tmp_bytes.unwrap_or(0));
        tmp.copy_from_slice(&vec![SENTINEL; tmp.get_size()]);
        let bx = |rng: &mut Rng| match rng.below(6) {
            0 => [0, 1, -1, 1000, 46341, -7][rng.index(6)],
            _ => rng.range(0, 12) as i32 - 6,
        };
        let by = |rng: &mut Rng| match rng.below(8) {
            0 => [0, 1, -1, 255, 300, -64][rng.index(6)],
            _ => rng.range(0, 80) as i32 - 40,
        };
        let xa: Vec<i32> = (0..cap).map(|_| bx(&mut rng)).collect();
        let xb: Vec<i32> = (0..cap).map(|_| by(&mut rng)).collect();
        let old: Vec<i32> = (0..cap).map(|_| rng.next() as i32).collect();
        let (sa, sb) = (xa[rng.index(cap)], xb[rng.index(cap)]);
        a.copy_from_slice(&xa);
        b.copy_from_slice(&xb);
        dst.copy_from_slice(&old);
        match (form, tmp_bytes) {
            (Form::TensorTensor, Some(_)) => power::<i32, false>(&dst, &a, &b, &tmp, count),
            (Form::TensorTensor, None) => power_stack::<i32, false>(&dst, &a, &b, count),
            (Form::TensorScalar, Some(_)) => power_tensor_scalar::<i32, false>(&dst, &a, sb, &tmp, count),
            (Form::TensorScalar, None) => power_tensor_scalar_stack::<i32, false>(&dst, &a, sb, count),
            (Form::ScalarTensor, Some(_)) => power_scalar_tensor::<i32, false>(&dst, sa, &b, &tmp, count),
            (Form::ScalarTensor, None) => power_scalar_tensor_stack::<i32, false>(&dst, sa, &b, count),
        }
        let ctx = format!("Power {form:?} int32_t on {soc}, count {count}, tmp {tmp_bytes:?}");
        let mut want: Vec<i32> = (0..count)
            .map(|i| {
                let (x, y) = match form {
                    Form::TensorTensor => (xa[i], xb[i]),
                    Form::TensorScalar => (xa[i], sb),
                    Form::ScalarTensor => (sa, xb[i]),
                };
                r_pow_i(x, y, v200)
            })
            .collect();
        want.extend_from_slice(&old[count..]);
        assert_eq!(dst.to_vec(), want, "{ctx}");
        assert_eq!(a.to_vec(), xa, "src0 written; {ctx}");
        assert_eq!(b.to_vec(), xb, "src1 written; {ctx}");
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
    });
}

#[test]
fn power_int_every_form_and_chip() {
    let mut s = 9000;
    for soc in CHIPS {
        for form in FORMS {
            let (s1, s2): (&[usize], &[usize]) = match form {
                Form::TensorTensor => (&[64], &[64]),
                Form::TensorScalar => (&[64], &[1]),
                Form::ScalarTensor => (&[1], &[64]),
            };
            let min = get_power_max_min_tmp_size(soc, s1, s2, true, 4, false).1;
            for count in [0usize, 1, 37, 64, 200, 700] {
                for tmp in [Some(min), Some(min * 2), Some(min * 5 / 2), None] {
                    s += 1;
                    check_int(soc, form, count, tmp, s);
                }
            }
        }
    }
}

#[test]
fn power_int_known_values_and_scratch() {
    for soc in CHIPS {
        on(soc, || {
            let u = ub(3 * 256 + 4096);
            let (a, b, d) = (u.t::<i32>(0, 64), u.t::<i32>(256, 64), u.t::<i32>(512, 64));
            let t = u.t::<u8>(768, 4096);
            let cases: [(i32, i32, i32); 8] = [
                (2, 10, 1024),
                (-3, 3, -27),
                (5, 0, 1),
                (0, 0, 1),
                (2, -1, 0),
                (-1, -3, -1),
                (0, -2, 0),
                (7, 1, 7),
            ];
            a.copy_from_slice(&(0..64).map(|i| cases[i % 8].0).collect::<Vec<_>>());
            b.copy_from_slice(&(0..64).map(|i| cases[i % 8].1).collect::<Vec<_>>());
            power::<i32, false>(&d, &a, &b, &t, 64);
            for (i, &(x, y, z)) in cases.iter().enumerate() {
                assert_eq!(d.get_value(i), z, "{x}^{y} on {soc}");
            }
        });
    }
    // Splits of 32 on Ascend910B; Ascend310P needs 64 (its CompareIntZero reads tmpTensor3's
    // whole repeat over the masks).
    on(Soc::Ascend910B, || {
        let u = ub(3 * 512 + 768);
        let (a, b, d) = (u.t::<i32>(0, 128), u.t::<i32>(512, 128), u.t::<i32>(1024, 128));
        a.copy_from_slice(&[3; 128]);
        b.copy_from_slice(&(0..128).map(|i| i % 9).collect::<Vec<_>>());
        power::<i32, false>(&d, &a, &b, &u.t::<u8>(1536, 768), 100);
        for i in 0..100 {
            assert_eq!(d.get_value(i), 3i32.pow(i as u32 % 9), "element {i}");
        }
        expect_panic(
            || power::<i32, false>(&d, &a, &b, &u.t::<u8>(1536, 767), 100),
            &["Power", "sharedTmpBuffer has 767 bytes; it must hold at least 768 (6 int32_t per element for one split of 32;"],
        );
    });
    on(Soc::Ascend310P, || {
        let u = ub(3 * 512 + 160 * 28);
        let (a, b, d) = (u.t::<i32>(0, 128), u.t::<i32>(512, 128), u.t::<i32>(1024, 128));
        for (bytes, split) in [(1000usize, 32usize), (2688, 96)] {
            expect_panic(
                || power::<i32, false>(&d, &a, &b, &u.t::<u8>(1536, bytes), 100),
                &[
                    "Power",
                    &format!("sharedTmpBuffer has {bytes} bytes, which gives splits of {split} int32_t"),
                    "reads a whole 64-lane repeat into mask",
                    "the host's minimum, 1792 bytes, gives 64",
                ],
            );
        }
        expect_panic(
            || power_tensor_scalar::<i32, false>(&d, &a, 2, &u.t::<u8>(1536, 1023), 100),
            &["Power", "sharedTmpBuffer has 1023 bytes; it must hold at least 1024 (8 int32_t per element"],
        );
        // A split of 160 is fine.
        a.copy_from_slice(&[-2; 128]);
        b.copy_from_slice(&[5; 128]);
        power::<i32, false>(&d, &a, &b, &u.t::<u8>(1536, 160 * 28), 100);
        assert_eq!(d.get_value(99), -32);
    });
}
