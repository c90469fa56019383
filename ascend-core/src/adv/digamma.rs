//! `Digamma` of the advanced API (the vendor's `adv_api/math/digamma.h`): `ψ(x) = Γ'(x)/Γ(x)`
//! element by element, with its host tiling helpers.
//!
//! Written as the vendor's implementation for `__NPU_ARCH__` 2201 and 2002 (Ascend910B,
//! Ascend310P) writes it (asc-devkit `impl/adv_api/detail/math/digamma/digamma_common_impl.h`,
//! `digamma_common_basic_impl.h`, `digamma_v220_impl.h`, `digamma_v200_impl.h`): every branch
//! is computed for every element, in `float`, and the branch results are summed into the
//! destination through masks — `Compare` against a `Duplicate`d scalar into bit masks,
//! combined with `And`/`Not` on `uint16_t`, then `Select` in the compare-mask-scalar mode
//! (`SetCmpMask` of a tensor of `0.0`) and `Add`. One instruction per step, in counter mode,
//! with the vendor's `PipeBarrier<PIPE_V>`s (and without them where the vendor has none).
//!
//! - `float`: `dst = 0`; `+ NaN` where `x ≤ −8388608`; `+ NaN` where `x` is a negative
//!   integer above that (`x == round(x)`, `CAST_ROUND`); `+ x` where `x` is NaN; `+ P(x)`
//!   where `x ≥ 0`; `+ P(1 − x) + π·cot-like(x)` where `x < 0`. `P` is the asymptotic series
//!   at `w = x + 10` (`ln w − 0.5/w − z·(…)`, `z = 1/w²`, six coefficients) less
//!   `Σ_{i=0..9} 1/(x + i)`; the reflection term is the vendor's `picotpix`: a degree-6 odd
//!   polynomial of `(2x − round(2x))·π/2` (a tangent), taken as is or as `−1/t` by the parity
//!   of `round(2x)`, times π.
//! - `half`: widened to `float`; the same masks (NaN lanes keep the widened `x`), but a shorter
//!   series (`w = x + 3`, four terms, less `1/x + 1/(x+1) + 1/(x+2)`) and the reflection
//!   `P(1 − x) − π/tan(π·(x − floor(x)))` with the advanced `Tan`'s steps for `x < −0.0001`;
//!   for `−0.0001 ≤ x < 0` `P(1 − x) − π·cos(π·frac(x))/sin(−π·x)` with `Cos`'s and `Sin`'s
//!   steps (the vendor's comment calls the first one `sin`); narrowed with `CAST_NONE`.
//!
//! The `half` result is narrowed with `CAST_NONE` in the core's overflow mode: on Ascend310P,
//! whose cores start in saturation mode, NaN becomes 0 and the infinities ±65504.
//!
//! Rounding to an integral `float` (`DigammaCast`) is one `Cast<float, float>` on Ascend910B
//! and a `Cast` through `int32_t` (saturating) on Ascend310P. The Ascend 950 implementation
//! (`digamma_3510_impl.h`) is not emulated; on Ascend910 and Ascend310B the vendor's page says
//! "不支持" and its header compiles the call to nothing, so the functions fail there.

use crate::element::{f16, DType, Element};
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::sync::{event::PIPE_V, flags::pipe_barrier};
use crate::vector::binary::{and_masked, div_masked, mul_masked};
use crate::vector::cast::{cast_masked, RoundMode};
use crate::vector::compare::{compare_masked, CMPMODE};
use crate::vector::duplicate::duplicate_masked;
use crate::vector::mask::{reset_mask, set_cmp_mask, set_mask_count, set_mask_norm, MASK_PLACEHOLDER};
use crate::vector::params::{BinaryRepeatParams, UnaryRepeatParams};
use crate::vector::select::select_scalar_reg;
use crate::vector::unary::not_masked;

use super::math_trig::{sin_cos_compute_float_reuse, tan_compute_float};
use super::steps::{self, integral};
use super::V220_V200 as CHIPS;
use super::{
    check_common, check_tmp_operands, count_mask, factor_tmp_sizes, host_checks, split_count, stack_tensor,
    NARROW,
};

mod sealed {
    pub trait Sealed {}
}
impl sealed::Sealed for f16 {}
impl sealed::Sealed for f32 {}

