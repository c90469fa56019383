//! The element vocabulary: every type a tensor can hold, with the exact arithmetic the
//! vector instructions need.
//!
//! [`Element`] is sealed: only the twelve types of AscendC (`bool` as [`Bool8`], `u8, i8, u16,
//! i16, u32, i32, u64, i64, f16, bf16, f32`) implement it. Floating-point arithmetic on `f16` and `bf16` is done
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
    /// `bool` (one byte; see [`Bool8`])
    Bool,
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
            DType::Bool => "bool",
        }
    }

    /// Size of one element in bytes.
    pub const fn size(self) -> usize {
        match self {
            DType::U8 | DType::I8 | DType::Bool => 1,
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

/// A type a tensor can hold. Sealed: implemented exactly for the twelve AscendC types
/// ([`Bool8`] for `bool`).
///
/// The associated functions are the exact lane arithmetic of the vector unit: `f16`/`bf16`
/// computed in `f32` and rounded once to nearest-even, integers wrapping. Which instructions
/// take a type is said by each instruction's own capability trait (e.g.
/// [`SelectElement`](crate::vector::select::SelectElement)); an `Element` alone only lets a
/// type be held in tensors and moved.
///
/// `char`, `bool`, `usize` and every type outside the list above are not `Element`s (a
/// compile-time assertion at the end of this module checks it).
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

/// AscendC `bool`: one byte, all zero bits for `false`, anything else `true`.
///
/// The vendor's type page (asc-devkit `docs/zh/api/SIMD-API/基础API/数据结构/内置数据类型.md`,
/// 布尔型) says "`bool` occupies 8 bits; all zeros means false, otherwise true", and lists it
/// for every chip. A Rust `bool` must be 0 or 1, but a chip's bytes may be anything (a kernel
/// can `ReinterpretCast` any byte tensor to `bool`), so the element is this one-byte `Pod`
/// newtype, which holds any byte:
/// - [`get`](Bool8::get) is the truth value (any nonzero byte is `true`, as the page says);
///   [`From<bool>`] writes 1 for `true` (C++ `bool` stores 1) and 0 for `false`;
/// - `==`, ordering and hashing compare the **byte** (what data movement preserves), so
///   `Bool8::from_byte(2) != Bool8::TRUE` although both are true; compare
///   [`get`](Bool8::get) for truth;
/// - it is moved byte for byte, as the vendor moves it: `DataCopy` (every form) and
///   `DataCopyPad` (both directions) accept it, as do `TBuf`/`TQue` tensors, `GlobalTensor`,
///   `GetValue`/`SetValue`, `ReinterpretCast` to and from `int8_t`/`uint8_t` and `DumpTensor`.
///   The `DataCopy`/`DataCopyPad` pages list `bool` only for Ascend 950, but their
///   `dav_c220` implementation (`impl/basic_api/dav_c220/kernel_operator_data_copy_impl.h`)
///   copies untyped bytes and published Atlas A2 operators (ops-nn's attention and MoE
///   kernels) move `GlobalTensor<bool>` with both; the `DumpTensor` page lists `bool` for
///   Atlas A2.
/// - No compute instruction takes it on the emulated chips: `Duplicate` lists `bool` for
///   Ascend 950 only, `Compare` writes `int8_t`/`uint8_t`, `Select`'s `selMask` is
///   `uint8_t`..`uint64_t` (and `int8_t`), `Cast` has no `bool` row. Published kernels
///   reinterpret the bytes as `int8_t` and `Cast` them to `half`; do the same.
///
/// Its [`Element`] arithmetic (unused by any instruction) is the byte's wrapping arithmetic.
///
/// ```
/// use ascend_core::element::Bool8;
/// assert!(Bool8::from(true).get());
/// assert_eq!(Bool8::from(true).to_byte(), 1);
/// assert!(Bool8::from_byte(0x80).get()); // any nonzero byte is true
/// assert!(!Bool8::FALSE.get());
/// assert_ne!(Bool8::from_byte(2), Bool8::TRUE); // `==` compares bytes
/// assert_eq!(bool::from(Bool8::from_byte(2)), true);
/// ```
///
/// The instructions whose pages do not list `bool` for the emulated chips do not compile
/// with it: `Duplicate` (bool on Ascend 950 only), `Select`'s `selMask` (`uint8_t` ..
/// `uint64_t` and `int8_t`), `Select` (half and float), `Compare`'s `dst` (`int8_t` /
/// `uint8_t`) and `Cast` (no bool row); a compile-time assertion in each instruction's module
/// checks it.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, bytemuck::Pod, bytemuck::Zeroable,
)]
#[repr(transparent)]
pub struct Bool8(u8);

