//! The performance profiler: a modelled timeline of a launch on the chip.
//!
//! While a core runs under [`LaunchProfiler::run_core`], every instruction the kernel issues
//! reaches the profiler through the one instruction-event stream (`events.rs`) as a
//! [`Rec`]: its pipe, its API name, the kernel line that called it, its element type and
//! repeats or bytes, the UB and GM ranges it reads and writes, the events it sets and waits
//! for. After the launch, [`schedule::schedule`] replays the cores' records on the chip's
//! pipes with the costs of [`cost`] (the vendor's theoretical throughput tables, bandwidths
//! and latencies; each number names its source) and gives each instruction a start and an end
//! cycle, each core its busy time per pipe, and the launch its modelled duration.
//!
//! The model is in program order per pipe: an instruction starts when the scalar unit has
//! issued it, its pipe is free, and what it waits for (a queue's event, `SetFlag`/`WaitFlag`,
//! `PipeBarrier`, `SyncAll`, a cross-core flag; the compiler's automatic synchronisation of a
//! scalar tensor access) has happened. It is a model, not a measurement: see
//! `docs/profiling.md` for what it does not capture.
//!
//! A core without the profiler pays nothing: its flag is a bit of the word every event hook
//! loads anyway (see [`is_on`]).

pub mod cost;
pub mod schedule;

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::panic::Location;
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::Mutex;

use crate::element::DType;
use crate::sync::event::pipe_t;
use cost::Costs;

/// A pipe of an AI core, as the timeline shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pipe {
    /// The scalar unit: it issues every instruction and runs `GetValue`/`SetValue`.
    Scalar = 0,
    /// The vector unit (`PIPE_V`).
    Vector = 1,
    /// The cube unit (`PIPE_M`).
    Cube = 2,
    /// L1 → L0A/L0B (`PIPE_MTE1`).
    Mte1 = 3,
    /// GM → UB/L1 (`PIPE_MTE2`).
    Mte2 = 4,
    /// UB → GM (`PIPE_MTE3`).
    Mte3 = 5,
    /// L0C → GM/L1 (`PIPE_FIX`).
    Fixp = 6,
}

impl Pipe {
    /// Every pipe, in `pipe_t` order.
    pub const ALL: [Pipe; 7] =
        [Pipe::Scalar, Pipe::Vector, Pipe::Cube, Pipe::Mte1, Pipe::Mte2, Pipe::Mte3, Pipe::Fixp];

    /// The track name msprof uses: `SCALAR`, `VECTOR`, `CUBE`, `MTE1`, `MTE2`, `MTE3`, `FIXP`.
    pub fn name(self) -> &'static str {
        ["SCALAR", "VECTOR", "CUBE", "MTE1", "MTE2", "MTE3", "FIXP"][self as usize]
    }

    /// The pipe of `p` (`PIPE_ALL` has none).
    pub fn of(p: pipe_t) -> Option<Pipe> {
        Pipe::ALL.get(p as usize).copied()
    }

    /// The pipe of a clock row / `pipe_t` number (0..7).
    pub(crate) fn from_index(i: usize) -> Pipe {
        Pipe::ALL[i.min(6)]
    }
}

/// The direction of a copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyDir {
    /// GM → UB (MTE2).
    GmToUb,
    /// GM → L1 (MTE2).
    GmToL1,
    /// UB → GM (MTE3).
    UbToGm,
    /// UB → UB (V).
    UbToUb,
}

