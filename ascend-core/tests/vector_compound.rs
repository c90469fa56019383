//! `AddReluCast`, `SubReluCast` and `MulCast` (`compound.rs`) against a slow, obviously correct
//! scalar reference: every type pair on every chip the vendor lists, random continuous and bit
//! masks, repeats, block and repeat strides, normal and counter mode, `IS_SET_MASK` true and
//! false, both overflow modes, and the count form over a random prefix, compared bit for bit
//! (any NaN equals any NaN); then the vendor's worked examples and boundary-value tables, the
//! double rounding through `half`, and the errors (chip, overlap, mask range, extent).
//!
//! The reference computes exactly in `f64`/`i128`: `float` sources are rounded once to `f32`
//! (`f64` has more than `2 * 24 + 2` bits, so rounding through it is innocuous), `half` sums,
//! differences and products are exact in `f64` and rounded once to `half`; `Relu`; then the
//! conversion: into an integer ties-to-even and a clamp (±inf to MAX/MIN, NaN to 0), into
//! `half` one rounding of the `f32` value with the saturation of the overflow mode.

use ascend_core::prelude::*;

use crate::common::util;
use util::{case_lanes, enter_mask_mode, lane_offset, panic_message, Rng};

use crate::common::prop as strat;

// ---- the reference ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    AddRelu,
    SubRelu,
    Mul,
}

impl Op {
    /// `op` on exact values (`Relu` included).
    fn exact(self, a: f64, b: f64) -> f64 {
        let relu = |x: f64| if x.is_nan() || x > 0.0 { x } else { 0.0 };
        match self {
            Op::AddRelu => relu(a + b),
            Op::SubRelu => relu(a - b),
            Op::Mul => a * b,
        }
    }
}

/// Rounds a finite value to an integer, ties to even, and clamps it to `lo..=hi`; ±inf gives
/// the bound, NaN gives 0.
fn to_int(v: f64, lo: i128, hi: i128) -> i128 {
    if v.is_nan() {
        0
    } else if v.is_infinite() {
        if v > 0.0 {
            hi
        } else {
            lo
        }
    } else {
        (v.round_ties_even() as i128).clamp(lo, hi)
    }
}

/// `op` on `half` values: exact in `f64`, rounded to `half` (Relu commutes with the rounding).
fn half_step(op: Op, a: f16, b: f16) -> f64 {
    f16::from_f64(op.exact(a.to_f64(), b.to_f64())).to_f64()
}

/// `float → half`: `op` rounded to `f32`, then to `half` by the overflow mode.
fn r_f32_f16(op: Op, a: f32, b: f32, sat: bool) -> f16 {
    let s = op.exact(a as f64, b as f64) as f32 as f64;
    let s = if sat {
        if s.is_nan() {
            0.0
        } else {
            s.clamp(-65504.0, 65504.0)
        }
    } else {
        s
    };
    f16::from_f64(s)
}

fn r_f16_i8(op: Op, a: f16, b: f16, _sat: bool) -> i8 {
    to_int(half_step(op, a, b), -128, 127) as i8
}

fn r_f16_u8(op: Op, a: f16, b: f16, _sat: bool) -> u8 {
    to_int(half_step(op, a, b), 0, 255) as u8
}

fn r_i16_i8(op: Op, a: i16, b: i16, _sat: bool) -> i8 {
    let v = match op {
        Op::AddRelu => i32::from(a) + i32::from(b),
        Op::SubRelu => i32::from(a) - i32::from(b),
        Op::Mul => unreachable!(),
    };
    // Saturate to int16_t, Relu, saturate to int8_t.
    v.clamp(i16::MIN.into(), i16::MAX.into()).clamp(0, 127) as i8
}

// ---- random values ---------------------------------------------------------------------------

fn gen_f16(r: &mut Rng) -> f16 {
    match r.below(8) {
        0 => f16::from_bits(r.next() as u16),
        1 => f16::from_f32(
            [0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 65504.0, -65504.0, 127.5, -128.5, 255.5]
                [r.index(10)],
        ),
        // Quarter steps around the int8/uint8 ranges: ties and double roundings.
        2..=4 => f16::from_f32((r.below(2401) as f32 - 1200.0) / 4.0),
        // Fine fractions below 128.
        5 => f16::from_f32((r.below(1 << 14) as f32 - 8192.0) / 64.0),
        _ => f16::from_f32((r.below(1 << 20) as f32 - 524_288.0) / 1024.0 * 2f32.powi(r.below(9) as i32 - 4)),
    }
}

