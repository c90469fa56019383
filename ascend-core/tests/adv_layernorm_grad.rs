//! The advanced API's `LayerNormGrad` and `LayerNormGradBeta` (`adv/layernorm_grad.rs`)
//! against a scalar reference that restates the vendor's steps with each instruction's
//! rounding — `half` widened to `float` exactly; `dy * gamma`, `x - mean`; `t = variance +
//! epsilon`, `1 / sqrt(t * t * t)` and `1 / sqrt(t)` in `f32`; the products in the vendor's
//! operand order; the row sums as `WholeReduceSum`'s binary tree over each 64-element chunk
//! (disabled lanes `+0`), then over the partial sums; `(pd_var * 2/H * x2 + pd_mean / H) +
//! x3`; the gamma/beta sums row by row in order from `x + 0`, rows `originH` apart; the
//! narrowing to `half` to nearest-even — for both types on both chips, both forms, both
//! `IS_REUSE_SOURCE`s, shapes that take every path (H below, at and above 64, with a partial
//! chunk, padded rows, row counts that leave a `Brcb` tail, several rounds and a tail round),
//! bit for bit. Then the host numbers and every error.

use ascend_core::prelude::*;

use crate::common::util;
use util::{assert_bits_ctx, expect_panic, on, tree, ub, Rng};

const CHIPS: [Soc; 2] = [Soc::Ascend910B, Soc::Ascend310P];

/// The element types: a `LayerNorm` type with the shared `f32` round trip ([`util::Fp`]).
trait Fp: util::Fp + LayerNormElement {}
impl<T: util::Fp + LayerNormElement> Fp for T {}

// ---- the reference -------------------------------------------------------------------------

/// `WholeReduceSum`'s binary tree over one repeat of up to 64 lanes, the rest `+0`.
fn tree64(v: &[f32]) -> f32 {
    let mut lanes = v.to_vec();
    lanes.resize(64, 0.0);
    tree(lanes, false)
}

/// `ReduceSumImpl` on one row: each 64-element chunk's tree, then the same over the partial
/// sums until one is left.
fn row_sum(v: &[f32]) -> f32 {
    let mut v = v.to_vec();
    loop {
        v = v.chunks(64).map(tree64).collect();
        if v.len() == 1 {
            return v[0];
        }
    }
}

/// `LayerNormGrad` of all rows in `float`: `(outputPdX, resForGamma)` before any narrowing.
#[allow(clippy::too_many_arguments)]
fn grad_reference(
    dy: &[f32],
    x: &[f32],
    var: &[f32],
    mean: &[f32],
    g: &[f32],
    h: usize,
    (back, back2, eps): (f32, f32, f32),
) -> (Vec<f32>, Vec<f32>) {
    let (mut out, mut res) = (Vec::new(), Vec::new());
    for (r, (dyr, xr)) in dy.chunks(h).zip(x.chunks(h)).enumerate() {
        let x1: Vec<f32> = dyr.iter().zip(g).map(|(&d, &g)| d * g).collect();
        let x2: Vec<f32> = xr.iter().map(|&v| v - mean[r]).collect();
        let t = var[r] + eps;
        let r3 = 1.0 / ((t * t) * t).sqrt();
        let a: Vec<f32> = x1.iter().zip(&x2).map(|(&p, &q)| (p * (q * r3)) * -0.5).collect();
        let pd_var = row_sum(&a);
        let rs = 1.0 / t.sqrt();
        res.extend(x2.iter().map(|&q| q * rs));
        let x3: Vec<f32> = x1.iter().map(|&p| p * rs).collect();
        let pd_mean0 = row_sum(&x3.iter().map(|&v| -v).collect::<Vec<_>>()); // `Muls` by -1: exact
        let s2 = row_sum(&x2.iter().map(|&v| v * -2.0).collect::<Vec<_>>());
        let pd_mean = pd_mean0 + pd_var * (s2 * back);
        let (pv, pm) = (pd_var * back2, pd_mean * back);
        out.extend(x2.iter().zip(&x3).map(|(&q, &z)| (pv * q + pm) + z));
    }
    (out, res)
}

