//! A line-by-line port of the vendor's `Copy` (UB→UB, masked high-dimensional) basic-API
//! example (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/03_basic_api/00_data_movement/copy_ub2ub/copy.asc`), its three
//! scenarios:
//!
//! 1. `[1, 512]` `int32_t`, continuous mask 64, 8 repeats, `{1, 1, 8, 8}`;
//! 2. the first 8 columns of `[18, 64]` into `[18, 8]`: mask 8, 18 repeats, `{1, 1, 1, 8}`;
//! 3. the same in counter mode, where `Copy`'s mask counts the elements of each repeat:
//!    `SetVectorMask<int32_t, COUNTER>(144)`, one repeat, `{1, 8, 8, 8}` (a source block
//!    stride of one row).
//!
//! The example is a correct kernel (it runs on the chip and matches its golden data), so each
//! launch keeps the synchronisation sanitizer on (the default) and must succeed. The output is
//! checked bit for bit against the golden computed as the example's `scripts/gen_data.py` does:
//! `randint(-1000, 1000)` inputs, `golden = input` (scenario 1) or
//! `input.reshape(18, 64)[:, :8].flatten()` (scenarios 2 and 3).

use ascend_kernels::data::XorShift64;
use ascend_runtime::prelude::*;
use ascend_runtime::testing::assert_bits_eq;

/// `KernelCopy<srcTotalLength, dstTotalLength>` with `scenarioNum` as a const parameter (the
/// vendor selects it with `-DSCENARIO_NUM`).
struct KernelCopy<const SCENARIO_NUM: u32, const SRC_TOTAL_LENGTH: usize, const DST_TOTAL_LENGTH: usize> {
    src_global: GlobalTensor<i32>,
    dst_global: GlobalTensor<i32>,
}

impl<const SCENARIO_NUM: u32, const SRC_TOTAL_LENGTH: usize, const DST_TOTAL_LENGTH: usize>
    KernelCopy<SCENARIO_NUM, SRC_TOTAL_LENGTH, DST_TOTAL_LENGTH>
{
    fn init(src_gm: GmAddr, dst_gm: GmAddr) -> Self {
        let mut src_global = GlobalTensor::<i32>::new();
        let mut dst_global = GlobalTensor::<i32>::new();
        src_global.set_global_buffer_addr(src_gm);
        dst_global.set_global_buffer_addr(dst_gm);
        KernelCopy { src_global, dst_global }
    }

    fn process(&self) {
        let src_addr = 0;
        let dst_addr = src_addr + SRC_TOTAL_LENGTH * size_of::<i32>();

        let src_local = LocalTensor::<i32>::new(TPosition::VECIN, src_addr, SRC_TOTAL_LENGTH);
        let dst_local = LocalTensor::<i32>::new(TPosition::VECOUT, dst_addr, DST_TOTAL_LENGTH);

        data_copy(&src_local, &self.src_global, SRC_TOTAL_LENGTH);
        set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
        wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);

        self.compute(&src_local, &dst_local);

        set_flag::<HardEvent::V_MTE3>(EVENT_ID0);
        wait_flag::<HardEvent::V_MTE3>(EVENT_ID0);
        data_copy(&self.dst_global, &dst_local, DST_TOTAL_LENGTH);
    }

    fn compute(&self, src_local: &LocalTensor<i32>, dst_local: &LocalTensor<i32>) {
        if SCENARIO_NUM == 1 {
            // [1, 512]: 64 int32 lanes a repeat, 8 repeats, no gaps.
            let mask: u64 = 64;
            copy_masked::<i32, true>(dst_local, src_local, mask, 8, &[1, 1, 8, 8].into());
        } else if SCENARIO_NUM == 2 {
            // [18, 64] → [18, 8]: 8 lanes (one block) a repeat, 18 repeats; src repeats a row
            // (8 blocks) apart, dst repeats one block apart.
            let mask: u64 = 8;
            copy_masked::<i32, true>(dst_local, src_local, mask, 18, &[1, 1, 1, 8].into());
        } else if SCENARIO_NUM == 3 {
            // Counter mode: 144 elements in the one repeat, src blocks a row (8 blocks) apart,
            // dst blocks contiguous; the repeat sizes do not matter for one repeat.
            set_mask_count();
            set_vector_mask::<i32>(144u64);
            copy_masked::<i32, false>(dst_local, src_local, MASK_PLACEHOLDER, 1, &[1, 8, 8, 8].into());
            set_mask_norm();
            reset_mask();
        } else {
            let mask: u64 = 64;
            copy_masked::<i32, true>(dst_local, src_local, mask, 8, &[1, 1, 8, 8].into());
        }
    }
}

