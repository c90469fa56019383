//! TPipe, TQue / TQueBind state machine and buffer accounting.

use ascend_core::prelude::*;

use crate::common::util;
use util::{gm, panic_message};

#[test]
fn init_buffer_rounds_len_up_and_carves_contiguously() {
    let mut pipe = TPipe::new();
    let mut a = TQue::<VecIn, 1>::new();
    let mut b = TQue::<VecOut, 1>::new();
    pipe.init_buffer(&mut a, 2, 1000);
    pipe.init_buffer(&mut b, 1, 1);
    assert_eq!(pipe.used_bytes(), 2 * 1024 + 32);
    let (t0, t1) = (a.alloc_tensor::<f32>(), a.alloc_tensor::<f32>());
    assert_eq!((t0.get_phy_addr(), t1.get_phy_addr()), (0, 1024));
    assert_eq!(t0.get_size(), 256);
    assert_eq!(t0.get_position(), TPosition::VECIN);
    let u = b.alloc_tensor::<u8>();
    assert_eq!((u.get_phy_addr(), u.get_size(), u.get_position()), (2048, 32, TPosition::VECOUT));
}

#[test]
fn queue_bind_allocates_at_its_source_position() {
    let mut pipe = TPipe::new();
    let mut q = TQueBind::<VecIn, VecOut, 1>::new();
    pipe.init_buffer(&mut q, 1, 64);
    let t = q.alloc_tensor::<i16>();
    assert_eq!(t.get_position(), TPosition::VECIN);
    q.enque(t);
    assert_eq!(q.deque::<i16>().get_position(), TPosition::VECIN);
}

#[test]
fn alloc_is_round_robin_over_free_buffers() {
    let mut pipe = TPipe::new();
    let mut q = TQue::<VecCalc, 1>::new();
    pipe.init_buffer(&mut q, 3, 32);
    let a = q.alloc_tensor::<u8>();
    let b = q.alloc_tensor::<u8>();
    assert_eq!((a.get_phy_addr(), b.get_phy_addr()), (0, 32));
    q.free_tensor(a);
    // the cursor continues after buffer 1: buffer 2, then wraps to the freed buffer 0
    assert_eq!(q.alloc_tensor::<u8>().get_phy_addr(), 64);
    assert_eq!(q.alloc_tensor::<u8>().get_phy_addr(), 0);
    assert!(!q.has_idle_buffer());
}

#[test]
fn state_queries_follow_the_state_machine() {
    let mut pipe = TPipe::new();
    let mut q = TQue::<VecIn, 2>::new();
    pipe.init_buffer(&mut q, 2, 64);
    let state = |q: &TQue<VecIn, 2>| {
        (q.vacant_in_que(), q.has_tensor_in_que(), q.get_tensor_count_in_que(), q.has_idle_buffer())
    };
    assert_eq!(state(&q), (true, false, 0, true));
    let a = q.alloc_tensor::<f32>();
    assert_eq!(state(&q), (true, false, 0, true));
    let b = q.alloc_tensor::<f32>();
    assert_eq!(state(&q), (true, false, 0, false));
    q.enque(a);
    assert_eq!(state(&q), (true, true, 1, false));
    q.enque(b);
    assert_eq!(state(&q), (false, true, 2, false));
    let a = q.deque::<f32>();
    assert_eq!(state(&q), (true, true, 1, false));
    q.free_tensor(a);
    assert_eq!(state(&q), (true, true, 1, true));
    let b = q.deque::<f32>();
    q.free_tensor(b);
    assert_eq!(state(&q), (true, false, 0, true));
}

#[test]
fn deque_is_fifo_and_returns_whole_buffers() {
    let mut pipe = TPipe::new();
    let mut q = TQue::<VecIn, 3>::new();
    pipe.init_buffer(&mut q, 3, 96);
    let ts: Vec<LocalTensor<f32>> = (0..3).map(|_| q.alloc_tensor::<f32>()).collect();
    for (i, t) in ts.iter().enumerate() {
        t.set_value(0, i as f32);
    }
    // enqueue in the order 2, 0, 1; a view into a buffer stands for the buffer
    q.enque(ts[2].clone());
    q.enque(ts[0].view(8));
    q.enque(ts[1].clone());
    for want in [2.0, 0.0, 1.0] {
        let t = q.deque::<f32>();
        assert_eq!(t.get_size(), 24);
        assert_eq!(t.get_value(0), want);
        q.free_tensor(t);
    }
}

