//! The state of the logical core the current host thread is emulating: its index, the
//! launch size, the chip, its Unified Buffer, its mask register and control flags.
//!
//! A launcher enters a core with [`run_on_core`]. Code that runs outside any launch (a unit
//! test calling instructions directly) gets a default core: index 0 of 1 on
//! [`Soc::default()`], with its own Unified Buffer.

use std::cell::{Cell, OnceCell, RefCell};
use std::panic::Location;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use crate::kernel::error::{fail, fail_at};
use crate::memory::atomic_log::{AtomicLog, AtomicMode};
use crate::memory::ub::Ub;
use crate::position::Memory;
use crate::soc::{OverflowMode, Soc};

/// A condition a blocked core waits for (see [`CoreBarrier::wait_until`]): it reads global
/// memory only, through atomic accesses, and is evaluated under the launch's lock by whichever
/// core may have made it true.
pub type WaitCond = Box<dyn FnMut() -> bool + Send>;

/// The launch-wide synchronisation behind [`sync_all`](crate::sync_all) and the flag-based inter-core
/// primitives (`IBSet`/`IBWait`, `WaitPreBlock`/`NotifyNextBlock`), provided by the launcher.
pub trait CoreBarrier: Send + Sync {
    /// Blocks until every core of the launch has arrived. Returns `Err(reason)` when the
    /// launch was aborted (another core failed) instead of hanging.
    fn wait(&self, core: u32) -> Result<(), String>;

    /// Blocks `core` until `cond` holds. `what` says what the core waits for (for the error
    /// when no core can make it true: every other core is blocked too, waits in
    /// [`sync_all`](crate::sync_all), or has returned from the kernel — a hang on the hardware). Returns
    /// `Err(reason)` then, and when the launch was aborted, instead of hanging.
    fn wait_until(&self, core: u32, what: String, cond: WaitCond) -> Result<(), String>;

    /// Runs `write` (a write of global memory that may satisfy a blocked core's condition)
    /// under the launch's lock, then wakes the cores whose condition now holds.
    fn signal(&self, write: &mut dyn FnMut());

    /// The launch's counters of `CrossCoreSetFlag` (see [`crate::cross_core`]).
    fn cross_flags(&self) -> Arc<crate::sync::cross_flags::CrossFlags>;

    /// The launch's counters of `CrossCoreSetFlag` if they were made yet (`None`: no core
    /// used them, every counter is 0). A launcher that makes them on first use overrides
    /// this, so that reading a counter does not make them.
    fn cross_flags_made(&self) -> Option<Arc<crate::sync::cross_flags::CrossFlags>> {
        Some(self.cross_flags())
    }
}

/// What a launcher tells a core about itself.
#[derive(Clone)]
pub struct CoreConfig {
    /// This core's index in the launch, `0..block_num`: `GetBlockIdx` except in a mixed
    /// launch, where it numbers the AIVs first (by `GetBlockIdx`), then the AICs (see
    /// [`KernelType`]).
    pub block_idx: u32,
    /// Number of cores in the launch: `blockDim`, or in a mixed launch every AIC and AIV
    /// (`blockDim` times 2 or 3).
    pub block_num: u32,
    /// The chip being emulated.
    pub soc: Soc,
    /// The launch-wide barrier, if the launch supports [`sync_all`](crate::sync_all).
    pub barrier: Option<Arc<dyn CoreBarrier>>,
    /// Set by the launcher when the launch is cancelled (it timed out): the core's next call
    /// of a kernel API fails with the token's reason, so a core that spins on global memory or
    /// keeps issuing instructions unwinds instead of hanging.
    pub cancel: Option<Arc<CancelToken>>,
    /// The launch's log of float atomic contributions (`None`: they apply at once).
    pub atomic_log: Option<Arc<AtomicLog>>,
    /// The units the kernel runs on, which decides the memories a core has on a chip whose
    /// cube and vector cores are separate (see [`KernelType`]); `None` (a core outside any
    /// launch) has every memory.
    pub kernel_type: Option<KernelType>,
}

impl CoreConfig {
    /// A single core (index 0 of 1) of `soc`, without a barrier, with every memory.
    pub fn single(soc: Soc) -> CoreConfig {
        CoreConfig {
            block_idx: 0,
            block_num: 1,
            soc,
            barrier: None,
            atomic_log: None,
            cancel: None,
            kernel_type: None,
        }
    }
}

