//! The advanced API's `SoftMax` (`adv/softmax.rs`), ND, without and with `sumTensor`/`maxTensor`
//! (`half`/`half`, `float`/`float`, `half` with `float` outputs), against a scalar reference that restates the vendor's `membase/v220` steps: `half` widened
//! to `float` exactly; the row maximum; `x - max` in `f32`; `exp` computed in `f64` and rounded
//! once to `f32` (the emulator's `Exp`); the row sum in the order of `NewReduceSumLastNDImpl`
//! (the 64-lane accumulator per `k` range, then the binary tree over 64 lanes); the quotient in
//! `f32`; the narrowing to `half` to nearest, ties away (`CAST_ROUND`). Bit for bit, for both
//! types, `k` below 64, in 64..128, 128..512 and from 512 on, tails in `k` (padding columns)
//! and in `m` (a tail round), several rounds through a small temporary buffer, the kernel-side
//! tiling recomputed for another shape, more than 255 rows, in place, `isReuseSource` and the
//! stack form, with the mask state afterwards; the outputs' `reduceK` copies per row (the
//! host tiling's block of the source type, the kernel's of the outputs' type); the basic block
//! (its own sum order for `k >= 512`, one block of the outputs' type per row, rounds of
//! `splitM` rows with `splitM` above and below `k / 64`). Then `AdjustSoftMaxRes`, the host
//! tiling numbers and the errors.

use ascend_core::prelude::*;

use crate::common::util;
use util::{assert_bits_ctx, expect_panic, f16_round_away, on, ub, Rng};

// ---- the reference -------------------------------------------------------------------------

trait Fp: SoftMaxElement + std::fmt::Debug {
    fn to32(self) -> f32;
    fn from_softmax(x: f32) -> Self;
    fn from32_exact(x: f32) -> Self;
}
impl Fp for f32 {
    fn to32(self) -> f32 {
        self
    }
    fn from_softmax(x: f32) -> f32 {
        x
    }
    fn from32_exact(x: f32) -> f32 {
        x
    }
}
impl Fp for f16 {
    fn to32(self) -> f32 {
        self.to_f32()
    }
    fn from_softmax(x: f32) -> f16 {
        f16_round_away(x)
    }
    fn from32_exact(x: f32) -> f16 {
        f16::from_f32(x)
    }
}

/// The binary tree over a power-of-two number of lanes, neighbours added level by level.
fn tree(xs: &mut [f32]) -> f32 {
    let mut n = xs.len();
    while n > 1 {
        for i in 0..n / 2 {
            xs[i] = xs[2 * i] + xs[2 * i + 1];
        }
        n /= 2;
    }
    xs[0]
}

/// `NewReduceSumLastNDImpl`'s order over the first `k` values of `e`.
/// With `basic` (the basic block), `k >= 512` takes the `128 <= k < 512` order.
fn row_sum(e: &[f32], k: usize, basic: bool) -> f32 {
    let mut acc = [0f32; 64];
    if k < 64 {
        acc[..k].copy_from_slice(&e[..k]);
        return tree(&mut acc);
    }
    let (groups, tail) = (k / 64, k % 64);
    if k >= 512 && !basic {
        for (j, a) in acc.iter_mut().enumerate() {
            let mut b = [0f32; 8];
            b.copy_from_slice(&e[8 * j..8 * j + 8]);
            *a = tree(&mut b);
        }
        // The vendor's Add(acc, row, acc): the same sum as acc + row (addition commutes).
        for c in 8..groups {
            for i in 0..64 {
                acc[i] += e[64 * c + i];
            }
        }
    } else if k >= 128 {
        for i in 0..64 {
            acc[i] = e[i] + e[64 + i];
        }
        for c in 2..groups {
            for i in 0..64 {
                acc[i] += e[64 * c + i];
            }
        }
    } else {
        acc.copy_from_slice(&e[..64]);
    }
    for i in 0..tail {
        acc[i] += e[64 * groups + i];
    }
    tree(&mut acc)
}

/// Softmax of `rows` rows of `k` stored columns, reduced over the first `ori_k`; also the
/// exponentials (what `isReuseSource` leaves in a float source).
fn reference<T: Fp>(src: &[T], rows: usize, k: usize, ori_k: usize) -> (Vec<T>, Vec<f32>) {
    let (out, exps, _) = reference_stats(src, rows, k, ori_k, false);
    (out, exps)
}

