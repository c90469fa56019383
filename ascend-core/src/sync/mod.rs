//! Pipes and hardware events: the vocabulary (`pipe_t`, `HardEvent`) and the synchronisation
//! API (`SetFlag`/`WaitFlag`, `PipeBarrier`, the pipe's event ids).
//!
//! On an Ascend core the scalar unit issues every instruction to one of several pipes that
//! run concurrently: MTE2 (GM → UB), V (vector), MTE3 (UB → GM), S (scalar), and on the cube
//! side MTE1, M and FIX. An instruction on one pipe is ordered after an instruction on
//! another pipe only through an event: `set_flag::<HardEvent::MTE2_V>(id)` fires once every
//! MTE2 instruction issued before it has finished, and `wait_flag::<HardEvent::MTE2_V>(id)`
//! holds the V pipe until then. The queues (`TQue::enque`/`deque`, `alloc_tensor`/
//! `free_tensor`) set and wait these events for you.
//!
//! The emulator executes every instruction at once, in program order, so the data are always
//! right here; the [`sanitizer`](crate::sanitizer) uses these calls to find the orderings the
//! hardware would lack. The misuse checks below (an id out of range, setting a flag twice,
//! waiting on a flag nobody set, running out of ids) always run.
//!
//! ```
//! use ascend_core::prelude::*;
//! let pipe = TPipe::new();
//! let id = pipe.fetch_event_id::<HardEvent::V_MTE3>();
//! set_flag::<HardEvent::V_MTE3>(id);
//! wait_flag::<HardEvent::V_MTE3>(id);
//! pipe_barrier::<PIPE_V>();
//! ```
//!
//! This folder is the synchronisation layer: the flags between one core's pipes
//! (`flags.rs`, re-exported here), the `TPipe` and its queues ([`pipe`]), the barriers between
//! cores ([`block_sync`], [`group_barrier`], [`cross_core`]). Its files import the
//! `kernel`, `memory` and `observe` layers, and no instruction but the vector engine's mask
//! reset (`init_soc_state`); see `ARCHITECTURE.md`.

pub mod block_sync;
pub mod cross_core;
pub(crate) mod cross_flags;
pub(crate) mod event;
pub(crate) mod flags;
pub mod group_barrier;
pub mod pipe;

pub use event::*;
pub use flags::*;
