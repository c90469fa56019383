//! Port of the vendor's `LayerNorm` example (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/04_advanced_api/02_normalization/layernorm/layernorm.asc`):
//! `LayerNorm<float, false>` of `[2, 32, 16]` with the stack buffer (the form without
//! `sharedTmpBuffer`), its tiling from the host's `GetLayerNormNDTilingInfo` for the
//! example's `localWorkspaceSize` (the largest of the three host minimums it queries), epsilon
//! 1e-4, on both chips that implement `LayerNorm` (Ascend910B and Ascend310P).
//!
//! The example goes on with `LayerNormGrad` and `LayerNormGradBeta`, which are not emulated:
//! the port keeps the `LayerNorm` part (its queues, its outputs `Y`, `Mean`, `Var`); their
//! host minimums still size the workspace, restated from the vendor's tiling sources. Each
//! launch keeps the sanitizer on and must pass; the outputs are compared bit for bit with the
//! vendor's steps restated per row (each instruction's rounding), and with the example's numpy
//! golden (here in `f64`) within its tolerance. The inputs are the example's distribution
//! (`uniform(-100, 100)`) from a seeded generator, not numpy's draws.

use ascend_kernels::data::random_vec;
use ascend_runtime::prelude::*;
use ascend_runtime::testing::assert_bits_eq;

use crate::compare_result;

const B_LENGTH: usize = 2;
const S_LENGTH: usize = 32;
const H_LENGTH: usize = 16;
const EPSILON: f32 = 0.0001;

/// The example's `localWorkspaceSize`: the largest of `GetLayerNormMaxMinTmpSize`'s,
/// `GetLayerNormGradMaxMinTmpSize`'s (`6 * min(BSH, H²) * 4` for `float`) and
/// `GetLayerNormGradBetaMaxMinTmpSize`'s (`2 * H * 4`) minimums.
fn local_workspace_size(shape: &[usize]) -> usize {
    let (_, min1) = get_layer_norm_max_min_tmp_size(shape, 4, false);
    let (bsh, h) = (B_LENGTH * S_LENGTH * H_LENGTH, H_LENGTH);
    let min2 = 6 * bsh.min(h * h) * 4;
    let min3 = 2 * h * 4;
    min1.max(min2).max(min3)
}

struct KernelLayerNorm {
    input_x_global: GlobalTensor<f32>,
    gamma_global: GlobalTensor<f32>,
    beta_global: GlobalTensor<f32>,
    output_y_global: GlobalTensor<f32>,
    output_mean_global: GlobalTensor<f32>,
    output_var_global: GlobalTensor<f32>,
    in_queue_x: TQue<VecIn, 1>,
    in_queue_gamma: TQue<VecIn, 1>,
    in_queue_beta: TQue<VecIn, 1>,
    out_queue_y: TQue<VecOut, 1>,
    out_queue_mean: TQue<VecOut, 1>,
    out_queue_var: TQue<VecOut, 1>,
    tiling: LayerNormTiling,
    epsilon: f32,
    bsh_length: usize,
    bs_length: usize,
    h_length: usize,
}

