//! `maximum` end to end: `z = max(x, y)` with `Compare` + `Select` (tensor-tensor mode),
//! checked against the host's elementwise maximum.
//!
//! ```sh
//! cargo run --release --example maximum
//! cargo run --release --example maximum -- --dtype f16 --len 100000 --cores 48
//! ```

use ascend_kernels::cli::{input_or, write_output, Args, Summary};
use ascend_kernels::data::random_vec;
use ascend_kernels::maximum::{maximum_reference, run_maximum, MaximumElement};
use ascend_kernels::tiling::TilingConfig;
use ascend_runtime::prelude::*;
use ascend_runtime::testing::{compare_close, Tolerance};

const FLAGS: &[&str] = &["len", "cores", "soc", "tile", "dtype", "input-x", "input-y", "golden", "output"];

fn main() {
    let args = Args::from_env(FLAGS);
    let result = match args.dtype.as_deref().unwrap_or("f32") {
        "f32" => run::<f32>(&args),
        "f16" => run::<f16>(&args),
        other => Err(format!("--dtype {other}: maximum supports f16 and f32").into()),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}

fn run<T: MaximumElement>(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let len = args.len.unwrap_or(1 << 20);
    let x: Vec<T> = input_or(&args.input_x, || random_vec(len, 1, -100.0, 100.0))?;
    let y: Vec<T> = input_or(&args.input_y, || random_vec(x.len(), 2, -100.0, 100.0))?;
    if x.len() != y.len() {
        return Err(format!("x has {} elements, y {}", x.len(), y.len()).into());
    }
    let mut tiling = TilingConfig::new::<T>(x.len(), args.cores.unwrap_or(8));
    if let Some(tile) = args.tile {
        tiling = tiling.with_tile_length(tile);
    }
    let golden = input_or(&args.golden, || maximum_reference(&x, &y))?;

    let (z, stats) = run_maximum(args.soc, &x, &y, &tiling)?;
    write_output(&args.output, &z)?;
    Summary {
        kernel: "maximum",
        dtype: T::DTYPE,
        soc: stats.soc,
        cores: stats.block_dim,
        elements: z.len(),
        wall: stats.wall,
        // max is exact: nothing is rounded
        verdict: compare_close(&z, &golden, Tolerance::exact()),
    }
    .finish()
}
