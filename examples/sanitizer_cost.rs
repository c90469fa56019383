//! The sanitizer's cost where it is densest: `sub_custom` f32 on 8 cores at 128-element tiles
//! (the bench's `sanitizer (on vs off)` row), as one process per measurement, so that an
//! instruction counter sees one configuration. Wall-clock ratios on a shared host are noisy;
//! instruction counts are not:
//!
//! ```sh
//! cargo build --release --example sanitizer_cost
//! B=target/release/examples/sanitizer_cost
//! # instructions of 1 and of 3 launches, sanitizer on and off (the difference of the two
//! # counts of one mode is 2 launches: setup and teardown cancel)
//! for m in on off; do for r in 1 3; do
//!   valgrind --tool=callgrind --callgrind-out-file=cg.$m.$r $B $m 262144 $r 2>&1 | grep Collected
//! done; done
//! # both modes timed alternately in one process (best of 8): off, on, off / on
//! $B pair 4194304 8
//! # the profiler's cost (recording and scheduling, the defaults otherwise) the same way
//! valgrind --tool=callgrind --callgrind-out-file=cg.prof.3 $B prof 262144 3 2>&1 | grep Collected
//! ```
//!
//! Arguments: `on` | `off` | `prof` | `pair`, then the element count (default 2^18), the launches
//! (default 1) and the tile length (default 128). 2^18 elements are 2048 tiles a launch.

use ascend_kernels::sub_custom::sub_custom;
use ascend_kernels::tiling::{TilingConfig, TilingData};
use ascend_runtime::prelude::*;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).map_or("on", String::as_str);
    let len: usize = args.get(2).map_or(1 << 18, |a| a.parse().expect("element count"));
    let reps: usize = args.get(3).map_or(1, |a| a.parse().expect("launches"));
    let tile: usize = args.get(4).map_or(128, |a| a.parse().expect("tile length"));
    let a: Vec<f32> = (0..len).map(|i| (i % 97) as f32).collect();
    let b: Vec<f32> = (0..len).map(|i| (i % 31) as f32).collect();
    let (ga, gb, gz) = (GmBuffer::from_slice(&a), GmBuffer::from_slice(&b), GmBuffer::<f32>::zeroed(len));
    let cfg = TilingConfig { total_length: len, block_dim: 8, tile_length: tile };
    let tiling = GmBuffer::from_tiling(&TilingData::from(cfg));
    let (xa, ya, za, t) = (ga.addr(), gb.addr(), gz.addr(), tiling.addr());
    let run = |san: bool| {
        Launch::new(Soc::Ascend910B)
            .block_dim(8)
            .sanitize(san)
            .run(|| sub_custom::<f32>(xa, ya, za, t))
            .expect("sub_custom");
    };
    if mode == "pair" {
        let (mut on, mut off) = (f64::MAX, f64::MAX);
        for _ in 0..reps {
            let t0 = std::time::Instant::now();
            run(false);
            off = off.min(t0.elapsed().as_secs_f64());
            let t0 = std::time::Instant::now();
            run(true);
            on = on.min(t0.elapsed().as_secs_f64());
        }
        println!("off {:.3} ms on {:.3} ms ratio {:.3}", off * 1e3, on * 1e3, off / on);
    } else if mode == "prof" {
        for _ in 0..reps {
            let launch = Launch::new(Soc::Ascend910B).block_dim(8);
            launch.run_profiled(|| sub_custom::<f32>(xa, ya, za, t)).expect("sub_custom");
        }
    } else {
        for _ in 0..reps {
            run(mode == "on");
        }
    }
    let z = gz.to_vec();
    assert!(z.iter().zip(a.iter().zip(&b)).all(|(z, (a, b))| *z == a - b), "sub_custom's result");
}
