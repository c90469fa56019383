//! The elementwise binary kernel `z = op(x, y)`: the vendor's `add_custom` pipeline with the
//! instruction left open.
//!
//! [`KernelBinary<T, Op>`] is the sample's `KernelAdd` class, step for step:
//!
//! * a `TPipe`, two input queues (`VECIN`) and one output queue (`VECOUT`) of
//!   `BUFFER_NUM = 2` buffers each, and three `GlobalTensor`s;
//! * `init` binds each `GlobalTensor` to this core's slice of GM (found from
//!   `get_block_idx()`) and gives the queues their buffers;
//! * `process` walks the slice tile by tile, each tile through the three stages
//!   `copy_in` (GM → UB, `DataCopy`, enqueue), `compute` (dequeue, the instruction, enqueue)
//!   and `copy_out` (dequeue, UB → GM).
//!
//! The instruction is the `Op` type's [`BinaryOp::apply`]: `Add` for
//! [`add_custom`](crate::add_custom), `Sub` for [`sub_custom`](crate::sub_custom), `Compare`
//! + `Select` for [`maximum`](crate::maximum). [`run_binary`] is the host side they share.
//!
//! The tiling reaches the kernel through GM, as AscendC's tiling data does: the host writes a
//! [`TilingData`] with `GmBuffer::from_tiling` and the entry point ([`binary_custom`], behind
//! `add_custom`, `sub_custom` and `maximum`) reads it back with `get_tiling_data`
//! (`GET_TILING_DATA`) before `init`.

use core::marker::PhantomData;

use ascend_runtime::prelude::*;

use crate::host::{check_input_len, run_on_gm};
use crate::tiling::{TilingConfig, TilingData, BUFFER_NUM};

/// The instruction of a [`KernelBinary`]: what its `compute` stage does to one tile.
pub trait BinaryOp<T: Element>: Default {
    /// The kernel's name in its error messages (`"AddCustom"`).
    const API: &'static str;
    /// Tiles must be a positive multiple of this many elements (default one 32-byte block).
    const TILE_MULTIPLE: usize = T::EPB;

    /// Carves the scratch buffers the instruction needs for tiles of `tile_length` elements
    /// (none by default), after the queues' buffers.
    fn init_buffers(&mut self, _pipe: &mut TPipe, _tile_length: usize) {}

    /// `z = op(x, y)` on the first `len` elements of one tile.
    fn apply(&self, z: &LocalTensor<T>, x: &LocalTensor<T>, y: &LocalTensor<T>, len: usize);
}

/// One core's state of an elementwise binary kernel (the `add_custom` sample's class, with
/// the instruction supplied by `Op`).
pub struct KernelBinary<T: Element, Op: BinaryOp<T>> {
    pipe: TPipe,
    in_queue_x: TQue<VecIn, BUFFER_NUM>,
    in_queue_y: TQue<VecIn, BUFFER_NUM>,
    out_queue_z: TQue<VecOut, BUFFER_NUM>,
    x_gm: GlobalTensor<T>,
    y_gm: GlobalTensor<T>,
    z_gm: GlobalTensor<T>,
    tiling: TilingConfig,
    block_length: usize,
    op: Op,
    _t: PhantomData<T>,
}

impl<T: Element, Op: BinaryOp<T>> Default for KernelBinary<T, Op> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Element, Op: BinaryOp<T>> KernelBinary<T, Op> {
    /// A kernel object with unbound tensors and queues without buffers.
    pub fn new() -> Self {
        KernelBinary {
            pipe: TPipe::new(),
            in_queue_x: TQue::new(),
            in_queue_y: TQue::new(),
            out_queue_z: TQue::new(),
            x_gm: GlobalTensor::new(),
            y_gm: GlobalTensor::new(),
            z_gm: GlobalTensor::new(),
            tiling: TilingConfig::default(),
            block_length: 0,
            op: Op::default(),
            _t: PhantomData,
        }
    }

    /// Binds this core's slice of `x`, `y` and `z` and carves the queues' buffers.
    ///
    /// # Panics
    /// Panics if the tiling is unusable (tile length not a positive multiple of
    /// `Op::TILE_MULTIPLE`), a buffer does not hold the core's slice, or the tiles do not fit
    /// in UB.
    pub fn init(&mut self, x: GmAddr, y: GmAddr, z: GmAddr, tiling: &TilingConfig) {
        tiling.check::<T>(Op::API, Op::TILE_MULTIPLE);
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
        self.op.init_buffers(&mut self.pipe, tiling.tile_length);
    }

    /// Runs the three stages over every tile of this core's slice.
    pub fn process(&mut self) {
        let tiling = self.tiling;
        for (offset, len) in tiling.tiles(self.block_length) {
            self.copy_in(offset, len);
            self.compute(len);
            self.copy_out(offset, len);
        }
    }

    /// GM → UB: one tile of `x` and of `y` into fresh queue buffers, enqueued.
    fn copy_in(&mut self, offset: usize, len: usize) {
        let x_local = self.in_queue_x.alloc_tensor::<T>();
        let y_local = self.in_queue_y.alloc_tensor::<T>();
        data_copy_tail(&x_local, &self.x_gm.view(offset), len);
        data_copy_tail(&y_local, &self.y_gm.view(offset), len);
        self.in_queue_x.enque(x_local);
        self.in_queue_y.enque(y_local);
    }

