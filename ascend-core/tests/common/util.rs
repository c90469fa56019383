//! Helpers shared by the integration tests: a seeded PRNG (`rand`), panic-message checks, UB tensor setup,
//! element vector builders and bitwise comparison. Each test file includes this module with
//! `#[path = "common/util.rs"] mod util;` and uses the subset it needs.
#![allow(dead_code)]

use ascend_core::prelude::*;
use std::fmt::Display;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

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

/// Runs `f`, which must panic (a failed check), and returns the panic message.
#[track_caller]
pub fn panic_message(f: impl FnOnce()) -> String {
    let err = catch_unwind(AssertUnwindSafe(f)).expect_err("the call should have failed");
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
pub fn on(soc: Soc, f: impl FnOnce()) {
    run_on_core(CoreConfig::single(soc), f)
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
