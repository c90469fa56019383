//! The sanitizer's catalogue: each test is the smallest version of a real synchronisation
//! mistake, caught with its message, and the fixed version of it, which passes.

use ascend_runtime::prelude::*;

const N: usize = 64; // f32 elements per tile: 256 bytes

fn gm_f32(v: &[f32]) -> GmBuffer<f32> {
    GmBuffer::from_vec(v.to_vec())
}

fn bind(addr: &GmAddr, off: usize, len: usize) -> GlobalTensor<f32> {
    let mut g = GlobalTensor::<f32>::new();
    g.set_global_buffer(addr.add::<f32>(off), len);
    g
}

/// Runs `kernel` on `cores` cores (a thread per core, so `sync_all` works).
fn run(cores: u32, kernel: impl Fn() + Sync) -> Result<LaunchStats, LaunchError> {
    Launch::new(Soc::Ascend910B).block_dim(cores).sync_all(true).run(kernel)
}

/// [`run`] for a kernel built without the compiler's automatic synchronisation
/// (`--cce-auto-sync=off`): scalar accesses and dependent vector instructions need their
/// events and barriers by hand.
fn run_manual(cores: u32, kernel: impl Fn() + Sync) -> Result<LaunchStats, LaunchError> {
    Launch::new(Soc::Ascend910B).block_dim(cores).sync_all(true).auto_sync(false).run(kernel)
}

/// Two 64-float scratch tiles of `pipe`: `a` holding `x_gm`, copied in and ordered before the
/// vector pipe (MTE2_V), and `b`.
fn load_pair(pipe: &mut TPipe, x_gm: &GlobalTensor<f32>) -> (LocalTensor<f32>, LocalTensor<f32>) {
    let (mut ba, mut bb) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
    pipe.init_tbuf(&mut ba, N * 4);
    pipe.init_tbuf(&mut bb, N * 4);
    let (a, b) = (ba.get::<f32>(), bb.get::<f32>());
    data_copy(&a, x_gm, N);
    set_flag::<HardEvent::MTE2_V>(0);
    wait_flag::<HardEvent::MTE2_V>(0);
    (a, b)
}

/// The launch failed with a fault whose message holds every `needle`; returns the fault.
#[track_caller]
fn expect_fault(r: Result<LaunchStats, LaunchError>, needles: &[&str]) -> CoreFault {
    let e = r.expect_err("the sanitizer should have caught this kernel");
    let f = e.primary().expect("a fault").clone();
    let text = f.to_string();
    for n in needles {
        assert!(text.contains(n), "expected {n:?} in:\n{text}");
    }
    f
}

fn line_of(needle: &str) -> u32 {
    let src = include_str!("sanitizer.rs");
    let i = src.lines().position(|l| l.contains(needle) && !l.contains("line_of")).expect("marker");
    i as u32 + 1
}

// 1. DataCopy in, then compute, with no EnQue/DeQue in between (missing MTE2 -> V).
fn copy_then_compute(fixed: bool, x: GmAddr, z: GmAddr) {
    let (x_gm, z_gm) = (bind(&x, 0, N), bind(&z, 0, N));
    let mut pipe = TPipe::new();
    let mut q_in = TQue::<VecIn, 1>::new();
    let mut q_out = TQue::<VecOut, 1>::new();
    pipe.init_buffer(&mut q_in, 1, N * 4);
    pipe.init_buffer(&mut q_out, 1, N * 4);
    let mut x_local = q_in.alloc_tensor::<f32>();
    data_copy(&x_local, &x_gm, N);
    if fixed {
        q_in.enque(x_local);
        x_local = q_in.deque::<f32>();
    }
    let z_local = q_out.alloc_tensor::<f32>();
    add(&z_local, &x_local, &x_local, N); // MARK-1
    q_out.enque(z_local);
    let z_local = q_out.deque::<f32>();
    data_copy(&z_gm, &z_local, N);
    q_out.free_tensor(z_local);
    q_in.free_tensor(x_local);
}

#[test]
fn missing_enque_deque_between_copy_in_and_compute() {
    let x = gm_f32(&[1.0; N]);
    let z = gm_f32(&[0.0; N]);
    let f = expect_fault(
        run(1, || copy_then_compute(false, x.addr(), z.addr())),
        &[
            "read-after-write race on core 0",
            "Add on pipe V reads UB bytes [0x0, 0x100)",
            "buffer 0 of a VECIN queue",
            "DataCopy on pipe MTE2",
            "SetFlag<HardEvent::MTE2_V> / WaitFlag<HardEvent::MTE2_V>",
            "EnQue/DeQue",
        ],
    );
    assert_eq!((f.api, f.line), ("Add", line_of("MARK-1")));
    run(1, || copy_then_compute(true, x.addr(), z.addr())).unwrap();
    assert_eq!(z.to_vec(), vec![2.0; N]);
}

// 2. Compute, then DataCopy out without the V -> MTE3 event; `sync` runs between the two.
fn compute_then_copy_out(value: f32, sync: impl Fn(), z: GmAddr) {
    let z_gm = bind(&z, 0, N);
    let mut pipe = TPipe::new();
    let mut buf = TBuf::<VecOut>::new();
    pipe.init_tbuf(&mut buf, N * 4);
    let t = buf.get::<f32>();
    duplicate(&t, value, N);
    sync();
    data_copy(&z_gm, &t, N); // MARK-2
}

#[test]
fn missing_v_mte3_before_copy_out() {
    let z = gm_f32(&[0.0; N]);
    let f = expect_fault(
        run(1, || compute_then_copy_out(3.0, || {}, z.addr())),
        &[
            "read-after-write",
            "DataCopy on pipe MTE3 reads",
            "Duplicate on pipe V",
            "HardEvent::V_MTE3",
            "VECOUT queue",
        ],
    );
    assert_eq!(f.line, line_of("MARK-2"));
    let v_mte3 = || {
        set_flag::<HardEvent::V_MTE3>(0);
        wait_flag::<HardEvent::V_MTE3>(0);
    };
    run(1, || compute_then_copy_out(3.0, v_mte3, z.addr())).unwrap();
    assert_eq!(z.to_vec(), vec![3.0; N]);
}

// 2b. The cube pipes issue no instruction here, but events still relay through them: V → M,
//     M → FIX, FIX → MTE3 orders the copy-out after the vector write; the chain with its
//     middle link missing does not.
fn relay_through_cube_pipes(complete: bool) {
    set_flag::<HardEvent::V_M>(0);
    wait_flag::<HardEvent::V_M>(0);
    if complete {
        set_flag::<HardEvent::M_FIX>(0);
        wait_flag::<HardEvent::M_FIX>(0);
    }
    set_flag::<HardEvent::FIX_MTE3>(0);
    wait_flag::<HardEvent::FIX_MTE3>(0);
}

#[test]
fn events_relay_through_the_cube_pipes() {
    let z = gm_f32(&[0.0; N]);
    let f = expect_fault(
        run(1, || compute_then_copy_out(5.0, || relay_through_cube_pipes(false), z.addr())),
        &["read-after-write", "DataCopy on pipe MTE3 reads", "Duplicate on pipe V"],
    );
    assert_eq!(f.line, line_of("MARK-2"));
    run(1, || compute_then_copy_out(5.0, || relay_through_cube_pipes(true), z.addr())).unwrap();
    assert_eq!(z.to_vec(), vec![5.0; N]);
}

