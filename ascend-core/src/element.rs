//! The element vocabulary: every type a tensor can hold, with the exact arithmetic the
//! vector instructions need.
//!
//! [`Element`] is sealed: only the eleven types of AscendC (`u8, i8, u16, i16, u32, i32, u64,
//! i64, f16, bf16, f32`) implement it. Floating-point arithmetic on `f16` and `bf16` is done
//! in `f32` and rounded once to nearest-even, which is exactly the hardware's rounding of each
//! single operation (an `f32` holds the exact sum, difference or product of two 16-bit floats
//! to more than twice their precision). Integer arithmetic wraps.

use core::fmt;

pub use half::{bf16, f16};

/// The tag of an element type, as a value (AscendC's `DataType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    /// `uint8_t`
    U8,
    /// `int8_t`
    I8,
    /// `uint16_t`
    U16,
    /// `int16_t`
    I16,
    /// `uint32_t`
    U32,
    /// `int32_t`
    I32,
    /// `uint64_t`
    U64,
    /// `int64_t`
    I64,
    /// `half`
    F16,
    /// `bfloat16_t`
    BF16,
    /// `float`
    F32,
}

impl DType {
    /// The AscendC spelling of the type, used in error messages.
    pub const fn name(self) -> &'static str {
        match self {
            DType::U8 => "uint8_t",
            DType::I8 => "int8_t",
            DType::U16 => "uint16_t",
            DType::I16 => "int16_t",
            DType::U32 => "uint32_t",
            DType::I32 => "int32_t",
            DType::U64 => "uint64_t",
            DType::I64 => "int64_t",
            DType::F16 => "half",
            DType::BF16 => "bfloat16_t",
            DType::F32 => "float",
        }
    }

    /// Size of one element in bytes.
    pub const fn size(self) -> usize {
        match self {
            DType::U8 | DType::I8 => 1,
            DType::U16 | DType::I16 | DType::F16 | DType::BF16 => 2,
            DType::U32 | DType::I32 | DType::F32 => 4,
            DType::U64 | DType::I64 => 8,
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

mod sealed {
    pub trait Sealed {}
}

/// Bytes in one data block.
pub const BLOCK_BYTES: usize = 32;
/// Bytes one repeat of a vector instruction reads (8 blocks).
pub const REPEAT_BYTES: usize = 256;
/// Blocks in one repeat.
pub const BLOCKS_PER_REPEAT: usize = 8;

/// A type a tensor can hold. Sealed: implemented exactly for the eleven AscendC types.
///
/// The associated functions are the exact lane arithmetic of the vector unit: `f16`/`bf16`
/// computed in `f32` and rounded once to nearest-even, integers wrapping.
///
/// ```compile_fail
/// // `char` is not an AscendC element type.
/// fn needs_element<T: ascend_core::Element>() {}
/// needs_element::<char>();
/// ```
pub trait Element:
    sealed::Sealed
    + bytemuck::Pod
    + Default
    + PartialEq
    + PartialOrd
    + fmt::Debug
    + fmt::Display
    + Send
    + Sync
    + 'static
{
    /// Size of one element in bytes.
    const SIZE: usize;
    /// The dtype tag.
    const DTYPE: DType;
    /// Zero.
    const ZERO: Self;
    /// The smallest finite value.
    const MIN: Self;
    /// The largest finite value.
    const MAX: Self;
    /// Whether the type is a floating-point type.
    const IS_FLOAT: bool;
    /// Elements per 32-byte data block (`EPB`).
    const EPB: usize = BLOCK_BYTES / Self::SIZE;
    /// Elements per 256-byte repeat (`PAR`).
    const PAR: usize = REPEAT_BYTES / Self::SIZE;

    /// `a + b` as the vector unit computes it (wrapping for integers, one rounding for floats).
    fn add(a: Self, b: Self) -> Self;
    /// `a - b` as the vector unit computes it.
    fn sub(a: Self, b: Self) -> Self;
    /// `a * b` as the vector unit computes it.
    fn mul(a: Self, b: Self) -> Self;
    /// Lossy conversion to `f64` (exact for every type but 64-bit integers beyond 2^53).
    fn to_f64(self) -> f64;
    /// Conversion from `f64`, rounding to nearest for floats and saturating for integers.
    fn from_f64(v: f64) -> Self;
    /// The raw bits, zero-extended, for bit-exact comparisons.
    fn to_bits_u64(self) -> u64;
}

macro_rules! int_element {
    ($($t:ty => $dt:ident),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const SIZE: usize = core::mem::size_of::<$t>();
            const DTYPE: DType = DType::$dt;
            const ZERO: Self = 0;
            const MIN: Self = <$t>::MIN;
            const MAX: Self = <$t>::MAX;
            const IS_FLOAT: bool = false;
            #[inline(always)]
            fn add(a: Self, b: Self) -> Self { a.wrapping_add(b) }
            #[inline(always)]
            fn sub(a: Self, b: Self) -> Self { a.wrapping_sub(b) }
            #[inline(always)]
            fn mul(a: Self, b: Self) -> Self { a.wrapping_mul(b) }
            #[inline(always)]
            fn to_f64(self) -> f64 { self as f64 }
            #[inline(always)]
            fn from_f64(v: f64) -> Self { v as $t }
            #[inline(always)]
            #[allow(clippy::cast_lossless)]
            fn to_bits_u64(self) -> u64 { bytemuck::cast::<$t, <$t as Bits>::U>(self) as u64 }
        }
    )*};
}