/// `LayerNormGradBeta` in `float`: per round (`(offset, rows)`), rows `oh` apart added in
/// order into the sums, the very first from `x + 0`; returns the sums after each round.
fn beta_reference(
    res: &[f32],
    dy: &[f32],
    oh: usize,
    rounds: &[(usize, usize)],
) -> Vec<(Vec<f32>, Vec<f32>)> {
    let (mut g, mut b) = (vec![0.0f32; oh], vec![0.0f32; oh]);
    let mut out = Vec::new();
    for (k, &(off, bs)) in rounds.iter().enumerate() {
        for i in 0..bs {
            for j in 0..oh {
                let at = off + i * oh + j;
                let p = dy[at] * res[at];
                if k == 0 && i == 0 {
                    g[j] = p + 0.0;
                    b[j] = dy[at] + 0.0;
                } else {
                    g[j] += p;
                    b[j] += dy[at];
                }
            }
        }
        out.push((g.clone(), b.clone()));
    }
    out
}

// ---- the sweep -----------------------------------------------------------------------------

/// The scratch of a case: the host's maximum, a buffer of `k` rows per view, or the stack.
#[derive(Clone, Copy, Debug)]
enum Tmp {
    Max,
    Rows(usize),
    Stack,
}

/// `n` values in `[lo, hi)`, rows of `h` with all but the first `oh` elements 0.
fn rand_rows<T: Fp>(rng: &mut Rng, n: usize, h: usize, oh: usize, lo: f32, hi: f32) -> Vec<T> {
    (0..n)
        .map(|i| {
            let v = lo + (hi - lo) * (rng.below(1 << 24) as f32 / (1 << 24) as f32);
            T::from32(if i % h < oh { v } else { 0.0 })
        })
        .collect()
}

fn to32<T: Fp>(v: &[T]) -> Vec<f32> {
    v.iter().map(|e| e.to32()).collect()
}

fn conv<T: Fp>(v: Vec<f32>) -> Vec<T> {
    v.into_iter().map(T::from32).collect()
}

/// One `layer_norm_grad::<T, REUSE>` on `[b, s, h]` of `oh`, compared bit for bit; `false`
/// when it does not fit the chip's Unified Buffer.
fn run_grad<T: Fp, const REUSE: bool>(
    soc: Soc,
    (b, s, h, oh): (usize, usize, usize, usize),
    tmp: Tmp,
    seed: u64,
) -> bool {
    on(soc, || {
        let (n, rows) = (b * s * h, b * s);
        let al = |k: usize| (k * T::SIZE).div_ceil(32) * 32;
        let shape = [b, s, h, oh];
        let bufs = if T::SIZE == 2 {
            9
        } else if REUSE {
            4
        } else {
            6
        };
        let (max, _) = get_layer_norm_grad_max_min_tmp_size(&shape, T::SIZE, REUSE);
        let nominal = match tmp {
            Tmp::Max | Tmp::Stack => max,
            Tmp::Rows(k) => bufs * 4 * k * h,
        };
        let tiling0 = get_layer_norm_grad_nd_tiling_info(&shape, nominal, T::SIZE, REUSE);
        // The bytes the views reach (the tiling may round rows up beyond `nominal`).
        let round = if tiling0.loop_num > 0 { tiling0.one_cal_size } else { tiling0.tail_size } as usize;
        let reach = 4 * ((bufs - 1) * tiling0.one_cal_size as usize + round);
        let tmp_bytes = if let Tmp::Stack = tmp { 0 } else { nominal.max(reach).div_ceil(32) * 32 };
        let io = 4 * al(n) + 2 * al(rows) + al(h);
        if io + tmp_bytes + if let Tmp::Stack = tmp { nominal.max(reach) } else { 0 } + 64 > soc.ub_size() {
            return false;
        }
        let u = ub(io + tmp_bytes);
        let mut at = 0;
        let mut next = |k: usize| {
            let t = u.t::<T>(at, k);
            at += al(k);
            t
        };
        let (pd_x, res, dy, x, var, mean, g) =
            (next(n), next(n), next(n), next(n), next(rows), next(rows), next(h));
        let scratch = u.t::<u8>(io, tmp_bytes);
        let mut rng = Rng(seed);
        let dyv: Vec<T> = rand_rows(&mut rng, n, h, oh, -2.0, 2.0);
        let xv: Vec<T> = rand_rows(&mut rng, n, h, oh, -3.0, 5.0);
        let mv: Vec<T> = rand_rows(&mut rng, rows, 1, 1, -1.0, 2.0);
        let vv: Vec<T> = rand_rows(&mut rng, rows, 1, 1, 0.25, 4.0);
        let gv: Vec<T> = rand_rows(&mut rng, h, h, h, -1.5, 1.5);
        let eps = T::from32(1e-3);
        dy.copy_from_slice(&dyv);
        x.copy_from_slice(&xv);
        mean.copy_from_slice(&mv);
        var.copy_from_slice(&vv);
        g.copy_from_slice(&gv);
        let mut tiling = tiling0;
        if let Tmp::Stack = tmp {
            layer_norm_grad_stack::<T, REUSE>(&pd_x, &res, &dy, &x, &var, &mean, &g, eps, &mut tiling);
        } else {
            layer_norm_grad::<T, REUSE>(&pd_x, &res, &dy, &x, &var, &mean, &g, &scratch, eps, &mut tiling);
        }
        let ctx =
            format!("{} reuse {REUSE} on {soc}, [{b}, {s}, {h}] of {oh}, {tmp:?}, {tiling0:?}", T::DTYPE);
        let k = (
            f32::from_bits(tiling0.last_dim_value_back),
            f32::from_bits(tiling0.last_dim_value_back_mul_two),
            eps.to32(),
        );
        let (wo, wr) = grad_reference(&to32(&dyv), &to32(&xv), &to32(&vv), &to32(&mv), &to32(&gv), h, k);
        assert_bits_ctx(&pd_x.to_vec(), &conv::<T>(wo), format!("outputPdX; {ctx}"));
        assert_bits_ctx(&res.to_vec(), &conv::<T>(wr), format!("resForGamma; {ctx}"));
        if !(REUSE && T::DTYPE == DType::F32) {
            assert_bits_ctx(&dy.to_vec(), &dyv, format!("inputDy written; {ctx}"));
            assert_bits_ctx(&x.to_vec(), &xv, format!("inputX written; {ctx}"));
        }
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
        assert_eq!(tiling, tiling0, "{ctx}");
        true
    })
}

