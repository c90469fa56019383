//! `transpose`: a large row-major matrix of 16-bit elements transposed through 16×16 tiles
//! with `vec_trans`.
//!
//! The matrix (`rows × cols`, both **multiples of 16**: `vec_trans` works on whole 16×16
//! tiles of 32-byte rows, and `DataCopy` moves whole 32-byte blocks) is cut into 16×16 tiles.
//! A *strip* is up to `tiles_per_strip` tiles stacked vertically in one column of tiles;
//! the strips are split among the cores. For each strip:
//!
//! * `copy_in`: one strided `DataCopy` (16 × n rows of one 32-byte block, `cols / 16 - 1`
//!   blocks apart in GM) lands the strip in UB as n contiguous 16×16 matrices;
//! * `compute`: one `vec_trans` with n repeats transposes them all;
//! * `copy_out`: each transposed tile is written with a strided `DataCopy` (16 rows of one
//!   block, `rows / 16 - 1` blocks apart) to its place in the `cols × rows` result.
//!
//! The shape and split reach the kernel through GM, as AscendC's tiling data does: the host
//! writes a [`TransposeTilingData`] with `GmBuffer::from_tiling` and the kernel reads it back
//! with `get_tiling_data` (`GET_TILING_DATA`).
//!
//! ```
//! use ascend_kernels::transpose::{run_transpose, transpose_reference};
//! use ascend_runtime::prelude::*;
//!
//! let (rows, cols) = (64, 48);
//! let x: Vec<u16> = (0..(rows * cols) as u16).collect();
//! let (y, _) = run_transpose(Soc::Ascend910B, &x, rows, cols, 4).unwrap();
//! assert_eq!(y[1], 48); // y[0][1] = x[1][0]
//! assert_eq!(y, transpose_reference(&x, rows, cols));
//! ```

use core::ops::Range;

use ascend_runtime::prelude::*;

use crate::host::run_on_gm;
use crate::tiling::BUFFER_NUM;

const API: &str = "TransposeKernel";

/// Tile edge: `vec_trans` transposes 16×16 matrices.
pub const TILE: usize = 16;

/// Elements in one 16×16 tile.
const TILE_ELEMS: usize = TILE * TILE;

/// The default tiles per strip (32 tiles = 16 KiB per buffer for 16-bit elements).
pub const DEFAULT_TILES_PER_STRIP: usize = 32;

/// How [`transpose`] splits a `rows × cols` matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TransposeTiling {
    /// Rows of the input matrix, a positive multiple of 16.
    pub rows: usize,
    /// Columns of the input matrix, a positive multiple of 16.
    pub cols: usize,
    /// Cores (`blockDim`).
    pub block_dim: u32,
    /// Tiles per strip, `1..=255` (one `vec_trans` call and one `DataCopy` of `16 *
    /// tiles_per_strip` rows each).
    pub tiles_per_strip: usize,
}

impl TransposeTiling {
    /// A `rows × cols` matrix on `block_dim` cores with [`DEFAULT_TILES_PER_STRIP`].
    pub const fn new(rows: usize, cols: usize, block_dim: u32) -> Self {
        TransposeTiling { rows, cols, block_dim, tiles_per_strip: DEFAULT_TILES_PER_STRIP }
    }

    /// Strips per column of tiles.
    fn strips_per_col(&self) -> usize {
        (self.rows / TILE).div_ceil(self.tiles_per_strip)
    }

    /// All strips of the matrix.
    pub fn strips(&self) -> usize {
        (self.cols / TILE) * self.strips_per_col()
    }

    /// The strips core `block_idx` transposes (an even split, the first cores one more).
    pub fn core_strips(&self, block_idx: u32) -> Range<usize> {
        let (n, cores, i) = (self.strips(), self.block_dim.max(1) as usize, block_idx as usize);
        let (base, extra) = (n / cores, n % cores);
        let start = i * base + i.min(extra);
        start..start + base + usize::from(i < extra)
    }

