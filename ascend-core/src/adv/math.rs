//! Math functions of the advanced API (the vendor's `adv_api/math`): the rounding family
//! `Floor`, `Ceil`, `Trunc`, `Frac` and `Round`, `Sign`, `ClampMax`/`ClampMin`, the advanced
//! `Axpy` ([`axpy_adv`]), `Tanh`, `Log`/`Log2`/`Log10`, and the advanced `Exp` ([`exp_adv`],
//! Taylor's formula) and `Erf`, with their host tiling helpers. (`Clamp` with both bounds exists only on Ascend 950, which is not
//! emulated.)
//!
//! They are `Cast`s with a rounding mode. Where a chip has no `float → float` rounding
//! (Ascend310P) the vendor goes through `int32_t` — `float → int32_t` with the mode, then back
//! with `CAST_NONE` — which saturates beyond the `int32_t` range (its pages limit inputs to
//! `[-2147483647, 2147483647]` there) and turns NaN into 0; `half` is widened to `float` first
//! and narrowed back at the end, through the temporary buffer.

use crate::element::{f16, DType, Element};
use crate::kernel::ctx::get_soc;
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::position::TPosition;
use crate::soc::Soc;
use crate::sync::{event::PIPE_V, flags::pipe_barrier};
use crate::vector::binary::{add_masked, div_masked, mul_masked, sub_masked, AddElement};
use crate::vector::cast::{cast, cast_masked, RoundMode};
use crate::vector::compare::{compare_masked, CompareElement, CMPMODE};
use crate::vector::duplicate::{duplicate_masked, DuplicateElement};
use crate::vector::mask::{reset_mask, set_mask_count, set_mask_norm, MASK_PLACEHOLDER};
use crate::vector::mask::{set_cmp_mask, set_vector_mask_hi_lo};
use crate::vector::params::{BinaryRepeatParams, UnaryRepeatParams};
use crate::vector::scalar::{
    adds_masked, axpy, maxs, maxs_masked, mins, mins_masked, muls_masked, MaxsElement, MinsElement,
    MulsElement,
};
use crate::vector::select::{select_scalar_reg, SelectElement};
use crate::vector::unary::{exp, exp_masked, ln_masked, ExpElement, LnElement};

use super::steps::{self, integral, via_float};
use super::{
    check_apart, check_common, check_tmp_operands, count_mask, counter_rounds, host_checks, span,
    split_count, stack_tensor, NARROW, ONE_BLK_SIZE, SAME, V220_V200, WIDEN,
};

mod sealed {
    pub trait Sealed {}
}
impl sealed::Sealed for f16 {}
impl sealed::Sealed for f32 {}

/// Declares an API's sealed element trait (`half` and `float`), with its compile_fail doctest.
macro_rules! element_trait {
    ($name:ident, $f:ident, $api:literal, $chips:literal) => {
        element_trait!($name, $f, $api, $chips, "::<_, false>(t, t, tmp, 8)", []);
    };
    ($name:ident, $f:ident, $api:literal, $chips:literal, $args:literal, [$($sup:path),*]) => {
        #[doc = concat!("Element types of [`", stringify!($f), "`]: `half` and `float` (the vendor's page), on the")]
        #[doc = concat!("chips that have an implementation (", $chips, ").")]
        ///
        /// Any other type does not compile:
        /// ```compile_fail
        /// use ascend_core::prelude::*;
        #[doc = concat!("fn f(t: &LocalTensor<i32>, tmp: &LocalTensor<u8>) { ", stringify!($f), $args, " }")]
        /// ```
        pub trait $name: Element + sealed::Sealed $(+ $sup)* {}
        impl $name for f16 {}
        impl $name for f32 {}
    };
}

element_trait!(FloorElement, floor, "Floor", "Ascend910B, Ascend310P, Ascend310B");
element_trait!(CeilElement, ceil, "Ceil", "Ascend910B, Ascend310P");
element_trait!(TruncElement, trunc, "Trunc", "Ascend910B, Ascend310P");
element_trait!(FracElement, frac, "Frac", "Ascend910B, Ascend310P");
element_trait!(RoundElement, round, "Round", "Ascend910B, Ascend310P");
element_trait!(SignElement, sign, "Sign", "Ascend910B, Ascend310P");
element_trait!(TanhElement, tanh, "Tanh", "Ascend910B, Ascend310P");
element_trait!(ErfElement, erf, "Erf", "Ascend910B, Ascend310P");
element_trait!(
    ExpAdvElement,
    exp_adv,
    "Exp",
    "Ascend910B, Ascend310P",
    "::<_, 10, false>(t, t, tmp, 8)",
    [ExpElement]
);
element_trait!(
    LogElement,
    log,
    "Log",
    "Ascend910B, Ascend310P; also of [`log2`] and [`log10`]",
    "::<_, false>(t, t, 8)",
    [LnElement, MulsElement]
);
element_trait!(
    ClampElement,
    clamp_max,
    "ClampMax",
    "Ascend910B, Ascend310P",
    "::<_, false>(t, t, tmp, 0, 8)",
    [MinsElement, MaxsElement]
);

const FLOOR: &str = "Floor";
const CEIL: &str = "Ceil";
const TRUNC: &str = "Trunc";
const FRAC: &str = "Frac";
const ROUND: &str = "Round";
const SIGN: &str = "Sign";
const TANH: &str = "Tanh";
const LOG: &str = "Log";
const EXP: &str = "Exp";
const ERF: &str = "Erf";
const LOG2: &str = "Log2";
const LOG10: &str = "Log10";
const CLAMP_MAX: &str = "ClampMax";
const CLAMP_MIN: &str = "ClampMin";

/// The chips whose build of the vendor's library implements `Floor` (`__NPU_ARCH__` 2201, 2002
/// and 3002; on Ascend910 it compiles to nothing).
const FLOOR_CHIPS: [Soc; 3] = [Soc::Ascend910B, Soc::Ascend310P, Soc::Ascend310B];
// ---------------------------------------------------------------------------------------
// Shared steps
// ---------------------------------------------------------------------------------------

/// The vendor's split loop in counter mode (`Floor`, `Ceil` and `Trunc` on Ascend910B and
/// Ascend310P): [`counter_rounds`] (the mask counted in `M`) with `process` on each split's
/// `dst` and `src`.
#[track_caller]
fn split_loop<T: Element, M: Element>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
    split: usize,
    mut process: impl FnMut(&LocalTensor<T>, &LocalTensor<T>),
) {
    counter_rounds::<M>(count, split, |t| t, |off, _| process(&dst.view(off), &src.view(off)));
}

/// `Ceil` and `Trunc` (the same structure on both chips): splits of `bytes / 4 / 32 * 32`
/// elements, each [`integral`] for `float` (its `int32_t` step in the scratch) or
/// [`via_float`] for `half`.
#[track_caller]
fn round_by_split<T: Element, M: Element>(
    api: &'static str,
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: &LocalTensor<u8>,
    count: usize,
    mode: RoundMode,
) {
    // `tmpBufferSize / sizeof(T)`, halved for half: bytes / 4 either way.
    let split = split_count(api, tmp, 4, 1);
    let (ftmp, itmp) = (tmp.reinterpret_cast::<f32>(), tmp.reinterpret_cast::<i32>());
    if T::DTYPE == DType::F16 {
        let (d, s) = (dst.reinterpret_cast::<f16>(), src.reinterpret_cast::<f16>());
        split_loop::<f16, M>(&d, &s, count, split, |d, s| {
            via_float(d, s, &ftmp, |f| integral(f, f, &f.reinterpret_cast::<i32>(), mode))
        });
    } else {
        let (d, s) = (dst.reinterpret_cast::<f32>(), src.reinterpret_cast::<f32>());
        split_loop::<f32, M>(&d, &s, count, split, |d, s| integral(d, s, &itmp, mode));
    }
}

// ---------------------------------------------------------------------------------------
// Floor
// ---------------------------------------------------------------------------------------

/// `dst[i] = floor(src[i])` (toward −∞) for `i < count`, with `shared_tmp_buffer` as scratch
/// (AscendC `Floor<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, calCount)`).
///
/// As the vendor's implementation per chip:
/// - `float`: Ascend910B and Ascend310B one `Cast<float, float>(…, CAST_FLOOR, calCount)`;
///   Ascend310P in counter mode over all of `count`, `Cast<int32_t, float>` with `CAST_FLOOR`
///   into `dst` (as `int32_t`) and back with `CAST_NONE`. The scratch is not used.
/// - `half`: splits of `shared_tmp_buffer.get_size() / 4 / 32 * 32` elements, each widened to
///   `float` in the scratch, floored there (as for `float`: through `int32_t` in place on
///   Ascend310P) and narrowed into `dst` — in counter mode with `PipeBarrier<PIPE_V>` between
///   the steps on Ascend910B and Ascend310P, with the count forms of `Cast` on Ascend310B.
///
/// The counter-mode paths leave normal mode and a reset mask. `IS_REUSE_SOURCE` is reserved:
/// `src` is never written.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 128 * 2);
/// pipe.init_tbuf(&mut tmp, 512);
/// let (x, y) = (q.get_with_offset::<f16>(128, 0), q.get_with_offset::<f16>(128, 256));
/// x.copy_from_slice(&[f16::from_f32(-1.5); 128]);
/// x.set_value(1, f16::from_f32(2.5));
/// floor::<_, false>(&y, &x, &tmp.get::<u8>(), 128);
/// assert_eq!(y.get_value(0), f16::from_f32(-2.0));
/// assert_eq!(y.get_value(1), f16::from_f32(2.0));
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910); `count` exceeds `src` or `dst`; a
/// tensor is not in the Unified Buffer; `dst` overlaps `src`, or the scratch overlaps either
/// (the vendor's constraints); for `half`, `shared_tmp_buffer` holds less than 128 bytes (no
/// split); on Ascend310P for `float`, `count` is 0 (a counter-mode mask of 0 elements); or any
/// instruction's own check fails.
#[track_caller]
pub fn floor<T: FloorElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    check_common(FLOOR, &FLOOR_CHIPS, dst, src, count);
    check_tmp_operands(FLOOR, dst, src, shared_tmp_buffer, count, true);
    let soc = get_soc();
    if T::DTYPE == DType::F32 {
        let (d, s) = (dst.reinterpret_cast::<f32>(), src.reinterpret_cast::<f32>());
        if soc == Soc::Ascend310P {
            // floor_v200_impl.h: FloorCommonProcess(dst, src, dst as int32_t).
            set_mask_count();
            count_mask::<f32>(count);
            integral(&d, &s, &d.reinterpret_cast::<i32>(), RoundMode::CastFloor);
            set_mask_norm();
            reset_mask();
        } else {
            cast(&d, &s, RoundMode::CastFloor, count);
        }
        return;
    }
    let (d, s) = (dst.reinterpret_cast::<f16>(), src.reinterpret_cast::<f16>());
    let split = split_count(FLOOR, shared_tmp_buffer, 4, 1);
    let ftmp = shared_tmp_buffer.reinterpret_cast::<f32>();
    if soc == Soc::Ascend310B {
        // floor_v300_impl.h: the count forms, no mask mode.
        let process = |off: usize, n: usize| {
            cast(&ftmp, &s.view(off), RoundMode::CastNone, n);
            cast(&ftmp, &ftmp, RoundMode::CastFloor, n);
            cast(&d.view(off), &ftmp, RoundMode::CastNone, n);
        };
        let (loops, tail) = (count / split, count % split);
        for i in 0..loops {
            process(i * split, split);
        }
        if tail > 0 {
            process(loops * split, tail);
        }
        return;
    }
    split_loop::<f16, f16>(&d, &s, count, split, |d, s| {
        via_float(d, s, &ftmp, |f| integral(f, f, &f.reinterpret_cast::<i32>(), RoundMode::CastFloor))
    });
}

