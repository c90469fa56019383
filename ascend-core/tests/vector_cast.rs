//! `Cast`: every `(src, dst, mode)` triple against an independent scalar reference (all 65536
//! patterns of 16-bit sources, every 8-bit pattern, 2^20 random patterns plus boundary values
//! of 32/64-bit sources), the per-chip support matrix and its errors, both overflow modes,
//! and the mask/strided form over random masks, strides and repeats.
//!
//! The reference rounds from the exact value: for a float result it searches the two
//! neighbouring representable values (bit patterns of non-negative floats are ordered like
//! their values) and picks one by the mode, with ties decided against the exact midpoint; for
//! an integer result it splits the value into integer and fraction and decides explicitly.

use ascend_core::prelude::*;
use std::cmp::Ordering;

use crate::common::util;
use util::{expect_panic, on, ub, Rng};

use crate::common::prop as strat;
use proptest::prelude::*;

// ---- the reference --------------------------------------------------------------------------

/// A source value, exactly.
#[derive(Clone, Copy, Debug)]
enum X {
    Nan,
    Inf(bool),
    /// A finite float value (exact in f64).
    F(f64),
    /// An integer value.
    I(i128),
}

trait Src: Element {
    fn x(self) -> X;
}
macro_rules! src_float {
    ($($t:ty),*) => {$(impl Src for $t {
        fn x(self) -> X {
            let v = self.to_f64();
            if v.is_nan() { X::Nan } else if v.is_infinite() { X::Inf(v < 0.0) } else { X::F(v) }
        }
    })*};
}
src_float!(f16, bf16, f32);
macro_rules! src_int {
    ($($t:ty),*) => {$(impl Src for $t { fn x(self) -> X { X::I(self as i128) } })*};
}
src_int!(u8, i8, i16, i32, i64);

/// Integer rounding of a finite f64 by mode, decided from trunc and the exact fraction.
fn round_int(v: f64, mode: RoundMode) -> f64 {
    let t = v.trunc();
    let f = v - t; // exact
    let s = v.signum();
    let even = t % 2.0 == 0.0;
    match mode {
        RoundMode::CastFloor => {
            if f < 0.0 {
                t - 1.0
            } else {
                t
            }
        }
        RoundMode::CastCeil => {
            if f > 0.0 {
                t + 1.0
            } else {
                t
            }
        }
        RoundMode::CastTrunc => t,
        RoundMode::CastRound => {
            if f.abs() >= 0.5 {
                t + s
            } else {
                t
            }
        }
        RoundMode::CastNone | RoundMode::CastRint => {
            if f.abs() > 0.5 || (f.abs() == 0.5 && !even) {
                t + s
            } else {
                t
            }
        }
        RoundMode::CastOdd => {
            if f != 0.0 && even {
                t + s
            } else {
                t
            }
        }
    }
}

trait Dst: Element {
    /// The expected result; `None` means NaN.
    fn want(x: X, mode: RoundMode, sat: bool) -> Option<Self>;
}

macro_rules! dst_int {
    ($($t:ty),*) => {$(impl Dst for $t {
        fn want(x: X, mode: RoundMode, _sat: bool) -> Option<Self> {
            let (lo, hi) = (<$t>::MIN as i128, <$t>::MAX as i128);
            Some(match x {
                X::Nan => 0,
                X::Inf(neg) => if neg { <$t>::MIN } else { <$t>::MAX },
                X::I(v) => v.clamp(lo, hi) as $t,
                X::F(v) => (round_int(v, mode) as i128).clamp(lo, hi) as $t,
            })
        }
    })*};
}
dst_int!(u8, i8, i16, i32, i64);

/// Compares the value of a pattern with |x|.
type Cmp<'a> = Box<dyn Fn(u32) -> Ordering + 'a>;
/// Compares 2|x| with the sum of two patterns' values (|x| against their midpoint).
type Mid<'a> = Box<dyn Fn(u32, u32) -> Ordering + 'a>;

/// A float format: exponent and mantissa bits, and the value of every non-negative pattern
/// of a 16-bit format (the infinity pattern reads as the next power of two past the largest
/// finite value, so that the midpoint above MAX is right).
struct Fmt {
    e: u32,
    m: u32,
    table: Option<&'static [f64]>,
}

fn table16(e: u32, m: u32) -> Vec<f64> {
    let bias = (1i32 << (e - 1)) - 1;
    (0..=(((1u32 << e) - 1) << m))
        .map(|b| {
            let (exp, man) = ((b >> m) as i32, (b & ((1 << m) - 1)) as f64);
            if exp == 0 {
                man * 2f64.powi(1 - bias - m as i32)
            } else {
                (man + 2f64.powi(m as i32)) * 2f64.powi(exp - bias - m as i32)
            }
        })
        .collect()
}

