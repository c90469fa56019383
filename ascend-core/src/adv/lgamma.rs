//! `Lgamma` of the advanced API (the vendor's `adv_api/math/lgamma.h`): `ln|Γ(x)|` element by
//! element, with its host tiling helpers.
//!
//! Written as the vendor's implementation for `__NPU_ARCH__` 2201 and 2002 (Ascend910B,
//! Ascend310P) writes it (asc-devkit `impl/adv_api/detail/math/lgamma/lgamma_common_impl.h`,
//! `lgamma_common_basic_impl.h`, `lgamma_common_utils.h`, `lgamma_v220_impl.h`,
//! `lgamma_v200_impl.h`): every branch is computed for every element, in `float`, and the
//! branch results are summed into the destination through masks — `Compare` against a
//! `Duplicate`d scalar into bit masks, combined with `And`/`Not` on `uint16_t`, then `Select`
//! in the compare-mask-scalar mode (`SetCmpMask` of a tensor of `0.0`) and `Add`. One
//! instruction per step, in counter mode, with the vendor's `PipeBarrier<PIPE_V>`s.
//!
//! - `float`: `dst = 0`; `+ P(|x|)` where `x ≥ 0`; `+ N(x)` where `x < 0`; `+ |x|` where `x` is
//!   NaN. `P` picks by `|x|`: `[0, 0.7)` `−ln(x + x·x·p₇(x))`; `[0.7, 1.5)` `(1 − x)·p₁₁(1 − x)`;
//!   `[1.5, 3)` `(x − 2)·p₁₀(x − 2)`; `[3, 5.8)` the rational `(x − 3) + q₄/q₃`; `[5.8, ∞)`
//!   Stirling (`0.5·ln x·(x − 0.5)` twice, `1/x` series, `0.91893851757`, `− x`); `+∞` itself.
//!   `N` is `−ln|x|` for `|x| < 9.99999968266e-20`; the reflection `ln π − ln(|s|·|x|) − P(|x|)`
//!   with `s` the vendor's sine/cosine polynomials of `(|x| − n/2)·π`, `n = floor(2|x| + 0.5)`
//!   (by its parity), where `x` is not an integer and `|s|·|x|` is finite; `+∞` elsewhere (the
//!   poles, and where the product overflows).
//! - `half`: widened to `float`; `x ≥ 0`: `L(x + 4) − ln x − ln(x+1) − ln(x+2) − ln(x+3)` with
//!   `L(w) = 0.5·ln(2π/w) + w·(ln(w + 1/(12w − 0.1/w)) − 1)`; `x < 0`: `−Pos(1 − x) +
//!   ln(π / |sin(π·(x − floor(x)))|)` with the advanced `Sin`'s steps; NaN lanes keep the
//!   widened `x`; `|x| ≥ 65504` (and ±inf) becomes `655040`; narrowed with `CAST_NONE`.
//!
//! The `half` result is narrowed with `CAST_NONE` in the core's overflow mode: on Ascend310P,
//! whose cores start in saturation mode, NaN becomes 0 and the infinities ±65504.
//!
//! Rounding down to an integral `float` (`LGammaFloor`) is one `Cast<float, float>` on
//! Ascend910B and a `Cast` through `int32_t` (saturating) on Ascend310P. The Ascend 950
//! implementation (`lgamma_3510_impl.h`) is not emulated; on Ascend910 and Ascend310B the
//! vendor's page says "不支持" and its header compiles the call to nothing, so the functions
//! fail there.

use crate::element::{f16, DType, Element};
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::sync::{event::PIPE_V, flags::pipe_barrier};
use crate::vector::binary::and_masked;
use crate::vector::cast::{cast_masked, RoundMode};
use crate::vector::compare::{compare_masked, CMPMODE};
use crate::vector::duplicate::duplicate_masked;
use crate::vector::mask::{set_cmp_mask, MASK_PLACEHOLDER};
use crate::vector::params::{BinaryRepeatParams, UnaryRepeatParams};
use crate::vector::select::select_scalar_reg;
use crate::vector::unary::{not_masked, reciprocal_masked};

use super::math_trig::sin_compute_float;
use super::steps::{self, integral};
use super::V220_V200 as CHIPS;
use super::{
    check_common, check_tmp_operands, count_mask, counter_rounds, factor_tmp_sizes, host_checks, split_count,
    stack_tensor, NARROW,
};

mod sealed {
    pub trait Sealed {}
}
impl sealed::Sealed for f16 {}
impl sealed::Sealed for f32 {}

/// Element types of [`lgamma`]: `half` and `float` (the vendor's page), on the chips that
/// have an implementation (Ascend910B, Ascend310P).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<i32>, tmp: &LocalTensor<u8>) { lgamma::<_, false>(t, t, tmp, 8) }
/// ```
pub trait LgammaElement: Element + sealed::Sealed {}
impl LgammaElement for f16 {}
impl LgammaElement for f32 {}

