//! The vendor's first sample, `hello_world`: every core prints one line with `printf`, and the
//! host prints what the cores printed, ordered by core.
//!
//! ```sh
//! cargo run --release --example hello_world
//! cargo run --release --example hello_world -- --profile prof/ # and its modelled profile
//! ```
//!
//! prints `[AIV Block 0/8] Hello World!!!` … `[AIV Block 7/8] Hello World!!!`.

use ascend_runtime::prelude::*;

/// The kernel (`__global__ __aicore__ void hello_world()`).
pub fn hello_world() {
    ascend_printf!("Hello World!!!\n");
}

#[allow(dead_code)] // Also compiled as a module of the trial-kernel tests.
fn main() {
    // `--profile DIR`, as on every example: the launch's modelled profile into DIR.
    let args: Vec<String> = std::env::args().collect();
    if let Some(dir) = args.iter().position(|a| a == "--profile").and_then(|i| args.get(i + 1)) {
        ascend_runtime::profile::set_profile_dir(Some(dir.into()));
    }
    // hello_world<<<8, nullptr, stream>>>();
    Launch::new(Soc::Ascend910B).block_dim(8).run(hello_world).expect("launch");
}
