//! The advanced API's `WelfordUpdate` (`adv/welford_update.rs`) against a scalar reference
//! restating the vendor's steps with each instruction's `float` rounding (`x` widened exactly,
//! `d = x - m`, `d * nRec + m`, `d * (x - mean) + v`), bit for bit: both sample types, both
//! chips, every `isReuseSource`/`isInplace` combination, buffers of one round up to the whole
//! block, computed lengths with and without a tail; the outputs past the computed elements
//! (copied from the inputs in place, else untouched), the source after `isReuseSource`, the
//! mask state afterwards; the page's worked example; the host's buffer sizes; every error.

use ascend_core::prelude::*;

use crate::common::util;
use util::{assert_bits_ctx, expect_panic, on, ub, Fp, Rng};

/// `(mean, M2, d)` of one element: the vendor's `Sub`, `Muls`, `Add`, `Sub`, `Mul`, `Add`.
fn step(x: f32, m: f32, v: f32, n_rec: f32) -> (f32, f32, f32) {
    let d = x - m;
    let mean = d * n_rec + m;
    (mean, d * (x - mean) + v, d)
}

/// Runs `welford_update` (or the stack form when `tmp_bytes` is `None`) with the const
/// parameters chosen at run time.
#[allow(clippy::too_many_arguments)]
fn call<T: WelfordUpdateElement + Fp>(
    reuse: bool,
    inplace: bool,
    om: &LocalTensor<f32>,
    ov: &LocalTensor<f32>,
    im: &LocalTensor<f32>,
    iv: &LocalTensor<f32>,
    x: &LocalTensor<T>,
    tmp: Option<&LocalTensor<u8>>,
    p: &WelfordUpdateParam,
) {
    match (reuse, inplace, tmp) {
        (false, false, Some(k)) => welford_update::<T, false, false>(om, ov, im, iv, x, k, p),
        (false, true, Some(k)) => welford_update::<T, false, true>(om, ov, im, iv, x, k, p),
        (true, false, Some(k)) => welford_update::<T, true, false>(om, ov, im, iv, x, k, p),
        (true, true, Some(k)) => welford_update::<T, true, true>(om, ov, im, iv, x, k, p),
        (false, false, None) => welford_update_stack::<T, false, false>(om, ov, im, iv, x, p),
        (false, true, None) => welford_update_stack::<T, false, true>(om, ov, im, iv, x, p),
        (true, false, None) => welford_update_stack::<T, true, false>(om, ov, im, iv, x, p),
        (true, true, None) => welford_update_stack::<T, true, true>(om, ov, im, iv, x, p),
    }
}

