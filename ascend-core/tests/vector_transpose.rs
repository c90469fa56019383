//! `vec_trans` (TIK) and `Transpose` (AscendC): seed 000 examples, every 16-bit type, in place,
//! a random reference over repeats and strides, and every check.

use ascend_core::prelude::*;

use crate::common::util;
use util::{assert_fails, bits, halfs, panic_message, tensor, Rng};

use crate::common::prop as strat;
use proptest::prelude::*;

/// Independent reference: the transpose of `m` (16×16 row-major) by index formula.
fn ref_transpose<T: Copy>(m: &[T]) -> Vec<T> {
    (0..256).map(|k| m[(k % 16) * 16 + k / 16]).collect()
}

#[test]
fn seed_example_1_single_matrix_f16() {
    let mut pipe = TPipe::new();
    let (src, dst) = (tensor::<f16>(&mut pipe, 256), tensor::<f16>(&mut pipe, 256));
    src.copy_from_slice(&halfs(1..=256));
    vec_trans(&dst, &src, 1, 1, 1);
    let out = dst.to_vec();
    assert_eq!(bits(&out[..4]), bits(&halfs([1, 17, 33, 49])));
    assert_eq!(out[255], f16::from_f32(256.0));
    let expect: Vec<f16> = (0..256u32).map(|k| f16::from_f32(((k % 16) * 16 + k / 16 + 1) as f32)).collect();
    assert_eq!(bits(&out), bits(&expect));
}

#[test]
fn seed_example_2_repeats_and_strides() {
    let mut pipe = TPipe::new();
    let (src, dst) = (tensor::<f16>(&mut pipe, 768), tensor::<f16>(&mut pipe, 768));
    src.copy_from_slice(&halfs(0..768));
    dst.copy_from_slice(&halfs(std::iter::repeat_n(0, 768)));
    vec_trans(&dst, &src, 2, 2, 1);
    let out = dst.to_vec();
    // Matrix 0: the seed's first output rows.
    assert_eq!(bits(&out[..16]), bits(&halfs((0..16).map(|i| i * 16))));
    assert_eq!(bits(&out[16..32]), bits(&halfs((0..16).map(|i| i * 16 + 1))));
    assert_eq!(bits(&out[240..256]), bits(&halfs((0..16).map(|i| i * 16 + 15))));
    // Matrix 1 untouched (zero).
    assert!(out[256..512].iter().all(|x| x.to_bits() == 0));
    // Matrix 2: transpose of source matrix 1 (256..512).
    assert_eq!(bits(&out[512..528]), bits(&halfs((0..16).map(|i| 256 + i * 16))));
    assert_eq!(bits(&out[752..768]), bits(&halfs((0..16).map(|i| 271 + i * 16))));
    let s = src.to_vec();
    assert_eq!(bits(&out[..256]), bits(&ref_transpose(&s[..256])));
    assert_eq!(bits(&out[512..]), bits(&ref_transpose(&s[256..512])));
}

macro_rules! per_type {
    ($($t:ident => $mk:expr),* $(,)?) => {$(
        paste::paste! {
            #[test]
            fn [<one_matrix_ $t>]() {
                let mut pipe = TPipe::new();
                let (src, dst) = (tensor::<$t>(&mut pipe, 256), tensor::<$t>(&mut pipe, 256));
                let mk: fn(u16) -> $t = $mk;
                let data: Vec<$t> = (0..256u16).map(|i| mk(i.wrapping_mul(2654).wrapping_add(7))).collect();
                src.copy_from_slice(&data);
                vec_trans(&dst, &src, 1, 1, 1);
                assert_eq!(bits(&dst.to_vec()), bits(&ref_transpose(&data)));
                // AscendC's single-matrix form gives the same.
                let d2 = tensor::<$t>(&mut pipe, 256);
                transpose(&d2, &src);
                assert_eq!(bits(&d2.to_vec()), bits(&ref_transpose(&data)));
                // The source is unchanged.
                assert_eq!(bits(&src.to_vec()), bits(&data));
            }

            #[test]
            fn [<in_place_ $t>]() {
                let mut pipe = TPipe::new();
                let mk: fn(u16) -> $t = $mk;
                let t = tensor::<$t>(&mut pipe, 3 * 256);
                let data: Vec<$t> = (0..768u16).map(|i| mk(i ^ 0x5a5a)).collect();
                t.copy_from_slice(&data);
                vec_trans(&t, &t, 3, 1, 1);
                let out = t.to_vec();
                for m in 0..3 {
                    assert_eq!(bits(&out[m * 256..][..256]), bits(&ref_transpose(&data[m * 256..][..256])));
                }
                transpose(&t, &t);
                assert_eq!(bits(&t.to_vec()[..256]), bits(&data[..256]));
            }
        }
    )*};
}

per_type! {
    i16 => |x| x as i16,
    u16 => |x| x,
    f16 => f16::from_bits,
}

#[test]
fn in_place_with_stride_zero_applies_repeatedly() {
    let mut pipe = TPipe::new();
    let t = tensor::<u16>(&mut pipe, 256);
    let data: Vec<u16> = (0..256).collect();
    t.copy_from_slice(&data);
    vec_trans(&t, &t, 3, 0, 0);
    assert_eq!(t.to_vec(), ref_transpose(&data));
    vec_trans(&t, &t, 4, 0, 0);
    assert_eq!(t.to_vec(), ref_transpose(&data));
}

#[test]
fn dst_stride_zero_last_repeat_wins() {
    let mut pipe = TPipe::new();
    let (src, dst) = (tensor::<u16>(&mut pipe, 512), tensor::<u16>(&mut pipe, 256));
    let data: Vec<u16> = (0..512).collect();
    src.copy_from_slice(&data);
    vec_trans(&dst, &src, 2, 0, 1);
    assert_eq!(dst.to_vec(), ref_transpose(&data[256..]));
}

