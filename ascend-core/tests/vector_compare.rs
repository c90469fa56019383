//! `Compare`: every mode (NaN, ±0, ±inf included) against a scalar reference, the output
//! layout, per-chip mask behaviour, `compare` + `select` = max, and every check's message.

use ascend_core::prelude::*;

use crate::common::util;
use util::{expect_panic, on, ub, Rng};

use crate::common::prop as strat;
use proptest::prelude::*;

/// One random call of `compare`/`compare_scalar` (tensor or masked form): chip, element type
/// (an index mapped per chip to a supported type), mode, form, repeats, strides (dst block,
/// src0 block, src1 block, dst repeat, src0 repeat, src1 repeat; the scalar form uses dst
/// block, src block, dst repeat, src repeat), the raw mask words (cut to the type's lanes), the
/// count of the count form and the seed of the data. Shrinks towards the simplest call.
#[derive(Clone, Debug)]
struct CmpCase {
    soc: Soc,
    ty: u8,
    mode: usize,
    count_form: bool,
    repeats: usize,
    strides: [u8; 6],
    bits: [u64; 2],
    set_mask: bool,
    count: u64,
    data_seed: u64,
}

/// Cases with strides below `max` (exclusive) and at least `min`, types `0..types`.
fn cmp_case(
    socs: Vec<Soc>,
    types: u8,
    min: [u8; 6],
    max: [u8; 6],
    count_one_in: u32,
) -> impl Strategy<Value = CmpCase> {
    let strides: [std::ops::Range<u8>; 6] = std::array::from_fn(|k| min[k]..max[k]);
    (
        (strat::soc_of(socs), 0..types, 0..6usize),
        (prop::bool::weighted(1.0 / count_one_in as f64), 1..=6usize, strides),
        ([strat::mask_word(), strat::mask_word()], any::<bool>(), any::<u64>(), any::<u64>()),
    )
        .prop_map(
            |((soc, ty, mode), (count_form, repeats, strides), (bits, set_mask, count, data_seed))| CmpCase {
                soc,
                ty,
                mode,
                count_form,
                repeats,
                strides,
                bits,
                set_mask,
                count,
                data_seed,
            },
        )
}

/// `bits` cut to `par` lanes, never all zero.
fn lane_bits(bits: [u64; 2], par: usize) -> [u64; 2] {
    let mut b = [bits[0], if par == 128 { bits[1] } else { 0 }];
    if b == [0, 0] {
        b[0] = 1;
    }
    b
}

/// `f` fails with `expected`, naming the API.
#[track_caller]
fn assert_fails(expected: &str, f: impl FnOnce()) {
    expect_panic(f, &[expected, "Compare"]);
}

const MODES: [CMPMODE; 6] = [CMPMODE::LT, CMPMODE::GT, CMPMODE::EQ, CMPMODE::LE, CMPMODE::GE, CMPMODE::NE];
const P: BinaryRepeatParams = BinaryRepeatParams::new(1, 1, 1, 8, 8, 8);

/// The slow reference, in f64 (exact for f16/f32/i32).
fn truth(mode: CMPMODE, a: f64, b: f64) -> bool {
    match mode {
        CMPMODE::LT => a < b,
        CMPMODE::GT => a > b,
        CMPMODE::EQ => a == b,
        CMPMODE::LE => a <= b,
        CMPMODE::GE => a >= b,
        CMPMODE::NE => a != b,
    }
}

fn pack(bits: &[bool]) -> Vec<u8> {
    bits.chunks(8).map(|c| c.iter().enumerate().fold(0u8, |acc, (i, b)| acc | ((*b as u8) << i))).collect()
}

/// Small values (many ties) plus the special ones.
fn value(rng: &mut Rng) -> f64 {
    match rng.below(12) {
        0 => f64::NAN,
        1 => f64::INFINITY,
        2 => f64::NEG_INFINITY,
        3 => -0.0,
        4 => 0.0,
        _ => rng.below(9) as f64 - 4.0,
    }
}

#[test]
fn doc_example_count_form() {
    let u = ub(1024);
    let (x, y, d) = (u.t::<f32>(0, 64), u.t::<f32>(256, 64), u.t::<u8>(512, 32));
    let a = [2.0f32, 3.0, 5.0, 7.0, 11.0, 13.0, 17.0, 19.0];
    let b = [2.0f32, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 16.0];
    x.copy_from_slice(&a.iter().flat_map(|v| [*v; 8]).collect::<Vec<_>>());
    y.copy_from_slice(&b.iter().flat_map(|v| [*v; 8]).collect::<Vec<_>>());
    let want = |m| match m {
        CMPMODE::LT => [0, 255, 255, 255, 0, 0, 0, 0],
        CMPMODE::GT => [0, 0, 0, 0, 255, 255, 255, 255],
        CMPMODE::EQ => [255, 0, 0, 0, 0, 0, 0, 0],
        CMPMODE::LE => [255, 255, 255, 255, 0, 0, 0, 0],
        CMPMODE::GE => [255, 0, 0, 0, 255, 255, 255, 255],
        CMPMODE::NE => [0, 255, 255, 255, 255, 255, 255, 255],
    };
    for m in MODES {
        d.copy_from_slice(&[0xAA; 32]);
        compare(&d, &x, &y, m, 64);
        let got = d.to_vec();
        assert_eq!(got[..8], want(m), "{m}");
        assert!(got[8..].iter().all(|v| *v == 0xAA), "{m}: bytes past the output are untouched");
    }
}