/// [`reference`] with each row's `(max, sum)` in float.
#[allow(clippy::type_complexity)]
fn reference_stats<T: Fp>(
    src: &[T],
    rows: usize,
    k: usize,
    ori_k: usize,
    basic: bool,
) -> (Vec<T>, Vec<f32>, Vec<(f32, f32)>) {
    let mut out = Vec::with_capacity(rows * k);
    let mut exps = Vec::with_capacity(rows * k);
    let mut stats = Vec::with_capacity(rows);
    for r in 0..rows {
        let x: Vec<f32> = src[r * k..(r + 1) * k].iter().map(|v| v.to32()).collect();
        let max = x[..ori_k].iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let e: Vec<f32> = x.iter().map(|&v| (f64::from(v - max).exp()) as f32).collect();
        let sum = row_sum(&e, ori_k, basic);
        out.extend(e.iter().map(|&v| T::from_softmax(v / sum)));
        exps.extend(e);
        stats.push((max, sum));
    }
    (out, exps, stats)
}

// ---- the cases -----------------------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
enum Tmp {
    /// `GetSoftMaxMaxTmpSize`: one round.
    Max,
    /// `GetSoftMaxMinTmpSize`: one row per round.
    Min,
    /// Room for this many rows per round (by the host formula).
    Rows(u32),
}

#[derive(Clone, Copy, Debug)]
struct Case {
    m: u32,
    ori_m: u32,
    k: u32,
    ori_k: u32,
    tmp: Tmp,
    /// The host tiling made for another shape: the kernel recomputes it.
    other_tiling: bool,
    in_place: bool,
    reuse: bool,
    stack: bool,
    /// `isBasicBlock = true`.
    basic: bool,
}

fn case(m: u32, k: u32, ori_k: u32, tmp: Tmp) -> Case {
    Case {
        m,
        ori_m: m,
        k,
        ori_k,
        tmp,
        other_tiling: false,
        in_place: false,
        reuse: false,
        stack: false,
        basic: false,
    }
}

fn check<T: Fp>(c: Case, seed: u64) {
    let ctx = format!("{} {c:?}", T::DTYPE);
    let size = T::SIZE as u32;
    let shape = [c.m, c.k];
    let per_row = 32 / size + c.k + 64;
    let tmp_bytes = match c.tmp {
        Tmp::Max => get_soft_max_max_tmp_size(&shape, size, false),
        Tmp::Min => get_soft_max_min_tmp_size(&shape, size, false),
        Tmp::Rows(r) => r * per_row * 4,
    };
    let tiling = if c.other_tiling {
        soft_max_tiling_func(&[1, c.k + 32 / size], size, tmp_bytes)
    } else {
        soft_max_tiling_func(&shape, size, tmp_bytes)
    };
    let n = (c.m * c.k) as usize;
    let mut rng = Rng(seed);
    let src: Vec<T> = (0..n)
        .map(|_| T::from32_exact((rng.below(1 << 20) as f32 / (1 << 20) as f32) * 24.0 - 12.0))
        .collect();
    let sentinel: Vec<T> = (0..n).map(|i| T::from32_exact(-1000.0 - i as f32 % 7.0)).collect();
    let rows = if c.other_tiling { c.ori_m } else { c.m } as usize;
    let (want_rows, exps) = reference(&src, rows, c.k as usize, c.ori_k as usize);
    let mut want = want_rows;
    let tail_from = if c.in_place { &src } else { &sentinel };
    want.extend_from_slice(&tail_from[want.len()..]);
    on(Soc::Ascend910B, || {
        let bytes = n * T::SIZE;
        let total = if c.in_place { bytes } else { 2 * bytes };
        let tmp_len = if c.stack { 0 } else { tmp_bytes as usize };
        let u = ub(total + tmp_len);
        let x = u.t::<T>(0, n);
        let y = if c.in_place { x.clone() } else { u.t::<T>(bytes, n) };
        x.copy_from_slice(&src);
        if !c.in_place {
            y.copy_from_slice(&sentinel);
        }
        let info = SoftMaxShapeInfo::new(c.m, c.k, c.ori_m, c.ori_k);
        match (c.stack, c.reuse) {
            (true, _) => soft_max_stack::<T, false, false>(&y, &x, &tiling, &info),
            (false, false) => soft_max::<T, false, false>(&y, &x, &u.t::<u8>(total, tmp_len), &tiling, &info),
            (false, true) => soft_max::<T, true, false>(&y, &x, &u.t::<u8>(total, tmp_len), &tiling, &info),
        }
        assert_bits_ctx(&y.to_vec(), &want, &ctx);
        if c.reuse && T::DTYPE == DType::F32 && !c.in_place {
            let got = x.to_vec();
            let want_src: Vec<T> =
                exps.iter().map(|&e| T::from32_exact(e)).chain(src[exps.len()..].iter().copied()).collect();
            assert_bits_ctx(&got, &want_src, format!("source after isReuseSource; {ctx}"));
        }
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
        assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{ctx}");
    });
}

