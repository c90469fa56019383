//! Scalar computation on the core's scalar unit: bit counting and searching in a 64-bit word
//! (AscendC `GetBitCount`, `CountLeadingZero`, `GetSFFValue`, `CountBitsCntSameAsSignBit`, and
//! the older names `ScalarGetCountOfValue`, `ScalarCountLeadingZero`, `ScalarGetSFFValue`),
//! and scalar type conversions (AscendC `Cast<float, half|int32_t, roundMode>` / its older name
//! `ScalarCast`, and the `bfloat16_t` forms `Cast(float)` / `Cast(bfloat16_t)`).
//!
//! What the vendor's pages (`docs/…/基础API/标量计算/`) and implementations
//! (`impl/basic_api/kernel_scalar.h`) say, and what is modelled:
//!
//! - **Chips.** The bit utilities and `ScalarCast` exist on Atlas A2 ([`Soc::Ascend910B`]) and
//!   Atlas inference AI Core ([`Soc::Ascend310P`]); the pages list Atlas training
//!   ([`Soc::Ascend910`]) and Atlas 200I/500 A2 ([`Soc::Ascend310B`]) as not supported, so there
//!   they are run-time errors naming the chip. The `bfloat16_t` casts exist on Atlas A2 only.
//! - **Template values.** `countValue` (0 or 1) is a const generic, checked at compile time as
//!   the vendor's `static_assert` does. `roundMode` is a const generic too: the mode's number,
//!   spelled `RoundMode::CAST_ODD` (the `u8` constants this module adds to [`RoundMode`]); a
//!   mode the conversion does not take does not compile (the vendor's implementation rejects
//!   it when the kernel runs; every chip that has the API takes the same modes, so the check
//!   can be made once, at compile time).
//! - **Results.** Bit-exact, from the pages' definitions: see each function. `GetSFFValue`
//!   returns -1 when no bit has the value, `CountBitsCntSameAsSignBit` returns -1 for 0 and
//!   -1 (every bit equal to the sign), `CountLeadingZero(0)` is 64.
//! - **Conversions.** `float → half` rounds to odd (`CAST_ODD`, the only mode the vendor
//!   implements for it), `float → int32_t` by `CAST_RINT`, `CAST_FLOOR`, `CAST_CEIL` or
//!   `CAST_ROUND` (ties away from zero). Out-of-range values follow the rules of the vector
//!   [`cast`](crate::vector::cast::cast) (the vendor's "overflow is saturated by default"): an
//!   integer result is clamped to `int32_t`'s range, ±inf gives MIN/MAX and NaN gives 0; a
//!   `half` or `bfloat16_t` result follows the core's overflow mode ([`get_overflow_mode`]):
//!   in saturation mode ±inf becomes ±MAX and NaN becomes +0, in inf/nan mode ±inf stays and
//!   NaN becomes the quiet NaN `0x7E00` (`half`) / `0x7FC0` (`bfloat16_t`). A finite `float`
//!   beyond `half`'s range rounds to odd, which gives ±65504 (±MAX) in both modes.

use crate::element::{bf16, f16};
use crate::kernel::ctx::get_overflow_mode;
use crate::soc::{OverflowMode, Soc};
use crate::vector::cast::RoundMode;

/// The chips that have the bit utilities and `ScalarCast` (the vendor's pages).
const BIT_CHIPS: [Soc; 2] = [Soc::Ascend910B, Soc::Ascend310P];

/// Fails for `api` unless the current core's chip is one of `chips`.
#[track_caller]
fn require(api: &'static str, chips: &[Soc]) {
    crate::scalar::sys_var::require_chip(api, chips);
}

// ---------------------------------------------------------------------------------------
// Bit utilities
// ---------------------------------------------------------------------------------------

/// `GetBitCount<countValue>` under `api`'s name.
#[track_caller]
fn bit_count<const COUNT_VALUE: i32>(api: &'static str, value_in: u64) -> i64 {
    require(api, &BIT_CHIPS);
    i64::from(if COUNT_VALUE == 1 { value_in.count_ones() } else { value_in.count_zeros() })
}