/// The doc's bit-mask example: mask 0x33333333, dstRepStride 1. The mask takes effect only on
/// Ascend310B (disabled lanes give 0); elsewhere it is a reserved parameter.
#[test]
fn mask_takes_effect_only_on_ascend310b() {
    for soc in Soc::ALL {
        run_on_core(CoreConfig::single(soc), || {
            let u = ub(1024);
            let (x, y, d) = (u.t::<f32>(0, 64), u.t::<f32>(256, 64), u.t::<u8>(512, 32));
            x.copy_from_slice(&(0..64).map(|i| if i < 32 { 1.0 } else { 3.0 }).collect::<Vec<_>>());
            y.copy_from_slice(&[2.0; 64]);
            let p = BinaryRepeatParams::new(1, 1, 1, 1, 8, 8);
            compare_masked::<f32, true>(&d, &x, &y, CMPMODE::LE, [0x3333_3333, 0], 1, &p);
            let want = if soc == Soc::Ascend310B {
                [51, 51, 51, 51, 0, 0, 0, 0]
            } else {
                [255, 255, 255, 255, 0, 0, 0, 0]
            };
            assert_eq!(d.to_vec()[..8], want, "{soc}");
            compare_masked::<f32, true>(&d, &x, &y, CMPMODE::LE, 28u64, 1, &p);
            let want = if soc == Soc::Ascend310B {
                [255, 255, 255, 15, 0, 0, 0, 0]
            } else {
                [255, 255, 255, 255, 0, 0, 0, 0]
            };
            assert_eq!(d.to_vec()[..8], want, "{soc}");
        });
    }
}

fn random_case<T: CompareElement>(c: &CmpCase) {
    let (rng, soc) = (&mut Rng(c.data_seed), c.soc);
    let par = T::PAR;
    let epb = T::EPB;
    let u = ub(3 * 4096);
    let n = 4096 / T::SIZE;
    let (x, y, d) = (u.t::<T>(0, n), u.t::<T>(4096, n), u.t::<u8>(8192, 4096));
    let is_int = T::DTYPE == DType::I32;
    let draw = |rng: &mut Rng| {
        let v = value(rng);
        if is_int && !v.is_finite() {
            T::from_f64(1.0)
        } else {
            T::from_f64(v)
        }
    };
    let xs: Vec<T> = (0..n).map(|_| draw(rng)).collect();
    let ys: Vec<T> = (0..n).map(|_| draw(rng)).collect();
    x.copy_from_slice(&xs);
    y.copy_from_slice(&ys);
    d.copy_from_slice(&vec![0x5A; 4096]);
    let mode = if is_int { CMPMODE::EQ } else { MODES[c.mode] };
    let (repeats, p, lanes): (usize, BinaryRepeatParams, [u64; 2]) = if c.count_form {
        let r = c.repeats;
        compare(&d, &x, &y, mode, r * par);
        (r, P, [u64::MAX, if par == 128 { u64::MAX } else { 0 }])
    } else {
        let r = c.repeats;
        let p = BinaryRepeatParams::from(c.strides);
        let bits = lane_bits(c.bits, par);
        if c.set_mask {
            compare_masked::<T, true>(&d, &x, &y, mode, bits, r as u8, &p);
        } else {
            set_vector_mask::<T>(bits);
            compare_masked::<T, false>(&d, &x, &y, mode, MASK_PLACEHOLDER, r as u8, &p);
            reset_mask();
        }
        let eff =
            if soc == Soc::Ascend310B { bits } else { [u64::MAX, if par == 128 { u64::MAX } else { 0 }] };
        (r, p, eff)
    };
    let at =
        |r: usize, j: usize, blk: u8, rep: u8| (r * rep as usize + (j / epb) * blk as usize) * epb + j % epb;
    let mut want_bits = Vec::new();
    for r in 0..repeats {
        for j in 0..par {
            let on = lanes[j / 64] >> (j % 64) & 1 == 1;
            let a = xs[at(r, j, p.src0_blk_stride, p.src0_rep_stride)].to_f64();
            let b = ys[at(r, j, p.src1_blk_stride, p.src1_rep_stride)].to_f64();
            want_bits.push(on && truth(mode, a, b));
        }
    }
    let mut want = pack(&want_bits);
    want.resize(4096, 0x5A);
    assert_eq!(d.to_vec(), want, "{soc} {} {mode} repeats {repeats} {p:?} lanes {lanes:x?}", T::DTYPE);
}

#[test]
fn random_against_reference() {
    let cases = cmp_case(Soc::ALL.to_vec(), 5, [0, 1, 1, 0, 0, 0], [4, 4, 4, 9, 17, 17], 3);
    strat::check_cases(80 * Soc::ALL.len() as u32, 0xD1B5_4A32_D192_ED03, cases, |c| {
        run_on_core(CoreConfig::single(c.soc), || match c.ty {
            0 | 1 => random_case::<f32>(c),
            2 | 3 => random_case::<f16>(c),
            _ if c.soc == Soc::Ascend910B => random_case::<i32>(c),
            _ => random_case::<f32>(c),
        })
    });
}

