//! The row-wise pipeline the normalisation kernels share ([`softmax`](crate::softmax),
//! [`rms_norm`](crate::norm::rms_norm), [`layer_norm`](crate::norm::layer_norm)): a `[rows,
//! cols]` matrix in GM, each core owning a contiguous run of whole rows, each row a tile.
//!
//! [`KernelRows<T, Op>`] is the usual AscendC class: a `TPipe`, one `VECIN` and one `VECOUT`
//! queue of `BUFFER_NUM = 2` row buffers, `TBuf` scratch; `init` binds this core's rows
//! ([`RowTiling::core_rows`]: whole rows, in groups that are whole 32-byte blocks of GM),
//! loads the per-column parameters (gamma, beta) into UB once, upcast to `float`; `process`
//! walks the rows through `copy_in` (GM → UB, `DataCopy`, or `DataCopyPad` when a row is not
//! whole 32-byte blocks), `compute` and `copy_out`.
//!
//! `compute` always works in `float`, as the vendor's normalisation kernels do: a `half` row
//! is `Cast` to `float` (`CAST_NONE`, exact), computed, and `Cast` back (`CAST_NONE`, which
//! rounds to nearest-even when inexact); a `float` row is computed in its own input buffer and
//! the last instruction writes the output buffer ([`RowElement`]). The instruction sequence on
//! one row is the `Op`'s [`RowOp::compute`].
//!
//! The split reaches the kernel through GM, as AscendC's tiling data does: the host writes a
//! [`RowTilingData`] with `GmBuffer::from_tiling` and the entry point ([`rows_custom`], behind
//! `softmax`, `rms_norm` and `layer_norm`) reads it back with `get_tiling_data`
//! (`GET_TILING_DATA`) before `init`. As in the vendor's LayerNorm sample, whose tiling data
//! carries `epsilon`, the op's `epsilon` travels in it too ([`RowOp::from_tiling`]).
//!
//! A core reads and writes only its own rows (the GM copies of a row cover exactly its
//! `cols` elements), so no row is read by one core while another writes it. Everything a core
//! needs must fit in the chip's Unified Buffer next to the queues; [`row_ub_bytes`] is the
//! budget, and a row too long for it is an error naming the kernel, `cols`, the bytes needed
//! and the chip's UB size (on Ascend910B, 192 KiB, a `float` LayerNorm row fits up to
//! 6984 columns, RMSNorm 8144, softmax 12184).

use core::marker::PhantomData;
use core::ops::Range;

use ascend_runtime::prelude::*;

use crate::host::check_input_len;
use crate::tiling::{copy_gm_to_ub, copy_ub_to_gm, BUFFER_NUM};

/// How a row-wise kernel splits a `[rows, cols]` matrix: whole rows over `block_dim` cores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RowTiling {
    /// Rows of the matrix (independent problems).
    pub rows: usize,
    /// Elements per row (the reduced axis).
    pub cols: usize,
    /// Cores of the launch (`blockDim`).
    pub block_dim: u32,
}

impl RowTiling {
    /// `rows × cols` on `block_dim` cores.
    pub const fn new(rows: usize, cols: usize, block_dim: u32) -> Self {
        RowTiling { rows, cols, block_dim }
    }

    /// Rows whose elements of `T` are a whole number of 32-byte blocks (the smallest such
    /// count): the unit of the split, so that no two cores write into one 32-byte block of GM
    /// (`DataCopy`/`DataCopyPad` to GM write whole blocks).
    pub const fn row_group<T: Element>(&self) -> usize {
        let bytes = self.cols * T::SIZE;
        let mut g = 1;
        while (g * bytes) % 32 != 0 {
            g *= 2;
        }
        g
    }

