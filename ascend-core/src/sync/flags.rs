//! The flags and barriers between one core's pipes (`SetFlag`/`WaitFlag`, `PipeBarrier`),
//! the per-core event state, and the vocabulary (`pipe_t`, `HardEvent`); see the
//! [`sync`](crate::sync) module for the model.

#![allow(non_camel_case_types)]

use crate::kernel::ctx::with_core;
use crate::kernel::error::{ensure_at, fail, fail_at};
use crate::sync::pipe::TPipe;
use crate::soc::Soc;
use core::panic::Location;

/// The pipes of an AI core (AscendC `pipe_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum pipe_t {
    /// The scalar unit (`GetValue`/`SetValue`, scalar arithmetic).
    PIPE_S = 0,
    /// The vector unit.
    PIPE_V = 1,
    /// The cube unit (matrix multiply).
    PIPE_M = 2,
    /// L1 → L0A/L0B moves.
    PIPE_MTE1 = 3,
    /// GM → UB / L1 moves (`DataCopy` in).
    PIPE_MTE2 = 4,
    /// UB → GM moves (`DataCopy` out).
    PIPE_MTE3 = 5,
    /// L0C → GM / L1 moves (fixpipe).
    PIPE_FIX = 6,
    /// Every pipe (only as the argument of `PipeBarrier`).
    PIPE_ALL = 7,
}

/// Number of real pipes (everything but `PIPE_ALL`).
pub const PIPE_NUM: usize = 7;

impl pipe_t {
    /// The pipe's name without the `PIPE_` prefix, as HardEvent names spell it.
    pub const fn short_name(self) -> &'static str {
        match self {
            pipe_t::PIPE_S => "S",
            pipe_t::PIPE_V => "V",
            pipe_t::PIPE_M => "M",
            pipe_t::PIPE_MTE1 => "MTE1",
            pipe_t::PIPE_MTE2 => "MTE2",
            pipe_t::PIPE_MTE3 => "MTE3",
            pipe_t::PIPE_FIX => "FIX",
            pipe_t::PIPE_ALL => "ALL",
        }
    }
}

impl core::fmt::Display for pipe_t {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(self, f)
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A marker type standing for a pipe in `pipe_barrier::<PIPE_V>()` (AscendC's template
/// argument `PipeBarrier<PIPE_V>()`).
pub trait PipeKind: sealed::Sealed {
    /// The pipe.
    const PIPE: pipe_t;
}

macro_rules! pipe_markers {
    ($($name:ident),*) => {$(
        #[doc = concat!("`", stringify!($name), "` as a type argument of [`pipe_barrier`].")]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name;
        impl sealed::Sealed for $name {}
        impl PipeKind for $name {
            const PIPE: pipe_t = pipe_t::$name;
        }
    )*};
}
pipe_markers!(PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_FIX, PIPE_ALL);

/// A hardware event as a value: the source pipe that sets it and the destination pipe that
/// waits for it (AscendC `HardEvent`, whose names are `SRC_DST`). As type arguments, use the
/// marker types of the [`HardEvent`](mod@HardEvent) module: `set_flag::<HardEvent::MTE2_V>(id)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HardEventKind {
    /// Index in AscendC's `HardEvent` enumeration.
    pub index: u8,
    /// The pipe whose earlier instructions the event waits for.
    pub src: pipe_t,
    /// The pipe that waits.
    pub dst: pipe_t,
    /// AscendC's name (`"MTE2_V"`).
    pub name: &'static str,
}

impl core::fmt::Display for HardEventKind {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "HardEvent::{}", self.name)
    }
}

/// A marker type standing for a [`HardEventKind`] in a type argument.
pub trait Event: sealed::Sealed {
    /// The event.
    const EVENT: HardEventKind;
}