#[test]
fn nan_compares_false_except_ne() {
    let u = ub(1024);
    let (x, y, d) = (u.t::<f16>(0, 128), u.t::<f16>(256, 128), u.t::<u8>(512, 32));
    x.copy_from_slice(&[f16::NAN; 128]);
    y.copy_from_slice(&[f16::from_f32(1.0); 128]);
    y.set_value(1, f16::NAN);
    for m in MODES {
        compare(&d, &x, &y, m, 128);
        let want = if m == CMPMODE::NE { 0xFF } else { 0 };
        assert!(d.to_vec()[..16].iter().all(|b| *b == want), "{m}");
    }
    // Signed zeros are equal.
    x.copy_from_slice(&[f16::from_f32(-0.0); 128]);
    y.copy_from_slice(&[f16::from_f32(0.0); 128]);
    compare(&d, &x, &y, CMPMODE::EQ, 128);
    assert!(d.to_vec()[..16].iter().all(|b| *b == 0xFF));
}

fn max_via_select<T: CompareElement + SelectElement>(rng: &mut Rng) {
    let u = ub(4 * 2048);
    let n = 2048 / T::SIZE;
    let (x, y, dst, mask) = (u.t::<T>(0, n), u.t::<T>(2048, n), u.t::<T>(4096, n), u.t::<u8>(6144, 2048));
    let xs: Vec<T> = (0..n).map(|_| T::from_f64(rng.below(2001) as f64 / 10.0 - 100.0)).collect();
    let ys: Vec<T> = (0..n).map(|_| T::from_f64(rng.below(2001) as f64 / 10.0 - 100.0)).collect();
    x.copy_from_slice(&xs);
    y.copy_from_slice(&ys);
    compare(&mask, &x, &y, CMPMODE::GT, n);
    select(&dst, &mask, &x, &y, SelMode::VselTensorTensorMode, n);
    for (i, got) in dst.to_vec().into_iter().enumerate() {
        let want = if xs[i] > ys[i] { xs[i] } else { ys[i] };
        assert_eq!(got.to_bits_u64(), want.to_bits_u64(), "element {i}");
    }
}

#[test]
fn compare_then_select_is_max() {
    let mut rng = Rng(42);
    for soc in [Soc::Ascend910B, Soc::Ascend310P, Soc::Ascend310B] {
        run_on_core(CoreConfig::single(soc), || {
            max_via_select::<f32>(&mut rng);
            max_via_select::<f16>(&mut rng);
        });
    }
}

#[test]
fn int32_only_eq_only_on_ascend910b() {
    let u = ub(1024);
    let (x, y, d) = (u.t::<i32>(0, 64), u.t::<i32>(256, 64), u.t::<u8>(512, 32));
    x.copy_from_slice(&(0..64).collect::<Vec<i32>>());
    y.copy_from_slice(&(0..64).map(|i| if i % 2 == 0 { i } else { -i }).collect::<Vec<i32>>());
    compare(&d, &x, &y, CMPMODE::EQ, 64);
    assert_eq!(d.to_vec()[..8], [0b0101_0101; 8]);
    assert_fails("cmpMode = CMPMODE::GT is not supported for int32_t: only CMPMODE::EQ is", || {
        compare(&d, &x, &y, CMPMODE::GT, 64)
    });
    drop(u);
    for soc in [Soc::Ascend910, Soc::Ascend310P, Soc::Ascend310B] {
        run_on_core(CoreConfig::single(soc), || {
            let u = ub(1024);
            let (x, y, d) = (u.t::<i32>(0, 64), u.t::<i32>(256, 64), u.t::<u8>(512, 32));
            assert_fails(&format!("int32_t is not supported on {soc}"), || {
                compare(&d, &x, &y, CMPMODE::EQ, 64)
            });
        });
    }
}

/// A count that is not whole repeats: the vendor's implementation runs `count / PAR` repeats
/// on Ascend910/910B/310P (the tail is not compared, dst keeps its bytes) and counter mode on
/// Ascend310B (lanes past `count` give 0 bits in the last repeat's bytes).
#[test]
fn count_tail_per_chip() {
    for soc in Soc::ALL {
        on(soc, || {
            let u = ub(4096);
            let (x, y, d) = (u.t::<f32>(0, 192), u.t::<f32>(1024, 192), u.t::<u8>(2048, 64));
            x.copy_from_slice(&(0..192).map(|i| i as f32).collect::<Vec<_>>());
            y.copy_from_slice(&[1000.0; 192]);
            d.copy_from_slice(&[0x5A; 64]);
            compare(&d, &x, &y, CMPMODE::LT, 100);
            let got = d.to_vec();
            assert_eq!(got[..8], [0xFF; 8], "{soc}: the first whole repeat");
            if soc == Soc::Ascend310B {
                // Lanes 64..100 true, 100..128 zero: bytes 8..12 = 0xFF, byte 12 = 0x0F, 13..16 = 0.
                assert_eq!(got[8..16], [0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0, 0, 0], "{soc}");
                assert_eq!(got[16], 0x5A, "{soc}");
            } else {
                assert!(got[8..].iter().all(|b| *b == 0x5A), "{soc}: the tail is not written");
            }
            d.copy_from_slice(&[7; 64]);
            compare(&d, &x, &y, CMPMODE::LT, 0);
            assert!(d.to_vec().iter().all(|b| *b == 7), "count 0 does nothing");
            if soc != Soc::Ascend310B {
                compare(&d, &x, &y, CMPMODE::LT, 63);
                assert!(d.to_vec().iter().all(|b| *b == 7), "{soc}: less than one repeat does nothing");
            }
        });
    }
}