impl KernelLayerNorm {
    #[allow(clippy::too_many_arguments)]
    fn init(
        input_x_gm: GmAddr,
        gamma_gm: GmAddr,
        beta_gm: GmAddr,
        output_y_gm: GmAddr,
        output_mean_gm: GmAddr,
        output_var_gm: GmAddr,
        tiling: LayerNormTiling,
        epsilon: f32,
        pipe: &mut TPipe,
    ) -> Self {
        let (b, s, h) = (tiling.b_length as usize, tiling.s_length as usize, tiling.h_length as usize);
        let (bsh_length, bs_length) = (b * s * h, b * s);
        let mut op = KernelLayerNorm {
            input_x_global: GlobalTensor::new(),
            gamma_global: GlobalTensor::new(),
            beta_global: GlobalTensor::new(),
            output_y_global: GlobalTensor::new(),
            output_mean_global: GlobalTensor::new(),
            output_var_global: GlobalTensor::new(),
            in_queue_x: TQue::new(),
            in_queue_gamma: TQue::new(),
            in_queue_beta: TQue::new(),
            out_queue_y: TQue::new(),
            out_queue_mean: TQue::new(),
            out_queue_var: TQue::new(),
            tiling,
            epsilon,
            bsh_length,
            bs_length,
            h_length: h,
        };
        op.input_x_global.set_global_buffer(input_x_gm, bsh_length);
        op.gamma_global.set_global_buffer(gamma_gm, h);
        op.beta_global.set_global_buffer(beta_gm, h);
        op.output_y_global.set_global_buffer(output_y_gm, bsh_length);
        op.output_mean_global.set_global_buffer(output_mean_gm, bs_length);
        op.output_var_global.set_global_buffer(output_var_gm, bs_length);
        pipe.init_buffer(&mut op.in_queue_x, 1, 4 * bsh_length);
        pipe.init_buffer(&mut op.in_queue_gamma, 1, 4 * h);
        pipe.init_buffer(&mut op.in_queue_beta, 1, 4 * h);
        pipe.init_buffer(&mut op.out_queue_y, 1, 4 * bsh_length);
        pipe.init_buffer(&mut op.out_queue_mean, 1, 4 * bs_length);
        pipe.init_buffer(&mut op.out_queue_var, 1, 4 * bs_length);
        op
    }

    fn process(&mut self) {
        self.copy_in();
        self.compute();
        self.copy_out();
    }

    fn copy_in(&mut self) {
        let x_local = self.in_queue_x.alloc_tensor::<f32>();
        data_copy(&x_local, &self.input_x_global, self.bsh_length);
        self.in_queue_x.enque(x_local);
        let gamma_local = self.in_queue_gamma.alloc_tensor::<f32>();
        data_copy(&gamma_local, &self.gamma_global, self.h_length);
        self.in_queue_gamma.enque(gamma_local);
        let beta_local = self.in_queue_beta.alloc_tensor::<f32>();
        data_copy(&beta_local, &self.beta_global, self.h_length);
        self.in_queue_beta.enque(beta_local);
    }

    fn compute(&mut self) {
        let x_local = self.in_queue_x.deque::<f32>();
        let gamma_local = self.in_queue_gamma.deque::<f32>();
        let beta_local = self.in_queue_beta.deque::<f32>();
        let y_local = self.out_queue_y.alloc_tensor::<f32>();
        let mean_local = self.out_queue_mean.alloc_tensor::<f32>();
        let var_local = self.out_queue_var.alloc_tensor::<f32>();
        layer_norm_stack::<f32, false>(
            &y_local,
            &mean_local,
            &var_local,
            &x_local,
            &gamma_local,
            &beta_local,
            self.epsilon,
            &mut self.tiling,
        );
        self.out_queue_y.enque(y_local);
        self.out_queue_mean.enque(mean_local);
        self.out_queue_var.enque(var_local);
        self.in_queue_x.free_tensor(x_local);
        self.in_queue_gamma.free_tensor(gamma_local);
        self.in_queue_beta.free_tensor(beta_local);
    }

    fn copy_out(&mut self) {
        let y_local = self.out_queue_y.deque::<f32>();
        let mean_local = self.out_queue_mean.deque::<f32>();
        let var_local = self.out_queue_var.deque::<f32>();
        data_copy(&self.output_y_global, &y_local, self.bsh_length);
        data_copy(&self.output_mean_global, &mean_local, self.bs_length);
        data_copy(&self.output_var_global, &var_local, self.bs_length);
        self.out_queue_y.free_tensor(y_local);
        self.out_queue_mean.free_tensor(mean_local);
        self.out_queue_var.free_tensor(var_local);
    }
}

