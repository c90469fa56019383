//! `GroupBarrier` (AscendC `kernel_operator_group_barrier_intf.h`, Ascend910B): a group of
//! cores (the *arrive* group) tells another group (the *wait* group) that its work is done.
//!
//! As on the chip, it is a software protocol on a global-memory workspace, and the emulator
//! runs the vendor's protocol (`dav_c220/core_mng/roc/kernel_operator_group_barrier_impl.h`)
//! with its visible effects:
//!
//! - **The workspace** (`groupWorkspace`, 512-byte aligned, zeroed by the user, at least
//!   [`get_workspace_len`](GroupBarrier::get_workspace_len) = `max(arriveSize, waitSize) × 512`
//!   bytes) holds one 512-byte line per index `k`: the *arrive counter* of wait index `k` at
//!   byte `512k` and the *wait counter* of arrive index `k` at byte `512k + 64`, each the
//!   `uint32_t` head of a 64-byte `BarrierInfo`.
//! - **The Unified Buffer's last 1600 bytes** (`UB_START_ADDR = TOTAL_UB_SIZE − 50 × 32`): the
//!   constructor writes 1 into the first `int32_t` of each of those 50 blocks. Every message is
//!   a `DataCopy` of `max(arriveSize, waitSize)` of these blocks to the counters (one block per
//!   512-byte line) with `SetAtomicAdd<int32_t>`, after `SetFlag`/`WaitFlag<HardEvent::S_MTE3>`
//!   (an id from `FetchEventID`), and followed by `SetAtomicNone` — so a message adds 1 to the
//!   head of every counter of its kind, and the core's atomic mode is off afterwards, as on the
//!   chip. While a `GroupBarrier` lives, `TPipe::InitBuffer` cannot hand out those bytes, and
//!   constructing one fails when the core's `TPipe` already reaches into them (on the chip the
//!   two would overwrite each other).
//! - **`Arrive(i)`** of round `r` (its `r`-th call) first waits until the wait counter of arrive
//!   index `i` is exactly `(r − 1) × waitSize` (every waiter has passed round `r − 1`), then
//!   sends its message to every arrive counter.
//! - **`Wait(j)`** waits until the arrive counter of wait index `j` is at least `r × arriveSize`
//!   (`r`: the round of this core's last `Arrive`, when it arrived and has not waited yet; else
//!   one past its last wait), then sends its message to every wait counter.
//!
//! The waits block the core (which the runtime's default pooled mode and its thread-per-core
//! mode allow; the sequential mode cannot block a core), and a wait no core can ever satisfy — a waiter whose arrivers
//! never arrive, an arriver whose waiters never wait — is an error naming every blocked core
//! instead of the hang it is on the chip.
//!
//! For the sanitizer, `Arrive` is a cross-core release into the arrive counters and `Wait` an
//! acquire of its own (then a release into the wait counters, which the next round's `Arrive`
//! acquires): what an arriving core did before `Arrive` happens before what a waiting core does
//! after `Wait`. As with `IBSet`, the unit is the core's phase: whether its copies out were done
//! by the time the message left (the message goes out on MTE3, after the core's earlier MTE3
//! copies in issue order) is not checked. The counters' own accesses by the protocol's scalar
//! polls are not checked; its atomic copies are logged (atomic, so only a plain access of the
//! counters by another core races with them).
//!
//! Not modelled: the cube cores' resource groups (`CubeResGroupHandle`), which `GroupBarrier`
//! belongs to on the chip; here every core is a vector core.

use std::marker::PhantomData;
use std::panic::Location;

use crate::kernel::ctx::{block_until, signal_cores, with_core};
use crate::kernel::error::ensure;
use crate::memory::copy::{data_copy_params, DataCopyParams};
use crate::memory::tensor::{GlobalTensor, GmAddr, LocalTensor};
use crate::sync::block_sync::{check_chip, Workspace};
use crate::sync::{
    event::{Event, HardEvent},
    flags::{set_flag_event, wait_flag_event},
};
use crate::{Soc, TPosition};

pub use crate::sync::pipe::GROUP_BARRIER_UB_BYTES;

/// Cores the protocol supports (`BARRIER_MAX_AIV`): the blocks of its Unified Buffer area.
const MAX_AIV: usize = 50;

/// One 32-byte block.
const BLOCK: usize = 32;

/// The workspace's line per index (`CACHE_LINE_LEN`): the counters of index `k` are in line `k`.
const LINE: usize = 512;

