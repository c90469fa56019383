//! Every elementwise instruction of `binary.rs`, `scalar.rs` and `unary.rs` against a slow,
//! obviously correct scalar reference: random masks (continuous and bits), repeats, block and
//! repeat strides, normal and counter mode, `IS_SET_MASK` true and false, in-place calls,
//! every element type and chip the vendor lists, compared bit for bit (any NaN equals any
//! NaN). The reference computes in `i128` (integers, then wraps) or `f64` (floats, then one
//! rounding to the type, through the `f16` overflow mode) — independent of the emulator's
//! `f32` fast paths.

use ascend_core::prelude::*;

use crate::common::util;
use util::{case_lanes, enter_mask_mode, lane_offset, panic_message, Rng};

use crate::common::prop as strat;
use proptest::prelude::*;

/// An exact value: an integer or a float.
#[derive(Clone, Copy, Debug)]
enum Num {
    I(i128),
    F(f64),
}

impl Num {
    fn i(self) -> i128 {
        match self {
            Num::I(v) => v,
            Num::F(_) => unreachable!("an integer operation on a float"),
        }
    }
    fn f(self) -> f64 {
        match self {
            Num::F(v) => v,
            Num::I(v) => v as f64,
        }
    }
}

/// Test-side knowledge of an element type: random values, exact value, rounding back.
trait T0: Element {
    const BITS: u32;
    const SIGNED: bool;
    fn draw(r: &mut Rng) -> Self;
    fn num(self) -> Num;
    /// Wraps an integer / rounds a float once (with `half` saturation when `sat`).
    fn back(n: Num, sat: bool) -> Self;
    fn same(a: Self, b: Self) -> bool {
        let nan = |x: Self| x.partial_cmp(&x).is_none();
        a.to_bits_u64() == b.to_bits_u64() || (Self::IS_FLOAT && nan(a) && nan(b))
    }
}

fn special_f64(r: &mut Rng, max: f64) -> f64 {
    match r.below(12) {
        0 => 0.0,
        1 => -0.0,
        2 => f64::INFINITY,
        3 => f64::NEG_INFINITY,
        4 => f64::NAN,
        5 => max,
        6 => -max,
        7 => 1.0,
        _ => {
            let m = (r.below(1 << 20) as f64) / (1 << 20) as f64 * 2.0 - 1.0;
            let e = r.below(24) as i32 - 12;
            m * 2f64.powi(e)
        }
    }
}

impl T0 for f16 {
    const BITS: u32 = 16;
    const SIGNED: bool = true;
    fn draw(r: &mut Rng) -> Self {
        if r.chance(3) {
            f16::from_bits(r.next() as u16)
        } else {
            f16::from_f64(special_f64(r, 65504.0))
        }
    }
    fn num(self) -> Num {
        Num::F(self.to_f64())
    }
    fn back(n: Num, sat: bool) -> Self {
        let v = n.f();
        let v = if sat {
            if v.is_nan() {
                0.0
            } else {
                v.clamp(-65504.0, 65504.0)
            }
        } else {
            v
        };
        f16::from_f64(v)
    }
}

impl T0 for f32 {
    const BITS: u32 = 32;
    const SIGNED: bool = true;
    fn draw(r: &mut Rng) -> Self {
        if r.chance(3) {
            f32::from_bits(r.next() as u32)
        } else {
            special_f64(r, f32::MAX as f64) as f32
        }
    }
    fn num(self) -> Num {
        Num::F(self as f64)
    }
    fn back(n: Num, _sat: bool) -> Self {
        n.f() as f32
    }
}

macro_rules! t0_int {
    ($($t:ty => $signed:expr),*) => {$(
        impl T0 for $t {
            const BITS: u32 = <$t>::BITS;
            const SIGNED: bool = $signed;
            fn draw(r: &mut Rng) -> Self {
                match r.below(6) {
                    0 => <$t>::MIN,
                    1 => <$t>::MAX,
                    2 => (r.below(7) as $t).wrapping_sub(3),
                    _ => r.next() as $t,
                }
            }
            fn num(self) -> Num {
                Num::I(self as i128)
            }
            fn back(n: Num, _sat: bool) -> Self {
                n.i() as $t
            }
        }
    )*};
}
t0_int!(i16 => true, u16 => false, i32 => true, u32 => false);

// ---- reference lane operations: (sources, scalar, old dst, sat) -> new dst ----

type RefFn<T> = fn(&[T], T, T, bool) -> T;
/// `(dst, sources, scalar, mask, repeat, strides [dst_blk, s0_blk, s1_blk, dst_rep, s0_rep, s1_rep], IS_SET_MASK)`.
type MaskedFn<T> = fn(&LocalTensor<T>, &[LocalTensor<T>], T, Mask, u8, [u8; 6], bool);

fn fl<T: T0>(f: impl Fn(f64) -> f64, x: T, sat: bool) -> T {
    T::back(Num::F(f(x.num().f())), sat)
}
fn arith<T: T0>(a: T, b: T, sat: bool, fi: fn(i128, i128) -> i128, ff: fn(f64, f64) -> f64) -> T {
    match (a.num(), b.num()) {
        (Num::I(x), Num::I(y)) => T::back(Num::I(fi(x, y)), sat),
        (x, y) => T::back(Num::F(ff(x.f(), y.f())), sat),
    }
}
fn r_add<T: T0>(a: T, b: T, sat: bool) -> T {
    arith(a, b, sat, |x, y| x + y, |x, y| x + y)
}
fn r_sub<T: T0>(a: T, b: T, sat: bool) -> T {
    arith(a, b, sat, |x, y| x - y, |x, y| x - y)
}
fn r_mul<T: T0>(a: T, b: T, sat: bool) -> T {
    arith(a, b, sat, |x, y| x * y, |x, y| x * y)
}
/// IEEE 754-2019 maximum (`big`) / minimum: NaN wins, -0 < +0.
fn r_maxmin<T: T0>(a: T, b: T, big: bool, sat: bool) -> T {
    match (a.num(), b.num()) {
        (Num::I(x), Num::I(y)) => T::back(Num::I(if big { x.max(y) } else { x.min(y) }), sat),
        (x, y) => {
            let (x, y) = (x.f(), y.f());
            let r = if x.is_nan() || y.is_nan() {
                f64::NAN
            } else if x == 0.0 && y == 0.0 {
                let neg = if big {
                    x.is_sign_negative() && y.is_sign_negative()
                } else {
                    x.is_sign_negative() || y.is_sign_negative()
                };
                if neg {
                    -0.0
                } else {
                    0.0
                }
            } else if (x > y) == big {
                x
            } else {
                y
            };
            T::back(Num::F(r), sat)
        }
    }
}
fn r_relu<T: T0>(a: T, sat: bool) -> T {
    match a.num() {
        Num::I(x) => T::back(Num::I(x.max(0)), sat),
        Num::F(x) => T::back(Num::F(if x.is_nan() || x > 0.0 { x } else { 0.0 }), sat),
    }
}
fn r_bits<T: T0>(v: i128) -> T {
    T::back(Num::I(v), false)
}

// ---- the harness ----

/// How one instruction is called and what it computes.
struct Spec<T: T0> {
    name: &'static str,
    /// Sources (1 or 2) besides dst.
    nsrc: usize,
    /// Whether the instruction takes a scalar.
    scalar: bool,
    reference: RefFn<T>,
    count: fn(&LocalTensor<T>, &[LocalTensor<T>], T, usize),
    masked: MaskedFn<T>,
    supported: fn(Soc) -> bool,
    /// A valid random scalar.
    gen_scalar: fn(&mut Rng) -> T,
}

/// One random call: the chip, the mask mode and mask, repeats, strides, in-place, overflow
/// mode, the count form's length and the seed of the scalar and the data. Every field shrinks
/// towards the simplest case.
#[derive(Clone, Debug)]
struct Case {
    soc: Soc,
    counter: bool,
    set: bool,
    in_place: bool,
    mask: Mask,
    repeat: u8,
    /// dst block stride (1..=3) and the extra dst repeat stride over `8 * blk` (0..=3).
    dst: (u8, u8),
    /// Source block strides (0..=3) and repeat strides (0..=20).
    sblk: [u8; 2],
    srep: [u8; 2],
    /// Saturation where the chip can choose (f16 only).
    sat_pick: bool,
    /// The count form's length, modulo its limit.
    count_pick: u64,
    data_seed: u64,
}

fn case<T: T0>(socs: Vec<Soc>) -> impl Strategy<Value = Case> {
    let par = T::PAR as u64;
    // Counter mode: any count up to 5 repeats; normal: a continuous or a bit mask.
    let mask = prop_oneof![
        1 => ((1..=5 * par), 0..=9u8).prop_map(|(n, rep)| (true, Mask::Count(n), rep)),
        2 => ((1..=par), 0..=5u8).prop_map(|(n, rep)| (false, Mask::Count(n), rep)),
        2 => (strat::bits_mask::<T>(), 0..=5u8).prop_map(|(b, rep)| (false, Mask::Bits(b), rep)),
    ];
    (
        (strat::soc_of(socs), mask, prop::bool::weighted(0.75), prop::bool::weighted(1.0 / 3.0)),
        ((1..=3u8, 0..=3u8), [0..=3u8, 0..=3u8], [0..=20u8, 0..=20u8]),
        (any::<bool>(), any::<u64>(), any::<u64>()),
    )
        .prop_map(
            |(
                (soc, (counter, mask, repeat), set, in_place),
                (dst, sblk, srep),
                (sat_pick, count_pick, data_seed),
            )| Case {
                soc,
                counter,
                set,
                in_place,
                mask,
                repeat,
                dst,
                sblk,
                srep,
                sat_pick,
                count_pick,
                data_seed,
            },
        )
}