/// `dst` may be `int8_t` as well as `uint8_t`: the same bytes.
#[test]
fn int8_dst() {
    let u = ub(4096);
    let (x, y) = (u.t::<f16>(0, 256), u.t::<f16>(1024, 256));
    let (d8, di) = (u.t::<u8>(2048, 32), u.t::<i8>(3072, 32));
    x.copy_from_slice(&(0..256).map(|i| f16::from_f32((i % 7) as f32)).collect::<Vec<_>>());
    y.copy_from_slice(&[f16::from_f32(3.0); 256]);
    compare(&d8, &x, &y, CMPMODE::GE, 256);
    compare(&di, &x, &y, CMPMODE::GE, 256);
    assert_eq!(di.reinterpret_cast::<u8>().to_vec(), d8.to_vec());
    compare_masked::<f16, true>(&di, &x, &y, CMPMODE::NE, 128u64, 2, &P);
    compare_masked::<f16, true>(&d8, &x, &y, CMPMODE::NE, 128u64, 2, &P);
    assert_eq!(di.reinterpret_cast::<u8>().to_vec(), d8.to_vec());
}

#[test]
fn operand_checks() {
    let u = ub(4096);
    let (x, y) = (u.t::<f32>(0, 256), u.t::<f32>(1024, 256));
    let small = u.t::<u8>(2048, 16);
    assert_fails("dst holds 16 bytes but 4 repeats of float write 32 bytes (8 per repeat)", || {
        compare(&small, &x, &y, CMPMODE::LT, 256)
    });
    let over = u.t::<u8>(1024 + 32, 64);
    assert_fails("overlaps src1", || compare(&over, &x, &y, CMPMODE::LT, 128));
    let d = u.t::<u8>(2048, 64);
    assert_fails("src0 would touch element", || {
        compare_masked::<f32, true>(&d, &x, &y, CMPMODE::LT, 64u64, 5, &P)
    });
    // Sources may overlap each other (both are only read).
    compare_masked::<f32, true>(&d, &x, &x.view(8), CMPMODE::LT, 64u64, 2, &P);
}

#[test]
fn counter_mode_overlap_past_the_count() {
    // In counter mode a repeat's lanes past the count are still compared (their bits mean
    // nothing), so src1 may overlap dst there — the vendor's Digamma reads its scalar tensor in
    // whole repeats into the mask buffer after it — but not in the counted lanes.
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        on(soc, || {
            let u = ub(4096);
            let (x, y) = (u.t::<f32>(0, 256), u.t::<f32>(1024, 64));
            x.copy_from_slice(&[1.0; 256]);
            y.copy_from_slice(&[2.0; 64]);
            let d = u.t::<u8>(1024 + 128, 64); // right after y's 32 floats: lanes 32..63 of src1
            set_mask_count();
            set_vector_mask::<f32>(32u64);
            compare_masked::<f32, false>(&d, &x, &y, CMPMODE::LT, MASK_PLACEHOLDER, 1, &P);
            assert_eq!(d.to_vec()[..4], [0xFF; 4]);
            set_vector_mask::<f32>(33u64);
            assert_fails("overlaps src1", || {
                compare_masked::<f32, false>(&d, &x, &y, CMPMODE::LT, MASK_PLACEHOLDER, 1, &P)
            });
            set_mask_norm();
            reset_mask();
        });
    }
}

#[test]
fn mask_checks() {
    let u = ub(4096);
    let (x, y, d) = (u.t::<f32>(0, 256), u.t::<f32>(1024, 256), u.t::<u8>(2048, 64));
    assert_fails("mask = 65 is out of range [1, 64]", || {
        compare_masked::<f32, true>(&d, &x, &y, CMPMODE::LT, 65u64, 1, &P)
    });
    assert_fails("MASK_PLACEHOLDER", || compare_masked::<f32, true>(&d, &x, &y, CMPMODE::LT, 0u64, 1, &P));
    // isSetMask = false ignores its mask argument, as the chip does.
    reset_mask();
    compare_masked::<f32, false>(&d, &x, &y, CMPMODE::LT, 64u64, 1, &P);
    d.copy_from_slice(&[9; 64]);
    compare_masked::<f32, true>(&d, &x, &y, CMPMODE::LT, 64u64, 0, &P);
    assert!(d.to_vec().iter().all(|b| *b == 9), "repeatTimes 0 does nothing");
}

// ---- CompareScalar ---------------------------------------------------------------------------

