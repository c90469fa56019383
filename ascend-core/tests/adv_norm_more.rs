//! The advanced API's `DeepNorm` (`adv/norm_more.rs`) against a scalar reference that takes
//! the vendor's steps with each instruction's rounding — `half` widened exactly; `x * alpha`,
//! `+ gx`, `* (1 / originH)` in `f32`; the row sum as `RepeatReduceSum` passes (each 64
//! lanes summed by the binary tree, disabled lanes `+0`, until one value is left) over the
//! first `originH` elements, or for `isBasicBlock` the row's 64-element chunks added in order
//! into the first and one tree; `x - mean`, its square, `* (1 / originH)`, the same sum;
//! `+ epsilon`, `Sqrt`, `1 / ·`, `* (x - mean)` (`+ 0` after the basic block's broadcast),
//! `* gamma`, `+ beta`; `half` narrowed to nearest-even — for both types on both chips, both
//! forms, `isReuseSrc`, `isBasicBlock` with and without the broadcast (every shape of
//! Ascend310P's `TransDataTo5HD`), tails and multi-round splits, bit for bit, with the mask
//! state and the tiling afterwards. Then the host numbers and every error.

use ascend_core::prelude::*;

use crate::common::util;
use util::{assert_bits_ctx, conv, expect_panic, on, tree, ub, Rng};

const CHIPS: [Soc; 2] = [Soc::Ascend910B, Soc::Ascend310P];

// ---- the reference -------------------------------------------------------------------------

/// `RepeatReduceSum` passes over `v` until one value is left (`v` of one element: no pass,
/// `None`, the vendor's loop does not run).
fn passes(v: &[f32]) -> Option<f32> {
    let mut v = v.to_vec();
    if v.len() <= 1 {
        return None;
    }
    while v.len() > 1 {
        v = v
            .chunks(64)
            .map(|c| {
                let mut lanes = c.to_vec();
                lanes.resize(64, 0.0);
                tree(lanes, false)
            })
            .collect();
    }
    Some(v[0])
}

/// The basic block's sum: the 64-element chunks added in order into the first, one tree.
fn basic_sum(v: &[f32]) -> f32 {
    let mut acc = v[..64].to_vec();
    for c in v[64..].chunks(64) {
        for (a, &x) in acc.iter_mut().zip(c) {
            *a += x;
        }
    }
    tree(acc, false)
}

/// What a case computes with: the shape, the scalars and the paths.
#[derive(Clone, Copy, Debug)]
struct Params {
    oh: usize,
    back: f32,
    alpha: f32,
    eps: f32,
    basic: bool,
}

/// One row: `(y, mean, variance)` in `float`; `better` is the broadcast path (`+ 0` after
/// the multiply).
fn row_ref(x: &[f32], gx: &[f32], g: &[f32], b: &[f32], p: Params, better: bool) -> (Vec<f32>, f32, f32) {
    let x1: Vec<f32> = x.iter().zip(gx).map(|(&x, &gx)| gx + x * p.alpha).collect();
    let sum = |v: &[f32]| if p.basic { basic_sum(v) } else { passes(&v[..p.oh]).expect("originH > 1") };
    let c: Vec<f32> = x1.iter().map(|&v| v * p.back).collect();
    let mean = sum(&c);
    let d: Vec<f32> = x1.iter().map(|&v| v + -mean).collect();
    let sq: Vec<f32> = d.iter().map(|&v| (v * v) * p.back).collect();
    let var = sum(&sq);
    let rstd = 1.0 / (var + p.eps).sqrt();
    let y = d
        .iter()
        .zip(g.iter().zip(b))
        .map(|(&d, (&g, &b))| {
            let mut n = d * rstd;
            if better {
                n += 0.0;
            }
            n * g + b
        })
        .collect();
    (y, mean, var)
}

fn f32s<T: Element>(v: &[T]) -> Vec<f32> {
    v.iter().map(|e| e.to_f64() as f32).collect()
}

/// `n` values in `[lo, hi)`, rows of `h` with all but the first `oh` elements 0.
fn rand_rows<T: Element>(rng: &mut Rng, n: usize, h: usize, oh: usize, lo: f32, hi: f32) -> Vec<T> {
    let v: Vec<f32> = (0..n)
        .map(|i| {
            let v = lo + (hi - lo) * (rng.below(1 << 24) as f32 / (1 << 24) as f32);
            if i % h < oh {
                v
            } else {
                0.0
            }
        })
        .collect();
    conv(&v)
}

