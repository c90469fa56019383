//! Launching a kernel on `blockDim` logical cores: [`Launch`], [`launch`], and what a launch
//! reports ([`LaunchStats`], [`LaunchError`], [`CoreFault`]).
//!
//! Every logical core runs the kernel closure inside [`ascend_core::run_on_core`], so it has
//! its own Unified Buffer, mask register and control flags, and answers `get_block_idx()` /
//! `get_block_num()` for itself. Global memory ([`GmBuffer`](crate::GmBuffer)) is shared.
//!
//! A failed check (or any panic) on a core never takes the process down and never hangs the
//! launch: it is caught, the cores waiting in `sync_all` are released, and [`Launch::run`]
//! returns a [`LaunchError`] naming the core, the API, the message and the source line.

use core::fmt;
use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::profile::Profile;
use ascend_core::atomic::{AtomicLog, AtomicOrder};
use ascend_core::debug::{begin_core_output, end_core_output};
use ascend_core::profiler::LaunchProfiler;
use ascend_core::sanitizer::LaunchSanitizer;
use ascend_core::{
    run_on_core, take_last_fault, CancelToken, CoreBarrier, CoreConfig, CoreType, Fault, KernelType, Soc,
};
use rayon::prelude::*;

use crate::barrier::{take_released_mark, LaunchBarrier};
use crate::coro::{self, Parked, Wait};
use crate::hook::{take_panic_location, CoreGuard};
pub use crate::output::KernelOutput;
use crate::watchdog::{self, Watch, DONE, PENDING, RUNNING};
use crate::workers::{drop_payload, with_block_hook, Scope};

/// The largest `blockDim` a launch accepts (AscendC's limit).
pub const MAX_BLOCK_DIM: u32 = 65_535;

/// The default stack size of a core thread in [`ExecMode::ThreadPerCore`]: 8 MiB (the
/// main thread's usual size; only touched pages cost memory). A core that overflows its
/// stack cannot be turned into an error: Rust aborts the process with "has overflowed its
/// stack" (pooled cores run on rayon's threads, 2 MiB by default, or on coroutine stacks of
/// 2 MiB once a core of the launch has blocked, where an overflow kills the process with
/// `SIGSEGV`; see [`ExecMode::Pooled`]).
pub const DEFAULT_STACK_SIZE: usize = 8 << 20;

/// The default [`Launch::timeout`]: 60 s.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The default most host threads an [`ExecMode::ThreadPerCore`] launch may start
/// ([`Launch::max_threads`]).
pub const DEFAULT_MAX_THREADS: u32 = 4096;

/// How the logical cores of a launch are mapped onto host threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ExecMode {
    /// Cores are load-balanced over rayon's global thread pool (the default, and the
    /// fastest): each thread starts the next core in index order when it finishes one. A
    /// core may wait for others (`sync_all`, `IBWait`, `WaitPreBlock`, `CrossCoreWaitFlag`,
    /// `GroupBarrier::Wait`, a polled GM flag) with any `blockDim`. The first core of a thread
    /// to block hands the thread's place to a helper thread (2 MiB stack, parked between
    /// launches; at most one per rayon thread and launch) and switches the launch to
    /// coroutines: every core started after that runs on a stackful coroutine with a 2 MiB
    /// stack of its own (reused from core to core), and a core that must wait parks there
    /// instead of blocking its thread, which starts the next core; the thread resumes its
    /// parked cores when the launch's barrier moves (a `sync_all` filled, a flag was set, a
    /// core failed, the timeout passed; a flag wait is also re-checked every 2 ms). A
    /// `sync_all` across 4096 cores thus runs on at most twice rayon's threads (4096 parked
    /// stacks; only their touched pages cost memory), and a core never moves to another
    /// thread. A kernel whose cores never block starts no helper and no coroutine, and pays
    /// nothing for this. A core that overflows a coroutine's stack hits the stack's guard
    /// page and the process is killed by `SIGSEGV` (Rust's "has overflowed its stack" message
    /// covers only thread stacks); use [`ExecMode::ThreadPerCore`] with
    /// [`Launch::stack_size`] for deeper recursion. A launch started inside a kernel (from a
    /// core of another launch) runs as [`ExecMode::ThreadPerCore`] when its `blockDim` is
    /// within [`Launch::max_threads`]: its caller holds a pool thread while it runs, and two
    /// such launches at once could hold every pool thread while their other cores waited.
    /// Above `max_threads` it starts its cores on the calling thread and on helper threads
    /// of its own (coroutines once a core blocks, as above), never on the pool.
    #[default]
    Pooled,
    /// One OS thread per core, all alive at once, with a real barrier behind `sync_all`.
    /// Works for any `blockDim` the host can start threads for (hundreds are fine on two
    /// host CPUs); see [`Launch::stack_size`]. Mixed kernels always run this way. Needed only
    /// for its stack size or to have every core start at once; the pooled mode runs the same
    /// kernels.
    ThreadPerCore,
    /// Cores run one after another on the calling thread, in index order: deterministic,
    /// for debugging. The first failure stops the launch. A core cannot wait for another:
    /// `sync_all` and the flag waits fail in a launch of more than one core.
    Sequential,
}

impl fmt::Display for ExecMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ExecMode::Pooled => "pooled",
            ExecMode::ThreadPerCore => "thread-per-core",
            ExecMode::Sequential => "sequential",
        })
    }
}

/// What a successful launch reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchStats {
    /// Number of cores that ran.
    pub block_dim: u32,
    /// The chip emulated.
    pub soc: Soc,
    /// How the cores were run.
    pub mode: ExecMode,
    /// Wall-clock time of the whole launch.
    pub wall: Duration,
}

/// The failure of one core of a launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoreFault {
    /// The logical core (`get_block_idx()`); in a mixed launch the core's index in the launch
    /// (AIVs first, by `get_block_idx()`, then AICs; see [`KernelType`]).
    pub core: u32,
    /// In a mixed launch, the core's type and `get_block_idx()` (`(CoreType::Aic, 3)`: "AIC
    /// 3"); `None` otherwise.
    pub unit: Option<(CoreType, u32)>,
    /// The AscendC API whose check failed (`"Sub"`, `"SyncAll"`, …); `"panic"` for a plain
    /// Rust panic in the kernel, `"Launch"` when the launcher could not start the core.
    pub api: &'static str,
    /// What went wrong (for a plain panic, its message).
    pub message: String,
    /// Source file of the failing call; empty if unknown.
    pub file: String,
    /// Source line of the failing call; 0 if unknown.
    pub line: u32,
    /// `Some(n)` when this core was waiting in `sync_all` and was released because core `n`
    /// failed: a consequence of that failure, not a fault of its own.
    pub released_by: Option<u32>,
}

impl CoreFault {
    /// Whether this fault is only a consequence of another core's failure (see
    /// [`released_by`](Self::released_by)).
    pub fn is_secondary(&self) -> bool {
        self.released_by.is_some()
    }
}