/// Shapes `(b, s, h, original h)`: every path.
fn shapes(half: bool) -> Vec<(usize, usize, usize, usize)> {
    let a = if half { 16 } else { 8 };
    vec![
        (1, 1, a, a),
        (2, 3, a, a - 3),
        (3, 7, 2 * a, 2 * a - 1),
        (2, 5, 64, 64),
        (1, 9, 64, 50),
        (2, 3, 64 + a, 64 + a),
        (3, 5, 128 + a, 120 + a),
        (1, 3, 192, 192),
        (2, 13, a, a),
    ]
}

fn sweep_grad<T: Fp, const REUSE: bool>() {
    let per_block = if T::SIZE == 2 { 16 } else { 8 };
    let mut ran = 0;
    for soc in CHIPS {
        for (i, &shape) in shapes(T::SIZE == 2).iter().enumerate() {
            for tmp in [Tmp::Max, Tmp::Rows(per_block), Tmp::Rows(1), Tmp::Stack] {
                if run_grad::<T, REUSE>(soc, shape, tmp, 100 + i as u64) {
                    ran += 1;
                }
            }
        }
    }
    assert!(ran >= 40, "only {ran} cases fit");
}

#[test]
fn grad_float() {
    sweep_grad::<f32, false>();
}

#[test]
fn grad_float_reuse_source() {
    sweep_grad::<f32, true>();
}

#[test]
fn grad_half() {
    sweep_grad::<f16, false>();
}

#[test]
fn grad_half_reuse_source() {
    sweep_grad::<f16, true>();
}

