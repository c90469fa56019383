//! `WelfordUpdate` (`adv_api/normalization/layernorm.h`: [`welford_update`],
//! [`welford_update_stack`], [`WelfordUpdateParam`], [`get_welford_update_max_min_tmp_size`]):
//! one step of Welford's online mean and variance over a `[1, abLength]` block, the step before
//! [`welford_finalize`](super::layernorm::welford_finalize).
//!
//! For each of the first `abComputeLength` elements, with `m`, `v` the running mean and `M2`
//! sum and `x` the new sample (`half` widened to `float`), in `float`:
//!
//! ```text
//! d        = x - m
//! mean_out = d * nRec + m
//! var_out  = d * (x - mean_out) + v
//! ```
//!
//! each operation one rounded vector instruction, as the vendor's Ascend910B/Ascend310P
//! implementation (`impl/adv_api/detail/normalization/layernorm/layernorm_common_impl.h`,
//! `WelfordUpdateComputeImpl`; the steps in `layernorm_common_basic_impl.h`) computes them:
//! `Sub`, `Muls`, `Add`, `Sub`, `Mul`, `Add` in counter mode, in rounds of `64 * tmpNum`
//! elements where `tmpNum = sharedTmpBuffer.GetSize() / (256 * k)` and `k` is the number of
//! 256-byte scratch slots the form needs (3 for `half`, 2 for `float`, 1 for `float` with
//! `isReuseSource`, which then overwrites the source's computed elements with `x - m`).
//!
//! `WelfordUpdateConfig::isInplace` is the const parameter `IS_INPLACE`: when it is set and
//! `abComputeLength < abLength`, the outputs past the computed elements are copied from the
//! inputs first (`DataCopy` of the last `AlignUp(abLength - abComputeLength, 8)` elements,
//! which the computed ones then overwrite where they meet); without it they are left as they
//! were.

use bytemuck::{Pod, Zeroable};

use crate::element::{f16, DType, Element};
use crate::kernel::error::ensure;
use crate::memory::copy::data_copy;
use crate::memory::tensor::LocalTensor;
use crate::soc::Soc;
use crate::sync::{event::PIPE_V, flags::pipe_barrier};
use crate::vector::binary::{add_masked, mul_masked, sub_masked};
use crate::vector::cast::{cast_masked, RoundMode};
use crate::vector::mask::{reset_mask, set_mask_count, set_mask_norm, MASK_PLACEHOLDER};
use crate::vector::params::{BinaryRepeatParams, UnaryRepeatParams};
use crate::vector::scalar::muls_masked;

use super::{check_apart, check_chip, count_mask, span, stack_tensor, whole, Span, V220_V200, WIDEN};

mod sealed {
    pub trait Sealed {}
}
impl sealed::Sealed for f16 {}
impl sealed::Sealed for f32 {}

/// The types of `WelfordUpdate`'s new samples `inputX`: `half` and `float` (the vendor's page;
/// the means and `M2` sums are always `float`).
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(m: &LocalTensor<f32>, x: &LocalTensor<i32>, p: &WelfordUpdateParam) {
///     welford_update_stack::<i32, false, false>(m, m, m, m, x, p) // int32_t samples: no
/// }
/// ```
pub trait WelfordUpdateElement: Element + sealed::Sealed {}
impl WelfordUpdateElement for f16 {}
impl WelfordUpdateElement for f32 {}

const API: &str = "WelfordUpdate";
/// `float`s of one repeat (the vendor's `B32_DATA_NUM_PER_REPEAT`).
const B32_PER_REPEAT: usize = 64;
/// Bytes of one scratch slot per `tmpNum` (the vendor's `ONE_REPEAT_BYTE_SIZE`,
/// `WEL_UP_REP_SIZE`).
const REPEAT_BYTES: usize = 256;
/// `float`s per 32-byte block (`B32_DATA_NUM_PER_BLOCK`).
const FLOAT_PER_BLOCK: usize = 8;

/// `WelfordUpdate`'s parameters (AscendC `WelfordUpdateParam`, the vendor's fields in
/// snake_case). `#[repr(C)]` and [`Pod`], so it travels in tiling data.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct WelfordUpdateParam {
    /// Rows (`rnLength`); only 1 is supported (the vendor's page).
    pub rn_length: u32,
    /// Elements of the block (`abLength`), a multiple of `32 / sizeof(T)`.
    pub ab_length: u32,
    /// Elements from the start that are computed (`abComputeLength`), `1..=abLength`.
    pub ab_compute_length: u32,
    /// `1 / i` for the `i`-th block (`nRec`).
    pub n_rec: f32,
}

