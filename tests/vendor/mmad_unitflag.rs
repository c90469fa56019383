//! Line-by-line port of the vendor's `mmad_unitflag` example (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/03_basic_api/03_matrix_compute/mmad_unitflag`), built as the
//! example's default (`ENABLE_UNITFLAG = 1`): `C (128 × 256, float) = A (128 × 512) × B (512 ×
//! 256)` (half) on one AIC core of Ascend910B (its `__NPU_ARCH__ == 2201` branch), K split in
//! `kRound = 8` slices accumulated in L0C, each `Mmad` with `unitFlag` 2 and the last with 3,
//! `Fixpipe` with `unitFlag` 3, then `SetFixPipeConfig` clearing the unit flags. A arrives with
//! its K slices outermost (`(kRound, M, K / kRound)`, as the example's `gen_data.py` reshapes
//! it). Every hand-off has its event, as in the example, and the sanitizer stays on.
//!
//! Data: the example draws `uniform(1, 10)` halves and compares with a float32 `np.matmul`
//! within `rtol = 1e-6`; here the halves are the integers 1..=9, so every sum is exact in float
//! and the output must equal the golden bit for bit.
//!
//! Not ported: the `__NPU_ARCH__ == 3510` branch (`LoadData2DParamsV2`,
//! `FixpipeParamsArch3510`: Ascend 950 only).

use ascend_runtime::prelude::*;

const M: usize = 128;
const N: usize = 256;
const K: usize = 512;
const K_ROUND: usize = 8;
const BLOCK_CUBE: usize = 16;
const C0_SIZE: usize = 32 / 2; // 32 / sizeof(half)
const FRACTAL_SIZE: usize = BLOCK_CUBE * C0_SIZE;
const ADDR_0: usize = 0;
const LIMIT_MNSIZE: usize = 10;

fn ceil_div(a: usize, b: usize) -> usize {
    a.div_ceil(b)
}

fn ceil_align(a: usize, b: usize) -> usize {
    a.div_ceil(b) * b
}

/// `KernelMmad<float, half, M, N, K, kRound>`.
struct KernelMmad {
    a_gm: GlobalTensor<f16>,
    b_gm: GlobalTensor<f16>,
    c_gm: GlobalTensor<f32>,
    // Split along K.
    m: usize,
    k: usize,
    n: usize,
    a_single_size: usize,
    b_single_size: usize,
    c_single_size: usize,
    a1_addr: usize,
    b1_addr: usize,
}

impl KernelMmad {
    fn new() -> Self {
        let (m, k, n) = (M, K / K_ROUND, N);
        let a_single_size = ceil_align(m, BLOCK_CUBE) * ceil_align(k, C0_SIZE);
        let b_single_size = ceil_align(k, C0_SIZE) * ceil_align(n, BLOCK_CUBE);
        let c_single_size = ceil_align(m, BLOCK_CUBE) * ceil_align(n, BLOCK_CUBE);
        let a1_addr = ADDR_0;
        let b1_addr = a1_addr + a_single_size * 2;
        KernelMmad {
            a_gm: GlobalTensor::new(),
            b_gm: GlobalTensor::new(),
            c_gm: GlobalTensor::new(),
            m,
            k,
            n,
            a_single_size,
            b_single_size,
            c_single_size,
            a1_addr,
            b1_addr,
        }
    }

    fn init(&mut self, a: GmAddr, b: GmAddr, c: GmAddr) {
        self.a_gm.set_global_buffer_addr(a);
        self.b_gm.set_global_buffer_addr(b);
        self.c_gm.set_global_buffer_addr(c);
    }