impl Bool8 {
    /// `false` (byte 0).
    pub const FALSE: Bool8 = Bool8(0);
    /// `true` as C++ stores it (byte 1).
    pub const TRUE: Bool8 = Bool8(1);

    /// `b` as C++ stores it: 1 or 0.
    pub const fn new(b: bool) -> Bool8 {
        Bool8(b as u8)
    }

    /// The element whose byte is `byte` (any value; nonzero is `true`).
    pub const fn from_byte(byte: u8) -> Bool8 {
        Bool8(byte)
    }

    /// The byte as stored.
    pub const fn to_byte(self) -> u8 {
        self.0
    }

    /// The truth value: `true` unless the byte is 0.
    pub const fn get(self) -> bool {
        self.0 != 0
    }
}

impl From<bool> for Bool8 {
    fn from(b: bool) -> Bool8 {
        Bool8::new(b)
    }
}

impl From<Bool8> for bool {
    fn from(b: Bool8) -> bool {
        b.get()
    }
}

impl fmt::Display for Bool8 {
    /// `true` or `false` (the truth value; `{:?}` shows the byte).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.get(), f)
    }
}

impl sealed::Sealed for Bool8 {}
impl Element for Bool8 {
    const SIZE: usize = 1;
    const DTYPE: DType = DType::Bool;
    const ZERO: Self = Bool8(0);
    const MIN: Self = Bool8(0);
    const MAX: Self = Bool8(u8::MAX);
    const IS_FLOAT: bool = false;
    #[inline(always)]
    fn add(a: Self, b: Self) -> Self {
        Bool8(a.0.wrapping_add(b.0))
    }
    #[inline(always)]
    fn sub(a: Self, b: Self) -> Self {
        Bool8(a.0.wrapping_sub(b.0))
    }
    #[inline(always)]
    fn mul(a: Self, b: Self) -> Self {
        Bool8(a.0.wrapping_mul(b.0))
    }
    /// The byte as a number (so a comparison of two `Bool8` tensors reports the bytes).
    #[inline(always)]
    fn to_f64(self) -> f64 {
        f64::from(self.0)
    }
    /// The byte `v` saturates to (so `1.0` is `true`, `0.0` `false`).
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        Bool8(v as u8)
    }
    #[inline(always)]
    fn to_bits_u64(self) -> u64 {
        u64::from(self.0)
    }
}

/// A type a [`LocalTensor`](crate::tensor::LocalTensor) can be declared over: every
/// [`Element`] and the sub-byte [`Int4b`] (AscendC `int4b_t`). Sealed.
///
/// Everything generic over tensors takes an [`Element`]; a `LocalTensor<Int4b>` has its own
/// methods and is accepted by the APIs whose vendor pages list `int4b_t` (see [`Int4b`]).
pub trait TensorType: sealed_tt::Sealed + Copy + fmt::Debug + 'static {
    /// The AscendC spelling of the type, for messages.
    #[doc(hidden)]
    const NAME: &'static str;
    /// The alignment in bytes a tensor of this type needs.
    #[doc(hidden)]
    const ALIGN: usize;
    /// Bytes that `len` elements occupy (rounded up), or `None` on overflow.
    #[doc(hidden)]
    fn bytes_for(len: usize) -> Option<usize>;
    /// Whole bytes that `len` elements fill (rounded down).
    #[doc(hidden)]
    fn whole_bytes(len: usize) -> usize;
    /// Elements that fit in `bytes` bytes.
    #[doc(hidden)]
    fn len_in(bytes: usize) -> usize;
    /// The [`Element`] dtype, `None` for [`Int4b`].
    #[doc(hidden)]
    const ELEM_DTYPE: Option<DType>;
}

mod sealed_tt {
    pub trait Sealed {}
    impl<T: super::Element> Sealed for T {}
    impl Sealed for super::Int4b {}
}

impl<T: Element> TensorType for T {
    const NAME: &'static str = T::DTYPE.name();
    const ALIGN: usize = T::SIZE;
    const ELEM_DTYPE: Option<DType> = Some(T::DTYPE);
    #[inline(always)]
    fn bytes_for(len: usize) -> Option<usize> {
        len.checked_mul(T::SIZE)
    }
    #[inline(always)]
    fn whole_bytes(len: usize) -> usize {
        len * T::SIZE
    }
    #[inline(always)]
    fn len_in(bytes: usize) -> usize {
        bytes / T::SIZE
    }
}

