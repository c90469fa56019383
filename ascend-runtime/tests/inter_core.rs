//! The flag-based inter-core primitives in launches: `IBSet`/`IBWait`,
//! `InitDetermineComputeWorkspace`/`WaitPreBlock`/`NotifyNextBlock` and
//! `CrossCoreSetFlag`/`CrossCoreWaitFlag` order cores, their waits
//! block a core until the flag is set, and a wait no core can satisfy (a hang on the chip) is
//! an error naming every blocked core — never a hang.

use std::time::{Duration, Instant};

use ascend_runtime::prelude::*;

fn gm_i32(addr: GmAddr, len: usize) -> GlobalTensor<i32> {
    let mut g = GlobalTensor::new();
    g.set_global_buffer(addr, len);
    g
}

fn ub_i32(len: usize) -> LocalTensor<i32> {
    LocalTensor::new(TPosition::VECCALC, 0, len)
}

fn threads(cores: u32) -> Launch {
    Launch::new(Soc::Ascend910B).block_dim(cores).sync_all(true).timeout(Duration::from_secs(20))
}

#[track_caller]
fn expect_err(r: Result<LaunchStats, LaunchError>, needles: &[&str]) -> String {
    let text = r.expect_err("the launch should fail").to_string();
    for n in needles {
        assert!(text.contains(n), "expected {n:?} in:\n{text}");
    }
    text
}

/// Two cores pass a counter back and forth through GM 100 times: each reads it after its
/// `IBWait`, adds one and hands it over with `IBSet` (event 0 towards core 1, event 1 towards
/// core 0). Every flag is set and consumed in turn, so the count is exact and the sanitizer
/// finds the plain GM accesses ordered.
#[test]
fn ping_pong_through_ib_set_and_ib_wait() {
    const ROUNDS: i32 = 100;
    let flags = GmBuffer::<i32>::zeroed(2 * 2 * 8);
    let counter = GmBuffer::<i32>::zeroed(8);
    let (fa, ca) = (flags.addr(), counter.addr());
    threads(2)
        .run(move || {
            let me = get_block_idx() as i32;
            let flag = gm_i32(fa, 32);
            let c = gm_i32(ca, 8);
            let ub = ub_i32(8);
            for _ in 0..ROUNDS {
                if me == 1 {
                    ib_wait(&flag, &ub, 1, 0);
                }
                c.set_value(0, c.get_value(0) + 1);
                if me == 0 {
                    ib_set(&flag, &ub, 1, 0);
                    ib_wait(&flag, &ub, 0, 1);
                } else {
                    ib_set(&flag, &ub, 0, 1);
                }
            }
        })
        .unwrap();
    assert_eq!(counter.to_vec()[0], 2 * ROUNDS);
    assert_eq!(flags.to_vec(), vec![0; 32]);
}

/// 48 cores take turns three times: in its turn each core appends its index to a log through
/// a shared cursor in GM, with plain accesses, which only the block order of
/// `WaitPreBlock`/`NotifyNextBlock` makes correct (and the sanitizer accepts, through the
/// order running from each core to the next and from the last core to the next round).
#[test]
fn wait_pre_block_runs_48_cores_in_block_order_each_round() {
    const N: usize = 48;
    const ROUNDS: usize = 3;
    let ws = GmBuffer::<i32>::from_vec(vec![-1; N * 8]); // InitDetermineComputeWorkspace zeroes it
    let cursor = GmBuffer::<i32>::zeroed(8);
    let log = GmBuffer::<i32>::from_vec(vec![-1; N * ROUNDS]);
    let (wa, ca, la) = (ws.addr(), cursor.addr(), log.addr());
    threads(N as u32)
        .run(move || {
            let me = get_block_idx() as i32;
            let (ws, cur, log) = (gm_i32(wa, N * 8), gm_i32(ca, 8), gm_i32(la, N * ROUNDS));
            let ub = ub_i32(N * 8 + 8);
            init_determine_compute_workspace(&ws, &ub);
            for _ in 0..ROUNDS {
                wait_pre_block(&ws, &ub);
                let at = cur.get_value(0);
                log.set_value(at as usize, me);
                cur.set_value(0, at + 1);
                notify_next_block(&ws, &ub);
            }
            assert_eq!(ub.get_value(N * 8), ROUNDS as i32 + 1);
        })
        .unwrap();
    let want: Vec<i32> = (0..ROUNDS).flat_map(|_| 0..N as i32).collect();
    assert_eq!(log.to_vec(), want);
    assert_eq!(ws.to_vec(), vec![0; N * 8]);
}