impl From<Fault> for CoreFault {
    fn from(f: Fault) -> Self {
        CoreFault {
            core: f.core,
            unit: f.unit,
            api: f.api,
            message: f.message,
            file: f.file.to_owned(),
            line: f.line,
            released_by: None,
        }
    }
}

impl fmt::Display for CoreFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "core {}", self.core)?;
        if let Some((ty, idx)) = self.unit {
            write!(f, " ({} {idx})", ty.name())?;
        }
        write!(f, ": {}: {}", self.api, self.message)?;
        if self.file.is_empty() {
            f.write_str(" (at unknown location)")
        } else {
            write!(f, " (at {}:{})", self.file, self.line)
        }
    }
}

impl std::error::Error for CoreFault {}

/// Why a launch failed.
///
/// `Debug` prints the same text as `Display`, so that `.unwrap()` or `.expect()` on a failed
/// launch shows the message as it reads (as `anyhow`'s errors do); the alternate form `{:#?}`
/// shows the variant and its fields.
///
/// ```
/// use ascend_runtime::prelude::*;
/// let err = launch(Soc::Ascend910B, 0, || {}).unwrap_err();
/// assert_eq!(format!("{err:?}"), err.to_string());
/// assert_eq!(format!("{err:?}"), "launch: blockDim = 0 is out of range [1, 65535]");
/// assert!(format!("{err:#?}").starts_with("InvalidBlockDim {"));
/// ```
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LaunchError {
    /// `blockDim` is outside `1..=65535`; no core ran.
    InvalidBlockDim {
        /// The rejected value.
        block_dim: u32,
    },
    /// The chip has no such kernel type: the mixed kernel types need the separated cube and
    /// vector cores of Ascend910B; no core ran.
    UnsupportedKernelType {
        /// The chip.
        soc: Soc,
        /// The rejected kernel type.
        kernel_type: KernelType,
    },
    /// [`Launch::profile`] ran the kernel but could not write the profile's files.
    Profile(String),
    /// A thread-per-core launch asked for more host threads than
    /// [`Launch::max_threads`] allows; no core ran.
    TooManyThreads {
        /// The rejected `blockDim`.
        block_dim: u32,
        /// The limit in force.
        limit: u32,
    },
    /// The launch ran past [`Launch::timeout`]. Its cores were cancelled (each failed at its
    /// next kernel API call, or was released from `sync_all`) and have all stopped, so the
    /// launch could return; their faults say where each one was.
    TimedOut {
        /// The chip emulated.
        soc: Soc,
        /// Number of cores of the launch.
        block_dim: u32,
        /// How the cores were run.
        mode: ExecMode,
        /// The timeout that passed.
        timeout: Duration,
        /// Cores that were running (not in `sync_all`) when it passed.
        running: Vec<u32>,
        /// Cores that were waiting in `sync_all` when it passed.
        waiting: Vec<u32>,
        /// Every core's fault, as in [`CoreFailed`](Self::CoreFailed).
        faults: Vec<CoreFault>,
        /// Cores that never started.
        skipped: Vec<u32>,
    },
    /// One or more cores failed.
    CoreFailed {
        /// The chip emulated.
        soc: Soc,
        /// Number of cores of the launch.
        block_dim: u32,
        /// How the cores were run.
        mode: ExecMode,
        /// Every core's fault: the first core to fail first, then the other cores that
        /// failed on their own (by index), then the cores released from `sync_all` because
        /// of the first failure (by index). Never empty.
        faults: Vec<CoreFault>,
        /// Cores that never started because the launch was already failing (sorted).
        skipped: Vec<u32>,
    },
}

impl LaunchError {
    /// The fault that caused the failure (the first core to fail), if a core failed.
    pub fn primary(&self) -> Option<&CoreFault> {
        self.faults().first()
    }

    /// Every core's fault, primary first (empty for a configuration error).
    pub fn faults(&self) -> &[CoreFault] {
        match self {
            LaunchError::CoreFailed { faults, .. } | LaunchError::TimedOut { faults, .. } => faults,
            LaunchError::InvalidBlockDim { .. }
            | LaunchError::TooManyThreads { .. }
            | LaunchError::UnsupportedKernelType { .. }
            | LaunchError::Profile(_) => &[],
        }
    }

    /// The cores that never ran because the launch was already failing.
    pub fn skipped_cores(&self) -> &[u32] {
        match self {
            LaunchError::CoreFailed { skipped, .. } | LaunchError::TimedOut { skipped, .. } => skipped,
            LaunchError::InvalidBlockDim { .. }
            | LaunchError::TooManyThreads { .. }
            | LaunchError::UnsupportedKernelType { .. }
            | LaunchError::Profile(_) => &[],
        }
    }
}

/// How many independent faults besides the primary one `Display` lists in full.
const DISPLAY_FAULTS: usize = 16;

