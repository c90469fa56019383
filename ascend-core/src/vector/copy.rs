//! `Copy`: the vector pipe's masked, high-dimensional UB→UB copy (AscendC `Copy(dst, src,
//! mask, repeatTime, CopyRepeatParams)`, "Copy（UBToUB掩码式高维数据搬运）").
//!
//! The bits of each enabled lane are copied unchanged — no conversion, no overflow mode, NaN
//! payloads and infinities intact — and disabled lanes keep `dst`'s old values. Normal mode
//! goes through the shared addressing engine like every vector instruction. Counter mode is
//! `Copy`'s own: the vendor documents that the mask register then counts the elements *of
//! each repeat* and `repeatTime` is effective (the other instructions count the whole call),
//! so a repeat spans `ceil(count / EPB)` blocks, more than 8 when the count exceeds one
//! repeat's lanes. The doc is followed on both chips, although Ascend310B's implementation
//! (a software loop) walks a total count instead (the fidelity guide, `docs/fidelity.md`).
//!
//! The count form `Copy(dst, src, count)` exists on Ascend 950 only, a chip not modelled, so
//! it is not provided.

use crate::element::{bf16, f16, Element};
use crate::kernel::error::check;
use crate::memory::tensor::LocalTensor;
use crate::soc::Soc;
use crate::vector::engine::{apply, apply_long, Lanes, Operand};
use crate::vector::lane::{capability, prologue};
use crate::vector::mask::{resolve_per_repeat, Mask, PerRepeat};

const API: &str = "Copy";

/// The largest `dstRepeatSize`/`srcRepeatSize` (12 bits; the vendor's range and its
/// implementation's check, `UINT12_MAX`).
const MAX_REPEAT_SIZE: u16 = 4095;

/// Strides of [`copy_masked`] (AscendC `CopyRepeatParams`), in AscendC's field order and units
/// of 32-byte blocks; the default is `{1, 1, 8, 8}` (contiguous).
///
/// ```
/// use ascend_core::prelude::*;
/// let p: CopyRepeatParams = [1, 1, 8, 8].into();
/// assert_eq!(p, CopyRepeatParams::default());
/// assert_eq!(CopyRepeatParams::new(1, 8, 1, 8).src_stride, 8);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CopyRepeatParams {
    /// Blocks between consecutive blocks of one repeat of `dst` (`dstStride`, `[0, 65535]`).
    pub dst_stride: u16,
    /// Blocks between consecutive blocks of one repeat of `src` (`srcStride`, `[0, 65535]`).
    pub src_stride: u16,
    /// Blocks between the starts of consecutive repeats of `dst` (`dstRepeatSize`, `[0, 4095]`).
    pub dst_repeat_size: u16,
    /// Blocks between the starts of consecutive repeats of `src` (`srcRepeatSize`, `[0, 4095]`).
    pub src_repeat_size: u16,
}

impl Default for CopyRepeatParams {
    fn default() -> Self {
        CopyRepeatParams::new(1, 1, 8, 8)
    }
}

impl CopyRepeatParams {
    /// `{dstStride, srcStride, dstRepeatSize, srcRepeatSize}`.
    pub const fn new(dst_stride: u16, src_stride: u16, dst_repeat_size: u16, src_repeat_size: u16) -> Self {
        CopyRepeatParams { dst_stride, src_stride, dst_repeat_size, src_repeat_size }
    }
}

impl From<[u16; 4]> for CopyRepeatParams {
    fn from(a: [u16; 4]) -> Self {
        CopyRepeatParams::new(a[0], a[1], a[2], a[3])
    }
}

capability!(
    "Copy",
    CopyElement,
    copy_supported,
    Element,
    [
        i16 => |soc| copy_chip(soc),
        u16 => |soc| copy_chip(soc),
        f16 => |soc| copy_chip(soc),
        bf16 => |soc| copy_chip(soc),
        i32 => |soc| copy_chip(soc),
        u32 => |soc| copy_chip(soc),
        f32 => |soc| copy_chip(soc),
    ],
    [u8, i8, u64, i64],
    "copy_masked::<_, true>(t, t, 8u64, 1, &CopyRepeatParams::default());"
);

/// The chips with `Copy`: Atlas A2/A3 (Ascend910B) and Atlas 200I/500 A2 (Ascend310B); the
/// vendor lists Atlas training (Ascend910) and Atlas inference (Ascend310P) as unsupported.
const fn copy_chip(soc: Soc) -> bool {
    matches!(soc, Soc::Ascend910B | Soc::Ascend310B)
}

/// The engine kernel: the lanes' bits, unchanged.
struct CopyKernel;

impl<T: Element> Lanes<T, 1> for CopyKernel {
    #[inline(always)]
    unsafe fn run(&mut self, _lane: usize, dst: *mut T, [src]: [*const T; 1], n: usize) {
        // SAFETY: the engine guarantees `dst` is valid for `n` writes and `src` for `n` reads,
        // and that they are the same address or do not overlap; `copy` allows both.
        unsafe { core::ptr::copy(src, dst, n) }
    }
}