const LGAMMA: &str = "Lgamma";

/// `FLOAT_NOREUSE_CALC_PROC`, `FLOAT_REUSE_CALC_PROC`, `LGAMMA_HALF_CALC_PROCEDURE`: the
/// `float` tensors of scratch per round element.
const FLOAT_PROC: usize = 8;
const FLOAT_REUSE_PROC: usize = 7;
const HALF_PROC: usize = 13;
/// `PI` and `fPi` (the same `float`).
const PI: f32 = std::f32::consts::PI;
/// `F32_INF`.
const INF: f32 = f32::INFINITY;
/// The lower bound of the reflection (`minf`).
#[allow(clippy::excessive_precision)] // the vendor's literal, as written
const MIN_F: f32 = 9.99999968266e-20;
/// `params0715Len`: `LGammaCalcMulAdd`'s loop stops one short of it.
const P0715_LEN: usize = 11;

#[allow(clippy::excessive_precision)] // the vendor's literals, as written
const P007: [f32; 7] = [
    0.00358751555905,
    -0.00547128543258,
    -0.0446271263063,
    0.167317703366,
    -0.0421359799802,
    -0.655867278576,
    0.577215373516,
];
#[allow(clippy::excessive_precision)] // the vendor's literals, as written
const P0715: [f32; 11] = [
    0.0458826646209,
    0.103739671409,
    0.122803635895,
    0.127524212003,
    0.143216684461,
    0.169343575835,
    0.207407936454,
    0.27058750391,
    0.400685429573,
    0.82246696949,
    0.577215671539,
];
#[allow(clippy::excessive_precision)] // the vendor's literals, as written
const P153: [f32; 10] = [
    4.95984932058e-05,
    -0.000220894842641,
    0.000541314249858,
    -0.00120451697148,
    0.00288425176404,
    -0.00738275796175,
    0.0205813199282,
    -0.067352488637,
    0.322467029095,
    0.422784328461,
];
#[allow(clippy::excessive_precision)] // the vendor's literals, as written
const P358_X1: [f32; 4] = [-748.890319824, -12349.7421875, -41061.375, -48310.6640625];
#[allow(clippy::excessive_precision)] // the vendor's literals, as written
const P358_X2: [f32; 3] = [-259.250976562, -10777.1796875, -92685.046875];
#[allow(clippy::excessive_precision)] // the vendor's literals, as written
const P58: [f32; 2] = [0.000777830660809, -0.00277765537612];
#[allow(clippy::excessive_precision)] // the vendor's literals, as written
const NEG_ODD: [f32; 4] = [
    0.00002427957952022552490234375,
    -0.001388786011375486850738525390625,
    0.0416667275130748748779296875,
    -0.4999999701976776123046875,
];
#[allow(clippy::excessive_precision)] // the vendor's literals, as written
const NEG_EVEN: [f32; 3] =
    [-0.000195746586541645228862762451171875, 0.0083327032625675201416015625, -0.16666662693023681640625];

const UN: UnaryRepeatParams = UnaryRepeatParams::new(1, 1, 8, 8);
const BIN: BinaryRepeatParams = BinaryRepeatParams::new(1, 1, 1, 8, 8, 8);

/// The vendor's `LGammaParams`: views of the scratch (each reaching to its end, so the
/// whole-repeat reads of `Compare` stay inside it) and the round's element count.
struct Params {
    tmp1: LocalTensor<f32>,
    tmp2: LocalTensor<f32>,
    tmp3: LocalTensor<f32>,
    tmp4: LocalTensor<f32>,
    tmp5: LocalTensor<f32>,
    tmp6: LocalTensor<f32>,
    scalar: LocalTensor<f32>,
    mask: LocalTensor<u8>,
    mask1: LocalTensor<u8>,
    mask2: LocalTensor<u8>,
    mask3: LocalTensor<u8>,
    /// `params.splitSize` (the tail in the last round).
    split: usize,
    /// The full split (the `splitSize` argument of the `half` functions).
    full: usize,
}

/// `Duplicate<float, false>(dst, v, MASK_PLACEHOLDER, 1, 1, 8)` and `PipeBarrier<PIPE_V>`.
#[track_caller]
fn dup_b(dst: &LocalTensor<f32>, v: f32) {
    duplicate_masked::<f32, false>(dst, v, MASK_PLACEHOLDER, 1, 1, 8);
    pipe_barrier::<PIPE_V>();
}

/// `LGammaFloor` (`lgamma_v220_impl.h` / `lgamma_v200_impl.h`): `Cast<float, float>` with
/// `CAST_FLOOR`, or through `dst` as `int32_t`.
#[track_caller]
fn floor(dst: &LocalTensor<f32>, src: &LocalTensor<f32>) {
    integral(dst, src, &dst.reinterpret_cast::<i32>(), RoundMode::CastFloor);
}