#[test]
fn random_reference_over_repeats_and_strides() {
    // Chip, repeats, dst and src repeat stride, spare dst blocks, and the seed of the data.
    let cases = (strat::soc_of(Soc::ALL.to_vec()), 1..=6usize, 0..4usize, 0..4usize, 0..3usize, any::<u64>());
    strat::check_cases(
        40 * Soc::ALL.len() as u32,
        0x9e37_79b9_7f4a_7c15,
        cases,
        |&(soc, repeats, ds, ss, spare, seed)| {
            run_on_core(CoreConfig::single(soc), || {
                let mut rng = Rng(seed);
                let dn = ((repeats - 1) * ds + 1) * 256 + spare * 16;
                let sn = ((repeats - 1) * ss + 1) * 256;
                let mut pipe = TPipe::new();
                let (src, dst) = (tensor::<u16>(&mut pipe, sn), tensor::<u16>(&mut pipe, dn));
                let s: Vec<u16> = (0..sn).map(|_| rng.next() as u16).collect();
                let d0: Vec<u16> = (0..dn).map(|_| rng.next() as u16).collect();
                src.copy_from_slice(&s);
                dst.copy_from_slice(&d0);
                vec_trans(&dst, &src, repeats as u16, ds as u16, ss as u16);
                // Reference: element by element, repeats in order.
                let mut want = d0.clone();
                for r in 0..repeats {
                    for i in 0..16 {
                        for j in 0..16 {
                            want[r * ds * 256 + i * 16 + j] = s[r * ss * 256 + j * 16 + i];
                        }
                    }
                }
                assert_eq!(
                    dst.to_vec(),
                    want,
                    "repeats {repeats}, dst stride {ds}, src stride {ss} on {soc}"
                );
            });
        },
    );
}

#[test]
fn maximal_repeat_count() {
    let mut pipe = TPipe::new();
    let (src, dst) = (tensor::<i16>(&mut pipe, 256), tensor::<i16>(&mut pipe, 256));
    let data: Vec<i16> = (0..256).map(|i| i * 3 - 100).collect();
    src.copy_from_slice(&data);
    vec_trans(&dst, &src, 4095, 0, 0);
    assert_eq!(dst.to_vec(), ref_transpose(&data));
}

// ---- checks -----------------------------------------------------------------------------

#[test]
fn repeat_times_out_of_range() {
    let mut pipe = TPipe::new();
    let (a, b) = (tensor::<f16>(&mut pipe, 256), tensor::<f16>(&mut pipe, 256));
    assert_fails("vec_trans: repeat_times = 0 is out of range [1, 4095]", || vec_trans(&a, &b, 0, 1, 1));
    assert_fails("vec_trans: repeat_times = 4096 is out of range [1, 4095]", || {
        vec_trans(&a, &b, 4096, 1, 1)
    });
}

#[test]
fn strides_out_of_range() {
    let mut pipe = TPipe::new();
    let (a, b) = (tensor::<f16>(&mut pipe, 256), tensor::<f16>(&mut pipe, 256));
    assert_fails("dst_rep_stride = 4096 is out of range [0, 4095]", || vec_trans(&a, &b, 1, 4096, 1));
    assert_fails("src_rep_stride = 65535 is out of range [0, 4095]", || vec_trans(&a, &b, 1, 0, 65535));
}

#[test]
fn src_out_of_bounds() {
    let mut pipe = TPipe::new();
    let (a, b) = (tensor::<u16>(&mut pipe, 512), tensor::<u16>(&mut pipe, 512));
    assert_fails(
        "src would touch element 767 but the tensor has 512 elements (repeat_times = 2, src_rep_stride = 2)",
        || vec_trans(&a, &b, 2, 1, 2),
    );
}

#[test]
fn dst_out_of_bounds() {
    let mut pipe = TPipe::new();
    let (a, b) = (tensor::<u16>(&mut pipe, 240), tensor::<u16>(&mut pipe, 512));
    assert_fails("dst would touch element 255 but the tensor has 240 elements", || {
        vec_trans(&a, &b, 1, 1, 1)
    });
    assert_fails("Transpose: dst would touch element 255 but the tensor has 240 elements", || {
        transpose(&a, &b)
    });
    assert_fails("Transpose: src would touch element 255 but the tensor has 240 elements", || {
        transpose(&b, &a)
    });
}

#[test]
fn misaligned_operand() {
    let mut pipe = TPipe::new();
    let (a, b) = (tensor::<u16>(&mut pipe, 512), tensor::<u16>(&mut pipe, 512));
    let odd = b.view(8);
    assert_fails("vec_trans: src address = 0x", || vec_trans(&a, &odd, 1, 1, 1));
    assert_fails("is not 32-byte aligned", || transpose(&odd, &a));
}

#[test]
fn non_ub_operand() {
    let mut pipe = TPipe::new();
    let far = LocalTensor::<u16>::new(TPosition::A1, 0, 256);
    let a = tensor::<u16>(&mut pipe, 256);
    assert_fails("src is at position A1: vector instructions take VECIN, VECOUT or VECCALC tensors", || {
        vec_trans(&a, &far, 1, 1, 1)
    });
    assert_fails("dst is at position A1", || transpose(&far, &a));
}

#[test]
fn partial_overlap_rejected() {
    let mut pipe = TPipe::new();
    let t = tensor::<u16>(&mut pipe, 1024);
    // dst one matrix after src, same stride: matrix 0 of dst is matrix 1 of src.
    assert_fails(
        "partially overlap: matrix 0 of dst shares bytes with matrix 1 of src; only a complete overlap",
        || vec_trans(&t.view(256), &t, 2, 1, 1),
    );
    // Same address, different strides.
    assert_fails("partially overlap: matrix 0 of dst shares bytes with matrix 0 of src", || {
        vec_trans(&t, &t, 2, 2, 1)
    });
    // Shifted by 16 elements (one block).
    assert_fails("partially overlap", || transpose(&t.view(16), &t));
    assert_fails("partially overlap", || transpose(&t, &t.view(240)));
    // A late repeat of src reaches dst.
    assert_fails("matrix 0 of dst shares bytes with matrix 3 of src", || {
        vec_trans(&t.view(768), &t, 4, 0, 1)
    });
}

#[test]
fn interleaved_footprints_are_not_overlap() {
    let mut pipe = TPipe::new();
    let t = tensor::<u16>(&mut pipe, 1024);
    let data: Vec<u16> = (0..1024).map(|i| i as u16).collect();
    t.copy_from_slice(&data);
    // src matrices 0 and 2, dst matrices 1 and 3: disjoint, though the ranges interleave.
    vec_trans(&t.view(256), &t, 2, 2, 2);
    let out = t.to_vec();
    assert_eq!(out[256..512], ref_transpose(&data[..256])[..]);
    assert_eq!(out[768..], ref_transpose(&data[512..768])[..]);
    assert_eq!(out[..256], data[..256]);
}

