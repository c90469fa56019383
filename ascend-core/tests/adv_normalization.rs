//! The advanced API's normalization (`adv/normalization.rs`): `RmsNorm` against a scalar
//! reference that takes the vendor's steps with each instruction's rounding — `half` widened
//! to `float` exactly; `x * x` in `f32`; the row sum by `RepeatReduceSum`'s binary tree over
//! 64 lanes (disabled lanes `+0`), repeated over the partial sums while more than one
//! remains, or for the basic block the row's 64-element chunks added in order into the first,
//! then the tree; `* reciprocalOfHLength` and `+ epsilon` in `f32`; `Ln` and `Exp` in `f64`
//! rounded once to `f32` around `* -0.5`; `x * rstd` and `* gamma` in `f32`; the narrowing
//! to `half` to nearest-even — for both types on both chips, both forms, both
//! `IS_BASIC_BLOCK`s, shapes that take every path (H below, at and above 64, with a tail
//! chunk, padded rows, many rows with several rounds and a tail round, the 255-row cap), bit
//! for bit, with the reduced slots of the scratch and the mask state afterwards. Then the
//! host tiling's numbers and every error.

use ascend_core::prelude::*;
use ascend_core::sanitizer::LaunchSanitizer;

use crate::common::util;
use util::{assert_bits_ctx, expect_panic, on, ub, Rng};

const CHIPS: [Soc; 2] = [Soc::Ascend910B, Soc::Ascend310P];

/// The element types, with the shared `f32` round trip ([`util::Fp`]).
trait Fp: util::Fp + RmsNormElement {}
impl<T: util::Fp + RmsNormElement> Fp for T {}

// ---- the reference -------------------------------------------------------------------------

/// `RepeatReduceSum`'s binary tree over one repeat of up to 64 lanes, the rest `+0`.
fn tree64(v: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 64];
    lanes[..v.len()].copy_from_slice(v);
    let mut n = 64;
    while n > 1 {
        n /= 2;
        for k in 0..n {
            lanes[k] = lanes[2 * k] + lanes[2 * k + 1];
        }
    }
    lanes[0]
}

/// A row's `1 / sqrt(mean(x²) + epsilon)` as the vendor computes it.
fn rstd(xf: &[f32], bb: bool, t: &RmsNormTiling, eps: f32) -> f32 {
    let (h, oh) = (t.h_length as usize, t.original_h_length as usize);
    let sq: Vec<f32> = xf.iter().map(|&v| v * v).collect();
    let sum = if bb {
        let mut acc = sq[..64].to_vec();
        for i in 1..h / 64 {
            for (l, a) in acc.iter_mut().enumerate() {
                *a += sq[i * 64 + l];
            }
        }
        tree64(&acc)
    } else {
        let mut v = sq[..oh].to_vec();
        while v.len() > 1 {
            v = v.chunks(64).map(tree64).collect();
        }
        v[0]
    };
    let a = sum * t.reciprocal_of_h_length + eps;
    let m = (f64::from(a).ln() as f32) * -0.5;
    f64::from(m).exp() as f32
}

/// The whole output and each row's `rstd`.
fn reference<T: Fp>(x: &[T], g: &[T], bb: bool, t: &RmsNormTiling, eps: f32) -> (Vec<T>, Vec<f32>) {
    let h = t.h_length as usize;
    let (mut out, mut rs) = (Vec::new(), Vec::new());
    for row in x.chunks(h) {
        let xf: Vec<f32> = row.iter().map(|v| v.to32()).collect();
        let r = rstd(&xf, bb, t, eps);
        rs.push(r);
        out.extend(xf.iter().zip(g).map(|(&v, gv)| T::from32(v * r * gv.to32())));
    }
    (out, rs)
}

// ---- the sweep -----------------------------------------------------------------------------

fn rand_vals<T: Fp>(rng: &mut Rng, n: usize, lo: f32, hi: f32) -> Vec<T> {
    (0..n).map(|_| T::from32(lo + (hi - lo) * (rng.below(1 << 24) as f32 / (1 << 24) as f32))).collect()
}

