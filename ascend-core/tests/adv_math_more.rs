//! The advanced API's further math (`adv/math_more.rs`): `Xor` against a scalar reference
//! that restates the vendor's steps (`And`, `Or` into the scratch, `Not`, `And`), for
//! `int16_t` and `uint16_t` on every chip with an implementation (Ascend910B, Ascend310P in
//! counter mode; Ascend310B with count forms), counts that leave tails, scratch sizes that force
//! several rounds, and the stack form; then the scratch's last round, the mask state, the host
//! tiling and every error. Then `CumSum` (both axes, `half` and `float`, with and without the
//! last row, several blocks of rows, the stack form) and `Erfc` (both types on Ascend910B and
//! Ascend310P, `half` narrowed with `CAST_ROUND` on Ascend910B and `CAST_NONE` on Ascend310P),
//! bit for bit against references restating the vendor's steps, with their tiling and errors.

use ascend_core::prelude::*;

use crate::common::util;
use util::{assert_bits_ctx, expect_panic, f16_round_away, on, ub, Rng, SENTINEL};

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

// ---- CumSum --------------------------------------------------------------------------------

/// `CumSum`'s element types, with the shared `f32` round trip ([`util::Fp`]).
trait Fp: util::Fp + CumSumElement {}
impl<T: util::Fp + CumSumElement> Fp for T {}

/// The vendor's steps: sequential `float` sums along the axis (`half` widened exactly and
/// narrowed to nearest-even), then for the last axis and for `float` along the first a copy by
/// `Adds(0)` (`-0 + 0 = +0`).
fn r_cum_sum<T: Fp>(x: &[T], outter: usize, inner: usize, last_axis: bool) -> Vec<T> {
    let mut out = vec![0f32; outter * inner];
    for r in 0..outter {
        for c in 0..inner {
            let v = x[r * inner + c].to32();
            let prev = if last_axis && c > 0 {
                Some(out[r * inner + c - 1])
            } else if !last_axis && r > 0 {
                Some(out[(r - 1) * inner + c])
            } else {
                None
            };
            out[r * inner + c] = match prev {
                Some(p) => p + v,
                None if !last_axis && T::SIZE == 4 => v + 0.0,
                None => v,
            };
        }
    }
    out.iter()
        .map(|&v| {
            let t = T::from32(v);
            if last_axis {
                T::from32(t.to32() + 0.0)
            } else {
                t
            }
        })
        .collect()
}

