//! Line-by-line ports of the vendor's examples of the compare-mask register and the two
//! layout transposes (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/`): `compare` scenario 2
//! (`Compare` into the compare-mask register, then `GetCmpMask`) and `transpose` scenarios 2
//! (`Transpose` with `TransposeParamsExt`, NCHW → NHWC) and 3 (`TransDataTo5HD`, NCHW →
//! NC1HWC0). The other scenarios are ported elsewhere: `compare` 1 and 3 in
//! `vector_elementwise.rs`, `transpose` 1 in `vector_reduce.rs`; `compare` 4 exists on Ascend
//! 950 only.
//!
//! The vendor's examples are correct kernels: every launch keeps the synchronisation
//! sanitizer on (the default) and must succeed. Each output is compared with a reference
//! computed the way the example's `scripts/gen_data.py` computes its golden, bit for bit
//! (and over the bytes the example's `verify_result.py` checks). AscendC names are in
//! snake_case; `if constexpr (SCENARIO_NUM == n)` becomes a const parameter, and only the
//! branch of the scenario ported here is kept.

use std::mem::size_of;

use ascend_kernels::data::{random_vec, XorShift64};
use ascend_runtime::prelude::*;
use ascend_runtime::testing::assert_bits_eq;

use crate::gm_of;

/// `np.random.uniform(finfo(float32).min, finfo(float32).max, n).astype(np.float32)`.
fn full_range_f32(n: usize, seed: u64) -> Vec<f32> {
    random_vec(n, seed, f64::from(f32::MIN), f64::from(f32::MAX))
}

// ---------------------------------------------------------------------------------------
// compare, scenario 2
// ---------------------------------------------------------------------------------------

/// `compare_custom` of `compare/compare.asc` with its scenario 2 branch.
fn compare_custom<
    T: CompareRegElement,
    const SCENARIO_NUM: u32,
    const INPUT_SIZE: usize,
    const INPUT_Y_SIZE: usize,
    const OUTPUT_SIZE: usize,
