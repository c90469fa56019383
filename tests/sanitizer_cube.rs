//! The sanitizer's catalogue for the cube (Ascend910B, AIC cores): each test drops one of the
//! synchronisations a matmul needs — the events between the cube's pipes (MTE2 → MTE1 → M →
//! FIX and back), `PipeBarrier<PIPE_M>` between small accumulating `Mmad`s, the event between a
//! `Fixpipe` and a copy reading its output back, and the separation of two cores' outputs —
//! and expects the error at the line that needs the fix; the complete kernel passes and
//! computes the right product.

use ascend_runtime::prelude::*;

/// The kernel's shape: C (16 × 32, float) = A (16 × 32, half) × B (32 × 32, half), in two
/// output tiles of 16 columns, each accumulated over two K steps of 16.
const M: usize = 16;
const K: usize = 32;
const N: usize = 32;
const T: usize = 16;

/// The synchronisation a kernel leaves out.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Drop {
    Nothing,
    /// MTE2 → MTE1: `LoadData` reads L1 before `DataCopy` (ND2NZ) has filled it.
    Mte2Mte1,
    /// MTE1 → MTE2: the next `DataCopy` refills L1 while `LoadData` may still read it.
    Mte1Mte2,
    /// MTE1 → M: `Mmad` reads L0A/L0B before `LoadData` has filled them.
    Mte1M,
    /// M → MTE1: the next `LoadData` refills L0A/L0B while `Mmad` may still read them.
    MMte1,
    /// M → FIX: `Fixpipe` reads L0C before `Mmad` has written it.
    MFix,
    /// FIX → M: the next tile's `Mmad` overwrites L0C while `Fixpipe` may still read it.
    FixM,
}

/// `SetFlag`/`WaitFlag` of `E`, unless `drop` is `skip`.
fn sync<E: Event>(drop: Drop, skip: Drop) {
    if drop != skip {
        set_flag::<E>(EVENT_ID0);
        wait_flag::<E>(EVENT_ID0);
    }
}

fn matmul_kernel(drop: Drop, a: GmAddr, b: GmAddr, c: GmAddr) {
    let (mut a_gm, mut b_gm, mut c_gm) =
        (GlobalTensor::<f16>::new(), GlobalTensor::<f16>::new(), GlobalTensor::<f32>::new());
    a_gm.set_global_buffer(a, M * K);
    b_gm.set_global_buffer(b, K * N);
    c_gm.set_global_buffer(c, M * N);
    let mut l1 = LocalMemAllocator::<L1>::new();
    let (mut l0a, mut l0b, mut l0c) =
        (LocalMemAllocator::<L0A>::new(), LocalMemAllocator::<L0B>::new(), LocalMemAllocator::<L0C>::new());
    let (a1, b1) = (l1.alloc_at::<A1, f16>(T * T), l1.alloc_at::<B1, f16>(T * T));
    let (a2, b2) = (l0a.alloc_at::<A2, f16>(T * T), l0b.alloc_at::<B2, f16>(T * T));
    let c1 = l0c.alloc_at::<Co1, f32>(T * T);
    let t = T as u16;
    for tile in 0..N / T {
        if tile > 0 {
            sync::<HardEvent::FIX_M>(drop, Drop::FixM); // the previous tile's Fixpipe read L0C
        }
        for ks in 0..K / T {
            if tile + ks > 0 {
                sync::<HardEvent::MTE1_MTE2>(drop, Drop::Mte1Mte2); // LoadData read L1
            }
            data_copy_nd2nz(&a1, &a_gm.view(ks * T), &Nd2NzParams::new(1, t, t, 0, K as u16, t, 1, 0));
            data_copy_nd2nz(
                &b1,
                &b_gm.view(ks * T * N + tile * T),
                &Nd2NzParams::new(1, t, t, 0, N as u16, t, 1, 0),
            );
            sync::<HardEvent::MTE2_MTE1>(drop, Drop::Mte2Mte1);
            if tile + ks > 0 {
                sync::<HardEvent::M_MTE1>(drop, Drop::MMte1); // Mmad read L0A/L0B
            }
            load_data(&a2, &a1, &LoadData2DParams::new(0, 1, 1, 0, 0, false, 0));
            load_data(&b2, &b1, &LoadData2DParams::new(0, 1, 1, 0, 0, true, 0));
            sync::<HardEvent::MTE1_M>(drop, Drop::Mte1M);
            if ks > 0 {
                // (16 / 16) * (16 / 16) < 10: the Mmad page asks for it (here the M_MTE1 event
                // set after the previous Mmad orders pipe M already; see below for a kernel
                // where only the barrier does).
                pipe_barrier::<PIPE_M>();
            }
            mmad(&c1, &a2, &b2, &MmadParams::new(t, t, t, 0, false, ks == 0)); // marker: mmad
        }
        sync::<HardEvent::M_FIX>(drop, Drop::MFix);
        let params = FixpipeParamsV220::new(t, t, t, N as u32, false, QuantMode_t::NoQuant, 0, 1, 0, 0, 0);
        fixpipe(&c_gm.view(tile * T), &c1, &params);
    }
}