/// The units a kernel runs on (AscendC's `KERNEL_TYPE_AIV_ONLY` / `KERNEL_TYPE_AIC_ONLY` /
/// `KERNEL_TYPE_MIX_AIC_1_1` / `KERNEL_TYPE_MIX_AIC_1_2`, or the `__vector__` / `__cube__` /
/// `__mix__(1, 1)` / `__mix__(1, 2)` kernel qualifiers).
///
/// On Ascend910B the cube unit and the vector unit are separate cores: a vector core (AIV)
/// has the Unified Buffer and no L1/L0 buffers; a cube core (AIC) has L1, L0A, L0B and L0C
/// and no Unified Buffer. Each launched core of an `AivOnly` kernel is an AIV, of an
/// `AicOnly` kernel an AIC, and a tensor in a memory the core does not have is an error. On
/// the other chips one AI core has every memory and `AivOnly` and `AicOnly` behave alike.
///
/// A mixed kernel (`MixAic1_1`, `MixAic1_2`, Ascend910B only) launches, per block (logical
/// AI core), one AIC and one or two AIVs, each running the kernel closure as its own core
/// type ([`g_core_type`], [`ascend_is_aic`], [`ascend_is_aiv`]). The system variables follow
/// the vendor's tables (`GetBlockIdx`, `GetBlockNum`, `GetSubBlockNum`, `GetTaskRatio` pages)
/// and the dav_c220 implementation (`impl/basic_api/dav_c220/kernel_operator_sys_var_impl.h`):
///
/// | | AIC | AIV |
/// | --- | --- | --- |
/// | [`get_block_idx`] | `b` in `[0, blockDim)` | `b * ratio + sub` in `[0, ratio * blockDim)` |
/// | `get_sub_block_idx` | 0 | `sub` in `[0, ratio)` |
/// | [`get_block_num`] | `blockDim` | `blockDim` |
/// | `get_sub_block_num`, `get_task_ratio` | 1 | `ratio` (1 or 2) |
///
/// where `b` is the block and `ratio` the AIVs per block (1 for `MixAic1_1`, 2 for
/// `MixAic1_2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum KernelType {
    /// A vector kernel (the default).
    #[default]
    AivOnly,
    /// A cube kernel.
    AicOnly,
    /// A mixed kernel: per block one AIC and one AIV (`KERNEL_TYPE_MIX_AIC_1_1`).
    MixAic1_1,
    /// A mixed kernel: per block one AIC and two AIVs (`KERNEL_TYPE_MIX_AIC_1_2`).
    MixAic1_2,
}

impl KernelType {
    /// The vendor's name of the kernel type (`KERNEL_TYPE_MIX_AIC_1_2` …).
    pub fn vendor_name(self) -> &'static str {
        match self {
            KernelType::AivOnly => "KERNEL_TYPE_AIV_ONLY",
            KernelType::AicOnly => "KERNEL_TYPE_AIC_ONLY",
            KernelType::MixAic1_1 => "KERNEL_TYPE_MIX_AIC_1_1",
            KernelType::MixAic1_2 => "KERNEL_TYPE_MIX_AIC_1_2",
        }
    }

    /// Whether the kernel runs cube and vector cores together (`MixAic1_1`, `MixAic1_2`).
    pub fn is_mix(self) -> bool {
        matches!(self, KernelType::MixAic1_1 | KernelType::MixAic1_2)
    }

    /// The AIVs launched per block: 1 for `AivOnly` and `MixAic1_1`, 2 for `MixAic1_2`, 0 for
    /// `AicOnly`.
    pub fn aiv_per_block(self) -> u32 {
        match self {
            KernelType::AivOnly | KernelType::MixAic1_1 => 1,
            KernelType::AicOnly => 0,
            KernelType::MixAic1_2 => 2,
        }
    }

    /// The AICs launched per block: 1, or 0 for `AivOnly`.
    pub fn aic_per_block(self) -> u32 {
        u32::from(self != KernelType::AivOnly)
    }

    /// In a launch of this type with `total` cores (every AIC and AIV), the type and
    /// `GetBlockIdx` of the core of launch index `core`: `Some` in a mixed launch only.
    pub fn unit_of(self, core: u32, total: u32) -> Option<(CoreType, u32)> {
        self.is_mix().then(|| {
            let r = Role::of(Some(self), core, total);
            (r.ty, r.block_idx())
        })
    }

    /// The host cores (threads) a launch of `block_dim` blocks runs: `block_dim` times
    /// [`aic_per_block`](Self::aic_per_block) plus [`aiv_per_block`](Self::aiv_per_block).
    pub fn cores(self, block_dim: u32) -> u64 {
        u64::from(block_dim) * u64::from(self.aic_per_block() + self.aiv_per_block())
    }
}

/// The type of a core (AscendC's `g_coreType`: `AIC` or `AIV`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CoreType {
    /// A cube core.
    Aic,
    /// A vector core.
    Aiv,
}

impl CoreType {
    /// The vendor's integer value of `g_coreType` for this type: [`AIC`](crate::constants::AIC)
    /// (1) or [`AIV`](crate::constants::AIV) (2).
    pub fn value(self) -> i32 {
        match self {
            CoreType::Aic => crate::constants::AIC,
            CoreType::Aiv => crate::constants::AIV,
        }
    }

    /// `"AIC"` or `"AIV"`.
    pub fn name(self) -> &'static str {
        match self {
            CoreType::Aic => "AIC",
            CoreType::Aiv => "AIV",
        }
    }
}

/// Where a core sits in its launch: its type, block and sub-block (see [`KernelType`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Role {
    pub(crate) ty: CoreType,
    /// The block (logical AI core), `0..blocks`.
    pub(crate) block: u32,
    /// The index among the cores of its type in the block (0 on an AIC).
    pub(crate) sub: u32,
    /// The cores of this type per block (`GetTaskRatio`, `GetSubBlockNum`).
    pub(crate) ratio: u32,
    /// The blocks of the launch (`GetBlockNum`).
    pub(crate) blocks: u32,
}

impl Role {
    /// `GetBlockIdx` on this core.
    pub(crate) fn block_idx(&self) -> u32 {
        self.block * self.ratio + self.sub
    }

    /// The launch-wide index of the core of type `ty`, block `block`, sub-block `sub` in a launch of
    /// `kernel_type` with `blocks` blocks (the inverse of [`Role::of`]).
    pub(crate) fn slot(kernel_type: KernelType, blocks: u32, ty: CoreType, block: u32, sub: u32) -> u32 {
        match (kernel_type.is_mix(), ty) {
            (true, CoreType::Aic) => blocks * kernel_type.aiv_per_block() + block,
            (true, CoreType::Aiv) => block * kernel_type.aiv_per_block() + sub,
            (false, _) => block,
        }
    }