/// One random `compare_scalar`/`compare_scalar_masked` call against the reference.
fn random_scalar_case<T: CompareScalarElement>(c: &CmpCase) {
    let (rng, soc) = (&mut Rng(c.data_seed), c.soc);
    let (par, epb) = (T::PAR, T::EPB);
    let u = ub(2 * 4096);
    let n = 4096 / T::SIZE;
    let (x, d) = (u.t::<T>(0, n), u.t::<u8>(4096, 4096));
    let float = T::DTYPE == DType::F16 || T::DTYPE == DType::F32;
    let signed = float || T::DTYPE == DType::I16 || T::DTYPE == DType::I32;
    let draw = |rng: &mut Rng| {
        let v = value(rng);
        if !float && !v.is_finite() {
            T::from_f64(2.0)
        } else if !signed {
            T::from_f64(v.abs())
        } else {
            T::from_f64(v)
        }
    };
    let xs: Vec<T> = (0..n).map(|_| draw(rng)).collect();
    let scalar = draw(rng);
    x.copy_from_slice(&xs);
    d.copy_from_slice(&vec![0x5A; 4096]);
    let modes: Vec<CMPMODE> = MODES.into_iter().filter(|m| T::compare_scalar_supported(soc, *m)).collect();
    let mode = modes[c.mode % modes.len()];
    let (repeats, p, lanes, count) = if c.count_form {
        let c = 1 + (c.count % (6 * par as u64)) as usize;
        compare_scalar(&d, &x, scalar, mode, c);
        let full = [u64::MAX, if par == 128 { u64::MAX } else { 0 }];
        let r = if soc == Soc::Ascend310B { c.div_ceil(par) } else { c / par };
        (r, UnaryRepeatParams::default(), full, Some(c))
    } else {
        let r = c.repeats;
        let p = UnaryRepeatParams::new(c.strides[0].into(), c.strides[1].into(), c.strides[2], c.strides[3]);
        let bits = lane_bits(c.bits, par);
        compare_scalar_masked::<T, true>(&d, &x, scalar, mode, bits, r as u8, &p);
        let eff =
            if soc == Soc::Ascend310B { bits } else { [u64::MAX, if par == 128 { u64::MAX } else { 0 }] };
        (r, p, eff, None)
    };
    let at = |r: usize, j: usize| {
        (r * p.src_rep_stride as usize + (j / epb) * p.src_blk_stride as usize) * epb + j % epb
    };
    let mut want_bits = Vec::new();
    for r in 0..repeats {
        for j in 0..par {
            let on = lanes[j / 64] >> (j % 64) & 1 == 1 && count.is_none_or(|c| r * par + j < c);
            want_bits.push(on && truth(mode, xs[at(r, j)].to_f64(), scalar.to_f64()));
        }
    }
    let mut want = pack(&want_bits);
    want.resize(4096, 0x5A);
    assert_eq!(d.to_vec(), want, "{soc} {} {mode} x{repeats} {p:?} count {count:?}", T::DTYPE);
}

#[test]
fn compare_scalar_random_against_reference() {
    // CompareScalar does not exist on Ascend910.
    let socs = strat::socs_where(|s| s != Soc::Ascend910);
    let n = socs.len() as u32;
    let cases = cmp_case(socs, 6, [0, 1, 0, 0, 0, 0], [3, 4, 9, 17, 1, 1], 3);
    strat::check_cases(60 * n, 0xA076_1D64_78BD_642F, cases, |c| {
        let soc = c.soc;
        on(soc, || match c.ty {
            0 => random_scalar_case::<f16>(c),
            1 => random_scalar_case::<f32>(c),
            2 if soc != Soc::Ascend310P => random_scalar_case::<i32>(c),
            3 if soc == Soc::Ascend310B => random_scalar_case::<i16>(c),
            4 if soc == Soc::Ascend310B => random_scalar_case::<u16>(c),
            5 if soc == Soc::Ascend310B => random_scalar_case::<u32>(c),
            _ => random_scalar_case::<f32>(c),
        })
    });
}

#[test]
fn compare_scalar_support_per_chip() {
    let run = |soc: Soc, f: fn(&Ub)| on(soc, || f(&ub(1024)));
    use util::Ub;
    run(Soc::Ascend910, |u| {
        expect_panic(
            || compare_scalar(&u.t::<u8>(512, 32), &u.t::<f32>(0, 64), 1.0, CMPMODE::LT, 64),
            &["CompareScalar", "float", "Ascend910"],
        );
    });
    run(Soc::Ascend910B, |u| {
        expect_panic(
            || compare_scalar(&u.t::<u8>(512, 32), &u.t::<i32>(0, 64), 1, CMPMODE::LT, 64),
            &["CompareScalar", "int32_t", "CMPMODE::LT", "Ascend910B"],
        );
        expect_panic(
            || compare_scalar(&u.t::<u8>(512, 32), &u.t::<u16>(0, 128), 1, CMPMODE::EQ, 128),
            &["CompareScalar", "uint16_t", "Ascend910B"],
        );
        // Overlap of dst and src0.
        expect_panic(
            || compare_scalar(&u.t::<u8>(0, 32), &u.t::<f32>(0, 64), 1.0, CMPMODE::LT, 64),
            &["CompareScalar", "overlaps src0"],
        );
    });
    run(Soc::Ascend310P, |u| {
        expect_panic(
            || compare_scalar(&u.t::<u8>(512, 32), &u.t::<i32>(0, 64), 1, CMPMODE::EQ, 64),
            &["CompareScalar", "int32_t", "Ascend310P"],
        );
    });
}