macro_rules! hard_events {
    ($($idx:literal $name:ident = $src:ident => $dst:ident),* $(,)?) => {
        /// The hardware events, as marker types named like AscendC's `HardEvent` values
        /// (`HardEvent::MTE2_V`): each is an [`Event`].
        #[allow(non_snake_case)]
        pub mod HardEvent {
            use super::{pipe_t, sealed, Event, HardEventKind};
            $(
                #[doc = concat!("`HardEvent::", stringify!($name), "`: `", stringify!($dst),
                    "` waits for the `", stringify!($src), "` instructions issued before the flag.")]
                #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
                pub struct $name;
                impl sealed::Sealed for $name {}
                impl Event for $name {
                    const EVENT: HardEventKind = HardEventKind {
                        index: $idx,
                        src: pipe_t::$src,
                        dst: pipe_t::$dst,
                        name: stringify!($name),
                    };
                }
            )*
        }

        /// Every hardware event of the Atlas A2 / 300I / 200I chips, in AscendC's order.
        pub const HARD_EVENTS: [HardEventKind; EVENT_NUM] = [$(
            <HardEvent::$name as Event>::EVENT,
        )*];
    };
}

/// Number of hardware events (AscendC `HardEvent::MAX`).
pub const EVENT_NUM: usize = 35;

hard_events! {
    0 MTE2_MTE1 = PIPE_MTE2 => PIPE_MTE1,
    1 MTE1_MTE2 = PIPE_MTE1 => PIPE_MTE2,
    2 MTE1_M = PIPE_MTE1 => PIPE_M,
    3 M_MTE1 = PIPE_M => PIPE_MTE1,
    4 MTE2_V = PIPE_MTE2 => PIPE_V,
    5 V_MTE2 = PIPE_V => PIPE_MTE2,
    6 MTE3_V = PIPE_MTE3 => PIPE_V,
    7 V_MTE3 = PIPE_V => PIPE_MTE3,
    8 M_V = PIPE_M => PIPE_V,
    9 V_M = PIPE_V => PIPE_M,
    10 V_V = PIPE_V => PIPE_V,
    11 MTE3_MTE1 = PIPE_MTE3 => PIPE_MTE1,
    12 MTE1_MTE3 = PIPE_MTE1 => PIPE_MTE3,
    13 MTE1_V = PIPE_MTE1 => PIPE_V,
    14 MTE2_M = PIPE_MTE2 => PIPE_M,
    15 M_MTE2 = PIPE_M => PIPE_MTE2,
    16 V_MTE1 = PIPE_V => PIPE_MTE1,
    17 M_FIX = PIPE_M => PIPE_FIX,
    18 FIX_M = PIPE_FIX => PIPE_M,
    19 MTE3_MTE2 = PIPE_MTE3 => PIPE_MTE2,
    20 MTE2_MTE3 = PIPE_MTE2 => PIPE_MTE3,
    21 S_V = PIPE_S => PIPE_V,
    22 V_S = PIPE_V => PIPE_S,
    23 S_MTE2 = PIPE_S => PIPE_MTE2,
    24 MTE2_S = PIPE_MTE2 => PIPE_S,
    25 S_MTE3 = PIPE_S => PIPE_MTE3,
    26 MTE3_S = PIPE_MTE3 => PIPE_S,
    27 MTE2_FIX = PIPE_MTE2 => PIPE_FIX,
    28 FIX_MTE2 = PIPE_FIX => PIPE_MTE2,
    29 FIX_S = PIPE_FIX => PIPE_S,
    30 M_S = PIPE_M => PIPE_S,
    31 FIX_MTE3 = PIPE_FIX => PIPE_MTE3,
    32 MTE1_FIX = PIPE_MTE1 => PIPE_FIX,
    33 FIX_MTE1 = PIPE_FIX => PIPE_MTE1,
    34 FIX_FIX = PIPE_FIX => PIPE_FIX,
}

impl HardEventKind {
    /// The event from `src` to `dst`, if the chips have one.
    pub fn between(src: pipe_t, dst: pipe_t) -> Option<HardEventKind> {
        HARD_EVENTS.iter().copied().find(|e| e.src == src && e.dst == dst)
    }
}

/// An event id (AscendC `TEventID` / `event_t`).
pub type TEventID = i32;

