//! The synchronisation sanitizer: finds the cross-pipe and cross-core orderings a kernel
//! forgot, which the hardware punishes with half-copied data while every sequential emulator
//! (this one included) computes the right answer.
//!
//! **Model.** Every operation runs on a pipe: `DataCopy` GM→UB on MTE2, UB→GM on MTE3, UB→UB
//! and every vector instruction on V, `GetValue`/`SetValue` on S. Within a pipe, program order
//! holds. Across pipes, only events order instructions: `set_flag::<HardEvent::X_Y>` /
//! `wait_flag`, the events the queues set and wait (see [`que_events`]), `PipeBarrier<PIPE_ALL>`
//! and `SyncAll`. Each pipe keeps a vector clock; every Unified Buffer access (a byte range per
//! operand and call: the span the instruction's addressing reaches) is checked against the
//! last write and the last read of every other pipe on those bytes: read-after-write,
//! write-after-read and write-after-write without a happens-before ordering are errors naming
//! both instructions, their lines and pipes, the buffer and bytes, and the event that fixes
//! it.
//!
//! Global memory is checked across cores: each core logs its accesses (DMA writes widened to
//! the 32-byte blocks they really write) with its `SyncAll` epoch; after the launch, two cores
//! touching the same bytes in one epoch, one of them writing and not both atomically, is an
//! error.
//!
//! Lifetimes: a tensor handle of a queue buffer used after `FreeTensor` (or after the buffer
//! was allocated again), and a kernel that ends with buffers allocated or queued or with a
//! flag set and never waited for, are errors.
//!
//! **Where it runs.** In every launch of the runtime (`Launch::sanitize(false)` turns it off)
//! through [`LaunchSanitizer`]. Outside a launch (unit tests calling instructions on the
//! thread's default core) it is off: those tests stage data with host conveniences and run
//! instructions back to back, with no pipes in the picture. [`LaunchSanitizer::run_core`] turns
//! it on for any closure.

mod gm;
mod shadow;

use std::cell::RefCell;
use std::panic::Location;
use std::sync::{Arc, Mutex};

use crate::error::{fail_at, Fault};
use crate::position::TPosition;
use crate::sync::{pipe_t, HardEventKind, HARD_EVENTS, PIPE_NUM};
use gm::GmAcc;
use shadow::{Acc, Race, Shadow};

/// Event ids tracked per hardware event (the largest `QUE_MAX_EVENT`).
const IDS: usize = 8;

type Clock = [u32; PIPE_NUM];

/// One queue buffer as the sanitizer knows it.
struct Buf {
    start: usize,
    len: usize,
    pos: TPosition,
    index: usize,
    gen: u32,
    live: bool,
    queued: bool,
    alloc_at: &'static Location<'static>,
    freed_at: Option<&'static Location<'static>>,
    /// The clock of the queue's enque event (its source pipe's clock at EnQue).
    enq: Option<Clock>,
    /// The clock of the queue's free event (its source pipe's clock at FreeTensor).
    free: Option<Clock>,
}

impl Buf {
    fn describe(&self) -> String {
        format!(
            "buffer {} of a {} queue (UB [{:#x}, {:#x}))",
            self.index,
            self.pos,
            self.start,
            self.start + self.len
        )
    }
}

/// One core's sanitizer state.
struct CoreSan {
    core: u32,
    vc: [Clock; PIPE_NUM],
    events: Vec<Option<Clock>>,
    ub: Shadow,
    bufs: Vec<Buf>,
    leaks: Vec<(String, &'static Location<'static>)>,
    gm: Vec<GmAcc>,
    epoch: u32,
}

thread_local! {
    static SAN: RefCell<Option<Box<CoreSan>>> = const { RefCell::new(None) };
}

/// Runs `f` on this core's sanitizer state, if the sanitizer is on.
#[inline]
fn with_san<R>(f: impl FnOnce(&mut CoreSan) -> R) -> Option<R> {
    SAN.with(|s| s.borrow_mut().as_mut().map(|s| f(s)))
}

