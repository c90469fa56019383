//! `SoftmaxFlashV3` (`adv/softmax_flash_v3.rs`) against a scalar restatement of the vendor's
//! steps (`membase/v220/softmax_flashv3_impl.h`), one rounding per instruction: the 64 partial
//! sums of a row (8-element block sums as pairwise trees, the later 64-column groups added lane
//! by lane), the 8 local means (trees times `1/baseK`), the row mean (a tree times 1/8), the
//! shifted source, the row maximum, the update of the statistics, `exp` through `f64`,
//! `NewReduceSumLastNDImpl`'s order (`adv_softmax_flash::row_sum`) and the narrowing with
//! `CAST_ROUND` — with and without `isUpdate`, over rows of 512 to 1536 columns, several
//! rounds and a tail; then the host helpers' numbers and every documented constraint.

use ascend_core::prelude::*;

use crate::adv_softmax_flash::{exp_sub, row_sum};
use crate::common::util;
use util::{assert_bits_ctx, expect_panic, f16_round_away, on, tree, ub, Rng};

/// A row's inputs of `isUpdate`: `(inMean, inMax, inExpSum)`.
type Prev = (f32, f32, f32);

/// One row's outputs: `dst` (before narrowing), `mean`, `max`, `expSum`, `expMax`.
struct RowOut {
    e: Vec<f32>,
    mean: f32,
    max: f32,
    sum: f32,
    exp_max: f32,
}

/// `alias`: the outputs are the inputs (same tensors), so the steps after the mean's and the
/// maximum's update read those instead of `inMean`/`inMax`.
fn row_ref(x: &[f32], alpha: f32, loop_cnt: u32, prev: Option<Prev>, alias: bool) -> RowOut {
    let k = x.len();
    let base_k = k / 8;
    // SoftmaxFlashV3ReduceSumImpl.
    let mut acc: Vec<f32> = (0..64).map(|q| tree(x[8 * q..8 * q + 8].to_vec(), false)).collect();
    for c in 8..k / 64 {
        for (i, a) in acc.iter_mut().enumerate() {
            *a += x[64 * c + i]; // Add(dst, src, dst): the same sum
        }
    }
    let inv = 1.0f32 / base_k as f32;
    let l: Vec<f32> = (0..8).map(|b| tree(acc[8 * b..8 * b + 8].to_vec(), false) * inv).collect();
    let g = tree(l.clone(), false) * 0.125;
    // ModifyInputImpl.
    let s = alpha / (1.0 - alpha);
    let xs: Vec<f32> = x.iter().enumerate().map(|(c, &v)| v - (g - l[c / base_k]) * s).collect();
    let row_max = xs.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    match prev {
        None => {
            let mean = g;
            let sc = (g - mean) * s;
            let max = row_max + sc;
            let e: Vec<f32> = xs.iter().map(|&v| exp_sub(v, max - sc)).collect();
            let sum = row_sum(&e, k);
            RowOut { e, mean, max, sum, exp_max: 0.0 }
        }
        Some((in_mean, in_max, in_sum)) => {
            let mean = (in_mean * (loop_cnt as f32 - 1.0) + g) * (1.0 / loop_cnt as f32);
            let sc = (g - mean) * s;
            let max_a = row_max + sc;
            let (in_mean, in_max) = if alias { (mean, max_a) } else { (in_mean, in_max) };
            let sp = (in_mean - mean) * s;
            let max = max_a.max(in_max + sp);
            let em = exp_sub(sp + (in_max - max), 0.0);
            let e: Vec<f32> = xs.iter().map(|&v| exp_sub(v, max - sc)).collect();
            let sum = em * in_sum + row_sum(&e, k);
            RowOut { e, mean, max, sum, exp_max: em }
        }
    }
}

/// Halves in `[-4, 4)` at steps of 1/64 (exact).
fn data(rng: &mut Rng, n: usize) -> Vec<f16> {
    (0..n).map(|_| f16::from_f32(rng.below(512) as f32 / 64.0 - 4.0)).collect()
}

