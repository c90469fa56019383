//! Launch behaviour: core indices, barriers, failures, isolation, configuration errors.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use ascend_runtime::prelude::*;

const MODES: [ExecMode; 3] = [ExecMode::Pooled, ExecMode::ThreadPerCore, ExecMode::Sequential];

/// `u32`s per 64-byte line of the scalar data cache: cores writing GM with `SetValue` each
/// write their own line (a line goes back to GM whole: two cores writing one clobber each
/// other, and the sanitizer says so).
const LINE: usize = 16;

/// Every [`LINE`]-th element: one per core.
fn per_line(v: &[u32]) -> Vec<u32> {
    v.iter().step_by(LINE).copied().collect()
}

fn gm_u32(addr: &GmAddr, len: usize) -> GlobalTensor<u32> {
    let mut g = GlobalTensor::new();
    g.set_global_buffer(*addr, len);
    g
}

#[test]
fn every_core_writes_its_block_idx_in_every_mode() {
    for mode in MODES {
        for soc in Soc::ALL {
            let n = 48;
            let idx = GmBuffer::<u32>::zeroed(n * LINE);
            let num = GmBuffer::<u32>::zeroed(n * LINE);
            let socs = GmBuffer::<u32>::zeroed(n * LINE);
            let (ia, na, sa) = (idx.addr(), num.addr(), socs.addr());
            let stats = Launch::new(soc)
                .block_dim(n as u32)
                .mode(mode)
                .run(move || {
                    let i = get_block_idx() as usize * LINE;
                    gm_u32(&ia, n * LINE).set_value(i, get_block_idx() + 1);
                    gm_u32(&na, n * LINE).set_value(i, get_block_num());
                    gm_u32(&sa, n * LINE).set_value(i, u32::from(get_soc() == soc));
                })
                .unwrap_or_else(|e| panic!("{mode}: {e}"));
            assert_eq!(stats.block_dim, 48);
            assert_eq!(stats.mode, mode);
            assert_eq!(stats.soc, soc);
            assert_eq!(per_line(&idx.to_vec()), (1..=48).collect::<Vec<u32>>(), "{mode} {soc}");
            assert_eq!(per_line(&num.to_vec()), vec![48; 48], "{mode} {soc}");
            assert_eq!(per_line(&socs.to_vec()), vec![1; 48], "{mode} {soc}");
        }
    }
}

#[test]
fn launch_shorthand_is_pooled() {
    let seen = AtomicU32::new(0);
    let stats = launch(Soc::Ascend310B, 7, || {
        seen.fetch_add(1 << get_block_idx(), Ordering::Relaxed);
    })
    .unwrap();
    assert_eq!(stats.mode, ExecMode::Pooled);
    assert_eq!(seen.load(Ordering::Relaxed), 0x7f);
}

#[test]
fn sequential_runs_cores_in_index_order_on_the_calling_thread() {
    let order = Mutex::new(Vec::new());
    let caller = std::thread::current().id();
    Launch::new(Soc::Ascend910)
        .block_dim(20)
        .mode(ExecMode::Sequential)
        .run(|| {
            assert_eq!(std::thread::current().id(), caller);
            order.lock().unwrap().push(get_block_idx());
        })
        .unwrap();
    assert_eq!(order.into_inner().unwrap(), (0..20).collect::<Vec<u32>>());
}

#[test]
fn sync_all_alias_selects_thread_per_core() {
    let l = Launch::new(Soc::Ascend910B).block_dim(3);
    assert_eq!(l.get_mode(), ExecMode::Pooled);
    assert_eq!(l.sync_all(true).get_mode(), ExecMode::ThreadPerCore);
    assert_eq!(l.sync_all(true).sync_all(false).get_mode(), ExecMode::Pooled);
    assert_eq!(l.mode(ExecMode::Sequential).sync_all(false).get_mode(), ExecMode::Sequential);
    assert_eq!(l.get_block_dim(), 3);
    assert_eq!(l.get_soc(), Soc::Ascend910B);
}

