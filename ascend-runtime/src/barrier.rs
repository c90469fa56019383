//! The launch-wide barrier behind `sync_all` in the pooled and thread-per-core modes, and the
//! blocking waits of the flag-based inter-core primitives (`IBWait`, `WaitPreBlock` …).
//!
//! In pooled mode the first core of a thread to block first hands its thread's place to a
//! helper thread ([`crate::workers::before_block`]) and switches the launch to coroutines: the
//! later cores run on coroutines ([`crate::coro`]), and instead of blocking their thread they
//! park; their thread's scheduler resumes them when the barrier reports progress (each
//! change below bumps an epoch, [`LaunchBarrier::wait_event`]). So the cores not started yet
//! start and the barrier can fill; cores not started yet are not counted as stopped below.
//!
//! A generation-counting barrier on a `Mutex` + `Condvar` that can never hang:
//! - when a core fails, the launcher [`abort`](LaunchBarrier::abort)s it, and every core
//!   waiting (or arriving later) is released with an error naming the failed core;
//! - when a core returns from the kernel while others wait in `sync_all` (so the barrier can
//!   never fill, a hang on the hardware), the waiting cores are released with an error that
//!   says so;
//! - a core blocked in [`CoreBarrier::wait_until`] leaves its condition with the barrier:
//!   whichever core writes a flag ([`CoreBarrier::signal`]) or stops running (blocks, waits in
//!   `sync_all`, returns) evaluates every blocked condition under the lock. When no core is
//!   running and no condition holds, no core can ever go on: the blocked cores are released
//!   with an error that names what each waits for. A blocked core also re-checks its own
//!   condition every few milliseconds, for a flag a running core wrote with a plain copy.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};

use ascend_core::atomic::AtomicLog;
use ascend_core::cross_core::CrossFlags;

use ascend_core::{CoreBarrier, WaitCond};

/// How often a blocked core re-checks its own condition (for flags written by plain copies,
/// which do not signal).
pub(crate) const RECHECK: std::time::Duration = std::time::Duration::from_millis(2);

/// A core blocked in [`CoreBarrier::wait_until`].
struct Blocked {
    what: String,
    cond: WaitCond,
}

thread_local! {
    /// Set on a core's thread when its `sync_all` was released because another core failed:
    /// the launcher reports that core's fault as secondary.
    static RELEASED_BY: Cell<Option<u32>> = const { Cell::new(None) };
}

/// Takes (and clears) the "released because core N failed" mark of this thread.
pub(crate) fn take_released_mark() -> Option<u32> {
    RELEASED_BY.with(|r| r.take())
}

/// Puts back a mark [`take_released_mark`] took (a core resumed on its coroutine).
pub(crate) fn put_released_mark(mark: Option<u32>) {
    RELEASED_BY.with(|r| r.set(mark));
}

struct State {
    /// Cores waiting in the current generation.
    arrived: u32,
    /// Incremented each time the barrier fills.
    generation: u64,
    /// The first core that failed, once the launch is aborted.
    aborted_by: Option<u32>,
    /// Set when the waiting cores can never be released (see the module doc).
    deadlock: Option<String>,
    /// Set when the launch timed out: waiting cores are released with this reason.
    cancelled: Option<String>,
    /// Which cores are waiting right now (for the timeout's report). This and the two
    /// other per-core lists are empty until a core first waits ([`State::sized`]), so a
    /// launch whose cores never wait does not pay for them.
    waiting: Vec<bool>,
    /// By core: its condition while it is blocked in `wait_until`.
    blocked: Vec<Option<Blocked>>,
    /// Cores blocked in `wait_until`.
    n_blocked: u32,
    /// By core: set when another core found its condition true and released it.
    fired: Vec<bool>,
    /// Bumped at each change that may let a waiting core go on (the barrier filled, a blocked
    /// condition fired, a failure, a deadlock, the timeout): the pooled schedulers resume
    /// their parked cores when it moves.
    epoch: u64,
}

