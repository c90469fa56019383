//! The advanced API's `Silu`, `Swish`, `SwiGLU`, `ReGlu` and `GeGLU` (`adv/activation_glu.rs`)
//! against slow, obviously correct scalar references that take the vendor's steps one by one
//! with the vector unit's roundings (`half` steps computed in `f32` and rounded once, `Exp` in
//! `f64` and rounded once, `float` steps in `f32`; the `half` GLU forms in `float` with casts
//! that round to nearest) — random inputs from a fixed seed, `half` and `float` (and
//! `bfloat16_t` for `ReGlu` on Ascend910B), on Ascend910B and Ascend310P, with counts that leave
//! tails and scratch sizes that force several rounds, the stack form too, compared bit for bit;
//! then the scratch layout of the last round, the mask state afterwards, and every error.

use ascend_core::prelude::*;

use crate::common::util;
use util::{assert_bits_ctx, expect_panic, on, ub, Rng, Ub};

const CHIPS: [Soc; 2] = [Soc::Ascend910B, Soc::Ascend310P];

// ---- lane arithmetic of the references --------------------------------------------------------

/// The reference's per-type arithmetic: one rounding per step, as the vector unit.
trait Lane: Element {
    fn of(x: f32) -> Self;
    fn f(self) -> f32;
    fn r_add(a: Self, b: Self) -> Self {
        Self::of(a.f() + b.f())
    }
    fn r_mul(a: Self, b: Self) -> Self {
        Self::of(a.f() * b.f())
    }
    fn div(a: Self, b: Self) -> Self {
        Self::of(a.f() / b.f())
    }
    fn exp(a: Self) -> Self;
}
impl Lane for f32 {
    fn of(x: f32) -> f32 {
        x
    }
    fn f(self) -> f32 {
        self
    }
    fn exp(a: f32) -> f32 {
        (a as f64).exp() as f32
    }
}
impl Lane for f16 {
    fn of(x: f32) -> f16 {
        f16::from_f32(x)
    }
    fn f(self) -> f32 {
        self.to_f32()
    }
    fn exp(a: f16) -> f16 {
        f16::from_f64(a.to_f64().exp())
    }
}
impl Lane for bf16 {
    fn of(x: f32) -> bf16 {
        bf16::from_f32(x)
    }
    fn f(self) -> f32 {
        self.to_f32()
    }
    fn exp(_: bf16) -> bf16 {
        unreachable!()
    }
}

// ---- references --------------------------------------------------------------------------------

/// `Muls(s)`, `Exp`, `Adds(1)`, `Div(x, ·)` in `T`.
fn r_swish<T: Lane>(x: T, s: T) -> T {
    let e = T::exp(T::r_mul(x, s));
    T::div(x, T::r_add(e, T::of(1.0)))
}

/// SwiGLU in `float`: `x0 * swish(x1)` with `-β`.
fn r_swiglu_f(x0: f32, x1: f32, beta: f32) -> f32 {
    r_swish(x1, -beta) * x0
}

/// ReGlu in `float`: `x0 * maximum(x1, +0)` (IEEE maximum: `-0 → +0`).
fn r_reglu_f(x0: f32, x1: f32) -> f32 {
    let m = if x1 > 0.0 || x1.is_nan() { x1 } else { 0.0 };
    x0 * m
}

#[allow(clippy::excessive_precision)]
const COEFF0: f32 = -0.071_354_816_272_6;
#[allow(clippy::excessive_precision)]
const COEFF1: f32 = 22.363_860_002_236;

/// GeGLU in `float`: `x0 * x / (1 + exp(COEFF0 · ((x·x + COEFF1) · x)))`, a rounding per step.
fn r_geglu_f(x0: f32, x: f32) -> f32 {
    let a = (x * x + COEFF1) * x * COEFF0;
    let e = (a as f64).exp() as f32 + 1.0;
    x0 * (x / e)
}

// ---- data --------------------------------------------------------------------------------------

