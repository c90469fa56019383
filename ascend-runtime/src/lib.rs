//! # ascend-runtime
//!
//! Chips, host-owned global memory, and launching per-core kernels on host threads.

pub use ascend_core::Soc;
