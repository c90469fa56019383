//! The vocabulary of one core's synchronisation: the pipes (`pipe_t` and its markers), the
//! hardware events (`HardEvent`) and their ids, and the per-core state of the flags
//! ([`SyncState`], kept in the core's context). A leaf: it imports only the chips, so the
//! kernel layer and the observers can name these types without importing the flags' API.

#![allow(non_camel_case_types)]

use crate::soc::Soc;

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
        #[doc = concat!("`", stringify!($name), "` as a type argument of [`pipe_barrier`](crate::sync::pipe_barrier).")]
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
    pub(crate) occupied: [u8; EVENT_NUM],
    /// Set and not yet waited flags per event, and where each was set.
    pub(crate) set: [u8; EVENT_NUM],
    pub(crate) set_at: Vec<(usize, i32, &'static core::panic::Location<'static>)>,
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
