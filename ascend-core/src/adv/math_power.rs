//! `Power` of the advanced API (the vendor's `adv_api/math/power.h`): `x^y` element by element,
//! with both operands tensors, the exponent a scalar, or the base a scalar, for `float`, `half`
//! and `int32_t`, with the host helpers `GetPowerMaxMinTmpSize` and
//! `GetPowerTmpBufferFactorSize`.
//!
//! As the vendor's implementation for Ascend910B (`__NPU_ARCH__` 2201) and Ascend310P (2002),
//! in counter mode over splits of the temporary buffer:
//! - `float` (and `half`, computed in `float`, widened and narrowed with `CAST_NONE`):
//!   `exp(y · ln|x|)` with the basic `Abs`, `Ln`, `Mul` and `Exp`, then the sign of a negative
//!   base with an odd integral exponent, the results that are 1 (`y = 0`, `x = 1`, `x = -1`
//!   with `|y| = inf`) and the NaNs (a negative finite base with a non-integral finite
//!   exponent) chosen with `CompareScalar`, `And`/`Or` on the bit masks and `Select` in mode 1
//!   from the compare-mask register. Ascend310P rounds `float` to integral values through
//!   `int32_t` (so beyond `2^31` it saturates) and takes the sign bit with `And`/`Or` instead
//!   of `ShiftRight`; it needs one more `float` of scratch per element.
//! - `int32_t`: square-and-halve while any halved `|y|` is not 0, then one multiplication by
//!   `x` per remaining unit of `|y|` (each loop ends when a `ReduceSum` of the counters is 0,
//!   read back by the scalar unit), the products wrapping; a negative `y` gives
//!   `trunc(1 / x^|y|)` computed in `float`, and 0 where `x^|y|` is 0. The selects are `Select`
//!   mode 2 with the mask tensor's address in the compare-mask register. Ascend310P halves
//!   through `float` (`And`, `Cast`, `Muls(0.5)`, `CAST_RINT`).
//!
//! The vendor's `CompareScalar`s run whole 256-byte repeats in counter mode, so they read their
//! source up to the end of the repeat that holds its last element, past `count`, as the
//! hardware does (the bits of those lanes are never used). Where such a read covers the mask
//! the compare writes (splits of 32 for `float`/`half` on Ascend910B, of 32 or 96 for
//! `int32_t` on Ascend310P — below or beside the host's minimum, which gives 64), the emulated
//! instruction refuses the overlap and the call fails with a message saying so.

use crate::element::{f16, Element};
use crate::kernel::ctx::get_soc;
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::soc::Soc;
use crate::sync::{event::PIPE_V, flags::pipe_barrier};
use crate::vector::binary::{and_masked, div_masked, mul_masked, or_masked};
use crate::vector::cast::{cast_masked, RoundMode};
use crate::vector::compare::{compare_scalar_masked, CompareScalarElement, CMPMODE};
use crate::vector::duplicate::duplicate_masked;
use crate::vector::mask::{reset_mask, set_cmp_mask, set_mask_count, set_mask_norm, MASK_PLACEHOLDER};
use crate::vector::params::BinaryRepeatParams;
use crate::vector::reduction::reduce_sum;
use crate::vector::scalar::{adds_masked, muls_masked, shift_right_masked};
use crate::vector::select::{select_reg, select_scalar_reg};

use super::math_more::check_binary;
use super::steps as step;
use super::{check_apart, check_chip, count_mask, span, stack_tensor, whole, NARROW, SAME, V220_V200, WIDEN};

const POWER: &str = "Power";
/// The vendor's `ONE_REPEAT_BYTE_SIZE`: the `tmpScalar` block at the scratch's start.
const REPEAT: usize = 256;

mod sealed {
    pub trait Sealed {}
    impl Sealed for crate::element::f16 {}
    impl Sealed for f32 {}
    impl Sealed for i32 {}
}

/// Element types of [`power`], [`power_tensor_scalar`] and [`power_scalar_tensor`]: `half`,
/// `float` and `int32_t`.
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<u16>, tmp: &LocalTensor<u8>) { power::<_, false>(t, t, t, tmp, 8) }
/// ```
pub trait PowerElement: Element + sealed::Sealed {
    /// The vendor's `PowerImpl` for this type, after the checks, in counter mode.
    #[doc(hidden)]
    fn power_impl(
        dst: &LocalTensor<Self>,
        base: Opd<'_, Self>,
        exp: Opd<'_, Self>,
        tmp: &LocalTensor<u8>,
        count: usize,
    );
}

/// An operand of `Power`: a tensor or a scalar.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub enum Opd<'a, T: Element> {
    /// A tensor.
    Tensor(&'a LocalTensor<T>),
    /// A scalar, duplicated into the scratch.
    Scalar(T),
}

/// Floats of scratch per element (`TENSOR_TENSOR_FLOAT`, …) on `v200` (Ascend310P) or not,
/// for `half` or not, with both operands tensors or not.
fn factor(v200: bool, half: bool, tensor_tensor: bool) -> usize {
    let base = match (half, tensor_tensor) {
        (true, _) => 7,
        (false, true) => 4,
        (false, false) => 5,
    };
    base + v200 as usize
}

/// The vendor's `AscPowerFParams` as `PowerFParamsCalc` lays it out from `p`: three (Ascend310P
/// four) `float` tensors of `split`, then four masks of `split` bytes. Each view runs to the
/// scratch's end (the compares read whole repeats).
struct FParams {
    t1: LocalTensor<f32>,
    t2: LocalTensor<f32>,
    t3: LocalTensor<f32>,
    t4: LocalTensor<f32>,
    m1: LocalTensor<u8>,
    m2: LocalTensor<u8>,
    m3: LocalTensor<u8>,
    fin: LocalTensor<u8>,
}

impl FParams {
    fn new(p: &LocalTensor<f32>, split: usize, v200: bool) -> FParams {
        let n = 3 + v200 as usize;
        let m = p.view(n * split).reinterpret_cast::<u8>();
        FParams {
            t1: p.clone(),
            t2: p.view(split),
            t3: p.view(2 * split),
            t4: p.view(3 * split),
            m1: m.clone(),
            m2: m.view(split),
            m3: m.view(2 * split),
            fin: m.view(3 * split),
        }
    }
}

