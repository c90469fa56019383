//! Line-by-line port of the vendor's advanced-API quantization example `quant`
//! (`mirror-cann/asc-devkit`, `examples/01_simd_cpp_api/04_advanced_api/03_quantization/quant/
//! quant.asc`), its `dav-2201` branch: one core, 1024 `float` elements, `AscendQuant<float>(
//! dstLocal, srcLocal, 2.0, 0.9, dataSize)` (the stack-buffer overload; the host's tiling computes
//! `GetAscendQuantMaxMinTmpSize`'s minimum into `sharedTmpBufferSize`, which the kernel never
//! reads), with the sanitizer on. Run on Ascend910B as built, and on Ascend310P, whose build
//! takes the same implementation. Also `dequant/dequant.asc` (its `dav-2201` branch):
//! `AscendDequant<float, float>` of 128 × 32 `int32_t` with 32 `float` scales through the stack
//! overload, its golden numpy's `inp * scale` in float64 rounded to float32 (which is the
//! chip's single float multiplication), compared bit for bit and within the tolerance. The
//! `antiquant` example is in `adv_antiquant.rs`.
//!
//! `scripts/gen_data.py` draws the source as `half` values in `[-4, 4)` (stored as `float`) and
//! its golden is `np.round(src * 2.0 + 0.9).astype(np.int8)` in `half` arithmetic, compared with a
//! tolerance of 1e-5 (exact for integers). Here the output is compared bit for bit with the
//! vendor's steps (narrow to `half`, `Muls`, `Adds` each rounded to `half`, `Cast` to nearest
//! even) and with numpy's formula (`compare_result`, and exactly: the example's 1e-5 admits nothing
//! else for integers).

use std::mem::size_of;

use ascend_kernels::data::random_vec;
use ascend_runtime::prelude::*;
use ascend_runtime::testing::assert_bits_eq;

use crate::{compare_result, gm_of};

/// `VecTiling { dataLength, sharedTmpBufferSize }`.
#[derive(Clone, Copy)]
struct VecTiling {
    data_length: usize,
    #[allow(dead_code)] // written by the host's tiling, never read by the kernel
    shared_tmp_buffer_size: usize,
}

/// `ComputeTiling` (`__NPU_ARCH__ == 2201`): the minimum scratch of 1024 floats.
fn compute_tiling(data_length: usize) -> VecTiling {
    let type_size = size_of::<f32>();
    let (_max_tmp_size, min_tmp_size) = get_ascend_quant_max_min_tmp_size(data_length, type_size);
    VecTiling { data_length, shared_tmp_buffer_size: min_tmp_size }
}

/// `KernelQuant<srcType>`.
struct KernelQuant<T: AscendQuantElement> {
    src_global: GlobalTensor<T>,
    dst_global: GlobalTensor<i8>,
    in_queue_x: TQue<VecIn, 1>,
    out_queue: TQue<VecOut, 1>,
    data_size: usize,
}

impl<T: AscendQuantElement> KernelQuant<T> {
    fn init(src_gm: GmAddr, dst_gm: GmAddr, input_size: usize, pipe: &mut TPipe) -> Self {
        let mut op = KernelQuant {
            src_global: gm_of(src_gm),
            dst_global: gm_of(dst_gm),
            in_queue_x: TQue::new(),
            out_queue: TQue::new(),
            data_size: input_size,
        };
        op.src_global.set_global_buffer(src_gm, op.data_size);
        op.dst_global.set_global_buffer(dst_gm, op.data_size);
        pipe.init_buffer(&mut op.in_queue_x, 1, op.data_size * size_of::<T>());
        pipe.init_buffer(&mut op.out_queue, 1, op.data_size * size_of::<i8>());
        op
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
        let scale = 2.0f32;
        let offset = 0.9f32;
        let dst_local = self.out_queue.alloc_tensor::<i8>();
        let src_local = self.in_queue_x.deque::<T>();
        ascend_quant_stack::<T, false>(&dst_local, &src_local, scale, offset, self.data_size);
        self.out_queue.enque::<i8>(dst_local);
        self.in_queue_x.free_tensor(src_local);
    }

    fn copy_out(&mut self) {
        let dst_local = self.out_queue.deque::<i8>();
        data_copy(&self.dst_global, &dst_local, self.data_size);
        self.out_queue.free_tensor(dst_local);
    }
}