/// One case: `ab` elements, `abc` computed, a buffer of `tmp_bytes` (`None`: the stack form).
#[allow(clippy::too_many_arguments)]
fn case<T: WelfordUpdateElement + Fp>(
    soc: Soc,
    ab: usize,
    abc: usize,
    reuse: bool,
    inplace: bool,
    tmp_bytes: Option<usize>,
    rng: &mut Rng,
) {
    let ctx =
        format!("{soc} {:?} ab={ab} abc={abc} reuse={reuse} inplace={inplace} tmp={tmp_bytes:?}", T::DTYPE);
    let cap = ab + 16; // room past the block, which must stay untouched
    let uni =
        |rng: &mut Rng, lo: f32, hi: f32| lo + (hi - lo) * (rng.below(1 << 24) as f32 / (1u64 << 24) as f32);
    let x: Vec<T> = (0..cap).map(|_| T::from32(uni(rng, -100.0, 100.0))).collect();
    let m: Vec<f32> = (0..cap).map(|_| uni(rng, -60.0, 60.0)).collect();
    let v: Vec<f32> = (0..cap).map(|_| uni(rng, 0.0, 600.0)).collect();
    let n_rec = 1.0 / (1 + rng.below(9)) as f32;
    let sentinel = -7777.0f32;
    on(soc, || {
        let fb = cap * 4;
        let u = ub(5 * fb + tmp_bytes.unwrap_or(0) + 64);
        let (om, ov, im, iv) =
            (u.t::<f32>(0, cap), u.t::<f32>(fb, cap), u.t::<f32>(2 * fb, cap), u.t::<f32>(3 * fb, cap));
        let xt = u.t::<T>(4 * fb, cap);
        let k = tmp_bytes.map(|b| u.t::<u8>(5 * fb, b));
        im.copy_from_slice(&m);
        iv.copy_from_slice(&v);
        xt.copy_from_slice(&x);
        om.copy_from_slice(&vec![sentinel; cap]);
        ov.copy_from_slice(&vec![sentinel; cap]);
        let p =
            WelfordUpdateParam { rn_length: 1, ab_length: ab as u32, ab_compute_length: abc as u32, n_rec };
        call(reuse, inplace, &om, &ov, &im, &iv, &xt, k.as_ref(), &p);
        let (mut want_m, mut want_v, mut want_x) = (vec![sentinel; cap], vec![sentinel; cap], x.clone());
        for i in 0..abc {
            let (mean, var, d) = step(x[i].to32(), m[i], v[i], n_rec);
            (want_m[i], want_v[i]) = (mean, var);
            if reuse && T::DTYPE == DType::F32 {
                want_x[i] = T::from32(d);
            }
        }
        if inplace {
            want_m[abc..ab].copy_from_slice(&m[abc..ab]);
            want_v[abc..ab].copy_from_slice(&v[abc..ab]);
        }
        assert_bits_ctx(&om.to_vec(), &want_m, format!("{ctx}: outputMean"));
        assert_bits_ctx(&ov.to_vec(), &want_v, format!("{ctx}: outputVariance"));
        assert_bits_ctx(&xt.to_vec(), &want_x, format!("{ctx}: inputX afterwards"));
        assert_bits_ctx(&im.to_vec(), &m, format!("{ctx}: inputMean afterwards"));
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
    });
}

fn sweep<T: WelfordUpdateElement + Fp>(seed: u64) {
    let mut rng = Rng(seed);
    let align = 32 / std::mem::size_of::<T>();
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        for ab in [align, 64, 13 * align, 1024] {
            for &reuse in if soc == Soc::Ascend310P { &[false][..] } else { &[false, true][..] } {
                let (_, min) = get_welford_update_max_min_tmp_size(&[1, ab], T::SIZE, 4, reuse, false);
                for inplace in [false, true] {
                    for tmp in [Some(min), Some(2 * min + 32), Some(min * ab.div_ceil(64)), None] {
                        let abc = match rng.below(3) {
                            0 => ab,
                            1 => 1 + rng.index(ab),
                            _ => ab - rng.index(ab.min(9)),
                        };
                        case::<T>(soc, ab, abc, reuse, inplace, tmp, &mut rng);
                    }
                }
            }
        }
    }
}

#[test]
fn float_samples_bit_for_bit() {
    sweep::<f32>(0x3e1f);
}

#[test]
fn half_samples_bit_for_bit() {
    sweep::<f16>(0x3e20);
}

/// A buffer of one slot set (`tmpNum = 1`) with 200 computed elements: three full rounds of 64
/// and a tail of 8, each under its own counter-mode mask.
#[test]
fn rounds_and_a_tail() {
    let mut rng = Rng(9);
    case::<f32>(Soc::Ascend910B, 208, 200, false, false, Some(512), &mut rng);
    case::<f16>(Soc::Ascend910B, 208, 200, false, true, Some(768), &mut rng);
    case::<f32>(Soc::Ascend910B, 208, 200, true, true, Some(256), &mut rng);
}

