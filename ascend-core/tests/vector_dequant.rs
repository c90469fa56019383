//! The dequantisation family (`dequant.rs`): `SetDeqScale` (three forms), `CastDequant`,
//! `AddDeqRelu` and the `int32_t → half` `Cast` through the register, against slow, obviously
//! correct scalar references — every pair on every chip the vendor lists, random continuous
//! and bit masks, repeats, block and repeat strides, normal and counter mode, `IS_SET_MASK`
//! true and false, both overflow modes where the chip can switch, both `isVecDeq` and both
//! `halfBlock`, and the count form over a random prefix, compared bit for bit; then the
//! vendor's worked examples and boundary-value table, the register's semantics, and every error.
//!
//! The references: `int32_t → half` rounds `x` to `f32`, multiplies exactly in `f64` and rounds
//! once to `f32`, then to `half` (clamped to ±65504 first in saturation mode, NaN to 0);
//! `int16_t → b8` works in exact integers: the scale (13 low mantissa bits dropped) as
//! `m · 2^e`, `x · m + offset · 2^-e` divided by `2^-e` with ties to even, then the clamp.

use ascend_core::prelude::*;

use crate::common::util;
use util::{case_lanes, enter_mask_mode, expect_panic, lane_offset, on, Rng};

use crate::common::prop as strat;

// ---- the references --------------------------------------------------------------------------

/// `half(float(x) × scale)`, saturated when `sat`, then `max(·, +0)` when `relu`.
fn r_half(x: i32, scale: f16, sat: bool, relu: bool) -> f16 {
    let p = ((x as f32) as f64 * scale.to_f64()) as f32;
    let p = if sat {
        if p.is_nan() {
            0.0
        } else {
            p.clamp(-65504.0, 65504.0)
        }
    } else {
        p
    };
    let p = if relu && !(p > 0.0 || p.is_nan()) { 0.0 } else { p };
    f16::from_f32(p)
}

/// One `int16_t → b8` configuration word applied to `x`, as a byte.
fn r_b8(x: i16, cfg: u64) -> u8 {
    let bits = cfg as u32 & !0x1FFF;
    let offset = (((cfg >> 37) & 0x1FF) as i32) << 23 >> 23;
    let signed = cfg >> 46 & 1 == 1;
    let (lo, hi): (i128, i128) = if signed { (-128, 127) } else { (0, 255) };
    let out = |v: i128| v.clamp(lo, hi) as i32 as u8;
    let exp = (bits >> 23 & 0xFF) as i32;
    let neg = bits >> 31 == 1;
    let man = (bits & 0x7F_FFFF) as i128;
    if exp == 0xFF {
        // inf or NaN (a NaN with its payload in the dropped bits reads as inf).
        if man != 0 || x == 0 {
            return 0;
        }
        return out(if (x < 0) != neg { lo } else { hi });
    }
    // scale = ±m · 2^e exactly.
    let (m, e) = if exp == 0 { (man, -149) } else { (man | 1 << 23, exp - 150) };
    let m = if neg { -m } else { m };
    let p = x as i128 * m;
    let v = if e >= 0 {
        // |p| < 2^40: beyond a shift of 80 a non-zero product saturates anyway.
        if p == 0 {
            offset as i128
        } else if e > 80 {
            p.signum() << 100
        } else {
            (p << e) + offset as i128
        }
    } else if -e > 100 {
        // |x · scale| < 2^-40: the offset, whatever the tie rule.
        offset as i128
    } else {
        let d = 1i128 << -e;
        let num = p + ((offset as i128) << -e);
        let q = num.div_euclid(d);
        let r = num.rem_euclid(d);
        if 2 * r > d || (2 * r == d && q % 2 != 0) {
            q + 1
        } else {
            q
        }
    };
    out(v)
}

// ---- random values ---------------------------------------------------------------------------

fn gen_i16(r: &mut Rng) -> i16 {
    match r.below(5) {
        0 => [i16::MIN, i16::MAX, 0, -1, 1][r.index(5)],
        1 | 2 => (r.below(600) as i16) - 300,
        _ => r.next() as i16,
    }
}

fn gen_i32(r: &mut Rng) -> i32 {
    match r.below(6) {
        0 => [i32::MIN, i32::MAX, 0, -1, 65504, -65504, 65520, 1 << 24, (1 << 24) + 1][r.index(9)],
        1 => (r.below(1 << 20) as i32) - (1 << 19),
        2 => ((r.next() as i32) >> r.below(31)) | 1,
        _ => r.next() as i32,
    }
}

/// A `half` scale: ordinary values, fractions like 0.1, large and tiny ones, negative ones, and
/// now and then an infinite or NaN one.
fn gen_half_scale(r: &mut Rng) -> f16 {
    match r.below(10) {
        0 => [f16::INFINITY, f16::NAN, f16::ZERO, f16::from_f32(-0.0), f16::MAX, f16::MIN_POSITIVE_SUBNORMAL]
            [r.index(6)],
        1 => f16::from_f32(0.1),
        2 => f16::from_bits(r.next() as u16 & 0x7BFF),
        _ => f16::from_f32((r.below(4096) as f32 - 1024.0) / 1024.0 * 2f32.powi(r.below(12) as i32 - 8)),
    }
}

