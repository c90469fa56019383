//! The addressing engine against a slow, obviously correct scalar reference of SPEC §4:
//! random masks (continuous and bits), repeats, block and repeat strides, normal and counter
//! mode, `IS_SET_MASK` true and false, in-place operands, every element type and every chip,
//! compared bit for bit through `Sub`, `Add` and `Duplicate`. The cases come from `proptest`
//! (fixed seeds, so every run draws the same cases; a failure is shrunk to a minimal call).

use ascend_core::prelude::*;
use proptest::prelude::*;

use crate::common::util;
use util::{assert_bits_ctx, expect_panic, panic_message, Rng};

use crate::common::prop as strat;
// Seeded and reproducible; a failure prints the minimal (shrunk) trial.
use strat::config;

/// Random lane values: finite floats of every magnitude (no NaN or inf inputs, whose payload
/// bits are not part of the specification), any integer.
trait Rand: Element {
    fn rand(r: &mut Rng) -> Self;
}
impl Rand for f16 {
    fn rand(r: &mut Rng) -> Self {
        let b = r.next() as u16;
        f16::from_bits(if b & 0x7c00 == 0x7c00 { b & !0x4000 } else { b })
    }
}
impl Rand for bf16 {
    fn rand(r: &mut Rng) -> Self {
        let b = r.next() as u16;
        bf16::from_bits(if b & 0x7f80 == 0x7f80 { b & !0x4000 } else { b })
    }
}
impl Rand for f32 {
    fn rand(r: &mut Rng) -> Self {
        let b = r.next() as u32;
        f32::from_bits(if b & 0x7f80_0000 == 0x7f80_0000 { b & !0x4000_0000 } else { b })
    }
}
macro_rules! rand_int {
    ($($t:ty),*) => {$( impl Rand for $t { fn rand(r: &mut Rng) -> Self { r.next() as $t } } )*};
}
rand_int!(i16, i32, u16, u32);

#[derive(Clone, Copy, Debug)]
enum Op {
    Sub,
    Add,
    Dup,
}

/// One random call: mask mode, mask, repeats and the strides of dst, src0, src1.
#[derive(Clone, Debug)]
struct Case {
    counter: bool,
    set_mask: bool,
    mask: Mask,
    repeat: u8,
    blk: [u8; 3],
    rep: [u8; 3],
    /// dst is src0 (0), src1 (1) or neither; src1 is src0.
    dst_is: Option<usize>,
    src1_is_src0: bool,
}

/// Mask mode and mask: a continuous mask, a bit mask (the high word 0 for 32-bit types, never
/// all zero), or counter mode with any count up to 20 repeats.
fn mask_strategy<T: Element>() -> impl Strategy<Value = (bool, Mask)> {
    let par = T::PAR as u64;
    prop_oneof![
        2 => (1..=par).prop_map(|n| (false, Mask::Count(n))),
        2 => (strat::mask_word_edges(), prop_oneof![3 => strat::mask_word_edges(), 1 => Just(0u64)]).prop_filter_map("an all-zero mask", |(lo, hi)| {
            let hi = if T::SIZE == 4 { 0 } else { hi };
            (lo | hi != 0).then_some((false, Mask::Bits([lo, hi])))
        }),
        1 => (1..=par * 20).prop_map(|n| (true, Mask::Count(n))),
    ]
}

/// A random call: every field shrinks towards the simplest case (one repeat, unit block
/// stride, contiguous repeats, no aliasing).
fn case_strategy<T: Element>() -> impl Strategy<Value = Case> {
    let stride = |unit: u8, max: u8| prop_oneof![Just(unit), 0..max];
    (
        mask_strategy::<T>(),
        prop_oneof![29 => 1..=20u8, 1 => Just(0u8)],
        [stride(1, 4), stride(1, 4), stride(1, 4)],
        [stride(8, 16), stride(8, 16), stride(8, 16)],
        prop_oneof![2 => Just(None), 1 => (0..2usize).prop_map(Some)],
        prop::bool::weighted(0.125),
        any::<bool>(),
    )
        .prop_map(|((counter, mask), repeat, mut blk, mut rep, dst_is, src1_is_src0, set_mask)| {
            if let Some(s) = dst_is {
                // A complete overlap: same tensor, same strides.
                blk[1 + s] = blk[0];
                rep[1 + s] = rep[0];
            }
            let src1_is_src0 = dst_is.is_none() && src1_is_src0;
            Case { counter, set_mask, mask, repeat, blk, rep, dst_is, src1_is_src0 }
        })
}

