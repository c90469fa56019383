//! `addcmul`: `out = input + value * t1 * t2` (PyTorch's `addcmul`), the AscendC way — three
//! input queues, one output queue, and on each tile `Mul(tmp, t1, t2)`, `Muls(tmp, tmp,
//! value)`, `Add(out, input, tmp)` (each rounded to the type). The tiling reaches the kernel
//! through GM as a [`TilingData`] (AscendC's `GET_TILING_DATA`).
//!
//! ```
//! use ascend_kernels::addcmul::{addcmul_reference, run_addcmul};
//! use ascend_kernels::tiling::TilingConfig;
//! use ascend_runtime::prelude::*;
//!
//! let (input, t1, t2) = (vec![1.0f32; 512], vec![2.0f32; 512], vec![3.0f32; 512]);
//! let t = TilingConfig::new::<f32>(512, 2);
//! let (out, _) = run_addcmul(Soc::Ascend910B, [&input, &t1, &t2], 0.5, &t).unwrap();
//! assert_eq!(out, vec![4.0f32; 512]);
//! assert_eq!(out, addcmul_reference([&input, &t1, &t2], 0.5));
//! ```

use ascend_runtime::prelude::*;

use crate::host::{check_input_len, run_on_gm};
use crate::tiling::{TilingConfig, TilingData, BUFFER_NUM};

/// Element types `addcmul` runs on: those with `Mul`, `Muls` and `Add` (`half`, `float`,
/// and on every chip but Ascend910 `int16_t`, `int32_t`).
pub trait AddcmulElement: MulElement + MulsElement + AddElement {}
impl<T: MulElement + MulsElement + AddElement> AddcmulElement for T {}

/// One core's state of the `addcmul` kernel.
pub struct KernelAddcmul<T: AddcmulElement> {
    pipe: TPipe,
    in_queue_input: TQue<VecIn, BUFFER_NUM>,
    in_queue_t1: TQue<VecIn, BUFFER_NUM>,
    in_queue_t2: TQue<VecIn, BUFFER_NUM>,
    out_queue: TQue<VecOut, BUFFER_NUM>,
    tmp_buf: TBuf<VecCalc>,
    input_gm: GlobalTensor<T>,
    t1_gm: GlobalTensor<T>,
    t2_gm: GlobalTensor<T>,
    out_gm: GlobalTensor<T>,
    tiling: TilingConfig,
    block_length: usize,
    value: T,
}

impl<T: AddcmulElement> Default for KernelAddcmul<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: AddcmulElement> KernelAddcmul<T> {
    /// A kernel object with unbound tensors and queues without buffers.
    pub fn new() -> Self {
        KernelAddcmul {
            pipe: TPipe::new(),
            in_queue_input: TQue::new(),
            in_queue_t1: TQue::new(),
            in_queue_t2: TQue::new(),
            out_queue: TQue::new(),
            tmp_buf: TBuf::new(),
            input_gm: GlobalTensor::new(),
            t1_gm: GlobalTensor::new(),
            t2_gm: GlobalTensor::new(),
            out_gm: GlobalTensor::new(),
            tiling: TilingConfig::default(),
            block_length: 0,
            value: T::ZERO,
        }
    }

    /// Binds this core's slices, keeps `value`, carves the queues' and the scratch buffers.
    ///
    /// # Panics
    /// Panics if the tiling is unusable or the tiles do not fit in UB.
    pub fn init(&mut self, inputs: [GmAddr; 3], out: GmAddr, value: T, tiling: &TilingConfig) {
        tiling.check::<T>("AddcmulCustom", T::EPB);
        self.tiling = *tiling;
        self.value = value;
        let range = tiling.core_range::<T>(get_block_idx());
        self.block_length = range.len();
        let [input, t1, t2] = inputs;
        self.input_gm.set_global_buffer(input.add::<T>(range.start), self.block_length);
        self.t1_gm.set_global_buffer(t1.add::<T>(range.start), self.block_length);
        self.t2_gm.set_global_buffer(t2.add::<T>(range.start), self.block_length);
        self.out_gm.set_global_buffer(out.add::<T>(range.start), self.block_length);
        let tile_bytes = tiling.tile_length * T::SIZE;
        self.pipe.init_buffer(&mut self.in_queue_input, BUFFER_NUM, tile_bytes);
        self.pipe.init_buffer(&mut self.in_queue_t1, BUFFER_NUM, tile_bytes);
        self.pipe.init_buffer(&mut self.in_queue_t2, BUFFER_NUM, tile_bytes);
        self.pipe.init_buffer(&mut self.out_queue, BUFFER_NUM, tile_bytes);
        self.pipe.init_tbuf(&mut self.tmp_buf, tile_bytes);
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
        for (q, gm) in [
            (&mut self.in_queue_input, &self.input_gm),
            (&mut self.in_queue_t1, &self.t1_gm),
            (&mut self.in_queue_t2, &self.t2_gm),
        ] {
            let local = q.alloc_tensor::<T>();
            data_copy_tail(&local, &gm.view(offset), len);
            q.enque(local);
        }
    }

    fn compute(&mut self, len: usize) {
        let input_local = self.in_queue_input.deque::<T>();
        let t1_local = self.in_queue_t1.deque::<T>();
        let t2_local = self.in_queue_t2.deque::<T>();
        let out_local = self.out_queue.alloc_tensor::<T>();
        let tmp = self.tmp_buf.get::<T>();
        mul(&tmp, &t1_local, &t2_local, len);
        muls(&tmp, &tmp, self.value, len);
        add(&out_local, &input_local, &tmp, len);
        self.out_queue.enque(out_local);
        self.in_queue_input.free_tensor(input_local);
        self.in_queue_t1.free_tensor(t1_local);
        self.in_queue_t2.free_tensor(t2_local);
    }