#[test]
fn failure_reports_core_and_call_site() {
    run_on_core(CoreConfig::single(Soc::Ascend310B), || {
        let mut pipe = TPipe::new();
        let a = tensor::<u16>(&mut pipe, 256);
        let msg = panic_message(|| vec_trans(&a, &a, 0, 1, 1));
        assert!(msg.starts_with("core 0: vec_trans: repeat_times = 0"), "{msg}");
        assert!(msg.contains("vector_transpose.rs:"), "{msg}");
    });
}

/// Random layouts inside one tensor: the call succeeds exactly when the layouts coincide
/// (same start, and same stride unless there is one repeat) or no dst matrix shares an
/// element with a src matrix (checked by brute force), and then matches the sequential
/// reference.
#[test]
fn random_overlap_rule_against_brute_force() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let (mut ok, mut rejected) = (0, 0);
    for _ in 0..400 {
        let repeats = 1 + rng.below(4) as usize;
        let (ds, ss) = (rng.below(3) as usize, rng.below(3) as usize);
        let (doff, soff) = (rng.below(64) as usize * 16, rng.below(64) as usize * 16);
        let (ds, soff) = if rng.below(4) == 0 { (ss, doff) } else { (ds, soff) };
        let n = 4096;
        let mut pipe = TPipe::new();
        let t = tensor::<u16>(&mut pipe, n);
        let init: Vec<u16> = (0..n).map(|_| rng.next() as u16).collect();
        t.copy_from_slice(&init);
        let foot = |off: usize, stride: usize| -> Vec<bool> {
            let mut f = vec![false; n];
            for r in 0..repeats {
                f[off + r * stride * 256..][..256].iter_mut().for_each(|x| *x = true);
            }
            f
        };
        let (fd, fs) = (foot(doff, ds), foot(soff, ss));
        let meets = fd.iter().zip(&fs).any(|(a, b)| *a && *b);
        // One repeat: the strides never apply, so the same start is the same matrix.
        let same = doff == soff && (ds == ss || repeats == 1);
        let call = || vec_trans(&t.view(doff), &t.view(soff), repeats as u16, ds as u16, ss as u16);
        if meets && !same {
            assert_fails("partially overlap", call);
            assert_eq!(t.to_vec(), init, "a rejected call writes nothing");
            rejected += 1;
        } else {
            call();
            let mut want = init.clone();
            for r in 0..repeats {
                let m: Vec<u16> = want[soff + r * ss * 256..][..256].to_vec();
                want[doff + r * ds * 256..][..256].copy_from_slice(&ref_transpose(&m));
            }
            assert_eq!(t.to_vec(), want, "doff {doff} soff {soff} ds {ds} ss {ss} repeats {repeats}");
            ok += 1;
        }
    }
    assert!(ok > 50 && rejected > 50, "both outcomes exercised: {ok} ok, {rejected} rejected");
}

// ---------------------------------------------------------------------------------------------
// Transpose with TransposeParamsExt.

use util::{expect_panic, on, ub};

/// The slow reference of `TRANSPOSE_NCHW2NHWC` (`to_nhwc`) / `TRANSPOSE_NHWC2NCHW` by index
/// formula, as `np.transpose(src, (0, 2, 3, 1))` / `(0, 3, 1, 2)`.
fn ref_4d<T: Copy>(src: &[T], n: usize, c: usize, hw: usize, to_nhwc: bool) -> Vec<T> {
    let mut out = Vec::with_capacity(n * c * hw);
    for b in 0..n {
        if to_nhwc {
            for k in 0..hw {
                for ci in 0..c {
                    out.push(src[(b * c + ci) * hw + k]);
                }
            }
        } else {
            for ci in 0..c {
                for k in 0..hw {
                    out.push(src[(b * hw + k) * c + ci]);
                }
            }
        }
    }
    out
}

const NCHW2NHWC: TransposeType = TransposeType::TRANSPOSE_NCHW2NHWC;
const NHWC2NCHW: TransposeType = TransposeType::TRANSPOSE_NHWC2NCHW;

/// The vendor example's shape (scenario 2: half, N = 3, C = 3, H = 2, W = 8, a 2560-byte
/// buffer) on both chips that convert, and back.
#[test]
fn transpose_ext_vendor_shape_and_back() {
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        on(soc, || {
            let u = ub(8192);
            let (src, dst, back, tmp) =
                (u.t::<f16>(0, 144), u.t::<f16>(512, 144), u.t::<f16>(1024, 144), u.t::<u8>(1536, 3584));
            let data = halfs((0..144).map(|i| i as f32 * 0.5 - 30.0));
            src.copy_from_slice(&data);
            let p = TransposeParamsExt::new(3, 3, 2, 8, NCHW2NHWC);
            assert_eq!(transpose_ext_tmp_size::<f16>(Soc::Ascend910B, &p), 2560);
            transpose_ext(&dst, &src, &tmp, &p);
            assert_eq!(bits(&dst.to_vec()), bits(&ref_4d(&data, 3, 3, 16, true)), "{soc}");
            transpose_ext(&back, &dst, &tmp, &TransposeParamsExt { transpose_type: NHWC2NCHW, ..p });
            assert_eq!(bits(&back.to_vec()), bits(&data), "{soc}: NHWC2NCHW undoes NCHW2NHWC");
        });
    }
}

/// `sharedTmpBuffer` sizes of the vendor's formulas.
#[test]
fn transpose_ext_tmp_sizes() {
    let p = |c, ty| TransposeParamsExt::new(1, c, 4, 8, ty);
    assert_eq!(transpose_ext_tmp_size::<u8>(Soc::Ascend910B, &p(5, NCHW2NHWC)), 7 * 32 * 32);
    assert_eq!(transpose_ext_tmp_size::<u8>(Soc::Ascend910B, &p(5, NHWC2NCHW)), 11 * 32 * 32);
    assert_eq!(transpose_ext_tmp_size::<i16>(Soc::Ascend910B, &p(5, NCHW2NHWC)), 7 * 16 * 16 * 2);
    assert_eq!(transpose_ext_tmp_size::<f32>(Soc::Ascend910B, &p(5, NHWC2NCHW)), 11 * 16 * 8 * 4);
    assert_eq!(transpose_ext_tmp_size::<f32>(Soc::Ascend310P, &p(5, NHWC2NCHW)), 0);
    assert_eq!(transpose_ext_tmp_size::<u16>(Soc::Ascend910B, &p(5, TransposeType::TRANSPOSE_ND2ND_B16)), 0);
}