/// `(m, k, ori_k)` per type over every reduction branch, with tails in `k`.
fn shapes(half: bool) -> Vec<(u32, u32, u32)> {
    let a = if half { 16 } else { 8 };
    let up = |k: u32| k.div_ceil(a) * a;
    [
        (3, 8),
        (5, 40),
        (1, 40),
        (4, 64),
        (1, 64),
        (7, 100),
        (2, 127),
        (9, 128),
        (1, 200),
        (6, 300),
        (3, 511),
        (2, 512),
        (1, 520),
        (5, 700),
        (1, 1000),
        (2, 2100),
    ]
    .into_iter()
    .map(|(m, ok)| (m, up(ok.max(a)), ok))
    .collect()
}

fn sweep<T: Fp>(seed: u64) {
    let half = T::DTYPE == DType::F16;
    for (i, (m, k, ori_k)) in shapes(half).into_iter().enumerate() {
        let s = seed + 10 * i as u64;
        check::<T>(case(m, k, ori_k, Tmp::Max), s);
        check::<T>(case(m, k, ori_k, Tmp::Min), s + 1);
        if m > 2 {
            // Rounds of two rows and a tail round of one (or none).
            check::<T>(case(m, k, ori_k, Tmp::Rows(2)), s + 2);
        }
    }
}

#[test]
fn every_reduction_branch_float() {
    sweep::<f32>(1);
}

#[test]
fn every_reduction_branch_half() {
    sweep::<f16>(1000);
}

#[test]
fn rounds_of_eight_and_a_tail() {
    // splitM above 8 is rounded down to a multiple of 8: rounds of 8 rows and a tail of 5.
    check::<f32>(case(21, 96, 96, Tmp::Rows(12)), 7);
    check::<f16>(case(21, 96, 90, Tmp::Rows(12)), 8);
    check::<f32>(case(21, 600, 600, Tmp::Rows(9)), 9);
}

#[test]
fn tiling_recomputed_for_another_shape() {
    for (m, k, ori_k, ori_m) in [(6u32, 40u32, 33u32, 5u32), (10, 136, 130, 10), (4, 528, 520, 3)] {
        let c = Case { ori_m, other_tiling: true, ..case(m, k, ori_k, Tmp::Rows(3)) };
        check::<f32>(c, 20 + u64::from(k));
        let kh = k.div_ceil(16) * 16;
        check::<f16>(Case { k: kh, ..c }, 30 + u64::from(k));
    }
}

#[test]
fn more_than_255_rows() {
    // WholeReduce and Copy split at 255 repeats; the float tiling recomputed in the kernel
    // needs 72 floats per row only.
    let c = Case { other_tiling: true, in_place: true, ..case(300, 8, 8, Tmp::Rows(100)) };
    check::<f32>(c, 40);
    let c = Case { other_tiling: true, in_place: true, ..case(260, 72, 70, Tmp::Rows(120)) };
    check::<f32>(c, 41);
}

#[test]
fn in_place_reuse_and_stack() {
    for (m, k, ori_k) in [(5u32, 40u32, 40u32), (3, 200, 190), (2, 640, 640)] {
        let c = case(m, k, ori_k, Tmp::Rows(2));
        check::<f32>(Case { in_place: true, ..c }, 50);
        check::<f32>(Case { reuse: true, ..c }, 51);
        check::<f32>(Case { reuse: true, in_place: true, ..c }, 52);
        check::<f32>(Case { stack: true, ..c }, 53);
        let kh = k.div_ceil(16) * 16;
        check::<f16>(Case { in_place: true, k: kh, ..c }, 54);
        check::<f16>(Case { stack: true, k: kh, ..c }, 55);
    }
}

#[test]
fn padding_rows_are_computed_too() {
    // The host tiling covers srcM rows; oriSrcM < srcM rows are padding, computed as rows.
    let c = Case { ori_m: 3, ..case(5, 64, 50, Tmp::Max) };
    check::<f32>(c, 60);
}