/// NaN: every mode but NE is false, also against a NaN scalar.
#[test]
fn compare_scalar_nan() {
    let u = ub(1024);
    let (x, d) = (u.t::<f32>(0, 64), u.t::<u8>(512, 8));
    x.copy_from_slice(&[1.0; 64]);
    x.set_value(0, f32::NAN);
    for m in MODES {
        compare_scalar(&d, &x, f32::NAN, m, 64);
        let want = if m == CMPMODE::NE { 0xFF } else { 0 };
        assert!(d.to_vec().iter().all(|b| *b == want), "{m}");
        compare_scalar(&d, &x, 1.0, m, 64);
        assert_eq!(d.get_value(0) & 1, (m == CMPMODE::NE) as u8, "{m}");
    }
}

// ---------------------------------------------------------------------------------------------
// Compare into the compare-mask register, and GetCmpMask.

/// The register as 16 little-endian bytes (what `GetCmpMask` stores).
fn reg_bytes(r: [u64; 2]) -> Vec<u8> {
    r[0].to_le_bytes().iter().chain(r[1].to_le_bytes().iter()).copied().collect()
}

/// Loads the register with `r` through `SetCmpMask` (a scratch tensor at byte `off` of `u`).
fn load_reg(u: &util::Ub, off: usize, r: [u64; 2]) {
    let t = u.t::<u8>(off, 16);
    t.copy_from_slice(&reg_bytes(r));
    set_cmp_mask(&t);
}

/// The vendor page "Compare（结果存入寄存器）": 64 floats, LT, in both mask forms; the register
/// holds `[122 86 237 94 150 3 226 242]` (its 8 low bytes) and the upper 64 bits are untouched.
#[test]
fn doc_example_register_form() {
    #[rustfmt::skip]
    let src0: [f32; 64] = [
        86.72287, 9.413112, 17.033222, -64.10005, -66.2691, -65.57659, 15.898049, 94.61241, -68.920685, -36.16883,
        15.62852, 68.078514, -59.724575, -9.4302225, -64.770935, 66.55523, -84.60122, 57.331, 60.42026, -86.78856,
        37.25265, 8.356797, -48.544407, 16.73616, 15.28083, -21.889254, -67.93181, -41.01825, -68.79465, 20.169441,
        44.11346, -27.419518, 30.452742, -89.30283, -18.590672, 32.45831, 8.392082, -57.198048, 98.76846, -81.73067,
        -38.274437, -83.84363, 64.30617, 6.028703, -20.77164, 93.71867, 54.190437, 94.98172, -47.447758, -65.77461,
        82.21715, 59.953922, 23.599781, -77.29708, 26.963976, -63.468987, 79.97712, -70.47842, 39.00433, 52.36555,
        -63.94925, -65.77033, 26.17237, -71.904884,
    ];
    #[rustfmt::skip]
    let src1: [f32; 64] = [
        2.2989323, 51.8879, -81.49718, 41.189415, 6.4081917, 92.566666, 53.205498, -94.47063, -75.38387, 36.464787,
        85.60772, -28.70681, 42.58504, -76.15293, 38.723816, 10.006577, 74.53035, -78.38537, 71.945404, -4.060528,
        -14.501523, 28.229202, 96.87876, 41.558033, -92.623215, 43.318684, 35.387154, -16.029816, 61.544827, 3.3527017,
        55.806778, -93.242096, 22.86275, -87.506584, 35.29523, 8.405956, 91.03445, -85.29485, 34.30078, -3.8019252,
        93.40503, 15.459968, -57.99712, -74.39948, -59.900818, -43.132637, -13.123036, 41.246174, -93.01083, 75.476875,
        -45.437893, -99.19293, 13.543604, 76.23386, 46.192528, -39.23934, 75.9787, -38.38979, 9.807722, -60.610104,
        -23.062874, 48.1669, 89.913376, 73.78631,
    ];
    let want = [122u8, 86, 237, 94, 150, 3, 226, 242];
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        on(soc, || {
            let u = ub(1024);
            let (x, y, out) = (u.t::<f32>(0, 64), u.t::<f32>(256, 64), u.t::<u8>(512, 32));
            x.copy_from_slice(&src0);
            y.copy_from_slice(&src1);
            let p = BinaryRepeatParams::new(1, 1, 1, 8, 8, 8);
            for form in 0..2 {
                load_reg(&u, 768, [0, 0xDEAD_BEEF_0123_4567]);
                if form == 0 {
                    compare_reg::<f32, true>(&x, &y, CMPMODE::LT, 256 / 4u64, &p);
                } else {
                    compare_reg::<f32, true>(&x, &y, CMPMODE::LT, [u64::MAX, 0], &p);
                }
                out.copy_from_slice(&[0x11; 32]);
                get_cmp_mask_local(&out);
                let got = out.to_vec();
                assert_eq!(got[..8], want, "{soc} form {form}");
                assert_eq!(got[8..16], 0xDEAD_BEEF_0123_4567u64.to_le_bytes(), "{soc}: upper 64 bits kept");
                assert!(got[16..].iter().all(|b| *b == 0x11), "{soc}: GetCmpMask writes 16 bytes");
                assert_eq!(get_cmp_mask()[0].to_le_bytes(), want);
            }
        });
    }
}