fn rand_vec<T: Lane>(rng: &mut Rng, n: usize, lo: f32, hi: f32) -> Vec<T> {
    (0..n).map(|_| T::of(lo + (hi - lo) * (rng.below(1 << 24) as f32 / (1 << 24) as f32))).collect()
}

/// A UB of dst, src0, src1 (each `cap` elements of `T`) and a scratch of `tmp` bytes after
/// them; dst holds a sentinel.
struct Setup<T: Element> {
    u: Ub,
    /// Bytes of each of dst, src0, src1 (dst at 0, src0 at `bytes`, src1 at `2 * bytes`).
    bytes: usize,
    dst: LocalTensor<T>,
    src0: LocalTensor<T>,
    src1: LocalTensor<T>,
    tmp: LocalTensor<u8>,
}

fn setup<T: Lane>(cap: usize, tmp: usize) -> Setup<T> {
    let bytes = (cap * T::SIZE).div_ceil(32) * 32;
    let u = ub(3 * bytes + tmp.max(32));
    let (dst, src0, src1) = (u.t::<T>(0, cap), u.t::<T>(bytes, cap), u.t::<T>(2 * bytes, cap));
    let tmp = u.t::<u8>(3 * bytes, tmp);
    dst.copy_from_slice(&vec![T::of(1234.0); cap]);
    Setup { u, bytes, dst, src0, src1, tmp }
}

/// Checks `dst[..count]` against `want` and that `dst[count..]` kept the sentinel, and that
/// the core is in normal mode with the full mask.
#[track_caller]
fn check_out<T: Lane>(dst: &LocalTensor<T>, want: &[T], ctx: &str) {
    let got = dst.to_vec();
    let n = want.len();
    assert_bits_ctx(&got[..n], want, ctx);
    assert!(got[n..].iter().all(|v| v.to_bits_u64() == T::of(1234.0).to_bits_u64()), "{ctx}: past count");
    assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
    assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{ctx}");
}

/// Counts with tails: within one block, one repeat, and several.
const COUNTS: [usize; 6] = [1, 15, 64, 200, 1000, 1531];

// ---- Silu and Swish --------------------------------------------------------------------------

mod silu_swish {
    use super::*;

    fn run<T: Lane + SwishElement>(seed: u64) {
        let mut rng = Rng(seed);
        for soc in CHIPS {
            on(soc, || {
                for count in COUNTS {
                    let cap = count + 17;
                    let s = setup::<T>(cap, 0);
                    let x = rand_vec::<T>(&mut rng, cap, -7.0, 7.0);
                    s.src0.copy_from_slice(&x);
                    silu::<T, false>(&s.dst, &s.src0, count);
                    let want: Vec<T> = x[..count].iter().map(|&v| r_swish(v, T::of(-1.0))).collect();
                    check_out(&s.dst, &want, &format!("Silu {soc} {} count {count}", T::DTYPE));
                    assert_eq!(
                        s.src0.to_vec().iter().map(|v| v.to_bits_u64()).collect::<Vec<_>>(),
                        x.iter().map(|v| v.to_bits_u64()).collect::<Vec<_>>(),
                        "src kept"
                    );

                    let beta = T::of(0.25 + 1.25 * (rng.below(1000) as f32 / 1000.0));
                    s.dst.copy_from_slice(&vec![T::of(1234.0); cap]);
                    swish::<T, false>(&s.dst, &s.src0, count, beta);
                    let nb = T::of(-beta.f());
                    let want: Vec<T> = x[..count].iter().map(|&v| r_swish(v, nb)).collect();
                    check_out(
                        &s.dst,
                        &want,
                        &format!("Swish {soc} {} count {count} beta {}", T::DTYPE, beta.f()),
                    );
                }
            });
        }
    }

    #[test]
    fn silu_and_swish_match_the_reference_f16() {
        run::<f16>(1);
    }

    #[test]
    fn silu_and_swish_match_the_reference_f32() {
        run::<f32>(2);
    }