/// `copy_custom<srcTotalLength, dstTotalLength>(x, z)`.
fn copy_custom<const SCENARIO_NUM: u32, const SRC_TOTAL_LENGTH: usize, const DST_TOTAL_LENGTH: usize>(
    x: GmAddr,
    z: GmAddr,
) {
    init_soc_state();
    let op = KernelCopy::<SCENARIO_NUM, SRC_TOTAL_LENGTH, DST_TOTAL_LENGTH>::init(x, z);
    op.process();
    pipe_barrier::<PIPE_ALL>();
}

/// `gen_data.py`: `np.random.randint(-1000, 1000, size=src_length)` (from our seeded
/// generator) and the golden — the input itself, or the first `dst_cols` columns of each row.
fn gen_golden_data(src_shape: [usize; 2], dst_cols: usize) -> (Vec<i32>, Vec<i32>) {
    let mut rng = XorShift64::new(9);
    let input: Vec<i32> = (0..src_shape[0] * src_shape[1]).map(|_| rng.range(-1000, 1000) as i32).collect();
    let golden = if dst_cols == src_shape[1] {
        input.clone()
    } else {
        input.chunks(src_shape[1]).flat_map(|row| row[..dst_cols].iter().copied()).collect()
    };
    (input, golden)
}

/// Runs scenario `SCENARIO_NUM` on one Ascend910B core (the example's `numBlocks = 1`) with
/// the sanitizer on, and checks the output bit for bit.
fn run_scenario<const SCENARIO_NUM: u32, const SRC_TOTAL_LENGTH: usize, const DST_TOTAL_LENGTH: usize>(
    src_shape: [usize; 2],
    dst_cols: usize,
) {
    let (input, golden) = gen_golden_data(src_shape, dst_cols);
    assert_eq!((input.len(), golden.len()), (SRC_TOTAL_LENGTH, DST_TOTAL_LENGTH));
    let x = GmBuffer::from_vec(input);
    // The output starts as a pattern the golden does not hold, so a lane left unwritten shows.
    let z = GmBuffer::from_vec(vec![i32::MIN; DST_TOTAL_LENGTH]);
    Launch::new(Soc::Ascend910B)
        .block_dim(1)
        .run(|| copy_custom::<SCENARIO_NUM, SRC_TOTAL_LENGTH, DST_TOTAL_LENGTH>(x.addr(), z.addr()))
        .unwrap();
    assert_bits_eq(&z.to_vec(), &golden);
}

#[test]
fn scenario1_contiguous_1x512() {
    run_scenario::<1, 512, 512>([1, 512], 512);
}

#[test]
fn scenario2_first_8_of_18x64_mask_mode() {
    run_scenario::<2, { 18 * 64 }, { 18 * 8 }>([18, 64], 8);
}

#[test]
fn scenario3_first_8_of_18x64_counter_mode() {
    run_scenario::<3, { 18 * 64 }, { 18 * 8 }>([18, 64], 8);
}

/// Without the `V_MTE3` event the copy-out races with `Copy` (a V instruction): the
/// sanitizer reports it, so the scenarios above are checked with their synchronisation.
#[test]
fn copy_runs_on_the_vector_pipe() {
    let x = GmBuffer::from_vec(gen_golden_data([1, 512], 512).0);
    let z = GmBuffer::<i32>::zeroed(512);
    let err = Launch::new(Soc::Ascend910B)
        .run(|| {
            let mut src_global = GlobalTensor::<i32>::new();
            let mut dst_global = GlobalTensor::<i32>::new();
            src_global.set_global_buffer_addr(x.addr());
            dst_global.set_global_buffer_addr(z.addr());
            let src_local = LocalTensor::<i32>::new(TPosition::VECIN, 0, 512);
            let dst_local = LocalTensor::<i32>::new(TPosition::VECOUT, 2048, 512);
            data_copy(&src_local, &src_global, 512);
            set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
            wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);
            copy_masked::<i32, true>(&dst_local, &src_local, 64u64, 8, &CopyRepeatParams::default());
            data_copy(&dst_global, &dst_local, 512);
        })
        .unwrap_err()
        .to_string();
    assert!(err.contains("Copy on pipe V") && err.contains("HardEvent::V_MTE3"), "{err}");
}
