//! `fill`: sets every element of a large GM buffer to one scalar with `Duplicate`.
//!
//! The kernel has no input: each tile of the output queue is filled in UB with
//! `duplicate(&tile, value, len)` (`compute`) and copied out (`copy_out`), double-buffered.
//! The tiling reaches the kernel through GM, as AscendC's tiling data does: the host writes a
//! [`TilingData`] with `GmBuffer::from_tiling` and the kernel reads it back with
//! `get_tiling_data` (`GET_TILING_DATA`).
//! Types are those of `Duplicate` (`half`, `bfloat16_t`, `int16_t`, `uint16_t`, `int32_t`,
//! `uint32_t`, `float`, as the chip supports them).
//!
//! ```
//! use ascend_kernels::fill::run_fill;
//! use ascend_runtime::prelude::*;
//!
//! let (v, _) = run_fill(Soc::Ascend910B, 100_000, 7u32, 8).unwrap();
//! assert!(v.iter().all(|&x| x == 7));
//! ```

use ascend_runtime::prelude::*;

use crate::host::run_on_gm;
use crate::tiling::{TilingConfig, TilingData, BUFFER_NUM};

const API: &str = "Fill";

/// One core's state of the `fill` kernel.
pub struct KernelFill<T: DuplicateElement> {
    pipe: TPipe,
    out_queue: TQue<VecOut, BUFFER_NUM>,
    dst_gm: GlobalTensor<T>,
    value: T,
    tiling: TilingConfig,
    block_length: usize,
}

impl<T: DuplicateElement> KernelFill<T> {
    /// A kernel object with an unbound tensor and a queue without buffers.
    pub fn new(value: T) -> Self {
        KernelFill {
            pipe: TPipe::new(),
            out_queue: TQue::new(),
            dst_gm: GlobalTensor::new(),
            value,
            tiling: TilingConfig::default(),
            block_length: 0,
        }
    }

    /// Binds this core's slice of `dst` and carves the output queue's buffers.
    ///
    /// # Panics
    /// Panics if the tiling is unusable, `dst` does not hold the core's slice, or the tiles
    /// do not fit in UB.
    pub fn init(&mut self, dst: GmAddr, tiling: &TilingConfig) {
        tiling.check::<T>(API, T::EPB);
        self.tiling = *tiling;
        let range = tiling.core_range::<T>(get_block_idx());
        self.block_length = range.len();
        self.dst_gm.set_global_buffer(dst.add::<T>(range.start), self.block_length);
        self.pipe.init_buffer(&mut self.out_queue, BUFFER_NUM, tiling.tile_length * T::SIZE);
    }

    /// Fills and writes out every tile of this core's slice.
    pub fn process(&mut self) {
        let tiling = self.tiling;
        for (offset, len) in tiling.tiles(self.block_length) {
            self.compute(len);
            self.copy_out(offset, len);
        }
    }

    /// `Duplicate` of the value into a fresh tile.
    fn compute(&mut self, len: usize) {
        let local = self.out_queue.alloc_tensor::<T>();
        duplicate(&local, self.value, len);
        self.out_queue.enque(local);
    }

    /// UB → GM.
    fn copy_out(&mut self, offset: usize, len: usize) {
        let local = self.out_queue.deque::<T>();
        data_copy_tail(&self.dst_gm.view(offset), &local, len);
        self.out_queue.free_tensor(local);
    }
}

/// The kernel entry point: `dst[i] = value` over this core's share of the elements, the
/// tiling read from the [`TilingData`] at `tiling` (AscendC `GET_TILING_DATA`).
///
/// # Panics
/// As `get_tiling_data` (a tiling buffer of fewer than `size_of::<TilingData>()` bytes),
/// [`KernelFill::init`] and `Duplicate` (a type the chip does not support).
pub fn fill<T: DuplicateElement>(dst: GmAddr, value: T, tiling: GmAddr) {
    let tiling_data: TilingConfig = get_tiling_data::<TilingData>(tiling).into();
    let mut op = KernelFill::new(value);
    op.init(dst, &tiling_data);
    op.process();
}

/// Host side: launches [`fill`] over a fresh GM buffer of `len` elements on `block_dim`
/// cores of `soc` (tiling by [`TilingConfig::new`]) and returns its contents.
///
/// # Errors
/// The [`LaunchError`] of a failing core.
pub fn run_fill<T: DuplicateElement>(
    soc: Soc,
    len: usize,
    value: T,
    block_dim: u32,
) -> Result<(Vec<T>, LaunchStats), LaunchError> {
    run_fill_with(soc, value, &TilingConfig::new::<T>(len, block_dim))
}

