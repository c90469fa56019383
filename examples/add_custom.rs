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
use ascend_kernels::cli::{input_or, main_with, write_output, Args, ExampleResult, Summary};
use ascend_kernels::tiling::TilingConfig;
use ascend_runtime::prelude::*;
use ascend_runtime::testing::{compare_close, Tolerance};

const FLAGS: &[&str] = &["len", "cores", "soc", "tile", "input-x", "input-y", "golden", "output"];

fn main() {
    main_with(FLAGS, run);
}

fn run(args: &Args) -> ExampleResult {
    let default = TilingConfig::default();
    // Like the vendor's data generator: values uniform in [1, 100) as half.
    let (x, y) = args.input_pair::<f16>(args.len.unwrap_or(default.total_length), 1.0, 100.0)?;
    let tiling = args.tiling::<f16>(x.len(), default.block_dim);
    let golden = input_or(&args.golden, || add_reference(&x, &y))?;

    let (z, stats) = run_add_custom(args.soc, &x, &y, &tiling)?;
    write_output(&args.output, &z)?;
    let verdict = compare_close(&z, &golden, Tolerance::of::<f16>());
    Summary::of::<f16>("add_custom", &stats, z.len(), verdict).finish()
}