/// Runs `CumSum` on `soc`; checks `dst` (and its rest), the last row, the source and the mask
/// mode.
fn check_cum_sum<T: Fp>(
    soc: Soc,
    outter: usize,
    inner: usize,
    last_axis: bool,
    tmp_bytes: Option<usize>,
    seed: u64,
) {
    on(soc, || {
        let mut rng = Rng(seed);
        let total = outter * inner;
        let cap = total + 64;
        let region = (cap * T::SIZE).div_ceil(32) * 32;
        let lr = (inner * T::SIZE).div_ceil(32) * 32 + 32;
        let scratch = tmp_bytes.unwrap_or(0).div_ceil(32) * 32;
        let u = ub(2 * region + lr + scratch.max(32));
        let (src, dst) = (u.t::<T>(0, cap), u.t::<T>(region, cap));
        let last = u.t::<T>(2 * region, lr / T::SIZE);
        let tmp = u.t::<u8>(2 * region + lr, tmp_bytes.unwrap_or(0));
        let draw = |rng: &mut Rng| {
            let v = (rng.next() % 2001) as f32 / 250.0 - 4.0;
            let v = if rng.chance(7) { v * 1.0e-3 + 1.0 / 3.0 } else { v };
            T::from32(if rng.chance(20) { -0.0 } else { v })
        };
        let x: Vec<T> = (0..cap).map(|_| draw(&mut rng)).collect();
        let old: Vec<T> = (0..cap).map(|_| draw(&mut rng)).collect();
        let old_last: Vec<T> = (0..last.get_size()).map(|_| draw(&mut rng)).collect();
        src.copy_from_slice(&x);
        dst.copy_from_slice(&old);
        last.copy_from_slice(&old_last);
        let out_last = seed % 2 == 0;
        let cfg = CumSumConfig { is_last_axis: last_axis, is_reuse_source: false, output_last_row: out_last };
        let info = CumSumInfo { outter, inner };
        match tmp_bytes {
            Some(_) => cum_sum(&dst, &last, &src, &tmp, &info, &cfg),
            None => cum_sum_stack(&dst, &last, &src, &info, &cfg),
        }
        let ctx = format!(
            "CumSum {} on {soc}, {outter} x {inner}, last axis {last_axis}, last row {out_last}, tmp {tmp_bytes:?}",
            T::DTYPE
        );
        let mut want = r_cum_sum(&x, outter, inner, last_axis);
        // The last row is copied with `Adds(0)` too.
        let want_last: Vec<T> =
            want[(outter - 1) * inner..].iter().map(|v| T::from32(v.to32() + 0.0)).collect();
        want.extend_from_slice(&old[total..]);
        assert_bits_ctx(&dst.to_vec(), &want, &ctx);
        assert_bits_ctx(&src.to_vec(), &x, format!("src written; {ctx}"));
        let mut wl = old_last.clone();
        if out_last {
            wl[..inner].copy_from_slice(&want_last);
        }
        assert_bits_ctx(&last.to_vec(), &wl, format!("last row; {ctx}"));
        // The vendor's half first axis leaves counter mode on unless it copies the last row.
        let counter = !last_axis && T::SIZE == 2 && !out_last;
        let mode = if counter { MaskMode::Counter } else { MaskMode::Normal };
        assert_eq!(get_mask_mode(), mode, "{ctx}");
    });
}

#[test]
fn cum_sum_last_axis_every_type_and_chip() {
    let mut s = 500;
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        for outter in [1usize, 5, 16, 20, 37, 48] {
            for (inner32, inner16) in [(8usize, 16usize), (16, 32), (24, 48), (64, 64)] {
                let min32 = get_cum_sum_max_min_tmp_size(&[outter, inner32], 4, true, false).1;
                let min16 = get_cum_sum_max_min_tmp_size(&[outter, inner16], 2, true, false).1;
                for k in [1usize, 2] {
                    s += 1;
                    check_cum_sum::<f32>(soc, outter, inner32, true, Some(min32 * k + 32 * (k - 1)), s);
                    check_cum_sum::<f16>(soc, outter, inner16, true, Some(min16 * k), s + 1);
                }
                let max32 = get_cum_sum_max_min_tmp_size(&[outter, inner32], 4, true, false).0;
                check_cum_sum::<f32>(soc, outter, inner32, true, Some(max32), s + 2);
                check_cum_sum::<f16>(soc, outter, inner16, true, None, s + 3);
            }
        }
    }
}

#[test]
fn cum_sum_first_axis_every_type_and_chip() {
    let mut s = 900;
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        for outter in [1usize, 2, 7, 33] {
            for inner in [16usize, 32, 80, 256] {
                s += 2;
                let min16 = get_cum_sum_max_min_tmp_size(&[outter, inner], 2, false, false).1;
                check_cum_sum::<f16>(soc, outter, inner, false, Some(min16), s);
                check_cum_sum::<f16>(soc, outter, inner, false, Some(min16), s + 1);
                check_cum_sum::<f16>(soc, outter, inner, false, None, s);
                check_cum_sum::<f32>(soc, outter, inner, false, Some(0), s);
                check_cum_sum::<f32>(soc, outter, inner, false, Some(64), s + 1);
            }
        }
    }
}

