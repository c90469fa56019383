//! `embedding`: an embedding lookup, `out[i, :] = table[indices[i], :]`, with `Gather`.
//!
//! The table (`vocab × dim` elements) and the indices (`int32_t`) are in GM. Each core takes a
//! contiguous run of the indices ([`EmbeddingTiling::core_rows`]), copies the table into its
//! Unified Buffer once in `init`, and then walks its rows tile by tile:
//!
//! * `copy_in`: a tile of indices GM → UB (`DataCopy`, or `DataCopyPad` for a partial block);
//! * `compute`: the `uint32_t` byte offsets of every element of the tile's rows
//!   (`(index * dim + k) * sizeof(T)`, a scalar loop that also range-checks each index), then
//!   one count-form `Gather` from the table into the output tile;
//! * `copy_out`: the tile's rows UB → GM.
//!
//! The split reaches the kernel through GM, as AscendC's tiling data does: the host writes an
//! [`EmbeddingTilingData`] with `GmBuffer::from_tiling` and the kernel reads it back with
//! `get_tiling_data` (`GET_TILING_DATA`).
//!
//! The whole table must fit in UB next to the tile buffers (an error naming the sizes
//! otherwise); an index outside `[0, vocab)` is an error naming the core, the row and the
//! value.
//!
//! ```
//! use ascend_kernels::embedding::{embedding_reference, run_embedding, EmbeddingTiling};
//! use ascend_runtime::prelude::*;
//!
//! let (vocab, dim) = (10, 8);
//! let table: Vec<f32> = (0..vocab * dim).map(|i| i as f32).collect();
//! let indices = vec![3, 0, 9, 3];
//! let t = EmbeddingTiling::new(vocab, dim, indices.len(), 2);
//! let (out, _) = run_embedding(Soc::Ascend910B, &table, &indices, &t).unwrap();
//! assert_eq!(&out[..8], &table[24..32]);
//! assert_eq!(out, embedding_reference(&table, dim, &indices));
//! ```

use ascend_runtime::prelude::*;

use crate::tiling::BUFFER_NUM;

const API: &str = "Embedding";

/// The work split of one lookup: table shape, number of indices, cores and rows per tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmbeddingTiling {
    /// Rows of the table.
    pub vocab: usize,
    /// Elements per row.
    pub dim: usize,
    /// Number of indices (rows of the output).
    pub num_indices: usize,
    /// Cores of the launch.
    pub block_dim: u32,
    /// Output rows per tile.
    pub tile_rows: usize,
}

impl EmbeddingTiling {
    /// `num_indices` lookups into a `vocab × dim` table on `block_dim` cores, 64 rows a tile.
    pub fn new(vocab: usize, dim: usize, num_indices: usize, block_dim: u32) -> Self {
        EmbeddingTiling { vocab, dim, num_indices, block_dim, tile_rows: 64 }
    }

    /// The output rows of core `block_idx`: an even split in groups of rows that fill whole
    /// 32-byte blocks of any element type (`32 / gcd(32, dim)` rows), the first cores one group
    /// longer, so no two cores' output copies share a 32-byte block of GM.
    pub fn core_rows(&self, block_idx: u32) -> core::ops::Range<usize> {
        let g = 32 / gcd(32, self.dim.max(1));
        let (n, c, i) = (self.num_indices, self.block_dim.max(1) as usize, block_idx as usize);
        let groups = n.div_ceil(g);
        let (base, extra) = (groups / c, groups % c);
        let start = i * base + i.min(extra);
        let end = start + base + usize::from(i < extra);
        (start * g).min(n)..(end * g).min(n)
    }
}

/// An [`EmbeddingTiling`] as the host writes it to global memory and the kernel reads it back
/// with `get_tiling_data` (AscendC's tiling data): a `#[repr(C)]`, `Pod` struct of fixed-size
/// fields.
///
/// ```
/// use ascend_kernels::embedding::{EmbeddingTiling, EmbeddingTilingData};
/// let t = EmbeddingTiling { vocab: 10, dim: 8, num_indices: 100, block_dim: 4, tile_rows: 16 };
/// assert_eq!(EmbeddingTiling::from(EmbeddingTilingData::from(t)), t);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct EmbeddingTilingData {
    /// Rows of the table.
    pub vocab: u64,
    /// Elements per row.
    pub dim: u64,
    /// Number of indices.
    pub num_indices: u64,
    /// Output rows per tile.
    pub tile_rows: u64,
    /// Cores (`blockDim`).
    pub block_dim: u32,
    /// Padding to a multiple of 8 bytes (always 0).
    pub reserved: u32,
}