/// Runs one call: `m × k`, scratch for `tmp_rows` rows (the tiling from it), `isUpdate = U`.
fn check<const U: bool>(m: usize, k: usize, tmp_rows: usize, seed: u64) {
    on(Soc::Ascend910B, || {
        let mut rng = Rng(seed);
        let n = m * k;
        let tmp_bytes = tmp_rows * (40 + 2 * k + 64) * 4;
        let stats = m * 8;
        let u = ub(2 * n * 2 + 6 * stats * 4 + m * 32 + tmp_bytes);
        let (x, y) = (u.t::<f16>(0, n), u.t::<f16>(2 * n, n));
        let s = |i: usize| u.t::<f32>(4 * n + i * stats * 4, stats);
        let (mean, sum, mx, in_mean, in_sum, in_max) = (s(0), s(1), s(2), s(3), s(4), s(5));
        let em = u.t::<f16>(4 * n + 6 * stats * 4, m * 16);
        let tmp = u.t::<u8>(4 * n + 6 * stats * 4 + m * 32, tmp_bytes);
        let xv = data(&mut rng, n);
        x.copy_from_slice(&xv);
        let prev: Vec<Prev> = (0..m)
            .map(|_| {
                let f = |r: &mut Rng, lo: f32, w: f32| lo + r.below(1 << 16) as f32 / 65536.0 * w;
                (f(&mut rng, -1.0, 2.0), f(&mut rng, 0.0, 6.0), f(&mut rng, 1.0, 1000.0))
            })
            .collect();
        let rep = |f: fn(&Prev) -> f32| prev.iter().flat_map(|p| [f(p); 8]).collect::<Vec<f32>>();
        in_mean.copy_from_slice(&rep(|p| p.0));
        in_max.copy_from_slice(&rep(|p| p.1));
        in_sum.copy_from_slice(&rep(|p| p.2));
        let sentinel = vec![-7.0f32; stats];
        for t in [&mean, &sum, &mx] {
            t.copy_from_slice(&sentinel);
        }
        em.copy_from_slice(&vec![f16::from_f32(-7.0); m * 16]);
        let alpha = [0.9375f32, 0.96889, 0.984497][rng.index(3)];
        let loop_cnt = rng.range(1, 4) as u32;
        let tiling = soft_max_flash_v3_tiling_func(&[m as u32, k as u32], 2, 4, tmp_bytes as u32, U, false);
        let params = SoftMaxParams::new(m as u32, k as u32, m as u32, k as u32, loop_cnt, 8, alpha);
        softmax_flash_v3::<U>(
            &y, &mean, &sum, &mx, &x, &em, &in_mean, &in_sum, &in_max, &tmp, &tiling, &params,
        );
        let ctx = format!(
            "SoftmaxFlashV3 update {U}, {m} x {k}, tmp rows {tmp_rows}, alpha {alpha}, loop {loop_cnt}"
        );
        let (mut wy, mut wmean, mut wsum, mut wmax, mut wem) = (vec![], vec![], vec![], vec![], vec![]);
        for i in 0..m {
            let row: Vec<f32> = xv[i * k..(i + 1) * k].iter().map(|h| h.to_f32()).collect();
            let o = row_ref(&row, alpha, loop_cnt, U.then_some(prev[i]), false);
            wy.extend(o.e.iter().map(|&v| f16_round_away(v)));
            wmean.extend([o.mean; 8]);
            wsum.extend([o.sum; 8]);
            wmax.extend([o.max; 8]);
            wem.extend([f16_round_away(o.exp_max); 16]);
        }
        assert_bits_ctx(&y.to_vec(), &wy, format!("dst; {ctx}"));
        assert_bits_ctx(&mean.to_vec(), &wmean, format!("mean; {ctx}"));
        assert_bits_ctx(&mx.to_vec(), &wmax, format!("max; {ctx}"));
        assert_bits_ctx(&sum.to_vec(), &wsum, format!("expSum; {ctx}"));
        if U {
            assert_bits_ctx(&em.to_vec(), &wem, format!("expMax; {ctx}"));
        } else {
            assert_bits_ctx(&em.to_vec(), &vec![f16::from_f32(-7.0); m * 16], format!("expMax; {ctx}"));
        }
        assert_bits_ctx(&x.to_vec(), &xv, format!("src; {ctx}"));
        assert_bits_ctx(&in_sum.to_vec(), &rep(|p| p.2), format!("inExpSum; {ctx}"));
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
        assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{ctx}");
    });
}

#[test]
fn no_update() {
    let mut seed = 1;
    for (m, k, rows) in [(8, 512, 8), (8, 1024, 8), (16, 576, 8), (24, 512, 5), (8, 1536, 3), (16, 640, 1)] {
        seed += 1;
        check::<false>(m, k, rows, seed);
    }
}

