//! `leaky_relu`: `y = x >= 0 ? x : alpha * x`, the vendor's LeakyReLU sample pattern — one
//! input queue, one output queue, the `LeakyRelu` instruction on each tile.
//!
//! As in the vendor's sample, the slope travels with the split in the tiling data
//! (`LeakyReluCustomTilingData`: `totalLength`, `tileNum`, `negativeSlope`): the host writes a
//! [`LeakyReluTilingData`] to GM with `GmBuffer::from_tiling` and the kernel reads it back with
//! `get_tiling_data` (`GET_TILING_DATA`). The slope is a `float` there; `half` and `float`
//! slopes go through it unchanged.
//!
//! ```
//! use ascend_kernels::leaky_relu::{leaky_relu_reference, run_leaky_relu};
//! use ascend_kernels::tiling::TilingConfig;
//! use ascend_runtime::prelude::*;
//!
//! let x: Vec<f32> = (0..1000).map(|i| i as f32 - 500.0).collect();
//! let t = TilingConfig::new::<f32>(1000, 4);
//! let (y, _) = run_leaky_relu(Soc::Ascend910B, &x, 0.25, &t).unwrap();
//! assert_eq!((y[0], y[999]), (-125.0, 499.0));
//! assert_eq!(y, leaky_relu_reference(&x, 0.25));
//! ```

use ascend_runtime::prelude::*;

use crate::host::{check_input_len, run_on_gm};
use crate::tiling::{TilingConfig, BUFFER_NUM};

/// The tiling data of the LeakyReLU kernel as the host writes it to GM and the kernel reads
/// it back with `get_tiling_data` (the vendor's `LeakyReluCustomTilingData`): the split of a
/// [`TilingConfig`] and the slope, a `#[repr(C)]`, `Pod` struct of fixed-size fields.
///
/// ```
/// use ascend_kernels::leaky_relu::LeakyReluTilingData;
/// use ascend_kernels::tiling::TilingConfig;
/// let t = LeakyReluTilingData::new(TilingConfig::default(), 0.25);
/// assert_eq!((TilingConfig::from(t), t.negative_slope), (TilingConfig::default(), 0.25));
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct LeakyReluTilingData {
    /// Elements in all.
    pub total_length: u64,
    /// Elements per tile.
    pub tile_length: u64,
    /// Cores (`blockDim`).
    pub block_dim: u32,
    /// The slope of the negative half-axis (`negativeSlope`).
    pub negative_slope: f32,
}

impl LeakyReluTilingData {
    /// The split `tiling` with the slope `negative_slope`.
    pub fn new(tiling: TilingConfig, negative_slope: f32) -> Self {
        LeakyReluTilingData {
            total_length: tiling.total_length as u64,
            tile_length: tiling.tile_length as u64,
            block_dim: tiling.block_dim,
            negative_slope,
        }
    }
}

impl From<LeakyReluTilingData> for TilingConfig {
    fn from(t: LeakyReluTilingData) -> Self {
        TilingConfig {
            total_length: t.total_length as usize,
            block_dim: t.block_dim,
            tile_length: t.tile_length as usize,
        }
    }
}

/// One core's state of the LeakyReLU kernel (the sample's `KernelLeakyRelu` class).
pub struct KernelLeakyRelu<T: LeakyReluElement> {
    pipe: TPipe,
    in_queue_x: TQue<VecIn, BUFFER_NUM>,
    out_queue_y: TQue<VecOut, BUFFER_NUM>,
    x_gm: GlobalTensor<T>,
    y_gm: GlobalTensor<T>,
    tiling: TilingConfig,
    block_length: usize,
    alpha: T,
}

impl<T: LeakyReluElement> Default for KernelLeakyRelu<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: LeakyReluElement> KernelLeakyRelu<T> {
    /// A kernel object with unbound tensors and queues without buffers.
    pub fn new() -> Self {
        KernelLeakyRelu {
            pipe: TPipe::new(),
            in_queue_x: TQue::new(),
            out_queue_y: TQue::new(),
            x_gm: GlobalTensor::new(),
            y_gm: GlobalTensor::new(),
            tiling: TilingConfig::default(),
            block_length: 0,
            alpha: T::ZERO,
        }
    }