#[test]
fn cum_sum_host_tiling() {
    assert_eq!(get_cum_sum_max_min_tmp_size(&[16, 8], 4, true, false), (1024, 1024));
    assert_eq!(get_cum_sum_max_min_tmp_size(&[17, 8], 4, true, true), (2048, 1024));
    assert_eq!(get_cum_sum_max_min_tmp_size(&[20, 16], 2, true, false), (3072, 1536));
    assert_eq!(get_cum_sum_max_min_tmp_size(&[20, 16], 2, false, false), (1280, 1280));
    assert_eq!(get_cum_sum_max_min_tmp_size(&[20, 16], 4, false, false), (0, 0));
    for (shape, ts, needle) in [
        (&[16usize, 8, 1][..], 4usize, "2 are supported"),
        (&[16, 8][..], 1, "typeSize = 1"),
        (&[16, 0][..], 4, "32-byte aligned"),
        (&[16, 12][..], 4, "32-byte aligned"),
    ] {
        expect_panic(
            || {
                get_cum_sum_max_min_tmp_size(shape, ts, true, false);
            },
            &["GetCumSumMaxMinTmpSize", needle],
        );
    }
}

#[test]
fn cum_sum_errors() {
    let cfg = DEFAULT_CUM_SUM_CONFIG;
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        on(soc, || {
            let u = ub(4096);
            let (s, d, l, t) =
                (u.t::<f32>(0, 256), u.t::<f32>(1024, 256), u.t::<f32>(2048, 64), u.t::<u8>(2304, 1024));
            let msg = format!("no implementation on {soc}");
            expect_panic(
                || cum_sum(&d, &l, &s, &t, &CumSumInfo { outter: 16, inner: 8 }, &cfg),
                &["CumSum", &msg, "Ascend910B, Ascend310P"],
            );
        });
    }
    on(Soc::Ascend910B, || {
        let u = ub(8192);
        let (s, d, l, t) =
            (u.t::<f32>(0, 256), u.t::<f32>(1024, 256), u.t::<f32>(2048, 8), u.t::<u8>(2304, 2048));
        let run = |o: usize, i: usize, c: &CumSumConfig| {
            cum_sum(&d, &l, &s, &t, &CumSumInfo { outter: o, inner: i }, c)
        };
        expect_panic(|| run(16, 0, &cfg), &["CumSum", "cumSumInfo.inner = 0", "greater than 0"]);
        expect_panic(|| run(0, 8, &cfg), &["CumSum", "cumSumInfo.outter = 0", "greater than 0"]);
        expect_panic(|| run(16, 12, &cfg), &["CumSum", "48 bytes", "multiple of 32"]);
        let short = s.view_len(0, 100);
        expect_panic(
            || cum_sum(&d, &l, &short, &t, &CumSumInfo { outter: 16, inner: 8 }, &cfg),
            &["CumSum", "= 128 exceeds srcTensor's 100"],
        );
        expect_panic(|| run(40, 8, &cfg), &["CumSum", "= 320 exceeds srcTensor's 256"]);
        let short = d.view_len(0, 100);
        expect_panic(
            || cum_sum(&short, &l, &s, &t, &CumSumInfo { outter: 16, inner: 8 }, &cfg),
            &["CumSum", "dstTensor's 100"],
        );
        expect_panic(|| run(8, 16, &cfg), &["CumSum", "cumSumInfo.inner = 16 exceeds lastRowTensor's 8"]);
        // Without the last row, its size does not matter.
        let no_last = CumSumConfig { output_last_row: false, ..cfg };
        run(8, 16, &no_last);
        let small = t.view_len(0, 1023);
        expect_panic(
            || cum_sum(&d, &l, &s, &small, &CumSumInfo { outter: 16, inner: 16 }, &no_last),
            &["CumSum", "sharedTmpBuffer has 1023 bytes", "at least 2048"],
        );
        let h = u.t::<f16>(0, 512);
        let (hd, ht) = (u.t::<f16>(1024, 512), u.t::<u8>(2304, 255));
        let first = CumSumConfig { is_last_axis: false, ..no_last };
        expect_panic(
            || cum_sum(&hd, &hd, &h, &ht, &CumSumInfo { outter: 4, inner: 16 }, &first),
            &["CumSum", "sharedTmpBuffer has 255 bytes", "at least 256"],
        );
    });
    on(Soc::Ascend910B, || {
        let mut pipe = TPipe::new();
        let (mut v, mut l1) = (TBuf::<VecCalc>::new(), TBuf::<A1>::new());
        pipe.init_tbuf(&mut v, 4096);
        pipe.init_tbuf(&mut l1, 2048);
        let (s, d) = (v.get_with_offset::<f32>(256, 0), v.get_with_offset::<f32>(256, 1024));
        let t = v.get_with_offset::<u8>(1024, 2048);
        let (far, far_t) = (l1.get_with_len::<f32>(256), l1.get::<u8>());
        let info = CumSumInfo { outter: 16, inner: 8 };
        expect_panic(|| cum_sum(&far, &s, &s, &t, &info, &cfg), &["CumSum", "dst is at position A1"]);
        expect_panic(
            || cum_sum(&d, &far, &s, &t, &info, &cfg),
            &["CumSum", "lastRowTensor is at position A1"],
        );
        expect_panic(|| cum_sum(&d, &d, &far, &t, &info, &cfg), &["CumSum", "src is at position A1"]);
        expect_panic(
            || cum_sum(&d, &d, &s, &far_t, &info, &cfg),
            &["CumSum", "sharedTmpBuffer is at position A1"],
        );
    });
    on(Soc::Ascend910B, || {
        let u = ub(get_soc().ub_size() - 64);
        let (s, d) = (u.t::<f32>(0, 128), u.t::<f32>(512, 128));
        expect_panic(
            || cum_sum_stack(&d, &d, &s, &CumSumInfo { outter: 16, inner: 8 }, &cfg),
            &["CumSum", "no space left"],
        );
    });
}