fn random_case<T: T0>(spec: &Spec<T>, c: &Case) {
    let mut r = Rng(c.data_seed);
    let (soc, counter, set, in_place, mask, repeat) = (c.soc, c.counter, c.set, c.in_place, c.mask, c.repeat);
    let par = T::PAR;
    let lanes = case_lanes(mask, counter, repeat, par);
    // Strides: dst blocks never collide (blk >= 1, rep >= 8 * blk); sources anything.
    let dblk = c.dst.0;
    let drep = 8 * dblk + c.dst.1;
    let (sblk, srep) = if in_place { ([dblk, c.sblk[1]], [drep, c.srep[1]]) } else { (c.sblk, c.srep) };
    let strides = [dblk, sblk[0], sblk[1], drep, srep[0], srep[1]];
    let reps = lanes.len();
    let extent = |blk: u8, rep: u8| reps * rep as usize * T::EPB + 8 * (blk as usize + 1) * T::EPB + par;
    let n_d = extent(dblk, drep);
    let n_s = [extent(sblk[0], srep[0]), extent(sblk[1], srep[1])];
    let scalar = (spec.gen_scalar)(&mut r);
    let sat = T::DTYPE == DType::F16
        && (soc.default_overflow_mode() == OverflowMode::Saturation
            || (soc.overflow_mode_settable() && c.sat_pick));
    let seed = c.data_seed;
    run_on_core(CoreConfig::single(soc), || {
        if sat {
            set_overflow_mode(OverflowMode::Saturation);
        }
        let mut pipe = TPipe::new();
        let mk = |pipe: &mut TPipe, n: usize| {
            let mut b = TBuf::<VecCalc>::new();
            pipe.init_tbuf(&mut b, n.div_ceil(T::EPB) * 32);
            b.get::<T>()
        };
        let d = mk(&mut pipe, n_d);
        let mut srcs = vec![];
        for (k, &len) in n_s.iter().enumerate().take(spec.nsrc) {
            if k == 0 && in_place {
                srcs.push(d.clone());
            } else {
                srcs.push(mk(&mut pipe, len));
            }
        }
        let fill = |t: &LocalTensor<T>, r: &mut Rng| {
            let v: Vec<T> = (0..t.get_size()).map(|_| T::draw(r)).collect();
            t.copy_from_slice(&v);
        };
        fill(&d, &mut r);
        for s in srcs.iter().skip(usize::from(in_place)) {
            fill(s, &mut r);
        }
        // Reference.
        let before_d = d.to_vec();
        let before_s: Vec<Vec<T>> = srcs.iter().map(|s| s.to_vec()).collect();
        let mut want = before_d.clone();
        for (rr, js) in lanes.iter().enumerate() {
            for &j in js {
                let od = lane_offset::<T>(rr, j, dblk as usize, drep as usize);
                let xs: Vec<T> = (0..spec.nsrc)
                    .map(|k| before_s[k][lane_offset::<T>(rr, j, sblk[k] as usize, srep[k] as usize)])
                    .collect();
                want[od] = (spec.reference)(&xs, scalar, before_d[od], sat);
            }
        }
        let m = enter_mask_mode::<T>(mask, counter, set);
        (spec.masked)(&d, &srcs, scalar, m, repeat, strides, set);
        set_mask_norm();
        let got = d.to_vec();
        for i in 0..got.len() {
            assert!(
                T::same(got[i], want[i]),
                "{} {} on {soc}: element {i}: got {} ({:#x}), want {} ({:#x}); sat {sat}, counter {counter}, set {set}, in place {in_place}, mask {mask:?}, repeat {repeat}, strides {strides:?}, scalar {scalar}, seed {seed}",
                spec.name, T::DTYPE, got[i], got[i].to_bits_u64(), want[i], want[i].to_bits_u64()
            );
        }
        // The count form over a random prefix, contiguously, against the same reference.
        let n = (c.count_pick % (n_d.min(n_s[0]).min(n_s[1]) as u64)) as usize;
        fill(&d, &mut r);
        for s in srcs.iter().skip(usize::from(in_place)) {
            fill(s, &mut r);
        }
        let before_d = d.to_vec();
        let before_s: Vec<Vec<T>> = srcs.iter().map(|s| s.to_vec()).collect();
        let mut want = before_d.clone();
        for i in 0..n {
            let xs: Vec<T> = (0..spec.nsrc).map(|k| before_s[k][i]).collect();
            want[i] = (spec.reference)(&xs, scalar, before_d[i], sat);
        }
        (spec.count)(&d, &srcs, scalar, n);
        let got = d.to_vec();
        for i in 0..got.len() {
            assert!(
                T::same(got[i], want[i]),
                "{} {} count form on {soc}: element {i} of {n}: got {} ({:#x}), want {} ({:#x}); sat {sat}, in place {in_place}, scalar {scalar}, seed {seed}",
                spec.name, T::DTYPE, got[i], got[i].to_bits_u64(), want[i], want[i].to_bits_u64()
            );
        }
    });
}

fn run_spec<T: T0>(spec: Spec<T>, iters: u32) {
    for soc in Soc::ALL {
        if !(spec.supported)(soc) {
            let msg = panic_message(|| {
                run_on_core(CoreConfig::single(soc), || {
                    let mut pipe = TPipe::new();
                    let mut b = TBuf::<VecCalc>::new();
                    pipe.init_tbuf(&mut b, 1024);
                    let t = b.get::<T>();
                    let srcs = vec![t.clone(); spec.nsrc];
                    (spec.count)(&t, &srcs, (spec.gen_scalar)(&mut Rng(7)), T::EPB);
                })
            });
            // The message names the AscendC API (`MulAddDst` for `mul_add_dst`), the type and the chip.
            let api = spec.name.replace('_', "");
            let want =
                format!("t = {} is not supported by {api} on {soc} ({})", T::DTYPE, soc.product_line());
            assert!(msg.to_lowercase().contains(&want.to_lowercase()), "{msg:?} lacks {want:?}");
        }
    }
    let socs = strat::socs_where(spec.supported);
    assert!(!socs.is_empty(), "{} {} is supported nowhere", spec.name, T::DTYPE);
    let cases = iters * socs.len() as u32;
    strat::check_cases(cases, 0x9e37_79b9_7f4a_7c15, case::<T>(socs), |c| random_case(&spec, c));
    let _ = spec.scalar;
}

/// Cases per supported chip.
const ITERS: u32 = 40;

macro_rules! bin_tests {
    ($($name:ident, $masked:ident, $trait:ident :: $sup:ident, [$($t:ty),*], $reference:expr;)*) => {$($(
        paste::paste! {
            #[test]
            fn [<random_ $name _ $t>]() {
                run_spec::<$t>(Spec {
                    name: stringify!($name),
                    nsrc: 2,
                    scalar: false,
                    reference: $reference,
                    count: |d, s, _, n| $name(d, &s[0], &s[1], n),
                    masked: |d, s, _, m, rep, p, set| {
                        let p = BinaryRepeatParams::from(p);
                        if set { $masked::<$t, true>(d, &s[0], &s[1], m, rep, &p) } else { $masked::<$t, false>(d, &s[0], &s[1], m, rep, &p) }
                    },
                    supported: <$t as $trait>::$sup,
                    gen_scalar: |_| <$t>::default(),
                }, ITERS);
            }
        }
    )*)*};
}

bin_tests! {
    add, add_masked, AddElement::add_supported, [f16, f32, i16, i32], |x, _, _, sat| r_add(x[0], x[1], sat);
    sub, sub_masked, SubElement::sub_supported, [f16, f32, i16, i32], |x, _, _, sat| r_sub(x[0], x[1], sat);
    mul, mul_masked, MulElement::mul_supported, [f16, f32, i16, i32], |x, _, _, sat| r_mul(x[0], x[1], sat);
    div, div_masked, DivElement::div_supported, [f16, f32], |x, _, _, sat| arith(x[0], x[1], sat, |a, _| a, |a, b| a / b);
    max, max_masked, MaxElement::max_supported, [f16, f32, i16, i32], |x, _, _, sat| r_maxmin(x[0], x[1], true, sat);
    min, min_masked, MinElement::min_supported, [f16, f32, i16, i32], |x, _, _, sat| r_maxmin(x[0], x[1], false, sat);
    and, and_masked, AndElement::and_supported, [i16, u16], |x, _, _, _| r_bits(x[0].num().i() & x[1].num().i());
    or, or_masked, OrElement::or_supported, [i16, u16], |x, _, _, _| r_bits(x[0].num().i() | x[1].num().i());
    add_relu, add_relu_masked, AddReluElement::add_relu_supported, [f16, f32, i16], |x, _, _, sat| r_relu(r_add(x[0], x[1], sat), sat);
    sub_relu, sub_relu_masked, SubReluElement::sub_relu_supported, [f16, f32, i16], |x, _, _, sat| r_relu(r_sub(x[0], x[1], sat), sat);
    mul_add_dst, mul_add_dst_masked, MulAddDstElement::mul_add_dst_supported, [f16, f32, i16, u16, i32, u32],
        |x, _, d, sat| r_add(r_mul(x[0], x[1], sat), d, sat);
    fused_mul_add, fused_mul_add_masked, FusedMulAddElement::fused_mul_add_supported, [f16, f32],
        |x, _, d, sat| r_add(r_mul(x[0], d, sat), x[1], sat);
    mul_add_relu, mul_add_relu_masked, MulAddReluElement::mul_add_relu_supported, [f16, f32],
        |x, _, d, sat| r_relu(r_add(r_mul(x[0], d, sat), x[1], sat), sat);
}