// ---- with sumTensor and maxTensor ---------------------------------------------------------

/// The form with outputs for `T1` with outputs of `T2`: dst in place or apart, outputs with
/// `reduce_k` copies per row, bit for bit; the stack form when `c.stack`.
fn check_ext<T1: Fp, T2: Fp + SoftMaxStatElement<T1>>(c: Case, seed: u64) {
    let ctx = format!("{} with {} outputs, {c:?}", T1::DTYPE, T2::DTYPE);
    let size = T1::SIZE as u32;
    let shape = [c.m, c.k];
    let tmp_bytes = match c.tmp {
        Tmp::Max => get_soft_max_max_tmp_size(&shape, size, false),
        Tmp::Min => get_soft_max_min_tmp_size(&shape, size, false),
        Tmp::Rows(r) => r * (32 / size + c.k + 64) * 4,
    };
    let tiling = if c.other_tiling {
        soft_max_tiling_func(&[1, c.k + 32 / size], size, tmp_bytes)
    } else {
        soft_max_tiling_func(&shape, size, tmp_bytes)
    };
    // The host tiling's block is the source's; the kernel's, the outputs'.
    let reduce_k = if c.other_tiling { 32 / T2::SIZE } else { 32 / T1::SIZE };
    let n = (c.m * c.k) as usize;
    let mut rng = Rng(seed);
    let src: Vec<T1> = (0..n)
        .map(|_| T1::from32_exact((rng.below(1 << 20) as f32 / (1 << 20) as f32) * 24.0 - 12.0))
        .collect();
    let rows = if c.other_tiling { c.ori_m } else { c.m } as usize;
    let (mut want, _, stats) = reference_stats(&src, rows, c.k as usize, c.ori_k as usize, c.basic);
    let sentinel = T1::from32_exact(-77.0);
    want.resize(n, if c.in_place { T1::from32_exact(0.0) } else { sentinel });
    if c.in_place {
        want[rows * c.k as usize..].copy_from_slice(&src[rows * c.k as usize..]);
    }
    let stat_len = c.m as usize * 16;
    let s_sentinel = T2::from32_exact(-5.0);
    let mut want_max = vec![s_sentinel; stat_len];
    let mut want_sum = vec![s_sentinel; stat_len];
    // The basic block writes one block of T2 per row, at rounds reduceSize apart.
    let (width, split_m, round) = match (c.basic, c.other_tiling) {
        (true, false) => (32 / T2::SIZE, tiling.split_m as usize, tiling.reduce_size as usize),
        _ => (reduce_k, 1, reduce_k),
    };
    for (r, &(mx, sm)) in stats.iter().enumerate() {
        let at = r / split_m * round + r % split_m * width;
        for j in 0..width {
            want_max[at + j] = T2::from_softmax(mx);
            want_sum[at + j] = T2::from_softmax(sm);
        }
    }
    on(Soc::Ascend910B, || {
        let bytes = n * T1::SIZE;
        let data = if c.in_place { bytes } else { 2 * bytes };
        let stat_bytes = stat_len * T2::SIZE;
        let tmp_len = if c.stack { 0 } else { tmp_bytes as usize };
        let u = ub(data + 2 * stat_bytes + tmp_len);
        let x = u.t::<T1>(0, n);
        let y = if c.in_place { x.clone() } else { u.t::<T1>(bytes, n) };
        let (sum, max) = (u.t::<T2>(data, stat_len), u.t::<T2>(data + stat_bytes, stat_len));
        x.copy_from_slice(&src);
        if !c.in_place {
            y.copy_from_slice(&vec![sentinel; n]);
        }
        sum.copy_from_slice(&vec![s_sentinel; stat_len]);
        max.copy_from_slice(&vec![s_sentinel; stat_len]);
        let info = SoftMaxShapeInfo::new(c.m, c.k, c.ori_m, c.ori_k);
        if c.basic {
            let t = u.t::<u8>(data + 2 * stat_bytes, tmp_len);
            soft_max_with_sum_max::<T1, T2, false, true>(&y, &sum, &max, &x, &t, &tiling, &info);
        } else if c.stack {
            soft_max_with_sum_max_stack::<T1, T2, false, false>(&y, &sum, &max, &x, &tiling, &info);
        } else {
            let t = u.t::<u8>(data + 2 * stat_bytes, tmp_len);
            soft_max_with_sum_max::<T1, T2, false, false>(&y, &sum, &max, &x, &t, &tiling, &info);
        }
        assert_bits_ctx(&y.to_vec(), &want, &ctx);
        assert_bits_ctx(&max.to_vec(), &want_max, format!("maxTensor; {ctx}"));
        assert_bits_ctx(&sum.to_vec(), &want_sum, format!("sumTensor; {ctx}"));
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
        assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{ctx}");
    });
}

