//! `Gather`: collect elements of `src` at per-lane byte offsets (AscendC `Gather`, count and
//! mask forms).
//!
//! Lane `l` of the call reads `src` at byte `srcBaseAddr + srcOffset[l]` and writes it to its
//! `dst` element. In the mask form lane `j` of repeat `r` is `l = r * PAR + j` (the offset
//! tensor is read contiguously, `PAR` offsets per repeat — our reading of the vendor's
//! `vgather`, which takes no offset stride) and its `dst` element is
//! `r * dstRepStride * EPB + j` (blocks contiguous). The `dst` side goes through the shared
//! addressing engine.
//!
//! **In place.** `dst` may share memory with `src` when no lane reads an element an earlier
//! repeat (of `PAR` lanes) wrote: every chip runs a repeat's reads before its writes and the
//! repeats in order, so such a call gives the out-of-place result; any other in-place call is
//! an error (the page forbids sharing memory outright; the implementation makes these calls
//! well-defined).
//!
//! Every used offset is checked before anything is written: it must be a multiple of the
//! element size and the element must lie inside `src` (the hardware only requires it to lie
//! inside the Unified Buffer; reading outside the tensor that was passed is reported here).

use crate::element::{bf16, f16, Element};
use crate::kernel::ctx::get_soc;
use crate::kernel::error::{ensure, fail};
use crate::memory::tensor::LocalTensor;
use crate::soc::Soc;
use crate::vector::engine::{apply, apply_count, check_operand, span_of, Lanes, Operand};
use crate::vector::mask::{resolve, Mask, Plan};

mod sealed {
    pub trait Sealed {}
}

/// Element types `Gather` accepts: `int16_t`, `uint16_t`, `half`, `int32_t`, `uint32_t`,
/// `float` on Ascend910B, Ascend310P and Ascend310B, and `bfloat16_t` on Ascend910B; Ascend910
/// has no `Gather` (run-time errors naming the chip). 8-bit and 64-bit types do not compile:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(d: &LocalTensor<u8>, o: &LocalTensor<u32>) { gather(d, d, o, 0, 32); }
/// ```
pub trait GatherElement: Element + sealed::Sealed {
    /// Whether `Gather` on this type exists on `soc`.
    fn gather_supported(soc: Soc) -> bool;
}

macro_rules! gather_types {
    ($($t:ty => |$soc:ident| $ok:expr),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl GatherElement for $t {
            fn gather_supported($soc: Soc) -> bool {
                $ok
            }
        }
    )*};
}
gather_types! {
    u16 => |soc| soc != Soc::Ascend910,
    i16 => |soc| soc != Soc::Ascend910,
    f16 => |soc| soc != Soc::Ascend910,
    u32 => |soc| soc != Soc::Ascend910,
    i32 => |soc| soc != Soc::Ascend910,
    f32 => |soc| soc != Soc::Ascend910,
    bf16 => |soc| soc == Soc::Ascend910B,
}

const API: &str = "Gather";

/// The engine kernel: each `dst` lane reads its `src` element through the offset of its lane.
struct GatherKernel<T> {
    src: *const T,
    offsets: *const u32,
    base: usize,
}

impl<T: Element> Lanes<T, 0> for GatherKernel<T> {
    #[inline(always)]
    unsafe fn run(&mut self, lane: usize, dst: *mut T, _src: [*const T; 0], n: usize) {
        for i in 0..n {
            // SAFETY: every enabled lane's offset was checked (`check_offsets`): the offset
            // tensor holds lane `lane + i`, and `(base + offset) / SIZE` is an element of src
            // (or of its snapshot, of the same length), which does not overlap dst: in place the
            // kernel reads the snapshot; the engine guarantees `dst` is valid for `n` writes.
            unsafe {
                let off = self.offsets.add(lane + i).read() as usize;
                dst.add(i).write(self.src.add((self.base + off) / T::SIZE).read());
            }
        }
    }
}

#[track_caller]
fn check_common<T: GatherElement>(src: &LocalTensor<T>, offsets: &LocalTensor<u32>, base: u32) {
    let soc = get_soc();
    ensure(T::gather_supported(soc), API, || {
        format!("T = {} is not supported by Gather on {soc} ({})", T::DTYPE, soc.product_line())
    });
    src.check_vector_operand(API, "src");
    offsets.check_vector_operand(API, "srcOffset");
    let len = src.get_length();
    ensure((base as usize) < len && base as usize % T::SIZE == 0, API, || {
        format!("srcBaseAddr = {base} must be a multiple of {} below src's {len} bytes", T::SIZE)
    });
}