// 3. The next DataCopy into an input buffer while the vector pipe still reads it (missing
//    V -> MTE2), with a hand-synchronised single-buffered loop.
fn reuse_input_buffer(fixed: bool, x: GmAddr, z: GmAddr) {
    let (x_gm, z_gm) = (bind(&x, 0, 2 * N), bind(&z, 0, 2 * N));
    let mut pipe = TPipe::new();
    let (mut bx, mut bz) = (TBuf::<VecIn>::new(), TBuf::<VecOut>::new());
    pipe.init_tbuf(&mut bx, N * 4);
    pipe.init_tbuf(&mut bz, N * 4);
    let (xl, zl) = (bx.get::<f32>(), bz.get::<f32>());
    for i in 0..2 {
        data_copy(&xl, &x_gm.view(i * N), N); // MARK-3
        set_flag::<HardEvent::MTE2_V>(0);
        wait_flag::<HardEvent::MTE2_V>(0);
        add(&zl, &xl, &xl, N);
        set_flag::<HardEvent::V_MTE3>(0);
        wait_flag::<HardEvent::V_MTE3>(0);
        data_copy(&z_gm.view(i * N), &zl, N);
        if fixed {
            set_flag::<HardEvent::V_MTE2>(0);
            wait_flag::<HardEvent::V_MTE2>(0);
            set_flag::<HardEvent::MTE3_V>(0);
            wait_flag::<HardEvent::MTE3_V>(0);
        }
    }
}

#[test]
fn missing_v_mte2_before_reusing_an_input_buffer() {
    let x = gm_f32(&(0..2 * N).map(|i| i as f32).collect::<Vec<_>>());
    let z = gm_f32(&[0.0; 2 * N]);
    let f = expect_fault(
        run(1, || reuse_input_buffer(false, x.addr(), z.addr())),
        &[
            "write-after-read",
            "DataCopy on pipe MTE2 writes",
            "Add on pipe V",
            "still reads",
            "HardEvent::V_MTE2",
        ],
    );
    assert_eq!(f.line, line_of("MARK-3"));
    run(1, || reuse_input_buffer(true, x.addr(), z.addr())).unwrap();
    assert_eq!(z.to_vec(), (0..2 * N).map(|i| 2.0 * i as f32).collect::<Vec<_>>());
}

// 4. A scalar GetValue of a tile the vector pipe just wrote (missing V -> S), in a kernel
// built without the compiler's automatic synchronisation (with it, the compiler inserts the
// V_S event: the kernel is correct as written).
fn scalar_read_after_vector(fixed: bool, z: GmAddr) {
    let z_gm = bind(&z, 0, N);
    let mut pipe = TPipe::new();
    let mut buf = TBuf::<VecCalc>::new();
    pipe.init_tbuf(&mut buf, N * 4);
    let t = buf.get::<f32>();
    duplicate(&t, 5.0, N);
    if fixed {
        set_flag::<HardEvent::V_S>(0);
        wait_flag::<HardEvent::V_S>(0);
    }
    let v = t.get_value(3); // MARK-4
    z_gm.set_value(0, v);
}

#[test]
fn missing_v_s_before_get_value() {
    let z = gm_f32(&[0.0; N]);
    let f = expect_fault(
        run_manual(1, || scalar_read_after_vector(false, z.addr())),
        &[
            "LocalTensor::GetValue on pipe S reads UB bytes [0xc, 0x10)",
            "Duplicate on pipe V",
            "HardEvent::V_S",
        ],
    );
    assert_eq!(f.line, line_of("MARK-4"));
    run_manual(1, || scalar_read_after_vector(true, z.addr())).unwrap();
    // Built with the compiler's automatic synchronisation, the unfixed kernel is correct.
    run(1, || scalar_read_after_vector(false, z.addr())).unwrap();
    assert_eq!(z.to_vec()[0], 5.0);
}

// 5. A SetFlag that is never waited for.
fn set_without_wait(fixed: bool) {
    let _pipe = TPipe::new();
    set_flag::<HardEvent::MTE2_V>(1); // MARK-5
    if fixed {
        wait_flag::<HardEvent::MTE2_V>(1);
    }
}

#[test]
fn set_flag_without_wait_flag() {
    let f = expect_fault(
        run(1, || set_without_wait(false)),
        &["SetFlag<HardEvent::MTE2_V>(1) is never waited for"],
    );
    assert_eq!(f.line, line_of("MARK-5"));
    run(1, || set_without_wait(true)).unwrap();
}

// 6. A cloned tensor handle used after FreeTensor.
fn use_after_free(fixed: bool) {
    let mut pipe = TPipe::new();
    let mut q = TQue::<VecCalc, 1>::new();
    pipe.init_buffer(&mut q, 1, N * 4);
    let t = q.alloc_tensor::<f32>();
    let keep = t.clone();
    if fixed {
        duplicate(&keep, 1.0, N);
    }
    q.free_tensor(t); // MARK-6
    if !fixed {
        duplicate(&keep, 1.0, N);
    }
}

#[test]
fn cloned_handle_used_after_free_tensor() {
    let f = expect_fault(
        run(1, || use_after_free(false)),
        &[
            "use after FreeTensor",
            "buffer 0 of a VECCALC queue",
            &format!("freed at tests/sanitizer.rs:{}", line_of("MARK-6")),
        ],
    );
    assert_eq!(f.api, "Duplicate");
    run(1, || use_after_free(true)).unwrap();
}

#[test]
fn stale_handle_after_the_buffer_is_allocated_again() {
    let r = run(1, || {
        let mut pipe = TPipe::new();
        let mut q = TQue::<VecCalc, 1>::new();
        pipe.init_buffer(&mut q, 1, N * 4);
        let t = q.alloc_tensor::<f32>();
        let keep = t.clone();
        q.free_tensor(t);
        let again = q.alloc_tensor::<f32>();
        duplicate(&keep, 1.0, N);
        q.free_tensor(again);
    });
    expect_fault(r, &["stale tensor handle", "handed out again by AllocTensor"]);
}

#[test]
fn kernel_ending_with_a_tensor_allocated_or_queued() {
    let r = run(1, || {
        let mut pipe = TPipe::new();
        let mut q = TQue::<VecIn, 1>::new();
        pipe.init_buffer(&mut q, 1, N * 4);
        let t = q.alloc_tensor::<f32>();
        q.enque(t);
    });
    expect_fault(r, &["the kernel ended with buffer 0 of a VECIN queue", "still queued"]);
}

// 7. A 48-core sum that forgets SyncAll before core 0 reads the partial sums.
const CORES: u32 = 48;

fn sum_kernel(fixed: bool, x: GmAddr, partial: GmAddr, out: GmAddr) {
    let i = get_block_idx() as usize;
    let x_gm = bind(&x, i * 8, 8);
    let p_gm = bind(&partial, i * 8, 8);
    let mut pipe = TPipe::new();
    let mut q = TQue::<VecIn, 1>::new();
    let mut qo = TQue::<VecOut, 1>::new();
    pipe.init_buffer(&mut q, 1, 32);
    pipe.init_buffer(&mut qo, 1, 32);
    let t = q.alloc_tensor::<f32>();
    data_copy(&t, &x_gm, 8);
    q.enque(t);
    let t = q.deque::<f32>();
    let s = qo.alloc_tensor::<f32>();
    add(&s, &t, &t, 8); // the partial "sum": 2 x, one block per core
    qo.enque(s);
    q.free_tensor(t);
    let s = qo.deque::<f32>();
    data_copy(&p_gm, &s, 8);
    qo.free_tensor(s);
    if fixed {
        sync_all();
    }
    if i == 0 {
        let all = bind(&partial, 0, 8 * CORES as usize);
        let total: f32 = (0..CORES as usize).map(|c| all.get_value(c * 8)).sum(); // MARK-7
        bind(&out, 0, 1).set_value(0, total);
    }
}

