//! The launch timeout: one process-wide watchdog thread, started on first use, that cancels
//! launches running past their deadline.
//!
//! A launch registers a [`Watch`] (its deadline, its cores' states, its cancel token and
//! barrier) and removes it when its cores are done. When a deadline passes, the watchdog
//! cancels the launch: every core fails at its next kernel API call (a vector instruction,
//! a copy, a global-memory access, `sync_all`), and cores waiting in `sync_all` are released
//! at once; the launch then returns [`LaunchError::TimedOut`](crate::LaunchError::TimedOut).
//!
//! A core that never calls the kernel API again (a pure Rust `loop {}`) cannot be stopped:
//! `Launch::run` takes a closure that may borrow the caller's stack, so returning while that
//! core's thread still runs it would be undefined behaviour, and waiting is the hang the
//! timeout exists to prevent. After a grace period the watchdog therefore prints which cores
//! did not stop and aborts the process.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use ascend_core::CancelToken;

use crate::barrier::LaunchBarrier;
use crate::launch::format_ranges;

/// A core not started yet.
pub(crate) const PENDING: u8 = 0;
/// A core running the kernel.
pub(crate) const RUNNING: u8 = 1;
/// A core that returned (or unwound).
pub(crate) const DONE: u8 = 2;

/// How long cancelled cores get to unwind before the process is aborted.
const GRACE: Duration = Duration::from_secs(10);

/// One watched launch.
pub(crate) struct Watch {
    pub(crate) timeout: Duration,
    deadline: Mutex<Instant>,
    pub(crate) token: Arc<CancelToken>,
    pub(crate) barrier: Option<Arc<LaunchBarrier>>,
    pub(crate) status: Arc<[AtomicU8]>,
    /// Set when the deadline passed: (cores running, cores waiting in `sync_all`).
    pub(crate) fired: OnceLock<(Vec<u32>, Vec<u32>)>,
}

impl Watch {
    pub(crate) fn new(
        timeout: Duration,
        token: Arc<CancelToken>,
        barrier: Option<Arc<LaunchBarrier>>,
        status: Arc<[AtomicU8]>,
    ) -> Arc<Watch> {
        let deadline = Instant::now().checked_add(timeout).unwrap_or_else(far_future);
        Arc::new(Watch {
            timeout,
            deadline: Mutex::new(deadline),
            token,
            barrier,
            status,
            fired: OnceLock::new(),
        })
    }

    fn cores_in(&self, state: u8) -> Vec<u32> {
        (0..self.status.len() as u32)
            .filter(|&i| self.status[i as usize].load(Ordering::Acquire) == state)
            .collect()
    }

    /// Cancels the launch.
    fn fire(&self) {
        let waiting = self.barrier.as_ref().map(|b| b.waiting_cores()).unwrap_or_default();
        let running: Vec<u32> = self.cores_in(RUNNING).into_iter().filter(|c| !waiting.contains(c)).collect();
        let t = self.timeout;
        let summary = format!(
            "{} core(s) still running: {}; {} waiting in SyncAll: {}",
            running.len(),
            if running.is_empty() { "none".to_string() } else { format_ranges(&running) },
            waiting.len(),
            if waiting.is_empty() { "none".to_string() } else { format_ranges(&waiting) },
        );
        if let Some(b) = &self.barrier {
            b.cancel(format!(
                "the launch timed out after {t:?} (Launch::timeout) while this core was waiting in SyncAll ({summary})"
            ));
        }
        self.token.cancel(format!(
            "the launch timed out after {t:?} (Launch::timeout) and this core was still running (not in SyncAll); \
             stopped at its next kernel API call ({summary})"
        ));
        let _ = self.fired.set((running, waiting));
    }
}

fn far_future() -> Instant {
    Instant::now() + Duration::from_secs(100 * 365 * 24 * 3600)
}

struct Watchdog {
    list: Mutex<Vec<Arc<Watch>>>,
    cv: Condvar,
    /// When the watchdog thread will next look, if it is asleep.
    next_look: Mutex<Option<Instant>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn watchdog() -> &'static Watchdog {
    static WD: OnceLock<&'static Watchdog> = OnceLock::new();
    WD.get_or_init(|| {
        let wd: &'static Watchdog = Box::leak(Box::new(Watchdog {
            list: Mutex::new(Vec::new()),
            cv: Condvar::new(),
            next_look: Mutex::new(None),
        }));
        std::thread::Builder::new()
            .name("ascend-launch-watchdog".into())
            .spawn(move || watch_loop(wd))
            .expect("could not start the launch watchdog thread");
        wd
    })
}

fn watch_loop(wd: &'static Watchdog) {
    loop {
        // `next_look` is held while scanning, and `watch` holds it while registering, so a
        // launch registered during the scan is either seen by it or wakes the sleep below.
        let mut look = lock(&wd.next_look);
        let now = Instant::now();
        let mut next = far_future();
        let mut due: Vec<Arc<Watch>> = Vec::new();
        for w in lock(&wd.list).iter() {
            let d = *lock(&w.deadline);
            if d <= now {
                due.push(Arc::clone(w));
            } else {
                next = next.min(d);
            }
        }
        if !due.is_empty() {
            drop(look);
            for w in due {
                if w.fired.get().is_none() {
                    *lock(&w.deadline) = Instant::now() + GRACE;
                    w.fire();
                } else {
                    give_up(&w);
                }
            }
            continue;
        }
        *look = Some(next);
        let wait = next.saturating_duration_since(Instant::now());
        let (mut look, _) = wd.cv.wait_timeout(look, wait).unwrap_or_else(|e| e.into_inner());
        *look = None;
    }
}

/// Cores did not stop within the grace period after cancellation: see the module doc.
fn give_up(w: &Watch) -> ! {
    let stuck = w.cores_in(RUNNING);
    eprintln!(
        "ascend-runtime: a launch timed out after {:?} and core(s) {} did not stop within {GRACE:?} of being \
         cancelled (they make no kernel API call, e.g. a pure Rust loop). The launch cannot return while they \
         run (they borrow the caller's data), so the process is aborted.",
        w.timeout,
        format_ranges(&stuck)
    );
    std::process::abort()
}

/// Starts watching `w` until [`unwatch`].
pub(crate) fn watch(w: &Arc<Watch>) {
    let wd = watchdog();
    let look = lock(&wd.next_look);
    lock(&wd.list).push(Arc::clone(w));
    // Wake the watchdog only if it sleeps past this deadline (with one timeout for every
    // launch it never does, so a launch costs no wake-up).
    let d = *lock(&w.deadline);
    if look.is_some_and(|l| l > d) {
        wd.cv.notify_one();
    }
}

/// Stops watching `w`.
pub(crate) fn unwatch(w: &Arc<Watch>) {
    lock(&watchdog().list).retain(|x| !Arc::ptr_eq(x, w));
}