/// What one record does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Op {
    /// A vector instruction: its element type (`None` when the instruction did not say),
    /// its repeats (256-byte iterations), the cycles a repeat takes at least for the UB bank
    /// conflicts of its sources ([`cost::read_beats`]) and the mask-register calls it makes
    /// itself (a count form: four).
    Vector {
        /// Element type of the destination, when known.
        dtype: Option<DType>,
        /// Repeats (each one 256 bytes of every operand).
        repeats: u64,
        /// Cycles a repeat takes at least: 2 when its two sources meet in a UB bank group.
        beats: u8,
        /// Mask-register calls the instruction makes on the scalar unit before it issues.
        mask: u8,
    },
    /// A copy of `rows` rows of `row` bytes; `gm` is the GM address of its first byte (0 for
    /// a UB → UB copy). (32-bit counts keep the record small: a copy's rows and row bytes are
    /// `uint16_t`/`uint32_t` fields in the vendor's copy parameters.)
    Copy {
        /// Direction.
        dir: CopyDir,
        /// Rows (bursts).
        rows: u32,
        /// Bytes per row.
        row: u32,
        /// GM byte address of the first row.
        gm: u64,
    },
    /// `Mmad` of an `m × k` by `k × n` product, `A`'s element type.
    Mmad {
        /// Rows of A and C.
        m: u32,
        /// Columns of B and C.
        n: u32,
        /// Columns of A, rows of B.
        k: u32,
        /// Element type of A.
        dtype: DType,
    },
    /// A cube-side move (`LoadData`, `Fixpipe`, GM → L1 by `LoadData`) of `bytes` on `pipe`.
    CubeMove {
        /// Its pipe (MTE1, MTE2 or FIXP).
        pipe: Pipe,
        /// Bytes moved.
        bytes: u64,
        /// GM byte address of the first GM row it reads or writes (0: none).
        gm: u64,
    },
    /// A scalar access of a tensor (`GetValue`/`SetValue`) on pipe S.
    Scalar {
        /// Whether it touches GM (else UB).
        gm: bool,
        /// GM byte address it touches (0 for UB).
        addr: u64,
        /// Bytes it touches in GM (0 for UB).
        bytes: u32,
    },
    /// A flag set by `src` for `dst` (`SetFlag`, a queue's `EnQue`/`FreeTensor`); `key`
    /// pairs it with the [`Op::WaitFlag`]s of the same flag.
    SetFlag {
        /// The pipe whose earlier instructions the flag follows.
        src: Pipe,
        /// The pipe that will wait.
        dst: Pipe,
        /// The flag's identity.
        key: u64,
    },
    /// A wait of `dst` for a flag `src` set (`WaitFlag`, a queue's `DeQue`/`AllocTensor`).
    WaitFlag {
        /// The pipe that set the flag.
        src: Pipe,
        /// The pipe that waits.
        dst: Pipe,
        /// The flag's identity.
        key: u64,
    },
    /// A mask-register call on the scalar unit (`SetMaskCount`, `SetMaskNorm`,
    /// `SetVectorMask`, `ResetMask`).
    Mask,
    /// `PipeBarrier<p>` (`None`: `PIPE_ALL`).
    Barrier(Option<Pipe>),
    /// `SyncAll`: every core of the launch.
    SyncAll,
    /// `CrossCoreSetFlag` of `flag` after `pipe`'s instructions: this core's set in the round
    /// `round` (the round's mode, core group, flag id and number, as `cross_core` keys it for
    /// the sanitizer), which completes once `members` cores have set it.
    CrossSet {
        /// The pipe the flag follows.
        pipe: Pipe,
        /// Flag id.
        flag: u16,
        /// The round: (mode, core group, flag id, round number) packed as `cross_core` does.
        round: u64,
        /// Cores that set the round (every AIV of the launch in mode 0, the block's AIVs in
        /// mode 1 or mode 2 from an AIV, the AIC alone in mode 2 from an AIC).
        members: u32,
    },
    /// `CrossCoreWaitFlag` of `flag`, which took the round `round` off its counter.
    CrossWait {
        /// Flag id.
        flag: u16,
        /// The round it took (see [`Op::CrossSet`]).
        round: u64,
    },
}