/// One random `transpose_ext` of type `T` on `soc`: shape (H * W a whole number of blocks),
/// direction, exact buffer, and a random `dst` around the result that must survive.
fn random_4d<T: TransposeExtElement>(soc: Soc, rng: &mut Rng) {
    let epb = 32 / T::SIZE;
    let n = rng.below(4) as usize;
    let c = 1 + rng.below(24) as usize;
    let hw = epb * (1 + rng.below(8) as usize);
    let (h, w) = if rng.chance(2) { (hw / epb, epb) } else { (1, hw) };
    let ty = if rng.chance(2) { NCHW2NHWC } else { NHWC2NCHW };
    let p = TransposeParamsExt::new(n as u16, c as u16, h as u16, w as u16, ty);
    let total = n * c * hw;
    let bytes = (total * T::SIZE).div_ceil(32) * 32 + 64;
    let need = transpose_ext_tmp_size::<T>(soc, &p).max(32);
    let u = ub(2 * bytes + need);
    let (src, dst, tmp) =
        (u.t::<T>(0, bytes / T::SIZE), u.t::<T>(bytes, bytes / T::SIZE), u.t::<u8>(2 * bytes, need));
    let s: Vec<T> = (0..bytes / T::SIZE).map(|_| T::from_f64(rng.below(200) as f64 - 100.0)).collect();
    let d0: Vec<T> = (0..bytes / T::SIZE).map(|_| T::from_f64(rng.below(50) as f64)).collect();
    src.copy_from_slice(&s);
    dst.copy_from_slice(&d0);
    transpose_ext(&dst, &src, &tmp, &p);
    let mut want = d0.clone();
    want[..total].copy_from_slice(&ref_4d(&s, n, c, hw, ty == NCHW2NHWC));
    assert_eq!(bits(&dst.to_vec()), bits(&want), "{soc} {} {p:?}", T::DTYPE);
    assert_eq!(bits(&src.to_vec()), bits(&s), "src unchanged");
}

macro_rules! transpose_ext_per_type {
    ($($t:ident),*) => {$(
        paste::paste! {
            #[test]
            fn [<transpose_ext_random_ $t>]() {
                let mut rng = Rng(0x7A3D_0000 ^ std::mem::size_of::<$t>() as u64 ^ (stringify!($t).len() as u64) << 8);
                for soc in [Soc::Ascend910B, Soc::Ascend310P] {
                    on(soc, || {
                        for _ in 0..25 {
                            random_4d::<$t>(soc, &mut rng);
                        }
                    });
                }
            }
        }
    )*};
}
transpose_ext_per_type!(i8, u8, i16, u16, f16, i32, u32, f32);

/// A size of 0 writes nothing; `TRANSPOSE_TYPE_NONE` does nothing.
#[test]
fn transpose_ext_nothing_to_do() {
    on(Soc::Ascend910B, || {
        let u = ub(8192);
        let (src, dst, tmp) = (u.t::<u16>(0, 512), u.t::<u16>(1024, 512), u.t::<u8>(2048, 4096));
        src.copy_from_slice(&(0..512).collect::<Vec<u16>>());
        dst.copy_from_slice(&[7; 512]);
        for (n, c, h, w) in [(0, 3, 2, 16), (2, 0, 2, 16), (2, 3, 0, 16), (2, 3, 2, 0)] {
            transpose_ext(&dst, &src, &tmp, &TransposeParamsExt::new(n, c, h, w, NCHW2NHWC));
            transpose_ext(&dst, &src, &tmp, &TransposeParamsExt::new(n, c, h, w, NHWC2NCHW));
        }
        let p = TransposeParamsExt::new(1, 1, 16, 16, TransposeType::TRANSPOSE_TYPE_NONE);
        transpose_ext(&dst, &src, &tmp, &p);
        assert_eq!(dst.to_vec(), vec![7; 512]);
    });
}

/// `TRANSPOSE_ND2ND_B16` is `Transpose(dst, src)` of `uint16_t`, in place too, without a buffer.
#[test]
fn transpose_ext_nd2nd_b16() {
    for soc in [Soc::Ascend910B, Soc::Ascend310P, Soc::Ascend310B] {
        on(soc, || {
            let u = ub(2048);
            let (src, dst) = (u.t::<u16>(0, 256), u.t::<u16>(512, 256));
            let empty = u.t::<u8>(1024, 0);
            let data: Vec<u16> = (0..256).map(|i| i * 7 + 1).collect();
            src.copy_from_slice(&data);
            let p = TransposeParamsExt::new(9, 9, 16, 16, TransposeType::TRANSPOSE_ND2ND_B16);
            transpose_ext(&dst, &src, &empty, &p);
            assert_eq!(dst.to_vec(), ref_transpose(&data), "{soc}");
            transpose_ext(
                &src,
                &src,
                &empty,
                &TransposeParamsExt { h_size: 16, w_size: 16, ..Default::default() },
            );
            assert_eq!(src.to_vec(), ref_transpose(&data), "{soc}: in place");
        });
    }
}