fn gen_f32(r: &mut Rng) -> f32 {
    match r.below(8) {
        0 => f32::from_bits(r.next() as u32),
        1 => [
            0.0,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::MAX,
            -f32::MAX,
            65504.0,
            65520.0,
            -65520.0,
        ][r.index(10)],
        // Values near half's overflow threshold and below its smallest subnormal.
        2 => 65504.0 + (r.below(64) as f32 - 16.0) * 0.5,
        3 => (r.below(1 << 16) as f32 - 32768.0) * 2f32.powi(-40),
        // Ordinary values with more precision than half.
        _ => (r.below(1 << 24) as f32 - 8_388_608.0) * 2f32.powi(r.below(24) as i32 - 20),
    }
}

fn gen_i16(r: &mut Rng) -> i16 {
    match r.below(6) {
        0 => i16::MIN,
        1 => i16::MAX,
        2 => (r.below(300) as i16) - 150,
        _ => r.next() as i16,
    }
}

// ---- the harness -----------------------------------------------------------------------------

/// `(dst, src0, src1, mask, repeat, params, IS_SET_MASK)`.
type MaskedFn<D, S> =
    fn(&LocalTensor<D>, &LocalTensor<S>, &LocalTensor<S>, Mask, u8, &BinaryRepeatParams, bool);

/// One instruction on one pair: `D` from `S`, the mask counting lanes of `W`.
struct Spec<D: Element, S: Element> {
    name: &'static str,
    op: Op,
    supported: fn(Soc) -> bool,
    reference: fn(Op, S, S, bool) -> D,
    draw: fn(&mut Rng) -> S,
    count: fn(&LocalTensor<D>, &LocalTensor<S>, &LocalTensor<S>, usize),
    masked: MaskedFn<D, S>,
}

fn random_case<D: Element, S: Element, W: Element>(spec: &Spec<D, S>, c: &strat::Case) {
    let mut r = Rng(c.data_seed);
    let (soc, counter, set, mask, repeat, seed) = (c.soc, c.counter, c.set, c.mask, c.repeat, c.data_seed);
    let lanes = case_lanes(mask, counter, repeat, W::PAR);
    // dst: 4 blocks a repeat, never colliding (blk >= 1, rep >= 4 * blk); sources anything.
    let dblk = c.dst.0;
    let drep = 4 * dblk + c.dst.1;
    let (sblk, srep) = if c.shared { ([c.sblk[0]; 2], [c.srep[0]; 2]) } else { (c.sblk, c.srep) };
    let reps = lanes.len();
    let extent =
        |epb: usize, blk: u8, rep: u8| ((reps * rep as usize + 8 * blk as usize + 9) * epb).div_ceil(32) * 32;
    let n_d = extent(D::EPB, dblk, drep);
    let n_s = [extent(S::EPB, sblk[0], srep[0]), extent(S::EPB, sblk[1], srep[1])];
    let sat_mode = soc.default_overflow_mode() == OverflowMode::Saturation
        || (soc.overflow_mode_settable() && c.sat_pick);
    let sat = sat_mode && D::DTYPE == DType::F16;
    let strides = BinaryRepeatParams::new(dblk, sblk[0], sblk[1], drep, srep[0], srep[1]);
    run_on_core(CoreConfig::single(soc), || {
        if sat_mode {
            set_overflow_mode(OverflowMode::Saturation);
        }
        let mut pipe = TPipe::new();
        let d = util::tensor::<D>(&mut pipe, n_d);
        let s0 = util::tensor::<S>(&mut pipe, n_s[0]);
        let s1 = if c.shared { s0.clone() } else { util::tensor::<S>(&mut pipe, n_s[1]) };
        let fill = |r: &mut Rng| {
            let dv: Vec<D> = (0..d.get_size()).map(|_| D::from_f64(r.below(200) as f64 - 100.0)).collect();
            d.copy_from_slice(&dv);
            for s in [&s0, &s1] {
                let v: Vec<S> = (0..s.get_size()).map(|_| (spec.draw)(r)).collect();
                s.copy_from_slice(&v);
            }
        };
        fill(&mut r);
        let (before_d, a, b) = (d.to_vec(), s0.to_vec(), s1.to_vec());
        let mut want = before_d.clone();
        for (rr, js) in lanes.iter().enumerate() {
            for &j in js {
                let x = a[lane_offset::<S>(rr, j, sblk[0] as usize, srep[0] as usize)];
                let y = b[lane_offset::<S>(rr, j, sblk[1] as usize, srep[1] as usize)];
                want[lane_offset::<D>(rr, j, dblk as usize, drep as usize)] =
                    (spec.reference)(spec.op, x, y, sat);
            }
        }
        let m = enter_mask_mode::<W>(mask, counter, set);
        (spec.masked)(&d, &s0, &s1, m, repeat, &strides, set);
        set_mask_norm();
        let got = d.to_vec();
        for i in 0..got.len() {
            assert!(
                strat::same(got[i], want[i]),
                "{} {} -> {} on {soc}: element {i}: got {} ({:#x}), want {} ({:#x}); sat {sat}, counter {counter}, set {set}, mask {mask:?}, repeat {repeat}, strides {strides:?}, shared {}, seed {seed}",
                spec.name, S::DTYPE, D::DTYPE, got[i], got[i].to_bits_u64(), want[i], want[i].to_bits_u64(), c.shared
            );
        }
        // The count form over a random prefix.
        let n = (c.count_pick % (n_d.min(n_s[0]).min(n_s[1]) as u64 + 1)) as usize;
        fill(&mut r);
        let (before_d, a, b) = (d.to_vec(), s0.to_vec(), s1.to_vec());
        let mut want = before_d.clone();
        for i in 0..n {
            want[i] = (spec.reference)(spec.op, a[i], b[i], sat);
        }
        (spec.count)(&d, &s0, &s1, n);
        let got = d.to_vec();
        for i in 0..got.len() {
            assert!(
                strat::same(got[i], want[i]),
                "{} {} -> {} count form on {soc}: element {i} of {n}: got {} ({:#x}), want {} ({:#x}); sat {sat}, seed {seed}",
                spec.name, S::DTYPE, D::DTYPE, got[i], got[i].to_bits_u64(), want[i], want[i].to_bits_u64()
            );
        }
    });
}

