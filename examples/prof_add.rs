//! Temporary profiling driver (not committed).
use ascend_kernels::add_custom::add_custom;
use ascend_kernels::tiling::TilingConfig;
use ascend_runtime::prelude::*;
fn main() {
    let len = 1usize << 24;
    let tile: usize = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(8192);
    let a = GmBuffer::from_vec(vec![f16::from_f32(1.5); len]);
    let b = GmBuffer::from_vec(vec![f16::from_f32(0.5); len]);
    let z = GmBuffer::<f16>::zeroed(len);
    let cfg = TilingConfig { total_length: len, block_dim: 8, tile_length: tile };
    let (xa, ya, za) = (a.addr(), b.addr(), z.addr());
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    pool.install(|| {
        for _ in 0..30 {
            Launch::new(Soc::Ascend910B)
                .block_dim(8)
                .run(|| add_custom::<f16>(xa.clone(), ya.clone(), za.clone(), &cfg))
                .unwrap();
        }
    });
}