/// The wait counters' offset in a line (`BARRIER_SIZE`, one 64-byte `BarrierInfo` on).
const WAIT_AT: usize = 64;

/// The most rounds a `GroupBarrier` supports (the vendor's limit on `Arrive`/`Wait` calls).
pub const GROUP_BARRIER_MAX_ROUNDS: u32 = 1_048_575;

mod sealed {
    pub trait Sealed {}
}

/// The unit a [`GroupBarrier`] sends its messages with (AscendC `PipeMode`).
pub trait GroupPipeMode: sealed::Sealed {
    /// The value's name.
    const NAME: &'static str;
    /// Whether `GroupBarrier` supports it.
    const SUPPORTED: bool;
}

/// The pipe modes of [`GroupBarrier`], as marker types named like AscendC's `PipeMode` values
/// (`PipeMode::MTE3_MODE`): each is a [`GroupPipeMode`]. `GroupBarrier` supports only
/// `MTE3_MODE`; constructing one with `SCALAR_MODE` fails, as the vendor's check does.
#[allow(non_snake_case)]
pub mod PipeMode {
    use super::{sealed, GroupPipeMode};
    macro_rules! pipe_modes {
        ($($(#[$d:meta])* $name:ident => $ok:literal),*) => {$(
            $(#[$d])*
            #[allow(non_camel_case_types)]
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
            pub struct $name;
            impl sealed::Sealed for $name {}
            impl GroupPipeMode for $name {
                const NAME: &'static str = stringify!($name);
                const SUPPORTED: bool = $ok;
            }
        )*};
    }
    pipe_modes! {
        /// `PipeMode::SCALAR_MODE`: messages by the scalar unit (not supported by `GroupBarrier`).
        SCALAR_MODE => false,
        /// `PipeMode::MTE3_MODE`: messages by copies out (MTE3).
        MTE3_MODE => true
    }
}

/// A barrier between a group of `arrive_size` cores and a group of `wait_size` cores over a
/// global-memory workspace (AscendC `GroupBarrier<pipeMode>`, Ascend910B). See the
/// [module documentation](self) for the protocol and what it leaves in GM and the UB.
///
/// ```
/// use ascend_core::prelude::*;
/// // One core, in both groups: its own Arrive lets its Wait through.
/// let ws = GmRegion::zeroed(512);
/// let mut bar = GroupBarrier::<PipeMode::MTE3_MODE>::new(ws.addr(), 1, 1);
/// assert_eq!(bar.get_workspace_len(), 512);
/// bar.arrive(0);
/// bar.wait(0);
/// let mut gm = GlobalTensor::<u32>::new();
/// gm.set_global_buffer(ws.addr(), 128);
/// assert_eq!((gm.get_value(0), gm.get_value(16)), (1, 1)); // the arrive and wait counters
/// ```
pub struct GroupBarrier<M: GroupPipeMode> {
    /// The arrive counters' line 0 and the wait counters' (`WAIT_AT` further), as tensors over
    /// the rest of the workspace (the messages' destinations).
    arrive_gm: GlobalTensor<i32>,
    wait_gm: GlobalTensor<i32>,
    /// The workspace as `int32_t` words: the polls read the counters through it (on whichever
    /// core evaluates them), and the sanitizer knows a counter by its [`key`](Workspace::key).
    ws: Workspace,
    /// The protocol's blocks at the end of the Unified Buffer (the messages' source).
    ub: LocalTensor<i32>,
    arrive_size: u32,
    wait_size: u32,
    /// The round this core is in (starts at 1).
    counter: u32,
    /// Whether this core has arrived in the current round.
    has_arrive: bool,
    /// Where the barrier was created (for messages).
    at: &'static Location<'static>,
    _mode: PhantomData<M>,
}

/// The Unified Buffer offset of the protocol's blocks on `soc` (`UB_START_ADDR`).
fn ub_start(soc: Soc) -> usize {
    soc.ub_size() - GROUP_BARRIER_UB_BYTES
}

impl<M: GroupPipeMode> GroupBarrier<M> {
    /// Creates the barrier over `group_workspace` for `arrive_size_in` arriving and
    /// `wait_size_in` waiting cores (AscendC `GroupBarrier(groupWorkspace, arriveSizeIn,
    /// waitSizeIn)`), and writes 1 into the first `int32_t` of each of the 50 blocks at the end
    /// of the Unified Buffer (the messages' source).
    ///
    /// # Panics
    /// Panics on a chip other than Ascend910B; with `PipeMode::SCALAR_MODE`; if a size is 0 or
    /// above `GetBlockNum()`; if `group_workspace` is not 512-byte aligned in its region or the
    /// region has fewer than `max(arriveSize, waitSize) × 512` bytes from it; or if the core's
    /// `TPipe` has handed out bytes of the Unified Buffer's last 1600.
    #[track_caller]
    pub fn new(group_workspace: GmAddr, arrive_size_in: u32, wait_size_in: u32) -> Self {
        let api = "GroupBarrier";
        let soc = check_chip(api, &[Soc::Ascend910B]);
        let (block_num, pipe_end) = with_core(|c| (c.block_num, c.pipe_end.get()));
        ensure(M::SUPPORTED, api, || {
            format!("pipeMode = PipeMode::{}: GroupBarrier supports only PipeMode::MTE3_MODE", M::NAME)
        });
        for (name, v) in [("arriveSizeIn", arrive_size_in), ("waitSizeIn", wait_size_in)] {
            ensure(v > 0 && v <= block_num, api, || {
                format!("{name} = {v} is out of range [1, {block_num}] (GetBlockNum() = {block_num})")
            });
        }
        let len = arrive_size_in.max(wait_size_in) as usize * LINE;
        ensure(group_workspace.remaining_bytes() >= len, api, || {
            format!(
                "groupWorkspace has {} bytes; this barrier needs GetWorkspaceLen() = max(arriveSizeIn, waitSizeIn) × \
                 512 = {len}",
                group_workspace.remaining_bytes()
            )
        });
        let start = ub_start(soc);
        ensure(pipe_end <= start, api, || {
            format!(
                "the core's TPipe has handed out the Unified Buffer up to byte {pipe_end}, but GroupBarrier occupies \
                 its last {GROUP_BARRIER_UB_BYTES} bytes [{start}, {}): give the pipe's buffers less room",
                soc.ub_size()
            )
        });
        let mut arrive_gm = GlobalTensor::<i32>::new();
        arrive_gm.set_global_buffer(group_workspace, len / 4);
        let off = arrive_gm.byte_offset();
        ensure(off % LINE == 0, api, || {
            format!("groupWorkspace is at byte {off:#x} of its region: it must be 512-byte aligned")
        });
        let mut wait_gm = GlobalTensor::<i32>::new();
        wait_gm.set_global_buffer(group_workspace.add::<u8>(WAIT_AT), (len - WAIT_AT) / 4);
        let ws = Workspace::of(api, &arrive_gm);
        with_core(|c| c.group_barriers.set(c.group_barriers.get() + 1));
        let ub = LocalTensor::<i32>::new(TPosition::VECIN, start, GROUP_BARRIER_UB_BYTES / 4);
        for i in 0..MAX_AIV {
            ub.set_value(i * BLOCK / 4, 1);
        }
        GroupBarrier {
            arrive_gm,
            wait_gm,
            ws,
            ub,
            arrive_size: arrive_size_in,
            wait_size: wait_size_in,
            counter: 1,
            has_arrive: false,
            at: Location::caller(),
            _mode: PhantomData,
        }
    }

    /// Tells the wait group that this core, index `arrive_index` of the arrive group, is done
    /// (AscendC `Arrive(arriveIndex)`): from its second round on, first waits until every
    /// waiter has passed the previous round.
    ///
    /// # Panics
    /// Panics if `arrive_index >= arriveSize`, after 1,048,575 rounds, or when the previous
    /// round's waiters can never all wait (a hang on the chip); if the launch of more than one
    /// core cannot block (see the [module documentation](self)).
    #[track_caller]
    pub fn arrive(&mut self, arrive_index: u32) {
        let api = "GroupBarrier::Arrive";
        self.check_index(api, "arriveIndex", arrive_index, self.arrive_size);
        if self.counter > 1 {
            let expected = (self.counter - 1).wrapping_mul(self.wait_size);
            let at = arrive_index as usize * LINE + WAIT_AT;
            self.poll(api, at, expected, true, || {
                format!(
                    "the wait counter of arrive index {arrive_index} to be {expected} (round {} of {} waiters)",
                    self.counter - 1,
                    self.wait_size
                )
            });
        }
        self.message(&self.arrive_gm, 0);
        self.counter += 1;
        self.has_arrive = true;
    }

    /// Waits until every core of the arrive group has arrived in this core's round (AscendC
    /// `Wait(waitIndex)`), this core being index `wait_index` of the wait group; then tells the
    /// arrive group it has passed. What the arriving cores did before their `Arrive` happens
    /// before what this core does next.
    ///
    /// # Panics
    /// Panics if `wait_index >= waitSize`, after 1,048,575 rounds, or when the arrivers can never
    /// all arrive (a hang on the chip); if the launch of more than one core cannot block.
    #[track_caller]
    pub fn wait(&mut self, wait_index: u32) {
        let api = "GroupBarrier::Wait";
        self.check_index(api, "waitIndex", wait_index, self.wait_size);
        let round = if self.has_arrive { self.counter - 1 } else { self.counter };
        let expected = round.wrapping_mul(self.arrive_size);
        self.poll(api, wait_index as usize * LINE, expected, false, || {
            format!(
                "the arrive counter of wait index {wait_index} to reach {expected} (round {round} of {} arrivers)",
                self.arrive_size
            )
        });
        self.message(&self.wait_gm, WAIT_AT);
        if !self.has_arrive {
            self.counter += 1;
        }
        self.has_arrive = false;
    }

    /// The bytes of global memory the barrier's counters take (AscendC `GetWorkspaceLen`):
    /// `max(arriveSize, waitSize) × 512`.
    pub fn get_workspace_len(&self) -> u64 {
        u64::from(self.arrive_size.max(self.wait_size)) * LINE as u64
    }

    /// Checks an index and the round limit.
    #[track_caller]
    fn check_index(&self, api: &'static str, name: &str, index: u32, size: u32) {
        ensure(index < size, api, || {
            format!("{name} = {index} is out of range [0, {}] (the group has {size} cores)", size - 1)
        });
        ensure(self.counter <= GROUP_BARRIER_MAX_ROUNDS, api, || {
            format!(
                "more than {GROUP_BARRIER_MAX_ROUNDS} rounds of the GroupBarrier created at {}:{}: the vendor's \
                 limit on Arrive/Wait in a loop",
                self.at.file(),
                self.at.line()
            )
        });
    }

    /// Waits until the counter at byte `at` of the workspace is `expected` (`exact`) or at
    /// least it (the protocol's `dcci` poll); then acquires what its messages released.
    #[track_caller]
    fn poll(&self, api: &'static str, at: usize, expected: u32, exact: bool, what: impl FnOnce() -> String) {
        let loc = Location::caller();
        let (w, i) = (self.ws.clone(), at / 4);
        block_until(
            api,
            || format!("waits in {api} (at {}:{}) for {}", loc.file(), loc.line(), what()),
            Box::new(move || {
                // The counter is a `uint32_t`: its bits, read as one.
                let v = w.load(i) as u32;
                if exact {
                    v == expected
                } else {
                    v >= expected
                }
            }),
        );
        crate::observe::events::on_cross_acquire(&[self.ws.key(i)]);
    }

    /// Sends a message (`__WriteCurrentValue`): adds the Unified Buffer's protocol blocks to the
    /// counters of one kind, from `gm` (the kind's first counter, byte `first` of the lines).
    #[track_caller]
    fn message(&self, gm: &GlobalTensor<i32>, first: usize) {
        let num = self.arrive_size.max(self.wait_size) as usize;
        let keys: Vec<usize> = (0..num).map(|k| self.ws.key((first + k * LINE) / 4)).collect();
        crate::observe::events::on_cross_release(&keys);
        crate::memory::atomic::flush_current_core();
        let e = <HardEvent::S_MTE3 as Event>::EVENT;
        let id = crate::sync::flags::fetch_free_event("TPipe::FetchEventID", e);
        set_flag_event(e, id);
        wait_flag_event(e, id);
        crate::memory::atomic::set_atomic_add::<i32>();
        let params = DataCopyParams {
            block_count: num as u16,
            block_len: 1,
            src_stride: 0,
            dst_stride: (LINE / BLOCK - 1) as u16,
        };
        data_copy_params(gm, &self.ub, &params);
        crate::memory::atomic::set_atomic_none();
        // Wakes the cores polling the counters.
        signal_cores(|| {});
    }
}

impl<M: GroupPipeMode> Drop for GroupBarrier<M> {
    fn drop(&mut self) {
        // The Unified Buffer's last bytes are free for the pipe again once no barrier uses them.
        with_core(|c| c.group_barriers.set(c.group_barriers.get().saturating_sub(1)));
    }
}

const _: () = assert!(
    GROUP_BARRIER_UB_BYTES == BLOCK * MAX_AIV && GROUP_BARRIER_UB_BYTES == 1600 && LINE / BLOCK == 16
);
