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

use crate::ctx::{get_soc, with_core, MaskMode};
use crate::element::Element;
use crate::error::{ensure, fail};
use crate::soc::Soc;
use crate::tensor::LocalTensor;
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
                crate::sanitizer::on_vector(API, &[span_of(t, need)], &[]);
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
        crate::sanitizer::on_vector(API, &[], &[span_of(dst, n * T::SIZE)]);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ctx::{run_on_core, CoreConfig};
    use crate::element::f16;
    use crate::pipe::{TBuf, TPipe};
    use crate::position::VecCalc;
    use crate::vector::mask::get_mask_mode;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    use std::panic::{catch_unwind, AssertUnwindSafe};

    /// One past the highest `src0` element that `repeats` repeats of `lanes` lanes touch (any
    /// `lanes`, above `PAR` included), or `None` on overflow.
    fn wide_extent<T: Element>(repeats: usize, lanes: usize, blk: usize, rep: usize) -> Option<usize> {
        let epb = T::EPB;
        // With a block stride of 0 every block is the first one; otherwise the last block starts
        // highest.
        let span = if blk == 0 {
            lanes.min(epb)
        } else {
            ((lanes - 1) / epb).checked_mul(blk)?.checked_mul(epb)?.checked_add((lanes - 1) % epb + 1)?
        };
        (repeats - 1).checked_mul(rep)?.checked_mul(epb)?.checked_add(span)
    }

    /// A pipe and one VECCALC buffer of `bytes` bytes; tensors come from [`Ub::t`].
    struct Ub {
        _pipe: TPipe,
        buf: TBuf<VecCalc>,
    }

    fn ub(bytes: usize) -> Ub {
        let mut pipe = TPipe::new();
        let mut buf = TBuf::<VecCalc>::new();
        pipe.init_tbuf(&mut buf, bytes);
        Ub { _pipe: pipe, buf }
    }

    impl Ub {
        /// `len` elements of `T` at byte offset `off`.
        fn t<T: Element>(&self, off: usize, len: usize) -> LocalTensor<T> {
            self.buf.get_with_offset::<T>(len, off)
        }
    }

    /// The panic message of `f`, which must fail.
    fn failure(f: impl FnOnce()) -> String {
        let e = catch_unwind(AssertUnwindSafe(f)).expect_err("the call should have failed");
        e.downcast::<String>().map(|s| *s).unwrap_or_default()
    }

    fn assert_fails(needle: &str, f: impl FnOnce()) {
        let msg = failure(f);
        assert!(msg.contains(needle), "message {msg:?} does not contain {needle:?}");
    }

    fn bytes_of<T: Element>(t: &LocalTensor<T>) -> Vec<u8> {
        t.reinterpret_cast::<u8>().to_vec()
    }

    /// The gather mask, from the docs' list: 1 `0101…` (even lanes), 2 `1010…` (odd), 3/4/5/6
    /// lane 0/1/2/3 of every 4, 7 all; or bit `j % 8` of byte `r * rep1 * 32 + j / 8`.
    enum Pat<'a> {
        Fixed(u8),
        Bytes(&'a [u8]),
    }

    /// The slow scalar reference: `repeats` repeats of `lanes` lanes (each repeat taking
    /// lanes `0..lanes`, whatever `PAR`), lane `j` of repeat `r` at element `(r * rep + (j /
    /// epb) * blk) * epb + j % epb` of `src` (elements of `size` bytes), the kept elements'
    /// bytes packed in order.
    #[allow(clippy::too_many_arguments)]
    fn reference(
        src: &[u8],
        size: usize,
        pat: &Pat<'_>,
        repeats: usize,
        lanes: usize,
        blk: usize,
        rep: usize,
        rep1: usize,
    ) -> Vec<u8> {
        let epb = 32 / size;
        let mut out = Vec::new();
        for r in 0..repeats {
            for j in 0..lanes {
                let keep = match *pat {
                    Pat::Fixed(1) => j % 2 == 0,
                    Pat::Fixed(2) => j % 2 == 1,
                    Pat::Fixed(p @ 3..=6) => j % 4 == usize::from(p) - 3,
                    Pat::Fixed(_) => true,
                    Pat::Bytes(b) => b[r * rep1 * 32 + j / 8] & (1 << (j % 8)) != 0,
                };
                if keep {
                    let e = (r * rep + (j / epb) * blk) * epb + j % epb;
                    out.extend_from_slice(&src[e * size..(e + 1) * size]);
                }
            }
        }
        out
    }

    // ---- in place ---------------------------------------------------------------------------

    /// The docs' fixed-pattern example: `GatherMask(src0Local, src0Local, 2, false, 0, {1, 4,
    /// 8, 0}, rsvdCnt)` on `[1 2 … 256]` gives `[2 4 … 256, undefined…]` and rsvdCnt 128.
    #[test]
    fn in_place_docs_example() {
        run_on_core(CoreConfig::single(Soc::Ascend910B), || {
            let u = ub(1024);
            let t = u.t::<u32>(0, 256);
            t.copy_from_slice(&(1..=256).collect::<Vec<u32>>());
            let n = gather_mask::<u32, u32>(
                &t,
                &t,
                GatherPattern::Fixed(2),
                false,
                0,
                &GatherMaskParams::new(1, 4, 8, 0),
            );
            assert_eq!(n, 128);
            assert_eq!(t.to_vec()[..128], (1..=128).map(|i| 2 * i).collect::<Vec<u32>>()[..]);
        });
    }

    /// In place against the out-of-place reference over patterns, strides, repeats and two
    /// element sizes; a call whose earlier repeats' output reaches a later repeat's lanes
    /// fails, as does one keeping more than the tensor holds.
    fn in_place_sweep<T: GatherElement>(rng: &mut SmallRng) {
        let (size, epb) = (T::SIZE, T::EPB);
        let mut checked = [0usize; 3];
        for repeats in 1..=4usize {
            for blk in 0..=2usize {
                for rep in [0usize, 2, 4, 7, 8, 9, 16] {
                    for p in 0..=7u8 {
                        let rep1 = rng.random_range(0..=1usize);
                        let pattern: Vec<u8> = (0..(repeats * rep1 + 1) * 32).map(|_| rng.random()).collect();
                        let pat = if p == 0 { Pat::Bytes(&pattern) } else { Pat::Fixed(p) };
                        let ext = (repeats - 1) * rep * epb + 7 * blk * epb + epb;
                        let src: Vec<u8> = (0..ext * size).map(|_| rng.random()).collect();
                        let want = reference(&src, size, &pat, repeats, T::PAR, blk, rep, rep1);
                        let n = want.len() / size;
                        // Elements kept before each repeat, against that repeat's first element.
                        let mut before = 0;
                        let mut clash = false;
                        for r in 0..repeats {
                            clash |= before > r * rep * epb;
                            before = reference(&src, size, &pat, r + 1, T::PAR, blk, rep, rep1).len() / size;
                        }
                        let u = ub(ext * size + pattern.len());
                        let t = u.t::<T>(0, ext);
                        let pt = u.t::<u8>(ext * size, pattern.len());
                        t.reinterpret_cast::<u8>().copy_from_slice(&src);
                        pt.copy_from_slice(&pattern);
                        let params = GatherMaskParams::new(blk as u8, repeats as u16, rep as u16, rep1 as u8);
                        let pt = pt.reinterpret_cast::<T>();
                        let call = || {
                            let arg =
                                if p == 0 { GatherPattern::Tensor(&pt) } else { GatherPattern::Fixed(p) };
                            gather_mask(&t, &t, arg, false, 0, &params)
                        };
                        let ctx = format!("{} repeats {repeats} blk {blk} rep {rep} p {p}", T::DTYPE);
                        if n > ext {
                            assert_fails("are kept", || {
                                call();
                            });
                            checked[0] += 1;
                        } else if clash {
                            assert_fails(
                                "an earlier repeat's output may not overlap a later repeat's source",
                                || {
                                    call();
                                },
                            );
                            checked[1] += 1;
                        } else {
                            assert_eq!(call() as usize, n, "{ctx}");
                            assert_eq!(bytes_of(&t)[..n * size], want[..], "{ctx}");
                            checked[2] += 1;
                        }
                    }
                }
            }
        }
        assert!(checked.iter().all(|&c| c > 0), "{checked:?}");
    }

    #[test]
    fn in_place_matches_reference() {
        let rng = &mut SmallRng::seed_from_u64(0x6A7E);
        for soc in [Soc::Ascend910B, Soc::Ascend310B] {
            run_on_core(CoreConfig::single(soc), || {
                in_place_sweep::<u32>(rng);
                in_place_sweep::<f16>(rng);
            });
        }
    }

    #[test]
    fn partial_overlap_is_rejected() {
        run_on_core(CoreConfig::single(Soc::Ascend910B), || {
            let u = ub(2048);
            let src = u.t::<u32>(0, 256);
            src.copy_from_slice(&(1..=256).collect::<Vec<u32>>());
            let params = GatherMaskParams::new(1, 4, 8, 0);
            // dst one block above src0: the docs allow no partial overlap.
            let dst = u.t::<u32>(32, 256);
            assert_fails("GatherMask: dst (bytes 0x20..0x220) overlaps src0 (bytes 0x0..0x400)", || {
                gather_mask::<u32, u32>(&dst, &src, GatherPattern::Fixed(2), false, 0, &params);
            });
            // dst below src0: 2 repeats end where src0 starts (fine), 3 reach into it.
            let (src, dst) = (u.t::<u32>(512, 256), u.t::<u32>(0, 256));
            let n = gather_mask::<u32, u32>(
                &dst,
                &src,
                GatherPattern::Fixed(7),
                false,
                0,
                &GatherMaskParams::new(1, 2, 8, 0),
            );
            assert_eq!(n, 128);
            assert_fails("GatherMask: dst (bytes 0x0..0x300) overlaps src0 (bytes 0x200..0x500)", || {
                gather_mask::<u32, u32>(
                    &dst,
                    &src,
                    GatherPattern::Fixed(7),
                    false,
                    0,
                    &GatherMaskParams::new(1, 3, 8, 0),
                );
            });
            // In place, but repeat 1 starts at block 4 and repeat 0 wrote 8 blocks.
            let t = u.t::<u32>(0, 256);
            assert_fails(
                "dst is src0 in place (address 0x0) but the 64 elements kept before repeat 1 (bytes 0x0..0x100) \
                 reach its lanes (from byte 0x80)",
                || {
                    gather_mask::<u32, u32>(&t, &t, GatherPattern::Fixed(7), false, 0, &GatherMaskParams::new(1, 2, 4, 0));
                },
            );
            // The same with pattern 2 keeps 32 elements, exactly up to repeat 1's first block.
            t.copy_from_slice(&(0..256).collect::<Vec<u32>>());
            let n = gather_mask::<u32, u32>(
                &t,
                &t,
                GatherPattern::Fixed(2),
                false,
                0,
                &GatherMaskParams::new(1, 2, 4, 0),
            );
            let want: Vec<u32> =
                (0..2).flat_map(|r| (0..64).filter(|j| j % 2 == 1).map(move |j| r * 32 + j)).collect();
            assert_eq!(n, 64);
            assert_eq!(t.to_vec()[..64], want[..]);
        });
    }

    // ---- counter mode, mask above PAR ----------------------------------------------------------

    /// The vendor's scenario 2: `GatherMask(dst, src0, src1, true, 70, {1, 2, 4, 0}, rsvdCnt)`
    /// on uint32 with the pattern `0x7E7C00A5` in every word: 70 lanes per repeat, bits
    /// consumed on past lane 64, the second repeat 4 blocks on.
    #[test]
    fn counter_mask_above_par_vendor_call() {
        for soc in [Soc::Ascend910B, Soc::Ascend310B] {
            run_on_core(CoreConfig::single(soc), || {
                let u = ub(1024 + 128 + 1024);
                let src = u.t::<u32>(0, 256);
                let pat = u.t::<u32>(1024, 32);
                let dst = u.t::<u32>(1152, 256);
                let mut rng = SmallRng::seed_from_u64(2);
                let x: Vec<u32> = (0..256).map(|_| rng.random()).collect();
                src.copy_from_slice(&x);
                pat.copy_from_slice(&[0x7E7C_00A5; 32]);
                let n = gather_mask(
                    &dst,
                    &src,
                    GatherPattern::Tensor(&pat),
                    true,
                    70,
                    &GatherMaskParams::new(1, 2, 4, 0),
                );
                // 15 bits per word, so 30 in lanes 0..64 and 3 (0xA5's bits 0, 2, 5) in 64..70.
                assert_eq!(n, 66);
                let want = reference(&bytes_of(&src), 4, &Pat::Bytes(&bytes_of(&pat)), 2, 70, 1, 4, 0);
                assert_eq!(bytes_of(&dst)[..66 * 4], want[..]);
                assert_eq!(dst.to_vec()[30..33], [x[64], x[66], x[69]]);
                assert_eq!(get_mask_mode(), MaskMode::Normal);
            });
        }
    }

    /// Random counter-mode calls with `PAR < mask <= 3 * PAR` against the slow reference.
    fn wide_sweep<T: GatherElement>(rng: &mut SmallRng) {
        let size = T::SIZE;
        for _ in 0..60 {
            let lanes = rng.random_range(T::PAR + 1..=3 * T::PAR);
            let repeats = rng.random_range(1..=4usize);
            let blk = rng.random_range(0..=3usize);
            let rep = rng.random_range(0..=40usize);
            let rep1 = rng.random_range(0..=2usize);
            let p = rng.random_range(0..=7u8);
            let ext = wide_extent::<T>(repeats, lanes, blk, rep).unwrap();
            let pbytes = ((repeats - 1) * rep1 * 32 + lanes.div_ceil(8)).div_ceil(32) * 32;
            let pattern: Vec<u8> = (0..pbytes).map(|_| rng.random()).collect();
            let src: Vec<u8> = (0..ext * size).map(|_| rng.random()).collect();
            let pat = if p == 0 { Pat::Bytes(&pattern) } else { Pat::Fixed(p) };
            let want = reference(&src, size, &pat, repeats, lanes, blk, rep, rep1);
            let n = want.len() / size;
            let sb = (ext * size).div_ceil(32) * 32;
            let db = (n.max(1) * size).div_ceil(32) * 32;
            let u = ub(sb + db + pbytes);
            let s = u.t::<T>(0, ext);
            let d = u.t::<T>(sb, n.max(1));
            let pt = u.t::<u8>(sb + db, pbytes);
            s.reinterpret_cast::<u8>().copy_from_slice(&src);
            pt.copy_from_slice(&pattern);
            let pt = pt.reinterpret_cast::<T>();
            let arg = if p == 0 { GatherPattern::Tensor(&pt) } else { GatherPattern::Fixed(p) };
            let params = GatherMaskParams::new(blk as u8, repeats as u16, rep as u16, rep1 as u8);
            let got = gather_mask(&d, &s, arg, true, lanes as u32, &params);
            let ctx =
                format!("{} mask {lanes} repeats {repeats} blk {blk} rep {rep} rep1 {rep1} p {p}", T::DTYPE);
            assert_eq!(got as usize, n, "{ctx}");
            assert_eq!(bytes_of(&d)[..n * size], want[..], "{ctx}");
            // One element fewer in src0 is out of bounds.
            let short = u.t::<T>(0, ext - 1);
            assert_fails(
                &format!("src0 would touch element {} but the tensor has {}", ext - 1, ext - 1),
                || {
                    gather_mask(&d, &short, arg, true, lanes as u32, &params);
                },
            );
        }
    }

    #[test]
    fn counter_mask_above_par_matches_reference() {
        let rng = &mut SmallRng::seed_from_u64(0x51);
        for soc in [Soc::Ascend910B, Soc::Ascend310B] {
            run_on_core(CoreConfig::single(soc), || {
                wide_sweep::<u32>(rng);
                wide_sweep::<f32>(rng);
                wide_sweep::<u16>(rng);
                wide_sweep::<f16>(rng);
            });
        }
    }

    #[test]
    fn counter_mask_above_par_checks() {
        run_on_core(CoreConfig::single(Soc::Ascend910B), || {
            let u = ub(4096);
            let src = u.t::<f32>(0, 256);
            let dst = u.t::<f32>(1024, 64);
            let pat = u.t::<u32>(2048, 8);
            // Pattern 7 keeps 2 × 70 elements; dst holds 64, known before walking.
            assert_fails("dst holds 64 elements but 140 are kept", || {
                gather_mask::<f32, u32>(
                    &dst,
                    &src,
                    GatherPattern::Fixed(7),
                    true,
                    70,
                    &GatherMaskParams::new(1, 2, 8, 0),
                );
            });
            // 2 repeats 1 block apart read 32 + 9 bytes of pattern; 32 bytes are there.
            assert_fails("src1Pattern holds 32 bytes but this call reads 41", || {
                gather_mask(
                    &dst,
                    &src,
                    GatherPattern::Tensor(&pat),
                    true,
                    70,
                    &GatherMaskParams::new(1, 2, 8, 1),
                );
            });
            // A huge call (2^32 - 1 lanes in one block, 65535 repeats on it) fails before walking.
            assert_fails("dst holds 64 elements but 281470681677825 are kept", || {
                gather_mask::<f32, u32>(
                    &dst,
                    &src,
                    GatherPattern::Fixed(7),
                    true,
                    u32::MAX,
                    &GatherMaskParams::new(0, u16::MAX, 0, 0),
                );
            });
            // In place with mask above PAR: repeat 1 (8 blocks on) is reached by 70 elements.
            let t = u.t::<f32>(0, 256);
            assert_fails("the 70 elements kept before repeat 1", || {
                gather_mask::<f32, u32>(
                    &t,
                    &t,
                    GatherPattern::Fixed(7),
                    true,
                    70,
                    &GatherMaskParams::new(1, 2, 8, 0),
                );
            });
            // 9 blocks on it is not, and in place equals the reference.
            let x: Vec<f32> = (0..256).map(|i| i as f32).collect();
            t.copy_from_slice(&x);
            let want = reference(&bytes_of(&t), 4, &Pat::Fixed(7), 2, 70, 1, 9, 0);
            let n = gather_mask::<f32, u32>(
                &t,
                &t,
                GatherPattern::Fixed(7),
                true,
                70,
                &GatherMaskParams::new(1, 2, 9, 0),
            );
            assert_eq!(n, 140);
            assert_eq!(bytes_of(&t)[..140 * 4], want[..]);
        });
    }
}