/// One `layer_norm_grad_beta::<T, REUSE>`, compared bit for bit.
fn run_beta<T: Fp, const REUSE: bool>(
    soc: Soc,
    (b, s, h, oh): (usize, usize, usize, usize),
    tmp: Tmp,
    seed: u64,
) {
    on(soc, || {
        let n = b * s * h;
        let al = |k: usize| (k * T::SIZE).div_ceil(32) * 32;
        let shape = [b, s, h, oh];
        let (max, min) = get_layer_norm_grad_beta_max_min_tmp_size(&shape, T::SIZE, REUSE);
        let bytes = match tmp {
            Tmp::Max | Tmp::Stack => max,
            Tmp::Rows(k) => min + if T::SIZE == 2 { 8 } else { 4 } * (k - 1) * h,
        };
        let tmp_bytes = if let Tmp::Stack = tmp { 0 } else { bytes };
        let io = 2 * al(n) + 2 * al(h);
        let u = ub(io + tmp_bytes);
        let (pd_g, pd_b) = (u.t::<T>(0, h), u.t::<T>(al(h), h));
        let (res, dy) = (u.t::<T>(2 * al(h), n), u.t::<T>(2 * al(h) + al(n), n));
        let scratch = u.t::<u8>(io, tmp_bytes);
        let mut rng = Rng(seed);
        let rv: Vec<T> = rand_rows(&mut rng, n, h, oh, -2.0, 2.0);
        let dv: Vec<T> = rand_rows(&mut rng, n, h, oh, -3.0, 3.0);
        let junk: Vec<T> = rand_rows(&mut rng, h, h, h, 7.0, 9.0);
        res.copy_from_slice(&rv);
        dy.copy_from_slice(&dv);
        pd_g.copy_from_slice(&junk);
        pd_b.copy_from_slice(&junk);
        let mut tiling = get_layer_norm_grad_beta_nd_tiling_info(&shape, bytes, T::SIZE, REUSE);
        let t0 = tiling;
        if let Tmp::Stack = tmp {
            layer_norm_grad_beta_stack::<T, REUSE>(&pd_g, &pd_b, &res, &dy, &mut tiling);
        } else {
            layer_norm_grad_beta::<T, REUSE>(&pd_g, &pd_b, &res, &dy, &scratch, &tiling);
        }
        let ctx = format!("{} reuse {REUSE} on {soc}, [{b}, {s}, {h}] of {oh}, {tmp:?}, {t0:?}", T::DTYPE);
        let one = t0.one_cal_size as usize;
        let mut rounds: Vec<(usize, usize)> =
            (0..t0.loop_round as usize).map(|i| (i * one, t0.bs_cur_length as usize)).collect();
        if t0.input_tail_size > 0 {
            rounds.push((t0.input_tail_pos as usize, t0.bs_tail_size as usize));
        }
        let (wg, wb) = beta_reference(&to32(&rv), &to32(&dv), oh, &rounds).pop().unwrap();
        let full = |w: Vec<f32>| {
            let mut v = conv::<T>(w);
            v.extend_from_slice(&junk[oh..]);
            v
        };
        assert_bits_ctx(&pd_g.to_vec(), &full(wg), format!("outputPdGamma; {ctx}"));
        assert_bits_ctx(&pd_b.to_vec(), &full(wb), format!("outputPdBeta; {ctx}"));
        assert_bits_ctx(&dy.to_vec(), &dv, format!("inputDy written; {ctx}"));
        if !(REUSE && T::DTYPE == DType::F32) {
            assert_bits_ctx(&res.to_vec(), &rv, format!("resForGamma written; {ctx}"));
        }
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
        assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{ctx}");
        assert_eq!(tiling, t0, "{ctx}");
    })
}

/// Shapes of `LayerNormGradBeta`: its rows are `originH` apart, so a padded row keeps
/// `originH` a multiple of 8 (the sums then read across rows, as on the chip).
fn beta_shapes(half: bool) -> Vec<(usize, usize, usize, usize)> {
    let a = if half { 16 } else { 8 };
    vec![
        (1, 1, a, a),
        (2, 3, a, a),
        (3, 7, 2 * a, 2 * a - 8),
        (2, 5, 64, 64),
        (1, 9, 64, 56),
        (2, 3, 64 + a, 64 + a),
        (3, 5, 128 + a, 120 + a),
        (1, 3, 192, 192),
        (2, 13, a, a),
        (1, 1, 32, 5),
    ]
}

fn sweep_beta<T: Fp, const REUSE: bool>() {
    for soc in CHIPS {
        for (i, &shape) in beta_shapes(T::SIZE == 2).iter().enumerate() {
            for tmp in [Tmp::Max, Tmp::Rows(1), Tmp::Rows(4), Tmp::Stack] {
                run_beta::<T, REUSE>(soc, shape, tmp, 200 + i as u64);
            }
        }
    }
}