    #[test]
    fn vendor_doc_example_values() {
        // The vendor's page: Silu(-1) ≈ -0.2689414, Silu(2) ≈ 1.761594, Silu(100) = 100.
        let s = setup::<f32>(8, 0);
        s.src0.copy_from_slice(&[-1.0, 2.0, 100.0, 0.0, -100.0, 0.5, 10.0, -0.0]);
        silu::<f32, false>(&s.dst, &s.src0, 8);
        let y = s.dst.to_vec();
        assert!((y[0] + 0.268_941_4).abs() < 1e-6 && (y[1] - 1.761_594).abs() < 1e-6, "{y:?}");
        assert_eq!((y[2], y[3]), (100.0, 0.0));
        assert_eq!(y[4].to_bits(), (-0.0f32).to_bits()); // -100 / (1 + e^100)
    }

    #[test]
    fn errors() {
        for soc in [Soc::Ascend910, Soc::Ascend310B] {
            on(soc, || {
                let s = setup::<f32>(64, 0);
                let name = soc.to_string();
                expect_panic(
                    || silu::<f32, false>(&s.dst, &s.src0, 64),
                    &["Silu", "not supported on", &name],
                );
                expect_panic(
                    || swish::<f32, false>(&s.dst, &s.src0, 64, 1.0),
                    &["Swish", "not supported on", &name],
                );
            });
        }
        let s = setup::<f16>(64, 0);
        expect_panic(|| silu::<f16, false>(&s.dst, &s.src0, 65), &["Silu", "calCount = 65 exceeds"]);
        expect_panic(
            || swish::<f16, false>(&s.dst, &s.src0.view_len(0, 32), 33, f16::ONE),
            &["Swish", "calCount = 33"],
        );
        expect_panic(
            || silu::<f16, false>(&s.dst, &s.dst.view(1), 8),
            &["Silu", "dstLocal", "overlap srcLocal"],
        );
        expect_panic(|| swish::<f16, false>(&s.src0, &s.src0, 8, f16::ONE), &["Swish", "overlap"]);
        expect_panic(|| silu::<f16, false>(&s.dst, &s.src0, 0), &["SetVectorMask", "mask = 0"]);
        // Apart: fine.
        silu::<f16, false>(&s.dst, &s.dst.view(16), 16);
    }

    #[test]
    fn tiling() {
        assert_eq!(get_silu_tmp_size(4096, 2, false), (0, 0));
        assert_eq!(get_swish_tmp_size(1, 4, true), (0, 0));
    }
}

// ---- SwiGLU ------------------------------------------------------------------------------------

mod swiglu_tests {
    use super::*;

    fn reference<T: Lane>(x0: &[T], x1: &[T], beta: f32) -> Vec<T> {
        x0.iter()
            .zip(x1)
            // float: every step in float; half: cast up (exact), the float steps, cast down
            // rounding to nearest.
            .map(|(&a, &b)| T::of(r_swiglu_f(a.f(), b.f(), beta)))
            .collect()
    }

    fn run<T: Lane + SwiGluElement>(seed: u64, tmps: &[usize]) {
        let mut rng = Rng(seed);
        for soc in CHIPS {
            on(soc, || {
                for &tmp in tmps {
                    for count in COUNTS {
                        let cap = count + 9;
                        let s = setup::<T>(cap, tmp);
                        let (x0, x1) = (
                            rand_vec::<T>(&mut rng, cap, -20.0, 20.0),
                            rand_vec::<T>(&mut rng, cap, -12.0, 12.0),
                        );
                        s.src0.copy_from_slice(&x0);
                        s.src1.copy_from_slice(&x1);
                        let beta = 0.1 + 1.9 * (rng.below(1000) as f32 / 1000.0);
                        swiglu::<T, false>(&s.dst, &s.src0, &s.src1, beta, &s.tmp, count);
                        let ctx = format!("SwiGLU {soc} {} count {count} tmp {tmp}", T::DTYPE);
                        check_out(&s.dst, &reference(&x0[..count], &x1[..count], beta), &ctx);
                    }
                }
                // The stack form.
                let count = 777;
                let s = setup::<T>(count, 0);
                let (x0, x1) = (
                    rand_vec::<T>(&mut rng, count, -20.0, 20.0),
                    rand_vec::<T>(&mut rng, count, -12.0, 12.0),
                );
                s.src0.copy_from_slice(&x0);
                s.src1.copy_from_slice(&x1);
                swiglu_stack::<T, false>(&s.dst, &s.src0, &s.src1, 1.0, count);
                check_out(&s.dst, &reference(&x0, &x1, 1.0), &format!("SwiGLU stack {soc}"));
            });
        }
    }

