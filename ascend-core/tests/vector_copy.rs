//! `Copy` (`copy_masked`): the vendor page's three scenarios, the range, chip, overlap and
//! bounds errors, special values surviving bit for bit, and random calls (masks, strides,
//! repeats, normal and counter mode, `IS_SET_MASK` both ways, in place) against a slow scalar
//! reference of the addressing model.

use ascend_core::prelude::*;
use proptest::prelude::*;
use proptest::test_runner::TestRunner;

use crate::common::util;
use util::{assert_bits_ctx as assert_bits, expect_panic, on, panic_message, Rng};

use crate::common::prop as strat;

/// A pipe with one VECCALC buffer of `bytes` bytes.
fn ub(bytes: usize) -> (TPipe, TBuf<VecCalc>) {
    let mut pipe = TPipe::new();
    let mut b = TBuf::<VecCalc>::new();
    pipe.init_tbuf(&mut b, bytes);
    (pipe, b)
}

/// An element of `T` with the low bits of `x` (any pattern: NaNs and infinities too).
fn from_bits<T: Element>(x: u64) -> T {
    let b = x.to_le_bytes();
    bytemuck::pod_read_unaligned(&b[..T::SIZE])
}

// ---- the vendor page's and sample's three scenarios ----------------------------------

/// `gen_data.py`: `input[:, :dst_cols].flatten()` of an `[rows, cols]` source.
fn golden(input: &[i32], cols: usize, dst_cols: usize) -> Vec<i32> {
    input.chunks(cols).flat_map(|row| row[..dst_cols].to_vec()).collect()
}

/// Runs scenario `n` on `soc` over `input` and returns dst (pre-filled with a sentinel).
fn scenario(soc: Soc, n: u32, input: &[i32]) -> Vec<i32> {
    let mut out = Vec::new();
    on(soc, || {
        let (src_len, dst_len) = if n == 1 { (512, 512) } else { (18 * 64, 18 * 8) };
        let src = LocalTensor::<i32>::new(TPosition::VECIN, 0, src_len);
        let dst = LocalTensor::<i32>::new(TPosition::VECOUT, src_len * 4, dst_len);
        src.copy_from_slice(input);
        dst.copy_from_slice(&vec![i32::MIN; dst_len]);
        match n {
            1 => copy_masked::<i32, true>(&dst, &src, 64u64, 8, &[1, 1, 8, 8].into()),
            2 => copy_masked::<i32, true>(&dst, &src, 8u64, 18, &[1, 1, 1, 8].into()),
            _ => {
                set_mask_count();
                set_vector_mask::<i32>(144u64);
                copy_masked::<i32, false>(&dst, &src, MASK_PLACEHOLDER, 1, &[1, 8, 8, 8].into());
                set_mask_norm();
                reset_mask();
            }
        }
        out = dst.to_vec();
    });
    out
}

fn input(n: usize) -> Vec<i32> {
    let mut r = Rng(9);
    (0..n).map(|_| r.below(2000) as i32 - 1000).collect()
}

#[test]
fn vendor_scenario1_contiguous_512_int32() {
    let x = input(512);
    for soc in [Soc::Ascend910B, Soc::Ascend310B] {
        assert_bits(&scenario(soc, 1, &x), &x, "scenario 1");
    }
}

#[test]
fn vendor_scenario2_first_8_columns_of_18_rows() {
    let x = input(18 * 64);
    for soc in [Soc::Ascend910B, Soc::Ascend310B] {
        assert_bits(&scenario(soc, 2, &x), &golden(&x, 64, 8), "scenario 2");
    }
}

#[test]
fn vendor_scenario3_counter_mode_144_per_repeat() {
    let x = input(18 * 64);
    for soc in [Soc::Ascend910B, Soc::Ascend310B] {
        assert_bits(&scenario(soc, 3, &x), &golden(&x, 64, 8), "scenario 3");
    }
}

// ---- counter mode ---------------------------------------------------------------------

