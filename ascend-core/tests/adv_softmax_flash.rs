//! `SoftmaxFlashV2` (`adv/softmax_flash.rs`), ND, against a scalar reference that restates the
//! vendor's `membase` steps for Ascend910B: `half` widened exactly; the row maximum over
//! `oriSrcK` columns (merged with `inMax` by `Max` for `isUpdate`); `x - max` in `f32`; `exp`
//! in `f64` rounded once to `f32` (the emulator's `Exp`) for every column up to `srcK`; the row
//! sum in the order of `NewReduceSumLastNDImpl` (the 64-lane accumulator per `k` range, then
//! the binary tree); `expMax = exp(inMax - max)`; `expSum = expMax * inExpSum` then `+ sum`,
//! each rounded in `f32`; `half` outputs narrowed to nearest, ties away (`CAST_ROUND`). Bit for
//! bit for `half`/`half`, `float`/`float` and `half` with `float` statistics, both `isUpdate`,
//! every reduction branch, tails in `k` (`oriSrcK < srcK`) and in `m`, several rounds, in
//! place (the example's aliasing), the stack form, the kernel-side tiling, the mask state
//! afterwards; then the host helpers and the errors.

use ascend_core::prelude::*;

use crate::common::util;
use util::{assert_bits_ctx, expect_panic, f16_round_away, on, tree, ub, Rng};

// ---- the reference -------------------------------------------------------------------------

pub(crate) trait Fp: SoftMaxElement + std::fmt::Debug {
    fn to32(self) -> f32;
    fn narrow(x: f32) -> Self;
}
impl Fp for f32 {
    fn to32(self) -> f32 {
        self
    }
    fn narrow(x: f32) -> f32 {
        x
    }
}
impl Fp for f16 {
    fn to32(self) -> f32 {
        self.to_f32()
    }
    fn narrow(x: f32) -> f16 {
        f16_round_away(x)
    }
}

/// `NewReduceSumLastNDImpl`'s order over the first `k` values of `e`.
pub(crate) fn row_sum(e: &[f32], k: usize) -> f32 {
    let mut acc = vec![0f32; 64];
    if k < 64 {
        acc[..k].copy_from_slice(&e[..k]);
        return tree(acc, false);
    }
    let (groups, tail) = (k / 64, k % 64);
    let first = if k >= 512 {
        for (j, a) in acc.iter_mut().enumerate() {
            *a = tree(e[8 * j..8 * j + 8].to_vec(), false);
        }
        8
    } else if k >= 128 {
        for (i, a) in acc.iter_mut().enumerate() {
            *a = e[i] + e[64 + i];
        }
        2
    } else {
        acc.copy_from_slice(&e[..64]);
        1
    };
    for c in first..groups {
        for (i, a) in acc.iter_mut().enumerate() {
            *a += e[64 * c + i];
        }
    }
    for (i, a) in acc.iter_mut().enumerate().take(tail) {
        *a += e[64 * groups + i];
    }
    tree(acc, false)
}

/// The basic block's `k = 1024` sum (`SpecialBasicBlockAddImpl`): 128 block sums, 16 sums of 8
/// of them, the two halves added lane by lane, the tree of the 8.
fn special_1024_sum(e: &[f32]) -> f32 {
    let b: Vec<f32> = e.chunks(8).map(|c| tree(c.to_vec(), false)).collect();
    let c: Vec<f32> = b.chunks(8).map(|c| tree(c.to_vec(), false)).collect();
    tree((0..8).map(|l| c[l] + c[8 + l]).collect(), false)
}

/// `exp(x - max)` as the chip computes it.
pub(crate) fn exp_sub(x: f32, max: f32) -> f32 {
    f64::from(x - max).exp() as f32
}

/// One row's outputs: `dst` (float, before narrowing), `max`, `expSum`, `expMax`.
struct RowOut {
    e: Vec<f32>,
    max: f32,
    sum: f32,
    exp_max: f32,
}

/// The vendor's steps for one row of `k` values over the first `ori_k`; `prev` is
/// `(inMax, inExpSum)` for `isUpdate`.
fn row_ref(x: &[f32], ori_k: usize, prev: Option<(f32, f32)>, basic: bool) -> RowOut {
    let rmax = x[..ori_k].iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let max = prev.map_or(rmax, |(im, _)| im.max(rmax));
    let e: Vec<f32> = x.iter().map(|&v| exp_sub(v, max)).collect();
    let s = if basic && ori_k == 1024 { special_1024_sum(&e) } else { row_sum(&e, ori_k) };
    match prev {
        None => RowOut { e, max, sum: s, exp_max: 0.0 },
        Some((im, is)) => {
            let em = exp_sub(im, max);
            RowOut { e, max, sum: em * is + s, exp_max: em }
        }
    }
}