#[derive(Clone, Copy, Debug)]
enum Tmp {
    Min,
    Max,
    /// Rows of `k` per round (the views exactly `k * H`).
    Rows(usize),
    Stack,
}

/// One call of `deep_norm::<T, REUSE, BASIC>` compared bit for bit with the reference;
/// `false` when it does not fit the chip's Unified Buffer.
fn run_case<T: DeepNormElement, const REUSE: bool, const BASIC: bool>(
    soc: Soc,
    (b, s, h, oh): (usize, usize, usize, usize),
    tmp: Tmp,
    seed: u64,
) -> bool {
    on(soc, || {
        let (n, rows) = (b * s * h, b * s);
        let al = |k: usize| (k * T::SIZE).div_ceil(32) * 32;
        let shape = [b, s, h];
        let (max, min) = get_deep_norm_max_min_tmp_size(&shape, T::SIZE, REUSE, BASIC);
        let half = T::DTYPE == DType::F16;
        let bufs = if REUSE && !half { 2 } else { 3 };
        let mv = if half { 2 * rows.div_ceil(8) * 8 } else { 0 };
        let tmp_bytes = match tmp {
            Tmp::Min => min,
            Tmp::Max => max,
            Tmp::Rows(k) => (4 * (mv + bufs * k * h)).max(min),
            Tmp::Stack => 0,
        };
        let io = 3 * al(n) + 2 * al(rows) + 2 * al(h);
        let stack_need = if let Tmp::Stack = tmp { min } else { 0 };
        if io + tmp_bytes + stack_need + 64 > soc.ub_size() {
            return false;
        }
        let u = ub(io + tmp_bytes);
        let mut at = 0;
        let mut next = |k: usize| {
            let t = u.t::<T>(at, k);
            at += al(k);
            t
        };
        let (x, gx, y, mean, var, g, bt) =
            (next(n), next(n), next(n), next(rows), next(rows), next(h), next(h));
        let scratch = u.t::<u8>(io, tmp_bytes);
        let buffer = if let Tmp::Stack = tmp { pop_stack_buffer::<u8>().get_size() } else { tmp_bytes };
        let mut tiling = get_deep_norm_tiling_info(&shape, &[b, s, oh], buffer, T::SIZE, REUSE, BASIC);
        let before = tiling;
        let mut rng = Rng(seed);
        let xv: Vec<T> = rand_rows(&mut rng, n, h, oh, -3.0, 5.0);
        let gxv: Vec<T> = rand_rows(&mut rng, n, h, oh, -2.0, 2.0);
        let gv: Vec<T> = rand_rows(&mut rng, h, h, h, -1.5, 1.5);
        let bv: Vec<T> = rand_rows(&mut rng, h, h, h, -1.0, 1.0);
        let (alpha, eps) = (T::from_f64(0.75), T::from_f64(1e-3));
        x.copy_from_slice(&xv);
        gx.copy_from_slice(&gxv);
        g.copy_from_slice(&gv);
        bt.copy_from_slice(&bv);
        if let Tmp::Stack = tmp {
            deep_norm_stack::<T, REUSE, BASIC>(&y, &mean, &var, &x, &gx, &bt, &g, alpha, eps, &mut tiling);
        } else {
            deep_norm::<T, REUSE, BASIC>(
                &y,
                &mean,
                &var,
                &x,
                &gx,
                &bt,
                &g,
                &scratch,
                alpha,
                eps,
                &mut tiling,
            );
        }
        let ctx = format!(
            "{} reuse {REUSE} basic {BASIC} on {soc}, [{b}, {s}, {h}] of {oh}, {tmp:?}, {before:?}",
            T::DTYPE
        );
        let p = Params {
            oh,
            back: before.last_dim_value_back,
            alpha: alpha.to_f64() as f32,
            eps: eps.to_f64() as f32,
            basic: BASIC,
        };
        let (fx, fgx, fg, fb) = (f32s(&xv), f32s(&gxv), f32s(&gv), f32s(&bv));
        let round_rows = before.bs_cur_length as usize;
        let full = before.loop_round as usize * round_rows;
        let one = before.one_tmp_size as usize;
        let (mut wy, mut wm, mut wv) = (Vec::new(), Vec::new(), Vec::new());
        for r in 0..rows {
            let cur = if r < full { round_rows } else { before.mean_var_tail_size as usize };
            let better = BASIC && one % (8 * h) == 0 && cur > h / 64;
            let span = r * h..(r + 1) * h;
            let (yr, m, v) = row_ref(&fx[span.clone()], &fgx[span], &fg, &fb, p, better);
            wy.extend(yr);
            wm.push(m);
            wv.push(v);
        }
        assert_bits_ctx(&y.to_vec(), &conv::<T>(&wy), &ctx);
        assert_bits_ctx(&mean.to_vec(), &conv::<T>(&wm), format!("mean; {ctx}"));
        assert_bits_ctx(&var.to_vec(), &conv::<T>(&wv), format!("variance; {ctx}"));
        if !REUSE || half {
            assert_bits_ctx(&x.to_vec(), &xv, format!("srcLocal written; {ctx}"));
        }
        assert_bits_ctx(&gx.to_vec(), &gxv, format!("gxLocal written; {ctx}"));
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
        assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{ctx}");
        let mut want = before;
        if before.input_tail_size > 0 {
            want.bsh_cur_length = before.input_tail_size;
            want.bs_cur_length = before.mean_var_tail_size;
        }
        assert_eq!(tiling, want, "{ctx}");
        true
    })
}

