//! The sanitizer's and the launch's answers to the gaps an adversarial probe found (issue 35):
//! stale `TBuf` handles, tensors that leave their core or their launch, kernel APIs from a
//! thread the kernel spawned, the data cache within one core, cancellation of cores that spin
//! on API calls, the hints of the cross-core race messages, and identical writes of several
//! cores. Each bug is caught with its message, and its correct twin passes.

use std::cell::RefCell;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use ascend_runtime::prelude::*;

const N: usize = 64; // f32 elements per tile: 256 bytes

fn bind(addr: &GmAddr, off: usize, len: usize) -> GlobalTensor<f32> {
    let mut g = GlobalTensor::<f32>::new();
    g.set_global_buffer(addr.add::<f32>(off), len);
    g
}

/// Runs `kernel` on `cores` cores (a thread per core).
fn run(cores: u32, kernel: impl Fn() + Sync) -> Result<LaunchStats, LaunchError> {
    Launch::new(Soc::Ascend910B).block_dim(cores).sync_all(true).run(kernel)
}

#[track_caller]
fn expect_fault(r: Result<LaunchStats, LaunchError>, needles: &[&str]) -> String {
    let msg = r.expect_err("the bug must be caught").to_string();
    for n in needles {
        assert!(msg.contains(n), "missing {n:?} in: {msg}");
    }
    msg
}

// ---- 1. Stale TBuf tensors ---------------------------------------------------------------

/// A `TBuf` tensor taken before `TPipe::reset`, used once a queue owns its bytes (`stale`),
/// or a tensor taken again after the TBuf is given memory again.
fn tbuf_across_reset(stale: bool) {
    let mut pipe = TPipe::new();
    let mut b = TBuf::<VecCalc>::new();
    pipe.init_tbuf(&mut b, N * 4);
    let old = b.get::<f32>();
    duplicate(&old, 1.0, N);
    pipe.reset();
    let mut q = TQue::<VecIn, 1>::new();
    pipe.init_buffer(&mut q, 1, N * 4); // the queue owns [0, 256) now
    let x = q.alloc_tensor::<f32>();
    if stale {
        duplicate(&old, 2.0, N); // STALE_AFTER_RESET
    } else {
        pipe.init_tbuf(&mut b, N * 4);
        duplicate(&b.get::<f32>(), 2.0, N);
    }
    q.free_tensor(x);
}

#[test]
fn a_tbuf_tensor_used_after_tpipe_reset_is_a_stale_handle() {
    let msg = expect_fault(
        run(1, || tbuf_across_reset(true)),
        &["stale tensor handle", "TBuf<VECCALC> (UB [0x0, 0x100))"],
    );
    assert!(msg.contains("TPipe::reset"), "{msg}");
    run(1, || tbuf_across_reset(false)).expect("a tensor taken after the TBuf got memory again");
}

/// A `TBuf` tensor kept past its pipe's drop (`stale`), or taken from a new pipe's TBuf.
fn tbuf_across_drop(stale: bool) {
    let mut b = TBuf::<VecCalc>::new();
    let old = {
        let mut pipe = TPipe::new();
        pipe.init_tbuf(&mut b, N * 4);
        let t = b.get::<f32>();
        duplicate(&t, 1.0, N);
        t
    };
    let mut pipe = TPipe::new();
    pipe.init_tbuf(&mut b, N * 4);
    let t = if stale { old } else { b.get::<f32>() };
    assert_eq!(t.get_value(0), 1.0); // the bytes are still there on the emulator
}

#[test]
fn a_tbuf_tensor_used_after_its_pipe_is_dropped_is_a_stale_handle() {
    expect_fault(
        run(1, || tbuf_across_drop(true)),
        &["LocalTensor::GetValue", "stale tensor handle", "TBuf<VECCALC>"],
    );
    run(1, || tbuf_across_drop(false)).expect("a tensor of the new pipe's TBuf");
}

// ---- 2. Tensors that leave their core or their launch ------------------------------------

thread_local! {
    static STASH: RefCell<Option<LocalTensor<f32>>> = const { RefCell::new(None) };
}

