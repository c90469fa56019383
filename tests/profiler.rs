//! The profiler's modelled schedule against hand computation: a single-buffered pipeline is
//! serial, a double-buffered one overlaps exactly as the recurrence says, a launch takes its
//! slowest core plus the head overhead, and the files (`trace.json`, `PipeUtilization.csv`)
//! of an 8-core `add_custom` hold what they should.

use ascend_runtime::ascend_core::profiler::cost::Costs;
use ascend_runtime::ascend_core::profiler::{Op, Pipe};
use ascend_runtime::prelude::*;
use ascend_runtime::profile::{Profile, PIPE_COLUMNS};

const TILE: usize = 4096; // f32 elements per tile: 16 KiB

fn bind(addr: GmAddr, off: usize, len: usize) -> GlobalTensor<f32> {
    let mut g = GlobalTensor::<f32>::new();
    g.set_global_buffer(addr.add::<f32>(off), len);
    g
}

/// The vendor's add pipeline with `B` buffers per queue: `tiles[core]` tiles of `TILE`
/// floats per core, `z = x + y`.
fn add_kernel<const B: usize>(x: GmAddr, y: GmAddr, z: GmAddr, tiles: &[usize]) {
    let core = get_block_idx() as usize;
    let n = tiles[core];
    let first: usize = tiles[..core].iter().sum::<usize>() * TILE;
    let (xg, yg, zg) = (bind(x, first, n * TILE), bind(y, first, n * TILE), bind(z, first, n * TILE));
    let mut pipe = TPipe::new();
    let (mut qx, mut qy, mut qz) =
        (TQue::<VecIn, B>::new(), TQue::<VecIn, B>::new(), TQue::<VecOut, B>::new());
    pipe.init_buffer(&mut qx, B, TILE * 4);
    pipe.init_buffer(&mut qy, B, TILE * 4);
    pipe.init_buffer(&mut qz, B, TILE * 4);
    for i in 0..n {
        let (a, b) = (qx.alloc_tensor::<f32>(), qy.alloc_tensor::<f32>());
        data_copy(&a, &xg.view(i * TILE), TILE);
        data_copy(&b, &yg.view(i * TILE), TILE);
        qx.enque(a);
        qy.enque(b);
        let (a, b) = (qx.deque::<f32>(), qy.deque::<f32>());
        let c = qz.alloc_tensor::<f32>();
        add(&c, &a, &b, TILE);
        qz.enque(c);
        qx.free_tensor(a);
        qy.free_tensor(b);
        let c = qz.deque::<f32>();
        data_copy(&zg.view(i * TILE), &c, TILE);
        qz.free_tensor(c);
    }
}

fn profile<const B: usize>(tiles: &[usize]) -> (Profile, Vec<f32>) {
    let total: usize = tiles.iter().sum::<usize>() * TILE;
    let x = GmBuffer::from_vec((0..total).map(|i| i as f32).collect());
    let y = GmBuffer::from_vec(vec![1.0f32; total]);
    let z = GmBuffer::<f32>::zeroed(total);
    let (xa, ya, za) = (x.addr(), y.addr(), z.addr());
    let dir =
        std::env::temp_dir().join(format!("ascend-prof-test-{}-{B}-{}", std::process::id(), tiles.len()));
    let p = Launch::new(Soc::Ascend910B)
        .block_dim(tiles.len() as u32)
        .profile(&dir, move || add_kernel::<B>(xa, ya, za, tiles))
        .unwrap();
    std::fs::remove_dir_all(&dir).ok();
    (p, z.to_vec())
}

