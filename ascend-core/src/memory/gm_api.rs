//! Global-memory helpers and core synchronisation: `InitGlobalMemory`,
//! `DataCacheCleanAndInvalid`, the `SyncAll` forms and `SetPadValue`.

use crate::element::{f16, Element, BLOCK_BYTES};
use crate::kernel::ctx::with_core;
use crate::kernel::error::{ensure, fail};
use crate::memory::copy::{copy_params_as, pad_to_gm_as, DataCopyExtParams, DataCopyParams};
use crate::memory::tensor::{GlobalTensor, GmAddr, LocalTensor};
use crate::position::TPosition;
use crate::soc::Soc;
use crate::sync::cross_core::sync_all;
use crate::sync::group_barrier::GROUP_BARRIER_UB_BYTES;
use crate::sync::{
    event::{Event, HardEvent, PIPE_MTE3},
    flags::{pipe_barrier, set_flag_event, wait_flag_event},
};
use crate::vector::duplicate::{duplicate_as, DuplicateElement};

mod sealed {
    pub trait Sealed {}
}

/// An element type `InitGlobalMemory` accepts (`uint16_t`, `int16_t`, `half`, `float`,
/// `uint32_t`, `int32_t`, as the vendor's header notes); others do not compile:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// init_global_memory(&GlobalTensor::<u8>::new(), 0, 0u8);
/// ```
pub trait InitGlobalMemoryElement: DuplicateElement + sealed::Sealed {}
macro_rules! init_types {
    ($($t:ty),*) => {$( impl sealed::Sealed for $t {} impl InitGlobalMemoryElement for $t {} )*};
}
init_types!(u16, i16, f16, f32, u32, i32);

/// The most bytes one `InitGlobalMemory` burst fills and copies: 255 repeats of 256 bytes
/// (`MAX_REPEAT_TIMES * MAX_REPEAT_LEN`).
const MAX_BURST_BYTES: usize = 255 * 256;

/// Fills the first `size` elements of `gm` with `value` (AscendC
/// `InitGlobalMemory(gmWorkspaceAddr, size, value)`), as the vendor's implementation does it:
///
/// 1. its scratch is the Unified Buffer after the core's `TPipe` buffers (`PopStackBuffer`):
///    from the pipe's end to the UB's end (less the 64-byte `KfcMsg` slot on Ascend910B), at
///    most 65,280 bytes;
/// 2. `Duplicate` of `value` over the scratch (pipe V; the bytes really change);
/// 3. `SetFlag`/`WaitFlag<HardEvent::V_MTE3>` with an id from `FetchEventID`;
/// 4. copies of the scratch to GM (pipe MTE3), one per scratch-full and one for the rest:
///    `DataCopyPad` on Ascend910B; on Ascend310P `DataCopy` of the whole 32-byte blocks and
///    `GlobalTensor::SetValue` (pipe S, through the data cache) of a last partial block's
///    elements;
/// 5. `PipeBarrier<PIPE_MTE3>`.
///
/// The copies are DMA writes, so the core's atomic mode applies: under `set_atomic_add` they
/// add `value` instead — except the elements Ascend310P writes with `SetValue`, which are
/// overwritten. Nothing orders V after the copies' reads of the scratch, so a second
/// `InitGlobalMemory` (or any vector write of those bytes) needs
/// `SetFlag`/`WaitFlag<HardEvent::MTE3_V>` first, or it may overwrite the scratch while the
/// first one's copies still read it; the sanitizer reports it. Nothing orders MTE2 after the
/// copies either: reading the filled bytes back needs `HardEvent::MTE3_MTE2`.
///
/// Across cores, every core filling the same bytes with the same value (not atomically) is no
/// race: the bytes end up the same whichever lands last. Any other access of them by another
/// core needs `sync_all` in between (the vendor's first constraint). The usual pattern is to
/// clear an output on every core, `sync_all`, then accumulate into it atomically.
///
/// The vendor's page also says to call it before `InitBuffer` only; its implementation takes
/// the bytes after the pipe's buffers, and its own `group_barrier` example calls it after
/// `InitBuffer`, so that is not checked.
///
/// ```
/// use ascend_core::prelude::*;
/// let region = GmRegion::zeroed(10 * 4);
/// let mut gm = GlobalTensor::<f32>::new();
/// gm.set_global_buffer(region.addr(), 10);
/// let mut pipe = TPipe::new();
/// let mut buf = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut buf, 256);
/// init_global_memory(&gm, 7, 2.5f32);
/// assert_eq!((gm.get_value(6), gm.get_value(7)), (2.5, 0.0));
/// // the scratch starts where the pipe's buffers end
/// assert_eq!(LocalTensor::<f32>::new(TPosition::VECCALC, 256, 8).get_value(0), 2.5);
/// ```
///
/// # Panics
/// Panics if the chip is not Ascend910B or Ascend310P (the vendor implements it for those
/// two of our four), `gm` is unbound, `size > gm.get_size()`, the core has no `TPipe`, the
/// pipe's buffers leave no scratch, or the scratch would overwrite the last 1600 bytes of a
/// live `GroupBarrier` of the core (the barrier's messages would carry `value`).
#[track_caller]
pub fn init_global_memory<T: InitGlobalMemoryElement>(gm: &GlobalTensor<T>, size: usize, value: T) {
    let api = "InitGlobalMemory";
    let soc = crate::kernel::ctx::get_soc();
    ensure(matches!(soc, Soc::Ascend910B | Soc::Ascend310P), api, || {
        format!(
            "not supported on {soc} ({}): the vendor implements it for Ascend910B and Ascend310P",
            soc.product_line()
        )
    });
    fill_as(api, gm, size, value);
}

