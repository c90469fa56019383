//! Line-by-line ports of the vendor's high-level `Matmul` examples (`mirror-cann/asc-devkit`):
//!
//! - `examples/01_simd_cpp_api/00_introduction/03_fusion_operation/matmul_leakyrelu_advanced_api`
//!   (`matmul_leakyrelu_advanced_api.asc`): `C = LeakyRelu(A × B + bias, 0.001)`, M = 512,
//!   N = 128, K = 128, half A/B, float bias and C, `SetDim(2)`, `SetFixSplit(128, 64, 128)`,
//!   C to `VECIN`, `Iterate<true>` + `GetTensorC<true>(ub, false, true)`, then `LeakyRelu` and
//!   `DataCopy` to GM. The vendor's kernel is `__mix__(1, 2)` with `numBlocks = 1` (one AIC and
//!   two AIV, the two AIV being the tiling's two "cores"). The port launches it the same way,
//!   `KernelType::MixAic1_2` with `block_dim(1)`: the AIC's kernel ends right after
//!   `regist_matmul_obj!` (one added line: the vendor's macro runs its server loop there), each AIV's `Matmul` runs on the block's cube side (see
//!   `ascend_core::adv::matmul`), and `get_block_idx()` is the AIV's logical index (block
//!   × 2 plus sub-block), as the vendor's is in a MIX kernel. It also runs as a `KernelType::AivOnly`
//!   launch on two vector cores, with the same result.
//! - `examples/01_simd_cpp_api/04_advanced_api/00_matmul/matmul` (`matmul.asc`): `C = A × B +
//!   bias`, M = 128, N = 2048, K = 1024, half A/B, float bias and C, `CFG_NORM`, `__cube__`
//!   (a cube-only kernel), `SetDim(GetCoreNumAic())` = 24 on Ascend910B1, `IterateAll(cGlobal)`,
//!   with `SetTail` for the last core. Ported as a `KernelType::AicOnly` launch on
//!   `usedCoreNum` cores.
//!
//! Golden data: `gen_data.py` of each example. The leakyrelu example draws integers in
//! [1, 10): every sum is an exact integer below 2^24, so the output must match bit for bit;
//! the matmul example draws uniform [-1, 1) halves and [-10, 10) bias and checks with
//! `verify_result.py`'s tolerance (rtol = atol = 1e-3, at most 0.1 % of elements off); it is
//! also checked bit for bit against the cube's documented arithmetic.
//!
//! Not ported: the `__NPU_ARCH__ == 2002` branch (`SetLocalWorkspace`, Ascend310P) and the
//! Ascend 950 platform branch.

use ascend_core::adv::matmul_tiling::{CubeFormat, DataType, MultiCoreMatmulTiling, TPos};
use ascend_runtime::prelude::*;
use ascend_runtime::testing::{compare_close, Tolerance};

// ---------------------------------------------------------------------------------------------
// matmul_leakyrelu_advanced_api