/// `Compare<float, uint8_t, false>(mask, a, b, mode, MASK_PLACEHOLDER, ceil(n·4/256))` and its
/// barrier.
#[track_caller]
fn compare(mask: &LocalTensor<u8>, a: &LocalTensor<f32>, b: &LocalTensor<f32>, mode: CMPMODE, n: usize) {
    let repeat = (n * 4).div_ceil(256) as u8;
    compare_masked::<f32, false>(mask, a, b, mode, MASK_PLACEHOLDER, repeat, &BIN);
    pipe_barrier::<PIPE_V>();
}

/// `LGammaGenLTMask`/`LGammaGenGEMask` (and their `Half` forms): `Duplicate(tmp, scalar)`,
/// then `Compare` of `src` against it (repeats from `n`).
#[track_caller]
fn gen_mask(
    mask: &LocalTensor<u8>,
    src: &LocalTensor<f32>,
    tmp: &LocalTensor<f32>,
    scalar: f32,
    mode: CMPMODE,
    n: usize,
) {
    dup_b(tmp, scalar);
    compare(mask, src, tmp, mode, n);
}

/// `SetVectorMask<float>(0, ceil(split / 16))`, `f` (the `uint16_t` mask steps), the count
/// back to `split`.
#[track_caller]
fn on_bits(p: &Params, f: impl FnOnce()) {
    count_mask::<f32>(p.split.div_ceil(16));
    f();
    count_mask::<f32>(p.split);
}

/// `And<uint16_t, false>(dst, a, b)` of two bit masks, no barrier.
#[track_caller]
fn and_bits(dst: &LocalTensor<u8>, a: &LocalTensor<u8>, b: &LocalTensor<u8>) {
    and_masked::<u16, false>(
        &dst.reinterpret_cast::<u16>(),
        &a.reinterpret_cast::<u16>(),
        &b.reinterpret_cast::<u16>(),
        MASK_PLACEHOLDER,
        1,
        &BIN,
    );
}

/// `Not<uint16_t, false>(dst, src)` of a bit mask, no barrier.
#[track_caller]
fn not_bits(dst: &LocalTensor<u8>, src: &LocalTensor<u8>) {
    not_masked::<u16, false>(
        &dst.reinterpret_cast::<u16>(),
        &src.reinterpret_cast::<u16>(),
        MASK_PLACEHOLDER,
        1,
        &UN,
    );
}

/// `SetCmpMask(scalar)`, `Select(tmp, mask, src)` (`mask ? src : *scalar`), each with a barrier.
#[track_caller]
fn select_only(
    tmp: &LocalTensor<f32>,
    src: &LocalTensor<f32>,
    mask: &LocalTensor<u8>,
    scalar: &LocalTensor<f32>,
) {
    set_cmp_mask(scalar);
    pipe_barrier::<PIPE_V>();
    select_scalar_reg::<f32, u8>(tmp, mask, src, 1, &BIN);
    pipe_barrier::<PIPE_V>();
}

/// `LGammaSelect` / `LGammaSelectHalf`: `tmp = mask ? src : 0` (the compare-mask register
/// holds `0.0` from `tmpScalar`), then `dst = tmp + dst`.
#[track_caller]
fn select(
    dst: &LocalTensor<f32>,
    src: &LocalTensor<f32>,
    mask: &LocalTensor<u8>,
    tmp: &LocalTensor<f32>,
    scalar: &LocalTensor<f32>,
) {
    select_only(tmp, src, mask, scalar);
    steps::add(dst, tmp, dst);
}

/// `LGammaCalcMulAdd`: `(((c₀·x + c₁)·x + c₂)·x + … + c_{n−1})·x` into `tmp` (the vendor's
/// loop stops at 10 coefficients and writes the eleventh out).
#[track_caller]
fn mul_add(tmp: &LocalTensor<f32>, src: &LocalTensor<f32>, c: &[f32]) {
    steps::muls(tmp, src, c[0]);
    steps::adds(tmp, tmp, c[1]);
    for &k in &c[2..c.len().min(P0715_LEN - 1)] {
        steps::mul(tmp, tmp, src);
        steps::adds(tmp, tmp, k);
    }
    if c.len() == P0715_LEN {
        steps::mul(tmp, tmp, src);
        steps::adds(tmp, tmp, c[P0715_LEN - 1]);
    }
    steps::mul(tmp, tmp, src);
}

// ---------------------------------------------------------------------------------------
// float
// ---------------------------------------------------------------------------------------

/// `LGammaGenLTMask`/`LGammaGenGEMask` (the scalar in `tmp1`).
#[track_caller]
fn mask_f(p: &Params, mask: &LocalTensor<u8>, src: &LocalTensor<f32>, scalar: f32, mode: CMPMODE) {
    gen_mask(mask, src, &p.tmp1, scalar, mode, p.split);
}