#[test]
fn update() {
    let mut seed = 100;
    for (m, k, rows) in
        [(8, 512, 8), (8, 1024, 8), (16, 512, 16), (40, 512, 20), (24, 768, 5), (8, 1536, 3), (16, 640, 1)]
    {
        seed += 1;
        check::<true>(m, k, rows, seed);
    }
}

/// Without `isUpdate` a round's means are copied with one normal-mode `Copy` of `reduceSize`
/// lanes: more than 8 rows a round exceed the 64 lanes of a `float` repeat.
#[test]
fn no_update_rounds_of_more_than_eight_rows() {
    let msg = util::panic_message(|| check::<false>(16, 512, 16, 7));
    assert!(msg.contains("Copy: mask = 128 is out of range [1, 64] for float"), "{msg}");
}

#[test]
fn host_helpers() {
    // Per row 8·5 + 2k + 64 floats.
    assert_eq!(get_soft_max_flash_v3_max_min_tmp_size(&[8, 1024], 2, 4, true, false), (8 * 8608, 8608));
    assert_eq!(get_soft_max_flash_v3_max_min_tmp_size(&[2, 4, 512], 2, 4, false, true), (8 * 4512, 4512));
    let t = soft_max_flash_v3_tiling_func(&[40, 512], 2, 4, 20 * 1128 * 4, false, false);
    assert_eq!(
        t,
        SoftMaxTiling {
            src_m: 40,
            src_k: 512,
            src_size: 40 * 512,
            out_max_m: 40,
            out_max_k: 8,
            out_max_size: 320,
            split_m: 16,
            split_k: 512,
            split_size: 16 * 512,
            reduce_m: 16,
            reduce_k: 8,
            reduce_size: 128,
            range_m: 2,
            tail_m: 8,
            tail_split_size: 8 * 512,
            tail_reduce_size: 64,
        }
    );
    // At most m rows; 8 or fewer are not rounded; none fitting leaves the rounds 0.
    assert_eq!(soft_max_flash_v3_tiling_func(&[8, 512], 2, 4, 100_000, true, false).split_m, 8);
    let t = soft_max_flash_v3_tiling_func(&[16, 512], 2, 4, 5 * 1128 * 4, true, false);
    assert_eq!((t.split_m, t.range_m, t.tail_m), (5, 3, 1));
    let t = soft_max_flash_v3_tiling_func(&[16, 512], 2, 4, 1000, true, false);
    assert_eq!((t.split_m, t.range_m, t.tail_m), (0, 0, 0));
    // The host checks.
    let api = "GetSoftMaxFlashV3MaxMinTmpSize";
    expect_panic(
        || {
            get_soft_max_flash_v3_max_min_tmp_size(&[8, 512], 4, 4, true, false);
        },
        &[api, "dataTypeSize1 = 4", "sizeof(half)"],
    );
    expect_panic(
        || {
            get_soft_max_flash_v3_max_min_tmp_size(&[8, 512], 2, 2, true, false);
        },
        &[api, "dataTypeSize2 = 2", "sizeof(float)"],
    );
    expect_panic(
        || {
            get_soft_max_flash_v3_max_min_tmp_size(&[8, 15], 2, 4, true, false);
        },
        &[api, "not 32-byte aligned"],
    );
    expect_panic(
        || {
            soft_max_flash_v3_tiling_func(&[8, 512], 2, 4, 0, true, false);
        },
        &["SoftMaxFlashV3TilingFunc", "localWorkSpaceSize is 0"],
    );
}

// ---- errors --------------------------------------------------------------------------------

/// Calls `softmax_flash_v3::<U>` on `soc` over an `m × k` layout with `params`, `tmp_bytes` of
/// scratch and the tiling for `[m, k]`.
fn call<const U: bool>(
    soc: Soc,
    m: usize,
    k: usize,
    tmp_bytes: usize,
    params: SoftMaxParams,
    dst_len: usize,
) {
    on(soc, || {
        let n = m * k;
        let stats = m * 8;
        let u = ub(2 * n * 2 + 6 * stats * 4 + m * 32 + tmp_bytes + 64);
        let (x, y) = (u.t::<f16>(0, n), u.t::<f16>(2 * n, dst_len));
        let s = |i: usize| u.t::<f32>(4 * n + i * stats * 4, stats);
        let em = u.t::<f16>(4 * n + 6 * stats * 4, m * 16);
        let tmp = u.t::<u8>(4 * n + 6 * stats * 4 + m * 32, tmp_bytes);
        let tiling =
            soft_max_flash_v3_tiling_func(&[m as u32, k as u32], 2, 4, (tmp_bytes as u32).max(1), U, false);
        softmax_flash_v3::<U>(&y, &s(0), &s(1), &s(2), &x, &em, &s(3), &s(4), &s(5), &tmp, &tiling, &params);
    });
}

