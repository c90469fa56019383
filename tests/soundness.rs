//! Adversarial programs in safe Rust. Each one used to write outside an allocation, race
//! without synchronisation, hang, abort or print a misleading message; each must now give a
//! clear error (a `Fault` naming the API and the parameter, or a `LaunchError`) or a defined
//! (possibly racy) value. `scripts/valgrind.sh` runs this binary under memcheck.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ascend_core::{run_on_core, take_last_fault, CoreConfig, Fault};
use ascend_runtime::prelude::*;
use ascend_runtime::GmRegion;

/// Runs `f`, which must fail a check, and returns the fault it recorded.
fn fault(f: impl FnOnce()) -> Fault {
    let _ = take_last_fault();
    let r = catch_unwind(AssertUnwindSafe(f));
    assert!(r.is_err(), "expected a failed check, but the call returned");
    take_last_fault().expect("the panic was not a Fault")
}

/// Asserts that `f` fails a check of `api` whose message contains every needle.
fn assert_fault(api: &str, needles: &[&str], f: impl FnOnce()) {
    let flt = fault(f);
    assert_eq!(flt.api, api, "{flt}");
    for n in needles {
        assert!(flt.message.contains(n), "`{n}` not in: {flt}");
    }
}

/// Runs `f` as a fresh core of its own (its own Unified Buffer and pipe), so tests in this
/// binary do not share one default core.
fn core(f: impl FnOnce()) {
    run_on_core(CoreConfig::single(Soc::Ascend910B), f)
}

#[test]
fn init_buffer_with_a_huge_len_is_an_error_not_a_wrapped_size() {
    core(|| {
        let mut pipe = TPipe::new();
        let mut q = TQue::<VecIn, 2>::new();
        assert_fault("TPipe::InitBuffer", &["len = 9223372036854775808", "overflow"], || {
            pipe.init_buffer(&mut q, 2, 1 << 63)
        });
        // The pipe is unchanged and still usable.
        assert_eq!(pipe.used_bytes(), 0);
        pipe.init_buffer(&mut q, 2, 64);
        assert_eq!(q.alloc_tensor::<f32>().get_size(), 16);
    });
}

#[test]
fn init_tbuf_near_usize_max_after_another_buffer_is_an_error() {
    core(|| {
        let mut pipe = TPipe::new();
        let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
        pipe.init_tbuf(&mut a, 64);
        assert_fault("TPipe::InitBuffer", &["18446744073709551584 bytes", "only 196544"], || {
            pipe.init_tbuf(&mut b, usize::MAX - 31)
        });
        assert_fault("TBuf::Get", &["no memory"], || drop(b.get::<u8>()));
    });
}

#[test]
fn counter_mode_with_a_huge_count_is_an_error_not_an_out_of_bounds_write() {
    core(|| {
        let mut pipe = TPipe::new();
        let mut buf = TBuf::<VecCalc>::new();
        pipe.init_tbuf(&mut buf, 1024);
        let t = buf.get::<f32>();
        set_mask_count();
        assert_fault("Duplicate", &["mask = 4629771061636907200", "counter mode"], || {
            duplicate_masked::<f32, true>(&t, 1.0, 4_629_771_061_636_907_200u64, 1, 1, 255)
        });
        // The largest count accepted still cannot leave the tensor.
        assert_fault("Duplicate", &["dst would touch element", "repStride = 255"], || {
            duplicate_masked::<f32, true>(&t, 1.0, u64::from(u32::MAX), 1, 1, 255)
        });
        set_mask_norm();
    });
}

