//! Line-by-line port of the vendor's `mmad_gemv` example (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/03_basic_api/03_matrix_compute/mmad_gemv`): `C (1 × N) = A (1 ×
//! K) × B (K × N)` with `Mmad`'s GEMV mode (M = 1: A stays a vector in L1 and L0A), on one AIC
//! core of Ascend910B (its `__NPU_ARCH__ == 2201` branch), N = 32, K = 256, half in, float out.
//! B arrives transposed (N × K, as the example's `gen_data.py` writes it), so ND2NZ and a plain
//! `LoadData` give the Zn layout `Mmad` reads. The events are the example's: each copy sets
//! its own id and each consumer waits for it later, so the sanitizer sees the split
//! set/wait pairs.
//!
//! Data: the example draws `uniform(1, 10)` halves and compares with a float32 `np.matmul`
//! within `rtol = 1e-6`; here the halves are the integers 1..=9, so every product and sum is
//! exact in float and the output must equal the golden bit for bit.
//!
//! Not ported: the `__NPU_ARCH__ == 3510` branch (`LoadData2DParamsV2`,
//! `FixpipeParamsArch3510`, `disableGemv`: Ascend 950 only).

use ascend_runtime::prelude::*;

const N: usize = 32;
const K: usize = 256;
const M: usize = 1;
const BLOCK_CUBE: usize = 16;
const C0_SIZE: usize = 32 / 2; // 32 / sizeof(half)
const FRACTAL_SIZE: usize = BLOCK_CUBE * C0_SIZE;
const ADDR_0: usize = 0;

fn ceil_div(a: usize, b: usize) -> usize {
    a.div_ceil(b)
}

fn ceil_align(a: usize, b: usize) -> usize {
    a.div_ceil(b) * b
}

/// `KernelMmad<float, half, N, K>`.
struct KernelMmad {
    a_gm: GlobalTensor<f16>,
    b_gm: GlobalTensor<f16>,
    c_gm: GlobalTensor<f32>,
    a_size_align: usize,
    b_size_align: usize,
    c_size_align: usize,
    a1_addr: usize,
    b1_addr: usize,
}

