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
//!
//! Also the `SoftmaxGrad` example (`…/01_activation/softmaxgrad/softmaxgrad.asc`, its default
//! build without `USE_FRONT_MODE`): `[960, 960]` floats `x` (the gradient) and `y` (the softmax)
//! from `uniform(-1, 1)` on 40 cores of 24 rows; per core one loop of 16 rows and a tail of 8
//! (the `SLICE_TABLE` of the `SoftMax` example, shared with its port); the host's
//! `GetSoftMaxGradMinTmpSize([16, 960], 4, false)` = 4160 bytes and `SoftMaxGradTilingFunc`
//! for that shape (one row per round; the tail loop's 8 rows make the kernel recompute it);
//! `SoftmaxGrad<float, false>(yLocal, xLocal, yLocal, …, isFront = false)` in place. Compared
//! bit for bit with the reference of the vendor's steps (`ReduceSumLastNDImpl`'s row sum: the
//! 8-value block sums of the 15 groups of 64 added group by group, then the tree of the 8) and
//! with the numpy golden within the example's own tolerance (1e-5, absolute or relative). Its
//! `USE_FRONT_MODE` build (`SoftmaxGradFront<float>(yLocal, xLocal, yLocal, …)` in place, the
//! minimum buffer of `GetSoftMaxGradMinTmpSize(…, isFront = true, isReuseSource = true)` = 4128
//! bytes, 8 copies of each row sum out) runs as a second test.

use ascend_kernels::data::random_vec;
use ascend_runtime::prelude::*;
use ascend_runtime::testing::assert_bits_eq;

use crate::adv_softmax::{get_single_core_loop_param, tree64, VecTiling};
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

// ---- the SoftmaxGrad example -------------------------------------------------------------------

/// `SoftmaxgradCustomTiling::ComputeTiling` (`front`: the `USE_FRONT_MODE` build).
fn grad_compute_tiling(row_num: u32, col_num: u32, core_num: u32, front: bool) -> VecTiling {
    let aligned_row_num = row_num.div_ceil(core_num) * core_num;
    let core_row_num = aligned_row_num / core_num;
    let tail_core_row_num = row_num % core_row_num;
    let used_num_blocks = row_num / core_row_num;
    let main = get_single_core_loop_param(col_num, core_row_num);
    let tail = if used_num_blocks == core_num && tail_core_row_num == 0 {
        get_single_core_loop_param(col_num, core_row_num)
    } else {
        get_single_core_loop_param(col_num, tail_core_row_num)
    };
    let softmax_compute_shape = [main.single_loop_core_row_num, col_num];
    let api_need_min_tmp_size = get_soft_max_grad_min_tmp_size(&softmax_compute_shape, 4, front, front);
    VecTiling {
        column_length: col_num,
        row_length: row_num,
        shared_tmp_buffer_size: api_need_min_tmp_size,
        used_num_blocks,
        core_row_num,
        tail_core_row_num,
        single_loop_core_row_num: main.single_loop_core_row_num,
        single_core_loop_count: main.single_core_loop_count,
        single_core_loop_tail: main.single_core_loop_tail,
        tail_core_single_loop_core_row_num: tail.single_loop_core_row_num,
        tail_core_single_core_loop_count: tail.single_core_loop_count,
        tail_core_single_core_loop_tail: tail.single_core_loop_tail,
        softmax_tiling_data: soft_max_grad_tiling_func(
            &softmax_compute_shape,
            4,
            api_need_min_tmp_size,
            front,
        ),
    }
}

/// `MyCustomKernel::KernelSoftmax` of the `SoftmaxGrad` example.
#[derive(Default)]
struct KernelSoftmaxGrad {
    shared_tmp_buffer: TBuf<VecCalc>,
    queue_x: TQue<VecIn, 1>,
    queue_y: TQue<VecOut, 1>,
    x_gm: GlobalTensor<f32>,
    y_gm: GlobalTensor<f32>,
    z_gm: GlobalTensor<f32>,
    block_length: usize,
    used_num_blocks: u32,
    column_length: u32,
    core_row_num: u32,
    tile_length: usize,
    shared_tmp_buffer_size: usize,
    single_loop_core_row_num: u32,
    single_core_loop_count: u32,
    left_row: u32,
    softmax_tiling: SoftMaxTiling,
    /// `USE_FRONT_MODE`.
    front: bool,
}