/// A configuration word for a `D` destination: a scale with random low mantissa bits, an
/// offset in range, the sign mode of `D`.
fn gen_cfg<D: Element>(r: &mut Rng) -> u64 {
    let scale = match r.below(8) {
        0 => f32::from_bits(r.next() as u32),
        1 => [0.5 + 2f32.powi(-24), 1.0, 0.0, -1.0, f32::INFINITY, 2f32.powi(-140)][r.index(6)],
        _ => f32::from_bits(((r.below(20) as u32 + 117) << 23) | (r.next() as u32 & 0x807F_FFFF)),
    };
    let offset = r.range(0, 511) as i16 - 256;
    make_deq_scale_config(scale, offset, D::DTYPE == DType::I8)
}

fn scale_of(cfg: u64) -> f32 {
    f32::from_bits(cfg as u32)
}

fn offset_of(cfg: u64) -> i16 {
    ((((cfg >> 37) & 0x1FF) as i32) << 23 >> 23) as i16
}

// ---- one random call -------------------------------------------------------------------------

#[track_caller]
fn assert_same<T: Element>(got: &[T], want: &[T], ctx: impl Fn() -> String) {
    for i in 0..got.len() {
        assert!(
            strat::same(got[i], want[i]),
            "element {i}: got {} ({:#x}), want {} ({:#x}); {}",
            got[i],
            got[i].to_bits_u64(),
            want[i],
            want[i].to_bits_u64(),
            ctx()
        );
    }
}

/// Elements of an operand of `T` a case may touch.
fn extent(reps: usize, epb: usize, blk: u8, rep: u8) -> usize {
    ((reps * rep as usize + 8 * blk as usize + 9) * epb).div_ceil(32) * 32
}

/// Cases per supported chip.
const ITERS: u32 = 60;

// ---- int16_t -> b8 ---------------------------------------------------------------------------

/// `cast_dequant_masked` with the flags as values.
fn cd_masked<D: CastDequantFrom<i16>>(
    d: &LocalTensor<D>,
    s: &LocalTensor<i16>,
    m: Mask,
    rep: u8,
    p: &UnaryRepeatParams,
    (set, vec, half): (bool, bool, bool),
) {
    macro_rules! go {
        ($($set:literal $vec:literal $half:literal),*) => {
            match (set, vec, half) {
                $(($set, $vec, $half) => cast_dequant_masked::<D, i16, $set, $vec, $half>(d, s, m, rep, p),)*
            }
        };
    }
    go!(true true true, true true false, true false true, true false false,
        false true true, false true false, false false true, false false false)
}

/// `cast_dequant` with the flags as values.
fn cd_count<D: CastDequantFrom<i16>>(
    d: &LocalTensor<D>,
    s: &LocalTensor<i16>,
    n: usize,
    vec: bool,
    half: bool,
) {
    match (vec, half) {
        (true, true) => cast_dequant::<D, i16, true, true>(d, s, n),
        (true, false) => cast_dequant::<D, i16, true, false>(d, s, n),
        (false, true) => cast_dequant::<D, i16, false, true>(d, s, n),
        (false, false) => cast_dequant::<D, i16, false, false>(d, s, n),
    }
}

/// Loads the register: a vector table of 16 random words, or one word. Returns the word of
/// lane `k` of a block.
fn load_b8<D: Element>(r: &mut Rng, vec: bool, table: &LocalTensor<u64>) -> [u64; 16] {
    if vec {
        let w: [u64; 16] = core::array::from_fn(|_| gen_cfg::<D>(r));
        let info = VdeqInfo::new(w.map(scale_of), w.map(offset_of), [D::DTYPE == DType::I8; 16]);
        set_deq_scale_vdeq(table, &info);
        w
    } else {
        let w = gen_cfg::<D>(r);
        set_deq_scale_quant(scale_of(w), offset_of(w), D::DTYPE == DType::I8);
        [w; 16]
    }
}

fn random_b8<D: CastDequantFrom<i16>>(c: &strat::Case) {
    let mut r = Rng(c.data_seed);
    let (vec, half) = (c.data_seed & 1 == 1, c.data_seed & 2 == 2);
    let lanes = case_lanes(c.mask, c.counter, c.repeat, 128);
    let reps = lanes.len();
    let (dblk, drep) = c.dst;
    let (sblk, srep) = (c.sblk[0], c.srep[0]);
    let n_d = extent(reps, 32, dblk, drep);
    let n_s = extent(reps, 16, sblk, srep);
    let params = UnaryRepeatParams::new(dblk as u16, sblk as u16, drep, srep);
    let ctx = || format!("{} on {}: {c:?}, vec {vec}, half {half}", D::DTYPE, c.soc);
    on(c.soc, || {
        let mut pipe = TPipe::new();
        let d = util::tensor::<u8>(&mut pipe, n_d);
        let dd = d.reinterpret_cast::<D>();
        let s = util::tensor::<i16>(&mut pipe, n_s);
        let table = util::tensor::<u64>(&mut pipe, 16);
        let words = load_b8::<D>(&mut r, vec, &table);
        let fill = |r: &mut Rng| {
            d.copy_from_slice(&r.bytes(n_d));
            s.copy_from_slice(&(0..n_s).map(|_| gen_i16(r)).collect::<Vec<_>>());
        };
        fill(&mut r);
        let (mut want, x) = (d.to_vec(), s.to_vec());
        let h = 16 * half as usize;
        for (rr, js) in lanes.iter().enumerate() {
            for &j in js {
                let v = x[lane_offset::<i16>(rr, j, sblk as usize, srep as usize)];
                let at = (rr * drep as usize + (j / 16) * dblk as usize) * 32 + h + j % 16;
                want[at] = r_b8(v, words[j % 16]);
            }
        }
        let m = enter_mask_mode::<i16>(c.mask, c.counter, c.set);
        cd_masked::<D>(&dd, &s, m, c.repeat, &params, (c.set, vec, half));
        set_mask_norm();
        assert_same(&d.to_vec(), &want, ctx);

        // The count form over a random prefix.
        let n = (c.count_pick % (n_s.min(n_d / 2) as u64 + 1)) as usize;
        fill(&mut r);
        let (mut want, x) = (d.to_vec(), s.to_vec());
        for (i, &v) in x.iter().enumerate().take(n) {
            want[(i / 16) * 32 + h + i % 16] = r_b8(v, words[i % 16]);
        }
        cd_count::<D>(&dd, &s, n, vec, half);
        assert_same(&d.to_vec(), &want, || format!("count form, n = {n}; {}", ctx()));
    });
}