/// `t` seen through the end of the 256-byte repeat holding element `n - 1` (clipped to the
/// Unified Buffer): what a counter-mode `CompareScalar` over `n` elements reads.
fn repeat_wide(t: &LocalTensor<f32>, n: usize) -> LocalTensor<f32> {
    let want = n.div_ceil(64) * 64;
    if t.get_size() >= want {
        return t.clone();
    }
    let room = (get_soc().ub_size() - t.get_phy_addr()) / 4;
    LocalTensor::new(t.get_position(), t.get_phy_addr(), want.min(room))
}

/// `CompareScalar<float, uint8_t, false>` (or `int32_t`) over the counter-mode mask.
#[track_caller]
fn cmps<T: CompareScalarElement>(
    dst: &LocalTensor<u8>,
    src: &LocalTensor<T>,
    v: T,
    mode: CMPMODE,
    repeat: u8,
) {
    compare_scalar_masked::<T, false>(dst, src, v, mode, MASK_PLACEHOLDER, repeat, &SAME);
}

/// `And<uint16_t>` / `Or<uint16_t>` of two bit masks under the mask set.
#[track_caller]
fn bits(and: bool, dst: &LocalTensor<u8>, a: &LocalTensor<u8>, b: &LocalTensor<u8>) {
    let (d, a, b) = (dst.reinterpret_cast::<u16>(), a.reinterpret_cast::<u16>(), b.reinterpret_cast::<u16>());
    let p = BinaryRepeatParams::default();
    if and {
        and_masked::<u16, false>(&d, &a, &b, MASK_PLACEHOLDER, 1, &p);
    } else {
        or_masked::<u16, false>(&d, &a, &b, MASK_PLACEHOLDER, 1, &p);
    }
}

/// `SetVectorMask(0, ConstCeil(calCount, 16))`: the `uint16_t` words of `c` mask bits.
fn word_mask(c: usize) {
    count_mask::<u16>(c.div_ceil(16));
}

/// The vendor's `VselPowerTensorScalar`: `SetCmpMask(scalar)`, `PipeBarrier<PIPE_V>`, then
/// `Select` mode 1 (`dst[i] = sel bit i ? src0[i] : scalar`).
#[track_caller]
fn vsel(dst: &LocalTensor<f32>, sel: &LocalTensor<u8>, src0: &LocalTensor<f32>, scalar: &LocalTensor<f32>) {
    set_cmp_mask(scalar);
    pipe_barrier::<PIPE_V>();
    select_scalar_reg::<f32, u8>(dst, sel, src0, 1, &BinaryRepeatParams::default());
}

/// The vendor's `CastFloat2Float` followed by `PipeBarrier<PIPE_V>`.
#[track_caller]
fn cast_ff(dst: &LocalTensor<f32>, src: &LocalTensor<f32>, mode: RoundMode) {
    step::integral(dst, src, &dst.reinterpret_cast::<i32>(), mode);
}

/// The vendor's `CommonPowerF` on `c` elements under the counter-mode mask `c`.
#[track_caller]
fn common_power_f(
    dst: &LocalTensor<f32>,
    src0: &LocalTensor<f32>,
    src1: &LocalTensor<f32>,
    scalar: &LocalTensor<f32>,
    p: &FParams,
    c: usize,
) {
    let v200 = get_soc() == Soc::Ascend310P;
    let repeat = (c * 4).div_ceil(REPEAT) as u8;
    let x = repeat_wide(src0, c);
    pipe_barrier::<PIPE_V>();
    // InitDst: exp(y · ln|x|).
    step::abs(dst, src0);
    step::ln(dst, dst);
    step::mul(dst, src1, dst);
    step::exp(dst, dst);
    // DetermineSign: 1 - 2 · (rint|y| mod 2) in t1.
    step::abs(&p.t1, src1);
    cast_ff(&p.t1, &p.t1, RoundMode::CastRint);
    step::muls(&p.t2, &p.t1, 0.5);
    cast_ff(&p.t2, &p.t2, RoundMode::CastFloor);
    step::muls(&p.t2, &p.t2, 2.0);
    step::sub(&p.t1, &p.t1, &p.t2);
    step::muls(&p.t1, &p.t1, -2.0);
    step::adds(&p.t1, &p.t1, 1.0);
    cast_ff(&p.t1, &p.t1, RoundMode::CastRint);
    // GenMaskForSign: m1 = sign bit of x & y integral (fin).
    if v200 {
        // GrepSignBit through And/Or: (x & 0x80000000) | 1.0 < 0.
        let (t2, t4) = (p.t2.reinterpret_cast::<u32>(), p.t4.reinterpret_cast::<u32>());
        duplicate_masked::<u32, false>(&t2, 0x8000_0000, MASK_PLACEHOLDER, 1, 1, 8);
        duplicate_masked::<u32, false>(&t4, 0x3f80_0000, MASK_PLACEHOLDER, 1, 1, 8);
        pipe_barrier::<PIPE_V>();
        count_mask::<u16>(c * 2);
        let (w2, w4, wx) =
            (p.t2.reinterpret_cast::<u16>(), p.t4.reinterpret_cast::<u16>(), src0.reinterpret_cast::<u16>());
        let bp = BinaryRepeatParams::default();
        and_masked::<u16, false>(&w2, &wx, &w2, MASK_PLACEHOLDER, 1, &bp);
        pipe_barrier::<PIPE_V>();
        or_masked::<u16, false>(&w2, &w4, &w2, MASK_PLACEHOLDER, 1, &bp);
        pipe_barrier::<PIPE_V>();
        count_mask::<u16>(c);
        cmps::<f32>(&p.m1, &p.t2, 0.0, CMPMODE::LT, repeat);
    } else {
        shift_right_masked::<u32, false>(
            &p.t2.reinterpret_cast::<u32>(),
            &src0.reinterpret_cast::<u32>(),
            31,
            MASK_PLACEHOLDER,
            1,
            &SAME,
        );
        pipe_barrier::<PIPE_V>();
        cmps::<i32>(&p.m1, &p.t2.reinterpret_cast::<i32>(), 1, CMPMODE::EQ, repeat);
    }
    pipe_barrier::<PIPE_V>();
    step::abs(&p.t2, src1);
    cast_ff(&p.t3, &p.t2, RoundMode::CastRint);
    step::sub(&p.t3, &p.t2, &p.t3);
    step::abs(&p.t3, &p.t3);
    cmps::<f32>(&p.fin, &p.t3, 0.000_000_01, CMPMODE::LT, repeat);
    pipe_barrier::<PIPE_V>();
    word_mask(c);
    bits(true, &p.m1, &p.fin, &p.m1);
    count_mask::<f32>(c);
    pipe_barrier::<PIPE_V>();
    vsel(&p.t2, &p.m1, &p.t1, scalar);
    pipe_barrier::<PIPE_V>();
    step::mul(dst, &p.t2, dst);
    // GenMaskForOne: m1 = (|y| != 0) & (x != 1) & ((x != -1) | (|y| != inf)).
    step::abs(&p.t1, src1);
    cmps::<f32>(&p.m1, &p.t1, 0.0, CMPMODE::NE, repeat);
    pipe_barrier::<PIPE_V>();
    cmps::<f32>(&p.m2, &x, 1.0, CMPMODE::NE, repeat);
    pipe_barrier::<PIPE_V>();
    word_mask(c);
    bits(true, &p.m1, &p.m2, &p.m1);
    count_mask::<f32>(c);
    pipe_barrier::<PIPE_V>();
    cmps::<f32>(&p.m2, &x, -1.0, CMPMODE::NE, repeat);
    pipe_barrier::<PIPE_V>();
    cmps::<f32>(&p.m3, &p.t1, f32::INFINITY, CMPMODE::NE, repeat);
    pipe_barrier::<PIPE_V>();
    word_mask(c);
    bits(false, &p.m2, &p.m3, &p.m2);
    pipe_barrier::<PIPE_V>();
    bits(true, &p.m1, &p.m2, &p.m1);
    count_mask::<f32>(c);
    pipe_barrier::<PIPE_V>();
    vsel(dst, &p.m1, dst, scalar);
    pipe_barrier::<PIPE_V>();
    // GenMaskForNan: m1 = |y| = inf | y integral | x >= 0 | x = -inf.
    step::abs(&p.t1, src1);
    cmps::<f32>(&p.m1, &p.t1, f32::INFINITY, CMPMODE::EQ, repeat);
    pipe_barrier::<PIPE_V>();
    word_mask(c);
    bits(false, &p.m1, &p.fin, &p.m1);
    count_mask::<f32>(c);
    cmps::<f32>(&p.m2, &x, 0.0, CMPMODE::GE, repeat);
    cmps::<f32>(&p.m3, &x, f32::NEG_INFINITY, CMPMODE::EQ, repeat);
    pipe_barrier::<PIPE_V>();
    word_mask(c);
    bits(false, &p.m2, &p.m3, &p.m2);
    pipe_barrier::<PIPE_V>();
    bits(false, &p.m1, &p.m2, &p.m1);
    count_mask::<f32>(c);
    pipe_barrier::<PIPE_V>();
    vsel(dst, &p.m1, dst, &scalar.view(8));
    pipe_barrier::<PIPE_V>();
}