impl KernelSoftmaxGrad {
    fn init(&mut self, x: GmAddr, y: GmAddr, z: GmAddr, t: &VecTiling, pipe: &mut TPipe) {
        assert!(get_block_num() != 0, "block dim can not be zero!");
        self.shared_tmp_buffer_size = t.shared_tmp_buffer_size as usize;
        self.column_length = t.column_length;
        self.used_num_blocks = t.used_num_blocks;
        self.core_row_num = t.core_row_num;
        self.softmax_tiling = t.softmax_tiling_data;
        self.single_loop_core_row_num = t.single_loop_core_row_num;
        self.single_core_loop_count = t.single_core_loop_count;
        self.left_row = t.single_core_loop_tail;
        if get_block_idx() == self.used_num_blocks {
            self.single_loop_core_row_num = t.tail_core_single_loop_core_row_num;
            self.single_core_loop_count = t.tail_core_single_core_loop_count;
            self.left_row = t.tail_core_single_core_loop_tail;
        }
        self.block_length = (self.core_row_num * self.column_length) as usize;
        let offset1 = self.block_length * get_block_idx() as usize;
        self.x_gm.set_global_buffer(x.add::<f32>(offset1), self.block_length);
        self.y_gm.set_global_buffer(y.add::<f32>(offset1), self.block_length);
        if self.front {
            // Front mode: the output's last axis is 8 elements.
            let z_block_length = self.core_row_num as usize * 8;
            self.z_gm
                .set_global_buffer(z.add::<f32>(z_block_length * get_block_idx() as usize), z_block_length);
        } else {
            self.z_gm.set_global_buffer(z.add::<f32>(offset1), self.block_length);
        }
        self.tile_length = (self.single_loop_core_row_num * self.column_length) as usize;
        pipe.init_buffer(&mut self.queue_x, 1, self.tile_length * 4);
        pipe.init_buffer(&mut self.queue_y, 1, self.tile_length * 4);
        pipe.init_tbuf(&mut self.shared_tmp_buffer, self.shared_tmp_buffer_size);
    }

    fn process(&mut self, pipe: &TPipe) {
        if get_block_idx() > self.used_num_blocks {
            return;
        }
        for i in 0..self.single_core_loop_count as usize {
            self.copy_in(i, self.single_loop_core_row_num);
            self.compute(self.single_loop_core_row_num);
            self.copy_out(i, self.single_loop_core_row_num);
        }
        // GetTPipePtr()->FetchEventID(HardEvent::MTE3_MTE2): the pipe is this kernel's `pipe`.
        let event_id_mte3_to_mte2 = pipe.fetch_event_id::<HardEvent::MTE3_MTE2>();
        set_flag::<HardEvent::MTE3_MTE2>(event_id_mte3_to_mte2);
        wait_flag::<HardEvent::MTE3_MTE2>(event_id_mte3_to_mte2);
        if self.left_row > 0 {
            let progress = self.single_core_loop_count as usize;
            self.copy_in(progress, self.left_row);
            self.compute(self.left_row);
            self.copy_out(progress, self.left_row);
        }
    }

    fn copy_in(&mut self, progress: usize, row_num: u32) {
        let (x_local, y_local) = (self.queue_x.alloc_tensor::<f32>(), self.queue_y.alloc_tensor::<f32>());
        let n = (row_num * self.column_length) as usize;
        data_copy(&x_local, &self.x_gm.view(progress * self.tile_length), n);
        data_copy(&y_local, &self.y_gm.view(progress * self.tile_length), n);
        self.queue_x.enque(x_local);
        self.queue_y.enque(y_local);
    }

    fn compute(&mut self, row_num: u32) {
        let x_local = self.queue_x.deque::<f32>();
        let y_local = self.queue_y.deque::<f32>();
        let tmp_buffer = self.shared_tmp_buffer.get::<u8>();
        let src_shape = SoftMaxShapeInfo::new(row_num, self.column_length, row_num, self.column_length);
        if self.front {
            // dstTensor = yLocal, gradTensor = xLocal, srcTensor = yLocal (yLocal is overwritten).
            softmax_grad_front::<f32, false>(
                &y_local,
                &x_local,
                &y_local,
                &tmp_buffer,
                &self.softmax_tiling,
                &src_shape,
            );
        } else {
            softmax_grad::<f32, false>(
                &y_local,
                &x_local,
                &y_local,
                &tmp_buffer,
                &self.softmax_tiling,
                false,
                &src_shape,
            );
        }
        self.queue_y.enque(y_local);
        self.queue_x.free_tensor(x_local);
    }

