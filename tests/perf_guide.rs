//! The vendor's performance guide against the profiler: each page of
//! `docs/zh/guide/算子实践参考/SIMD算子性能优化/` whose counter-example (反例) and example (正例)
//! run on Ascend910B is ported here, both versions, and the modelled profile must rank the
//! 正例 faster; where the guide or a tuning case publishes numbers, the modelled ratio must
//! be within ±30 % of the published one. The Add tuning case
//! (`examples/01_simd_cpp_api/05_best_practices/00_vector_compute/add_high_performance`,
//! Cases 0-6, and `docs/zh/guide/算子实践参考/典型算子实践案例/SIMD算子实现/Add矢量算子实践/`) is
//! ported case by case on a smaller shape (its per-core loop is the same, fewer times).
//! `docs/profiling.md` lists the pairs, the figures, and the pages the model cannot judge.
//!
//! Some constants of the cost model were fitted to the Add tuning case's tables (see
//! `ascend-core/src/observe/profiler/cost.rs`); the tests say which comparisons that makes circular.

use ascend_runtime::ascend_core::profiler::{Op, Pipe};
use ascend_runtime::prelude::*;
use ascend_runtime::profile::Profile;
use half::f16;

/// The profile of `kernel` on `cores` Ascend910B vector cores.
fn run(cores: u32, kernel: impl Fn() + Sync) -> Profile {
    Launch::new(Soc::Ascend910B).block_dim(cores).run_profiled(kernel).expect("launch")
}

/// The slowest core's modelled cycles (msprof's `aiv_time`, without the launch head).
fn aiv(p: &Profile) -> u64 {
    p.schedule.cores.iter().map(|c| c.end).max().unwrap_or(0)
}

/// Busy cycles of `pipe` on core 0.
fn busy(p: &Profile, pipe: Pipe) -> u64 {
    p.schedule.cores[0].busy[pipe as usize]
}

/// Asserts `model` is within ±30 % of `published`.
#[track_caller]
fn within_30(what: &str, model: f64, published: f64) {
    let r = model / published;
    println!("{what}: modelled {model:.3}, published {published:.3} ({r:.2}x)");
    assert!((0.7..=1.3).contains(&r), "{what}: modelled {model:.3}, published {published:.3} ({r:.2}x)");
}

/// Asserts the 正例 is faster than the 反例 and returns the ratio.
#[track_caller]
fn faster(what: &str, counter: &Profile, example: &Profile) -> f64 {
    let (c, e) = (aiv(counter), aiv(example));
    println!("{what}: 反例 {c} cycles, 正例 {e} cycles ({:.3}x)", c as f64 / e as f64);
    assert!(e < c, "{what}: 正例 {e} cycles, 反例 {c} cycles");
    c as f64 / e as f64
}

fn gm<T: Element>(addr: GmAddr, off: usize, len: usize) -> GlobalTensor<T> {
    let mut g = GlobalTensor::<T>::new();
    g.set_global_buffer(addr.add::<T>(off), len);
    g
}

// ---------------------------------------------------------------------------------------------
// The Add tuning case (add.asc, Cases 0-6), ported line by line on 8192-wide rows.

const N: usize = 8192;
const MAX_LEN: usize = 16384;
const BC_LEN: usize = 16256;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Case {
    /// Case 0: `ProcessScalar` (GetValue/SetValue per element).
    Scalar,
    /// Cases 1-3: `ProcessSingle` / `Process` (one set of buffers).
    Single,
    /// Cases 4-5: `ProcessDoubleBuffer` (x and y buffers in one bank group).
    Double,
    /// Case 6: `ProcessDoubleBufferBankConflict` (y 256 bytes off x's bank groups).
    DoubleBc,
}

