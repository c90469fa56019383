//! Port of the vendor's `DeepNorm` example (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/04_advanced_api/02_normalization/deepnorm/deepnorm.asc`):
//! `DeepNorm<float, false, true>` (`isBasicBlock`) of `[4, 16, 64]` with the stack buffer (the
//! form without `sharedTmpBuffer`), its tiling from the host's `GetDeepNormTilingInfo` for
//! `GetDeepNormMaxMinTmpSize`'s minimum, `alpha = -5.5`, `epsilon = 65504`, on both chips
//! that implement `DeepNorm` (Ascend910B and Ascend310P).
//!
//! The example's inputs (`inputX = inputGx = arange(4096)`, `gamma = beta = arange(64)`) are
//! deterministic and restated here. Each launch keeps the sanitizer on and must pass; the
//! outputs are compared bit for bit with the vendor's steps restated per row (each
//! instruction's rounding) and with the example's golden (numpy, here in `f64`) within its
//! `CompareResult` tolerance (absolute or relative error at most 1e-5).

use ascend_runtime::prelude::*;
use ascend_runtime::testing::assert_bits_eq;

const B_LENGTH: usize = 4;
const S_LENGTH: usize = 16;
const H_LENGTH: usize = 64;
const ALPHA: f32 = -5.5;
const EPSILON: f32 = 65504.0;

/// The example's `DeepNormTilingData`.
#[derive(Clone, Copy)]
struct DeepNormTilingData {
    deepnorm_tiling: DeepNormTiling,
    stack_buffer_size: u32,
    b_length: u32,
    s_length: u32,
    h_length: u32,
}

fn generate_deep_norm_tiling() -> DeepNormTilingData {
    let shape_vec = [B_LENGTH, S_LENGTH, H_LENGTH];
    let origin_shape_vec = [B_LENGTH, S_LENGTH, H_LENGTH];
    let (is_reuse_source, is_basic_block) = (false, true);
    let (_, min_value) = get_deep_norm_max_min_tmp_size(&shape_vec, 4, is_reuse_source, is_basic_block);
    let stack_buffer_size = min_value;
    let deepnorm_tiling = get_deep_norm_tiling_info(
        &shape_vec,
        &origin_shape_vec,
        stack_buffer_size,
        4,
        is_reuse_source,
        is_basic_block,
    );
    DeepNormTilingData {
        deepnorm_tiling,
        stack_buffer_size: stack_buffer_size as u32,
        b_length: B_LENGTH as u32,
        s_length: S_LENGTH as u32,
        h_length: H_LENGTH as u32,
    }
}

struct KernelDeepNorm {
    input_x_global: GlobalTensor<f32>,
    input_gx_global: GlobalTensor<f32>,
    gamm_global: GlobalTensor<f32>,
    beta_global: GlobalTensor<f32>,
    output_global: GlobalTensor<f32>,
    output_mean_global: GlobalTensor<f32>,
    output_variance_global: GlobalTensor<f32>,
    in_queue_x: TQue<VecIn, 1>,
    in_queue_gx: TQue<VecIn, 1>,
    in_queue_gamma: TQue<VecIn, 1>,
    in_queue_beta: TQue<VecIn, 1>,
    out_queue: TQue<VecOut, 1>,
    out_queue_mean: TQue<VecOut, 1>,
    out_queue_variance: TQue<VecOut, 1>,
    tiling_data: DeepNormTilingData,
    alpha: f32,
    epsilon: f32,
    bsh_length: usize,
    bs_length: usize,
    h_length: usize,
}