#[test]
fn ib_wait_without_ib_set_is_an_error_not_a_hang() {
    let flags = GmBuffer::<i32>::zeroed(16);
    let fa = flags.addr();
    let t0 = Instant::now();
    let text = expect_err(
        threads(2).run(move || {
            if get_block_idx() == 1 {
                ib_wait(&gm_i32(fa, 16), &ub_i32(8), 1, 0);
            }
        }),
        &[
            "IBWait",
            "no core can go on: core 1 waits in IBWait",
            "gmWorkspace[8]",
            "to become 1",
            "core(s) 0 returned",
        ],
    );
    assert!(t0.elapsed() < Duration::from_secs(10), "took {:?}: {text}", t0.elapsed());
}

#[test]
fn a_second_ib_set_before_the_wait_consumed_the_first_is_an_error_not_a_hang() {
    let flags = GmBuffer::<i32>::zeroed(8);
    let fa = flags.addr();
    let kernel = move || {
        let (g, ub) = (gm_i32(fa, 8), ub_i32(8));
        ib_set(&g, &ub, 0, 0);
        ib_set(&g, &ub, 0, 0);
    };
    let what = ["core 0 waits in IBSet", "to become 0", "never consumed by an IBWait"];
    // A thread per core: the launch's barrier finds no core to set it.
    expect_err(threads(1).run(kernel), &[&what[..], &["no core can go on"]].concat());
    // One pooled core, with no barrier: nobody else exists.
    flags.write_from(&[0; 8]);
    expect_err(
        Launch::new(Soc::Ascend910B).run(kernel),
        &[&what[..], &["this launch has one core"]].concat(),
    );
}

#[test]
fn a_core_waiting_on_a_core_that_waits_on_it_is_a_deadlock() {
    let flags = GmBuffer::<i32>::zeroed(32);
    let fa = flags.addr();
    expect_err(
        threads(2).run(move || {
            let me = get_block_idx() as i32;
            ib_wait(&gm_i32(fa, 32), &ub_i32(8), me, 0);
            ib_set(&gm_i32(fa, 32), &ub_i32(8), 1 - me, 0);
        }),
        &["no core can go on", "core 0 waits in IBWait", "core 1 waits in IBWait"],
    );
}

#[test]
fn more_wait_pre_blocks_than_notifies_is_an_error_not_a_hang() {
    let ws = GmBuffer::<i32>::zeroed(3 * 8);
    let wa = ws.addr();
    expect_err(
        threads(3).run(move || {
            let (g, ub) = (gm_i32(wa, 24), ub_i32(32));
            init_determine_compute_workspace(&g, &ub);
            wait_pre_block(&g, &ub);
            if get_block_idx() != 0 {
                notify_next_block(&g, &ub);
            }
        }),
        &["no core can go on", "waits in WaitPreBlock", "in round 1 for cores 0..1"],
    );
}

#[test]
fn a_core_blocked_in_ib_wait_is_released_when_another_core_fails() {
    let flags = GmBuffer::<i32>::zeroed(16);
    let fa = flags.addr();
    let e = threads(2)
        .run(move || {
            if get_block_idx() == 1 {
                ib_wait(&gm_i32(fa, 16), &ub_i32(8), 1, 0);
            } else {
                std::thread::sleep(Duration::from_millis(50));
                panic!("core 0 fails");
            }
        })
        .unwrap_err();
    let p = e.primary().expect("a primary fault");
    assert_eq!(p.core, 0);
    assert!(p.to_string().contains("core 0 fails"), "{e}");
}

#[test]
fn the_sequential_mode_cannot_block_a_core() {
    let flags = GmBuffer::<i32>::zeroed(16);
    let fa = flags.addr();
    expect_err(
        Launch::new(Soc::Ascend910B).block_dim(2).mode(ExecMode::Sequential).run(move || {
            ib_set(&gm_i32(fa, 16), &ub_i32(8), 1, 0);
        }),
        &["IBSet", "cannot block a core", "(sequential mode)", "the default pooled mode"],
    );
}

/// The pooled mode (the default) blocks a core as the thread-per-core mode does: core 0
/// waits for the flag core 1 sets.
#[test]
fn the_pooled_mode_blocks_a_core() {
    let flags = GmBuffer::<i32>::zeroed(16);
    let fa = flags.addr();
    Launch::new(Soc::Ascend910B)
        .block_dim(2)
        .run(move || {
            if get_block_idx() == 1 {
                ib_set(&gm_i32(fa, 16), &ub_i32(8), 0, 0);
            } else {
                ib_wait(&gm_i32(fa, 16), &ub_i32(8), 0, 0);
            }
        })
        .unwrap();
    assert_eq!(flags.to_vec(), vec![0; 16]);
}

