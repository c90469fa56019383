//! Ports of the vendor's `LayerNorm` examples (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/04_advanced_api/02_normalization/`).
//!
//! `layernorm/layernorm.asc`, as written: `LayerNorm<float, false>` of `[2, 32, 16]`, then
//! `LayerNormGrad<float, false>` on the example's `dy` with the forward pass's mean and
//! variance, then `LayerNormGradBeta<float, false>` on its `resForGamma` — all three with the
//! stack buffer (the forms without `sharedTmpBuffer`), their tilings from the host's
//! `GetLayerNormNDTilingInfo`, `GetLayerNormGradNDTilingInfo` and
//! `GetLayerNormGradBetaNDTilingInfo` for the example's `localWorkspaceSize` (the largest of
//! the three host minimums), epsilon 1e-4, on both chips that implement them (Ascend910B and
//! Ascend310P). The six outputs (`Y`, `Mean`, `Var`, `PdX`, `PdGamma`, `PdBeta`) are compared
//! bit for bit with the vendor's steps restated per row (each instruction's rounding), and
//! with the example's numpy golden (here in `f64`) within its tolerance (`CompareResult`:
//! absolute and relative error both above 1e-4 fail). Each launch keeps the sanitizer on and
//! must pass. The inputs are the example's distribution (`uniform(-100, 100)`) from a seeded
//! generator, not numpy's draws. One line is added: the example never frees `resForGammaLocal`
//! (its `tmpQueueResForGamma` buffer), which the sanitizer reports at the kernel's end; the
//! port frees it after the last use.
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

/// The example's `VecTiling`: the three tilings and epsilon (`ComputeTiling`).
#[derive(Clone, Copy)]
struct VecTiling {
    layernorm_tiling_data: LayerNormTiling,
    layernorm_grad_tiling_data: LayerNormGradTiling,
    layernorm_grad_beta_tiling_data: LayerNormGradBetaTiling,
    epsilon: f32,
}

/// `ComputeTiling`: the three host minimums, the largest as `localWorkspaceSize`, and each
/// tiling for it; returns the tilings and the workspace size.
fn compute_tiling(b: usize, s: usize, h: usize) -> (VecTiling, usize) {
    let shape = [b, s, h, h];
    let is_reuse_source = false;
    let (_, min1) = get_layer_norm_max_min_tmp_size(&shape, 4, is_reuse_source);
    let (_, min2) = get_layer_norm_grad_max_min_tmp_size(&shape, 4, is_reuse_source);
    let (_, min3) = get_layer_norm_grad_beta_max_min_tmp_size(&shape, 4, is_reuse_source);
    let local_workspace_size = min1.max(min2).max(min3);
    let tiling = VecTiling {
        layernorm_tiling_data: get_layer_norm_nd_tiling_info(
            &shape,
            local_workspace_size,
            4,
            is_reuse_source,
        ),
        layernorm_grad_tiling_data: get_layer_norm_grad_nd_tiling_info(
            &shape,
            local_workspace_size,
            4,
            is_reuse_source,
        ),
        layernorm_grad_beta_tiling_data: get_layer_norm_grad_beta_nd_tiling_info(
            &shape,
            local_workspace_size,
            4,
            is_reuse_source,
        ),
        epsilon: EPSILON,
    };
    (tiling, local_workspace_size)
}

/// The example's global memory: inputs X, gamma, beta, dy; outputs Y, Mean, Var, PdX,
/// PdGamma, PdBeta.
struct Gms([GmAddr; 10]);