/// The scratch slots of 256 bytes one round needs per `tmpNum` (the vendor's
/// `WelfordUpdateGetTmpSize`): 3 for `half` samples, 1 for `float` with `isReuseSource`, else 2.
const fn slots(half: bool, reuse: bool) -> usize {
    if half {
        3
    } else if reuse {
        1
    } else {
        2
    }
}

/// The temporary buffer's `(max, min)` bytes for [`welford_update`] (AscendC
/// `GetWelfordUpdateMaxMinTmpSize(srcShape, typeSizeT, typeSizeU, isReuseSource, isInplace,
/// maxValue, minValue)`, `srcShape = [rnLength, abLength]`), as the vendor's host library
/// computes them for Ascend910B and Ascend310P (`layernorm_tiling_impl.cpp`): the minimum is 256
/// bytes per scratch slot (3 slots for a 2-byte `typeSizeT`, 1 with `isReuseSource`, else 2);
/// the maximum is the minimum times `ceil(rnLength * abLength / 64)` (one round for the whole
/// block). `typeSizeU` and `isInplace` do not change them.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_welford_update_max_min_tmp_size(&[1, 64], 4, 4, false, true), (512, 512));
/// assert_eq!(get_welford_update_max_min_tmp_size(&[1, 200], 2, 4, false, false), (3072, 768));
/// assert_eq!(get_welford_update_max_min_tmp_size(&[1, 200], 4, 4, true, false), (1024, 256));
/// ```
///
/// # Panics
/// Panics, where the vendor's host helper fails, if `src_shape` does not have two dimensions.
#[track_caller]
pub fn get_welford_update_max_min_tmp_size(
    src_shape: &[usize],
    type_size_t: usize,
    type_size_u: usize,
    is_reuse_source: bool,
    is_inplace: bool,
) -> (usize, usize) {
    let _ = (type_size_u, is_inplace);
    ensure(src_shape.len() == 2, "GetWelfordUpdateMaxMinTmpSize", || {
        format!(
            "srcShape = {src_shape:?} has {} dimensions; it must be [rnLength, abLength]",
            src_shape.len()
        )
    });
    let min = slots(type_size_t == 2, is_reuse_source) * REPEAT_BYTES;
    let max = (src_shape[0] * src_shape[1]).div_ceil(B32_PER_REPEAT) * min;
    (max, min)
}