impl From<EmbeddingTiling> for EmbeddingTilingData {
    fn from(t: EmbeddingTiling) -> Self {
        EmbeddingTilingData {
            vocab: t.vocab as u64,
            dim: t.dim as u64,
            num_indices: t.num_indices as u64,
            tile_rows: t.tile_rows as u64,
            block_dim: t.block_dim,
            reserved: 0,
        }
    }
}

impl From<EmbeddingTilingData> for EmbeddingTiling {
    fn from(t: EmbeddingTilingData) -> Self {
        EmbeddingTiling {
            vocab: t.vocab as usize,
            dim: t.dim as usize,
            num_indices: t.num_indices as usize,
            block_dim: t.block_dim,
            tile_rows: t.tile_rows as usize,
        }
    }
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Bytes rounded up to whole 32-byte blocks.
fn blocks(bytes: usize) -> usize {
    bytes.div_ceil(32) * 32
}

/// One core's state of the embedding kernel.
pub struct KernelEmbedding<T: GatherElement> {
    pipe: TPipe,
    table_buf: TBuf<VecCalc>,
    offset_buf: TBuf<VecCalc>,
    in_queue_idx: TQue<VecIn, BUFFER_NUM>,
    out_queue: TQue<VecOut, BUFFER_NUM>,
    table_gm: GlobalTensor<T>,
    idx_gm: GlobalTensor<i32>,
    out_gm: GlobalTensor<T>,
    table: Option<LocalTensor<T>>,
    tiling: EmbeddingTiling,
    rows: usize,
}

impl<T: GatherElement> Default for KernelEmbedding<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: GatherElement> KernelEmbedding<T> {
    /// A kernel object with unbound tensors and no buffers.
    pub fn new() -> Self {
        KernelEmbedding {
            pipe: TPipe::new(),
            table_buf: TBuf::new(),
            offset_buf: TBuf::new(),
            in_queue_idx: TQue::new(),
            out_queue: TQue::new(),
            table_gm: GlobalTensor::new(),
            idx_gm: GlobalTensor::new(),
            out_gm: GlobalTensor::new(),
            table: None,
            tiling: EmbeddingTiling::new(0, 0, 0, 1),
            rows: 0,
        }
    }

    /// Binds the table, this core's indices and output rows, carves the buffers, and copies
    /// the table into UB.
    ///
    /// # Panics
    /// Panics if `dim` or `tile_rows` is 0, the table and the tile buffers do not fit in UB,
    /// or a GM buffer is too small.
    pub fn init(&mut self, table: GmAddr, indices: GmAddr, out: GmAddr, tiling: &EmbeddingTiling) {
        if tiling.dim == 0 || tiling.tile_rows == 0 {
            ascend_core::fail(
                API,
                format!("dim = {} and tile_rows = {} must be positive", tiling.dim, tiling.tile_rows),
            );
        }
        self.tiling = *tiling;
        let (dim, rows) = (tiling.dim, tiling.core_rows(get_block_idx()));
        self.rows = rows.len();
        let table_len = tiling.vocab * dim;
        let table_bytes = blocks(table_len * T::SIZE);
        let tile_elems = tiling.tile_rows * dim;
        let need = table_bytes
            + blocks(tile_elems * 4)
            + BUFFER_NUM * (blocks(tiling.tile_rows * 4) + blocks(tile_elems * T::SIZE));
        let ub = get_soc().ub_size();
        if need > ub {
            ascend_core::fail(
                API,
                format!(
                    "the table ({} x {dim} {} = {table_bytes} bytes) and the tile buffers need {need} bytes; {} has {ub}",
                    tiling.vocab,
                    T::DTYPE,
                    get_soc()
                ),
            );
        }
        self.table_gm.set_global_buffer(table, table_len);
        self.idx_gm.set_global_buffer(indices.add::<i32>(rows.start), self.rows);
        self.out_gm.set_global_buffer(out.add::<T>(rows.start * dim), self.rows * dim);
        self.pipe.init_tbuf(&mut self.table_buf, table_bytes.max(32));
        self.pipe.init_tbuf(&mut self.offset_buf, blocks(tile_elems * 4));
        self.pipe.init_buffer(&mut self.in_queue_idx, BUFFER_NUM, blocks(tiling.tile_rows * 4));
        self.pipe.init_buffer(&mut self.out_queue, BUFFER_NUM, blocks(tile_elems * T::SIZE));
        let table_local = self.table_buf.get::<T>();
        if table_len > 0 && self.rows > 0 {
            data_copy_tail(&table_local, &self.table_gm, table_len);
        }
        self.table = Some(table_local);
    }

    /// Runs the three stages over every tile of this core's rows.
    pub fn process(&mut self) {
        let tile = self.tiling.tile_rows;
        let mut row = 0;
        while row < self.rows {
            let n = tile.min(self.rows - row);
            self.copy_in(row, n);
            self.compute(row, n);
            self.copy_out(row, n);
            row += n;
        }
    }

