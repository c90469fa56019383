//! Micro-benchmarks of single vector instructions on one 16 KiB UB tile, with `divan`
//! (`cargo bench -p ascend-core --bench instructions`). `examples/bench.rs` keeps the
//! side-by-side table against native loops; this target gives each instruction's own timing
//! with divan's statistics (fastest, median, mean over many samples).

use ascend_core::prelude::*;
use divan::Bencher;

fn main() {
    divan::main();
}

/// Bytes of each operand: one 16 KiB tile, as the kernels use.
const TILE_BYTES: usize = 16 * 1024;

/// Runs `f` with three tiles of `T` (dst, src0, src1) filled with small values.
fn with_tiles<T: Element>(f: impl FnOnce([LocalTensor<T>; 3])) {
    let mut pipe = TPipe::new();
    let mut bufs = [TBuf::<VecCalc>::new(), TBuf::new(), TBuf::new()];
    for b in &mut bufs {
        pipe.init_tbuf(b, TILE_BYTES);
    }
    let t = bufs.each_ref().map(|b| b.get::<T>());
    for (k, x) in t.iter().enumerate() {
        let v: Vec<T> = (0..x.get_size()).map(|i| T::from_f64(((i * 7 + k) % 100) as f64 * 0.25)).collect();
        x.copy_from_slice(&v);
    }
    f(t);
}

#[divan::bench(types = [f32, f16, i16])]
fn sub_count<T: SubElement>(b: Bencher) {
    with_tiles::<T>(|[d, x, y]| {
        let n = d.get_size();
        b.counter(divan::counter::ItemsCount::new(n)).bench_local(|| sub(&d, &x, &y, n));
    });
}

#[divan::bench(types = [f32, f16])]
fn sub_strided_partial_mask<T: SubElement>(b: Bencher) {
    with_tiles::<T>(|[d, x, y]| {
        let repeat = (d.get_size() / T::PAR / 2) as u8;
        let p = BinaryRepeatParams::new(1, 1, 1, 16, 16, 16);
        b.bench_local(|| sub_masked::<T, true>(&d, &x, &y, [0x5555_5555_5555_5555u64, 0], repeat, &p));
    });
}

#[divan::bench(types = [f32, f16, u16])]
fn duplicate_count<T: DuplicateElement>(b: Bencher) {
    with_tiles::<T>(|[d, _, _]| {
        let n = d.get_size();
        b.counter(divan::counter::ItemsCount::new(n)).bench_local(|| duplicate(&d, T::from_f64(1.0), n));
    });
}

#[divan::bench(types = [f32, f16])]
fn select_mode2_count<T: SelectElement>(b: Bencher) {
    with_tiles::<T>(|[d, x, y]| {
        let n = d.get_size();
        // The selection bits: src1's bytes (mode 2 selects between src0 and itself here).
        let sel = y.reinterpret_cast::<u8>();
        b.counter(divan::counter::ItemsCount::new(n))
            .bench_local(|| select(&d, &sel, &x, &x, SelMode::VselTensorTensorMode, n));
    });
}
