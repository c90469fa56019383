//! Cross-core waits in the default (pooled) launch mode: `sync_all` and the flag waits work
//! with any `blockDim`, also far more cores than rayon has threads (a core that waits parks
//! on its coroutine, so the cores not started yet still start); a wait
//! that can never complete is still an error naming the cores, and a timeout still cancels.

use std::time::{Duration, Instant};

use ascend_runtime::prelude::*;

/// `u32`s per 64-byte line of the scalar data cache: each core writes its own line.
const LINE: usize = 16;

fn gm_u32(addr: &GmAddr, len: usize) -> GlobalTensor<u32> {
    let mut g = GlobalTensor::new();
    g.set_global_buffer(*addr, len);
    g
}

/// What core `i` writes before the barrier.
fn value(i: u32) -> u32 {
    i.wrapping_mul(2_654_435_761) ^ 0x5a5a_0000
}

/// Each core writes its slot, `sync_all`, then reads the slot of core `(i * 7 + 1) % n` (a
/// core started long before or after it) and stores what it read; then a second round the
/// other way (`n - 1 - i`) to check that the barrier can be used again.
fn write_sync_read(launch: Launch, n: u32) -> Duration {
    let len = n as usize * LINE;
    let slots = GmBuffer::<u32>::zeroed(len);
    let seen = GmBuffer::<u32>::zeroed(len);
    let seen2 = GmBuffer::<u32>::zeroed(len);
    let (sa, ra, ra2) = (slots.addr(), seen.addr(), seen2.addr());
    let start = Instant::now();
    let stats = launch
        .block_dim(n)
        .run(move || {
            let me = get_block_idx();
            let gm = gm_u32(&sa, len);
            gm.set_value(me as usize * LINE, value(me));
            sync_all();
            let other = ((u64::from(me) * 7 + 1) % u64::from(n)) as usize;
            gm_u32(&ra, len).set_value(me as usize * LINE, gm.get_value(other * LINE));
            sync_all();
            gm.set_value(me as usize * LINE, !value(me));
            sync_all();
            gm_u32(&ra2, len).set_value(me as usize * LINE, gm.get_value((n - 1 - me) as usize * LINE));
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let took = start.elapsed();
    assert_eq!(stats.block_dim, n);
    let want: Vec<u32> = (0..n).map(|i| value(((u64::from(i) * 7 + 1) % u64::from(n)) as u32)).collect();
    let got: Vec<u32> = seen.to_vec().iter().step_by(LINE).copied().collect();
    assert_eq!(got, want);
    let want2: Vec<u32> = (0..n).map(|i| !value(n - 1 - i)).collect();
    let got2: Vec<u32> = seen2.to_vec().iter().step_by(LINE).copied().collect();
    assert_eq!(got2, want2);
    took
}

#[test]
fn sync_all_with_48_cores_in_the_default_mode() {
    let l = Launch::new(Soc::Ascend910B);
    assert_eq!(l.get_mode(), ExecMode::Pooled);
    write_sync_read(l, 48);
}

#[test]
fn sync_all_with_4096_cores_in_the_default_mode() {
    let took = write_sync_read(Launch::new(Soc::Ascend910B), 4096);
    assert!(took < Duration::from_secs(10), "took {took:?}");
}

#[test]
fn sync_all_with_4096_cores_in_pooled_mode_without_the_sanitizer() {
    let took = write_sync_read(Launch::new(Soc::Ascend310P).mode(ExecMode::Pooled).sanitize(false), 4096);
    assert!(took < Duration::from_secs(10), "took {took:?}");
}

#[test]
fn a_kernel_without_sync_all_still_runs_every_core_once() {
    let n = 1000;
    let hits = GmBuffer::<u32>::zeroed(n * LINE);
    let ha = hits.addr();
    launch(Soc::Ascend910B, n as u32, move || {
        let gm = gm_u32(&ha, n * LINE);
        let i = get_block_idx() as usize * LINE;
        gm.set_value(i, gm.get_value(i) + 1);
    })
    .unwrap();
    assert_eq!(hits.to_vec().iter().step_by(LINE).copied().collect::<Vec<u32>>(), vec![1; n]);
}

/// A core that returns without reaching the `sync_all` the others wait in: an error naming
/// it, however many cores there are (also when most cores have not started yet when the
/// first ones block).
#[test]
fn a_sync_all_that_can_never_complete_is_an_error_naming_the_core() {
    for (n, early) in [(48u32, 3u32), (4096, 4000)] {
        let start = Instant::now();
        let err = launch(Soc::Ascend910B, n, move || {
            if get_block_idx() != early {
                sync_all();
            }
        })
        .unwrap_err();
        assert!(start.elapsed() < Duration::from_secs(10), "took {:?}", start.elapsed());
        let p = err.primary().unwrap();
        assert_eq!(p.api, "SyncAll");
        assert_ne!(p.core, early);
        let want =
            format!("{} of {n} cores are waiting here, but core(s) {early} returned from the kernel", n - 1);
        assert!(p.message.contains(&want), "{}", p.message);
        assert!(err.to_string().contains("pooled mode"), "{err}");
        assert_eq!(err.faults().len() + err.skipped_cores().len(), n as usize - 1);
        assert!(err.faults().iter().all(|f| f.core != early));
    }
}

/// A core that fails while the others wait releases them at once; the cores not started yet
/// are skipped, none is lost.
#[test]
fn a_failing_core_releases_the_pooled_cores_waiting_in_sync_all() {
    let err = launch(Soc::Ascend910B, 300, || {
        if get_block_idx() == 250 {
            ascend_core::fail("TestApi", "value = 7 is out of range [0, 4]");
        }
        sync_all();
    })
    .unwrap_err();
    let p = err.primary().unwrap();
    assert_eq!((p.core, p.api), (250, "TestApi"));
    let rest = &err.faults()[1..];
    assert_eq!(rest.len() + err.skipped_cores().len(), 299);
    assert!(rest.iter().all(|f| f.api == "SyncAll" && f.released_by == Some(250)), "{err}");
}

/// A kernel busy with vector instructions forever (a runaway core that still makes API calls):
/// a timeout cancels it at the next one.
pub(crate) fn spin_on_vector_instructions() -> ! {
    let mut pipe = TPipe::new();
    let mut b = TBuf::<VecCalc>::new();
    pipe.init_tbuf(&mut b, 256);
    let t = b.get::<f32>();
    loop {
        duplicate(&t, 1.0, 64);
    }
}

/// A core stuck in a loop of API calls while the others wait in `sync_all`: the timeout
/// cancels it and releases them.
#[test]
fn a_timeout_cancels_pooled_cores_waiting_in_sync_all() {
    let start = Instant::now();
    let err = Launch::new(Soc::Ascend910B)
        .block_dim(64)
        .timeout(Duration::from_millis(1500))
        .run(|| {
            if get_block_idx() == 63 {
                spin_on_vector_instructions();
            }
            sync_all();
        })
        .unwrap_err();
    assert!(start.elapsed() < Duration::from_secs(10), "took {:?}", start.elapsed());
    let LaunchError::TimedOut { running, waiting, mode, skipped, .. } = &err else { panic!("{err}") };
    assert_eq!(*mode, ExecMode::Pooled);
    // On a loaded host core 63 may not have started yet when the timeout passes: it is then
    // never started.
    assert!(running == &[63] || running.is_empty() && skipped == &[63], "{err}");
    assert_eq!(waiting, &(0..63).collect::<Vec<u32>>(), "{err}");
}

/// A flag wait across cores (`IBSet`/`IBWait`) in the default mode: each core but the last
/// waits for the flag the next core sets, so the cores finish from the last to the first,
/// although they start from the first: every earlier core blocks before the last one starts.
#[test]
fn ib_wait_for_cores_not_started_yet_in_the_default_mode() {
    let n = 200u32;
    let flags = GmBuffer::<i32>::zeroed(n as usize * 8);
    let (fa, oa) = (flags.addr(), GmBuffer::<u32>::zeroed(n as usize * LINE));
    let out = oa.addr();
    launch(Soc::Ascend910B, n, move || {
        let mut flag = GlobalTensor::<i32>::new();
        flag.set_global_buffer(fa, n as usize * 8);
        let ub = LocalTensor::<i32>::new(TPosition::VECCALC, 0, 8);
        let me = get_block_idx();
        if me + 1 < n {
            ib_wait(&flag, &ub, me as i32, 0);
        }
        gm_u32(&out, n as usize * LINE).set_value(me as usize * LINE, me + 1);
        if me > 0 {
            ib_set(&flag, &ub, me as i32 - 1, 0);
        }
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        oa.to_vec().iter().step_by(LINE).copied().collect::<Vec<u32>>(),
        (1..=n).collect::<Vec<u32>>()
    );
    assert_eq!(flags.to_vec(), vec![0; n as usize * 8]);
}