fn sweep_ext<T1: Fp, T2: Fp + SoftMaxStatElement<T1>>(seed: u64) {
    for (i, (m, k, ori_k)) in shapes(T1::DTYPE == DType::F16).into_iter().enumerate() {
        let s = seed + 10 * i as u64;
        check_ext::<T1, T2>(case(m, k, ori_k, Tmp::Max), s);
        if m > 2 {
            check_ext::<T1, T2>(Case { in_place: true, ..case(m, k, ori_k, Tmp::Rows(2)) }, s + 1);
        }
        check_ext::<T1, T2>(
            Case { other_tiling: true, ori_m: m.div_ceil(2), ..case(m, k, ori_k, Tmp::Rows(2)) },
            s + 2,
        );
    }
}

#[test]
fn with_outputs_float() {
    sweep_ext::<f32, f32>(2000);
    check_ext::<f32, f32>(Case { stack: true, ..case(5, 136, 130, Tmp::Max) }, 2100);
}

#[test]
fn with_outputs_half() {
    sweep_ext::<f16, f16>(3000);
    check_ext::<f16, f16>(Case { stack: true, ..case(5, 144, 130, Tmp::Max) }, 3100);
}

#[test]
fn with_float_outputs_of_half() {
    sweep_ext::<f16, f32>(4000);
    check_ext::<f16, f32>(Case { stack: true, ..case(3, 64, 64, Tmp::Max) }, 4100);
}

#[test]
fn basic_block() {
    // (m, k, rows of temporary buffer): k = 64 (one BlockReduce), splitM above and below
    // k / 64, k >= 512 (the basic block's own order), several rounds.
    for (m, k, rows) in
        [(8u32, 64u32, 8u32), (16, 128, 8), (16, 320, 16), (8, 576, 8), (16, 1024, 8), (24, 192, 100)]
    {
        let c = Case { basic: true, ..case(m, k, k, Tmp::Rows(rows)) };
        check_ext::<f32, f32>(c, 5000 + u64::from(k));
        check_ext::<f32, f32>(Case { in_place: true, ..c }, 5001 + u64::from(k));
        if k >= 128 {
            check_ext::<f16, f16>(c, 5002 + u64::from(k));
            check_ext::<f16, f32>(c, 5003 + u64::from(k));
        }
    }
    // The kernel's tiling for another shape, with the basic block's splitM (8 of 40 rows).
    let c = Case { basic: true, other_tiling: true, ..case(40, 128, 128, Tmp::Rows(36)) };
    check_ext::<f32, f32>(c, 5100);
    check_ext::<f16, f16>(c, 5101);
}

#[test]
fn basic_block_ignored_without_outputs() {
    // SoftMaxNDImpl without outputs does not branch on isBasicBlock; only the kernel's tiling
    // for another shape takes it.
    on(Soc::Ascend910B, || {
        let u = ub(2 * 40 * 128 * 4 + 4096);
        let (x, y, t) =
            (u.t::<f32>(0, 40 * 128), u.t::<f32>(40 * 128 * 4, 40 * 128), u.t::<u8>(2 * 40 * 128 * 4, 4096));
        let mut rng = Rng(77);
        let src: Vec<f32> = (0..40 * 128).map(|_| rng.below(1000) as f32 / 100.0).collect();
        x.copy_from_slice(&src);
        let tiling = soft_max_tiling_func(&[1, 136], 4, 4096);
        let info = SoftMaxShapeInfo::new(40, 128, 40, 128);
        soft_max::<f32, false, true>(&y, &x, &t, &tiling, &info);
        let (want, _) = reference(&src, 40, 128, 128);
        assert_bits_ctx(&y.to_vec(), &want, "isBasicBlock without outputs");
    });
}

