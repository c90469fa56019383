//! Parked OS threads reused across thread-per-core launches.
//!
//! Starting an OS thread costs tens of microseconds; a 48-core launch that calls `sync_all`
//! needs 48 threads alive at once. The workers here are started once, park between
//! launches, and are handed one core each, so a launch costs a wake-up per core instead of a
//! thread start. A launch hands out borrowed work and waits for every piece to finish before
//! it returns (the same contract as `std::thread::scope`).

use std::cell::Cell;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// Idle workers kept parked at most; more are started when a launch needs them and exit
/// after their job when this many are already parked.
const MAX_IDLE: usize = 1024;

type Job = Box<dyn FnOnce() + Send + 'static>;

/// What a parked worker is handed.
enum Msg {
    /// Run a job, then count it done on the latch.
    Run(Job, Arc<Latch>),
    /// Exit the thread ([`shutdown_workers`]).
    Quit,
}

/// One parked thread and its mailbox.
struct Worker {
    /// The thread's stack size: a job is handed only to a worker with the size it asks for.
    stack_size: usize,
    slot: Mutex<Option<Msg>>,
    wake: Condvar,
}

/// Ends every parked worker thread of [`ExecMode::ThreadPerCore`](crate::ExecMode) launches
/// and returns how many were told to exit. Workers busy in a running launch are not affected
/// (they park again afterwards); the next launch starts new threads as needed.
///
/// ```
/// use ascend_runtime::prelude::*;
/// Launch::new(Soc::Ascend910B).block_dim(4).sync_all(true).run(|| sync_all()).unwrap();
/// ascend_runtime::shutdown_workers();
/// ```
pub fn shutdown_workers() -> usize {
    let idle = std::mem::take(&mut *lock(&IDLE));
    for w in &idle {
        *lock(&w.slot) = Some(Msg::Quit);
        w.wake.notify_one();
    }
    idle.len()
}

/// Drops a panic payload, even one whose own `Drop` panics (that second payload is leaked:
/// dropping it could panic again, and a launcher must never unwind).
pub(crate) fn drop_payload(payload: Box<dyn std::any::Any + Send>) {
    if let Err(again) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(payload))) {
        std::mem::forget(again);
    }
}

static IDLE: Mutex<Vec<Arc<Worker>>> = Mutex::new(Vec::new());

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Counts outstanding jobs of one launch down to zero.
pub(crate) struct Latch {
    left: Mutex<usize>,
    done: Condvar,
}

impl Latch {
    fn new() -> Arc<Latch> {
        Arc::new(Latch { left: Mutex::new(0), done: Condvar::new() })
    }

    fn add(&self) {
        *lock(&self.left) += 1;
    }

    fn done(&self) {
        let mut left = lock(&self.left);
        *left -= 1;
        if *left == 0 {
            self.done.notify_all();
        }
    }

    fn wait(&self) {
        let mut left = lock(&self.left);
        while *left > 0 {
            left = self.done.wait(left).unwrap_or_else(|e| e.into_inner());
        }
    }
}

fn worker_loop(me: Arc<Worker>) {
    loop {
        let (job, latch) = {
            let mut slot = lock(&me.slot);
            loop {
                match slot.take() {
                    Some(Msg::Run(job, latch)) => break (job, latch),
                    Some(Msg::Quit) => return,
                    None => {}
                }
                slot = me.wake.wait(slot).unwrap_or_else(|e| e.into_inner());
            }
        };
        // The launcher's jobs catch their own panics; this catch is the backstop that keeps
        // the latch counting (a launch waiting on it must never hang).
        if let Err(p) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)) {
            drop_payload(p);
        }
        // Back to the idle list before the launch is told, so the next launch finds it.
        let keep = {
            let mut idle = lock(&IDLE);
            let keep = idle.len() < MAX_IDLE;
            if keep {
                idle.push(Arc::clone(&me));
            }
            keep
        };
        latch.done();
        if !keep {
            return;
        }
    }
}

/// A set of jobs that borrow from the caller's stack, each on its own worker thread.
pub(crate) struct Scope {
    latch: Arc<Latch>,
    stack_size: usize,
}

