//! Ports of the vendor's advanced-API normalization examples (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/04_advanced_api/02_normalization/`): `rmsnorm` (`RmsNorm<float,
//! false>` of `[4, 8, 64]` with the example's own kernel-side `GetRmsNormMaxMinTmpSize` and
//! `GetRmsNormTilingInfo`, and the stack buffer cut to the size its `memMode` picks). The
//! example fixes `memMode = 3` (the whole stack buffer); the port runs every `memMode` (0: the
//! minimum, one row per round; 1: the maximum; 2: their middle; 3: the whole stack), on both
//! chips that implement `RmsNorm` (Ascend910B and Ascend310P).
//!
//! Each launch keeps the sanitizer on and must pass; the output is compared bit for bit with
//! the per-row reference of `ascend-core/tests/adv_normalization.rs` (the vendor's steps with
//! each instruction's rounding), and with the example's numpy golden (`x / sqrt(mean(x²) +
//! eps) * gamma`, here in `f64`) within the example's tolerance: the chip's `1 / sqrt` is
//! `exp(-0.5 * ln(·))`, which is not numpy's arithmetic in the last bits. The inputs are the
//! example's distribution (`uniform(-1, 1)`) from a seeded generator, not numpy's draws.
//! Not ported: `layernorm` (`LayerNorm` is not emulated yet).

use std::mem::size_of;

use ascend_kernels::data::random_vec;
use ascend_runtime::prelude::*;
use ascend_runtime::testing::assert_bits_eq;

use crate::compare_result;

// ---------------------------------------------------------------------------------------
// rmsnorm
// ---------------------------------------------------------------------------------------

const ONE_BLK_FLOAT_NUM: u32 = 8;
const FLOAT_SIZE_IN_BYTE: u32 = 4;
const HALF_SIZE_IN_BYTE: u32 = 2;
const BASIC_BLK_HLENGTH: u32 = 64;
const BASIC_BLK_BSLENGTH: u32 = 8;
const MAX_REPEAT: u32 = 255;

fn align_to_block(input_value: u32, type_size: u32) -> u32 {
    let align_unit = 32 / type_size;
    input_value.div_ceil(align_unit) * align_unit
}

fn get_rms_norm_max_tmp_size(b_length: u32, s_length: u32, h_length: u32, type_size: u32) -> u32 {
    let input_length = b_length * s_length * h_length;
    let bs_length = align_to_block(b_length * s_length, type_size);
    let mut max_size = input_length;
    if type_size == HALF_SIZE_IN_BYTE {
        const HALF_COEFF: u32 = 2;
        max_size = max_size * HALF_COEFF + bs_length;
    } else {
        max_size += bs_length;
    }
    max_size * FLOAT_SIZE_IN_BYTE
}

fn get_rms_norm_min_tmp_size(h_length: u32, type_size: u32) -> u32 {
    let bs_length = ONE_BLK_FLOAT_NUM;
    let mut min_size = h_length;
    if type_size == HALF_SIZE_IN_BYTE {
        const BUFFER_COEFF: u32 = 2;
        min_size = min_size * BUFFER_COEFF + bs_length;
    } else {
        min_size += bs_length;
    }
    min_size * FLOAT_SIZE_IN_BYTE
}

/// The example's kernel-side `GetRmsNormMaxMinTmpSize`: `(max, min)` bytes, `None` where it
/// returns `false`.
fn get_rms_norm_max_min_tmp_size_kernel(
    b_length: u32,
    s_length: u32,
    h_length: u32,
    type_size: u32,
    is_basic_block: bool,
) -> Option<(u32, u32)> {
    if is_basic_block && (h_length % BASIC_BLK_HLENGTH != 0 || b_length * s_length % BASIC_BLK_BSLENGTH != 0)
    {
        return None;
    }
    Some((
        get_rms_norm_max_tmp_size(b_length, s_length, h_length, type_size),
        get_rms_norm_min_tmp_size(h_length, type_size),
    ))
}

