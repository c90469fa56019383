//! Work split and tail handling shared by the kernels.
//!
//! AscendC kernels are launched on `blockDim` cores; each core computes its own slice of the
//! data from `GetBlockIdx()`, and walks that slice in tiles small enough for the Unified
//! Buffer, double-buffered (`BUFFER_NUM = 2`). The vendor's samples assume lengths that divide
//! evenly; these helpers also handle the tails:
//!
//! * [`TilingConfig::core_range`] splits the data among the cores in whole 32-byte blocks, so
//!   every core's slice starts 32-byte aligned and only the last non-empty core can end in a
//!   partial block;
//! * [`TilingConfig::tiles`] cuts a core's slice into tiles of `tile_length` elements, the last
//!   one possibly shorter;
//! * `data_copy_tail` (in the prelude) uses `DataCopy` for whole blocks and `DataCopyPad`
//!   for a partial one (on chips without `DataCopyPad`, Ascend910 and Ascend310P, a length
//!   that is not a whole number of 32-byte blocks fails there with a message naming the chip).

use core::ops::Range;

use ascend_runtime::prelude::*;

/// Buffers per queue: 2 = double buffering (AscendC `BUFFER_NUM`).
pub const BUFFER_NUM: usize = 2;

/// Tiles per core per buffer in the vendor's `add_custom` sample (AscendC `TILE_NUM`): a
/// core's slice is walked in `TILE_NUM * BUFFER_NUM` tiles.
pub const TILE_NUM: usize = 8;

/// The largest tile [`TilingConfig::new`] chooses, in bytes (16 KiB: three double-buffered
/// queues of this size use 96 KiB, half of the smallest Unified Buffer).
pub const MAX_TILE_BYTES: usize = 16 * 1024;

/// How an elementwise kernel splits `total_length` elements: over `block_dim` cores, then in
/// tiles of `tile_length` elements (the tiling data a host program hands its kernel).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TilingConfig {
    /// Elements in all.
    pub total_length: usize,
    /// Cores the kernel is launched on (`blockDim`).
    pub block_dim: u32,
    /// Elements per tile; a multiple of one 32-byte block of the element type.
    pub tile_length: usize,
}

impl Default for TilingConfig {
    /// The vendor sample's configuration: `8 * 2048` elements on 8 cores, each core's 2048
    /// elements in `TILE_NUM * BUFFER_NUM = 16` tiles of 128.
    fn default() -> Self {
        TilingConfig { total_length: 8 * 2048, block_dim: 8, tile_length: 2048 / TILE_NUM / BUFFER_NUM }
    }
}

impl TilingConfig {
    /// The vendor's rule for element type `T`: each core's share walked in
    /// `TILE_NUM * BUFFER_NUM` tiles, the tile length rounded up to a whole 256-byte repeat
    /// and kept between one repeat and [`MAX_TILE_BYTES`].
    ///
    /// ```
    /// use ascend_kernels::tiling::TilingConfig;
    /// use half::f16;
    /// assert_eq!(TilingConfig::new::<f16>(8 * 2048, 8), TilingConfig::default());
    /// assert_eq!(TilingConfig::new::<f32>(1 << 20, 8).tile_length, 4096);
    /// ```
    pub fn new<T: Element>(total_length: usize, block_dim: u32) -> Self {
        let per_core = total_length.div_ceil(block_dim.max(1) as usize);
        let tile = per_core.div_ceil(TILE_NUM * BUFFER_NUM).next_multiple_of(T::PAR);
        let tile_length = tile.clamp(T::PAR, MAX_TILE_BYTES / T::SIZE);
        TilingConfig { total_length, block_dim, tile_length }
    }

    /// The same split with another tile length.
    pub const fn with_tile_length(self, tile_length: usize) -> Self {
        TilingConfig { tile_length, ..self }
    }

