//! `Gatherb` (gather whole 32-byte blocks by byte offset) and `Scatter` (the inverse of
//! `Gather`: `src` elements to per-lane byte offsets of `dst`), the ISASI forms of the chips
//! that have them. The strided side of each goes through the shared addressing engine.
//!
//! `Gatherb`: repeat `r`, block `b` of `dst` (`(r * dstRepStride + b * dstBlkStride) * EPB`,
//! a block stride of 0 treated as 1) receives the 32 bytes of `src` at byte
//! `offset[8r + b]`, which must be a multiple of 32 inside `src`.
//!
//! `Scatter`: lane `l` of `src` goes to `dst` byte `dstBaseAddr + dstOffset[l]`; in the mask
//! form lane `j` of repeat `r` is `src` element `r * srcRepStride * EPB + j` (blocks
//! contiguous) and `l = r * PAR + j` (the offset tensor read contiguously, as for `Gather`).
//! Duplicate offsets are unpredictable on the chip; here the later lane wins. Every used offset
//! is checked (element-aligned, inside `dst`) before anything is written.

use crate::element::{bf16, f16, Element, BLOCKS_PER_REPEAT};
use crate::kernel::ctx::get_soc;
use crate::kernel::error::{ensure, fail};
use crate::memory::tensor::LocalTensor;
use crate::soc::Soc;
use crate::vector::engine::{apply, apply_count, check_operand, span_of, Lanes, Operand};
use crate::vector::mask::{prefix_bits, reset_mask, resolve, Mask, Plan};

mod sealed {
    pub trait Sealed {}
}

/// Strides of [`gatherb`] (AscendC `GatherRepeatParams`; the reserved fields are not modelled).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GatherRepeatParams {
    /// Blocks between consecutive blocks of one repeat of `dst` (0 is treated as 1).
    pub dst_blk_stride: u8,
    /// Blocks between the starts of consecutive repeats of `dst`.
    pub dst_rep_stride: u16,
}

impl Default for GatherRepeatParams {
    fn default() -> Self {
        GatherRepeatParams { dst_blk_stride: 1, dst_rep_stride: 8 }
    }
}

impl GatherRepeatParams {
    /// `{dstBlkStride, dstRepStride}`.
    pub const fn new(dst_blk_stride: u8, dst_rep_stride: u16) -> Self {
        GatherRepeatParams { dst_blk_stride, dst_rep_stride }
    }
}

/// Element types of `Gatherb` and `Scatter`, with the chips that have them: `Gatherb` on
/// Ascend910B (`uint16_t`, `uint32_t`) and Ascend310B (16- and 32-bit types); `Scatter` on
/// Ascend310P (`uint16_t`, `half`, `uint32_t`, `float`) and Ascend310B (16- and 32-bit types
/// but `bfloat16_t`). 8- and 64-bit types are not modelled and do not compile:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<u8>, o: &LocalTensor<u32>) { scatter(t, t, o, 0, 32); }
/// ```
pub trait DiscreteElement: Element + sealed::Sealed {
    /// Whether `Gatherb` on this type exists on `soc`.
    fn gatherb_supported(soc: Soc) -> bool;
    /// Whether `Scatter` on this type exists on `soc`.
    fn scatter_supported(soc: Soc) -> bool;
}

macro_rules! discrete_types {
    ($($t:ty => $g910b:expr, $s310p:expr, $s310b:expr);* $(;)?) => {$(
        impl sealed::Sealed for $t {}
        impl DiscreteElement for $t {
            fn gatherb_supported(soc: Soc) -> bool {
                soc == Soc::Ascend310B || (soc == Soc::Ascend910B && $g910b)
            }
            fn scatter_supported(soc: Soc) -> bool {
                (soc == Soc::Ascend310P && $s310p) || (soc == Soc::Ascend310B && $s310b)
            }
        }
    )*};
}
discrete_types! {
    u16 => true, true, true;
    i16 => false, false, true;
    f16 => false, true, true;
    bf16 => false, false, false;
    u32 => true, true, true;
    i32 => false, false, true;
    f32 => false, true, true;
}

/// `Gatherb`'s engine kernel: lane `l` copies element `l % EPB` of the `src` block at
/// `offsets[l / EPB]`.
struct BlockGather<T> {
    src: *const T,
    offsets: *const u32,
}

