//! The deprecated `SoftmaxFlash` (`adv/softmax_flash_v1.rs`), ND, against a scalar reference
//! restating the vendor's steps on Ascend910B (`softmax_flash_nd_process_impl.h`, and
//! `SoftMaxNDImpl` without update): `half` widened exactly; the row maximum over `oriSrcK`
//! columns; `exp(x - rmax)` in `f64` rounded once to `f32` for every column up to `srcK`; the
//! row sum in the order of the older `ReduceSumLastNDImpl` with update (the 8 block trees of each
//! 64-column group added group by group, their tree, plus the tree of the tail) or of
//! `NewReduceSumLastNDImpl` without; then `max = max(inMax, rmax)`, `a = exp(rmax - max)`,
//! `b = exp(inMax - max) * inSum`, `sum = b + a * rsum`, `expMax = b / sum`,
//! `dst = e * (a / sum)`, each step rounded in `f32`, `half` outputs narrowed to nearest, ties
//! away (`CAST_ROUND`). Bit for bit for `half`/`half`, `float`/`float` and `half` with `float`
//! statistics, `isUpdate` false and true, several shapes, rounds and tails, in place (the
//! page's aliasing), the stack form, a recomputed tiling; the page's example; the host helpers
//! and every error.

use ascend_core::prelude::*;

use crate::adv_softmax_flash::{data, exp_sub, row_sum, sentinel, Fp};
use crate::common::util;
use util::{assert_bits_ctx, expect_panic, on, tree, ub};

/// The older `ReduceSumLastNDImpl`'s order over the first `k` values of `e`.
fn old_sum(e: &[f32], k: usize) -> f32 {
    let (groups, tail) = (k / 64, k % 64);
    let tail_tree = || {
        let mut t = vec![0f32; 64];
        t[..tail].copy_from_slice(&e[64 * groups..k]);
        tree(t, false)
    };
    if groups == 0 {
        return tail_tree();
    }
    let block = |g: usize, j: usize| tree(e[64 * g + 8 * j..64 * g + 8 * j + 8].to_vec(), false);
    let mut acc: Vec<f32> = (0..8).map(|j| block(0, j)).collect();
    for g in 1..groups {
        for (j, a) in acc.iter_mut().enumerate() {
            *a += block(g, j);
        }
    }
    let total = tree(acc, false);
    if tail == 0 {
        total
    } else {
        total + tail_tree()
    }
}

/// One row's outputs: `dst` (float, before narrowing), `max`, `sum`, `expMax`.
struct RowOut {
    dst: Vec<f32>,
    max: f32,
    sum: f32,
    exp_max: f32,
}

/// The vendor's steps for one row over its first `ori_k` values; `prev` is `(inMax, inSum)`.
fn row_ref(x: &[f32], ori_k: usize, prev: Option<(f32, f32)>) -> RowOut {
    let rmax = x[..ori_k].iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let e: Vec<f32> = x.iter().map(|&v| exp_sub(v, rmax)).collect();
    match prev {
        None => {
            let s = row_sum(&e, ori_k);
            RowOut { dst: e.iter().map(|&v| v / s).collect(), max: rmax, sum: s, exp_max: 0.0 }
        }
        Some((im, is)) => {
            let rsum = old_sum(&e, ori_k);
            let m = im.max(rmax);
            let a = exp_sub(rmax, m);
            let b = exp_sub(im, m) * is;
            let s = b + a * rsum;
            let f = a / s;
            RowOut { dst: e.iter().map(|&v| v * f).collect(), max: m, sum: s, exp_max: b / s }
        }
    }
}

#[derive(Clone, Copy)]
struct Case {
    m: u32,
    k: u32,
    ori_k: u32,
    /// Rows of temporary buffer (0: the max size).
    tmp_rows: u32,
    update: bool,
    /// The page's aliasing: `dst` at `src`, the statistics their own inputs.
    in_place: bool,
    stack: bool,
    /// A tiling made for another shape: the kernel recomputes it.
    other_tiling: bool,
}

fn case(m: u32, k: u32, ori_k: u32, tmp_rows: u32, update: bool) -> Case {
    Case { m, k, ori_k, tmp_rows, update, in_place: false, stack: false, other_tiling: false }
}

