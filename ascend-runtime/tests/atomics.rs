//! Global-memory atomics across cores: no lost update, the deterministic float order, the
//! arrival order, max/min, strided copies, read-back before the epoch closes, and misuse.

use std::sync::atomic::{AtomicU32, Ordering};

use ascend_runtime::prelude::*;

const N_CORES: u32 = 48;
const MODES: [ExecMode; 3] = [ExecMode::Pooled, ExecMode::ThreadPerCore, ExecMode::Sequential];

/// A tiny xorshift PRNG (the same on the host model and in the kernels).
fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

fn bind<T: Element>(addr: &GmAddr, len: usize) -> GlobalTensor<T> {
    let mut g = GlobalTensor::new();
    g.set_global_buffer(*addr, len);
    g
}

/// Core `core`'s `iter`-th contribution to element `i`.
fn int_val(core: u32, iter: usize, i: usize) -> i32 {
    let mut r = rng(u64::from(core) * 1_000_003 + iter as u64 * 7919 + i as u64 + 1);
    (r() % 2001) as i32 - 1000
}

#[test]
fn integer_atomic_add_loses_no_update_with_48_cores() {
    const LEN: usize = 64;
    const ITERS: usize = 200;
    for mode in MODES {
        let init: Vec<i32> = (0..LEN as i32).map(|i| i * 3 - 50).collect();
        let out = GmBuffer::from_slice(&init);
        let addr = out.addr();
        Launch::new(Soc::Ascend910B)
            .sanitize(false) // these kernels test atomics, not pipe synchronisation
            .block_dim(N_CORES)
            .mode(mode)
            .run(move || {
                let gm = bind::<i32>(&addr, LEN);
                let mut pipe = TPipe::new();
                let mut q = TQue::<VecOut, 2>::new();
                pipe.init_buffer(&mut q, 2, LEN * 4);
                set_atomic_add::<i32>();
                for it in 0..ITERS {
                    let x = q.alloc_tensor::<i32>();
                    for i in 0..LEN {
                        x.set_value(i, int_val(get_block_idx(), it, i));
                    }
                    q.enque(x);
                    let x = q.deque::<i32>();
                    data_copy(&gm, &x, LEN);
                    q.free_tensor(x);
                }
                set_atomic_none();
            })
            .unwrap_or_else(|e| panic!("{mode}: {e}"));
        let want: Vec<i32> = (0..LEN)
            .map(|i| {
                (0..N_CORES)
                    .fold(init[i], |acc, c| (0..ITERS).fold(acc, |a, it| a.wrapping_add(int_val(c, it, i))))
            })
            .collect();
        assert_eq!(out.to_vec(), want, "{mode}");
    }
}

#[test]
fn small_integer_atomic_add_wraps_and_loses_nothing() {
    // i8 and i16 on Ascend910B: 48 cores x 50 copies of 1 wrap around exactly.
    fn run<T: AtomicElement + From<i8>>(len: usize, mode: ExecMode) -> Vec<T> {
        let out = GmBuffer::<T>::zeroed(len);
        let addr = out.addr();
        Launch::new(Soc::Ascend910B)
            .sanitize(false) // these kernels test atomics, not pipe synchronisation
            .block_dim(N_CORES)
            .mode(mode)
            .run(move || {
                let gm = bind::<T>(&addr, len);
                let mut pipe = TPipe::new();
                let mut buf = TBuf::<VecOut>::new();
                pipe.init_tbuf(&mut buf, len * T::SIZE);
                let x = buf.get::<T>();
                x.copy_from_slice(&vec![T::from(1); len]);
                set_atomic_add::<T>();
                for _ in 0..50 {
                    data_copy(&gm, &x, len);
                }
            })
            .unwrap();
        out.to_vec()
    }
    for mode in [ExecMode::Pooled, ExecMode::ThreadPerCore] {
        assert_eq!(run::<i8>(32, mode), vec![(48 * 50 % 256) as u8 as i8; 32], "{mode}");
        assert_eq!(run::<i16>(16, mode), vec![48 * 50; 16], "{mode}");
    }
}

/// Core `core`'s contribution in epoch `epoch` to element `i`: values of very different
/// magnitudes, so that the order of a float sum matters.
fn float_val(core: u32, epoch: usize, i: usize) -> f32 {
    let mut r = rng(u64::from(core) * 31 + epoch as u64 * 1_000_033 + i as u64 * 977 + 5);
    let mant = (r() % 2_000_000) as f32 / 1_000_000.0 - 1.0;
    let exp = (r() % 24) as i32 - 12;
    mant * 2f32.powi(exp)
}

