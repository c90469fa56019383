//! Hardware flags between cores (AscendC `CrossCoreSetFlag<modeId, pipe>(flagId)` and
//! `CrossCoreWaitFlag(flagId)`, Ascend910B): each core has a counter per flag id (16 of them);
//! in mode 0, once every vector core of the launch has set a flag, each core's counter of it
//! goes up by one, and a wait blocks the core until its counter is not zero, then takes one
//! off. So the pair is a barrier across the cores that the set's pipe feeds (the set fires
//! once that pipe's earlier instructions are done) — `SyncAll` on the chip is built from it
//! (flag ids 11 to 14).
//!
//! Modes 1 and 2 synchronise the vector cores of one AI Core with each other or with its cube
//! core, in a mixed kernel; the emulator runs vector cores only, so they are an error, as is
//! mode 4 (Ascend 950 only). The waits block the core (a launch of more than one core needs a
//! thread per core, `Launch::sync_all(true)`); a wait no set can satisfy is an error naming the
//! blocked cores, where the chip hangs, and a kernel that ends with a set never waited for is
//! reported by the sanitizer (the vendor: unpaired calls are undefined behaviour).
//!
//! For the sanitizer a set is a release and the matching wait an acquire of the round, across
//! cores; within the core, the wait orders what the core issues next after the set's pipe.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use crate::ctx::{block_until, signal_cores, with_core};
use crate::error::{ensure, fail};
use crate::sync::{PipeKind, PIPE_FIX, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_V};
use crate::Soc;

/// Flag ids per core (`flagId` in `[0, 16)`).
pub const CROSS_CORE_FLAG_IDS: usize = 16;

/// A launch's counters behind [`cross_core_set_flag`] (provided by the launcher through
/// [`crate::ctx::CoreBarrier::cross_flags`]): by core and flag id, how many sets have fired.
pub struct CrossFlags {
    sets: Vec<[AtomicU32; CROSS_CORE_FLAG_IDS]>,
}

impl CrossFlags {
    /// The counters of a launch of `cores` cores, all zero.
    pub fn new(cores: u32) -> CrossFlags {
        CrossFlags { sets: (0..cores).map(|_| std::array::from_fn(|_| AtomicU32::new(0))).collect() }
    }

    /// Rounds of `flag` every core has set: how often each core's counter went up.
    fn released(&self, flag: usize) -> u32 {
        self.sets.iter().map(|c| c[flag].load(Ordering::Acquire)).min().unwrap_or(0)
    }
}

/// One core's own count of its sets and waits, by flag id.
#[derive(Default, Clone, Copy, Debug)]
pub(crate) struct CrossLocal {
    pub(crate) sets: [u32; CROSS_CORE_FLAG_IDS],
    pub(crate) waits: [u32; CROSS_CORE_FLAG_IDS],
}

/// The pipes a [`cross_core_set_flag`] may run on: `PIPE_V`, `PIPE_M`, `PIPE_MTE1`,
/// `PIPE_MTE2`, `PIPE_MTE3`, `PIPE_FIX` (not `PIPE_S` nor `PIPE_ALL`).
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// cross_core_set_flag::<0, PIPE_S>(0);
/// ```
/// ```compile_fail
/// use ascend_core::prelude::*;
/// cross_core_set_flag::<0, PIPE_ALL>(0);
/// ```
pub trait CrossCorePipe: PipeKind {}
impl CrossCorePipe for PIPE_V {}
impl CrossCorePipe for PIPE_M {}
impl CrossCorePipe for PIPE_MTE1 {}
impl CrossCorePipe for PIPE_MTE2 {}
impl CrossCorePipe for PIPE_MTE3 {}
impl CrossCorePipe for PIPE_FIX {}

/// Checks the chip, the mode and the flag id; returns the flag's index.
#[track_caller]
fn check(api: &'static str, mode: u8, flag_id: u16) -> usize {
    let soc = with_core(|c| c.soc);
    ensure(soc == Soc::Ascend910B, api, || {
        format!("not supported on {soc} ({}); it exists on {}", soc.product_line(), Soc::Ascend910B)
    });
    match mode {
        0 => {}
        1 | 2 => fail(
            api,
            format!(
                "modeId = {mode} synchronises the vector cores of one AI Core {} in a mixed kernel \
                 (KERNEL_TYPE_MIX_AIC_1_1 / 1_2); this launch runs vector cores only: use mode 0",
                if mode == 1 { "with each other" } else { "with its cube core" }
            ),
        ),
        _ => fail(api, format!("modeId = {mode} is not supported on {soc}: its modes are 0, 1 and 2")),
    }
    ensure((flag_id as usize) < CROSS_CORE_FLAG_IDS, api, || {
        format!("flagId = {flag_id} is out of range [0, {})", CROSS_CORE_FLAG_IDS)
    });
    flag_id as usize
}

