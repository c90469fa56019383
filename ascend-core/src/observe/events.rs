//! The one instruction-event stream: what the instructions, the copies, the queues and the
//! synchronisation call to report what they do, fanned out to the consumers — the
//! synchronisation sanitizer ([`crate::sanitizer`]) and the profiler ([`crate::profiler`]).
//!
//! Each hook takes the sanitizer's arguments (and, where the profiler needs more, such as a
//! vector instruction's element type and repeats, a variant that takes them too). Hooks that
//! only the sanitizer reads are re-exported as they are.
//!
//! Every hook first loads one thread-local word ([`sanitizer::hook_word`]): the sanitizer's
//! state pointer with the profiler's flag as a tag bit ([`PROFILING`]). With both consumers
//! off the word is 0 and the hook returns after that one load and compare — what the
//! sanitizer's own check cost before the profiler existed; the profiler being off adds no
//! load, no call and no branch that a core without the profiler would not make. The
//! recording functions are out of line and cold.

use std::panic::Location;
use std::sync::Arc;

use crate::element::{DType, Element};
use crate::memory::tensor::GmRegion;
use crate::observe::profiler::{self, CopyDir, Op, Pipe};
use crate::observe::sanitizer::{
    self, CopyShape, GmRows, QuePipes, QueSan, SanSide, Span, UbSpan, PROFILING,
};
use crate::position::TPosition;
use crate::sync::event::{pipe_t, HardEventKind};

pub(crate) use crate::observe::sanitizer::{
    on_atomic_mode, on_by_pass_gm, on_cross_acquire, on_cross_release, on_data_sync_barrier, on_dcci,
    on_fill, on_init_queue, on_init_tbuf, on_pipe_release, on_pool_reset,
};

/// Whether a consumer is on for this thread's core (so that an instruction builds the operand
/// lists of a hook only when one will read them).
#[inline]
pub(crate) fn is_on() -> bool {
    sanitizer::hook_word() != 0
}

/// The repeats of an instruction that touches `reads` and `writes`: its widest span in
/// 256-byte repeats (at least 1).
fn repeats_of(reads: &[UbSpan], writes: &[UbSpan]) -> u64 {
    let widest = reads.iter().chain(writes).map(|&(_, a, b)| b.saturating_sub(a)).max().unwrap_or(0);
    (widest as u64).div_ceil(256).max(1)
}

fn span32(s: Option<&UbSpan>) -> (u32, u32) {
    s.map_or((0, 0), |&(_, a, b)| (a as u32, b as u32))
}

#[inline(never)]
#[cold]
fn record_vector(
    api: &'static str,
    loc: &'static Location<'static>,
    dtype: Option<DType>,
    repeats: u64,
    mask: u8,
    reads: &[UbSpan],
    writes: &[UbSpan],
) {
    let repeats = if repeats == 0 { repeats_of(reads, writes) } else { repeats };
    // Two sources: the UB bank groups their first blocks fall in (contiguous blocks assumed).
    let beats = match reads {
        [a, b, ..] if a.0 != 0 || b.0 != 0 || a.1 != b.1 => {
            profiler::cost::read_beats(a.1 as u64, b.1 as u64, profiler::cost::ASCEND910B.ub_bank_groups)
        }
        _ => 1,
    };
    profiler::push(
        Op::Vector { dtype, repeats, beats, mask },
        api,
        loc,
        span32(reads.first()),
        span32(writes.first()),
    );
}

/// A vector instruction (pipe V) reading `reads` and writing `writes`; the profiler takes
/// its repeats from its widest operand and its element type as unknown.
#[track_caller]
#[inline(always)]
pub(crate) fn on_vector(api: &'static str, reads: &[UbSpan], writes: &[UbSpan]) {
    vector_event(api, None, 0, 0, reads, writes);
}

/// [`on_vector`] of an instruction on elements of `T` running `repeats` repeats.
#[track_caller]
#[inline(always)]
pub(crate) fn on_vector_of<T: Element>(
    api: &'static str,
    repeats: usize,
    reads: &[UbSpan],
    writes: &[UbSpan],
) {
    vector_event(api, Some(T::DTYPE), repeats.max(1) as u64, 0, reads, writes);
}

/// [`on_vector_of`] of a count form (`Add(dst, a, b, count)`), which sets the mask register
/// itself: `SetMaskCount`, `SetVectorMask`, then after the instruction `ResetMask`,
/// `SetMaskNorm` (`docs/zh/guide/算子实践参考/SIMD算子性能优化/矢量计算/基于全局掩码复用的计算性能优化.md`).
#[track_caller]
#[inline(always)]
pub(crate) fn on_vector_count_of<T: Element>(
    api: &'static str,
    repeats: usize,
    reads: &[UbSpan],
    writes: &[UbSpan],
) {
    vector_event(api, Some(T::DTYPE), repeats.max(1) as u64, 4, reads, writes);
}