/// Cases per supported chip.
const ITERS: u32 = 60;

/// Checks that every chip without the pair names itself in the error, then runs random cases
/// on every chip with it.
fn run_spec<D: Element, S: Element, W: Element>(spec: Spec<D, S>, seed: u64) {
    for soc in Soc::ALL {
        if !(spec.supported)(soc) {
            let msg = panic_message(|| {
                run_on_core(CoreConfig::single(soc), || {
                    let mut pipe = TPipe::new();
                    let (d, s) = (util::tensor::<D>(&mut pipe, 256), util::tensor::<S>(&mut pipe, 256));
                    (spec.count)(&d, &s, &s, 32);
                })
            });
            let want = format!(
                "{}: src0/src1 = {} with dst = {} is not supported on {soc} ({})",
                spec.name,
                S::DTYPE,
                D::DTYPE,
                soc.product_line()
            );
            assert!(msg.contains(&want), "{msg:?} lacks {want:?}");
        }
    }
    let socs = strat::socs_where(spec.supported);
    assert!(!socs.is_empty());
    let cases = ITERS * socs.len() as u32;
    strat::check_cases(cases, seed, strat::case(socs, W::PAR, 1..=3, 0..=3), |c| {
        random_case::<D, S, W>(&spec, c)
    });
}

macro_rules! relu_cast_spec {
    ($name:literal, $op:expr, $count:ident, $masked:ident, $d:ty, $s:ty, $reference:expr, $gen:expr) => {
        Spec::<$d, $s> {
            name: $name,
            op: $op,
            supported: <$d as ReluCastFrom<$s>>::relu_cast_supported,
            reference: $reference,
            draw: $gen,
            count: |d, a, b, n| $count(d, a, b, n),
            masked: |d, a, b, m, rep, p, set| {
                if set {
                    $masked::<$d, $s, true>(d, a, b, m, rep, p)
                } else {
                    $masked::<$d, $s, false>(d, a, b, m, rep, p)
                }
            },
        }
    };
}

#[test]
fn random_add_relu_cast_f32_to_f16() {
    run_spec::<f16, f32, f32>(
        relu_cast_spec!(
            "AddReluCast",
            Op::AddRelu,
            add_relu_cast,
            add_relu_cast_masked,
            f16,
            f32,
            r_f32_f16,
            gen_f32
        ),
        0xAC_01,
    );
}

#[test]
fn random_add_relu_cast_f16_to_i8() {
    run_spec::<i8, f16, f16>(
        relu_cast_spec!(
            "AddReluCast",
            Op::AddRelu,
            add_relu_cast,
            add_relu_cast_masked,
            i8,
            f16,
            r_f16_i8,
            gen_f16
        ),
        0xAC_02,
    );
}

#[test]
fn random_add_relu_cast_i16_to_i8() {
    run_spec::<i8, i16, i16>(
        relu_cast_spec!(
            "AddReluCast",
            Op::AddRelu,
            add_relu_cast,
            add_relu_cast_masked,
            i8,
            i16,
            r_i16_i8,
            gen_i16
        ),
        0xAC_03,
    );
}

#[test]
fn random_sub_relu_cast_f32_to_f16() {
    run_spec::<f16, f32, f32>(
        relu_cast_spec!(
            "SubReluCast",
            Op::SubRelu,
            sub_relu_cast,
            sub_relu_cast_masked,
            f16,
            f32,
            r_f32_f16,
            gen_f32
        ),
        0x5C_01,
    );
}