/// The vendor's steps per row of 16 (one repeat): `x * (1/H)` summed by `WholeReduceSum`'s
/// binary tree (64 lanes, the disabled ones `+0`); `x - mean`, squared, `* (1/H)`, summed;
/// `1 / sqrt(var + eps)` (`Sqrt`, then `Div`), `* (x - mean)`, `* gamma`, `+ beta` in `f32`.
fn reference(x: &[f32], gamma: &[f32], beta: &[f32], back: f32) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let tree = |v: Vec<f32>| {
        let mut lanes = v;
        lanes.resize(64, 0.0);
        while lanes.len() > 1 {
            lanes = lanes.chunks(2).map(|c| c[0] + c[1]).collect();
        }
        lanes[0]
    };
    let (mut y, mut means, mut vars) = (Vec::new(), Vec::new(), Vec::new());
    for row in x.chunks(H_LENGTH) {
        let mean = tree(row.iter().map(|&v| v * back).collect());
        let d: Vec<f32> = row.iter().map(|&v| v - mean).collect();
        let var = tree(d.iter().map(|&v| v * v * back).collect());
        let r = 1.0 / (var + EPSILON).sqrt();
        y.extend(d.iter().zip(gamma).zip(beta).map(|((&dv, &g), &b)| r * dv * g + b));
        means.push(mean);
        vars.push(var);
    }
    (y, means, vars)
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/04_advanced_api/02_normalization/layernorm/
// layernorm.asc: LayerNorm<float, false> of [2, 32, 16], epsilon 1e-4, the stack buffer.
#[test]
fn adv_layernorm_example() {
    let shape = [B_LENGTH, S_LENGTH, H_LENGTH, H_LENGTH];
    let (n, rows) = (B_LENGTH * S_LENGTH * H_LENGTH, B_LENGTH * S_LENGTH);
    let workspace = local_workspace_size(&shape);
    assert_eq!(workspace, 6144);
    let tiling = get_layer_norm_nd_tiling_info(&shape, workspace, 4, false);
    // 1536 floats: three views of 512 (32 rows), two rounds, no tail.
    assert_eq!((tiling.one_tmp_size, tiling.loop_round, tiling.input_tail_size), (512, 2, 0));
    for (soc, seed) in [(Soc::Ascend910B, 71), (Soc::Ascend310P, 72)] {
        // gen_data.py: inputX, gamma, beta = uniform(-100, 100) float32.
        let x: Vec<f32> = random_vec(n, seed, -100.0, 100.0);
        let gamma: Vec<f32> = random_vec(H_LENGTH, seed + 100, -100.0, 100.0);
        let beta: Vec<f32> = random_vec(H_LENGTH, seed + 200, -100.0, 100.0);
        let xg = GmBuffer::from_vec(x.clone());
        let gg = GmBuffer::from_vec(gamma.clone());
        let bg = GmBuffer::from_vec(beta.clone());
        let yg = GmBuffer::<f32>::zeroed(n);
        let mg = GmBuffer::<f32>::zeroed(rows);
        let vg = GmBuffer::<f32>::zeroed(rows);
        Launch::new(soc)
            .block_dim(1)
            .run(|| {
                let mut pipe = TPipe::new();
                let mut op = KernelLayerNorm::init(
                    xg.addr(),
                    gg.addr(),
                    bg.addr(),
                    yg.addr(),
                    mg.addr(),
                    vg.addr(),
                    tiling,
                    EPSILON,
                    &mut pipe,
                );
                op.process();
            })
            .unwrap();
        let (y, mean, var) = (yg.to_vec(), mg.to_vec(), vg.to_vec());
        let (wy, wm, wv) = reference(&x, &gamma, &beta, tiling.last_dim_value_back);
        assert_bits_eq(&y, &wy);
        assert_bits_eq(&mean, &wm);
        assert_bits_eq(&var, &wv);
        // The golden: numpy's mean, variance and gamma * (x - mean) / sqrt(var + eps) + beta.
        let (mut gy, mut gm, mut gv) = (Vec::new(), Vec::new(), Vec::new());
        for row in x.chunks(H_LENGTH) {
            let m = row.iter().map(|&v| f64::from(v)).sum::<f64>() / H_LENGTH as f64;
            let var = row.iter().map(|&v| (f64::from(v) - m).powi(2)).sum::<f64>() / H_LENGTH as f64;
            let r = 1.0 / (var + f64::from(EPSILON)).sqrt();
            gy.extend(
                row.iter()
                    .zip(&gamma)
                    .zip(&beta)
                    .map(|((&v, &g), &b)| f64::from(g) * ((f64::from(v) - m) * r) + f64::from(b)),
            );
            gm.push(m);
            gv.push(var);
        }
        compare_result(&y, &gy);
        compare_result(&mean, &gm);
        compare_result(&var, &gv);
    }
}
