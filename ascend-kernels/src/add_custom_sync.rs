//! `add_custom` the way current vendor samples write it: plain `TBuf` buffers ordered by hand
//! with `SetFlag` / `WaitFlag` instead of queues.
//!
//! Per tile: `DataCopy` x and y in (MTE2), `SetFlag/WaitFlag<MTE2_V>`, `Add` (V),
//! `SetFlag/WaitFlag<V_MTE3>`, `DataCopy` z out (MTE3). Because the buffers are reused by the
//! next tile, the next copy-in waits for the vector pipe to finish reading x and y
//! (`V_MTE2`) and the next `Add` waits for MTE3 to finish reading z (`MTE3_V`). Drop any of
//! the four events and the sanitizer names the race. The tiling reaches the kernel through
//! GM as a [`TilingData`] (AscendC's `GET_TILING_DATA`), as for [`add_custom`](crate::add_custom).
//!
//! ```
//! use ascend_kernels::add_custom::add_reference;
//! use ascend_kernels::add_custom_sync::run_add_custom_sync;
//! use ascend_kernels::tiling::TilingConfig;
//! use ascend_runtime::prelude::*;
//!
//! let x: Vec<f16> = (0..16384).map(|i| f16::from_f32((i % 100) as f32)).collect();
//! let y: Vec<f16> = (0..16384).map(|i| f16::from_f32((i % 7) as f32)).collect();
//! let (z, _) = run_add_custom_sync(Soc::Ascend910B, &x, &y, &TilingConfig::default()).unwrap();
//! assert_eq!(z, add_reference(&x, &y));
//! ```

use ascend_runtime::prelude::*;

use crate::elementwise::run_binary;
use crate::tiling::{copy_gm_to_ub, copy_ub_to_gm, TilingConfig, TilingData};