    /// Strip `s` as `(column of tiles, first row of tiles, tiles)`.
    fn strip(&self, s: usize) -> (usize, usize, usize) {
        let spc = self.strips_per_col();
        let (j, i0) = (s / spc, (s % spc) * self.tiles_per_strip);
        (j, i0, self.tiles_per_strip.min(self.rows / TILE - i0))
    }

    /// Fails as the kernel unless the shape and strip size are usable.
    #[track_caller]
    fn check(&self) {
        let ok = |d: usize| d > 0 && d % TILE == 0 && d / TILE - 1 <= usize::from(u16::MAX);
        if !ok(self.rows) || !ok(self.cols) {
            ascend_core::fail(
                API,
                format!(
                    "rows = {}, cols = {}: both must be positive multiples of 16 (whole 16x16 tiles) and at most \
                     1048576",
                    self.rows, self.cols
                ),
            );
        }
        if !(1..=255).contains(&self.tiles_per_strip) {
            ascend_core::fail(
                API,
                format!("tiles_per_strip = {} is out of range [1, 255]", self.tiles_per_strip),
            );
        }
    }
}

/// A [`TransposeTiling`] as the host writes it to global memory and the kernel reads it back
/// with `get_tiling_data` (AscendC's tiling data): a `#[repr(C)]`, `Pod` struct of fixed-size
/// fields.
///
/// ```
/// use ascend_kernels::transpose::{TransposeTiling, TransposeTilingData};
/// let t = TransposeTiling { rows: 64, cols: 48, block_dim: 4, tiles_per_strip: 3 };
/// assert_eq!(TransposeTiling::from(TransposeTilingData::from(t)), t);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct TransposeTilingData {
    /// Rows of the input matrix.
    pub rows: u64,
    /// Columns of the input matrix.
    pub cols: u64,
    /// Cores (`blockDim`).
    pub block_dim: u32,
    /// Tiles per strip.
    pub tiles_per_strip: u32,
}

impl From<TransposeTiling> for TransposeTilingData {
    /// The host's tiling as written to GM; `tiles_per_strip` beyond `u32::MAX` becomes
    /// `u32::MAX` (out of range for the kernel's check either way).
    fn from(t: TransposeTiling) -> Self {
        TransposeTilingData {
            rows: t.rows as u64,
            cols: t.cols as u64,
            block_dim: t.block_dim,
            tiles_per_strip: u32::try_from(t.tiles_per_strip).unwrap_or(u32::MAX),
        }
    }
}

impl From<TransposeTilingData> for TransposeTiling {
    fn from(t: TransposeTilingData) -> Self {
        TransposeTiling {
            rows: t.rows as usize,
            cols: t.cols as usize,
            block_dim: t.block_dim,
            tiles_per_strip: t.tiles_per_strip as usize,
        }
    }
}

/// One core's state of the transpose kernel.
pub struct KernelTranspose<T: TransposeElement> {
    pipe: TPipe,
    in_queue: TQue<VecIn, BUFFER_NUM>,
    out_queue: TQue<VecOut, BUFFER_NUM>,
    x_gm: GlobalTensor<T>,
    y_gm: GlobalTensor<T>,
    tiling: TransposeTiling,
    strips: Range<usize>,
}

impl<T: TransposeElement> Default for KernelTranspose<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: TransposeElement> KernelTranspose<T> {
    /// A kernel object with unbound tensors and queues without buffers.
    pub fn new() -> Self {
        KernelTranspose {
            pipe: TPipe::new(),
            in_queue: TQue::new(),
            out_queue: TQue::new(),
            x_gm: GlobalTensor::new(),
            y_gm: GlobalTensor::new(),
            tiling: TransposeTiling::new(TILE, TILE, 1),
            strips: 0..0,
        }
    }