/// One random `compare_reg` call: chip, type, mode, mask (count or bits, set in the call or
/// through the mask register), source block and repeat strides, counter mode, the old
/// register and the data seed.
#[derive(Clone, Debug)]
struct RegCase {
    soc: Soc,
    half: bool,
    mode: usize,
    mask: Result<u64, [u64; 2]>,
    set_mask: bool,
    counter: bool,
    strides: [u8; 4],
    old: [u64; 2],
    seed: u64,
}

fn reg_case() -> impl Strategy<Value = RegCase> {
    (
        (strat::soc_of(vec![Soc::Ascend910B, Soc::Ascend310P]), any::<bool>(), 0..6usize),
        (strat::count_or_bits(), any::<bool>(), prop::bool::weighted(0.2)),
        ([0..4u8, 0..4u8, 0..20u8, 0..20u8], any::<[u64; 2]>(), any::<u64>()),
    )
        .prop_map(|((soc, half, mode), (mask, set_mask, counter), (strides, old, seed))| RegCase {
            soc,
            half,
            mode,
            mask,
            set_mask,
            counter,
            strides,
            old,
            seed,
        })
}

/// The slow reference: lane `j` enabled by the mask sets register bit `j` to the comparison
/// of `src0[j * blk0]`-style addressed lanes; disabled lanes keep the old bit.
fn random_reg_case<T: CompareRegElement>(c: &RegCase) {
    let rng = &mut Rng(c.seed);
    let u = ub(3 * 4096);
    let n = 4096 / T::SIZE;
    let (x, y) = (u.t::<T>(0, n), u.t::<T>(4096, n));
    let xs: Vec<T> = (0..n).map(|_| T::from_f64(value(rng))).collect();
    let ys: Vec<T> = (0..n).map(|_| T::from_f64(value(rng))).collect();
    x.copy_from_slice(&xs);
    y.copy_from_slice(&ys);
    load_reg(&u, 8192, c.old);
    let mode = MODES[c.mode];
    let [b0, b1, r0, r1] = c.strides;
    let p = BinaryRepeatParams::new(7, b0, b1, 3, r0, r1);
    // The lanes the call enables.
    let lanes: [u64; 2] = if c.counter {
        let count = 1 + c.mask.unwrap_or_else(|b| b[0]) % 300;
        set_mask_count();
        if c.set_mask {
            compare_reg::<T, true>(&x, &y, mode, count, &p);
        } else {
            set_vector_mask::<T>(count);
            compare_reg::<T, false>(&x, &y, mode, MASK_PLACEHOLDER, &p);
        }
        set_mask_norm();
        util::prefix_bits((count as usize).min(T::PAR))
    } else {
        let m = util::fit_mask::<T>(c.mask);
        if c.set_mask {
            compare_reg::<T, true>(&x, &y, mode, m, &p);
        } else {
            set_vector_mask::<T>(m);
            compare_reg::<T, false>(&x, &y, mode, MASK_PLACEHOLDER, &p);
        }
        util::mask_bits(m)
    };
    reset_mask();
    let epb = T::EPB;
    let at = |j: usize, blk: u8| (j / epb) * blk as usize * epb + j % epb;
    let mut want = c.old;
    for j in 0..T::PAR {
        if util::on_bit(lanes, j) {
            let t = truth(mode, xs[at(j, b0)].to_f64(), ys[at(j, b1)].to_f64());
            want[j / 64] = want[j / 64] & !(1 << (j % 64)) | (u64::from(t) << (j % 64));
        }
    }
    assert_eq!(get_cmp_mask(), want, "{c:?}");
    let out = u.t::<u8>(8192 + 32, 16);
    get_cmp_mask_local(&out);
    assert_eq!(out.to_vec(), reg_bytes(want));
}

#[test]
fn register_form_random_against_reference() {
    strat::check_cases(300, 0x6C8E_9CF5_7093_2A11, reg_case(), |c| {
        run_on_core(CoreConfig::single(c.soc), || {
            if c.half {
                random_reg_case::<f16>(c)
            } else {
                random_reg_case::<f32>(c)
            }
        })
    });
}

/// The register form feeds `Select` mode 0 (`VSEL_CMPMASK_SPR`): `compare_reg` + `select_reg`
/// picks the smaller of two rows, repeat after repeat with the same 64 bits.
#[test]
fn register_form_then_select_mode0_is_min() {
    on(Soc::Ascend910B, || {
        let u = ub(4096);
        let (x, y, d) = (u.t::<f32>(0, 256), u.t::<f32>(1024, 256), u.t::<f32>(2048, 256));
        let rng = &mut Rng(7);
        let row_x: Vec<f32> = (0..64).map(|_| rng.below(100) as f32).collect();
        let row_y: Vec<f32> = (0..64).map(|_| rng.below(100) as f32).collect();
        x.copy_from_slice(&row_x.repeat(4));
        y.copy_from_slice(&row_y.repeat(4));
        compare_reg::<f32, true>(&x, &y, CMPMODE::LT, 64u64, &P);
        set_vector_mask::<f32>(64u64);
        select_reg::<f32, 0>(&d, &x, &y, 4, &P);
        let want: Vec<f32> = row_x.iter().zip(&row_y).map(|(a, b)| a.min(*b)).collect::<Vec<_>>().repeat(4);
        assert_eq!(d.to_vec(), want);
    });
}

