//! The advanced API's `BatchNorm` (`adv/batchnorm.rs`) against a scalar reference restating
//! the vendor's steps with each instruction's `float` rounding — per column, each row times
//! `1 / B` summed from row 0 on; `(x - mean)² · (1 / B)` summed the same way; `rstd =
//! exp(-0.5 · ln(variance + epsilon))` (the emulator's `Ln`/`Exp`: the `f64` function rounded
//! to `float`); `gamma · ((x - mean) · rstd) + beta`; `half` widened exactly and narrowed to
//! nearest-even — bit for bit, for both types, both chips, the basic block or not, buffers
//! from the minimum (several rounds and a tail) to the maximum and the stack form, in place.
//! Then the page's worked example, the host's sizes and tilings, and every error.

use ascend_core::prelude::*;

use crate::common::util;
use util::{assert_bits_ctx, expect_panic, on, ub, Fp, Rng};

/// `f64::ln`/`f64::exp` rounded to `float`, as the emulator's `Ln`/`Exp` compute a lane.
fn ln32(v: f32) -> f32 {
    (v as f64).ln() as f32
}
fn exp32(v: f32) -> f32 {
    (v as f64).exp() as f32
}

/// The vendor's steps for `[b, mv]` rows: `(output, mean, variance)`.
fn reference<T: Fp>(x: &[T], g: &[T], be: &[T], b: usize, mv: usize, eps: f32) -> (Vec<T>, Vec<T>, Vec<T>) {
    let back = 1.0f32 / b as f32;
    let mut y = vec![T::from32(0.0); b * mv];
    let (mut means, mut vars) = (Vec::new(), Vec::new());
    for j in 0..mv {
        let xs: Vec<f32> = (0..b).map(|i| x[i * mv + j].to32()).collect();
        let mut mean = xs[0] * back;
        for &v in &xs[1..] {
            mean += v * back;
        }
        let d: Vec<f32> = xs.iter().map(|&v| v - mean).collect();
        let mut var = (d[0] * d[0]) * back;
        for &v in &d[1..] {
            var += (v * v) * back;
        }
        let rstd = exp32(ln32(var + eps) * -0.5);
        for i in 0..b {
            y[i * mv + j] = T::from32(be[i].to32() + g[i].to32() * (d[i] * rstd));
        }
        means.push(T::from32(mean));
        vars.push(T::from32(var));
    }
    (y, means, vars)
}

/// Which buffer a case lends.
#[derive(Clone, Copy, Debug)]
enum Buf {
    Min,
    Bytes(usize),
    Max,
    Stack,
}