#[test]
fn tbuf_from_before_a_reset_is_an_error() {
    core(|| {
        let mut pipe = TPipe::new();
        let mut b = TBuf::<VecCalc>::new();
        pipe.init_tbuf(&mut b, 256);
        pipe.reset();
        let mut q = TQue::<VecIn, 1>::new();
        pipe.init_buffer(&mut q, 1, 256); // now owns the TBuf's old bytes
        assert_fault("TBuf::Get", &["released by TPipe::reset"], || drop(b.get::<f32>()));
        assert_fault("TBuf::Get", &["released by TPipe::reset"], || drop(b.get_with_len::<f32>(4)));
        assert_fault("TBuf::GetWithOffset", &["released by TPipe::reset"], || {
            drop(b.get_with_offset::<f32>(4, 0))
        });
        // Given memory again, it works.
        pipe.init_tbuf(&mut b, 64);
        assert_eq!(b.get::<f32>().get_size(), 16);
    });
}

#[test]
fn ub_to_ub_copy_between_two_arenas_at_the_same_offset_is_an_error_naming_both_cores() {
    // A tensor of the outer core and one of a nested core, both at UB offset 0: the outer
    // core's tensor is not in the nested core's Unified Buffer, so using it there is an error
    // naming both (issue 35: a tensor belongs to its core), never a copy between arenas.
    core(|| {
        let mut pipe = TPipe::new();
        let mut b = TBuf::<VecIn>::new();
        pipe.init_tbuf(&mut b, 64);
        let a = b.get::<i32>();
        a.copy_from_slice(&(1..=16).collect::<Vec<i32>>());
        core(|| {
            let mut pipe = TPipe::new();
            let mut b2 = TBuf::<VecOut>::new();
            pipe.init_tbuf(&mut b2, 64);
            let c = b2.get::<i32>();
            c.copy_from_slice(&[0; 16]);
            assert_eq!(c.get_phy_addr(), a.get_phy_addr());
            let needles = [
                "this LocalTensor is in the Unified Buffer of core 0 of 1",
                "core 0 of 1 of a launch uses it",
            ];
            assert_fault("DataCopy", &needles, || data_copy(&c, &a, 16));
            assert_fault("Add", &needles, || add(&c, &a, &a, 16));
            assert_eq!(c.to_vec(), vec![0; 16], "nothing was copied");
            // The twin: the nested core's own tensors.
            add(&c, &c, &c, 16);
        });
    });
}

#[test]
fn clear_messages_for_overflowing_parameters() {
    core(|| {
        let mut pipe = TPipe::new();
        let mut b = TBuf::<VecIn>::new();
        pipe.init_tbuf(&mut b, 64);
        assert_fault("TBuf::Get", &["len = 18446744073709551615", "overflows"], || {
            drop(b.get_with_len::<f32>(usize::MAX))
        });
        let x = b.get::<f32>();
        let region = GmRegion::zeroed(64);
        let mut g = GlobalTensor::<f32>::new();
        g.set_global_buffer(region.addr(), 16);
        assert_fault("DataCopy", &["count = 18446744073709551615", "overflows the address space"], || {
            data_copy(&x, &g, usize::MAX)
        });
        let unbound = GlobalTensor::<f32>::new();
        assert_fault("GlobalTensor::GetValue", &["not bound"], || {
            let _ = unbound.get_value(0);
        });
        assert_fault("GlobalTensor::SetValue", &["not bound"], || unbound.set_value(0, 1.0));
    });
}

#[test]
fn impossible_gm_sizes_are_errors_not_aborts() {
    assert!(GmBuffer::<u8>::try_zeroed(usize::MAX / 2).is_err());
    assert!(GmBuffer::<u64>::try_zeroed(usize::MAX / 4).is_err());
    assert!(GmBuffer::<u8>::try_zeroed(1 << 50).is_err()); // 1 PiB: the allocator refuses
    let msg = catch_unwind(|| GmBuffer::<f32>::zeroed(usize::MAX / 2)).unwrap_err();
    let msg = msg.downcast_ref::<String>().unwrap();
    assert!(msg.contains("GmBuffer::<float>::zeroed(len = 9223372036854775807)"), "{msg}");
}

