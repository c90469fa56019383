//! Elementwise two-source instructions, each declared once with `binary_instr!`:
//! `Add`, `Sub`, `Mul`, `Div`, `Max`, `Min`, `And`, `Or`, `AddRelu`, `SubRelu`, and the
//! accumulating `MulAddDst` (`dst = src0 * src1 + dst`), `FusedMulAdd`
//! (`dst = src0 * dst + src1`) and `MulAddRelu` (`dst = max(src0 * dst + src1, 0)`).
//!
//! Every instruction comes in the forms AscendC has:
//! - the count form ([`sub`], [`mul`], …): elements `0..count` of every operand, contiguously;
//! - the high-dimensional form ([`sub_masked`], [`mul_masked`], …): a continuous or bit mask,
//!   `repeat_times` repeats and [`BinaryRepeatParams`] strides (SPEC §4), with `IS_SET_MASK`;
//! - where AscendC overloads an operator (`+ - * / & |`), the whole-tensor form: `&src0 * &src1`
//!   builds a lazy expression that [`LocalTensor::assign`] evaluates over `dst.get_size()`
//!   elements.
//!
//! Integer lanes wrap. `half` lanes are computed in `f32` and rounded once to nearest-even,
//! which is the hardware's rounding of one operation (for `Div` the double rounding through
//! `f32` is innocuous: `f32` has more than `2 * 11 + 2` bits); the core's `f16` overflow mode
//! ([`get_overflow_mode`](crate::ctx::get_overflow_mode), read once per call) decides what a
//! result beyond ±65504 becomes: ±65504 in [`OverflowMode::Saturation`](crate::soc::OverflowMode),
//! ±inf in `InfNan`. In saturation mode a NaN result becomes 0 (the vendor's description of
//! the saturation control bit: "inf → ±MAX, NaN → 0"); in inf/nan mode it stays NaN.
//! `Max`/`Min` are IEEE 754-2019 `maximum`/`minimum` (NaN wins, `-0 < +0`), as the vendor's
//! boundary-value tables list them. `MulAddDst` and `FusedMulAdd` round twice — the product
//! to the type (saturated in saturation mode), then the sum — as those tables show (a
//! product overflowing to inf then added to -inf gives NaN, and in saturation mode the
//! product saturates before the addition). `AddRelu`/`SubRelu` round the sum, then take
//! `max(·, +0)` (NaN stays NaN). `MulAddRelu` is `FusedMulAdd`'s two roundings followed by
//! that `max(·, +0)` — note the operands: `src0 * dst + src1`, as the vendor's formula
//! (`dst = Relu(src0 * dst + src1)`), its worked example and its boundary-value table (23: in
//! saturation mode a product of MAX plus MIN gives +0, an inf/nan-mode NaN stays NaN) have it.

use crate::element::{bf16, f16, Element};
use crate::memory::tensor::LocalTensor;
use crate::soc::Soc;
use crate::vector::engine::Operand;
use crate::vector::lane::{capability, frelu, round16, run_count, run_masked, Lane, LaneOp};
use crate::vector::mask::Mask;
use crate::vector::params::BinaryRepeatParams;

pub(crate) use crate::vector::lane::saturate;