#[test]
fn a_dequeued_buffer_may_be_enqueued_again() {
    let mut pipe = TPipe::new();
    let mut q = TQue::<VecIn, 1>::new();
    pipe.init_buffer(&mut q, 1, 32);
    let t = q.alloc_tensor::<u32>();
    q.enque(t);
    let t = q.deque::<u32>();
    q.enque(t);
    assert_eq!(q.get_tensor_count_in_que(), 1);
}

/// Double buffering with depth 2 and two buffers: two tiles are copied in ahead of the
/// compute, results land in order.
#[test]
fn double_buffered_flow_depth_2_buffer_num_2() {
    const TILE: usize = 64;
    const TILES: usize = 8;
    const BUFFER_NUM: usize = 2;
    let x: Vec<f32> = (0..TILE * TILES).map(|i| i as f32 * 0.5).collect();
    let (_xr, x_gm) = gm(&x);
    let (_yr, y_gm) = gm(&vec![0.0; x.len()]);

    let mut pipe = TPipe::new();
    let mut in_q = TQue::<VecIn, 2>::new();
    let mut out_q = TQue::<VecOut, 2>::new();
    pipe.init_buffer(&mut in_q, BUFFER_NUM, TILE * 4);
    pipe.init_buffer(&mut out_q, BUFFER_NUM, TILE * 4);
    assert_eq!(pipe.used_bytes(), 4 * TILE * 4);

    let copy_in = |q: &mut TQue<VecIn, 2>, i: usize| {
        let t = q.alloc_tensor::<f32>();
        data_copy(&t, &x_gm.view(i * TILE), TILE);
        q.enque(t);
    };
    copy_in(&mut in_q, 0);
    copy_in(&mut in_q, 1);
    assert!(!in_q.vacant_in_que() && !in_q.has_idle_buffer());
    let mut addrs = Vec::new();
    for i in 0..TILES {
        // compute
        let xt = in_q.deque::<f32>();
        addrs.push(xt.get_phy_addr());
        let yt = out_q.alloc_tensor::<f32>();
        for j in 0..TILE {
            yt.set_value(j, xt.get_value(j) + 1.0);
        }
        out_q.enque(yt);
        in_q.free_tensor(xt);
        if i + 2 < TILES {
            copy_in(&mut in_q, i + 2);
        }
        // copy out
        let yt = out_q.deque::<f32>();
        data_copy(&y_gm.view(i * TILE), &yt, TILE);
        out_q.free_tensor(yt);
    }
    // the two input buffers alternate
    assert_eq!(addrs, [0, 256, 0, 256, 0, 256, 0, 256]);
    assert!(!in_q.has_tensor_in_que() && in_q.has_idle_buffer());
    let y: Vec<f32> = (0..x.len()).map(|i| y_gm.get_value(i)).collect();
    let want: Vec<f32> = x.iter().map(|v| v + 1.0).collect();
    assert_eq!(y, want);
}

#[test]
fn alloc_without_a_free_buffer_fails() {
    let mut pipe = TPipe::new();
    let mut q = TQue::<VecIn, 2>::new();
    pipe.init_buffer(&mut q, 2, 32);
    let a = q.alloc_tensor::<f32>();
    q.enque(a);
    let _b = q.alloc_tensor::<f32>();
    let msg = panic_message(|| {
        q.alloc_tensor::<f32>();
    });
    assert!(
        msg.contains(
            "TQue::AllocTensor: no FREE buffer: all 2 of 2 buffers are in use (OCCUPIED 1, ENQUE 1, DEQUE 0)"
        ),
        "{msg}"
    );
}

#[test]
fn enque_beyond_depth_fails() {
    let mut pipe = TPipe::new();
    let mut q = TQue::<VecIn, 1>::new();
    pipe.init_buffer(&mut q, 2, 32);
    let (a, b) = (q.alloc_tensor::<f32>(), q.alloc_tensor::<f32>());
    q.enque(a);
    let msg = panic_message(|| q.enque(b));
    assert!(
        msg.contains("TQue::EnQue: 1 tensor(s) already queued: the queue's depth = 1 is the limit"),
        "{msg}"
    );
}

