//! Line-by-line port of the vendor's advanced-API `SoftMax` example (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/04_advanced_api/01_activation/softmax/softmax.asc`, `dav-2201` =
//! Ascend910B): `[32, 32]` floats drawn from `uniform(-1, 1)` on one core; the host's
//! `ComputeTiling` (rows per core, rows per loop from the `SLICE_TABLE` — 64 for 32 columns —,
//! `GetSoftMaxMinTmpSize` of `[64, 32]` = 416 bytes and `SoftMaxTilingFunc` for that shape)
//! written to GM as the example's 28 `uint32_t`s and read back by the kernel (`CopyTiling`);
//! the kernel's single tail loop of 32 rows calls `SoftMax<float, false>` with `sumTensor` and
//! `maxTensor`, in place (the shape `[32, 32]` differs from the tiling's `[64, 32]`, so the
//! kernel recomputes the tiling: one row per round with 104 floats of scratch), then
//! `AdjustSoftMaxRes<float, float>` with `from = 0xFF7FFFFF` (`-FLT_MAX`), `to = 0`.
//!
//! The launch keeps the sanitizer on. The output is compared bit for bit with the scalar
//! reference of the vendor's steps (the row sum of 32 values by the 64-lane tree of
//! `WholeReduceSum`, `exp` rounded once to `float`), and with the example's numpy golden within
//! its tolerance (1e-4) by the shared `compare_result`; `maxTensor`/`sumTensor` (8 copies per
//! row) bit for bit with the reference's maxima and sums. The kernel's basic-block branch
//! (`isBasicBlock = true`, taken for `rows % 8 == 0 && cols % 64 == 0 && cols < 2048`), which
//! the example's 32 columns do not reach, runs in a second instantiation of 64 columns (not the
//! example's shape).

use ascend_kernels::data::random_vec;
use ascend_runtime::prelude::*;
use ascend_runtime::testing::assert_bits_eq;
use bytemuck::{Pod, Zeroable};

use crate::compare_result;

/// `optiling::SoftmaxCustomTilingData` / `MyCustomKernel::VecTiling`: 12 `uint32_t`s and the
/// `SoftMaxTiling` (28 words, `TILINGDATA_SIZE`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(super) struct VecTiling {
    pub(super) column_length: u32,
    pub(super) row_length: u32,
    pub(super) shared_tmp_buffer_size: u32,
    pub(super) used_num_blocks: u32,
    pub(super) core_row_num: u32,
    pub(super) tail_core_row_num: u32,
    pub(super) single_loop_core_row_num: u32,
    pub(super) single_core_loop_count: u32,
    pub(super) single_core_loop_tail: u32,
    pub(super) tail_core_single_loop_core_row_num: u32,
    pub(super) tail_core_single_core_loop_count: u32,
    pub(super) tail_core_single_core_loop_tail: u32,
    pub(super) softmax_tiling_data: SoftMaxTiling,
}

/// `SoftmaxCustomTiling::SingleCoreLoopParam`.
#[derive(Clone, Copy, Default)]
pub(super) struct SingleCoreLoopParam {
    pub(super) single_loop_core_row_num: u32,
    pub(super) single_core_loop_count: u32,
    pub(super) single_core_loop_tail: u32,
}

/// `SLICE_TABLE`: (column threshold, rows per loop).
const SLICE_TABLE: [(u32, u32); 7] =
    [(8192, 1), (4096, 2), (2048, 4), (1024, 8), (512, 16), (256, 32), (0, 64)];

pub(super) fn get_single_core_loop_param(col_num: u32, core_row_num: u32) -> SingleCoreLoopParam {
    for (threshold, rows) in SLICE_TABLE {
        if col_num >= threshold {
            return SingleCoreLoopParam {
                single_loop_core_row_num: rows,
                single_core_loop_count: core_row_num / rows,
                single_core_loop_tail: core_row_num % rows,
            };
        }
    }
    SingleCoreLoopParam::default()
}

/// `SoftmaxCustomTiling::ComputeTiling`.
fn compute_tiling(row_num: u32, col_num: u32, core_num: u32) -> VecTiling {
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
    let localworkspace_size = get_soft_max_min_tmp_size(&softmax_compute_shape, 4, false);
    VecTiling {
        column_length: col_num,
        row_length: row_num,
        shared_tmp_buffer_size: localworkspace_size,
        used_num_blocks,
        core_row_num,
        tail_core_row_num,
        single_loop_core_row_num: main.single_loop_core_row_num,
        single_core_loop_count: main.single_core_loop_count,
        single_core_loop_tail: main.single_core_loop_tail,
        tail_core_single_loop_core_row_num: tail.single_loop_core_row_num,
        tail_core_single_core_loop_count: tail.single_core_loop_count,
        tail_core_single_core_loop_tail: tail.single_core_loop_tail,
        softmax_tiling_data: soft_max_tiling_func(&softmax_compute_shape, 4, localworkspace_size),
    }
}

