//! Failed checks: every misuse inside a kernel panics with a [`Fault`] that names the core, the
//! API, the parameter, its value and the limit. The launcher turns it into an error value.

use core::fmt;
use std::cell::{Cell, RefCell};
use std::panic::Location;

/// A failed check inside a kernel: which core, which API, what went wrong, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The core the check failed on: `get_block_idx()`, or in a mixed launch the core's
    /// index in the launch (AIVs first, then AICs; see [`crate::KernelType`]).
    pub core: u32,
    /// In a mixed launch, the core's type and `get_block_idx()` (`(CoreType::Aic, 3)` is
    /// "AIC 3"); `None` otherwise.
    pub unit: Option<(crate::kernel::ctx::CoreType, u32)>,
    /// The AscendC API that rejected the call (`"Sub"`, `"TQue::AllocTensor"`, …).
    pub api: &'static str,
    /// What was wrong: the parameter, its value and the limit.
    pub message: String,
    /// Source file of the kernel call that failed.
    pub file: &'static str,
    /// Source line of the kernel call that failed.
    pub line: u32,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "core {}", self.core)?;
        if let Some((ty, idx)) = self.unit {
            write!(f, " ({} {idx})", ty.name())?;
        }
        write!(f, ": {}: {} (at {}:{})", self.api, self.message, self.file, self.line)
    }
}

impl std::error::Error for Fault {}

thread_local! {
    /// While set (see [`at_kernel_line`]), every fault on this thread points here.
    static KERNEL_LINE: Cell<Option<&'static Location<'static>>> = const { Cell::new(None) };
    static LAST_FAULT: RefCell<Option<Fault>> = const { RefCell::new(None) };
}

/// Panics with a [`Fault`] for `api`, recording it so the launcher can report it as a value.
///
/// The panic location is the kernel's call site (`#[track_caller]` all the way down).
#[track_caller]
#[cold]
pub fn fail(api: &'static str, message: impl Into<String>) -> ! {
    let text = record(api, message.into(), Location::caller());
    panic!("{text}");
}

/// Like [`fail`], but the fault points at `loc` (a line recorded earlier) instead of the caller.
#[cold]
pub(crate) fn fail_at(api: &'static str, message: impl Into<String>, loc: &'static Location<'static>) -> ! {
    let text = record(api, message.into(), loc);
    panic!("{text}");
}

/// Records the fault of `api` at `loc` on this core as the last one, and returns its text.
fn record(api: &'static str, message: String, loc: &'static Location<'static>) -> String {
    let loc = KERNEL_LINE.with(Cell::get).unwrap_or(loc);
    let fault = Fault {
        core: crate::kernel::ctx::current_block_idx(),
        unit: crate::kernel::ctx::current_unit(),
        api,
        message,
        file: loc.file(),
        line: loc.line(),
    };
    let text = fault.to_string();
    LAST_FAULT.with(|f| *f.borrow_mut() = Some(fault));
    text
}

/// Takes the fault recorded by the last failed check on this thread, if any.
pub fn take_last_fault() -> Option<Fault> {
    LAST_FAULT.with(|f| f.borrow_mut().take())
}

/// Runs `f` with every fault it raises pointing at `loc`, the kernel's line: for work a
/// high-level API runs through closures (where `#[track_caller]` does not reach), such as the
/// cube-side half of `Matmul`. The outermost call wins, so a nested one keeps the kernel's
/// line; the previous state comes back when `f` returns or unwinds.
pub(crate) fn at_kernel_line<R>(loc: &'static Location<'static>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<&'static Location<'static>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            KERNEL_LINE.with(|c| c.set(self.0));
        }
    }
    let prev = KERNEL_LINE.with(|c| c.replace(Some(c.get().unwrap_or(loc))));
    let _restore = Restore(prev);
    f()
}

/// Puts back a fault [`take_last_fault`] took (see [`crate::CoreTls`]).
pub(crate) fn put_last_fault(f: Option<Fault>) {
    LAST_FAULT.with(|l| *l.borrow_mut() = f);
}

/// [`ensure`] for a check inside a closure (where `#[track_caller]` does not reach): the fault
/// points at `loc`, the kernel's line taken with `Location::caller()` before the closure.
#[inline(always)]
pub(crate) fn ensure_at(
    cond: bool,
    api: &'static str,
    loc: &'static Location<'static>,
    message: impl FnOnce() -> String,
) {
    if !cond {
        fail_at(api, message(), loc)
    }
}

/// Fails unless `cond` holds; the message is built only on failure.
#[track_caller]
#[inline(always)]
pub(crate) fn ensure(cond: bool, api: &'static str, message: impl FnOnce() -> String) {
    if !cond {
        // Out of line: the closure is moved into the cold call, which lets the optimizer
        // build its captures in the failing branch only (usually).
        fail_with(api, message)
    }
}

/// [`ensure`] for hot paths: fails with `format!(...)` unless `cond` holds. The message's
/// values are captured (copied) only in the failing branch, so the passing path spends
/// nothing on them — not even the stores that a closure built before the test costs.
macro_rules! check {
    ($cond:expr, $api:expr, $($fmt:tt)+) => {
        if !$cond {
            $crate::error::fail_with($api, move || format!($($fmt)+))
        }
    };
}
pub(crate) use check;

/// The failing branch of [`ensure`] and [`check!`].
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn fail_with(api: &'static str, message: impl FnOnce() -> String) -> ! {
    fail(api, message())
}
