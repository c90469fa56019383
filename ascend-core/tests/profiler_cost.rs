//! The profiler's cost table against the vendor's pages: every row of the vector throughput
//! table, and the Mmad formula for several shapes (numbers copied from
//! `docs/zh/api/附录/Vector指令理论性能汇总.md` and `Cube指令理论性能汇总.md`).

use std::panic::Location;

use ascend_core::profiler::cost::{dtype_name, Costs, VECTOR_TABLE};
use ascend_core::profiler::schedule::schedule;
use ascend_core::profiler::{CopyDir, CoreLog, Op, Pipe, Rec};
use ascend_core::{DType, Soc};

const TYPES: [DType; 11] = [
    DType::U8,
    DType::I8,
    DType::U16,
    DType::I16,
    DType::U32,
    DType::I32,
    DType::U64,
    DType::I64,
    DType::F16,
    DType::BF16,
    DType::F32,
];

#[test]
fn every_vector_row_gives_its_cycles_per_repeat() {
    assert_eq!(VECTOR_TABLE.len(), 140);
    for row in VECTOR_TABLE {
        let d = TYPES.iter().copied().find(|&d| dtype_name(d) == row.dtype).expect(row.dtype);
        // A repeat is 256 bytes: 256 / size elements at `par` elements per cycle.
        let want = ((256 / d.size()) as f64 / row.par).ceil() as u64;
        // Rows of one API and type agree (the table lists each once).
        assert_eq!(Costs::vector_par(row.api, Some(d)), Some(row.par), "{} {}", row.api, row.dtype);
        assert_eq!(Costs::vector_repeat(row.api, Some(d)), want.max(1), "{} {}", row.api, row.dtype);
        let c = Costs::of(Soc::Ascend910B);
        let op = Op::Vector { dtype: Some(d), repeats: 10, beats: 1, mask: 0 };
        assert_eq!(c.cycles(&op, row.api, 1), c.vec_head + 10 * want.max(1));
        // The replay (which looks the row up once per call site and type) charges the same:
        // issued at cycle 1, the V pipe busy for the instruction's cycles.
        let log = CoreLog { core: 0, aic: false, recs: vec![Rec::new(op, row.api, Location::caller())] };
        let s = schedule(&[log], &c);
        assert_eq!(s.cores[0].busy[Pipe::Vector as usize], c.vec_head + 10 * want.max(1), "{}", row.api);
        assert_eq!(s.cores[0].end, 1 + c.vec_head + 10 * want.max(1));
    }
}

#[test]
fn vector_rows_as_published() {
    let rep = |api, d| Costs::vector_repeat(api, Some(d));
    // Add: half 128, float 64 elements per cycle: one repeat per cycle.
    assert_eq!((rep("Add", DType::F16), rep("Add", DType::F32)), (1, 1));
    // Exp: 32 elements per cycle: half 128 / 32 = 4, float 64 / 32 = 2.
    assert_eq!((rep("Exp", DType::F16), rep("Exp", DType::F32)), (4, 2));
    // ReduceRepeat float: 64/7 elements per cycle, 7 cycles a repeat.
    assert_eq!(rep("ReduceRepeat", DType::F32), 7);
    // Gather: 5 elements per cycle, float 64 / 5 = 12.8, 13.
    assert_eq!(rep("Gather", DType::F32), 13);
    // Sort32: 2 elements per cycle.
    assert_eq!(rep("Sort32", DType::F16), 64);
    // Unlisted: one repeat per cycle.
    assert_eq!(rep("NoSuchInstruction", DType::F32), 1);
    // Unknown type: the float row.
    assert_eq!(Costs::vector_repeat("Exp", None), 2);
}

#[test]
fn mmad_cycles_follow_the_vendor_formula() {
    let c = Costs::of(Soc::Ascend910B);
    let h = c.mmad_head;
    // ceil_m * ceil_n * ceil_k / (cube_m * cube_n * cube_k), half: 16 x 16 x 16.
    assert_eq!(c.mmad(16, 16, 16, DType::F16), h + 1);
    assert_eq!(c.mmad(32, 48, 64, DType::F16), h + 32 * 48 * 64 / (16 * 16 * 16));
    // m, n rounded up to 16; k to k0 = 16.
    assert_eq!(c.mmad(17, 1, 20, DType::F16), h + 32 * 16 * 32 / 4096);
    // float: cube_k = 4, k0 = 8.
    assert_eq!(c.mmad(16, 16, 8, DType::F32), h + 2);
    assert_eq!(c.mmad(64, 64, 12, DType::F32), h + 64 * 64 * 16 / (16 * 16 * 4));
    // int8: cube_k = 32, k0 = 32.
    assert_eq!(c.mmad(16, 32, 64, DType::I8), h + 16 * 32 * 64 / (16 * 16 * 32));
    assert_eq!(c.mmad(128, 128, 256, DType::I8), h + 128 * 128 * 256 / 8192);
    // A recorded Mmad is charged that on the CUBE pipe, and makes its core a cube core.
    for (m, n, k, d) in [(32, 48, 64, DType::F16), (17, 1, 20, DType::F16), (64, 64, 12, DType::F32)] {
        let rec = Rec::new(Op::Mmad { m, n, k, dtype: d }, "Mmad", Location::caller());
        let s = schedule(&[CoreLog { core: 0, aic: true, recs: vec![rec] }], &c);
        assert_eq!(s.cores[0].busy[Pipe::Cube as usize], c.mmad(m, n, k, d), "{m} x {n} x {k}");
        assert_eq!(s.cores[0].end, 1 + c.mmad(m, n, k, d));
    }
}

