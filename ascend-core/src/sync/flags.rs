//! The flags and barriers between one core's pipes (`SetFlag`/`WaitFlag`, `PipeBarrier`),
//! the per-core event state, and the vocabulary (`pipe_t`, `HardEvent`); see the
//! [`sync`](crate::sync) module for the model.

use crate::kernel::ctx::with_core;
use crate::kernel::error::{ensure_at, fail, fail_at};
use crate::soc::Soc;
use crate::sync::event::*;
use crate::sync::pipe::TPipe;
use core::panic::Location;

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