macro_rules! scalar_tests {
    ($($name:ident, $masked:ident, $trait:ident :: $sup:ident, [$($t:ty),*], $gen:expr, $reference:expr;)*) => {$($(
        paste::paste! {
            #[test]
            fn [<random_ $name _ $t>]() {
                run_spec::<$t>(Spec {
                    name: stringify!($name),
                    nsrc: 1,
                    scalar: true,
                    reference: $reference,
                    count: |d, s, c, n| $name(d, &s[0], c, n),
                    masked: |d, s, c, m, rep, p, set| {
                        let p = UnaryRepeatParams::new(p[0].into(), p[1].into(), p[3], p[4]);
                        if set { $masked::<$t, true>(d, &s[0], c, m, rep, &p) } else { $masked::<$t, false>(d, &s[0], c, m, rep, &p) }
                    },
                    supported: <$t as $trait>::$sup,
                    gen_scalar: $gen,
                }, ITERS);
            }
        }
    )*)*};
}

fn gen_any<T: T0>(r: &mut Rng) -> T {
    T::draw(r)
}
fn gen_shift<T: T0>(r: &mut Rng) -> T {
    T::back(Num::I(r.range(0, T::BITS as u64) as i128), false)
}
fn r_shr<T: T0>(x: T, s: T) -> T {
    let (v, s) = (x.num().i(), s.num().i() as u32);
    r_bits(if T::SIGNED {
        v >> s
    } else if s >= T::BITS {
        0
    } else {
        v >> s
    })
}
fn r_leaky<T: T0>(x: T, s: T, sat: bool) -> T {
    let v = x.num().f();
    if v.is_sign_positive() && !v.is_nan() {
        T::back(Num::F(v), sat)
    } else {
        r_mul(x, s, sat)
    }
}

scalar_tests! {
    adds, adds_masked, AddsElement::adds_supported, [f16, f32, i16, i32], gen_any, |x, s, _, sat| r_add(x[0], s, sat);
    muls, muls_masked, MulsElement::muls_supported, [f16, f32, i16, i32], gen_any, |x, s, _, sat| r_mul(x[0], s, sat);
    maxs, maxs_masked, MaxsElement::maxs_supported, [f16, f32, i16, i32], gen_any, |x, s, _, sat| r_maxmin(x[0], s, true, sat);
    mins, mins_masked, MinsElement::mins_supported, [f16, f32, i16, i32], gen_any, |x, s, _, sat| r_maxmin(x[0], s, false, sat);
    shift_left, shift_left_masked, ShiftLeftElement::shift_left_supported, [i16, u16, i32, u32], gen_shift,
        |x, s, _, _| r_bits(x[0].num().i() << s.num().i());
    shift_right, shift_right_masked, ShiftRightElement::shift_right_supported, [i16, u16, i32, u32], gen_shift,
        |x, s, _, _| r_shr(x[0], s);
    leaky_relu, leaky_relu_masked, LeakyReluElement::leaky_relu_supported, [f16, f32], gen_any, |x, s, _, sat| r_leaky(x[0], s, sat);
}

#[test]
fn random_axpy_reads_dst() {
    fn spec<T: T0 + AxpyElement>() -> Spec<T> {
        Spec {
            name: "Axpy",
            nsrc: 1,
            scalar: true,
            reference: |x, s, d, sat| r_add(r_mul(x[0], s, sat), d, sat),
            count: |d, s, c, n| axpy(d, &s[0], c, n),
            masked: |d, s, c, m, rep, p, set| {
                let p = UnaryRepeatParams::new(p[0].into(), p[1].into(), p[3], p[4]);
                if set {
                    axpy_masked::<T, true>(d, &s[0], c, m, rep, &p)
                } else {
                    axpy_masked::<T, false>(d, &s[0], c, m, rep, &p)
                }
            },
            supported: T::axpy_supported,
            gen_scalar: gen_any,
        }
    }
    run_spec(spec::<f16>(), ITERS);
    run_spec(spec::<f32>(), ITERS);
}

macro_rules! unary_tests {
    ($($name:ident, $masked:ident, $trait:ident :: $sup:ident, [$($t:ty),*], $reference:expr;)*) => {$($(
        paste::paste! {
            #[test]
            fn [<random_ $name _ $t>]() {
                run_spec::<$t>(Spec {
                    name: stringify!($name),
                    nsrc: 1,
                    scalar: false,
                    reference: $reference,
                    count: |d, s, _, n| $name(d, &s[0], n),
                    masked: |d, s, _, m, rep, p, set| {
                        let p = UnaryRepeatParams::new(p[0].into(), p[1].into(), p[3], p[4]);
                        if set { $masked::<$t, true>(d, &s[0], m, rep, &p) } else { $masked::<$t, false>(d, &s[0], m, rep, &p) }
                    },
                    supported: <$t as $trait>::$sup,
                    gen_scalar: |_| <$t>::default(),
                }, ITERS);
            }
        }
    )*)*};
}

unary_tests! {
    exp, exp_masked, ExpElement::exp_supported, [f16, f32], |x, _, _, sat| fl(f64::exp, x[0], sat);
    ln, ln_masked, LnElement::ln_supported, [f16, f32], |x, _, _, sat| fl(f64::ln, x[0], sat);
    sqrt, sqrt_masked, SqrtElement::sqrt_supported, [f16, f32], |x, _, _, sat| fl(f64::sqrt, x[0], sat);
    rsqrt, rsqrt_masked, RsqrtElement::rsqrt_supported, [f16, f32], |x, _, _, sat| fl(|v| 1.0 / v.sqrt(), x[0], sat);
    reciprocal, reciprocal_masked, ReciprocalElement::reciprocal_supported, [f16, f32], |x, _, _, sat| fl(|v| 1.0 / v, x[0], sat);
    abs, abs_masked, AbsElement::abs_supported, [f16, f32, i16], |x, _, _, sat| match x[0].num() {
        Num::I(v) => r_bits(v.abs()),
        Num::F(v) => fl(f64::abs, T0::back(Num::F(v), false), sat),
    };
    relu, relu_masked, ReluElement::relu_supported, [f16, f32, i32], |x, _, _, sat| r_relu(x[0], sat);
    not, not_masked, NotElement::not_supported, [i16, u16], |x, _, _, _| r_bits(!x[0].num().i());
}

// ---- hand-made edge cases (values from IEEE 754 and the vendor's boundary-value tables) ----

fn h(x: f32) -> f16 {
    f16::from_f32(x)
}

/// Runs `f(dst, a, b)` on 16-lane f16 tensors filled with `x`, `y`, `d`; returns dst's lane 0.
fn f16_bin(
    x: f32,
    y: f32,
    d: f32,
    f: impl FnOnce(&LocalTensor<f16>, &LocalTensor<f16>, &LocalTensor<f16>),
) -> f16 {
    let mut pipe = TPipe::new();
    let mut b = TBuf::<VecCalc>::new();
    pipe.init_tbuf(&mut b, 96);
    let [t0, t1, t2] = [0, 1, 2].map(|i| b.get_with_offset::<f16>(16, 32 * i));
    t0.copy_from_slice(&[h(d); 16]);
    t1.copy_from_slice(&[h(x); 16]);
    t2.copy_from_slice(&[h(y); 16]);
    f(&t0, &t1, &t2);
    t0.get_value(0)
}

fn f32_bin(
    x: f32,
    y: f32,
    d: f32,
    f: impl FnOnce(&LocalTensor<f32>, &LocalTensor<f32>, &LocalTensor<f32>),
) -> f32 {
    let mut pipe = TPipe::new();
    let mut b = TBuf::<VecCalc>::new();
    pipe.init_tbuf(&mut b, 96);
    let [t0, t1, t2] = [0, 1, 2].map(|i| b.get_with_offset::<f32>(8, 32 * i));
    t0.copy_from_slice(&[d; 8]);
    t1.copy_from_slice(&[x; 8]);
    t2.copy_from_slice(&[y; 8]);
    f(&t0, &t1, &t2);
    t0.get_value(0)
}

#[test]
fn max_min_follow_ieee_maximum_minimum() {
    let mx = |x, y| f32_bin(x, y, 9.0, |d, a, b| max(d, a, b, 8));
    let mn = |x, y| f32_bin(x, y, 9.0, |d, a, b| min(d, a, b, 8));
    assert_eq!(mx(-0.0, 0.0).to_bits(), 0f32.to_bits());
    assert_eq!(mx(0.0, -0.0).to_bits(), 0f32.to_bits());
    assert_eq!(mn(0.0, -0.0).to_bits(), (-0f32).to_bits());
    assert_eq!(mn(-0.0, 0.0).to_bits(), (-0f32).to_bits());
    assert!(mx(f32::NAN, 1.0).is_nan() && mx(1.0, f32::NAN).is_nan());
    assert!(mn(f32::NAN, f32::NEG_INFINITY).is_nan());
    let hx = |x, y| f16_bin(x, y, 9.0, |d, a, b| max(d, a, b, 16));
    assert_eq!(hx(-0.0, 0.0).to_bits(), 0);
    assert!(hx(f32::NAN, 1.0).is_nan());
    // Saturation mode: a NaN result becomes 0.
    on_sat(|| assert_eq!(hx(f32::NAN, 1.0).to_bits(), 0));
}

fn on_sat(f: impl FnOnce()) {
    run_on_core(CoreConfig::single(Soc::Ascend310P), f)
}

#[test]
fn division_by_zero_is_ieee_then_the_overflow_mode() {
    let hd = |x, y| f16_bin(x, y, 9.0, |d, a, b| div(d, a, b, 16));
    assert_eq!(hd(1.0, 0.0), f16::INFINITY);
    assert_eq!(hd(1.0, -0.0), f16::NEG_INFINITY);
    assert_eq!(hd(-0.0, 5.0).to_bits(), h(-0.0).to_bits());
    assert!(hd(0.0, 0.0).is_nan());
    on_sat(|| {
        assert_eq!(hd(1.0, 0.0), h(65504.0));
        assert_eq!(hd(-1.0, 0.0), h(-65504.0));
        assert_eq!(hd(0.0, 0.0).to_bits(), 0);
    });
    assert_eq!(f32_bin(1.0, 0.0, 0.0, |d, a, b| div(d, a, b, 8)), f32::INFINITY);
    // f32 ignores saturation mode.
    on_sat(|| assert_eq!(f32_bin(-1.0, 0.0, 0.0, |d, a, b| d.assign(a / b)), f32::NEG_INFINITY));
}

