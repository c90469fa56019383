//! Line-by-line port of the vendor's advanced-API anti-quantization example `antiquant`
//! (`mirror-cann/asc-devkit`, `examples/01_simd_cpp_api/04_advanced_api/03_quantization/
//! antiquant/antiquant.asc`), its `dav-2201` branch: one core, an `int8_t` source `[K = 8,
//! N = 128]`, `half` offset and scale `[1, 128]`, `AscendAntiQuant<int8_t, half, false>(dstLocal,
//! srcLocal, offsetLocal, scaleLocal, sharedTmpBuffer, mK)` with the scratch sized by the host's
//! `GetAscendAntiQuantMaxMinTmpSize` (0 for `half`, so the tiling's fallback of 8 KiB), with the
//! sanitizer on. Run on Ascend910B as built, and on Ascend310P, whose build takes the same
//! implementation. The kernel's `offsetLocal.SetShapeInfo({1, 128})` is left out: the `half`
//! path never reads the shape.
//!
//! `scripts/gen_data.py` draws the source as `np.random.uniform(-10, 10).astype(np.int8)`
//! (truncated toward 0) and offset and scale as `float16` in `[-10, 10)`; its golden
//! `scale * (src + offset)` is numpy `float16` arithmetic (`int8 + float16` promotes to
//! `float16`), one rounding per operation, which is the chip's `Add` then `Mul` in `half`. Here
//! the output is compared bit for bit with those steps and within the example's 1e-4 tolerance
//! (`compare_result`). (The example's `CompareResult` reads the `half` output and golden files
//! as `float` words, two `half`s at a time; comparing per element is at least as strict.)

use std::mem::size_of;

use ascend_kernels::data::random_vec;
use ascend_runtime::prelude::*;
use ascend_runtime::testing::assert_bits_eq;

use crate::{compare_result, gm_of};

/// `VecTiling { elementCountOfInput, elementCountOfOffset, mK, sharedTmpBufferSize }`.
#[derive(Clone, Copy)]
struct VecTiling {
    element_count_of_input: usize,
    element_count_of_offset: usize,
    m_k: usize,
    shared_tmp_buffer_size: usize,
}

/// `ComputeTiling` (`__NPU_ARCH__ == 2201`): the host's minimum scratch, or 8 KiB when it is 0.
fn compute_tiling(element_count_of_input: usize, element_count_of_offset: usize, m_k: usize) -> VecTiling {
    let src_shape = [element_count_of_input];
    let scale_shape = [element_count_of_offset];
    let (_max_tmp_size, min_tmp_size) =
        get_ascend_anti_quant_max_min_tmp_size(&src_shape, &scale_shape, false, DType::I8, DType::F16);
    let local_workspace_size = if min_tmp_size == 0 { 8 * 1024 } else { min_tmp_size };
    VecTiling {
        element_count_of_input,
        element_count_of_offset,
        m_k,
        shared_tmp_buffer_size: local_workspace_size,
    }
}

/// `KernelAntiQuant<T, U>` (`T` the output, `U` the source type).
struct KernelAntiQuant<T: AntiQuantOutput, U: AntiQuantInput> {
    in_queue_src: TQue<VecIn, 1>,
    in_queue_offset: TQue<VecIn, 1>,
    in_queue_scale: TQue<VecIn, 1>,
    tmp_queue: TQue<VecOut, 1>,
    out_queue: TQue<VecOut, 1>,
    dst_global: GlobalTensor<T>,
    src_global: GlobalTensor<U>,
    offset_global: GlobalTensor<T>,
    scale_global: GlobalTensor<T>,
    element_count_of_input: usize,
    element_count_of_offset: usize,
    m_k: usize,
}

impl<T: AntiQuantOutput, U: AntiQuantInput> KernelAntiQuant<T, U> {
    fn init(
        dst_gm: GmAddr,
        src_gm: GmAddr,
        offset_gm: GmAddr,
        scale_gm: GmAddr,
        t: VecTiling,
        pipe: &mut TPipe,
    ) -> Self {
        let mut op = KernelAntiQuant {
            in_queue_src: TQue::new(),
            in_queue_offset: TQue::new(),
            in_queue_scale: TQue::new(),
            tmp_queue: TQue::new(),
            out_queue: TQue::new(),
            dst_global: gm_of(dst_gm),
            src_global: gm_of(src_gm),
            offset_global: gm_of(offset_gm),
            scale_global: gm_of(scale_gm),
            element_count_of_input: t.element_count_of_input,
            element_count_of_offset: t.element_count_of_offset,
            m_k: t.m_k,
        };
        pipe.init_buffer(&mut op.in_queue_src, 1, t.element_count_of_input * size_of::<U>());
        pipe.init_buffer(&mut op.in_queue_offset, 1, t.element_count_of_offset * T::SIZE);
        pipe.init_buffer(&mut op.in_queue_scale, 1, t.element_count_of_offset * T::SIZE);
        pipe.init_buffer(&mut op.out_queue, 1, t.element_count_of_input * T::SIZE);
        pipe.init_buffer(&mut op.tmp_queue, 1, t.shared_tmp_buffer_size);
        op
    }

