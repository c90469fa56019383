//! `gelu`: the tanh-approximated GELU of a flat tensor, `gelu(x) = x / (1 + exp(-2 *
//! sqrt(2/pi) * (x + 0.044715 x³)))`, multi-core, with an unaligned tail.
//!
//! A `half` tile is `Cast` to `float` (`CAST_NONE`), computed in `float` and `Cast` back
//! (`CAST_NONE`), as the vendor's high-precision `Gelu` does for `half`; a `float` tile is
//! computed as is. The instruction sequence is the vendor's (`impl/adv_api/detail/activation/
//! gelu/gelu_impl.h`), which writes the formula without overflowing `exp`: with `y = 1.5957691
//! * (x + 0.044715 x³)`, `gelu(x) = exp(min(y, 0)) * x / (1 + exp(-|y|))`:
//!
//! `Mul(a, x, x)`, `Mul(a, a, x)`, `Muls(a, a, 0.044715)`, `Add(a, a, x)`, `Muls(a, a,
//! 1.5957691)`; `Mins(b, a, 0)`, `Exp(b, b)`; `Abs(a, a)`, `Muls(a, a, -1)`, `Exp(a, a)`,
//! `Adds(a, a, 1)`, `Div(a, x, a)`, `Mul(y, b, a)`.
//!
//! The split is [`TilingConfig`]'s (whole 32-byte blocks per core, tiles of `tile_length`, the
//! last tile of the last core possibly a partial block moved with `DataCopyPad`), reaching the
//! kernel through GM as a [`TilingData`] (AscendC's `GET_TILING_DATA`).
//!
//! ```
//! use ascend_kernels::gelu::{gelu_reference, run_gelu};
//! use ascend_kernels::tiling::TilingConfig;
//! use ascend_runtime::prelude::*;
//! use ascend_runtime::testing::{assert_close, Tolerance};
//!
//! let x: Vec<f16> = (0..1000).map(|i| f16::from_f32(i as f32 / 100.0 - 5.0)).collect();
//! let (y, _) = run_gelu(Soc::Ascend910B, &x, &TilingConfig::new::<f16>(1000, 4)).unwrap();
//! assert_close(&y, &gelu_reference(&x), Tolerance::of::<f16>());
//! ```

use ascend_runtime::prelude::*;

use crate::host::{check_input_len, run_on_gm};
use crate::rows::RowElement;
use crate::tiling::{copy_gm_to_ub, copy_ub_to_gm, TilingConfig, TilingData, BUFFER_NUM};

const API: &str = "Gelu";

/// `2 * sqrt(2 / pi)`, the vendor's coefficient (`1.5957691216057308`).
pub const GELU_COEFF: f64 = 1.595_769_121_605_730_8;
/// The cubic term's coefficient.
pub const GELU_CUBIC: f64 = 0.044715;

/// The Unified Buffer bytes [`KernelGelu`] carves for tiles of `tile` elements of `T`.
pub fn gelu_ub_bytes<T: RowElement>(tile: usize) -> usize {
    let (t, f) = ((tile * T::SIZE).next_multiple_of(32), (tile * 4).next_multiple_of(32));
    2 * BUFFER_NUM * t + if T::UPCAST { 3 * f } else { 2 * f }
}

/// One core's state of the GELU kernel.
pub struct KernelGelu<T: RowElement> {
    pipe: TPipe,
    in_queue_x: TQue<VecIn, BUFFER_NUM>,
    out_queue_y: TQue<VecOut, BUFFER_NUM>,
    x32_buf: TBuf<VecCalc>,
    tmp_a: TBuf<VecCalc>,
    tmp_b: TBuf<VecCalc>,
    x_gm: GlobalTensor<T>,
    y_gm: GlobalTensor<T>,
    tiling: TilingConfig,
    block_length: usize,
}

impl<T: RowElement> Default for KernelGelu<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: RowElement> KernelGelu<T> {
    /// A kernel object with unbound tensors and queues without buffers.
    pub fn new() -> Self {
        KernelGelu {
            pipe: TPipe::new(),
            in_queue_x: TQue::new(),
            out_queue_y: TQue::new(),
            x32_buf: TBuf::new(),
            tmp_a: TBuf::new(),
            tmp_b: TBuf::new(),
            x_gm: GlobalTensor::new(),
            y_gm: GlobalTensor::new(),
            tiling: TilingConfig::default(),
            block_length: 0,
        }
    }

