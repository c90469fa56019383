//! `reduce_sum`: the sum of a large `f32` or `f16` vector, across cores.
//!
//! 1. Each core sums its slice ([`TilingConfig::core_range`]) tile by tile: a tile is copied
//!    in, zero-padded to whole 256-byte repeats, and summed with `vec_reduce_add`; the tile
//!    sums are collected in UB and summed with `vec_reduce_add` again (zero-padded likewise).
//! 2. Each core writes its partial sum as element 0 of its own 32-byte block of a GM
//!    workspace (`block_dim` blocks, the rest of the block zero).
//! 3. `sync_all()`: every partial is in GM.
//! 4. Core 0 reads the workspace, gathers the partials (zero-padded to a whole repeat), sums
//!    them with `vec_reduce_add` and writes the result to `z[0]`.
//!
//! Every sum is rounded to the element type in the chip's order of additions, so the result
//! depends on the chip, the core count and the tile length; [`reduce_sum_reference`] computes
//! it on the host in the same order, independently of the kernel. The kernel calls
//! `sync_all`, so it needs [`ExecMode::ThreadPerCore`] ([`run_reduce_sum`] sets it).
//!
//! The tiling reaches the kernel through GM, as AscendC's tiling data does: the host writes a
//! [`TilingData`] with `GmBuffer::from_tiling` and the kernel reads it back with
//! `get_tiling_data` (`GET_TILING_DATA`).
//!
//! ```
//! use ascend_kernels::reduce_sum::{reduce_sum_reference, run_reduce_sum};
//! use ascend_kernels::tiling::TilingConfig;
//! use ascend_runtime::prelude::*;
//!
//! let x: Vec<f32> = (0..100_000).map(|i| (i % 10) as f32).collect();
//! let t = TilingConfig::new::<f32>(x.len(), 8);
//! let (sum, _) = run_reduce_sum(Soc::Ascend910B, &x, &t).unwrap();
//! assert_eq!(sum, 450_000.0);
//! assert_eq!(sum.to_bits(), reduce_sum_reference(Soc::Ascend910B, &x, &t).to_bits());
//! ```

use ascend_runtime::prelude::*;

use crate::host::{check_input_len, run_on_gm};
use crate::tiling::{TilingConfig, TilingData, BUFFER_NUM};

const API: &str = "ReduceSum";

/// Largest `repeat_times` of one `vec_reduce_add`.
const MAX_REPEATS: usize = 4095;

/// Element types the kernel sums: those `vec_reduce_add` and `Duplicate` both accept
/// (`f16`, `f32`).
pub trait ReduceSumElement: ReduceElement + DuplicateElement {}
impl<T: ReduceElement + DuplicateElement> ReduceSumElement for T {}

/// One core's state of the `reduce_sum` kernel.
pub struct KernelReduceSum<T: ReduceSumElement> {
    pub(crate) pipe: TPipe,
    in_queue: TQue<VecIn, BUFFER_NUM>,
    partial_buf: TBuf<VecCalc>,
    sum_buf: TBuf<VecCalc>,
    work_buf: TBuf<VecCalc>,
    block_buf: TBuf<VecOut>,
    x_gm: GlobalTensor<T>,
    z_gm: GlobalTensor<T>,
    ws_gm: GlobalTensor<T>,
    tiling: TilingConfig,
    block_length: usize,
    /// Capacity of the partial-sum buffer (whole repeats).
    partial_cap: usize,
}

impl<T: ReduceSumElement> Default for KernelReduceSum<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// `n` rounded up to whole repeats of `T` (at least one).
fn whole_repeats<T: Element>(n: usize) -> usize {
    n.max(1).next_multiple_of(T::PAR)
}

impl<T: ReduceSumElement> KernelReduceSum<T> {
    /// A kernel object with unbound tensors and no buffers.
    pub fn new() -> Self {
        KernelReduceSum {
            pipe: TPipe::new(),
            in_queue: TQue::new(),
            partial_buf: TBuf::new(),
            sum_buf: TBuf::new(),
            work_buf: TBuf::new(),
            block_buf: TBuf::new(),
            x_gm: GlobalTensor::new(),
            z_gm: GlobalTensor::new(),
            ws_gm: GlobalTensor::new(),
            tiling: TilingConfig::default(),
            block_length: 0,
            partial_cap: 0,
        }
    }