struct KernelLayerNorm {
    input_x_global: GlobalTensor<f32>,
    gamma_global: GlobalTensor<f32>,
    beta_global: GlobalTensor<f32>,
    dy_global: GlobalTensor<f32>,
    output_y_global: GlobalTensor<f32>,
    output_mean_global: GlobalTensor<f32>,
    output_var_global: GlobalTensor<f32>,
    output_pd_x_global: GlobalTensor<f32>,
    output_pd_gamma_global: GlobalTensor<f32>,
    output_pd_beta_global: GlobalTensor<f32>,
    in_queue_x: TQue<VecIn, 1>,
    in_queue_gamma: TQue<VecIn, 1>,
    in_queue_beta: TQue<VecIn, 1>,
    in_queue_dy: TQue<VecIn, 1>,
    out_queue_y: TQue<VecOut, 1>,
    out_queue_mean: TQue<VecOut, 1>,
    out_queue_var: TQue<VecOut, 1>,
    out_queue_pd_x: TQue<VecOut, 1>,
    out_queue_pd_gamma: TQue<VecOut, 1>,
    out_queue_pd_beta: TQue<VecOut, 1>,
    tmp_queue_res_for_gamma: TQue<VecOut, 1>,
    layernorm_tiling: LayerNormTiling,
    layernorm_grad_tiling: LayerNormGradTiling,
    layernorm_grad_beta_tiling: LayerNormGradBetaTiling,
    epsilon: f32,
    bsh_length: usize,
    bs_length: usize,
    h_length: usize,
}

impl KernelLayerNorm {
    fn init(gm: &Gms, tiling_data: VecTiling, pipe: &mut TPipe) -> Self {
        let t = tiling_data.layernorm_tiling_data;
        let (b, s, h) = (t.b_length as usize, t.s_length as usize, t.h_length as usize);
        let (bsh_length, bs_length) = (b * s * h, b * s);
        let mut op = KernelLayerNorm {
            input_x_global: GlobalTensor::new(),
            gamma_global: GlobalTensor::new(),
            beta_global: GlobalTensor::new(),
            dy_global: GlobalTensor::new(),
            output_y_global: GlobalTensor::new(),
            output_mean_global: GlobalTensor::new(),
            output_var_global: GlobalTensor::new(),
            output_pd_x_global: GlobalTensor::new(),
            output_pd_gamma_global: GlobalTensor::new(),
            output_pd_beta_global: GlobalTensor::new(),
            in_queue_x: TQue::new(),
            in_queue_gamma: TQue::new(),
            in_queue_beta: TQue::new(),
            in_queue_dy: TQue::new(),
            out_queue_y: TQue::new(),
            out_queue_mean: TQue::new(),
            out_queue_var: TQue::new(),
            out_queue_pd_x: TQue::new(),
            out_queue_pd_gamma: TQue::new(),
            out_queue_pd_beta: TQue::new(),
            tmp_queue_res_for_gamma: TQue::new(),
            layernorm_tiling: t,
            layernorm_grad_tiling: tiling_data.layernorm_grad_tiling_data,
            layernorm_grad_beta_tiling: tiling_data.layernorm_grad_beta_tiling_data,
            epsilon: tiling_data.epsilon,
            bsh_length,
            bs_length,
            h_length: h,
        };
        let [x, g, be, dy, y, m, v, pdx, pdg, pdb] = gm.0;
        op.input_x_global.set_global_buffer(x, bsh_length);
        op.gamma_global.set_global_buffer(g, h);
        op.beta_global.set_global_buffer(be, h);
        op.dy_global.set_global_buffer(dy, bsh_length);
        op.output_y_global.set_global_buffer(y, bsh_length);
        op.output_mean_global.set_global_buffer(m, bs_length);
        op.output_var_global.set_global_buffer(v, bs_length);
        op.output_pd_x_global.set_global_buffer(pdx, bsh_length);
        op.output_pd_gamma_global.set_global_buffer(pdg, h);
        op.output_pd_beta_global.set_global_buffer(pdb, h);
        pipe.init_buffer(&mut op.in_queue_x, 1, 4 * bsh_length);
        pipe.init_buffer(&mut op.in_queue_gamma, 1, 4 * h);
        pipe.init_buffer(&mut op.in_queue_beta, 1, 4 * h);
        pipe.init_buffer(&mut op.in_queue_dy, 1, 4 * bsh_length);
        pipe.init_buffer(&mut op.out_queue_y, 1, 4 * bsh_length);
        pipe.init_buffer(&mut op.out_queue_mean, 1, 4 * bs_length);
        pipe.init_buffer(&mut op.out_queue_var, 1, 4 * bs_length);
        pipe.init_buffer(&mut op.out_queue_pd_x, 1, 4 * bsh_length);
        pipe.init_buffer(&mut op.out_queue_pd_gamma, 1, 4 * h);
        pipe.init_buffer(&mut op.out_queue_pd_beta, 1, 4 * h);
        pipe.init_buffer(&mut op.tmp_queue_res_for_gamma, 1, 4 * bsh_length);
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
        let dy_local = self.in_queue_dy.alloc_tensor::<f32>();
        data_copy(&dy_local, &self.dy_global, self.bsh_length);
        self.in_queue_dy.enque(dy_local);
    }

