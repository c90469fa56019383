//! Ports of the vendor's `LayerNorm` examples (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/04_advanced_api/02_normalization/`).
//!
//! `layernorm/layernorm.asc`:
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
//!
//! `layernorm_v2/layernorm_v2.asc`: `LayerNorm<float, float, false, {false, false, false,
//! true}>` (the rstd form, `LNCFG_NORM`'s path) of `[32, 32]` with the host's minimum buffer
//! taken from the stack, epsilon 1e-4, then the variance from the rstd (`Mul`, `Reciprocal`,
//! `Adds` of `-epsilon`). The example's inputs (`arange`) and goldens (`layernormY`, `mean`,
//! `rstd`, `var`) are deterministic and restated here. Its last step, `Normalize` (a separate
//! advanced API, not emulated yet) and its output `normalizeY`, are left out, with their
//! buffers; `SetOverflow` is not emulated.

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

/// `WholeReduceSum`'s binary tree over one repeat of up to 64 lanes (the rest `+0`).
fn tree(v: Vec<f32>) -> f32 {
    let mut lanes = v;
    lanes.resize(64, 0.0);
    while lanes.len() > 1 {
        lanes = lanes.chunks(2).map(|c| c[0] + c[1]).collect();
    }
    lanes[0]
}

/// The vendor's steps per row of 16 (one repeat): `x * (1/H)` summed by `WholeReduceSum`'s
/// binary tree (64 lanes, the disabled ones `+0`); `x - mean`, squared, `* (1/H)`, summed;
/// `1 / sqrt(var + eps)` (`Sqrt`, then `Div`), `* (x - mean)`, `* gamma`, `+ beta` in `f32`.
fn reference(x: &[f32], gamma: &[f32], beta: &[f32], back: f32) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
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

// ---------------------------------------------------------------------------------------
// layernorm_v2
// ---------------------------------------------------------------------------------------

const A_LENGTH: usize = 32;
const R_LENGTH: usize = 32;
const R_LENGTH_WITH_PAD: usize = 32;

/// The example's `LayerNormV2Tiling`, less `normalizeTmpSize` (its `Normalize` is not ported).
#[derive(Clone, Copy)]
struct LayerNormV2Tiling {
    layernorm_tiling: LayerNormSeparateTiling,
    a_length: u32,
    r_length: u32,
    r_length_with_pad: u32,
    epsilon: f32,
}

fn generate_layer_norm_v2_tiling() -> LayerNormV2Tiling {
    let src_shape = [A_LENGTH, R_LENGTH];
    let (is_reuse_source, is_compute_rstd, is_only_output) = (false, true, false);
    let (_, layernorm_min_value) =
        get_layer_norm_rstd_max_min_tmp_size(&src_shape, 4, is_reuse_source, is_compute_rstd, is_only_output);
    let layernorm_workspace_size = layernorm_min_value;
    let layernorm_tiling = get_layer_norm_rstd_nd_tiling_info(
        &src_shape,
        layernorm_workspace_size,
        4,
        is_reuse_source,
        is_compute_rstd,
    );
    LayerNormV2Tiling {
        layernorm_tiling,
        a_length: A_LENGTH as u32,
        r_length: R_LENGTH as u32,
        r_length_with_pad: R_LENGTH_WITH_PAD as u32,
        epsilon: EPSILON,
    }
}

struct KernelLayerNormV2 {
    tiling_data: LayerNormV2Tiling,
    input_x_global: GlobalTensor<f32>,
    gamma_global: GlobalTensor<f32>,
    beta_global: GlobalTensor<f32>,
    layernorm_y_global: GlobalTensor<f32>,
    mean_global: GlobalTensor<f32>,
    rstd_global: GlobalTensor<f32>,
    var_global: GlobalTensor<f32>,
    in_queue_x: TQue<VecIn, 1>,
    in_queue_gamma: TQue<VecIn, 1>,
    in_queue_beta: TQue<VecIn, 1>,
    out_queue_layernorm_y: TQue<VecOut, 1>,
    out_queue_mean: TQue<VecOut, 1>,
    out_queue_rstd: TQue<VecOut, 1>,
    out_queue_var: TQue<VecOut, 1>,
    tmp_buf_rstd_square: TBuf<VecCalc>,
}

