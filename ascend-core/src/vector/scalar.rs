//! Elementwise tensor-scalar instructions, each declared once with `scalar_instr!`: `Adds`,
//! `Muls`, `Maxs`, `Mins`, `ShiftLeft`, `ShiftRight`, `LeakyRelu` and `Axpy`
//! (`dst = src * scalar + dst`).
//!
//! Two forms each, as in AscendC: the count form ([`muls`], …) and the high-dimensional form
//! ([`muls_masked`], …) with a mask, `repeat_times` and [`UnaryRepeatParams`] strides. The
//! scalar has the tensor's type. Rounding and overflow as the binary instructions
//! ([`crate::vector::binary`]): one rounding of the exact result, the core's `f16` overflow
//! mode applied, integers wrapping. `LeakyRelu` keeps `src` where its sign bit is clear and
//! takes `src * scalar` elsewhere (so `-0` becomes `-0 * scalar`), as the vendor's
//! boundary-value table lists it. `Axpy` rounds twice (the product, saturated in saturation
//! mode, then the sum), as its boundary-value table shows. `ShiftRight` is logical on
//! unsigned and arithmetic on signed types; the shift must lie in `[0, bits]`. Its `roundEn`
//! form ([`shift_right_round_masked`]) adds the last bit shifted out (round half up).

use crate::element::{f16, DType};
use crate::kernel::ctx::get_soc;
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::soc::Soc;
use crate::vector::engine::Operand;
use crate::vector::lane::{capability, round16, run_count, run_masked, Lane, LaneOp};
use crate::vector::mask::Mask;
use crate::vector::params::UnaryRepeatParams;

/// `x >> s`, plus the last bit shifted out when `round` (and `s > 0`): `roundEn`.
#[inline(always)]
fn shr_round<T: Lane>(x: T, s: u32, round: bool) -> T {
    let q = T::l_shr(x, s);
    if round && s > 0 {
        T::l_add(q, T::l_and(T::l_shr(x, s - 1), T::from_f64(1.0)))
    } else {
        q
    }
}

/// Checks a shift amount: `[0, bits]` of the type.
#[track_caller]
fn shift_amount<T: Lane>(api: &'static str, s: T) -> u32 {
    let bits = 8 * T::SIZE as u32;
    let v = s.l_shift_amount();
    ensure(v.is_some_and(|v| v <= bits), api, || {
        format!("scalarValue = {s} is out of range [0, {bits}] for {}", T::DTYPE)
    });
    v.unwrap_or(0)
}