    /// Checks the configuration for element type `T` and a kernel whose tiles must be a
    /// multiple of `tile_multiple` elements, failing as `api` if it is unusable.
    ///
    /// # Panics
    /// Panics (through [`ascend_core::fail`]) if `block_dim` is 0, or `tile_length` is 0 or
    /// not a multiple of `tile_multiple`.
    #[track_caller]
    pub fn check<T: Element>(&self, api: &'static str, tile_multiple: usize) {
        if self.block_dim == 0 {
            ascend_core::fail(api, "block_dim = 0: a kernel runs on at least one core");
        }
        if self.tile_length == 0 || self.tile_length % tile_multiple != 0 {
            ascend_core::fail(
                api,
                format!(
                    "tile_length = {} is not a positive multiple of {tile_multiple} {} elements",
                    self.tile_length,
                    T::DTYPE
                ),
            );
        }
    }

    /// The elements core `block_idx` owns: the data split in whole 32-byte blocks of `T`,
    /// the first `blocks % block_dim` cores getting one block more, the last block cut at
    /// `total_length`. Cores beyond the data get an empty range.
    ///
    /// ```
    /// use ascend_kernels::tiling::TilingConfig;
    /// let t = TilingConfig { total_length: 100, block_dim: 3, tile_length: 64 };
    /// // 100 f32 = 13 blocks of 8: 5, 4, 4 blocks
    /// assert_eq!(t.core_range::<f32>(0), 0..40);
    /// assert_eq!(t.core_range::<f32>(1), 40..72);
    /// assert_eq!(t.core_range::<f32>(2), 72..100);
    /// ```
    pub fn core_range<T: Element>(&self, block_idx: u32) -> Range<usize> {
        let blocks = self.total_length.div_ceil(T::EPB);
        let cores = self.block_dim.max(1) as usize;
        let (base, extra) = (blocks / cores, blocks % cores);
        let i = block_idx as usize;
        let start = i * base + i.min(extra);
        let len = base + usize::from(i < extra);
        let lo = (start * T::EPB).min(self.total_length);
        let hi = ((start + len) * T::EPB).min(self.total_length);
        lo..hi
    }

    /// The tiles of a slice of `len` elements: `(offset, length)` of each, every tile
    /// `tile_length` long but the last.
    ///
    /// ```
    /// use ascend_kernels::tiling::TilingConfig;
    /// let t = TilingConfig::default();
    /// assert_eq!(t.tiles(300).collect::<Vec<_>>(), vec![(0, 128), (128, 128), (256, 44)]);
    /// ```
    pub fn tiles(&self, len: usize) -> impl Iterator<Item = (usize, usize)> + use<> {
        let tile = self.tile_length.max(1);
        (0..len.div_ceil(tile)).map(move |i| (i * tile, tile.min(len - i * tile)))
    }
}

/// A [`TilingConfig`] as the host writes it to global memory and the kernel reads it back
/// with `get_tiling_data` (AscendC's tiling data): a `#[repr(C)]`, `Pod` struct of fixed-size
/// fields.
///
/// ```
/// use ascend_kernels::tiling::{TilingConfig, TilingData};
/// let t = TilingConfig::default();
/// assert_eq!(TilingConfig::from(TilingData::from(t)), t);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct TilingData {
    /// Elements in all.
    pub total_length: u64,
    /// Elements per tile.
    pub tile_length: u64,
    /// Cores (`blockDim`).
    pub block_dim: u32,
    /// Padding to a multiple of 8 bytes (always 0).
    pub reserved: u32,
}

impl From<TilingConfig> for TilingData {
    fn from(t: TilingConfig) -> Self {
        TilingData {
            total_length: t.total_length as u64,
            tile_length: t.tile_length as u64,
            block_dim: t.block_dim,
            reserved: 0,
        }
    }
}

impl From<TilingData> for TilingConfig {
    fn from(t: TilingData) -> Self {
        TilingConfig {
            total_length: t.total_length as usize,
            block_dim: t.block_dim,
            tile_length: t.tile_length as usize,
        }
    }
}

