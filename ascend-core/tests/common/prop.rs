//! `proptest` helpers shared by the property tests: a seeded, reproducible configuration
//! (no regression files) and strategies for the parameters every vector call has (chip, bit
//! masks). Each strategy shrinks towards the simplest value, so a failure prints a minimal
//! counterexample. Use with `use crate::common::prop as strat;`.
#![allow(dead_code)]

use ascend_core::prelude::*;
use proptest::prelude::*;
use proptest::test_runner::{RngSeed, TestRunner};
use std::fmt::Debug;

/// `cases` cases drawn from the fixed `seed` (every run draws the same cases); no failure
/// persistence files.
pub fn config(cases: u32, seed: u64) -> ProptestConfig {
    ProptestConfig {
        cases,
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Runs `check` (which panics on a failure) over `cases` values of `strategy` drawn from
/// `seed`; on a failure, panics with the shrunk, minimal failing value.
#[track_caller]
pub fn check_cases<S: Strategy>(cases: u32, seed: u64, strategy: S, check: impl Fn(&S::Value))
where
    S::Value: Debug,
{
    let mut runner = TestRunner::new(config(cases, seed));
    if let Err(e) = runner.run(&strategy, |v| {
        check(&v);
        Ok(())
    }) {
        panic!("{e}");
    }
}

/// One of `socs` (shrinks towards the first).
pub fn soc_of(socs: Vec<Soc>) -> impl Strategy<Value = Soc> {
    prop::sample::select(socs)
}

/// The chips on which `supported` holds.
pub fn socs_where(supported: impl Fn(Soc) -> bool) -> Vec<Soc> {
    Soc::ALL.into_iter().filter(|&s| supported(s)).collect()
}

/// One 64-bit word of a bit mask: full, dense random, or sparse random (the AND of two).
pub fn mask_word() -> impl Strategy<Value = u64> {
    prop_oneof![Just(u64::MAX), (any::<u64>(), any::<u64>()).prop_map(|(a, b)| a & b), any::<u64>()]
}

/// One 64-bit word of a bit mask with its edge shapes too: full, a run from bit 0, a single
/// bit, dense random, or sparse random (the AND of two or of three).
pub fn mask_word_edges() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(u64::MAX),
        (0..64u32).prop_map(|s| u64::MAX >> s),
        (0..64u32).prop_map(|s| 1u64 << s),
        any::<u64>(),
        (any::<u64>(), any::<u64>()).prop_map(|(a, b)| a & b),
        (any::<u64>(), any::<u64>(), any::<u64>()).prop_map(|(a, b, c)| a & b & c),
    ]
}

/// A bit mask of `T`: see [`bits_mask_par`] with `T::PAR` lanes.
pub fn bits_mask<T: Element>() -> impl Strategy<Value = [u64; 2]> {
    bits_mask_par(T::PAR)
}

/// A bit mask of `par` lanes (at most 128): the low word from [`mask_word`] cut to `par`
/// lanes, the high word random where `par > 64` (else 0); never all zero.
pub fn bits_mask_par(par: usize) -> impl Strategy<Value = [u64; 2]> {
    (mask_word(), any::<u64>()).prop_filter_map("an all-zero mask", move |(lo, hi)| {
        let hi = if par > 64 { hi } else { 0 };
        let lo = if par < 64 { lo & ((1 << par) - 1) } else { lo };
        (lo | hi != 0).then_some([lo, hi])
    })
}

/// A continuous mask of `1..=par` lanes, as the equivalent bit mask (a prefix of ones).
pub fn prefix_mask(par: usize) -> impl Strategy<Value = [u64; 2]> {
    (1..=par).prop_map(|n| {
        let ones = |k: usize| if k >= 64 { u64::MAX } else { (1u64 << k) - 1 };
        [ones(n), ones(n.saturating_sub(64))]
    })
}

/// A mask before it is fitted to a type by `util::fit_mask`: `Ok` a count, `Err` two words of
/// bits (any values).
pub fn count_or_bits() -> impl Strategy<Value = Result<u64, [u64; 2]>> {
    prop_oneof![any::<u64>().prop_map(Ok), any::<[u64; 2]>().prop_map(Err)]
}

/// One random call of a two-source instruction with the full addressing model (the compound
/// and dequantisation tests). Every field shrinks towards the simplest case.
#[derive(Clone, Debug)]
pub struct Case {
    pub soc: Soc,
    pub counter: bool,
    pub set: bool,
    pub mask: Mask,
    pub repeat: u8,
    /// dst block stride and the extra dst repeat stride (ranges per test).
    pub dst: (u8, u8),
    /// Source block strides (0..=3) and repeat strides (0..=20).
    pub sblk: [u8; 2],
    pub srep: [u8; 2],
    /// Both sources one tensor (same strides).
    pub shared: bool,
    /// Saturation mode where the chip can choose.
    pub sat_pick: bool,
    pub count_pick: u64,
    pub data_seed: u64,
}

/// [`Case`]s on `socs` for `par` lanes per repeat, the dst block stride in `dst_blk` and the
/// extra dst repeat stride in `dst_rep`.
pub fn case(
    socs: Vec<Soc>,
    par: usize,
    dst_blk: std::ops::RangeInclusive<u8>,
    dst_rep: std::ops::RangeInclusive<u8>,
) -> impl Strategy<Value = Case> {
    let p = par as u64;
    let mask = prop_oneof![
        1 => ((1..=5 * p), 0..=9u8).prop_map(|(n, rep)| (true, Mask::Count(n), rep)),
        2 => ((1..=p), 0..=5u8).prop_map(|(n, rep)| (false, Mask::Count(n), rep)),
        2 => (bits_mask_par(par), 0..=5u8).prop_map(|(b, rep)| (false, Mask::Bits(b), rep)),
    ];
    (
        (soc_of(socs), mask, prop::bool::weighted(0.75), prop::bool::weighted(0.2)),
        ((dst_blk, dst_rep), [0..=3u8, 0..=3u8], [0..=20u8, 0..=20u8]),
        (any::<bool>(), any::<u64>(), any::<u64>()),
    )
        .prop_map(
            |(
                (soc, (counter, mask, repeat), set, shared),
                (dst, sblk, srep),
                (sat_pick, count_pick, data_seed),
            )| Case {
                soc,
                counter,
                set,
                mask,
                repeat,
                dst,
                sblk,
                srep,
                shared,
                sat_pick,
                count_pick,
                data_seed,
            },
        )
}

/// The same bits, or both NaN.
pub fn same<T: Element>(a: T, b: T) -> bool {
    let nan = |x: T| x.partial_cmp(&x).is_none();
    a.to_bits_u64() == b.to_bits_u64() || (T::IS_FLOAT && nan(a) && nan(b))
}