/// Shapes `(b, s, h, original h)` without the basic block: every sum path.
fn shapes(half: bool) -> Vec<(usize, usize, usize, usize)> {
    let a = if half { 16 } else { 8 };
    vec![
        (1, 1, a, a),
        (2, 3, a, a - 3),
        (3, 7, 2 * a, 2 * a - 1),
        (2, 5, 64, 64),
        (1, 9, 64 + a, 65),
        (3, 5, 128 + a, 120 + a),
        (1, 2, 1024, 1000),
        (1, 2, 2032, 2030),
        (2, 150, a, a),
    ]
}

fn sweep<T: DeepNormElement>(seed: u64) -> usize {
    let (mut k, mut ran) = (seed, 0);
    let half = T::DTYPE == DType::F16;
    for soc in CHIPS {
        for shape in shapes(half) {
            for tmp in [Tmp::Min, Tmp::Rows(2), Tmp::Max, Tmp::Stack] {
                k += 1;
                ran += usize::from(run_case::<T, false, false>(soc, shape, tmp, k));
                if !half {
                    k += 1;
                    ran += usize::from(run_case::<T, true, false>(soc, shape, tmp, k));
                }
            }
        }
        // The basic block: one row per round (no broadcast), 8, 16, 24 and 32 rows per round
        // (Ascend310P's TransDataTo5HD of 8 and 16 values, one and several repeats), rows
        // not above H / 64 (no broadcast), and tails.
        for (shape, tmps) in [
            ((1, 8, 64, 64), vec![Tmp::Min, Tmp::Max, Tmp::Stack]),
            (
                (4, 16, 64, 64),
                vec![Tmp::Min, Tmp::Rows(8), Tmp::Rows(16), Tmp::Rows(24), Tmp::Rows(32), Tmp::Max],
            ),
            ((2, 20, 128, 128), vec![Tmp::Rows(16), Tmp::Rows(24), Tmp::Rows(9)]),
            ((1, 8, 640, 640), vec![Tmp::Rows(8), Tmp::Max]),
            ((3, 8, 192, 192), vec![Tmp::Rows(8), Tmp::Rows(16)]),
        ] {
            for tmp in tmps {
                k += 1;
                ran += usize::from(run_case::<T, false, true>(soc, shape, tmp, k));
                if !half {
                    k += 1;
                    ran += usize::from(run_case::<T, true, true>(soc, shape, tmp, k));
                }
            }
        }
    }
    println!("{} cases: {ran}", T::DTYPE);
    ran
}

#[test]
fn deep_norm_float_matches_reference() {
    assert!(sweep::<f32>(100) >= 140);
}

#[test]
fn deep_norm_half_matches_reference() {
    assert!(sweep::<f16>(9000) >= 70);
}

// ---- host ----------------------------------------------------------------------------------