#[test]
fn is_aiv_only_false_places_the_flags_for_twice_the_cores() {
    let flags = GmBuffer::<i32>::zeroed(2 * 2 * 8 * 2);
    let fa = flags.addr();
    threads(2)
        .run(move || {
            if get_block_idx() == 0 {
                ib_set_with::<false>(&gm_i32(fa, 64), &ub_i32(8), 1, 1);
            }
        })
        .unwrap();
    // (2 * blockNum) * 8 * eventID + blockIdx * 8 = 32 + 8.
    let got = flags.to_vec();
    assert_eq!(got[40], 1);
    assert_eq!(got.iter().filter(|&&v| v != 0).count(), 1);
}

#[test]
fn argument_and_chip_checks() {
    let flags = GmBuffer::<i32>::zeroed(16);
    let fa = flags.addr();
    let run1 = |soc: Soc, f: fn(GmAddr)| Launch::new(soc).run(move || f(fa));
    expect_err(run1(Soc::Ascend310B, |a| ib_set(&gm_i32(a, 16), &ub_i32(8), 0, 0)), &["IBSet", "Ascend310B"]);
    expect_err(
        run1(Soc::Ascend910B, |a| ib_set(&gm_i32(a, 16), &ub_i32(8), 1, 0)),
        &["IBSet", "blockIdx = 1 is out of range [0, 0]"],
    );
    expect_err(run1(Soc::Ascend910B, |a| ib_wait(&gm_i32(a, 16), &ub_i32(8), 0, -1)), &["eventID = -1"]);
    expect_err(
        run1(Soc::Ascend910B, |a| ib_set(&gm_i32(a, 16), &ub_i32(8), 0, 2)),
        &["gmWorkspace has 16 int32_t elements", "need at least 24"],
    );
    expect_err(run1(Soc::Ascend910B, |a| ib_set(&gm_i32(a, 16), &ub_i32(4), 0, 0)), &["ubWorkspace has 4"]);
    expect_err(
        run1(Soc::Ascend910, |a| init_determine_compute_workspace(&gm_i32(a, 16), &ub_i32(16))),
        &["InitDetermineComputeWorkspace", "Ascend910"],
    );
    expect_err(
        run1(Soc::Ascend910B, |a| wait_pre_block(&gm_i32(a, 16), &ub_i32(8))),
        &["WaitPreBlock", "ubWorkspace has 8 int32_t elements", "at least 16"],
    );
    expect_err(
        run1(Soc::Ascend910B, |a| {
            let ub = LocalTensor::<i32>::new(TPosition::VECCALC, 0, 16);
            let mut pipe = TPipe::new();
            let mut q = TQue::<VecIn, 1>::new();
            pipe.init_buffer(&mut q, 1, 64);
            let t = q.alloc_tensor::<i32>();
            q.free_tensor(t.clone());
            notify_next_block(&gm_i32(a, 16), &ub);
            notify_next_block(&gm_i32(a, 16), &t);
        }),
        &["NotifyNextBlock", "FreeTensor"],
    );
}

// ---------------------------------------------------------------------------------------
// CrossCoreSetFlag / CrossCoreWaitFlag (mode 0): a barrier across the vector cores fed by
// one pipe, its rounds counted per flag id.
// ---------------------------------------------------------------------------------------

/// `f32`s per core slot: 32 bytes, its own DMA block.
const SLOT: usize = 8;

fn gm_f32(addr: GmAddr, len: usize) -> GlobalTensor<f32> {
    let mut g = GlobalTensor::new();
    g.set_global_buffer(addr, len);
    g
}