/// The hand model of the pipeline with `b` buffers: tile `i`'s copies in wait for the
/// `Add` of tile `i - b` (its buffer's free), its `Add` for its copies in and for the copy
/// out of tile `i - b`, its copy out for its `Add`; each wait one flag latency after the
/// event. Returns the end of the last copy out.
fn hand(c: &Costs, tiles: usize, b: usize, gm_in: [u64; 3], issue_first: u64) -> u64 {
    let l = c.flag_latency;
    let cin = |addr: u64| c.gm_copy(c.mte2_head, 1, (TILE * 4) as u64, addr, 1);
    // Add f32: 64 elements per cycle, one repeat per cycle; two, as x and y start in one UB bank
    // group (x's buffers at 0 and 16 KiB, y's 16 KiB after x's: a read-read bank conflict).
    let v = c.vec_head + 2 * (TILE / 64) as u64;
    let out = |i: usize| c.gm_copy(c.mte3_head, 1, (TILE * 4) as u64, gm_in[2] + (i * TILE * 4) as u64, 1);
    let (mut mte2, mut vend, mut mte3) = (issue_first, Vec::new(), Vec::<u64>::new());
    for i in 0..tiles {
        let free_in = if i >= b { vend[i - b] + l } else { 0 };
        let x_end = mte2.max(free_in) + cin(gm_in[0] + (i * TILE * 4) as u64);
        let y_end = x_end + cin(gm_in[1] + (i * TILE * 4) as u64);
        mte2 = y_end;
        let free_out = if i >= b { mte3[i - b] + l } else { 0 };
        let prev_v = vend.last().copied().unwrap_or(0);
        let start = (y_end + l).max(free_out).max(prev_v);
        vend.push(start + v);
        let prev_m3 = mte3.last().copied().unwrap_or(0);
        mte3.push((start + v + l).max(prev_m3) + out(i));
    }
    *mte3.last().unwrap()
}

fn check_hand<const B: usize>(tiles: usize) -> u64 {
    check_hand_at::<B>(tiles).0
}

/// [`check_hand`], also returning the run's GM addresses of x, y and z and the first copy's
/// issue cycle: the GM copies' cost depends on their addresses' 512-byte alignment, which
/// varies with the heap from run to run.
fn check_hand_at<const B: usize>(tiles: usize) -> (u64, [u64; 3], u64) {
    let (p, z) = profile::<B>(&[tiles]);
    assert_eq!(z[5], 6.0);
    let c = Costs::of(Soc::Ascend910B);
    let log = &p.logs[0];
    let gm: Vec<u64> =
        log.recs.iter().filter_map(|r| matches!(r.op, Op::Copy { .. }).then_some(r.gm().0)).collect();
    // The first copy is the second record (after AllocTensor x, AllocTensor y): issued at 3.
    let first_copy = log.recs.iter().position(|r| matches!(r.op, Op::Copy { .. })).unwrap() as u64 + 1;
    let expect = hand(&c, tiles, B, [gm[0], gm[1], gm[2]], first_copy);
    assert_eq!(p.schedule.cores[0].end, expect, "{B} buffer(s), {tiles} tiles");
    (expect, [gm[0], gm[1], gm[2]], first_copy)
}

#[test]
fn single_buffer_is_serial() {
    let end = check_hand::<1>(4);
    // Serial: MTE2 of a tile never overlaps the Add of the one before.
    let core = &ascend_runtime::profile::overlap;
    let (p, _) = profile::<1>(&[4]);
    assert!(core(&p.schedule.cores[0], Pipe::Mte2, Pipe::Vector) == 0.0);
    assert!(p.hints().iter().any(|h| h.contains("single buffer")), "{:?}", p.hints());
    assert!(end > 0);
}

#[test]
fn double_buffer_overlaps_as_computed() {
    check_hand::<1>(6);
    let (two, gm, first_copy) = check_hand_at::<2>(6);
    // The single-buffered pipeline on the same GM addresses (their alignment changes the
    // copies' cost, and the heap places each run's buffers differently).
    let one = hand(&Costs::of(Soc::Ascend910B), 6, 1, gm, first_copy);
    assert!(two < one, "double buffering: {two} cycles, single: {one}");
    let (p, _) = profile::<2>(&[6]);
    assert!(ascend_runtime::profile::overlap(&p.schedule.cores[0], Pipe::Mte2, Pipe::Vector) > 0.0);
}

#[test]
fn launch_time_is_the_slowest_core_plus_head() {
    let (p, z) = profile::<2>(&[1, 3, 2]);
    assert_eq!(z[TILE * 5 + 7], (TILE * 5 + 7) as f32 + 1.0);
    let s = &p.schedule;
    let slowest = s.cores.iter().max_by_key(|c| c.end).unwrap();
    assert_eq!(slowest.core, 1);
    let c = Costs::of(Soc::Ascend910B);
    assert_eq!(s.head, c.launch_cycles(3));
    assert_eq!(s.total, slowest.end + s.head);
    assert!((s.total_us() - s.total as f64 / (c.clock_ghz * 1000.0)).abs() < 1e-9);
    assert_eq!(c.clock_ghz, 1.85);
    assert!(p.hints().iter().any(|h| h.contains("load imbalance")), "{:?}", p.hints());
}