#[test]
fn gm_copies_pay_latency_alignment_and_sharing() {
    let c = Costs::of(Soc::Ascend910B);
    let one = |bytes: u64, addr: u64, active: u32| c.gm_copy(c.mte2_head, 1, bytes, addr, active);
    // Aligned 16 KiB on one core: head + bytes / core bandwidth.
    assert_eq!(one(16384, 0, 1), c.mte2_head + (16384.0 / c.core_gm_bw).ceil() as u64);
    // The guide's "16KB以上" statement: at least 80 % of the peak at 16 KiB.
    assert!(16384.0 / c.core_gm_bw / one(16384, 0, 1) as f64 > 0.8);
    // Off a 512-byte boundary: 70 % of the bandwidth.
    assert_eq!(one(16384, 32, 1), c.mte2_head + (16384.0 / (c.core_gm_bw * 0.7)).ceil() as u64);
    // 48 cores share the chip's bandwidth.
    assert_eq!(one(16384, 0, 48), c.mte2_head + (16384.0 / (c.chip_gm_bw / 48.0)).ceil() as u64);
    // Rows: whole 32-byte blocks, per-row overhead.
    let op = Op::Copy { dir: CopyDir::GmToUb, rows: 4, row: 40, gm: 0 };
    assert_eq!(
        c.cycles(&op, "DataCopyPad", 1),
        c.mte2_head + 3 * c.per_row + (4.0 * 64.0 / c.core_gm_bw).ceil() as u64
    );
}

mod schedule {
    use ascend_core::profiler::cost::Costs;
    use ascend_core::profiler::schedule::{schedule, schedule_live, schedule_threads, LaunchSchedule};
    use ascend_core::profiler::{CopyDir, CoreLog, Op, Pipe, Rec};
    use ascend_core::{DType, Soc};
    use std::panic::Location;

    fn vec(repeats: u64) -> Rec {
        Rec::new(
            Op::Vector { dtype: Some(DType::F32), repeats, beats: 1, mask: 0 },
            "Add",
            Location::caller(),
        )
    }

    fn core(core: u32, recs: Vec<Rec>) -> CoreLog {
        CoreLog { core, aic: false, recs }
    }

    #[test]
    fn sync_all_waits_for_the_last_core() {
        let c = Costs::of(Soc::Ascend910B);
        let sync = Rec::new(Op::SyncAll, "SyncAll", Location::caller());
        let logs = [core(0, vec![vec(10), sync]), core(1, vec![vec(100), sync, vec(1)])];
        let s = schedule(&logs, &c);
        // Each core issues its Add at cycle 1: it ends vec_head + repeats later.
        let (a0, a1) = (1 + c.vec_head + 10, 1 + c.vec_head + 100);
        let t = a1 + c.sync_all;
        assert_eq!(s.cores[0].end, t);
        assert_eq!(s.cores[0].sync_idle, t - a0);
        assert_eq!(s.cores[1].sync_idle, t - a1);
        // Core 1's last Add: issued the cycle after the release.
        assert_eq!(s.cores[1].end, t + 1 + c.vec_head + 1);
        assert_eq!(s.total, s.cores[1].end + c.launch_cycles(2));
        assert_eq!(s.cores[1].busy[Pipe::Vector as usize], 2 * c.vec_head + 101);
    }

    fn cross_set(round: u64, members: u32) -> Rec {
        let op = Op::CrossSet { pipe: Pipe::Vector, flag: 3, round, members };
        Rec::new(op, "CrossCoreSetFlag", Location::caller())
    }

    fn cross_wait(round: u64) -> Rec {
        Rec::new(Op::CrossWait { flag: 3, round }, "CrossCoreWaitFlag", Location::caller())
    }