    #[test]
    fn matches_the_reference_f16() {
        // stackSize = 128 (several rounds), 160 (tail not block aligned), 4096.
        run::<f16>(3, &[1536, 1920, 3 * 4 * 4096]);
    }

    #[test]
    fn matches_the_reference_f32() {
        run::<f32>(4, &[0, 256]);
    }

    #[test]
    fn half_scratch_layout_of_the_last_round() {
        // tmp 1600 bytes: stackSize = 1600 / 4 / 3 = 133 → 128; count 300 = 2 × 128 + 44, the
        // tail's layout n = 48 (44 halves rounded up to a block).
        let count = 300;
        let s = setup::<f16>(count, 1600);
        let mut rng = Rng(5);
        let (x0, x1) =
            (rand_vec::<f16>(&mut rng, count, -5.0, 5.0), rand_vec::<f16>(&mut rng, count, -5.0, 5.0));
        s.src0.copy_from_slice(&x0);
        s.src1.copy_from_slice(&x1);
        let junk = vec![0xA5u8; 1600];
        s.tmp.copy_from_slice(&junk);
        swiglu::<f16, false>(&s.dst, &s.src0, &s.src1, 0.5, &s.tmp, count);
        let t = s.tmp.reinterpret_cast::<f32>().to_vec();
        let n = 48;
        for i in 0..44 {
            let (a, b) = (x0[256 + i].to_f32(), x1[256 + i].to_f32());
            assert_eq!(t[i].to_bits(), b.to_bits(), "src1 as float at {i}");
            assert_eq!(t[n + i].to_bits(), r_swiglu_f(a, b, 0.5).to_bits(), "product at {i}");
            assert_eq!(t[2 * n + i].to_bits(), a.to_bits(), "src0 as float at {i}");
        }
        // Past the tail's 44 lanes of each part, the first rounds' values stay.
        for i in 44..n {
            assert_eq!(t[i].to_bits(), x1[128 + i].to_f32().to_bits(), "round 2 src1 at {i}");
        }
        // Beyond 3 × 128 floats the scratch is untouched.
        assert!(s.tmp.to_vec()[3 * 128 * 4..].iter().all(|&b| b == 0xA5));
    }

