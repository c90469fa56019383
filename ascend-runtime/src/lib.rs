//! # ascend-runtime
//!
//! Chips, host-owned global memory, and launching per-core kernels on host threads.
//!
//! Checking results: [`testing`] compares kernel output with golden data (tolerances in the
//! style of the vendor's verify scripts, or bit for bit); [`npy`] reads and writes numpy
//! `.npy` files and raw `.bin` files.

pub mod npy;
pub mod testing;

pub use ascend_core::Soc;