/// The sanitizer of one launch: the cores' global-memory logs, checked after the launch.
#[derive(Default)]
pub struct LaunchSanitizer {
    logs: Mutex<Vec<GmAcc>>,
}

impl LaunchSanitizer {
    /// A sanitizer for one launch.
    pub fn new() -> Arc<LaunchSanitizer> {
        Arc::new(LaunchSanitizer::default())
    }

    /// Runs `f` as the current core (call it inside `run_on_core`) with the sanitizer on.
    /// When `f` returns, the core's end-of-kernel checks run (buffers still allocated or
    /// queued, flags set and never waited for) and its global-memory log joins the launch's.
    ///
    /// # Panics
    /// Panics with a [`Fault`] on the first race or misuse found.
    pub fn run_core<R>(&self, f: impl FnOnce() -> R) -> R {
        struct Clear;
        impl Drop for Clear {
            fn drop(&mut self) {
                SAN.with(|s| *s.borrow_mut() = None);
            }
        }
        let core = crate::ctx::current_block_idx();
        let state = CoreSan {
            core,
            vc: [[0; PIPE_NUM]; PIPE_NUM],
            events: vec![None; HARD_EVENTS.len() * IDS],
            ub: Shadow::default(),
            bufs: Vec::new(),
            leaks: Vec::new(),
            gm: Vec::new(),
            epoch: 0,
        };
        SAN.with(|s| *s.borrow_mut() = Some(Box::new(state)));
        let _clear = Clear;
        let r = f();
        let st = SAN.with(|s| s.borrow_mut().take()).expect("sanitizer state");
        finish_core(&st);
        self.logs.lock().unwrap_or_else(|e| e.into_inner()).extend_from_slice(&st.gm);
        r
    }

    /// The first cross-core race on global memory of the launch, once every core has run.
    pub fn check_gm(&self) -> Option<Fault> {
        let all = std::mem::take(&mut *self.logs.lock().unwrap_or_else(|e| e.into_inner()));
        let c = gm::find_conflict(all)?;
        let (a, b) = (c.first, c.second);
        let what = |x: &GmAcc| if x.write { "writes" } else { "reads" };
        let range = |x: &GmAcc| format!("bytes [{:#x}, {:#x})", x.s, x.e);
        let blocks = if (a.write && a.dma) || (b.write && b.dma) {
            let overlap = a.s.max(b.s) < a.e.min(b.e);
            if overlap {
                String::new()
            } else {
                " (the bytes differ but DataCopy writes whole 32-byte blocks, and they share one)".to_string()
            }
        } else {
            String::new()
        };
        let epoch = if a.epoch == 0 {
            "before any SyncAll".to_string()
        } else {
            format!("after the {}th SyncAll and before the next", a.epoch)
        };
        Some(Fault {
            core: b.core,
            api: b.api,
            message: format!(
                "sanitizer: cross-core race on global memory: core {} {} {} of the region at GM {:#x} with {} (at \
                 {}:{}), and core {} {} {} with {} (at {}:{}), both {epoch}{blocks}; separate them with SyncAll, give \
                 each core its own 32-byte blocks, or make both writes atomic (SetAtomicAdd)",
                a.core,
                what(&a),
                range(&a),
                a.region,
                a.api,
                a.loc.file(),
                a.loc.line(),
                b.core,
                what(&b),
                range(&b),
                b.api,
                b.loc.file(),
                b.loc.line()
            ),
            file: b.loc.file(),
            line: b.loc.line(),
        })
    }
}

/// The end-of-kernel checks of one core.
fn finish_core(st: &CoreSan) {
    let api = "Sanitizer";
    if let Some((what, loc)) = st.leaks.first() {
        fail_at(api, format!("sanitizer: the kernel ended with {what}"), loc);
    }
    if let Some(b) = st.bufs.iter().find(|b| b.live) {
        let state =
            if b.queued { "still queued (EnQue without DeQue)" } else { "still allocated (no FreeTensor)" };
        fail_at(
            api,
            format!("sanitizer: the kernel ended with {} {state}; it was allocated here", b.describe()),
            b.alloc_at,
        );
    }
    let pending = crate::ctx::with_core(|c| c.sync.borrow().pending());
    if let Some((e, id, loc)) = pending.first() {
        fail_at(
            api,
            format!(
                "sanitizer: SetFlag<{e}>({id}) is never waited for: add WaitFlag<{e}>({id}) before pipe {} uses the \
                 data (an unconsumed flag also breaks the next SetFlag of this id)",
                e.dst
            ),
            loc,
        );
    }
}