#[test]
fn racing_cores_on_one_gm_element_give_a_racy_value_not_ub() {
    let g = GmBuffer::<u32>::zeroed(8);
    let addr = g.addr();
    const ITERS: u32 = 2000;
    Launch::new(Soc::Ascend910B)
        .sanitize(false) // a deliberate race: this tests soundness, not synchronisation
        .block_dim(4)
        .sync_all(true)
        .run(move || {
            let mut t = GlobalTensor::<u32>::new();
            t.set_global_buffer(addr, 8);
            for _ in 0..ITERS {
                t.set_value(0, t.get_value(0) + 1);
            }
            // Disjoint bytes of one 8-byte word written by different cores are never lost.
            let me = get_block_idx() as usize;
            let mut b = GlobalTensor::<u8>::new();
            b.set_global_buffer(addr.add::<u8>(8), 8);
            b.set_value(me, me as u8 + 1);
        })
        .unwrap();
    let v = g.to_vec();
    assert!((1..=4 * ITERS).contains(&v[0]), "{}", v[0]);
    assert_eq!(v[2].to_le_bytes(), [1, 2, 3, 4]);
}

#[test]
fn a_host_reading_gm_during_a_launch_never_sees_a_torn_element() {
    let g = GmBuffer::<u64>::zeroed(1024);
    let addr = g.addr();
    let stop = Arc::new(AtomicBool::new(false));
    let reader = {
        let (region, stop) = (Arc::clone(g.region()), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut reads = 0u32;
            while !stop.load(Ordering::Relaxed) || reads == 0 {
                let bytes = region.to_bytes();
                for w in bytes.chunks_exact(8) {
                    let v = u64::from_le_bytes(w.try_into().unwrap());
                    assert!(v == 0 || v == u64::MAX, "torn element {v:#x}");
                }
                reads += 1;
            }
        })
    };
    Launch::new(Soc::Ascend910B)
        .sanitize(false) // a deliberate race: this tests soundness, not synchronisation
        .block_dim(2)
        .run(move || {
            let mut t = GlobalTensor::<u64>::new();
            t.set_global_buffer(addr, 1024);
            for k in 0..50u64 {
                let v = if k % 2 == 0 { u64::MAX } else { 0 };
                for i in 0..1024 {
                    t.set_value(i, v);
                }
            }
        })
        .unwrap();
    stop.store(true, Ordering::Relaxed);
    reader.join().unwrap();
}

/// A panic payload whose `Drop` panics.
struct Bomb;
impl Drop for Bomb {
    fn drop(&mut self) {
        panic!("the payload's drop panics too");
    }
}

#[test]
fn a_panic_payload_whose_drop_panics_is_reported_in_every_mode() {
    for mode in [ExecMode::Pooled, ExecMode::Sequential, ExecMode::ThreadPerCore] {
        let err = Launch::new(Soc::Ascend910B)
            .block_dim(3)
            .mode(mode)
            .run(|| {
                if get_block_idx() == 1 {
                    std::panic::panic_any(Bomb);
                }
            })
            .unwrap_err();
        let p = err.primary().unwrap();
        assert_eq!((p.core, p.api), (1, "panic"), "{mode}: {err}");
        assert!(p.message.contains("non-string payload"), "{err}");
    }
}

#[test]
fn a_core_spinning_on_gm_times_out_in_every_mode() {
    for mode in [ExecMode::Pooled, ExecMode::Sequential, ExecMode::ThreadPerCore] {
        let flag = GmBuffer::<u32>::zeroed(8);
        let addr = flag.addr();
        let t0 = Instant::now();
        let err = Launch::new(Soc::Ascend910B)
            .block_dim(2)
            .mode(mode)
            .timeout(Duration::from_millis(1500)) // long enough for cores to start under valgrind
            .run(move || {
                let mut g = GlobalTensor::<u32>::new();
                g.set_global_buffer(addr, 8);
                if get_block_idx() == 1 {
                    while g.get_value(0) == 0 {}
                }
            })
            .unwrap_err();
        assert!(t0.elapsed() < Duration::from_secs(20), "{mode}");
        let LaunchError::TimedOut { ref running, ref waiting, ref faults, .. } = err else {
            panic!("{mode}: not a timeout: {err}")
        };
        assert_eq!((running.as_slice(), waiting.as_slice()), (&[1u32][..], &[][..]), "{mode}");
        let f = faults.iter().find(|f| f.core == 1).unwrap();
        assert!(f.message.contains("timed out after 1.5s") && f.message.contains("still running"), "{f}");
        assert!(err.to_string().contains("still running: core(s) 1"), "{err}");
    }
}

