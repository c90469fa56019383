//! `sub_custom`: `z = x - y` elementwise, the [`add_custom`](crate::add_custom) pattern over
//! `Sub`, generic over the element types `Sub` supports (`half`, `float`, `int16_t`,
//! `int32_t`; `int16_t` not on Ascend910).
//!
//! Integer differences wrap; `f16` differences are rounded once to nearest-even.
//!
//! ```
//! use ascend_kernels::sub_custom::{run_sub_custom, sub_reference};
//! use ascend_kernels::tiling::TilingConfig;
//! use ascend_runtime::prelude::*;
//!
//! let x: Vec<i32> = (0..1000).collect();
//! let y: Vec<i32> = (0..1000).map(|i| 2 * i).collect();
//! let t = TilingConfig::new::<i32>(1000, 4);
//! let (z, _) = run_sub_custom(Soc::Ascend910B, &x, &y, &t).unwrap();
//! assert_eq!(z[999], -999);
//! assert_eq!(z, sub_reference(&x, &y));
//! ```
//!
//! Only the four `Sub` types compile:
//! ```compile_fail
//! use ascend_kernels::sub_custom::sub_custom;
//! use ascend_kernels::tiling::TilingConfig;
//! use ascend_runtime::prelude::*;
//! fn k(x: GmAddr, y: GmAddr, z: GmAddr) { sub_custom::<u8>(x, y, z, &TilingConfig::default()); }
//! ```

use ascend_runtime::prelude::*;

use crate::tiling::{copy_gm_to_ub, copy_ub_to_gm, TilingConfig, BUFFER_NUM};

/// The name checks of this kernel report.
const API: &str = "SubCustom";

/// One core's state of the `sub_custom` kernel (the `add_custom` sample's class with `Sub`).
pub struct KernelSub<T: SubElement> {
    pipe: TPipe,
    in_queue_x: TQue<VecIn, BUFFER_NUM>,
    in_queue_y: TQue<VecIn, BUFFER_NUM>,
    out_queue_z: TQue<VecOut, BUFFER_NUM>,
    x_gm: GlobalTensor<T>,
    y_gm: GlobalTensor<T>,
    z_gm: GlobalTensor<T>,
    tiling: TilingConfig,
    block_length: usize,
}

impl<T: SubElement> Default for KernelSub<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: SubElement> KernelSub<T> {
    /// A kernel object with unbound tensors and queues without buffers.
    pub fn new() -> Self {
        KernelSub {
            pipe: TPipe::new(),
            in_queue_x: TQue::new(),
            in_queue_y: TQue::new(),
            out_queue_z: TQue::new(),
            x_gm: GlobalTensor::new(),
            y_gm: GlobalTensor::new(),
            z_gm: GlobalTensor::new(),
            tiling: TilingConfig::default(),
            block_length: 0,
        }
    }