#[test]
fn transpose_ext_checks() {
    let fails = |needles: &[&str], f: &dyn Fn()| {
        let mut n = vec!["Transpose"];
        n.extend_from_slice(needles);
        expect_panic(f, &n);
    };
    // Chips.
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        on(soc, || {
            let u = ub(4096);
            let (a, b, t) = (u.t::<f16>(0, 256), u.t::<f16>(512, 256), u.t::<u8>(1024, 2048));
            fails(&["TransposeType::TRANSPOSE_NCHW2NHWC is not supported on", &soc.to_string()], &|| {
                transpose_ext(&a, &b, &t, &TransposeParamsExt::new(1, 2, 1, 16, NCHW2NHWC))
            });
        });
    }
    on(Soc::Ascend910, || {
        let u = ub(2048);
        let (a, b, t) = (u.t::<u16>(0, 256), u.t::<u16>(512, 256), u.t::<u8>(1024, 32));
        fails(&["TRANSPOSE_ND2ND_B16 is not supported on Ascend910"], &|| {
            transpose_ext(
                &a,
                &b,
                &t,
                &TransposeParamsExt::new(0, 0, 16, 16, TransposeType::TRANSPOSE_ND2ND_B16),
            )
        });
    });
    on(Soc::Ascend910B, || {
        let u = ub(65536);
        let (a, b, t) = (u.t::<f16>(0, 8192), u.t::<f16>(16384, 8192), u.t::<u8>(32768, 32768));
        let p = |n, c, h, w| TransposeParamsExt::new(n, c, h, w, NCHW2NHWC);
        // TRANSPOSE_ND2ND_B16: type and shape.
        fails(
            &["T = half is not supported with TransposeType::TRANSPOSE_ND2ND_B16: only uint16_t is"],
            &|| {
                transpose_ext(
                    &a,
                    &b,
                    &t,
                    &TransposeParamsExt::new(0, 0, 16, 16, TransposeType::TRANSPOSE_ND2ND_B16),
                )
            },
        );
        let (a16, b16) = (a.reinterpret_cast::<u16>(), b.reinterpret_cast::<u16>());
        fails(&["hSize = 16, wSize = 8", "takes hSize = wSize = 16"], &|| {
            transpose_ext(
                &a16,
                &b16,
                &t,
                &TransposeParamsExt::new(0, 0, 16, 8, TransposeType::TRANSPOSE_ND2ND_B16),
            )
        });
        // Unsupported types.
        fails(&["transposeType = TransposeType::TRANSPOSE_NZ2ND_0213 is not supported"], &|| {
            transpose_ext(
                &a,
                &b,
                &t,
                &TransposeParamsExt::new(1, 1, 16, 16, TransposeType::TRANSPOSE_NZ2ND_0213),
            )
        });
        // Ranges.
        fails(&["cSize = 4096 is out of range [0, 4095]"], &|| transpose_ext(&a, &b, &t, &p(1, 4096, 1, 16)));
        fails(&["hSize * wSize = 64 * 64 = 4096 is out of range [0, 4095]"], &|| {
            transpose_ext(&a, &b, &t, &p(1, 1, 64, 64))
        });
        fails(&["hSize * wSize * sizeof(T) = 3 * 2 = 6 bytes is not a multiple of 32"], &|| {
            transpose_ext(&a, &b, &t, &p(1, 2, 1, 3))
        });
        // Sizes of dst and src.
        fails(
            &["dst holds 8192 elements but nSize * cSize * hSize * wSize = 2 * 17 * 16 * 16 = 8704"],
            &|| transpose_ext(&a, &b, &t, &p(2, 17, 16, 16)),
        );
        fails(&["dst holds 16 elements but nSize * cSize * hSize * wSize"], &|| {
            transpose_ext(&a.view_len(0, 16), &b, &t, &p(1, 2, 1, 16))
        });
        // Alignment.
        fails(&["dst address = 0x10 is not 32-byte aligned"], &|| {
            transpose_ext(&a.view(8), &b, &t, &p(1, 2, 1, 16))
        });
        // dst and src may not share memory.
        fails(&["overlaps src", "does not support src and dst sharing memory"], &|| {
            transpose_ext(&a, &a, &t, &p(1, 2, 1, 16))
        });
        fails(&["overlaps src"], &|| transpose_ext(&a.view(16), &a, &t, &p(1, 2, 1, 16)));
        // The buffer: size, overlap, alignment.
        fails(
            &["sharedTmpBuffer holds 1535 bytes but TransposeType::TRANSPOSE_NCHW2NHWC of half with cSize = 2 needs 2048 ((cSize + 2) * h0 * w0 * sizeof(T))"],
            &|| transpose_ext(&a, &b, &t.view_len(0, 1535), &p(1, 2, 1, 16)),
        );
        fails(&["needs 2560 ((cSize * 2 + 1) * h0 * w0 * sizeof(T))"], &|| {
            transpose_ext(&a, &b, &t.view_len(0, 64), &TransposeParamsExt::new(1, 2, 1, 16, NHWC2NCHW))
        });
        fails(&["sharedTmpBuffer (bytes 0x0..0x800) overlaps dst"], &|| {
            transpose_ext(&a, &b, &a.reinterpret_cast::<u8>(), &p(1, 2, 1, 16))
        });
        fails(&["sharedTmpBuffer address = 0x8010 is not 32-byte aligned"], &|| {
            transpose_ext(&a, &b, &t.view(16), &p(1, 2, 1, 16))
        });
    });
    // Ascend310P needs no buffer: an empty one is fine.
    on(Soc::Ascend310P, || {
        let u = ub(2048);
        let (a, b) = (u.t::<f32>(0, 64), u.t::<f32>(512, 64));
        b.copy_from_slice(&(0..64).map(|i| i as f32).collect::<Vec<_>>());
        transpose_ext(&a, &b, &u.t::<u8>(1024, 0), &TransposeParamsExt::new(1, 8, 1, 8, NCHW2NHWC));
        assert_eq!(a.to_vec(), ref_4d(&b.to_vec(), 1, 8, 8, true));
    });
}

// ---------------------------------------------------------------------------------------------
// TransDataTo5HD.