fn check<T1: Fp, T2: Fp + SoftMaxStatElement<T1>>(c: Case, seed: u64) {
    let ctx = format!(
        "SoftmaxFlash {}/{} m={} k={} ori_k={} rows={} update={} in_place={} stack={} other_tiling={}",
        T1::DTYPE,
        T2::DTYPE,
        c.m,
        c.k,
        c.ori_k,
        c.tmp_rows,
        c.update,
        c.in_place,
        c.stack,
        c.other_tiling
    );
    let s2 = T2::SIZE as u32;
    let (per2, per1) = (32 / T2::SIZE, 32 / T1::SIZE);
    let shape = [c.m, c.k];
    // The statistics' type sets reduceK (half with float statistics: dataTypeSize 4).
    let tmp_bytes = if c.tmp_rows == 0 {
        get_soft_max_flash_max_tmp_size(&shape, s2, c.update, false)
    } else {
        c.tmp_rows * get_soft_max_flash_min_tmp_size(&shape, s2, c.update, false)
    };
    let tiling = if c.other_tiling {
        soft_max_flash_tiling_func(&[8, 64], 4, 8192, c.update)
    } else {
        soft_max_flash_tiling_func(&shape, s2, tmp_bytes, c.update)
    };
    let (m, k, n) = (c.m as usize, c.k as usize, (c.m * c.k) as usize);
    let src: Vec<T1> = data(n, seed, 6.0, 6.0);
    let prev_max: Vec<T2> = data(m, seed + 1, 4.0, 8.0);
    let prev_sum: Vec<T2> = data(m, seed + 2, -1.0, 40.0);
    let (mut want, mut want_max, mut want_sum, mut want_em) = (vec![], vec![], vec![], vec![]);
    for r in 0..m {
        let x: Vec<f32> = src[r * k..(r + 1) * k].iter().map(|v| v.to32()).collect();
        let prev = c.update.then(|| (prev_max[r].to32(), prev_sum[r].to32()));
        let o = row_ref(&x, c.ori_k as usize, prev);
        want.extend(o.dst.iter().map(|&v| T1::narrow(v)));
        want_max.extend(vec![T2::narrow(o.max); per2]);
        want_sum.extend(vec![T2::narrow(o.sum); per2]);
        want_em.extend(vec![T1::narrow(o.exp_max); per1]);
    }
    on(Soc::Ascend910B, || {
        let bytes = n * T1::SIZE;
        let stat = m * 32;
        let tmp_len = if c.stack { 0 } else { tmp_bytes as usize };
        let u = ub(2 * bytes + 5 * stat + tmp_len);
        let x = u.t::<T1>(0, n);
        let y = if c.in_place { x.clone() } else { u.t::<T1>(bytes, n) };
        let (sum, max) = (u.t::<T2>(2 * bytes, m * per2), u.t::<T2>(2 * bytes + stat, m * per2));
        let em = u.t::<T1>(2 * bytes + 2 * stat, m * per1);
        let (in_sum, in_max) = if c.in_place {
            (sum.clone(), max.clone())
        } else {
            (u.t::<T2>(2 * bytes + 3 * stat, m * per2), u.t::<T2>(2 * bytes + 4 * stat, m * per2))
        };
        let tmp = u.t::<u8>(2 * bytes + 5 * stat, tmp_len);
        in_sum.copy_from_slice(&prev_sum.iter().flat_map(|&v| vec![v; per2]).collect::<Vec<_>>());
        in_max.copy_from_slice(&prev_max.iter().flat_map(|&v| vec![v; per2]).collect::<Vec<_>>());
        if !c.in_place {
            sum.copy_from_slice(&sentinel(m * per2));
            max.copy_from_slice(&sentinel(m * per2));
            y.copy_from_slice(&sentinel(n));
        }
        em.copy_from_slice(&sentinel(m * per1));
        x.copy_from_slice(&src);
        let info = SoftMaxShapeInfo::new(c.m, c.k, c.m, c.ori_k);
        if c.stack {
            softmax_flash_stack::<T1, T2, false, false>(
                &y, &sum, &max, &x, &em, &in_sum, &in_max, &tiling, c.update, &info,
            );
        } else {
            softmax_flash::<T1, T2, false, false>(
                &y, &sum, &max, &x, &em, &in_sum, &in_max, &tmp, &tiling, c.update, &info,
            );
        }
        assert_bits_ctx(&y.to_vec(), &want, &ctx);
        if !c.in_place {
            assert_bits_ctx(&x.to_vec(), &src, format!("src; {ctx}"));
        }
        assert_bits_ctx(&max.to_vec(), &want_max, format!("max; {ctx}"));
        assert_bits_ctx(&sum.to_vec(), &want_sum, format!("sum; {ctx}"));
        let em_want = if c.update { want_em } else { sentinel(m * per1) };
        assert_bits_ctx(&em.to_vec(), &em_want, format!("expMax; {ctx}"));
    });
}

