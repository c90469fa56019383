//! The guides: the project's reference material, one module per topic.
//!
//! Each guide is a markdown file under `docs/` in the repository, included here as a module's
//! documentation (the pattern of clap's `_tutorial` and `_cookbook`), so that every Rust code
//! block in it is a doctest that `cargo test --workspace` compiles and runs. The same files
//! read as plain markdown in the repository.
//!
//! | guide | what it covers |
//! | --- | --- |
//! | [`getting_started`] | the dependency, a kernel with queues, `add_custom` side by side with the vendor's, golden data, `printf`/`DumpTensor`, tiling data, launch modes, global-memory atomics |
//! | [`porting`] | every AscendC name and ours, the chips |
//! | [`pipes_events_sanitizer`] | the pipe model, the queues' events, the race checks within and across cores, their cost |
//! | [`cube`] | L1/L0A/L0B/L0C, `LoadData`, `Mmad`, `Fixpipe`, kernel types |
//! | [`advanced_api`] | the advanced API's functions, chips and types, and the choices where the vendor leaves room |
//! | [`fidelity`] | the rules, and the choices where the vendor's sources are silent, each with its source |
//! | [`support`] | every API × element type × chip, and what is not there yet |
//! | [`soundness`] | what no safe code can do, timeouts, limits, valgrind |
//! | [`performance`] | the benchmark table against native loops, and where the time goes |
//! | [`speed`] | the bench's targets, the byte-wise atomic argument for GM copies, the launch's cost |
//! | [`profiling`] | the modelled per-pipe schedule: `--profile DIR`, `trace.json`, `PipeUtilization.csv`, the cost table and its sources |
//! | [`mixed_kernels`] | AIC + AIV kernels (`KernelType::MixAic1_2`), core-type indices, `CrossCoreSetFlag` modes, workspaces |
//! | [`matmul`] | the high-level `Matmul`, its host tiling, the fused kernels, what is not supported |
//! | [`chip_rules`] | where the vendor's implementation is looser than its pages, and what the emulator accepts; cross-core waits in the default launch mode |
//! | [`sanitizer_robustness`] | stale handles, tensors leaving their core, spawned threads, the data cache, identical writes, the fuzz of every instruction, valgrind |
//! | [`layernorm_grad`] | `LayerNormGrad` and `LayerNormGradBeta` with their host helpers |
//!
//! `docs/writing-your-first-kernel.md` walks through `ascend-kernels`' `add_custom` line by
//! line (its code blocks are excerpts of the kernel's source, which `tests/kernels_e2e.rs`
//! checks), and `ARCHITECTURE.md` maps the code for contributors.
//!
//! New guides are added here, each as
//! `#[doc = include_str!("../../docs/<name>.md")] pub mod <name> {}`, and to the table above
//! and the README's.

#[doc = include_str!("../../docs/getting-started.md")]
pub mod getting_started {}

#[doc = include_str!("../../docs/porting.md")]
pub mod porting {}

#[doc = include_str!("../../docs/pipes-events-sanitizer.md")]
pub mod pipes_events_sanitizer {}

#[doc = include_str!("../../docs/cube.md")]
pub mod cube {}

#[doc = include_str!("../../docs/advanced-api.md")]
pub mod advanced_api {}

#[doc = include_str!("../../docs/fidelity.md")]
pub mod fidelity {}

#[doc = include_str!("../../docs/support.md")]
pub mod support {}

#[doc = include_str!("../../docs/soundness.md")]
pub mod soundness {}

#[doc = include_str!("../../docs/performance.md")]
pub mod performance {}

#[doc = include_str!("../../docs/speed.md")]
pub mod speed {}

#[doc = include_str!("../../docs/profiling.md")]
pub mod profiling {}

#[doc = include_str!("../../docs/mixed-kernels.md")]
pub mod mixed_kernels {}

#[doc = include_str!("../../docs/matmul.md")]
pub mod matmul {}

#[doc = include_str!("../../docs/chip-rules.md")]
pub mod chip_rules {}

#[doc = include_str!("../../docs/sanitizer-robustness.md")]
pub mod sanitizer_robustness {}

#[doc = include_str!("../../docs/layernorm-grad.md")]
pub mod layernorm_grad {}
