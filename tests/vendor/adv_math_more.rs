//! Ports of the vendor's advanced-API math examples for `adv/math_more.rs`
//! (`mirror-cann/asc-devkit`, `examples/01_simd_cpp_api/04_advanced_api/10_math/`): `xor`
//! (`Xor<int16_t>` of 1024 elements with a count and a `TBuf` scratch of the host's minimum),
//! built for dav-2201 (Ascend910B), and run here on Ascend310P too.
//!
//! Each launch keeps the sanitizer on and must pass; the output must equal the example's golden
//! (`np.bitwise_xor`) exactly. (The example's `CompareResult` reads the `int16_t` output as
//! floats within 1e-4, which exact equality passes.)

use std::mem::size_of;

use ascend_kernels::data::random_vec;
use ascend_runtime::prelude::*;

struct KernelXor<'a, T: XorElement> {
    pipe: &'a mut TPipe,
    in_queue_x: TQue<VecIn, 1>,
    in_queue_y: TQue<VecIn, 1>,
    out_queue: TQue<VecOut, 1>,
    temp_buffer: TBuf<VecCalc>,
    src0_global: GlobalTensor<T>,
    src1_global: GlobalTensor<T>,
    dst_global: GlobalTensor<T>,
    data_size: u32,
}

impl<'a, T: XorElement> KernelXor<'a, T> {
    fn init(
        src0_gm: GmAddr,
        src1_gm: GmAddr,
        dst_gm: GmAddr,
        src_size: u32,
        tmp_buf_size: u32,
        pipe_in: &'a mut TPipe,
    ) -> Self {
        let mut op = KernelXor {
            pipe: pipe_in,
            in_queue_x: TQue::new(),
            in_queue_y: TQue::new(),
            out_queue: TQue::new(),
            temp_buffer: TBuf::new(),
            src0_global: GlobalTensor::new(),
            src1_global: GlobalTensor::new(),
            dst_global: GlobalTensor::new(),
            data_size: src_size,
        };
        op.src0_global.set_global_buffer(src0_gm, src_size as usize);
        op.src1_global.set_global_buffer(src1_gm, src_size as usize);
        op.dst_global.set_global_buffer(dst_gm, src_size as usize);
        let bytes = src_size as usize * size_of::<T>();
        op.pipe.init_buffer(&mut op.in_queue_x, 1, bytes);
        op.pipe.init_buffer(&mut op.in_queue_y, 1, bytes);
        op.pipe.init_buffer(&mut op.out_queue, 1, bytes);
        if tmp_buf_size > 0 {
            // The vendor sizes the scratch as tmpBufSize elements of T (the host's bytes).
            op.pipe.init_tbuf(&mut op.temp_buffer, tmp_buf_size as usize * size_of::<T>());
        }
        op
    }

    fn process(&mut self, tmp_buf_size: u32, cal_count: u32) {
        self.copy_in();
        self.compute(tmp_buf_size, cal_count);
        self.copy_out();
    }

    fn copy_in(&mut self) {
        let src0_local = self.in_queue_x.alloc_tensor::<T>();
        let src1_local = self.in_queue_y.alloc_tensor::<T>();
        data_copy(&src0_local, &self.src0_global, self.data_size as usize);
        data_copy(&src1_local, &self.src1_global, self.data_size as usize);
        self.in_queue_x.enque(src0_local);
        self.in_queue_y.enque(src1_local);
    }

    fn compute(&mut self, tmp_buf_size: u32, cal_count: u32) {
        let dst_local = self.out_queue.alloc_tensor::<T>();
        let src0_local = self.in_queue_x.deque::<T>();
        let src1_local = self.in_queue_y.deque::<T>();
        let temp = (tmp_buf_size > 0).then(|| self.temp_buffer.get::<u8>());
        let all = src0_local.get_size();
        match (temp, cal_count) {
            (Some(t), n) if n > 0 => xor::<T, false>(&dst_local, &src0_local, &src1_local, &t, n as usize),
            (Some(t), _) => xor::<T, false>(&dst_local, &src0_local, &src1_local, &t, all),
            (None, n) if n > 0 => xor_stack::<T, false>(&dst_local, &src0_local, &src1_local, n as usize),
            (None, _) => xor_stack::<T, false>(&dst_local, &src0_local, &src1_local, all),
        }
        self.out_queue.enque(dst_local);
        self.in_queue_x.free_tensor(src0_local);
        self.in_queue_y.free_tensor(src1_local);
    }

    fn copy_out(&mut self) {
        let dst_local = self.out_queue.deque::<T>();
        data_copy(&self.dst_global, &dst_local, self.data_size as usize);
        self.out_queue.free_tensor(dst_local);
    }
}

fn xor_custom(src_gm: GmAddr, src1_gm: GmAddr, dst_gm: GmAddr, tmp_buf_size: u32, cal_count: u32) {
    let mut pipe = TPipe::new();
    const SRC_SIZE: u32 = 1024;
    let mut op = KernelXor::<i16>::init(src_gm, src1_gm, dst_gm, SRC_SIZE, tmp_buf_size, &mut pipe);
    op.process(tmp_buf_size, cal_count);
}

/// The example's data: `uniform(-1000, 1000).astype(int16)` (truncation toward zero).
fn int16s(seed: u64) -> Vec<i16> {
    random_vec::<f32>(1024, seed, -1000.0, 1000.0).iter().map(|&v| v as i16).collect()
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/04_advanced_api/10_math/xor/xor.asc:
// Xor<int16_t> of 1024 elements with calCount 1024 and a scratch TBuf of
// GetXorMaxMinTmpSize({1024}, 2).min (256) int16_t; golden np.bitwise_xor. Also the kernel's
// other branches (no scratch: the stack buffer; no count: the whole tensor).
#[test]
fn adv_xor_example() {
    let (_max, min) = get_xor_max_min_tmp_size(1024, size_of::<i16>(), false);
    assert_eq!(min, 256);
    let (x0, x1) = (int16s(20240701), int16s(20240702));
    let golden: Vec<i16> = x0.iter().zip(&x1).map(|(a, b)| a ^ b).collect();
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        for (tmp, count) in [(min as u32, 1024u32), (min as u32, 0), (0, 1024), (0, 0)] {
            let (g0, g1) = (GmBuffer::from_vec(x0.clone()), GmBuffer::from_vec(x1.clone()));
            let yg = GmBuffer::<i16>::zeroed(1024);
            Launch::new(soc)
                .block_dim(1)
                .run(|| xor_custom(g0.addr(), g1.addr(), yg.addr(), tmp, count))
                .unwrap();
            assert_eq!(yg.to_vec(), golden, "{soc}, tmpBufSize {tmp}, calCount {count}");
        }
    }
}