/// Fills the first `size` elements of `gm` with `value` (AscendC `Fill(gmWorkspaceAddr, size,
/// value)`, the name the vendor's public header `adv_api/utils/init_global_memory.h` gives
/// [`init_global_memory`]): the same implementation, step by step, on Ascend910B and
/// Ascend310P. On the other chips the vendor's header compiles it to an empty function, which
/// would leave the memory as it was without a word; here that is an error.
///
/// ```
/// use ascend_core::prelude::*;
/// let region = GmRegion::zeroed(16 * 2);
/// let mut gm = GlobalTensor::<i16>::new();
/// gm.set_global_buffer(region.addr(), 16);
/// let _pipe = TPipe::new();
/// fill(&gm, 16, -7i16);
/// assert_eq!((gm.get_value(0), gm.get_value(15)), (-7, -7));
/// ```
///
/// # Panics
/// As [`init_global_memory`] (naming `Fill`); on Ascend910 and Ascend310B, where the vendor's
/// `Fill` does nothing.
#[track_caller]
pub fn fill<T: InitGlobalMemoryElement>(gm: &GlobalTensor<T>, size: usize, value: T) {
    let api = "Fill";
    let soc = crate::kernel::ctx::get_soc();
    ensure(matches!(soc, Soc::Ascend910B | Soc::Ascend310P), api, || {
        format!(
            "does nothing on {soc} ({}): the vendor's header compiles Fill to an empty function there, so the \
             memory would keep its old contents; it fills on Ascend910B and Ascend310P",
            soc.product_line()
        )
    });
    fill_as(api, gm, size, value);
}