// ---- Erfc ----------------------------------------------------------------------------------

const ERFC_MIN: f32 = 2.168404344971009e-19_f64 as f32;
const ERFC_R: [f64; 9] = [
    0.1735313680e-7,
    -0.9856738394e-6,
    0.2517003236e-4,
    -0.3848015171e-3,
    0.5681528564e0,
    0.5245623129e1,
    0.2107740710e2,
    0.4212761755e2,
    0.4380524149e2,
];
const ERFC_S: [f64; 5] = [0.9349684299e1, 0.3756930664e2, 0.8058268949e2, 0.9155653738e2, 0.4380524152e2];

/// Erfc's steps in float, each rounded: the clip, the sign, Horner's steps for `R` and `S`,
/// `Exp` in f64 rounded once, the blend.
fn r_erfc(x: f32) -> f32 {
    let c = x.clamp(-10.0, 10.0); // Mins, then Maxs (inputs are never NaN here)
    let a = c.abs() + ERFC_MIN;
    let sign = c / a;
    let mut num = a * ERFC_R[0] as f32 + ERFC_R[1] as f32;
    for &r in &ERFC_R[2..] {
        num = a * num + r as f32;
    }
    let mut den = a + ERFC_S[0] as f32;
    for &s in &ERFC_S[1..] {
        den = a * den + s as f32;
    }
    let q = num / den;
    let e = (f64::from(-(a * a))).exp() as f32;
    let t3 = e * q * sign;
    t3 + (-sign + 1.0) // Muls(-1) is exact
}