/// The vendor page's `int8_t` example: 16 blocks of bytes `32 * (k % 4) + j`, both halves
/// high, in all three call forms.
#[test]
fn trans_data_doc_example_int8_high_halves() {
    let src_rows: Vec<i8> = (0..16).flat_map(|k| (0..32).map(move |j| (32 * (k % 4) + j) as i8)).collect();
    let want: Vec<i8> = (0..16)
        .flat_map(|i| {
            (0..32).map(move |j| if j < 16 { 0 } else { [16, 48, 80, 112][(j - 16) % 4] + i as i8 })
        })
        .collect();
    for soc in Soc::ALL {
        on(soc, || {
            let u = ub(2048);
            let (src, dst, lists) = (u.t::<i8>(0, 512), u.t::<i8>(512, 512), u.t::<u64>(1024, 32));
            let params = TransDataTo5HDParams::new(true, true, 1, 0, 0);
            for form in 0..3 {
                if form == 2 && soc == Soc::Ascend910 {
                    continue;
                }
                src.copy_from_slice(&src_rows);
                dst.copy_from_slice(&[0; 512]);
                match form {
                    0 => {
                        let dl: [LocalTensor<i8>; 16] = std::array::from_fn(|i| dst.view(32 * i));
                        let sl: [LocalTensor<i8>; 16] = std::array::from_fn(|i| src.view(32 * i));
                        trans_data_to_5hd(&dl, &sl, &params);
                    }
                    1 => {
                        let dl: [u64; 16] = std::array::from_fn(|i| dst.view(32 * i).get_phy_addr() as u64);
                        let sl: [u64; 16] = std::array::from_fn(|i| src.view(32 * i).get_phy_addr() as u64);
                        trans_data_to_5hd_addr::<i8>(&dl, &sl, &params);
                    }
                    _ => {
                        let (dl, sl) = (lists.view_len(0, 16), lists.view_len(16, 16));
                        for i in 0..16 {
                            dl.set_value(i, dst.view(32 * i).get_phy_addr() as u64);
                            sl.set_value(i, src.view(32 * i).get_phy_addr() as u64);
                        }
                        trans_data_to_5hd_addr_tensor::<i8>(&dl, &sl, &params);
                    }
                }
                assert_eq!(dst.to_vec(), want, "{soc} form {form}");
            }
        });
    }
}

/// The page's `half` (16×16 transpose) and `int32_t` (16×8 → 8×16) examples.
#[test]
fn trans_data_doc_examples_half_and_int32() {
    on(Soc::Ascend910B, || {
        let u = ub(2048);
        let (src, dst) = (u.t::<f16>(0, 256), u.t::<f16>(512, 256));
        let data = halfs(0..256);
        src.copy_from_slice(&data);
        let dl: [u64; 16] = std::array::from_fn(|i| dst.view(16 * i).get_phy_addr() as u64);
        let sl: [u64; 16] = std::array::from_fn(|i| src.view(16 * i).get_phy_addr() as u64);
        trans_data_to_5hd_addr::<f16>(&dl, &sl, &TransDataTo5HDParams::new(false, false, 1, 0, 0));
        assert_eq!(bits(&dst.to_vec()), bits(&ref_transpose(&data)));

        let (src, dst) = (u.t::<i32>(1024, 128), u.t::<i32>(1536, 128));
        src.copy_from_slice(&(0..128).collect::<Vec<i32>>());
        let dl: [u64; 16] = std::array::from_fn(|i| dst.view(8 * i).get_phy_addr() as u64);
        let sl: [u64; 16] = std::array::from_fn(|i| src.view(8 * i).get_phy_addr() as u64);
        trans_data_to_5hd_addr::<i32>(&dl, &sl, &TransDataTo5HDParams::default());
        // Output row j (16 elements): [j, 8 + j, 16 + j, ..., 120 + j].
        let want: Vec<i32> = (0..8).flat_map(|j| (0..16).map(move |k| 8 * k + j)).collect();
        assert_eq!(dst.to_vec(), want);
    });
}

/// The page's NCHW -> NC1HWC0 loop (N = 2, C = 32, H = W = 16, half): four calls of 16
/// repeats with dstRepStride 16 and srcRepStride 1 give `reshape(2, 2, 16, 16, 16)
/// .transpose(0, 1, 3, 4, 2)`.
#[test]
fn trans_data_doc_nchw_to_nc1hwc0() {
    on(Soc::Ascend310P, || {
        let (n, c, h, w, c0) = (2, 32, 16, 16, 16);
        let total = n * c * h * w;
        let u = ub(4 * total);
        let (src, dst) = (u.t::<u16>(0, total), u.t::<u16>(2 * total, total));
        let data: Vec<u16> = (0..total).map(|i| (i * 7919) as u16).collect();
        src.copy_from_slice(&data);
        let params = TransDataTo5HDParams::new(false, false, 16, 16, 1);
        for lp in 0..n * c / 16 {
            let sl: [LocalTensor<u16>; 16] = std::array::from_fn(|i| src.view(lp * 16 * h * w + i * h * w));
            let dl: [LocalTensor<u16>; 16] = std::array::from_fn(|i| dst.view(lp * 16 * h * w + i * c0));
            trans_data_to_5hd(&dl, &sl, &params);
        }
        let mut want = vec![0u16; total];
        for b in 0..n {
            for c1 in 0..c / c0 {
                for y in 0..h * w {
                    for k in 0..c0 {
                        want[((b * (c / c0) + c1) * h * w + y) * c0 + k] =
                            data[(b * c + c1 * c0 + k) * h * w + y];
                    }
                }
            }
        }
        assert_eq!(dst.to_vec(), want);
    });
}

/// The slow reference on a byte image of the UB: repeats in order, each reading its 16
/// source units before writing, with the vendor's repeat offsets (`repStride` alone when
/// there is one repeat).
fn ref_5hd(mem: &mut [u8], size: usize, d: &[usize; 16], s: &[usize; 16], p: &TransDataTo5HDParams) {
    let rep = usize::from(p.repeat_times);
    let off = |r: usize, stride: u16| 32 * usize::from(stride) * if rep == 1 { 1 } else { r };
    for r in 0..rep {
        let (od, os) = (off(r, p.dst_rep_stride), off(r, p.src_rep_stride));
        let snapshot = mem.to_vec();
        let get = |a: usize, n: usize| &snapshot[a..a + n];
        match size {
            1 => {
                let (dh, sh) = (16 * usize::from(p.dst_high_half), 16 * usize::from(p.src_high_half));
                for i in 0..16 {
                    for k in 0..16 {
                        mem[d[i] + od + dh + k] = get(s[k] + os + sh + i, 1)[0];
                    }
                }
            }
            2 => {
                for i in 0..16 {
                    for k in 0..16 {
                        let v = get(s[k] + os + 2 * i, 2).to_vec();
                        mem[d[i] + od + 2 * k..][..2].copy_from_slice(&v);
                    }
                }
            }
            _ => {
                for j in 0..8 {
                    for k in 0..16 {
                        let v = get(s[k] + os + 4 * j, 4).to_vec();
                        mem[d[2 * j + k / 8] + od + 4 * (k % 8)..][..4].copy_from_slice(&v);
                    }
                }
            }
        }
    }
}

