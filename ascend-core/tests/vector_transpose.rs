//! `vec_trans` (TIK) and `Transpose` (AscendC): seed 000 examples, every 16-bit type, in place,
//! a random reference over repeats and strides, and every check.

use ascend_core::prelude::*;

#[path = "common/util.rs"]
mod util;
use util::{assert_fails, bits, halfs, panic_message, tensor, Rng};

#[path = "common/prop.rs"]
mod strat;
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
    let mut l1 = TBuf::<A1>::new();
    pipe.init_tbuf(&mut l1, 512);
    let far = l1.get::<u16>();
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
/// (same start and stride) or no dst matrix shares an element with a src matrix (checked by
/// brute force), and then matches the sequential reference.
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
        let same = doff == soff && ds == ss;
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