/// Element types of [`digamma`]: `half` and `float` (the vendor's page), on the chips that
/// have an implementation (Ascend910B, Ascend310P).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<i32>, tmp: &LocalTensor<u8>) { digamma::<_, false>(t, t, tmp, 8) }
/// ```
pub trait DigammaElement: Element + sealed::Sealed {}
impl DigammaElement for f16 {}
impl DigammaElement for f32 {}

const DIGAMMA: &str = "Digamma";

/// `MIN_NEG_WITH_FLOAT`: from here down every `float` is an integer, and the result is NaN.
const MIN_NEG: f32 = -8388608.0;
/// `DIGAMMA_PI` (`3.141592653589793238f`).
const PI: f32 = std::f32::consts::PI;
/// `F32_NAN` (`0x7fc00000`).
const NAN: f32 = f32::from_bits(0x7fc0_0000);
/// `DIGAMMA_FLOAT_NOREUSE_CALC_PROC`, `DIGAMMA_FLOAT_REUSE_CALC_PROC`, `DIGAMMA_HALF_CALC_PROC`:
/// the `float` tensors of scratch per round element.
const FLOAT_PROC: usize = 7;
const FLOAT_REUSE_PROC: usize = 6;
const HALF_PROC: usize = 8;
/// `DIGAMMA_MAX_LOOP`: the loops below are split at it (with no effect on the steps).
const MAX_LOOP: usize = 5;
/// `posCalcConst` (the vendor's `double` literals in a `float` array).
#[allow(clippy::excessive_precision)] // the vendor's literals, as written
const POS_CONST: [f32; 6] = [
    2.10927960927960927961e-2_f64 as f32,
    7.57575757575757575758e-3_f64 as f32,
    4.16666666666666666667e-3_f64 as f32,
    3.96825396825396825397e-3_f64 as f32,
    8.33333333333333333333e-3_f64 as f32,
    8.33333333333333333333e-2_f64 as f32,
];
/// `picotCalcConst`.
#[allow(clippy::excessive_precision)] // the vendor's literals, as written
const PICOT_CONST: [f32; 5] =
    [0.00326538085938, 0.0242919921875, 0.053466796875, 0.133377909660, 0.333332300186];

/// The vendor's `DigammaParams`: views of the scratch (each reaching to its end, so the
/// whole-repeat reads of `Compare` stay inside it) and the round's element count.
struct Params {
    result: LocalTensor<f32>,
    cal1: LocalTensor<f32>,
    cal2: LocalTensor<f32>,
    cal3: LocalTensor<f32>,
    cal4: LocalTensor<f32>,
    cal5: LocalTensor<f32>,
    scalar: LocalTensor<f32>,
    mask: LocalTensor<u8>,
    mask1: LocalTensor<u8>,
    mask2: LocalTensor<u8>,
    split: usize,
}

const UN: UnaryRepeatParams = UnaryRepeatParams::new(1, 1, 8, 8);
const BIN: BinaryRepeatParams = BinaryRepeatParams::new(1, 1, 1, 8, 8, 8);

/// `Duplicate<float, false>(dst, v, MASK_PLACEHOLDER, 1, 1, 8)`, without a barrier.
#[track_caller]
fn dup(dst: &LocalTensor<f32>, v: f32) {
    duplicate_masked::<f32, false>(dst, v, MASK_PLACEHOLDER, 1, 1, 8);
}

/// [`dup`] followed by `PipeBarrier<PIPE_V>`.
#[track_caller]
fn dup_b(dst: &LocalTensor<f32>, v: f32) {
    dup(dst, v);
    pipe_barrier::<PIPE_V>();
}

/// `DigammaCast` (`digamma_v220_impl.h` / `digamma_v200_impl.h`).
#[track_caller]
fn cast_integral(dst: &LocalTensor<f32>, src: &LocalTensor<f32>, mode: RoundMode) {
    integral(dst, src, &dst.reinterpret_cast::<i32>(), mode);
}

