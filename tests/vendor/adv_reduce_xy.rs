//! Port of the vendor's advanced `ReduceMax` example (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/04_advanced_api/04_reduce/reducemax/reducemax.asc`):
//! `ReduceMax<float, Pattern::Reduce::RA, true>` (the stack form) of a 32 x 136 source, each
//! column's maximum, on Ascend910B (the only chip its library implements `ReduceMax` for), with
//! the example's configuration (`SRC_INNER_PAD = 0`: the whole source copied in one block;
//! `PATTERN = 1`; `IS_REUSE_SOURCE = 1`). Extra scenarios run the same kernel with `PATTERN = 0`
//! (`AR`: 136 rows of 32) and with `IS_REUSE_SOURCE = 0` (the `sharedTmpBuffer` form, its
//! `TQue` sized by the tiling).
//!
//! Host: the example's `ComputeTiling` calls `GetReduceMaxMaxMinTmpSize` with
//! `isSrcInnerPad = srcInnerPad = false`, which Ascend910B's host library rejects
//! (`ASCENDC_HOST_ASSERT` logs "isSrcInnerPad must be true on this platform" and returns, the
//! sizes left unset); the reuse kernel never reads the size. The port keeps the call only where
//! it succeeds: with `SRC_INNER_PAD = 0` it asks with `isSrcInnerPad = true` (the rows of 32
//! and 136 floats are 32-byte multiples, so both layouts are one), and the example's
//! configuration takes the size but does not use it. The example's padded copies
//! (`SRC_INNER_PAD = 1`) are ported but not run: their `srcStride` skips a row per row and, for
//! `RA`, the default `DataCopyExtParams` copies nothing (the example never takes that path).
//!
//! Each launch keeps the sanitizer on and must pass; the output is compared bit for bit with
//! gen_data.py's golden (`np.max` along the reduced axis; a maximum is exact) and with
//! `compare_result`. The inputs are the example's distribution (`uniform(-10, 10)`) from a
//! seeded generator, not numpy's draws.

use std::mem::size_of;

use ascend_kernels::data::random_vec;
use ascend_runtime::prelude::*;
use ascend_runtime::testing::assert_bits_eq;

use crate::compare_result;

/// The example's `ReduceCustomTilingData`.
#[derive(Clone, Copy, Debug)]
struct ReduceCustomTilingData {
    a_length: u32,
    r_length: u32,
    x_extent: u32,
    y_extent: u32,
    src_inner_pad: u32,
    pattern: u32,
    is_reuse_source: u32,
    shared_tmp_buffer_size: u32,
}

fn compute_tiling(
    a_length: u32,
    r_length: u32,
    x_extent: u32,
    y_extent: u32,
    src_inner_pad: u32,
    pattern: u32,
    is_reuse_source: u32,
) -> ReduceCustomTilingData {
    let src_shape = [a_length as usize, r_length as usize];
    let data_type = DType::F32;
    let reduce_pattern = if pattern == 0 { ReducePattern::AR } else { ReducePattern::RA };
    // The example passes srcInnerPad == 1 (false here); Ascend910B's helper accepts true only (see
    // the module's notes).
    let is_src_inner_pad = true;
    let is_reuse = is_reuse_source == 1;
    let (_max_tmp_size, min_tmp_size) =
        get_reduce_max_max_min_tmp_size(&src_shape, data_type, reduce_pattern, is_src_inner_pad, is_reuse);
    ReduceCustomTilingData {
        a_length,
        r_length,
        x_extent,
        y_extent,
        src_inner_pad,
        pattern,
        is_reuse_source,
        shared_tmp_buffer_size: min_tmp_size as u32,
    }
}

const BUFFER_NUM: usize = 1;

/// `Align32B<Type>()`: `extent` elements of `T` rounded up to 32 bytes.
fn align_32b<T: Element>(extent: u32) -> u32 {
    let align_size = 32 / size_of::<T>() as u32;
    extent.div_ceil(align_size) * align_size
}

struct KernelReduceMax<const PATTERN: u32, const IS_REUSE_SOURCE: u32> {
    in_queue_x: TQue<VecIn, 1>,
    tmp_queue: TQue<VecOut, 1>,
    out_queue_y: TQue<VecOut, 1>,
    x_gm: GlobalTensor<f32>,
    y_gm: GlobalTensor<f32>,
    x_extent: u32,
    y_extent: u32,
    a_length: u32,
    r_length: u32,
    a_length_align: u32,
    r_length_align: u32,
    src_inner_pad: bool,
}