impl fmt::Display for LaunchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LaunchError::InvalidBlockDim { block_dim } => {
                write!(f, "launch: blockDim = {block_dim} is out of range [1, {MAX_BLOCK_DIM}]")
            }
            LaunchError::UnsupportedKernelType { soc, kernel_type } => write!(
                f,
                "launch: KernelType::{kernel_type:?} ({}) is not supported on {soc}: a mixed kernel runs the separated \
                 cube (AIC) and vector (AIV) cores of {}",
                kernel_type.vendor_name(),
                Soc::Ascend910B
            ),
            LaunchError::Profile(why) => write!(f, "the profile could not be written: {why}"),
            LaunchError::TooManyThreads { block_dim, limit } => write!(
                f,
                "launch: blockDim = {block_dim} in thread-per-core mode needs {block_dim} host threads; the limit is \
                 {limit} (raise it with Launch::max_threads, or use fewer cores)"
            ),
            LaunchError::TimedOut { soc, block_dim, mode, timeout, running, waiting, faults, skipped } => {
                write!(f, "kernel timed out after {timeout:?} on {soc} (blockDim = {block_dim}, {mode} mode): ")?;
                let list = |v: &[u32]| if v.is_empty() { "none".to_string() } else { format_ranges(v) };
                write!(f, "still running: core(s) {}; waiting in SyncAll: core(s) {}", list(running), list(waiting))?;
                for c in faults.iter().take(DISPLAY_FAULTS) {
                    write!(f, "\n    {c}")?;
                }
                if faults.len() > DISPLAY_FAULTS {
                    write!(f, "\n    ... and {} more (LaunchError::faults lists all)", faults.len() - DISPLAY_FAULTS)?;
                }
                if !skipped.is_empty() {
                    write!(f, "\n  {} core(s) were never started: {}", skipped.len(), format_ranges(skipped))?;
                }
                Ok(())
            }
            LaunchError::CoreFailed { soc, block_dim, mode, faults, skipped } => {
                write!(f, "kernel failed on {soc} (blockDim = {block_dim}, {mode} mode): ")?;
                let Some((primary, rest)) = faults.split_first() else {
                    return f.write_str("no fault recorded");
                };
                write!(f, "{primary}")?;
                let (released, own): (Vec<&CoreFault>, Vec<&CoreFault>) =
                    rest.iter().partition(|c| c.is_secondary());
                if !own.is_empty() {
                    write!(f, "\n  {} more core(s) failed:", own.len())?;
                    for c in own.iter().take(DISPLAY_FAULTS) {
                        write!(f, "\n    {c}")?;
                    }
                    if own.len() > DISPLAY_FAULTS {
                        write!(
                            f,
                            "\n    ... and {} more (LaunchError::faults lists all)",
                            own.len() - DISPLAY_FAULTS
                        )?;
                    }
                }
                if !released.is_empty() {
                    let cores: Vec<u32> = released.iter().map(|c| c.core).collect();
                    let by = released[0].released_by.unwrap_or(primary.core);
                    write!(
                        f,
                        "\n  {} core(s) waiting in SyncAll were released because core {by} failed: {}",
                        cores.len(),
                        format_ranges(&cores)
                    )?;
                }
                if !skipped.is_empty() {
                    write!(
                        f,
                        "\n  {} core(s) were not started because the launch had already failed: {}",
                        skipped.len(),
                        format_ranges(skipped)
                    )?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Debug for LaunchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !f.alternate() {
            return fmt::Display::fmt(self, f);
        }
        match self {
            LaunchError::InvalidBlockDim { block_dim } => {
                f.debug_struct("InvalidBlockDim").field("block_dim", block_dim).finish()
            }
            LaunchError::TooManyThreads { block_dim, limit } => {
                f.debug_struct("TooManyThreads").field("block_dim", block_dim).field("limit", limit).finish()
            }
            LaunchError::TimedOut { soc, block_dim, mode, timeout, running, waiting, faults, skipped } => f
                .debug_struct("TimedOut")
                .field("soc", soc)
                .field("block_dim", block_dim)
                .field("mode", mode)
                .field("timeout", timeout)
                .field("running", running)
                .field("waiting", waiting)
                .field("faults", faults)
                .field("skipped", skipped)
                .finish(),
            LaunchError::CoreFailed { soc, block_dim, mode, faults, skipped } => f
                .debug_struct("CoreFailed")
                .field("soc", soc)
                .field("block_dim", block_dim)
                .field("mode", mode)
                .field("faults", faults)
                .field("skipped", skipped)
                .finish(),
            LaunchError::UnsupportedKernelType { soc, kernel_type } => f
                .debug_struct("UnsupportedKernelType")
                .field("soc", soc)
                .field("kernel_type", kernel_type)
                .finish(),
            LaunchError::Profile(why) => f.debug_tuple("Profile").field(why).finish(),
        }
    }
}

impl std::error::Error for LaunchError {}

/// Formats sorted core indices as ranges: `0..=4, 6, 8..=47` (at most 20 ranges shown).
pub(crate) fn format_ranges(sorted: &[u32]) -> String {
    const MAX_RANGES: usize = 20;
    let mut ranges: Vec<(u32, u32)> = Vec::new();
    for &i in sorted {
        match ranges.last_mut() {
            Some((_, hi)) if hi.checked_add(1) == Some(i) => *hi = i,
            _ => ranges.push((i, i)),
        }
    }
    let mut out: Vec<String> = ranges
        .iter()
        .take(MAX_RANGES)
        .map(|&(lo, hi)| if lo == hi { lo.to_string() } else { format!("{lo}..={hi}") })
        .collect();
    if ranges.len() > MAX_RANGES {
        out.push(format!("... ({} ranges in all)", ranges.len()));
    }
    out.join(", ")
}

/// A kernel launch: the chip, the number of cores and how to run them.
///
/// ```
/// use ascend_runtime::prelude::*;
///
/// // Each core writes its own 64-byte line (16 u32): scalar writes go through the core's
/// // data cache, which writes a line back to GM whole.
/// let out = GmBuffer::<u32>::zeroed(8 * 16);
/// let addr = out.addr();
/// let stats = Launch::new(Soc::Ascend910B)
///     .block_dim(8) // the default (pooled) mode: the kernel may call sync_all
///     .run(move || {
///         let mut gm = GlobalTensor::<u32>::new();
///         gm.set_global_buffer(addr, 8 * 16);
///         let me = get_block_idx() as usize * 16;
///         gm.set_value(me, get_block_idx() * 10);
///         // Write the line back to GM, and drop the neighbour's line from the cache.
///         data_cache_clean_and_invalid::<u32, SingleCacheLine, CachelineOut>(&gm.view(me));
///         let next = (get_block_idx() as usize + 1) % 8 * 16;
///         data_cache_clean_and_invalid::<u32, SingleCacheLine, CachelineOut>(&gm.view(next));
///         sync_all();
///         // Every core's write is visible after the barrier.
///         assert_eq!(gm.get_value(next), next as u32 / 16 * 10);
///     })
///     .unwrap();
/// assert_eq!(stats.block_dim, 8);
/// let per_core: Vec<u32> = out.to_vec().iter().step_by(16).copied().collect();
/// assert_eq!(per_core, [0, 10, 20, 30, 40, 50, 60, 70]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Launch {
    soc: Soc,
    block_dim: u32,
    mode: ExecMode,
    stack_size: usize,
    quiet: bool,
    sanitize: bool,
    auto_sync: bool,
    timeout: Option<Duration>,
    max_threads: u32,
    atomic_order: AtomicOrder,
    kernel_type: KernelType,
}

impl Launch {
    /// A launch of one core on `soc`, in [`ExecMode::Pooled`].
    pub fn new(soc: Soc) -> Launch {
        Launch {
            soc,
            block_dim: 1,
            mode: ExecMode::Pooled,
            stack_size: DEFAULT_STACK_SIZE,
            quiet: true,
            sanitize: true,
            auto_sync: true,
            atomic_order: AtomicOrder::Deterministic,
            timeout: Some(DEFAULT_TIMEOUT),
            max_threads: DEFAULT_MAX_THREADS,
            kernel_type: KernelType::AivOnly,
        }
    }

    /// How long the launch may run (default [`DEFAULT_TIMEOUT`], 60 s). Past it, every core
    /// is cancelled: it fails at its next kernel API call (an instruction, a copy, a
    /// global-memory access, a `PipeBarrier`, a `LocalTensor` `GetValue`/`SetValue`), cores waiting in `sync_all` are released at once, and
    /// [`run`](Self::run) returns [`LaunchError::TimedOut`] naming the cores that were still
    /// running and those waiting in `sync_all`.
    ///
    /// A core that makes no kernel API call any more (a pure Rust `loop {}`) cannot be
    /// stopped, and the launch cannot return while it runs (the kernel closure may borrow the
    /// caller's stack): 10 s after the timeout the process prints which cores did not stop
    /// and aborts.
    ///
    /// ```
    /// use std::time::Duration;
    /// use ascend_runtime::prelude::*;
    /// let flag = GmBuffer::<u32>::zeroed(8);
    /// let addr = flag.addr();
    /// let err = Launch::new(Soc::Ascend910B)
    ///     .timeout(Duration::from_millis(200))
    ///     .run(move || {
    ///         let mut g = GlobalTensor::<u32>::new();
    ///         g.set_global_buffer(addr, 8);
    ///         while g.get_value(0) == 0 {} // nobody ever sets it
    ///     })
    ///     .unwrap_err();
    /// assert!(matches!(err, LaunchError::TimedOut { .. }), "{err}");
    /// ```
    pub fn timeout(self, timeout: Duration) -> Launch {
        Launch { timeout: Some(timeout), ..self }
    }