    fn compute(&mut self) {
        let x_local = self.in_queue_x.deque::<f32>();
        let gamma_local = self.in_queue_gamma.deque::<f32>();
        let beta_local = self.in_queue_beta.deque::<f32>();
        let dy_local = self.in_queue_dy.deque::<f32>();
        let y_local = self.out_queue_y.alloc_tensor::<f32>();
        let mean_local = self.out_queue_mean.alloc_tensor::<f32>();
        let var_local = self.out_queue_var.alloc_tensor::<f32>();
        let pd_x_local = self.out_queue_pd_x.alloc_tensor::<f32>();
        let pd_gamma_local = self.out_queue_pd_gamma.alloc_tensor::<f32>();
        let pd_beta_local = self.out_queue_pd_beta.alloc_tensor::<f32>();
        let res_for_gamma_local = self.tmp_queue_res_for_gamma.alloc_tensor::<f32>();
        // Step 1: LayerNorm forward.
        layer_norm_stack::<f32, false>(
            &y_local,
            &mean_local,
            &var_local,
            &x_local,
            &gamma_local,
            &beta_local,
            self.epsilon,
            &mut self.layernorm_tiling,
        );
        // Step 2: LayerNormGrad.
        layer_norm_grad_stack::<f32, false>(
            &pd_x_local,
            &res_for_gamma_local,
            &dy_local,
            &x_local,
            &var_local,
            &mean_local,
            &gamma_local,
            self.epsilon,
            &mut self.layernorm_grad_tiling,
        );
        // Step 3: LayerNormGradBeta.
        layer_norm_grad_beta_stack::<f32, false>(
            &pd_gamma_local,
            &pd_beta_local,
            &res_for_gamma_local,
            &dy_local,
            &mut self.layernorm_grad_beta_tiling,
        );
        self.out_queue_y.enque(y_local);
        self.out_queue_mean.enque(mean_local);
        self.out_queue_var.enque(var_local);
        self.out_queue_pd_x.enque(pd_x_local);
        self.out_queue_pd_gamma.enque(pd_gamma_local);
        self.out_queue_pd_beta.enque(pd_beta_local);
        self.in_queue_x.free_tensor(x_local);
        self.in_queue_gamma.free_tensor(gamma_local);
        self.in_queue_beta.free_tensor(beta_local);
        self.in_queue_dy.free_tensor(dy_local);
        // Not in the example: it never frees resForGammaLocal, and the sanitizer reports a
        // VECOUT buffer still allocated when the TPipe is dropped (harmless on the chip).
        self.tmp_queue_res_for_gamma.free_tensor(res_for_gamma_local);
    }