/// Each round, every core copies `round * 100 + core` into its slot (MTE3), sets flag
/// `round % 2` on `P`, waits for it, then copies every slot in (MTE2) and sums them. The set's
/// pipe is ordered after the copy out (its own pipe, or an MTE3→V event). With `guard`, a
/// second barrier (flag 2, on MTE2) keeps the next round's copies out after every core's copy
/// in.
fn rounds_kernel<P: CrossCorePipe>(guard: bool, rounds: u32, slots: GmAddr, sums: GmAddr) {
    let (me, n) = (get_block_idx() as usize, get_block_num() as usize);
    let all = gm_f32(slots, n * SLOT);
    let out = gm_f32(sums, n * SLOT * rounds as usize);
    let mut pipe = TPipe::new();
    let (mut mine, mut every) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
    pipe.init_tbuf(&mut mine, SLOT * 4);
    pipe.init_tbuf(&mut every, n * SLOT * 4);
    let (mine, every) = (mine.get::<f32>(), every.get::<f32>());
    for round in 0..rounds {
        // The slot's previous copy out and the last round's copy in are done (MTE3/MTE2 → V).
        pipe_barrier::<PIPE_ALL>();
        duplicate(&mine, (round * 100) as f32 + me as f32, SLOT);
        set_flag::<HardEvent::V_MTE3>(0);
        wait_flag::<HardEvent::V_MTE3>(0);
        data_copy(&all.view(me * SLOT), &mine, SLOT); // SLOT-OUT
        if P::PIPE != pipe_t::PIPE_MTE3 {
            set_flag::<HardEvent::MTE3_V>(0);
            wait_flag::<HardEvent::MTE3_V>(0);
        }
        let flag = (round % 2) as u16;
        cross_core_set_flag::<0, P>(flag);
        cross_core_wait_flag(flag);
        data_copy(&every, &all, n * SLOT); // SLOTS-IN
        set_flag::<HardEvent::MTE2_S>(0);
        wait_flag::<HardEvent::MTE2_S>(0);
        let sum: f32 = (0..n).map(|c| every.get_value(c * SLOT)).sum();
        // Each core's sum goes to its own 32-byte block of this round.
        let at = (round as usize * n + me) * SLOT;
        mine.set_value(0, sum);
        set_flag::<HardEvent::S_MTE3>(0);
        wait_flag::<HardEvent::S_MTE3>(0);
        data_copy(&out.view(at), &mine, SLOT);
        // Every core has read this round's slots before any writes the next round's.
        if guard {
            cross_core_set_flag::<0, PIPE_MTE2>(2);
            cross_core_wait_flag(2);
        }
    }
}

#[test]
fn rounds_of_a_barrier_on_the_copy_out_pipe_order_every_core() {
    const N: usize = 8;
    const ROUNDS: u32 = 20;
    let slots = GmBuffer::<f32>::zeroed(N * SLOT);
    let sums = GmBuffer::<f32>::zeroed(N * SLOT * ROUNDS as usize);
    let (sa, ua) = (slots.addr(), sums.addr());
    threads(N as u32).run(move || rounds_kernel::<PIPE_MTE3>(true, ROUNDS, sa, ua)).unwrap();
    let got = sums.to_vec();
    for round in 0..ROUNDS as usize {
        let want: f32 = (0..N).map(|c| (round * 100 + c) as f32).sum();
        for c in 0..N {
            assert_eq!(got[(round * N + c) * SLOT], want, "round {round} core {c}");
        }
    }
}

#[test]
fn a_barrier_on_the_vector_pipe_after_an_mte3_v_event() {
    let slots = GmBuffer::<f32>::zeroed(4 * SLOT);
    let sums = GmBuffer::<f32>::zeroed(4 * SLOT * 3);
    let (sa, ua) = (slots.addr(), sums.addr());
    // PIPE_V after an MTE3→V event: the copy out is done when the set fires.
    threads(4).run(move || rounds_kernel::<PIPE_V>(true, 3, sa, ua)).unwrap();
    let got = sums.to_vec();
    assert_eq!(got[(2 * 4 + 3) * SLOT], (0..4).map(|c| (200 + c) as f32).sum::<f32>());
}

#[test]
fn without_the_second_barrier_the_next_round_overwrites_slots_still_being_read() {
    let slots = GmBuffer::<f32>::zeroed(4 * SLOT);
    let sums = GmBuffer::<f32>::zeroed(4 * SLOT * 3);
    let (sa, ua) = (slots.addr(), sums.addr());
    let text = expect_err(
        threads(4).run(move || rounds_kernel::<PIPE_MTE3>(false, 3, sa, ua)),
        &["cross-core race on global memory", "DataCopy"],
    );
    let src = include_str!("inter_core.rs");
    for marker in ["SLOT-OUT", "SLOTS-IN"] {
        let line = 1 + src.lines().position(|l| l.contains(marker) && !l.contains("for marker")).unwrap();
        assert!(text.contains(&format!("inter_core.rs:{line}")), "{marker} in:\n{text}");
    }
}