/// Declares one two-source instruction: its lane operation, capability trait, chips, and
/// its count and high-dimensional forms with their docs (and, with `expr`, the operator).
macro_rules! binary_instr {
    (
        $api:literal, $formula:literal, $op:ident, $count:ident, $masked:ident,
        $trait:ident :: $supported:ident,
        lane |$($x:ident),+| $exact:expr,
        wide |$($w:ident),+| $wide:expr,
        types [$($t:ty => |$soc:ident| $ok:expr),* $(,)?],
        bad [$($bad:ty),*],
        reads_dst $reads_dst:tt,
        example ($ty:ty, $a:literal, $b:literal, $d:literal => $z:literal)
        $(, expr ($ops:ident, $opfn:ident, $expr:ident, $sym:literal))?
    ) => {
        #[doc = concat!("The lane operation of `", $api, "`.")]
        #[derive(Clone, Copy)]
        pub(crate) struct $op;

        impl<T: Lane> LaneOp<T, { binary_instr!(@n $reads_dst) }> for $op {
            #[inline(always)]
            fn exact(self, [$($x),+]: [T; binary_instr!(@n $reads_dst)]) -> T {
                $exact
            }
            #[inline(always)]
            fn wide<const SAT: bool>(self, [$($w),+]: [f32; binary_instr!(@n $reads_dst)]) -> f32 {
                $wide
            }
        }

        capability!(
            $api, $trait, $supported, Lane, [$($t => |$soc| $ok),*], [$($bad),*],
            concat!(stringify!($count), "(t, t, t, 16);")
        );

        #[doc = concat!("`", $formula, "` for `i in 0..count` (AscendC `", $api, "(dst, src0, src1, calCount)`).")]
        ///
        /// `dst` may be the same tensor as a source (complete overlap). See the module docs
        /// for the rounding and overflow rules.
        ///
        /// ```
        /// use ascend_core::prelude::*;
        /// let mut pipe = TPipe::new();
        /// let mut buf = TBuf::<VecCalc>::new();
        /// pipe.init_tbuf(&mut buf, 3 * 256);
        #[doc = concat!("let [dst, src0, src1] = [0, 1, 2].map(|i| buf.get_with_offset::<", stringify!($ty), ">(256 / ", stringify!($ty), "::SIZE, i * 256));")]
        #[doc = concat!("let v = |x: f64| ", stringify!($ty), "::from_f64(x);")]
        #[doc = concat!("let n = 256 / ", stringify!($ty), "::SIZE;")]
        #[doc = concat!("src0.copy_from_slice(&vec![v(", stringify!($a), "); n]);")]
        #[doc = concat!("src1.copy_from_slice(&vec![v(", stringify!($b), "); n]);")]
        #[doc = concat!("dst.copy_from_slice(&vec![v(", stringify!($d), "); n]);")]
        #[doc = concat!(stringify!($count), "(&dst, &src0, &src1, n);")]
        #[doc = concat!("assert_eq!(dst.get_value(n - 1), v(", stringify!($z), "));")]
        /// ```
        ///
        /// # Panics
        #[doc = concat!("Panics if the chip does not support `T` (see [`", stringify!($trait), "`]), if an operand")]
        /// is not a VECIN/VECOUT/VECCALC tensor, is not 32-byte aligned or holds fewer than
        /// `count` elements, or if `dst` partially overlaps a source.
        #[track_caller]
        pub fn $count<T: $trait>(dst: &LocalTensor<T>, src0: &LocalTensor<T>, src1: &LocalTensor<T>, count: usize) {
            run_count($api, T::$supported, $op, dst, binary_instr!(@count_srcs $reads_dst dst src0 src1), count)
        }

        #[doc = concat!("`", $formula, "` over the lanes a mask enables, for `repeat_times` repeats with the")]
        #[doc = concat!("strides of `params` (AscendC `", $api, "<T, isSetMask>(dst, src0, src1, mask, repeatTime,")]
        /// repeatParams)`, continuous and bit-mask forms).
        ///
        /// `mask` is a `u64` (continuous: lanes `0..mask`) or a `[u64; 2]` (bit mode). In counter
        /// mode ([`set_mask_count`](crate::vector::mask::set_mask_count)) a continuous mask is the
        /// total element count and `repeat_times` is ignored. With `IS_SET_MASK = false` the mask
        /// register ([`set_vector_mask`](crate::vector::mask::set_vector_mask)) is used and `mask`
        /// is ignored (the page asks for [`MASK_PLACEHOLDER`](crate::vector::mask::MASK_PLACEHOLDER)). Disabled lanes keep
        /// their old values. `repeat_times = 0` does nothing.
        ///
        /// ```
        /// use ascend_core::prelude::*;
        /// let mut pipe = TPipe::new();
        /// let mut buf = TBuf::<VecCalc>::new();
        /// pipe.init_tbuf(&mut buf, 3 * 256);
        #[doc = concat!("let [dst, src0, src1] = [0, 1, 2].map(|i| buf.get_with_offset::<", stringify!($ty), ">(256 / ", stringify!($ty), "::SIZE, i * 256));")]
        #[doc = concat!("let v = |x: f64| ", stringify!($ty), "::from_f64(x);")]
        #[doc = concat!("let n = 256 / ", stringify!($ty), "::SIZE;")]
        #[doc = concat!("src0.copy_from_slice(&vec![v(", stringify!($a), "); n]);")]
        #[doc = concat!("src1.copy_from_slice(&vec![v(", stringify!($b), "); n]);")]
        #[doc = concat!("dst.copy_from_slice(&vec![v(", stringify!($d), "); n]);")]
        /// // Lanes 0 and 2 of one repeat, in bit mode.
        #[doc = concat!(stringify!($masked), "::<", stringify!($ty), ", true>(&dst, &src0, &src1, [0b101, 0], 1, &BinaryRepeatParams::default());")]
        #[doc = concat!("assert_eq!(dst.get_value(0), v(", stringify!($z), "));")]
        #[doc = concat!("assert_eq!(dst.get_value(1), v(", stringify!($d), "));")]
        #[doc = concat!("assert_eq!(dst.get_value(2), v(", stringify!($z), "));")]
        /// ```
        ///
        /// # Panics
        /// Panics if the chip does not support `T`; if the mask is out of range for `T` (a count
        /// outside `1..=PAR`, `mask[1] != 0` for 32-bit types), is `MASK_PLACEHOLDER` with
        /// `IS_SET_MASK = true` (`IS_SET_MASK = false` ignores it); if an operand is not a
        /// VECIN/VECOUT/VECCALC tensor or not 32-byte aligned; if any touched element lies outside
        /// its tensor; or if `dst` partially overlaps a source.
        #[track_caller]
        pub fn $masked<T: $trait, const IS_SET_MASK: bool>(
            dst: &LocalTensor<T>,
            src0: &LocalTensor<T>,
            src1: &LocalTensor<T>,
            mask: impl Into<Mask>,
            repeat_times: u8,
            params: &BinaryRepeatParams,
        ) {
            let p = params;
            let d = Operand::new(dst, p.dst_blk_stride, p.dst_rep_stride, "dst");
            let a = Operand::new(src0, p.src0_blk_stride, p.src0_rep_stride, "src0");
            let b = Operand::new(src1, p.src1_blk_stride, p.src1_rep_stride, "src1");
            run_masked::<T, $op, { binary_instr!(@n $reads_dst) }, IS_SET_MASK>(
                $api, T::$supported, $op, &d, binary_instr!(@masked_srcs $reads_dst d a b), mask.into(), repeat_times,
            )
        }

        $(
            #[doc = concat!("`&src0 ", $sym, " &src1`: a lazy whole-tensor `", $api, "` (see [`LocalTensor::assign`]).")]
            #[derive(Clone, Copy, Debug)]
            pub struct $expr<'a, T: $trait> {
                /// The first source.
                pub src0: &'a LocalTensor<T>,
                /// The second source.
                pub src1: &'a LocalTensor<T>,
            }

            impl<'a, T: $trait> core::ops::$ops for &'a LocalTensor<T> {
                type Output = $expr<'a, T>;
                fn $opfn(self, rhs: Self) -> $expr<'a, T> {
                    $expr { src0: self, src1: rhs }
                }
            }

            impl<T: $trait> TensorExpr<T> for $expr<'_, T> {
                #[track_caller]
                fn eval_into(&self, dst: &LocalTensor<T>) {
                    $count(dst, self.src0, self.src1, dst.get_size())
                }
            }
        )?
    };
    (@n false) => { 2 };
    (@n true) => { 3 };
    (@count_srcs false $d:ident $a:ident $b:ident) => { [($a, "src0"), ($b, "src1")] };
    (@count_srcs true $d:ident $a:ident $b:ident) => { [($a, "src0"), ($b, "src1"), ($d, "dst")] };
    (@masked_srcs false $d:ident $a:ident $b:ident) => { [&$a, &$b] };
    (@masked_srcs true $d:ident $a:ident $b:ident) => { [&$a, &$b, &$d] };
}

