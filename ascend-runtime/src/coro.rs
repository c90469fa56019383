//! The pooled mode's cores as stackful coroutines ([`corosensei`]): a core that waits for
//! another (`sync_all`, `IBWait`, `WaitPreBlock`, `CrossCoreWaitFlag`, `GroupBarrier::Wait`,
//! a polled GM flag) parks on its own stack and gives its host thread to the next core, so a
//! launch of any `blockDim` runs on a bounded number of host threads.
//!
//! A pooled launch runs its cores on the threads' own stacks until one first blocks (its
//! thread hands its place to a helper thread, see `compensate` in [`crate::launch`]); from
//! then on each thread of the launch runs a small scheduler (`schedule`): it starts the cores
//! not started yet one after another, each on a coroutine with a stack of [`STACK_SIZE`]
//! taken from a per-thread cache (so a later launch maps no memory); a core that must wait
//! calls [`park`], which
//! suspends its coroutine, and the scheduler resumes it when the launch's barrier reports
//! progress (or, for a flag wait, every few milliseconds), so that it checks its condition
//! again. A core never moves to another thread: its state (`Rc`s, the arenas, the
//! thread-locals) is bound to the thread it started on.
//!
//! The per-core thread-local state ([`CoreCtx`]: `ascend_core`'s `CoreTls`, the panic hook's
//! mark and location, the `sync_all` release mark) leaves the thread with a core that parks
//! and comes back when it resumes, so a panic of a resumed core still becomes its fault with
//! the kernel's line.
//!
//! A core that overflows its stack reaches the stack's guard page (corosensei maps one below
//! each stack): the process is killed by `SIGSEGV`, without Rust's "has overflowed its stack"
//! message, which only knows the threads' own guard pages. Under Valgrind, corosensei
//! registers each stack (`VALGRIND_STACK_REGISTER`), so memcheck follows the switches.

use std::cell::{Cell, RefCell};
use std::marker::PhantomData;
use std::panic::{catch_unwind, AssertUnwindSafe};

use ascend_core::CoreTls;
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};

use crate::hook::CoreMark;
use crate::workers::drop_payload;

/// The stack size of a pooled core: 2 MiB (the size of rayon's threads, on which the pooled
/// cores ran before they had stacks of their own; only touched pages cost memory).
pub(crate) const STACK_SIZE: usize = 2 << 20;

/// Stacks kept per thread for the next cores, at most (more are unmapped when their core
/// finishes).
const IDLE_STACKS: usize = 64;

/// What a parked core waits for, which tells the scheduler when to resume it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wait {
    /// A change the launch's barrier reports (a `sync_all` filling, a flag written through
    /// the barrier, a failure, the timeout).
    Event,
    /// As [`Wait::Event`], and also every few milliseconds: a flag a running core wrote with a
    /// plain copy tells no one.
    Poll,
}

type Co = Coroutine<(), Wait, (), DefaultStack>;

thread_local! {
    /// The yielder of the coroutine running on this thread now (null in the scheduler, and on
    /// threads that run no coroutine).
    static YIELDER: Cell<*const Yielder<(), Wait>> = const { Cell::new(std::ptr::null()) };
    /// Stacks of finished cores, for the next ones.
    static STACKS: RefCell<Vec<DefaultStack>> = const { RefCell::new(Vec::new()) };
}

/// The thread-local state of the core a thread runs (see the module doc).
pub(crate) struct CoreCtx {
    core: CoreTls,
    mark: CoreMark,
    released: Option<u32>,
}

impl CoreCtx {
    /// Takes this thread's core state, leaving the thread as outside any core.
    fn take() -> CoreCtx {
        CoreCtx {
            core: CoreTls::take(),
            mark: crate::hook::take_core_mark(),
            released: crate::barrier::take_released_mark(),
        }
    }

    /// Puts it back (on the thread it was taken on).
    fn restore(self) {
        self.core.restore();
        crate::hook::put_core_mark(self.mark);
        crate::barrier::put_released_mark(self.released);
    }
}

/// Whether the code running now is a core on a coroutine (which can [`park`]).
pub(crate) fn in_coroutine() -> bool {
    !YIELDER.with(Cell::get).is_null()
}

