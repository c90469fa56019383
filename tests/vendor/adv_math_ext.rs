//! Ports of the vendor's advanced-API math examples for `adv/math_ext.rs`
//! (`mirror-cann/asc-devkit`, `examples/01_simd_cpp_api/04_advanced_api/10_math/`): `acosh`
//! (`Acosh<float>` with a `TBuf` scratch sized from the host's minimum) and `fmod` (`Fmod<float>`
//! with a count and the framework's stack buffer, `KernelFmod<float, 0, 1>`), both built for
//! dav-2201 (Ascend910B).
//!
//! Each launch keeps the sanitizer on and must pass; the output is compared bit for bit with a
//! per-element reference that takes the kernel's steps (as `ascend-core/tests/adv_math_ext.rs`),
//! and within the example's tolerance (`compare_result`) with its golden. The `acosh` example
//! draws inputs from `[-1000, 1000]`, so most of its goldens are NaN (`acosh(x)` for `x < 1`);
//! its `CompareResult` passes a NaN golden whatever the output (`|a - b| > EPS` is false), and
//! here the output must be NaN there too. Not ported: `fma` (`Fma` exists only on Ascend 950).

use std::mem::size_of;

use ascend_kernels::data::random_vec;
use ascend_runtime::prelude::*;
use ascend_runtime::testing::assert_bits_eq;

use crate::compare_result;

// ---------------------------------------------------------------------------------------
// acosh
// ---------------------------------------------------------------------------------------

struct KernelAcosh<'a, T: AcoshElement + DuplicateElement> {
    pipe: &'a mut TPipe,
    in_queue_x: TQue<VecIn, 1>,
    out_queue: TQue<VecOut, 1>,
    buf: TBuf<VecCalc>,
    src_global: GlobalTensor<T>,
    dst_global: GlobalTensor<T>,
    data_size: u32,
    cal_count: u32,
    tmp_buf_size: u32,
}

impl<'a, T: AcoshElement + DuplicateElement> KernelAcosh<'a, T> {
    fn init(
        src_gm: GmAddr,
        dst_gm: GmAddr,
        src_size: u32,
        tmp_buf_size_in: u32,
        cal_count_in: u32,
        pipe_in: &'a mut TPipe,
    ) -> Self {
        let one_blk_size = 32 / size_of::<T>() as u32;
        let align_size = src_size.div_ceil(one_blk_size) * one_blk_size;
        let mut op = KernelAcosh {
            pipe: pipe_in,
            in_queue_x: TQue::new(),
            out_queue: TQue::new(),
            buf: TBuf::new(),
            src_global: GlobalTensor::new(),
            dst_global: GlobalTensor::new(),
            data_size: align_size,
            cal_count: cal_count_in,
            tmp_buf_size: tmp_buf_size_in,
        };
        op.src_global.set_global_buffer(src_gm, op.data_size as usize);
        op.dst_global.set_global_buffer(dst_gm, op.data_size as usize);
        op.pipe.init_buffer(&mut op.in_queue_x, 1, op.data_size as usize * size_of::<T>());
        op.pipe.init_buffer(&mut op.out_queue, 1, op.data_size as usize * size_of::<T>());
        if op.tmp_buf_size > 0 {
            // The vendor sizes the scratch as tmpBufSize elements of T (the host's bytes).
            op.pipe.init_tbuf(&mut op.buf, op.tmp_buf_size as usize * size_of::<T>());
        }
        op
    }

    fn process(&mut self) {
        self.copy_in();
        self.compute();
        self.copy_out();
    }

    fn copy_in(&mut self) {
        let src_local = self.in_queue_x.alloc_tensor::<T>();
        data_copy(&src_local, &self.src_global, self.data_size as usize);
        self.in_queue_x.enque(src_local);
    }

    fn compute(&mut self) {
        let src_local = self.in_queue_x.deque::<T>();
        let dst_local = self.out_queue.alloc_tensor::<T>();
        duplicate(&dst_local, T::from_f64(0.0), self.data_size as usize);
        let temp = (self.tmp_buf_size > 0).then(|| self.buf.get::<u8>());
        match (temp, self.cal_count) {
            (Some(t), n) if n > 0 => acosh::<T, false>(&dst_local, &src_local, &t, n as usize),
            (Some(t), _) => acosh::<T, false>(&dst_local, &src_local, &t, src_local.get_size()),
            (None, n) if n > 0 => acosh_stack::<T, false>(&dst_local, &src_local, n as usize),
            (None, _) => acosh_stack::<T, false>(&dst_local, &src_local, src_local.get_size()),
        }
        self.out_queue.enque(dst_local);
        self.in_queue_x.free_tensor(src_local);
    }