    /// The rows of core `block_idx`: groups of [`row_group`](Self::row_group) rows split
    /// evenly, the first cores one group longer, the last group cut at `rows`; cores beyond
    /// the rows get none. Every core's rows start on a 32-byte boundary of GM.
    ///
    /// ```
    /// use ascend_kernels::rows::RowTiling;
    /// // 64 floats a row: whole blocks, rows split one by one.
    /// let t = RowTiling::new(10, 64, 4);
    /// let split: Vec<_> = (0..4).map(|c| t.core_rows::<f32>(c)).collect();
    /// assert_eq!(split, vec![0..3, 3..6, 6..8, 8..10]);
    /// // 100 halves a row (200 bytes): groups of 4 rows (800 bytes).
    /// let t = RowTiling::new(10, 100, 4);
    /// let split: Vec<_> = (0..4).map(|c| t.core_rows::<half::f16>(c)).collect();
    /// assert_eq!(split, vec![0..4, 4..8, 8..10, 10..10]);
    /// ```
    pub fn core_rows<T: Element>(&self, block_idx: u32) -> Range<usize> {
        let g = self.row_group::<T>();
        let groups = self.rows.div_ceil(g);
        let (c, i) = (self.block_dim.max(1) as usize, block_idx as usize);
        let (base, extra) = (groups / c, groups % c);
        let first = i * base + i.min(extra);
        let last = first + base + usize::from(i < extra);
        (first * g).min(self.rows)..(last * g).min(self.rows)
    }

    /// Elements of the matrix.
    pub const fn len(&self) -> usize {
        self.rows * self.cols
    }

    /// Whether the matrix is empty.
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A [`RowTiling`] and the op's `epsilon` as the host writes them to global memory and the
/// kernel reads them back with `get_tiling_data` (AscendC's tiling data): a `#[repr(C)]`, `Pod`
/// struct of fixed-size fields.
///
/// ```
/// use ascend_kernels::rows::{RowTiling, RowTilingData};
/// let t = RowTilingData::new(RowTiling::new(13, 100, 8), 1e-5);
/// assert_eq!((RowTiling::from(t), t.epsilon), (RowTiling::new(13, 100, 8), 1e-5));
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct RowTilingData {
    /// Rows of the matrix.
    pub rows: u64,
    /// Elements per row.
    pub cols: u64,
    /// Cores (`blockDim`).
    pub block_dim: u32,
    /// The op's `epsilon` (0 for an op without one, such as softmax).
    pub epsilon: f32,
}

impl RowTilingData {
    /// The split `tiling` with the op's `epsilon`.
    pub fn new(tiling: RowTiling, epsilon: f32) -> Self {
        RowTilingData {
            rows: tiling.rows as u64,
            cols: tiling.cols as u64,
            block_dim: tiling.block_dim,
            epsilon,
        }
    }
}

impl From<RowTilingData> for RowTiling {
    fn from(t: RowTilingData) -> Self {
        RowTiling { rows: t.rows as usize, cols: t.cols as usize, block_dim: t.block_dim }
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for half::f16 {}
    impl Sealed for f32 {}
}

/// Element types of the `float`-computing kernels (`half`, `float`): how a row gets into
/// `float` and back.
pub trait RowElement: Element + sealed::Sealed {
    /// Whether rows are `Cast` to a separate `float` buffer (`half`) or computed in place.
    const UPCAST: bool;

    /// The `float` row to compute on: `src` itself for `float`; for `half`, `work` after
    /// `Cast(work, src, CAST_NONE, n)`.
    #[track_caller]
    fn upcast(src: &LocalTensor<Self>, work: &LocalTensor<f32>, n: usize) -> LocalTensor<f32>;

    /// Where the `float` result goes: `dst` itself for `float`, `work` for `half`.
    fn result(dst: &LocalTensor<Self>, work: &LocalTensor<f32>) -> LocalTensor<f32>;