/// `DigammaGenCompareMask`: `Duplicate(tmpScalar, scalar)`, then `Compare` over
/// `ceil(split · 4 / 256)` repeats (in counter mode the count rules).
#[track_caller]
fn compare_mask(p: &Params, mask: &LocalTensor<u8>, src: &LocalTensor<f32>, scalar: f32, mode: CMPMODE) {
    dup_b(&p.scalar, scalar);
    let repeat = (p.split * 4).div_ceil(256) as u8;
    compare_masked::<f32, false>(mask, src, &p.scalar, mode, MASK_PLACEHOLDER, repeat, &BIN);
    pipe_barrier::<PIPE_V>();
}

/// `And<uint16_t>` of two bit masks under the count `ceil(split / 16)`, the count restored to
/// `split` afterwards.
#[track_caller]
fn and_bits(p: &Params, dst: &LocalTensor<u8>, a: &LocalTensor<u8>, b: &LocalTensor<u8>) {
    count_mask::<f32>(p.split.div_ceil(16));
    and_bits_at_count(dst, a, b);
    count_mask::<f32>(p.split);
}

/// `And<uint16_t, false>(dst, a, b)` and its barrier, under the count already set.
#[track_caller]
fn and_bits_at_count(dst: &LocalTensor<u8>, a: &LocalTensor<u8>, b: &LocalTensor<u8>) {
    and_masked::<u16, false>(
        &dst.reinterpret_cast::<u16>(),
        &a.reinterpret_cast::<u16>(),
        &b.reinterpret_cast::<u16>(),
        MASK_PLACEHOLDER,
        1,
        &BIN,
    );
    pipe_barrier::<PIPE_V>();
}

/// `DigammaGenNegIntMask`: `x < 0 && x > −8388608 && x == round(x)` (`CAST_ROUND` into
/// `tmpCal1`).
#[track_caller]
fn neg_int_mask(p: &Params, mask: &LocalTensor<u8>, src: &LocalTensor<f32>) {
    compare_mask(p, &p.mask1, src, 0.0, CMPMODE::LT);
    compare_mask(p, &p.mask2, src, MIN_NEG, CMPMODE::GT);
    and_bits(p, &p.mask1, &p.mask1, &p.mask2);
    cast_integral(&p.cal1, src, RoundMode::CastRound);
    let repeat = (p.split * 4).div_ceil(256) as u8;
    compare_masked::<f32, false>(&p.mask2, src, &p.cal1, CMPMODE::EQ, MASK_PLACEHOLDER, repeat, &BIN);
    pipe_barrier::<PIPE_V>();
    and_bits(p, mask, &p.mask1, &p.mask2);
}

/// `DigammaGenRangeMask`: `min <= x && x < max`.
#[track_caller]
fn range_mask(p: &Params, mask: &LocalTensor<u8>, src: &LocalTensor<f32>, min: f32, max: f32) {
    compare_mask(p, &p.mask1, src, max, CMPMODE::LT);
    compare_mask(p, &p.mask2, src, min, CMPMODE::GE);
    and_bits(p, mask, &p.mask1, &p.mask2);
}

/// `DigammaGenNanMask`: `!(x < 0) && !(x >= 0)`.
#[track_caller]
fn nan_mask(p: &Params, mask: &LocalTensor<u8>, src: &LocalTensor<f32>) {
    compare_mask(p, &p.mask1, src, 0.0, CMPMODE::LT);
    compare_mask(p, &p.mask2, src, 0.0, CMPMODE::GE);
    count_mask::<f32>(p.split.div_ceil(16));
    for m in [&p.mask1, &p.mask2] {
        let m = m.reinterpret_cast::<u16>();
        not_masked::<u16, false>(&m, &m, MASK_PLACEHOLDER, 1, &UN);
    }
    pipe_barrier::<PIPE_V>();
    and_bits_at_count(mask, &p.mask1, &p.mask2);
    count_mask::<f32>(p.split);
}

/// `DigammaSelect`: `tmp = mask ? src : 0` (`Select` with the compare-mask register holding
/// `0.0` from `tmpScalar`), then `dst = tmp + dst`.
#[track_caller]
fn select(
    p: &Params,
    dst: &LocalTensor<f32>,
    src: &LocalTensor<f32>,
    mask: &LocalTensor<u8>,
    tmp: &LocalTensor<f32>,
) {
    dup_b(&p.scalar, 0.0);
    set_cmp_mask(&p.scalar);
    pipe_barrier::<PIPE_V>();
    select_scalar_reg::<f32, u8>(tmp, mask, src, 1, &BIN);
    pipe_barrier::<PIPE_V>();
    steps::add(dst, tmp, dst);
}