/// `LGammaSelect` (through `tmp1`, the scalar register from `tmpScalar`).
#[track_caller]
fn select_f(p: &Params, dst: &LocalTensor<f32>, src: &LocalTensor<f32>, mask: &LocalTensor<u8>) {
    select(dst, src, mask, &p.tmp1, &p.scalar);
}

/// `LGammaGenRangeMask`: `min <= x < max` into `mask`.
#[track_caller]
fn range_mask(p: &Params, src: &LocalTensor<f32>, min: f32, max: f32) {
    mask_f(p, &p.mask, src, max, CMPMODE::LT);
    mask_f(p, &p.mask1, src, min, CMPMODE::GE);
    on_bits(p, || and_bits(&p.mask, &p.mask1, &p.mask));
    pipe_barrier::<PIPE_V>();
}

/// `LGamma007` (`0 <= x < 0.7`), into `tmp1`.
#[track_caller]
fn lgamma_007(p: &Params, src: &LocalTensor<f32>) {
    mul_add(&p.tmp1, src, &P007);
    steps::mul(&p.tmp1, &p.tmp1, src);
    steps::add(&p.tmp1, &p.tmp1, src);
    steps::ln(&p.tmp1, &p.tmp1);
    steps::muls(&p.tmp1, &p.tmp1, -1.0);
}

/// `LGamma0715` (`0.7 <= x < 1.5`), into `tmp2`.
#[track_caller]
fn lgamma_0715(p: &Params, src: &LocalTensor<f32>) {
    steps::muls(&p.tmp1, src, -1.0);
    steps::adds(&p.tmp1, &p.tmp1, 1.0);
    mul_add(&p.tmp2, &p.tmp1, &P0715);
}

/// `LGamma153` (`1.5 <= x < 3`), into `tmp2`.
#[track_caller]
fn lgamma_153(p: &Params, src: &LocalTensor<f32>) {
    steps::adds(&p.tmp1, src, -2.0);
    mul_add(&p.tmp2, &p.tmp1, &P153);
}

/// `LGamma358` (`3 <= x < 5.8`), into `tmp3`.
#[allow(clippy::excessive_precision)] // the vendor's literals, as written
#[track_caller]
fn lgamma_358(p: &Params, src: &LocalTensor<f32>) {
    steps::adds(&p.tmp1, src, -3.0);
    mul_add(&p.tmp2, &p.tmp1, &P358_X1);
    steps::adds(&p.tmp2, &p.tmp2, -143033.40625);
    mul_add(&p.tmp3, &p.tmp1, &P358_X2);
    steps::adds(&p.tmp3, &p.tmp3, -206353.578125);
    steps::div(&p.tmp3, &p.tmp2, &p.tmp3);
    steps::add(&p.tmp3, &p.tmp3, &p.tmp1);
}

/// `LGamma58` (`x >= 5.8`), into `tmp1`.
#[track_caller]
fn lgamma_58(p: &Params, src: &LocalTensor<f32>) {
    steps::ln(&p.tmp1, src);
    steps::muls(&p.tmp1, &p.tmp1, 0.5);
    steps::adds(&p.tmp2, src, -0.5);
    steps::mul(&p.tmp2, &p.tmp2, &p.tmp1);
    reciprocal_masked::<f32, false>(&p.tmp3, src, MASK_PLACEHOLDER, 1, &UN);
    pipe_barrier::<PIPE_V>();
    steps::mul(&p.tmp4, &p.tmp3, &p.tmp3);
    mul_add(&p.tmp1, &p.tmp4, &P58);
    #[allow(clippy::excessive_precision)] // the vendor's literal, as written
    steps::adds(&p.tmp1, &p.tmp1, 0.0833332762122);
    steps::mul(&p.tmp1, &p.tmp1, &p.tmp3);
    #[allow(clippy::excessive_precision)] // the vendor's literal, as written
    steps::adds(&p.tmp1, &p.tmp1, 0.91893851757);
    steps::add(&p.tmp1, &p.tmp1, &p.tmp2);
    steps::add(&p.tmp1, &p.tmp1, &p.tmp2);
    steps::sub(&p.tmp1, &p.tmp1, src);
}

/// `LGammaPositive`: `lgamma(|x|)` (`|x|` in `tmp6`) into `tmp5`.
#[track_caller]
fn positive(p: &Params) {
    let x = &p.tmp6;
    dup_b(&p.tmp5, 0.0);
    mask_f(p, &p.mask, x, 0.7, CMPMODE::LT);
    lgamma_007(p, x);
    select_f(p, &p.tmp5, &p.tmp1, &p.mask);
    range_mask(p, x, 0.7, 1.5);
    lgamma_0715(p, x);
    select_f(p, &p.tmp5, &p.tmp2, &p.mask);
    range_mask(p, x, 1.5, 3.0);
    lgamma_153(p, x);
    select_f(p, &p.tmp5, &p.tmp2, &p.mask);
    range_mask(p, x, 3.0, 5.8);
    lgamma_358(p, x);
    select_f(p, &p.tmp5, &p.tmp3, &p.mask);
    range_mask(p, x, 5.8, INF);
    lgamma_58(p, x);
    select_f(p, &p.tmp5, &p.tmp1, &p.mask);
    mask_f(p, &p.mask, x, INF, CMPMODE::GE);
    select_f(p, &p.tmp5, x, &p.mask);
}