    /// No timeout: a core that never finishes hangs the launch.
    pub fn no_timeout(self) -> Launch {
        Launch { timeout: None, ..self }
    }

    /// The most host threads an [`ExecMode::ThreadPerCore`] launch may start (default
    /// [`DEFAULT_MAX_THREADS`]); a larger `blockDim` fails with
    /// [`LaunchError::TooManyThreads`] before any thread is started.
    pub fn max_threads(self, max_threads: u32) -> Launch {
        Launch { max_threads, ..self }
    }

    /// Sets the number of cores (AscendC `blockDim`). Values outside `1..=65535` make
    /// [`run`](Self::run) return [`LaunchError::InvalidBlockDim`].
    pub fn block_dim(self, block_dim: u32) -> Launch {
        Launch { block_dim, ..self }
    }

    /// Sets how cores map onto host threads.
    pub fn mode(self, mode: ExecMode) -> Launch {
        Launch { mode, ..self }
    }

    /// `true` selects [`ExecMode::ThreadPerCore`]; `false` selects [`ExecMode::Pooled`] if
    /// thread-per-core was selected (and keeps the mode otherwise). A kernel that calls
    /// `sync_all` (or waits for another core) does not need it: the default pooled mode runs
    /// it with any `blockDim` on a bounded number of host threads, its waiting cores parked as
    /// coroutines (see [`ExecMode::Pooled`]). `true` gives every core a host thread of its own, all started at
    /// once, with [`stack_size`](Self::stack_size).
    pub fn sync_all(self, enabled: bool) -> Launch {
        let mode = match (enabled, self.mode) {
            (true, _) => ExecMode::ThreadPerCore,
            (false, ExecMode::ThreadPerCore) => ExecMode::Pooled,
            (false, m) => m,
        };
        Launch { mode, ..self }
    }

    /// Stack size of each core thread in [`ExecMode::ThreadPerCore`] (default
    /// [`DEFAULT_STACK_SIZE`]); the OS may round it up to its minimum.
    pub fn stack_size(self, bytes: usize) -> Launch {
        Launch { stack_size: bytes, ..self }
    }

    /// Whether a panicking core stays silent on stderr (default `true`: the failure is
    /// reported by the returned [`LaunchError`]). `false` also prints the panic hook's
    /// report (with a backtrace if `RUST_BACKTRACE` is set).
    pub fn quiet(self, quiet: bool) -> Launch {
        Launch { quiet, ..self }
    }

    /// Whether the synchronisation sanitizer checks the launch (default `true`; see
    /// [`ascend_core::sanitizer`]): cross-pipe races in each core's Unified Buffer, cross-core
    /// races on global memory, tensor handles used after `FreeTensor`, buffers or flags left
    /// over at the end of the kernel. Turn it off for benchmarks.
    pub fn sanitize(self, on: bool) -> Launch {
        Launch { sanitize: on, ..self }
    }

    /// Whether the kernel is taken as built with the BiSheng compiler's automatic
    /// synchronisation (default `true`, as the vendor's kernel projects and `<<<>>>` builds
    /// are; `false` models `--cce-auto-sync=off`). With it, the compiler orders
    /// `LocalTensor::GetValue`/`SetValue` and `GlobalTensor::GetValue` (pipe S) against the V,
    /// MTE2 and MTE3 pipes wherever they touch the same bytes, and a vector instruction after
    /// the vector instruction it depends on (`PipeBarrier<PIPE_V>`), so the sanitizer reports
    /// none of those as missing. Without it, each one missing is a race.
    ///
    /// ```
    /// use ascend_runtime::prelude::*;
    ///
    /// fn first_sum(out: GmAddr) {
    ///     let mut pipe = TPipe::new();
    ///     let mut buf = TBuf::<VecCalc>::new();
    ///     pipe.init_tbuf(&mut buf, 256);
    ///     let t = buf.get::<f32>();
    ///     duplicate(&t, 1.0f32, 64); // V writes t
    ///     let v = t.get_value(0); // S reads it: the compiler inserts V_S here
    ///     let mut o = GlobalTensor::<f32>::new();
    ///     o.set_global_buffer(out, 8);
    ///     o.set_value(0, v);
    /// }
    ///
    /// let out = GmBuffer::<f32>::zeroed(8);
    /// Launch::new(Soc::Ascend910B).run(|| first_sum(out.addr())).unwrap();
    /// let err = Launch::new(Soc::Ascend910B).auto_sync(false).run(|| first_sum(out.addr())).unwrap_err();
    /// assert!(err.to_string().contains("add SetFlag<HardEvent::V_S> / WaitFlag<HardEvent::V_S>"), "{err}");
    /// ```
    pub fn auto_sync(self, on: bool) -> Launch {
        Launch { auto_sync: on, ..self }
    }

    /// In which order float global-memory atomics (`set_atomic_add::<f32>()` …) of different
    /// cores land (default [`AtomicOrder::Deterministic`]: logged, then applied in core order
    /// at each `sync_all` and at the end of the launch; [`AtomicOrder::Arrival`]: at once, in
    /// the order the host threads arrive). Integer atomics always apply at once.
    ///
    /// ```
    /// use ascend_runtime::prelude::*;
    ///
    /// let sum = GmBuffer::<f32>::zeroed(8);
    /// let addr = sum.addr();
    /// let kernel = move || {
    ///     let mut gm = GlobalTensor::<f32>::new();
    ///     gm.set_global_buffer(addr, 8);
    ///     let mut pipe = TPipe::new();
    ///     let mut buf = TBuf::<VecOut>::new();
    ///     pipe.init_tbuf(&mut buf, 32);
    ///     let x = buf.get::<f32>();
    ///     duplicate(&x, if get_block_idx() == 0 { 16_777_216.0 } else { 1.0 }, 8);
    ///     set_flag::<HardEvent::V_MTE3>(0);
    ///     wait_flag::<HardEvent::V_MTE3>(0);
    ///     set_atomic_add::<f32>();
    ///     data_copy(&gm, &x, 8);
    ///     set_atomic_none();
    /// };
    /// // Core order: 2^24 first, then each 1.0 is lost to rounding, on every run.
    /// Launch::new(Soc::Ascend910B).block_dim(4).run(&kernel).unwrap();
    /// assert_eq!(sum.to_vec()[0], 16_777_216.0);
    /// sum.write_from(&[0.0; 8]);
    /// Launch::new(Soc::Ascend910B).block_dim(4).atomic_order(AtomicOrder::Arrival).run(&kernel).unwrap();
    /// let v = sum.to_vec()[0];
    /// assert!(v == 16_777_216.0 || v == 16_777_220.0); // depends on which core came first
    /// ```
    pub fn atomic_order(self, atomic_order: AtomicOrder) -> Launch {
        Launch { atomic_order, ..self }
    }