    /// Binds the input and output matrices and carves the queues' buffers.
    ///
    /// # Panics
    /// Panics if `rows` or `cols` is not a positive multiple of 16 (or beyond 1048576),
    /// `tiles_per_strip` is outside `1..=255`, a buffer does not hold the matrix, or the
    /// strips do not fit in UB.
    pub fn init(&mut self, x: GmAddr, y: GmAddr, tiling: &TransposeTiling) {
        tiling.check();
        self.tiling = *tiling;
        self.strips = tiling.core_strips(get_block_idx());
        let len = tiling.rows * tiling.cols;
        self.x_gm.set_global_buffer(x, len);
        self.y_gm.set_global_buffer(y, len);
        let bytes = tiling.tiles_per_strip * TILE_ELEMS * T::SIZE;
        self.pipe.init_buffer(&mut self.in_queue, BUFFER_NUM, bytes);
        self.pipe.init_buffer(&mut self.out_queue, BUFFER_NUM, bytes);
    }

    /// Transposes this core's strips.
    pub fn process(&mut self) {
        for s in self.strips.clone() {
            let (j, i0, n) = self.tiling.strip(s);
            self.copy_in(j, i0, n);
            self.compute(n);
            self.copy_out(j, i0, n);
        }
    }

    /// GM → UB: the `n` tiles of column `j` from tile row `i0`, as `n` contiguous matrices.
    fn copy_in(&mut self, j: usize, i0: usize, n: usize) {
        let cols = self.tiling.cols;
        let x_local = self.in_queue.alloc_tensor::<T>();
        let params = DataCopyParams::new((TILE * n) as u16, 1, (cols / TILE - 1) as u16, 0);
        data_copy_params(&x_local, &self.x_gm.view(i0 * TILE * cols + j * TILE), &params);
        self.in_queue.enque(x_local);
    }

    /// `vec_trans` of the `n` matrices.
    fn compute(&mut self, n: usize) {
        let x_local = self.in_queue.deque::<T>();
        let y_local = self.out_queue.alloc_tensor::<T>();
        vec_trans(&y_local, &x_local, n as u16, 1, 1);
        self.out_queue.enque(y_local);
        self.in_queue.free_tensor(x_local);
    }

    /// UB → GM: transposed tile `t` of the strip goes to tile row `j`, tile column `i0 + t`
    /// of the `cols × rows` result.
    fn copy_out(&mut self, j: usize, i0: usize, n: usize) {
        let rows = self.tiling.rows;
        let y_local = self.out_queue.deque::<T>();
        let params = DataCopyParams::new(TILE as u16, 1, 0, (rows / TILE - 1) as u16);
        for t in 0..n {
            let dst = self.y_gm.view(j * TILE * rows + (i0 + t) * TILE);
            data_copy_params(&dst, &y_local.view(t * TILE_ELEMS), &params);
        }
        self.out_queue.free_tensor(y_local);
    }
}

/// The kernel entry point: `y = xᵀ` for the row-major `rows × cols` matrix `x` (`y` is
/// `cols × rows`), this core's strips; the shape and split read from the
/// [`TransposeTilingData`] at `tiling` (AscendC `GET_TILING_DATA`).
///
/// # Panics
/// As `get_tiling_data` (a tiling buffer of fewer than `size_of::<TransposeTilingData>()`
/// bytes) and [`KernelTranspose::init`].
pub fn transpose<T: TransposeElement>(x: GmAddr, y: GmAddr, tiling: GmAddr) {
    let tiling_data: TransposeTiling = get_tiling_data::<TransposeTilingData>(tiling).into();
    let mut op = KernelTranspose::<T>::new();
    op.init(x, y, &tiling_data);
    op.process();
}