static F16_VALUES: std::sync::OnceLock<Vec<f64>> = std::sync::OnceLock::new();
static BF16_VALUES: std::sync::OnceLock<Vec<f64>> = std::sync::OnceLock::new();

impl Fmt {
    fn f16() -> Fmt {
        Fmt { e: 5, m: 10, table: Some(F16_VALUES.get_or_init(|| table16(5, 10))) }
    }
    fn bf16() -> Fmt {
        Fmt { e: 8, m: 7, table: Some(BF16_VALUES.get_or_init(|| table16(8, 7))) }
    }
    fn f32() -> Fmt {
        Fmt { e: 8, m: 23, table: None }
    }

    /// The value of the non-negative bit pattern `b` (f32: its own value, exact in f64).
    fn val(&self, b: u32) -> f64 {
        match self.table {
            Some(t) => t[b as usize],
            None => f32::from_bits(b) as f64,
        }
    }

    /// The rounded bit pattern of `x`.
    fn round(&self, x: X, mode: RoundMode, sat: bool) -> Option<u32> {
        let inf = ((1u32 << self.e) - 1) << self.m;
        let max = inf - 1;
        let sign = 1u32 << (self.e + self.m);
        let (neg, cmp, mid): (bool, Cmp, Mid) = match x {
            X::Nan => return if sat { Some(0) } else { None },
            X::Inf(neg) => return Some((neg as u32 * sign) | if sat { max } else { inf }),
            X::F(v) => {
                let a = v.abs();
                (
                    v.is_sign_negative(),
                    Box::new(move |b| self.val(b).partial_cmp(&a).unwrap()),
                    Box::new(move |lo, hi| (2.0 * a).partial_cmp(&(self.val(lo) + self.val(hi))).unwrap()),
                )
            }
            X::I(v) => {
                let a = v.unsigned_abs();
                let as_int = move |b: u32| {
                    let f = self.val(b);
                    if f >= 2f64.powi(127) {
                        u128::MAX
                    } else {
                        f.floor() as u128
                    }
                };
                (
                    v < 0,
                    Box::new(move |b| {
                        let f = self.val(b);
                        if f < 1.0 {
                            if a == 0 && f == 0.0 {
                                Ordering::Equal
                            } else if a == 0 {
                                Ordering::Greater
                            } else {
                                Ordering::Less
                            }
                        } else {
                            // Integer part first, then the fraction decides.
                            match as_int(b).cmp(&a) {
                                Ordering::Equal if self.val(b).fract() > 0.0 => Ordering::Greater,
                                o => o,
                            }
                        }
                    }),
                    Box::new(move |lo, hi| (2 * a).cmp(&(as_int(lo) + as_int(hi)))),
                )
            }
        };
        // lo = the largest pattern in 0..=max whose value is <= |x|. For f32 results the
        // search starts from a window around Rust's conversion (a hint only: the invariant is
        // asserted below).
        let (mut l, mut h) = match (self.table, x) {
            (None, X::F(v)) => {
                let c = (v.abs() as f32).to_bits().min(max);
                (c.saturating_sub(1), (c + 1).min(max))
            }
            (None, X::I(v)) => {
                let c = (v.unsigned_abs() as f32).to_bits().min(max);
                (c.saturating_sub(1), (c + 1).min(max))
            }
            // 16-bit results: a window around the `half` crate's conversion of the value
            // (a hint only, as above: the binary search decides and the invariant is asserted).
            (Some(_), X::F(_) | X::I(_)) => {
                let a = match x {
                    X::F(v) => v.abs(),
                    X::I(v) => v.unsigned_abs() as f64,
                    _ => unreachable!(),
                };
                let c = match (self.e, self.m) {
                    (5, 10) => f16::from_f64(a).to_bits(),
                    _ => bf16::from_f64(a).to_bits(),
                };
                let c = u32::from(c & 0x7fff).min(max);
                (c.saturating_sub(2), (c + 2).min(max))
            }
            _ => (0u32, max),
        };
        while l < h {
            let m = l + (h - l).div_ceil(2);
            if cmp(m) != Ordering::Greater {
                l = m;
            } else {
                h = m - 1;
            }
        }
        let lo = l;
        assert!(
            cmp(lo) != Ordering::Greater && (lo == max || cmp(lo + 1) == Ordering::Greater),
            "search window"
        );
        let r = if cmp(lo) == Ordering::Equal {
            lo
        } else {
            let hi = lo + 1;
            match mode {
                RoundMode::CastTrunc => lo,
                RoundMode::CastFloor => {
                    if neg {
                        hi
                    } else {
                        lo
                    }
                }
                RoundMode::CastCeil => {
                    if neg {
                        lo
                    } else {
                        hi
                    }
                }
                RoundMode::CastRound => {
                    if mid(lo, hi) == Ordering::Less {
                        lo
                    } else {
                        hi
                    }
                }
                RoundMode::CastNone | RoundMode::CastRint => match mid(lo, hi) {
                    Ordering::Less => lo,
                    Ordering::Greater => hi,
                    Ordering::Equal => {
                        if lo & 1 == 0 {
                            lo
                        } else {
                            hi
                        }
                    }
                },
                RoundMode::CastOdd => {
                    if lo & 1 == 1 {
                        lo
                    } else {
                        hi
                    }
                }
            }
        };
        let r = if r == inf && sat { max } else { r };
        Some((neg as u32 * sign) | r)
    }
}