/// [`floor`] with the stack buffer as scratch (AscendC `Floor<T, isReuseSource>(dstTensor,
/// srcTensor, calCount)`): the Unified Buffer after the core's `TPipe` buffers (see
/// [`pop_stack_buffer`](super::pop_stack_buffer)).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 64 * 4);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// x.copy_from_slice(&[-3.9f32; 64]);
/// floor_stack::<_, false>(&y, &x, 64);
/// assert_eq!(y.get_value(63), -4.0);
/// ```
///
/// # Panics
/// As [`floor`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn floor_stack<T: FloorElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    floor::<T, IS_REUSE_SOURCE>(dst, src, &stack_tensor(FLOOR), count);
}

// ---------------------------------------------------------------------------------------
// Ceil
// ---------------------------------------------------------------------------------------

/// `dst[i] = ceil(src[i])` (toward +∞) for `i < count`, with `shared_tmp_buffer` as scratch
/// (AscendC `Ceil<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, calCount)`).
///
/// As the vendor's implementation: in counter mode, splits of `shared_tmp_buffer.get_size() /
/// 4 / 32 * 32` elements, each a `Cast` with `CAST_CEIL` followed by `PipeBarrier<PIPE_V>` —
/// `float → float` on Ascend910B, through `int32_t` in the scratch on Ascend310P; `half` is
/// widened to `float` in the scratch first and narrowed into `dst` after. The mask is left in
/// normal mode, reset. `IS_REUSE_SOURCE` is reserved: `src` is never written.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 64 * 4);
/// pipe.init_tbuf(&mut tmp, 256);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// x.copy_from_slice(&[-1.1f32; 64]);
/// x.set_value(1, 0.9);
/// ceil::<_, false>(&y, &x, &tmp.get::<u8>(), 64);
/// assert_eq!((y.get_value(0), y.get_value(1)), (-1.0, 1.0));
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); `count` exceeds `src` or
/// `dst`; a tensor is not in the Unified Buffer; `dst` overlaps `src`, or the scratch overlaps
/// either (the vendor's constraints); `shared_tmp_buffer` holds less than 128 bytes (no split);
/// or any instruction's own check fails.
#[track_caller]
pub fn ceil<T: CeilElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    check_common(CEIL, &V220_V200, dst, src, count);
    check_tmp_operands(CEIL, dst, src, shared_tmp_buffer, count, true);
    // SetVectorMask<T, MaskMode::COUNTER>.
    round_by_split::<T, T>(CEIL, dst, src, shared_tmp_buffer, count, RoundMode::CastCeil);
}

/// [`ceil`] with the stack buffer as scratch (AscendC `Ceil<T, isReuseSource>(dstTensor,
/// srcTensor, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 32 * 2);
/// let (x, y) = (q.get_with_offset::<f16>(32, 0), q.get_with_offset::<f16>(32, 64));
/// x.copy_from_slice(&[f16::from_f32(5.9); 32]);
/// ceil_stack::<_, false>(&y, &x, 32);
/// assert_eq!(y.get_value(31), f16::from_f32(6.0));
/// ```
///
/// # Panics
/// As [`ceil`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn ceil_stack<T: CeilElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    ceil::<T, IS_REUSE_SOURCE>(dst, src, &stack_tensor(CEIL), count);
}

// ---------------------------------------------------------------------------------------
// Trunc
// ---------------------------------------------------------------------------------------

/// `dst[i] = trunc(src[i])` (toward 0) for `i < count`, with `shared_tmp_buffer` as scratch
/// (AscendC `Trunc<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, calCount)`).
///
/// As [`ceil`] with `CAST_TRUNC` (the vendor's implementations have the same structure; its
/// counter-mode mask is set as `SetVectorMask<half, MaskMode::COUNTER>` for both types). `dst`
/// may be `src` (the vendor's page allows the overlap). `IS_REUSE_SOURCE` is reserved.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 64 * 4);
/// pipe.init_tbuf(&mut tmp, 256);
/// let x = q.get::<f32>();
/// x.copy_from_slice(&[-8.07f32; 64]);
/// trunc::<_, false>(&x, &x, &tmp.get::<u8>(), 64); // in place
/// assert_eq!(x.get_value(0), -8.0);
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); `count` exceeds `src` or
/// `dst`; a tensor is not in the Unified Buffer; the scratch overlaps `src` or `dst` (the
/// vendor's constraint); `shared_tmp_buffer` holds less than 128 bytes (no split); or any
/// instruction's own check fails (`dst` overlapping `src` other than exactly).
#[track_caller]
pub fn trunc<T: TruncElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    check_common(TRUNC, &V220_V200, dst, src, count);
    check_tmp_operands(TRUNC, dst, src, shared_tmp_buffer, count, false);
    round_by_split::<T, f16>(TRUNC, dst, src, shared_tmp_buffer, count, RoundMode::CastTrunc);
}

/// [`trunc`] with the stack buffer as scratch (AscendC `Trunc<T, isReuseSource>(dstTensor,
/// srcTensor, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 32 * 2);
/// let (x, y) = (q.get_with_offset::<f16>(32, 0), q.get_with_offset::<f16>(32, 64));
/// x.copy_from_slice(&[f16::from_f32(9.33); 32]);
/// trunc_stack::<_, false>(&y, &x, 32);
/// assert_eq!(y.get_value(0), f16::from_f32(9.0));
/// ```
///
/// # Panics
/// As [`trunc`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn trunc_stack<T: TruncElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    trunc::<T, IS_REUSE_SOURCE>(dst, src, &stack_tensor(TRUNC), count);
}

// ---------------------------------------------------------------------------------------
// Frac
// ---------------------------------------------------------------------------------------

/// `dst[i] = src[i] - trunc(src[i])` (the fractional part, with the sign of `src[i]`) for
/// `i < count`, with `shared_tmp_buffer` as scratch (AscendC `Frac<T, isReuseSource>(dstTensor,
/// srcTensor, sharedTmpBuffer, calCount)`).
///
/// As the vendor's implementation, in counter mode: for `float`, one pass over all of `count`:
/// `trunc` into `dst` (`Cast` with `CAST_TRUNC`, through `int32_t` in `dst` on Ascend310P),
/// then `Sub(dst, src, dst)`; the scratch is not used (but must hold one `float`). For `half`,
/// splits of `shared_tmp_buffer.get_size() / 4 / 2 / 32 * 32` elements: `src` widened into the
/// scratch's first split, truncated into its second, subtracted there and narrowed into `dst`.
/// `PipeBarrier<PIPE_V>` after each step; normal mode and a reset mask afterwards.
/// `IS_REUSE_SOURCE` is reserved: `src` is never written.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 64 * 4);
/// pipe.init_tbuf(&mut tmp, 32);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// x.copy_from_slice(&[-8.25f32; 64]);
/// frac::<_, false>(&y, &x, &tmp.get::<u8>(), 64);
/// assert_eq!(y.get_value(0), -0.25);
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); `count` exceeds `src` or
/// `dst`; a tensor is not in the Unified Buffer; `dst` overlaps `src`, or the scratch overlaps
/// either; `shared_tmp_buffer` holds less than 4 bytes, or for `half` less than 256 (no split);
/// for `float`, `count` is 0 (a counter-mode mask of 0 elements); or any instruction's own
/// check fails.
#[track_caller]
pub fn frac<T: FracElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    check_common(FRAC, &V220_V200, dst, src, count);
    check_tmp_operands(FRAC, dst, src, shared_tmp_buffer, count, true);
    let bytes = shared_tmp_buffer.get_size();
    ensure(bytes / 4 > 0, FRAC, || {
        format!("sharedTmpBuffer has {bytes} bytes, less than one float (tmpBufferSize would be 0)")
    });
    let tmp = shared_tmp_buffer.reinterpret_cast::<f32>();
    set_mask_count();
    if T::DTYPE == DType::F16 {
        let (d, s) = (dst.reinterpret_cast::<f16>(), src.reinterpret_cast::<f16>());
        let stack_size = split_count(FRAC, shared_tmp_buffer, 4, 2);
        let (rounds, tail) = (count / stack_size, count % stack_size);
        count_mask::<f16>(stack_size);
        let (src_tmp, dst_tmp) = (tmp.clone(), tmp.view(stack_size));
        let compute = |off: usize| {
            steps::widen(&src_tmp, &s.view(off));
            integral(&dst_tmp, &src_tmp, &dst_tmp.reinterpret_cast::<i32>(), RoundMode::CastTrunc);
            let p = BinaryRepeatParams::default();
            sub_masked::<f32, false>(&dst_tmp, &src_tmp, &dst_tmp, MASK_PLACEHOLDER, 1, &p);
            pipe_barrier::<PIPE_V>();
            cast_masked::<f16, f32, false>(
                &d.view(off),
                &dst_tmp,
                RoundMode::CastNone,
                MASK_PLACEHOLDER,
                1,
                &NARROW,
            );
            pipe_barrier::<PIPE_V>();
        };
        for i in 0..rounds {
            compute(i * stack_size);
        }
        if tail != 0 {
            count_mask::<f16>(tail);
            compute(rounds * stack_size);
        }
    } else {
        let (d, s) = (dst.reinterpret_cast::<f32>(), src.reinterpret_cast::<f32>());
        // SetVectorMask<half, MaskMode::COUNTER>(0, calCount); one round, no tail.
        count_mask::<f16>(count);
        integral(&d, &s, &d.reinterpret_cast::<i32>(), RoundMode::CastTrunc);
        sub_masked::<f32, false>(&d, &s, &d, MASK_PLACEHOLDER, 1, &BinaryRepeatParams::default());
        pipe_barrier::<PIPE_V>();
    }
    set_mask_norm();
    reset_mask();
}

/// [`frac`] with the stack buffer as scratch (AscendC `Frac<T, isReuseSource>(dstTensor,
/// srcTensor, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 32 * 2);
/// let (x, y) = (q.get_with_offset::<f16>(32, 0), q.get_with_offset::<f16>(32, 64));
/// x.copy_from_slice(&[f16::from_f32(4.75); 32]);
/// frac_stack::<_, false>(&y, &x, 32);
/// assert_eq!(y.get_value(0), f16::from_f32(0.75));
/// ```
///
/// # Panics
/// As [`frac`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn frac_stack<T: FracElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    frac::<T, IS_REUSE_SOURCE>(dst, src, &stack_tensor(FRAC), count);
}

// ---------------------------------------------------------------------------------------
// Round
// ---------------------------------------------------------------------------------------

