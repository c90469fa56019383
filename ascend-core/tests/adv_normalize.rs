//! The advanced API's `Normalize` (`adv/normalize.rs`) against a scalar reference restating
//! the vendor's steps with each instruction's `float` rounding — `rstd = 1 / sqrt(variance +
//! epsilon)`; `half` widened exactly; `(x - mean) * rstd`, then `* gamma`, `+ beta` as the
//! configuration keeps them; the narrowing to `half` to nearest-even — bit for bit over the
//! rows' `rLength` elements, for the three type pairs, the four configurations, both chips,
//! buffers of one row per round up to all rows and the stack form. Then the host's buffer
//! sizes and every error.

use ascend_core::prelude::*;

use crate::common::util;
use util::{assert_bits_ctx, expect_panic, on, ub, Fp, Rng};

/// Runs the form the arguments pick: `C` chosen at run time from `(no_beta, no_gamma)`, the
/// stack form when `tmp` is `None`.
#[allow(clippy::too_many_arguments)]
fn call<U: LayerNormGammaType<T>, T: LayerNormElement>(
    cfg: (bool, bool),
    y: &LocalTensor<T>,
    s: &LocalTensor<f32>,
    m: &LocalTensor<f32>,
    v: &LocalTensor<f32>,
    x: &LocalTensor<T>,
    g: &LocalTensor<U>,
    b: &LocalTensor<U>,
    tmp: Option<&LocalTensor<u8>>,
    eps: f32,
    p: &NormalizePara,
) {
    macro_rules! go {
        ($c:ty) => {
            match tmp {
                Some(k) => normalize::<U, T, false, $c>(y, s, m, v, x, g, b, k, eps, p),
                None => normalize_stack::<U, T, false, $c>(y, s, m, v, x, g, b, eps, p),
            }
        };
    }
    match cfg {
        (false, false) => go!(NlcfgNorm),
        (true, false) => go!(NlcfgNoBeta),
        (false, true) => go!(NlcfgNoGamma),
        (true, true) => go!(NlcfgNoOpt),
    }
}

/// One case of `a` rows of `r` elements on `soc`.
#[allow(clippy::too_many_arguments)]
fn case<U: LayerNormGammaType<T> + Fp, T: LayerNormElement + Fp>(
    soc: Soc,
    a: usize,
    r: usize,
    cfg: (bool, bool),
    tmp_bytes: Option<usize>,
    rng: &mut Rng,
) {
    let rp = r.next_multiple_of(32 / T::SIZE);
    let ctx = format!(
        "{soc} U={:?} T={:?} [{a}, {r}] cfg(noBeta, noGamma)={cfg:?} tmp={tmp_bytes:?}",
        U::DTYPE,
        T::DTYPE
    );
    let uni =
        |rng: &mut Rng, lo: f32, hi: f32| lo + (hi - lo) * (rng.below(1 << 24) as f32 / (1u64 << 24) as f32);
    let x: Vec<T> = (0..a * rp).map(|_| T::from32(uni(rng, -50.0, 50.0))).collect();
    let mean: Vec<f32> = (0..a).map(|_| uni(rng, -5.0, 5.0)).collect();
    let var: Vec<f32> = (0..a).map(|_| uni(rng, 0.0, 900.0)).collect();
    let g: Vec<U> = (0..r).map(|_| U::from32(uni(rng, -3.0, 3.0))).collect();
    let b: Vec<U> = (0..r).map(|_| U::from32(uni(rng, -3.0, 3.0))).collect();
    let eps = [1e-5f32, 0.0, 0.5][rng.index(3)];
    on(soc, || {
        let al = |n: usize| n.next_multiple_of(32);
        let (xb, fb, gb) = (al(a * rp * T::SIZE), al(a * 4), al(r * U::SIZE));
        let u = ub(2 * xb + 3 * fb + 2 * gb + tmp_bytes.unwrap_or(0) + 64);
        let (xt, y) = (u.t::<T>(0, a * rp), u.t::<T>(xb, a * rp));
        let (m, v, s) = (u.t::<f32>(2 * xb, a), u.t::<f32>(2 * xb + fb, a), u.t::<f32>(2 * xb + 2 * fb, a));
        let (gt, bt) = (u.t::<U>(2 * xb + 3 * fb, r), u.t::<U>(2 * xb + 3 * fb + gb, r));
        let k = tmp_bytes.map(|n| u.t::<u8>(2 * xb + 3 * fb + 2 * gb, n));
        xt.copy_from_slice(&x);
        m.copy_from_slice(&mean);
        v.copy_from_slice(&var);
        gt.copy_from_slice(&g);
        bt.copy_from_slice(&b);
        let p = NormalizePara { a_length: a as u32, r_length: r as u32, r_length_with_padding: rp as u32 };
        call(cfg, &y, &s, &m, &v, &xt, &gt, &bt, k.as_ref(), eps, &p);
        let rstd: Vec<f32> = var.iter().map(|&v| 1.0 / (v + eps).sqrt()).collect();
        assert_bits_ctx(&s.to_vec(), &rstd, format!("{ctx}: rstd"));
        let got = y.to_vec();
        for i in 0..a {
            let want: Vec<T> = (0..r)
                .map(|j| {
                    let mut e = (x[i * rp + j].to32() - mean[i]) * rstd[i];
                    if !cfg.1 {
                        e *= g[j].to32();
                    }
                    if !cfg.0 {
                        e += b[j].to32();
                    }
                    T::from32(e)
                })
                .collect();
            assert_bits_ctx(&got[i * rp..i * rp + r], &want, format!("{ctx}: row {i}"));
        }
        assert_bits_ctx(&xt.to_vec(), &x, format!("{ctx}: inputX afterwards"));
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
    });
}

