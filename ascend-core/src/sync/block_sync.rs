//! Flag-based synchronisation between cores (AscendC `kernel_operator_block_sync_intf.h` and
//! `kernel_operator_determine_compute_sync_intf.h`): `IBSet`/`IBWait` between a pair of cores,
//! and `InitDetermineComputeWorkspace`/`WaitPreBlock`/`NotifyNextBlock`, which run a section
//! of every core in ascending block order.
//!
//! On the chip these are software protocols on a global-memory workspace, and the emulator
//! keeps their visible effects: the flags they write into `gmWorkspace`, what they leave in
//! `ubWorkspace`, and the `PipeBarrier<PIPE_ALL>()` they begin and end with. Their waits block
//! the core (which the runtime's default pooled mode and its thread-per-core mode allow, as for
//! `SyncAll`; the sequential mode cannot block a core), and a wait no core can ever satisfy — an
//! `IBWait` without its `IBSet`, a `WaitPreBlock` whose predecessor never notifies — is an
//! error naming every blocked core instead of the hang it is on the chip.
//!
//! For the sanitizer each is a cross-core ordering: what a core did before `IBSet` (or
//! `NotifyNextBlock`) happens before what the core its flag releases does after `IBWait` (or
//! `WaitPreBlock`), so their global-memory accesses are not reported as races. The flag
//! accesses of the primitives themselves are not checked. A release also applies the core's
//! pending float atomic contributions (see [`crate::atomic`]), so the core that acquires it
//! sees them.
//!
//! Not emulated: the cube cores of a mixed kernel (the `isAIVOnly = false` forms compute the
//! vendor's flag offsets for twice the cores, as the chip does, but every core here is a
//! vector core).

use std::panic::Location;
use std::sync::Arc;

use crate::kernel::ctx::{block_until, signal_cores, with_core};
use crate::kernel::error::ensure;
use crate::memory::tensor::{GlobalTensor, LocalTensor};
use crate::sync::event::pipe_t;
use crate::Soc;

/// `int32_t` elements per 32-byte block: each flag owns one block.
const B32_PER_BLOCK: usize = 8;

/// A primitive's `gmWorkspace`: its first element's address (for the atomic accesses of a
/// wait, which runs under the launch's lock on whichever core evaluates it), its length, and
/// the region that keeps it alive. Flag `i` is element `i`; the sanitizer knows a flag by its
/// address ([`key`](Self::key)).
#[derive(Clone)]
pub(crate) struct Workspace {
    base: usize,
    len: usize,
    _region: Option<Arc<crate::memory::tensor::GmRegion>>,
}

impl Workspace {
    #[track_caller]
    pub(crate) fn of(api: &'static str, gm: &GlobalTensor<i32>) -> Workspace {
        Workspace { base: gm.base_ptr(api) as usize, len: gm.get_size(), _region: gm.region_arc() }
    }

    pub(crate) fn key(&self, i: usize) -> usize {
        self.base + 4 * i
    }

    pub(crate) fn load(&self, i: usize) -> i32 {
        assert!(i < self.len, "workspace element {i} of {}", self.len);
        // SAFETY: element `i` of the bound tensor (checked above; callers checked the sizes
        // against the documented minimums), aligned, in a live region (kept by `_region`); an
        // atomic word access, so other cores' accesses of a flag are races of values, never
        // undefined behaviour.
        unsafe { crate::memory::gm_io::load_elem((self.key(i)) as *const i32) }
    }

    fn store(&self, i: usize, v: i32) {
        assert!(i < self.len, "workspace element {i} of {}", self.len);
        // SAFETY: as in `load`.
        unsafe { crate::memory::gm_io::store_elem(self.key(i) as *mut i32, v) }
    }
}

/// Fails unless the current chip is one of `chips`.
#[track_caller]
pub(crate) fn check_chip(api: &'static str, chips: &[Soc]) -> Soc {
    let soc = with_core(|c| c.soc);
    ensure(chips.contains(&soc), api, || {
        let list: Vec<String> = chips.iter().map(Soc::to_string).collect();
        format!("not supported on {soc} ({}); it exists on {}", soc.product_line(), list.join(", "))
    });
    soc
}

