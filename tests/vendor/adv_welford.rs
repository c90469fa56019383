//! Port of the vendor's `welford` example (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/04_advanced_api/02_normalization/welford/welford.asc`):
//! `WelfordUpdate<float, float, false, {isInplace = true}>` of one `[1, 64]` block with 35
//! computed elements and `nRec = 1/8`, its buffer `GetWelfordUpdateMaxMinTmpSize`'s minimum,
//! then `WelfordFinalize<false>` with counts over 8 partials (the first one the update's
//! element 0, count 1), on both chips that implement them (Ascend910B and Ascend310P). The
//! tiling goes through GM and is copied back word by word (`CopyTilingData`), as the example
//! does.
//!
//! The example's inputs (`gen_data.py`: `uniform(1, 100)`, `uniform(-60000, 60000)`,
//! `uniform(0, 60000)` as `float32`) come from a seeded generator here. Its golden is
//! `float32` arithmetic in the order the chip computes (`m + (x - m) * n`, `v + (x - m) * (x
//! - mean)`), so the outputs are compared with it bit for bit, and the example's own
//! `CompareResult` tolerance (1e-3 absolute) is checked too.

use ascend_kernels::data::random_vec;
use ascend_runtime::prelude::*;
use ascend_runtime::testing::assert_bits_eq;
use bytemuck::{Pod, Zeroable};

const RN_SIZE: u32 = 1;
const AB_SIZE: u32 = 64;
const AB_COMPUTE_LENGTH: u32 = 35;
const NREC: f32 = 1.0 / 8.0;
const LOCAL_BYTES: u32 = 32;

/// The example's `WelfordCoopTiling` (its `bool inplace` as a byte and the padding after it).
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct WelfordCoopTiling {
    n_length: u32,
    r_length: u32,
    ab_compute_length: u32,
    n_rec: f32,
    tmp_local_size: u32,
    inplace: u8,
    _pad: [u8; 3],
    rn_length: u32,
    ab_length: u32,
    head: u32,
    head_length: u32,
    tail: u32,
    tail_length: u32,
    ab_rec: f32,
    r_rec: f32,
}

/// `GenerateWelfordCoopTiling`.
fn generate_welford_coop_tiling() -> WelfordCoopTiling {
    let mut tiling_data = WelfordCoopTiling {
        n_length: RN_SIZE,
        r_length: AB_SIZE,
        ab_compute_length: AB_COMPUTE_LENGTH,
        n_rec: NREC,
        tmp_local_size: 0,
        inplace: 1,
        _pad: [0; 3],
        rn_length: 1,
        ab_length: 8,
        head: 0,
        head_length: 0,
        tail: 0,
        tail_length: 0,
        ab_rec: 1.0,
        r_rec: 1.0,
    };
    let src_shape = [RN_SIZE as usize, AB_SIZE as usize];
    let (dtypesize_t, dtypesize_u) = (4, 4);
    let (_maxsize, minsize) = get_welford_update_max_min_tmp_size(
        &src_shape,
        dtypesize_t,
        dtypesize_u,
        false,
        tiling_data.inplace != 0,
    );
    tiling_data.tmp_local_size = minsize as u32;
    tiling_data.ab_rec = 1.0 / tiling_data.ab_length as f32;
    tiling_data
}

/// `CopyTilingData`: the tiling's 32-bit words read one by one from GM.
fn copy_tiling_data(tiling_data: &mut WelfordCoopTiling, tiling_gm: GmAddr) {
    let words: &mut [u32] = bytemuck::cast_slice_mut(bytemuck::bytes_of_mut(tiling_data));
    for (i, w) in words.iter_mut().enumerate() {
        *w = tiling_gm.read_at::<u32>(i);
    }
}

struct KernelWelfordCoop {
    input_x_global: GlobalTensor<f32>,
    input_mean_global: GlobalTensor<f32>,
    input_var_global: GlobalTensor<f32>,
    output_mean_global: GlobalTensor<f32>,
    output_var_global: GlobalTensor<f32>,
    final_mean_global: GlobalTensor<f32>,
    final_var_global: GlobalTensor<f32>,
    in_queue_x: TQue<VecIn, 1>,
    in_queue_mean: TQue<VecIn, 1>,
    in_queue_var: TQue<VecIn, 1>,
    out_queue_mean: TQue<VecOut, 1>,
    out_queue_var: TQue<VecOut, 1>,
    out_queue_final_mean: TQue<VecOut, 1>,
    out_queue_final_var: TQue<VecOut, 1>,
    tmp_local_buf: TBuf<VecCalc>,
    tmp_local_bytes: u32,
    bsh_length: usize,
    tiling_data: WelfordCoopTiling,
}

