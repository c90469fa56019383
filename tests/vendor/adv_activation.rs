//! Ports of the vendor's advanced-API activation examples (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/04_advanced_api/01_activation/`): `swish` (both its Swish mode and
//! its `USE_SILU_MODE`), `swiglu`, `geglu` and `gelu` (the other examples there — `sigmoid`,
//! the softmax family — are not ported here). The kernels keep the vendor's class
//! (`init`, `process`, `copy_in`, `compute`, `copy_out`), `TPipe`/`TQue`/`TBuf` buffers, calls
//! and constants; the host side's tiling calls (`GetSwishTmpSize`, `GetSwiGLUMaxMinTmpSize`,
//! `GetGeGLUMaxMinTmpSize`, `GetGeluMinTmpSize`) choose the scratch as the examples do. All three are built for
//! `dav-2201` (Ascend910B) and launched on one vector core, with the sanitizer on: they are
//! correct kernels and must pass clean.
//!
//! The examples instantiate their kernels for `float` only, which takes the stack-buffer
//! overloads where the minimum scratch of `float` is 0 (`swiglu`, `geglu`); `gelu` passes its
//! minimum, 768 bytes, as `sharedTmpBuffer`. Their kernels are templates with the other
//! overloads behind the tiling's values, so the `half` instantiation (which takes the
//! `sharedTmpBuffer` overloads with the tiling's minimum) and `GeGLU`'s `calCount` branches
//! are run too, each marked as such.
//!
//! The golden data of `scripts/gen_data.py` is numpy's formula in `float32` (or `float64`
//! rounded), which differs from the chip's instruction-by-instruction roundings in the last
//! bits; the examples' `CompareResult` accepts that with a tolerance of 1e-4. Here the output
//! is compared bit for bit with a reference that takes the vendor's instructions one by one
//! with the chip's roundings (as `ascend-core/tests/adv_activation_glu.rs` does), and checked
//! against the numpy formula with the examples' tolerance.

use std::mem::size_of;

use ascend_kernels::data::random_vec;
use ascend_runtime::prelude::*;
use ascend_runtime::testing::assert_bits_eq;

use crate::compare_result;

// ---- references: the vendor's steps with the chip's roundings -----------------------------------

/// `Muls(-β)`, `Exp` (in `f64`, rounded once), `Adds(1)`, `Div(x, ·)` in `f32`.
fn r_swish_f32(x: f32, beta: f32) -> f32 {
    let e = ((x * -beta) as f64).exp() as f32;
    x / (e + 1.0)
}

/// The same steps in `half`: each computed in `f32` and rounded once to `half`.
fn r_swish_f16(x: f16, beta: f16) -> f16 {
    let h = f16::from_f32;
    let t = h(x.to_f32() * -beta.to_f32());
    let e = f16::from_f64(t.to_f64().exp());
    let a = h(e.to_f32() + 1.0);
    h(x.to_f32() / a.to_f32())
}

/// GeGLU's `float` steps: `x0 * (x / (1 + exp(COEFF0 · ((x·x + COEFF1) · x))))`.
fn r_geglu_f32(x0: f32, x: f32) -> f32 {
    #[allow(clippy::excessive_precision)]
    const COEFF0: f32 = -0.071_354_816_272_6;
    #[allow(clippy::excessive_precision)]
    const COEFF1: f32 = 22.363_860_002_236;
    let a = (x * x + COEFF1) * x * COEFF0;
    let e = (a as f64).exp() as f32 + 1.0;
    x0 * (x / e)
}

// ---------------------------------------------------------------------------------------
// swish
// ---------------------------------------------------------------------------------------

/// `KernelSwish<T>` of `swish/swish.asc`; `USE_SILU_MODE` is the example's macro.
struct KernelSwish<T: SwishElement, const USE_SILU_MODE: bool> {
    in_queue_x: TQue<VecIn, 1>,
    out_queue: TQue<VecOut, 1>,
    src_global: GlobalTensor<T>,
    dst_global: GlobalTensor<T>,
    data_size: usize,
    beta_value: T,
}

