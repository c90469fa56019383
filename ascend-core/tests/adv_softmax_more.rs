//! The softmax family beyond `SoftMax` (`adv/softmax_more.rs`): `LogSoftMax`, `SimpleSoftMax`,
//! `SoftmaxGrad` and `SoftmaxGradFront`, ND, against a scalar reference that restates the vendor's `membase/v220`
//! steps: `half` widened exactly; the row maximum; `x - max` in `f32`; `exp` in `f64` rounded
//! once to `f32` (the emulator's `Exp`); the row sum in the order of `NewReduceSumLastNDImpl`
//! (the 64-lane accumulator per `k` range, then the binary tree); the quotient in `f32`;
//! `LogSoftMax`'s `Ln` (rounded once) times `log10(e)` in `f32`; `half` narrowed to nearest,
//! ties away (`CAST_ROUND`). Bit for bit, for both types (and `half` with `float` statistics
//! for `SimpleSoftMax`), every reduction branch, both `Ln` branches (`srcK` below and from 192
//! on), tails in `k` and in `m`, several rounds, in place, the stack form, the basic block, the
//! kernel-side tiling, the mask state afterwards; then the host helpers and the errors. The
//! gradients' row sums follow `ReduceSumLastNDImpl` (8-value block sums per 64-column group
//! added group by group, their tree, plus the 64-lane tree of the tail; the basic block of
//! `SoftmaxGradFront`: the groups added lane by lane, then the 64-lane tree), with both
//! broadcasts (`Brcb` for groups of 8 rows, the scalar unit for the rest), `isFront`, in place.

use ascend_core::prelude::*;

use crate::common::util;
use util::{assert_bits_ctx, expect_panic, f16_round_away, on, tree, ub, Rng};

// ---- the reference -------------------------------------------------------------------------