    /// GM → UB: `n` indices starting at row `row` of this core.
    fn copy_in(&mut self, row: usize, n: usize) {
        let idx_local = self.in_queue_idx.alloc_tensor::<i32>();
        data_copy_tail(&idx_local, &self.idx_gm.view(row), n);
        self.in_queue_idx.enque(idx_local);
    }

    /// The byte offsets of the tile's rows, then one `Gather` from the table.
    fn compute(&mut self, row: usize, n: usize) {
        let idx_local = self.in_queue_idx.deque::<i32>();
        let out_local = self.out_queue.alloc_tensor::<T>();
        let offsets = self.offset_buf.get::<u32>();
        let (dim, vocab) = (self.tiling.dim, self.tiling.vocab);
        // The scalar unit reads the indices MTE2 copied in, and rewrites the offsets the
        // previous tile's Gather read: wait for every pipe.
        pipe_barrier::<PIPE_ALL>();
        for r in 0..n {
            let v = idx_local.get_value(r);
            if v < 0 || v as usize >= vocab {
                let global = self.tiling.core_rows(get_block_idx()).start + row + r;
                ascend_core::fail(
                    API,
                    format!("indices[{global}] = {v} is outside the table's {vocab} rows"),
                );
            }
            let base = v as usize * dim;
            for k in 0..dim {
                offsets.set_value(r * dim + k, ((base + k) * T::SIZE) as u32);
            }
        }
        let table = self.table.as_ref().expect("init binds the table");
        pipe_barrier::<PIPE_ALL>(); // the vector unit reads the offsets the scalar unit wrote
        gather(&out_local, table, &offsets, 0, (n * dim) as u32);
        self.out_queue.enque(out_local);
        self.in_queue_idx.free_tensor(idx_local);
    }