impl KernelWelfordCoop {
    #[allow(clippy::too_many_arguments)]
    fn init(
        src_gm: GmAddr,
        in_mean_gm: GmAddr,
        in_var_gm: GmAddr,
        out_mean_gm: GmAddr,
        out_var_gm: GmAddr,
        final_mean_gm: GmAddr,
        final_var_gm: GmAddr,
        tiling_data: WelfordCoopTiling,
        pipe: &mut TPipe,
    ) -> Self {
        let bsh_length = (tiling_data.n_length * tiling_data.r_length) as usize;
        let mut op = KernelWelfordCoop {
            input_x_global: GlobalTensor::new(),
            input_mean_global: GlobalTensor::new(),
            input_var_global: GlobalTensor::new(),
            output_mean_global: GlobalTensor::new(),
            output_var_global: GlobalTensor::new(),
            final_mean_global: GlobalTensor::new(),
            final_var_global: GlobalTensor::new(),
            in_queue_x: TQue::new(),
            in_queue_mean: TQue::new(),
            in_queue_var: TQue::new(),
            out_queue_mean: TQue::new(),
            out_queue_var: TQue::new(),
            out_queue_final_mean: TQue::new(),
            out_queue_final_var: TQue::new(),
            tmp_local_buf: TBuf::new(),
            tmp_local_bytes: 0,
            bsh_length,
            tiling_data,
        };
        op.input_x_global.set_global_buffer(src_gm, bsh_length);
        op.input_mean_global.set_global_buffer(in_mean_gm, bsh_length);
        op.input_var_global.set_global_buffer(in_var_gm, bsh_length);
        op.output_mean_global.set_global_buffer(out_mean_gm, bsh_length);
        op.output_var_global.set_global_buffer(out_var_gm, bsh_length);
        op.final_mean_global.set_global_buffer(final_mean_gm, 8);
        op.final_var_global.set_global_buffer(final_var_gm, 8);
        pipe.init_buffer(&mut op.in_queue_x, 1, 4 * bsh_length);
        pipe.init_buffer(&mut op.in_queue_mean, 1, 4 * bsh_length);
        pipe.init_buffer(&mut op.in_queue_var, 1, 4 * bsh_length);
        pipe.init_buffer(&mut op.out_queue_mean, 1, 4 * bsh_length);
        pipe.init_buffer(&mut op.out_queue_var, 1, 4 * bsh_length);
        pipe.init_buffer(&mut op.out_queue_final_mean, 1, 8 * 4);
        pipe.init_buffer(&mut op.out_queue_final_var, 1, 8 * 4);
        if tiling_data.tmp_local_size > 0 {
            op.tmp_local_bytes = tiling_data.tmp_local_size;
            if op.tmp_local_bytes % LOCAL_BYTES != 0 {
                op.tmp_local_bytes = op.tmp_local_bytes.div_ceil(LOCAL_BYTES) * LOCAL_BYTES;
            }
            pipe.init_tbuf(&mut op.tmp_local_buf, op.tmp_local_bytes as usize);
        }
        op
    }

    fn process(&mut self, pipe: &mut TPipe) {
        self.copy_in();
        self.compute(pipe);
        self.copy_out();
    }

    fn copy_in(&mut self) {
        let input_x_local = self.in_queue_x.alloc_tensor::<f32>();
        let in_mean_local = self.in_queue_mean.alloc_tensor::<f32>();
        let in_var_local = self.in_queue_var.alloc_tensor::<f32>();
        data_copy(&input_x_local, &self.input_x_global, self.bsh_length);
        data_copy(&in_mean_local, &self.input_mean_global, self.bsh_length);
        data_copy(&in_var_local, &self.input_var_global, self.bsh_length);
        self.in_queue_x.enque(input_x_local);
        self.in_queue_mean.enque(in_mean_local);
        self.in_queue_var.enque(in_var_local);
    }