#[test]
fn counter_mode_counts_each_repeat_and_repeat_time_is_effective() {
    on(Soc::Ascend910B, || {
        let (_p, b) = ub(8192);
        let src = b.get_with_offset::<i16>(2048, 0);
        let dst = b.get_with_offset::<i16>(2048, 4096);
        let x: Vec<i16> = (0..2048).map(|i| i as i16).collect();
        src.copy_from_slice(&x);
        dst.copy_from_slice(&[-1; 2048]);
        // 200 elements a repeat (13 blocks: 12 full, 8 lanes of the 13th), 3 repeats;
        // src blocks 2 apart, repeats 30 blocks apart; dst contiguous, 13 blocks apart.
        set_mask_count();
        copy_masked::<i16, true>(&dst, &src, 200u64, 3, &CopyRepeatParams::new(1, 2, 13, 30));
        // The register holds the count, as for the other instructions.
        assert_eq!(get_vector_mask(), [200, 0]);
        set_mask_norm();
        reset_mask();
        let mut want = vec![-1i16; 2048];
        for r in 0..3 {
            for j in 0..200 {
                want[(r * 13 + j / 16) * 16 + j % 16] = x[(r * 30 + (j / 16) * 2) * 16 + j % 16];
            }
        }
        assert_bits(&dst.to_vec(), &want, "counter mode");
        // 3 * 200 elements, not a total of 200 (the general counter mode).
        assert_eq!(dst.to_vec().iter().filter(|&&v| v != -1).count(), 600);
    });
}

#[test]
fn counter_mode_zero_repeats_or_zero_count_is_a_no_op() {
    on(Soc::Ascend310B, || {
        let (_p, b) = ub(1024);
        let (src, dst) = (b.get_with_offset::<f32>(128, 0), b.get_with_offset::<f32>(128, 512));
        src.copy_from_slice(&[1.0; 128]);
        dst.copy_from_slice(&[2.0; 128]);
        set_mask_count();
        copy_masked::<f32, true>(&dst, &src, 100u64, 0, &CopyRepeatParams::default());
        set_vector_mask::<f32>(5u64);
        copy_masked::<f32, false>(&dst, &src, MASK_PLACEHOLDER, 0, &CopyRepeatParams::default());
        set_mask_norm();
        reset_mask();
        assert!(dst.to_vec().iter().all(|&v| v == 2.0));
        // A count of 0 in the argument is the placeholder, an error with IS_SET_MASK = true.
        set_mask_count();
        expect_panic(
            || copy_masked::<f32, true>(&dst, &src, 0u64, 1, &CopyRepeatParams::default()),
            &["Copy", "MASK_PLACEHOLDER"],
        );
        set_mask_norm();
    });
}

#[test]
fn counter_mode_bounds_are_checked_over_every_repeat() {
    on(Soc::Ascend910B, || {
        let (_p, b) = ub(4096);
        let (src, dst) = (b.get_with_offset::<f32>(204, 0), b.get_with_offset::<f32>(204, 1024));
        set_mask_count();
        // 2 repeats of 100 elements (13 blocks), 13 blocks apart: elements 0..204, exactly.
        copy_masked::<f32, true>(&dst, &src, 100u64, 2, &CopyRepeatParams::new(1, 1, 13, 13));
        let short = dst.view_len(0, 203);
        expect_panic(
            || copy_masked::<f32, true>(&short, &src, 100u64, 2, &CopyRepeatParams::new(1, 1, 13, 13)),
            &[
                "Copy",
                "dst would touch element 203 but the tensor has 203 elements",
                "100 elements per repeat",
            ],
        );
        // The same over src, with a block stride of 3.
        expect_panic(
            || copy_masked::<f32, true>(&dst, &src, 100u64, 1, &CopyRepeatParams::new(1, 3, 13, 13)),
            &["Copy", "src would touch element 291 but the tensor has 204 elements"],
        );
        set_mask_norm();
        reset_mask();
    });
}