fn float_kernel<T: AtomicElement>(addr: &GmAddr, len: usize, epochs: usize, sync: bool) {
    let gm = bind::<T>(addr, len);
    let mut pipe = TPipe::new();
    let mut buf = TBuf::<VecOut>::new();
    pipe.init_tbuf(&mut buf, len * T::SIZE);
    let x = buf.get::<T>();
    set_atomic_add::<T>();
    for e in 0..epochs {
        for i in 0..len {
            x.set_value(i, T::from_f64(f64::from(float_val(get_block_idx(), e, i))));
        }
        data_copy(&gm, &x, len);
        if sync {
            sync_all();
        }
    }
    set_atomic_none();
}

/// The documented order, each addition rounded once to `T`: with a `sync_all` after every
/// copy, epoch by epoch and core by core within each; without, one epoch: core by core, each
/// core's copies in program order.
fn float_model<T: Element>(len: usize, cores: u32, epochs: usize, sync: bool) -> Vec<T> {
    (0..len)
        .map(|i| {
            let mut order: Vec<(u32, usize)> = Vec::new();
            if sync {
                (0..epochs).for_each(|e| (0..cores).for_each(|c| order.push((c, e))));
            } else {
                (0..cores).for_each(|c| (0..epochs).for_each(|e| order.push((c, e))));
            }
            order
                .into_iter()
                .fold(T::ZERO, |acc, (c, e)| T::add(acc, T::from_f64(f64::from(float_val(c, e, i)))))
        })
        .collect()
}

fn float_deterministic<T: AtomicElement>() {
    const LEN: usize = 64;
    for (mode, epochs, sync) in
        [(ExecMode::ThreadPerCore, 3, true), (ExecMode::Pooled, 1, false), (ExecMode::Sequential, 2, false)]
    {
        let want = float_model::<T>(LEN, N_CORES, epochs, sync);
        for run in 0..3 {
            let out = GmBuffer::<T>::zeroed(LEN);
            let addr = out.addr();
            Launch::new(Soc::Ascend910B)
                .sanitize(false) // these kernels test atomics, not pipe synchronisation
                .block_dim(N_CORES)
                .mode(mode)
                .run(move || float_kernel::<T>(&addr, LEN, epochs, sync))
                .unwrap();
            let got: Vec<u64> = out.to_vec().iter().map(|v| v.to_bits_u64()).collect();
            let want: Vec<u64> = want.iter().map(|v| v.to_bits_u64()).collect();
            assert_eq!(got, want, "{} {mode} run {run}", T::DTYPE);
        }
    }
}

#[test]
fn float_atomic_add_is_bit_exact_in_core_order_f32() {
    float_deterministic::<f32>();
}

#[test]
fn float_atomic_add_is_bit_exact_in_core_order_f16() {
    float_deterministic::<f16>();
}

#[test]
fn float_atomic_add_is_bit_exact_in_core_order_bf16() {
    float_deterministic::<bf16>();
}

/// Core 0 adds 2^24, cores 1..=3 add 1.0; core 0 waits (on the host) until the others have
/// copied, so in arrival order the ones land first.
fn forced_order_sum(order: AtomicOrder) -> f32 {
    let out = GmBuffer::<f32>::zeroed(8);
    let addr = out.addr();
    let done = AtomicU32::new(0);
    Launch::new(Soc::Ascend910B)
        .sanitize(false) // these kernels test atomics, not pipe synchronisation
        .block_dim(4)
        .sync_all(true)
        .atomic_order(order)
        .run(|| {
            let gm = bind::<f32>(&addr, 8);
            let mut pipe = TPipe::new();
            let mut buf = TBuf::<VecOut>::new();
            pipe.init_tbuf(&mut buf, 32);
            let x = buf.get::<f32>();
            let me = get_block_idx();
            duplicate(&x, if me == 0 { 16_777_216.0 } else { 1.0 }, 8);
            set_atomic_add::<f32>();
            if me == 0 {
                while done.load(Ordering::Acquire) < 3 {
                    std::thread::yield_now();
                }
            }
            data_copy(&gm, &x, 8);
            done.fetch_add(1, Ordering::Release);
        })
        .unwrap();
    out.to_vec()[0]
}