#[test]
fn multiply_add_rounds_the_product_first() {
    // MAX * MAX overflows to inf before -inf is added: NaN (the vendor's table), not -inf.
    let mad = |x, y, d| f16_bin(x, y, d, |d, a, b| mul_add_dst(d, a, b, 16));
    assert!(mad(65504.0, 65504.0, f32::NEG_INFINITY).is_nan());
    // In saturation mode the product saturates to MAX first, and MAX + MIN = +0.
    on_sat(|| assert_eq!(mad(65504.0, 65504.0, -65504.0).to_bits(), 0));
    // FusedMulAdd: dst = src0 * dst + src1, the product rounded once to half: 2049 * 1 rounds
    // to 2048, then + 1 rounds to 2048 again (a fused operation would give 2050).
    let fma = |x, y, d| f16_bin(x, y, d, |d, a, b| fused_mul_add(d, a, b, 16));
    assert_eq!(fma(3.0, 1.0, 2.0), h(7.0));
    assert_eq!(f32_bin(3.0, 1.0, 2.0, |d, a, b| fused_mul_add(d, a, b, 8)), 7.0);
    // f32: 1 + 2^-23 squared is 1 + 2^-22 + 2^-46; the product rounds to 1 + 2^-22, so
    // subtracting 1 + 2^-22 gives exactly 0 (a fused multiply-add would give 2^-46).
    let e = 1.0 + f32::EPSILON;
    assert_eq!(f32_bin(e, e, -(1.0 + 2.0 * f32::EPSILON), |d, a, b| mul_add_dst(d, a, b, 8)), 0.0);
}

/// `MulAddRelu`'s boundary values (the vendor's table 23): `dst = Relu(src0 * dst + src1)`, the
/// product rounded (and saturated) first.
#[test]
fn mul_add_relu_boundary_values() {
    const MAX: f32 = 65504.0;
    const INF: f32 = f32::INFINITY;
    // (src0, dst, src1) → (inf/nan mode, saturation mode); NaN written as f32::NAN.
    let rows: [(f32, f32, f32, f32, f32); 14] = [
        (0.0, 0.0, -0.0, 0.0, 0.0),
        (0.0, -0.0, -0.0, 0.0, 0.0),
        (0.0, 0.0, INF, INF, MAX),
        (0.0, 0.0, -INF, 0.0, 0.0),
        (0.0, 0.0, f32::NAN, f32::NAN, 0.0),
        (INF, INF, -INF, f32::NAN, 0.0),
        (MAX, MAX, -MAX, INF, 0.0),
        (MAX, MAX, 1.0, INF, MAX),
        (INF, -INF, INF, f32::NAN, MAX),
        (INF, -MAX, MAX, 0.0, 0.0),
        (-MAX, MAX, -MAX, 0.0, 0.0),
        (f32::NAN, 1.0, -INF, f32::NAN, 0.0),
        (0.0, INF, MAX, f32::NAN, MAX),
        (3.0, -2.0, 5.5, 0.0, 0.0),
    ];
    let mar = |x, d, y| f16_bin(x, y, d, |d, a, b| mul_add_relu(d, a, b, 16));
    let same = |got: f16, want: f32| {
        if want.is_nan() {
            got.is_nan()
        } else {
            got.to_bits() == h(want).to_bits()
        }
    };
    for (x, d, y, inf_nan, sat) in rows {
        let got = mar(x, d, y);
        assert!(same(got, inf_nan), "inf/nan mode: {x} * {d} + {y}: got {got}, want {inf_nan}");
        on_sat(|| {
            let got = mar(x, d, y);
            assert!(same(got, sat), "saturation mode: {x} * {d} + {y}: got {got}, want {sat}");
        });
    }
    // -0 results become +0; positive results pass; float lanes as IEEE single precision.
    assert_eq!(mar(-1.0, 0.0, -0.0).to_bits(), 0);
    assert_eq!(mar(3.0, 2.0, -5.5), h(0.5));
    let f = |x, d, y| f32_bin(x, y, d, |d, a, b| mul_add_relu(d, a, b, 8));
    assert_eq!(f(3.0, 2.0, 1.0), 7.0);
    assert_eq!(f(3.0, -2.0, 1.0).to_bits(), 0);
    assert!(f(f32::INFINITY, 0.0, 1.0).is_nan());
    on_sat(|| assert_eq!(f(f32::MAX, 2.0, 0.0), f32::INFINITY));
    // The product rounds first: 2049 * 1 is 2048 in half, + 1 rounds to 2048 again.
    assert_eq!(mar(2049.0, 1.0, 1.0), h(2048.0));
}