/// Random lists (src entries in the first 32 KiB, dst entries in the second, any order,
/// duplicates allowed), repeats 0..=5 (1 often), strides, halves and chips, in one of the
/// three forms; occasionally in place (dst list = src list, one repeat). The whole UB image
/// must match the reference.
fn random_5hd<T: TransDataTo5HDElement>(soc: Soc, rng: &mut Rng) {
    const REGION: usize = 32 * 1024;
    let u = ub(2 * REGION + 256);
    let all = u.t::<u8>(0, 2 * REGION);
    let image = rng.bytes(2 * REGION);
    all.copy_from_slice(&image);
    let rep = [0, 1, 1, 1, 2, 3, 5][rng.index(7)] as u8;
    let (ds, ss) = (rng.below(40) as u16, rng.below(40) as u16);
    let byte = T::SIZE == 1;
    let p = TransDataTo5HDParams::new(byte && rng.chance(2), byte && rng.chance(2), rep, ds, ss);
    let reach = |stride: u16| 32 * usize::from(stride) * usize::from(rep).max(1) + 32;
    let pick =
        |rng: &mut Rng, base: usize, stride: u16| base + 32 * rng.index((REGION - reach(stride)) / 32 + 1);
    let sl: [usize; 16] = std::array::from_fn(|_| pick(rng, 0, ss));
    let in_place = rep == 1 && ds == ss && rng.chance(5);
    let dl: [usize; 16] = if in_place { sl } else { std::array::from_fn(|_| pick(rng, REGION, ds)) };
    let mut want = image.clone();
    ref_5hd(&mut want, T::SIZE, &dl, &sl, &p);
    let form = if soc == Soc::Ascend910 { rng.index(2) } else { rng.index(3) };
    match form {
        0 => {
            let t = |a: usize| u.t::<T>(a, (2 * REGION - a) / T::SIZE);
            let (d, s): ([LocalTensor<T>; 16], [LocalTensor<T>; 16]) =
                (std::array::from_fn(|i| t(dl[i])), std::array::from_fn(|i| t(sl[i])));
            trans_data_to_5hd(&d, &s, &p);
        }
        1 => trans_data_to_5hd_addr::<T>(&dl.map(|a| a as u64), &sl.map(|a| a as u64), &p),
        _ => {
            let (d, s) = (u.t::<u64>(2 * REGION, 16), u.t::<u64>(2 * REGION + 128, 16));
            d.copy_from_slice(&dl.map(|a| a as u64));
            s.copy_from_slice(&sl.map(|a| a as u64));
            trans_data_to_5hd_addr_tensor::<T>(&d, &s, &p);
            // Entries 0..4 now hold the packed block numbers.
            let pack = |l: &[usize; 16], i: usize| {
                (0..4).fold(0u64, |m, j| m | ((l[4 * i + j] as u64 >> 5) << (16 * j)))
            };
            assert_eq!(d.to_vec()[..4], (0..4).map(|i| pack(&dl, i)).collect::<Vec<_>>()[..]);
            assert_eq!(s.to_vec()[4..], sl.map(|a| a as u64)[4..]);
        }
    }
    let got = all.to_vec();
    if got != want {
        let first = got.iter().zip(&want).position(|(a, b)| a != b).unwrap();
        panic!(
            "{soc} {} form {form} {p:?} in place {in_place}: first difference at byte {first:#x}",
            T::DTYPE
        );
    }
}

macro_rules! trans_data_per_type {
    ($($t:ident),*) => {$(
        paste::paste! {
            #[test]
            fn [<trans_data_random_ $t>]() {
                let mut rng = Rng(0x5D_0000 ^ std::mem::size_of::<$t>() as u64 ^ (stringify!($t).len() as u64) << 12);
                let socs: Vec<Soc> = Soc::ALL.into_iter().filter(|&s| <$t>::trans_data_to_5hd_supported(s)).collect();
                for k in 0..60 {
                    let soc = socs[k % socs.len()];
                    on(soc, || random_5hd::<$t>(soc, &mut rng));
                }
            }
        }
    )*};
}
trans_data_per_type!(i8, u8, i16, u16, f16, i32, u32, f32);

/// With one repeat the repeat stride still applies (the vendor's documented rule).
#[test]
fn trans_data_single_repeat_uses_the_stride() {
    on(Soc::Ascend910B, || {
        let u = ub(4096);
        let (src, dst) = (u.t::<u16>(0, 1024), u.t::<u16>(2048, 1024));
        src.copy_from_slice(&(0..1024).collect::<Vec<u16>>());
        dst.copy_from_slice(&[0; 1024]);
        let dl: [u64; 16] = std::array::from_fn(|i| dst.view(16 * i).get_phy_addr() as u64);
        let sl: [u64; 16] = std::array::from_fn(|i| src.view(16 * i).get_phy_addr() as u64);
        // One repeat, strides 16 (dst) and 32 (src) blocks: matrix 2 of src into matrix 1 of dst.
        trans_data_to_5hd_addr::<u16>(&dl, &sl, &TransDataTo5HDParams::new(false, false, 1, 16, 32));
        let out = dst.to_vec();
        assert!(out[..256].iter().all(|v| *v == 0));
        assert_eq!(out[256..512], ref_transpose(&(512..768).collect::<Vec<u16>>())[..]);
        // Zero repeats: nothing.
        trans_data_to_5hd_addr::<u16>(&sl, &dl, &TransDataTo5HDParams::new(false, false, 0, 0, 0));
        assert_eq!(src.to_vec(), (0..1024).collect::<Vec<u16>>());
    });
}

