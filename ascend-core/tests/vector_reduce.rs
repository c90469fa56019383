//! `vec_reduce_add` (TIK): seed 002 examples on every chip, saturation, each chip's own order
//! of additions, a random reference over masks, repeats, strides, types and chips, and every
//! check.

use crate::common::seed_data;

use ascend_core::prelude::*;
use seed_data::{REDUCE_EX2_RESULT, REDUCE_EX2_WORK};

use crate::common::util;
use util::{add_sat, assert_fails, bits, h, in_order, on, tensor, tree, Rng};

use crate::common::prop as strat;
use proptest::prelude::*;

// ---- an independent, straightforward reference -------------------------------------------

/// Lane-wise in-order sum of several lane vectors.
fn lanewise<T: Element>(vs: &[Vec<T>], sat: bool) -> Vec<T> {
    let mut acc = vs[0].clone();
    for v in &vs[1..] {
        for (a, &x) in acc.iter_mut().zip(v) {
            *a = add_sat(*a, x, sat);
        }
    }
    acc
}

/// The lanes of every repeat (disabled lanes zero).
fn repeat_lanes<T: Element>(src: &[T], mask: [u64; 2], repeats: usize, stride: usize) -> Vec<Vec<T>> {
    (0..repeats)
        .map(|r| {
            (0..T::PAR)
                .map(
                    |j| {
                        if mask[j / 64] >> (j % 64) & 1 == 1 {
                            src[r * stride * T::EPB + j]
                        } else {
                            T::ZERO
                        }
                    },
                )
                .collect()
        })
        .collect()
}

/// `(dst[0], work elements written)` for `order`.
fn reference<T: Element>(lanes: &[Vec<T>], order: RepeatSumOrder, sat: bool) -> (T, Vec<T>) {
    let per_repeat = || lanes.iter().map(|l| tree(l.clone(), sat)).collect::<Vec<T>>();
    match order {
        RepeatSumOrder::PairwiseTree => {
            let res = per_repeat();
            (tree(res.clone(), sat), res)
        }
        RepeatSumOrder::InOrderGroupsOf255 => {
            let res = per_repeat();
            let groups: Vec<T> = res.chunks(255).map(|g| in_order(g, sat)).collect();
            let work = if res.len() > 255 { groups.clone() } else { vec![] };
            (tree(groups, sat), work)
        }
        RepeatSumOrder::OddEvenAccumulate => {
            let n = lanes.len();
            let c = (n % 2 == 1).then(|| lanes[n - 1].clone());
            let body = if c.is_some() { &lanes[..n - 1] } else { lanes };
            let a: Vec<Vec<T>> = body.iter().step_by(2).cloned().collect();
            let b: Vec<Vec<T>> = body.iter().skip(1).step_by(2).cloned().collect();
            let mut parts = vec![];
            if !a.is_empty() {
                parts.push(lanewise(&a, sat));
            }
            if !b.is_empty() {
                parts.push(lanewise(&b, sat));
            }
            parts.extend(c);
            (tree(lanewise(&parts, sat), sat), vec![])
        }
    }
}

/// Runs one call on the current core and checks dst, the work tensor and src against the
/// reference. Returns dst[0].
fn run_checked<T: ReduceElement>(src_vals: &[T], mask: Mask, repeats: u16, stride: u16, what: &str) -> T {
    let soc = get_soc();
    let sat = get_overflow_mode() == OverflowMode::Saturation;
    let mut pipe = TPipe::new();
    let src = tensor::<T>(&mut pipe, src_vals.len());
    let dst = tensor::<T>(&mut pipe, 64);
    let work = tensor::<T>(&mut pipe, usize::from(repeats).max(16));
    src.copy_from_slice(src_vals);
    let sentinel = T::from_f64(-7.0);
    dst.copy_from_slice(&[sentinel; 64]);
    work.copy_from_slice(&vec![sentinel; work.get_size()]);
    vec_reduce_add(mask, &dst, &src, &work, repeats, stride);

    let mbits = match mask {
        Mask::Count(n) => [
            if n >= 64 { u64::MAX } else { (1 << n) - 1 },
            if n >= 128 {
                u64::MAX
            } else if n > 64 {
                (1 << (n - 64)) - 1
            } else {
                0
            },
        ],
        Mask::Bits(b) => b,
    };
    let lanes = repeat_lanes(src_vals, mbits, repeats.into(), stride.into());
    let (want, want_work) = reference(&lanes, soc.reduce_order(), sat);
    let got = dst.to_vec();
    assert_eq!(
        got[0].to_bits_u64(),
        want.to_bits_u64(),
        "{what} on {soc}: dst[0] = {} want {}",
        got[0],
        want
    );
    assert!(got[1..].iter().all(|x| x.to_bits_u64() == sentinel.to_bits_u64()), "{what}: dst[1..] written");
    let w = work.to_vec();
    assert_eq!(bits(&w[..want_work.len()]), bits(&want_work), "{what} on {soc}: work tensor");
    assert!(
        w[want_work.len()..].iter().all(|x| x.to_bits_u64() == sentinel.to_bits_u64()),
        "{what} on {soc}: work tensor written beyond the used elements"
    );
    assert_eq!(bits(&src.to_vec()), bits(src_vals), "{what}: src changed");
    got[0]
}