    /// The units the kernel runs on (default [`KernelType::AivOnly`], a vector kernel). On
    /// Ascend910B, where cube and vector cores are separate, a kernel that uses the cube's
    /// memories (L1, L0A, L0B, L0C: `Mmad` and its data paths) is a cube kernel,
    /// [`KernelType::AicOnly`] (AscendC's `__cube__` or `KERNEL_TYPE_AIC_ONLY`), and each of its
    /// cores is an AIC without a Unified Buffer. On the other chips every core has every
    /// memory.
    ///
    /// ```
    /// use ascend_runtime::prelude::*;
    /// let err = Launch::new(Soc::Ascend910B)
    ///     .run(|| {
    ///         let mut l1 = LocalMemAllocator::<L1>::new();
    ///         l1.alloc::<f16>(256);
    ///     })
    ///     .unwrap_err();
    /// assert!(err.to_string().contains("launch a cube kernel with Launch::kernel_type(KernelType::AicOnly)"));
    /// Launch::new(Soc::Ascend910B)
    ///     .kernel_type(KernelType::AicOnly)
    ///     .run(|| {
    ///         let mut l1 = LocalMemAllocator::<L1>::new();
    ///         l1.alloc::<f16>(256);
    ///     })
    ///     .unwrap();
    /// ```
    ///
    /// A mixed kernel ([`KernelType::MixAic1_1`], [`KernelType::MixAic1_2`], Ascend910B only)
    /// runs, per block, one AIC and one or two AIVs, each a host thread running `kernel` as its
    /// core type; the launch is always thread-per-core (its cores block in
    /// `cross_core_wait_flag`), and the thread limit counts every AIC and AIV. Faults name the
    /// core as "AIC 3" / "AIV 7" (type and `get_block_idx()`).
    ///
    /// ```
    /// use ascend_runtime::prelude::*;
    /// let idx = GmBuffer::<i32>::zeroed(2 * 8 * 4);
    /// let a = idx.addr();
    /// Launch::new(Soc::Ascend910B)
    ///     .block_dim(2)
    ///     .kernel_type(KernelType::MixAic1_2)
    ///     .run(move || {
    ///         let mut g = GlobalTensor::<i32>::new();
    ///         g.set_global_buffer(a, 2 * 8 * 4);
    ///         if ascend_is_aiv() {
    ///             // AIV i of [0, 4): block i / 2, sub-block i % 2.
    ///             let slot = get_block_idx() as usize * 16;
    ///             g.set_value(slot, get_sub_block_idx() as i32);
    ///             data_cache_clean_and_invalid::<i32, SingleCacheLine, CachelineOut>(&g.view(slot));
    ///         }
    ///     })
    ///     .unwrap();
    /// let v = idx.to_vec();
    /// assert_eq!([v[0], v[16], v[32], v[48]], [0, 1, 0, 1]);
    /// ```
    pub fn kernel_type(self, kernel_type: KernelType) -> Launch {
        Launch { kernel_type, ..self }
    }

    /// The chip.
    pub fn get_soc(&self) -> Soc {
        self.soc
    }

    /// The number of cores.
    pub fn get_block_dim(&self) -> u32 {
        self.block_dim
    }

    /// The execution mode.
    pub fn get_mode(&self) -> ExecMode {
        self.mode
    }

    /// Runs `kernel` on every core and waits for all of them. What the cores printed
    /// (`ascend_printf!`, `dump_tensor`) goes to stdout in core order when the launch ends;
    /// [`capture_output`](Self::capture_output) returns it instead.
    ///
    /// `kernel` is typically a closure that calls the kernel function with the
    /// [`GmAddr`](ascend_core::GmAddr)s of its buffers:
    /// `move || add_custom(x.addr(), y.addr(), z.addr())`.
    ///
    /// # Errors
    /// [`LaunchError::InvalidBlockDim`] if `blockDim` is outside `1..=65535`;
    /// [`LaunchError::CoreFailed`] if any core failed a check or panicked. A core failure
    /// releases the cores waiting in `sync_all` at once; in pooled and sequential mode,
    /// cores not yet started are skipped (and listed in the error).
    pub fn run<K: Fn() + Sync>(&self, kernel: K) -> Result<LaunchStats, LaunchError> {
        let (result, output) = self.run_collecting(&kernel);
        output.print();
        result
    }

    /// Runs `kernel` as [`run`](Self::run) does, but hands back what the cores printed
    /// (`ascend_printf!`, `dump_tensor`) instead of printing it: a [`KernelOutput`] ordered by
    /// core, kept also when the launch fails.
    ///
    /// ```
    /// use ascend_runtime::prelude::*;
    ///
    /// let (result, out) = Launch::new(Soc::Ascend910B).block_dim(2).capture_output(|| {
    ///     ascend_printf!("hello from %d\n", get_block_idx());
    /// });
    /// result.unwrap();
    /// assert_eq!(out.text(), "[AIV Block 0/2] hello from 0\n[AIV Block 1/2] hello from 1\n");
    /// ```
    pub fn capture_output<K: Fn() + Sync>(
        &self,
        kernel: K,
    ) -> (Result<LaunchStats, LaunchError>, KernelOutput) {
        self.run_collecting(&kernel)
    }

    /// Runs `kernel` with the profiler on (see [`crate::profile`]) and writes the profile's
    /// files into `dir` (created if missing): `trace.json`, `PipeUtilization.csv`,
    /// `hotspots.csv`, `pipeline.svg`, `summary.txt`. What the cores print is printed.
    ///
    /// # Errors
    /// As [`run`](Self::run); [`LaunchError::Profile`] when a file cannot be written.
    pub fn profile<K: Fn() + Sync>(
        &self,
        dir: impl AsRef<std::path::Path>,
        kernel: K,
    ) -> Result<Profile, LaunchError> {
        let p = self.run_profiled(kernel)?;
        p.write(dir.as_ref()).map_err(|e| LaunchError::Profile(e.to_string()))?;
        Ok(p)
    }

    /// Runs `kernel` with the profiler on and returns its [`Profile`] without writing files.
    ///
    /// # Errors
    /// As [`run`](Self::run).
    pub fn run_profiled<K: Fn() + Sync>(&self, kernel: K) -> Result<Profile, LaunchError> {
        let prof = Arc::new(self.profiler());
        let (result, output) = self.run_with(&kernel, Some(Arc::clone(&prof)));
        output.print();
        result?;
        Ok(Profile::from_profiler(self.soc, &prof))
    }

