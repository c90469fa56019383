//! The one addressing model every vector instruction shares: mask × repeat × block stride ×
//! repeat stride.
//!
//! For repeat `r` and lane `j` (block `b = j / EPB`, element `e = j % EPB`) an operand's
//! element is `(r * rep_stride + b * blk_stride) * EPB + e`. An instruction supplies only a
//! [`Lanes`] kernel — what to do with a run of contiguous enabled lanes — and the engine does
//! every check once per call, then walks the runs: one run for a contiguous full-mask call,
//! one per repeat when blocks are contiguous, one per block (or per run of set bits inside a
//! partial block) otherwise.

use crate::element::{Element, BLOCKS_PER_REPEAT};
use crate::kernel::ctx::{with_core, MaskMode};
use crate::kernel::error::{check, ensure, fail};
use crate::memory::tensor::LocalTensor;
use crate::observe::sanitizer::UbSpan;
use crate::vector::mask::{prefix_bits, Plan};

/// One operand of a vector instruction: a tensor and its strides in blocks.
pub(crate) struct Operand<'a, T: Element> {
    pub t: &'a LocalTensor<T>,
    pub blk: usize,
    pub rep: usize,
    pub name: &'static str,
}

impl<'a, T: Element> Operand<'a, T> {
    pub fn new(
        t: &'a LocalTensor<T>,
        blk: impl Into<usize>,
        rep: impl Into<usize>,
        name: &'static str,
    ) -> Self {
        Operand { t, blk: blk.into(), rep: rep.into(), name }
    }

    /// Element offset of lane `j` of repeat `r`.
    #[inline(always)]
    fn offset(&self, r: usize, j: usize) -> usize {
        (r * self.rep + (j / T::EPB) * self.blk) * T::EPB + j % T::EPB
    }

    /// One past the highest element offset, relative to the start of the repeat, that the
    /// lanes `m` touch. With a block stride of 0 every block maps onto the same 32 bytes, so
    /// the highest lane need not be the highest element: every enabled block is considered.
    #[inline]
    fn repeat_span(&self, m: [u64; 2]) -> usize {
        // (Called after `extent` checked the plan: the span fits in `usize`.)
        mask_span::<T>(self.blk, m).unwrap_or(usize::MAX)
    }

    /// One past the highest element the plan touches, or `None` if that overflows `usize`
    /// (repeats, strides and counter-mode counts come from the kernel unchecked).
    fn extent(&self, plan: &Plan) -> Option<usize> {
        let rep_start = |r: usize| r.checked_mul(self.rep)?.checked_mul(T::EPB);
        let span = |m: [u64; 2]| mask_span::<T>(self.blk, m);
        let last_span = span(plan.last)?;
        let last = rep_start(plan.repeats - 1)?.checked_add(last_span)?;
        if plan.repeats >= 2 {
            // A full-mask plan has one mask for every repeat: its span is computed once.
            let bits_span = if plan.bits == plan.last { last_span } else { span(plan.bits)? };
            Some(last.max(rep_start(plan.repeats - 2)?.checked_add(bits_span)?))
        } else {
            Some(last)
        }
    }

    /// Same arena, same address, same block stride, and the same repeat stride unless the
    /// call has one repeat: then the repeat strides never apply and the two operands touch the
    /// same lanes (issue 3b: a per-token quantisation operator's remainder `Max` runs one
    /// repeat in place with `dstRepStride` and `src0RepStride` differing). The vendor's general
    /// overlap rule (通用说明和约束, 地址重叠约束) allows `dst` and a source that overlap 100%
    /// within each repeat, which is what this compares.
    fn same_layout(&self, o: &Operand<'_, T>, repeats: usize) -> bool {
        std::ptr::eq(self.t.ptr(), o.t.ptr()) && self.blk == o.blk && (self.rep == o.rep || repeats == 1)
    }
}

/// What an instruction does with a run of `n` contiguous enabled lanes.
pub(crate) trait Lanes<T: Element, const N: usize> {
    /// Whether the kernel writes `dst` (a kernel that only reads its `dst` operand, such as
    /// `vec_reduce_add`'s gather, says `false`, so the sanitizer records a read).
    const WRITES_DST: bool = true;

    /// Processes `n` lanes. `lane` is the global lane number `r * PAR + j` of the first one
    /// (instructions that read per-lane side data, like `Select`'s bit mask, use it).
    ///
    /// # Safety
    /// `dst` is valid for `n` writes and each `src[i]` for `n` reads; `dst` either equals a
    /// source pointer or does not overlap it. Implementations read lane `i` of every source
    /// before writing lane `i` of `dst`.
    unsafe fn run(&mut self, lane: usize, dst: *mut T, src: [*const T; N], n: usize);
}

/// Checks that `op` may be an operand and that everything `plan` touches lies inside it.
#[track_caller]
pub(crate) fn check_operand<T: Element>(api: &'static str, op: &Operand<'_, T>, plan: &Plan) -> usize {
    op.t.check_vector_operand(api, op.name);
    let ext = op.extent(plan);
    ensure(ext.is_some_and(|e| e <= op.t.get_size()), api, || {
        match ext {
        Some(ext) => format!(
            "{} would touch element {} but the tensor has {} elements (repeats = {}, blkStride = {}, repStride = {})",
            op.name,
            ext - 1,
            op.t.get_size(),
            plan.repeats,
            op.blk,
            op.rep
        ),
        None => format!(
            "{}: repeats = {}, blkStride = {}, repStride = {} address beyond the address space (the tensor has {} \
             elements)",
            op.name,
            plan.repeats,
            op.blk,
            op.rep,
            op.t.get_size()
        ),
    }
    });
    ext.unwrap_or(0)
}

