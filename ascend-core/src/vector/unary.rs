//! Elementwise one-source instructions, each declared once with `unary_instr!`: `Exp`, `Ln`,
//! `Abs`, `Sqrt`, `Rsqrt`, `Reciprocal`, `Relu`, `Not`.
//!
//! Two forms each, as in AscendC: the count form ([`exp`], …) and the high-dimensional form
//! ([`exp_masked`], …) with a mask, `repeat_times` and [`UnaryRepeatParams`] strides.
//!
//! Fidelity model: `Abs`, `Sqrt`, `Relu` and `Not` are exact (`Sqrt` of a `half` through
//! `f32` is correctly rounded: `f32` carries more than `2 * 11 + 2` bits); `Exp`, `Ln`,
//! `Rsqrt` and `Reciprocal` are computed in `f64` (Rust's `exp`, `ln`, `1 / sqrt`, `1 / x`)
//! and rounded once to the type — the vendor documents them to within 1 ulp; the emulator
//! returns the (almost always correctly) rounded value. Special values follow IEEE 754, as the
//! vendor's boundary-value tables list them (`ln(±0) = -inf`, `rsqrt(-0) = -inf`, `ln` and
//! `sqrt` of a negative NaN, `relu(-0) = +0`), and `half` results pass through the core's
//! overflow mode (saturation: ±inf → ±65504, NaN → 0).

use crate::element::f16;
use crate::memory::tensor::LocalTensor;
use crate::soc::Soc;
use crate::vector::engine::Operand;
use crate::vector::lane::{capability, frelu, run_count, run_masked, Lane, LaneOp};
use crate::vector::mask::Mask;
use crate::vector::params::UnaryRepeatParams;

macro_rules! unary_instr {
    (
        $api:literal, $formula:literal, $op:ident, $count:ident, $masked:ident,
        $trait:ident :: $supported:ident,
        lane |$x:ident| $exact:expr,
        wide |$w:ident| $wide:expr,
        $(f64 |$w64:ident| $wide64:expr,)?
        types [$($t:ty => |$soc:ident| $ok:expr),* $(,)?],
        bad [$($bad:ty),*],
        example ($ty:ty, $a:literal, $d:literal => $z:literal)
    ) => {
        #[doc = concat!("The lane operation of `", $api, "`.")]
        #[derive(Clone, Copy)]
        pub(crate) struct $op;

        impl<T: Lane> LaneOp<T, 1> for $op {
            $(
                const F64: bool = true;
                #[inline(always)]
                fn wide64(self, [$w64]: [f64; 1]) -> f64 {
                    $wide64
                }
            )?
            #[inline(always)]
            fn exact(self, [$x]: [T; 1]) -> T {
                $exact
            }
            #[inline(always)]
            fn wide<const SAT: bool>(self, [$w]: [f32; 1]) -> f32 {
                $wide
            }
        }

        capability!(
            $api, $trait, $supported, Lane, [$($t => |$soc| $ok),*], [$($bad),*],
            concat!(stringify!($count), "(t, t, 16);")
        );

        #[doc = concat!("`", $formula, "` for `i in 0..count` (AscendC `", $api, "(dst, src, calCount)`).")]
        ///
        /// `dst` may be the same tensor as `src` (complete overlap). See the module docs for
        /// the fidelity model.
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
        #[doc = concat!(stringify!($count), "(&dst, &src, n);")]
        #[doc = concat!("assert_eq!(dst.get_value(n - 1), v(", stringify!($z), "));")]
        /// ```
        ///
        /// # Panics
        #[doc = concat!("Panics if the chip does not support `T` (see [`", stringify!($trait), "`]), if an operand")]
        /// is not a VECIN/VECOUT/VECCALC tensor, is not 32-byte aligned or holds fewer than
        /// `count` elements, or if `dst` partially overlaps `src`.
        #[track_caller]
        pub fn $count<T: $trait>(dst: &LocalTensor<T>, src: &LocalTensor<T>, count: usize) {
            run_count($api, T::$supported, $op, dst, [(src, "src")], count)
        }

        #[doc = concat!("`", $formula, "` over the lanes a mask enables, for `repeat_times` repeats with the")]
        #[doc = concat!("strides of `params` (AscendC `", $api, "<T, isSetMask>(dst, src, mask, repeatTime,")]
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
        /// // Lane 1 of one repeat, in bit mode.
        #[doc = concat!(stringify!($masked), "::<", stringify!($ty), ", true>(&dst, &src, [0b10, 0], 1, &UnaryRepeatParams::default());")]
        #[doc = concat!("assert_eq!(dst.get_value(0), v(", stringify!($d), "));")]
        #[doc = concat!("assert_eq!(dst.get_value(1), v(", stringify!($z), "));")]
        /// ```
        ///
        /// # Panics
        /// As [`sub_masked`](crate::vector::binary::sub_masked).
        #[track_caller]
        pub fn $masked<T: $trait, const IS_SET_MASK: bool>(
            dst: &LocalTensor<T>,
            src: &LocalTensor<T>,
            mask: impl Into<Mask>,
            repeat_times: u8,
            params: &UnaryRepeatParams,
        ) {
            let p = params;
            let d = Operand::new(dst, p.dst_blk_stride, p.dst_rep_stride, "dst");
            let a = Operand::new(src, p.src_blk_stride, p.src_rep_stride, "src");
            run_masked::<T, $op, 1, IS_SET_MASK>($api, T::$supported, $op, &d, [&a], mask.into(), repeat_times)
        }
    };
}