impl<T: SwishElement, const USE_SILU_MODE: bool> KernelSwish<T, USE_SILU_MODE> {
    fn new() -> Self {
        KernelSwish {
            in_queue_x: TQue::new(),
            out_queue: TQue::new(),
            src_global: GlobalTensor::new(),
            dst_global: GlobalTensor::new(),
            data_size: 0,
            beta_value: T::from_f64(0.0),
        }
    }

    fn init(&mut self, src_gm: GmAddr, dst_gm: GmAddr, input_size: usize, beta: T, pipe: &mut TPipe) {
        self.beta_value = beta;
        self.data_size = input_size;
        self.src_global.set_global_buffer(src_gm, self.data_size);
        self.dst_global.set_global_buffer(dst_gm, self.data_size);
        pipe.init_buffer(&mut self.in_queue_x, 1, self.data_size * size_of::<T>());
        pipe.init_buffer(&mut self.out_queue, 1, self.data_size * size_of::<T>());
    }

    fn process(&mut self) {
        self.copy_in();
        self.compute();
        self.copy_out();
    }

    fn copy_in(&mut self) {
        let src_local = self.in_queue_x.alloc_tensor::<T>();
        data_copy(&src_local, &self.src_global, self.data_size);
        self.in_queue_x.enque(src_local);
    }

    fn compute(&mut self) {
        let dst_local = self.out_queue.alloc_tensor::<T>();
        let src_local = self.in_queue_x.deque::<T>();
        if USE_SILU_MODE {
            // Silu mode: Swish with beta = 1.
            silu::<T, false>(&dst_local, &src_local, self.data_size);
        } else {
            // Swish mode: beta = 1.702 (the GELU approximation).
            swish::<T, false>(&dst_local, &src_local, self.data_size, self.beta_value);
        }
        self.out_queue.enque::<T>(dst_local);
        self.in_queue_x.free_tensor(src_local);
    }

    fn copy_out(&mut self) {
        let dst_local = self.out_queue.deque::<T>();
        data_copy(&self.dst_global, &dst_local, self.data_size);
        self.out_queue.free_tensor(dst_local);
    }
}

/// `swish_custom`: 32 elements, beta 1.702 (1.0 in Silu mode).
fn swish_custom<T: SwishElement, const USE_SILU_MODE: bool>(src_gm: GmAddr, dst_gm: GmAddr) {
    let mut pipe = TPipe::new();
    const INPUT_SIZE: usize = 32;
    let beta_value: f32 = if USE_SILU_MODE { 1.0 } else { 1.702 };
    let mut op = KernelSwish::<T, USE_SILU_MODE>::new();
    op.init(src_gm, dst_gm, INPUT_SIZE, T::from_f64(beta_value as f64), &mut pipe);
    op.process();
}