#[test]
fn a_wait_no_set_can_satisfy_is_an_error_not_a_hang() {
    // Core 3 never sets flag 5: the other cores wait for a round that never completes.
    let text = expect_err(
        threads(4).run(|| {
            if get_block_idx() != 3 {
                cross_core_set_flag::<0, PIPE_MTE3>(5);
                cross_core_wait_flag(5);
            }
        }),
        &["CrossCoreWaitFlag(5)", "round 1", "no core can go on"],
    );
    assert!(text.contains("core 0") || text.contains("core 1"), "{text}");
    // One core waiting twice for one set: its second round never comes.
    expect_err(
        threads(1).run(|| {
            cross_core_set_flag::<0, PIPE_V>(0);
            cross_core_wait_flag(0);
            cross_core_wait_flag(0);
        }),
        &["CrossCoreWaitFlag(0)", "round 2", "no core can go on"],
    );
}

#[test]
fn a_set_never_waited_for_is_reported_at_the_kernel_end() {
    expect_err(
        threads(2).run(|| {
            cross_core_set_flag::<0, PIPE_V>(7);
            cross_core_set_flag::<0, PIPE_V>(7);
            cross_core_wait_flag(7);
        }),
        &["CrossCoreSetFlag(7) set 2 times and waited for 1 times"],
    );
}

#[test]
fn modes_pipes_flag_ids_chips_and_launch_modes_are_checked() {
    expect_err(
        threads(2).run(|| cross_core_set_flag::<1, PIPE_V>(0)),
        &["CrossCoreSetFlag", "modeId = 1", "mixed kernel", "use mode 0"],
    );
    expect_err(threads(2).run(|| cross_core_wait_flag_with::<2, PIPE_S>(0)), &["modeId = 2", "cube core"]);
    expect_err(threads(1).run(|| cross_core_set_flag::<4, PIPE_V>(0)), &["modeId = 4 is not supported"]);
    expect_err(
        threads(1).run(|| cross_core_set_flag::<0, PIPE_V>(16)),
        &["flagId = 16 is out of range [0, 16)"],
    );
    expect_err(
        Launch::new(Soc::Ascend310P).block_dim(1).run(|| cross_core_wait_flag(0)),
        &["CrossCoreWaitFlag", "not supported on Ascend310P"],
    );
    expect_err(
        Launch::new(Soc::Ascend910B)
            .block_dim(2)
            .mode(ExecMode::Sequential)
            .run(|| cross_core_set_flag::<0, PIPE_V>(0)),
        &["cannot block a core", "(sequential mode)", "Launch::sync_all(true)"],
    );
}

// -------------------------------------------------------------------------------------------
// Polls of GM flags: a core whose flag reads (GetValue of a line invalidated just before, or
// ReadGmByPassDCache) keep finding nothing new, with nothing else in between, blocks until a
// polled flag changes; a poll no core can answer is a deadlock error, not a hang.

/// Core 0 polls the flags of cores `1..cores` (a 64-byte line each), each cleaned out of its
/// writer's data cache, as the vendor's `gm_by_dcache` sample does; core `skip` never raises
/// its flag. Core 0 stores how many flag reads it made in `reads`.
fn poll_kernel(cores: u32, skip: Option<u32>, slow: Duration, flags: GmAddr, reads: GmAddr) {
    let me = get_block_idx();
    let flag = gm_i32(flags, cores as usize * 16);
    if me != 0 {
        std::thread::sleep(slow);
        if Some(me) != skip {
            let mine = flag.view(me as usize * 16);
            mine.set_value(0, 1);
            data_cache_clean_and_invalid::<i32, SingleCacheLine, CachelineOut>(&mine);
        }
        return;
    }
    let mut n = 0;
    let mut core = 1;
    while core < cores {
        let line = flag.view(core as usize * 16);
        data_cache_clean_and_invalid::<i32, SingleCacheLine, CachelineOut>(&line);
        n += 1;
        if line.get_value(0) == 1 {
            core += 1;
        }
    }
    gm_i32(reads, 1).set_value(0, n);
}

#[test]
fn a_poll_blocks_until_the_flag_comes_instead_of_spinning() {
    let (flags, reads) = (GmBuffer::<i32>::zeroed(4 * 16), GmBuffer::<i32>::zeroed(16));
    let (fa, ra) = (flags.addr(), reads.addr());
    // Cores 1-3 raise their flags 300 ms in: spinning, core 0 would read them millions of
    // times; blocked after each 1024 reads that found nothing new, a few thousand at most.
    threads(4).run(move || poll_kernel(4, None, Duration::from_millis(300), fa, ra)).expect("a correct poll");
    let n = reads.to_vec()[0];
    assert!((3..=3 * 2 * 1024 + 3).contains(&n), "core 0 read the flags {n} times");
}

