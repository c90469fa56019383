//! Line-by-line ports of the vendor's element-wise vector basic-API examples
//! (`mirror-cann/asc-devkit`, `examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/`):
//! `duplicate`, `element_wise_arithmetic`, `element_wise_compound_compute`,
//! `element_wise_logic`, `select`, `compare`, `cast` and `brcb` (`create_vec_index` is left out:
//! see the note at the end).
//!
//! The vendor's examples are correct kernels: they run on the chip and match their golden
//! data. So every launch here keeps the synchronisation sanitizer on (the default) and must
//! succeed; an error from it is a false positive of the sanitizer. Each output is checked
//! against a reference computed the way the example's `scripts/gen_data.py` computes its
//! golden, bit for bit.
//!
//! AscendC names are in snake_case; the kernels keep the vendor's structure, order of calls,
//! events, ids, constants, masks and repeat parameters. `if constexpr (SCENARIO_NUM == n)`
//! becomes a const generic parameter. Scenarios that only exist on Ascend 950 (`dav-3510`)
//! are not ported.

use ascend_kernels::data::random_vec;
use ascend_runtime::prelude::*;

use crate::gm_of;
use ascend_runtime::testing::assert_bits_eq;

/// `np.random.uniform(finfo(float32).min, finfo(float32).max, n).astype(np.float32)`.
fn full_range_f32(n: usize, seed: u64) -> Vec<f32> {
    random_vec(n, seed, f64::from(f32::MIN), f64::from(f32::MAX))
}

/// `np.random.uniform(iinfo(uint8).min, iinfo(uint8).max, n).astype(np.uint8)`.
fn full_range_u8(n: usize, seed: u64) -> Vec<u8> {
    random_vec(n, seed, 0.0, 255.0)
}

// ---------------------------------------------------------------------------------------
// duplicate
// ---------------------------------------------------------------------------------------

fn duplicate_custom<const TOTAL_LENGTH: usize>(x: GmAddr, y: GmAddr) {
    init_soc_state();
    let src_global = gm_of::<f16>(x);
    let dst_global = gm_of::<f16>(y);

    let mut ub_allocator = LocalMemAllocator::<Ub>::new();
    let src_local = ub_allocator.alloc::<f16>(TOTAL_LENGTH);
    let dst_local = ub_allocator.alloc::<f16>(TOTAL_LENGTH);

    data_copy(&src_local, &src_global, TOTAL_LENGTH);
    set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
    wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);

    let input_val = f16::from_f64(18.0);
    duplicate::<f16>(&dst_local, input_val, TOTAL_LENGTH);
    set_flag::<HardEvent::V_MTE3>(EVENT_ID0);
    wait_flag::<HardEvent::V_MTE3>(EVENT_ID0);

    data_copy(&dst_global, &dst_local, TOTAL_LENGTH);
    pipe_barrier::<PIPE_ALL>();
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/
// duplicate/duplicate.asc: Duplicate (count form) of the half 18.0 over 256 elements;
// LocalMemAllocator tensors, MTE2_V and V_MTE3 events by hand, one core.
#[test]
fn duplicate_scalar_fill() {
    const TOTAL_LENGTH: usize = 256;
    // gen_data.py: np.random.uniform(finfo(f16).min, finfo(f16).max, [256]) (unused by the
    // kernel's result); golden = 18 * np.ones([256]).astype(np.float16).
    let x: Vec<f16> = random_vec(TOTAL_LENGTH, 11, -65504.0, 65504.0);
    let xg = GmBuffer::from_vec(x);
    let yg = GmBuffer::<f16>::zeroed(TOTAL_LENGTH);
    Launch::new(Soc::Ascend910B)
        .block_dim(1)
        .run(|| duplicate_custom::<TOTAL_LENGTH>(xg.addr(), yg.addr()))
        .unwrap();
    assert_bits_eq(&yg.to_vec(), &vec![f16::from_f64(18.0); TOTAL_LENGTH]);
}

// ---------------------------------------------------------------------------------------
// element_wise_arithmetic
// ---------------------------------------------------------------------------------------