impl Op {
    /// The pipe the record runs on (a flag wait: the waiting pipe; a barrier, `SyncAll` and a
    /// cross-core wait: the scalar unit, which they stall).
    pub fn pipe(&self) -> Pipe {
        match *self {
            Op::Vector { .. } => Pipe::Vector,
            Op::Copy { dir: CopyDir::GmToUb | CopyDir::GmToL1, .. } => Pipe::Mte2,
            Op::Copy { dir: CopyDir::UbToGm, .. } => Pipe::Mte3,
            Op::Copy { dir: CopyDir::UbToUb, .. } => Pipe::Vector,
            Op::Mmad { .. } => Pipe::Cube,
            Op::CubeMove { pipe, .. } => pipe,
            Op::SetFlag { src, .. } => src,
            Op::WaitFlag { dst, .. } => dst,
            Op::CrossSet { pipe, .. } => pipe,
            Op::Scalar { .. } | Op::Mask | Op::Barrier(_) | Op::SyncAll | Op::CrossWait { .. } => {
                Pipe::Scalar
            }
        }
    }
}

/// A call site of the event stream: an AscendC API name and the kernel line that called it,
/// interned once per process (see [`Site::of`]) so that a record names it with one pointer
/// instead of a name and a location (the records of a profiled launch are its largest
/// memory; a 128-element `add_custom` on 2^24 elements makes two million of them).
#[derive(Debug)]
pub struct Site {
    /// The AscendC API name (`"Add"`, `"DataCopy"`, `"TQue::EnQue"`).
    pub api: &'static str,
    /// The kernel line that called it.
    pub loc: &'static Location<'static>,
    /// Cycles of one repeat of a vector instruction at this site, by element type
    /// ([`DType`] as its index; the last entry: unknown type), 0 until first asked:
    /// [`cost::Costs::vector_repeat`] of the site's API, which the replay would otherwise
    /// look up in the vendor's table by name for every record.
    repeat: [AtomicU16; DTYPES + 1],
}

/// Element types [`DType`] has (the index of the unknown type in a site's cache).
const DTYPES: usize = DType::Bool as usize + 1;

/// Sites by the addresses of their name (and its length) and location.
type SiteTable = HashMap<(usize, usize, usize), &'static Site>;

/// Every site interned so far.
static SITES: Mutex<Option<SiteTable>> = Mutex::new(None);

/// Slots of a thread's site cache (a power of two: sets of two).
const SITE_CACHE: usize = 256;