/// The scratch of a case: the host's minimum, maximum, their middle, or the stack form.
#[derive(Clone, Copy, Debug)]
enum Tmp {
    Min,
    Mid,
    Max,
    Stack,
}

/// One call of `rms_norm::<T, BB>` on `[b, s, h]` holding rows of `oh` on `soc`, compared
/// bit for bit with the reference.
fn run_case<T: Fp, const BB: bool>(
    soc: Soc,
    (b, s, h, oh): (usize, usize, usize, usize),
    tmp: Tmp,
    seed: u64,
) -> bool {
    on(soc, || {
        let n = b * s * h;
        let bytes = (n * T::SIZE).div_ceil(32) * 32;
        let gbytes = (h * T::SIZE).div_ceil(32) * 32;
        let (min, max) = get_rms_norm_max_min_tmp_size(&[b, s, h], T::SIZE, BB);
        let tmp_bytes = match tmp {
            Tmp::Min => min,
            Tmp::Max => max,
            Tmp::Mid => (min + max) / 2 / 32 * 32,
            Tmp::Stack => 0,
        };
        let stack_need = if let Tmp::Stack = tmp { min } else { 0 };
        if 2 * bytes + gbytes + tmp_bytes + stack_need + 64 > soc.ub_size() {
            return false; // does not fit this chip's Unified Buffer
        }
        let u = ub(2 * bytes + gbytes + tmp_bytes);
        let (src, dst, gamma) = (u.t::<T>(0, n), u.t::<T>(bytes, n), u.t::<T>(2 * bytes, h));
        let scratch = u.t::<u8>(2 * bytes + gbytes, tmp_bytes);
        let buffer = if let Tmp::Stack = tmp { pop_stack_buffer::<u8>().get_size() } else { tmp_bytes };
        let tiling = get_rms_norm_tiling_info(&[b, s, h], &[b, s, oh], buffer, T::SIZE, BB);
        let mut rng = Rng(seed);
        let x: Vec<T> = rand_vals(&mut rng, n, -2.0, 2.0);
        let g: Vec<T> = rand_vals(&mut rng, h, -1.5, 1.5);
        let eps = T::from32(1e-3);
        src.copy_from_slice(&x);
        gamma.copy_from_slice(&g);
        if let Tmp::Stack = tmp {
            rms_norm_stack::<T, BB>(&dst, &src, &gamma, eps, &tiling);
        } else {
            rms_norm::<T, BB>(&dst, &src, &gamma, &scratch, eps, &tiling);
        }
        let ctx = format!("{} BB {BB} on {soc}, [{b}, {s}, {h}] of {oh}, {tmp:?}, {tiling:?}", T::DTYPE);
        let (want, rs) = reference(&x, &g, BB, &tiling, eps.to32());
        assert_bits_ctx(&dst.to_vec(), &want, &ctx);
        assert_bits_ctx(&src.to_vec(), &x, format!("src written; {ctx}"));
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
        assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{ctx}");
        // The reduced slots at the scratch's start: the last round's rstd.
        let last =
            if tiling.tail_bs_length != 0 { tiling.tail_bs_length } else { tiling.main_bs_length } as usize;
        let reduced =
            if let Tmp::Stack = tmp { pop_stack_buffer::<f32>() } else { scratch.reinterpret_cast::<f32>() };
        let got: Vec<f32> = (0..last).map(|i| reduced.get_value(i)).collect();
        assert_bits_ctx(&got, &rs[rs.len() - last..], format!("reduced slots; {ctx}"));
        true
    })
}

/// Shapes `(b, s, h, original h)` of one type: every path of the general form.
fn general_shapes(half: bool) -> Vec<(usize, usize, usize, usize)> {
    let a = if half { 16 } else { 8 };
    vec![
        (1, 1, a, a),
        (2, 3, a, a - 3),
        (3, 7, 2 * a, 2 * a - 1),
        (2, 5, 64, 64),
        (1, 9, 64, 50),
        (2, 3, 64 + a, 64 + a),
        (3, 11, 128 + a, 120 + a),
        (1, 2, 192, 192),
        (1, 3, 1024, 1000),
        (1, 2, 4096 + a, 4100),
        (2, 150, a, a),
    ]
}