/// Whether the block footprints of two operands share a block (exact, block-granular):
/// `touched(op, mark)` calls `mark(k)` for every block `k` (counted from the operand's start)
/// the operand touches.
fn footprints_meet<T: Element>(
    a: &Operand<'_, T>,
    b: &Operand<'_, T>,
    ea: usize,
    eb: usize,
    touched: impl Fn(&Operand<'_, T>, &mut dyn FnMut(usize)),
) -> bool {
    let (a0, a1) = a.t.byte_range(ea);
    let (b0, b1) = b.t.byte_range(eb);
    // Tensors of two different arenas never overlap, whatever their offsets.
    if !std::rc::Rc::ptr_eq(a.t.ub(), b.t.ub()) || a1 <= b0 || b1 <= a0 {
        return false;
    }
    // Byte ranges intersect: compare the sets of 32-byte blocks actually touched, as bit sets
    // over the arena's blocks (every block was bounds-checked, so it lies in the arena).
    let words = a.t.ub().size().div_ceil(32 * 64);
    let blocks = |op: &Operand<'_, T>| {
        let mut set = vec![0u64; words];
        let base = op.t.get_phy_addr() / 32;
        touched(op, &mut |k| {
            let k = base + k;
            set[k / 64] |= 1 << (k % 64);
        });
        set
    };
    let (va, vb) = (blocks(a), blocks(b));
    va.iter().zip(&vb).any(|(x, y)| x & y != 0)
}