    fn compute(&mut self, pipe: &mut TPipe) {
        let input_x_local = self.in_queue_x.deque::<f32>();
        let in_mean_local = self.in_queue_mean.deque::<f32>();
        let in_var_local = self.in_queue_var.deque::<f32>();
        let out_mean_local = self.out_queue_mean.alloc_tensor::<f32>();
        let out_var_local = self.out_queue_var.alloc_tensor::<f32>();
        let final_mean_local = self.out_queue_final_mean.alloc_tensor::<f32>();
        let final_var_local = self.out_queue_final_var.alloc_tensor::<f32>();

        duplicate(&final_mean_local, 0.0f32, 8);
        duplicate(&final_var_local, 0.0f32, 8);

        // WelfordUpdate (WELFORD_UPDATE_ENABLE_INPLACE_CFG = {true}, UNENABLE = {false}).
        let t = &self.tiling_data;
        let update_para = WelfordUpdateParam {
            rn_length: t.n_length,
            ab_length: t.r_length,
            ab_compute_length: t.ab_compute_length,
            n_rec: t.n_rec,
        };
        let (om, ov, im, iv, x) =
            (&out_mean_local, &out_var_local, &in_mean_local, &in_var_local, &input_x_local);
        if self.tmp_local_bytes > 0 {
            let tmp_local_tensor = self.tmp_local_buf.get::<u8>();
            if t.inplace != 0 {
                welford_update::<f32, false, true>(om, ov, im, iv, x, &tmp_local_tensor, &update_para);
            } else {
                welford_update::<f32, false, false>(om, ov, im, iv, x, &tmp_local_tensor, &update_para);
            }
        } else if t.inplace != 0 {
            welford_update_stack::<f32, false, true>(om, ov, im, iv, x, &update_para);
        } else {
            welford_update_stack::<f32, false, false>(om, ov, im, iv, x, &update_para);
        }

        // WelfordFinalize over 8 partials with counts.
        let ab = t.ab_length as usize;
        let mut counts_buf = TBuf::<VecCalc>::new();
        pipe.init_tbuf(&mut counts_buf, ab * 4);
        let counts = counts_buf.get::<i32>();
        duplicate(&counts, 0i32, ab);
        counts.set_value(0, 1);

        let (mut mean_buf, mut var_buf) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
        pipe.init_tbuf(&mut mean_buf, ab * 4);
        pipe.init_tbuf(&mut var_buf, ab * 4);
        let mean_for_finalize = mean_buf.get::<f32>();
        let var_for_finalize = var_buf.get::<f32>();
        duplicate(&mean_for_finalize, 0.0f32, ab);
        duplicate(&var_for_finalize, 0.0f32, ab);
        mean_for_finalize.set_value(0, out_mean_local.get_value(0));
        var_for_finalize.set_value(0, out_var_local.get_value(0));

        // dav-2201: tailCountLength must be 0 when tailCount is 0.
        let finalize_para = WelfordFinalizePara {
            rn_length: t.rn_length,
            ab_length: t.ab_length,
            head_count: 1,
            head_count_length: t.ab_length,
            tail_count: 0,
            tail_count_length: 0,
            ab_rec: t.ab_rec,
            r_rec: 1.0,
        };
        let mut finalize_tmp_buf = TBuf::<VecCalc>::new();
        pipe.init_tbuf(&mut finalize_tmp_buf, 1024);
        let finalize_tmp_tensor = finalize_tmp_buf.get::<u8>();
        welford_finalize_counts::<false>(
            &final_mean_local,
            &final_var_local,
            &mean_for_finalize,
            &var_for_finalize,
            &counts,
            &finalize_tmp_tensor,
            &finalize_para,
        );
        self.in_queue_x.free_tensor(input_x_local);
        self.in_queue_mean.free_tensor(in_mean_local);
        self.in_queue_var.free_tensor(in_var_local);
        self.out_queue_mean.enque(out_mean_local);
        self.out_queue_var.enque(out_var_local);
        self.out_queue_final_mean.enque(final_mean_local);
        self.out_queue_final_var.enque(final_var_local);
    }

    fn copy_out(&mut self) {
        let out_mean_local = self.out_queue_mean.deque::<f32>();
        let out_var_local = self.out_queue_var.deque::<f32>();
        let final_mean_local = self.out_queue_final_mean.deque::<f32>();
        let final_var_local = self.out_queue_final_var.deque::<f32>();
        data_copy(&self.output_mean_global, &out_mean_local, self.bsh_length);
        data_copy(&self.output_var_global, &out_var_local, self.bsh_length);
        data_copy(&self.final_mean_global, &final_mean_local, 8);
        data_copy(&self.final_var_global, &final_var_local, 8);
        self.out_queue_mean.free_tensor(out_mean_local);
        self.out_queue_var.free_tensor(out_var_local);
        self.out_queue_final_mean.free_tensor(final_mean_local);
        self.out_queue_final_var.free_tensor(final_var_local);
    }
}