/// Values in `[-lo, hi)`, exact in `T`.
pub(crate) fn data<T: Fp>(n: usize, seed: u64, lo: f32, hi: f32) -> Vec<T> {
    let mut rng = Rng(seed);
    (0..n).map(|_| T::narrow((rng.below(1 << 10) as f32 / (1 << 10) as f32) * (hi + lo) - lo)).collect()
}

pub(crate) fn sentinel<T: Fp>(n: usize) -> Vec<T> {
    (0..n).map(|i| T::narrow(-1000.0 - (i % 7) as f32)).collect()
}

fn assert_normal_full(ctx: &str) {
    assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
    assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{ctx}");
}

// ---- the checks ------------------------------------------------------------------------------

#[derive(Clone, Copy)]
struct Case {
    m: u32,
    k: u32,
    ori_k: u32,
    /// Rows of temporary buffer (0: the max size).
    tmp_rows: u32,
    update: bool,
    in_place: bool,
    stack: bool,
    /// Pass a tiling made for another shape: the kernel recomputes it.
    other_tiling: bool,
    /// `isBasicBlock = true` (`float` only).
    basic: bool,
}

fn case(m: u32, k: u32, ori_k: u32, tmp_rows: u32, update: bool) -> Case {
    Case { m, k, ori_k, tmp_rows, update, in_place: false, stack: false, other_tiling: false, basic: false }
}