unary_instr!(
    "Exp", "dst[i] = exp(src[i])", ExpOp, exp, exp_masked, ExpElement::exp_supported,
    lane |x| T::l_f64(x, f64::exp),
    wide |x| x,
    f64 |x| x.exp(),
    types [f16 => |soc| true, f32 => |soc| true],
    bad [i16, i32],
    example (f32, 0.0, 5.0 => 1.0)
);

unary_instr!(
    "Ln", "dst[i] = ln(src[i])", LnOp, ln, ln_masked, LnElement::ln_supported,
    lane |x| T::l_f64(x, f64::ln),
    wide |x| x,
    f64 |x| x.ln(),
    types [f16 => |soc| true, f32 => |soc| true],
    bad [i16, i32],
    example (f16, 1.0, 5.0 => 0.0)
);

unary_instr!(
    "Abs", "dst[i] = |src[i]|", AbsOp, abs, abs_masked, AbsElement::abs_supported,
    lane |x| T::l_abs(x),
    wide |x| x.abs(),
    types [f16 => |soc| true, f32 => |soc| true, i16 => |soc| soc == Soc::Ascend310B],
    bad [i32, u16],
    example (f32, -2.5, 0.0 => 2.5)
);

unary_instr!(
    "Sqrt", "dst[i] = sqrt(src[i])", SqrtOp, sqrt, sqrt_masked, SqrtElement::sqrt_supported,
    lane |x| T::l_f64(x, f64::sqrt),
    wide |x| x.sqrt(),
    types [f16 => |soc| true, f32 => |soc| true],
    bad [i16, i32],
    example (f16, 16.0, 0.0 => 4.0)
);

unary_instr!(
    "Rsqrt", "dst[i] = 1 / sqrt(src[i])", RsqrtOp, rsqrt, rsqrt_masked, RsqrtElement::rsqrt_supported,
    lane |x| T::l_f64(x, rsqrt64),
    wide |x| x,
    f64 |x| rsqrt64(x),
    types [f16 => |soc| true, f32 => |soc| true],
    bad [i16, i32],
    example (f32, 4.0, 0.0 => 0.5)
);

unary_instr!(
    "Reciprocal", "dst[i] = 1 / src[i]", ReciprocalOp, reciprocal, reciprocal_masked,
    ReciprocalElement::reciprocal_supported,
    lane |x| T::l_f64(x, recip64),
    wide |x| x,
    f64 |x| recip64(x),
    types [f16 => |soc| true, f32 => |soc| true],
    bad [i16, i32],
    example (f32, 8.0, 0.0 => 0.125)
);

unary_instr!(
    "Relu", "dst[i] = max(src[i], 0)", ReluOp, relu, relu_masked, ReluElement::relu_supported,
    lane |x| T::l_relu(x),
    wide |x| frelu(x),
    types [f16 => |soc| true, f32 => |soc| soc != Soc::Ascend910, i32 => |soc| soc != Soc::Ascend910],
    bad [i16, u16],
    example (i32, -3.0, 9.0 => 0.0)
);

unary_instr!(
    "Not", "dst[i] = !src[i]", NotOp, not, not_masked, NotElement::not_supported,
    lane |x| T::l_not(x),
    wide |x| { let _ = x; unreachable!("Not has no half lanes") },
    types [i16 => |soc| true, u16 => |soc| true],
    bad [i32, f16],
    example (i16, 5.0, 0.0 => -6.0)
);

/// `1 / sqrt(x)` in `f64`: `-inf` for `-0`, as the vendor lists it (and IEEE `rSqrt`).
fn rsqrt64(x: f64) -> f64 {
    1.0 / x.sqrt()
}

/// `1 / x` in `f64`.
fn recip64(x: f64) -> f64 {
    1.0 / x
}