#[test]
fn random_sub_relu_cast_f16_to_i8() {
    run_spec::<i8, f16, f16>(
        relu_cast_spec!(
            "SubReluCast",
            Op::SubRelu,
            sub_relu_cast,
            sub_relu_cast_masked,
            i8,
            f16,
            r_f16_i8,
            gen_f16
        ),
        0x5C_02,
    );
}

#[test]
fn random_sub_relu_cast_i16_to_i8() {
    run_spec::<i8, i16, i16>(
        relu_cast_spec!(
            "SubReluCast",
            Op::SubRelu,
            sub_relu_cast,
            sub_relu_cast_masked,
            i8,
            i16,
            r_i16_i8,
            gen_i16
        ),
        0x5C_03,
    );
}

macro_rules! mul_cast_spec {
    ($d:ty, $reference:expr) => {
        Spec::<$d, f16> {
            name: "MulCast",
            op: Op::Mul,
            supported: <$d as MulCastFrom<f16>>::mul_cast_supported,
            reference: $reference,
            draw: gen_f16,
            count: |d, a, b, n| mul_cast(d, a, b, n),
            masked: |d, a, b, m, rep, p, set| {
                if set {
                    mul_cast_masked::<$d, f16, true>(d, a, b, m, rep, p)
                } else {
                    mul_cast_masked::<$d, f16, false>(d, a, b, m, rep, p)
                }
            },
        }
    };
}

#[test]
fn random_mul_cast_f16_to_i8() {
    run_spec::<i8, f16, f16>(mul_cast_spec!(i8, r_f16_i8), 0x3C_01);
}

#[test]
fn random_mul_cast_f16_to_u8() {
    run_spec::<u8, f16, f16>(mul_cast_spec!(u8, r_f16_u8), 0x3C_02);
}

// ---- the vendor's examples and tables --------------------------------------------------------

fn h(x: f32) -> f16 {
    f16::from_f32(x)
}

/// The vendor's examples: 512 half elements into int8_t, in the count form and both mask
/// forms with the vendor's parameters (mask 128, 4 repeats, `{1, 1, 1, 4, 8, 8}`).
#[test]
fn vendor_examples() {
    type Call = fn(&LocalTensor<i8>, &LocalTensor<f16>, &LocalTensor<f16>, usize, &BinaryRepeatParams);
    let forms: [(&str, Call, Call, Call); 3] = [
        (
            "AddReluCast",
            |d, a, b, n, _| add_relu_cast(d, a, b, n),
            |d, a, b, _, p| add_relu_cast_masked::<i8, f16, true>(d, a, b, 128u64, 4, p),
            |d, a, b, _, p| add_relu_cast_masked::<i8, f16, true>(d, a, b, [u64::MAX; 2], 4, p),
        ),
        (
            "SubReluCast",
            |d, a, b, n, _| sub_relu_cast(d, a, b, n),
            |d, a, b, _, p| sub_relu_cast_masked::<i8, f16, true>(d, a, b, 128u64, 4, p),
            |d, a, b, _, p| sub_relu_cast_masked::<i8, f16, true>(d, a, b, [u64::MAX; 2], 4, p),
        ),
        (
            "MulCast",
            |d, a, b, n, _| mul_cast(d, a, b, n),
            |d, a, b, _, p| mul_cast_masked::<i8, f16, true>(d, a, b, 128u64, 4, p),
            |d, a, b, _, p| mul_cast_masked::<i8, f16, true>(d, a, b, [u64::MAX; 2], 4, p),
        ),
    ];
    for soc in [Soc::Ascend910B, Soc::Ascend310P, Soc::Ascend310B] {
        for (name, count, cont, bits) in forms {
            // AddReluCast: [1 1 3 ... 512] + [0 0.5 -4 ... -513] = [1 2 0 ... 0];
            // SubReluCast: [1 2 3 ... 512] - [0 0.5 4 ... 513] = [1 2 0 ... 0];
            // MulCast: [1 -2 3 ... -6] * [1 3 -4 ... 5] = [1 -6 -12 ... -30].
            let (a, b, want): (Vec<f32>, Vec<f32>, [i8; 4]) = match name {
                "AddReluCast" => (
                    (0..512).map(|i| if i == 1 { 1.0 } else { i as f32 + 1.0 }).collect(),
                    (0..512).map(|i| [0.0, 0.5].get(i).copied().unwrap_or(-(i as f32) - 2.0)).collect(),
                    [1, 2, 0, 0],
                ),
                "SubReluCast" => (
                    (0..512).map(|i| i as f32 + 1.0).collect(),
                    (0..512).map(|i| [0.0, 0.5].get(i).copied().unwrap_or(i as f32 + 2.0)).collect(),
                    [1, 2, 0, 0],
                ),
                _ => (
                    (0..512).map(|i| [1.0, -2.0, 3.0].get(i).copied().unwrap_or(-6.0)).collect(),
                    (0..512).map(|i| [1.0, 3.0, -4.0].get(i).copied().unwrap_or(5.0)).collect(),
                    [1, -6, -12, -30],
                ),
            };
            for (form, call) in [("count", count), ("continuous", cont), ("bits", bits)] {
                run_on_core(CoreConfig::single(soc), || {
                    let mut pipe = TPipe::new();
                    let (s0, s1, d) = (
                        util::tensor::<f16>(&mut pipe, 512),
                        util::tensor::<f16>(&mut pipe, 512),
                        util::tensor::<i8>(&mut pipe, 512),
                    );
                    s0.copy_from_slice(&a.iter().map(|&x| h(x)).collect::<Vec<_>>());
                    s1.copy_from_slice(&b.iter().map(|&x| h(x)).collect::<Vec<_>>());
                    d.copy_from_slice(&[99; 512]);
                    call(&d, &s0, &s1, 512, &BinaryRepeatParams::new(1, 1, 1, 4, 8, 8));
                    let got = d.to_vec();
                    assert_eq!([got[0], got[1], got[2], got[511]], want, "{name} {form} on {soc}");
                    // Every element is written and equals the reference.
                    for i in 0..512 {
                        let op = match name {
                            "AddReluCast" => Op::AddRelu,
                            "SubReluCast" => Op::SubRelu,
                            _ => Op::Mul,
                        };
                        assert_eq!(
                            got[i],
                            r_f16_i8(op, h(a[i]), h(b[i]), false),
                            "{name} {form} on {soc}: {i}"
                        );
                    }
                });
            }
        }
    }
}