    /// Moves the result into `dst`: nothing for `float`; `Cast(dst, res, CAST_NONE, n)` for
    /// `half`.
    #[track_caller]
    fn downcast(dst: &LocalTensor<Self>, res: &LocalTensor<f32>, n: usize);
}

impl RowElement for f32 {
    const UPCAST: bool = false;
    fn upcast(src: &LocalTensor<f32>, _work: &LocalTensor<f32>, _n: usize) -> LocalTensor<f32> {
        src.clone()
    }
    fn result(dst: &LocalTensor<f32>, _work: &LocalTensor<f32>) -> LocalTensor<f32> {
        dst.clone()
    }
    fn downcast(_dst: &LocalTensor<f32>, _res: &LocalTensor<f32>, _n: usize) {}
}

impl RowElement for f16 {
    const UPCAST: bool = true;
    #[track_caller]
    fn upcast(src: &LocalTensor<f16>, work: &LocalTensor<f32>, n: usize) -> LocalTensor<f32> {
        cast(work, src, RoundMode::CastNone, n);
        work.clone()
    }
    fn result(_dst: &LocalTensor<f16>, work: &LocalTensor<f32>) -> LocalTensor<f32> {
        work.clone()
    }
    #[track_caller]
    fn downcast(dst: &LocalTensor<f16>, res: &LocalTensor<f32>, n: usize) {
        cast(dst, res, RoundMode::CastNone, n);
    }
}

/// The `float` scratch a [`RowOp`] gets on every row.
pub struct RowScratch {
    /// The per-column parameters (`gamma`, then `beta`), `float`, `Op::PARAMS` of them.
    pub params: Vec<LocalTensor<f32>>,
    /// One row of `float` scratch (squares for a sum of squares), if `Op::WORK` asked for it.
    pub work: Option<LocalTensor<f32>>,
    /// Two 32-byte blocks for reduction results and per-row scalars (`red[0]`, `red[8]`).
    pub red: [LocalTensor<f32>; 2],
    /// The `ReduceMax`/`ReduceSum` shared temporary buffer.
    pub tmp: LocalTensor<f32>,
    /// The event id ordering the scalar unit after the vector unit (`V_S`).
    pub v_s: TEventID,
    /// The event id ordering the vector unit after the scalar unit (`S_V`).
    pub s_v: TEventID,
}

impl RowScratch {
    /// Element 0 of `red[k]`, read by the scalar unit (`GetValue`) after the vector unit wrote
    /// it: `SetFlag`/`WaitFlag<HardEvent::V_S>` before the read and `<HardEvent::S_V>` after
    /// it (the next row's vector instructions write `red` again), as vendor kernels do around
    /// a `GetValue` of a reduction result.
    #[track_caller]
    pub fn scalar(&self, k: usize) -> f32 {
        set_flag::<HardEvent::V_S>(self.v_s);
        wait_flag::<HardEvent::V_S>(self.v_s);
        let v = self.red[k].get_value(0);
        set_flag::<HardEvent::S_V>(self.s_v);
        wait_flag::<HardEvent::S_V>(self.s_v);
        v
    }
}

/// The instruction sequence of a row-wise kernel on one row.
pub trait RowOp: Copy + Send + Sync {
    /// The kernel's name in its error messages (`"SoftMax"`).
    const API: &'static str;
    /// Per-column parameter vectors (`gamma`, `beta`) the kernel reads.
    const PARAMS: usize;
    /// Whether the op needs a row of `float` scratch besides the row itself.
    const WORK: bool;

    /// The op as the kernel builds it from the tiling data it read (its `epsilon`).
    fn from_tiling(tiling: &RowTilingData) -> Self;

    /// The `epsilon` the host writes into the tiling data (0 for an op without one).
    fn epsilon(&self) -> f32 {
        0.0
    }