/// Fails unless `ub` is a Unified Buffer tensor of at least `need` elements.
#[track_caller]
fn check_ub(api: &'static str, ub: &LocalTensor<i32>, need: usize) {
    let pos = ub.get_position();
    ensure(pos.is_ub(), api, || {
        format!("ubWorkspace is at position {pos}: it must be VECIN, VECCALC or VECOUT")
    });
    ensure(ub.get_size() >= need, api, || {
        format!(
            "ubWorkspace has {} int32_t elements ({} bytes); it needs at least {need} ({} bytes)",
            ub.get_size(),
            ub.get_size() * 4,
            need * 4
        )
    });
}

/// Writes `vals` to `ub` from element `at`: what the primitive's copies and scalar writes
/// leave in the workspace (for the sanitizer, one write of those bytes between the
/// primitive's barriers).
#[track_caller]
fn ub_write(api: &'static str, ub: &LocalTensor<i32>, at: usize, vals: &[i32]) {
    // The bytes of element `at` on: the first `at` elements end there.
    let (_, s) = ub.byte_range(at);
    crate::observe::events::on_scalar_ub(api, ub.tag, s, s + vals.len() * 4, true);
    // SAFETY: `check_ub` checked that the workspace holds `at + vals.len()` elements, and UB
    // memory is only accessed through raw pointers.
    unsafe { std::ptr::copy_nonoverlapping(vals.as_ptr(), ub.ptr().add(at), vals.len()) }
}

/// Reads element `at` of `ub` (the primitive's `GetValue`).
#[track_caller]
fn ub_read(api: &'static str, ub: &LocalTensor<i32>, at: usize) -> i32 {
    let (_, s) = ub.byte_range(at);
    crate::observe::events::on_scalar_ub(api, ub.tag, s, s + 4, false);
    // SAFETY: as in `ub_write`.
    unsafe { ub.ptr().add(at).read() }
}

/// The `PipeBarrier<PIPE_ALL>()` the primitives begin and end with.
fn barrier_all() {
    crate::observe::events::on_pipe_barrier(pipe_t::PIPE_ALL);
}

/// The flag of `IBSet`/`IBWait`: checks the arguments and returns its element index.
#[track_caller]
fn ib_slot<const IS_AIV_ONLY: bool>(
    api: &'static str,
    gm: &GlobalTensor<i32>,
    ub: &LocalTensor<i32>,
    block_idx: i32,
    event_id: i32,
) -> usize {
    check_chip(api, &[Soc::Ascend910, Soc::Ascend910B, Soc::Ascend310P]);
    let n = with_core(|c| c.block_num) as usize;
    ensure((0..n as i64).contains(&i64::from(block_idx)), api, || {
        format!("blockIdx = {block_idx} is out of range [0, {}]", n - 1)
    });
    ensure(event_id >= 0, api, || format!("eventID = {event_id} is negative"));
    let cores = if IS_AIV_ONLY { n } else { 2 * n };
    let slot = cores * B32_PER_BLOCK * event_id as usize + block_idx as usize * B32_PER_BLOCK;
    ensure(gm.get_size() >= slot + B32_PER_BLOCK, api, || {
        format!(
            "gmWorkspace has {} int32_t elements; blockIdx = {block_idx} and eventID = {event_id} with {cores} \
             cores need at least {} ((cores * eventID + blockIdx + 1) * 32 bytes)",
            gm.get_size(),
            slot + B32_PER_BLOCK
        )
    });
    check_ub(api, ub, B32_PER_BLOCK);
    slot
}

/// `IBSet` and `IBWait`: wait until the flag is `from`, then set it to `to`.
#[track_caller]
fn ib_flip(
    api: &'static str,
    gm: &GlobalTensor<i32>,
    ub: &LocalTensor<i32>,
    slot: usize,
    (block_idx, event_id): (i32, i32),
    (from, to): (i32, i32),
) {
    let loc = Location::caller();
    let ws = Workspace::of(api, gm);
    barrier_all();
    let w = ws.clone();
    block_until(
        api,
        || {
            format!(
                "waits in {api} (at {}:{}) for the flag gmWorkspace[{slot}] (blockIdx {block_idx}, eventID {event_id}) \
                 to become {from}{}",
                loc.file(),
                loc.line(),
                if from == 0 { ": the last IBSet of this flag was never consumed by an IBWait" } else { ": no IBSet of this flag" }
            )
        },
        Box::new(move || w.load(slot) == from),
    );
    crate::observe::events::on_cross_acquire(&[ws.key(slot)]);
    crate::observe::events::on_cross_release(&[ws.key(slot)]);
    crate::memory::atomic::flush_current_core();
    signal_cores(|| ws.store(slot, to));
    // The workspace holds the flag's block as the protocol read it, with the new value.
    let block: Vec<i32> = (slot..slot + B32_PER_BLOCK).map(|i| ws.load(i)).collect();
    ub_write(api, ub, 0, &block);
    barrier_all();
}