impl Dst for f16 {
    fn want(x: X, mode: RoundMode, sat: bool) -> Option<Self> {
        Fmt::f16().round(x, mode, sat).map(|b| f16::from_bits(b as u16))
    }
}
impl Dst for bf16 {
    fn want(x: X, mode: RoundMode, sat: bool) -> Option<Self> {
        Fmt::bf16().round(x, mode, sat).map(|b| bf16::from_bits(b as u16))
    }
}
/// `f32` results: from a float source the only pair is `float → float`, which rounds to an
/// integral value (sign kept, NaN and inf unchanged); from integers, ordinary rounding.
impl Dst for f32 {
    fn want(x: X, mode: RoundMode, _sat: bool) -> Option<Self> {
        match x {
            // f16/bf16 sources widen exactly (f32 sources use `want_integral`).
            X::F(v) => Some(v as f32),
            _ => Fmt::f32().round(x, mode, false).map(f32::from_bits),
        }
    }
}

/// The reference for `float → float` (round to integral).
fn want_integral(x: f32, mode: RoundMode) -> Option<f32> {
    if x.is_nan() {
        return None;
    }
    if x.is_infinite() {
        return Some(x);
    }
    let r = round_int(x as f64, mode);
    Some(if r == 0.0 { 0f32.copysign(x) } else { r as f32 })
}

// ---- source patterns ------------------------------------------------------------------------

trait Patterns: Src {
    fn patterns() -> Vec<Self>;
}
macro_rules! all16 {
    ($($t:ty => $from:expr),*) => {$(impl Patterns for $t {
        fn patterns() -> Vec<Self> { (0..=u16::MAX).map($from).collect() }
    })*};
}
all16!(f16 => f16::from_bits, bf16 => bf16::from_bits, i16 => |b: u16| b as i16);
impl Patterns for u8 {
    fn patterns() -> Vec<Self> {
        (0..=255).collect()
    }
}
impl Patterns for i8 {
    fn patterns() -> Vec<Self> {
        (-128..=127).collect()
    }
}

const RANDOM: usize = 1 << 20;

impl Patterns for f32 {
    fn patterns() -> Vec<Self> {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut v: Vec<f32> = [
            0.0,
            -0.0,
            f32::from_bits(1),
            f32::from_bits(0x007F_FFFF),
            f32::MIN_POSITIVE,
            f32::MAX,
            f32::MIN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::from_bits(0x7F80_0001),
            f32::from_bits(0xFFC0_0001),
            65504.0,
            65519.0,
            65520.0,
            65536.0,
            2f32.powi(-24),
            2f32.powi(-25),
            3.0 * 2f32.powi(-26),
            2f32.powi(-14),
            2f32.powi(-133),
            2f32.powi(-134),
            0.5,
            1.5,
            2.5,
            127.5,
            128.5,
            255.5,
            256.0,
            -128.5,
            -129.0,
            32767.5,
            32768.0,
            -32768.5,
            -32769.0,
            2147483520.0,
            2147483648.0,
            -2147483648.0,
            -2147483904.0,
            9.223372e18,
            -9.223372e18,
            9.223373e18,
            3.3895314e38,
            16777216.0,
            16777218.0,
            8388608.5,
        ]
        .into_iter()
        .flat_map(|x: f32| [x, -x])
        .collect();
        let base: Vec<u32> = v.iter().map(|x| x.to_bits()).collect();
        for b in base {
            v.push(f32::from_bits(b.wrapping_add(1)));
            v.push(f32::from_bits(b.wrapping_sub(1)));
        }
        for i in 0..RANDOM {
            let r = rng.next() as u32;
            v.push(if i % 2 == 0 {
                f32::from_bits(r)
            } else {
                // Exponents around the 16-bit formats' and the integers' ranges.
                let exp = 97 + (r >> 23) % 72;
                f32::from_bits(r & 0x807F_FFFF | exp << 23)
            });
        }
        v
    }
}
impl Patterns for i32 {
    fn patterns() -> Vec<Self> {
        let mut rng = Rng(0xD1B5_4A32_D192_ED03);
        let mut v: Vec<i32> =
            vec![0, 1, -1, i32::MAX, i32::MIN, 32767, 32768, -32768, -32769, 65504, 65519, 65520];
        for k in [24, 25, 26, 30] {
            for d in [-3, -2, -1, 0, 1, 2, 3] {
                v.push((1i32 << k) + d);
                v.push(-(1i32 << k) - d);
            }
        }
        for i in 0..RANDOM {
            let r = rng.next() as i32;
            v.push(if i % 2 == 0 { r } else { r >> (r as u32 & 31) });
        }
        v
    }
}
impl Patterns for i64 {
    fn patterns() -> Vec<Self> {
        let mut rng = Rng(0x94D0_49BB_1331_11EB);
        let mut v: Vec<i64> = vec![0, 1, -1, i64::MAX, i64::MIN, i32::MAX as i64 + 1, i32::MIN as i64 - 1];
        for k in [24, 25, 40, 62, 63] {
            for d in [-3, -2, -1, 0, 1, 2, 3] {
                let p = if k == 63 { i64::MAX } else { 1i64 << k };
                v.push(p.wrapping_add(d));
                v.push(p.wrapping_add(d).wrapping_neg());
            }
        }
        v.push((1i64 << 40) + (1 << 16)); // a tie for f32 (24 bits)
        v.push(-((1i64 << 40) + (3 << 16)));
        for i in 0..RANDOM {
            let r = rng.next() as i64;
            v.push(if i % 2 == 0 { r } else { r >> (r as u32 & 63) });
        }
        v
    }
}