/// The example's kernel-side `GetRmsNormTilingInfo` (not the host's: it steps the rows by 8).
fn get_rms_norm_tiling_info_kernel(
    shape: [u32; 3],
    original_shape: [u32; 3],
    stack_buffer_byte_size: u32,
    type_size: u32,
    is_basic_block: bool,
) -> RmsNormTiling {
    let mut tiling = RmsNormTiling {
        b_length: shape[0],
        s_length: shape[1],
        h_length: shape[2],
        original_h_length: original_shape[2],
        ..RmsNormTiling::default()
    };
    tiling.reciprocal_of_h_length = 1.0f32 / tiling.original_h_length as f32;
    let mut one_tmp_size = stack_buffer_byte_size / size_of::<f32>() as u32;
    let mut align_bs_length = ONE_BLK_FLOAT_NUM;
    let half_coeff = if type_size == size_of::<f32>() as u32 { 1 } else { 2 };
    while one_tmp_size > align_bs_length * tiling.h_length * half_coeff + align_bs_length {
        align_bs_length += ONE_BLK_FLOAT_NUM;
    }
    align_bs_length = if align_bs_length == ONE_BLK_FLOAT_NUM {
        ONE_BLK_FLOAT_NUM
    } else {
        align_bs_length - ONE_BLK_FLOAT_NUM
    };
    one_tmp_size = if type_size == HALF_SIZE_IN_BYTE {
        (one_tmp_size - align_bs_length) / half_coeff
    } else {
        one_tmp_size - align_bs_length
    };
    let input_x_size = tiling.b_length * tiling.s_length * tiling.h_length;
    if one_tmp_size > input_x_size {
        one_tmp_size = input_x_size;
    }
    let mut bs_length = one_tmp_size / tiling.h_length;
    if is_basic_block {
        bs_length = if bs_length < BASIC_BLK_BSLENGTH {
            1
        } else {
            bs_length / BASIC_BLK_BSLENGTH * BASIC_BLK_BSLENGTH
        };
    } else if bs_length > MAX_REPEAT {
        bs_length = MAX_REPEAT;
    }
    one_tmp_size = bs_length * tiling.h_length;
    tiling.main_bsh_length = one_tmp_size;
    tiling.main_bs_length = one_tmp_size / tiling.h_length;
    tiling.main_bs_length_align = align_to_block(one_tmp_size / tiling.h_length, size_of::<f32>() as u32);
    tiling.loop_round = input_x_size / one_tmp_size;
    let input_tail_size = input_x_size % one_tmp_size;
    tiling.tail_bsh_length = input_tail_size;
    tiling.input_tail_pos = input_x_size - input_tail_size;
    tiling.tail_bs_length = input_tail_size / tiling.h_length;
    tiling
}

struct KernelRmsnorm<T: RmsNormElement, const IS_BASIC_BLOCK: bool> {
    input_global: GlobalTensor<T>,
    gamma_global: GlobalTensor<T>,
    output_global: GlobalTensor<T>,
    stack_buffer: LocalTensor<u8>,
    in_queue: TQue<VecIn, 1>,
    in_queue_gamma: TQue<VecIn, 1>,
    out_queue: TQue<VecOut, 1>,
    tiling: RmsNormTiling,
    h_length: u32,
    epsilon: T,
    bsh_length: u32,
}