/// `matmul_leakyrelu_custom(a, b, bias, c, workspace, tiling)`.
fn matmul_leakyrelu_custom(
    a: GmAddr,
    b: GmAddr,
    bias: GmAddr,
    c: GmAddr,
    workspace: GmAddr,
    tiling: TCubeTiling,
) {
    init_soc_state();
    let mut pipe = TPipe::new();
    let mut a_global = GlobalTensor::<f16>::new();
    let mut b_global = GlobalTensor::<f16>::new();
    let mut c_global = GlobalTensor::<f32>::new();
    let mut bias_global = GlobalTensor::<f32>::new();
    let mut mm_out_queue = TQue::<VecIn, 1>::new();
    let mut relu_out_queue = TQue::<VecOut, 1>::new();
    let mut matmul_obj = Matmul::<
        MatmulType<Gm, cube_format::ND, f16>,
        MatmulType<Gm, cube_format::ND, f16>,
        MatmulType<VecIn, cube_format::ND, f32>,
        MatmulType<Gm, cube_format::ND, f32>,
    >::new();
    // The vendor passes GetSysWorkSpacePtr() (the `__kfc_workspace__` argument).
    regist_matmul_obj!(&pipe, workspace, matmul_obj, &tiling);
    // Added: the vendor's macro never returns on the AIC of a mixed kernel (its Matmul server).
    if is_matmul_server() {
        return;
    }
    let t = &tiling;
    a_global.set_global_buffer(a, (t.M * t.Ka) as usize);
    b_global.set_global_buffer(b, (t.Kb * t.N) as usize);
    c_global.set_global_buffer(c, (t.M * t.N) as usize);
    bias_global.set_global_buffer(bias, t.N as usize);
    let block_idx = get_block_idx() as usize;
    let n_core_offset = block_idx * t.singleCoreN as usize;
    b_global = b_global.view(n_core_offset);
    bias_global = bias_global.view(n_core_offset);
    c_global = c_global.view(n_core_offset);
    matmul_obj.set_tensor_a(&a_global, false);
    matmul_obj.set_tensor_b(&b_global, false);
    matmul_obj.set_bias(&bias_global);

    let base = (t.baseM * t.baseN) as usize;
    pipe.init_buffer(&mut mm_out_queue, 1, base * std::mem::size_of::<f32>());
    pipe.init_buffer(&mut relu_out_queue, 1, base * std::mem::size_of::<f32>());
    let mut compute_round = 0usize;
    while matmul_obj.iterate::<true>() {
        let mm_out_local = mm_out_queue.alloc_tensor::<f32>();
        matmul_obj.get_tensor_c::<true, _>(&mm_out_local, false, true);
        mm_out_queue.enque(mm_out_local);
        let mm_out_local = mm_out_queue.deque::<f32>();
        let relu_out_local = relu_out_queue.alloc_tensor::<f32>();
        leaky_relu(&relu_out_local, &mm_out_local, 0.001f32, base);
        relu_out_queue.enque(relu_out_local);
        let relu_out_local = relu_out_queue.deque::<f32>();
        mm_out_queue.free_tensor(mm_out_local);
        let c_offset = compute_round * (t.baseM * t.N) as usize;
        // {blockCount, blockLen, srcGap, dstGap}
        data_copy_params(
            &c_global.view(c_offset),
            &relu_out_local,
            &DataCopyParams::new(
                t.baseM as u16,
                (t.baseN as usize * std::mem::size_of::<f32>() / 32) as u16,
                0,
                ((t.N - t.baseN) as usize * std::mem::size_of::<f32>() / 32) as u16,
            ),
        );
        relu_out_queue.free_tensor(relu_out_local);
        compute_round += 1;
    }
    matmul_obj.end();
}

/// `GenerateTiling(ascendcPlatform)` of the leakyrelu example.
fn generate_tiling_leakyrelu() -> TCubeTiling {
    const M: i32 = 512;
    const N: i32 = 128;
    const K: i32 = 128;
    let (base_m, base_n, base_k) = (128, 64, 128);
    let used_core_num = 2;
    let mut tiling_api = MultiCoreMatmulTiling::new(Soc::Ascend910B);
    tiling_api.set_dim(used_core_num);
    tiling_api.set_a_type(TPos::GM, CubeFormat::ND, DataType::DT_FLOAT16, false);
    tiling_api.set_b_type(TPos::GM, CubeFormat::ND, DataType::DT_FLOAT16, false);
    tiling_api.set_c_type(TPos::VECIN, CubeFormat::ND, DataType::DT_FLOAT);
    tiling_api.set_bias_type(TPos::GM, CubeFormat::ND, DataType::DT_FLOAT);
    tiling_api.set_org_shape(M, N, K);
    tiling_api.set_shape(M, N, K);
    tiling_api.enable_bias(true);
    tiling_api.set_fix_split(base_m, base_n, base_k);
    let ub_size = Soc::Ascend910B.ub_size() as i32;
    let used_ub = base_m * base_n * std::mem::size_of::<f32>() as i32;
    tiling_api.set_buffer_space(-1, -1, ub_size - used_ub);
    tiling_api.get_tiling().expect("gen tiling failed")
}