/// Runs `Erfc` on `soc` over `count` random values; checks the result, the rest of `dst`, the
/// source and the mask mode.
fn check_erfc<T: Fp + ErfcElement>(soc: Soc, count: usize, tmp_bytes: Option<usize>, seed: u64) {
    on(soc, || {
        let mut rng = Rng(seed);
        let cap = (count + 40).div_ceil(16) * 16;
        let region = (cap * T::SIZE).div_ceil(32) * 32;
        let scratch = tmp_bytes.unwrap_or(0).div_ceil(32) * 32;
        let u = ub(2 * region + scratch.max(32));
        let (src, dst) = (u.t::<T>(0, cap), u.t::<T>(region, cap));
        let tmp = u.t::<u8>(2 * region, tmp_bytes.unwrap_or(0));
        let special = [0.0f32, -0.0, 10.0, -10.0, 11.0, -30.0, 1e-30, -1e-30, 0.5, -0.5, 3.0, 9.99];
        let draw = |rng: &mut Rng| {
            let v = if rng.chance(6) {
                special[rng.index(special.len())]
            } else {
                (rng.next() % 1_000_001) as f32 / 40_000.0 - 12.5
            };
            T::from32(v)
        };
        let x: Vec<T> = (0..cap).map(|_| draw(&mut rng)).collect();
        let old: Vec<T> = (0..cap).map(|_| draw(&mut rng)).collect();
        src.copy_from_slice(&x);
        dst.copy_from_slice(&old);
        match tmp_bytes {
            Some(_) => erfc::<T, false>(&dst, &src, &tmp, count),
            None => erfc_stack::<T, false>(&dst, &src, count),
        }
        let ctx = format!("Erfc {} on {soc}, count {count}, tmp {tmp_bytes:?}", T::DTYPE);
        let mut want: Vec<T> = (0..count)
            .map(|i| {
                let r = r_erfc(x[i].to32());
                if T::SIZE == 4 {
                    T::from32(r)
                } else if soc == Soc::Ascend910B {
                    T::from32(f16_round_away(r).to_f32())
                } else {
                    T::from32(r)
                }
            })
            .collect();
        want.extend_from_slice(&old[count..]);
        assert_bits_ctx(&dst.to_vec(), &want, &ctx);
        assert_bits_ctx(&src.to_vec(), &x, format!("src written; {ctx}"));
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
    });
}

#[test]
fn erfc_every_type_and_chip() {
    let mut s = 2000;
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        for count in [0usize, 1, 37, 64, 200, 1000] {
            for (h, f) in [(768usize, 640usize), (1000, 700), (4096, 1792), (16384, 7168)] {
                s += 1;
                check_erfc::<f16>(soc, count, Some(h), s);
                check_erfc::<f32>(soc, count, Some(f), s);
            }
            check_erfc::<f16>(soc, count, None, s + 7);
            check_erfc::<f32>(soc, count, None, s + 7);
        }
    }
}

#[test]
fn erfc_near_the_true_function() {
    on(Soc::Ascend910B, || {
        let u = ub(2 * 1024 + 8192);
        let (s, d, t) = (u.t::<f32>(0, 256), u.t::<f32>(1024, 256), u.t::<u8>(2048, 8192));
        let xs: Vec<f32> = (0..256).map(|i| i as f32 / 32.0 - 4.0).collect();
        s.copy_from_slice(&xs);
        erfc::<_, false>(&d, &s, &t, 256);
        for (i, &x) in xs.iter().enumerate() {
            let want = libm_erfc(f64::from(x));
            let got = f64::from(d.get_value(i));
            assert!((got - want).abs() <= 1e-6 + 1e-5 * want.abs(), "erfc({x}) = {got}, want {want}");
        }
    });
}

/// erfc by its continued-fraction-free series/asymptotics is not in std; `1 - erf` with erf from
/// a high-precision series is enough for |x| <= 4.
fn libm_erfc(x: f64) -> f64 {
    // erf(x) = 2/sqrt(pi) * sum_{n} (-1)^n x^(2n+1) / (n! (2n+1))
    if x.abs() > 3.0 {
        // The asymptotic expansion, for the tail.
        let ax = x.abs();
        let mut sum = 1.0;
        let mut term = 1.0;
        for n in 1..8 {
            term *= -((2 * n - 1) as f64) / (2.0 * ax * ax);
            sum += term;
        }
        let v = (-ax * ax).exp() / (ax * std::f64::consts::PI.sqrt()) * sum;
        return if x > 0.0 { v } else { 2.0 - v };
    }
    let mut sum = 0.0;
    let mut term = x;
    for n in 0..200 {
        sum += term / (2 * n + 1) as f64;
        term *= -x * x / (n + 1) as f64;
    }
    1.0 - 2.0 / std::f64::consts::PI.sqrt() * sum
}