    fn run_collecting(&self, kernel: &(dyn Fn() + Sync)) -> (Result<LaunchStats, LaunchError>, KernelOutput) {
        let Some(dir) = crate::profile::profile_dir() else { return self.run_with(kernel, None) };
        let prof = Arc::new(self.profiler());
        let (result, output) = self.run_with(kernel, Some(Arc::clone(&prof)));
        if result.is_ok() {
            let p = Profile::from_profiler(self.soc, &prof);
            match p.write(&dir) {
                Ok(()) => print!("{}", p.summary()),
                Err(e) => eprintln!("profile: cannot write {}: {e}", dir.display()),
            }
        }
        (result, output)
    }

    /// The profiler of this launch: each core's records replayed as it runs, with the chip's
    /// costs for as many cores as the launch runs (see [`LaunchProfiler::live`]).
    fn profiler(&self) -> LaunchProfiler {
        let cores = if self.kernel_type.is_mix() {
            self.kernel_type.cores(self.block_dim)
        } else {
            u64::from(self.block_dim)
        };
        let costs = ascend_core::profiler::cost::Costs::of(self.soc);
        LaunchProfiler::live(costs, cores.min(u64::from(u32::MAX)) as u32)
    }

    fn run_with(
        &self,
        kernel: &(dyn Fn() + Sync),
        prof: Option<Arc<LaunchProfiler>>,
    ) -> (Result<LaunchStats, LaunchError>, KernelOutput) {
        let blocks = self.block_dim;
        if !(1..=MAX_BLOCK_DIM).contains(&blocks) {
            return (Err(LaunchError::InvalidBlockDim { block_dim: blocks }), KernelOutput::default());
        }
        let kt = self.kernel_type;
        if kt.is_mix() && !self.soc.is_separated() {
            return (
                Err(LaunchError::UnsupportedKernelType { soc: self.soc, kernel_type: kt }),
                KernelOutput::default(),
            );
        }
        // Every AIC and AIV of a mixed launch is a core (a host thread) of its own; a mixed
        // launch's cores block in CrossCoreWaitFlag, so they run a thread each.
        let (n, mode) = if kt.is_mix() {
            (kt.cores(blocks).min(u64::from(u32::MAX)) as u32, ExecMode::ThreadPerCore)
        } else if self.mode == ExecMode::Pooled
            && blocks > 1
            && blocks <= self.max_threads
            && ascend_core::in_core()
        {
            // A launch inside a kernel: its cores may wait for one another while the launch's
            // caller holds a pool thread, so they get threads of their own. On the pool, two
            // such launches at once held both threads of a 2-core host while their other
            // cores waited in the pool's queue, and neither completed.
            (blocks, ExecMode::ThreadPerCore)
        } else {
            (blocks, self.mode)
        };
        if mode == ExecMode::ThreadPerCore && n > self.max_threads {
            return (
                Err(LaunchError::TooManyThreads { block_dim: blocks, limit: self.max_threads }),
                KernelOutput::default(),
            );
        }
        let start = Instant::now();
        let atomic_log = Arc::new(AtomicLog::new(self.atomic_order));
        // The sequential mode cannot block a core, and a single core has no one to wait for.
        let barrier = (mode == ExecMode::ThreadPerCore || mode == ExecMode::Pooled && n > 1)
            .then(|| Arc::new(LaunchBarrier::new(n).with_atomic_log(Arc::clone(&atomic_log))));
        let watch = self.timeout.map(|t| {
            let status: Arc<[AtomicU8]> = (0..n).map(|_| AtomicU8::new(PENDING)).collect();
            let w = Watch::new(t, Arc::new(CancelToken::new()), barrier.clone(), status);
            watchdog::watch(&w);
            w
        });
        let shared = Shared {
            soc: self.soc,
            kernel_type: self.kernel_type,
            n,
            next: AtomicU32::new(0),
            coroutines: AtomicBool::new(false),
            helpers: AtomicU32::new(0),
            quiet: self.quiet,
            barrier,
            atomic_log: Arc::clone(&atomic_log),
            stop: AtomicBool::new(false),
            faults: Mutex::new(Vec::new()),
            skipped: Mutex::new(Vec::new()),
            output: Mutex::new(Vec::new()),
            kernel,
            san: self.sanitize.then(|| LaunchSanitizer::with_auto_sync(self.auto_sync)),
            prof,
            watch: watch.clone(),
        };
        match mode {
            ExecMode::Pooled => shared.run_pooled(),
            ExecMode::Sequential => (0..n).for_each(|i| shared.run_core(i)),
            ExecMode::ThreadPerCore => shared.run_threads(self.stack_size),
        }
        if let Some(san) = &shared.san {
            if lock(&shared.faults).is_empty() {
                if let Some(f) = san.check_gm() {
                    shared.record(CoreFault::from(f));
                }
            }
        }
        // The end of the launch closes the last atomic epoch: every core has returned.
        atomic_log.flush();
        // Every core has returned or unwound: nothing borrows `kernel` any more.
        if let Some(w) = &watch {
            watchdog::unwatch(w);
        }
        let wall = start.elapsed();
        let output = KernelOutput::from_cores(std::mem::take(&mut *lock(&shared.output)));
        let (faults, skipped) = shared.finish();
        if let Some((running, waiting)) = watch.as_ref().and_then(|w| w.fired.get()) {
            let err = LaunchError::TimedOut {
                soc: self.soc,
                block_dim: blocks,
                mode,
                timeout: self.timeout.unwrap_or_default(),
                running: running.clone(),
                waiting: waiting.clone(),
                faults,
                skipped,
            };
            return (Err(err), output);
        }
        let result = if faults.is_empty() {
            Ok(LaunchStats { block_dim: blocks, soc: self.soc, mode, wall })
        } else {
            Err(LaunchError::CoreFailed { soc: self.soc, block_dim: blocks, mode, faults, skipped })
        };
        (result, output)
    }
}

impl Default for Launch {
    /// A launch of one core on [`Soc::default()`] (Ascend910B), in [`ExecMode::Pooled`].
    fn default() -> Launch {
        Launch::new(Soc::default())
    }
}

/// Runs `kernel` on `block_dim` cores of `soc` in the default [`ExecMode::Pooled`]:
/// shorthand for `Launch::new(soc).block_dim(block_dim).run(kernel)`.
///
/// ```
/// use ascend_runtime::prelude::*;
///
/// let stats = launch(Soc::Ascend310P, 4, || assert_eq!(get_block_num(), 4)).unwrap();
/// assert_eq!(stats.block_dim, 4);
/// ```
///
/// # Errors
/// As [`Launch::run`].
pub fn launch<K: Fn() + Sync>(soc: Soc, block_dim: u32, kernel: K) -> Result<LaunchStats, LaunchError> {
    Launch::new(soc).block_dim(block_dim).run(kernel)
}