#[test]
fn counter_mode_block_stride_zero_touches_whole_blocks() {
    on(Soc::Ascend910B, || {
        let (_p, b) = ub(1024);
        let src = b.get_with_offset::<i32>(24, 0);
        src.copy_from_slice(&(0..24).collect::<Vec<i32>>());
        let dst = b.get_with_offset::<i32>(8, 512);
        dst.copy_from_slice(&[-1; 8]);
        set_mask_count();
        // 20 elements: blocks of 8, 8 and 4 lanes, all onto dst's one block, in order.
        copy_masked::<i32, true>(&dst, &src, 20u64, 1, &CopyRepeatParams::new(0, 1, 8, 8));
        assert_eq!(dst.to_vec(), [16, 17, 18, 19, 12, 13, 14, 15]);
        // The full blocks reach element 7, though the last block has 4 lanes.
        let short = dst.view_len(0, 7);
        expect_panic(
            || copy_masked::<i32, true>(&short, &src, 20u64, 1, &CopyRepeatParams::new(0, 1, 8, 8)),
            &["dst would touch element 7 but the tensor has 7 elements"],
        );
        set_mask_norm();
        reset_mask();
    });
}

#[test]
fn counter_mode_overlap_across_repeats_is_an_error_but_in_place_is_allowed() {
    on(Soc::Ascend910B, || {
        let (_p, b) = ub(4096);
        let t = b.get::<i32>();
        let x: Vec<i32> = (0..1024).collect();
        t.copy_from_slice(&x);
        set_mask_count();
        // dst = src with the same strides: a complete overlap, nothing changes.
        copy_masked::<i32, true>(&t, &t, 100u64, 3, &CopyRepeatParams::new(2, 2, 40, 40));
        assert_bits(&t.to_vec(), &x, "in place");
        // In place with a block stride of 0: every block is the same 8 elements.
        copy_masked::<i32, true>(&t, &t, 20u64, 2, &CopyRepeatParams::new(0, 0, 1, 1));
        assert_bits(&t.to_vec(), &x, "in place, stride 0");
        // dst one block after src: repeat 0 writes what repeat 1 reads.
        let d = t.view(8);
        expect_panic(
            || copy_masked::<i32, true>(&d, &t, 16u64, 2, &CopyRepeatParams::new(1, 1, 2, 2)),
            &["Copy", "partially overlap"],
        );
        // Disjoint blocks of interleaved operands are fine.
        copy_masked::<i32, true>(&d, &t, 8u64, 3, &CopyRepeatParams::new(1, 1, 2, 2));
        set_mask_norm();
        reset_mask();
        let mut want = x.clone();
        for r in 0..3 {
            for e in 0..8 {
                want[8 + r * 16 + e] = x[r * 16 + e];
            }
        }
        assert_bits(&t.to_vec(), &want, "interleaved");
    });
}

// ---- ranges, chips, masks, alignment --------------------------------------------------

#[test]
fn repeat_sizes_up_to_4095_blocks() {
    on(Soc::Ascend910B, || {
        // dst spans 4095 blocks + 1 (131072 bytes): the second repeat's block is the last.
        let (_p, b) = ub(131072 + 64);
        let dst = b.get_with_offset::<i16>(65536, 0);
        let src = b.get_with_offset::<i16>(32, 131072);
        src.copy_from_slice(&(1..=32).collect::<Vec<i16>>());
        dst.copy_from_slice(&vec![0; 65536]);
        copy_masked::<i16, true>(&dst, &src, 16u64, 2, &CopyRepeatParams::new(1, 1, 4095, 1));
        let v = dst.to_vec();
        assert_eq!(v[..16], (1..=16).collect::<Vec<i16>>()[..]);
        assert_eq!(v[65520..], (17..=32).collect::<Vec<i16>>()[..]);
        assert_eq!(v.iter().filter(|&&x| x != 0).count(), 32);
    });
}

#[test]
fn block_stride_of_65535() {
    on(Soc::Ascend910B, || {
        let (_p, b) = ub(8192);
        let (src, dst) = (b.get_with_offset::<f32>(16, 0), b.get_with_offset::<f32>(16, 4096));
        src.copy_from_slice(&[3.0; 16]);
        dst.copy_from_slice(&[0.0; 16]);
        // One block enabled: the stride is never applied; two blocks reach 65535 blocks on.
        copy_masked::<f32, true>(&dst, &src, 8u64, 1, &CopyRepeatParams::new(65535, 65535, 8, 8));
        assert_eq!(dst.to_vec()[..9], [3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 0.0]);
        expect_panic(
            || copy_masked::<f32, true>(&dst, &src, 9u64, 1, &CopyRepeatParams::new(1, 65535, 8, 8)),
            &["Copy", "src would touch element", "blkStride = 65535"],
        );
    });
}