    /// Binds this core's slice of `x` and `y`, keeps `alpha`, carves the queues' buffers.
    ///
    /// # Panics
    /// Panics if the tiling is unusable or the tiles do not fit in UB.
    pub fn init(&mut self, x: GmAddr, y: GmAddr, alpha: T, tiling: &TilingConfig) {
        tiling.check::<T>("LeakyReluCustom", T::EPB);
        self.tiling = *tiling;
        self.alpha = alpha;
        let range = tiling.core_range::<T>(get_block_idx());
        self.block_length = range.len();
        self.x_gm.set_global_buffer(x.add::<T>(range.start), self.block_length);
        self.y_gm.set_global_buffer(y.add::<T>(range.start), self.block_length);
        let tile_bytes = tiling.tile_length * T::SIZE;
        self.pipe.init_buffer(&mut self.in_queue_x, BUFFER_NUM, tile_bytes);
        self.pipe.init_buffer(&mut self.out_queue_y, BUFFER_NUM, tile_bytes);
    }

    /// Runs `copy_in`, `compute`, `copy_out` over every tile of this core's slice.
    pub fn process(&mut self) {
        let tiling = self.tiling;
        for (offset, len) in tiling.tiles(self.block_length) {
            self.copy_in(offset, len);
            self.compute(len);
            self.copy_out(offset, len);
        }
    }

    fn copy_in(&mut self, offset: usize, len: usize) {
        let x_local = self.in_queue_x.alloc_tensor::<T>();
        data_copy_tail(&x_local, &self.x_gm.view(offset), len);
        self.in_queue_x.enque(x_local);
    }

    fn compute(&mut self, len: usize) {
        let x_local = self.in_queue_x.deque::<T>();
        let y_local = self.out_queue_y.alloc_tensor::<T>();
        leaky_relu(&y_local, &x_local, self.alpha, len);
        self.out_queue_y.enque(y_local);
        self.in_queue_x.free_tensor(x_local);
    }

    fn copy_out(&mut self, offset: usize, len: usize) {
        let y_local = self.out_queue_y.deque::<T>();
        data_copy_tail(&self.y_gm.view(offset), &y_local, len);
        self.out_queue_y.free_tensor(y_local);
    }
}

/// The kernel entry point: `y = leaky_relu(x, alpha)` over this core's share, the split and
/// `alpha` read from the [`LeakyReluTilingData`] at `tiling` (AscendC `GET_TILING_DATA`; the
/// vendor's `leaky_relu_custom(x, y, workspace, tiling)`).
///
/// # Panics
/// As `get_tiling_data` (a tiling buffer of fewer than `size_of::<LeakyReluTilingData>()`
/// bytes), [`KernelLeakyRelu::init`] and the AscendC calls it makes (`LeakyRelu` does not
/// exist on Ascend910).
pub fn leaky_relu_custom<T: LeakyReluElement>(x: GmAddr, y: GmAddr, tiling: GmAddr) {
    let tiling_data = get_tiling_data::<LeakyReluTilingData>(tiling);
    let alpha = T::from_f64(f64::from(tiling_data.negative_slope));
    let mut op = KernelLeakyRelu::<T>::new();
    op.init(x, y, alpha, &tiling_data.into());
    op.process();
}