/// Event id 0 (AscendC `EVENT_ID0` of `event_t`).
pub const EVENT_ID0: TEventID = 0;
/// Event id 1 (AscendC `EVENT_ID1`).
pub const EVENT_ID1: TEventID = 1;
/// Event id 2 (AscendC `EVENT_ID2`).
pub const EVENT_ID2: TEventID = 2;
/// Event id 3 (AscendC `EVENT_ID3`).
pub const EVENT_ID3: TEventID = 3;
/// Event id 4 (AscendC `EVENT_ID4`; not on Ascend910, which has 4 ids per event).
pub const EVENT_ID4: TEventID = 4;
/// Event id 5 (AscendC `EVENT_ID5`; not on Ascend910).
pub const EVENT_ID5: TEventID = 5;
/// Event id 6 (AscendC `EVENT_ID6`; not on Ascend910).
pub const EVENT_ID6: TEventID = 6;
/// Event id 7 (AscendC `EVENT_ID7`; not on Ascend910).
pub const EVENT_ID7: TEventID = 7;

/// Event ids per hardware event (AscendC `QUE_MAX_EVENT`): 4 on Ascend910 (arch 1001), 8 on
/// the other chips.
pub const fn que_max_event(soc: Soc) -> usize {
    match soc {
        Soc::Ascend910 => 4,
        _ => 8,
    }
}

/// Per-core state of the events: which ids of each event are allocated from the pipe and
/// which flags are set and not yet waited for.
pub(crate) struct SyncState {
    /// Allocated ids per event (bit `i` = id `i`).
    occupied: [u8; EVENT_NUM],
    /// Set and not yet waited flags per event, and where each was set.
    set: [u8; EVENT_NUM],
    set_at: Vec<(usize, i32, &'static core::panic::Location<'static>)>,
}

impl SyncState {
    pub(crate) fn new() -> SyncState {
        SyncState { occupied: [0; EVENT_NUM], set: [0; EVENT_NUM], set_at: Vec::new() }
    }

    /// Flags set and never waited for, with the place each was set.
    pub(crate) fn pending(&self) -> Vec<(HardEventKind, i32, &'static core::panic::Location<'static>)> {
        self.set_at.iter().map(|&(e, id, loc)| (HARD_EVENTS[e], id, loc)).collect()
    }
}

fn check_id(
    api: &'static str,
    e: HardEventKind,
    id: TEventID,
    soc: Soc,
    loc: &'static Location<'static>,
) -> usize {
    let max = que_max_event(soc);
    ensure_at(id >= 0 && (id as usize) < max, api, loc, || {
        format!("eventID = {id} of {e} is out of range [0, {max}) on {soc}")
    });
    id as usize
}

/// Sets the flag `id` of event `E` (AscendC `SetFlag<HardEvent::X_Y>(id)`): it fires once every
/// instruction issued to pipe `X` before it has finished.
///
/// ```
/// use ascend_core::prelude::*;
/// set_flag::<HardEvent::MTE2_V>(0);
/// wait_flag::<HardEvent::MTE2_V>(0);
/// ```
///
/// # Panics
/// Panics if `id` is outside `[0, QUE_MAX_EVENT)` (8; 4 on Ascend910) or the flag is already
/// set and not yet waited for (the hardware would lose one of the two signals).
#[track_caller]
pub fn set_flag<E: Event>(id: TEventID) {
    set_flag_event(E::EVENT, id)
}

/// [`set_flag`] with the event as a value.
///
/// # Panics
/// As [`set_flag`].
#[track_caller]
pub fn set_flag_event(e: HardEventKind, id: TEventID) {
    let api = "SetFlag";
    let loc = Location::caller();
    with_core(|c| {
        let i = check_id(api, e, id, c.soc, loc);
        let mut s = c.sync.borrow_mut();
        if s.set[e.index as usize] & (1 << i) != 0 {
            let prev = s.set_at.iter().find(|p| p.0 == e.index as usize && p.1 == id).map(|p| p.2);
            drop(s);
            fail_at(
                api,
                format!(
                    "{e} id {id} is set twice without a WaitFlag in between (first set at {}): the hardware \
                     would lose a signal and the waiting pipe would run ahead or hang",
                    prev.map_or("?".into(), |l| format!("{}:{}", l.file(), l.line()))
                ),
                loc,
            );
        }
        s.set[e.index as usize] |= 1 << i;
        s.set_at.push((e.index as usize, id, loc));
    });
    crate::observe::events::on_set_flag(e, id);
}