#[test]
fn grad_beta_float() {
    sweep_beta::<f32, false>();
}

#[test]
fn grad_beta_float_reuse_source() {
    sweep_beta::<f32, true>();
}

#[test]
fn grad_beta_half() {
    sweep_beta::<f16, false>();
    sweep_beta::<f16, true>();
}

/// The vendor page's worked example of `LayerNormGrad` (`[1, 8, 8]`, `x = dy = 0..64`, mean
/// `3.5 + 8 * row`, variance 5.25, `gamma = 0..8`; its epsilon is not printed: 1e-4, the one
/// that reproduces the printed digits, `3.5 / sqrt(5.25 + 1e-4) = 1.5275107`): the printed values, within the
/// printing's precision, and bit for bit with the reference.
#[test]
fn page_example() {
    for soc in CHIPS {
        on(soc, || {
            let u = ub(4 * (4 * 64 + 2 * 8 + 8));
            let t = |i: usize, n: usize| u.t::<f32>(4 * i, n);
            let (pd_x, res, dy, x) = (t(0, 64), t(64, 64), t(128, 64), t(192, 64));
            let (var, mean, g) = (t(256, 8), t(264, 8), t(272, 8));
            let seq: Vec<f32> = (0..64).map(|i| i as f32).collect();
            dy.copy_from_slice(&seq);
            x.copy_from_slice(&seq);
            var.copy_from_slice(&[5.25; 8]);
            mean.copy_from_slice(&(0..8).map(|r| 3.5 + 8.0 * r as f32).collect::<Vec<_>>());
            g.copy_from_slice(&seq[..8]);
            let mut tiling = get_layer_norm_grad_nd_tiling_info(&[1, 8, 8, 8], 6 * 4 * 64, 4, false);
            layer_norm_grad_stack::<f32, false>(&pd_x, &res, &dy, &x, &var, &mean, &g, 1e-4, &mut tiling);
            let printed_x =
                [3.0548172, 0.4362857, -1.3093826, -2.182187, -2.1821284, -1.309207, 0.4365778, 3.0552254];
            let printed_r =
                [-1.5275106, -1.091079, -0.6546474, -0.21821581, 0.21821581, 0.6546474, 1.091079, 1.5275106];
            for j in 0..8 {
                assert!(
                    (pd_x.get_value(j) - printed_x[j]).abs() < 2e-6,
                    "{soc} pd_x[{j}] = {}",
                    pd_x.get_value(j)
                );
                assert!(
                    (res.get_value(j) - printed_r[j]).abs() < 2e-6,
                    "{soc} res[{j}] = {}",
                    res.get_value(j)
                );
            }
            let k = (1.0 / 8.0, 2.0 / 8.0, 1e-4);
            let (wo, wr) = grad_reference(&seq, &seq, &var.to_vec(), &mean.to_vec(), &seq[..8], 8, k);
            assert_bits_ctx(&pd_x.to_vec(), &wo, soc);
            assert_bits_ctx(&res.to_vec(), &wr, soc);
        })
    }
}

// ---- host numbers --------------------------------------------------------------------------

#[test]
fn host_tmp_sizes() {
    // k * max/min(BSH, H²) * typeSize, k = 9 (half), 4 (float reusing), 6 (float).
    assert_eq!(get_layer_norm_grad_max_min_tmp_size(&[2, 32, 16, 16], 4, false), (6 * 1024 * 4, 6 * 256 * 4));
    assert_eq!(get_layer_norm_grad_max_min_tmp_size(&[2, 32, 16, 16], 4, true), (4 * 1024 * 4, 4 * 256 * 4));
    assert_eq!(get_layer_norm_grad_max_min_tmp_size(&[1, 2, 64, 64], 2, true), (9 * 4096 * 2, 9 * 128 * 2));
    // 4 or 2 float views: BSH at most, H at least.
    assert_eq!(
        get_layer_norm_grad_beta_max_min_tmp_size(&[1, 3, 16, 10], 2, false),
        (4 * 48 * 4, 4 * 16 * 4)
    );
    assert_eq!(get_layer_norm_grad_beta_max_min_tmp_size(&[1, 3, 16, 10], 4, true), (2 * 48 * 4, 2 * 16 * 4));
}