#[test]
fn host_tmp_sizes_and_tiling() {
    assert_eq!(get_deep_norm_max_min_tmp_size(&[4, 16, 64], 4, false, true), (49664, 1280));
    assert_eq!(
        get_deep_norm_max_min_tmp_size(&[4, 16, 64], 4, true, false),
        (2 * 16384 + 512, 2 * 256 + 512)
    );
    assert_eq!(get_deep_norm_max_min_tmp_size(&[1, 3, 16], 2, true, false), (3 * 192 + 64, 3 * 64 + 64));
    let t = get_deep_norm_tiling_info(&[2, 3, 16], &[2, 3, 13], 4096, 2, false, false);
    assert_eq!((t.mean_tmp_tensor_size, t.first_tmp_start_pos, t.tmp_buf_size), (8, 16, 1024));
    assert_eq!((t.one_tmp_size, t.loop_round, t.input_tail_size, t.original_h_length), (96, 1, 0, 13));
    assert_eq!(t.last_dim_value_back, 1.0 / 13.0);
    // 9 rows fit; the basic block takes 8.
    let t = get_deep_norm_tiling_info(&[2, 8, 64], &[2, 8, 64], 4 * 3 * 9 * 64, 4, false, true);
    assert_eq!((t.one_tmp_size, t.bs_cur_length, t.loop_round, t.input_tail_size), (512, 8, 2, 0));
    let t = get_deep_norm_tiling_info(&[2, 8, 64], &[2, 8, 64], 4 * 3 * 9 * 64, 4, false, false);
    assert_eq!((t.one_tmp_size, t.bs_cur_length, t.loop_round, t.input_tail_size), (576, 9, 1, 7 * 64));
}

#[test]
fn host_errors() {
    let max_min = |s: &[usize], ts: usize, basic: bool| {
        get_deep_norm_max_min_tmp_size(s, ts, false, basic);
    };
    expect_panic(|| max_min(&[1, 0, 8], 4, false), &["GetDeepNormMaxMinTmpSize", "no elements"]);
    expect_panic(|| max_min(&[1, 2, 8], 1, false), &["GetDeepNormMaxMinTmpSize", "typeSize = 1"]);
    expect_panic(|| max_min(&[2, 8], 4, false), &["srcShape = [2, 8]", "[B, S, H]"]);
    expect_panic(|| max_min(&[1, 2, 8], 2, false), &["H = 8 is not 32-byte aligned", "typeSize = 2"]);
    expect_panic(|| max_min(&[1, 1, 2048], 4, false), &["H = 2048 is greater than 2040"]);
    expect_panic(|| max_min(&[1, 8, 96], 4, true), &["isBasicBlock", "H = 96", "multiple of 64"]);
    expect_panic(|| max_min(&[1, 6, 64], 4, true), &["isBasicBlock", "B * S = 6", "multiple of 8"]);
    let tiling = |o: &[usize], size: usize, basic: bool| {
        get_deep_norm_tiling_info(&[1, 8, 64], o, size, 4, false, basic);
    };
    expect_panic(
        || tiling(&[1, 8, 0], 4096, false),
        &["GetDeepNormTilingInfo", "originSrcShape = [1, 8, 0]"],
    );
    expect_panic(|| tiling(&[1, 8, 72], 4096, false), &["0 < originH <= H = 64"]);
    expect_panic(|| tiling(&[2, 4, 64], 4096, false), &["originSrcShape = [2, 4, 64]"]);
    expect_panic(|| tiling(&[1, 8, 60], 4096, true), &["isBasicBlock: originH = 60", "equal to H = 64"]);
    expect_panic(|| tiling(&[1, 8, 64], 800, false), &["stackBufferSize = 800", "minimum 832"]);
}

// ---- kernel errors -------------------------------------------------------------------------

/// Tensors for `[1, 8, 64]` float with the minimum buffer: x, gx, y, mean, var, gamma, beta,
/// tmp at 1 KiB strides of a 16 KiB buffer (x, gx, y 2 KiB each).
fn with_case(
    soc: Soc,
    basic: bool,
    f: impl FnOnce(&[LocalTensor<f32>; 7], &LocalTensor<u8>, &mut DeepNormTiling),
) {
    on(soc, || {
        let u = ub(16384);
        let t = |off: usize, n: usize| u.t::<f32>(off, n);
        let ts = [t(0, 512), t(2048, 512), t(4096, 512), t(6144, 8), t(6400, 8), t(6656, 64), t(6912, 64)];
        let (_, min) = get_deep_norm_max_min_tmp_size(&[1, 8, 64], 4, false, basic);
        let tmp = u.t::<u8>(8192, min);
        let mut tiling = get_deep_norm_tiling_info(&[1, 8, 64], &[1, 8, 64], min, 4, false, basic);
        f(&ts, &tmp, &mut tiling);
    });
}