/// `KernelAdd<totalM, N, splitM, 1, dataCopyLen>`: `Init` then the case's `Process*`.
fn add_case(x: GmAddr, y: GmAddr, z: GmAddr, total_m: usize, split: usize, len: usize, case: Case) {
    let idx = get_block_idx() as usize;
    let (base, rem) = (total_m / split, total_m % split);
    let (rows, start) =
        if idx < rem { (base + 1, idx * (base + 1)) } else { (base, rem * (base + 1) + (idx - rem) * base) };
    let per_core = rows * N;
    let (xg, yg, zg) = (
        gm::<f16>(x, start * N, per_core),
        gm::<f16>(y, start * N, per_core),
        gm::<f16>(z, start * N, per_core),
    );
    let blocks = per_core.div_ceil(len);
    let local = |addr: usize| LocalTensor::<f16>::new(TPosition::VECCALC, addr, MAX_LEN);
    let h = std::mem::size_of::<f16>();
    match case {
        Case::Scalar | Case::Single => {
            let (xl, yl, zl) = (local(0), local(MAX_LEN * h), local(2 * MAX_LEN * h));
            for i in 0..blocks {
                let at = i * len;
                let cur = len.min(per_core - at);
                if i != 0 {
                    wait_flag::<HardEvent::V_MTE2>(EVENT_ID0);
                }
                data_copy(&xl, &xg.view(at), cur);
                data_copy(&yl, &yg.view(at), cur);
                set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
                wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);
                if i != 0 {
                    wait_flag::<HardEvent::MTE3_V>(EVENT_ID0);
                }
                if case == Case::Scalar {
                    for k in 0..cur {
                        let (a, b) = (xl.get_value(k).to_f32(), yl.get_value(k).to_f32());
                        zl.set_value(k, f16::from_f32(a + b));
                    }
                } else {
                    add(&zl, &xl, &yl, cur);
                }
                if i != blocks - 1 {
                    set_flag::<HardEvent::V_MTE2>(EVENT_ID0);
                }
                set_flag::<HardEvent::V_MTE3>(EVENT_ID0);
                wait_flag::<HardEvent::V_MTE3>(EVENT_ID0);
                data_copy(&zg.view(at), &zl, cur);
                if i != blocks - 1 {
                    set_flag::<HardEvent::MTE3_V>(EVENT_ID0);
                }
            }
        }
        Case::Double | Case::DoubleBc => {
            let (ping, pong) = if case == Case::Double {
                let s = MAX_LEN * h;
                ([0, s, 2 * s], [3 * s, 4 * s, 5 * s])
            } else {
                let (s, b) = (MAX_LEN * h, BC_LEN * h);
                ([0, b, 4 * s], [2 * s, 2 * s + b, 4 * s + b])
            };
            let ping = ping.map(local);
            let pong = pong.map(local);
            for e in [EVENT_ID0, EVENT_ID1] {
                set_flag::<HardEvent::V_MTE2>(e);
                set_flag::<HardEvent::MTE3_V>(e);
            }
            for i in 0..blocks {
                let at = i * len;
                let cur = len.min(per_core - at);
                let (e, [xl, yl, zl]) = if i % 2 == 0 { (EVENT_ID0, &ping) } else { (EVENT_ID1, &pong) };
                wait_flag::<HardEvent::V_MTE2>(e);
                data_copy(xl, &xg.view(at), cur);
                data_copy(yl, &yg.view(at), cur);
                set_flag::<HardEvent::MTE2_V>(e);
                wait_flag::<HardEvent::MTE2_V>(e);
                wait_flag::<HardEvent::MTE3_V>(e);
                add(zl, xl, yl, cur);
                set_flag::<HardEvent::V_MTE2>(e);
                set_flag::<HardEvent::V_MTE3>(e);
                wait_flag::<HardEvent::V_MTE3>(e);
                data_copy(&zg.view(at), zl, cur);
                set_flag::<HardEvent::MTE3_V>(e);
            }
            for e in [EVENT_ID0, EVENT_ID1] {
                wait_flag::<HardEvent::V_MTE2>(e);
                wait_flag::<HardEvent::MTE3_V>(e);
            }
        }
    }
    pipe_barrier::<PIPE_ALL>();
}