macro_rules! float_element {
    ($($t:ty => $dt:ident, $min:expr, $max:expr, $to:expr, $from:expr, $from64:expr, $bits:expr);* $(;)?) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const SIZE: usize = core::mem::size_of::<$t>();
            const DTYPE: DType = DType::$dt;
            const ZERO: Self = <$t>::from_bits(0);
            const MIN: Self = $min;
            const MAX: Self = $max;
            const IS_FLOAT: bool = true;
            #[inline(always)]
            fn add(a: Self, b: Self) -> Self { $from($to(a) + $to(b)) }
            #[inline(always)]
            fn sub(a: Self, b: Self) -> Self { $from($to(a) - $to(b)) }
            #[inline(always)]
            fn mul(a: Self, b: Self) -> Self { $from($to(a) * $to(b)) }
            #[inline(always)]
            fn to_f64(self) -> f64 { $to(self) as f64 }
            #[inline(always)]
            fn from_f64(v: f64) -> Self { $from64(v) }
            #[inline(always)]
            fn to_bits_u64(self) -> u64 { $bits(self) }
        }
    )*};
}

/// Maps a type to the unsigned integer of the same width (for `to_bits_u64`).
trait Bits {
    type U;
}
macro_rules! bits {
    ($($t:ty => $u:ty),*) => {$( impl Bits for $t { type U = $u; } )*};
}
bits!(u8 => u8, i8 => u8, u16 => u16, i16 => u16, u32 => u32, i32 => u32, u64 => u64, i64 => u64);

int_element!(u8 => U8, i8 => I8, u16 => U16, i16 => I16, u32 => U32, i32 => I32, u64 => U64, i64 => I64);

float_element! {
    f16 => F16, f16::MIN, f16::MAX, |x: f16| x.to_f32(), f16::from_f32, f16::from_f64, |x: f16| x.to_bits() as u64;
    bf16 => BF16, bf16::MIN, bf16::MAX, |x: bf16| x.to_f32(), bf16::from_f32, bf16::from_f64, |x: bf16| x.to_bits() as u64;
    f32 => F32, f32::MIN, f32::MAX, |x: f32| x, |x: f32| x, |v: f64| v as f32, |x: f32| x.to_bits() as u64;
}

/// The largest finite `f16`, the value saturation mode clamps to.
pub const F16_SAT_MAX: f32 = 65504.0;

static_assertions::const_assert_eq!(<f16 as Element>::PAR, 128);
static_assertions::const_assert_eq!(<f32 as Element>::PAR, 64);
static_assertions::const_assert_eq!(<u8 as Element>::EPB, 32);
static_assertions::assert_eq_size!(f16, u16);
static_assertions::assert_eq_size!(bf16, u16);

/// An expected value the testing helpers (`ascend_runtime::testing::compare_close`,
/// `assert_close`) accept for actual values of `T`: a `T` (golden data of the kernel's type)
/// or an `f64` (a reference computed in double precision, so the comparison measures the
/// kernel's own rounding).
///
/// ```
/// use ascend_core::element::Expected;
/// use half::f16;
/// assert!(Expected::<f16>::is_exactly(0.5f64, f16::from_f32(0.5)));
/// assert!(!Expected::<f16>::is_exactly(0.1f64, f16::from_f32(0.1)));
/// ```
pub trait Expected<T: Element>: Copy {
    /// The value, widened to `f64`.
    fn expected_f64(self) -> f64;
    /// Its bits, for reports (an `f64` reference reports its own 64 bits).
    fn expected_bits(self) -> u64;
    /// Whether `actual` is exactly this value (same bits for a `T`; the same number, or both
    /// NaN, for an `f64`).
    fn is_exactly(self, actual: T) -> bool;
}

impl<T: Element> Expected<T> for T {
    #[inline]
    fn expected_f64(self) -> f64 {
        self.to_f64()
    }
    #[inline]
    fn expected_bits(self) -> u64 {
        self.to_bits_u64()
    }
    #[inline]
    fn is_exactly(self, actual: T) -> bool {
        self.to_bits_u64() == actual.to_bits_u64()
    }
}

impl<T: Element> Expected<T> for f64 {
    #[inline]
    fn expected_f64(self) -> f64 {
        self
    }
    #[inline]
    fn expected_bits(self) -> u64 {
        self.to_bits()
    }
    #[inline]
    fn is_exactly(self, actual: T) -> bool {
        let a = actual.to_f64();
        a == self || (a.is_nan() && self.is_nan())
    }
}