    fn copy_out(&mut self, progress: usize, row_num: u32) {
        let z_local = self.queue_y.deque::<f32>();
        if self.front {
            // Front mode: offsets by singleLoopCoreRowNum rows of 8, so the tail lands right.
            let offset = progress * self.single_loop_core_row_num as usize * 8;
            data_copy(&self.z_gm.view(offset), &z_local, row_num as usize * 8);
        } else {
            data_copy(
                &self.z_gm.view(progress * self.tile_length),
                &z_local,
                (row_num * self.column_length) as usize,
            );
        }
        self.queue_y.free_tensor(z_local);
    }
}

/// `softmaxgrad_custom(x, y, z, workspace, tiling)`: `CopyTiling`, then the kernel.
fn softmaxgrad_custom(x: GmAddr, y: GmAddr, z: GmAddr, _workspace: GmAddr, tiling: GmAddr, front: bool) {
    let mut pipe = TPipe::new();
    let tiling_data: VecTiling = get_tiling_data(tiling);
    let mut op = KernelSoftmaxGrad { front, ..Default::default() };
    op.init(x, y, z, &tiling_data, &mut pipe);
    op.process(&pipe);
}

/// The example for `front` (`USE_FRONT_MODE`) or not.
fn softmaxgrad_run(front: bool) {
    const ROW_NUM: usize = 960;
    const COLUMN_NUM: usize = 960;
    const USED_CORE_NUM: u32 = 40;
    let tiling = grad_compute_tiling(ROW_NUM as u32, COLUMN_NUM as u32, USED_CORE_NUM, front);
    assert_eq!(tiling.shared_tmp_buffer_size, (if front { 8 } else { 16 } + 960 + 64) * 4);
    let loops =
        (tiling.single_loop_core_row_num, tiling.single_core_loop_count, tiling.single_core_loop_tail);
    assert_eq!((tiling.core_row_num, loops, tiling.softmax_tiling_data.split_m), (24, (16, 1, 8), 1));
    let x: Vec<f32> = random_vec(ROW_NUM * COLUMN_NUM, 2211, -1.0, 1.0);
    let y: Vec<f32> = random_vec(ROW_NUM * COLUMN_NUM, 2212, -1.0, 1.0);
    let (xg, yg, zg) = (
        GmBuffer::from_slice(&x),
        GmBuffer::from_slice(&y),
        GmBuffer::<f32>::zeroed(ROW_NUM * if front { 8 } else { COLUMN_NUM }),
    );
    let workspace = GmBuffer::<u32>::zeroed(1024);
    let tiling_gm = GmBuffer::from_slice(bytemuck::cast_slice::<VecTiling, u32>(&[tiling]));
    let (xa, ya, za, wa, ta) = (xg.addr(), yg.addr(), zg.addr(), workspace.addr(), tiling_gm.addr());
    Launch::new(Soc::Ascend910B)
        .block_dim(USED_CORE_NUM)
        .run(|| softmaxgrad_custom(xa, ya, za, wa, ta, front))
        .unwrap();
    let z = zg.to_vec();
    let (mut want, mut golden) = (vec![], vec![]);
    for (g, s) in x.chunks(COLUMN_NUM).zip(y.chunks(COLUMN_NUM)) {
        let p: Vec<f32> = s.iter().zip(g).map(|(a, b)| a * b).collect();
        let mut acc = [0f32; 8];
        for grp in p.chunks(64) {
            for (j, a) in acc.iter_mut().enumerate() {
                let b = &grp[8 * j..8 * j + 8];
                *a += ((b[0] + b[1]) + (b[2] + b[3])) + ((b[4] + b[5]) + (b[6] + b[7]));
            }
        }
        let sum = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
        let exact: f64 = s.iter().zip(g).map(|(&a, &b)| f64::from(a) * f64::from(b)).sum();
        if front {
            want.extend([sum; 8]);
            golden.extend([exact; 8]);
        } else {
            want.extend(s.iter().zip(g).map(|(&a, &b)| (b - sum) * a));
            golden.extend(s.iter().zip(g).map(|(&a, &b)| (f64::from(b) - exact) * f64::from(a)));
        }
    }
    assert_bits_eq(&z, &want);
    for (i, (&a, &b)) in z.iter().zip(&golden).enumerate() {
        let ae = (f64::from(a) - b).abs();
        assert!(ae <= 1e-5 || ae / b.abs() <= 1e-5, "element {i}: output {a}, golden {b}");
    }
}

#[test]
fn softmaxgrad_example() {
    softmaxgrad_run(false);
}

// The USE_FRONT_MODE build: SoftmaxGradFront<float>(yLocal, xLocal, yLocal, …), 8 copies per row.
#[test]
fn softmaxgrad_example_front_mode() {
    softmaxgrad_run(true);
}