/// Checks the offsets of the lanes `lanes` yields: present in `offsets`, element-aligned, and
/// inside `src`.
#[track_caller]
fn check_offsets<T: Element>(
    src: &LocalTensor<T>,
    offsets: &LocalTensor<u32>,
    base: u32,
    lanes: impl Iterator<Item = usize>,
) {
    let off = offsets.to_vec();
    let len = src.get_length();
    for l in lanes {
        let Some(&o) = off.get(l) else {
            fail(API, format!("lane {l} needs srcOffset[{l}] but srcOffset holds {} offsets", off.len()))
        };
        let at = base as usize + o as usize;
        if o as usize % T::SIZE != 0 || at + T::SIZE > len {
            fail(
                API,
                format!(
                    "srcOffset[{l}] = {o}: srcBaseAddr + offset = {at} must be a multiple of {} inside src's {len} bytes",
                    T::SIZE
                ),
            );
        }
    }
}

/// Fails if `dst`'s bytes `[d0, d1)` meet the offsets.
#[track_caller]
fn check_disjoint(d: (usize, usize), others: [(&str, (usize, usize)); 1]) {
    for (name, (s0, s1)) in others {
        ensure(d.1 <= s0 || s1 <= d.0, API, || {
            format!("dst (bytes {:#x}..{:#x}) overlaps {name} (bytes {s0:#x}..{s1:#x})", d.0, d.1)
        });
    }
}

/// `dst` sharing memory with `src` (in place, AscendC `Gather(x, x, …)`; a published RMS-norm
/// operator does this). The page says source and destination may not share memory
/// (约束说明: 不支持源操作数与目的操作数使用同一块内存地址), but the implementation makes some
/// such calls well-defined: every chip runs the lanes repeat by repeat (`dav_c220` and
/// `dav_m200`: one `vgather` of `repeatTime` repeats, the count form adding a tail call; `dav_m300`:
/// a loop that gathers a repeat into a register and then stores it), and a repeat reads all its
/// lanes before it writes any. So a lane reads the original `src` unless an *earlier* repeat
/// wrote the element it reads. A call where no lane reads an element an earlier repeat wrote
/// gives the out-of-place result on every chip, and is accepted; any other is an error naming
/// the lane, so a kernel never depends on the order of the chip's steps.
///
/// `lanes()` yields `(global lane, repeat, dst element)` for every enabled lane. Returns whether
/// `dst` meets `src` (then the kernel reads a snapshot of `src`). Runs once per call, and walks
/// the lanes only when the operands share memory.
#[track_caller]
fn check_in_place<T: Element, I: Iterator<Item = (usize, usize, usize)>>(
    dst: &LocalTensor<T>,
    dst_bytes: (usize, usize),
    src: &LocalTensor<T>,
    offsets: &LocalTensor<u32>,
    base: u32,
    lanes: impl Fn() -> I,
) -> bool {
    let (s0, s1) = src.byte_range(src.get_size());
    if dst_bytes.1 <= s0 || s1 <= dst_bytes.0 {
        return false;
    }
    // The first repeat that writes each element of src (both operands are 32-byte aligned
    // tensors of T, so their elements line up).
    let mut writer = vec![usize::MAX; src.get_size()];
    let d0 = dst.get_phy_addr();
    for (_, r, e) in lanes() {
        let at = d0 + e * T::SIZE;
        if (s0..s1).contains(&at) {
            let w = &mut writer[(at - s0) / T::SIZE];
            *w = (*w).min(r);
        }
    }
    let off = offsets.to_vec();
    for (l, r, _) in lanes() {
        // The offsets were checked (`check_offsets`): the element lies inside src.
        let k = (base as usize + off[l] as usize) / T::SIZE;
        if writer[k] < r {
            fail(
                API,
                format!(
                    "dst and src share memory, and lane {l} (repeat {r}) reads src element {k}, which repeat {} \
                     already wrote: the page does not allow dst and src to share memory, and the chip's result \
                     would depend on its order of repeats; in place is accepted only when no lane reads an \
                     element an earlier repeat wrote",
                    writer[k]
                ),
            );
        }
    }
    true
}

/// The kernel's source: `src` itself, or (in place) a snapshot of it taken before any write,
/// which is what every lane reads on the chip when [`check_in_place`] accepts the call.
fn source<T: Element>(src: &LocalTensor<T>, in_place: bool, snap: &mut Vec<T>) -> *const T {
    if in_place {
        *snap = src.to_vec();
        snap.as_ptr()
    } else {
        src.ptr() as *const T
    }
}

