//! `TBufPool`: the docs' examples (addresses exact), queues and `TBuf`s from a pool behaving as
//! the pipe's own, a simple model of the pools' bump allocation and in-use rule checked
//! against the implementation over random operation sequences, the sanitizer across a pool
//! switch, and every checked misuse.

use std::cell::RefCell;

use ascend_core::prelude::*;
use ascend_core::sanitizer::LaunchSanitizer;

use crate::common::util;
use util::{expect_panic, gm, on};

use crate::common::prop as strat;
use proptest::prelude::*;

/// Allocates a tensor of `q`, checks its UB address, and frees it.
#[track_caller]
fn alloc_at<const D: usize, P: Position>(q: &mut TQue<P, D>, addr: usize) {
    let t = q.alloc_tensor::<u8>();
    assert_eq!(t.get_phy_addr(), addr);
    q.free_tensor(t);
}

// ---------------------------------------------------------------- the docs' examples

/// docs/zh/api/SIMD-API/基础API/资源管理/TPipe/InitBufPool.md, 调用示例: two pools over the same
/// `bufSize * 3` bytes, three queues in each, a stage per pool with a Reset in between.
#[test]
fn docs_tpipe_init_buf_pool_example() {
    on(Soc::Ascend910B, || {
        const BUF_SIZE: usize = 4096;
        let mut pipe = TPipe::new();
        let (mut tbuf_pool1, mut tbuf_pool2) = (TBufPool::<VecCalc>::new(), TBufPool::<VecCalc>::new());
        pipe.init_buf_pool(&mut tbuf_pool1, BUF_SIZE * 3);
        pipe.init_buf_pool_shared(&mut tbuf_pool2, BUF_SIZE * 3, &tbuf_pool1);
        assert_eq!(pipe.used_bytes(), BUF_SIZE * 3);
        let (mut src_que0, mut src_que1) = (TQue::<VecIn, 1>::new(), TQue::<VecIn, 1>::new());
        let mut dst_que0 = TQue::<VecOut, 1>::new();
        tbuf_pool1.init_buffer(&mut src_que0, 1, BUF_SIZE);
        tbuf_pool1.init_buffer(&mut src_que1, 1, BUF_SIZE);
        tbuf_pool1.init_buffer(&mut dst_que0, 1, BUF_SIZE);
        alloc_at(&mut src_que0, 0);
        alloc_at(&mut src_que1, BUF_SIZE);
        alloc_at(&mut dst_que0, 2 * BUF_SIZE);
        tbuf_pool1.reset();
        let (mut src_que2, mut src_que3) = (TQue::<VecIn, 1>::new(), TQue::<VecIn, 1>::new());
        let mut dst_que1 = TQue::<VecOut, 1>::new();
        tbuf_pool2.init_buffer(&mut src_que2, 1, BUF_SIZE);
        tbuf_pool2.init_buffer(&mut src_que3, 1, BUF_SIZE);
        tbuf_pool2.init_buffer(&mut dst_que1, 1, BUF_SIZE);
        alloc_at(&mut src_que2, 0);
        alloc_at(&mut src_que3, BUF_SIZE);
        alloc_at(&mut dst_que1, 2 * BUF_SIZE);
        tbuf_pool2.reset();
    });
}

/// docs/zh/api/SIMD-API/基础API/资源管理/TBufPool/InitBufPool-55.md, 调用示例: pool0 of
/// `bufSize * 4`; pool1 (`bufSize * 2`) carved from it, then srcQue0 (`bufSize * 2`), then
/// pool2 sharing pool1's bytes.
#[test]
fn docs_tbufpool_init_buf_pool_example() {
    on(Soc::Ascend910B, || {
        const BUF_SIZE: usize = 2048;
        let mut pipe = TPipe::new();
        let mut tbuf_pool0 = TBufPool::<VecCalc>::new();
        let (mut tbuf_pool1, mut tbuf_pool2) = (TBufPool::<VecCalc>::new(), TBufPool::<VecCalc>::new());
        let (mut src_que0, mut src_que1, mut src_que2) =
            (TQue::<VecIn, 1>::new(), TQue::<VecIn, 1>::new(), TQue::<VecIn, 1>::new());
        let (mut dst_que0, mut dst_que1) = (TQue::<VecOut, 1>::new(), TQue::<VecOut, 1>::new());
        pipe.init_buf_pool(&mut tbuf_pool0, BUF_SIZE * 4);
        // bufIDSize 4 = the 4 buffers pool0 has left, before srcQue0 takes one.
        tbuf_pool0.init_buf_pool(&mut tbuf_pool1, BUF_SIZE * 2);
        tbuf_pool0.init_buffer(&mut src_que0, 1, BUF_SIZE * 2);
        tbuf_pool0.init_buf_pool_shared(&mut tbuf_pool2, BUF_SIZE * 2, &tbuf_pool1);
        tbuf_pool1.init_buffer(&mut src_que1, 1, BUF_SIZE);
        tbuf_pool1.init_buffer(&mut dst_que0, 1, BUF_SIZE);
        alloc_at(&mut src_que0, 2 * BUF_SIZE);
        alloc_at(&mut src_que1, 0);
        alloc_at(&mut dst_que0, BUF_SIZE);
        tbuf_pool1.reset();
        tbuf_pool2.init_buffer(&mut src_que2, 1, BUF_SIZE);
        tbuf_pool2.init_buffer(&mut dst_que1, 1, BUF_SIZE);
        alloc_at(&mut src_que0, 2 * BUF_SIZE);
        alloc_at(&mut src_que2, 0);
        alloc_at(&mut dst_que1, BUF_SIZE);
        tbuf_pool2.reset();
        tbuf_pool0.reset();
        pipe.reset();
        assert_eq!(pipe.used_bytes(), 0);
    });
}