/// Shapes of the basic block (H a multiple of 64 below 2048, B * S a multiple of 8).
fn basic_shapes() -> Vec<(usize, usize, usize, usize)> {
    vec![
        (1, 8, 64, 64),
        (2, 8, 128, 128),
        (3, 8, 64, 64),
        (1, 16, 192, 190),
        (4, 10, 256, 256),
        (1, 8, 1984, 1984),
    ]
}

fn sweep<T: Fp>(seed: u64) {
    let half = T::DTYPE == DType::F16;
    let (mut k, mut ran) = (seed, 0);
    for soc in CHIPS {
        for shape in general_shapes(half) {
            for tmp in [Tmp::Min, Tmp::Mid, Tmp::Max, Tmp::Stack] {
                let (b, s, h, _) = shape;
                if matches!(tmp, Tmp::Max) && 2 * b * s * h * T::SIZE > 64 * 1024 {
                    continue;
                }
                k += 1;
                ran += usize::from(run_case::<T, false>(soc, shape, tmp, k));
            }
        }
        for shape in basic_shapes() {
            for tmp in [Tmp::Min, Tmp::Mid, Tmp::Max, Tmp::Stack] {
                k += 1;
                ran += usize::from(run_case::<T, true>(soc, shape, tmp, k));
            }
        }
    }
    println!("{} cases: {ran}", T::DTYPE);
    assert!(ran >= 70, "only {ran} cases fit");
}

#[test]
fn rms_norm_float_matches_reference() {
    sweep::<f32>(100);
}

#[test]
fn rms_norm_half_matches_reference() {
    sweep::<f16>(200);
}

#[test]
fn rms_norm_in_place() {
    // dst = src is allowed (the page forbids only dst with gamma): each round reads its rows
    // before writing them.
    for soc in CHIPS {
        on(soc, || {
            let (b, s, h) = (2, 10, 72);
            let n = b * s * h;
            let u = ub(n * 4 + h * 4 + 1024);
            let (x, g, t) = (u.t::<f32>(0, n), u.t::<f32>(n * 4, h), u.t::<u8>(n * 4 + h * 4, 1024));
            let tiling = get_rms_norm_tiling_info(&[b, s, h], &[b, s, h], 1024, 4, false);
            assert!(tiling.loop_round > 1 && tiling.tail_bs_length > 0);
            let mut rng = Rng(7);
            let xv: Vec<f32> = rand_vals(&mut rng, n, -3.0, 3.0);
            let gv: Vec<f32> = rand_vals(&mut rng, h, -1.0, 1.0);
            x.copy_from_slice(&xv);
            g.copy_from_slice(&gv);
            rms_norm::<f32, false>(&x, &x, &g, &t, 1e-6, &tiling);
            assert_bits_ctx(
                &x.to_vec(),
                &reference(&xv, &gv, false, &tiling, 1e-6).0,
                format!("in place on {soc}"),
            );
        });
    }
}

// ---- host tiling ---------------------------------------------------------------------------

#[test]
fn host_tmp_sizes() {
    // float: max 4 * (B*S*H + align(B*S, 8)), min 4 * (H + 8).
    assert_eq!(get_rms_norm_max_min_tmp_size(&[4, 8, 64], 4, false), (4 * (2048 + 32), 4 * 72));
    assert_eq!(get_rms_norm_max_min_tmp_size(&[1, 3, 24], 4, false), (4 * (72 + 8), 4 * 32));
    // half: the float source doubles it; B*S aligned to 16.
    assert_eq!(get_rms_norm_max_min_tmp_size(&[1, 3, 32], 2, false), (4 * (192 + 16), 4 * 72));
    assert_eq!(get_rms_norm_max_min_tmp_size(&[2, 8, 128], 2, true), (4 * (4096 + 16), 4 * 264));
}

