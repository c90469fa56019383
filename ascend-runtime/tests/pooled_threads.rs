//! The default (pooled) mode runs cores that wait for one another on a bounded number of host
//! threads: once a core blocks, the later cores are coroutines that park while they wait, on
//! the thread they started on. Each kernel here records the host thread of every core before
//! and after its waits; however many cores wait at once, they all ran on at most twice rayon's
//! threads (not a helper thread per waiting core), and no core moved to another thread. A parked core keeps its own state (sanitizer,
//! output, fault reporting) while others run on its thread.

use std::collections::HashSet;
use std::sync::Mutex;
use std::thread::ThreadId;
use std::time::{Duration, Instant};

use ascend_runtime::prelude::*;

/// `u32`s per 64-byte line of the scalar data cache: each core writes its own line.
const LINE: usize = 16;

fn gm<T: TensorType + bytemuck::Pod>(addr: GmAddr, len: usize) -> GlobalTensor<T> {
    let mut g = GlobalTensor::new();
    g.set_global_buffer(addr, len);
    g
}

/// The host threads the cores of a launch ran on, and whether a core ever changed thread.
#[derive(Default)]
struct Threads {
    seen: Mutex<HashSet<ThreadId>>,
    moved: Mutex<Vec<u32>>,
}

impl Threads {
    /// Records the current thread for a core that started on `first` (`None`: the core's
    /// first record); returns this thread.
    fn record(&self, first: Option<ThreadId>) -> ThreadId {
        let me = std::thread::current().id();
        self.seen.lock().unwrap().insert(me);
        if first.is_some_and(|f| f != me) {
            self.moved.lock().unwrap().push(get_block_idx());
        }
        me
    }

    /// At most twice rayon's threads ran the cores (rayon's, and at most one helper each for
    /// the first core of each to block its thread), and none moved.
    fn check(&self, n: u32) {
        let used = self.seen.lock().unwrap().len();
        let limit = 2 * rayon::current_num_threads();
        assert!((1..=limit).contains(&used), "{n} cores ran on {used} host threads; the bound is {limit}");
        assert_eq!(*self.moved.lock().unwrap(), Vec::<u32>::new(), "cores that changed thread");
    }
}

/// What core `i` writes before the barrier.
fn value(i: u32) -> u32 {
    i.wrapping_mul(0x9e37_79b9) ^ 0x00c0_ffee
}

/// Each core writes its line, `sync_all`, reads the line of core `(i * 5 + 3) % n`, `sync_all`
/// again and stores what it read (with the sanitizer on or off).
fn exchange(n: u32, sanitize: bool) {
    let len = n as usize * LINE;
    let (slots, seen) = (GmBuffer::<u32>::zeroed(len), GmBuffer::<u32>::zeroed(len));
    let (sa, ra) = (slots.addr(), seen.addr());
    let threads = Threads::default();
    let start = Instant::now();
    Launch::new(Soc::Ascend910B)
        .block_dim(n)
        .sanitize(sanitize)
        .run(|| {
            let first = threads.record(None);
            let me = get_block_idx();
            let g = gm::<u32>(sa, len);
            g.set_value(me as usize * LINE, value(me));
            sync_all();
            threads.record(Some(first));
            let other = (me as usize * 5 + 3) % n as usize;
            let v = g.get_value(other * LINE);
            sync_all();
            threads.record(Some(first));
            gm::<u32>(ra, len).set_value(me as usize * LINE, v);
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let took = start.elapsed();
    assert!(took < Duration::from_secs(20), "{n} cores took {took:?}");
    let want: Vec<u32> = (0..n).map(|i| value((i * 5 + 3) % n)).collect();
    assert_eq!(seen.to_vec().iter().step_by(LINE).copied().collect::<Vec<u32>>(), want);
    threads.check(n);
}

#[test]
fn sync_all_with_48_cores_runs_on_rayons_threads() {
    exchange(48, true);
}

#[test]
fn sync_all_with_4096_cores_runs_on_rayons_threads() {
    // Without the sanitizer: 4096 sanitized cores cost seconds of CPU, which the tests running
    // beside this one (sharing rayon's threads) would wait for.
    exchange(4096, false);
}

/// Flag waits in the default mode on a bounded number of threads: an `IBWait` chain against
/// the start order (core `i` waits for core `i + 1`, so every core but the last parks before
/// the last one starts), then a chain of polled GM flags (core `i` spins on the flag line of
/// core `i + 1`; the sanitizer turns each spin into a parked wait).
#[test]
fn flag_waits_for_cores_not_started_yet_run_on_rayons_threads() {
    let n = 1000u32;
    let flags = GmBuffer::<i32>::zeroed(n as usize * 8);
    let order = GmBuffer::<u32>::zeroed(n as usize * LINE);
    let (fa, oa) = (flags.addr(), order.addr());
    let threads = Threads::default();
    Launch::new(Soc::Ascend910B)
        .block_dim(n)
        .run(|| {
            let first = threads.record(None);
            let flag = gm::<i32>(fa, n as usize * 8);
            let ub = LocalTensor::<i32>::new(TPosition::VECCALC, 0, 8);
            let me = get_block_idx();
            if me + 1 < n {
                ib_wait(&flag, &ub, me as i32, 0);
            }
            threads.record(Some(first));
            gm::<u32>(oa, n as usize * LINE).set_value(me as usize * LINE, me + 7);
            if me > 0 {
                ib_set(&flag, &ub, me as i32 - 1, 0);
            }
        })
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        order.to_vec().iter().step_by(LINE).copied().collect::<Vec<u32>>(),
        (7..n + 7).collect::<Vec<u32>>()
    );
    threads.check(n);

    let n = 64u32;
    let lines = GmBuffer::<i32>::zeroed(n as usize * LINE);
    let la = lines.addr();
    let threads = Threads::default();
    Launch::new(Soc::Ascend910B)
        .block_dim(n)
        .run(|| {
            let first = threads.record(None);
            let me = get_block_idx() as usize;
            let all = gm::<i32>(la, n as usize * LINE);
            if me + 1 < n as usize {
                let next = all.view((me + 1) * LINE);
                loop {
                    data_cache_clean_and_invalid::<i32, SingleCacheLine, CachelineOut>(&next);
                    if next.get_value(0) != 0 {
                        break;
                    }
                }
            }
            threads.record(Some(first));
            let mine = all.view(me * LINE);
            mine.set_value(0, me as i32 + 1);
            data_cache_clean_and_invalid::<i32, SingleCacheLine, CachelineOut>(&mine);
        })
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        lines.to_vec().iter().step_by(LINE).copied().collect::<Vec<i32>>(),
        (1..=n as i32).collect::<Vec<i32>>()
    );
    threads.check(n);
}

