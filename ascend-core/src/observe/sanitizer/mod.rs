//! The synchronisation sanitizer: finds the cross-pipe and cross-core orderings a kernel
//! forgot, which the hardware punishes with half-copied data while every sequential emulator
//! (this one included) computes the right answer.
//!
//! **Model.** Every operation runs on a pipe: `DataCopy` GM→UB on MTE2, UB→GM on MTE3, UB→UB
//! and every vector instruction on V, `GetValue`/`SetValue` on S. The scalar unit issues every
//! instruction to its pipe, in program order; a pipe starts its instructions in that order but
//! need not finish them in order (the vendor's `PipeBarrier` page: two copies into
//! overlapping bytes need `PipeBarrier<PIPE_MTE2>`/`<PIPE_MTE3>`). So an instruction is
//! ordered after another only through: the scalar unit's own program order (S); a
//! `PipeBarrier` of the pipe; an event (`set_flag::<HardEvent::X_Y>` / `wait_flag`, the events
//! the queues set and wait, see [`que_events`]): X's `SetFlag` fires once X's earlier
//! instructions are done and X's later ones start after it, and Y's later instructions wait —
//! when Y is S, that holds the scalar unit, so every instruction issued afterwards, on any
//! pipe, is ordered after what the event orders; `PipeBarrier<PIPE_ALL>` and `SyncAll`. A
//! kernel built with the BiSheng compiler's automatic synchronisation (the vendor's default;
//! [`LaunchSanitizer::with_auto_sync`]) also gets `PipeBarrier<PIPE_V>` between dependent
//! vector instructions and the events between a scalar tensor access and V, MTE2 or MTE3
//! wherever they touch the same bytes. Each pipe keeps a vector clock; every Unified Buffer
//! access (a byte range per operand and call: the span the instruction's addressing reaches)
//! is checked against the last write and the last read of every pipe on those bytes:
//! read-after-write, write-after-read and write-after-write without a happens-before ordering
//! are errors naming both instructions, their lines and pipes, the buffer and bytes, and the
//! event or barrier that fixes it — except two unordered writes of one pipe, which only leave
//! the bytes undetermined: an error when they are read (see `shadow`).
//!
//! The cube's pipes are modelled the same way: `DataCopy` GM → L1 (ND2NZ) and `LoadData` from
//! GM on MTE2, `LoadData` L1 → L0A/L0B on MTE1, `Mmad` on M, `Fixpipe` L0C → GM on FIX; each
//! core's L1, L0A, L0B and L0C have a shadow like the Unified Buffer's, so a missing
//! `MTE2_MTE1`, `MTE1_M`, `M_FIX` (or the reverse events before a buffer is refilled) is the
//! same error, naming the memory. Pipe M orders a later `Mmad` after an earlier one by itself
//! when the earlier one is large (the `Mmad` page: `(m / 16) * (n / 16) >= 10`); below that a
//! `PipeBarrier<PIPE_M>` (or an event M sets) must. A core's clocks have lanes for the vector
//! core's four pipes until it first uses the cube, and for all seven from then on (see
//! `shadow::VEC_LANES`): a vector kernel keeps its one-register clocks.
//!
//! Global memory is checked across cores: each core logs its accesses (DMA writes widened to
//! the 32-byte blocks they really write) with its `SyncAll` epoch; after the launch, two cores
//! touching the same bytes in one epoch, one of them writing and not both atomically, is an
//! error — except two plain DMA writes of one range with the same bytes (a hash of each logged
//! write's source bytes: whichever lands last, GM holds the same bytes, as when several cores
//! write one identical output, the vendor's `create_vec_index` example). A scalar write
//! through the core's data cache counts as a write of its whole 64-byte line against other
//! cores' writes, and the cache's clean and invalidation
//! (`DataCacheCleanAndInvalid`) make scalar accesses flag accesses (see `DCache`). Within a
//! core, an MTE2 read of global memory this core's MTE3 or S wrote without an
//! ordering event is an error too, and so is an MTE3 write over bytes an earlier MTE3 write
//! of the core may still be writing (see `gm_local`), and so are the two data-cache mistakes
//! within a core: a DMA read of bytes a scalar write left in the data cache (no clean since),
//! and a scalar read, through a line the core holds cached, of bytes a DMA write changed in GM
//! (no invalidation since) — the DMA units see GM, not the cache (see `OwnLines`).
//!
//! **Cost.** The hooks run a dozen times per tile, so they are built to be cheap: the state is
//! reached through one thread-local pointer; an access record is 8 bytes (the instruction's
//! site — API and line interned per core — its pipe and clock), "no access" being clock 0 so
//! a check is a comparison per slot; a queue's buffers are registered at `InitBuffer` and the
//! queue hands the hooks their index, while shadow segments and sites are found through small
//! two-way caches validated on use; the queue events' pipes come from a table built at compile
//! time. A pipe's clock row takes the pipe's own lane by a blend in registers
//! (`CoreSan::ROW_MASK`), never by a one-lane store and a reload of the row (the store buffer
//! forwards no 4-byte store to a 16-byte load: that stall was a tenth of a 128-element-tile
//! launch). The hash of the bytes DMA writes put in GM, which the identical-write exemption
//! compares, is one AES round per 16 bytes where the CPU has AES-NI, eight lanes wide (the
//! multiply hash it replaces was a tenth of a 16 KiB-tile launch, issue 35), run straight into
//! the lanes of the log entry the write extends (`gm::Lanes`) and finished once per entry
//! when it closes, not once per write; the copy hands the hook its source's address, not a
//! hash returned through memory. A DMA write looks at the core's data-cache lines only when
//! it reaches the bytes the core accessed by scalar accesses (a kernel reads its tiling that
//! way, then streams other regions).
//!
//! Issue 35 (the 128-element-tile target, at least 0.65 of `sanitize(false)`) cut the
//! sanitizer's instructions per `sub_custom` f32 tile from 1467 to 1379, against 2442 for the
//! tile itself (counted by callgrind, the launch with the sanitizer on less the same launch
//! off: `examples/sanitizer_cost.rs`), none of them a check: the core's own-GM-write list (`gm_local`) drops the writes its MTE2 pipe knows of at
//! every write, not only at reads of their region, so a tile loop keeps the two or three
//! writes MTE2 has not heard of in a flat `Vec` instead of filling a 256-entry ring (a new
//! cache line every other tile, and an out-of-line append); the hash's loads fold into the
//! AES instruction (the copy's source is 16-byte aligned) and its rare unaligned tail runs
//! out of line, so the hashing function saves no register; the hash's source reaches the GM
//! log as an argument, in registers (through a field of the state it was three 8-byte stores
//! read back by a 16-byte load, which waited for them: a store forwards to no wider load); a
//! log entry is no longer built in memory before the check that extends the open one; and a
//! clock row whose one lane changes is stored whole (`store_row`: the compiler narrowed the
//! row's store to the one lane, and the next queue hook's load of the row waited for it).
//!
//! Lifetimes: a tensor handle of a queue buffer used after `FreeTensor` (or after the buffer
//! was allocated again), a tensor of a `TBuf` used after its `TPipe` was reset or dropped (the
//! bytes may belong to a queue by then), and a kernel that ends with buffers allocated or queued or with a
//! flag set and never waited for, are errors.
//!
//! **Where it runs.** In every launch of the runtime (`Launch::sanitize(false)` turns it off)
//! through [`LaunchSanitizer`]. Outside a launch (unit tests calling instructions on the
//! thread's default core) it is off: those tests stage data with host conveniences and run
//! instructions back to back, with no pipes in the picture. [`LaunchSanitizer::run_core`] turns
//! it on for any closure.

mod gm;
mod gm_local;
mod shadow;
mod sites;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::cell::Cell;
use std::panic::Location;
use std::sync::{Arc, Mutex};

use crate::kernel::error::{fail_at, Fault};
use crate::memory::tensor::GmRegion;
use crate::position::{Memory, TPosition};
use crate::sync::event::{pipe_t, HardEventKind, HARD_EVENTS, PIPE_NUM};
use gm::{GmAcc, GmLog, GmRec, HashSrc, LINE_BYTES};
use gm_local::LocalGm;
use shadow::{
    lane, widen, Acc, Clock, Race, Shadow, ALL_LANES, LANE_PIPES, MAX_CLOCK, ROWS, ROW_LANE,
    UNORDERED_WRITES, VEC_LANES,
};

use sites::Sites;

/// Event ids tracked per hardware event (the largest `QUE_MAX_EVENT`).
const IDS: usize = 8;

/// One queue buffer as the sanitizer knows it.
struct Buf<const L: usize> {
    start: usize,
    len: usize,
    pos: TPosition,
    index: usize,
    generation: u32,
    live: bool,
    queued: bool,
    alloc_at: &'static Location<'static>,
    freed_at: Option<&'static Location<'static>>,
    /// The clock of the queue's enque event (its source pipe's clock at EnQue).
    enq: Clock<L>,
    /// The clock of the queue's free event (its source pipe's clock at FreeTensor).
    free: Clock<L>,
    /// The row of the free event's destination pipe (where `TPipe::Reset` waits for it).
    free_to: usize,
    /// A `TBuf`'s memory (live from `TPipe::InitBuffer` to the pipe's reset or drop), not a
    /// queue buffer.
    tbuf: bool,
}

impl<const L: usize> Buf<L> {
    fn describe(&self) -> String {
        // The record's key: the memory above bit 32 (see `buf_key`).
        let mem = match self.start >> 32 {
            0 => "UB",
            1 => "L1",
            2 => "L0A",
            3 => "L0B",
            _ => "L0C",
        };
        let at = self.start & 0xffff_ffff;
        if self.tbuf {
            return format!("a TBuf<{}> ({mem} [{:#x}, {:#x}))", self.pos, at, at + self.len);
        }
        format!("buffer {} of a {} queue ({mem} [{:#x}, {:#x}))", self.index, self.pos, at, at + self.len)
    }
}
const _: () = assert!(Memory::L0C as usize == 4 && Memory::Ub as usize == 0);

/// A queue's handle on its buffers' records, as [`on_init_queue`] returned it: the sanitizer
/// session that registered them and the index of the first (buffer `i` has `first + i`).
/// Session 0 (`QueSan::NONE`): the sanitizer was off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct QueSan {
    session: u32,
    first: u32,
}

impl QueSan {
    /// No records: the queue was initialised while the sanitizer was off.
    pub(crate) const NONE: QueSan = QueSan { session: 0, first: 0 };
}

/// The sessions of [`CoreSan`]s, so that a queue's [`QueSan`] is only trusted by the state
/// that issued it (1, 2, …; 0 is [`QueSan::NONE`]).
static SESSIONS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);

/// The index of the record of buffer `index` of the queue whose handle is `san`, a queue of
/// `len`-byte buffers from `base`: taken directly when this state issued `san` (records are
/// never removed while it lives, and a queue's `index` is below its buffer count), else (a
/// queue initialised while the sanitizer was off, or by another core's state) found by a
/// search of the buffer's bytes.
#[inline(always)]
fn que_idx<const L: usize>(
    s: &CoreSan<L>,
    san: QueSan,
    base: usize,
    len: usize,
    index: usize,
) -> Option<usize> {
    let start = base + index * len;
    if san.session == s.session {
        let i = san.first as usize + index;
        debug_assert!(s.bufs.get(i).is_some_and(|b| b.start == start && b.len == len));
        Some(i)
    } else {
        search_buf(&s.bufs, start, len)
    }
}

#[cold]
#[inline(never)]
fn search_buf<const L: usize>(bufs: &[Buf<L>], start: usize, len: usize) -> Option<usize> {
    bufs.iter().rposition(|b| b.start == start && b.len == len && !b.tbuf)
}

/// `row` learns what `c` knows: their lane-wise maximum.
#[inline(always)]
fn join_into<const L: usize>(row: &mut Clock<L>, c: &Clock<L>) {
    for (a, b) in row.iter_mut().zip(c) {
        // Signed: the same order for clocks (see `MAX_CLOCK`), one SSE2 comparison.
        *a = if (*b as i32) > (*a as i32) { *b } else { *a };
    }
}

/// `row` with `c` in the lanes where `mask` is all ones (the rest as they are): a blend in
/// registers (see [`CoreSan::ROW_MASK`]).
#[inline(always)]
fn with_lane<const L: usize>(mut row: Clock<L>, mask: &Clock<L>, c: u32) -> Clock<L> {
    for (x, &m) in row.iter_mut().zip(mask) {
        *x = (*x & !m) | (c & m);
    }
    row
}

/// Stores `row` into `dst` whole, by one 16-byte store (a vector core's clock; on x86-64). The
/// compiler turns a plain assignment of a row that differs from `dst` in one lane known at
/// compile time (a pipe's own lane raised) into a 4-byte store of that lane — volatile stores
/// and SSE intrinsics alike — and the next hook's load of the row (the queue hooks of a tile
/// run back to back, a few dozen instructions apart) then waits for the store to retire, as a
/// store forwards to no wider load (issue 35: the vector pipe's row was stored this way by
/// `FreeTensor` twice and `EnQue` in every tile, each read back by the next, and by the vector
/// instruction's tick before its write's check).
#[inline(always)]
fn store_row<const L: usize>(dst: &mut Clock<L>, row: Clock<L>) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    if L == 4 {
        let p = dst.as_mut_ptr();
        // SAFETY: `row` and `*dst` are 16 bytes (`L == 4`); `p` comes from an exclusive
        // reference, and the store writes exactly those 16 bytes (unaligned store; SSE2 is
        // x86-64's baseline), touching no stack and no flag.
        unsafe {
            let v = std::arch::x86_64::_mm_loadu_si128(row.as_ptr().cast());
            std::arch::asm!("movdqu [{p}], {v}", p = in(reg) p, v = in(xmm_reg) v, options(nostack, preserves_flags));
        }
        return;
    }
    *dst = row;
}

/// A core's phase (see [`gm`]) from `phase` on, until its next record.
#[derive(Clone)]
struct PhaseRec {
    phase: u32,
    epoch: u32,
    /// The core's cross-core vector clock in the phase (empty: all zero).
    clock: Arc<[u32]>,
}

/// The phase records of `phases` that cover `phase`.
fn phase_rec(phases: &[PhaseRec], phase: u32) -> &PhaseRec {
    &phases[phases.partition_point(|r| r.phase <= phase).saturating_sub(1)]
}

/// A launch's cross-core synchronisation objects (the flags of `IBSet`/`IBWait`,
/// `NotifyNextBlock`/`WaitPreBlock`, the data-cache lines of scalar flags, the rounds of
/// `CrossCoreSetFlag`), by the flag's GM address or key: what each core released into each.
/// Every core keeps its own releases, so a release takes only its own core's lock, which
/// only an acquire contends for (a loop of scalar flag writes would bounce one shared lock
/// between the host threads).
#[derive(Default)]
struct SyncObjs {
    /// By core that ran (its index): its releases.
    cores: Mutex<Vec<(u32, Arc<Releases>)>>,
}

/// One core's releases, by object.
type Releases = Mutex<HashMap<usize, Released>>;

/// A core's last release into an object: the clock of its phase then (shared with the
/// phase's record, so a release allocates nothing; a core's clock only grows, so the last
/// release's is the join of all of them) and how many of its own phases had ended.
struct Released {
    clock: Arc<[u32]>,
    ended: u32,
}

impl SyncObjs {
    /// A new core's releases (empty), registered for the acquires of every core.
    fn register(&self, core: u32) -> Arc<Releases> {
        let own = Arc::default();
        self.cores.lock().unwrap_or_else(|e| e.into_inner()).push((core, Arc::clone(&own)));
        own
    }

    /// `cvc` learns what every core released into the objects.
    fn join_into(&self, objs: &[usize], cvc: &mut Vec<u32>) {
        let all = self.cores.lock().unwrap_or_else(|e| e.into_inner());
        for (core, own) in all.iter() {
            let m = own.lock().unwrap_or_else(|e| e.into_inner());
            for o in objs {
                if let Some(r) = m.get(o) {
                    join_vec(cvc, &r.clock);
                    let me = *core as usize;
                    if cvc.len() <= me {
                        cvc.resize(me + 1, 0);
                    }
                    cvc[me] = cvc[me].max(r.ended);
                }
            }
        }
    }
}

/// `a` learns what `b` knows (lane-wise maximum; a shorter `a` grows).
fn join_vec(a: &mut Vec<u32>, b: &[u32]) {
    if a.len() < b.len() {
        a.resize(b.len(), 0);
    }
    for (x, y) in a.iter_mut().zip(b) {
        *x = (*x).max(*y);
    }
}