#[test]
fn enque_of_a_queued_buffer_fails() {
    let mut pipe = TPipe::new();
    let mut q = TQue::<VecIn, 2>::new();
    pipe.init_buffer(&mut q, 2, 32);
    let a = q.alloc_tensor::<f32>();
    q.enque(a.clone());
    let msg = panic_message(|| q.enque(a));
    assert!(msg.contains("TQue::EnQue: buffer 0 (UB address 0x0) is ENQUE"), "{msg}");
}

#[test]
fn enque_of_a_freed_buffer_fails() {
    let mut pipe = TPipe::new();
    let mut q = TQue::<VecIn, 2>::new();
    pipe.init_buffer(&mut q, 2, 32);
    let _a = q.alloc_tensor::<f32>();
    let b = q.alloc_tensor::<f32>();
    q.free_tensor(b.clone());
    let msg = panic_message(|| q.enque(b));
    assert!(msg.contains("TQue::EnQue: buffer 1 (UB address 0x20) is FREE"), "{msg}");
}

#[test]
fn enque_of_a_foreign_tensor_fails() {
    let mut pipe = TPipe::new();
    let mut q = TQue::<VecIn, 2>::new();
    let mut other = TQue::<VecIn, 2>::new();
    let mut buf = TBuf::<VecIn>::new();
    pipe.init_buffer(&mut q, 2, 32);
    pipe.init_buffer(&mut other, 1, 32);
    pipe.init_tbuf(&mut buf, 64);
    let msg = panic_message(|| q.enque(buf.get::<f32>()));
    assert!(
        msg.contains("TQue::EnQue: tensor at UB address 0x60 is not a buffer of this queue (its 2 buffer(s) of 32 bytes span [0x0, 0x40))"),
        "{msg}"
    );
    let t = other.alloc_tensor::<f32>();
    let msg = panic_message(|| q.enque(t));
    assert!(msg.contains("tensor at UB address 0x40 is not a buffer of this queue"), "{msg}");
}

#[test]
fn deque_on_an_empty_queue_fails() {
    let mut pipe = TPipe::new();
    let mut q = TQue::<VecOut, 2>::new();
    pipe.init_buffer(&mut q, 2, 32);
    let msg = panic_message(|| {
        q.deque::<f32>();
    });
    assert!(msg.contains("TQue::DeQue: the queue is empty: 0 tensors queued (depth = 2)"), "{msg}");
    // also after the queue drained
    let t = q.alloc_tensor::<f32>();
    q.enque(t);
    q.deque::<f32>();
    let msg = panic_message(|| {
        q.deque::<f32>();
    });
    assert!(msg.contains("the queue is empty"), "{msg}");
}

#[test]
fn free_of_a_free_buffer_fails() {
    let mut pipe = TPipe::new();
    let mut q = TQue::<VecIn, 1>::new();
    pipe.init_buffer(&mut q, 1, 32);
    let t = q.alloc_tensor::<i32>();
    q.free_tensor(t.clone());
    let msg = panic_message(|| q.free_tensor(t));
    assert!(
        msg.contains(
            "TQue::FreeTensor: buffer 0 (UB address 0x0) is FREE (already freed or never allocated)"
        ),
        "{msg}"
    );
}

#[test]
fn free_of_a_queued_buffer_fails() {
    let mut pipe = TPipe::new();
    let mut q = TQue::<VecIn, 1>::new();
    pipe.init_buffer(&mut q, 1, 32);
    let t = q.alloc_tensor::<i32>();
    q.enque(t.clone());
    let msg = panic_message(|| q.free_tensor(t));
    assert!(
        msg.contains("TQue::FreeTensor: buffer 0 (UB address 0x0) is ENQUE (still queued: DeQue it first)"),
        "{msg}"
    );
}

#[test]
fn free_of_a_foreign_tensor_fails() {
    let mut pipe = TPipe::new();
    let mut q = TQue::<VecIn, 1>::new();
    let mut buf = TBuf::<VecCalc>::new();
    pipe.init_buffer(&mut q, 1, 32);
    pipe.init_tbuf(&mut buf, 32);
    let msg = panic_message(|| q.free_tensor(buf.get::<i32>()));
    assert!(
        msg.contains("TQue::FreeTensor: tensor at UB address 0x20 is not a buffer of this queue"),
        "{msg}"
    );
}