#[test]
fn repeat_size_range_errors_name_the_parameter() {
    on(Soc::Ascend910B, || {
        let (_p, b) = ub(1024);
        let t = b.get_with_offset::<f16>(256, 0);
        let u = b.get_with_offset::<f16>(256, 512);
        expect_panic(
            || copy_masked::<f16, true>(&t, &u, 128u64, 1, &CopyRepeatParams::new(1, 1, 4096, 8)),
            &["Copy", "dstRepeatSize = 4096 is out of range [0, 4095]"],
        );
        expect_panic(
            || copy_masked::<f16, true>(&t, &u, 128u64, 1, &CopyRepeatParams::new(1, 1, 8, 65535)),
            &["Copy", "srcRepeatSize = 65535 is out of range [0, 4095]"],
        );
        // Checked even when nothing would be copied.
        expect_panic(
            || copy_masked::<f16, true>(&t, &u, 128u64, 0, &CopyRepeatParams::new(1, 1, 8, 5000)),
            &["srcRepeatSize = 5000"],
        );
    });
}

#[test]
fn chips_without_copy_fail_naming_the_chip() {
    for soc in [Soc::Ascend910, Soc::Ascend310P] {
        on(soc, || {
            let (_p, b) = ub(1024);
            let (t, u) = (b.get_with_offset::<f32>(64, 0), b.get_with_offset::<f32>(64, 512));
            expect_panic(
                || copy_masked::<f32, true>(&t, &u, 64u64, 1, &CopyRepeatParams::default()),
                &[&format!("T = float is not supported by Copy on {soc} ({})", soc.product_line())],
            );
        });
    }
}

#[test]
fn normal_mode_mask_rules() {
    on(Soc::Ascend910B, || {
        let (_p, b) = ub(1024);
        let (t, u) = (b.get_with_offset::<u32>(64, 0), b.get_with_offset::<u32>(64, 512));
        let p = CopyRepeatParams::default();
        expect_panic(
            || copy_masked::<u32, true>(&t, &u, 65u64, 1, &p),
            &["mask = 65 is out of range [1, 64]"],
        );
        expect_panic(
            || copy_masked::<u32, true>(&t, &u, [1, 1], 1, &p),
            &["mask[1] = 0x1 must be 0 for the 32-bit type"],
        );
        // IS_SET_MASK = true loads the register; a later IS_SET_MASK = false call uses it, and
        // ignores its mask argument, placeholder or not (as the chip's implementation does).
        for arg in [MASK_PLACEHOLDER, 4u64] {
            u.copy_from_slice(&(0..64).collect::<Vec<u32>>());
            t.copy_from_slice(&[u32::MAX; 64]);
            copy_masked::<u32, true>(&t, &u, [0b1010, 0], 0, &p);
            assert_eq!(get_vector_mask(), [0b1010, 0]);
            copy_masked::<u32, false>(&t, &u, arg, 1, &p);
            let v = t.to_vec();
            assert_eq!(v[..4], [u32::MAX, 1, u32::MAX, 3]);
            assert!(v[4..].iter().all(|&x| x == u32::MAX));
        }
        reset_mask();
    });
}

#[test]
fn operands_must_be_aligned_ub_tensors_that_do_not_partially_overlap() {
    on(Soc::Ascend910B, || {
        let (_p, b) = ub(2048);
        let t = b.get::<f16>();
        let p = CopyRepeatParams::default();
        expect_panic(
            || copy_masked::<f16, true>(&t.view(8), &t.view(512), 16u64, 1, &p),
            &["Copy", "dst address = 0x10 is not 32-byte aligned"],
        );
        expect_panic(
            || copy_masked::<f16, true>(&t.view(16), &t, 128u64, 1, &p),
            &["Copy", "partially overlap"],
        );
    });
}