    /// Binds this core's slice of `x`, the result `z` (one element) and the workspace
    /// (`block_dim` blocks of 32 bytes), and carves the buffers.
    ///
    /// # Panics
    /// Panics if the tile length is not a positive multiple of one repeat or longer than
    /// 4095 repeats, a core has more than `4095 * PAR` tiles, a GM buffer is too small, or
    /// the buffers do not fit in UB.
    pub fn init(&mut self, x: GmAddr, z: GmAddr, workspace: GmAddr, tiling: &TilingConfig) {
        self.init_core(x, tiling);
        self.z_gm.set_global_buffer(z, 1);
        self.ws_gm.set_global_buffer(workspace, tiling.block_dim as usize * T::EPB);
    }

    /// The part of [`init`](Self::init) every variant shares: checks the tiling, binds this
    /// core's slice of `x` and carves the buffers.
    pub(crate) fn init_core(&mut self, x: GmAddr, tiling: &TilingConfig) {
        tiling.check::<T>(API, T::PAR);
        if tiling.tile_length > MAX_REPEATS * T::PAR {
            ascend_core::fail(
                API,
                format!(
                    "tile_length = {} exceeds 4095 repeats ({} {} elements)",
                    tiling.tile_length,
                    MAX_REPEATS * T::PAR,
                    T::DTYPE
                ),
            );
        }
        self.tiling = *tiling;
        let range = tiling.core_range::<T>(get_block_idx());
        self.block_length = range.len();
        // The longest core slice decides the partial buffer, identical on every core.
        let max_tiles = tiling.core_range::<T>(0).len().div_ceil(tiling.tile_length);
        self.partial_cap = whole_repeats::<T>(max_tiles.max(tiling.block_dim as usize));
        if self.partial_cap > MAX_REPEATS * T::PAR {
            ascend_core::fail(
                API,
                format!(
                    "{max_tiles} tiles per core (or {} cores) exceed the 4095 repeats of one vec_reduce_add; use longer tiles",
                    tiling.block_dim
                ),
            );
        }
        self.x_gm.set_global_buffer(x.add::<T>(range.start), self.block_length);

        let repeats = (tiling.tile_length / T::PAR).max(self.partial_cap / T::PAR);
        self.pipe.init_buffer(&mut self.in_queue, BUFFER_NUM, tiling.tile_length * T::SIZE);
        self.pipe.init_tbuf(&mut self.partial_buf, self.partial_cap * T::SIZE);
        self.pipe.init_tbuf(&mut self.sum_buf, 32);
        self.pipe.init_tbuf(&mut self.work_buf, repeats * T::SIZE);
        let gather = (tiling.block_dim as usize * T::EPB).max(self.partial_cap);
        self.pipe.init_tbuf(&mut self.block_buf, gather * T::SIZE);
    }

    /// Sums this core's slice, publishes the partial sum, waits for every core, and (core 0)
    /// writes the total.
    pub fn process(&mut self) {
        let core_sum = self.core_sum();
        self.copy_out_partial(core_sum);
        sync_all();
        if get_block_idx() == 0 {
            self.reduce_partials();
        }
    }

    /// The sum of this core's slice: tile sums, then their sum.
    pub(crate) fn core_sum(&mut self) -> T {
        let tiling = self.tiling;
        let partials = self.partial_buf.get::<T>();
        let mut n_tiles = 0;
        for (i, (offset, len)) in tiling.tiles(self.block_length).enumerate() {
            self.copy_in(offset, len);
            self.compute(i, len, &partials);
            n_tiles += 1;
        }
        self.sum_padded(&partials, n_tiles)
    }

    /// GM → UB: one tile (a partial last block is zero-filled by `DataCopyPad`).
    fn copy_in(&mut self, offset: usize, len: usize) {
        let x_local = self.in_queue.alloc_tensor::<T>();
        data_copy_tail(&x_local, &self.x_gm.view(offset), len);
        self.in_queue.enque(x_local);
    }

    /// The sum of one tile into `partials[i]`.
    fn compute(&mut self, i: usize, len: usize, partials: &LocalTensor<T>) {
        let x_local = self.in_queue.deque::<T>();
        let sum = self.sum_padded(&x_local, len);
        partials.set_value(i, sum);
        self.in_queue.free_tensor(x_local);
    }