impl KernelDeepNorm {
    #[allow(clippy::too_many_arguments)]
    fn init(
        input_x_gm: GmAddr,
        input_gx_gm: GmAddr,
        beta_gm: GmAddr,
        gamm_gm: GmAddr,
        alpha: f32,
        epsilon: f32,
        output_gm: GmAddr,
        output_mean_gm: GmAddr,
        output_variance_gm: GmAddr,
        tiling_data: DeepNormTilingData,
        pipe: &mut TPipe,
    ) -> Self {
        let (b, s, h) =
            (tiling_data.b_length as usize, tiling_data.s_length as usize, tiling_data.h_length as usize);
        let (bsh_length, bs_length) = (b * s * h, b * s);
        let mut op = KernelDeepNorm {
            input_x_global: GlobalTensor::new(),
            input_gx_global: GlobalTensor::new(),
            gamm_global: GlobalTensor::new(),
            beta_global: GlobalTensor::new(),
            output_global: GlobalTensor::new(),
            output_mean_global: GlobalTensor::new(),
            output_variance_global: GlobalTensor::new(),
            in_queue_x: TQue::new(),
            in_queue_gx: TQue::new(),
            in_queue_gamma: TQue::new(),
            in_queue_beta: TQue::new(),
            out_queue: TQue::new(),
            out_queue_mean: TQue::new(),
            out_queue_variance: TQue::new(),
            tiling_data,
            alpha,
            epsilon,
            bsh_length,
            bs_length,
            h_length: h,
        };
        op.input_x_global.set_global_buffer(input_x_gm, bsh_length);
        op.input_gx_global.set_global_buffer(input_gx_gm, bsh_length);
        op.beta_global.set_global_buffer(beta_gm, h);
        op.gamm_global.set_global_buffer(gamm_gm, h);
        op.output_global.set_global_buffer(output_gm, bsh_length);
        op.output_mean_global.set_global_buffer(output_mean_gm, bs_length);
        op.output_variance_global.set_global_buffer(output_variance_gm, bs_length);
        pipe.init_buffer(&mut op.in_queue_x, 1, 4 * bsh_length);
        pipe.init_buffer(&mut op.in_queue_gx, 1, 4 * bsh_length);
        pipe.init_buffer(&mut op.in_queue_beta, 1, 4 * h);
        pipe.init_buffer(&mut op.in_queue_gamma, 1, 4 * h);
        pipe.init_buffer(&mut op.out_queue, 1, 4 * bsh_length);
        pipe.init_buffer(&mut op.out_queue_mean, 1, 4 * bs_length);
        pipe.init_buffer(&mut op.out_queue_variance, 1, 4 * bs_length);
        op
    }

    fn process(&mut self) {
        self.copy_in();
        self.compute();
        self.copy_out();
    }

    fn copy_in(&mut self) {
        let input_x_local = self.in_queue_x.alloc_tensor::<f32>();
        let input_gx_local = self.in_queue_gx.alloc_tensor::<f32>();
        let gamma_local = self.in_queue_gamma.alloc_tensor::<f32>();
        let beta_local = self.in_queue_beta.alloc_tensor::<f32>();
        data_copy(&input_x_local, &self.input_x_global, self.bsh_length);
        data_copy(&input_gx_local, &self.input_gx_global, self.bsh_length);
        data_copy(&gamma_local, &self.gamm_global, self.h_length);
        data_copy(&beta_local, &self.beta_global, self.h_length);
        self.in_queue_x.enque(input_x_local);
        self.in_queue_gx.enque(input_gx_local);
        self.in_queue_beta.enque(beta_local);
        self.in_queue_gamma.enque(gamma_local);
    }

    fn compute(&mut self) {
        let input_x_local = self.in_queue_x.deque::<f32>();
        let input_gx_local = self.in_queue_gx.deque::<f32>();
        let gamma_local = self.in_queue_gamma.deque::<f32>();
        let beta_local = self.in_queue_beta.deque::<f32>();
        let output_local = self.out_queue.alloc_tensor::<f32>();
        let mean_local = self.out_queue_mean.alloc_tensor::<f32>();
        let variance_local = self.out_queue_variance.alloc_tensor::<f32>();
        deep_norm_stack::<f32, false, true>(
            &output_local,
            &mean_local,
            &variance_local,
            &input_x_local,
            &input_gx_local,
            &beta_local,
            &gamma_local,
            self.alpha,
            self.epsilon,
            &mut self.tiling_data.deepnorm_tiling,
        );
        self.out_queue.enque(output_local);
        self.out_queue_mean.enque(mean_local);
        self.out_queue_variance.enque(variance_local);
        self.in_queue_x.free_tensor(input_x_local);
        self.in_queue_gx.free_tensor(input_gx_local);
        self.in_queue_gamma.free_tensor(gamma_local);
        self.in_queue_beta.free_tensor(beta_local);
    }

    fn copy_out(&mut self) {
        let output_local = self.out_queue.deque::<f32>();
        let mean_local = self.out_queue_mean.deque::<f32>();
        let variance_local = self.out_queue_variance.deque::<f32>();
        data_copy(&self.output_global, &output_local, self.bsh_length);
        data_copy(&self.output_mean_global, &mean_local, self.bs_length);
        data_copy(&self.output_variance_global, &variance_local, self.bs_length);
        self.out_queue.free_tensor(output_local);
        self.out_queue_mean.free_tensor(mean_local);
        self.out_queue_variance.free_tensor(variance_local);
    }
}

/// `RepeatReduceSum` of one full repeat: the binary tree over its 64 lanes.
fn repeat_tree(v: &[f32]) -> f32 {
    let mut lanes = v.to_vec();
    while lanes.len() > 1 {
        lanes = lanes.chunks(2).map(|c| c[0] + c[1]).collect();
    }
    lanes[0]
}

