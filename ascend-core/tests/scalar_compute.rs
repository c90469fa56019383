//! The scalar computation APIs (`GetBitCount`, `CountLeadingZero`, `GetSFFValue`,
//! `CountBitsCntSameAsSignBit`, their older `Scalar*` names, `ScalarCast` and the
//! `bfloat16_t` casts): the vendor pages' worked values, bit-loop references over many random
//! words, the conversions against an independent table-driven reference and against the
//! vector `Cast` bit for bit, and every chip error.

use crate::common::util;

use ascend_core::prelude::*;
use util::{fault, on, tensor, Rng};

/// Random 64-bit words of several shapes: uniform, sparse, dense, single bits, runs.
fn words(rng: &mut Rng, n: usize) -> Vec<u64> {
    let mut v = vec![0, u64::MAX, 1, 1 << 63, i64::MAX as u64, 0x0100_0000_0000_0020];
    while v.len() < n {
        let r = rng.next();
        v.push(match rng.below(6) {
            0 => r,
            1 => r & rng.next() & rng.next(),
            2 => r | rng.next() | rng.next(),
            3 => 1 << (r % 64),
            4 => !(1u64 << (r % 64)),
            // A run of ones or zeros from the top, then random bits.
            _ => {
                let k = (r % 64) as u32;
                let low = rng.next().checked_shr(k).unwrap_or(0);
                if rng.chance(2) {
                    low
                } else {
                    !low
                }
            }
        });
    }
    v
}

fn bit(v: u64, i: u32) -> u64 {
    (v >> i) & 1
}

fn ref_count(v: u64, b: u64) -> i64 {
    (0..64).filter(|&i| bit(v, i) == b).count() as i64
}

fn ref_clz(v: u64) -> i64 {
    (0..64).rev().take_while(|&i| bit(v, i) == 0).count() as i64
}

fn ref_sff(v: u64, b: u64) -> i64 {
    (0..64).find(|&i| bit(v, i) == b).map_or(-1, i64::from)
}

fn ref_same_as_sign(x: i64) -> i64 {
    let v = x as u64;
    let sign = bit(v, 63);
    match (0..63).rev().take_while(|&i| bit(v, i) == sign).count() {
        63 => -1,
        n => n as i64,
    }
}

/// The pages' example input of the conversions (close to, but not, π).
#[allow(clippy::approx_constant)]
const PAGE_VALUE: f32 = 3.14159;

// ---- the bit utilities -------------------------------------------------------------------

#[test]
fn the_vendor_pages_worked_values() {
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        on(soc, || {
            assert_eq!(get_bit_count::<1>(0xFFFF), 16);
            assert_eq!(get_bit_count::<0>(0xFFFF), 48);
            assert_eq!(count_leading_zero(0x0100_0000_0000_0020), 7);
            assert_eq!(count_leading_zero(0x0000_0000_0000_FFFF), 48);
            assert_eq!(count_leading_zero(0), 64);
            assert_eq!(count_leading_zero(u64::MAX), 0);
            assert_eq!(get_sff_value::<1>(0x1000_0000_0000_0100), 8);
            assert_eq!(get_sff_value::<0>(u64::MAX), -1);
            assert_eq!(get_sff_value::<1>(0), -1);
            assert_eq!(get_sff_value::<0>(0xFF00), 0);
            assert_eq!(get_sff_value::<1>(0xFF00), 8);
            assert_eq!(get_sff_value::<0>(0x00FF), 8);
            assert_eq!(get_sff_value::<1>(0x00FF), 0);
            assert_eq!(count_bits_cnt_same_as_sign_bit(0x0100_0000_0000_0020), 6);
            assert_eq!(count_bits_cnt_same_as_sign_bit(0), -1);
            assert_eq!(count_bits_cnt_same_as_sign_bit(-1), -1);
            assert_eq!(count_bits_cnt_same_as_sign_bit(0x7FFF_FFFF_FFFF_FFFF), 0);
            assert_eq!(count_bits_cnt_same_as_sign_bit(i64::MIN), 0);
            assert_eq!(count_bits_cnt_same_as_sign_bit(1), 62);
            assert_eq!(count_bits_cnt_same_as_sign_bit(0x00F0_0000_0000_0000), 7);
        });
    }
}