/// The number of bits of `value_in` equal to `COUNT_VALUE` (0 or 1) (AscendC
/// `GetBitCount<countValue>(valueIn)`).
///
/// ```
/// use ascend_core::prelude::*;
/// // The calling thread's default core is an Ascend910B core.
/// assert_eq!(get_bit_count::<1>(0xFFFF), 16);
/// assert_eq!(get_bit_count::<0>(0xFFFF), 48);
/// ```
///
/// A `countValue` other than 0 or 1 does not compile:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// let _ = get_bit_count::<2>(7);
/// ```
///
/// # Panics
/// Panics on Ascend910 and Ascend310B (not supported there).
#[track_caller]
pub fn get_bit_count<const COUNT_VALUE: i32>(value_in: u64) -> i64 {
    const { assert!(COUNT_VALUE == 0 || COUNT_VALUE == 1, "GetBitCount: countValue must be 0 or 1") }
    bit_count::<COUNT_VALUE>("GetBitCount", value_in)
}

/// The older name of [`get_bit_count`] (AscendC `ScalarGetCountOfValue<countValue>(valueIn)`).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(scalar_get_count_of_value::<1>(0b1011), 3);
/// assert_eq!(scalar_get_count_of_value::<0>(u64::MAX), 0);
/// ```
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// let _ = scalar_get_count_of_value::<-1>(7);
/// ```
///
/// # Panics
/// Panics on Ascend910 and Ascend310B (not supported there).
#[track_caller]
pub fn scalar_get_count_of_value<const COUNT_VALUE: i32>(value_in: u64) -> i64 {
    const { assert!(COUNT_VALUE == 0 || COUNT_VALUE == 1, "ScalarGetCountOfValue: countValue must be 0 or 1") }
    bit_count::<COUNT_VALUE>("ScalarGetCountOfValue", value_in)
}

/// The number of 0 bits above the highest 1 bit of `value_in`; 64 for 0 (AscendC
/// `CountLeadingZero(valueIn)`).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(count_leading_zero(0x0100_0000_0000_0020), 7);
/// assert_eq!(count_leading_zero(0xFFFF), 48);
/// assert_eq!(count_leading_zero(0), 64);
/// assert_eq!(count_leading_zero(u64::MAX), 0);
/// ```
///
/// # Panics
/// Panics on Ascend910 and Ascend310B (not supported there).
#[track_caller]
pub fn count_leading_zero(value_in: u64) -> i64 {
    require("CountLeadingZero", &BIT_CHIPS);
    i64::from(value_in.leading_zeros())
}

/// The older name of [`count_leading_zero`] (AscendC `ScalarCountLeadingZero(valueIn)`).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(scalar_count_leading_zero(1), 63);
/// ```
///
/// # Panics
/// Panics on Ascend910 and Ascend310B (not supported there).
#[track_caller]
pub fn scalar_count_leading_zero(value_in: u64) -> i64 {
    require("ScalarCountLeadingZero", &BIT_CHIPS);
    i64::from(value_in.leading_zeros())
}

/// How many bits below the sign bit of `value_in`, from bit 62 down, equal the sign bit
/// before the first one that differs; -1 when all 64 bits are equal (`0` and `-1`) (AscendC
/// `CountBitsCntSameAsSignBit(valueIn)`).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(count_bits_cnt_same_as_sign_bit(0x0100_0000_0000_0020), 6);
/// assert_eq!(count_bits_cnt_same_as_sign_bit(1), 62);
/// assert_eq!(count_bits_cnt_same_as_sign_bit(i64::MAX), 0);
/// assert_eq!(count_bits_cnt_same_as_sign_bit(i64::MIN), 0);
/// assert_eq!(count_bits_cnt_same_as_sign_bit(0), -1);
/// assert_eq!(count_bits_cnt_same_as_sign_bit(-1), -1);
/// ```
///
/// # Panics
/// Panics on Ascend910 and Ascend310B (not supported there).
#[track_caller]
pub fn count_bits_cnt_same_as_sign_bit(value_in: i64) -> i64 {
    require("CountBitsCntSameAsSignBit", &BIT_CHIPS);
    if value_in == 0 || value_in == -1 {
        return -1;
    }
    // The run of sign-equal bits from bit 63 down, less the sign bit itself.
    let run = if value_in < 0 { value_in.leading_ones() } else { value_in.leading_zeros() };
    i64::from(run) - 1
}

