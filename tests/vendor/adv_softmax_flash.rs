//! Line-by-line port of the vendor's advanced-API `SoftmaxFlashV2` example (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/04_advanced_api/01_activation/softmaxflashv2/softmaxflashv2.asc`,
//! `dav-2201` = Ascend910B): `[960, 960]` floats drawn from `uniform(-1, 1)` on 40 cores (24 rows
//! each); the host's `ComputeTiling` (960 columns: K split in chunks of 512 and a tail of 448, 16
//! rows per loop; `GetSoftMaxFlashV2MinTmpSize([16, 512], 4, 4, true, true)` = 2304 bytes and
//! `SoftMaxFlashV2TilingFunc` for that shape with the basic block) written to GM and read back by
//! the kernel (`CopyTiling`); per group of rows, the first K chunk calls `SoftmaxFlashV2<float,
//! false, true, true>` and the next one `SoftmaxFlashV2<float, true, true, true>` (the basic block:
//! rows a multiple of 8, columns a multiple of 64 below 2048), the running max/sum aliased as
//! their own inputs, in place; the shapes other than the tiling's (`[8, 512]`, `[16, 448]`,
//! `[8, 448]`) make the kernel recompute the tiling. The max/sum go to GM.
//!
//! The launch keeps the sanitizer on. `max`/`sum` (8 copies per row) are compared bit for bit
//! with the scalar reference of the vendor's steps (the 512-column chunk's sum by block sums of 8
//! and their 64-lane tree, the 448-column chunk's by 64-lane groups added in order and the tree;
//! `expMax * inSum + sum` in `float`), and with the example's numpy golden within its tolerance
//! (absolute or relative error at most 1e-5).

use ascend_kernels::data::random_vec;
use ascend_runtime::prelude::*;
use ascend_runtime::testing::assert_bits_eq;
use bytemuck::{Pod, Zeroable};

use crate::adv_softmax::{tree64, SingleCoreLoopParam};

/// `SoftmaxflashCustomTilingData`: 15 `uint32_t`s and the `SoftMaxTiling`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
struct FlashTiling {
    column_length: u32,
    row_length: u32,
    shared_tmp_buffer_size: u32,
    used_num_blocks: u32,
    core_row_num: u32,
    tail_core_row_num: u32,
    single_loop_core_row_num: u32,
    single_core_loop_count: u32,
    single_core_loop_tail: u32,
    tail_core_single_loop_core_row_num: u32,
    tail_core_single_core_loop_count: u32,
    tail_core_single_core_loop_tail: u32,
    split_k: u32,
    loop_k: u32,
    tail_k: u32,
    softmax_tiling_data: SoftMaxTiling,
}

/// `SoftmaxflashCustomTiling::SingleCoreLoopParam`: the rows per loop and the K split.
#[derive(Clone, Copy, Default)]
struct FlashLoopParam {
    rows: SingleCoreLoopParam,
    split_k: u32,
    loop_k: u32,
    tail_k: u32,
}

/// `GetSingleCoreLoopParam`: (column threshold, K chunk, rows per loop); below 128 columns one
/// chunk of all columns and 64 rows.
const SLICES: [(u32, u32, u32); 3] = [(1024, 1024, 8), (512, 512, 16), (128, 128, 32)];

fn get_single_core_loop_param(col_num: u32, core_row_num: u32) -> FlashLoopParam {
    let (split_k, rows) = SLICES.iter().find(|s| col_num >= s.0).map_or((col_num, 64), |s| (s.1, s.2));
    FlashLoopParam {
        rows: SingleCoreLoopParam {
            single_loop_core_row_num: rows,
            single_core_loop_count: core_row_num / rows,
            single_core_loop_tail: core_row_num % rows,
        },
        split_k,
        loop_k: col_num / split_k,
        tail_k: col_num % split_k,
    }
}

