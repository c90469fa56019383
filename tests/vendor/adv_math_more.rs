//! Ports of the vendor's advanced-API math examples for `adv/math_more.rs`
//! (`mirror-cann/asc-devkit`, `examples/01_simd_cpp_api/04_advanced_api/10_math/`): `xor`
//! (`Xor<int16_t>` of 1024 elements with a count and a `TBuf` scratch of the host's minimum) and
//! `cumsum` (`CumSum<float>` of 32 x 160 along the first axis with the last row, scratch of the
//! host's minimum), built for dav-2201 (Ascend910B); the `xor` one also runs on Ascend310P (the
//! `cumsum` one cannot: its `DataCopyPad` does not exist there).
//!
//! Each launch keeps the sanitizer on and must pass; the outputs must equal the examples'
//! goldens exactly: `np.bitwise_xor`, and numpy's row-by-row `float32` sums, which are the
//! kernel's additions in the kernel's order. (The examples' `CompareResult`s allow 1e-4 and 1e-5,
//! which exact equality passes; the `Xor` one reads the `int16_t` output as floats.)

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

// ---------------------------------------------------------------------------------------
// cumsum
// ---------------------------------------------------------------------------------------

struct KernelCumSum<'a, T: CumSumElement> {
    pipe: &'a mut TPipe,
    src_global: GlobalTensor<T>,
    dst_global: GlobalTensor<T>,
    last_row_global: GlobalTensor<T>,
    in_queue_x: TQue<VecIn, 1>,
    out_queue: TQue<VecOut, 1>,
    last_row_queue: TQue<VecOut, 1>,
    buf: TBuf<VecCalc>,
    config: CumSumConfig,
    outter: u32,
    inner: u32,
    gm_outter: u32,
    gm_inner: u32,
}

/// The vendor's `Align32B<T>`: `len` rounded up to 32 bytes' worth of `T`.
fn align_32b<T: Element>(len: u32) -> u32 {
    let align = 32 / size_of::<T>() as u32;
    len.div_ceil(align) * align
}

impl<'a, T: CumSumElement> KernelCumSum<'a, T> {
    #[allow(clippy::too_many_arguments)]
    fn init(
        src_gm: GmAddr,
        dst_gm: GmAddr,
        last_row_gm: GmAddr,
        (outter, inner, gm_outter, gm_inner): (u32, u32, u32, u32),
        tmp_buf_size: u32,
        config: CumSumConfig,
        t_pipe: &'a mut TPipe,
    ) -> Self {
        let mut op = KernelCumSum {
            pipe: t_pipe,
            src_global: GlobalTensor::new(),
            dst_global: GlobalTensor::new(),
            last_row_global: GlobalTensor::new(),
            in_queue_x: TQue::new(),
            out_queue: TQue::new(),
            last_row_queue: TQue::new(),
            buf: TBuf::new(),
            config,
            outter,
            inner,
            gm_outter,
            gm_inner,
        };
        op.src_global.set_global_buffer(src_gm, (gm_outter * gm_inner) as usize);
        op.dst_global.set_global_buffer(dst_gm, (gm_outter * gm_inner) as usize);
        op.last_row_global.set_global_buffer(last_row_gm, gm_inner as usize);
        let all = align_32b::<T>(outter * inner) as usize * size_of::<T>();
        op.pipe.init_buffer(&mut op.in_queue_x, 1, all);
        op.pipe.init_buffer(&mut op.out_queue, 1, all);
        op.pipe.init_buffer(&mut op.last_row_queue, 1, align_32b::<T>(inner) as usize * size_of::<T>());
        // The example asks for the host's minimum, 0 bytes for float along the first axis; the
        // emulated `InitBuffer` refuses an empty buffer, so it gets one block (unused).
        op.pipe.init_tbuf(&mut op.buf, (tmp_buf_size as usize).max(32));
        op
    }

    fn process(&mut self) {
        self.copy_in();
        self.compute();
        self.copy_out();
    }

    fn row_params(&self) -> DataCopyParams {
        DataCopyParams::new(1, (self.gm_inner as usize * size_of::<T>()) as u16, 0, 0)
    }