/// State shared by the cores of one launch.
struct Shared<'k> {
    soc: Soc,
    kernel_type: KernelType,
    n: u32,
    /// Pooled mode: the next core to start.
    next: AtomicU32,
    /// Pooled mode: set when a core first blocks; from then on cores start on coroutines.
    coroutines: AtomicBool,
    /// Pooled mode: helper threads asked for (see [`compensate`](Self::compensate)).
    helpers: AtomicU32,
    quiet: bool,
    barrier: Option<Arc<LaunchBarrier>>,
    atomic_log: Arc<AtomicLog>,
    /// Set by the first failure: cores not yet started are skipped.
    stop: AtomicBool,
    /// Faults in the order they were recorded.
    faults: Mutex<Vec<CoreFault>>,
    skipped: Mutex<Vec<u32>>,
    /// What each core printed (`ascend_printf!`, `dump_tensor`), in completion order.
    output: Mutex<Vec<(u32, String)>>,
    kernel: &'k (dyn Fn() + Sync),
    /// The launch's sanitizer, when on.
    san: Option<Arc<LaunchSanitizer>>,
    /// The launch's profiler, when on.
    prof: Option<Arc<LaunchProfiler>>,
    /// The timeout's watch (cancel token and per-core states), if the launch has a timeout.
    watch: Option<Arc<Watch>>,
}