/// `SoftmaxflashCustomTiling::ComputeTiling`.
fn compute_tiling(row_num: u32, col_num: u32, core_num: u32) -> FlashTiling {
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
    let shape = [main.rows.single_loop_core_row_num, main.split_k];
    let basic = main.rows.single_loop_core_row_num % 8 == 0 && main.split_k % 64 == 0;
    let size = get_soft_max_flash_v2_min_tmp_size(&shape, 4, 4, true, basic, false);
    FlashTiling {
        column_length: col_num,
        row_length: row_num,
        shared_tmp_buffer_size: size,
        used_num_blocks,
        core_row_num,
        tail_core_row_num,
        single_loop_core_row_num: main.rows.single_loop_core_row_num,
        single_core_loop_count: main.rows.single_core_loop_count,
        single_core_loop_tail: main.rows.single_core_loop_tail,
        tail_core_single_loop_core_row_num: tail.rows.single_loop_core_row_num,
        tail_core_single_core_loop_count: tail.rows.single_core_loop_count,
        tail_core_single_core_loop_tail: tail.rows.single_core_loop_tail,
        split_k: main.split_k,
        loop_k: main.loop_k,
        tail_k: main.tail_k,
        softmax_tiling_data: soft_max_flash_v2_tiling_func(&shape, 4, 4, size, true, basic, false),
    }
}

const BUFFER_NUM: usize = 2;
const FLOAT_NUM_OF_SINGLE_BLOCK: usize = 8;
const BASIC_BLOCK_ROW_FACTOR: u32 = 8;
const BASIC_BLOCK_COLUMN_FACTOR: u32 = 64;
const BASIC_BLOCK_MAX_COLUMN_LENGTH: u32 = 2048;

/// `MyCustomKernel::KernelSoftmax`.
#[derive(Default)]
struct KernelSoftmax {
    shared_tmp_buffer: TBuf<VecCalc>,
    queue_x: TQue<VecIn, BUFFER_NUM>,
    tbuf_max: TBuf<VecCalc>,
    tbuf_sum: TBuf<VecCalc>,
    tbuf_expmax: TBuf<VecCalc>,
    x_gm: GlobalTensor<f32>,
    max_gm: GlobalTensor<f32>,
    sum_gm: GlobalTensor<f32>,
    t: FlashTiling,
    ms_tile_length: usize,
    single_loop_core_row_num: u32,
    single_core_loop_count: u32,
    left_row: u32,
}

impl KernelSoftmax {
    fn init(&mut self, x: GmAddr, max: GmAddr, sum: GmAddr, tiling_data: &FlashTiling, pipe: &mut TPipe) {
        assert!(get_block_num() != 0, "block dim can not be zero!");
        self.t = *tiling_data;
        self.single_loop_core_row_num = self.t.single_loop_core_row_num;
        self.single_core_loop_count = self.t.single_core_loop_count;
        self.left_row = self.t.single_core_loop_tail;
        // The tail core (the last one) takes its own loop parameters.
        if get_block_idx() == self.t.used_num_blocks {
            self.single_loop_core_row_num = self.t.tail_core_single_loop_core_row_num;
            self.single_core_loop_count = self.t.tail_core_single_core_loop_count;
            self.left_row = self.t.tail_core_single_core_loop_tail;
        }
        let block_length = (self.t.core_row_num * self.t.column_length) as usize;
        let ms_length = self.t.core_row_num as usize * FLOAT_NUM_OF_SINGLE_BLOCK;
        let offset1 = block_length * get_block_idx() as usize;
        let offset2 = ms_length * get_block_idx() as usize;
        self.x_gm.set_global_buffer(x.add::<f32>(offset1), block_length);
        self.max_gm.set_global_buffer(max.add::<f32>(offset2), ms_length);
        self.sum_gm.set_global_buffer(sum.add::<f32>(offset2), ms_length);
        let tile_length = (self.single_loop_core_row_num * self.t.split_k) as usize;
        pipe.init_buffer(&mut self.queue_x, BUFFER_NUM, tile_length * 4);
        self.ms_tile_length = self.single_loop_core_row_num as usize * FLOAT_NUM_OF_SINGLE_BLOCK;
        pipe.init_tbuf(&mut self.tbuf_max, self.ms_tile_length * 4);
        pipe.init_tbuf(&mut self.tbuf_sum, self.ms_tile_length * 4);
        pipe.init_tbuf(&mut self.tbuf_expmax, self.ms_tile_length * 4);
        pipe.init_tbuf(&mut self.shared_tmp_buffer, self.t.shared_tmp_buffer_size as usize);
    }