#[test]
fn a_timeout_names_the_cores_waiting_in_sync_all() {
    let err = Launch::new(Soc::Ascend910B)
        .block_dim(4)
        .sync_all(true)
        .timeout(Duration::from_millis(1500))
        .run(|| {
            if get_block_idx() == 3 {
                // Busy with vector instructions forever: cancelled at the next one.
                let mut pipe = TPipe::new();
                let mut b = TBuf::<VecCalc>::new();
                pipe.init_tbuf(&mut b, 256);
                let t = b.get::<f32>();
                loop {
                    duplicate(&t, 1.0, 64);
                }
            }
            sync_all();
        })
        .unwrap_err();
    let LaunchError::TimedOut { ref running, ref waiting, ref faults, .. } = err else {
        panic!("not a timeout: {err}")
    };
    assert_eq!(running, &[3]);
    assert_eq!(waiting, &[0, 1, 2]);
    for f in faults.iter().filter(|f| f.core < 3) {
        assert_eq!(f.api, "SyncAll", "{f}");
        assert!(f.message.contains("waiting in SyncAll"), "{f}");
    }
    assert!(err.to_string().contains("waiting in SyncAll: core(s) 0..=2"), "{err}");
}

#[test]
fn thread_per_core_launches_have_a_thread_limit() {
    let err = Launch::new(Soc::Ascend910B).block_dim(8).sync_all(true).max_threads(4).run(|| ()).unwrap_err();
    assert_eq!(err, LaunchError::TooManyThreads { block_dim: 8, limit: 4 });
    assert!(err.to_string().contains("the limit is 4"), "{err}");
    let big = Launch::new(Soc::Ascend910B).block_dim(ascend_runtime::DEFAULT_MAX_THREADS + 1).sync_all(true);
    assert!(matches!(big.run(|| ()), Err(LaunchError::TooManyThreads { .. })));
    // The pooled mode needs no thread per core.
    assert!(big.sync_all(false).run(|| ()).is_ok());
}

#[test]
fn parked_workers_can_be_released() {
    Launch::new(Soc::Ascend910B).block_dim(3).sync_all(true).run(sync_all).unwrap();
    ascend_runtime::shutdown_workers();
    // Later launches start workers again.
    Launch::new(Soc::Ascend910B).block_dim(3).sync_all(true).run(sync_all).unwrap();
}

#[test]
fn gm_addr_is_copy_and_a_freed_region_is_a_clear_error() {
    fn is_copy<T: Copy + Send + Sync>() {}
    is_copy::<GmAddr>();
    let buf = GmBuffer::<f32>::zeroed(16);
    let addr = buf.addr();
    let (a, b) = (addr, addr.add::<f32>(8)); // no clone needed
    core(|| {
        let mut g = GlobalTensor::<f32>::new();
        g.set_global_buffer(b, 8);
        g.set_value(0, 5.0);
        // The bound tensor keeps the region alive even after the buffer is dropped.
        drop(buf);
        assert_eq!(g.get_value(0), 5.0);
        drop(g);
        let mut h = GlobalTensor::<f32>::new();
        assert_fault("GlobalTensor::SetGlobalBuffer", &["was freed", "64 bytes"], || {
            h.set_global_buffer(a, 4)
        });
    });
}