/// Each round: every core writes its slot, `sync_all`, checks every other slot, `sync_all`.
fn barrier_orders(n: u32, rounds: u32) {
    let slots = GmBuffer::<u32>::zeroed(n as usize * LINE);
    let checked = GmBuffer::<u32>::zeroed(n as usize * LINE);
    let (sa, ca) = (slots.addr(), checked.addr());
    let start = Instant::now();
    Launch::new(Soc::Ascend910B)
        .block_dim(n)
        .sync_all(true)
        .stack_size(256 << 10)
        .run(move || {
            let me = get_block_idx();
            let gm = gm_u32(&sa, n as usize * LINE);
            let mut ok = 0;
            for round in 1..=rounds {
                gm.set_value(me as usize * LINE, round * 100_000 + me);
                sync_all();
                for j in 0..n {
                    let v = gm.get_value(j as usize * LINE);
                    assert_eq!(v, round * 100_000 + j, "core {me} round {round} slot {j}");
                    ok += 1;
                }
                sync_all();
            }
            gm_u32(&ca, n as usize * LINE).set_value(me as usize * LINE, ok);
        })
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(per_line(&checked.to_vec()), vec![n * rounds; n as usize]);
    assert_eq!(per_line(&slots.to_vec()), (0..n).map(|j| rounds * 100_000 + j).collect::<Vec<u32>>());
    assert!(start.elapsed() < Duration::from_secs(10), "took {:?}", start.elapsed());
}

#[test]
fn sync_all_orders_48_cores() {
    barrier_orders(48, 3);
}

#[test]
fn sync_all_orders_200_cores() {
    barrier_orders(200, 3);
}

#[test]
fn sync_all_three_times_completes() {
    let passed = AtomicU32::new(0);
    Launch::new(Soc::Ascend310P)
        .block_dim(48)
        .sync_all(true)
        .run(|| {
            sync_all();
            sync_all();
            sync_all();
            passed.fetch_add(1, Ordering::Relaxed);
        })
        .unwrap();
    assert_eq!(passed.load(Ordering::Relaxed), 48);
}

#[test]
fn single_core_sync_all_is_a_no_op_in_every_mode() {
    for mode in MODES {
        Launch::new(Soc::Ascend910B).mode(mode).run(sync_all).unwrap_or_else(|e| panic!("{mode}: {e}"));
    }
}

#[test]
fn failing_core_releases_the_waiting_cores_at_once() {
    let start = Instant::now();
    let err = Launch::new(Soc::Ascend910B)
        .block_dim(48)
        .sync_all(true)
        .run(|| {
            if get_block_idx() == 5 {
                // Let the other cores reach the barrier first.
                std::thread::sleep(Duration::from_millis(50));
                ascend_core::fail("TestApi", "value = 7 is out of range [0, 4]");
            }
            sync_all();
        })
        .unwrap_err();
    let elapsed = start.elapsed();
    assert!(elapsed < Duration::from_secs(1), "took {elapsed:?}");

    let primary = err.primary().expect("a core fault");
    assert_eq!(primary.core, 5);
    assert_eq!(primary.api, "TestApi");
    assert_eq!(primary.message, "value = 7 is out of range [0, 4]");
    assert!(primary.file.ends_with("launch.rs"), "{}", primary.file);
    assert!(primary.line > 0);
    assert!(!primary.is_secondary());

    // Every other core either was released from sync_all or never started: none is lost.
    let rest = &err.faults()[1..];
    assert_eq!(rest.len() + err.skipped_cores().len(), 47);
    for f in rest {
        assert_eq!(f.api, "SyncAll");
        assert_eq!(f.released_by, Some(5));
        assert_eq!(f.message, "released because core 5 failed");
    }
    let text = err.to_string();
    assert!(text.contains("core 5: TestApi: value = 7 is out of range [0, 4] (at "), "{text}");
    assert!(text.contains("launch.rs:"), "{text}");
    assert!(text.contains("were released because core 5 failed"), "{text}");
    assert!(
        text.starts_with("kernel failed on Ascend910B (blockDim = 48, thread-per-core mode): core 5"),
        "{text}"
    );
}