// The vendor's worked example of `MulAddRelu` (half, 256 elements), as it prints them.
const SRC0: [f64; 256] = [
    77.25, 59.84, -39.5, 19.3, -45.88, 11.81, -60.75, -99.6, -12.164, 25.75, 100.0, -68.0, -48.12, -4.504,
    -78.5, -53.4, 71.56, -33.5, -78.75, 81.6, 61.25, -6.414, -31.77, -50.38, 84.9, -75.56, 89.06, -50.7,
    93.0, 99.75, 8.1, 58.34, -47.3, 40.78, -98.94, 41.34, 98.5, -21.11, 30.7, 39.3, -82.06, -34.88, -51.44,
    -91.7, -33.12, 71.2, -66.3, -60.2, 52.84, -75.9, -18.31, -85.3, 92.5, 62.22, 92.2, 87.44, -77.56, 26.64,
    31.47, -60.97, 85.8, -48.47, 74.2, 42.62, -49.8, 77.56, -15.0, 47.5, -26.66, -97.1, -3.28, 99.25, -95.4,
    72.0, -16.97, -50.12, -68.5, 75.1, 63.2, -34.72, 79.56, 97.1, -60.47, -99.3, -59.5, -54.2, -23.62,
    -10.74, 74.8, -18.3, 3.81, -72.2, 15.21, 31.55, 9.5, 22.08, -88.0, 77.5, 7.3, 68.44, -40.7, -27.53,
    39.03, -6.84, 43.28, 4.81, 26.75, -8.59, 95.44, -40.22, 98.94, 74.4, -84.8, -8.72, 42.44, 63.1, 14.14,
    -93.25, 22.77, -39.1, -18.75, -26.22, -56.62, -8.43, 25.14, 43.66, 40.0, 63.44, 87.94, -94.75, 36.44,
    24.17, -91.2, 33.66, -67.1, 52.6, 81.0, 32.88, 69.25, 23.27, 30.23, 82.56, 49.3, -59.78, 81.2, 28.94,
    45.03, -49.22, -99.2, -6.19, 1.262, -94.3, 83.6, -17.7, -61.0, 47.4, -50.62, 1.013, 32.97, 87.7, -5.93,
    -13.36, 20.45, -18.45, -9.2, 33.03, -50.7, -89.1, -93.4, 10.3, -60.72, 44.84, 12.664, 39.1, -81.9, -37.1,
    5.215, -91.9, 85.44, 76.9, -70.5, -39.22, 59.8, -11.78, 4.875, -98.0, 83.94, -31.03, -58.84, -38.56,
    39.44, 97.0, -53.0, 97.75, -69.25, 54.4, 27.03, -42.66, 24.94, -56.97, -7.105, 71.3, 15.28, -39.84, 79.7,
    51.28, 76.25, 7.203, 77.56, -15.26, -74.06, 59.38, 64.5, -63.3, -34.38, -24.98, -54.03, -23.53, -9.875,
    46.12, 34.94, -67.9, 96.25, 65.3, -88.06, 66.5, 65.6, -76.75, 77.2, 29.73, 63.28, 41.25, -20.84, 34.6,
    37.78, -72.44, 58.25, 9.4, -50.56, 29.28, 28.2, 4.438, -10.35, 79.06, 62.75, -11.51, -15.16, -4.055,
    -10.016, 4.887, 94.1, -50.25, 15.055, 18.45, 8.78, 28.25,
];
const SRC1: [f64; 256] = [
    -20.95, -1.547, -46.25, 27.14, 43.16, 21.44, 65.6, 78.25, -72.9, 25.39, 2.133, 76.3, 17.56, -96.9,
    -41.16, -10.734, -2.305, 74.5, -42.2, -63.44, -67.5, -11.62, -78.44, 52.66, 18.8, 45.16, -35.94, 82.44,
    -53.9, 10.54, -86.9, -55.9, 7.22, 85.3, 14.32, -57.53, 52.9, -92.4, 45.0, 31.64, 40.56, 42.06, 70.25,
    -1.671, -24.27, 74.9, 34.56, 96.44, 19.27, -9.76, 96.1, -85.8, 26.34, 83.1, -66.8, 63.03, 29.69, 39.22,
    -55.0, 53.2, -68.75, 0.5854, 57.9, -8.53, -39.62, 36.06, 66.0, -34.56, 50.4, 59.16, -66.1, 54.06, 60.1,
    -30.06, 88.3, -72.06, -22.34, -52.34, 39.4, -59.28, 10.266, -54.7, 59.44, 14.49, -86.94, 98.7, 10.25,
    -75.75, -70.06, 6.758, -43.66, 17.42, -81.3, 23.22, 33.5, 50.72, -5.547, 44.78, 71.2, 28.7, 92.06, -68.3,
    -89.0, -69.2, 28.95, -63.72, 49.53, 15.29, 23.06, 89.44, 87.4, -87.3, 91.44, 80.3, 22.9, -1.456, -69.94,
    -99.3, 40.47, 11.984, -28.7, -32.22, -84.0, -17.67, 70.3, -79.0, -83.6, 42.56, -67.0, -46.53, -84.4,
    -0.7954, -15.34, -71.7, -81.25, 24.62, -63.7, 81.8, 85.44, 73.2, -99.1, 15.29, -85.6, 78.5, -54.12,
    47.03, 46.38, -31.78, 58.84, -21.9, 83.6, 60.88, -53.4, -52.3, -47.3, 20.2, -8.055, -67.3, -52.16, -20.8,
    11.1, 36.8, -22.06, -57.53, -42.34, -59.66, -0.651, -34.25, -19.33, -80.5, -33.62, 28.31, -89.7, -41.5,
    -8.9, -58.44, -54.16, -87.4, -63.66, 6.664, -7.562, 95.06, 85.3, 82.25, 27.75, -25.39, 88.06, -94.56,
    86.8, 68.0, -26.05, 8.14, -42.94, -35.0, 29.12, -64.9, 38.7, 29.42, 15.31, -28.3, -56.47, 79.44, -96.8,
    -64.8, 81.5, -69.3, -23.36, -95.75, -56.62, 77.75, -23.1, 67.94, -29.03, -14.69, 0.5996, -17.05, -73.75,
    95.6, 79.25, -61.7, 5.363, 88.1, -15.086, 58.66, -20.7, 90.9, 42.7, -51.22, 0.3909, 77.1, -69.3, 70.75,
    89.7, 95.1, 56.1, -72.4, -99.9, -11.64, 1.984, -86.6, -22.22, -24.44, 12.5, -46.66, 77.7, 46.28, -48.3,
    -19.03, -16.61, 64.44, -4.758, -20.9, 80.2, 67.0, 12.9, -71.75,
];
const DST: [f64; 256] = [
    -69.5, -8.8, -38.3, 19.9, -70.0, 71.75, -23.17, -13.48, 70.0, -31.16, 29.6, -2.914, 47.6, 83.5, -33.75,
    44.25, -87.9, 3.54, 46.1, 53.8, -4.164, -83.56, -35.6, 58.47, -43.56, -38.03, 63.72, 4.9, -25.56, 73.7,
    34.7, 96.3, -58.34, -56.78, -39.44, 82.5, 34.4, -30.34, -4.72, -97.75, 2.406, -83.1, 17.06, 41.34,
    -45.84, -35.6, 19.58, 27.45, 4.258, -95.25, -7.418, -10.34, 99.06, -84.3, -2.508, -14.805, 44.72, 27.14,
    64.44, -16.69, -48.28, 73.94, 72.2, 71.75, -72.7, -43.72, -65.3, -17.75, 16.02, 35.0, -57.6, 87.75, 91.6,
    -44.53, -82.0, -54.44, -23.61, -71.5, 86.75, -83.5, 39.16, -60.2, 51.22, -63.2, 61.8, 53.9, -13.016,
    78.4, -55.1, -59.94, -88.25, -12.35, 83.4, 94.44, -38.28, -59.38, -98.06, 54.94, -11.664, -22.66, -94.3,
    65.06, 89.56, -74.44, 17.98, 29.78, -98.06, 95.6, -4.26, -65.5, 2.662, -76.9, 26.03, -22.84, 40.6, -78.6,
    58.56, -25.34, -73.9, -2.59, -86.9, 52.75, 69.7, 48.66, -8.95, -57.84, -87.3, -43.84, -26.36, 72.3,
    0.1203, 57.88, 96.56, 43.6, 94.44, 76.1, -58.47, 82.1, -46.03, 82.2, -67.94, -80.75, 91.4, -46.4, 77.56,
    -39.25, 92.25, -83.8, -17.25, -42.72, -3.533, 18.4, -17.6, 80.94, 64.0, 72.6, 53.66, -19.17, -34.88,
    73.94, -80.1, -65.8, -8.6, 62.0, -64.9, -31.45, -25.12, -98.1, 75.75, -6.44, 66.75, 4.11, -62.22, -74.56,
    17.61, 85.4, -0.5825, -39.28, -0.2615, -88.5, 67.1, -78.25, -7.7, -82.75, 98.1, 62.12, 73.9, -98.8,
    -78.6, -88.44, 49.97, 98.6, -14.484, -18.44, -15.57, 87.8, -46.56, -71.75, 61.7, 16.42, -71.56, 91.4,
    -35.03, -61.78, -10.39, -44.1, 96.44, 92.7, 5.785, -59.75, -57.22, -63.1, -71.6, 87.06, 3.691, -69.44,
    -15.84, -73.56, 4.08, -27.5, 41.7, 88.6, 21.4, -73.3, 91.9, 29.28, 100.0, -19.3, -52.88, 28.23, -42.72,
    68.25, 60.9, -48.4, -31.86, 74.25, -40.8, -21.61, 78.3, -90.56, -56.47, -9.51, 80.8, -32.28, 11.18,
    34.34, 65.9, 98.8, 24.83, 82.9, -92.6, -67.06, 51.9, -8.68, -55.03, -75.0,
];
const OUT: [f64; 256] = [
    0.0, 0.0, 1467.0, 411.5, 3256.0, 869.0, 1474.0, 1421.0, 0.0, 0.0, 2962.0, 274.5, 0.0, 0.0, 2608.0, 0.0,
    0.0, 0.0, 0.0, 4328.0, 0.0, 524.5, 1053.0, 0.0, 0.0, 2920.0, 5640.0, 0.0, 0.0, 7364.0, 194.1, 5564.0,
    2768.0, 0.0, 3916.0, 3352.0, 3442.0, 548.0, 0.0, 0.0, 0.0, 2940.0, 0.0, 0.0, 1495.0, 0.0, 0.0, 0.0,
    244.2, 7220.0, 232.0, 796.5, 9184.0, 0.0, 0.0, 0.0, 0.0, 762.0, 1973.0, 1071.0, 0.0, 0.0, 5412.0, 3050.0,
    3580.0, 0.0, 1046.0, 0.0, 0.0, 0.0, 122.75, 8768.0, 0.0, 0.0, 1479.0, 2656.0, 1595.0, 0.0, 5520.0,
    2840.0, 3126.0, 0.0, 0.0, 6292.0, 0.0, 0.0, 317.8, 0.0, 0.0, 1104.0, 0.0, 909.0, 1187.0, 3004.0, 0.0,
    0.0, 8624.0, 4300.0, 0.0, 0.0, 3930.0, 0.0, 3408.0, 440.0, 807.5, 79.5, 0.0, 0.0, 0.0, 2724.0, 351.0,
    0.0, 0.0, 279.5, 1746.0, 0.0, 758.0, 2264.0, 0.0, 113.25, 1600.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0, 1398.0, 0.0, 1395.0, 0.0, 4028.0, 0.0, 2782.0, 0.0, 1985.0, 0.0, 0.0, 4420.0, 2852.0, 6240.0,
    0.0, 4204.0, 4092.0, 1770.0, 242.6, 79.2, 0.0, 0.0, 0.0, 0.0, 3462.0, 0.0, 0.0, 0.0, 6464.0, 486.0,
    916.0, 0.0, 0.0, 554.5, 0.0, 1273.0, 8712.0, 0.0, 0.0, 0.0, 212.5, 0.0, 0.0, 0.0, 0.0, 0.0, 3520.0, 0.0,
    0.0, 0.0, 3164.0, 0.0, 1057.0, 506.0, 0.0, 6288.0, 2972.0, 4716.0, 3478.0, 1945.0, 9576.0, 724.5, 0.0,
    1107.0, 4712.0, 0.0, 3090.0, 1553.0, 0.0, 452.0, 6596.0, 0.0, 2398.0, 0.0, 0.0, 7328.0, 572.0, 392.0,
    989.0, 4212.0, 0.0, 0.0, 0.0, 0.0, 1718.0, 782.0, 1827.0, 38.97, 0.0, 1461.0, 0.0, 2045.0, 0.0, 0.0,
    2038.0, 6608.0, 1430.0, 0.0, 916.5, 0.0, 2886.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0, 779.0, 0.0, 0.0, 0.0, 0.0, 469.5, 0.0, 3350.0, 861.5, 0.0, 0.0, 0.0,
];

/// The vendor's `MulAddRelu` example, in all three forms, bit for bit.
#[test]
fn mul_add_relu_vendor_example() {
    let hv = |v: &[f64]| v.iter().map(|&x| f16::from_f64(x)).collect::<Vec<_>>();
    let (a, b, d0, want) = (hv(&SRC0), hv(&SRC1), hv(&DST), hv(&OUT));
    for form in 0..3 {
        run_on_core(CoreConfig::single(Soc::Ascend910B), || {
            let mut pipe = TPipe::new();
            let (src0, src1, dst) = (
                util::tensor::<f16>(&mut pipe, 256),
                util::tensor::<f16>(&mut pipe, 256),
                util::tensor::<f16>(&mut pipe, 256),
            );
            src0.copy_from_slice(&a);
            src1.copy_from_slice(&b);
            dst.copy_from_slice(&d0);
            let p = BinaryRepeatParams::new(1, 1, 1, 8, 8, 8);
            match form {
                0 => mul_add_relu(&dst, &src0, &src1, 256),
                1 => mul_add_relu_masked::<f16, true>(&dst, &src0, &src1, 128u64, 2, &p),
                _ => mul_add_relu_masked::<f16, true>(&dst, &src0, &src1, [u64::MAX, u64::MAX], 2, &p),
            }
            util::assert_bits_ctx(&dst.to_vec(), &want, format!("form {form}"));
        });
    }
}