    /// `y = op(x)` over `cols` elements: `x` is this row in `float` and may be overwritten;
    /// the last instruction writes `y` (which may be `x`).
    #[track_caller]
    fn compute(&self, s: &RowScratch, x: &LocalTensor<f32>, y: &LocalTensor<f32>, cols: usize);
}

/// `n` rounded up to whole 32-byte blocks of `T`, in bytes.
fn block_bytes<T: Element>(n: usize) -> usize {
    (n * T::SIZE).next_multiple_of(32)
}

/// Elements of the shared temporary buffer the row reductions need for `cols` `float`s: the
/// vendor's `ReduceMax` size without index (two per first-stage repeat), which also covers
/// `ReduceSum` (one per repeat), in whole blocks.
fn tmp_elems(cols: usize) -> usize {
    (2 * cols.div_ceil(64).max(1)).next_multiple_of(8)
}

/// The Unified Buffer bytes [`KernelRows`] carves for rows of `cols` elements of `T` and an
/// op with `params` parameter vectors and (`work`) a scratch row.
pub fn row_ub_bytes<T: RowElement>(cols: usize, params: usize, work: bool) -> usize {
    let row_t = block_bytes::<T>(cols);
    let row_f = block_bytes::<f32>(cols);
    2 * BUFFER_NUM * row_t
        + params * row_f
        + if T::UPCAST { row_f } else { 0 }
        + if work { row_f } else { 0 }
        + 64
        + tmp_elems(cols) * 4
}

/// Checks that a row of `cols` elements fits in UB on the current core's chip.
///
/// # Panics
/// Panics (as `api`) if `cols` is 0 or the buffers exceed the chip's Unified Buffer.
#[track_caller]
pub fn check_row_fits<T: RowElement>(api: &'static str, cols: usize, params: usize, work: bool) {
    if cols == 0 {
        ascend_core::fail(api, "cols = 0: a row holds at least one element");
    }
    let (need, soc) = (row_ub_bytes::<T>(cols, params, work), get_soc());
    if need > soc.ub_size() {
        ascend_core::fail(
            api,
            format!(
                "cols = {cols} {} elements need {need} bytes of Unified Buffer (2 x {BUFFER_NUM} row buffers, {params} parameter rows and the float scratch); {soc} has {}",
                T::DTYPE,
                soc.ub_size()
            ),
        );
    }
}

/// One core's state of a row-wise kernel.
pub struct KernelRows<T: RowElement, Op: RowOp> {
    pipe: TPipe,
    in_queue_x: TQue<VecIn, BUFFER_NUM>,
    out_queue_y: TQue<VecOut, BUFFER_NUM>,
    param_buf: TBuf<VecCalc>,
    x32_buf: TBuf<VecCalc>,
    work_buf: TBuf<VecCalc>,
    red_buf: TBuf<VecCalc>,
    tmp_buf: TBuf<VecCalc>,
    x_gm: GlobalTensor<T>,
    y_gm: GlobalTensor<T>,
    scratch: Option<RowScratch>,
    tiling: RowTiling,
    rows: usize,
    op: Op,
    _t: PhantomData<T>,
}

impl<T: RowElement, Op: RowOp> KernelRows<T, Op> {
    /// A kernel object for `op` with unbound tensors and no buffers.
    pub fn new(op: Op) -> Self {
        KernelRows {
            pipe: TPipe::new(),
            in_queue_x: TQue::new(),
            out_queue_y: TQue::new(),
            param_buf: TBuf::new(),
            x32_buf: TBuf::new(),
            work_buf: TBuf::new(),
            red_buf: TBuf::new(),
            tmp_buf: TBuf::new(),
            x_gm: GlobalTensor::new(),
            y_gm: GlobalTensor::new(),
            scratch: None,
            tiling: RowTiling::new(0, 0, 1),
            rows: 0,
            op,
            _t: PhantomData,
        }
    }

    /// Binds this core's rows of `x` and `y`, carves the buffers, and loads the parameter
    /// vectors (`params_addrs`, `cols` elements each) into UB as `float`.
    ///
    /// # Panics
    /// Panics if `params_addrs` does not hold `Op::PARAMS` addresses, `cols` is 0 or a row does not
    /// fit in UB, or a GM buffer is too small.
    #[track_caller]
    pub fn init(&mut self, x: GmAddr, params_addrs: &[GmAddr], y: GmAddr, tiling: &RowTiling) {
        if params_addrs.len() != Op::PARAMS {
            ascend_core::fail(
                Op::API,
                format!("{} parameter vectors given, the kernel takes {}", params_addrs.len(), Op::PARAMS),
            );
        }
        let cols = tiling.cols;
        check_row_fits::<T>(Op::API, cols, Op::PARAMS, Op::WORK);
        self.tiling = *tiling;
        let rows = tiling.core_rows::<T>(get_block_idx());
        self.rows = rows.len();
        self.x_gm.set_global_buffer(x.add::<T>(rows.start * cols), self.rows * cols);
        self.y_gm.set_global_buffer(y.add::<T>(rows.start * cols), self.rows * cols);
        let (row_t, row_f) = (block_bytes::<T>(cols), block_bytes::<f32>(cols));
        self.pipe.init_buffer(&mut self.in_queue_x, BUFFER_NUM, row_t);
        self.pipe.init_buffer(&mut self.out_queue_y, BUFFER_NUM, row_t);
        if Op::PARAMS > 0 {
            self.pipe.init_tbuf(&mut self.param_buf, Op::PARAMS * row_f);
        }
        if T::UPCAST {
            self.pipe.init_tbuf(&mut self.x32_buf, row_f);
        }
        if Op::WORK {
            self.pipe.init_tbuf(&mut self.work_buf, row_f);
        }
        self.pipe.init_tbuf(&mut self.red_buf, 64);
        self.pipe.init_tbuf(&mut self.tmp_buf, tmp_elems(cols) * 4);

        let stride = row_f / 4;
        let params: Vec<LocalTensor<f32>> =
            (0..Op::PARAMS).map(|p| self.param_buf.get_with_offset::<f32>(stride, p * row_f)).collect();
        if self.rows > 0 {
            for (addr, p32) in params_addrs.iter().zip(&params) {
                self.load_param(*addr, p32, cols);
            }
        }
        self.scratch = Some(RowScratch {
            params,
            work: Op::WORK.then(|| self.work_buf.get::<f32>()),
            red: [self.red_buf.get_with_offset::<f32>(8, 0), self.red_buf.get_with_offset::<f32>(8, 32)],
            tmp: self.tmp_buf.get::<f32>(),
            v_s: self.pipe.fetch_event_id::<HardEvent::V_S>(),
            s_v: self.pipe.fetch_event_id::<HardEvent::S_V>(),
        });
    }