/// `LGammaCalNegTmp1`: `n = floor(2|x| + 0.5)` in `tmp2`, its parity as masks (`mask` odd,
/// `tmpMask1` even), then `tmp2 = (|x| − n/2)·π`.
#[track_caller]
fn neg_tmp1(p: &Params) {
    steps::add(&p.tmp2, &p.tmp6, &p.tmp6);
    steps::adds(&p.tmp2, &p.tmp2, 0.5);
    floor(&p.tmp2, &p.tmp2);
    steps::muls(&p.tmp3, &p.tmp2, 0.5);
    floor(&p.tmp3, &p.tmp3);
    steps::muls(&p.tmp3, &p.tmp3, 2.0);
    steps::sub(&p.tmp3, &p.tmp2, &p.tmp3);
    mask_f(p, &p.mask, &p.tmp3, 0.5, CMPMODE::GE);
    on_bits(p, || not_bits(&p.mask1, &p.mask));
    pipe_barrier::<PIPE_V>();
    steps::muls(&p.tmp2, &p.tmp2, -0.5);
    steps::add(&p.tmp2, &p.tmp2, &p.tmp6);
    steps::muls(&p.tmp2, &p.tmp2, PI);
}

/// `LGammaCalNegTmp2`: the sine polynomial (even `n`) or the cosine one (odd `n`) of `tmp2`,
/// into `tmp2`.
#[track_caller]
fn neg_tmp2(p: &Params) {
    steps::mul(&p.tmp3, &p.tmp2, &p.tmp2);
    mul_add(&p.tmp1, &p.tmp3, &NEG_EVEN);
    steps::mul(&p.tmp1, &p.tmp1, &p.tmp2);
    steps::add(&p.tmp1, &p.tmp1, &p.tmp2);
    dup_b(&p.tmp2, 0.0);
    select_f(p, &p.tmp2, &p.tmp1, &p.mask1);
    mul_add(&p.tmp1, &p.tmp3, &NEG_ODD);
    steps::adds(&p.tmp1, &p.tmp1, 1.0);
    select_f(p, &p.tmp2, &p.tmp1, &p.mask);
}

/// `LGammaCalNegTmp3`: `tmp2 = ln π − ln(|tmp2|·|x|) − lgamma(|x|)`, the product kept in `tmp3`.
#[track_caller]
fn neg_tmp3(p: &Params) {
    steps::abs(&p.tmp1, &p.tmp2);
    steps::mul(&p.tmp3, &p.tmp1, &p.tmp6);
    steps::ln(&p.tmp1, &p.tmp3);
    steps::muls(&p.tmp1, &p.tmp1, -1.0);
    #[allow(clippy::excessive_precision)] // the vendor's literal, as written
    steps::adds(&p.tmp1, &p.tmp1, 1.1447298526763916015625);
    steps::muls(&p.tmp2, &p.tmp5, -1.0);
    steps::add(&p.tmp2, &p.tmp1, &p.tmp2);
}

/// `LGammaNegative`: the result for `x < 0` into `tmp4` (`|x|` in `tmp6`, `lgamma(|x|)` in
/// `tmp5`).
#[track_caller]
fn negative(p: &Params) {
    dup_b(&p.tmp4, 0.0);
    mask_f(p, &p.mask, &p.tmp6, MIN_F, CMPMODE::LT);
    // LGammaCalMinNeg
    steps::ln(&p.tmp1, &p.tmp6);
    steps::muls(&p.tmp1, &p.tmp1, -1.0);
    select_f(p, &p.tmp4, &p.tmp1, &p.mask);
    neg_tmp1(p);
    neg_tmp2(p);
    neg_tmp3(p);
    floor(&p.tmp1, &p.tmp6);
    compare(&p.mask, &p.tmp1, &p.tmp6, CMPMODE::NE, p.split);
    dup_b(&p.tmp1, INF);
    compare(&p.mask1, &p.tmp3, &p.tmp1, CMPMODE::LT, p.split);
    on_bits(p, || {
        and_bits(&p.mask, &p.mask1, &p.mask);
        pipe_barrier::<PIPE_V>();
    });
    mask_f(p, &p.mask1, &p.tmp6, MIN_F, CMPMODE::GE);
    on_bits(p, || {
        and_bits(&p.mask, &p.mask1, &p.mask);
        pipe_barrier::<PIPE_V>();
    });
    select_f(p, &p.tmp4, &p.tmp2, &p.mask);
    on_bits(p, || {
        not_bits(&p.mask1, &p.mask);
        pipe_barrier::<PIPE_V>();
    });
    mask_f(p, &p.mask, &p.tmp6, MIN_F, CMPMODE::GE);
    on_bits(p, || {
        and_bits(&p.mask1, &p.mask1, &p.mask);
        pipe_barrier::<PIPE_V>();
    });
    dup_b(&p.tmp2, INF);
    select_f(p, &p.tmp4, &p.tmp2, &p.mask1);
}