#[test]
fn basic_block_errors() {
    on(Soc::Ascend910B, || {
        let u = ub(4 * 8192);
        let (x, y) = (u.t::<f32>(0, 2048), u.t::<f32>(8192, 2048));
        let (sum, max) = (u.t::<f32>(16384, 512), u.t::<f32>(16384 + 2048, 512));
        let t = u.t::<u8>(16384 + 4096, 8192);
        let call = |m: u32, k: u32, tmp: u32| {
            let tiling = soft_max_tiling_func(&[m, k], 4, tmp);
            let info = SoftMaxShapeInfo::new(m, k, m, k);
            soft_max_with_sum_max::<f32, f32, false, true>(&y, &sum, &max, &x, &t, &tiling, &info);
        };
        expect_panic(|| call(8, 40, 8192), &["isBasicBlock = true", "srcK = 40", "[64, 2048)"]);
        expect_panic(|| call(6, 64, 8192), &["srcM a multiple of 8", "srcM = 6"]);
        expect_panic(|| call(24, 64, 5 * (8 + 64 + 64) * 4), &["without a tail round", "tailM = 4"]);
    });
    on(Soc::Ascend910B, || {
        let u = ub(4 * 8192);
        let (x, y) = (u.t::<f16>(0, 2048), u.t::<f16>(8192, 2048));
        let (sum, max) = (u.t::<f16>(16384, 512), u.t::<f16>(16384 + 2048, 512));
        let t = u.t::<u8>(16384 + 4096, 8192);
        let tiling = soft_max_tiling_func(&[8, 64], 2, 8192);
        let info = SoftMaxShapeInfo::new(8, 64, 8, 64);
        expect_panic(
            || soft_max_with_sum_max::<f16, f16, false, true>(&y, &sum, &max, &x, &t, &tiling, &info),
            &["[128, 2048) for half", "srcK = 64"],
        );
    });
}

#[test]
fn with_outputs_errors() {
    on(Soc::Ascend910B, || {
        let u = ub(4096 + 2 * 256 + 2048);
        let (x, y) = (u.t::<f32>(0, 512), u.t::<f32>(2048, 512));
        let (sum, max) = (u.t::<f32>(4096, 64), u.t::<f32>(4096 + 256, 64));
        let t = u.t::<u8>(4096 + 512, 2048);
        let tiling = soft_max_tiling_func(&[8, 64], 4, 2048);
        let info = SoftMaxShapeInfo::new(8, 64, 8, 64);
        let short = sum.view_len(0, 32);
        expect_panic(
            || soft_max_with_sum_max::<f32, f32, false, false>(&y, &short, &max, &x, &t, &tiling, &info),
            &["sumTensor has 32 float elements", "8 rows of reduceK = 8 (64)"],
        );
        expect_panic(
            || soft_max_with_sum_max::<f32, f32, false, false>(&y, &sum, &sum, &x, &t, &tiling, &info),
            &["sumTensor UB bytes", "overlap maxTensor"],
        );
    });
}

// ---- AdjustSoftMaxRes ----------------------------------------------------------------------

/// Rows `hits` of `m` get `from`'s value in `max` (at the step of `STEP`), the others random;
/// the rows hit become `to`, the others stay.
fn check_adjust<T1: Fp + AdjustSoftMaxResElement, T2: Fp, const STEP: u8>(
    m: u32,
    k: u32,
    from: f32,
    hits: &[usize],
) {
    let ctx = format!("{} results, {} maxima, step mode {STEP}, [{m}, {k}]", T1::DTYPE, T2::DTYPE);
    let (mu, ku) = (m as usize, k as usize);
    let step = if STEP != 0 { 1 } else { 32 / T2::SIZE };
    let mut rng = Rng(u64::from(m * k));
    let res: Vec<T1> = (0..mu * ku).map(|_| T1::from32_exact(rng.below(1000) as f32 / 1000.0)).collect();
    let mut max = vec![T2::from32_exact(0.5); mu * step];
    for &r in hits {
        max[r * step] = T2::from32_exact(from);
    }
    let from_bits = T2::from32_exact(from).to_bits_u64() as u32;
    let to = T1::from32_exact(-3.0);
    let mut want = res.clone();
    for &r in hits {
        want[r * ku..(r + 1) * ku].fill(to);
    }
    on(Soc::Ascend910B, || {
        let bytes = mu * ku * T1::SIZE;
        let u = ub(bytes + (mu * step * T2::SIZE).div_ceil(32) * 32);
        let (x, mx) = (u.t::<T1>(0, mu * ku), u.t::<T2>(bytes, mu * step));
        x.copy_from_slice(&res);
        mx.copy_from_slice(&max);
        let info = SoftMaxShapeInfo::new(m, k, m, k);
        let found = adjust_soft_max_res::<T1, T2, STEP>(&x, &mx, from_bits, to, &info);
        assert_eq!(found, !hits.is_empty(), "{ctx}");
        assert_bits_ctx(&x.to_vec(), &want, &ctx);
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
        assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{ctx}");
    });
}