    fn copy_in(&mut self) {
        let src_local = self.in_queue_x.alloc_tensor::<T>();
        let pad = DataCopyPadParams::default();
        for i in 0..self.gm_outter as usize {
            data_copy_pad_params(
                &src_local.view(i * self.inner as usize),
                &self.src_global.view(i * self.gm_inner as usize),
                &self.row_params(),
                &pad,
            );
        }
        self.in_queue_x.enque(src_local);
    }

    fn compute(&mut self) {
        let dst_local = self.out_queue.alloc_tensor::<T>();
        let last_row_local = self.last_row_queue.alloc_tensor::<T>();
        let src_local = self.in_queue_x.deque::<T>();
        let shared_tmp_buffer = self.buf.get::<u8>();
        let info = CumSumInfo { outter: self.outter as usize, inner: self.inner as usize };
        cum_sum(&dst_local, &last_row_local, &src_local, &shared_tmp_buffer, &info, &self.config);
        self.out_queue.enque(dst_local);
        self.last_row_queue.enque(last_row_local);
        self.in_queue_x.free_tensor(src_local);
    }

    fn copy_out(&mut self) {
        let dst_local = self.out_queue.deque::<T>();
        for i in 0..self.gm_outter as usize {
            data_copy_pad_params_to_gm(
                &self.dst_global.view(i * self.gm_inner as usize),
                &dst_local.view(i * self.inner as usize),
                &self.row_params(),
            );
        }
        self.out_queue.free_tensor(dst_local);
        let last_row_local = self.last_row_queue.deque::<T>();
        data_copy_pad_params_to_gm(&self.last_row_global, &last_row_local, &self.row_params());
        self.last_row_queue.free_tensor(last_row_local);
    }
}

/// The example's `GetConfig()`: `{isLastAxis = 0, isReuseSource = 0, outputLastRow = 1}`.
const CONFIG: CumSumConfig =
    CumSumConfig { is_last_axis: false, is_reuse_source: false, output_last_row: true };

fn cumsum_custom(src_gm: GmAddr, dst_gm: GmAddr, last_row_gm: GmAddr, tmp_buf_size: u32) {
    let mut t_pipe = TPipe::new();
    const OUTER: u32 = 32;
    const INNER: u32 = 160;
    let mut op = KernelCumSum::<f32>::init(
        src_gm,
        dst_gm,
        last_row_gm,
        (OUTER, INNER, OUTER, INNER),
        tmp_buf_size,
        CONFIG,
        &mut t_pipe,
    );
    op.process();
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/04_advanced_api/10_math/cumsum/cumsum.asc:
// CumSum<float, {0, 0, 1}> of 32 x 160 with a scratch TBuf of GetCumSumMaxMinTmpSize({32, 160},
// 4, false).min (0) bytes (32 here: see `init`); gen_data.py draws uniform(-10, 10) and sums row by row in float32
// (linebyline_cumsum).
#[test]
fn adv_cumsum_example() {
    let (_max, min) = get_cum_sum_max_min_tmp_size(&[32, 160], size_of::<f32>(), false, false);
    assert_eq!(min, 0);
    let x: Vec<f32> = random_vec(32 * 160, 20240703, -10.0, 10.0);
    let mut golden = x.clone();
    for r in 1..32 {
        for c in 0..160 {
            golden[r * 160 + c] += golden[(r - 1) * 160 + c];
        }
    }
    // Ascend910B only: the example's DataCopyPad does not exist on Ascend310P.
    let xg = GmBuffer::from_vec(x.clone());
    let (yg, lg) = (GmBuffer::<f32>::zeroed(32 * 160), GmBuffer::<f32>::zeroed(160));
    Launch::new(Soc::Ascend910B)
        .block_dim(1)
        .run(|| cumsum_custom(xg.addr(), yg.addr(), lg.addr(), min as u32))
        .unwrap();
    let y = yg.to_vec();
    assert_eq!(
        y.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        golden.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
    assert_eq!(lg.to_vec(), golden[31 * 160..].to_vec());
}
