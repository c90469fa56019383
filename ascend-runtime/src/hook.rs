//! A process-wide panic hook, installed once, that records where a launched core panicked
//! and keeps the default hook's stderr report quiet for such panics (the launcher returns
//! them as a [`LaunchError`](crate::LaunchError) instead). Panics on any other thread, or
//! on a core launched with `quiet(false)`, go to the previously installed hook unchanged.

use std::cell::{Cell, RefCell};
use std::panic;
use std::sync::Once;

thread_local! {
    /// `Some(quiet)` while this thread runs a launched core.
    static IN_CORE: Cell<Option<bool>> = const { Cell::new(None) };
    /// Where the last panic of a launched core on this thread happened.
    static PANIC_LOCATION: RefCell<Option<(String, u32)>> = const { RefCell::new(None) };
}

static INSTALL: Once = Once::new();

fn install() {
    INSTALL.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            // `try_with`: the hook may run while thread-locals are being torn down.
            let in_core = IN_CORE.try_with(Cell::get).ok().flatten();
            if in_core.is_some() {
                let loc = info.location().map(|l| (l.file().to_owned(), l.line()));
                let _ = PANIC_LOCATION.try_with(|p| *p.borrow_mut() = loc);
            }
            if in_core != Some(true) {
                previous(info);
            }
        }));
    });
}

/// Marks the current thread as running a launched core until dropped.
pub(crate) struct CoreGuard {
    prev: Option<bool>,
}

impl CoreGuard {
    /// Enters core mode on this thread; `quiet` silences the panic report.
    pub(crate) fn enter(quiet: bool) -> CoreGuard {
        install();
        let _ = PANIC_LOCATION.with(|p| p.borrow_mut().take());
        CoreGuard { prev: IN_CORE.with(|c| c.replace(Some(quiet))) }
    }
}

impl Drop for CoreGuard {
    fn drop(&mut self) {
        IN_CORE.with(|c| c.set(self.prev));
    }
}

/// Takes the location of the last panic of a launched core on this thread.
pub(crate) fn take_panic_location() -> Option<(String, u32)> {
    PANIC_LOCATION.with(|p| p.borrow_mut().take())
}

/// What this thread holds for the launched core it runs: whether it is in core mode (and
/// quiet), and where its last panic happened.
pub(crate) type CoreMark = (Option<bool>, Option<(String, u32)>);

/// Takes this thread's [`CoreMark`], leaving the thread outside core mode (a core suspended
/// on a coroutine keeps it; see [`crate::coro`]).
pub(crate) fn take_core_mark() -> CoreMark {
    (IN_CORE.with(|c| c.replace(None)), PANIC_LOCATION.with(|p| p.borrow_mut().take()))
}

/// Puts back a [`CoreMark`] [`take_core_mark`] took.
pub(crate) fn put_core_mark((in_core, location): CoreMark) {
    IN_CORE.with(|c| c.set(in_core));
    PANIC_LOCATION.with(|p| *p.borrow_mut() = location);
}