/// Runs a case on `cores` cores over `total_m` rows and checks the sums.
fn add_profile(cores: u32, total_m: usize, len: usize, case: Case) -> Profile {
    let total = total_m * N;
    let x = GmBuffer::from_vec((0..total).map(|i| f16::from_f32((i % 1000) as f32)).collect());
    let y = GmBuffer::from_vec(vec![f16::from_f32(0.5); total]);
    let z = GmBuffer::<f16>::zeroed(total);
    let (xa, ya, za) = (x.addr(), y.addr(), z.addr());
    let p = run(cores, move || add_case(xa, ya, za, total_m, cores as usize, len, case));
    let out = z.to_vec();
    for i in [0, 1, total / 2 + 3, total - 1] {
        assert_eq!(out[i].to_f32(), (i % 1000) as f32 + 0.5, "{case:?} element {i}");
    }
    p
}

/// Rows per core of the 48-core cases (the tuning case: 171; the per-core loop is the same).
const ROWS: usize = 16;

/// Cases 0 → 1 (中级性能优化, 优化策略1): scalar loop → `Add`. Published `aiv_time`
/// 1239688.63 → 6909.14 µs. `scalar_ub` was fitted to Case 0's scalar time, so this checks
/// the vector side and the copies.
#[test]
fn add_case_0_to_1_scalar_to_vector() {
    let c0 = add_profile(1, ROWS, 4096, Case::Scalar);
    let c1 = add_profile(1, ROWS, 4096, Case::Single);
    let r = faster("Add Case 0 → 1", &c0, &c1);
    within_30("Add Case 0 / Case 1 aiv_time", r, 1239688.63 / 6909.14);
    // Case 1's Add: 22 + 32 repeats x 2 (x and y in one bank group) = 86 cycles; published
    // aiv_vec_time 761.65 µs / 16384 Adds at 1.85 GHz = 86.0 cycles.
    let adds = c1.logs[0].recs.iter().filter(|r| r.api() == "Add").count() as u64;
    within_30(
        "Add Case 1 cycles per Add",
        (busy(&c1, Pipe::Vector) / adds) as f64,
        761.65 * 1850.0 / 16384.0,
    );
}

/// Cases 1 → 2 (优化策略2): one core → 48 cores, 8 KB copies. Published `aiv_time`
/// 6909.14 → 297.14 µs.
#[test]
fn add_case_1_to_2_one_core_to_48() {
    let c1 = add_profile(1, 48 * ROWS, 4096, Case::Single);
    let c2 = add_profile(48, 48 * ROWS, 4096, Case::Single);
    let r = faster("Add Case 1 → 2", &c1, &c2);
    within_30("Add Case 1 / Case 2 aiv_time", r, 6909.14 / 297.14);
}

/// Cases 2 → 3 (优化策略2, 大块搬运): 8 KB → 32 KB copies on 48 cores. Published `aiv_time`
/// 297.14 → 261.5 µs (Task Duration 306.58 → 268.5). The copy latency and the per-core
/// bandwidth were fitted to these two cases' `aiv_mte2_time`; the end-to-end ratio is checked.
#[test]
fn add_case_2_to_3_larger_copies() {
    let c2 = add_profile(48, 48 * ROWS, 4096, Case::Single);
    let c3 = add_profile(48, 48 * ROWS, 16384, Case::Single);
    let r = faster("Add Case 2 → 3", &c2, &c3);
    within_30("Add Case 2 / Case 3 aiv_time", r, 297.14 / 261.5);
}

/// Cases 3 → 4 (优化策略3, 使能DoubleBuffer): double buffering on 48 cores. Published
/// `aiv_time` 261.5 → 257.56 µs: little gain, the copies are bound by the chip's bandwidth,
/// which MTE2 and MTE3 share.
#[test]
fn add_case_3_to_4_double_buffer() {
    let c3 = add_profile(48, 48 * ROWS, 16384, Case::Single);
    let c4 = add_profile(48, 48 * ROWS, 16384, Case::Double);
    let r = faster("Add Case 3 → 4", &c3, &c4);
    within_30("Add Case 3 / Case 4 aiv_time", r, 261.5 / 257.56);
    // MTE2 busy most of the time, as msprof's aiv_mte2_ratio 0.973.
    let c = &c4.schedule.cores[0];
    within_30("Add Case 4 aiv_mte2_ratio", c.ratio(Pipe::Mte2), 0.973);
}