// ---- seed 002 --------------------------------------------------------------------------

#[test]
fn seed_example_1_two_repeats_of_ones_every_chip() {
    for soc in Soc::ALL {
        on(soc, || {
            let mut pipe = TPipe::new();
            let (src, dst, work) =
                (tensor::<f16>(&mut pipe, 256), tensor::<f16>(&mut pipe, 32), tensor::<f16>(&mut pipe, 32));
            src.copy_from_slice(&[f16::ONE; 256]);
            dst.copy_from_slice(&[f16::ZERO; 32]);
            work.copy_from_slice(&[h(-1.0); 32]);
            vec_reduce_add(128u64, &dst, &src, &work, 2, 8);
            let out = dst.to_vec();
            assert_eq!(out[0].to_bits(), h(256.0).to_bits(), "{soc}");
            assert!(out[1..].iter().all(|x| x.to_bits() == 0), "{soc}: other dst elements untouched");
            let w = work.to_vec();
            match soc.reduce_order() {
                RepeatSumOrder::PairwiseTree => {
                    assert_eq!(bits(&w[..3]), bits(&[h(128.0), h(128.0), h(-1.0)]), "{soc}")
                }
                _ => assert!(w.iter().all(|x| x.to_bits() == h(-1.0).to_bits()), "{soc}: work untouched"),
            }
        });
    }
}

#[test]
fn seed_example_2_mask_34_six_repeats_stride_3_every_chip() {
    for soc in Soc::ALL {
        on(soc, || {
            let mut pipe = TPipe::new();
            let (src, dst, work) =
                (tensor::<f16>(&mut pipe, 384), tensor::<f16>(&mut pipe, 64), tensor::<f16>(&mut pipe, 64));
            let rows: Vec<f16> = (0..384).map(|i| h((i / 128 + 1) as f32)).collect();
            src.copy_from_slice(&rows);
            dst.copy_from_slice(&[f16::ZERO; 64]);
            work.copy_from_slice(&[f16::ZERO; 64]);
            vec_reduce_add(34u64, &dst, &src, &work, 6, 3);
            let out = dst.to_vec();
            assert_eq!(out[0].to_bits(), h(REDUCE_EX2_RESULT).to_bits(), "{soc}");
            assert!(out[1..].iter().all(|x| x.to_bits() == 0), "{soc}");
            let w = work.to_vec();
            let used = if soc.reduce_order() == RepeatSumOrder::PairwiseTree {
                let want: Vec<f16> = REDUCE_EX2_WORK.iter().map(|&x| h(x)).collect();
                assert_eq!(bits(&w[..6]), bits(&want), "{soc}: per-repeat results");
                6
            } else {
                0
            };
            assert!(w[used..].iter().all(|x| x.to_bits() == 0), "{soc}: rest of the work tensor untouched");
        });
    }
}

#[test]
fn seed_example_2_through_the_reference() {
    let rows: Vec<f16> = (0..384).map(|i| h((i / 128 + 1) as f32)).collect();
    for soc in Soc::ALL {
        on(soc, || {
            let got = run_checked(&rows, Mask::Count(34), 6, 3, "seed example 2");
            assert_eq!(got.to_f32(), 326.0);
        });
    }
}

fn saturation_input() -> Vec<f16> {
    let mut v = vec![f16::ZERO; 128];
    v[..4].copy_from_slice(&[h(60000.0), h(60000.0), h(-30000.0), h(100.0)]);
    v
}

