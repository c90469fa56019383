//! The advanced API's bitwise math (`adv/math_more.rs`): `Xor` against a scalar reference
//! that restates the vendor's steps (`And`, `Or` into the scratch, `Not`, `And`), for
//! `int16_t` and `uint16_t` on every chip with an implementation (Ascend910B, Ascend310P in
//! counter mode; Ascend310B with count forms), counts that leave tails, scratch sizes that force
//! several rounds, and the stack form; then the scratch's last round, the mask state, the host
//! tiling and every error.

use ascend_core::prelude::*;

#[path = "common/util.rs"]
mod util;
use util::{expect_panic, on, ub, Rng, SENTINEL};

const CHIPS: [Soc; 3] = [Soc::Ascend910B, Soc::Ascend310P, Soc::Ascend310B];

/// The element types, through their 16 bits.
trait Int: XorElement + std::fmt::Debug + PartialEq {
    fn of(bits: u16) -> Self;
    fn raw(self) -> u16;
}

impl Int for i16 {
    fn of(bits: u16) -> i16 {
        bits as i16
    }
    fn raw(self) -> u16 {
        self as u16
    }
}

impl Int for u16 {
    fn of(bits: u16) -> u16 {
        bits
    }
    fn raw(self) -> u16 {
        self
    }
}

/// The vendor's steps for one element: `d = a & b`, `t = a | b`, `d = !d`, `d = t & d`.
fn r_xor(a: u16, b: u16) -> (u16, u16) {
    let d = a & b;
    let t = a | b;
    let d = !d;
    (t & d, t)
}

fn draw<T: Int>(rng: &mut Rng, n: usize) -> Vec<T> {
    (0..n).map(|_| T::of(rng.next() as u16)).collect()
}

/// Runs `Xor` on `soc` over `count` random pairs; checks the result, the rest of `dst`, the
/// sources, the mask mode and the scratch (the last round's `a | b`, the rest untouched).
fn check_xor<T: Int>(soc: Soc, count: usize, tmp_bytes: Option<usize>, seed: u64) {
    on(soc, || {
        let mut rng = Rng(seed);
        let cap = (count + 40).div_ceil(16) * 16;
        let region = cap * 2;
        let scratch = tmp_bytes.unwrap_or(0).div_ceil(32) * 32;
        let u = ub(3 * region + scratch.max(32));
        let (a, b, dst) = (u.t::<T>(0, cap), u.t::<T>(region, cap), u.t::<T>(2 * region, cap));
        let tmp = u.t::<u8>(3 * region, tmp_bytes.unwrap_or(0));
        let (xa, xb, old) = (draw::<T>(&mut rng, cap), draw::<T>(&mut rng, cap), draw::<T>(&mut rng, cap));
        a.copy_from_slice(&xa);
        b.copy_from_slice(&xb);
        dst.copy_from_slice(&old);
        tmp.copy_from_slice(&vec![SENTINEL; tmp.get_size()]);
        match tmp_bytes {
            Some(_) => xor::<T, false>(&dst, &a, &b, &tmp, count),
            None => xor_stack::<T, false>(&dst, &a, &b, count),
        }
        let ctx = format!("Xor {:?} on {soc}, count {count}, tmp {tmp_bytes:?}", T::DTYPE);
        let mut want: Vec<T> = (0..count).map(|i| T::of(r_xor(xa[i].raw(), xb[i].raw()).0)).collect();
        want.extend_from_slice(&old[count..]);
        assert_eq!(dst.to_vec(), want, "{ctx}");
        for i in 0..count {
            assert_eq!(dst.get_value(i).raw(), xa[i].raw() ^ xb[i].raw(), "element {i}; {ctx}");
        }
        assert_eq!(a.to_vec(), xa, "src0 written; {ctx}");
        assert_eq!(b.to_vec(), xb, "src1 written; {ctx}");
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
        let Some(bytes) = tmp_bytes else { return };
        let split = bytes / 2 / 32 * 32;
        let t = tmp.to_vec();
        if count > 0 {
            let off = if count % split != 0 { count / split * split } else { count - split };
            let want_t: Vec<u8> =
                (off..count).flat_map(|i| r_xor(xa[i].raw(), xb[i].raw()).1.to_le_bytes()).collect();
            assert_eq!(t[..want_t.len()], want_t[..], "scratch's last a | b; {ctx}");
        }
        // Beyond the largest round the scratch is untouched.
        let touched = count.min(split);
        assert!(t[2 * touched..].iter().all(|&v| v == SENTINEL), "scratch beyond {touched} elements; {ctx}");
    });
}

#[test]
fn xor_every_type_and_chip() {
    let mut s = 100;
    for soc in CHIPS {
        for count in [0usize, 1, 37, 64, 200, 1000, 1024] {
            for tmp in [Some(64usize), Some(100), Some(256), Some(2048), None] {
                s += 1;
                check_xor::<i16>(soc, count, tmp, s);
                check_xor::<u16>(soc, count, tmp, s + 1000);
            }
        }
    }
}