    fn process(&self) {
        let a1_local = LocalTensor::<f16>::new(TPosition::A1, self.a1_addr, self.a_single_size);
        let b1_local = LocalTensor::<f16>::new(TPosition::B1, self.b1_addr, self.b_single_size);
        let a2_local = LocalTensor::<f16>::new(TPosition::A2, ADDR_0, self.a_single_size);
        let b2_local = LocalTensor::<f16>::new(TPosition::B2, ADDR_0, self.b_single_size);
        let co1_local = LocalTensor::<f32>::new(TPosition::CO1, ADDR_0, self.c_single_size);

        for k_index in 0..K_ROUND {
            set_flag::<HardEvent::MTE1_MTE2>(EVENT_ID0);
            wait_flag::<HardEvent::MTE1_MTE2>(EVENT_ID0);

            // GM --> L1
            self.copy_in(k_index, &a1_local, &b1_local);
            set_flag::<HardEvent::MTE2_MTE1>(EVENT_ID0);
            wait_flag::<HardEvent::MTE2_MTE1>(EVENT_ID0);

            // L1 --> L0A
            self.split_a(&a1_local, &a2_local);
            // L1 --> L0B
            self.split_b(&b1_local, &b2_local);
            set_flag::<HardEvent::MTE1_M>(EVENT_ID0);
            wait_flag::<HardEvent::MTE1_M>(EVENT_ID0);

            // Mmad
            self.compute(k_index, &a2_local, &b2_local, &co1_local);
            set_flag::<HardEvent::M_MTE1>(EVENT_ID0);
            wait_flag::<HardEvent::M_MTE1>(EVENT_ID0);
        }
        set_flag::<HardEvent::M_FIX>(EVENT_ID0);
        wait_flag::<HardEvent::M_FIX>(EVENT_ID0);
        // L0C --> GM
        self.copy_out(&co1_local);
    }

    fn copy_in(&self, k_index: usize, a1_local: &LocalTensor<f16>, b1_local: &LocalTensor<f16>) {
        let (m, k, n) = (self.m as u16, self.k as u16, self.n as u16);
        // {ndNum, nValue, dValue, srcNdMatrixStride, srcDValue, dstNzC0Stride, dstNzNStride, dstNzMatrixStride}
        let nd2nz_a1_params = Nd2NzParams::new(1, m, k, 0, k, ceil_align(self.m, BLOCK_CUBE) as u16, 1, 0);
        data_copy_nd2nz(a1_local, &self.a_gm.view(k_index * self.a_single_size), &nd2nz_a1_params);

        let nd2nz_b1_params = Nd2NzParams::new(1, k, n, 0, n, ceil_align(self.k, C0_SIZE) as u16, 1, 0);
        data_copy_nd2nz(b1_local, &self.b_gm.view(k_index * self.b_single_size), &nd2nz_b1_params);
    }

    fn split_a(&self, a1_local: &LocalTensor<f16>, a2_local: &LocalTensor<f16>) {
        // Nz -> Zz
        let dst_offset = ceil_div(self.k, C0_SIZE) * FRACTAL_SIZE;
        let src_offset = FRACTAL_SIZE;
        // {startIndex, repeatTimes, srcStride, sid, dstGap, ifTranspose, addrMode}
        let load_data_params = LoadData2DParams::new(
            0,
            ceil_div(self.k, C0_SIZE) as u8,
            ceil_div(self.m, BLOCK_CUBE) as u16,
            0,
            0,
            false,
            0,
        );
        for i in 0..ceil_div(self.m, BLOCK_CUBE) {
            load_data(&a2_local.view(i * dst_offset), &a1_local.view(i * src_offset), &load_data_params);
        }
    }

    fn split_b(&self, b1_local: &LocalTensor<f16>, b2_local: &LocalTensor<f16>) {
        let dst_offset = ceil_div(self.n, BLOCK_CUBE) * FRACTAL_SIZE;
        let src_offset = FRACTAL_SIZE;
        // Nz -> Zn
        let load_data_params = LoadData2DParams::new(
            0,
            ceil_div(self.n, BLOCK_CUBE) as u8,
            ceil_div(self.k, C0_SIZE) as u16,
            0,
            0,
            true,
            0,
        );
        for i in 0..ceil_div(self.k, C0_SIZE) {
            load_data(&b2_local.view(i * dst_offset), &b1_local.view(i * src_offset), &load_data_params);
        }
    }