impl State {
    /// Gives the per-core lists their `n` entries (on a core's first wait).
    fn sized(&mut self, n: u32) -> &mut State {
        if self.waiting.is_empty() {
            let n = n as usize;
            self.waiting = vec![false; n];
            self.blocked = (0..n).map(|_| None).collect();
            self.fired = vec![false; n];
        }
        self
    }

    /// Evaluates every blocked core's condition; releases those that hold. Whether any did.
    fn fire(&mut self) -> bool {
        let mut any = false;
        for (b, f) in self.blocked.iter_mut().zip(self.fired.iter_mut()) {
            if b.as_mut().is_some_and(|w| (w.cond)()) {
                *b = None;
                *f = true;
                self.n_blocked -= 1;
                any = true;
            }
        }
        any
    }
}

/// A barrier across the `n` cores of one launch.
pub(crate) struct LaunchBarrier {
    n: u32,
    state: Mutex<State>,
    cv: Condvar,
    /// Float atomic contributions, applied by the last core to arrive, before any is released.
    atomic_log: Option<Arc<AtomicLog>>,
    /// The counters of `CrossCoreSetFlag` (made on first use).
    cross_flags: OnceLock<Arc<CrossFlags>>,
    /// Set (under the lock) once a core has waited: from then on a core that returns takes
    /// the lock to check whether the waiting cores can still meet. Before, returning costs
    /// one atomic operation (see [`exit`](Self::exit)).
    used: AtomicBool,
    /// Which cores returned from the kernel normally, a bit each.
    exited: Box<[AtomicU64]>,
}