/// `dst[i]` = `src[i]` rounded to the nearest integer, ties to even (`Round(2.5) = 2`), for
/// `i < count`, with `shared_tmp_buffer` as scratch (AscendC `Round<T, isReuseSource>(dstTensor,
/// srcTensor, sharedTmpBuffer, calCount)`).
///
/// As the vendor's implementation, in counter mode, with `CAST_RINT`:
/// - Ascend910B, `float`: one `Cast<float, float>` over all of `count` (no barrier; the scratch
///   is not used); `half`: splits of `get_size() / 4 / 32 * 32` elements, widened into the
///   scratch, rounded there, narrowed into `dst`;
/// - Ascend310P, `float`: splits of `get_size() / 4 / 32 * 32`, `Cast<int32_t, float>` into the
///   scratch and back into `dst`; `half`: splits of `get_size() / 4 / 2 / 32 * 32`, widened,
///   through `int32_t` in place, narrowed.
///
/// `PipeBarrier<PIPE_V>` after each step of the splits; normal mode and a reset mask
/// afterwards. `dst` may be `src`. `IS_REUSE_SOURCE` is reserved.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 128 * 2);
/// pipe.init_tbuf(&mut tmp, 512);
/// let (x, y) = (q.get_with_offset::<f16>(128, 0), q.get_with_offset::<f16>(128, 256));
/// x.copy_from_slice(&[f16::from_f32(6.5); 128]);
/// x.set_value(1, f16::from_f32(-4.3));
/// round::<_, false>(&y, &x, &tmp.get::<u8>(), 128);
/// assert_eq!(y.get_value(0), f16::from_f32(6.0));
/// assert_eq!(y.get_value(1), f16::from_f32(-4.0));
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); `count` exceeds `src` or
/// `dst`; a tensor is not in the Unified Buffer; the scratch overlaps `src` or `dst` (the
/// vendor's constraint); the scratch has no split (less than 128 bytes, 256 for `half` on
/// Ascend310P; not checked for `float` on Ascend910B); `count` is 0 for `float` on Ascend910B (a
/// counter-mode mask of 0 elements); or any instruction's own check fails.
#[track_caller]
pub fn round<T: RoundElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    check_common(ROUND, &V220_V200, dst, src, count);
    check_tmp_operands(ROUND, dst, src, shared_tmp_buffer, count, false);
    let v200 = get_soc() == Soc::Ascend310P;
    set_mask_count();
    if T::DTYPE == DType::F32 {
        let (d, s) = (dst.reinterpret_cast::<f32>(), src.reinterpret_cast::<f32>());
        if v200 {
            let split = split_count(ROUND, shared_tmp_buffer, 4, 1);
            let itmp = shared_tmp_buffer.reinterpret_cast::<i32>();
            let (loops, tail) = (count / split, count % split);
            count_mask::<f32>(split);
            let step = |off: usize| {
                cast_masked::<i32, f32, false>(
                    &itmp,
                    &s.view(off),
                    RoundMode::CastRint,
                    MASK_PLACEHOLDER,
                    1,
                    &SAME,
                );
                pipe_barrier::<PIPE_V>();
                cast_masked::<f32, i32, false>(
                    &d.view(off),
                    &itmp,
                    RoundMode::CastNone,
                    MASK_PLACEHOLDER,
                    1,
                    &SAME,
                );
                pipe_barrier::<PIPE_V>();
            };
            for i in 0..loops {
                step(i * split);
            }
            if tail > 0 {
                count_mask::<f32>(tail);
                step(loops * split);
            }
        } else {
            count_mask::<f32>(count);
            cast_masked::<f32, f32, false>(&d, &s, RoundMode::CastRint, MASK_PLACEHOLDER, 1, &SAME);
        }
    } else {
        let (d, s) = (dst.reinterpret_cast::<f16>(), src.reinterpret_cast::<f16>());
        let split = split_count(ROUND, shared_tmp_buffer, 4, if v200 { 2 } else { 1 });
        let (ftmp, itmp) =
            (shared_tmp_buffer.reinterpret_cast::<f32>(), shared_tmp_buffer.reinterpret_cast::<i32>());
        let (loops, tail) = (count / split, count % split);
        if v200 {
            set_mask_count();
        }
        count_mask::<f16>(split);
        let step = |off: usize| {
            steps::widen(&ftmp, &s.view(off));
            if v200 {
                cast_masked::<i32, f32, false>(&itmp, &ftmp, RoundMode::CastRint, MASK_PLACEHOLDER, 1, &SAME);
                pipe_barrier::<PIPE_V>();
                cast_masked::<f32, i32, false>(&ftmp, &itmp, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &SAME);
            } else {
                cast_masked::<f32, f32, false>(&ftmp, &ftmp, RoundMode::CastRint, MASK_PLACEHOLDER, 1, &SAME);
            }
            pipe_barrier::<PIPE_V>();
            cast_masked::<f16, f32, false>(
                &d.view(off),
                &ftmp,
                RoundMode::CastNone,
                MASK_PLACEHOLDER,
                1,
                &NARROW,
            );
            pipe_barrier::<PIPE_V>();
        };
        for i in 0..loops {
            step(i * split);
        }
        if tail > 0 {
            count_mask::<f16>(tail);
            step(loops * split);
        }
        if v200 {
            set_mask_norm();
            reset_mask();
        }
    }
    set_mask_norm();
    reset_mask();
}

/// [`round`] with the stack buffer as scratch (AscendC `Round<T, isReuseSource>(dstTensor,
/// srcTensor, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 64 * 4);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// x.copy_from_slice(&[2.5f32; 64]);
/// x.set_value(1, -2.5);
/// round_stack::<_, false>(&y, &x, 64);
/// assert_eq!((y.get_value(0), y.get_value(1)), (2.0, -2.0));
/// ```
///
/// # Panics
/// As [`round`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn round_stack<T: RoundElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    round::<T, IS_REUSE_SOURCE>(dst, src, &stack_tensor(ROUND), count);
}

// ---------------------------------------------------------------------------------------
// Sign
// ---------------------------------------------------------------------------------------

/// `dst[i]` = the sign of `src[i]`: `1` if positive, `-1` if negative, `+0` for ±0 and NaN,
/// for `i < count`, with `shared_tmp_buffer` as scratch (AscendC `Sign<T, isReuseSource>(
/// dstTensor, srcTensor, sharedTmpBuffer, calCount)`).
///
/// As the vendor's implementation, in counter mode, splits of `shared_tmp_buffer.get_size() /
/// size_of::<T>() / 3 / 32 * 32` elements; the scratch holds two bit masks of `align_up(split /
/// 8, 32)` bytes, then two `split`-element tensors of `T`. Per split: `Duplicate(dst, 0)`;
/// `Compare(src, dst)` with `LT` and `GT` into the masks (over whole 256-byte repeats — on
/// Ascend310P in normal mode with a reset mask, back to counter mode after); `Duplicate(1)` into
/// the third tensor, `SetCmpMask` from it and `Select` (mode 1: `0` where `src < 0`, else `1`)
/// into the fourth; the same with `-1` into `dst` (`0` where `src > 0`, else `-1`); then
/// `Add(dst, fourth, dst)`; `PipeBarrier<PIPE_V>` between the steps. Normal mode and a reset
/// mask afterwards. `IS_REUSE_SOURCE` is reserved: `src` is never written.
///
/// Because `Compare` works on whole repeats, `src` and `dst` must reach the end of the last
/// split's last 256-byte repeat (the vendor's kernel reads and compares those elements too; the
/// bits are not used).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 64 * 4);
/// pipe.init_tbuf(&mut tmp, 768);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// let mut v = vec![0.0f32; 64];
/// v[..8].copy_from_slice(&[f32::NEG_INFINITY, -2.0, -0.0, 0.0, f32::NAN, 2.0, f32::INFINITY, 0.1]);
/// x.copy_from_slice(&v);
/// sign::<_, false>(&y, &x, &tmp.get::<u8>(), 8);
/// assert_eq!(y.to_vec()[..8], [-1.0, -1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0]);
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); `count` exceeds `src` or
/// `dst`; a tensor is not in the Unified Buffer; `dst` overlaps `src`, or the scratch overlaps
/// either (the vendor's constraints); `shared_tmp_buffer` has no split (less than `3 * 32`
/// elements of `T`); `src` or `dst` ends before the last repeat does (see above); or any
/// instruction's own check fails.
#[track_caller]
pub fn sign<T: SignElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    check_common(SIGN, &V220_V200, dst, src, count);
    check_tmp_operands(SIGN, dst, src, shared_tmp_buffer, count, true);
    if T::DTYPE == DType::F16 {
        sign_split(&dst.reinterpret_cast::<f16>(), &src.reinterpret_cast::<f16>(), shared_tmp_buffer, count);
    } else {
        sign_split(&dst.reinterpret_cast::<f32>(), &src.reinterpret_cast::<f32>(), shared_tmp_buffer, count);
    }
}

/// [`sign`] with the stack buffer as scratch (AscendC `Sign<T, isReuseSource>(dstTensor,
/// srcTensor, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 128 * 2);
/// let (x, y) = (q.get_with_offset::<f16>(128, 0), q.get_with_offset::<f16>(128, 256));
/// x.copy_from_slice(&[f16::from_f32(-0.5); 128]);
/// sign_stack::<_, false>(&y, &x, 100);
/// assert_eq!(y.get_value(99), f16::from_f32(-1.0));
/// ```
///
/// # Panics
/// As [`sign`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn sign_stack<T: SignElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    sign::<T, IS_REUSE_SOURCE>(dst, src, &stack_tensor(SIGN), count);
}

/// The vendor's `SignCompute` after its checks, for one concrete type.
#[track_caller]
fn sign_split<T: CompareElement + SelectElement + DuplicateElement + AddElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: &LocalTensor<u8>,
    count: usize,
) {
    const SIGN_CALC_PROC: usize = 3;
    const SIGN_BIT: usize = 8;
    let bytes = tmp.get_size();
    let split = bytes / T::SIZE / SIGN_CALC_PROC / ONE_BLK_SIZE * ONE_BLK_SIZE;
    ensure(split > 0, SIGN, || {
        format!(
            "sharedTmpBuffer has {bytes} bytes; it must hold at least {} (one split of {ONE_BLK_SIZE} {} elements, \
             three times; see the host's GetSignMaxMinTmpSize)",
            SIGN_CALC_PROC * ONE_BLK_SIZE * T::SIZE,
            T::DTYPE
        )
    });
    let (loops, tail) = (count / split, count % split);
    set_mask_count();
    count_mask::<T>(split);
    let tmp_len = (split / SIGN_BIT).div_ceil(ONE_BLK_SIZE) * ONE_BLK_SIZE;
    let (tmp1, tmp2) = (tmp.clone(), tmp.view(tmp_len));
    let stack_tensor = tmp.view(tmp_len * 2).reinterpret_cast::<T>();
    let (tmp3, tmp4) = (stack_tensor.clone(), stack_tensor.view(split));
    let repeats = |n: usize| (n * T::SIZE).div_ceil(256) as u8;
    let mut offset = 0;
    for _ in 0..loops {
        sign_compute(&dst.view(offset), &src.view(offset), &tmp1, &tmp2, &tmp3, &tmp4, split, repeats(split));
        offset += split;
    }
    if tail > 0 {
        count_mask::<T>(tail);
        sign_compute(&dst.view(offset), &src.view(offset), &tmp1, &tmp2, &tmp3, &tmp4, tail, repeats(tail));
    }
    set_mask_norm();
    reset_mask();
}

/// The vendor's `SignComputeImpl`: one split of `count` elements under the counter-mode mask.
#[allow(clippy::too_many_arguments)]
#[track_caller]
fn sign_compute<T: CompareElement + SelectElement + DuplicateElement + AddElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp1: &LocalTensor<u8>,
    tmp2: &LocalTensor<u8>,
    tmp3: &LocalTensor<T>,
    tmp4: &LocalTensor<T>,
    count: usize,
    repeat_times: u8,
) {
    let params = BinaryRepeatParams::default();
    let v200 = get_soc() == Soc::Ascend310P;
    duplicate_masked::<T, false>(dst, T::from_f64(0.0), MASK_PLACEHOLDER, 1, 1, 8);
    pipe_barrier::<PIPE_V>();
    if v200 {
        set_mask_norm();
        reset_mask();
    }
    compare_masked::<T, false>(tmp1, src, dst, CMPMODE::LT, MASK_PLACEHOLDER, repeat_times, &params);
    compare_masked::<T, false>(tmp2, src, dst, CMPMODE::GT, MASK_PLACEHOLDER, repeat_times, &params);
    if v200 {
        set_mask_count();
        count_mask::<T>(count);
    }
    duplicate_masked::<T, false>(tmp3, T::from_f64(1.0), MASK_PLACEHOLDER, 1, 1, 8);
    pipe_barrier::<PIPE_V>();
    set_cmp_mask(tmp3);
    select_scalar_reg::<T, u8>(tmp4, tmp1, dst, 1, &params);
    pipe_barrier::<PIPE_V>();
    duplicate_masked::<T, false>(tmp3, T::from_f64(-1.0), MASK_PLACEHOLDER, 1, 1, 8);
    pipe_barrier::<PIPE_V>();
    set_cmp_mask(tmp3);
    select_scalar_reg::<T, u8>(dst, tmp2, dst, 1, &params);
    pipe_barrier::<PIPE_V>();
    add_masked::<T, false>(dst, tmp4, dst, MASK_PLACEHOLDER, 1, &params);
    pipe_barrier::<PIPE_V>();
}