impl KernelLayerNormV2 {
    #[allow(clippy::too_many_arguments)]
    fn init(
        input_x_gm: GmAddr,
        gamma_gm: GmAddr,
        beta_gm: GmAddr,
        layernorm_y_gm: GmAddr,
        mean_gm: GmAddr,
        rstd_gm: GmAddr,
        var_gm: GmAddr,
        tiling_data: LayerNormV2Tiling,
        pipe: &mut TPipe,
    ) -> Self {
        let total_elements = (tiling_data.a_length * tiling_data.r_length_with_pad) as usize;
        let (a, rp) = (tiling_data.a_length as usize, tiling_data.r_length_with_pad as usize);
        let mut op = KernelLayerNormV2 {
            tiling_data,
            input_x_global: GlobalTensor::new(),
            gamma_global: GlobalTensor::new(),
            beta_global: GlobalTensor::new(),
            layernorm_y_global: GlobalTensor::new(),
            mean_global: GlobalTensor::new(),
            rstd_global: GlobalTensor::new(),
            var_global: GlobalTensor::new(),
            in_queue_x: TQue::new(),
            in_queue_gamma: TQue::new(),
            in_queue_beta: TQue::new(),
            out_queue_layernorm_y: TQue::new(),
            out_queue_mean: TQue::new(),
            out_queue_rstd: TQue::new(),
            out_queue_var: TQue::new(),
            tmp_buf_rstd_square: TBuf::new(),
        };
        op.input_x_global.set_global_buffer(input_x_gm, total_elements);
        op.gamma_global.set_global_buffer(gamma_gm, rp);
        op.beta_global.set_global_buffer(beta_gm, rp);
        op.layernorm_y_global.set_global_buffer(layernorm_y_gm, total_elements);
        op.mean_global.set_global_buffer(mean_gm, a);
        op.rstd_global.set_global_buffer(rstd_gm, a);
        op.var_global.set_global_buffer(var_gm, a);
        pipe.init_buffer(&mut op.in_queue_x, 1, 4 * total_elements);
        pipe.init_buffer(&mut op.in_queue_gamma, 1, 4 * rp);
        pipe.init_buffer(&mut op.in_queue_beta, 1, 4 * rp);
        pipe.init_buffer(&mut op.out_queue_layernorm_y, 1, 4 * total_elements);
        pipe.init_buffer(&mut op.out_queue_mean, 1, 4 * a);
        pipe.init_buffer(&mut op.out_queue_rstd, 1, 4 * a);
        pipe.init_buffer(&mut op.out_queue_var, 1, 4 * a);
        pipe.init_tbuf(&mut op.tmp_buf_rstd_square, 4 * a);
        op
    }

    fn process(&mut self) {
        self.copy_in();
        self.compute();
        self.copy_out();
    }

    fn copy_in(&mut self) {
        let total_elements = (self.tiling_data.a_length * self.tiling_data.r_length_with_pad) as usize;
        let rp = self.tiling_data.r_length_with_pad as usize;
        let input_x_local = self.in_queue_x.alloc_tensor::<f32>();
        let gamma_local = self.in_queue_gamma.alloc_tensor::<f32>();
        let beta_local = self.in_queue_beta.alloc_tensor::<f32>();
        data_copy(&input_x_local, &self.input_x_global, total_elements);
        data_copy(&gamma_local, &self.gamma_global, rp);
        data_copy(&beta_local, &self.beta_global, rp);
        self.in_queue_x.enque(input_x_local);
        self.in_queue_gamma.enque(gamma_local);
        self.in_queue_beta.enque(beta_local);
    }

    fn compute(&mut self) {
        let input_x_local = self.in_queue_x.deque::<f32>();
        let gamma_local = self.in_queue_gamma.deque::<f32>();
        let beta_local = self.in_queue_beta.deque::<f32>();
        let layernorm_y_local = self.out_queue_layernorm_y.alloc_tensor::<f32>();
        let mean_local = self.out_queue_mean.alloc_tensor::<f32>();
        let rstd_local = self.out_queue_rstd.alloc_tensor::<f32>();
        let var_local = self.out_queue_var.alloc_tensor::<f32>();
        let t = self.tiling_data;
        let layernorm_para = LayerNormPara {
            a_length: t.a_length,
            r_length: t.r_length,
            r_length_with_padding: t.r_length_with_pad,
        };
        layer_norm_rstd_stack::<f32, f32, false>(
            &layernorm_y_local,
            &mean_local,
            &rstd_local,
            &input_x_local,
            &gamma_local,
            &beta_local,
            t.epsilon,
            &layernorm_para,
            &mut self.tiling_data.layernorm_tiling,
        );
        let a = t.a_length as usize;
        let rstd_square_local = self.tmp_buf_rstd_square.get::<f32>();
        mul(&rstd_square_local, &rstd_local, &rstd_local, a); // rstd^2 = rstd * rstd
        reciprocal(&var_local, &rstd_square_local, a); // var = 1 / rstd^2
        adds(&var_local, &var_local, -t.epsilon, a); // var -= epsilon
        self.out_queue_layernorm_y.enque(layernorm_y_local);
        self.out_queue_mean.enque(mean_local);
        self.out_queue_rstd.enque(rstd_local);
        self.out_queue_var.enque(var_local);
        self.in_queue_x.free_tensor(input_x_local);
        self.in_queue_gamma.free_tensor(gamma_local);
        self.in_queue_beta.free_tensor(beta_local);
    }