/// `LgammaComputeImpl` for `float`, one round.
#[track_caller]
fn compute_float(p: &Params, dst: &LocalTensor<f32>, src: &LocalTensor<f32>) {
    mask_f(p, &p.mask2, src, 0.0, CMPMODE::GE);
    mask_f(p, &p.mask3, src, 0.0, CMPMODE::LT);
    steps::abs(&p.tmp6, src);
    dup_b(&p.scalar, 0.0);
    positive(p);
    dup_b(dst, 0.0);
    select_f(p, dst, &p.tmp5, &p.mask2);
    negative(p);
    select_f(p, dst, &p.tmp4, &p.mask3);
    on_bits(p, || {
        not_bits(&p.mask, &p.mask2);
        not_bits(&p.mask1, &p.mask3);
        pipe_barrier::<PIPE_V>();
        and_bits(&p.mask, &p.mask1, &p.mask);
        pipe_barrier::<PIPE_V>();
    });
    select_f(p, dst, &p.tmp6, &p.mask);
}

// ---------------------------------------------------------------------------------------
// half
// ---------------------------------------------------------------------------------------

/// `Lgamma1Compute`: `L(x + 4)` into `dst` (`t` the four `float` tensors of its scratch).
#[track_caller]
fn lgamma1(dst: &LocalTensor<f32>, src: &LocalTensor<f32>, t: &[LocalTensor<f32>; 4]) {
    let [t1, t2, t3, t4] = t;
    steps::adds(t1, src, 4.0);
    dup_b(dst, 1.0);
    steps::div(dst, dst, t1);
    steps::muls(t2, dst, PI);
    steps::muls(t2, t2, 2.0);
    steps::ln(t2, t2);
    steps::muls(t2, t2, 0.5);
    steps::muls(t3, dst, -0.1);
    steps::muls(t4, t1, 12.0);
    steps::add(t4, t4, t3);
    dup_b(dst, 1.0);
    steps::div(t4, dst, t4);
    steps::add(t4, t4, t1);
    steps::ln(t4, t4);
    steps::adds(t4, t4, -1.0);
    steps::mul(t4, t4, t1);
    steps::add(dst, t4, t2);
}

/// The four `float` tensors of `split` from `tmp`.
fn four(tmp: &LocalTensor<f32>, split: usize) -> [LocalTensor<f32>; 4] {
    [tmp.clone(), tmp.view(split), tmp.view(2 * split), tmp.view(3 * split)]
}

/// `LgammaComputePosHalf`: `L(x + 4) − ln x − ln(x+1) − ln(x+2) − ln(x+3)` into `dst` (four
/// `float` tensors of scratch from `tmp`).
#[track_caller]
fn pos_half(dst: &LocalTensor<f32>, src: &LocalTensor<f32>, tmp: &LocalTensor<f32>, split: usize) {
    let t = four(tmp, split);
    lgamma1(dst, src, &t);
    pipe_barrier::<PIPE_V>();
    let [_, t2, t3, _] = &t;
    steps::ln(t3, src);
    for c in [1.0, 2.0, 3.0] {
        steps::adds(t2, src, c);
        steps::ln(t2, t2);
        steps::add(t3, t3, t2);
    }
    steps::sub(dst, dst, t3);
}

/// `LgammaComputeNegHalf`: `−Pos(1 − x) + ln(π / |sin(π·(x − floor(x)))|)` into `dst` (six
/// `float` tensors of scratch from `tmp`; `Pos` and `Sin` use the last four).
#[track_caller]
fn neg_half(dst: &LocalTensor<f32>, src: &LocalTensor<f32>, tmp: &LocalTensor<f32>, split: usize) {
    let [t1, t2, t3, _] = four(tmp, split);
    let t7 = tmp.view(2 * split);
    steps::muls(&t1, src, -1.0);
    steps::adds(&t1, &t1, 1.0);
    pos_half(dst, &t1, &t7, split);
    pipe_barrier::<PIPE_V>();
    steps::muls(dst, dst, -1.0);
    floor(&t1, src);
    steps::sub(&t1, src, &t1);
    steps::muls(&t1, &t1, PI);
    sin_compute_float(&t2, &t1, &t7, split);
    pipe_barrier::<PIPE_V>();
    steps::abs(&t2, &t2);
    dup_b(&t3, PI);
    steps::div(&t2, &t3, &t2);
    steps::ln(&t2, &t2);
    steps::add(dst, dst, &t2);
}