fn reduce_one(v: &[f16], mask: u64) -> f16 {
    let mut pipe = TPipe::new();
    let (src, dst, work) =
        (tensor::<f16>(&mut pipe, v.len()), tensor::<f16>(&mut pipe, 16), tensor::<f16>(&mut pipe, 16));
    src.copy_from_slice(v);
    vec_reduce_add(mask, &dst, &src, &work, 1, 8);
    dst.get_value(0)
}

#[test]
fn saturation_example_clamps_to_65504() {
    for soc in [Soc::Ascend910, Soc::Ascend310P, Soc::Ascend310B] {
        on(soc, || {
            assert_eq!(get_overflow_mode(), OverflowMode::Saturation);
            assert_eq!(reduce_one(&saturation_input(), 4).to_bits(), h(35584.0).to_bits(), "{soc}");
        });
    }
    on(Soc::Ascend910B, || {
        set_overflow_mode(OverflowMode::Saturation);
        assert_eq!(reduce_one(&saturation_input(), 4).to_bits(), h(35584.0).to_bits(), "910B saturation");
    });
}

#[test]
fn saturation_turns_nan_into_zero() {
    // inf + -inf is NaN: saturation mode makes it 0 ("inf -> ±MAX, NaN -> 0"), so the sum is
    // 0 + (1 + 2) = 3; inf/nan mode keeps the NaN.
    let mut v = vec![f16::ZERO; 128];
    v[..4].copy_from_slice(&[f16::INFINITY, f16::NEG_INFINITY, h(1.0), h(2.0)]);
    on(Soc::Ascend910, || assert_eq!(reduce_one(&v, 4).to_bits(), h(3.0).to_bits()));
    on(Soc::Ascend910B, || {
        assert!(reduce_one(&v, 4).is_nan());
        set_overflow_mode(OverflowMode::Saturation);
        assert_eq!(reduce_one(&v, 4).to_bits(), h(3.0).to_bits());
    });
}

#[test]
fn inf_nan_mode_overflows_to_infinity() {
    on(Soc::Ascend910B, || {
        assert_eq!(get_overflow_mode(), OverflowMode::InfNan);
        assert_eq!(reduce_one(&saturation_input(), 4).to_bits(), f16::INFINITY.to_bits());
        // Negative overflow too.
        let neg: Vec<f16> = saturation_input().iter().map(|&x| -x).collect();
        assert_eq!(reduce_one(&neg, 4).to_bits(), f16::NEG_INFINITY.to_bits());
    });
    on(Soc::Ascend910, || {
        let neg: Vec<f16> = saturation_input().iter().map(|&x| -x).collect();
        assert_eq!(reduce_one(&neg, 4).to_bits(), h(-35584.0).to_bits());
    });
}

#[test]
fn saturation_applies_to_cross_repeat_sums() {
    // Two repeats of 40000 each: the cross-repeat sum overflows.
    let mut v = vec![f16::ZERO; 256];
    v[0] = h(40000.0);
    v[128] = h(40000.0);
    for soc in Soc::ALL {
        on(soc, || {
            let got = run_checked(&v, Mask::Count(1), 2, 8, "cross-repeat overflow");
            let want = if soc == Soc::Ascend910B { f16::INFINITY } else { h(65504.0) };
            assert_eq!(got.to_bits(), want.to_bits(), "{soc}");
        });
    }
}

#[test]
fn f32_is_ieee_in_every_mode() {
    for soc in [Soc::Ascend910, Soc::Ascend910B] {
        on(soc, || {
            let mut v = vec![0f32; 64];
            v[0] = f32::MAX;
            v[1] = f32::MAX;
            let got = run_checked(&v, Mask::Count(2), 1, 8, "f32 overflow");
            assert_eq!(got, f32::INFINITY);
            // The in-repeat tree is exact in f32 for 1 + 2^-24 pairs: (1 + 2^-24) rounds to 1.
            let mut v = vec![0f32; 64];
            v[0] = 1.0;
            v[1] = f32::EPSILON / 2.0;
            v[2] = f32::EPSILON / 2.0;
            let got = run_checked(&v, Mask::Count(3), 1, 8, "f32 rounding");
            assert_eq!(got, 1.0, "(1 + e/2) + (e/2 + 0) with ties to even");
        });
    }
}

