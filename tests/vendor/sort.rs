//! Line-by-line ports of the vendor's sorting examples (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/`): `mrg_sort` (Sort32 +
//! MrgSort, scenarios 1–3, written for Atlas A2 = Ascend910B; run here on Ascend910B and on
//! Ascend310B, which has both instructions too) and `region_proposal_sort` (ProposalConcat +
//! RpSort16 + MrgSort4 + ProposalExtract, written for Atlas inference AI Core = Ascend310P; run
//! here on Ascend310P and on Ascend910, which has all four for `half`).
//!
//! Every launch keeps the synchronisation sanitizer on (the default, with the compiler's
//! automatic `PipeBarrier<PIPE_V>` between dependent vector instructions, which the vendor's
//! build has too) and is compared bit for bit with the golden of the example's
//! `scripts/gen_data.py` (a descending `np.sort` / `np.argsort` of the input).
//!
//! One deviation, in `region_proposal_sort`: its last vector call is
//! `ProposalExtract(extractLocal, mrgOutLocal, WORK_SIZE / 16, mode)`, 32 repeats of 16
//! proposals — 512 proposals (4096 halfs) read from a 64-proposal `mrgOutLocal` and 512 halfs
//! written into the 64-half `extractLocal`. The docs require both tensors to hold what the call
//! moves ("用户需保证src中存储的proposal数目大于等于实际所需数目…"), so that line fails its
//! check here; the test `..._as_written_is_rejected` shows it, and the other tests run the
//! kernel with `DST_SIZE / 16 = 4` repeats — the 64 scores the kernel copies out, which on the
//! chip are the first 4 repeats' output either way.

use ascend_kernels::data::random_vec;
use ascend_runtime::prelude::*;
use ascend_runtime::testing::assert_bits_eq;

use crate::gm_of;

// ---------------------------------------------------------------------------------------
// mrg_sort
// ---------------------------------------------------------------------------------------

mod mrg_sort {
    use super::*;

    const SORT_SIZE: usize = 32;

    // mrg_sort/mrg_sort.asc: `vec_mrgsort_kernel<srcDataSize, workSize>`, with the compile-time
    // `scenarioNum` as a const parameter. The vendor fills `params` and `srcList` field by
    // field after default construction; so does the port.
    #[allow(clippy::field_reassign_with_default)]
    fn vec_mrgsort_kernel<const SCENARIO_NUM: u32, const SRC_DATA_SIZE: usize, const WORK_SIZE: usize>(
        src0_gm: GmAddr,
        src1_gm: GmAddr,
        dst_gm: GmAddr,
    ) {
        init_soc_state();
        let src_global0 = gm_of::<f32>(src0_gm);
        let src_global1 = gm_of::<u32>(src1_gm);
        let dst_global = gm_of::<f32>(dst_gm);
        let dst_data_size = SRC_DATA_SIZE * 2; // 输出结果包括值和索引
        let repeat = SRC_DATA_SIZE / SORT_SIZE;

        let mut ub_allocator = LocalMemAllocator::<Ub>::new();
        let src_local0 = ub_allocator.alloc::<f32>(SRC_DATA_SIZE);
        let src_local1 = ub_allocator.alloc::<u32>(SRC_DATA_SIZE);
        let work_local = ub_allocator.alloc::<f32>(WORK_SIZE);
        let dst_local = ub_allocator.alloc::<f32>(SRC_DATA_SIZE * 2);

        data_copy(&src_local0, &src_global0, SRC_DATA_SIZE);
        data_copy(&src_local1, &src_global1, SRC_DATA_SIZE);
        set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
        wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);

        sort32::<f32>(&work_local, &src_local0, &src_local1, repeat as i32);

        pipe_barrier::<PIPE_V>();