/// `1 / src` into `dst` (`Duplicate(tmpScalar, 1)` and `Div`), with no barrier after the
/// `Div` (as the vendor).
#[track_caller]
fn reciprocal_nb(p: &Params, dst: &LocalTensor<f32>, src: &LocalTensor<f32>) {
    dup_b(&p.scalar, 1.0);
    div_masked::<f32, false>(dst, &p.scalar, src, MASK_PLACEHOLDER, 1, &BIN);
}

/// `dst += 1 / (src + c)` for each `c` (into `tmpCal2`; `tmpScalar` holds 1).
#[track_caller]
fn add_reciprocals(p: &Params, dst: &LocalTensor<f32>, src: &LocalTensor<f32>, consts: &[f32]) {
    for &c in consts {
        steps::adds(&p.cal2, src, c);
        steps::div(&p.cal2, &p.scalar, &p.cal2);
        steps::add(dst, dst, &p.cal2);
    }
}

// ---------------------------------------------------------------------------------------
// half
// ---------------------------------------------------------------------------------------

/// `DigammaPositiveHalf`: `ln(x + 3) − 0.5/w − c₁/w² − c₂/w⁴ − c₃/w⁶ − (1/x + 1/(x+1) +
/// 1/(x+2))`, with `w = x + 3`; uses `tmpCal1`, `tmpCal2`, `tmpScalar`.
#[track_caller]
fn positive_half(p: &Params, dst: &LocalTensor<f32>, src: &LocalTensor<f32>) {
    steps::adds(&p.cal1, src, 3.0);
    steps::ln(dst, &p.cal1);
    dup_b(&p.scalar, 1.0);
    steps::div(&p.cal1, &p.scalar, &p.cal1);
    steps::muls(&p.scalar, &p.cal1, 0.5);
    steps::sub(dst, dst, &p.scalar);
    steps::mul(&p.cal1, &p.cal1, &p.cal1);
    #[allow(clippy::excessive_precision)] // the vendor's literals, as written
    const C: [f32; 3] = [0.0833333333333333, 0.0083333333333333, 0.003968253968254];
    steps::muls(&p.scalar, &p.cal1, C[0]);
    steps::sub(dst, dst, &p.scalar);
    steps::mul(&p.cal2, &p.cal1, &p.cal1);
    steps::muls(&p.scalar, &p.cal2, C[1]);
    steps::sub(dst, dst, &p.scalar);
    steps::mul(&p.cal2, &p.cal2, &p.cal1);
    steps::muls(&p.scalar, &p.cal2, C[2]);
    steps::sub(dst, dst, &p.scalar);
    reciprocal_nb(p, &p.cal1, src);
    add_reciprocals(p, &p.cal1, src, &[1.0, 2.0]);
    steps::sub(dst, dst, &p.cal1);
}

/// `DigammaNegativeHalf`: `Positive(1 − x)` (kept in `tmpCal2`) less `tmpCal3` (`π / tan(…)`,
/// computed first); `tmpCal5` becomes `1 − x`.
#[track_caller]
fn negative_half(p: &Params, dst: &LocalTensor<f32>, src: &LocalTensor<f32>) {
    dup_b(&p.scalar, 1.0);
    steps::sub(&p.cal5, &p.scalar, src);
    positive_half(p, dst, &p.cal5);
    steps::adds(&p.cal2, dst, 0.0);
    steps::sub(dst, dst, &p.cal3);
}

/// `DigammaNegativeRange` (`−0.0001 <= x < 0`): `Positive(1 − x)` (in `tmpCal2`) less
/// `π·cos(π·(x − floor(x))) / sin(−π·x)`; `src` is multiplied by `−π` in place.
#[track_caller]
fn negative_range(p: &Params, dst: &LocalTensor<f32>, src: &LocalTensor<f32>) {
    cast_integral(&p.scalar, src, RoundMode::CastFloor);
    steps::sub(&p.scalar, src, &p.scalar);
    steps::muls(&p.scalar, &p.scalar, PI);
    sin_cos_compute_float_reuse(true, &p.cal3, &p.scalar, &p.result, p.split);
    steps::muls(src, src, -PI);
    sin_cos_compute_float_reuse(false, &p.scalar, src, &p.result, p.split);
    steps::muls(&p.cal3, &p.cal3, PI);
    steps::div(&p.cal3, &p.cal3, &p.scalar);
    steps::sub(dst, &p.cal2, &p.cal3);
}

