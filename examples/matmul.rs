//! `matmul` end to end: `C = A × B` for row-major half matrices on the cube (Ascend910B, a
//! `KernelType::AicOnly` launch): ND → NZ into L1, `LoadData` into L0A/L0B, `Mmad` accumulating
//! over K in L0C, `Fixpipe` with `F322F16` into GM, the output tiles shared among the cores,
//! under the synchronisation sanitizer; checked bit for bit against the host reference (the
//! kernel's documented arithmetic); prints PASS. `--rows` is M, `--cols` N and `--len` K.
//!
//! ```sh
//! cargo run --release --example matmul
//! cargo run --release --example matmul -- --rows 512 --cols 384 --len 1024 --cores 24
//! ```

use ascend_kernels::cli::{main_with, write_output, Args, ExampleResult, Summary};
use ascend_kernels::data::random_vec;
use ascend_kernels::matmul::{matmul_reference, run_matmul, MatmulTiling};
use ascend_runtime::prelude::*;
use ascend_runtime::testing::{compare_close, Tolerance};

const FLAGS: &[&str] = &["rows", "cols", "len", "cores", "output"];

fn main() {
    main_with(FLAGS, run);
}

fn run(args: &Args) -> ExampleResult {
    let (m, n, k) = (args.rows.unwrap_or(256), args.cols.unwrap_or(256), args.len.unwrap_or(512));
    if m == 0 || n == 0 || k == 0 || m % 128 != 0 || n % 128 != 0 || k % 64 != 0 {
        return Err(format!(
            "M = {m} and N = {n} must be positive multiples of 128, K = {k} of 64 (the tile)"
        )
        .into());
    }
    let tiling = MatmulTiling::new(m, n, k, 128, 128, 64);
    let a: Vec<f16> = random_vec(m * k, 1, -2.0, 2.0);
    let b: Vec<f16> = random_vec(k * n, 2, -2.0, 2.0);
    let golden = matmul_reference(&a, &b, &tiling);
    let (c, stats) = run_matmul(Soc::Ascend910B, &a, &b, &tiling, args.cores.unwrap_or(8))?;
    write_output(&args.output, &c)?;
    // Bit for bit: the reference follows the kernel's arithmetic exactly.
    let verdict = compare_close(&c, &golden, Tolerance::exact());
    Summary::of::<f16>("matmul", &stats, c.len(), verdict).finish()
}