    fn copy_out(&mut self) {
        let total_elements = (self.tiling_data.a_length * self.tiling_data.r_length_with_pad) as usize;
        let a = self.tiling_data.a_length as usize;
        let layernorm_y_local = self.out_queue_layernorm_y.deque::<f32>();
        let mean_local = self.out_queue_mean.deque::<f32>();
        let rstd_local = self.out_queue_rstd.deque::<f32>();
        let var_local = self.out_queue_var.deque::<f32>();
        data_copy(&self.layernorm_y_global, &layernorm_y_local, total_elements);
        data_copy(&self.mean_global, &mean_local, a);
        data_copy(&self.rstd_global, &rstd_local, a);
        data_copy(&self.var_global, &var_local, a);
        self.out_queue_layernorm_y.free_tensor(layernorm_y_local);
        self.out_queue_mean.free_tensor(mean_local);
        self.out_queue_rstd.free_tensor(rstd_local);
        self.out_queue_var.free_tensor(var_local);
    }
}

/// The rstd form's steps per row of 32 (one repeat): the mean as `layernorm`'s; `x + (-mean)`,
/// squared, `* (1/R)`, summed; `1 / sqrt(var + eps)`; then Normalize's `((x - mean) * rstd) *
/// gamma + beta`, all in `f32`.
fn reference_v2(x: &[f32], gamma: &[f32], beta: &[f32], back: f32) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let (mut y, mut means, mut rstds) = (Vec::new(), Vec::new(), Vec::new());
    for row in x.chunks(R_LENGTH) {
        let mean = tree(row.iter().map(|&v| v * back).collect());
        let var = tree(row.iter().map(|&v| (v + -mean) * (v + -mean) * back).collect());
        let r = 1.0 / (var + EPSILON).sqrt();
        y.extend(row.iter().zip(gamma).zip(beta).map(|((&v, &g), &b)| (v - mean) * r * g + b));
        means.push(mean);
        rstds.push(r);
    }
    (y, means, rstds)
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/04_advanced_api/02_normalization/layernorm_v2/
// layernorm_v2.asc: LayerNorm<float, float, false, {false, false, false, true}> of [32, 32].
#[test]
fn adv_layernorm_v2_example() {
    // gen_data.py: inputX = arange(A * R), gamma = beta = arange(R), float32.
    let n = A_LENGTH * R_LENGTH_WITH_PAD;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let gamma: Vec<f32> = (0..R_LENGTH_WITH_PAD).map(|i| i as f32).collect();
    let beta = gamma.clone();
    let tiling = generate_layer_norm_v2_tiling();
    // The host's minimum, 384 bytes: the 32 variances, then one row per round for the mean and
    // variance (two views of 32) and for Normalize (two rows of 32).
    assert_eq!(tiling.layernorm_tiling.tmp_buf_size, 96);
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        let xg = GmBuffer::from_vec(x.clone());
        let gg = GmBuffer::from_vec(gamma.clone());
        let bg = GmBuffer::from_vec(beta.clone());
        let yg = GmBuffer::<f32>::zeroed(n);
        let (mg, rg, vg) = (
            GmBuffer::<f32>::zeroed(A_LENGTH),
            GmBuffer::<f32>::zeroed(A_LENGTH),
            GmBuffer::<f32>::zeroed(A_LENGTH),
        );
        Launch::new(soc)
            .block_dim(1)
            .run(|| {
                let mut pipe = TPipe::new();
                let mut op = KernelLayerNormV2::init(
                    xg.addr(),
                    gg.addr(),
                    bg.addr(),
                    yg.addr(),
                    mg.addr(),
                    rg.addr(),
                    vg.addr(),
                    tiling,
                    &mut pipe,
                );
                op.process();
            })
            .unwrap();
        let (y, mean, rstd, var) = (yg.to_vec(), mg.to_vec(), rg.to_vec(), vg.to_vec());
        let (wy, wm, wr) = reference_v2(&x, &gamma, &beta, tiling.layernorm_tiling.r_value_back);
        assert_bits_eq(&y, &wy);
        assert_bits_eq(&mean, &wm);
        assert_bits_eq(&rstd, &wr);
        // The goldens, in f64.
        let (mut gy, mut gm, mut gr, mut gv) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for row in x.chunks(R_LENGTH) {
            let m = row.iter().map(|&v| f64::from(v)).sum::<f64>() / R_LENGTH as f64;
            let v = row.iter().map(|&e| (f64::from(e) - m).powi(2)).sum::<f64>() / R_LENGTH as f64;
            let r = 1.0 / (v + f64::from(EPSILON)).sqrt();
            gy.extend(
                row.iter()
                    .zip(&gamma)
                    .zip(&beta)
                    .map(|((&e, &g), &b)| f64::from(g) * ((f64::from(e) - m) * r) + f64::from(b)),
            );
            gm.push(m);
            gr.push(r);
            gv.push(1.0 / (r * r) - f64::from(EPSILON));
        }
        compare_result(&y, &gy);
        compare_result(&mean, &gm);
        compare_result(&rstd, &gr);
        compare_result(&var, &gv);
    }
}