    /// The role of launch-wide core `slot` of `total` in a launch of `kernel_type` (`None`:
    /// outside a launch, an AIV). In a mixed launch the AIVs come first, in `GetBlockIdx`
    /// order, then the AICs.
    pub(crate) fn of(kernel_type: Option<KernelType>, slot: u32, total: u32) -> Role {
        match kernel_type {
            Some(k) if k.is_mix() => {
                let r = k.aiv_per_block();
                let n = total / (r + 1);
                if slot < n * r {
                    Role { ty: CoreType::Aiv, block: slot / r, sub: slot % r, ratio: r, blocks: n }
                } else {
                    Role { ty: CoreType::Aic, block: slot - n * r, sub: 0, ratio: 1, blocks: n }
                }
            }
            Some(KernelType::AicOnly) => {
                Role { ty: CoreType::Aic, block: slot, sub: 0, ratio: 1, blocks: total }
            }
            _ => Role { ty: CoreType::Aiv, block: slot, sub: 0, ratio: 1, blocks: total },
        }
    }

    /// `"AIV 7"`, `"AIC 3"`: the core's type and `GetBlockIdx`.
    pub(crate) fn name(&self) -> String {
        format!("{} {}", self.ty.name(), self.block_idx())
    }
}

/// A launch's cancellation flag and its reason (see [`CoreConfig::cancel`]).
#[derive(Debug, Default)]
pub struct CancelToken {
    flag: AtomicBool,
    why: OnceLock<String>,
}

impl CancelToken {
    /// A token not cancelled yet.
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// Cancels: every core holding the token fails at its next kernel API call with `why`.
    /// Only the first reason is kept.
    pub fn cancel(&self, why: String) {
        let _ = self.why.set(why);
        self.flag.store(true, Ordering::Release);
    }

    /// Whether [`cancel`](Self::cancel) was called.
    #[inline]
    pub fn is_cancelled(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }

    fn reason(&self) -> String {
        self.why.get().cloned().unwrap_or_else(|| "the launch was cancelled".to_string())
    }
}

/// Normal or counter mask mode (`SetMaskNorm` / `SetMaskCount`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaskMode {
    /// The mask selects lanes within each repeat.
    Normal,
    /// The mask is a total element count, processed over as many repeats as needed.
    Counter,
}

/// Per-core state that a layer above this one keeps in the core, of a type this layer does
/// not name (the live `TPipe`'s shared handles, the `DEQSCALE` register): its owner stores a
/// value and downcasts it back. `None` until the owner first stores one.
pub(crate) type Opaque = RefCell<Option<Box<dyn std::any::Any>>>;

pub(crate) struct CoreState {
    /// This core's id, unique in the process (1, 2, …): the owner of its memories' arenas
    /// (see [`check_tensor`]).
    pub(crate) id: u64,
    /// A core of a launch ([`run_on_core`]), not a thread's default core.
    pub(crate) launched: bool,
    pub(crate) block_idx: u32,
    pub(crate) block_num: u32,
    pub(crate) soc: Soc,
    pub(crate) barrier: Option<Arc<dyn CoreBarrier>>,
    pub(crate) ub: Rc<Ub>,
    /// The vector mask register: lanes 0..64 in `[0]`, 64..128 in `[1]`; in counter mode
    /// `[0]` holds the count.
    pub(crate) mask: Cell<[u64; 2]>,
    pub(crate) mask_mode: Cell<MaskMode>,
    /// The compare-mask register (`SetCmpMask` / `GetCmpMask`), 128 bits.
    pub(crate) cmp_mask: Cell<[u64; 2]>,
    pub(crate) overflow: Cell<OverflowMode>,
    /// Whether a `TPipe` is alive on this core (AscendC allows one at a time).
    pub(crate) pipe_alive: Cell<bool>,
    /// The end of the Unified Buffer bytes the live `TPipe` has handed out (0 without one).
    pub(crate) pipe_end: Cell<usize>,
    /// The live `TPipe`'s shared state, for `GetTPipePtr` (`None` without one).
    pub(crate) pipe_shared: Opaque,
    /// Live `GroupBarrier`s of this core: while there is one, the Unified Buffer's last
    /// [`GROUP_BARRIER_UB_BYTES`](crate::group_barrier::GROUP_BARRIER_UB_BYTES) are theirs.
    pub(crate) group_barriers: Cell<u32>,
    /// Event ids and flags (`SetFlag`/`WaitFlag`, `TPipe::AllocEventID`).
    pub(crate) sync: RefCell<crate::sync::event::SyncState>,
    pub(crate) cancel: Option<Arc<CancelToken>>,
    /// The global-memory atomic mode (`SetAtomicAdd<T>` …), `None` when off.
    pub(crate) atomic: Cell<Option<AtomicMode>>,
    pub(crate) atomic_log: Option<Arc<AtomicLog>>,
    /// The memories (bit `Memory as u8`) with a live `LocalMemAllocator` on this core (not to be
    /// mixed with `TPipe`).
    pub(crate) allocators: Cell<u8>,
    /// The kernel type of the launch (`None`: every memory).
    pub(crate) kernel_type: Option<KernelType>,
    /// The cube's memories (L1, L0A, L0B, L0C, BT: `Memory as usize - 1`), made on first use.
    pub(crate) cube_mem: [OnceCell<Rc<Ub>>; 5],
    /// The DataCopyPad padding register (`SetPadValue`, or the last `isPad` copy): the value's
    /// bits, `None` until set.
    pub(crate) pad_value: Cell<Option<u64>>,
    /// The reduce-sum register (`GetReduceRepeatSumSpr`): the raw bits of the last count-form
    /// `ReduceSum` result.
    pub(crate) reduce_sum_spr: Cell<u64>,
    /// The max/min register (`GetReduceRepeatMaxMinSpr`): value bits in the low 32 bits, index
    /// in the high 32 bits, as the chip's `MAX_MIN_CNT` register lays them out.
    pub(crate) reduce_max_min_spr: Cell<u64>,
    /// The merge-count register `VMS4_SR` (`GetMrgSortResult`): the four lists' counts of the
    /// last `MrgSort`/`MrgSort4`, in fields of the chip's width.
    pub(crate) vms4_sr: Cell<u64>,
    /// This core's `CrossCoreSetFlag`s and `CrossCoreWaitFlag`s so far, by flag id.
    pub(crate) cross: Cell<crate::sync::cross_flags::CrossLocal>,
    /// The `CrossCoreSetFlag` counters of a core without a launch barrier (made on first use).
    pub(crate) cross_own: OnceCell<Arc<crate::sync::cross_flags::CrossFlags>>,
    /// The system workspace (`SetSysWorkspace`), `None` (`nullptr`) until set.
    pub(crate) sys_workspace: Cell<Option<crate::memory::gm_addr::GmAddr>>,
    /// The `DEQSCALE` register (`SetDeqScale`): which form set it, and with what.
    pub(crate) deq_scale: Opaque,
}