const BUFFER_NUM: usize = 2;
const FLOAT_NUM_OF_SINGLE_BLOCK: usize = 8;
const BASIC_BLOCK_ROW_FACTOR: u32 = 8;
const BASIC_BLOCK_COLUMN_FACTOR: u32 = 64;
const BASIC_BLOCK_MAX_COLUMN_LENGTH: u32 = 2048;
const ADJUST_FROM: u32 = 0xFF7F_FFFF;
const ADJUST_TO: f32 = 0.0;

/// `MyCustomKernel::KernelSoftmax`.
#[derive(Default)]
struct KernelSoftmax {
    shared_tmp_buffer: TBuf<VecCalc>,
    queue_x: TQue<VecIn, BUFFER_NUM>,
    queue_max: TQue<VecOut, 1>,
    queue_sum: TQue<VecOut, 1>,
    x_gm: GlobalTensor<f32>,
    max_gm: GlobalTensor<f32>,
    sum_gm: GlobalTensor<f32>,
    y_gm: GlobalTensor<f32>,
    block_length: usize,
    used_num_blocks: u32,
    ms_length: usize,
    column_length: u32,
    core_row_num: u32,
    tile_length: usize,
    ms_tile_length: usize,
    shared_tmp_buffer_size: usize,
    single_loop_core_row_num: u32,
    single_core_loop_count: u32,
    left_row: u32,
    tail_core_single_loop_core_row_num: u32,
    tail_core_single_core_loop_count: u32,
    tail_core_single_core_loop_tail: u32,
    softmax_tiling: SoftMaxTiling,
}

impl KernelSoftmax {
    fn init_tiling(&mut self, t: &VecTiling) {
        self.shared_tmp_buffer_size = t.shared_tmp_buffer_size as usize;
        self.column_length = t.column_length;
        self.used_num_blocks = t.used_num_blocks;
        self.core_row_num = t.core_row_num;
        self.softmax_tiling = t.softmax_tiling_data;
        self.single_loop_core_row_num = t.single_loop_core_row_num;
        self.single_core_loop_count = t.single_core_loop_count;
        self.left_row = t.single_core_loop_tail;
        self.tail_core_single_loop_core_row_num = t.tail_core_single_loop_core_row_num;
        self.tail_core_single_core_loop_count = t.tail_core_single_core_loop_count;
        self.tail_core_single_core_loop_tail = t.tail_core_single_core_loop_tail;
    }

    fn init(
        &mut self,
        x: GmAddr,
        max: GmAddr,
        sum: GmAddr,
        y: GmAddr,
        tiling_data: &VecTiling,
        pipe: &mut TPipe,
    ) {
        assert!(get_block_num() != 0, "block dim can not be zero!");
        self.init_tiling(tiling_data);
        // The tail core (the last one) takes its own loop parameters.
        if get_block_idx() == self.used_num_blocks {
            self.single_loop_core_row_num = self.tail_core_single_loop_core_row_num;
            self.single_core_loop_count = self.tail_core_single_core_loop_count;
            self.left_row = self.tail_core_single_core_loop_tail;
        }
        self.block_length = (self.core_row_num * self.column_length) as usize;
        self.ms_length = self.core_row_num as usize * FLOAT_NUM_OF_SINGLE_BLOCK;
        let offset1 = self.block_length * get_block_idx() as usize;
        let offset2 = self.ms_length * get_block_idx() as usize;
        self.x_gm.set_global_buffer(x.add::<f32>(offset1), self.block_length);
        self.y_gm.set_global_buffer(y.add::<f32>(offset1), self.block_length);
        self.max_gm.set_global_buffer(max.add::<f32>(offset2), self.ms_length);
        self.sum_gm.set_global_buffer(sum.add::<f32>(offset2), self.ms_length);
        self.tile_length = (self.single_loop_core_row_num * self.column_length) as usize;
        pipe.init_buffer(&mut self.queue_x, BUFFER_NUM, self.tile_length * 4);
        self.ms_tile_length = self.single_loop_core_row_num as usize * FLOAT_NUM_OF_SINGLE_BLOCK;
        pipe.init_buffer(&mut self.queue_max, 1, self.ms_tile_length * 4);
        pipe.init_buffer(&mut self.queue_sum, 1, self.ms_tile_length * 4);
        pipe.init_tbuf(&mut self.shared_tmp_buffer, self.shared_tmp_buffer_size);
    }