#[test]
fn random_cast_dequant_i16_to_i8() {
    let socs = vec![Soc::Ascend910B, Soc::Ascend310P];
    strat::check_cases(ITERS * 4, 0xDE_01, strat::case(socs, 128, 0..=3, 0..=12), random_b8::<i8>);
}

#[test]
fn random_cast_dequant_i16_to_u8() {
    let socs = vec![Soc::Ascend910B, Soc::Ascend310P];
    strat::check_cases(ITERS * 4, 0xDE_02, strat::case(socs, 128, 0..=3, 0..=12), random_b8::<u8>);
}

// ---- int32_t -> half -------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Half {
    /// `CastDequant<half, int32_t>`.
    CastDequant,
    /// `Cast` with a random round mode.
    Cast,
    /// `AddDeqRelu`.
    AddDeqRelu,
}

fn random_half(which: Half, c: &strat::Case) {
    let mut r = Rng(c.data_seed);
    let lanes = case_lanes(c.mask, c.counter, c.repeat, 64);
    let reps = lanes.len();
    // dst: 4 blocks a repeat, never colliding (blk >= 1, rep >= 4 * blk).
    let dblk = c.dst.0.max(1);
    let drep = 4 * dblk + c.dst.1 % 4;
    let (sblk, srep) = if c.shared { ([c.sblk[0]; 2], [c.srep[0]; 2]) } else { (c.sblk, c.srep) };
    let n_d = extent(reps, 16, dblk, drep);
    let n_s = [extent(reps, 8, sblk[0], srep[0]), extent(reps, 8, sblk[1], srep[1])];
    let sat = c.soc.default_overflow_mode() == OverflowMode::Saturation
        || (c.soc.overflow_mode_settable() && c.sat_pick);
    let mode = RoundMode::ALL[(c.data_seed >> 8) as usize % 7];
    let relu = which == Half::AddDeqRelu;
    on(c.soc, || {
        if sat {
            set_overflow_mode(OverflowMode::Saturation);
        }
        let scale = gen_half_scale(&mut r);
        set_deq_scale(scale);
        let ctx = || format!("{which:?} on {}: scale {scale}, sat {sat}, mode {mode}, {c:?}", c.soc);
        let mut pipe = TPipe::new();
        let d = util::tensor::<f16>(&mut pipe, n_d);
        let a = util::tensor::<i32>(&mut pipe, n_s[0]);
        let b = if c.shared { a.clone() } else { util::tensor::<i32>(&mut pipe, n_s[1]) };
        let fill = |r: &mut Rng| {
            d.copy_from_slice(&(0..n_d).map(|_| f16::from_bits(r.next() as u16)).collect::<Vec<_>>());
            for t in [&a, &b] {
                t.copy_from_slice(&(0..t.get_size()).map(|_| gen_i32(r)).collect::<Vec<_>>());
            }
        };
        let lane = |x: &[i32], y: &[i32], i: usize, k: usize| {
            if relu {
                r_half(x[i].wrapping_add(y[k]), scale, sat, true)
            } else {
                r_half(x[i], scale, sat, false)
            }
        };
        fill(&mut r);
        let (mut want, x, y) = (d.to_vec(), a.to_vec(), b.to_vec());
        for (rr, js) in lanes.iter().enumerate() {
            for &j in js {
                let i = lane_offset::<i32>(rr, j, sblk[0] as usize, srep[0] as usize);
                let k = lane_offset::<i32>(rr, j, sblk[1] as usize, srep[1] as usize);
                want[lane_offset::<f16>(rr, j, dblk as usize, drep as usize)] = lane(&x, &y, i, k);
            }
        }
        let m = enter_mask_mode::<i32>(c.mask, c.counter, c.set);
        let bp = BinaryRepeatParams::new(dblk, sblk[0], sblk[1], drep, srep[0], srep[1]);
        let up = UnaryRepeatParams::new(dblk as u16, sblk[0] as u16, drep, srep[0]);
        match (which, c.set) {
            (Half::CastDequant, true) => {
                cast_dequant_masked::<f16, i32, true, true, true>(&d, &a, m, c.repeat, &up)
            }
            (Half::CastDequant, false) => {
                cast_dequant_masked::<f16, i32, false, false, false>(&d, &a, m, c.repeat, &up)
            }
            (Half::Cast, true) => cast_masked::<f16, i32, true>(&d, &a, mode, m, c.repeat, &up),
            (Half::Cast, false) => cast_masked::<f16, i32, false>(&d, &a, mode, m, c.repeat, &up),
            (Half::AddDeqRelu, true) => add_deq_relu_masked::<true>(&d, &a, &b, m, c.repeat, &bp),
            (Half::AddDeqRelu, false) => add_deq_relu_masked::<false>(&d, &a, &b, m, c.repeat, &bp),
        }
        set_mask_norm();
        assert_same(&d.to_vec(), &want, ctx);

        // The count form over a random prefix.
        let n = (c.count_pick % (n_d.min(n_s[0]).min(n_s[1]) as u64 + 1)) as usize;
        fill(&mut r);
        let (mut want, x, y) = (d.to_vec(), a.to_vec(), b.to_vec());
        for (i, w) in want.iter_mut().enumerate().take(n) {
            *w = lane(&x, &y, i, i);
        }
        match which {
            Half::CastDequant => cast_dequant::<f16, i32, true, false>(&d, &a, n),
            Half::Cast => cast(&d, &a, mode, n),
            Half::AddDeqRelu => add_deq_relu(&d, &a, &b, n),
        }
        assert_same(&d.to_vec(), &want, || format!("count form, n = {n}; {}", ctx()));
    });
}

