//! # ascend-kernels
//!
//! Real AscendC kernels written against the host emulator, each with its unit tests.