thread_local! {
    /// The core this thread emulates now: the state owned by the innermost [`run_on_core`]
    /// frame, or this thread's default core (owned by `DEFAULT_CORE`), or null when neither
    /// exists yet. A `Cell` of a pointer, without a destructor, so reading it is one load: the
    /// lookup every API call makes stays cheap.
    static CURRENT: Cell<*const CoreState> = const { Cell::new(std::ptr::null()) };
    /// The default core of a thread that calls kernel APIs outside any launch.
    static DEFAULT_CORE: DefaultCore = const { DefaultCore(RefCell::new(None)) };
    /// The Unified Buffer arenas this thread made, for its next cores: several, because a
    /// launcher may run many cores on one thread at once (the runtime's pooled mode parks a
    /// core that waits and starts the next one on the same thread).
    static UB_CACHE: RefCell<Vec<Rc<Ub>>> = const { RefCell::new(Vec::new()) };
}

/// Takes the thread's current core pointer, leaving the thread outside any core (for
/// [`CoreTls`](crate::observe::tls::CoreTls), which moves it with the rest of a suspended
/// core's thread-local state).
pub(crate) fn take_current() -> *const CoreState {
    CURRENT.with(|c| c.replace(std::ptr::null()))
}

/// Puts back a pointer [`take_current`] took, on the thread it was taken on.
pub(crate) fn put_current(core: *const CoreState) {
    CURRENT.with(|c| c.set(core));
}

/// Owns a thread's default core; clears [`CURRENT`] before the core is freed at thread exit.
struct DefaultCore(RefCell<Option<Box<CoreState>>>);

impl Drop for DefaultCore {
    fn drop(&mut self) {
        if let Some(core) = self.0.get_mut().as_deref() {
            let own: *const CoreState = core;
            // `try_with`: never fails for a `const` thread-local without a destructor, but
            // a panic in a destructor at thread exit would abort.
            let _ = CURRENT.try_with(|c| {
                if c.get() == own {
                    c.set(std::ptr::null());
                }
            });
        }
    }
}

fn take_ub(size: usize) -> Rc<Ub> {
    UB_CACHE.with(|c| {
        let mut c = c.borrow_mut();
        // Reuse an arena of the thread that no tensor of an earlier core still holds.
        if let Some(ub) = c.iter().find(|ub| ub.size() == size && Rc::strong_count(ub) == 1) {
            return Rc::clone(ub);
        }
        let ub = Rc::new(Ub::new(size, Memory::Ub));
        if c.len() >= UB_CACHED {
            // Forget an idle arena (freed), else the oldest (freed by the core that holds it).
            let i = c.iter().position(|u| Rc::strong_count(u) == 1).unwrap_or(0);
            c.swap_remove(i);
        }
        c.push(Rc::clone(&ub));
        ub
    })
}

/// The Unified Buffer arenas a thread keeps for its next cores, at most.
const UB_CACHED: usize = 64;

/// The next core id (see [`CoreState::id`]).
static NEXT_CORE_ID: AtomicU64 = AtomicU64::new(1);

/// The [`run_on_core`] frames running now, in every thread of the process.
static RUNNING_CORES: AtomicUsize = AtomicUsize::new(0);