// ---- each chip's own order -------------------------------------------------------------

/// 300 repeats, only lane 0 enabled: repeat 0 holds 2048, every other repeat 1. In f16
/// `2048 + 1` rounds back to 2048, so the order of additions decides the sum:
/// - pairwise tree (910, 310P): the ones pair up first: 2346 (exact);
/// - in order within 255 (910B): the first run loses its 254 ones (2048), the second sums 45:
///   2048 + 45 = 2093, rounded to 2092;
/// - odd/even (310B): A = 2048 + 149 lost ones = 2048, B = 150, D = 2198.
#[test]
fn order_of_additions_gives_each_chip_its_own_answer() {
    let repeats = 300usize;
    let mut v = vec![f16::ZERO; repeats * 16 + 112];
    for r in 0..repeats {
        v[r * 16] = if r == 0 { h(2048.0) } else { f16::ONE };
    }
    let mut answers = vec![];
    for soc in Soc::ALL {
        on(soc, || {
            let got = run_checked(&v, Mask::Count(1), repeats as u16, 1, "2048 and ones");
            let want = match soc {
                Soc::Ascend910 | Soc::Ascend310P => 2346.0,
                Soc::Ascend910B => 2092.0,
                Soc::Ascend310B => 2198.0,
            };
            assert_eq!(got.to_f32(), want, "{soc}");
            answers.push(got.to_bits());
        });
    }
    answers.sort_unstable();
    answers.dedup();
    assert_eq!(answers.len(), 3, "three orders, three answers");
}

/// Runs `rows` (one `Vec` of lanes per repeat, 128 f16 lanes each, stride 8) on every chip
/// with `mask`, checking against the reference; returns dst[0] per chip in `Soc::ALL` order.
fn per_chip(rows: &[[f32; 2]], mask: Mask) -> Vec<f32> {
    let mut v = vec![f16::ZERO; rows.len() * 128];
    for (r, row) in rows.iter().enumerate() {
        v[r * 128] = h(row[0]);
        v[r * 128 + 1] = h(row[1]);
    }
    let mut out = vec![];
    for soc in Soc::ALL {
        on(soc, || out.push(run_checked(&v, mask, rows.len() as u16, 8, "per chip").to_f32()));
    }
    out
}

/// Two repeats: 310B adds the repeats lane by lane (A + B) before its tree, the others tree
/// each repeat first.
/// - 310B: D = [2048 + 1, 0 + 1] = [2048, 1] (the 1 is lost), tree 2048 + 1 = 2048.
/// - others: repeat sums 2048 and 1 + 1 = 2, then 2048 + 2 = 2050.
#[test]
fn two_repeats_odd_even_adds_lanes_before_the_tree() {
    let got = per_chip(&[[2048.0, 0.0], [1.0, 1.0]], Mask::Bits([0b11, 0]));
    assert_eq!(got, [2050.0, 2050.0, 2050.0, 2048.0], "910, 910B, 310P, 310B");
}

/// Three repeats: 310B keeps the last (odd) repeat apart as C, D = (A + B) + C.
/// r0 = [2048, 0], r1 = [1, 1], r2 = [-2048, 1]:
/// - 310B: D = [(2048 + 1) - 2048, (0 + 1) + 1] = [0, 2] → 2. (Folding r2 into A would give
///   D = [(2048 - 2048) + 1, 2] = [1, 2] → 3.)
/// - others: repeat sums 2048, 2, -2047; (2048 + 2) - 2047 = 3 (pairwise with carry, and in
///   order, agree here).
#[test]
fn three_repeats_odd_even_keeps_the_last_apart() {
    let got = per_chip(&[[2048.0, 0.0], [1.0, 1.0], [-2048.0, 1.0]], Mask::Bits([0b11, 0]));
    assert_eq!(got, [3.0, 3.0, 3.0, 2.0], "910, 910B, 310P, 310B");
}