/// One step of Welford's online mean and variance (AscendC `WelfordUpdate<T, float,
/// isReuseSource, config>(outputMean, outputVariance, inputMean, inputVariance, inputX,
/// sharedTmpBuffer, para)`, with `config.isInplace` as `IS_INPLACE`): for the first
/// `abComputeLength` elements, `outputMean = (x - inputMean) * nRec + inputMean` and
/// `outputVariance = (x - inputMean) * (x - outputMean) + inputVariance`, each operation
/// rounded to `float` as the vendor's instructions round it (see the [module](self)).
///
/// The page's worked example (64 elements, `x = 1`, the means and `M2` sums `0..64`,
/// `abComputeLength = 35`, `nRec = 1/8`, in place):
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 5 * 256);
/// let (_, min) = get_welford_update_max_min_tmp_size(&[1, 64], 4, 4, false, true);
/// pipe.init_tbuf(&mut tmp, min);
/// let t = |i: usize| q.get_with_offset::<f32>(64, i * 256);
/// let (mean, var, in_mean, in_var, x) = (t(0), t(1), t(2), t(3), t(4));
/// let ramp: Vec<f32> = (0..64).map(|i| i as f32).collect();
/// in_mean.copy_from_slice(&ramp);
/// in_var.copy_from_slice(&ramp);
/// x.copy_from_slice(&[1.0; 64]);
/// let para = WelfordUpdateParam { rn_length: 1, ab_length: 64, ab_compute_length: 35, n_rec: 0.125 };
/// welford_update::<f32, false, true>(&mean, &var, &in_mean, &in_var, &x, &tmp.get::<u8>(), &para);
/// let (mean, var) = (mean.to_vec(), var.to_vec());
/// assert_eq!(mean[..4], [0.125, 1.0, 1.875, 2.75]);
/// assert_eq!(var[..4], [0.875, 1.0, 2.875, 6.5]);
/// assert_eq!((mean[34], var[34]), (29.875, 986.875));
/// assert_eq!(mean[35..], ramp[35..]); // copied from the inputs (IS_INPLACE)
/// assert_eq!(var[35..], ramp[35..]);
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); `IS_REUSE_SOURCE` is set
/// on Ascend310P (the vendor's check); a tensor is not in the Unified Buffer; `rnLength` is not
/// 1; `abLength` is not a multiple of `32 / sizeof(T)`; `abComputeLength` is 0 or exceeds
/// `abLength`; a tensor holds fewer than `rnLength * abLength` elements; the buffer holds
/// fewer bytes than the minimum (256 per scratch slot); an output overlaps the other output or
/// an input, or the buffer overlaps any tensor (the vendor's page); or any instruction's own
/// check fails.
#[track_caller]
pub fn welford_update<T: WelfordUpdateElement, const IS_REUSE_SOURCE: bool, const IS_INPLACE: bool>(
    output_mean: &LocalTensor<f32>,
    output_variance: &LocalTensor<f32>,
    input_mean: &LocalTensor<f32>,
    input_variance: &LocalTensor<f32>,
    input_x: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    para: &WelfordUpdateParam,
) {
    let io = Operands { output_mean, output_variance, input_mean, input_variance, input_x };
    check(&io, shared_tmp_buffer, para, IS_REUSE_SOURCE);
    set_mask_count();
    if IS_INPLACE && para.ab_compute_length < para.ab_length {
        // WelfordUpdateInplace: the outputs past the computed elements come from the inputs.
        let n = (para.ab_length - para.ab_compute_length).next_multiple_of(FLOAT_PER_BLOCK as u32) as usize;
        let at = para.ab_length as usize - n;
        data_copy(&output_mean.view(at), &input_mean.view(at), n);
        data_copy(&output_variance.view(at), &input_variance.view(at), n);
        pipe_barrier::<PIPE_V>();
    }
    compute(&io, shared_tmp_buffer, para, IS_REUSE_SOURCE);
    set_mask_norm();
    reset_mask();
}

/// [`welford_update`] with the stack buffer as scratch (AscendC `WelfordUpdate<T, float,
/// isReuseSource, config>(outputMean, outputVariance, inputMean, inputVariance, inputX,
/// para)`): the Unified Buffer after the core's `TPipe` buffers (see
/// [`pop_stack_buffer`](super::pop_stack_buffer)), so one round covers as many elements as it
/// holds.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 4 * 64 + 32);
/// let t = |i: usize| q.get_with_offset::<f32>(16, i * 64);
/// let (mean, var, in_mean, in_var) = (t(0), t(1), t(2), t(3));
/// let x = q.get_with_offset::<f16>(16, 256);
/// in_mean.copy_from_slice(&[2.0; 16]);
/// in_var.copy_from_slice(&[0.0; 16]);
/// x.copy_from_slice(&[f16::from_f32(4.0); 16]);
/// let para = WelfordUpdateParam { rn_length: 1, ab_length: 16, ab_compute_length: 16, n_rec: 0.5 };
/// welford_update_stack::<f16, false, false>(&mean, &var, &in_mean, &in_var, &x, &para);
/// assert_eq!((mean.get_value(15), var.get_value(15)), (3.0, 2.0)); // 2 + 2/2, 0 + 2 * (4 - 3)
/// ```
///
/// # Panics
/// As [`welford_update`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn welford_update_stack<T: WelfordUpdateElement, const IS_REUSE_SOURCE: bool, const IS_INPLACE: bool>(
    output_mean: &LocalTensor<f32>,
    output_variance: &LocalTensor<f32>,
    input_mean: &LocalTensor<f32>,
    input_variance: &LocalTensor<f32>,
    input_x: &LocalTensor<T>,
    para: &WelfordUpdateParam,
) {
    let tmp = stack_tensor(API);
    welford_update::<T, IS_REUSE_SOURCE, IS_INPLACE>(
        output_mean,
        output_variance,
        input_mean,
        input_variance,
        input_x,
        &tmp,
        para,
    );
}