/// The scratch bytes `Sign` needs: `(max, min)` (AscendC `GetSignMaxMinTmpSize`): `3 * input
/// bytes` at most (at least the minimum), `3 * 256` at least.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_sign_max_min_tmp_size(1024, 2, false), (6144, 768));
/// assert_eq!(get_sign_max_min_tmp_size(8, 4, false), (768, 768));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0 (the vendor's host check) or `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_sign_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let _ = is_reuse_source;
    host_checks("GetSignMaxMinTmpSize", input_size, type_size);
    let min = 3 * 256;
    ((3 * input_size * type_size).max(min), min)
}

/// `Sign`'s `(maxLiveNodeCount, extraBuf)` (AscendC `GetSignTmpBufferFactorSize`): 3 for both
/// types.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_sign_tmp_buffer_factor_size(4), (3, 0));
/// ```
///
/// # Panics
/// Panics if `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_sign_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    host_checks("GetSignTmpBufferFactorSize", 1, type_size);
    (3, 0)
}

// ---------------------------------------------------------------------------------------
// ClampMax, ClampMin
// ---------------------------------------------------------------------------------------

/// `dst[i] = min(src[i], scalar)` for `i < count` (AscendC `ClampMax<T, isReuseSource>(dstTensor,
/// srcTensor, sharedTmpBuffer, scalar, calCount)`): as the vendor's implementation, one
/// `Mins(dst, src, scalar, calCount)` (IEEE `minimum`: NaN if `src[i]` or `scalar` is NaN). The
/// scratch is checked (the vendor's constraints) but not used. `IS_REUSE_SOURCE` is reserved.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 128 * 2);
/// pipe.init_tbuf(&mut tmp, 128);
/// let (x, y) = (q.get_with_offset::<f16>(128, 0), q.get_with_offset::<f16>(128, 256));
/// x.copy_from_slice(&(0..128).map(|i| f16::from_f32(i as f32)).collect::<Vec<_>>());
/// clamp_max::<_, false>(&y, &x, &tmp.get::<u8>(), f16::from_f32(2.0), 128);
/// assert_eq!(y.get_value(1), f16::from_f32(1.0));
/// assert_eq!(y.get_value(127), f16::from_f32(2.0));
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); `count` exceeds `src` or
/// `dst`; a tensor is not in the Unified Buffer; `dst` overlaps `src`, or the scratch overlaps
/// either (the vendor's constraints); or `Mins`' own checks fail.
#[track_caller]
pub fn clamp_max<T: ClampElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    scalar: T,
    count: usize,
) {
    check_common(CLAMP_MAX, &V220_V200, dst, src, count);
    check_tmp_operands(CLAMP_MAX, dst, src, shared_tmp_buffer, count, true);
    mins(dst, src, scalar, count);
}

/// [`clamp_max`] with the stack buffer (AscendC `ClampMax<T, isReuseSource>(dstTensor,
/// srcTensor, scalar, calCount)`): the vendor takes it (`PopStackBuffer`) though it does not use
/// it.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 64 * 4);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// x.copy_from_slice(&[20.0f32; 64]);
/// clamp_max_stack::<_, false>(&y, &x, 10.0, 64);
/// assert_eq!(y.get_value(0), 10.0);
/// ```
///
/// # Panics
/// As [`clamp_max`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn clamp_max_stack<T: ClampElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    scalar: T,
    count: usize,
) {
    clamp_max::<T, IS_REUSE_SOURCE>(dst, src, &stack_tensor(CLAMP_MAX), scalar, count);
}

/// `dst[i] = max(src[i], scalar)` for `i < count` (AscendC `ClampMin<T, isReuseSource>(dstTensor,
/// srcTensor, sharedTmpBuffer, scalar, calCount)`): as the vendor's implementation, one
/// `Maxs(dst, src, scalar, calCount)` (IEEE `maximum`: NaN if `src[i]` or `scalar` is NaN). The
/// scratch is checked (the vendor's constraints) but not used. `IS_REUSE_SOURCE` is reserved.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 64 * 4);
/// pipe.init_tbuf(&mut tmp, 64);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// x.copy_from_slice(&[-3.0f32; 64]);
/// clamp_min::<_, false>(&y, &x, &tmp.get::<u8>(), 10.0, 64);
/// assert_eq!(y.get_value(0), 10.0);
/// ```
///
/// # Panics
/// As [`clamp_max`] (with `Maxs`).
#[track_caller]
pub fn clamp_min<T: ClampElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    scalar: T,
    count: usize,
) {
    check_common(CLAMP_MIN, &V220_V200, dst, src, count);
    check_tmp_operands(CLAMP_MIN, dst, src, shared_tmp_buffer, count, true);
    maxs(dst, src, scalar, count);
}

/// [`clamp_min`] with the stack buffer (AscendC `ClampMin<T, isReuseSource>(dstTensor,
/// srcTensor, scalar, calCount)`), taken but not used, as the vendor's.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 128 * 2);
/// let (x, y) = (q.get_with_offset::<f16>(128, 0), q.get_with_offset::<f16>(128, 256));
/// x.copy_from_slice(&[f16::from_f32(-1.0); 128]);
/// clamp_min_stack::<_, false>(&y, &x, f16::ZERO, 100);
/// assert_eq!(y.get_value(99), f16::ZERO);
/// ```
///
/// # Panics
/// As [`clamp_min`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn clamp_min_stack<T: ClampElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    scalar: T,
    count: usize,
) {
    clamp_min::<T, IS_REUSE_SOURCE>(dst, src, &stack_tensor(CLAMP_MIN), scalar, count);
}

/// The scratch bytes `ClampMax`/`ClampMin` take: `(max, min)` (AscendC `GetClampMaxMinTmpSize`):
/// one byte per element at most, at least 64 for `float` and 128 for `half` (the vendor's
/// values; its kernels do not use the buffer).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_clamp_max_min_tmp_size(256, 4, false), (256, 64));
/// assert_eq!(get_clamp_max_min_tmp_size(16, 2, false), (128, 128));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0 (the vendor's host check) or `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_clamp_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let _ = is_reuse_source;
    host_checks("GetClampMaxMinTmpSize", input_size, type_size);
    let min = if type_size == 4 { 64 } else { 128 };
    (input_size.max(min), min)
}

/// `ClampMax`/`ClampMin`'s `(maxLiveNodeCount, extraBuf)` (AscendC
/// `GetClampTmpBufferFactorSize`): `(1, 0)`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_clamp_tmp_buffer_factor_size(4), (1, 0));
/// ```
///
/// # Panics
/// Panics if `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_clamp_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    host_checks("GetClampTmpBufferFactorSize", 1, type_size);
    (1, 0)
}

// ---------------------------------------------------------------------------------------
// Axpy
// ---------------------------------------------------------------------------------------

mod axpy_sealed {
    pub trait Sealed<U> {}
}

/// The `(dst, src)` type pairs of [`axpy_adv`]: `Self` is `dst`'s type (`T`), `U` is `src`'s
/// and the scalar's: `half`/`half`, `float`/`float` and the mixed `float`/`half` (the vendor's
/// page), on the chips the page lists (Ascend910B, Ascend310P).
///
/// Any other pair does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(d: &LocalTensor<f16>, s: &LocalTensor<f32>, tmp: &LocalTensor<u8>) { axpy_adv::<_, _, false>(d, s, 1.0, tmp, 8) }
/// ```
pub trait AxpyAdvElement<U: Element>: Element + axpy_sealed::Sealed<U> {}
impl axpy_sealed::Sealed<f16> for f16 {}
impl AxpyAdvElement<f16> for f16 {}
impl axpy_sealed::Sealed<f32> for f32 {}
impl AxpyAdvElement<f32> for f32 {}
impl axpy_sealed::Sealed<f16> for f32 {}
impl AxpyAdvElement<f16> for f32 {}

const AXPY: &str = "Axpy";

/// `dst[i] = src[i] * scalar_value + dst[i]` for `i < count`, in `float` (AscendC's advanced
/// `Axpy<T, U, isReuseSource>(dstTensor, srcTensor, scalarValue, sharedTmpBuffer, calCount)`,
/// which "is computed by `Muls` and `Add` for a better precision" than the basic `Axpy`
/// ([`axpy`]); named `axpy_adv` here as the basic one has the name).
///
/// As the vendor's implementation:
/// - `float`/`float`: the basic `Axpy(dst, src, scalar, calCount)`; the scratch is not used;
/// - `half` sources: in counter mode, splits of `stackSize` elements — `shared_tmp_buffer.
///   get_size() / 4 / 32 * 32`, halved first for a `half` `dst` — each: `src` widened into the
///   scratch, `Muls` by `(float)scalar_value` there; for a `half` `dst` also `dst` widened into
///   the scratch's second split, `Add` there and the sum narrowed into `dst`; for a `float` `dst`
///   `Add` into `dst` directly. `PipeBarrier<PIPE_V>` after each step; normal mode and a reset
///   mask afterwards.
///
/// The vendor's header compiles it for every chip but Ascend 950's own version; its page lists
/// only Ascend910B and Ascend310P (not Ascend910, which has no counter mode, nor Ascend310B),
/// which is what this follows. `IS_REUSE_SOURCE` is reserved: `src` is never written.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 512 * 2);
/// pipe.init_tbuf(&mut b, 512 * 4);
/// pipe.init_tbuf(&mut tmp, 1024);
/// let (x, y) = (a.get::<f16>(), b.get::<f32>());
/// x.copy_from_slice(&(1..=512).map(|i| f16::from_f32(i as f32)).collect::<Vec<_>>());
/// y.copy_from_slice(&[0.0f32; 512]);
/// axpy_adv::<_, _, false>(&y, &x, f16::from_f32(3.0), &tmp.get::<u8>(), 512);
/// assert_eq!((y.get_value(0), y.get_value(511)), (3.0, 1536.0));
/// ```
///
/// # Panics
/// Panics if the chip is neither Ascend910B nor Ascend310P; `count` exceeds `src` or `dst`; a
/// tensor is not in the Unified Buffer; `dst` overlaps `src`, or the scratch overlaps either
/// (the vendor's constraints); for `half` sources, the scratch has no split (less than 128
/// bytes, 256 for a `half` `dst`); or any instruction's own check fails.
#[track_caller]
pub fn axpy_adv<T: AxpyAdvElement<U>, U: Element, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<U>,
    scalar_value: U,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    let soc = get_soc();
    ensure(V220_V200.contains(&soc), AXPY, || {
        format!(
            "{AXPY} is not supported on {soc} ({}): the vendor's page lists Ascend910B and Ascend310P",
            soc.product_line()
        )
    });
    for (name, pos) in [("dst", dst.get_position()), ("src", src.get_position())] {
        ensure(pos.is_ub(), AXPY, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
    }
    ensure(count <= src.get_size(), AXPY, || {
        format!("calCount = {count} exceeds srcTensor's {} {} elements", src.get_size(), U::DTYPE)
    });
    ensure(count <= dst.get_size(), AXPY, || {
        format!("calCount = {count} exceeds dstTensor's {} {} elements", dst.get_size(), T::DTYPE)
    });
    check_tmp_operands(AXPY, dst, src, shared_tmp_buffer, count, true);
    if U::DTYPE == DType::F32 {
        let (d, s) = (dst.reinterpret_cast::<f32>(), src.reinterpret_cast::<f32>());
        axpy(&d, &s, f32::from_bits(scalar_value.to_bits_u64() as u32), count);
        return;
    }
    let s = src.reinterpret_cast::<f16>();
    let scalar = f16::from_bits(scalar_value.to_bits_u64() as u16).to_f32();
    let bytes = shared_tmp_buffer.get_size();
    ensure(bytes > 0, AXPY, || "sharedTmpBuffer has 0 bytes".into());
    let half_dst = T::DTYPE == DType::F16;
    let stack_size = split_count(AXPY, shared_tmp_buffer, 4, if half_dst { 2 } else { 1 });
    let tmp = shared_tmp_buffer.reinterpret_cast::<f32>();
    let (rounds, tail) = (count / stack_size, count % stack_size);
    let unary = UnaryRepeatParams::default();
    let binary = BinaryRepeatParams::default();
    let step = |off: usize| {
        let src = s.view(off);
        if half_dst {
            let d = dst.reinterpret_cast::<f16>().view(off);
            let (tmp_src, tmp_dst) = (tmp.clone(), tmp.view(stack_size));
            steps::widen(&tmp_src, &src);
            steps::widen(&tmp_dst, &d);
            muls_masked::<f32, false>(&tmp_src, &tmp_src, scalar, MASK_PLACEHOLDER, 1, &unary);
            pipe_barrier::<PIPE_V>();
            add_masked::<f32, false>(&tmp_dst, &tmp_src, &tmp_dst, MASK_PLACEHOLDER, 1, &binary);
            pipe_barrier::<PIPE_V>();
            cast_masked::<f16, f32, false>(&d, &tmp_dst, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &NARROW);
        } else {
            let d = dst.reinterpret_cast::<f32>().view(off);
            steps::widen(&tmp, &src);
            muls_masked::<f32, false>(&tmp, &tmp, scalar, MASK_PLACEHOLDER, 1, &unary);
            pipe_barrier::<PIPE_V>();
            add_masked::<f32, false>(&d, &tmp, &d, MASK_PLACEHOLDER, 1, &binary);
        }
        pipe_barrier::<PIPE_V>();
    };
    set_mask_count();
    count_mask::<T>(stack_size);
    for i in 0..rounds {
        step(i * stack_size);
    }
    if tail != 0 {
        count_mask::<T>(tail);
        step(rounds * stack_size);
    }
    set_mask_norm();
    reset_mask();
}