/// Host side: copies `x` and the tiling (with `alpha`, as `float`) to GM, launches
/// [`leaky_relu_custom`] on `tiling.block_dim` cores of `soc`, and returns `y` with the launch
/// statistics.
///
/// # Errors
/// The [`LaunchError`] of a failing core.
///
/// # Panics
/// Panics if `x` does not hold `tiling.total_length` elements.
pub fn run_leaky_relu<T: LeakyReluElement>(
    soc: Soc,
    x: &[T],
    alpha: T,
    tiling: &TilingConfig,
) -> Result<(Vec<T>, LaunchStats), LaunchError> {
    check_input_len("x", x, tiling.total_length);
    let tiling_gm = GmBuffer::from_tiling(&LeakyReluTilingData::new(*tiling, alpha.to_f64() as f32));
    let (t, launch) = (tiling_gm.addr(), Launch::new(soc).block_dim(tiling.block_dim));
    let ([y], stats) = run_on_gm(&launch, [x], [x.len()], move |[x], [y]| leaky_relu_custom::<T>(x, y, t))?;
    Ok((y, stats))
}

/// Host reference: `x` where `x >= 0`, else `alpha * x` computed in `f64` and rounded once.
pub fn leaky_relu_reference<T: Element>(x: &[T], alpha: T) -> Vec<T> {
    x.iter()
        .map(|&v| {
            let f = v.to_f64();
            if f >= 0.0 {
                v
            } else {
                T::from_f64(f * alpha.to_f64())
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::random_vec;
    use ascend_runtime::testing::{assert_bits_eq, assert_close, Tolerance};

    fn check<T: LeakyReluElement>(soc: Soc, n: usize, cores: u32, tile: usize) {
        let x = random_vec::<T>(n, n as u64 + 3, -100.0, 100.0);
        let alpha = T::from_f64(0.01);
        let t = TilingConfig { total_length: n, block_dim: cores, tile_length: tile };
        let (y, _) = run_leaky_relu(soc, &x, alpha, &t).unwrap();
        assert_close(&y, &leaky_relu_reference(&x, alpha), Tolerance::of::<T>());
    }

    #[test]
    fn cores_tiles_and_tails() {
        for (n, cores) in [(4096, 8), (8 * 2048 + 40, 8), (48 * 512, 48), (48 * 100 + 7, 48)] {
            for tile in [128, 2048] {
                check::<f32>(Soc::Ascend910B, n, cores, tile);
                check::<f16>(Soc::Ascend910B, n, cores, tile);
            }
        }
        check::<f16>(Soc::Ascend310B, 8 * 2048 + 16, 8, 256);
    }

    #[test]
    fn ascend910_has_no_leaky_relu() {
        let x = vec![1.0f32; 64];
        let t = TilingConfig::new::<f32>(64, 1);
        let e = run_leaky_relu(Soc::Ascend910, &x, 0.1, &t).unwrap_err();
        assert!(e.to_string().contains("T = float is not supported by LeakyRelu on Ascend910"), "{e}");
    }

    #[test]
    fn the_kernel_reads_its_tiling_from_gm() {
        // 333 elements in the tiling, buffers of 512: y's tail stays as it was; the slope is
        // the tiling's.
        let x = random_vec::<f16>(512, 9, -100.0, 100.0);
        for slope in [0.25f32, 0.1] {
            let (xg, yg) = (GmBuffer::from_slice(&x), GmBuffer::from_vec(vec![f16::ONE; 512]));
            let tiling_data = LeakyReluTilingData::new(TilingConfig::new::<f16>(333, 2), slope);
            let tiling = GmBuffer::from_tiling(&tiling_data);
            let (xa, ya, t) = (xg.addr(), yg.addr(), tiling.addr());
            Launch::new(Soc::Ascend910B)
                .block_dim(2)
                .run(move || leaky_relu_custom::<f16>(xa, ya, t))
                .unwrap();
            let y = yg.to_vec();
            assert_bits_eq(&y[..333], &leaky_relu_reference(&x[..333], f16::from_f32(slope)));
            assert!(y[333..].iter().all(|&v| v == f16::ONE));
        }
    }

    #[test]
    fn too_small_a_tiling_buffer_is_an_error() {
        let buf = GmBuffer::<f32>::zeroed(64);
        let a = buf.addr();
        crate::host::assert_tiling_too_small::<LeakyReluTilingData>(|t| leaky_relu_custom::<f32>(a, a, t));
    }
}