#[test]
fn hand_worked_negative_and_edge_values() {
    on(Soc::Ascend910B, || {
        // -2 = 1…10: 62 ones below the sign bit before the last 0.
        assert_eq!(count_bits_cnt_same_as_sign_bit(-2), 62);
        // 0xF0… : sign 1, then three more ones.
        assert_eq!(count_bits_cnt_same_as_sign_bit(0xF000_0000_0000_0000u64 as i64), 3);
        // 0xC000…0001: sign 1, bit 62 one, bit 61 zero.
        assert_eq!(count_bits_cnt_same_as_sign_bit(0xC000_0000_0000_0001u64 as i64), 1);
        assert_eq!(get_sff_value::<1>(1 << 63), 63);
        assert_eq!(get_sff_value::<0>(!(1 << 63)), 63);
        assert_eq!(get_bit_count::<1>(u64::MAX), 64);
        assert_eq!(get_bit_count::<0>(0), 64);
        assert_eq!(count_leading_zero(1 << 63), 0);
        assert_eq!(count_leading_zero(1), 63);
    });
}

#[test]
fn the_bit_utilities_match_bit_loops_on_random_words() {
    let mut rng = Rng(0x5CA1_AB17);
    let ws = words(&mut rng, 20_000);
    on(Soc::Ascend910B, || {
        for &w in &ws {
            assert_eq!(get_bit_count::<1>(w), ref_count(w, 1), "GetBitCount<1>({w:#x})");
            assert_eq!(get_bit_count::<0>(w), ref_count(w, 0), "GetBitCount<0>({w:#x})");
            assert_eq!(count_leading_zero(w), ref_clz(w), "CountLeadingZero({w:#x})");
            assert_eq!(get_sff_value::<1>(w), ref_sff(w, 1), "GetSFFValue<1>({w:#x})");
            assert_eq!(get_sff_value::<0>(w), ref_sff(w, 0), "GetSFFValue<0>({w:#x})");
            let x = w as i64;
            assert_eq!(
                count_bits_cnt_same_as_sign_bit(x),
                ref_same_as_sign(x),
                "CountBitsCntSameAsSignBit({x:#x})"
            );
        }
    });
    // The older names compute the same, on the other chip too.
    on(Soc::Ascend310P, || {
        for &w in ws.iter().take(5_000) {
            assert_eq!(scalar_get_count_of_value::<1>(w), ref_count(w, 1));
            assert_eq!(scalar_get_count_of_value::<0>(w), ref_count(w, 0));
            assert_eq!(scalar_count_leading_zero(w), ref_clz(w));
            assert_eq!(scalar_get_sff_value::<1>(w), ref_sff(w, 1));
            assert_eq!(scalar_get_sff_value::<0>(w), ref_sff(w, 0));
        }
    });
}

#[test]
fn the_references_agree_with_the_pages() {
    // The bit-loop references themselves, on the pages' values (so a wrong reference cannot
    // make the random comparison pass).
    assert_eq!(ref_count(0xFFFF, 1), 16);
    assert_eq!(ref_clz(0x0100_0000_0000_0020), 7);
    assert_eq!(ref_clz(0), 64);
    assert_eq!(ref_sff(0x1000_0000_0000_0100, 1), 8);
    assert_eq!(ref_sff(u64::MAX, 0), -1);
    assert_eq!(ref_same_as_sign(0x00F0_0000_0000_0000), 7);
    assert_eq!(ref_same_as_sign(-1), -1);
    assert_eq!(ref_same_as_sign(1), 62);
}

/// A call that may fail.
type Call = Box<dyn Fn()>;