#[test]
fn arrival_order_can_differ_from_core_order() {
    // Core order: 2^24 + 1 rounds back to 2^24 three times.
    assert_eq!(forced_order_sum(AtomicOrder::Deterministic), 16_777_216.0);
    // Arrival order here: 1 + 1 + 1 = 3, then 3 + 2^24 rounds to 2^24 + 4.
    assert_eq!(forced_order_sum(AtomicOrder::Arrival), 16_777_220.0);
}

#[test]
fn pending_float_contributions_are_invisible_until_sync_all() {
    let out = GmBuffer::from_slice(&[1.0f32; 8]);
    let seen = GmBuffer::<f32>::zeroed(4 * 2);
    let (addr, saddr) = (out.addr(), seen.addr());
    Launch::new(Soc::Ascend910B)
        .sanitize(false) // these kernels test atomics, not pipe synchronisation
        .block_dim(4)
        .sync_all(true)
        .run(move || {
            let gm = bind::<f32>(&addr, 8);
            let seen = bind::<f32>(&saddr, 8);
            let mut pipe = TPipe::new();
            let mut buf = TBuf::<VecOut>::new();
            pipe.init_tbuf(&mut buf, 32);
            let x = buf.get::<f32>();
            duplicate(&x, 2.0, 8);
            set_atomic_add::<f32>();
            data_copy(&gm, &x, 8);
            set_atomic_none();
            let me = get_block_idx() as usize;
            seen.set_value(2 * me, gm.get_value(me)); // before the epoch closes
            sync_all();
            seen.set_value(2 * me + 1, gm.get_value(me)); // after
        })
        .unwrap();
    assert_eq!(seen.to_vec(), [1.0, 9.0, 1.0, 9.0, 1.0, 9.0, 1.0, 9.0]);
    assert_eq!(out.to_vec(), vec![9.0; 8]);
}

fn max_min<T: AtomicElement>(vals: impl Fn(u32, usize) -> T + Sync) {
    const LEN: usize = 64;
    let init: Vec<T> = (0..LEN).map(|i| vals(999, i)).collect();
    for (op, mode) in [(AtomicOp::Max, ExecMode::Pooled), (AtomicOp::Min, ExecMode::ThreadPerCore)] {
        let out = GmBuffer::from_slice(&init);
        let addr = out.addr();
        let vals = &vals;
        Launch::new(Soc::Ascend910B)
            .sanitize(false) // these kernels test atomics, not pipe synchronisation
            .block_dim(N_CORES)
            .mode(mode)
            .run(move || {
                let gm = bind::<T>(&addr, LEN);
                let mut pipe = TPipe::new();
                let mut buf = TBuf::<VecOut>::new();
                pipe.init_tbuf(&mut buf, LEN * T::SIZE);
                let x = buf.get::<T>();
                for i in 0..LEN {
                    x.set_value(i, vals(get_block_idx(), i));
                }
                match op {
                    AtomicOp::Max => set_atomic_max::<T>(),
                    _ => set_atomic_min::<T>(),
                }
                data_copy(&gm, &x, LEN);
            })
            .unwrap();
        let want: Vec<T> = (0..LEN)
            .map(|i| {
                (0..N_CORES).map(|c| vals(c, i)).fold(init[i], |a, v| match op {
                    AtomicOp::Max if v > a => v,
                    AtomicOp::Min if v < a => v,
                    _ => a,
                })
            })
            .collect();
        assert_eq!(out.to_vec(), want, "{} {op:?}", T::DTYPE);
    }
}

#[test]
fn atomic_max_and_min_keep_the_extremes() {
    let v = |c: u32, i: usize| rng(u64::from(c) * 131 + i as u64 + 3)();
    max_min::<i8>(|c, i| v(c, i) as i8);
    max_min::<i16>(|c, i| v(c, i) as i16);
    max_min::<i32>(|c, i| v(c, i) as i32);
    max_min::<f32>(|c, i| (v(c, i) % 100_000) as f32 / 7.0 - 5000.0);
    max_min::<f16>(|c, i| f16::from_f32((v(c, i) % 10_000) as f32 / 3.0 - 1000.0));
    max_min::<bf16>(|c, i| bf16::from_f32((v(c, i) % 10_000) as f32 / 3.0 - 1000.0));
}

