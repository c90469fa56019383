//! `reduce_sum_atomic`: the sum of a large `f32` or `f16` vector, every core adding its
//! partial sum straight into the output with `SetAtomicAdd` — no workspace, no `SyncAll`,
//! so it runs in any launch mode.
//!
//! 1. Each core sums its slice tile by tile exactly as [`reduce_sum`](crate::reduce_sum)
//!    does (`vec_reduce_add` per tile, then over the tile sums).
//! 2. It puts its sum in lane 0 of a zeroed 32-byte block, turns on `SetAtomicAdd<T>`,
//!    copies the block onto `z[0..EPB]` (the zero lanes add nothing) and turns it off again.
//!
//! The tiling reaches the kernel through GM as a [`TilingData`] (AscendC's
//! `GET_TILING_DATA`), as for [`reduce_sum`](crate::reduce_sum).
//!
//! The host zeroes `z` first (the vendor: "SetAtomicAdd does not clear GM"). On the chip the
//! cores' additions land in an unspecified order; the emulator's default
//! [`AtomicOrder::Deterministic`] applies them in core order, so the result is
//! `((0 + s0) + s1) + …` rounded at each step, which [`reduce_sum_atomic_reference`] computes
//! on the host. With `AtomicOrder::Arrival` the float result may differ between runs.
//!
//! ```
//! use ascend_kernels::reduce_sum_atomic::{reduce_sum_atomic_reference, run_reduce_sum_atomic};
//! use ascend_kernels::tiling::TilingConfig;
//! use ascend_runtime::prelude::*;
//!
//! let x: Vec<f32> = (0..100_000).map(|i| (i % 10) as f32).collect();
//! let t = TilingConfig::new::<f32>(x.len(), 8);
//! let (sum, _) = run_reduce_sum_atomic(Soc::Ascend910B, ExecMode::Pooled, &x, &t).unwrap();
//! assert_eq!(sum, 450_000.0);
//! assert_eq!(sum.to_bits(), reduce_sum_atomic_reference(Soc::Ascend910B, &x, &t).to_bits());
//! ```

use ascend_runtime::prelude::*;

use crate::host::{check_input_len, run_on_gm};
use crate::reduce_sum::{core_sums_reference, KernelReduceSum, ReduceSumElement};
use crate::tiling::{TilingConfig, TilingData};

/// Element types the kernel sums: those of [`reduce_sum`](crate::reduce_sum) that the
/// global-memory atomics also take (`f16`, `f32`; which of them a chip accepts is checked when
/// the kernel runs).
pub trait ReduceSumAtomicElement: ReduceSumElement + AtomicElement {}
impl<T: ReduceSumElement + AtomicElement> ReduceSumAtomicElement for T {}

/// One core's state of the `reduce_sum_atomic` kernel: the per-core summation of
/// [`KernelReduceSum`] plus an output queue and the output tensor.
pub struct KernelReduceSumAtomic<T: ReduceSumAtomicElement> {
    base: KernelReduceSum<T>,
    out_queue: TQue<VecOut, 1>,
    z_gm: GlobalTensor<T>,
}

impl<T: ReduceSumAtomicElement> Default for KernelReduceSumAtomic<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: ReduceSumAtomicElement> KernelReduceSumAtomic<T> {
    /// A kernel object with unbound tensors and no buffers.
    pub fn new() -> Self {
        KernelReduceSumAtomic {
            base: KernelReduceSum::new(),
            out_queue: TQue::new(),
            z_gm: GlobalTensor::new(),
        }
    }

    /// Binds this core's slice of `x` and the output block `z` (32 bytes), and carves the
    /// buffers.
    ///
    /// # Panics
    /// As [`KernelReduceSum::init`]; or if `z` holds less than 32 bytes.
    pub fn init(&mut self, x: GmAddr, z: GmAddr, tiling: &TilingConfig) {
        self.base.init_core(x, tiling);
        self.z_gm.set_global_buffer(z, T::EPB);
        self.base.pipe.init_buffer(&mut self.out_queue, 1, 32);
    }

    /// Sums this core's slice and adds it into `z[0]` atomically.
    pub fn process(&mut self) {
        let core_sum = self.base.core_sum();
        self.compute_out(core_sum);
        self.copy_out();
    }

    /// The core's sum as lane 0 of a zeroed block.
    fn compute_out(&mut self, core_sum: T) {
        let z_local = self.out_queue.alloc_tensor::<T>();
        duplicate(&z_local, T::ZERO, T::EPB);
        // The scalar unit writes lane 0 after the vector unit's zeros, and MTE3 reads both.
        pipe_barrier::<PIPE_ALL>();
        z_local.set_value(0, core_sum);
        pipe_barrier::<PIPE_ALL>();
        self.out_queue.enque(z_local);
    }

    /// UB → GM with `SetAtomicAdd`: `z[0] += core_sum`.
    fn copy_out(&mut self) {
        let z_local = self.out_queue.deque::<T>();
        set_atomic_add::<T>();
        data_copy(&self.z_gm, &z_local, T::EPB);
        set_atomic_none();
        self.out_queue.free_tensor(z_local);
    }
}

/// The kernel entry point: `z[0] += sum(x)` over `total_length` elements, read with the
/// rest of the split from the [`TilingData`] at `tiling` (AscendC `GET_TILING_DATA`); `z` is
/// one 32-byte block, zeroed by the host.
///
/// # Panics
/// As `get_tiling_data` (a tiling buffer of fewer than `size_of::<TilingData>()` bytes),
/// [`KernelReduceSumAtomic::init`], and `set_atomic_add` on a chip whose atomics lack `T`
/// (Ascend910: `f32` only).
pub fn reduce_sum_atomic<T: ReduceSumAtomicElement>(x: GmAddr, z: GmAddr, tiling: GmAddr) {
    let tiling_data: TilingConfig = get_tiling_data::<TilingData>(tiling).into();
    let mut op = KernelReduceSumAtomic::<T>::new();
    op.init(x, z, &tiling_data);
    op.process();
}