#[test]
fn repeat_time_zero_is_a_no_op_even_out_of_bounds() {
    on(Soc::Ascend310B, || {
        let (_p, b) = ub(128);
        let (t, u) = (b.get_with_offset::<i16>(16, 0), b.get_with_offset::<i16>(16, 64));
        t.copy_from_slice(&[5; 16]);
        u.copy_from_slice(&[6; 16]);
        copy_masked::<i16, true>(&t, &u, 128u64, 0, &CopyRepeatParams::new(9, 9, 100, 100));
        assert!(t.to_vec().iter().all(|&v| v == 5));
    });
}

// ---- special values --------------------------------------------------------------------

fn check_specials<T: CopyElement>(patterns: &[u64]) {
    for soc in [Soc::Ascend910B, Soc::Ascend310B] {
        for sat in [false, true] {
            on(soc, || {
                if sat && soc == Soc::Ascend910B {
                    set_overflow_mode(OverflowMode::Saturation);
                }
                let (_p, b) = ub(1024);
                let n = T::PAR;
                let (src, dst) = (b.get_with_offset::<T>(n, 0), b.get_with_offset::<T>(n, 512));
                let x: Vec<T> = (0..n).map(|i| from_bits(patterns[i % patterns.len()])).collect();
                src.copy_from_slice(&x);
                dst.copy_from_slice(&vec![T::ZERO; n]);
                copy_masked::<T, true>(&dst, &src, n as u64, 1, &CopyRepeatParams::default());
                let ctx = format!("{soc} {} {:?}", T::DTYPE, get_overflow_mode());
                assert_bits(&dst.to_vec(), &x, &ctx);
                // Counter mode too.
                dst.copy_from_slice(&vec![T::ZERO; n]);
                set_mask_count();
                copy_masked::<T, true>(&dst, &src, n as u64, 1, &CopyRepeatParams::default());
                set_mask_norm();
                reset_mask();
                assert_bits(&dst.to_vec(), &x, &ctx);
            });
        }
    }
}

#[test]
fn half_nan_payloads_infinities_and_signed_zeros_survive() {
    // ±inf, quiet and signalling NaNs with payloads, ±0, subnormal, ±MAX.
    check_specials::<f16>(&[0x7c00, 0xfc00, 0x7e01, 0xfd55, 0x7c01, 0x8000, 0x0000, 0x0001, 0x7bff, 0xfbff]);
}

#[test]
fn float_nan_payloads_infinities_and_signed_zeros_survive() {
    check_specials::<f32>(&[
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0001,
        0xffc1_2345,
        0x7f80_0001,
        0x8000_0000,
        0x0000_0001,
        0x7f7f_ffff,
    ]);
}

#[test]
fn bfloat16_specials_survive() {
    check_specials::<bf16>(&[0x7f80, 0xff80, 0x7fc1, 0xffa5, 0x7f81, 0x8000, 0x0001]);
}

// ---- random calls against the scalar reference ----------------------------------------

/// Where a random call's dst lies.
#[derive(Clone, Copy, Debug)]
enum DstAt {
    /// In its own half of the buffer.
    Apart,
    /// dst is src, with src's strides (a complete overlap).
    InPlace,
    /// A distinct tensor starting at this block of src's memory: the call must fail
    /// exactly when the two share a block.
    Block(usize),
}

/// One random call.
#[derive(Clone, Debug)]
struct Case {
    soc: Soc,
    /// Counter mode (the mask is then a count of each repeat's elements).
    counter: bool,
    set_mask: bool,
    mask: Mask,
    repeat: u8,
    /// `{dstStride, srcStride, dstRepeatSize, srcRepeatSize}`.
    params: [u16; 4],
    dst_at: DstAt,
    /// dst one element shorter than the call needs (must fail).
    short_dst: bool,
    data_seed: u64,
}