/// Signals the core that waits with `ib_wait(…, block_idx, event_id)` (AscendC
/// `IBSet(gmWorkspace, ubWorkspace, blockIdx, eventID)`, `isAIVOnly = true`): after a
/// `PipeBarrier<PIPE_ALL>()`, waits until the flag `gmWorkspace[(GetBlockNum() * eventID +
/// blockIdx) * 8]` is 0 (free), sets it to 1, and leaves the flag's 32-byte block, with the new
/// value, in `ubWorkspace[0..8]`. The workspace starts zeroed (the host's job, as on the chip).
///
/// ```
/// use ascend_core::prelude::*;
/// let region = GmRegion::zeroed(64);
/// let mut gm = GlobalTensor::<i32>::new();
/// gm.set_global_buffer(region.addr(), 16);
/// let ub = LocalTensor::<i32>::new(TPosition::VECCALC, 0, 8);
/// ib_set(&gm, &ub, 0, 0); // one core: signals itself
/// assert_eq!(gm.get_value(0), 1);
/// ib_wait(&gm, &ub, 0, 0);
/// assert_eq!(gm.get_value(0), 0);
/// ```
///
/// # Panics
/// Panics on Ascend310B (no `IBSet`); if `block_idx` is outside `[0, GetBlockNum() - 1]`,
/// `event_id` is negative, `gm_workspace` ends before the flag's block, or `ub_workspace` is
/// not a Unified Buffer tensor of at least 8 elements; if the flag never becomes free (no core
/// left to consume it), or the launch of more than one core cannot block (see the
/// [module documentation](self)).
#[track_caller]
pub fn ib_set(
    gm_workspace: &GlobalTensor<i32>,
    ub_workspace: &LocalTensor<i32>,
    block_idx: i32,
    event_id: i32,
) {
    ib_set_with::<true>(gm_workspace, ub_workspace, block_idx, event_id)
}

/// [`ib_set`] with AscendC's `isAIVOnly` template parameter: `false` (a mixed kernel) places
/// the flags for `2 * GetBlockNum()` cores.
///
/// # Panics
/// As [`ib_set`].
#[track_caller]
pub fn ib_set_with<const IS_AIV_ONLY: bool>(
    gm_workspace: &GlobalTensor<i32>,
    ub_workspace: &LocalTensor<i32>,
    block_idx: i32,
    event_id: i32,
) {
    let api = "IBSet";
    let slot = ib_slot::<IS_AIV_ONLY>(api, gm_workspace, ub_workspace, block_idx, event_id);
    ib_flip(api, gm_workspace, ub_workspace, slot, (block_idx, event_id), (0, 1));
}

/// Waits for the core that calls `ib_set(…, block_idx, event_id)` (AscendC
/// `IBWait(gmWorkspace, ubWorkspace, blockIdx, eventID)`, `isAIVOnly = true`): after a
/// `PipeBarrier<PIPE_ALL>()`, waits until the flag is 1, sets it back to 0 (so the flag can be
/// set again), and leaves its block in `ubWorkspace[0..8]`. Everything the setting core did
/// before its `IBSet` happens before what this core does next.
///
/// ```
/// use ascend_core::prelude::*;
/// let region = GmRegion::zeroed(64);
/// let mut gm = GlobalTensor::<i32>::new();
/// gm.set_global_buffer(region.addr(), 16);
/// let ub = LocalTensor::<i32>::new(TPosition::VECCALC, 0, 8);
/// ib_set(&gm, &ub, 0, 1);
/// ib_wait(&gm, &ub, 0, 1);
/// assert_eq!(ub.get_value(0), 0);
/// ```
///
/// # Panics
/// As [`ib_set`]; and if no core ever sets the flag (every other core is blocked, waits in
/// `SyncAll` or has returned: a hang on the chip).
#[track_caller]
pub fn ib_wait(
    gm_workspace: &GlobalTensor<i32>,
    ub_workspace: &LocalTensor<i32>,
    block_idx: i32,
    event_id: i32,
) {
    ib_wait_with::<true>(gm_workspace, ub_workspace, block_idx, event_id)
}