/// The vendor's `InitGlobalMemoryImpl`, behind [`init_global_memory`] and [`fill`]; `api`
/// names the caller in errors and for the sanitizer. The chip is checked.
#[track_caller]
fn fill_as<T: InitGlobalMemoryElement>(api: &'static str, gm: &GlobalTensor<T>, size: usize, value: T) {
    let soc = crate::kernel::ctx::get_soc();
    gm.base_ptr(api); // fails when `gm` is unbound
    ensure(size <= gm.get_size(), api, || {
        format!("size = {size} exceeds the GlobalTensor's {} {} elements", gm.get_size(), T::DTYPE)
    });
    let (que_end, stack) = crate::adv::stack_bytes(api, "the scratch");
    let (barriers, ub_size) = with_core(|c| (c.group_barriers.get(), c.ub.size()));
    let pop_size = (stack / T::SIZE).min(MAX_BURST_BYTES / T::SIZE);
    let pop_end = que_end + pop_size * T::SIZE;
    let barrier_at = ub_size - GROUP_BARRIER_UB_BYTES;
    ensure(barriers == 0 || pop_end <= barrier_at, api, || {
        format!(
            "the scratch UB [{que_end}, {pop_end}) overlaps the last {GROUP_BARRIER_UB_BYTES} bytes [{barrier_at}, \
             {ub_size}) that a GroupBarrier of this core occupies: its messages would carry {value:?} instead of 1; \
             give the pipe's buffers less room"
        )
    });
    let pop = LocalTensor::<T>::new(TPosition::VECCALC, que_end, pop_size);
    crate::observe::events::on_fill(api, core::panic::Location::caller(), fill_pattern(value));
    duplicate_as(api, &pop, value, pop_size);
    let e = <HardEvent::V_MTE3 as Event>::EVENT;
    let id = crate::sync::flags::fetch_free_event("TPipe::FetchEventID", e);
    set_flag_event(e, id);
    wait_flag_event(e, id);
    let (round, tail) = (size / pop_size, size % pop_size);
    let round_size = if round != 0 { pop_size } else { 0 };
    // (offset, elements) of each copy: the scratch-fulls, then the rest.
    let copies = (0..round)
        .map(|i| (i * round_size, round_size))
        .chain((tail != 0).then_some((round * round_size, tail)));
    for (off, n) in copies {
        let bytes = n * T::SIZE;
        if soc == Soc::Ascend910B {
            pad_to_gm_as(api, &gm.view(off), &pop, &DataCopyExtParams::new(1, bytes as u32, 0, 0));
        } else {
            // Whole blocks by DataCopy, the elements of a partial last block by SetValue (a
            // scratch-full is whole blocks: the scratch's bounds are 32-byte aligned).
            let aligned = bytes / BLOCK_BYTES * BLOCK_BYTES;
            let blocks = DataCopyParams::new(1, (aligned / BLOCK_BYTES) as u16, 0, 0);
            copy_params_as(api, &gm.view(off), &pop, &blocks);
            for i in off + aligned / T::SIZE..off + n {
                gm.set_value(i, value);
            }
        }
    }
    pipe_barrier::<PIPE_MTE3>();
}

/// The bytes `value` repeats in global memory, for the sanitizer: its bits and size, or (when
/// its bytes are all equal, as zero's are) that byte and size 1 — so that two fills compare
/// equal exactly when they write the same bytes at every address (a `GlobalTensor<T>` starts
/// on a multiple of `T`'s size in its region).
fn fill_pattern<T: Element>(value: T) -> u64 {
    let b = bytemuck::bytes_of(&value);
    if b.iter().all(|&x| x == b[0]) {
        u64::from(b[0]) | 1 << 56
    } else {
        let mut bits = [0u8; 8];
        bits[..b.len()].copy_from_slice(b);
        u64::from_le_bytes(bits) | (b.len() as u64) << 56
    }
}

/// The `entireType` of [`data_cache_clean_and_invalid`] (AscendC `CacheLine`).
pub trait CacheLine: sealed::Sealed {
    #[doc(hidden)]
    const ENTIRE: bool;
}
/// `CacheLine::SINGLE_CACHE_LINE`: the 64-byte cache line holding the address, from the
/// address to the line's end.
#[derive(Clone, Copy, Debug, Default)]
pub struct SingleCacheLine;
/// `CacheLine::ENTIRE_DATA_CACHE`: the whole data cache.
#[derive(Clone, Copy, Debug, Default)]
pub struct EntireDataCache;
impl sealed::Sealed for SingleCacheLine {}
impl sealed::Sealed for EntireDataCache {}
impl CacheLine for SingleCacheLine {
    const ENTIRE: bool = false;
}
impl CacheLine for EntireDataCache {
    const ENTIRE: bool = true;
}

/// The sanitizer's part of a `DataCacheCleanAndInvalid` towards GM of `dst` (see
/// `sanitizer::on_dcci`).
fn dcci_gm<T: Element, E: CacheLine>(dst: &GlobalTensor<T>) {
    crate::observe::events::on_dcci(if E::ENTIRE { None } else { Some(dst.san_loc()) });
}