/// The scratch bytes the advanced `Axpy` needs for `input_size` source elements of `type_size`
/// bytes: `(max, min)` (AscendC `GetAxpyMaxMinTmpSize`): none for `float` sources; for `half`
/// `4 * max(input bytes, 256)` and 1024.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_axpy_max_min_tmp_size(512, 2, false), (4096, 1024));
/// assert_eq!(get_axpy_max_min_tmp_size(512, 4, false), (0, 0));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0 (the vendor's host check) or `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_axpy_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let _ = is_reuse_source;
    host_checks("GetAxpyMaxMinTmpSize", input_size, type_size);
    if type_size == 4 {
        return (0, 0);
    }
    fac_sizes(input_size, type_size, 4, 4)
}

/// The advanced `Axpy`'s `(maxLiveNodeCount, extraBuf)` (AscendC `GetAxpyTmpBufferFactorSize`):
/// 4 for `half` sources, 1 for `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_axpy_tmp_buffer_factor_size(2), (4, 0));
/// ```
///
/// # Panics
/// Panics if `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_axpy_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    host_checks("GetAxpyTmpBufferFactorSize", 1, type_size);
    (if type_size == 4 { 1 } else { 4 }, 0)
}

// ---------------------------------------------------------------------------------------
// Tanh
// ---------------------------------------------------------------------------------------

/// `dst[i] = tanh(src[i])` for `i < count`, with `shared_tmp_buffer` as scratch (AscendC
/// `Tanh<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, calCount)`).
///
/// As the vendor's implementation, in `float` as `(e^(2x) - 1) / (e^(2x) + 1)` with `x` clipped to
/// `[-8.8, 8.8]` (`float` constants): in counter mode, splits of `stackSize` elements
/// (`shared_tmp_buffer.get_size() / 4`, halved for `half`, `/ 32 * 32`), each `Mins(8.8)` and
/// `Maxs(-8.8)` into the scratch (the clip), `Muls(2)`, `Exp`, `Adds(-1)` into `dst`, `Adds(1)`
/// in place, `Div(dst, dst, clip)`, with `PipeBarrier<PIPE_V>` after each; for `half` the split
/// is widened into the scratch's first `stackSize` floats first (the clip is the second) and
/// narrowed into `dst` after. Normal mode and a reset mask afterwards. `IS_REUSE_SOURCE` is
/// reserved: `src` is never written.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 64 * 4);
/// pipe.init_tbuf(&mut tmp, 256);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// x.copy_from_slice(&[0.5f32; 64]);
/// x.set_value(1, 20.0);
/// tanh::<_, false>(&y, &x, &tmp.get::<u8>(), 64);
/// assert!((y.get_value(0) - 0.5f32.tanh()).abs() < 1e-6);
/// assert_eq!(y.get_value(1), 1.0);
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); `count` exceeds `src` or
/// `dst`; a tensor is not in the Unified Buffer; `dst` overlaps `src`, or the scratch overlaps
/// either (the vendor's constraints); the scratch has no split (less than 128 bytes, 256 for
/// `half`); or any instruction's own check fails.
#[track_caller]
pub fn tanh<T: TanhElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    check_common(TANH, &V220_V200, dst, src, count);
    check_tmp_operands(TANH, dst, src, shared_tmp_buffer, count, true);
    let bytes = shared_tmp_buffer.get_size();
    ensure(bytes / 4 > 0, TANH, || {
        format!("sharedTmpBuffer has {bytes} bytes, less than one float (tmpBufferSize would be 0)")
    });
    let half = T::DTYPE == DType::F16;
    let stack_size = split_count(TANH, shared_tmp_buffer, 4, if half { 2 } else { 1 });
    let tmp = shared_tmp_buffer.reinterpret_cast::<f32>();
    let (conv, clip) = if half { (tmp.clone(), tmp.view(stack_size)) } else { (tmp.clone(), tmp.clone()) };
    let (rounds, tail) = (count / stack_size, count % stack_size);
    let compute = |off: usize| {
        if half {
            let (d, s) = (dst.reinterpret_cast::<f16>().view(off), src.reinterpret_cast::<f16>().view(off));
            via_float(&d, &s, &conv, |f| tanh_formula(f, f, &clip));
        } else {
            let (d, s) = (dst.reinterpret_cast::<f32>().view(off), src.reinterpret_cast::<f32>().view(off));
            tanh_formula(&d, &s, &clip);
        }
    };
    set_mask_count();
    count_mask::<T>(stack_size);
    for i in 0..rounds {
        compute(i * stack_size);
    }
    if tail != 0 {
        count_mask::<T>(tail);
        compute(rounds * stack_size);
    }
    set_mask_norm();
    reset_mask();
}

/// [`tanh`] with the stack buffer as scratch (AscendC `Tanh<T, isReuseSource>(dstTensor,
/// srcTensor, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 128 * 2);
/// let (x, y) = (q.get_with_offset::<f16>(128, 0), q.get_with_offset::<f16>(128, 256));
/// x.copy_from_slice(&[f16::from_f32(-2.56); 128]);
/// tanh_stack::<_, false>(&y, &x, 128);
/// assert!((y.get_value(0).to_f32() + 0.98813187).abs() < 1e-3);
/// ```
///
/// # Panics
/// As [`tanh`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn tanh_stack<T: TanhElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    tanh::<T, IS_REUSE_SOURCE>(dst, src, &stack_tensor(TANH), count);
}

/// The vendor's `TanhFormulaImpl` under the counter-mode mask (its `repeatTimes` is the
/// default 1; counter mode ignores it).
#[track_caller]
fn tanh_formula(dst: &LocalTensor<f32>, src: &LocalTensor<f32>, clip: &LocalTensor<f32>) {
    const FP32_MIN_V2: f32 = -8.8;
    const FP32_MAX_V2: f32 = 8.8;
    const DOUBLE_X: f32 = 2.0;
    let (unary, binary) = (UnaryRepeatParams::default(), BinaryRepeatParams::default());
    mins_masked::<f32, false>(clip, src, FP32_MAX_V2, MASK_PLACEHOLDER, 1, &unary);
    pipe_barrier::<PIPE_V>();
    maxs_masked::<f32, false>(clip, clip, FP32_MIN_V2, MASK_PLACEHOLDER, 1, &unary);
    pipe_barrier::<PIPE_V>();
    muls_masked::<f32, false>(clip, clip, DOUBLE_X, MASK_PLACEHOLDER, 1, &unary);
    pipe_barrier::<PIPE_V>();
    exp_masked::<f32, false>(clip, clip, MASK_PLACEHOLDER, 1, &unary);
    pipe_barrier::<PIPE_V>();
    adds_masked::<f32, false>(dst, clip, -1.0, MASK_PLACEHOLDER, 1, &unary);
    pipe_barrier::<PIPE_V>();
    adds_masked::<f32, false>(clip, clip, 1.0, MASK_PLACEHOLDER, 1, &unary);
    pipe_barrier::<PIPE_V>();
    div_masked::<f32, false>(dst, dst, clip, MASK_PLACEHOLDER, 1, &binary);
    pipe_barrier::<PIPE_V>();
}

/// The scratch bytes `Tanh` needs: `(max, min)` (AscendC `GetTanhMaxMinTmpSize`): `fac *
/// max(input bytes, 256)` and `fac * 256`, `fac` 4 for `half`, 1 for `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_tanh_max_min_tmp_size(1024, 2, false), (8192, 1024));
/// assert_eq!(get_tanh_max_min_tmp_size(16, 4, false), (256, 256));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0 (the vendor's host check) or `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_tanh_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let _ = is_reuse_source;
    host_checks("GetTanhMaxMinTmpSize", input_size, type_size);
    fac_sizes(input_size, type_size, 4, 1)
}

/// `Tanh`'s `(maxLiveNodeCount, extraBuf)` (AscendC `GetTanhTmpBufferFactorSize`): 4 for
/// `half`, 1 for `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_tanh_tmp_buffer_factor_size(2), (4, 0));
/// ```
///
/// # Panics
/// Panics if `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_tanh_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    host_checks("GetTanhTmpBufferFactorSize", 1, type_size);
    (if type_size == 4 { 1 } else { 4 }, 0)
}

// ---------------------------------------------------------------------------------------
// Log, Log2, Log10
// ---------------------------------------------------------------------------------------

/// Fails unless `dst`'s and `src`'s first `count` elements are apart (the vendor's page).
#[track_caller]
fn check_dst_src<T: Element>(api: &'static str, dst: &LocalTensor<T>, src: &LocalTensor<T>, count: usize) {
    check_apart(api, &[(span("dst", dst, count), span("src", src, count))]);
}

/// The vendor's ending of the `Log` family: `SetMaskNorm` and `SetVectorMask<half,
/// MaskMode::NORMAL>(FULL_MASK, FULL_MASK)`.
fn log_epilogue() {
    set_mask_norm();
    set_vector_mask_hi_lo::<f16>(u64::MAX, u64::MAX);
}