impl CoreSan {
    /// Starts an instruction on `pipe`: its clock.
    #[inline]
    fn tick(&mut self, pipe: pipe_t) -> u32 {
        let p = pipe as usize;
        self.vc[p][p] += 1;
        self.vc[p][p]
    }

    #[inline]
    fn check_tag(&self, api: &'static str, tag: u64, loc: &'static Location<'static>) {
        if tag == 0 {
            return;
        }
        let (idx, gen) = ((tag >> 32) as usize - 1, tag as u32);
        match self.bufs.get(idx) {
            Some(b) if b.gen != gen || !b.live => self.bad_tag(api, b, gen, loc),
            _ => {}
        }
    }

    #[cold]
    fn bad_tag(&self, api: &'static str, b: &Buf, gen: u32, loc: &'static Location<'static>) -> ! {
        let freed =
            b.freed_at.map_or("TPipe reset or drop".to_string(), |l| format!("{}:{}", l.file(), l.line()));
        let msg = if b.gen == gen {
            format!(
                "sanitizer: use after FreeTensor: this tensor handle points into {}, which was freed at {freed}; a \
                 handle (or a clone of it) must not be used after FreeTensor",
                b.describe()
            )
        } else {
            format!(
                "sanitizer: stale tensor handle: it points into {}, which was freed at {freed} and handed out again \
                 by AllocTensor at {}:{}; this handle (or a clone of it) belongs to the earlier allocation",
                b.describe(),
                b.alloc_at.file(),
                b.alloc_at.line()
            )
        };
        fail_at(api, msg, loc)
    }

    /// Records a UB access; fails on a race.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn ub(
        &mut self,
        api: &'static str,
        pipe: pipe_t,
        clock: u32,
        s: usize,
        e: usize,
        write: bool,
        loc: &'static Location<'static>,
    ) {
        let cur = Acc { loc, api, clock, pipe };
        let row = self.vc[pipe as usize];
        let res = self
            .ub
            .access(s as u32, e as u32, write, cur, |a| a.pipe == pipe || row[a.pipe as usize] >= a.clock);
        if let Err(r) = res {
            self.report(cur, r)
        }
    }

    #[cold]
    #[inline(never)]
    fn report(&self, cur: Acc, r: Race) -> ! {
        let buffer = self
            .bufs
            .iter()
            .find(|b| b.start <= r.s as usize && (r.e as usize) <= b.start + b.len)
            .map_or("the Unified Buffer".to_string(), Buf::describe);
        let (src, dst) = (r.prev.pipe, cur.pipe);
        let event = HardEventKind::between(src, dst).map_or(String::new(), |e| {
            let queue = match e.name {
                "MTE2_V" => ", or EnQue/DeQue the tensor through a VECIN queue",
                "V_MTE3" => ", or EnQue/DeQue the tensor through a VECOUT queue",
                "V_MTE2" | "MTE3_V" => {
                    ", or FreeTensor the buffer and AllocTensor it again through its queue"
                }
                _ => "",
            };
            format!("; add SetFlag<HardEvent::{0}> / WaitFlag<HardEvent::{0}>{queue}", e.name)
        });
        let (verb_now, verb_prev) = match r.kind {
            "read-after-write" => ("reads", "wrote"),
            "write-after-read" => ("writes", "still reads"),
            _ => ("writes", "wrote"),
        };
        fail_at(
            cur.api,
            format!(
                "sanitizer: {} race on core {}: {} on pipe {} {verb_now} UB bytes [{:#x}, {:#x}) of {buffer} that {} on \
                 pipe {} (at {}:{}) {verb_prev}, and no event orders {} after {}{event}",
                r.kind,
                self.core,
                cur.api,
                dst.short_name(),
                r.s,
                r.e,
                r.prev.api,
                src.short_name(),
                r.prev.loc.file(),
                r.prev.loc.line(),
                dst.short_name(),
                src.short_name()
            ),
            cur.loc,
        )
    }

    fn join(&mut self, dst: pipe_t, c: &Clock) {
        let row = &mut self.vc[dst as usize];
        for (a, b) in row.iter_mut().zip(c) {
            *a = (*a).max(*b);
        }
    }

    fn barrier_all(&mut self) {
        let mut all = [0; PIPE_NUM];
        for row in &self.vc {
            for (a, b) in all.iter_mut().zip(row) {
                *a = (*a).max(*b);
            }
        }
        self.vc = [all; PIPE_NUM];
    }

    #[allow(clippy::too_many_arguments)]
    fn gm(
        &mut self,
        region: usize,
        s: usize,
        e: usize,
        write: bool,
        dma: bool,
        api: &'static str,
        loc: &'static Location<'static>,
    ) {
        if s < e {
            let atomic = write && crate::ctx::with_core(|c| c.atomic.get().is_some());
            let a = GmAcc { region, s, e, write, dma, atomic, epoch: self.epoch, core: self.core, api, loc };
            gm::log(&mut self.gm, a);
        }
    }
}

