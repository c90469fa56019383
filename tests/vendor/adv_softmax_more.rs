//! Line-by-line port of the vendor's advanced-API `LogSoftMax` example (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/04_advanced_api/01_activation/logsoftmax/logsoftmax.asc`, run on
//! Ascend910B): `[128, 128]` floats drawn from `uniform(-10, 10)` on one core; the host passes
//! `GetLogSoftMaxMinTmpSize([128, 128], sizeof(float))` = 800 bytes as the kernel's
//! `tmpBufSize`; the kernel calls `LogSoftMax<float, false, false>` with a default
//! (zero) `LogSoftMaxTiling` — the vendor's kernel recomputes the tiling from the buffer: 128
//! rounds of one row — and the 8-word shape-info GM buffer, which it sets up and never reads.
//!
//! The launch keeps the sanitizer on. The output is compared bit for bit with the scalar
//! reference of the vendor's steps (row sums of 128 values: 64 pairwise sums, then the 64-lane
//! tree; `exp` and `Ln` rounded once to `float`; the logarithm times `log10(e)`, as the
//! vendor's `GenericLogNDImpl`), and with the example's golden (`np.log10` of the softmax, in
//! `f64` here) within its tolerance (1e-4, by the shared `compare_result`).

use ascend_kernels::data::random_vec;
use ascend_runtime::prelude::*;
use ascend_runtime::testing::assert_bits_eq;

use crate::adv_softmax::tree64;
use crate::{compare_result, gm_of};

/// `KernelLogSoftMax<float, false>`.
struct KernelLogSoftMax {
    in_queue_x: TQue<VecIn, 1>,
    out_queue: TQue<VecOut, 1>,
    sum_queue: TQue<VecIn, 1>,
    max_queue: TQue<VecIn, 1>,
    tmp_queue: TBuf<VecCalc>,
    src_global: GlobalTensor<f32>,
    dst_global: GlobalTensor<f32>,
    element_num_per_blk: u32,
    height: u32,
    width: u32,
    tmp_buf_size: u32,
}

impl KernelLogSoftMax {
    fn new() -> Self {
        KernelLogSoftMax {
            in_queue_x: TQue::new(),
            out_queue: TQue::new(),
            sum_queue: TQue::new(),
            max_queue: TQue::new(),
            tmp_queue: TBuf::new(),
            src_global: GlobalTensor::new(),
            dst_global: GlobalTensor::new(),
            element_num_per_blk: 0,
            height: 128,
            width: 128,
            tmp_buf_size: 0,
        }
    }

    fn init(
        &mut self,
        src_gm: GmAddr,
        dst_gm: GmAddr,
        shape_info: GmAddr,
        tmp_buf_size: u32,
        pipe: &mut TPipe,
    ) {
        self.element_num_per_blk = 32 / 4;
        let mut shape_info_global = GlobalTensor::<u32>::new();
        shape_info_global.set_global_buffer(shape_info, 8);
        self.src_global = gm_of::<f32>(src_gm);
        self.dst_global = gm_of::<f32>(dst_gm);
        let (h, w, e) = (self.height as usize, self.width as usize, self.element_num_per_blk as usize);
        pipe.init_buffer(&mut self.in_queue_x, 1, h * w * 4);
        pipe.init_buffer(&mut self.max_queue, 1, h * e * 4);
        pipe.init_buffer(&mut self.sum_queue, 1, h * e * 4);
        pipe.init_buffer(&mut self.out_queue, 1, h * w * 4);
        self.tmp_buf_size = tmp_buf_size;
        if tmp_buf_size > 0 {
            pipe.init_tbuf(&mut self.tmp_queue, tmp_buf_size as usize);
        }
    }

    fn process(&mut self) {
        self.copy_in();
        self.compute();
        self.copy_out();
    }

    fn copy_in(&mut self) {
        let src_local = self.in_queue_x.alloc_tensor::<f32>();
        data_copy(&src_local, &self.src_global, (self.height * self.width) as usize);
        self.in_queue_x.enque(src_local);
    }