/// Five repeats on 310B: A = r0 + r2 (+ nothing else), B = r1 + r3, C = r4.
/// Lane 0 only: r = [2048, 1, 1, 1, 1]:
/// - 310B: A = 2048 + 1 = 2048, B = 2, C = 1: (2048 + 2) + 1 = 2051 → 2052 (ties to even).
/// - pairwise: [(2048 + 1), (1 + 1), 1] → [2048, 2, 1] → [2050, 1] → 2051 → 2052.
/// - in order: (((2048 + 1) + 1) + 1) + 1 = 2048.
#[test]
fn five_repeats_every_order() {
    let got = per_chip(&[[2048.0, 0.0], [1.0, 0.0], [1.0, 0.0], [1.0, 0.0], [1.0, 0.0]], Mask::Count(1));
    assert_eq!(got, [2052.0, 2048.0, 2052.0, 2052.0], "910, 910B, 310P, 310B");
}

// ---- random reference --------------------------------------------------------------------

/// A mask before it is fitted to a type by [`random_mask`].
#[derive(Clone, Copy, Debug)]
enum RawMask {
    /// `1 + n % PAR` lanes.
    Count(u64),
    /// Every lane.
    Full,
    /// Bits (lane 0 always on; the high word only for 128 lanes).
    Bits(u64, u64),
}

fn random_mask<T: Element>(m: RawMask) -> Mask {
    match m {
        RawMask::Count(n) => Mask::Count(1 + n % T::PAR as u64),
        RawMask::Full => Mask::Count(T::PAR as u64),
        RawMask::Bits(lo, hi) => Mask::Bits([lo | 1, if T::PAR == 128 { hi } else { 0 }]),
    }
}

/// One random call: stride (0, 8 or any up to 16), repeats (few, around 256, or any up to
/// 600; cut to fit the source), mask and the seed of the data.
#[derive(Clone, Debug)]
struct Call {
    stride: usize,
    repeats: usize,
    mask: RawMask,
    data_seed: u64,
}

fn call() -> impl Strategy<Value = Call> {
    let mask = prop_oneof![
        any::<u64>().prop_map(RawMask::Count),
        Just(RawMask::Full),
        (any::<u64>(), any::<u64>(), any::<u64>()).prop_map(|(a, b, hi)| RawMask::Bits(a & b, hi)),
    ];
    (
        prop_oneof![1 => Just(0usize), 1 => Just(8), 2 => 0..17usize],
        prop_oneof![1 => 1..=4usize, 1 => 256..=555usize, 2 => 1..=600usize],
        mask,
        any::<u64>(),
    )
        .prop_map(|(stride, repeats, mask, data_seed)| Call { stride, repeats, mask, data_seed })
}

fn random_case<T: ReduceElement>(c: &Call, max_elems: usize, scale: f64, what: &str) {
    let rng = &mut Rng(c.data_seed);
    let stride = c.stride;
    let mut repeats = c.repeats;
    if stride > 0 {
        repeats = repeats.min((max_elems - T::PAR) / (stride * T::EPB) + 1);
    }
    let n = (repeats - 1) * stride * T::EPB + T::PAR;
    let vals: Vec<T> = (0..n)
        .map(|_| {
            let x = (rng.below(4001) as f64 - 2000.0) / 16.0 * scale;
            T::from_f64(if rng.below(50) == 0 { x * 64.0 } else { x })
        })
        .collect();
    let mask = random_mask::<T>(c.mask);
    run_checked(
        &vals,
        mask,
        repeats as u16,
        stride as u16,
        &format!("{what}: mask {mask:?} repeats {repeats} stride {stride}"),
    );
}

#[test]
fn random_reference_every_chip_f16_and_f32() {
    // Each case: the chip, the overflow mode (Ascend910B only), and an f16 call, an f32 call,
    // and an f16 call with large values (which reach the overflow threshold in some sums).
    let cases = (strat::soc_of(Soc::ALL.to_vec()), any::<bool>(), [call(), call(), call()]);
    strat::check_cases(30 * Soc::ALL.len() as u32, 0x2545_f491_4f6c_dd1d, cases, |(soc, sat, calls)| {
        on(*soc, || {
            if *soc == Soc::Ascend910B && *sat {
                set_overflow_mode(OverflowMode::Saturation);
            }
            random_case::<f16>(&calls[0], 30_000, 1.0, "f16");
            random_case::<f32>(&calls[1], 15_000, 1.0 / 3.0, "f32");
            random_case::<f16>(&calls[2], 30_000, 16.0, "f16 large");
        })
    });
}

#[test]
fn counter_mode_does_not_change_the_mask() {
    let rows: Vec<f16> = (0..384).map(|i| h((i / 128 + 1) as f32)).collect();
    on(Soc::Ascend910, || {
        set_mask_count();
        let got = run_checked(&rows, Mask::Count(34), 6, 3, "counter mode");
        assert_eq!(got.to_f32(), 326.0);
    });
}