impl Site {
    /// The one site of `api` called from `loc`: from this thread's cache, else from the
    /// process's table (made and kept there the first time: a site lives as long as the
    /// process, as its name and location do).
    #[inline]
    pub fn of(api: &'static str, loc: &'static Location<'static>) -> &'static Site {
        LOG.with(|l| l.borrow_mut().site(api, loc))
    }

    #[cold]
    #[inline(never)]
    fn intern(api: &'static str, loc: &'static Location<'static>) -> &'static Site {
        let key = (api.as_ptr() as usize, api.len(), loc as *const Location<'static> as usize);
        let mut g = SITES.lock().unwrap_or_else(|e| e.into_inner());
        g.get_or_insert_with(HashMap::new).entry(key).or_insert_with(|| {
            Box::leak(Box::new(Site { api, loc, repeat: std::array::from_fn(|_| AtomicU16::new(0)) }))
        })
    }

    /// [`cost::Costs::vector_repeat`] of this site's API on `dtype`, looked up once per site
    /// and type.
    #[inline]
    pub fn vector_repeat(&self, dtype: Option<DType>) -> u64 {
        let slot = &self.repeat[dtype.map_or(DTYPES, |d| d as usize)];
        match slot.load(Ordering::Relaxed) {
            0 => {
                // (At most 128 cycles a repeat: 256 elements at the table's slowest rate, 2.)
                let r = cost::Costs::vector_repeat(self.api, dtype);
                let r = u16::try_from(r).unwrap_or(u16::MAX).max(1);
                slot.store(r, Ordering::Relaxed);
                u64::from(r)
            }
            r => u64::from(r),
        }
    }
}

/// One instruction of a core, as the profiler recorded it: 48 bytes (what it does, its call
/// site, its UB ranges; its GM range is part of [`Op`]).
#[derive(Clone, Copy, Debug)]
pub struct Rec {
    /// What it does.
    pub op: Op,
    /// Its API name and kernel line.
    pub site: &'static Site,
    /// UB bytes `[start, end)` it reads (the first source; `(0, 0)` when none).
    pub ub_read: (u32, u32),
    /// UB bytes `[start, end)` it writes (`(0, 0)` when none).
    pub ub_write: (u32, u32),
}

const _: () = assert!(std::mem::size_of::<Rec>() <= 48);

impl Rec {
    /// A record without UB ranges.
    #[inline]
    pub fn new(op: Op, api: &'static str, loc: &'static Location<'static>) -> Rec {
        Rec { op, site: Site::of(api, loc), ub_read: (0, 0), ub_write: (0, 0) }
    }

    /// The AscendC API name (`"Add"`, `"DataCopy"`, `"TQue::EnQue"`).
    pub fn api(&self) -> &'static str {
        self.site.api
    }

    /// The kernel line that called it.
    pub fn loc(&self) -> &'static Location<'static> {
        self.site.loc
    }

    /// GM bytes: `(address of the first byte, bytes)` it reads or writes (`(0, 0)` when
    /// none): a GM copy's rows (`rows × row` bytes from `gm`), a scalar GM access, a cube
    /// move's first GM row and its bytes.
    pub fn gm(&self) -> (u64, u64) {
        match self.op {
            Op::Copy { dir: CopyDir::UbToUb, .. } => (0, 0),
            Op::Copy { rows, row, gm, .. } => (gm, u64::from(rows) * u64::from(row)),
            Op::Scalar { gm: true, addr, bytes } => (addr, u64::from(bytes)),
            Op::CubeMove { gm, bytes, .. } if gm != 0 => (gm, bytes),
            _ => (0, 0),
        }
    }
}

/// The records of one core, in program order.
#[derive(Clone, Debug, Default)]
pub struct CoreLog {
    /// `GetBlockIdx()` of the core.
    pub core: u32,
    /// Whether it is a cube core (AIC): a cube kernel, or a core that used the cube.
    pub aic: bool,
    /// Its records.
    pub recs: Vec<Rec>,
}

/// Buffers of a profile already dropped (a core's records, its slices, a launch's flows),
/// kept for the next profiled launch: a buffer then starts with the capacity an earlier
/// launch reached, instead of growing from empty by copying and faulting in fresh pages in
/// every launch (page faults, page clearing and copies of growing buffers were over a quarter
/// of a profiled 128-element `add_custom`). A pool keeps at most [`SPARE_BUFFERS`] buffers
/// and its budget of bytes (a few hundred MiB: the records of 2^24 elements in 128-element
/// tiles, the bench's case, fill
/// 100 MiB): at most that much memory stays reserved after the
/// profiles are dropped.
pub(crate) struct Spare<T> {
    bufs: Mutex<(Vec<Vec<T>>, usize)>,
    budget: usize,
}

/// How many buffers each [`Spare`] pool keeps.
const SPARE_BUFFERS: usize = 64;

impl<T> Spare<T> {
    /// An empty pool that keeps at most `budget` bytes of capacity.
    pub(crate) const fn new(budget: usize) -> Spare<T> {
        Spare { bufs: Mutex::new((Vec::new(), 0)), budget }
    }

    /// An empty buffer: a kept one (the largest kept last), or a new one.
    pub(crate) fn take(&self) -> Vec<T> {
        let mut g = self.bufs.lock().unwrap_or_else(|e| e.into_inner());
        match g.0.pop() {
            Some(v) => {
                g.1 -= v.capacity() * std::mem::size_of::<T>();
                v
            }
            None => Vec::new(),
        }
    }

    /// Keeps `v`'s memory for a later [`Spare::take`], if the pool has room.
    pub(crate) fn give(&self, mut v: Vec<T>) {
        let bytes = v.capacity() * std::mem::size_of::<T>();
        if bytes == 0 {
            return;
        }
        v.clear();
        let mut g = self.bufs.lock().unwrap_or_else(|e| e.into_inner());
        if g.0.len() < SPARE_BUFFERS && g.1 + bytes <= self.budget {
            g.1 += bytes;
            g.0.push(v);
        }
    }
}

/// Record buffers of dropped logs.
static SPARE: Spare<Rec> = Spare::new(512 << 20);

impl Drop for CoreLog {
    /// Hands the record buffer to the next launch (the module's spare buffers).
    fn drop(&mut self) {
        SPARE.give(std::mem::take(&mut self.recs));
    }
}

/// Records a core replays while it runs (see [`Recording::replay`]): about 48 KiB of
/// records and 24 KiB of slices, which the replay finds in the cache.
const LIVE_CHUNK: usize = 1024;

/// A core's records while it runs, and the replay of its core-local part so far.
pub(crate) struct Recording {
    /// The records, in program order.
    recs: Vec<Rec>,
    /// Whether the core ran an `Mmad`.
    cube: bool,
    /// The replay made while the core runs (see [`LaunchProfiler::live`]).
    live: Option<Box<Live>>,
    /// The record count at which [`push`] replays the next records (`usize::MAX`: none).
    next: usize,
}

/// A core's replay while it runs, with what [`LaunchProfiler::live`] was given (the
/// replay's costs and the launch's core count: a thread's log has no path to its profiler).
#[derive(Debug)]
struct Live {
    sim: schedule::CoreSim,
    costs: Costs,
    cores: u32,
}

impl Recording {
    /// No records, no replay.
    const EMPTY: Recording = Recording { recs: Vec::new(), cube: false, live: None, next: usize::MAX };

    /// Replays the records not yet replayed, up to the first that other cores share: a
    /// chunk of records still in the cache, where a replay after the launch reads all of
    /// them back from memory (a 128-element-tile launch of 2^24 elements records 100 MB).
    /// After a shared record the rest waits for the launch's replay.
    #[cold]
    #[inline(never)]
    fn replay(&mut self) {
        let more = self.live.as_mut().is_some_and(|l| l.sim.run_local(&self.recs, &l.costs, l.cores));
        self.next = if more { self.recs.len() + LIVE_CHUNK } else { usize::MAX };
    }
}

/// A thread's profiler state.
struct Log {
    /// This thread's core's records while it is profiled.
    cur: Recording,
    /// The thread's last sites by location and name, two-way set associative (a set of two
    /// slots per hash): a hook finds its site here without a lock, in the same thread-local
    /// access that records it. Two sites of one loop whose hashes meet keep a slot each (in
    /// a direct-mapped cache they evicted each other at every tile, and each miss took the
    /// process's lock).
    sites: [Option<&'static Site>; SITE_CACHE],
}

impl Log {
    /// [`Site::of`] through this thread's cache.
    #[inline]
    fn site(&mut self, api: &'static str, loc: &'static Location<'static>) -> &'static Site {
        // The slot hashes the location and the name: one call site records several APIs (a
        // queue operation and the flag it sets, a copy and its wait), which a slot chosen by
        // the location alone would evict from each other at every call.
        let (l, a) = (loc as *const Location<'static> as u64, api.as_ptr() as u64);
        let h =
            (l ^ a.rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (65 - SITE_CACHE.trailing_zeros());
        let set = &mut self.sites[2 * h as usize..][..2];
        let hit =
            |s: &Option<&'static Site>| s.filter(|s| std::ptr::eq(s.loc, loc) && std::ptr::eq(s.api, api));
        if let Some(s) = hit(&set[0]).or_else(|| hit(&set[1])) {
            return s;
        }
        // The set's newer site becomes its older one.
        let s = Site::intern(api, loc);
        set[1] = set[0];
        set[0] = Some(s);
        s
    }
}

thread_local! {
    /// This thread's profiler state.
    static LOG: RefCell<Log> =
        const { RefCell::new(Log { cur: Recording::EMPTY, sites: [None; SITE_CACHE] }) };
    /// The address of this thread's `LOG` once a record was pushed (null before, and after
    /// `LOG` is dropped): [`push`] reaches it with one thread-local load. (`LOG` itself, which
    /// owns a buffer and so has a destructor, is reached through `LocalKey::with`: a call
    /// that checks whether its destructor is registered; with the site lookup and the
    /// record's copy in that call, a record cost about 100 instructions.)
    static LOG_AT: Cell<*mut Log> = const { Cell::new(std::ptr::null_mut()) };
}

impl Drop for Log {
    /// Forgets `LOG`'s address (see `LOG_AT`).
    fn drop(&mut self) {
        LOG_AT.set(std::ptr::null_mut());
    }
}

/// Takes this thread's core's records (see [`crate::CoreTls`]), leaving none; the call
/// sites' cache stays with the thread (sites are per process).
pub(crate) fn take_log() -> Recording {
    LOG.with(|l| std::mem::replace(&mut l.borrow_mut().cur, Recording::EMPTY))
}

/// Puts back records [`take_log`] took.
pub(crate) fn put_log(log: Recording) {
    LOG.with(|l| l.borrow_mut().cur = log);
}

/// Whether this thread's core is profiled. The flag is a bit of the word the event hooks load
/// first (the sanitizer's `PROFILING` tag bit): with neither the sanitizer nor the profiler on,
/// a hook makes that one load and compare and nothing else, as it did before the profiler
/// existed.
///
/// ```
/// assert!(!ascend_core::profiler::is_on());
/// ```
#[inline(always)]
pub fn is_on() -> bool {
    crate::observe::sanitizer::hook_word() & crate::observe::sanitizer::PROFILING != 0
}

/// Records `op` of `api` called from `loc`, reading UB bytes `ub_read` and writing
/// `ub_write`, for this thread's core (call only when [`is_on`]): one thread-local access
/// finds the site and appends the record.
#[inline(always)]
pub(crate) fn push(
    op: Op,
    api: &'static str,
    loc: &'static Location<'static>,
    ub_read: (u32, u32),
    ub_write: (u32, u32),
) {
    let mut at = LOG_AT.get();
    if at.is_null() {
        at = log_at();
    }
    // SAFETY: a non-null `LOG_AT` is the address of this thread's `LOG` (see `log_at`),
    // which stays where it is while the thread lives and clears `LOG_AT` when it is dropped;
    // only this thread reads `LOG_AT`. No borrow of `LOG` is live here: `LOG` is borrowed only
    // by `Site::of`, `take_log`, `put_log` and `run_core`'s setup and teardown, and none of
    // them runs an event hook while it holds the borrow; nothing below borrows it.
    let l = unsafe { &mut *at };
    let site = l.site(api, loc);
    l.cur.recs.push(Rec { op, site, ub_read, ub_write });
    if l.cur.recs.len() >= l.cur.next {
        l.cur.replay();
    }
}

/// Sets `LOG_AT` to this thread's `LOG` and returns it (the first record of a thread).
#[cold]
#[inline(never)]
fn log_at() -> *mut Log {
    LOG.with(|l| {
        let at = l.as_ptr();
        LOG_AT.set(at);
        at
    })
}

/// Marks this thread's core as a cube core (it ran an `Mmad`; call only when [`is_on`]).
pub(crate) fn mark_cube() {
    LOG.with_borrow_mut(|l| l.cur.cube = true);
}

/// A core's records and the replay made while it ran.
type Finished = (CoreLog, Option<Box<Live>>);

/// The profiler of one launch: the cores' records, gathered as they finish.
#[derive(Debug, Default)]
pub struct LaunchProfiler {
    cores: Mutex<Vec<Finished>>,
    /// The costs and the core count of [`LaunchProfiler::live`].
    live: Option<(Costs, u32)>,
}

impl LaunchProfiler {
    /// A profiler for one launch.
    pub fn new() -> LaunchProfiler {
        LaunchProfiler::default()
    }

    /// A profiler for one launch of `cores` cores that replays each core's records with
    /// `costs` while the core runs, up to its first record that other cores share (a
    /// cross-core flag, `SyncAll`), on the records still in the cache:
    /// [`take_scheduled`](Self::take_scheduled) with the same costs goes on from there, and
    /// gives the schedule [`schedule::schedule`] gives.
    pub fn live(costs: Costs, cores: u32) -> LaunchProfiler {
        LaunchProfiler { live: Some((costs, cores)), ..LaunchProfiler::default() }
    }

    /// Runs `f` as the current core (inside `run_on_core`) with the profiler on, and keeps
    /// the core's records (also when `f` panics, up to the panic).
    pub fn run_core<R>(&self, f: impl FnOnce() -> R) -> R {
        /// Turns the profiler off and hands the records over however `f` ends.
        struct Owner<'a> {
            prof: &'a LaunchProfiler,
            saved: (bool, Recording),
            core: u32,
            aic: bool,
        }
        impl Drop for Owner<'_> {
            fn drop(&mut self) {
                let saved = std::mem::replace(&mut self.saved.1, Recording::EMPTY);
                let run = LOG.with(|l| std::mem::replace(&mut l.borrow_mut().cur, saved));
                crate::observe::sanitizer::set_profiling(self.saved.0);
                let log = CoreLog { core: self.core, aic: self.aic || run.cube, recs: run.recs };
                self.prof.cores.lock().unwrap_or_else(|e| e.into_inner()).push((log, run.live));
            }
        }
        let core = crate::kernel::ctx::current_block_idx();
        let aic =
            crate::kernel::ctx::with_core(|c| c.kernel_type) == Some(crate::kernel::ctx::KernelType::AicOnly);
        let live = self.live.map(|(costs, cores)| {
            Box::new(Live { sim: schedule::CoreSim::new(core, aic, 0, &costs, cores), costs, cores })
        });
        let next = if live.is_some() { LIVE_CHUNK } else { usize::MAX };
        let fresh = Recording { recs: SPARE.take(), cube: false, live, next };
        let saved = (
            crate::observe::sanitizer::set_profiling(true),
            LOG.with(|l| std::mem::replace(&mut l.borrow_mut().cur, fresh)),
        );
        let _owner = Owner { prof: self, saved, core, aic };
        f()
    }

    /// Records replayed while the cores ran (see [`live`](Self::live)), over the cores that
    /// have finished and not yet been taken.
    pub fn replayed_live(&self) -> usize {
        let cores = self.cores.lock().unwrap_or_else(|e| e.into_inner());
        cores.iter().filter_map(|(_, live)| live.as_ref()).map(|l| l.sim.replayed()).sum()
    }

    /// The cores' records, by core number (taken: a second call returns none).
    pub fn take(&self) -> Vec<CoreLog> {
        self.take_finished().into_iter().map(|(log, _)| log).collect()
    }

    /// The cores' records, by core number, and their schedule with `costs`:
    /// [`schedule::schedule`] of [`take`](Self::take)'s records, going on from the replays
    /// made while the cores ran (see [`live`](Self::live); when `costs` or the number of
    /// cores differ from those, from the first record).
    pub fn take_scheduled(&self, costs: &Costs) -> (Vec<CoreLog>, schedule::LaunchSchedule) {
        let done = self.take_finished();
        let usable = self.live.is_some_and(|(c, n)| c == *costs && n as usize == done.len());
        let (logs, started): (Vec<CoreLog>, Vec<_>) =
            done.into_iter().map(|(log, live)| (log, live.filter(|_| usable).map(|l| l.sim))).unzip();
        let sched = schedule::schedule_resumed(&logs, costs, started);
        (logs, sched)
    }

    fn take_finished(&self) -> Vec<Finished> {
        let mut v = std::mem::take(&mut *self.cores.lock().unwrap_or_else(|e| e.into_inner()));
        v.sort_by_key(|c| c.0.core);
        v
    }
}