/// Waits for the flag `id` of event `E` (AscendC `WaitFlag<HardEvent::X_Y>(id)`): pipe `Y`
/// holds until the flag fires, and the flag is consumed.
///
/// # Panics
/// Panics if `id` is out of range or the flag was not set (on the hardware the pipe would
/// wait forever).
#[track_caller]
pub fn wait_flag<E: Event>(id: TEventID) {
    wait_flag_event(E::EVENT, id)
}

/// [`wait_flag`] with the event as a value.
///
/// # Panics
/// As [`wait_flag`].
#[track_caller]
pub fn wait_flag_event(e: HardEventKind, id: TEventID) {
    let api = "WaitFlag";
    let loc = Location::caller();
    with_core(|c| {
        let i = check_id(api, e, id, c.soc, loc);
        let mut s = c.sync.borrow_mut();
        if s.set[e.index as usize] & (1 << i) == 0 {
            drop(s);
            fail_at(
                api,
                format!(
                    "{e} id {id} was never set (or was already waited for): pipe {} would wait forever; add \
                     SetFlag<{e}>({id}) after the {} instructions it must wait for",
                    e.dst, e.src
                ),
                loc,
            );
        }
        s.set[e.index as usize] &= !(1 << i);
        if let Some(p) = s.set_at.iter().position(|p| p.0 == e.index as usize && p.1 == id) {
            s.set_at.swap_remove(p);
        }
    });
    crate::observe::events::on_wait_flag(e, id);
}

/// Orders pipe `P` (AscendC `PipeBarrier<PIPE_X>()`): its later instructions start after its
/// earlier ones finish; `PIPE_ALL` waits for every pipe.
///
/// A pipe starts its instructions in program order but need not finish them in order: two
/// copies of MTE2 into overlapping UB bytes, or of MTE3 into overlapping GM bytes, need
/// `PipeBarrier<PIPE_MTE2>` / `<PIPE_MTE3>` between them (the sanitizer reports it missing),
/// and so do two dependent vector instructions in a kernel built without the compiler's
/// automatic synchronisation (`Launch::auto_sync(false)`; with it, the compiler inserts
/// `PipeBarrier<PIPE_V>`).
///
/// # Panics
/// Panics if the launch was cancelled (`Launch::timeout`): a core looping on barriers stops.
#[track_caller]
pub fn pipe_barrier<P: PipeKind>() {
    crate::kernel::ctx::check_cancel();
    crate::observe::events::on_pipe_barrier(P::PIPE);
}

/// Initialises the core's control state (AscendC `InitSocState`): normal mask mode and a full
/// mask register.
pub fn init_soc_state() {
    crate::vector::engine::restore_mask_defaults();
}

impl TPipe {
    /// The lowest id of event `E` not allocated from this pipe, without allocating it (AscendC
    /// `TPipe::FetchEventID<evt>()`).
    ///
    /// # Panics
    /// Panics if every id of `E` is allocated.
    #[track_caller]
    pub fn fetch_event_id<E: Event>(&self) -> TEventID {
        self.fetch_event_id_of(E::EVENT)
    }

    /// [`fetch_event_id`](Self::fetch_event_id) with the event as a value.
    ///
    /// # Panics
    /// As [`fetch_event_id`](Self::fetch_event_id).
    #[track_caller]
    pub fn fetch_event_id_of(&self, e: HardEventKind) -> TEventID {
        let loc = Location::caller();
        with_core(|c| {
            first_free("TPipe::FetchEventID", e, c.sync.borrow().occupied[e.index as usize], c.soc, loc)
        })
    }