#[test]
fn maximal_repeats_and_stride() {
    for soc in Soc::ALL {
        on(soc, || {
            // 4095 repeats over the same 64 f32 lanes (stride 0).
            let vals: Vec<f32> = (0..64).map(|i| i as f32 * 0.25 - 3.0).collect();
            run_checked(&vals, Mask::Count(64), 4095, 0, "4095 repeats");
            // Stride 65535 blocks with a single repeat reads only the first repeat.
            run_checked(&vals, Mask::Count(64), 1, 65535, "stride 65535");
        });
    }
}

// ---- checks ------------------------------------------------------------------------------

#[test]
fn repeat_times_out_of_range() {
    let mut pipe = TPipe::new();
    let (s, d, w) =
        (tensor::<f16>(&mut pipe, 128), tensor::<f16>(&mut pipe, 16), tensor::<f16>(&mut pipe, 16));
    assert_fails("vec_reduce_add: repeat_times = 0 is out of range [1, 4095]", || {
        vec_reduce_add(128u64, &d, &s, &w, 0, 8)
    });
    assert_fails("repeat_times = 4096 is out of range [1, 4095]", || {
        vec_reduce_add(128u64, &d, &s, &w, 4096, 8)
    });
}

#[test]
fn mask_out_of_range() {
    let mut pipe = TPipe::new();
    let (s, d, w) =
        (tensor::<f16>(&mut pipe, 128), tensor::<f16>(&mut pipe, 16), tensor::<f16>(&mut pipe, 16));
    assert_fails("vec_reduce_add: mask = 0 is out of range [1, 128] for half", || {
        vec_reduce_add(0u64, &d, &s, &w, 1, 8)
    });
    assert_fails("mask = 129 is out of range [1, 128] for half", || vec_reduce_add(129u64, &d, &s, &w, 1, 8));
    assert_fails("mask = [0, 0]", || vec_reduce_add([0u64, 0], &d, &s, &w, 1, 8));
    let (s, d, w) = (s.reinterpret_cast::<f32>(), d.reinterpret_cast::<f32>(), w.reinterpret_cast::<f32>());
    assert_fails("mask = 65 is out of range [1, 64] for float", || vec_reduce_add(65u64, &d, &s, &w, 1, 8));
    assert_fails("mask[1] = 0x1 must be 0 for the 32-bit type float", || {
        vec_reduce_add([1u64, 1], &d, &s, &w, 1, 8)
    });
}

#[test]
fn work_tensor_too_small() {
    on(Soc::Ascend910, || {
        let mut pipe = TPipe::new();
        let (s, d, w) =
            (tensor::<f16>(&mut pipe, 384), tensor::<f16>(&mut pipe, 16), tensor::<f16>(&mut pipe, 16));
        assert_fails(
            "work_tensor holds 5 elements but Ascend910 needs at least 6 (repeat_times = 6)",
            || vec_reduce_add(34u64, &d, &s, &w.view_len(0, 5), 6, 3),
        );
    });
    on(Soc::Ascend310B, || {
        let mut pipe = TPipe::new();
        let (s, d, w) =
            (tensor::<f16>(&mut pipe, 384), tensor::<f16>(&mut pipe, 16), tensor::<f16>(&mut pipe, 16));
        assert_fails(
            "work_tensor holds 2 elements but Ascend310B needs at least 3 (repeat_times = 3)",
            || vec_reduce_add(128u64, &d, &s, &w.view_len(0, 2), 3, 8),
        );
    });
    on(Soc::Ascend910B, || {
        let mut pipe = TPipe::new();
        let (s, d, w) =
            (tensor::<f16>(&mut pipe, 128), tensor::<f16>(&mut pipe, 16), tensor::<f16>(&mut pipe, 16));
        // 511 repeats need ceil(511 / 255) = 3 elements.
        assert_fails(
            "work_tensor holds 2 elements but Ascend910B needs at least 3 (repeat_times = 511)",
            || vec_reduce_add(128u64, &d, &s, &w.view_len(0, 2), 511, 0),
        );
        assert_fails(
            "work_tensor holds 0 elements but Ascend910B needs at least 1 (repeat_times = 1)",
            || vec_reduce_add(128u64, &d, &s, &w.view_len(0, 0), 1, 0),
        );
        // 255 repeats with one element is fine (and the element is not written).
        w.set_value(0, h(9.0));
        s.copy_from_slice(&[f16::ONE; 128]);
        vec_reduce_add(1u64, &d, &s, &w.view_len(0, 1), 255, 0);
        assert_eq!(d.get_value(0).to_f32(), 255.0);
        assert_eq!(w.get_value(0).to_f32(), 9.0);
    });
}