macro_rules! scalar_instr {
    (
        $api:literal, $formula:literal, $op:ident, $count:ident, $masked:ident,
        $trait:ident :: $supported:ident,
        prepare |$sv:ident| -> $sty:ty, $prep:expr,
        lane |$($x:ident),+; $s:ident| $exact:expr,
        wide |$($w:ident),+; $ws:ident| $wide:expr,
        types [$($t:ty => |$soc:ident| $ok:expr),* $(,)?],
        bad [$($bad:ty),*],
        reads_dst $reads_dst:tt,
        example ($ty:ty, $a:literal, $sc:literal, $d:literal => $z:literal)
    ) => {
        #[doc = concat!("The lane operation of `", $api, "`, with its scalar (and the scalar in `f32`).")]
        #[derive(Clone, Copy)]
        pub(crate) struct $op<T>(T, f32, $sty);

        impl<T: Lane> LaneOp<T, { scalar_instr!(@n $reads_dst) }> for $op<T> {
            #[inline(always)]
            fn exact(self, [$($x),+]: [T; scalar_instr!(@n $reads_dst)]) -> T {
                #[allow(unused_variables)]
                let $s = self.2;
                let _ = self.0;
                $exact
            }
            #[inline(always)]
            fn wide<const SAT: bool>(self, [$($w),+]: [f32; scalar_instr!(@n $reads_dst)]) -> f32 {
                #[allow(unused_variables)]
                let $ws = self.1;
                $wide
            }
        }

        capability!(
            $api, $trait, $supported, Lane, [$($t => |$soc| $ok),*], [$($bad),*],
            concat!(stringify!($count), "(t, t, Default::default(), 16);")
        );

        #[doc = concat!("`", $formula, "` for `i in 0..count` (AscendC `", $api, "(dst, src, scalarValue, calCount)`).")]
        ///
        /// `dst` may be the same tensor as `src` (complete overlap). See the module docs for
        /// the rounding and overflow rules.
        ///
        /// ```
        /// use ascend_core::prelude::*;
        /// let mut pipe = TPipe::new();
        /// let mut buf = TBuf::<VecCalc>::new();
        /// pipe.init_tbuf(&mut buf, 2 * 256);
        #[doc = concat!("let [dst, src] = [0, 1].map(|i| buf.get_with_offset::<", stringify!($ty), ">(256 / ", stringify!($ty), "::SIZE, i * 256));")]
        #[doc = concat!("let v = |x: f64| ", stringify!($ty), "::from_f64(x);")]
        #[doc = concat!("let n = 256 / ", stringify!($ty), "::SIZE;")]
        #[doc = concat!("src.copy_from_slice(&vec![v(", stringify!($a), "); n]);")]
        #[doc = concat!("dst.copy_from_slice(&vec![v(", stringify!($d), "); n]);")]
        #[doc = concat!(stringify!($count), "(&dst, &src, v(", stringify!($sc), "), n);")]
        #[doc = concat!("assert_eq!(dst.get_value(n - 1), v(", stringify!($z), "));")]
        /// ```
        ///
        /// # Panics
        #[doc = concat!("Panics if the chip does not support `T` (see [`", stringify!($trait), "`]), if an operand")]
        /// is not a VECIN/VECOUT/VECCALC tensor, is not 32-byte aligned or holds fewer than
        /// `count` elements, if `dst` partially overlaps `src`, or (shifts) if the shift is
        /// outside `[0, bits]`.
        #[track_caller]
        pub fn $count<T: $trait>(dst: &LocalTensor<T>, src: &LocalTensor<T>, scalar: T, count: usize) {
            let $sv = scalar;
            let op = $op(scalar, scalar.l_wide(), $prep);
            run_count($api, T::$supported, op, dst, scalar_instr!(@count_srcs $reads_dst dst src), count)
        }

        #[doc = concat!("`", $formula, "` over the lanes a mask enables, for `repeat_times` repeats with the")]
        #[doc = concat!("strides of `params` (AscendC `", $api, "<T, isSetMask>(dst, src, scalarValue, mask, repeatTime,")]
        /// repeatParams)`, continuous and bit-mask forms). The mask, repeat, stride and
        /// `IS_SET_MASK` rules are [`sub_masked`](crate::vector::binary::sub_masked)'s.
        ///
        /// ```
        /// use ascend_core::prelude::*;
        /// let mut pipe = TPipe::new();
        /// let mut buf = TBuf::<VecCalc>::new();
        /// pipe.init_tbuf(&mut buf, 2 * 256);
        #[doc = concat!("let [dst, src] = [0, 1].map(|i| buf.get_with_offset::<", stringify!($ty), ">(256 / ", stringify!($ty), "::SIZE, i * 256));")]
        #[doc = concat!("let v = |x: f64| ", stringify!($ty), "::from_f64(x);")]
        #[doc = concat!("let n = 256 / ", stringify!($ty), "::SIZE;")]
        #[doc = concat!("src.copy_from_slice(&vec![v(", stringify!($a), "); n]);")]
        #[doc = concat!("dst.copy_from_slice(&vec![v(", stringify!($d), "); n]);")]
        /// // The first 2 lanes of one repeat.
        #[doc = concat!(stringify!($masked), "::<", stringify!($ty), ", true>(&dst, &src, v(", stringify!($sc), "), 2, 1, &UnaryRepeatParams::default());")]
        #[doc = concat!("assert_eq!(dst.get_value(1), v(", stringify!($z), "));")]
        #[doc = concat!("assert_eq!(dst.get_value(2), v(", stringify!($d), "));")]
        /// ```
        ///
        /// # Panics
        /// As [`sub_masked`](crate::vector::binary::sub_masked), and (shifts) if the shift is
        /// outside `[0, bits]`.
        #[track_caller]
        pub fn $masked<T: $trait, const IS_SET_MASK: bool>(
            dst: &LocalTensor<T>,
            src: &LocalTensor<T>,
            scalar: T,
            mask: impl Into<Mask>,
            repeat_times: u8,
            params: &UnaryRepeatParams,
        ) {
            let $sv = scalar;
            let op = $op(scalar, scalar.l_wide(), $prep);
            let p = params;
            let d = Operand::new(dst, p.dst_blk_stride, p.dst_rep_stride, "dst");
            let a = Operand::new(src, p.src_blk_stride, p.src_rep_stride, "src");
            run_masked::<T, _, { scalar_instr!(@n $reads_dst) }, IS_SET_MASK>(
                $api, T::$supported, op, &d, scalar_instr!(@masked_srcs $reads_dst d a), mask.into(), repeat_times,
            )
        }
    };
    (@n false) => { 1 };
    (@n true) => { 2 };
    (@count_srcs false $d:ident $a:ident) => { [($a, "src")] };
    (@count_srcs true $d:ident $a:ident) => { [($a, "src"), ($d, "dst")] };
    (@masked_srcs false $d:ident $a:ident) => { [&$a] };
    (@masked_srcs true $d:ident $a:ident) => { [&$a, &$d] };
}