#[test]
fn errors() {
    let p = |m: u32, k: u32| SoftMaxParams::new(m, k, m, k, 1, 8, 0.9375);
    let bytes = |m: usize, k: usize| m * (40 + 2 * k + 64) * 4;
    for soc in [Soc::Ascend910, Soc::Ascend310P, Soc::Ascend310B] {
        expect_panic(
            || call::<true>(soc, 8, 512, bytes(8, 512), p(8, 512), 4096),
            &["SoftmaxFlashV3", "not supported", &soc.to_string(), "SoftmaxFlashV3.md"],
        );
    }
    let b = Soc::Ascend910B;
    expect_panic(
        || call::<true>(b, 8, 256, bytes(8, 256), p(8, 256), 2048),
        &["params.srcK = 256; it must be at least 512 and a multiple of 64"],
    );
    expect_panic(
        || call::<true>(b, 8, 528, bytes(8, 528), p(8, 528), 8 * 528),
        &["params.srcK = 528; it must be at least 512 and a multiple of 64"],
    );
    expect_panic(
        || call::<true>(b, 4, 512, bytes(4, 512), p(4, 512), 2048),
        &["params.srcM = 4", "multiple of 8"],
    );
    expect_panic(
        || call::<true>(b, 8, 512, bytes(8, 512), SoftMaxParams::new(8, 512, 8, 512, 1, 4, 0.9), 4096),
        &["params.splitMeanCnt = 4; it must be 8"],
    );
    expect_panic(
        || call::<true>(b, 8, 512, bytes(8, 512), SoftMaxParams::new(8, 512, 7, 512, 1, 8, 0.9), 4096),
        &["params.srcM = 8 and params.oriSrcM = 7"],
    );
    expect_panic(
        || call::<true>(b, 8, 512, bytes(8, 512), SoftMaxParams::new(8, 512, 8, 500, 1, 8, 0.9), 4096),
        &["params.srcK = 512 and params.oriSrcK = 500"],
    );
    expect_panic(
        || call::<true>(b, 8, 512, bytes(8, 512), SoftMaxParams::new(8, 512, 8, 512, 0, 8, 0.9), 4096),
        &["params.loopCnt = 0; it must be at least 1 when isUpdate is true"],
    );
    // loopCnt is not checked without isUpdate.
    call::<false>(b, 8, 512, bytes(8, 512), SoftMaxParams::new(8, 512, 8, 512, 0, 8, 0.9), 4096);
    expect_panic(
        || call::<true>(b, 8, 512, bytes(8, 512), p(16, 512), 4096),
        &["params.srcM * params.srcK = 16 * 512 = 8192 is greater than srcTensor's size 4096"],
    );
    expect_panic(
        || call::<true>(b, 8, 512, bytes(8, 512), p(8, 512), 4000),
        &["dstTensor has 4000 elements; it must equal srcTensor's 4096"],
    );
    expect_panic(
        || call::<true>(b, 8, 512, bytes(8, 512), SoftMaxParams::new(0, 512, 0, 512, 1, 8, 0.9), 4096),
        &["params.srcM = 0", "ShapeInfo"],
    );
    // Less scratch than one row: the tiling has splitM = 0.
    expect_panic(
        || call::<true>(b, 8, 512, 4000, p(8, 512), 4096),
        &["tiling has splitM = 0", "SoftMaxFlashV3TilingFunc"],
    );
    // A tiling made for more scratch than passed.
    on(b, || {
        let u = ub(3 * 8192 + 64 * 32 + 4 * 4512);
        let (x, y) = (u.t::<f16>(0, 4096), u.t::<f16>(8192, 4096));
        let s = |i: usize| u.t::<f32>(16384 + i * 256, 64);
        let em = u.t::<f16>(16384 + 1536, 128);
        let tmp = u.t::<u8>(16384 + 2048, 4 * 4512);
        let t = soft_max_flash_v3_tiling_func(&[8, 512], 2, 4, 8 * 4512, true, false);
        expect_panic(
            || {
                softmax_flash_v3::<true>(
                    &y,
                    &s(0),
                    &s(1),
                    &s(2),
                    &x,
                    &em,
                    &s(3),
                    &s(4),
                    &s(5),
                    &tmp,
                    &t,
                    &p(8, 512),
                )
            },
            &["sharedTmpBuffer has 18048 bytes, less than the", "splitM = 8"],
        );
        // The scratch over the source.
        let over = u.t::<u8>(0, 8 * 4512);
        expect_panic(
            || {
                softmax_flash_v3::<true>(
                    &y,
                    &s(0),
                    &s(1),
                    &s(2),
                    &x,
                    &em,
                    &s(3),
                    &s(4),
                    &s(5),
                    &over,
                    &t,
                    &p(8, 512),
                )
            },
            &["sharedTmpBuffer", "overlap"],
        );
        let a1 = LocalTensor::<f32>::new(TPosition::A1, 0, 64);
        expect_panic(
            || {
                softmax_flash_v3::<true>(
                    &y,
                    &a1,
                    &s(1),
                    &s(2),
                    &x,
                    &em,
                    &s(3),
                    &s(4),
                    &s(5),
                    &tmp,
                    &t,
                    &p(8, 512),
                )
            },
            &["meanTensor is at position A1"],
        );
    });
}