        if SCENARIO_NUM == 3 {
            // workLocal[0:2048]：Sort32后存储32条有序队列
            // workLocal[2048:4096]：第一轮归并结果存储区，以及第二轮归并的源数据起始地址
            // workLocal[4096:6144]：第二轮归并结果存储区，以及第三轮归并的源数据起始地址
            let src_local = work_local.view(0);
            let temp_local1 = work_local.view(2048);
            let temp_local2 = work_local.view(4096);

            // 第一轮归并：32条队列 -> 8条队列
            let mut params = MrgSort4Info::default();
            params.element_lengths[0] = SORT_SIZE as u16;
            params.element_lengths[1] = SORT_SIZE as u16;
            params.element_lengths[2] = SORT_SIZE as u16;
            params.element_lengths[3] = SORT_SIZE as u16;
            params.if_exhausted_suspension = false;
            params.valid_bit = 0b1111;
            params.repeat_times = 8;

            let mut src_list = MrgSortSrcList::<f32>::default();
            src_list.src1 = src_local.view(0);
            src_list.src2 = src_local.view(SORT_SIZE * 2);
            src_list.src3 = src_local.view(SORT_SIZE * 2 * 2);
            src_list.src4 = src_local.view(SORT_SIZE * 3 * 2);

            mrg_sort::<f32>(&temp_local1, &src_list, &params);

            pipe_barrier::<PIPE_V>();

            // 第二轮归并：8条队列 -> 2条队列
            params.element_lengths[0] = 128;
            params.element_lengths[1] = 128;
            params.element_lengths[2] = 128;
            params.element_lengths[3] = 128;
            params.repeat_times = 2;

            src_list.src1 = temp_local1.view(0);
            src_list.src2 = temp_local1.view(128 * 2);
            src_list.src3 = temp_local1.view(128 * 2 * 2);
            src_list.src4 = temp_local1.view(128 * 3 * 2);

            mrg_sort::<f32>(&temp_local2, &src_list, &params);

            pipe_barrier::<PIPE_V>();

            // 第三轮归并：2条队列 -> 1条全局有序队列
            src_list.src1 = temp_local2.view(0);
            src_list.src2 = temp_local2.view(512 * 2);

            params.element_lengths[0] = 512;
            params.element_lengths[1] = 512;
            params.element_lengths[2] = 0;
            params.element_lengths[3] = 0;
            params.if_exhausted_suspension = false;
            params.valid_bit = 0b11;
            params.repeat_times = 1;

            mrg_sort::<f32>(&dst_local, &src_list, &params);
        } else {
            let (valid_bit, rpt_times): (u16, u8) = if SCENARIO_NUM == 1 {
                (0b1111, 1)
            } else {
                // 场景2：3条队列有效，演示非4对齐情况下的合并
                (0b0111, 1)
            };

            let mut params = MrgSort4Info::default();
            params.element_lengths[0] = SORT_SIZE as u16;
            params.element_lengths[1] = SORT_SIZE as u16;
            params.element_lengths[2] = SORT_SIZE as u16;
            params.element_lengths[3] = if valid_bit == 0b1111 { SORT_SIZE as u16 } else { 0 };
            params.if_exhausted_suspension = false;
            params.valid_bit = valid_bit;
            params.repeat_times = rpt_times;

            let mut src_list = MrgSortSrcList::<f32>::default();
            src_list.src1 = work_local.view(0);
            src_list.src2 = work_local.view(SORT_SIZE * 2);
            src_list.src3 = work_local.view(SORT_SIZE * 2 * 2);
            src_list.src4 = work_local.view(SORT_SIZE * 3 * 2);

            mrg_sort::<f32>(&dst_local, &src_list, &params);
        }

