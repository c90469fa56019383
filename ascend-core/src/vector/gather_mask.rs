//! `GatherMask`: keep the elements of `src0` whose pattern bit is 1, packed from `dst[0]`
//! (AscendC `GatherMask`, the fixed patterns 1–7 and a user bit tensor, normal and counter
//! mode), returning the number kept (`rsvdCnt`).
//!
//! **Which lanes.** Normal mode (`reduce_mode = false`): `repeatTimes` repeats of `PAR` lanes
//! (`mask` is ignored). Counter mode (`reduce_mode = true`): on Ascend910B and Ascend310B every
//! repeat takes lanes `0..mask` (the vendor's "configuration 1": "每次repeat操作mask个元素，总的
//! 数据计算量为repeatTimes * mask个元素", each repeat handles `mask` elements, `repeatTimes ×
//! mask` in all), so a `mask` above `PAR` makes one repeat span more than 8 blocks; on
//! Ascend310P `mask` is the total element count and `repeatTimes` is ignored ("configuration
//! 2"). Lane `j` of repeat `r` is `src0` element `(r * src0RepeatStride + (j / EPB) *
//! src0BlockStride) * EPB + j % EPB` for every `j`, `mask > PAR` included: the docs define the
//! block stride as the stride between the blocks of one repeat (their examples use 1), and
//! repeats advance by `src0RepeatStride` blocks whatever `mask` is (`vreducev2` takes the
//! strides as given). The shared engine walks them: `apply` a repeat of at most `PAR` lanes,
//! `apply_long` a longer one.
//!
//! **Which bits.** A fixed pattern repeats every repeat: 1 even lanes, 2 odd lanes, 3/4/5/6
//! lane 0/1/2/3 of every 4, 7 every lane (not on Ascend310P). A user pattern tensor gives lane
//! `j` of repeat `r` bit `j % 8` of byte `r * src1RepeatStride * 32 + j / 8` (bits consumed
//! continuously inside a repeat, past the first `PAR` when `mask > PAR`).
//!
//! **In place.** The docs send GatherMask to the general overlap rule ("单次迭代内：源操作数与目的
//! 操作数必须100%完全重叠，不支持部分重叠" — within one repeat the operands must overlap 100%,
//! no partial overlap; "不支持前序迭代的目的操作数与后序迭代的源操作数重叠" — an earlier
//! repeat's destination may not overlap a later repeat's source), and their example reuses
//! `src0` as `dst` ("目的地址与源地址复用"). So `dst` may start at `src0`'s address, provided the
//! elements kept by repeats `0..r` end at or below repeat `r`'s first block for every `r`; the
//! result is then exactly the out-of-place one (a repeat is read before its output is written)
//! and the elements past `rsvdCnt` keep `src0`'s data (the docs: undefined). Any other overlap
//! of `dst` with the `src0` lanes is rejected.
//!
//! The call leaves the core in normal mask mode with `mask` in the low word of the mask
//! register, as the vendor's implementation does.

use std::rc::Rc;

use crate::element::Element;
use crate::kernel::ctx::{get_soc, with_core, MaskMode};
use crate::kernel::error::{ensure, fail};
use crate::memory::tensor::LocalTensor;
use crate::soc::Soc;
use crate::vector::engine::{apply, apply_long, check_operand, long_extent, span_of, Lanes, Operand};
use crate::vector::gather::GatherElement;
use crate::vector::mask::{prefix_bits, Plan};

const API: &str = "GatherMask";

/// Strides and repeats of [`gather_mask`] (AscendC `GatherMaskParams`, in its field order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GatherMaskParams {
    /// Blocks between consecutive blocks of one repeat of `src0`.
    pub src0_block_stride: u8,
    /// Repeats.
    pub repeat_times: u16,
    /// Blocks between the starts of consecutive repeats of `src0`.
    pub src0_repeat_stride: u16,
    /// Blocks between the starts of consecutive repeats of a user pattern.
    pub src1_repeat_stride: u8,
}