/// The page lets `meanTensor`, `maxTensor` and `expSumTensor` be `inMeanTensor`, `inMaxTensor`
/// and `inExpSumTensor` (the vendor's own test calls it so). The vendor's steps then read the
/// overwritten inputs: the new mean makes `shiftPrev` 0 and the new maximum replaces `inMax`,
/// so `max` ignores the old maximum and `expMax` is `exp(0) = 1`.
#[test]
fn aliased_statistics_read_the_overwritten_inputs() {
    on(Soc::Ascend910B, || {
        let (m, k) = (8usize, 512usize);
        let (n, stats) = (m * k, m * 8);
        let tmp_bytes = m * (40 + 2 * k + 64) * 4;
        let u = ub(4 * n + 3 * stats * 4 + m * 32 + tmp_bytes);
        let (x, y) = (u.t::<f16>(0, n), u.t::<f16>(2 * n, n));
        let s = |i: usize| u.t::<f32>(4 * n + i * stats * 4, stats);
        let (mean, sum, mx) = (s(0), s(1), s(2));
        let em = u.t::<f16>(4 * n + 3 * stats * 4, m * 16);
        let tmp = u.t::<u8>(4 * n + 3 * stats * 4 + m * 32, tmp_bytes);
        let xv = data(&mut Rng(77), n);
        x.copy_from_slice(&xv);
        // An old maximum above every shifted value: without the aliasing it would win.
        let (in_mean, in_max, in_sum) = (0.25f32, 100.0f32, 3.0f32);
        mean.copy_from_slice(&[in_mean; 64]);
        mx.copy_from_slice(&[in_max; 64]);
        sum.copy_from_slice(&[in_sum; 64]);
        let tiling = soft_max_flash_v3_tiling_func(&[8, 512], 2, 4, tmp_bytes as u32, true, false);
        let params = SoftMaxParams::new(8, 512, 8, 512, 3, 8, 0.9375);
        softmax_flash_v3::<true>(&y, &mean, &sum, &mx, &x, &em, &mean, &sum, &mx, &tmp, &tiling, &params);
        let (mut wy, mut wmean, mut wsum, mut wmax) = (vec![], vec![], vec![], vec![]);
        for i in 0..m {
            let row: Vec<f32> = xv[i * k..(i + 1) * k].iter().map(|h| h.to_f32()).collect();
            let o = row_ref(&row, 0.9375, 3, Some((in_mean, in_max, in_sum)), true);
            assert!(o.max < in_max && o.exp_max == 1.0);
            wy.extend(o.e.iter().map(|&v| f16_round_away(v)));
            wmean.extend([o.mean; 8]);
            wsum.extend([o.sum; 8]);
            wmax.extend([o.max; 8]);
        }
        assert_bits_ctx(&y.to_vec(), &wy, "dst");
        assert_bits_ctx(&mean.to_vec(), &wmean, "mean");
        assert_bits_ctx(&mx.to_vec(), &wmax, "max");
        assert_bits_ctx(&sum.to_vec(), &wsum, "expSum");
        assert_bits_ctx(&em.to_vec(), &vec![f16::from_f32(1.0); m * 16], "expMax");
    });
}