fn new_state(cfg: CoreConfig, launched: bool) -> CoreState {
    let id = NEXT_CORE_ID.fetch_add(1, Ordering::Relaxed);
    let ub = take_ub(cfg.soc.ub_size());
    ub.set_owner(
        id,
        crate::memory::ub::Owner {
            block_idx: cfg.block_idx,
            block_num: cfg.block_num,
            launched,
            ended: false,
        },
    );
    CoreState {
        id,
        launched,
        block_idx: cfg.block_idx,
        block_num: cfg.block_num,
        soc: cfg.soc,
        barrier: cfg.barrier,
        ub,
        mask: Cell::new([u64::MAX, u64::MAX]),
        mask_mode: Cell::new(MaskMode::Normal),
        cmp_mask: Cell::new([0, 0]),
        overflow: Cell::new(cfg.soc.default_overflow_mode()),
        pipe_alive: Cell::new(false),
        pipe_end: Cell::new(0),
        pipe_shared: RefCell::new(None),
        group_barriers: Cell::new(0),
        sync: RefCell::new(crate::sync::event::SyncState::new()),
        cancel: cfg.cancel,
        atomic: Cell::new(None),
        atomic_log: cfg.atomic_log,
        allocators: Cell::new(0),
        kernel_type: cfg.kernel_type,
        cube_mem: Default::default(),
        pad_value: Cell::new(None),
        reduce_sum_spr: Cell::new(0),
        reduce_max_min_spr: Cell::new(0),
        vms4_sr: Cell::new(0),
        cross: Cell::new(crate::sync::cross_flags::CrossLocal::default()),
        cross_own: OnceCell::new(),
        sys_workspace: Cell::new(None),
        deq_scale: RefCell::new(None),
    }
}

impl Drop for CoreState {
    fn drop(&mut self) {
        // A tensor that outlives its core keeps the arena: its messages say the core ended.
        self.ub.owner_ended(self.id);
        for m in &self.cube_mem {
            if let Some(ub) = m.get() {
                ub.owner_ended(self.id);
            }
        }
    }
}

impl CoreState {
    /// This core, as messages name it.
    fn owner(&self) -> crate::memory::ub::Owner {
        crate::memory::ub::Owner {
            block_idx: self.block_idx,
            block_num: self.block_num,
            launched: self.launched,
            ended: false,
        }
    }

    /// Fails unless this core has the memory `mem` (see [`KernelType`]): on a chip with
    /// separate cube and vector cores, a vector core (AIV) has no cube memory and a cube core
    /// (AIC) no Unified Buffer.
    pub(crate) fn require(&self, mem: Memory, api: &'static str, loc: &'static Location<'static>) {
        if !self.soc.is_separated() {
            return;
        }
        let Some(kind) = self.kernel_type else { return };
        let role = Role::of(Some(kind), self.block_idx, self.block_num);
        match (role.ty, mem.is_cube(), kind.is_mix()) {
            (CoreType::Aiv, true, false) => fail_at(
                api,
                format!(
                    "{} is a memory of the cube core (AIC) of {}, and this kernel runs on vector cores (AIV): launch \
                     a cube kernel with Launch::kernel_type(KernelType::AicOnly)",
                    mem.name(),
                    self.soc
                ),
                loc,
            ),
            (CoreType::Aic, false, false) => fail_at(
                api,
                format!(
                    "the cube core (AIC) of {} has no Unified Buffer (this kernel is KernelType::AicOnly): vector \
                     work runs on the vector cores (AIV) of a KernelType::AivOnly kernel",
                    self.soc
                ),
                loc,
            ),
            (CoreType::Aiv, true, true) => fail_at(
                api,
                format!(
                    "{} is a memory of the cube core (AIC) of {}, and this core is {} of a KernelType::{kind:?} \
                     kernel: put the cube work under `if ascend_is_aic()`",
                    mem.name(),
                    self.soc,
                    role.name()
                ),
                loc,
            ),
            (CoreType::Aic, false, true) => fail_at(
                api,
                format!(
                    "the cube core (AIC) of {} has no Unified Buffer, and this core is {} of a KernelType::{kind:?} \
                     kernel: put the vector work under `if ascend_is_aiv()`",
                    self.soc,
                    role.name()
                ),
                loc,
            ),
            _ => {}
        }
    }

    /// This core's place in its launch.
    #[inline]
    pub(crate) fn role(&self) -> Role {
        Role::of(self.kernel_type, self.block_idx, self.block_num)
    }

    /// The arena of `mem` for a tensor `api` makes, after [`require`](Self::require). The cube's
    /// memories are allocated on first use.
    #[track_caller]
    pub(crate) fn arena(&self, mem: Memory, api: &'static str, loc: &'static Location<'static>) -> Rc<Ub> {
        self.require(mem, api, loc);
        match mem {
            Memory::Ub => Rc::clone(&self.ub),
            // `Memory::L1..=BiasTable` are 1..=5: the index of their arena is one less.
            _ => Rc::clone(self.cube_mem[mem as usize - 1].get_or_init(|| {
                let ub = Rc::new(Ub::new(self.soc.memory_size(mem), mem));
                ub.set_owner(self.id, self.owner());
                ub
            })),
        }
    }
}

/// Whether this thread is running a core's kernel (inside [`run_on_core`]): a launch started
/// there is a launch inside a kernel, whose cores the runtime gives threads of their own.
#[doc(hidden)]
pub fn in_core() -> bool {
    CURRENT.with(|c| !c.get().is_null())
}

/// Runs `f` as logical core `cfg.block_idx` of a launch: inside it, [`get_block_idx`],
/// [`get_block_num`], [`get_soc`] and [`sync_all`](crate::sync_all) answer for that core, and the core has a
/// Unified Buffer of the chip's size, a full mask in normal mode, and the chip's default
/// overflow mode. The previous core of the thread (if any) is restored afterwards, also when
/// `f` panics.
pub fn run_on_core<R>(cfg: CoreConfig, f: impl FnOnce() -> R) -> R {
    struct Restore(*const CoreState);
    impl Drop for Restore {
        fn drop(&mut self) {
            CURRENT.with(|c| c.set(self.0));
            RUNNING_CORES.fetch_sub(1, Ordering::Relaxed);
        }
    }
    // The state lives in this frame; `_restore` (declared after it, so dropped before it,
    // also when `f` unwinds) points `CURRENT` back at the previous core before it is freed.
    let state = new_state(cfg, true);
    RUNNING_CORES.fetch_add(1, Ordering::Relaxed);
    let _restore = Restore(CURRENT.with(|c| c.replace(&state)));
    f()
}