fn check<T1: Fp, T2: Fp + SoftMaxStatElement<T1>>(c: Case, seed: u64) {
    let ctx = format!(
        "SoftmaxFlashV2 {}/{} m={} k={} ori_k={} rows={} update={} in_place={} stack={} other_tiling={} basic={}",
        T1::DTYPE,
        T2::DTYPE,
        c.m,
        c.k,
        c.ori_k,
        c.tmp_rows,
        c.update,
        c.in_place,
        c.stack,
        c.other_tiling,
        c.basic
    );
    let (s1, s2) = (T1::SIZE as u32, T2::SIZE as u32);
    let (per2, per1) = (32 / T2::SIZE, 32 / T1::SIZE);
    let shape = [c.m, c.k];
    let tmp_bytes = if c.tmp_rows == 0 {
        get_soft_max_flash_v2_max_tmp_size(&shape, s1, s2, c.update, c.basic, false)
    } else {
        c.tmp_rows * get_soft_max_flash_v2_min_tmp_size(&shape, s1, s2, c.update, c.basic, false)
    };
    let tiling = if c.other_tiling {
        soft_max_flash_v2_tiling_func(&[8, 64], 4, 4, 8192, c.update, false, false)
    } else {
        soft_max_flash_v2_tiling_func(&shape, s1, s2, tmp_bytes, c.update, c.basic, false)
    };
    let (m, k, n) = (c.m as usize, c.k as usize, (c.m * c.k) as usize);
    let src: Vec<T1> = data(n, seed, 6.0, 6.0);
    // Running statistics as a previous call leaves them: one value per row, repeated.
    let prev_max: Vec<T2> = data(m, seed + 1, 4.0, 8.0);
    let prev_sum: Vec<T2> = data(m, seed + 2, -1.0, 40.0);
    let (mut want, mut want_max, mut want_sum, mut want_em) = (vec![], vec![], vec![], vec![]);
    // The basic block's `float` no-update path leaves `x - max` in the source.
    let mut want_src = src.clone();
    for r in 0..m {
        let x: Vec<f32> = src[r * k..(r + 1) * k].iter().map(|v| v.to32()).collect();
        let prev = c.update.then(|| (prev_max[r].to32(), prev_sum[r].to32()));
        let o = row_ref(&x, c.ori_k as usize, prev, c.basic);
        if c.basic && !c.update {
            for j in 0..k {
                want_src[r * k + j] = T1::narrow(x[j] - o.max);
            }
        }
        want.extend(o.e.iter().map(|&v| T1::narrow(v)));
        want_max.extend(vec![T2::narrow(o.max); per2]);
        want_sum.extend(vec![T2::narrow(o.sum); per2]);
        want_em.extend(vec![T1::narrow(o.exp_max); per1]);
    }
    on(Soc::Ascend910B, || {
        let bytes = n * T1::SIZE;
        let stat_bytes = m * 32;
        let tmp_len = if c.stack { 0 } else { tmp_bytes as usize };
        let u = ub(2 * bytes + 3 * stat_bytes + tmp_len);
        let x = u.t::<T1>(0, n);
        let y = if c.in_place { x.clone() } else { u.t::<T1>(bytes, n) };
        let (sum, max) = (u.t::<T2>(2 * bytes, m * per2), u.t::<T2>(2 * bytes + stat_bytes, m * per2));
        let em = u.t::<T1>(2 * bytes + 2 * stat_bytes, m * per1);
        sum.copy_from_slice(&prev_sum.iter().flat_map(|&v| vec![v; per2]).collect::<Vec<_>>());
        max.copy_from_slice(&prev_max.iter().flat_map(|&v| vec![v; per2]).collect::<Vec<_>>());
        em.copy_from_slice(&sentinel(m * per1));
        x.copy_from_slice(&src);
        if !c.in_place {
            y.copy_from_slice(&sentinel(n));
        }
        let info = SoftMaxShapeInfo::new(c.m, c.k, c.m, c.ori_k);
        let tmp = u.t::<u8>(2 * bytes + 3 * stat_bytes, tmp_len);
        // The example's aliasing: the running statistics are their own inputs.
        match (c.update, c.stack) {
            (false, false) if c.basic => softmax_flash_v2::<T1, T2, false, false, true>(
                &y, &sum, &max, &x, &em, &sum, &max, &tmp, &tiling, &info,
            ),
            (true, false) if c.basic => softmax_flash_v2::<T1, T2, true, false, true>(
                &y, &sum, &max, &x, &em, &sum, &max, &tmp, &tiling, &info,
            ),
            (false, true) if c.basic => softmax_flash_v2_stack::<T1, T2, false, false, true>(
                &y, &sum, &max, &x, &em, &sum, &max, &tiling, &info,
            ),
            (true, true) if c.basic => softmax_flash_v2_stack::<T1, T2, true, false, true>(
                &y, &sum, &max, &x, &em, &sum, &max, &tiling, &info,
            ),
            (false, false) => softmax_flash_v2::<T1, T2, false, false, false>(
                &y, &sum, &max, &x, &em, &sum, &max, &tmp, &tiling, &info,
            ),
            (true, false) => softmax_flash_v2::<T1, T2, true, false, false>(
                &y, &sum, &max, &x, &em, &sum, &max, &tmp, &tiling, &info,
            ),
            (false, true) => softmax_flash_v2_stack::<T1, T2, false, false, false>(
                &y, &sum, &max, &x, &em, &sum, &max, &tiling, &info,
            ),
            (true, true) => softmax_flash_v2_stack::<T1, T2, true, false, false>(
                &y, &sum, &max, &x, &em, &sum, &max, &tiling, &info,
            ),
        }
        assert_bits_ctx(&y.to_vec(), &want, &ctx);
        if !c.in_place {
            assert_bits_ctx(&x.to_vec(), &want_src, format!("src; {ctx}"));
        }
        assert_bits_ctx(&max.to_vec(), &want_max, format!("max; {ctx}"));
        assert_bits_ctx(&sum.to_vec(), &want_sum, format!("expSum; {ctx}"));
        let em_want = if c.update { want_em } else { sentinel(m * per1) };
        assert_bits_ctx(&em.to_vec(), &em_want, format!("expMax; {ctx}"));
        assert_normal_full(&ctx);
    });
}