/// One lane of `f(dst, a, b)` on `soc` with the overflow mode `sat` (where settable).
fn one<D: Element, S: Element>(
    soc: Soc,
    sat: bool,
    x: S,
    y: S,
    f: impl FnOnce(&LocalTensor<D>, &LocalTensor<S>, &LocalTensor<S>),
) -> D {
    let mut out = D::ZERO;
    run_on_core(CoreConfig::single(soc), || {
        if sat {
            set_overflow_mode(OverflowMode::Saturation);
        }
        let mut pipe = TPipe::new();
        let (d, a, b) = (
            util::tensor::<D>(&mut pipe, 64),
            util::tensor::<S>(&mut pipe, 64),
            util::tensor::<S>(&mut pipe, 64),
        );
        a.copy_from_slice(&[x; 64]);
        b.copy_from_slice(&[y; 64]);
        f(&d, &a, &b);
        out = d.get_value(0);
    });
    out
}

/// The vendor's boundary-value tables 26, 27 and 28 (inf/nan mode on Ascend910B, and the
/// saturation mode), where they agree with `Cast`'s table 32 (see the module docs).
#[test]
fn boundary_values() {
    const HM: f32 = 65504.0;
    const INF: f32 = f32::INFINITY;
    let b = Soc::Ascend910B;
    // half + half → int8_t (the overflow mode cannot change an int8_t result).
    for sat in [false, true] {
        let add = |x: f32, y: f32| one::<i8, f16>(b, sat, h(x), h(y), |d, a, s| add_relu_cast(d, a, s, 1));
        let sub = |x: f32, y: f32| one::<i8, f16>(b, sat, h(x), h(y), |d, a, s| sub_relu_cast(d, a, s, 1));
        let mul = |x: f32, y: f32| one::<i8, f16>(b, sat, h(x), h(y), |d, a, s| mul_cast(d, a, s, 1));
        let mulu = |x: f32, y: f32| one::<u8, f16>(b, sat, h(x), h(y), |d, a, s| mul_cast(d, a, s, 1));
        assert_eq!(
            [add(0.0, -0.0), add(-0.0, -0.0), add(INF, INF), add(INF, -HM), add(HM, HM)],
            [0, 0, 127, 127, 127]
        );
        assert_eq!([add(-INF, HM), add(-HM, -HM), add(f32::NAN, 1.0), add(INF, -INF)], [0, 0, 0, 0]);
        assert_eq!(
            [sub(INF, -INF), sub(HM, -HM), sub(-INF, -INF), sub(f32::NAN, 0.0), sub(-HM, HM)],
            [127, 127, 0, 0, 0]
        );
        assert_eq!(
            [mul(HM, HM), mul(INF, -HM), mul(-HM, HM), mul(f32::NAN, 1.0), mul(0.0, INF)],
            [127, -128, -128, 0, 0]
        );
        assert_eq!([mul(-0.0, 5.0), mul(11.0, 11.0), mul(-11.0, 12.0)], [0, 121, -128]);
        assert_eq!(
            [mulu(HM, HM), mulu(-1.0, 3.0), mulu(-INF, 1.0), mulu(15.0, 17.0), mulu(16.0, 16.0)],
            [255, 0, 0, 255, 255]
        );
    }
    // int16_t → int8_t: the intermediate saturates (MAX + MAX is MAX, MIN + MIN is MIN).
    let i = |x: i16, y: i16, add: bool| {
        one::<i8, i16>(b, false, x, y, |d, a, s| {
            if add {
                add_relu_cast(d, a, s, 1)
            } else {
                sub_relu_cast(d, a, s, 1)
            }
        })
    };
    assert_eq!([i(0, 0, true), i(i16::MAX, i16::MAX, true), i(i16::MIN, i16::MIN, true)], [0, 127, 0]);
    assert_eq!(
        [i(i16::MAX, i16::MIN, false), i(i16::MIN, i16::MAX, false), i(100, 28, true), i(5, 9, false)],
        [127, 0, 127, 0]
    );
    // float + float → half, inf/nan mode then saturation mode.
    let f = |x: f32, y: f32, sat: bool, add: bool| {
        one::<f16, f32>(
            b,
            sat,
            x,
            y,
            |d, a, s| if add { add_relu_cast(d, a, s, 1) } else { sub_relu_cast(d, a, s, 1) },
        )
    };
    assert_eq!(f(0.0, -0.0, false, true).to_bits(), 0);
    assert_eq!(f(-0.0, -0.0, false, true).to_bits(), 0);
    assert_eq!(f(-0.0, 0.0, false, false).to_bits(), 0);
    assert_eq!(f(INF, 1.0, false, true), f16::INFINITY);
    assert_eq!(f(f32::MAX, f32::MAX, false, true), f16::INFINITY);
    assert_eq!(f(70000.0, 0.0, false, true), f16::INFINITY);
    assert_eq!(f(-INF, f32::MAX, false, true).to_bits(), 0);
    assert_eq!(f(0.0, INF, false, false).to_bits(), 0);
    assert!(f(f32::NAN, 1.0, false, true).is_nan(), "Cast's table: nan stays nan");
    assert!(f(INF, INF, false, false).is_nan());
    assert_eq!(f(INF, 1.0, true, true), h(HM));
    assert_eq!(f(70000.0, 0.0, true, true), h(HM));
    assert_eq!(f(65519.0, 0.0, false, true), h(HM), "below the rounding threshold");
    assert_eq!(f(65520.0, 0.0, false, true), f16::INFINITY, "at the rounding threshold");
    assert_eq!(f(f32::NAN, 1.0, true, true).to_bits(), 0);
    assert_eq!(f(-INF, 0.0, true, true).to_bits(), 0);
    // Saturation is the default on the other chips; float sums round to nearest-even twice.
    let p =
        |x: f32, y: f32| one::<f16, f32>(Soc::Ascend310P, false, x, y, |d, a, s| add_relu_cast(d, a, s, 1));
    assert_eq!(p(INF, 0.0), h(HM));
    assert_eq!(p(1.0, 2f32.powi(-11)), h(1.0), "a tie rounds to even");
    assert_eq!(p(1.0, 3.0 * 2f32.powi(-11)), h(1.0 + 2f32.powi(-9)), "a tie rounds to even (up)");
    assert_eq!(p(1.0, 2f32.powi(-11) + 2f32.powi(-20)), h(1.0 + 2f32.powi(-10)));
}