    fn compute(
        &self,
        k_index: usize,
        a2_local: &LocalTensor<f16>,
        b2_local: &LocalTensor<f16>,
        co1_local: &LocalTensor<f32>,
    ) {
        // Unit flag: 2 for every slice but the last, 3 for the last.
        let unit_flag = if k_index != K_ROUND - 1 { 2 } else { 3 };
        // {m, n, k, unitFlag, cmatrixSource, cmatrixInitVal}
        let mmad_params =
            MmadParams::new(self.m as u16, self.n as u16, self.k as u16, unit_flag, false, k_index == 0);
        mmad(co1_local, a2_local, b2_local, &mmad_params);
        if (self.m / BLOCK_CUBE) * (self.n / BLOCK_CUBE) < LIMIT_MNSIZE {
            pipe_barrier::<PIPE_M>();
        }
        set_flag::<HardEvent::MTE2_M>(EVENT_ID0);
        wait_flag::<HardEvent::MTE2_M>(EVENT_ID0);
    }

    fn copy_out(&self, co1_local: &LocalTensor<f32>) {
        set_flag::<HardEvent::M_FIX>(EVENT_ID0);
        wait_flag::<HardEvent::M_FIX>(EVENT_ID0);
        // {nSize, mSize, srcStride, dstStride, reluEn, quantPre, deqScalar, ndNum, srcNdStride, dstNdStride, unitFlag}
        let fixpipe_params = FixpipeParamsV220::new(
            self.n as u16,
            self.m as u16,
            ceil_align(self.m, BLOCK_CUBE) as u16,
            self.n as u32,
            false,
            QuantMode_t::NoQuant,
            0,
            1,
            0,
            0,
            3,
        );
        fixpipe(&self.c_gm, co1_local, &fixpipe_params);
        // Clears the unit flags of every L0C block (optional, as the example says).
        let is_unit_flag = true;
        set_fix_pipe_config::<f32, false>(co1_local, is_unit_flag);
    }
}

/// `mmad_with_unitflag_custom<M, N, K, kRound>` (`__cube__`).
fn mmad_with_unitflag_custom(a: GmAddr, b: GmAddr, c: GmAddr) {
    init_soc_state();
    let mut op = KernelMmad::new();
    op.init(a, b, c);
    op.process();
    pipe_barrier::<PIPE_ALL>();
}

#[test]
fn mmad_unitflag_matches_the_golden_bit_for_bit() {
    let mut rng = ascend_kernels::data::XorShift64::new(9);
    let x1: Vec<f16> = (0..M * K).map(|_| f16::from_f32(rng.range(1, 10) as f32)).collect();
    let x2: Vec<f16> = (0..K * N).map(|_| f16::from_f32(rng.range(1, 10) as f32)).collect();
    let golden: Vec<f32> = (0..M * N)
        .map(|i| (0..K).map(|k| x1[i / N * K + k].to_f32() * x2[k * N + i % N].to_f32()).sum())
        .collect();
    // x1.reshape(M, kRound, K / kRound).transpose(1, 0, 2)
    let ks = K / K_ROUND;
    let x1_t: Vec<f16> = (0..M * K).map(|i| x1[(i / ks % M) * K + (i / (M * ks)) * ks + i % ks]).collect();
    let (a_gm, b_gm, c_gm) =
        (GmBuffer::from_vec(x1_t), GmBuffer::from_vec(x2), GmBuffer::<f32>::zeroed(M * N));
    let (pa, pb, pc) = (a_gm.addr(), b_gm.addr(), c_gm.addr());
    Launch::new(Soc::Ascend910B)
        .kernel_type(KernelType::AicOnly)
        .block_dim(1)
        .run(move || mmad_with_unitflag_custom(pa, pb, pc))
        .unwrap();
    let out = c_gm.to_vec();
    let bad = (0..M * N).filter(|&i| out[i].to_bits() != golden[i].to_bits()).count();
    assert_eq!(
        bad,
        0,
        "first: {:?}",
        (0..M * N).find(|&i| out[i] != golden[i]).map(|i| (i, out[i], golden[i]))
    );
}