impl Default for GatherMaskParams {
    fn default() -> Self {
        GatherMaskParams {
            src0_block_stride: 1,
            repeat_times: 0,
            src0_repeat_stride: 8,
            src1_repeat_stride: 8,
        }
    }
}

impl GatherMaskParams {
    /// `{src0BlockStride, repeatTimes, src0RepeatStride, src1RepeatStride}`.
    pub const fn new(
        src0_block_stride: u8,
        repeat_times: u16,
        src0_repeat_stride: u16,
        src1_repeat_stride: u8,
    ) -> Self {
        GatherMaskParams { src0_block_stride, repeat_times, src0_repeat_stride, src1_repeat_stride }
    }
}

/// The gather mask: a fixed pattern or a user bit tensor.
#[derive(Clone, Copy, Debug)]
pub enum GatherPattern<'a, U: Element> {
    /// A fixed pattern `1..=7`.
    Fixed(u8),
    /// A user pattern tensor (`uint16_t` for 16-bit data, `uint32_t` for 32-bit data).
    Tensor(&'a LocalTensor<U>),
}

/// Collects the kept elements, repeat by repeat, for both walks.
struct Keep<'a, T> {
    /// The kept elements, at most `cap` of them.
    out: Vec<T>,
    cap: usize,
    /// How many are kept (may exceed `cap`, which is then an error).
    total: usize,
    /// The gather-mask bit of lane `j` of repeat `r`.
    bit: &'a dyn Fn(usize, usize) -> bool,
    /// Lanes per repeat, as the engine numbers them (`PAR`, or the counter-mode `mask` of a
    /// repeat longer than `PAR`).
    per_repeat: usize,
    /// In place: `src0`'s repeat stride in elements (each repeat's first element).
    in_place: Option<usize>,
    /// The repeat being walked.
    cur: usize,
    /// In place: the first repeat whose lanes the output of the earlier ones reaches, and how
    /// many elements those kept.
    clash: Option<(usize, usize)>,
}

impl<T: Element> Keep<'_, T> {
    /// Starts repeat `r` (repeats come in increasing order).
    #[inline]
    fn start_repeat(&mut self, r: usize) {
        self.cur = r;
        if let Some(rep_elems) = self.in_place {
            // Every lane of repeat `r` lies at or above element `r * rep_elems`, a block start,
            // so the earlier output (elements `0..total`) overlaps it exactly when it passes it.
            if self.clash.is_none() && self.total > r * rep_elems {
                self.clash = Some((r, self.total));
            }
        }
    }

    #[inline]
    fn keep(&mut self, v: T) {
        if self.out.len() < self.cap {
            self.out.push(v);
        }
        self.total += 1;
    }
}

/// The engine kernel: appends every lane whose bit is set.
impl<T: Element> Lanes<T, 0> for Keep<'_, T> {
    const WRITES_DST: bool = false;

    unsafe fn run(&mut self, lane: usize, p: *mut T, _src: [*const T; 0], n: usize) {
        for i in 0..n {
            let (r, j) = ((lane + i) / self.per_repeat, (lane + i) % self.per_repeat);
            if r != self.cur {
                self.start_repeat(r);
            }
            if (self.bit)(r, j) {
                // SAFETY: the engine hands out `n` in-bounds elements of src0 at `p` (only read).
                self.keep(unsafe { p.add(i).read() });
            }
        }
    }
}

