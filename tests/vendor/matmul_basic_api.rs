//! Line-by-line port of the vendor's `matmul_basic_api` example (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/00_introduction/02_matrix/matmul_basic_api`): a cube kernel on 2
//! cores of Ascend910B (its `__NPU_ARCH__ == 2201` branch), each computing 128 of the 256 rows
//! of `C = A × B` (M = 256, K = 64, N = 256, half in, half out) through L1 (ND → NZ), L0A/L0B
//! (`LoadData`), `Mmad` into L0C and `Fixpipe` with `F322F16` into GM. The example's golden
//! is `float16(float32(A) @ float32(B))` over integers in [-10, 10): every sum is an exact
//! integer, so the output must match it bit for bit.
//!
//! Not ported: the `__NPU_ARCH__ == 3510` branch (`LoadData2DParamsV2`, Ascend 950 only).

use ascend_runtime::prelude::*;

// half type, cube block: [16, 16]
const CUBE_BLOCK: u16 = 16;

const M: usize = 256;
const K: usize = 64;
const N: usize = 256;
const SINGLE_CORE_M: usize = 128;
const BASE_M: u16 = 128;
const BASE_K: u16 = 64;
const BASE_N: u16 = 256;

/// `mmad_custom<M, K, N, singleCoreM, baseM, baseK, baseN>`.
fn mmad_custom(a: GmAddr, b: GmAddr, c: GmAddr) {
    init_soc_state();
    let m_iter_idx = get_block_idx() as usize % (M / SINGLE_CORE_M);
    let mut a_gm = GlobalTensor::<f16>::new();
    let mut b_gm = GlobalTensor::<f16>::new();
    let mut c_gm = GlobalTensor::<f16>::new();
    a_gm.set_global_buffer_addr(a.add::<f16>(m_iter_idx * SINGLE_CORE_M * K));
    b_gm.set_global_buffer_addr(b);
    c_gm.set_global_buffer_addr(c.add::<f16>(m_iter_idx * SINGLE_CORE_M * N));
    let mut l1_allocator = LocalMemAllocator::<L1>::new();
    let mut l0a_allocator = LocalMemAllocator::<L0A>::new();
    let mut l0b_allocator = LocalMemAllocator::<L0B>::new();
    let mut l0c_allocator = LocalMemAllocator::<L0C>::new();
    let (bm, bk, bn) = (BASE_M as usize, BASE_K as usize, BASE_N as usize);
    let a1_local = l1_allocator.alloc_at::<A1, f16>(bm * bk);
    let b1_local = l1_allocator.alloc_at::<B1, f16>(bk * bn);
    let a2_local = l0a_allocator.alloc_at::<A2, f16>(bm * bk);
    let b2_local = l0b_allocator.alloc_at::<B2, f16>(bk * bn);
    let c_local = l0c_allocator.alloc_at::<Co1, f32>(bm * bn);
    // {ndNum, nValue, dValue, srcNdMatrixStride, srcDValue, dstNzC0Stride, dstNzNStride, dstNzMatrixStride}
    data_copy_nd2nz(&a1_local, &a_gm, &Nd2NzParams::new(1, BASE_M, BASE_K, 0, K as u16, BASE_M, 1, 0));
    data_copy_nd2nz(&b1_local, &b_gm, &Nd2NzParams::new(1, BASE_K, BASE_N, 0, N as u16, BASE_K, 1, 0));
    set_flag::<HardEvent::MTE2_MTE1>(EVENT_ID0);
    wait_flag::<HardEvent::MTE2_MTE1>(EVENT_ID0);
    // A: L1 -> L0A (Nz -> Zz); {startIndex, repeatTimes, srcStride, sid, dstGap, ifTranspose, addrMode}
    for i in 0..(BASE_M / CUBE_BLOCK) as usize {
        load_data(
            &a2_local.view(i * bk * CUBE_BLOCK as usize),
            &a1_local.view(i * 512 / std::mem::size_of::<f16>()),
            &LoadData2DParams::new(0, (BASE_K / CUBE_BLOCK) as u8, BASE_M / CUBE_BLOCK, 0, 0, false, 0),
        );
    }
    // B: L1 -> L0B (Nz -> Zn)
    for i in 0..(BASE_K / CUBE_BLOCK) as usize {
        load_data(
            &b2_local.view(i * bn * CUBE_BLOCK as usize),
            &b1_local.view(i * 512 / std::mem::size_of::<f16>()),
            &LoadData2DParams::new(0, (BASE_N / CUBE_BLOCK) as u8, BASE_K / CUBE_BLOCK, 0, 0, true, 0),
        );
    }
    set_flag::<HardEvent::MTE1_M>(EVENT_ID0);
    wait_flag::<HardEvent::MTE1_M>(EVENT_ID0);
    // {m, n, k, unitFlag, cmatrixSource, cmatrixInitVal}
    mmad(&c_local, &a2_local, &b2_local, &MmadParams::new(BASE_M, BASE_N, BASE_K, 0, false, true));
    set_flag::<HardEvent::M_FIX>(EVENT_ID0);
    wait_flag::<HardEvent::M_FIX>(EVENT_ID0);
    // {nSize, mSize, srcStride, dstStride, reluEn, quantPre, deqScalar, ndNum, srcNdStride, dstNdStride, unitFlag}
    fixpipe(
        &c_gm,
        &c_local,
        &FixpipeParamsV220::new(BASE_N, BASE_M, BASE_M, N as u32, false, QuantMode_t::F322F16, 0, 1, 0, 0, 0),
    );
    pipe_barrier::<PIPE_ALL>();
}

/// `np.random.randint(-10, 10, shape).astype(np.float16)`, from a fixed seed.
fn ints(len: usize, seed: u64) -> Vec<f16> {
    let mut rng = ascend_kernels::data::XorShift64::new(seed);
    (0..len).map(|_| f16::from_f32(rng.range(-10, 10) as f32)).collect()
}

#[test]
fn matmul_basic_api_matches_the_golden_bit_for_bit() {
    let (a, b) = (ints(M * K, 1), ints(K * N, 2));
    let golden: Vec<f16> = (0..M * N)
        .map(|i| {
            let (r, col) = (i / N, i % N);
            let sum: f32 = (0..K).map(|k| a[r * K + k].to_f32() * b[k * N + col].to_f32()).sum();
            f16::from_f32(sum)
        })
        .collect();
    let (a_gm, b_gm) = (GmBuffer::from_vec(a), GmBuffer::from_vec(b));
    let c_gm = GmBuffer::<f16>::zeroed(M * N);
    let (pa, pb, pc) = (a_gm.addr(), b_gm.addr(), c_gm.addr());
    Launch::new(Soc::Ascend910B)
        .kernel_type(KernelType::AicOnly)
        .block_dim(2)
        .run(move || mmad_custom(pa, pb, pc))
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

/// The same kernel launched as a vector kernel fails at its first cube memory, naming the fix.
#[test]
fn matmul_basic_api_needs_a_cube_kernel() {
    let (a_gm, b_gm) = (GmBuffer::from_vec(ints(M * K, 1)), GmBuffer::from_vec(ints(K * N, 2)));
    let c_gm = GmBuffer::<f16>::zeroed(M * N);
    let (pa, pb, pc) = (a_gm.addr(), b_gm.addr(), c_gm.addr());
    let err = Launch::new(Soc::Ascend910B).block_dim(2).run(move || mmad_custom(pa, pb, pc)).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("LocalMemAllocator: the L1 buffer is a memory of the cube core (AIC)"), "{msg}");
    assert!(msg.contains("Launch::kernel_type(KernelType::AicOnly)"), "{msg}");
}