#[test]
fn using_a_queue_before_init_buffer_fails() {
    let mut q = TQue::<VecIn, 1>::new();
    let no_buffers = "the queue has no buffers: call TPipe::init_buffer first";
    let msg = panic_message(|| {
        q.alloc_tensor::<f32>();
    });
    assert!(msg.contains(&format!("TQue::AllocTensor: {no_buffers}")), "{msg}");
    let msg = panic_message(|| {
        q.deque::<f32>();
    });
    assert!(msg.contains(&format!("TQue::DeQue: {no_buffers}")), "{msg}");
    let msg = panic_message(|| {
        q.has_idle_buffer();
    });
    assert!(msg.contains(&format!("TQue::HasIdleBuffer: {no_buffers}")), "{msg}");
    let msg = panic_message(|| {
        q.vacant_in_que();
    });
    assert!(msg.contains(&format!("TQue::VacantInQue: {no_buffers}")), "{msg}");
}

#[test]
fn init_buffer_twice_on_one_queue_fails() {
    let mut pipe = TPipe::new();
    let mut q = TQue::<VecIn, 1>::new();
    pipe.init_buffer(&mut q, 2, 1000);
    let msg = panic_message(|| pipe.init_buffer(&mut q, 1, 32));
    assert!(
        msg.contains("TPipe::InitBuffer: the queue already has 2 buffer(s) of 1024 bytes from this pipe"),
        "{msg}"
    );
}

/// A queue whose buffers would be in global memory (Ascend910B's CO2) fails; the cube's
/// queues are in `cube_queue.rs`.
#[test]
fn init_buffer_of_a_gm_queue_fails() {
    run_on_core(CoreConfig::single(Soc::Ascend910B), || {
        let mut pipe = TPipe::new();
        let mut q = TQue::<Co2, 1>::new();
        let msg = panic_message(|| pipe.init_buffer(&mut q, 1, 32));
        assert!(msg.contains("TPipe::InitBuffer: the queue CO2 -> CO2 keeps its buffers at CO2"), "{msg}");
    });
}

#[test]
fn init_buffer_beyond_the_ub_fails_with_the_sizes_910b() {
    run_on_core(CoreConfig::single(Soc::Ascend910B), || {
        let mut pipe = TPipe::new();
        let mut q = TQue::<VecIn, 1>::new();
        let msg = panic_message(|| pipe.init_buffer(&mut q, 2, 98305));
        assert!(
            msg.contains(
                "core 0: TPipe::InitBuffer: 2 buffer(s) of 98305 bytes (rounded to 98336) need 196672 bytes, but only \
                 196608 of the Unified Buffer's 196608 bytes are free (0 already used)"
            ),
            "{msg}"
        );
        // exactly the whole UB fits
        pipe.init_buffer(&mut q, 2, 98304);
        assert_eq!(pipe.used_bytes(), 196608);
    });
}

#[test]
fn init_buffer_beyond_the_ub_fails_with_the_sizes_910() {
    run_on_core(CoreConfig::single(Soc::Ascend910), || {
        let mut pipe = TPipe::new();
        let (mut a, mut b) = (TQue::<VecIn, 1>::new(), TQue::<VecOut, 1>::new());
        pipe.init_buffer(&mut a, 2, 131000);
        let msg = panic_message(|| pipe.init_buffer(&mut b, 1, 129));
        assert!(
            msg.contains(
                "TPipe::InitBuffer: 1 buffer(s) of 129 bytes (rounded to 160) need 160 bytes, but only 128 of the \
                 Unified Buffer's 262144 bytes are free (262016 already used)"
            ),
            "{msg}"
        );
        pipe.init_buffer(&mut b, 1, 128);
    });
}

#[test]
fn the_65th_buffer_fails() {
    let mut pipe = TPipe::new();
    let mut q = TQue::<VecIn, 1>::new();
    pipe.init_buffer(&mut q, 63, 32);
    let mut buf = TBuf::<VecCalc>::new();
    pipe.init_tbuf(&mut buf, 32);
    let mut r = TQue::<VecOut, 1>::new();
    let msg = panic_message(|| pipe.init_buffer(&mut r, 1, 32));
    assert!(
        msg.contains("TPipe::InitBuffer: num = 1 more buffers would make 65 in this pipe; the limit is 64"),
        "{msg}"
    );
}

