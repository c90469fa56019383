//! Mixed kernels (`KernelType::MixAic1_1` / `MixAic1_2`, Ascend910B): per block one AIC and
//! one or two AIVs, each running the kernel as its core type. The system variables per core
//! type and kernel type (the vendor's `GetBlockIdx`, `GetBlockNum`, `GetSubBlockIdx`,
//! `GetSubBlockNum`, `GetTaskRatio` pages and `impl/basic_api/dav_c220/
//! kernel_operator_sys_var_impl.h`), `CrossCoreSetFlag` / `CrossCoreWaitFlag` in modes 0, 1 and 2
//! (the `CrossCoreSetFlag` page), their errors (a wait that can never be satisfied, a counter
//! past 15, a mode on the wrong core type) and the sanitizer's ordering of an AIC's `Fixpipe`
//! output before an AIV's read.

use std::time::Duration;

use ascend_runtime::prelude::*;

fn mixed(kt: KernelType, blocks: u32) -> Launch {
    Launch::new(Soc::Ascend910B).block_dim(blocks).kernel_type(kt).timeout(Duration::from_secs(20))
}

fn gm<T: Element>(addr: GmAddr, len: usize) -> GlobalTensor<T> {
    let mut g = GlobalTensor::new();
    g.set_global_buffer(addr, len);
    g
}

#[track_caller]
fn expect_err(r: Result<LaunchStats, LaunchError>, needles: &[&str]) -> LaunchError {
    let e = r.expect_err("the launch should fail");
    let text = e.to_string();
    for n in needles {
        assert!(text.contains(n), "expected {n:?} in:\n{text}");
    }
    e
}

/// i32s per core record: 64 bytes, a data-cache line of its own.
const REC: usize = 16;

/// Every core writes `[is_aic, GetBlockIdx, GetSubBlockIdx, GetBlockNum, GetSubBlockNum,
/// GetTaskRatio]` into record `aiv? GetBlockIdx : aivs + GetBlockIdx`. Returns the records of
/// the AIVs and of the AICs.
fn sys_vars(kt: KernelType, blocks: u32) -> (Vec<[i32; 6]>, Vec<[i32; 6]>) {
    let aivs = (blocks * kt.aiv_per_block()) as usize;
    let aics = (blocks * kt.aic_per_block()) as usize;
    let out = GmBuffer::<i32>::zeroed((aivs + aics) * REC);
    let a = out.addr();
    let len = (aivs + aics) * REC;
    mixed(kt, blocks)
        .run(move || {
            let g = gm::<i32>(a, len);
            let idx = get_block_idx() as usize;
            let rec = if ascend_is_aic() { aivs + idx } else { idx } * REC;
            let vals = [
                i32::from(g_core_type() == CoreType::Aic),
                get_block_idx() as i32,
                get_sub_block_idx() as i32,
                get_block_num() as i32,
                get_sub_block_num() as i32,
                get_task_ratio() as i32,
            ];
            for (i, v) in vals.into_iter().enumerate() {
                g.set_value(rec + i, v);
            }
            data_cache_clean_and_invalid::<i32, SingleCacheLine, CachelineOut>(&g.view(rec));
        })
        .unwrap();
    let v = out.to_vec();
    let rec = |r: usize| -> [i32; 6] { std::array::from_fn(|i| v[r * REC + i]) };
    ((0..aivs).map(rec).collect(), (aivs..aivs + aics).map(rec).collect())
}

#[test]
fn system_variables_per_core_type_and_kernel_type() {
    // MIX 1:2, 3 blocks: 3 AICs with GetBlockIdx 0..3; 6 AIVs with GetBlockIdx 0..6 =
    // block * 2 + sub-block. GetBlockNum is blockDim on both; GetSubBlockNum and GetTaskRatio
    // are 2 on the AIVs and 1 on the AICs (the vendor's tables).
    let (aiv, aic) = sys_vars(KernelType::MixAic1_2, 3);
    assert_eq!(aiv.len(), 6);
    for (i, r) in aiv.iter().enumerate() {
        assert_eq!(*r, [0, i as i32, i as i32 % 2, 3, 2, 2], "AIV {i}");
    }
    assert_eq!(aic, (0..3).map(|b| [1, b, 0, 3, 1, 1]).collect::<Vec<_>>());
    // MIX 1:1: one AIV per block, every ratio 1.
    let (aiv, aic) = sys_vars(KernelType::MixAic1_1, 4);
    assert_eq!(aiv, (0..4).map(|b| [0, b, 0, 4, 1, 1]).collect::<Vec<_>>());
    assert_eq!(aic, (0..4).map(|b| [1, b, 0, 4, 1, 1]).collect::<Vec<_>>());
    // AIV only and AIC only: blockDim cores of one type.
    let (aiv, aic) = sys_vars(KernelType::AivOnly, 3);
    assert_eq!((aiv, aic.len()), ((0..3).map(|b| [0, b, 0, 3, 1, 1]).collect::<Vec<_>>(), 0));
    let (aiv, aic) = sys_vars(KernelType::AicOnly, 2);
    assert_eq!((aiv.len(), aic), (0, (0..2).map(|b| [1, b, 0, 2, 1, 1]).collect::<Vec<_>>()));
}