fn sweep<T1: Fp, T2: Fp + SoftMaxStatElement<T1>>(seed: u64) {
    let a = 32 / T1::SIZE as u32;
    let shapes = [
        (3u32, 8u32),
        (5, 40),
        (4, 64),
        (7, 100),
        (9, 128),
        (2, 190),
        (3, 192),
        (6, 300),
        (2, 512),
        (3, 700),
    ];
    for (i, &(m, ok)) in shapes.iter().enumerate() {
        let k = ok.div_ceil(a) * a;
        for update in [false, true] {
            let s = seed + 10 * i as u64 + u64::from(update);
            check::<T1, T2>(case(m, k, ok, 0, update), s);
            // Rounds of 2 rows and a tail.
            check::<T1, T2>(case(m, k, ok, 2, update), s + 3);
            check::<T1, T2>(Case { in_place: true, ..case(m, k, ok, 0, update) }, s + 5);
            check::<T1, T2>(Case { stack: true, ..case(m, k, ok, 0, update) }, s + 7);
        }
    }
    // A tiling for another shape: the kernel's own tiling of the buffer.
    for update in [false, true] {
        check::<T1, T2>(Case { other_tiling: true, ..case(12, 64, 64, 5, update) }, seed + 200);
        check::<T1, T2>(Case { other_tiling: true, ..case(5, 8 * a, 7 * a + 3, 3, update) }, seed + 201);
    }
}

#[test]
fn float_float() {
    sweep::<f32, f32>(100);
}

#[test]
fn half_half() {
    sweep::<f16, f16>(300);
}

#[test]
fn half_float() {
    sweep::<f16, f32>(500);
}

/// The page's example: `half`, `[80, 144]`, `isUpdate = false`, the stack form, everything in
/// place; against the reference (`SoftMax` with its statistics).
#[test]
fn page_example() {
    check::<f16, f16>(Case { in_place: true, stack: true, ..case(80, 144, 144, 0, false) }, 7);
    // And with the update on the statistics it leaves (rounds of 4 rows: the half update path
    // works in the stack buffer, which must hold them).
    check::<f16, f16>(Case { in_place: true, stack: true, ..case(80, 144, 144, 4, true) }, 8);
}

#[test]
fn host_helpers() {
    // GetSoftMaxFlashMax/MinTmpSize (Ascend910B): m * (perBlk + k + 64) and m * (4 * perBlk + 2 * k) floats.
    assert_eq!(get_soft_max_flash_max_tmp_size(&[80, 144], 2, false, false), 80 * (16 + 144 + 64) * 4);
    assert_eq!(get_soft_max_flash_max_tmp_size(&[80, 144], 2, true, false), 80 * (4 * 16 + 2 * 144) * 4);
    assert_eq!(get_soft_max_flash_max_tmp_size(&[2, 3, 64], 4, true, true), 6 * (4 * 8 + 128) * 4);
    assert_eq!(get_soft_max_flash_min_tmp_size(&[80, 144], 2, false, false), (16 + 144 + 64) * 4);
    assert_eq!(get_soft_max_flash_min_tmp_size(&[80, 144], 4, true, false), (32 + 288) * 4);
    // SoftMaxFlashTilingFunc: baseM = work / row, a multiple of 8 above 8 and below m.
    let t = soft_max_flash_tiling_func(&[20, 48], 4, 11 * (32 + 96) * 4, true);
    assert_eq!(
        (t.split_m, t.range_m, t.tail_m, t.reduce_k, t.split_size, t.reduce_size),
        (8, 2, 4, 8, 384, 64)
    );
    assert_eq!((t.tail_split_size, t.tail_reduce_size, t.out_max_k, t.src_size), (4 * 48, 32, 8, 20 * 48));
    let t = soft_max_flash_tiling_func(&[20, 48], 2, 7 * (16 + 48 + 64) * 4, false);
    assert_eq!((t.split_m, t.range_m, t.tail_m, t.reduce_k), (7, 2, 6, 16));
    // AdjustToBasicBlockBaseM: m a multiple of 8, k of 64: the largest multiple of 8 dividing m,
    // halved while baseM * k >= 16384.
    let t = soft_max_flash_tiling_func(&[48, 64], 4, 40 * (8 + 64 + 64) * 4, false);
    assert_eq!((t.split_m, t.range_m, t.tail_m), (24, 2, 0));
    let t = soft_max_flash_tiling_func(&[64, 512], 4, 64 * (32 + 1024) * 4, true);
    assert_eq!((t.split_m, t.range_m, t.tail_m), (16, 4, 0));
    // Too small a buffer: no rows (the kernel rejects the tiling).
    let t = soft_max_flash_tiling_func(&[4, 64], 4, 4, true);
    assert_eq!((t.split_m, t.range_m, t.tail_m, t.src_m), (0, 0, 0, 4));
}