#[test]
fn a_poll_no_core_can_answer_is_an_error_not_a_hang() {
    let (flags, reads) = (GmBuffer::<i32>::zeroed(4 * 16), GmBuffer::<i32>::zeroed(16));
    let (fa, ra) = (flags.addr(), reads.addr());
    let t0 = Instant::now();
    let text = expect_err(
        threads(4).run(move || poll_kernel(4, Some(2), Duration::ZERO, fa, ra)),
        &[
            "GlobalTensor::GetValue",
            "no core can go on: core 0 polls GM flag(s)",
            "for another core to change them",
            "1024 flag reads in a row found nothing new",
            "inter_core.rs",
            "core(s) 1..=3 returned from the kernel",
            "on the hardware this hangs",
        ],
    );
    assert!(t0.elapsed() < Duration::from_secs(10), "took {:?}: {text}", t0.elapsed());
    // The flags core 0 was polling when it blocked: core 1's (raised) and core 2's.
    assert!(text.contains("= 0x1") && text.contains("= 0x0"), "{text}");
}

#[test]
fn a_bypass_poll_on_a_single_core_is_an_error_and_other_work_between_reads_is_no_poll() {
    let flags = GmBuffer::<u64>::zeroed(8);
    let fa = flags.addr();
    // Nothing else between the reads: the 1024th read that finds 0 again is a poll no other
    // core can answer.
    expect_err(
        threads(1).run(move || while read_gm_by_pass_dcache::<u64>(fa) == 0 {}),
        &["ReadGmByPassDCache", "core 0 polls GM flag(s)", "= 0x0", "no core can go on"],
    );
    // A bounded loop doing other work between the reads is no poll: it runs to its end.
    threads(1)
        .run(move || {
            let ub = ub_i32(8);
            for i in 0..4096 {
                assert_eq!(read_gm_by_pass_dcache::<u64>(fa), 0);
                ub.set_value(0, i);
            }
        })
        .expect("no poll");
}

// ---------------------------------------------------------------------------------------
// GroupBarrier: an arrive group releases a wait group, round after round.
// ---------------------------------------------------------------------------------------

/// `i32`s each arriver writes per round: 32 bytes, its own DMA block.
const PART: usize = 8;

/// Cores `0..4` (the arrivers) write their part of `data` (`round * 100 + core` in every
/// element) and arrive at `bar`; cores `3..8` (the waiters: core 3 is in both groups) wait at
/// `bar`, copy all of `data` in, check every part, and arrive at `back`, at which the arrivers
/// wait before they overwrite `data` in the next round (`bar` alone lets an arriver go on once
/// every waiter has passed its `Wait`, not once it has read). The two barriers' workspaces are
/// 4096 bytes apart. With `wait == false` the waiters skip `bar`'s `Wait` (the bug); with
/// `arrive == false` core 0 skips its `Arrive`.
fn group_rounds_kernel(ws: GmAddr, data: GmAddr, rounds: u32, arrive: bool, wait: bool) {
    const ARRIVERS: u32 = 4;
    let me = get_block_idx();
    let waiters = get_block_num() - ARRIVERS + 1;
    let data_gm = gm_i32(data, ARRIVERS as usize * PART);
    let mut pipe = TPipe::new();
    let (mut q, mut qo) = (TQue::<VecIn, 1>::new(), TQue::<VecOut, 1>::new());
    pipe.init_buffer(&mut q, 1, ARRIVERS as usize * PART * 4);
    pipe.init_buffer(&mut qo, 1, PART * 4);
    let mut bar = GroupBarrier::<PipeMode::MTE3_MODE>::new(ws, ARRIVERS, waiters);
    let mut back = GroupBarrier::<PipeMode::MTE3_MODE>::new(ws.add::<u8>(4096), waiters, ARRIVERS);
    for round in 1..=rounds as i32 {
        if me < ARRIVERS {
            if round > 1 {
                back.wait(me);
            }
            let t = qo.alloc_tensor::<i32>();
            duplicate(&t, round * 100 + me as i32, PART);
            qo.enque(t);
            let t = qo.deque::<i32>();
            data_copy(&data_gm.view(me as usize * PART), &t, PART);
            qo.free_tensor(t);
            if arrive || me != 0 {
                bar.arrive(me);
            }
        }
        if me >= ARRIVERS - 1 {
            if me < ARRIVERS {
                // Core 3 reads back what its own MTE3 wrote.
                set_flag::<HardEvent::MTE3_MTE2>(EVENT_ID0);
                wait_flag::<HardEvent::MTE3_MTE2>(EVENT_ID0);
            }
            if wait {
                bar.wait(me - (ARRIVERS - 1));
            }
            let t = q.alloc_tensor::<i32>();
            data_copy(&t, &data_gm, ARRIVERS as usize * PART);
            q.enque(t);
            let t = q.deque::<i32>();
            if wait {
                for k in 0..ARRIVERS as usize * PART {
                    assert_eq!(t.get_value(k), round * 100 + (k / PART) as i32, "core {me}, round {round}");
                }
            }
            q.free_tensor(t);
            back.arrive(me - (ARRIVERS - 1));
        }
    }
}