// ---------------------------------------------------------------- queues and TBufs in a pool

#[test]
fn a_pool_queue_behaves_as_a_pipe_queue() {
    let mut pipe = TPipe::new();
    let mut pool = TBufPool::<VecCalc>::new();
    pipe.init_tbuf(&mut TBuf::<VecCalc>::new(), 100); // the pool starts after 128 bytes
    pipe.init_buf_pool(&mut pool, 1000);
    let mut q = TQue::<VecIn, 2>::new();
    pool.init_buffer(&mut q, 2, 300); // two buffers of 320 bytes
    let a = q.alloc_tensor::<f32>();
    let b = q.alloc_tensor::<f32>();
    assert_eq!((a.get_phy_addr(), b.get_phy_addr(), a.get_size()), (128, 448, 80));
    assert!(!q.has_idle_buffer());
    expect_panic(|| drop(q.alloc_tensor::<f32>()), &["TQue::AllocTensor", "no FREE buffer: all 2 of 2"]);
    q.enque(a);
    q.enque(b);
    assert_eq!(q.get_tensor_count_in_que(), 2);
    let a = q.deque::<f32>();
    assert_eq!(a.get_phy_addr(), 128);
    q.free_tensor(a.clone());
    expect_panic(|| q.free_tensor(a), &["TQue::FreeTensor", "is FREE"]);
    let b = q.deque::<f32>();
    q.free_tensor(b);
    // Round robin continues where it left off.
    assert_eq!(q.alloc_tensor::<u8>().get_phy_addr(), 128);
}

#[test]
fn a_pool_tbuf_behaves_as_a_pipe_tbuf() {
    let mut pipe = TPipe::new();
    let mut pool = TBufPool::<VecCalc>::new();
    pipe.init_buf_pool(&mut pool, 1024);
    let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecOut>::new());
    pool.init_tbuf(&mut a, 100);
    pool.init_tbuf(&mut b, 64);
    assert_eq!(a.get::<f32>().get_size(), 32);
    assert_eq!(b.get_with_offset::<u16>(16, 32).get_phy_addr(), 128 + 32);
    assert_eq!(b.get::<u8>().get_position(), TPosition::VECOUT);
    expect_panic(|| drop(a.get_with_len::<f32>(33)), &["TBuf::Get", "len = 33"]);
}

#[test]
fn a_pool_holds_at_most_buf_id_size_buffers() {
    let mut pipe = TPipe::new();
    let mut pool = TBufPool::<VecCalc>::new();
    pipe.init_buf_pool(&mut pool, 8192);
    let mut q = TQue::<VecIn, 1>::new();
    pool.init_buffer(&mut q, 3, 32);
    let mut b = TBuf::<VecCalc>::new();
    pool.init_tbuf(&mut b, 32);
    expect_panic(
        || pool.init_tbuf(&mut TBuf::<VecCalc>::new(), 32),
        &[
            "TBufPool::InitBuffer",
            "num = 1 buffer(s) would make 5 in this TBufPool; its bufIDSize = 4 is the limit",
        ],
    );
    let mut big = TBufPool::<VecCalc, 16>::new();
    pipe.init_buf_pool(&mut big, 8192);
    let mut q16 = TQue::<VecIn, 1>::new();
    big.init_buffer(&mut q16, 16, 32);
    expect_panic(|| big.init_tbuf(&mut TBuf::<VecCalc>::new(), 32), &["would make 17", "bufIDSize = 16"]);
    expect_panic(|| pool.init_buffer(&mut TQue::<VecIn, 1>::new(), 0, 32), &["num = 0"]);
}