/// `DigammaComputeImpl` for `half`, one round.
#[track_caller]
fn compute_half(p: &Params, dst: &LocalTensor<f16>, src: &LocalTensor<f16>) {
    steps::widen(&p.cal5, src);
    cast_integral(&p.cal4, &p.cal5, RoundMode::CastFloor);
    steps::sub(&p.cal4, &p.cal5, &p.cal4);
    steps::muls(&p.cal4, &p.cal4, PI);
    tan_compute_float(&p.scalar, &p.cal4, &p.result, p.split);
    dup_b(&p.cal1, PI);
    steps::div(&p.cal3, &p.cal1, &p.scalar);
    dup(&p.cal4, 0.0);
    dup(&p.result, NAN);

    compare_mask(p, &p.mask, &p.cal5, MIN_NEG, CMPMODE::LE);
    select(p, &p.cal4, &p.result, &p.mask, &p.cal1);
    neg_int_mask(p, &p.mask1, &p.cal5);
    select(p, &p.cal4, &p.result, &p.mask1, &p.cal1);
    nan_mask(p, &p.mask, &p.cal5);
    select(p, &p.cal4, &p.cal5, &p.mask, &p.cal1);
    compare_mask(p, &p.mask, &p.cal5, 0.0, CMPMODE::GE);
    positive_half(p, &p.result, &p.cal5);
    select(p, &p.cal4, &p.result, &p.mask, &p.cal1);
    compare_mask(p, &p.mask, &p.cal5, -0.0001, CMPMODE::LT);
    negative_half(p, &p.result, &p.cal5);
    select(p, &p.cal4, &p.result, &p.mask, &p.cal1);

    steps::widen(&p.cal5, src);
    range_mask(p, &p.mask, &p.cal5, -0.0001, 0.0);
    negative_range(p, &p.result, &p.cal5);
    select(p, &p.cal4, &p.result, &p.mask, &p.cal1);

    cast_masked::<f16, f32, false>(dst, &p.cal4, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &NARROW);
    pipe_barrier::<PIPE_V>();
}

// ---------------------------------------------------------------------------------------
// float
// ---------------------------------------------------------------------------------------

/// `DigammaPositiveTmp0`: `ln(w) − 0.5/w − z·(c₀ − z·(c₁ − … ))` with `w = x + 10`, `z =
/// 1/w²`; uses `tmpCal1`, `tmpCal2`, `tmpScalar`.
#[track_caller]
fn positive_tmp0(p: &Params, dst: &LocalTensor<f32>, src: &LocalTensor<f32>) {
    steps::adds(&p.cal1, src, 10.0);
    steps::ln(dst, &p.cal1);
    dup_b(&p.scalar, 1.0);
    steps::div(&p.cal1, &p.scalar, &p.cal1);
    steps::muls(&p.cal2, &p.cal1, 0.5);
    steps::sub(dst, dst, &p.cal2);
    mul_masked::<f32, false>(&p.cal1, &p.cal1, &p.cal1, MASK_PLACEHOLDER, 1, &BIN);
    #[allow(clippy::excessive_precision)] // the vendor's literal, as written
    dup_b(&p.cal2, 8.33333333333333333333e-2_f64 as f32);
    // Two loops in the vendor's code (split at DIGAMMA_MAX_LOOP), the same steps.
    for &c in POS_CONST[..MAX_LOOP].iter().chain(&POS_CONST[MAX_LOOP..]) {
        dup(&p.scalar, c);
        steps::mul(&p.cal2, &p.cal1, &p.cal2);
        steps::sub(&p.cal2, &p.scalar, &p.cal2);
    }
    steps::mul(&p.cal2, &p.cal1, &p.cal2);
    steps::sub(dst, dst, &p.cal2);
}