/// Every bit utility under each of its names, as `(api, call)`.
fn bit_calls() -> Vec<(&'static str, Call)> {
    vec![
        (
            "GetBitCount",
            Box::new(|| {
                let _ = get_bit_count::<1>(3);
            }),
        ),
        (
            "ScalarGetCountOfValue",
            Box::new(|| {
                let _ = scalar_get_count_of_value::<0>(3);
            }),
        ),
        (
            "CountLeadingZero",
            Box::new(|| {
                let _ = count_leading_zero(3);
            }),
        ),
        (
            "ScalarCountLeadingZero",
            Box::new(|| {
                let _ = scalar_count_leading_zero(3);
            }),
        ),
        (
            "GetSFFValue",
            Box::new(|| {
                let _ = get_sff_value::<1>(3);
            }),
        ),
        (
            "ScalarGetSFFValue",
            Box::new(|| {
                let _ = scalar_get_sff_value::<0>(3);
            }),
        ),
        (
            "CountBitsCntSameAsSignBit",
            Box::new(|| {
                let _ = count_bits_cnt_same_as_sign_bit(3);
            }),
        ),
        (
            "ScalarCast",
            Box::new(|| {
                let _ = scalar_cast::<f32, f16, { RoundMode::CAST_ODD }>(1.0);
            }),
        ),
        (
            "ScalarCast",
            Box::new(|| {
                let _ = scalar_cast::<f32, i32, { RoundMode::CAST_RINT }>(1.0);
            }),
        ),
    ]
}

#[test]
fn chips_without_the_bit_utilities_or_scalar_cast_name_themselves() {
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        for (api, call) in bit_calls() {
            let f = fault(soc, call);
            assert_eq!(f.api, api);
            assert_eq!(
                f.message,
                format!(
                    "not supported on {soc} ({}); it exists on Ascend910B and Ascend310P (and on chips not modelled)",
                    soc.product_line()
                )
            );
            assert!(f.file.ends_with("tests/scalar_compute.rs"), "the fault points at the call: {}", f.file);
        }
    }
    // And they work on the two chips that have them.
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        on(soc, || bit_calls().into_iter().for_each(|(_, call)| call()));
    }
}

// ---- ScalarCast ------------------------------------------------------------------------------

#[test]
fn scalar_cast_the_pages_worked_values() {
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        on(soc, || {
            let h = scalar_cast::<f32, f16, { RoundMode::CAST_ODD }>(PAGE_VALUE);
            assert_eq!(h.to_bits(), 0x4249, "3.142578125 = 1609 * 2^-9");
            assert_eq!(h.to_f32(), 3.142_578_1);
            let r = |x: f32| {
                [
                    scalar_cast::<f32, i32, { RoundMode::CAST_ROUND }>(x),
                    scalar_cast::<f32, i32, { RoundMode::CAST_CEIL }>(x),
                    scalar_cast::<f32, i32, { RoundMode::CAST_FLOOR }>(x),
                    scalar_cast::<f32, i32, { RoundMode::CAST_RINT }>(x),
                ]
            };
            assert_eq!(r(1.5), [2, 2, 1, 2]);
            assert_eq!(r(2.5), [3, 3, 2, 2]);
            // Negative ties and out-of-range values, by hand.
            assert_eq!(r(-2.5), [-3, -2, -3, -2]);
            assert_eq!(r(-0.25), [0, 0, -1, 0]);
            assert_eq!(r(3e9), [i32::MAX; 4]);
            assert_eq!(r(f32::NEG_INFINITY), [i32::MIN; 4]);
            assert_eq!(r(f32::NAN), [0; 4]);
            assert_eq!(r(2_147_483_520.0), [2_147_483_520; 4]);
        });
    }
}

