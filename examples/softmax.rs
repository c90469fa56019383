//! `softmax` end to end: row softmax of a `[rows, cols]` matrix (`ReduceMax`, `Adds`, `Exp`,
//! `ReduceSum`, `Muls`, in `float`; `half` through `Cast`), the rows split over 8 cores,
//! checked against the numpy-style host reference with the vendor's tolerances; prints PASS.
//!
//! ```sh
//! cargo run --release --example softmax
//! cargo run --release --example softmax -- --dtype f16 --rows 1001 --cols 4096 --cores 48
//! ```

use ascend_kernels::cli::{by_float_dtype, input_or, main_with, write_output, Args, ExampleResult, Summary};
use ascend_kernels::data::random_vec;
use ascend_kernels::rows::{rows_of, RowElement, RowTiling};
use ascend_kernels::softmax::{run_softmax, softmax_reference};
use ascend_runtime::prelude::*;
use ascend_runtime::testing::{compare_close, Tolerance};

const FLAGS: &[&str] = &["rows", "cols", "cores", "soc", "dtype", "input-x", "golden", "output"];

fn main() {
    main_with(FLAGS, |args| by_float_dtype("softmax", args, run::<f32>, run::<f16>));
}

fn run<T: RowElement>(args: &Args) -> ExampleResult {
    let cols = args.cols.unwrap_or(1024);
    let x: Vec<T> = input_or(&args.input_x, || random_vec(args.rows.unwrap_or(1003) * cols, 1, -8.0, 8.0))?;
    let tiling = RowTiling::new(rows_of(x.len(), cols)?, cols, args.cores.unwrap_or(8));
    let golden = input_or(&args.golden, || softmax_reference(&x, cols))?;

    let (y, stats) = run_softmax(args.soc, &x, &tiling)?;
    write_output(&args.output, &y)?;
    let verdict = compare_close(&y, &golden, Tolerance::of::<T>());
    Summary::of::<T>("softmax", &stats, y.len(), verdict).finish()
}
