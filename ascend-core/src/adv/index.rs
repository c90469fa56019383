//! The advanced API's index function `Arange` (the vendor's `index/arithprogression`,
//! `arithprogression_common_impl.h`, whose kernel function is also named `ArithProgression`):
//! an arithmetic progression written with scalar `SetValue`s and vector `Adds`, with its host
//! tiling helper.

use crate::element::f16;
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::sync::{
    event::{Event, HardEvent, PIPE_V},
    flags::{fetch_free_event, pipe_barrier, set_flag_event, wait_flag_event},
};
use crate::vector::mask::{reset_mask, set_vector_mask, Mask, MASK_PLACEHOLDER};
use crate::vector::params::UnaryRepeatParams;
use crate::vector::scalar::{adds_masked, AddsElement};

use super::{check_documented_chip, ONE_BLK_SIZE, SAME, V220_V200};

const ARANGE: &str = "Arange";

/// Elements in one repeat (the vendor's `DEFAULT_BLK_NUM` blocks).
const DEFAULT_BLK_NUM: usize = 8;

mod sealed {
    pub trait Sealed {}
}
impl sealed::Sealed for f16 {}
impl sealed::Sealed for f32 {}
impl sealed::Sealed for i16 {}
impl sealed::Sealed for i32 {}

/// Element types of [`arange`]: `half`, `float`, `int16_t` and `int32_t` (the vendor's page for
/// Ascend910B and Ascend310P), each with the vendor's scalar arithmetic.
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<u8>) {
///     arange(t, 0u8, 1u8, 8)
/// }
/// ```
pub trait ArangeElement: AddsElement + sealed::Sealed {
    /// `GetBaseArithProgression`'s element `i`: `first + diff * i` in `T` (wrapping for the
    /// integers), for `half` in `float` rounded to `half` by `SetValue`.
    fn base(first: Self, diff: Self, i: usize) -> Self;
    /// `GetArithProgressionStep(diff, n)`: `diff * n` in `int64_t` truncated to `T` for the
    /// integers, in `float` rounded to `T` otherwise.
    fn step(diff: Self, n: usize) -> Self;
}
impl ArangeElement for f16 {
    fn base(first: f16, diff: f16, i: usize) -> f16 {
        f16::from_f32(first.to_f32() + diff.to_f32() * i as f32)
    }
    fn step(diff: f16, n: usize) -> f16 {
        f16::from_f32(diff.to_f32() * n as f32)
    }
}
impl ArangeElement for f32 {
    fn base(first: f32, diff: f32, i: usize) -> f32 {
        first + diff * i as f32
    }
    fn step(diff: f32, n: usize) -> f32 {
        diff * n as f32
    }
}
impl ArangeElement for i16 {
    fn base(first: i16, diff: i16, i: usize) -> i16 {
        (i32::from(first).wrapping_add(i32::from(diff).wrapping_mul(i as i32))) as i16
    }
    fn step(diff: i16, n: usize) -> i16 {
        (i64::from(diff) * n as i64) as i16
    }
}
impl ArangeElement for i32 {
    fn base(first: i32, diff: i32, i: usize) -> i32 {
        first.wrapping_add(diff.wrapping_mul(i as i32))
    }
    fn step(diff: i32, n: usize) -> i32 {
        (i64::from(diff) * n as i64) as i32
    }
}

/// The temporary buffer's `(max, min)` bytes for [`arange`] (AscendC
/// `GetArangeMaxMinTmpSize(maxValue, minValue)`): `(0, 0)`, it needs none.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_arange_max_min_tmp_size(), (0, 0));
/// ```
///
/// # Panics
/// Never.
pub fn get_arange_max_min_tmp_size() -> (usize, usize) {
    (0, 0)
}

/// The deprecated name of [`get_arange_max_min_tmp_size`] (AscendC
/// `GetArithProgressionMaxMinTmpSize(maxValue, minValue)`).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_arith_progression_max_min_tmp_size(), (0, 0));
/// ```
///
/// # Panics
/// Never.
pub fn get_arith_progression_max_min_tmp_size() -> (usize, usize) {
    get_arange_max_min_tmp_size()
}

/// `SetFlag` and `WaitFlag` of event `E` with an id from `FetchEventID`.
#[track_caller]
pub(crate) fn sync<E: Event>() {
    let e = E::EVENT;
    let id = fetch_free_event("TPipe::FetchEventID", e);
    set_flag_event(e, id);
    wait_flag_event(e, id);
}

/// `dst[i] = first_value + i * diff_value` for `i < count` (AscendC `Arange<T>(dst,
/// firstValue, diffValue, count)`), as the vendor's `ArithProgressionImpl`:
/// - `count` up to one block (`32 / sizeof(T)` elements): `SetFlag`/`WaitFlag<V_S>`, the
///   elements by scalar `SetValue`s ([`ArangeElement::base`]), `SetFlag`/`WaitFlag<S_V>`;
/// - otherwise the first block by `SetValue`s, `SetFlag`/`WaitFlag<S_V>`, then block after
///   block by `Adds` of `diff * (32 / sizeof(T))` (a one-block mask, all strides 1) up to
///   `count` rounded up to a block, or, for `count` above one repeat, up to 8 blocks, then
///   repeat after repeat by `Adds` of `diff * (256 / sizeof(T))` (full mask) and a last `Adds`
///   under a mask of the tail rounded up to a block; each `Adds` after a
///   `PipeBarrier<PIPE_V>`. The mask register is left as the last `Adds` had it (full after
///   `ResetMask` when a long `count` has no tail).
///
/// So the vector part writes `count` rounded up to a block, and values after the first block
/// are sums of steps, not `first + diff * i`.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 4 * 200);
/// let dst = q.get_with_len::<f32>(200);
/// arange(&dst, 1.0f32, 0.5, 200);
/// assert_eq!((dst.get_value(0), dst.get_value(9), dst.get_value(199)), (1.0, 5.5, 100.5));
/// ```
///
/// # Panics
/// Panics if the chip is not one the vendor's page lists (Ascend910B, Ascend310P); `dst` is
/// not in the Unified Buffer; `count` is not positive or above `dst`'s size; `diff_value` is
/// negative; or any instruction's own check fails (the last `Adds` writes `count` rounded up
/// to a block, which must lie in `dst`).
#[track_caller]
pub fn arange<T: ArangeElement>(dst: &LocalTensor<T>, first_value: T, diff_value: T, count: i32) {
    check_documented_chip(ARANGE, &V220_V200, "Ascend910B and Ascend310P");
    let pos = dst.get_position();
    ensure(pos.is_ub(), ARANGE, || format!("dst is at position {pos}; it must be VECIN, VECOUT or VECCALC"));
    ensure(count > 0, ARANGE, || format!("count = {count}; it must be greater than 0"));
    let diff = diff_value.to_f64() as f32;
    ensure(diff >= 0.0, ARANGE, || format!("diffValue = {diff}; it must be greater than or equal to 0"));
    let count = count as usize;
    ensure(count <= dst.get_size(), ARANGE, || {
        format!("count = {count} exceeds dst's {} {} elements", dst.get_size(), T::DTYPE)
    });
    let block = ONE_BLK_SIZE / T::SIZE;
    let rep = block * DEFAULT_BLK_NUM;
    let stride1 = UnaryRepeatParams::new(1, 1, 1, 1);
    let block_mask = Mask::Bits([(1u64 << block) - 1, 0]);
    if count <= block {
        sync::<HardEvent::V_S>();
        for i in 0..count {
            dst.set_value(i, T::base(first_value, diff_value, i));
        }
        sync::<HardEvent::S_V>();
        return;
    }
    for i in 0..block {
        dst.set_value(i, T::base(first_value, diff_value, i));
    }
    sync::<HardEvent::S_V>();
    let block_step = T::step(diff_value, block);
    let blocks = if count > rep { DEFAULT_BLK_NUM } else { count.div_ceil(block) };
    set_vector_mask::<T>(block_mask);
    pipe_barrier::<PIPE_V>();
    for i in 0..blocks - 1 {
        adds_masked::<T, false>(
            &dst.view((i + 1) * block),
            &dst.view(i * block),
            block_step,
            MASK_PLACEHOLDER,
            1,
            &stride1,
        );
        pipe_barrier::<PIPE_V>();
    }
    if count <= rep {
        return;
    }
    let (repeat, tail) = (count / rep, count % rep);
    let rep_step = T::step(diff_value, rep);
    reset_mask();
    pipe_barrier::<PIPE_V>();
    for i in 0..repeat - 1 {
        adds_masked::<T, false>(
            &dst.view((i + 1) * rep),
            &dst.view(i * rep),
            rep_step,
            MASK_PLACEHOLDER,
            1,
            &SAME,
        );
        pipe_barrier::<PIPE_V>();
    }
    if tail > 0 {
        set_vector_mask::<T>(Mask::Count(tail.div_ceil(block) as u64 * block as u64));
        pipe_barrier::<PIPE_V>();
        adds_masked::<T, false>(
            &dst.view(repeat * rep),
            &dst.view((repeat - 1) * rep),
            rep_step,
            MASK_PLACEHOLDER,
            1,
            &SAME,
        );
        pipe_barrier::<PIPE_V>();
    }
}

/// The kernel-side name of [`arange`] (AscendC `ArithProgression<T>(dstLocal, firstValue,
/// diffValue, count)`, which `Arange` calls).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 64);
/// let dst = q.get_with_len::<i32>(16);
/// arith_progression(&dst, -3, 2, 12);
/// assert_eq!((dst.get_value(0), dst.get_value(11)), (-3, 19));
/// ```
///
/// # Panics
/// As [`arange`].
#[track_caller]
pub fn arith_progression<T: ArangeElement>(
    dst_local: &LocalTensor<T>,
    first_value: T,
    diff_value: T,
    count: i32,
) {
    arange(dst_local, first_value, diff_value, count);
}