#[test]
fn reduce_across_cores_without_sync_all() {
    let x = gm_f32(&(0..8 * CORES as usize).map(|i| (i / 8) as f32).collect::<Vec<_>>());
    let partial = gm_f32(&vec![0.0; 8 * CORES as usize]);
    let out = gm_f32(&[0.0]);
    let f = expect_fault(
        run(CORES, || sum_kernel(false, x.addr(), partial.addr(), out.addr())),
        &[
            "cross-core race on global memory",
            "core 0 reads bytes",
            "GlobalTensor::GetValue",
            "writes bytes",
            "DataCopy",
            "before any SyncAll",
            "SyncAll",
        ],
    );
    assert!(f.to_string().contains(&format!("sanitizer.rs:{}", line_of("MARK-7"))), "{f}");
    run(CORES, || sum_kernel(true, x.addr(), partial.addr(), out.addr())).unwrap();
    let expect: f32 = (0..CORES).map(|c| 2.0 * c as f32).sum();
    assert_eq!(out.to_vec()[0], expect);
}

// 8/9. Cores writing overlapping GM: the same elements, or only the same 32-byte block.
fn write_slices(per_core: usize, stride: usize, z: GmAddr) {
    let i = get_block_idx() as usize;
    let z_gm = bind(&z, i * stride, per_core);
    let mut pipe = TPipe::new();
    let mut q = TQue::<VecOut, 1>::new();
    pipe.init_buffer(&mut q, 1, per_core * 4);
    let t = q.alloc_tensor::<f32>();
    duplicate(&t, i as f32 + 1.0, per_core.div_ceil(8) * 8);
    q.enque(t);
    let t = q.deque::<f32>();
    data_copy_pad_to_gm(&z_gm, &t, &DataCopyExtParams::new(1, (per_core * 4) as u32, 0, 0)); // MARK-8
    q.free_tensor(t);
}

#[test]
fn two_cores_writing_overlapping_gm() {
    let z = gm_f32(&[0.0; 64]);
    expect_fault(
        run(2, || write_slices(16, 8, z.addr())),
        &[
            "cross-core race",
            "core 0 writes bytes [0x0, 0x40)",
            "core 1 writes bytes [0x20, 0x60)",
            "DataCopyPad",
        ],
    );
    run(2, || write_slices(16, 16, z.addr())).unwrap();
}

/// Core `i` writes 8 floats (one whole block, by `DataCopy`) at float `4 + 8 * i`: its bytes
/// are its own, but the blocks they touch are shared with the other core's.
fn write_blocks(z: GmAddr) {
    let i = get_block_idx() as usize;
    let z_gm = bind(&z, 4 + 8 * i, 8);
    let mut pipe = TPipe::new();
    let mut q = TQue::<VecOut, 1>::new();
    pipe.init_buffer(&mut q, 1, 32);
    let t = q.alloc_tensor::<f32>();
    duplicate(&t, i as f32 + 1.0, 8);
    q.enque(t);
    let t = q.deque::<f32>();
    data_copy(&z_gm, &t, 8); // MARK-8B
    q.free_tensor(t);
}

#[test]
fn two_cores_sharing_a_32_byte_block_at_their_boundary() {
    let z = gm_f32(&[0.0; 64]);
    // 12 floats = 48 bytes per core by DataCopyPad: core 0 writes [0, 48), core 1 [48, 96).
    // DataCopyPad writes exactly blockLen bytes (its page: the dummy bytes are not written), so
    // neighbouring per-core rows in one 32-byte block are no race (issue 32, item 2).
    run(2, || write_slices(12, 12, z.addr())).unwrap();
    let v = z.to_vec();
    assert!(v[..12].iter().all(|x| *x == 1.0) && v[12..24].iter().all(|x| *x == 2.0), "{v:?}");
    // A real overlap by DataCopyPad still races.
    expect_fault(
        run(2, || write_slices(12, 8, z.addr())),
        &[
            "cross-core race",
            "core 0 writes bytes [0x0, 0x30)",
            "core 1 writes bytes [0x20, 0x50)",
            "DataCopyPad",
        ],
    );
    // DataCopy keeps its whole 32-byte blocks: [16, 48) and [48, 80) share block [32, 64).
    let f = expect_fault(
        run(2, || write_blocks(z.addr())),
        &[
            "core 0 writes bytes [0x10, 0x30)",
            "core 1 writes bytes [0x30, 0x50)",
            "DataCopy writes whole 32-byte blocks, and they share one",
        ],
    );
    assert_eq!(f.line, line_of("MARK-8B"));
    run(2, || write_slices(16, 16, z.addr())).unwrap();
}

// 10. A core reading GM that another core writes before SyncAll.
fn read_before_sync(fixed: bool, z: GmAddr, out: GmAddr) {
    let i = get_block_idx();
    let z_gm = bind(&z, 0, 8);
    if i == 1 {
        z_gm.set_value(0, 42.0);
    }
    if fixed {
        sync_all();
    }
    if i == 0 {
        let v = z_gm.get_value(0);
        bind(&out, 0, 1).set_value(0, v);
    }
}

#[test]
fn core_reading_what_another_core_writes_before_sync_all() {
    let z = gm_f32(&[0.0; 8]);
    let out = gm_f32(&[0.0]);
    expect_fault(
        run(2, || read_before_sync(false, z.addr(), out.addr())),
        &["core 0 reads bytes [0x0, 0x4)", "core 1 writes bytes [0x0, 0x4)", "GlobalTensor::SetValue"],
    );
    run(2, || read_before_sync(true, z.addr(), out.addr())).unwrap();
    assert_eq!(out.to_vec()[0], 42.0);
}

#[test]
fn event_misuse() {
    let r = run(1, || wait_flag::<HardEvent::V_MTE3>(2));
    expect_fault(r, &["WaitFlag", "HardEvent::V_MTE3 id 2 was never set"]);
    let r = run(1, || {
        set_flag::<HardEvent::S_V>(0);
        set_flag::<HardEvent::S_V>(0);
    });
    expect_fault(r, &["HardEvent::S_V id 0 is set twice"]);
    let r = run(1, || set_flag::<HardEvent::S_V>(8));
    expect_fault(r, &["eventID = 8 of HardEvent::S_V is out of range [0, 8) on Ascend910B"]);
    let r = Launch::new(Soc::Ascend910).run(|| set_flag::<HardEvent::S_V>(4));
    expect_fault(r, &["out of range [0, 4) on Ascend910"]);
    let r = run(1, || {
        let mut pipe = TPipe::new();
        for _ in 0..9 {
            pipe.alloc_event_id::<HardEvent::MTE3_MTE2>();
        }
    });
    expect_fault(r, &["TPipe::AllocEventID", "all 8 ids of HardEvent::MTE3_MTE2 are allocated"]);
}

#[test]
fn sanitize_false_turns_the_checks_off() {
    let x = gm_f32(&[1.0; N]);
    let z = gm_f32(&[0.0; N]);
    Launch::new(Soc::Ascend910B)
        .sanitize(false)
        .run(|| copy_then_compute(false, x.addr(), z.addr()))
        .unwrap();
}