/// `GetSFFValue<countValue>` under `api`'s name.
#[track_caller]
fn sff<const COUNT_VALUE: i32>(api: &'static str, value_in: u64) -> i64 {
    require(api, &BIT_CHIPS);
    // The bits equal to COUNT_VALUE, as ones.
    let ones = if COUNT_VALUE == 1 { value_in } else { !value_in };
    if ones == 0 {
        -1
    } else {
        i64::from(ones.trailing_zeros())
    }
}

/// The position (0 = least significant) of the lowest bit of `value_in` equal to
/// `COUNT_VALUE` (0 or 1), or -1 when no bit is (AscendC `GetSFFValue<countValue>(valueIn)`,
/// "search first found").
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_sff_value::<1>(0x1000_0000_0000_0100), 8);
/// assert_eq!(get_sff_value::<0>(0xFF00), 0);
/// assert_eq!(get_sff_value::<0>(0x00FF), 8);
/// assert_eq!(get_sff_value::<0>(u64::MAX), -1);
/// assert_eq!(get_sff_value::<1>(0), -1);
/// ```
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// let _ = get_sff_value::<3>(7);
/// ```
///
/// # Panics
/// Panics on Ascend910 and Ascend310B (not supported there).
#[track_caller]
pub fn get_sff_value<const COUNT_VALUE: i32>(value_in: u64) -> i64 {
    const { assert!(COUNT_VALUE == 0 || COUNT_VALUE == 1, "GetSFFValue: countValue must be 0 or 1") }
    sff::<COUNT_VALUE>("GetSFFValue", value_in)
}

/// The older name of [`get_sff_value`] (AscendC `ScalarGetSFFValue<countValue>(valueIn)`).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(scalar_get_sff_value::<1>(0b1000), 3);
/// ```
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// let _ = scalar_get_sff_value::<2>(7);
/// ```
///
/// # Panics
/// Panics on Ascend910 and Ascend310B (not supported there).
#[track_caller]
pub fn scalar_get_sff_value<const COUNT_VALUE: i32>(value_in: u64) -> i64 {
    const { assert!(COUNT_VALUE == 0 || COUNT_VALUE == 1, "ScalarGetSFFValue: countValue must be 0 or 1") }
    sff::<COUNT_VALUE>("ScalarGetSFFValue", value_in)
}

// ---------------------------------------------------------------------------------------
// Conversions
// ---------------------------------------------------------------------------------------

/// The rounding modes as numbers, for the const generic `ROUND_MODE` of [`scalar_cast`]
/// (`scalar_cast::<f32, i32, { RoundMode::CAST_RINT }>(x)`, as AscendC writes
/// `Cast<float, int32_t, RoundMode::CAST_RINT>(x)`): `RoundMode::CAST_X` is
/// `RoundMode::CastX as u8`.
impl RoundMode {
    /// `CAST_NONE` as a number ([`RoundMode::CastNone`]).
    pub const CAST_NONE: u8 = RoundMode::CastNone as u8;
    /// `CAST_RINT` as a number ([`RoundMode::CastRint`]).
    pub const CAST_RINT: u8 = RoundMode::CastRint as u8;
    /// `CAST_FLOOR` as a number ([`RoundMode::CastFloor`]).
    pub const CAST_FLOOR: u8 = RoundMode::CastFloor as u8;
    /// `CAST_CEIL` as a number ([`RoundMode::CastCeil`]).
    pub const CAST_CEIL: u8 = RoundMode::CastCeil as u8;
    /// `CAST_ROUND` as a number ([`RoundMode::CastRound`]).
    pub const CAST_ROUND: u8 = RoundMode::CastRound as u8;
    /// `CAST_TRUNC` as a number ([`RoundMode::CastTrunc`]).
    pub const CAST_TRUNC: u8 = RoundMode::CastTrunc as u8;
    /// `CAST_ODD` as a number ([`RoundMode::CastOdd`]).
    pub const CAST_ODD: u8 = RoundMode::CastOdd as u8;
}