impl<T: Element> Lanes<T, 0> for BlockGather<T> {
    #[inline(always)]
    unsafe fn run(&mut self, lane: usize, dst: *mut T, _src: [*const T; 0], n: usize) {
        for i in 0..n {
            let l = lane + i;
            // SAFETY: every offset of the call was checked to be a whole block inside src
            // (`gatherb`), src does not overlap dst, and dst is valid for `n` writes.
            unsafe {
                let base = self.offsets.add(l / T::EPB).read() as usize / T::SIZE;
                dst.add(i).write(self.src.add(base + l % T::EPB).read());
            }
        }
    }
}

/// Gathers 32-byte blocks of `src` by byte offset, 8 per repeat (AscendC `Gatherb(dst, src,
/// offset, repeatTime, repeatParams)`). `repeat_time = 0` gathers nothing. On Ascend910B it
/// leaves a full mask register, as the vendor's implementation resets it first.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut c) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 256);
/// pipe.init_tbuf(&mut b, 256);
/// pipe.init_tbuf(&mut c, 32);
/// let (src, dst, off) = (a.get::<u16>(), b.get::<u16>(), c.get::<u32>());
/// src.copy_from_slice(&(0..128).collect::<Vec<u16>>());
/// off.copy_from_slice(&[224, 192, 160, 128, 96, 64, 32, 0]);
/// gatherb(&dst, &src, &off, 1, &GatherRepeatParams::default());
/// assert_eq!(dst.get_value(0), 112);
/// assert_eq!(dst.get_value(127), 15);
/// ```
///
/// # Panics
/// Panics if the chip lacks `T`; an operand is not a 32-byte aligned UB tensor; `offset`
/// holds fewer than `8 * repeat_time` offsets; an offset is not a multiple of 32 or its block
/// is not inside `src`; a `dst` block lies outside `dst`; or `dst` overlaps `src` or the
/// offsets.
#[track_caller]
pub fn gatherb<T: DiscreteElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    offset: &LocalTensor<u32>,
    repeat_time: u8,
    repeat_params: &GatherRepeatParams,
) {
    gatherb_as("Gatherb", ["dst", "src", "offset"], dst, src, offset, repeat_time, repeat_params);
}

