//! `gelu` end to end: the tanh-approximated GELU written with `exp` (`Cast` to `float`,
//! `Mul`, `Muls`, `Add`, `Mins`, `Exp`, `Abs`, `Adds`, `Div`, `Cast` back), 8 cores, an
//! unaligned tail by default, checked against the host reference with the vendor's
//! tolerances; prints PASS. `half` unless `--dtype f32`.
//!
//! ```sh
//! cargo run --release --example gelu
//! cargo run --release --example gelu -- --len 100003 --cores 48
//! ```

use ascend_kernels::cli::{input_or, main_with, write_output, Args, ExampleResult, Summary};
use ascend_kernels::data::random_vec;
use ascend_kernels::gelu::{gelu_reference, run_gelu};
use ascend_kernels::rows::RowElement;
use ascend_runtime::prelude::*;
use ascend_runtime::testing::{compare_close, Tolerance};

const FLAGS: &[&str] = &["len", "cores", "soc", "tile", "dtype", "input-x", "golden", "output"];

fn main() {
    main_with(FLAGS, |args| match args.dtype.as_deref().unwrap_or("f16") {
        "f16" => run::<f16>(args),
        "f32" => run::<f32>(args),
        other => Err(format!("--dtype {other}: gelu supports f16 and f32").into()),
    });
}

fn run<T: RowElement>(args: &Args) -> ExampleResult {
    let x: Vec<T> = input_or(&args.input_x, || random_vec(args.len.unwrap_or((1 << 20) + 13), 1, -6.0, 6.0))?;
    let tiling = args.tiling::<T>(x.len(), 8);
    let golden = input_or(&args.golden, || gelu_reference(&x))?;

    let (y, stats) = run_gelu(args.soc, &x, &tiling)?;
    write_output(&args.output, &y)?;
    let verdict = compare_close(&y, &golden, Tolerance::of::<T>());
    Summary::of::<T>("gelu", &stats, y.len(), verdict).finish()
}
