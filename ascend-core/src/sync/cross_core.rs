//! Hardware flags between cores (AscendC `CrossCoreSetFlag<modeId, pipe>(flagId)` and
//! `CrossCoreWaitFlag(flagId)`, Ascend910B).
//!
//! Each core (AIC or AIV) has a counter per flag id (16 of them, counting 0 to 15). A set
//! reports to the scheduler once its pipe's earlier instructions are done; once every core
//! taking part in the set's round has set the flag, the scheduler adds one to the counter of
//! each core the round is for. A wait blocks the core until its counter is not zero, then
//! takes one off (the vendor's `CrossCoreSetFlag` page, "功能说明" and "约束说明"):
//!
//! | `modeId` | who sets (one round) | whose counter goes up | kernel types |
//! | --- | --- | --- | --- |
//! | 0 | every core of the caller's type in the launch (all AIVs, or all AICs) | the same cores | all |
//! | 1 | the AIVs of the caller's block | the same AIVs | `MixAic1_1`, `MixAic1_2` |
//! | 2, on an AIC | the AIC | the AIVs of its block | `MixAic1_1`, `MixAic1_2` |
//! | 2, on an AIV | every AIV of its block | the block's AIC | `MixAic1_1`, `MixAic1_2` |
//!
//! Mode 4 (AIC with one AIV) exists on Ascend 950 only, an error here. The vendor's page lists
//! modes 1 and 2 for mixed kernels only, and so does the emulator; mode 0 also works in the
//! vector-only and cube-only launches (the emulator's `SyncAll` of old kernels relied on it;
//! the page recommends `KERNEL_TYPE_MIX_AIV_1_0`, which behaves as `AivOnly` here). The wait's
//! template arguments do not take effect on Atlas A2 (`CrossCoreWaitFlag` page): a wait
//! takes one off the counter whichever mode's round put it there.
//!
//! **Errors instead of hangs.** The waits block the core (the runtime's default pooled
//! mode and its thread-per-core mode, which mixed launches always get, allow it);
//! a wait no set can satisfy is an error naming the blocked cores, where the chip hangs. A
//! round that would lift a counter to 16 fails the set that completes it ("每一个计数器计数范围为
//! 0-15 ... 超出该范围，则会异常报错"); a kernel that ends with its counter not zero is reported
//! by the sanitizer (the vendor: unpaired calls are undefined behaviour).
//!
//! **The sanitizer.** A set is a release and the wait that consumes its round an acquire, across
//! cores: an AIC that writes GM (`Fixpipe`), sets mode 2, and an AIV that reads the bytes after
//! its wait do not race; without the flag pair they do, and the sanitizer reports it. Within the
//! core, the wait orders what the core issues next after its own set's pipe (modes 0 and 1,
//! where the core's own set is part of the round).

use std::sync::{Arc, Mutex};

use crate::kernel::ctx::{block_until, signal_cores, with_core, CoreType, KernelType, Role};
use crate::kernel::error::{ensure, fail};
use crate::sync::event::{PipeKind, PIPE_FIX, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_V};
use crate::Soc;

use crate::sync::cross_flags::Token;
pub use crate::sync::cross_flags::{CrossFlags, CROSS_CORE_COUNTER_MAX, CROSS_CORE_FLAG_IDS};

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

/// What the current core needs to know about itself for a cross-core call.
struct Me {
    slot: u32,
    total: u32,
    kind: KernelType,
    role: Role,
}

impl Me {
    fn name(&self) -> String {
        if self.kind.is_mix() {
            self.role.name()
        } else {
            format!("core {}", self.slot)
        }
    }
}