    /// `z = op(x, y)` on one tile.
    fn compute(&mut self, len: usize) {
        let x_local = self.in_queue_x.deque::<T>();
        let y_local = self.in_queue_y.deque::<T>();
        let z_local = self.out_queue_z.alloc_tensor::<T>();
        self.op.apply(&z_local, &x_local, &y_local, len);
        self.out_queue_z.enque(z_local);
        self.in_queue_x.free_tensor(x_local);
        self.in_queue_y.free_tensor(y_local);
    }

    /// UB → GM: the result tile back to `z`.
    fn copy_out(&mut self, offset: usize, len: usize) {
        let z_local = self.out_queue_z.deque::<T>();
        data_copy_tail(&self.z_gm.view(offset), &z_local, len);
        self.out_queue_z.free_tensor(z_local);
    }
}

/// The kernel entry point of an elementwise binary kernel: `z = op(x, y)` over this core's
/// share of the elements, the tiling read from the [`TilingData`] at `tiling` (AscendC
/// `GET_TILING_DATA`).
///
/// # Panics
/// As `get_tiling_data` (a tiling buffer of fewer than `size_of::<TilingData>()` bytes),
/// [`KernelBinary::init`] and the AscendC calls the kernel makes.
pub fn binary_custom<T: Element, Op: BinaryOp<T>>(x: GmAddr, y: GmAddr, z: GmAddr, tiling: GmAddr) {
    let tiling_data: TilingConfig = get_tiling_data::<TilingData>(tiling).into();
    let mut op = KernelBinary::<T, Op>::new();
    op.init(x, y, z, &tiling_data);
    op.process();
}

/// Host side of an elementwise binary kernel: copies `x` and `y` to GM, writes `tiling` to GM
/// as a [`TilingData`], launches `kernel` (an entry point such as
/// [`add_custom`](crate::add_custom::add_custom)) on `tiling.block_dim` cores of `soc`, and
/// returns `z` with the launch statistics.
///
/// # Errors
/// The [`LaunchError`] of a failing core (with the core, API and message).
///
/// # Panics
/// Panics if `x` or `y` does not hold `tiling.total_length` elements.
pub fn run_binary<T: Element>(
    soc: Soc,
    x: &[T],
    y: &[T],
    tiling: &TilingConfig,
    kernel: fn(GmAddr, GmAddr, GmAddr, GmAddr),
) -> Result<(Vec<T>, LaunchStats), LaunchError> {
    check_input_len("x", x, tiling.total_length);
    check_input_len("y", y, tiling.total_length);
    let tiling_gm = GmBuffer::from_tiling(&TilingData::from(*tiling));
    let (t, launch) = (tiling_gm.addr(), Launch::new(soc).block_dim(tiling.block_dim));
    let ([z], stats) = run_on_gm(&launch, [x, y], [x.len()], move |[x, y], [z]| kernel(x, y, z, t))?;
    Ok((z, stats))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::add_custom::{add_custom, add_reference};
    use crate::data::random_vec;
    use crate::host::assert_tiling_too_small;
    use crate::maximum::{maximum, maximum_reference};
    use crate::sub_custom::{sub_custom, sub_reference};
    use ascend_runtime::testing::assert_bits_eq;

    type Entry = fn(GmAddr, GmAddr, GmAddr, GmAddr);
    type Reference = fn(&[f32], &[f32]) -> Vec<f32>;
    const KERNELS: [(Entry, Reference); 3] = [
        (add_custom::<f32>, add_reference::<f32>),
        (sub_custom::<f32>, sub_reference::<f32>),
        (maximum::<f32>, maximum_reference::<f32>),
    ];

    #[test]
    fn the_kernel_reads_its_tiling_from_gm() {
        // 500 elements in the tiling, buffers of 1000: z's second half stays as it was.
        let (x, y) = (random_vec::<f32>(1000, 1, -10.0, 10.0), random_vec::<f32>(1000, 2, -10.0, 10.0));
        let tiling = GmBuffer::from_tiling(&TilingData::from(TilingConfig::new::<f32>(500, 4)));
        for (kernel, reference) in KERNELS {
            let (xg, yg, zg) =
                (GmBuffer::from_slice(&x), GmBuffer::from_slice(&y), GmBuffer::from_vec(vec![7.0f32; 1000]));
            let (xa, ya, za, t) = (xg.addr(), yg.addr(), zg.addr(), tiling.addr());
            Launch::new(Soc::Ascend910B).block_dim(4).run(move || kernel(xa, ya, za, t)).unwrap();
            let z = zg.to_vec();
            assert_bits_eq(&z[..500], &reference(&x[..500], &y[..500]));
            assert!(z[500..].iter().all(|&v| v == 7.0));
        }
    }

    #[test]
    fn too_small_a_tiling_buffer_is_an_error() {
        let buf = GmBuffer::<f32>::zeroed(64);
        let a = buf.addr();
        for (kernel, _) in KERNELS {
            assert_tiling_too_small::<TilingData>(|t| kernel(a, a, a, t));
        }
    }
}