#[test]
fn each_core_has_the_memories_of_its_type_and_faults_name_it() {
    let e = expect_err(
        mixed(KernelType::MixAic1_2, 2).run(|| {
            if ascend_is_aiv() && get_block_idx() == 3 {
                let mut l1 = LocalMemAllocator::<L1>::new();
                l1.alloc::<f16>(256);
            }
        }),
        &["AIV 3 of a KernelType::MixAic1_2 kernel", "ascend_is_aic()", "core 3 (AIV 3)"],
    );
    assert_eq!(e.primary().unwrap().unit, Some((CoreType::Aiv, 3)));
    let e = expect_err(
        mixed(KernelType::MixAic1_1, 2).run(|| {
            if ascend_is_aic() && get_block_idx() == 1 {
                let mut ub = LocalMemAllocator::<Ub>::new();
                ub.alloc::<f32>(8);
            }
        }),
        &["no Unified Buffer", "AIC 1 of a KernelType::MixAic1_1 kernel"],
    );
    // The AICs come after the 2 AIVs in the launch's numbering.
    assert_eq!((e.primary().unwrap().core, e.primary().unwrap().unit), (3, Some((CoreType::Aic, 1))));
    // Both types in one kernel: the AIC's L1 and the AIV's UB.
    mixed(KernelType::MixAic1_2, 2)
        .run(|| {
            if ascend_is_aic() {
                LocalMemAllocator::<L1>::new().alloc::<f16>(256);
            } else {
                LocalMemAllocator::<Ub>::new().alloc::<f16>(256);
            }
        })
        .unwrap();
    expect_err(
        Launch::new(Soc::Ascend310P).kernel_type(KernelType::MixAic1_2).run(|| {}),
        &["KernelType::MixAic1_2 (KERNEL_TYPE_MIX_AIC_1_2) is not supported on Ascend310P"],
    );
}

// ---------------------------------------------------------------------------------------
// An AIC computes C = A × B (16 × 16, half in, float out) into GM with Fixpipe; the AIVs of
// its block wait for it (mode 2), each reads its 8 rows back and writes 2 * C + 1.
// ---------------------------------------------------------------------------------------

const T: usize = 16;

fn aic_matmul(a: GmAddr, b: GmAddr, c: GmAddr) {
    let (a_gm, b_gm, c_gm) = (gm::<f16>(a, T * T), gm::<f16>(b, T * T), gm::<f32>(c, T * T));
    let mut l1 = LocalMemAllocator::<L1>::new();
    let (mut l0a, mut l0b, mut l0c) =
        (LocalMemAllocator::<L0A>::new(), LocalMemAllocator::<L0B>::new(), LocalMemAllocator::<L0C>::new());
    let (a1, b1) = (l1.alloc_at::<A1, f16>(T * T), l1.alloc_at::<B1, f16>(T * T));
    let (a2, b2) = (l0a.alloc_at::<A2, f16>(T * T), l0b.alloc_at::<B2, f16>(T * T));
    let c1 = l0c.alloc_at::<Co1, f32>(T * T);
    let t = T as u16;
    data_copy_nd2nz(&a1, &a_gm, &Nd2NzParams::new(1, t, t, 0, t, t, 1, 0));
    data_copy_nd2nz(&b1, &b_gm, &Nd2NzParams::new(1, t, t, 0, t, t, 1, 0));
    set_flag::<HardEvent::MTE2_MTE1>(EVENT_ID0);
    wait_flag::<HardEvent::MTE2_MTE1>(EVENT_ID0);
    load_data(&a2, &a1, &LoadData2DParams::new(0, 1, 1, 0, 0, false, 0));
    load_data(&b2, &b1, &LoadData2DParams::new(0, 1, 1, 0, 0, true, 0));
    set_flag::<HardEvent::MTE1_M>(EVENT_ID0);
    wait_flag::<HardEvent::MTE1_M>(EVENT_ID0);
    mmad(&c1, &a2, &b2, &MmadParams::new(t, t, t, 0, false, true));
    set_flag::<HardEvent::M_FIX>(EVENT_ID0);
    wait_flag::<HardEvent::M_FIX>(EVENT_ID0);
    let params = FixpipeParamsV220::new(t, t, t, T as u32, false, QuantMode_t::NoQuant, 0, 1, 0, 0, 0);
    fixpipe(&c_gm, &c1, &params); // marker: FIXPIPE-OUT
}

/// AIV `sub` of the block reads rows `8 * sub ..` of C and writes `2 * C + 1` to `out`.
fn aiv_epilogue(c: GmAddr, out: GmAddr) {
    let rows = T / 2;
    let off = get_sub_block_idx() as usize * rows * T;
    let (c_gm, out_gm) = (gm::<f32>(c, T * T), gm::<f32>(out, T * T));
    let x = LocalTensor::<f32>::new(TPosition::VECCALC, 0, rows * T);
    data_copy(&x, &c_gm.view(off), rows * T); // marker: AIV-READ
    set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
    wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);
    muls(&x, &x, 2.0f32, rows * T);
    pipe_barrier::<PIPE_V>();
    adds(&x, &x, 1.0f32, rows * T);
    set_flag::<HardEvent::V_MTE3>(EVENT_ID0);
    wait_flag::<HardEvent::V_MTE3>(EVENT_ID0);
    data_copy(&out_gm.view(off), &x, rows * T);
}