/// [`gatherb`] on behalf of `api` (a primitive built on it), which its checks and the
/// sanitizer name; `names` are the `[dst, src, offset]` operands as `api` calls them.
#[track_caller]
pub(crate) fn gatherb_as<T: DiscreteElement>(
    api: &'static str,
    names: [&'static str; 3],
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    offset: &LocalTensor<u32>,
    repeat_time: u8,
    repeat_params: &GatherRepeatParams,
) {
    let [dst_name, src_name, offset_name] = names;
    let soc = get_soc();
    ensure(T::gatherb_supported(soc), api, || {
        format!("T = {} is not supported by Gatherb on {soc} ({})", T::DTYPE, soc.product_line())
    });
    src.check_vector_operand(api, src_name);
    offset.check_vector_operand(api, offset_name);
    // The vendor's Ascend910B implementation (`dav_c220/kernel_operator_vec_gather_impl.h`)
    // starts with `ResetMask()`: a full mask register, the mode unchanged (Ascend310B's uses
    // predicate registers and leaves the mask alone).
    if soc == Soc::Ascend910B {
        reset_mask();
    }
    if repeat_time == 0 {
        return;
    }
    let blocks = usize::from(repeat_time) * BLOCKS_PER_REPEAT;
    ensure(offset.get_size() >= blocks, api, || {
        format!(
            "{offset_name} holds {} offsets but repeatTime = {repeat_time} needs {blocks}",
            offset.get_size()
        )
    });
    let len = src.get_length();
    for (q, o) in offset.to_vec()[..blocks].iter().enumerate() {
        ensure(o % 32 == 0 && *o as usize + 32 <= len, api, || {
            format!(
                "{offset_name}[{q}] = {o} must be a multiple of 32 with its block inside {src_name}'s {len} bytes"
            )
        });
    }
    let full = prefix_bits(T::PAR);
    let plan = Plan { repeats: repeat_time.into(), bits: full, last: full };
    let d = Operand::new(dst, repeat_params.dst_blk_stride.max(1), repeat_params.dst_rep_stride, dst_name);
    let ext = check_operand(api, &d, &plan);
    disjoint(
        api,
        (dst_name, dst.byte_range(ext)),
        &[(src_name, src.byte_range(src.get_size())), (offset_name, offset.byte_range(blocks))],
    );
    crate::observe::events::on_vector(api, &[span_of(src, usize::MAX), span_of(offset, blocks * 4)], &[]);
    apply(
        api,
        &plan,
        &d,
        [],
        &mut BlockGather { src: src.ptr() as *const T, offsets: offset.ptr() as *const u32 },
    );
}

#[track_caller]
fn disjoint(api: &'static str, (dst_name, d): (&str, (usize, usize)), others: &[(&str, (usize, usize))]) {
    for &(name, (s0, s1)) in others {
        ensure(d.1 <= s0 || s1 <= d.0, api, || {
            format!("{dst_name} (bytes {:#x}..{:#x}) overlaps {name} (bytes {s0:#x}..{s1:#x})", d.0, d.1)
        });
    }
}

/// `Scatter`'s engine kernel: the walked operand is `src`; lane `l` goes to the `dst` element
/// its offset names.
struct ScatterKernel<T> {
    dst: *mut T,
    offsets: *const u32,
    base: usize,
}

impl<T: Element> Lanes<T, 0> for ScatterKernel<T> {
    const WRITES_DST: bool = false;

    #[inline(always)]
    unsafe fn run(&mut self, lane: usize, src: *mut T, _none: [*const T; 0], n: usize) {
        for i in 0..n {
            // SAFETY: the engine hands out `n` in-bounds elements of src (only read); every used
            // offset was checked to name an element of dst, which does not overlap src or the
            // offsets.
            unsafe {
                let off = self.offsets.add(lane + i).read() as usize;
                self.dst.add((self.base + off) / T::SIZE).write(src.add(i).read());
            }
        }
    }
}

const SCATTER: &str = "Scatter";

#[track_caller]
fn scatter_checks<T: DiscreteElement>(
    dst: &LocalTensor<T>,
    offsets: &LocalTensor<u32>,
    base: u32,
    lanes: impl Iterator<Item = usize>,
) {
    let soc = get_soc();
    ensure(T::scatter_supported(soc), SCATTER, || {
        format!("T = {} is not supported by Scatter on {soc} ({})", T::DTYPE, soc.product_line())
    });
    dst.check_vector_operand(SCATTER, "dst");
    offsets.check_vector_operand(SCATTER, "dstOffset");
    let (off, len) = (offsets.to_vec(), dst.get_length());
    let mut used = 0;
    for l in lanes {
        let Some(&o) = off.get(l) else {
            fail(SCATTER, format!("lane {l} needs dstOffset[{l}] but dstOffset holds {} offsets", off.len()))
        };
        let at = base as usize + o as usize;
        ensure(at % T::SIZE == 0 && at + T::SIZE <= len, SCATTER, || {
            format!(
                "dstOffset[{l}] = {o}: dstBaseAddr + offset = {at} must be a multiple of {} inside dst's {len} bytes",
                T::SIZE
            )
        });
        used = l + 1;
    }
    disjoint(SCATTER, ("dst", dst.byte_range(dst.get_size())), &[("dstOffset", offsets.byte_range(used))]);
    if used > 0 {
        // dst is written at the offsets' elements: recorded as a whole.
        crate::observe::events::on_vector(
            SCATTER,
            &[span_of(offsets, used * 4)],
            &[span_of(dst, usize::MAX)],
        );
    }
}

/// Scatters `count` elements: `dst[(dst_base_addr + dst_offset[i]) / sizeof(T)] = src[i]`
/// (AscendC `Scatter(dst, src, dstOffset, dstBaseAddr, count)`; Ascend310P and Ascend310B).
///
/// ```
/// use ascend_core::prelude::*;
/// run_on_core(CoreConfig::single(Soc::Ascend310P), || {
///     let mut pipe = TPipe::new();
///     let (mut a, mut b, mut c) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
///     pipe.init_tbuf(&mut a, 64);
///     pipe.init_tbuf(&mut b, 64);
///     pipe.init_tbuf(&mut c, 64);
///     let (src, dst, off) = (a.get::<f32>(), b.get::<f32>(), c.get::<u32>());
///     src.copy_from_slice(&(0..16).map(|i| i as f32).collect::<Vec<_>>());
///     off.copy_from_slice(&(0..16).map(|i| 60 - 4 * i).collect::<Vec<u32>>());
///     scatter(&dst, &src, &off, 0, 16);
///     assert_eq!((dst.get_value(0), dst.get_value(15)), (15.0, 0.0));
/// });
/// ```
///
/// # Panics
/// Panics if the chip lacks `T`; an operand is not a 32-byte aligned UB tensor; `src` or
/// `dst_offset` holds fewer than `count` elements; an offset is not element-aligned or points
/// outside `dst`; or `dst` overlaps `src` or the offsets.
#[track_caller]
pub fn scatter<T: DiscreteElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    dst_offset: &LocalTensor<u32>,
    dst_base_addr: u32,
    count: u32,
) {
    let count = count as usize;
    scatter_checks(dst, dst_offset, dst_base_addr, 0..count);
    disjoint(SCATTER, ("dst", dst.byte_range(dst.get_size())), &[("src", src.byte_range(count))]);
    let mut k = ScatterKernel {
        dst: dst.ptr(),
        offsets: dst_offset.ptr() as *const u32,
        base: dst_base_addr as usize,
    };
    // The walked operand is src (the engine's count form checks its size); nothing is written
    // through it.
    apply_count(SCATTER, count, (src, "src"), [], &mut k);
}