#[test]
fn num_out_of_range_fails() {
    let mut pipe = TPipe::new();
    let mut q = TQue::<VecIn, 1>::new();
    let msg = panic_message(|| pipe.init_buffer(&mut q, 65, 32));
    assert!(msg.contains("TPipe::InitBuffer: num = 65 is out of range [1, 64]"), "{msg}");
    let msg = panic_message(|| pipe.init_buffer(&mut q, 0, 32));
    assert!(msg.contains("num = 0 is out of range [1, 64]"), "{msg}");
    let msg = panic_message(|| pipe.init_buffer(&mut q, 1, 0));
    assert!(msg.contains("len = 0"), "{msg}");
}

#[test]
fn reset_allows_reallocation_and_retires_old_buffers() {
    run_on_core(CoreConfig::single(Soc::Ascend910B), || {
        let mut pipe = TPipe::new();
        let mut q = TQue::<VecIn, 1>::new();
        pipe.init_buffer(&mut q, 64, 3072); // the whole UB, all 64 buffers
        let _t = q.alloc_tensor::<f32>();
        pipe.reset();
        assert_eq!(pipe.used_bytes(), 0);
        let msg = panic_message(|| {
            q.alloc_tensor::<f32>();
        });
        assert!(
            msg.contains("TQue::AllocTensor: the queue's buffers were released by TPipe::reset"),
            "{msg}"
        );
        let msg = panic_message(|| {
            q.get_tensor_count_in_que();
        });
        assert!(msg.contains("TQue::GetTensorCountInQue: the queue's buffers were released"), "{msg}");
        // the same queue and new ones get fresh buffers from the start of the UB
        pipe.init_buffer(&mut q, 2, 65536);
        let mut r = TQue::<VecOut, 2>::new();
        pipe.init_buffer(&mut r, 1, 65536);
        assert_eq!(q.alloc_tensor::<f32>().get_phy_addr(), 0);
        assert_eq!(r.alloc_tensor::<f32>().get_phy_addr(), 131072);
        assert!(q.has_idle_buffer());
    });
}

#[test]
fn a_queue_outliving_its_pipe_fails() {
    let mut q = TQue::<VecIn, 1>::new();
    {
        let mut pipe = TPipe::new();
        pipe.init_buffer(&mut q, 1, 32);
    }
    let msg = panic_message(|| {
        q.alloc_tensor::<u8>();
    });
    assert!(msg.contains("released by TPipe::reset (or the pipe was dropped)"), "{msg}");
    // a new pipe may give it buffers again
    let mut pipe = TPipe::new();
    pipe.init_buffer(&mut q, 1, 32);
    assert_eq!(q.alloc_tensor::<u8>().get_size(), 32);
}

/// FIFO order and buffer lookup over many rounds: 64 buffers (the most one pipe hands out) of
/// a length that is not a power of two, enqueued in a shuffled order, each through a view at
/// a random element of its buffer, checked against a plain model queue.
#[test]
fn fifo_order_and_buffer_lookup_over_many_rounds() {
    let mut pipe = TPipe::new();
    let mut q = TQue::<VecIn, 64>::new();
    pipe.init_buffer(&mut q, 64, 96);
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: usize| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n as u64) as usize
    };
    let mut model = std::collections::VecDeque::new();
    for round in 0..50 {
        let mut held: Vec<LocalTensor<u16>> =
            (0..64 - model.len()).map(|_| q.alloc_tensor::<u16>()).collect();
        assert!(!q.has_idle_buffer());
        while !held.is_empty() {
            let t = held.swap_remove(next(held.len()));
            model.push_back(t.get_phy_addr());
            q.enque(t.view(next(t.get_size())));
        }
        assert_eq!(q.get_tensor_count_in_que(), 64);
        // Leave a different number queued each round, so the ring's head moves around.
        for _ in 0..64 - round % 7 {
            let t = q.deque::<u16>();
            assert_eq!(Some(t.get_phy_addr()), model.pop_front());
            assert_eq!(t.get_size(), 48);
            let last = t.view(47);
            q.free_tensor(last);
        }
        assert_eq!(q.get_tensor_count_in_que(), model.len());
    }
}