binary_instr!(
    "Add", "dst[i] = src0[i] + src1[i]", AddOp, add, add_masked, AddElement::add_supported,
    lane |a, b| T::l_add(a, b),
    wide |a, b| a + b,
    types [f16 => |soc| true, f32 => |soc| true, i32 => |soc| true, i16 => |soc| soc != Soc::Ascend910],
    bad [u16, i64],
    reads_dst false,
    example (i32, 2147483647.0, 1.0, 0.0 => -2147483648.0),
    expr (Add, add, AddExpr, "+")
);

binary_instr!(
    "Sub", "dst[i] = src0[i] - src1[i]", SubOp, sub, sub_masked, SubElement::sub_supported,
    lane |a, b| T::l_sub(a, b),
    wide |a, b| a - b,
    types [f16 => |soc| true, f32 => |soc| true, i32 => |soc| true, i16 => |soc| soc != Soc::Ascend910],
    bad [u8, u64, bf16],
    reads_dst false,
    example (f32, 5.0, 1.5, 0.0 => 3.5),
    expr (Sub, sub, SubExpr, "-")
);

binary_instr!(
    "Mul", "dst[i] = src0[i] * src1[i]", MulOp, mul, mul_masked, MulElement::mul_supported,
    lane |a, b| T::l_mul(a, b),
    wide |a, b| a * b,
    types [f16 => |soc| true, f32 => |soc| true, i32 => |soc| true, i16 => |soc| soc != Soc::Ascend910],
    bad [u16, u32, bf16],
    reads_dst false,
    example (f16, 1.5, -3.0, 0.0 => -4.5),
    expr (Mul, mul, MulExpr, "*")
);

