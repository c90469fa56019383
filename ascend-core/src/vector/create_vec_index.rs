//! `CreateVecIndex`: an arithmetic sequence `firstValue, firstValue + 1, …` (AscendC
//! `CreateVecIndex`, count and mask forms), computed the way the vendor's implementation does
//! it, so `half` values beyond 2048 round exactly as on the chip.
//!
//! The vendor writes the first block by scalar code (`firstValue + e`, one rounding), every
//! further block of the first repeat as the previous block `+ EPB`, and every further repeat as
//! the previous repeat `+ PAR` (each addition rounded to `T`; integers wrap). In the bit-mask
//! form the whole first repeat is scalar code (`firstValue + j`). The lanes go through the
//! shared engine.

use crate::element::{f16, Element};
use crate::kernel::ctx::get_soc;
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::soc::Soc;
use crate::vector::engine::{apply, apply_count, Lanes, Operand};
use crate::vector::mask::{resolve, Mask};

mod sealed {
    pub trait Sealed {}
}

/// Element types `CreateVecIndex` accepts: `int16_t`, `half`, `int32_t`, `float` (not on
/// Ascend910: a run-time error naming the chip). Others do not compile:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<u16>) { create_vec_index(t, 0u16, 16); }
/// ```
pub trait VecIndexElement: Element + sealed::Sealed {}
impl sealed::Sealed for i16 {}
impl sealed::Sealed for f16 {}
impl sealed::Sealed for i32 {}
impl sealed::Sealed for f32 {}
impl VecIndexElement for i16 {}
impl VecIndexElement for f16 {}
impl VecIndexElement for i32 {}
impl VecIndexElement for f32 {}

const API: &str = "CreateVecIndex";

/// `first + k` as the vendor's scalar code computes it: in `i64` for integers (then wrapped),
/// in `float` for floating types (then rounded once).
fn scalar<T: Element>(first: T, k: usize) -> T {
    if T::IS_FLOAT {
        T::from_f64((first.to_f64() as f32 + k as f32) as f64)
    } else {
        let v = first.to_f64() as i64 + k as i64;
        let b = v.to_le_bytes();
        bytemuck::pod_read_unaligned(&b[..T::SIZE])
    }
}

/// The engine kernel: keeps the current repeat's `PAR` values and steps them by `PAR`.
struct Seq<T> {
    repeat: usize,
    cur: [T; 128],
}

impl<T: Element> Lanes<T, 0> for Seq<T> {
    unsafe fn run(&mut self, lane: usize, dst: *mut T, _src: [*const T; 0], n: usize) {
        let step = T::from_f64(T::PAR as f64);
        for i in 0..n {
            let (r, j) = ((lane + i) / T::PAR, (lane + i) % T::PAR);
            while self.repeat < r {
                for v in &mut self.cur[..T::PAR] {
                    *v = T::add(*v, step);
                }
                self.repeat += 1;
            }
            // SAFETY: the engine guarantees `dst` is valid for `n` writes.
            unsafe { dst.add(i).write(self.cur[j]) };
        }
    }
}

/// The first repeat's values: by blocks (`bits = false`) or all scalar (`bits = true`).
fn first_repeat<T: Element>(first: T, bits: bool) -> Seq<T> {
    let mut cur = [T::ZERO; 128];
    let epb = T::from_f64(T::EPB as f64);
    for j in 0..T::PAR {
        cur[j] = if bits || j < T::EPB { scalar(first, j) } else { T::add(cur[j - T::EPB], epb) };
    }
    Seq { repeat: 0, cur }
}

#[track_caller]
fn check_soc() {
    let soc = get_soc();
    ensure(soc != Soc::Ascend910, API, || format!("not supported on {soc} ({})", soc.product_line()));
}

/// Writes `first_value + i` to elements `0..count` of `dst` (AscendC `CreateVecIndex(dst,
/// firstValue, count)`), in the vendor's order of additions.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut b = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut b, 512);
/// let t = b.get::<i32>();
/// create_vec_index(&t, 5i32, 100);
/// assert_eq!((t.get_value(0), t.get_value(99)), (5, 104));
/// ```
///
/// # Panics
/// Panics on Ascend910, or if `dst` is not a 32-byte aligned UB tensor of `count` elements.
#[track_caller]
pub fn create_vec_index<T: VecIndexElement>(dst: &LocalTensor<T>, first_value: T, count: u32) {
    check_soc();
    apply_count(API, count as usize, (dst, "dst"), [], &mut first_repeat(first_value, false));
}

/// Writes the sequence to the lanes a mask enables (AscendC `CreateVecIndex(dst, firstValue,
/// mask, repeatTime, dstBlkStride, dstRepStride)`, continuous and bit masks): lane `j` of
/// repeat `r` gets `first_value + r * PAR + j` in the vendor's order of additions (the first
/// repeat by blocks for a continuous mask, by scalar code for a bit mask).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut b = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut b, 1024);
/// let t = b.get::<f16>();
/// create_vec_index_masked::<f16, true>(&t, f16::from_f32(0.0), 128u64, 2, 1, 8);
/// assert_eq!(t.get_value(200).to_f32(), 200.0);
/// ```
///
/// # Panics
/// Panics on Ascend910, for a mask out of range, or if a lane lies outside `dst`.
#[track_caller]
pub fn create_vec_index_masked<T: VecIndexElement, const IS_SET_MASK: bool>(
    dst: &LocalTensor<T>,
    first_value: T,
    mask: impl Into<Mask>,
    repeat_time: u8,
    dst_blk_stride: u16,
    dst_rep_stride: u8,
) {
    check_soc();
    let mask = mask.into();
    let Some(plan) = resolve::<T, IS_SET_MASK>(API, mask, usize::from(repeat_time)) else {
        return;
    };
    let d = Operand::new(dst, dst_blk_stride, dst_rep_stride, "dst");
    apply(API, &plan, &d, [], &mut first_repeat(first_value, matches!(mask, Mask::Bits(_))));
}