fn sweep<T1: Fp, T2: Fp + SoftMaxStatElement<T1>>(seed: u64) {
    let a = 32 / T1::SIZE as u32;
    for (i, &(m, ok)) in
        [(3u32, 8u32), (5, 40), (4, 64), (7, 100), (9, 128), (2, 190), (3, 192), (6, 300), (2, 512), (3, 700)]
            .iter()
            .enumerate()
    {
        let k = ok.div_ceil(a) * a;
        let s = seed + 10 * i as u64;
        for update in [false, true] {
            check::<T1, T2>(case(m, k, ok, 0, update), s);
            check::<T1, T2>(case(m, k, ok, 1, update), s + 1);
            check::<T1, T2>(case(m, k, k, 2, update), s + 2);
        }
    }
    // Rounds of 8 with a tail of 4; rounds of 16 and a tail of 4; in place; the stack form; the
    // kernel-side tiling (one round of all rows, from the buffer's size).
    for update in [false, true] {
        check::<T1, T2>(case(20, 64, 64, 12, update), seed + 100);
        check::<T1, T2>(case(36, 32, 30, 16, update), seed + 101);
        check::<T1, T2>(Case { in_place: true, ..case(10, 128, 120, 3, update) }, seed + 102);
        check::<T1, T2>(Case { stack: true, ..case(6, 64, 64, 0, update) }, seed + 103);
        check::<T1, T2>(Case { other_tiling: true, ..case(12, 64, 50, 0, update) }, seed + 104);
        check::<T1, T2>(Case { other_tiling: true, ..case(20, 32, 32, 9, update) }, seed + 105);
    }
}

#[test]
fn float_float() {
    sweep::<f32, f32>(1000);
}

/// The basic block (`float`): every reduction branch (`k = 64`, `BasicBlockMaxImpl`, `k = 512`
/// and `k = 1024` special, `BigBlockReduce`), several rounds, in place, the stack form, the
/// kernel-side tiling (`CalculateNDSplitM` with the basic block).
#[test]
fn float_basic_block() {
    let bb = |m, k, rows, update| Case { basic: true, ..case(m, k, k, rows, update) };
    for (i, &(m, k)) in
        [(8u32, 64u32), (16, 128), (8, 448), (16, 512), (8, 576), (8, 1024), (24, 256), (32, 192)]
            .iter()
            .enumerate()
    {
        let s = 5000 + 10 * i as u64;
        for update in [false, true] {
            check::<f32, f32>(bb(m, k, 0, update), s);
            check::<f32, f32>(bb(m, k, 1, update), s + 1);
            check::<f32, f32>(Case { in_place: true, ..bb(m, k, 1, update) }, s + 2);
        }
    }
    for update in [false, true] {
        check::<f32, f32>(Case { stack: true, ..bb(16, 64, 1, update) }, 5100);
        check::<f32, f32>(Case { other_tiling: true, ..bb(16, 448, 0, update) }, 5101);
        check::<f32, f32>(Case { other_tiling: true, ..bb(48, 64, 3, update) }, 5102);
    }
}

#[test]
fn half_half() {
    sweep::<f16, f16>(2000);
}

#[test]
fn half_float() {
    sweep::<f16, f32>(3000);
}

/// A second call continues the first (the flash-attention chaining of the vendor's example):
/// the row statistics equal one softmax over the concatenated columns up to rounding.
#[test]
fn chained_update() {
    on(Soc::Ascend910B, || {
        let (m, k) = (8usize, 64usize);
        let u = ub(4 * m * k * 4 + 16 * 1024);
        let (a, b) = (u.t::<f32>(0, m * k), u.t::<f32>(m * k * 4, m * k));
        let (sum, max, em) = (
            u.t::<f32>(2 * m * k * 4, m * 8),
            u.t::<f32>(2 * m * k * 4 + 256, m * 8),
            u.t::<f32>(2 * m * k * 4 + 512, m * 8),
        );
        let tmp = u.t::<u8>(4 * m * k * 4, 8192);
        let va: Vec<f32> = (0..m * k).map(|i| (i % 13) as f32 * 0.25).collect();
        let vb: Vec<f32> = (0..m * k).map(|i| (i % 11) as f32 * 0.5 - 1.0).collect();
        a.copy_from_slice(&va);
        b.copy_from_slice(&vb);
        let t = soft_max_flash_v2_tiling_func(&[m as u32, k as u32], 4, 4, 8192, true, false, false);
        let info = SoftMaxShapeInfo::new(m as u32, k as u32, m as u32, k as u32);
        softmax_flash_v2::<f32, f32, false, false, false>(
            &a, &sum, &max, &a, &em, &sum, &max, &tmp, &t, &info,
        );
        softmax_flash_v2::<f32, f32, true, false, false>(
            &b, &sum, &max, &b, &em, &sum, &max, &tmp, &t, &info,
        );
        for r in 0..m {
            let row: Vec<f64> =
                va[r * k..(r + 1) * k].iter().chain(&vb[r * k..(r + 1) * k]).map(|&v| f64::from(v)).collect();
            let mx = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let s: f64 = row.iter().map(|v| (v - mx).exp()).sum();
            assert_eq!(max.get_value(r * 8), mx as f32);
            assert!((f64::from(sum.get_value(r * 8)) - s).abs() < 1e-5 * s, "row {r}");
        }
    });
}