#[test]
fn strided_and_padded_copies_add_atomically() {
    // data_copy_params: 3 rows of 1 block, GM rows 2 blocks apart; data_copy_pad_to_gm:
    // 3 rows of 5 i32, 4 bytes apart in GM.
    let out_p = GmBuffer::<i32>::zeroed(48);
    let out_pad = GmBuffer::<i32>::zeroed(24);
    let (pa, pada) = (out_p.addr(), out_pad.addr());
    Launch::new(Soc::Ascend910B)
        .sanitize(false) // these kernels test atomics, not pipe synchronisation
        .block_dim(N_CORES)
        .run(move || {
            let mut pipe = TPipe::new();
            let mut buf = TBuf::<VecOut>::new();
            pipe.init_tbuf(&mut buf, 96);
            let x = buf.get::<i32>();
            x.copy_from_slice(&(1..=24).collect::<Vec<i32>>());
            set_atomic_add::<i32>();
            data_copy_params(&bind::<i32>(&pa, 48), &x, &DataCopyParams::new(3, 1, 0, 1));
            data_copy_pad_to_gm(&bind::<i32>(&pada, 24), &x, &DataCopyExtParams::new(3, 20, 0, 4));
        })
        .unwrap();
    let mut want_p = vec![0i32; 48];
    let mut want_pad = vec![0i32; 24];
    for r in 0..3 {
        for k in 0..8 {
            want_p[r * 16 + k] = 48 * (r * 8 + k + 1) as i32;
        }
        for k in 0..5 {
            want_pad[r * 6 + k] = 48 * (r * 8 + k + 1) as i32;
        }
    }
    assert_eq!(out_p.to_vec(), want_p);
    assert_eq!(out_pad.to_vec(), want_pad);
}

#[test]
fn atomic_mode_leaves_copies_into_the_ub_and_set_value_alone() {
    let g = GmBuffer::from_slice(&[5i32; 8]);
    let a = g.addr();
    Launch::new(Soc::Ascend910B)
        .sanitize(false)
        .run(move || {
            let gm = bind::<i32>(&a, 8);
            let mut pipe = TPipe::new();
            let mut buf = TBuf::<VecIn>::new();
            pipe.init_tbuf(&mut buf, 32);
            let x = buf.get::<i32>();
            x.copy_from_slice(&[1; 8]);
            set_atomic_add::<i32>();
            data_copy(&x, &gm, 8); // GM -> UB overwrites
            assert_eq!(x.to_vec(), [5; 8]);
            gm.set_value(0, 100); // scalar store overwrites
            data_copy(&gm, &x, 8); // UB -> GM adds
        })
        .unwrap();
    assert_eq!(g.to_vec(), [105, 10, 10, 10, 10, 10, 10, 10]);
}

fn fails(soc: Soc, needle: &str, kernel: impl Fn() + Sync) {
    let err = Launch::new(soc).sanitize(false).block_dim(2).run(kernel).unwrap_err();
    let text = err.to_string();
    assert!(text.contains(needle), "expected {needle:?} in:\n{text}");
}

#[test]
fn unsupported_types_and_chips_fail_with_the_chip_named() {
    fails(
        Soc::Ascend310P,
        "core 0: SetAtomicAdd: T = int32_t is not supported on Ascend310P (Atlas inference series AI Core): \
         its atomics take int16_t, half, float",
        set_atomic_add::<i32>,
    );
    fails(
        Soc::Ascend910,
        "SetAtomicAdd: T = half is not supported on Ascend910 (Atlas training series): its atomics take float",
        set_atomic_add::<f16>,
    );
    fails(Soc::Ascend310B, "SetAtomicAdd: T = int8_t is not supported on Ascend310B", set_atomic_add::<i8>);
    fails(
        Soc::Ascend310B,
        "SetAtomicMax: T = float is not supported on Ascend310B (Atlas 200/500 A2 inference): SetAtomicMax is not \
         supported on this chip at all",
        set_atomic_max::<f32>,
    );
    fails(Soc::Ascend310P, "SetAtomicMin: T = int16_t is not supported on Ascend310P", set_atomic_min::<i16>);
    // Every documented type is accepted.
    for soc in Soc::ALL {
        Launch::new(soc)
            .sanitize(false)
            .run(move || {
                for d in ascend_core::atomic::supported_types(soc, AtomicOp::Add) {
                    match d {
                        DType::I8 => set_atomic_add::<i8>(),
                        DType::I16 => set_atomic_add::<i16>(),
                        DType::I32 => set_atomic_add::<i32>(),
                        DType::F16 => set_atomic_add::<f16>(),
                        DType::BF16 => set_atomic_add::<bf16>(),
                        _ => set_atomic_add::<f32>(),
                    }
                    assert_eq!(get_atomic_mode().map(|m| m.dtype), Some(*d));
                }
            })
            .unwrap();
    }
}

