//! A suspended core's thread-local state, for launchers that run several cores on one thread
//! as coroutines (the runtime's pooled mode): the current core, and what the observers keep
//! per thread (the sanitizer's and profiler's state, the last fault, the pending output).
//! It lives here, above the kernel layer, because it gathers the observers' state.

/// The thread-local state of the core a thread runs now: the core (`ctx`'s `CURRENT`), its
/// sanitizer state and profiler flag, its profiler records, its last recorded fault and its
/// pending output. A launcher that runs several cores on one thread as coroutines (the
/// runtime's pooled mode) [`take`](Self::take)s it when a core suspends, which leaves the
/// thread as outside any core, and [`restore`](Self::restore)s it on the same thread when
/// the core resumes. Not `Send`: a core never moves to another thread.
#[doc(hidden)]
pub struct CoreTls {
    current: *const crate::kernel::ctx::CoreState,
    word: usize,
    log: crate::observe::profiler::Recording,
    fault: Option<crate::kernel::error::Fault>,
    output: crate::observe::debug::SavedOutput,
}

impl CoreTls {
    /// Takes this thread's core state, leaving the thread as a fresh one (no current core,
    /// sanitizer and profiler off, no fault, no output buffer).
    pub fn take() -> CoreTls {
        CoreTls {
            current: crate::kernel::ctx::take_current(),
            word: crate::observe::sanitizer::take_word(),
            log: crate::observe::profiler::take_log(),
            fault: crate::kernel::error::take_last_fault(),
            output: crate::observe::debug::take_output(),
        }
    }

    /// Puts the state [`take`](Self::take) took back on this thread (which must be the
    /// thread it was taken on), replacing what the thread holds.
    pub fn restore(self) {
        crate::kernel::ctx::put_current(self.current);
        crate::observe::sanitizer::put_word(self.word);
        crate::observe::profiler::put_log(self.log);
        crate::kernel::error::put_last_fault(self.fault);
        crate::observe::debug::put_output(self.output);
    }
}
