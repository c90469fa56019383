//! A trial kernel: the sum of a vector on 48 cores through a GM workspace and `SyncAll`, as an
//! AscendC kernel writes it — tiling data in GM, each core sums its slice tile by tile
//! (`DataCopy`/`DataCopyPad` for the tail, `ReduceSum`), writes its partial sum to the
//! workspace, all cores meet in `SyncAll`, and core 0 adds the partials.
//!
//! ```sh
//! cargo run --release --example sum_cores -- --len 1000003 --cores 48
//! ```

use ascend_kernels::cli::{main_with, Args, ExampleResult, Summary};
use ascend_kernels::data::random_vec;
use ascend_runtime::prelude::*;
use ascend_runtime::testing::{compare_close, Tolerance};
use bytemuck::{Pod, Zeroable};

/// The tiling data the host writes to GM (`BEGIN_TILING_DATA_DEF(SumTiling)`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct SumTiling {
    /// Elements in all.
    pub total_length: u32,
    /// Elements per core (a multiple of 8: each core's slice starts 32-byte aligned).
    pub block_length: u32,
    /// Elements per tile.
    pub tile_length: u32,
}

const TILE: u32 = 4096;

/// The kernel: `z[0] = sum(x)`; `workspace` holds one 32-byte block per core.
pub fn sum_kernel(x: GmAddr, z: GmAddr, workspace: GmAddr, tiling: GmAddr) {
    let t: SumTiling = get_tiling_data(tiling);
    let (idx, cores) = (get_block_idx() as usize, get_block_num() as usize);
    let start = (idx * t.block_length as usize).min(t.total_length as usize);
    let len = (t.block_length as usize).min(t.total_length as usize - start);
    let (mut x_gm, mut ws_gm, mut z_gm) =
        (GlobalTensor::<f32>::new(), GlobalTensor::new(), GlobalTensor::new());
    x_gm.set_global_buffer(x.add::<f32>(start), len);
    ws_gm.set_global_buffer(workspace, cores * 8);
    z_gm.set_global_buffer(z, 1);

    let mut pipe = TPipe::new();
    let [mut in_buf, mut out_buf, mut work_buf] = [0; 3].map(|_| TBuf::<VecCalc>::new());
    pipe.init_tbuf(&mut in_buf, t.tile_length as usize * 4);
    pipe.init_tbuf(&mut out_buf, cores.next_multiple_of(8) * 8 * 4);
    pipe.init_tbuf(&mut work_buf, t.tile_length as usize * 4);
    let (x_local, out, work) = (in_buf.get::<f32>(), out_buf.get::<f32>(), work_buf.get::<f32>());

    let mut acc = 0.0f32;
    for off in (0..len).step_by(t.tile_length as usize) {
        let n = (t.tile_length as usize).min(len - off);
        data_copy_tail(&x_local, &x_gm.view(off), n);
        reduce_sum(&out, &x_local, &work, n as i32);
        acc += out.get_value(0);
    }
    duplicate(&out, 0.0f32, 8);
    out.set_value(0, acc);
    data_copy(&ws_gm.view(idx * 8), &out, 8);

    sync_all();
    if idx == 0 {
        data_copy(&out, &ws_gm, cores * 8);
        let total: f32 = (0..cores).map(|c| out.get_value(c * 8)).sum();
        z_gm.set_value(0, total);
    }
}

/// Host side: `sum(x)` on `cores` cores of `soc`.
///
/// # Errors
/// The launch's error.
pub fn run_sum(soc: Soc, x: &[f32], cores: u32) -> Result<(f32, LaunchStats), LaunchError> {
    let block_length = (x.len().div_ceil(cores as usize)).next_multiple_of(8) as u32;
    let tiling = SumTiling { total_length: x.len() as u32, block_length, tile_length: TILE };
    let (xg, z, ws, tg) = (
        GmBuffer::from_slice(x),
        GmBuffer::<f32>::zeroed(1),
        GmBuffer::<f32>::zeroed(cores as usize * 8),
        GmBuffer::from_tiling(&tiling),
    );
    let (xa, za, wa, ta) = (xg.addr(), z.addr(), ws.addr(), tg.addr());
    let stats = Launch::new(soc).block_dim(cores).sync_all(true).run(|| sum_kernel(xa, za, wa, ta))?;
    Ok((z.to_vec()[0], stats))
}

#[allow(dead_code)] // Also compiled as a module of the trial-kernel tests.
fn main() {
    main_with(&["len", "cores", "soc"], run);
}

fn run(args: &Args) -> ExampleResult {
    let x: Vec<f32> = random_vec(args.len.unwrap_or(1 << 20), 1, 0.0, 1.0);
    let (sum, stats) = run_sum(args.soc, &x, args.cores.unwrap_or(48))?;
    let exact: f64 = x.iter().map(|&v| f64::from(v)).sum();
    let verdict = compare_close(&[sum], &[exact], Tolerance::of::<f32>());
    Summary::of::<f32>("sum_cores", &stats, x.len(), verdict).finish()
}