#[test]
fn trans_data_checks() {
    let fails = |needles: &[&str], f: &dyn Fn()| {
        let mut n = vec!["TransDataTo5HD"];
        n.extend_from_slice(needles);
        expect_panic(f, &n);
    };
    on(Soc::Ascend910, || {
        let u = ub(2048);
        let l: [u64; 16] = std::array::from_fn(|i| 32 * i as u64);
        fails(&["T = float is not supported on Ascend910"], &|| {
            trans_data_to_5hd_addr::<f32>(&l, &l, &TransDataTo5HDParams::default())
        });
        let t = u.t::<u64>(1024, 16);
        fails(&["LocalTensor<uint64_t> is not supported on Ascend910"], &|| {
            trans_data_to_5hd_addr_tensor::<u16>(&t, &t, &TransDataTo5HDParams::default())
        });
    });
    on(Soc::Ascend910B, || {
        let u = ub(8192);
        let src: [u64; 16] = std::array::from_fn(|i| 32 * i as u64);
        let dst: [u64; 16] = std::array::from_fn(|i| 1024 + 32 * i as u64);
        let p = TransDataTo5HDParams::default();
        fails(&["dstHighHalf = true is only valid for int8_t / uint8_t, not half"], &|| {
            trans_data_to_5hd_addr::<f16>(&dst, &src, &TransDataTo5HDParams::new(true, false, 1, 0, 0))
        });
        fails(&["srcHighHalf = true is only valid for int8_t / uint8_t, not float"], &|| {
            trans_data_to_5hd_addr::<f32>(&dst, &src, &TransDataTo5HDParams::new(false, true, 1, 0, 0))
        });
        let mut bad = dst;
        bad[3] += 8;
        fails(&["dstList[3] address = 0x468 is not 32-byte aligned"], &|| {
            trans_data_to_5hd_addr::<u16>(&bad, &src, &p)
        });
        let mut far = src;
        far[15] = 0x40_0000;
        fails(&["srcList[15] address = 0x400000 is outside the Unified Buffer"], &|| {
            trans_data_to_5hd_addr::<u16>(&dst, &far, &p)
        });
        // A repeat reaching past the UB.
        let mut last = src;
        last[0] = (Soc::Ascend910B.ub_size() - 32) as u64;
        fails(
            &["srcList[0] (address 0x2ffe0) would touch bytes up to 0x30020 but its memory ends at 0x30000"],
            &|| trans_data_to_5hd_addr::<u16>(&dst, &last, &TransDataTo5HDParams::new(false, false, 2, 0, 1)),
        );
        // A tensor list entry reaching past its tensor.
        let t = u.t::<u16>(0, 512);
        let d: [LocalTensor<u16>; 16] = std::array::from_fn(|i| t.view(16 * i));
        let s: [LocalTensor<u16>; 16] = std::array::from_fn(|i| u.t::<u16>(2048 + 32 * i, 16));
        fails(
            &["srcList[0] (address 0x800) would touch bytes up to 0x840 but its memory ends at 0x820"],
            &|| trans_data_to_5hd(&d, &s, &TransDataTo5HDParams::new(false, false, 1, 0, 1)),
        );
        // Overlap: inside a repeat, partial.
        let shifted: [u64; 16] = std::array::from_fn(|i| 32 + 32 * i as u64);
        fails(&["in repeat 0, the dst blocks and the src blocks partially overlap"], &|| {
            trans_data_to_5hd_addr::<u16>(&shifted, &src, &p)
        });
        // Overlap: a repeat writes what a later one reads.
        fails(&["repeat 0 writes dst bytes at 0x200 that a later repeat reads as src"], &|| {
            trans_data_to_5hd_addr::<u16>(
                &dst.map(|a| a - 1024 + 512),
                &src,
                &TransDataTo5HDParams::new(false, false, 2, 0, 16),
            )
        });
        // The address tensors.
        let lists = u.t::<u64>(4096, 64);
        fails(&["dst holds 8 addresses but TransDataTo5HD reads 16"], &|| {
            trans_data_to_5hd_addr_tensor::<u16>(&lists.view_len(0, 8), &lists.view(16), &p)
        });
        fails(&["share bytes; TransDataTo5HD rewrites both address tensors in place"], &|| {
            trans_data_to_5hd_addr_tensor::<u16>(&lists, &lists.view(8), &p)
        });
    });
    // A list entry that is not in the Unified Buffer.
    on(Soc::Ascend910B, || {
        let mut pipe = TPipe::new();
        let mut v = TBuf::<VecCalc>::new();
        pipe.init_tbuf(&mut v, 1024);
        let (far, t) = (LocalTensor::<u16>::new(TPosition::A1, 0, 256), v.get::<u16>());
        let d: [LocalTensor<u16>; 16] = std::array::from_fn(|i| t.view(16 * i));
        let mut s = d.clone();
        s[7] = far;
        fails(&["srcList[7] is at position A1"], &|| {
            trans_data_to_5hd(&d, &s, &TransDataTo5HDParams::default())
        });
    });
}

/// The sanitizer sees the instruction: with the compiler's automatic synchronisation off, a
/// scalar write of source data right before the call needs `SetFlag/WaitFlag<S_V>`; the
/// address-tensor form synchronises its own rewrite of the lists (the vendor's internal
/// `S_V` event), so filling the lists with `SetValue` needs nothing more.
#[test]
fn trans_data_sanitizer_hooks() {
    use ascend_core::sanitizer::LaunchSanitizer;
    let setup = |u: &util::Ub| {
        let (src, dst, lists) = (u.t::<u16>(0, 256), u.t::<u16>(512, 256), u.t::<u64>(1024, 32));
        let (dl, sl) = (lists.view_len(0, 16), lists.view_len(16, 16));
        for i in 0..16 {
            dl.set_value(i, dst.view(16 * i).get_phy_addr() as u64);
            sl.set_value(i, src.view(16 * i).get_phy_addr() as u64);
        }
        (src, dst, dl, sl)
    };
    on(Soc::Ascend910B, || {
        LaunchSanitizer::with_auto_sync(false).run_core(|| {
            let u = ub(2048);
            let (src, dst, dl, sl) = setup(&u);
            src.copy_from_slice(&(0..256).collect::<Vec<u16>>());
            trans_data_to_5hd_addr_tensor::<u16>(&dl, &sl, &TransDataTo5HDParams::default());
            assert_eq!(dst.to_vec(), ref_transpose(&(0..256).collect::<Vec<u16>>()));
        })
    });
    on(Soc::Ascend910B, || {
        let msg = util::panic_message(|| {
            LaunchSanitizer::with_auto_sync(false).run_core(|| {
                let u = ub(2048);
                let (src, dst, ..) = setup(&u);
                src.set_value(5, 1);
                let dl: [u64; 16] = std::array::from_fn(|i| dst.view(16 * i).get_phy_addr() as u64);
                let sl: [u64; 16] = std::array::from_fn(|i| src.view(16 * i).get_phy_addr() as u64);
                trans_data_to_5hd_addr::<u16>(&dl, &sl, &TransDataTo5HDParams::default());
            })
        });
        assert!(msg.contains("TransDataTo5HD") && msg.contains("SetValue"), "{msg}");
    });
}
