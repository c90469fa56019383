//! `maximum` end to end: `z = max(x, y)` with `Compare` + `Select` (tensor-tensor mode),
//! checked against the host's elementwise maximum.
//!
//! ```sh
//! cargo run --release --example maximum
//! cargo run --release --example maximum -- --dtype f16 --len 100000 --cores 48
//! ```

use ascend_kernels::cli::{by_float_dtype, input_or, main_with, write_output, Args, ExampleResult, Summary};
use ascend_kernels::maximum::{maximum_reference, run_maximum, MaximumElement};
use ascend_runtime::prelude::*;
use ascend_runtime::testing::{compare_close, Tolerance};

const FLAGS: &[&str] = &["len", "cores", "soc", "tile", "dtype", "input-x", "input-y", "golden", "output"];

fn main() {
    main_with(FLAGS, |args| by_float_dtype("maximum", args, run::<f32>, run::<f16>));
}

fn run<T: MaximumElement>(args: &Args) -> ExampleResult {
    let (x, y) = args.input_pair::<T>(args.len.unwrap_or(1 << 20), -100.0, 100.0)?;
    let tiling = args.tiling::<T>(x.len(), 8);
    let golden = input_or(&args.golden, || maximum_reference(&x, &y))?;

    let (z, stats) = run_maximum(args.soc, &x, &y, &tiling)?;
    write_output(&args.output, &z)?;
    // max is exact: nothing is rounded
    let verdict = compare_close(&z, &golden, Tolerance::exact());
    Summary::of::<T>("maximum", &stats, z.len(), verdict).finish()
}