fn inputs() -> (Vec<f16>, Vec<f16>) {
    let a = (0..M * K).map(|i| f16::from_f32(((i * 7) % 11) as f32 - 5.0)).collect();
    let b = (0..K * N).map(|i| f16::from_f32(((i * 5) % 13) as f32 - 6.0)).collect();
    (a, b)
}

fn reference(a: &[f16], b: &[f16]) -> Vec<f32> {
    let mut c = vec![0f32; M * N];
    for i in 0..M {
        for j in 0..N {
            c[i * N + j] = (0..K).map(|k| a[i * K + k].to_f32() * b[k * N + j].to_f32()).sum();
        }
    }
    c
}

/// Runs the kernel on one AIC core; the product it wrote.
fn run_matmul(drop: Drop) -> Result<Vec<f32>, LaunchError> {
    let (a, b) = inputs();
    let (ga, gb, gc) = (GmBuffer::from_slice(&a), GmBuffer::from_slice(&b), GmBuffer::<f32>::zeroed(M * N));
    let (xa, xb, xc) = (ga.addr(), gb.addr(), gc.addr());
    run_aic(1, || matmul_kernel(drop, xa, xb, xc))?;
    Ok(gc.to_vec())
}

/// Runs `kernel` as a cube kernel on `cores` AIC cores of Ascend910B (the sanitizer on).
fn run_aic(cores: u32, kernel: impl Fn() + Sync) -> Result<LaunchStats, LaunchError> {
    Launch::new(Soc::Ascend910B).block_dim(cores).kernel_type(KernelType::AicOnly).run(kernel)
}

fn line_of(needle: &str) -> u32 {
    let src = include_str!("sanitizer_cube.rs");
    let i = src.lines().position(|l| l.contains(needle) && !l.contains("line_of")).expect("marker");
    i as u32 + 1
}

#[track_caller]
fn expect_fault(r: Result<Vec<f32>, LaunchError>, needles: &[&str]) -> CoreFault {
    let e = r.expect_err("the sanitizer should have caught this kernel");
    let f = e.primary().expect("a fault").clone();
    let text = f.to_string();
    for n in needles {
        assert!(text.contains(n), "expected {n:?} in:\n{text}");
    }
    f
}

