//! Line-by-line port of the vendor's advanced-API `Sigmoid` example (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/04_advanced_api/01_activation/sigmoid/sigmoid.asc`): one core, 1024
//! floats drawn over the whole float range, `Duplicate` of 0 into the output, then `Sigmoid`
//! in each of its four overloads (`apiMode` 0–3: stack buffer, stack buffer with `calCount`,
//! `sharedTmpBuffer` with `calCount`, `sharedTmpBuffer`), the scratch `TBuf` sized by
//! `GetSigmoidMaxMinTmpSize`'s minimum (256 bytes), as the example's host code passes it.
//!
//! The example's golden is numpy's `1 / (1 + exp(-x))` in float32, compared with a tolerance of
//! 1e-4 (numpy's `exp` and the chip's round differently in the last bits). Here each output is
//! compared bit for bit with the instruction sequence's own per-element result (`exp` rounded
//! once, then `+ 1` and `1 / ·` in float), and with numpy's formula within the example's
//! tolerance.

use ascend_kernels::data::random_vec;
use ascend_runtime::prelude::*;
use ascend_runtime::testing::assert_bits_eq;

use crate::compare_result;

/// `KernelSigmoid<T, apiMode>`.
struct KernelSigmoid<'a, T: SigmoidElement, const API_MODE: i32> {
    src_global: GlobalTensor<T>,
    dst_global: GlobalTensor<T>,
    pipe: &'a mut TPipe,
    in_queue_x: TQue<VecIn, 1>,
    buf_queue: TBuf<VecCalc>,
    out_queue: TQue<VecOut, 1>,
    align_data_num: usize,
    count: usize,
    tmp_buf_size: usize,
}

impl<'a, T: SigmoidElement, const API_MODE: i32> KernelSigmoid<'a, T, API_MODE> {
    fn init(
        src_gm: GmAddr,
        dst_gm: GmAddr,
        src_size: usize,
        cal_count: usize,
        tmp_buf_size: usize,
        pipe_in: &'a mut TPipe,
    ) -> Self {
        let mut op = KernelSigmoid {
            src_global: GlobalTensor::new(),
            dst_global: GlobalTensor::new(),
            pipe: pipe_in,
            in_queue_x: TQue::new(),
            buf_queue: TBuf::new(),
            out_queue: TQue::new(),
            align_data_num: 0,
            count: cal_count,
            tmp_buf_size,
        };
        op.src_global.set_global_buffer_addr(src_gm);
        op.dst_global.set_global_buffer_addr(dst_gm);
        // Aligned to 32 bytes, as DataCopy needs.
        let align_data_size = (src_size * T::SIZE).div_ceil(32) * 32;
        op.align_data_num = align_data_size / T::SIZE;
        op.pipe.init_buffer(&mut op.in_queue_x, 1, align_data_size);
        if tmp_buf_size > 0 {
            op.pipe.init_tbuf(&mut op.buf_queue, tmp_buf_size);
        }
        op.pipe.init_buffer(&mut op.out_queue, 1, align_data_size);
        op
    }

    fn process(&mut self) {
        self.copy_in();
        self.compute();
        self.copy_out();
    }

    fn copy_in(&mut self) {
        let src_local = self.in_queue_x.alloc_tensor::<T>();
        data_copy(&src_local, &self.src_global, self.align_data_num);
        self.in_queue_x.enque(src_local);
    }

    fn compute(&mut self) {
        let dst_local = self.out_queue.alloc_tensor::<T>();
        let src_local = self.in_queue_x.deque::<T>();
        let zero = T::ZERO;
        duplicate(&dst_local, zero, self.align_data_num);
        let tmp_buf = if self.tmp_buf_size > 0 { Some(self.buf_queue.get::<u8>()) } else { None };
        // isBasicBlock = false; the overload by apiMode.
        match API_MODE {
            0 => sigmoid_stack::<T, false>(&dst_local, &src_local, src_local.get_size()),
            1 => sigmoid_stack::<T, false>(&dst_local, &src_local, self.count),
            2 => sigmoid::<T, false>(&dst_local, &src_local, tmp_buf.as_ref().unwrap(), self.count),
            _ => sigmoid::<T, false>(&dst_local, &src_local, tmp_buf.as_ref().unwrap(), src_local.get_size()),
        }
        self.out_queue.enque(dst_local);
        self.in_queue_x.free_tensor(src_local);
    }

    fn copy_out(&mut self) {
        let dst_local = self.out_queue.deque::<T>();
        data_copy(&self.dst_global, &dst_local, self.align_data_num);
        self.out_queue.free_tensor(dst_local);
    }
}

/// `sigmoid_custom<<<1, …>>>(src, dst, srcSize, calCount, tmpBufSize)` with `KernelSigmoid<float, apiMode>`.
fn sigmoid_custom<const API_MODE: i32>(
    src_gm: GmAddr,
    dst_gm: GmAddr,
    src_size: usize,
    cal_count: usize,
    tmp_buf_size: usize,
) {
    let mut pipe = TPipe::new();
    let mut op =
        KernelSigmoid::<f32, API_MODE>::init(src_gm, dst_gm, src_size, cal_count, tmp_buf_size, &mut pipe);
    op.process();
}

fn run<const API_MODE: i32>(soc: Soc) {
    let (src_size, cal_count) = (1024usize, 1024usize);
    let (_max_value, min_value) = get_sigmoid_max_min_tmp_size(src_size, 4, false);
    // gen_data.py: np.random.uniform(finfo(float32).min, finfo(float32).max, [1024]).
    let src: Vec<f32> = random_vec(src_size, 123_321, f64::from(f32::MIN), f64::from(f32::MAX));
    let (sg, dg) = (GmBuffer::from_slice(&src), GmBuffer::<f32>::zeroed(src_size));
    let (sa, da) = (sg.addr(), dg.addr());
    Launch::new(soc)
        .block_dim(1)
        .run(|| sigmoid_custom::<API_MODE>(sa, da, src_size, cal_count, min_value))
        .unwrap();
    let got = dg.to_vec();
    let steps: Vec<f32> = src.iter().map(|&x| 1.0 / ((f64::from(-x).exp() as f32) + 1.0)).collect();
    assert_bits_eq(&got, &steps);
    let numpy: Vec<f64> =
        src.iter().map(|&x| f64::from((1.0 / (1.0 + f64::from(-x).exp())) as f32)).collect();
    compare_result(&got, &numpy);
}

#[test]
fn sigmoid_all_four_overloads() {
    for soc in [Soc::Ascend910B, Soc::Ascend310P, Soc::Ascend910] {
        run::<0>(soc);
        run::<1>(soc);
        run::<2>(soc);
        run::<3>(soc);
    }
}