#[test]
fn unary_special_values() {
    let mut pipe = TPipe::new();
    let mut b = TBuf::<VecCalc>::new();
    pipe.init_tbuf(&mut b, 64);
    let [x, y] = [0, 1].map(|i| b.get_with_offset::<f32>(8, 32 * i));
    x.copy_from_slice(&[-1.0, 0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1.0, 4.0]);
    ln(&y, &x, 8);
    let v = y.to_vec();
    assert!(v[0].is_nan() && v[4].is_nan() && v[5].is_nan());
    assert_eq!((v[1], v[2], v[3], v[6]), (f32::NEG_INFINITY, f32::NEG_INFINITY, f32::INFINITY, 0.0));
    rsqrt(&y, &x, 8);
    let v = y.to_vec();
    assert_eq!((v[1], v[2], v[3], v[7]), (f32::INFINITY, f32::NEG_INFINITY, 0.0, 0.5));
    assert!(v[0].is_nan());
    sqrt(&y, &x, 8);
    assert_eq!(y.get_value(2).to_bits(), (-0f32).to_bits());
    assert!(y.get_value(0).is_nan());
    exp(&y, &x, 8);
    assert_eq!((y.get_value(1), y.get_value(4), y.get_value(3)), (1.0, 0.0, f32::INFINITY));
    reciprocal(&y, &x, 8);
    assert_eq!((y.get_value(2), y.get_value(4).to_bits()), (f32::NEG_INFINITY, (-0f32).to_bits()));
    relu(&y, &x, 8);
    assert_eq!(y.get_value(2).to_bits(), 0, "relu(-0) = +0");
    assert!(y.get_value(5).is_nan());
    abs(&y, &x, 8);
    assert_eq!(y.get_value(2).to_bits(), 0);
    leaky_relu(&y, &x, 0.5, 8);
    assert_eq!((y.get_value(0), y.get_value(2).to_bits()), (-0.5, (-0f32).to_bits()));
}

#[test]
fn half_ln_of_zero_saturates_to_min() {
    on_sat(|| {
        let r = f16_bin(0.0, 0.0, 1.0, |d, a, _| ln(d, a, 16));
        assert_eq!(r, h(-65504.0));
        let r = f16_bin(-1.0, 0.0, 1.0, |d, a, _| ln(d, a, 16));
        assert_eq!(r.to_bits(), 0);
        let r = f16_bin(12.0, 0.0, 1.0, |d, a, _| exp(d, a, 16));
        assert_eq!(r, h(65504.0));
    });
    let r = f16_bin(12.0, 0.0, 1.0, |d, a, _| exp(d, a, 16));
    assert_eq!(r, f16::INFINITY);
}

#[test]
fn half_sqrt_through_f32_is_correctly_rounded_for_every_input() {
    let all: Vec<f16> = (0..=u16::MAX).map(f16::from_bits).collect();
    let mut pipe = TPipe::new();
    let mut b = TBuf::<VecCalc>::new();
    pipe.init_tbuf(&mut b, 2 * 32768);
    let [x, y] = [0, 1].map(|i| b.get_with_offset::<f16>(16384, 32768 * i));
    for chunk in all.chunks(16384) {
        x.copy_from_slice(chunk);
        sqrt(&y, &x, 16384);
        for (a, r) in chunk.iter().zip(y.to_vec()) {
            let want = f16::from_f64(a.to_f64().sqrt());
            assert!(want.to_bits() == r.to_bits() || (want.is_nan() && r.is_nan()), "sqrt of {a}");
        }
    }
}

#[test]
fn half_division_through_f32_is_correctly_rounded() {
    // Every dividend against 64 random divisors (4 million quotients), against the quotient
    // rounded once from f64 (53 bits: innocuous for half).
    let all: Vec<f16> = (0..=u16::MAX).map(f16::from_bits).collect();
    let mut r = Rng(0x1234_5678);
    let mut pipe = TPipe::new();
    let mut b = TBuf::<VecCalc>::new();
    pipe.init_tbuf(&mut b, 3 * 32768);
    let [x, y, z] = [0, 1, 2].map(|i| b.get_with_offset::<f16>(16384, 32768 * i));
    for _ in 0..64 {
        for xs in all.chunks(16384) {
            let ys: Vec<f16> = (0..16384).map(|_| f16::from_bits(r.next() as u16)).collect();
            x.copy_from_slice(xs);
            y.copy_from_slice(&ys);
            z.assign(&x / &y);
            for (i, q) in z.to_vec().into_iter().enumerate() {
                let want = f16::from_f64(xs[i].to_f64() / ys[i].to_f64());
                assert!(
                    want.to_bits() == q.to_bits() || (want.is_nan() && q.is_nan()),
                    "{} / {}",
                    xs[i],
                    ys[i]
                );
            }
        }
    }
}

#[test]
fn integers_wrap_and_shift_as_documented() {
    let mut pipe = TPipe::new();
    let mut b = TBuf::<VecCalc>::new();
    pipe.init_tbuf(&mut b, 96);
    let [d, a, c] = [0, 1, 2].map(|i| b.get_with_offset::<i32>(8, 32 * i));
    a.copy_from_slice(&[i32::MAX; 8]);
    c.copy_from_slice(&[i32::MAX; 8]);
    d.assign(&a * &c);
    assert_eq!(d.get_value(0), 1);
    muls(&d, &a, 2, 8);
    assert_eq!(d.get_value(7), -2);
    a.copy_from_slice(&[-17; 8]);
    shift_right(&d, &a, 2, 8);
    assert_eq!(d.get_value(0), -5, "arithmetic shift");
    shift_right(&d, &a, 32, 8);
    assert_eq!(d.get_value(0), -1, "a full-width arithmetic shift leaves the sign");
    shift_left(&d, &a, 32, 8);
    assert_eq!(d.get_value(0), 0);
    let u = b.get_with_offset::<u16>(16, 0);
    let v = b.get_with_offset::<u16>(16, 32);
    v.copy_from_slice(&[0xaaaa; 16]);
    shift_right(&u, &v, 1, 16);
    assert_eq!(u.get_value(0), 0x5555, "logical shift");
    let w = b.get_with_offset::<u16>(16, 64);
    w.copy_from_slice(&[0x0ff0; 16]);
    u.assign(&v & &w);
    assert_eq!(u.get_value(3), 0x0aa0);
    u.assign(&v | &w);
    assert_eq!(u.get_value(3), 0xaffa);
    not(&u, &w, 16);
    assert_eq!(u.get_value(15), 0xf00f);
    run_on_core(CoreConfig::single(Soc::Ascend310B), || {
        let mut pipe = TPipe::new();
        let mut b = TBuf::<VecCalc>::new();
        pipe.init_tbuf(&mut b, 64);
        let x = b.get::<i16>();
        x.copy_from_slice(&[i16::MIN; 32]);
        abs(&x, &x, 32);
        assert_eq!(x.get_value(0), i16::MIN, "abs wraps");
    });
}

#[test]
fn shift_out_of_range_names_the_limit() {
    let msg = panic_message(|| {
        let mut pipe = TPipe::new();
        let mut b = TBuf::<VecCalc>::new();
        pipe.init_tbuf(&mut b, 64);
        let x = b.get::<i16>();
        shift_left(&x, &x, 17, 32);
    });
    assert!(msg.contains("ShiftLeft: scalarValue = 17 is out of range [0, 16] for int16_t"), "{msg}");
    let msg = panic_message(|| {
        let mut pipe = TPipe::new();
        let mut b = TBuf::<VecCalc>::new();
        pipe.init_tbuf(&mut b, 64);
        let x = b.get::<i32>();
        shift_right_masked::<i32, true>(&x, &x, -1, 8, 1, &UnaryRepeatParams::default());
    });
    assert!(msg.contains("ShiftRight: scalarValue = -1 is out of range [0, 32] for int32_t"), "{msg}");
}

#[test]
fn operators_build_the_count_form_over_dst() {
    let (x, y) = (6.0, 1.5);
    assert_eq!(f32_bin(x, y, 0.0, |d, a, b| d.assign(a * b)), 9.0);
    assert_eq!(f32_bin(x, y, 0.0, |d, a, b| d.assign(a / b)), 4.0);
    assert_eq!(f32_bin(x, y, 0.0, |d, a, b| d.assign(a + b)), 7.5);
    assert_eq!(f32_bin(x, y, 0.0, |d, a, b| d.assign(a - b)), 4.5);
}

#[test]
fn masked_forms_check_like_sub_masked() {
    let msg = panic_message(|| {
        let mut pipe = TPipe::new();
        let mut b = TBuf::<VecCalc>::new();
        pipe.init_tbuf(&mut b, 512);
        let x = b.get::<f32>();
        exp_masked::<f32, true>(&x, &x, 65u64, 1, &UnaryRepeatParams::default());
    });
    assert!(msg.contains("Exp: mask = 65 is out of range [1, 64] for float in normal mode"), "{msg}");
    {
        // isSetMask = false ignores its mask argument, as the chip does: the register's 16
        // lanes are doubled, not the argument's 64.
        let mut pipe = TPipe::new();
        let mut b = TBuf::<VecCalc>::new();
        pipe.init_tbuf(&mut b, 512);
        let x = b.get::<f16>();
        x.copy_from_slice(&[h(1.0); 256]);
        set_vector_mask::<f16>(16u64);
        muls_masked::<f16, false>(&x, &x, h(2.0), 64, 1, &UnaryRepeatParams::default());
        reset_mask();
        let v = x.to_vec();
        assert!(v[..16].iter().all(|e| *e == h(2.0)) && v[16..].iter().all(|e| *e == h(1.0)));
    }
    let msg = panic_message(|| {
        let mut pipe = TPipe::new();
        let mut b = TBuf::<VecCalc>::new();
        pipe.init_tbuf(&mut b, 512);
        let x = b.get::<f16>();
        mul_masked::<f16, true>(&x, &x, &x.view(16), 128, 1, &BinaryRepeatParams::default());
    });
    assert!(msg.contains("Mul: dst (address 0x0) and src1 (address 0x20) partially overlap"), "{msg}");
}