fn sweep<U: LayerNormGammaType<T> + Fp, T: LayerNormElement + Fp>(seed: u64) {
    let mut rng = Rng(seed);
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        for (a, r) in [(1usize, 8usize), (3, 20), (17, 64), (5, 100), (40, 16)] {
            let rp = r.next_multiple_of(32 / T::SIZE);
            let (max, min) = get_normalize_max_min_tmp_size(&[a, r], U::SIZE, T::SIZE, false, true, false);
            for cfg in [(false, false), (true, false), (false, true), (true, true)] {
                let tmp = match rng.below(4) {
                    0 => Some(min),
                    1 => Some(min + 32 * (1 + rng.index(2 * rp / 8 + 1))),
                    2 => Some(max),
                    _ => None,
                };
                case::<U, T>(soc, a, r, cfg, tmp, &mut rng);
            }
        }
    }
}

#[test]
fn float_rows_float_gamma() {
    sweep::<f32, f32>(0x401);
}

#[test]
fn half_rows_half_gamma() {
    sweep::<f16, f16>(0x402);
}

#[test]
fn half_rows_float_gamma() {
    sweep::<f32, f16>(0x403);
}

/// The minimum buffer (one row per round) and 17 rows: 17 rounds, each with its own
/// broadcast of the row's mean and `rstd`.
#[test]
fn one_row_per_round() {
    let mut rng = Rng(5);
    for cfg in [(false, false), (true, true)] {
        case::<f32, f32>(Soc::Ascend910B, 17, 64, cfg, Some(512), &mut rng);
        case::<f16, f16>(Soc::Ascend910B, 17, 64, cfg, Some(1024), &mut rng);
    }
}

/// `GetNormalizeMaxMinTmpSize` as `normalize_tiling_impl.cpp` computes it.
#[test]
fn host_buffer_sizes() {
    // (shape, typeSizeU, typeSizeT, (max, min)), worked from the vendor's formulas.
    for (shape, u, t, want) in [
        ([8, 64], 4, 4, (4608, 512)),
        ([3, 20], 2, 2, (2304, 512)),
        ([3, 20], 4, 2, (2304, 256)),
        ([1, 8], 4, 4, (576, 64)),
        ([200, 8], 4, 4, (12864, 800)),
        ([17, 100], 2, 2, (2 * 448 + 2 * 24 * 112 * 4, 4 * 448)),
    ] {
        assert_eq!(
            get_normalize_max_min_tmp_size(&shape, u, t, false, true, false),
            want,
            "{shape:?} {u} {t}"
        );
    }
    for (rstd, only, words) in
        [(false, false, &["isComputeRstd = false"][..]), (true, true, &["isOnlyOutput = true"][..])]
    {
        expect_panic(
            || {
                get_normalize_max_min_tmp_size(&[8, 64], 4, 4, false, rstd, only);
            },
            words,
        );
    }
    expect_panic(
        || {
            get_normalize_max_min_tmp_size(&[64], 4, 4, false, true, false);
        },
        &["GetNormalizeMaxMinTmpSize", "srcShape = [64]"],
    );
}

