//! `Duplicate`: fill the lanes of a tensor with a scalar (seed 001).
//!
//! Two forms, as in AscendC: the count form [`duplicate`] (elements `0..count`) and the
//! high-dimensional form [`duplicate_masked`] (a continuous or bit mask, `repeat_times`
//! repeats, a block stride and a repeat stride; SPEC §4). It is an instruction with no
//! source operand: the addressing engine walks `dst` alone.

use crate::element::{bf16, f16, Element};
use crate::kernel::ctx::get_soc;
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::soc::Soc;
use crate::vector::engine::{apply, apply_count, Lanes, Operand};
use crate::vector::mask::{resolve, Mask};

mod sealed {
    pub trait Sealed {}
}

/// Element types `Duplicate` accepts: `uint16_t`, `int16_t`, `half`, `uint32_t`, `int32_t`,
/// `float` on every chip, and `bfloat16_t` on Ascend910B only (seed 001; a run-time error
/// naming the chip elsewhere).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<u8>) { duplicate(t, 1u8, 32); }
/// ```
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<u64>) { duplicate(t, 1u64, 4); }
/// ```
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<i8>) { duplicate(t, 1i8, 32); }
/// ```
pub trait DuplicateElement: Element + sealed::Sealed {
    /// Whether `Duplicate` on this type exists on `soc`.
    fn duplicate_supported(soc: Soc) -> bool;

    /// The bulk lane kernel: `dst[i] = value` for `i in 0..n`.
    ///
    /// # Safety
    /// `dst` is valid for `n` writes.
    #[doc(hidden)]
    #[inline(always)]
    unsafe fn duplicate_run(dst: *mut Self, value: Self, n: usize) {
        // SAFETY: the caller guarantees `dst` is valid for `n` writes and, being UB memory,
        // it is not referenced by any other live slice.
        unsafe { core::slice::from_raw_parts_mut(dst, n) }.fill(value);
    }
}

macro_rules! dup_types {
    ($($t:ty => |$soc:ident| $ok:expr),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl DuplicateElement for $t {
            fn duplicate_supported($soc: Soc) -> bool {
                $ok
            }
        }
    )*};
}
dup_types! {
    u16 => |_soc| true,
    i16 => |_soc| true,
    f16 => |_soc| true,
    u32 => |_soc| true,
    i32 => |_soc| true,
    f32 => |_soc| true,
    bf16 => |soc| soc == Soc::Ascend910B,
}

const API: &str = "Duplicate";

/// The engine kernel: no sources, one scalar.
struct DupKernel<T>(T);

impl<T: DuplicateElement> Lanes<T, 0> for DupKernel<T> {
    #[inline(always)]
    unsafe fn run(&mut self, _lane: usize, dst: *mut T, _src: [*const T; 0], n: usize) {
        // SAFETY: the engine guarantees `dst` is valid for `n` writes.
        unsafe { T::duplicate_run(dst, self.0, n) }
    }
}

#[track_caller]
fn check_soc<T: DuplicateElement>() {
    let soc = get_soc();
    ensure(T::duplicate_supported(soc), API, || {
        format!("T = {} is not supported by Duplicate on {soc} ({})", T::DTYPE, soc.product_line())
    });
}

/// Writes `scalar` to elements `0..count` of `dst` (AscendC `Duplicate(dst, scalar, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut buf = TBuf::<VecOut>::new();
/// pipe.init_tbuf(&mut buf, 512);
/// let t = buf.get::<f16>();
/// duplicate(&t, f16::from_f32(18.0), 256);
/// assert!(t.to_vec().iter().all(|&v| v == f16::from_f32(18.0)));
/// ```
///
/// # Panics
/// Panics if the chip does not support `T` (`bfloat16_t` outside Ascend910B), if `dst` is
/// not a VECIN/VECOUT/VECCALC tensor, is not 32-byte aligned, or holds fewer than `count`
/// elements.
#[track_caller]
pub fn duplicate<T: DuplicateElement>(dst: &LocalTensor<T>, scalar: T, count: usize) {
    check_soc::<T>();
    duplicate_as(API, dst, scalar, count);
}

/// [`duplicate`] on behalf of `api` (a primitive built on it), which its checks and the
/// sanitizer name.
#[track_caller]
pub(crate) fn duplicate_as<T: DuplicateElement>(
    api: &'static str,
    dst: &LocalTensor<T>,
    scalar: T,
    count: usize,
) {
    apply_count(api, count, (dst, "dst"), [], &mut DupKernel(scalar));
}

/// Writes `scalar` to the lanes a mask enables, for `repeat_times` repeats (AscendC
/// `Duplicate<T, isSetMask>(dst, scalar, mask, repeatTimes, dstBlockStride,
/// dstRepeatStride)`, continuous and bit-mask forms).
///
/// Lane `j` of repeat `r` is element `(r * dst_repeat_stride + (j / EPB) * dst_block_stride)
/// * EPB + j % EPB`, strides in 32-byte blocks. `mask` is a `u64` (lanes `0..mask`) or a
/// `[u64; 2]` (bit mode); in counter mode a continuous mask is the total element count and
/// `repeat_times` is ignored; with `IS_SET_MASK = false` the mask register is used and
/// `mask` is ignored (the page asks for [`MASK_PLACEHOLDER`](crate::vector::mask::MASK_PLACEHOLDER)). Disabled
/// lanes keep their old values; `repeat_times = 0` does nothing.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut buf = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut buf, 512);
/// let t = buf.get::<f16>();
/// t.copy_from_slice(&[f16::ZERO; 256]);
/// // One repeat of 128 lanes, block stride 2: 8 runs of 16 with 16-element gaps.
/// duplicate_masked::<f16, true>(&t, f16::from_f32(18.0), 128, 1, 2, 0);
/// assert_eq!(t.get_value(15), f16::from_f32(18.0));
/// assert_eq!(t.get_value(16), f16::ZERO);
/// assert_eq!(t.get_value(32), f16::from_f32(18.0));
/// ```
///
/// # Panics
/// Panics if the chip does not support `T`; if the mask is out of range for `T`, is
/// `MASK_PLACEHOLDER` with `IS_SET_MASK = true` (`IS_SET_MASK = false` ignores it);
/// if `dst` is not a VECIN/VECOUT/VECCALC tensor or not 32-byte aligned; or if any touched
/// element lies outside it.
#[track_caller]
pub fn duplicate_masked<T: DuplicateElement, const IS_SET_MASK: bool>(
    dst: &LocalTensor<T>,
    scalar: T,
    mask: impl Into<Mask>,
    repeat_times: u8,
    dst_block_stride: u16,
    dst_repeat_stride: u8,
) {
    check_soc::<T>();
    let Some(plan) = resolve::<T, IS_SET_MASK>(API, mask.into(), repeat_times as usize) else {
        return;
    };
    let d = Operand::new(dst, dst_block_stride, dst_repeat_stride, "dst");
    apply(API, &plan, &d, [], &mut DupKernel(scalar));
}

// bool is an Ascend 950 type for `Duplicate` (see `Bool8`).
static_assertions::assert_not_impl_any!(crate::element::Bool8: DuplicateElement);