/// A core's scalar data cache, as far as flags between cores need it (the vendor's
/// `DataCacheCleanAndInvalid` page): a scalar read of GM comes from the cache unless the core
/// invalidated the line since its last access of it, and a scalar write reaches GM when the
/// core cleans the line (or at some eviction: never to count on). A read of an invalidated
/// line and a cleaned write are flag accesses (the line's release and acquire, no race);
/// every other scalar access is a plain one. A line the core never accessed counts as cached:
/// a core polling a flag invalidates it before every read, as the vendor's example does.
#[derive(Default)]
struct DCache {
    /// Counts the core's scalar GM accesses and invalidations.
    tick: u64,
    /// By line (its first byte's address): the tick of the core's last scalar access of it
    /// (for the line in `last`, the tick before it: `last` is written back when the core
    /// moves to another line, so a loop over a line's elements updates no map).
    access: HashMap<usize, u64>,
    /// The line of the core's last scalar access, and its tick.
    last: Option<(usize, u64)>,
    /// The bytes `[lo, hi)` from the first to the end of the last line the core accessed by
    /// a scalar access (`(0, 0)`: none), so that a DMA write elsewhere (a kernel reads its
    /// tiling by scalar accesses, then streams other regions) skips [`DCache::dma_wrote`].
    touched: (usize, usize),
    /// By line: the tick of its last invalidation, and the first byte that covered (a
    /// `SINGLE_CACHE_LINE` one works from the address given to the end of its line).
    inval: HashMap<usize, (u64, usize)>,
    /// The tick of the last invalidation of the whole cache (`ENTIRE_DATA_CACHE`).
    inval_all: u64,
    /// The lines written since their last clean (kept until a clean from their first byte).
    dirty: HashSet<usize>,
    /// The line last inserted into `dirty` (while it is still there), so a loop of writes
    /// over one line inserts it once.
    last_dirty: Option<usize>,
    /// The core's phases below this one are published by its cleans: the last clean after
    /// which pipe S was ordered after every GM access of MTE2 and MTE3.
    published: u32,
    /// Whether the checks within the core run (see [`OwnLines`]): on the chips with
    /// `DataCacheCleanAndInvalid` (not Ascend910).
    own_checks: bool,
    /// What the cache holds that GM does not, and the reverse, for the checks within the core.
    own: OwnLines,
}

/// The bytes (a bit per byte of a 64-byte line) where a core's data cache and GM differ, as the
/// checks within one core need them (the vendor's `DataCacheCleanAndInvalid` page: the DMA
/// units read and write GM and see no data cache; the scalar unit goes through it):
///
/// - a scalar write (`GlobalTensor::SetValue`) stays in the cache until the line is cleaned,
///   so a DMA read of those bytes before the clean (`DataCopy` GM → UB) reads GM's old bytes;
/// - a DMA write (`DataCopy` UB → GM) of bytes of a line the core holds in its cache (it
///   accessed the line by a scalar access since the line's last invalidation) leaves the
///   cache's copy old, so a scalar read of those bytes before an invalidation
///   (`DataCacheCleanAndInvalid`) reads it.
///
/// Both are errors. (Lines the core never accessed by a scalar access count as not cached
/// here, as a core's first read of a line misses.)
#[derive(Default)]
struct OwnLines {
    /// By line: the bytes scalar writes put in the cache since the line's last clean, and the
    /// site of the last such write.
    unclean: HashMap<usize, (u64, u32)>,
    /// The line of the core's last scalar write, with its bytes and site (not yet in
    /// `unclean`: a loop over a line's elements touches no map).
    last: Option<(usize, u64, u32)>,
    /// By line: the bytes DMA writes changed in GM under the core's cached copy, and the site of
    /// the last such write.
    stale: HashMap<usize, (u64, u32)>,
}

/// The bits of bytes `[s, e)` of the line starting at `line` (`s < e`, in any lines).
fn line_mask(line: usize, s: usize, e: usize) -> u64 {
    let a = s.max(line) - line;
    let b = e.min(line + LINE_BYTES) - line;
    if a >= b {
        return 0;
    }
    let hi = if b == 64 { u64::MAX } else { (1u64 << b) - 1 };
    hi & !((1u64 << a) - 1)
}

impl OwnLines {
    /// A scalar write of `[s, e)` (absolute addresses, within one line) by `site`.
    #[inline]
    fn wrote(&mut self, s: usize, e: usize, site: u32) {
        let line = line_of(s);
        let bits = line_mask(line, s, e);
        match &mut self.last {
            Some((l, m, t)) if *l == line => {
                *m |= bits;
                *t = site;
            }
            last => {
                if let Some((l, m, t)) = last.replace((line, bits, site)) {
                    let x = self.unclean.entry(l).or_insert((0, t));
                    x.0 |= m;
                    x.1 = t;
                }
            }
        }
    }

    /// A clean from byte `at` to its line's end (`None`: every line).
    fn clean(&mut self, at: Option<usize>) {
        match at {
            None => {
                self.unclean.clear();
                self.last = None;
            }
            Some(at) => {
                let line = line_of(at);
                let keep = !line_mask(line, at, line + LINE_BYTES);
                if let Some((l, m, _)) = &mut self.last {
                    if *l == line {
                        *m &= keep;
                    }
                }
                if let Some(x) = self.unclean.get_mut(&line) {
                    x.0 &= keep;
                }
            }
        }
    }

    /// An invalidation from byte `at` to its line's end (`None`: every line).
    fn invalidate(&mut self, at: Option<usize>) {
        match at {
            None => self.stale.clear(),
            Some(at) => {
                let line = line_of(at);
                if let Some(x) = self.stale.get_mut(&line) {
                    x.0 &= !line_mask(line, at, line + LINE_BYTES);
                }
            }
        }
    }

    /// The first line of `[s, e)` with bytes written into the cache and not cleaned that the
    /// range covers: the line, those bytes, and the site that wrote them.
    fn unclean_in(&self, s: usize, e: usize) -> Option<(usize, u64, u32)> {
        let last = self.last.iter().copied();
        let map = self.unclean.iter().map(|(&l, &(m, t))| (l, m, t));
        last.chain(map)
            .filter(|&(l, m, _)| l < e && s < l + LINE_BYTES && m & line_mask(l, s, e) != 0)
            .min_by_key(|&(l, _, _)| l)
            .map(|(l, m, t)| (l, m & line_mask(l, s, e), t))
    }
}

/// The line holding the byte at `at`.
fn line_of(at: usize) -> usize {
    at & !(LINE_BYTES - 1)
}

impl DCache {
    /// A DMA write of `[s, e)` (absolute addresses) by `site`: the lines the core holds cached
    /// in the range keep their old bytes there (see [`OwnLines`]).
    #[cold]
    #[inline(never)]
    fn dma_wrote(&mut self, s: usize, e: usize, site: u32) {
        let DCache { access, last, inval, inval_all, own, .. } = self;
        let lines = access.iter().map(|(&l, &t)| (l, t)).chain(*last);
        for (l, t) in lines {
            // (A line in `last` is in `access` too, with an older tick: it adds nothing.)
            let fresh = match *last {
                Some((ll, lt)) if ll == l => lt,
                _ => t,
            };
            let cached = fresh > inval.get(&l).map_or(0, |&(t, _)| t).max(*inval_all);
            if cached && l < e && s < l + LINE_BYTES {
                let x = own.stale.entry(l).or_insert((0, site));
                x.0 |= line_mask(l, s, e);
                x.1 = site;
            }
        }
    }

    /// Records a scalar access of the byte at `at` (a write marks its line dirty): whether
    /// its line was invalidated since the core's last access of it.
    fn touch(&mut self, at: usize, write: bool) -> bool {
        let line = line_of(at);
        self.tick += 1;
        let last = match self.last {
            Some((l, t)) if l == line => t,
            prev => {
                if let Some((l, t)) = prev {
                    self.access.insert(l, t);
                }
                self.access.get(&line).copied().unwrap_or(0)
            }
        };
        self.last = Some((line, self.tick));
        self.touched = match self.touched {
            (_, 0) => (line, line + LINE_BYTES),
            (lo, hi) => (lo.min(line), hi.max(line + LINE_BYTES)),
        };
        if write && self.last_dirty != Some(line) {
            self.dirty.insert(line);
            self.last_dirty = Some(line);
        }
        let inval = if self.inval.is_empty() {
            0
        } else {
            self.inval.get(&line).filter(|&&(_, from)| at >= from).map_or(0, |&(t, _)| t)
        };
        inval.max(self.inval_all) > last
    }

    /// Invalidates the line from byte `at` on (`None`: the whole cache).
    fn invalidate(&mut self, at: Option<usize>) {
        self.own.invalidate(at);
        self.tick += 1;
        match at {
            Some(at) => {
                self.inval.insert(line_of(at), (self.tick, at));
            }
            None => self.inval_all = self.tick,
        }
    }

    /// Whether a clean from byte `at` (`None`: everything) covers a dirty line; the lines
    /// it cleans whole are no longer dirty.
    fn clean(&mut self, at: Option<usize>) -> bool {
        self.own.clean(at);
        self.last_dirty = None;
        match at {
            None => {
                let any = !self.dirty.is_empty();
                self.dirty.clear();
                any
            }
            Some(at) if at == line_of(at) => self.dirty.remove(&at),
            Some(at) => self.dirty.contains(&line_of(at)),
        }
    }
}

/// One core's sanitizer state.
struct CoreSan<const L: usize> {
    core: u32,
    /// This state's session (see [`QueSan`]).
    session: u32,
    /// Row `p`: what pipe `p` knows of the pipes that issue instructions. Its own lane is the
    /// last of its own instructions its next one is ordered after: its clock for a pipe that
    /// finishes in order (S; V when the compiler's automatic synchronisation inserts
    /// `PipeBarrier<PIPE_V>`), else (MTE2, MTE3) the clock at its last `PipeBarrier`, event it
    /// set, or wait that relayed its own progress back.
    vc: [Clock<L>; ROWS],
    /// By pipe: its clock (the instructions it was issued so far).
    clock: [u32; ROWS],
    /// Whether the kernel was built with the compiler's automatic synchronisation.
    auto_sync: bool,
    /// By event and id: the clock its `SetFlag` recorded (zero: not set; joining it is a no-op).
    events: Vec<Clock<L>>,
    /// Whether a `SetFlag` ran since the state was made, so that `events` may hold a nonzero
    /// clock (see [`CoreSan::recycle`]).
    flagged: bool,
    ub: Shadow<L>,
    /// The cube's memories, by `Memory as usize - 1`: L1, L0A, L0B, L0C, BT.
    cube: [Shadow<L>; 5],
    bufs: Vec<Buf<L>>,
    leaks: Vec<(String, &'static Location<'static>)>,
    gm: GmLog,
    /// `SyncAll`s so far.
    epoch: u32,
    /// The core's phase (see [`gm`]): its GM accesses are logged with it.
    phase: u32,
    /// The core's cross-core vector clock (by core: how many of its phases are known to have
    /// ended; empty until the first acquire).
    cvc: Vec<u32>,
    /// Its phases so far, each with its epoch and clock.
    phases: Vec<PhaseRec>,
    /// The launch's synchronisation objects.
    sync: Arc<SyncObjs>,
    /// This core's releases into them, registered with `sync` at its first release (a core
    /// that releases nothing costs the launch no registration).
    own: std::cell::OnceCell<Arc<Releases>>,
    /// The phase the last `DataSyncBarrier` on global memory started: the accesses of earlier
    /// phases are what a flag write through `WriteGmByPassDCache` publishes.
    fenced: u32,
    /// The phase the current epoch started with (its first `SyncAll`'s, or 0).
    epoch_phase: u32,
    /// What the core's scalar data cache holds, as far as flags between cores need it.
    dcache: DCache,
    /// By `CrossCoreSetFlag` flag id: the clock rows of the set's pipe at each set not yet
    /// waited for, oldest first.
    cross_rows: HashMap<u16, std::collections::VecDeque<Clock<L>>>,
    /// Whether the core's global-memory atomic mode is on (`SetAtomicAdd` …).
    atomic: bool,
    sites: Sites,
    /// By buffer, from index 1 (as tags count them): its generation while it is live, 0 when
    /// it is not (the handle check's one load). `valid[0]` stays 0: the untracked tag 0 passes.
    valid: Vec<u32>,
    /// This core's GM writes its MTE2 pipe does not know of yet.
    local: LocalGm,
    /// By pipe: how often its clock was recorded (by `SetFlag`, a queue event, a barrier).
    marks: [u32; ROWS],
    /// The last line a `SetValue` released, with the phase and the published phases it
    /// released (the same release again changes nothing: the core's clock is constant within a
    /// phase, and joins are idempotent), so a loop of `SetValue`s over a line releases it once.
    released: Option<(usize, u32, u32)>,
    /// The core's run of flag reads, to tell a poll loop (see [`Poll`]).
    poll: Poll,
    /// By `InitGlobalMemory` site and phase: the byte pattern its GM writes repeat (see
    /// [`GmAcc::fill`]), `None` when the site filled with two patterns in the phase.
    fills: HashMap<(u32, u32), Option<u64>>,
    /// The operands collected for one vector instruction that reports them in several
    /// [`on_vector`] calls (see [`fuse_vector`]): reads, writes.
    fused: Option<(Vec<UbSpan>, Vec<UbSpan>)>,
}

/// Flag reads in a row that found nothing new, with nothing else between them, after which the
/// core is taken to be polling for another core: it blocks until a polled flag changes (see
/// [`Poll`]).
const POLL_SPINS: u32 = 1024;

/// The most flags one poll loop is tracked over.
const POLL_FLAGS: usize = 16;

/// A core's run of flag reads (a `GetValue` of a line it invalidated just before, or
/// `ReadGmByPassDCache`) with nothing else between them: a poll loop, when they keep finding
/// the values they found before.
///
/// A flag read extends the run when the core's clocks moved by that read alone since the
/// previous one (no instruction, event, barrier, cross-core synchronisation or `SetValue`
/// in between; a `DataCacheCleanAndInvalid` with nothing to clean changes nothing). It
/// found nothing new when it read the same bytes as an earlier read of the run and the same
/// value. After [`POLL_SPINS`] such reads in a row, the core blocks until one of the run's
/// flags changes (re-checked every few milliseconds), instead of spinning: the host thread
/// goes to the cores that can set the flag, and when no core can (every other one has
/// returned, waits in `SyncAll` or is blocked itself) the launch fails at once with a
/// deadlock error naming the flags, where the hardware would hang. The kernel sees the
/// values it would have seen spinning.
#[derive(Default)]
struct Poll {
    /// The run's flags: region, byte offset, length, and the value last found.
    flags: Vec<(Arc<GmRegion>, usize, usize, u64)>,
    /// Flag reads in a row that found nothing new.
    stale: u32,
    /// The core's clocks, event marks and phase after the run's last read.
    clock: [u32; ROWS],
    marks: [u32; ROWS],
    phase: u32,
}

