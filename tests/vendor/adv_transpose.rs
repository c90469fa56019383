//! Ports of the vendor's advanced-API transpose examples (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/04_advanced_api/08_transpose/`): `transpose` (the advanced
//! `Transpose`, i.e. `ConfusionTranspose`, of `TRANSPOSE_NZ2ND_0213` on `half`: `[B, N, S,
//! H/N] = [1, 2, 64, 32]` from NZ `[1, 2, 2, 4, 16, 16]` to ND `[1, 64, 2, 32]`, the form
//! without a temporary buffer, its tiling from the host's `GetTransposeMaxMinTmpSize` minimum
//! and `GetTransposeTilingInfo`). The example runs on Ascend910B; the port runs it on both
//! chips that implement `ConfusionTranspose` (Ascend910B and Ascend310P).
//!
//! Each launch keeps the sanitizer on and must pass; the output is compared bit for bit with
//! the example's numpy golden (`np.transpose(origin, (0, 2, 1, 3))`: the moves are exact, so
//! the golden is the scalar reference), and within the example's tolerance by its
//! `verify_result.py` rule (`compare_result`). The inputs are the example's distribution
//! (`uniform(-1000, 1000)` as `float16`) from a seeded generator, not numpy's draws.
//! Not ported: `transdata` (`TransData` is not emulated yet); the other examples of the
//! folder (`broadcast`, `pad`, `unpad`, …) belong to other modules.

use ascend_kernels::data::random_vec;
use ascend_runtime::prelude::*;

use crate::compare_result;

/// The example's `VecTiling`: the shape and the `ConfusionTransposeTiling`.
#[derive(Clone, Copy)]
struct VecTiling {
    b: u32,
    n: u32,
    s: u32,
    hn_div: u32,
    transpose_tiling_data: ConfusionTransposeTiling,
}

/// The example's host `ComputeTiling`: the minimum temporary size, then the tiling for it.
fn compute_tiling(b: u32, n: u32, s: u32, hn_div: u32) -> VecTiling {
    let src_shape = [b as usize, n as usize, s as usize, hn_div as usize];
    // GetTransposeMaxMinTmpSize(srcShape, sizeof(uint16_t), 1, maxValue, minValue): type 1 is
    // TRANSPOSE_NZ2ND_0213.
    let (_max_value, min_value) =
        get_confusion_transpose_max_min_tmp_size(&src_shape, 2, TransposeType::TRANSPOSE_NZ2ND_0213);
    let stack_buffer_size = min_value;
    let transpose_tiling_data = get_confusion_transpose_tiling_info(
        &src_shape,
        stack_buffer_size,
        2,
        TransposeType::TRANSPOSE_NZ2ND_0213,
    );
    VecTiling { b, n, s, hn_div, transpose_tiling_data }
}

struct KernelTranspose<T: ConfusionTransposeElement> {
    in_queue_src_vec_in: TQue<VecIn, 1>,
    in_queue_src_vec_out: TQue<VecOut, 1>,
    src_global: GlobalTensor<T>,
    dst_global: GlobalTensor<T>,
    count: usize,
    tiling: ConfusionTransposeTiling,
}

impl<T: ConfusionTransposeElement> KernelTranspose<T> {
    fn init(src_gm: GmAddr, dst_gm: GmAddr, tiling_data: &VecTiling, pipe: &mut TPipe) -> Self {
        let count = (tiling_data.b * tiling_data.n * tiling_data.s * tiling_data.hn_div) as usize;
        let mut op = KernelTranspose {
            in_queue_src_vec_in: TQue::new(),
            in_queue_src_vec_out: TQue::new(),
            src_global: GlobalTensor::new(),
            dst_global: GlobalTensor::new(),
            count,
            tiling: tiling_data.transpose_tiling_data,
        };
        op.src_global.set_global_buffer(src_gm, count);
        op.dst_global.set_global_buffer(dst_gm, count);
        pipe.init_buffer(&mut op.in_queue_src_vec_in, 1, count * T::SIZE);
        pipe.init_buffer(&mut op.in_queue_src_vec_out, 1, count * T::SIZE);
        op
    }