/// One case: `[b, s, h]` of `T` on `soc`, `basic` or not, in place or not.
fn case<T: BatchNormElement + Fp>(
    soc: Soc,
    [b, s, h]: [usize; 3],
    basic: bool,
    buf: Buf,
    in_place: bool,
    rng: &mut Rng,
) {
    let mv = s * h;
    let ctx = format!("{soc} {:?} [{b}, {s}, {h}] basic={basic} {buf:?} in_place={in_place}", T::DTYPE);
    let uni = |rng: &mut Rng, lo: f32, hi: f32| {
        lo + (hi - lo) * ((1 + rng.below(1 << 24)) as f32 / (1u64 << 24) as f32)
    };
    let x: Vec<T> = (0..b * mv).map(|_| T::from32(uni(rng, -50.0, 50.0))).collect();
    let bp = b.next_multiple_of(32 / T::SIZE);
    let g: Vec<T> = (0..bp).map(|_| T::from32(uni(rng, 0.1, 3.0))).collect();
    let be: Vec<T> = (0..bp).map(|_| T::from32(uni(rng, -3.0, 3.0))).collect();
    let eps = T::from32([1e-5f32, 0.5, 0.01][rng.index(3)]);
    on(soc, || {
        let shape = [b, s, h];
        let (max, min) = get_batch_norm_max_min_tmp_size(&shape, &shape, T::SIZE, false, basic);
        let al = |n: usize| n.next_multiple_of(32);
        let (xb, mb, gb) = (al(b * mv * T::SIZE), al(mv * T::SIZE), al(bp * T::SIZE));
        let tmp_bytes = match buf {
            Buf::Min => Some(min),
            Buf::Bytes(n) => Some(n),
            // The largest shapes' maximum does not fit beside their data.
            Buf::Max => Some(max.min(32 * 1024).max(min)),
            Buf::Stack => None,
        };
        let mut pipe = TPipe::new();
        let mut q = TBuf::<VecCalc>::new();
        pipe.init_tbuf(&mut q, 2 * xb + 2 * mb + 2 * gb + tmp_bytes.unwrap_or(0));
        let t = |off: usize, n: usize| q.get_with_offset::<T>(n, off);
        let xt = t(0, b * mv);
        let y = if in_place { xt.clone() } else { t(xb, b * mv) };
        let (m, v) = (t(2 * xb, mv), t(2 * xb + mb, mv));
        let (gt, bt) = (t(2 * xb + 2 * mb, bp), t(2 * xb + 2 * mb + gb, bp));
        xt.copy_from_slice(&x);
        gt.copy_from_slice(&g);
        bt.copy_from_slice(&be);
        let stack_bytes = match tmp_bytes {
            Some(n) => n,
            None => pop_stack_buffer::<u8>().get_size(),
        };
        let mut tiling = get_batch_norm_nd_tiling_info(&shape, &shape, stack_bytes, T::SIZE, false, basic);
        let before = tiling;
        macro_rules! go {
            ($basic:literal) => {
                match tmp_bytes {
                    Some(n) => {
                        let k = q.get_with_offset::<u8>(n, 2 * xb + 2 * mb + 2 * gb);
                        batch_norm::<T, false, $basic>(&y, &m, &v, &xt, &gt, &bt, &k, eps, &mut tiling)
                    }
                    None => batch_norm_stack::<T, false, $basic>(&y, &m, &v, &xt, &gt, &bt, eps, &mut tiling),
                }
            };
        }
        if basic {
            go!(true)
        } else {
            go!(false)
        }
        let (wy, wm, wv) = reference(&x, &g, &be, b, mv, eps.to32());
        assert_bits_ctx(&m.to_vec(), &wm, format!("{ctx}: mean"));
        assert_bits_ctx(&v.to_vec(), &wv, format!("{ctx}: variance"));
        assert_bits_ctx(&y.to_vec(), &wy, format!("{ctx}: output"));
        if !in_place {
            assert_bits_ctx(&xt.to_vec(), &x, format!("{ctx}: inputX afterwards"));
        }
        if before.input_tail_size > 0 {
            assert_eq!(
                (tiling.sh_cur_length, tiling.bsh_cur_length),
                (before.mean_var_tail_size, before.input_tail_size),
                "{ctx}: the tail's lengths are left in the tiling"
            );
        } else {
            assert_eq!(tiling, before, "{ctx}");
        }
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
    });
}

fn sweep<T: BatchNormElement + Fp>(seed: u64, shapes: &[[usize; 3]], basic: bool) {
    let mut rng = Rng(seed);
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        for &shape in shapes {
            let (max, min) =
                on(soc, || get_batch_norm_max_min_tmp_size(&shape, &shape, T::SIZE, false, basic));
            for buf in
                [Buf::Min, Buf::Bytes(min + 32 * (1 + rng.index((max - min) / 32 + 1))), Buf::Max, Buf::Stack]
            {
                let buf = match buf {
                    Buf::Bytes(n) => Buf::Bytes(n.min(max).min(32 * 1024).max(min)),
                    other => other,
                };
                case::<T>(soc, shape, basic, buf, rng.chance(4), &mut rng);
            }
        }
    }
}

#[test]
fn float_rows() {
    sweep::<f32>(0xb01, &[[8, 4, 2], [3, 1, 16], [5, 2, 24], [1, 1, 8], [17, 3, 40], [40, 1, 8]], false);
}

#[test]
fn half_rows() {
    sweep::<f16>(0xb02, &[[8, 4, 4], [3, 1, 16], [5, 2, 24], [1, 1, 16], [17, 3, 48], [40, 1, 16]], false);
}

