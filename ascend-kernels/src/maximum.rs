//! `maximum`: `z = max(x, y)` elementwise with `Compare` and `Select`.
//!
//! For each tile, `compare(&mask, &x, &y, CMPMODE::GT, n)` writes one bit per element
//! (`x > y`), and `select` in tensor-tensor mode (`VSEL_TENSOR_TENSOR_MODE`, mode 2) takes
//! `x` where the bit is set and `y` where it is clear. `Compare`'s count form works on whole
//! 256-byte repeats, so the tile length is a multiple of one repeat and a short last tile is
//! computed over its whole last repeat (only its `len` elements are written back).
//!
//! With a NaN on either side `x > y` is false, so the result is `y` (as the hardware's
//! compare-and-select gives). Select mode 2 does not exist on Ascend910: the kernel fails
//! there with the chip named.
//!
//! ```
//! use ascend_kernels::maximum::{maximum_reference, run_maximum};
//! use ascend_kernels::tiling::TilingConfig;
//! use ascend_runtime::prelude::*;
//!
//! let x: Vec<f32> = (0..1000).map(|i| (i % 13) as f32).collect();
//! let y: Vec<f32> = (0..1000).map(|i| (i % 7) as f32).collect();
//! let (z, _) = run_maximum(Soc::Ascend910B, &x, &y, &TilingConfig::new::<f32>(1000, 4)).unwrap();
//! assert_eq!(z, maximum_reference(&x, &y));
//! ```

use ascend_runtime::prelude::*;

use crate::tiling::{copy_gm_to_ub, copy_ub_to_gm, TilingConfig, BUFFER_NUM};

const API: &str = "Maximum";

/// Element types of the kernel: those `Compare` and `Select` both accept (`f16`, `f32`).
pub trait MaximumElement: CompareElement + SelectElement {}
impl<T: CompareElement + SelectElement> MaximumElement for T {}

/// One core's state of the `maximum` kernel.
pub struct KernelMaximum<T: MaximumElement> {
    pipe: TPipe,
    in_queue_x: TQue<VecIn, BUFFER_NUM>,
    in_queue_y: TQue<VecIn, BUFFER_NUM>,
    out_queue_z: TQue<VecOut, BUFFER_NUM>,
    mask_buf: TBuf<VecCalc>,
    x_gm: GlobalTensor<T>,
    y_gm: GlobalTensor<T>,
    z_gm: GlobalTensor<T>,
    tiling: TilingConfig,
    block_length: usize,
}

impl<T: MaximumElement> Default for KernelMaximum<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: MaximumElement> KernelMaximum<T> {
    /// A kernel object with unbound tensors and no buffers.
    pub fn new() -> Self {
        KernelMaximum {
            pipe: TPipe::new(),
            in_queue_x: TQue::new(),
            in_queue_y: TQue::new(),
            out_queue_z: TQue::new(),
            mask_buf: TBuf::new(),
            x_gm: GlobalTensor::new(),
            y_gm: GlobalTensor::new(),
            z_gm: GlobalTensor::new(),
            tiling: TilingConfig::default(),
            block_length: 0,
        }
    }

    /// Binds this core's slice of `x`, `y` and `z` and carves the buffers (the three queues
    /// and one bit per tile element for the comparison mask).
    ///
    /// # Panics
    /// Panics if the tile length is not a positive multiple of one 256-byte repeat, a buffer
    /// does not hold the core's slice, or the buffers do not fit in UB.
    #[track_caller]
    pub fn init(&mut self, x: GmAddr, y: GmAddr, z: GmAddr, tiling: &TilingConfig) {
        tiling.check::<T>(API, T::PAR);
        self.tiling = *tiling;
        let range = tiling.core_range::<T>(get_block_idx());
        self.block_length = range.len();
        self.x_gm.set_global_buffer(x.add::<T>(range.start), self.block_length);
        self.y_gm.set_global_buffer(y.add::<T>(range.start), self.block_length);
        self.z_gm.set_global_buffer(z.add::<T>(range.start), self.block_length);
        let tile_bytes = tiling.tile_length * T::SIZE;
        self.pipe.init_buffer(&mut self.in_queue_x, BUFFER_NUM, tile_bytes);
        self.pipe.init_buffer(&mut self.in_queue_y, BUFFER_NUM, tile_bytes);
        self.pipe.init_buffer(&mut self.out_queue_z, BUFFER_NUM, tile_bytes);
        self.pipe.init_tbuf(&mut self.mask_buf, tiling.tile_length / 8);
    }

    /// Runs the three stages over every tile of this core's slice.
    #[track_caller]
    pub fn process(&mut self) {
        let tiling = self.tiling;
        for (offset, len) in tiling.tiles(self.block_length) {
            self.copy_in(offset, len);
            self.compute(len);
            self.copy_out(offset, len);
        }
    }

    /// GM → UB: one tile of `x` and of `y`.
    #[track_caller]
    fn copy_in(&mut self, offset: usize, len: usize) {
        let x_local = self.in_queue_x.alloc_tensor::<T>();
        let y_local = self.in_queue_y.alloc_tensor::<T>();
        copy_gm_to_ub(&x_local, &self.x_gm.view(offset), len);
        copy_gm_to_ub(&y_local, &self.y_gm.view(offset), len);
        self.in_queue_x.enque(x_local);
        self.in_queue_y.enque(y_local);
    }