/// Cases 5 → 6 (高阶性能打磨, 极限调优B, and 避免bank冲突（NPU架构版本2201）): y 256 bytes off
/// x's bank groups. Published `aiv_vec_time` 12.846 → 6.954 µs (Case 5 differs from Case 4
/// only by the L2 cache mode, which the model does not see). `vec_head` was fitted to Case 6;
/// the ratio checks the bank-conflict rule.
#[test]
fn add_case_5_to_6_bank_conflict() {
    let c4 = add_profile(48, 48 * ROWS, 16384, Case::Double);
    let c6 = add_profile(48, 48 * ROWS, BC_LEN, Case::DoubleBc);
    let beats =
        |p: &Profile| p.logs[0].recs.iter().filter(|r| matches!(r.op, Op::Vector { beats: 2, .. })).count();
    assert_eq!(beats(&c6), 0, "Case 6 has no bank conflict");
    assert_eq!(beats(&c4), c4.logs[0].recs.iter().filter(|r| r.api() == "Add").count());
    let r = busy(&c4, Pipe::Vector) as f64 / busy(&c6, Pipe::Vector) as f64;
    within_30("Add Case 5 / Case 6 aiv_vec_time", r, 12.846 / 6.954);
    assert!(aiv(&c6) <= aiv(&c4), "Case 6 {} cycles, Case 4 {}", aiv(&c6), aiv(&c4));
}

// ---------------------------------------------------------------------------------------------
// The guide's pages.

/// 流水编排/使能DoubleBuffer.md: the same add in 16 tiles with `InitBuffer(q, 1, ..)` and
/// `InitBuffer(q, 2, ..)`. No figure published (the page's pipeline pictures).
#[test]
fn guide_double_buffer() {
    fn kernel<const B: usize>(x: GmAddr, y: GmAddr, z: GmAddr) {
        const TILE: usize = 4096;
        let (xg, yg, zg) =
            (gm::<f16>(x, 0, 16 * TILE), gm::<f16>(y, 0, 16 * TILE), gm::<f16>(z, 0, 16 * TILE));
        let mut pipe = TPipe::new();
        let (mut qx, mut qy, mut qz) =
            (TQue::<VecIn, B>::new(), TQue::<VecIn, B>::new(), TQue::<VecOut, B>::new());
        pipe.init_buffer(&mut qx, B, TILE * 2);
        pipe.init_buffer(&mut qy, B, TILE * 2);
        pipe.init_buffer(&mut qz, B, TILE * 2);
        for i in 0..16 {
            let (a, b) = (qx.alloc_tensor::<f16>(), qy.alloc_tensor::<f16>());
            data_copy(&a, &xg.view(i * TILE), TILE);
            data_copy(&b, &yg.view(i * TILE), TILE);
            qx.enque(a);
            qy.enque(b);
            let (a, b) = (qx.deque::<f16>(), qy.deque::<f16>());
            let c = qz.alloc_tensor::<f16>();
            add(&c, &a, &b, TILE);
            qz.enque(c);
            qx.free_tensor(a);
            qy.free_tensor(b);
            let c = qz.deque::<f16>();
            data_copy(&zg.view(i * TILE), &c, TILE);
            qz.free_tensor(c);
        }
    }
    let bufs = || {
        (
            GmBuffer::<f16>::zeroed(16 * 4096),
            GmBuffer::<f16>::zeroed(16 * 4096),
            GmBuffer::<f16>::zeroed(16 * 4096),
        )
    };
    let (x, y, z) = bufs();
    let (xa, ya, za) = (x.addr(), y.addr(), z.addr());
    let one = run(1, move || kernel::<1>(xa, ya, za));
    let two = run(1, move || kernel::<2>(xa, ya, za));
    faster("使能DoubleBuffer", &one, &two);
}