    #[test]
    fn cross_core_wait_follows_the_set() {
        let c = Costs::of(Soc::Ascend910B);
        let logs = [core(0, vec![vec(50), cross_set(9, 1)]), core(1, vec![cross_wait(9), vec(1)])];
        let s = schedule(&logs, &c);
        let t = 1 + c.vec_head + 50 + c.flag_latency;
        assert_eq!(s.cores[1].end, t + 1 + c.vec_head + 1);
        let flows: Vec<_> = s.flows().collect();
        assert_eq!(flows.len(), 1);
        assert_eq!((flows[0].from, flows[0].to), ((0, 1), (1, 0)));
    }

    /// Flags of one id in two core groups (mode 2, two blocks): each wait follows its own
    /// block's set, not the first set of the flag id the replay met.
    #[test]
    fn cross_core_rounds_match_by_group_not_order() {
        let c = Costs::of(Soc::Ascend910B);
        let (block0, block1) = (1 << 62 | 2 << 59, 1 << 62 | 2 << 59 | 1 << 40);
        let logs = [
            // Block 1's AIC sets flag 3 early; block 0's AIC late.
            core(0, vec![vec(10), cross_set(block1, 1)]),
            core(1, vec![vec(500), cross_set(block0, 1)]),
            // Block 0's AIV waits for block 0's round, block 1's AIV for block 1's.
            core(2, vec![cross_wait(block0), vec(1)]),
            core(3, vec![cross_wait(block1), vec(1)]),
        ];
        let s = schedule(&logs, &c);
        let early = 1 + c.vec_head + 10 + c.flag_latency;
        let late = 1 + c.vec_head + 500 + c.flag_latency;
        assert_eq!(s.cores[2].end, late + 1 + c.vec_head + 1);
        assert_eq!(s.cores[3].end, early + 1 + c.vec_head + 1);
        let from = |to: u32| s.flows().find(|f| f.to.0 == to).unwrap().from;
        assert_eq!((from(2), from(3)), ((1, 1), (0, 1)));
    }

    /// A round of two members (mode 0 on two cores) completes with the later set: a core's
    /// wait does not take its own earlier set alone.
    #[test]
    fn cross_core_round_waits_for_every_member() {
        let c = Costs::of(Soc::Ascend910B);
        let round = 1 << 62 | 3 << 32;
        let logs = [
            core(0, vec![vec(10), cross_set(round, 2), cross_wait(round), vec(1)]),
            core(1, vec![vec(300), cross_set(round, 2), cross_wait(round), vec(1)]),
        ];
        let s = schedule(&logs, &c);
        let t = 1 + c.vec_head + 300 + c.flag_latency;
        // Core 0 issues its wait at cycle 3; it leaves at the round's end and issues its Add.
        assert_eq!(s.cores[0].end, t + 1 + c.vec_head + 1);
        assert_eq!(s.cores[1].end, t + 1 + c.vec_head + 1);
        // Two rounds of one key never mix with a round of another mode on the same flag id.
        let other = 2 << 59 | round;
        let logs = [core(0, vec![cross_set(other, 1)]), core(1, vec![cross_wait(round), vec(1)])];
        let s = schedule(&logs, &c);
        assert_eq!(s.flows().count(), 0, "a mode-2 round released a mode-0 wait: {:?}", s.cores);
    }

    #[test]
    fn set_and_wait_flag_order_two_pipes() {
        let c = Costs::of(Soc::Ascend910B);
        let key = 7;
        let copy = Rec::new(
            Op::Copy { dir: ascend_core::profiler::CopyDir::GmToUb, rows: 1, row: 8192, gm: 0 },
            "DataCopy",
            Location::caller(),
        );
        let set =
            Rec::new(Op::SetFlag { src: Pipe::Mte2, dst: Pipe::Vector, key }, "MTE2_V", Location::caller());
        let wait =
            Rec::new(Op::WaitFlag { src: Pipe::Mte2, dst: Pipe::Vector, key }, "MTE2_V", Location::caller());
        let s = schedule(&[core(0, vec![copy, set, wait, vec(4)])], &c);
        let copied = 1 + c.gm_copy(c.mte2_head, 1, 8192, 0, 1);
        assert_eq!(s.cores[0].end, copied + c.flag_latency + c.vec_head + 4);
        // Without the flag, the Add runs at once, beside the copy.
        let s = schedule(&[core(0, vec![copy, vec(4)])], &c);
        assert_eq!(s.cores[0].end, copied);
    }