/// A parked core keeps its own state while other cores run on its thread: its pending
/// `SetFlag` (the sanitizer's per-core state), its printed lines, and its identity.
#[test]
fn a_parked_core_keeps_its_state_while_others_run_on_its_thread() {
    let n = 256u32;
    let out = GmBuffer::<f32>::zeroed(n as usize * 8);
    let oa = out.addr();
    let (result, text) = Launch::new(Soc::Ascend910B).block_dim(n).capture_output(|| {
        let me = get_block_idx();
        let mut pipe = TPipe::new();
        let mut buf = TBuf::<VecOut>::new();
        pipe.init_tbuf(&mut buf, 32);
        let x = buf.get::<f32>();
        duplicate(&x, me as f32, 8);
        set_flag::<HardEvent::V_MTE3>(0);
        ascend_printf!("before %d\n", me);
        sync_all();
        ascend_printf!("after %d\n", me);
        assert_eq!(get_block_idx(), me);
        wait_flag::<HardEvent::V_MTE3>(0);
        data_copy(&gm::<f32>(oa, n as usize * 8).view(me as usize * 8), &x, 8);
    });
    result.unwrap_or_else(|e| panic!("{e}"));
    let want: String =
        (0..n).map(|i| format!("[AIV Block {i}/{n}] before {i}\n[AIV Block {i}/{n}] after {i}\n")).collect();
    assert_eq!(text.text(), want);
    assert_eq!(out.to_vec(), (0..n).flat_map(|i| [i as f32; 8]).collect::<Vec<f32>>());
}

/// A core that panics after it parked and resumed: its fault names the kernel's line, and the
/// cores waiting in the next `sync_all` are released as a consequence.
#[test]
fn a_panic_after_parking_is_the_cores_fault_at_the_kernels_line() {
    let line = std::sync::OnceLock::new();
    let err = launch(Soc::Ascend910B, 100, || {
        sync_all();
        if get_block_idx() == 77 {
            line.set(line!() + 1).ok();
            panic!("core {} gave up", get_block_idx());
        }
        sync_all();
    })
    .unwrap_err();
    let p = err.primary().unwrap();
    assert_eq!((p.core, p.api, p.message.as_str()), (77, "panic", "core 77 gave up"), "{err}");
    assert!(p.file.ends_with("pooled_threads.rs"), "{err}");
    assert_eq!(p.line, *line.get().unwrap(), "{err}");
    let rest = &err.faults()[1..];
    assert_eq!(rest.len(), 99, "{err}");
    assert!(rest.iter().all(|f| f.api == "SyncAll" && f.released_by == Some(77)), "{err}");
}