impl LaunchBarrier {
    /// A barrier for `n` cores.
    pub(crate) fn new(n: u32) -> Self {
        LaunchBarrier {
            n,
            state: Mutex::new(State {
                arrived: 0,
                generation: 0,
                aborted_by: None,
                deadlock: None,
                cancelled: None,
                waiting: Vec::new(),
                blocked: Vec::new(),
                n_blocked: 0,
                fired: Vec::new(),
                epoch: 0,
            }),
            cv: Condvar::new(),
            atomic_log: None,
            cross_flags: OnceLock::new(),
            used: AtomicBool::new(false),
            exited: (0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// Makes each filling of the barrier apply `log` before it releases the cores.
    pub(crate) fn with_atomic_log(self, log: Arc<AtomicLog>) -> Self {
        LaunchBarrier { atomic_log: Some(log), ..self }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic never happens while the lock is held; recover from poisoning anyway.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The lock, taken by a core about to wait: marks the barrier used (see
    /// [`exit`](Self::exit)).
    fn lock_to_wait(&self) -> MutexGuard<'_, State> {
        let s = self.lock();
        if !self.used.load(Ordering::Relaxed) {
            self.used.store(true, Ordering::SeqCst);
        }
        s
    }

    /// Wakes every core waiting on the condvar and every pooled scheduler (under the lock).
    fn wake(&self, s: &mut State) {
        s.epoch = s.epoch.wrapping_add(1);
        self.cv.notify_all();
    }

    /// The barrier's epoch now (see [`State::epoch`]).
    pub(crate) fn epoch(&self) -> u64 {
        self.lock().epoch
    }

    /// Blocks the calling thread (a pooled scheduler whose parked cores cannot go on) until
    /// the epoch moves past `seen` or `timeout` passes.
    pub(crate) fn wait_event(&self, seen: u64, timeout: std::time::Duration) {
        let s = self.lock();
        if s.epoch == seen {
            drop(
                self.cv
                    .wait_timeout_while(s, timeout, |s| s.epoch == seen)
                    .unwrap_or_else(|e| e.into_inner()),
            );
        }
    }

    /// Before a core that is not on a coroutine blocks its thread: in pooled mode its thread's
    /// place goes to a helper first ([`crate::workers::before_block`], outside the lock:
    /// starting the helper may fail the launch, which takes the lock).
    fn before_block<'a>(&'a self, s: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        if crate::coro::in_coroutine() {
            return s;
        }
        drop(s);
        crate::workers::before_block();
        self.lock()
    }

    /// Lets the calling core wait (the lock released meanwhile): a pooled core parks on its
    /// coroutine; a core with a thread of its own waits on the condvar, and with `poll` at
    /// most [`RECHECK`].
    fn pause<'a>(&'a self, s: MutexGuard<'a, State>, poll: bool) -> MutexGuard<'a, State> {
        if crate::coro::in_coroutine() {
            drop(s);
            crate::coro::park(if poll { crate::coro::Wait::Poll } else { crate::coro::Wait::Event });
            self.lock()
        } else if poll {
            self.cv.wait_timeout(s, RECHECK).unwrap_or_else(|e| e.into_inner()).0
        } else {
            self.cv.wait(s).unwrap_or_else(|e| e.into_inner())
        }
    }

    /// The cores that returned from the kernel, sorted.
    fn exited_cores(&self) -> Vec<u32> {
        (0..self.n)
            .filter(|&i| self.exited[i as usize / 64].load(Ordering::SeqCst) & (1 << (i % 64)) != 0)
            .collect()
    }

    /// Releases every waiting core with an error: `core` failed. Only the first abort counts.
    pub(crate) fn abort(&self, core: u32) {
        let mut s = self.lock();
        if s.aborted_by.is_none() {
            s.aborted_by = Some(core);
        }
        self.wake(&mut s);
    }

    /// Releases every waiting core (and any arriving later) with `why`: the launch timed out.
    pub(crate) fn cancel(&self, why: String) {
        let mut s = self.lock();
        s.cancelled.get_or_insert(why);
        self.wake(&mut s);
    }

    /// The cores waiting in `sync_all` right now, by index.
    pub(crate) fn waiting_cores(&self) -> Vec<u32> {
        let s = self.lock();
        (0..self.n).filter(|&i| s.waiting.get(i as usize).copied().unwrap_or(false)).collect()
    }

    /// Records that `core` returned from the kernel; releases the waiting cores with an error
    /// if they can no longer all meet.
    ///
    /// Until a core has waited this takes no lock: the exit is a bit set with a sequentially
    /// consistent atomic, and a core starting to wait marks the barrier used with one before
    /// it counts the cores stopped, so of a core returning and a core starting to wait at the
    /// same time, at least one sees the other (and checks whether the waiting cores can meet).
    pub(crate) fn exit(&self, core: u32) {
        self.exited[core as usize / 64].fetch_or(1 << (core % 64), Ordering::SeqCst);
        if self.used.load(Ordering::SeqCst) {
            let mut s = self.lock();
            self.stalled(&mut s);
        }
    }

    /// Called (under the lock) when a core stops running: when none runs any more, either a
    /// blocked core's condition holds (it is released) or no core can ever go on (a deadlock,
    /// recorded and broadcast). Whether it was a deadlock.
    fn stalled(&self, s: &mut State) -> bool {
        let exits: u32 = self.exited.iter().map(|w| w.load(Ordering::SeqCst).count_ones()).sum();
        let stopped = s.arrived as usize + s.n_blocked as usize + exits as usize;
        if stopped < self.n as usize || (s.arrived == 0 && s.n_blocked == 0) {
            return false;
        }
        if s.fire() {
            self.wake(s);
            return false;
        }
        let why = if s.n_blocked == 0 { self.deadlock_message(s) } else { self.blocked_message(s) };
        s.deadlock = Some(why);
        self.wake(s);
        true
    }

    fn blocked_message(&self, s: &State) -> String {
        let mut parts: Vec<String> = s
            .blocked
            .iter()
            .enumerate()
            .filter_map(|(i, b)| b.as_ref().map(|b| format!("core {i} {}", b.what)))
            .collect();
        if s.arrived > 0 {
            parts.push(format!("{} core(s) wait in SyncAll", s.arrived));
        }
        let exited = self.exited_cores();
        if !exited.is_empty() {
            parts.push(format!("core(s) {} returned from the kernel", crate::launch::format_ranges(&exited)));
        }
        format!("no core can go on: {} (on the hardware this hangs)", parts.join("; "))
    }

    fn deadlock_message(&self, s: &State) -> String {
        let exited = self.exited_cores();
        format!(
            "{} of {} cores are waiting here, but core(s) {} returned from the kernel without \
             reaching this SyncAll: every core must call SyncAll the same number of times \
             (on the hardware this hangs)",
            s.arrived,
            self.n,
            crate::launch::format_ranges(&exited)
        )
    }

    /// Why a waiting (or arriving) core must stop waiting, if it must: the launch timed out,
    /// no core can go on, or another core failed. A deadlock is these cores' own fault; the
    /// abort it causes must not hide it.
    fn stop_reason(&self, s: &State) -> Option<Result<(), String>> {
        if let Some(why) = &s.cancelled {
            return Some(Err(why.clone()));
        }
        if let Some(why) = &s.deadlock {
            return Some(Err(why.clone()));
        }
        s.aborted_by.map(|by| self.released(by))
    }

    fn released(&self, by: u32) -> Result<(), String> {
        RELEASED_BY.with(|r| r.set(Some(by)));
        Err(format!("released because core {by} failed"))
    }
}

impl CoreBarrier for LaunchBarrier {
    fn wait(&self, core: u32) -> Result<(), String> {
        let mut s = self.lock_to_wait();
        if let Some(r) = self.stop_reason(&s) {
            return r;
        }
        s.arrived += 1;
        if s.arrived == self.n {
            // Every other core waits on this mutex: the log is applied with no core running.
            if let Some(log) = &self.atomic_log {
                log.flush();
            }
            s.arrived = 0;
            s.generation = s.generation.wrapping_add(1);
            self.wake(&mut s);
            return Ok(());
        }
        if self.stalled(&mut s) {
            return Err(s.deadlock.clone().unwrap_or_default());
        }
        let seen = s.generation;
        let me = core as usize;
        if let Some(w) = s.sized(self.n).waiting.get_mut(me) {
            *w = true;
        }
        s = self.before_block(s);
        let result = loop {
            if s.generation != seen {
                break Ok(());
            }
            if let Some(r) = self.stop_reason(&s) {
                break r;
            }
            s = self.pause(s, false);
        };
        if let Some(w) = s.waiting.get_mut(me) {
            *w = false;
        }
        result
    }

    fn wait_until(&self, core: u32, what: String, mut cond: WaitCond) -> Result<(), String> {
        let mut s = self.lock_to_wait();
        if let Some(r) = self.stop_reason(&s) {
            return r;
        }
        if cond() {
            return Ok(());
        }
        let me = core as usize;
        s.sized(self.n).fired[me] = false;
        s.blocked[me] = Some(Blocked { what, cond });
        s.n_blocked += 1;
        self.stalled(&mut s);
        s = self.before_block(s);
        let result = loop {
            if s.fired[me] {
                break Ok(());
            }
            if let Some(r) = self.stop_reason(&s) {
                break r;
            }
            s = self.pause(s, true);
            if s.blocked[me].as_mut().is_some_and(|b| (b.cond)()) {
                s.blocked[me] = None;
                s.n_blocked -= 1;
                break Ok(());
            }
        };
        if s.blocked[me].take().is_some() {
            s.n_blocked -= 1;
        }
        s.fired[me] = false;
        result
    }

    fn signal(&self, write: &mut dyn FnMut()) {
        let mut s = self.lock();
        write();
        if s.fire() {
            self.wake(&mut s);
        }
    }

    fn cross_flags(&self) -> Arc<CrossFlags> {
        Arc::clone(self.cross_flags.get_or_init(|| Arc::new(CrossFlags::new(self.n))))
    }

    fn cross_flags_made(&self) -> Option<Arc<CrossFlags>> {
        self.cross_flags.get().cloned()
    }
}