#[test]
fn outside_a_launch_the_sanitizer_is_off() {
    // unit-test style: instructions straight on the thread's default core
    let mut pipe = TPipe::new();
    let mut buf = TBuf::<VecCalc>::new();
    pipe.init_tbuf(&mut buf, N * 4);
    let t = buf.get::<f32>();
    t.copy_from_slice(&[2.0; N]);
    sub(&t, &t, &t, N);
    assert_eq!(t.get_value(0), 0.0);
}

// 13. A Cast result (a two-type instruction) read by GetValue (missing V -> S, without the
// compiler's automatic synchronisation).
fn cast_then_get_value(fixed: bool, z: GmAddr) {
    let z_gm = bind(&z, 0, N);
    let mut pipe = TPipe::new();
    let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
    pipe.init_tbuf(&mut a, N * 4);
    pipe.init_tbuf(&mut b, N * 4);
    let (h, f) = (a.get::<f16>(), b.get::<f32>());
    duplicate(&h, f16::from_f32(1.5), N);
    pipe_barrier::<PIPE_V>(); // Cast reads what Duplicate wrote (see catalogue entry 19)
    cast(&f, &h, RoundMode::CastNone, N);
    if fixed {
        set_flag::<HardEvent::V_S>(0);
        wait_flag::<HardEvent::V_S>(0);
    }
    let v = f.get_value(3); // MARK-13
    z_gm.set_value(0, v);
}

#[test]
fn missing_v_s_before_reading_a_cast_result() {
    let z = gm_f32(&[0.0; N]);
    let f = expect_fault(
        run_manual(1, || cast_then_get_value(false, z.addr())),
        &[
            "read-after-write race on core 0",
            "LocalTensor::GetValue on pipe S reads UB bytes [0x10c, 0x110)",
            "Cast on pipe V",
            "SetFlag<HardEvent::V_S> / WaitFlag<HardEvent::V_S>",
        ],
    );
    assert_eq!(f.line, line_of("MARK-13"));
    run_manual(1, || cast_then_get_value(true, z.addr())).unwrap();
    // Built with the compiler's automatic synchronisation, the unfixed kernel is correct.
    run(1, || cast_then_get_value(false, z.addr())).unwrap();
    assert_eq!(z.to_vec()[0], 1.5);
}

// 14. Compare's bit output copied out to GM (missing V -> MTE3).
fn compare_then_copy_out(fixed: bool, x: GmAddr, bits: GmAddr) {
    let x_gm = bind(&x, 0, N);
    let mut bits_gm = GlobalTensor::<u8>::new();
    bits_gm.set_global_buffer(bits, 32);
    let mut pipe = TPipe::new();
    let (mut bx, mut bm) = (TBuf::<VecIn>::new(), TBuf::<VecOut>::new());
    pipe.init_tbuf(&mut bx, N * 4);
    pipe.init_tbuf(&mut bm, 32);
    let (t, m) = (bx.get::<f32>(), bm.get::<u8>());
    data_copy(&t, &x_gm, N);
    set_flag::<HardEvent::MTE2_V>(0);
    wait_flag::<HardEvent::MTE2_V>(0);
    compare(&m, &t, &t, CMPMODE::EQ, N);
    if fixed {
        set_flag::<HardEvent::V_MTE3>(0);
        wait_flag::<HardEvent::V_MTE3>(0);
    }
    data_copy(&bits_gm, &m, 32); // MARK-14
}

#[test]
fn missing_v_mte3_before_copying_out_compare_bits() {
    let x = gm_f32(&[2.0; N]);
    let bits = GmBuffer::<u8>::zeroed(32);
    let f = expect_fault(
        run(1, || compare_then_copy_out(false, x.addr(), bits.addr())),
        &[
            "read-after-write race on core 0",
            "DataCopy on pipe MTE3 reads UB bytes [0x100, 0x108)",
            "Compare on pipe V",
            "SetFlag<HardEvent::V_MTE3> / WaitFlag<HardEvent::V_MTE3>",
        ],
    );
    assert_eq!(f.line, line_of("MARK-14"));
    run(1, || compare_then_copy_out(true, x.addr(), bits.addr())).unwrap();
    assert_eq!(bits.to_vec()[..N / 8], [0xff; N / 8]);
}