/// 矢量计算/通过Unified-Buffer融合实现连续vector计算.md: `Exp` then `Abs` of 1024 floats,
/// through GM (反例: four copies) or in UB (正例: two). No figure published.
#[test]
fn guide_ub_fusion() {
    fn kernel(src: GmAddr, dst: GmAddr, fused: bool) {
        let (sg, dg) = (gm::<f32>(src, 0, 1024), gm::<f32>(dst, 0, 1024));
        let mut pipe = TPipe::new();
        let (mut qi, mut qo) = (TQue::<VecIn, 1>::new(), TQue::<VecOut, 1>::new());
        pipe.init_buffer(&mut qi, 1, 1024 * 4);
        pipe.init_buffer(&mut qo, 1, 1024 * 4);
        let stage =
            |qi: &mut TQue<VecIn, 1>, qo: &mut TQue<VecOut, 1>, from: &GlobalTensor<f32>, first: bool| {
                let s = qi.alloc_tensor::<f32>();
                data_copy(&s, from, 1024);
                qi.enque(s);
                let s = qi.deque::<f32>();
                let d = qo.alloc_tensor::<f32>();
                if first {
                    exp(&d, &s, 1024);
                    if fused {
                        abs(&d, &d, 1024);
                    }
                } else {
                    abs(&d, &s, 1024);
                }
                qo.enque(d);
                qi.free_tensor(s);
                let d = qo.deque::<f32>();
                data_copy(&dg, &d, 1024);
                qo.free_tensor(d);
            };
        stage(&mut qi, &mut qo, &sg, true);
        if !fused {
            // The page's 反例 reads back what CopyOut wrote with nothing between MTE3 and
            // MTE2: the sanitizer reports the race. A barrier makes it correct.
            pipe_barrier::<PIPE_ALL>();
            stage(&mut qi, &mut qo, &dg, false);
        }
    }
    let s = GmBuffer::from_vec((0..1024).map(|i| -(i as f32) / 512.0).collect());
    let d = GmBuffer::<f32>::zeroed(1024);
    let (sa, da) = (s.addr(), d.addr());
    let counter = run(1, move || kernel(sa, da, false));
    let unfused = d.to_vec();
    let example = run(1, move || kernel(sa, da, true));
    assert_eq!(unfused, d.to_vec());
    faster("通过Unified Buffer融合实现连续vector计算", &counter, &example);
}

/// 内存访问/纯搬运类算子VECIN和VECOUT建议复用.md: a UB → UB `DataCopy` between a VECIN and a
/// VECOUT queue (反例) against one `TQueBind<VECIN, VECOUT>` (正例), `BUFFER_NUM = 2`.
/// Published: the 正例's
/// `aiv_vec_time` "几乎缩减为0".
#[test]
fn guide_que_bind() {
    const SIZE: usize = 2048;
    fn kernel(src: GmAddr, dst: GmAddr, bind: bool) {
        let (i_len, j_len) = (4, 4);
        let params = DataCopyExtParams { block_count: 1, block_len: (SIZE * 4) as u32, ..Default::default() };
        let mut pipe = TPipe::new();
        if bind {
            let mut qb = TQueBind::<VecIn, VecOut, 2>::new();
            pipe.init_buffer(&mut qb, 2, SIZE * 4);
            for i in 0..i_len {
                let t = qb.alloc_tensor::<f32>();
                data_copy(&t, &gm::<f32>(src, i * SIZE, SIZE), SIZE);
                qb.enque(t);
                let t = qb.deque::<f32>();
                for j in 0..j_len {
                    data_copy_pad_to_gm(&gm::<f32>(dst, (i * j_len + j) * SIZE, SIZE), &t, &params);
                }
                qb.free_tensor(t);
            }
        } else {
            let (mut qi, mut qo) = (TQue::<VecIn, 2>::new(), TQue::<VecOut, 2>::new());
            pipe.init_buffer(&mut qi, 2, SIZE * 4);
            pipe.init_buffer(&mut qo, 2, SIZE * 4);
            for i in 0..i_len {
                let t = qi.alloc_tensor::<f32>();
                data_copy(&t, &gm::<f32>(src, i * SIZE, SIZE), SIZE);
                qi.enque(t);
                let t = qi.deque::<f32>();
                for j in 0..j_len {
                    let o = qo.alloc_tensor::<f32>();
                    data_copy(&o, &t, SIZE);
                    qo.enque(o);
                    let o = qo.deque::<f32>();
                    data_copy_pad_to_gm(&gm::<f32>(dst, (i * j_len + j) * SIZE, SIZE), &o, &params);
                    qo.free_tensor(o);
                }
                qi.free_tensor(t);
            }
        }
    }
    let s = GmBuffer::from_vec((0..4 * SIZE).map(|i| i as f32).collect());
    let d = GmBuffer::<f32>::zeroed(16 * SIZE);
    let (sa, da) = (s.addr(), d.addr());
    let counter = run(1, move || kernel(sa, da, false));
    let example = run(1, move || kernel(sa, da, true));
    assert_eq!(d.to_vec()[15 * SIZE + 7], (3 * SIZE + 7) as f32);
    faster("纯搬运类算子VECIN和VECOUT建议复用", &counter, &example);
    assert!(busy(&counter, Pipe::Vector) > 0);
    assert_eq!(busy(&example, Pipe::Vector), 0, "the 正例's aiv_vec_time is 0");
}