/// Counter mode and mask: continuous, bits (high word 0 for 32-bit types), or a per-repeat
/// count of up to 3 repeats' lanes.
fn mask_strategy<T: Element>() -> impl Strategy<Value = (bool, Mask)> {
    let par = T::PAR as u64;
    prop_oneof![
        2 => (1..=par).prop_map(|n| (false, Mask::Count(n))),
        2 => (strat::mask_word_edges(), strat::mask_word_edges()).prop_filter_map("an all-zero mask", |(lo, hi)| {
            let hi = if T::SIZE == 4 { 0 } else { hi };
            (lo | hi != 0).then_some((false, Mask::Bits([lo, hi])))
        }),
        2 => (1..=par * 3).prop_map(|n| (true, Mask::Count(n))),
    ]
}

fn case_strategy<T: Element>() -> impl Strategy<Value = Case> {
    let blk = || prop_oneof![3 => Just(1u16), 1 => Just(0u16), 2 => 0..4u16];
    let rep = || prop_oneof![2 => Just(8u16), 3 => 0..24u16, 1 => 256..=4095u16];
    let dst_at = prop_oneof![6 => Just(DstAt::Apart), 1 => Just(DstAt::InPlace), 3 => (0..64usize).prop_map(DstAt::Block)];
    (
        prop::sample::select(vec![Soc::Ascend910B, Soc::Ascend310B]),
        mask_strategy::<T>(),
        any::<bool>(),
        prop_oneof![19 => 1..=6u8, 1 => Just(0u8)],
        (blk(), blk(), rep(), rep()),
        dst_at,
        prop::bool::weighted(0.25),
        any::<u64>(),
    )
        .prop_map(
            |(soc, (counter, mask), set_mask, repeat, (ds, ss, dr, sr), dst_at, short_dst, data_seed)| {
                let mut params = [ds, ss, dr, sr];
                if matches!(dst_at, DstAt::InPlace) {
                    params[0] = params[1];
                    params[2] = params[3];
                }
                Case { soc, counter, set_mask, mask, repeat, params, dst_at, short_dst, data_seed }
            },
        )
        // Keep every operand in its half of the buffer (a large repeat size, few repeats).
        .prop_filter("fits the buffer", |c| extents::<T>(c).iter().all(|&e| e * T::SIZE <= BUF))
}

/// Bytes of each half of the test's buffer.
const BUF: usize = 48 * 1024;

/// The lanes of each repeat, straight from the model.
fn lanes<T: Element>(c: &Case) -> Vec<Vec<usize>> {
    let reps = c.repeat as usize;
    match (c.counter, c.mask) {
        (true, Mask::Count(n)) => (0..reps).map(|_| (0..n as usize).collect()).collect(),
        (true, Mask::Bits(_)) => unreachable!(),
        (false, m) => {
            let on = |j: usize| match m {
                Mask::Count(n) => (j as u64) < n,
                Mask::Bits(b) => b[j / 64] >> (j % 64) & 1 == 1,
            };
            (0..reps).map(|_| (0..T::PAR).filter(|&j| on(j)).collect()).collect()
        }
    }
}

/// `(r * repeatSize + (j / EPB) * stride) * EPB + j % EPB`.
fn element<T: Element>(r: usize, j: usize, stride: u16, repeat_size: u16) -> usize {
    (r * repeat_size as usize + (j / T::EPB) * stride as usize) * T::EPB + j % T::EPB
}

/// One past the highest element of dst and of src.
fn extents<T: Element>(c: &Case) -> [usize; 2] {
    let mut ext = [0; 2];
    for (r, l) in lanes::<T>(c).iter().enumerate() {
        for &j in l {
            ext[0] = ext[0].max(element::<T>(r, j, c.params[0], c.params[2]) + 1);
            ext[1] = ext[1].max(element::<T>(r, j, c.params[1], c.params[3]) + 1);
        }
    }
    ext
}