/// `dst[i] = ln(src[i])` for `i < count` (AscendC `Log<T, isReuseSource>(dstTensor, srcTensor,
/// calCount)`): as the vendor's implementation, one `Ln` in counter mode over all of `count`,
/// then normal mode and a full mask. No temporary buffer. `IS_REUSE_SOURCE` is reserved.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 64 * 4);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// x.copy_from_slice(&[1.0f32; 64]);
/// log::<_, false>(&y, &x, 64);
/// assert_eq!(y.get_value(0), 0.0);
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); `count` exceeds `src` or
/// `dst`; a tensor is not in the Unified Buffer; `dst` overlaps `src` (the vendor's constraint);
/// `count` is 0 (a counter-mode mask of 0 elements); or `Ln`'s own checks fail.
#[track_caller]
pub fn log<T: LogElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    check_common(LOG, &V220_V200, dst, src, count);
    check_dst_src(LOG, dst, src, count);
    set_mask_count();
    count_mask::<T>(count);
    ln_masked::<T, false>(dst, src, MASK_PLACEHOLDER, 1, &UnaryRepeatParams::default());
    log_epilogue();
}

/// `dst[i] = log2(src[i])` for `i < count`, with `shared_tmp_buffer` as scratch for `half`
/// (AscendC `Log2<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, calCount)`).
///
/// As the vendor's implementation, in counter mode, as `Ln(x) * (1 / ln 2)` (the `float`
/// constant `1.4426950408889634`): for `float` over all of `count`, `Ln` into `dst`, then `Muls`
/// in place (the scratch is not used); for `half`, splits of `shared_tmp_buffer.get_size() / 4 /
/// 32 * 32` elements widened into the scratch, `Ln` and `Muls` there, narrowed into `dst`, with
/// `PipeBarrier<PIPE_V>` after each step. Normal mode and a full mask afterwards.
/// `IS_REUSE_SOURCE` is reserved.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 128 * 2);
/// pipe.init_tbuf(&mut tmp, 256);
/// let (x, y) = (q.get_with_offset::<f16>(128, 0), q.get_with_offset::<f16>(128, 256));
/// x.copy_from_slice(&[f16::from_f32(8.0); 128]);
/// log2::<_, false>(&y, &x, &tmp.get::<u8>(), 128);
/// assert_eq!(y.get_value(0), f16::from_f32(3.0));
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); `count` exceeds `src` or
/// `dst`; a tensor is not in the Unified Buffer; `dst` overlaps `src`; for `half`, the scratch
/// is not in the Unified Buffer, overlaps `src` or `dst`, or has no split (less than 128 bytes);
/// for `float`, `count` is 0 (a counter-mode mask of 0 elements); or any instruction's own check
/// fails.
#[track_caller]
pub fn log2<T: LogElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    const LN2_RECIPROCAL: f32 = std::f64::consts::LOG2_E as f32; // 1.4426950408889634
    check_common(LOG2, &V220_V200, dst, src, count);
    check_dst_src(LOG2, dst, src, count);
    let unary = UnaryRepeatParams::default();
    set_mask_count();
    if T::DTYPE == DType::F32 {
        let (d, s) = (dst.reinterpret_cast::<f32>(), src.reinterpret_cast::<f32>());
        count_mask::<f32>(count);
        ln_masked::<f32, false>(&d, &s, MASK_PLACEHOLDER, 1, &unary);
        pipe_barrier::<PIPE_V>();
        muls_masked::<f32, false>(&d, &d, LN2_RECIPROCAL, MASK_PLACEHOLDER, 1, &unary);
    } else {
        check_tmp_operands(LOG2, dst, src, shared_tmp_buffer, count, true);
        let (d, s) = (dst.reinterpret_cast::<f16>(), src.reinterpret_cast::<f16>());
        let split = split_count(LOG2, shared_tmp_buffer, 4, 1);
        let tmp = shared_tmp_buffer.reinterpret_cast::<f32>();
        let (loops, tail) = (count / split, count % split);
        let compute = |off: usize| {
            via_float(&d.view(off), &s.view(off), &tmp, |f| {
                ln_masked::<f32, false>(f, f, MASK_PLACEHOLDER, 1, &unary);
                pipe_barrier::<PIPE_V>();
                muls_masked::<f32, false>(f, f, LN2_RECIPROCAL, MASK_PLACEHOLDER, 1, &unary);
                pipe_barrier::<PIPE_V>();
            })
        };
        count_mask::<f16>(split);
        for i in 0..loops {
            compute(i * split);
        }
        if tail > 0 {
            count_mask::<f16>(tail);
            compute(loops * split);
        }
    }
    log_epilogue();
}

/// [`log2`] without a buffer (AscendC `Log2<T, isReuseSource>(dstTensor, srcTensor, calCount)`):
/// for `half` the stack buffer (see [`pop_stack_buffer`](super::pop_stack_buffer)); for `float`,
/// which needs none, the vendor passes an empty tensor and takes no stack.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 64 * 4);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// x.copy_from_slice(&[0.25f32; 64]);
/// log2_stack::<_, false>(&y, &x, 64);
/// assert_eq!(y.get_value(0), -2.0);
/// ```
///
/// # Panics
/// As [`log2`], and for `half` if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn log2_stack<T: LogElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    let stack_tensor = if T::DTYPE == DType::F16 {
        stack_tensor(LOG2)
    } else {
        LocalTensor::<u8>::new(TPosition::VECCALC, 0, 0)
    };
    log2::<T, IS_REUSE_SOURCE>(dst, src, &stack_tensor, count);
}

/// `dst[i] = log10(src[i])` for `i < count` (AscendC `Log10<T, isReuseSource>(dstTensor,
/// srcTensor, calCount)`): as the vendor's implementation, in counter mode over all of `count`,
/// `Ln` into `dst`, `PipeBarrier<PIPE_V>`, `Muls` in place by `1 / ln 10` as `T` (the literal
/// `0.43429448190325176`, rounded to `half` for `half`), then normal mode and a full mask. No
/// temporary buffer. `IS_REUSE_SOURCE` is reserved.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 64 * 4);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// x.copy_from_slice(&[1000.0f32; 64]);
/// log10::<_, false>(&y, &x, 64);
/// assert!((y.get_value(0) - 3.0).abs() < 1e-6);
/// ```
///
/// # Panics
/// As [`log`].
#[track_caller]
pub fn log10<T: LogElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    const LN10_RECIPROCAL: f32 = 0.434_294_481_903_251_76_f64 as f32;
    check_common(LOG10, &V220_V200, dst, src, count);
    check_dst_src(LOG10, dst, src, count);
    let unary = UnaryRepeatParams::default();
    set_mask_count();
    count_mask::<T>(count);
    ln_masked::<T, false>(dst, src, MASK_PLACEHOLDER, 1, &unary);
    pipe_barrier::<PIPE_V>();
    muls_masked::<T, false>(dst, dst, T::from_f64(f64::from(LN10_RECIPROCAL)), MASK_PLACEHOLDER, 1, &unary);
    log_epilogue();
}

/// The scratch bytes `Log` and `Log10` need: `(0, 0)` (AscendC `GetLogMaxMinTmpSize`,
/// `GetLog10MaxMinTmpSize`: they take none).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_log_max_min_tmp_size(1024, 2, false), (0, 0));
/// ```
///
/// # Panics
/// Never (the vendor's function checks nothing).
pub fn get_log_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let _ = (input_size, type_size, is_reuse_source);
    (0, 0)
}

/// The scratch bytes `Log2` needs: `(max, min)` (AscendC `GetLog2MaxMinTmpSize`): none for
/// `float`; for `half` `max(4 * input_size, 256)` and 256.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_log2_max_min_tmp_size(1024, 2, false), (4096, 256));
/// assert_eq!(get_log2_max_min_tmp_size(1024, 4, false), (0, 0));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0 (the vendor's host check) or `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_log2_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let _ = is_reuse_source;
    host_checks("GetLog2MaxMinTmpSize", input_size, type_size);
    if type_size == 2 {
        ((input_size * 4).max(256), 256)
    } else {
        (0, 0)
    }
}

/// `Log2`'s `(maxLiveNodeCount, extraBuf)` (AscendC `GetLog2TmpBufferFactorSize`): 2 for
/// `half`, 0 for `float` (`Log` and `Log10`: `(0, 0)`).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_log2_tmp_buffer_factor_size(2), (2, 0));
/// ```
///
/// # Panics
/// Panics if `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_log2_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    host_checks("GetLog2TmpBufferFactorSize", 1, type_size);
    (if type_size == 4 { 0 } else { 2 }, 0)
}

// ---------------------------------------------------------------------------------------
// Exp (advanced)
// ---------------------------------------------------------------------------------------

/// `dst[i] = exp(src[i])` for `i < count` in `float` by Taylor's formula, with
/// `shared_tmp_buffer` as scratch (AscendC's advanced `Exp<T, taylorExpandLevel,
/// isReuseSource>(dstLocal, srcLocal, sharedTmpBuffer, calCount)`; named `exp_adv` here as the
/// basic [`exp`] has the name).
///
/// As the vendor's implementation: `TAYLOR_EXPAND_LEVEL = 0` is the basic `Exp(dst, src,
/// calCount)`. Otherwise, in counter mode, splits of `oneTmpSize` elements — the scratch's floats
/// over 4 tensors for `half`, 3 for `float` (2 with `IS_REUSE_SOURCE`), each rounded down to 32
/// bytes of `T` — each: `x` into the first tensor (`half` widened, `float` by `Adds(0)`; with
/// `IS_REUSE_SOURCE` for `float` the first tensor is `src` itself, from its element 0, so `src`
/// is overwritten); `floor(x)` into the last tensor (`Cast` with `CAST_FLOOR`, through `int32_t`
/// on Ascend310P); `x - floor(x)` in place; `Exp` of the floor; then the sum `1 + d + d²/2! + …`
/// up to `d^level/level!` (`Adds`, and per term `Mul` by `d`, `Muls` by `1.0f / i`, `Add`) into
/// the result (the third tensor for `half`, `dst` for `float`), times `exp(floor(x))`; `half`
/// narrowed into `dst`. `PipeBarrier<PIPE_V>` after each step; normal mode and a reset mask
/// afterwards.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 64 * 4);
/// pipe.init_tbuf(&mut tmp, 768);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// x.copy_from_slice(&[1.0f32; 64]);
/// exp_adv::<_, 10, false>(&y, &x, &tmp.get::<u8>(), 64);
/// assert!((y.get_value(0) - std::f32::consts::E).abs() < 1e-6);
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); `count` exceeds `src` or
/// `dst`; a tensor is not in the Unified Buffer; `dst` overlaps `src`, or the scratch overlaps
/// either (the vendor's constraints); the scratch has no split (`oneTmpSize` would be 0); or
/// any instruction's own check fails.
#[track_caller]
pub fn exp_adv<T: ExpAdvElement, const TAYLOR_EXPAND_LEVEL: u8, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    check_common(EXP, &V220_V200, dst, src, count);
    check_tmp_operands(EXP, dst, src, shared_tmp_buffer, count, true);
    if TAYLOR_EXPAND_LEVEL == 0 {
        exp(dst, src, count);
        return;
    }
    let bytes = shared_tmp_buffer.get_size();
    ensure(bytes > 0, EXP, || "sharedTmpBuffer has 0 bytes".into());
    let stack = shared_tmp_buffer.reinterpret_cast::<f32>();
    // UpdateExpParams
    let half = T::DTYPE == DType::F16;
    let align_num = ONE_BLK_SIZE / T::SIZE;
    let tmp_bufs = if half {
        4
    } else if IS_REUSE_SOURCE {
        2
    } else {
        3
    };
    let stack_size = stack.get_size();
    let one = stack_size / tmp_bufs / align_num * align_num;
    ensure(one > 0, EXP, || {
        format!(
            "sharedTmpBuffer has {bytes} bytes: {stack_size} floats over {tmp_bufs} tensors of whole 32-byte blocks of \
             {} leave none (see the host's GetExpMaxMinTmpSize)",
            T::DTYPE
        )
    });
    let second = if !half && IS_REUSE_SOURCE { 0 } else { one };
    let third = second + one;
    let fourth = third + if half { one } else { 0 };
    // GetExpTensorInfo
    let floor_x = if !half && IS_REUSE_SOURCE { src.reinterpret_cast::<f32>() } else { stack.clone() };
    let floor_x_pow = stack.view(second);
    let res = if half { stack.view(third) } else { dst.reinterpret_cast::<f32>() };
    let int_part = stack.view(fourth);
    let (loops, tail) = (count / one, count % one);
    let (unary, binary) = (UnaryRepeatParams::default(), BinaryRepeatParams::default());
    let round = |offset: usize, n: usize| {
        // GetExpInputInTmp
        count_mask::<f32>(n);
        if half {
            let s = src.reinterpret_cast::<f16>().view(offset);
            cast_masked::<f32, f16, false>(&floor_x, &s, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &WIDEN);
        } else {
            let s = src.reinterpret_cast::<f32>().view(offset);
            adds_masked::<f32, false>(&floor_x, &s, 0.0, MASK_PLACEHOLDER, 1, &unary);
        }
        pipe_barrier::<PIPE_V>();
        // GetExpFloorInput
        count_mask::<f32>(n);
        integral(&int_part, &floor_x, &int_part.reinterpret_cast::<i32>(), RoundMode::CastFloor);
        sub_masked::<f32, false>(&floor_x, &floor_x, &int_part, MASK_PLACEHOLDER, 1, &binary);
        pipe_barrier::<PIPE_V>();
        exp_masked::<f32, false>(&int_part, &int_part, MASK_PLACEHOLDER, 1, &unary);
        pipe_barrier::<PIPE_V>();
        // ExpHighPrecisionExec
        let r = if half { res.clone() } else { res.view(offset) };
        count_mask::<f32>(n);
        adds_masked::<f32, false>(&floor_x_pow, &floor_x, 0.0, MASK_PLACEHOLDER, 1, &unary);
        pipe_barrier::<PIPE_V>();
        adds_masked::<f32, false>(&r, &floor_x, 0.0, MASK_PLACEHOLDER, 1, &unary);
        pipe_barrier::<PIPE_V>();
        adds_masked::<f32, false>(&r, &r, 1.0, MASK_PLACEHOLDER, 1, &unary);
        pipe_barrier::<PIPE_V>();
        for i in 2..=TAYLOR_EXPAND_LEVEL {
            mul_masked::<f32, false>(&floor_x_pow, &floor_x, &floor_x_pow, MASK_PLACEHOLDER, 1, &binary);
            pipe_barrier::<PIPE_V>();
            let inv = 1.0f32 / f32::from(i);
            muls_masked::<f32, false>(&floor_x_pow, &floor_x_pow, inv, MASK_PLACEHOLDER, 1, &unary);
            pipe_barrier::<PIPE_V>();
            add_masked::<f32, false>(&r, &r, &floor_x_pow, MASK_PLACEHOLDER, 1, &binary);
            pipe_barrier::<PIPE_V>();
        }
        mul_masked::<f32, false>(&r, &r, &int_part, MASK_PLACEHOLDER, 1, &binary);
        pipe_barrier::<PIPE_V>();
        // GetExpCastedResult
        if half {
            let d = dst.reinterpret_cast::<f16>().view(offset);
            count_mask::<f32>(n);
            cast_masked::<f16, f32, false>(&d, &res, RoundMode::CastNone, MASK_PLACEHOLDER, 1, &NARROW);
            pipe_barrier::<PIPE_V>();
        }
    };
    // ExpND
    set_mask_count();
    for i in 0..loops {
        round(i * one, one);
    }
    if tail > 0 {
        round(loops * one, tail);
    }
    set_mask_norm();
    reset_mask();
}