/// The vendor's `InitTmpScalar`: eight 1.0s then eight NaNs (`0x7fc00000`) at the scratch's
/// start, under a counter-mode mask of 8.
#[track_caller]
fn init_tmp_scalar(s: &LocalTensor<f32>) {
    count_mask::<f32>(8);
    duplicate_masked::<f32, false>(s, 1.0, MASK_PLACEHOLDER, 1, 1, 8);
    duplicate_masked::<f32, false>(&s.view(8), f32::from_bits(0x7fc0_0000), MASK_PLACEHOLDER, 1, 1, 8);
}

/// The split of a `float` computation (`(tmp - 256) / 4 / factor / 32 * 32`), failing as the
/// vendor's `CheckTmpBufferSize` does when it is 0. On Ascend910B a split of 32 fails too: the
/// vendor's 64-lane `CompareScalar` over `tmpTensor3` then reads `finiteIntegerYMask`, which it
/// writes (an overlap the emulated instruction refuses); the host's minimum gives 64.
#[track_caller]
fn float_split(tmp: &LocalTensor<u8>, factor: usize) -> usize {
    let bytes = tmp.get_size();
    let v220 = get_soc() == Soc::Ascend910B;
    let least = if v220 { 64 } else { 32 };
    let need = REPEAT + factor * 4 * least;
    let split = bytes.saturating_sub(REPEAT) / 4 / factor / 32 * 32;
    ensure(bytes >= REPEAT && split >= least, POWER, || {
        let why = if v220 && split == 32 {
            " (the vendor's own check allows splits of 32, but then its 64-lane CompareScalar over tmpTensor3 \
             reads finiteIntegerYMask, which it writes)"
        } else {
            ""
        };
        format!(
            "sharedTmpBuffer has {bytes} bytes; it must hold at least {need} (256 bytes of tmpScalar, then \
             {factor} floats per element for one split of {least}{why}; see the host's GetPowerMaxMinTmpSize)"
        )
    });
    split
}

impl PowerElement for f32 {
    fn power_impl(
        dst: &LocalTensor<f32>,
        base: Opd<'_, f32>,
        exp: Opd<'_, f32>,
        tmp: &LocalTensor<u8>,
        count: usize,
    ) {
        let v200 = get_soc() == Soc::Ascend310P;
        let tt = matches!((base, exp), (Opd::Tensor(_), Opd::Tensor(_)));
        let split = float_split(tmp, factor(v200, false, tt));
        let ts = tmp.reinterpret_cast::<f32>();
        let scalar = ts.view_len(0, REPEAT / 4);
        let after = ts.view(REPEAT / 4);
        let (stack, params) =
            if tt { (None, after.clone()) } else { (Some(after.clone()), after.view(split)) };
        let p = FParams::new(&params, split, v200);
        init_tmp_scalar(&scalar);
        count_mask::<f32>(split);
        let (loops, tail) = (count / split, count % split);
        if let Some(stack) = &stack {
            let v = match (base, exp) {
                (Opd::Scalar(v), _) | (_, Opd::Scalar(v)) => v,
                _ => unreachable!("a scalar form"),
            };
            pipe_barrier::<PIPE_V>();
            duplicate_masked::<f32, false>(stack, v, MASK_PLACEHOLDER, 1, 1, 8);
            pipe_barrier::<PIPE_V>();
        }
        let opd = |o: Opd<'_, f32>, off: usize| match o {
            Opd::Tensor(t) => t.view(off),
            Opd::Scalar(_) => stack.clone().expect("the scalar's tensor"),
        };
        for i in 0..loops {
            if tt {
                pipe_barrier::<PIPE_V>();
            }
            let off = i * split;
            common_power_f(&dst.view(off), &opd(base, off), &opd(exp, off), &scalar, &p, split);
        }
        if tail > 0 {
            count_mask::<f32>(tail);
            let off = loops * split;
            common_power_f(&dst.view(off), &opd(base, off), &opd(exp, off), &scalar, &p, tail);
        }
    }
}