/// The page's worked example (`WelfordUpdate.md`, 调用示例): `x = 1`, means and `M2` sums
/// `0..64`, 35 computed elements, `nRec = 1/8`, in place; the printed outputs, all 64.
#[test]
fn the_pages_example() {
    const MEAN: [f32; 35] = [
        0.125, 1.0, 1.875, 2.75, 3.625, 4.5, 5.375, 6.25, 7.125, 8.0, 8.875, 9.75, 10.625, 11.5, 12.375,
        13.25, 14.125, 15.0, 15.875, 16.75, 17.625, 18.5, 19.375, 20.25, 21.125, 22.0, 22.875, 23.75, 24.625,
        25.5, 26.375, 27.25, 28.125, 29.0, 29.875,
    ];
    const VAR: [f32; 35] = [
        0.875, 1.0, 2.875, 6.5, 11.875, 19.0, 27.875, 38.5, 50.875, 65.0, 80.875, 98.5, 117.875, 139.0,
        161.875, 186.5, 212.875, 241.0, 270.875, 302.5, 335.875, 371.0, 407.875, 446.5, 486.875, 529.0,
        572.875, 618.5, 665.875, 715.0, 765.875, 818.5, 872.875, 929.0, 986.875,
    ];
    on(Soc::Ascend910B, || {
        let u = ub(5 * 256 + 512);
        let t = |i: usize| u.t::<f32>(i * 256, 64);
        let (om, ov, im, iv, x) = (t(0), t(1), t(2), t(3), t(4));
        let ramp: Vec<f32> = (0..64).map(|i| i as f32).collect();
        im.copy_from_slice(&ramp);
        iv.copy_from_slice(&ramp);
        x.copy_from_slice(&[1.0; 64]);
        let p = WelfordUpdateParam { rn_length: 1, ab_length: 64, ab_compute_length: 35, n_rec: 0.125 };
        welford_update::<f32, false, true>(&om, &ov, &im, &iv, &x, &u.t::<u8>(5 * 256, 512), &p);
        let (want_m, want_v): (Vec<f32>, Vec<f32>) = (
            MEAN.iter().chain(&ramp[35..]).copied().collect(),
            VAR.iter().chain(&ramp[35..]).copied().collect(),
        );
        assert_bits_ctx(&om.to_vec(), &want_m, "mean");
        assert_bits_ctx(&ov.to_vec(), &want_v, "variance");
    });
}

/// `GetWelfordUpdateMaxMinTmpSize` as `layernorm_tiling_impl.cpp` computes it: 256 bytes per
/// slot (3 for half, 1 with isReuseSource, else 2), the maximum one round for the block.
#[test]
fn host_buffer_sizes() {
    for (shape, t, reuse, want) in [
        ([1, 64], 4, false, (512, 512)),
        ([1, 64], 2, false, (768, 768)),
        ([1, 64], 4, true, (256, 256)),
        ([1, 8], 4, false, (512, 512)),
        ([1, 65], 4, false, (1024, 512)),
        ([1, 1024], 2, true, (12288, 768)),
        ([1, 200], 4, true, (1024, 256)),
    ] {
        for inplace in [false, true] {
            assert_eq!(
                get_welford_update_max_min_tmp_size(&shape, t, 4, reuse, inplace),
                want,
                "{shape:?} {t} {reuse}"
            );
        }
    }
    on(Soc::Ascend910B, || {
        expect_panic(
            || {
                get_welford_update_max_min_tmp_size(&[64], 4, 4, false, false);
            },
            &["GetWelfordUpdateMaxMinTmpSize", "srcShape = [64]", "[rnLength, abLength]"],
        );
    });
}