/// 内存访问/高效的使用搬运API.md: the first 2 KB of 16 rows of 16 KB, by 16 `DataCopy`s
/// (反例) or one strided `DataCopy` with `DataCopyParams` (正例; the page's call names GM as
/// the destination, a slip: the copy is GM → UB). No figure published.
#[test]
fn guide_strided_copy() {
    const COPY_W: usize = 2 * 1024 / 4;
    const IMG_W: usize = 16 * 1024 / 4;
    const IMG_H: usize = 16;
    fn kernel(src: GmAddr, out: GmAddr, strided: bool) {
        let g = gm::<f32>(src, 0, IMG_W * IMG_H);
        let mut pipe = TPipe::new();
        let mut q = TQueBind::<VecIn, VecOut, 1>::new();
        pipe.init_buffer(&mut q, 1, COPY_W * IMG_H * 4);
        let t = q.alloc_tensor::<f32>();
        if strided {
            let p = DataCopyParams::new(IMG_H as u16, (COPY_W / 8) as u16, ((IMG_W - COPY_W) / 8) as u16, 0);
            data_copy_params(&t, &g, &p);
        } else {
            for i in 0..IMG_H {
                data_copy(&t.view(i * COPY_W), &g.view(i * IMG_W), COPY_W);
            }
        }
        q.enque(t);
        let t = q.deque::<f32>();
        data_copy(&gm::<f32>(out, 0, COPY_W * IMG_H), &t, COPY_W * IMG_H);
        q.free_tensor(t);
    }
    let s = GmBuffer::from_vec((0..IMG_W * IMG_H).map(|i| i as f32).collect());
    let o = GmBuffer::<f32>::zeroed(COPY_W * IMG_H);
    let (sa, oa) = (s.addr(), o.addr());
    let counter = run(1, move || kernel(sa, oa, false));
    let a = o.to_vec();
    let example = run(1, move || kernel(sa, oa, true));
    assert_eq!(a, o.to_vec());
    assert_eq!(a[COPY_W + 1], (IMG_W + 1) as f32);
    faster("高效的使用搬运API", &counter, &example);
}

/// 内存访问/尽量一次搬运较大的数据块.md: 64 KB in by 64 copies of 1 KB (反例) or 4 of 16 KB
/// (正例). Published: a bandwidth curve (figures), no number.
#[test]
fn guide_large_copies() {
    fn kernel(src: GmAddr, piece: usize) {
        let g = gm::<f32>(src, 0, 16384);
        let mut pipe = TPipe::new();
        let mut q = TQue::<VecIn, 1>::new();
        pipe.init_buffer(&mut q, 1, 65536);
        let t = q.alloc_tensor::<f32>();
        for i in 0..16384 / piece {
            data_copy(&t.view(i * piece), &g.view(i * piece), piece);
        }
        q.enque(t);
        let t = q.deque::<f32>();
        q.free_tensor(t);
    }
    let s = GmBuffer::<f32>::zeroed(16384);
    let sa = s.addr();
    let counter = run(1, move || kernel(sa, 256));
    let example = run(1, move || kernel(sa, 4096));
    faster("尽量一次搬运较大的数据块", &counter, &example);
}