impl<T: RmsNormElement, const IS_BASIC_BLOCK: bool> KernelRmsnorm<T, IS_BASIC_BLOCK> {
    #[allow(clippy::too_many_arguments)]
    fn init(
        src_gm: GmAddr,
        gamma_gm: GmAddr,
        dst_gm: GmAddr,
        b_length: u32,
        s_length: u32,
        in_h_length: u32,
        in_epsilon: T,
        mem_mode: u8,
        pipe: &mut TPipe,
    ) -> Self {
        let h_length = in_h_length;
        let bsh_length = b_length * s_length * h_length;
        let mut op = KernelRmsnorm {
            input_global: GlobalTensor::new(),
            gamma_global: GlobalTensor::new(),
            output_global: GlobalTensor::new(),
            stack_buffer: pop_stack_buffer::<u8>(),
            in_queue: TQue::new(),
            in_queue_gamma: TQue::new(),
            out_queue: TQue::new(),
            tiling: RmsNormTiling::default(),
            h_length,
            epsilon: in_epsilon,
            bsh_length,
        };
        op.input_global.set_global_buffer(src_gm, bsh_length as usize);
        op.gamma_global.set_global_buffer(gamma_gm, h_length as usize);
        op.output_global.set_global_buffer(dst_gm, bsh_length as usize);
        let type_size = size_of::<T>() as u32;
        pipe.init_buffer(&mut op.in_queue, 1, (bsh_length * type_size) as usize);
        pipe.init_buffer(&mut op.in_queue_gamma, 1, (h_length * type_size) as usize);
        pipe.init_buffer(&mut op.out_queue, 1, (bsh_length * type_size) as usize);
        let (max_value, min_value) =
            get_rms_norm_max_min_tmp_size_kernel(b_length, s_length, h_length, type_size, IS_BASIC_BLOCK)
                .expect("a valid shape");
        let (min_value, max_value) = (min_value / FLOAT_SIZE_IN_BYTE, max_value / FLOAT_SIZE_IN_BYTE);
        // PopStackBuffer<uint8_t, TPosition::LCM>(stackBuffer), after the pipe's buffers.
        op.stack_buffer = pop_stack_buffer::<u8>();
        let stack_size = match mem_mode {
            0 => min_value,
            1 => max_value,
            2 => (min_value + max_value) / 2,
            _ => op.stack_buffer.get_size() as u32 / FLOAT_SIZE_IN_BYTE,
        };
        let input_shape = [b_length, s_length, h_length];
        let origin_shape = [b_length, s_length, in_h_length];
        // The example sets these as the tensors' ShapeInfo; RmsNorm reads only the tiling.
        op.tiling = get_rms_norm_tiling_info_kernel(
            input_shape,
            origin_shape,
            stack_size * size_of::<f32>() as u32,
            type_size,
            IS_BASIC_BLOCK,
        );
        op.stack_buffer.set_size((stack_size * size_of::<f32>() as u32) as usize);
        op
    }

    fn process(&mut self) {
        self.copy_in();
        self.compute();
        self.copy_out();
    }

    fn copy_in(&mut self) {
        let input_local = self.in_queue.alloc_tensor::<T>();
        data_copy(&input_local, &self.input_global, self.bsh_length as usize);
        self.in_queue.enque(input_local);
        let gamma_local = self.in_queue_gamma.alloc_tensor::<T>();
        data_copy(&gamma_local, &self.gamma_global, self.h_length as usize);
        self.in_queue_gamma.enque(gamma_local);
    }

    fn compute(&mut self) {
        let input_local = self.in_queue.deque::<T>();
        let gamma_local = self.in_queue_gamma.deque::<T>();
        let output_local = self.out_queue.alloc_tensor::<T>();
        pipe_barrier::<PIPE_MTE2>();
        rms_norm::<T, IS_BASIC_BLOCK>(
            &output_local,
            &input_local,
            &gamma_local,
            &self.stack_buffer,
            self.epsilon,
            &self.tiling,
        );
        pipe_barrier::<PIPE_V>();
        self.in_queue.free_tensor(input_local);
        self.in_queue_gamma.free_tensor(gamma_local);
        self.out_queue.enque(output_local);
    }

    fn copy_out(&mut self) {
        let output_local = self.out_queue.deque::<T>();
        data_copy(&self.output_global, &output_local, self.bsh_length as usize);
        self.out_queue.free_tensor(output_local);
    }
}

const B_LENGTH: u32 = 4;
const S_LENGTH: u32 = 8;
const H_LENGTH: u32 = 64;
const EPSILON: f32 = 5e-05;