// ---- host helpers ----------------------------------------------------------------------------

#[test]
fn host_helpers() {
    // Not basic block: m * (2 * per_blk + k + 64) floats for half, m * (per_blk + 64) for float.
    assert_eq!(
        get_soft_max_flash_v2_max_tmp_size(&[4, 32], 2, 4, true, false, false),
        4 * (16 + 32 + 64) * 4
    );
    assert_eq!(get_soft_max_flash_v2_max_tmp_size(&[2, 3, 16], 4, 4, false, false, false), 6 * 72 * 4);
    assert_eq!(get_soft_max_flash_v2_min_tmp_size(&[4, 32], 2, 2, false, false, false), (32 + 32 + 64) * 4);
    // isFlashOutputBrc multiplies the minimum by min(32 / dataTypeSize1, m).
    assert_eq!(get_soft_max_flash_v2_min_tmp_size(&[4, 32], 2, 2, false, false, true), 4 * 128 * 4);
    assert_eq!(get_soft_max_flash_v2_min_tmp_size(&[40, 32], 4, 4, false, false, true), 8 * 72 * 4);
    // Basic block: m halved while m * k >= 16384; k = 1024 takes 128 floats of scratch.
    assert_eq!(get_soft_max_flash_v2_max_tmp_size(&[64, 512], 4, 4, true, true, false), 16 * 72 * 4);
    assert_eq!(
        get_soft_max_flash_v2_max_tmp_size(&[16, 1024], 2, 4, true, true, false),
        8 * (8 + 1024 + 128) * 4
    );
    assert_eq!(get_soft_max_flash_v2_max_tmp_size(&[12, 512], 4, 4, true, true, false), 12 * 72 * 4);
    assert_eq!(
        get_soft_max_flash_v2_min_tmp_size(&[16, 128], 2, 2, true, true, false),
        8 * (16 + 128 + 64) * 4
    );
    assert_eq!(get_soft_max_flash_v2_min_tmp_size(&[16, 128], 4, 4, true, true, true), 8 * 72 * 4);
    // Tiling: rounds of 8 of 20 rows.
    let t = soft_max_flash_v2_tiling_func(&[20, 64], 2, 4, 10 * (16 + 64 + 64) * 4, false, false, false);
    assert_eq!(
        t,
        SoftMaxTiling {
            src_m: 20,
            src_k: 64,
            src_size: 1280,
            out_max_m: 20,
            out_max_k: 8,
            out_max_size: 160,
            split_m: 8,
            split_k: 64,
            split_size: 512,
            reduce_m: 8,
            reduce_k: 8,
            reduce_size: 64,
            range_m: 2,
            tail_m: 4,
            tail_split_size: 256,
            tail_reduce_size: 32,
        }
    );
    // Basic block: the largest multiple of 8 dividing m.
    let t = soft_max_flash_v2_tiling_func(&[48, 64], 4, 4, 20 * 72 * 4, true, true, false);
    assert_eq!((t.split_m, t.range_m, t.tail_m), (16, 3, 0));
    // isFlashOutputBrc with half: multiples of 16.
    let t = soft_max_flash_v2_tiling_func(&[40, 16], 2, 2, 20 * (32 + 16 + 64) * 4, true, false, true);
    assert_eq!((t.split_m, t.range_m, t.tail_m), (16, 2, 8));
    // A buffer too small for a row: splitM 0, no rounds (the vendor's host function).
    let t = soft_max_flash_v2_tiling_func(&[4, 64], 4, 4, 64, false, false, false);
    assert_eq!((t.split_m, t.range_m, t.tail_m), (0, 0, 0));
    // isUpdate does not change anything.
    assert_eq!(
        soft_max_flash_v2_tiling_func(&[9, 32], 2, 4, 4096, true, false, false),
        soft_max_flash_v2_tiling_func(&[9, 32], 2, 4, 4096, false, false, false)
    );
}