    fn copy_out(&mut self) {
        let dst_local = self.out_queue.deque::<T>();
        data_copy(&self.dst_global, &dst_local, self.data_size as usize);
        self.out_queue.free_tensor(dst_local);
    }
}

fn acosh_custom(src_gm: GmAddr, dst_gm: GmAddr, tmp_buf_size: u32) {
    let mut pipe = TPipe::new();
    const SRC_SIZE: u32 = 16;
    const CAL_COUNT: u32 = 16;
    let mut op = KernelAcosh::<f32>::init(src_gm, dst_gm, SRC_SIZE, tmp_buf_size, CAL_COUNT, &mut pipe);
    op.process();
}

/// `Acosh`'s steps for one `float`: `ln(s · (s / s))`, `s = x + sqrt(x·x - 1)`; `Exp`, `Ln` and
/// `Sqrt` in f64, rounded once.
fn acosh_ref(x: f32) -> f32 {
    let t = ((x * x + -1.0) as f64).sqrt() as f32;
    let s = x + t;
    #[allow(clippy::eq_op)] // the vendor's Div(t, s, s): 1, or NaN
    let q = s / s;
    ((s * q) as f64).ln() as f32
}

/// Bit for bit, but any NaN for a NaN.
#[track_caller]
fn assert_same_or_nan(got: &[f32], want: &[f32]) {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(g.to_bits() == w.to_bits() || g.is_nan() && w.is_nan(), "element {i}: got {g}, want {w}");
    }
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/04_advanced_api/10_math/acosh/acosh.asc:
// Acosh<float> of 16 elements with calCount 16 and a scratch TBuf of
// GetAcoshMaxMinTmpSize({16}, 4).min (256) floats; main draws uniform(-1000, 1000) and compares
// with std::acosh.
#[test]
fn adv_acosh_example() {
    let x: Vec<f32> = random_vec(16, 20240611, -1000.0, 1000.0);
    let (_max, min) = get_acosh_max_min_tmp_size(16, size_of::<f32>(), false);
    assert_eq!(min, 256);
    let xg = GmBuffer::from_vec(x.clone());
    let yg = GmBuffer::<f32>::zeroed(16);
    Launch::new(Soc::Ascend910B).block_dim(1).run(|| acosh_custom(xg.addr(), yg.addr(), min as u32)).unwrap();
    let y = yg.to_vec();
    let want: Vec<f32> = x.iter().map(|&v| acosh_ref(v)).collect();
    assert_same_or_nan(&y, &want);
    let golden: Vec<f64> = x.iter().map(|&v| f64::from(v.acosh())).collect();
    assert!(golden.iter().any(|g| !g.is_nan()) && golden.iter().any(|g| g.is_nan()));
    let (nan, real): (Vec<usize>, Vec<usize>) = (0..16).partition(|&i| golden[i].is_nan());
    assert!(nan.iter().all(|&i| y[i].is_nan()), "{y:?}");
    compare_result(
        &real.iter().map(|&i| y[i]).collect::<Vec<_>>(),
        &real.iter().map(|&i| golden[i]).collect::<Vec<_>>(),
    );
}

// ---------------------------------------------------------------------------------------
// fmod
// ---------------------------------------------------------------------------------------

const BUFFER_NUM: usize = 1;

/// The vendor's `Align32B<T>`: `len` rounded up to 32 bytes' worth of `T`.
fn align_32b<T: Element>(len: u32) -> u32 {
    let align = 32 / size_of::<T>() as u32;
    len.div_ceil(align) * align
}

struct KernelFmod<
    'a,
    T: FmodElement + DuplicateElement,
    const USE_SHARED_TMP_BUFFER: bool,
    const USE_CAL_COUNT: bool,
> {
    pipe: &'a mut TPipe,
    src0_global: GlobalTensor<T>,
    src1_global: GlobalTensor<T>,
    dst_global: GlobalTensor<T>,
    src0_queue: TQue<VecIn, BUFFER_NUM>,
    src1_queue: TQue<VecIn, BUFFER_NUM>,
    dst_queue: TQue<VecOut, BUFFER_NUM>,
    shared_tmp_buffer_queue: TBuf<VecCalc>,
    cal_count: u32,
    gm_in_count: u32,
    gm_out_count: u32,
    shared_tmp_buffer_size: u32,
}