fn rmsnorm_custom(src_gm: GmAddr, gamma_gm: GmAddr, dst_gm: GmAddr, mem_mode: u8) -> RmsNormTiling {
    let mut pipe = TPipe::new();
    let mut op = KernelRmsnorm::<f32, false>::init(
        src_gm, gamma_gm, dst_gm, B_LENGTH, S_LENGTH, H_LENGTH, EPSILON, mem_mode, &mut pipe,
    );
    op.process();
    op.tiling
}

/// The vendor's steps per row, each instruction's rounding (`float`, not the basic block):
/// `x²`; `RepeatReduceSum`'s binary tree over 64 lanes (one repeat: H = 64); `* 1/H`, `+ eps`;
/// `Ln` and `Exp` in `f64` rounded once around `* -0.5`; `x * rstd * gamma`.
fn reference(x: &[f32], gamma: &[f32], recip: f32) -> Vec<f32> {
    let mut out = Vec::with_capacity(x.len());
    for row in x.chunks(H_LENGTH as usize) {
        let mut lanes: Vec<f32> = row.iter().map(|v| v * v).collect();
        while lanes.len() > 1 {
            lanes = lanes.chunks(2).map(|c| c[0] + c[1]).collect();
        }
        let a = lanes[0] * recip + EPSILON;
        let r = f64::from((f64::from(a).ln() as f32) * -0.5).exp() as f32;
        out.extend(row.iter().zip(gamma).map(|(&v, &g)| v * r * g));
    }
    out
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/04_advanced_api/02_normalization/rmsnorm/
// rmsnorm.asc: RmsNorm<float, false> of [4, 8, 64], epsilon 5e-05, memMode 3 (and 0..2 here).
#[test]
fn adv_rmsnorm_example() {
    // gen_data.py: inputX, gamma = uniform(-1, 1) float32 of [4, 8, 64] and [64]; golden =
    // x / sqrt(mean(x², -1) + eps) * gamma.
    let n = (B_LENGTH * S_LENGTH * H_LENGTH) as usize;
    for (soc, seed) in [(Soc::Ascend910B, 61), (Soc::Ascend310P, 62)] {
        let x: Vec<f32> = random_vec(n, seed, -1.0, 1.0);
        let gamma: Vec<f32> = random_vec(H_LENGTH as usize, seed + 100, -1.0, 1.0);
        let golden: Vec<f64> = x
            .chunks(H_LENGTH as usize)
            .flat_map(|row| {
                let ms = row.iter().map(|&v| f64::from(v) * f64::from(v)).sum::<f64>() / f64::from(H_LENGTH);
                let rms = (ms + f64::from(EPSILON)).sqrt();
                row.iter()
                    .zip(&gamma)
                    .map(move |(&v, &g)| f64::from(v) / rms * f64::from(g))
                    .collect::<Vec<_>>()
            })
            .collect();
        for mem_mode in 0..4u8 {
            let xg = GmBuffer::from_vec(x.clone());
            let gg = GmBuffer::from_vec(gamma.clone());
            let yg = GmBuffer::<f32>::zeroed(n);
            let tiling = std::sync::Mutex::new(RmsNormTiling::default());
            Launch::new(soc)
                .block_dim(1)
                .run(|| *tiling.lock().unwrap() = rmsnorm_custom(xg.addr(), gg.addr(), yg.addr(), mem_mode))
                .unwrap();
            let tiling = tiling.into_inner().unwrap();
            // memMode 0: one row per round; 1 and 3: all 32 rows in one; 2: two rounds of 16.
            let rows = [1, 32, 16, 32][usize::from(mem_mode)];
            assert_eq!((tiling.main_bs_length, tiling.tail_bs_length), (rows, 0), "memMode {mem_mode}");
            let y = yg.to_vec();
            assert_bits_eq(&y, &reference(&x, &gamma, tiling.reciprocal_of_h_length));
            compare_result(&y, &golden);
        }
    }
}
