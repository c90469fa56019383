//! # ascend-kernels
//!
//! Real AscendC kernels written against the host emulator, each with its unit tests.
//!
//! Every kernel reads like its AscendC original: a kernel struct with `init` (bind this core's
//! slice of global memory, carve the queues' buffers) and `process` (walk the slice tile by
//! tile through `copy_in` → `compute` → `copy_out`, double-buffered with `BUFFER_NUM = 2`),
//! and an entry function taking `GmAddr`s, launched on `blockDim` cores; the last of them is
//! the tiling, a `#[repr(C)]` struct the host wrote to GM and the entry function reads back
//! with `get_tiling_data` (AscendC's `GET_TILING_DATA`). Each module also has
//! a host launcher (`run_*`) and a host reference the tests compare against bit for bit.
//!
//! | module | kernel |
//! | --- | --- |
//! | [`add_custom`] | `z = x + y`, the vendor's first sample |
//! | [`add_custom_sync`] | the same with `TBuf`s and `SetFlag`/`WaitFlag` instead of queues, as current vendor samples write it |
//! | [`sub_custom`] | `z = x - y`, generic over `half`, `float`, `int16_t`, `int32_t` |
//! | [`fill`] | `Duplicate` of a scalar over a large GM buffer |
//! | [`maximum`] | `Compare` + `Select` (tensor-tensor mode): `max(x, y)` |
//! | [`transpose`] | a large matrix transposed through 16×16 tiles with `vec_trans` |
//! | [`leaky_relu`] | `LeakyRelu` of a tensor (one input queue, a scalar) |
//! | [`addcmul`] | `input + value * t1 * t2` with `Mul`, `Muls`, `Add` (three input queues) |
//! | [`reduce_sum`] | the sum of a vector: per-core partial sums, `SyncAll`, final sum on core 0 |
//! | [`reduce_sum_atomic`] | the same sum, each core adding its partial into the output with `SetAtomicAdd` |
//! | [`embedding`] | an embedding lookup: the table in UB, `Gather` by per-element byte offsets |
//! | [`softmax`] | row softmax of `[rows, cols]`: `ReduceMax`, `Adds`, `Exp`, `ReduceSum`, `Muls` in `float` |
//! | [`norm`] | `rms_norm` and `layer_norm` of `[rows, cols]` with gamma (and beta), in `float` |
//! | [`gelu`] | the tanh-approximated GELU through `exp` (`half` computed in `float`), unaligned tails |
//!
//! [`elementwise`] holds the pipeline `add_custom`, `sub_custom` and `maximum` share
//! (`KernelBinary<T, Op>`, the instruction supplied by `Op`), [`rows`] the row-wise pipeline
//! `softmax` and `norm` share (`KernelRows<T, Op>`, one row a tile, `half` through `float`), [`host`] the host side of a
//! launch (inputs to GM, launch, outputs back), [`tiling`] the work split shared by the
//! kernels, [`data`] deterministic inputs, and [`cli`] what the examples share (flags, data
//! files, the PASS / FAIL summary).
//!
//! The guides (getting started, porting from AscendC, pipes, events and the sanitizer, the
//! cube, the advanced API, fidelity, the support matrix, soundness, speed) are in
//! [`ascend_runtime::guide`]; `docs/writing-your-first-kernel.md` in the repository walks
//! through [`add_custom`] line by line.

pub mod add_custom;
pub mod add_custom_sync;
pub mod addcmul;
pub mod cli;
pub mod data;
pub mod elementwise;
pub mod embedding;
pub mod fill;
pub mod gelu;
pub mod host;
pub mod leaky_relu;
pub mod matmul;
pub mod matmul_fused;
pub mod maximum;
pub mod norm;
pub mod reduce_sum;
pub mod reduce_sum_atomic;
pub mod rows;
pub mod softmax;
pub mod sub_custom;
pub mod tiling;
pub mod transpose;