    fn process(&mut self) {
        self.copy_in();
        self.compute();
        self.copy_out();
    }

    fn copy_in(&mut self) {
        let src_local = self.in_queue_src_vec_in.alloc_tensor::<T>();
        data_copy(&src_local, &self.src_global, self.count);
        self.in_queue_src_vec_in.enque(src_local);
    }

    fn compute(&mut self) {
        let src_local = self.in_queue_src_vec_in.deque::<T>();
        let dst_local = self.in_queue_src_vec_out.alloc_tensor::<T>();
        // AscendC::Transpose(dstLocal, srcLocal, TransposeType::TRANSPOSE_NZ2ND_0213, tiling).
        confusion_transpose_stack(&dst_local, &src_local, TransposeType::TRANSPOSE_NZ2ND_0213, &self.tiling);
        self.in_queue_src_vec_out.enque(dst_local);
        self.in_queue_src_vec_in.free_tensor(src_local);
    }

    fn copy_out(&mut self) {
        let dst_local = self.in_queue_src_vec_out.deque::<T>();
        data_copy(&self.dst_global, &dst_local, self.count);
        self.in_queue_src_vec_out.free_tensor(dst_local);
    }
}

const B: u32 = 1;
const N: u32 = 2;
const S: u32 = 64;
const HNDIV: u32 = 32;

fn transpose_custom(x: GmAddr, y: GmAddr, tiling_data: &VecTiling) {
    let mut pipe = TPipe::new();
    let mut op = KernelTranspose::<f16>::init(x, y, tiling_data, &mut pipe);
    op.process();
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/04_advanced_api/08_transpose/transpose/
// transpose.asc: Transpose<half> TRANSPOSE_NZ2ND_0213 of [B, N, S, H/N] = [1, 2, 64, 32].
#[test]
fn adv_transpose_example() {
    let (b, n, s, h) = (B as usize, N as usize, S as usize, HNDIV as usize);
    let tiling = compute_tiling(B, N, S, HNDIV);
    // The minimum buffer (one fractal): 4 rounds of one fractal per column block, no tail.
    let p = tiling.transpose_tiling_data;
    assert_eq!((p.param6, p.param9, p.param10), (256, 4, 0));
    for (soc, seed) in [(Soc::Ascend910B, 81), (Soc::Ascend310P, 82)] {
        // gen_data.py: origin = uniform(-1000, 1000) float16 of (b, n, s, h); input = origin
        // reshaped to (b, n, s/16, 16, h/16, 16) and transposed (0, 1, 4, 2, 3, 5); golden =
        // transpose(origin, (0, 2, 1, 3)).
        let origin: Vec<f16> = random_vec(b * n * s * h, seed, -1000.0, 1000.0);
        let at = |bi: usize, ni: usize, si: usize, hi: usize| origin[((bi * n + ni) * s + si) * h + hi];
        let mut input = Vec::with_capacity(origin.len());
        for bi in 0..b {
            for ni in 0..n {
                for hb in 0..h / 16 {
                    for sb in 0..s / 16 {
                        for s0 in 0..16 {
                            for h0 in 0..16 {
                                input.push(at(bi, ni, sb * 16 + s0, hb * 16 + h0));
                            }
                        }
                    }
                }
            }
        }
        let mut golden = Vec::with_capacity(origin.len());
        for bi in 0..b {
            for si in 0..s {
                for ni in 0..n {
                    for hi in 0..h {
                        golden.push(at(bi, ni, si, hi));
                    }
                }
            }
        }
        let xg = GmBuffer::from_vec(input);
        let yg = GmBuffer::<f16>::zeroed(origin.len());
        Launch::new(soc).block_dim(1).run(|| transpose_custom(xg.addr(), yg.addr(), &tiling)).unwrap();
        let y = yg.to_vec();
        let bits = |v: &[f16]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&y), bits(&golden), "{soc}");
        let y32: Vec<f32> = y.iter().map(|v| v.to_f32()).collect();
        compare_result(&y32, &golden.iter().map(|v| f64::from(v.to_f32())).collect::<Vec<_>>());
    }
}
