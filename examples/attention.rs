//! `attention` end to end: single-head attention forward, `O = softmax(Q·Kᵀ / sqrt(d)) · V`,
//! one vector core per head driving two high-level `Matmul`s (`Q·Kᵀ` into `VECIN`, `SoftMax`
//! and a cast to half on the vector unit, `P` to a GM workspace, `P·V` into GM), under the
//! synchronisation sanitizer; checked against an f64 reference within 1e-3 (P is half);
//! prints PASS. `--rows` is the sequence length S (a multiple of 16, at most 128), `--cols`
//! the head size D (a multiple of 16), `--cores` the number of heads.
//!
//! ```sh
//! cargo run --release --example attention
//! cargo run --release --example attention -- --rows 128 --cols 64 --cores 8
//! ```

use ascend_kernels::cli::{main_with, write_output, Args, ExampleResult, Summary};
use ascend_kernels::data::random_vec;
use ascend_kernels::matmul_fused::{attention_reference, run_attention};
use ascend_runtime::prelude::*;
use ascend_runtime::testing::{compare_close, Tolerance};

const FLAGS: &[&str] = &["rows", "cols", "cores", "output"];

fn main() {
    main_with(FLAGS, run);
}

fn run(args: &Args) -> ExampleResult {
    let (s, d, heads) = (args.rows.unwrap_or(64), args.cols.unwrap_or(64), args.cores.unwrap_or(4) as usize);
    if s == 0 || d == 0 || heads == 0 || s % 16 != 0 || d % 16 != 0 || s > 128 {
        return Err(format!(
            "S = {s} (a multiple of 16, at most 128), D = {d} (a multiple of 16), heads = {heads} > 0"
        )
        .into());
    }
    let q: Vec<f16> = random_vec(heads * s * d, 1, -2.0, 2.0);
    let k: Vec<f16> = random_vec(heads * s * d, 2, -2.0, 2.0);
    let v: Vec<f16> = random_vec(heads * s * d, 3, -1.0, 1.0);
    let golden = attention_reference(&q, &k, &v, heads, s, d);
    let (o, stats) = run_attention(Soc::Ascend910B, &q, &k, &v, heads, s, d)?;
    write_output(&args.output, &o)?;
    let verdict = compare_close(&o, &golden, Tolerance::new(1e-3, 1e-3, 0.0));
    Summary::of::<f32>("attention", &stats, o.len(), verdict).finish()
}