#[test]
fn float_basic_block() {
    sweep::<f32>(0xb03, &[[8, 1, 64], [16, 2, 64], [24, 3, 128], [8, 31, 64], [64, 1, 192]], true);
}

#[test]
fn half_basic_block() {
    sweep::<f16>(0xb04, &[[8, 1, 64], [16, 2, 64], [24, 3, 128], [8, 31, 64], [64, 1, 192]], true);
}

/// The page's worked example (`[8, 4, 2]`, `x = 0..64`, `gamm = beta = 0..8`): its means
/// and variances exactly, and its outputs to the digits it prints (with `epsilon = 0.01`,
/// which its outputs imply; the example does not print it).
#[test]
fn page_example() {
    on(Soc::Ascend910B, || {
        let u = ub(4096);
        let (x, y, m, v, g, b) = (
            u.t::<f32>(0, 64),
            u.t::<f32>(256, 64),
            u.t::<f32>(512, 8),
            u.t::<f32>(544, 8),
            u.t::<f32>(576, 8),
            u.t::<f32>(608, 8),
        );
        let k = u.t::<u8>(1024, 832);
        x.copy_from_slice(&(0..64).map(|v| v as f32).collect::<Vec<_>>());
        let r: Vec<f32> = (0..8).map(|v| v as f32).collect();
        g.copy_from_slice(&r);
        b.copy_from_slice(&r);
        let mut t = get_batch_norm_nd_tiling_info(&[8, 4, 2], &[8, 4, 2], 832, 4, false, false);
        batch_norm::<f32, false, false>(&y, &m, &v, &x, &g, &b, &k, 0.01, &mut t);
        assert_eq!(m.to_vec(), (28..36).map(|v| v as f32).collect::<Vec<_>>());
        assert_eq!(v.to_vec(), [336.0; 8]);
        let printed = [0.0, -0.091073155, 0.6907122, 2.345356, 4.8728585, 8.27322, 12.546439, 17.692516];
        let y = y.to_vec();
        for (row, want) in printed.iter().enumerate() {
            for j in 0..8 {
                let got = y[row * 8 + j];
                assert!(
                    (got - want).abs() <= 2e-6 * want.abs().max(1.0),
                    "row {row} col {j}: {got} vs {want}"
                );
            }
        }
    });
}