#[test]
fn random_cast_dequant_i32_to_f16() {
    strat::check_cases(ITERS * 2, 0xDE_03, strat::case(vec![Soc::Ascend910B], 64, 0..=3, 0..=12), |c| {
        random_half(Half::CastDequant, c)
    });
}

#[test]
fn random_cast_i32_to_f16_through_the_scale() {
    let socs = vec![Soc::Ascend910B, Soc::Ascend310P];
    strat::check_cases(ITERS * 2, 0xDE_04, strat::case(socs, 64, 0..=3, 0..=12), |c| {
        random_half(Half::Cast, c)
    });
}

#[test]
fn random_add_deq_relu() {
    let socs = vec![Soc::Ascend910B, Soc::Ascend310P];
    strat::check_cases(ITERS * 2, 0xDE_05, strat::case(socs, 64, 0..=3, 0..=12), |c| {
        random_half(Half::AddDeqRelu, c)
    });
}

// ---- the vendor's examples and tables ----------------------------------------------------------

/// The `CastDequant` page's example: 256 `int16_t` into `uint8_t` with the vector table (scale
/// 1, offset 0, unsigned) and `halfBlock = true`, through the count form and both mask forms
/// (mask 128 or all bits, 2 repeats, `{1, 1, 8, 8}`): every block's results in its upper half.
#[test]
fn vendor_cast_dequant_example() {
    #[rustfmt::skip]
    let input: [i16; 256] = [
        20, 53, 26, 12, 36, 6, 20, 93, 66, 30, 56, 99, 59, 92, 7, 37, 22, 47, 98, 10, 85, 29, 14, 46,
        17, 34, 45, 17, 25, 45, 82, 17, 66, 94, 68, 23, 67, 8, 89, 8, 92, 6, 10, 80, 87, 20, 9, 81,
        70, 62, 11, 58, 38, 83, 32, 14, 38, 47, 41, 63, 94, 26, 96, 89, 88, 35, 86, 55, 60, 82, 15, 65,
        92, 67, 83, 23, 63, 25, 85, 93, 50, 91, 75, 60, 80, 10, 55, 20, 71, 14, 67, 23, 31, 63, 7, 93,
        69, 45, 61, 23, 43, 86, 11, 81, 81, 36, 76, 58, 53, 25, 23, 51, 59, 78, 82, 10, 39, 40, 24, 50,
        68, 49, 79, 40, 4, 53, 22, 38, 45, 17, 29, 54, 9, 66, 98, 47, 12, 47, 47, 20, 98, 0, 59, 77,
        1, 21, 39, 70, 66, 20, 68, 8, 77, 77, 54, 0, 3, 33, 37, 37, 48, 60, 83, 88, 27, 70, 31, 49,
        75, 21, 59, 3, 99, 84, 92, 84, 14, 44, 26, 56, 72, 56, 37, 52, 39, 11, 2, 59, 59, 65, 71, 64,
        10, 65, 62, 48, 42, 79, 69, 69, 27, 99, 8, 38, 36, 77, 34, 34, 60, 50, 52, 50, 41, 31, 95, 68,
        27, 16, 42, 64, 19, 47, 0, 10, 36, 36, 33, 62, 98, 64, 32, 81, 49, 53, 27, 70, 35, 9, 63, 7,
        10, 89, 3, 39, 94, 23, 89, 16, 23, 60, 71, 42, 46, 58, 65, 90,
    ];
    // The page's output: 16 zeros, then the block's 16 values, for every block.
    let want: Vec<u8> =
        input.chunks(16).flat_map(|c| [0u8; 16].into_iter().chain(c.iter().map(|&v| v as u8))).collect();
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        for form in 0..3 {
            on(soc, || {
                let mut pipe = TPipe::new();
                let (s, d, t) = (
                    util::tensor::<i16>(&mut pipe, 256),
                    util::tensor::<u8>(&mut pipe, 512),
                    util::tensor::<u64>(&mut pipe, 16),
                );
                s.copy_from_slice(&input);
                d.copy_from_slice(&[0; 512]);
                set_deq_scale_vdeq(&t, &VdeqInfo::new([1.0; 16], [0; 16], [false; 16]));
                let p = UnaryRepeatParams::new(1, 1, 8, 8);
                match form {
                    0 => cast_dequant::<u8, i16, true, true>(&d, &s, 256),
                    1 => cast_dequant_masked::<u8, i16, true, true, true>(&d, &s, 128u64, 2, &p),
                    _ => cast_dequant_masked::<u8, i16, true, true, true>(&d, &s, [u64::MAX; 2], 2, &p),
                }
                assert_eq!(d.to_vec(), want, "form {form} on {soc}");
            });
        }
    }
}