    #[test]
    fn errors() {
        for soc in [Soc::Ascend910, Soc::Ascend310B] {
            on(soc, || {
                let s = setup::<f16>(64, 1536);
                let name = soc.to_string();
                expect_panic(
                    || swiglu::<f16, false>(&s.dst, &s.src0, &s.src1, 1.0, &s.tmp, 64),
                    &["SwiGLU", "not supported on", &name],
                );
                expect_panic(
                    || swiglu_stack::<f16, false>(&s.dst, &s.src0, &s.src1, 1.0, 64),
                    &["SwiGLU", &name],
                );
            });
        }
        let s = setup::<f16>(64, 1536);
        expect_panic(
            || swiglu::<f16, false>(&s.dst, &s.src0, &s.src1, 1.0, &s.tmp, 65),
            &["SwiGLU", "calCount = 65"],
        );
        expect_panic(
            || swiglu::<f16, false>(&s.dst, &s.src0, &s.src1, 1.0, &s.tmp.view_len(0, 1535), 64),
            &["SwiGLU", "sharedTmpBuffer has 1535 bytes", "1536", "GetSwiGLUMaxMinTmpSize"],
        );
        expect_panic(
            || swiglu::<f16, false>(&s.dst, &s.src0, &s.src1.view_len(0, 32), 1.0, &s.tmp, 16),
            &["SwiGLU", "srcTensor0 has 64 elements and srcTensor1 32"],
        );
        expect_panic(
            || swiglu::<f16, false>(&s.src1, &s.src0, &s.src1, 1.0, &s.tmp, 64),
            &["SwiGLU", "dst UB bytes", "overlap src1"],
        );
        expect_panic(
            || swiglu::<f16, false>(&s.dst, &s.dst, &s.src1, 1.0, &s.tmp, 64),
            &["SwiGLU", "overlap src0"],
        );
        expect_panic(
            || swiglu::<f16, false>(&s.dst, &s.src0, &s.src1, 1.0, &s.u.t::<u8>(2 * s.bytes + 64, 1536), 64),
            &["SwiGLU", "sharedTmpBuffer UB bytes", "overlap src1"],
        );
        // float needs no scratch.
        drop(s);
        let f = setup::<f32>(16, 0);
        swiglu::<f32, false>(&f.dst, &f.src0, &f.src1, 1.0, &f.tmp.view_len(0, 0), 16);
    }

    #[test]
    fn tiling() {
        assert_eq!(get_swiglu_max_min_tmp_size(1024, 2, false), (12288, 1536));
        assert_eq!(get_swiglu_max_min_tmp_size(8, 2, true), (1536, 1536));
        assert_eq!(get_swiglu_max_min_tmp_size(1024, 4, false), (0, 0));
        assert_eq!(get_swiglu_tmp_buffer_factor_size(2), (6, 0));
        assert_eq!(get_swiglu_tmp_buffer_factor_size(4), (0, 0));
        expect_panic(
            || {
                let _ = get_swiglu_max_min_tmp_size(0, 2, false);
            },
            &["GetSwiGLUMaxMinTmpSize", "greater than 0"],
        );
        expect_panic(
            || {
                let _ = get_swiglu_tmp_buffer_factor_size(1);
            },
            &["GetSwiGLUTmpBufferFactorSize", "typeSize = 1"],
        );
    }
}

// ---- ReGlu -------------------------------------------------------------------------------------

mod reglu_tests {
    use super::*;

    fn reference<T: Lane>(x0: &[T], x1: &[T]) -> Vec<T> {
        x0.iter().zip(x1).map(|(&a, &b)| T::of(r_reglu_f(a.f(), b.f()))).collect()
    }

    fn run<T: Lane + ReGluElement>(seed: u64, socs: &[Soc], tmps: &[usize]) {
        let mut rng = Rng(seed);
        for &soc in socs {
            on(soc, || {
                for &tmp in tmps {
                    for count in COUNTS {
                        let cap = count + 9;
                        let s = setup::<T>(cap, tmp);
                        let (x0, mut x1) = (
                            rand_vec::<T>(&mut rng, cap, -100.0, 100.0),
                            rand_vec::<T>(&mut rng, cap, -50.0, 50.0),
                        );
                        x1[0] = T::of(-0.0);
                        x1[cap - 1] = T::of(0.0);
                        s.src0.copy_from_slice(&x0);
                        s.src1.copy_from_slice(&x1);
                        reglu::<T, false>(&s.dst, &s.src0, &s.src1, &s.tmp, count);
                        let ctx = format!("ReGlu {soc} {} count {count} tmp {tmp}", T::DTYPE);
                        check_out(&s.dst, &reference(&x0[..count], &x1[..count]), &ctx);
                    }
                }
                let count = 999;
                let s = setup::<T>(count, 0);
                let (x0, x1) = (
                    rand_vec::<T>(&mut rng, count, -100.0, 100.0),
                    rand_vec::<T>(&mut rng, count, -50.0, 50.0),
                );
                s.src0.copy_from_slice(&x0);
                s.src1.copy_from_slice(&x1);
                reglu_stack::<T, false>(&s.dst, &s.src0, &s.src1, count);
                check_out(&s.dst, &reference(&x0, &x1), &format!("ReGlu stack {soc}"));
            });
        }
    }