#[test]
fn erfc_host_tiling() {
    assert_eq!(get_erfc_max_min_tmp_size(1024, 2, false), (32768, 4096));
    assert_eq!(get_erfc_max_min_tmp_size(1024, 4, true), (28672, 1792));
    assert_eq!(get_erfc_max_min_tmp_size(10, 2, false), (4096, 4096));
    assert_eq!(get_erfc_tmp_buffer_factor_size(2), (16, 0));
    assert_eq!(get_erfc_tmp_buffer_factor_size(4), (7, 0));
    expect_panic(
        || {
            get_erfc_max_min_tmp_size(0, 2, false);
        },
        &["GetErfcMaxMinTmpSize", "greater than 0"],
    );
}

#[test]
fn erfc_errors() {
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        on(soc, || {
            let u = ub(4096);
            let (s, d, t) = (u.t::<f16>(0, 256), u.t::<f16>(512, 256), u.t::<u8>(1024, 2048));
            let msg = format!("no implementation on {soc}");
            expect_panic(|| erfc::<_, false>(&d, &s, &t, 8), &["Erfc", &msg, "Ascend910B, Ascend310P"]);
            expect_panic(|| erfc_stack::<_, false>(&d, &s, 8), &["Erfc", &msg]);
        });
    }
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        on(soc, || {
            let u = ub(4096);
            let (s, d, t) = (u.t::<f16>(0, 256), u.t::<f16>(512, 256), u.t::<u8>(1024, 2048));
            expect_panic(|| erfc::<_, false>(&d, &s, &t, 257), &["Erfc", "calCount = 257 exceeds"]);
            let short = d.view_len(0, 100);
            expect_panic(|| erfc::<_, false>(&short, &s, &t, 101), &["Erfc", "dstTensor's 100"]);
            expect_panic(|| erfc::<_, false>(&s, &s, &t, 64), &["Erfc", "dst UB bytes", "overlap src"]);
            let t_s = s.reinterpret_cast::<u8>();
            expect_panic(
                || erfc::<_, false>(&d, &s, &t_s, 64),
                &["Erfc", "sharedTmpBuffer UB bytes", "overlap src"],
            );
            let t_d = d.reinterpret_cast::<u8>();
            expect_panic(
                || erfc::<_, false>(&d, &s, &t_d, 64),
                &["Erfc", "sharedTmpBuffer UB bytes", "overlap dst"],
            );
            expect_panic(
                || erfc::<_, false>(&d, &s, &t.view_len(0, 767), 64),
                &["Erfc", "sharedTmpBuffer has 767 bytes", "at least 768", "GetErfcMaxMinTmpSize"],
            );
            let (sf, df) = (u.t::<f32>(0, 128), u.t::<f32>(512, 128));
            expect_panic(
                || erfc::<_, false>(&df, &sf, &t.view_len(0, 639), 64),
                &["Erfc", "sharedTmpBuffer has 639 bytes", "at least 640"],
            );
        });
    }
    on(Soc::Ascend910B, || {
        let mut pipe = TPipe::new();
        let (mut v, mut l1) = (TBuf::<VecCalc>::new(), TBuf::<A1>::new());
        pipe.init_tbuf(&mut v, 4096);
        pipe.init_tbuf(&mut l1, 2048);
        let (s, d) = (v.get_with_offset::<f32>(128, 0), v.get_with_offset::<f32>(128, 512));
        let t = v.get_with_offset::<u8>(2048, 1024);
        let (far, far_t) = (l1.get_with_len::<f32>(128), l1.get::<u8>());
        expect_panic(|| erfc::<_, false>(&far, &s, &t, 64), &["Erfc", "dst is at position A1"]);
        expect_panic(|| erfc::<_, false>(&d, &far, &t, 64), &["Erfc", "src is at position A1"]);
        expect_panic(|| erfc::<_, false>(&d, &s, &far_t, 64), &["Erfc", "sharedTmpBuffer is at position A1"]);
    });
    on(Soc::Ascend910B, || {
        let u = ub(get_soc().ub_size() - 64);
        let (s, d) = (u.t::<f32>(0, 64), u.t::<f32>(256, 64));
        expect_panic(|| erfc_stack::<_, false>(&d, &s, 64), &["Erfc", "no space left"]);
    });
}