/// `LgammaComputeImpl` for `half`, one round.
#[track_caller]
fn compute_half(p: &Params, dst: &LocalTensor<f16>, src: &LocalTensor<f16>) {
    let full = p.full;
    dup_b(&p.tmp1, 0.0);
    steps::widen(&p.tmp2, src);
    dup_b(&p.scalar, 0.0);
    pos_half(&p.tmp3, &p.tmp2, &p.tmp6, full);
    pipe_barrier::<PIPE_V>();
    gen_mask(&p.mask, &p.tmp2, &p.tmp5, 0.0, CMPMODE::GE, full);
    select(&p.tmp1, &p.tmp3, &p.mask, &p.tmp5, &p.scalar);
    neg_half(&p.tmp4, &p.tmp2, &p.tmp6, full);
    pipe_barrier::<PIPE_V>();
    gen_mask(&p.mask1, &p.tmp2, &p.tmp5, 0.0, CMPMODE::LT, full);
    select(&p.tmp1, &p.tmp4, &p.mask1, &p.tmp5, &p.scalar);
    count_mask::<f32>(p.split.div_ceil(16));
    not_bits(&p.mask2, &p.mask);
    not_bits(&p.mask3, &p.mask1);
    pipe_barrier::<PIPE_V>();
    and_bits(&p.mask2, &p.mask2, &p.mask3);
    pipe_barrier::<PIPE_V>();
    count_mask::<f32>(p.split);
    select(&p.tmp1, &p.tmp2, &p.mask2, &p.tmp4, &p.scalar);
    steps::abs(&p.tmp2, &p.tmp2);
    gen_mask(&p.mask2, &p.tmp2, &p.tmp4, 65504.0, CMPMODE::GE, full);
    on_bits(p, || {
        not_bits(&p.mask3, &p.mask2);
        pipe_barrier::<PIPE_V>();
    });
    // LGammaSelectINF
    dup_b(&p.scalar, 655040.0);
    select_only(&p.tmp1, &p.tmp1, &p.mask3, &p.scalar);
    cast_masked::<f16, f32, false>(dst, &p.tmp1, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &NARROW);
}

/// `dst[i] = ln|Γ(src[i])|` for `i < count`, with `shared_tmp_buffer` as scratch (AscendC
/// `Lgamma<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, calCount)`).
///
/// As the vendor's implementation (see the [module](self) for the formulas), in counter mode
/// over rounds of `split = shared_tmp_buffer.get_size() / 4 / n / 32 * 32` elements, `n` 13
/// for `half`, 8 for `float`, 7 for `float` with `IS_REUSE_SOURCE`; the last round runs the
/// tail. The scratch holds `float` tensors of `split` — `float`: `tmp1` … `tmp6`, `tmpScalar`
/// (which is `src` itself, from its first element whatever the round, with `IS_REUSE_SOURCE`:
/// `src`'s first elements are set to 0), then four bit masks of `split` bytes; `half`: `tmp1`
/// … `tmp5`, `tmpScalar`, the four masks, then six tensors the `half` steps (and `Sin`'s) use.
/// `IS_REUSE_SOURCE` has no effect for `half` (the vendor's check only warns).
///
/// Results: `+inf` at `0`, `−0`, the negative integers and `±inf`; NaN for NaN (`float`: with
/// the sign cleared); for `half` `|x| ≥ 65504` gives `655040` before narrowing, so `+inf`
/// (65504 in saturation mode).
///
/// Because `Compare` works on whole 256-byte repeats and the `float` kernel compares `src`
/// directly, for `float` `src` must reach the end of the last round's last repeat (the bits
/// past the count are not used).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 64 * 4);
/// pipe.init_tbuf(&mut tmp, get_lgamma_max_min_tmp_size(64, 4, false).0);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// x.copy_from_slice(&[0.5f32; 64]);
/// x.set_value(1, -2.0);
/// lgamma::<_, false>(&y, &x, &tmp.get::<u8>(), 64);
/// assert!((y.get_value(0) - 0.5723649).abs() < 1e-6); // ln √π
/// assert_eq!(y.get_value(1), f32::INFINITY); // a pole
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); `count` exceeds `src` or
/// `dst`; a tensor is not in the Unified Buffer; `dst` overlaps `src`, or the scratch overlaps
/// either (the vendor's constraints); the scratch has no split (less than 1664 bytes for
/// `half`, 1024 for `float`, 896 with `IS_REUSE_SOURCE`); a `float` `src` ends before the
/// elements `Compare` reads (see above); or any instruction's own check fails.
#[track_caller]
pub fn lgamma<T: LgammaElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    check_common(LGAMMA, &CHIPS, dst, src, count);
    check_tmp_operands(LGAMMA, dst, src, shared_tmp_buffer, count, true);
    let half = T::DTYPE == DType::F16;
    let reuse = IS_REUSE_SOURCE && !half;
    let proc = match (half, reuse) {
        (true, _) => HALF_PROC,
        (false, false) => FLOAT_PROC,
        (false, true) => FLOAT_REUSE_PROC,
    };
    let split = split_count(LGAMMA, shared_tmp_buffer, 4, proc);
    let (loops, tail) = (count / split, count % split);
    if count > 0 && !half {
        let (last_off, last) = if tail > 0 { (loops * split, tail) } else { ((loops - 1) * split, split) };
        let end = last_off + last.div_ceil(64) * 64;
        let have = src.get_size();
        ensure(have >= end, LGAMMA, || {
            format!(
                "srcTensor has {have} float elements; calCount = {count} needs {end}: Compare reads the last round's \
                 elements in whole 256-byte repeats (the vendor's kernel touches them)"
            )
        });
    }
    let tmp = shared_tmp_buffer.reinterpret_cast::<f32>();
    let v = |k: usize| tmp.view(k * split);
    let src_f = src.reinterpret_cast::<f32>();
    let (tmp6, scalar, masks) = match (half, reuse) {
        (true, _) => (v(7), v(5), v(6)),
        (false, false) => (v(5), v(6), v(7)),
        (false, true) => (v(5), src_f.clone(), v(6)),
    };
    let masks = masks.reinterpret_cast::<u8>();
    let mut p = Params {
        tmp1: v(0),
        tmp2: v(1),
        tmp3: v(2),
        tmp4: v(3),
        tmp5: v(4),
        tmp6,
        scalar,
        mask: masks.clone(),
        mask1: masks.view(split),
        mask2: masks.view(2 * split),
        mask3: masks.view(3 * split),
        split,
        full: split,
    };
    let round = |p: &Params, off: usize| {
        if half {
            compute_half(
                p,
                &dst.reinterpret_cast::<f16>().view(off),
                &src.reinterpret_cast::<f16>().view(off),
            );
        } else {
            compute_float(p, &dst.reinterpret_cast::<f32>().view(off), &src_f.view(off));
        }
    };
    counter_rounds::<T>(
        count,
        split,
        |t| t,
        |off, n| {
            p.split = n;
            round(&p, off);
        },
    );
}