/// `quant_custom(srcGm, dstGm, workspace, tiling)`.
fn quant_custom(src_gm: GmAddr, dst_gm: GmAddr, tiling: VecTiling) {
    let mut pipe = TPipe::new();
    let mut op = KernelQuant::<f32>::init(src_gm, dst_gm, tiling.data_length, &mut pipe);
    op.process();
}

#[test]
fn quant_per_tensor_float() {
    const DATALENGTH: usize = 1024;
    let tiling = compute_tiling(DATALENGTH);
    assert_eq!(tiling.shared_tmp_buffer_size, 512);
    // gen_data.py (dav-2201): uniform in [-4, 4) as float16, stored as float32.
    let halves: Vec<f16> = random_vec(DATALENGTH, 20_251_123, -4.0, 4.0);
    let src: Vec<f32> = halves.iter().map(|h| h.to_f32()).collect();
    // golden = np.round(src * 2.0 + 0.9).astype(np.int8), in float16.
    let golden: Vec<f64> = halves
        .iter()
        .map(|h| {
            let m = f16::from_f64(h.to_f64() * 2.0);
            let a = f16::from_f64(m.to_f64() + f16::from_f32(0.9).to_f64());
            f64::from(a.to_f64().round_ties_even() as i8)
        })
        .collect();
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        let (sg, dg) = (GmBuffer::from_slice(&src), GmBuffer::<i8>::zeroed(DATALENGTH));
        let (sa, da) = (sg.addr(), dg.addr());
        Launch::new(soc).block_dim(1).run(|| quant_custom(sa, da, tiling)).unwrap();
        let got = dg.to_vec();
        // The vendor's steps: narrow to half, Muls(half(2.0)), Adds(half(0.9)), Cast CAST_NONE.
        let steps: Vec<i8> = src
            .iter()
            .map(|&x| {
                let m = f16::from_f64(f16::from_f32(x).to_f64() * f16::from_f32(2.0).to_f64());
                let a = f16::from_f64(m.to_f64() + f16::from_f32(0.9).to_f64());
                a.to_f64().round_ties_even().clamp(-128.0, 127.0) as i8
            })
            .collect();
        assert_eq!(got, steps, "{soc}");
        let out: Vec<f32> = got.iter().map(|&v| f32::from(v)).collect();
        compare_result(&out, &golden);
        // The example's own tolerance, 1e-5, leaves no room for integers: they are equal.
        assert!(out.iter().zip(&golden).all(|(&a, &b)| f64::from(a) == b), "{soc}");
    }
}

// ---------------------------------------------------------------------------------------
// dequant
// ---------------------------------------------------------------------------------------

/// `KernelDequant<dstT, scaleT>` of `dequant/dequant.asc` (its `dav-2201` branch).
struct KernelDequant<D: AscendDequantElement<S>, S: Element> {
    src_global: GlobalTensor<i32>,
    deq_scale_global: GlobalTensor<S>,
    dst_global: GlobalTensor<D>,
    in_queue_x: TQue<VecIn, 1>,
    in_queue_deq_scale: TQue<VecIn, 1>,
    offset_queue: TQue<VecIn, 1>,
    out_queue: TQue<VecOut, 1>,
    data_size: usize,
    scale_size: usize,
    row_len: usize,
    col_len: usize,
}

impl<D: AscendDequantElement<S>, S: Element> KernelDequant<D, S> {
    #[allow(clippy::too_many_arguments)]
    fn init(
        src_gm: GmAddr,
        dst_gm: GmAddr,
        deq_scale_gm: GmAddr,
        m: usize,
        n: usize,
        cal_count: usize,
        pipe: &mut TPipe,
    ) -> Self {
        let mut op = KernelDequant {
            src_global: GlobalTensor::new(),
            deq_scale_global: GlobalTensor::new(),
            dst_global: GlobalTensor::new(),
            in_queue_x: TQue::new(),
            in_queue_deq_scale: TQue::new(),
            offset_queue: TQue::new(),
            out_queue: TQue::new(),
            data_size: m * n,
            scale_size: cal_count,
            row_len: m,
            col_len: n,
        };
        op.src_global.set_global_buffer(src_gm, op.data_size);
        op.deq_scale_global.set_global_buffer(deq_scale_gm, op.scale_size);
        op.dst_global.set_global_buffer(dst_gm, op.data_size);
        pipe.init_buffer(&mut op.in_queue_x, 1, op.data_size * size_of::<i32>());
        pipe.init_buffer(&mut op.in_queue_deq_scale, 1, op.scale_size * S::SIZE);
        pipe.init_buffer(&mut op.out_queue, 1, op.data_size * D::SIZE);
        pipe.init_buffer(&mut op.offset_queue, 1, op.scale_size * S::SIZE);
        op
    }