    fn process(&mut self) {
        // Cores beyond the ones used return at once.
        if get_block_idx() > self.used_num_blocks {
            return;
        }
        for i in 0..self.single_core_loop_count as usize {
            self.copy_in(i, self.single_loop_core_row_num);
            self.compute(i, self.single_loop_core_row_num);
            self.copy_out(i, self.single_loop_core_row_num);
        }
        if self.left_row > 0 {
            let progress = self.single_core_loop_count as usize;
            self.copy_in(progress, self.left_row);
            self.compute(progress, self.left_row);
            self.copy_out(progress, self.left_row);
        }
    }

    fn copy_in(&mut self, progress: usize, row_num: u32) {
        let x_local = self.queue_x.alloc_tensor::<f32>();
        data_copy(
            &x_local,
            &self.x_gm.view(progress * self.tile_length),
            (row_num * self.column_length) as usize,
        );
        self.queue_x.enque(x_local);
    }

    fn compute(&mut self, _progress: usize, row_num: u32) {
        let x_local = self.queue_x.deque::<f32>();
        let max_local = self.queue_max.alloc_tensor::<f32>();
        let sum_local = self.queue_sum.alloc_tensor::<f32>();
        let tmp_buffer = self.shared_tmp_buffer.get::<u8>();
        let src_shape = SoftMaxShapeInfo::new(row_num, self.column_length, row_num, self.column_length);
        // The basic-block version when the shape allows it (not reached by 32 columns).
        if row_num % BASIC_BLOCK_ROW_FACTOR == 0
            && self.column_length % BASIC_BLOCK_COLUMN_FACTOR == 0
            && self.column_length < BASIC_BLOCK_MAX_COLUMN_LENGTH
        {
            soft_max_with_sum_max::<f32, f32, false, true>(
                &x_local,
                &sum_local,
                &max_local,
                &x_local,
                &tmp_buffer,
                &self.softmax_tiling,
                &src_shape,
            );
        } else {
            soft_max_with_sum_max::<f32, f32, false, false>(
                &x_local,
                &sum_local,
                &max_local,
                &x_local,
                &tmp_buffer,
                &self.softmax_tiling,
                &src_shape,
            );
        }
        // Rows whose maximum is -FLT_MAX are set to ADJUST_TO.
        adjust_soft_max_res::<f32, f32, 0>(&x_local, &max_local, ADJUST_FROM, ADJUST_TO, &src_shape);
        self.queue_x.enque(x_local);
        self.queue_max.enque(max_local);
        self.queue_sum.enque(sum_local);
    }

    fn copy_out(&mut self, progress: usize, row_num: u32) {
        let y_local = self.queue_x.deque::<f32>();
        let max_local = self.queue_max.deque::<f32>();
        let sum_local = self.queue_sum.deque::<f32>();
        data_copy(
            &self.y_gm.view(progress * self.tile_length),
            &y_local,
            (row_num * self.column_length) as usize,
        );
        let ms = row_num as usize * FLOAT_NUM_OF_SINGLE_BLOCK;
        data_copy(&self.max_gm.view(progress * self.ms_tile_length), &max_local, ms);
        data_copy(&self.sum_gm.view(progress * self.ms_tile_length), &sum_local, ms);
        self.queue_x.free_tensor(y_local);
        self.queue_max.free_tensor(max_local);
        self.queue_sum.free_tensor(sum_local);
    }
}

/// `softmax_custom(x, max, sum, y, workspace, tiling)`: `CopyTiling` from GM, then the kernel.
fn softmax_custom(x: GmAddr, max: GmAddr, sum: GmAddr, y: GmAddr, _workspace: GmAddr, tiling: GmAddr) {
    let mut pipe = TPipe::new();
    let tiling_data: VecTiling = get_tiling_data(tiling);
    let mut op = KernelSoftmax::default();
    op.init(x, max, sum, y, &tiling_data, &mut pipe);
    op.process();
}

const ROW_NUM: usize = 32;
const COLUMN_NUM: usize = 32;
const USED_CORE_NUM: u32 = 1;
const WORKSPACE_SIZE: usize = 1024;
const TILINGDATA_SIZE: usize = 28;