/// Where [`every_error`]'s call puts `y`, `gamma` (offset, length), `beta` and the buffer
/// (offset, bytes); the other tensors stay put.
#[derive(Clone, Copy)]
struct Layout {
    y: usize,
    gamma: (usize, usize),
    beta: usize,
    tmp: (usize, usize),
}

/// 2 x 8 floats: x at 0, y at 64, mean/var/rstd at 128.., gamma/beta at 224.., the buffer at
/// 288.
const LAYOUT: Layout = Layout { y: 64, gamma: (224, 8), beta: 256, tmp: (288, 512) };

/// `Normalize<float, float, REUSE, NLCFG_NORM>` over `l` in `u`.
fn normalize_at<const REUSE: bool>(u: &util::Ub, l: Layout, p: &NormalizePara) {
    let t = |off: usize, n: usize| u.t::<f32>(off, n);
    normalize::<f32, f32, REUSE, NlcfgNorm>(
        &t(l.y, 16),
        &t(192, 8),
        &t(128, 8),
        &t(160, 8),
        &t(0, 16),
        &t(l.gamma.0, l.gamma.1),
        &t(l.beta, 8),
        &u.t::<u8>(l.tmp.0, l.tmp.1),
        0.0,
        p,
    )
}

#[test]
fn every_error() {
    let p = NormalizePara { a_length: 2, r_length: 8, r_length_with_padding: 8 };
    let run = |soc: Soc, p: NormalizePara, l: Layout, reuse: bool, words: &[&str]| {
        on(soc, || {
            let u = ub(1024);
            let call =
                || if reuse { normalize_at::<true>(&u, l, &p) } else { normalize_at::<false>(&u, l, &p) };
            let msg = expect_panic(call, words);
            assert!(msg.contains("Normalize"), "{msg}");
        });
    };
    let l = LAYOUT;
    run(Soc::Ascend310B, p, l, false, &["Normalize has no implementation on Ascend310B"]);
    run(Soc::Ascend910, p, l, false, &["no implementation on Ascend910"]);
    run(Soc::Ascend910B, NormalizePara { a_length: 0, ..p }, l, false, &["aLength > 0"]);
    run(
        Soc::Ascend910B,
        NormalizePara { r_length_with_padding: 12, ..p },
        l,
        false,
        &["rLengthWithPadding", "32 bytes"],
    );
    run(Soc::Ascend910B, NormalizePara { r_length: 9, ..p }, l, false, &["rLength <= rLengthWithPadding"]);
    run(Soc::Ascend910B, NormalizePara { a_length: 3, ..p }, l, false, &["inputX has 16 elements", "= 24"]);
    run(Soc::Ascend910B, p, l, true, &["isReuseSource = true is not supported"]);
    let small_tmp = Layout { tmp: (288, 32), ..l };
    run(Soc::Ascend910B, p, small_tmp, false, &["sharedTmpBuffer has 32 bytes", "one round's 16"]);
    run(Soc::Ascend910B, p, Layout { y: 32, ..l }, false, &["output UB bytes", "overlap inputX"]);
    run(
        Soc::Ascend910B,
        p,
        Layout { tmp: (256, 512), ..l },
        false,
        &["sharedTmpBuffer UB bytes", "overlap beta"],
    );
    let short_gamma = Layout { gamma: (224, 4), ..l };
    run(Soc::Ascend910B, p, short_gamma, false, &["gamma has 4 elements, fewer than rLength = 8"]);
    // Without gamma, a short gamma (even one overlapping the output) is not read: no error.
    on(Soc::Ascend910B, || {
        let u = ub(1024);
        let t = |off: usize, n: usize| u.t::<f32>(off, n);
        t(0, 16).copy_from_slice(&[1.0; 16]);
        t(128, 8).copy_from_slice(&[0.0; 8]);
        t(160, 8).copy_from_slice(&[1.0; 8]);
        t(256, 8).copy_from_slice(&[0.5; 8]);
        let k = u.t::<u8>(288, 512);
        normalize::<f32, f32, false, NlcfgNoGamma>(
            &t(64, 16),
            &t(192, 8),
            &t(128, 8),
            &t(160, 8),
            &t(0, 16),
            &t(64, 4),
            &t(256, 8),
            &k,
            0.0,
            &p,
        );
        assert_eq!(t(64, 16).to_vec(), [1.5; 16]);
    });
}