impl<const PATTERN: u32, const IS_REUSE_SOURCE: u32> KernelReduceMax<PATTERN, IS_REUSE_SOURCE> {
    #[allow(clippy::too_many_arguments)]
    fn init(
        x: GmAddr,
        y: GmAddr,
        (x_extent, y_extent): (u32, u32),
        a_length: u32,
        r_length: u32,
        src_inner_pad: u32,
        shared_tmp_buffer_size: u32,
        pipe: &mut TPipe,
    ) -> Self {
        let mut op = KernelReduceMax {
            in_queue_x: TQue::new(),
            tmp_queue: TQue::new(),
            out_queue_y: TQue::new(),
            x_gm: GlobalTensor::new(),
            y_gm: GlobalTensor::new(),
            x_extent,
            y_extent,
            a_length: 0,
            r_length: 0,
            a_length_align: 0,
            r_length_align: 0,
            src_inner_pad: false,
        };
        op.x_gm.set_global_buffer(x, x_extent as usize);
        op.y_gm.set_global_buffer(y, y_extent as usize);
        pipe.init_buffer(
            &mut op.in_queue_x,
            BUFFER_NUM,
            align_32b::<f32>(x_extent) as usize * size_of::<f32>(),
        );
        pipe.init_buffer(
            &mut op.out_queue_y,
            BUFFER_NUM,
            align_32b::<f32>(y_extent) as usize * size_of::<f32>(),
        );
        if IS_REUSE_SOURCE == 0 {
            pipe.init_buffer(&mut op.tmp_queue, BUFFER_NUM, shared_tmp_buffer_size as usize);
        }
        let align_size = 32 / size_of::<f32>() as u32;
        op.a_length = a_length;
        op.r_length = r_length;
        op.a_length_align = a_length.div_ceil(align_size) * align_size;
        op.r_length_align = r_length.div_ceil(align_size) * align_size;
        op.src_inner_pad = src_inner_pad == 1;
        op
    }

    fn compute(&mut self) {
        let x_local = self.in_queue_x.deque::<f32>();
        let y_local = self.out_queue_y.alloc_tensor::<f32>();
        let is_reuse = IS_REUSE_SOURCE == 1;
        if PATTERN == 0 {
            let src_shape = [self.a_length, self.r_length];
            if is_reuse {
                reduce_max_adv_stack::<f32, pattern::AR, true>(&y_local, &x_local, &src_shape, true);
            } else {
                let shared_tmp_buffer = self.tmp_queue.alloc_tensor::<u8>();
                reduce_max_adv::<f32, pattern::AR, false>(
                    &y_local,
                    &x_local,
                    &shared_tmp_buffer,
                    &src_shape,
                    true,
                );
                self.tmp_queue.free_tensor(shared_tmp_buffer);
            }
        } else if PATTERN == 1 {
            let src_shape = [self.r_length, self.a_length];
            if is_reuse {
                reduce_max_adv_stack::<f32, pattern::RA, true>(&y_local, &x_local, &src_shape, true);
            } else {
                let shared_tmp_buffer = self.tmp_queue.alloc_tensor::<u8>();
                reduce_max_adv::<f32, pattern::RA, false>(
                    &y_local,
                    &x_local,
                    &shared_tmp_buffer,
                    &src_shape,
                    true,
                );
                self.tmp_queue.free_tensor(shared_tmp_buffer);
            }
        }
        self.out_queue_y.enque(y_local);
        self.in_queue_x.free_tensor(x_local);
    }

    fn process(&mut self) {
        self.copy_in();
        self.compute();
        self.copy_out();
    }

    fn copy_in(&mut self) {
        let x_local = self.in_queue_x.alloc_tensor::<f32>();
        let mut pad_params = DataCopyPadExtParams::<f32>::default();
        let mut copy_params = DataCopyExtParams::default();
        if !self.src_inner_pad {
            copy_params.block_count = 1;
            copy_params.block_len = self.x_extent * size_of::<f32>() as u32;
            copy_params.src_stride = 0;
            copy_params.dst_stride = 0;
            pad_params.is_pad = false;
            pad_params.left_padding = 0;
            pad_params.right_padding = 0;
            pad_params.padding_value = 0.0;
            data_copy_pad(&x_local, &self.x_gm, &copy_params, &pad_params);
        } else {
            pad_params.is_pad = true;
            pad_params.left_padding = 0;
            pad_params.padding_value = 0.0;
            if PATTERN == 0 {
                copy_params.block_count = self.a_length as u16;
                copy_params.block_len = self.r_length * size_of::<f32>() as u32;
                copy_params.src_stride = self.r_length * size_of::<f32>() as u32;
                copy_params.dst_stride = self.r_length_align * size_of::<f32>() as u32 / 32;
                pad_params.right_padding = (self.r_length_align - self.r_length) as u8;
            } else {
                pad_params.right_padding = (self.a_length_align - self.a_length) as u8;
            }
            data_copy_pad(&x_local, &self.x_gm, &copy_params, &pad_params);
        }
        self.in_queue_x.enque(x_local);
    }