    /// UB → GM: the tile's rows.
    fn copy_out(&mut self, row: usize, n: usize) {
        let out_local = self.out_queue.deque::<T>();
        let dim = self.tiling.dim;
        data_copy_tail(&self.out_gm.view(row * dim), &out_local, n * dim);
        self.out_queue.free_tensor(out_local);
    }
}

/// The kernel entry point: this core's rows of `out = table[indices]`, the split read from
/// the [`EmbeddingTilingData`] at `tiling` (AscendC `GET_TILING_DATA`).
///
/// # Panics
/// As `get_tiling_data` (a tiling buffer of fewer than `size_of::<EmbeddingTilingData>()`
/// bytes), [`KernelEmbedding::init`], an index out of range, and the AscendC calls it makes.
pub fn embedding<T: GatherElement>(table: GmAddr, indices: GmAddr, out: GmAddr, tiling: GmAddr) {
    let tiling_data: EmbeddingTiling = get_tiling_data::<EmbeddingTilingData>(tiling).into();
    let mut op = KernelEmbedding::<T>::new();
    op.init(table, indices, out, &tiling_data);
    op.process();
}

/// Host side: copies the table, the indices and the tiling to GM, launches [`embedding`] on
/// `tiling.block_dim` cores of `soc`, and returns the `num_indices × dim` output.
///
/// # Errors
/// The [`LaunchError`] of a failing core.
///
/// # Panics
/// Panics if `table` does not hold `vocab × dim` elements or `indices` does not hold
/// `num_indices`.
pub fn run_embedding<T: GatherElement>(
    soc: Soc,
    table: &[T],
    indices: &[i32],
    tiling: &EmbeddingTiling,
) -> Result<(Vec<T>, LaunchStats), LaunchError> {
    crate::host::check_input_len("table", table, tiling.vocab * tiling.dim);
    crate::host::check_input_len("indices", indices, tiling.num_indices);
    let (t_gm, i_gm) = (GmBuffer::from_slice(table), GmBuffer::from_slice(indices));
    let out = GmBuffer::<T>::zeroed(tiling.num_indices * tiling.dim);
    let tiling_gm = GmBuffer::from_tiling(&EmbeddingTilingData::from(*tiling));
    let (ta, ia, oa, t) = (t_gm.addr(), i_gm.addr(), out.addr(), tiling_gm.addr());
    let stats = Launch::new(soc).block_dim(tiling.block_dim).run(move || embedding::<T>(ta, ia, oa, t))?;
    Ok((out.to_vec(), stats))
}

/// The host reference: row `indices[i]` of the `dim`-wide `table`, for every `i`.
///
/// # Panics
/// Panics if an index is outside the table.
pub fn embedding_reference<T: Element>(table: &[T], dim: usize, indices: &[i32]) -> Vec<T> {
    indices.iter().flat_map(|&i| table[i as usize * dim..(i as usize + 1) * dim].iter().copied()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{random_vec, XorShift64};

    fn indices(n: usize, vocab: usize, seed: u64) -> Vec<i32> {
        let mut g = XorShift64::new(seed);
        (0..n).map(|_| g.range(0, vocab as i64 - 1) as i32).collect()
    }

    fn check<T: GatherElement>(soc: Soc, vocab: usize, dim: usize, n: usize, cores: u32) {
        let table: Vec<T> = random_vec(vocab * dim, 7, -100.0, 100.0);
        let idx = indices(n, vocab, 11 + cores as u64);
        let t = EmbeddingTiling::new(vocab, dim, n, cores);
        let (out, stats) = run_embedding(soc, &table, &idx, &t).unwrap();
        assert_eq!(stats.block_dim, cores);
        let want = embedding_reference(&table, dim, &idx);
        let bits = |v: &[T]| v.iter().map(|x| x.to_bits_u64()).collect::<Vec<_>>();
        assert_eq!(bits(&out), bits(&want), "{soc} {} vocab {vocab} dim {dim} n {n} cores {cores}", T::DTYPE);
    }

    #[test]
    fn matches_reference_on_1_8_48_cores() {
        for cores in [1, 8, 48] {
            check::<f32>(Soc::Ascend910B, 300, 32, 1000, cores);
            check::<f16>(Soc::Ascend910B, 500, 24, 777, cores);
            check::<f32>(Soc::Ascend310B, 97, 13, 501, cores);
            // Whole 32-byte blocks everywhere: no DataCopyPad needed on Ascend310P.
            check::<f16>(Soc::Ascend310P, 256, 16, 64 * 48, cores);
        }
    }

    #[test]
    fn fewer_indices_than_cores_and_tiles_of_one_row() {
        check::<f32>(Soc::Ascend910B, 10, 8, 5, 8);
        let table: Vec<f32> = (0..40).map(|i| i as f32).collect();
        let mut t = EmbeddingTiling::new(5, 8, 3, 1);
        t.tile_rows = 1;
        let (out, _) = run_embedding(Soc::Ascend910B, &table, &[4, 4, 0], &t).unwrap();
        assert_eq!(out, embedding_reference(&table, 8, &[4, 4, 0]));
    }

    #[test]
    fn bad_index_and_oversized_table_are_errors() {
        let table = vec![1.0f32; 80];
        // 8 indices on 2 cores: rows 0..4 and 4..8 (groups of 4 rows of 8 elements)
        let e = run_embedding(
            Soc::Ascend910B,
            &table,
            &[0, 1, 2, 3, 4, 5, 10, 7],
            &EmbeddingTiling::new(10, 8, 8, 2),
        )
        .unwrap_err();
        let s = e.to_string();
        assert!(s.contains("core 1") && s.contains("indices[6] = 10 is outside the table's 10 rows"), "{s}");
        let big = vec![0.0f32; 100_000];
        let e =
            run_embedding(Soc::Ascend910B, &big, &[0], &EmbeddingTiling::new(1000, 100, 1, 1)).unwrap_err();
        assert!(e.to_string().contains("Ascend910B has 196608"), "{e}");
        let e =
            run_embedding(Soc::Ascend910, &table, &[0; 8], &EmbeddingTiling::new(10, 8, 8, 1)).unwrap_err();
        assert!(e.to_string().contains("not supported by Gather on Ascend910"), "{e}");
    }

    #[test]
    fn the_kernel_reads_its_tiling_from_gm() {
        // 24 of 64 indices in the tiling (rows of 8 floats): the output's tail stays as it was.
        let (vocab, dim) = (20, 8);
        let table: Vec<f32> = random_vec(vocab * dim, 3, -10.0, 10.0);
        let idx = indices(64, vocab, 5);
        let (tg, ig) = (GmBuffer::from_slice(&table), GmBuffer::from_slice(&idx));
        let out = GmBuffer::from_vec(vec![2.0f32; 64 * dim]);
        let tiling =
            GmBuffer::from_tiling(&EmbeddingTilingData::from(EmbeddingTiling::new(vocab, dim, 24, 2)));
        let (ta, ia, oa, t) = (tg.addr(), ig.addr(), out.addr(), tiling.addr());
        Launch::new(Soc::Ascend910B).block_dim(2).run(move || embedding::<f32>(ta, ia, oa, t)).unwrap();
        let o = out.to_vec();
        assert_eq!(&o[..24 * dim], &embedding_reference(&table, dim, &idx[..24])[..]);
        assert!(o[24 * dim..].iter().all(|&v| v == 2.0));
    }

    #[test]
    fn too_small_a_tiling_buffer_is_an_error() {
        let buf = GmBuffer::<f32>::zeroed(64);
        let a = buf.addr();
        crate::host::assert_tiling_too_small::<EmbeddingTilingData>(|t| embedding::<f32>(a, a, a, t));
    }
}