// ---- running the API ------------------------------------------------------------------------

const CHUNK: usize = 4096;

/// Casts `xs` through the count form in chunks; returns the results.
fn run_cast<D: CastFrom<S>, S: Element>(xs: &[S], mode: RoundMode) -> Vec<D> {
    let u = ub(CHUNK * 16);
    let (src, dst) = (u.t::<S>(0, CHUNK), u.t::<D>(CHUNK * 8, CHUNK));
    let mut out = Vec::with_capacity(xs.len());
    for c in xs.chunks(CHUNK) {
        let n = c.len();
        src.view_len(0, n).copy_from_slice(c);
        cast(&dst, &src, mode, n);
        out.extend_from_slice(&dst.to_vec()[..n]);
    }
    out
}

fn check<D: Dst, S: Src>(xs: &[S], got: &[D], want: impl Fn(S) -> Option<D>, ctx: &str) {
    let mut bad = 0;
    for (x, g) in xs.iter().zip(got) {
        let ok = match want(*x) {
            None => g.to_f64().is_nan(),
            Some(w) => w.to_bits_u64() == g.to_bits_u64(),
        };
        if !ok {
            bad += 1;
            assert!(bad < 5, "{ctx}: too many mismatches");
            eprintln!("{ctx}: {x:?} -> got {g:?} ({:#x}), want {:?}", g.to_bits_u64(), want(*x));
        }
    }
    assert_eq!(bad, 0, "{ctx}: mismatches");
}

fn soc_index(s: Soc) -> usize {
    Soc::ALL.iter().position(|x| *x == s).unwrap()
}

/// Every triple of one pair on every chip: the full pattern set once per (mode, overflow
/// mode; a quarter of the random patterns for the second one) on the chip where it is supported (Ascend910B first: both overflow modes), a 4096
/// pattern sample on every other chip that supports it, and the error on every chip that
/// does not.
fn every_triple<D: CastFrom<S> + Dst, S: Patterns>(integral: bool) {
    let xs = S::patterns();
    let sample: Vec<S> = xs.iter().copied().step_by(xs.len() / CHUNK + 1).collect();
    let second: Vec<S> = xs.iter().take(256).chain(xs.iter().skip(256).step_by(4)).copied().collect();
    let narrow16 = matches!(D::DTYPE, DType::F16 | DType::BF16);
    for mode in RoundMode::ALL {
        // `int32_t -> half` on Ascend910B and Ascend310P dequantises through the DEQSCALE
        // register instead (tests/vector_dequant.rs).
        let deq = |s: Soc| {
            S::DTYPE == DType::I32 && D::DTYPE == DType::F16 && matches!(s, Soc::Ascend910B | Soc::Ascend310P)
        };
        let chips: Vec<Soc> = [Soc::Ascend910B, Soc::Ascend310B, Soc::Ascend310P, Soc::Ascend910]
            .into_iter()
            .filter(|s| D::cast_supported(*s, mode) && !deq(*s))
            .collect();
        for (i, &soc) in chips.iter().enumerate() {
            let overflow: Vec<OverflowMode> = if narrow16 && soc.overflow_mode_settable() {
                vec![OverflowMode::InfNan, OverflowMode::Saturation]
            } else {
                vec![soc.default_overflow_mode()]
            };
            for (k, om) in overflow.into_iter().enumerate() {
                on(soc, || {
                    if soc.overflow_mode_settable() {
                        set_overflow_mode(om);
                    }
                    let sat = narrow16 && om == OverflowMode::Saturation;
                    // The second overflow mode of a 32-bit source: the boundary values and
                    // every 4th random pattern (2^18 of them), to keep the file fast.
                    let set = if i > 0 {
                        &sample
                    } else if k > 0 && xs.len() > 70_000 {
                        &second
                    } else {
                        &xs
                    };
                    let got = run_cast::<D, S>(set, mode);
                    let ctx = format!("{} -> {} {} on {soc} ({om:?})", S::DTYPE, D::DTYPE, mode.name());
                    if integral {
                        let w = |x: S| want_integral(x.to_f64() as f32, mode).map(|v| D::from_f64(v as f64));
                        check(set, &got, w, &ctx);
                    } else {
                        check(set, &got, |x: S| D::want(x.x(), mode, sat), &ctx);
                    }
                });
            }
        }
        for soc in Soc::ALL.into_iter().filter(|s| !D::cast_supported(*s, mode)) {
            on(soc, || {
                let u = ub(1024);
                let (src, dst) = (u.t::<S>(0, 16), u.t::<D>(512, 16));
                let triple = format!("{} -> {} with {}", S::DTYPE, D::DTYPE, mode.name());
                expect_panic(|| cast(&dst, &src, mode, 16), &["Cast", &triple, &format!("on {soc}")]);
            });
        }
    }
}