    /// `vec_reduce_add` over the first `n` elements of `t` after zeroing the rest of its last
    /// repeat (0 when `n == 0`).
    fn sum_padded(&self, t: &LocalTensor<T>, n: usize) -> T {
        if n == 0 {
            return T::ZERO;
        }
        let padded = whole_repeats::<T>(n);
        // Elements up to the next 32-byte boundary: zeroed one by one (the copy's padding
        // already zeroed them after a DataCopyPad); whole blocks after that with Duplicate.
        let aligned = n.next_multiple_of(T::EPB);
        // The scalar unit touches a tile the MTE2 / V pipes wrote: wait for every pipe.
        pipe_barrier::<PIPE_ALL>();
        for k in n..aligned {
            t.set_value(k, T::ZERO);
        }
        if padded > aligned {
            duplicate(&t.view(aligned), T::ZERO, padded - aligned);
        }
        let (sum, work) = (self.sum_buf.get::<T>(), self.work_buf.get::<T>());
        // The vector unit reads what the scalar unit wrote, then the scalar unit reads the sum.
        pipe_barrier::<PIPE_ALL>();
        vec_reduce_add(T::PAR as u64, &sum, t, &work, (padded / T::PAR) as u16, 8);
        pipe_barrier::<PIPE_ALL>();
        sum.get_value(0)
    }

    /// UB → GM: this core's partial sum as element 0 of its workspace block.
    fn copy_out_partial(&mut self, core_sum: T) {
        let block = self.block_buf.get_with_len::<T>(T::EPB);
        duplicate(&block, T::ZERO, T::EPB);
        pipe_barrier::<PIPE_ALL>();
        block.set_value(0, core_sum);
        pipe_barrier::<PIPE_ALL>();
        data_copy(&self.ws_gm.view(get_block_idx() as usize * T::EPB), &block, T::EPB);
    }

    /// Core 0: the sum of every core's partial, to `z[0]`.
    fn reduce_partials(&mut self) {
        let cores = self.tiling.block_dim as usize;
        let blocks = self.block_buf.get_with_len::<T>(cores * T::EPB);
        data_copy(&blocks, &self.ws_gm, cores * T::EPB);
        pipe_barrier::<PIPE_ALL>();
        let partials = self.partial_buf.get::<T>();
        for c in 0..cores {
            partials.set_value(c, blocks.get_value(c * T::EPB));
        }
        let total = self.sum_padded(&partials, cores);
        self.z_gm.set_value(0, total);
    }
}

/// The kernel entry point: `z[0] = sum(x)` over `total_length` elements, with a workspace of
/// `block_dim * 32` bytes, both read from the [`TilingData`] at `tiling` (AscendC
/// `GET_TILING_DATA`). Must run with every core alive at once ([`ExecMode::ThreadPerCore`])
/// because of `sync_all`.
///
/// # Panics
/// As `get_tiling_data` (a tiling buffer of fewer than `size_of::<TilingData>()` bytes),
/// [`KernelReduceSum::init`] and `sync_all` (a pooled launch of more than one core).
pub fn reduce_sum<T: ReduceSumElement>(x: GmAddr, z: GmAddr, workspace: GmAddr, tiling: GmAddr) {
    let tiling_data: TilingConfig = get_tiling_data::<TilingData>(tiling).into();
    let mut op = KernelReduceSum::<T>::new();
    op.init(x, z, workspace, &tiling_data);
    op.process();
}

/// Host side: launches [`reduce_sum`] on `tiling.block_dim` cores of `soc` (thread per core)
/// and returns the sum.
///
/// # Errors
/// The [`LaunchError`] of a failing core.
///
/// # Panics
/// Panics if `x` does not hold `tiling.total_length` elements.
pub fn run_reduce_sum<T: ReduceSumElement>(
    soc: Soc,
    x: &[T],
    tiling: &TilingConfig,
) -> Result<(T, LaunchStats), LaunchError> {
    check_input_len("x", x, tiling.total_length);
    let tiling_gm = GmBuffer::from_tiling(&TilingData::from(*tiling));
    let t = tiling_gm.addr();
    let launch = Launch::new(soc).block_dim(tiling.block_dim).mode(ExecMode::ThreadPerCore);
    let workspace = tiling.block_dim as usize * T::EPB;
    let ([z, _], stats) =
        run_on_gm(&launch, [x], [T::EPB, workspace], move |[x], [z, ws]| reduce_sum::<T>(x, z, ws, t))?;
    Ok((z[0], stats))
}