impl Shared<'_> {
    /// Whether core `idx` is not started because the launch is already failing or cancelled
    /// (then it is recorded as skipped).
    fn skip(&self, idx: u32) -> bool {
        let cancelled = self.watch.as_ref().is_some_and(|w| w.token.is_cancelled());
        if self.stop.load(Ordering::Acquire) || cancelled {
            lock(&self.skipped).push(idx);
            return true;
        }
        false
    }

    /// Runs core `idx` to completion, recording its fault if it fails.
    fn run_core(&self, idx: u32) {
        if self.skip(idx) {
            return;
        }
        /// Marks the core done however `run_core` ends, so the timeout never reports a
        /// finished core as running.
        struct Done<'a>(Option<&'a AtomicU8>);
        impl Drop for Done<'_> {
            fn drop(&mut self) {
                if let Some(s) = self.0 {
                    s.store(DONE, Ordering::Release);
                }
            }
        }
        let status = self.watch.as_ref().map(|w| &w.status[idx as usize]);
        if let Some(s) = status {
            s.store(RUNNING, Ordering::Release);
        }
        let _done = Done(status);
        // Clear leftovers of an earlier core of this thread.
        let _ = take_last_fault();
        let _ = take_released_mark();
        let cfg = CoreConfig {
            block_idx: idx,
            block_num: self.n,
            soc: self.soc,
            barrier: self.barrier.clone().map(|b| b as Arc<dyn CoreBarrier>),
            cancel: self.watch.as_ref().map(|w| Arc::clone(&w.token)),
            atomic_log: Some(Arc::clone(&self.atomic_log)),
            kernel_type: Some(self.kernel_type),
        };
        let guard = CoreGuard::enter(self.quiet);
        let saved = begin_core_output();
        let result = catch_unwind(AssertUnwindSafe(|| {
            run_on_core(cfg, || {
                let body = || match &self.san {
                    Some(san) => san.run_core(self.kernel),
                    None => (self.kernel)(),
                };
                match &self.prof {
                    Some(p) => p.run_core(body),
                    None => body(),
                }
            })
        }));
        let text = end_core_output(saved);
        drop(guard);
        if !text.is_empty() {
            lock(&self.output).push((idx, text));
        }
        match result {
            Ok(()) => {
                if let Some(b) = &self.barrier {
                    b.exit(idx);
                }
            }
            Err(payload) => {
                let mut fault = fault_from_panic(idx, payload.as_ref());
                if fault.unit.is_none() {
                    fault.unit = self.kernel_type.unit_of(idx, self.n);
                }
                // Inside a catch: a payload whose `Drop` panics must not unwind the launcher.
                drop_payload(payload);
                self.record(fault);
            }
        }
    }

    /// Records a fault; an independent fault (not a release) stops the launch and releases
    /// the cores waiting in `sync_all`.
    fn record(&self, fault: CoreFault) {
        let core = fault.core;
        let independent = !fault.is_secondary();
        lock(&self.faults).push(fault);
        if independent {
            self.stop.store(true, Ordering::Release);
            if let Some(b) = &self.barrier {
                b.abort(core);
            }
        }
    }

    /// Pooled mode: rayon's threads start the cores in index order, each taking the next core
    /// when it finishes one, on the thread's own stack. The first core of a thread to block
    /// (in `sync_all`, or waiting for another core) switches the launch to coroutines and
    /// hands its thread's place to a helper thread ([`compensate`](Self::compensate)); from
    /// then on every core starts on a coroutine and parks when it waits (see
    /// [`schedule`](Self::schedule)). A kernel whose cores never block starts no helper and no
    /// coroutine.
    ///
    /// A launch inside a kernel (its `blockDim` above [`Launch::max_threads`], so its cores
    /// cannot have threads of their own) starts its cores on the calling thread and its own
    /// helpers only: the pool's threads may all be held by the outer launch's cores, each
    /// waiting for a launch of its own, and cores queued on the pool behind them would never
    /// start.
    fn run_pooled(&self) {
        let nested = ascend_core::in_core();
        let threads = rayon::current_num_threads().clamp(1, self.n as usize);
        match &self.barrier {
            Some(b) if nested => Scope::run(coro::STACK_SIZE, |scope| self.drain(b, scope)),
            Some(b) => Scope::run(coro::STACK_SIZE, |scope| {
                (0..threads).into_par_iter().for_each(|_| self.drain(b, scope));
            }),
            // A single core: nothing to wait for.
            None if nested => self.run_remaining(),
            None => (0..threads).into_par_iter().for_each(|_| self.run_remaining()),
        }
    }

    /// Runs the cores not started yet one after another on this thread.
    fn run_remaining(&self) {
        while let Some(i) = self.next_core() {
            self.run_core(i);
        }
    }

    /// Runs the pooled launch's cores not started yet, one after another on this thread's
    /// stack until a core of the launch first blocks, then as coroutines.
    fn drain<'s>(&'s self, barrier: &'s LaunchBarrier, scope: &'s Scope) {
        // This thread's state set aside, also the coroutine it may run in (a launch inside a
        // pooled core's kernel): the cores below start as outside any core, and one that
        // blocks on this thread's stack blocks it rather than parking that coroutine.
        let _scheduler = coro::Scheduler::enter();
        let hook = || self.compensate(barrier, scope);
        with_block_hook(&hook, || {
            while !self.coroutines.load(Ordering::Acquire) {
                let Some(i) = self.next_core() else { return };
                self.run_core(i);
            }
            self.schedule(barrier);
        });
    }

    /// Called on a pooled core's thread just before a core that is not on a coroutine blocks
    /// it: the launch switches to coroutines, and when cores are left to start, a helper
    /// thread (parked between launches; at most one per rayon thread and launch) takes over
    /// starting them. If no thread can be started, the next core fails with the OS error (a
    /// launch that would hang otherwise), which releases the waiting cores.
    fn compensate<'s>(&'s self, barrier: &'s LaunchBarrier, scope: &'s Scope) {
        self.coroutines.store(true, Ordering::Release);
        if self.next.load(Ordering::Relaxed) >= self.n {
            return;
        }
        let limit = rayon::current_num_threads().max(1) as u32;
        if self.helpers.fetch_add(1, Ordering::Relaxed) >= limit {
            return;
        }
        if let Err(e) = scope.spawn(move || self.drain(barrier, scope)) {
            if let Some(i) = self.next_core() {
                self.record(CoreFault {
                    core: i,
                    unit: self.kernel_type.unit_of(i, self.n),
                    api: "Launch",
                    message: format!(
                        "could not start a host thread for core {i} of {} ({e}) while the cores already \
                         started wait for one another: lower blockDim",
                        self.n
                    ),
                    file: String::new(),
                    line: 0,
                    released_by: None,
                });
            }
        }
    }

    /// The next pooled core to start, if any is left.
    fn next_core(&self) -> Option<u32> {
        // The load first, so that a thread with nothing left does not move `next` further.
        if self.next.load(Ordering::Relaxed) >= self.n {
            return None;
        }
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        (i < self.n).then_some(i)
    }

    /// One thread's scheduler of a pooled launch once it runs coroutines: starts the cores not
    /// started yet, each on a coroutine, one after another; a core that waits parks and the
    /// next one starts. When
    /// none is left to start, it resumes its parked cores each time the barrier's epoch moves
    /// (a `sync_all` filled, a flag was written, a core failed, the timeout passed), those in
    /// a flag wait also every [`RECHECK`](crate::barrier::RECHECK), and in between runs other
    /// pending work of rayon's pool (another launch's cores) or sleeps on the barrier. Returns
    /// when every core it started has finished; a core never moves to another thread.
    fn schedule(&self, barrier: &LaunchBarrier) {
        let mut parked: std::collections::VecDeque<Parked<'_>> = std::collections::VecDeque::new();
        // The epoch of the last pass over every parked core, and when the flag waits were last
        // re-checked; `None` until the first pass (so that it resumes every parked core, and
        // a launch whose cores never wait never reads either).
        let mut seen: Option<u64> = None;
        let mut polled: Option<Instant> = None;
        loop {
            if let Some(i) = self.next_core() {
                if self.skip(i) {
                    continue;
                }
                match coro::start(move || self.run_core(i)) {
                    Ok(Some(p)) => parked.push_back(p),
                    Ok(None) => {}
                    Err(e) => self.no_stack(i, &e),
                }
                continue;
            }
            if parked.is_empty() {
                break;
            }
            let now = barrier.epoch();
            let event = seen != Some(now);
            let since = polled.map_or(crate::barrier::RECHECK, |t| t.elapsed());
            let poll = since >= crate::barrier::RECHECK;
            if !event && !poll {
                // Nothing to do for this launch here: run other pending work of rayon's pool
                // (another launch's cores, which may otherwise wait for this thread), else
                // sleep until the barrier moves.
                if rayon::yield_now() != Some(rayon::Yield::Executed) {
                    barrier.wait_event(now, crate::barrier::RECHECK.saturating_sub(since));
                }
                continue;
            }
            seen = Some(now);
            if poll {
                polled = Some(Instant::now());
            }
            for _ in 0..parked.len() {
                let Some(p) = parked.pop_front() else { break };
                if event || p.wait == Wait::Poll {
                    parked.extend(coro::resume(p));
                } else {
                    parked.push_back(p);
                }
            }
        }
    }

    /// Core `i` of a pooled launch could not get a stack: it fails (a launch that would hang
    /// otherwise), which releases the waiting cores.
    fn no_stack(&self, i: u32, e: &std::io::Error) {
        self.record(CoreFault {
            core: i,
            unit: self.kernel_type.unit_of(i, self.n),
            api: "Launch",
            message: format!(
                "could not map a stack of {} KiB for core {i} of {} ({e}) while the cores already started wait \
                 for one another: lower blockDim",
                coro::STACK_SIZE >> 10,
                self.n
            ),
            file: String::new(),
            line: 0,
            released_by: None,
        });
    }

    /// Runs one thread per core and waits for all of them: parked workers reused across
    /// launches for the default stack size, freshly started scoped threads otherwise.
    fn run_threads(&self, stack_size: usize) {
        if stack_size == DEFAULT_STACK_SIZE {
            Scope::run(stack_size, |s| self.start_cores(|i| s.spawn(move || self.run_core(i))));
        } else {
            std::thread::scope(|s| {
                self.start_cores(|i| {
                    std::thread::Builder::new()
                        .name(format!("ascend-core-{i}"))
                        .stack_size(stack_size)
                        .spawn_scoped(s, move || self.run_core(i))
                        .map(drop)
                })
            });
        }
    }

    /// Starts every core with `start`; a core whose thread cannot be started fails the
    /// launch (the cores after it are skipped, those already running are released).
    fn start_cores(&self, mut start: impl FnMut(u32) -> std::io::Result<()>) {
        for i in 0..self.n {
            if self.stop.load(Ordering::Acquire) {
                lock(&self.skipped).extend(i..self.n);
                break;
            }
            if let Err(e) = start(i) {
                self.record(CoreFault {
                    core: i,
                    unit: self.kernel_type.unit_of(i, self.n),
                    api: "Launch",
                    message: format!(
                        "could not start a host thread for core {i} of {} ({e}): lower blockDim or the \
                         stack size",
                        self.n
                    ),
                    file: String::new(),
                    line: 0,
                    released_by: None,
                });
                lock(&self.skipped).extend(i + 1..self.n);
                break;
            }
        }
    }

    /// The faults (primary first, then independent ones by core, then released ones by
    /// core) and the sorted skipped cores.
    fn finish(self) -> (Vec<CoreFault>, Vec<u32>) {
        let mut faults = self.faults.into_inner().unwrap_or_else(|e| e.into_inner());
        let mut skipped = self.skipped.into_inner().unwrap_or_else(|e| e.into_inner());
        skipped.sort_unstable();
        if let Some(p) = faults.iter().position(|f| !f.is_secondary()) {
            let primary = faults.remove(p);
            faults.sort_by_key(|f| (f.is_secondary(), f.core));
            faults.insert(0, primary);
        }
        (faults, skipped)
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Turns a caught panic of core `idx` into a [`CoreFault`]: the structured fault of a failed
/// check when there is one, otherwise the panic's message with `api = "panic"`.
fn fault_from_panic(idx: u32, payload: &(dyn Any + Send)) -> CoreFault {
    let text = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned());
    let location = take_panic_location();
    let released = take_released_mark();
    match take_last_fault() {
        // The recorded fault is this panic's only if the messages agree (a kernel may have
        // caught an earlier failed check itself).
        Some(f) if text.as_deref() == Some(f.to_string().as_str()) => {
            let released_by = released.filter(|_| f.api == "SyncAll");
            CoreFault { released_by, ..CoreFault::from(f) }
        }
        _ => {
            let (file, line) = location.unwrap_or_default();
            CoreFault {
                core: idx,
                unit: None,
                api: "panic",
                message: text.unwrap_or_else(|| "panic with a non-string payload".to_owned()),
                file,
                line,
                released_by: None,
            }
        }
    }
}