/// Core 0 stashes a tensor of its Unified Buffer in a thread-local; core 1 (run next on the
/// same thread) reads it (`foreign`), or one of its own.
fn stash_kernel(foreign: bool) {
    let mut pipe = TPipe::new();
    let mut b = TBuf::<VecCalc>::new();
    pipe.init_tbuf(&mut b, N * 4);
    let t = b.get::<f32>();
    if get_block_idx() == 0 {
        t.set_value(0, 7.0);
        STASH.with(|s| *s.borrow_mut() = Some(t));
    } else {
        let t = if foreign { STASH.with(|s| s.borrow_mut().take()).expect("core 0 ran first") } else { t };
        t.set_value(1, 1.0);
        let _ = t.get_value(1);
    }
}

#[test]
fn a_tensor_used_by_another_core_is_an_error_naming_both() {
    let seq = || Launch::new(Soc::Ascend910B).block_dim(2).mode(ExecMode::Sequential);
    let msg = expect_fault(
        seq().run(|| stash_kernel(true)),
        &[
            "LocalTensor::SetValue",
            "this LocalTensor is in the Unified Buffer of core 0 of 2",
            "core 1 of 2 of a launch uses it",
        ],
    );
    assert!(msg.contains("Sequential") || msg.contains("core 1"), "{msg}");
    STASH.with(|s| s.borrow_mut().take());
    seq().run(|| stash_kernel(false)).expect("each core uses its own tensors");
    STASH.with(|s| s.borrow_mut().take());
}

#[test]
fn a_tensor_used_on_the_host_after_its_launch_is_an_error_naming_both() {
    Launch::new(Soc::Ascend910B)
        .mode(ExecMode::Sequential)
        .run(|| stash_kernel(false))
        .expect("the kernel itself is correct");
    let t = STASH.with(|s| s.borrow_mut().take()).expect("core 0 stashed its tensor");
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| t.get_value(0)));
    let msg = *r.expect_err("a read of a returned core's Unified Buffer").downcast::<String>().unwrap();
    assert!(msg.contains("core 0 of 1 of a launch that has returned"), "{msg}");
    assert!(msg.contains("the host (a thread's default core, outside any launch) uses it"), "{msg}");
    // The twin: the host's own tensors (its default core's) work as before.
    let mine = LocalTensor::<f32>::new(TPosition::VECCALC, 0, N);
    mine.set_value(0, 3.0);
    assert_eq!(mine.get_value(0), 3.0);
}

// ---- 3. Kernel API from a thread the kernel spawned --------------------------------------

#[test]
fn kernel_api_from_a_thread_the_kernel_spawned_is_an_error() {
    let out = GmBuffer::<f32>::zeroed(N);
    let a = out.addr();
    let seen: Mutex<Vec<String>> = Mutex::new(Vec::new());
    run(1, || {
        // A GM access and a core query, each from its own spawned thread.
        let r1 = std::thread::spawn(move || bind(&a, 0, N).set_value(0, 1.0)).join();
        let r2 = std::thread::spawn(get_block_idx).join();
        for r in [r1.map(|_| ()), r2.map(|_| ())] {
            let e = r.expect_err("the spawned thread must fail");
            seen.lock().unwrap().push(*e.downcast::<String>().unwrap());
        }
        // The twin: the same work on the core's own thread.
        bind(&a, 0, N).set_value(0, 2.0);
        assert_eq!(get_block_idx(), 0);
    })
    .expect("the core itself is fine");
    let seen = seen.into_inner().unwrap();
    assert_eq!(seen.len(), 2);
    for m in &seen {
        assert!(m.contains("a kernel API was called from a thread the kernel spawned"), "{m}");
    }
    assert_eq!(out.to_vec()[0], 2.0, "the spawned thread wrote nothing");
}

// ---- 4. The data cache within one core ---------------------------------------------------