/// [`lgamma`] with the stack buffer as scratch (AscendC `Lgamma<T, isReuseSource>(dstTensor,
/// srcTensor, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 128 * 2);
/// let (x, y) = (q.get_with_offset::<f16>(128, 0), q.get_with_offset::<f16>(128, 256));
/// x.copy_from_slice(&[f16::from_f32(10.0); 128]);
/// lgamma_stack::<_, false>(&y, &x, 128);
/// assert!((y.get_value(0).to_f32() - 12.8018).abs() < 1e-2); // ln 9!
/// ```
///
/// # Panics
/// As [`lgamma`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn lgamma_stack<T: LgammaElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    lgamma::<T, IS_REUSE_SOURCE>(dst, src, &stack_tensor(LGAMMA), count);
}

/// The scratch bytes `Lgamma` needs for `input_size` elements of `type_size` bytes: `(max,
/// min)` (AscendC `GetLgammaMaxMinTmpSize`, Ascend910B and Ascend310P, `lgamma_tiling.cpp`):
/// `fac · max(input bytes, 256)` and `fac · 256`, `fac` 26 for `half` (whatever
/// `is_reuse_source`), 8 for `float`, 7 for `float` with `is_reuse_source`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_lgamma_max_min_tmp_size(1024, 4, false), (32768, 2048));
/// assert_eq!(get_lgamma_max_min_tmp_size(1024, 4, true), (28672, 1792));
/// assert_eq!(get_lgamma_max_min_tmp_size(16, 2, false), (6656, 6656));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0 (the vendor's host check) or `type_size` is neither 2 nor 4
/// (`half` or `float`, the page's types).
#[track_caller]
pub fn get_lgamma_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    factor_tmp_sizes(
        "GetLgammaMaxMinTmpSize",
        input_size,
        type_size,
        is_reuse_source,
        [FLOAT_PROC, FLOAT_REUSE_PROC, 2 * HALF_PROC],
    )
}

/// `Lgamma`'s `(maxLiveNodeCount, extraBuf)` (AscendC `GetLgammaTmpBufferFactorSize`,
/// Ascend910B and Ascend310P): 13 for `half`, 8 for `float`. For `half` this is the kernel's
/// `float` tensors per element counted in `half`-sized units, so a buffer sized from it
/// (`13 · 2 · n` bytes) runs `n` elements in about two rounds (the vendor's numbers).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_lgamma_tmp_buffer_factor_size(2), (13, 0));
/// assert_eq!(get_lgamma_tmp_buffer_factor_size(4), (8, 0));
/// ```
///
/// # Panics
/// Panics if `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_lgamma_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    host_checks("GetLgammaTmpBufferFactorSize", 1, type_size);
    (if type_size == 4 { FLOAT_PROC } else { HALF_PROC }, 0)
}