fn matmul_inputs() -> (Vec<f16>, Vec<f16>, Vec<f32>) {
    let a: Vec<f16> = (0..T * T).map(|i| f16::from_f32(((i * 7) % 11) as f32 - 5.0)).collect();
    let b: Vec<f16> = (0..T * T).map(|i| f16::from_f32(((i * 5) % 13) as f32 - 6.0)).collect();
    let mut want = vec![0f32; T * T];
    for i in 0..T {
        for j in 0..T {
            let c: f32 = (0..T).map(|k| a[i * T + k].to_f32() * b[k * T + j].to_f32()).sum();
            want[i * T + j] = 2.0 * c + 1.0;
        }
    }
    (a, b, want)
}

fn run_fused(with_flag: bool) -> (Result<LaunchStats, LaunchError>, Vec<f32>) {
    let (a, b, _) = matmul_inputs();
    let (ga, gb) = (GmBuffer::from_slice(&a), GmBuffer::from_slice(&b));
    let (gc, go) = (GmBuffer::<f32>::zeroed(T * T), GmBuffer::<f32>::zeroed(T * T));
    let (xa, xb, xc, xo) = (ga.addr(), gb.addr(), gc.addr(), go.addr());
    let r = mixed(KernelType::MixAic1_2, 1).run(move || {
        if ascend_is_aic() {
            aic_matmul(xa, xb, xc);
            if with_flag {
                cross_core_set_flag::<2, PIPE_FIX>(3);
            }
        } else {
            if with_flag {
                cross_core_wait_flag(3);
            }
            aiv_epilogue(xc, xo);
        }
    });
    (r, go.to_vec())
}

