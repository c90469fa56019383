//! `reduce_sum` end to end: per-core partial sums with `vec_reduce_add`, a GM workspace,
//! `sync_all`, and the final sum on core 0. The result is checked two ways: bit for bit
//! against the host model of the chip's order of additions, and against the exact (`f64`)
//! sum (or `--golden`, a one-element file) with the dtype's tolerance.
//!
//! ```sh
//! cargo run --release --example reduce_sum
//! cargo run --release --example reduce_sum -- --soc Ascend310B --cores 48 --len 5000000
//! cargo run --release --example reduce_sum -- --dtype f16 --len 20000
//! ```

use ascend_kernels::cli::{by_float_dtype, input_or, main_with, write_output, Args, ExampleResult, Summary};
use ascend_kernels::data::random_vec;
use ascend_kernels::reduce_sum::{reduce_sum_reference, run_reduce_sum, ReduceSumElement};
use ascend_runtime::prelude::*;
use ascend_runtime::testing::{compare_close, Tolerance};

const FLAGS: &[&str] = &["len", "cores", "soc", "tile", "dtype", "input-x", "golden", "output"];

fn main() {
    main_with(FLAGS, |args| by_float_dtype("reduce_sum", args, run::<f32>, run::<f16>));
}

fn run<T: ReduceSumElement>(args: &Args) -> ExampleResult {
    let len = args.len.unwrap_or(1 << 22);
    // Non-negative values: the exact sum has no cancellation, so a relative tolerance is fair.
    let x: Vec<T> = input_or(&args.input_x, || random_vec(len, 1, 0.0, 1.0))?;
    let tiling = args.tiling::<T>(x.len(), 8);
    let exact = x.iter().map(|v| v.to_f64()).sum::<f64>();
    let golden: Vec<T> = input_or(&args.golden, || vec![T::from_f64(exact)])?;

    let (sum, stats) = run_reduce_sum(args.soc, &x, &tiling)?;
    write_output(&args.output, &[sum])?;
    let model = reduce_sum_reference(args.soc, &x, &tiling);
    println!("sum       {sum} (chip-order model {model}, exact {exact})");
    // Bit-exact against the model of the chip's order, then within tolerance of the golden sum.
    let verdict = compare_close(&[sum], &[model], Tolerance::exact())
        .and_then(|_| compare_close(&[sum], &golden, Tolerance::of::<T>()));
    Summary::of::<T>("reduce_sum", &stats, x.len(), verdict).finish()
}