/// The `dcciDst` of [`data_cache_clean_and_invalid`] (AscendC `DcciDst`).
pub trait DcciDst: sealed::Sealed {
    #[doc(hidden)]
    const NAME: &'static str;
    /// Whether it keeps the data cache coherent with GM (not `CACHELINE_UB`).
    #[doc(hidden)]
    const TO_GM: bool;
}
macro_rules! dcci_dst {
    ($($(#[$d:meta])* $name:ident => $s:literal, $gm:literal),*) => {$(
        $(#[$d])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $name;
        impl sealed::Sealed for $name {}
        impl DcciDst for $name {
            const NAME: &'static str = $s;
            const TO_GM: bool = $gm;
        }
    )*};
}
dcci_dst! {
    /// `DcciDst::CACHELINE_ALL` (same as `CACHELINE_OUT`).
    CachelineAll => "CACHELINE_ALL", true,
    /// `DcciDst::CACHELINE_UB`: coherence with the Unified Buffer.
    CachelineUb => "CACHELINE_UB", false,
    /// `DcciDst::CACHELINE_OUT`: coherence with GM.
    CachelineOut => "CACHELINE_OUT", true,
    /// `DcciDst::CACHELINE_ATOMIC` (none of the four chips supports it yet).
    CachelineAtomic => "CACHELINE_ATOMIC", false
}

#[track_caller]
fn check_dcci(with_dst: Option<&'static str>) {
    let api = "DataCacheCleanAndInvalid";
    let soc = crate::kernel::ctx::get_soc();
    ensure(soc != Soc::Ascend910, api, || format!("not supported on {soc} ({})", soc.product_line()));
    if let Some(name) = with_dst {
        ensure(soc != Soc::Ascend310P, api, || {
            format!("dcciDst = {name}: {soc} ({}) has only the form without dcciDst", soc.product_line())
        });
        ensure(name != "CACHELINE_ATOMIC", api, || {
            format!("dcciDst = CACHELINE_ATOMIC is not supported on {soc} ({})", soc.product_line())
        });
    }
}

/// Writes back and invalidates the scalar data cache for `dst` (AscendC
/// `DataCacheCleanAndInvalid<T, entireType, dcciDst>(GlobalTensor)`): the 64-byte line
/// holding `dst`'s first element, from that element to the line's end
/// ([`SingleCacheLine`]), or the whole cache ([`EntireDataCache`]). The emulator's scalar
/// accesses go to memory, so this changes no data; the sanitizer models the cache towards GM
/// (`CACHELINE_OUT`, `CACHELINE_ALL`): a `GlobalTensor::set_value` reaches the other cores
/// when its line is cleaned (a flag write, releasing what the core did before), a
/// `GlobalTensor::get_value` of a line just invalidated reads GM (a flag read, acquiring it),
/// any other scalar access is a plain one — so a flag raised without the clean, or polled
/// without the invalidation, is a cross-core race, and so are two cores' scalar writes into
/// one line (each line goes back to GM whole).
///
/// ```
/// use ascend_core::prelude::*;
/// let region = GmRegion::zeroed(64);
/// let mut gm = GlobalTensor::<u64>::new();
/// gm.set_global_buffer(region.addr(), 8);
/// gm.set_value(0, 42);
/// data_cache_clean_and_invalid::<u64, SingleCacheLine, CachelineOut>(&gm);
/// assert_eq!(gm.get_value(0), 42);
/// ```
///
/// # Panics
/// Panics on Ascend910 (not supported), on Ascend310P (only
/// [`data_cache_clean_and_invalid_gm`] there), with [`CachelineAtomic`], or if `dst` is
/// unbound.
#[track_caller]
pub fn data_cache_clean_and_invalid<T: Element, E: CacheLine, D: DcciDst>(dst: &GlobalTensor<T>) {
    check_dcci(Some(D::NAME));
    let _ = dst.base_ptr("DataCacheCleanAndInvalid");
    if D::TO_GM {
        dcci_gm::<T, E>(dst);
    }
}

/// The form without `dcciDst` (AscendC `DataCacheCleanAndInvalid<T, entireType>(GlobalTensor)`),
/// the only one on Ascend310P: towards GM, as [`data_cache_clean_and_invalid`] with
/// [`CachelineOut`].
///
/// ```
/// use ascend_core::prelude::*;
/// let region = GmRegion::zeroed(32);
/// let mut gm = GlobalTensor::<i32>::new();
/// gm.set_global_buffer(region.addr(), 8);
/// data_cache_clean_and_invalid_gm::<i32, EntireDataCache>(&gm);
/// ```
///
/// # Panics
/// Panics on Ascend910 (not supported) or if `dst` is unbound.
#[track_caller]
pub fn data_cache_clean_and_invalid_gm<T: Element, E: CacheLine>(dst: &GlobalTensor<T>) {
    check_dcci(None);
    let _ = dst.base_ptr("DataCacheCleanAndInvalid");
    dcci_gm::<T, E>(dst);
}

/// The Unified Buffer form (AscendC `DataCacheCleanAndInvalid<T, entireType,
/// dcciDst>(LocalTensor)`). No effect on the host.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut ub = LocalMemAllocator::<Ub>::new();
/// let x = ub.alloc::<f32>(8);
/// data_cache_clean_and_invalid_local::<f32, SingleCacheLine, CachelineUb>(&x);
/// ```
///
/// # Panics
/// Panics on Ascend910 or Ascend310P, with [`CachelineAtomic`], or if `dst` is not in the
/// Unified Buffer.
#[track_caller]
pub fn data_cache_clean_and_invalid_local<T: Element, E: CacheLine, D: DcciDst>(dst: &LocalTensor<T>) {
    check_dcci(Some(D::NAME));
    let pos = dst.get_position();
    ensure(pos.is_ub(), "DataCacheCleanAndInvalid", || {
        format!("dst is at position {pos}: the local form takes a VECIN, VECOUT or VECCALC tensor")
    });
}

/// The hardware `SyncAll<isAIVOnly>()`: `IS_AIV_ONLY = true` is [`sync_all`] (every vector
/// core of the launch; in a mixed kernel every core of the caller's type). `IS_AIV_ONLY =
/// false` synchronises every cube and vector core of a mixed kernel (`KernelType::MixAic1_1`
/// / `MixAic1_2`), as the vendor builds it (`SyncAllImpl`, `dav_c220/kernel_operator_sync_impl.h`):
/// each AIV sets flag 12 to its AIC (`CrossCoreSetFlag` mode 2) and waits for flag 13; each
/// AIC waits for its AIVs, meets every AIC (mode 0 on flag 11) and sets flag 13 to its AIVs
/// (mode 2). So every core of the launch arrives before any leaves, and what a core wrote to
/// GM before it is visible (and ordered, for the sanitizer) to every core after it. Flags 11
/// to 14 are `SyncAll`'s: a kernel's own `CrossCoreSetFlag` on them mixes with its rounds,
/// as on the chip. In a kernel that is not mixed the `false` form hangs on the chip (the
/// `SyncAll` page): an error.
///
/// ```
/// use ascend_core::prelude::*;
/// sync_all_with::<true>(); // one core: returns at once
/// ```
///
/// # Panics
/// As [`sync_all`]; with `IS_AIV_ONLY = false` outside a mixed kernel, or in one as
/// [`cross_core_wait_flag`](crate::cross_core::cross_core_wait_flag) (a core that has
/// returned from the kernel, or waits elsewhere, while the others wait in `SyncAll`).
#[track_caller]
pub fn sync_all_with<const IS_AIV_ONLY: bool>() {
    if !IS_AIV_ONLY {
        let kind = with_core(|c| c.kernel_type);
        if kind.is_some_and(|k| k.is_mix()) {
            crate::sync::cross_core::sync_all_mix(false);
            return;
        }
        fail(
            "SyncAll",
            format!(
                "isAIVOnly = false synchronises the cube and vector cores of a mixed kernel; this launch is \
                 KernelType::{:?}, not mixed, where that form hangs on the hardware: use SyncAll<true>()",
                kind.unwrap_or_default()
            ),
        );
    }
    sync_all()
}

/// Elements of the workspaces per core (one 32-byte block of `int32_t`).
const SOFT_SYNC_STRIDE: usize = 8;

/// The software `SyncAll<isAIVOnly>(gmWorkspace, ubWorkspace, usedCores)`: a barrier built on
/// a GM workspace of one 32-byte block per core (zeroed by the host) and a UB workspace of the
/// same size. Each call increments this core's counter, element `8 * get_block_idx()` of both
/// workspaces, then waits for the others (through the launch's barrier, so it needs
/// `Launch::sync_all(true)` with more than one core, as [`sync_all`] does). The other
/// elements of the workspaces are left as they are (the hardware polls them; their contents
/// are not part of the API).
///
/// ```
/// use ascend_core::prelude::*;
/// let region = GmRegion::zeroed(32);
/// let mut ws = GlobalTensor::<i32>::new();
/// ws.set_global_buffer(region.addr(), 8);
/// let mut ub = LocalMemAllocator::<Ub>::new();
/// let flags = ub.alloc::<i32>(8);
/// sync_all_soft::<true>(&ws, &flags, 0);
/// sync_all_soft::<true>(&ws, &flags, 0);
/// assert_eq!(ws.get_value(0), 2);
/// ```
///
/// # Panics
/// Panics on Ascend310B (no software `SyncAll`), if either workspace holds fewer than
/// `8 * get_block_num()` elements, `ub_workspace` is not in the Unified Buffer, `used_cores`
/// is outside `[0, get_block_num()]`, or `used_cores` names a strict subset of the cores
/// (not emulated: the launch barrier spans every core); and as [`sync_all`].
#[track_caller]
pub fn sync_all_soft<const IS_AIV_ONLY: bool>(
    gm_workspace: &GlobalTensor<i32>,
    ub_workspace: &LocalTensor<i32>,
    used_cores: i32,
) {
    let api = "SyncAll";
    let (soc, idx, n, kind) =
        with_core(|c| (c.soc, c.block_idx as usize, c.block_num as usize, c.kernel_type));
    if let Some(k) = kind.filter(|k| k.is_mix()) {
        fail(
            api,
            format!(
                "the software SyncAll(gmWorkspace, ubWorkspace) is not emulated in a mixed kernel (KernelType::{k:?}): \
                 use the hardware SyncAll<false>() (every AIC and AIV) or SyncAll<true>() (the AIVs)"
            ),
        );
    }
    ensure(soc != Soc::Ascend310B, api, || {
        format!(
            "the software SyncAll(gmWorkspace, ubWorkspace) is not supported on {soc} ({})",
            soc.product_line()
        )
    });
    let need = n * SOFT_SYNC_STRIDE;
    ensure(gm_workspace.get_size() >= need, api, || {
        format!(
            "gmWorkspace has {} int32_t elements; {n} cores need at least {need} (32 bytes per core)",
            gm_workspace.get_size()
        )
    });
    ensure(ub_workspace.get_size() >= need, api, || {
        format!(
            "ubWorkspace has {} int32_t elements; {n} cores need at least {need} (32 bytes per core)",
            ub_workspace.get_size()
        )
    });
    let pos = ub_workspace.get_position();
    ensure(pos.is_ub(), api, || {
        format!("ubWorkspace is at position {pos}: it must be VECIN, VECCALC or VECOUT")
    });
    ensure((0..=n as i64).contains(&i64::from(used_cores)), api, || {
        format!("usedCores = {used_cores} is out of range [0, {n}] (0 means every core)")
    });
    ensure(used_cores == 0 || used_cores as usize == n, api, || {
        format!(
            "usedCores = {used_cores} of {n} cores: a barrier over a subset of the cores is not emulated (the \
             launch barrier spans every core)"
        )
    });
    let slot = idx * SOFT_SYNC_STRIDE;
    let count = gm_workspace.get_value(slot).wrapping_add(1);
    gm_workspace.set_value(slot, count);
    ub_workspace.set_value(slot, count);
    sync_all();
}

/// Sets the core's DataCopyPad padding register (AscendC `SetPadValue<T>(paddingValue)`):
/// later GM→UB `data_copy_pad` calls with `is_pad = false` and left or right padding fill
/// the padding with `value`.
///
/// ```
/// use ascend_core::prelude::*;
/// let region = GmRegion::from_bytes(bytemuck::cast_slice(&[1.0f32, 2.0, 3.0]));
/// let mut gm = GlobalTensor::<f32>::new();
/// gm.set_global_buffer(region.addr(), 3);
/// let mut ub = LocalMemAllocator::<Ub>::new();
/// let x = ub.alloc_at::<VecIn, f32>(8);
/// set_pad_value(9.0f32);
/// let pad = DataCopyPadExtParams::new(false, 0, 5, 0.0f32);
/// data_copy_pad(&x, &gm, &DataCopyExtParams::new(1, 12, 0, 0), &pad);
/// assert_eq!(x.to_vec(), [1.0, 2.0, 3.0, 9.0, 9.0, 9.0, 9.0, 9.0]);
/// ```
///
/// # Panics
/// Panics on any chip but Ascend910B (the only one of the four with `SetPadValue`).
#[track_caller]
pub fn set_pad_value<T: Element>(value: T) {
    let soc = crate::kernel::ctx::get_soc();
    ensure(soc == Soc::Ascend910B, "SetPadValue", || {
        format!("not supported on {soc} ({}): SetPadValue needs Ascend910B", soc.product_line())
    });
    crate::memory::copy::load_pad_register(value);
}

/// The memory `DataSyncBarrier` waits for (AscendC `MemDsbT`), as marker types named like its
/// values (`MemDsbT::DDR`): each is a [`MemDsb`].
#[allow(non_snake_case, clippy::upper_case_acronyms)]
pub mod MemDsbT {
    use super::{sealed, MemDsb};
    macro_rules! mem_dsb {
        ($($(#[$d:meta])* $name:ident => $gm:literal),*) => {$(
            $(#[$d])*
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
            pub struct $name;
            impl sealed::Sealed for $name {}
            impl MemDsb for $name { const NAME: &'static str = stringify!($name); const GM: bool = $gm; }
        )*};
    }
    mem_dsb! {
        /// `MemDsbT::ALL`: global memory and the Unified Buffer.
        ALL => true,
        /// `MemDsbT::DDR`: global memory.
        DDR => true,
        /// `MemDsbT::UB`: the Unified Buffer.
        UB => false,
        /// `MemDsbT::SEQ`: the SEQ accesses.
        SEQ => false
    }
}

/// A value of `MemDsbT` (see [`data_sync_barrier`]).
pub trait MemDsb: sealed::Sealed {
    #[doc(hidden)]
    const NAME: &'static str;
    /// Whether it waits for global-memory accesses.
    #[doc(hidden)]
    const GM: bool;
}

/// Holds the core's later instructions until its earlier memory accesses of kind `M` are done
/// (AscendC `DataSyncBarrier<MemDsbT::…>()`): what orders a scalar write of data before the
/// [`write_gm_by_pass_dcache`] of a flag another core polls with [`read_gm_by_pass_dcache`].
/// The emulator's accesses are done when they return; for the sanitizer, a `DDR` or `ALL`
/// barrier makes the core's next flag write release everything before the barrier.
///
/// ```
/// use ascend_core::prelude::*;
/// data_sync_barrier::<MemDsbT::DDR>();
/// ```
///
/// # Panics
/// Panics on Ascend910 and Ascend310P (no `DataSyncBarrier`).
#[track_caller]
pub fn data_sync_barrier<M: MemDsb>() {
    let soc = crate::kernel::ctx::get_soc();
    ensure(matches!(soc, Soc::Ascend910B | Soc::Ascend310B), "DataSyncBarrier", || {
        format!("MemDsbT::{}: not supported on {soc} ({})", M::NAME, soc.product_line())
    });
    std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
    if M::GM {
        crate::observe::events::on_data_sync_barrier();
    }
}

/// An element type of [`read_gm_by_pass_dcache`] and [`write_gm_by_pass_dcache`]: the 8- to
/// 64-bit integers (`int8_t` … `uint64_t`). Others do not compile:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(a: GmAddr) -> f32 { read_gm_by_pass_dcache::<f32>(a) }
/// ```
pub trait ByPassDCacheElement: Element + sealed::Sealed {}
macro_rules! by_pass_types {
    ($($t:ty),*) => {$( impl ByPassDCacheElement for $t {} )*};
}
impl sealed::Sealed for i8 {}
impl sealed::Sealed for u8 {}
impl sealed::Sealed for i64 {}
impl sealed::Sealed for u64 {}
by_pass_types!(i8, u8, i16, u16, i32, u32, i64, u64);

/// The element of `T` at `addr`, checked: the chip (Ascend910B only), alignment, bounds.
#[track_caller]
fn by_pass_elem<T: ByPassDCacheElement>(
    api: &'static str,
    addr: GmAddr,
) -> (std::sync::Arc<crate::memory::tensor::GmRegion>, usize) {
    let soc = crate::kernel::ctx::get_soc();
    ensure(soc == Soc::Ascend910B, api, || format!("not supported on {soc} ({})", soc.product_line()));
    addr.element::<T>(api)
}

/// Reads the element of `T` at `addr` straight from global memory, bypassing the scalar data
/// cache (AscendC `ReadGmByPassDCache<T>(addr)`): how a core polls a flag another core
/// writes with [`write_gm_by_pass_dcache`]. For the sanitizer the read acquires the flag:
/// what the writer did before its `DataSyncBarrier` and flag write happens before what this
/// core does next; flag accesses of two cores through these two calls are not races.
///
/// ```
/// use ascend_core::prelude::*;
/// let region = GmRegion::from_bytes(bytemuck::cast_slice(&[5i32, 6]));
/// assert_eq!(read_gm_by_pass_dcache::<i32>(region.addr().add::<i32>(1)), 6);
/// ```
///
/// # Panics
/// Panics on a chip other than Ascend910B, or if `addr` is not aligned to `T` or has no
/// element of `T` left in its region.
#[track_caller]
pub fn read_gm_by_pass_dcache<T: ByPassDCacheElement>(addr: GmAddr) -> T {
    let api = "ReadGmByPassDCache";
    let (region, off) = by_pass_elem::<T>(api, addr);
    crate::kernel::ctx::check_cancel();
    // SAFETY: `set_global_buffer` checked that an aligned element of `T` lies at `off` inside
    // the live region; an atomic word access, so racing cores see racy values, never UB.
    let v = unsafe { crate::memory::gm_io::load_elem(region.base().add(off).cast::<T>()) };
    std::sync::atomic::fence(std::sync::atomic::Ordering::Acquire);
    // A read that makes the core's flag reads a poll blocks in the hook until another core
    // changes a polled flag (see the sanitizer's `Poll`).
    crate::observe::events::on_by_pass_gm(api, &region, off, off + T::SIZE, Some(&v));
    v
}

/// Writes `value` to the element of `T` at `addr` straight to global memory, bypassing the
/// scalar data cache (AscendC `WriteGmByPassDCache<T>(addr, value)`). After a
/// [`data_sync_barrier`] it publishes the core's earlier accesses to the core that reads the
/// flag with [`read_gm_by_pass_dcache`].
///
/// ```
/// use ascend_core::prelude::*;
/// let region = GmRegion::zeroed(16);
/// write_gm_by_pass_dcache::<u64>(region.addr().add::<u64>(1), 7);
/// assert_eq!(read_gm_by_pass_dcache::<u64>(region.addr().add::<u64>(1)), 7);
/// ```
///
/// # Panics
/// As [`read_gm_by_pass_dcache`].
#[track_caller]
pub fn write_gm_by_pass_dcache<T: ByPassDCacheElement>(addr: GmAddr, value: T) {
    let api = "WriteGmByPassDCache";
    let (region, off) = by_pass_elem::<T>(api, addr);
    crate::kernel::ctx::check_cancel();
    crate::observe::events::on_by_pass_gm::<T>(api, &region, off, off + T::SIZE, None);
    std::sync::atomic::fence(std::sync::atomic::Ordering::Release);
    // SAFETY: as in `read_gm_by_pass_dcache`.
    unsafe { crate::memory::gm_io::store_elem(region.base().add(off).cast::<T>(), value) }
}
