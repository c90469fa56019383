//! The vendor's first kernel, end to end: make (or read) `x` and `y`, run `add_custom` on 8
//! cores, check `z` against the golden `x + y` with the vendor's f16 tolerances, print a
//! summary, and exit non-zero on FAIL.
//!
//! ```sh
//! cargo run --release --example add_custom
//! cargo run --release --example add_custom -- --len 1000003 --cores 48 --soc Ascend310B
//! cargo run --release --example add_custom -- --input-x x.npy --input-y y.npy --golden golden.npy --output z.bin
//! ```

use ascend_kernels::add_custom::{add_reference, run_add_custom};
use ascend_kernels::cli::{input_or, write_output, Args, Summary};
use ascend_kernels::data::random_vec;
use ascend_kernels::tiling::TilingConfig;
use ascend_runtime::prelude::*;
use ascend_runtime::testing::{compare_close, Tolerance};

const FLAGS: &[&str] = &["len", "cores", "soc", "tile", "input-x", "input-y", "golden", "output"];

fn main() {
    let args = Args::from_env(FLAGS);
    if let Err(e) = run(&args) {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}

fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let default = TilingConfig::default();
    let len = args.len.unwrap_or(default.total_length);
    // Like the vendor's data generator: values uniform in [1, 100) as half.
    let x: Vec<f16> = input_or(&args.input_x, || random_vec(len, 1, 1.0, 100.0))?;
    let y: Vec<f16> = input_or(&args.input_y, || random_vec(x.len(), 2, 1.0, 100.0))?;
    if x.len() != y.len() {
        return Err(format!("x has {} elements, y {}", x.len(), y.len()).into());
    }
    let cores = args.cores.unwrap_or(default.block_dim);
    let mut tiling = TilingConfig::new::<f16>(x.len(), cores);
    if let Some(tile) = args.tile {
        tiling = tiling.with_tile_length(tile);
    }
    let golden = input_or(&args.golden, || add_reference(&x, &y))?;

    let (z, stats) = run_add_custom(args.soc, &x, &y, &tiling)?;
    write_output(&args.output, &z)?;
    Summary {
        kernel: "add_custom",
        dtype: DType::F16,
        soc: stats.soc,
        cores: stats.block_dim,
        elements: z.len(),
        wall: stats.wall,
        verdict: compare_close(&z, &golden, Tolerance::of::<f16>()),
    }
    .finish()
}