    /// `Process()`; `pipe` stands for `GetTPipePtr()`.
    fn process(&mut self, pipe: &TPipe) {
        // Cores beyond the ones used return at once.
        if get_block_idx() > self.t.used_num_blocks {
            return;
        }
        let (rows, split_k, loop_k, tail_k) =
            (self.single_loop_core_row_num, self.t.split_k, self.t.loop_k, self.t.tail_k);
        for i in 0..self.single_core_loop_count {
            for j in 0..loop_k {
                self.copy_in(i, j, rows, split_k);
                self.compute(j, rows, split_k);
            }
            // The K tail.
            if tail_k > 0 {
                self.copy_in(i, loop_k, rows, tail_k);
                self.compute(loop_k, rows, tail_k);
            }
            // Wait for the vector unit, then copy max/sum to GM.
            let e = pipe.fetch_event_id::<HardEvent::V_MTE3>();
            set_flag::<HardEvent::V_MTE3>(e);
            wait_flag::<HardEvent::V_MTE3>(e);
            self.copy_out(i as usize, self.ms_tile_length);
        }
        let e = pipe.fetch_event_id::<HardEvent::MTE3_V>();
        set_flag::<HardEvent::MTE3_V>(e);
        wait_flag::<HardEvent::MTE3_V>(e);
        // The M tail.
        if self.left_row > 0 {
            let (i, left) = (self.single_core_loop_count, self.left_row);
            for j in 0..loop_k {
                self.copy_in(i, j, left, split_k);
                self.compute(j, left, split_k);
            }
            if tail_k > 0 {
                self.copy_in(i, loop_k, left, tail_k);
                self.compute(loop_k, left, tail_k);
            }
            let e = pipe.fetch_event_id::<HardEvent::V_MTE3>();
            set_flag::<HardEvent::V_MTE3>(e);
            wait_flag::<HardEvent::V_MTE3>(e);
            self.copy_out(i as usize, left as usize * FLOAT_NUM_OF_SINGLE_BLOCK);
        }
    }

    fn copy_in(&mut self, row_index: u32, k_index: u32, row_num: u32, column_num: u32) {
        let x_local = self.queue_x.alloc_tensor::<f32>();
        let offset = (self.single_loop_core_row_num * self.t.column_length) as usize;
        for i in 0..row_num as usize {
            let g = row_index as usize * offset
                + i * self.t.column_length as usize
                + (k_index * self.t.split_k) as usize;
            data_copy(&x_local.view(i * column_num as usize), &self.x_gm.view(g), column_num as usize);
        }
        self.queue_x.enque(x_local);
    }

    fn compute(&mut self, column_index: u32, row_num: u32, column_num: u32) {
        let x_local = self.queue_x.deque::<f32>();
        let tmp_buffer = self.shared_tmp_buffer.get::<u8>();
        let src_shape = SoftMaxShapeInfo::new(row_num, column_num, row_num, column_num);
        let enable_basic_block = row_num % BASIC_BLOCK_ROW_FACTOR == 0
            && column_num % BASIC_BLOCK_COLUMN_FACTOR == 0
            && column_num < BASIC_BLOCK_MAX_COLUMN_LENGTH;
        // maxLocal / sumLocal / expmaxLocal: the TBufs' tensors (`Get<float>()` in `Init`).
        let (sum_local, max_local, expmax_local) =
            (self.tbuf_sum.get::<f32>(), self.tbuf_max.get::<f32>(), self.tbuf_expmax.get::<f32>());
        let (s, m, e, t) = (&sum_local, &max_local, &expmax_local, &self.t.softmax_tiling_data);
        match (column_index == 0, enable_basic_block) {
            // isUpdate = false: the first chunk of the rows.
            (true, true) => softmax_flash_v2::<f32, f32, false, true, true>(
                &x_local,
                s,
                m,
                &x_local,
                e,
                s,
                m,
                &tmp_buffer,
                t,
                &src_shape,
            ),
            (true, false) => softmax_flash_v2::<f32, f32, false, true, false>(
                &x_local,
                s,
                m,
                &x_local,
                e,
                s,
                m,
                &tmp_buffer,
                t,
                &src_shape,
            ),
            // isUpdate = true: the running max/sum updated.
            (false, true) => softmax_flash_v2::<f32, f32, true, true, true>(
                &x_local,
                s,
                m,
                &x_local,
                e,
                s,
                m,
                &tmp_buffer,
                t,
                &src_shape,
            ),
            (false, false) => softmax_flash_v2::<f32, f32, true, true, false>(
                &x_local,
                s,
                m,
                &x_local,
                e,
                s,
                m,
                &tmp_buffer,
                t,
                &src_shape,
            ),
        }
        self.queue_x.free_tensor(x_local);
    }

    fn copy_out(&mut self, progress: usize, count: usize) {
        data_copy(&self.max_gm.view(progress * self.ms_tile_length), &self.tbuf_max.get::<f32>(), count);
        data_copy(&self.sum_gm.view(progress * self.ms_tile_length), &self.tbuf_sum.get::<f32>(), count);
    }
}

