//! The masked vector instructions the advanced functions chain, each followed by
//! `PipeBarrier<PIPE_V>` as the vendor's implementations write them: one repeat under the mask
//! already set (`MASK_PLACEHOLDER`, `isSetMask = false`; in counter mode, the round's count),
//! with the default strides. Also the two composite steps several functions share.

use crate::element::f16;
use crate::kernel::ctx::get_soc;
use crate::memory::tensor::LocalTensor;
use crate::soc::Soc;
use crate::sync::{event::PIPE_V, flags::pipe_barrier};
use crate::vector::binary::{
    add_masked, div_masked, min_masked, mul_masked, sub_masked, AddElement, DivElement, MinElement,
    MulElement, SubElement,
};
use crate::vector::cast::{cast_masked, RoundMode};
use crate::vector::mask::MASK_PLACEHOLDER;
use crate::vector::params::{BinaryRepeatParams, UnaryRepeatParams};
use crate::vector::scalar::{adds_masked, mins_masked, muls_masked, AddsElement, MinsElement, MulsElement};
use crate::vector::unary::{
    abs_masked, exp_masked, ln_masked, sqrt_masked, AbsElement, ExpElement, LnElement, SqrtElement,
};

use super::{NARROW, SAME, WIDEN};

macro_rules! unary_steps {
    ($($(#[$doc:meta])* $name:ident = $f:ident: $bound:ident;)+) => {$(
        $(#[$doc])*
        #[track_caller]
        pub(crate) fn $name<T: $bound>(dst: &LocalTensor<T>, src: &LocalTensor<T>) {
            $f::<T, false>(dst, src, MASK_PLACEHOLDER, 1, &UnaryRepeatParams::default());
            pipe_barrier::<PIPE_V>();
        }
    )+};
}

macro_rules! scalar_steps {
    ($($(#[$doc:meta])* $name:ident = $f:ident: $bound:ident;)+) => {$(
        $(#[$doc])*
        #[track_caller]
        pub(crate) fn $name<T: $bound>(dst: &LocalTensor<T>, src: &LocalTensor<T>, scalar: T) {
            $f::<T, false>(dst, src, scalar, MASK_PLACEHOLDER, 1, &UnaryRepeatParams::default());
            pipe_barrier::<PIPE_V>();
        }
    )+};
}

macro_rules! binary_steps {
    ($($(#[$doc:meta])* $name:ident = $f:ident: $bound:ident;)+) => {$(
        $(#[$doc])*
        #[track_caller]
        pub(crate) fn $name<T: $bound>(dst: &LocalTensor<T>, a: &LocalTensor<T>, b: &LocalTensor<T>) {
            $f::<T, false>(dst, a, b, MASK_PLACEHOLDER, 1, &BinaryRepeatParams::default());
            pipe_barrier::<PIPE_V>();
        }
    )+};
}

unary_steps! {
    /// `Abs`.
    abs = abs_masked: AbsElement;
    /// `Sqrt`.
    sqrt = sqrt_masked: SqrtElement;
    /// `Exp`.
    exp = exp_masked: ExpElement;
    /// `Ln`.
    ln = ln_masked: LnElement;
}

scalar_steps! {
    /// `Adds`.
    adds = adds_masked: AddsElement;
    /// `Muls`.
    muls = muls_masked: MulsElement;
    /// `Mins`.
    mins = mins_masked: MinsElement;
}

binary_steps! {
    /// `Add`.
    add = add_masked: AddElement;
    /// `Sub`.
    sub = sub_masked: SubElement;
    /// `Mul`.
    mul = mul_masked: MulElement;
    /// `Div`.
    div = div_masked: DivElement;
    /// `Min`.
    min = min_masked: MinElement;
}

/// `float` rounded to an integral `float` with `mode` under the mask set: Ascend910B one
/// `Cast<float, float>`; Ascend310P `Cast<int32_t, float>` with `mode` into `int_tmp`, then
/// `Cast<float, int32_t>` with `CAST_NONE` (the vendor's `*CastFor*`, `SinCast`, … for float);
/// each followed by `PipeBarrier<PIPE_V>`.
#[track_caller]
pub(crate) fn integral(
    dst: &LocalTensor<f32>,
    src: &LocalTensor<f32>,
    int_tmp: &LocalTensor<i32>,
    mode: RoundMode,
) {
    if get_soc() == Soc::Ascend310P {
        cast_masked::<i32, f32, false>(int_tmp, src, mode, MASK_PLACEHOLDER, 1, &SAME);
        pipe_barrier::<PIPE_V>();
        cast_masked::<f32, i32, false>(dst, int_tmp, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &SAME);
    } else {
        cast_masked::<f32, f32, false>(dst, src, mode, MASK_PLACEHOLDER, 1, &SAME);
    }
    pipe_barrier::<PIPE_V>();
}

/// `Cast<float, half>` (`CAST_NONE`, `half → float` strides) under the mask.
#[track_caller]
pub(crate) fn widen(dst: &LocalTensor<f32>, src: &LocalTensor<f16>) {
    cast_masked::<f32, f16, false>(dst, src, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &WIDEN);
    pipe_barrier::<PIPE_V>();
}

/// `half` through `float` in `ftmp` (the vendor's `*Process` for half): widen `src` into it,
/// `inner` on it, narrow it into `dst` (`CAST_NONE`), each followed by `PipeBarrier<PIPE_V>`.
#[track_caller]
pub(crate) fn via_float(
    dst: &LocalTensor<f16>,
    src: &LocalTensor<f16>,
    ftmp: &LocalTensor<f32>,
    inner: impl FnOnce(&LocalTensor<f32>),
) {
    widen(ftmp, src);
    inner(ftmp);
    cast_masked::<f16, f32, false>(dst, ftmp, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &NARROW);
    pipe_barrier::<PIPE_V>();
}