/// The one body of the vector hooks: the sanitizer's check, then the profiler's record with
/// the element type, repeats and the mask-register calls the form makes itself.
#[track_caller]
#[inline(always)]
fn vector_event(
    api: &'static str,
    dtype: Option<DType>,
    repeats: u64,
    mask_calls: u8,
    reads: &[UbSpan],
    writes: &[UbSpan],
) {
    let w = sanitizer::hook_word();
    if w == 0 {
        return;
    }
    sanitizer::on_vector(api, reads, writes);
    if w & PROFILING != 0 {
        record_vector(api, Location::caller(), dtype, repeats, mask_calls, reads, writes);
    }
}

/// A mask-register call (`SetMaskCount`, `SetMaskNorm`, `SetVectorMask`, `ResetMask`): a
/// scalar operation for the profiler; the sanitizer does not read it.
#[track_caller]
#[inline]
pub(crate) fn on_mask(api: &'static str) {
    if profiler::is_on() {
        profiler::push(Op::Mask, api, Location::caller(), (0, 0), (0, 0));
    }
}

/// See [`sanitizer::fuse_vector`].
#[track_caller]
#[inline]
pub(crate) fn fuse_vector(api: &'static str) -> sanitizer::FusedVector {
    sanitizer::fuse_vector(api)
}

/// A copy: MTE2 (GM→UB or GM→L1), MTE3 (UB→GM) or V (UB→UB).
#[track_caller]
#[inline(always)]
pub(crate) fn on_copy(api: &'static str, dst: SanSide, src: SanSide, shape: &CopyShape) {
    let w = sanitizer::hook_word();
    if w == 0 {
        return;
    }
    sanitizer::on_copy(api, dst, src, shape);
    if w & PROFILING != 0 {
        record_copy(api, Location::caller(), dst, src, shape);
    }
}

/// A `DataCopyPad` UB → GM: the race checks see the `blockLen` bytes each row really writes
/// (see [`sanitizer::on_copy_pad_to_gm`]); the profiler records it as any copy.
#[track_caller]
#[inline]
pub(crate) fn on_copy_pad_to_gm(
    api: &'static str,
    region: usize,
    off: usize,
    src: SanSide,
    shape: &CopyShape,
) {
    let w = sanitizer::hook_word();
    if w == 0 {
        return;
    }
    sanitizer::on_copy_pad_to_gm(api, region, off, src, shape);
    if w & PROFILING != 0 {
        record_copy(api, Location::caller(), SanSide::Gm(region, off), src, shape);
    }
}

#[inline(never)]
#[cold]
fn record_copy(
    api: &'static str,
    loc: &'static Location<'static>,
    dst: SanSide,
    src: SanSide,
    shape: &CopyShape,
) {
    let (dir, gm, ub) = match (dst, src) {
        (SanSide::Ub(d, _), SanSide::Gm(r, o)) => (CopyDir::GmToUb, r + o, (0, d)),
        (SanSide::L1(_, _), SanSide::Gm(r, o)) => (CopyDir::GmToL1, r + o, (0, 0)),
        (SanSide::Gm(r, o), SanSide::Ub(s, _)) => (CopyDir::UbToGm, r + o, (s, 0)),
        (SanSide::Ub(d, _), SanSide::Ub(s, _)) => (CopyDir::UbToUb, 0, (s, d)),
        _ => return,
    };
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let op = Op::Copy { dir, rows: count(shape.rows), row: count(shape.row), gm: gm as u64 };
    let span = |a: usize, n: usize| if a == 0 && n == 0 { (0, 0) } else { (a as u32, (a + n) as u32) };
    let ub_read =
        if matches!(dir, CopyDir::UbToGm | CopyDir::UbToUb) { span(ub.0, shape.s_span) } else { (0, 0) };
    let ub_write =
        if matches!(dir, CopyDir::GmToUb | CopyDir::UbToUb) { span(ub.1, shape.d_span) } else { (0, 0) };
    profiler::push(op, api, loc, ub_read, ub_write);
}

/// A cube instruction (see [`sanitizer::on_cube`]); the profiler records a move of the bytes
/// it writes (an `Mmad` reports its shape through [`on_mmad`] instead).
#[track_caller]
#[inline]
pub(crate) fn on_cube(
    api: &'static str,
    pipe: pipe_t,
    gm_in: &[GmRows],
    reads: &[Span],
    writes: &[Span],
    gm_out: &[GmRows],
    settles: bool,
) {
    let w = sanitizer::hook_word();
    if w == 0 {
        return;
    }
    sanitizer::on_cube(api, pipe, gm_in, reads, writes, gm_out, settles);
    if w & PROFILING != 0 && pipe != pipe_t::PIPE_M {
        let local: usize = writes.iter().map(|s| s.e - s.s).sum();
        let out: usize = gm_out.iter().map(|g| g.rows * g.row).sum();
        let bytes = (local + out) as u64;
        let gm = gm_in.first().or(gm_out.first()).map_or(0, |g| (g.region + g.off) as u64);
        let p = Pipe::of(pipe).unwrap_or(Pipe::Mte1);
        profiler::push(Op::CubeMove { pipe: p, bytes, gm }, api, Location::caller(), (0, 0), (0, 0));
    }
}