#[test]
fn host_tiling_numbers() {
    // half, 9 views: 4608 / 4 / 9 = 128 floats = 8 rows of 16, rounded up to 16 rows.
    let t = get_layer_norm_grad_nd_tiling_info(&[2, 32, 16, 12], 4608, 2, false);
    let want = LayerNormGradTiling {
        stack_buffer_size: 4608,
        b_length: 2,
        s_length: 32,
        h_length: 16,
        original_h_length: 12,
        one_cal_size: 256,
        noh_cal_size: 16,
        loop_num: 4,
        tail_size: 0,
        noh_tail_size: 0,
        tmp_tensor_bsh_pos: 0,
        tmp_tensor_bsh_size: 256,
        pd_var_tensor_pos: 256,
        pd_var_tensor_size: 256,
        pd_mean_tensor_pos: 512,
        pd_mean_tensor_size: 256,
        x1_tensor_pos: 768,
        x1_tensor_size: 256,
        x2_tensor_pos: 1024,
        x2_tensor_size: 256,
        x3_tensor_pos: 1280,
        x3_tensor_size: 256,
        tmp_tensor_pos: 1536,
        tmp_tensor_size: 256,
        tmp_tensor1_pos: 1792,
        tmp_tensor1_size: 256,
        tmp_tensor2_pos: 2048,
        tmp_tensor2_size: 256,
        last_dim_value_back: (1.0f32 / 12.0).to_bits(),
        last_dim_value_back_mul_two: (2.0f32 / 12.0).to_bits(),
    };
    assert_eq!(t, want);
    // float reusing the source: x1 and x2 at 0, x3 after pdMean; a tail of 3 rows.
    let t = get_layer_norm_grad_nd_tiling_info(&[1, 19, 8, 8], 4 * 4 * 64, 4, true);
    assert_eq!((t.one_cal_size, t.noh_cal_size, t.loop_num, t.tail_size, t.noh_tail_size), (64, 8, 2, 24, 3));
    assert_eq!((t.x1_tensor_pos, t.x2_tensor_pos, t.x3_tensor_pos, t.tmp_tensor_pos), (0, 0, 192, 0));
    let t = get_layer_norm_grad_beta_nd_tiling_info(&[1, 5, 16, 10], 4 * (32 + 2 * 32), 2, false);
    let want = LayerNormGradBetaTiling {
        stack_buffer_size: 96,
        b_length: 1,
        s_length: 5,
        h_length: 16,
        original_h_length: 10,
        bsh_length: 80,
        bs_length: 5,
        one_cal_size: 32,
        number_of_tmp_buf: 2,
        loop_round: 2,
        input_tail_size: 16,
        input_tail_pos: 64,
        bs_tail_size: 1,
        bsh_cur_length: 32,
        bs_cur_length: 2,
        gamma_temp_tensor_pos: 0,
        beta_temp_tensor_pos: 16,
        input_dy_tmp_tensor_pos: 32,
        res_for_gamma_tmp_tensor_pos: 64,
        reserved: 0,
    };
    assert_eq!(t, want);
    // At most all rows.
    let t = get_layer_norm_grad_beta_nd_tiling_info(&[1, 2, 8, 8], 4096, 4, false);
    assert_eq!((t.one_cal_size, t.loop_round, t.number_of_tmp_buf), (16, 1, 1));
}

