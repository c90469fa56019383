//! `matmul_int8` end to end: `C = A × Bᵀ + bias` for `int8_t` A (M × K) and B (stored N × K),
//! `int32_t` bias and C, with the high-level `Matmul` (`CFG_MDL`, `IterateAll`) on cube cores
//! (`KernelType::AicOnly`), M and N with tails; checked bit for bit against the exact integer
//! reference; prints PASS. `--rows` is M, `--cols` N, `--len` K (a multiple of 32).
//!
//! ```sh
//! cargo run --release --example matmul_int8
//! cargo run --release --example matmul_int8 -- --rows 1000 --cols 700 --len 512 --cores 24
//! ```

use ascend_kernels::cli::{main_with, write_output, Args, ExampleResult, Summary};
use ascend_kernels::data::XorShift64;
use ascend_kernels::matmul_fused::{matmul_int8_reference, run_matmul_int8};
use ascend_runtime::prelude::*;
use ascend_runtime::testing::{compare_close, Tolerance};

const FLAGS: &[&str] = &["rows", "cols", "len", "cores", "output"];

fn main() {
    main_with(FLAGS, run);
}

fn run(args: &Args) -> ExampleResult {
    let (m, n, k) = (args.rows.unwrap_or(300), args.cols.unwrap_or(200), args.len.unwrap_or(256));
    if m == 0 || n == 0 || k == 0 || k % 32 != 0 {
        return Err(format!("M = {m}, N = {n} must be positive, K = {k} a positive multiple of 32").into());
    }
    let mut rng = XorShift64::new(1);
    let a: Vec<i8> = (0..m * k).map(|_| rng.range(-128, 128) as i8).collect();
    let b: Vec<i8> = (0..n * k).map(|_| rng.range(-128, 128) as i8).collect();
    let bias: Vec<i32> = (0..n).map(|_| rng.range(-1000, 1000) as i32).collect();
    let golden = matmul_int8_reference(&a, &b, &bias, (m, n, k));
    let (c, stats) = run_matmul_int8(Soc::Ascend910B, &a, &b, &bias, (m, n, k), args.cores.unwrap_or(8))?;
    write_output(&args.output, &c)?;
    let verdict = compare_close(&c, &golden, Tolerance::exact());
    Summary::of::<i32>("matmul_int8", &stats, c.len(), verdict).finish()
}