// 15. A reduction's result (written outside the engine's operands) read by GetValue (missing
// V -> S, without the compiler's automatic synchronisation).
fn reduce_then_get_value(fixed: bool, x: GmAddr, z: GmAddr) {
    let (x_gm, z_gm) = (bind(&x, 0, N), bind(&z, 0, N));
    let mut pipe = TPipe::new();
    let (mut bx, mut bd, mut bw) = (TBuf::<VecIn>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
    pipe.init_tbuf(&mut bx, N * 4);
    pipe.init_tbuf(&mut bd, 32);
    pipe.init_tbuf(&mut bw, N * 4);
    let (t, d, w) = (bx.get::<f32>(), bd.get::<f32>(), bw.get::<f32>());
    data_copy(&t, &x_gm, N);
    set_flag::<HardEvent::MTE2_V>(0);
    wait_flag::<HardEvent::MTE2_V>(0);
    reduce_sum(&d, &t, &w, N as i32);
    if fixed {
        set_flag::<HardEvent::V_S>(0);
        wait_flag::<HardEvent::V_S>(0);
    }
    let v = d.get_value(0); // MARK-15
    z_gm.set_value(0, v);
}

#[test]
fn missing_v_s_before_reading_a_reduction_result() {
    let x = gm_f32(&[0.5; N]);
    let z = gm_f32(&[0.0; N]);
    let f = expect_fault(
        run_manual(1, || reduce_then_get_value(false, x.addr(), z.addr())),
        &[
            "read-after-write race on core 0",
            "LocalTensor::GetValue on pipe S reads UB bytes [0x100, 0x104)",
            "ReduceSum on pipe V",
            "SetFlag<HardEvent::V_S> / WaitFlag<HardEvent::V_S>",
        ],
    );
    assert_eq!(f.line, line_of("MARK-15"));
    run_manual(1, || reduce_then_get_value(true, x.addr(), z.addr())).unwrap();
    // Built with the compiler's automatic synchronisation, the unfixed kernel is correct.
    run(1, || reduce_then_get_value(false, x.addr(), z.addr())).unwrap();
    assert_eq!(z.to_vec()[0], 32.0);
}

// 16. A GM workspace written by MTE3 and read back by MTE2 on the same core (missing
// MTE3 -> MTE2): the two DMA pipes run independently on the chip.
fn workspace_round_trip(fix: u8, x: GmAddr, ws: GmAddr, z: GmAddr) {
    let (x_gm, ws_gm, z_gm) = (bind(&x, 0, N), bind(&ws, 0, N), bind(&z, 0, N));
    let mut pipe = TPipe::new();
    let (a, b) = load_pair(&mut pipe, &x_gm);
    muls(&a, &a, 2.0, N);
    set_flag::<HardEvent::V_MTE3>(0);
    wait_flag::<HardEvent::V_MTE3>(0);
    data_copy(&ws_gm, &a, N); // MARK-16W
    match fix {
        1 => {
            set_flag::<HardEvent::MTE3_MTE2>(0);
            wait_flag::<HardEvent::MTE3_MTE2>(0);
        }
        2 => pipe_barrier::<PIPE_ALL>(),
        _ => {}
    }
    data_copy(&b, &ws_gm, N); // MARK-16R
    set_flag::<HardEvent::MTE2_MTE3>(0);
    wait_flag::<HardEvent::MTE2_MTE3>(0);
    data_copy(&z_gm, &b, N);
}

#[test]
fn missing_mte3_mte2_before_reading_back_a_workspace() {
    let x = gm_f32(&[1.5; N]);
    let (ws, z) = (gm_f32(&[0.0; N]), gm_f32(&[0.0; N]));
    let f = expect_fault(
        run(1, || workspace_round_trip(0, x.addr(), ws.addr(), z.addr())),
        &[
            "read-after-write race on global memory on core 0",
            "DataCopy on pipe MTE2 reads bytes [0x0, 0x100)",
            &format!("that DataCopy on pipe MTE3 (at tests/sanitizer.rs:{})", line_of("MARK-16W")),
            "SetFlag<HardEvent::MTE3_MTE2> / WaitFlag<HardEvent::MTE3_MTE2> or PipeBarrier<PIPE_ALL>",
        ],
    );
    assert_eq!((f.api, f.line), ("DataCopy", line_of("MARK-16R")));
    for fix in [1, 2] {
        z.write_from(&[0.0; N]);
        run(1, || workspace_round_trip(fix, x.addr(), ws.addr(), z.addr())).unwrap();
        assert_eq!(z.to_vec(), vec![3.0; N]);
    }
}

// 17. Two copies into overlapping UB bytes with nothing between them (missing
// PipeBarrier<PIPE_MTE2>): MTE2 starts its copies in order but may finish them in any order,
// so the patch may land before the tile it patches. That matters once the bytes are read (here
// by the copy out), and the error names the read; it is raised at the second copy, where the
// barrier belongs. Unordered copies into a tile nobody reads (the vendor's DataCopy bandwidth
// sample reloads one tile this way) are no error.
fn overlapping_copies_in(fixed: bool, x: GmAddr, y: GmAddr, z: GmAddr) {
    let (x_gm, y_gm, z_gm) = (bind(&x, 0, N), bind(&y, 0, 8), bind(&z, 0, N));
    let mut pipe = TPipe::new();
    let mut b = TBuf::<VecCalc>::new();
    pipe.init_tbuf(&mut b, N * 4);
    let t = b.get::<f32>();
    data_copy(&t, &x_gm, N);
    if fixed {
        pipe_barrier::<PIPE_MTE2>();
    }
    data_copy(&t, &y_gm, 8); // MARK-17
    set_flag::<HardEvent::MTE2_MTE3>(0);
    wait_flag::<HardEvent::MTE2_MTE3>(0);
    data_copy(&z_gm, &t, N);
}

#[test]
fn missing_pipe_barrier_between_overlapping_copies_in() {
    let x = gm_f32(&(0..N).map(|i| i as f32).collect::<Vec<_>>());
    let (y, z) = (gm_f32(&[-1.0; 8]), gm_f32(&[0.0; N]));
    let f = expect_fault(
        run(1, || overlapping_copies_in(false, x.addr(), y.addr(), z.addr())),
        &[
            "write-after-write race on core 0",
            "DataCopy on pipe MTE2 writes UB bytes [0x0, 0x20)",
            "that DataCopy on pipe MTE2",
            "also wrote, and nothing orders the two",
            "DataCopy on pipe MTE3",
            "reads them; add PipeBarrier<PIPE_MTE2>() between the two writes",
        ],
    );
    assert_eq!(f.line, line_of("MARK-17"));
    run(1, || overlapping_copies_in(true, x.addr(), y.addr(), z.addr())).unwrap();
    let want: Vec<f32> = (0..N).map(|i| if i < 8 { -1.0 } else { i as f32 }).collect();
    assert_eq!(z.to_vec(), want);
    // Reloading one tile again and again with nothing reading it: no error; a later copy
    // ordered after the last one (here by the barrier) settles the bytes before they are read.
    let (xa, za) = (x.addr(), z.addr());
    run(1, || {
        let (x_gm, z_gm) = (bind(&xa, 0, N), bind(&za, 0, N));
        let t = LocalTensor::<f32>::new(TPosition::VECIN, 0, N);
        for _ in 0..4 {
            data_copy(&t, &x_gm, N);
        }
        pipe_barrier::<PIPE_MTE2>();
        data_copy(&t, &x_gm, N);
        set_flag::<HardEvent::MTE2_MTE3>(0);
        wait_flag::<HardEvent::MTE2_MTE3>(0);
        data_copy(&z_gm, &t, N);
    })
    .unwrap();
}

// 18. Two copies out to overlapping GM with nothing between them (missing
// PipeBarrier<PIPE_MTE3>): either value may land in the shared bytes. Two accumulations under
// SetAtomicAdd land in either order with one sum, so they need no barrier; an atomic and a
// plain copy still do.
#[derive(Clone, Copy, PartialEq)]
enum CopiesOut {
    Racy,
    Barrier,
    BothAtomic,
    AtomicThenPlain,
}

fn overlapping_copies_out(mode: CopiesOut, x: GmAddr, z: GmAddr) {
    let (x_gm, z_gm) = (bind(&x, 0, N), bind(&z, 0, N));
    let mut pipe = TPipe::new();
    let (a, b) = load_pair(&mut pipe, &x_gm);
    muls(&b, &a, 2.0, N);
    set_flag::<HardEvent::V_MTE3>(0);
    wait_flag::<HardEvent::V_MTE3>(0);
    if matches!(mode, CopiesOut::BothAtomic | CopiesOut::AtomicThenPlain) {
        set_atomic_add::<f32>();
    }
    data_copy(&z_gm, &a, N);
    match mode {
        CopiesOut::Barrier => pipe_barrier::<PIPE_MTE3>(),
        CopiesOut::AtomicThenPlain => set_atomic_none(),
        _ => {}
    }
    data_copy(&z_gm.view(N - 8), &b.view(N - 8), 8); // MARK-18
    set_atomic_none();
}

#[test]
fn missing_pipe_barrier_between_overlapping_copies_out() {
    let x = gm_f32(&(0..N).map(|i| i as f32).collect::<Vec<_>>());
    let z = gm_f32(&[0.0; N]);
    for mode in [CopiesOut::Racy, CopiesOut::AtomicThenPlain] {
        let f = expect_fault(
            run(1, || overlapping_copies_out(mode, x.addr(), z.addr())),
            &[
                "write-after-write race on global memory on core 0",
                "DataCopy on pipe MTE3 writes bytes [0xe0, 0x100)",
                "that DataCopy on pipe MTE3",
                "add PipeBarrier<PIPE_MTE3>() between them",
            ],
        );
        assert_eq!(f.line, line_of("MARK-18"));
    }
    z.write_from(&[0.0; N]);
    run(1, || overlapping_copies_out(CopiesOut::Barrier, x.addr(), z.addr())).unwrap();
    let want: Vec<f32> = (0..N).map(|i| if i < N - 8 { i as f32 } else { 2.0 * i as f32 }).collect();
    assert_eq!(z.to_vec(), want);
    z.write_from(&[1.0; N]);
    run(1, || overlapping_copies_out(CopiesOut::BothAtomic, x.addr(), z.addr())).unwrap();
    let want: Vec<f32> = (0..N).map(|i| 1.0 + if i < N - 8 { i as f32 } else { 3.0 * i as f32 }).collect();
    assert_eq!(z.to_vec(), want);
}

// 19. A vector instruction reading what the previous one wrote, in a kernel built without the
// compiler's automatic synchronisation (missing PipeBarrier<PIPE_V>; with it, the compiler
// inserts the barrier).
fn dependent_vector_instructions(fixed: bool, x: GmAddr, z: GmAddr) {
    let (x_gm, z_gm) = (bind(&x, 0, N), bind(&z, 0, N));
    let mut pipe = TPipe::new();
    let (a, b) = load_pair(&mut pipe, &x_gm);
    add(&b, &a, &a, N);
    if fixed {
        pipe_barrier::<PIPE_V>();
    }
    muls(&a, &b, 3.0, N); // MARK-19
    set_flag::<HardEvent::V_MTE3>(0);
    wait_flag::<HardEvent::V_MTE3>(0);
    data_copy(&z_gm, &a, N);
}

#[test]
fn missing_pipe_barrier_between_dependent_vector_instructions() {
    let x = gm_f32(&(0..N).map(|i| i as f32).collect::<Vec<_>>());
    let z = gm_f32(&[0.0; N]);
    let f = expect_fault(
        run_manual(1, || dependent_vector_instructions(false, x.addr(), z.addr())),
        &[
            "read-after-write race on core 0",
            "Muls on pipe V reads UB bytes [0x100, 0x200)",
            "that Add on pipe V",
            "add PipeBarrier<PIPE_V>() between them (the compiler's automatic synchronisation inserts it",
        ],
    );
    assert_eq!(f.line, line_of("MARK-19"));
    let want: Vec<f32> = (0..N).map(|i| 6.0 * i as f32).collect();
    run_manual(1, || dependent_vector_instructions(true, x.addr(), z.addr())).unwrap();
    assert_eq!(z.to_vec(), want);
    z.write_from(&[0.0; N]);
    run(1, || dependent_vector_instructions(false, x.addr(), z.addr())).unwrap();
    assert_eq!(z.to_vec(), want);
}

// 20. A wait on the scalar pipe holds the scalar unit, which issues every instruction: what it
// waited for is ordered before everything issued after it, on every pipe. Here the vector
// pipe reads the copied tile with no MTE2_V event of its own: correct, since the scalar unit
// waited for MTE2 before issuing `Adds`. Without the MTE2_S wait the scalar read races (the
// compiler's automatic synchronisation inserts that wait, which then orders `Adds` too).
fn scalar_wait_then_vector(wait: bool, x: GmAddr, z: GmAddr) {
    let (x_gm, z_gm) = (bind(&x, 0, N), bind(&z, 0, N));
    let mut pipe = TPipe::new();
    let (mut ba, mut bb) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
    pipe.init_tbuf(&mut ba, N * 4);
    pipe.init_tbuf(&mut bb, N * 4);
    let (a, b) = (ba.get::<f32>(), bb.get::<f32>());
    data_copy(&a, &x_gm, N);
    if wait {
        set_flag::<HardEvent::MTE2_S>(0);
        wait_flag::<HardEvent::MTE2_S>(0);
    }
    let first = a.get_value(0); // MARK-20
    adds(&b, &a, first, N);
    set_flag::<HardEvent::V_MTE3>(0);
    wait_flag::<HardEvent::V_MTE3>(0);
    data_copy(&z_gm, &b, N);
}

#[test]
fn a_wait_on_the_scalar_pipe_orders_every_later_instruction() {
    let x = gm_f32(&(0..N).map(|i| i as f32 + 4.0).collect::<Vec<_>>());
    let z = gm_f32(&[0.0; N]);
    let want: Vec<f32> = (0..N).map(|i| i as f32 + 8.0).collect();
    for manual in [false, true] {
        z.write_from(&[0.0; N]);
        let r = if manual {
            run_manual(1, || scalar_wait_then_vector(true, x.addr(), z.addr()))
        } else {
            run(1, || scalar_wait_then_vector(true, x.addr(), z.addr()))
        };
        r.unwrap();
        assert_eq!(z.to_vec(), want);
    }
    let f = expect_fault(
        run_manual(1, || scalar_wait_then_vector(false, x.addr(), z.addr())),
        &["read-after-write race on core 0", "LocalTensor::GetValue on pipe S", "HardEvent::MTE2_S"],
    );
    assert_eq!(f.line, line_of("MARK-20"));
    z.write_from(&[0.0; N]);
    run(1, || scalar_wait_then_vector(false, x.addr(), z.addr())).unwrap();
    assert_eq!(z.to_vec(), want);
}

// 21. A core reading GM another core writes, ordered by a flag instead of SyncAll: without
// the IBSet/IBWait pair it is a race; with it the reader's copy happens after the writer's.
// Only what the flag orders is ordered: a write of the setter after its IBSet still races
// with the waiter's read.
fn hand_over(sync: u8, z: GmAddr, out: GmAddr, flags: GmAddr) {
    let i = get_block_idx();
    let z_gm = bind(&z, 0, 8);
    let mut flag_gm = GlobalTensor::<i32>::new();
    flag_gm.set_global_buffer(flags, 16);
    let ub = LocalTensor::<i32>::new(TPosition::VECCALC, 0, 8);
    if i == 0 {
        if sync == 2 {
            ib_set(&flag_gm, &ub, 1, 0);
        }
        z_gm.set_value(0, 42.0);
        if sync == 1 {
            ib_set(&flag_gm, &ub, 1, 0);
        }
    } else {
        if sync != 0 {
            ib_wait(&flag_gm, &ub, 1, 0);
        }
        let v = z_gm.get_value(0); // MARK-21
        bind(&out, 0, 1).set_value(0, v);
    }
}

#[test]
fn a_core_reading_what_another_core_writes_before_its_ib_set() {
    let z = gm_f32(&[0.0; 8]);
    let out = gm_f32(&[0.0]);
    let flags = GmBuffer::<i32>::zeroed(16);
    for sync in [0, 2] {
        let f = expect_fault(
            run(2, || hand_over(sync, z.addr(), out.addr(), flags.addr())),
            &["core 1 reads bytes [0x0, 0x4)", "core 0 writes bytes [0x0, 0x4)", "IBSet/IBWait"],
        );
        assert_eq!(f.line, line_of("MARK-21"));
    }
    flags.write_from(&[0; 16]);
    run(2, || hand_over(1, z.addr(), out.addr(), flags.addr())).unwrap();
    assert_eq!(out.to_vec()[0], 42.0);
    assert_eq!(flags.to_vec(), vec![0; 16]);
}

// 22. The deterministic-order primitives order each core after the lower ones: every core
// adds its tile into one GM range with plain (non-atomic) read-modify-writes, which is only
// correct because WaitPreBlock/NotifyNextBlock run the cores one after another.
fn chained_accumulate(ordered: bool, z: GmAddr, ws: GmAddr) {
    let i = get_block_idx();
    let z_gm = bind(&z, 0, 8);
    let ws_gm = {
        let mut g = GlobalTensor::<i32>::new();
        g.set_global_buffer(ws, 8 * get_block_num() as usize);
        g
    };
    let ub = LocalTensor::<i32>::new(TPosition::VECCALC, 0, 8 * get_block_num() as usize + 8);
    init_determine_compute_workspace(&ws_gm, &ub);
    if ordered {
        wait_pre_block(&ws_gm, &ub);
    }
    let v = z_gm.get_value(0);
    z_gm.set_value(0, v + (i + 1) as f32);
    if ordered {
        notify_next_block(&ws_gm, &ub);
    }
}

#[test]
fn accumulating_in_block_order_needs_wait_pre_block() {
    let z = gm_f32(&[0.0; 8]);
    let ws = GmBuffer::<i32>::zeroed(8 * 4);
    expect_fault(
        run(4, || chained_accumulate(false, z.addr(), ws.addr())),
        &["cross-core race", "GlobalTensor"],
    );
    z.write_from(&[0.0; 8]);
    run(4, || chained_accumulate(true, z.addr(), ws.addr())).unwrap();
    assert_eq!(z.to_vec()[0], 1.0 + 2.0 + 3.0 + 4.0);
}

// 23. A flag polled through the DCache-bypassing calls publishes what its writer did before
// its DataSyncBarrier: without the barrier the data write and the poller's read race.
fn publish_by_flag(fence: bool, data: GmAddr, flag: GmAddr, out: GmAddr) {
    let d = bind(&data, 0, 8);
    if get_block_idx() == 0 {
        d.set_value(0, 42.0);
        if fence {
            data_sync_barrier::<MemDsbT::DDR>();
        }
        write_gm_by_pass_dcache::<i32>(flag, 1);
    } else {
        while read_gm_by_pass_dcache::<i32>(flag) != 1 {}
        let v = d.get_value(0); // MARK-23
        bind(&out, 0, 1).set_value(0, v);
    }
}

#[test]
fn a_flag_write_publishes_only_what_precedes_a_data_sync_barrier() {
    let data = gm_f32(&[0.0; 8]);
    let out = gm_f32(&[0.0]);
    let flag = GmBuffer::<i32>::zeroed(8);
    let f = expect_fault(
        run(2, || publish_by_flag(false, data.addr(), flag.addr(), out.addr())),
        &["core 1 reads bytes [0x0, 0x4)", "core 0 writes bytes [0x0, 0x4)", "GlobalTensor::SetValue"],
    );
    assert_eq!(f.line, line_of("MARK-23"));
    flag.write_from(&[0; 8]);
    run(2, || publish_by_flag(true, data.addr(), flag.addr(), out.addr())).unwrap();
    assert_eq!(out.to_vec()[0], 42.0);
}

// 24. SetCmpMask is a vector instruction: after the vector instruction that writes its source
// it needs PipeBarrier<PIPE_V> (without the compiler's synchronisation), not a V→S event.
fn load_cmp_mask(barrier: bool) {
    let mask = LocalTensor::<u16>::new(TPosition::VECCALC, 0, 16);
    duplicate(&mask, 0x00ffu16, 16);
    if barrier {
        pipe_barrier::<PIPE_V>();
    }
    set_cmp_mask(&mask); // MARK-24
}

#[test]
fn set_cmp_mask_reads_on_the_vector_pipe() {
    let f = expect_fault(
        run_manual(1, || load_cmp_mask(false)),
        &["SetCmpMask on pipe V", "PipeBarrier<PIPE_V>"],
    );
    assert_eq!(f.line, line_of("MARK-24"));
    run_manual(1, || load_cmp_mask(true)).unwrap();
    run(1, || load_cmp_mask(false)).unwrap();
}

// 25. A flag raised with `SetValue` stays in the writer's data cache until
// `DataCacheCleanAndInvalid` cleans its line (then it publishes what pipe S was ordered after:
// here the data's `DataCopy`, through the MTE3_S event); the poller invalidates the line before
// each `GetValue`. Without the clean the flag write races with the poll — on the chip the
// poller may spin forever.
fn publish_by_cached_flag(clean: bool, data: GmAddr, flag: GmAddr, out: GmAddr) {
    let mut f = GlobalTensor::<i32>::new();
    f.set_global_buffer(flag, 16);
    let d = bind(&data, 0, N);
    let mut pipe = TPipe::new();
    let mut buf = TBuf::<VecCalc>::new();
    pipe.init_tbuf(&mut buf, N * 4);
    let t = buf.get::<f32>();
    if get_block_idx() == 0 {
        duplicate(&t, 42.0f32, N);
        set_flag::<HardEvent::V_MTE3>(0);
        wait_flag::<HardEvent::V_MTE3>(0);
        data_copy(&d, &t, N);
        set_flag::<HardEvent::MTE3_S>(0);
        wait_flag::<HardEvent::MTE3_S>(0);
        f.set_value(0, 1); // MARK-25-SET
        if clean {
            data_cache_clean_and_invalid::<i32, SingleCacheLine, CachelineOut>(&f);
        }
    } else {
        loop {
            data_cache_clean_and_invalid::<i32, SingleCacheLine, CachelineOut>(&f);
            if f.get_value(0) == 1 {
                // MARK-25-POLL
                break;
            }
        }
        data_copy(&t, &d, N);
        set_flag::<HardEvent::MTE2_S>(0);
        wait_flag::<HardEvent::MTE2_S>(0);
        let v = t.get_value(0);
        bind(&out, 0, 1).set_value(0, v);
    }
}

#[test]
fn a_flag_set_through_the_data_cache_needs_its_line_cleaned() {
    let data = gm_f32(&[0.0; N]);
    let out = gm_f32(&[0.0]);
    let flag = GmBuffer::<i32>::zeroed(16);
    let f = expect_fault(
        run(2, || publish_by_cached_flag(false, data.addr(), flag.addr(), out.addr())),
        &["core 0 writes bytes [0x0, 0x4)", "GlobalTensor::SetValue", "write stays in its data cache"],
    );
    let text = f.to_string();
    assert!(text.contains(&format!("sanitizer.rs:{}", line_of("MARK-25-SET"))), "{text}");
    assert!(text.contains(&format!("sanitizer.rs:{}", line_of("MARK-25-POLL") - 1)), "{text}");
    flag.write_from(&[0; 16]);
    run(2, || publish_by_cached_flag(true, data.addr(), flag.addr(), out.addr())).unwrap();
    assert_eq!(out.to_vec()[0], 42.0);
}

// 26. Two `InitGlobalMemory` in a row (a fix in the vendor's operator repository, "fix the
// synchronisation between consecutive InitGlobalMemory calls with different values"): each
// one's `Duplicate` fills the same scratch after the TPipe's buffers, and nothing orders the
// second one's vector pipe after the first one's copies out of it (MTE3), which may still be
// reading it: the first workspace would get the second value. The fix is the MTE3_V event.
fn init_two_workspaces(fixed: bool, sum: GmAddr, idx: GmAddr) {
    let mut pipe = TPipe::new();
    let mut q = TQue::<VecIn, 1>::new();
    pipe.init_buffer(&mut q, 1, N * 4);
    let sum_gm = bind(&sum, 0, N);
    let mut idx_gm = GlobalTensor::<i32>::new();
    idx_gm.set_global_buffer(idx, N);
    init_global_memory(&sum_gm, N, 0.0f32); // MARK-26-FIRST
    if fixed {
        let id = pipe.fetch_event_id::<HardEvent::MTE3_V>();
        set_flag::<HardEvent::MTE3_V>(id);
        wait_flag::<HardEvent::MTE3_V>(id);
    }
    init_global_memory(&idx_gm, N, -1i32); // MARK-26-SECOND
}

#[test]
fn consecutive_init_global_memory_calls_need_the_mte3_v_event() {
    let sum = gm_f32(&[7.0; N]);
    let idx = GmBuffer::<i32>::zeroed(N);
    let f = expect_fault(
        run(1, || init_two_workspaces(false, sum.addr(), idx.addr())),
        &[
            "write-after-read race on core 0: InitGlobalMemory on pipe V writes UB bytes",
            "that InitGlobalMemory on pipe MTE3",
            "still reads",
            "add SetFlag<HardEvent::MTE3_V> / WaitFlag<HardEvent::MTE3_V>",
        ],
    );
    assert_eq!(f.line, line_of("MARK-26-SECOND"));
    assert!(!f.to_string().contains("FreeTensor"), "the scratch is no queue buffer: {f}");
    assert!(f.to_string().contains(&format!("sanitizer.rs:{}", line_of("MARK-26-FIRST"))), "{f}");
    run(1, || init_two_workspaces(true, sum.addr(), idx.addr())).unwrap();
    assert_eq!((sum.to_vec(), idx.to_vec()), (vec![0.0; N], vec![-1; N]));
}

// 27. Every core clearing one output with `InitGlobalMemory` before `SyncAll` (the vendor's
// group_barrier example does): the same bytes from every core, no race. Clearing it with each
// core's own value is one, and so is a core reading the output before the `SyncAll`.
fn clear_then_accumulate(value: fn(u32) -> f32, read_early: bool, z: GmAddr) {
    let z_gm = bind(&z, 0, 12); // 48 bytes: a partial last 32-byte block
    let mut pipe = TPipe::new();
    let mut q = TQue::<VecOut, 1>::new();
    pipe.init_buffer(&mut q, 1, 16 * 4);
    init_global_memory(&z_gm, 12, value(get_block_idx())); // MARK-27
    if read_early && get_block_idx() == 1 {
        // Its own fill ordered before the read; the other cores' fills are not.
        set_flag::<HardEvent::MTE3_MTE2>(0);
        wait_flag::<HardEvent::MTE3_MTE2>(0);
        let t = q.alloc_tensor::<f32>();
        data_copy_pad(&t, &z_gm, &DataCopyExtParams::new(1, 48, 0, 0), &DataCopyPadExtParams::default());
        q.free_tensor(t);
    }
    sync_all();
    let t = q.alloc_tensor::<f32>();
    duplicate(&t, 1.0f32, 16);
    q.enque(t);
    let t = q.deque::<f32>();
    set_atomic_add::<f32>();
    data_copy_pad_to_gm(&z_gm, &t, &DataCopyExtParams::new(1, 48, 0, 0));
    set_atomic_none();
    q.free_tensor(t);
}

#[test]
fn every_core_clearing_one_output_with_the_same_value_is_no_race() {
    let z = gm_f32(&[5.0; 12]);
    run(8, || clear_then_accumulate(|_| 0.0, false, z.addr())).unwrap();
    assert_eq!(z.to_vec(), vec![8.0; 12]);
    let f = expect_fault(
        run(8, || clear_then_accumulate(|core| core as f32, false, z.addr())),
        &["cross-core race", "writes bytes [0x0, 0x30)", "InitGlobalMemory", "both before any SyncAll"],
    );
    assert_eq!(f.line, line_of("MARK-27"));
    expect_fault(
        run(8, || clear_then_accumulate(|_| 0.0, true, z.addr())),
        &["cross-core race", "core 1 reads bytes [0x0, 0x30)", "DataCopyPad", "InitGlobalMemory"],
    );
}

// 28. On Ascend310P `InitGlobalMemory` writes a partial last block with `SetValue`, through the
// core's data cache: one core filling 10 floats runs clean, but every core clearing them is a
// race — each core's cache writes the whole 64-byte line back whenever it likes.
fn clear_on_310p(z: GmAddr) {
    let z_gm = bind(&z, 0, 10);
    let _pipe = TPipe::new();
    init_global_memory(&z_gm, 10, 0.0f32); // MARK-28
}

#[test]
fn init_global_memory_on_310p_writes_its_partial_block_through_the_data_cache() {
    let z = gm_f32(&[5.0; 16]);
    let on_310p = |cores| Launch::new(Soc::Ascend310P).block_dim(cores).run(|| clear_on_310p(z.addr()));
    on_310p(1).unwrap();
    assert_eq!(z.to_vec(), [vec![0.0; 10], vec![5.0; 6]].concat());
    let f = expect_fault(
        on_310p(2),
        &["cross-core race", "GlobalTensor::SetValue", "whole 64-byte data-cache line"],
    );
    assert_eq!(f.line, line_of("MARK-28"));
}

// 29. Without the compiler's automatic synchronisation, an in-place vector instruction is
// ordered with itself (it reads its sources before writing), but not after an earlier vector
// instruction that reads the bytes it overwrites: that needs `PipeBarrier<PIPE_V>`.
fn in_place_after_a_reader(barrier: bool, x: GmAddr, z: GmAddr) {
    let mut pipe = TPipe::new();
    let (a, b) = load_pair(&mut pipe, &bind(&x, 0, N));
    adds(&b, &a, 1.0f32, N); // reads `a`
    if barrier {
        pipe_barrier::<PIPE_V>();
    }
    add(&a, &a, &a, N); // MARK-29: in place, writing what Adds reads
    pipe_barrier::<PIPE_V>();
    add(&a, &a, &b, N); // in place again, after the barrier
    set_flag::<HardEvent::V_MTE3>(0);
    wait_flag::<HardEvent::V_MTE3>(0);
    data_copy(&bind(&z, 0, N), &a, N);
}

#[test]
fn an_in_place_vector_instruction_races_only_with_other_instructions() {
    let x = gm_f32(&[1.0; N]);
    let z = gm_f32(&[0.0; N]);
    run_manual(1, || in_place_after_a_reader(true, x.addr(), z.addr())).unwrap();
    assert_eq!(z.to_vec(), vec![4.0; N]);
    let f = expect_fault(
        run_manual(1, || in_place_after_a_reader(false, x.addr(), z.addr())),
        &[
            "write-after-read race on core 0: Add on pipe V writes",
            "that Adds on pipe V",
            "PipeBarrier<PIPE_V>",
        ],
    );
    assert_eq!(f.line, line_of("MARK-29"));
}

// Scalar accesses through a raw `GmAddr` (the vendor examples' `*(__gm__ T*)addr`) go through
// `GlobalTensor::GetValue/SetValue`: the same race log and data-cache model.
fn scalar_through_addr(z: GmAddr, far: bool) {
    let i = get_block_idx() as usize;
    // Elements 0 and 1 share a 64-byte data-cache line; elements 0 and 16 do not.
    let at = if i == 0 {
        0
    } else if far {
        16
    } else {
        1
    };
    z.write_at::<f32>(at, i as f32 + 1.0); // MARK-GMADDR
    let _ = z.read_at::<f32>(at);
}

#[test]
fn scalar_writes_through_a_gm_addr_share_the_data_cache_line_rule() {
    let z = gm_f32(&[0.0; 64]);
    let f = expect_fault(
        run(2, || scalar_through_addr(z.addr(), false)),
        &["cross-core race", "GlobalTensor::SetValue", "64-byte data-cache line"],
    );
    assert_eq!(f.line, line_of("MARK-GMADDR"));
    run(2, || scalar_through_addr(z.addr(), true)).unwrap();
    let v = z.to_vec();
    assert_eq!((v[0], v[16]), (1.0, 2.0));
}

#[test]
fn a_gm_addr_scalar_access_is_bounds_checked() {
    let z = gm_f32(&[0.0; 4]);
    expect_fault(
        run(1, || z.addr().add::<u8>(14).write::<f32>(1.0)),
        &["GM_ADDR write", "not aligned to 4 bytes"],
    );
    expect_fault(
        run(1, || {
            let _ = z.addr().add::<f32>(4).read::<f32>();
        }),
        &["GM_ADDR read", "exceeds the 0 bytes left"],
    );
}