/// 内存访问/GM地址尽量512B对齐.md: 16 copies of 16 KB from a 512-byte aligned GM address
/// (正例) and 32 bytes off it (反例). Published: the 32-byte aligned case reaches 70 % of the
/// bandwidth at worst (the model's `unaligned_factor` is that figure: this checks only that the
/// schedule applies it).
#[test]
fn guide_gm_512_alignment() {
    fn kernel(src: GmAddr, off: usize) {
        let g = gm::<f32>(src, off, 16 * 4096);
        let mut pipe = TPipe::new();
        let mut q = TQue::<VecIn, 2>::new();
        pipe.init_buffer(&mut q, 2, 16384);
        for i in 0..16 {
            let t = q.alloc_tensor::<f32>();
            data_copy(&t, &g.view(i * 4096), 4096);
            q.enque(t);
            let t = q.deque::<f32>();
            q.free_tensor(t);
        }
    }
    let s = GmBuffer::<f32>::zeroed(17 * 4096);
    let sa = s.addr();
    let gm_of = |p: &Profile| p.logs[0].recs.iter().find(|r| r.api() == "DataCopy").unwrap().gm().0;
    // The first float at a 512-byte boundary of the buffer, and 32 bytes after it.
    let base = gm_of(&run(1, move || kernel(sa, 0)));
    let aligned = ((512 - base % 512) % 512 / 4) as usize;
    let counter = run(1, move || kernel(sa, aligned + 8));
    let example = run(1, move || kernel(sa, aligned));
    assert_eq!(gm_of(&example) % 512, 0);
    assert_eq!(gm_of(&counter) % 512, 32);
    let r = faster("GM地址尽量512B对齐", &counter, &example);
    // The transfer part of a copy: bandwidth 1 / 0.7 slower; with the copy's latency, less.
    within_30("GM地址尽量512B对齐 time ratio", r, 1.0 / 0.7);
}

/// Tiling策略/核间负载均衡.md: 2 × 25 blocks on 20 cores; the 反例 gives the 5 extra blocks of
/// both halves to cores 0-4 (4 blocks on them), the 正例 the second half's to cores 5-9 (3
/// blocks at most). Published: figures only.
#[test]
fn guide_core_load_balance() {
    const BLK: usize = 4096;
    fn kernel(x: GmAddr, z: GmAddr, balanced: bool) {
        let core = get_block_idx() as usize;
        let mut mine = Vec::new();
        for half in 0..2 {
            for b in 0..25 {
                let owner = if balanced && half == 1 && b >= 20 { b - 20 + 5 } else { b % 20 };
                if owner == core {
                    mine.push(half * 25 + b);
                }
            }
        }
        let mut pipe = TPipe::new();
        let (mut qi, mut qo) = (TQue::<VecIn, 2>::new(), TQue::<VecOut, 2>::new());
        pipe.init_buffer(&mut qi, 2, BLK * 4);
        pipe.init_buffer(&mut qo, 2, BLK * 4);
        for b in mine {
            let t = qi.alloc_tensor::<f32>();
            data_copy(&t, &gm::<f32>(x, b * BLK, BLK), BLK);
            qi.enque(t);
            let t = qi.deque::<f32>();
            let o = qo.alloc_tensor::<f32>();
            muls(&o, &t, 2.0, BLK);
            qo.enque(o);
            qi.free_tensor(t);
            let o = qo.deque::<f32>();
            data_copy(&gm::<f32>(z, b * BLK, BLK), &o, BLK);
            qo.free_tensor(o);
        }
    }
    let x = GmBuffer::from_vec((0..50 * BLK).map(|i| i as f32).collect());
    let z = GmBuffer::<f32>::zeroed(50 * BLK);
    let (xa, za) = (x.addr(), z.addr());
    let counter = run(20, move || kernel(xa, za, false));
    let example = run(20, move || kernel(xa, za, true));
    assert_eq!(z.to_vec()[49 * BLK + 3], 2.0 * (49 * BLK + 3) as f32);
    let r = faster("核间负载均衡", &counter, &example);
    assert!(r > 1.1, "4 blocks against 3 on the slowest core: {r:.2}");
}