#[test]
fn capacity_is_checked() {
    on(Soc::Ascend910B, || {
        let mut pipe = TPipe::new();
        let mut pool = TBufPool::<VecCalc>::new();
        pipe.init_buf_pool(&mut pool, 1000);
        let mut q = TQue::<VecIn, 1>::new();
        pool.init_buffer(&mut q, 2, 256);
        expect_panic(
            || pool.init_buffer(&mut TQue::<VecIn, 1>::new(), 2, 257),
            &[
                "TBufPool::InitBuffer",
                "2 buffer(s) of 257 bytes",
                "need 576 bytes, but only 512 of the TBufPool's 1024",
            ],
        );
        let mut inner = TBufPool::<VecCalc, 1>::new();
        expect_panic(
            || pool.init_buf_pool(&mut inner, 513),
            &[
                "TBufPool::InitBufPool",
                "len = 513 bytes",
                "exceeds the 512 free bytes of the TBufPool's 1024",
            ],
        );
        expect_panic(|| pool.init_tbuf(&mut TBuf::<VecCalc>::new(), 0), &["len = 0"]);
        let mut huge = TBufPool::<VecCalc>::new();
        expect_panic(
            || pipe.init_buf_pool(&mut huge, 196_608),
            &[
                "TPipe::InitBufPool",
                "need 196608 bytes, but only 195584 of the Unified Buffer's 196608 bytes are free",
            ],
        );
        expect_panic(|| pipe.init_buf_pool(&mut huge, 0), &["TPipe::InitBufPool", "len = 0"]);
    });
}

#[test]
fn nested_pools_follow_the_buf_id_size_rules() {
    let mut pipe = TPipe::new();
    let mut outer = TBufPool::<VecCalc>::new();
    pipe.init_buf_pool(&mut outer, 4096);
    let mut q = TQue::<VecIn, 1>::new();
    outer.init_buffer(&mut q, 1, 32);
    // Non-shared: at most the 3 buffers outer has left.
    expect_panic(
        || outer.init_buf_pool(&mut TBufPool::<VecCalc>::new(), 64),
        &[
            "TBufPool::InitBufPool",
            "the new pool's bufIDSize = 4 exceeds the 3 buffer(s) this pool (bufIDSize = 4) has left",
        ],
    );
    let mut p1 = TBufPool::<VecCalc, 3>::new();
    outer.init_buf_pool(&mut p1, 1024);
    // Shared: at most outer's bufIDSize.
    expect_panic(
        || outer.init_buf_pool_shared(&mut TBufPool::<VecCalc, 5>::new(), 64, &p1),
        &["the new pool's bufIDSize = 5 exceeds this pool's bufIDSize = 4"],
    );
    let mut p2 = TBufPool::<VecCalc, 4>::new();
    outer.init_buf_pool_shared(&mut p2, 1024, &p1);
    let mut q2 = TQue::<VecIn, 1>::new();
    p2.init_buffer(&mut q2, 1, 1024);
    assert_eq!(q2.alloc_tensor::<u8>().get_phy_addr(), 32);
}

#[test]
fn shared_pools_are_checked() {
    let mut pipe = TPipe::new();
    let (mut a, mut b) = (TBufPool::<VecCalc>::new(), TBufPool::<VecCalc>::new());
    expect_panic(
        || pipe.init_buf_pool_shared(&mut b, 64, &a),
        &["TPipe::InitBufPool", "shareBuf has no memory"],
    );
    pipe.init_buf_pool(&mut a, 1024);
    expect_panic(
        || pipe.init_buf_pool_shared(&mut b, 1025, &a),
        &["len = 1025 bytes (rounded to a multiple of 32) exceeds the length of shareBuf", "1024 bytes"],
    );
    // The shared pool gets shareBuf's whole length, whatever len says.
    pipe.init_buf_pool_shared(&mut b, 64, &a);
    let mut q = TQue::<VecIn, 1>::new();
    b.init_buffer(&mut q, 1, 1024);
    a.reset();
    expect_panic(
        || pipe.init_buf_pool_shared(&mut TBufPool::<VecCalc>::new(), 64, &a),
        &["shareBuf (TBufPool<VECCALC> over UB [0x0, 0x400)) was reset: its length is 0"],
    );
}

#[test]
fn a_pool_gets_its_memory_once() {
    let mut pipe = TPipe::new();
    let mut pool = TBufPool::<VecCalc>::new();
    pipe.init_buf_pool(&mut pool, 256);
    expect_panic(
        || pipe.init_buf_pool(&mut pool, 256),
        &["TPipe::InitBufPool", "the pool already has its memory (TBufPool<VECCALC> over UB [0x0, 0x100))"],
    );
    pool.reset();
    expect_panic(
        || pool.init_buffer(&mut TQue::<VecIn, 1>::new(), 1, 32),
        &["TBufPool::InitBuffer", "was reset: TBufPool::Reset leaves it no memory to hand out"],
    );
    expect_panic(
        || pool.init_buf_pool(&mut TBufPool::<VecCalc, 1>::new(), 32),
        &["TBufPool::InitBufPool", "was reset"],
    );
    // After the reset it may be given memory again.
    pipe.init_buf_pool(&mut pool, 256);
    let mut q = TQue::<VecIn, 1>::new();
    pool.init_buffer(&mut q, 1, 32);
    assert_eq!(q.alloc_tensor::<u8>().get_phy_addr(), 256);
    expect_panic(
        || TBufPool::<VecCalc>::new().init_buffer(&mut TQue::<VecIn, 1>::new(), 1, 32),
        &["TBufPool::InitBuffer", "the TBufPool has no memory"],
    );
}

