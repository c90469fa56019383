//! Ports of the vendor's advanced-API reduction examples (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/04_advanced_api/04_reduce/`): `sum` (`Sum<float>` of 3 rows of
//! 32, the scratch `GetSumMaxMinTmpSize`'s minimum), on both chips that implement `Sum`
//! (Ascend910B and Ascend310P), and the same kernel with rows of 2000 (padded to 2000, several
//! `RepeatReduceSum` passes through the scratch) as an extra scenario.
//!
//! Each launch keeps the sanitizer on and must pass; the output is compared bit for bit with
//! the example's golden (`calculateSum`: the pairwise tree of each row, an odd last value
//! carried up, which for one repeat is `RepeatReduceSum`'s tree) and with `compare_result`.
//! The inputs are the example's distribution (integers in `[-100, 100)`) from a seeded
//! generator, not numpy's draws. Also `06_index/arange` (`Arange<float>` of 100 elements
//! from 1.234 by 5.678, the output copied out rounded up to a block), on Ascend910B and
//! Ascend310P, compared bit for bit with the vendor's steps (the first block by the scalar
//! formula, then `Adds` of 8 and 64 steps) and with the example's `linspace` golden within its
//! 1e-5. The `reducemax` example is in `adv_reduce_xy.rs`.

use std::mem::size_of;

use ascend_kernels::data::XorShift64;
use ascend_runtime::prelude::*;
use ascend_runtime::testing::assert_bits_eq;

use crate::compare_result;

const PADDING_BYTE: u32 = 32;

fn padding_align(n1: u32, type_size: u32) -> u32 {
    if type_size == 0 {
        return 0;
    }
    (n1 * type_size).div_ceil(PADDING_BYTE) * PADDING_BYTE / type_size
}

/// The example's `SumCustomTilingData`.
#[derive(Clone, Copy, Debug)]
struct SumCustomTilingData {
    inner: u32,
    outter: u32,
    n: u32,
    tmp_buf_size: u32,
    out_inner: u32,
}

fn generate_tiling_data(m: u32, n: u32) -> SumCustomTilingData {
    let (_max_value, min_value) = get_sum_max_min_tmp_size(n as usize, size_of::<u32>(), false);
    SumCustomTilingData {
        outter: m,
        inner: padding_align(n, size_of::<u32>() as u32),
        n,
        tmp_buf_size: min_value as u32,
        out_inner: padding_align(m, size_of::<u32>() as u32),
    }
}

struct KernelMeanSum<T: SumElement + DuplicateElement> {
    in_queue: TQue<VecIn, 1>,
    out_queue: TQue<VecOut, 1>,
    tmp_buf: TBuf<VecCalc>,
    src_global: GlobalTensor<T>,
    dst_global: GlobalTensor<T>,
    inner: u32,
    outter: u32,
    out_inner: u32,
    params: SumParams,
}

impl<T: SumElement + DuplicateElement> KernelMeanSum<T> {
    fn init(src_gm: GmAddr, dst_gm: GmAddr, tiling_data: SumCustomTilingData, pipe: &mut TPipe) -> Self {
        let mut op = KernelMeanSum {
            in_queue: TQue::new(),
            out_queue: TQue::new(),
            tmp_buf: TBuf::new(),
            src_global: GlobalTensor::new(),
            dst_global: GlobalTensor::new(),
            inner: tiling_data.inner,
            outter: tiling_data.outter,
            out_inner: tiling_data.out_inner,
            params: SumParams { inner: tiling_data.inner, outter: tiling_data.outter, n: tiling_data.n },
        };
        op.src_global.set_global_buffer(src_gm, (op.inner * op.outter) as usize);
        op.dst_global.set_global_buffer(dst_gm, op.out_inner as usize);
        pipe.init_buffer(&mut op.in_queue, 1, (op.inner * op.outter) as usize * size_of::<T>());
        pipe.init_buffer(&mut op.out_queue, 1, op.out_inner as usize * size_of::<T>());
        pipe.init_tbuf(&mut op.tmp_buf, tiling_data.tmp_buf_size as usize);
        op
    }

    fn process(&mut self) {
        self.copy_in();
        self.compute();
        self.copy_out();
    }

    fn copy_in(&mut self) {
        let src_local = self.in_queue.alloc_tensor::<T>();
        data_copy(&src_local, &self.src_global, (self.inner * self.outter) as usize);
        self.in_queue.enque(src_local);
    }

    fn compute(&mut self) {
        let src_local = self.in_queue.deque::<T>();
        let dst_local = self.out_queue.alloc_tensor::<T>();
        duplicate::<T>(&dst_local, T::ZERO, self.out_inner as usize);
        let shared_tmp_buffer = self.tmp_buf.get::<u8>();
        sum(&dst_local, &src_local, &shared_tmp_buffer, &self.params);
        // tmpBuf.FreeTensor(sharedTmpBuffer): a TBuf's tensor needs no freeing here.
        self.out_queue.enque(dst_local);
        self.in_queue.free_tensor(src_local);
    }

    fn copy_out(&mut self) {
        let dst_local = self.out_queue.deque::<T>();
        data_copy(&self.dst_global, &dst_local, self.out_inner as usize);
        self.out_queue.free_tensor(dst_local);
    }
}

fn sum_custom(src_gm: GmAddr, dst_gm: GmAddr, tiling: SumCustomTilingData) {
    let mut pipe = TPipe::new();
    let mut op = KernelMeanSum::<f32>::init(src_gm, dst_gm, tiling, &mut pipe);
    op.process();
}

/// gen_data.py's `calculateSum`: neighbours added level by level, an odd last value carried.
fn calculate_sum(arr: &[f32]) -> f32 {
    let mut v = arr.to_vec();
    while v.len() > 1 {
        v = v.chunks(2).map(|c| if c.len() == 2 { c[0] + c[1] } else { c[0] }).collect();
    }
    v[0]
}