#[test]
fn host_errors() {
    expect_panic(
        || _ = get_soft_max_flash_max_tmp_size(&[4, 64], 3, false, false),
        &["GetSoftMaxFlashMaxTmpSize"],
    );
    expect_panic(
        || _ = get_soft_max_flash_min_tmp_size(&[], 4, false, false),
        &["GetSoftMaxFlashMinTmpSize"],
    );
    expect_panic(|| _ = get_soft_max_flash_min_tmp_size(&[4, 12], 2, true, false), &["32-byte aligned"]);
    expect_panic(
        || _ = soft_max_flash_tiling_func(&[4, 64], 4, 0, true),
        &["SoftMaxFlashTilingFunc", "localWorkSpaceSize"],
    );
    expect_panic(|| _ = soft_max_flash_tiling_func(&[4, 0], 4, 64, true), &["SoftMaxFlashTilingFunc"]);
}

/// A `float` call on `[4, 64]` with `f` choosing what to spoil.
fn bad_call(soc: Soc, f: impl FnOnce(&mut SoftMaxTiling, &mut SoftMaxShapeInfo, &mut usize, &mut bool)) {
    let mut tiling = soft_max_flash_tiling_func(
        &[4, 64],
        4,
        get_soft_max_flash_max_tmp_size(&[4, 64], 4, true, false),
        true,
    );
    let mut info = SoftMaxShapeInfo::new(4, 64, 4, 64);
    let mut tmp_len = get_soft_max_flash_max_tmp_size(&[4, 64], 4, true, false) as usize;
    let mut overlap = false;
    f(&mut tiling, &mut info, &mut tmp_len, &mut overlap);
    on(soc, || {
        let u = ub(2 * 1024 + 5 * 128 + tmp_len);
        let (x, y) = (u.t::<f32>(0, 256), u.t::<f32>(1024, 256));
        let st: Vec<LocalTensor<f32>> = (0..5).map(|i| u.t::<f32>(2048 + 128 * i, 32)).collect();
        let tmp = if overlap { u.t::<u8>(0, tmp_len) } else { u.t::<u8>(2048 + 640, tmp_len) };
        softmax_flash::<f32, f32, false, false>(
            &y, &st[0], &st[1], &x, &st[2], &st[3], &st[4], &tmp, &tiling, true, &info,
        );
    });
}