/// Host side: transposes the row-major `rows × cols` matrix `x` on `block_dim` cores.
///
/// # Errors
/// The [`LaunchError`] of a failing core (for example a shape that is not whole tiles).
///
/// # Panics
/// Panics if `x.len() != rows * cols`.
pub fn run_transpose<T: TransposeElement>(
    soc: Soc,
    x: &[T],
    rows: usize,
    cols: usize,
    block_dim: u32,
) -> Result<(Vec<T>, LaunchStats), LaunchError> {
    run_transpose_with(soc, x, &TransposeTiling::new(rows, cols, block_dim))
}

/// [`run_transpose`] with an explicit tiling.
///
/// # Errors
/// The [`LaunchError`] of a failing core.
///
/// # Panics
/// Panics if `x.len() != rows * cols`.
pub fn run_transpose_with<T: TransposeElement>(
    soc: Soc,
    x: &[T],
    tiling: &TransposeTiling,
) -> Result<(Vec<T>, LaunchStats), LaunchError> {
    assert_eq!(x.len(), tiling.rows * tiling.cols, "x holds {} elements, not rows * cols", x.len());
    let tiling_gm = GmBuffer::from_tiling(&TransposeTilingData::from(*tiling));
    let (t, launch) = (tiling_gm.addr(), Launch::new(soc).block_dim(tiling.block_dim));
    let ([y], stats) = run_on_gm(&launch, [x], [x.len()], move |[x], [y]| transpose::<T>(x, y, t))?;
    Ok((y, stats))
}