#[test]
fn xor_page_example_and_same_sources() {
    for soc in CHIPS {
        on(soc, || {
            let u = ub(4 * 64 + 256);
            let (a, b, d) = (u.t::<i16>(0, 32), u.t::<i16>(64, 32), u.t::<i16>(128, 32));
            let t = u.t::<u8>(256, 256);
            a.copy_from_slice(&[2, 3, 5, 7, 11, 13, 17, 19].repeat(4));
            b.copy_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8].repeat(4));
            xor::<_, false>(&d, &a, &b, &t, 32);
            // The page prints 10 for 13 ^ 6; it is 11 (0b1101 ^ 0b0110 = 0b1011).
            assert_eq!(d.to_vec(), [3, 1, 6, 3, 14, 11, 22, 27].repeat(4), "{soc}");
            // The sources may be one tensor: x ^ x = 0.
            xor::<_, false>(&d, &a, &a, &t, 32);
            assert_eq!(d.to_vec(), vec![0; 32], "{soc}");
            // Extremes.
            a.copy_from_slice(&[i16::MIN, -1, 0, i16::MAX].repeat(8));
            b.copy_from_slice(&[-1, i16::MIN, -1, i16::MIN].repeat(8));
            xor::<_, false>(&d, &a, &b, &t, 32);
            assert_eq!(d.to_vec()[..4], [i16::MAX, i16::MAX, -1, -1], "{soc}");
        });
    }
}

#[test]
fn xor_leaves_normal_mode_and_a_full_mask() {
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        on(soc, || {
            let u = ub(3 * 512 + 256);
            let (a, b, d) = (u.t::<u16>(0, 256), u.t::<u16>(512, 256), u.t::<u16>(1024, 256));
            let t = u.t::<u8>(1536, 256);
            set_vector_mask::<u16>(Mask::Count(3));
            xor::<_, false>(&d, &a, &b, &t, 200);
            assert_eq!(get_mask_mode(), MaskMode::Normal);
            // A full mask: a masked instruction afterwards writes all 128 lanes.
            d.copy_from_slice(&[7u16; 256]);
            a.copy_from_slice(&[1u16; 256]);
            b.copy_from_slice(&[2u16; 256]);
            or_masked::<u16, false>(&d, &a, &b, MASK_PLACEHOLDER, 1, &BinaryRepeatParams::default());
            assert!(d.to_vec()[..128].iter().all(|&v| v == 3));
            assert!(d.to_vec()[128..].iter().all(|&v| v == 7));
        });
    }
}

// ---- host tiling ---------------------------------------------------------------------------

#[test]
fn host_tiling() {
    assert_eq!(get_xor_max_min_tmp_size(1024, 2, false), (2048, 256));
    assert_eq!(get_xor_max_min_tmp_size(1024, 2, true), (2048, 256));
    assert_eq!(get_xor_max_min_tmp_size(100, 2, false), (256, 256));
    assert_eq!(get_xor_max_min_tmp_size(129, 2, false), (258, 256));
    assert_eq!(get_xor_tmp_buffer_factor_size(2), (1, 0));
    assert_eq!(get_xor_tmp_buffer_factor_size(4), (1, 0));
    expect_panic(
        || {
            get_xor_max_min_tmp_size(0, 2, false);
        },
        &["GetXorMaxMinTmpSize", "greater than 0"],
    );
    // The host's minimum and maximum both run.
    for soc in CHIPS {
        for bytes in [get_xor_max_min_tmp_size(1000, 2, false).1, get_xor_max_min_tmp_size(1000, 2, false).0]
        {
            check_xor::<i16>(soc, 1000, Some(bytes), bytes as u64);
        }
    }
}

// ---- errors --------------------------------------------------------------------------------

/// Tensors of 512 int16: src0 at 0, dst at 1024, src1 at 2048, a 1024-byte scratch at 3072.
fn with_tensors(
    soc: Soc,
    f: impl FnOnce(&LocalTensor<i16>, &LocalTensor<i16>, &LocalTensor<i16>, &LocalTensor<u8>),
) {
    on(soc, || {
        let u = ub(4 * 1024);
        f(&u.t::<i16>(0, 512), &u.t::<i16>(1024, 512), &u.t::<i16>(2048, 512), &u.t::<u8>(3072, 1024));
    });
}

#[test]
fn unsupported_chip() {
    with_tensors(Soc::Ascend910, |s0, d, s1, t| {
        expect_panic(
            || xor::<_, false>(d, s0, s1, t, 8),
            &["Xor", "no implementation on Ascend910", "Ascend910B, Ascend310P, Ascend310B"],
        );
        expect_panic(|| xor_stack::<_, false>(d, s0, s1, 8), &["Xor", "no implementation on Ascend910"]);
    });
}

