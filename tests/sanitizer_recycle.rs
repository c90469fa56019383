//! A host thread reuses the sanitizer state of the last core it ran for its next core (the
//! launch overhead is proportional to what the kernel did; see `docs/speed.md`). These tests
//! check that a reused state starts exactly as a fresh one: a race is caught, with its source
//! line, after any number of clean cores on the same thread, and a clean core passes after a
//! racy one, in every launch mode.

use ascend_runtime::prelude::*;

const N: usize = 64; // f32 elements per tile: 256 bytes

fn bind(addr: &GmAddr, len: usize) -> GlobalTensor<f32> {
    let mut g = GlobalTensor::<f32>::new();
    g.set_global_buffer(*addr, len);
    g
}

/// `z = x + x` through one queue each way; without `fixed`, the `EnQue`/`DeQue` between the
/// copy in and the `Add` is missing (an MTE2 -> V race). Events, queues and GM accesses
/// fill the core's sanitizer state.
fn kernel(fixed: bool, x: GmAddr, z: GmAddr) {
    let (x_gm, z_gm) = (bind(&x, N), bind(&z, N));
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
    add(&z_local, &x_local, &x_local, N); // RACE-LINE
    q_in.free_tensor(x_local);
    q_out.enque(z_local);
    let z_local = q_out.deque::<f32>();
    data_copy(&z_gm, &z_local, N);
    q_out.free_tensor(z_local);
}

fn race_line() -> u32 {
    let src = include_str!("sanitizer_recycle.rs");
    src.lines().position(|l| l.contains("RACE-LINE") && !l.contains("contains")).expect("marker") as u32 + 1
}

#[test]
fn a_reused_sanitizer_state_catches_the_next_race_and_forgets_the_last_one() {
    let x = GmBuffer::from_vec((0..8 * N).map(|i| i as f32).collect());
    let z = GmBuffer::<f32>::zeroed(8 * N);
    let (xa, za) = (x.addr(), z.addr());
    let want: Vec<f32> = (0..8 * N).map(|i| 2.0 * i as f32).collect();
    for mode in [ExecMode::Sequential, ExecMode::Pooled, ExecMode::ThreadPerCore] {
        for round in 0..3 {
            let launch = Launch::new(Soc::Ascend910B).block_dim(8).mode(mode);
            let run = |fixed: bool| {
                launch.run(move || {
                    let off = get_block_idx() as usize * N;
                    kernel(fixed, xa.add::<f32>(off), za.add::<f32>(off))
                })
            };
            z.write_from(&[0.0; 8 * N]);
            run(true).unwrap_or_else(|e| panic!("{mode} round {round}: clean kernel failed: {e}"));
            assert_eq!(z.to_vec(), want, "{mode} round {round}");
            let e = run(false).expect_err("the race must be caught");
            let f = e.primary().expect("a fault");
            assert!(
                f.message.contains("MTE2") && f.line == race_line(),
                "{mode} round {round}: wrong fault: {f}"
            );
            run(true)
                .unwrap_or_else(|e| panic!("{mode} round {round}: clean kernel after a race failed: {e}"));
        }
    }
}

#[test]
fn a_missing_flag_is_caught_after_cores_that_set_and_waited_for_it() {
    // The second kernel copies in and computes with no flag at all: MTE2's copy is unordered
    // before V, whatever earlier cores on the thread set and waited for.
    let x = GmBuffer::from_vec(vec![1.0f32; N]);
    let xa = x.addr();
    let launch = Launch::new(Soc::Ascend910B).mode(ExecMode::Sequential);
    for _ in 0..3 {
        launch
            .run(move || {
                let x_gm = bind(&xa, N);
                let mut pipe = TPipe::new();
                let mut b = TBuf::<VecCalc>::new();
                pipe.init_tbuf(&mut b, N * 4);
                let t = b.get::<f32>();
                data_copy(&t, &x_gm, N);
                set_flag::<HardEvent::MTE2_V>(0);
                wait_flag::<HardEvent::MTE2_V>(0);
                add(&t, &t, &t, N);
            })
            .expect("set then wait: ordered");
        let e = launch
            .run(move || {
                let x_gm = bind(&xa, N);
                let mut pipe = TPipe::new();
                let mut b = TBuf::<VecCalc>::new();
                pipe.init_tbuf(&mut b, N * 4);
                let t = b.get::<f32>();
                data_copy(&t, &x_gm, N);
                add(&t, &t, &t, N);
            })
            .expect_err("no flag: a race");
        assert!(e.to_string().contains("MTE2_V"), "{e}");
    }
}