    /// Binds this core's slice of `x` and `y` and carves the buffers.
    ///
    /// # Panics
    /// Panics if the tiling is unusable or the tile's buffers exceed the chip's UB.
    #[track_caller]
    pub fn init(&mut self, x: GmAddr, y: GmAddr, tiling: &TilingConfig) {
        tiling.check::<T>(API, T::EPB);
        let (need, soc) = (gelu_ub_bytes::<T>(tiling.tile_length), get_soc());
        if need > soc.ub_size() {
            ascend_core::fail(
                API,
                format!(
                    "tile_length = {} {} elements needs {need} bytes of Unified Buffer; {soc} has {}",
                    tiling.tile_length,
                    T::DTYPE,
                    soc.ub_size()
                ),
            );
        }
        self.tiling = *tiling;
        let range = tiling.core_range::<T>(get_block_idx());
        self.block_length = range.len();
        self.x_gm.set_global_buffer(x.add::<T>(range.start), self.block_length);
        self.y_gm.set_global_buffer(y.add::<T>(range.start), self.block_length);
        let tile_bytes = tiling.tile_length * T::SIZE;
        let f32_bytes = tiling.tile_length * 4;
        self.pipe.init_buffer(&mut self.in_queue_x, BUFFER_NUM, tile_bytes);
        self.pipe.init_buffer(&mut self.out_queue_y, BUFFER_NUM, tile_bytes);
        if T::UPCAST {
            self.pipe.init_tbuf(&mut self.x32_buf, f32_bytes);
        }
        self.pipe.init_tbuf(&mut self.tmp_a, f32_bytes);
        self.pipe.init_tbuf(&mut self.tmp_b, f32_bytes);
    }

    /// Runs `copy_in`, `compute`, `copy_out` over every tile of this core's slice.
    #[track_caller]
    pub fn process(&mut self) {
        let tiling = self.tiling;
        for (offset, len) in tiling.tiles(self.block_length) {
            self.copy_in(offset, len);
            self.compute(len);
            self.copy_out(offset, len);
        }
    }

    #[track_caller]
    fn copy_in(&mut self, offset: usize, len: usize) {
        let x_local = self.in_queue_x.alloc_tensor::<T>();
        copy_gm_to_ub(&x_local, &self.x_gm.view(offset), len);
        self.in_queue_x.enque(x_local);
    }

    #[track_caller]
    fn compute(&mut self, n: usize) {
        let x_local = self.in_queue_x.deque::<T>();
        let y_local = self.out_queue_y.alloc_tensor::<T>();
        let x32 = if T::UPCAST { self.x32_buf.get::<f32>() } else { x_local.reinterpret_cast::<f32>() };
        let x = T::upcast(&x_local, &x32, n);
        let y = T::result(&y_local, &x);
        let (a, b) = (self.tmp_a.get::<f32>(), self.tmp_b.get::<f32>());
        mul(&a, &x, &x, n);
        mul(&a, &a, &x, n);
        muls(&a, &a, GELU_CUBIC as f32, n);
        add(&a, &a, &x, n);
        muls(&a, &a, GELU_COEFF as f32, n);
        mins(&b, &a, 0.0, n);
        exp(&b, &b, n);
        abs(&a, &a, n);
        muls(&a, &a, -1.0, n);
        exp(&a, &a, n);
        adds(&a, &a, 1.0, n);
        div(&a, &x, &a, n);
        mul(&y, &b, &a, n);
        T::downcast(&y_local, &y, n);
        self.out_queue_y.enque(y_local);
        self.in_queue_x.free_tensor(x_local);
    }

    #[track_caller]
    fn copy_out(&mut self, offset: usize, len: usize) {
        let y_local = self.out_queue_y.deque::<T>();
        copy_ub_to_gm(&self.y_gm.view(offset), &y_local, len);
        self.out_queue_y.free_tensor(y_local);
    }
}

/// The kernel entry point: `y = gelu(x)` over this core's share, the tiling read from the
/// [`TilingData`] at `tiling` (AscendC `GET_TILING_DATA`).
///
/// # Panics
/// As `get_tiling_data` (a tiling buffer of fewer than `size_of::<TilingData>()` bytes),
/// [`KernelGelu::init`] and the AscendC calls it makes.
#[track_caller]
pub fn gelu<T: RowElement>(x: GmAddr, y: GmAddr, tiling: GmAddr) {
    let tiling_data: TilingConfig = get_tiling_data::<TilingData>(tiling).into();
    let mut op = KernelGelu::<T>::new();
    op.init(x, y, &tiling_data);
    op.process();
}