macro_rules! triples {
    ($($s:ident => $d:ident $(, $integral:literal)?);* $(;)?) => {$(
        paste::paste! {
            #[test]
            fn [<every_triple_ $s _to_ $d>]() {
                every_triple::<$d, $s>(false $(|| $integral)?);
            }
        }
    )*};
}

triples! {
    f16 => f32; f32 => f16; f32 => bf16; bf16 => f32; f32 => f32, true;
    f16 => i8; f16 => u8; f16 => i16; f16 => i32; bf16 => i32;
    f32 => i16; f32 => i32; f32 => i64;
    i8 => f16; u8 => f16; i16 => f16; i16 => f32; i32 => f32; i32 => f16; i64 => f32;
    i32 => i16; i32 => i64; i64 => i32;
}

/// The documented examples of the precision-conversion rules, by hand.
#[test]
fn vendor_examples() {
    let u = ub(4096);
    // half -> int32_t, the Cast page's example: [1.4, 1.5, 1.6, 2.4, 2.5, 2.6].
    let h = u.t::<f16>(0, 16);
    let d = u.t::<i32>(1024, 16);
    let vals = [1.4f32, 1.5, 1.6, 2.4, 2.5, 2.6, -1.5, 0.0];
    h.view_len(0, 8).copy_from_slice(&vals.map(f16::from_f32));
    let want: [(RoundMode, [i32; 8]); 5] = [
        (RoundMode::CastCeil, [2, 2, 2, 3, 3, 3, -1, 0]),
        (RoundMode::CastRint, [1, 2, 2, 2, 2, 3, -2, 0]),
        (RoundMode::CastFloor, [1, 1, 1, 2, 2, 2, -2, 0]),
        (RoundMode::CastRound, [1, 2, 2, 2, 3, 3, -2, 0]),
        (RoundMode::CastTrunc, [1, 1, 1, 2, 2, 2, -1, 0]),
    ];
    for (mode, w) in want {
        cast(&d, &h, mode, 8);
        assert_eq!(d.to_vec()[..8], w, "{mode}");
    }
    // float -> half: 0.5 + 2^-12 gives 0.5 (RINT, FLOOR, TRUNC) or 0.5 + 2^-11 (CEIL, ROUND, ODD).
    let x = u.t::<f32>(2048, 16);
    x.copy_from_slice(&[0.5 + 2f32.powi(-12); 16]);
    for (mode, w) in [
        (RoundMode::CastRint, 0.5),
        (RoundMode::CastFloor, 0.5),
        (RoundMode::CastTrunc, 0.5),
        (RoundMode::CastCeil, 0.5 + 2f32.powi(-11)),
        (RoundMode::CastRound, 0.5 + 2f32.powi(-11)),
        (RoundMode::CastOdd, 0.5 + 2f32.powi(-11)),
    ] {
        cast(&h, &x, mode, 16);
        assert_eq!(h.get_value(0).to_f32(), w, "{mode}");
    }
    // float -> int16_t: 2^22 + 0.5 saturates to 32767 in every mode.
    let s = u.t::<i16>(3072, 16);
    x.copy_from_slice(&[4194304.5; 16]);
    for mode in [RoundMode::CastRint, RoundMode::CastFloor, RoundMode::CastTrunc] {
        cast(&s, &x, mode, 16);
        assert_eq!(s.get_value(0), 32767);
    }
    // float -> float: 0.5 gives 0, 0, 1, 1, 0.
    x.copy_from_slice(&[0.5; 16]);
    for (mode, w) in [
        (RoundMode::CastRint, 0.0),
        (RoundMode::CastFloor, 0.0),
        (RoundMode::CastCeil, 1.0),
        (RoundMode::CastRound, 1.0),
        (RoundMode::CastTrunc, 0.0),
    ] {
        cast(&x, &x, mode, 16);
        assert_eq!(x.get_value(0), w, "{mode}");
        x.copy_from_slice(&[0.5; 16]);
    }
}