>(
    x: GmAddr,
    y: GmAddr,
    z: GmAddr,
) {
    init_soc_state();
    let mut pipe = TPipe::new();
    let mut in_queue_src0 = TQue::<VecIn, 1>::new();
    let mut in_queue_src1 = TQue::<VecIn, 1>::new();
    let mut out_queue_dst = TQue::<VecOut, 1>::new();
    let cmp_mode = CMPMODE::LT;

    let src0_global = gm_of::<T>(x);
    let src1_global = gm_of::<T>(y);
    let dst_global = gm_of::<u8>(z);
    pipe.init_buffer(&mut in_queue_src0, 1, INPUT_SIZE * size_of::<T>());
    pipe.init_buffer(&mut in_queue_src1, 1, INPUT_Y_SIZE * size_of::<T>());
    pipe.init_buffer(&mut out_queue_dst, 1, OUTPUT_SIZE * size_of::<u8>());

    let src0_local_in = in_queue_src0.alloc_tensor::<T>();
    let src1_local_in = in_queue_src1.alloc_tensor::<T>();
    data_copy(&src0_local_in, &src0_global, INPUT_SIZE);
    data_copy(&src1_local_in, &src1_global, INPUT_Y_SIZE);
    in_queue_src0.enque(src0_local_in);
    in_queue_src1.enque(src1_local_in);

    let src0_local = in_queue_src0.deque::<T>();
    let src1_local = in_queue_src1.deque::<T>();
    let dst_local = out_queue_dst.alloc_tensor::<u8>();

    if SCENARIO_NUM == 2 {
        duplicate(&dst_local.reinterpret_cast::<f32>(), 0.0f32, 8);
        let repeat_params = BinaryRepeatParams::default();
        let mask: u32 = 256 / size_of::<T>() as u32; // 256为每个迭代处理的字节数
        compare_reg::<T, true>(&src0_local, &src1_local, cmp_mode, u64::from(mask), &repeat_params);
        pipe_barrier::<PIPE_V>();
        get_cmp_mask_local(&dst_local);
    }

    out_queue_dst.enque::<u8>(dst_local);
    in_queue_src0.free_tensor(src0_local);
    in_queue_src1.free_tensor(src1_local);

    let dst_local_out = out_queue_dst.deque::<u8>();
    data_copy(&dst_global, &dst_local_out, OUTPUT_SIZE);
    out_queue_dst.free_tensor(dst_local_out);
    pipe_barrier::<PIPE_ALL>();
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/
// compare/compare.asc, scenario 2 (`compare_custom<float, 64, 64, 32>`): Compare LT of 64
// floats into the compare-mask register (mask 64, default BinaryRepeatParams), then
// GetCmpMask into the 32-byte dstLocal that Duplicate zeroed.
#[test]
fn compare_scenario2_register_and_get_cmp_mask() {
    const INPUT_SIZE: usize = 64;
    const INPUT_Y_SIZE: usize = 64;
    const OUTPUT_SIZE: usize = 32;
    let x = full_range_f32(INPUT_SIZE, 41);
    let y = full_range_f32(INPUT_Y_SIZE, 42);
    let xg = GmBuffer::from_vec(x.clone());
    let yg = GmBuffer::from_vec(y.clone());
    let zg = GmBuffer::<u8>::zeroed(OUTPUT_SIZE);
    Launch::new(Soc::Ascend910B)
        .block_dim(1)
        .run(|| {
            compare_custom::<f32, 2, INPUT_SIZE, INPUT_Y_SIZE, OUTPUT_SIZE>(xg.addr(), yg.addr(), zg.addr())
        })
        .unwrap();
    // gen_data.py: golden = ones(32); byte j < 64 / 8 packs (x < y)[8j .. 8j + 8], bit k for
    // element 8j + k. verify_result.py compares bytes 0..8 for scenario 2.
    let mut golden = [1u8; OUTPUT_SIZE];
    for (j, g) in golden.iter_mut().enumerate().take(INPUT_SIZE / 8) {
        *g = (0..8).fold(0u8, |b, k| b | (u8::from(x[8 * j + k] < y[8 * j + k]) << k));
    }
    let out = zg.to_vec();
    assert_eq!(out[..8], golden[..8]);
    // GetCmpMask writes 16 bytes; the Duplicate's zeros past them stay.
    assert!(out[16..].iter().all(|b| *b == 0), "{out:?}");
}

// ---------------------------------------------------------------------------------------
// transpose, scenarios 2 and 3
// ---------------------------------------------------------------------------------------

const C0_SIZE: usize = 16;

/// `transpose_custom` of `transpose/transpose.asc` with its scenario 2 and 3 branches (the
/// parameter structs are filled field by field, as the vendor does).
#[allow(clippy::field_reassign_with_default)]
fn transpose_custom<
    const SCENARIO_NUM: u32,
    const INPUT_SIZE: usize,
    const N: usize,
    const C: usize,
    const H: usize,
    const W: usize,
>(
    x: GmAddr,
    z: GmAddr,
) {
    init_soc_state();
    let mut pipe = TPipe::new();
    let mut in_queue_src = TQue::<VecIn, 1>::new();
    let mut out_queue_dst = TQue::<VecOut, 1>::new();
    let mut tmp_queue = TQue::<VecIn, 1>::new();
    let src_global = gm_of::<f16>(x);
    let dst_global = gm_of::<f16>(z);
    pipe.init_buffer(&mut in_queue_src, 1, INPUT_SIZE * size_of::<f16>());
    pipe.init_buffer(&mut out_queue_dst, 1, INPUT_SIZE * size_of::<f16>());
    if SCENARIO_NUM == 2 {
        // 场景2：增强转置，[N,C,H,W]转置为[N,H,W,C]
        // auto h0 = 16; // 当数据类型的位宽为8时，h0 = 32；其他情况下，h0 = 16
        // auto w0 = 32 / sizeof(type);  // type代表数据类型
        // auto tmpBufferSize = (cSize  * 2 + 1)  * h0 * w0 * sizeof(type);
        let tmp_buffer_size: u32 = 1280;
        pipe.init_buffer(&mut tmp_queue, 1, tmp_buffer_size as usize * size_of::<f16>());
    }

    let src_local_in = in_queue_src.alloc_tensor::<f16>();
    data_copy(&src_local_in, &src_global, INPUT_SIZE);
    in_queue_src.enque(src_local_in);

    let src_local = in_queue_src.deque::<f16>();
    let dst_local = out_queue_dst.alloc_tensor::<f16>();
    if SCENARIO_NUM == 2 {
        // 场景2：增强转置，[N,C,H,W]转置为[N,H,W,C]
        let stack_buffer = tmp_queue.alloc_tensor::<u8>();
        let mut transpose_params = TransposeParamsExt::default();
        transpose_params.n_size = N as u16;
        transpose_params.c_size = C as u16;
        transpose_params.h_size = H as u16;
        transpose_params.w_size = W as u16;
        transpose_params.transpose_type = TransposeType::TRANSPOSE_NCHW2NHWC;
        transpose_ext(&dst_local, &src_local, &stack_buffer, &transpose_params);
        tmp_queue.free_tensor(stack_buffer);
    } else if SCENARIO_NUM == 3 {
        // 场景3：5HD格式转换，NCHW转换为NC1HWC0
        let mut trans_data_params = TransDataTo5HDParams::default();
        trans_data_params.dst_high_half = false;
        trans_data_params.src_high_half = false;
        trans_data_params.repeat_times = 16; // 重复迭代次数，每次repeat处理16个DataBlock
                                             // repeatStride是指相邻迭代间相同datablock的地址步长
        trans_data_params.dst_rep_stride = 16;
        trans_data_params.src_rep_stride = 1;
        for j in 0..4 {
            let mut dst_local_list = [0u64; 16];
            let mut src_local_list = [0u64; 16];
            for i in 0..16 {
                dst_local_list[i] = dst_local.view(j * C0_SIZE * H * W + W * i).get_phy_addr() as u64;
                src_local_list[i] = src_local.view(j * C0_SIZE * H * W + H * W * i).get_phy_addr() as u64;
            }
            trans_data_to_5hd_addr::<f16>(&dst_local_list, &src_local_list, &trans_data_params);
        }
    }
    out_queue_dst.enque::<f16>(dst_local);
    in_queue_src.free_tensor(src_local);

    let dst_local_out = out_queue_dst.deque::<f16>();
    data_copy(&dst_global, &dst_local_out, INPUT_SIZE);
    out_queue_dst.free_tensor(dst_local_out);
    pipe_barrier::<PIPE_ALL>();
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/
// transpose/transpose.asc, scenario 2 (`transpose_custom<144, 3, 3, 2, 8>`): Transpose with
// TransposeParamsExt {3, 3, 2, 8, TRANSPOSE_NCHW2NHWC} and a 2560-byte tmpQueue buffer, on
// Ascend910B (which stages through the buffer) and Ascend310P (which does not need it).
#[test]
fn transpose_scenario2_nchw_to_nhwc() {
    const INPUT_SIZE: usize = 144;
    let (n, c, h, w) = (3, 3, 2, 8);
    // gen_data.py: np.random.uniform(finfo(float16).min, max, [3, 3, 2, 8]).astype(float16);
    // golden = np.transpose(input, (0, 2, 3, 1)).
    let x: Vec<f16> = random_vec(INPUT_SIZE, 51, -65504.0, 65504.0);
    let mut golden = Vec::with_capacity(INPUT_SIZE);
    for b in 0..n {
        for yy in 0..h {
            for xx in 0..w {
                for ci in 0..c {
                    golden.push(x[((b * c + ci) * h + yy) * w + xx]);
                }
            }
        }
    }
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        let xg = GmBuffer::from_vec(x.clone());
        let zg = GmBuffer::<f16>::zeroed(INPUT_SIZE);
        Launch::new(soc)
            .block_dim(1)
            .run(|| transpose_custom::<2, INPUT_SIZE, 3, 3, 2, 8>(xg.addr(), zg.addr()))
            .unwrap();
        assert_bits_eq(&zg.to_vec(), &golden);
    }
}

/// `np.random.randn(n).astype(np.float16)`: standard normal values (Box–Muller) from `seed`.
fn randn_f16(n: usize, seed: u64) -> Vec<f16> {
    let mut rng = XorShift64::new(seed);
    (0..n)
        .map(|_| {
            let (u1, u2) = (1.0 - rng.next_f64(), rng.next_f64());
            f16::from_f64((-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos())
        })
        .collect()
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/
// transpose/transpose.asc, scenario 3 (`transpose_custom<16384, 2, 32, 16, 16>`):
// TransDataTo5HD with address lists, 4 calls of 16 repeats (dstRepStride 16, srcRepStride 1),
// NCHW (2, 32, 16, 16) half into NC1HWC0 (2, 2, 16, 16, 16).
#[test]
fn transpose_scenario3_trans_data_to_5hd() {
    const INPUT_SIZE: usize = 16384;
    // gen_data.py: input_x = np.random.randn(2, 32, 16, 16).astype(np.float16);
    // golden = input_x.reshape(2, 2, 16, 16, 16).transpose(0, 1, 3, 4, 2).
    let x = randn_f16(INPUT_SIZE, 61);
    let mut golden = Vec::with_capacity(INPUT_SIZE);
    for b in 0..2 {
        for c1 in 0..2 {
            for hh in 0..16 {
                for ww in 0..16 {
                    for c0 in 0..16 {
                        golden.push(x[(((b * 2 + c1) * 16 + c0) * 16 + hh) * 16 + ww]);
                    }
                }
            }
        }
    }
    let xg = GmBuffer::from_vec(x);
    let zg = GmBuffer::<f16>::zeroed(INPUT_SIZE);
    Launch::new(Soc::Ascend910B)
        .block_dim(1)
        .run(|| transpose_custom::<3, INPUT_SIZE, 2, 32, 16, 16>(xg.addr(), zg.addr()))
        .unwrap();
    assert_bits_eq(&zg.to_vec(), &golden);
}
