//! Helpers shared by the integration tests: a seeded PRNG (`rand`), panic-message checks, UB tensor setup,
//! element vector builders and bitwise comparison. A test file takes it with
//! `use crate::common::util;` and uses the subset it needs.
#![allow(dead_code)]

use ascend_core::prelude::*;
use std::cell::Cell;
use std::fmt::Display;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Once};

// ---- PRNG ----------------------------------------------------------------------------------

/// A small deterministic generator: `rand`'s `SmallRng` seeded from a `u64`, so every run of a
/// test draws the same cases. Make one with `Rng(seed)`.
pub struct Rng {
    inner: rand::rngs::SmallRng,
}

/// A generator seeded with `seed` (the same seed, the same sequence).
#[allow(non_snake_case)]
pub fn Rng(seed: u64) -> Rng {
    use rand::SeedableRng;
    Rng { inner: rand::rngs::SmallRng::seed_from_u64(seed) }
}

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        rand::RngCore::next_u64(&mut self.inner)
    }

    /// A value in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        rand::Rng::random_range(&mut self.inner, 0..n)
    }

    /// An index in `0..n` (`n > 0`).
    pub fn index(&mut self, n: usize) -> usize {
        rand::Rng::random_range(&mut self.inner, 0..n)
    }

    /// A value in `lo..=hi_incl`.
    pub fn range(&mut self, lo: u64, hi_incl: u64) -> u64 {
        rand::Rng::random_range(&mut self.inner, lo..=hi_incl)
    }

    /// True once in `one_in` draws on average.
    pub fn chance(&mut self, one_in: u64) -> bool {
        self.below(one_in) == 0
    }

    /// `n` random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut v = vec![0u8; n];
        rand::RngCore::fill_bytes(&mut self.inner, &mut v);
        v
    }
}

// ---- panics --------------------------------------------------------------------------------

