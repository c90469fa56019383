//! Memory and data movement: the Unified Buffer arenas ([`ub`]), `LocalTensor` and
//! `GlobalTensor` ([`tensor`]), global-memory access that is free of data races ([`gm_io`]),
//! the allocators ([`alloc`], [`ub_size`], [`workspace`], [`tiling_data`]), the copies
//! ([`copy`], [`copy_tail`], [`gm_api`]), the data cache ([`cache_ctrl`]) and the GM atomics
//! ([`atomic`]).

pub mod alloc;
pub mod atomic;
pub(crate) mod atomic_log;
pub mod cache_ctrl;
pub mod copy;
pub mod copy_tail;
pub(crate) mod gm_addr;
pub mod gm_api;
pub(crate) mod gm_io;
pub mod tensor;
pub mod tiling_data;
pub(crate) mod ub;
pub mod ub_size;
pub mod workspace;