impl PowerElement for f16 {
    fn power_impl(
        dst: &LocalTensor<f16>,
        base: Opd<'_, f16>,
        exp: Opd<'_, f16>,
        tmp: &LocalTensor<u8>,
        count: usize,
    ) {
        let v200 = get_soc() == Soc::Ascend310P;
        let split = float_split(tmp, factor(v200, true, true));
        let ts = tmp.reinterpret_cast::<f32>();
        let scalar = ts.view_len(0, REPEAT / 4);
        let s0 = ts.view(REPEAT / 4);
        let (s1, sd) = (s0.view(split), s0.view(2 * split));
        let p = FParams::new(&s0.view(3 * split), split, v200);
        init_tmp_scalar(&scalar);
        count_mask::<f16>(split);
        match (base, exp) {
            (Opd::Tensor(_), Opd::Scalar(v)) => {
                duplicate_masked::<f32, false>(&s1, v.to_f32(), MASK_PLACEHOLDER, 1, 1, 8);
            }
            (Opd::Scalar(v), Opd::Tensor(_)) => {
                pipe_barrier::<PIPE_V>();
                duplicate_masked::<f32, false>(&s0, v.to_f32(), MASK_PLACEHOLDER, 1, 1, 8);
            }
            _ => {}
        }
        let round = |off: usize, c: usize| {
            match (base, exp) {
                (Opd::Tensor(a), Opd::Tensor(b)) => {
                    cast_masked::<f32, f16, false>(
                        &s0,
                        &a.view(off),
                        RoundMode::CastNone,
                        MASK_PLACEHOLDER,
                        1,
                        &WIDEN,
                    );
                    step::widen(&s1, &b.view(off));
                }
                (Opd::Tensor(a), _) => step::widen(&s0, &a.view(off)),
                (_, Opd::Tensor(b)) => step::widen(&s1, &b.view(off)),
                _ => unreachable!("Power has a tensor operand"),
            }
            common_power_f(&sd, &s0, &s1, &scalar, &p, c);
            cast_masked::<f16, f32, false>(
                &dst.view(off),
                &sd,
                RoundMode::CastNone,
                MASK_PLACEHOLDER,
                1,
                &NARROW,
            );
            pipe_barrier::<PIPE_V>();
        };
        let (loops, tail) = (count / split, count % split);
        for i in 0..loops {
            round(i * split, split);
        }
        if tail > 0 {
            count_mask::<f16>(tail);
            round(loops * split, tail);
        }
    }
}

// ---------------------------------------------------------------------------------------
// int32_t
// ---------------------------------------------------------------------------------------

/// The vendor's `AscPowerIParams` as `PowerIParamsCalc` lays it out from `p`: five (Ascend310P
/// six) `int32_t` tensors of `split`, then `negMask` and `mask` of `split` bytes and a 32-byte
/// `tmpScalar`. Each view runs to the scratch's end (the compares read whole repeats).
struct IParams {
    e: LocalTensor<i32>,
    ori: LocalTensor<i32>,
    rec: LocalTensor<i32>,
    t1: LocalTensor<i32>,
    t2: LocalTensor<i32>,
    /// `tmpTensor3` (Ascend310P); on Ascend910B the vendor leaves it unset and only passes it
    /// to `ReduceSum`, which does not use it there: `tmpTensor2` stands in.
    t3: LocalTensor<i32>,
    neg: LocalTensor<u8>,
    mask: LocalTensor<u8>,
    scalar: LocalTensor<u8>,
}

impl IParams {
    fn new(p: &LocalTensor<i32>, split: usize, v200: bool) -> IParams {
        let n = 5 + v200 as usize;
        let m = p.view(n * split).reinterpret_cast::<u8>();
        IParams {
            e: p.clone(),
            ori: p.view(split),
            rec: p.view(2 * split),
            t1: p.view(3 * split),
            t2: p.view(4 * split),
            t3: if v200 { p.view(5 * split) } else { p.view(4 * split) },
            neg: m.clone(),
            mask: m.view(split),
            scalar: m.view(2 * split),
        }
    }
}

fn as_f32(t: &LocalTensor<i32>) -> LocalTensor<f32> {
    t.reinterpret_cast::<f32>()
}

/// The vendor's `VselPowerTensorTensor`: `sel`'s UB address duplicated into `tmpScalar` under
/// a counter mask of 1, `PipeBarrier<PIPE_V>`, the mask back to `c`, `SetCmpMask`,
/// `PipeBarrier<PIPE_V>`, then `Select` mode 2 (`dst[i] = sel bit i ? src0[i] : src1[i]`).
#[track_caller]
fn vsel_tt(
    dst: &LocalTensor<i32>,
    sel: &LocalTensor<u8>,
    a: &LocalTensor<i32>,
    b: &LocalTensor<i32>,
    s: &LocalTensor<u8>,
    c: usize,
) {
    count_mask::<u32>(1);
    duplicate_masked::<u32, false>(
        &s.reinterpret_cast::<u32>(),
        sel.get_phy_addr() as u32,
        MASK_PLACEHOLDER,
        1,
        1,
        8,
    );
    pipe_barrier::<PIPE_V>();
    count_mask::<f32>(c);
    set_cmp_mask(s);
    pipe_barrier::<PIPE_V>();
    select_reg::<f32, 2>(&as_f32(dst), &as_f32(a), &as_f32(b), 1, &BinaryRepeatParams::default());
}

/// `int32_t` tensor against 0 (`CompareZeroPositive`; `CompareIntZero` on Ascend910B): an
/// `int32_t` `EQ` on Ascend910B, the bits as `float` against 0.0 on Ascend310P.
#[track_caller]
fn zero_positive(mask: &LocalTensor<u8>, src: &LocalTensor<i32>, repeat: u8) {
    if get_soc() == Soc::Ascend310P {
        cmps::<f32>(mask, &as_f32(src), 0.0, CMPMODE::EQ, repeat);
    } else {
        cmps::<i32>(mask, src, 0, CMPMODE::EQ, repeat);
    }
}

/// The vendor's `CompareIntZero`: Ascend310P adds the bits of 1.0 and compares with 1.0 as
/// `float` (through `tmp`).
#[track_caller]
fn int_zero(mask: &LocalTensor<u8>, src: &LocalTensor<i32>, tmp: &LocalTensor<i32>, repeat: u8, c: usize) {
    if get_soc() == Soc::Ascend310P {
        adds_masked::<i32, false>(tmp, src, 0x3f80_0000, MASK_PLACEHOLDER, 1, &SAME);
        pipe_barrier::<PIPE_V>();
        cmps::<f32>(mask, &as_f32(tmp), 1.0, CMPMODE::EQ, repeat);
    } else {
        let src = repeat_wide(&as_f32(src), c).reinterpret_cast::<i32>();
        cmps::<i32>(mask, &src, 0, CMPMODE::EQ, repeat);
    }
}