#[test]
fn an_aic_fixpipe_output_read_by_its_aivs_after_a_mode_2_flag() {
    let (r, got) = run_fused(true);
    r.unwrap();
    let (_, _, want) = matmul_inputs();
    // Integer-valued products and sums: exact.
    assert_eq!(
        got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        want.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
}

#[test]
fn without_the_flag_the_sanitizer_reports_the_aic_aiv_race() {
    let (r, _) = run_fused(false);
    let e = expect_err(r, &["cross-core race on global memory", "Fixpipe", "DataCopy", "(AIC 0)", "(AIV "]);
    let text = e.to_string();
    let src = include_str!("mixed_kernels.rs");
    for marker in ["FIXPIPE-OUT", "AIV-READ"] {
        let line = 1 + src.lines().position(|l| l.contains(marker) && !l.contains("for marker")).unwrap();
        assert!(text.contains(&format!("mixed_kernels.rs:{line}")), "{marker} in:\n{text}");
    }
}

/// A ping-pong over mode 2 in both directions, 20 rounds, on 2 blocks of MIX 1:2: the AIVs
/// each write a value (MTE3) and set flag 0; the AIC (released once both AIVs of its block
/// have set) adds them up with scalar reads and writes the sum (scalar, cleaned out of the
/// data cache), then sets flag 1; each AIV waits for it and reads the sum.
#[test]
fn mode_2_both_ways_round_after_round() {
    const ROUNDS: usize = 20;
    let blocks = 2usize;
    let vals = GmBuffer::<i32>::zeroed(blocks * 2 * 8);
    let sums = GmBuffer::<i32>::zeroed(blocks * REC);
    let seen = GmBuffer::<i32>::zeroed(blocks * 2 * ROUNDS * 8);
    let (va, sa, na) = (vals.addr(), sums.addr(), seen.addr());
    mixed(KernelType::MixAic1_2, blocks as u32)
        .run(move || {
            let (v, s, n) = (
                gm::<i32>(va, blocks * 16),
                gm::<i32>(sa, blocks * REC),
                gm::<i32>(na, blocks * 2 * ROUNDS * 8),
            );
            if ascend_is_aiv() {
                let me = get_block_idx() as usize;
                let block = me / 2;
                let (ub, back) = (
                    LocalTensor::<i32>::new(TPosition::VECCALC, 0, 8),
                    LocalTensor::<i32>::new(TPosition::VECCALC, 32, 8),
                );
                for round in 0..ROUNDS {
                    duplicate(&ub, (round * 10 + me) as i32, 8);
                    set_flag::<HardEvent::V_MTE3>(EVENT_ID0);
                    wait_flag::<HardEvent::V_MTE3>(EVENT_ID0);
                    data_copy(&v.view(me * 8), &ub, 8);
                    cross_core_set_flag::<2, PIPE_MTE3>(0);
                    cross_core_wait_flag(1);
                    data_copy(&back, &s.view(block * REC), 8);
                    set_flag::<HardEvent::MTE2_MTE3>(EVENT_ID0);
                    wait_flag::<HardEvent::MTE2_MTE3>(EVENT_ID0);
                    data_copy(&n.view((me * ROUNDS + round) * 8), &back, 8);
                    // The copies out of both buffers are done before the next round refills them.
                    pipe_barrier::<PIPE_ALL>();
                }
            } else {
                let b = get_block_idx() as usize;
                for _ in 0..ROUNDS {
                    cross_core_wait_flag(0);
                    for i in [b * 16, b * 16 + 8] {
                        data_cache_clean_and_invalid::<i32, SingleCacheLine, CachelineOut>(&v.view(i));
                    }
                    let sum = v.get_value(b * 16) + v.get_value(b * 16 + 8);
                    s.set_value(b * REC, sum);
                    data_cache_clean_and_invalid::<i32, SingleCacheLine, CachelineOut>(&s.view(b * REC));
                    cross_core_set_flag::<2, PIPE_FIX>(1);
                }
            }
        })
        .unwrap();
    let got = seen.to_vec();
    for aiv in 0..blocks * 2 {
        let block = aiv / 2;
        for round in 0..ROUNDS {
            let want = (round * 10 + 2 * block) as i32 + (round * 10 + 2 * block + 1) as i32;
            assert_eq!(got[(aiv * ROUNDS + round) * 8], want, "AIV {aiv} round {round}");
        }
    }
}

/// Mode 1: the two AIVs of a block exchange values; mode 0: every AIC, then every AIV, meet.
#[test]
fn mode_1_pairs_the_aivs_of_a_block_and_mode_0_each_core_type() {
    let blocks = 3usize;
    let vals = GmBuffer::<i32>::zeroed(blocks * 2 * 8);
    let got = GmBuffer::<i32>::zeroed(blocks * 2 * 8);
    let total = GmBuffer::<i32>::zeroed(blocks * 2 * 8);
    let (va, ga, ta) = (vals.addr(), got.addr(), total.addr());
    mixed(KernelType::MixAic1_2, blocks as u32)
        .run(move || {
            let len = blocks * 16;
            let (v, g, t) = (gm::<i32>(va, len), gm::<i32>(ga, len), gm::<i32>(ta, len));
            if ascend_is_aic() {
                // Every AIC meets every other (mode 0 counts the AICs only).
                cross_core_set_flag::<0, PIPE_FIX>(4);
                cross_core_wait_flag(4);
                return;
            }
            let me = get_block_idx() as usize;
            let ub = LocalTensor::<i32>::new(TPosition::VECCALC, 0, 8 * len);
            duplicate(&ub, 100 + me as i32, 8);
            set_flag::<HardEvent::V_MTE3>(EVENT_ID0);
            wait_flag::<HardEvent::V_MTE3>(EVENT_ID0);
            data_copy(&v.view(me * 8), &ub, 8);
            cross_core_set_flag::<1, PIPE_MTE3>(2);
            cross_core_wait_flag(2);
            let partner = me ^ 1;
            data_copy(&ub, &v.view(partner * 8), 8);
            set_flag::<HardEvent::MTE2_MTE3>(EVENT_ID0);
            wait_flag::<HardEvent::MTE2_MTE3>(EVENT_ID0);
            data_copy(&g.view(me * 8), &ub, 8);
            // Every AIV of the launch: then any AIV may read every value.
            cross_core_set_flag::<0, PIPE_MTE3>(2);
            cross_core_wait_flag(2);
            data_copy(&ub, &v, len);
            set_flag::<HardEvent::MTE2_S>(EVENT_ID0);
            wait_flag::<HardEvent::MTE2_S>(EVENT_ID0);
            let sum: i32 = (0..blocks * 2).map(|i| ub.get_value(i * 8)).sum();
            ub.set_value(0, sum);
            set_flag::<HardEvent::S_MTE3>(EVENT_ID0);
            wait_flag::<HardEvent::S_MTE3>(EVENT_ID0);
            data_copy(&t.view(me * 8), &ub, 8);
        })
        .unwrap();
    let (g, t) = (got.to_vec(), total.to_vec());
    let want_sum: i32 = (0..blocks as i32 * 2).map(|i| 100 + i).sum();
    for me in 0..blocks * 2 {
        assert_eq!(g[me * 8], 100 + (me ^ 1) as i32, "AIV {me}");
        assert_eq!(t[me * 8], want_sum, "AIV {me}");
    }
}

#[test]
fn a_wait_no_set_can_satisfy_is_an_error_naming_the_cores() {
    // The AIC of block 1 never sets flag 5 for its AIVs.
    let e = expect_err(
        mixed(KernelType::MixAic1_2, 2).run(|| {
            if ascend_is_aic() {
                if get_block_idx() == 0 {
                    cross_core_set_flag::<2, PIPE_FIX>(5);
                }
            } else {
                cross_core_wait_flag(5);
            }
        }),
        &["CrossCoreWaitFlag(5)", "no core can go on", "(AIV 2) waits", "(AIV 3) waits"],
    );
    assert!(e.faults().iter().any(|f| f.unit == Some((CoreType::Aiv, 2))), "{e}");
    // Mode 2 from the AIVs: one of the two never sets, so the AIC waits for ever.
    expect_err(
        mixed(KernelType::MixAic1_2, 1).run(|| {
            if ascend_is_aic() {
                cross_core_wait_flag(0);
            } else if get_sub_block_idx() == 0 {
                cross_core_set_flag::<2, PIPE_MTE3>(0);
            }
        }),
        &["(AIC 0) waits in CrossCoreWaitFlag(0)", "no core can go on"],
    );
}

#[test]
fn a_counter_past_15_is_an_error() {
    // The AIC sets flag 0 for its AIV 16 times before the AIV waits for any.
    expect_err(
        mixed(KernelType::MixAic1_1, 1).run(|| {
            if ascend_is_aic() {
                for _ in 0..16 {
                    cross_core_set_flag::<2, PIPE_FIX>(0);
                }
                cross_core_set_flag::<2, PIPE_FIX>(1);
            } else {
                cross_core_wait_flag(1);
                for _ in 0..16 {
                    cross_core_wait_flag(0);
                }
            }
        }),
        &["core 1 (AIC 0): CrossCoreSetFlag", "lifts the counter of flag 0 on AIV 0 to 16", "limit of 15"],
    );
    // 15 pending rounds are fine.
    mixed(KernelType::MixAic1_1, 1)
        .run(|| {
            if ascend_is_aic() {
                for _ in 0..15 {
                    cross_core_set_flag::<2, PIPE_FIX>(0);
                }
                cross_core_set_flag::<2, PIPE_FIX>(1);
            } else {
                cross_core_wait_flag(1);
                for _ in 0..15 {
                    cross_core_wait_flag(0);
                }
            }
        })
        .unwrap();
}

#[test]
fn modes_are_checked_against_the_core_type_and_kernel_type() {
    expect_err(
        mixed(KernelType::MixAic1_2, 1).run(|| {
            if ascend_is_aic() {
                cross_core_set_flag::<1, PIPE_FIX>(0);
            }
        }),
        &["modeId = 1", "AIC 0 is a cube core", "use mode 2"],
    );
    expect_err(
        mixed(KernelType::MixAic1_2, 1).run(|| cross_core_set_flag::<4, PIPE_V>(0)),
        &["modeId = 4", "Ascend 950"],
    );
    expect_err(
        mixed(KernelType::AivOnly, 2).sync_all(true).run(|| cross_core_set_flag::<2, PIPE_V>(0)),
        &["modeId = 2", "KernelType::AivOnly", "use mode 0"],
    );
    // SyncAll in a mixed kernel: see mixed_sync_all.rs.
    mixed(KernelType::MixAic1_1, 1).run(sync_all).unwrap();
}

#[test]
fn a_round_left_unwaited_is_reported_at_the_kernel_end() {
    // Mode 0 among the AICs: each sets twice and waits once.
    expect_err(
        mixed(KernelType::MixAic1_1, 2).run(|| {
            if ascend_is_aic() {
                cross_core_set_flag::<0, PIPE_FIX>(7);
                cross_core_set_flag::<0, PIPE_FIX>(7);
                cross_core_wait_flag(7);
            }
        }),
        &["(AIC ", "CrossCoreSetFlag(7) set 2 times and waited for 1 times", "counter of flag 7 at 1"],
    );
}

/// The vendor's `cross_core_set_wait_flag` example (asc-devkit
/// `examples/01_simd_cpp_api/03_basic_api/05_sync_control/cross_core_set_wait_flag`), scenario
/// 1, as it is launched: `__mix__(1, 2)` on 8 blocks, the kernel body under `ASCEND_IS_AIV`.
/// AIVs 2 and 3 (the two of block 1) add `x * GetBlockIdx()` into `z` with atomic DataCopy, meet
/// in mode 1, and AIV 2 copies the sum back out. `gen_data.py`: `z = x * (2 + 3)`, x all 1.0.
#[test]
fn vendor_cross_core_example_scenario_1_mode_1() {
    const TOTAL_LENGTH: usize = 32;
    let x = GmBuffer::from_vec(vec![1.0f32; TOTAL_LENGTH]);
    let z = GmBuffer::<f32>::zeroed(TOTAL_LENGTH);
    let (xa, za) = (x.addr(), z.addr());
    mixed(KernelType::MixAic1_2, 8)
        .run(move || {
            init_soc_state();
            if ascend_is_aiv() {
                let (initial_data_gm, atomic_result_gm) =
                    (gm::<f32>(xa, TOTAL_LENGTH), gm::<f32>(za, TOTAL_LENGTH));
                let block_length = TOTAL_LENGTH;
                // ProcessMode1: 16 AIVs, GetBlockIdx 0..16.
                if get_block_idx() == 2 || get_block_idx() == 3 {
                    let x_local = LocalTensor::<f32>::new(TPosition::VECCALC, 0, block_length);
                    let y_local = LocalTensor::<f32>::new(TPosition::VECCALC, block_length * 4, block_length);
                    data_copy(&x_local, &initial_data_gm, block_length);
                    set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
                    wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);
                    muls(&x_local, &x_local, get_block_idx() as f32, block_length);
                    set_flag::<HardEvent::V_MTE3>(EVENT_ID0);
                    wait_flag::<HardEvent::V_MTE3>(EVENT_ID0);
                    set_atomic_add::<f32>();
                    data_copy(&atomic_result_gm, &x_local, block_length);
                    cross_core_set_flag::<1, PIPE_MTE3>(0);
                    cross_core_wait_flag(0);
                    disable_dma_atomic();
                    if get_block_idx() == 2 {
                        data_copy(&y_local, &atomic_result_gm, block_length);
                        set_flag::<HardEvent::MTE2_MTE3>(EVENT_ID0);
                        wait_flag::<HardEvent::MTE2_MTE3>(EVENT_ID0);
                        data_copy(&atomic_result_gm, &y_local, block_length);
                        return;
                    }
                }
            }
            pipe_barrier::<PIPE_ALL>();
        })
        .unwrap();
    assert_eq!(z.to_vec(), vec![5.0f32; TOTAL_LENGTH]);
}