/// A 4-bit signed integer, `-8..=7` (AscendC `int4b_t`), stored two per byte.
///
/// As the vendor defines it (asc-devkit `impl/basic_api/utils/kernel_utils_constants.h`,
/// `impl/basic_api/kernel_tensor_impl.h`; notes in `docs/asc-devkit-notes.md` §10):
/// - element `2k` of a tensor is the **low** nibble of byte `k`, element `2k + 1` the high one
///   (`GetValue` shifts by `4 * (index % 2)`);
/// - a `LocalTensor<Int4b>` is made from a byte tensor with
///   [`reinterpret_cast`](crate::tensor::LocalTensor::reinterpret_cast) (`ReinterpretCast<int4b_t>()`);
///   its size counts nibbles (twice the bytes), and a view (`operator[]`) must start at an
///   even element, i.e. on a byte; reinterpreting it back gives half as many `int8_t`;
/// - a [`GlobalTensor<Int4b>`](crate::tensor::GlobalTensor) counts elements too (its views
///   start on a byte); data moves with [`data_copy_params`](crate::copy::data_copy_params)
///   (32-byte blocks) and UB → GM [`data_copy_pad_to_gm`](crate::copy::data_copy_pad_to_gm)
///   (`blockLen` in bytes, as the published FlatQuant operator passes `count / 2`). The count
///   form of [`data_copy`](crate::copy::data_copy) refuses it: its page does not list
///   `int4b_t` for these chips and the vendor's implementation (`DataCopyCheck` in
///   `impl/basic_api/kernel_operator_data_copy_intf_impl.h`, outside `__NPU_ARCH__ == 5102`)
///   divides the count by `32 / sizeof(int4b_t)` = 32, reading it as bytes, twice the
///   elements. GM → UB `DataCopyPad` does not take it either (what a padding count means for
///   `int4b_t` is not documented): use an `int8_t` view, as the vendor's `cast` example does.
///   A `TQue`/`TBuf` gives byte tensors; reinterpret them.
///
/// `Int4b` is not an [`Element`] (its size is half a byte): the instructions that take it are
/// those whose pages list it, today [`cast`](crate::vector::cast::cast) to and from `half`,
/// and the data movement above.
///
/// ```
/// use ascend_core::element::Int4b;
/// let x = Int4b::from_nibble(0xF);
/// assert_eq!(x.value(), -1);
/// assert_eq!(Int4b::new(7).to_nibble(), 0x7);
/// assert_eq!(Int4b::MIN.value(), -8);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Int4b(i8);

impl Int4b {
    /// `-8`.
    pub const MIN: Int4b = Int4b(-8);
    /// `7`.
    pub const MAX: Int4b = Int4b(7);
    /// `0`.
    pub const ZERO: Int4b = Int4b(0);

    /// The value `v`.
    ///
    /// # Panics
    /// Panics if `v` is outside `-8..=7`.
    #[track_caller]
    pub const fn new(v: i8) -> Int4b {
        assert!(v >= -8 && v <= 7, "int4b_t: value out of range -8..=7");
        Int4b(v)
    }

    /// The value whose two's-complement nibble is the low 4 bits of `n` (the high bits are
    /// ignored).
    pub const fn from_nibble(n: u8) -> Int4b {
        Int4b(((n << 4) as i8) >> 4)
    }

    /// The two's-complement nibble (`0..=15`).
    pub const fn to_nibble(self) -> u8 {
        self.0 as u8 & 0xF
    }

    /// The value, `-8..=7`.
    pub const fn value(self) -> i8 {
        self.0
    }
}

impl From<Int4b> for i8 {
    fn from(v: Int4b) -> i8 {
        v.0
    }
}

impl fmt::Display for Int4b {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl TensorType for Int4b {
    const NAME: &'static str = "int4b_t";
    const ALIGN: usize = 1;
    const ELEM_DTYPE: Option<DType> = None;
    #[inline(always)]
    fn bytes_for(len: usize) -> Option<usize> {
        Some(len.div_ceil(2))
    }
    #[inline(always)]
    fn whole_bytes(len: usize) -> usize {
        len / 2
    }
    #[inline(always)]
    fn len_in(bytes: usize) -> usize {
        bytes.saturating_mul(2)
    }
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

// Types no instruction may take (the docs of `Element` and `Bool8` say so).
static_assertions::assert_not_impl_any!(char: Element);
static_assertions::assert_not_impl_any!(bool: Element);
static_assertions::assert_not_impl_any!(usize: Element);