#[test]
fn reset_needs_every_buffer_free() {
    let mut pipe = TPipe::new();
    let mut pool = TBufPool::<VecCalc>::new();
    pipe.init_buf_pool(&mut pool, 1024);
    let mut q = TQue::<VecIn, 2>::new();
    pool.init_buffer(&mut q, 2, 256);
    let a = q.alloc_tensor::<f32>();
    let msg = "1 buffer(s) of the queues of TBufPool<VECCALC> over UB [0x0, 0x400) are still in use";
    expect_panic(|| pool.reset(), &["TBufPool::Reset", msg]);
    q.enque(a);
    expect_panic(|| pool.reset(), &["TBufPool::Reset", msg]);
    let a = q.deque::<f32>();
    expect_panic(|| pool.reset(), &["TBufPool::Reset", msg]);
    q.free_tensor(a);
    pool.reset();
    // The queue keeps its buffers: switching back needs no new InitBuffer.
    alloc_at(&mut q, 256);
    pool.reset();
    // A pool without memory is left alone.
    TBufPool::<VecCalc>::new().reset();
}

/// The docs' constraint 2: switching between pools that share bytes needs a Reset of the one
/// used before; using a buffer of the other meanwhile fails, naming both pools.
#[test]
fn switching_pools_needs_a_reset() {
    let mut pipe = TPipe::new();
    let (mut p1, mut p2) = (TBufPool::<VecCalc>::new(), TBufPool::<VecCalc>::new());
    pipe.init_buf_pool(&mut p1, 1024);
    pipe.init_buf_pool_shared(&mut p2, 1024, &p1);
    let (mut q1, mut q2) = (TQue::<VecIn, 1>::new(), TQue::<VecIn, 1>::new());
    let mut b2 = TBuf::<VecCalc>::new();
    p1.init_buffer(&mut q1, 1, 512);
    p2.init_buffer(&mut q2, 1, 512); // giving buffers is fine; using them is not
    p2.init_tbuf(&mut b2, 512);
    alloc_at(&mut q1, 0);
    let conflict = "shares its bytes with TBufPool<VECCALC> over UB [0x0, 0x400), which is in use";
    expect_panic(
        || drop(q2.alloc_tensor::<u8>()),
        &["TQue::AllocTensor", "the buffer at UB [0x0, 0x200)", conflict],
    );
    expect_panic(|| drop(b2.get::<u8>()), &["TBuf::Get", "the buffer at UB [0x200, 0x400)", conflict]);
    // The failed AllocTensor took nothing: after the reset, the same queue allocates.
    p1.reset();
    alloc_at(&mut q2, 0);
    assert_eq!(b2.get::<u8>().get_phy_addr(), 512);
    // And back: p2 is in use now.
    expect_panic(|| drop(q1.alloc_tensor::<u8>()), &["TQue::AllocTensor", conflict]);
    p2.reset();
    alloc_at(&mut q1, 0);
}

/// A pool and the pools carved from it (at any depth) never conflict; nor do pools over
/// disjoint bytes.
#[test]
fn nested_and_disjoint_pools_do_not_conflict() {
    let mut pipe = TPipe::new();
    let (mut outer, mut other) = (TBufPool::<VecCalc>::new(), TBufPool::<VecCalc>::new());
    pipe.init_buf_pool(&mut outer, 2048);
    pipe.init_buf_pool(&mut other, 1024);
    let (mut mid, mut inner) = (TBufPool::<VecCalc, 2>::new(), TBufPool::<VecCalc, 1>::new());
    outer.init_buf_pool(&mut mid, 1024);
    mid.init_buf_pool(&mut inner, 512);
    let (mut qo, mut qm, mut qi, mut qx) =
        (TQue::<VecIn, 1>::new(), TQue::<VecIn, 1>::new(), TQue::<VecIn, 1>::new(), TQue::<VecIn, 1>::new());
    outer.init_buffer(&mut qo, 1, 1024);
    mid.init_buffer(&mut qm, 1, 512);
    inner.init_buffer(&mut qi, 1, 512);
    other.init_buffer(&mut qx, 1, 1024);
    let ts =
        [qo.alloc_tensor::<u8>(), qm.alloc_tensor::<u8>(), qi.alloc_tensor::<u8>(), qx.alloc_tensor::<u8>()];
    assert_eq!(ts.each_ref().map(|t| t.get_phy_addr()), [1024, 512, 0, 2048]);
}

#[test]
fn requeueing_needs_the_pool_reset_and_the_buffers_free() {
    let mut pipe = TPipe::new();
    let (mut p1, mut p2) = (TBufPool::<VecCalc>::new(), TBufPool::<VecCalc>::new());
    pipe.init_buf_pool(&mut p1, 1024);
    pipe.init_buf_pool_shared(&mut p2, 1024, &p1);
    let mut q = TQue::<VecIn, 1>::new();
    p1.init_buffer(&mut q, 1, 256);
    let again = "the queue already has 1 buffer(s) of 256 bytes from this pipe";
    expect_panic(|| p2.init_buffer(&mut q, 1, 512), &["TBufPool::InitBuffer", again]);
    expect_panic(|| pipe.init_buffer(&mut q, 1, 512), &["TPipe::InitBuffer", again]);
    p1.reset();
    let t = q.alloc_tensor::<u8>(); // switched back to p1, then the buffer is in use
    expect_panic(
        || p2.init_buffer(&mut q, 1, 512),
        &["the queue's pool was reset, but 1 of its 1 buffer(s) are in use"],
    );
    q.free_tensor(t);
    p1.reset();
    p2.init_buffer(&mut q, 1, 512);
    alloc_at(&mut q, 0);
    assert_eq!(q.alloc_tensor::<u8>().get_size(), 512);
}