fn call<const REUSE: bool, const BASIC: bool>(
    t: &[LocalTensor<f32>; 7],
    tmp: &LocalTensor<u8>,
    tiling: &mut DeepNormTiling,
) {
    let [x, gx, y, m, v, g, b] = t;
    deep_norm::<f32, REUSE, BASIC>(y, m, v, x, gx, b, g, tmp, 1.0, 1e-5, tiling);
}

#[test]
fn unsupported_chips() {
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        with_case(soc, false, |t, tmp, tiling| {
            expect_panic(
                || call::<false, false>(t, tmp, tiling),
                &["DeepNorm has no implementation on", "Ascend910B"],
            );
        });
    }
}

#[test]
fn kernel_errors() {
    with_case(Soc::Ascend910B, false, |t, tmp, tiling| {
        call::<false, false>(t, tmp, tiling);
        let mut unset = DeepNormTiling::default();
        expect_panic(
            || call::<false, false>(t, tmp, &mut unset),
            &["DeepNorm", "oneTmpSize = 0", "GetDeepNormTilingInfo"],
        );
        let mut bad = *tiling;
        bad.loop_round += 1;
        expect_panic(
            || call::<false, false>(t, tmp, &mut bad),
            &["DeepNorm", "inconsistent", "GetDeepNormTilingInfo"],
        );
        expect_panic(
            || call::<false, false>(t, &tmp.view_len(0, 512), tiling),
            &["DeepNorm", "sharedTmpBuffer has 512 bytes"],
        );
        let mut s = t.clone();
        s[1] = t[1].view_len(0, 256);
        expect_panic(
            || call::<false, false>(&s, tmp, tiling),
            &["DeepNorm", "gxLocal has 256 float elements"],
        );
        let mut s = t.clone();
        s[5] = LocalTensor::new(TPosition::VECCALC, t[5].get_phy_addr(), 68);
        expect_panic(
            || call::<false, false>(&s, tmp, tiling),
            &["DeepNorm", "gammaLocal has 272 bytes", "32-byte aligned"],
        );
        let mut s = t.clone();
        s[3] = t[1].view_len(8, 8);
        expect_panic(|| call::<false, false>(&s, tmp, tiling), &["DeepNorm", "overlap", "gxLocal"]);
        let mut s = t.clone();
        s[1] = LocalTensor::new(TPosition::VECCALC, tmp.get_phy_addr(), 512);
        expect_panic(
            || call::<false, false>(&s, tmp, tiling),
            &["DeepNorm", "sharedTmpBuffer UB bytes", "overlap gxLocal"],
        );
        let mut t60 = get_deep_norm_tiling_info(&[1, 8, 64], &[1, 8, 60], tmp.get_size(), 4, false, false);
        expect_panic(
            || call::<false, true>(t, tmp, &mut t60),
            &["DeepNorm", "hLength % 64", "originalHLength = 60"],
        );
    });
    on(Soc::Ascend910B, || {
        let u = ub(8192);
        let t = |i: usize| u.t::<f16>(i * 512, 256);
        let (_, min) = get_deep_norm_max_min_tmp_size(&[1, 16, 16], 2, false, false);
        let tmp = u.t::<u8>(4096, min);
        let mut tiling = get_deep_norm_tiling_info(&[1, 16, 16], &[1, 16, 16], min, 2, false, false);
        let (one, two) = (h16(1.0), h16(2.0));
        expect_panic(
            || {
                deep_norm::<f16, true, false>(
                    &t(0),
                    &t(1),
                    &t(2),
                    &t(3),
                    &t(4),
                    &t(5),
                    &t(6),
                    &tmp,
                    one,
                    two,
                    &mut tiling,
                )
            },
            &["DeepNorm", "isReuseSrc = true is not supported for half"],
        );
    });
}

fn h16(x: f32) -> f16 {
    f16::from_f32(x)
}

#[test]
fn stack_errors() {
    on(Soc::Ascend910B, || {
        let x = LocalTensor::<f32>::new(TPosition::VECCALC, 0, 512);
        let mut tiling = get_deep_norm_tiling_info(&[1, 8, 64], &[1, 8, 64], 4096, 4, false, false);
        expect_panic(
            || deep_norm_stack::<f32, false, false>(&x, &x, &x, &x, &x, &x, &x, 1.0, 1.0, &mut tiling),
            &["DeepNorm", "no TPipe"],
        );
    });
}