#[test]
fn add_custom_trace_and_csv() {
    use ascend_kernels::add_custom::add_custom;
    use ascend_kernels::tiling::{TilingConfig, TilingData};
    let tiling = TilingConfig { total_length: 8 * 2048, block_dim: 8, tile_length: 128 };
    let x = GmBuffer::from_vec(vec![half::f16::from_f32(1.0); tiling.total_length]);
    let y = GmBuffer::from_vec(vec![half::f16::from_f32(2.0); tiling.total_length]);
    let z = GmBuffer::<half::f16>::zeroed(tiling.total_length);
    let t = GmBuffer::from_tiling(&TilingData::from(tiling));
    let (xa, ya, za, ta) = (x.addr(), y.addr(), z.addr(), t.addr());
    let dir = std::env::temp_dir().join(format!("ascend-prof-add-custom-{}", std::process::id()));
    let p = Launch::new(Soc::Ascend910B)
        .block_dim(8)
        .profile(&dir, move || add_custom::<half::f16>(xa, ya, za, ta))
        .unwrap();
    assert!(z.to_vec().iter().all(|v| v.to_f32() == 3.0));

    let trace: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("trace.json")).unwrap()).unwrap();
    let ev = trace["traceEvents"].as_array().unwrap();
    fn by<'a>(
        ev: &'a [serde_json::Value],
        ph: &'static str,
    ) -> impl Iterator<Item = &'a serde_json::Value> + 'a {
        ev.iter().filter(move |e| e["ph"] == ph)
    }
    let of = |ph: &'static str| by(ev, ph);
    let processes: Vec<_> = of("M").filter(|e| e["name"] == "process_name").collect();
    assert_eq!(processes.len(), 8);
    assert_eq!(processes[3]["args"]["name"], "core 3 (AIV)");
    let tracks: Vec<&str> = of("M")
        .filter(|e| e["name"] == "thread_name" && e["pid"] == 0)
        .map(|e| e["args"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(tracks, ["SCALAR", "VECTOR", "CUBE", "MTE1", "MTE2", "MTE3", "FIXP"]);
    // Per core: 16 tiles, two copies in and one out each, one Add.
    for core in 0..8 {
        let on = |name: &str, tid: u32| {
            of("X").filter(|e| e["pid"] == core && e["name"] == name && e["tid"] == tid).count()
        };
        assert_eq!(on("DataCopy", Pipe::Mte2 as u32), 32, "core {core}");
        assert_eq!(on("DataCopy", Pipe::Mte3 as u32), 16, "core {core}");
        assert_eq!(on("Add", Pipe::Vector as u32), 16, "core {core}");
    }
    let add = of("X").find(|e| e["name"] == "Add").unwrap();
    assert_eq!(add["args"]["dtype"], "half");
    assert_eq!(add["args"]["repeats"], 1);
    assert!(add["args"]["line"].as_str().unwrap().contains("add_custom.rs"), "{add}");
    let (starts, ends) = (of("s").count(), of("f").count());
    assert!(starts > 0 && starts == ends && starts == p.schedule.flows().count());

    let csv = std::fs::read_to_string(dir.join("PipeUtilization.csv")).unwrap();
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    let header: Vec<String> = r.headers().unwrap().iter().map(str::to_owned).collect();
    assert_eq!(header, PIPE_COLUMNS);
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 8);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(&row[0], i.to_string());
        let cycles: u64 = row[3].parse().unwrap();
        assert_eq!(cycles, p.schedule.cores[i].end);
        let mte2: f64 = row[9].parse().unwrap();
        assert!(mte2 > 0.0 && mte2 <= 1.0);
    }
    let hot = std::fs::read_to_string(dir.join("hotspots.csv")).unwrap();
    assert!(hot.starts_with("block_id,file,line,api,pipe,calls,cycles,share\n"));
    assert!(p.summary().contains("-bound: "));
    std::fs::remove_dir_all(&dir).ok();
}