    /// Allocates the lowest free id of event `E` (AscendC `TPipe::AllocEventID<evt>()`);
    /// give it back with [`release_event_id`](Self::release_event_id).
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let a = pipe.alloc_event_id::<HardEvent::V_S>();
    /// let b = pipe.alloc_event_id::<HardEvent::V_S>();
    /// assert_eq!((a, b), (0, 1));
    /// pipe.release_event_id::<HardEvent::V_S>(a);
    /// assert_eq!(pipe.fetch_event_id::<HardEvent::V_S>(), 0);
    /// ```
    ///
    /// # Panics
    /// Panics if every id of `E` is allocated (8; 4 on Ascend910).
    #[track_caller]
    pub fn alloc_event_id<E: Event>(&mut self) -> TEventID {
        let e = E::EVENT;
        let loc = Location::caller();
        with_core(|c| {
            let mut s = c.sync.borrow_mut();
            let id = first_free("TPipe::AllocEventID", e, s.occupied[e.index as usize], c.soc, loc);
            s.occupied[e.index as usize] |= 1 << id;
            id
        })
    }

    /// Returns id `id` of event `E` to the pipe (AscendC `TPipe::ReleaseEventID<evt>(id)`).
    ///
    /// # Panics
    /// Panics if `id` is out of range or was not allocated.
    #[track_caller]
    pub fn release_event_id<E: Event>(&mut self, id: TEventID) {
        let e = E::EVENT;
        let api = "TPipe::ReleaseEventID";
        let loc = Location::caller();
        with_core(|c| {
            let i = check_id(api, e, id, c.soc, loc);
            let mut s = c.sync.borrow_mut();
            let occ = s.occupied[e.index as usize];
            ensure_at(occ & (1 << i) != 0, api, loc, || format!("{e} id {id} is not allocated"));
            s.occupied[e.index as usize] = occ & !(1 << i);
        })
    }

    /// What the vendor's `TPipe::Destroy` does with the `M_MTE1` ids its `Init` set (see
    /// [`MATMUL_M_MTE1_IDS`](crate::pipe::MATMUL_M_MTE1_IDS)): waits for each and releases
    /// it. Fails if the kernel consumed one without setting it again (the destructor's
    /// `WaitFlag` would wait forever).
    pub(crate) fn release_matmul_events(&mut self) {
        let e = <HardEvent::M_MTE1 as Event>::EVENT;
        for id in crate::sync::pipe::MATMUL_M_MTE1_IDS {
            let (set, soc) = with_core(|c| (c.sync.borrow().set[e.index as usize] & (1 << id) != 0, c.soc));
            if !set {
                fail(
                    "TPipe::Destroy",
                    format!(
                        "{e} id {id} is not set when the TPipe is destroyed: on {soc} the TPipe sets ids 0, 1 and 2 of \
                         {e} when it is created (for the matmul framework) and its destructor waits for each, so \
                         MTE1 would wait forever; a kernel that waits for one of them must set it again"
                    ),
                );
            }
            wait_flag_event(e, id);
            let occupied = with_core(|c| c.sync.borrow().occupied[e.index as usize] & (1 << id) != 0);
            if occupied {
                self.release_event_id::<HardEvent::M_MTE1>(id);
            }
        }
    }
}

/// The lowest id of `e` not allocated on the current core (`GetTPipePtr()->FetchEventID(e)`
/// inside the vendor's primitives).
#[track_caller]
pub(crate) fn fetch_free_event(api: &'static str, e: HardEventKind) -> TEventID {
    let loc = Location::caller();
    with_core(|c| first_free(api, e, c.sync.borrow().occupied[e.index as usize], c.soc, loc))
}

fn first_free(
    api: &'static str,
    e: HardEventKind,
    occupied: u8,
    soc: Soc,
    loc: &'static Location<'static>,
) -> TEventID {
    let max = que_max_event(soc);
    let id = occupied.trailing_ones() as usize;
    if id >= max {
        fail_at(
            api,
            format!("all {max} ids of {e} are allocated on {soc}; release one with ReleaseEventID first"),
            loc,
        );
    }
    id as TEventID
}