/// Signals flag `flag_id` once pipe `P`'s earlier instructions are done (AscendC
/// `CrossCoreSetFlag<modeId, pipe>(flagId)`, Ascend910B). In mode 0 (the only one of a
/// vector-only launch), once every core of the launch has set the flag, each core's counter
/// of it goes up by one, releasing one [`cross_core_wait_flag`] of each.
///
/// ```
/// use ascend_core::prelude::*;
/// // One core: its own set completes the round, so its wait returns at once.
/// cross_core_set_flag::<0, PIPE_MTE3>(3);
/// cross_core_wait_flag(3);
/// ```
///
/// # Panics
/// Panics on a chip other than Ascend910B, with `MODE_ID` other than 0 (1 and 2 need the cube
/// cores of a mixed kernel), with `flag_id >= 16`, or in a pooled or sequential launch of more
/// than one core (the matching waits block: `Launch::sync_all(true)`).
#[track_caller]
pub fn cross_core_set_flag<const MODE_ID: u8, P: CrossCorePipe>(flag_id: u16) {
    let api = "CrossCoreSetFlag";
    let flag = check(api, MODE_ID, flag_id);
    let (barrier, idx, num) = with_core(|c| (c.barrier.clone(), c.block_idx, c.block_num));
    if barrier.is_none() && num > 1 {
        fail(
            api,
            format!(
                "this launch of {num} cores cannot block a core, as the matching CrossCoreWaitFlag must: launch \
                 it with a thread per core (Launch::sync_all(true))"
            ),
        );
    }
    let round = with_core(|c| {
        let mut l = c.cross.get();
        let r = l.sets[flag];
        l.sets[flag] = r + 1;
        c.cross.set(l);
        r
    });
    crate::events::on_cross_core_set(P::PIPE, flag_id, round);
    crate::atomic::flush_current_core();
    if let Some(b) = barrier {
        let flags = b.cross_flags();
        signal_cores(|| {
            flags.sets[idx as usize][flag].fetch_add(1, Ordering::AcqRel);
        });
    }
}

/// Waits until this core's counter of flag `flag_id` is not zero, then takes one off (AscendC
/// `CrossCoreWaitFlag(flagId)`, Ascend910B): in mode 0, until every core of the launch has
/// set the flag once more than this core has waited for it. What the core issues afterwards,
/// on any pipe, comes after what every core's set was ordered after.
///
/// ```
/// use ascend_core::prelude::*;
/// cross_core_set_flag::<0, PIPE_V>(0);
/// cross_core_wait_flag(0);
/// ```
///
/// # Panics
/// As [`cross_core_set_flag`]; and when no core can ever set the flag often enough (every
/// other core waits too, or has returned from the kernel: a hang on the chip).
#[track_caller]
pub fn cross_core_wait_flag(flag_id: u16) {
    cross_core_wait_flag_with::<0, crate::sync::PIPE_S>(flag_id)
}

/// [`cross_core_wait_flag`] with AscendC's template arguments (`CrossCoreWaitFlag<modeId,
/// pipe>(flagId)`, by default `<0, PIPE_S>`; the vendor's implementation waits the same way
/// whatever the pipe).
///
/// ```
/// use ascend_core::prelude::*;
/// cross_core_set_flag::<0, PIPE_MTE2>(1);
/// cross_core_wait_flag_with::<0, PIPE_S>(1);
/// ```
///
/// # Panics
/// As [`cross_core_wait_flag`].
#[track_caller]
pub fn cross_core_wait_flag_with<const MODE_ID: u8, P: PipeKind>(flag_id: u16) {
    let api = "CrossCoreWaitFlag";
    let flag = check(api, MODE_ID, flag_id);
    let (barrier, local) = with_core(|c| (c.barrier.clone(), c.cross.get()));
    let round = local.waits[flag];
    let loc = std::panic::Location::caller();
    let what = move || {
        format!(
            "waits in CrossCoreWaitFlag({flag_id}) (at {}:{}) for round {} of the flag, which needs every core's \
             CrossCoreSetFlag({flag_id}) number {}",
            loc.file(),
            loc.line(),
            round + 1,
            round + 1
        )
    };
    match barrier {
        Some(b) => {
            let flags: Arc<CrossFlags> = b.cross_flags();
            block_until(api, what, Box::new(move || flags.released(flag) > round));
        }
        None => block_until(api, what, Box::new(move || local.sets[flag] > round)),
    }
    with_core(|c| {
        let mut l = c.cross.get();
        l.waits[flag] = round + 1;
        c.cross.set(l);
    });
    crate::events::on_cross_core_wait(flag_id, round);
}