/// The vendor's `ShiftRightOneBit`: `ShiftRight` by 1 on Ascend910B; on Ascend310P the lowest
/// bit cleared with `And`, the value through `float` times 0.5, back with `CAST_RINT`.
#[track_caller]
fn shift_one(e: &LocalTensor<i32>, tmp: &LocalTensor<i32>, c: usize) {
    if get_soc() == Soc::Ascend310P {
        duplicate_masked::<u32, false>(
            &tmp.reinterpret_cast::<u32>(),
            0xffff_fffe,
            MASK_PLACEHOLDER,
            1,
            1,
            8,
        );
        pipe_barrier::<PIPE_V>();
        count_mask::<u16>(c * 2);
        let (w, we) = (tmp.reinterpret_cast::<u16>(), e.reinterpret_cast::<u16>());
        and_masked::<u16, false>(&w, &we, &w, MASK_PLACEHOLDER, 1, &BinaryRepeatParams::default());
        pipe_barrier::<PIPE_V>();
        count_mask::<u32>(c);
        cast_masked::<f32, i32, false>(&as_f32(tmp), tmp, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &SAME);
        pipe_barrier::<PIPE_V>();
        step::muls(&as_f32(tmp), &as_f32(tmp), 0.5);
        cast_masked::<i32, f32, false>(e, &as_f32(tmp), RoundMode::CastRint, MASK_PLACEHOLDER, 1, &SAME);
    } else {
        shift_right_masked::<i32, false>(e, e, 1, MASK_PLACEHOLDER, 1, &SAME);
    }
}

/// The vendor's `ReduceSumCount` of `src`'s first `c` values into `tmpScalar[0]`, then
/// `GetValue(0)`. The emulated count-form `ReduceSum` leaves normal mode and a full mask, as
/// the vendor's does with `isSetMask = true`; the vendor calls it with `isSetMask = false`
/// under the counter mask (Ascend910B) or sets counter mode and the mask back itself
/// (Ascend310P): both end in counter mode with the mask `c`, as here.
#[track_caller]
fn reduce_count(p: &IParams, src: &LocalTensor<f32>, c: usize) -> f32 {
    let dst = p.scalar.reinterpret_cast::<f32>();
    if get_soc() == Soc::Ascend310P {
        set_mask_norm();
    }
    reduce_sum(&dst, src, &as_f32(&p.t3), c as i32);
    set_mask_count();
    count_mask::<i32>(c);
    dst.get_value(0)
}

/// The vendor's `CommonPowerI` on `c` elements under the counter-mode mask `c`.
#[track_caller]
fn common_power_i(
    dst: &LocalTensor<i32>,
    src0: &LocalTensor<i32>,
    src1: &LocalTensor<i32>,
    p: &IParams,
    c: usize,
) {
    let repeat = (c * 4).div_ceil(REPEAT) as u8;
    let bp = BinaryRepeatParams::default();
    let s = &p.scalar;
    pipe_barrier::<PIPE_V>();
    // InitBulkPowerI.
    cast_masked::<f32, i32, false>(&as_f32(&p.t1), src1, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &SAME);
    pipe_barrier::<PIPE_V>();
    cmps::<f32>(&p.neg, &as_f32(&p.t1), 0.0, CMPMODE::LT, repeat);
    pipe_barrier::<PIPE_V>();
    step::muls(&p.t1, src1, -1);
    vsel_tt(&p.e, &p.neg, &p.t1, src1, s, c);
    pipe_barrier::<PIPE_V>();
    step::muls(&p.ori, &p.e, 1);
    zero_positive(&p.mask, &p.ori, repeat);
    duplicate_masked::<i32, false>(&p.rec, 0, MASK_PLACEHOLDER, 1, 1, 8);
    pipe_barrier::<PIPE_V>();
    duplicate_masked::<i32, false>(&p.t2, 1, MASK_PLACEHOLDER, 1, 1, 8);
    pipe_barrier::<PIPE_V>();
    vsel_tt(&p.rec, &p.mask, &p.rec, &p.t2, s, c);
    vsel_tt(dst, &p.mask, &p.t2, src0, s, c);
    shift_one(&p.e, &p.t3, c);
    pipe_barrier::<PIPE_V>();
    zero_positive(&p.mask, &p.e, repeat);
    pipe_barrier::<PIPE_V>();
    // BulkProcessPowerI: squares while the halved exponent is not 0.
    loop {
        cast_masked::<f32, i32, false>(&as_f32(&p.t1), &p.e, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &SAME);
        pipe_barrier::<PIPE_V>();
        let sum = reduce_count(p, &as_f32(&p.t1), c);
        pipe_barrier::<PIPE_V>();
        if sum != 0.0 {
            mul_masked::<i32, false>(&p.t1, dst, dst, MASK_PLACEHOLDER, 1, &bp);
            muls_masked::<i32, false>(&p.t2, &p.rec, 2, MASK_PLACEHOLDER, 1, &SAME);
            pipe_barrier::<PIPE_V>();
            vsel_tt(dst, &p.mask, dst, &p.t1, s, c);
            vsel_tt(&p.rec, &p.mask, &p.rec, &p.t2, s, c);
            shift_one(&p.e, &p.t3, c);
            pipe_barrier::<PIPE_V>();
            int_zero(&p.mask, &p.e, &p.t3, repeat, c);
        }
        pipe_barrier::<PIPE_V>();
        if sum == 0.0 {
            break;
        }
    }
    // InitFinePowerI.
    step::sub(&p.rec, &p.ori, &p.rec);
    zero_positive(&p.mask, &p.rec, repeat);
    pipe_barrier::<PIPE_V>();
    // FineProcessPowerI: multiplies by the base for the remaining exponent.
    loop {
        cast_masked::<f32, i32, false>(
            &as_f32(&p.t1),
            &p.rec,
            RoundMode::CastNone,
            MASK_PLACEHOLDER,
            1,
            &SAME,
        );
        pipe_barrier::<PIPE_V>();
        let sum = reduce_count(p, &as_f32(&p.t1), c);
        pipe_barrier::<PIPE_V>();
        if sum != 0.0 {
            mul_masked::<i32, false>(&p.t1, dst, src0, MASK_PLACEHOLDER, 1, &bp);
            adds_masked::<i32, false>(&p.t2, &p.rec, -1, MASK_PLACEHOLDER, 1, &SAME);
            pipe_barrier::<PIPE_V>();
            vsel_tt(dst, &p.mask, dst, &p.t1, s, c);
            vsel_tt(&p.rec, &p.mask, &p.rec, &p.t2, s, c);
            pipe_barrier::<PIPE_V>();
            zero_positive(&p.mask, &p.rec, repeat);
        }
        pipe_barrier::<PIPE_V>();
        if sum == 0.0 {
            break;
        }
    }
    // HandleNegativeExpPowerI: trunc(1 / x^|y|) for a negative exponent, 0 where x^|y| is 0.
    int_zero(&p.mask, dst, &p.t3, repeat, c);
    let (res, one) = (as_f32(&p.ori), as_f32(&p.e));
    cast_masked::<f32, i32, false>(&res, dst, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &SAME);
    duplicate_masked::<f32, false>(&one, 1.0, MASK_PLACEHOLDER, 1, 1, 8);
    pipe_barrier::<PIPE_V>();
    div_masked::<f32, false>(&res, &one, &res, MASK_PLACEHOLDER, 1, &bp);
    pipe_barrier::<PIPE_V>();
    cast_masked::<i32, f32, false>(&p.t1, &res, RoundMode::CastTrunc, MASK_PLACEHOLDER, 1, &SAME);
    pipe_barrier::<PIPE_V>();
    vsel_tt(dst, &p.neg, &p.t1, dst, s, c);
    duplicate_masked::<i32, false>(&p.t2, 0, MASK_PLACEHOLDER, 1, 1, 8);
    pipe_barrier::<PIPE_V>();
    vsel_tt(dst, &p.mask, &p.t2, dst, s, c);
    pipe_barrier::<PIPE_V>();
}

