//! `matmul_leakyrelu` end to end: `C = LeakyRelu(A × B + bias, 0.001)` with the high-level
//! `Matmul` (half A/B, float bias and C; each `128 × 64` block through `VECIN`, `LeakyRelu`
//! and `DataCopy` to GM), as vector cores driving the cube (`KernelType::AivOnly` until mixed
//! launches exist), under the synchronisation sanitizer; checked against an f64 reference with
//! the vendor example's tolerance (rtol 1e-6, atol 1e-9, 0.01 % of elements); prints PASS.
//! `--rows` is M (a multiple of 128), `--cols` N (of 64), `--len` K (of 16).
//!
//! ```sh
//! cargo run --release --example matmul_leakyrelu
//! cargo run --release --example matmul_leakyrelu -- --rows 1024 --cols 256 --len 512 --cores 8
//! ```

use ascend_kernels::cli::{main_with, write_output, Args, ExampleResult, Summary};
use ascend_kernels::data::random_vec;
use ascend_kernels::matmul_fused::{matmul_leakyrelu_reference, run_matmul_leakyrelu};
use ascend_runtime::prelude::*;
use ascend_runtime::testing::{compare_close, Tolerance};

const FLAGS: &[&str] = &["rows", "cols", "len", "cores", "output"];

fn main() {
    main_with(FLAGS, run);
}

fn run(args: &Args) -> ExampleResult {
    let (m, n, k) = (args.rows.unwrap_or(512), args.cols.unwrap_or(128), args.len.unwrap_or(128));
    if m == 0 || n == 0 || k == 0 || m % 128 != 0 || n % 64 != 0 || k % 16 != 0 {
        return Err(format!("M = {m}, N = {n}, K = {k} must be positive multiples of 128, 64 and 16").into());
    }
    let a: Vec<f16> = random_vec(m * k, 1, -1.0, 1.0);
    let b: Vec<f16> = random_vec(k * n, 2, -1.0, 1.0);
    let bias: Vec<f32> = random_vec(n, 3, -1.0, 1.0);
    let golden = matmul_leakyrelu_reference(&a, &b, &bias, (m, n, k), 0.001);
    let (c, stats) =
        run_matmul_leakyrelu(Soc::Ascend910B, &a, &b, &bias, (m, n, k), 0.001, args.cores.unwrap_or(2))?;
    write_output(&args.output, &c)?;
    // Float accumulation against the f64 sum: a few ulps; the vendor's check allows 1e-6.
    let verdict = compare_close(&c, &golden, Tolerance::new(1e-6, 1e-9, 1e-4));
    Summary::of::<f32>("matmul_leakyrelu", &stats, c.len(), verdict).finish()
}