#[test]
fn group_barrier_rounds_order_the_arrivers_writes_before_the_waiters_reads() {
    let ws = GmBuffer::<u32>::zeroed(2 * 8 * 512 / 4);
    let data = GmBuffer::<i32>::zeroed(4 * PART);
    let (wa, da) = (ws.addr(), data.addr());
    threads(8).run(move || group_rounds_kernel(wa, da, 20, true, true)).unwrap();
    let words = ws.to_vec();
    // 20 rounds of `bar`: 4 arrive messages and 5 wait messages a round, into every one of the
    // max(4, 5) lines' counters; `back` the other way round, its last round not waited for.
    for k in 0..5 {
        assert_eq!((words[128 * k], words[128 * k + 16]), (80, 100), "bar, line {k}");
        assert_eq!((words[1024 + 128 * k], words[1024 + 128 * k + 16]), (100, 76), "back, line {k}");
    }
    assert_eq!(data.to_vec(), (0..4 * PART).map(|k| 2000 + (k / PART) as i32).collect::<Vec<_>>());
}

#[test]
fn without_group_barrier_wait_the_waiters_reads_race_with_the_arrivers_writes() {
    let ws = GmBuffer::<u32>::zeroed(2 * 8 * 512 / 4);
    let data = GmBuffer::<i32>::zeroed(4 * PART);
    let (wa, da) = (ws.addr(), data.addr());
    expect_err(
        threads(8).run(move || group_rounds_kernel(wa, da, 1, true, false)),
        &["cross-core race on global memory", "DataCopy"],
    );
}

#[test]
fn a_group_barrier_wait_whose_arriver_never_arrives_is_an_error_not_a_hang() {
    let ws = GmBuffer::<u32>::zeroed(2 * 8 * 512 / 4);
    let data = GmBuffer::<i32>::zeroed(4 * PART);
    let (wa, da) = (ws.addr(), data.addr());
    let t0 = Instant::now();
    let text = expect_err(
        threads(8).run(move || group_rounds_kernel(wa, da, 1, false, true)),
        &[
            "no core can go on",
            "waits in GroupBarrier::Wait",
            "the arrive counter of wait index 0 to reach 4 (round 1 of 4 arrivers)",
        ],
    );
    assert!(t0.elapsed() < Duration::from_secs(10), "took {:?}: {text}", t0.elapsed());
    // An arriver's second round waits for the waiters of the first: with none, it cannot go on.
    let text = expect_err(
        threads(2).run(move || {
            let mut bar = GroupBarrier::<PipeMode::MTE3_MODE>::new(wa, 1, 1);
            if get_block_idx() == 0 {
                bar.arrive(0);
                bar.arrive(0);
            }
        }),
        &[
            "waits in GroupBarrier::Arrive",
            "the wait counter of arrive index 0 to be 1 (round 1 of 1 waiters)",
        ],
    );
    assert!(text.contains("core(s) 1 returned"), "{text}");
}