#[test]
fn host_tiling_numbers() {
    // 2 KiB of float scratch, H = 64: 7 rows (7 * 64 + 8 <= 512 < 8 * 64 + 8).
    let t = get_rms_norm_tiling_info(&[2, 5, 64], &[2, 5, 60], 2048, 4, false);
    let want = RmsNormTiling {
        b_length: 2,
        s_length: 5,
        h_length: 64,
        original_h_length: 60,
        reciprocal_of_h_length: (1.0f64 / 60.0) as f32,
        main_bsh_length: 448,
        main_bs_length: 7,
        main_bs_length_align: 8,
        loop_round: 1,
        input_tail_pos: 448,
        tail_bsh_length: 192,
        tail_bs_length: 3,
    };
    assert_eq!(t, want);
    // Half doubles the rows' floats: 2048 / 4 = 512 >= r * 128 + align(r, 8): 3 rows.
    let t = get_rms_norm_tiling_info(&[2, 5, 64], &[2, 5, 64], 2048, 2, false);
    assert_eq!((t.main_bs_length, t.loop_round, t.tail_bs_length, t.input_tail_pos), (3, 3, 1, 576));
    // All rows fit: one round, no tail.
    let t = get_rms_norm_tiling_info(&[1, 4, 16], &[1, 4, 16], 1 << 16, 4, false);
    assert_eq!((t.main_bs_length, t.main_bsh_length, t.loop_round, t.tail_bsh_length), (4, 64, 1, 0));
    // The 255-row cap.
    let t = get_rms_norm_tiling_info(&[1, 300, 8], &[1, 300, 8], 1 << 16, 4, false);
    assert_eq!((t.main_bs_length, t.loop_round, t.tail_bs_length), (255, 1, 45));
    // The basic block: a multiple of 8 rows from 8 on, uncapped; below 8 as is.
    let t = get_rms_norm_tiling_info(&[1, 300 * 8, 64], &[1, 2400, 64], 1 << 20, 4, true);
    assert_eq!(t.main_bs_length % 8, 0);
    assert!(t.main_bs_length > 255);
    let t = get_rms_norm_tiling_info(&[2, 8, 64], &[2, 8, 64], 4 * (13 * 64 + 16), 4, true);
    assert_eq!((t.main_bs_length, t.main_bs_length_align), (8, 8));
    let t = get_rms_norm_tiling_info(&[2, 8, 64], &[2, 8, 64], 4 * (5 * 64 + 8), 4, true);
    assert_eq!((t.main_bs_length, t.loop_round, t.tail_bs_length), (5, 3, 1));
    // The reciprocal: a double division, narrowed.
    for oh in [3usize, 7, 60, 1000, 4099] {
        let t = get_rms_norm_tiling_info(&[1, 1, 4104], &[1, 1, oh], 1 << 16, 4, false);
        assert_eq!(t.reciprocal_of_h_length, (1.0 / oh as f64) as f32);
    }
}