#[test]
fn workspace_sizes_and_pointers() {
    // RESERVED_WORKSPACE (impl/basic_api/utils/kernel_utils_constants.h): 16 MiB for
    // __NPU_ARCH__ 2201 (Ascend910B) and 3002, 2 MiB for 1001 (Ascend910) and 2002 (Ascend310P).
    assert_eq!(get_lib_api_workspace_size(Soc::Ascend910B), 16_777_216);
    assert_eq!(get_lib_api_workspace_size(Soc::Ascend910), 2_097_152);
    assert_eq!(get_lib_api_workspace_size(Soc::Ascend310P), 2_097_152);
    let usr = 256usize;
    let ws = GmBuffer::<u8>::zeroed(usr + get_lib_api_workspace_size(Soc::Ascend910B) as usize);
    let other = GmBuffer::<u8>::zeroed(usr + get_lib_api_workspace_size(Soc::Ascend910B) as usize);
    let (a, b) = (ws.addr(), other.addr());
    mixed(KernelType::MixAic1_2, 2)
        .run(move || {
            // Null until set; per core; the first SetSysWorkspace wins.
            assert_eq!(get_sys_workspace_ptr(), None);
            assert_eq!(get_user_workspace(a), a.add::<u8>(16 << 20));
            set_sys_workspace(a);
            set_sys_workspace(b);
            assert_eq!(get_sys_workspace_ptr(), Some(a));
            let user = get_user_workspace(b);
            assert_eq!((user, user.remaining_bytes()), (a.add::<u8>(16 << 20), usr));
        })
        .unwrap();
    let small = GmBuffer::<u8>::zeroed(1 << 20);
    let s = small.addr();
    expect_err(
        Launch::new(Soc::Ascend910B).run(move || set_sys_workspace(s)),
        &["SetSysWorkspace", "1048576 bytes", "16777216", "GetLibApiWorkSpaceSize()"],
    );
    expect_err(
        Launch::new(Soc::Ascend910B).run(move || {
            let _ = get_user_workspace(s);
        }),
        &["GetUserWorkspace", "16777216"],
    );
    expect_err(
        Launch::new(Soc::Ascend310B).run(move || {
            let _ = get_sys_workspace_ptr();
        }),
        &["GetSysWorkSpacePtr", "not supported on Ascend310B"],
    );
    // Ascend310P: 2 MiB reserved.
    let ws310 = GmBuffer::<u8>::zeroed(3 << 20);
    let w = ws310.addr();
    Launch::new(Soc::Ascend310P)
        .run(move || assert_eq!(get_user_workspace(w).remaining_bytes(), 1 << 20))
        .unwrap();
}