/// 矢量计算/Vector算子灵活运用Counter模式.md: `Add` of 15000 halves in normal mode (117 full
/// repeats, then a tail of 24 under a second mask) against counter mode (one call). Published:
/// figures only (scalar and vector time both lower).
#[test]
fn guide_counter_mode() {
    const ELE: usize = 15000;
    fn kernel(counter: bool) {
        let x = LocalTensor::<f16>::new(TPosition::VECCALC, 0, 15104);
        let y = LocalTensor::<f16>::new(TPosition::VECCALC, 32768 + 256, 15104);
        let z = LocalTensor::<f16>::new(TPosition::VECCALC, 65536, 15104);
        duplicate(&x, f16::from_f32(1.0), ELE);
        duplicate(&y, f16::from_f32(2.0), ELE);
        let p = BinaryRepeatParams::default();
        if counter {
            set_mask_count();
            set_vector_mask::<f16>(ELE as u64);
            add_masked::<f16, false>(&z, &x, &y, MASK_PLACEHOLDER, 1, &p);
            reset_mask();
            set_mask_norm();
        } else {
            let per = 128;
            let (main, tail) = (ELE / per, ELE % per);
            set_mask_norm();
            set_vector_mask::<f16>(per as u64);
            add_masked::<f16, false>(&z, &x, &y, MASK_PLACEHOLDER, main as u8, &p);
            if tail > 0 {
                set_vector_mask::<f16>(tail as u64);
                let at = main * per;
                add_masked::<f16, false>(&z.view(at), &x.view(at), &y.view(at), MASK_PLACEHOLDER, 1, &p);
            }
            reset_mask();
        }
        assert_eq!(z.get_value(ELE - 1).to_f32(), 3.0);
    }
    let normal = run(1, || kernel(false));
    let counter = run(1, || kernel(true));
    faster("Vector算子灵活运用Counter模式", &normal, &counter);
    assert!(busy(&counter, Pipe::Vector) < busy(&normal, Pipe::Vector));
}

/// 矢量计算/基于全局掩码复用的计算性能优化.md: 180 `Adds` each setting the mask itself (the
/// count form: `SetMaskCount`, `SetVectorMask`, `ResetMask`, `SetMaskNorm`, 1 cycle each)
/// against one global mask and 180 `Adds<T, false>`. Published: 4 × 180 = 720 cycles saved.
/// The model saves them on the scalar unit; end to end, its V pipe (180 × 23 cycles) bounds
/// both versions, so the ranking is by scalar time.
#[test]
fn guide_global_mask_reuse() {
    const CNT: usize = 64;
    fn kernel(global: bool) {
        let x = LocalTensor::<f32>::new(TPosition::VECCALC, 0, CNT);
        let y = LocalTensor::<f32>::new(TPosition::VECCALC, 256, CNT);
        duplicate(&x, 1.0, CNT);
        if global {
            set_mask_count();
            set_vector_mask::<f32>(CNT as u64);
            for _ in 0..180 {
                adds_masked::<f32, false>(&y, &x, 1.0, MASK_PLACEHOLDER, 1, &UnaryRepeatParams::default());
            }
            reset_mask();
            set_mask_norm();
        } else {
            for _ in 0..180 {
                adds(&y, &x, 1.0, CNT);
            }
        }
        assert_eq!(y.get_value(CNT - 1), 2.0);
    }
    let counter = run(1, || kernel(false));
    let example = run(1, || kernel(true));
    let saved = busy(&counter, Pipe::Scalar) as f64 - busy(&example, Pipe::Scalar) as f64;
    within_30("基于全局掩码复用 scalar cycles saved", saved, 720.0);
    assert!(aiv(&example) <= aiv(&counter));
}
