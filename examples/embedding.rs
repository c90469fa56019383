//! An embedding lookup with `Gather`, end to end: a `vocab × dim` table and `len` random
//! indices, `out = table[indices]` on 8 cores (the table copied into each core's UB, rows
//! gathered by byte offsets), checked bit for bit against the host reference; prints a summary
//! and exits non-zero on FAIL.
//!
//! ```sh
//! cargo run --release --example embedding
//! cargo run --release --example embedding -- --rows 500 --cols 64 --len 100000 --cores 48 --dtype f16
//! ```

use ascend_kernels::cli::{by_float_dtype, main_with, write_output, Args, ExampleResult, Summary};
use ascend_kernels::data::{random_vec, XorShift64};
use ascend_kernels::embedding::{embedding_reference, run_embedding, EmbeddingTiling};
use ascend_runtime::prelude::*;
use ascend_runtime::testing::{compare_close, Tolerance};

const FLAGS: &[&str] = &["len", "rows", "cols", "cores", "soc", "dtype", "output"];

fn main() {
    main_with(FLAGS, |args| by_float_dtype("embedding", args, run::<f32>, run::<f16>));
}

fn run<T: GatherElement>(args: &Args) -> ExampleResult {
    let (vocab, dim, n) = (args.rows.unwrap_or(256), args.cols.unwrap_or(32), args.len.unwrap_or(65536));
    let table: Vec<T> = random_vec(vocab * dim, 1, -1.0, 1.0);
    let mut g = XorShift64::new(2);
    let indices: Vec<i32> = (0..n).map(|_| g.range(0, vocab as i64) as i32).collect();
    let tiling = EmbeddingTiling::new(vocab, dim, n, args.cores.unwrap_or(8));

    let (out, stats) = run_embedding(args.soc, &table, &indices, &tiling)?;
    write_output(&args.output, &out)?;
    let verdict = compare_close(&out, &embedding_reference(&table, dim, &indices), Tolerance::exact());
    Summary::of::<T>("embedding", &stats, out.len(), verdict).finish()
}
