//! Port of the vendor's advanced-API `power` example for `adv/math_power.rs`
//! (`mirror-cann/asc-devkit`, `examples/01_simd_cpp_api/04_advanced_api/10_math/power/`):
//! `Power<float>` of 16 elements with a `TBuf` scratch of the host's minimum, in its three
//! scenarios (0: tensor–tensor, 1: tensor–scalar with `srcexp[0]`, 2: scalar–tensor with
//! `srcbase[0]`), built for dav-2201 (Ascend910B).
//!
//! Each launch keeps the sanitizer on and must pass; the output is compared bit for bit with a
//! per-element reference that takes the kernel's steps (as `ascend-core/tests/adv_math_power.rs`),
//! and within the example's tolerance (`compare_result`) with its golden `np.power`. The example
//! draws both operands from `uniform(-10, 10)`, so a negative base with a non-integral exponent
//! gives NaN; its `CompareResult` passes a NaN golden whatever the output (`|a - b| > EPS` is
//! false), and here the output must be NaN there too. The inputs are drawn with this crate's
//! generator (numpy's stream is not reproduced).

use std::mem::size_of;

use ascend_kernels::data::random_vec;
use ascend_runtime::prelude::*;

use crate::compare_result;

struct KernelPower<'a> {
    pipe: &'a mut TPipe,
    src_global_base: GlobalTensor<f32>,
    src_global_exp: GlobalTensor<f32>,
    dst_global: GlobalTensor<f32>,
    in_queue_x1: TQue<VecIn, 1>,
    in_queue_x2: TQue<VecIn, 1>,
    out_queue: TQue<VecOut, 1>,
    buf: TBuf<VecCalc>,
    buffer_size: u32,
    mode: u32,
}

impl<'a> KernelPower<'a> {
    fn init(
        (src_gm_base, src_gm_exp, dst_gm): (GmAddr, GmAddr, GmAddr),
        src_size: u32,
        tmp_buf_size: u32,
        mode: u32,
        pipe_in: &'a mut TPipe,
    ) -> Self {
        let mut op = KernelPower {
            pipe: pipe_in,
            src_global_base: GlobalTensor::new(),
            src_global_exp: GlobalTensor::new(),
            dst_global: GlobalTensor::new(),
            in_queue_x1: TQue::new(),
            in_queue_x2: TQue::new(),
            out_queue: TQue::new(),
            buf: TBuf::new(),
            buffer_size: src_size,
            mode,
        };
        op.src_global_base.set_global_buffer(src_gm_base, src_size as usize);
        op.src_global_exp.set_global_buffer(src_gm_exp, src_size as usize);
        op.dst_global.set_global_buffer(dst_gm, src_size as usize);
        let bytes = src_size as usize * size_of::<f32>();
        op.pipe.init_buffer(&mut op.in_queue_x1, 1, bytes);
        op.pipe.init_buffer(&mut op.in_queue_x2, 1, bytes);
        op.pipe.init_buffer(&mut op.out_queue, 1, bytes);
        op.pipe.init_tbuf(&mut op.buf, tmp_buf_size as usize);
        op
    }

    fn process(&mut self) {
        self.copy_in();
        self.compute();
        self.copy_out();
    }

    fn copy_in(&mut self) {
        let src_local_base = self.in_queue_x1.alloc_tensor::<f32>();
        let src_local_exp = self.in_queue_x2.alloc_tensor::<f32>();
        data_copy(&src_local_base, &self.src_global_base, self.buffer_size as usize);
        data_copy(&src_local_exp, &self.src_global_exp, self.buffer_size as usize);
        self.in_queue_x1.enque(src_local_base);
        self.in_queue_x2.enque(src_local_exp);
    }

    fn compute(&mut self) {
        let dst_local = self.out_queue.alloc_tensor::<f32>();
        let src_local_base = self.in_queue_x1.deque::<f32>();
        let src_local_exp = self.in_queue_x2.deque::<f32>();
        let tmp_buffer = self.buf.get::<u8>();
        // The vendor's forms without calCount: the whole base (or exponent) tensor.
        if self.mode == 0 {
            power::<f32, false>(
                &dst_local,
                &src_local_base,
                &src_local_exp,
                &tmp_buffer,
                src_local_base.get_size(),
            );
        } else if self.mode == 1 {
            let scalar_value = src_local_exp.get_value(0);
            pipe_barrier::<PIPE_V>();
            power_tensor_scalar::<f32, false>(
                &dst_local,
                &src_local_base,
                scalar_value,
                &tmp_buffer,
                src_local_base.get_size(),
            );
        } else if self.mode == 2 {
            let scalar_value = src_local_base.get_value(0);
            pipe_barrier::<PIPE_V>();
            power_scalar_tensor::<f32, false>(
                &dst_local,
                scalar_value,
                &src_local_exp,
                &tmp_buffer,
                src_local_exp.get_size(),
            );
        }
        pipe_barrier::<PIPE_V>();
        self.out_queue.enque(dst_local);
        self.in_queue_x1.free_tensor(src_local_base);
        self.in_queue_x2.free_tensor(src_local_exp);
    }