impl Scope {
    /// Runs `f` with a scope whose jobs all finish before `run` returns.
    pub(crate) fn run<R>(stack_size: usize, f: impl FnOnce(&Scope) -> R) -> R {
        struct WaitAll(Arc<Latch>);
        impl Drop for WaitAll {
            fn drop(&mut self) {
                self.0.wait();
            }
        }
        let scope = Scope { latch: Latch::new(), stack_size };
        // Waits even if `f` unwinds, so no job outlives the borrows it holds.
        let _wait = WaitAll(Arc::clone(&scope.latch));
        f(&scope)
    }

    /// Runs `job` on a parked worker (starting one if none is idle). `job` must not panic:
    /// the launcher's jobs catch every panic of the kernel themselves.
    ///
    /// # Errors
    /// The OS error if a new thread was needed and could not be started.
    pub(crate) fn spawn<'s>(&'s self, job: impl FnOnce() + Send + 's) -> std::io::Result<()> {
        let job: Box<dyn FnOnce() + Send + 's> = Box::new(job);
        // SAFETY: the job only borrows data that outlives `'s`, and `Scope::run` does not
        // return (nor unwind past its frame) before the latch counts every spawned job as
        // finished, so the job never runs after those borrows end. Only the lifetime is
        // changed; the layout of the boxed trait object is identical.
        let job: Job = unsafe { std::mem::transmute::<Box<dyn FnOnce() + Send + 's>, Job>(job) };
        let worker = {
            let mut idle = lock(&IDLE);
            let at = idle.iter().rposition(|w| w.stack_size == self.stack_size);
            at.map(|i| idle.swap_remove(i))
        };
        let worker = match worker {
            Some(w) => w,
            None => {
                let w = Arc::new(Worker {
                    stack_size: self.stack_size,
                    slot: Mutex::new(None),
                    wake: Condvar::new(),
                });
                let me = Arc::clone(&w);
                std::thread::Builder::new()
                    .name("ascend-core-worker".into())
                    .stack_size(self.stack_size)
                    .spawn(move || worker_loop(me))?;
                w
            }
        };
        self.latch.add();
        *lock(&worker.slot) = Some(Msg::Run(job, Arc::clone(&self.latch)));
        worker.wake.notify_one();
        Ok(())
    }
}

/// What a thread does just before one of its cores blocks (see [`before_block`]): a pointer
/// to a closure on that thread's stack and the function that calls it.
#[derive(Clone, Copy)]
struct BlockHook {
    data: *const (),
    call: unsafe fn(*const ()),
}

thread_local! {
    /// This thread's [`BlockHook`], while it runs the cores of a pooled launch.
    static ON_BLOCK: Cell<Option<BlockHook>> = const { Cell::new(None) };
}

/// Runs `f` with `hook` as what [`before_block`] calls on this thread (the hook in force
/// before is restored afterwards, also when `f` unwinds).
pub(crate) fn with_block_hook<H: Fn(), R>(hook: &H, f: impl FnOnce() -> R) -> R {
    /// Calls the `H` that `p` points to.
    ///
    /// # Safety
    /// `p` must point to a live `H`.
    unsafe fn call<H: Fn()>(p: *const ()) {
        // SAFETY: the caller's contract.
        unsafe { (*p.cast::<H>())() }
    }
    struct Restore(Option<BlockHook>);
    impl Drop for Restore {
        fn drop(&mut self) {
            ON_BLOCK.with(|h| h.set(self.0));
        }
    }
    let mine = BlockHook { data: std::ptr::from_ref(hook).cast(), call: call::<H> };
    let _restore = Restore(ON_BLOCK.with(|h| h.replace(Some(mine))));
    f()
}

/// Called on a core's thread just before the core blocks its thread (in `sync_all`, or
/// waiting for another core; a core on a coroutine parks instead and never calls it): runs
/// the hook [`with_block_hook`] set on this thread, if any. The pooled mode's hook switches
/// the launch to coroutines and hands the thread's place to a helper thread, so the cores not
/// started yet still start while this one waits (compensation, as rayon and Go do for
/// blocking calls). It must be called without holding the barrier's lock (the hook may fail
/// the launch).
pub(crate) fn before_block() {
    if let Some(h) = ON_BLOCK.with(Cell::get) {
        // SAFETY: `with_block_hook` set the hook on this thread and clears it (restoring the
        // previous one) before its frame, which borrows the closure, returns or unwinds; this
        // call runs on the same thread inside that frame, so the closure is alive.
        unsafe { (h.call)(h.data) }
    }
}