scalar_instr!(
    "Adds", "dst[i] = src[i] + scalar", AddsOp, adds, adds_masked, AddsElement::adds_supported,
    prepare |s| -> T, s,
    lane |x; s| T::l_add(x, s),
    wide |x; s| x + s,
    types [f16 => |soc| true, f32 => |soc| true, i32 => |soc| soc != Soc::Ascend910, i16 => |soc| soc != Soc::Ascend910],
    bad [u16, u32],
    reads_dst false,
    example (f32, 1.5, 2.0, 0.0 => 3.5)
);

/// [`adds_masked`] on behalf of `api` (a primitive built on it), which its checks and the
/// sanitizer name; `names` are the `[dst, src]` operands as `api` calls them.
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub(crate) fn adds_masked_as<T: AddsElement, const IS_SET_MASK: bool>(
    api: &'static str,
    names: [&'static str; 2],
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    scalar: T,
    mask: impl Into<Mask>,
    repeat_times: u8,
    p: &UnaryRepeatParams,
) {
    let op = AddsOp(scalar, scalar.l_wide(), scalar);
    let d = Operand::new(dst, p.dst_blk_stride, p.dst_rep_stride, names[0]);
    let a = Operand::new(src, p.src_blk_stride, p.src_rep_stride, names[1]);
    run_masked::<T, _, 1, IS_SET_MASK>(api, T::adds_supported, op, &d, [&a], mask.into(), repeat_times)
}

scalar_instr!(
    "Muls", "dst[i] = src[i] * scalar", MulsOp, muls, muls_masked, MulsElement::muls_supported,
    prepare |s| -> T, s,
    lane |x; s| T::l_mul(x, s),
    wide |x; s| x * s,
    types [f16 => |soc| true, f32 => |soc| true, i32 => |soc| soc != Soc::Ascend910, i16 => |soc| soc != Soc::Ascend910],
    bad [u16, u32],
    reads_dst false,
    example (f16, 1.5, -2.0, 0.0 => -3.0)
);

scalar_instr!(
    "Maxs", "dst[i] = max(src[i], scalar)", MaxsOp, maxs, maxs_masked, MaxsElement::maxs_supported,
    prepare |s| -> T, s,
    lane |x; s| T::l_max(x, s),
    wide |x; s| crate::vector::lane::fmax(x, s),
    types [
        f16 => |soc| soc != Soc::Ascend910, f32 => |soc| soc != Soc::Ascend910,
        i32 => |soc| soc != Soc::Ascend910, i16 => |soc| soc != Soc::Ascend910,
    ],
    bad [u16, u32],
    reads_dst false,
    example (i32, -7.0, 0.0, 5.0 => 0.0)
);

scalar_instr!(
    "Mins", "dst[i] = min(src[i], scalar)", MinsOp, mins, mins_masked, MinsElement::mins_supported,
    prepare |s| -> T, s,
    lane |x; s| T::l_min(x, s),
    wide |x; s| crate::vector::lane::fmin(x, s),
    types [
        f16 => |soc| soc != Soc::Ascend910, f32 => |soc| soc != Soc::Ascend910,
        i32 => |soc| soc != Soc::Ascend910, i16 => |soc| soc != Soc::Ascend910,
    ],
    bad [u16, u32],
    reads_dst false,
    example (f32, 7.0, 6.0, 5.0 => 6.0)
);

scalar_instr!(
    "ShiftLeft", "dst[i] = src[i] << scalar", ShiftLeftOp, shift_left, shift_left_masked,
    ShiftLeftElement::shift_left_supported,
    prepare |s| -> u32, shift_amount("ShiftLeft", s),
    lane |x; s| T::l_shl(x, s),
    wide |x; s| { let _ = (x, s); unreachable!("ShiftLeft has no half lanes") },
    types [
        i16 => |soc| matches!(soc, Soc::Ascend910B | Soc::Ascend310B),
        u16 => |soc| matches!(soc, Soc::Ascend910B | Soc::Ascend310B),
        i32 => |soc| matches!(soc, Soc::Ascend910B | Soc::Ascend310B),
        u32 => |soc| matches!(soc, Soc::Ascend910B | Soc::Ascend310B),
    ],
    bad [f16, f32],
    reads_dst false,
    example (u16, 3.0, 4.0, 0.0 => 48.0)
);

scalar_instr!(
    "ShiftRight", "dst[i] = src[i] >> scalar", ShiftRightOp, shift_right, shift_right_masked,
    ShiftRightElement::shift_right_supported,
    prepare |s| -> (u32, bool), (shift_amount("ShiftRight", s), false),
    lane |x; s| shr_round(x, s.0, s.1),
    wide |x; s| { let _ = (x, s); unreachable!("ShiftRight has no half lanes") },
    types [
        i16 => |soc| matches!(soc, Soc::Ascend910B | Soc::Ascend310B),
        u16 => |soc| matches!(soc, Soc::Ascend910B | Soc::Ascend310B),
        i32 => |soc| matches!(soc, Soc::Ascend910B | Soc::Ascend310B),
        u32 => |soc| matches!(soc, Soc::Ascend910B | Soc::Ascend310B),
    ],
    bad [f16, f32],
    reads_dst false,
    example (i32, -64.0, 3.0, 0.0 => -8.0)
);

scalar_instr!(
    "LeakyRelu", "dst[i] = src[i] >= +0 ? src[i] : src[i] * scalar", LeakyReluOp, leaky_relu, leaky_relu_masked,
    LeakyReluElement::leaky_relu_supported,
    prepare |s| -> T, s,
    lane |x; s| if x.l_wide().is_sign_positive() { x } else { T::l_mul(x, s) },
    wide |x; s| if x.is_sign_positive() { x } else { x * s },
    types [f16 => |soc| soc != Soc::Ascend910, f32 => |soc| soc != Soc::Ascend910],
    bad [i16, i32],
    reads_dst false,
    example (f32, -4.0, 0.25, 0.0 => -1.0)
);

scalar_instr!(
    "Axpy", "dst[i] = src[i] * scalar + dst[i]", AxpyOp, axpy, axpy_masked, AxpyElement::axpy_supported,
    prepare |s| -> T, s,
    lane |x, d; s| T::l_add(T::l_mul(x, s), d),
    wide |x, d; s| round16::<SAT>(x * s) + d,
    types [f16 => |soc| true, f32 => |soc| true],
    bad [i16, i32],
    reads_dst true,
    example (f16, 3.0, 2.0, 1.0 => 7.0)
);

/// `ShiftRight` with AscendC's trailing `roundEn` argument (`ShiftRight<T, isSetMask>(dst,
/// src, scalarValue, mask, repeatTime, repeatParams, roundEn)`): as
/// [`shift_right_masked`], and with `round_en` the result is rounded by the bits shifted out —
/// the last bit shifted out (bit `scalar - 1` of `src`) is added to the shifted value, i.e.
/// `(src + 2^(scalar-1)) >> scalar` computed without overflow: round half up (towards +∞).
///
/// Where it applies, as the vendor's sources define it: on Ascend910B for `int16_t`/`int32_t`
/// (the C API `asc_shiftright_round` documents "0b1001 >> 1 = 0b0101, the last bit shifted out
/// is 1, so 1 is added"); for `uint16_t`/`uint32_t` the implementation warns that `roundEn`
/// "does not take effect", and Ascend310B's implementation ignores it — both give the plain
/// shift here. A shift of 0 shifts no bit out and is exact.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut buf = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut buf, 2 * 256);
/// let [dst, src] = [0, 1].map(|i| buf.get_with_offset::<i16>(128, i * 256));
/// src.copy_from_slice(&[0b1001; 128]);
/// src.set_value(1, 0b1010);
/// src.set_value(2, -3);
/// shift_right_round_masked::<i16, true>(&dst, &src, 1, 128u64, 1, &UnaryRepeatParams::default(), true);
/// assert_eq!(dst.get_value(0), 0b0101); // 4.5 rounds up to 5
/// assert_eq!(dst.get_value(1), 0b0101); // exact
/// assert_eq!(dst.get_value(2), -1); // -1.5 rounds up to -1
/// shift_right_round_masked::<i16, true>(&dst, &src, 1, 128u64, 1, &UnaryRepeatParams::default(), false);
/// assert_eq!(dst.get_value(0), 0b0100);
/// ```
///
/// # Panics
/// As [`shift_right_masked`].
#[track_caller]
pub fn shift_right_round_masked<T: ShiftRightElement, const IS_SET_MASK: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    scalar: T,
    mask: impl Into<Mask>,
    repeat_times: u8,
    params: &UnaryRepeatParams,
    round_en: bool,
) {
    let round = round_en && matches!(T::DTYPE, DType::I16 | DType::I32) && get_soc() == Soc::Ascend910B;
    let op = ShiftRightOp(scalar, scalar.l_wide(), (shift_amount("ShiftRight", scalar), round));
    let d = Operand::new(dst, params.dst_blk_stride, params.dst_rep_stride, "dst");
    let a = Operand::new(src, params.src_blk_stride, params.src_rep_stride, "src");
    run_masked::<T, _, 1, IS_SET_MASK>(
        "ShiftRight",
        T::shift_right_supported,
        op,
        &d,
        [&a],
        mask.into(),
        repeat_times,
    )
}