#[test]
fn f32_to_f16_overflow_follows_the_overflow_mode() {
    let u = ub(1024);
    let (x, h) = (u.t::<f32>(0, 64), u.t::<f16>(512, 64));
    let mut v = [70000.0f32; 64];
    v[1] = f32::NAN;
    v[2] = f32::NEG_INFINITY;
    x.copy_from_slice(&v);
    cast(&h, &x, RoundMode::CastRint, 64);
    assert!(h.get_value(0).is_infinite() && h.get_value(1).is_nan() && h.get_value(2) == f16::NEG_INFINITY);
    cast(&h, &x, RoundMode::CastTrunc, 64);
    assert_eq!(h.get_value(0), f16::MAX, "round towards zero never overflows to inf");
    set_overflow_mode(OverflowMode::Saturation);
    cast(&h, &x, RoundMode::CastRint, 64);
    assert_eq!((h.get_value(0), h.get_value(1), h.get_value(2)), (f16::MAX, f16::ZERO, f16::MIN));
    on(Soc::Ascend910, || {
        let u = ub(1024);
        let (x, h) = (u.t::<f32>(0, 64), u.t::<f16>(512, 64));
        x.copy_from_slice(&v);
        cast(&h, &x, RoundMode::CastNone, 64);
        assert_eq!((h.get_value(0), h.get_value(1)), (f16::MAX, f16::ZERO), "Ascend910 saturates");
    });
}

// ---- the mask / strided form -----------------------------------------------------------------

const REGION: usize = 8192;

/// One random call of the mask / strided form: strides, repeats, the mask (a prefix, called
/// through the continuous form, or random bits) and the seed of the data; shrinks towards one
/// repeat, the shortest prefix, zero strides.
#[derive(Clone, Debug)]
struct MaskedCase {
    /// dst block, src block, dst repeat, src repeat stride.
    strides: (u16, u16, u8, u8),
    repeats: usize,
    bits: [u64; 2],
    data_seed: u64,
}

fn masked_case(par: usize) -> impl Strategy<Value = MaskedCase> {
    (
        (0..=3u16, 1..=3u16, 0..12u8, 0..12u8),
        1..=5usize,
        prop_oneof![strat::prefix_mask(par), strat::bits_mask_par(par)],
        any::<u64>(),
    )
        .prop_map(|(strides, repeats, bits, data_seed)| MaskedCase { strides, repeats, bits, data_seed })
}

/// `cases` random calls of `cast::<D, S>` against the lane-by-lane reference.
fn random_masked<D: CastFrom<S> + Dst, S: Src>(cases: u32, mode: RoundMode, draw: impl Fn(&mut Rng) -> S) {
    let par = 256 / D::SIZE.max(S::SIZE);
    strat::check_cases(cases, 0x1234_5678_9ABC_DEF1, masked_case(par), |c| {
        random_masked_case::<D, S>(c, mode, &draw)
    });
}

fn random_masked_case<D: CastFrom<S> + Dst, S: Src>(
    c: &MaskedCase,
    mode: RoundMode,
    draw: impl Fn(&mut Rng) -> S,
) {
    let rng = &mut Rng(c.data_seed);
    let wide = D::SIZE.max(S::SIZE);
    let par = 256 / wide;
    let u = ub(2 * REGION);
    let (src, dst) = (u.t::<S>(0, REGION / S::SIZE), u.t::<D>(REGION, REGION / D::SIZE));
    let sv: Vec<S> = (0..src.get_size()).map(|_| draw(rng)).collect();
    let dv: Vec<D> = (0..dst.get_size()).map(|_| D::from_f64((rng.below(100) as f64) - 50.0)).collect();
    src.copy_from_slice(&sv);
    dst.copy_from_slice(&dv);
    let p = UnaryRepeatParams::new(c.strides.0, c.strides.1, c.strides.2, c.strides.3);
    let (repeats, bits) = (c.repeats, c.bits);
    // The reference: lane j of repeat r, each operand with its own EPB and strides.
    let at = |size: usize, blk: usize, rep: usize, r: usize, j: usize| {
        let epb = 32 / size;
        (r * rep + (j / epb) * blk) * epb + j % epb
    };
    let mut want = dv.clone();
    let mut fits = true;
    for r in 0..repeats {
        for j in 0..par {
            if bits[j / 64] >> (j % 64) & 1 == 1 {
                let (si, di) = (
                    at(S::SIZE, p.src_blk_stride as usize, p.src_rep_stride as usize, r, j),
                    at(D::SIZE, p.dst_blk_stride as usize, p.dst_rep_stride as usize, r, j),
                );
                if si >= sv.len() || di >= want.len() {
                    fits = false;
                } else {
                    let w = if S::DTYPE == DType::F32 && D::DTYPE == DType::F32 {
                        want_integral(sv[si].to_f64() as f32, mode).map(|v| D::from_f64(v as f64))
                    } else {
                        D::want(sv[si].x(), mode, false)
                    };
                    want[di] = w.unwrap_or(D::from_f64(f64::NAN));
                }
            }
        }
    }
    let ctx = format!("{} -> {} {mode} {p:?} x{repeats} {bits:x?}", S::DTYPE, D::DTYPE);
    let call = || {
        if rng_mask_form(bits, par) {
            let n = (bits[0].count_ones() + bits[1].count_ones()) as u64;
            cast_masked::<D, S, true>(&dst, &src, mode, n, repeats as u8, &p)
        } else {
            cast_masked::<D, S, true>(&dst, &src, mode, bits, repeats as u8, &p)
        }
    };
    if !fits {
        expect_panic(call, &["Cast", "would touch element"]);
        return;
    }
    call();
    let got = dst.to_vec();
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        let same = g.to_bits_u64() == w.to_bits_u64() || (g.to_f64().is_nan() && w.to_f64().is_nan());
        assert!(same, "{ctx}: element {i}: got {g:?}, want {w:?}");
    }
}