thread_local! {
    /// Whether this thread is running a call whose panic a test expects.
    static EXPECTING: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` and catches its panic, keeping the report of that expected panic off stderr: a
/// panic hook, installed once, skips the report (and its backtrace, which under
/// `RUST_BACKTRACE=1` costs milliseconds to symbolise) while the panicking thread is inside
/// this call; every other panic goes to the previous hook unchanged.
pub fn catch_quiet<R>(f: impl FnOnce() -> R) -> std::thread::Result<R> {
    static QUIET: Once = Once::new();
    QUIET.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !EXPECTING.try_with(Cell::get).unwrap_or(false) {
                previous(info);
            }
        }));
    });
    let was = EXPECTING.with(|e| e.replace(true));
    let r = catch_unwind(AssertUnwindSafe(f));
    EXPECTING.with(|e| e.set(was));
    r
}

/// Runs `f`, which must panic (a failed check), and returns the panic message.
#[track_caller]
pub fn panic_message(f: impl FnOnce()) -> String {
    let err = catch_quiet(f).expect_err("the call should have failed");
    match err.downcast::<String>() {
        Ok(s) => *s,
        Err(e) => e.downcast_ref::<&str>().map(|s| s.to_string()).unwrap_or_default(),
    }
}

/// Runs `f`, which must panic with a message containing every one of `needles`; returns the
/// message for further checks.
#[track_caller]
pub fn expect_panic(f: impl FnOnce(), needles: &[&str]) -> String {
    let msg = panic_message(f);
    for n in needles {
        assert!(msg.contains(n), "message {msg:?} does not contain {n:?}");
    }
    msg
}

/// Runs `f`, which must panic with a message containing `expected`.
#[track_caller]
pub fn assert_fails(expected: &str, f: impl FnOnce()) {
    expect_panic(f, &[expected]);
}

// ---- cores and tensors ---------------------------------------------------------------------

/// Runs `f` on a single core of `soc`.
pub fn on<R>(soc: Soc, f: impl FnOnce() -> R) -> R {
    run_on_core(CoreConfig::single(soc), f)
}

/// Runs `f` as core `cfg`; it must fail: returns the fault it recorded.
#[track_caller]
pub fn fault_on(cfg: CoreConfig, f: impl FnOnce()) -> ascend_core::Fault {
    let soc = cfg.soc;
    let r = catch_quiet(|| run_on_core(cfg, f));
    assert!(r.is_err(), "expected a failure on {soc}");
    ascend_core::take_last_fault().expect("a recorded fault")
}

/// Runs `f` on a fresh single core of `soc`; it must fail: returns the fault it recorded.
#[track_caller]
pub fn fault(soc: Soc, f: impl FnOnce()) -> ascend_core::Fault {
    fault_on(CoreConfig::single(soc), f)
}

/// A VECCALC tensor of exactly `n` elements of `T` in a fresh buffer of `pipe` (the caller
/// keeps `pipe` alive as long as the tensor is used).
pub fn tensor<T: Element>(pipe: &mut TPipe, n: usize) -> LocalTensor<T> {
    let mut b = TBuf::<VecCalc>::new();
    pipe.init_tbuf(&mut b, n * T::SIZE);
    b.get_with_len::<T>(n)
}

/// A new pipe (the core's one TPipe: keep it alive while the tensors are used) and `N` VECCALC
/// tensors of `n` elements of `T` in their own buffers of it; more come from [`tensor`].
pub fn tensors<T: Element, const N: usize>(n: usize) -> (TPipe, [LocalTensor<T>; N]) {
    let mut pipe = TPipe::new();
    let t = [0; N].map(|_| tensor::<T>(&mut pipe, n));
    (pipe, t)
}

/// A pipe (the core's one TPipe, kept alive here) with one VECCALC buffer; tensors of any
/// type are carved from it at byte offsets with [`Ub::t`].
pub struct Ub {
    _pipe: TPipe,
    buf: TBuf<VecCalc>,
}

/// A [`Ub`] of `bytes` bytes.
pub fn ub(bytes: usize) -> Ub {
    let mut pipe = TPipe::new();
    let mut buf = TBuf::<VecCalc>::new();
    pipe.init_tbuf(&mut buf, bytes);
    Ub { _pipe: pipe, buf }
}

impl Ub {
    /// A tensor of `len` elements of `T` at byte offset `off`.
    pub fn t<T: Element>(&self, off: usize, len: usize) -> LocalTensor<T> {
        self.buf.get_with_offset::<T>(len, off)
    }
}

/// Global memory holding `data`, and a `GlobalTensor` bound to all of it (keep the region).
pub fn gm<T: Element + bytemuck::Pod>(data: &[T]) -> (Arc<GmRegion>, GlobalTensor<T>) {
    let region = GmRegion::from_bytes(bytemuck::cast_slice(data));
    let mut g = GlobalTensor::<T>::new();
    g.set_global_buffer(region.addr(), data.len());
    (region, g)
}

// ---- element vectors -----------------------------------------------------------------------

/// A float element type with the exact widening to `f32` and the round-to-nearest-even
/// narrowing a scalar reference needs (`half` and `float`).
pub trait Fp: Element + std::fmt::Debug {
    /// The value as `f32` (exact).
    fn to32(self) -> f32;
    /// `x` rounded to this type, to nearest-even.
    fn from32(x: f32) -> Self;
}

impl Fp for f32 {
    fn to32(self) -> f32 {
        self
    }
    fn from32(x: f32) -> f32 {
        x
    }
}

impl Fp for f16 {
    fn to32(self) -> f32 {
        self.to_f32()
    }
    fn from32(x: f32) -> f16 {
        f16::from_f32(x)
    }
}

/// `x` rounded to f16.
pub fn h(x: f32) -> f16 {
    f16::from_f32(x)
}

/// Each value converted (rounded once) to `T`.
pub fn vals<T: Element, V: Into<f64>>(v: impl IntoIterator<Item = V>) -> Vec<T> {
    v.into_iter().map(|x| T::from_f64(x.into())).collect()
}

/// Each value converted to f16.
pub fn halfs<V: Into<f64>>(v: impl IntoIterator<Item = V>) -> Vec<f16> {
    vals::<f16, V>(v)
}

/// Each value converted to `T` (for `&[f32]` tables such as the seed data).
pub fn conv<T: Element>(v: &[f32]) -> Vec<T> {
    vals::<T, f32>(v.iter().copied())
}

// ---- bitwise comparison --------------------------------------------------------------------

/// The bit patterns of `v`.
pub fn bits<T: Element>(v: &[T]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits_u64()).collect()
}

/// `got` and `want` are equal bit for bit; on failure names the first differing element, its
/// values and bits, how many differ, and `ctx`.
#[track_caller]
pub fn assert_bits_ctx<T: Element>(got: &[T], want: &[T], ctx: impl Display) {
    assert_eq!(got.len(), want.len(), "length differs; {ctx}");
    let mut diff = got.iter().zip(want).enumerate().filter(|(_, (g, w))| g.to_bits_u64() != w.to_bits_u64());
    if let Some((i, (g, w))) = diff.next() {
        let more = diff.count();
        panic!(
            "element {i}: got {g} ({:#x}), want {w} ({:#x}); {more} more elements differ; {ctx}",
            g.to_bits_u64(),
            w.to_bits_u64()
        );
    }
}

/// `got` and `want` are equal bit for bit (see [`assert_bits_ctx`]).
#[track_caller]
pub fn assert_bits<T: Element>(got: &[T], want: &[T]) {
    assert_bits_ctx(got, want, "");
}

// ---- masks ---------------------------------------------------------------------------------

/// The bits enabling lanes `0..n` (`n <= 128`).
pub fn prefix_bits(n: usize) -> [u64; 2] {
    let ones = |k: usize| if k >= 64 { u64::MAX } else { (1u64 << k) - 1 };
    [ones(n), ones(n.saturating_sub(64))]
}

/// The lanes a normal-mode mask enables, as bits (a count `n` enables lanes `0..n`).
pub fn mask_bits(m: Mask) -> [u64; 2] {
    match m {
        Mask::Count(n) => prefix_bits(n as usize),
        Mask::Bits(b) => b,
    }
}

/// Whether lane `j` of the bit mask `m` is enabled.
pub fn on_bit(m: [u64; 2], j: usize) -> bool {
    m[j / 64] >> (j % 64) & 1 == 1
}

/// A random mask fitted to `T` (drawn by `strat::count_or_bits`): `Ok(n)` enables `1 + n % PAR`
/// lanes; `Err([lo, hi])` is a bit mask with lane 0 on and the high word only where `T` has
/// more than 64 lanes (types narrower than 4 bytes).
pub fn fit_mask<T: Element>(raw: Result<u64, [u64; 2]>) -> Mask {
    match raw {
        Ok(n) => Mask::Count(1 + n % T::PAR as u64),
        Err([lo, hi]) => Mask::Bits([lo | 1, if T::SIZE >= 4 { 0 } else { hi }]),
    }
}

// ---- reference arithmetic ------------------------------------------------------------------

/// `a + b` rounded to `T`, with f16 saturation when `sat` (±inf → ±65504, NaN → 0).
pub fn add_sat<T: Element>(a: T, b: T, sat: bool) -> T {
    let s = T::add(a, b);
    if sat && T::DTYPE == DType::F16 && s.to_f64().is_infinite() {
        T::from_f64(65504.0f64.copysign(s.to_f64()))
    } else if sat && T::DTYPE == DType::F16 && s.to_f64().is_nan() {
        T::ZERO
    } else {
        s
    }
}

/// The pairwise tree sum: neighbours added level by level ([`add_sat`]), an odd last value
/// carried up.
pub fn tree<T: Element>(mut v: Vec<T>, sat: bool) -> T {
    while v.len() > 1 {
        v = v.chunks(2).map(|c| if c.len() == 2 { add_sat(c[0], c[1], sat) } else { c[0] }).collect();
    }
    v[0]
}

/// The in-order sum `((v0 + v1) + v2) + …` ([`add_sat`]).
pub fn in_order<T: Element>(v: &[T], sat: bool) -> T {
    v[1..].iter().fold(v[0], |s, &x| add_sat(s, x, sat))
}

// ---- the addressing model, for scalar references -------------------------------------------

/// The element of lane `j` of repeat `r` of an operand of `T` with block stride `blk` and
/// repeat stride `rep` (in blocks).
pub fn lane_offset<T: Element>(r: usize, j: usize, blk: usize, rep: usize) -> usize {
    (r * rep + (j / T::EPB) * blk) * T::EPB + j % T::EPB
}

/// The lanes of each repeat a random case enables (`par` lanes a repeat): in counter mode
/// `mask` elements in whole repeats and a tail, else `mask` in each of `repeat` repeats.
pub fn case_lanes(mask: Mask, counter: bool, repeat: u8, par: usize) -> Vec<Vec<usize>> {
    match mask {
        Mask::Count(n) if counter => {
            let n = n as usize;
            (0..n.div_ceil(par)).map(|k| (0..par.min(n - k * par)).collect()).collect()
        }
        Mask::Count(n) => vec![(0..n as usize).collect(); repeat as usize],
        Mask::Bits(b) => vec![(0..par).filter(|&j| on_bit(b, j)).collect(); repeat as usize],
    }
}

/// Puts the core in the case's mask mode (counter mode when `counter`) and returns the mask
/// argument: `mask` itself with `IS_SET_MASK = set`, else the placeholder after loading `mask`
/// into the register.
pub fn enter_mask_mode<T: Element>(mask: Mask, counter: bool, set: bool) -> Mask {
    if counter {
        set_mask_count();
    }
    if set {
        mask
    } else {
        set_vector_mask::<T>(mask);
        Mask::Count(MASK_PLACEHOLDER)
    }
}

/// `f32 → f16` rounded to nearest, ties away from zero (`CAST_ROUND`), for finite values in
/// half's range.
pub fn f16_round_away(x: f32) -> f16 {
    let h = f16::from_f32(x);
    let d = x as f64 - h.to_f64();
    if d == 0.0 {
        return h;
    }
    // The neighbour of `h` on `x`'s side.
    let up = (d > 0.0) != h.is_sign_negative();
    let n = if h.to_bits() & 0x7FFF == 0 && !up {
        f16::from_bits((h.to_bits() ^ 0x8000) + 1)
    } else if up {
        f16::from_bits(h.to_bits() + 1)
    } else {
        f16::from_bits(h.to_bits() - 1)
    };
    let dn = x as f64 - n.to_f64();
    if dn.abs() == d.abs() && n.to_f64().abs() > h.to_f64().abs() {
        n
    } else {
        h
    }
}

/// The byte an advanced-function test fills its scratch with before the call, to tell the
/// bytes the function wrote.
pub const SENTINEL: u8 = 0xA5;

/// The Unified Buffer of an advanced-function test: `src` and `dst` of `cap` elements each
/// (32-byte aligned), then a scratch of `tmp_bytes` bytes filled with [`SENTINEL`].
pub struct AdvIo<T: Element> {
    pub src: LocalTensor<T>,
    pub dst: LocalTensor<T>,
    pub tmp: LocalTensor<u8>,
    _ub: Ub,
}

/// Lays out an [`AdvIo`].
pub fn adv_io<T: Element>(cap: usize, tmp_bytes: usize) -> AdvIo<T> {
    let region = (cap * T::SIZE).div_ceil(32) * 32;
    let u = ub(2 * region + tmp_bytes.div_ceil(32).max(1) * 32);
    let (src, dst) = (u.t::<T>(0, cap), u.t::<T>(region, cap));
    let tmp = u.t::<u8>(2 * region, tmp_bytes);
    tmp.copy_from_slice(&vec![SENTINEL; tmp_bytes]);
    AdvIo { src, dst, tmp, _ub: u }
}