/// A core that never reaches the `sync_all` the others wait in, and a launch that times out
/// while 4000 cores are parked: errors, with the process alive and the next launch fine.
#[test]
fn a_deadlock_and_a_timeout_with_4096_cores_are_errors() {
    let n = 4096u32;
    let err = Launch::new(Soc::Ascend910B)
        .block_dim(n)
        .sanitize(false)
        .run(|| {
            if get_block_idx() != 1234 {
                sync_all();
            }
        })
        .unwrap_err();
    let p = err.primary().unwrap();
    assert_eq!(p.api, "SyncAll", "{err}");
    assert!(p.message.contains("4095 of 4096 cores are waiting here, but core(s) 1234 returned"), "{err}");

    let start = Instant::now();
    let err = Launch::new(Soc::Ascend910B)
        .block_dim(n)
        .sanitize(false)
        .timeout(Duration::from_secs(2))
        .run(|| {
            if get_block_idx() == 1000 {
                crate::pooled_sync::spin_on_vector_instructions();
            }
            sync_all();
        })
        .unwrap_err();
    assert!(start.elapsed() < Duration::from_secs(20), "took {:?}", start.elapsed());
    let LaunchError::TimedOut { running, waiting, .. } = &err else { panic!("{err}") };
    // Core 1000 spins (early enough that a loaded host reaches it well within the timeout:
    // a run with two other compilers on the two cores reached core 3553 in 2 s); one core
    // after it may still be starting.
    assert!(running.contains(&1000) && running.len() <= 2, "{err}");
    // Every core before it waits; of the later ones, those started before the timeout wait
    // and those not started yet are skipped.
    assert!((0..1000).all(|c| waiting.contains(&c)) && !waiting.contains(&1000), "{err}");
    assert!(err.faults().iter().any(|f| f.core == 1000 && f.message.contains("timed out")), "{err}");

    launch(Soc::Ascend910B, 8, sync_all).unwrap();
}

/// A launch inside a pooled core's kernel (after the outer cores met, so some run on
/// coroutines): the inner cores wait for one another in their own `sync_all` without parking
/// the outer core's coroutine, and both launches complete with every core's result.
#[test]
fn a_launch_inside_a_parked_cores_kernel_completes() {
    let (outer, inner) = (6u32, 8u32);
    let len = (outer * inner) as usize * LINE;
    let out = GmBuffer::<u32>::zeroed(len);
    let oa = out.addr();
    launch(Soc::Ascend910B, outer, || {
        sync_all();
        let o = get_block_idx();
        launch(Soc::Ascend910B, inner, move || {
            let i = get_block_idx();
            let g = gm::<u32>(oa, len);
            let me = (o * inner + i) as usize * LINE;
            g.set_value(me, o * 100 + i);
            data_cache_clean_and_invalid::<u32, SingleCacheLine, CachelineOut>(&g.view(me));
            sync_all();
        })
        .unwrap_or_else(|e| panic!("inner launch of core {o}: {e}"));
        assert_eq!(get_block_idx(), o);
        sync_all();
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let want: Vec<u32> = (0..outer).flat_map(|o| (0..inner).map(move |i| o * 100 + i)).collect();
    assert_eq!(out.to_vec().iter().step_by(LINE).copied().collect::<Vec<u32>>(), want);
}

/// A launch inside a kernel whose `blockDim` is above its `max_threads` (so it cannot give its
/// cores threads of their own) still completes when every outer core starts one at once and
/// the inner cores wait for one another: the inner launch does not depend on the pool the
/// outer cores hold.
#[test]
fn a_launch_inside_a_kernel_above_max_threads_completes() {
    let (outer, inner) = (4u32, 24u32);
    let len = (outer * inner) as usize * LINE;
    let out = GmBuffer::<u32>::zeroed(len);
    let oa = out.addr();
    for _ in 0..3 {
        Launch::new(Soc::Ascend910B)
            .block_dim(outer)
            .timeout(Duration::from_secs(60))
            .run(|| {
                sync_all();
                let o = get_block_idx();
                Launch::new(Soc::Ascend910B)
                    .block_dim(inner)
                    .max_threads(4)
                    .run(move || {
                        let i = get_block_idx();
                        let g = gm::<u32>(oa, len);
                        let me = (o * inner + i) as usize * LINE;
                        sync_all();
                        g.set_value(me, o * 100 + i);
                        data_cache_clean_and_invalid::<u32, SingleCacheLine, CachelineOut>(&g.view(me));
                        sync_all();
                    })
                    .unwrap_or_else(|e| panic!("inner launch of core {o}: {e}"));
                assert_eq!(get_block_idx(), o);
                sync_all();
            })
            .unwrap_or_else(|e| panic!("{e}"));
        let want: Vec<u32> = (0..outer).flat_map(|o| (0..inner).map(move |i| o * 100 + i)).collect();
        assert_eq!(out.to_vec().iter().step_by(LINE).copied().collect::<Vec<u32>>(), want);
    }
}