/// [`exp_adv`] with the stack buffer as scratch (AscendC `Exp<T, taylorExpandLevel,
/// isReuseSource>(dstLocal, srcLocal, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 128 * 2);
/// let (x, y) = (q.get_with_offset::<f16>(128, 0), q.get_with_offset::<f16>(128, 256));
/// x.copy_from_slice(&[f16::ZERO; 128]);
/// exp_adv_stack::<_, 12, false>(&y, &x, 128);
/// assert_eq!(y.get_value(0), f16::ONE);
/// ```
///
/// # Panics
/// As [`exp_adv`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn exp_adv_stack<T: ExpAdvElement, const TAYLOR_EXPAND_LEVEL: u8, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    exp_adv::<T, TAYLOR_EXPAND_LEVEL, IS_REUSE_SOURCE>(dst, src, &stack_tensor(EXP), count);
}

/// The scratch bytes the advanced `Exp` needs: `(max, min)` (AscendC `GetExpMaxMinTmpSize`):
/// `n * max(4 * input_size, 256)` and `n * 256`, `n` the number of float tensors (4 for `half`;
/// for `float` 3, or 2 with `is_reuse_source`).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_exp_max_min_tmp_size(8192, 4, false), (98304, 768));
/// assert_eq!(get_exp_max_min_tmp_size(16, 2, false), (1024, 1024));
/// ```
///
/// # Panics
/// Panics if `type_size` is neither 2 nor 4 (the vendor's host function checks nothing).
#[track_caller]
pub fn get_exp_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    host_checks("GetExpMaxMinTmpSize", 1, type_size);
    let n = if type_size == 4 {
        if is_reuse_source {
            2
        } else {
            3
        }
    } else {
        4
    };
    (n * (input_size * 4).max(256), n * 256)
}

/// The advanced `Exp`'s `(maxLiveNodeCount, extraBuf)` (AscendC `GetExpTmpBufferFactorSize`): 8
/// for `half`, 3 for `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_exp_tmp_buffer_factor_size(2), (8, 0));
/// ```
///
/// # Panics
/// Panics if `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_exp_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    host_checks("GetExpTmpBufferFactorSize", 1, type_size);
    (if type_size == 4 { 3 } else { 8 }, 0)
}

// ---------------------------------------------------------------------------------------
// Erf
// ---------------------------------------------------------------------------------------

/// `dst[i] = erf(src[i])` for `i < count`, with `shared_tmp_buffer` as scratch (AscendC
/// `Erf<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, calCount)`).
///
/// As the vendor's implementation, in `float`: `x` clipped to `[-3.92, 3.92]`, then `P(x) /
/// Q(x)` with the vendor's rational approximation (Horner's scheme in `x²`, the `float`
/// constants of its `double` literals), in counter mode over splits of `calSize` elements
/// (`shared_tmp_buffer.get_size() / size_of::<T>()` over 8 for `half`, 3 for `float`, `/ 32 *
/// 32`): three `float` tensors of `calSize` in the scratch (`x²`, `P`'s terms, `Q`'s terms); for
/// `half` a fourth holds the widened `x`, and the quotient is narrowed with `CAST_ROUND` (ties
/// away from zero) on Ascend910B, `CAST_NONE` on Ascend310P; for `float` `dst` holds `x` and
/// then `Q`'s terms before the quotient. `PipeBarrier<PIPE_V>` after each step; normal mode and
/// a reset mask afterwards. `IS_REUSE_SOURCE` is reserved: `src` is never written.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 64 * 4);
/// pipe.init_tbuf(&mut tmp, 768);
/// let (x, y) = (q.get_with_offset::<f32>(64, 0), q.get_with_offset::<f32>(64, 256));
/// x.copy_from_slice(&[0.5f32; 64]);
/// x.set_value(1, 10.0);
/// erf::<_, false>(&y, &x, &tmp.get::<u8>(), 64);
/// assert!((y.get_value(0) - 0.5204999).abs() < 1e-6);
/// assert!((y.get_value(1) - 1.0).abs() < 1e-6);
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); `count` exceeds `src` or
/// `dst`; a tensor is not in the Unified Buffer; `dst` overlaps `src`, or the scratch overlaps
/// either; the scratch has no split (less than 768 bytes for `float`, 512 for `half`); or any
/// instruction's own check fails.
#[track_caller]
pub fn erf<T: ErfElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    check_common(ERF, &V220_V200, dst, src, count);
    check_tmp_operands(ERF, dst, src, shared_tmp_buffer, count, true);
    let bytes = shared_tmp_buffer.get_size();
    let tmp_elems = bytes / T::SIZE;
    ensure(tmp_elems > 0, ERF, || format!("sharedTmpBuffer has {bytes} bytes, less than one {}", T::DTYPE));
    let half = T::DTYPE == DType::F16;
    let cal_size = tmp_elems / if half { 8 } else { 3 } / ONE_BLK_SIZE * ONE_BLK_SIZE;
    ensure(cal_size > 0, ERF, || {
        format!(
            "sharedTmpBuffer has {bytes} bytes; it must hold at least {} (calSize would be 0; see the host's \
             GetErfMaxMinTmpSize)",
            if half { 8 * 2 * ONE_BLK_SIZE } else { 3 * 4 * ONE_BLK_SIZE }
        )
    });
    let tmp = shared_tmp_buffer.reinterpret_cast::<f32>();
    let (rounds, tail) = (count / cal_size, count % cal_size);
    let compute = |off: usize| {
        if half {
            let (d, s) = (dst.reinterpret_cast::<f16>().view(off), src.reinterpret_cast::<f16>().view(off));
            let x = tmp.view(3 * cal_size);
            steps::widen(&x, &s);
            erf_clip(&x, &x, &tmp);
            erf_p(&tmp, &x, cal_size);
            erf_q(&tmp, &x, cal_size);
            let p = BinaryRepeatParams::default();
            div_masked::<f32, false>(
                &tmp,
                &tmp.view(cal_size),
                &tmp.view(2 * cal_size),
                MASK_PLACEHOLDER,
                1,
                &p,
            );
            pipe_barrier::<PIPE_V>();
            let mode = if get_soc() == Soc::Ascend910B { RoundMode::CastRound } else { RoundMode::CastNone };
            cast_masked::<f16, f32, false>(&d, &tmp, mode, MASK_PLACEHOLDER, 1, &NARROW);
            pipe_barrier::<PIPE_V>();
        } else {
            let (d, s) = (dst.reinterpret_cast::<f32>().view(off), src.reinterpret_cast::<f32>().view(off));
            erf_clip(&d, &s, &tmp);
            erf_p(&tmp, &d, cal_size);
            erf_q(&tmp, &d, cal_size);
            let p = BinaryRepeatParams::default();
            div_masked::<f32, false>(
                &d,
                &tmp.view(cal_size),
                &tmp.view(2 * cal_size),
                MASK_PLACEHOLDER,
                1,
                &p,
            );
            pipe_barrier::<PIPE_V>();
        }
    };
    set_mask_count();
    count_mask::<f16>(cal_size);
    for i in 0..rounds {
        compute(i * cal_size);
    }
    if tail != 0 {
        count_mask::<f16>(tail);
        compute(rounds * cal_size);
    }
    set_mask_norm();
    reset_mask();
}

/// [`erf`] with the stack buffer as scratch (AscendC `Erf<T, isReuseSource>(dstTensor,
/// srcTensor, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 128 * 2);
/// let (x, y) = (q.get_with_offset::<f16>(128, 0), q.get_with_offset::<f16>(128, 256));
/// x.copy_from_slice(&[f16::ZERO; 128]);
/// erf_stack::<_, false>(&y, &x, 128);
/// assert_eq!(y.get_value(0), f16::ZERO);
/// ```
///
/// # Panics
/// As [`erf`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn erf_stack<T: ErfElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    count: usize,
) {
    erf::<T, IS_REUSE_SOURCE>(dst, src, &stack_tensor(ERF), count);
}