#[test]
fn scalar_cast_to_half_overflow_follows_the_overflow_mode() {
    on(Soc::Ascend910B, || {
        let h = |x: f32| scalar_cast::<f32, f16, { RoundMode::CAST_ODD }>(x).to_bits();
        // Ascend910B starts in inf/nan mode.
        assert_eq!(h(f32::INFINITY), 0x7C00);
        assert_eq!(h(f32::NEG_INFINITY), 0xFC00);
        assert_eq!(h(f32::NAN), 0x7E00);
        // A finite value beyond the range rounds to odd: ±65504 in both modes.
        assert_eq!(h(1e6), 0x7BFF);
        assert_eq!(h(-65520.0), 0xFBFF);
        set_overflow_mode(OverflowMode::Saturation);
        assert_eq!(h(f32::INFINITY), 0x7BFF);
        assert_eq!(h(f32::NEG_INFINITY), 0xFBFF);
        assert_eq!(h(f32::NAN), 0);
        assert_eq!(h(1e6), 0x7BFF);
    });
    // Ascend310P is always in saturation mode.
    on(Soc::Ascend310P, || {
        assert_eq!(scalar_cast::<f32, f16, { RoundMode::CAST_ODD }>(f32::INFINITY).to_bits(), 0x7BFF);
    });
}

/// Every finite non-negative `f16` bit pattern, in increasing order of value.
fn f16_ladder() -> Vec<(u16, f64)> {
    (0u16..0x7C00).map(|b| (b, f64::from(f16::from_bits(b).to_f32()))).collect()
}

/// Rounding to odd by table: the largest `f16` magnitude not above `|x|` (truncation), kept if
/// exact or odd, else the next one up; beyond the table, the largest. ±inf and NaN by `sat`.
fn ref_f16_odd(ladder: &[(u16, f64)], x: f32, sat: bool) -> u16 {
    if x.is_nan() {
        return if sat { 0 } else { 0x7E00 };
    }
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    if x.is_infinite() {
        return sign | if sat { 0x7BFF } else { 0x7C00 };
    }
    let a = f64::from(x).abs();
    let i = ladder.partition_point(|&(_, v)| v <= a) - 1; // ladder[0] = 0 <= a
    let (b, v) = ladder[i];
    let mag = if v == a || b & 1 == 1 || i + 1 == ladder.len() { b } else { ladder[i + 1].0 };
    sign | mag
}

/// `float → int32_t` in `f64`: round by mode, clamp, NaN → 0.
fn ref_i32(x: f32, mode: RoundMode) -> i32 {
    if x.is_nan() {
        return 0;
    }
    let x = f64::from(x);
    let r = match mode {
        RoundMode::CastFloor => x.floor(),
        RoundMode::CastCeil => x.ceil(),
        RoundMode::CastRound => x.trunc() + if x.fract().abs() >= 0.5 { x.signum() } else { 0.0 },
        _ => {
            let f = x.floor();
            let d = x - f;
            if d > 0.5 || (d == 0.5 && f % 2.0 != 0.0) {
                f + 1.0
            } else {
                f
            }
        }
    };
    r.clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32
}

/// Random `f32` values that exercise the conversions: uniform bits, values in and around
/// `half`'s range, `half` values nudged by one `f32` ulp, halves of integers, the extremes.
fn floats(rng: &mut Rng, n: usize) -> Vec<f32> {
    let mut v = vec![
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        f32::MAX,
        f32::MIN,
        f32::MIN_POSITIVE,
        1e-45,
        65504.0,
        65519.99,
        65520.0,
        -65536.0,
        2_147_483_648.0,
        -2_147_483_648.0,
        -2_147_483_904.0,
    ];
    while v.len() < n {
        let r = rng.next();
        let sign = ((r >> 63) as u32) << 31;
        v.push(match rng.below(5) {
            0 => f32::from_bits(r as u32),
            1 => f32::from_bits(sign | (((r >> 23) % 48 + 127 - 30) as u32) << 23 | (r as u32 & 0x7F_FFFF)),
            2 => {
                let h = f16::from_bits(r as u16 & 0x7BFF).to_f32();
                let b = h.to_bits() as i64 + (r >> 20) as i64 % 3 - 1;
                f32::from_bits(sign | b.clamp(0, 0x7F7F_FFFF) as u32)
            }
            3 => (((r >> 8) % 4001) as f32 - 2000.0) / 2.0,
            _ => f32::from_bits(sign | ((((r >> 23) % 10) as u32 + 150) << 23) | (r as u32 & 0x7F_FFFF)),
        });
    }
    v
}