/// [`ib_wait`] with AscendC's `isAIVOnly` template parameter (see [`ib_set_with`]).
///
/// # Panics
/// As [`ib_wait`].
#[track_caller]
pub fn ib_wait_with<const IS_AIV_ONLY: bool>(
    gm_workspace: &GlobalTensor<i32>,
    ub_workspace: &LocalTensor<i32>,
    block_idx: i32,
    event_id: i32,
) {
    let api = "IBWait";
    let slot = ib_slot::<IS_AIV_ONLY>(api, gm_workspace, ub_workspace, block_idx, event_id);
    ib_flip(api, gm_workspace, ub_workspace, slot, (block_idx, event_id), (1, 0));
}

/// The chips of the deterministic-order primitives.
const DETERMINE_CHIPS: [Soc; 2] = [Soc::Ascend910B, Soc::Ascend310P];

/// Checks the workspaces of the deterministic-order primitives; returns the core count.
#[track_caller]
fn check_determine(api: &'static str, gm: &GlobalTensor<i32>, ub: &LocalTensor<i32>) -> usize {
    check_chip(api, &DETERMINE_CHIPS);
    let n = with_core(|c| c.block_num) as usize;
    ensure(gm.get_size() >= n * B32_PER_BLOCK, api, || {
        format!(
            "gmWorkspace has {} int32_t elements; {n} cores need at least {} (GetBlockNum() * 32 bytes)",
            gm.get_size(),
            n * B32_PER_BLOCK
        )
    });
    check_ub(api, ub, (n + 1) * B32_PER_BLOCK);
    n
}

/// The sanitizer's keys of the deterministic-order flags of blocks `blocks` (element 0 of
/// each core's block).
fn block_keys(ws: &Workspace, blocks: std::ops::Range<usize>) -> Vec<usize> {
    blocks.map(|b| ws.key(b * B32_PER_BLOCK)).collect()
}

/// Prepares [`wait_pre_block`] and [`notify_next_block`] (AscendC
/// `InitDetermineComputeWorkspace(gmWorkspace, ubWorkspace)`): core 0 zeroes the
/// `GetBlockNum()` blocks of `gmWorkspace` (which therefore need no zeroing by the host), and
/// every core sets its round counter, `ubWorkspace[8 * GetBlockNum()]`, to 1.
///
/// ```
/// use ascend_core::prelude::*;
/// let region = GmRegion::from_bytes(&[0xff; 32]);
/// let mut gm = GlobalTensor::<i32>::new();
/// gm.set_global_buffer(region.addr(), 8);
/// let ub = LocalTensor::<i32>::new(TPosition::VECCALC, 0, 16);
/// init_determine_compute_workspace(&gm, &ub);
/// assert_eq!(gm.get_value(0), 0);
/// assert_eq!(ub.get_value(8), 1);
/// ```
///
/// # Panics
/// Panics on Ascend910 and Ascend310B (no deterministic-order primitives), if `gm_workspace`
/// holds fewer than `8 * GetBlockNum()` elements, or `ub_workspace` is not a Unified Buffer
/// tensor of at least `8 * GetBlockNum() + 8`.
#[track_caller]
pub fn init_determine_compute_workspace(gm_workspace: &GlobalTensor<i32>, ub_workspace: &LocalTensor<i32>) {
    let api = "InitDetermineComputeWorkspace";
    let n = check_determine(api, gm_workspace, ub_workspace);
    let idx = with_core(|c| c.block_idx) as usize;
    barrier_all();
    if idx == 0 {
        ub_write(api, ub_workspace, 0, &vec![0; n * B32_PER_BLOCK]);
        let ws = Workspace::of(api, gm_workspace);
        crate::observe::events::on_cross_release(&block_keys(&ws, 0..n));
        signal_cores(|| (0..n * B32_PER_BLOCK).for_each(|i| ws.store(i, 0)));
    }
    ub_write(api, ub_workspace, n * B32_PER_BLOCK, &[1]);
    barrier_all();
}