/// Copies the lanes a mask enables from `src` to `dst`, bit for bit, for `repeat_time`
/// repeats with the strides of `repeat_params` (AscendC `Copy<T, isSetMask>(dst, src, mask,
/// repeatTime, repeatParams)`, continuous and bit-mask forms; the vector pipe's UB→UB copy).
///
/// Lane `j` of repeat `r` is element `(r * repeatSize + (j / EPB) * stride) * EPB + j % EPB` of
/// each operand (`EPB` elements per 32-byte block), with that operand's `stride` and
/// `repeatSize`. `mask` is a `u64` (lanes `0..mask`, `1..=PAR`) or a `[u64; 2]` (bit mode; for
/// 32-bit types `mask[1]` must be 0); with `IS_SET_MASK = false` the mask register is used and
/// `mask` is ignored (the page asks for [`MASK_PLACEHOLDER`](crate::vector::mask::MASK_PLACEHOLDER)). The values are
/// not converted: NaN payloads, infinities and `-0` are copied as they are, whatever the
/// overflow mode. Disabled lanes keep their old values; `repeat_time = 0` does nothing.
///
/// **Counter mode differs from the other instructions** (as the vendor documents for `Copy`):
/// after [`set_mask_count`](crate::vector::mask::set_mask_count) the mask — the argument, or
/// the register with `IS_SET_MASK = false` — is the number of elements *of each repeat*, and
/// `repeat_time` repeats run. A repeat of `n` elements spans `ceil(n / EPB)` blocks, `stride`
/// blocks apart, so it may cover more than 8 blocks.
///
/// `dst` may be `src` with the same strides (a complete overlap); any other overlap, within a
/// repeat or across repeats, is an error.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b) = (TBuf::<VecIn>::new(), TBuf::<VecOut>::new());
/// pipe.init_tbuf(&mut a, 18 * 64 * 4);
/// pipe.init_tbuf(&mut b, 18 * 8 * 4);
/// let (src, dst) = (a.get::<i32>(), b.get::<i32>());
/// src.copy_from_slice(&(0..18 * 64).collect::<Vec<i32>>());
/// // The first 8 columns of an [18, 64] matrix: 18 repeats of 8 lanes, one row apart in src.
/// copy_masked::<i32, true>(&dst, &src, 8u64, 18, &CopyRepeatParams::new(1, 1, 1, 8));
/// assert_eq!(dst.to_vec()[8..16], (64..72).collect::<Vec<i32>>());
/// // The same in counter mode: one repeat of 144 elements whose src blocks are a row apart.
/// dst.copy_from_slice(&[0; 144]);
/// set_mask_count();
/// set_vector_mask::<i32>(144u64);
/// copy_masked::<i32, false>(&dst, &src, MASK_PLACEHOLDER, 1, &CopyRepeatParams::new(1, 8, 8, 8));
/// set_mask_norm();
/// reset_mask();
/// assert_eq!(dst.get_value(143), 17 * 64 + 7);
/// ```
///
/// # Panics
/// Panics if the chip has no `Copy` for `T` (Ascend910 and Ascend310P have none; see
/// [`CopyElement`]); if `dst_repeat_size` or `src_repeat_size` exceeds 4095; if the mask is out
/// of range for `T`, is `MASK_PLACEHOLDER` with `IS_SET_MASK = true` (`IS_SET_MASK = false` ignores it; in
/// counter mode: a count of 0 or beyond 2^32 − 1); if an operand is not
/// a VECIN/VECOUT/VECCALC tensor or not 32-byte aligned; if an element a repeat touches lies
/// outside its tensor; or if `dst` and `src` overlap other than completely.
#[track_caller]
pub fn copy_masked<T: CopyElement, const IS_SET_MASK: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    mask: impl Into<Mask>,
    repeat_time: u8,
    repeat_params: &CopyRepeatParams,
) {
    prologue::<T>(API, T::copy_supported);
    let p = repeat_params;
    for (name, v) in [("dstRepeatSize", p.dst_repeat_size), ("srcRepeatSize", p.src_repeat_size)] {
        check!(
            v <= MAX_REPEAT_SIZE,
            API,
            "{name} = {v} is out of range [0, {MAX_REPEAT_SIZE}] (blocks of 32 bytes)"
        );
    }
    let d = Operand::new(dst, p.dst_stride, p.dst_repeat_size, "dst");
    let s = Operand::new(src, p.src_stride, p.src_repeat_size, "src");
    match resolve_per_repeat::<T, IS_SET_MASK>(API, mask.into(), usize::from(repeat_time)) {
        None => {}
        Some(PerRepeat::Masked(plan)) => apply(API, &plan, &d, [&s], &mut CopyKernel),
        Some(PerRepeat::Counted { repeats, count }) => {
            apply_long(API, repeats, count, &d, [&s], &mut CopyKernel)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::ctx::{run_on_core, CoreConfig};
    use crate::soc::Soc;
    use crate::sync::pipe::{TBuf, TPipe};

    /// `apply_long` with a kernel that is not idempotent in place: with a block stride of 0,
    /// every block of a repeat reads the repeat's values from before any of its writes.
    #[test]
    fn long_repeats_read_each_repeat_before_writing_it_in_place() {
        struct AddOne;
        impl Lanes<i32, 1> for AddOne {
            unsafe fn run(&mut self, _lane: usize, dst: *mut i32, [src]: [*const i32; 1], n: usize) {
                for i in 0..n {
                    // SAFETY: the engine's contract: dst valid for n writes, src for n reads.
                    unsafe { dst.add(i).write(src.add(i).read() + 1) };
                }
            }
        }
        run_on_core(CoreConfig::single(Soc::Ascend910B), || {
            let mut pipe = TPipe::new();
            let mut b = TBuf::<crate::position::VecCalc>::new();
            pipe.init_tbuf(&mut b, 1024);
            let t = b.get_with_len::<i32>(16);
            t.copy_from_slice(&(0..16).collect::<Vec<i32>>());
            let op = Operand::new(&t, 0u16, 1u16, "dst");
            let same = Operand::new(&t, 0u16, 1u16, "src");
            // Two repeats of 20 lanes (blocks of 8, 8, 4), each onto one block.
            apply_long(API, 2, 20, &op, [&same], &mut AddOne);
            let want: Vec<i32> = (0..16).map(|i| i + 1).collect();
            assert_eq!(t.to_vec(), want);
        });
    }
}
