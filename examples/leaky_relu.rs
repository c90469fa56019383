//! `leaky_relu` end to end: `y = x >= 0 ? x : 0.01 * x` with the `LeakyRelu` instruction on 8
//! cores, checked against the host reference with the vendor's tolerances; prints PASS.
//!
//! ```sh
//! cargo run --release --example leaky_relu
//! cargo run --release --example leaky_relu -- --dtype f16 --len 100003 --cores 48
//! ```

use ascend_kernels::cli::{by_float_dtype, input_or, main_with, write_output, Args, ExampleResult, Summary};
use ascend_kernels::data::random_vec;
use ascend_kernels::leaky_relu::{leaky_relu_reference, run_leaky_relu};
use ascend_runtime::prelude::*;
use ascend_runtime::testing::{compare_close, Tolerance};

const FLAGS: &[&str] = &["len", "cores", "soc", "tile", "dtype", "input-x", "golden", "output"];

fn main() {
    main_with(FLAGS, |args| by_float_dtype("leaky_relu", args, run::<f32>, run::<f16>));
}

fn run<T: LeakyReluElement>(args: &Args) -> ExampleResult {
    let x: Vec<T> = input_or(&args.input_x, || random_vec(args.len.unwrap_or(1 << 20), 1, -100.0, 100.0))?;
    let alpha = T::from_f64(0.01);
    let tiling = args.tiling::<T>(x.len(), 8);
    let golden = input_or(&args.golden, || leaky_relu_reference(&x, alpha))?;

    let (y, stats) = run_leaky_relu(args.soc, &x, alpha, &tiling)?;
    write_output(&args.output, &y)?;
    let verdict = compare_close(&y, &golden, Tolerance::of::<T>());
    Summary::of::<T>("leaky_relu", &stats, y.len(), verdict).finish()
}