#[test]
fn host_errors() {
    let f = |s: &[usize], ts: usize| {
        let _ = get_layer_norm_grad_max_min_tmp_size(s, ts, false);
    };
    let mm = "GetLayerNormGradMaxMinTmpSize";
    expect_panic(|| f(&[1, 8, 64], 4), &[mm, "has 3 dimensions"]);
    expect_panic(|| f(&[0, 8, 64, 64], 4), &[mm, "no elements"]);
    expect_panic(|| f(&[1, 8, 64, 64], 8), &[mm, "typeSize = 8"]);
    let info = "GetLayerNormGradNDTilingInfo";
    expect_panic(
        || {
            let _ = get_layer_norm_grad_nd_tiling_info(&[1, 8, 64, 64], 6 * 4 * 64 - 1, 4, false);
        },
        &[info, "stackBufferSize is not enough", "6 rows of H = 64"],
    );
    let b = "GetLayerNormGradBetaNDTilingInfo";
    expect_panic(
        || {
            let _ = get_layer_norm_grad_beta_nd_tiling_info(&[1, 8, 64, 64], 4 * 127, 4, false);
        },
        &[b, "127 floats, fewer than 2 * H = 128"],
    );
    expect_panic(
        || {
            let _ = get_layer_norm_grad_beta_nd_tiling_info(&[1, 8, 64, 64], 4 * 191, 2, false);
        },
        &[b, "no whole row of H = 64"],
    );
    expect_panic(
        || {
            let _ = get_layer_norm_grad_beta_max_min_tmp_size(&[1, 8, 64, 64], 1, false);
        },
        &["GetLayerNormGradBetaMaxMinTmpSize", "typeSize = 1"],
    );
}

// ---- kernel errors -------------------------------------------------------------------------

/// `[1, 2, 8, 8]` float tensors and a buffer of `tmp` bytes; `f` gets them.
#[allow(clippy::type_complexity)]
fn with_grad(soc: Soc, tmp: usize, f: impl FnOnce([LocalTensor<f32>; 7], LocalTensor<u8>)) {
    on(soc, || {
        let u = ub(7 * 64 + tmp);
        let t = |i: usize, n: usize| u.t::<f32>(64 * i, n);
        f([t(0, 16), t(1, 16), t(2, 16), t(3, 16), t(4, 2), t(5, 2), t(6, 8)], u.t::<u8>(7 * 64, tmp));
    })
}

#[test]
fn grad_errors() {
    let api = "LayerNormGrad";
    let shape = [1, 2, 8, 8];
    let (max, min) = get_layer_norm_grad_max_min_tmp_size(&shape, 4, false);
    let good = get_layer_norm_grad_nd_tiling_info(&shape, max, 4, false);
    let call = |[o, r, dy, x, v, m, g]: &[LocalTensor<f32>; 7],
                tmp: &LocalTensor<u8>,
                mut t: LayerNormGradTiling| {
        layer_norm_grad::<f32, false>(o, r, dy, x, v, m, g, tmp, 1e-5, &mut t)
    };
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        let msg =
            expect_panic(|| with_grad(soc, max, |t, tmp| call(&t, &tmp, good)), &[api, "not supported on"]);
        assert!(msg.contains("Ascend910B") && msg.contains("Ascend310P"), "{msg}");
    }
    with_grad(Soc::Ascend910B, max, |t, tmp| {
        expect_panic(|| call(&t, &tmp, LayerNormGradTiling::default()), &[api, "the tiling is unset"]);
        let mut bad = good;
        bad.loop_num += 1;
        expect_panic(|| call(&t, &tmp, bad), &[api, "the tiling is inconsistent"]);
        expect_panic(
            || call(&t, &tmp.view_len(0, max - 32), good),
            &[api, "fewer than the tiling's stackBufferSize"],
        );
        let [o, r, dy, x, v, m, g] = &t;
        let short = g.view_len(0, 7);
        expect_panic(
            || layer_norm_grad::<f32, false>(o, r, dy, x, v, m, &short, &tmp, 1e-5, &mut good.clone()),
            &[api, "inputGamma has 7 float elements, fewer than H = 8"],
        );
        let short = v.view_len(0, 1);
        expect_panic(
            || layer_norm_grad::<f32, false>(o, r, dy, x, &short, m, g, &tmp, 1e-5, &mut good.clone()),
            &[api, "inputVariance has 1 float elements, fewer than B * S = 2"],
        );
        // The scratch over inputDy.
        let over = dy.reinterpret_cast::<u8>();
        let mut big = good;
        big.stack_buffer_size = 64;
        big.loop_num = 0;
        big.tail_size = 16;
        big.noh_tail_size = 2;
        big.one_cal_size = 8;
        big.noh_cal_size = 1;
        for p in [
            &mut big.pd_var_tensor_pos,
            &mut big.pd_mean_tensor_pos,
            &mut big.x1_tensor_pos,
            &mut big.x2_tensor_pos,
            &mut big.x3_tensor_pos,
        ] {
            *p = 0;
        }
        expect_panic(|| call(&t, &over, big), &[api, "sharedTmpBuffer UB bytes", "overlap inputDy"]);
    });
    // H not 32-byte aligned.
    on(Soc::Ascend310P, || {
        let t12 = get_layer_norm_grad_nd_tiling_info(&[1, 2, 12, 12], 4096, 4, false);
        let u = ub(8192);
        let a = |i: usize, n: usize| u.t::<f32>(128 * i, n);
        let tmp = u.t::<u8>(1024, 4096);
        expect_panic(
            || {
                let mut t = t12;
                layer_norm_grad::<f32, false>(
                    &a(0, 24),
                    &a(1, 24),
                    &a(2, 24),
                    &a(3, 24),
                    &a(4, 2),
                    &a(5, 2),
                    &a(6, 12),
                    &tmp,
                    0.0,
                    &mut t,
                )
            },
            &[api, "hLength = 12", "multiple of 8"],
        );
    });
    // The host's minimum with the rows rounded up: the views reach past the buffer.
    let t = get_layer_norm_grad_nd_tiling_info(&shape, min, 4, false);
    assert_eq!((min, t.noh_cal_size, t.one_cal_size), (384, 8, 64));
    with_grad(Soc::Ascend910B, min, |ts, tmp| {
        expect_panic(
            || call(&ts, &tmp, t),
            &[
                api,
                "the tiling's views reach float 336 (1344 bytes) of sharedTmpBuffer, which has 384 bytes",
                "rounds nohCalSize up",
            ],
        );
    });
}