/// Whether `len` elements of `T` are a whole number of 32-byte blocks (re-exported from
/// `ascend_core::copy_tail`).
pub use ascend_core::copy_tail::is_block_aligned;

/// GM → UB for any length: [`data_copy_tail`] (kept under its earlier name).
///
/// # Panics
/// As [`data_copy_tail`].
#[track_caller]
pub fn copy_gm_to_ub<T: Element>(dst: &LocalTensor<T>, src: &GlobalTensor<T>, len: usize) {
    data_copy_tail(dst, src, len);
}

/// UB → GM for any length: [`data_copy_tail`] (kept under its earlier name).
///
/// # Panics
/// As [`data_copy_tail`].
#[track_caller]
pub fn copy_ub_to_gm<T: Element>(dst: &GlobalTensor<T>, src: &LocalTensor<T>, len: usize) {
    data_copy_tail(dst, src, len);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_the_vendor_sample() {
        let t = TilingConfig::default();
        assert_eq!((t.total_length, t.block_dim, t.tile_length), (16384, 8, 128));
        for c in 0..8 {
            assert_eq!(t.core_range::<f16>(c), c as usize * 2048..(c as usize + 1) * 2048);
        }
        assert_eq!(t.tiles(2048).count(), 16);
        assert!(t.tiles(2048).all(|(_, l)| l == 128));
    }

    #[test]
    fn core_ranges_cover_everything_once() {
        for total in [0usize, 1, 15, 16, 17, 100, 1000, 4099, 65536 + 3] {
            for cores in [1u32, 2, 3, 8, 48] {
                let t = TilingConfig { total_length: total, block_dim: cores, tile_length: 128 };
                let mut next = 0;
                for c in 0..cores {
                    let r = t.core_range::<f16>(c);
                    assert_eq!(r.start, next.min(total), "total {total} cores {cores} core {c}");
                    assert!(r.start % 16 == 0 || r.start == total);
                    if r.end != total {
                        assert!(r.end % 16 == 0);
                    }
                    next = r.end.max(next);
                }
                assert_eq!(next, total);
            }
        }
    }

    #[test]
    fn tiles_have_a_short_tail() {
        let t = TilingConfig { total_length: 0, block_dim: 1, tile_length: 64 };
        assert_eq!(t.tiles(0).count(), 0);
        assert_eq!(t.tiles(64).collect::<Vec<_>>(), vec![(0, 64)]);
        assert_eq!(t.tiles(65).collect::<Vec<_>>(), vec![(0, 64), (64, 1)]);
    }

    #[test]
    fn new_picks_whole_repeats_within_limits() {
        assert_eq!(TilingConfig::new::<f16>(10, 4).tile_length, 128);
        assert_eq!(TilingConfig::new::<f32>(1 << 30, 8).tile_length, MAX_TILE_BYTES / 4);
        assert_eq!(TilingConfig::new::<i16>(48 * 4096, 48).tile_length, 256);
        assert_eq!(TilingConfig::default().with_tile_length(256).tile_length, 256);
    }

    #[test]
    #[should_panic(expected = "AddCustom: tile_length = 100 is not a positive multiple of 16 half elements")]
    fn check_rejects_unaligned_tiles() {
        TilingConfig::default().with_tile_length(100).check::<f16>("AddCustom", 16);
    }

    #[test]
    #[should_panic(expected = "block_dim = 0")]
    fn check_rejects_zero_cores() {
        TilingConfig { total_length: 1, block_dim: 0, tile_length: 16 }.check::<f16>("AddCustom", 16);
    }

    #[test]
    fn block_alignment() {
        assert!(is_block_aligned::<f16>(16));
        assert!(!is_block_aligned::<f16>(8));
        assert!(is_block_aligned::<f32>(8));
        assert!(is_block_aligned::<u8>(64));
    }
}