/// One property-test case: the chip, which supported op, the call, and the data.
#[derive(Clone, Debug)]
struct Trial {
    soc: Soc,
    /// Index into the ops `T` supports on `soc`.
    op: usize,
    case: Case,
    /// The count form (`sub(dst, a, b, count)`) with `count` instead of the masked form.
    count_form: bool,
    count: u64,
    /// Ascend910B only: keep (0), saturation (1) or inf/nan (2).
    overflow: u8,
    /// Seed of the scalar and the buffers' contents.
    data_seed: u64,
    /// Also check that one element less of dst is rejected.
    short_dst: bool,
}

fn trial<T: Element>() -> impl Strategy<Value = Trial> {
    (
        0..Soc::ALL.len(),
        0..3usize,
        case_strategy::<T>(),
        prop::bool::weighted(0.2),
        0..=T::PAR as u64 * 20,
        0..3u8,
        any::<u64>(),
        prop::bool::weighted(0.125),
    )
        .prop_map(|(soc, op, case, count_form, count, overflow, data_seed, short_dst)| Trial {
            soc: Soc::ALL[soc],
            op,
            case,
            count_form,
            count,
            overflow,
            data_seed,
            short_dst,
        })
}

/// The lanes of each repeat, straight from SPEC §4: `(repeat, lane)` pairs, in order.
fn reference_lanes<T: Element>(c: &Case) -> Vec<Vec<usize>> {
    let par = T::PAR;
    if c.counter {
        let Mask::Count(n) = c.mask else { unreachable!() };
        let n = n as usize;
        (0..n.div_ceil(par)).map(|r| (0..par.min(n - r * par)).collect()).collect()
    } else {
        let enabled = |j: usize| match c.mask {
            Mask::Count(n) => (j as u64) < n,
            Mask::Bits(b) => b[j / 64] >> (j % 64) & 1 == 1,
        };
        (0..c.repeat as usize).map(|_| (0..par).filter(|&j| enabled(j)).collect()).collect()
    }
}

/// `base + (r * repStride + b * blkStride) * EPB + e`, with base 0.
fn element<T: Element>(r: usize, j: usize, blk: u8, rep: u8) -> usize {
    let (b, e) = (j / T::EPB, j % T::EPB);
    (r * rep as usize + b * blk as usize) * T::EPB + e
}

fn lane_result<T: Element>(op: Op, a: T, b: T, scalar: T, sat: bool) -> T {
    let v = match op {
        Op::Sub => T::sub(a, b),
        Op::Add => T::add(a, b),
        Op::Dup => return scalar,
    };
    // Saturation, applied after the IEEE rounding: an infinite f16 result becomes ±65504.
    if sat && T::DTYPE == DType::F16 && v.to_f64().is_infinite() {
        T::from_f64(65504f64.copysign(v.to_f64()))
    } else {
        v
    }
}

/// The reference: memory as plain vectors, operand `k` living in `mem[ids[k]]` (aliased
/// operands share one vector); each repeat reads all its lanes, then writes them in lane
/// order.
fn reference<T: Element>(op: Op, c: &Case, mem: &mut [Vec<T>; 3], ids: [usize; 3], scalar: T, sat: bool) {
    for (r, lanes) in reference_lanes::<T>(c).iter().enumerate() {
        let vals: Vec<T> = lanes
            .iter()
            .map(|&j| {
                let a = if matches!(op, Op::Dup) {
                    T::ZERO
                } else {
                    mem[ids[1]][element::<T>(r, j, c.blk[1], c.rep[1])]
                };
                let b = if matches!(op, Op::Dup) {
                    T::ZERO
                } else {
                    mem[ids[2]][element::<T>(r, j, c.blk[2], c.rep[2])]
                };
                lane_result(op, a, b, scalar, sat)
            })
            .collect();
        for (&j, v) in lanes.iter().zip(vals) {
            mem[ids[0]][element::<T>(r, j, c.blk[0], c.rep[0])] = v;
        }
    }
}