    /// Binds this core's slice of `x`, `y` and `z` and carves the queues' buffers.
    ///
    /// # Panics
    /// Panics if the tiling is unusable (tile length not a positive multiple of one 32-byte
    /// block), a buffer does not hold the core's slice, or the tiles do not fit in UB.
    #[track_caller]
    pub fn init(&mut self, x: GmAddr, y: GmAddr, z: GmAddr, tiling: &TilingConfig) {
        tiling.check::<T>(API, T::EPB);
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

    /// GM → UB: one tile of `x` and of `y` into fresh queue buffers, enqueued.
    #[track_caller]
    fn copy_in(&mut self, offset: usize, len: usize) {
        let x_local = self.in_queue_x.alloc_tensor::<T>();
        let y_local = self.in_queue_y.alloc_tensor::<T>();
        copy_gm_to_ub(&x_local, &self.x_gm.view(offset), len);
        copy_gm_to_ub(&y_local, &self.y_gm.view(offset), len);
        self.in_queue_x.enque(x_local);
        self.in_queue_y.enque(y_local);
    }

    /// `z = x - y` on one tile.
    #[track_caller]
    fn compute(&mut self, len: usize) {
        let x_local = self.in_queue_x.deque::<T>();
        let y_local = self.in_queue_y.deque::<T>();
        let z_local = self.out_queue_z.alloc_tensor::<T>();
        sub(&z_local, &x_local, &y_local, len);
        self.out_queue_z.enque(z_local);
        self.in_queue_x.free_tensor(x_local);
        self.in_queue_y.free_tensor(y_local);
    }

    /// UB → GM: the result tile back to `z`.
    #[track_caller]
    fn copy_out(&mut self, offset: usize, len: usize) {
        let z_local = self.out_queue_z.deque::<T>();
        copy_ub_to_gm(&self.z_gm.view(offset), &z_local, len);
        self.out_queue_z.free_tensor(z_local);
    }
}

/// The kernel entry point: `z = x - y` over this core's share of `tiling.total_length`
/// elements (the `add_custom` sample with `Sub`).
///
/// # Panics
/// As [`KernelSub::init`] and the AscendC calls it makes (`Sub` of `int16_t` on Ascend910,
/// `DataCopyPad` for a partial block on Ascend910 / Ascend310P).
#[track_caller]
pub fn sub_custom<T: SubElement>(x: GmAddr, y: GmAddr, z: GmAddr, tiling: &TilingConfig) {
    let mut op = KernelSub::<T>::new();
    op.init(x, y, z, tiling);
    op.process();
}

/// Host side: copies `x` and `y` to GM, launches [`sub_custom`] on `tiling.block_dim` cores
/// of `soc`, and returns `z` with the launch statistics.
///
/// # Errors
/// The [`LaunchError`] of a failing core (with the core, API and message).
///
/// # Panics
/// Panics if `x` or `y` does not hold `tiling.total_length` elements.
pub fn run_sub_custom<T: SubElement>(
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
        .run(move || sub_custom::<T>(xa.clone(), ya.clone(), za.clone(), &t))?;
    Ok((zg.to_vec(), stats))
}

/// Host reference: `x[i] - y[i]`, each difference rounded once (`f16`), wrapping (integers).
/// Inputs are expected not to overflow `f16` (the chips differ there: saturation or inf).
pub fn sub_reference<T: Element>(x: &[T], y: &[T]) -> Vec<T> {
    x.iter().zip(y).map(|(&a, &b)| T::sub(a, b)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::random_vec;
    use ascend_runtime::testing::assert_bits_eq;

    fn check<T: SubElement>(soc: Soc, tiling: TilingConfig, seed: u64, lo: f64, hi: f64) {
        let n = tiling.total_length;
        let x = random_vec::<T>(n, seed, lo, hi);
        let y = random_vec::<T>(n, seed + 1, lo, hi);
        let (z, _) = run_sub_custom(soc, &x, &y, &tiling).unwrap();
        assert_bits_eq(&z, &sub_reference(&x, &y));
    }

    macro_rules! per_type {
        ($($t:ident: $lo:expr, $hi:expr);* $(;)?) => {$(
            paste::paste! {
                #[test]
                fn [<shapes_and_core_counts_ $t>]() {
                    for (n, cores) in [(1, 1), (100, 1), (4096, 8), (10_000 + 5, 8), (48 * 64, 48), (777, 48)] {
                        for tile in [64, 512] {
                            let t = TilingConfig { total_length: n, block_dim: cores, tile_length: tile };
                            check::<$t>(Soc::Ascend910B, t, n as u64, $lo, $hi);
                        }
                    }
                }

                #[test]
                fn [<vendor_tiling_on_aligned_chips_ $t>]() {
                    for soc in [Soc::Ascend310P, Soc::Ascend310B, Soc::Ascend910B] {
                        check::<$t>(soc, TilingConfig::new::<$t>(8 * 2048, 8), 11, $lo, $hi);
                    }
                }
            }
        )*};
    }

    per_type! {
        f16: -1000.0, 1000.0;
        f32: -1.0e6, 1.0e6;
        i16: -32768.0, 32767.0;
        i32: -2.0e9, 2.0e9;
    }

    #[test]
    fn integers_wrap() {
        let t = TilingConfig::new::<i16>(16, 1);
        let (z, _) = run_sub_custom(Soc::Ascend910B, &[i16::MIN; 16], &[1i16; 16], &t).unwrap();
        assert_eq!(z, vec![i16::MAX; 16]);
    }

    #[test]
    fn int16_sub_is_not_on_ascend910() {
        let t = TilingConfig::new::<i16>(256, 2);
        let e = run_sub_custom(Soc::Ascend910, &[1i16; 256], &[1i16; 256], &t).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("Sub") && msg.contains("Ascend910"), "{msg}");
    }

    #[test]
    fn f32_on_ascend910() {
        check::<f32>(Soc::Ascend910, TilingConfig::new::<f32>(64 * 100, 8), 3, -10.0, 10.0);
    }
}