/// Whether a bit mask is a prefix (then the continuous form is used for it).
fn rng_mask_form(bits: [u64; 2], _par: usize) -> bool {
    let n = (bits[0].count_ones() + bits[1].count_ones()) as usize;
    let ones = |k: usize| if k >= 64 { u64::MAX } else { (1u64 << k) - 1 };
    bits == [ones(n), ones(n.saturating_sub(64))]
}

#[test]
fn masked_strided_random() {
    let fh = |r: &mut Rng| f16::from_f32((r.below(4001) as f32 - 2000.0) / 16.0);
    let ff = |r: &mut Rng| (r.below(400001) as f32 - 200000.0) / 64.0;
    const CASES: u32 = 150;
    random_masked::<f32, f16>(CASES, RoundMode::CastNone, fh);
    random_masked::<f16, f32>(CASES, RoundMode::CastRint, ff);
    random_masked::<i32, f32>(CASES, RoundMode::CastFloor, ff);
    random_masked::<f16, i8>(CASES, RoundMode::CastNone, |r| r.next() as i8);
    random_masked::<u8, f16>(CASES, RoundMode::CastRound, fh);
    random_masked::<i64, i32>(CASES, RoundMode::CastNone, |r| r.next() as i32);
    random_masked::<f32, i64>(CASES, RoundMode::CastTrunc, |r| r.next() as i64);
    random_masked::<f32, f32>(CASES, RoundMode::CastCeil, ff);
}

#[test]
fn masked_full_contiguous_equals_count_form() {
    let u = ub(8192);
    let (h, x, y) = (u.t::<f16>(0, 1024), u.t::<f32>(2048, 1024), u.t::<f32>(6144, 512));
    let v: Vec<f16> = (0..1024).map(|i| f16::from_f32(i as f32 * 0.37 - 100.0)).collect();
    h.copy_from_slice(&v);
    cast(&x, &h, RoundMode::CastNone, 1024);
    cast_masked::<f32, f16, true>(&y, &h, RoundMode::CastNone, 64u64, 8, &UnaryRepeatParams::new(1, 1, 8, 4));
    assert_eq!(x.to_vec()[..512], y.to_vec()[..]);
    // Counter mode: the mask is the element count, across repeats.
    y.copy_from_slice(&[0.0; 512]);
    set_mask_count();
    cast_masked::<f32, f16, true>(
        &y,
        &h,
        RoundMode::CastNone,
        100u64,
        1,
        &UnaryRepeatParams::new(1, 1, 8, 4),
    );
    set_mask_norm();
    assert_eq!(x.to_vec()[..100], y.to_vec()[..100]);
    assert!(y.to_vec()[100..].iter().all(|&v| v == 0.0));
}