/// `Mmad` of `m × k` by `k × n` with A of `T` (the profiler's cost; the sanitizer hears of it
/// through [`on_cube`]).
#[track_caller]
#[inline]
pub(crate) fn on_mmad<T: Element>(m: usize, n: usize, k: usize) {
    if profiler::is_on() {
        let op = Op::Mmad { m: m as u32, n: n as u32, k: k as u32, dtype: T::DTYPE };
        profiler::push(op, "Mmad", Location::caller(), (0, 0), (0, 0));
        profiler::mark_cube();
    }
}

/// A scalar access (pipe S) of `[s, e)` of a LocalTensor.
#[track_caller]
#[inline]
pub(crate) fn on_scalar_ub(api: &'static str, tag: u64, s: usize, e: usize, write: bool) {
    let w = sanitizer::hook_word();
    if w == 0 {
        return;
    }
    sanitizer::on_scalar_ub(api, tag, s, e, write);
    if w & PROFILING != 0 {
        let span = (s as u32, e as u32);
        let (r, w) = if write { ((0, 0), span) } else { (span, (0, 0)) };
        profiler::push(Op::Scalar { gm: false, addr: 0, bytes: 0 }, api, Location::caller(), r, w);
    }
}

/// A scalar access (pipe S) of `[s, e)` of a GM region (see [`sanitizer::on_scalar_gm`]).
#[track_caller]
#[inline]
pub(crate) fn on_scalar_gm<T: bytemuck::Pod>(
    api: &'static str,
    region: usize,
    s: usize,
    e: usize,
    write: bool,
    found: Option<(&T, &Arc<GmRegion>)>,
) {
    let w = sanitizer::hook_word();
    if w == 0 {
        return;
    }
    sanitizer::on_scalar_gm(api, region, s, e, write, found);
    if w & PROFILING != 0 {
        let op = Op::Scalar { gm: true, addr: (region + s) as u64, bytes: (e - s) as u32 };
        profiler::push(op, api, Location::caller(), (0, 0), (0, 0));
    }
}

/// The key of hardware event `e`'s flag `id`.
fn flag_key(e: HardEventKind, id: i32) -> u64 {
    u64::from(e.index) << 32 | id as u32 as u64
}

/// `SetFlag`.
#[track_caller]
#[inline]
pub(crate) fn on_set_flag(e: HardEventKind, id: i32) {
    flag_event(e, id, false);
}

/// `WaitFlag`.
#[track_caller]
#[inline]
pub(crate) fn on_wait_flag(e: HardEventKind, id: i32) {
    flag_event(e, id, true);
}

/// The one body of the flag hooks: `WaitFlag` when `wait`, else `SetFlag`.
#[track_caller]
#[inline(always)]
fn flag_event(e: HardEventKind, id: i32, wait: bool) {
    let w = sanitizer::hook_word();
    if w == 0 {
        return;
    }
    if wait {
        sanitizer::on_wait_flag(e, id);
    } else {
        sanitizer::on_set_flag(e, id);
    }
    if w & PROFILING != 0 {
        let (src, dst) = (Pipe::of(e.src).unwrap_or(Pipe::Scalar), Pipe::of(e.dst).unwrap_or(Pipe::Scalar));
        let key = flag_key(e, id);
        let op = if wait { Op::WaitFlag { src, dst, key } } else { Op::SetFlag { src, dst, key } };
        profiler::push(op, e.name, Location::caller(), (0, 0), (0, 0));
    }
}

/// `PipeBarrier<p>`.
#[track_caller]
#[inline]
pub(crate) fn on_pipe_barrier(p: pipe_t) {
    let w = sanitizer::hook_word();
    if w == 0 {
        return;
    }
    sanitizer::on_pipe_barrier(p);
    if w & PROFILING != 0 {
        profiler::push(Op::Barrier(Pipe::of(p)), "PipeBarrier", Location::caller(), (0, 0), (0, 0));
    }
}

/// `SyncAll`.
#[track_caller]
#[inline]
pub(crate) fn on_sync_all() {
    let w = sanitizer::hook_word();
    if w == 0 {
        return;
    }
    sanitizer::on_sync_all();
    if w & PROFILING != 0 {
        profiler::push(Op::SyncAll, "SyncAll", Location::caller(), (0, 0), (0, 0));
    }
}