impl KernelMmad {
    fn new() -> Self {
        // GEMV on: M = 1, K aligned to a fractal (512 bytes).
        let a_size_align = ceil_align(K, FRACTAL_SIZE);
        let b_size_align = ceil_align(K, C0_SIZE) * ceil_align(N, BLOCK_CUBE);
        let c_size_align = BLOCK_CUBE * ceil_align(N, BLOCK_CUBE);
        let a1_addr = ADDR_0;
        let b1_addr = a1_addr + a_size_align * 2;
        KernelMmad {
            a_gm: GlobalTensor::new(),
            b_gm: GlobalTensor::new(),
            c_gm: GlobalTensor::new(),
            a_size_align,
            b_size_align,
            c_size_align,
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
        let a1_local = LocalTensor::<f16>::new(TPosition::A1, self.a1_addr, self.a_size_align);
        let b1_local = LocalTensor::<f16>::new(TPosition::B1, self.b1_addr, self.b_size_align);
        // GM -> L1
        self.copy_in(&a1_local, &b1_local);
        // L1 -> L0A
        let a2_local = LocalTensor::<f16>::new(TPosition::A2, ADDR_0, self.a_size_align);
        self.split_a(&a1_local, &a2_local);
        // L1 -> L0B
        let b2_local = LocalTensor::<f16>::new(TPosition::B2, ADDR_0, self.b_size_align);
        self.split_b(&b1_local, &b2_local);
        // Mmad
        let co1_local = LocalTensor::<f32>::new(TPosition::CO1, ADDR_0, self.c_size_align);
        self.compute(&a2_local, &b2_local, &co1_local);
        // L0C -> GM
        self.copy_out(&co1_local);
    }

    fn copy_in(&self, a1_local: &LocalTensor<f16>, b1_local: &LocalTensor<f16>) {
        // ND -> Nz; on L1, A is a vector (dstNzC0Stride = 1).
        // {ndNum, nValue, dValue, srcNdMatrixStride, srcDValue, dstNzC0Stride, dstNzNStride, dstNzMatrixStride}
        let nd2nz_a1_params = Nd2NzParams::new(1, M as u16, K as u16, 0, K as u16, 1, 1, 0);
        data_copy_nd2nz(a1_local, &self.a_gm, &nd2nz_a1_params);
        set_flag::<HardEvent::MTE2_MTE1>(EVENT_ID0);

        let nd2nz_b1_params =
            Nd2NzParams::new(1, N as u16, K as u16, 0, K as u16, ceil_align(N, BLOCK_CUBE) as u16, 1, 0);
        data_copy_nd2nz(b1_local, &self.b_gm, &nd2nz_b1_params);
        set_flag::<HardEvent::MTE2_MTE1>(EVENT_ID1);
    }

    fn split_a(&self, a1_local: &LocalTensor<f16>, a2_local: &LocalTensor<f16>) {
        wait_flag::<HardEvent::MTE2_MTE1>(EVENT_ID0);
        // Nz -> Zz; {startIndex, repeatTimes, srcStride, sid, dstGap, ifTranspose, addrMode}
        let load_data_params = LoadData2DParams::new(0, ceil_div(K, FRACTAL_SIZE) as u8, 1, 0, 0, false, 0);
        load_data(a2_local, a1_local, &load_data_params);
        set_flag::<HardEvent::MTE1_M>(EVENT_ID0);
    }

    fn split_b(&self, b1_local: &LocalTensor<f16>, b2_local: &LocalTensor<f16>) {
        wait_flag::<HardEvent::MTE2_MTE1>(EVENT_ID1);
        // B2 holds Zn.
        let repeat = ceil_div(N, BLOCK_CUBE) * ceil_div(K, C0_SIZE);
        let load_data_params = LoadData2DParams::new(0, repeat as u8, 1, 0, 0, false, 0);
        load_data(b2_local, b1_local, &load_data_params);
        set_flag::<HardEvent::MTE1_M>(EVENT_ID1);
    }

    fn compute(
        &self,
        a2_local: &LocalTensor<f16>,
        b2_local: &LocalTensor<f16>,
        co1_local: &LocalTensor<f32>,
    ) {
        wait_flag::<HardEvent::MTE1_M>(EVENT_ID0);
        wait_flag::<HardEvent::MTE1_M>(EVENT_ID1);
        // {m, n, k, unitFlag, cmatrixSource, cmatrixInitVal}
        let mmad_params = MmadParams::new(M as u16, N as u16, K as u16, 0, false, true);
        mmad(co1_local, a2_local, b2_local, &mmad_params);
        set_flag::<HardEvent::M_FIX>(EVENT_ID0);
    }

    fn copy_out(&self, co1_local: &LocalTensor<f32>) {
        wait_flag::<HardEvent::M_FIX>(EVENT_ID0);
        // {nSize, mSize, srcStride, dstStride, reluEn, quantPre, deqScalar, ndNum, srcNdStride, dstNdStride, unitFlag}
        let fixpipe_params = FixpipeParamsV220::new(
            N as u16,
            M as u16,
            BLOCK_CUBE as u16,
            N as u32,
            false,
            QuantMode_t::NoQuant,
            0,
            1,
            0,
            0,
            0,
        );
        fixpipe(&self.c_gm, co1_local, &fixpipe_params);
    }
}

/// `mmad_custom<N, K>` (`__cube__`).
fn mmad_custom(a: GmAddr, b: GmAddr, c: GmAddr) {
    init_soc_state();
    let mut op = KernelMmad::new();
    op.init(a, b, c);
    op.process();
    pipe_barrier::<PIPE_ALL>();
}

#[test]
fn mmad_gemv_matches_the_golden_bit_for_bit() {
    let mut rng = ascend_kernels::data::XorShift64::new(7);
    let x1: Vec<f16> = (0..M * K).map(|_| f16::from_f32(rng.range(1, 10) as f32)).collect();
    let x2: Vec<f16> = (0..K * N).map(|_| f16::from_f32(rng.range(1, 10) as f32)).collect(); // K × N
                                                                                             // golden = matmul(x1, x2) in float; the kernel gets x2 transposed (N × K).
    let golden: Vec<f32> =
        (0..N).map(|j| (0..K).map(|k| x1[k].to_f32() * x2[k * N + j].to_f32()).sum()).collect();
    let x2_t: Vec<f16> = (0..N * K).map(|i| x2[(i % K) * N + i / K]).collect();
    let (a_gm, b_gm, c_gm) =
        (GmBuffer::from_vec(x1), GmBuffer::from_vec(x2_t), GmBuffer::<f32>::zeroed(M * N));
    let (pa, pb, pc) = (a_gm.addr(), b_gm.addr(), c_gm.addr());
    Launch::new(Soc::Ascend910B)
        .kernel_type(KernelType::AicOnly)
        .block_dim(1)
        .run(move || mmad_custom(pa, pb, pc))
        .unwrap();
    let out: Vec<u32> = c_gm.to_vec().iter().map(|x| x.to_bits()).collect();
    assert_eq!(out, golden.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
}