/// The `half` intermediate is rounded before the conversion (the Ascend310B implementation's
/// separate `vadd`/`vmul` and `vcvt`): a second rounding, ties to even.
#[test]
fn half_intermediate_rounds_first() {
    for soc in [Soc::Ascend910B, Soc::Ascend310P, Soc::Ascend310B] {
        let add =
            |x: f32, y: f32| one::<i8, f16>(soc, false, h(x), h(y), |d, a, s| add_relu_cast(d, a, s, 1));
        let mul = |x: f32, y: f32| one::<i8, f16>(soc, false, h(x), h(y), |d, a, s| mul_cast(d, a, s, 1));
        // 64.5 + 2^-7 is 64.5 in half, then 64 (even); one rounding would give 65.
        assert_eq!(add(64.5, 2f32.powi(-7)), 64);
        assert_eq!(add(63.5, 0.0), 64);
        assert_eq!(add(2.5, 0.0), 2);
        // 1.0068359375 * 16.390625 = 16.50267... is 16.5 in half, then 16.
        assert_eq!(mul(1.006_835_9, 16.390_625), 16);
        assert_eq!(mul(1.5, 1.0), 2);
        assert_eq!(mul(-2.5, 1.0), -2);
        assert_eq!(mul(127.5, 1.0), 127);
        assert_eq!(mul(-128.5, 1.0), -128);
    }
}