    fn copy_out(&mut self) {
        let y_local = self.out_queue_y.deque::<f32>();
        let mean_local = self.out_queue_mean.deque::<f32>();
        let var_local = self.out_queue_var.deque::<f32>();
        let pd_x_local = self.out_queue_pd_x.deque::<f32>();
        let pd_gamma_local = self.out_queue_pd_gamma.deque::<f32>();
        let pd_beta_local = self.out_queue_pd_beta.deque::<f32>();
        data_copy(&self.output_y_global, &y_local, self.bsh_length);
        data_copy(&self.output_mean_global, &mean_local, self.bs_length);
        data_copy(&self.output_var_global, &var_local, self.bs_length);
        data_copy(&self.output_pd_x_global, &pd_x_local, self.bsh_length);
        data_copy(&self.output_pd_gamma_global, &pd_gamma_local, self.h_length);
        data_copy(&self.output_pd_beta_global, &pd_beta_local, self.h_length);
        self.out_queue_y.free_tensor(y_local);
        self.out_queue_mean.free_tensor(mean_local);
        self.out_queue_var.free_tensor(var_local);
        self.out_queue_pd_x.free_tensor(pd_x_local);
        self.out_queue_pd_gamma.free_tensor(pd_gamma_local);
        self.out_queue_pd_beta.free_tensor(pd_beta_local);
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

/// `LayerNormGrad`'s steps per row of 16 in `f32`: `x1 = dy * gamma`, `x2 = x - mean`, `t =
/// var + eps`; `pd_var = Σ (x1 * (x2 * (1 / sqrt(t * t * t)))) * -0.5`; `rstd = 1 / sqrt(t)`,
/// `resForGamma = x2 * rstd`, `x3 = x1 * rstd`; `pd_mean = Σ x3 * -1 + pd_var * ((Σ x2 * -2) *
/// (1/H))`; `pdX = (pd_var * (2/H) * x2 + pd_mean * (1/H)) + x3` (sums: `WholeReduceSum`'s tree).
fn grad_reference(dy: &[f32], x: &[f32], var: &[f32], mean: &[f32], gamma: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let (back, back2) = (1.0 / H_LENGTH as f32, 2.0 / H_LENGTH as f32);
    let (mut pd_x, mut res) = (Vec::new(), Vec::new());
    for (r, (dyr, xr)) in dy.chunks(H_LENGTH).zip(x.chunks(H_LENGTH)).enumerate() {
        let x1: Vec<f32> = dyr.iter().zip(gamma).map(|(&d, &g)| d * g).collect();
        let x2: Vec<f32> = xr.iter().map(|&v| v - mean[r]).collect();
        let t = var[r] + EPSILON;
        let r3 = 1.0 / (t * t * t).sqrt();
        let pd_var = tree(x1.iter().zip(&x2).map(|(&p, &q)| (p * (q * r3)) * -0.5).collect());
        let rs = 1.0 / t.sqrt();
        res.extend(x2.iter().map(|&q| q * rs));
        let x3: Vec<f32> = x1.iter().map(|&p| p * rs).collect();
        let s2 = tree(x2.iter().map(|&q| q * -2.0).collect());
        let pd_mean = tree(x3.iter().map(|&z| -z).collect()) + pd_var * (s2 * back); // `Muls` by -1: exact
        pd_x.extend(x2.iter().zip(&x3).map(|(&q, &z)| (pd_var * back2 * q + pd_mean * back) + z));
    }
    (pd_x, res)
}

/// `LayerNormGradBeta`'s steps (one round of all rows): per column, `x + 0` of the first row,
/// then each further row added in order.
fn beta_reference(res: &[f32], dy: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let (mut g, mut b) = (vec![0.0f32; H_LENGTH], vec![0.0f32; H_LENGTH]);
    for (i, (rr, dr)) in res.chunks(H_LENGTH).zip(dy.chunks(H_LENGTH)).enumerate() {
        for j in 0..H_LENGTH {
            let p = dr[j] * rr[j];
            if i == 0 {
                (g[j], b[j]) = (p + 0.0, dr[j] + 0.0);
            } else {
                (g[j], b[j]) = (g[j] + p, b[j] + dr[j]);
            }
        }
    }
    (g, b)
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/04_advanced_api/02_normalization/layernorm/
// layernorm.asc: LayerNorm<float, false>, LayerNormGrad<float, false> and
// LayerNormGradBeta<float, false> of [2, 32, 16], epsilon 1e-4, the stack buffer.
#[test]
fn adv_layernorm_example() {
    let (n, rows, h) = (B_LENGTH * S_LENGTH * H_LENGTH, B_LENGTH * S_LENGTH, H_LENGTH);
    let (tiling, workspace) = compute_tiling(B_LENGTH, S_LENGTH, H_LENGTH);
    // The minimums: LayerNorm 704, LayerNormGrad 6 * min(BSH, H²) * 4 = 6144, GradBeta 2 * H * 4.
    assert_eq!(workspace, 6144);
    let t = tiling.layernorm_tiling_data;
    // 1536 floats: three views of 512 (32 rows), two rounds, no tail.
    assert_eq!((t.one_tmp_size, t.loop_round, t.input_tail_size), (512, 2, 0));
    let g = tiling.layernorm_grad_tiling_data;
    // Six views of 256 floats (16 rows), four rounds.
    assert_eq!((g.one_cal_size, g.noh_cal_size, g.loop_num, g.tail_size), (256, 16, 4, 0));
    let gb = tiling.layernorm_grad_beta_tiling_data;
    assert_eq!((gb.one_cal_size, gb.loop_round, gb.input_tail_size), (1024, 1, 0));
    for (soc, seed) in [(Soc::Ascend910B, 71), (Soc::Ascend310P, 72)] {
        // gen_data.py: inputX, gamma, beta, dy = uniform(-100, 100) float32.
        let x: Vec<f32> = random_vec(n, seed, -100.0, 100.0);
        let gamma: Vec<f32> = random_vec(h, seed + 100, -100.0, 100.0);
        let beta: Vec<f32> = random_vec(h, seed + 200, -100.0, 100.0);
        let dy: Vec<f32> = random_vec(n, seed + 300, -100.0, 100.0);
        let ins = [x.clone(), gamma.clone(), beta.clone(), dy.clone()].map(GmBuffer::from_vec);
        let outs = [n, rows, rows, n, h, h].map(GmBuffer::<f32>::zeroed);
        let addrs: Vec<GmAddr> = ins.iter().chain(outs.iter()).map(|b| b.addr()).collect();
        let gms = Gms(addrs.try_into().unwrap());
        Launch::new(soc)
            .block_dim(1)
            .run(|| {
                let mut pipe = TPipe::new();
                let mut op = KernelLayerNorm::init(&gms, tiling, &mut pipe);
                op.process();
            })
            .unwrap();
        let [y, mean, var, pd_x, pd_gamma, pd_beta] = [0, 1, 2, 3, 4, 5].map(|i| outs[i].to_vec());
        let (wy, wm, wv) = reference(&x, &gamma, &beta, t.last_dim_value_back);
        assert_bits_eq(&y, &wy);
        assert_bits_eq(&mean, &wm);
        assert_bits_eq(&var, &wv);
        let (wpd, wres) = grad_reference(&dy, &x, &wv, &wm, &gamma);
        assert_bits_eq(&pd_x, &wpd);
        let (wg, wb) = beta_reference(&wres, &dy);
        assert_bits_eq(&pd_gamma, &wg);
        assert_bits_eq(&pd_beta, &wb);
        // The golden, as gen_data.py computes it (here in f64).
        let f = |v: &[f32]| v.iter().map(|&e| f64::from(e)).collect::<Vec<f64>>();
        let (xd, gd, bd, dyd) = (f(&x), f(&gamma), f(&beta), f(&dy));
        let (mut gy, mut gm, mut gv, mut gpd) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut gpg, mut gpb) = (vec![0.0f64; h], vec![0.0f64; h]);
        let eps = f64::from(EPSILON);
        let rec = 1.0 / h as f64;
        for (xr, dr) in xd.chunks(h).zip(dyd.chunks(h)) {
            let m = xr.iter().sum::<f64>() / h as f64;
            let var = xr.iter().map(|&v| (v - m).powi(2)).sum::<f64>() / h as f64;
            let tmp2 = 1.0 / (var + eps).sqrt();
            let xm: Vec<f64> = xr.iter().map(|&v| v - m).collect();
            let res: Vec<f64> = xm.iter().map(|&d| d * tmp2).collect();
            gy.extend(res.iter().zip(&gd).zip(&bd).map(|((&r, &g), &b)| g * r + b));
            let pd_xl: Vec<f64> = dr.iter().zip(&gd).map(|(&d, &g)| d * g).collect();
            let pd_var: f64 =
                pd_xl.iter().zip(&xm).map(|(&p, &d)| -0.5 * p * d * (var + eps).powf(-1.5)).sum();
            let pd_mean = pd_xl.iter().map(|&p| -p * tmp2).sum::<f64>()
                + pd_var * rec * xm.iter().map(|&d| -2.0 * d).sum::<f64>();
            gpd.extend(
                xm.iter().zip(&pd_xl).map(|(&d, &p)| pd_mean * rec + pd_var * 2.0 * rec * d + p * tmp2),
            );
            for j in 0..h {
                gpg[j] += dr[j] * res[j];
                gpb[j] += dr[j];
            }
            gm.push(m);
            gv.push(var);
        }
        compare_result(&y, &gy);
        compare_result(&mean, &gm);
        compare_result(&var, &gv);
        compare_result(&pd_x, &gpd);
        compare_result(&pd_gamma, &gpg);
        compare_result(&pd_beta, &gpb);
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