/// Scatters the lanes a mask enables, for `repeat_time` repeats (AscendC `Scatter(dst, src,
/// dstOffset, dstBaseAddr, mask, repeatTime, srcRepStride)`, continuous and bit masks).
///
/// ```
/// use ascend_core::prelude::*;
/// run_on_core(CoreConfig::single(Soc::Ascend310B), || {
///     let mut pipe = TPipe::new();
///     let (mut a, mut b, mut c) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
///     pipe.init_tbuf(&mut a, 256);
///     pipe.init_tbuf(&mut b, 256);
///     pipe.init_tbuf(&mut c, 512);
///     let (src, dst, off) = (a.get::<f16>(), b.get::<f16>(), c.get::<u32>());
///     src.copy_from_slice(&(0..128).map(|i| f16::from_f32(i as f32)).collect::<Vec<_>>());
///     off.copy_from_slice(&(0..128).map(|i| 254 - 2 * i).collect::<Vec<u32>>());
///     scatter_masked(&dst, &src, &off, 0, 128u64, 1, 8);
///     assert_eq!(dst.get_value(0).to_f32(), 127.0);
/// });
/// ```
///
/// # Panics
/// As [`scatter`], with the mask checks of every masked instruction and `src`'s bounds over
/// every enabled lane.
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn scatter_masked<T: DiscreteElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    dst_offset: &LocalTensor<u32>,
    dst_base_addr: u32,
    mask: impl Into<Mask>,
    repeat_time: u8,
    src_rep_stride: u8,
) {
    let soc = get_soc();
    ensure(T::scatter_supported(soc), SCATTER, || {
        format!("T = {} is not supported by Scatter on {soc} ({})", T::DTYPE, soc.product_line())
    });
    let Some(plan) = resolve::<T, true>(SCATTER, mask.into(), usize::from(repeat_time)) else {
        return;
    };
    let lanes = (0..plan.repeats).flat_map(|r| {
        let m = plan.mask_of(r);
        (0..T::PAR).filter(move |&j| m[j / 64] >> (j % 64) & 1 == 1).map(move |j| r * T::PAR + j)
    });
    scatter_checks(dst, dst_offset, dst_base_addr, lanes);
    let s = Operand::new(src, 1usize, src_rep_stride, "src");
    let ext = check_operand(SCATTER, &s, &plan);
    disjoint(SCATTER, ("dst", dst.byte_range(dst.get_size())), &[("src", src.byte_range(ext))]);
    let mut k = ScatterKernel {
        dst: dst.ptr(),
        offsets: dst_offset.ptr() as *const u32,
        base: dst_base_addr as usize,
    };
    apply(SCATTER, &plan, &s, [], &mut k);
}