/// The vendor's `cross_core_set_wait_flag` example, scenario 2 (`mmad_custom`, `__mix__(1, 2)`
/// on 8 blocks), line by line: each block's two AIVs cast its K slice of A (even AIV) and B
/// (odd AIV) from uint8 to half into GM and set mode 2 (flag 12); the block's AIC waits for
/// both, multiplies the slice (M 32 × K 4 × N 64) and adds it into C with an atomic `Fixpipe`,
/// meets every AIC in mode 0 (flag 11), then sets mode 2 (flag 13); each AIV waits for it and
/// applies LeakyRelu(0.001) to its 2 rows of C.
///
/// Deviations: `gen_data.py` draws `uniform(0, 1).astype(uint8)`, all zeros, so integer data
/// in `[0, 4)` is used instead (the products are exact); and `b1` sits `A_SIZE_ALIGN_L1`
/// *elements* (1024 bytes) into L1, where the vendor passes `A_SIZE_ALIGN_L1` (512) as a
/// byte address, inside `a1`'s 1024 bytes — which its all-zero data cannot reveal; and the
/// AIVs' half outputs do not overlap their uint8 inputs (see below).
/// Runs scenario 2 (with the vendor's `b1` address when `vendor_b1`) and checks C.
fn scenario_2(vendor_b1: bool) -> Result<(), LaunchError> {
    const M: usize = 32;
    const N: usize = 64;
    const K: usize = 32;
    const NUM_BLOCKS: usize = 8;
    const AIC_K: usize = K / NUM_BLOCKS;
    const A_BLOCKS_LENGTH: usize = M * K / NUM_BLOCKS;
    const B_BLOCKS_LENGTH: usize = K / NUM_BLOCKS * N;
    const C_AIV_BLOCKS_LENGTH: usize = M / (NUM_BLOCKS * 2) * N;
    const A_SIZE_ALIGN_L1: usize = 32 * 16;
    const B_SIZE_ALIGN_L1: usize = 16 * 64;
    const C_SIZE_ALIGN_L0: usize = 32 * 64;
    const SYNC_AIC_FLAG: u16 = 11;
    const SYNC_AIV_AIC_FLAG: u16 = 12;
    const SYNC_AIC_AIV_FLAG: u16 = 13;
    let a: Vec<u8> = (0..M * K).map(|i| ((i * 7 + 3) % 4) as u8).collect();
    let b: Vec<u8> = (0..K * N).map(|i| ((i * 5 + 1) % 4) as u8).collect();
    // x1_gm.reshape(M, NUM_BLOCKS, K / NUM_BLOCKS).transpose(1, 0, 2): each block's K slice.
    let a_blocks: Vec<u8> = (0..NUM_BLOCKS)
        .flat_map(|blk| (0..M).flat_map(move |i| (0..AIC_K).map(move |k| (blk, i, k))))
        .map(|(blk, i, k)| a[i * K + blk * AIC_K + k])
        .collect();
    let (ga, gb) = (GmBuffer::from_vec(a_blocks), GmBuffer::from_vec(b.clone()));
    let (g_a, g_b) = (GmBuffer::<f16>::zeroed(M * K), GmBuffer::<f16>::zeroed(K * N));
    let gc = GmBuffer::<f32>::zeroed(M * N);
    let (xa, xb, xha, xhb, xc) = (ga.addr(), gb.addr(), g_a.addr(), g_b.addr(), gc.addr());
    mixed(KernelType::MixAic1_2, NUM_BLOCKS as u32).run(move || {
        init_soc_state();
        let idx = get_block_idx() as usize;
        if ascend_is_aic() {
            // InitAIC
            let a_cube = gm::<f16>(xha.add::<f16>(A_BLOCKS_LENGTH * idx), A_BLOCKS_LENGTH);
            let b_cube = gm::<f16>(xhb.add::<f16>(B_BLOCKS_LENGTH * idx), B_BLOCKS_LENGTH);
            let c_cube = gm::<f32>(xc, M * N);
            // ProcessAIC
            let a1 = LocalTensor::<f16>::new(TPosition::A1, 0, A_SIZE_ALIGN_L1);
            let b1_addr = if vendor_b1 { A_SIZE_ALIGN_L1 } else { A_SIZE_ALIGN_L1 * 2 };
            let b1 = LocalTensor::<f16>::new(TPosition::B1, b1_addr, B_SIZE_ALIGN_L1);
            let a2 = LocalTensor::<f16>::new(TPosition::A2, 0, A_SIZE_ALIGN_L1);
            let b2 = LocalTensor::<f16>::new(TPosition::B2, 0, B_SIZE_ALIGN_L1);
            let c1 = LocalTensor::<f32>::new(TPosition::CO1, 0, C_SIZE_ALIGN_L0);
            cross_core_wait_flag(SYNC_AIV_AIC_FLAG);
            // CopyIn
            data_copy_nd2nz(
                &a1,
                &a_cube,
                &Nd2NzParams::new(1, M as u16, AIC_K as u16, 0, AIC_K as u16, 32, 1, 0),
            );
            data_copy_nd2nz(
                &b1,
                &b_cube,
                &Nd2NzParams::new(1, AIC_K as u16, N as u16, 0, N as u16, 16, 1, 0),
            );
            // SplitA
            set_flag::<HardEvent::MTE2_MTE1>(EVENT_ID0);
            wait_flag::<HardEvent::MTE2_MTE1>(EVENT_ID0);
            for i in 0..2 {
                load_data(
                    &a2.view(i * 256),
                    &a1.view(i * 256),
                    &LoadData2DParams::new(0, 1, 2, 0, 0, false, 0),
                );
            }
            // SplitBTranspose
            load_data(&b2, &b1, &LoadData2DParams::new(0, 4, 1, 0, 0, true, 0));
            // Compute
            set_flag::<HardEvent::MTE1_M>(EVENT_ID0);
            wait_flag::<HardEvent::MTE1_M>(EVENT_ID0);
            let mut mmad_params = MmadParams::default();
            (mmad_params.m, mmad_params.n, mmad_params.k) = (M as u16, N as u16, AIC_K as u16);
            mmad(&c1, &a2, &b2, &mmad_params);
            // CopyOut
            set_flag::<HardEvent::M_FIX>(EVENT_ID0);
            wait_flag::<HardEvent::M_FIX>(EVENT_ID0);
            let fixpipe_params = FixpipeParamsV220::new(
                N as u16,
                M as u16,
                32,
                N as u32,
                false,
                QuantMode_t::NoQuant,
                0,
                1,
                0,
                0,
                0,
            );
            set_atomic_add::<f32>();
            fixpipe(&c_cube, &c1, &fixpipe_params);
            disable_dma_atomic();
            cross_core_set_flag::<0, PIPE_FIX>(SYNC_AIC_FLAG);
            cross_core_wait_flag(SYNC_AIC_FLAG);
            cross_core_set_flag::<2, PIPE_FIX>(SYNC_AIC_AIV_FLAG);
        }
        if ascend_is_aiv() {
            // InitAIV
            let a_gm = gm::<u8>(xa.add::<u8>(A_BLOCKS_LENGTH * (idx / 2)), A_BLOCKS_LENGTH);
            let b_gm = gm::<u8>(xb.add::<u8>(B_BLOCKS_LENGTH * (idx / 2)), B_BLOCKS_LENGTH);
            let a_vector = gm::<f16>(xha.add::<f16>(A_BLOCKS_LENGTH * (idx / 2)), A_BLOCKS_LENGTH);
            let b_vector = gm::<f16>(xhb.add::<f16>(B_BLOCKS_LENGTH * (idx / 2)), B_BLOCKS_LENGTH);
            let c_vector = gm::<f32>(xc.add::<f32>(C_AIV_BLOCKS_LENGTH * idx), C_AIV_BLOCKS_LENGTH);
            // ProcessAIV
            let (a_addr, b_addr, c_addr) = (0, A_BLOCKS_LENGTH, A_BLOCKS_LENGTH + B_BLOCKS_LENGTH);
            let a_local = LocalTensor::<u8>::new(TPosition::VECIN, a_addr, A_BLOCKS_LENGTH);
            let b_local = LocalTensor::<u8>::new(TPosition::VECIN, b_addr, B_BLOCKS_LENGTH);
            let c_local = LocalTensor::<f32>::new(TPosition::VECIN, c_addr, C_AIV_BLOCKS_LENGTH);
            // (The vendor's castAAddr = 0 and castBAddr = A_BLOCKS_LENGTH put each half output
            // over its uint8 input: a partial overlap of different-size types, an error
            // here. The outputs go after the inputs instead.)
            let out = 2048;
            let cast_a_local = LocalTensor::<f16>::new(TPosition::VECOUT, out, A_BLOCKS_LENGTH);
            let cast_b_local =
                LocalTensor::<f16>::new(TPosition::VECOUT, out + 2 * A_BLOCKS_LENGTH, B_BLOCKS_LENGTH);
            let relu_c_local = LocalTensor::<f32>::new(TPosition::VECOUT, c_addr, C_AIV_BLOCKS_LENGTH);
            if idx % 2 == 0 {
                data_copy(&a_local, &a_gm, A_BLOCKS_LENGTH);
                set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
                wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);
                cast(&cast_a_local, &a_local, RoundMode::CastNone, A_BLOCKS_LENGTH);
                set_flag::<HardEvent::V_MTE3>(EVENT_ID0);
                wait_flag::<HardEvent::V_MTE3>(EVENT_ID0);
                data_copy(&a_vector, &cast_a_local, A_BLOCKS_LENGTH);
            } else {
                data_copy(&b_local, &b_gm, B_BLOCKS_LENGTH);
                set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
                wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);
                cast(&cast_b_local, &b_local, RoundMode::CastNone, B_BLOCKS_LENGTH);
                set_flag::<HardEvent::V_MTE3>(EVENT_ID0);
                wait_flag::<HardEvent::V_MTE3>(EVENT_ID0);
                data_copy(&b_vector, &cast_b_local, B_BLOCKS_LENGTH);
            }
            cross_core_set_flag::<2, PIPE_MTE3>(SYNC_AIV_AIC_FLAG);
            cross_core_wait_flag(SYNC_AIC_AIV_FLAG);
            let alpha = 0.001f32;
            data_copy(&c_local, &c_vector, C_AIV_BLOCKS_LENGTH);
            set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
            wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);
            leaky_relu(&relu_c_local, &c_local, alpha, C_AIV_BLOCKS_LENGTH);
            set_flag::<HardEvent::V_MTE3>(EVENT_ID0);
            wait_flag::<HardEvent::V_MTE3>(EVENT_ID0);
            data_copy(&c_vector, &relu_c_local, C_AIV_BLOCKS_LENGTH);
        }
        pipe_barrier::<PIPE_ALL>();
    })?;
    // golden = leaky_relu(A × B) in float; the data is non-negative and the sums exact.
    let got = gc.to_vec();
    for i in 0..M {
        for j in 0..N {
            let want: f32 = (0..K).map(|k| a[i * K + k] as f32 * b[k * N + j] as f32).sum();
            assert_eq!(got[i * N + j].to_bits(), want.to_bits(), "C[{i}][{j}]");
        }
    }
    Ok(())
}

#[test]
fn vendor_cross_core_example_scenario_2_cube_and_vector() {
    scenario_2(false).unwrap();
}

/// With the vendor's `b1LocalAddr = A_SIZE_ALIGN_L1` (512, a byte address), B's copy into L1
/// lands on A's rows 16..: the sanitizer reports the two MTE2 copies' overlap.
#[test]
fn vendor_cross_core_example_scenario_2_b1_overlaps_a1() {
    let e = scenario_2(true).unwrap_err().to_string();
    assert!(e.contains("write-after-write race") && e.contains("L1 bytes [0x200, 0x280)"), "{e}");
    assert!(e.contains("(AIC "), "{e}");
}
