use ascend_kernels::add_custom::add_custom;
use ascend_kernels::tiling::TilingConfig;
use ascend_runtime::prelude::*;
fn main() {
    let san = std::env::args().nth(1).as_deref() == Some("on");
    let len: usize = std::env::args().nth(2).map_or(1 << 20, |s| s.parse().unwrap());
    let reps: usize = std::env::args().nth(3).map_or(1, |s| s.parse().unwrap());
    let x: Vec<f16> = (0..len).map(|i| f16::from_f32((i % 100) as f32)).collect();
    let (gx, gy, gz) = (GmBuffer::from_slice(&x), GmBuffer::from_slice(&x), GmBuffer::<f16>::zeroed(len));
    let (xa, ya, za) = (gx.addr(), gy.addr(), gz.addr());
    let cfg = TilingConfig { total_length: len, block_dim: 8, tile_length: 128 };
    let t = std::time::Instant::now();
    for _ in 0..reps {
        Launch::new(Soc::Ascend910B).block_dim(8).sanitize(san).run(|| add_custom::<f16>(xa, ya, za, &cfg)).unwrap();
    }
    println!("{:?}", t.elapsed() / reps as u32);
}