    fn copy_out(&mut self) {
        let y_local = self.out_queue_y.deque::<f32>();
        let mut copy_params = DataCopyExtParams::default();
        if !self.src_inner_pad {
            copy_params.block_count = 1;
            copy_params.block_len = self.y_extent * size_of::<f32>() as u32;
            copy_params.src_stride = 0;
            copy_params.dst_stride = 0;
            data_copy_pad_to_gm(&self.y_gm, &y_local, &copy_params);
        } else {
            copy_params.block_count = self.a_length as u16;
            copy_params.block_len = self.r_length * size_of::<f32>() as u32;
            copy_params.src_stride = self.r_length * size_of::<f32>() as u32;
            copy_params.dst_stride = self.r_length_align * size_of::<f32>() as u32 / 32;
            data_copy_pad_to_gm(&self.y_gm, &y_local, &copy_params);
        }
        self.out_queue_y.free_tensor(y_local);
    }
}

/// `reduce_custom` with `KernelReduceMax<xType, yType, PATTERN, IS_REUSE_SOURCE>`.
fn reduce_custom<const PATTERN: u32, const IS_REUSE_SOURCE: u32>(
    src_gm: GmAddr,
    dst_gm: GmAddr,
    tiling_data: ReduceCustomTilingData,
) {
    let mut pipe = TPipe::new();
    let mut op = KernelReduceMax::<PATTERN, IS_REUSE_SOURCE>::init(
        src_gm,
        dst_gm,
        (tiling_data.x_extent, tiling_data.y_extent),
        tiling_data.a_length,
        tiling_data.r_length,
        tiling_data.src_inner_pad,
        tiling_data.shared_tmp_buffer_size,
        &mut pipe,
    );
    op.process();
}

const A_LENGTH: u32 = 136;
const R_LENGTH: u32 = 32;
const X_EXTENT: u32 = 4352;
const Y_EXTENT: u32 = 136;
const SRC_INNER_PAD: u32 = 0;

/// One run: the source `[rows, cols]` of uniform(-10, 10), the output against the maximum of
/// each column (`RA`) or row (`AR`).
fn run_example<const PATTERN: u32, const IS_REUSE_SOURCE: u32>(seed: u64) {
    let tiling =
        compute_tiling(A_LENGTH, R_LENGTH, X_EXTENT, Y_EXTENT, SRC_INNER_PAD, PATTERN, IS_REUSE_SOURCE);
    assert_eq!((tiling.pattern, tiling.is_reuse_source), (PATTERN, IS_REUSE_SOURCE));
    let x: Vec<f32> = random_vec(X_EXTENT as usize, seed, -10.0, 10.0);
    let (a, r) = (A_LENGTH as usize, R_LENGTH as usize);
    let golden: Vec<f32> = if PATTERN == 1 {
        // x is [rLength, aLength]; np.max(x, axis=0).
        (0..a).map(|j| (0..r).map(|i| x[i * a + j]).fold(f32::NEG_INFINITY, f32::max)).collect()
    } else {
        // x is [aLength, rLength]; np.max(x, axis=1).
        (0..a).map(|i| x[i * r..(i + 1) * r].iter().copied().fold(f32::NEG_INFINITY, f32::max)).collect()
    };
    let xg = GmBuffer::from_vec(x);
    let yg = GmBuffer::<f32>::zeroed(Y_EXTENT as usize);
    Launch::new(Soc::Ascend910B)
        .block_dim(1)
        .run(|| reduce_custom::<PATTERN, IS_REUSE_SOURCE>(xg.addr(), yg.addr(), tiling))
        .unwrap();
    let y = yg.to_vec();
    assert_bits_eq(&y, &golden);
    compare_result(&y, &golden.iter().map(|&g| f64::from(g)).collect::<Vec<_>>());
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/04_advanced_api/04_reduce/reducemax/reducemax.asc:
// ReduceMax<float, RA, true> of [32, 136] (the stack form), SRC_INNER_PAD = 0.
#[test]
fn adv_reducemax_example() {
    run_example::<1, 1>(20250101);
}

// The same kernel with the sharedTmpBuffer form (IS_REUSE_SOURCE = 0), and with PATTERN = 0
// (AR: 136 rows of 32), both forms.
#[test]
fn adv_reducemax_example_other_configurations() {
    run_example::<1, 0>(20250102);
    run_example::<0, 1>(20250103);
    run_example::<0, 0>(20250104);
}