/// Suspends the core running on this thread's coroutine until its scheduler resumes it; its
/// thread-local state leaves with it and comes back (also when the suspended coroutine is
/// dropped, which unwinds it from here). Does nothing outside a coroutine.
pub(crate) fn park(wait: Wait) {
    let y = YIELDER.with(Cell::get);
    if y.is_null() {
        return;
    }
    /// Gives the core its yielder and state back however `suspend` returns.
    struct Resume {
        y: *const Yielder<(), Wait>,
        ctx: Option<CoreCtx>,
    }
    impl Drop for Resume {
        fn drop(&mut self) {
            YIELDER.with(|c| c.set(self.y));
            if let Some(ctx) = self.ctx.take() {
                ctx.restore();
            }
        }
    }
    let _resume = Resume { y, ctx: Some(CoreCtx::take()) };
    YIELDER.with(|c| c.set(std::ptr::null()));
    // SAFETY: a non-null `YIELDER` is the yielder of the coroutine running this code: its
    // body set it (and `Resume` sets it again after each suspension) and clears it before it
    // returns, and the yielder lives on that coroutine's stack for as long as the body runs.
    unsafe { (*y).suspend(wait) };
}

/// A started core's coroutine that parked, and what it waits for. It may borrow data of
/// lifetime `'a` (the launch's state), so it cannot outlive it; dropping it unwinds the core.
pub(crate) struct Parked<'a> {
    co: Co,
    pub(crate) wait: Wait,
    _borrow: PhantomData<&'a ()>,
}

/// Runs `f` as a core on a coroutine of this thread until it finishes (`None`) or parks.
///
/// # Errors
/// The OS error when no stack could be mapped.
pub(crate) fn start<'a>(f: impl FnOnce() + 'a) -> std::io::Result<Option<Parked<'a>>> {
    let stack = match STACKS.with(|s| s.borrow_mut().pop()) {
        Some(s) => s,
        None => DefaultStack::new(STACK_SIZE)?,
    };
    let body = move |y: &Yielder<(), Wait>, ()| {
        /// Clears the yielder when the core ends (also by unwinding).
        struct Clear;
        impl Drop for Clear {
            fn drop(&mut self) {
                YIELDER.with(|c| c.set(std::ptr::null()));
            }
        }
        YIELDER.with(|c| c.set(y));
        let _clear = Clear;
        f();
    };
    // SAFETY: `f` borrows only data that outlives `'a`; the coroutine lives in a `Parked<'a>`
    // (or in this frame), which cannot outlive `'a`, and is either run to completion or
    // dropped (which unwinds it) before then; no `Parked` is ever leaked.
    let co = unsafe { Co::with_stack_unchecked(stack, body) };
    Ok(resume(Parked { co, wait: Wait::Event, _borrow: PhantomData }))
}

/// Resumes a parked core until it finishes (`None`) or parks again.
pub(crate) fn resume(mut p: Parked<'_>) -> Option<Parked<'_>> {
    // The launcher's cores catch their own panics; this catch is the backstop that keeps the
    // scheduler going.
    match catch_unwind(AssertUnwindSafe(|| p.co.resume(()))) {
        Ok(CoroutineResult::Yield(wait)) => {
            p.wait = wait;
            Some(p)
        }
        Ok(CoroutineResult::Return(())) => {
            let stack = p.co.into_stack();
            STACKS.with(|s| {
                let mut s = s.borrow_mut();
                if s.len() < IDLE_STACKS {
                    s.push(stack);
                }
            });
            None
        }
        Err(payload) => {
            drop_payload(payload);
            None
        }
    }
}

/// A thread running a pooled launch's cores: the thread-local state it had before (a launch
/// may run inside another launch's core, even on its coroutine) is set aside until it is
/// dropped, so each core starts on a thread as outside any core, and a core not on a
/// coroutine of this launch never parks the enclosing one.
pub(crate) struct Scheduler {
    outer: Option<CoreCtx>,
    yielder: *const Yielder<(), Wait>,
}

impl Scheduler {
    /// Sets this thread's state aside.
    pub(crate) fn enter() -> Scheduler {
        Scheduler { outer: Some(CoreCtx::take()), yielder: YIELDER.with(|c| c.replace(std::ptr::null())) }
    }
}

impl Drop for Scheduler {
    fn drop(&mut self) {
        YIELDER.with(|c| c.set(self.yielder));
        if let Some(ctx) = self.outer.take() {
            ctx.restore();
        }
    }
}