/// Keeps the elements of `src0` whose gather-mask bit is 1, packed from `dst[0]`, and returns
/// how many (AscendC `GatherMask(dst, src0, src1Pattern, reduceMode, mask, gatherMaskParams,
/// rsvdCnt)`, both pattern forms). See the [module documentation](self).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 512);
/// pipe.init_tbuf(&mut b, 512);
/// let (src, dst) = (a.get::<f32>(), b.get::<f32>());
/// src.copy_from_slice(&(0..128).map(|i| i as f32).collect::<Vec<_>>());
/// // Pattern 2: the odd lanes of 2 repeats.
/// let n = gather_mask::<f32, u32>(&dst, &src, GatherPattern::Fixed(2), false, 0, &GatherMaskParams::new(1, 2, 8, 0));
/// assert_eq!(n, 64);
/// assert_eq!(dst.to_vec()[..3], [1.0, 3.0, 5.0]);
/// // In place (dst = src0, the vendor's "address reuse"): the same 64 odd lanes.
/// let n = gather_mask::<f32, u32>(&src, &src, GatherPattern::Fixed(2), false, 0, &GatherMaskParams::new(1, 2, 8, 0));
/// assert_eq!((n, src.to_vec()[63]), (64, 127.0));
/// ```
///
/// # Panics
/// Panics if the chip lacks `T`; a fixed pattern is outside `1..=7` (`1..=6` on Ascend310P);
/// the pattern tensor's element size differs from `T`'s or it holds too few bytes; counter
/// mode has `mask = 0`; an operand is not a 32-byte aligned UB tensor; a lane lies outside
/// `src0`; `dst` holds fewer elements than are kept; or `dst`'s kept elements overlap the
/// `src0` lanes other than in place as the [module documentation](self) describes.
#[track_caller]
pub fn gather_mask<T: GatherElement, U: Element>(
    dst: &LocalTensor<T>,
    src0: &LocalTensor<T>,
    src1_pattern: GatherPattern<'_, U>,
    reduce_mode: bool,
    mask: u32,
    params: &GatherMaskParams,
    // AscendC's `rsvdCnt` is an out-parameter; here it is the return value.
) -> u64 {
    // Its reads and its write reach the sanitizer in steps: one instruction, in place or not.
    let _one = crate::observe::events::fuse_vector(API);
    let soc = get_soc();
    ensure(T::gather_supported(soc), API, || {
        format!("T = {} is not supported by GatherMask on {soc} ({})", T::DTYPE, soc.product_line())
    });
    src0.check_vector_operand(API, "src0");
    dst.check_vector_operand(API, "dst");
    let par = T::PAR;
    let repeats = usize::from(params.repeat_times);
    // Counter mode, configuration 1 with `mask > PAR`: `repeats` repeats of `mask` lanes,
    // beyond what one engine repeat holds (the engine's long walk).
    let mut wide = None;
    let plan = if !reduce_mode {
        (repeats > 0).then(|| Plan { repeats, bits: prefix_bits(par), last: prefix_bits(par) })
    } else {
        ensure(mask >= 1, API, || "mask = 0: in counter mode the mask must be at least 1".to_string());
        if soc == Soc::Ascend310P {
            Some(Plan::contiguous::<T>(mask as usize))
        } else if mask as usize <= par {
            (repeats > 0).then(|| Plan {
                repeats,
                bits: prefix_bits(mask as usize),
                last: prefix_bits(mask as usize),
            })
        } else {
            wide = (repeats > 0).then_some(mask as usize);
            None
        }
    };
    // The walk: its repeats and the pattern bits one repeat reads.
    let walk = match (&plan, wide) {
        (Some(plan), _) => Some((plan.repeats, par)),
        (None, Some(lanes)) => Some((repeats, lanes)),
        (None, None) => None,
    };
    let fixed_bit = |p: u8, j: usize| match p {
        1 => j % 2 == 0,
        2 => j % 2 == 1,
        3..=6 => j % 4 == usize::from(p - 3),
        _ => true,
    };
    let mut pattern_bytes = Vec::new();
    let rep1 = usize::from(params.src1_repeat_stride) * 32;
    match src1_pattern {
        GatherPattern::Fixed(p) => {
            let top = if soc == Soc::Ascend310P { 6 } else { 7 };
            ensure((1..=top).contains(&p), API, || {
                format!("src1Pattern = {p} is out of range [1, {top}] on {soc}")
            });
        }
        GatherPattern::Tensor(t) => {
            t.check_vector_operand(API, "src1Pattern");
            ensure(U::SIZE == T::SIZE, API, || {
                format!(
                    "src1Pattern holds {} but {} data needs a {}-bit pattern type",
                    U::DTYPE,
                    T::DTYPE,
                    T::SIZE * 8
                )
            });
            if let Some((reps, bits)) = walk {
                let need = (reps - 1) * rep1 + bits.div_ceil(8);
                ensure(t.get_length() >= need, API, || {
                    format!("src1Pattern holds {} bytes but this call reads {need}", t.get_length())
                });
                crate::observe::events::on_vector(API, &[span_of(t, need)], &[]);
            }
            pattern_bytes = t.reinterpret_cast::<u8>().to_vec();
        }
    }
    let bit: &dyn Fn(usize, usize) -> bool = match src1_pattern {
        GatherPattern::Fixed(p) => &move |_r: usize, j: usize| fixed_bit(p, j),
        GatherPattern::Tensor(_) => &|r: usize, j: usize| pattern_bytes[r * rep1 + j / 8] >> (j % 8) & 1 == 1,
    };
    // `dst` at `src0`'s address: the in-place form.
    let same_arena = Rc::ptr_eq(dst.ub(), src0.ub());
    let in_place = same_arena && dst.get_phy_addr() == src0.get_phy_addr();
    let mut keep = Keep {
        out: Vec::new(),
        cap: dst.get_size(),
        total: 0,
        bit,
        per_repeat: T::PAR,
        in_place: in_place.then(|| usize::from(params.src0_repeat_stride) * T::EPB),
        cur: 0,
        clash: None,
    };
    let rep = usize::from(params.src0_repeat_stride);
    let mut ext = 0;
    if let Some(plan) = &plan {
        let s = Operand::new(src0, params.src0_block_stride, params.src0_repeat_stride, "src0");
        ext = check_operand(API, &s, plan);
        apply::<T, 0, _>(API, plan, &s, [], &mut keep);
    } else if let Some(lanes) = wide {
        let s = Operand::new(src0, params.src0_block_stride, params.src0_repeat_stride, "src0");
        if let GatherPattern::Fixed(p) = src1_pattern {
            // The count is known up front: fail before walking a huge call into a small dst.
            let (step, first) = match p {
                1 => (2, 0),
                2 => (2, 1),
                3..=6 => (4, usize::from(p - 3)),
                _ => (1, 0),
            };
            let total = repeats.saturating_mul(lanes.saturating_sub(first).div_ceil(step));
            ensure(dst.get_size() >= total, API, || {
                format!("dst holds {} elements but {total} are kept", dst.get_size())
            });
        }
        // Repeats longer than `PAR`: the engine's long walk (bounds, the sanitizer's span).
        keep.per_repeat = lanes;
        apply_long::<T, 0, _>(API, repeats, lanes, &s, [], &mut keep);
        ext = long_extent(&s, repeats, lanes).unwrap_or(0);
    }
    let n = keep.total;
    ensure(dst.get_size() >= n, API, || format!("dst holds {} elements but {n} are kept", dst.get_size()));
    let (d0, d1) = dst.byte_range(n);
    let (s0, s1) = src0.byte_range(ext);
    if in_place {
        if let Some((r, before)) = keep.clash {
            fail(
                API,
                format!(
                    "dst is src0 in place (address {d0:#x}) but the {before} elements kept before repeat {r} \
                     (bytes {d0:#x}..{:#x}) reach its lanes (from byte {:#x}): an earlier repeat's output may \
                     not overlap a later repeat's source",
                    d0 + before * T::SIZE,
                    s0 + r * rep * 32
                ),
            );
        }
    } else {
        ensure(!same_arena || d1 <= s0 || s1 <= d0 || n == 0, API, || {
            format!("dst (bytes {d0:#x}..{d1:#x}) overlaps src0 (bytes {s0:#x}..{s1:#x})")
        });
    }
    if walk.is_some() {
        crate::observe::events::on_vector(API, &[], &[span_of(dst, n * T::SIZE)]);
    }
    let p = dst.ptr();
    for (i, v) in keep.out.iter().enumerate() {
        // SAFETY: `i < n <= dst.get_size()` (checked above); no slice of UB memory is alive
        // during an instruction. In place, every lane was read before this write.
        unsafe { p.add(i).write(*v) };
    }
    with_core(|c| {
        c.mask_mode.set(MaskMode::Normal);
        c.mask.set([u64::from(mask), 0]);
    });
    n as u64
}