/// `DigammaPositive`: `tmp0 − Σ_{i=0..9} 1/(x + i)` (the sum in `tmpCal1`).
#[track_caller]
fn positive(p: &Params, dst: &LocalTensor<f32>, src: &LocalTensor<f32>) {
    positive_tmp0(p, dst, src);
    reciprocal_nb(p, &p.cal1, src);
    add_reciprocals(p, &p.cal1, src, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    steps::sub(dst, dst, &p.cal1);
}

/// `DigammaNegPicotPix`: `π · (t` or `−1/t)` with `t` the vendor's tangent polynomial of
/// `(2x − round(2x))·π/2`, chosen by the parity of `round(2x)`.
#[track_caller]
fn neg_picot_pix(p: &Params, dst: &LocalTensor<f32>, src: &LocalTensor<f32>) {
    steps::add(&p.cal1, src, src);
    cast_integral(&p.cal2, &p.cal1, RoundMode::CastRound);
    steps::sub(&p.cal1, &p.cal1, &p.cal2);
    #[allow(clippy::approx_constant)] // the vendor's literal, as written
    steps::muls(&p.cal1, &p.cal1, 1.5707963267948966_f64 as f32);
    let (c2_i32, c3_i32) = (p.cal2.reinterpret_cast::<i32>(), p.cal3.reinterpret_cast::<i32>());
    cast_masked::<i32, f32, false>(&c2_i32, &p.cal2, RoundMode::CastRound, MASK_PLACEHOLDER, 1, &UN);
    pipe_barrier::<PIPE_V>();
    duplicate_masked::<i32, false>(&c3_i32, 1, MASK_PLACEHOLDER, 1, 1, 8);
    pipe_barrier::<PIPE_V>();
    count_mask::<f32>(p.split * 2);
    and_bits_at_count(
        &p.cal2.reinterpret_cast::<u8>(),
        &p.cal2.reinterpret_cast::<u8>(),
        &p.cal3.reinterpret_cast::<u8>(),
    );
    count_mask::<f32>(p.split);
    cast_masked::<f32, i32, false>(&p.cal2, &c2_i32, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &UN);
    compare_mask(p, &p.mask1, &p.cal2, 0.5, CMPMODE::LT);
    compare_mask(p, &p.mask2, &p.cal2, 0.5, CMPMODE::GE);

    steps::mul(&p.cal2, &p.cal1, &p.cal1);
    #[allow(clippy::excessive_precision)] // the vendor's literal, as written
    dup_b(dst, 0.0093383789065);
    for c in PICOT_CONST {
        steps::mul(dst, dst, &p.cal2);
        steps::adds(dst, dst, c);
    }
    steps::mul(dst, dst, &p.cal2);
    steps::mul(dst, dst, &p.cal1);
    steps::add(&p.cal1, dst, &p.cal1);

    dup_b(dst, 0.0);
    select(p, dst, &p.cal1, &p.mask2, &p.cal3);
    dup_b(&p.scalar, -1.0);
    steps::div(&p.cal1, &p.scalar, &p.cal1);
    select(p, dst, &p.cal1, &p.mask1, &p.cal3);
    steps::muls(dst, dst, PI);
}

/// `DigammaNegative`: `Positive(1 − x) + picotpix(x)` (`1 − x` in `tmpCal3`, picotpix in
/// `tmpCal4`, which is `src` itself with `IS_REUSE_SOURCE`).
#[track_caller]
fn negative(p: &Params, dst: &LocalTensor<f32>, src: &LocalTensor<f32>) {
    steps::muls(&p.cal3, src, -1.0);
    steps::adds(&p.cal3, &p.cal3, 1.0);
    positive(p, dst, &p.cal3);
    neg_picot_pix(p, &p.cal4, src);
    steps::add(dst, dst, &p.cal4);
}

/// `DigammaComputeImpl` for `float`, one round.
#[track_caller]
fn compute_float(p: &Params, dst: &LocalTensor<f32>, src: &LocalTensor<f32>) {
    dup(dst, 0.0);
    dup(&p.result, NAN);
    compare_mask(p, &p.mask, src, MIN_NEG, CMPMODE::LE);
    select(p, dst, &p.result, &p.mask, &p.cal3);
    neg_int_mask(p, &p.mask1, src);
    select(p, dst, &p.result, &p.mask1, &p.cal3);
    nan_mask(p, &p.mask, src);
    select(p, dst, src, &p.mask, &p.cal3);
    compare_mask(p, &p.mask, src, 0.0, CMPMODE::GE);
    positive(p, &p.result, src);
    select(p, dst, &p.result, &p.mask, &p.cal3);
    compare_mask(p, &p.mask, src, 0.0, CMPMODE::LT);
    negative(p, &p.result, src);
    select(p, dst, &p.result, &p.mask, &p.cal3);
}

/// `dst[i] = ψ(src[i])` (the digamma function) for `i < count`, with `shared_tmp_buffer` as
/// scratch (AscendC `Digamma<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer,
/// calCount)`).
///
/// As the vendor's implementation (see the [module](self) for the formulas), in counter mode
/// over rounds of `split = shared_tmp_buffer.get_size() / 4 / n / 32 * 32` elements, `n` 8 for
/// `half`, 7 for `float`, 6 for `float` with `IS_REUSE_SOURCE`; the last round runs the tail
/// rounded up to a multiple of 8 (the vendor's `calcTail`), so up to 7 elements of `dst` past
/// `count` are written too. The scratch holds `float` tensors of `split` — `half`: the result
/// (which `Tan`, `Sin` and `Cos` use with the next three as their own scratch), `tmpCal1` …
/// `tmpCal5`, `tmpScalar`; `float`: the result, `tmpCal1` … `tmpCal4`, `tmpScalar`, where
/// `tmpCal4` is `src` itself (from its first element, whatever the round) with
/// `IS_REUSE_SOURCE` — then three bit masks of `split` bytes. With `IS_REUSE_SOURCE` for `float`
/// `src` is overwritten: after a call its elements hold intermediate values. It has no effect
/// for `half` (the vendor's check only warns).
///
/// Results: NaN at the poles (`0` excepted: `+0` gives `-inf`, `-0` gives `+inf`), at the
/// negative integers and below `−8388608`; NaN for NaN; `+inf` gives `+inf`.
///
/// Because `Compare` works on whole 256-byte repeats, for `float` `src` must reach the end of
/// the last round's last repeat (the vendor's kernel compares those elements too; the bits
/// are not used); `dst` (and, for `half`, `src`) must reach `count` rounded up to 8.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 64 * 4);
/// pipe.init_tbuf(&mut tmp, get_digamma_max_min_tmp_size(64, 4, false).0);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// x.copy_from_slice(&[1.0f32; 64]);
/// x.set_value(1, -2.0);
/// digamma::<_, false>(&y, &x, &tmp.get::<u8>(), 64);
/// assert!((y.get_value(0) + 0.5772157).abs() < 1e-6); // −γ
/// assert!(y.get_value(1).is_nan()); // a pole
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); `count` exceeds `src` or
/// `dst`; a tensor is not in the Unified Buffer; `dst` overlaps `src`, or the scratch overlaps
/// either (the vendor's constraints); the scratch has no split (less than 1024 bytes for
/// `half`, 896 for `float`, 768 with `IS_REUSE_SOURCE`); `src` or `dst` ends before the
/// elements the kernel touches (see above); or any instruction's own check fails.
#[track_caller]
pub fn digamma<T: DigammaElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    check_common(DIGAMMA, &CHIPS, dst, src, count);
    check_tmp_operands(DIGAMMA, dst, src, shared_tmp_buffer, count, true);
    let half = T::DTYPE == DType::F16;
    let reuse = IS_REUSE_SOURCE && !half;
    let proc = match (half, reuse) {
        (true, _) => HALF_PROC,
        (false, false) => FLOAT_PROC,
        (false, true) => FLOAT_REUSE_PROC,
    };
    let split = split_count(DIGAMMA, shared_tmp_buffer, 4, proc);
    let (loops, tail) = (count / split, count % split);
    let last = if tail > 0 { tail.div_ceil(8) * 8 } else { split };
    let last_off = if tail > 0 { loops * split } else { count.saturating_sub(split) };
    if count > 0 {
        let dst_end = last_off + last;
        let src_end = if half { dst_end } else { last_off + last.div_ceil(64) * 64 };
        for (name, t, end, why) in [
            ("dstTensor", dst.get_size(), dst_end, "the last round writes the tail rounded up to 8 elements"),
            (
                "srcTensor",
                src.get_size(),
                src_end,
                if half {
                    "the last round reads the tail rounded up to 8 elements"
                } else {
                    "Compare reads the last round's elements in whole 256-byte repeats"
                },
            ),
        ] {
            ensure(t >= end, DIGAMMA, || {
                format!(
                    "{name} has {t} {} elements; calCount = {count} needs {end}: {why} (the vendor's kernel \
                     touches them)",
                    T::DTYPE
                )
            });
        }
    }
    let tmp = shared_tmp_buffer.reinterpret_cast::<f32>();
    let v = |k: usize| tmp.view(k * split);
    let src_f = src.reinterpret_cast::<f32>();
    let (cal4, scalar, cal5) = match (half, reuse) {
        (true, _) => (v(4), v(6), v(5)),
        (false, false) => (v(4), v(5), v(0)),
        (false, true) => (src_f.clone(), v(4), v(0)),
    };
    let masks = scalar.view(split).reinterpret_cast::<u8>();
    let mut p = Params {
        result: v(0),
        cal1: v(1),
        cal2: v(2),
        cal3: v(3),
        cal4,
        cal5,
        scalar,
        mask: masks.clone(),
        mask1: masks.view(split),
        mask2: masks.view(2 * split),
        split,
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
    set_mask_count();
    count_mask::<T>(split);
    for i in 0..loops {
        round(&p, i * split);
    }
    if tail > 0 {
        count_mask::<T>(last);
        p.split = last;
        round(&p, loops * split);
    }
    set_mask_norm();
    reset_mask();
}