impl PowerElement for i32 {
    fn power_impl(
        dst: &LocalTensor<i32>,
        base: Opd<'_, i32>,
        exp: Opd<'_, i32>,
        tmp: &LocalTensor<u8>,
        count: usize,
    ) {
        let v200 = get_soc() == Soc::Ascend310P;
        let tt = matches!((base, exp), (Opd::Tensor(_), Opd::Tensor(_)));
        let factor = if tt { 6 } else { 7 } + v200 as usize;
        let bytes = tmp.get_size();
        let split = bytes / 4 / factor / 32 * 32;
        ensure(split > 0, POWER, || {
            format!(
                "sharedTmpBuffer has {bytes} bytes; it must hold at least {} ({factor} int32_t per element for one \
                 split of 32; see the host's GetPowerMaxMinTmpSize)",
                factor * 4 * 32
            )
        });
        // Ascend310P's CompareIntZero compares tmpTensor3 over whole 64-lane repeats; past a
        // split of 32 or 96 that reads `mask`, which the compare writes.
        let over = (split.div_ceil(64) * 64 - split) * 4;
        ensure(!v200 || over <= split, POWER, || {
            format!(
                "sharedTmpBuffer has {bytes} bytes, which gives splits of {split} int32_t: the vendor's CompareScalar \
                 over tmpTensor3 (CompareIntZero) then reads a whole 64-lane repeat into mask, which it writes (an \
                 overlap the emulated instruction refuses); give splits of 64 or at least 128 (the host's minimum, \
                 {} bytes, gives 64)",
                factor * 4 * 64
            )
        });
        let ti = tmp.reinterpret_cast::<i32>();
        let (stack, params) = if tt { (None, ti.clone()) } else { (Some(ti.clone()), ti.view(split)) };
        let p = IParams::new(&params, split, v200);
        count_mask::<i32>(split);
        let (loops, tail) = (count / split, count % split);
        if let Some(stack) = &stack {
            let v = match (base, exp) {
                (Opd::Scalar(v), _) | (_, Opd::Scalar(v)) => v,
                _ => unreachable!("a scalar form"),
            };
            pipe_barrier::<PIPE_V>();
            duplicate_masked::<i32, false>(stack, v, MASK_PLACEHOLDER, 1, 1, 8);
            pipe_barrier::<PIPE_V>();
        }
        let opd = |o: Opd<'_, i32>, off: usize| match o {
            Opd::Tensor(t) => t.view(off),
            Opd::Scalar(_) => stack.clone().expect("the scalar's tensor"),
        };
        for i in 0..loops {
            if tt {
                pipe_barrier::<PIPE_V>();
            }
            let off = i * split;
            common_power_i(&dst.view(off), &opd(base, off), &opd(exp, off), &p, split);
            if !tt {
                pipe_barrier::<PIPE_V>();
            }
        }
        if tail > 0 {
            count_mask::<i32>(tail);
            if tt {
                pipe_barrier::<PIPE_V>();
            }
            let off = loops * split;
            common_power_i(&dst.view(off), &opd(base, off), &opd(exp, off), &p, tail);
            pipe_barrier::<PIPE_V>();
        }
    }
}