impl<'a, T: FmodElement + DuplicateElement, const USE_SHARED_TMP_BUFFER: bool, const USE_CAL_COUNT: bool>
    KernelFmod<'a, T, USE_SHARED_TMP_BUFFER, USE_CAL_COUNT>
{
    #[allow(clippy::too_many_arguments)]
    fn init(
        src0_gm: GmAddr,
        src1_gm: GmAddr,
        dst_gm: GmAddr,
        gm_in_count: u32,
        gm_out_count: u32,
        cal_count: u32,
        shared_tmp_buffer_size: u32,
        pipe_in: &'a mut TPipe,
    ) -> Self {
        let mut op = KernelFmod {
            pipe: pipe_in,
            src0_global: GlobalTensor::new(),
            src1_global: GlobalTensor::new(),
            dst_global: GlobalTensor::new(),
            src0_queue: TQue::new(),
            src1_queue: TQue::new(),
            dst_queue: TQue::new(),
            shared_tmp_buffer_queue: TBuf::new(),
            cal_count,
            gm_in_count,
            gm_out_count,
            shared_tmp_buffer_size,
        };
        op.src0_global.set_global_buffer(src0_gm, gm_in_count as usize);
        op.src1_global.set_global_buffer(src1_gm, gm_in_count as usize);
        op.dst_global.set_global_buffer(dst_gm, gm_out_count as usize);
        let in_bytes = align_32b::<T>(gm_in_count) as usize * size_of::<T>();
        op.pipe.init_buffer(&mut op.src0_queue, BUFFER_NUM, in_bytes);
        op.pipe.init_buffer(&mut op.src1_queue, BUFFER_NUM, in_bytes);
        op.pipe.init_buffer(
            &mut op.dst_queue,
            BUFFER_NUM,
            align_32b::<T>(gm_out_count) as usize * size_of::<T>(),
        );
        op
    }

    fn process(&mut self) {
        self.copy_in();
        self.compute();
        self.copy_out();
    }

    fn copy_in(&mut self) {
        let src0_local = self.src0_queue.alloc_tensor::<T>();
        let src1_local = self.src1_queue.alloc_tensor::<T>();
        let pad = DataCopyPadParams::default();
        let params = DataCopyParams::new(1, (self.gm_in_count as usize * size_of::<T>()) as u16, 0, 0);
        data_copy_pad_params(&src0_local, &self.src0_global, &params, &pad);
        data_copy_pad_params(&src1_local, &self.src1_global, &params, &pad);
        self.src0_queue.enque(src0_local);
        self.src1_queue.enque(src1_local);
    }

    fn compute(&mut self) {
        let dst_local = self.dst_queue.alloc_tensor::<T>();
        if self.gm_out_count > self.gm_in_count || self.cal_count < self.gm_in_count {
            duplicate(&dst_local, T::from_f64(0.0), self.gm_out_count as usize);
        }
        let src0_local = self.src0_queue.deque::<T>();
        let src1_local = self.src1_queue.deque::<T>();
        // The __NPU_ARCH__ == 2201 branch.
        let n = if USE_CAL_COUNT { self.cal_count as usize } else { src0_local.get_size() };
        if USE_SHARED_TMP_BUFFER {
            self.pipe.init_tbuf(&mut self.shared_tmp_buffer_queue, self.shared_tmp_buffer_size as usize);
            let shared_tmp_buffer = self.shared_tmp_buffer_queue.get::<u8>();
            fmod::<T, false>(&dst_local, &src0_local, &src1_local, &shared_tmp_buffer, n);
        } else {
            fmod_stack::<T, false>(&dst_local, &src0_local, &src1_local, n);
        }
        self.dst_queue.enque(dst_local);
        self.src0_queue.free_tensor(src0_local);
        self.src1_queue.free_tensor(src1_local);
    }

    fn copy_out(&mut self) {
        let dst_local = self.dst_queue.deque::<T>();
        let params = DataCopyParams::new(1, (self.gm_out_count as usize * size_of::<T>()) as u16, 0, 0);
        data_copy_pad_params_to_gm(&self.dst_global, &dst_local, &params);
        self.dst_queue.free_tensor(dst_local);
    }
}

fn fmod_custom(src0_gm: GmAddr, src1_gm: GmAddr, dst_gm: GmAddr, tmp_buf_size: u32) {
    let mut pipe = TPipe::new();
    const IN_COUNT: u32 = 159;
    const OUT_COUNT: u32 = 159;
    const CAL_COUNT: u32 = 159;
    let mut op = KernelFmod::<f32, false, true>::init(
        src0_gm,
        src1_gm,
        dst_gm,
        IN_COUNT,
        OUT_COUNT,
        CAL_COUNT,
        tmp_buf_size,
        &mut pipe,
    );
    op.process();
}