/// `a + b` rounded to `T`; for `f16` in saturation mode ±inf becomes ±65504 and NaN 0.
fn add_sat<T: Element>(a: T, b: T, sat: bool) -> T {
    let s = T::add(a, b);
    if sat && s.to_f64().is_infinite() {
        T::from_f64(65504f64.copysign(s.to_f64()))
    } else if sat && s.to_f64().is_nan() {
        T::ZERO
    } else {
        s
    }
}

/// The pairwise tree: neighbours added level by level, an odd level carrying its last value.
fn tree<T: Element>(mut xs: Vec<T>, sat: bool) -> T {
    while xs.len() > 1 {
        let carry = (xs.len() % 2 == 1).then(|| xs[xs.len() - 1]);
        let mut next: Vec<T> = xs.chunks_exact(2).map(|p| add_sat(p[0], p[1], sat)).collect();
        next.extend(carry);
        xs = next;
    }
    xs[0]
}

/// `vec_reduce_add` with a full mask over `lanes` (a whole number of repeats), in `soc`'s
/// order of additions, written from the specification (independent of the emulator).
pub fn vec_reduce_add_reference<T: Element>(soc: Soc, lanes: &[T]) -> T {
    assert!(!lanes.is_empty() && lanes.len() % T::PAR == 0, "whole repeats expected");
    let sat = T::DTYPE == DType::F16 && soc.default_overflow_mode() == OverflowMode::Saturation;
    let repeats: Vec<&[T]> = lanes.chunks(T::PAR).collect();
    match soc.reduce_order() {
        RepeatSumOrder::PairwiseTree => tree(repeats.iter().map(|r| tree(r.to_vec(), sat)).collect(), sat),
        RepeatSumOrder::InOrderGroupsOf255 => {
            let sums: Vec<T> = repeats.iter().map(|r| tree(r.to_vec(), sat)).collect();
            let groups =
                sums.chunks(255).map(|g| g[1..].iter().fold(g[0], |acc, &x| add_sat(acc, x, sat))).collect();
            tree(groups, sat)
        }
        RepeatSumOrder::OddEvenAccumulate => {
            let n = repeats.len();
            let lane_add = |acc: Option<Vec<T>>, r: &[T]| -> Option<Vec<T>> {
                Some(match acc {
                    None => r.to_vec(),
                    Some(a) => a.iter().zip(r).map(|(&x, &y)| add_sat(x, y, sat)).collect(),
                })
            };
            let (mut a, mut b, mut c) = (None, None, None);
            for (i, r) in repeats.iter().enumerate() {
                if n % 2 == 1 && i == n - 1 {
                    c = Some(r.to_vec());
                } else if i % 2 == 0 {
                    a = lane_add(a, r);
                } else {
                    b = lane_add(b, r);
                }
            }
            let mut d = None;
            for part in [a, b, c].into_iter().flatten() {
                d = lane_add(d, &part);
            }
            tree(d.expect("at least one repeat"), sat)
        }
    }
}

/// `vec_reduce_add_reference` of the first `n` values of `xs` zero-padded to whole repeats
/// (0 for none), as the kernel's `sum_padded`.
fn sum_padded_reference<T: Element>(soc: Soc, xs: &[T]) -> T {
    if xs.is_empty() {
        return T::ZERO;
    }
    let mut v = xs.to_vec();
    v.resize(whole_repeats::<T>(xs.len()), T::ZERO);
    vec_reduce_add_reference(soc, &v)
}

/// Host reference of [`reduce_sum`]: the same tiles, cores and order of additions on `soc`,
/// computed from the specification with scalar arithmetic.
pub fn reduce_sum_reference<T: Element>(soc: Soc, x: &[T], tiling: &TilingConfig) -> T {
    sum_padded_reference(soc, &core_sums_reference(soc, x, tiling))
}