#[test]
fn core_that_returns_without_sync_all_is_reported_not_a_hang() {
    let start = Instant::now();
    let err = Launch::new(Soc::Ascend910B)
        .block_dim(6)
        .sync_all(true)
        .run(|| {
            if get_block_idx() != 3 {
                sync_all();
            }
        })
        .unwrap_err();
    assert!(start.elapsed() < Duration::from_secs(1));
    let p = err.primary().unwrap();
    assert_eq!(p.api, "SyncAll");
    assert_ne!(p.core, 3);
    assert!(
        p.message.contains("5 of 6 cores are waiting here, but core(s) 3 returned from the kernel"),
        "{}",
        p.message
    );
    // The five waiting cores all report it; core 3 finished normally.
    assert_eq!(err.faults().len() + err.skipped_cores().len(), 5);
    assert!(err.faults().iter().all(|f| f.core != 3));
}

#[test]
fn sync_all_without_a_barrier_is_an_error_not_a_hang() {
    // The sequential mode runs its cores one after another: a core cannot wait.
    let mode = ExecMode::Sequential;
    let err = Launch::new(Soc::Ascend910B).block_dim(4).mode(mode).run(sync_all).unwrap_err();
    let p = err.primary().unwrap();
    assert_eq!(p.api, "SyncAll");
    assert!(p.message.contains("this launch of 4 cores has no barrier"), "{}", p.message);
    assert!(p.message.contains("(sequential mode)"), "{}", p.message);
    assert!(err.to_string().contains("the default pooled mode or with a thread per core"), "{err}");
    assert_eq!(err.faults().len() + err.skipped_cores().len(), 4, "{mode}");
    // The pooled mode (the default) has one.
    Launch::new(Soc::Ascend910B).block_dim(4).mode(ExecMode::Pooled).run(sync_all).unwrap();
}

#[test]
fn sequential_stops_at_the_first_failure_and_lists_the_skipped_cores() {
    let err = Launch::new(Soc::Ascend910)
        .block_dim(10)
        .mode(ExecMode::Sequential)
        .run(|| {
            if get_block_idx() == 6 {
                panic!("bad core");
            }
        })
        .unwrap_err();
    assert_eq!(err.faults().len(), 1);
    assert_eq!(err.skipped_cores(), &[7, 8, 9]);
    let text = err.to_string();
    assert!(text.contains("core 6: panic: bad core"), "{text}");
    assert!(
        text.contains("3 core(s) were not started because the launch had already failed: 7..=9"),
        "{text}"
    );
}

#[test]
fn pooled_failures_are_all_reported() {
    // Every core fails: each fault is reported (or the core is listed as skipped).
    let err = Launch::new(Soc::Ascend910B)
        .block_dim(64)
        .run(|| ascend_core::fail("Sub", format!("repeatTimes = {} is out of range", get_block_idx() + 300)))
        .unwrap_err();
    let mut cores: Vec<u32> = err.faults().iter().map(|f| f.core).collect();
    cores.extend_from_slice(err.skipped_cores());
    cores.sort_unstable();
    assert_eq!(cores, (0..64).collect::<Vec<u32>>());
    for f in err.faults() {
        assert_eq!(f.api, "Sub");
        assert_eq!(f.message, format!("repeatTimes = {} is out of range", f.core + 300));
        assert!(!f.is_secondary());
    }
    // Independent faults after the primary one are sorted by core.
    let rest: Vec<u32> = err.faults()[1..].iter().map(|f| f.core).collect();
    assert!(rest.windows(2).all(|w| w[0] < w[1]), "{rest:?}");
}

#[test]
fn plain_panic_is_reported_with_its_message_and_location() {
    for mode in MODES {
        let err = Launch::new(Soc::Ascend910B)
            .block_dim(8)
            .mode(mode)
            .run(|| {
                if get_block_idx() == 3 {
                    panic!("boom on core {}", get_block_idx());
                }
            })
            .unwrap_err();
        let p = err.primary().unwrap();
        assert_eq!((p.core, p.api, p.message.as_str()), (3, "panic", "boom on core 3"), "{mode}");
        assert!(p.file.ends_with("launch.rs"), "{mode}: {}", p.file);
        assert!(err.to_string().contains("core 3: panic: boom on core 3 (at "), "{err}");
        assert_eq!(err.faults().len(), 1, "{mode}: {err}");
    }
}