#[test]
fn every_error() {
    let p = WelfordUpdateParam { rn_length: 1, ab_length: 64, ab_compute_length: 64, n_rec: 0.5 };
    // (chip, the parameters, the buffer's bytes, whether inputMean overlaps outputMean, the
    // expected words).
    type Case = (Soc, WelfordUpdateParam, usize, u8, &'static [&'static str]);
    let cases: [Case; 11] = [
        (Soc::Ascend310B, p, 512, 0, &["WelfordUpdate has no implementation on Ascend310B"]),
        (Soc::Ascend910, p, 512, 0, &["no implementation on Ascend910"]),
        (Soc::Ascend910B, WelfordUpdateParam { rn_length: 2, ..p }, 512, 0, &["para.rnLength = 2", "only 1"]),
        (
            Soc::Ascend910B,
            WelfordUpdateParam { ab_length: 60, ..p },
            512,
            0,
            &["para.abLength = 60", "multiple of 8"],
        ),
        (
            Soc::Ascend910B,
            WelfordUpdateParam { ab_compute_length: 0, ..p },
            512,
            0,
            &["para.abComputeLength = 0"],
        ),
        (
            Soc::Ascend910B,
            WelfordUpdateParam { ab_compute_length: 72, ab_length: 64, ..p },
            512,
            0,
            &["para.abComputeLength = 72 exceeds para.abLength = 64"],
        ),
        (
            Soc::Ascend910B,
            WelfordUpdateParam { ab_length: 72, ..p },
            512,
            0,
            &["outputMean has 64 elements", "72"],
        ),
        (Soc::Ascend910B, p, 480, 0, &["sharedTmpBuffer has 480 bytes", "at least 512"]),
        (Soc::Ascend910B, p, 512, 1, &["outputMean UB bytes", "overlap inputMean"]),
        (Soc::Ascend910B, p, 512, 2, &["sharedTmpBuffer UB bytes", "overlap inputX"]),
        (Soc::Ascend910B, p, 512, 3, &["outputMean UB bytes", "overlap outputVariance"]),
    ];
    for (soc, para, tmp, overlap, words) in cases {
        on(soc, || {
            let u = ub(6 * 256 + 512);
            let t = |i: usize| u.t::<f32>(i * 256, 64);
            let (om, ov, iv, x) = (t(0), t(1), t(3), t(4));
            let im = if overlap == 1 { u.t::<f32>(128, 64) } else { t(2) };
            let ov = if overlap == 3 { u.t::<f32>(32, 64) } else { ov };
            let k = if overlap == 2 { u.t::<u8>(4 * 256, tmp) } else { u.t::<u8>(5 * 256, tmp) };
            let msg = expect_panic(
                || welford_update::<f32, false, false>(&om, &ov, &im, &iv, &x, &k, &para),
                words,
            );
            assert!(msg.contains("WelfordUpdate"), "{msg}");
        });
    }
    // isReuseSource on Ascend310P.
    on(Soc::Ascend310P, || {
        let u = ub(6 * 256 + 512);
        let t = |i: usize| u.t::<f32>(i * 256, 64);
        expect_panic(
            || {
                welford_update::<f32, true, false>(
                    &t(0),
                    &t(1),
                    &t(2),
                    &t(3),
                    &t(4),
                    &u.t::<u8>(5 * 256, 256),
                    &p,
                )
            },
            &["isReuseSource = true is not supported on Ascend310P"],
        );
    });
    // half samples: abLength a multiple of 16; three slots.
    on(Soc::Ascend910B, || {
        let u = ub(6 * 256 + 768);
        let t = |i: usize| u.t::<f32>(i * 256, 64);
        let x = u.t::<f16>(4 * 256, 64);
        expect_panic(
            || {
                welford_update::<f16, false, false>(
                    &t(0),
                    &t(1),
                    &t(2),
                    &t(3),
                    &x,
                    &u.t::<u8>(5 * 256, 768),
                    &WelfordUpdateParam { ab_length: 24, ab_compute_length: 8, ..p },
                )
            },
            &["para.abLength = 24", "multiple of 16 (32 bytes of half)"],
        );
        expect_panic(
            || {
                welford_update::<f16, false, false>(
                    &t(0),
                    &t(1),
                    &t(2),
                    &t(3),
                    &x,
                    &u.t::<u8>(5 * 256, 512),
                    &p,
                )
            },
            &["sharedTmpBuffer has 512 bytes", "at least 768"],
        );
    });
}