/// Each core's sum of its slice, as the kernel computes it on `soc`.
pub fn core_sums_reference<T: Element>(soc: Soc, x: &[T], tiling: &TilingConfig) -> Vec<T> {
    (0..tiling.block_dim)
        .map(|c| {
            let slice = &x[tiling.core_range::<T>(c)];
            let tile_sums: Vec<T> =
                tiling.tiles(slice.len()).map(|(o, l)| sum_padded_reference(soc, &slice[o..o + l])).collect();
            sum_padded_reference(soc, &tile_sums)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::random_vec;

    fn check<T: ReduceSumElement>(soc: Soc, tiling: TilingConfig, seed: u64, lo: f64, hi: f64) -> T {
        let x = random_vec::<T>(tiling.total_length, seed, lo, hi);
        let (sum, stats) = run_reduce_sum(soc, &x, &tiling).unwrap();
        assert_eq!(stats.mode, ExecMode::ThreadPerCore);
        let expected = reduce_sum_reference(soc, &x, &tiling);
        assert_eq!(sum.to_bits_u64(), expected.to_bits_u64(), "{soc}: {sum} vs {expected} ({tiling:?})");
        sum
    }

    #[test]
    fn f32_on_each_chip() {
        for soc in Soc::ALL {
            for (n, cores) in [(64, 1), (8 * 4096, 8), (48 * 1000, 48), (100_000, 8), (1000, 48)] {
                for tile in [64, 1024, 255 * 64 + 64] {
                    let t = TilingConfig { total_length: n, block_dim: cores, tile_length: tile };
                    check::<f32>(soc, t, n as u64, -1.0, 1.0);
                }
            }
        }
    }

    #[test]
    fn f16_on_each_chip() {
        for soc in Soc::ALL {
            for (n, cores) in [(128, 1), (8 * 4096, 8), (48 * 512, 48), (1024 * 33, 8)] {
                for tile in [128, 2048] {
                    let t = TilingConfig { total_length: n, block_dim: cores, tile_length: tile };
                    check::<f16>(soc, t, n as u64 + 1, -1.0, 1.0);
                }
            }
        }
    }

    #[test]
    fn tails_on_chips_with_data_copy_pad() {
        for soc in [Soc::Ascend910B, Soc::Ascend310B] {
            for (n, cores) in [(1, 1), (3, 8), (1001, 8), (48 * 77 + 5, 48)] {
                check::<f32>(soc, TilingConfig::new::<f32>(n, cores), 5, -10.0, 10.0);
                check::<f16>(soc, TilingConfig::new::<f16>(n, cores), 6, -1.0, 1.0);
            }
        }
    }

    #[test]
    fn exact_sums() {
        let x = vec![1.0f32; 1 << 20];
        let (s, _) = run_reduce_sum(Soc::Ascend910B, &x, &TilingConfig::new::<f32>(x.len(), 8)).unwrap();
        assert_eq!(s, (1 << 20) as f32);
        let x = vec![f16::ONE; 2048];
        let (s, _) = run_reduce_sum(Soc::Ascend910, &x, &TilingConfig::new::<f16>(x.len(), 8)).unwrap();
        assert_eq!(s.to_f32(), 2048.0);
    }

    #[test]
    fn f16_overflow_follows_the_chip() {
        // The seed's example: saturation gives 35584, inf/nan mode +inf.
        let mut x = vec![f16::ZERO; 128];
        x[..4].copy_from_slice(&[60000.0, 60000.0, -30000.0, 100.0].map(f16::from_f32));
        let t = TilingConfig::new::<f16>(128, 1);
        for soc in Soc::ALL {
            let (s, _) = run_reduce_sum(soc, &x, &t).unwrap();
            let expected =
                if soc.default_overflow_mode() == OverflowMode::Saturation { 35584.0 } else { f32::INFINITY };
            assert_eq!(s.to_f32(), expected, "{soc}");
            assert_eq!(s, reduce_sum_reference(soc, &x, &t));
        }
    }

    #[test]
    fn order_matters_and_is_modelled() {
        // Large and small values: the per-chip order changes the rounded f32 result.
        let x: Vec<f32> =
            (0..64 * 600).map(|i| if i % 64 == 0 { 1.0e8 } else { 1.0 + i as f32 * 1e-3 }).collect();
        let t = TilingConfig { total_length: x.len(), block_dim: 1, tile_length: 64 * 300 };
        let sums: Vec<u32> = Soc::ALL.iter().map(|&soc| check_exact(soc, &x, &t)).collect();
        assert!(sums.iter().any(|&s| s != sums[0]), "expected the chips to differ: {sums:?}");
    }

    fn check_exact(soc: Soc, x: &[f32], t: &TilingConfig) -> u32 {
        let (s, _) = run_reduce_sum(soc, x, t).unwrap();
        assert_eq!(s.to_bits(), reduce_sum_reference(soc, x, t).to_bits(), "{soc}");
        s.to_bits()
    }

    #[test]
    fn reference_seed_vectors() {
        // 256 ones, 2 repeats: 256 on every chip.
        for soc in Soc::ALL {
            assert_eq!(vec_reduce_add_reference(soc, &[f16::ONE; 256]).to_f32(), 256.0);
        }
    }

    #[test]
    fn sync_all_runs_in_the_default_mode_and_is_an_error_in_the_sequential_one() {
        let x = vec![1.0f32; 1024];
        let tiling = GmBuffer::from_tiling(&TilingData::from(TilingConfig::new::<f32>(1024, 4)));
        let (xg, zg, ws) =
            (GmBuffer::from_slice(&x), GmBuffer::<f32>::zeroed(8), GmBuffer::<f32>::zeroed(32));
        let (xa, za, wa, t) = (xg.addr(), zg.addr(), ws.addr(), tiling.addr());
        // The default (pooled) mode: a core waiting in SyncAll parks and its thread runs on.
        Launch::new(Soc::Ascend910B).block_dim(4).run(move || reduce_sum::<f32>(xa, za, wa, t)).unwrap();
        assert_eq!(zg.to_vec()[0].to_bits(), 1024f32.to_bits());
        // The sequential mode runs one core after another: no core can wait for the others.
        let e = Launch::new(Soc::Ascend910B)
            .block_dim(4)
            .mode(ExecMode::Sequential)
            .run(move || reduce_sum::<f32>(xa, za, wa, t))
            .unwrap_err();
        assert!(e.to_string().contains("sequential mode"), "{e}");
    }

    #[test]
    fn the_kernel_reads_its_tiling_from_gm() {
        // 1000 ones in a buffer of 4096: the tiling's length decides what is summed.
        let tiling = GmBuffer::from_tiling(&TilingData::from(TilingConfig::new::<f32>(1000, 2)));
        let (xg, zg, ws) =
            (GmBuffer::from_vec(vec![1.0f32; 4096]), GmBuffer::<f32>::zeroed(8), GmBuffer::<f32>::zeroed(16));
        let (xa, za, wa, t) = (xg.addr(), zg.addr(), ws.addr(), tiling.addr());
        Launch::new(Soc::Ascend910B)
            .block_dim(2)
            .mode(ExecMode::ThreadPerCore)
            .run(move || reduce_sum::<f32>(xa, za, wa, t))
            .unwrap();
        assert_eq!(zg.to_vec()[0], 1000.0);
    }

    #[test]
    fn too_small_a_tiling_buffer_is_an_error() {
        let tiling = GmBuffer::from_tiling(&[1024u64, 64]);
        let (xg, zg) = (GmBuffer::<f32>::zeroed(1024), GmBuffer::<f32>::zeroed(8));
        let (xa, za, t) = (xg.addr(), zg.addr(), tiling.addr());
        let e = Launch::new(Soc::Ascend910B)
            .block_dim(1)
            .mode(ExecMode::ThreadPerCore)
            .run(move || reduce_sum::<f32>(xa, za, za, t))
            .unwrap_err();
        assert!(e.to_string().contains("GET_TILING_DATA: the tiling buffer holds 16 bytes"), "{e}");
    }

    #[test]
    fn bad_tile_is_an_error() {
        let x = vec![1.0f32; 100];
        let e = run_reduce_sum(Soc::Ascend910B, &x, &TilingConfig::new::<f32>(100, 1).with_tile_length(8))
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("ReduceSum: tile_length = 8 is not a positive multiple of 64 float elements"),
            "{e}"
        );
    }
}