#[test]
fn pipe_reset_releases_pools_and_their_buffers() {
    let mut pipe = TPipe::new();
    let mut pool = TBufPool::<VecCalc>::new();
    pipe.init_buf_pool(&mut pool, 1024);
    let mut q = TQue::<VecIn, 1>::new();
    let mut b = TBuf::<VecCalc>::new();
    pool.init_buffer(&mut q, 1, 256);
    pool.init_tbuf(&mut b, 256);
    pipe.reset();
    expect_panic(|| drop(q.alloc_tensor::<u8>()), &["TQue::AllocTensor", "released by TPipe::reset"]);
    expect_panic(|| drop(b.get::<u8>()), &["TBuf::Get", "released by TPipe::reset"]);
    expect_panic(
        || pool.init_buffer(&mut TQue::<VecIn, 1>::new(), 1, 32),
        &["TBufPool::InitBuffer", "the pool's memory was released by TPipe::reset"],
    );
    pool.reset(); // nothing to do
    pipe.init_buf_pool(&mut pool, 512); // a new pool on the reset pipe
    pool.init_buffer(&mut q, 1, 512);
    alloc_at(&mut q, 0);
}

#[test]
fn chips_and_positions_are_checked() {
    on(Soc::Ascend310B, || {
        let mut pipe = TPipe::new();
        expect_panic(
            || pipe.init_buf_pool(&mut TBufPool::<VecCalc>::new(), 256),
            &["TPipe::InitBufPool", "TBufPool is not supported on Ascend310B (Atlas 200/500 A2 inference)"],
        );
    });
    for soc in [Soc::Ascend910, Soc::Ascend910B, Soc::Ascend310P] {
        on(soc, || {
            let mut pipe = TPipe::new();
            let mut pool = TBufPool::<VecIn>::new();
            pipe.init_buf_pool(&mut pool, 256);
            let mut q = TQue::<VecOut, 1>::new();
            pool.init_buffer(&mut q, 1, 256);
            alloc_at(&mut q, 0);
        });
    }
    let mut pipe = TPipe::new();
    expect_panic(
        || pipe.init_buf_pool(&mut TBufPool::<A1>::new(), 256),
        &["the pool's position is A1: only VECIN, VECOUT and VECCALC pools (Unified Buffer) are emulated"],
    );
    let mut pool = TBufPool::<VecCalc>::new();
    pipe.init_buf_pool(&mut pool, 256);
    expect_panic(|| pool.init_tbuf(&mut TBuf::<B1>::new(), 32), &["the TBuf's position is B1"]);
    expect_panic(|| pool.init_buffer(&mut TQue::<A1, 1>::new(), 1, 32), &["the queue's position is A1"]);
    assert_eq!((QBUFPOOL_MAX_LEN, DEFAULT_BUF_ID_SIZE), (16, 4));
}

// ---------------------------------------------------------------- a model, randomly

/// One operation on four pools (`p`, `q`, `s` index them).
#[derive(Clone, Debug)]
enum Op {
    PipePool {
        p: usize,
        len: usize,
    },
    PipeShared {
        p: usize,
        s: usize,
        len: usize,
    },
    Nested {
        parent: usize,
        p: usize,
        len: usize,
    },
    NestedShared {
        parent: usize,
        p: usize,
        s: usize,
        len: usize,
    },
    /// A new queue of `num` buffers from pool `p`; its first buffer is allocated and freed.
    Queue {
        p: usize,
        num: usize,
        len: usize,
    },
    /// A new `TBuf` from pool `p`, then `Get`.
    Buf {
        p: usize,
        len: usize,
    },
    Reset {
        p: usize,
    },
}

fn op_strategy() -> impl Strategy<Value = Op> {
    let len = prop_oneof![1..=256usize, 1..=8192usize, 1..=80_000usize];
    let i = || 0..4usize;
    prop_oneof![
        (i(), len.clone()).prop_map(|(p, len)| Op::PipePool { p, len }),
        (i(), i(), len.clone()).prop_map(|(p, s, len)| Op::PipeShared { p, s, len }),
        (i(), i(), len.clone()).prop_map(|(parent, p, len)| Op::Nested { parent, p, len }),
        (i(), i(), i(), len.clone()).prop_map(|(parent, p, s, len)| Op::NestedShared { parent, p, s, len }),
        (i(), 0..=3usize, len.clone()).prop_map(|(p, num, len)| Op::Queue { p, num, len }),
        (i(), len).prop_map(|(p, len)| Op::Buf { p, len }),
        i().prop_map(|p| Op::Reset { p }),
    ]
}