/// Checks the chip, the mode (against the kernel type) and the flag id; returns the flag's
/// index and the core.
#[track_caller]
fn check(api: &'static str, mode: u8, flag_id: u16) -> (usize, Me) {
    let (soc, slot, total, kind) = with_core(|c| (c.soc, c.block_idx, c.block_num, c.kernel_type));
    ensure(soc == Soc::Ascend910B, api, || {
        format!("not supported on {soc} ({}); it exists on {}", soc.product_line(), Soc::Ascend910B)
    });
    let kind = kind.unwrap_or_default();
    let role = Role::of(Some(kind), slot, total);
    match mode {
        0 => {}
        1 | 2 if !kind.is_mix() => fail(
            api,
            format!(
                "modeId = {mode} synchronises the vector cores of one AI Core {} in a mixed kernel \
                 (KERNEL_TYPE_MIX_AIC_1_1 / 1_2, KernelType::MixAic1_1 / MixAic1_2); this launch is KernelType::{kind:?}: \
                 use mode 0",
                if mode == 1 { "with each other" } else { "with its cube core" }
            ),
        ),
        1 | 2 => {}
        4 => fail(
            api,
            format!(
                "modeId = 4 is not supported on {soc}: it (the AIC with one AIV) exists on Ascend 950 only; the modes \
                 of {soc} are 0, 1 and 2"
            ),
        ),
        _ => fail(api, format!("modeId = {mode} is not supported on {soc}: its modes are 0, 1 and 2")),
    }
    ensure((flag_id as usize) < CROSS_CORE_FLAG_IDS, api, || {
        format!("flagId = {flag_id} is out of range [0, {})", CROSS_CORE_FLAG_IDS)
    });
    (flag_id as usize, Me { slot, total, kind, role })
}

/// The round a set of `mode` by `me` takes part in: its group's key, the members (by launch
/// index, the caller among them) and the cores whose counters it lifts.
#[track_caller]
fn round_of(api: &'static str, mode: u8, me: &Me) -> (u32, Vec<u32>, Vec<u32>) {
    let k = me.kind;
    let r = &me.role;
    let aivs_of = |b: u32| -> Vec<u32> {
        (0..k.aiv_per_block()).map(|s| Role::slot(k, r.blocks, CoreType::Aiv, b, s)).collect()
    };
    match (mode, r.ty) {
        (0, ty) => {
            let members: Vec<u32> = (0..me.total).filter(|&c| Role::of(Some(k), c, me.total).ty == ty).collect();
            (ty as u32, members.clone(), members)
        }
        (1, CoreType::Aiv) => {
            let m = aivs_of(r.block);
            (r.block, m.clone(), m)
        }
        (1, CoreType::Aic) => fail(
            api,
            format!(
                "modeId = 1 synchronises the AIVs of one AI Core with each other, and {} is a cube core: use mode 2 \
                 (the AIC with its AIVs) or mode 0 (every AIC)",
                me.name()
            ),
        ),
        (_, CoreType::Aic) => {
            (r.block << 1, vec![me.slot], aivs_of(r.block))
        }
        (_, CoreType::Aiv) => (r.block << 1 | 1, aivs_of(r.block), vec![Role::slot(k, r.blocks, CoreType::Aic, r.block, 0)]),
    }
}

/// The sanitizer's synchronisation object of round `round` of `flag` in the group `group` of
/// `mode` (a key no GM address takes: user-space addresses stay below 2^47).
fn round_key(mode: u8, group: u32, flag: u16, round: u32) -> usize {
    1 << 62
        | (mode as usize & 3) << 59
        | (group as usize & 0x7_ffff) << 40
        | (flag as usize & 0xff) << 32
        | round as usize
}

/// The counters of the current core's launch (its own, for a core without a barrier).
fn flags() -> Arc<CrossFlags> {
    with_core(|c| match &c.barrier {
        Some(b) => b.cross_flags(),
        None => Arc::clone(c.cross_own.get_or_init(|| Arc::new(CrossFlags::new(c.block_num)))),
    })
}