#[test]
fn host_errors() {
    let max_min = "GetRmsNormMaxMinTmpSize";
    expect_panic(
        || {
            let _ = get_rms_norm_max_min_tmp_size(&[8, 64], 4, false);
        },
        &[max_min, "has 2 dimensions"],
    );
    expect_panic(
        || {
            let _ = get_rms_norm_max_min_tmp_size(&[0, 8, 64], 4, false);
        },
        &[max_min, "no elements"],
    );
    expect_panic(
        || {
            let _ = get_rms_norm_max_min_tmp_size(&[1, 8, 64], 8, false);
        },
        &[max_min, "typeSize = 8"],
    );
    expect_panic(
        || {
            let _ = get_rms_norm_max_min_tmp_size(&[1, 8, 72], 4, true);
        },
        &[max_min, "isBasicBlock with H = 72", "multiple of 64"],
    );
    expect_panic(
        || {
            let _ = get_rms_norm_max_min_tmp_size(&[1, 8, 2048], 4, true);
        },
        &[max_min, "H = 2048", "less than 2048"],
    );
    expect_panic(
        || {
            let _ = get_rms_norm_max_min_tmp_size(&[1, 6, 64], 4, true);
        },
        &[max_min, "B * S = 6", "multiple of 8"],
    );
    let info = "GetRmsNormTilingInfo";
    let t = |s: &[usize], o: &[usize], bytes: usize, ts: usize, bb: bool| {
        let _ = get_rms_norm_tiling_info(s, o, bytes, ts, bb);
    };
    expect_panic(|| t(&[1, 8], &[1, 1, 8], 4096, 4, false), &[info, "srcShape = [1, 8] has 2 dimensions"]);
    expect_panic(|| t(&[1, 1, 8], &[1, 8], 4096, 4, false), &[info, "originSrcShape = [1, 8]"]);
    expect_panic(|| t(&[1, 2, 8], &[1, 1, 8], 4096, 4, false), &[info, "differ in B or S"]);
    expect_panic(
        || t(&[1, 1, 8], &[1, 1, 9], 4096, 4, false),
        &[info, "H = 9 must be between 1 and", "H = 8"],
    );
    expect_panic(|| t(&[1, 1, 8], &[1, 1, 0], 4096, 4, false), &[info, "H = 0 must be"]);
    expect_panic(
        || t(&[1, 1, 8], &[1, 1, 8], 4096, 2, false),
        &[info, "H = 8 of 2-byte elements", "32-byte"],
    );
    expect_panic(
        || t(&[1, 1, 8], &[1, 1, 8], 63, 4, false),
        &[info, "stackBufferByteSize = 63", "minimum 64"],
    );
    expect_panic(|| t(&[1, 3, 64], &[1, 3, 64], 1 << 16, 4, true), &[info, "B * S = 3"]);
    expect_panic(|| t(&[1, 1, 8], &[1, 1, 8], 4096, 1, false), &[info, "typeSize = 1"]);
}

// ---- kernel errors -------------------------------------------------------------------------

/// `[1, 2, 64]` float tensors and a scratch of the host's maximum.
fn with_case(soc: Soc, f: impl FnOnce(&Ub4, &RmsNormTiling)) {
    on(soc, || {
        let u = ub(4096);
        let tiles = Ub4 {
            src: u.t::<f32>(0, 128),
            dst: u.t::<f32>(512, 128),
            gamma: u.t::<f32>(1024, 64),
            tmp: u.t::<u8>(2048, 2048),
        };
        let tiling = get_rms_norm_tiling_info(&[1, 2, 64], &[1, 2, 64], 2048, 4, false);
        f(&tiles, &tiling);
    });
}

struct Ub4 {
    src: LocalTensor<f32>,
    dst: LocalTensor<f32>,
    gamma: LocalTensor<f32>,
    tmp: LocalTensor<u8>,
}

#[test]
fn unsupported_chips() {
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        with_case(soc, |u, t| {
            let msg = format!("no implementation on {soc}");
            expect_panic(
                || rms_norm::<f32, false>(&u.dst, &u.src, &u.gamma, &u.tmp, 0.0, t),
                &["RmsNorm", &msg, "Ascend910B, Ascend310P"],
            );
        });
    }
}