/// Gathers `count` elements: `dst[i] = src[(src_base_addr + src_offset[i]) / sizeof(T)]`
/// (AscendC `Gather(dst, src, srcOffset, srcBaseAddr, count)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut c) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 256);
/// pipe.init_tbuf(&mut b, 256);
/// pipe.init_tbuf(&mut c, 512);
/// let (src, dst, off) = (a.get::<f16>(), b.get::<f16>(), c.get::<u32>());
/// src.copy_from_slice(&(0..128).map(|i| f16::from_f32(i as f32)).collect::<Vec<_>>());
/// off.copy_from_slice(&(0..128).map(|i| 254 - 2 * i).collect::<Vec<u32>>());
/// gather(&dst, &src, &off, 0, 128);
/// assert_eq!(dst.get_value(0).to_f32(), 127.0);
/// assert_eq!(dst.get_value(127).to_f32(), 0.0);
/// ```
///
/// # Panics
/// Panics if the chip lacks `T`; an operand is not a 32-byte aligned UB tensor; `dst` or
/// `src_offset` holds fewer than `count` elements; `src_base_addr` is not element-aligned
/// inside `src`; an offset is not element-aligned or points outside `src`; `dst` overlaps the
/// offsets; or `dst` shares memory with `src` and a lane reads an element an earlier repeat
/// wrote (in place is accepted otherwise, with the out-of-place result: see the module docs).
#[track_caller]
pub fn gather<T: GatherElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    src_offset: &LocalTensor<u32>,
    src_base_addr: u32,
    count: u32,
) {
    check_common(src, src_offset, src_base_addr);
    let count = count as usize;
    check_offsets(src, src_offset, src_base_addr, 0..count);
    check_disjoint(dst.byte_range(count), [("srcOffset", src_offset.byte_range(count))]);
    let lanes = || (0..count).map(|l| (l, l / T::PAR, l));
    let in_place = check_in_place(dst, dst.byte_range(count), src, src_offset, src_base_addr, lanes);
    if count > 0 {
        // The table and the offsets are read outside the engine's operands (src as a whole).
        crate::observe::events::on_vector(
            API,
            &[span_of(src, usize::MAX), span_of(src_offset, count * 4)],
            &[],
        );
    }
    let mut snap = Vec::new();
    let mut k = GatherKernel {
        src: source(src, in_place, &mut snap),
        offsets: src_offset.ptr() as *const u32,
        base: src_base_addr as usize,
    };
    apply_count(API, count, (dst, "dst"), [], &mut k);
}

/// Gathers the lanes a mask enables, for `repeat_time` repeats (AscendC `Gather(dst, src,
/// srcOffset, srcBaseAddr, mask, repeatTime, dstRepStride)`, continuous and bit masks).
///
/// See the [module documentation](self) for the addressing. The call sets the mask (as the
/// vendor's does); in counter mode the mask is the element count. `repeat_time = 0` does
/// nothing.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut c) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 256);
/// pipe.init_tbuf(&mut b, 512);
/// pipe.init_tbuf(&mut c, 512);
/// let (src, dst, off) = (a.get::<f32>(), b.get::<f32>(), c.get::<u32>());
/// src.copy_from_slice(&(0..64).map(|i| i as f32).collect::<Vec<_>>());
/// off.copy_from_slice(&(0..128).map(|i| (i % 64) * 4).collect::<Vec<u32>>());
/// dst.copy_from_slice(&[-1.0; 128]);
/// gather_masked(&dst, &src, &off, 0, 16u64, 2, 8);
/// assert_eq!(dst.get_value(15), 15.0);
/// assert_eq!(dst.get_value(16), -1.0);
/// assert_eq!(dst.get_value(64), 0.0);
/// ```
///
/// # Panics
/// As [`gather`], with the mask checks of every masked instruction and `dst`'s bounds over
/// every enabled lane.
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn gather_masked<T: GatherElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    src_offset: &LocalTensor<u32>,
    src_base_addr: u32,
    mask: impl Into<Mask>,
    repeat_time: u8,
    dst_rep_stride: u16,
) {
    check_common(src, src_offset, src_base_addr);
    let Some(plan) = resolve::<T, true>(API, mask.into(), usize::from(repeat_time)) else {
        return;
    };
    check_offsets(src, src_offset, src_base_addr, plan_lanes::<T>(&plan));
    let d = Operand::new(dst, 1usize, dst_rep_stride, "dst");
    let ext = check_operand(API, &d, &plan);
    let used = plan_lanes::<T>(&plan).last().map_or(0, |l| l + 1);
    check_disjoint(dst.byte_range(ext), [("srcOffset", src_offset.byte_range(used))]);
    let step = usize::from(dst_rep_stride) * T::EPB;
    let lanes = || plan_lanes::<T>(&plan).map(move |l| (l, l / T::PAR, (l / T::PAR) * step + l % T::PAR));
    let in_place = check_in_place(dst, dst.byte_range(ext), src, src_offset, src_base_addr, lanes);
    crate::observe::events::on_vector(API, &[span_of(src, usize::MAX), span_of(src_offset, used * 4)], &[]);
    let mut snap = Vec::new();
    let mut k = GatherKernel {
        src: source(src, in_place, &mut snap),
        offsets: src_offset.ptr() as *const u32,
        base: src_base_addr as usize,
    };
    apply(API, &plan, &d, [], &mut k);
}

/// The global lane numbers `r * PAR + j` a plan enables, in order.
fn plan_lanes<T: Element>(plan: &Plan) -> impl Iterator<Item = usize> + '_ {
    (0..plan.repeats).flat_map(move |r| {
        let m = plan.mask_of(r);
        (0..T::PAR).filter(move |&j| m[j / 64] >> (j % 64) & 1 == 1).map(move |j| r * T::PAR + j)
    })
}