#[test]
fn a_copy_of_another_type_than_the_atomic_mode_fails() {
    fails(
        Soc::Ascend910B,
        "DataCopy: the core's atomic mode is SetAtomicAdd<float>, but this copy moves int32_t elements",
        || {
            let g = GmRegion::zeroed(32);
            let gm = bind::<i32>(&g.addr(), 8);
            let mut pipe = TPipe::new();
            let mut buf = TBuf::<VecOut>::new();
            pipe.init_tbuf(&mut buf, 32);
            set_atomic_add::<f32>();
            data_copy(&gm, &buf.get::<i32>(), 8);
        },
    );
}

#[test]
fn a_misaligned_atomic_row_fails() {
    fails(
        Soc::Ascend910B,
        "DataCopyPad: the atomic destination (address remainder 0 mod 4, row pitch 6 bytes) is not aligned to \
         size_of::<int32_t>() = 4",
        || {
            let g = GmRegion::zeroed(64);
            let gm = bind::<i32>(&g.addr(), 16);
            let mut pipe = TPipe::new();
            let mut buf = TBuf::<VecOut>::new();
            pipe.init_tbuf(&mut buf, 64);
            set_atomic_add::<i32>();
            data_copy_pad_to_gm(&gm, &buf.get::<i32>(), &DataCopyExtParams::new(2, 4, 0, 2));
        },
    );
}

#[test]
fn clear_with_init_global_memory_then_accumulate_across_48_cores() {
    // Every core clears the output (as AscendC kernels do), the soft SyncAll orders the clears
    // before the adds, then every core adds its index; done twice to use the counters again.
    let out = GmBuffer::from_slice(&[99i32; 16]);
    let ws = GmBuffer::<i32>::zeroed(N_CORES as usize * 8);
    let (oa, wa) = (out.addr(), ws.addr());
    Launch::new(Soc::Ascend910B)
        .sanitize(false) // these kernels test atomics, not pipe synchronisation
        .block_dim(N_CORES)
        .sync_all(true)
        .run(move || {
            let gm = bind::<i32>(&oa, 16);
            let ws = bind::<i32>(&wa, N_CORES as usize * 8);
            // A TPipe: InitGlobalMemory's scratch is the Unified Buffer after its buffers.
            let mut pipe = TPipe::new();
            let (mut fb, mut xb) = (TBuf::<VecCalc>::new(), TBuf::<VecOut>::new());
            pipe.init_tbuf(&mut fb, N_CORES as usize * 8 * 4);
            pipe.init_tbuf(&mut xb, 16 * 4);
            let (flags, x) = (fb.get::<i32>(), xb.get::<i32>());
            duplicate(&x, get_block_idx() as i32, 16);
            for _ in 0..2 {
                init_global_memory(&gm, 16, 0);
                sync_all_soft::<true>(&ws, &flags, 0);
                set_atomic_add::<i32>();
                data_copy(&gm, &x, 16);
                set_atomic_none();
                sync_all_soft::<true>(&ws, &flags, N_CORES as i32);
            }
        })
        .unwrap();
    assert_eq!(out.to_vec(), vec![(0..48).sum::<i32>(); 16]);
    let counters: Vec<i32> = ws.to_vec().chunks(8).map(|c| c[0]).collect();
    assert_eq!(counters, vec![4; 48]);
}

#[test]
fn soft_sync_all_needs_every_core_and_a_large_enough_workspace() {
    let ws = GmBuffer::<i32>::zeroed(8 * 8);
    let a = ws.addr();
    let kernel = move |used: i32, gm_len: usize| {
        move || {
            let gm = bind::<i32>(&a, gm_len);
            let mut ub = LocalMemAllocator::<Ub>::new();
            sync_all_soft::<true>(&gm, &ub.alloc::<i32>(64), used);
        }
    };
    let run = |k| Launch::new(Soc::Ascend910B).block_dim(8).sync_all(true).run(k).unwrap_err().to_string();
    let e = run(kernel(3, 64));
    assert!(
        e.contains("SyncAll: usedCores = 3 of 8 cores: a barrier over a subset of the cores is not emulated"),
        "{e}"
    );
    let e = run(kernel(0, 60));
    assert!(e.contains("SyncAll: gmWorkspace has 60 int32_t elements; 8 cores need at least 64"), "{e}");
}
