//! `transpose` end to end: a row-major half matrix transposed through 16×16 tiles with
//! `vec_trans`, checked bit for bit. `--tile N` sets the tiles per strip (default 32). An
//! `--input-x` `.npy` file gives its own shape (2-D);
//! `.bin` input needs `--rows` and `--cols`.
//!
//! ```sh
//! cargo run --release --example transpose
//! cargo run --release --example transpose -- --rows 4096 --cols 1024 --cores 48
//! ```

use ascend_kernels::cli::{input_or, main_with, write_output, Args, ExampleResult, Summary};
use ascend_kernels::data::random_vec;
use ascend_kernels::transpose::{run_transpose_with, transpose_reference, TransposeTiling};
use ascend_runtime::npy::read_npy;
use ascend_runtime::prelude::*;
use ascend_runtime::testing::{compare_close, Tolerance};

const FLAGS: &[&str] = &["rows", "cols", "cores", "soc", "tile", "input-x", "golden", "output"];

fn main() {
    main_with(FLAGS, run);
}

fn run(args: &Args) -> ExampleResult {
    let (mut rows, mut cols) = (args.rows.unwrap_or(2048), args.cols.unwrap_or(1024));
    let x: Vec<f16> = match &args.input_x {
        Some(p) if p.extension().is_some_and(|e| e == "npy") => {
            let a = read_npy::<f16>(p)?;
            if let [r, c] = a.shape[..] {
                (rows, cols) = (r, c);
            } else {
                return Err(
                    format!("{}: a 2-D matrix is needed, the shape is {:?}", p.display(), a.shape).into()
                );
            }
            a.data
        }
        other => input_or(other, || random_vec(rows * cols, 1, -1000.0, 1000.0))?,
    };
    if x.len() != rows * cols {
        return Err(format!("the input has {} elements, not rows * cols = {rows} * {cols}", x.len()).into());
    }
    let mut tiling = TransposeTiling::new(rows, cols, args.cores.unwrap_or(8));
    if let Some(tiles) = args.tile {
        tiling.tiles_per_strip = tiles;
    }
    let golden = input_or(&args.golden, || transpose_reference(&x, rows, cols))?;

    let (y, stats) = run_transpose_with(args.soc, &x, &tiling)?;
    write_output(&args.output, &y)?;
    let verdict = compare_close(&y, &golden, Tolerance::exact());
    Summary::of::<f16>("transpose", &stats, y.len(), verdict).finish()
}