binary_instr!(
    "Div", "dst[i] = src0[i] / src1[i]", DivOp, div, div_masked, DivElement::div_supported,
    lane |a, b| T::l_div(a, b),
    wide |a, b| a / b,
    types [f16 => |soc| true, f32 => |soc| true],
    bad [i32, i16, bf16],
    reads_dst false,
    example (f32, 1.0, 4.0, 0.0 => 0.25),
    expr (Div, div, DivExpr, "/")
);

binary_instr!(
    "Max", "dst[i] = max(src0[i], src1[i])", MaxOp, max, max_masked, MaxElement::max_supported,
    lane |a, b| T::l_max(a, b),
    wide |a, b| crate::vector::lane::fmax(a, b),
    types [f16 => |soc| true, f32 => |soc| true, i32 => |soc| true, i16 => |soc| soc != Soc::Ascend910],
    bad [u16, u32],
    reads_dst false,
    example (f32, -1.0, 2.0, 0.0 => 2.0)
);

binary_instr!(
    "Min", "dst[i] = min(src0[i], src1[i])", MinOp, min, min_masked, MinElement::min_supported,
    lane |a, b| T::l_min(a, b),
    wide |a, b| crate::vector::lane::fmin(a, b),
    types [f16 => |soc| true, f32 => |soc| true, i32 => |soc| true, i16 => |soc| soc != Soc::Ascend910],
    bad [u16, u32],
    reads_dst false,
    example (i32, -1.0, 2.0, 0.0 => -1.0)
);