fn ints_f16(len: usize, lo: i64, hi: i64, seed: u64) -> Vec<f16> {
    let mut rng = ascend_kernels::data::XorShift64::new(seed);
    (0..len).map(|_| f16::from_f32(rng.range(lo, hi) as f32)).collect()
}

#[test]
fn matmul_leakyrelu_advanced_api_matches_the_golden_bit_for_bit() {
    let (m, n, k) = (512usize, 128usize, 128usize);
    let tiling = generate_tiling_leakyrelu();
    // The example's comments: split along N in 2, each logical core 512 x 64, 4 Iterates.
    assert_eq!((tiling.singleCoreM, tiling.singleCoreN, tiling.singleCoreK), (512, 64, 128));
    assert_eq!((tiling.baseM, tiling.baseN, tiling.baseK, tiling.usedCoreNum), (128, 64, 128, 2));
    // gen_data.py: randint(1, 10) for A, B (half) and bias (float).
    let a = ints_f16(m * k, 1, 10, 1);
    let b = ints_f16(k * n, 1, 10, 2);
    let mut rng = ascend_kernels::data::XorShift64::new(3);
    let bias: Vec<f32> = (0..n).map(|_| rng.range(1, 10) as f32).collect();
    let golden: Vec<f32> = (0..m * n)
        .map(|i| {
            let (r, c) = (i / n, i % n);
            let s: f32 =
                (0..k).map(|kk| a[r * k + kk].to_f32() * b[kk * n + c].to_f32()).sum::<f32>() + bias[c];
            if s >= 0.0 {
                s
            } else {
                s * 0.001
            }
        })
        .collect();
    let (ga, gb, gbias) = (GmBuffer::from_vec(a), GmBuffer::from_vec(b), GmBuffer::from_vec(bias));
    let gc = GmBuffer::<f32>::zeroed(m * n);
    let ws = GmBuffer::<u8>::zeroed(32);
    let (pa, pb, pbias, pc, pw) = (ga.addr(), gb.addr(), gbias.addr(), gc.addr(), ws.addr());
    // As the vendor launches it (`__mix__(1, 2)`, one block), then as two vector cores.
    for (kernel_type, blocks) in
        [(KernelType::MixAic1_2, 1), (KernelType::AivOnly, tiling.usedCoreNum as u32)]
    {
        gc.write_from(&vec![0f32; m * n]);
        Launch::new(Soc::Ascend910B)
            .kernel_type(kernel_type)
            .block_dim(blocks)
            .run(move || matmul_leakyrelu_custom(pa, pb, pbias, pc, pw, tiling))
            .unwrap();
        let out = gc.to_vec();
        assert_eq!(
            out.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            golden.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            "{kernel_type:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// 04_advanced_api/00_matmul/matmul

const M: usize = 128;
const N: usize = 2048;
const K: usize = 1024;
const IS_TRANS_A: bool = false;
const IS_TRANS_B: bool = false;
const IS_BIAS: bool = true;

type MatmulObj = Matmul<
    MatmulType<Gm, cube_format::ND, f16>,
    MatmulType<Gm, cube_format::ND, f16>,
    MatmulType<Gm, cube_format::ND, f32>,
    MatmulType<Gm, cube_format::ND, f32>,
    CfgNorm,
>;

/// `MatmulKernel<half, half, float, float>`.
struct MatmulKernel {
    matmul_obj: MatmulObj,
    a_global: GlobalTensor<f16>,
    b_global: GlobalTensor<f16>,
    c_global: GlobalTensor<f32>,
    bias_global: GlobalTensor<f32>,
    tiling: TCubeTiling,
}

impl MatmulKernel {
    fn new() -> Self {
        MatmulKernel {
            matmul_obj: MatmulObj::new(),
            a_global: GlobalTensor::new(),
            b_global: GlobalTensor::new(),
            c_global: GlobalTensor::new(),
            bias_global: GlobalTensor::new(),
            tiling: TCubeTiling::default(),
        }
    }

    fn init(&mut self, a: GmAddr, b: GmAddr, bias: GmAddr, c: GmAddr, tiling: &TCubeTiling) {
        self.tiling = *tiling;
        let t = tiling;
        self.a_global.set_global_buffer(a, (t.M * t.Ka) as usize);
        self.b_global.set_global_buffer(b, (t.Kb * t.N) as usize);
        self.c_global.set_global_buffer(c, (t.M * t.N) as usize);
        self.bias_global.set_global_buffer(bias, t.N as usize);
        let (offset_a, offset_b, offset_c, offset_bias) = self.calc_offset(get_block_idx() as i32);
        self.a_global = self.a_global.view(offset_a as usize);
        self.b_global = self.b_global.view(offset_b as usize);
        self.c_global = self.c_global.view(offset_c as usize);
        self.bias_global = self.bias_global.view(offset_bias as usize);
    }

    fn process(&mut self, _pipe: &mut TPipe) {
        self.matmul_obj.set_tensor_a(&self.a_global, IS_TRANS_A);
        self.matmul_obj.set_tensor_b(&self.b_global, IS_TRANS_B);
        if self.tiling.isBias != 0 {
            self.matmul_obj.set_bias(&self.bias_global);
        }
        self.matmul_obj.iterate_all::<true>(&self.c_global, false);
        self.matmul_obj.end();
    }

    fn calc_offset(&mut self, block_idx: i32) -> (i32, i32, i32, i32) {
        let t = self.tiling;
        let m_single_blocks = (t.M + t.singleCoreM - 1) / t.singleCoreM;
        let m_core_indx = block_idx % m_single_blocks;
        let n_core_indx = block_idx / m_single_blocks;
        let mut offset_a = m_core_indx * t.Ka * t.singleCoreM;
        if IS_TRANS_A {
            offset_a = m_core_indx * t.singleCoreM;
        }
        let mut offset_b = n_core_indx * t.singleCoreN;
        if IS_TRANS_B {
            offset_b = n_core_indx * t.Kb * t.singleCoreN;
        }
        let offset_c = m_core_indx * t.N * t.singleCoreM + n_core_indx * t.singleCoreN;
        let offset_bias = n_core_indx * t.singleCoreN;
        // process with tail block
        let tail_m = (t.M - m_core_indx * t.singleCoreM).min(t.singleCoreM);
        let tail_n = (t.N - n_core_indx * t.singleCoreN).min(t.singleCoreN);
        if tail_m < t.singleCoreM || tail_n < t.singleCoreN {
            self.matmul_obj.set_tail(tail_m, tail_n, -1);
        }
        (offset_a, offset_b, offset_c, offset_bias)
    }
}

/// `matmul_custom(a, b, bias, c, workspace, tilingGm)`.
fn matmul_custom(a: GmAddr, b: GmAddr, bias: GmAddr, c: GmAddr, workspace: GmAddr, tiling_gm: GmAddr) {
    init_soc_state();
    let tiling: TCubeTiling = get_tiling_data(tiling_gm);
    let mut pipe = TPipe::new();
    let mut matmul_kernel = MatmulKernel::new();
    regist_matmul_obj!(&pipe, workspace, matmul_kernel.matmul_obj, &tiling);
    matmul_kernel.init(a, b, bias, c, &tiling);
    matmul_kernel.process(&mut pipe);
}

/// `GenerateTiling` of the matmul example (`SetDim(GetCoreNumAic())`: 24 on Ascend910B1).
fn generate_tiling_matmul() -> TCubeTiling {
    let mut tiling_api = MultiCoreMatmulTiling::new(Soc::Ascend910B);
    tiling_api.set_dim(24);
    tiling_api.set_a_type(TPos::GM, CubeFormat::ND, DataType::DT_FLOAT16, IS_TRANS_A);
    tiling_api.set_b_type(TPos::GM, CubeFormat::ND, DataType::DT_FLOAT16, IS_TRANS_B);
    tiling_api.set_c_type(TPos::GM, CubeFormat::ND, DataType::DT_FLOAT);
    tiling_api.set_bias_type(TPos::GM, CubeFormat::ND, DataType::DT_FLOAT);
    tiling_api.set_org_shape(M as i32, N as i32, K as i32);
    tiling_api.set_shape(M as i32, N as i32, K as i32);
    tiling_api.enable_bias(IS_BIAS);
    tiling_api.set_buffer_space(-1, -1, -1);
    tiling_api.get_tiling().expect("gen tiling failed")
}

fn uniform_f16(len: usize, lo: f64, hi: f64, seed: u64) -> Vec<f16> {
    let mut rng = ascend_kernels::data::XorShift64::new(seed);
    (0..len).map(|_| f16::from_f64(lo + (hi - lo) * rng.next_f64())).collect()
}

#[test]
fn matmul_advanced_matches_the_golden_within_the_examples_tolerance() {
    let tiling = generate_tiling_matmul();
    let a = uniform_f16(M * K, -1.0, 1.0, 11);
    let b = uniform_f16(K * N, -1.0, 1.0, 12);
    let mut rng = ascend_kernels::data::XorShift64::new(13);
    let bias: Vec<f32> = (0..N).map(|_| (-10.0 + 20.0 * rng.next_f64()) as f32).collect();
    // gen_data.py: float32(A) @ float32(B) + bias, in float.
    let golden: Vec<f32> = (0..M * N)
        .map(|i| {
            let (r, c) = (i / N, i % N);
            (0..K).map(|kk| a[r * K + kk].to_f32() * b[kk * N + c].to_f32()).sum::<f32>() + bias[c]
        })
        .collect();
    // The cube's arithmetic: from the bias, each run of 16 depths exact, rounded once, added in float.
    let exact: Vec<f32> = (0..M * N)
        .map(|i| {
            let (r, c) = (i / N, i % N);
            let mut acc = bias[c];
            for k0 in (0..K).step_by(16) {
                let s: f64 = (k0..k0 + 16)
                    .map(|kk| f64::from(a[r * K + kk].to_f32()) * f64::from(b[kk * N + c].to_f32()))
                    .sum();
                acc += s as f32;
            }
            acc
        })
        .collect();
    let (ga, gb, gbias) = (GmBuffer::from_vec(a), GmBuffer::from_vec(b), GmBuffer::from_vec(bias));
    let gc = GmBuffer::<f32>::zeroed(M * N);
    let ws = GmBuffer::<u8>::zeroed(32);
    let gt = GmBuffer::from_tiling(&tiling);
    let (pa, pb, pbias, pc, pw, pt) = (ga.addr(), gb.addr(), gbias.addr(), gc.addr(), ws.addr(), gt.addr());
    Launch::new(Soc::Ascend910B)
        .kernel_type(KernelType::AicOnly)
        .block_dim(tiling.usedCoreNum as u32)
        .run(move || matmul_custom(pa, pb, pbias, pc, pw, pt))
        .unwrap();
    let out = gc.to_vec();
    // verify_result.py: rtol = atol = 1e-3, error ratio <= 1e-3.
    let report = compare_close(&out, &golden, Tolerance::new(1e-3, 1e-3, 1e-3)).unwrap();
    assert!(report.passed(), "{report:?}");
    assert_eq!(
        out.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        exact.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
}