/// `softmaxflashv2_custom(x, max, sum, workspace, tiling)`: `CopyTiling` from GM, then the kernel.
fn softmaxflashv2_custom(x: GmAddr, max: GmAddr, sum: GmAddr, _workspace: GmAddr, tiling: GmAddr) {
    let mut pipe = TPipe::new();
    let tiling_data: FlashTiling = get_tiling_data(tiling);
    let mut op = KernelSoftmax::default();
    op.init(x, max, sum, &tiling_data, &mut pipe);
    op.process(&pipe);
}

const ROW_NUM: usize = 960;
const COLUMN_NUM: usize = 960;
const USED_CORE_NUM: u32 = 40;
const WORKSPACE_SIZE: usize = 1024;

/// The vendor's steps for one row: the 512-column chunk (`isUpdate = false`), then the 448-column
/// one (`isUpdate = true`); `(max, sum)`.
fn reference_row(row: &[f32]) -> (f32, f32) {
    let exp_sub = |v: f32, m: f32| f64::from(v - m).exp() as f32;
    let (a, b) = row.split_at(512);
    let m0 = a.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let e0: Vec<f32> = a.iter().map(|&v| exp_sub(v, m0)).collect();
    // k = 512: block sums of 8, then their tree.
    let blocks: Vec<f32> = e0.chunks(8).map(tree64).collect();
    let s0 = tree64(&blocks);
    let m1 = m0.max(b.iter().copied().fold(f32::NEG_INFINITY, f32::max));
    let e1: Vec<f32> = b.iter().map(|&v| exp_sub(v, m1)).collect();
    // k = 448: the 64-column groups added in order (the first two together), then the tree.
    let mut acc: Vec<f32> = (0..64).map(|i| e1[i] + e1[64 + i]).collect();
    for g in e1.chunks(64).skip(2) {
        for (a, &v) in acc.iter_mut().zip(g) {
            *a += v;
        }
    }
    let em = exp_sub(m0, m1);
    (m1, em * s0 + tree64(&acc))
}

#[test]
fn softmaxflashv2_example() {
    // gen_data.py: x = uniform(-1, 1, [960, 960]).
    let x: Vec<f32> = random_vec(ROW_NUM * COLUMN_NUM, 2201, -1.0, 1.0);
    let tiling = compute_tiling(ROW_NUM as u32, COLUMN_NUM as u32, USED_CORE_NUM);
    assert_eq!(tiling.shared_tmp_buffer_size, 8 * (8 + 64) * 4);
    assert_eq!(
        (tiling.core_row_num, tiling.single_loop_core_row_num, tiling.single_core_loop_tail),
        (24, 16, 8)
    );
    assert_eq!((tiling.split_k, tiling.loop_k, tiling.tail_k), (512, 1, 448));
    assert_eq!(tiling.softmax_tiling_data.split_m, 8);
    let xg = GmBuffer::from_slice(&x);
    let (maxg, sumg) = (GmBuffer::<f32>::zeroed(ROW_NUM * 8), GmBuffer::<f32>::zeroed(ROW_NUM * 8));
    let workspace = GmBuffer::<u32>::zeroed(WORKSPACE_SIZE);
    let tiling_gm = GmBuffer::from_slice(bytemuck::cast_slice::<FlashTiling, u32>(&[tiling]));
    let (xa, ma, sa, wa, ta) = (xg.addr(), maxg.addr(), sumg.addr(), workspace.addr(), tiling_gm.addr());
    Launch::new(Soc::Ascend910B)
        .block_dim(USED_CORE_NUM)
        .run(|| softmaxflashv2_custom(xa, ma, sa, wa, ta))
        .unwrap();
    let (mut want_max, mut want_sum) = (vec![], vec![]);
    for row in x.chunks(COLUMN_NUM) {
        let (m, s) = reference_row(row);
        want_max.extend([m; 8]);
        want_sum.extend([s; 8]);
        // The example's golden (numpy in float32, compared as the example's CompareResult does).
        let nm = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let golden: f32 = row.iter().map(|&v| (v - nm).exp()).sum();
        let (ae, got) = ((s - golden).abs(), s);
        assert!(ae <= 1e-5 || ae / golden.abs() <= 1e-5, "sum {got}, golden {golden}");
        assert_eq!(m, nm);
    }
    assert_bits_eq(&maxg.to_vec(), &want_max);
    assert_bits_eq(&sumg.to_vec(), &want_sum);
}