#[test]
fn grad_beta_errors() {
    let api = "LayerNormGradBeta";
    let shape = [1, 2, 8, 8];
    let (max, _) = get_layer_norm_grad_beta_max_min_tmp_size(&shape, 4, false);
    let good = get_layer_norm_grad_beta_nd_tiling_info(&shape, max, 4, false);
    let msg = expect_panic(
        || {
            with_grad(Soc::Ascend910, max, |[g, b, r, d, ..], tmp| {
                layer_norm_grad_beta::<f32, false>(&g.view_len(0, 8), &b.view_len(0, 8), &r, &d, &tmp, &good)
            })
        },
        &[api, "not supported on Ascend910"],
    );
    assert!(msg.contains("Ascend310P"), "{msg}");
    with_grad(Soc::Ascend310P, max, |[g, b, r, d, ..], tmp| {
        let call = |g: &LocalTensor<f32>, tmp: &LocalTensor<u8>, t: &LayerNormGradBetaTiling| {
            layer_norm_grad_beta::<f32, false>(g, &b, &r, &d, tmp, t)
        };
        expect_panic(|| call(&g, &tmp, &LayerNormGradBetaTiling::default()), &[api, "oneCalSize must > 0"]);
        let mut bad = good;
        bad.bs_cur_length = 1;
        expect_panic(|| call(&g, &tmp, &bad), &[api, "the tiling is inconsistent"]);
        let mut bad = good;
        bad.res_for_gamma_tmp_tensor_pos = 20;
        expect_panic(
            || call(&g, &tmp, &bad),
            &[api, "resForGammaTmpTensorPos + oneCalSize is (36) should <= stackBufferSize is (32)"],
        );
        expect_panic(
            || call(&g, &tmp.view_len(0, 32), &good),
            &[api, "sharedTmpBuffer has 8 floats", "stackBufferSize = 32"],
        );
        expect_panic(
            || call(&g.view_len(0, 7), &tmp, &good),
            &[api, "outputPdGamma has 7 float elements, fewer than the originH = 8"],
        );
        let small = get_layer_norm_grad_beta_nd_tiling_info(&shape, 64, 4, false);
        expect_panic(|| call(&g, &r.reinterpret_cast::<u8>(), &small), &[api, "overlap resForGamma"]);
        // Rows originH = 5 apart: the second row would start unaligned.
        let pad = get_layer_norm_grad_beta_nd_tiling_info(&[1, 2, 8, 5], max, 4, false);
        expect_panic(
            || call(&g, &tmp, &pad),
            &[api, "originalHLength = 5 is not a multiple of 8", "sums 2 rows"],
        );
    });
}
