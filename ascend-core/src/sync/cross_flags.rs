//! The state behind `CrossCoreSetFlag`/`CrossCoreWaitFlag` ([`crate::cross_core`]): a launch's
//! counters ([`CrossFlags`], made by the launcher) and a core's own counts ([`CrossLocal`],
//! kept in the core's context). A leaf: it imports nothing of this crate, so the kernel layer
//! and the sanitizer name these types without importing the cross-core API.

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard};

/// Flag ids per core (`flagId` in `[0, 16)`).
pub const CROSS_CORE_FLAG_IDS: usize = 16;

/// The most a flag's counter holds (rounds not yet waited for): 15.
pub const CROSS_CORE_COUNTER_MAX: usize = 15;

/// One increment of a core's counter: the round it came from (for the sanitizer).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Token {
    /// The sanitizer's key of the round.
    pub(crate) key: usize,
    /// Whether the waiting core's own set was part of the round.
    pub(crate) own: bool,
}

/// The sets of one kind of round (mode, group, flag): per member, how many; rounds done.
#[derive(Default)]
pub(crate) struct Rounds {
    pub(crate) sets: Vec<u32>,
    pub(crate) done: u32,
}

#[derive(Default)]
pub(crate) struct CrossState {
    /// By core and flag id: the counter, as the rounds that lifted it and no wait took off yet.
    pub(crate) counters: Vec<[VecDeque<Token>; CROSS_CORE_FLAG_IDS]>,
    /// By (mode, group, flag): the sets of its members.
    pub(crate) rounds: HashMap<(u8, u32, u16), Rounds>,
}

/// A launch's counters behind [`cross_core_set_flag`](crate::cross_core::cross_core_set_flag) (provided by the launcher through
/// [`crate::ctx::CoreBarrier::cross_flags`]): by core and flag id, the counter of rounds not
/// yet waited for; and the sets of the rounds still open.
pub struct CrossFlags {
    pub(crate) state: Mutex<CrossState>,
}

impl CrossFlags {
    /// The counters of a launch of `cores` cores (every AIC and AIV), all zero.
    pub fn new(cores: u32) -> CrossFlags {
        let counters = (0..cores).map(|_| std::array::from_fn(|_| VecDeque::new())).collect();
        CrossFlags { state: Mutex::new(CrossState { counters, rounds: HashMap::new() }) }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, CrossState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The counters of every flag on `core`.
    pub(crate) fn counters(&self, core: u32) -> [usize; CROSS_CORE_FLAG_IDS] {
        let st = self.lock();
        st.counters
            .get(core as usize)
            .map_or([0; CROSS_CORE_FLAG_IDS], |c| std::array::from_fn(|k| c[k].len()))
    }
}

/// One core's own count of its sets and waits, by flag id.
#[derive(Default, Clone, Copy, Debug)]
pub(crate) struct CrossLocal {
    pub(crate) sets: [u32; CROSS_CORE_FLAG_IDS],
    pub(crate) waits: [u32; CROSS_CORE_FLAG_IDS],
}