mod sealed {
    pub trait Sealed<T> {}
}

/// A destination type of [`scalar_cast`] from `T`: `half` and `int32_t` from `float`. Other
/// pairs do not compile:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// let _ = scalar_cast::<f32, i16, { RoundMode::CAST_RINT }>(1.5);
/// ```
/// ```compile_fail
/// use ascend_core::prelude::*;
/// let _ = scalar_cast::<f16, f32, { RoundMode::CAST_NONE }>(f16::ONE);
/// ```
pub trait ScalarCastFrom<T>: sealed::Sealed<T> + Sized {
    /// The modes the conversion takes, as a bit set indexed by the mode's number.
    #[doc(hidden)]
    const MODES: u8;
    /// Converts `x` by `mode` (one of [`MODES`](Self::MODES)); `sat`: the core is in
    /// saturation mode.
    #[doc(hidden)]
    fn convert(x: T, mode: RoundMode, sat: bool) -> Self;
}

impl sealed::Sealed<f32> for f16 {}
impl ScalarCastFrom<f32> for f16 {
    const MODES: u8 = 1 << RoundMode::CAST_ODD;
    fn convert(x: f32, _mode: RoundMode, sat: bool) -> f16 {
        f32_to_f16_odd(x, sat)
    }
}

impl sealed::Sealed<f32> for i32 {}
impl ScalarCastFrom<f32> for i32 {
    const MODES: u8 = 1 << RoundMode::CAST_RINT
        | 1 << RoundMode::CAST_FLOOR
        | 1 << RoundMode::CAST_CEIL
        | 1 << RoundMode::CAST_ROUND;
    fn convert(x: f32, mode: RoundMode, _sat: bool) -> i32 {
        let r = match mode {
            RoundMode::CastFloor => x.floor(),
            RoundMode::CastCeil => x.ceil(),
            RoundMode::CastRound => x.round(),
            _ => x.round_ties_even(),
        };
        // Rust's float-to-int `as` saturates (±inf to MIN/MAX) and maps NaN to 0: the
        // vendor's saturation rule.
        r as i32
    }
}

/// `f16`'s largest finite magnitude, as bits.
const F16_MAX_BITS: u16 = 0x7BFF;
/// `f16`'s quiet NaN, as the vector `Cast` writes it in inf/nan mode.
const F16_QNAN_BITS: u16 = 0x7E00;

/// `x` rounded to odd into `f16`: exact values stay; an inexact one becomes whichever of its
/// two `f16` neighbours has an odd last mantissa bit (so a finite value beyond ±65504 becomes
/// ±65504). ±inf and NaN follow the overflow mode (`sat`).
fn f32_to_f16_odd(x: f32, sat: bool) -> f16 {
    let sign = if x.is_sign_negative() { 0x8000u16 } else { 0 };
    if x.is_nan() {
        return f16::from_bits(if sat { 0 } else { F16_QNAN_BITS });
    }
    if x.is_infinite() {
        return f16::from_bits(sign | if sat { F16_MAX_BITS } else { 0x7C00 });
    }
    // Round to nearest-even first: the result is one of the two neighbours of `x` (or inf,
    // when `x` lies beyond the last midpoint), exact when `x` is representable.
    let mut near = [f16::ZERO];
    crate::f16conv::narrow_slice(&[x], &mut near);
    let near = near[0];
    if near.is_infinite() {
        return f16::from_bits(sign | F16_MAX_BITS);
    }
    let mut back = [0f32];
    crate::f16conv::widen_slice(&[near], &mut back);
    let bits = near.to_bits();
    if back[0] == x || bits & 1 == 1 {
        // Exact, or inexact and already the odd neighbour.
        return near;
    }
    // Inexact and even: the other neighbour, one step of the magnitude towards `x` (steps
    // cross binades and the subnormal boundary correctly in sign-magnitude encoding).
    let mag = bits & 0x7FFF;
    let mag = if back[0].abs() < x.abs() { mag + 1 } else { mag - 1 };
    f16::from_bits(sign | mag)
}