#[test]
fn static_str_panic_and_non_string_payload() {
    let err = launch(Soc::Ascend910B, 1, || panic!("static message")).unwrap_err();
    assert_eq!(err.primary().unwrap().message, "static message");
    let err = launch(Soc::Ascend910B, 1, || std::panic::panic_any(42u8)).unwrap_err();
    assert_eq!(err.primary().unwrap().message, "panic with a non-string payload");
}

#[test]
fn a_fault_the_kernel_caught_itself_is_not_reported_for_a_later_panic() {
    let err = launch(Soc::Ascend910B, 1, || {
        let caught = std::panic::catch_unwind(|| ascend_core::fail("Old", "stale"));
        assert!(caught.is_err());
        panic!("fresh");
    })
    .unwrap_err();
    let p = err.primary().unwrap();
    assert_eq!((p.api, p.message.as_str()), ("panic", "fresh"));
}

#[test]
fn block_dim_out_of_range_is_an_error() {
    for bad in [0u32, 65_536, u32::MAX] {
        let err = Launch::new(Soc::Ascend910B).block_dim(bad).run(|| unreachable!()).unwrap_err();
        assert_eq!(err, LaunchError::InvalidBlockDim { block_dim: bad });
        assert_eq!(err.to_string(), format!("launch: blockDim = {bad} is out of range [1, 65535]"));
        assert!(err.primary().is_none() && err.faults().is_empty() && err.skipped_cores().is_empty());
    }
}

#[test]
fn block_dim_65535_runs_pooled() {
    let count = AtomicU32::new(0);
    launch(Soc::Ascend910B, 65_535, || {
        count.fetch_add(1, Ordering::Relaxed);
    })
    .unwrap();
    assert_eq!(count.load(Ordering::Relaxed), 65_535);
}

#[test]
fn core_state_is_isolated_between_cores() {
    for mode in MODES {
        Launch::new(Soc::Ascend910B)
            .block_dim(16)
            .mode(mode)
            .run(|| {
                // Every core starts with a full mask in normal mode and the chip's overflow mode,
                // whatever the cores before it on this thread did.
                assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX]);
                assert_eq!(get_mask_mode(), MaskMode::Normal);
                assert_eq!(get_overflow_mode(), OverflowMode::InfNan);
                let i = u64::from(get_block_idx());
                set_vector_mask_hi_lo::<u16>(i, i + 1);
                set_mask_count();
                set_overflow_mode(OverflowMode::Saturation);
                assert_eq!(get_mask_mode(), MaskMode::Counter);
                assert_eq!(get_overflow_mode(), OverflowMode::Saturation);
            })
            .unwrap_or_else(|e| panic!("{mode}: {e}"));
    }
}

#[test]
fn each_core_has_its_own_unified_buffer() {
    for mode in MODES {
        let out = GmBuffer::<u32>::zeroed(8 * LINE);
        let oa = out.addr();
        Launch::new(Soc::Ascend310P)
            .block_dim(8)
            .mode(mode)
            .run(move || {
                let mut pipe = TPipe::new();
                let mut buf = TBuf::<VecCalc>::new();
                pipe.init_tbuf(&mut buf, 64);
                let t = buf.get::<u32>();
                t.set_value(0, get_block_idx() * 7);
                std::thread::yield_now();
                gm_u32(&oa, 8 * LINE).set_value(get_block_idx() as usize * LINE, t.get_value(0));
            })
            .unwrap_or_else(|e| panic!("{mode}: {e}"));
        assert_eq!(per_line(&out.to_vec()), (0..8).map(|i| i * 7).collect::<Vec<u32>>(), "{mode}");
    }
}

#[test]
fn launch_restores_the_callers_core() {
    run_on_core(CoreConfig::single(Soc::Ascend310B), || {
        Launch::new(Soc::Ascend910).block_dim(2).mode(ExecMode::Sequential).run(|| {}).unwrap();
        assert_eq!(get_soc(), Soc::Ascend310B);
        assert_eq!(get_block_num(), 1);
    });
}

#[test]
fn stats_report_the_wall_time() {
    let stats = Launch::new(Soc::Ascend910B)
        .block_dim(2)
        .mode(ExecMode::ThreadPerCore)
        .run(|| std::thread::sleep(Duration::from_millis(20)))
        .unwrap();
    assert!(stats.wall >= Duration::from_millis(20));
}
