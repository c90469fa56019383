//! Ports of the vendor's advanced-API data-layout examples (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/04_advanced_api/08_transpose/`): `broadcast` (`Broadcast<float,
//! dim, axis>` in its stack form, both of the example's test cases: `[1, 48] → [96, 48]`,
//! axis 0, and `[96, 1] → [96, 96]`, axis 1), on both chips that implement it (Ascend910B and
//! Ascend310P).
//!
//! Each launch keeps the sanitizer on and must pass; the output is compared bit for bit with
//! the scalar reference (each element the source element its index maps to) and with the
//! example's numpy golden (`np.broadcast_to`), which a broadcast meets exactly, inside the
//! example's `1e-5` tolerance. The inputs are the example's distribution (`uniform(-10, 10)`)
//! from a seeded generator, not numpy's draws.

use ascend_kernels::data::random_vec;
use ascend_runtime::prelude::*;
use ascend_runtime::testing::assert_bits_eq;

use crate::gm_of;

// ---------------------------------------------------------------------------------------
// broadcast
// ---------------------------------------------------------------------------------------

/// The example's `BroadcastTilingData`.
#[derive(Clone, Copy, Debug, Default)]
struct BroadcastTilingData {
    dim: u32,
    axis: u32,
    src_first_dim: u32,
    src_last_dim: u32,
    dst_first_dim: u32,
    dst_last_dim: u32,
}

/// The example's host `ComputeTiling`.
fn compute_tiling(input_shape: &[u32], output_shape: &[u32]) -> BroadcastTilingData {
    let mut tiling = BroadcastTilingData::default();
    let mut axis = 0;
    let dim = input_shape.len() as u32;
    if dim == 1 {
        tiling.src_first_dim = input_shape[0];
        tiling.src_last_dim = 1;
        tiling.dst_first_dim = output_shape[0];
        tiling.dst_last_dim = 1;
    } else {
        tiling.src_first_dim = input_shape[0];
        tiling.src_last_dim = input_shape[1];
        tiling.dst_first_dim = output_shape[0];
        tiling.dst_last_dim = output_shape[1];
        if input_shape[1] == 1 {
            axis = 1;
        }
    }
    tiling.axis = axis;
    tiling.dim = dim;
    tiling
}

struct KernelBroadcastCustom<T: BroadcastElement, const DIM: usize, const AXIS: usize> {
    in_queue_x: TQue<VecIn, 1>,
    out_queue_y: TQue<VecOut, 1>,
    x_gm: GlobalTensor<T>,
    y_gm: GlobalTensor<T>,
    src_length: u32,
    dst_length: u32,
    src_shape: [u32; DIM],
    dst_shape: [u32; DIM],
}

impl<T: BroadcastElement, const DIM: usize, const AXIS: usize> KernelBroadcastCustom<T, DIM, AXIS> {
    #[allow(clippy::too_many_arguments)]
    fn init(
        x: GmAddr,
        y: GmAddr,
        src_length: u32,
        dst_length: u32,
        src_shape: [u32; DIM],
        dst_shape: [u32; DIM],
        pipe: &mut TPipe,
    ) -> Self {
        let mut op = KernelBroadcastCustom {
            in_queue_x: TQue::new(),
            out_queue_y: TQue::new(),
            x_gm: gm_of(x),
            y_gm: gm_of(y),
            src_length,
            dst_length,
            src_shape,
            dst_shape,
        };
        op.x_gm.set_global_buffer(x, src_length as usize);
        op.y_gm.set_global_buffer(y, dst_length as usize);
        pipe.init_buffer(&mut op.in_queue_x, 1, src_length as usize * T::SIZE);
        pipe.init_buffer(&mut op.out_queue_y, 1, dst_length as usize * T::SIZE);
        op
    }

    fn process(&mut self) {
        self.copy_in();
        self.compute();
        self.copy_out();
    }