/// `RepeatReduceSum`'s passes: the tree of each 64-lane repeat, until one value is left.
fn passes(row: &[f32]) -> f32 {
    let mut v = row.to_vec();
    loop {
        v = v.chunks(64).map(calculate_sum).collect();
        if v.len() == 1 {
            return v[0];
        }
    }
}

fn run_sum_example(soc: Soc, m: u32, n: u32, seed: u64) {
    let tiling = generate_tiling_data(m, n);
    let (inner, outer) = (tiling.inner as usize, m as usize);
    let mut rng = XorShift64::new(seed);
    let x: Vec<f32> = (0..outer * inner).map(|_| rng.range(-100, 100) as f32).collect();
    let out_pad = tiling.out_inner as usize;
    let mut golden = vec![0f32; out_pad];
    let mut want = vec![0f32; out_pad];
    for i in 0..outer {
        golden[i] = calculate_sum(&x[i * inner..i * inner + n as usize]);
        want[i] = passes(&x[i * inner..i * inner + n as usize]);
    }
    let xg = GmBuffer::from_vec(x);
    let yg = GmBuffer::<f32>::zeroed(out_pad);
    Launch::new(soc).block_dim(1).run(|| sum_custom(xg.addr(), yg.addr(), tiling)).unwrap();
    let y = yg.to_vec();
    assert_bits_eq(&y, &want);
    compare_result(&y, &golden.iter().map(|&g| f64::from(g)).collect::<Vec<_>>());
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/04_advanced_api/04_reduce/sum/sum.asc:
// Sum<float> of M = 3 rows of N = 32, the scratch GetSumMaxMinTmpSize's minimum.
#[test]
fn adv_sum_example() {
    for (soc, seed) in [(Soc::Ascend910B, 71), (Soc::Ascend310P, 72)] {
        run_sum_example(soc, 3, 32, seed);
    }
}

// The same kernel with rows of 2000 (inner 2000, 32 partial sums through the scratch).
#[test]
fn adv_sum_example_long_rows() {
    for (soc, seed) in [(Soc::Ascend910B, 73), (Soc::Ascend310P, 74)] {
        run_sum_example(soc, 3, 2000, seed);
    }
}

// ---------------------------------------------------------------------------------------
// arange (06_index)
// ---------------------------------------------------------------------------------------

const BYTES_ALIGN_SIZE: u32 = 32;

struct KernelArange {
    out_dst: TQue<VecOut, 1>,
    dst_global: GlobalTensor<f32>,
    first_value: f32,
    diff_value: f32,
    count: u32,
}

impl KernelArange {
    fn init(dst_gm: GmAddr, first_value: f32, diff_value: f32, count: u32, pipe: &mut TPipe) -> Self {
        let mut op = KernelArange {
            out_dst: TQue::new(),
            dst_global: GlobalTensor::new(),
            first_value,
            diff_value,
            count,
        };
        // The example binds `count` elements but copies out `count` rounded up to a block (the
        // host allocates that much); bound to the copied length so the copy stays in the tensor.
        op.dst_global.set_global_buffer(dst_gm, count.div_ceil(8) as usize * 8);
        let bytes = (size_of::<f32>() as u32 * count).div_ceil(BYTES_ALIGN_SIZE) * BYTES_ALIGN_SIZE;
        pipe.init_buffer(&mut op.out_dst, 1, bytes as usize);
        op
    }

    fn process(&mut self) {
        self.compute();
        self.copy_out();
    }

    fn compute(&mut self) {
        let dst_local = self.out_dst.alloc_tensor::<f32>();
        arange::<f32>(&dst_local, self.first_value, self.diff_value, self.count as i32);
        self.out_dst.enque(dst_local);
    }

    fn copy_out(&mut self) {
        let dst_local = self.out_dst.deque::<f32>();
        let block_num = BYTES_ALIGN_SIZE / size_of::<f32>() as u32;
        data_copy(&self.dst_global, &dst_local, self.count.div_ceil(block_num) as usize * block_num as usize);
        self.out_dst.free_tensor(dst_local);
    }
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/04_advanced_api/06_index/arange/arange.asc:
// Arange<float>(dst, 1.234, 5.678, 100), 104 floats copied out.
#[test]
fn adv_arange_example() {
    const COUNT: usize = 100;
    let (start, difference) = (1.234f32, 5.678f32);
    let length = COUNT.div_ceil(8) * 8;
    // The vendor's steps: 8 by `first + diff * i`, then + diff * 8 per block, + diff * 64 per repeat.
    let mut want: Vec<f32> = (0..8).map(|i| start + difference * i as f32).collect();
    while want.len() < 64 {
        want.push(want[want.len() - 8] + difference * 8.0);
    }
    while want.len() < length {
        want.push(want[want.len() - 64] + difference * 64.0);
    }
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        let yg = GmBuffer::<f32>::zeroed(length);
        Launch::new(soc)
            .block_dim(1)
            .run(|| {
                let mut pipe = TPipe::new();
                let mut op = KernelArange::init(yg.addr(), start, difference, COUNT as u32, &mut pipe);
                op.process();
            })
            .unwrap();
        let y = yg.to_vec();
        assert_bits_eq(&y, &want);
        // gen_data.py: linspace(start, start + difference * (length - 1), length); EPS 1e-5.
        for (i, &a) in y.iter().enumerate() {
            let b = f64::from(start) + f64::from(difference) * i as f64;
            let ae = (f64::from(a) - b).abs();
            assert!(ae <= 1e-5 || ae / b.abs() <= 1e-5, "element {i}: output {a}, golden {b}");
        }
    }
}