/// Host side: copies `x` and the tiling to GM, launches [`reduce_sum_atomic`] on `tiling.block_dim` cores of `soc` in `mode`
/// and returns the sum.
///
/// # Errors
/// The [`LaunchError`] of a failing core.
///
/// # Panics
/// Panics if `x` does not hold `tiling.total_length` elements.
pub fn run_reduce_sum_atomic<T: ReduceSumAtomicElement>(
    soc: Soc,
    mode: ExecMode,
    x: &[T],
    tiling: &TilingConfig,
) -> Result<(T, LaunchStats), LaunchError> {
    check_input_len("x", x, tiling.total_length);
    let tiling_gm = GmBuffer::from_tiling(&TilingData::from(*tiling));
    let t = tiling_gm.addr();
    let launch = Launch::new(soc).block_dim(tiling.block_dim).mode(mode);
    let ([z], stats) = run_on_gm(&launch, [x], [T::EPB], move |[x], [z]| reduce_sum_atomic::<T>(x, z, t))?;
    Ok((z[0], stats))
}

/// Host reference of [`reduce_sum_atomic`] under the deterministic atomic order: each core's
/// sum as the chip computes it, added to 0 in core order, each addition rounded to `T`.
pub fn reduce_sum_atomic_reference<T: Element>(soc: Soc, x: &[T], tiling: &TilingConfig) -> T {
    core_sums_reference(soc, x, tiling).into_iter().fold(T::ZERO, T::add)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::random_vec;

    fn check<T: ReduceSumAtomicElement>(soc: Soc, mode: ExecMode, n: usize, cores: u32, seed: u64) -> T {
        let t = TilingConfig::new::<T>(n, cores);
        let x = random_vec::<T>(n, seed, -1.0, 1.0);
        let (sum, stats) = run_reduce_sum_atomic(soc, mode, &x, &t).unwrap();
        assert_eq!(stats.mode, mode);
        let want = reduce_sum_atomic_reference(soc, &x, &t);
        assert_eq!(
            sum.to_bits_u64(),
            want.to_bits_u64(),
            "{soc} {mode} n={n} cores={cores}: {sum} vs {want}"
        );
        sum
    }

    #[test]
    fn one_eight_and_48_cores_with_a_tail() {
        for soc in [Soc::Ascend910B, Soc::Ascend310B] {
            for mode in [ExecMode::Pooled, ExecMode::ThreadPerCore, ExecMode::Sequential] {
                for (n, cores) in [(1, 1), (1000, 1), (8 * 4096 + 13, 8), (48 * 777 + 5, 48), (30, 48)] {
                    check::<f32>(soc, mode, n, cores, n as u64);
                    check::<f16>(soc, mode, n, cores, n as u64 + 7);
                }
            }
        }
    }

    #[test]
    fn chips_without_data_copy_pad_need_whole_blocks() {
        // Ascend910 (f32 atomics only) and Ascend310P (f16, f32).
        check::<f32>(Soc::Ascend910, ExecMode::Pooled, 48 * 1024, 48, 3);
        check::<f32>(Soc::Ascend310P, ExecMode::Pooled, 8 * 4096, 8, 4);
        check::<f16>(Soc::Ascend310P, ExecMode::ThreadPerCore, 8 * 4096, 8, 5);
    }

    #[test]
    fn agrees_with_the_sync_all_version_on_exact_sums() {
        let x = vec![1.0f32; 1 << 20];
        let t = TilingConfig::new::<f32>(x.len(), 48);
        let (a, _) = run_reduce_sum_atomic(Soc::Ascend910B, ExecMode::Pooled, &x, &t).unwrap();
        let (b, _) = crate::reduce_sum::run_reduce_sum(Soc::Ascend910B, &x, &t).unwrap();
        assert_eq!((a, b), ((1 << 20) as f32, (1 << 20) as f32));
    }

    #[test]
    fn f16_atomics_on_ascend910_are_an_error() {
        let x = vec![f16::ONE; 256];
        let e =
            run_reduce_sum_atomic(Soc::Ascend910, ExecMode::Pooled, &x, &TilingConfig::new::<f16>(256, 2))
                .unwrap_err();
        assert!(
            e.to_string()
                .contains("SetAtomicAdd: T = half is not supported on Ascend910 (Atlas training series)"),
            "{e}"
        );
    }

    #[test]
    fn the_kernel_reads_its_tiling_from_gm() {
        // 1000 ones in a buffer of 4096: the tiling's length decides what is summed.
        let tiling = GmBuffer::from_tiling(&TilingData::from(TilingConfig::new::<f32>(1000, 3)));
        let (xg, zg) = (GmBuffer::from_vec(vec![1.0f32; 4096]), GmBuffer::<f32>::zeroed(8));
        let (xa, za, t) = (xg.addr(), zg.addr(), tiling.addr());
        Launch::new(Soc::Ascend910B).block_dim(3).run(move || reduce_sum_atomic::<f32>(xa, za, t)).unwrap();
        assert_eq!(zg.to_vec()[0], 1000.0);
    }

    #[test]
    fn too_small_a_tiling_buffer_is_an_error() {
        let buf = GmBuffer::<f32>::zeroed(64);
        let a = buf.addr();
        crate::host::assert_tiling_too_small::<TilingData>(|t| reduce_sum_atomic::<f32>(a, a, t));
    }
}