    fn compute(&mut self) {
        let src_local = self.in_queue_x.deque::<f32>();
        let sum_temp_local = self.sum_queue.alloc_tensor::<f32>();
        let max_temp_local = self.max_queue.alloc_tensor::<f32>();
        let dst_local = self.out_queue.alloc_tensor::<f32>();
        let src_shape = SoftMaxShapeInfo::new(self.height, self.width, self.height, self.width);
        let tiling = LogSoftMaxTiling::default();
        let shared_tmp_buffer = if self.tmp_buf_size > 0 {
            self.tmp_queue.get::<u8>()
        } else {
            LocalTensor::new(TPosition::VECCALC, 0, 0)
        };
        log_soft_max::<f32, false>(
            &dst_local,
            &sum_temp_local,
            &max_temp_local,
            &src_local,
            &shared_tmp_buffer,
            &tiling,
            &src_shape,
        );
        self.out_queue.enque(dst_local);
        self.sum_queue.free_tensor(sum_temp_local);
        self.max_queue.free_tensor(max_temp_local);
        self.in_queue_x.free_tensor(src_local);
    }

    fn copy_out(&mut self) {
        let dst_local = self.out_queue.deque::<f32>();
        data_copy(&self.dst_global, &dst_local, (self.height * self.width) as usize);
        self.out_queue.free_tensor(dst_local);
    }
}

/// `logsoftmax_custom(shapeInfo, srcGm, dstGm, tmpBufSize)`.
fn logsoftmax_custom(shape_info: GmAddr, src_gm: GmAddr, dst_gm: GmAddr, tmp_buf_size: u32) {
    let mut pipe = TPipe::new();
    let mut op = KernelLogSoftMax::new();
    op.init(src_gm, dst_gm, shape_info, tmp_buf_size, &mut pipe);
    op.process();
}

const HEIGHT: usize = 128;
const WIDTH: usize = 128;

#[test]
fn logsoftmax_example() {
    let min_value = get_log_soft_max_min_tmp_size(&[HEIGHT as u32, WIDTH as u32], 4, false);
    assert_eq!(min_value, (8 + 128 + 64) * 4);
    // gen_data.py: shapeinfo = [height, width, 1, 1, 1, 1, 1, 1]; x = uniform(-10, 10).
    let mut shape_info = [1u32; 8];
    shape_info[0] = HEIGHT as u32;
    shape_info[1] = WIDTH as u32;
    let x: Vec<f32> = random_vec(HEIGHT * WIDTH, 2201, -10.0, 10.0);
    let (sg, xg, yg) = (
        GmBuffer::from_slice(&shape_info),
        GmBuffer::from_slice(&x),
        GmBuffer::<f32>::zeroed(HEIGHT * WIDTH),
    );
    let (sa, xa, ya) = (sg.addr(), xg.addr(), yg.addr());
    Launch::new(Soc::Ascend910B).block_dim(1).run(|| logsoftmax_custom(sa, xa, ya, min_value)).unwrap();
    let y = yg.to_vec();
    let (mut want, mut golden) = (vec![], vec![]);
    for row in x.chunks(WIDTH) {
        let m = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let e: Vec<f32> = row.iter().map(|&v| f64::from(v - m).exp() as f32).collect();
        let pairs: Vec<f32> = (0..64).map(|i| e[i] + e[64 + i]).collect();
        let s = tree64(&pairs);
        want.extend(e.iter().map(|&v| (f64::from(v / s).ln() as f32) * std::f32::consts::LOG10_E));
        let exact: Vec<f64> = row.iter().map(|&v| f64::from(v - m).exp()).collect();
        let total: f64 = exact.iter().sum();
        golden.extend(exact.iter().map(|&v| (v / total).log10()));
    }
    assert_bits_eq(&y, &want);
    compare_result(&y, &golden);
}