/// The `AddDeqRelu` page's example (scale 0.1): its printed results, to their one decimal.
#[test]
fn vendor_add_deq_relu_example() {
    let a = [70, 36, 43, 54, 28, 49, 27, 82, 95];
    let b = [19, 33, 34, 50, 42, 2, 97, 93, 99];
    let printed = [8.9f32, 6.9, 7.7, 10.4, 7.0, 5.1, 12.4, 17.5, 19.4];
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        for form in 0..3 {
            on(soc, || {
                let mut pipe = TPipe::new();
                let (x, y, d) = (
                    util::tensor::<i32>(&mut pipe, 512),
                    util::tensor::<i32>(&mut pipe, 512),
                    util::tensor::<f16>(&mut pipe, 512),
                );
                x.view_len(0, 9).copy_from_slice(&a);
                y.view_len(0, 9).copy_from_slice(&b);
                set_deq_scale(f16::from_f32(0.1));
                let p = BinaryRepeatParams::new(1, 1, 1, 4, 8, 8);
                match form {
                    0 => add_deq_relu(&d, &x, &y, 512),
                    1 => add_deq_relu_masked::<true>(&d, &x, &y, 64u64, 8, &p),
                    _ => add_deq_relu_masked::<true>(&d, &x, &y, [u64::MAX, 0], 8, &p),
                }
                for (i, &w) in printed.iter().enumerate() {
                    let g = d.get_value(i).to_f32();
                    assert!(
                        (g - w).abs() <= 0.05,
                        "element {i}: got {g}, the page prints {w} (form {form} on {soc})"
                    );
                    assert_eq!(d.get_value(i), r_half(a[i] + b[i], f16::from_f32(0.1), false, true));
                }
            });
        }
    }
}

/// The boundary-value table of `CastDequant` (scale 1, offset 0), in both overflow modes.
#[test]
fn boundary_values() {
    let xs = [0, 65504, -65504, i32::MAX, i32::MIN];
    let inf_nan = [f16::ZERO, f16::MAX, f16::MIN, f16::INFINITY, f16::NEG_INFINITY];
    let saturated = [f16::ZERO, f16::MAX, f16::MIN, f16::MAX, f16::MIN];
    for (mode, want) in [(OverflowMode::InfNan, inf_nan), (OverflowMode::Saturation, saturated)] {
        on(Soc::Ascend910B, || {
            set_overflow_mode(mode);
            let mut pipe = TPipe::new();
            let (s, d) = (util::tensor::<i32>(&mut pipe, 64), util::tensor::<f16>(&mut pipe, 64));
            s.view_len(0, 5).copy_from_slice(&xs);
            set_deq_scale(f16::ONE);
            cast_dequant::<f16, i32, true, true>(&d, &s, 5);
            assert_eq!(d.to_vec()[..5], want, "{mode:?}");
        });
    }
    on(Soc::Ascend310P, || {
        let mut pipe = TPipe::new();
        let (s, d) = (util::tensor::<i16>(&mut pipe, 16), util::tensor::<i8>(&mut pipe, 32));
        s.view_len(0, 3).copy_from_slice(&[0, i16::MAX, i16::MIN]);
        set_deq_scale_quant(1.0, 0, true);
        cast_dequant::<i8, i16, false, false>(&d, &s, 3);
        assert_eq!(d.to_vec()[..3], [0, 127, -128]);
    });
}

// ---- the register --------------------------------------------------------------------------

/// The scale is read as (1, 8, 10): bits below the 10th of the mantissa are dropped, so
/// `0.5 + 2^-24` scales 1 to the tie 0.5, which rounds to even (0); the offset is 9-bit signed;
/// ties go to even.
#[test]
fn scale_format_offset_and_ties() {
    on(Soc::Ascend910B, || {
        let mut pipe = TPipe::new();
        let (s, d) = (util::tensor::<i16>(&mut pipe, 16), util::tensor::<i8>(&mut pipe, 32));
        s.copy_from_slice(&[1, 3, 5, -1, -3, 0, 100, -100, 255, -255, 2, 4, 6, 7, 9, 11]);
        set_deq_scale_quant(0.5 + 2f32.powi(-24), 0, true);
        cast_dequant::<i8, i16, false, false>(&d, &s, 16);
        assert_eq!(d.to_vec()[..16], [0, 2, 2, 0, -2, 0, 50, -50, 127, -128, 1, 2, 3, 4, 4, 6]);
        set_deq_scale_quant(1.0, -256, true);
        cast_dequant::<i8, i16, false, false>(&d, &s, 16);
        assert_eq!(d.get_value(6), -128, "100 - 256 saturates");
        set_deq_scale_quant(1.0, 255, false);
        let u = d.reinterpret_cast::<u8>();
        cast_dequant::<u8, i16, false, false>(&u, &s, 16);
        assert_eq!((u.get_value(3), u.get_value(9)), (254, 0));
    });
}