    /// GM → UB once: a parameter vector (`cols` elements of `T`) through the input queue into
    /// its `float` row (`Cast` for `half`, a UB → UB `DataCopy` for `float`).
    #[track_caller]
    fn load_param(&mut self, addr: GmAddr, p32: &LocalTensor<f32>, cols: usize) {
        let mut gm = GlobalTensor::<T>::new();
        gm.set_global_buffer(addr, cols);
        let staging = self.in_queue_x.alloc_tensor::<T>();
        copy_gm_to_ub(&staging, &gm, cols);
        self.in_queue_x.enque(staging);
        let staging = self.in_queue_x.deque::<T>();
        if T::UPCAST {
            T::upcast(&staging, p32, cols);
        } else {
            data_copy(p32, &staging.reinterpret_cast::<f32>(), cols.next_multiple_of(8));
        }
        self.in_queue_x.free_tensor(staging);
    }

    /// Runs `copy_in`, `compute`, `copy_out` over every row of this core.
    #[track_caller]
    pub fn process(&mut self) {
        for row in 0..self.rows {
            self.copy_in(row);
            self.compute();
            self.copy_out(row);
        }
    }

    /// GM → UB: one row (`DataCopyPad` when it is not whole 32-byte blocks).
    #[track_caller]
    fn copy_in(&mut self, row: usize) {
        let cols = self.tiling.cols;
        let x_local = self.in_queue_x.alloc_tensor::<T>();
        copy_gm_to_ub(&x_local, &self.x_gm.view(row * cols), cols);
        self.in_queue_x.enque(x_local);
    }

    /// The op on one row, in `float`.
    #[track_caller]
    fn compute(&mut self) {
        let cols = self.tiling.cols;
        let x_local = self.in_queue_x.deque::<T>();
        let y_local = self.out_queue_y.alloc_tensor::<T>();
        let s = self.scratch.as_ref().expect("init carves the scratch");
        let x32 = if T::UPCAST { self.x32_buf.get::<f32>() } else { x_local.reinterpret_cast::<f32>() };
        let x = T::upcast(&x_local, &x32, cols);
        let y = T::result(&y_local, &x);
        self.op.compute(s, &x, &y, cols);
        T::downcast(&y_local, &y, cols);
        self.out_queue_y.enque(y_local);
        self.in_queue_x.free_tensor(x_local);
    }