/// [`digamma`] with the stack buffer as scratch (AscendC `Digamma<T, isReuseSource>(dstTensor,
/// srcTensor, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 128 * 2);
/// let (x, y) = (q.get_with_offset::<f16>(128, 0), q.get_with_offset::<f16>(128, 256));
/// x.copy_from_slice(&[f16::from_f32(2.0); 128]);
/// digamma_stack::<_, false>(&y, &x, 128);
/// assert!((y.get_value(0).to_f32() - 0.4228).abs() < 1e-3); // 1 − γ
/// ```
///
/// # Panics
/// As [`digamma`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn digamma_stack<T: DigammaElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    digamma::<T, IS_REUSE_SOURCE>(dst, src, &stack_tensor(DIGAMMA), count);
}

/// The scratch bytes `Digamma` needs for `input_size` elements of `type_size` bytes: `(max,
/// min)` (AscendC `GetDigammaMaxMinTmpSize`, Ascend910B and Ascend310P): `fac · max(input
/// bytes, 256)` and `fac · 256`, `fac` 16 for `half` (whatever `is_reuse_source`), 7 for
/// `float`, 6 for `float` with `is_reuse_source`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_digamma_max_min_tmp_size(1024, 4, false), (28672, 1792));
/// assert_eq!(get_digamma_max_min_tmp_size(1024, 4, true), (24576, 1536));
/// assert_eq!(get_digamma_max_min_tmp_size(16, 2, false), (4096, 4096));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0 (the vendor's host check) or `type_size` is neither 2 nor 4
/// (`half` or `float`, the page's types).
#[track_caller]
pub fn get_digamma_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    factor_tmp_sizes(
        "GetDigammaMaxMinTmpSize",
        input_size,
        type_size,
        is_reuse_source,
        [FLOAT_PROC, FLOAT_REUSE_PROC, 2 * HALF_PROC],
    )
}

/// `Digamma`'s `(maxLiveNodeCount, extraBuf)` (AscendC `GetDigammaTmpBufferFactorSize`,
/// Ascend910B and Ascend310P): 16 for `half`, 7 for `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_digamma_tmp_buffer_factor_size(2), (16, 0));
/// assert_eq!(get_digamma_tmp_buffer_factor_size(4), (7, 0));
/// ```
///
/// # Panics
/// Panics if `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_digamma_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    host_checks("GetDigammaTmpBufferFactorSize", 1, type_size);
    (if type_size == 4 { FLOAT_PROC } else { 2 * HALF_PROC }, 0)
}