    /// `mask = x > y`, then `z = mask ? x : y`, over whole repeats.
    #[track_caller]
    fn compute(&mut self, len: usize) {
        let x_local = self.in_queue_x.deque::<T>();
        let y_local = self.in_queue_y.deque::<T>();
        let z_local = self.out_queue_z.alloc_tensor::<T>();
        let mask = self.mask_buf.get::<u8>();
        let count = len.next_multiple_of(T::PAR);
        compare(&mask, &x_local, &y_local, CMPMODE::GT, count);
        select(&z_local, &mask, &x_local, &y_local, SelMode::VselTensorTensorMode, count);
        self.out_queue_z.enque(z_local);
        self.in_queue_x.free_tensor(x_local);
        self.in_queue_y.free_tensor(y_local);
    }

    /// UB → GM: the `len` result elements.
    #[track_caller]
    fn copy_out(&mut self, offset: usize, len: usize) {
        let z_local = self.out_queue_z.deque::<T>();
        copy_ub_to_gm(&self.z_gm.view(offset), &z_local, len);
        self.out_queue_z.free_tensor(z_local);
    }
}

/// The kernel entry point: `z = max(x, y)` over this core's share.
///
/// # Panics
/// As [`KernelMaximum::init`], and on Ascend910 (no select mode 2).
#[track_caller]
pub fn maximum<T: MaximumElement>(x: GmAddr, y: GmAddr, z: GmAddr, tiling: &TilingConfig) {
    let mut op = KernelMaximum::<T>::new();
    op.init(x, y, z, tiling);
    op.process();
}

/// Host side: launches [`maximum`] and returns `z`.
///
/// # Errors
/// The [`LaunchError`] of a failing core.
///
/// # Panics
/// Panics if `x` or `y` does not hold `tiling.total_length` elements.
pub fn run_maximum<T: MaximumElement>(
    soc: Soc,
    x: &[T],
    y: &[T],
    tiling: &TilingConfig,
) -> Result<(Vec<T>, LaunchStats), LaunchError> {
    assert_eq!(
        x.len(),
        tiling.total_length,
        "x holds {} elements, the tiling {}",
        x.len(),
        tiling.total_length
    );
    assert_eq!(
        y.len(),
        tiling.total_length,
        "y holds {} elements, the tiling {}",
        y.len(),
        tiling.total_length
    );
    let (xg, yg, zg) = (GmBuffer::from_slice(x), GmBuffer::from_slice(y), GmBuffer::<T>::zeroed(x.len()));
    let (xa, ya, za, t) = (xg.addr(), yg.addr(), zg.addr(), *tiling);
    let stats = Launch::new(soc)
        .block_dim(tiling.block_dim)
        .run(move || maximum::<T>(xa.clone(), ya.clone(), za.clone(), &t))?;
    Ok((zg.to_vec(), stats))
}

/// Host reference: `if x > y { x } else { y }` per element.
pub fn maximum_reference<T: Element>(x: &[T], y: &[T]) -> Vec<T> {
    x.iter().zip(y).map(|(&a, &b)| if a > b { a } else { b }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::random_vec;
    use ascend_runtime::testing::assert_bits_eq;

    fn check<T: MaximumElement>(soc: Soc, tiling: TilingConfig, seed: u64) {
        let n = tiling.total_length;
        let x = random_vec::<T>(n, seed, -100.0, 100.0);
        let y = random_vec::<T>(n, seed + 1, -100.0, 100.0);
        let (z, _) = run_maximum(soc, &x, &y, &tiling).unwrap();
        assert_bits_eq(&z, &maximum_reference(&x, &y));
    }

    macro_rules! per_type {
        ($($t:ident),*) => {$(
            paste::paste! {
                #[test]
                fn [<shapes_and_core_counts_ $t>]() {
                    for (n, cores) in [(1, 1), (300, 1), (8 * 2048, 8), (10_007, 8), (48 * 256, 48), (999, 48)] {
                        for tiles in [1, 4] {
                            let t = TilingConfig { total_length: n, block_dim: cores, tile_length: tiles * <$t as Element>::PAR };
                            check::<$t>(Soc::Ascend910B, t, n as u64);
                        }
                    }
                }

                #[test]
                fn [<aligned_on_chips_with_mode_2_ $t>]() {
                    for soc in [Soc::Ascend310P, Soc::Ascend310B, Soc::Ascend910B] {
                        check::<$t>(soc, TilingConfig::new::<$t>(8 * 1024, 8), 3);
                    }
                }
            }
        )*};
    }

    per_type!(f16, f32);

    #[test]
    fn equal_values_signed_zeros_and_nan() {
        let x = [1.0f32, -0.0, 0.0, f32::NAN, 2.0, f32::NEG_INFINITY, 5.0, f32::NAN];
        let y = [1.0f32, 0.0, -0.0, 3.0, f32::NAN, -1.0, f32::INFINITY, f32::NAN];
        let (z, _) = run_maximum(Soc::Ascend910B, &x, &y, &TilingConfig::new::<f32>(8, 1)).unwrap();
        assert_bits_eq(&z, &maximum_reference(&x, &y));
        assert_bits_eq(&z[..3], &[1.0, 0.0, -0.0]);
    }

    #[test]
    fn ascend910_has_no_select_mode_2() {
        let x = vec![1.0f32; 64];
        let e = run_maximum(Soc::Ascend910, &x, &x, &TilingConfig::new::<f32>(64, 1)).unwrap_err();
        assert!(e.to_string().contains("Ascend910"), "{e}");
    }

    #[test]
    fn tile_not_whole_repeats_is_an_error() {
        let x = vec![f16::ONE; 64];
        let e = run_maximum(Soc::Ascend910B, &x, &x, &TilingConfig::new::<f16>(64, 1).with_tile_length(64))
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("Maximum: tile_length = 64 is not a positive multiple of 128 half elements"),
            "{e}"
        );
    }
}
