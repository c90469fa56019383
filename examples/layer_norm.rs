//! `layer_norm` end to end: LayerNorm of a `[rows, cols]` matrix (mean by `ReduceSum` and
//! `Muls`, `Adds` to centre, variance by `Mul` and `ReduceSum`, `Adds` eps, `Sqrt`, `Div`,
//! then `Muls`, `Mul` by gamma, `Add` beta, in `float`; `half` through `Cast`), the rows split
//! over 8 cores, checked against the numpy-style host reference with the vendor's
//! tolerances; prints PASS.
//!
//! ```sh
//! cargo run --release --example layer_norm
//! cargo run --release --example layer_norm -- --dtype f16 --rows 1001 --cols 4096 --cores 48
//! ```

use ascend_kernels::cli::{by_float_dtype, input_or, main_with, write_output, Args, ExampleResult, Summary};
use ascend_kernels::data::random_vec;
use ascend_kernels::norm::{layer_norm_reference, run_layer_norm};
use ascend_kernels::rows::{rows_of, RowElement, RowTiling};
use ascend_runtime::prelude::*;
use ascend_runtime::testing::{compare_close, Tolerance};

const FLAGS: &[&str] = &["rows", "cols", "cores", "soc", "dtype", "input-x", "golden", "output"];
const EPS: f32 = 1e-5;

fn main() {
    main_with(FLAGS, |args| by_float_dtype("layer_norm", args, run::<f32>, run::<f16>));
}

fn run<T: RowElement>(args: &Args) -> ExampleResult {
    let cols = args.cols.unwrap_or(1024);
    let x: Vec<T> = input_or(&args.input_x, || random_vec(args.rows.unwrap_or(1003) * cols, 1, -3.0, 5.0))?;
    let gamma: Vec<T> = random_vec(cols, 2, 0.5, 1.5);
    let beta: Vec<T> = random_vec(cols, 3, -1.0, 1.0);
    let tiling = RowTiling::new(rows_of(x.len(), cols)?, cols, args.cores.unwrap_or(8));
    let golden = input_or(&args.golden, || layer_norm_reference(&x, &gamma, &beta, EPS))?;

    let (y, stats) = run_layer_norm(args.soc, &x, &gamma, &beta, EPS, &tiling)?;
    write_output(&args.output, &y)?;
    let verdict = compare_close(&y, &golden, Tolerance::of::<T>());
    Summary::of::<T>("layer_norm", &stats, y.len(), verdict).finish()
}