#[test]
fn host_errors() {
    expect_panic(
        || {
            get_soft_max_flash_v2_max_tmp_size(&[4, 12], 2, 2, false, false, false);
        },
        &["GetSoftMaxFlashV2MaxTmpSize", "not 32-byte aligned"],
    );
    expect_panic(
        || {
            get_soft_max_flash_v2_min_tmp_size(&[4, 16], 2, 8, false, false, false);
        },
        &["GetSoftMaxFlashV2MinTmpSize", "8"],
    );
    expect_panic(
        || {
            get_soft_max_flash_v2_min_tmp_size(&[4, 16], 3, 4, false, false, false);
        },
        &["GetSoftMaxFlashV2MinTmpSize", "3"],
    );
    expect_panic(
        || {
            get_soft_max_flash_v2_max_tmp_size(&[], 4, 4, false, false, false);
        },
        &["GetSoftMaxFlashV2MaxTmpSize"],
    );
    expect_panic(
        || {
            soft_max_flash_v2_tiling_func(&[4, 16], 4, 4, 0, false, false, false);
        },
        &["SoftMaxFlashV2TilingFunc", "localWorkSpaceSize is 0"],
    );
    expect_panic(
        || {
            soft_max_flash_v2_tiling_func(&[40, 8], 4, 4, 6 * 72 * 4 + 100, false, false, true);
        },
        &["SoftMaxFlashV2TilingFunc", "isFlashOutputBrc", "reduceM = 6", "multiple of 8"],
    );
}

// ---- kernel errors ---------------------------------------------------------------------------