    #[test]
    fn matches_the_reference_f16() {
        // stackSize = 1536 / 4 / 3 = 128 → 128; 2000 bytes → 166 → 160; 6000 → 500 → 480.
        run::<f16>(6, &CHIPS, &[1536, 2000, 6000]);
    }

    #[test]
    fn matches_the_reference_f32() {
        run::<f32>(7, &CHIPS, &[256, 4096]);
    }

    #[test]
    fn matches_the_reference_bf16_on_ascend910b() {
        run::<bf16>(8, &[Soc::Ascend910B], &[1536, 2000]);
    }

    #[test]
    fn half_scratch_layout_of_the_last_round() {
        // tmp 2000 bytes: stackSize = 160; count 400 = 2 × 160 + 80; the tail keeps n = 160.
        let count = 400;
        let s = setup::<f16>(count, 2000);
        let mut rng = Rng(9);
        let (x0, x1) =
            (rand_vec::<f16>(&mut rng, count, -5.0, 5.0), rand_vec::<f16>(&mut rng, count, -5.0, 5.0));
        s.src0.copy_from_slice(&x0);
        s.src1.copy_from_slice(&x1);
        reglu::<f16, false>(&s.dst, &s.src0, &s.src1, &s.tmp, count);
        let t = s.tmp.reinterpret_cast::<f32>().to_vec();
        let n = 160;
        for i in 0..n {
            // The tail wrote lanes 0..80; lanes 80..160 hold the second round's values.
            let k = if i < 80 { 320 + i } else { 160 + i };
            let (a, b) = (x0[k].to_f32(), x1[k].to_f32());
            assert_eq!(t[i].to_bits(), a.to_bits(), "src0 as float at {i}");
            assert_eq!(t[n + i].to_bits(), b.to_bits(), "src1 as float at {i}");
            assert_eq!(t[2 * n + i].to_bits(), r_reglu_f(a, b).to_bits(), "product at {i}");
        }
    }

    #[test]
    fn errors() {
        for soc in [Soc::Ascend910, Soc::Ascend310B] {
            on(soc, || {
                let s = setup::<f16>(64, 1536);
                let name = soc.to_string();
                expect_panic(
                    || reglu::<f16, false>(&s.dst, &s.src0, &s.src1, &s.tmp, 64),
                    &["ReGlu", "no implementation on", &name],
                );
                expect_panic(
                    || reglu_stack::<f16, false>(&s.dst, &s.src0, &s.src1, 64),
                    &["ReGlu", "no implementation on", &name],
                );
            });
        }
        on(Soc::Ascend310P, || {
            let s = setup::<bf16>(64, 1536);
            expect_panic(
                || reglu::<bf16, false>(&s.dst, &s.src0, &s.src1, &s.tmp, 64),
                &["ReGlu", "bfloat16_t is not supported on Ascend310P"],
            );
        });
        let s = setup::<f16>(64, 1536);
        expect_panic(
            || reglu::<f16, false>(&s.dst, &s.src0, &s.src1, &s.tmp, 65),
            &["ReGlu", "calCount = 65"],
        );
        expect_panic(
            || reglu::<f16, false>(&s.dst, &s.src0, &s.src1.view_len(0, 60), &s.tmp, 61),
            &["ReGlu", "calCount = 61 exceeds srcTensor1's 60"],
        );
        expect_panic(
            || reglu::<f16, false>(&s.dst, &s.src0, &s.src1, &s.tmp.view_len(0, 1500), 64),
            &["ReGlu", "sharedTmpBuffer has 1500 bytes", "GetReGluMaxMinTmpSize"],
        );
        expect_panic(|| reglu::<f16, false>(&s.dst, &s.dst, &s.src1, &s.tmp, 64), &["ReGlu", "overlap src0"]);
        expect_panic(
            || reglu::<f16, false>(&s.dst, &s.src0, &s.src1, &s.u.t::<u8>(2 * s.bytes, 1536), 64),
            &["ReGlu", "sharedTmpBuffer UB bytes", "overlap src1"],
        );
        drop(s);
        let f = setup::<f32>(64, 256);
        expect_panic(
            || reglu::<f32, false>(&f.dst, &f.src0, &f.src1, &f.tmp.view_len(0, 128), 64),
            &["ReGlu", "less than the 256 bytes"],
        );
        expect_panic(
            || reglu::<f32, false>(&f.dst, &f.src0, &f.src1, &f.tmp, 0),
            &["SetVectorMask", "mask = 0"],
        );
    }