    fn copy_out(&mut self, offset: usize, len: usize) {
        let out_local = self.out_queue.deque::<T>();
        data_copy_tail(&self.out_gm.view(offset), &out_local, len);
        self.out_queue.free_tensor(out_local);
    }
}

/// The kernel entry point: `out = input + value * t1 * t2` over this core's share, the
/// tiling read from the [`TilingData`] at `tiling` (AscendC `GET_TILING_DATA`).
///
/// # Panics
/// As `get_tiling_data` (a tiling buffer of fewer than `size_of::<TilingData>()` bytes),
/// [`KernelAddcmul::init`] and the AscendC calls it makes.
pub fn addcmul_custom<T: AddcmulElement>(inputs: [GmAddr; 3], out: GmAddr, value: T, tiling: GmAddr) {
    let tiling_data: TilingConfig = get_tiling_data::<TilingData>(tiling).into();
    let mut op = KernelAddcmul::<T>::new();
    op.init(inputs, out, value, &tiling_data);
    op.process();
}

/// Host side: copies `[input, t1, t2]` and the tiling to GM, launches [`addcmul_custom`] on
/// `tiling.block_dim` cores of `soc`, and returns `out` with the launch statistics.
///
/// # Errors
/// The [`LaunchError`] of a failing core.
///
/// # Panics
/// Panics if an input does not hold `tiling.total_length` elements.
pub fn run_addcmul<T: AddcmulElement>(
    soc: Soc,
    inputs: [&[T]; 3],
    value: T,
    tiling: &TilingConfig,
) -> Result<(Vec<T>, LaunchStats), LaunchError> {
    for (name, x) in ["input", "t1", "t2"].into_iter().zip(inputs) {
        check_input_len(name, x, tiling.total_length);
    }
    let tiling_gm = GmBuffer::from_tiling(&TilingData::from(*tiling));
    let (t, launch) = (tiling_gm.addr(), Launch::new(soc).block_dim(tiling.block_dim));
    let ([out], stats) = run_on_gm(&launch, inputs, [tiling.total_length], move |ins, [out]| {
        addcmul_custom(ins, out, value, t)
    })?;
    Ok((out, stats))
}

/// Host reference: `input + value * (t1 * t2)`, each operation rounded to `T` as numpy does
/// it on `float16`/`float32` arrays (the vendor's golden data).
pub fn addcmul_reference<T: Element>(inputs: [&[T]; 3], value: T) -> Vec<T> {
    let [input, t1, t2] = inputs;
    (0..input.len()).map(|i| T::add(input[i], T::mul(value, T::mul(t1[i], t2[i])))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::random_vec;
    use ascend_runtime::testing::{assert_close, Tolerance};

    fn check<T: AddcmulElement>(soc: Soc, n: usize, cores: u32, tile: usize) {
        let [a, b, c] = [1, 2, 3].map(|s| random_vec::<T>(n, n as u64 * 7 + s, -10.0, 10.0));
        let value = T::from_f64(0.5);
        let t = TilingConfig { total_length: n, block_dim: cores, tile_length: tile };
        let (out, _) = run_addcmul(soc, [&a, &b, &c], value, &t).unwrap();
        assert_close(&out, &addcmul_reference([&a, &b, &c], value), Tolerance::of::<T>());
    }

    #[test]
    fn cores_tiles_and_tails() {
        for (n, cores) in [(4096, 8), (8 * 2048 + 40, 8), (48 * 512, 48), (48 * 100 + 7, 48)] {
            for tile in [128, 2048] {
                check::<f32>(Soc::Ascend910B, n, cores, tile);
                check::<f16>(Soc::Ascend910B, n, cores, tile);
            }
        }
        check::<f32>(Soc::Ascend910, 8 * 2048, 8, 512);
        check::<f16>(Soc::Ascend310P, 8 * 2048, 8, 512);
    }

    #[test]
    fn the_kernel_reads_its_tiling_from_gm() {
        // 700 elements in the tiling, buffers of 1024: out's tail stays as it was.
        let [a, b, c] = [1, 2, 3].map(|s| random_vec::<f32>(1024, s, -10.0, 10.0));
        let (ag, bg, cg) = (GmBuffer::from_slice(&a), GmBuffer::from_slice(&b), GmBuffer::from_slice(&c));
        let out = GmBuffer::from_vec(vec![5.0f32; 1024]);
        let tiling = GmBuffer::from_tiling(&TilingData::from(TilingConfig::new::<f32>(700, 3)));
        let (ins, oa, t) = ([ag.addr(), bg.addr(), cg.addr()], out.addr(), tiling.addr());
        Launch::new(Soc::Ascend910B).block_dim(3).run(move || addcmul_custom(ins, oa, 0.5f32, t)).unwrap();
        let o = out.to_vec();
        assert_close(
            &o[..700],
            &addcmul_reference([&a[..700], &b[..700], &c[..700]], 0.5),
            Tolerance::of::<f32>(),
        );
        assert!(o[700..].iter().all(|&v| v == 5.0));
    }

    #[test]
    fn too_small_a_tiling_buffer_is_an_error() {
        let buf = GmBuffer::<f32>::zeroed(64);
        let a = buf.addr();
        crate::host::assert_tiling_too_small::<TilingData>(|t| addcmul_custom([a; 3], a, 1.0f32, t));
    }
}