/// A scalar `SetValue`, then a DMA read of the same bytes (cleaned first when `clean`).
fn set_value_then_dma_read(gm_addr: GmAddr, clean: bool) {
    let gm = bind(&gm_addr, 0, N);
    let mut pipe = TPipe::new();
    let mut b = TBuf::<VecIn>::new();
    pipe.init_tbuf(&mut b, N * 4);
    gm.set_value(3, 5.0); // SET_VALUE
    if clean {
        data_cache_clean_and_invalid::<f32, SingleCacheLine, CachelineOut>(&gm);
    }
    set_flag::<HardEvent::S_MTE2>(0);
    wait_flag::<HardEvent::S_MTE2>(0);
    data_copy(&b.get::<f32>(), &gm, N); // DMA_READ
}

#[test]
fn a_dma_read_of_bytes_a_scalar_write_left_in_the_data_cache_is_caught() {
    let g = GmBuffer::<f32>::zeroed(N);
    let a = g.addr();
    expect_fault(
        run(1, || set_value_then_dma_read(a, false)),
        &[
            "data-cache race on core 0",
            "DataCopy on pipe MTE2 reads bytes [0xc, 0x10)",
            "GlobalTensor::SetValue",
            "DcciDst::CACHELINE_OUT",
        ],
    );
    run(1, || set_value_then_dma_read(a, true)).expect("cleaned before the copy");
}

/// A scalar read that caches the line, a DMA write of the same bytes, then a scalar read
/// (the line invalidated first when `invalidate`).
fn dma_write_then_cached_read(gm_addr: GmAddr, invalidate: bool) -> f32 {
    let gm = bind(&gm_addr, 0, N);
    let mut pipe = TPipe::new();
    let mut b = TBuf::<VecOut>::new();
    pipe.init_tbuf(&mut b, N * 4);
    let before = gm.get_value(0); // the line is cached from here on
    let t = b.get::<f32>();
    duplicate(&t, before + 1.0, N);
    set_flag::<HardEvent::V_MTE3>(0);
    wait_flag::<HardEvent::V_MTE3>(0);
    data_copy(&gm, &t, N);
    set_flag::<HardEvent::MTE3_S>(0);
    wait_flag::<HardEvent::MTE3_S>(0);
    if invalidate {
        data_cache_clean_and_invalid::<f32, SingleCacheLine, CachelineOut>(&gm);
    }
    gm.get_value(0)
}

#[test]
fn a_scalar_read_of_a_cached_line_after_a_dma_write_is_caught() {
    let g = GmBuffer::<f32>::zeroed(N);
    let a = g.addr();
    expect_fault(
        run(1, || {
            dma_write_then_cached_read(a, false);
        }),
        &[
            "data-cache race on core 0",
            "GlobalTensor::GetValue reads bytes [0x0, 0x4)",
            "DataCopy",
            "invalidate the line first",
        ],
    );
    run(1, || assert_eq!(dma_write_then_cached_read(a, true), 2.0)).expect("invalidated before the read");
}

// ---- 5. Cancellation at every API call ---------------------------------------------------

/// Core 1 of 2 spins on `spin` forever: the launch times out within its timeout plus one
/// second, naming core 1, and the process goes on.
fn times_out(what: &str, spin: impl Fn(&LocalTensor<f32>) + Sync) {
    let timeout = Duration::from_millis(500);
    let t0 = Instant::now();
    let err = Launch::new(Soc::Ascend910B)
        .block_dim(2)
        .timeout(timeout)
        .run(|| {
            let mut pipe = TPipe::new();
            let mut b = TBuf::<VecCalc>::new();
            pipe.init_tbuf(&mut b, N * 4);
            let t = b.get::<f32>();
            if get_block_idx() == 1 {
                loop {
                    spin(&t);
                }
            }
        })
        .unwrap_err();
    let took = t0.elapsed();
    assert!(took < timeout + Duration::from_secs(1), "{what}: took {took:?}");
    let LaunchError::TimedOut { ref running, .. } = err else { panic!("{what}: not a timeout: {err}") };
    assert_eq!(running.as_slice(), &[1], "{what}");
    assert!(err.to_string().contains("still running: core(s) 1"), "{what}: {err}");
}

#[test]
fn a_core_spinning_on_pipe_barrier_is_cancelled() {
    times_out("PipeBarrier", |_| pipe_barrier::<PIPE_V>());
}