#[test]
fn group_barrier_argument_chip_and_unified_buffer_checks() {
    let ws = GmBuffer::<u32>::zeroed(4 * 512 / 4);
    let wa = ws.addr();
    let one = |soc: Soc, f: fn(GmAddr)| Launch::new(soc).run(move || f(wa));
    expect_err(
        one(Soc::Ascend310P, |a| drop(GroupBarrier::<PipeMode::MTE3_MODE>::new(a, 1, 1))),
        &["GroupBarrier", "not supported on Ascend310P", "Ascend910B"],
    );
    expect_err(
        one(Soc::Ascend910B, |a| drop(GroupBarrier::<PipeMode::SCALAR_MODE>::new(a, 1, 1))),
        &["pipeMode = PipeMode::SCALAR_MODE", "only PipeMode::MTE3_MODE"],
    );
    expect_err(
        one(Soc::Ascend910B, |a| drop(GroupBarrier::<PipeMode::MTE3_MODE>::new(a, 0, 1))),
        &["arriveSizeIn = 0 is out of range [1, 1]"],
    );
    expect_err(
        one(Soc::Ascend910B, |a| drop(GroupBarrier::<PipeMode::MTE3_MODE>::new(a, 1, 2))),
        &["waitSizeIn = 2 is out of range [1, 1] (GetBlockNum() = 1)"],
    );
    expect_err(
        one(Soc::Ascend910B, |a| drop(GroupBarrier::<PipeMode::MTE3_MODE>::new(a.add::<u8>(64), 1, 1))),
        &["groupWorkspace is at byte 0x40 of its region: it must be 512-byte aligned"],
    );
    expect_err(
        Launch::new(Soc::Ascend910B)
            .block_dim(8)
            .sync_all(true)
            .run(move || drop(GroupBarrier::<PipeMode::MTE3_MODE>::new(wa, 8, 5))),
        &["groupWorkspace has 2048 bytes", "GetWorkspaceLen() = max(arriveSizeIn, waitSizeIn) × 512 = 4096"],
    );
    expect_err(
        one(Soc::Ascend910B, |a| GroupBarrier::<PipeMode::MTE3_MODE>::new(a, 1, 1).arrive(1)),
        &["GroupBarrier::Arrive", "arriveIndex = 1 is out of range [0, 0]"],
    );
    expect_err(
        one(Soc::Ascend910B, |a| GroupBarrier::<PipeMode::MTE3_MODE>::new(a, 1, 1).wait(3)),
        &["GroupBarrier::Wait", "waitIndex = 3 is out of range [0, 0]"],
    );
    // The Unified Buffer's last 1600 bytes (of 196608 on Ascend910B) belong to a live barrier.
    expect_err(
        one(Soc::Ascend910B, |a| {
            let mut pipe = TPipe::new();
            let mut q = TQue::<VecIn, 1>::new();
            pipe.init_buffer(&mut q, 1, 196_608 - 1600 + 32);
            drop(GroupBarrier::<PipeMode::MTE3_MODE>::new(a, 1, 1));
        }),
        &["handed out the Unified Buffer up to byte 195040", "occupies its last 1600 bytes [195008, 196608)"],
    );
    expect_err(
        one(Soc::Ascend910B, |a| {
            let mut pipe = TPipe::new();
            let bar = GroupBarrier::<PipeMode::MTE3_MODE>::new(a, 1, 1);
            let mut q = TQue::<VecIn, 1>::new();
            pipe.init_buffer(&mut q, 2, 100_000);
            drop(bar);
        }),
        &["TPipe::InitBuffer", "past byte 195008", "a GroupBarrier of this core occupies"],
    );
    // InitGlobalMemory's scratch (the bytes after the pipe's, up to 65,280 of them) must not
    // reach the barrier's ones: its messages would add the fill value instead of 1.
    expect_err(
        one(Soc::Ascend910B, |a| {
            let mut pipe = TPipe::new();
            let bar = GroupBarrier::<PipeMode::MTE3_MODE>::new(a, 1, 1);
            let mut q = TQue::<VecIn, 1>::new();
            pipe.init_buffer(&mut q, 1, 150_016);
            let mut g = GlobalTensor::<f32>::new();
            g.set_global_buffer(a.add::<u8>(1024), 8);
            init_global_memory(&g, 8, 0.0);
            drop(bar);
        }),
        &[
            "InitGlobalMemory",
            "the scratch UB [150016, 196544) overlaps the last 1600 bytes [195008, 196608)",
        ],
    );
    one(Soc::Ascend910B, |a| {
        let mut pipe = TPipe::new();
        let mut bar = GroupBarrier::<PipeMode::MTE3_MODE>::new(a, 1, 1);
        let mut q = TQue::<VecIn, 1>::new();
        pipe.init_buffer(&mut q, 1, 195_008 - 65_280);
        let mut g = GlobalTensor::<i32>::new();
        g.set_global_buffer(a.add::<u8>(1024), 8);
        init_global_memory(&g, 8, 7);
        bar.arrive(0);
        bar.wait(0);
    })
    .unwrap();
    // Up to the barrier's bytes, and past them once it is gone.
    one(Soc::Ascend910B, |a| {
        let mut pipe = TPipe::new();
        let mut q = TQue::<VecIn, 1>::new();
        pipe.init_buffer(&mut q, 1, 195_008);
        let mut bar = GroupBarrier::<PipeMode::MTE3_MODE>::new(a, 1, 1);
        bar.arrive(0);
        bar.wait(0);
        drop(bar);
        pipe.reset();
        pipe.init_buffer(&mut q, 1, 196_608);
    })
    .unwrap();
}