/// The blocks an operand touches under `plan` (for [`footprints_meet`]). With a repeat
/// stride of 0 every repeat but the last touches the same blocks, so two repeats stand for
/// all (a counter-mode call may have many millions).
fn plan_blocks<T: Element>(plan: &Plan) -> impl Fn(&Operand<'_, T>, &mut dyn FnMut(usize)) + '_ {
    move |op, mark| {
        let mut repeat = |r: usize| {
            let m = plan.mask_of(r);
            for b in 0..BLOCKS_PER_REPEAT {
                if block_bits::<T>(m, b) != 0 {
                    mark(r * op.rep + b * op.blk);
                }
            }
        };
        if op.rep == 0 {
            repeat(0);
            repeat(plan.repeats - 1);
        } else {
            (0..plan.repeats).for_each(&mut repeat);
        }
    }
}

/// Fails: `dst` and a source overlap without coinciding.
#[cold]
#[track_caller]
fn partial_overlap<T: Element>(api: &'static str, dst: &Operand<'_, T>, s: &Operand<'_, T>) -> ! {
    fail(
        api,
        format!(
            "{} (address {:#x}) and {} (address {:#x}) partially overlap; only a complete overlap is allowed",
            dst.name,
            dst.t.get_phy_addr(),
            s.name,
            s.t.get_phy_addr()
        ),
    )
}

/// One past the highest element offset, from the start of a repeat, of the lanes `m` enables
/// in an operand of `T` with block stride `blk`, or `None` if that overflows `usize`.
#[inline]
fn mask_span<T: Element>(blk: usize, m: [u64; 2]) -> Option<usize> {
    if blk >= 1 {
        // A later block starts past the end of every earlier one: the highest enabled lane is
        // the highest element.
        let Some(top) = top_lane::<T>(m) else { return Some(0) };
        return (top / T::EPB).checked_mul(blk)?.checked_mul(T::EPB)?.checked_add(top % T::EPB + 1);
    }
    // A block stride of 0 maps every block onto the same 32 bytes: each enabled block counts.
    let mut span = 0usize;
    for b in 0..BLOCKS_PER_REPEAT {
        let bits = block_bits::<T>(m, b);
        if bits != 0 {
            span = span.max(64 - bits.leading_zeros() as usize);
        }
    }
    Some(span)
}

/// The highest enabled lane of `m` among the lanes an operand of `T` has in one repeat (its 8
/// blocks, at most the 128 mask bits; see [`block_bits`]), or `None` if none is.
#[inline]
fn top_lane<T: Element>(m: [u64; 2]) -> Option<usize> {
    let n = (BLOCKS_PER_REPEAT * T::EPB).min(128);
    let low = |w: u64, bits: usize| if bits >= 64 { w } else { w & ((1u64 << bits) - 1) };
    let (m0, m1) = (low(m[0], n), if n > 64 { low(m[1], n - 64) } else { 0 });
    if m1 != 0 {
        Some(127 - m1.leading_zeros() as usize)
    } else if m0 != 0 {
        Some(63 - m0.leading_zeros() as usize)
    } else {
        None
    }
}

/// The `EPB` mask bits of block `b` of a repeat mask, in the low bits.
#[inline(always)]
pub(crate) fn block_bits<T: Element>(m: [u64; 2], b: usize) -> u64 {
    let lo = b * T::EPB;
    if lo >= 128 {
        // 8-bit operands of a two-type instruction: blocks past the 128 mask bits are idle.
        return 0;
    }
    let word = m[lo / 64] >> (lo % 64);
    if T::EPB >= 64 {
        word
    } else {
        word & ((1u64 << T::EPB) - 1)
    }
}

/// Runs a high-dimensional instruction: checks every operand once, then walks the plan.
///
/// `dst` may coincide exactly with a source (same address and strides; with one repeat the repeat strides need not match); any other overlap
/// between `dst` and a source is rejected as partial overlap.
///
/// Repeats run in order, each reading its sources after the previous repeat has written: with
/// `dst` coinciding with a source at a repeat stride of 0, repeat `r` reads what repeat `r - 1`
/// wrote (an accumulation). The vendor's Ascend910B `BilinearInterpolation` relies on exactly
/// this (`vector/bilinear.rs`; `tests/vector_bilinear.rs` checks it).
#[track_caller]
pub(crate) fn apply<T: Element, const N: usize, K: Lanes<T, N>>(
    api: &'static str,
    plan: &Plan,
    dst: &Operand<'_, T>,
    srcs: [&Operand<'_, T>; N],
    kernel: &mut K,
) {
    const { assert!(T::PAR <= 128, "the mask model covers at most 128 lanes") };
    let ed = check_operand(api, dst, plan);
    let mut reads = [(0u64, 0usize, 0usize); N];
    for (i, s) in srcs.into_iter().enumerate() {
        let es = check_operand(api, s, plan);
        let (a, b) = s.t.byte_range(es);
        reads[i] = (s.t.tag, a, b);
        if !dst.same_layout(s, plan.repeats) && footprints_meet(dst, s, ed, es, plan_blocks(plan)) {
            partial_overlap(api, dst, s);
        }
    }
    let (a, b) = dst.t.byte_range(ed);
    if K::WRITES_DST {
        crate::observe::events::on_vector_of::<T>(api, plan.repeats, &reads, &[(dst.t.tag, a, b)]);
    } else {
        crate::observe::events::on_vector_of::<T>(api, plan.repeats, &[(dst.t.tag, a, b)], &[]);
    }
    walk(plan, dst, srcs, kernel);
}

fn walk<T: Element, const N: usize, K: Lanes<T, N>>(
    plan: &Plan,
    dst: &Operand<'_, T>,
    srcs: [&Operand<'_, T>; N],
    kernel: &mut K,
) {
    let par = T::PAR;
    let full = prefix_bits(par);
    let dp = dst.t.ptr();
    let sp: [*const T; N] = core::array::from_fn(|i| srcs[i].t.ptr() as *const T);
    let contiguous_blocks = dst.blk == 1 && srcs.iter().all(|s| s.blk == 1);
    let contiguous_repeats = contiguous_blocks && dst.rep == 8 && srcs.iter().all(|s| s.rep == 8);
    // In place with a block stride of 0: the blocks of one repeat alias each other, and the
    // hardware reads every lane of a repeat before writing any. Sources sharing dst's layout
    // are then read from a per-repeat snapshot, so an earlier block's write cannot feed a
    // later block's read.
    if dst.blk == 0 && srcs.iter().any(|s| dst.same_layout(s, plan.repeats)) {
        walk_aliased(plan, dst, srcs, kernel);
        return;
    }
    let last_prefix = {
        let n = (plan.last[0].count_ones() + plan.last[1].count_ones()) as usize;
        (plan.last == prefix_bits(n)).then_some(n)
    };

    // Fast path: everything contiguous, every repeat full but a prefix-masked last one.
    if contiguous_repeats && (plan.repeats == 1 || plan.bits == full) {
        if let Some(tail) = last_prefix {
            let n = (plan.repeats - 1) * par + tail;
            // SAFETY: the operands were bounds-checked for this plan, whose lanes are exactly
            // elements 0..n of each operand; dst equals or does not overlap each source.
            unsafe { kernel.run(0, dp, sp, n) };
            return;
        }
    }
    for r in 0..plan.repeats {
        let m = plan.mask_of(r);
        let lane0 = r * par;
        let n = (m[0].count_ones() + m[1].count_ones()) as usize;
        if contiguous_blocks && m == prefix_bits(n) {
            // One run per repeat.
            // SAFETY: lanes 0..n of repeat r were bounds-checked for every operand.
            unsafe {
                kernel.run(
                    lane0,
                    dp.add(dst.offset(r, 0)),
                    core::array::from_fn(|i| sp[i].add(srcs[i].offset(r, 0))),
                    n,
                )
            };
            continue;
        }
        for_each_run::<T>(m, |j, len| {
            // SAFETY: lanes j..j+len of repeat r are enabled, hence bounds-checked, and
            // they are contiguous within one block of every operand.
            unsafe {
                kernel.run(
                    lane0 + j,
                    dp.add(dst.offset(r, j)),
                    core::array::from_fn(|i| sp[i].add(srcs[i].offset(r, j))),
                    len,
                )
            };
        });
    }
}

/// Calls `f(j, len)` for every run of contiguous enabled lanes `j..j + len` of the repeat
/// mask `m`; a run never crosses a block boundary.
#[inline(always)]
fn for_each_run<T: Element>(m: [u64; 2], mut f: impl FnMut(usize, usize)) {
    for b in 0..BLOCKS_PER_REPEAT {
        let mut bits = block_bits::<T>(m, b);
        let mut e = 0;
        while bits != 0 {
            let skip = bits.trailing_zeros() as usize;
            bits >>= skip;
            e += skip;
            let len = (!bits).trailing_zeros() as usize;
            f(b * T::EPB + e, len);
            bits = if len >= 64 { 0 } else { bits >> len };
            e += len;
        }
    }
}

/// The per-block walk for an in-place call whose dst blocks alias within a repeat
/// (`dst.blk == 0`): sources with dst's layout are snapshot before each repeat.
fn walk_aliased<T: Element, const N: usize, K: Lanes<T, N>>(
    plan: &Plan,
    dst: &Operand<'_, T>,
    srcs: [&Operand<'_, T>; N],
    kernel: &mut K,
) {
    // EPB <= 16 because PAR <= 128 (asserted in `apply`).
    let mut snap: [[T; 16]; N] = [[T::ZERO; 16]; N];
    let aliased: [bool; N] = core::array::from_fn(|i| dst.same_layout(srcs[i], plan.repeats));
    let dp = dst.t.ptr();
    for r in 0..plan.repeats {
        let m = plan.mask_of(r);
        let span = dst.repeat_span(m);
        for i in 0..N {
            if aliased[i] {
                // SAFETY: with a block stride of 0 the repeat touches elements
                // offset(r, 0) .. offset(r, 0) + span of the source, all bounds-checked; the
                // snapshot is a distinct stack buffer of 16 >= span elements.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        srcs[i].t.ptr().add(srcs[i].offset(r, 0)),
                        snap[i].as_mut_ptr(),
                        span,
                    )
                };
            }
        }
        for_each_run::<T>(m, |j, len| {
            let e = j % T::EPB;
            let sp: [*const T; N] = core::array::from_fn(|i| {
                if aliased[i] {
                    // SAFETY: element e + len <= span of the snapshot.
                    unsafe { snap[i].as_ptr().add(e) }
                } else {
                    // SAFETY: lanes j..j+len of repeat r are enabled, hence bounds-checked.
                    unsafe { srcs[i].t.ptr().add(srcs[i].offset(r, j)) as *const T }
                }
            });
            // SAFETY: lanes j..j+len of repeat r are enabled, hence bounds-checked for dst,
            // and contiguous within one block; every source pointer is either a disjoint
            // operand (checked by `apply`) or the stack snapshot.
            unsafe { kernel.run(r * T::PAR + j, dp.add(dst.offset(r, j)), sp, len) };
        });
    }
}

/// One past the highest element an operand touches in `repeats` repeats of `count` lanes
/// each (see [`apply_long`]), or `None` if that overflows `usize`.
pub(crate) fn long_extent<T: Element>(op: &Operand<'_, T>, repeats: usize, count: usize) -> Option<usize> {
    let nb = count.div_ceil(T::EPB);
    let tail = count - (nb - 1) * T::EPB;
    let block = |b: usize| b.checked_mul(op.blk)?.checked_mul(T::EPB);
    // Strides are non-negative: the last repeat reaches highest, within it the last block (a
    // tail of `tail` lanes) or, with a block stride of 0, the full block before it.
    let mut hi = block(nb - 1)?.checked_add(tail)?;
    if nb >= 2 {
        hi = hi.max(block(nb - 2)?.checked_add(T::EPB)?);
    }
    (repeats - 1).checked_mul(op.rep)?.checked_mul(T::EPB)?.checked_add(hi)
}

/// The blocks an operand touches in `repeats` repeats of `count` lanes each (for
/// [`footprints_meet`]). A stride of 0 collapses the blocks (or repeats) to one.
fn long_blocks<T: Element>(repeats: usize, count: usize) -> impl Fn(&Operand<'_, T>, &mut dyn FnMut(usize)) {
    move |op, mark| {
        let nb = if op.blk == 0 { 1 } else { count.div_ceil(T::EPB) };
        let reps = if op.rep == 0 { 1 } else { repeats };
        for r in 0..reps {
            for b in 0..nb {
                mark(r * op.rep + b * op.blk);
            }
        }
    }
}

/// Runs an instruction whose repeats are `count` lanes long, `count` possibly beyond `PAR`:
/// `Copy` in counter mode, where the mask register counts the elements of each repeat and
/// the repeat time is effective (the general counter mode counts the whole call; see
/// [`crate::vector::mask::resolve_per_repeat`]), and `GatherMask` in counter mode with a
/// `mask` above `PAR` on the chips whose counter mode counts lanes per repeat.
///
/// Lane `j` of repeat `r` of an operand is element
/// `(r * repStride + (j / EPB) * blkStride) * EPB + j % EPB`, as in [`apply`], so a repeat
/// spans `ceil(count / EPB)` blocks — more than 8 when `count > PAR`. The checks are
/// [`apply`]'s, once per call: position and alignment, bounds, and `dst` either coinciding
/// exactly with a source (same address and strides) or sharing no block with it in any
/// repeat. The sanitizer sees one V access per call. The kernel's `lane` is `r * count + j`.
/// `repeats` and `count` are at least 1.
#[track_caller]
pub(crate) fn apply_long<T: Element, const N: usize, K: Lanes<T, N>>(
    api: &'static str,
    repeats: usize,
    count: usize,
    dst: &Operand<'_, T>,
    srcs: [&Operand<'_, T>; N],
    kernel: &mut K,
) {
    const { assert!(T::PAR <= 128, "the mask model covers at most 128 lanes") };
    debug_assert!(repeats >= 1 && count >= 1);
    #[track_caller]
    fn check<T: Element>(api: &'static str, op: &Operand<'_, T>, repeats: usize, count: usize) -> usize {
        op.t.check_vector_operand(api, op.name);
        let ext = long_extent(op, repeats, count);
        ensure(ext.is_some_and(|e| e <= op.t.get_size()), api, || {
            let what = match ext {
                Some(ext) => format!("{} would touch element {}", op.name, ext - 1),
                None => format!("{} would address beyond the address space", op.name),
            };
            format!(
                "{what} but the tensor has {} elements (repeats = {repeats}, {count} elements per repeat in \
                 counter mode, blkStride = {}, repStride = {})",
                op.t.get_size(),
                op.blk,
                op.rep
            )
        });
        ext.unwrap_or(0)
    }
    let ed = check(api, dst, repeats, count);
    let (d0, d1) = dst.t.byte_range(ed);
    let mut reads = [(0u64, 0usize, 0usize); N];
    for (i, s) in srcs.into_iter().enumerate() {
        let es = check(api, s, repeats, count);
        let (s0, s1) = s.t.byte_range(es);
        reads[i] = (s.t.tag, s0, s1);
        if !dst.same_layout(s, repeats) && footprints_meet(dst, s, ed, es, long_blocks(repeats, count)) {
            partial_overlap(api, dst, s);
        }
    }
    if K::WRITES_DST {
        crate::observe::events::on_vector_of::<T>(
            api,
            repeats * count.div_ceil(T::PAR),
            &reads,
            &[(dst.t.tag, d0, d1)],
        );
    } else {
        crate::observe::events::on_vector_of::<T>(
            api,
            repeats * count.div_ceil(T::PAR),
            &[(dst.t.tag, d0, d1)],
            &[],
        );
    }

    let dp = dst.t.ptr();
    let sp: [*const T; N] = core::array::from_fn(|i| srcs[i].t.ptr() as *const T);
    let nb = count.div_ceil(T::EPB);
    let contiguous_blocks = dst.blk == 1 && srcs.iter().all(|s| s.blk == 1);
    // In place with a block stride of 0: every block of a repeat is the same 32 bytes, and
    // the hardware reads a repeat before writing it, so such a source is read from a
    // per-repeat snapshot of its one block (as `walk_aliased` does).
    let aliased: [bool; N] = core::array::from_fn(|i| dst.blk == 0 && dst.same_layout(srcs[i], repeats));
    let span = count.min(T::EPB);
    // EPB <= 16 because PAR <= 128 (asserted above).
    let mut snap: [[T; 16]; N] = [[T::ZERO; 16]; N];
    for r in 0..repeats {
        let lane0 = r * count;
        if contiguous_blocks {
            // SAFETY: with unit block strides the repeat is the `count` contiguous elements
            // from offset(r, 0) of every operand, all bounds-checked; dst equals or shares no
            // block with each source (checked above).
            unsafe {
                kernel.run(
                    lane0,
                    dp.add(dst.offset(r, 0)),
                    core::array::from_fn(|i| sp[i].add(srcs[i].offset(r, 0))),
                    count,
                )
            };
            continue;
        }
        for i in 0..N {
            if aliased[i] {
                // SAFETY: with a block stride of 0 the repeat reads elements offset(r, 0) ..
                // offset(r, 0) + span of the source, all bounds-checked; the snapshot is a
                // distinct stack buffer of 16 >= span elements.
                unsafe {
                    std::ptr::copy_nonoverlapping(sp[i].add(srcs[i].offset(r, 0)), snap[i].as_mut_ptr(), span)
                };
            }
        }
        for b in 0..nb {
            let j = b * T::EPB;
            let len = T::EPB.min(count - j);
            let src: [*const T; N] = core::array::from_fn(|i| {
                if aliased[i] {
                    snap[i].as_ptr()
                } else {
                    // SAFETY: lanes j..j+len of repeat r were bounds-checked for every operand.
                    unsafe { sp[i].add(srcs[i].offset(r, j)) }
                }
            });
            // SAFETY: lanes j..j+len of repeat r lie in one block of dst, bounds-checked;
            // every source pointer is a bounds-checked block of an operand that equals or
            // shares no block with dst, or the snapshot (len <= span elements).
            unsafe { kernel.run(lane0 + j, dp.add(dst.offset(r, j)), src, len) };
        }
    }
}

/// Runs a count-form instruction over elements `0..count` of every operand, contiguously.
///
/// Like AscendC's count forms (which run one counter-mode instruction and then restore the
/// defaults), the call leaves the core in normal mask mode with a full mask register, so a
/// mask set earlier with `set_vector_mask` does not survive it — as on the chip.
///
/// # Panics
/// Panics if an operand is not a UB tensor, is not 32-byte aligned, holds fewer than `count`
/// elements, or partially overlaps `dst`.
#[track_caller]
pub(crate) fn apply_count<T: Element, const N: usize, K: Lanes<T, N>>(
    api: &'static str,
    count: usize,
    dst: (&LocalTensor<T>, &'static str),
    srcs: [(&LocalTensor<T>, &'static str); N],
    kernel: &mut K,
) {
    // A nested fn rather than a closure: closures cannot carry `#[track_caller]`, and the
    // failure must point at the kernel's call site.
    #[track_caller]
    fn check<T: Element>(api: &'static str, count: usize, t: &LocalTensor<T>, name: &'static str) {
        t.check_vector_operand(api, name);
        let size = t.get_size();
        check!(count <= size, api, "calCount = {count} exceeds {name}'s {size} elements");
    }
    check(api, count, dst.0, dst.1);
    let (d0, d1) = dst.0.byte_range(count);
    for &(s, name) in &srcs {
        check(api, count, s, name);
        let (s0, s1) = s.byte_range(count);
        let other_arena = !std::rc::Rc::ptr_eq(s.ub(), dst.0.ub());
        let dst_name = dst.1;
        check!(
            other_arena || s0 == d0 || d1 <= s0 || s1 <= d0,
            api,
            "{dst_name} (address {d0:#x}) and {name} (address {s0:#x}) partially overlap over {count} elements; only a complete overlap is allowed"
        );
    }
    if count > 0 {
        let reads: [(u64, usize, usize); N] = core::array::from_fn(|i| {
            let (a, b) = srcs[i].0.byte_range(count);
            (srcs[i].0.tag, a, b)
        });
        if K::WRITES_DST {
            crate::observe::events::on_vector_count_of::<T>(
                api,
                count.div_ceil(T::PAR),
                &reads,
                &[(dst.0.tag, d0, d1)],
            );
        } else {
            crate::observe::events::on_vector_count_of::<T>(
                api,
                count.div_ceil(T::PAR),
                &[(dst.0.tag, d0, d1)],
                &[],
            );
        }
        // SAFETY: every operand holds at least `count` elements; dst equals or is disjoint
        // from each source (checked above).
        unsafe { kernel.run(0, dst.0.ptr(), core::array::from_fn(|i| srcs[i].0.ptr() as *const T), count) };
    }
    restore_mask_defaults();
}

/// What AscendC's count forms leave behind: normal mask mode and a full mask register
/// (`SetMaskNorm(); ResetMask();`).
#[inline]
pub(crate) fn restore_mask_defaults() {
    with_core(|c| {
        c.mask_mode.set(MaskMode::Normal);
        c.mask.set([u64::MAX, u64::MAX]);
    })
}

/// Runs a high-dimensional instruction whose result is not a `T` operand (e.g. `Compare`,
/// which writes bits): checks every source once, then walks the plan. The kernel's `dst`
/// pointer is the first source's and must not be written; sources may overlap each other.
#[track_caller]
pub(crate) fn apply_sources<T: Element, const N: usize, K: Lanes<T, N>>(
    api: &'static str,
    plan: &Plan,
    srcs: [&Operand<'_, T>; N],
    kernel: &mut K,
) {
    const { assert!(N >= 1 && T::PAR <= 128) };
    let mut reads = [(0u64, 0usize, 0usize); N];
    for (i, s) in srcs.into_iter().enumerate() {
        let e = check_operand(api, s, plan);
        let (a, b) = s.t.byte_range(e);
        reads[i] = (s.t.tag, a, b);
    }
    crate::observe::events::on_vector_of::<T>(api, plan.repeats, &reads, &[]);
    walk(plan, srcs[0], srcs, kernel);
}

/// What a two-type instruction (e.g. `Cast`) does with a run of `n` contiguous enabled lanes:
/// reads `n` elements of `S` from each of its `N` sources, writes `n` elements of `D`.
pub(crate) trait MixedLanes<D: Element, S: Element, const N: usize = 1> {
    /// Processes `n` lanes.
    ///
    /// # Safety
    /// `dst` is valid for `n` writes (and reads) and each `src[i]` for `n` reads; either
    /// `dst` and a source are the same address with `D::SIZE == S::SIZE`, or they do not
    /// overlap. Implementations read lane `i` of every source before writing lane `i`.
    unsafe fn run(&mut self, dst: *mut D, src: [*const S; N], n: usize);

    /// Whether `dst` may start at a source's address with a narrower type (`Cast` from a wider
    /// type in place; its page warns only about widening in place): each repeat reads all its
    /// source lanes before it writes, so the result is exact as long as no repeat writes bytes
    /// a later repeat reads (checked).
    const NARROW_IN_PLACE: bool = false;
}

/// Fails unless the in-place narrowing of `src` into `dst` (same start address, `dst`'s type
/// narrower) writes no byte that a later repeat of `src` reads: the blocks each repeat of `dst`
/// touches against the last repeat of `src` touching them.
#[track_caller]
fn check_narrow_in_place<D: Element, S: Element>(
    api: &'static str,
    plan: &Plan,
    dst: &Operand<'_, D>,
    src: &Operand<'_, S>,
) {
    let mut last_read = std::collections::HashMap::new();
    for r in 0..plan.repeats {
        let m = plan.mask_of(r);
        for b in (0..BLOCKS_PER_REPEAT).filter(|&b| block_bits::<S>(m, b) != 0) {
            last_read.insert(r * src.rep + b * src.blk, r);
        }
    }
    for r in 0..plan.repeats {
        let m = plan.mask_of(r);
        for b in (0..BLOCKS_PER_REPEAT).filter(|&b| block_bits::<D>(m, b) != 0) {
            let k = r * dst.rep + b * dst.blk;
            if let Some(&later) = last_read.get(&k).filter(|&&later| later > r) {
                fail(
                    api,
                    format!(
                        "{} (address {:#x}) narrows {} in place, but repeat {r} writes block {k} of it, which repeat \
                         {later} reads afterwards (the hardware may read it before or after the write); give dst a \
                         repeat stride that stays behind src's",
                        dst.name,
                        dst.t.get_phy_addr(),
                        src.name
                    ),
                );
            }
        }
    }
}

/// The 32-byte blocks (absolute block numbers) an operand touches under `plan`, sorted.
pub(crate) fn touched_blocks<T: Element>(op: &Operand<'_, T>, plan: &Plan) -> Vec<usize> {
    let mut v = Vec::new();
    for r in 0..plan.repeats {
        let m = plan.mask_of(r);
        for b in 0..BLOCKS_PER_REPEAT {
            if block_bits::<T>(m, b) != 0 {
                v.push(op.t.get_phy_addr() / 32 + r * op.rep + b * op.blk);
            }
        }
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// Runs a high-dimensional instruction whose destination and `N` sources have different
/// element types, walking lanes with per-operand element sizes.
///
/// The plan counts lanes of `W`, the wider of `D` and `S` (the vendor's rule for `Cast`,
/// `Axpy` and `MulAddDst` with `half` sources into `float`: the mask and the repeat follow the
/// larger type). Lane `j` of repeat `r` of an operand is its own element
/// `(r * repStride + (j / EPB) * blkStride) * EPB + j % EPB`, with the operand's own `EPB`, so a
/// repeat of the narrower operand spans fewer blocks. Every check is done once; a contiguous
/// full-mask call is one kernel run. `dst` may coincide exactly with a source only when both
/// have the same element size and layout; any other overlap with `dst` is an error (sources
/// may overlap each other).
#[track_caller]
pub(crate) fn apply_mixed<W: Element, D: Element, S: Element, const N: usize, K: MixedLanes<D, S, N>>(
    api: &'static str,
    plan: &Plan,
    dst: &Operand<'_, D>,
    srcs: [&Operand<'_, S>; N],
    kernel: &mut K,
) {
    const {
        assert!(W::PAR <= 128);
        assert!(W::SIZE >= D::SIZE && W::SIZE >= S::SIZE && (W::SIZE == D::SIZE || W::SIZE == S::SIZE));
    };
    let ed = check_operand(api, dst, plan);
    let same: [bool; N] = core::array::from_fn(|i| {
        let src = srcs[i];
        D::SIZE == S::SIZE
            && dst.t.get_phy_addr() == src.t.get_phy_addr()
            && dst.blk == src.blk
            && dst.rep == src.rep
    });
    let narrow: [bool; N] = core::array::from_fn(|i| {
        K::NARROW_IN_PLACE && D::SIZE < S::SIZE && dst.t.get_phy_addr() == srcs[i].t.get_phy_addr()
    });
    let exts: [usize; N] = core::array::from_fn(|i| check_operand(api, srcs[i], plan));
    for (((src, same), narrow), es) in srcs.into_iter().zip(same).zip(narrow).zip(exts) {
        if same {
            continue;
        }
        if narrow {
            check_narrow_in_place(api, plan, dst, src);
            continue;
        }
        let (a0, a1) = dst.t.byte_range(ed);
        let (b0, b1) = src.t.byte_range(es);
        if a1 > b0 && b1 > a0 {
            let (va, vb) = (touched_blocks(dst, plan), touched_blocks(src, plan));
            let (mut i, mut j) = (0, 0);
            while i < va.len() && j < vb.len() {
                match va[i].cmp(&vb[j]) {
                    std::cmp::Ordering::Less => i += 1,
                    std::cmp::Ordering::Greater => j += 1,
                    std::cmp::Ordering::Equal => fail(
                        api,
                        format!(
                            "{} (address {:#x}) and {} (address {:#x}) overlap; only a complete overlap of same-size types is allowed",
                            dst.name,
                            dst.t.get_phy_addr(),
                            src.name,
                            src.t.get_phy_addr()
                        ),
                    ),
                }
            }
        }
    }
    let reads: [UbSpan; N] = core::array::from_fn(|i| {
        let (a, b) = srcs[i].t.byte_range(exts[i]);
        (srcs[i].t.tag, a, b)
    });
    let (a, b) = dst.t.byte_range(ed);
    crate::observe::events::on_vector_of::<D>(api, plan.repeats, &reads, &[(dst.t.tag, a, b)]);
    let dp = dst.t.ptr();
    let sp: [*const S; N] = core::array::from_fn(|i| srcs[i].t.ptr() as *const S);
    let contiguous_blocks = dst.blk == 1 && srcs.iter().all(|s| s.blk == 1);
    let blocks = |size: usize| BLOCKS_PER_REPEAT * size / W::SIZE;
    let contiguous_repeats =
        contiguous_blocks && dst.rep == blocks(D::SIZE) && srcs.iter().all(|s| s.rep == blocks(S::SIZE));
    if narrow.iter().any(|&n| n) {
        // In place, narrowing: each repeat's source lanes are read into a snapshot before the
        // repeat writes (the kernels take disjoint buffers).
        let mut snap = [[S::ZERO; 128]; N];
        for r in 0..plan.repeats {
            let m = plan.mask_of(r);
            for_each_run::<W>(m, |j, len| {
                for i in 0..N {
                    // SAFETY: lanes j..j+len of repeat r are enabled, hence bounds-checked,
                    // and contiguous inside one block of the source; j + len <= W::PAR <= 128.
                    unsafe {
                        std::ptr::copy_nonoverlapping(
                            sp[i].add(srcs[i].offset(r, j)),
                            snap[i].as_mut_ptr().add(j),
                            len,
                        )
                    };
                }
            });
            for_each_run::<W>(m, |j, len| {
                let at: [*const S; N] = core::array::from_fn(|i| snap[i][j..].as_ptr());
                // SAFETY: lanes j..j+len of dst are enabled, hence bounds-checked, and contiguous
                // in one block; the snapshot is a separate buffer holding lanes j..j+len.
                unsafe { kernel.run(dp.add(dst.offset(r, j)), at, len) };
            });
        }
        return;
    }
    let full = prefix_bits(W::PAR);
    let prefix = |m: [u64; 2]| {
        let n = (m[0].count_ones() + m[1].count_ones()) as usize;
        (m == prefix_bits(n)).then_some(n)
    };
    if contiguous_repeats && (plan.repeats == 1 || plan.bits == full) {
        if let Some(tail) = prefix(plan.last) {
            // SAFETY: the operands were bounds-checked for this plan, whose lanes are exactly
            // elements 0..n of each operand; dst equals or does not overlap each source.
            unsafe { kernel.run(dp, sp, (plan.repeats - 1) * W::PAR + tail) };
            return;
        }
    }
    // In place with a block stride of 0 (same size and layout): the blocks of one repeat
    // alias, and the hardware reads a repeat before writing it, so such a source block is read
    // from a per-repeat snapshot.
    let aliased: [bool; N] = core::array::from_fn(|i| same[i] && dst.blk == 0);
    let any_aliased = aliased.iter().any(|&a| a);
    let mut snap = [[S::ZERO; 32]; N];
    for r in 0..plan.repeats {
        let m = plan.mask_of(r);
        for i in 0..N {
            if aliased[i] {
                // SAFETY: with a block stride of 0 the repeat reads elements offset(r, 0) ..
                // offset(r, 0) + EPB of the source at most (bounds-checked); EPB <= 32.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        sp[i].add(srcs[i].offset(r, 0)),
                        snap[i].as_mut_ptr(),
                        S::EPB.min(32),
                    )
                };
            }
        }
        let src_at = |j: usize| -> [*const S; N] {
            core::array::from_fn(|i| {
                if aliased[i] {
                    // SAFETY: j % EPB < EPB, inside the snapshot.
                    unsafe { snap[i].as_ptr().add(j % S::EPB) }
                } else {
                    // SAFETY: lane j of repeat r is enabled, hence bounds-checked.
                    unsafe { sp[i].add(srcs[i].offset(r, j)) }
                }
            })
        };
        if contiguous_blocks && !any_aliased {
            if let Some(n) = prefix(m) {
                // SAFETY: lanes 0..n of repeat r were bounds-checked for every operand and are
                // contiguous in each.
                unsafe { kernel.run(dp.add(dst.offset(r, 0)), src_at(0), n) };
                continue;
            }
        }
        // A run of `W` lanes never crosses a block of any operand: the narrower operands'
        // blocks hold a whole multiple of `W`'s lanes.
        for_each_run::<W>(m, |j, len| {
            // SAFETY: lanes j..j+len of repeat r are enabled, hence bounds-checked, and lie
            // inside one block of each operand (or of the snapshot).
            unsafe { kernel.run(dp.add(dst.offset(r, j)), src_at(j), len) };
        });
    }
}

/// Runs a two-type count-form instruction over elements `0..count` of `dst` and every
/// source, contiguously, and leaves the mask state as every count form does (see
/// [`apply_count`]).
///
/// # Panics
/// Panics if an operand is not a 32-byte aligned UB tensor, holds fewer than `count`
/// elements, or a source overlaps `dst` other than completely with the same element size.
#[track_caller]
pub(crate) fn apply_count_mixed<D: Element, S: Element, const N: usize, K: MixedLanes<D, S, N>>(
    api: &'static str,
    count: usize,
    dst: &LocalTensor<D>,
    srcs: [(&LocalTensor<S>, &'static str); N],
    kernel: &mut K,
) {
    dst.check_vector_operand(api, "dst");
    ensure(count <= dst.get_size(), api, || {
        format!("count = {count} exceeds dst's {} elements", dst.get_size())
    });
    let (d0, d1) = dst.byte_range(count);
    for (src, name) in srcs {
        src.check_vector_operand(api, name);
        ensure(count <= src.get_size(), api, || {
            format!("count = {count} exceeds {name}'s {} elements", src.get_size())
        });
        let (s0, s1) = src.byte_range(count);
        let narrow = K::NARROW_IN_PLACE && D::SIZE < S::SIZE && s0 == d0;
        ensure(narrow || (s0 == d0 && D::SIZE == S::SIZE) || d1 <= s0 || s1 <= d0, api, || {
            format!(
                "dst (bytes {d0:#x}..{d1:#x}) and {name} (bytes {s0:#x}..{s1:#x}) overlap; only a complete overlap of same-size types is allowed"
            )
        });
    }
    let narrow = K::NARROW_IN_PLACE && D::SIZE < S::SIZE && srcs.iter().any(|(s, _)| s.byte_range(0).0 == d0);
    if count > 0 && narrow {
        let reads: [UbSpan; N] = core::array::from_fn(|i| span_of(srcs[i].0, count * S::SIZE));
        crate::observe::events::on_vector_of::<D>(
            api,
            count.div_ceil(256 / S::SIZE.max(D::SIZE)),
            &reads,
            &[(dst.tag, d0, d1)],
        );
        // In place, narrowing: counter mode runs repeats of 256 bytes of the wider type in
        // order, each read before it is written; element `i` is written at or below where it
        // was read, so no repeat writes what a later one reads. Each repeat goes through a
        // snapshot (the kernels take disjoint buffers).
        let par = 256 / S::SIZE.max(D::SIZE);
        let mut snap = [[S::ZERO; 128]; N];
        let sp: [*const S; N] = core::array::from_fn(|i| srcs[i].0.ptr() as *const S);
        for at in (0..count).step_by(par) {
            let len = par.min(count - at);
            for i in 0..N {
                // SAFETY: elements at..at+len of each source lie within `count` (checked); the
                // snapshot holds 128 >= par elements.
                unsafe { std::ptr::copy_nonoverlapping(sp[i].add(at), snap[i].as_mut_ptr(), len) };
            }
            // SAFETY: elements at..at+len of dst lie within `count`; the snapshot is separate.
            unsafe { kernel.run(dst.ptr().add(at), core::array::from_fn(|i| snap[i].as_ptr()), len) };
        }
    } else if count > 0 {
        let reads: [UbSpan; N] = core::array::from_fn(|i| span_of(srcs[i].0, count * S::SIZE));
        crate::observe::events::on_vector_of::<D>(
            api,
            count.div_ceil(256 / S::SIZE.max(D::SIZE)),
            &reads,
            &[(dst.tag, d0, d1)],
        );
        // SAFETY: every operand holds at least `count` elements; dst equals a source (same
        // size) or is disjoint from it (checked above).
        unsafe { kernel.run(dst.ptr(), core::array::from_fn(|i| srcs[i].0.ptr() as *const S), count) };
    }
    restore_mask_defaults();
}

/// The sanitizer's view of the first `bytes` bytes of `t` (clamped to the tensor): its tag
/// and UB byte span. For operands an instruction reads or writes outside the engine's walk
/// (a bit mask, a scalar result, a work area, a gather's table): pass the spans to
/// [`crate::events::on_vector`] once per call, a conservative span per operand.
#[inline]
pub(crate) fn span_of<T: Element>(t: &LocalTensor<T>, bytes: usize) -> UbSpan {
    let (a, b) = t.byte_range(t.get_size());
    (t.tag, a, b.min(a.saturating_add(bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::f16;

    /// `mask_span` against its definition: the highest element offset of any enabled lane
    /// (lane `j` of block `j / EPB` sits at `(j / EPB) * blk * EPB + j % EPB`), over random
    /// masks, block strides 0 to 300 and element sizes 1, 2, 4 and 8.
    fn check<T: Element>() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for i in 0..20_000 {
            let sparse = |w: u64, k: u64| if k % 3 == 0 { w & (w >> 7) & (w >> 13) } else { w };
            let m = [sparse(next(), i), sparse(next(), i / 2)];
            let blk = (next() % 301) as usize;
            let lanes = (BLOCKS_PER_REPEAT * T::EPB).min(128);
            let want = (0..lanes)
                .filter(|&j| m[j / 64] >> (j % 64) & 1 == 1)
                .map(|j| (j / T::EPB) * blk * T::EPB + j % T::EPB + 1)
                .max()
                .unwrap_or(0);
            assert_eq!(mask_span::<T>(blk, m), Some(want), "mask {m:x?}, blkStride {blk}, {} bytes", T::SIZE);
        }
        assert_eq!(mask_span::<T>(usize::MAX, [u64::MAX; 2]), None, "overflow is reported");
    }

    #[test]
    fn mask_span_is_the_highest_enabled_element() {
        check::<u8>();
        check::<f16>();
        check::<f32>();
        check::<u64>();
    }
}