/// The checks of the scalar forms: the chip, the positions, `count` against the tensors, and
/// the overlaps (`dst` with the source, the scratch with either).
#[track_caller]
fn check_scalar_form<T: Element>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    src_name: &'static str,
    tmp: &LocalTensor<u8>,
    count: usize,
) {
    check_chip(POWER, &V220_V200);
    for (name, pos) in
        [("dst", dst.get_position()), (src_name, src.get_position()), ("sharedTmpBuffer", tmp.get_position())]
    {
        ensure(pos.is_ub(), POWER, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
    }
    for (name, size) in [("dstTensor", dst.get_size()), (src_name, src.get_size())] {
        ensure(count <= size, POWER, || {
            format!("calCount = {count} exceeds {name}'s {size} {} elements", T::DTYPE)
        });
    }
    let (d, s, t) = (span("dst", dst, count), span(src_name, src, count), whole("sharedTmpBuffer", tmp));
    check_apart(POWER, &[(d, s), (t, s), (t, d)]);
}

/// The vendor's `PowerCommonImpl`: `SetMaskCount`, `PowerImpl`, `SetMaskNorm`, `ResetMask`.
#[track_caller]
fn run<T: PowerElement>(
    dst: &LocalTensor<T>,
    base: Opd<'_, T>,
    exp: Opd<'_, T>,
    tmp: &LocalTensor<u8>,
    count: usize,
) {
    set_mask_count();
    T::power_impl(dst, base, exp, tmp, count);
    set_mask_norm();
    reset_mask();
}

/// `dst[i] = src0[i] ^ src1[i]` for `i < count`, with `shared_tmp_buffer` as scratch (AscendC
/// `Power<T, isReuseSource>(dstTensor, src0Tensor, src1Tensor, sharedTmpBuffer, calCount)`).
///
/// As the vendor's implementation (see the module docs): `exp(y · ln|x|)`, negated for a
/// negative `x` and an odd integral `y` (`|y - rint(y)| < 1e-8`); 1 where `y = ±0`, `x = 1` or
/// `x = -1` with `|y| = inf`; NaN where `x` is negative (not `-inf`) and `y` finite and not
/// integral. In splits of `(shared_tmp_buffer.get_size() - 256) / 4 / k / 32 * 32` elements,
/// `k` being 4 (`float`) or 7 (`half`) on Ascend910B and one more on Ascend310P; `int32_t` in
/// splits of `shared_tmp_buffer.get_size() / 4 / k / 32 * 32` with `k` 6 (7 on Ascend310P),
/// `x^y` by repeated squaring and multiplication (wrapping), `trunc(1 / x^|y|)` for `y < 0`
/// and 0 for `0^y`. The vendor's
/// form without `count` is this call with `src0.get_size()`. `IS_REUSE_SOURCE` is reserved.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 3 * 256);
/// pipe.init_tbuf(&mut tmp, get_power_max_min_tmp_size(Soc::Ascend910B, &[64], &[64], false, 4, false).1);
/// let (x, y, z) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256), q.get_with_offset::<f32>(64, 512));
/// x.copy_from_slice(&[-2.0f32; 64]);
/// y.copy_from_slice(&[3.0f32; 64]);
/// power::<_, false>(&z, &x, &y, &tmp.get::<u8>(), 64);
/// assert!((z.get_value(0) + 8.0).abs() < 1e-4);
/// // int32_t wraps and truncates.
/// let (xi, yi, zi) = (x.reinterpret_cast::<i32>(), y.reinterpret_cast::<i32>(), z.reinterpret_cast::<i32>());
/// xi.copy_from_slice(&[3; 64]);
/// yi.copy_from_slice(&[4; 64]);
/// yi.set_value(1, -1);
/// power::<i32, false>(&zi, &xi, &yi, &tmp.get::<u8>(), 64);
/// assert_eq!((zi.get_value(0), zi.get_value(1)), (81, 0));
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); `count` exceeds `dst`,
/// `src0` or `src1`; a tensor is not in the Unified Buffer; `dst` overlaps a source or the
/// scratch overlaps any operand; the scratch holds no split (less than 256 bytes plus 32
/// elements' worth, the vendor's `CheckTmpBufferSize`; on Ascend910B 64 elements' worth for
/// `float` and `half`, see [`get_power_max_min_tmp_size`]'s minimum); an `int32_t` split on
/// Ascend310P is 32 or 96 (see the module docs); or an instruction's own check fails
/// (operands not 32-byte aligned, or a `float` base whose last 256-byte repeat runs past the
/// Unified Buffer).
#[track_caller]
pub fn power<T: PowerElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src0: &LocalTensor<T>,
    src1: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    check_binary(POWER, &V220_V200, dst, src0, src1, shared_tmp_buffer, count);
    run(dst, Opd::Tensor(src0), Opd::Tensor(src1), shared_tmp_buffer, count);
}

/// [`power`] with the stack buffer as scratch (AscendC `Power<T, isReuseSource>(dstTensor,
/// src0Tensor, src1Tensor, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 3 * 256);
/// let (x, y, z) = (q.get_with_offset::<f16>(128, 0), q.get_with_offset::<f16>(128, 256), q.get_with_offset::<f16>(128, 512));
/// x.copy_from_slice(&[f16::from_f32(2.0); 128]);
/// y.copy_from_slice(&[f16::from_f32(0.5); 128]);
/// power_stack::<_, false>(&z, &x, &y, 128);
/// assert_eq!(z.get_value(5), f16::from_f32(std::f32::consts::SQRT_2));
/// ```
///
/// # Panics
/// As [`power`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn power_stack<T: PowerElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src0: &LocalTensor<T>,
    src1: &LocalTensor<T>,
    count: usize,
) {
    power::<T, IS_REUSE_SOURCE>(dst, src0, src1, &stack_tensor(POWER), count);
}

/// `dst[i] = src0[i] ^ src1_scalar` for `i < count` (AscendC `Power<T, isReuseSource>(dstTensor,
/// src0Tensor, src1Scalar, sharedTmpBuffer, calCount)`): as [`power`] with the exponent
/// duplicated into the scratch (`k` is 5 for `float`, 7 for `half`, one more on Ascend310P).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 256);
/// pipe.init_tbuf(&mut tmp, get_power_max_min_tmp_size(Soc::Ascend910B, &[64], &[1], false, 4, false).1);
/// let (x, z) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// x.copy_from_slice(&[4.0f32; 64]);
/// power_tensor_scalar::<_, false>(&z, &x, 0.5, &tmp.get::<u8>(), 64);
/// assert!((z.get_value(63) - 2.0).abs() < 1e-5);
/// ```
///
/// # Panics
/// As [`power`] (with `src0` the only source).
#[track_caller]
pub fn power_tensor_scalar<T: PowerElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src0: &LocalTensor<T>,
    src1_scalar: T,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    check_scalar_form(dst, src0, "src0Tensor", shared_tmp_buffer, count);
    run(dst, Opd::Tensor(src0), Opd::Scalar(src1_scalar), shared_tmp_buffer, count);
}

/// [`power_tensor_scalar`] with the stack buffer as scratch (AscendC `Power<T,
/// isReuseSource>(dstTensor, src0Tensor, src1Scalar, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 256);
/// let (x, z) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// x.copy_from_slice(&[-3.0f32; 64]);
/// power_tensor_scalar_stack::<_, false>(&z, &x, 0.5, 64);
/// assert!(z.get_value(0).is_nan());
/// ```
///
/// # Panics
/// As [`power_tensor_scalar`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn power_tensor_scalar_stack<T: PowerElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src0: &LocalTensor<T>,
    src1_scalar: T,
    count: usize,
) {
    power_tensor_scalar::<T, IS_REUSE_SOURCE>(dst, src0, src1_scalar, &stack_tensor(POWER), count);
}