    fn process(&mut self) {
        self.copy_in();
        self.compute();
        self.copy_out();
    }

    fn copy_in(&mut self) {
        let src_local = self.in_queue_x.alloc_tensor::<i32>();
        data_copy(&src_local, &self.src_global, self.data_size);
        self.in_queue_x.enque(src_local);
        let deq_scale_local = self.in_queue_deq_scale.alloc_tensor::<S>();
        data_copy(&deq_scale_local, &self.deq_scale_global, self.scale_size);
        self.in_queue_deq_scale.enque(deq_scale_local);
        // The offsets only the Ascend 950 branch reads.
        let offset_local = self.offset_queue.alloc_tensor::<f32>();
        duplicate(&offset_local, 0.0f32, self.scale_size);
        self.offset_queue.enque(offset_local);
    }

    fn compute(&mut self) {
        let dst_local = self.out_queue.alloc_tensor::<D>();
        let src_local = self.in_queue_x.deque::<i32>();
        let deq_scale_local = self.in_queue_deq_scale.deque::<S>();
        let offset_local = self.offset_queue.deque::<f32>();
        let params =
            DequantParams { m: self.row_len, n: self.col_len, cal_count: deq_scale_local.get_size() };
        ascend_dequant_stack(&dst_local, &src_local, &deq_scale_local, params, DeQuantMode::default());
        self.out_queue.enque::<D>(dst_local);
        self.in_queue_x.free_tensor(src_local);
        self.in_queue_deq_scale.free_tensor(deq_scale_local);
        self.offset_queue.free_tensor(offset_local);
    }

    fn copy_out(&mut self) {
        let dst_local = self.out_queue.deque::<D>();
        data_copy(&self.dst_global, &dst_local, self.data_size);
        self.out_queue.free_tensor(dst_local);
    }
}

/// `dequant_custom(srcGm, deqScaleGm, dstGm, …)` with `KernelDequant<float, float>`.
fn dequant_custom(
    src_gm: GmAddr,
    dst_gm: GmAddr,
    deq_scale_gm: GmAddr,
    m: usize,
    n: usize,
    cal_count: usize,
) {
    let mut pipe = TPipe::new();
    let mut op = KernelDequant::<f32, f32>::init(src_gm, dst_gm, deq_scale_gm, m, n, cal_count, &mut pipe);
    op.process();
}

#[test]
fn dequant_per_channel_float() {
    const M: usize = 128;
    const N: usize = 32;
    // The host's tiling: GetAscendDequantMaxMinTmpSize's minimum (unused by the stack overload).
    let (_max, min) = get_ascend_dequant_max_min_tmp_size(&[M, N], size_of::<i32>());
    assert_eq!(min, (64 + N + N + 8) * 4);
    // gen_data.py: integers in [-10, 10), scales uniform in [-100, 100).
    let src: Vec<i32> =
        random_vec::<f32>(M * N, 20_251_124, -10.0, 10.0).iter().map(|&x| x.floor() as i32).collect();
    let scale: Vec<f32> = random_vec(N, 20_251_125, -100.0, 100.0);
    // golden[j][i] = inp[j][i] * scale[i] in float64, then float32.
    let golden: Vec<f64> =
        (0..M * N).map(|k| f64::from((f64::from(src[k]) * f64::from(scale[k % N])) as f32)).collect();
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        let (xg, sg, dg) =
            (GmBuffer::from_slice(&src), GmBuffer::from_slice(&scale), GmBuffer::<f32>::zeroed(M * N));
        let (xa, sa, da) = (xg.addr(), sg.addr(), dg.addr());
        Launch::new(soc).block_dim(1).run(|| dequant_custom(xa, da, sa, M, N, N)).unwrap();
        let got = dg.to_vec();
        // The vendor's steps: Cast<float, int32_t>, Mul by the column's scale, and Adds(0)
        // into dst (which turns numpy's -0.0 into +0.0).
        let steps: Vec<f32> = (0..M * N).map(|k| src[k] as f32 * scale[k % N] + 0.0).collect();
        assert_bits_eq(&got, &steps);
        compare_result(&got, &golden);
    }
}
