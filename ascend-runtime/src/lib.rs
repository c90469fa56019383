//! # ascend-runtime
//!
//! The host side of the AscendC emulator: chips ([`Soc`]), host-owned global memory
//! ([`GmBuffer`]), and launching a kernel on `blockDim` logical cores emulated on host
//! threads ([`Launch`], [`launch()`]).
//!
//! Each logical core runs the kernel with its own Unified Buffer, mask register and control
//! flags; global memory is shared. A core that fails a check (or panics) never hangs the
//! launch or takes the process down: the launch returns a [`LaunchError`] naming the core,
//! the API, the parameter and the source line.
//!
//! Kernels, tests and examples need one import: `use ascend_runtime::prelude::*;` (the
//! whole kernel API of `ascend_core` plus this crate's types).
//!
//! Checking results: [`testing`] compares kernel output with golden data (tolerances in the
//! style of the vendor's verify scripts, or bit for bit); [`npy`] reads and writes numpy
//! `.npy` files and raw `.bin` files.
//!
//! **Guides** — the reference material, each page compiled and tested:
//! [getting started](guide::getting_started), [porting from AscendC](guide::porting),
//! [pipes, events and the sanitizer](guide::pipes_events_sanitizer), [the cube](guide::cube),
//! [the advanced API](guide::advanced_api), [fidelity](guide::fidelity),
//! [the support matrix](guide::support), [soundness](guide::soundness),
//! [speed](guide::performance); the full list is in [`guide`].
//!
//! ```
//! use ascend_runtime::prelude::*;
//!
//! /// Each core adds its slice of `x` and `y` into `z`, element by element.
//! fn add_kernel(x: GmAddr, y: GmAddr, z: GmAddr, per_core: usize) {
//!     let off = get_block_idx() as usize * per_core;
//!     let bind = |addr: GmAddr| {
//!         let mut g = GlobalTensor::<f32>::new();
//!         g.set_global_buffer(addr.add::<f32>(off), per_core);
//!         g
//!     };
//!     let (gx, gy, gz) = (bind(x), bind(y), bind(z));
//!     for i in 0..per_core {
//!         gz.set_value(i, gx.get_value(i) + gy.get_value(i));
//!     }
//! }
//!
//! let n = 4 * 16;
//! let x = GmBuffer::from_vec((0..n).map(|i| i as f32).collect());
//! let y = GmBuffer::from_vec(vec![0.5f32; n]);
//! let z = GmBuffer::<f32>::zeroed(n);
//! let (xa, ya, za) = (x.addr(), y.addr(), z.addr());
//! launch(Soc::Ascend910B, 4, move || add_kernel(xa, ya, za, 16)).unwrap();
//! assert_eq!(z.to_vec()[63], 63.5);
//!
//! // A failed check is an error value naming the core, never a crash or a hang.
//! let err = launch(Soc::Ascend910B, 4, || {
//!     if get_block_idx() == 2 {
//!         ascend_core::fail("MyApi", "len = 7 is not a multiple of 8");
//!     }
//! })
//! .unwrap_err();
//! assert!(err.to_string().contains("core 2: MyApi: len = 7 is not a multiple of 8"));
//! ```

mod barrier;
mod coro;
pub mod gm;
pub mod guide;
mod hook;
pub mod launch;
pub mod npy;
mod output;
pub mod profile;
pub mod testing;
mod watchdog;
mod workers;

pub use ascend_core;
pub use ascend_core::{GmAddr, GmAllocError, GmRegion, Soc};
pub use gm::GmBuffer;
pub use launch::{
    launch, CoreFault, ExecMode, KernelOutput, Launch, LaunchError, LaunchStats, DEFAULT_MAX_THREADS,
    DEFAULT_STACK_SIZE, DEFAULT_TIMEOUT, MAX_BLOCK_DIM,
};
pub use workers::shutdown_workers;

/// Everything a kernel, a test or an example needs, in one import: the kernel API of
/// `ascend_core::prelude` plus the runtime's types.
pub mod prelude {
    pub use crate::gm::GmBuffer;
    pub use crate::launch::{launch, CoreFault, ExecMode, KernelOutput, Launch, LaunchError, LaunchStats};
    pub use ascend_core::prelude::*;
}

/// The README's code blocks, compiled and run as doctests so the front page cannot rot.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