/// One past the highest element each operand touches.
fn extents<T: Element>(c: &Case) -> [usize; 3] {
    let mut ext = [0; 3];
    for (r, lanes) in reference_lanes::<T>(c).iter().enumerate() {
        for &j in lanes {
            for (k, e) in ext.iter_mut().enumerate() {
                *e = (*e).max(element::<T>(r, j, c.blk[k], c.rep[k]) + 1);
            }
        }
    }
    ext
}

/// Calls the instruction under test for `case`, loading the mask register and mode first.
fn call<T: Rand + CallOp>(op: Op, c: &Case, t: &[LocalTensor<T>; 3], scalar: T) {
    if c.counter {
        set_mask_count();
    }
    let p = BinaryRepeatParams::new(c.blk[0], c.blk[1], c.blk[2], c.rep[0], c.rep[1], c.rep[2]);
    if c.set_mask {
        T::call_masked::<true>(op, t, scalar, c.mask, c.repeat, &p);
    } else {
        set_vector_mask::<T>(c.mask);
        T::call_masked::<false>(op, t, scalar, Mask::Count(MASK_PLACEHOLDER), c.repeat, &p);
    }
    set_mask_norm();
    reset_mask();
}

/// Dispatch to the instruction, for types that have it.
trait CallOp: Element {
    fn call_masked<const SET: bool>(
        op: Op,
        t: &[LocalTensor<Self>; 3],
        scalar: Self,
        mask: Mask,
        repeat: u8,
        p: &BinaryRepeatParams,
    );
    fn call_count(op: Op, t: &[LocalTensor<Self>; 3], scalar: Self, n: usize);
}

macro_rules! call_arith {
    ($($t:ty),*) => {$(
        impl CallOp for $t {
            fn call_masked<const SET: bool>(
                op: Op, t: &[LocalTensor<Self>; 3], scalar: Self, mask: Mask, repeat: u8, p: &BinaryRepeatParams,
            ) {
                match op {
                    Op::Sub => sub_masked::<$t, SET>(&t[0], &t[1], &t[2], mask, repeat, p),
                    Op::Add => add_masked::<$t, SET>(&t[0], &t[1], &t[2], mask, repeat, p),
                    Op::Dup => duplicate_masked::<$t, SET>(&t[0], scalar, mask, repeat, p.dst_blk_stride as u16, p.dst_rep_stride),
                }
            }
            fn call_count(op: Op, t: &[LocalTensor<Self>; 3], scalar: Self, n: usize) {
                match op {
                    Op::Sub => sub(&t[0], &t[1], &t[2], n),
                    Op::Add => add(&t[0], &t[1], &t[2], n),
                    Op::Dup => duplicate(&t[0], scalar, n),
                }
            }
        }
    )*};
}
call_arith!(f16, f32, i16, i32);

macro_rules! call_dup_only {
    ($($t:ty),*) => {$(
        impl CallOp for $t {
            fn call_masked<const SET: bool>(
                op: Op, t: &[LocalTensor<Self>; 3], scalar: Self, mask: Mask, repeat: u8, p: &BinaryRepeatParams,
            ) {
                assert!(matches!(op, Op::Dup));
                duplicate_masked::<$t, SET>(&t[0], scalar, mask, repeat, p.dst_blk_stride as u16, p.dst_rep_stride)
            }
            fn call_count(op: Op, t: &[LocalTensor<Self>; 3], scalar: Self, n: usize) {
                assert!(matches!(op, Op::Dup));
                duplicate(&t[0], scalar, n)
            }
        }
    )*};
}
call_dup_only!(bf16, u16, u32);

