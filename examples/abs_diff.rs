//! A trial kernel: `z = |x - y|` on `half` over 48 cores, the length not a whole number of
//! blocks — the AscendC pipeline (`CopyIn` → `Compute` with `Sub` and `Abs` → `CopyOut`,
//! double-buffered queues), tiling data in GM, and `DataCopyPad` for the last core's tail.
//!
//! ```sh
//! cargo run --release --example abs_diff -- --len 1000003 --cores 48
//! ```

use ascend_kernels::cli::{main_with, Args, ExampleResult, Summary};
use ascend_kernels::data::random_vec;
use ascend_runtime::prelude::*;
use ascend_runtime::testing::{compare_close, Tolerance};
use bytemuck::{Pod, Zeroable};

/// The tiling data the host writes to GM.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct AbsDiffTiling {
    /// Elements in all.
    pub total_length: u32,
    /// Elements per core, a multiple of 16 (whole 32-byte blocks of `half`).
    pub block_length: u32,
    /// Elements per tile.
    pub tile_length: u32,
}

const BUFFER_NUM: usize = 2;

/// The kernel (`extern "C" __global__ __aicore__ void abs_diff(x, y, z, tiling)`).
pub fn abs_diff(x: GmAddr, y: GmAddr, z: GmAddr, tiling: GmAddr) {
    let t: AbsDiffTiling = get_tiling_data(tiling);
    let start = (get_block_idx() * t.block_length).min(t.total_length) as usize;
    let len = (t.block_length as usize).min(t.total_length as usize - start);
    let bind = |a: GmAddr| {
        let mut g = GlobalTensor::<f16>::new();
        g.set_global_buffer(a.add::<f16>(start), len);
        g
    };
    let (x_gm, y_gm, z_gm) = (bind(x), bind(y), bind(z));
    let mut pipe = TPipe::new();
    let (mut in_x, mut in_y) = (TQue::<VecIn, BUFFER_NUM>::new(), TQue::<VecIn, BUFFER_NUM>::new());
    let mut out_z = TQue::<VecOut, BUFFER_NUM>::new();
    let (tile, bytes) = (t.tile_length as usize, t.tile_length as usize * 2);
    pipe.init_buffer(&mut in_x, BUFFER_NUM, bytes);
    pipe.init_buffer(&mut in_y, BUFFER_NUM, bytes);
    pipe.init_buffer(&mut out_z, BUFFER_NUM, bytes);
    for off in (0..len).step_by(tile) {
        let n = tile.min(len - off);
        // CopyIn
        let (x_local, y_local) = (in_x.alloc_tensor::<f16>(), in_y.alloc_tensor::<f16>());
        data_copy_tail(&x_local, &x_gm.view(off), n);
        data_copy_tail(&y_local, &y_gm.view(off), n);
        in_x.enque(x_local);
        in_y.enque(y_local);
        // Compute
        let (x_local, y_local, z_local) =
            (in_x.deque::<f16>(), in_y.deque::<f16>(), out_z.alloc_tensor::<f16>());
        sub(&z_local, &x_local, &y_local, n);
        abs(&z_local, &z_local, n);
        out_z.enque(z_local);
        in_x.free_tensor(x_local);
        in_y.free_tensor(y_local);
        // CopyOut
        let z_local = out_z.deque::<f16>();
        data_copy_tail(&z_gm.view(off), &z_local, n);
        out_z.free_tensor(z_local);
    }
}

/// Host side: `|x - y|` on `cores` cores of `soc`.
///
/// # Errors
/// The launch's error.
pub fn run_abs_diff(
    soc: Soc,
    x: &[f16],
    y: &[f16],
    cores: u32,
) -> Result<(Vec<f16>, LaunchStats), LaunchError> {
    let block_length = x.len().div_ceil(cores as usize).next_multiple_of(16) as u32;
    let tiling = AbsDiffTiling { total_length: x.len() as u32, block_length, tile_length: 2048 };
    let (xg, yg, zg) = (GmBuffer::from_slice(x), GmBuffer::from_slice(y), GmBuffer::<f16>::zeroed(x.len()));
    let tg = GmBuffer::from_tiling(&tiling);
    let (xa, ya, za, ta) = (xg.addr(), yg.addr(), zg.addr(), tg.addr());
    let stats = Launch::new(soc).block_dim(cores).run(|| abs_diff(xa, ya, za, ta))?;
    Ok((zg.to_vec(), stats))
}

#[allow(dead_code)] // Also compiled as a module of the trial-kernel tests.
fn main() {
    main_with(&["len", "cores", "soc"], run);
}

fn run(args: &Args) -> ExampleResult {
    let len = args.len.unwrap_or(48 * 4096 + 7);
    let (x, y): (Vec<f16>, Vec<f16>) = (random_vec(len, 1, -100.0, 100.0), random_vec(len, 2, -100.0, 100.0));
    let (z, stats) = run_abs_diff(args.soc, &x, &y, args.cores.unwrap_or(48))?;
    let exact: Vec<f64> = x.iter().zip(&y).map(|(a, b)| (a.to_f64() - b.to_f64()).abs()).collect();
    let verdict = compare_close(&z, &exact, Tolerance::of::<f16>());
    Summary::of::<f16>("abs_diff", &stats, z.len(), verdict).finish()
}