binary_instr!(
    "And", "dst[i] = src0[i] & src1[i]", AndOp, and, and_masked, AndElement::and_supported,
    lane |a, b| T::l_and(a, b),
    wide |a, b| { let _ = (a, b); unreachable!("And has no half lanes") },
    types [i16 => |soc| true, u16 => |soc| true],
    bad [i32, u32, f16],
    reads_dst false,
    example (u16, 12.0, 10.0, 0.0 => 8.0),
    expr (BitAnd, bitand, AndExpr, "&")
);

binary_instr!(
    "Or", "dst[i] = src0[i] | src1[i]", OrOp, or, or_masked, OrElement::or_supported,
    lane |a, b| T::l_or(a, b),
    wide |a, b| { let _ = (a, b); unreachable!("Or has no half lanes") },
    types [i16 => |soc| true, u16 => |soc| true],
    bad [i32, u32, f16],
    reads_dst false,
    example (i16, 12.0, 10.0, 0.0 => 14.0),
    expr (BitOr, bitor, OrExpr, "|")
);

binary_instr!(
    "AddRelu", "dst[i] = max(src0[i] + src1[i], 0)", AddReluOp, add_relu, add_relu_masked,
    AddReluElement::add_relu_supported,
    lane |a, b| T::l_relu(T::l_add(a, b)),
    wide |a, b| frelu(if SAT { saturate(a + b) } else { a + b }),
    types [
        f16 => |soc| soc != Soc::Ascend910,
        f32 => |soc| soc != Soc::Ascend910,
        i16 => |soc| matches!(soc, Soc::Ascend910B | Soc::Ascend310P),
    ],
    bad [i32, u16],
    reads_dst false,
    example (f32, 1.0, -3.0, 7.0 => 0.0)
);

binary_instr!(
    "SubRelu", "dst[i] = max(src0[i] - src1[i], 0)", SubReluOp, sub_relu, sub_relu_masked,
    SubReluElement::sub_relu_supported,
    lane |a, b| T::l_relu(T::l_sub(a, b)),
    wide |a, b| frelu(if SAT { saturate(a - b) } else { a - b }),
    types [
        f16 => |soc| soc != Soc::Ascend910,
        f32 => |soc| soc != Soc::Ascend910,
        i16 => |soc| matches!(soc, Soc::Ascend910B | Soc::Ascend310P),
    ],
    bad [i32, u16],
    reads_dst false,
    example (f16, 5.0, 3.0, 7.0 => 2.0)
);

binary_instr!(
    "MulAddDst", "dst[i] = src0[i] * src1[i] + dst[i]", MulAddDstOp, mul_add_dst, mul_add_dst_masked,
    MulAddDstElement::mul_add_dst_supported,
    lane |a, b, d| T::l_add(T::l_mul(a, b), d),
    wide |a, b, d| round16::<SAT>(a * b) + d,
    types [
        f16 => |soc| soc != Soc::Ascend910,
        f32 => |soc| soc != Soc::Ascend910,
        i16 => |soc| soc == Soc::Ascend310B,
        u16 => |soc| soc == Soc::Ascend310B,
        i32 => |soc| soc == Soc::Ascend310B,
        u32 => |soc| soc == Soc::Ascend310B,
    ],
    bad [bf16, i64],
    reads_dst true,
    example (f32, 2.0, 3.0, 1.0 => 7.0)
);

binary_instr!(
    "MulAddRelu", "dst[i] = max(src0[i] * dst[i] + src1[i], 0)", MulAddReluOp, mul_add_relu, mul_add_relu_masked,
    MulAddReluElement::mul_add_relu_supported,
    lane |a, b, d| T::l_relu(T::l_add(T::l_mul(a, d), b)),
    wide |a, b, d| {
        let r = round16::<SAT>(a * d) + b;
        frelu(if SAT { saturate(r) } else { r })
    },
    types [f16 => |soc| soc != Soc::Ascend910, f32 => |soc| soc != Soc::Ascend910],
    bad [i16, i32],
    reads_dst true,
    example (f32, 2.0, -7.0, 3.0 => 0.0)
);