/// The events a queue between `src` and `dst` sets and waits, as AscendC's `TQueBind` derives
/// them (`GetQueEvt` over the positions' memories; a `TQue<pos>` is `TQueBind<GM, VECIN>` for
/// VECIN and `TQueBind<VECOUT, GM>` for VECOUT): `(enque event, free event)`. EnQue sets the
/// first and DeQue waits for it; FreeTensor sets the second and the next AllocTensor of the
/// buffer waits for it. A `VECCALC` queue has none.
pub fn que_events(src: TPosition, dst: TPosition) -> Option<(HardEventKind, HardEventKind)> {
    use crate::sync::{Event, HardEvent as H};
    #[derive(PartialEq)]
    enum Mem {
        Gm,
        Ub,
    }
    let phy = |p: TPosition| if p == TPosition::GM { Mem::Gm } else { Mem::Ub };
    let (s, d) = if src == dst {
        match src {
            TPosition::VECIN => (Mem::Gm, Mem::Ub),
            TPosition::VECOUT => (Mem::Ub, Mem::Gm),
            _ => return None,
        }
    } else {
        (phy(src), phy(dst))
    };
    match (s, d) {
        (Mem::Gm, Mem::Ub) => Some((H::MTE2_V::EVENT, H::V_MTE2::EVENT)),
        (Mem::Ub, Mem::Gm) => Some((H::V_MTE3::EVENT, H::MTE3_V::EVENT)),
        (Mem::Ub, Mem::Ub) => Some((H::MTE2_MTE3::EVENT, H::MTE3_MTE2::EVENT)),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------
// Hooks, called by the instructions, the copies, the tensors and the queues.

/// One side of a copy, as the sanitizer sees it.
#[derive(Clone, Copy, Debug)]
#[doc(hidden)]
pub enum SanSide {
    /// UB byte address and the tensor's lifetime tag.
    Ub(usize, u64),
    /// GM region (address of its first byte) and byte offset in it.
    Gm(usize, usize),
}

/// A UB operand of a vector instruction: tag and byte span.
pub(crate) type UbSpan = (u64, usize, usize);

/// A vector instruction (pipe V) reading `reads` and writing `writes`.
#[track_caller]
#[inline]
pub(crate) fn on_vector(api: &'static str, reads: &[UbSpan], writes: &[UbSpan]) {
    let loc = Location::caller();
    with_san(|s| {
        for &(tag, _, _) in reads.iter().chain(writes) {
            s.check_tag(api, tag, loc);
        }
        let c = s.tick(pipe_t::PIPE_V);
        for &(_, a, b) in reads {
            s.ub(api, pipe_t::PIPE_V, c, a, b, false, loc);
        }
        for &(_, a, b) in writes {
            s.ub(api, pipe_t::PIPE_V, c, a, b, true, loc);
        }
    });
}

/// A scalar access (pipe S) of `[s, e)` of a LocalTensor.
#[track_caller]
#[inline]
pub(crate) fn on_scalar_ub(api: &'static str, tag: u64, s: usize, e: usize, write: bool) {
    let loc = Location::caller();
    with_san(|st| {
        st.check_tag(api, tag, loc);
        let c = st.tick(pipe_t::PIPE_S);
        st.ub(api, pipe_t::PIPE_S, c, s, e, write, loc);
    });
}

/// A scalar access (pipe S) of `[s, e)` of a GM region.
#[track_caller]
#[inline]
pub(crate) fn on_scalar_gm(api: &'static str, region: usize, s: usize, e: usize, write: bool) {
    let loc = Location::caller();
    with_san(|st| {
        st.tick(pipe_t::PIPE_S);
        st.gm(region, s, e, write, false, api, loc);
    });
}

/// The shape of a copy: `rows` GM rows of `row` bytes, `gm_pitch` apart; the UB sides span
/// `d_span` / `s_span` bytes.
pub(crate) struct CopyShape {
    pub rows: usize,
    pub row: usize,
    pub d_pitch: usize,
    pub s_pitch: usize,
    pub d_span: usize,
    pub s_span: usize,
}

/// A copy: MTE2 (GM→UB), MTE3 (UB→GM) or V (UB→UB).
#[track_caller]
pub(crate) fn on_copy(api: &'static str, dst: SanSide, src: SanSide, shape: &CopyShape) {
    let loc = Location::caller();
    with_san(|st| {
        let pipe = match (dst, src) {
            (SanSide::Ub(..), SanSide::Gm(..)) => pipe_t::PIPE_MTE2,
            (SanSide::Gm(..), SanSide::Ub(..)) => pipe_t::PIPE_MTE3,
            _ => pipe_t::PIPE_V,
        };
        for side in [src, dst] {
            if let SanSide::Ub(_, tag) = side {
                st.check_tag(api, tag, loc);
            }
        }
        let c = st.tick(pipe);
        for (side, write, pitch, span) in
            [(src, false, shape.s_pitch, shape.s_span), (dst, true, shape.d_pitch, shape.d_span)]
        {
            match side {
                SanSide::Ub(addr, _) => st.ub(api, pipe, c, addr, addr + span, write, loc),
                SanSide::Gm(region, off) => {
                    if pitch == shape.row || shape.rows == 1 {
                        st.gm(region, off, off + span, write, write, api, loc);
                    } else {
                        for i in 0..shape.rows {
                            let a = off + i * pitch;
                            st.gm(region, a, a + shape.row, write, write, api, loc);
                        }
                    }
                }
            }
        }
    });
}

/// `SetFlag`: the event remembers its source pipe's clock.
pub(crate) fn on_set_flag(e: HardEventKind, id: i32) {
    with_san(|s| {
        let c = s.vc[e.src as usize];
        s.events[e.index as usize * IDS + id as usize] = Some(c);
    });
}

/// `WaitFlag`: the destination pipe learns what the source pipe had done.
pub(crate) fn on_wait_flag(e: HardEventKind, id: i32) {
    with_san(|s| {
        if let Some(c) = s.events[e.index as usize * IDS + id as usize].take() {
            s.join(e.dst, &c);
        }
    });
}

/// `PipeBarrier`: only `PIPE_ALL` adds an ordering (pipes are in program order already).
pub(crate) fn on_pipe_barrier(p: pipe_t) {
    if p == pipe_t::PIPE_ALL {
        with_san(CoreSan::barrier_all);
    }
}

/// `SyncAll`: a barrier of every pipe, and a new epoch for global memory.
pub(crate) fn on_sync_all() {
    with_san(|s| {
        s.barrier_all();
        s.epoch += 1;
    });
}

/// `AllocTensor` of the buffer at `[start, start + len)`: waits for the buffer's free event;
/// returns the new handle's tag.
#[track_caller]
pub(crate) fn on_alloc(start: usize, len: usize, index: usize, src: TPosition, dst: TPosition) -> u64 {
    let loc = Location::caller();
    with_san(|s| {
        let i = match s.bufs.iter().position(|b| b.start == start && b.len == len) {
            Some(i) => i,
            None => {
                s.bufs.push(Buf {
                    start,
                    len,
                    pos: src,
                    index,
                    gen: 0,
                    live: false,
                    queued: false,
                    alloc_at: loc,
                    freed_at: None,
                    enq: None,
                    free: None,
                });
                s.bufs.len() - 1
            }
        };
        let ev = que_events(src, dst);
        let b = &mut s.bufs[i];
        b.gen = b.gen.wrapping_add(1).max(1);
        b.live = true;
        b.queued = false;
        b.pos = src;
        b.index = index;
        b.alloc_at = loc;
        let free = b.free.take();
        let gen = b.gen;
        if let (Some((_, fe)), Some(c)) = (ev, free) {
            s.join(fe.dst, &c);
        }
        ((i as u64 + 1) << 32) | u64::from(gen)
    })
    .unwrap_or(0)
}

/// The live buffer at `start`: the one the handle's `tag` names when it is that one (no
/// search), else found by address.
#[inline]
fn buf_of(s: &mut CoreSan, start: usize, tag: u64) -> Option<usize> {
    if tag != 0 {
        let i = (tag >> 32) as usize - 1;
        if s.bufs.get(i).is_some_and(|b| b.start == start && b.live) {
            return Some(i);
        }
    }
    s.bufs.iter().position(|b| b.start == start && b.live)
}

/// `EnQue`: sets the queue's enque event on its source pipe.
pub(crate) fn on_enque(start: usize, tag: u64, src: TPosition, dst: TPosition) {
    with_san(|s| {
        let Some(i) = buf_of(s, start, tag) else { return };
        let c = que_events(src, dst).map(|(ee, _)| s.vc[ee.src as usize]);
        let b = &mut s.bufs[i];
        b.queued = true;
        b.enq = c;
    });
}

/// `DeQue`: waits for the enque event; returns the handle's tag.
pub(crate) fn on_deque(start: usize, src: TPosition, dst: TPosition) -> u64 {
    with_san(|s| {
        let Some(i) = buf_of(s, start, 0) else { return 0 };
        let b = &mut s.bufs[i];
        b.queued = false;
        let (c, gen) = (b.enq.take(), b.gen);
        if let (Some((ee, _)), Some(c)) = (que_events(src, dst), c) {
            s.join(ee.dst, &c);
        }
        ((i as u64 + 1) << 32) | u64::from(gen)
    })
    .unwrap_or(0)
}

/// `FreeTensor`: sets the queue's free event on the pipe that last used the buffer.
#[track_caller]
pub(crate) fn on_free(api: &'static str, start: usize, tag: u64, src: TPosition, dst: TPosition) {
    let loc = Location::caller();
    with_san(|s| {
        s.check_tag(api, tag, loc);
        let Some(i) = buf_of(s, start, tag) else { return };
        let c = que_events(src, dst).map(|(_, fe)| s.vc[fe.src as usize]);
        let b = &mut s.bufs[i];
        b.live = false;
        b.queued = false;
        b.freed_at = Some(loc);
        b.free = c;
    });
}

/// `TPipe` dropped or reset: its buffers are gone; the ones still allocated or queued are
/// reported when the kernel ends.
pub(crate) fn on_pipe_release(why: &'static str) {
    with_san(|s| {
        let CoreSan { bufs, leaks, .. } = s;
        for b in bufs.iter_mut() {
            if b.live {
                let state = if b.queued { "still queued" } else { "still allocated" };
                leaks.push((
                    format!("{} {state} when the TPipe was {why}; it was allocated here", b.describe()),
                    b.alloc_at,
                ));
            }
            b.live = false;
            b.queued = false;
            b.freed_at = None;
            b.enq = None;
            b.free = None;
            b.gen = b.gen.wrapping_add(1).max(1);
        }
    });
}