        set_flag::<HardEvent::V_MTE3>(EVENT_ID0);
        wait_flag::<HardEvent::V_MTE3>(EVENT_ID0);
        data_copy(&dst_global, &dst_local, dst_data_size);
        pipe_barrier::<PIPE_ALL>();
    }

    /// gen_data.py: input_x = np.random.uniform(1, 100, [n]).astype(float32), input_y =
    /// zeros(uint32); golden[2i] = the i-th largest score, golden[2i + 1] = 0 (the index).
    fn data(n: usize, seed: u64) -> (Vec<f32>, Vec<u32>, Vec<f32>) {
        let input_x: Vec<f32> = random_vec(n, seed, 1.0, 100.0);
        let input_y = vec![0u32; n];
        let mut sorted = input_x.clone();
        sorted.sort_by(|a, b| b.total_cmp(a));
        let golden: Vec<f32> = sorted.iter().flat_map(|&s| [s, 0.0]).collect();
        (input_x, input_y, golden)
    }

    /// main(): SRC_DATA_SIZE and WORK_SIZE of the scenario, one core.
    fn run<const SCENARIO_NUM: u32, const SRC_DATA_SIZE: usize, const WORK_SIZE: usize>(soc: Soc) {
        let (x, y, golden) = data(SRC_DATA_SIZE, 9 + u64::from(SCENARIO_NUM));
        let xg = GmBuffer::from_vec(x);
        let yg = GmBuffer::from_vec(y);
        let zg = GmBuffer::<f32>::zeroed(SRC_DATA_SIZE * 2);
        Launch::new(soc)
            .block_dim(1)
            .run(|| {
                vec_mrgsort_kernel::<SCENARIO_NUM, SRC_DATA_SIZE, WORK_SIZE>(xg.addr(), yg.addr(), zg.addr())
            })
            .unwrap();
        assert_bits_eq(&zg.to_vec(), &golden);
    }

    // mrg_sort.asc, scenario 1: 128 scores, Sort32 repeat 4, one MrgSort of 4 lists.
    #[test]
    fn scenario1_four_lists() {
        for soc in [Soc::Ascend910B, Soc::Ascend310B] {
            run::<1, 128, { 4 * SORT_SIZE * 2 }>(soc);
        }
    }

    // Scenario 2: 96 scores, Sort32 repeat 3, MrgSort with validBit 0b0111.
    #[test]
    fn scenario2_three_lists() {
        for soc in [Soc::Ascend910B, Soc::Ascend310B] {
            run::<2, 96, { 4 * SORT_SIZE * 2 }>(soc);
        }
    }

    // Scenario 3: 1024 scores, Sort32 repeat 32, then MrgSort repeat 8, repeat 2, and a
    // 2-list merge.
    #[test]
    fn scenario3_multi_round_merge() {
        for soc in [Soc::Ascend910B, Soc::Ascend310B] {
            run::<3, 1024, { (1024 / SORT_SIZE) * SORT_SIZE * 6 }>(soc);
        }
    }

    // The chips without Sort32 reject the kernel at its first sort.
    #[test]
    fn other_chips_lack_sort32() {
        for soc in [Soc::Ascend910, Soc::Ascend310P] {
            let (x, y, _) = data(128, 10);
            let (xg, yg, zg) = (GmBuffer::from_vec(x), GmBuffer::from_vec(y), GmBuffer::<f32>::zeroed(256));
            let err = Launch::new(soc)
                .block_dim(1)
                .run(|| vec_mrgsort_kernel::<1, 128, 256>(xg.addr(), yg.addr(), zg.addr()))
                .unwrap_err()
                .to_string();
            assert!(err.contains(&format!("T = float is not supported by Sort32 on {soc}")), "{err}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// region_proposal_sort
// ---------------------------------------------------------------------------------------

mod region_proposal_sort {
    use super::*;

    const SCORE_COUNT: usize = 64;
    const RP_ELEMENT_SIZE: usize = 8;
    const WORK_SIZE: usize = SCORE_COUNT * RP_ELEMENT_SIZE;
    const DST_SIZE: usize = SCORE_COUNT;

    /// The vendor's `extractRepeat` (`WORK_SIZE / 16`), which overruns both operands.
    const VENDOR_EXTRACT_REPEAT: i32 = (WORK_SIZE / 16) as i32;
    /// The repeats that extract the `DST_SIZE` scores the kernel copies out.
    const EXTRACT_REPEAT: i32 = (DST_SIZE / 16) as i32;

    // region_proposal_sort/region_proposal_sort.asc: `region_proposal_sort_custom`, with
    // ProposalExtract's repeat count as a parameter (see the module documentation).
    fn region_proposal_sort_custom<const EXTRACT: i32>(x: GmAddr, y: GmAddr) {
        init_soc_state();
        let src_global = gm_of::<f16>(x);
        let dst_global = gm_of::<f16>(y);

        let mut ub_allocator = LocalMemAllocator::<Ub>::new();
        let src_local = ub_allocator.alloc::<f16>(SCORE_COUNT);
        let work_local = ub_allocator.alloc::<f16>(WORK_SIZE);
        let mrg_out_local = ub_allocator.alloc::<f16>(WORK_SIZE);
        let extract_local = ub_allocator.alloc::<f16>(DST_SIZE);

        data_copy(&src_local, &src_global, SCORE_COUNT);
        set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
        wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);

        const SINGLE_DATA_SIZE: usize = SCORE_COUNT / 4;
        const WORK_DATA_SIZE: usize = WORK_SIZE / 4;
        const REPEAT: i32 = (SCORE_COUNT / 4 / 16) as i32;
        const MODE: i32 = 4;

        // Step1: ProposalConcat将连续score合入Region Proposal格式
        // Step2: RpSort16对每组16个RP按score域降序排列
        proposal_concat(&work_local.view(0), &src_local.view(0), REPEAT, MODE);
        pipe_barrier::<PIPE_V>();
        rp_sort16(&work_local.view(0), &work_local.view(0), REPEAT);

        proposal_concat(&work_local.view(WORK_DATA_SIZE), &src_local.view(SINGLE_DATA_SIZE), REPEAT, MODE);
        pipe_barrier::<PIPE_V>();
        rp_sort16(&work_local.view(WORK_DATA_SIZE), &work_local.view(WORK_DATA_SIZE), REPEAT);

        proposal_concat(
            &work_local.view(WORK_DATA_SIZE * 2),
            &src_local.view(SINGLE_DATA_SIZE * 2),
            REPEAT,
            MODE,
        );
        pipe_barrier::<PIPE_V>();
        rp_sort16(&work_local.view(WORK_DATA_SIZE * 2), &work_local.view(WORK_DATA_SIZE * 2), REPEAT);

        proposal_concat(
            &work_local.view(WORK_DATA_SIZE * 3),
            &src_local.view(SINGLE_DATA_SIZE * 3),
            REPEAT,
            MODE,
        );
        pipe_barrier::<PIPE_V>();
        rp_sort16(&work_local.view(WORK_DATA_SIZE * 3), &work_local.view(WORK_DATA_SIZE * 3), REPEAT);

        // Step3: MrgSort4将4组已排序的RP合并为1组，输出写入独立的mrgOutLocal
        let src_list = MrgSortSrcList::<f16>::new(
            &work_local.view(0),
            &work_local.view(WORK_DATA_SIZE),
            &work_local.view(WORK_DATA_SIZE * 2),
            &work_local.view(WORK_DATA_SIZE * 3),
        );
        let element_lengths: [u16; 4] = [SINGLE_DATA_SIZE as u16; 4];
        let src_info = MrgSort4Info::new(element_lengths, false, 15, 1);
        mrg_sort4(&mrg_out_local, &src_list, &src_info);
        pipe_barrier::<PIPE_V>();

        // Step4: ProposalExtract从合并后的RP中提取score域，得到排序后的连续score
        let extract_repeat = EXTRACT;
        proposal_extract(&extract_local, &mrg_out_local, extract_repeat, MODE);

        set_flag::<HardEvent::V_MTE3>(EVENT_ID0);
        wait_flag::<HardEvent::V_MTE3>(EVENT_ID0);
        data_copy(&dst_global, &extract_local, DST_SIZE);
        pipe_barrier::<PIPE_ALL>();
    }

    /// gen_data.py: src = np.random.uniform(-1000, 1000, [1, 64]).astype(float16); golden =
    /// np.sort(src)[::-1].
    fn data() -> (Vec<f16>, Vec<f16>) {
        let src: Vec<f16> = random_vec(SCORE_COUNT, 9, -1000.0, 1000.0);
        let mut golden = src.clone();
        golden.sort_by(|a, b| b.total_cmp(a));
        (src, golden)
    }

    #[test]
    fn pipeline_sorts_64_scores() {
        for soc in [Soc::Ascend310P, Soc::Ascend910] {
            let (x, golden) = data();
            let xg = GmBuffer::from_vec(x);
            let yg = GmBuffer::<f16>::zeroed(DST_SIZE);
            Launch::new(soc)
                .block_dim(1)
                .run(|| region_proposal_sort_custom::<EXTRACT_REPEAT>(xg.addr(), yg.addr()))
                .unwrap();
            assert_bits_eq(&yg.to_vec(), &golden);
        }
    }

    #[test]
    fn pipeline_as_written_is_rejected() {
        let (x, _) = data();
        let xg = GmBuffer::from_vec(x);
        let yg = GmBuffer::<f16>::zeroed(DST_SIZE);
        let err = Launch::new(Soc::Ascend310P)
            .block_dim(1)
            .run(|| region_proposal_sort_custom::<VENDOR_EXTRACT_REPEAT>(xg.addr(), yg.addr()))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("ProposalExtract: src holds 512 elements but repeatTime = 32 reads 512 proposals, that is 4096"),
            "{err}"
        );
    }

    // The example's README lists Atlas inference AI Core only; the Region Proposal
    // instructions do not exist on Ascend910B and Ascend310B.
    #[test]
    fn other_chips_lack_proposals() {
        for soc in [Soc::Ascend910B, Soc::Ascend310B] {
            let (x, _) = data();
            let xg = GmBuffer::from_vec(x);
            let yg = GmBuffer::<f16>::zeroed(DST_SIZE);
            let err = Launch::new(soc)
                .block_dim(1)
                .run(|| region_proposal_sort_custom::<EXTRACT_REPEAT>(xg.addr(), yg.addr()))
                .unwrap_err()
                .to_string();
            assert!(err.contains(&format!("T = half is not supported by ProposalConcat on {soc}")), "{err}");
        }
    }
}