/// Blocks the core whose flag reads are a poll (see [`Poll`]) until one of `flags` changes,
/// when the launch can block a core (the pooled and thread-per-core modes, or a single core);
/// in the sequential mode the core goes on spinning.
#[track_caller]
fn poll_block(
    flags: Vec<(Arc<GmRegion>, usize, usize, u64)>,
    site: (&'static str, &'static Location<'static>),
) {
    if !crate::kernel::ctx::can_block() {
        return;
    }
    let (api, loc) = site;
    let list: Vec<String> = flags
        .iter()
        .map(|(r, off, len, bits)| {
            let at = r.base() as usize + off;
            format!("[{at:#x}, {:#x}) = {bits:#x}", at + len)
        })
        .collect();
    let what = move || {
        format!(
            "polls GM flag(s) {} for another core to change them ({api} at {}:{}: {POLL_SPINS} flag reads in a \
             row found nothing new, and the core did nothing else in between)",
            list.join(", "),
            loc.file(),
            loc.line()
        )
    };
    let changed = move || {
        flags.iter().any(|(r, off, len, bits)| {
            let mut b = [0u8; 8];
            r.read_bytes(*off, &mut b[..(*len).min(8)]);
            u64::from_le_bytes(b) != *bits
        })
    };
    crate::kernel::ctx::block_until(api, what, Box::new(changed));
}

/// An element's bytes (at most 8), as a little-endian number: what a flag read found.
fn elem_bits<T: bytemuck::Pod>(v: &T) -> u64 {
    let mut b = [0u8; 8];
    let bytes = bytemuck::bytes_of(v);
    let n = bytes.len().min(8);
    b[..n].copy_from_slice(&bytes[..n]);
    u64::from_le_bytes(b)
}

thread_local! {
    /// This thread's core's sanitizer state while [`LaunchSanitizer::run_core`] runs (owned
    /// by it), 0 otherwise: a `*mut CoreSan<VEC_LANES>` while the core has not used the cube
    /// (clocks of the vector core's pipes), or a `*mut CoreSan<ALL_LANES>` with bit 0 set
    /// ([`WIDE`]) once it has (see [`widen_for_cube`]). Bit 1 ([`PROFILING`]) is the
    /// profiler's: set while the thread's core is profiled. One word, so that a hook's test
    /// for "every consumer off" stays one load and compare (see [`hook_word`]).
    static SAN: Cell<usize> = const { Cell::new(0) };
    /// The state of the last vector core this thread finished, kept for the next
    /// [`LaunchSanitizer::run_core`] (see [`CoreSan::recycle`]).
    static SPARE: Cell<Option<Box<CoreSan<VEC_LANES>>>> = const { Cell::new(None) };
}

/// The tag of a wide state's pointer in [`SAN`] (states are aligned to more than 4 bytes).
const WIDE: usize = 1;
/// The bit of [`SAN`] that says the thread's core is profiled (the profiler's flag, kept in
/// the sanitizer's word so that the event hooks of a core with neither consumer on load one
/// word; see [`crate::events`]).
pub(crate) const PROFILING: usize = 2;
/// The bits of [`SAN`] that are not the state's pointer.
const TAGS: usize = WIDE | PROFILING;
const _: () = assert!(std::mem::align_of::<CoreSan<VEC_LANES>>() > TAGS);
const _: () = assert!(std::mem::align_of::<CoreSan<ALL_LANES>>() > TAGS);

/// This thread's hook word: the sanitizer's state pointer (0 when off), tagged with [`WIDE`]
/// and [`PROFILING`]; 0 when neither consumer is on. Every hook of the event stream loads
/// it once before anything else.
#[inline(always)]
pub(crate) fn hook_word() -> usize {
    SAN.with(Cell::get)
}

/// Sets or clears the [`PROFILING`] bit of this thread's hook word; returns whether it was
/// set.
pub(crate) fn set_profiling(on: bool) -> bool {
    SAN.with(|s| {
        let w = s.get();
        s.set(if on { w | PROFILING } else { w & !PROFILING });
        w & PROFILING != 0
    })
}

/// Takes this thread's hook word (the running core's sanitizer state and profiler flag),
/// leaving 0: a core suspended on a coroutine keeps it (see [`crate::CoreTls`]).
pub(crate) fn take_word() -> usize {
    SAN.with(|s| s.replace(0))
}

/// Puts back a hook word [`take_word`] took (on the thread it was taken on).
pub(crate) fn put_word(w: usize) {
    SAN.with(|s| s.set(w));
}

/// Runs `$body` with `$s` bound to this core's sanitizer state, if the sanitizer is on:
/// `Some(body)`, else `None`. A macro rather than a function taking a closure, so each hook's
/// body is compiled into the hook (the hooks run a dozen times per tile). The body is compiled
/// twice, once per clock width; the wide one (a core that used the cube) runs out of line, so
/// a vector kernel's hooks stay as small as they were.
macro_rules! with_san {
    (|$s:ident| $body:expr) => {{
        let p = SAN.with(Cell::get) & !PROFILING;
        if p == 0 {
            None
        } else if p & WIDE == 0 {
            // SAFETY: a non-zero `SAN` is the `Box` that `run_core` leaked for this thread
            // (or `widen_for_cube` replaced it with), tagged with `WIDE` when wide; it is
            // freed only after `SAN` is cleared, and only this thread sees `SAN`. No hook body
            // calls another hook or `widen_for_cube` (they call the sanitizer's own methods,
            // `fail_at`, and `ctx::with_core`), so this is the only reference to the state
            // while `$body` runs; when `$body` panics, the reference is gone before any drop
            // runs a hook.
            let $s: &mut CoreSan<VEC_LANES> = unsafe { &mut *(p as *mut CoreSan<VEC_LANES>) };
            Some($body)
        } else {
            Some(cold(move || {
                // SAFETY: as above, untagged.
                let $s: &mut CoreSan<ALL_LANES> = unsafe { &mut *((p & !WIDE) as *mut CoreSan<ALL_LANES>) };
                $body
            }))
        }
    }};
}

/// Runs `f` out of line (the hooks' path for a core that used the cube).
#[cold]
#[inline(never)]
fn cold<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// Widens this thread's core's sanitizer state to the clocks of every pipe, if the sanitizer
/// is on and the state is still narrow: called by the cube's hooks before they record an
/// access, since the vector core's clock has no lanes for M, MTE1 and FIX.
fn widen_for_cube() {
    let w = SAN.with(Cell::get);
    let (p, prof) = (w & !PROFILING, w & PROFILING);
    if p == 0 || p & WIDE != 0 {
        return;
    }
    // SAFETY: `p` is the narrow state `run_core` leaked (see `with_san!`), and no hook is
    // running (the cube's hooks call this before `with_san!`), so the box is ours to take;
    // `SAN` lends its replacement instead, and `run_core` frees whatever `SAN` holds.
    let narrow = unsafe { Box::from_raw(p as *mut CoreSan<VEC_LANES>) };
    SAN.with(|s| s.set(prof));
    let wide = Box::new(narrow.widen());
    SAN.with(|s| s.set(Box::into_raw(wide) as usize | WIDE | prof));
}

/// This thread's core's sanitizer state, taken back from [`SAN`] (0 afterwards).
enum Taken {
    Vector(Box<CoreSan<VEC_LANES>>),
    Cube(Box<CoreSan<ALL_LANES>>),
}

fn take_state() -> Option<Taken> {
    // (The profiler's bit stays.)
    let p = SAN.with(|s| s.replace(s.get() & PROFILING)) & !PROFILING;
    // SAFETY: a non-zero `SAN` is a state `run_core` (or `widen_for_cube`) leaked with
    // `Box::into_raw`, tagged when wide; `SAN` was cleared above, so no hook can reach it,
    // and it is taken back once.
    unsafe {
        match p {
            0 => None,
            p if p & WIDE == 0 => Some(Taken::Vector(Box::from_raw(p as *mut CoreSan<VEC_LANES>))),
            p => Some(Taken::Cube(Box::from_raw((p & !WIDE) as *mut CoreSan<ALL_LANES>))),
        }
    }
}

/// The sanitizer of one launch: the cores' global-memory logs, checked after the launch.
pub struct LaunchSanitizer {
    logs: Mutex<Vec<GmAcc>>,
    /// By core: its phase records, once it has run.
    phases: Mutex<HashMap<u32, Vec<PhaseRec>>>,
    /// By core of a mixed launch: its type and `GetBlockIdx` (for the reports).
    units: Mutex<HashMap<u32, (crate::kernel::ctx::CoreType, u32)>>,
    sync: Arc<SyncObjs>,
    /// Whether the kernel is taken as built with the compiler's automatic synchronisation
    /// (see [`LaunchSanitizer::with_auto_sync`]).
    auto_sync: bool,
}

impl Default for LaunchSanitizer {
    fn default() -> LaunchSanitizer {
        LaunchSanitizer {
            logs: Mutex::default(),
            phases: Mutex::default(),
            units: Mutex::default(),
            sync: Arc::default(),
            auto_sync: true,
        }
    }
}

impl LaunchSanitizer {
    /// A sanitizer for one launch, of a kernel built with the compiler's automatic
    /// synchronisation (the vendor's default).
    pub fn new() -> Arc<LaunchSanitizer> {
        Arc::new(LaunchSanitizer::default())
    }

    /// A sanitizer for one launch of a kernel built with (`true`, the vendor's default) or
    /// without (`false`, `--cce-auto-sync=off`) the BiSheng compiler's automatic
    /// synchronisation. With it, the compiler orders the scalar pipe's tensor accesses
    /// (`LocalTensor::GetValue`/`SetValue`, `GlobalTensor::GetValue`) against the V, MTE2 and
    /// MTE3 pipes in both directions where they depend on each other, and a vector instruction
    /// after the one it depends on (`PipeBarrier<PIPE_V>`); without it, the kernel must do both
    /// by hand, and the sanitizer reports each one missing.
    pub fn with_auto_sync(auto_sync: bool) -> Arc<LaunchSanitizer> {
        Arc::new(LaunchSanitizer { auto_sync, ..LaunchSanitizer::default() })
    }

    /// Runs `f` as the current core (call it inside `run_on_core`) with the sanitizer on.
    /// When `f` returns, the core's end-of-kernel checks run (buffers still allocated or
    /// queued, flags set and never waited for) and its global-memory log joins the launch's.
    ///
    /// # Panics
    /// Panics with a [`Fault`] on the first race or misuse found.
    pub fn run_core<R>(&self, f: impl FnOnce() -> R) -> R {
        /// Frees the state left in the thread-locals, also when `f` panics, and gives them
        /// back the state of an enclosing `run_core` (if any) they lent before.
        struct Owner(usize);
        impl Drop for Owner {
            fn drop(&mut self) {
                drop(take_state());
                SAN.with(|s| s.set(self.0));
            }
        }
        let core = crate::kernel::ctx::current_block_idx();
        let session = SESSIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        assert!(session != 0, "sanitizer: more than 2^32 cores sanitized in one process");
        let state = match SPARE.with(Cell::take) {
            Some(mut st) => {
                st.recycle(core, session, self.auto_sync, Arc::clone(&self.sync));
                st
            }
            None => Box::new(self.fresh_state(core, session)),
        };
        // (The profiler's bit stays as it is; the owner gives back the enclosing state.)
        let owner = Owner(SAN.with(Cell::get));
        SAN.with(|s| s.set(Box::into_raw(state) as usize | (owner.0 & PROFILING)));
        let r = f();
        let taken = take_state();
        drop(owner);
        match taken {
            Some(Taken::Vector(mut st)) => {
                self.finish(&mut st);
                SPARE.with(|s| s.set(Some(st)));
            }
            Some(Taken::Cube(mut st)) => self.finish(&mut st),
            None => unreachable!("sanitizer: the core's state vanished while it ran"),
        }
        r
    }

    /// A new core's state.
    fn fresh_state(&self, core: u32, session: u32) -> CoreSan<VEC_LANES> {
        CoreSan::<VEC_LANES> {
            core,
            session,
            vc: [[0; VEC_LANES]; ROWS],
            clock: [0; ROWS],
            auto_sync: self.auto_sync,
            events: vec![[0; VEC_LANES]; HARD_EVENTS.len() * IDS],
            flagged: false,
            ub: Shadow::default(),
            cube: Default::default(),
            bufs: Vec::new(),
            leaks: Vec::new(),
            gm: GmLog::default(),
            epoch: 0,
            phase: 0,
            cvc: Vec::new(),
            phases: vec![PhaseRec { phase: 0, epoch: 0, clock: Arc::from([]) }],
            sync: Arc::clone(&self.sync),
            own: std::cell::OnceCell::new(),
            fenced: 0,
            epoch_phase: 0,
            dcache: DCache {
                own_checks: crate::kernel::ctx::get_soc() != crate::soc::Soc::Ascend910,
                ..DCache::default()
            },
            cross_rows: HashMap::default(),
            atomic: false,
            sites: Sites::default(),
            valid: vec![0],
            local: LocalGm::default(),
            marks: [0; ROWS],
            released: None,
            poll: Poll::default(),
            fills: HashMap::default(),
            fused: None,
        }
    }

    /// The end of a core: its end-of-kernel checks, then its global-memory log and phases
    /// join the launch's.
    fn finish<const L: usize>(&self, st: &mut CoreSan<L>) {
        finish_core(st);
        let recs = std::mem::take(&mut st.gm).finish();
        if recs.is_empty() {
            // Nothing to check against the other cores: `check_gm` looks up the phases only
            // of cores with accesses.
            return;
        }
        let logs = recs.iter().map(|g| {
            let (api, loc) = st.sites.get(g.site());
            GmAcc {
                phase: g.phase(),
                region: g.region,
                s: g.s,
                e: g.e,
                write: g.write(),
                dma: g.dma(),
                line: g.line(),
                atomic: g.atomic(),
                hash: g.hash,
                fill: if g.write() && !g.atomic() {
                    st.fills.get(&(g.site(), g.phase())).copied().flatten()
                } else {
                    None
                },
                epoch: phase_rec(&st.phases, g.phase()).epoch,
                core: st.core,
                api,
                loc,
            }
        });
        self.logs.lock().unwrap_or_else(|e| e.into_inner()).extend(logs);
        let phases = std::mem::take(&mut st.phases);
        self.phases.lock().unwrap_or_else(|e| e.into_inner()).insert(st.core, phases);
        if let Some(u) = crate::kernel::ctx::current_unit() {
            self.units.lock().unwrap_or_else(|e| e.into_inner()).insert(st.core, u);
        }
    }

    /// The first cross-core race on global memory of the launch, once every core has run.
    pub fn check_gm(&self) -> Option<Fault> {
        let all = std::mem::take(&mut *self.logs.lock().unwrap_or_else(|e| e.into_inner()));
        let phases = std::mem::take(&mut *self.phases.lock().unwrap_or_else(|e| e.into_inner()));
        let units = std::mem::take(&mut *self.units.lock().unwrap_or_else(|e| e.into_inner()));
        let who = |core: u32| match units.get(&core) {
            Some((ty, i)) => format!("{core} ({} {i})", ty.name()),
            None => core.to_string(),
        };
        // `a` happens before `b` (same epoch) when `b`'s phase knows that `a`'s has ended.
        let ordered = |a: &GmAcc, b: &GmAcc| {
            phases.get(&b.core).is_some_and(|p| {
                phase_rec(p, b.phase).clock.get(a.core as usize).is_some_and(|&k| k > a.phase)
            })
        };
        let flag = |a: &GmAcc, b: &GmAcc| dcache_hint(a, b).is_some() || dcache_hint(b, a).is_some();
        let c = gm::find_conflict(all, ordered, flag)?;
        let (a, b) = (c.first, c.second);
        let what = |x: &GmAcc| if x.write { "writes" } else { "reads" };
        let range = |x: &GmAcc| format!("bytes [{:#x}, {:#x})", x.s, x.e);
        let overlap = a.s.max(b.s) < a.e.min(b.e);
        let blocks = if overlap {
            String::new()
        } else if a.overlap_by_blocks(&b) {
            let api = if a.write && a.dma { a.api } else { b.api };
            format!(" (the bytes differ but {api} writes whole 32-byte blocks, and they share one)")
        } else if (a.write && a.line) || (b.write && b.line) {
            " (the bytes differ but a scalar write goes back to GM as its whole 64-byte data-cache line, and they \
             share one)"
                .to_string()
        } else {
            String::new()
        };
        let fills = if a.fill.is_some() && b.fill.is_some() {
            " (two InitGlobalMemory fills of different values or ranges: fills of one value are no race)"
        } else {
            ""
        };
        let dcache = dcache_hint(&a, &b).or_else(|| dcache_hint(&b, &a)).unwrap_or_default();
        let epoch = if a.epoch == 0 {
            "before any SyncAll".to_string()
        } else {
            format!("after the {}th SyncAll and before the next", a.epoch)
        };
        let fix = race_fix(&a, &b);
        Some(Fault {
            core: b.core,
            unit: units.get(&b.core).copied(),
            api: b.api,
            message: format!(
                "sanitizer: cross-core race on global memory: core {} {} {} of the region at GM {:#x} with {} (at \
                 {}:{}), and core {} {} {} with {} (at {}:{}), both {epoch}{blocks}{fills}, with no IBSet/IBWait, NotifyNextBlock/WaitPreBlock, CrossCoreSetFlag/CrossCoreWaitFlag or flag between them;{dcache} {fix}",
                who(a.core),
                what(&a),
                range(&a),
                a.region,
                a.api,
                a.loc.file(),
                a.loc.line(),
                who(b.core),
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

/// The fixes a cross-core race message offers for `a` and `b`: ordering the two cores always;
/// for two scalar writes into one data-cache line, lines of their own, each cleaned (a scalar
/// write goes back to GM as its whole line: 32-byte blocks of their own do not help); else
/// 32-byte blocks of their own (64-byte lines when one of them is a scalar write); and atomic
/// writes only for a write/write pair (an atomic write does not order a read).
fn race_fix(a: &GmAcc, b: &GmAcc) -> String {
    let order = "separate them with SyncAll (or order the two cores with IBSet/IBWait)";
    if a.write && a.line && b.write && b.line {
        return format!(
            "{order}, or give each core its own 64-byte data-cache lines and clean them after the writes \
             (DataCacheCleanAndInvalid<T, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>)"
        );
    }
    let own = if (a.write && a.line) || (b.write && b.line) {
        "give each core its own 64-byte data-cache lines"
    } else {
        "give each core its own 32-byte blocks"
    };
    if a.write && b.write {
        format!("{order}, {own}, or make both writes atomic (SetAtomicAdd)")
    } else {
        format!("{order}, or {own}")
    }
}

/// What the data cache adds to a race between `w` and `r` (see [`DCache`]), if it is one of
/// its two flag mistakes: a scalar write never cleaned out of the writer's cache before a flag
/// read, or a flag write read with a plain (possibly cached) scalar read.
fn dcache_hint(w: &GmAcc, r: &GmAcc) -> Option<String> {
    if !w.write || !w.line || r.write {
        return None;
    }
    let scalar_read = r.api == "GlobalTensor::GetValue";
    if !w.atomic && r.atomic && scalar_read {
        Some(format!(
            " core {}'s write stays in its data cache, where core {} cannot see it, until the writer cleans the \
             line (DataCacheCleanAndInvalid<T, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT> after the \
             SetValue);",
            w.core, r.core
        ))
    } else if w.atomic && !r.atomic && scalar_read {
        Some(format!(
            " core {} may read its own stale copy from its data cache: invalidate the line \
             (DataCacheCleanAndInvalid<T, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>) before each \
             GetValue of the flag;",
            r.core
        ))
    } else {
        None
    }
}

/// The end-of-kernel checks of one core.
fn finish_core<const L: usize>(st: &CoreSan<L>) {
    let api = "Sanitizer";
    if let Some((what, loc)) = st.leaks.first() {
        fail_at(api, format!("sanitizer: the kernel ended with {what}"), loc);
    }
    if let Some(b) = st.bufs.iter().find(|b| b.live && !b.tbuf) {
        let state =
            if b.queued { "still queued (EnQue without DeQue)" } else { "still allocated (no FreeTensor)" };
        fail_at(
            api,
            format!("sanitizer: the kernel ended with {} {state}; it was allocated here", b.describe()),
            b.alloc_at,
        );
    }
    let cross = crate::kernel::ctx::with_core(|c| c.cross.get());
    let counters = own_counters();
    if let Some(f) = counters.iter().position(|&n| n > 0) {
        crate::kernel::error::fail(
            api,
            format!(
                "sanitizer: core {}{} ended with CrossCoreSetFlag({f}) set {} times and waited for {} times, its \
                 counter of flag {f} at {}: every round of a set needs its CrossCoreWaitFlag({f}) (unpaired, the \
                 flag's counter is left for the next kernel)",
                st.core,
                crate::kernel::ctx::current_unit().map(|(t, i)| format!(" ({} {i})", t.name())).unwrap_or_default(),
                cross.sets[f],
                cross.waits[f],
                counters[f]
            ),
        );
    }
    let pending = crate::kernel::ctx::with_core(|c| c.sync.borrow().pending());
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

impl CoreSan<VEC_LANES> {
    /// Makes the state of a finished core (its checks done, its logs handed to the launch)
    /// the state [`LaunchSanitizer::fresh_state`] would make for a new core, keeping its
    /// allocations (the site table, the shadows' caches, the event clocks): the cost of
    /// starting a sanitized core then grows with what the previous core did, not with the
    /// state's size (an empty 48-core launch costs a few microseconds, not a hundred).
    /// Every field is named (no `..`), so a new field cannot be forgotten here.
    fn recycle(&mut self, core: u32, session: u32, auto_sync: bool, sync: Arc<SyncObjs>) {
        let CoreSan {
            core: c,
            session: se,
            vc,
            clock,
            auto_sync: a,
            events,
            flagged,
            ub,
            cube,
            bufs,
            leaks,
            gm,
            epoch,
            phase,
            cvc,
            phases,
            sync: sy,
            own: o,
            fenced,
            epoch_phase,
            dcache,
            cross_rows,
            atomic,
            sites,
            valid,
            local,
            marks,
            released,
            poll,
            fills,
            fused,
        } = self;
        (*c, *se, *a) = (core, session, auto_sync);
        *vc = [[0; VEC_LANES]; ROWS];
        *clock = [0; ROWS];
        if std::mem::take(flagged) {
            events.fill([0; VEC_LANES]);
        }
        ub.reset();
        cube.iter_mut().for_each(Shadow::reset);
        bufs.clear();
        leaks.clear();
        *gm = GmLog::default();
        (*epoch, *phase, *fenced, *epoch_phase) = (0, 0, 0, 0);
        cvc.clear();
        phases.clear();
        phases.push(PhaseRec { phase: 0, epoch: 0, clock: Arc::from([]) });
        (*sy, *o) = (sync, std::cell::OnceCell::new());
        *dcache = DCache {
            own_checks: crate::kernel::ctx::get_soc() != crate::soc::Soc::Ascend910,
            ..DCache::default()
        };
        cross_rows.clear();
        *atomic = false;
        sites.reset();
        valid.clear();
        valid.push(0);
        local.reset();
        *marks = [0; ROWS];
        *released = None;
        *poll = Poll::default();
        fills.clear();
        *fused = None;
    }

    /// The same state with the clocks of every pipe: the cube's pipes ran nothing so far,
    /// so their lanes are 0 in every clock and record, and nothing else changes.
    fn widen(self) -> CoreSan<ALL_LANES> {
        let w = |c: &Clock<VEC_LANES>| widen::<VEC_LANES, ALL_LANES>(c);
        let bufs = self
            .bufs
            .into_iter()
            .map(|b| Buf {
                start: b.start,
                len: b.len,
                pos: b.pos,
                index: b.index,
                generation: b.generation,
                live: b.live,
                queued: b.queued,
                alloc_at: b.alloc_at,
                freed_at: b.freed_at,
                enq: w(&b.enq),
                free: w(&b.free),
                free_to: b.free_to,
                tbuf: b.tbuf,
            })
            .collect();
        CoreSan {
            core: self.core,
            session: self.session,
            vc: self.vc.map(|r| w(&r)),
            clock: self.clock,
            auto_sync: self.auto_sync,
            events: self.events.iter().map(w).collect(),
            flagged: self.flagged,
            ub: self.ub.widen(),
            cube: self.cube.map(|c| c.widen()),
            bufs,
            leaks: self.leaks,
            gm: self.gm,
            epoch: self.epoch,
            phase: self.phase,
            cvc: self.cvc,
            phases: self.phases,
            sync: self.sync,
            own: self.own,
            fenced: self.fenced,
            epoch_phase: self.epoch_phase,
            dcache: self.dcache,
            cross_rows: self.cross_rows.into_iter().map(|(k, q)| (k, q.iter().map(w).collect())).collect(),
            atomic: self.atomic,
            sites: self.sites,
            valid: self.valid,
            local: self.local,
            marks: self.marks,
            released: self.released,
            poll: self.poll,
            fills: self.fills,
            fused: self.fused,
        }
    }
}

impl<const L: usize> CoreSan<L> {
    /// The lane of each clock row that has one in this state's clocks (see [`ROW_LANE`]).
    const ROW_LANE: [Option<usize>; ROWS] = {
        let mut t = ROW_LANE;
        let mut i = 0;
        while i < ROWS {
            if let Some(l) = t[i] {
                if l >= L {
                    t[i] = None;
                }
            }
            i += 1;
        }
        t
    };

    /// By clock row: all ones in the lane [`ROW_LANE`](Self::ROW_LANE) names, zero elsewhere
    /// (all zero for a row without a lane), so that [`snapshot`](Self::snapshot) raises the
    /// lane with a blend in registers: writing the one lane through memory and reloading the
    /// row stalled on the store (a 4-byte store forwards to no 16-byte load), a tenth of a
    /// 128-element-tile launch.
    const ROW_MASK: [Clock<L>; ROWS] = {
        let mut t = [[0; L]; ROWS];
        let mut i = 0;
        while i < ROWS {
            if let Some(l) = Self::ROW_LANE[i] {
                t[i][l] = u32::MAX;
            }
            i += 1;
        }
        t
    };

    /// Starts a new phase (after a `SyncAll` or a cross-core release or acquire); `learned`:
    /// the vector clock changed.
    fn new_phase(&mut self, learned: bool) {
        self.phase = match self.phase.checked_add(1) {
            Some(p) => p,
            None => crate::kernel::error::fail(
                "Sanitizer",
                "sanitizer: more than 2^32 SyncAll and cross-core synchronisations on one core",
            ),
        };
        let clock = if learned {
            Arc::from(self.cvc.as_slice())
        } else {
            Arc::clone(&self.phases[self.phases.len() - 1].clock)
        };
        self.phases.push(PhaseRec { phase: self.phase, epoch: self.epoch, clock });
    }

    fn release(&mut self, objs: &[usize]) {
        self.deposit(objs, self.phase + 1);
        self.new_phase(false);
    }

    /// Releases into the objects: this core's clock, with its own phases below `ended` done.
    fn deposit(&self, objs: &[usize], ended: u32) {
        // The current phase's record holds the core's clock (a new phase starts whenever it
        // learns something).
        let clock = &self.phases[self.phases.len() - 1].clock;
        debug_assert!(self.cvc.iter().zip(clock.iter().chain(std::iter::repeat(&0))).all(|(a, b)| a == b));
        let own = self.own.get_or_init(|| self.sync.register(self.core));
        let mut m = own.lock().unwrap_or_else(|e| e.into_inner());
        for &o in objs {
            let ended = m.get(&o).map_or(ended, |r| r.ended.max(ended));
            m.insert(o, Released { clock: Arc::clone(clock), ended });
        }
    }

    /// Learns the clocks of the objects; a new phase when that taught something (or when
    /// `always`).
    fn acquire_if(&mut self, objs: &[usize], always: bool) {
        let mut cvc = std::mem::take(&mut self.cvc);
        let before = cvc.clone();
        self.sync.join_into(objs, &mut cvc);
        let learned = cvc != before;
        self.cvc = cvc;
        if always || learned {
            self.new_phase(learned);
        }
    }

    /// The phases a scalar flag write through the data cache publishes (see [`DCache`]):
    /// every one so far when pipe S is ordered after every copy out of the core (MTE3) by now,
    /// else those an earlier such write published. (Phases are the unit: a copy still in
    /// flight keeps the whole phase unpublished, the core's ordered accesses in it too.)
    fn published(&mut self) -> u32 {
        let row = self.vc[pipe_t::PIPE_S as usize];
        let done = row[lane(pipe_t::PIPE_MTE3)] >= self.clock[pipe_t::PIPE_MTE3 as usize];
        if done {
            self.dcache.published = self.phase + 1;
        }
        self.dcache.published
    }

    fn acquire(&mut self, objs: &[usize]) {
        self.acquire_if(objs, true);
    }

    /// Records a flag read by `cur` of the `len` bytes at `off` of `region` that found `bits`,
    /// after its clock tick and acquire (see [`Poll`]); blocks the core when the read makes
    /// its run a poll that found nothing new [`POLL_SPINS`] times.
    #[track_caller]
    fn flag_read(&mut self, cur: Acc, region: &Arc<GmRegion>, off: usize, len: usize, bits: u64) {
        let p = &mut self.poll;
        let mut clock = p.clock;
        clock[pipe_t::PIPE_S as usize] += 1;
        if clock != self.clock || p.marks != self.marks || p.phase != self.phase {
            p.flags.clear();
        }
        (p.clock, p.marks, p.phase) = (self.clock, self.marks, self.phase);
        let known = p.flags.iter_mut().find(|(r, o, l, _)| Arc::ptr_eq(r, region) && *o == off && *l == len);
        let same = match known {
            Some(f) => std::mem::replace(&mut f.3, bits) == bits,
            None => {
                if p.flags.len() < POLL_FLAGS {
                    p.flags.push((Arc::clone(region), off, len, bits));
                } else {
                    p.flags.clear();
                }
                false
            }
        };
        p.stale = if same { p.stale + 1 } else { 0 };
        if p.stale >= POLL_SPINS {
            p.stale = 0;
            let flags = p.flags.clone();
            poll_block(flags, self.sites.get(cur.site()));
        }
    }

    /// Starts an instruction on `pipe`: its clock.
    #[inline(always)]
    fn tick(&mut self, pipe: pipe_t) -> u32 {
        let (p, l) = (pipe as usize & (ROWS - 1), lane(pipe));
        if self.clock[p] >= MAX_CLOCK {
            self.clock_exhausted(pipe);
        }
        let c = self.clock[p] + 1;
        self.clock[p] = c;
        // The scalar unit runs its instructions one after another; the vector pipe's are
        // ordered when the compiler inserts `PipeBarrier<PIPE_V>` between dependent ones.
        // The copy pipes start theirs in order but need not finish them in order.
        if matches!(pipe, pipe_t::PIPE_S) || (matches!(pipe, pipe_t::PIPE_V) && self.auto_sync) {
            // Stored whole, as the checks load it (see `store_row`).
            let mut row = self.vc[p];
            row[l] = c;
            store_row(&mut self.vc[p], row);
        }
        c
    }

    #[cold]
    #[inline(never)]
    fn clock_exhausted(&self, pipe: pipe_t) -> ! {
        crate::kernel::error::fail(
            "Sanitizer",
            format!(
                "sanitizer: core {} issued {} instructions on pipe {}, more than its clocks count; run this \
                 launch with Launch::sanitize(false)",
                self.core,
                MAX_CLOCK,
                pipe.short_name()
            ),
        )
    }

    #[cold]
    fn new_buf(
        &mut self,
        start: usize,
        len: usize,
        pos: TPosition,
        index: usize,
        loc: &'static Location<'static>,
    ) -> usize {
        self.bufs.push(Buf {
            start,
            len,
            pos,
            index,
            generation: 0,
            live: false,
            queued: false,
            alloc_at: loc,
            freed_at: None,
            enq: [0; L],
            free: [0; L],
            free_to: 0,
            tbuf: false,
        });
        self.valid.push(0);
        let i = self.bufs.len() - 1;
        debug_assert_eq!(self.valid.len(), i + 2);
        i
    }

    #[inline(always)]
    fn check_tag(&self, api: &'static str, tag: u64, loc: &'static Location<'static>) {
        // Tag 0 (untracked) reads the reserved `valid[0]`, which is 0: no branch for it.
        let (k, generation) = ((tag >> 32) as usize, tag as u32);
        if self.valid.get(k).is_some_and(|&v| v != generation) {
            self.bad_tag(api, &self.bufs[k - 1], generation, loc)
        }
    }

    #[cold]
    fn bad_tag(&self, api: &'static str, b: &Buf<L>, generation: u32, loc: &'static Location<'static>) -> ! {
        if b.tbuf {
            fail_at(
                api,
                format!(
                    "sanitizer: stale tensor handle: it points into {}, given its memory by TPipe::InitBuffer at {}:{}, \
                     which the TPipe released since (TPipe::reset, or the pipe's drop), so those bytes may now belong to \
                     a queue or another buffer; take the tensor again with TBuf::Get after giving the TBuf memory \
                     again (TPipe::InitBuffer)",
                    b.describe(),
                    b.alloc_at.file(),
                    b.alloc_at.line()
                ),
                loc,
            )
        }
        let freed =
            b.freed_at.map_or("TPipe reset or drop".to_string(), |l| format!("{}:{}", l.file(), l.line()));
        let msg = if b.generation == generation {
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

    /// Starts an instruction of `api` at `loc` on `pipe`: its access record (site, pipe and
    /// the pipe's new clock).
    #[inline(always)]
    fn start(&mut self, api: &'static str, pipe: pipe_t, loc: &'static Location<'static>) -> Acc {
        let site = self.sites.id(api, loc);
        Acc::new(site, self.tick(pipe), pipe)
    }

    /// Records a UB access of `[s, e)` by `cur`; fails on a race.
    #[inline(always)]
    fn ub(&mut self, cur: Acc, s: usize, e: usize, write: bool) {
        let res = self.ub.access(s as u32, e as u32, write, cur, &self.vc[cur.pipe() as usize & (ROWS - 1)]);
        if res.is_err() {
            self.ub_conflict(cur, s, e, write)
        }
    }

    /// An unordered conflict found by [`CoreSan::ub`]: a write unordered after a write of its
    /// own pipe (recorded, see `shadow`), or an access the compiler's automatic
    /// synchronisation orders (then recorded), or a race (the relaxed check finds the one to
    /// report).
    #[cold]
    #[inline(never)]
    fn ub_conflict(&mut self, cur: Acc, s: usize, e: usize, write: bool) {
        self.mem_conflict(Memory::Ub, cur, s, e, write)
    }

    /// The shadow of memory `mem`.
    fn shadow(&mut self, mem: Memory) -> &mut Shadow<L> {
        match mem {
            Memory::Ub => &mut self.ub,
            m => &mut self.cube[m as usize - 1],
        }
    }

    /// Records an access of `[s, e)` of memory `mem` by `cur`; fails on a race.
    #[inline]
    fn local(&mut self, mem: Memory, cur: Acc, s: usize, e: usize, write: bool) {
        if mem == Memory::Ub {
            return self.ub(cur, s, e, write);
        }
        let row = &self.vc[cur.pipe() as usize & (ROWS - 1)];
        if self.cube[mem as usize - 1].access(s as u32, e as u32, write, cur, row).is_err() {
            self.mem_conflict(mem, cur, s, e, write)
        }
    }

    /// [`ub_conflict`](Self::ub_conflict) in memory `mem`.
    #[cold]
    #[inline(never)]
    fn mem_conflict(&mut self, mem: Memory, cur: Acc, s: usize, e: usize, write: bool) {
        // Two writes of one pipe are no race until the bytes are read (see `shadow`).
        let row = self.vc[cur.pipe() as usize & (ROWS - 1)];
        let mut r = match self.shadow(mem).access_relaxed(s as u32, e as u32, write, cur, &row) {
            Ok(()) => return,
            Err(relaxed) => relaxed,
        };
        // Each round orders one more pipe before `cur`'s: at most one per lane. (No event
        // settles which of two unordered writes landed last.)
        for _ in 0..L {
            if r.kind == UNORDERED_WRITES || !self.auto_synced(cur, r.prev) {
                break;
            }
            // What the compiler inserts before `cur`: SetFlag<prev_cur> / WaitFlag<prev_cur>.
            let c = self.snapshot(r.prev.pipe() as usize);
            self.wait(cur.pipe() as usize, &c);
            let row = self.vc[cur.pipe() as usize & (ROWS - 1)];
            match self.shadow(mem).access_relaxed(s as u32, e as u32, write, cur, &row) {
                Ok(()) => return,
                Err(next) => r = next,
            }
        }
        self.report(mem, cur, r)
    }

    /// Pipe `pipe`'s later instructions are ordered after its instruction at `clock` (the
    /// hardware orders them itself; see [`on_cube`]).
    fn settle(&mut self, pipe: pipe_t, clock: u32) {
        let (p, l) = (pipe as usize & (ROWS - 1), lane(pipe) & (L - 1));
        let mut row = self.vc[p];
        row[l] = row[l].max(clock);
        self.vc[p] = row;
    }

    /// Whether the compiler's automatic synchronisation orders `cur` after `prev` (when the
    /// kernel is built with it): one of them is a scalar tensor access it tracks, the other on
    /// V, MTE2 or MTE3 (the vendor's "cce-auto-sync" table for the vector core).
    fn auto_synced(&self, cur: Acc, prev: Acc) -> bool {
        const TRACKED: [&str; 3] =
            ["LocalTensor::GetValue", "LocalTensor::SetValue", "GlobalTensor::GetValue"];
        let other = |p: pipe_t| matches!(p, pipe_t::PIPE_V | pipe_t::PIPE_MTE2 | pipe_t::PIPE_MTE3);
        let tracked = |a: Acc| a.pipe() == pipe_t::PIPE_S && TRACKED.contains(&self.sites.get(a.site()).0);
        self.auto_sync && ((tracked(cur) && other(prev.pipe())) || (tracked(prev) && other(cur.pipe())))
    }

    /// The queue buffer holding `[s, e)` of memory `mem`, or the memory, for a message.
    fn buffer_of(&self, mem: Memory, s: u32, e: u32) -> String {
        if mem != Memory::Ub {
            return format!("the {} buffer", mem_name(mem));
        }
        self.bufs
            .iter()
            .find(|b| (b.live || !b.tbuf) && b.start <= s as usize && (e as usize) <= b.start + b.len)
            .map_or("the Unified Buffer".to_string(), Buf::describe)
    }

    #[cold]
    #[inline(never)]
    fn report(&self, mem: Memory, cur: Acc, r: Race) -> ! {
        if r.kind == UNORDERED_WRITES {
            self.report_unordered_writes(mem, cur, r)
        }
        let (cur_api, cur_loc) = self.sites.get(cur.site());
        let (prev_api, prev_loc) = self.sites.get(r.prev.site());
        let buffer = self.buffer_of(mem, r.s, r.e);
        let (src, dst) = (r.prev.pipe(), cur.pipe());
        let queued = mem == Memory::Ub
            && self
                .bufs
                .iter()
                .any(|b| !b.tbuf && b.start <= r.s as usize && r.e as usize <= b.start + b.len);
        let event = HardEventKind::between(src, dst).map_or(String::new(), |e| {
            let queue = match e.name {
                "MTE2_V" => ", or EnQue/DeQue the tensor through a VECIN queue",
                "V_MTE3" => ", or EnQue/DeQue the tensor through a VECOUT queue",
                "MTE2_MTE1" => ", or EnQue/DeQue the tensor through an A1/B1 queue",
                "MTE1_M" => ", or EnQue/DeQue the tensor through an A2/B2 queue",
                "M_FIX" => ", or EnQue/DeQue the tensor through a CO1 queue",
                "V_MTE2" | "MTE3_V" if queued => {
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
        let order = if src == dst {
            let auto = if dst == pipe_t::PIPE_V {
                " (the compiler's automatic synchronisation inserts it; this launch runs without it)"
            } else {
                ""
            };
            format!(
                "nothing orders the two: a pipe starts its instructions in order but need not finish them in order; \
                 add PipeBarrier<PIPE_{}>() between them{auto}",
                dst.short_name()
            )
        } else {
            format!("no event orders {} after {}{event}", dst.short_name(), src.short_name())
        };
        fail_at(
            cur_api,
            format!(
                "sanitizer: {} race on core {}: {} on pipe {} {verb_now} {} bytes [{:#x}, {:#x}) of {buffer} that {} on \
                 pipe {} (at {}:{}) {verb_prev}, and {order}",
                r.kind,
                self.core,
                cur_api,
                dst.short_name(),
                mem_name(mem),
                r.s,
                r.e,
                prev_api,
                src.short_name(),
                prev_loc.file(),
                prev_loc.line(),
            ),
            cur_loc,
        )
    }

    /// A read of bytes two writes of one pipe left unordered: reported at the later write,
    /// where the barrier belongs.
    #[cold]
    fn report_unordered_writes(&self, mem: Memory, cur: Acc, r: Race) -> ! {
        let (cur_api, cur_loc) = self.sites.get(cur.site());
        let (prev_api, prev_loc) = self.sites.get(r.prev.site());
        let shadow = if mem == Memory::Ub { &self.ub } else { &self.cube[mem as usize - 1] };
        let later = shadow.last_write_at(r.s);
        let (later_api, later_loc) = self.sites.get(later.site());
        let pipe = later.pipe().short_name();
        fail_at(
            later_api,
            format!(
                "sanitizer: write-after-write race on core {}: {later_api} on pipe {pipe} writes {} bytes [{:#x}, {:#x}) \
                 of {} that {prev_api} on pipe {pipe} (at {}:{}) also wrote, and nothing orders the two: a pipe starts \
                 its instructions in order but need not finish them in order, so the bytes hold either's data when \
                 {cur_api} on pipe {} (at {}:{}) reads them; add PipeBarrier<PIPE_{pipe}>() between the two writes",
                self.core,
                mem_name(mem),
                r.s,
                r.e,
                self.buffer_of(mem, r.s, r.e),
                prev_loc.file(),
                prev_loc.line(),
                cur.pipe().short_name(),
                cur_loc.file(),
                cur_loc.line(),
            ),
            later_loc,
        )
    }

    #[inline(always)]
    fn join(&mut self, dst: usize, c: &Clock<L>) {
        join_into(&mut self.vc[dst & (ROWS - 1)], c);
    }

    /// `PipeBarrier<PIPE_ALL>`: every pipe knows every instruction issued so far.
    fn barrier_all(&mut self) {
        for m in &mut self.marks {
            *m = m.wrapping_add(1);
        }
        let mut all = [0; L];
        for (l, c) in all.iter_mut().enumerate().take(PIPE_NUM) {
            *c = self.clock[LANE_PIPES[l] as usize];
        }
        self.vc = [all; ROWS];
    }

    /// `PipeBarrier<p>` of one pipe: its later instructions start after its earlier ones
    /// finished.
    fn barrier(&mut self, p: usize) {
        self.snapshot(p);
    }

    /// A wait on pipe `dst` for an event whose clock is `c`. A wait of the scalar pipe holds
    /// the scalar unit, which issues every instruction: whatever any pipe runs after it, it
    /// runs after what the event orders.
    #[inline(always)]
    fn wait(&mut self, dst: usize, c: &Clock<L>) {
        if dst & (ROWS - 1) == pipe_t::PIPE_S as usize {
            for row in &mut self.vc {
                join_into(row, c);
            }
        } else {
            self.join(dst, c);
        }
    }

    /// One vector instruction's access of its operands. An in-place instruction's writes go
    /// first: its reads then find its own write, which they precede (see `shadow`), and the
    /// write is checked against the earlier reads. Otherwise the reads do, so a
    /// read-after-write is what a message names first.
    #[inline(always)]
    fn vector_access(
        &mut self,
        api: &'static str,
        loc: &'static Location<'static>,
        reads: &[UbSpan],
        writes: &[UbSpan],
        in_place: bool,
    ) {
        let cur = self.start(api, pipe_t::PIPE_V, loc);
        if in_place {
            for &(_, a, b) in writes {
                self.ub(cur, a, b, true);
            }
        }
        for &(_, a, b) in reads {
            self.ub(cur, a, b, false);
        }
        if !in_place {
            for &(_, a, b) in writes {
                self.ub(cur, a, b, true);
            }
        }
    }

    /// Logs the GM side of a copy: `shape.rows` rows of `shape.row` bytes, `pitch` apart
    /// (one range when they are contiguous); a DMA write when `write`.
    #[inline(always)]
    fn gm_rows(&mut self, cur: Acc, region: usize, off: usize, pitch: usize, shape: &CopyShape, write: bool) {
        self.gm_rows_as(cur, region, off, pitch, shape, write, write, HashSrc::Unknown)
    }

    /// [`gm_rows`](Self::gm_rows), a write logged as a whole-block DMA write when `dma` (a
    /// `DataCopy`) or as exactly its bytes otherwise (a `DataCopyPad`, which writes `blockLen`
    /// bytes a row), which wrote what `src` says (see [`GmLog::log`]; each row, when they are
    /// apart, the whole source). `src` comes as an argument, in registers: handed over through
    /// a field of the state, its three words were stored one by one and loaded back by a
    /// 16-byte load, which waited for the stores to retire (no store forwards to a wider load).
    /// Inlined for the one range of contiguous rows (a tile's copy: the call cost as much as
    /// the logging), out of line for separate rows.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn gm_rows_as(
        &mut self,
        cur: Acc,
        region: usize,
        off: usize,
        pitch: usize,
        shape: &CopyShape,
        write: bool,
        dma: bool,
        src: HashSrc,
    ) {
        if pitch == shape.row || shape.rows == 1 {
            let span = if write { shape.d_span } else { shape.s_span };
            self.gm_src(cur, region, off, off + span, write, dma, src);
        } else {
            self.gm_rows_apart(cur, region, off, pitch, shape, write, dma, src);
        }
    }

    /// [`gm_rows_as`](Self::gm_rows_as) of rows `pitch` apart, each logged as its own range.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn gm_rows_apart(
        &mut self,
        cur: Acc,
        region: usize,
        off: usize,
        pitch: usize,
        shape: &CopyShape,
        write: bool,
        dma: bool,
        src: HashSrc,
    ) {
        // Each row is logged with the hash of the whole source (hashed once here).
        let src = match src {
            // SAFETY: `src` holds bytes of the core's Unified Buffer, checked to be inside it
            // by the copy that made it while it logs (see `ub_src`).
            HashSrc::Bytes { at, len } => HashSrc::Word(unsafe { gm::hash_bytes(at as *const u8, len) }),
            other => other,
        };
        for i in 0..shape.rows {
            let a = off + i * pitch;
            self.gm_src(cur, region, a, a + shape.row, write, dma, src);
        }
    }

    /// Logs the GM rows of a cube instruction (see [`GmRows`]): exact bytes, one range when
    /// the rows are contiguous.
    fn gm_rows_of(&mut self, cur: Acc, g: &GmRows, write: bool) {
        if g.rows == 0 || g.row == 0 {
            return;
        }
        if g.pitch == g.row || g.rows == 1 {
            let e = g.off + (g.rows - 1) * g.pitch + g.row;
            self.gm(cur, g.region, g.off, e, write, false);
        } else {
            for i in 0..g.rows {
                let a = g.off + i * g.pitch;
                self.gm(cur, g.region, a, a + g.row, write, false);
            }
        }
    }

    /// Logs a GM access of `[s, e)` of `region` by `cur`.
    #[inline(always)]
    fn gm(&mut self, cur: Acc, region: usize, s: usize, e: usize, write: bool, dma: bool) {
        self.gm_as(cur, region, s, e, write, dma, false)
    }

    /// [`gm`](Self::gm) of a write of what `src` says (see [`GmLog::log`]).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn gm_src(&mut self, cur: Acc, region: usize, s: usize, e: usize, write: bool, dma: bool, src: HashSrc) {
        let key = GmRec::key(cur.site(), self.phase, write, dma, write && self.atomic);
        self.gm_key_src(cur, region, s, e, write, key, src)
    }

    /// [`gm`](Self::gm), logged as atomic when `sync` (a flag access through the
    /// DCache-bypassing calls: two cores' accesses of it are not races).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn gm_as(&mut self, cur: Acc, region: usize, s: usize, e: usize, write: bool, dma: bool, sync: bool) {
        let atomic = sync || (write && self.atomic);
        self.gm_key(cur, region, s, e, write, GmRec::key(cur.site(), self.phase, write, dma, atomic))
    }

    /// Logs a GM access of `[s, e)` of `region` by `cur` under `key` (see [`GmRec::key`]),
    /// and checks it against the core's own unordered GM writes (see [`gm_local`]).
    #[inline(always)]
    fn gm_key(&mut self, cur: Acc, region: usize, s: usize, e: usize, write: bool, key: u64) {
        self.gm_key_src(cur, region, s, e, write, key, HashSrc::Unknown)
    }

    /// [`gm_key`](Self::gm_key) of a write of what `src` says (see [`GmLog::log`]; a read's
    /// `src` is not used).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn gm_key_src(
        &mut self,
        cur: Acc,
        region: usize,
        s: usize,
        e: usize,
        write: bool,
        key: u64,
        src: HashSrc,
    ) {
        if s < e {
            let rec = GmRec { region, s, e, key, hash: 0 };
            // SAFETY: `src` is `Unknown`, a hash, or (a copy UB → GM) the copy's source bytes,
            // checked to be inside the core's Unified Buffer (see `ub_src`), which only this
            // thread accesses while the hook runs.
            unsafe { self.gm.log(rec, if write { src } else { HashSrc::Unknown }) };
            if write
                && cur.pipe() != pipe_t::PIPE_S
                && self.dcache.own_checks
                && self.dcache.touched.0 < region + e
                && region + s < self.dcache.touched.1
            {
                self.dcache.dma_wrote(region + s, region + e, cur.site());
            }
            if write {
                let mark = self.marks[cur.pipe() as usize & (ROWS - 1)];
                let l = cur.lane() as usize & (L - 1);
                let known = self.vc[pipe_t::PIPE_MTE2 as usize][l];
                let own = self.vc[cur.pipe() as usize & (ROWS - 1)][l];
                if let Some(w) = self.local.write(
                    cur.pipe(),
                    region,
                    s,
                    e,
                    cur.clock,
                    cur.site(),
                    mark,
                    known,
                    own,
                    key & gm::ATOMIC != 0,
                ) {
                    self.report_gm_waw(cur, region, s, e, w)
                }
            } else if cur.pipe() == pipe_t::PIPE_MTE2 {
                if self.dcache.own_checks
                    && (self.dcache.own.last.is_some() || !self.dcache.own.unclean.is_empty())
                {
                    self.unclean_read(cur, region, s, e);
                }
                if let Some((pipe, w)) = self.local.read(region, s, e, &self.vc[pipe_t::PIPE_MTE2 as usize]) {
                    self.report_gm_local(cur, region, s, e, pipe, w)
                }
            }
        }
    }

    /// This pipe's clock, as an event it sets records it (counted: see [`gm_local`]). The
    /// event fires when every earlier instruction of the pipe has finished, and the pipe's
    /// later instructions start after it: the pipe is ordered after its own past too.
    #[inline(always)]
    fn snapshot(&mut self, p: usize) -> Clock<L> {
        // The row is read whole before the pipe's own lane is raised, then stored whole: a
        // whole-row load right after a one-lane store would wait for the store to retire.
        let p = p & (ROWS - 1);
        self.marks[p] = self.marks[p].wrapping_add(1);
        let row = with_lane(self.vc[p], &Self::ROW_MASK[p], self.clock[p]);
        store_row(&mut self.vc[p], row);
        row
    }

    /// A DMA read (MTE2) of `[s, e)` of `region` by `cur`: fails if it covers bytes a scalar
    /// write of the core left in its data cache (see [`OwnLines`]).
    #[cold]
    #[inline(never)]
    fn unclean_read(&self, cur: Acc, region: usize, s: usize, e: usize) {
        let Some((line, bits, site)) = self.dcache.own.unclean_in(region + s, region + e) else { return };
        let (api, loc) = self.sites.get(cur.site());
        let (w_api, w_loc) = self.sites.get(site);
        let (a, b) = (
            line + bits.trailing_zeros() as usize - region,
            line + 64 - bits.leading_zeros() as usize - region,
        );
        fail_at(
            api,
            format!(
                "sanitizer: data-cache race on core {}: {api} on pipe MTE2 reads bytes [{a:#x}, {b:#x}) of the region \
                 at GM {region:#x} by DMA, and {w_api} (at {}:{}) wrote them through the core's data cache, where they \
                 stay until the line is cleaned: the DMA reads GM, not the cache, so it gets the old bytes; clean the \
                 line after the write (DataCacheCleanAndInvalid<T, CacheLine::SINGLE_CACHE_LINE, \
                 DcciDst::CACHELINE_OUT> on the 64-byte line at GM [{:#x}, {:#x})) before the copy",
                self.core,
                w_loc.file(),
                w_loc.line(),
                line,
                line + LINE_BYTES,
            ),
            loc,
        )
    }

    /// A scalar read of `[s, e)` of `region` by `cur`: fails if a DMA write of the core changed
    /// those bytes in GM while the core held their line in its data cache (see [`OwnLines`]).
    #[cold]
    #[inline(never)]
    fn stale_read(&self, cur: Acc, region: usize, s: usize, e: usize) {
        let line = line_of(region + s);
        let Some(&(bits, site)) = self.dcache.own.stale.get(&line) else { return };
        if bits & line_mask(line, region + s, region + e) == 0 {
            return;
        }
        let (api, loc) = self.sites.get(cur.site());
        let (w_api, w_loc) = self.sites.get(site);
        fail_at(
            api,
            format!(
                "sanitizer: data-cache race on core {}: {api} reads bytes [{s:#x}, {e:#x}) of the region at GM \
                 {region:#x} through the core's data cache, which holds the 64-byte line at GM [{:#x}, {:#x}) from \
                 an earlier scalar access, and {w_api} (at {}:{}) wrote those bytes in GM by DMA since, which the cache \
                 does not see: the read gets the old bytes; invalidate the line first \
                 (DataCacheCleanAndInvalid<T, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>)",
                self.core,
                line,
                line + LINE_BYTES,
                w_loc.file(),
                w_loc.line(),
            ),
            loc,
        )
    }

    #[cold]
    #[inline(never)]
    fn report_gm_waw(&self, cur: Acc, region: usize, s: usize, e: usize, w: gm_local::Write) -> ! {
        let (api, loc) = self.sites.get(cur.site());
        let (w_api, w_loc) = self.sites.get(w.site);
        let (a, b) = (s.max(w.s), e.min(w.e));
        let p = cur.pipe().short_name();
        fail_at(
            api,
            format!(
                "sanitizer: write-after-write race on global memory on core {}: {api} on pipe {p} writes bytes [{a:#x}, \
                 {b:#x}) of the region at GM {region:#x} that {w_api} on pipe {p} (at {}:{}) wrote, and nothing orders \
                 the two: a pipe starts its copies in order but need not finish them in order, so either value may \
                 land; add PipeBarrier<PIPE_{p}>() between them",
                self.core,
                w_loc.file(),
                w_loc.line(),
            ),
            loc,
        )
    }

    #[cold]
    #[inline(never)]
    fn report_gm_local(
        &self,
        cur: Acc,
        region: usize,
        s: usize,
        e: usize,
        pipe: pipe_t,
        w: gm_local::Write,
    ) -> ! {
        let (api, loc) = self.sites.get(cur.site());
        let (w_api, w_loc) = self.sites.get(w.site);
        let (a, b) = (s.max(w.s), e.min(w.e));
        let event = HardEventKind::between(pipe, pipe_t::PIPE_MTE2).map_or(String::new(), |ev| {
            format!("add SetFlag<HardEvent::{0}> / WaitFlag<HardEvent::{0}> or ", ev.name)
        });
        fail_at(
            api,
            format!(
                "sanitizer: read-after-write race on global memory on core {}: {api} on pipe MTE2 reads bytes \
                 [{a:#x}, {b:#x}) of the region at GM {region:#x} that {w_api} on pipe {} (at {}:{}) wrote, and no \
                 event orders MTE2 after {}; {event}PipeBarrier<PIPE_ALL> between them",
                self.core,
                pipe.short_name(),
                w_loc.file(),
                w_loc.line(),
                pipe.short_name()
            ),
            loc,
        )
    }
}

/// The events of a queue: `(enque event, free event)`.
type QueEvents = Option<(HardEventKind, HardEventKind)>;

/// The events a queue between `src` and `dst` sets and waits on the current core's chip, as
/// AscendC's `TQueBind` derives them (`GetQueEvt` over the memories of the queue's logical
/// source and destination; a `TQue<pos>` is `TQueBind<GM, VECIN>` for VECIN and
/// `TQueBind<VECOUT, GM>` for VECOUT): `(enque event, free event)`. EnQue sets the first and
/// DeQue waits for it; FreeTensor sets the second and the next AllocTensor of the buffer waits
/// for it. A `VECCALC` queue has none.
pub fn que_events(src: TPosition, dst: TPosition) -> QueEvents {
    que_events_on(crate::kernel::ctx::get_soc(), src, dst)
}

/// The pipes of a queue's two events, as the hooks use them: enque `(src, dst)` and free
/// `(src, dst)`, as clock rows.
#[derive(Clone, Copy)]
pub(crate) struct QuePipes {
    enq: (usize, usize),
    free: (usize, usize),
}

impl QuePipes {
    /// The pipes (clock rows) of the enque event and of the free event, each `(src, dst)`.
    pub(crate) fn rows(self) -> ((usize, usize), (usize, usize)) {
        (self.enq, self.free)
    }
}

/// [`QuePipes`] of the queue between `src` and `dst`, or `None` for a queue without events,
/// for the queues whose events do not depend on the chip (see [`que_chip_dependent`]; for the
/// others this is Ascend910B's, and the queues ask [`que_pipes_on`] instead). A `const fn`: the
/// queues evaluate it per position pair at compile time (`const { que_pipes(S::POS, D::POS)
/// }`), so a hook spends nothing on it.
pub(crate) const fn que_pipes(src: TPosition, dst: TPosition) -> Option<QuePipes> {
    que_pipes_on(crate::soc::Soc::Ascend910B, src, dst)
}

/// Whether the events of a queue between `src` and `dst` depend on the chip: a cube position
/// is involved (the memory behind `C1`, `C2`, `CO1` and `CO2` differs between the chips). Such
/// a queue asks [`que_pipes_on`] at run time; the others use the table.
pub(crate) const fn que_chip_dependent(src: TPosition, dst: TPosition) -> bool {
    const fn vec(p: TPosition) -> bool {
        matches!(p, TPosition::GM | TPosition::VECIN | TPosition::VECOUT | TPosition::VECCALC)
    }
    !(vec(src) && vec(dst))
}

/// [`que_events`] on chip `soc`: the vendor's `GetQueEvt` over the memories (`GetPhyType`) of
/// the queue's logical source and destination (`position::que_path`). The cube's streams: GM → L1 `MTE2_MTE1`, GM →
/// L0A/L0B `MTE2_M`, L1 → L0A/L0B `MTE1_M`, UB → L1 `MTE3_MTE1`, L1 → UB `MTE1_V`, L0A/L0B →
/// L0C `M_V`, L0C → GM (Ascend910B, Ascend310B) `M_FIX`, L0C → UB (Ascend910, Ascend310P)
/// `M_V`; each with its reverse as the free event. A stream the vendor gives no event pair
/// (UB → L0C, a memory this emulator does not model) has none.
pub(crate) const fn que_events_on(soc: crate::soc::Soc, src: TPosition, dst: TPosition) -> QueEvents {
    use crate::sync::event::{Event, HardEvent as H};
    use Memory::*;
    let Some((s, d)) = crate::position::que_path(src, dst) else { return None };
    // `None` is global memory (CO2 on Ascend910B is GM), or the bias table (C2 on Ascend310B),
    // which a queue cannot be given buffers in.
    let (hs, hd) = (s.memory(soc), d.memory(soc));
    if (matches!(s, TPosition::C2) && hs.is_none()) || (matches!(d, TPosition::C2) && hd.is_none()) {
        return None;
    }
    let (a, b) = match (hs, hd) {
        (None, Some(Ub)) => (H::MTE2_V::EVENT, H::V_MTE2::EVENT),
        (None, Some(L1)) => (H::MTE2_MTE1::EVENT, H::MTE1_MTE2::EVENT),
        (None, Some(L0A | L0B)) => (H::MTE2_M::EVENT, H::M_MTE2::EVENT),
        (Some(Ub), None) => (H::V_MTE3::EVENT, H::MTE3_V::EVENT),
        (Some(Ub), Some(L1)) => (H::MTE3_MTE1::EVENT, H::MTE1_MTE3::EVENT),
        (Some(Ub), Some(Ub)) => (H::MTE2_MTE3::EVENT, H::MTE3_MTE2::EVENT),
        (Some(L1), Some(Ub)) => (H::MTE1_V::EVENT, H::V_MTE1::EVENT),
        (Some(L1), Some(L0A | L0B)) => (H::MTE1_M::EVENT, H::M_MTE1::EVENT),
        // L1 -> BT (Ascend910B's C1 -> C2) is MTE1, read by Mmad (the vendor's mmad sample
        // sets MTE1_M after its DataCopy into C2).
        (Some(L1), Some(BiasTable)) => (H::MTE1_M::EVENT, H::M_MTE1::EVENT),
        (Some(L0A | L0B), Some(L0C)) => (H::M_V::EVENT, H::V_M::EVENT),
        (Some(L0C), _) if matches!(soc, crate::soc::Soc::Ascend910 | crate::soc::Soc::Ascend310P) => {
            (H::M_V::EVENT, H::V_M::EVENT)
        }
        (Some(L0C), _) => (H::M_FIX::EVENT, H::FIX_M::EVENT),
        _ => return None,
    };
    Some((a, b))
}

/// [`que_pipes`] on chip `soc` (see [`que_events_on`]).
pub(crate) const fn que_pipes_on(soc: crate::soc::Soc, src: TPosition, dst: TPosition) -> Option<QuePipes> {
    match que_events_on(soc, src, dst) {
        Some((e, f)) => Some(QuePipes {
            enq: (e.src as usize & (ROWS - 1), e.dst as usize & (ROWS - 1)),
            free: (f.src as usize & (ROWS - 1), f.dst as usize & (ROWS - 1)),
        }),
        None => None,
    }
}

/// The key the sanitizer records a queue buffer of memory `mem` at address `addr` under: the
/// UB's addresses as they are, the cube memories' above 2^32, one range each, so that records
/// of different memories never meet.
pub(crate) const fn buf_key(mem: Memory, addr: usize) -> usize {
    ((mem as usize) << 32) + addr
}

// ---------------------------------------------------------------------------------------
// Hooks, called by the instructions, the copies, the tensors and the queues.

/// One side of a copy, as the sanitizer sees it.
#[derive(Clone, Copy, Debug)]
#[doc(hidden)]
pub enum SanSide {
    /// UB byte address and the tensor's lifetime tag.
    Ub(usize, u64),
    /// L1 byte address and the tensor's lifetime tag (the destination of a GM → L1 copy).
    L1(usize, u64),
    /// GM region (address of its first byte) and byte offset in it.
    Gm(usize, usize),
}

/// A UB operand of a vector instruction: tag and byte span.
pub(crate) type UbSpan = (u64, usize, usize);

/// A vector instruction (pipe V) reading `reads` and writing `writes`.
#[track_caller]
#[inline(always)]
pub(crate) fn on_vector(api: &'static str, reads: &[UbSpan], writes: &[UbSpan]) {
    let loc = Location::caller();
    with_san!(|s| {
        for &(tag, _, _) in reads {
            s.check_tag(api, tag, loc);
        }
        for &(tag, _, _) in writes {
            s.check_tag(api, tag, loc);
        }
        if let Some((r, w)) = &mut s.fused {
            r.extend_from_slice(reads);
            w.extend_from_slice(writes);
            return;
        }
        // (An instruction's operands are the same bytes or apart: the engine rejects partial
        // overlap, so comparing the starts finds an in-place one.)
        let in_place = match writes {
            [(_, w, _)] => reads.iter().any(|&(_, r, _)| r == *w),
            _ => false,
        };
        s.vector_access(api, loc, reads, writes, in_place);
    });
}

/// Makes the [`on_vector`] calls until the returned guard drops one instruction: a vector
/// instruction whose operands reach the sanitizer in several calls (a reduction reads its
/// source, then writes its results) is one access of the V pipe at one clock, so an in-place
/// one (`RepeatReduceSum` of a row into its own first elements) finds its own read, as the
/// hardware's single instruction does, not an unordered earlier one. The guard's drop checks
/// the collected operands; a panic meanwhile discards them. `api` names the instruction.
#[track_caller]
pub(crate) fn fuse_vector(api: &'static str) -> FusedVector {
    let loc = Location::caller();
    let on = with_san!(|s| s.fused.is_none() && {
        s.fused = Some(Default::default());
        true
    });
    FusedVector { api, loc, on: on == Some(true) }
}

/// The guard of [`fuse_vector`].
pub(crate) struct FusedVector {
    api: &'static str,
    loc: &'static Location<'static>,
    /// Whether this guard opened the collection (not an inner one, not a core without the
    /// sanitizer).
    on: bool,
}

impl Drop for FusedVector {
    fn drop(&mut self) {
        if !self.on {
            return;
        }
        let (api, loc) = (self.api, self.loc);
        with_san!(|s| {
            let Some((reads, writes)) = s.fused.take() else { return };
            if std::thread::panicking() || (reads.is_empty() && writes.is_empty()) {
                return;
            }
            // Operands of one instruction that share bytes: the instruction works in place.
            let in_place = writes.iter().any(|w| reads.iter().any(|r| r.1 < w.2 && w.1 < r.2));
            s.vector_access(api, loc, &reads, &writes, in_place);
        });
    }
}

/// A scalar access (pipe S) of `[s, e)` of a LocalTensor.
#[track_caller]
#[inline]
pub(crate) fn on_scalar_ub(api: &'static str, tag: u64, s: usize, e: usize, write: bool) {
    let loc = Location::caller();
    with_san!(|st| {
        st.check_tag(api, tag, loc);
        let cur = st.start(api, pipe_t::PIPE_S, loc);
        st.ub(cur, s, e, write);
    });
}

/// A scalar access (pipe S) of `[s, e)` of a GM region (by the address of its first byte): a
/// write, or a read that found `found` in the region `found` names. A flag read that makes the
/// core's reads a poll blocks it (see [`Poll`]).
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
    let loc = Location::caller();
    with_san!(|st| {
        let cur = st.start(api, pipe_t::PIPE_S, loc);
        if st.dcache.own_checks {
            if write {
                st.dcache.own.wrote(region + s, region + e, cur.site());
            } else if !st.dcache.own.stale.is_empty() {
                st.stale_read(cur, region, s, e);
            }
        }
        let fresh = st.dcache.touch(region + s, write);
        if write {
            // Into the data cache: a plain write of the whole line until a clean. The emulator
            // stores it in GM at once, so a core polling the line may see it before the clean:
            // the line is released here already, as the clean will (a flag never cleaned is a
            // race anyway, this write staying plain).
            st.gm_key(cur, region, s, e, true, GmRec::line_write_key(cur.site(), st.phase));
            let (line, ended) = (line_of(region + s), st.published());
            if st.released != Some((line, st.phase, ended)) {
                st.deposit(&[line], ended);
                st.released = Some((line, st.phase, ended));
            }
        } else if fresh {
            // From GM, the line invalidated just before: a flag read, acquiring the line.
            st.gm_as(cur, region, s, e, false, false, true);
            st.acquire_if(&[line_of(region + s)], false);
            if let Some((v, r)) = found {
                st.flag_read(cur, r, s, e - s, elem_bits(v));
            }
        } else {
            st.gm(cur, region, s, e, false, false);
        }
    });
}

/// `DataCacheCleanAndInvalid` towards GM (`CACHELINE_OUT`, `CACHELINE_ALL`, or the form
/// without `dcciDst`) of the line from byte `off` of `region` on (`None`: the whole cache,
/// `ENTIRE_DATA_CACHE`), on pipe S. Invalidating: the core's next scalar read there comes
/// from GM (see [`DCache`]). Cleaning: its scalar writes there since the epoch began reach GM
/// as flag writes, releasing the line (every cleaned line when the whole cache is cleaned):
/// what the core did before is published to the core that reads the flag — when pipe S is
/// ordered after the core's copies out by then (`SetFlag`/`WaitFlag<HardEvent::MTE3_S>`);
/// else only what an earlier clean published.
pub(crate) fn on_dcci(target: Option<(usize, usize)>) {
    with_san!(|st| {
        let at = target.map(|(region, off)| region + off);
        st.dcache.invalidate(at);
        if !st.dcache.clean(at) {
            return;
        }
        let range = target.map(|(region, off)| (region, off, line_of(region + off) + LINE_BYTES - region));
        let cleaned = st.gm.clean(range, st.epoch_phase);
        if cleaned.is_empty() {
            return;
        }
        let mut lines: Vec<usize> = cleaned
            .iter()
            .flat_map(|&(region, s, e)| (line_of(region + s)..region + e).step_by(LINE_BYTES))
            .collect();
        lines.sort_unstable();
        lines.dedup();
        let ended = st.published();
        st.deposit(&lines, ended);
        st.new_phase(false);
    });
}

/// `InitGlobalMemory` at `loc` starts: its GM writes (the copies it makes as `api` at `loc`)
/// repeat the byte pattern `pattern` (see [`GmAcc::fill`]).
pub(crate) fn on_fill(api: &'static str, loc: &'static Location<'static>, pattern: u64) {
    with_san!(|s| {
        let site = s.sites.id(api, loc);
        let known = s.fills.entry((site, s.phase)).or_insert(Some(pattern));
        if *known != Some(pattern) {
            *known = None;
        }
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

/// A copy: MTE2 (GM→UB or GM→L1), MTE3 (UB→GM) or V (UB→UB).
#[track_caller]
#[inline(always)]
pub(crate) fn on_copy(api: &'static str, dst: SanSide, src: SanSide, shape: &CopyShape) {
    let loc = Location::caller();
    with_san!(|st| match (dst, src) {
        (SanSide::Ub(d, tag), SanSide::Gm(region, off)) => {
            st.check_tag(api, tag, loc);
            let cur = st.start(api, pipe_t::PIPE_MTE2, loc);
            st.gm_rows(cur, region, off, shape.s_pitch, shape, false);
            st.ub(cur, d, d + shape.d_span, true);
        }
        (SanSide::Gm(region, off), SanSide::Ub(s, tag)) => {
            st.check_tag(api, tag, loc);
            let cur = st.start(api, pipe_t::PIPE_MTE3, loc);
            st.ub(cur, s, s + shape.s_span, false);
            // What the copy writes: its UB source's bytes, hashed so that cores writing the
            // same bytes are no race (an atomic write accumulates: no hash).
            let src = if st.atomic { HashSrc::Unknown } else { ub_src(s, shape.s_span) };
            st.gm_rows_as(cur, region, off, shape.d_pitch, shape, true, true, src);
        }
        (SanSide::Ub(d, dtag), SanSide::Ub(s, stag)) => {
            st.check_tag(api, stag, loc);
            st.check_tag(api, dtag, loc);
            let cur = st.start(api, pipe_t::PIPE_V, loc);
            // An in-place copy (the spans share bytes) is one instruction: its writes are
            // recorded first, as an in-place vector instruction's, so its reads see them as its own.
            let (de, se) = (d + shape.d_span, s + shape.s_span);
            let in_place = d < se && s < de;
            if in_place {
                st.ub(cur, d, de, true);
            }
            st.ub(cur, s, se, false);
            if !in_place {
                st.ub(cur, d, de, true);
            }
        }
        (SanSide::L1(d, tag), SanSide::Gm(region, off)) => {
            st.check_tag(api, tag, loc);
            let cur = st.start(api, pipe_t::PIPE_MTE2, loc);
            st.gm_rows(cur, region, off, shape.s_pitch, shape, false);
            st.local(Memory::L1, cur, d, d + shape.d_span, true);
        }
        // The copy's checks let L1 be only the destination of a GM source.
        (SanSide::L1(..), _) | (_, SanSide::L1(..)) | (SanSide::Gm(..), SanSide::Gm(..)) => {}
    });
}

/// A `DataCopyPad` from UB to GM (MTE3): as [`on_copy`], but each GM row is logged as exactly
/// the `blockLen` bytes it writes, for the cross-core race log and the core's own check alike.
/// The page (`DataCopyPad`: the dummy bytes of each UB row's last block are not written to GM)
/// and the hardware write only those bytes, so cores writing neighbouring per-row results into
/// one 32-byte block do not race; a `DataCopy` keeps its whole 32-byte blocks ([`on_copy`]).
#[track_caller]
#[inline(always)]
pub(crate) fn on_copy_pad_to_gm(
    api: &'static str,
    region: usize,
    off: usize,
    src: SanSide,
    shape: &CopyShape,
) {
    let loc = Location::caller();
    with_san!(|st| if let SanSide::Ub(s, tag) = src {
        st.check_tag(api, tag, loc);
        let cur = st.start(api, pipe_t::PIPE_MTE3, loc);
        st.ub(cur, s, s + shape.s_span, false);
        st.gm_rows_as(cur, region, off, shape.d_pitch, shape, true, false, HashSrc::Unknown);
    });
}

/// The `len` bytes of the current core's Unified Buffer from byte `at`, as the source of a
/// write's hash (`Unknown` when they are not all inside it). The address stays valid while the
/// hook runs: only this thread accesses the core's Unified Buffer, through raw pointers.
/// Inlined, and handed on as an argument, so that it stays in registers (a 24-byte result
/// returned through memory and copied by 16-byte moves stalled on the store buffer: a
/// twentieth of a 128-element-tile launch).
#[inline(always)]
fn ub_src(at: usize, len: usize) -> HashSrc {
    crate::kernel::ctx::with_core(|c| {
        if at.checked_add(len).is_none_or(|e| e > c.ub.size()) {
            return HashSrc::Unknown;
        }
        HashSrc::Bytes { at: c.ub.base() as usize + at, len }
    })
}

/// A memory's name in messages: `UB`, `L1`, `L0A`, `L0B`, `L0C`.
fn mem_name(mem: Memory) -> &'static str {
    match mem {
        Memory::Ub => "UB",
        m => m.hardware_name(),
    }
}

/// Whether the sanitizer is on for this thread's core (so that an instruction builds the
/// operand lists of a hook only when one will read them).
#[inline]
pub(crate) fn is_on() -> bool {
    SAN.with(Cell::get) & !PROFILING != 0
}

/// A cube instruction's operand in a core's local memory: the memory, its byte span, and the
/// tensor's lifetime tag.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Span {
    pub mem: Memory,
    pub s: usize,
    pub e: usize,
    pub tag: u64,
}

impl Span {
    /// The byte runs `(offset, length)` from this span's start, in increasing order, as spans,
    /// contiguous runs merged: what the shadow checks, so that bytes between the runs (another
    /// buffer interleaved with this one) are not taken for accessed.
    pub(crate) fn runs(self, runs: impl IntoIterator<Item = (usize, usize)>) -> Vec<Span> {
        let mut out: Vec<Span> = Vec::new();
        for (off, len) in runs {
            let (s, e) = (self.s + off, self.s + off + len);
            match out.last_mut() {
                Some(last) if last.e == s => last.e = e,
                _ => out.push(Span { s, e, ..self }),
            }
        }
        out
    }

    /// The first `bytes` bytes of `t`.
    pub(crate) fn of<T: crate::element::Element>(
        t: &crate::memory::tensor::LocalTensor<T>,
        bytes: usize,
    ) -> Span {
        let s = t.get_phy_addr();
        Span { mem: t.memory(), s, e: s + bytes, tag: t.tag }
    }
}

/// Most byte runs an access is checked by; past it, their envelope (see [`spans_of`]).
const MAX_RUNS: usize = 4096;

/// The `count` byte runs `(offset, length)` of `t` an instruction touches, in increasing
/// order, as [`Span`]s (see [`Span::runs`]); past [`MAX_RUNS`] runs, the first `envelope`
/// bytes of `t` as one span (a per-call cost bound for huge strided shapes).
pub(crate) fn spans_of<T: crate::element::Element>(
    t: &crate::memory::tensor::LocalTensor<T>,
    count: usize,
    runs: impl IntoIterator<Item = (usize, usize)>,
    envelope: usize,
) -> Vec<Span> {
    if count > MAX_RUNS {
        vec![Span::of(t, envelope)]
    } else {
        Span::of(t, 0).runs(runs)
    }
}

/// The global memory a cube instruction reads or writes: `rows` rows of `row` bytes, `pitch`
/// bytes apart, from byte `off` of the region at GM address `region`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GmRows {
    pub region: usize,
    pub off: usize,
    pub rows: usize,
    pub row: usize,
    pub pitch: usize,
}

impl GmRows {
    /// The rows from byte `off` of `t`'s bound range on.
    pub(crate) fn of<T: crate::element::Element>(
        t: &crate::memory::tensor::GlobalTensor<T>,
        off: usize,
        rows: usize,
        row: usize,
        pitch: usize,
    ) -> GmRows {
        let (region, base) = t.san_loc();
        GmRows { region, off: base + off, rows, row, pitch }
    }
}

/// A cube instruction on `pipe` (MTE2 for GM → L1/L0, MTE1 for L1 → L0, M for `Mmad`, FIX
/// for `Fixpipe`): it reads the global memory `gm_in` and the local spans `reads`, then writes
/// the local spans `writes` and the global memory `gm_out` (DMA writes of exactly those bytes).
/// With `settles`, the pipe's later instructions are ordered after this one: the hardware
/// resolves the dependency itself (the `Mmad` page: from `(m / 16) * (n / 16) >= 10` on, a
/// later `Mmad` reading the same L0C needs no `PipeBarrier<PIPE_M>`). The core's state is
/// widened to the clocks of every pipe first (see `shadow::VEC_LANES`).
#[track_caller]
pub(crate) fn on_cube(
    api: &'static str,
    pipe: pipe_t,
    gm_in: &[GmRows],
    reads: &[Span],
    writes: &[Span],
    gm_out: &[GmRows],
    settles: bool,
) {
    let loc = Location::caller();
    if !is_on() {
        return;
    }
    widen_for_cube();
    with_san!(|st| {
        for sp in reads.iter().chain(writes) {
            st.check_tag(api, sp.tag, loc);
        }
        let cur = st.start(api, pipe, loc);
        for g in gm_in {
            st.gm_rows_of(cur, g, false);
        }
        // An accumulating instruction's writes go first, as an in-place vector instruction's
        // (see `on_vector`): its read of the bytes then finds its own write.
        let in_place = writes.iter().any(|w| reads.iter().any(|r| r.mem == w.mem && r.s == w.s));
        if in_place {
            for w in writes {
                st.local(w.mem, cur, w.s, w.e, true);
            }
        }
        for r in reads {
            st.local(r.mem, cur, r.s, r.e, false);
        }
        if !in_place {
            for w in writes {
                st.local(w.mem, cur, w.s, w.e, true);
            }
        }
        for g in gm_out {
            st.gm_rows_of(cur, g, true);
        }
        if settles {
            st.settle(pipe, cur.clock);
        }
    });
}

/// `SetFlag`: the event remembers its source pipe's clock.
pub(crate) fn on_set_flag(e: HardEventKind, id: i32) {
    with_san!(|s| {
        let c = s.snapshot(e.src as usize);
        s.events[e.index as usize * IDS + id as usize] = c;
        s.flagged = true;
    });
}

/// `WaitFlag`: the destination pipe learns what the source pipe had done.
pub(crate) fn on_wait_flag(e: HardEventKind, id: i32) {
    with_san!(|s| {
        let c = std::mem::take(&mut s.events[e.index as usize * IDS + id as usize]);
        s.wait(e.dst as usize, &c);
    });
}

/// `SetAtomicAdd`/`Max`/`Min` (`on`) and `SetAtomicNone` (`!on`): global-memory writes of
/// the core are atomic while it is on.
pub(crate) fn on_atomic_mode(on: bool) {
    with_san!(|s| s.atomic = on);
}

/// `PipeBarrier<p>`: pipe `p` is ordered after its own earlier instructions; `PIPE_ALL`
/// orders every pipe after every instruction issued so far.
pub(crate) fn on_pipe_barrier(p: pipe_t) {
    with_san!(|s| if p == pipe_t::PIPE_ALL { s.barrier_all() } else { s.barrier(p as usize) });
}

/// `SyncAll`: a barrier of every pipe, and a new epoch for global memory.
pub(crate) fn on_sync_all() {
    with_san!(|s| {
        s.barrier_all();
        s.epoch += 1;
        s.new_phase(false);
        s.epoch_phase = s.phase;
    });
}

/// A cross-core release into the flags at the GM addresses `objs` (`IBSet`, the clear of
/// `IBWait`, `NotifyNextBlock`; after the primitive's `PipeBarrier<PIPE_ALL>`): every GM access
/// of this core so far happens before what a core does after acquiring one of them.
pub(crate) fn on_cross_release(objs: &[usize]) {
    with_san!(|s| s.release(objs));
}

/// `DataSyncBarrier<MemDsbT::DDR>` (or `ALL`): the core's GM accesses so far are what its next
/// `WriteGmByPassDCache` publishes.
pub(crate) fn on_data_sync_barrier() {
    with_san!(|s| {
        s.new_phase(false);
        s.fenced = s.phase;
    });
}

/// A scalar access of a flag in GM through `ReadGmByPassDCache` / `WriteGmByPassDCache`
/// (pipe S, logged as atomic): a write (`found == None`) releases what the core did before its
/// last `DataSyncBarrier`; a read (that found `found`) acquires what the flag's writers
/// released. A read that makes the core's reads a poll blocks it, as [`on_scalar_gm`].
#[track_caller]
pub(crate) fn on_by_pass_gm<T: bytemuck::Pod>(
    api: &'static str,
    region: &Arc<GmRegion>,
    s: usize,
    e: usize,
    found: Option<&T>,
) {
    let loc = Location::caller();
    let base = region.base() as usize;
    with_san!(|st| {
        let cur = st.start(api, pipe_t::PIPE_S, loc);
        st.gm_as(cur, base, s, e, found.is_none(), false, true);
        match found {
            None => st.deposit(&[base + s], st.fenced),
            Some(v) => {
                st.acquire_if(&[base + s], false);
                st.flag_read(cur, region, s, e - s, elem_bits(v));
            }
        }
    });
}

/// A cross-core acquire of the flags at `objs` (`IBWait`, `IBSet`'s wait for a free flag,
/// `WaitPreBlock`): this core's later GM accesses happen after what the releasers had done.
pub(crate) fn on_cross_acquire(objs: &[usize]) {
    with_san!(|s| s.acquire(objs));
}

/// `CrossCoreSetFlag` of `flag` on `pipe` into the round `key`: a cross-core release into the
/// round of every GM access of the core so far (as `IBSet`'s; that `pipe` is ordered after
/// them is not checked across cores); when the core's own counter gets the round (`own`:
/// modes 0 and 1), the pipe's clock is kept for the wait that takes it.
pub(crate) fn on_cross_core_set(pipe: pipe_t, flag: u16, key: usize, own: bool) {
    with_san!(|s| {
        if own {
            let row = s.snapshot(pipe as usize);
            s.cross_rows.entry(flag).or_default().push_back(row);
        }
        s.release(&[key]);
    });
}

/// `CrossCoreWaitFlag` of `flag` that took the round `key`: acquires the round from every core
/// that set it, and (holding the scalar unit) orders what the core issues next after its own
/// set's pipe when its own set was part of the round (`own`).
pub(crate) fn on_cross_core_wait(flag: u16, key: usize, own: bool) {
    with_san!(|s| {
        if own {
            if let Some(c) = s.cross_rows.get_mut(&flag).and_then(|q| q.pop_front()) {
                s.wait(pipe_t::PIPE_S as usize, &c);
            }
        }
        s.acquire(&[key]);
    });
}

/// `TPipe::InitBuffer` of a queue of `num` buffers of `len` bytes from `base`: registers
/// their records (reusing the run of records of an earlier queue of the same layout, after
/// `TPipe::reset`) and returns the queue's handle on them, which the queue hands back to the
/// hooks below ([`QueSan::NONE`] when the sanitizer is off).
#[track_caller]
pub(crate) fn on_init_queue(base: usize, len: usize, num: usize, pos: TPosition) -> QueSan {
    let loc = Location::caller();
    with_san!(|s| {
        let at = |k: usize| base + k * len;
        let first = (0..s.bufs.len().saturating_sub(num - 1)).find(|&i| {
            (0..num).all(|k| {
                let b = &s.bufs[i + k];
                b.start == at(k) && b.len == len && !b.live && !b.tbuf
            })
        });
        let first = match first {
            Some(i) => i,
            None => {
                let i = s.bufs.len();
                for k in 0..num {
                    s.new_buf(at(k), len, pos, k, loc);
                }
                i
            }
        };
        for k in 0..num {
            let b = &mut s.bufs[first + k];
            b.pos = pos;
            b.index = k;
        }
        let first = u32::try_from(first).expect("sanitizer: more than 2^32 queue buffers on one core");
        QueSan { session: s.session, first }
    })
    .unwrap_or(QueSan::NONE)
}

/// A `TBuf`'s handle on its record, as [`on_init_tbuf`] returned it: the session that made
/// the record and the tag of its tensors (`(0, 0)`: untracked).
pub(crate) type TBufSan = (u32, u64);

/// `TPipe::InitBuffer` of a `TBuf` of `len` bytes from `base` (a [`buf_key`]): its record is
/// live until the pipe is reset or dropped, and the tensors `TBuf::Get` hands out carry its
/// tag, so that one used after that is the stale-handle error, as a queue's is.
#[track_caller]
pub(crate) fn on_init_tbuf(base: usize, len: usize, pos: TPosition) -> TBufSan {
    let loc = Location::caller();
    with_san!(|s| {
        let found = s.bufs.iter().rposition(|b| b.tbuf && !b.live && b.start == base && b.len == len);
        let i = match found {
            Some(i) => i,
            None => {
                let i = s.new_buf(base, len, pos, 0, loc);
                s.bufs[i].tbuf = true;
                i
            }
        };
        let b = &mut s.bufs[i];
        b.generation = b.generation.wrapping_add(1).max(1);
        b.live = true;
        b.pos = pos;
        b.alloc_at = loc;
        let generation = b.generation;
        s.valid[i + 1] = generation;
        (s.session, ((i as u64 + 1) << 32) | u64::from(generation))
    })
    .unwrap_or((0, 0))
}

/// The tag of a tensor of the `TBuf` whose handle is `san` (see [`on_init_tbuf`]): 0 unless
/// this core's sanitizer state made the record.
#[inline(always)]
pub(crate) fn tbuf_tag(san: TBufSan) -> u64 {
    if san.0 == 0 {
        return 0;
    }
    with_san!(|s| if s.session == san.0 { san.1 } else { 0 }).unwrap_or(0)
}

/// `AllocTensor` of buffer `index` of a queue (`san` from [`on_init_queue`]) of `len`-byte
/// buffers from `base`: waits for the buffer's free event; returns the new handle's tag.
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
    let loc = Location::caller();
    with_san!(|s| {
        let i = match que_idx(s, san, base, len, index) {
            Some(i) => i,
            None => s.new_buf(base + index * len, len, src, index, loc),
        };
        let b = &mut s.bufs[i];
        b.generation = b.generation.wrapping_add(1).max(1);
        b.queued = false;
        b.alloc_at = loc;
        let free = std::mem::take(&mut b.free);
        let generation = b.generation;
        b.live = true;
        s.valid[i + 1] = generation;
        if let Some(q) = q {
            s.join(q.free.1, &free);
        }
        ((i as u64 + 1) << 32) | u64::from(generation)
    })
    .unwrap_or(0)
}

/// `EnQue` of buffer `index` (as [`on_alloc`]): sets the queue's enque event on its source
/// pipe.
#[inline(always)]
pub(crate) fn on_enque(san: QueSan, base: usize, len: usize, index: usize, q: Option<QuePipes>) {
    with_san!(|s| {
        let c = q.map_or(Default::default(), |q| s.snapshot(q.enq.0));
        let Some(i) = que_idx(s, san, base, len, index) else { return };
        let b = &mut s.bufs[i];
        b.queued = true;
        b.enq = c;
    });
}

/// `DeQue` of buffer `index`: waits for the enque event; returns the handle's tag.
#[inline(always)]
pub(crate) fn on_deque(san: QueSan, base: usize, len: usize, index: usize, q: Option<QuePipes>) -> u64 {
    with_san!(|s| {
        let Some(i) = que_idx(s, san, base, len, index) else { return 0 };
        let b = &mut s.bufs[i];
        b.queued = false;
        let (c, generation) = (std::mem::take(&mut b.enq), b.generation);
        if let Some(q) = q {
            s.join(q.enq.1, &c);
        }
        ((i as u64 + 1) << 32) | u64::from(generation)
    })
    .unwrap_or(0)
}

/// `FreeTensor` of buffer `index`: sets the queue's free event on the pipe that last used
/// the buffer.
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
    let loc = Location::caller();
    with_san!(|s| {
        s.check_tag(api, tag, loc);
        let (c, to) = q.map_or((Default::default(), 0), |q| (s.snapshot(q.free.0), q.free.1));
        let Some(i) = que_idx(s, san, base, len, index) else { return };
        let b = &mut s.bufs[i];
        b.live = false;
        b.queued = false;
        b.freed_at = Some(loc);
        b.free = c;
        b.free_to = to;
        s.valid[i + 1] = 0;
    });
}

/// `TBufPool::Reset`: as AscendC's, waits for the free event of every FREE buffer of the
/// pool's queues (`queues`: each one's handle from [`on_init_queue`], base, buffer length and
/// buffer count), so that the next user of those bytes (a queue of a pool sharing them) is
/// ordered after their last use; the events are consumed, as the reset clears their ids.
pub(crate) fn on_pool_reset(queues: &[(QueSan, usize, usize, usize)]) {
    with_san!(|s| {
        for &(san, base, len, num) in queues {
            for k in 0..num {
                let Some(i) = que_idx(s, san, base, len, k) else { continue };
                let b = &mut s.bufs[i];
                if b.live {
                    continue;
                }
                let (free, to) = (std::mem::take(&mut b.free), b.free_to);
                s.wait(to, &free);
            }
        }
    });
}

/// How a `TPipe` released its buffers.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Release {
    /// `TPipe::Reset`.
    Reset,
    /// The pipe's drop (AscendC `TPipe::Destroy`).
    Drop,
}

/// `TPipe` dropped or reset: its buffers are gone; the ones still allocated or queued are
/// reported when the kernel ends. As AscendC's `TPipe::Reset` and `Destroy` do, the free
/// event of every FREE buffer is waited for (the next user of those bytes is ordered after
/// their last one); a drop (`Destroy`) is also a `PipeBarrier<PIPE_ALL>`.
pub(crate) fn on_pipe_release(how: Release) {
    let why = match how {
        Release::Reset => "reset",
        Release::Drop => "dropped",
    };
    with_san!(|s| {
        let CoreSan { bufs, leaks, vc, .. } = s;
        for b in bufs.iter_mut() {
            if b.live && !b.tbuf {
                let state = if b.queued { "still queued" } else { "still allocated" };
                leaks.push((
                    format!("{} {state} when the TPipe was {why}; it was allocated here", b.describe()),
                    b.alloc_at,
                ));
            } else {
                join_into(&mut vc[b.free_to & (ROWS - 1)], &b.free);
            }
            b.live = false;
            b.queued = false;
            b.freed_at = None;
            b.enq = Default::default();
            b.free = Default::default();
            b.generation = b.generation.wrapping_add(1).max(1);
        }
        s.valid.fill(0);
        if how == Release::Drop {
            s.barrier_all();
        }
    });
}

/// The counters of the current core's flags (rounds not waited for), for the sanitizer's
/// end-of-kernel check: one lock for all of them (it runs at the end of every core).
fn own_counters() -> [usize; crate::sync::cross_flags::CROSS_CORE_FLAG_IDS] {
    let (slot, made) = crate::kernel::ctx::with_core(|c| {
        let made = match &c.barrier {
            Some(b) => b.cross_flags_made(),
            None => c.cross_own.get().cloned(),
        };
        (c.block_idx, made)
    });
    // Counters never made are all zero (a launch whose cores never set a flag makes none).
    made.map_or([0; crate::sync::cross_flags::CROSS_CORE_FLAG_IDS], |f| f.counters(slot))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_snapshot_raises_exactly_its_rows_lane() {
        fn check<const L: usize>() {
            for p in 0..ROWS {
                let row: Clock<L> = std::array::from_fn(|i| 10 * i as u32 + 1);
                let got = super::with_lane(row, &CoreSan::<L>::ROW_MASK[p], 99);
                let mut want = row;
                if let Some(l) = CoreSan::<L>::ROW_LANE[p] {
                    want[l] = 99;
                }
                assert_eq!(got, want, "row {p} of {L} lanes");
            }
        }
        check::<VEC_LANES>();
        check::<ALL_LANES>();
    }

    use super::*;
    use crate::prelude::*;

    /// Runs `f` as core 0 of a one-core Ascend910B; the message it panics with, if any.
    fn fault_of(f: impl FnOnce()) -> Option<String> {
        let cfg = crate::kernel::ctx::CoreConfig::single(crate::soc::Soc::Ascend910B);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            crate::kernel::ctx::run_on_core(cfg, f)
        }));
        r.err().map(|e| *e.downcast::<String>().expect("a message"))
    }

    /// [`fault_of`] with the sanitizer on for `f`.
    fn sanitized_fault_of(f: impl FnOnce()) -> Option<String> {
        fault_of(|| LaunchSanitizer::new().run_core(f))
    }

    /// 64 ones in a GM region, and a `GlobalTensor` over them (valid while the region lives).
    fn ones_in_gm() -> (std::sync::Arc<GmRegion>, GlobalTensor<f32>) {
        let region = GmRegion::from_bytes(bytemuck::cast_slice(&[1.0f32; 64]));
        let mut gm = GlobalTensor::<f32>::new();
        gm.set_global_buffer(region.addr(), 64);
        (region, gm)
    }

    /// Copies a tile in through a `VECIN` queue and reads it on the vector pipe, with or
    /// without the queue's EnQue/DeQue in between.
    fn copy_in_then_read(pipe: &mut TPipe, q: &mut TQue<VecIn, 1>, gm: &GlobalTensor<f32>, queued: bool) {
        let x = q.alloc_tensor::<f32>();
        data_copy(&x, gm, 64);
        let x = if queued {
            q.enque(x);
            q.deque::<f32>()
        } else {
            x
        };
        let mut sum = TBuf::<VecCalc>::new();
        pipe.init_tbuf(&mut sum, 256);
        add(&sum.get::<f32>(), &x, &x, 64);
        q.free_tensor(x);
    }

    #[test]
    fn a_queue_given_its_buffers_before_the_sanitizer_ran_is_still_checked() {
        let (_region, gm) = ones_in_gm();
        for (queued, earlier_session) in [(true, false), (false, false), (true, true), (false, true)] {
            let msg = fault_of(|| {
                // The queue's buffers are carved with the sanitizer off, or by another core's
                // sanitizer state (whose record handle this one must not trust): its records
                // are found by their bytes, and its events still order the pipes.
                let mut pipe = TPipe::new();
                let mut q = TQue::<VecIn, 1>::new();
                if earlier_session {
                    LaunchSanitizer::new().run_core(|| {
                        pipe.init_buffer(&mut q, 2, 256);
                        assert_eq!(with_san!(|s| s.bufs.len()), Some(2));
                    });
                } else {
                    pipe.init_buffer(&mut q, 2, 256);
                }
                LaunchSanitizer::new().run_core(|| {
                    assert_eq!(with_san!(|s| s.bufs.len()), Some(0));
                    copy_in_then_read(&mut pipe, &mut q, &gm, queued);
                    copy_in_then_read(&mut pipe, &mut q, &gm, queued);
                    assert_eq!(
                        with_san!(|s| s.bufs.iter().filter(|b| !b.tbuf).count()),
                        Some(2),
                        "a record per buffer, made at its AllocTensor (and one per TBuf)"
                    );
                })
            });
            if queued {
                assert_eq!(msg, None);
            } else {
                let msg = msg.expect("the missing EnQue/DeQue must be found");
                assert!(msg.contains("read-after-write race") && msg.contains("HardEvent::MTE2_V"), "{msg}");
            }
        }
    }

    #[test]
    fn a_dropped_pipe_is_a_barrier_for_the_next_pipe() {
        let (_region, gm) = ones_in_gm();
        let msg = sanitized_fault_of(|| {
            let mut first = TPipe::new();
            let mut b = TBuf::<VecCalc>::new();
            first.init_tbuf(&mut b, 256);
            duplicate(&b.get::<f32>(), 0.0, 64);
            drop(first); // AscendC's `TPipe::Destroy` ends with `PipeBarrier<PIPE_ALL>`
            let mut second = TPipe::new();
            let mut b = TBuf::<VecIn>::new();
            second.init_tbuf(&mut b, 256);
            data_copy(&b.get::<f32>(), &gm, 64); // the same bytes, on MTE2
        });
        assert_eq!(msg, None);
    }

    #[test]
    fn a_reset_pipe_carving_the_same_buffers_reuses_their_records() {
        let (_region, gm) = ones_in_gm();
        let msg = sanitized_fault_of(|| {
            let mut pipe = TPipe::new();
            let mut q = TQue::<VecIn, 1>::new();
            pipe.init_buffer(&mut q, 2, 256);
            copy_in_then_read(&mut pipe, &mut q, &gm, true);
            let old = q.alloc_tensor::<f32>();
            let kept = old.clone();
            q.free_tensor(old);
            for _ in 0..3 {
                // `Reset` waits for the free events of the FREE buffers (as AscendC's
                // does), so the next copy-in to those bytes is ordered after the reads.
                pipe.reset();
                let mut q = TQue::<VecIn, 1>::new();
                pipe.init_buffer(&mut q, 2, 256);
                copy_in_then_read(&mut pipe, &mut q, &gm, true);
            }
            // Three resets later: still the queue's two records and the TBuf's one.
            assert_eq!(with_san!(|s| s.bufs.len()), Some(3));
            pipe.reset();
            let mut q = TQue::<VecIn, 1>::new();
            pipe.init_buffer(&mut q, 2, 256);
            let again = q.alloc_tensor::<f32>();
            duplicate(&kept, 0.0, 64); // a handle from before the resets
            q.free_tensor(again);
        })
        .expect("the stale handle must be found");
        assert!(msg.contains("stale tensor handle") && msg.contains("buffer 1 of a VECIN queue"), "{msg}");
    }

    #[test]
    fn a_state_widened_for_the_cube_keeps_what_it_knew() {
        let (_region, gm) = ones_in_gm();
        for fixed in [false, true] {
            let msg = sanitized_fault_of(|| {
                let mut pipe = TPipe::new();
                let (mut b, mut o) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
                pipe.init_tbuf(&mut b, 256);
                pipe.init_tbuf(&mut o, 256);
                let (x, y) = (b.get::<f32>(), o.get::<f32>());
                data_copy(&x, &gm, 64); // MTE2 writes the tile, recorded in the narrow state
                if fixed {
                    set_flag::<HardEvent::MTE2_V>(0);
                    wait_flag::<HardEvent::MTE2_V>(0);
                }
                assert_eq!(SAN.with(Cell::get) & WIDE, 0, "a vector core's state starts narrow");
                let a = LocalTensor::<f16>::new(TPosition::A2, 0, 256);
                let w = LocalTensor::<f16>::new(TPosition::B2, 0, 256);
                let c = LocalTensor::<f32>::new(TPosition::CO1, 0, 256);
                mmad(&c, &a, &w, &MmadParams::new(16, 16, 16, 0, false, true));
                assert_ne!(SAN.with(Cell::get) & WIDE, 0, "the cube widened it");
                add(&y, &x, &x, 64); // V reads the tile: ordered only with the event
            });
            if fixed {
                assert_eq!(msg, None);
            } else {
                let msg = msg.expect("the race recorded before the widening must be found after it");
                assert!(msg.contains("read-after-write race") && msg.contains("HardEvent::MTE2_V"), "{msg}");
            }
        }
    }

    /// The queues' events per chip, as the vendor's `GetQueEvt` gives them.
    #[test]
    fn cube_queue_events_follow_the_chip() {
        use crate::soc::Soc::*;
        use TPosition::*;
        let name = |soc, s, d| que_events_on(soc, s, d).map(|(e, f)| (e.name, f.name));
        for soc in crate::soc::Soc::ALL {
            assert_eq!(name(soc, A1, A1), Some(("MTE2_MTE1", "MTE1_MTE2")), "{soc}");
            assert_eq!(name(soc, B1, B1), Some(("MTE2_MTE1", "MTE1_MTE2")), "{soc}");
            assert_eq!(name(soc, A2, A2), Some(("MTE1_M", "M_MTE1")), "{soc}");
            assert_eq!(name(soc, B2, B2), Some(("MTE1_M", "M_MTE1")), "{soc}");
            assert_eq!(name(soc, GM, A2), Some(("MTE2_M", "M_MTE2")), "{soc}");
            // The vector positions: the same on every chip.
            assert_eq!(name(soc, VECIN, VECIN), Some(("MTE2_V", "V_MTE2")), "{soc}");
            assert_eq!(name(soc, VECOUT, VECOUT), Some(("V_MTE3", "MTE3_V")), "{soc}");
            assert_eq!(name(soc, VECIN, VECOUT), Some(("MTE2_MTE3", "MTE3_MTE2")), "{soc}");
            assert_eq!(name(soc, GM, VECIN), Some(("MTE2_V", "V_MTE2")), "{soc}");
            assert_eq!(name(soc, VECCALC, VECCALC), None, "{soc}");
        }
        for soc in [Ascend910B, Ascend310B] {
            assert_eq!(name(soc, CO1, CO1), Some(("M_FIX", "FIX_M")), "{soc}");
        }
        for soc in [Ascend910, Ascend310P] {
            // CO1 -> CO2 is L0C -> UB there; C1 is a UB position, CO2 too.
            assert_eq!(name(soc, CO1, CO1), Some(("M_V", "V_M")), "{soc}");
            assert_eq!(name(soc, C1, C1), Some(("MTE2_V", "V_MTE2")), "{soc}");
            assert_eq!(name(soc, CO2, CO2), Some(("V_MTE3", "MTE3_V")), "{soc}");
        }
        assert_eq!(name(Ascend910B, C1, C1), Some(("MTE2_MTE1", "MTE1_MTE2")));
        // C1 -> C2 is L1 -> the bias table: MTE1, read by Mmad.
        assert_eq!(name(Ascend910B, C2, C2), Some(("MTE1_M", "M_MTE1")));
        assert_eq!(name(Ascend310B, C2, C2), None, "Ascend310B's bias table is not modelled");
    }

    #[test]
    fn an_exhausted_clock_is_an_error_not_a_wrap() {
        let san = LaunchSanitizer::new();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            san.run_core(|| {
                let v = pipe_t::PIPE_V as usize;
                with_san!(|s| s.clock[v] = MAX_CLOCK - 1);
                on_vector("Add", &[], &[]); // the last clock value
                on_vector("Add", &[], &[]); // one too many
            })
        }));
        let msg = *r.expect_err("the second instruction must fail").downcast::<String>().unwrap();
        assert!(msg.contains("core 0 issued 2147483647 instructions on pipe V"), "{msg}");
        assert!(msg.contains("Launch::sanitize(false)"), "{msg}");
    }
}