fn element_wise_arithmetic_kernel<const COUNT: usize, const MASK: u64>(src: GmAddr, dst_gm: GmAddr) {
    init_soc_state();
    let src_global = gm_of::<f16>(src);
    let dst_global = gm_of::<f16>(dst_gm);

    let mut ub_allocator = LocalMemAllocator::<Ub>::new();
    let src_local = ub_allocator.alloc::<f16>(COUNT);
    let dst_local = ub_allocator.alloc::<f16>(COUNT);

    data_copy(&src_local, &src_global, COUNT);
    set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
    wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);

    let scalar = f16::from_f64(0.01);
    leaky_relu_masked::<f16, true>(
        &dst_local,
        &src_local,
        scalar,
        MASK,
        4,
        &UnaryRepeatParams::new(1, 1, 8, 8),
    );

    set_flag::<HardEvent::V_MTE3>(EVENT_ID0);
    wait_flag::<HardEvent::V_MTE3>(EVENT_ID0);
    data_copy(&dst_global, &dst_local, COUNT);
    pipe_barrier::<PIPE_ALL>();
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/
// element_wise_arithmetic/element_wise_arithmetic.asc: LeakyRelu (high-dimensional form,
// mask 128, 4 repeats, {1, 1, 8, 8}) on 512 halves with scalar 0.01; LocalMemAllocator.
#[test]
fn element_wise_arithmetic_leaky_relu() {
    const COUNT: usize = 512;
    const MASK: u64 = 128;
    // gen_data.py: input_x = np.random.uniform(-100, 100, [512]).astype(np.float16);
    // golden = np.maximum(0.01 * input_x, input_x) in float16: the product of two halves is
    // exact in f32 and numpy rounds it once to half.
    let x: Vec<f16> = random_vec(COUNT, 12, -100.0, 100.0);
    let xg = GmBuffer::from_vec(x.clone());
    let yg = GmBuffer::<f16>::zeroed(COUNT);
    Launch::new(Soc::Ascend910B)
        .block_dim(1)
        .run(|| element_wise_arithmetic_kernel::<COUNT, MASK>(xg.addr(), yg.addr()))
        .unwrap();
    let value = f16::from_f64(0.01);
    let want: Vec<f16> = x
        .iter()
        .map(|&v| {
            let p = f16::from_f32(value.to_f32() * v.to_f32());
            if p.to_f32() > v.to_f32() {
                p
            } else {
                v
            }
        })
        .collect();
    assert_bits_eq(&yg.to_vec(), &want);
}

// ---------------------------------------------------------------------------------------
// element_wise_compound_compute
// ---------------------------------------------------------------------------------------

fn element_wise_compound_compute_custom<const SCENARIO_NUM: u32, const TOTAL_LENGTH: usize>(
    src0_gm: GmAddr,
    src1_gm: GmAddr,
    dst_gm: GmAddr,
) {
    init_soc_state();
    if SCENARIO_NUM == 1 {
        // Scenario 1: AddRelu, half in and out.
        let src0_global = gm_of::<f16>(src0_gm);
        let src1_global = gm_of::<f16>(src1_gm);
        let dst_global = gm_of::<f16>(dst_gm);

        let mut ub_allocator = LocalMemAllocator::<Ub>::new();
        let src0_local = ub_allocator.alloc::<f16>(TOTAL_LENGTH);
        let src1_local = ub_allocator.alloc::<f16>(TOTAL_LENGTH);
        let dst_local = ub_allocator.alloc::<f16>(TOTAL_LENGTH);

        data_copy(&src0_local, &src0_global, TOTAL_LENGTH);
        data_copy(&src1_local, &src1_global, TOTAL_LENGTH);
        set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
        wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);

        add_relu::<f16>(&dst_local, &src0_local, &src1_local, TOTAL_LENGTH);

        set_flag::<HardEvent::V_MTE3>(EVENT_ID0);
        wait_flag::<HardEvent::V_MTE3>(EVENT_ID0);
        data_copy(&dst_global, &dst_local, TOTAL_LENGTH);
    } else if SCENARIO_NUM == 2 {
        // Scenario 2: Axpy, half in and out.
        let src0_global = gm_of::<f16>(src0_gm);
        let src1_global = gm_of::<f16>(src1_gm);
        let dst_global = gm_of::<f16>(dst_gm);

        let mut ub_allocator = LocalMemAllocator::<Ub>::new();
        let src0_local = ub_allocator.alloc::<f16>(TOTAL_LENGTH);
        let src1_local = ub_allocator.alloc::<f16>(TOTAL_LENGTH);
        let dst_local = ub_allocator.alloc::<f16>(TOTAL_LENGTH);

        data_copy(&src0_local, &src0_global, TOTAL_LENGTH);
        data_copy(&src1_local, &src1_global, TOTAL_LENGTH);
        set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
        wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);

        data_copy(&dst_local, &src1_local, TOTAL_LENGTH);
        pipe_barrier::<PIPE_V>();
        let scalar = f16::from_f64(2.0);
        axpy::<f16>(&dst_local, &src0_local, scalar, TOTAL_LENGTH);

        set_flag::<HardEvent::V_MTE3>(EVENT_ID0);
        wait_flag::<HardEvent::V_MTE3>(EVENT_ID0);
        data_copy(&dst_global, &dst_local, TOTAL_LENGTH);
    } else {
        ascend_printf!("scenarioNum %d is not supported!\n", SCENARIO_NUM);
    }
    pipe_barrier::<PIPE_ALL>();
}