#[test]
fn scalar_cast_matches_the_table_reference_on_random_floats() {
    let ladder = f16_ladder();
    // The reference itself on the page's value and on a tie.
    assert_eq!(ref_f16_odd(&ladder, PAGE_VALUE, false), 0x4249);
    assert_eq!(ref_f16_odd(&ladder, 1.0 + 1.0 / 2048.0, false), 0x3C01);
    assert_eq!(ref_i32(2.5, RoundMode::CastRint), 2);
    assert_eq!(ref_i32(-2.5, RoundMode::CastRound), -3);
    let xs = floats(&mut Rng(0xCA57), 40_000);
    for (soc, sat) in [(Soc::Ascend910B, false), (Soc::Ascend910B, true), (Soc::Ascend310P, true)] {
        on(soc, || {
            if sat {
                set_overflow_mode(OverflowMode::Saturation);
            }
            for &x in &xs {
                let got = scalar_cast::<f32, f16, { RoundMode::CAST_ODD }>(x).to_bits();
                assert_eq!(got, ref_f16_odd(&ladder, x, sat), "{soc} sat={sat}: {x:e} ({:#x})", x.to_bits());
                let i = [
                    scalar_cast::<f32, i32, { RoundMode::CAST_RINT }>(x),
                    scalar_cast::<f32, i32, { RoundMode::CAST_FLOOR }>(x),
                    scalar_cast::<f32, i32, { RoundMode::CAST_CEIL }>(x),
                    scalar_cast::<f32, i32, { RoundMode::CAST_ROUND }>(x),
                ];
                let want =
                    [RoundMode::CastRint, RoundMode::CastFloor, RoundMode::CastCeil, RoundMode::CastRound]
                        .map(|m| ref_i32(x, m));
                assert_eq!(i, want, "{soc}: {x:e}");
            }
        });
    }
}

#[test]
fn scalar_cast_matches_the_vector_cast_bit_for_bit() {
    const N: usize = 4096;
    let xs = floats(&mut Rng(0x7EC7), 8 * N);
    for (soc, sat) in [(Soc::Ascend910B, false), (Soc::Ascend910B, true), (Soc::Ascend310P, true)] {
        on(soc, || {
            if sat {
                set_overflow_mode(OverflowMode::Saturation);
            }
            let mut pipe = TPipe::new();
            let src = tensor::<f32>(&mut pipe, N);
            let h = tensor::<f16>(&mut pipe, N);
            let i = tensor::<i32>(&mut pipe, N);
            for chunk in xs.chunks(N) {
                src.copy_from_slice(chunk);
                cast(&h, &src, RoundMode::CastOdd, N);
                for (k, &x) in chunk.iter().enumerate() {
                    let got = scalar_cast::<f32, f16, { RoundMode::CAST_ODD }>(x);
                    assert_eq!(got.to_bits(), h.get_value(k).to_bits(), "{soc} sat={sat}: {x:e}");
                }
                for (mode, scalar) in [
                    (
                        RoundMode::CastRint,
                        (|x| scalar_cast::<f32, i32, { RoundMode::CAST_RINT }>(x)) as fn(f32) -> i32,
                    ),
                    (RoundMode::CastFloor, |x| scalar_cast::<f32, i32, { RoundMode::CAST_FLOOR }>(x)),
                    (RoundMode::CastCeil, |x| scalar_cast::<f32, i32, { RoundMode::CAST_CEIL }>(x)),
                    (RoundMode::CastRound, |x| scalar_cast::<f32, i32, { RoundMode::CAST_ROUND }>(x)),
                ] {
                    cast(&i, &src, mode, N);
                    for (k, &x) in chunk.iter().enumerate() {
                        assert_eq!(scalar(x), i.get_value(k), "{soc} {mode}: {x:e}");
                    }
                }
            }
        });
    }
}