/// The vendor's steps per row of 64 (the basic block, one row per round, so no broadcast):
/// `x * alpha + gx`; `* (1/H)` summed by the tree; `+ (-mean)`, squared, `* (1/H)`, summed;
/// `1 / sqrt(var + eps)` (`Sqrt`, then `Div`), `(x - mean) * rstd`, `* gamma`, `+ beta`, all
/// in `f32`.
fn reference(
    x: &[f32],
    gx: &[f32],
    gamma: &[f32],
    beta: &[f32],
    back: f32,
) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let (mut y, mut means, mut vars) = (Vec::new(), Vec::new(), Vec::new());
    for (row, grow) in x.chunks(H_LENGTH).zip(gx.chunks(H_LENGTH)) {
        let x1: Vec<f32> = row.iter().zip(grow).map(|(&v, &g)| g + v * ALPHA).collect();
        let mean = repeat_tree(&x1.iter().map(|&v| v * back).collect::<Vec<_>>());
        let d: Vec<f32> = x1.iter().map(|&v| v + -mean).collect();
        let var = repeat_tree(&d.iter().map(|&v| v * v * back).collect::<Vec<_>>());
        let r = 1.0 / (var + EPSILON).sqrt();
        y.extend(d.iter().zip(gamma).zip(beta).map(|((&dv, &g), &b)| dv * r * g + b));
        means.push(mean);
        vars.push(var);
    }
    (y, means, vars)
}

/// The example's `CompareResult`: absolute or relative error at most 1e-5.
fn compare_result_1e5(out: &[f32], golden: &[f64]) {
    assert_eq!(out.len(), golden.len());
    for (i, (&a, &b)) in out.iter().zip(golden).enumerate() {
        let ae = (f64::from(a) - b).abs();
        assert!(ae <= 1e-5 || ae / b.abs() <= 1e-5, "element {i}: output {a}, golden {b}");
    }
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/04_advanced_api/02_normalization/deepnorm/
// deepnorm.asc: DeepNorm<float, false, true> of [4, 16, 64], alpha -5.5, epsilon 65504.
#[test]
fn adv_deepnorm_example() {
    let (n, rows) = (B_LENGTH * S_LENGTH * H_LENGTH, B_LENGTH * S_LENGTH);
    let tiling = generate_deep_norm_tiling();
    // 1280 bytes: 320 floats, three views of one row; 64 rounds.
    assert_eq!(tiling.stack_buffer_size, 1280);
    let t = tiling.deepnorm_tiling;
    assert_eq!((t.one_tmp_size, t.loop_round, t.input_tail_size, t.bs_cur_length), (64, 64, 0, 1));
    // gen_data.py: inputX = inputGx = arange(4 * 16 * 64), gamma = beta = arange(64).
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let gamma: Vec<f32> = (0..H_LENGTH).map(|i| i as f32).collect();
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        let xg = GmBuffer::from_vec(x.clone());
        let gxg = GmBuffer::from_vec(x.clone());
        let bg = GmBuffer::from_vec(gamma.clone());
        let gg = GmBuffer::from_vec(gamma.clone());
        let yg = GmBuffer::<f32>::zeroed(n);
        let mg = GmBuffer::<f32>::zeroed(rows);
        let vg = GmBuffer::<f32>::zeroed(rows);
        Launch::new(soc)
            .block_dim(1)
            .run(|| {
                let mut pipe = TPipe::new();
                let mut op = KernelDeepNorm::init(
                    xg.addr(),
                    gxg.addr(),
                    bg.addr(),
                    gg.addr(),
                    ALPHA,
                    EPSILON,
                    yg.addr(),
                    mg.addr(),
                    vg.addr(),
                    tiling,
                    &mut pipe,
                );
                op.process();
            })
            .unwrap();
        let (y, mean, var) = (yg.to_vec(), mg.to_vec(), vg.to_vec());
        let (wy, wm, wv) = reference(&x, &x, &gamma, &gamma, t.last_dim_value_back);
        assert_bits_eq(&y, &wy);
        assert_bits_eq(&mean, &wm);
        assert_bits_eq(&var, &wv);
        // The golden: X1 = alpha * x + gx, its mean and variance, gamma * (X1 - mean) /
        // sqrt(var + eps) + beta.
        let (mut gy, mut gm, mut gv) = (Vec::new(), Vec::new(), Vec::new());
        for row in x.chunks(H_LENGTH) {
            let x1: Vec<f64> = row.iter().map(|&v| f64::from(ALPHA) * f64::from(v) + f64::from(v)).collect();
            let m = x1.iter().sum::<f64>() / H_LENGTH as f64;
            let v = x1.iter().map(|&e| (e - m).powi(2)).sum::<f64>() / H_LENGTH as f64;
            let r = (v + f64::from(EPSILON)).sqrt();
            gy.extend(x1.iter().zip(&gamma).map(|(&e, &g)| f64::from(g) * ((e - m) / r) + f64::from(g)));
            gm.push(m);
            gv.push(v);
        }
        compare_result_1e5(&y, &gy);
        compare_result_1e5(&mean, &gm);
        compare_result_1e5(&var, &gv);
    }
}
