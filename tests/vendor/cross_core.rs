//! Line-by-line port of the vendor's `cross_core_set_wait_flag` example
//! (`mirror-cann/asc-devkit`, `examples/01_simd_cpp_api/03_basic_api/05_sync_control/`), its
//! vector-only scenarios: a `__mix__(1, 2)` kernel on 8 AI Cores, so 16 vector cores.
//!
//! Scenario 0 (mode 0): every vector core adds `x * blockIdx` into `z` with atomic DataCopy,
//! then `CrossCoreSetFlag<0, PIPE_MTE3>(0)` / `CrossCoreWaitFlag(0)`; core 0 then reads `z`
//! back and copies it out again. A correct kernel: the sanitizer must find nothing, since the
//! flag orders every core's atomic add before core 0's plain read and write.
//!
//! Scenario 1 (mode 1) synchronises the two vector cores of one AI Core; the emulator runs
//! vector cores only, with no AI Core pairing, so that mode is asserted rejected.

use ascend_runtime::prelude::*;

/// `NUM_BLOCKS` AI Cores of a `__mix__(1, 2)` kernel: two vector cores each.
const NUM_BLOCKS: u32 = 8;
const AIV_NUM: u32 = 2 * NUM_BLOCKS;
const TOTAL_LENGTH: usize = 32;

/// `KernelCrossCoreSetFlag` (scenarios 0 and 1).
struct KernelCrossCoreSetFlag {
    initial_data_gm: GlobalTensor<f32>,
    atomic_result_gm: GlobalTensor<f32>,
    block_length: usize,
}

impl KernelCrossCoreSetFlag {
    fn init(initial_data: GmAddr, atomic_result: GmAddr, total_length: usize) -> Self {
        let mut initial_data_gm = GlobalTensor::new();
        let mut atomic_result_gm = GlobalTensor::new();
        initial_data_gm.set_global_buffer(initial_data, total_length);
        atomic_result_gm.set_global_buffer(atomic_result, total_length);
        KernelCrossCoreSetFlag { initial_data_gm, atomic_result_gm, block_length: total_length }
    }

    fn process(&self, scenario: u32) {
        if scenario == 0 {
            self.process_mode0();
        } else {
            self.process_mode1();
        }
    }

    /// Multiplies the input by `blockIdx` and adds it into `z` (atomic), then the `flag`
    /// barrier of `MODE`; core `first` copies the sum back out.
    fn accumulate<const MODE: u8>(&self, first: u32) {
        let x_addr = 0;
        let y_addr = self.block_length * 4;
        let x_local = LocalTensor::<f32>::new(TPosition::VECCALC, x_addr, self.block_length);
        let y_local = LocalTensor::<f32>::new(TPosition::VECCALC, y_addr, self.block_length);

        data_copy(&x_local, &self.initial_data_gm, self.block_length);
        set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
        wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);

        muls(&x_local, &x_local, get_block_idx() as f32, self.block_length);
        set_flag::<HardEvent::V_MTE3>(EVENT_ID0);
        wait_flag::<HardEvent::V_MTE3>(EVENT_ID0);

        // UB → GM with atomic add: the copy adds into atomicResult.
        set_atomic_add::<f32>();
        data_copy(&self.atomic_result_gm, &x_local, self.block_length); // PIPE_MTE3
                                                                        // Once this core's MTE3 copies are done, tell the others.
        cross_core_set_flag::<MODE, PIPE_MTE3>(0);
        // Block until every core's MTE3 copies are done.
        cross_core_wait_flag(0);
        disable_dma_atomic();

        if get_block_idx() == first {
            data_copy(&y_local, &self.atomic_result_gm, self.block_length); // PIPE_MTE2
            set_flag::<HardEvent::MTE2_MTE3>(EVENT_ID0);
            wait_flag::<HardEvent::MTE2_MTE3>(EVENT_ID0);
            data_copy(&self.atomic_result_gm, &y_local, self.block_length);
        }
    }

    fn process_mode0(&self) {
        self.accumulate::<0>(0);
    }

    fn process_mode1(&self) {
        // 16 vector cores, GetBlockIdx 0-15: the two of AI Core 1.
        if get_block_idx() == 2 || get_block_idx() == 3 {
            self.accumulate::<1>(2);
        }
    }
}

/// `cross_core_set_wait_flag_custom`, as each vector core runs it (`ASCEND_IS_AIV`).
fn cross_core_set_wait_flag_custom(scenario: u32, x: GmAddr, z: GmAddr, data_length: usize) {
    init_soc_state();
    let op = KernelCrossCoreSetFlag::init(x, z, data_length);
    op.process(scenario);
    pipe_barrier::<PIPE_ALL>();
}

fn run(scenario: u32) -> (Vec<f32>, Result<LaunchStats, LaunchError>) {
    // gen_data.py: x = ones(32) float32; z starts zeroed (the device buffer the host reads).
    let x = GmBuffer::from_vec(vec![1.0f32; TOTAL_LENGTH]);
    let z = GmBuffer::<f32>::zeroed(TOTAL_LENGTH);
    let (xa, za) = (x.addr(), z.addr());
    let r = Launch::new(Soc::Ascend910B)
        .block_dim(AIV_NUM)
        .sync_all(true)
        .run(move || cross_core_set_wait_flag_custom(scenario, xa, za, TOTAL_LENGTH));
    (z.to_vec(), r)
}

#[test]
fn scenario_0_every_vector_core_in_mode_0() {
    let (z, r) = run(0);
    r.unwrap();
    // gen_data.py: golden = x * (0 + NUM_BLOCKS * 2 - 1) * NUM_BLOCKS, the sum of 0..16;
    // integers in f32, exact whatever the order of the atomic adds.
    let golden = [(2 * NUM_BLOCKS - 1) as f32 * NUM_BLOCKS as f32; TOTAL_LENGTH];
    assert_eq!(
        z.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        golden.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
}

#[test]
fn scenario_1_mode_1_needs_the_ai_core_pairs_of_a_mixed_kernel() {
    let (_, r) = run(1);
    let e = r.expect_err("mode 1 is not modelled");
    let f = e.primary().expect("a fault");
    let text = f.to_string();
    assert!(text.contains("CrossCoreSetFlag") && text.contains("modeId = 1"), "{text}");
    assert!(text.contains("mixed kernel"), "{text}");
    // Only the two cores of AI Core 1 get that far.
    assert!(f.core == 2 || f.core == 3, "{text}");
}