/// A pool's memory in the model: AscendC's startAddr_/maxAddr_/maxLen_/curBufSize_, the bytes
/// it covers, whether it is in use, and the pool it was carved from.
#[derive(Clone, Debug)]
struct Node {
    start: usize,
    end: usize,
    cur: usize,
    max_len: usize,
    buffers: usize,
    in_use: bool,
    parent: Option<usize>,
}

/// The model: the pipe's next free byte, every pool memory ever given, and which one each of
/// the four pools holds.
struct Model {
    ub: usize,
    pipe_cur: usize,
    nodes: Vec<Node>,
    of: [Option<usize>; 4],
}

const IDS: usize = DEFAULT_BUF_ID_SIZE;

fn round(len: usize) -> usize {
    len.div_ceil(32) * 32
}

impl Model {
    /// Whether pool `p` may be given memory (it has none, or it was reset).
    fn free(&self, p: usize) -> bool {
        self.of[p].is_none_or(|n| self.nodes[n].max_len == 0)
    }

    fn ancestor(&self, a: usize, mut b: usize) -> bool {
        loop {
            if a == b {
                return true;
            }
            match self.nodes[b].parent {
                Some(x) => b = x,
                None => return false,
            }
        }
    }

    /// Whether using bytes `[a, a + len)` of node `n` is allowed; if so, `n` is in use.
    fn use_bytes(&mut self, n: usize, a: usize, len: usize) -> bool {
        let conflict = (0..self.nodes.len()).any(|m| {
            let o = &self.nodes[m];
            m != n
                && o.in_use
                && a < o.end
                && o.start < a + len
                && !self.ancestor(m, n)
                && !self.ancestor(n, m)
        });
        if !conflict {
            self.nodes[n].in_use = true;
        }
        !conflict
    }

    fn add(&mut self, p: usize, start: usize, max_len: usize, parent: Option<usize>) {
        let node =
            Node { start, end: start + max_len, cur: start, max_len, buffers: 0, in_use: false, parent };
        self.nodes.push(node);
        self.of[p] = Some(self.nodes.len() - 1);
    }

    /// Buffers of `num * round(len)` bytes from pool `p`: their base, if they fit.
    fn take(&mut self, p: usize, num: usize, len: usize) -> Option<usize> {
        let n = self.of[p]?;
        let node = &mut self.nodes[n];
        let ok = node.max_len > 0
            && len > 0
            && num >= 1
            && node.buffers + num <= IDS
            && node.cur + num * round(len) <= node.start + node.max_len;
        ok.then(|| {
            let base = node.cur;
            node.cur += num * round(len);
            node.buffers += num;
            base
        })
    }
}