#[test]
fn dst_empty() {
    let mut pipe = TPipe::new();
    let (s, d, w) = (tensor::<f32>(&mut pipe, 64), tensor::<f32>(&mut pipe, 8), tensor::<f32>(&mut pipe, 8));
    assert_fails("dst holds 0 elements; the sum needs 1", || {
        vec_reduce_add(64u64, &d.view_len(0, 0), &s, &w, 1, 8)
    });
}

#[test]
fn src_out_of_bounds() {
    let mut pipe = TPipe::new();
    let (s, d, w) =
        (tensor::<f16>(&mut pipe, 256), tensor::<f16>(&mut pipe, 16), tensor::<f16>(&mut pipe, 16));
    assert_fails(
        "vec_reduce_add: src would touch element 383 but the tensor has 256 elements (repeats = 2, blkStride = 1, repStride = 16)",
        || vec_reduce_add(128u64, &d, &s, &w, 2, 16),
    );
    // Only masked lanes count: lanes 0..16 of repeat 1 end at element 271.
    assert_fails("src would touch element 271 but the tensor has 256 elements", || {
        vec_reduce_add(16u64, &d, &s, &w, 2, 16)
    });
}

#[test]
fn operands_overlap() {
    let mut pipe = TPipe::new();
    let (s, w) = (tensor::<f16>(&mut pipe, 512), tensor::<f16>(&mut pipe, 16));
    // dst inside src's masked lanes.
    assert_fails(
        "src (address 0x0) and dst (address 0x20) overlap; src, dst and work_tensor must not share any byte",
        || vec_reduce_add(128u64, &s.view(16), &s, &w, 1, 8),
    );
    // work tensor inside src's second repeat.
    assert_fails("src (address 0x0) and work_tensor (address 0x100) overlap", || {
        vec_reduce_add(128u64, &w, &s, &s.view(128), 2, 8)
    });
    // dst and work tensor the same.
    assert_fails("dst (address 0x400) and work_tensor (address 0x400) overlap", || {
        vec_reduce_add(128u64, &w, &s, &w, 1, 8)
    });
}

#[test]
fn disabled_lanes_and_gaps_are_not_overlap() {
    let mut pipe = TPipe::new();
    let s = tensor::<f16>(&mut pipe, 512);
    s.copy_from_slice(&[f16::ONE; 512]);
    // Mask 16 reads elements 0..16 of each repeat; dst at element 16 and the work tensor at
    // element 64 lie in the gaps.
    let (d, w) = (s.view(16), s.view(64));
    vec_reduce_add(16u64, &d, &s, &w, 2, 8);
    assert_eq!(d.get_value(0).to_f32(), 32.0);
}

#[test]
fn non_ub_and_misaligned_operands() {
    let mut pipe = TPipe::new();
    let (s, d, w) =
        (tensor::<f16>(&mut pipe, 256), tensor::<f16>(&mut pipe, 16), tensor::<f16>(&mut pipe, 32));
    let far = LocalTensor::<f16>::new(TPosition::B1, 0, 256);
    assert_fails("src is at position B1: vector instructions take VECIN, VECOUT or VECCALC tensors", || {
        vec_reduce_add(128u64, &d, &far, &w, 1, 8)
    });
    assert_fails("dst is at position B1", || vec_reduce_add(128u64, &far, &s, &w, 1, 8));
    assert_fails("work_tensor is at position B1", || vec_reduce_add(128u64, &d, &s, &far, 1, 8));
    assert_fails("work_tensor address = 0x", || vec_reduce_add(128u64, &d, &s, &w.view(1), 1, 8));
    assert_fails("is not 32-byte aligned", || vec_reduce_add(128u64, &d.view(3), &s, &w, 1, 8));
    assert_fails("src address = 0x", || vec_reduce_add(64u64, &d, &s.view(8), &w, 1, 8));
}
