//! `reduce_sum_atomic` end to end: per-core partial sums with `vec_reduce_add`, each added
//! into the output with `SetAtomicAdd` (no workspace, no `sync_all`, pooled cores). The
//! result is checked two ways: bit for bit against the host model of the deterministic atomic
//! order (core by core), and against the exact (`f64`) sum (or `--golden`) with the dtype's
//! tolerance.
//!
//! ```sh
//! cargo run --release --example reduce_sum_atomic
//! cargo run --release --example reduce_sum_atomic -- --soc Ascend310B --cores 48 --len 5000001
//! cargo run --release --example reduce_sum_atomic -- --dtype f16 --len 20000
//! ```

use ascend_kernels::cli::{by_float_dtype, input_or, main_with, write_output, Args, ExampleResult, Summary};
use ascend_kernels::data::random_vec;
use ascend_kernels::reduce_sum_atomic::{
    reduce_sum_atomic_reference, run_reduce_sum_atomic, ReduceSumAtomicElement,
};
use ascend_runtime::prelude::*;
use ascend_runtime::testing::{compare_close, Tolerance};

const FLAGS: &[&str] = &["len", "cores", "soc", "tile", "dtype", "input-x", "golden", "output"];

fn main() {
    main_with(FLAGS, |args| by_float_dtype("reduce_sum_atomic", args, run::<f32>, run::<f16>));
}

fn run<T: ReduceSumAtomicElement>(args: &Args) -> ExampleResult {
    let len = args.len.unwrap_or((1 << 22) + 17);
    // Non-negative values: the exact sum has no cancellation, so a relative tolerance is fair.
    let x: Vec<T> = input_or(&args.input_x, || random_vec(len, 1, 0.0, 1.0))?;
    let tiling = args.tiling::<T>(x.len(), 48);
    let exact = x.iter().map(|v| v.to_f64()).sum::<f64>();
    let golden: Vec<T> = input_or(&args.golden, || vec![T::from_f64(exact)])?;

    let (sum, stats) = run_reduce_sum_atomic(args.soc, ExecMode::Pooled, &x, &tiling)?;
    write_output(&args.output, &[sum])?;
    let model = reduce_sum_atomic_reference(args.soc, &x, &tiling);
    println!("sum       {sum} (core-order model {model}, exact {exact})");
    let verdict = compare_close(&[sum], &[model], Tolerance::exact())
        .and_then(|_| compare_close(&[sum], &golden, Tolerance::of::<T>()));
    Summary::of::<T>("reduce_sum_atomic", &stats, x.len(), verdict).finish()
}