/// The register is read when the instruction runs: a later `SetDeqScale` changes the next
/// result, and so does rewriting the vector table in the UB after `SetDeqScale`.
#[test]
fn the_register_is_read_at_each_call() {
    on(Soc::Ascend910B, || {
        let mut pipe = TPipe::new();
        let (x, h) = (util::tensor::<i32>(&mut pipe, 64), util::tensor::<f16>(&mut pipe, 64));
        x.copy_from_slice(&[10; 64]);
        set_deq_scale(f16::from_f32(2.0));
        cast(&h, &x, RoundMode::CastFloor, 64);
        assert_eq!(h.get_value(0), f16::from_f32(20.0));
        set_deq_scale(f16::from_f32(-0.5));
        cast(&h, &x, RoundMode::CastCeil, 64);
        assert_eq!(h.get_value(0), f16::from_f32(-5.0), "the round mode has no effect");

        let (s, d, t) = (
            util::tensor::<i16>(&mut pipe, 16),
            util::tensor::<u8>(&mut pipe, 32),
            util::tensor::<u64>(&mut pipe, 16),
        );
        s.copy_from_slice(&[10; 16]);
        set_deq_scale_vdeq(&t, &VdeqInfo::new([1.0; 16], [0; 16], [false; 16]));
        t.set_value(3, make_deq_scale_config(3.0, 1, false));
        cast_dequant::<u8, i16, true, true>(&d, &s, 16);
        assert_eq!((d.get_value(16), d.get_value(19)), (10, 31));
    });
    // On Ascend310B int32_t -> half is a plain conversion: the register plays no part.
    on(Soc::Ascend310B, || {
        let mut pipe = TPipe::new();
        let (x, h) = (util::tensor::<i32>(&mut pipe, 64), util::tensor::<f16>(&mut pipe, 64));
        x.copy_from_slice(&[2049; 64]);
        cast(&h, &x, RoundMode::CastNone, 64);
        assert_eq!(h.get_value(0), f16::from_f32(2048.0));
    });
}

/// The model's documented rounding of `int32_t → half`: `x` is rounded to `float` first (the
/// vendor's Ascend910B sequence), so `2^24 + 2^13 + 1` becomes `2^24 + 2^13`, which scaled by
/// `2^-14` is the tie 1024.5, rounded to even: 1024 (one exact rounding would give 1025).
#[test]
fn int32_to_half_rounds_through_float() {
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        on(soc, || {
            let mut pipe = TPipe::new();
            let (x, h) = (util::tensor::<i32>(&mut pipe, 64), util::tensor::<f16>(&mut pipe, 64));
            x.copy_from_slice(&[(1 << 24) + (1 << 13) + 1; 64]);
            set_deq_scale(f16::from_f32(2f32.powi(-14)));
            cast(&h, &x, RoundMode::CastNone, 64);
            assert_eq!(h.get_value(0), f16::from_f32(1024.0), "{soc}");
            let zero = util::tensor::<i32>(&mut pipe, 64);
            zero.copy_from_slice(&[0; 64]);
            add_deq_relu(&h, &x, &zero, 64);
            assert_eq!(h.get_value(0), f16::from_f32(1024.0), "{soc}");
        });
    }
}

// ---- errors --------------------------------------------------------------------------------

#[test]
fn chips_without_the_family_fail() {
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        let name = format!("not supported on {soc} ({})", soc.product_line());
        expect_panic(
            || on(soc, || set_deq_scale(f16::ONE)),
            &["SetDeqScale", &name, "Ascend910B and Ascend310P"],
        );
        expect_panic(|| on(soc, || set_deq_scale_quant(1.0, 0, true)), &["SetDeqScale", &name]);
        expect_panic(
            || {
                on(soc, || {
                    let mut pipe = TPipe::new();
                    let t = util::tensor::<u64>(&mut pipe, 16);
                    set_deq_scale_vdeq(&t, &VdeqInfo::new([1.0; 16], [0; 16], [true; 16]));
                })
            },
            &["SetDeqScale", &name],
        );
        expect_panic(
            || {
                on(soc, || {
                    let mut pipe = TPipe::new();
                    let (a, d) = (util::tensor::<i32>(&mut pipe, 64), util::tensor::<f16>(&mut pipe, 64));
                    add_deq_relu(&d, &a, &a, 64);
                })
            },
            &["AddDeqRelu", &name],
        );
        expect_panic(
            || {
                on(soc, || {
                    let mut pipe = TPipe::new();
                    let (s, d) = (util::tensor::<i16>(&mut pipe, 64), util::tensor::<i8>(&mut pipe, 128));
                    cast_dequant::<i8, i16, false, true>(&d, &s, 64);
                })
            },
            &[
                "CastDequant",
                "src = int16_t with dst = int8_t is not supported",
                &format!("on {soc}"),
                "it has: none",
            ],
        );
    }
    expect_panic(
        || {
            on(Soc::Ascend310P, || {
                let mut pipe = TPipe::new();
                let (s, d) = (util::tensor::<i32>(&mut pipe, 64), util::tensor::<f16>(&mut pipe, 64));
                set_deq_scale(f16::ONE);
                cast_dequant::<f16, i32, true, true>(&d, &s, 64);
            })
        },
        &[
            "CastDequant",
            "src = int32_t with dst = half is not supported on Ascend310P",
            "int16_t -> uint8_t",
        ],
    );
    // Cast int32_t -> half: still absent on Ascend910.
    expect_panic(
        || {
            on(Soc::Ascend910, || {
                let mut pipe = TPipe::new();
                let (s, d) = (util::tensor::<i32>(&mut pipe, 64), util::tensor::<f16>(&mut pipe, 64));
                cast(&d, &s, RoundMode::CastNone, 64);
            })
        },
        &[
            "Cast",
            "int32_t -> half with CAST_NONE is not supported on Ascend910",
            "supported modes there: none",
        ],
    );
}