/// `Fmod`'s steps for one `float` on Ascend910B: `a - trunc(a / b) · b`, each rounded.
fn fmod_ref(a: f32, b: f32) -> f32 {
    let q = a / b;
    a - if q.is_nan() { q } else { q.trunc() } * b
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/04_advanced_api/10_math/fmod/fmod.asc:
// KernelFmod<float, 0, 1>: Fmod(dst, src0, src1, 159) with the framework's buffer (the host's
// GetFmodMaxMinTmpSize({159}, 4).min is passed but unused). gen_data.py: src0 = 0.0 (all),
// src1 = uniform(-1, 1), golden = np.fmod(src0, src1).
#[test]
fn adv_fmod_example() {
    let src0 = vec![0.0f32; 159];
    let src1: Vec<f32> = random_vec(159, 7159, -1.0, 1.0);
    let (_max, min) = get_fmod_max_min_tmp_size(159, size_of::<f32>(), false);
    assert_eq!(min, 256);
    let (g0, g1) = (GmBuffer::from_vec(src0.clone()), GmBuffer::from_vec(src1.clone()));
    let gd = GmBuffer::<f32>::zeroed(159);
    Launch::new(Soc::Ascend910B)
        .block_dim(1)
        .run(|| fmod_custom(g0.addr(), g1.addr(), gd.addr(), min as u32))
        .unwrap();
    let y = gd.to_vec();
    let want: Vec<f32> = src0.iter().zip(&src1).map(|(&a, &b)| fmod_ref(a, b)).collect();
    assert_bits_eq(&y, &want);
    // np.fmod(0, b) is +0 for every b here, as the kernel's 0 - (±0 · b).
    let golden: Vec<f32> = src0.iter().zip(&src1).map(|(&a, &b)| a % b).collect();
    assert_bits_eq(&y, &golden);
    compare_result(&y, &golden.iter().map(|&g| f64::from(g)).collect::<Vec<_>>());
}

// The same kernel over the fmod example's structure with non-zero dividends, and with a shared
// buffer of the host's minimum (the example's other template arguments, `<float, 1, 1>` and
// `<float, 1, 0>`).
#[test]
fn adv_fmod_example_other_forms() {
    fn kernel<const SHARED: bool, const COUNT: bool>(a: GmAddr, b: GmAddr, d: GmAddr, tmp: u32) {
        let mut pipe = TPipe::new();
        let mut op = KernelFmod::<f32, SHARED, COUNT>::init(a, b, d, 159, 159, 159, tmp, &mut pipe);
        op.process();
    }
    let src0: Vec<f32> = random_vec(159, 11, -100.0, 100.0);
    let src1: Vec<f32> = random_vec(159, 12, -1.0, 1.0);
    let (_max, min) = get_fmod_max_min_tmp_size(159, size_of::<f32>(), false);
    let want: Vec<f32> = src0.iter().zip(&src1).map(|(&a, &b)| fmod_ref(a, b)).collect();
    let golden: Vec<f64> = src0.iter().zip(&src1).map(|(&a, &b)| f64::from(a) % f64::from(b)).collect();
    for form in 0..3 {
        let (g0, g1) = (GmBuffer::from_vec(src0.clone()), GmBuffer::from_vec(src1.clone()));
        let gd = GmBuffer::<f32>::zeroed(159);
        Launch::new(Soc::Ascend910B)
            .block_dim(1)
            .run(|| match form {
                0 => kernel::<true, true>(g0.addr(), g1.addr(), gd.addr(), min as u32),
                1 => kernel::<true, false>(g0.addr(), g1.addr(), gd.addr(), min as u32),
                _ => kernel::<false, false>(g0.addr(), g1.addr(), gd.addr(), min as u32),
            })
            .unwrap();
        let y = gd.to_vec();
        // Without a count, Fmod runs over all 160 elements of the queue's tensor (the last one
        // padding, not copied out).
        assert_bits_eq(&y, &want);
        // Where the exact quotient is within 1e-3 of an integer, its rounding can move the
        // result to the next period (about ±b from numpy's); elsewhere it is within the
        // example's tolerance.
        let near: Vec<usize> = (0..159)
            .filter(|&i| {
                let f = (f64::from(src0[i]) / f64::from(src1[i])).fract().abs();
                f > 1e-3 && f < 1.0 - 1e-3
            })
            .collect();
        compare_result(
            &near.iter().map(|&i| y[i]).collect::<Vec<_>>(),
            &near.iter().map(|&i| golden[i]).collect::<Vec<_>>(),
        );
    }
}