/// `dst[i] = src0_scalar ^ src1[i]` for `i < count` (AscendC `Power<T, isReuseSource>(dstTensor,
/// src0Scalar, src1Tensor, sharedTmpBuffer, calCount)`): as [`power`] with the base duplicated
/// into the scratch (`k` as for [`power_tensor_scalar`]). The vendor's form without `count` is
/// this call with `src1.get_size()`.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 256);
/// pipe.init_tbuf(&mut tmp, 4096);
/// let (y, z) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// y.copy_from_slice(&[10.0f32; 64]);
/// power_scalar_tensor::<_, false>(&z, 2.0, &y, &tmp.get::<u8>(), 64);
/// assert!((z.get_value(0) - 1024.0).abs() < 1e-2);
/// ```
///
/// # Panics
/// As [`power`] (with `src1` the only source).
#[track_caller]
pub fn power_scalar_tensor<T: PowerElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src0_scalar: T,
    src1: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    check_scalar_form(dst, src1, "src1Tensor", shared_tmp_buffer, count);
    run(dst, Opd::Scalar(src0_scalar), Opd::Tensor(src1), shared_tmp_buffer, count);
}

/// [`power_scalar_tensor`] with the stack buffer as scratch (AscendC `Power<T,
/// isReuseSource>(dstTensor, src0Scalar, src1Tensor, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 256);
/// let (y, z) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// y.copy_from_slice(&[0.0f32; 64]);
/// power_scalar_tensor_stack::<_, false>(&z, f32::NAN, &y, 64);
/// assert_eq!(z.get_value(0), 1.0); // x^0 is 1, even for NaN
/// ```
///
/// # Panics
/// As [`power_scalar_tensor`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn power_scalar_tensor_stack<T: PowerElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src0_scalar: T,
    src1: &LocalTensor<T>,
    count: usize,
) {
    power_scalar_tensor::<T, IS_REUSE_SOURCE>(dst, src0_scalar, src1, &stack_tensor(POWER), count);
}

// ---------------------------------------------------------------------------------------
// Host helpers
// ---------------------------------------------------------------------------------------

/// Fails unless `soc` is Ascend910B or Ascend310P, where the vendor's helper has sizes for the
/// implementations this crate emulates.
#[track_caller]
fn check_host_soc(api: &'static str, soc: Soc) {
    ensure(V220_V200.contains(&soc), api, || {
        format!(
            "{api} has no result for {soc} ({}): the vendor's function sets the sizes for Ascend910B and \
             Ascend310P (and Ascend 950, not emulated), where Power has an implementation",
            soc.product_line()
        )
    });
}

/// The host's `maxLiveNodeCount` per form (`POW_TENSOR_TENSOR_*_CALC_PROC`, …): in bytes of
/// `type_size` per element.
fn live_nodes(soc: Soc, tensor_tensor: bool, type_is_int: bool, type_size: usize) -> usize {
    let v200 = soc == Soc::Ascend310P;
    let n = match (type_is_int, type_size == 4, tensor_tensor) {
        (true, _, true) => 6,
        (true, _, false) => 7,
        (false, true, true) => 4,
        (false, true, false) => 5,
        (false, false, _) => 14,
    };
    n + v200 as usize * if !type_is_int && type_size != 4 { 2 } else { 1 }
}

/// Whether a shape is a tensor: anything but one dimension of length 1 (the vendor's
/// `ShapeIsTensor`).
fn shape_is_tensor(shape: &[usize]) -> bool {
    !(shape.len() == 1 && shape[0] == 1)
}

/// The scratch bytes `Power` needs on `soc`: `(max, min)` (AscendC `GetPowerMaxMinTmpSize(
/// srcShape1, srcShape2, typeIsInt, typeSize, isReuseSource, maxValue, minValue)`). A shape of
/// one dimension of length 1 is a scalar. With `n` the live nodes of the form (Ascend910B:
/// `float` 4 tensor–tensor, 5 with a scalar; `half` 14; `int32_t` 6 and 7; Ascend310P one
/// more, `half` two more): `min` is `256 · n` (`int32_t`), `256 · n + 256` (`float`),
/// `128 · n + 256` (`half`); `max` is `max(input bytes, 256 or 128 for half) · n`, plus 256
/// but for `int32_t`; the input is the first shape's elements, or the second's when the first
/// is a scalar.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_power_max_min_tmp_size(Soc::Ascend910B, &[16], &[16], false, 4, false), (1280, 1280));
/// assert_eq!(get_power_max_min_tmp_size(Soc::Ascend310P, &[1024], &[1], false, 2, false), (32 * 1024 + 256, 2304));
/// ```
///
/// # Panics
/// Panics if `soc` is neither Ascend910B nor Ascend310P.
#[track_caller]
pub fn get_power_max_min_tmp_size(
    soc: Soc,
    src_shape1: &[usize],
    src_shape2: &[usize],
    type_is_int: bool,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let _ = is_reuse_source;
    check_host_soc("GetPowerMaxMinTmpSize", soc);
    let (t1, t2) = (shape_is_tensor(src_shape1), shape_is_tensor(src_shape2));
    let n = live_nodes(soc, t1 && t2, type_is_int, type_size);
    let input: usize = if t1 { src_shape1.iter().product() } else { src_shape2.iter().product() };
    let min = if type_is_int {
        REPEAT * n
    } else if type_size == 4 {
        REPEAT * n + REPEAT
    } else {
        REPEAT * n / 2 + REPEAT
    };
    let proc =
        if type_size == 4 { (input * type_size).max(REPEAT) } else { (input * type_size).max(REPEAT / 2) };
    let max = if type_is_int { proc * n } else { proc * n + REPEAT };
    (max, min)
}

/// `Power`'s `(maxLiveNodeCount, extraBuffer)` on `soc` (AscendC `GetPowerTmpBufferFactorSize(
/// baseIsTensor, expIsTensor, typeIsInt, typeSize, …)`): the live nodes of
/// [`get_power_max_min_tmp_size`], and 256 extra bytes but for `int32_t`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_power_tmp_buffer_factor_size(Soc::Ascend910B, true, true, false, 4), (4, 256));
/// assert_eq!(get_power_tmp_buffer_factor_size(Soc::Ascend310P, false, true, true, 4), (8, 0));
/// ```
///
/// # Panics
/// Panics if `soc` is neither Ascend910B nor Ascend310P.
#[track_caller]
pub fn get_power_tmp_buffer_factor_size(
    soc: Soc,
    base_is_tensor: bool,
    exp_is_tensor: bool,
    type_is_int: bool,
    type_size: usize,
) -> (usize, usize) {
    check_host_soc("GetPowerTmpBufferFactorSize", soc);
    let n = live_nodes(soc, base_is_tensor && exp_is_tensor, type_is_int, type_size);
    (n, if type_is_int { 0 } else { REPEAT })
}