/// The three operand tensors of a case, each exactly as long as the reference says it must
/// be (so the engine's bounds check is tested tight), sharing memory where the case says so.
fn operands<T: Element>(bufs: &[TBuf<VecCalc>; 3], c: &Case, ext: [usize; 3]) -> [LocalTensor<T>; 3] {
    let len = |k: usize| ext[k].max(1);
    let src0 = bufs[1].get_with_len::<T>(if c.src1_is_src0 { len(1).max(len(2)) } else { len(1) });
    let src1 = if c.src1_is_src0 { src0.clone() } else { bufs[2].get_with_len::<T>(len(2)) };
    let dst = match c.dst_is {
        Some(0) => src0.clone(),
        Some(_) => src1.clone(),
        None => bufs[0].get_with_len::<T>(len(0)),
    };
    [dst, src0, src1]
}

const BUF_BYTES: usize = 16 * 1024;

/// One call of each `unsupported` op of `T` on `soc`, which must fail naming the chip.
fn check_unsupported<T: CallOp>(unsupported: &[Op], soc: Soc) {
    run_on_core(CoreConfig::single(soc), || {
        let mut pipe = TPipe::new();
        let bufs = [0; 3].map(|_| {
            let mut b = TBuf::<VecCalc>::new();
            pipe.init_tbuf(&mut b, BUF_BYTES);
            b
        });
        for &op in unsupported {
            let t = [0, 1, 2].map(|k| bufs[k].get::<T>());
            expect_panic(
                || T::call_count(op, &t, T::ZERO, 16),
                &["not supported by", &format!(" on {soc} ")],
            );
        }
    });
}

/// Runs one trial of the ops `T` supports (`ops(soc)`) and compares every operand with the
/// reference bit for bit.
fn check_trial<T: Rand + CallOp>(trial: &Trial, ops: fn(Soc) -> Vec<Op>) {
    let soc = trial.soc;
    let ops = ops(soc);
    if ops.is_empty() {
        return;
    }
    let op = ops[trial.op % ops.len()];
    let binary = !matches!(op, Op::Dup);
    run_on_core(CoreConfig::single(soc), || {
        let mut r = Rng(trial.data_seed);
        let mut pipe = TPipe::new();
        let bufs = [0; 3].map(|_| {
            let mut b = TBuf::<VecCalc>::new();
            pipe.init_tbuf(&mut b, BUF_BYTES);
            b
        });
        if soc == Soc::Ascend910B && trial.overflow != 0 {
            set_overflow_mode(if trial.overflow == 1 {
                OverflowMode::Saturation
            } else {
                OverflowMode::InfNan
            });
        }
        let sat = get_overflow_mode() == OverflowMode::Saturation;
        let scalar = T::rand(&mut r);
        let mut c = trial.case.clone();
        if !binary {
            c.dst_is = None;
            c.src1_is_src0 = false;
        }
        if trial.count_form {
            // The count form is the contiguous counter-mode plan with default strides.
            c.counter = true;
            c.mask = Mask::Count(trial.count);
            c.blk = [1; 3];
            c.rep = [8; 3];
        }
        let ext = if matches!(c.mask, Mask::Count(0)) { [0; 3] } else { extents::<T>(&c) };
        assert!(ext.iter().all(|&e| e * T::SIZE <= BUF_BYTES));
        // Fill all three buffers with random data; the reference sees the same memory.
        for b in &bufs {
            let full = b.get::<T>();
            full.copy_from_slice(&(0..full.get_size()).map(|_| T::rand(&mut r)).collect::<Vec<_>>());
        }
        let t = operands::<T>(&bufs, &c, ext);
        let mut mem = [t[0].to_vec(), t[1].to_vec(), t[2].to_vec()];
        let src1_id = if c.src1_is_src0 { 1 } else { 2 };
        let ids = [c.dst_is.map_or(0, |k| [1, src1_id][k]), 1, src1_id];
        if trial.count_form {
            if trial.count > 0 {
                reference(op, &c, &mut mem, ids, scalar, sat);
            }
            T::call_count(op, &t, scalar, trial.count as usize);
        } else {
            reference(op, &c, &mut mem, ids, scalar, sat);
            call(op, &c, &t, scalar);
        }
        let ctx = format!("{soc} {} {op:?} {c:?}", T::DTYPE);
        for k in 0..3 {
            assert_bits_ctx(&t[k].to_vec(), &mem[ids[k]], format_args!("operand {k}: {ctx}"));
        }
        // The bounds are tight: one element less must be rejected.
        if !trial.count_form && ext[0] > 1 && c.dst_is.is_none() && trial.short_dst {
            let short = [bufs[0].get_with_len::<T>(ext[0] - 1), t[1].clone(), t[2].clone()];
            let msg = panic_message(|| call(op, &c, &short, scalar));
            set_mask_norm();
            reset_mask();
            assert!(msg.contains(&format!("dst would touch element {}", ext[0] - 1)), "{msg}");
        }
    });
}