    #[test]
    fn tiling() {
        assert_eq!(get_reglu_max_min_tmp_size(1024, 2, false), (12288, 1536));
        assert_eq!(get_reglu_max_min_tmp_size(16, 2, false), (1536, 1536));
        assert_eq!(get_reglu_max_min_tmp_size(1024, 4, false), (256, 256));
        expect_panic(
            || {
                let _ = get_reglu_max_min_tmp_size(16, 2, true);
            },
            &["GetReGluMaxMinTmpSize", "isReuseSource"],
        );
        expect_panic(
            || {
                let _ = get_reglu_max_min_tmp_size(16, 8, false);
            },
            &["GetReGluMaxMinTmpSize", "typeSize = 8"],
        );
    }
}

// ---- GeGLU -------------------------------------------------------------------------------------

mod geglu_tests {
    use super::*;

    fn reference<T: Lane>(x0: &[T], x1: &[T]) -> Vec<T> {
        x0.iter().zip(x1).map(|(&a, &b)| T::of(r_geglu_f(a.f(), b.f()))).collect()
    }

    fn run<T: Lane + GeGluElement>(seed: u64, tmps: &[usize]) {
        let mut rng = Rng(seed);
        for soc in CHIPS {
            on(soc, || {
                for &tmp in tmps {
                    for count in COUNTS {
                        let cap = count + 9;
                        let s = setup::<T>(cap, tmp);
                        let (x0, x1) = (
                            rand_vec::<T>(&mut rng, cap, -30.0, 30.0),
                            rand_vec::<T>(&mut rng, cap, -6.0, 6.0),
                        );
                        s.src0.copy_from_slice(&x0);
                        s.src1.copy_from_slice(&x1);
                        geglu::<T, false>(&s.dst, &s.src0, &s.src1, &s.tmp, count);
                        let ctx = format!("GeGLU {soc} {} count {count} tmp {tmp}", T::DTYPE);
                        check_out(&s.dst, &reference(&x0[..count], &x1[..count]), &ctx);
                    }
                }
                let count = 1111;
                let s = setup::<T>(count, 0);
                let (x0, x1) =
                    (rand_vec::<T>(&mut rng, count, -30.0, 30.0), rand_vec::<T>(&mut rng, count, -6.0, 6.0));
                s.src0.copy_from_slice(&x0);
                s.src1.copy_from_slice(&x1);
                geglu_stack::<T, false>(&s.dst, &s.src0, &s.src1, count);
                check_out(&s.dst, &reference(&x0, &x1), &format!("GeGLU stack {soc}"));
            });
        }
    }

    #[test]
    fn matches_the_reference_f16() {
        // Rounds of 1024 / 8 = 128, 1100 / 8 = 137 → 128, 8000 / 8 = 1000 → 992.
        run::<f16>(10, &[1024, 1100, 8000]);
    }

    #[test]
    fn matches_the_reference_f32() {
        run::<f32>(11, &[0, 512]);
    }