/// [`run_fill`] with an explicit tiling.
///
/// # Errors
/// The [`LaunchError`] of a failing core.
pub fn run_fill_with<T: DuplicateElement>(
    soc: Soc,
    value: T,
    tiling: &TilingConfig,
) -> Result<(Vec<T>, LaunchStats), LaunchError> {
    let tiling_gm = GmBuffer::from_tiling(&TilingData::from(*tiling));
    let (t, launch) = (tiling_gm.addr(), Launch::new(soc).block_dim(tiling.block_dim));
    let ([dst], stats) = run_on_gm(&launch, [], [tiling.total_length], move |[], [dst]| fill(dst, value, t))?;
    Ok((dst, stats))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ascend_runtime::testing::assert_bits_eq;

    fn check<T: DuplicateElement>(soc: Soc, tiling: TilingConfig, value: T) {
        let (v, _) = run_fill_with(soc, value, &tiling).unwrap();
        assert_bits_eq(&v, &vec![value; tiling.total_length]);
    }

    macro_rules! per_type {
        ($($t:ident: $v:expr);* $(;)?) => {$(
            paste::paste! {
                #[test]
                fn [<fills_ $t>]() {
                    for (n, cores) in [(1, 1), (1000, 1), (1 << 20, 8), (12_345, 8), (48 * 1000 + 1, 48), (5, 48)] {
                        check::<$t>(Soc::Ascend910B, TilingConfig::new::<$t>(n, cores), $v);
                    }
                    check::<$t>(Soc::Ascend910B, TilingConfig::new::<$t>(3000, 3).with_tile_length(32), $v);
                }
            }
        )*};
    }

    per_type! {
        f16: f16::from_f32(-1.5);
        bf16: bf16::from_f32(3.25);
        f32: f32::from_bits(0x7fc0_1234);
        i16: -7i16;
        u16: 0xbeefu16;
        i32: i32::MIN;
        u32: 0xdead_beefu32;
    }

    #[test]
    fn aligned_lengths_on_every_chip() {
        for soc in Soc::ALL {
            check::<f32>(soc, TilingConfig::new::<f32>(8 * 4096, 8), 2.5);
        }
    }

    #[test]
    fn fill_overwrites_every_element() {
        let dst = GmBuffer::from_vec(vec![9.0f32; 1000]);
        let tiling = GmBuffer::from_tiling(&TilingData::from(TilingConfig::new::<f32>(1000, 8)));
        let (da, t) = (dst.addr(), tiling.addr());
        Launch::new(Soc::Ascend910B).block_dim(8).run(move || fill(da, -0.0f32, t)).unwrap();
        assert_bits_eq(&dst.to_vec(), &vec![-0.0f32; 1000]);
    }

    #[test]
    fn the_kernel_reads_its_tiling_from_gm() {
        // Half the elements in the tiling: the second half keeps its old contents.
        let dst = GmBuffer::from_vec(vec![9u32; 1000]);
        let tiling = GmBuffer::from_tiling(&TilingData::from(TilingConfig::new::<u32>(500, 4)));
        let (da, t) = (dst.addr(), tiling.addr());
        Launch::new(Soc::Ascend910B).block_dim(4).run(move || fill(da, 1u32, t)).unwrap();
        let v = dst.to_vec();
        assert!(v[..500].iter().all(|&x| x == 1) && v[500..].iter().all(|&x| x == 9));
    }

    #[test]
    fn too_small_a_tiling_buffer_is_an_error() {
        let (dst, tiling) = (GmBuffer::<f32>::zeroed(64), GmBuffer::from_tiling(&[64u32, 1]));
        let (da, t) = (dst.addr(), tiling.addr());
        let e = Launch::new(Soc::Ascend910B).block_dim(1).run(move || fill(da, 1.0f32, t)).unwrap_err();
        assert!(e.to_string().contains("GET_TILING_DATA: the tiling buffer holds 8 bytes"), "{e}");
    }

    #[test]
    fn bad_tiling_is_an_error() {
        let t = TilingConfig::new::<f32>(100, 1).with_tile_length(12);
        let e = run_fill_with(Soc::Ascend910B, 1.0f32, &t).unwrap_err();
        assert!(
            e.to_string().contains("Fill: tile_length = 12 is not a positive multiple of 8 float elements"),
            "{e}"
        );
    }
}