    fn copy_out(&mut self) {
        let dst_local = self.out_queue.deque::<f32>();
        data_copy(&self.dst_global, &dst_local, self.buffer_size as usize);
        self.out_queue.free_tensor(dst_local);
    }
}

fn power_custom(gm: (GmAddr, GmAddr, GmAddr), src_size: u32, tmp_buf_size: u32, mode: u32) {
    let mut pipe = TPipe::new();
    let mut op = KernelPower::init(gm, src_size, tmp_buf_size, mode, &mut pipe);
    op.process();
}

/// The kernel's steps for one element on Ascend910B (`CommonPowerF`), each rounded to `float`.
fn power_ref(x: f32, y: f32) -> f32 {
    let e = ((y * (f64::from(x.abs()).ln() as f32)) as f64).exp() as f32;
    let a = y.abs().round_ties_even();
    let odd = ((a - (a * 0.5).floor() * 2.0) * -2.0 + 1.0).round_ties_even();
    let fin = (y.abs() - y.abs().round_ties_even()).abs() < 0.000_000_01f32;
    let mut d = if x.is_sign_negative() && fin { odd } else { 1.0 } * e;
    if !(y.abs() != 0.0 && x != 1.0 && (x != -1.0 || y.abs() != f32::INFINITY)) {
        d = 1.0;
    }
    if !(y.abs() == f32::INFINITY || fin || x >= 0.0 || x == f32::NEG_INFINITY) {
        d = f32::from_bits(0x7fc0_0000);
    }
    d
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/04_advanced_api/10_math/power/power.asc:
// Power<float> of 16 elements (no calCount) with a scratch TBuf of GetPowerMaxMinTmpSize's
// minimum bytes for the scenario's shapes ({16} and {16}, or {1} for the scalar); golden
// np.power in float32, compared within 1e-4 absolute or relative.
#[test]
fn adv_power_example() {
    let base: Vec<f32> = random_vec(16, 20240623, -10.0, 10.0);
    let mut exp: Vec<f32> = random_vec(16, 20240624, -10.0, 10.0);
    // A few integral exponents so that negative bases give real results too.
    for i in [1, 4, 9] {
        exp[i] = exp[i].round();
    }
    for scenario in 0..3u32 {
        let (s1, s2): (&[usize], &[usize]) = match scenario {
            0 => (&[16], &[16]),
            1 => (&[16], &[1]),
            _ => (&[1], &[16]),
        };
        let (_max, min) = get_power_max_min_tmp_size(Soc::Ascend910B, s1, s2, false, size_of::<f32>(), false);
        assert_eq!(min, if scenario == 0 { 1280 } else { 1536 });
        let (bg, eg) = (GmBuffer::from_vec(base.clone()), GmBuffer::from_vec(exp.clone()));
        let yg = GmBuffer::<f32>::zeroed(16);
        Launch::new(Soc::Ascend910B)
            .block_dim(1)
            .run(|| power_custom((bg.addr(), eg.addr(), yg.addr()), 16, min as u32, scenario))
            .unwrap();
        let y = yg.to_vec();
        let pair = |i: usize| match scenario {
            0 => (base[i], exp[i]),
            1 => (base[i], exp[0]),
            _ => (base[0], exp[i]),
        };
        for (i, &g) in y.iter().enumerate() {
            let (x, e) = pair(i);
            let want = power_ref(x, e);
            assert!(
                g.to_bits() == want.to_bits(),
                "scenario {scenario}, element {i}: {x}^{e} = {g}, want {want}"
            );
        }
        let golden: Vec<f64> = (0..16).map(|i| f64::from(pair(i).0.powf(pair(i).1))).collect();
        let (nan, real): (Vec<usize>, Vec<usize>) = (0..16).partition(|&i| golden[i].is_nan());
        assert!(nan.iter().all(|&i| y[i].is_nan()), "scenario {scenario}: {y:?}");
        assert!(!real.is_empty());
        compare_result(
            &real.iter().map(|&i| y[i]).collect::<Vec<_>>(),
            &real.iter().map(|&i| golden[i]).collect::<Vec<_>>(),
        );
    }
}