    #[test]
    fn half_scratch_layout_of_the_last_round() {
        // tmp 1024 bytes: rounds of 128; count 300 = 2 × 128 + 44, the tail's n = 48.
        let count = 300;
        let s = setup::<f16>(count, 1024);
        let mut rng = Rng(12);
        let (x0, x1) =
            (rand_vec::<f16>(&mut rng, count, -5.0, 5.0), rand_vec::<f16>(&mut rng, count, -5.0, 5.0));
        s.src0.copy_from_slice(&x0);
        s.src1.copy_from_slice(&x1);
        geglu::<f16, false>(&s.dst, &s.src0, &s.src1, &s.tmp, count);
        let t = s.tmp.reinterpret_cast::<f32>().to_vec();
        let n = 48;
        for i in 0..44 {
            let (a, b) = (x0[256 + i].to_f32(), x1[256 + i].to_f32());
            assert_eq!(t[i].to_bits(), a.to_bits(), "src0 as float at {i}");
            assert_eq!(t[n + i].to_bits(), r_geglu_f(a, b).to_bits(), "product at {i}");
        }
    }

    #[test]
    fn errors() {
        for soc in [Soc::Ascend910, Soc::Ascend310B] {
            on(soc, || {
                let s = setup::<f32>(64, 0);
                let name = soc.to_string();
                expect_panic(
                    || geglu::<f32, false>(&s.dst, &s.src0, &s.src1, &s.tmp, 64),
                    &["GeGLU", "not supported on", &name],
                );
                expect_panic(|| geglu_stack::<f32, false>(&s.dst, &s.src0, &s.src1, 64), &["GeGLU", &name]);
            });
        }
        let s = setup::<f16>(64, 1024);
        expect_panic(
            || geglu::<f16, false>(&s.dst, &s.src0, &s.src1, &s.tmp, 65),
            &["GeGLU", "calCount = 65"],
        );
        expect_panic(
            || geglu::<f16, false>(&s.dst, &s.src0, &s.src1, &s.tmp.view_len(0, 1023), 64),
            &["GeGLU", "sharedTmpBuffer has 1023 bytes", "1024", "GetGeGLUMaxMinTmpSize"],
        );
        expect_panic(
            || geglu::<f16, false>(&s.dst, &s.src0.view_len(0, 48), &s.src1, &s.tmp, 16),
            &["GeGLU", "srcTensor0 has 48 elements and srcTensor1 64"],
        );
        expect_panic(|| geglu::<f16, false>(&s.dst, &s.src0, &s.dst, &s.tmp, 64), &["GeGLU", "overlap src1"]);
        expect_panic(
            || geglu::<f16, false>(&s.dst, &s.src0, &s.src1, &s.u.t::<u8>(0, 1024), 8),
            &["GeGLU", "sharedTmpBuffer UB bytes [0x0, 0x400) overlap src0"],
        );
        // half with count 0: the vendor's loop does not run.
        geglu::<f16, false>(&s.dst, &s.src0, &s.src1, &s.tmp, 0);
        drop(s);
        let f = setup::<f32>(16, 0);
        expect_panic(
            || geglu::<f32, false>(&f.dst, &f.src0, &f.src1, &f.tmp, 0),
            &["SetVectorMask", "mask = 0"],
        );
    }

    #[test]
    fn tiling() {
        assert_eq!(get_geglu_max_min_tmp_size(1024, 2, false), (8192, 1024));
        assert_eq!(get_geglu_max_min_tmp_size(4, 2, false), (1024, 1024));
        assert_eq!(get_geglu_max_min_tmp_size(1024, 4, true), (0, 0));
        assert_eq!(get_geglu_tmp_buffer_factor_size(2), (4, 0));
        expect_panic(
            || {
                let _ = get_geglu_max_min_tmp_size(0, 4, false);
            },
            &["GetGeGLUMaxMinTmpSize"],
        );
        expect_panic(
            || {
                let _ = get_geglu_tmp_buffer_factor_size(3);
            },
            &["GetGeGLUTmpBufferFactorSize", "typeSize = 3"],
        );
    }
}