#[test]
fn the_complete_cube_kernel_passes_and_computes_the_product() {
    let (a, b) = inputs();
    let c = run_matmul(Drop::Nothing).expect("the complete kernel is clean");
    let want = reference(&a, &b);
    assert_eq!(
        c.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        want.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
}

#[test]
fn missing_mte2_mte1_before_load_data() {
    let f = expect_fault(
        run_matmul(Drop::Mte2Mte1),
        &[
            "read-after-write race on core 0: LoadData on pipe MTE1 reads L1 bytes [0x0, 0x200) of the L1 buffer",
            "DataCopy on pipe MTE2",
            "no event orders MTE1 after MTE2; add SetFlag<HardEvent::MTE2_MTE1> / WaitFlag<HardEvent::MTE2_MTE1>",
        ],
    );
    assert_eq!(f.api, "LoadData");
}

#[test]
fn missing_mte1_mte2_before_refilling_l1() {
    expect_fault(
        run_matmul(Drop::Mte1Mte2),
        &[
            "write-after-read race on core 0: DataCopy on pipe MTE2 writes L1 bytes [0x0, 0x200)",
            "LoadData on pipe MTE1",
            "still reads",
            "HardEvent::MTE1_MTE2",
        ],
    );
}

#[test]
fn missing_mte1_m_before_mmad() {
    let f = expect_fault(
        run_matmul(Drop::Mte1M),
        &[
            "read-after-write race on core 0: Mmad on pipe M reads L0A bytes [0x0, 0x200) of the L0A buffer",
            "LoadData on pipe MTE1",
            "HardEvent::MTE1_M",
        ],
    );
    assert_eq!((f.api, f.line), ("Mmad", line_of("marker: mmad")));
}

#[test]
fn missing_m_mte1_before_refilling_l0() {
    expect_fault(
        run_matmul(Drop::MMte1),
        &[
            "write-after-read race on core 0: LoadData on pipe MTE1 writes L0A bytes",
            "Mmad on pipe M",
            "HardEvent::M_MTE1",
        ],
    );
}

#[test]
fn missing_m_fix_before_fixpipe() {
    expect_fault(
        run_matmul(Drop::MFix),
        &[
            "read-after-write race on core 0: Fixpipe on pipe FIX reads L0C bytes [0x0, 0x400)",
            "HardEvent::M_FIX",
        ],
    );
}

#[test]
fn missing_fix_m_before_overwriting_l0c() {
    expect_fault(
        run_matmul(Drop::FixM),
        &[
            "write-after-read race on core 0: Mmad on pipe M writes L0C bytes",
            "Fixpipe on pipe FIX",
            "HardEvent::FIX_M",
        ],
    );
}

/// Two `Mmad`s accumulating into one L0C tile of `m` × `n` (zeros), with no barrier between.
fn accumulate_twice(m: u16, n: u16) {
    let (mut l0a, mut l0b, mut l0c) =
        (LocalMemAllocator::<L0A>::new(), LocalMemAllocator::<L0B>::new(), LocalMemAllocator::<L0C>::new());
    let a = l0a.alloc_at::<A2, f16>(m as usize * 16);
    let b = l0b.alloc_at::<B2, f16>(16 * n as usize);
    let c = l0c.alloc_at::<Co1, f32>(m as usize * n as usize);
    mmad(&c, &a, &b, &MmadParams::new(m, n, 16, 0, false, true));
    mmad(&c, &a, &b, &MmadParams::new(m, n, 16, 0, false, false)); // marker: accumulate
}

#[test]
fn large_accumulating_mmads_need_no_barrier() {
    let run = |m: u16, n: u16| run_aic(1, move || accumulate_twice(m, n));
    // (64 / 16) * (48 / 16) = 12 >= 10: the hardware orders them (the Mmad page).
    run(64, 48).expect("a large accumulation is ordered by the hardware");
    // (32 / 16) * (32 / 16) = 4 < 10: PipeBarrier<PIPE_M> is needed.
    let e = run(32, 32).expect_err("a small accumulation needs the barrier");
    let f = e.primary().expect("a fault");
    let text = f.to_string();
    assert!(
        text.contains(
            "write-after-write race on core 0: Mmad on pipe M writes L0C bytes [0x0, 0x1000) of the L0C buffer that \
             Mmad on pipe M"
        ),
        "{text}"
    );
    assert!(text.contains("add PipeBarrier<PIPE_M>() between the two writes"), "{text}");
    assert_eq!((f.api, f.line), ("Mmad", line_of("marker: accumulate")));
}

/// Core `i` of two writes its product to C through `Fixpipe`; with `shared`, both write the
/// same tile.
fn two_cores_fixpipe(shared: bool, c: GmAddr) {
    let mut c_gm = GlobalTensor::<f32>::new();
    let tile = if shared { 0 } else { get_block_idx() as usize };
    c_gm.set_global_buffer(c.add::<f32>(tile * T * T), T * T);
    let mut l0c = LocalMemAllocator::<L0C>::new();
    let c1 = l0c.alloc_at::<Co1, f32>(T * T);
    let t = T as u16;
    fixpipe(
        &c_gm,
        &c1,
        &FixpipeParamsV220::new(t, t, t, t as u32, false, QuantMode_t::NoQuant, 0, 1, 0, 0, 0),
    );
}

#[test]
fn two_cube_cores_writing_one_output_tile() {
    let c = GmBuffer::<f32>::zeroed(2 * T * T);
    let xc = c.addr();
    let run = |shared: bool| run_aic(2, move || two_cores_fixpipe(shared, xc));
    run(false).expect("two tiles: no race");
    let e = run(true).expect_err("one tile written by both cores");
    let text = e.to_string();
    assert!(text.contains("cross-core race on global memory"), "{text}");
    assert!(
        text.contains("core 0 writes") && text.contains("core 1 writes") && text.contains("Fixpipe"),
        "{text}"
    );
}

/// Writes a tile with `Fixpipe`, then copies it back into L1 (ND2NZ), with or without the
/// FIX → MTE2 event between.
fn fixpipe_then_read_back(fixed: bool, c: GmAddr) {
    let mut c_gm = GlobalTensor::<f32>::new();
    c_gm.set_global_buffer(c, T * T);
    let (mut l1, mut l0c) = (LocalMemAllocator::<L1>::new(), LocalMemAllocator::<L0C>::new());
    let c1 = l0c.alloc_at::<Co1, f32>(T * T);
    let back = l1.alloc_at::<A1, f32>(T * T);
    let t = T as u16;
    fixpipe(
        &c_gm,
        &c1,
        &FixpipeParamsV220::new(t, t, t, t as u32, false, QuantMode_t::NoQuant, 0, 1, 0, 0, 0),
    );
    if fixed {
        set_flag::<HardEvent::FIX_MTE2>(EVENT_ID0);
        wait_flag::<HardEvent::FIX_MTE2>(EVENT_ID0);
    }
    data_copy_nd2nz(&back, &c_gm, &Nd2NzParams::new(1, t, t, 0, t, t, 1, 0)); // marker: read back
}

#[test]
fn missing_fix_mte2_before_reading_a_fixpipe_output_back() {
    let c = GmBuffer::<f32>::zeroed(T * T);
    let xc = c.addr();
    let run = |fixed: bool| run_aic(1, move || fixpipe_then_read_back(fixed, xc));
    run(true).expect("the fixed kernel is clean");
    let e = run(false).expect_err("the read-back needs FIX_MTE2");
    let f = e.primary().expect("a fault");
    let text = f.to_string();
    assert!(
        text.contains("read-after-write race on global memory on core 0: DataCopy on pipe MTE2 reads"),
        "{text}"
    );
    assert!(text.contains("that Fixpipe on pipe FIX"), "{text}");
    assert!(text.contains("add SetFlag<HardEvent::FIX_MTE2> / WaitFlag<HardEvent::FIX_MTE2>"), "{text}");
    assert_eq!(f.line, line_of("marker: read back"));
}

/// Two ND2NZ copies interleaving their rows in one L1 tile (`dstNzNStride = 2`), with no
/// barrier between them, then `LoadData` reading every other fractal while the next copy
/// fills the fractals between: the bytes differ, so there is no race — until a copy writes a
/// fractal `LoadData` reads.
fn interleaved(overwrite_read: bool, x: GmAddr) {
    let mut g = GlobalTensor::<f16>::new();
    g.set_global_buffer(x, 1024);
    let (mut l1, mut l0a) = (LocalMemAllocator::<L1>::new(), LocalMemAllocator::<L0A>::new());
    let a1 = l1.alloc_at::<A1, f16>(4 * 256);
    let a2 = l0a.alloc_at::<A2, f16>(2 * 256);
    // Rows 0, 2, 4, … of fractal 0 and rows 1, 3, 5, … from two copies.
    let rows = Nd2NzParams::new(1, 8, 16, 0, 16, 16, 2, 0);
    data_copy_nd2nz(&a1, &g, &rows);
    data_copy_nd2nz(&a1.view(16), &g.view(128), &rows);
    set_flag::<HardEvent::MTE2_MTE1>(EVENT_ID0);
    wait_flag::<HardEvent::MTE2_MTE1>(EVENT_ID0);
    // Fractals 0 and 2.
    load_data(&a2, &a1, &LoadData2DParams::new(0, 2, 2, 0, 0, false, 0));
    // Fractal 1 (or 2) refilled with no MTE1_MTE2 event.
    let (to, p) = (if overwrite_read { 512 } else { 256 }, Nd2NzParams::new(1, 16, 16, 0, 16, 16, 1, 0));
    data_copy_nd2nz(&a1.view(to), &g, &p); // marker: refill
}

#[test]
fn accesses_are_checked_by_the_bytes_they_really_touch() {
    let x = GmBuffer::from_vec((0..1024).map(|i| f16::from_f32((i % 50) as f32)).collect::<Vec<_>>());
    let xa = x.addr();
    let run = |overwrite_read: bool| run_aic(1, move || interleaved(overwrite_read, xa));
    run(false).expect("interleaved rows and untouched fractals are no race");
    let e = run(true).expect_err("refilling a fractal LoadData reads needs MTE1_MTE2");
    let f = e.primary().expect("a fault");
    let text = f.to_string();
    assert!(
        text.contains(
            "write-after-read race on core 0: DataCopy on pipe MTE2 writes L1 bytes [0x400, 0x600)"
        ),
        "{text}"
    );
    assert!(text.contains("HardEvent::MTE1_MTE2"), "{text}");
    assert_eq!(f.line, line_of("marker: refill"));
}

/// A plain `DataCopy` GM → L1 (MTE2) then `LoadData` (MTE1), with or without the event.
fn copy_to_l1_then_load(fixed: bool, x: GmAddr) {
    let mut g = GlobalTensor::<f16>::new();
    g.set_global_buffer(x, 256);
    let (mut l1, mut l0a) = (LocalMemAllocator::<L1>::new(), LocalMemAllocator::<L0A>::new());
    let (a1, a2) = (l1.alloc_at::<A1, f16>(256), l0a.alloc_at::<A2, f16>(256));
    data_copy(&a1, &g, 256);
    if fixed {
        set_flag::<HardEvent::MTE2_MTE1>(EVENT_ID0);
        wait_flag::<HardEvent::MTE2_MTE1>(EVENT_ID0);
    }
    load_data(&a2, &a1, &LoadData2DParams::new(0, 1, 1, 0, 0, false, 0)); // marker: load after copy
}

#[test]
fn missing_mte2_mte1_after_a_plain_copy_to_l1() {
    let x = GmBuffer::from_vec(vec![f16::from_f32(1.0); 256]);
    let xa = x.addr();
    let run = |fixed: bool| run_aic(1, move || copy_to_l1_then_load(fixed, xa));
    run(true).expect("the fixed kernel is clean");
    let e = run(false).expect_err("LoadData needs MTE2_MTE1 after the copy");
    let f = e.primary().expect("a fault");
    let text = f.to_string();
    assert!(
        text.contains("read-after-write race on core 0: LoadData on pipe MTE1 reads L1 bytes [0x0, 0x200) of the L1 buffer that DataCopy on pipe MTE2"),
        "{text}"
    );
    assert!(text.contains("HardEvent::MTE2_MTE1"), "{text}");
    assert_eq!(f.line, line_of("marker: load after copy"));
}

/// The kernel above written with queues, as the older vendor samples do (`TQue<A1>`, `<B1>`,
/// `<A2>`, `<B2>`, `<CO1>`): EnQue/DeQue and FreeTensor/AllocTensor set and wait the same events
/// the hand-written kernel sets. `bypass_a1` uses the L1 tensors without their EnQue/DeQue;
/// `stale` reads A1 through a handle kept from before its FreeTensor.
fn queue_matmul(bypass_a1: bool, stale: bool, a: GmAddr, b: GmAddr, c: GmAddr) {
    let (mut a_gm, mut b_gm, mut c_gm) =
        (GlobalTensor::<f16>::new(), GlobalTensor::<f16>::new(), GlobalTensor::<f32>::new());
    a_gm.set_global_buffer(a, M * K);
    b_gm.set_global_buffer(b, K * N);
    c_gm.set_global_buffer(c, M * N);
    let mut pipe = TPipe::new();
    let (mut in_a1, mut in_b1) = (TQue::<A1, 1>::new(), TQue::<B1, 1>::new());
    let (mut in_a2, mut in_b2, mut out_co1) =
        (TQue::<A2, 1>::new(), TQue::<B2, 1>::new(), TQue::<Co1, 1>::new());
    pipe.init_buffer(&mut in_a1, 1, T * T * 2);
    pipe.init_buffer(&mut in_b1, 1, T * T * 2);
    pipe.init_buffer(&mut in_a2, 1, T * T * 2);
    pipe.init_buffer(&mut in_b2, 1, T * T * 2);
    pipe.init_buffer(&mut out_co1, 1, T * T * 4);
    let t = T as u16;
    let mut kept = None;
    for tile in 0..N / T {
        let c1 = out_co1.alloc_tensor::<f32>();
        for ks in 0..K / T {
            // CopyIn
            let (a1, b1) = (in_a1.alloc_tensor::<f16>(), in_b1.alloc_tensor::<f16>());
            data_copy_nd2nz(&a1, &a_gm.view(ks * T), &Nd2NzParams::new(1, t, t, 0, K as u16, t, 1, 0));
            data_copy_nd2nz(
                &b1,
                &b_gm.view(ks * T * N + tile * T),
                &Nd2NzParams::new(1, t, t, 0, N as u16, t, 1, 0),
            );
            // (EnQue of one of them is enough: its MTE2_MTE1 event orders every copy before it.)
            let (a1, b1) = if bypass_a1 {
                (a1, b1)
            } else {
                in_a1.enque(a1);
                in_b1.enque(b1);
                (in_a1.deque::<f16>(), in_b1.deque::<f16>())
            };
            // Split
            let (a2, b2) = (in_a2.alloc_tensor::<f16>(), in_b2.alloc_tensor::<f16>());
            let src_a = if stale { kept.clone().unwrap_or_else(|| a1.clone()) } else { a1.clone() };
            load_data(&a2, &src_a, &LoadData2DParams::new(0, 1, 1, 0, 0, false, 0)); // marker: split a
            load_data(&b2, &b1, &LoadData2DParams::new(0, 1, 1, 0, 0, true, 0));
            kept = Some(a1.clone());
            in_a1.free_tensor(a1);
            in_b1.free_tensor(b1);
            in_a2.enque(a2);
            in_b2.enque(b2);
            // Compute
            let (a2, b2) = (in_a2.deque::<f16>(), in_b2.deque::<f16>());
            if ks > 0 {
                pipe_barrier::<PIPE_M>();
            }
            mmad(&c1, &a2, &b2, &MmadParams::new(t, t, t, 0, false, ks == 0));
            in_a2.free_tensor(a2);
            in_b2.free_tensor(b2);
        }
        out_co1.enque(c1);
        // CopyOut
        let c1 = out_co1.deque::<f32>();
        let params = FixpipeParamsV220::new(t, t, t, N as u32, false, QuantMode_t::NoQuant, 0, 1, 0, 0, 0);
        fixpipe(&c_gm.view(tile * T), &c1, &params);
        out_co1.free_tensor(c1);
    }
}

fn run_queue_matmul(bypass_a1: bool, stale: bool) -> Result<Vec<f32>, LaunchError> {
    let (a, b) = inputs();
    let (ga, gb, gc) = (GmBuffer::from_slice(&a), GmBuffer::from_slice(&b), GmBuffer::<f32>::zeroed(M * N));
    let (xa, xb, xc) = (ga.addr(), gb.addr(), gc.addr());
    run_aic(1, || queue_matmul(bypass_a1, stale, xa, xb, xc))?;
    Ok(gc.to_vec())
}

#[test]
fn a_matmul_with_cube_queues_is_clean_and_exact() {
    let (a, b) = inputs();
    let c = run_queue_matmul(false, false).expect("the queues order every hand-off");
    let want = reference(&a, &b);
    assert_eq!(
        c.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        want.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
}

#[test]
fn l1_tensors_used_without_their_queues() {
    let f = expect_fault(
        run_queue_matmul(true, false),
        &[
            "read-after-write race on core 0: LoadData on pipe MTE1 reads L1 bytes [0x0, 0x200) of the L1 buffer",
            "add SetFlag<HardEvent::MTE2_MTE1> / WaitFlag<HardEvent::MTE2_MTE1>, or EnQue/DeQue the tensor through \
             an A1/B1 queue",
        ],
    );
    assert_eq!(f.line, line_of("marker: split a"));
}

#[test]
fn a1_handle_used_after_free_tensor() {
    expect_fault(
        run_queue_matmul(false, true),
        &["stale tensor handle", "buffer 0 of a A1 queue (L1 [0x0, 0x200))", "LoadData"],
    );
}