#[test]
fn adjust_soft_max_res_rows() {
    check_adjust::<f32, f32, 0>(6, 40, f32::MIN, &[1, 5]);
    check_adjust::<f32, f32, 1>(6, 200, 1.0, &[0]);
    check_adjust::<f32, f32, 0>(4, 8, 1.0, &[]);
    check_adjust::<f16, f16, 0>(5, 144, -65504.0, &[2, 3]);
    check_adjust::<f16, f32, 1>(3, 16, 2.0, &[2]);
    check_adjust::<f32, f16, 0>(3, 72, 2.0, &[0, 1, 2]);
}

#[test]
fn adjust_soft_max_res_errors() {
    on(Soc::Ascend310P, || {
        let u = ub(1024);
        let (x, m) = (u.t::<f32>(0, 64), u.t::<f32>(512, 64));
        expect_panic(
            || {
                let _ =
                    adjust_soft_max_res::<f32, f32, 0>(&x, &m, 0, 0.0, &SoftMaxShapeInfo::new(8, 8, 8, 8));
            },
            &["AdjustSoftMaxRes", "Ascend310P"],
        );
    });
    on(Soc::Ascend910B, || {
        let u = ub(1024);
        let (x, m) = (u.t::<f32>(0, 64), u.t::<f32>(512, 64));
        let f = |info: SoftMaxShapeInfo, max_len: usize| {
            let _ = adjust_soft_max_res::<f32, f32, 0>(&x, &m.view_len(0, max_len), 0, 0.0, &info);
        };
        expect_panic(|| f(SoftMaxShapeInfo::new(2, 12, 2, 12), 64), &["srcK = 12", "32-byte"]);
        expect_panic(
            || f(SoftMaxShapeInfo::new(9, 8, 9, 8), 64),
            &["9 rows of srcK = 8 (72 elements)", "softMaxRes"],
        );
        expect_panic(
            || f(SoftMaxShapeInfo::new(4, 16, 4, 16), 16),
            &["maxTensor has 16 float elements", "element 24"],
        );
    });
}

// ---- host tiling ---------------------------------------------------------------------------

#[test]
fn host_tiling_numbers() {
    // The vendor example: [32, 32] float with GetSoftMaxMinTmpSize of one row.
    assert_eq!(get_soft_max_min_tmp_size(&[1, 32], 4, false), 416);
    let t = soft_max_tiling_func(&[1, 32], 4, 416);
    assert_eq!(
        t,
        SoftMaxTiling {
            src_m: 1,
            src_k: 32,
            src_size: 32,
            out_max_m: 1,
            out_max_k: 8,
            out_max_size: 8,
            split_m: 1,
            split_k: 32,
            split_size: 32,
            reduce_m: 1,
            reduce_k: 8,
            reduce_size: 8,
            range_m: 1,
            tail_m: 0,
            tail_split_size: 0,
            tail_reduce_size: 0,
        }
    );
    // Above 8 and below m: a multiple of 8.
    let t = soft_max_tiling_func(&[21, 96], 4, 12 * (8 + 96 + 64) * 4);
    assert_eq!((t.split_m, t.range_m, t.tail_m, t.tail_split_size, t.tail_reduce_size), (8, 2, 5, 480, 40));
    // A basic-block shape: the largest multiple of 8 dividing m, halved while splitM * k >= 16384.
    let t = soft_max_tiling_func(&[48, 512], 4, 40 * (8 + 512 + 64) * 4);
    assert_eq!((t.split_m, t.range_m, t.tail_m), (24, 2, 0));
    let t = soft_max_tiling_func(&[64, 1024], 2, 64 * (16 + 1024 + 64) * 4);
    assert_eq!((t.split_m, t.reduce_k, t.range_m), (8, 16, 8));
    // Too small for one row: splitM 0 (the vendor leaves rangeM 0).
    let t = soft_max_tiling_func(&[4, 64], 4, 100);
    assert_eq!((t.split_m, t.range_m, t.tail_m), (0, 0, 0));
    assert_eq!(get_soft_max_max_tmp_size(&[2, 3, 16], 2, true), 6 * (16 + 16 + 64) * 4);
}