/// Signals flag `flag_id` once pipe `P`'s earlier instructions are done (AscendC
/// `CrossCoreSetFlag<modeId, pipe>(flagId)`, Ascend910B). Once every core of the round has
/// set the flag, the counters of the cores the round is for go up by one, releasing one
/// [`cross_core_wait_flag`] of each: in mode 0 every core of the caller's type; in mode 1
/// the AIVs of the caller's block; in mode 2, from the AIC, its AIVs, and from the AIVs (once
/// each has set), their AIC (see the [module](self) documentation).
///
/// ```
/// use ascend_core::prelude::*;
/// // One core: its own set completes the round, so its wait returns at once.
/// cross_core_set_flag::<0, PIPE_MTE3>(3);
/// cross_core_wait_flag(3);
/// ```
///
/// # Panics
/// Panics on a chip other than Ascend910B, with `MODE_ID` other than 0, 1 or 2, with 1 or 2
/// outside a mixed kernel, with 1 on an AIC, with `flag_id >= 16`, when the round would lift
/// a counter above 15, or in a sequential launch of more than one core (the matching waits
/// block, which the pooled and thread-per-core modes allow).
#[track_caller]
pub fn cross_core_set_flag<const MODE_ID: u8, P: CrossCorePipe>(flag_id: u16) {
    set_flag_as::<P>("CrossCoreSetFlag", MODE_ID, flag_id)
}

/// [`cross_core_set_flag`] on behalf of `api` (which its errors name).
#[track_caller]
fn set_flag_as<P: CrossCorePipe>(api: &'static str, mode: u8, flag_id: u16) {
    let (flag, me) = check(api, mode, flag_id);
    let (has_barrier, num) = with_core(|c| (c.barrier.is_some(), c.block_num));
    if !has_barrier && num > 1 {
        fail(
            api,
            format!(
                "this launch of {num} cores cannot block a core, as the matching CrossCoreWaitFlag must: it runs \
                 its cores one after another (sequential mode); launch it in the default pooled mode or with a \
                 thread per core (Launch::sync_all(true))"
            ),
        );
    }
    let (group, members, receivers) = round_of(api, mode, &me);
    let flags = flags();
    // The round this set belongs to: the caller's sets of this group so far.
    let round = {
        let st = flags.lock();
        let pos = members.iter().position(|&m| m == me.slot).unwrap_or(0);
        st.rounds.get(&(mode, group, flag_id)).map_or(0, |r| r.sets.get(pos).copied().unwrap_or(0))
    };
    with_core(|c| {
        let mut l = c.cross.get();
        l.sets[flag] += 1;
        c.cross.set(l);
    });
    let key = round_key(mode, group, flag_id, round);
    crate::observe::events::on_cross_core_set(
        P::PIPE,
        flag_id,
        key,
        receivers.contains(&me.slot),
        members.len(),
    );
    crate::memory::atomic::flush_current_core();
    let mut overflow: Option<String> = None;
    let kind = me.kind;
    let total = me.total;
    signal_cores(|| {
        let mut st = flags.lock();
        let st = &mut *st;
        let pos = members.iter().position(|&m| m == me.slot).unwrap_or(0);
        let rounds = st.rounds.entry((mode, group, flag_id)).or_default();
        if rounds.sets.len() < members.len() {
            rounds.sets.resize(members.len(), 0);
        }
        rounds.sets[pos] += 1;
        let complete = rounds.sets.iter().copied().min().unwrap_or(0);
        while rounds.done < complete {
            let key = round_key(mode, group, flag_id, rounds.done);
            rounds.done += 1;
            for &r in &receivers {
                let q = &mut st.counters[r as usize][flag];
                if q.len() >= CROSS_CORE_COUNTER_MAX && overflow.is_none() {
                    let who = if kind.is_mix() {
                        Role::of(Some(kind), r, total).name()
                    } else {
                        format!("core {r}")
                    };
                    overflow = Some(format!(
                        "flagId = {flag_id} (modeId = {mode}): this set completes a round that lifts the counter of \
                         flag {flag_id} on {who} to {}, above its limit of {CROSS_CORE_COUNTER_MAX}: that core has not \
                         waited (CrossCoreWaitFlag({flag_id})) for the earlier rounds (on the hardware an exception)",
                        q.len() + 1
                    ));
                }
                q.push_back(Token { key, own: members.contains(&r) });
            }
        }
    });
    if let Some(why) = overflow {
        fail(api, why);
    }
}