#[test]
fn kernel_errors() {
    with_case(Soc::Ascend910B, |u, t| {
        let call =
            |d: &LocalTensor<f32>, s: &LocalTensor<f32>, g: &LocalTensor<f32>, tmp: &LocalTensor<u8>, t| {
                rms_norm::<f32, false>(d, s, g, tmp, 1e-5, t)
            };
        // Positions.
        let a1 = LocalTensor::<f32>::new(TPosition::A1, 0, 64);
        expect_panic(|| call(&u.dst, &u.src, &a1, &u.tmp, t), &["RmsNorm", "gammaLocal is at position A1"]);
        let a1u = LocalTensor::<u8>::new(TPosition::A1, 0, 2048);
        expect_panic(|| call(&u.dst, &u.src, &u.gamma, &a1u, t), &["sharedTmpBuffer is at position A1"]);
        let a1s = LocalTensor::<f32>::new(TPosition::A1, 0, 128);
        expect_panic(|| call(&u.dst, &a1s, &u.gamma, &u.tmp, t), &["src is at position A1"]);
        // An inconsistent tiling.
        let bad = RmsNormTiling { tail_bs_length: 1, ..*t };
        expect_panic(
            || call(&u.dst, &u.src, &u.gamma, &u.tmp, &bad),
            &["RmsNorm", "the tiling is inconsistent"],
        );
        let bad = RmsNormTiling { original_h_length: 0, ..*t };
        expect_panic(|| call(&u.dst, &u.src, &u.gamma, &u.tmp, &bad), &["the tiling is inconsistent"]);
        // H not 32-byte aligned (a consistent hand-made tiling).
        let h4 = RmsNormTiling {
            b_length: 1,
            s_length: 1,
            h_length: 4,
            original_h_length: 4,
            reciprocal_of_h_length: 0.25,
            main_bsh_length: 4,
            main_bs_length: 1,
            main_bs_length_align: 8,
            loop_round: 1,
            input_tail_pos: 4,
            tail_bsh_length: 0,
            tail_bs_length: 0,
        };
        expect_panic(
            || call(&u.dst, &u.src, &u.gamma, &u.tmp, &h4),
            &["RmsNorm", "tiling.hLength = 4 float elements is not 32-byte aligned", "multiple of 8"],
        );
        // The basic block's shape.
        expect_panic(
            || rms_norm::<f32, true>(&u.dst, &u.src, &u.gamma, &u.tmp, 0.0, t),
            &["RmsNorm", "isBasicBlock with B * S = 2"],
        );
        // Sizes.
        let small = u.src.view_len(0, 127);
        expect_panic(
            || call(&u.dst, &small, &u.gamma, &u.tmp, t),
            &["srcLocal has 127 float elements", "= 128"],
        );
        let small = u.dst.view_len(0, 120);
        expect_panic(|| call(&small, &u.src, &u.gamma, &u.tmp, t), &["dstLocal has 120 float elements"]);
        let small = u.gamma.view_len(0, 56);
        expect_panic(
            || call(&u.dst, &u.src, &small, &u.tmp, t),
            &["gammaLocal has 56 float elements", "H = 64"],
        );
        let small = u.tmp.view_len(0, 540);
        let need = 4 * (t.main_bs_length_align + t.main_bsh_length);
        expect_panic(
            || call(&u.dst, &u.src, &u.gamma, &small, t),
            &["sharedTmpBuffer has 540 bytes", &format!("need {need}")],
        );
        // Overlaps.
        let g_in_dst = u.dst.view_len(64, 64);
        expect_panic(
            || call(&u.dst, &u.src, &g_in_dst, &u.tmp, t),
            &["RmsNorm", "dstLocal UB bytes", "overlap gammaLocal"],
        );
        let tmp_on_src = u.src.reinterpret_cast::<u8>();
        let big = get_rms_norm_tiling_info(&[1, 2, 64], &[1, 2, 64], 512, 4, false);
        expect_panic(
            || call(&u.dst, &u.src, &u.gamma, &tmp_on_src, &big),
            &["sharedTmpBuffer UB bytes", "overlap srcLocal"],
        );
    });
    // The stack form: the stack too small for the tiling's rounds.
    on(Soc::Ascend910B, || {
        let ub_bytes = get_soc().ub_size() - 64 - 256;
        let u = ub(ub_bytes);
        let (s, d, g) = (u.t::<f32>(0, 128), u.t::<f32>(512, 128), u.t::<f32>(1024, 64));
        let t = get_rms_norm_tiling_info(&[1, 2, 64], &[1, 2, 64], 2048, 4, false);
        expect_panic(
            || rms_norm_stack::<f32, false>(&d, &s, &g, 0.0, &t),
            &["RmsNorm", "sharedTmpBuffer has 256 bytes"],
        );
    });
}

// ---- the sanitizer -------------------------------------------------------------------------