// ---- mixed precision: half sources into a float destination ---------------------------------

/// A random `half` for the mixed forms: ordinary values and the special ones.
fn gen_mixed_half(r: &mut Rng) -> f16 {
    match r.below(4) {
        0 => f16::from_f64(special_f64(r, 65504.0)),
        1 => f16::from_bits(r.next() as u16),
        _ => f16::from_f32((r.below(4001) as f32 - 2000.0) / 8.0),
    }
}

/// The reference of `dst = a * b + dst` with `half` `a`, `b` and a `float` `dst`: in `f64`,
/// then one rounding to `f32`. The product of two halves is exact in `f64`; the sum is exact
/// too unless the exponents lie more than 53 - 24 bits apart, and then the smaller term is far
/// below half an `f32` ulp of the larger, so the `f64` rounding cannot create an `f32` tie.
fn r_mixed_mad(a: f16, b: f16, d: f32) -> f32 {
    (a.to_f64() * b.to_f64() + d as f64) as f32
}

fn same_f32(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// One random high-dimensional call and one count-form call of the mixed `Axpy` (`nsrc = 1`)
/// or `MulAddDst` (`nsrc = 2`) against the lane-by-lane reference.
/// One random mixed call (the lanes of f32: 64 per repeat); `in_place` here means that
/// MulAddDst's two sources are one tensor.
fn random_mixed_case(nsrc: usize, c: &Case) {
    let mut r = Rng(c.data_seed);
    let (soc, counter, set, mask, repeat, seed) = (c.soc, c.counter, c.set, c.mask, c.repeat, c.data_seed);
    let lanes = case_lanes(mask, counter, repeat, 64);
    // dst blocks never collide (blk >= 1, rep >= 8 * blk); sources anything, each with its own
    // element size (16 per block) and strides; MulAddDst's sources sometimes one tensor.
    let dblk = c.dst.0;
    let drep = 8 * dblk + c.dst.1;
    let shared = nsrc == 2 && c.in_place;
    let (sblk, srep) = if shared { ([c.sblk[0]; 2], [c.srep[0]; 2]) } else { (c.sblk, c.srep) };
    let reps = lanes.len();
    let extent =
        |epb: usize, blk: u8, rep: u8| reps * rep as usize * epb + 8 * (blk as usize + 1) * epb + 128;
    let n_d = extent(8, dblk, drep);
    let n_s = [extent(16, sblk[0], srep[0]), extent(16, sblk[1], srep[1])];
    let scalar = gen_mixed_half(&mut r);
    let sat = soc.overflow_mode_settable() && c.sat_pick;
    run_on_core(CoreConfig::single(soc), || {
        if sat {
            // float ignores the saturation mode.
            set_overflow_mode(OverflowMode::Saturation);
        }
        let mut pipe = TPipe::new();
        let d = util::tensor::<f32>(&mut pipe, n_d.div_ceil(8) * 8);
        let mut srcs = vec![util::tensor::<f16>(&mut pipe, n_s[0].div_ceil(16) * 16)];
        if nsrc == 2 {
            srcs.push(if shared {
                srcs[0].clone()
            } else {
                util::tensor::<f16>(&mut pipe, n_s[1].div_ceil(16) * 16)
            });
        }
        let fill = |r: &mut Rng, srcs: &[LocalTensor<f16>]| {
            let dv: Vec<f32> = (0..d.get_size())
                .map(|_| match r.below(5) {
                    0 => special_f64(r, f32::MAX as f64) as f32,
                    1 => f32::from_bits(r.next() as u32),
                    _ => (r.below(2_000_001) as f32 - 1_000_000.0) / 64.0,
                })
                .collect();
            d.copy_from_slice(&dv);
            for s in srcs {
                let v: Vec<f16> = (0..s.get_size()).map(|_| gen_mixed_half(r)).collect();
                s.copy_from_slice(&v);
            }
        };
        let second = |xs: &[f16]| if nsrc == 2 { xs[1] } else { scalar };
        fill(&mut r, &srcs);
        let before_d = d.to_vec();
        let before_s: Vec<Vec<f16>> = srcs.iter().map(|s| s.to_vec()).collect();
        let mut want = before_d.clone();
        for (rr, js) in lanes.iter().enumerate() {
            for &j in js {
                let od = lane_offset::<f32>(rr, j, dblk as usize, drep as usize);
                let xs: Vec<f16> = (0..nsrc)
                    .map(|k| before_s[k][lane_offset::<f16>(rr, j, sblk[k] as usize, srep[k] as usize)])
                    .collect();
                want[od] = r_mixed_mad(xs[0], second(&xs), before_d[od]);
            }
        }
        let m = enter_mask_mode::<f32>(mask, counter, set);
        let up = UnaryRepeatParams::new(dblk.into(), sblk[0].into(), drep, srep[0]);
        let bp = BinaryRepeatParams::new(dblk, sblk[0], sblk[1], drep, srep[0], srep[1]);
        match (nsrc, set) {
            (1, true) => axpy_mixed_masked::<true>(&d, &srcs[0], scalar, m, repeat, &up),
            (1, false) => axpy_mixed_masked::<false>(&d, &srcs[0], scalar, m, repeat, &up),
            (_, true) => mul_add_dst_mixed_masked::<true>(&d, &srcs[0], &srcs[1], m, repeat, &bp),
            (_, false) => mul_add_dst_mixed_masked::<false>(&d, &srcs[0], &srcs[1], m, repeat, &bp),
        }
        set_mask_norm();
        let got = d.to_vec();
        for i in 0..got.len() {
            assert!(
                same_f32(got[i], want[i]),
                "mixed nsrc {nsrc} on {soc}: element {i}: got {} ({:#x}), want {} ({:#x}); sat {sat}, counter {counter}, set {set}, mask {mask:?}, repeat {repeat}, strides {bp:?}, shared {shared}, scalar {scalar}, seed {seed}",
                got[i], got[i].to_bits(), want[i], want[i].to_bits()
            );
        }
        // The count form over a random prefix.
        let n = (c.count_pick % n_d.min(n_s[0]).min(n_s[1]) as u64) as usize;
        fill(&mut r, &srcs);
        let before_d = d.to_vec();
        let before_s: Vec<Vec<f16>> = srcs.iter().map(|s| s.to_vec()).collect();
        let mut want = before_d.clone();
        for i in 0..n {
            let xs: Vec<f16> = (0..nsrc).map(|k| before_s[k][i]).collect();
            want[i] = r_mixed_mad(xs[0], second(&xs), before_d[i]);
        }
        if nsrc == 1 {
            axpy_mixed(&d, &srcs[0], scalar, n);
        } else {
            mul_add_dst_mixed(&d, &srcs[0], &srcs[1], n);
        }
        let got = d.to_vec();
        for i in 0..got.len() {
            assert!(
                same_f32(got[i], want[i]),
                "mixed nsrc {nsrc} count form on {soc}: element {i} of {n}: got {}, want {}; seed {seed}",
                got[i],
                want[i]
            );
        }
    });
}

#[test]
fn random_axpy_mixed_half_into_float() {
    let socs = Soc::ALL.to_vec();
    let cases = 2 * ITERS * socs.len() as u32;
    strat::check_cases(cases, 0xA1_0000, case::<f32>(socs), |c| random_mixed_case(1, c));
}

#[test]
fn random_mul_add_dst_mixed_half_into_float() {
    let socs = vec![Soc::Ascend910B, Soc::Ascend310P];
    let cases = 2 * ITERS * socs.len() as u32;
    strat::check_cases(cases, 0xB2_0000, case::<f32>(socs), |c| random_mixed_case(2, c));
}

/// Runs the mixed `Axpy` (`b = None`: scalar `y`) or `MulAddDst` on one lane; returns dst.
fn mixed_one(soc: Soc, x: f32, y: f32, d: f32, mad: bool) -> f32 {
    let mut out = 0.0;
    run_on_core(CoreConfig::single(soc), || {
        let mut pipe = TPipe::new();
        let (dst, a, b) = (
            util::tensor::<f32>(&mut pipe, 8),
            util::tensor::<f16>(&mut pipe, 16),
            util::tensor::<f16>(&mut pipe, 16),
        );
        a.copy_from_slice(&[h(x); 16]);
        b.copy_from_slice(&[h(y); 16]);
        dst.copy_from_slice(&[d; 8]);
        if soc.overflow_mode_settable() {
            set_overflow_mode(OverflowMode::Saturation);
        }
        if mad {
            mul_add_dst_mixed(&dst, &a, &b, 1);
        } else {
            axpy_mixed(&dst, &a, h(y), 1);
        }
        assert_eq!(dst.get_value(1), d, "lane 1 is outside count = 1");
        out = dst.get_value(0);
    });
    out
}

#[test]
fn mixed_multiply_add_is_float_arithmetic_on_exact_products() {
    for (soc, mad) in
        [(Soc::Ascend910, false), (Soc::Ascend910B, true), (Soc::Ascend310P, true), (Soc::Ascend310B, false)]
    {
        let f = |x, y, d| mixed_one(soc, x, y, d, mad);
        // 3 * 683 = 2049: exact in float, while half would round the product to 2048.
        assert_eq!(f(3.0, 683.0, 0.0), 2049.0);
        // 2048 * 2048 overflows half but not float; MAX * MAX + (-inf) is -inf, not NaN.
        assert_eq!(f(2048.0, 2048.0, 0.5), 4194304.5);
        assert_eq!(f(65504.0, 65504.0, f32::NEG_INFINITY), f32::NEG_INFINITY);
        // One rounding of the sum: 2^24 + 1 + 2^-9 + 2^-20 rounds to 2^24 + 2.
        let e = 1.0 + 1.0 / 1024.0;
        assert_eq!(f(e, e, 16777216.0), 16777218.0);
        // The smallest half subnormal squared, 2^-48, is a normal float.
        assert_eq!(f(5.960_464_5e-8, 5.960_464_5e-8, 0.0), 2f32.powi(-48));
        // Signed zeros: -0 * 1 + -0 = -0, and + +0 gives +0.
        assert_eq!(f(-0.0, 1.0, -0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(f(-0.0, 1.0, 0.0).to_bits(), 0);
        // IEEE specials; float ignores the saturation mode (set where settable).
        assert!(f(f32::INFINITY, 0.0, 1.0).is_nan());
        assert!(f(f32::INFINITY, 1.0, f32::NEG_INFINITY).is_nan());
        assert!(f(f32::NAN, 1.0, 0.0).is_nan());
        assert_eq!(f(1.0, 1.0, f32::MAX), f32::MAX);
        assert_eq!(f(f32::INFINITY, -1.0, 0.0), f32::NEG_INFINITY);
    }
}

#[test]
fn mixed_forms_check_chip_overlap_and_mask() {
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        let msg = panic_message(|| {
            mixed_one(soc, 1.0, 1.0, 0.0, true);
        });
        assert!(
            msg.contains(&format!("MulAddDst: src0/src1 = half with dst = float is not supported on {soc}")),
            "{msg}"
        );
    }
    // dst and a source may not overlap at all, not even at the same address.
    let msg = panic_message(|| {
        let mut pipe = TPipe::new();
        let mut b = TBuf::<VecCalc>::new();
        pipe.init_tbuf(&mut b, 1024);
        let (d, s) = (b.get::<f32>(), b.get_with_offset::<f16>(128, 256));
        axpy_mixed(&d, &s, h(1.0), 128);
    });
    assert!(msg.contains("Axpy: dst (bytes 0x0..0x200) and src (bytes 0x100..0x200) overlap"), "{msg}");
    let msg = panic_message(|| {
        let mut pipe = TPipe::new();
        let mut b = TBuf::<VecCalc>::new();
        pipe.init_tbuf(&mut b, 1024);
        let (d, s) = (b.get::<f32>(), b.get::<f16>());
        mul_add_dst_mixed_masked::<true>(&d, &s, &s, 64u64, 1, &BinaryRepeatParams::new(1, 1, 1, 8, 4, 4));
    });
    assert!(msg.contains("MulAddDst: dst (address 0x0) and src0 (address 0x0) overlap"), "{msg}");
    // The mask counts float lanes: 64 at most.
    let msg = panic_message(|| {
        let mut pipe = TPipe::new();
        let (d, s) = (util::tensor::<f32>(&mut pipe, 128), util::tensor::<f16>(&mut pipe, 128));
        axpy_mixed_masked::<true>(&d, &s, h(1.0), 65u64, 1, &UnaryRepeatParams::new(1, 1, 8, 4));
    });
    assert!(msg.contains("Axpy: mask = 65 is out of range [1, 64] for float in normal mode"), "{msg}");
    // A repeat stride past the end names the operand.
    let msg = panic_message(|| {
        let mut pipe = TPipe::new();
        let (d, s) = (util::tensor::<f32>(&mut pipe, 128), util::tensor::<f16>(&mut pipe, 128));
        axpy_mixed_masked::<true>(&d, &s, h(1.0), 64u64, 2, &UnaryRepeatParams::new(1, 1, 8, 8));
    });
    assert!(msg.contains("Axpy: src would touch element 191 but the tensor has 128 elements"), "{msg}");
}

// ---- ShiftRight's roundEn -------------------------------------------------------------------

/// `x >> s` rounded by the bits shifted out, as the vendor documents `roundEn` for the signed
/// types on Ascend910B: `floor((x + 2^(s-1)) / 2^s)` in `i128`; elsewhere the plain shift.
fn r_shr_round<T: T0>(x: T, s: T) -> T {
    let (v, k) = (x.num().i(), s.num().i() as u32);
    if T::SIGNED && get_soc() == Soc::Ascend910B && k > 0 {
        r_bits((v + (1i128 << (k - 1))) >> k)
    } else {
        r_shr(x, s)
    }
}

macro_rules! shift_round_tests {
    ($($t:ty),*) => {$(
        paste::paste! {
            #[test]
            fn [<random_shift_right_round_en_ $t>]() {
                run_spec::<$t>(Spec {
                    name: "shift_right",
                    nsrc: 1,
                    scalar: true,
                    reference: |x, s, _, _| r_shr_round(x[0], s),
                    // The count form through counter mode (AscendC's count form is the
                    // counter-mode instruction), with roundEn.
                    count: |d, s, c, n| {
                        if n > 0 {
                            set_mask_count();
                            shift_right_round_masked::<$t, true>(d, &s[0], c, n as u64, 1, &UnaryRepeatParams::default(), true);
                            set_mask_norm();
                        }
                    },
                    masked: |d, s, c, m, rep, p, set| {
                        let p = UnaryRepeatParams::new(p[0].into(), p[1].into(), p[3], p[4]);
                        if set {
                            shift_right_round_masked::<$t, true>(d, &s[0], c, m, rep, &p, true)
                        } else {
                            shift_right_round_masked::<$t, false>(d, &s[0], c, m, rep, &p, true)
                        }
                    },
                    supported: <$t as ShiftRightElement>::shift_right_supported,
                    gen_scalar: gen_shift,
                }, ITERS);
            }
        }
    )*};
}

shift_round_tests!(i16, u16, i32, u32);

#[test]
fn shift_right_round_en_edges() {
    let run = |soc: Soc, xs: [i32; 8], s: i32, round: bool| -> Vec<i32> {
        let mut out = vec![];
        run_on_core(CoreConfig::single(soc), || {
            let mut pipe = TPipe::new();
            let (d, a) = (util::tensor::<i32>(&mut pipe, 8), util::tensor::<i32>(&mut pipe, 8));
            a.copy_from_slice(&xs);
            shift_right_round_masked::<i32, true>(&d, &a, s, 8u64, 1, &UnaryRepeatParams::default(), round);
            out = d.to_vec();
        });
        out
    };
    let xs = [9, 10, -3, -2, i32::MAX, i32::MIN, -1, 1];
    let b = Soc::Ascend910B;
    // The vendor's example: 0b1001 >> 1 rounds up to 0b0101, 0b1010 >> 1 is exact.
    assert_eq!(run(b, xs, 1, true), [5, 5, -1, -1, 1 << 30, i32::MIN / 2, 0, 1]);
    assert_eq!(run(b, xs, 1, false), [4, 5, -2, -1, (1 << 30) - 1, i32::MIN / 2, -1, 0]);
    // A full-width shift: the sign fill plus the sign bit shifted out last.
    assert_eq!(run(b, xs, 32, true), [0; 8]);
    // No bit shifted out: exact.
    assert_eq!(run(b, xs, 0, true), xs);
    // 31: i32::MAX is 0.99999... of 2^31 and rounds to 1; MIN is exactly -1.
    assert_eq!(run(b, xs, 31, true), [0, 0, 0, 0, 1, -1, 0, 0]);
    // Ascend310B's implementation ignores roundEn; unsigned types have no effect either.
    assert_eq!(run(Soc::Ascend310B, xs, 1, true), run(b, xs, 1, false));
    run_on_core(CoreConfig::single(b), || {
        let mut pipe = TPipe::new();
        let (d, a) = (util::tensor::<u16>(&mut pipe, 16), util::tensor::<u16>(&mut pipe, 16));
        a.copy_from_slice(&[9; 16]);
        shift_right_round_masked::<u16, true>(&d, &a, 1, 16u64, 1, &UnaryRepeatParams::default(), true);
        assert_eq!(d.get_value(0), 4);
    });
    // The shift range is checked as without roundEn.
    let msg = panic_message(|| {
        run(b, xs, 33, true);
    });
    assert!(msg.contains("ShiftRight: scalarValue = 33 is out of range [0, 32] for int32_t"), "{msg}");
}

#[test]
fn mixed_count_forms_over_many_chunks() {
    // Longer than the kernels' 512-lane chunks, with a ragged tail.
    let n = 3 * 512 + 77;
    run_on_core(CoreConfig::single(Soc::Ascend910B), || {
        let mut r = Rng(0x5eed);
        let mut pipe = TPipe::new();
        let d = util::tensor::<f32>(&mut pipe, n + 8);
        let (a, b) = (util::tensor::<f16>(&mut pipe, n + 16), util::tensor::<f16>(&mut pipe, n + 16));
        let av: Vec<f16> = (0..a.get_size()).map(|_| gen_mixed_half(&mut r)).collect();
        let bv: Vec<f16> = (0..b.get_size()).map(|_| gen_mixed_half(&mut r)).collect();
        let dv: Vec<f32> =
            (0..d.get_size()).map(|_| (r.below(2_000_001) as f32 - 1_000_000.0) / 64.0).collect();
        a.copy_from_slice(&av);
        b.copy_from_slice(&bv);
        for mad in [false, true] {
            d.copy_from_slice(&dv);
            if mad {
                mul_add_dst_mixed(&d, &a, &b, n);
            } else {
                axpy_mixed(&d, &a, bv[5], n);
            }
            let got = d.to_vec();
            for i in 0..d.get_size() {
                let want =
                    if i >= n { dv[i] } else { r_mixed_mad(av[i], if mad { bv[i] } else { bv[5] }, dv[i]) };
                assert!(same_f32(got[i], want), "mad {mad}: element {i}: got {}, want {want}", got[i]);
            }
        }
    });
}