#[test]
fn the_register_must_hold_the_form_the_instruction_reads() {
    let unset = "holds nothing (SetDeqScale was not called on this core)";
    let on_pipe = |f: &dyn Fn(&mut TPipe)| {
        on(Soc::Ascend910B, || {
            let mut pipe = TPipe::new();
            f(&mut pipe)
        })
    };
    expect_panic(
        || {
            on_pipe(&|p| {
                let (s, d) = (util::tensor::<i32>(p, 64), util::tensor::<f16>(p, 64));
                cast(&d, &s, RoundMode::CastRint, 64);
            })
        },
        &["Cast", "int32_t -> half reads the DEQSCALE register as set by SetDeqScale(half scale)", unset],
    );
    expect_panic(
        || {
            on_pipe(&|p| {
                let (s, d) = (util::tensor::<i32>(p, 64), util::tensor::<f16>(p, 64));
                set_deq_scale_quant(1.0, 0, true);
                add_deq_relu(&d, &s, &s, 64);
            })
        },
        &[
            "AddDeqRelu",
            "SetDeqScale(half scale)",
            "but it holds SetDeqScale(float scale, int16_t offset, bool signMode)",
        ],
    );
    expect_panic(
        || {
            on_pipe(&|p| {
                let (s, d) = (util::tensor::<i16>(p, 64), util::tensor::<i8>(p, 128));
                set_deq_scale(f16::ONE);
                cast_dequant::<i8, i16, false, true>(&d, &s, 64);
            })
        },
        &[
            "CastDequant",
            "isVecDeq = false",
            "SetDeqScale(float scale, int16_t offset, bool signMode)",
            "holds SetDeqScale(half scale)",
        ],
    );
    expect_panic(
        || {
            on_pipe(&|p| {
                let (s, d) = (util::tensor::<i16>(p, 64), util::tensor::<i8>(p, 128));
                set_deq_scale_quant(1.0, 0, true);
                cast_dequant::<i8, i16, true, true>(&d, &s, 64);
            })
        },
        &["CastDequant", "isVecDeq = true", "SetDeqScale(vdeq, vdeqInfo)"],
    );
    // The sign mode must match the destination.
    expect_panic(
        || {
            on_pipe(&|p| {
                let (s, d) = (util::tensor::<i16>(p, 64), util::tensor::<u8>(p, 128));
                set_deq_scale_quant(1.0, 0, true);
                cast_dequant::<u8, i16, false, true>(&d, &s, 64);
            })
        },
        &["CastDequant", "signMode = true does not match dst = uint8_t", "must be false for uint8_t"],
    );
    expect_panic(
        || {
            on_pipe(&|p| {
                let (s, d, t) =
                    (util::tensor::<i16>(p, 64), util::tensor::<i8>(p, 128), util::tensor::<u64>(p, 16));
                let mut sign = [true; 16];
                sign[5] = false;
                set_deq_scale_vdeq(&t, &VdeqInfo::new([1.0; 16], [0; 16], sign));
                cast_dequant::<i8, i16, true, true>(&d, &s, 64);
            })
        },
        &["CastDequant", "vdeq entry 5: signMode = false does not match dst = int8_t"],
    );
}

#[test]
fn set_deq_scale_checks_its_arguments() {
    expect_panic(
        || on(Soc::Ascend910B, || set_deq_scale_quant(1.0, 256, true)),
        &["SetDeqScale", "offset = 256 is out of range [-256, 255]", "9 bits"],
    );
    expect_panic(
        || on(Soc::Ascend310P, || set_deq_scale_quant(1.0, -257, true)),
        &["SetDeqScale", "offset = -257 is out of range"],
    );
    let with_table = |len: usize, off: usize, offset: i16| {
        on(Soc::Ascend910B, || {
            let u = util::ub(1024);
            // A view `off` bytes in (TBuf offsets are whole blocks).
            let t = u.t::<u64>(0, 32).view_len(off / 8, len);
            let mut o = [0i16; 16];
            o[9] = offset;
            set_deq_scale_vdeq(&t, &VdeqInfo::new([1.0; 16], o, [true; 16]));
        })
    };
    expect_panic(
        || with_table(15, 0, 0),
        &["SetDeqScale", "vdeq holds 15 elements but the table has 16 (128 bytes)"],
    );
    expect_panic(|| with_table(16, 8, 0), &["SetDeqScale", "vdeq address", "is not 32-byte aligned"]);
    expect_panic(|| with_table(16, 0, 300), &["SetDeqScale", "vdeqOffset[9] = 300 is out of range"]);
}