/// The wider type's lanes: 128 per repeat for half sources, 64 for float; the destination
/// takes 4 blocks a repeat; strides apply per operand.
#[test]
fn masks_and_strides_count_the_wider_type() {
    run_on_core(CoreConfig::single(Soc::Ascend910B), || {
        let mut pipe = TPipe::new();
        let (s0, s1) = (util::tensor::<f32>(&mut pipe, 256), util::tensor::<f32>(&mut pipe, 256));
        let d = util::tensor::<f16>(&mut pipe, 512);
        s0.copy_from_slice(&(0..256).map(|i| i as f32).collect::<Vec<_>>());
        s1.copy_from_slice(&[0.5; 256]);
        d.copy_from_slice(&[h(-1.0); 512]);
        // 2 repeats of lanes 0 and 63, dst repeat stride 8 blocks (a gap of 4 after each).
        sub_relu_cast_masked::<f16, f32, true>(
            &d,
            &s0,
            &s1,
            [1 | 1 << 63, 0],
            2,
            &BinaryRepeatParams::new(1, 1, 1, 8, 8, 8),
        );
        let got = d.to_vec();
        assert_eq!(
            [got[0], got[63], got[64], got[128], got[128 + 63]],
            [h(0.0), h(62.5), h(-1.0), h(63.5), h(126.5)]
        );
        assert_eq!(got.iter().filter(|&&v| v != h(-1.0)).count(), 4);
        // float lanes: a mask of 65 is out of range, and a bit in the high word too.
        let msg = panic_message(|| {
            add_relu_cast_masked::<f16, f32, true>(
                &d,
                &s0,
                &s1,
                65u64,
                1,
                &BinaryRepeatParams::new(1, 1, 1, 4, 8, 8),
            )
        });
        assert!(msg.contains("AddReluCast: mask = 65 is out of range [1, 64] for float"), "{msg}");
    });
    run_on_core(CoreConfig::single(Soc::Ascend310P), || {
        let mut pipe = TPipe::new();
        let (s0, s1) = (util::tensor::<f16>(&mut pipe, 512), util::tensor::<f16>(&mut pipe, 512));
        let d = util::tensor::<u8>(&mut pipe, 1024);
        s0.copy_from_slice(&[h(2.0); 512]);
        s1.copy_from_slice(&[h(3.0); 512]);
        d.copy_from_slice(&[7; 1024]);
        // 128 half lanes a repeat; dst block stride 2: lanes 0..32 in block 0, 32..64 in block 2.
        mul_cast_masked::<u8, f16, true>(&d, &s0, &s1, 128u64, 1, &BinaryRepeatParams::new(2, 1, 1, 8, 8, 8));
        let got = d.to_vec();
        for (blk, want) in [(0, 6), (1, 7), (2, 6), (3, 7), (4, 6), (5, 7), (6, 6), (7, 7), (8, 7)] {
            assert!(
                got[blk * 32..blk * 32 + 32].iter().all(|&v| v == want),
                "block {blk}: {:?}",
                &got[blk * 32..blk * 32 + 32]
            );
        }
        // Counter mode counts half lanes over repeats (repeat_times ignored).
        d.copy_from_slice(&[7; 1024]);
        set_mask_count();
        mul_cast_masked::<u8, f16, true>(&d, &s0, &s1, 200u64, 1, &BinaryRepeatParams::new(1, 1, 1, 4, 8, 8));
        set_mask_norm();
        let got = d.to_vec();
        assert!(got[..200].iter().all(|&v| v == 6) && got[200..].iter().all(|&v| v == 7));
        // The count form leaves normal mode and a full mask register.
        set_vector_mask::<f16>(5u64);
        mul_cast(&d, &s0, &s1, 0);
        assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX]);
        // half lanes: 129 is out of range.
        let msg = panic_message(|| {
            mul_cast_masked::<u8, f16, true>(
                &d,
                &s0,
                &s1,
                129u64,
                1,
                &BinaryRepeatParams::new(1, 1, 1, 4, 8, 8),
            )
        });
        assert!(msg.contains("MulCast: mask = 129 is out of range [1, 128] for half"), "{msg}");
    });
}