#[test]
fn kernel_errors() {
    let api = "SoftmaxFlashV2";
    let t = soft_max_flash_v2_tiling_func(&[4, 16], 4, 4, 4096, true, false, false);
    let info = SoftMaxShapeInfo::new(4, 16, 4, 16);
    // (soc, update, shape, tmp bytes, x elements, stat elements)
    let run = |soc: Soc, info: SoftMaxShapeInfo, tmp_bytes: usize, xn: usize, sn: usize| {
        on(soc, || {
            let u = ub(8192 + 4096);
            let (x, y) = (u.t::<f32>(0, xn), u.t::<f32>(1024, xn));
            let (s, m, e) = (u.t::<f32>(2048, sn), u.t::<f32>(2304, sn), u.t::<f32>(2560, sn));
            let tmp = u.t::<u8>(4096, tmp_bytes);
            softmax_flash_v2::<f32, f32, true, false, false>(&y, &s, &m, &x, &e, &s, &m, &tmp, &t, &info);
        })
    };
    run(Soc::Ascend910B, info, 4096, 64, 32);
    expect_panic(|| run(Soc::Ascend310P, info, 4096, 64, 32), &[api, "Ascend910B only", "Ascend310P"]);
    expect_panic(
        || run(Soc::Ascend910B, SoftMaxShapeInfo::new(0, 16, 4, 16), 4096, 64, 32),
        &[api, "srcM = 0"],
    );
    expect_panic(
        || run(Soc::Ascend910B, SoftMaxShapeInfo::new(4, 12, 4, 12), 4096, 64, 32),
        &[api, "srcK = 12", "not 32-byte aligned"],
    );
    expect_panic(
        || run(Soc::Ascend910B, SoftMaxShapeInfo::new(4, 16, 4, 17), 4096, 64, 32),
        &[api, "oriSrcK = 17"],
    );
    expect_panic(
        || run(Soc::Ascend910B, SoftMaxShapeInfo::new(4, 16, 5, 16), 4096, 64, 32),
        &[api, "oriSrcM = 5"],
    );
    // The tiling's 4 rows in one round need 4 * (8 + 64) floats.
    expect_panic(
        || run(Soc::Ascend910B, info, 4 * 72 * 4 - 32, 64, 32),
        &[api, "sharedTmpBuffer has 1120 bytes", "1152"],
    );
    // Recomputed for another shape: one row of 72 floats.
    expect_panic(
        || run(Soc::Ascend910B, SoftMaxShapeInfo::new(2, 16, 2, 16), 256, 64, 32),
        &[api, "256 bytes", "288", "recomputes"],
    );
    expect_panic(|| run(Soc::Ascend910B, info, 4096, 56, 32), &[api, "srcTensor has 56", "64"]);
    expect_panic(|| run(Soc::Ascend910B, info, 4096, 64, 24), &[api, "expSumTensor has 24", "32"]);
    // A tiling with no rows.
    let empty = soft_max_flash_v2_tiling_func(&[4, 16], 4, 4, 64, true, false, false);
    expect_panic(
        || {
            on(Soc::Ascend910B, || {
                let u = ub(8192);
                let x = u.t::<f32>(0, 64);
                let s = u.t::<f32>(512, 32);
                softmax_flash_v2::<f32, f32, false, false, false>(
                    &x,
                    &s,
                    &s,
                    &x,
                    &s,
                    &s,
                    &s,
                    &u.t::<u8>(4096, 4096),
                    &empty,
                    &info,
                );
            })
        },
        &[api, "splitM = 0", "SoftMaxFlashV2TilingFunc"],
    );
    // The basic block: half is not modelled; float needs its shape.
    expect_panic(
        || {
            on(Soc::Ascend910B, || {
                let u = ub(8192);
                let (x, s, m) = (u.t::<f16>(0, 128), u.t::<f16>(512, 64), u.t::<f16>(768, 64));
                let info = SoftMaxShapeInfo::new(8, 16, 8, 16);
                let tmp = u.t::<u8>(4096, 4096);
                softmax_flash_v2::<f16, f16, false, false, true>(&x, &s, &m, &x, &s, &s, &m, &tmp, &t, &info);
            })
        },
        &[api, "isBasicBlock = true for half", "not modelled"],
    );
    let bb = |info: SoftMaxShapeInfo, t: SoftMaxTiling| {
        on(Soc::Ascend910B, || {
            let u = ub(32768);
            let (x, s, m) = (u.t::<f32>(0, 2048), u.t::<f32>(8192, 256), u.t::<f32>(9216, 256));
            let tmp = u.t::<u8>(16384, 16384);
            softmax_flash_v2::<f32, f32, false, false, true>(&x, &s, &m, &x, &s, &s, &m, &tmp, &t, &info);
        })
    };
    let tb = soft_max_flash_v2_tiling_func(&[16, 128], 4, 4, 16384, false, true, false);
    bb(SoftMaxShapeInfo::new(16, 128, 16, 128), tb);
    expect_panic(
        || bb(SoftMaxShapeInfo::new(16, 120, 16, 120), tb),
        &[api, "srcK a multiple of 64 below 2048", "srcK = 120"],
    );
    expect_panic(
        || bb(SoftMaxShapeInfo::new(12, 128, 12, 128), tb),
        &[api, "srcM a multiple of 8", "srcM = 12"],
    );
    let odd = soft_max_flash_v2_tiling_func(&[16, 128], 4, 4, 6 * 72 * 4, false, false, false);
    expect_panic(
        || bb(SoftMaxShapeInfo::new(16, 128, 16, 128), odd),
        &[api, "splitM a multiple of 8", "splitM = 6"],
    );
    // Overlaps: the buffer on the source; expMax on the sum; a statistic on dst.
    let overlap = |tmp_off: usize, em_off: usize, sum_off: usize| {
        on(Soc::Ascend910B, || {
            let u = ub(16384);
            let (x, y) = (u.t::<f32>(0, 64), u.t::<f32>(1024, 64));
            let (s, m, e) = (u.t::<f32>(sum_off, 32), u.t::<f32>(2304, 32), u.t::<f32>(em_off, 32));
            let tmp = u.t::<u8>(tmp_off, 4096);
            softmax_flash_v2::<f32, f32, true, false, false>(&y, &s, &m, &x, &e, &s, &m, &tmp, &t, &info);
        })
    };
    overlap(4096, 2560, 2048);
    expect_panic(|| overlap(0, 2560, 2048), &[api, "sharedTmpBuffer", "dstTensor"]);
    expect_panic(|| overlap(4096, 2048, 2048), &[api, "expMaxTensor", "expSumTensor"]);
    expect_panic(|| overlap(4096, 2560, 1024), &[api, "expSumTensor", "dstTensor"]);
    // A position outside the Unified Buffer.
    expect_panic(
        || {
            on(Soc::Ascend910B, || {
                let u = ub(8192);
                let (x, s, m) = (u.t::<f32>(0, 64), u.t::<f32>(512, 32), u.t::<f32>(768, 32));
                let bad = LocalTensor::<u8>::new(TPosition::A1, 0, 4096);
                softmax_flash_v2::<f32, f32, false, false, false>(
                    &x, &s, &m, &x, &s, &s, &m, &bad, &t, &info,
                );
            })
        },
        &[api, "sharedTmpBuffer is at position A1"],
    );
}
