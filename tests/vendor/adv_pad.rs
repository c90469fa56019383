//! Ports of the vendor's advanced-API data-layout examples (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/04_advanced_api/08_transpose/`), each on both chips that
//! implement the function (Ascend910B and Ascend310P):
//! - `broadcast`: `Broadcast<float, dim, axis>` in its stack form, both of the example's test
//!   cases (`[1, 48] → [96, 48]`, axis 0, and `[96, 1] → [96, 96]`, axis 1); inputs of the
//!   example's distribution (`uniform(-10, 10)`) from a seeded generator;
//! - `pad`: `Pad<float>` of `[16, 31]` to `[16, 32]` (`PadParams{0, 1, 321}`, the stack form,
//!   the tiling for the host's maximum buffer), input `arange`;
//! - `unpad`: `UnPad<float>` of `[8, 8]` to `[8, 7]` (`UnPadParams{0, 1}`, the stack form, the
//!   tiling for `GetUnPadMaxMinTmpSize`'s maximum on the launch's chip), input `arange`.
//!
//! Each launch keeps the sanitizer on and must pass; the output is compared bit for bit with
//! the scalar reference (the functions move bits: each output element is an input element or
//! the pad value), which is the example's numpy golden itself, so it is within the examples'
//! tolerances (`1e-5`, `1e-4`).

use ascend_kernels::data::random_vec;
use ascend_runtime::prelude::*;
use ascend_runtime::testing::assert_bits_eq;

use std::mem::size_of;

use crate::{compare_result, gm_of};

// ---------------------------------------------------------------------------------------
// broadcast
// ---------------------------------------------------------------------------------------

/// The example's `BroadcastTilingData`.
#[derive(Clone, Copy, Debug, Default)]
struct BroadcastTilingData {
    dim: u32,
    axis: u32,
    src_first_dim: u32,
    src_last_dim: u32,
    dst_first_dim: u32,
    dst_last_dim: u32,
}

/// The example's host `ComputeTiling`.
fn compute_tiling(input_shape: &[u32], output_shape: &[u32]) -> BroadcastTilingData {
    let mut tiling = BroadcastTilingData::default();
    let mut axis = 0;
    let dim = input_shape.len() as u32;
    if dim == 1 {
        tiling.src_first_dim = input_shape[0];
        tiling.src_last_dim = 1;
        tiling.dst_first_dim = output_shape[0];
        tiling.dst_last_dim = 1;
    } else {
        tiling.src_first_dim = input_shape[0];
        tiling.src_last_dim = input_shape[1];
        tiling.dst_first_dim = output_shape[0];
        tiling.dst_last_dim = output_shape[1];
        if input_shape[1] == 1 {
            axis = 1;
        }
    }
    tiling.axis = axis;
    tiling.dim = dim;
    tiling
}

struct KernelBroadcastCustom<T: BroadcastElement, const DIM: usize, const AXIS: usize> {
    in_queue_x: TQue<VecIn, 1>,
    out_queue_y: TQue<VecOut, 1>,
    x_gm: GlobalTensor<T>,
    y_gm: GlobalTensor<T>,
    src_length: u32,
    dst_length: u32,
    src_shape: [u32; DIM],
    dst_shape: [u32; DIM],
}

impl<T: BroadcastElement, const DIM: usize, const AXIS: usize> KernelBroadcastCustom<T, DIM, AXIS> {
    #[allow(clippy::too_many_arguments)]
    fn init(
        x: GmAddr,
        y: GmAddr,
        src_length: u32,
        dst_length: u32,
        src_shape: [u32; DIM],
        dst_shape: [u32; DIM],
        pipe: &mut TPipe,
    ) -> Self {
        let mut op = KernelBroadcastCustom {
            in_queue_x: TQue::new(),
            out_queue_y: TQue::new(),
            x_gm: gm_of(x),
            y_gm: gm_of(y),
            src_length,
            dst_length,
            src_shape,
            dst_shape,
        };
        op.x_gm.set_global_buffer(x, src_length as usize);
        op.y_gm.set_global_buffer(y, dst_length as usize);
        pipe.init_buffer(&mut op.in_queue_x, 1, src_length as usize * T::SIZE);
        pipe.init_buffer(&mut op.out_queue_y, 1, dst_length as usize * T::SIZE);
        op
    }