/// Runs `f` on the cube core (AIC) that serves the current core's high-level `Matmul`: a core
/// of the same index, launch size and chip, with the cube's memories (L1, L0A, L0B, L0C) and
/// no Unified Buffer, sharing the launch's cancellation and atomic log. The AIV ↔ AIC message
/// channel of the vendor's mixed kernels is modelled by this call: the vector core's request
/// runs to completion on its cube core before the call returns (see `crate::adv::matmul`).
/// A check failing inside `f` points at the caller's line (the kernel's, through
/// `#[track_caller]`), not into the closure.
#[track_caller]
pub(crate) fn run_on_cube_side<R>(f: impl FnOnce() -> R) -> R {
    let loc = std::panic::Location::caller();
    let cfg = with_core(|c| CoreConfig {
        block_idx: c.block_idx,
        block_num: c.block_num,
        soc: c.soc,
        barrier: None,
        cancel: c.cancel.clone(),
        atomic_log: c.atomic_log.clone(),
        kernel_type: Some(KernelType::AicOnly),
    });
    crate::kernel::error::at_kernel_line(loc, || run_on_core(cfg, f))
}

/// The current core, creating the default core for this thread if none is set.
#[inline]
fn current() -> *const CoreState {
    let p = CURRENT.with(Cell::get);
    if p.is_null() {
        install_default()
    } else {
        p
    }
}

/// Makes this thread's default core — unless the thread is one a kernel spawned (see
/// [`spawned_thread`]).
#[cold]
#[inline(never)]
fn install_default() -> *const CoreState {
    if DEFAULT_CORE.with(|d| d.0.borrow().is_none()) {
        spawned_thread();
    }
    DEFAULT_CORE.with(|d| {
        let mut d = d.0.borrow_mut();
        let core: *const CoreState =
            &**d.get_or_insert_with(|| Box::new(new_state(CoreConfig::single(Soc::default()), false)));
        CURRENT.with(|c| c.set(core));
        core
    })
}

/// Fails when a thread without a core makes its first kernel API call while a launch runs and
/// the thread has no name: taken for a thread the kernel spawned.
///
/// A kernel has no threads on the hardware: a core is one instruction stream. A thread a
/// kernel spawns is not a core of its launch, so it cannot run kernel APIs "as" one (it has no
/// Unified Buffer, block index or pipes of the launch, and the sanitizer could not check what it
/// does to global memory). The emulator cannot see which thread spawned which, so it tells such
/// a thread by two signs: it calls a kernel API outside any core while a core of some launch
/// runs, and it has no name — the runtime's threads, the test harness's and the main thread all
/// have one. A host thread that calls kernel APIs outside any launch while another thread runs
/// a launch gets this error too: naming it (`std::thread::Builder::name`) marks it as a host
/// thread.
#[cold]
#[track_caller]
fn spawned_thread() {
    if RUNNING_CORES.load(Ordering::Relaxed) == 0 || std::thread::current().name().is_some() {
        return;
    }
    fail(
        "Launch",
        "a kernel API was called from a thread the kernel spawned (an unnamed thread with no core while a launch \
         runs): a thread is not a core of the launch — it has no block index, Unified Buffer or pipes, and its \
         global-memory accesses could not be checked — so kernel APIs must be called from the core's own thread \
         (use more cores, block_dim, for parallel work); a host thread calling kernel APIs outside any launch \
         must have a name (std::thread::Builder::name)",
    )
}