/// The 64-lane binary tree of `WholeReduceSum` (disabled lanes 0).
pub(super) fn tree64(vals: &[f32]) -> f32 {
    let mut t = [0f32; 64];
    t[..vals.len()].copy_from_slice(vals);
    let mut n = 64;
    while n > 1 {
        for i in 0..n / 2 {
            t[i] = t[2 * i] + t[2 * i + 1];
        }
        n /= 2;
    }
    t[0]
}

/// The host side for `[ROW_NUM, col_num]`: tiling, launch, and the output, max and sum.
fn run(col_num: usize, x: &[f32]) -> (VecTiling, Vec<f32>, Vec<f32>, Vec<f32>) {
    let tiling = compute_tiling(ROW_NUM as u32, col_num as u32, USED_CORE_NUM);
    let xg = GmBuffer::from_slice(x);
    let (yg, maxg, sumg) = (
        GmBuffer::<f32>::zeroed(ROW_NUM * col_num),
        GmBuffer::<f32>::zeroed(ROW_NUM * 8),
        GmBuffer::<f32>::zeroed(ROW_NUM * 8),
    );
    let workspace = GmBuffer::<u32>::zeroed(WORKSPACE_SIZE);
    let tiling_gm = GmBuffer::from_slice(bytemuck::cast_slice::<VecTiling, u32>(&[tiling]));
    let (xa, ya, ma, sa, wa, ta) =
        (xg.addr(), yg.addr(), maxg.addr(), sumg.addr(), workspace.addr(), tiling_gm.addr());
    Launch::new(Soc::Ascend910B)
        .block_dim(USED_CORE_NUM)
        .run(|| softmax_custom(xa, ma, sa, ya, wa, ta))
        .unwrap();
    (tiling, yg.to_vec(), maxg.to_vec(), sumg.to_vec())
}

/// The vendor's steps row by row (the row sum of `k <= 64` values by the 64-lane tree), and the
/// example's golden (numpy's softmax in float32; no row has max -FLT_MAX), compared with the
/// kernel's outputs.
fn check(col_num: usize, x: &[f32], y: &[f32], max: &[f32], sum: &[f32]) {
    let (mut want, mut want_max, mut want_sum, mut golden) = (vec![], vec![], vec![], vec![]);
    for row in x.chunks(col_num) {
        let m = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let e: Vec<f32> = row.iter().map(|&v| f64::from(v - m).exp() as f32).collect();
        let s = tree64(&e);
        let adjust = m.to_bits() == ADJUST_FROM;
        want.extend(e.iter().map(|&v| if adjust { ADJUST_TO } else { v / s }));
        want_max.extend([m; 8]);
        want_sum.extend([s; 8]);
        let numpy_sum: f32 = e.iter().sum();
        golden.extend(e.iter().map(|&v| f64::from(v / numpy_sum)));
    }
    assert_bits_eq(y, &want);
    assert_bits_eq(max, &want_max);
    assert_bits_eq(sum, &want_sum);
    compare_result(y, &golden);
}

#[test]
fn softmax_example() {
    assert_eq!(size_of::<VecTiling>(), TILINGDATA_SIZE * 4);
    // gen_data.py: x = uniform(-1, 1, [32, 32]).
    let x: Vec<f32> = random_vec(ROW_NUM * COLUMN_NUM, 2201, -1.0, 1.0);
    let (tiling, y, max, sum) = run(COLUMN_NUM, &x);
    assert_eq!(tiling.shared_tmp_buffer_size, 416);
    let loops =
        (tiling.single_loop_core_row_num, tiling.single_core_loop_count, tiling.single_core_loop_tail);
    assert_eq!(loops, (64, 0, 32));
    assert_eq!((tiling.softmax_tiling_data.src_m, tiling.softmax_tiling_data.split_m), (64, 1));
    check(COLUMN_NUM, &x, &y, &max, &sum);
}

// Not the example's shape: [32, 64] takes the kernel's basic-block branch (SoftMax<float,
// false, true>), with the tiling recomputed in the kernel for 32 rows (one row per round).
#[test]
fn softmax_example_basic_block_branch() {
    let x: Vec<f32> = random_vec(ROW_NUM * 64, 2202, -1.0, 1.0);
    let (tiling, y, max, sum) = run(64, &x);
    assert_eq!(tiling.shared_tmp_buffer_size, (8 + 64 + 64) * 4);
    check(64, &x, &y, &max, &sum);
}