    /// UB → GM: one row (exactly `cols` elements).
    #[track_caller]
    fn copy_out(&mut self, row: usize) {
        let cols = self.tiling.cols;
        let y_local = self.out_queue_y.deque::<T>();
        copy_ub_to_gm(&self.y_gm.view(row * cols), &y_local, cols);
        self.out_queue_y.free_tensor(y_local);
    }
}

/// The kernel entry point of a row-wise kernel: `Op` over this core's rows of `x` into `y`,
/// with the parameter vectors `params`; the split and the op's `epsilon` read from the
/// [`RowTilingData`] at `tiling` (AscendC `GET_TILING_DATA`).
///
/// # Panics
/// As `get_tiling_data` (a tiling buffer of fewer than `size_of::<RowTilingData>()` bytes),
/// [`KernelRows::init`] and the AscendC calls the op makes.
#[track_caller]
pub fn rows_custom<T: RowElement, Op: RowOp>(x: GmAddr, params: &[GmAddr], y: GmAddr, tiling: GmAddr) {
    let tiling_data = get_tiling_data::<RowTilingData>(tiling);
    let mut k = KernelRows::<T, Op>::new(Op::from_tiling(&tiling_data));
    k.init(x, params, y, &tiling_data.into());
    k.process();
}

/// Host side of a row-wise kernel: copies `x` (`rows × cols`), the parameter vectors (`cols`
/// each) and the tiling with `op`'s `epsilon` ([`RowTilingData`]) to GM, launches
/// [`rows_custom`] on `tiling.block_dim` cores of `soc`, and returns `y` with the launch
/// statistics.
///
/// # Errors
/// The [`LaunchError`] of a failing core.
///
/// # Panics
/// Panics if `x` does not hold `rows × cols` elements or a parameter vector `cols`.
pub fn run_rows<T: RowElement, Op: RowOp, const P: usize>(
    soc: Soc,
    x: &[T],
    params: [&[T]; P],
    op: Op,
    tiling: &RowTiling,
) -> Result<(Vec<T>, LaunchStats), LaunchError> {
    check_input_len("x", x, tiling.len());
    for p in params {
        check_input_len("gamma/beta", p, tiling.cols);
    }
    let x_gm = GmBuffer::from_slice(x);
    let p_gm = params.map(GmBuffer::from_slice);
    let y_gm = GmBuffer::<T>::zeroed(tiling.len());
    let tiling_gm = GmBuffer::from_tiling(&RowTilingData::new(*tiling, op.epsilon()));
    let (xa, pa, ya, t) = (x_gm.addr(), p_gm.each_ref().map(GmBuffer::addr), y_gm.addr(), tiling_gm.addr());
    let stats =
        Launch::new(soc).block_dim(tiling.block_dim).run(move || rows_custom::<T, Op>(xa, &pa, ya, t))?;
    Ok((y_gm.to_vec(), stats))
}

/// `f(row)` applied to every `cols`-long row of `x` (the host references' loop).
pub fn map_rows<T: Element>(x: &[T], cols: usize, f: impl Fn(&[f64]) -> Vec<f64>) -> Vec<T> {
    x.chunks(cols.max(1))
        .flat_map(|r| f(&r.iter().map(|v| v.to_f64()).collect::<Vec<_>>()))
        .map(T::from_f64)
        .collect()
}

/// The rows of a flat input of `len` elements in rows of `cols` (the examples' check of an
/// input file against `--cols`).
///
/// # Errors
/// A message if `cols` is 0 or does not divide `len`.
///
/// ```
/// use ascend_kernels::rows::rows_of;
/// assert_eq!(rows_of(300, 100).unwrap(), 3);
/// assert_eq!(rows_of(301, 100).unwrap_err(), "301 elements are not whole rows of --cols 100");
/// ```
pub fn rows_of(len: usize, cols: usize) -> Result<usize, String> {
    if cols == 0 || len % cols != 0 {
        return Err(format!("{len} elements are not whole rows of --cols {cols}"));
    }
    Ok(len / cols)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_split_covers_every_row_once_on_block_boundaries() {
        for rows in [0usize, 1, 5, 47, 48, 49, 1001] {
            for cols in [1usize, 3, 16, 100, 1000] {
                for cores in [1u32, 3, 8, 48] {
                    let t = RowTiling::new(rows, cols, cores);
                    let g = t.row_group::<f16>();
                    assert_eq!(g * cols * 2 % 32, 0);
                    let mut next = 0;
                    for c in 0..cores {
                        let r = t.core_rows::<f16>(c);
                        assert_eq!(r.start, next, "rows {rows} cols {cols} cores {cores} core {c}");
                        assert!(r.start * cols * 2 % 32 == 0 || r.is_empty());
                        assert!(r.len() <= rows.div_ceil(g).div_ceil(cores as usize) * g);
                        next = r.end;
                    }
                    assert_eq!(next, rows);
                }
            }
        }
        assert_eq!(RowTiling::new(1, 1000, 1).row_group::<f32>(), 1);
        assert_eq!(RowTiling::new(1, 1001, 1).row_group::<f32>(), 8);
        assert_eq!(RowTiling::new(1, 4, 1).row_group::<f16>(), 4);
    }

    #[test]
    fn ub_budget_counts_every_buffer() {
        // float softmax, 64 columns: 4 row buffers of 256 bytes, the 64-byte result blocks and
        // 8 floats of reduction scratch.
        assert_eq!(row_ub_bytes::<f32>(64, 0, false), 4 * 256 + 64 + 32);
        // half LayerNorm, 100 columns: rows of 224 (half) and 416 (float) bytes.
        assert_eq!(row_ub_bytes::<f16>(100, 2, true), 4 * 224 + 2 * 416 + 416 + 416 + 64 + 32);
    }

    #[test]
    fn wrong_parameter_count_is_an_error() {
        let x = GmBuffer::<f32>::zeroed(64);
        let tiling = GmBuffer::from_tiling(&RowTilingData::new(RowTiling::new(1, 64, 1), 0.0));
        let (xa, t) = (x.addr(), tiling.addr());
        let e = Launch::new(Soc::Ascend910B)
            .block_dim(1)
            .run(move || rows_custom::<f32, crate::norm::RmsNorm>(xa, &[], xa, t))
            .unwrap_err();
        assert!(e.to_string().contains("RmsNorm: 0 parameter vectors given, the kernel takes 1"), "{e}");
    }

    #[test]
    fn the_kernel_reads_its_tiling_from_gm() {
        use crate::data::random_vec;
        use crate::norm::{layer_norm, layer_norm_reference, rms_norm, rms_norm_reference};
        use crate::softmax::{softmax, softmax_reference};
        use ascend_runtime::testing::{assert_close, Tolerance};
        // 5 of 16 rows of 64 floats in the tiling: the output's other rows stay as they were;
        // the norms' epsilon (large, to tell) is the tiling's.
        let (rows, cols, total) = (5, 64, 16);
        let x: Vec<f32> = random_vec(total * cols, 1, -3.0, 3.0);
        let (gamma, beta): (Vec<f32>, Vec<f32>) =
            (random_vec(cols, 2, 0.5, 1.5), random_vec(cols, 3, -1.0, 1.0));
        let (xg, gg, bg) =
            (GmBuffer::from_slice(&x), GmBuffer::from_slice(&gamma), GmBuffer::from_slice(&beta));
        let tiling = GmBuffer::from_tiling(&RowTilingData::new(RowTiling::new(rows, cols, 2), 0.5));
        let (xa, ga, ba, t) = (xg.addr(), gg.addr(), bg.addr(), tiling.addr());
        let head = &x[..rows * cols];
        type Kernel<'a> = &'a (dyn Fn(GmAddr) + Sync);
        let kernels: [(Kernel, Vec<f32>); 3] = [
            (&|ya| softmax::<f32>(xa, ya, t), softmax_reference(head, cols)),
            (&|ya| rms_norm::<f32>(xa, ga, ya, t), rms_norm_reference(head, &gamma, 0.5)),
            (&|ya| layer_norm::<f32>(xa, ga, ba, ya, t), layer_norm_reference(head, &gamma, &beta, 0.5)),
        ];
        for (kernel, want) in kernels {
            let yg = GmBuffer::from_vec(vec![9.0f32; total * cols]);
            let ya = yg.addr();
            Launch::new(Soc::Ascend910B).block_dim(2).run(|| kernel(ya)).unwrap();
            let y = yg.to_vec();
            assert_close(&y[..rows * cols], &want, Tolerance::of::<f32>());
            assert!(y[rows * cols..].iter().all(|&v| v == 9.0));
        }
    }

    #[test]
    fn too_small_a_tiling_buffer_is_an_error() {
        let buf = GmBuffer::<f32>::zeroed(64);
        let a = buf.addr();
        crate::host::assert_tiling_too_small::<RowTilingData>(|t| crate::softmax::softmax::<f32>(a, a, t));
        crate::host::assert_tiling_too_small::<RowTilingData>(|t| {
            crate::norm::layer_norm::<f32>(a, a, a, a, t)
        });
    }
}