/// Fails unless the tensor whose memory is `ub` belongs to the current core (AscendC tensors
/// are addresses in their core's own memories: another core, or the host after the launch,
/// cannot reach them), or if the current core's launch was cancelled. Every instruction calls
/// it once per tensor operand: one thread-local load and two compares.
#[inline(always)]
#[track_caller]
pub(crate) fn check_tensor(ub: &Ub, api: &'static str) {
    let p = CURRENT.with(Cell::get);
    // SAFETY: a non-null `CURRENT` points at a live core (see `with_core`).
    match unsafe { p.as_ref() } {
        Some(core) if core.id == ub.owner() => {
            if core.cancel.as_ref().is_some_and(|t| t.is_cancelled()) {
                cancelled(core);
            }
        }
        _ => foreign_tensor(ub, api),
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn foreign_tensor(ub: &Ub, api: &'static str) {
    // SAFETY: `current` returns a live core (see `with_core`).
    let core = unsafe { &*current() };
    if core.id == ub.owner() || std::thread::panicking() {
        return;
    }
    let user = if core.launched {
        format!("core {} of {} of a launch", core.block_idx, core.block_num)
    } else {
        "the host (a thread's default core, outside any launch)".to_string()
    };
    fail(
        api,
        format!(
            "this LocalTensor is in {} of {}, and {user} uses it: a tensor is an address in its own core's \
             memory, which no other core, and not the host after the launch, can reach; do not keep tensors in \
             statics, thread-locals or channels across cores or launches (move data between cores through global \
             memory)",
            ub.mem().name(),
            ub.owner_info().describe()
        ),
    )
}

/// Calls `f` with the current core, creating the default core for this thread if none is set,
/// after checking that the launch was not cancelled.
///
/// Every kernel API calls this once or a few times per call: the common case (a core is set)
/// is one thread-local load and the cancellation check.
#[inline]
#[track_caller]
pub(crate) fn with_core<R>(f: impl FnOnce(&CoreState) -> R) -> R {
    // SAFETY: `CURRENT` is non-null here and points either at the state of a `run_on_core`
    // frame that is still running (this call is inside it: the frame resets `CURRENT` before
    // it frees the state) or at the thread's default core, which lives in `DEFAULT_CORE`
    // until thread exit (whose destructor nulls `CURRENT` first). The state is only ever
    // accessed through shared references (its mutable parts are `Cell`s and `RefCell`s), and
    // the reference cannot escape `f` (`f` takes it for any lifetime).
    let core = unsafe { &*current() };
    if core.cancel.as_ref().is_some_and(|t| t.is_cancelled()) {
        cancelled(core);
    }
    f(core)
}

/// Fails with the cancellation reason, unless the thread is already unwinding (drops of a
/// `TPipe` or a tensor call into the core while a cancelled core unwinds).
#[cold]
#[track_caller]
fn cancelled(core: &CoreState) {
    if !std::thread::panicking() {
        let why = core.cancel.as_ref().map(|t| t.reason()).unwrap_or_default();
        fail("Launch", why)
    }
}

/// Fails if the current core's launch was cancelled (global-memory accesses call it, so a
/// core spinning on a flag in global memory is stopped by the launch's timeout).
#[inline]
#[track_caller]
pub(crate) fn check_cancel() {
    let p = CURRENT.with(Cell::get);
    // SAFETY: a non-null `CURRENT` points at a live core (see `with_core`).
    match unsafe { p.as_ref() } {
        Some(core) => {
            if core.cancel.as_ref().is_some_and(|t| t.is_cancelled()) {
                cancelled(core);
            }
        }
        // A thread with no core yet: a thread the kernel spawned fails here too (its
        // global-memory accesses make no core).
        None => spawned_thread(),
    }
}

/// The current core's index, or 0 outside a launch (never creates a core).
pub(crate) fn current_block_idx() -> u32 {
    // `try_with`: faults may be raised from destructors at thread exit.
    let p = CURRENT.try_with(Cell::get).unwrap_or(std::ptr::null());
    // SAFETY: a non-null `CURRENT` points at a live core (see `with_core`).
    unsafe { p.as_ref() }.map_or(0, |s| s.block_idx)
}

/// `"AIV 7"` / `"AIC 3"` for the current core of a mixed launch, `None` otherwise or outside a
/// launch (never creates a core).
pub(crate) fn current_unit() -> Option<(CoreType, u32)> {
    let p = CURRENT.try_with(Cell::get).unwrap_or(std::ptr::null());
    // SAFETY: a non-null `CURRENT` points at a live core (see `with_core`).
    let core = unsafe { p.as_ref() }?;
    core.kernel_type.filter(|k| k.is_mix())?;
    let r = core.role();
    Some((r.ty, r.block_idx()))
}

/// The index of the current logical core (AscendC `GetBlockIdx`): `0..get_block_num()`, and
/// on an AIV of a mixed kernel `block * GetTaskRatio() + GetSubBlockIdx()`, in
/// `0..GetTaskRatio() * get_block_num()` (see [`KernelType`]).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_block_idx(), 0);
/// ```
pub fn get_block_idx() -> u32 {
    with_core(|c| if c.kernel_type.is_some_and(|k| k.is_mix()) { c.role().block_idx() } else { c.block_idx })
}

/// The number of logical cores (blocks) of the launch (AscendC `GetBlockNum`): `blockDim`, on
/// the AICs and the AIVs of a mixed kernel alike.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_block_num(), 1);
/// ```
pub fn get_block_num() -> u32 {
    with_core(|c| if c.kernel_type.is_some_and(|k| k.is_mix()) { c.role().blocks } else { c.block_num })
}

/// The type of the current core (AscendC `g_coreType`): [`CoreType::Aic`] on the cube cores of
/// an `AicOnly` or mixed kernel, [`CoreType::Aiv`] otherwise (also outside a launch).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(g_core_type(), CoreType::Aiv);
/// ```
pub fn g_core_type() -> CoreType {
    with_core(|c| c.role().ty)
}

/// Whether the current core is a cube core (AscendC `ASCEND_IS_AIC`).
///
/// ```
/// use ascend_core::prelude::*;
/// assert!(!ascend_is_aic());
/// ```
pub fn ascend_is_aic() -> bool {
    g_core_type() == CoreType::Aic
}

/// Whether the current core is a vector core (AscendC `ASCEND_IS_AIV`).
///
/// ```
/// use ascend_core::prelude::*;
/// assert!(ascend_is_aiv());
/// ```
pub fn ascend_is_aiv() -> bool {
    g_core_type() == CoreType::Aiv
}

/// The chip the current core emulates.
pub fn get_soc() -> Soc {
    with_core(|c| c.soc)
}

/// Blocks the current core until `cond` holds (the wait of a flag-based inter-core primitive:
/// `IBWait`, `WaitPreBlock` …). Without the launch's barrier (a single core, or the runtime's
/// sequential mode) a core cannot block: a single core whose condition does not hold now
/// never sees it hold (a hang on the hardware), and a launch of more than one core needs the
/// pooled or thread-per-core mode, as [`sync_all`](crate::sync_all) does.
#[track_caller]
pub(crate) fn block_until(api: &'static str, what: impl FnOnce() -> String, mut cond: WaitCond) {
    let (barrier, idx, num) = with_core(|c| (c.barrier.clone(), c.block_idx, c.block_num));
    match barrier {
        Some(b) => {
            if let Err(why) = b.wait_until(idx, what(), cond) {
                fail(api, why)
            }
        }
        None if num <= 1 => {
            if !cond() {
                fail(
                    api,
                    format!(
                        "core {idx} {}, and no other core can ever do it: this launch has one core (on the \
                         hardware this hangs)",
                        what()
                    ),
                )
            }
        }
        None => fail(
            api,
            format!(
                "this launch of {num} cores cannot block a core: it runs its cores one after another (sequential \
                 mode); launch kernels that wait for another core in the default pooled mode or with a thread per \
                 core (Launch::sync_all(true))"
            ),
        ),
    }
}

/// Whether [`block_until`] can block the current core: the launch has a barrier (the pooled
/// and thread-per-core modes) or a single core.
pub(crate) fn can_block() -> bool {
    with_core(|c| c.barrier.is_some() || c.block_num <= 1)
}

/// Runs `write` (a global-memory write that may release a core blocked in [`block_until`])
/// under the launch's lock, and wakes the cores it releases; without a barrier, just runs it.
pub(crate) fn signal_cores(mut write: impl FnMut()) {
    match with_core(|c| c.barrier.clone()) {
        Some(b) => b.signal(&mut write),
        None => write(),
    }
}

/// The current core's `f16` overflow mode.
pub fn get_overflow_mode() -> OverflowMode {
    with_core(|c| c.overflow.get())
}

/// Sets the current core's `f16` overflow mode (saturation or inf/nan).
///
/// # Panics
/// Panics if the chip does not support inf/nan mode and `mode` is [`OverflowMode::InfNan`]:
/// only Ascend910B can switch.
#[track_caller]
pub fn set_overflow_mode(mode: OverflowMode) {
    let loc = Location::caller();
    with_core(|c| {
        if mode != c.soc.default_overflow_mode() && !c.soc.overflow_mode_settable() {
            fail_at(
                "SetOverflowMode",
                format!("mode = {mode:?} is not supported on {}: it has saturation mode only", c.soc),
                loc,
            );
        }
        c.overflow.set(mode);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(block_idx: u32, block_num: u32, soc: Soc) -> CoreConfig {
        CoreConfig { block_idx, block_num, ..CoreConfig::single(soc) }
    }

    /// Nested launches see their own core and restore the one around them on return and on
    /// unwinding; the thread's default core keeps its state across them.
    #[test]
    fn run_on_core_restores_the_previous_core() {
        // Named: an unnamed thread with no core is taken for one a kernel spawned while another
        // test's core runs (see `spawned_thread`).
        std::thread::Builder::new()
            .name("ctx-test".into())
            .spawn(|| {
                assert_eq!((get_block_idx(), get_block_num(), get_soc()), (0, 1, Soc::default()));
                with_core(|c| c.pad_value.set(Some(7)));
                run_on_core(cfg(3, 4, Soc::Ascend310P), || {
                    assert_eq!((get_block_idx(), get_block_num(), get_soc()), (3, 4, Soc::Ascend310P));
                    assert_eq!(with_core(|c| c.pad_value.get()), None);
                    run_on_core(cfg(1, 2, Soc::Ascend910), || assert_eq!(get_block_idx(), 1));
                    assert_eq!(current_block_idx(), 3);
                    let r = std::panic::catch_unwind(|| {
                        run_on_core(cfg(2, 4, Soc::Ascend910), || panic!("inner"))
                    });
                    assert!(r.is_err());
                    assert_eq!((get_block_idx(), get_soc()), (3, Soc::Ascend310P));
                });
                assert_eq!((get_block_idx(), get_block_num()), (0, 1));
                assert_eq!(with_core(|c| c.pad_value.get()), Some(7), "the same default core");
            })
            .unwrap()
            .join()
            .unwrap();
    }

    /// Outside any launch, before any API call, the fault reporter sees core 0 without
    /// creating a core; a thread that made a default core exits cleanly.
    #[test]
    fn default_core_is_made_on_demand_and_freed_at_thread_exit() {
        // Named: an unnamed thread with no core is taken for one a kernel spawned while another
        // test's core runs (see `spawned_thread`).
        std::thread::Builder::new()
            .name("ctx-test".into())
            .spawn(|| {
                assert!(CURRENT.with(Cell::get).is_null());
                assert_eq!(current_block_idx(), 0);
                check_cancel();
                assert!(CURRENT.with(Cell::get).is_null());
                assert_eq!(get_block_num(), 1);
                assert!(!CURRENT.with(Cell::get).is_null());
            })
            .unwrap()
            .join()
            .unwrap();
    }

    /// A cancelled launch fails the core's next API call with the token's reason.
    #[test]
    fn a_cancelled_core_fails_its_next_call() {
        let token = Arc::new(CancelToken::new());
        let c = CoreConfig { cancel: Some(Arc::clone(&token)), ..CoreConfig::single(Soc::Ascend910B) };
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_on_core(c, || {
                assert_eq!(get_block_idx(), 0);
                token.cancel("timed out after 1 s".to_string());
                get_block_idx()
            })
        }));
        let msg = *r.unwrap_err().downcast::<String>().unwrap();
        assert!(msg.contains("Launch: timed out after 1 s"), "{msg}");
    }
}