/// Converts the scalar `value_in` from `T` to `U`, rounding by `ROUND_MODE` (AscendC
/// `Cast<T, U, roundMode>(valueIn)`, older name `ScalarCast`). The pairs and modes:
///
/// | `T` → `U` | `ROUND_MODE` |
/// | --- | --- |
/// | `float` → `half` | `RoundMode::CAST_ODD` |
/// | `float` → `int32_t` | `RoundMode::CAST_RINT`, `CAST_FLOOR`, `CAST_CEIL`, `CAST_ROUND` |
///
/// `CAST_ODD`: an inexact value becomes the neighbour whose last mantissa bit is 1.
/// `CAST_ROUND` rounds ties away from zero, `CAST_RINT` to even. Out-of-range values and NaN:
/// see the [module](self) documentation (integers saturate, NaN → 0; `half` follows the
/// core's overflow mode).
///
/// ```
/// use ascend_core::prelude::*;
/// let h = scalar_cast::<f32, f16, { RoundMode::CAST_ODD }>(3.14159);
/// assert_eq!(h.to_f32(), 3.142578125); // to odd; to nearest would give 3.140625
/// assert_eq!(scalar_cast::<f32, i32, { RoundMode::CAST_ROUND }>(2.5), 3);
/// assert_eq!(scalar_cast::<f32, i32, { RoundMode::CAST_RINT }>(2.5), 2);
/// assert_eq!(scalar_cast::<f32, i32, { RoundMode::CAST_FLOOR }>(-1.5), -2);
/// assert_eq!(scalar_cast::<f32, i32, { RoundMode::CAST_CEIL }>(1.5), 2);
/// ```
///
/// A mode the conversion does not take does not compile:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// let _ = scalar_cast::<f32, f16, { RoundMode::CAST_RINT }>(1.0);
/// ```
/// ```compile_fail
/// use ascend_core::prelude::*;
/// let _ = scalar_cast::<f32, i32, { RoundMode::CAST_TRUNC }>(1.0);
/// ```
///
/// # Panics
/// Panics on Ascend910 and Ascend310B (not supported there).
#[track_caller]
pub fn scalar_cast<T, U: ScalarCastFrom<T>, const ROUND_MODE: u8>(value_in: T) -> U {
    const {
        assert!(
            ROUND_MODE <= RoundMode::CAST_ODD && U::MODES & (1 << ROUND_MODE) != 0,
            "ScalarCast: float -> half takes RoundMode::CAST_ODD only; float -> int32_t takes \
             RoundMode::CAST_RINT, CAST_FLOOR, CAST_CEIL or CAST_ROUND"
        )
    }
    require("ScalarCast", &BIT_CHIPS);
    let sat = get_overflow_mode() == OverflowMode::Saturation;
    U::convert(value_in, RoundMode::ALL[ROUND_MODE as usize], sat)
}

/// `bfloat16_t`'s largest finite magnitude, as bits.
const BF16_MAX_BITS: u16 = 0x7F7F;
/// `bfloat16_t`'s quiet NaN, as the vector `Cast` writes it in inf/nan mode.
const BF16_QNAN_BITS: u16 = 0x7FC0;