fn run_ops(ops: &[Op]) {
    on(Soc::Ascend910B, || {
        let mut pipe = TPipe::new();
        let pools: [RefCell<TBufPool<VecCalc>>; 4] = Default::default();
        let mut queues: Vec<Box<TQue<VecIn, 1>>> = Vec::new();
        let mut bufs: Vec<Box<TBuf<VecCalc>>> = Vec::new();
        let mut m = Model { ub: Soc::Ascend910B.ub_size(), pipe_cur: 0, nodes: Vec::new(), of: [None; 4] };
        let ok = |f: &mut dyn FnMut()| util::catch_quiet(f).is_ok();
        for (k, op) in ops.iter().enumerate() {
            let ctx = format!("op {k}: {op:?}");
            match *op {
                Op::PipePool { p, len } => {
                    let want = len > 0 && m.free(p) && m.pipe_cur + round(len) <= m.ub;
                    let got = ok(&mut || pipe.init_buf_pool(&mut pools[p].borrow_mut(), len));
                    assert_eq!(got, want, "{ctx}");
                    if want {
                        m.add(p, m.pipe_cur, round(len), None);
                        m.pipe_cur += round(len);
                    }
                }
                Op::PipeShared { p, s, len } => {
                    if p == s {
                        continue;
                    }
                    let share = m.of[s].map(|n| m.nodes[n].clone());
                    let want =
                        len > 0 && m.free(p) && share.as_ref().is_some_and(|n| round(len) <= n.max_len);
                    let got = ok(&mut || {
                        pipe.init_buf_pool_shared(&mut pools[p].borrow_mut(), len, &pools[s].borrow())
                    });
                    assert_eq!(got, want, "{ctx}");
                    if let (true, Some(n)) = (want, share) {
                        m.add(p, n.start, n.max_len, None);
                    }
                }
                Op::Nested { parent, p, len } => {
                    if p == parent {
                        continue;
                    }
                    let pn = m.of[parent];
                    let want = len > 0
                        && m.free(p)
                        && pn.is_some_and(|n| {
                            let n = &m.nodes[n];
                            n.max_len > 0 && n.buffers == 0 && n.cur + round(len) <= n.start + n.max_len
                        });
                    let got =
                        ok(&mut || pools[parent].borrow_mut().init_buf_pool(&mut pools[p].borrow_mut(), len));
                    assert_eq!(got, want, "{ctx}");
                    if want {
                        let n = pn.unwrap();
                        let start = m.nodes[n].cur;
                        m.nodes[n].cur += round(len);
                        m.add(p, start, round(len), Some(n));
                    }
                }
                Op::NestedShared { parent, p, s, len } => {
                    if p == parent || p == s || parent == s {
                        continue;
                    }
                    let share = m.of[s].map(|n| m.nodes[n].clone());
                    let want = len > 0
                        && m.free(p)
                        && m.of[parent].is_some()
                        && share.as_ref().is_some_and(|n| round(len) <= n.max_len);
                    let got = ok(&mut || {
                        pools[parent].borrow_mut().init_buf_pool_shared(
                            &mut pools[p].borrow_mut(),
                            len,
                            &pools[s].borrow(),
                        )
                    });
                    assert_eq!(got, want, "{ctx}");
                    if let (true, Some(n)) = (want, share) {
                        m.add(p, n.start, n.max_len, m.of[parent]);
                    }
                }
                Op::Queue { p, num, len } => {
                    let mut q = Box::new(TQue::<VecIn, 1>::new());
                    let base = m.take(p, num, len);
                    let got = ok(&mut || pools[p].borrow_mut().init_buffer(&mut *q, num, len));
                    assert_eq!(got, base.is_some(), "{ctx}");
                    if let Some(base) = base {
                        let n = m.of[p].unwrap();
                        let want = m.use_bytes(n, base, round(len));
                        let got = ok(&mut || alloc_at(&mut *q, base));
                        assert_eq!(got, want, "{ctx}: AllocTensor");
                        queues.push(q);
                    }
                }
                Op::Buf { p, len } => {
                    let mut b = Box::new(TBuf::<VecCalc>::new());
                    let base = m.take(p, 1, len);
                    let got = ok(&mut || pools[p].borrow_mut().init_tbuf(&mut *b, len));
                    assert_eq!(got, base.is_some(), "{ctx}");
                    if let Some(base) = base {
                        let n = m.of[p].unwrap();
                        let want = m.use_bytes(n, base, round(len));
                        let got = ok(&mut || assert_eq!(b.get::<u8>().get_phy_addr(), base));
                        assert_eq!(got, want, "{ctx}: TBuf::Get");
                        bufs.push(b);
                    }
                }
                Op::Reset { p } => {
                    pools[p].borrow_mut().reset();
                    if let Some(n) = m.of[p] {
                        let node = &mut m.nodes[n];
                        (node.max_len, node.buffers, node.in_use) = (0, 0, false);
                    }
                }
            }
        }
        assert_eq!(pipe.used_bytes(), m.pipe_cur);
    });
}

#[test]
fn pools_match_a_model_randomly() {
    strat::check_cases(400, 0x7B0F_F001, prop::collection::vec(op_strategy(), 1..=30), |ops| run_ops(ops));
}

// ---------------------------------------------------------------- the sanitizer

/// The vendor's flow (two stages on two pools over the same bytes, queues of the same layout)
/// runs clean under the sanitizer.
#[test]
fn a_pool_switch_runs_clean_under_the_sanitizer() {
    on(Soc::Ascend910B, || {
        LaunchSanitizer::new().run_core(|| {
            let x: Vec<f32> = (0..64).map(|i| i as f32).collect();
            let (_xr, x_gm) = gm(&x);
            let (yr, y_gm) = gm(&[0f32; 64]);
            let mut pipe = TPipe::new();
            let (mut p1, mut p2) = (TBufPool::<VecCalc>::new(), TBufPool::<VecCalc>::new());
            pipe.init_buf_pool(&mut p1, 512);
            pipe.init_buf_pool_shared(&mut p2, 512, &p1);
            let stage = |pool: &mut TBufPool<VecCalc>, add: f32| {
                let (mut qi, mut qo) = (TQue::<VecIn, 1>::new(), TQue::<VecOut, 1>::new());
                pool.init_buffer(&mut qi, 1, 256);
                pool.init_buffer(&mut qo, 1, 256);
                let a = qi.alloc_tensor::<f32>();
                data_copy(&a, &x_gm, 64);
                qi.enque(a);
                let a = qi.deque::<f32>();
                let b = qo.alloc_tensor::<f32>();
                adds(&b, &a, add, 64);
                qo.enque(b);
                qi.free_tensor(a);
                let b = qo.deque::<f32>();
                data_copy(&y_gm, &b, 64);
                qo.free_tensor(b);
                pool.reset();
            };
            stage(&mut p1, 1.0);
            stage(&mut p2, 2.0);
            let y: Vec<f32> = bytemuck::cast_slice(&yr.to_bytes()).to_vec();
            assert_eq!(y, x.iter().map(|v| v + 2.0).collect::<Vec<_>>());
        })
    });
}