/// Runs `swish_custom` on Ascend910B over `src`; returns the output.
fn run_swish<T: SwishElement, const USE_SILU_MODE: bool>(src: &[T]) -> Vec<T> {
    // Host: GetSwishTmpSize / GetSiluTmpSize report no scratch.
    let size = if USE_SILU_MODE {
        get_silu_tmp_size(src.len(), size_of::<T>(), false)
    } else {
        get_swish_tmp_size(src.len(), size_of::<T>(), false)
    };
    assert_eq!(size, (0, 0));
    let xg = GmBuffer::from_vec(src.to_vec());
    let yg = GmBuffer::<T>::zeroed(src.len());
    Launch::new(Soc::Ascend910B)
        .block_dim(1)
        .run(|| swish_custom::<T, USE_SILU_MODE>(xg.addr(), yg.addr()))
        .unwrap();
    yg.to_vec()
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/04_advanced_api/01_activation/swish/swish.asc
// (default mode): Swish of 32 floats with beta 1.702; gen_data.py draws uniform(-4, 4).
#[test]
fn adv_swish_example() {
    let src: Vec<f32> = random_vec(32, 101, -4.0, 4.0);
    let out = run_swish::<f32, false>(&src);
    let want: Vec<f32> = src.iter().map(|&x| r_swish_f32(x, 1.702)).collect();
    assert_bits_eq(&out, &want);
    // golden = x / (1 + np.exp(-beta * x)).
    let golden: Vec<f64> = src.iter().map(|&x| x as f64 / (1.0 + (-1.702 * x as f64).exp())).collect();
    compare_result(&out, &golden);
}

// swish.asc with USE_SILU_MODE: Silu of 32 floats; gen_data.py --silu-mode.
#[test]
fn adv_swish_example_silu_mode() {
    let src: Vec<f32> = random_vec(32, 102, -4.0, 4.0);
    let out = run_swish::<f32, true>(&src);
    let want: Vec<f32> = src.iter().map(|&x| r_swish_f32(x, 1.0)).collect();
    assert_bits_eq(&out, &want);
    let golden: Vec<f64> = src.iter().map(|&x| x as f64 / (1.0 + (-x as f64).exp())).collect();
    compare_result(&out, &golden);
}

// Not the example's instantiation: KernelSwish<half>, both modes (beta 1.702 rounds to half).
#[test]
fn adv_swish_example_half_instantiation() {
    let src: Vec<f16> = random_vec(32, 103, -4.0, 4.0);
    let beta = f16::from_f32(1.702);
    let out = run_swish::<f16, false>(&src);
    assert_bits_eq(&out, &src.iter().map(|&x| r_swish_f16(x, beta)).collect::<Vec<_>>());
    let out = run_swish::<f16, true>(&src);
    assert_bits_eq(&out, &src.iter().map(|&x| r_swish_f16(x, f16::ONE)).collect::<Vec<_>>());
}

// ---------------------------------------------------------------------------------------
// swiglu
// ---------------------------------------------------------------------------------------

/// `MyCustomKernel::VecTiling` of `swiglu/swiglu.asc`.
#[derive(Clone, Copy)]
struct VecTiling {
    data_length: u32,
    shared_tmp_buffer_size: u32,
}

/// The host's `ComputeTiling`: the data length and `GetSwiGLUMaxMinTmpSize`'s minimum.
fn compute_tiling<T: Element>(data_length: u32) -> VecTiling {
    let type_size = size_of::<T>();
    let (_max_tmp_size, min_tmp_size) = get_swiglu_max_min_tmp_size(data_length as usize, type_size, false);
    VecTiling { data_length, shared_tmp_buffer_size: min_tmp_size as u32 }
}

/// `MyCustomKernel::KernelSwiGLU<T>`.
struct KernelSwiGLU<T: SwiGluElement> {
    in_queue0: TQue<VecIn, 1>,
    in_queue1: TQue<VecIn, 1>,
    out_queue: TQue<VecOut, 1>,
    buf_queue: TBuf<VecCalc>,
    src0_global: GlobalTensor<T>,
    src1_global: GlobalTensor<T>,
    dst_global: GlobalTensor<T>,
    data_size: usize,
    beta_value: T,
    tmp_buf_size: usize,
}

impl<T: SwiGluElement> KernelSwiGLU<T> {
    fn new() -> Self {
        KernelSwiGLU {
            in_queue0: TQue::new(),
            in_queue1: TQue::new(),
            out_queue: TQue::new(),
            buf_queue: TBuf::new(),
            src0_global: GlobalTensor::new(),
            src1_global: GlobalTensor::new(),
            dst_global: GlobalTensor::new(),
            data_size: 0,
            beta_value: T::from_f64(0.0),
            tmp_buf_size: 0,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn init(
        &mut self,
        src0_gm: GmAddr,
        src1_gm: GmAddr,
        dst_gm: GmAddr,
        input_size: usize,
        tmp_buf_size_in: usize,
        beta: T,
        pipe: &mut TPipe,
    ) {
        self.beta_value = beta;
        self.data_size = input_size;
        self.tmp_buf_size = tmp_buf_size_in;
        self.src0_global.set_global_buffer(src0_gm, self.data_size);
        self.src1_global.set_global_buffer(src1_gm, self.data_size);
        self.dst_global.set_global_buffer(dst_gm, self.data_size);
        pipe.init_buffer(&mut self.in_queue0, 1, self.data_size * size_of::<T>());
        pipe.init_buffer(&mut self.in_queue1, 1, self.data_size * size_of::<T>());
        pipe.init_buffer(&mut self.out_queue, 1, self.data_size * size_of::<T>());
        if self.tmp_buf_size > 0 {
            pipe.init_tbuf(&mut self.buf_queue, tmp_buf_size_in.div_ceil(32) * 32);
        }
    }

    fn process(&mut self) {
        self.copy_in();
        self.compute();
        self.copy_out();
    }

    fn copy_in(&mut self) {
        let src0_local = self.in_queue0.alloc_tensor::<T>();
        let src1_local = self.in_queue1.alloc_tensor::<T>();
        data_copy(&src0_local, &self.src0_global, self.data_size);
        data_copy(&src1_local, &self.src1_global, self.data_size);
        self.in_queue0.enque(src0_local);
        self.in_queue1.enque(src1_local);
    }

    fn compute(&mut self) {
        let dst_local = self.out_queue.alloc_tensor::<T>();
        let src0_local = self.in_queue0.deque::<T>();
        let src1_local = self.in_queue1.deque::<T>();
        // `const float& scalarValue` from the `T` member.
        let beta = self.beta_value.to_f64() as f32;
        if self.tmp_buf_size > 0 {
            // sharedTmpBuffer given: all elements.
            let tmp_local = self.buf_queue.get::<u8>();
            swiglu::<T, false>(&dst_local, &src0_local, &src1_local, beta, &tmp_local, src0_local.get_size());
        } else {
            // The framework's scratch (the stack buffer): all elements.
            swiglu_stack::<T, false>(&dst_local, &src0_local, &src1_local, beta, src0_local.get_size());
        }
        self.out_queue.enque::<T>(dst_local);
        self.in_queue0.free_tensor(src0_local);
        self.in_queue1.free_tensor(src1_local);
    }

    fn copy_out(&mut self) {
        let dst_local = self.out_queue.deque::<T>();
        data_copy(&self.dst_global, &dst_local, self.data_size);
        self.out_queue.free_tensor(dst_local);
    }
}

/// `swiglu_custom(src0, src1, dst, workspace, tiling)` with the tiling already copied in
/// (`CopyTiling`); scalarValue 1.0.
fn swiglu_custom<T: SwiGluElement>(src0_gm: GmAddr, src1_gm: GmAddr, dst_gm: GmAddr, tiling_data: VecTiling) {
    let mut pipe = TPipe::new();
    let scalar_value: f32 = 1.0;
    let mut op = KernelSwiGLU::<T>::new();
    op.init(
        src0_gm,
        src1_gm,
        dst_gm,
        tiling_data.data_length as usize,
        tiling_data.shared_tmp_buffer_size as usize,
        T::from_f64(scalar_value as f64),
        &mut pipe,
    );
    op.process();
}

fn run_swiglu<T: SwiGluElement>(src0: &[T], src1: &[T]) -> (VecTiling, Vec<T>) {
    let tiling = compute_tiling::<T>(src0.len() as u32);
    let (g0, g1) = (GmBuffer::from_vec(src0.to_vec()), GmBuffer::from_vec(src1.to_vec()));
    let gd = GmBuffer::<T>::zeroed(src0.len());
    Launch::new(Soc::Ascend910B)
        .block_dim(1)
        .run(|| swiglu_custom::<T>(g0.addr(), g1.addr(), gd.addr(), tiling))
        .unwrap();
    (tiling, gd.to_vec())
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/04_advanced_api/01_activation/swiglu/
// swiglu.asc: SwiGLU of 32 floats, scalarValue 1.0; GetSwiGLUMaxMinTmpSize's minimum for
// float is 0, so the kernel takes the stack-buffer overload. gen_data.py: src0, src1 =
// uniform(-4, 4); golden = src0 * src1 / (1 + np.exp(-1 * src1)).
#[test]
fn adv_swiglu_example() {
    let src0: Vec<f32> = random_vec(32, 201, -4.0, 4.0);
    let src1: Vec<f32> = random_vec(32, 202, -4.0, 4.0);
    let (tiling, out) = run_swiglu(&src0, &src1);
    assert_eq!(tiling.shared_tmp_buffer_size, 0);
    let want: Vec<f32> = src0.iter().zip(&src1).map(|(&a, &b)| r_swish_f32(b, 1.0) * a).collect();
    assert_bits_eq(&out, &want);
    let golden: Vec<f64> =
        src0.iter().zip(&src1).map(|(&a, &b)| a as f64 * b as f64 / (1.0 + (-(b as f64)).exp())).collect();
    compare_result(&out, &golden);
}

// Not the example's instantiation: KernelSwiGLU<half> over 1008 elements (DataCopy needs whole blocks); the tiling's
// minimum (1536 bytes) goes to the sharedTmpBuffer overload, in rounds of 128 and a tail of 112.
#[test]
fn adv_swiglu_example_half_instantiation() {
    let src0: Vec<f16> = random_vec(1008, 203, -4.0, 4.0);
    let src1: Vec<f16> = random_vec(1008, 204, -4.0, 4.0);
    let (tiling, out) = run_swiglu(&src0, &src1);
    assert_eq!(tiling.shared_tmp_buffer_size, 1536);
    let want: Vec<f16> = src0
        .iter()
        .zip(&src1)
        .map(|(&a, &b)| f16::from_f32(r_swish_f32(b.to_f32(), 1.0) * a.to_f32()))
        .collect();
    assert_bits_eq(&out, &want);
}

// ---------------------------------------------------------------------------------------
// geglu
// ---------------------------------------------------------------------------------------

/// `KernelGeGLU<T>` of `geglu/geglu.asc`.
struct KernelGeGLU<T: GeGluElement> {
    in_queue0: TQue<VecIn, 1>,
    in_queue1: TQue<VecIn, 1>,
    out_queue: TQue<VecOut, 1>,
    buf_queue: TBuf<VecCalc>,
    src0_global: GlobalTensor<T>,
    src1_global: GlobalTensor<T>,
    dst_global: GlobalTensor<T>,
    data_size: usize,
    tmp_buf_size: usize,
    cal_count: usize,
}

impl<T: GeGluElement> KernelGeGLU<T> {
    fn new() -> Self {
        KernelGeGLU {
            in_queue0: TQue::new(),
            in_queue1: TQue::new(),
            out_queue: TQue::new(),
            buf_queue: TBuf::new(),
            src0_global: GlobalTensor::new(),
            src1_global: GlobalTensor::new(),
            dst_global: GlobalTensor::new(),
            data_size: 0,
            tmp_buf_size: 0,
            cal_count: 0,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn init(
        &mut self,
        src0_gm: GmAddr,
        src1_gm: GmAddr,
        dst_gm: GmAddr,
        input_size: usize,
        tmp_buf_size_in: usize,
        cal_count_in: usize,
        pipe: &mut TPipe,
    ) {
        self.data_size = input_size;
        self.tmp_buf_size = tmp_buf_size_in;
        self.cal_count = cal_count_in;
        self.src0_global.set_global_buffer(src0_gm, self.data_size);
        self.src1_global.set_global_buffer(src1_gm, self.data_size);
        self.dst_global.set_global_buffer(dst_gm, self.data_size);
        pipe.init_buffer(&mut self.in_queue0, 1, self.data_size * size_of::<T>());
        pipe.init_buffer(&mut self.in_queue1, 1, self.data_size * size_of::<T>());
        pipe.init_buffer(&mut self.out_queue, 1, self.data_size * size_of::<T>());
        if self.tmp_buf_size > 0 {
            pipe.init_tbuf(&mut self.buf_queue, self.tmp_buf_size);
        }
    }

    fn process(&mut self) {
        self.copy_in();
        self.compute();
        self.copy_out();
    }

    fn copy_in(&mut self) {
        let src0_local = self.in_queue0.alloc_tensor::<T>();
        let src1_local = self.in_queue1.alloc_tensor::<T>();
        data_copy(&src0_local, &self.src0_global, self.data_size);
        data_copy(&src1_local, &self.src1_global, self.data_size);
        self.in_queue0.enque(src0_local);
        self.in_queue1.enque(src1_local);
    }

    fn compute(&mut self) {
        let dst_local = self.out_queue.alloc_tensor::<T>();
        let src0_local = self.in_queue0.deque::<T>();
        let src1_local = self.in_queue1.deque::<T>();
        let tmp_local = if self.tmp_buf_size > 0 { Some(self.buf_queue.get::<u8>()) } else { None };
        // dst = src0 * GELU(src1); the overloads without calCount use srcTensor0.GetSize().
        match (&tmp_local, self.cal_count > 0) {
            (Some(tmp), true) => geglu::<T, false>(&dst_local, &src0_local, &src1_local, tmp, self.cal_count),
            (Some(tmp), false) => {
                geglu::<T, false>(&dst_local, &src0_local, &src1_local, tmp, src0_local.get_size())
            }
            (None, true) => geglu_stack::<T, false>(&dst_local, &src0_local, &src1_local, self.cal_count),
            (None, false) => {
                geglu_stack::<T, false>(&dst_local, &src0_local, &src1_local, src0_local.get_size())
            }
        }
        self.out_queue.enque::<T>(dst_local);
        self.in_queue0.free_tensor(src0_local);
        self.in_queue1.free_tensor(src1_local);
    }

    fn copy_out(&mut self) {
        let dst_local = self.out_queue.deque::<T>();
        data_copy(&self.dst_global, &dst_local, self.data_size);
        self.out_queue.free_tensor(dst_local);
    }
}

/// `geglu_custom(src0, src1, dst, tmpBufSize)`: 1024 elements, `calCount` 0 in the example
/// (`CAL_COUNT` here, for the other branches).
fn geglu_custom<T: GeGluElement, const CAL_COUNT: usize>(
    src0_gm: GmAddr,
    src1_gm: GmAddr,
    dst_gm: GmAddr,
    tmp_buf_size: usize,
) {
    let mut pipe = TPipe::new();
    const SRC_SIZE: usize = 1024;
    let mut op = KernelGeGLU::<T>::new();
    op.init(src0_gm, src1_gm, dst_gm, SRC_SIZE, tmp_buf_size, CAL_COUNT, &mut pipe);
    op.process();
}

/// Runs `geglu_custom` with the host's `GetGeGLUMaxMinTmpSize` minimum; returns the scratch
/// size and the output.
fn run_geglu<T: GeGluElement, const CAL_COUNT: usize>(src0: &[T], src1: &[T]) -> (usize, Vec<T>) {
    let (_max_value, min_value) = get_geglu_max_min_tmp_size(1024, size_of::<T>(), false);
    let (g0, g1) = (GmBuffer::from_vec(src0.to_vec()), GmBuffer::from_vec(src1.to_vec()));
    let gd = GmBuffer::<T>::zeroed(src0.len());
    Launch::new(Soc::Ascend910B)
        .block_dim(1)
        .run(|| geglu_custom::<T, CAL_COUNT>(g0.addr(), g1.addr(), gd.addr(), min_value))
        .unwrap();
    (min_value, gd.to_vec())
}

/// The reference over `n` elements, rounded to `T`.
fn geglu_want<T: Element>(src0: &[T], src1: &[T], n: usize) -> Vec<T> {
    (0..n)
        .map(|i| T::from_f64(r_geglu_f32(src0[i].to_f64() as f32, src1[i].to_f64() as f32) as f64))
        .collect()
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/04_advanced_api/01_activation/geglu/
// geglu.asc: GeGLU of 1024 floats, tmpBufSize = GetGeGLUMaxMinTmpSize's minimum (0 for float)
// and calCount 0, so the overload without either. gen_data.py: src0, src1 = uniform(-0.1,
// 0.1); golden = src0 * (src1 / (1 + np.exp(-0.0713548162726 * src1 * (2.2363860002236e1 +
// np.power(src1, 2))))).
#[test]
fn adv_geglu_example() {
    let src0: Vec<f32> = random_vec(1024, 301, -0.1, 0.1);
    let src1: Vec<f32> = random_vec(1024, 302, -0.1, 0.1);
    let (tmp, out) = run_geglu::<f32, 0>(&src0, &src1);
    assert_eq!(tmp, 0);
    assert_bits_eq(&out, &geglu_want(&src0, &src1, 1024));
    let golden: Vec<f64> = src0
        .iter()
        .zip(&src1)
        .map(|(&a, &b)| {
            let (a, b) = (a as f64, b as f64);
            a * (b / (1.0 + (-0.0713548162726 * b * (2.2363860002236e1 + b * b)).exp()))
        })
        .collect();
    compare_result(&out, &golden);
}

// Not the example's instantiation: the kernel's other branches — calCount 1000 with the
// stack buffer (float), and KernelGeGLU<half> with the tiling's minimum scratch (1024 bytes,
// rounds of 128), with and without calCount.
#[test]
fn adv_geglu_example_other_branches() {
    let src0: Vec<f32> = random_vec(1024, 303, -3.0, 3.0);
    let src1: Vec<f32> = random_vec(1024, 304, -3.0, 3.0);
    let (_, out) = run_geglu::<f32, 1000>(&src0, &src1);
    assert_bits_eq(&out[..1000], &geglu_want(&src0, &src1, 1000));

    let h0: Vec<f16> = random_vec(1024, 305, -3.0, 3.0);
    let h1: Vec<f16> = random_vec(1024, 306, -3.0, 3.0);
    let (tmp, out) = run_geglu::<f16, 1000>(&h0, &h1);
    assert_eq!(tmp, 1024);
    assert_bits_eq(&out[..1000], &geglu_want(&h0, &h1, 1000));
    let (_, out) = run_geglu::<f16, 0>(&h0, &h1);
    assert_bits_eq(&out, &geglu_want(&h0, &h1, 1024));
}

// ---------------------------------------------------------------------------------------
// gelu
// ---------------------------------------------------------------------------------------

/// `Gelu`'s steps in `f32` (`GeluCalcSimplifiedAvoid`): `y = 1.5957691 · (x + 0.044715 · x³)`,
/// `x / (exp(-|y|) + 1) · exp(min(y, 0))`.
fn r_gelu_f32(x: f32) -> f32 {
    let y = (x + x * (x * x) * 0.044715f64 as f32) * 1.5957691216057308f64 as f32;
    let e = (y.min(0.0) as f64).exp() as f32;
    let a = ((-y.abs()) as f64).exp() as f32 + 1.0;
    x / a * e
}

/// `KernelGelu<T>` of `gelu/gelu.asc`.
struct KernelGelu<T: GeluElement> {
    in_queue_x: TQue<VecIn, 1>,
    out_queue: TQue<VecOut, 1>,
    buf_queue: TBuf<VecCalc>,
    src_global: GlobalTensor<T>,
    dst_global: GlobalTensor<T>,
    data_size: usize,
    tmp_buf_size: usize,
}

impl<T: GeluElement> KernelGelu<T> {
    fn new() -> Self {
        KernelGelu {
            in_queue_x: TQue::new(),
            out_queue: TQue::new(),
            buf_queue: TBuf::new(),
            src_global: GlobalTensor::new(),
            dst_global: GlobalTensor::new(),
            data_size: 0,
            tmp_buf_size: 0,
        }
    }

    fn init(
        &mut self,
        src_gm: GmAddr,
        dst_gm: GmAddr,
        input_size: usize,
        tmp_buf_size: usize,
        pipe: &mut TPipe,
    ) {
        self.data_size = input_size;
        self.tmp_buf_size = tmp_buf_size;
        self.src_global.set_global_buffer(src_gm, self.data_size);
        self.dst_global.set_global_buffer(dst_gm, self.data_size);
        pipe.init_buffer(&mut self.in_queue_x, 1, self.data_size * size_of::<T>());
        pipe.init_buffer(&mut self.out_queue, 1, self.data_size * size_of::<T>());
        if tmp_buf_size > 0 {
            pipe.init_tbuf(&mut self.buf_queue, tmp_buf_size);
        }
    }

    fn process(&mut self) {
        self.copy_in();
        self.compute();
        self.copy_out();
    }

    fn copy_in(&mut self) {
        let src_local = self.in_queue_x.alloc_tensor::<T>();
        data_copy(&src_local, &self.src_global, self.data_size);
        self.in_queue_x.enque(src_local);
    }

    fn compute(&mut self) {
        let dst_local = self.out_queue.alloc_tensor::<T>();
        let src_local = self.in_queue_x.deque::<T>();
        // Gelu element-wise from srcLocal into dstLocal (highPrecision, highPerformance false).
        if self.tmp_buf_size > 0 {
            let tmp_local = self.buf_queue.get::<u8>();
            gelu::<T, false, false>(&dst_local, &src_local, &tmp_local, self.data_size);
        } else {
            gelu_stack::<T, false, false>(&dst_local, &src_local, self.data_size);
        }
        self.out_queue.enque::<T>(dst_local);
        self.in_queue_x.free_tensor(src_local);
    }

    fn copy_out(&mut self) {
        let dst_local = self.out_queue.deque::<T>();
        data_copy(&self.dst_global, &dst_local, self.data_size);
        self.out_queue.free_tensor(dst_local);
    }
}

/// `gelu_custom(srcGm, dstGm, dataSize, tmpBufSize)`.
fn gelu_custom<T: GeluElement>(src_gm: GmAddr, dst_gm: GmAddr, data_size: usize, tmp_buf_size: usize) {
    let mut pipe = TPipe::new();
    let mut op = KernelGelu::<T>::new();
    op.init(src_gm, dst_gm, data_size, tmp_buf_size, &mut pipe);
    op.process();
}

fn run_gelu<T: GeluElement>(src: &[T], tmp_buf_size: usize) -> Vec<T> {
    let xg = GmBuffer::from_vec(src.to_vec());
    let yg = GmBuffer::<T>::zeroed(src.len());
    Launch::new(Soc::Ascend910B)
        .block_dim(1)
        .run(|| gelu_custom::<T>(xg.addr(), yg.addr(), src.len(), tmp_buf_size))
        .unwrap();
    yg.to_vec()
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/04_advanced_api/01_activation/gelu/gelu.asc:
// Gelu of 32 floats with GetGeluMinTmpSize's 768 bytes as sharedTmpBuffer. gen_data.py: src =
// uniform(-5, 5); golden = src / (1 + np.exp(-1.5957691216057308 * (src + 0.044715 *
// np.power(src, 3)))).
#[test]
fn adv_gelu_example() {
    let src: Vec<f32> = random_vec(32, 401, -5.0, 5.0);
    let min_value = get_gelu_min_tmp_size(32, size_of::<f32>());
    assert_eq!(min_value, 768);
    let out = run_gelu(&src, min_value);
    assert_bits_eq(&out, &src.iter().map(|&x| r_gelu_f32(x)).collect::<Vec<_>>());
    let golden: Vec<f64> = src
        .iter()
        .map(|&x| {
            let x = x as f64;
            x / (1.0 + (-1.5957691216057308 * (x + 0.044715 * x.powi(3))).exp())
        })
        .collect();
    compare_result(&out, &golden);
}

// The kernel's other branch (tmpBufSize 0: the stack-buffer overload), and KernelGelu<half>
// over 1024 elements with the minimum scratch (rounds of 192) — not the example's values.
#[test]
fn adv_gelu_example_other_branches() {
    let src: Vec<f32> = random_vec(32, 402, -5.0, 5.0);
    let out = run_gelu(&src, 0);
    assert_bits_eq(&out, &src.iter().map(|&x| r_gelu_f32(x)).collect::<Vec<_>>());

    let h: Vec<f16> = random_vec(1024, 403, -5.0, 5.0);
    let out = run_gelu(&h, get_gelu_min_tmp_size(1024, 2));
    // The same steps in half, each rounded once (Ascend910B: no saturation in this range).
    let r = |x: f16| {
        let q = f16::from_f32;
        let a = q(x.to_f32() * x.to_f32());
        let b = q(x.to_f32() * a.to_f32());
        let a = q(b.to_f32() * f16::from_f64(0.044715).to_f32());
        let b = q(x.to_f32() + a.to_f32());
        let y = q(b.to_f32() * f16::from_f64(1.5957691216057308).to_f32());
        let e = f16::from_f64(y.to_f64().min(0.0).exp());
        let a = f16::from_f64((-y.to_f64().abs()).exp());
        let a = q(a.to_f32() + 1.0);
        let a = q(x.to_f32() / a.to_f32());
        q(a.to_f32() * e.to_f32())
    };
    assert_bits_eq(&out, &h.iter().map(|&x| r(x)).collect::<Vec<_>>());
}