/// `GetBatchNormMaxMinTmpSize` and `GetBatchNormNDTilingInfo` as `batchnorm_tiling_impl.cpp`
/// computes them, worked by hand.
#[test]
fn host_sizes_and_tilings() {
    // (srcShape, originB, typeSize, basic, (max, min)).
    for (shape, ob, ts, basic, want) in [
        ([8, 4, 2], 8, 4, false, (3 * 256 + 2 * 32, 3 * 256 + 2 * 32)),
        ([8, 4, 2], 8, 2, false, (3 * 256 + 2 * 32, 3 * 512 + 2 * 32)),
        ([3, 1, 16], 3, 4, false, (3 * 192 + 2 * 64, 3 * 96 + 2 * 64)),
        ([16, 4, 16], 16, 2, true, (3 * 4096 + 2 * 256, 3 * 16 * 256 + 2 * 256)),
        ([5, 3, 3], 5, 4, false, (3 * 192 + 2 * 64, 3 * 160 + 2 * 64)),
        ([9, 2, 8], 4, 4, false, (3 * 256 + 2 * 64, 3 * 128 + 2 * 64)),
    ] {
        let origin = [ob, shape[1], shape[2]];
        assert_eq!(
            get_batch_norm_max_min_tmp_size(&shape, &origin, ts, false, basic),
            want,
            "{shape:?} {ts} {basic}"
        );
    }
    // float [3, 1, 40], 1024 bytes: 256 floats, a third 85, rounded down to 3 * 8 = 24 * 3 = 72:
    // 24 columns a round, one round, a tail of 16 columns (48 elements) at column 24.
    let t = get_batch_norm_nd_tiling_info(&[3, 1, 40], &[3, 1, 40], 1024, 4, false, false);
    let want = BatchNormTiling {
        original_b_length: 3,
        mean_var_size: 40,
        mean_tmp_tensor_pos: 0,
        variance_tmp_tensor_pos: 40,
        tmp_buf_size: 256,
        one_tmp_size: 72,
        first_tmp_start_pos: 0,
        second_tmp_start_pos: 72,
        third_tmp_start_pos: 144,
        loop_round: 1,
        input_tail_size: 48,
        input_tail_pos: 24,
        mean_var_tail_size: 16,
        mean_var_tail_pos: 24,
        bsh_cur_length: 72,
        sh_cur_length: 24,
        first_dim_value_back: 1.0 / 3.0,
        cast_half_rep_stride: 4,
        sh_cur_length_block_num: 3,
        cast_half_out_rep_stride: 2,
    };
    assert_eq!(t, want);
    // half [2, 1, 48], 1024 bytes: means and variances 48 floats each first (96), a third of
    // 160 is 53, rounded down to 2 * 16 = 32: 16 columns a round, three rounds.
    let t = get_batch_norm_nd_tiling_info(&[2, 1, 48], &[2, 1, 48], 1024, 2, false, false);
    assert_eq!(
        (t.first_tmp_start_pos, t.one_tmp_size, t.sh_cur_length, t.loop_round, t.input_tail_size),
        (96, 32, 16, 3, 0)
    );
    // Basic block [8, 1, 192] float with 30000 bytes: 7500 floats, a third 2500, rounded to
    // 8 * 8 = 2496 = 312 columns, cut to 256 (a multiple of 64): 2048.
    let t = get_batch_norm_nd_tiling_info(&[8, 1, 192], &[8, 1, 192], 30000, 4, false, true);
    assert_eq!((t.one_tmp_size, t.sh_cur_length, t.loop_round, t.input_tail_size), (1536, 192, 1, 0));
    let t = get_batch_norm_nd_tiling_info(&[8, 1, 320], &[8, 1, 320], 30000, 4, false, true);
    assert_eq!((t.one_tmp_size, t.sh_cur_length, t.loop_round, t.mean_var_tail_size), (2048, 256, 1, 64));
    for (f, words) in [
        (
            Box::new(|| {
                get_batch_norm_max_min_tmp_size(&[4, 1, 64], &[4, 1, 64], 4, false, true);
            }) as Box<dyn FnOnce()>,
            &["GetBatchNormMaxMinTmpSize", "originB = 4 a multiple of 8"][..],
        ),
        (
            Box::new(|| {
                get_batch_norm_nd_tiling_info(&[8, 1, 12], &[8, 1, 12], 4096, 4, false, false);
            }),
            &["GetBatchNormNDTilingInfo", "S * H = 12 is not 32-byte aligned"],
        ),
        (
            Box::new(|| {
                get_batch_norm_nd_tiling_info(&[8, 4, 2], &[8, 4, 2], 800, 4, false, false);
            }),
            &["stackBufferByteSize = 800", "minimum 832"],
        ),
        (
            Box::new(|| {
                get_batch_norm_max_min_tmp_size(&[8, 64], &[8, 1, 64], 4, false, false);
            }),
            &["srcShape = [8, 64] has 2 dimensions"],
        ),
        (
            Box::new(|| {
                get_batch_norm_max_min_tmp_size(&[8, 1, 64], &[8, 1, 64], 8, false, false);
            }),
            &["typeSize = 8"],
        ),
    ] {
        expect_panic(f, words);
    }
}

/// Where [`every_error`]'s call puts its tensors: `[8, 1, 8]` float.
#[derive(Clone, Copy)]
struct Layout {
    y: usize,
    mean: usize,
    gamma: (usize, usize),
    tmp: (usize, usize),
}

const LAYOUT: Layout = Layout { y: 256, mean: 512, gamma: (576, 8), tmp: (1024, 1024) };