/// Host side: copies `x` and the tiling to GM, launches [`gelu`] on `tiling.block_dim` cores
/// of `soc` and returns `y`.
///
/// # Errors
/// The [`LaunchError`] of a failing core.
///
/// # Panics
/// Panics if `x` does not hold `tiling.total_length` elements.
pub fn run_gelu<T: RowElement>(
    soc: Soc,
    x: &[T],
    tiling: &TilingConfig,
) -> Result<(Vec<T>, LaunchStats), LaunchError> {
    check_input_len("x", x, tiling.total_length);
    let tiling_gm = GmBuffer::from_tiling(&TilingData::from(*tiling));
    let (t, launch) = (tiling_gm.addr(), Launch::new(soc).block_dim(tiling.block_dim));
    let ([y], stats) = run_on_gm(&launch, [x], [x.len()], move |[x], [y]| gelu::<T>(x, y, t))?;
    Ok((y, stats))
}

/// Host reference in `float64`: `x / (1 + exp(-1.5957691216057308 * (x + 0.044715 x³)))`
/// (numpy on the tanh form gives the same), rounded to `T`.
pub fn gelu_reference<T: Element>(x: &[T]) -> Vec<T> {
    x.iter()
        .map(|v| {
            let v = v.to_f64();
            T::from_f64(v / (1.0 + (-GELU_COEFF * (v + GELU_CUBIC * v * v * v)).exp()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::random_vec;
    use ascend_runtime::testing::{assert_close, Tolerance};

    fn check<T: RowElement>(soc: Soc, n: usize, cores: u32, tile: Option<usize>) {
        let x: Vec<T> = random_vec(n, n as u64 + 5, -6.0, 6.0);
        let t = TilingConfig::new::<T>(n, cores);
        let t = tile.map_or(t, |l| t.with_tile_length(l));
        let (y, stats) = run_gelu(soc, &x, &t).unwrap();
        assert_eq!(stats.block_dim, cores);
        assert_close(&y, &gelu_reference(&x), Tolerance::of::<T>());
    }

    #[test]
    fn gelu_f16_through_f32_on_1_8_48_cores_with_tails() {
        for cores in [1, 8, 48] {
            for n in [1, 15, 4096, 48 * 100 + 7, 100_003] {
                check::<f16>(Soc::Ascend910B, n, cores, None);
                check::<f32>(Soc::Ascend910B, n, cores, None);
            }
            check::<f16>(Soc::Ascend910B, 10_000 + 3, cores, Some(16));
        }
        check::<f16>(Soc::Ascend310B, 77_777, 8, None);
        check::<f16>(Soc::Ascend310P, 64 * 1024, 8, None);
    }

    #[test]
    fn gelu_large_magnitudes_do_not_overflow() {
        let x: Vec<f32> = vec![-100.0, -20.0, -1.0, 0.0, 1.0, 20.0, 100.0, 3.0e4];
        let (y, _) = run_gelu(Soc::Ascend910B, &x, &TilingConfig::new::<f32>(8, 1)).unwrap();
        assert!(y.iter().all(|v| v.is_finite()), "{y:?}");
        assert_close(&y, &gelu_reference(&x), Tolerance::of::<f32>());
    }

    #[test]
    fn gelu_tile_beyond_the_ub_is_an_error() {
        let x = vec![f16::ZERO; 64];
        let t = TilingConfig::new::<f16>(64, 1).with_tile_length(16 * 1024);
        let e = run_gelu(Soc::Ascend910B, &x, &t).unwrap_err().to_string();
        assert!(
            e.contains("Gelu: tile_length = 16384 half elements needs")
                && e.contains("Ascend910B has 196608"),
            "{e}"
        );
    }

    #[test]
    fn the_kernel_reads_its_tiling_from_gm() {
        // 777 elements in the tiling, buffers of 1024: y's tail stays as it was.
        let x = random_vec::<f16>(1024, 4, -6.0, 6.0);
        let (xg, yg) = (GmBuffer::from_slice(&x), GmBuffer::from_vec(vec![f16::ONE; 1024]));
        let tiling = GmBuffer::from_tiling(&TilingData::from(TilingConfig::new::<f16>(777, 4)));
        let (xa, ya, t) = (xg.addr(), yg.addr(), tiling.addr());
        Launch::new(Soc::Ascend910B).block_dim(4).run(move || gelu::<f16>(xa, ya, t)).unwrap();
        let y = yg.to_vec();
        assert_close(&y[..777], &gelu_reference(&x[..777]), Tolerance::of::<f16>());
        assert!(y[777..].iter().all(|&v| v == f16::ONE));
    }

    #[test]
    fn too_small_a_tiling_buffer_is_an_error() {
        let buf = GmBuffer::<f32>::zeroed(64);
        let a = buf.addr();
        crate::host::assert_tiling_too_small::<TilingData>(|t| gelu::<f32>(a, a, t));
    }
}