/// `CrossCoreSetFlag` of `flag` after `pipe`, this core's set in the round `key` (mode, core
/// group, flag id and round number) of `members` cores.
#[track_caller]
#[inline]
pub(crate) fn on_cross_core_set(pipe: pipe_t, flag: u16, key: usize, own: bool, members: usize) {
    let w = sanitizer::hook_word();
    if w == 0 {
        return;
    }
    sanitizer::on_cross_core_set(pipe, flag, key, own);
    if w & PROFILING != 0 {
        let pipe = Pipe::of(pipe).unwrap_or(Pipe::Scalar);
        let op = Op::CrossSet { pipe, flag, round: key as u64, members: members as u32 };
        profiler::push(op, "CrossCoreSetFlag", Location::caller(), (0, 0), (0, 0));
    }
}

/// `CrossCoreWaitFlag` of `flag`, which took the round `key` off the core's counter.
#[track_caller]
#[inline]
pub(crate) fn on_cross_core_wait(flag: u16, key: usize, own: bool) {
    let w = sanitizer::hook_word();
    if w == 0 {
        return;
    }
    sanitizer::on_cross_core_wait(flag, key, own);
    if w & PROFILING != 0 {
        let op = Op::CrossWait { flag, round: key as u64 };
        profiler::push(op, "CrossCoreWaitFlag", Location::caller(), (0, 0), (0, 0));
    }
}

/// The key of a queue buffer's enque (`free == false`) or free event.
fn que_key(base: usize, index: usize, free: bool) -> u64 {
    1 << 63 | (base as u64) << 9 | (index as u64) << 1 | u64::from(free)
}

#[inline(never)]
#[cold]
#[track_caller]
fn record_que(api: &'static str, set: bool, pipes: (usize, usize), key: u64) {
    let (src, dst) = (Pipe::from_index(pipes.0), Pipe::from_index(pipes.1));
    let op = if set { Op::SetFlag { src, dst, key } } else { Op::WaitFlag { src, dst, key } };
    profiler::push(op, api, Location::caller(), (0, 0), (0, 0));
}

/// `AllocTensor` of buffer `index`: waits for the buffer's free event.
///
/// The four queue hooks are inlined into the queue's methods: `q` is a constant there (see
/// [`sanitizer::que_pipes`]), so the hook's body folds it, and a core with the sanitizer off
/// pays a load and a branch instead of a call (the calls were a quarter of the sanitizer's
/// instructions at 128-element tiles).
#[track_caller]
#[inline(always)]
pub(crate) fn on_alloc(
    san: QueSan,
    base: usize,
    len: usize,
    index: usize,
    src: TPosition,
    q: Option<QuePipes>,
) -> u64 {
    let w = sanitizer::hook_word();
    if w == 0 {
        // (The tag the sanitizer gives when it is off.)
        return 0;
    }
    let tag = sanitizer::on_alloc(san, base, len, index, src, q);
    if let (true, Some(q)) = (w & PROFILING != 0, q) {
        record_que("AllocTensor", false, q.rows().1, que_key(base, index, true));
    }
    tag
}

/// `EnQue` of buffer `index`: sets the buffer's enque event.
#[track_caller]
#[inline(always)]
pub(crate) fn on_enque(san: QueSan, base: usize, len: usize, index: usize, q: Option<QuePipes>) {
    let w = sanitizer::hook_word();
    if w == 0 {
        return;
    }
    sanitizer::on_enque(san, base, len, index, q);
    if let (true, Some(q)) = (w & PROFILING != 0, q) {
        record_que("EnQue", true, q.rows().0, que_key(base, index, false));
    }
}

/// `DeQue` of buffer `index`: waits for the enque event.
#[track_caller]
#[inline(always)]
pub(crate) fn on_deque(san: QueSan, base: usize, len: usize, index: usize, q: Option<QuePipes>) -> u64 {
    let w = sanitizer::hook_word();
    if w == 0 {
        // (The tag the sanitizer gives when it is off.)
        return 0;
    }
    let tag = sanitizer::on_deque(san, base, len, index, q);
    if let (true, Some(q)) = (w & PROFILING != 0, q) {
        record_que("DeQue", false, q.rows().0, que_key(base, index, false));
    }
    tag
}

/// `FreeTensor` of buffer `index`: sets the free event.
#[track_caller]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn on_free(
    api: &'static str,
    san: QueSan,
    base: usize,
    len: usize,
    index: usize,
    tag: u64,
    q: Option<QuePipes>,
) {
    let w = sanitizer::hook_word();
    if w == 0 {
        return;
    }
    sanitizer::on_free(api, san, base, len, index, tag, q);
    if let (true, Some(q)) = (w & PROFILING != 0, q) {
        record_que("FreeTensor", true, q.rows().1, que_key(base, index, true));
    }
}