/// The five tensors of one call.
struct Operands<'a, T: Element> {
    output_mean: &'a LocalTensor<f32>,
    output_variance: &'a LocalTensor<f32>,
    input_mean: &'a LocalTensor<f32>,
    input_variance: &'a LocalTensor<f32>,
    input_x: &'a LocalTensor<T>,
}

/// `WelfordUpdate`'s checks (the vendor's `CheckFuncClassWelfordUpdate` and the CPU-debug
/// asserts of `WelfordUpdateImpl`), the buffer's minimum and the page's overlaps.
#[track_caller]
fn check<T: WelfordUpdateElement>(
    io: &Operands<'_, T>,
    tmp: &LocalTensor<u8>,
    para: &WelfordUpdateParam,
    reuse: bool,
) {
    check_chip(API, &V220_V200);
    ensure(!(reuse && crate::kernel::ctx::get_soc() == Soc::Ascend310P), API, || {
        "isReuseSource = true is not supported on Ascend310P (the vendor's check requires false there)".into()
    });
    for (name, pos) in [
        ("outputMean", io.output_mean.get_position()),
        ("outputVariance", io.output_variance.get_position()),
        ("inputMean", io.input_mean.get_position()),
        ("inputVariance", io.input_variance.get_position()),
        ("inputX", io.input_x.get_position()),
        ("sharedTmpBuffer", tmp.get_position()),
    ] {
        ensure(pos.is_ub(), API, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
    }
    let (rn, ab, abc) = (para.rn_length, para.ab_length as usize, para.ab_compute_length as usize);
    ensure(rn == 1, API, || format!("para.rnLength = {rn}; only 1 is supported"));
    let align = 32 / T::SIZE;
    ensure(ab % align == 0, API, || {
        format!("para.abLength = {ab} must be a multiple of {align} (32 bytes of {})", T::DTYPE)
    });
    ensure(abc > 0, API, || "para.abComputeLength = 0; it must be greater than 0".into());
    ensure(abc <= ab, API, || format!("para.abComputeLength = {abc} exceeds para.abLength = {ab}"));
    for (name, n) in [
        ("outputMean", io.output_mean.get_size()),
        ("outputVariance", io.output_variance.get_size()),
        ("inputMean", io.input_mean.get_size()),
        ("inputVariance", io.input_variance.get_size()),
        ("inputX", io.input_x.get_size()),
    ] {
        ensure(n >= ab, API, || {
            format!("{name} has {n} elements, fewer than para.rnLength * para.abLength = {ab}")
        });
    }
    let min = slots(T::DTYPE == DType::F16, reuse) * REPEAT_BYTES;
    ensure(tmp.get_size() >= min, API, || {
        format!(
            "sharedTmpBuffer has {} bytes; it must hold at least {min} (tmpNum would be 0; see \
             GetWelfordUpdateMaxMinTmpSize)",
            tmp.get_size()
        )
    });
    let (om, ov) = (span("outputMean", io.output_mean, ab), span("outputVariance", io.output_variance, ab));
    let (im, iv) = (span("inputMean", io.input_mean, ab), span("inputVariance", io.input_variance, ab));
    let x = span("inputX", io.input_x, ab);
    let t: Span = whole("sharedTmpBuffer", tmp);
    check_apart(
        API,
        &[
            (om, ov),
            (om, im),
            (om, iv),
            (om, x),
            (ov, im),
            (ov, iv),
            (ov, x),
            (t, om),
            (t, ov),
            (t, im),
            (t, iv),
            (t, x),
        ],
    );
}

/// `WelfordUpdateComputeImpl`: rounds of `64 * tmpNum` elements under a counter-mode mask, the
/// tail under its own.
#[track_caller]
fn compute<T: WelfordUpdateElement>(
    io: &Operands<'_, T>,
    tmp: &LocalTensor<u8>,
    para: &WelfordUpdateParam,
    reuse: bool,
) {
    let half = T::DTYPE == DType::F16;
    let tmp_num = tmp.get_size() / (REPEAT_BYTES * slots(half, reuse));
    let split = B32_PER_REPEAT * tmp_num;
    let abc = para.ab_compute_length as usize;
    let scratch = tmp.reinterpret_cast::<f32>();
    let round = |offset: usize| {
        let (om, ov) = (io.output_mean.view(offset), io.output_variance.view(offset));
        let (im, iv) = (io.input_mean.view(offset), io.input_variance.view(offset));
        let x = io.input_x.view(offset);
        if half {
            // The half form: the samples widened into the first slot, then as for float.
            let xf = scratch.clone();
            let (t, o) = (scratch.view(split), scratch.view(2 * split));
            pipe_barrier::<PIPE_V>();
            cast_masked::<f32, f16, false>(
                &xf,
                &x.reinterpret_cast::<f16>(),
                RoundMode::CastNone,
                MASK_PLACEHOLDER,
                1,
                &WIDEN,
            );
            update(&xf, &im, &iv, &om, &ov, &t, &o, para.n_rec, false);
        } else {
            let xf = x.reinterpret_cast::<f32>();
            let t = scratch.clone();
            let o = if reuse { scratch.clone() } else { scratch.view(split) };
            update(&xf, &im, &iv, &om, &ov, &t, &o, para.n_rec, reuse);
        }
    };
    count_mask::<f32>(split);
    let mut offset = 0;
    for _ in 0..abc / split {
        round(offset);
        offset += split;
    }
    if abc % split != 0 {
        count_mask::<f32>(abc % split);
        round(offset);
    }
}

/// One round under the mask set (`WelfordUpdateComputeMean`, then `WelfordUpdateComputeTo32`'s
/// or, reusing the source, `WelfordUpdateComputeTo32Res`'s variance steps, then
/// `WelfordUpdateComputeVar`), with the vendor's `PipeBarrier<PIPE_V>`s; `t` and `o` are the
/// scratch slots (the same slot when `reuse`).
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn update(
    x: &LocalTensor<f32>,
    m: &LocalTensor<f32>,
    v: &LocalTensor<f32>,
    out_mean: &LocalTensor<f32>,
    out_var: &LocalTensor<f32>,
    t: &LocalTensor<f32>,
    o: &LocalTensor<f32>,
    n_rec: f32,
    reuse: bool,
) {
    let (b, u) = (BinaryRepeatParams::default(), UnaryRepeatParams::default());
    // WelfordUpdateComputeMean: t = x - m; o = t * nRec; mean = o + m.
    pipe_barrier::<PIPE_V>();
    sub_masked::<f32, false>(t, x, m, MASK_PLACEHOLDER, 1, &b);
    pipe_barrier::<PIPE_V>();
    muls_masked::<f32, false>(o, t, n_rec, MASK_PLACEHOLDER, 1, &u);
    pipe_barrier::<PIPE_V>();
    add_masked::<f32, false>(out_mean, o, m, MASK_PLACEHOLDER, 1, &b);
    pipe_barrier::<PIPE_V>();
    if reuse {
        // To32Res: t = x - mean; x = x - m (the source overwritten); t = t * x.
        sub_masked::<f32, false>(t, x, out_mean, MASK_PLACEHOLDER, 1, &b);
        pipe_barrier::<PIPE_V>();
        sub_masked::<f32, false>(x, x, m, MASK_PLACEHOLDER, 1, &b);
        pipe_barrier::<PIPE_V>();
        mul_masked::<f32, false>(t, t, x, MASK_PLACEHOLDER, 1, &b);
    } else {
        // To32: o = x - mean; t = t * o.
        sub_masked::<f32, false>(o, x, out_mean, MASK_PLACEHOLDER, 1, &b);
        pipe_barrier::<PIPE_V>();
        mul_masked::<f32, false>(t, t, o, MASK_PLACEHOLDER, 1, &b);
    }
    // WelfordUpdateComputeVar: var = t + v.
    pipe_barrier::<PIPE_V>();
    add_masked::<f32, false>(out_var, t, v, MASK_PLACEHOLDER, 1, &b);
    pipe_barrier::<PIPE_V>();
}