#[test]
fn host_errors() {
    expect_panic(
        || {
            let _ = get_soft_max_max_tmp_size(&[4, 12], 2, false);
        },
        &["GetSoftMaxMaxTmpSize", "32-byte"],
    );
    expect_panic(
        || {
            let _ = get_soft_max_min_tmp_size(&[4, 16], 8, false);
        },
        &["GetSoftMaxMinTmpSize", "typeSize = 8"],
    );
    expect_panic(
        || {
            let _ = soft_max_tiling_func(&[0, 16], 4, 1024);
        },
        &["SoftMaxTilingFunc", "greater than 0"],
    );
    expect_panic(
        || {
            let _ = soft_max_tiling_func(&[4, 16], 4, 0);
        },
        &["SoftMaxTilingFunc", "localWorkSpaceSize"],
    );
}

// ---- kernel errors -------------------------------------------------------------------------

fn with<R>(soc: Soc, f: impl FnOnce(&LocalTensor<f32>, &LocalTensor<f32>, &LocalTensor<u8>) -> R) -> R {
    on(soc, || {
        let u = ub(3 * 2048);
        f(&u.t::<f32>(0, 512), &u.t::<f32>(2048, 512), &u.t::<u8>(4096, 2048))
    })
}

#[test]
fn kernel_errors() {
    let tiling = soft_max_tiling_func(&[8, 64], 4, 2048);
    let info = SoftMaxShapeInfo::new(8, 64, 8, 64);
    for soc in [Soc::Ascend310P, Soc::Ascend310B, Soc::Ascend910] {
        with(soc, |s, d, t| {
            let msg = format!("{soc}");
            expect_panic(
                || soft_max::<f32, false, false>(d, s, t, &tiling, &info),
                &["SoftMax", &msg, "Ascend910B"],
            );
        });
    }
    with(Soc::Ascend910B, |s, d, t| {
        let bad = SoftMaxShapeInfo::new(8, 60, 8, 60);
        expect_panic(|| soft_max::<f32, false, false>(d, s, t, &tiling, &bad), &["srcK = 60", "32-byte"]);
        let bad = SoftMaxShapeInfo::new(0, 64, 8, 64);
        expect_panic(|| soft_max::<f32, false, false>(d, s, t, &tiling, &bad), &["srcM = 0", "ShapeInfo"]);
        let bad = SoftMaxShapeInfo::new(8, 64, 8, 72);
        expect_panic(|| soft_max::<f32, false, false>(d, s, t, &tiling, &bad), &["oriSrcK = 72"]);
        // The tiling's rounds need more than the buffer lent.
        let big = soft_max_tiling_func(&[8, 64], 4, 8 * (8 + 64 + 64) * 4);
        expect_panic(
            || soft_max::<f32, false, false>(d, s, &t.view_len(0, 256), &big, &info),
            &["sharedTmpBuffer has 256 bytes", "splitM = 8"],
        );
        // Recomputed for another shape, too small for one row.
        expect_panic(
            || {
                soft_max::<f32, false, false>(
                    d,
                    s,
                    &t.view_len(0, 64),
                    &big,
                    &SoftMaxShapeInfo::new(4, 64, 4, 64),
                )
            },
            &["tmpbuffer is not enough"],
        );
        // Rows beyond the tensors.
        let rows16 = soft_max_tiling_func(&[16, 64], 4, 2048);
        let info16 = SoftMaxShapeInfo::new(16, 64, 16, 64);
        expect_panic(
            || soft_max::<f32, false, false>(d, s, t, &rows16, &info16),
            &["1024 elements", "srcTensor"],
        );
        // The buffer over the source; dst partly over src.
        expect_panic(
            || soft_max::<f32, false, false>(d, s, &s.reinterpret_cast::<u8>(), &tiling, &info),
            &["sharedTmpBuffer", "overlap"],
        );
    });
    on(Soc::Ascend910B, || {
        let u = ub(3 * 2048 + 32);
        let (s, d, t) = (u.t::<f32>(0, 512), u.t::<f32>(32, 512), u.t::<u8>(4096, 2048));
        expect_panic(
            || soft_max::<f32, false, false>(&d, &s, &t, &tiling, &info),
            &["dstTensor UB bytes [0x20, 0x820) overlap srcTensor"],
        );
    });
}