/// The vendor's `ErfClip`: `Mins(tmp, src, 3.92)`, `Maxs(dst, tmp, -3.92)`.
#[track_caller]
fn erf_clip(dst: &LocalTensor<f32>, src: &LocalTensor<f32>, tmp: &LocalTensor<f32>) {
    const ERF_BOUNDARY_MAX: f32 = 3.92_f64 as f32;
    let unary = UnaryRepeatParams::default();
    mins_masked::<f32, false>(tmp, src, ERF_BOUNDARY_MAX, MASK_PLACEHOLDER, 1, &unary);
    pipe_barrier::<PIPE_V>();
    maxs_masked::<f32, false>(dst, tmp, -ERF_BOUNDARY_MAX, MASK_PLACEHOLDER, 1, &unary);
    pipe_barrier::<PIPE_V>();
}

/// The vendor's `ErfComputeP`: `x²` into the scratch's first tensor, `P(x)` built in the second
/// and third, ending `x · (…)` in the second.
#[track_caller]
fn erf_p(tmp: &LocalTensor<f32>, x: &LocalTensor<f32>, cal_size: usize) {
    const P: [f32; 6] = [
        0.29639384698e5_f64 as f32,
        0.50637915060e4_f64 as f32,
        0.13938061484e4_f64 as f32,
        0.10162808918e3_f64 as f32,
        0.75517016694e1_f64 as f32,
        0.053443748819_f64 as f32,
    ];
    let (unary, binary) = (UnaryRepeatParams::default(), BinaryRepeatParams::default());
    let (b1, b2, b3) = (tmp.clone(), tmp.view(cal_size), tmp.view(2 * cal_size));
    mul_masked::<f32, false>(&b1, x, x, MASK_PLACEHOLDER, 1, &binary);
    pipe_barrier::<PIPE_V>();
    muls_masked::<f32, false>(&b2, &b1, P[5], MASK_PLACEHOLDER, 1, &unary);
    pipe_barrier::<PIPE_V>();
    for k in (0..5).rev() {
        adds_masked::<f32, false>(&b3, &b2, P[k], MASK_PLACEHOLDER, 1, &unary);
        pipe_barrier::<PIPE_V>();
        let a = if k == 0 { x } else { &b1 };
        mul_masked::<f32, false>(&b2, a, &b3, MASK_PLACEHOLDER, 1, &binary);
        pipe_barrier::<PIPE_V>();
    }
}

/// The vendor's `ErfComputeQ`: `Q(x)` from `x²` (the scratch's first tensor) into the third,
/// with `x`'s tensor holding the products.
#[track_caller]
fn erf_q(tmp: &LocalTensor<f32>, x: &LocalTensor<f32>, cal_size: usize) {
    const Q: [f32; 5] = [
        0.26267224157e5_f64 as f32,
        0.13243365831e5_f64 as f32,
        0.30231248150e4_f64 as f32,
        0.39856963806e3_f64 as f32,
        0.31212858877e2_f64 as f32,
    ];
    let (unary, binary) = (UnaryRepeatParams::default(), BinaryRepeatParams::default());
    let (b1, b3) = (tmp.clone(), tmp.view(2 * cal_size));
    adds_masked::<f32, false>(&b3, &b1, Q[4], MASK_PLACEHOLDER, 1, &unary);
    pipe_barrier::<PIPE_V>();
    for k in (0..4).rev() {
        mul_masked::<f32, false>(x, &b1, &b3, MASK_PLACEHOLDER, 1, &binary);
        pipe_barrier::<PIPE_V>();
        adds_masked::<f32, false>(&b3, x, Q[k], MASK_PLACEHOLDER, 1, &unary);
        pipe_barrier::<PIPE_V>();
    }
}

/// The scratch bytes `Erf` needs: `(max, min)` (AscendC `GetErfMaxMinTmpSize`): `fac *
/// max(input bytes, 256)` and `fac * 256`, `fac` 8 for `half`, 3 for `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_erf_max_min_tmp_size(1024, 2, false), (16384, 2048));
/// assert_eq!(get_erf_max_min_tmp_size(16, 4, false), (768, 768));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0 (the vendor's host check) or `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_erf_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let _ = is_reuse_source;
    host_checks("GetErfMaxMinTmpSize", input_size, type_size);
    fac_sizes(input_size, type_size, 8, 3)
}

/// `Erf`'s `(maxLiveNodeCount, extraBuf)` (AscendC `GetErfTmpBufferFactorSize`): 8 for `half`,
/// 3 for `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_erf_tmp_buffer_factor_size(2), (8, 0));
/// ```
///
/// # Panics
/// Panics if `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_erf_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    host_checks("GetErfTmpBufferFactorSize", 1, type_size);
    (if type_size == 4 { 3 } else { 8 }, 0)
}

// ---------------------------------------------------------------------------------------
// Host tiling
// ---------------------------------------------------------------------------------------

/// `(max, min)` scratch bytes as the vendor's tilings compute them: `fac * max(input bytes,
/// 256)` and `fac * 256`, with `fac` per type.
fn fac_sizes(input_size: usize, type_size: usize, half_fac: usize, float_fac: usize) -> (usize, usize) {
    let fac = if type_size == 4 { float_fac } else { half_fac };
    (fac * (input_size * type_size).max(256), fac * 256)
}

/// The scratch bytes `Floor` needs for `input_size` elements of `type_size` bytes: `(max,
/// min)` (AscendC's host-side `GetFloorMaxMinTmpSize(srcShape, typeSize, isReuseSource,
/// maxValue, minValue)`, with the shape's element count): none for `float`; for `half` twice
/// the input's bytes at most, 512 at least.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_floor_max_min_tmp_size(1024, 2, false), (4096, 512));
/// assert_eq!(get_floor_max_min_tmp_size(1024, 4, false), (0, 0));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0 (the vendor's host check) or `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_floor_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let _ = is_reuse_source;
    host_checks("GetFloorMaxMinTmpSize", input_size, type_size);
    fac_sizes(input_size, type_size, 2, 0)
}

/// `Floor`'s `(maxLiveNodeCount, extraBuf)` (AscendC `GetFloorTmpBufferFactorSize`): the
/// scratch is `maxLiveNodeCount * count * typeSize + extraBuf` bytes — 2 for `half`, 0 for
/// `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_floor_tmp_buffer_factor_size(2), (2, 0));
/// ```
///
/// # Panics
/// Panics if `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_floor_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    host_checks("GetFloorTmpBufferFactorSize", 1, type_size);
    (if type_size == 4 { 0 } else { 2 }, 0)
}

/// The scratch bytes `Ceil` needs: `(max, min)` (AscendC `GetCeilMaxMinTmpSize`): `fac *
/// max(input bytes, 256)` and `fac * 256`, `fac` 2 for `half`, 1 for `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_ceil_max_min_tmp_size(8, 2, false), (512, 512));
/// assert_eq!(get_ceil_max_min_tmp_size(1024, 4, false), (4096, 256));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0 (the vendor's host check) or `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_ceil_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let _ = is_reuse_source;
    host_checks("GetCeilMaxMinTmpSize", input_size, type_size);
    fac_sizes(input_size, type_size, 2, 1)
}

/// `Ceil`'s `(maxLiveNodeCount, extraBuf)` (AscendC `GetCeilTmpBufferFactorSize`): 2 for
/// `half`, 1 for `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_ceil_tmp_buffer_factor_size(4), (1, 0));
/// ```
///
/// # Panics
/// Panics if `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_ceil_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    host_checks("GetCeilTmpBufferFactorSize", 1, type_size);
    (if type_size == 4 { 1 } else { 2 }, 0)
}

/// The scratch bytes `Trunc` needs: `(max, min)` (AscendC `GetTruncMaxMinTmpSize`): as
/// [`get_ceil_max_min_tmp_size`].
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_trunc_max_min_tmp_size(1024, 2, false), (4096, 512));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0 (the vendor's host check) or `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_trunc_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let _ = is_reuse_source;
    host_checks("GetTruncMaxMinTmpSize", input_size, type_size);
    fac_sizes(input_size, type_size, 2, 1)
}

/// `Trunc`'s `(maxLiveNodeCount, extraBuf)` (AscendC `GetTruncTmpBufferFactorSize`): 2 for
/// `half`, 1 for `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_trunc_tmp_buffer_factor_size(2), (2, 0));
/// ```
///
/// # Panics
/// Panics if `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_trunc_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    host_checks("GetTruncTmpBufferFactorSize", 1, type_size);
    (if type_size == 4 { 1 } else { 2 }, 0)
}

/// The scratch bytes `Frac` needs: `(max, min)` (AscendC `GetFracMaxMinTmpSize`): none for
/// `float` (the vendor's value: its kernel still wants one `float` when a buffer is passed;
/// use the stack form then), `4 * max(input bytes, 256)` and 1024 for `half`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_frac_max_min_tmp_size(4096, 4, false), (0, 0));
/// assert_eq!(get_frac_max_min_tmp_size(100, 2, false), (1024, 1024));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0 (the vendor's host check) or `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_frac_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let _ = is_reuse_source;
    host_checks("GetFracMaxMinTmpSize", input_size, type_size);
    fac_sizes(input_size, type_size, 4, 0)
}

/// `Frac`'s `(maxLiveNodeCount, extraBuf)` (AscendC `GetFracTmpBufferFactorSize`): 4 for
/// `half`, 0 for `float`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_frac_tmp_buffer_factor_size(2), (4, 0));
/// ```
///
/// # Panics
/// Panics if `type_size` is neither 2 nor 4.
#[track_caller]
pub fn get_frac_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    host_checks("GetFracTmpBufferFactorSize", 1, type_size);
    (if type_size == 4 { 0 } else { 4 }, 0)
}

/// The scratch bytes `Round` needs on `soc`: `(max, min)` (AscendC `GetRoundMaxMinTmpSize(
/// ascendcPlatform, srcShape, typeSize, isReuseSource, maxValue, minValue)`): on Ascend910B
/// none for `float`, `max(input bytes, 256)` and 256 for `half`; on Ascend310P those for
/// `float`, twice them for `half`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_round_max_min_tmp_size(Soc::Ascend910B, 1024, 4, false), (0, 0));
/// assert_eq!(get_round_max_min_tmp_size(Soc::Ascend310P, 1024, 2, false), (4096, 512));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0 (the vendor's host check), `type_size` is neither 2 nor 4, or
/// `soc` is neither Ascend910B nor Ascend310P (the vendor's function sets nothing there).
#[track_caller]
pub fn get_round_max_min_tmp_size(
    soc: Soc,
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    const API: &str = "GetRoundMaxMinTmpSize";
    let _ = is_reuse_source;
    host_checks(API, input_size, type_size);
    check_round_soc(API, soc);
    if soc == Soc::Ascend910B {
        fac_sizes(input_size, type_size, 1, 0)
    } else {
        fac_sizes(input_size, type_size, 2, 1)
    }
}

/// `Round`'s `(maxLiveNodeCount, extraBuf)` on `soc` (AscendC `GetRoundTmpBufferFactorSize`):
/// Ascend910B 0 for `float`, 1 for `half`; Ascend310P 1 and 2.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_round_tmp_buffer_factor_size(Soc::Ascend310P, 2), (2, 0));
/// ```
///
/// # Panics
/// Panics if `type_size` is neither 2 nor 4, or `soc` is neither Ascend910B nor Ascend310P.
#[track_caller]
pub fn get_round_tmp_buffer_factor_size(soc: Soc, type_size: usize) -> (usize, usize) {
    const API: &str = "GetRoundTmpBufferFactorSize";
    host_checks(API, 1, type_size);
    check_round_soc(API, soc);
    let float = type_size == 4;
    let n = match (soc, float) {
        (Soc::Ascend910B, true) => 0,
        (Soc::Ascend910B, false) | (_, true) => 1,
        _ => 2,
    };
    (n, 0)
}

#[track_caller]
fn check_round_soc(api: &'static str, soc: Soc) {
    ensure(V220_V200.contains(&soc), api, || {
        format!(
            "{api} has no result for {soc} ({}): the vendor's function sets the sizes only for Ascend910B and \
             Ascend310P, where Round has an implementation",
            soc.product_line()
        )
    });
}