/// The charts of `docs/profiling.md`: `add` with one and two buffers (rewritten into `docs/`
/// when `ASCEND_WRITE_DOCS` is set).
#[test]
fn pipeline_charts() {
    let (one, _) = profile::<1>(&[6]);
    let (two, _) = profile::<2>(&[6]);
    let c = |p: &Profile| p.schedule.cores[0].end;
    let s1 = one.svg(0, &format!("add f32, 6 tiles of 16 KiB, BUFFER_NUM = 1: {} cycles", c(&one)), 900);
    let s2 = two.svg(0, &format!("add f32, 6 tiles of 16 KiB, BUFFER_NUM = 2: {} cycles", c(&two)), 900);
    for s in [&s1, &s2] {
        assert!(s.starts_with("<svg") && s.ends_with("</svg>\n"));
        // 6 tiles: 12 copies in, 6 Adds, 6 copies out at least.
        assert!(s.matches("<rect").count() >= 24, "{s}");
        for track in ["MTE2", "VECTOR", "MTE3"] {
            assert!(s.contains(&format!(">{track}</text>")));
        }
    }
    if std::env::var_os("ASCEND_WRITE_DOCS").is_some() {
        let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
        std::fs::write(docs.join("profile_add_1buf.svg"), s1).unwrap();
        std::fs::write(docs.join("profile_add_2buf.svg"), s2).unwrap();
    }
}

/// The add pipeline on tiles of 64 floats, two buffers: `tiles[core]` tiles, then `SyncAll`,
/// then 40 more, `z = x + y` on the core's own slice.
fn small_tiles_with_sync_all(x: GmAddr, y: GmAddr, z: GmAddr, tiles: &[usize]) {
    const T: usize = 64;
    let core = get_block_idx() as usize;
    let n = tiles[core] + 40;
    let first: usize = tiles[..core].iter().map(|t| t + 40).sum::<usize>() * T;
    let (xg, yg, zg) = (bind(x, first, n * T), bind(y, first, n * T), bind(z, first, n * T));
    let mut pipe = TPipe::new();
    let (mut qx, mut qy, mut qz) =
        (TQue::<VecIn, 2>::new(), TQue::<VecIn, 2>::new(), TQue::<VecOut, 2>::new());
    pipe.init_buffer(&mut qx, 2, T * 4);
    pipe.init_buffer(&mut qy, 2, T * 4);
    pipe.init_buffer(&mut qz, 2, T * 4);
    for i in 0..n {
        if i == tiles[core] {
            sync_all();
        }
        let (a, b) = (qx.alloc_tensor::<f32>(), qy.alloc_tensor::<f32>());
        data_copy(&a, &xg.view(i * T), T);
        data_copy(&b, &yg.view(i * T), T);
        qx.enque(a);
        qy.enque(b);
        let (a, b) = (qx.deque::<f32>(), qy.deque::<f32>());
        let c = qz.alloc_tensor::<f32>();
        add(&c, &a, &b, T);
        qz.enque(c);
        qx.free_tensor(a);
        qy.free_tensor(b);
        let c = qz.deque::<f32>();
        data_copy(&zg.view(i * T), &c, T);
        qz.free_tensor(c);
    }
}

/// A profiled launch replays each core's records while it runs (up to its `SyncAll` here,
/// after more than one chunk of records): its schedule is the replay of the whole records
/// after the launch, slice for slice.
#[test]
fn the_replay_while_cores_run_is_the_replay_after() {
    let tiles = [150usize, 90, 210];
    let total: usize = tiles.iter().map(|t| t + 40).sum::<usize>() * 64;
    let x = GmBuffer::from_vec((0..total).map(|i| i as f32).collect());
    let y = GmBuffer::from_vec(vec![0.5f32; total]);
    let z = GmBuffer::<f32>::zeroed(total);
    let (xa, ya, za) = (x.addr(), y.addr(), z.addr());
    let p = Launch::new(Soc::Ascend910B)
        .block_dim(3)
        .run_profiled(move || small_tiles_with_sync_all(xa, ya, za, &tiles))
        .unwrap();
    assert!(z.to_vec().iter().enumerate().all(|(i, &v)| v == i as f32 + 0.5));
    // Core 2 records more than two chunks (1024 records each) before its `SyncAll`.
    assert!(p.logs[2].recs.len() > 3000, "{}", p.logs[2].recs.len());
    let after =
        ascend_runtime::ascend_core::profiler::schedule::schedule(&p.logs, &Costs::of(Soc::Ascend910B));
    assert_eq!(p.schedule.total, after.total);
    for (a, b) in p.schedule.cores.iter().zip(&after.cores) {
        assert_eq!((a.core, a.end, a.busy, a.sync_idle), (b.core, b.end, b.busy, b.sync_idle));
        assert_eq!(a.slices, b.slices);
        assert_eq!(a.flows, b.flows);
    }
    assert!(p.schedule.cores.iter().any(|c| c.sync_idle > 0));
}