/// Waits until this core's counter of flag `flag_id` is not zero, then takes one off (AscendC
/// `CrossCoreWaitFlag(flagId)`, Ascend910B): until a round of `CrossCoreSetFlag` for this core
/// has completed (every core of it has set the flag) that no earlier wait took. What the core
/// issues afterwards, on any pipe, comes after what every core's set of the round was ordered
/// after.
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
    cross_core_wait_flag_with::<0, crate::sync::event::PIPE_S>(flag_id)
}

/// [`cross_core_wait_flag`] with AscendC's template arguments (`CrossCoreWaitFlag<modeId,
/// pipe>(flagId)`, by default `<0, PIPE_S>`; on Atlas A2 they do not take effect: the wait
/// blocks every pipe and takes a round of whichever mode).
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
    wait_flag_as("CrossCoreWaitFlag", MODE_ID, flag_id)
}

/// [`cross_core_wait_flag_with`] on behalf of `api` (which its errors name).
#[track_caller]
fn wait_flag_as(api: &'static str, mode: u8, flag_id: u16) {
    let (flag, me) = check(api, mode, flag_id);
    let local = with_core(|c| c.cross.get());
    let round = local.waits[flag];
    let loc = std::panic::Location::caller();
    let name = if me.kind.is_mix() { format!("({}) ", me.role.name()) } else { String::new() };
    let inside = if api == "CrossCoreWaitFlag" {
        format!("CrossCoreWaitFlag({flag_id}) ")
    } else {
        format!("{api} (CrossCoreWaitFlag({flag_id}), flag {flag_id} of {api}'s own) ")
    };
    let what = move || {
        format!(
            "{name}waits in {inside}(at {}:{}) for round {} of the flag, which needs the \
             CrossCoreSetFlag({flag_id}) number {} of every core of its round",
            loc.file(),
            loc.line(),
            round + 1,
            round + 1
        )
    };
    let flags = flags();
    let taken: Arc<Mutex<Option<Token>>> = Arc::default();
    let (f2, t2, slot) = (Arc::clone(&flags), Arc::clone(&taken), me.slot);
    block_until(
        api,
        what,
        Box::new(move || {
            let mut st = f2.lock();
            match st.counters.get_mut(slot as usize).and_then(|c| c[flag].pop_front()) {
                Some(t) => {
                    *t2.lock().unwrap_or_else(|e| e.into_inner()) = Some(t);
                    true
                }
                None => false,
            }
        }),
    );
    with_core(|c| {
        let mut l = c.cross.get();
        l.waits[flag] = round + 1;
        c.cross.set(l);
    });
    let token = taken.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some(t) = token {
        crate::observe::events::on_cross_core_wait(flag_id, t.key, t.own);
    }
}

/// The flag ids the vendor's hardware `SyncAll` takes (`impl/basic_api/dav_c220/kernel_operator_sync_impl.h`:
/// `SYNC_AIC_FLAG = 11`, `SYNC_AIV_FLAG = 12`, `SYNC_AIC_AIV_FLAG = 13`, `SYNC_AIV_ONLY_ALL = 14`;
/// the `SyncAll` page: "flagId占用范围为[11-14]", a kernel that uses them with
/// `CrossCoreSetFlag` as well risks a conflict, here as there).
const SYNC_AIC_FLAG: u16 = 11;
const SYNC_AIV_FLAG: u16 = 12;
const SYNC_AIC_AIV_FLAG: u16 = 13;
const SYNC_AIV_ONLY_ALL: u16 = 14;