/// The kernel entry point: `z = x + y` over this core's share, synchronised with events; the
/// tiling read from the [`TilingData`] at `tiling` (AscendC `GET_TILING_DATA`).
///
/// # Panics
/// As `get_tiling_data` (a tiling buffer of fewer than `size_of::<TilingData>()` bytes) and
/// the AscendC calls it makes (see [`add_custom`](crate::add_custom::add_custom)).
#[track_caller]
pub fn add_custom_sync<T: AddElement>(x: GmAddr, y: GmAddr, z: GmAddr, tiling: GmAddr) {
    let tiling: TilingConfig = get_tiling_data::<TilingData>(tiling).into();
    tiling.check::<T>("AddCustomSync", T::EPB);
    let range = tiling.core_range::<T>(get_block_idx());
    let len = range.len();
    let bind = |addr: &GmAddr| {
        let mut g = GlobalTensor::<T>::new();
        g.set_global_buffer(addr.add::<T>(range.start), len);
        g
    };
    let (x_gm, y_gm, z_gm) = (bind(&x), bind(&y), bind(&z));
    let mut pipe = TPipe::new();
    let (mut x_buf, mut y_buf, mut z_buf) =
        (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
    let tile_bytes = tiling.tile_length * T::SIZE;
    pipe.init_tbuf(&mut x_buf, tile_bytes);
    pipe.init_tbuf(&mut y_buf, tile_bytes);
    pipe.init_tbuf(&mut z_buf, tile_bytes);
    let (x_local, y_local, z_local) = (x_buf.get::<T>(), y_buf.get::<T>(), z_buf.get::<T>());
    let ev_in = pipe.fetch_event_id::<HardEvent::MTE2_V>();
    let ev_out = pipe.fetch_event_id::<HardEvent::V_MTE3>();
    let ev_reuse_in = pipe.fetch_event_id::<HardEvent::V_MTE2>();
    let ev_reuse_out = pipe.fetch_event_id::<HardEvent::MTE3_V>();
    for (i, (offset, n)) in tiling.tiles(len).enumerate() {
        if i > 0 {
            wait_flag::<HardEvent::V_MTE2>(ev_reuse_in);
        }
        copy_gm_to_ub(&x_local, &x_gm.view(offset), n);
        copy_gm_to_ub(&y_local, &y_gm.view(offset), n);
        set_flag::<HardEvent::MTE2_V>(ev_in);
        wait_flag::<HardEvent::MTE2_V>(ev_in);
        if i > 0 {
            wait_flag::<HardEvent::MTE3_V>(ev_reuse_out);
        }
        add(&z_local, &x_local, &y_local, n.next_multiple_of(T::EPB));
        set_flag::<HardEvent::V_MTE2>(ev_reuse_in);
        set_flag::<HardEvent::V_MTE3>(ev_out);
        wait_flag::<HardEvent::V_MTE3>(ev_out);
        copy_ub_to_gm(&z_gm.view(offset), &z_local, n);
        set_flag::<HardEvent::MTE3_V>(ev_reuse_out);
    }
    if len > 0 {
        // The last tile's flags: consume them before the kernel ends.
        wait_flag::<HardEvent::V_MTE2>(ev_reuse_in);
        wait_flag::<HardEvent::MTE3_V>(ev_reuse_out);
    }
}

/// Host side: copies `x` and `y` to GM, launches [`add_custom_sync`] on `tiling.block_dim`
/// cores of `soc`, and returns `z` with the launch statistics.
///
/// # Errors
/// The [`LaunchError`] of a failing core.
///
/// # Panics
/// Panics if `x` or `y` does not hold `tiling.total_length` elements.
pub fn run_add_custom_sync<T: AddElement>(
    soc: Soc,
    x: &[T],
    y: &[T],
    tiling: &TilingConfig,
) -> Result<(Vec<T>, LaunchStats), LaunchError> {
    run_binary(soc, x, y, tiling, add_custom_sync::<T>)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::add_custom::add_reference;
    use crate::data::random_vec;
    use ascend_runtime::testing::assert_bits_eq;

    #[test]
    fn matches_the_queue_version_bit_for_bit() {
        for (n, cores, tile) in [(16384, 8, 128), (16384 + 7, 8, 1024), (100, 3, 16), (48 * 16, 48, 16)] {
            let t = TilingConfig { total_length: n, block_dim: cores, tile_length: tile };
            let x = random_vec::<f16>(n, n as u64, -100.0, 100.0);
            let y = random_vec::<f16>(n, n as u64 + 1, -100.0, 100.0);
            let (z, _) = run_add_custom_sync(Soc::Ascend910B, &x, &y, &t).unwrap();
            assert_bits_eq(&z, &add_reference(&x, &y));
        }
    }

    #[test]
    fn the_kernel_reads_its_tiling_from_gm() {
        // 300 elements in the tiling, buffers of 640: z's tail stays as it was.
        let x = random_vec::<f16>(640, 5, -100.0, 100.0);
        let tiling = GmBuffer::from_tiling(&TilingData::from(TilingConfig::new::<f16>(300, 2)));
        let (xg, zg) = (GmBuffer::from_slice(&x), GmBuffer::from_vec(vec![f16::ONE; 640]));
        let (xa, za, t) = (xg.addr(), zg.addr(), tiling.addr());
        Launch::new(Soc::Ascend910B).block_dim(2).run(move || add_custom_sync::<f16>(xa, xa, za, t)).unwrap();
        let z = zg.to_vec();
        assert_bits_eq(&z[..300], &add_reference(&x[..300], &x[..300]));
        assert!(z[300..].iter().all(|&v| v == f16::ONE));
    }

    #[test]
    fn too_small_a_tiling_buffer_is_an_error() {
        let buf = GmBuffer::<f16>::zeroed(64);
        let a = buf.addr();
        crate::host::assert_tiling_too_small::<TilingData>(|t| add_custom_sync::<f16>(a, a, a, t));
    }
}