    /// The replay runs each core's part before its first shared record (a cross-core flag,
    /// `SyncAll`) on several threads: the schedule is the same on one thread and on many,
    /// with copies sharing GM, queue flags, a `SyncAll` and cross-core rounds in the logs.
    #[test]
    fn the_replay_does_not_depend_on_threads() {
        let c = Costs::of(Soc::Ascend910B);
        let loc = Location::caller();
        let copy =
            |dir, gm: u64, bytes: u32| Rec::new(Op::Copy { dir, rows: 1, row: bytes, gm }, "DataCopy", loc);
        let flag = |set: bool, src, dst, key| {
            let op = if set { Op::SetFlag { src, dst, key } } else { Op::WaitFlag { src, dst, key } };
            Rec::new(op, if set { "EnQue" } else { "DeQue" }, loc)
        };
        let round = 1 << 62 | 3 << 32;
        let logs: Vec<CoreLog> = (0..6u32)
            .map(|k| {
                let mut recs = Vec::new();
                for tile in 0..200u64 {
                    let gm = (u64::from(k) << 20) | (tile * 288);
                    recs.push(copy(CopyDir::GmToUb, gm, 256 + 32 * k));
                    recs.push(flag(true, Pipe::Mte2, Pipe::Vector, tile % 2));
                    recs.push(flag(false, Pipe::Mte2, Pipe::Vector, tile % 2));
                    recs.push(vec(1 + (tile + u64::from(k)) % 5));
                    recs.push(flag(true, Pipe::Vector, Pipe::Mte3, 2 + tile % 2));
                    recs.push(flag(false, Pipe::Vector, Pipe::Mte3, 2 + tile % 2));
                    recs.push(copy(CopyDir::UbToGm, gm + (1 << 30), 256));
                    if tile == 100 {
                        recs.push(Rec::new(Op::SyncAll, "SyncAll", loc));
                    }
                    if tile == 150 {
                        recs.push(cross_set(round, 6));
                        recs.push(cross_wait(round));
                    }
                }
                core(k, recs)
            })
            .collect();
        let one = schedule_threads(&logs, &c, 1);
        let key = |s: &LaunchSchedule| {
            let cores: Vec<_> =
                s.cores.iter().map(|c| (c.core, c.end, c.busy, c.sync_idle, c.slices.clone())).collect();
            (cores, s.flows().copied().collect::<Vec<_>>(), s.total)
        };
        for threads in [2, 4, 6, 8] {
            assert_eq!(key(&schedule_threads(&logs, &c, threads)), key(&one), "{threads} threads");
        }
        assert_eq!(key(&schedule(&logs, &c)), key(&one));
        assert!(one.cores.iter().any(|c| c.sync_idle > 0));
        assert_eq!(one.flows().filter(|f| f.to_at.0 == Pipe::Scalar).count(), 6);
        // A live profiler's replay (each core's records in chunks as they come, up to the
        // `SyncAll`, then the rest after the launch) gives the same schedule, whatever the
        // chunk: one record, chunks that end on and past the `SyncAll`, more than a core has.
        for chunk in [1, 7, 64, 703, 704, 1000, 5000] {
            assert_eq!(key(&schedule_live(&logs, &c, chunk)), key(&one), "chunks of {chunk}");
        }
    }

    /// A live profiler replays a core's records in chunks of 1024 while the core runs, and
    /// its schedule after the launch is the one of a replay of the whole records.
    #[test]
    fn a_live_profiler_replays_while_the_core_runs() {
        use ascend_core::prelude::*;
        use ascend_core::profiler::LaunchProfiler;
        let c = Costs::of(Soc::Ascend910B);
        let prof = LaunchProfiler::live(c, 2);
        for k in 0..2u32 {
            let cfg = CoreConfig { block_idx: k, block_num: 2, ..CoreConfig::single(Soc::Ascend910B) };
            run_on_core(cfg, || {
                prof.run_core(|| {
                    let mut pipe = TPipe::new();
                    let mut buf = TBuf::<VecCalc>::new();
                    pipe.init_tbuf(&mut buf, 3 * 1024);
                    let t = buf.get::<f32>();
                    let (a, b, d) = (t.view_len(0, 256), t.view_len(256, 256), t.view_len(512, 256));
                    for i in 0..1500 + 1000 * k as usize {
                        add(&d, &a, &b, 64 + i % 192);
                    }
                })
            });
        }
        let replayed = prof.replayed_live();
        let (logs, live) = prof.take_scheduled(&c);
        assert_eq!(logs.len(), 2);
        // Each core replayed its whole chunks of 1024 records (nothing it shares with other
        // cores stopped it); `take` and `take_scheduled` find nothing left.
        let whole: usize = logs.iter().map(|l| l.recs.len() / 1024 * 1024).sum();
        assert!(logs.iter().all(|l| l.recs.len() >= 1500), "{:?}", logs.iter().map(|l| l.recs.len()));
        assert_eq!(replayed, whole);
        assert_eq!(prof.replayed_live(), 0);
        let after = schedule(&logs, &c);
        assert_eq!(live.total, after.total);
        for (a, b) in live.cores.iter().zip(&after.cores) {
            assert_eq!((a.core, a.end, a.busy, a.sync_idle), (b.core, b.end, b.busy, b.sync_idle));
            assert_eq!(a.slices, b.slices);
            assert_eq!(a.flows, b.flows);
        }
        assert!(live.cores[1].end > live.cores[0].end);
    }
}