/// NaN in the register form: every mode but NE gives 0.
#[test]
fn register_form_nan() {
    let u = ub(1024);
    let (x, y) = (u.t::<f16>(0, 128), u.t::<f16>(256, 128));
    x.copy_from_slice(&[f16::NAN; 128]);
    y.copy_from_slice(&[f16::from_f32(1.0); 128]);
    for m in MODES {
        compare_reg::<f16, true>(&x, &y, m, 128u64, &P);
        let want = if m == CMPMODE::NE { [u64::MAX; 2] } else { [0; 2] };
        assert_eq!(get_cmp_mask(), want, "{m}");
    }
}

#[test]
fn register_form_checks() {
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        on(soc, || {
            let u = ub(1024);
            let x = u.t::<f32>(0, 64);
            expect_panic(
                || compare_reg::<f32, true>(&x, &x, CMPMODE::LT, 64u64, &P),
                &["Compare", "compare-mask register", &soc.to_string()],
            );
            let d = u.t::<u8>(512, 32);
            expect_panic(|| get_cmp_mask_local(&d), &["GetCmpMask", "not supported", &soc.to_string()]);
        });
    }
    on(Soc::Ascend910B, || {
        let u = ub(2048);
        let (x, y) = (u.t::<f32>(0, 64), u.t::<f32>(256, 64));
        // A lane outside src1: block stride 2 reaches element 127 of a 64-element tensor.
        expect_panic(
            || {
                compare_reg::<f32, true>(
                    &x,
                    &y,
                    CMPMODE::LT,
                    64u64,
                    &BinaryRepeatParams::new(1, 1, 2, 8, 8, 8),
                )
            },
            &["Compare", "src1 would touch element 119 but the tensor has 64 elements"],
        );
        expect_panic(
            || compare_reg::<f32, true>(&u.t::<f32>(512, 128).view(4), &y, CMPMODE::LT, 64u64, &P),
            &["Compare", "src0 address = 0x210 is not 32-byte aligned"],
        );
        expect_panic(
            || compare_reg::<f32, true>(&x, &y, CMPMODE::LT, 65u64, &P),
            &["Compare", "mask = 65 is out of range [1, 64]"],
        );
        expect_panic(
            || compare_reg::<f32, true>(&x, &y, CMPMODE::LT, [1, 1], &P),
            &["Compare", "mask[1] = 0x1 must be 0"],
        );
        // isSetMask = false ignores its mask argument, as the chip does.
        compare_reg::<f32, false>(&x, &y, CMPMODE::LT, 64u64, &P);
        expect_panic(
            || compare_reg::<f32, true>(&x, &y, CMPMODE::LT, MASK_PLACEHOLDER, &P),
            &["Compare", "MASK_PLACEHOLDER, valid only with isSetMask = false"],
        );
    });
}

#[test]
fn get_cmp_mask_checks() {
    on(Soc::Ascend310P, || {
        let u = ub(1024);
        load_reg(&u, 0, [0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210]);
        // A 16-byte aligned view is fine; 8 is not.
        let t = u.t::<u8>(64, 64);
        get_cmp_mask_local(&t.view(16));
        assert_eq!(t.to_vec()[16..32], reg_bytes(get_cmp_mask())[..]);
        expect_panic(
            || get_cmp_mask_local(&t.view(8)),
            &["GetCmpMask", "dst address = 0x48 is not 16-byte aligned"],
        );
        expect_panic(
            || get_cmp_mask_local(&u.t::<u32>(128, 3)),
            &["GetCmpMask", "dst holds 12 bytes but the 128-bit compare-mask register needs 16"],
        );
    });
    let l1 = LocalTensor::<u8>::new(TPosition::A1, 0, 64);
    expect_panic(|| get_cmp_mask_local(&l1), &["GetCmpMask", "dst is at position A1"]);
}

macro_rules! get_cmp_mask_per_type {
    ($($t:ident),*) => {$(
        paste::paste! {
            /// `GetCmpMask` into a tensor of this type stores the same 16 bytes.
            #[test]
            fn [<get_cmp_mask_into_ $t>]() {
                on(Soc::Ascend910B, || {
                    let u = ub(256);
                    let r = [0x8877_6655_4433_2211, 0x00FF_EEDD_CCBB_AA99];
                    load_reg(&u, 0, r);
                    let t = u.t::<$t>(32, 64 / std::mem::size_of::<$t>());
                    u.t::<u8>(32, 64).copy_from_slice(&[0xC3; 64]);
                    get_cmp_mask_local(&t);
                    let bytes = u.t::<u8>(32, 64).to_vec();
                    assert_eq!(bytes[..16], reg_bytes(r)[..]);
                    assert!(bytes[16..].iter().all(|b| *b == 0xC3));
                });
            }
        }
    )*};
}
get_cmp_mask_per_type!(u8, i8, u16, i16, f16, bf16, u32, i32, f32);