/// The reference on the whole buffer `mem`, dst at element `d0` and src at `s0`: each
/// repeat reads all its lanes of src, then writes them to dst in lane order. Returns
/// whether a dst block is a src block (a partial overlap unless in place).
fn reference<T: Element>(c: &Case, mem: &mut [T], d0: usize, s0: usize) -> bool {
    let (mut db, mut sb) = (std::collections::HashSet::new(), std::collections::HashSet::new());
    for (r, l) in lanes::<T>(c).iter().enumerate() {
        let vals: Vec<T> = l
            .iter()
            .map(|&j| {
                let e = s0 + element::<T>(r, j, c.params[1], c.params[3]);
                sb.insert(e / T::EPB);
                mem[e]
            })
            .collect();
        for (&j, v) in l.iter().zip(vals) {
            let e = d0 + element::<T>(r, j, c.params[0], c.params[2]);
            db.insert(e / T::EPB);
            mem[e] = v;
        }
    }
    !db.is_disjoint(&sb)
}

fn run_case<T: CopyElement>(c: &Case) {
    on(c.soc, || {
        let (_p, b) = ub(2 * BUF);
        let mut r = Rng(c.data_seed);
        let all = b.get::<T>();
        // Any bits: NaN payloads must survive too.
        all.copy_from_slice(&(0..all.get_size()).map(|_| from_bits::<T>(r.next())).collect::<Vec<_>>());
        let ext = if c.repeat == 0 { [1, 1] } else { extents::<T>(c) };
        let short = usize::from(c.short_dst && c.repeat > 0);
        let src = b.get_with_offset::<T>(ext[1].max(1), 0);
        let d0 = match c.dst_at {
            DstAt::Apart => BUF / T::SIZE,
            DstAt::InPlace => 0,
            DstAt::Block(k) => k * T::EPB,
        };
        let dst = match c.dst_at {
            DstAt::InPlace => src.clone(),
            _ => b.get_with_offset::<T>(ext[0].max(1) - short, d0 * T::SIZE),
        };
        let before = all.to_vec();
        let mut mem = before.clone();
        let meet = reference(c, &mut mem, d0, 0);
        let p = CopyRepeatParams::from(c.params);
        let call = || {
            if c.counter {
                set_mask_count();
            }
            if c.set_mask {
                copy_masked::<T, true>(&dst, &src, c.mask, c.repeat, &p);
            } else {
                set_vector_mask::<T>(c.mask);
                copy_masked::<T, false>(&dst, &src, MASK_PLACEHOLDER, c.repeat, &p);
            }
        };
        let ctx = format!("{} {c:?}", T::DTYPE);
        if short == 1 && !matches!(c.dst_at, DstAt::InPlace) {
            expect_panic(call, &["Copy", "dst would touch element"]);
        } else if meet && !matches!(c.dst_at, DstAt::InPlace) {
            let msg = panic_message(call);
            assert!(msg.contains("partially overlap"), "{msg}; {ctx}");
            assert_bits(&all.to_vec(), &before, &ctx);
        } else {
            call();
            assert_bits(&all.to_vec(), &mem, &ctx);
        }
        set_mask_norm();
        reset_mask();
    });
}

/// `cases` random calls of `T` from a fixed seed (every run draws the same calls); a
/// failure is shrunk to a minimal call.
fn random_calls<T: CopyElement>(cases: u32) {
    let mut runner = TestRunner::new(strat::config(cases, 0x00c0_ffee_0000_0c09));
    if let Err(e) = runner.run(&case_strategy::<T>(), |c| {
        run_case::<T>(&c);
        Ok(())
    }) {
        panic!("{e}");
    }
}

macro_rules! per_type {
    ($($t:ty),*) => {$(
        paste::paste! {
            #[test]
            fn [<random_copy_ $t>]() {
                random_calls::<$t>(400);
            }

            #[test]
            fn [<copy_chips_ $t>]() {
                for soc in Soc::ALL {
                    assert_eq!(<$t as CopyElement>::copy_supported(soc), matches!(soc, Soc::Ascend910B | Soc::Ascend310B));
                }
                on(Soc::Ascend310P, || {
                    let (_p, b) = ub(512);
                    let t = b.get::<$t>();
                    expect_panic(
                        || copy_masked::<$t, true>(&t, &t, 8u64, 1, &CopyRepeatParams::default()),
                        &[&format!("T = {} is not supported by Copy on Ascend310P", <$t>::DTYPE)],
                    );
                });
            }
        }
    )*};
}
per_type!(i16, u16, f16, bf16, i32, u32, f32);