#[test]
fn checks_and_errors() {
    let u = ub(4096);
    let (h, x) = (u.t::<f16>(0, 128), u.t::<f32>(256, 128));
    expect_panic(|| cast(&x, &h, RoundMode::CastNone, 200), &["Cast", "count = 200", "128"]);
    // Widening in place (the Cast page's warning), or any other overlap of different sizes, is
    // an error.
    let x0 = u.t::<f32>(0, 64);
    expect_panic(|| cast(&x0, &h, RoundMode::CastNone, 64), &["Cast", "overlap"]);
    // The mask counts lanes of the wider type: 64 for f16 -> f32.
    expect_panic(
        || {
            cast_masked::<f32, f16, true>(
                &x,
                &h,
                RoundMode::CastNone,
                128u64,
                1,
                &UnaryRepeatParams::new(1, 1, 8, 4),
            )
        },
        &["Cast", "mask = 128", "[1, 64]"],
    );
    // In place with the same size is allowed.
    let i = u.t::<i32>(1024, 64);
    let f = u.t::<f32>(1024, 64);
    f.copy_from_slice(&[2.5; 64]);
    cast(&i, &f, RoundMode::CastFloor, 64);
    assert_eq!(i.get_value(63), 2);
    // Zero count / zero repeats do nothing.
    cast(&x, &h, RoundMode::CastNone, 0);
    cast_masked::<f32, f16, true>(&x, &h, RoundMode::CastNone, 64u64, 0, &UnaryRepeatParams::new(1, 1, 8, 4));
    let _ = soc_index(Soc::Ascend910B);
}

/// `IS_SET_MASK = false` takes the mask register (lanes of the wider type).
#[test]
fn mask_register_form() {
    let u = ub(4096);
    let (h, x) = (u.t::<f16>(0, 128), u.t::<f32>(1024, 128));
    h.copy_from_slice(&(0..128).map(|i| f16::from_f32(i as f32)).collect::<Vec<_>>());
    x.copy_from_slice(&[-1.0; 128]);
    set_vector_mask::<f32>([0xF0, 0]);
    cast_masked::<f32, f16, false>(
        &x,
        &h,
        RoundMode::CastNone,
        MASK_PLACEHOLDER,
        2,
        &UnaryRepeatParams::new(1, 1, 8, 4),
    );
    let got = x.to_vec();
    for (i, v) in got.iter().enumerate() {
        let on = (4..8).contains(&(i % 64));
        assert_eq!(*v, if on { i as f32 } else { -1.0 }, "element {i}");
    }
}

/// In place with a block stride of 0: every block of a repeat aliases one block, and the
/// repeat reads all its lanes before writing (a same-size `float -> int32_t` would otherwise
/// read back its own integer bits).
#[test]
fn in_place_block_stride_zero_reads_before_writing() {
    let u = ub(1024);
    let (f, i) = (u.t::<f32>(0, 64), u.t::<i32>(0, 64));
    f.copy_from_slice(&(0..64).map(|k| k as f32 + 0.5).collect::<Vec<_>>());
    cast_masked::<i32, f32, true>(
        &i,
        &f,
        RoundMode::CastFloor,
        64u64,
        1,
        &UnaryRepeatParams::new(0, 0, 8, 8),
    );
    assert_eq!(i.to_vec()[..8], [0, 1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(i.get_value(8).to_ne_bytes(), 8.5f32.to_ne_bytes(), "only block 0 is touched");
}

/// Narrowing in place (`dst` at `src`'s address, the narrower type), as the vendor's
/// `AscendQuant` casts its `float` scales to `half`: each repeat reads before it writes, so the
/// result is the out-of-place one. A layout where a repeat writes a block a later repeat reads
/// is an error.
#[test]
fn narrowing_in_place_equals_out_of_place() {
    on(Soc::Ascend910B, || {
        let u = ub(8192);
        let mut rng = Rng(17);
        let v: Vec<f32> = (0..512).map(|_| (rng.below(1 << 20) as f32 - 524288.0) / 1000.0).collect();
        let (x, want) = (u.t::<f32>(0, 512), u.t::<f16>(4096, 512));
        // count form, with a tail
        x.copy_from_slice(&v);
        cast(&want, &x, RoundMode::CastRound, 300);
        cast(&x.reinterpret_cast::<f16>(), &x, RoundMode::CastRound, 300);
        util::assert_bits(&x.reinterpret_cast::<f16>().to_vec()[..300], &want.to_vec()[..300]);
        // high-dimensional, contiguous: dst 4 blocks a repeat, src 8
        x.copy_from_slice(&v);
        let p = UnaryRepeatParams::new(1, 1, 4, 8);
        cast_masked::<f16, f32, true>(&want, &x, RoundMode::CastFloor, 64u64, 8, &p);
        cast_masked::<f16, f32, true>(&x.reinterpret_cast::<f16>(), &x, RoundMode::CastFloor, 64u64, 8, &p);
        util::assert_bits(&x.reinterpret_cast::<f16>().to_vec()[..512], &want.to_vec()[..512]);
        // dst blocks 2 apart and 16 a repeat: repeat 1 writes block 16, which repeat 2 reads
        x.copy_from_slice(&v);
        let ahead = UnaryRepeatParams::new(2, 1, 16, 8);
        expect_panic(
            || cast_masked::<f16, f32, true>(&x.reinterpret_cast::<f16>(), &x, RoundMode::CastFloor, 64u64, 3, &ahead),
            &["Cast: dst (address 0x0) narrows src in place, but repeat 1 writes block 16 of it, which repeat 2 reads"],
        );
    });
}