/// Host reference: the `cols × rows` transpose of the row-major `rows × cols` matrix `x`.
pub fn transpose_reference<T: Copy>(x: &[T], rows: usize, cols: usize) -> Vec<T> {
    (0..cols * rows).map(|k| x[(k % rows) * cols + k / rows]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::random_vec;
    use ascend_runtime::testing::assert_bits_eq;

    fn check<T: TransposeElement>(soc: Soc, tiling: TransposeTiling, seed: u64) {
        let x = random_vec::<T>(tiling.rows * tiling.cols, seed, -30000.0, 30000.0);
        let (y, _) = run_transpose_with(soc, &x, &tiling).unwrap();
        assert_bits_eq(&y, &transpose_reference(&x, tiling.rows, tiling.cols));
    }

    macro_rules! per_type {
        ($($t:ident),*) => {$(
            paste::paste! {
                #[test]
                fn [<shapes_cores_and_strips_ $t>]() {
                    let shapes = [(16, 16), (32, 48), (48, 32), (1024, 16), (16, 1024), (256, 272), (112, 80)];
                    for (rows, cols) in shapes {
                        for cores in [1, 8, 48] {
                            for k in [1, 3, 32] {
                                let t = TransposeTiling { rows, cols, block_dim: cores, tiles_per_strip: k };
                                check::<$t>(Soc::Ascend910B, t, (rows * cols) as u64 + k as u64);
                            }
                        }
                    }
                }
            }
        )*};
    }

    per_type!(f16, i16, u16);

    #[test]
    fn every_chip() {
        for soc in Soc::ALL {
            check::<f16>(soc, TransposeTiling::new(512, 256, 8), 1);
        }
    }

    #[test]
    fn large_strips() {
        check::<u16>(
            Soc::Ascend910B,
            TransposeTiling { rows: 255 * 16, cols: 32, block_dim: 2, tiles_per_strip: 80 },
            3,
        );
    }

    #[test]
    fn strips_beyond_the_unified_buffer_are_an_error() {
        let x = vec![0u16; 255 * 16 * 16];
        let t = TransposeTiling { rows: 255 * 16, cols: 16, block_dim: 1, tiles_per_strip: 255 };
        let e = run_transpose_with(Soc::Ascend910B, &x, &t).unwrap_err();
        assert!(e.to_string().contains("TPipe::InitBuffer"), "{e}");
    }

    #[test]
    fn double_transpose_is_identity() {
        let x = random_vec::<i16>(160 * 96, 9, -100.0, 100.0);
        let (y, _) = run_transpose(Soc::Ascend310P, &x, 160, 96, 8).unwrap();
        let (z, _) = run_transpose(Soc::Ascend310P, &y, 96, 160, 8).unwrap();
        assert_eq!(z, x);
    }

    #[test]
    fn reference_is_a_transpose() {
        assert_eq!(transpose_reference(&[1, 2, 3, 4, 5, 6], 2, 3), vec![1, 4, 2, 5, 3, 6]);
    }

    #[test]
    fn shape_not_whole_tiles_is_an_error() {
        let x = vec![0u16; 20 * 16];
        let e = run_transpose(Soc::Ascend910B, &x, 20, 16, 1).unwrap_err();
        assert!(
            e.to_string()
                .contains("TransposeKernel: rows = 20, cols = 16: both must be positive multiples of 16"),
            "{e}"
        );
    }

    #[test]
    fn strip_size_out_of_range_is_an_error() {
        let x = vec![0u16; 256];
        let t = TransposeTiling { rows: 16, cols: 16, block_dim: 1, tiles_per_strip: 256 };
        let e = run_transpose_with(Soc::Ascend910B, &x, &t).unwrap_err();
        assert!(e.to_string().contains("tiles_per_strip = 256 is out of range [1, 255]"), "{e}");
    }

    #[test]
    fn the_kernel_reads_its_tiling_from_gm() {
        // A 32 × 16 matrix in a larger buffer: the tiling's shape decides what is transposed.
        let x: Vec<u16> = (0..64 * 16).collect();
        let (xg, yg) = (GmBuffer::from_slice(&x), GmBuffer::<u16>::zeroed(x.len()));
        let tiling = GmBuffer::from_tiling(&TransposeTilingData::from(TransposeTiling::new(32, 16, 2)));
        let (xa, ya, t) = (xg.addr(), yg.addr(), tiling.addr());
        Launch::new(Soc::Ascend910B).block_dim(2).run(move || transpose::<u16>(xa, ya, t)).unwrap();
        let y = yg.to_vec();
        assert_eq!(&y[..32 * 16], &transpose_reference(&x[..32 * 16], 32, 16)[..]);
        assert!(y[32 * 16..].iter().all(|&v| v == 0));
    }

    #[test]
    fn too_small_a_tiling_buffer_is_an_error() {
        let (xg, tiling) = (GmBuffer::<u16>::zeroed(256), GmBuffer::from_tiling(&[16u64, 16]));
        let (xa, t) = (xg.addr(), tiling.addr());
        let e =
            Launch::new(Soc::Ascend910B).block_dim(1).run(move || transpose::<u16>(xa, xa, t)).unwrap_err();
        assert!(e.to_string().contains("GET_TILING_DATA: the tiling buffer holds 16 bytes"), "{e}");
        assert!(e.to_string().contains("TransposeTilingData needs 24"), "{e}");
    }

    #[test]
    fn tiling_data_saturates_an_oversized_strip() {
        let t = TransposeTiling { rows: 16, cols: 16, block_dim: 1, tiles_per_strip: usize::MAX };
        assert_eq!(TransposeTilingData::from(t).tiles_per_strip, u32::MAX);
        let e = run_transpose_with(Soc::Ascend910B, &[0u16; 256], &t).unwrap_err();
        assert!(e.to_string().contains("tiles_per_strip = 4294967295 is out of range [1, 255]"), "{e}");
    }

    #[test]
    fn core_strips_cover_all() {
        let t = TransposeTiling { rows: 160, cols: 48, block_dim: 7, tiles_per_strip: 3 };
        assert_eq!(t.strips(), 3 * 4);
        let mut next = 0;
        for c in 0..7 {
            let r = t.core_strips(c);
            assert_eq!(r.start, next);
            next = r.end;
        }
        assert_eq!(next, 12);
        assert_eq!(t.strip(3), (0, 9, 1));
        assert_eq!(t.strip(4), (1, 0, 3));
    }
}