#[test]
fn cast_dequant_checks_its_operands() {
    let run = |f: &dyn Fn(&util::Ub)| {
        on(Soc::Ascend910B, || {
            let u = util::ub(4096);
            set_deq_scale_quant(1.0, 0, true);
            f(&u)
        })
    };
    // count: 40 sources write 3 blocks, 16 + 8 bytes of the last one's lower half.
    expect_panic(
        || run(&|u| cast_dequant::<i8, i16, false, false>(&u.t::<i8>(1024, 71), &u.t::<i16>(0, 64), 40)),
        &[
            "CastDequant",
            "count = 40 int16_t sources write 72 bytes of dst",
            "the lower half",
            "dst has 71 elements",
        ],
    );
    run(&|u| cast_dequant::<i8, i16, false, false>(&u.t::<i8>(1024, 72), &u.t::<i16>(0, 64), 40));
    expect_panic(
        || run(&|u| cast_dequant::<i8, i16, false, true>(&u.t::<i8>(1024, 87), &u.t::<i16>(0, 64), 40)),
        &["count = 40 int16_t sources write 88 bytes", "the upper half"],
    );
    expect_panic(
        || run(&|u| cast_dequant::<i8, i16, false, true>(&u.t::<i8>(1024, 512), &u.t::<i16>(0, 64), 65)),
        &["CastDequant", "count = 65 exceeds src's 64 elements"],
    );
    // masked: one lane of the second block of repeat 1 at dst strides (2, 20): byte
    // (20 + 2) * 32 + 16 + 0 = 720.
    expect_panic(
        || {
            run(&|u| {
                let p = UnaryRepeatParams::new(2, 1, 20, 8);
                cast_dequant_masked::<i8, i16, true, false, true>(
                    &u.t::<i8>(1024, 720),
                    &u.t::<i16>(0, 256),
                    [1 << 16, 0],
                    2,
                    &p,
                )
            })
        },
        &[
            "CastDequant",
            "dst would touch byte 720 but the tensor has 720 elements",
            "dstBlkStride = 2",
            "halfBlock = true",
        ],
    );
    run(&|u| {
        let p = UnaryRepeatParams::new(2, 1, 20, 8);
        cast_dequant_masked::<i8, i16, true, false, true>(
            &u.t::<i8>(1024, 721),
            &u.t::<i16>(0, 256),
            [1 << 16, 0],
            2,
            &p,
        )
    });
    expect_panic(
        || {
            run(&|u| {
                cast_dequant_masked::<i8, i16, true, false, true>(
                    &u.t::<i8>(1024, 512),
                    &u.t::<i16>(0, 100),
                    128u64,
                    1,
                    &UnaryRepeatParams::default(),
                )
            })
        },
        &["CastDequant", "src would touch element 127 but the tensor has 100 elements"],
    );
    // Overlap: dst's second block is src's first.
    expect_panic(
        || run(&|u| cast_dequant::<i8, i16, false, true>(&u.t::<i8>(0, 512), &u.t::<i16>(32, 64), 64)),
        &["CastDequant", "overlap", "no overlap is allowed"],
    );
    // Disjoint blocks of one buffer interleave: src in blocks 1 and 3, dst blocks 0 and 2.
    run(&|u| {
        let p = UnaryRepeatParams::new(2, 2, 8, 8);
        cast_dequant_masked::<i8, i16, true, false, true>(
            &u.t::<i8>(0, 128),
            &u.t::<i16>(32, 48),
            32u64,
            1,
            &p,
        )
    });
    expect_panic(
        || {
            run(&|u| {
                cast_dequant_masked::<i8, i16, true, false, true>(
                    &u.t::<i8>(1024, 512),
                    &u.t::<i16>(0, 256),
                    129u64,
                    1,
                    &UnaryRepeatParams::default(),
                )
            })
        },
        &["CastDequant", "mask = 129 is out of range [1, 128] for int16_t"],
    );
    // isSetMask = false ignores its mask argument, as the chip does.
    run(&|u| {
        cast_dequant_masked::<i8, i16, false, false, true>(
            &u.t::<i8>(1024, 512),
            &u.t::<i16>(0, 256),
            128u64,
            1,
            &UnaryRepeatParams::default(),
        )
    });
    expect_panic(
        || {
            run(&|u| {
                cast_dequant::<i8, i16, false, true>(&u.t::<i8>(1024, 512), &u.t::<i16>(0, 64).view(1), 16)
            })
        },
        &["CastDequant", "src address = 0x2 is not 32-byte aligned"],
    );
}

#[test]
fn add_deq_relu_checks_its_operands() {
    let run = |f: &dyn Fn(&util::Ub)| {
        on(Soc::Ascend310P, || {
            let u = util::ub(4096);
            set_deq_scale(f16::ONE);
            f(&u)
        })
    };
    expect_panic(
        || run(&|u| add_deq_relu(&u.t::<f16>(2048, 32), &u.t::<i32>(0, 64), &u.t::<i32>(512, 64), 64)),
        &["AddDeqRelu", "count = 64 exceeds dst's 32 elements"],
    );
    expect_panic(
        || run(&|u| add_deq_relu(&u.t::<f16>(0, 64), &u.t::<i32>(0, 64), &u.t::<i32>(512, 64), 64)),
        &["AddDeqRelu", "overlap"],
    );
    expect_panic(
        || {
            run(&|u| {
                add_deq_relu_masked::<true>(
                    &u.t::<f16>(2048, 64),
                    &u.t::<i32>(0, 64),
                    &u.t::<i32>(512, 64),
                    65u64,
                    1,
                    &BinaryRepeatParams::new(1, 1, 1, 4, 8, 8),
                )
            })
        },
        &["AddDeqRelu", "mask = 65 is out of range [1, 64] for int32_t"],
    );
    expect_panic(
        || {
            run(&|u| {
                add_deq_relu_masked::<true>(
                    &u.t::<f16>(2048, 64),
                    &u.t::<i32>(0, 64),
                    &u.t::<i32>(512, 64),
                    64u64,
                    2,
                    &BinaryRepeatParams::new(1, 1, 1, 4, 8, 8),
                )
            })
        },
        &["AddDeqRelu", "would touch element"],
    );
    // count = 0 and repeat 0 write nothing.
    run(&|u| {
        let d = u.t::<f16>(2048, 64);
        d.copy_from_slice(&[f16::from_f32(3.0); 64]);
        add_deq_relu(&d, &u.t::<i32>(0, 64), &u.t::<i32>(512, 64), 0);
        add_deq_relu_masked::<true>(
            &d,
            &u.t::<i32>(0, 64),
            &u.t::<i32>(512, 64),
            64u64,
            0,
            &BinaryRepeatParams::default(),
        );
        assert!(d.to_vec().iter().all(|&v| v == f16::from_f32(3.0)));
    });
}