#[test]
fn a_core_polling_local_get_value_is_cancelled() {
    times_out("GetValue", |t| {
        std::hint::black_box(t.get_value(0));
    });
}

#[test]
fn a_core_polling_local_set_value_is_cancelled() {
    times_out("SetValue", |t| t.set_value(0, 1.0));
}

// ---- 6. The hints of the cross-core race messages ----------------------------------------

/// Cores 0 and 1 each `SetValue` one f32 flag and clean its line; the flags are `stride`
/// elements apart.
fn scalar_flags(a: GmAddr, stride: usize) {
    let i = get_block_idx() as usize;
    let gm = bind(&a, i * stride, 1);
    gm.set_value(0, 1.0);
    data_cache_clean_and_invalid::<f32, SingleCacheLine, CachelineOut>(&gm);
}

#[test]
fn two_cores_scalar_writes_into_one_line_point_at_own_lines_and_the_clean() {
    let g = GmBuffer::<f32>::zeroed(2 * N);
    let a = g.addr();
    let msg = expect_fault(
        run(2, || scalar_flags(a, 1)),
        &[
            "cross-core race on global memory",
            "give each core its own 64-byte data-cache lines and clean them",
            "DataCacheCleanAndInvalid",
        ],
    );
    assert!(!msg.contains("32-byte blocks"), "{msg}");
    assert!(!msg.contains("atomic"), "atomic scalar writes do not help: {msg}");
    run(2, || scalar_flags(a, 16)).expect("a 64-byte line per core");
}

/// Core 0 writes a tile by DMA; core 1 reads it (after `SyncAll` when `synced`).
fn write_then_read(a: GmAddr, synced: bool) {
    let gm = bind(&a, 0, N);
    let mut pipe = TPipe::new();
    let mut b = TBuf::<VecCalc>::new();
    pipe.init_tbuf(&mut b, N * 4);
    let t = b.get::<f32>();
    if get_block_idx() == 0 {
        duplicate(&t, 1.0, N);
        set_flag::<HardEvent::V_MTE3>(0);
        wait_flag::<HardEvent::V_MTE3>(0);
        data_copy(&gm, &t, N);
    }
    if synced {
        sync_all();
    }
    if get_block_idx() == 1 {
        data_copy(&t, &gm, N);
    }
}

#[test]
fn a_read_write_race_does_not_offer_atomic_writes() {
    let g = GmBuffer::<f32>::zeroed(N);
    let a = g.addr();
    let msg = expect_fault(
        run(2, || write_then_read(a, false)),
        &["cross-core race on global memory", "separate them with SyncAll", "32-byte blocks"],
    );
    assert!(!msg.contains("atomic"), "{msg}");
    run(2, || write_then_read(a, true)).expect("SyncAll between them");
}

// ---- 8. Identical writes are not a race --------------------------------------------------

/// Every core copies a tile of `value(core)` to the same 256 bytes of GM.
fn same_range(a: GmAddr, value: impl Fn(u32) -> f32) {
    let gm = bind(&a, 0, N);
    let mut pipe = TPipe::new();
    let mut b = TBuf::<VecCalc>::new();
    pipe.init_tbuf(&mut b, N * 4);
    let t = b.get::<f32>();
    duplicate(&t, value(get_block_idx()), N);
    set_flag::<HardEvent::V_MTE3>(0);
    wait_flag::<HardEvent::V_MTE3>(0);
    data_copy(&gm, &t, N);
}

#[test]
fn overlapping_writes_of_two_cores_race_only_when_the_bytes_differ() {
    let g = GmBuffer::<f32>::zeroed(N);
    let a = g.addr();
    run(4, || same_range(a, |_| 2.5)).expect("the same bytes, whichever lands last");
    assert_eq!(g.to_vec(), vec![2.5; N]);
    let msg = expect_fault(
        run(2, || same_range(a, |c| c as f32)),
        &["cross-core race on global memory", "writes bytes [0x0, 0x100)"],
    );
    assert!(msg.contains("or make both writes atomic (SetAtomicAdd)"), "{msg}");
}