/// `rms_norm::<T, BB>` on `[b, s, h]` with `tmp_bytes` of scratch under the sanitizer, with or
/// without the compiler's automatic synchronisation; compared with the reference.
fn sanitized<T: Fp, const BB: bool>(
    soc: Soc,
    (b, s, h): (usize, usize, usize),
    tmp_bytes: usize,
    auto_sync: bool,
) {
    LaunchSanitizer::with_auto_sync(auto_sync).run_core(|| {
        let n = b * s * h;
        let bytes = (n * T::SIZE).div_ceil(32) * 32;
        let u = ub(2 * bytes + 8192 + tmp_bytes);
        let (src, dst, gamma) = (u.t::<T>(0, n), u.t::<T>(bytes, n), u.t::<T>(2 * bytes, h));
        let scratch = u.t::<u8>(2 * bytes + 8192, tmp_bytes);
        let tiling = get_rms_norm_tiling_info(&[b, s, h], &[b, s, h], tmp_bytes, T::SIZE, BB);
        let mut rng = Rng(11);
        let x: Vec<T> = rand_vals(&mut rng, n, -2.0, 2.0);
        let g: Vec<T> = rand_vals(&mut rng, h, -1.0, 1.0);
        src.copy_from_slice(&x);
        gamma.copy_from_slice(&g);
        let eps = T::from32(1e-4);
        rms_norm::<T, BB>(&dst, &src, &gamma, &scratch, eps, &tiling);
        let ctx = format!("{} BB {BB} on {soc} under the sanitizer, auto sync {auto_sync}", T::DTYPE);
        assert_bits_ctx(&dst.to_vec(), &reference(&x, &g, BB, &tiling, eps.to32()).0, ctx);
    })
}

/// With the compiler's automatic synchronisation (the vendor's builds), `RmsNorm` is clean on
/// every path: rounds with a tail, rows reduced in several passes, the basic block's
/// broadcast by `Brcb` or `TransDataTo5HD`, both types, both chips.
#[test]
fn sanitizer_with_auto_sync() {
    for soc in CHIPS {
        on(soc, || sanitized::<f32, false>(soc, (3, 11, 56), 4 * (8 + 4 * 56), true));
        on(soc, || sanitized::<f32, false>(soc, (3, 11, 136), 4 * (8 + 4 * 136), true));
        on(soc, || sanitized::<f16, false>(soc, (2, 5, 48), 4 * (8 + 2 * 3 * 48), true));
        on(soc, || sanitized::<f32, true>(soc, (4, 8, 64), 4 * (16 + 16 * 64), true));
        on(soc, || sanitized::<f16, true>(soc, (2, 8, 128), 4 * (16 + 2 * 16 * 128), true));
    }
}

/// Without it, one round of the general path needs nothing more (rows longer than 64 are
/// reduced by an in-place `RepeatReduceSum`, one instruction reading before it writes): the
/// vendor's `PipeBarrier<PIPE_V>` calls and its `V_S` flag before the scalar reads of the
/// reduced rows are where they must be; so does the basic block of 64-element rows, in
/// several rounds. Two things rely on the compiler's synchronisation: with several rounds of
/// the general path, the next round's `RepeatReduceSum` writes the reduced rows the scalar
/// unit read (`GetValue`) with no `S_V` event; and the basic block's broadcast over longer
/// rows issues its `Adds` with no `PipeBarrier<PIPE_V>` between them, the first rewriting each
/// row's first chunk (with the values of its block 0) that the next ones read.
#[test]
fn sanitizer_without_auto_sync() {
    for soc in CHIPS {
        on(soc, || sanitized::<f32, false>(soc, (3, 11, 56), 4 * (40 + 33 * 56), false));
        on(soc, || sanitized::<f32, false>(soc, (3, 11, 136), 4 * (40 + 33 * 136), false));
        on(soc, || sanitized::<f16, false>(soc, (2, 5, 48), 4 * (16 + 2 * 10 * 48), false));
        on(soc, || sanitized::<f32, true>(soc, (4, 8, 64), 4 * (16 + 16 * 64), false));
        on(soc, || {
            expect_panic(
                || sanitized::<f16, true>(soc, (2, 8, 128), 4 * (16 + 2 * 16 * 128), false),
                &["Adds: sanitizer: read-after-write race", "add PipeBarrier<PIPE_V>()"],
            );
        });
        on(soc, || {
            expect_panic(
                || sanitized::<f32, false>(soc, (3, 11, 56), 4 * (8 + 4 * 56), false),
                &[
                    "RepeatReduceSum: sanitizer: write-after-read race",
                    "LocalTensor::GetValue on pipe S",
                    "S_V",
                ],
            );
        });
    }
}