/// `Reset` waits for the free events of the pool's buffers, as AscendC's does: a `TBuf` of the
/// next pool over the same bytes (a different layout, so no queue event orders it) is written
/// by MTE2 right after the previous stage's vector read, and the sanitizer finds no race. The
/// same bytes reached without the reset's wait (a static tensor) are a write-after-read race.
#[test]
fn reset_orders_the_next_pool_after_the_last_use() {
    on(Soc::Ascend910B, || {
        LaunchSanitizer::with_auto_sync(false).run_core(|| {
            let (_xr, x_gm) = gm(&[1f32; 128]);
            let mut pipe = TPipe::new();
            let mut scratch = TBuf::<VecCalc>::new();
            pipe.init_tbuf(&mut scratch, 256);
            let (mut p1, mut p2) = (TBufPool::<VecCalc>::new(), TBufPool::<VecCalc>::new());
            pipe.init_buf_pool(&mut p1, 512);
            pipe.init_buf_pool_shared(&mut p2, 512, &p1);
            let mut qi = TQue::<VecIn, 1>::new();
            p1.init_buffer(&mut qi, 1, 512);
            let a = qi.alloc_tensor::<f32>();
            data_copy(&a, &x_gm, 128);
            qi.enque(a);
            let a = qi.deque::<f32>();
            adds(&scratch.get::<f32>(), &a, 1.0, 64); // V reads the buffer
            qi.free_tensor(a);
            p1.reset();
            let mut b = TBuf::<VecCalc>::new();
            p2.init_tbuf(&mut b, 256);
            data_copy(&b.get::<f32>(), &x_gm, 64); // MTE2 writes the same bytes
            pipe_barrier::<PIPE_ALL>();
        })
    });
    let msg = util::panic_message(|| {
        on(Soc::Ascend910B, || {
            LaunchSanitizer::with_auto_sync(false).run_core(|| {
                let (_xr, x_gm) = gm(&[1f32; 128]);
                let mut pipe = TPipe::new();
                let mut scratch = TBuf::<VecCalc>::new();
                pipe.init_tbuf(&mut scratch, 256);
                let a = LocalTensor::<f32>::new(TPosition::VECIN, 256, 128);
                data_copy(&a, &x_gm, 128);
                set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
                wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);
                adds(&scratch.get::<f32>(), &a, 1.0, 64);
                let b = LocalTensor::<f32>::new(TPosition::VECCALC, 256, 64);
                data_copy(&b, &x_gm, 64);
                pipe_barrier::<PIPE_ALL>();
            })
        })
    });
    assert!(msg.contains("DataCopy") && msg.contains("Adds"), "{msg}");
}

/// A handle of the earlier pool's queue used after the next pool's queue (same bytes, same
/// layout) allocated the buffer is a stale handle, as after a pipe reset.
#[test]
fn a_handle_from_the_earlier_pool_is_stale_after_the_switch() {
    let msg = util::panic_message(|| {
        on(Soc::Ascend910B, || {
            LaunchSanitizer::new().run_core(|| {
                let mut pipe = TPipe::new();
                let (mut p1, mut p2) = (TBufPool::<VecCalc>::new(), TBufPool::<VecCalc>::new());
                pipe.init_buf_pool(&mut p1, 256);
                pipe.init_buf_pool_shared(&mut p2, 256, &p1);
                let (mut q1, mut q2) = (TQue::<VecCalc, 1>::new(), TQue::<VecCalc, 1>::new());
                p1.init_buffer(&mut q1, 1, 256);
                let old = q1.alloc_tensor::<f32>();
                let keep = old.clone();
                q1.free_tensor(old);
                p1.reset();
                p2.init_buffer(&mut q2, 1, 256);
                let new = q2.alloc_tensor::<f32>();
                duplicate(&keep, 1.0f32, 64);
                q2.free_tensor(new);
            })
        })
    });
    assert!(msg.contains("Duplicate") && msg.contains("stale tensor handle"), "{msg}");
}

/// Dropping a pool waits for its buffers' free events, as AscendC's destructor does: a static
/// tensor over the same bytes is then written by MTE2 after the pool's last vector read.
#[test]
fn dropping_a_pool_waits_like_its_destructor() {
    on(Soc::Ascend910B, || {
        LaunchSanitizer::with_auto_sync(false).run_core(|| {
            let (_xr, x_gm) = gm(&[1f32; 64]);
            let mut pipe = TPipe::new();
            let mut scratch = TBuf::<VecCalc>::new();
            pipe.init_tbuf(&mut scratch, 256);
            {
                let mut pool = TBufPool::<VecCalc>::new();
                pipe.init_buf_pool(&mut pool, 256);
                let mut qi = TQue::<VecIn, 1>::new();
                pool.init_buffer(&mut qi, 1, 256);
                let a = qi.alloc_tensor::<f32>();
                data_copy(&a, &x_gm, 64);
                qi.enque(a);
                let a = qi.deque::<f32>();
                adds(&scratch.get::<f32>(), &a, 1.0, 64);
                qi.free_tensor(a);
            }
            let b = LocalTensor::<f32>::new(TPosition::VECIN, 256, 64);
            data_copy(&b, &x_gm, 64);
            pipe_barrier::<PIPE_ALL>();
        })
    });
}