    fn process(&mut self) {
        self.copy_in();
        self.compute();
        self.copy_out();
    }

    fn copy_in(&mut self) {
        let src_local = self.in_queue_src.alloc_tensor::<U>();
        data_copy(&src_local, &self.src_global, self.element_count_of_input);
        self.in_queue_src.enque(src_local);
        let offset_local = self.in_queue_offset.alloc_tensor::<T>();
        data_copy(&offset_local, &self.offset_global, self.element_count_of_offset);
        self.in_queue_offset.enque(offset_local);
        let scale_local = self.in_queue_scale.alloc_tensor::<T>();
        data_copy(&scale_local, &self.scale_global, self.element_count_of_offset);
        self.in_queue_scale.enque(scale_local);
    }

    fn compute(&mut self) {
        let src_local = self.in_queue_src.deque::<U>();
        let offset_local = self.in_queue_offset.deque::<T>();
        let scale_local = self.in_queue_scale.deque::<T>();
        let dst_local = self.out_queue.alloc_tensor::<T>();
        let shared_tmp_buffer = self.tmp_queue.alloc_tensor::<u8>();
        ascend_anti_quant::<U, T, false>(
            &dst_local,
            &src_local,
            &offset_local,
            &scale_local,
            &shared_tmp_buffer,
            self.m_k,
            &AntiQuantShapeInfo::default(),
        );
        self.in_queue_src.free_tensor(src_local);
        self.in_queue_offset.free_tensor(offset_local);
        self.in_queue_scale.free_tensor(scale_local);
        self.tmp_queue.free_tensor(shared_tmp_buffer);
        self.out_queue.enque(dst_local);
    }

    fn copy_out(&mut self) {
        let dst_local = self.out_queue.deque::<T>();
        data_copy(&self.dst_global, &dst_local, self.element_count_of_input);
        self.out_queue.free_tensor(dst_local);
    }
}

/// `antiquant_custom(dstGm, srcGm, offsetGm, scaleGm, workspace, tiling)`.
fn antiquant_custom(dst_gm: GmAddr, src_gm: GmAddr, offset_gm: GmAddr, scale_gm: GmAddr, tiling: VecTiling) {
    let mut pipe = TPipe::new();
    let mut op = KernelAntiQuant::<f16, i8>::init(dst_gm, src_gm, offset_gm, scale_gm, tiling, &mut pipe);
    op.process();
}

#[test]
fn antiquant_per_channel_half() {
    const ELEMENT_COUNT_OF_INPUT: usize = 1024;
    const ELEMENT_COUNT_OF_OFFSET: usize = 128;
    const K: usize = 8;
    let tiling = compute_tiling(ELEMENT_COUNT_OF_INPUT, ELEMENT_COUNT_OF_OFFSET, K);
    assert_eq!(tiling.shared_tmp_buffer_size, 8 * 1024);
    // gen_data.py: src uniform in [-10, 10) truncated to int8; offset, scale as float16.
    let src: Vec<i8> =
        random_vec::<f32>(ELEMENT_COUNT_OF_INPUT, 10, -10.0, 10.0).iter().map(|&x| x as i8).collect();
    let offset: Vec<f16> = random_vec(ELEMENT_COUNT_OF_OFFSET, 11, -10.0, 10.0);
    let scale: Vec<f16> = random_vec(ELEMENT_COUNT_OF_OFFSET, 12, -10.0, 10.0);
    // golden = scale * (src + offset) in float16 (one rounding per operation).
    let steps: Vec<f16> = src
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let j = i % ELEMENT_COUNT_OF_OFFSET;
            let a = f16::from_f64(f64::from(x) + offset[j].to_f64());
            f16::from_f64(a.to_f64() * scale[j].to_f64())
        })
        .collect();
    let golden: Vec<f64> = steps.iter().map(|h| h.to_f64()).collect();
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        let dg = GmBuffer::<f16>::zeroed(ELEMENT_COUNT_OF_INPUT);
        let (sg, og, cg) =
            (GmBuffer::from_slice(&src), GmBuffer::from_slice(&offset), GmBuffer::from_slice(&scale));
        let (da, sa, oa, ca) = (dg.addr(), sg.addr(), og.addr(), cg.addr());
        Launch::new(soc).block_dim(1).run(|| antiquant_custom(da, sa, oa, ca, tiling)).unwrap();
        let got = dg.to_vec();
        assert_bits_eq(&got, &steps);
        let out: Vec<f32> = got.iter().map(|h| h.to_f32()).collect();
        compare_result(&out, &golden);
    }
}