trait Fp: SoftMaxElement + std::fmt::Debug {
    fn to32(self) -> f32;
    fn narrow(x: f32) -> Self;
    fn exact(x: f32) -> Self;
}
impl Fp for f32 {
    fn to32(self) -> f32 {
        self
    }
    fn narrow(x: f32) -> f32 {
        x
    }
    fn exact(x: f32) -> f32 {
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
    fn exact(x: f32) -> f16 {
        f16::from_f32(x)
    }
}

/// `NewReduceSumLastNDImpl`'s order over the first `k` values of `e`: 64 partial sums (the
/// first 512 values block-reduced by 8 from `k = 512` on), then the 64-lane tree.
fn row_sum(e: &[f32], k: usize) -> f32 {
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

/// `exp(x - max)` as the chip computes it.
fn exp_sub(x: f32, max: f32) -> f32 {
    f64::from(x - max).exp() as f32
}

/// `GenericLogNDImpl`: `Ln` rounded once, then `Muls` by `SCALAR_NATURE_LOG_10` (`0.4342944819`,
/// which is `log10(e)` as `float`).
fn log10_chip(q: f32) -> f32 {
    (f64::from(q).ln() as f32) * std::f32::consts::LOG10_E
}

/// `LogSoftMax` of `rows` rows of `k` columns over the first `ori_k`: `(dst, per-row (max, sum))`.
fn log_reference<T: Fp>(src: &[T], rows: usize, k: usize, ori_k: usize) -> (Vec<T>, Vec<(f32, f32)>) {
    let (mut out, mut stats) = (vec![], vec![]);
    for r in 0..rows {
        let x: Vec<f32> = src[r * k..(r + 1) * k].iter().map(|v| v.to32()).collect();
        let max = x[..ori_k].iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let e: Vec<f32> = x.iter().map(|&v| exp_sub(v, max)).collect();
        let sum = row_sum(&e, ori_k);
        out.extend(e.iter().map(|&v| T::narrow(log10_chip(v / sum))));
        stats.push((max, sum));
    }
    (out, stats)
}

/// `rows` rows of `k` values in `[-12, 12)`, exact in `T`.
fn data<T: Fp>(n: usize, seed: u64) -> Vec<T> {
    let mut rng = Rng(seed);
    (0..n).map(|_| T::exact((rng.below(1 << 20) as f32 / (1 << 20) as f32) * 24.0 - 12.0)).collect()
}

fn sentinel<T: Fp>(n: usize) -> Vec<T> {
    (0..n).map(|i| T::exact(-1000.0 - (i % 7) as f32)).collect()
}

fn assert_normal_full(ctx: &str) {
    assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
    assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{ctx}");
}

// ---- LogSoftMax ------------------------------------------------------------------------------

/// `(m, ori_m, k, ori_k, tmp rows)`; `tmp rows` 0 = the max size.
fn log_check<T: Fp>(m: u32, ori_m: u32, k: u32, ori_k: u32, tmp_rows: u32, in_place: bool, seed: u64) {
    let ctx = format!(
        "LogSoftMax {} m={m} ori_m={ori_m} k={k} ori_k={ori_k} rows={tmp_rows} in_place={in_place}",
        T::DTYPE
    );
    let size = T::SIZE as u32;
    let per_blk = 32 / T::SIZE;
    let tmp_bytes = if tmp_rows == 0 {
        get_log_soft_max_max_tmp_size(&[m, k], size, false)
    } else {
        let per_row = if size == 2 { 16 + k + 64 } else { 8 + 64 };
        tmp_rows * per_row * 4
    };
    let n = (m * k) as usize;
    let rows = ori_m as usize;
    let src: Vec<T> = data(n, seed);
    let (want_rows, stats) = log_reference(&src, rows, k as usize, ori_k as usize);
    let mut want = want_rows;
    want.extend_from_slice(&(if in_place { src.clone() } else { sentinel(n) })[want.len()..]);
    let want_max: Vec<T> = stats.iter().flat_map(|&(mx, _)| vec![T::narrow(mx); per_blk]).collect();
    let want_sum: Vec<T> = stats.iter().flat_map(|&(_, s)| vec![T::narrow(s); per_blk]).collect();
    on(Soc::Ascend910B, || {
        let bytes = n * T::SIZE;
        let stat_bytes = (m as usize * 32).div_ceil(32) * 32;
        let u = ub(2 * bytes + 2 * stat_bytes + tmp_bytes as usize);
        let x = u.t::<T>(0, n);
        let y = if in_place { x.clone() } else { u.t::<T>(bytes, n) };
        let (sum, max) = (
            u.t::<T>(2 * bytes, m as usize * per_blk),
            u.t::<T>(2 * bytes + stat_bytes, m as usize * per_blk),
        );
        x.copy_from_slice(&src);
        if !in_place {
            y.copy_from_slice(&sentinel(n));
        }
        let tmp = u.t::<u8>(2 * bytes + 2 * stat_bytes, tmp_bytes as usize);
        // A tiling for another shape: the kernel does not read it.
        let tiling = log_soft_max_tiling_func(&[1, 64], 4, 1024);
        log_soft_max::<T, false>(
            &y,
            &sum,
            &max,
            &x,
            &tmp,
            &tiling,
            &SoftMaxShapeInfo::new(m, k, ori_m, ori_k),
        );
        assert_bits_ctx(&y.to_vec(), &want, &ctx);
        assert_bits_ctx(&max.to_vec()[..want_max.len()], &want_max, format!("max; {ctx}"));
        assert_bits_ctx(&sum.to_vec()[..want_sum.len()], &want_sum, format!("sum; {ctx}"));
        assert_normal_full(&ctx);
    });
}

fn log_sweep<T: Fp>(seed: u64) {
    let a = 32 / T::SIZE as u32;
    let up = |k: u32| k.div_ceil(a) * a;
    for (i, &(m, ok)) in [
        (3, 8),
        (5, 40),
        (1, 40),
        (4, 64),
        (7, 100),
        (9, 128),
        (2, 190),
        (3, 192),
        (6, 300),
        (3, 511),
        (2, 512),
        (5, 700),
        (2, 2100),
    ]
    .iter()
    .enumerate()
    {
        let k = up(ok.max(a));
        let s = seed + i as u64;
        log_check::<T>(m, m, k, ok, 0, false, s);
        // One row per round, and rounds of 2 rows with a tail.
        log_check::<T>(m, m, k, ok, 1, false, s + 100);
        log_check::<T>(m, m, k, ok, 2, true, s + 200);
    }
}

#[test]
fn log_soft_max_float() {
    log_sweep::<f32>(1);
}

#[test]
fn log_soft_max_half() {
    log_sweep::<f16>(2);
}

#[test]
fn log_soft_max_rows_past_ori_m_and_many_rounds() {
    // Rows past oriSrcM are not computed (the kernel tiles oriSrcM rows).
    log_check::<f32>(12, 9, 64, 64, 0, false, 3);
    log_check::<f16>(12, 10, 48, 40, 0, false, 4);
    // Rounds of 16 rows (the kernel rounds splitM down to a multiple of 8), a tail of 4.
    log_check::<f32>(20, 20, 32, 32, 18, false, 5);
    log_check::<f16>(20, 20, 32, 30, 18, false, 6);
    // More than 255 rows in one round.
    log_check::<f32>(300, 300, 8, 8, 0, false, 7);
}

#[test]
fn log_soft_max_example_shape() {
    // The vendor example's [128, 128] float with the minimum buffer: 128 rounds of one row.
    log_check::<f32>(128, 128, 128, 128, 1, false, 8);
}

#[test]
fn log_soft_max_host() {
    assert_eq!(get_log_soft_max_max_tmp_size(&[128, 128], 4, false), 128 * 200 * 4);
    assert_eq!(get_log_soft_max_min_tmp_size(&[2, 4, 128], 2, true), (16 + 128 + 64) * 4);
    let t = log_soft_max_tiling_func(&[64, 128], 4, get_log_soft_max_min_tmp_size(&[64, 128], 4, false));
    assert_eq!(t, soft_max_tiling_func(&[64, 128], 4, (8 + 128 + 64) * 4));
    assert_eq!((t.split_m, t.range_m, t.reduce_k, t.out_max_size), (1, 64, 8, 64 * 8));
    expect_panic(
        || {
            let _ = get_log_soft_max_max_tmp_size(&[4, 12], 4, false);
        },
        &["GetLogSoftMaxMaxTmpSize", "not 32-byte aligned"],
    );
    expect_panic(
        || {
            let _ = get_log_soft_max_min_tmp_size(&[], 4, false);
        },
        &["GetLogSoftMaxMinTmpSize"],
    );
    expect_panic(
        || {
            let _ = get_log_soft_max_max_tmp_size(&[4, 16], 3, false);
        },
        &["GetLogSoftMaxMaxTmpSize"],
    );
    expect_panic(
        || {
            let _ = log_soft_max_tiling_func(&[4, 16], 4, 0);
        },
        &["LogSoftMaxTilingFunc", "localWorkSpaceSize is 0"],
    );
}

#[test]
fn log_soft_max_errors() {
    let t = SoftMaxTiling::default();
    let run = |soc: Soc, m: u32, k: u32, ori_m: u32, ori_k: u32, tmp: usize, stat: usize| {
        on(soc, || {
            let u = ub(32768 + tmp);
            let (x, y) = (u.t::<f32>(0, 1024), u.t::<f32>(4096, 1024));
            let (s, mx) = (u.t::<f32>(8192, stat), u.t::<f32>(8192 + (stat * 4).div_ceil(32) * 32, stat));
            let info = SoftMaxShapeInfo::new(m, k, ori_m, ori_k);
            log_soft_max::<f32, false>(&y, &s, &mx, &x, &u.t::<u8>(32768, tmp), &t, &info);
        })
    };
    expect_panic(
        || run(Soc::Ascend310P, 4, 16, 4, 16, 1024, 64),
        &["LogSoftMax", "Ascend910B only", "Ascend310P"],
    );
    expect_panic(|| run(Soc::Ascend910B, 0, 16, 4, 16, 1024, 64), &["LogSoftMax", "srcM = 0"]);
    expect_panic(
        || run(Soc::Ascend910B, 4, 12, 4, 12, 1024, 64),
        &["LogSoftMax", "srcK = 12", "not 32-byte aligned"],
    );
    expect_panic(
        || run(Soc::Ascend910B, 4, 16, 4, 17, 1024, 64),
        &["LogSoftMax", "oriSrcK = 17", "[1, srcK = 16]"],
    );
    expect_panic(
        || run(Soc::Ascend910B, 4, 16, 5, 16, 1024, 64),
        &["LogSoftMax", "oriSrcM = 5", "[1, srcM = 4]"],
    );
    expect_panic(
        || run(Soc::Ascend910B, 4, 16, 4, 16, 256, 64),
        &["LogSoftMax", "sharedTmpBuffer has 256 bytes", "288"],
    );
    expect_panic(
        || run(Soc::Ascend910B, 4, 16, 4, 16, 1024, 24),
        &["LogSoftMax", "sum has 24 float elements", "32"],
    );
    expect_panic(
        || run(Soc::Ascend910B, 128, 16, 128, 16, 1024, 2048),
        &["LogSoftMax", "src has 1024 float elements", "2048"],
    );
    // Overlaps.
    expect_panic(
        || {
            on(Soc::Ascend910B, || {
                let u = ub(8192);
                let x = u.t::<f32>(0, 64);
                let (s, mx) = (u.t::<f32>(512, 32), u.t::<f32>(512, 32));
                let info = SoftMaxShapeInfo::new(4, 16, 4, 16);
                log_soft_max::<f32, false>(&x, &s, &mx, &x, &u.t::<u8>(1024, 1024), &t, &info);
            })
        },
        &["LogSoftMax", "sum", "max"],
    );
    expect_panic(
        || {
            on(Soc::Ascend910B, || {
                let u = ub(8192);
                let (x, y) = (u.t::<f32>(0, 64), u.t::<f32>(32, 64));
                let (s, mx) = (u.t::<f32>(512, 32), u.t::<f32>(640, 32));
                let info = SoftMaxShapeInfo::new(4, 16, 4, 16);
                log_soft_max::<f32, false>(&y, &s, &mx, &x, &u.t::<u8>(1024, 1024), &t, &info);
            })
        },
        &["LogSoftMax", "dst", "src"],
    );
    expect_panic(
        || {
            on(Soc::Ascend910B, || {
                let u = ub(4096);
                let x = u.t::<f32>(0, 1024);
                let info = SoftMaxShapeInfo::new(4, 16, 4, 16);
                let bad = LocalTensor::<u8>::new(TPosition::A1, 0, 1024);
                log_soft_max::<f32, false>(&x, &x, &x, &x, &bad, &t, &info);
            })
        },
        &["LogSoftMax", "sharedTmpBuffer is at position A1"],
    );
}

// ---- SimpleSoftMax ---------------------------------------------------------------------------

/// Statistics of `T2`: the row's value in each of the `per` copies the kernel reads.
#[derive(Clone, Copy, Debug)]
struct SimpleCase {
    m: u32,
    ori_m: u32,
    k: u32,
    /// Rows per round the buffer holds (0: the max size).
    tmp_rows: u32,
    other_tiling: bool,
    in_place: bool,
    stack: bool,
    basic: bool,
}

fn sc(m: u32, k: u32, tmp_rows: u32) -> SimpleCase {
    SimpleCase { m, ori_m: m, k, tmp_rows, other_tiling: false, in_place: false, stack: false, basic: false }
}

fn simple_check<T1: Fp, T2: Fp + SoftMaxStatElement<T1>>(c: SimpleCase, seed: u64) {
    let ctx = format!("SimpleSoftMax {}/{} {c:?}", T1::DTYPE, T2::DTYPE);
    let size = T1::SIZE as u32;
    let shape = [c.m, c.k];
    let tmp_bytes = if c.tmp_rows == 0 {
        get_soft_max_max_tmp_size(&shape, size, false)
    } else {
        c.tmp_rows * (32 / size + c.k + 64) * 4
    };
    // The host tiling with blocks of the statistics' type, so a row's copies are 32 bytes.
    let stat_size = T2::SIZE as u32;
    let tiling = if c.other_tiling {
        soft_max_tiling_func(&[1, c.k], size, tmp_bytes)
    } else {
        soft_max_tiling_func(&shape, stat_size, tmp_bytes)
    };
    let per = 32 / T2::SIZE;
    let n = (c.m * c.k) as usize;
    let src: Vec<T1> = data(n, seed);
    // The rows the kernel computes.
    let rows = if T1::DTYPE == DType::F32 {
        c.m as usize
    } else if c.other_tiling {
        c.ori_m as usize
    } else if c.basic {
        (tiling.range_m * tiling.split_m) as usize
    } else {
        (tiling.range_m * tiling.split_m + tiling.tail_m) as usize
    };
    let k = c.k as usize;
    let mut rng = Rng(seed ^ 0x55);
    // Per row: a max near the row's, a sum in [1, 9), exact in T2.
    let stats: Vec<(f32, f32)> = (0..c.m as usize)
        .map(|r| {
            let mx = src[r * k..(r + 1) * k].iter().map(|v| v.to32()).fold(f32::NEG_INFINITY, f32::max);
            let mx = T2::exact(mx + rng.below(8) as f32 * 0.25).to32();
            let s = T2::exact(1.0 + rng.below(64) as f32 / 8.0).to32();
            (mx, s)
        })
        .collect();
    let mut want: Vec<T1> = (0..rows)
        .flat_map(|r| {
            let (mx, s) = stats[r];
            src[r * k..(r + 1) * k]
                .iter()
                .map(move |&v| T1::narrow(exp_sub(v.to32(), mx) / s))
                .collect::<Vec<_>>()
        })
        .collect();
    want.extend_from_slice(&(if c.in_place { src.clone() } else { sentinel(n) })[want.len()..]);
    let max_v: Vec<T2> = stats.iter().flat_map(|&(mx, _)| vec![T2::exact(mx); per]).collect();
    let sum_v: Vec<T2> = stats.iter().flat_map(|&(_, s)| vec![T2::exact(s); per]).collect();
    on(Soc::Ascend910B, || {
        let bytes = n * T1::SIZE;
        let stat_bytes = c.m as usize * 32 + 256;
        let tmp_len = if c.stack { 0 } else { tmp_bytes as usize };
        let u = ub(2 * bytes + 2 * stat_bytes + tmp_len);
        let x = u.t::<T1>(0, n);
        let y = if c.in_place { x.clone() } else { u.t::<T1>(bytes, n) };
        let stat_n = stat_bytes / T2::SIZE;
        let (sum, max) = (u.t::<T2>(2 * bytes, stat_n), u.t::<T2>(2 * bytes + stat_bytes, stat_n));
        sum.copy_from_slice(&sum_v);
        max.copy_from_slice(&max_v);
        x.copy_from_slice(&src);
        if !c.in_place {
            y.copy_from_slice(&sentinel(n));
        }
        let info = SoftMaxShapeInfo::new(c.m, c.k, c.ori_m, c.k);
        let tmp = u.t::<u8>(2 * bytes + 2 * stat_bytes, tmp_len);
        match (c.stack, c.basic) {
            (false, false) => {
                simple_soft_max::<T1, T2, false, false>(&y, &sum, &max, &x, &tmp, &tiling, &info)
            }
            (false, true) => simple_soft_max::<T1, T2, false, true>(&y, &sum, &max, &x, &tmp, &tiling, &info),
            (true, false) => {
                simple_soft_max_stack::<T1, T2, false, false>(&y, &sum, &max, &x, &tiling, &info)
            }
            (true, true) => simple_soft_max_stack::<T1, T2, false, true>(&y, &sum, &max, &x, &tiling, &info),
        }
        assert_bits_ctx(&y.to_vec(), &want, &ctx);
        assert_normal_full(&ctx);
    });
}

fn simple_sweep<T1: Fp, T2: Fp + SoftMaxStatElement<T1>>(seed: u64) {
    let a = 32 / T1::SIZE as u32;
    for (i, &(m, k)) in
        [(3u32, 8u32), (5, 40), (4, 64), (7, 128), (2, 192), (6, 304), (3, 512), (2, 2112)].iter().enumerate()
    {
        let k = k.div_ceil(a).max(1) * a;
        let s = seed + i as u64;
        simple_check::<T1, T2>(sc(m, k, 0), s);
        simple_check::<T1, T2>(sc(m, k, 1), s + 10);
        simple_check::<T1, T2>(SimpleCase { in_place: true, ..sc(m, k, 2) }, s + 20);
        simple_check::<T1, T2>(SimpleCase { stack: true, ..sc(m, k, 0) }, s + 30);
    }
    // Rounds of 16 with a tail of 4; the tiling recomputed in the kernel for fewer rows.
    simple_check::<T1, T2>(sc(20, 32, 18), seed + 40);
    simple_check::<T1, T2>(SimpleCase { ori_m: 7, other_tiling: true, ..sc(9, 64, 3) }, seed + 41);
    simple_check::<T1, T2>(SimpleCase { other_tiling: true, ..sc(300, 16, 0) }, seed + 42);
    // The basic block: rounds of splitM rows (no tail round).
    simple_check::<T1, T2>(SimpleCase { basic: true, ..sc(16, 128, 0) }, seed + 50);
    simple_check::<T1, T2>(SimpleCase { basic: true, ..sc(32, 256, 8) }, seed + 51);
    simple_check::<T1, T2>(SimpleCase { basic: true, stack: true, ..sc(8, 1024, 0) }, seed + 52);
}

#[test]
fn simple_soft_max_float() {
    simple_sweep::<f32, f32>(100);
}

#[test]
fn simple_soft_max_half() {
    simple_sweep::<f16, f16>(200);
}

#[test]
fn simple_soft_max_half_float_stats() {
    simple_sweep::<f16, f32>(300);
}

#[test]
fn simple_soft_max_errors() {
    let tiling = soft_max_tiling_func(&[4, 16], 2, 4096);
    let run = |soc: Soc, info: SoftMaxShapeInfo, tmp: usize, stat: usize, t: SoftMaxTiling| {
        on(soc, || {
            let u = ub(8192 + tmp);
            let (x, y) = (u.t::<f16>(0, 512), u.t::<f16>(1024, 512));
            let (s, mx) = (u.t::<f16>(2048, stat), u.t::<f16>(4096, stat));
            simple_soft_max::<f16, f16, false, false>(&y, &s, &mx, &x, &u.t::<u8>(8192, tmp), &t, &info);
        })
    };
    let ok = SoftMaxShapeInfo::new(4, 16, 4, 16);
    expect_panic(
        || run(Soc::Ascend310P, ok, 4096, 64, tiling),
        &["SimpleSoftMax", "Ascend910B only", "Ascend310P"],
    );
    expect_panic(
        || run(Soc::Ascend910B, SoftMaxShapeInfo::new(4, 0, 4, 16), 4096, 64, tiling),
        &["SimpleSoftMax", "srcK = 0"],
    );
    expect_panic(
        || run(Soc::Ascend910B, ok, 4096, 40, tiling),
        &["SimpleSoftMax", "inSumTensor has 40 half elements", "64"],
    );
    expect_panic(
        || run(Soc::Ascend910B, ok, 256, 64, tiling),
        &["SimpleSoftMax", "sharedTmpBuffer has 256 bytes", "less than the"],
    );
    // A recomputed tiling with no room for a row.
    expect_panic(
        || run(Soc::Ascend910B, SoftMaxShapeInfo::new(8, 16, 8, 16), 256, 128, tiling),
        &["SimpleSoftMax", "sharedTmpBuffer has 256 bytes", "384", "recomputes"],
    );
    expect_panic(
        || run(Soc::Ascend910B, ok, 4096, 64, SoftMaxTiling { split_m: 0, ..tiling }),
        &["SimpleSoftMax", "splitM = 0"],
    );
    // The basic block's conditions.
    expect_panic(
        || {
            on(Soc::Ascend910B, || {
                let u = ub(65536);
                let x = u.t::<f32>(0, 8 * 96);
                let (s, mx) = (u.t::<f32>(8192, 64), u.t::<f32>(12288, 64));
                let t = soft_max_tiling_func(&[8, 96], 4, 65536);
                let info = SoftMaxShapeInfo::new(8, 96, 8, 96);
                simple_soft_max::<f32, f32, false, true>(&x, &s, &mx, &x, &u.t::<u8>(16384, 1024), &t, &info);
            })
        },
        &["SimpleSoftMax", "isBasicBlock = true", "srcK = 96"],
    );
    expect_panic(
        || {
            on(Soc::Ascend910B, || {
                let u = ub(65536);
                let x = u.t::<f32>(0, 4 * 128);
                let (s, mx) = (u.t::<f32>(8192, 64), u.t::<f32>(12288, 64));
                let t = soft_max_tiling_func(&[4, 128], 4, 65536);
                let info = SoftMaxShapeInfo::new(4, 128, 4, 128);
                simple_soft_max::<f32, f32, false, true>(&x, &s, &mx, &x, &u.t::<u8>(16384, 1024), &t, &info);
            })
        },
        &["SimpleSoftMax", "srcM a multiple of 8", "srcM = 4"],
    );
    // Statistics overlapping dst.
    expect_panic(
        || {
            on(Soc::Ascend910B, || {
                let u = ub(65536);
                let x = u.t::<f32>(0, 64);
                let (s, mx) = (u.t::<f32>(0, 32), u.t::<f32>(4096, 32));
                let t = soft_max_tiling_func(&[4, 16], 4, 4096);
                let info = SoftMaxShapeInfo::new(4, 16, 4, 16);
                simple_soft_max::<f32, f32, false, false>(
                    &x,
                    &s,
                    &mx,
                    &x,
                    &u.t::<u8>(16384, 1024),
                    &t,
                    &info,
                );
            })
        },
        &["SimpleSoftMax", "inSumTensor", "dstTensor"],
    );
}

// ---- SoftmaxGrad -----------------------------------------------------------------------------

/// `ReduceSumLastNDImpl`'s order over the first `k` values of `p`: per 64-value group the 8
/// block sums (8-value trees), added group by group, one 8-value tree; plus the 64-lane tree of
/// the tail.
fn grad_row_sum(p: &[f32], k: usize) -> f32 {
    let (split, tail) = (k / 64, k % 64);
    let block = |g: usize, j: usize| tree(p[64 * g + 8 * j..64 * g + 8 * j + 8].to_vec(), false);
    let aligned = (split > 0).then(|| {
        let mut acc: Vec<f32> = (0..8).map(|j| block(0, j)).collect();
        for g in 1..split {
            for (j, a) in acc.iter_mut().enumerate() {
                *a += block(g, j);
            }
        }
        tree(acc, false)
    });
    let tail_sum = (tail > 0).then(|| {
        let mut lanes = vec![0f32; 64];
        lanes[..tail].copy_from_slice(&p[64 * split..64 * split + tail]);
        tree(lanes, false)
    });
    match (aligned, tail_sum) {
        (Some(a), Some(t)) => a + t,
        (Some(a), None) => a,
        (None, Some(t)) => t,
        (None, None) => unreachable!(),
    }
}

#[derive(Clone, Copy, Debug)]
enum GradDst {
    Own,
    Src,
    Grad,
}

#[allow(clippy::too_many_arguments)]
fn grad_check<T: Fp>(
    m: u32,
    k: u32,
    ori_k: u32,
    tmp_rows: u32,
    front: bool,
    other: bool,
    stack: bool,
    at: GradDst,
    seed: u64,
) {
    grad_check_api::<T>(m, k, ori_k, tmp_rows, front, other, stack, at, None, seed);
}

/// `api_front`: `Some(isBasicBlock)` calls `SoftmaxGradFront` (with `front`).
#[allow(clippy::too_many_arguments)]
fn grad_check_api<T: Fp>(
    m: u32,
    k: u32,
    ori_k: u32,
    tmp_rows: u32,
    front: bool,
    other: bool,
    stack: bool,
    at: GradDst,
    api_front: Option<bool>,
    seed: u64,
) {
    let ctx = format!("SoftmaxGrad {} {api_front:?} m={m} k={k} ori_k={ori_k} rows={tmp_rows} front={front} other={other} stack={stack} {at:?}", T::DTYPE);
    let size = T::SIZE as u32;
    let per = 32 / T::SIZE;
    let tmp_bytes = if tmp_rows == 0 {
        get_soft_max_grad_max_tmp_size(&[m, k], size, front, false)
    } else {
        tmp_rows * get_soft_max_grad_min_tmp_size(&[m, k], size, front, false)
    };
    let tiling = if other {
        soft_max_grad_tiling_func(&[1, k], size, tmp_bytes, front)
    } else {
        soft_max_grad_tiling_func(&[m, k], size, tmp_bytes, front)
    };
    let n = (m * k) as usize;
    let (y, dy): (Vec<T>, Vec<T>) = (data::<T>(n, seed), data::<T>(n, seed + 7));
    // Softmax-like y in [0, 0.75), dy in [-12, 12).
    let y: Vec<T> =
        y.iter().map(|v| T::exact(((v.to32() + 12.0) / 32.0 * 1024.0).floor() / 1024.0)).collect();
    let k_ = k as usize;
    let mut want: Vec<T> = vec![];
    for r in 0..m as usize {
        let s: Vec<f32> = y[r * k_..(r + 1) * k_].iter().map(|v| v.to32()).collect();
        let g: Vec<f32> = dy[r * k_..(r + 1) * k_].iter().map(|v| v.to32()).collect();
        let p: Vec<f32> = s.iter().zip(&g).map(|(a, b)| a * b).collect();
        // The basic block's whole rounds: the 64-lane accumulator of the groups, its tree.
        let bb_rows = (tiling.range_m * tiling.split_m) as usize;
        let sum = if api_front == Some(true) && r < bb_rows {
            let mut acc = p[..64].to_vec();
            for c in 1..k_ / 64 {
                for (i, a) in acc.iter_mut().enumerate() {
                    *a += p[64 * c + i];
                }
            }
            tree(acc, false)
        } else {
            grad_row_sum(&p, ori_k as usize)
        };
        if front {
            want.extend(vec![T::narrow(sum); per]);
        } else {
            want.extend(s.iter().zip(&g).map(|(&a, &b)| T::narrow((b - sum) * a)));
        }
    }
    on(Soc::Ascend910B, || {
        let bytes = n * T::SIZE;
        let tmp_len = if stack { 0 } else { tmp_bytes as usize };
        let u = ub(3 * bytes + tmp_len + 64);
        let (ys, dys) = (u.t::<T>(0, n), u.t::<T>(bytes, n));
        ys.copy_from_slice(&y);
        dys.copy_from_slice(&dy);
        let dst = match at {
            GradDst::Own => u.t::<T>(2 * bytes, n),
            GradDst::Src => ys.clone(),
            GradDst::Grad => dys.clone(),
        };
        let info = SoftMaxShapeInfo::new(m, k, m, ori_k);
        let tmp = u.t::<u8>(3 * bytes, tmp_len);
        match (api_front, stack) {
            (None, true) => softmax_grad_stack::<T, false>(&dst, &dys, &ys, &tiling, front, &info),
            (None, false) => softmax_grad::<T, false>(&dst, &dys, &ys, &tmp, &tiling, front, &info),
            (Some(false), true) => softmax_grad_front_stack::<T, false>(&dst, &dys, &ys, &tiling, &info),
            (Some(false), false) => softmax_grad_front::<T, false>(&dst, &dys, &ys, &tmp, &tiling, &info),
            (Some(true), true) => softmax_grad_front_stack::<T, true>(&dst, &dys, &ys, &tiling, &info),
            (Some(true), false) => softmax_grad_front::<T, true>(&dst, &dys, &ys, &tmp, &tiling, &info),
        }
        assert_bits_ctx(&dst.to_vec()[..want.len()], &want, &ctx);
    });
}

fn grad_sweep<T: Fp>(seed: u64) {
    let a = 32 / T::SIZE as u32;
    for (i, &(m, ok)) in
        [(3u32, 8u32), (5, 40), (9, 64), (4, 100), (17, 128), (2, 200), (3, 512), (2, 700)].iter().enumerate()
    {
        let k = ok.div_ceil(a).max(1) * a;
        let s = seed + 10 * i as u64;
        for front in [false, true] {
            grad_check::<T>(m, k, ok, 0, front, false, false, GradDst::Own, s);
            grad_check::<T>(m, k, ok, 1, front, false, false, GradDst::Own, s + 1);
            grad_check::<T>(m, k, ok, 2, front, true, false, GradDst::Own, s + 2);
            grad_check::<T>(m, k, ok, 0, front, false, true, GradDst::Own, s + 3);
        }
        grad_check::<T>(m, k, ok, 2, false, false, false, GradDst::Src, s + 4);
        grad_check::<T>(m, k, ok, 0, false, false, false, GradDst::Grad, s + 5);
        grad_check::<T>(m, k, ok, 2, true, false, false, GradDst::Src, s + 6);
    }
    // Rounds of 16 rows (Brcb for 2 groups of 8) and a tail of 5 (the scalar broadcast).
    grad_check::<T>(21, 64, 64, 18, false, false, false, GradDst::Own, seed + 100);
    grad_check::<T>(21, 64, 60, 18, true, false, false, GradDst::Own, seed + 101);
}

fn front_sweep<T: Fp>(seed: u64) {
    let a = 32 / T::SIZE as u32;
    for (i, &(m, ok)) in [(3u32, 8u32), (9, 100), (4, 128), (2, 700)].iter().enumerate() {
        let k = ok.div_ceil(a).max(1) * a;
        let s = seed + 10 * i as u64;
        grad_check_api::<T>(m, k, ok, 0, true, false, false, GradDst::Own, Some(false), s);
        grad_check_api::<T>(m, k, ok, 1, true, true, true, GradDst::Own, Some(false), s + 1);
    }
    // The basic block: whole rounds of 8, 16 or all rows; k of 1, 2 and 8 groups of 64.
    for (i, &(m, k, rows, stack)) in
        [(8u32, 64u32, 0u32, false), (16, 128, 8, false), (16, 512, 8, true), (24, 256, 0, false)]
            .iter()
            .enumerate()
    {
        grad_check_api::<T>(
            m,
            k,
            k,
            rows,
            true,
            false,
            stack,
            GradDst::Own,
            Some(true),
            seed + 100 + i as u64,
        );
    }
}

#[test]
fn softmax_grad_front_both() {
    front_sweep::<f32>(600);
    front_sweep::<f16>(700);
}

#[test]
fn softmax_grad_front_errors() {
    let run = |m: u32, k: u32| {
        on(Soc::Ascend910B, || {
            let u = ub(65536);
            let (x, g, d) = (u.t::<f32>(0, 2048), u.t::<f32>(8192, 2048), u.t::<f32>(16384, 256));
            let t = soft_max_grad_tiling_func(&[m, k], 4, 16384, true);
            let info = SoftMaxShapeInfo::new(m, k, m, k);
            softmax_grad_front::<f32, true>(&d, &g, &x, &u.t::<u8>(32768, 16384), &t, &info);
        })
    };
    expect_panic(|| run(8, 96), &["SoftmaxGradFront", "isBasicBlock = true", "srcK = 96"]);
    expect_panic(|| run(4, 128), &["SoftmaxGradFront", "srcM a multiple of 8", "srcM = 4"]);
}

#[test]
fn softmax_grad_float() {
    grad_sweep::<f32>(400);
}

#[test]
fn softmax_grad_half() {
    grad_sweep::<f16>(500);
}

#[test]
fn softmax_grad_host_and_errors() {
    assert_eq!(get_soft_max_grad_max_tmp_size(&[4, 32], 2, true, false), 4 * (32 + 96 + 64) * 4);
    assert_eq!(get_soft_max_grad_max_tmp_size(&[4, 32], 4, false, false), 4 * (16 + 32 + 64) * 4);
    assert_eq!(get_soft_max_grad_min_tmp_size(&[4, 32], 4, true, false), (8 + 32 + 64) * 4);
    let t = soft_max_grad_tiling_func(&[32, 128], 4, 1 << 20, true);
    assert_eq!((t.split_m, t.range_m, t.tail_m), (32, 1, 0));
    // Basic-block shape: halved while splitM * k >= 16384.
    let t = soft_max_grad_tiling_func(&[64, 512], 4, 1 << 22, false);
    assert_eq!((t.split_m, t.range_m), (16, 4));
    expect_panic(
        || {
            let _ = soft_max_grad_tiling_func(&[4, 32], 4, 0, false);
        },
        &["SoftMaxGradTilingFunc", "localWorkSpaceSize is 0"],
    );
    expect_panic(
        || {
            let _ = get_soft_max_grad_min_tmp_size(&[4, 30], 4, false, false);
        },
        &["GetSoftMaxGradMinTmpSize", "not 32-byte aligned"],
    );
    let tiling = soft_max_grad_tiling_func(&[4, 16], 4, 4096, false);
    let run = |soc: Soc, info: SoftMaxShapeInfo, tmp: usize, t: SoftMaxTiling, front: bool| {
        on(soc, || {
            let u = ub(8192 + tmp);
            let (x, g, d) = (u.t::<f32>(0, 64), u.t::<f32>(1024, 64), u.t::<f32>(2048, 32));
            softmax_grad::<f32, false>(&d, &g, &x, &u.t::<u8>(8192, tmp), &t, front, &info);
        })
    };
    let ok = SoftMaxShapeInfo::new(4, 16, 4, 16);
    expect_panic(|| run(Soc::Ascend310P, ok, 4096, tiling, false), &["SoftmaxGrad", "Ascend910B only"]);
    expect_panic(
        || run(Soc::Ascend910B, SoftMaxShapeInfo::new(4, 16, 4, 0), 4096, tiling, false),
        &["SoftmaxGrad", "oriSrcK = 0"],
    );
    expect_panic(
        || run(Soc::Ascend910B, ok, 256, tiling, false),
        &["SoftmaxGrad", "sharedTmpBuffer has 256 bytes"],
    );
    expect_panic(
        || run(Soc::Ascend910B, SoftMaxShapeInfo::new(2, 16, 2, 16), 256, tiling, false),
        &["SoftmaxGrad", "holds 64 floats", "96", "recomputes"],
    );
    expect_panic(
        || run(Soc::Ascend910B, ok, 4096, tiling, false),
        &["SoftmaxGrad", "dstTensor has 32 float elements", "64"],
    );
    expect_panic(
        || run(Soc::Ascend910B, ok, 4096, SoftMaxTiling { reduce_k: 0, ..tiling }, true),
        &["SoftmaxGrad", "reduceK = 0"],
    );
    // dst overlapping src other than at its address.
    expect_panic(
        || {
            on(Soc::Ascend910B, || {
                let u = ub(16384);
                let (x, g) = (u.t::<f32>(0, 64), u.t::<f32>(1024, 64));
                softmax_grad::<f32, false>(
                    &u.t::<f32>(32, 64),
                    &g,
                    &x,
                    &u.t::<u8>(8192, 4096),
                    &tiling,
                    true,
                    &ok,
                );
            })
        },
        &["SoftmaxGrad", "dstTensor", "srcTensor"],
    );
}