// ---- the bfloat16_t casts ----------------------------------------------------------------------

#[test]
fn bf16_casts_the_pages_value_and_the_overflow_mode() {
    on(Soc::Ascend910B, || {
        let b = scalar_cast_f32_to_bf16(PAGE_VALUE);
        assert_eq!(b.to_bits(), 0x4049);
        assert_eq!(scalar_cast_bf16_to_f32(b), 3.140625);
        // Ties to even: 1 + 2^-8 is halfway between 1 and 1 + 2^-7.
        assert_eq!(scalar_cast_f32_to_bf16(1.0 + 1.0 / 256.0).to_bits(), 0x3F80);
        assert_eq!(scalar_cast_f32_to_bf16(1.0 + 3.0 / 256.0).to_bits(), 0x3F82);
        // inf/nan mode (Ascend910B's default): f32::MAX rounds to inf, NaN is the quiet NaN.
        assert_eq!(scalar_cast_f32_to_bf16(f32::MAX).to_bits(), 0x7F80);
        assert_eq!(scalar_cast_f32_to_bf16(-f32::NAN).to_bits(), 0x7FC0);
        set_overflow_mode(OverflowMode::Saturation);
        assert_eq!(scalar_cast_f32_to_bf16(f32::MAX).to_bits(), 0x7F7F);
        assert_eq!(scalar_cast_f32_to_bf16(f32::NEG_INFINITY).to_bits(), 0xFF7F);
        assert_eq!(scalar_cast_f32_to_bf16(f32::NAN).to_bits(), 0);
        // Widening keeps every bit, NaN payloads included.
        assert_eq!(scalar_cast_bf16_to_f32(bf16::from_bits(0xFFC1)).to_bits(), 0xFFC1_0000);
    });
}

#[test]
fn bf16_casts_match_the_vector_cast_bit_for_bit() {
    const N: usize = 4096;
    let xs = floats(&mut Rng(0xBF16), 4 * N);
    for sat in [false, true] {
        on(Soc::Ascend910B, || {
            if sat {
                set_overflow_mode(OverflowMode::Saturation);
            }
            let mut pipe = TPipe::new();
            let src = tensor::<f32>(&mut pipe, N);
            let b = tensor::<bf16>(&mut pipe, N);
            let w = tensor::<f32>(&mut pipe, N);
            for chunk in xs.chunks(N) {
                src.copy_from_slice(chunk);
                cast(&b, &src, RoundMode::CastRint, N);
                cast(&w, &b, RoundMode::CastNone, N);
                for (k, &x) in chunk.iter().enumerate() {
                    let got = scalar_cast_f32_to_bf16(x);
                    assert_eq!(got.to_bits(), b.get_value(k).to_bits(), "sat={sat}: {x:e}");
                    assert_eq!(scalar_cast_bf16_to_f32(got).to_bits(), w.get_value(k).to_bits());
                }
            }
        });
    }
}

#[test]
fn bf16_casts_exist_on_ascend910b_only() {
    for soc in [Soc::Ascend910, Soc::Ascend310P, Soc::Ascend310B] {
        let want = format!(
            "not supported on {soc} ({}); it exists on Ascend910B (and on chips not modelled)",
            soc.product_line()
        );
        let f = fault(soc, || {
            let _ = scalar_cast_f32_to_bf16(1.0);
        });
        assert_eq!((f.api, &f.message), ("Cast(float -> bfloat16_t)", &want));
        let f = fault(soc, || {
            let _ = scalar_cast_bf16_to_f32(bf16::ONE);
        });
        assert_eq!((f.api, &f.message), ("Cast(bfloat16_t -> float)", &want));
    }
}