    fn copy_in(&mut self) {
        let x_local = self.in_queue_x.alloc_tensor::<T>();
        data_copy(&x_local, &self.x_gm, self.src_length as usize);
        self.in_queue_x.enque(x_local);
    }

    fn compute(&mut self) {
        let x_local = self.in_queue_x.deque::<T>();
        let y_local = self.out_queue_y.alloc_tensor::<T>();
        broadcast_stack::<T, DIM, AXIS, false>(&y_local, &x_local, &self.dst_shape, &self.src_shape);
        self.out_queue_y.enque(y_local);
        self.in_queue_x.free_tensor(x_local);
    }

    fn copy_out(&mut self) {
        let y_local = self.out_queue_y.deque::<T>();
        data_copy(&self.y_gm, &y_local, self.dst_length as usize);
        self.out_queue_y.free_tensor(y_local);
    }
}

/// The example's `broadcast_custom` kernel.
fn broadcast_custom(x: GmAddr, y: GmAddr, tiling_data: BroadcastTilingData) {
    let mut pipe = TPipe::new();
    let t = tiling_data;
    if t.dim == 1 {
        let (src_shape, dst_shape) = ([t.src_first_dim], [t.dst_first_dim]);
        let mut op = KernelBroadcastCustom::<f32, 1, 0>::init(
            x,
            y,
            t.src_first_dim,
            t.dst_first_dim,
            src_shape,
            dst_shape,
            &mut pipe,
        );
        op.process();
    } else {
        let src_shape = [t.src_first_dim, t.src_last_dim];
        let dst_shape = [t.dst_first_dim, t.dst_last_dim];
        let (src_len, dst_len) = (t.src_first_dim * t.src_last_dim, t.dst_first_dim * t.dst_last_dim);
        if t.axis == 0 {
            let mut op = KernelBroadcastCustom::<f32, 2, 0>::init(
                x, y, src_len, dst_len, src_shape, dst_shape, &mut pipe,
            );
            op.process();
        } else {
            let mut op = KernelBroadcastCustom::<f32, 2, 1>::init(
                x, y, src_len, dst_len, src_shape, dst_shape, &mut pipe,
            );
            op.process();
        }
    }
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/04_advanced_api/08_transpose/broadcast/
// broadcast.asc: testcase 0 ([1, 48] → [96, 48]) and 1 ([96, 1] → [96, 96]).
#[test]
fn adv_broadcast_example() {
    for (case, (input, output)) in [([1u32, 48], [96u32, 48]), ([96, 1], [96, 96])].into_iter().enumerate() {
        for (soc, seed) in [(Soc::Ascend910B, 71), (Soc::Ascend310P, 72)] {
            // gen_data.py: x = uniform(-10, 10) float32; golden = np.broadcast_to(x, y_shape).
            let (src_n, dst_n) = ((input[0] * input[1]) as usize, (output[0] * output[1]) as usize);
            let x: Vec<f32> = random_vec(src_n, seed + case as u64, -10.0, 10.0);
            let golden: Vec<f32> = (0..dst_n)
                .map(|e| {
                    let (i, j) = (e / output[1] as usize, e % output[1] as usize);
                    x[if input[0] == 1 { j } else { i }]
                })
                .collect();
            let tiling = compute_tiling(&input, &output);
            let xg = GmBuffer::from_vec(x.clone());
            let yg = GmBuffer::<f32>::zeroed(dst_n);
            Launch::new(soc).block_dim(1).run(|| broadcast_custom(xg.addr(), yg.addr(), tiling)).unwrap();
            let y = yg.to_vec();
            // The reference (a pure copy) is the golden itself.
            assert_bits_eq(&y, &golden);
            // CompareResult: EPS = 1e-5, absolute or relative.
            for (i, (&a, &b)) in y.iter().zip(&golden).enumerate() {
                let ae = (a - b).abs();
                assert!(ae <= 1e-5 || ae / b.abs() <= 1e-5, "case {case} on {soc}, element {i}: {a} vs {b}");
            }
        }
    }
}