#[test]
fn kernel_errors() {
    // The chips the page lists but whose implementation is not modelled.
    expect_panic(
        || bad_call(Soc::Ascend310P, |_, _, _, _| {}),
        &["SoftmaxFlash", "Ascend310P", "not modelled"],
    );
    // The statistics' block: reduceK from a half tiling for float statistics.
    expect_panic(
        || bad_call(Soc::Ascend910B, |t, _, _, _| *t = soft_max_flash_tiling_func(&[4, 64], 2, 8192, true)),
        &["SoftmaxFlash", "reduceK = 16", "32 bytes"],
    );
    // No rows in the tiling.
    expect_panic(
        || bad_call(Soc::Ascend910B, |t, _, _, _| *t = soft_max_flash_tiling_func(&[4, 64], 4, 4, true)),
        &["SoftmaxFlash", "splitM = 0", "SoftMaxFlashTilingFunc"],
    );
    // The buffer smaller than the tiling's rounds.
    expect_panic(|| bad_call(Soc::Ascend910B, |_, _, l, _| *l = 1024), &["sharedTmpBuffer has 1024 bytes"]);
    // A recomputed tiling that fits no row.
    expect_panic(
        || {
            bad_call(Soc::Ascend910B, |_, i, l, _| {
                *i = SoftMaxShapeInfo::new(2, 64, 2, 64);
                *l = 256;
            })
        },
        &["SoftmaxFlash", "need min tmpbuffer is not enough"],
    );
    // Shape info.
    expect_panic(|| bad_call(Soc::Ascend910B, |_, i, _, _| i.src_k = 0), &["SoftmaxFlash", "srcK = 0"]);
    expect_panic(
        || bad_call(Soc::Ascend910B, |_, i, _, _| i.ori_src_k = 65),
        &["SoftmaxFlash", "oriSrcK = 65"],
    );
    expect_panic(
        || bad_call(Soc::Ascend910B, |_, i, _, _| *i = SoftMaxShapeInfo::new(4, 60, 4, 60)),
        &["SoftmaxFlash", "not 32-byte aligned"],
    );
    // More rows than the tensors hold.
    expect_panic(
        || {
            bad_call(Soc::Ascend910B, |t, i, l, _| {
                *t = soft_max_flash_tiling_func(&[8, 64], 4, 8 * 160 * 4, true);
                *i = SoftMaxShapeInfo::new(8, 64, 8, 64);
                *l = 8 * 160 * 4;
            })
        },
        &["SoftmaxFlash", "srcTensor has 256"],
    );
    // The buffer over an operand.
    expect_panic(
        || bad_call(Soc::Ascend910B, |_, _, _, o| *o = true),
        &["SoftmaxFlash", "sharedTmpBuffer UB bytes", "overlap"],
    );
    // Without update the kernel's recomputed tiling (2 * perBlk + 2 * k floats a row) leaves out
    // SoftMax's 64 floats a row of scratch: for a small k the rounds outgrow the buffer (on the
    // chip they run past it).
    expect_panic(
        || {
            on(Soc::Ascend910B, || {
                let u = ub(4096);
                let t = u.t::<f32>(0, 80);
                let tmp = u.t::<u8>(2048, 1056);
                let tiling = soft_max_flash_tiling_func(&[8, 64], 4, 8192, false);
                softmax_flash::<f32, f32, false, false>(
                    &t,
                    &t,
                    &t,
                    &t,
                    &t,
                    &t,
                    &t,
                    &tmp,
                    &tiling,
                    false,
                    &SoftMaxShapeInfo::new(5, 16, 5, 16),
                );
            })
        },
        &["SoftmaxFlash", "sharedTmpBuffer has 1056 bytes, less than the 1280 bytes", "splitM = 5"],
    );
    // The basic block with update.
    expect_panic(
        || {
            on(Soc::Ascend910B, || {
                let u = ub(4096);
                let t = u.t::<f32>(0, 64);
                let tiling = soft_max_flash_tiling_func(&[1, 64], 4, 2048, true);
                softmax_flash::<f32, f32, false, true>(
                    &t,
                    &t,
                    &t,
                    &t,
                    &t,
                    &t,
                    &t,
                    &u.t::<u8>(2048, 2048),
                    &tiling,
                    true,
                    &SoftMaxShapeInfo::new(1, 64, 1, 64),
                );
            })
        },
        &["SoftmaxFlash", "isBasicBlock = true with isUpdate = true", "not modelled"],
    );
    // A tensor outside the Unified Buffer.
    expect_panic(
        || {
            on(Soc::Ascend910B, || {
                let mut pipe = TPipe::new();
                let (mut v, mut l1) = (TBuf::<VecCalc>::new(), TBuf::<A1>::new());
                pipe.init_tbuf(&mut v, 8192);
                pipe.init_tbuf(&mut l1, 1024);
                let g = l1.get::<f32>();
                let t = v.get_with_offset::<f32>(256, 0);
                let tmp = v.get_with_offset::<u8>(4096, 4096);
                let tiling = soft_max_flash_tiling_func(&[4, 64], 4, 4096, false);
                softmax_flash::<f32, f32, false, false>(
                    &g,
                    &t,
                    &t,
                    &t,
                    &t,
                    &t,
                    &t,
                    &tmp,
                    &tiling,
                    false,
                    &SoftMaxShapeInfo::new(4, 64, 4, 64),
                );
            })
        },
        &["SoftmaxFlash", "dstTensor is at position"],
    );
}