/// Converts `f_val` to `bfloat16_t`, rounding to nearest-even (`CAST_RINT`) (AscendC
/// `bfloat16_t Cast(const float& fVal)`). A value beyond `bfloat16_t`'s range (which rounds to
/// ±inf), ±inf and NaN follow the core's overflow mode (see the [module](self)
/// documentation).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(scalar_cast_f32_to_bf16(3.14159).to_f32(), 3.140625);
/// ```
///
/// # Panics
/// Panics on a chip other than Ascend910B (the vendor lists Atlas A2 and chips not modelled).
#[track_caller]
pub fn scalar_cast_f32_to_bf16(f_val: f32) -> bf16 {
    require("Cast(float -> bfloat16_t)", &[Soc::Ascend910B]);
    let sat = get_overflow_mode() == OverflowMode::Saturation;
    let sign = if f_val.is_sign_negative() { 0x8000u16 } else { 0 };
    if f_val.is_nan() {
        return bf16::from_bits(if sat { 0 } else { BF16_QNAN_BITS });
    }
    let r = bf16::from_f32(f_val);
    if r.is_infinite() && sat {
        return bf16::from_bits(sign | BF16_MAX_BITS);
    }
    r
}

/// Converts `b_val` to `float`, exactly (AscendC `float Cast(const bfloat16_t& bVal)`): the
/// bits shifted into the high half, so a NaN keeps its payload.
///
/// ```
/// use ascend_core::prelude::*;
/// let b = scalar_cast_f32_to_bf16(3.14159);
/// assert_eq!(scalar_cast_bf16_to_f32(b), 3.140625);
/// ```
///
/// # Panics
/// Panics on a chip other than Ascend910B (the vendor lists Atlas A2 and chips not modelled).
#[track_caller]
pub fn scalar_cast_bf16_to_f32(b_val: bf16) -> f32 {
    require("Cast(bfloat16_t -> float)", &[Soc::Ascend910B]);
    f32::from_bits(u32::from(b_val.to_bits()) << 16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mode_numbers_are_the_enum_order() {
        for (i, m) in RoundMode::ALL.iter().enumerate() {
            assert_eq!(*m as u8, i as u8);
        }
        assert_eq!(RoundMode::ALL[RoundMode::CAST_ODD as usize], RoundMode::CastOdd);
        assert_eq!(RoundMode::ALL[RoundMode::CAST_ROUND as usize], RoundMode::CastRound);
    }

    #[test]
    fn odd_rounding_at_the_edges() {
        let h = |x: f32| f32_to_f16_odd(x, false).to_bits();
        // Exact values, both zeros.
        assert_eq!(h(1.0), 0x3C00);
        assert_eq!(h(-0.0), 0x8000);
        assert_eq!(h(0.0), 0x0000);
        // Tiny values become the smallest subnormal, keeping the sign.
        assert_eq!(h(1e-30), 0x0001);
        assert_eq!(h(-1e-30), 0x8001);
        // Just above 1: 1 + ulp (odd).
        assert_eq!(h(1.0 + f32::EPSILON), 0x3C01);
        // Just below 2: the largest value below 2 is 0x3FFF (odd).
        assert_eq!(h(2.0 - f32::EPSILON), 0x3FFF);
        // Just above 2 (0x4000, even): 0x4001.
        assert_eq!(h(2.0 + 2.0 * f32::EPSILON), 0x4001);
        // Beyond the range: ±MAX, not inf.
        assert_eq!(h(65520.0), F16_MAX_BITS);
        assert_eq!(h(-1e30), 0x8000 | F16_MAX_BITS);
        assert_eq!(h(f32::MAX), F16_MAX_BITS);
        // inf and NaN by mode.
        assert_eq!(h(f32::INFINITY), 0x7C00);
        assert_eq!(f32_to_f16_odd(f32::NEG_INFINITY, true).to_bits(), 0xFBFF);
        assert_eq!(h(f32::NAN), F16_QNAN_BITS);
        assert_eq!(f32_to_f16_odd(-f32::NAN, true).to_bits(), 0);
    }
}