#[test]
fn errors_name_the_api_chip_operand_and_limit() {
    // The chip: Ascend910 has none; Ascend310B lacks int16_t → int8_t.
    let msg = panic_message(|| {
        one::<i8, f16>(Soc::Ascend910, false, h(1.0), h(1.0), |d, a, b| mul_cast(d, a, b, 1));
    });
    assert!(
        msg.contains("MulCast: src0/src1 = half with dst = int8_t is not supported on Ascend910 (Atlas training series); it has: none"),
        "{msg}"
    );
    let msg = panic_message(|| {
        one::<i8, i16>(Soc::Ascend310B, false, 1, 1, |d, a, b| {
            sub_relu_cast_masked::<i8, i16, true>(
                d,
                a,
                b,
                128u64,
                1,
                &BinaryRepeatParams::new(1, 1, 1, 4, 8, 8),
            )
        });
    });
    assert!(
        msg.contains("SubReluCast: src0/src1 = int16_t with dst = int8_t is not supported on Ascend310B (Atlas 200/500 A2 inference); it has: half -> int8_t, float -> half"),
        "{msg}"
    );
    // Overlap: dst may not overlap a source at all, in either form.
    run_on_core(CoreConfig::single(Soc::Ascend910B), || {
        let ub = util::ub(4096);
        let (s0, s1, d) = (ub.t::<f16>(0, 128), ub.t::<f16>(256, 128), ub.t::<i8>(256 + 64, 128));
        let msg = panic_message(|| add_relu_cast(&d, &s0, &s1, 128));
        assert!(
            msg.contains("AddReluCast: dst (bytes 0x140..0x1c0) and src1 (bytes 0x100..0x200) overlap"),
            "{msg}"
        );
        let msg = panic_message(|| {
            add_relu_cast_masked::<i8, f16, true>(
                &d,
                &s0,
                &s1,
                128u64,
                1,
                &BinaryRepeatParams::new(1, 1, 1, 4, 8, 8),
            )
        });
        assert!(msg.contains("AddReluCast: dst (address 0x140) and src1 (address 0x100) overlap"), "{msg}");
        // The sources may overlap each other.
        let d = ub.t::<i8>(1024, 128);
        s0.copy_from_slice(&[h(3.0); 128]);
        mul_cast(&d, &s0, &s0, 128);
        assert_eq!(d.get_value(127), 9);
        // Extent: a repeat stride past the end names the operand and the sizes.
        let msg = panic_message(|| {
            mul_cast_masked::<i8, f16, true>(
                &d,
                &s0,
                &s1,
                128u64,
                2,
                &BinaryRepeatParams::new(1, 1, 1, 4, 8, 8),
            )
        });
        assert!(
            msg.contains("MulCast: dst would touch element 255 but the tensor has 128 elements"),
            "{msg}"
        );
        let msg = panic_message(|| mul_cast(&d, &s0, &s1, 129));
        assert!(msg.contains("MulCast: count = 129 exceeds dst's 128 elements"), "{msg}");
        // IS_SET_MASK = false ignores its mask argument (as the chip does): 128 there is
        // accepted, and the register's lanes are used.
        reset_mask();
        mul_cast_masked::<i8, f16, false>(
            &d,
            &s0,
            &s1,
            128u64,
            1,
            &BinaryRepeatParams::new(1, 1, 1, 4, 8, 8),
        );
    });
}

#[test]
fn count_forms_over_many_chunks() {
    // Longer than the kernels' 512-lane chunks, with a ragged tail.
    let n = 3 * 512 + 77;
    run_on_core(CoreConfig::single(Soc::Ascend310B), || {
        let mut r = Rng(0xc0ff);
        let mut pipe = TPipe::new();
        let (a, b) = (util::tensor::<f32>(&mut pipe, n + 8), util::tensor::<f32>(&mut pipe, n + 8));
        let d = util::tensor::<f16>(&mut pipe, n + 16);
        let (av, bv): (Vec<f32>, Vec<f32>) = (0..n + 8).map(|_| (gen_f32(&mut r), gen_f32(&mut r))).unzip();
        a.copy_from_slice(&av);
        b.copy_from_slice(&bv);
        d.copy_from_slice(&vec![h(-7.0); n + 16]);
        add_relu_cast(&d, &a, &b, n);
        let got = d.to_vec();
        for i in 0..n + 16 {
            let want = if i < n { r_f32_f16(Op::AddRelu, av[i], bv[i], true) } else { h(-7.0) };
            assert!(strat::same(got[i], want), "element {i}: got {}, want {want}", got[i]);
        }
        let (x, y) = (util::tensor::<f16>(&mut pipe, n + 19), util::tensor::<f16>(&mut pipe, n + 19));
        let e = util::tensor::<i8>(&mut pipe, n + 19);
        let (xv, yv): (Vec<f16>, Vec<f16>) = (0..n + 19).map(|_| (gen_f16(&mut r), gen_f16(&mut r))).unzip();
        x.copy_from_slice(&xv);
        y.copy_from_slice(&yv);
        mul_cast(&e, &x, &y, n);
        let got = e.to_vec();
        for i in 0..n {
            assert_eq!(got[i], r_f16_i8(Op::Mul, xv[i], yv[i], false), "element {i}");
        }
    });
}