    fn process(&mut self) {
        self.copy_in();
        self.compute();
        self.copy_out();
    }

    fn copy_in(&mut self) {
        let x_local = self.in_queue_x.alloc_tensor::<T>();
        data_copy(&x_local, &self.x_gm, self.src_length as usize);
        self.in_queue_x.enque(x_local);
    }

    fn compute(&mut self) {
        let x_local = self.in_queue_x.deque::<T>();
        let y_local = self.out_queue_y.alloc_tensor::<T>();
        broadcast_stack::<T, DIM, AXIS, false>(&y_local, &x_local, &self.dst_shape, &self.src_shape);
        self.out_queue_y.enque(y_local);
        self.in_queue_x.free_tensor(x_local);
    }

    fn copy_out(&mut self) {
        let y_local = self.out_queue_y.deque::<T>();
        data_copy(&self.y_gm, &y_local, self.dst_length as usize);
        self.out_queue_y.free_tensor(y_local);
    }
}

/// The example's `broadcast_custom` kernel.
fn broadcast_custom(x: GmAddr, y: GmAddr, tiling_data: BroadcastTilingData) {
    let mut pipe = TPipe::new();
    let t = tiling_data;
    if t.dim == 1 {
        let (src_shape, dst_shape) = ([t.src_first_dim], [t.dst_first_dim]);
        let mut op = KernelBroadcastCustom::<f32, 1, 0>::init(
            x,
            y,
            t.src_first_dim,
            t.dst_first_dim,
            src_shape,
            dst_shape,
            &mut pipe,
        );
        op.process();
    } else {
        let src_shape = [t.src_first_dim, t.src_last_dim];
        let dst_shape = [t.dst_first_dim, t.dst_last_dim];
        let (src_len, dst_len) = (t.src_first_dim * t.src_last_dim, t.dst_first_dim * t.dst_last_dim);
        if t.axis == 0 {
            let mut op = KernelBroadcastCustom::<f32, 2, 0>::init(
                x, y, src_len, dst_len, src_shape, dst_shape, &mut pipe,
            );
            op.process();
        } else {
            let mut op = KernelBroadcastCustom::<f32, 2, 1>::init(
                x, y, src_len, dst_len, src_shape, dst_shape, &mut pipe,
            );
            op.process();
        }
    }
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/04_advanced_api/08_transpose/broadcast/
// broadcast.asc: testcase 0 ([1, 48] → [96, 48]) and 1 ([96, 1] → [96, 96]).
#[test]
fn adv_broadcast_example() {
    for (case, (input, output)) in [([1u32, 48], [96u32, 48]), ([96, 1], [96, 96])].into_iter().enumerate() {
        for (soc, seed) in [(Soc::Ascend910B, 71), (Soc::Ascend310P, 72)] {
            // gen_data.py: x = uniform(-10, 10) float32; golden = np.broadcast_to(x, y_shape).
            let (src_n, dst_n) = ((input[0] * input[1]) as usize, (output[0] * output[1]) as usize);
            let x: Vec<f32> = random_vec(src_n, seed + case as u64, -10.0, 10.0);
            let golden: Vec<f32> = (0..dst_n)
                .map(|e| {
                    let (i, j) = (e / output[1] as usize, e % output[1] as usize);
                    x[if input[0] == 1 { j } else { i }]
                })
                .collect();
            let tiling = compute_tiling(&input, &output);
            let xg = GmBuffer::from_vec(x.clone());
            let yg = GmBuffer::<f32>::zeroed(dst_n);
            Launch::new(soc).block_dim(1).run(|| broadcast_custom(xg.addr(), yg.addr(), tiling)).unwrap();
            let y = yg.to_vec();
            // The reference (a pure copy) is the golden itself.
            assert_bits_eq(&y, &golden);
            // CompareResult: EPS = 1e-5, absolute or relative.
            for (i, (&a, &b)) in y.iter().zip(&golden).enumerate() {
                let ae = (a - b).abs();
                assert!(ae <= 1e-5 || ae / b.abs() <= 1e-5, "case {case} on {soc}, element {i}: {a} vs {b}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// pad
// ---------------------------------------------------------------------------------------

/// The example's `PadCustom::PadTiling`.
#[derive(Clone, Copy, Debug)]
struct PadTilingData {
    height: u32,
    width: u32,
    ori_height: u32,
    ori_width: u32,
    pad_tiling_data: PadTiling,
}

/// The example's host `ComputeTiling`: `GetPadMaxMinTmpSize`, `PadTilingFunc` for the maximum.
fn compute_pad_tiling(
    src_height: u32,
    src_width: u32,
    src_ori_height: u32,
    src_ori_width: u32,
) -> PadTilingData {
    let src_shape = [src_height as usize, src_width as usize];
    let src_ori_shape = [src_ori_height as usize, src_ori_width as usize];
    let (max_value, _min_value) = get_pad_max_min_tmp_size(&src_shape, size_of::<f32>());
    PadTilingData {
        height: src_height,
        width: src_width,
        ori_height: src_ori_height,
        ori_width: src_ori_width,
        pad_tiling_data: pad_tiling_func(&src_shape, &src_ori_shape, max_value, size_of::<f32>()),
    }
}

struct KernelPad<T: PadElement> {
    height: u32,
    width: u32,
    aligned_width: u32,
    pad_params: PadParams,
    tiling: PadTiling,
    src_global: GlobalTensor<T>,
    dst_global: GlobalTensor<T>,
    in_queue_src_vec_in: TQue<VecIn, 1>,
    in_queue_src_vec_out: TQue<VecOut, 1>,
}

impl<T: PadElement> KernelPad<T> {
    fn init(
        dst_gm: GmAddr,
        src_gm: GmAddr,
        pad_params_in: PadParams,
        pipe: &mut TPipe,
        tiling: PadTilingData,
    ) -> Self {
        let (height, width) = (tiling.height, tiling.width);
        let _ = (tiling.ori_height, tiling.ori_width);
        let aligned_width = ((width as usize * T::SIZE - 1) / 32 + 1) * 32 / T::SIZE;
        let mut op = KernelPad {
            height,
            width,
            aligned_width: aligned_width as u32,
            pad_params: pad_params_in,
            tiling: tiling.pad_tiling_data,
            src_global: gm_of(src_gm),
            dst_global: gm_of(dst_gm),
            in_queue_src_vec_in: TQue::new(),
            in_queue_src_vec_out: TQue::new(),
        };
        let bytes = (height as usize) * aligned_width * T::SIZE;
        pipe.init_buffer(&mut op.in_queue_src_vec_in, 1, bytes);
        pipe.init_buffer(&mut op.in_queue_src_vec_out, 1, bytes);
        op
    }

    fn process(&mut self) {
        let src_local = self.in_queue_src_vec_in.alloc_tensor::<T>();
        data_copy(&src_local, &self.src_global, (self.height * self.width) as usize);
        self.in_queue_src_vec_in.enque(src_local);
        let src_local = self.in_queue_src_vec_in.deque::<T>();
        let dst_local = self.in_queue_src_vec_out.alloc_tensor::<T>();
        pad_stack(&dst_local, &src_local, &self.pad_params, &self.tiling);
        self.in_queue_src_vec_out.enque(dst_local);
        self.in_queue_src_vec_in.free_tensor(src_local);
        let dst_local = self.in_queue_src_vec_out.deque::<T>();
        data_copy(&self.dst_global, &dst_local, (self.height * self.aligned_width) as usize);
        self.in_queue_src_vec_out.free_tensor(dst_local);
    }
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/04_advanced_api/08_transpose/pad/pad.asc:
// Pad<float> of [16, 31] (oriWidth 31), PadParams{0, 1, 321}.
#[test]
fn adv_pad_example() {
    let (height, width) = (16u32, 31u32);
    // gen_data.py: input = arange(16 * 31) as [16, 31]; golden rows = input row and 321.
    let x: Vec<f32> = (0..height * width).map(|i| i as f32).collect();
    let golden: Vec<f32> = (0..height * 32)
        .map(|e| if e % 32 == 31 { 321.0 } else { x[(e / 32 * width + e % 32) as usize] })
        .collect();
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        let tiling = compute_pad_tiling(height, width, height, width);
        let xg = GmBuffer::from_vec(x.clone());
        let yg = GmBuffer::<f32>::zeroed(golden.len());
        Launch::new(soc)
            .block_dim(1)
            .run(|| {
                let mut pipe = TPipe::new();
                let mut op = KernelPad::<f32>::init(
                    yg.addr(),
                    xg.addr(),
                    PadParams::new(0, 1, 321),
                    &mut pipe,
                    tiling,
                );
                op.process();
            })
            .unwrap();
        let y = yg.to_vec();
        assert_bits_eq(&y, &golden);
        compare_result(&y, &golden.iter().map(|&v| f64::from(v)).collect::<Vec<_>>());
    }
}

// ---------------------------------------------------------------------------------------
// unpad
// ---------------------------------------------------------------------------------------

struct KernelUnPad<T: PadElement> {
    height: u32,
    width: u32,
    unpad_params: UnPadParams,
    tiling: UnPadTiling,
    src_global: GlobalTensor<T>,
    dst_global: GlobalTensor<T>,
    in_queue_src_vec_in: TQue<VecIn, 1>,
    in_queue_src_vec_out: TQue<VecOut, 1>,
}

impl<T: PadElement> KernelUnPad<T> {
    fn init(
        dst_gm: GmAddr,
        src_gm: GmAddr,
        unpad_params_in: UnPadParams,
        pipe: &mut TPipe,
        tiling: (u32, u32, UnPadTiling),
    ) -> Self {
        let (height, width, unpad_tiling) = tiling;
        let mut op = KernelUnPad {
            height,
            width,
            unpad_params: unpad_params_in,
            tiling: unpad_tiling,
            src_global: gm_of(src_gm),
            dst_global: gm_of(dst_gm),
            in_queue_src_vec_in: TQue::new(),
            in_queue_src_vec_out: TQue::new(),
        };
        pipe.init_buffer(&mut op.in_queue_src_vec_in, 1, (height * width) as usize * T::SIZE);
        pipe.init_buffer(&mut op.in_queue_src_vec_out, 1, (height * width) as usize * T::SIZE);
        op
    }

    fn process(&mut self) {
        let src_local = self.in_queue_src_vec_in.alloc_tensor::<T>();
        data_copy(&src_local, &self.src_global, (self.height * self.width) as usize);
        self.in_queue_src_vec_in.enque(src_local);
        let src_local = self.in_queue_src_vec_in.deque::<T>();
        let dst_local = self.in_queue_src_vec_out.alloc_tensor::<T>();
        un_pad_stack(&dst_local, &src_local, &self.unpad_params, &self.tiling);
        self.in_queue_src_vec_out.enque(dst_local);
        self.in_queue_src_vec_in.free_tensor(src_local);
        let dst_local = self.in_queue_src_vec_out.deque::<T>();
        let p = self.unpad_params;
        let n = self.height * (self.width - u32::from(p.left_pad) - u32::from(p.right_pad));
        data_copy(&self.dst_global, &dst_local, n as usize);
        self.in_queue_src_vec_out.free_tensor(dst_local);
    }
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/04_advanced_api/08_transpose/unpad/unpad.asc:
// UnPad<float> of [8, 8], UnPadParams{0, 1}.
#[test]
fn adv_unpad_example() {
    let (height, width) = (8u32, 8u32);
    // gen_data.py: input = arange(64) as [8, 8]; golden = input[:, :7].
    let x: Vec<f32> = (0..height * width).map(|i| i as f32).collect();
    let golden: Vec<f32> = (0..height * 7).map(|e| x[(e / 7 * width + e % 7) as usize]).collect();
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        // ComputeTiling: GetUnPadMaxMinTmpSize on the platform, UnPadTilingFunc for the maximum.
        let shape = [height as usize, width as usize];
        let (max_value, _min_value) = get_un_pad_max_min_tmp_size(soc, &shape, size_of::<f32>());
        let tiling = (height, width, un_pad_tiling_func(&shape, max_value, size_of::<f32>()));
        let xg = GmBuffer::from_vec(x.clone());
        let yg = GmBuffer::<f32>::zeroed(golden.len());
        Launch::new(soc)
            .block_dim(1)
            .run(|| {
                let mut pipe = TPipe::new();
                let mut op =
                    KernelUnPad::<f32>::init(yg.addr(), xg.addr(), UnPadParams::new(0, 1), &mut pipe, tiling);
                op.process();
            })
            .unwrap();
        let y = yg.to_vec();
        assert_bits_eq(&y, &golden);
        compare_result(&y, &golden.iter().map(|&v| f64::from(v)).collect::<Vec<_>>());
    }
}