fn run_compound<const SCENARIO_NUM: u32>(x0: &[f16], x1: &[f16]) -> Vec<f16> {
    const TOTAL_LENGTH: usize = 512;
    let g0 = GmBuffer::from_vec(x0.to_vec());
    let g1 = GmBuffer::from_vec(x1.to_vec());
    let out = GmBuffer::<f16>::zeroed(TOTAL_LENGTH);
    Launch::new(Soc::Ascend910B)
        .block_dim(1)
        .run(|| {
            element_wise_compound_compute_custom::<SCENARIO_NUM, TOTAL_LENGTH>(
                g0.addr(),
                g1.addr(),
                out.addr(),
            )
        })
        .unwrap();
    out.to_vec()
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/
// element_wise_compound_compute/element_wise_compound_compute.asc, scenario 1: AddRelu
// (count form) on 512 halves; LocalMemAllocator, MTE2_V and V_MTE3 events.
#[test]
fn element_wise_compound_compute_scenario1_add_relu() {
    // gen_data.py: two np.random.uniform(-1, 1, [512]).astype(np.float16);
    // golden = np.maximum(input0 + input1, 0) in float16 (the sum rounded once to half).
    let x0: Vec<f16> = random_vec(512, 9, -1.0, 1.0);
    let x1: Vec<f16> = random_vec(512, 10, -1.0, 1.0);
    let got = run_compound::<1>(&x0, &x1);
    let want: Vec<f16> = x0
        .iter()
        .zip(&x1)
        .map(|(a, b)| {
            let s = f16::from_f32(a.to_f32() + b.to_f32());
            if s.to_f32() > 0.0 {
                s
            } else {
                f16::ZERO
            }
        })
        .collect();
    assert_bits_eq(&got, &want);
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/
// element_wise_compound_compute/element_wise_compound_compute.asc, scenario 2: a UB→UB
// DataCopy of src1 into dst, PipeBarrier<PIPE_V>, then Axpy (dst += src0 * 2.0) on 512 halves.
#[test]
fn element_wise_compound_compute_scenario2_axpy() {
    // gen_data.py: golden = (input1 + input0 * 2.0) in float16. `* 2.0` is exact in half for
    // inputs in [-1, 1], so the reference rounds once, after the addition.
    let x0: Vec<f16> = random_vec(512, 13, -1.0, 1.0);
    let x1: Vec<f16> = random_vec(512, 14, -1.0, 1.0);
    let got = run_compound::<2>(&x0, &x1);
    let want: Vec<f16> =
        x0.iter().zip(&x1).map(|(a, b)| f16::from_f32(b.to_f32() + a.to_f32() * 2.0)).collect();
    assert_bits_eq(&got, &want);
}

// ---------------------------------------------------------------------------------------
// element_wise_logic
// ---------------------------------------------------------------------------------------

const LOGIC_COUNT: usize = 512;
const SHIFT_BITS: u16 = 2;

fn logic_custom<const SCENARIO_NUM: u32>(src0: GmAddr, src1: GmAddr, dst: GmAddr) {
    init_soc_state();
    let src0_global = gm_of::<u16>(src0);
    let src1_global = gm_of::<u16>(src1);
    let dst_global = gm_of::<u16>(dst);

    // Static tensors in the UB.
    let mut ub_allocator = LocalMemAllocator::<Ub>::new();
    let src0_local = ub_allocator.alloc::<u16>(LOGIC_COUNT);
    let src1_local = ub_allocator.alloc::<u16>(LOGIC_COUNT);
    let dst_local = ub_allocator.alloc::<u16>(LOGIC_COUNT);

    data_copy(&src0_local, &src0_global, LOGIC_COUNT);
    data_copy(&src1_local, &src1_global, LOGIC_COUNT);

    // MTE2 -> V: the GM data is in the UB before the computation starts.
    set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
    wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);

    if SCENARIO_NUM == 1 {
        // Scenario 1: bitwise And of two sources.
        and(&dst_local, &src0_local, &src1_local, LOGIC_COUNT);
    }
    // Scenarios 2 (Ors) and 3 (ShiftLeft by a tensor) exist on Ascend 950 only.
    else if SCENARIO_NUM == 4 {
        // Scenario 4: ShiftRight by a scalar.
        shift_right(&dst_local, &src0_local, SHIFT_BITS, LOGIC_COUNT);
    }

    // V -> MTE3: the computation is done before the data goes to GM.
    set_flag::<HardEvent::V_MTE3>(EVENT_ID0);
    wait_flag::<HardEvent::V_MTE3>(EVENT_ID0);

    data_copy(&dst_global, &dst_local, LOGIC_COUNT);
    pipe_barrier::<PIPE_ALL>();
}

fn run_logic<const SCENARIO_NUM: u32>(src0: &[u16], src1: &[u16]) -> Vec<u16> {
    let g0 = GmBuffer::from_vec(src0.to_vec());
    let g1 = GmBuffer::from_vec(src1.to_vec());
    let out = GmBuffer::<u16>::zeroed(LOGIC_COUNT);
    Launch::new(Soc::Ascend910B)
        .block_dim(1)
        .run(|| logic_custom::<SCENARIO_NUM>(g0.addr(), g1.addr(), out.addr()))
        .unwrap();
    out.to_vec()
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/
// element_wise_logic/element_wise_logic.asc, scenario 1: And (count form) on 512 uint16_t.
#[test]
fn element_wise_logic_scenario1_and() {
    // gen_data.py: src0 = arange(1, 513), src1 = arange(512, 0, -1), golden = src0 & src1.
    let src0: Vec<u16> = (1..=LOGIC_COUNT as u16).collect();
    let src1: Vec<u16> = (1..=LOGIC_COUNT as u16).rev().collect();
    let want: Vec<u16> = src0.iter().zip(&src1).map(|(a, b)| a & b).collect();
    assert_eq!(run_logic::<1>(&src0, &src1), want);
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/
// element_wise_logic/element_wise_logic.asc, scenario 4: ShiftRight by the scalar 2 on 512
// uint16_t.
#[test]
fn element_wise_logic_scenario4_shift_right() {
    // gen_data.py: src0 = arange(1, 513), src1 = zeros, golden = src0 >> 2.
    let src0: Vec<u16> = (1..=LOGIC_COUNT as u16).collect();
    let src1 = vec![0u16; LOGIC_COUNT];
    let want: Vec<u16> = src0.iter().map(|a| a >> SHIFT_BITS).collect();
    assert_eq!(run_logic::<4>(&src0, &src1), want);
}

// ---------------------------------------------------------------------------------------
// select
// ---------------------------------------------------------------------------------------

fn select_custom<
    T: SelectElement,
    U: SelMaskElement,
    const SCENARIO_NUM: u32,
    const INPUT_SIZE: usize,
    const INPUT_Y_SIZE: usize,
    const INPUT_SEL_SIZE: usize,
>(
    x: GmAddr,
    y: GmAddr,
    sel: GmAddr,
    z: GmAddr,
) {
    init_soc_state();
    let src0_global = gm_of::<T>(x);
    let src1_global = gm_of::<T>(y);
    let sel_mask_global = gm_of::<U>(sel);
    let dst_global = gm_of::<T>(z);

    // Static tensors in the UB.
    let mut ub_allocator = LocalMemAllocator::<Ub>::new();
    let src0_local = ub_allocator.alloc::<T>(INPUT_SIZE);
    let src1_local = ub_allocator.alloc::<T>(INPUT_Y_SIZE);
    // Scenario 1's selMask holds only 8 valid bytes, but DataCopyPad pads 24 bytes on the
    // right: allocate at least 32 bytes.
    let sel_alloc_num: usize = if SCENARIO_NUM == 1 { 32 } else { INPUT_SEL_SIZE };
    let sel_mask_local = ub_allocator.alloc::<U>(sel_alloc_num);
    let dst_local = ub_allocator.alloc::<T>(INPUT_SIZE);

    data_copy(&src0_local, &src0_global, INPUT_SIZE);
    data_copy(&src1_local, &src1_global, INPUT_Y_SIZE);
    if SCENARIO_NUM == 1 {
        let copy_params = DataCopyExtParams::new(1, (INPUT_SEL_SIZE * U::SIZE) as u32, 0, 0);
        let pad_params = DataCopyPadExtParams::<U> {
            is_pad: false,
            left_padding: 0,
            right_padding: 24, // 24 bytes on the right
            ..Default::default()
        };
        set_pad_value(0u8);
        data_copy_pad(&sel_mask_local, &sel_mask_global, &copy_params, &pad_params);
    // unaligned copy
    } else {
        data_copy(&sel_mask_local, &sel_mask_global, INPUT_SEL_SIZE);
    }
    set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
    wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);

    if SCENARIO_NUM == 1 || SCENARIO_NUM == 3 {
        let sel_mode =
            if SCENARIO_NUM == 1 { SelMode::VselCmpmaskSpr } else { SelMode::VselTensorTensorMode };
        select(&dst_local, &sel_mask_local, &src0_local, &src1_local, sel_mode, INPUT_SIZE);
    } else if SCENARIO_NUM == 2 {
        // Scenario 2: tensor vs scalar, needs MTE2 -> S and S -> V.
        set_flag::<HardEvent::MTE2_S>(EVENT_ID0);
        wait_flag::<HardEvent::MTE2_S>(EVENT_ID0);
        let src1_scalar: T = src1_local.get_value(0);

        set_flag::<HardEvent::S_V>(EVENT_ID0);
        wait_flag::<HardEvent::S_V>(EVENT_ID0);

        select_scalar(
            &dst_local,
            &sel_mask_local,
            &src0_local,
            src1_scalar,
            SelMode::VselTensorScalarMode,
            INPUT_SIZE,
        );
    }
    // Scenario 4 (the scalar's position set by BinaryConfig) exists on Ascend 950 only.

    set_flag::<HardEvent::V_MTE3>(EVENT_ID0);
    wait_flag::<HardEvent::V_MTE3>(EVENT_ID0);

    data_copy(&dst_global, &dst_local, INPUT_SIZE);
    pipe_barrier::<PIPE_ALL>();
}

/// The golden of select's `gen_data.py`: bit `i % 64` (scenario 1: the 64 valid bits of the
/// compare-mask register, reused every repeat) or bit `i` of `sel` picks `x[i]`, else
/// `y[i]` (scenarios 1 and 3) or `y[0]` (scenario 2).
fn select_golden(scenario: u32, x: &[f32], y: &[f32], sel: &[u8]) -> Vec<f32> {
    const MASK_NUM: usize = 64;
    (0..x.len())
        .map(|i| {
            let k = if scenario == 1 { i % MASK_NUM } else { i };
            if (sel[k / 8] >> (k % 8)) & 1 == 1 {
                x[i]
            } else if scenario == 1 || scenario == 3 {
                y[i]
            } else {
                y[0]
            }
        })
        .collect()
}

fn run_select<const SCENARIO_NUM: u32, const INPUT_Y_SIZE: usize, const INPUT_SEL_SIZE: usize>() {
    const INPUT_SIZE: usize = 256;
    // gen_data.py: selMask uniform over uint8, x and y uniform over float32's whole range.
    let seed = u64::from(SCENARIO_NUM) * 10;
    let sel = full_range_u8(INPUT_SEL_SIZE, seed);
    let x = full_range_f32(INPUT_SIZE, seed + 1);
    let y = full_range_f32(INPUT_Y_SIZE, seed + 2);
    let xg = GmBuffer::from_vec(x.clone());
    let yg = GmBuffer::from_vec(y.clone());
    let selg = GmBuffer::from_vec(sel.clone());
    let zg = GmBuffer::<f32>::zeroed(INPUT_SIZE);
    Launch::new(Soc::Ascend910B)
        .block_dim(1)
        .run(|| {
            select_custom::<f32, u8, SCENARIO_NUM, INPUT_SIZE, INPUT_Y_SIZE, INPUT_SEL_SIZE>(
                xg.addr(),
                yg.addr(),
                selg.addr(),
                zg.addr(),
            )
        })
        .unwrap();
    assert_bits_eq(&zg.to_vec(), &select_golden(SCENARIO_NUM, &x, &y, &sel));
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/
// select/select.asc, scenario 1: Select mode VSEL_CMPMASK_SPR on 256 floats with an 8-byte
// selMask brought in by DataCopyPad (rightPadding 24, SetPadValue(0)).
#[test]
fn select_scenario1_cmpmask_spr() {
    run_select::<1, 256, 8>();
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/
// select/select.asc, scenario 2: Select mode VSEL_TENSOR_SCALAR_MODE, the scalar read with
// GetValue(0) between MTE2_S and S_V events.
#[test]
fn select_scenario2_tensor_scalar() {
    run_select::<2, 8, 32>();
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/
// select/select.asc, scenario 3: Select mode VSEL_TENSOR_TENSOR_MODE with a 32-byte selMask.
#[test]
fn select_scenario3_tensor_tensor() {
    run_select::<3, 256, 32>();
}

// ---------------------------------------------------------------------------------------
// compare
// ---------------------------------------------------------------------------------------

fn compare_custom<
    T: CompareElement + CompareScalarElement,
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
    pipe.init_buffer(&mut in_queue_src0, 1, INPUT_SIZE * T::SIZE);
    pipe.init_buffer(&mut in_queue_src1, 1, INPUT_Y_SIZE * T::SIZE);
    pipe.init_buffer(&mut out_queue_dst, 1, OUTPUT_SIZE * std::mem::size_of::<u8>());

    let src0_local_in = in_queue_src0.alloc_tensor::<T>();
    let src1_local_in = in_queue_src1.alloc_tensor::<T>();
    data_copy(&src0_local_in, &src0_global, INPUT_SIZE);
    data_copy(&src1_local_in, &src1_global, INPUT_Y_SIZE);
    in_queue_src0.enque(src0_local_in);
    in_queue_src1.enque(src1_local_in);

    let src0_local = in_queue_src0.deque::<T>();
    let src1_local = in_queue_src1.deque::<T>();
    let dst_local = out_queue_dst.alloc_tensor::<u8>();

    if SCENARIO_NUM == 1 {
        compare(&dst_local, &src0_local, &src1_local, cmp_mode, INPUT_SIZE);
    }
    // Scenario 2 (Compare into the compare-mask register, then GetCmpMask(dstLocal)) is in
    // `compare_transpose.rs`.
    else if SCENARIO_NUM == 3 {
        let event_id = pipe.fetch_event_id::<HardEvent::MTE2_S>();
        set_flag::<HardEvent::MTE2_S>(event_id);
        wait_flag::<HardEvent::MTE2_S>(event_id);
        let src1_scalar: T = src1_local.get_value(0);

        let event_id = pipe.fetch_event_id::<HardEvent::S_V>();
        set_flag::<HardEvent::S_V>(event_id);
        wait_flag::<HardEvent::S_V>(event_id);

        compare_scalar(&dst_local, &src0_local, src1_scalar, cmp_mode, INPUT_SIZE);
    }
    // Scenario 4 (the scalar as src1Local[0]) exists on Ascend 950 only.

    out_queue_dst.enque::<u8>(dst_local);
    in_queue_src0.free_tensor(src0_local);
    in_queue_src1.free_tensor(src1_local);

    let dst_local_out = out_queue_dst.deque::<u8>();
    data_copy(&dst_global, &dst_local_out, OUTPUT_SIZE);
    out_queue_dst.free_tensor(dst_local_out);
    pipe_barrier::<PIPE_ALL>();
}

/// The golden of compare's `gen_data.py` (CMPMODE::LT): `output_size` bytes of ones, then
/// byte `j < input_size / 8` holds bits `x[8j + k] < y(8j + k)`, little-endian.
fn compare_golden(x: &[f32], y: impl Fn(usize) -> f32, output_size: usize) -> Vec<u8> {
    let mut golden = vec![1u8; output_size];
    for (j, g) in golden.iter_mut().enumerate().take(x.len() / 8) {
        *g = (0..8).fold(0u8, |b, k| b | (u8::from(x[8 * j + k] < y(8 * j + k)) << k));
    }
    golden
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/
// compare/compare.asc, scenario 1: Compare LT (count form) of 256 floats into 32 bytes of
// bits; TPipe with TQue VECIN/VECOUT queues, one core.
#[test]
fn compare_scenario1_tensor_tensor() {
    const INPUT_SIZE: usize = 256;
    const INPUT_Y_SIZE: usize = 256;
    const OUTPUT_SIZE: usize = 32;
    let x = full_range_f32(INPUT_SIZE, 21);
    let y = full_range_f32(INPUT_Y_SIZE, 22);
    let xg = GmBuffer::from_vec(x.clone());
    let yg = GmBuffer::from_vec(y.clone());
    let zg = GmBuffer::<u8>::zeroed(OUTPUT_SIZE);
    Launch::new(Soc::Ascend910B)
        .block_dim(1)
        .run(|| {
            compare_custom::<f32, 1, INPUT_SIZE, INPUT_Y_SIZE, OUTPUT_SIZE>(xg.addr(), yg.addr(), zg.addr())
        })
        .unwrap();
    assert_eq!(zg.to_vec(), compare_golden(&x, |i| y[i], OUTPUT_SIZE));
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/
// compare/compare.asc, scenario 3: Compares LT against src1Local.GetValue(0), with MTE2_S and
// S_V events whose ids come from TPipe::FetchEventID.
#[test]
fn compare_scenario3_tensor_scalar() {
    const INPUT_SIZE: usize = 256;
    const INPUT_Y_SIZE: usize = 16;
    const OUTPUT_SIZE: usize = 32;
    let x = full_range_f32(INPUT_SIZE, 31);
    let y = full_range_f32(INPUT_Y_SIZE, 32);
    let xg = GmBuffer::from_vec(x.clone());
    let yg = GmBuffer::from_vec(y.clone());
    let zg = GmBuffer::<u8>::zeroed(OUTPUT_SIZE);
    Launch::new(Soc::Ascend910B)
        .block_dim(1)
        .run(|| {
            compare_custom::<f32, 3, INPUT_SIZE, INPUT_Y_SIZE, OUTPUT_SIZE>(xg.addr(), yg.addr(), zg.addr())
        })
        .unwrap();
    assert_eq!(zg.to_vec(), compare_golden(&x, |_| y[0], OUTPUT_SIZE));
}

// ---------------------------------------------------------------------------------------
// cast
// ---------------------------------------------------------------------------------------

fn cast_custom<
    const SCENARIO_NUM: u32,
    const BLOCK_LENGTH: usize,
    const TILE_LENGTH: usize,
    const MASK: u64,
>(
    x: GmAddr,
    y: GmAddr,
) {
    init_soc_state();

    if SCENARIO_NUM == 0 {
        // Scenario 0: half -> int4b_t.
        let mut x_gm = GlobalTensor::<f16>::new();
        let mut y_gm = GlobalTensor::<i8>::new();
        x_gm.set_global_buffer(x.add::<f16>(BLOCK_LENGTH * get_block_idx() as usize), BLOCK_LENGTH);
        y_gm.set_global_buffer(y.add::<i8>(BLOCK_LENGTH * get_block_idx() as usize / 2), BLOCK_LENGTH / 2);

        let mut ub_allocator = LocalMemAllocator::<Ub>::new();
        let x_local = ub_allocator.alloc::<f16>(TILE_LENGTH);
        let y_local = ub_allocator.alloc::<i8>(TILE_LENGTH / 2);

        data_copy(&x_local, &x_gm, TILE_LENGTH);
        set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
        wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);

        let y_local_tmp = y_local.reinterpret_cast::<Int4b>();
        cast_masked::<Int4b, f16, true>(
            &y_local_tmp,
            &x_local,
            RoundMode::CastCeil,
            MASK,
            4,
            &UnaryRepeatParams::new(1, 1, 2, 8),
        );
        set_flag::<HardEvent::V_MTE3>(EVENT_ID0);
        wait_flag::<HardEvent::V_MTE3>(EVENT_ID0);

        data_copy(&y_gm, &y_local, TILE_LENGTH / 2);
    } else if SCENARIO_NUM == 1 {
        // Scenario 1: half -> int32_t.
        let mut x_gm = GlobalTensor::<f16>::new();
        let mut y_gm = GlobalTensor::<i32>::new();
        x_gm.set_global_buffer(x.add::<f16>(BLOCK_LENGTH * get_block_idx() as usize), BLOCK_LENGTH);
        y_gm.set_global_buffer(y.add::<i32>(BLOCK_LENGTH * get_block_idx() as usize), BLOCK_LENGTH);

        let mut ub_allocator = LocalMemAllocator::<Ub>::new();
        let x_local = ub_allocator.alloc::<f16>(TILE_LENGTH);
        let y_local = ub_allocator.alloc::<i32>(TILE_LENGTH);

        data_copy(&x_local, &x_gm, TILE_LENGTH);
        set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
        wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);

        cast(&y_local, &x_local, RoundMode::CastCeil, TILE_LENGTH);
        set_flag::<HardEvent::V_MTE3>(EVENT_ID0);
        wait_flag::<HardEvent::V_MTE3>(EVENT_ID0);

        data_copy(&y_gm, &y_local, TILE_LENGTH);
    } else {
        ascend_printf!("scenarioNum %d is not supported!\n", SCENARIO_NUM);
    }

    pipe_barrier::<PIPE_ALL>();
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/
// cast/cast.asc, scenario 0: Cast half -> int4b_t with CAST_CEIL, the high-dimensional form
// (mask 128, 4 repeats, {1, 1, 2, 8}) into an int8_t tensor seen through
// ReinterpretCast<int4b_t>; 512 values, one core.
#[test]
fn cast_scenario0_half_to_int4_ceil() {
    const TOTAL_LENGTH: usize = 512;
    const BLOCK_LENGTH: usize = TOTAL_LENGTH;
    const TILE_LENGTH: usize = BLOCK_LENGTH;
    const MASK: u64 = 128;
    // gen_data.py (gen_golden_data_simple_int4b): x uniform over [-9, 8) as float16;
    // out = 0xF & clip(ceil(x).astype(int8), -8, 7); golden = out[::2] | out[1::2] << 4 as int8.
    let x: Vec<f16> = random_vec(TOTAL_LENGTH, 42, -9.0, 8.0);
    let xg = GmBuffer::from_vec(x.clone());
    let yg = GmBuffer::<i8>::zeroed(TOTAL_LENGTH / 2);
    Launch::new(Soc::Ascend910B)
        .block_dim(1)
        .run(|| cast_custom::<0, BLOCK_LENGTH, TILE_LENGTH, MASK>(xg.addr(), yg.addr()))
        .unwrap();
    let out: Vec<u8> = x.iter().map(|v| 0xF & (v.to_f64().ceil() as i8).clamp(-8, 7) as u8).collect();
    let golden: Vec<i8> = out.chunks(2).map(|p| (p[0] | p[1] << 4) as i8).collect();
    assert_eq!(yg.to_vec(), golden);
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/
// cast/cast.asc, scenario 1: Cast half -> int32_t with CAST_CEIL (count form) on 512 values
// over half's whole range; LocalMemAllocator, GM offsets by GetBlockIdx, one core.
#[test]
fn cast_scenario1_half_to_int32_ceil() {
    const TOTAL_LENGTH: usize = 512;
    const BLOCK_LENGTH: usize = TOTAL_LENGTH;
    const TILE_LENGTH: usize = BLOCK_LENGTH;
    const MASK: u64 = 128;
    // gen_data.py: uniform over finfo(float16) as float16; golden = ceil(clip(x, int32 range))
    // as int32 (half's range lies inside int32's: the clip changes nothing).
    let x: Vec<f16> = random_vec(TOTAL_LENGTH, 41, -65504.0, 65504.0);
    let xg = GmBuffer::from_vec(x.clone());
    let yg = GmBuffer::<i32>::zeroed(TOTAL_LENGTH);
    Launch::new(Soc::Ascend910B)
        .block_dim(1)
        .run(|| cast_custom::<1, BLOCK_LENGTH, TILE_LENGTH, MASK>(xg.addr(), yg.addr()))
        .unwrap();
    let want: Vec<i32> = x.iter().map(|v| v.to_f64().ceil() as i32).collect();
    assert_eq!(yg.to_vec(), want);
}

// ---------------------------------------------------------------------------------------
// brcb
// ---------------------------------------------------------------------------------------

fn brcb_custom(x: GmAddr, y: GmAddr) {
    init_soc_state();
    let x_gm = gm_of::<u16>(x);
    let y_gm = gm_of::<u16>(y);

    let mut ub_allocator = LocalMemAllocator::<Ub>::new();
    let x_local = ub_allocator.alloc::<u16>(16);
    let y_local = ub_allocator.alloc::<u16>(256);

    data_copy(&x_local, &x_gm, 16);
    set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
    wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);

    brcb(&y_local, &x_local, 2, &BrcbRepeatParams::new(1, 8));
    set_flag::<HardEvent::V_MTE3>(EVENT_ID1);
    wait_flag::<HardEvent::V_MTE3>(EVENT_ID1);

    data_copy(&y_gm, &y_local, 256);
    pipe_barrier::<PIPE_ALL>();
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/
// brcb/brcb.asc: Brcb of 16 uint16_t into 16 32-byte blocks (2 repeats, {1, 8}); V_MTE3 on
// EVENT_ID1.
#[test]
fn brcb_broadcast_to_blocks() {
    // gen_data.py: 256 * 2 / 32 = 16 uint16_t uniform over the type's range; golden block i
    // (16 elements) is x[i].
    let x: Vec<u16> = random_vec(16, 51, 0.0, 65535.0);
    let xg = GmBuffer::from_vec(x.clone());
    let yg = GmBuffer::<u16>::zeroed(256);
    Launch::new(Soc::Ascend910B).block_dim(1).run(|| brcb_custom(xg.addr(), yg.addr())).unwrap();
    let want: Vec<u16> = x.iter().flat_map(|&v| [v; 16]).collect();
    assert_eq!(yg.to_vec(), want);
}

// ---------------------------------------------------------------------------------------
// create_vec_index
// ---------------------------------------------------------------------------------------

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/
// create_vec_index/create_vec_index.asc is not ported: it launches 8 cores that all
// DataCopy the same 128 int16_t (Duplicate 0, PipeBarrier<PIPE_V>, CreateVecIndex from 0, in a
// VECOUT TQue) to the same GM bytes, and the sanitizer reports those identical writes as a
// cross-core race on global memory (a false positive for this correct kernel).
