//! `addcmul` end to end: `out = input + 0.5 * t1 * t2` with `Mul`, `Muls` and `Add` on 8
//! cores, checked against the host reference with the vendor's tolerances; prints PASS.
//!
//! ```sh
//! cargo run --release --example addcmul
//! cargo run --release --example addcmul -- --dtype f16 --len 100003 --cores 48
//! ```

use ascend_kernels::addcmul::{addcmul_reference, run_addcmul, AddcmulElement};
use ascend_kernels::cli::{by_float_dtype, input_or, main_with, write_output, Args, ExampleResult, Summary};
use ascend_kernels::data::random_vec;
use ascend_runtime::prelude::*;
use ascend_runtime::testing::{compare_close, Tolerance};

const FLAGS: &[&str] = &["len", "cores", "soc", "tile", "dtype", "golden", "output"];

fn main() {
    main_with(FLAGS, |args| by_float_dtype("addcmul", args, run::<f32>, run::<f16>));
}

fn run<T: AddcmulElement>(args: &Args) -> ExampleResult {
    let n = args.len.unwrap_or(1 << 20);
    let [input, t1, t2]: [Vec<T>; 3] = [1, 2, 3].map(|seed| random_vec(n, seed, 1.0, 10.0));
    let value = T::from_f64(0.5);
    let tiling = args.tiling::<T>(n, 8);
    let golden = input_or(&args.golden, || addcmul_reference([&input, &t1, &t2], value))?;

    let (out, stats) = run_addcmul(args.soc, [&input, &t1, &t2], value, &tiling)?;
    write_output(&args.output, &out)?;
    let verdict = compare_close(&out, &golden, Tolerance::of::<T>());
    Summary::of::<T>("addcmul", &stats, out.len(), verdict).finish()
}