/// The ops `T` supports on `soc`, and those it does not.
fn split_ops<T: SubElement + AddElement + DuplicateElement>(soc: Soc) -> (Vec<Op>, Vec<Op>) {
    [Op::Sub, Op::Add, Op::Dup].into_iter().partition(|op| match op {
        Op::Sub => T::sub_supported(soc),
        Op::Add => T::add_supported(soc),
        Op::Dup => T::duplicate_supported(soc),
    })
}

/// `[Op::Dup]` where `T` is supported, else nothing (and the other way round).
fn split_dup<T: DuplicateElement>(soc: Soc) -> (Vec<Op>, Vec<Op>) {
    if T::duplicate_supported(soc) {
        (vec![Op::Dup], vec![])
    } else {
        (vec![], vec![Op::Dup])
    }
}

fn supported_arith<T: SubElement + AddElement + DuplicateElement>(soc: Soc) -> Vec<Op> {
    split_ops::<T>(soc).0
}

fn supported_dup<T: DuplicateElement>(soc: Soc) -> Vec<Op> {
    split_dup::<T>(soc).0
}

macro_rules! random_tests {
    (arith: $($t:ident),*; dup: $($d:ident),*) => {
        paste::paste! {
            proptest! {
                #![proptest_config(config(1600, 0x5eed_0001))]
                $(
                    #[test]
                    fn [<random_sub_add_duplicate_ $t>](t in trial::<$t>()) {
                        check_trial::<$t>(&t, supported_arith::<$t>);
                    }
                )*
            }
            proptest! {
                #![proptest_config(config(800, 0x5eed_0002))]
                $(
                    #[test]
                    fn [<random_duplicate_ $d>](t in trial::<$d>()) {
                        check_trial::<$d>(&t, supported_dup::<$d>);
                    }
                )*
            }
            $(
                #[test]
                fn [<unsupported_ops_fail_ $t>]() {
                    for soc in Soc::ALL {
                        check_unsupported::<$t>(&split_ops::<$t>(soc).1, soc);
                    }
                }
            )*
            $(
                #[test]
                fn [<unsupported_duplicate_fails_ $d>]() {
                    for soc in Soc::ALL {
                        check_unsupported::<$d>(&split_dup::<$d>(soc).1, soc);
                    }
                }
            )*
        }
    };
}

random_tests!(arith: f16, f32, i16, i32; dup: bf16, u16, u32);

#[test]
fn in_place_with_block_stride_zero_reads_the_repeat_before_writing() {
    // dst = src0 = the same 16 elements (block stride 0), src1 = 1: every block of the repeat
    // reads the original values, so the result is x - 1, not x - 8.
    let mut pipe = TPipe::new();
    let mut a = TBuf::<VecCalc>::new();
    let mut b = TBuf::<VecCalc>::new();
    pipe.init_tbuf(&mut a, 256);
    pipe.init_tbuf(&mut b, 256);
    let (x, one) = (a.get::<f16>(), b.get::<f16>());
    x.copy_from_slice(&[f16::from_f32(10.0); 128]);
    one.copy_from_slice(&[f16::ONE; 128]);
    sub_masked::<f16, true>(&x, &x, &one, 128, 1, &[0, 0, 1, 8, 8, 8].into());
    assert_eq!(x.get_value(0), f16::from_f32(9.0));
    assert_eq!(x.get_value(15), f16::from_f32(9.0));
    assert_eq!(x.get_value(16), f16::from_f32(10.0));
}