fn call_at<const BASIC: bool>(u: &util::Ub, l: Layout, t: &mut BatchNormTiling) {
    let f = |off: usize, n: usize| u.t::<f32>(off, n);
    batch_norm::<f32, false, BASIC>(
        &f(l.y, 64),
        &f(l.mean, 8),
        &f(544, 8),
        &f(0, 64),
        &f(l.gamma.0, l.gamma.1),
        &f(608, 8),
        &u.t::<u8>(l.tmp.0, l.tmp.1),
        1e-5,
        t,
    )
}

#[test]
fn every_error() {
    let good = get_batch_norm_nd_tiling_info(&[8, 1, 8], &[8, 1, 8], 1024, 4, false, false);
    let run = |soc: Soc, mut t: BatchNormTiling, l: Layout, basic: bool, words: &[&str]| {
        on(soc, || {
            let u = ub(4096);
            let msg = expect_panic(
                || if basic { call_at::<true>(&u, l, &mut t) } else { call_at::<false>(&u, l, &mut t) },
                words,
            );
            assert!(msg.contains("BatchNorm"), "{msg}");
        });
    };
    let l = LAYOUT;
    run(Soc::Ascend310B, good, l, false, &["BatchNorm has no implementation on Ascend310B"]);
    run(Soc::Ascend910, good, l, false, &["no implementation on Ascend910"]);
    run(Soc::Ascend910B, BatchNormTiling::default(), l, false, &["the tiling is unset or inconsistent"]);
    run(Soc::Ascend910B, BatchNormTiling { loop_round: 2, ..good }, l, false, &["inconsistent"]);
    run(
        Soc::Ascend910B,
        BatchNormTiling { tmp_buf_size: 100, ..good },
        l,
        false,
        &["thirdTmpStartPos + oneTmpSize (192) should be <= tmpBufSize (100)"],
    );
    run(
        Soc::Ascend910B,
        good,
        Layout { tmp: (1024, 512), ..l },
        false,
        &["sharedTmpBuffer has 512 bytes", "tmpBufSize (256)"],
    );
    run(
        Soc::Ascend910B,
        good,
        Layout { gamma: (576, 4), ..l },
        false,
        &["The gamm length is 16 bytes, should be 32B aligned"],
    );
    run(Soc::Ascend910B, good, l, true, &["isBasicBlock = true needs", "meanVarSize = 8"]);
    run(Soc::Ascend910B, good, Layout { y: 128, ..l }, false, &["output UB bytes", "overlap inputX"]);
    run(Soc::Ascend910B, good, Layout { mean: 256, ..l }, false, &["output UB bytes", "overlap outputMean"]);
    run(
        Soc::Ascend910B,
        good,
        Layout { tmp: (512, 1024), ..l },
        false,
        &["sharedTmpBuffer UB bytes", "overlap"],
    );
    let big = get_batch_norm_nd_tiling_info(&[8, 2, 8], &[8, 2, 8], 2048, 4, false, false);
    run(
        Soc::Ascend910B,
        big,
        Layout { tmp: (1024, 2048), ..l },
        false,
        &["inputX has 64 elements, fewer than originB * S * H = 128"],
    );
    // A tensor outside the Unified Buffer.
    on(Soc::Ascend910B, || {
        let mut pipe = TPipe::new();
        let (mut v, mut l1) = (TBuf::<VecCalc>::new(), TBuf::<A1>::new());
        pipe.init_tbuf(&mut v, 4096);
        pipe.init_tbuf(&mut l1, 1024);
        let f = |off: usize, n: usize| v.get_with_offset::<f32>(n, off);
        let far = l1.get_with_len::<f32>(64);
        let mut t = good;
        let msg = expect_panic(
            || {
                batch_norm::<f32, false, false>(
                    &far,
                    &f(512, 8),
                    &f(544, 8),
                    &f(0, 64),
                    &f(576, 8),
                    &f(608, 8),
                    &v.get_with_offset::<u8>(1024, 1024),
                    1e-5,
                    &mut t,
                )
            },
            &["output is at position A1"],
        );
        assert!(msg.contains("BatchNorm"), "{msg}");
    });
}