/// The hardware `SyncAll<isAIVOnly>()` of a mixed kernel, as the vendor builds it from
/// cross-core flags (`SyncAllImpl`, `dav_c220/kernel_operator_sync_impl.h`):
///
/// - `aiv_only` (`SyncAll<true>`): a mode-0 round on `SYNC_AIV_ONLY_ALL` and its wait: every
///   core of the caller's type (all AIVs; or all AICs when an AIC calls it) meet; the
///   `SyncAll` page: in a mixed kernel this "only completes the vector cores' sync";
/// - otherwise (`SyncAll<false>`): each AIV sets `SYNC_AIV_FLAG` (mode 2, pipe MTE3) and waits
///   for `SYNC_AIC_AIV_FLAG`; each AIC waits for its AIVs (`SYNC_AIV_FLAG`), meets every AIC
///   (mode 0 on `SYNC_AIC_FLAG`, pipe FIX) and releases its AIVs (mode 2 on
///   `SYNC_AIC_AIV_FLAG`, pipe MTE3): every core of the launch has arrived before any leaves.
#[track_caller]
pub(crate) fn sync_all_mix(aiv_only: bool) {
    let api = "SyncAll";
    crate::sync::flags::pipe_barrier::<crate::sync::event::PIPE_ALL>();
    if aiv_only {
        set_flag_as::<PIPE_MTE3>(api, 0, SYNC_AIV_ONLY_ALL);
        wait_flag_as(api, 0, SYNC_AIV_ONLY_ALL);
        return;
    }
    if crate::kernel::ctx::ascend_is_aic() {
        wait_flag_as(api, 0, SYNC_AIV_FLAG);
        set_flag_as::<PIPE_FIX>(api, 0, SYNC_AIC_FLAG);
        wait_flag_as(api, 0, SYNC_AIC_FLAG);
        set_flag_as::<PIPE_MTE3>(api, 2, SYNC_AIC_AIV_FLAG);
    } else {
        set_flag_as::<PIPE_MTE3>(api, 2, SYNC_AIV_FLAG);
        wait_flag_as(api, 0, SYNC_AIC_AIV_FLAG);
    }
}

/// Barrier across all cores of the launch (AscendC `SyncAll`, i.e. `SyncAll<true>()`). In a
/// mixed kernel it is the vendor's `SyncAll<true>` there: a `CrossCoreSetFlag` mode-0 round on
/// flag 14 and its wait, so the cores of the caller's type meet (the AIVs; the AICs if an AIC
/// calls it), not the AICs with the AIVs (the `SyncAll` page: "isAIVOnly设置为true，会导致接口
/// 实际只能完成Vector全核同步"); [`sync_all_with::<false>`](crate::gm_api::sync_all_with) synchronises
/// them all.
///
/// # Panics
/// Panics if the launch has more than one core but no barrier (the runtime's sequential mode,
/// which runs the cores one after another), if another core failed while this one waited, or
/// if a core returned from the kernel without reaching the barrier the others wait in.
#[track_caller]
pub fn sync_all() {
    let (barrier, idx, num, kind) =
        with_core(|c| (c.barrier.clone(), c.block_idx, c.block_num, c.kernel_type));
    if kind.is_some_and(|k| k.is_mix()) {
        // The vendor's SyncAll<true> in a mixed kernel: the cores of the caller's type meet.
        sync_all_mix(true);
        return;
    }
    crate::observe::events::on_sync_all();
    match barrier {
        Some(b) => {
            if let Err(why) = b.wait(idx) {
                fail("SyncAll", why)
            }
        }
        None if num <= 1 => crate::memory::atomic::flush_current(),
        None => fail(
            "SyncAll",
            format!(
                "this launch of {num} cores has no barrier: it runs its cores one after another \
                 (sequential mode), so a core cannot wait for the others; launch kernels that call \
                 SyncAll in the default pooled mode or with a thread per core (Launch::sync_all(true))"
            ),
        ),
    }
}