/// `welford_coop_custom(srcGm, inMeanGm, inVarGm, outMeanGm, outVarGm, finalMeanGm, finalVarGm,
/// workspace, tiling)`.
#[allow(clippy::too_many_arguments)]
fn welford_coop_custom(
    src_gm: GmAddr,
    in_mean_gm: GmAddr,
    in_var_gm: GmAddr,
    out_mean_gm: GmAddr,
    out_var_gm: GmAddr,
    final_mean_gm: GmAddr,
    final_var_gm: GmAddr,
    _workspace: GmAddr,
    tiling: GmAddr,
) {
    let mut pipe = TPipe::new();
    let mut tiling_data = WelfordCoopTiling::zeroed();
    copy_tiling_data(&mut tiling_data, tiling);
    let mut op = KernelWelfordCoop::init(
        src_gm,
        in_mean_gm,
        in_var_gm,
        out_mean_gm,
        out_var_gm,
        final_mean_gm,
        final_var_gm,
        tiling_data,
        &mut pipe,
    );
    op.process(&mut pipe);
}

#[test]
fn adv_welford_example() {
    let n = (RN_SIZE * AB_SIZE) as usize;
    let tiling = generate_welford_coop_tiling();
    assert_eq!(tiling.tmp_local_size, 512); // two 256-byte slots for float samples
    assert_eq!(std::mem::size_of::<WelfordCoopTiling>(), 56);
    for (soc, seed) in [(Soc::Ascend910B, 19), (Soc::Ascend310P, 20)] {
        // gen_data.py: x1 = uniform(1, 100), x2 = uniform(-60000, 60000), x3 = uniform(0, 60000).
        let x1: Vec<f32> = random_vec(n, seed, 1.0, 100.0);
        let x2: Vec<f32> = random_vec(n, seed + 100, -60000.0, 60000.0);
        let x3: Vec<f32> = random_vec(n, seed + 200, 0.0, 60000.0);
        let (src, in_mean, in_var) =
            (GmBuffer::from_vec(x1.clone()), GmBuffer::from_vec(x2.clone()), GmBuffer::from_vec(x3.clone()));
        let (out_mean, out_var) = (GmBuffer::<f32>::zeroed(n), GmBuffer::<f32>::zeroed(n));
        let (final_mean, final_var) = (GmBuffer::<f32>::zeroed(8), GmBuffer::<f32>::zeroed(8));
        let workspace = GmBuffer::<u8>::zeroed(1024 * 1024);
        let tiling_gm = GmBuffer::from_slice(bytemuck::cast_slice::<WelfordCoopTiling, u32>(&[tiling]));
        Launch::new(soc)
            .block_dim(1)
            .run(|| {
                welford_coop_custom(
                    src.addr(),
                    in_mean.addr(),
                    in_var.addr(),
                    out_mean.addr(),
                    out_var.addr(),
                    final_mean.addr(),
                    final_var.addr(),
                    workspace.addr(),
                    tiling_gm.addr(),
                )
            })
            .unwrap();
        // The golden, in float32 as gen_data.py computes it.
        let (mut golden1, mut golden2) = (x2.clone(), x3.clone());
        let nrec = NREC;
        for i in 0..AB_COMPUTE_LENGTH as usize {
            golden1[i] = x2[i] + (x1[i] - x2[i]) * nrec;
            golden2[i] = x3[i] + (x1[i] - x2[i]) * (x1[i] - golden1[i]);
        }
        let mut final_mean_array = [0.0f32; 8];
        let mut final_var_array = [0.0f32; 8];
        final_mean_array[0] = golden1[0];
        final_var_array[0] = golden2[0];
        let outputs = [out_mean.to_vec(), out_var.to_vec(), final_mean.to_vec(), final_var.to_vec()];
        let goldens = [golden1, golden2, final_mean_array.to_vec(), final_var_array.to_vec()];
        for (out, golden) in outputs.iter().zip(&goldens) {
            assert_bits_eq(out, golden);
            // CompareResult: |output - golden| <= 1e-3 everywhere.
            assert!(out.iter().zip(golden).all(|(a, b)| (a - b).abs() <= 1e-3));
        }
    }
}
