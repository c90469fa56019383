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
//! A core without the profiler pays one thread-local check per instruction.

pub mod cost;
pub mod schedule;

use std::cell::{Cell, RefCell};
use std::panic::Location;
use std::sync::Mutex;

use crate::element::DType;
use crate::sync::pipe_t;

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
    /// a UB → UB copy).
    Copy {
        /// Direction.
        dir: CopyDir,
        /// Rows (bursts).
        rows: u64,
        /// Bytes per row.
        row: u64,
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
    },
    /// A scalar access of a tensor (`GetValue`/`SetValue`) on pipe S.
    Scalar {
        /// Whether it touches GM (else UB).
        gm: bool,
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

/// One instruction of a core, as the profiler recorded it.
#[derive(Clone, Copy, Debug)]
pub struct Rec {
    /// What it does.
    pub op: Op,
    /// The AscendC API name (`"Add"`, `"DataCopy"`, `"TQue::EnQue"`).
    pub api: &'static str,
    /// The kernel line that called it.
    pub loc: &'static Location<'static>,
    /// UB bytes `[start, end)` it reads (the first source; `(0, 0)` when none).
    pub ub_read: (u32, u32),
    /// UB bytes `[start, end)` it writes (`(0, 0)` when none).
    pub ub_write: (u32, u32),
    /// GM bytes: `(address of the first byte, bytes)` it reads or writes (`(0, 0)` when none).
    pub gm: (u64, u64),
}

impl Rec {
    /// A record without memory ranges.
    pub fn new(op: Op, api: &'static str, loc: &'static Location<'static>) -> Rec {
        Rec { op, api, loc, ub_read: (0, 0), ub_write: (0, 0), gm: (0, 0) }
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

/// Record buffers of logs already dropped, kept for the next launch's cores: a core's log
/// then starts with the capacity an earlier core reached, instead of growing from empty by
/// copying and faulting in fresh pages in every launch (a fifth of a profiled 128-element
/// `add_custom`). At most [`SPARE_LOGS`] buffers of at most [`SPARE_BYTES`] each are kept.
static SPARE: Mutex<Vec<Vec<Rec>>> = Mutex::new(Vec::new());
/// How many record buffers [`SPARE`] keeps.
const SPARE_LOGS: usize = 64;
/// The largest record buffer [`SPARE`] keeps, in bytes.
const SPARE_BYTES: usize = 16 << 20;

impl Drop for CoreLog {
    /// Hands the record buffer to the next launch (the module's spare buffers).
    fn drop(&mut self) {
        let mut recs = std::mem::take(&mut self.recs);
        if recs.capacity() == 0 || recs.capacity() * std::mem::size_of::<Rec>() > SPARE_BYTES {
            return;
        }
        recs.clear();
        let mut spare = SPARE.lock().unwrap_or_else(|e| e.into_inner());
        if spare.len() < SPARE_LOGS {
            spare.push(recs);
        }
    }
}

thread_local! {
    /// Whether this thread's core is profiled: the one check a hook makes when it is off.
    static ON: Cell<bool> = const { Cell::new(false) };
    /// This thread's core's records while it is profiled.
    static LOG: RefCell<Vec<Rec>> = const { RefCell::new(Vec::new()) };
}

/// Whether this thread's core is profiled: the one check every instruction's hook makes when
/// the profiler is off (public so that the benchmark can time it).
///
/// ```
/// assert!(!ascend_core::profiler::is_on());
/// ```
#[inline(always)]
pub fn is_on() -> bool {
    ON.with(Cell::get)
}

/// Records `rec` for this thread's core (call only when [`is_on`]).
#[inline]
pub(crate) fn push(rec: Rec) {
    LOG.with(|l| l.borrow_mut().push(rec));
}

/// The profiler of one launch: the cores' records, gathered as they finish.
#[derive(Debug, Default)]
pub struct LaunchProfiler {
    cores: Mutex<Vec<CoreLog>>,
}

impl LaunchProfiler {
    /// A profiler for one launch.
    pub fn new() -> LaunchProfiler {
        LaunchProfiler::default()
    }

    /// Runs `f` as the current core (inside `run_on_core`) with the profiler on, and keeps
    /// the core's records (also when `f` panics, up to the panic).
    pub fn run_core<R>(&self, f: impl FnOnce() -> R) -> R {
        /// Turns the profiler off and hands the records over however `f` ends.
        struct Owner<'a> {
            prof: &'a LaunchProfiler,
            saved: (bool, Vec<Rec>),
            core: u32,
            aic: bool,
        }
        impl Drop for Owner<'_> {
            fn drop(&mut self) {
                let saved = std::mem::take(&mut self.saved.1);
                let recs = LOG.with(|l| std::mem::replace(&mut *l.borrow_mut(), saved));
                ON.with(|o| o.set(self.saved.0));
                let aic = self.aic || recs.iter().any(|r| matches!(r.op, Op::Mmad { .. }));
                let log = CoreLog { core: self.core, aic, recs };
                self.prof.cores.lock().unwrap_or_else(|e| e.into_inner()).push(log);
            }
        }
        let core = crate::ctx::current_block_idx();
        let aic = crate::ctx::with_core(|c| c.kernel_type) == Some(crate::ctx::KernelType::AicOnly);
        let fresh = SPARE.lock().unwrap_or_else(|e| e.into_inner()).pop().unwrap_or_default();
        let saved =
            (ON.with(|o| o.replace(true)), LOG.with(|l| std::mem::replace(&mut *l.borrow_mut(), fresh)));
        let _owner = Owner { prof: self, saved, core, aic };
        f()
    }

    /// The cores' records, by core number (taken: a second call returns none).
    pub fn take(&self) -> Vec<CoreLog> {
        let mut v = std::mem::take(&mut *self.cores.lock().unwrap_or_else(|e| e.into_inner()));
        v.sort_by_key(|c| c.core);
        v
    }
}