binary_instr!(
    "FusedMulAdd", "dst[i] = src0[i] * dst[i] + src1[i]", FusedMulAddOp, fused_mul_add, fused_mul_add_masked,
    FusedMulAddElement::fused_mul_add_supported,
    lane |a, b, d| T::l_add(T::l_mul(a, d), b),
    wide |a, b, d| round16::<SAT>(a * d) + b,
    types [f16 => |soc| soc != Soc::Ascend910, f32 => |soc| soc != Soc::Ascend910],
    bad [i16, i32],
    reads_dst true,
    example (f16, 2.0, 1.0, 3.0 => 7.0)
);

/// A two-source high-dimensional instruction (`op`, e.g. [`AddOp`], on the chips `supported`
/// accepts) on behalf of `api`, a primitive built on it, which its checks and the sanitizer
/// name; `names` are the `[dst, src0, src1]` operands as `api` calls them. The rules are the
/// public masked forms' ([`add_masked`]).
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub(crate) fn binary_masked_as<T: Lane, O: LaneOp<T, 2>, const IS_SET_MASK: bool>(
    api: &'static str,
    supported: fn(Soc) -> bool,
    op: O,
    names: [&'static str; 3],
    [dst, src0, src1]: [&LocalTensor<T>; 3],
    mask: Mask,
    repeat_times: u8,
    p: &BinaryRepeatParams,
) {
    let d = Operand::new(dst, p.dst_blk_stride, p.dst_rep_stride, names[0]);
    let a = Operand::new(src0, p.src0_blk_stride, p.src0_rep_stride, names[1]);
    let b = Operand::new(src1, p.src1_blk_stride, p.src1_rep_stride, names[2]);
    run_masked::<T, O, 2, IS_SET_MASK>(api, supported, op, &d, [&a, &b], mask, repeat_times)
}

/// A lazily evaluated whole-tensor expression, written into a tensor by
/// [`LocalTensor::assign`] (AscendC's `dst = expr` operator overloads).
pub trait TensorExpr<T: Element> {
    /// Evaluates the expression over all `dst.get_size()` elements of `dst`.
    ///
    /// # Panics
    /// As the underlying instruction's count form with `count = dst.get_size()`.
    #[track_caller]
    fn eval_into(&self, dst: &LocalTensor<T>);
}

impl<T: Element> LocalTensor<T> {
    /// Evaluates a whole-tensor expression into this tensor over its `get_size()` elements
    /// (AscendC `dst = src0 - src1;`, `+`, `*`, `/`, `&`, `|`).
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let (mut a, mut b, mut c) = (TBuf::<VecIn>::new(), TBuf::<VecIn>::new(), TBuf::<VecOut>::new());
    /// for buf in [&mut a, &mut b] {
    ///     pipe.init_tbuf(buf, 64);
    /// }
    /// pipe.init_tbuf(&mut c, 64);
    /// let (x, y, z) = (a.get::<i16>(), b.get::<i16>(), c.get::<i16>());
    /// x.copy_from_slice(&[7; 32]);
    /// y.copy_from_slice(&[2; 32]);
    /// z.assign(&x - &y);
    /// assert_eq!(z.to_vec(), vec![5i16; 32]);
    /// z.assign(&x + &y);
    /// assert_eq!(z.get_value(31), 9);
    /// ```
    ///
    /// # Panics
    /// As the expression's instruction in count form with `count = self.get_size()` (a source
    /// shorter than `self`, an operand outside the vector positions or misaligned, partial
    /// overlap, or a type the chip does not support).
    #[track_caller]
    pub fn assign(&self, expr: impl TensorExpr<T>) {
        expr.eval_into(self)
    }
}