#[test]
fn count_beyond_tensors() {
    with_tensors(Soc::Ascend910B, |s0, d, s1, t| {
        expect_panic(
            || xor::<_, false>(d, s0, s1, t, 513),
            &["Xor", "calCount = 513 exceeds dstTensor's 512"],
        );
        let short = s0.view_len(0, 100);
        expect_panic(
            || xor::<_, false>(d, &short, s1, t, 101),
            &["Xor", "calCount = 101", "src0Tensor's 100"],
        );
        let short = s1.view_len(0, 100);
        expect_panic(|| xor::<_, false>(d, s0, &short, t, 101), &["Xor", "src1Tensor's 100"]);
        let short = d.view_len(0, 100);
        expect_panic(|| xor_stack::<_, false>(&short, s0, s1, 101), &["Xor", "dstTensor's 100"]);
    });
}

#[test]
fn scratch_too_small() {
    for soc in CHIPS {
        with_tensors(soc, |s0, d, s1, t| {
            let small = t.view_len(0, 63);
            expect_panic(
                || xor::<_, false>(d, s0, s1, &small, 64),
                &["Xor", "sharedTmpBuffer has 63 bytes", "at least 64", "GetXorMaxMinTmpSize"],
            );
            // 64 bytes: rounds of 32.
            s0.copy_from_slice(&[5; 512]);
            s1.copy_from_slice(&[3; 512]);
            xor::<_, false>(d, s0, s1, &t.view_len(0, 64), 512);
            assert!(d.to_vec().iter().all(|&v| v == 6));
        });
    }
}

#[test]
fn forbidden_overlaps() {
    with_tensors(Soc::Ascend910B, |s0, d, s1, t| {
        expect_panic(|| xor::<_, false>(s0, s0, s1, t, 64), &["Xor", "dst UB bytes", "overlap src0"]);
        expect_panic(|| xor::<_, false>(s1, s0, s1, t, 64), &["Xor", "dst UB bytes", "overlap src1"]);
        let d2 = s0.view(16);
        expect_panic(|| xor::<_, false>(&d2, s0, s1, t, 64), &["Xor", "overlap src0"]);
        let t_s0 = s0.reinterpret_cast::<u8>();
        expect_panic(
            || xor::<_, false>(d, s0, s1, &t_s0, 64),
            &["Xor", "sharedTmpBuffer UB bytes", "overlap src0"],
        );
        let t_s1 = s1.reinterpret_cast::<u8>();
        expect_panic(
            || xor::<_, false>(d, s0, s1, &t_s1, 64),
            &["Xor", "sharedTmpBuffer UB bytes", "overlap src1"],
        );
        let t_d = d.reinterpret_cast::<u8>();
        expect_panic(
            || xor::<_, false>(d, s0, s1, &t_d, 64),
            &["Xor", "sharedTmpBuffer UB bytes", "overlap dst"],
        );
        // Apart beyond count: dst right after src0's first 64 elements.
        let d3 = s0.view(64);
        xor::<_, false>(&d3, s0, s1, t, 64);
    });
}

#[test]
fn tensors_outside_the_unified_buffer() {
    on(Soc::Ascend910B, || {
        let mut pipe = TPipe::new();
        let (mut v, mut l1) = (TBuf::<VecCalc>::new(), TBuf::<A1>::new());
        pipe.init_tbuf(&mut v, 3 * 1024);
        pipe.init_tbuf(&mut l1, 2048);
        let (s, d) = (v.get_with_offset::<i16>(256, 0), v.get_with_offset::<i16>(256, 512));
        let t = v.get_with_offset::<u8>(1024, 1024);
        let (far, far_t) = (l1.get_with_len::<i16>(256), l1.get::<u8>());
        expect_panic(|| xor::<_, false>(&far, &s, &s, &t, 64), &["Xor", "dst is at position A1"]);
        expect_panic(|| xor::<_, false>(&d, &far, &s, &t, 64), &["Xor", "src0 is at position A1"]);
        expect_panic(|| xor::<_, false>(&d, &s, &far, &t, 64), &["Xor", "src1 is at position A1"]);
        expect_panic(
            || xor::<_, false>(&d, &s, &s, &far_t, 64),
            &["Xor", "sharedTmpBuffer is at position A1"],
        );
    });
}

#[test]
fn stack_form_needs_a_pipe_with_room() {
    on(Soc::Ascend910B, || {
        let u = ub(get_soc().ub_size() - 64);
        let (s, d) = (u.t::<i16>(0, 64), u.t::<i16>(256, 64));
        expect_panic(|| xor_stack::<_, false>(&d, &s, &s, 64), &["Xor", "no space left"]);
    });
    on(Soc::Ascend310P, || {
        let u = ub(get_soc().ub_size() - 32);
        let (s, d) = (u.t::<i16>(0, 64), u.t::<i16>(256, 64));
        // 32 bytes of stack: less than one split.
        expect_panic(|| xor_stack::<_, false>(&d, &s, &s, 64), &["Xor", "sharedTmpBuffer has 32 bytes"]);
    });
}

#[test]
fn misaligned_operands_fail_in_the_instructions() {
    for soc in CHIPS {
        with_tensors(soc, |s0, d, s1, t| {
            let odd = s0.view(1);
            expect_panic(|| xor::<_, false>(d, &odd, s1, t, 64), &["32-byte"]);
        });
    }
}