/// Waits until every lower core has passed its [`notify_next_block`] of this round (AscendC
/// `WaitPreBlock(gmWorkspace, ubWorkspace)`): after a `PipeBarrier<PIPE_ALL>()`, polls the
/// workspace until the flags (element 0 of each core's block) of cores `0..GetBlockIdx()`
/// equal this core's round counter and those of the others are 0, and leaves the workspace's
/// blocks in `ubWorkspace`. What the lower cores did before their `NotifyNextBlock` happens
/// before what this core does next.
///
/// ```
/// use ascend_core::prelude::*;
/// let region = GmRegion::zeroed(32);
/// let mut gm = GlobalTensor::<i32>::new();
/// gm.set_global_buffer(region.addr(), 8);
/// let ub = LocalTensor::<i32>::new(TPosition::VECCALC, 0, 16);
/// init_determine_compute_workspace(&gm, &ub);
/// for _round in 0..3 {
///     wait_pre_block(&gm, &ub); // core 0 of 1: nobody to wait for
///     notify_next_block(&gm, &ub);
/// }
/// assert_eq!(ub.get_value(8), 4);
/// ```
///
/// # Panics
/// As [`init_determine_compute_workspace`]; and if the lower cores never notify (a core calls
/// `WaitPreBlock` more often than the others call `NotifyNextBlock`: a hang on the chip), or
/// the launch of more than one core cannot block (see the [module documentation](self)).
#[track_caller]
pub fn wait_pre_block(gm_workspace: &GlobalTensor<i32>, ub_workspace: &LocalTensor<i32>) {
    let api = "WaitPreBlock";
    let loc = Location::caller();
    let n = check_determine(api, gm_workspace, ub_workspace);
    let idx = with_core(|c| c.block_idx) as usize;
    barrier_all();
    let round = ub_read(api, ub_workspace, n * B32_PER_BLOCK);
    let ws = Workspace::of(api, gm_workspace);
    let w = ws.clone();
    block_until(
        api,
        || {
            format!(
                "waits in WaitPreBlock (at {}:{}) in round {round} for cores 0..{idx} to reach NotifyNextBlock \
                 (and the others to have finished the last round)",
                loc.file(),
                loc.line()
            )
        },
        Box::new(move || (0..n).all(|b| w.load(b * B32_PER_BLOCK) == if b < idx { round } else { 0 })),
    );
    crate::observe::events::on_cross_acquire(&block_keys(&ws, 0..n));
    let seen: Vec<i32> = (0..n * B32_PER_BLOCK).map(|i| ws.load(i)).collect();
    ub_write(api, ub_workspace, 0, &seen);
    barrier_all();
}

/// Lets the next core pass its [`wait_pre_block`] (AscendC `NotifyNextBlock(gmWorkspace,
/// ubWorkspace)`): after a `PipeBarrier<PIPE_ALL>()`, writes this core's round counter into its
/// block of the workspace — the last core instead zeroes every block, which starts the next
/// round — and increments the counter.
///
/// ```
/// use ascend_core::prelude::*;
/// let region = GmRegion::zeroed(32);
/// let mut gm = GlobalTensor::<i32>::new();
/// gm.set_global_buffer(region.addr(), 8);
/// let ub = LocalTensor::<i32>::new(TPosition::VECCALC, 0, 16);
/// init_determine_compute_workspace(&gm, &ub);
/// wait_pre_block(&gm, &ub);
/// notify_next_block(&gm, &ub); // the last core (of 1): zeroes the workspace
/// assert_eq!((gm.get_value(0), ub.get_value(8)), (0, 2));
/// ```
///
/// # Panics
/// As [`init_determine_compute_workspace`].
#[track_caller]
pub fn notify_next_block(gm_workspace: &GlobalTensor<i32>, ub_workspace: &LocalTensor<i32>) {
    let api = "NotifyNextBlock";
    let n = check_determine(api, gm_workspace, ub_workspace);
    let idx = with_core(|c| c.block_idx) as usize;
    barrier_all();
    let round = ub_read(api, ub_workspace, n * B32_PER_BLOCK);
    let (first, len, value) =
        if idx + 1 == n { (0, n * B32_PER_BLOCK, 0) } else { (idx * B32_PER_BLOCK, B32_PER_BLOCK, round) };
    ub_write(api, ub_workspace, first, &vec![value; len]);
    let ws = Workspace::of(api, gm_workspace);
    crate::observe::events::on_cross_release(&block_keys(
        &ws,
        first / B32_PER_BLOCK..(first + len) / B32_PER_BLOCK,
    ));
    crate::memory::atomic::flush_current_core();
    signal_cores(|| (first..first + len).for_each(|i| ws.store(i, value)));
    ub_write(api, ub_workspace, n * B32_PER_BLOCK, &[round.wrapping_add(1)]);
    barrier_all();
}
