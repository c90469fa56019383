//! `Normalize` (`adv_api/normalization/normalize.h`: [`normalize`], [`normalize_stack`],
//! [`NormalizePara`], the configurations [`NlcfgNorm`], [`NlcfgNoBeta`], [`NlcfgNoGamma`],
//! [`NlcfgNoOpt`], and [`get_normalize_max_min_tmp_size`]): the second half of a LayerNorm,
//! from given row means and variances: `rstd = 1 / sqrt(variance + epsilon)` and `y = (x -
//! mean) * rstd * gamma + beta` over `[A, R]` rows stored in `rLengthWithPadding` elements.
//!
//! The computation is the vendor's Ascend910B/Ascend310P implementation
//! (`impl/adv_api/detail/normalization/normalize/normalize_common_impl.h`), the same code
//! [`layer_norm_rstd`](super::layernorm::layer_norm_rstd) ends with: `Adds`, `Duplicate`,
//! `Sqrt`, `Div` for `rstd` in counter mode; `half` `gamma`/`beta` widened once; then per
//! round of `N` rows (`N` as many as two `[rLengthWithPadding]` `float` views per row fit in
//! the buffer, after the widened `gamma` and `beta`), the rows copied to `float` (`Adds` by 0
//! or `Cast`), each row's mean and `rstd` read by the scalar unit and broadcast by
//! `Duplicate` (the V→S and S→V handshakes with fetched event ids), `Sub`, `Mul`, then per row
//! `Mul` by `gamma` and `Add` of `beta` over `rLength`, and the rows narrowed back (`Adds` or
//! `Cast` to nearest). Each step is followed by `PipeBarrier<PIPE_V>` as the vendor writes it.
//!
//! `NormalizeConfig`'s `reducePattern` (only `AR`), `aLength` (only the default `-1`: the
//! parameter's) and `isOnlyOutput` (only `false`) have no other value on these chips; the
//! `isNoBeta`/`isNoGamma` pairs are the four configuration types.

use super::align_up;
use bytemuck::{Pod, Zeroable};

use crate::element::DType;
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;

use super::layernorm::{check_ar_operands, ArExtent, LayerNormElement, LayerNormGammaType, LayerNormPara};
use super::{check_apart, check_chip, span, stack_tensor, whole, Span, V220_V200};

const API: &str = "Normalize";

/// `Normalize`'s shape (AscendC `NormalizePara`): `[A, R]` rows, each stored in
/// `rLengthWithPadding` elements (32-byte aligned). `#[repr(C)]` and [`Pod`], so it travels
/// in tiling data.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct NormalizePara {
    /// Rows (`aLength`).
    pub a_length: u32,
    /// Elements of a row (`rLength`).
    pub r_length: u32,
    /// The row's stored length, `rLength` rounded up to 32 bytes (`rLengthWithPadding`).
    pub r_length_with_padding: u32,
}

mod sealed {
    pub trait Sealed {}
}

/// A `NormalizeConfig` (AscendC `NLCFG_NORM`, `NLCFG_NOBETA`, `NLCFG_NOGAMMA`,
/// `NLCFG_NOOPT`): whether `beta` and `gamma` take part. Implemented by the four
/// configuration types only.
pub trait NormalizeConfig: sealed::Sealed {
    /// `isNoBeta`: the `+ beta` is left out (and `beta` is not read).
    const IS_NO_BETA: bool;
    /// `isNoGamma`: the `* gamma` is left out (and `gamma` is not read).
    const IS_NO_GAMMA: bool;
}

macro_rules! configs {
    ($($(#[$doc:meta])* $name:ident = ($no_beta:literal, $no_gamma:literal);)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $name;
        impl sealed::Sealed for $name {}
        impl NormalizeConfig for $name {
            const IS_NO_BETA: bool = $no_beta;
            const IS_NO_GAMMA: bool = $no_gamma;
        }
    )*};
}

configs! {
    /// `NLCFG_NORM`: `(x - mean) * rstd * gamma + beta`.
    NlcfgNorm = (false, false);
    /// `NLCFG_NOBETA`: `(x - mean) * rstd * gamma`.
    NlcfgNoBeta = (true, false);
    /// `NLCFG_NOGAMMA`: `(x - mean) * rstd + beta`.
    NlcfgNoGamma = (false, true);
    /// `NLCFG_NOOPT`: `(x - mean) * rstd`.
    NlcfgNoOpt = (true, true);
}

/// The temporary buffer's `(max, min)` bytes for [`normalize`] on `[A, R]` (AscendC
/// `GetNormalizeMaxMinTmpSize(srcShape, typeSizeU, typeSizeT, isReuseSource, isComputeRstd,
/// isOnlyOutput, maxValue, minValue)`), as the vendor's host library computes them for
/// Ascend910B and Ascend310P (`normalize_tiling_impl.cpp`), with `Rp` the row rounded up to
/// 32 bytes of `typeSizeT`: the maximum `2 * align32(4 * Rp) + 2 * align32(4 * align8(A) *
/// Rp)`, the minimum `max(align32(4 * A), k * align32(4 * Rp))` with `k` 2 for a 4-byte
/// `typeSizeU` and 4 otherwise.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_normalize_max_min_tmp_size(&[8, 64], 4, 4, false, true, false), (4608, 512));
/// assert_eq!(get_normalize_max_min_tmp_size(&[3, 20], 2, 2, false, true, false), (2304, 512));
/// ```
///
/// # Panics
/// Panics, where the vendor's host helper fails, if `is_compute_rstd` is false,
/// `is_only_output` is true, a type size is 0, or the shape is not `[A, R]`.
#[track_caller]
pub fn get_normalize_max_min_tmp_size(
    src_shape: &[usize],
    type_size_u: usize,
    type_size_t: usize,
    is_reuse_source: bool,
    is_compute_rstd: bool,
    is_only_output: bool,
) -> (usize, usize) {
    const HOST: &str = "GetNormalizeMaxMinTmpSize";
    let _ = is_reuse_source;
    ensure(is_compute_rstd, HOST, || "isComputeRstd = false; only true is supported".into());
    ensure(!is_only_output, HOST, || "isOnlyOutput = true; only false is supported".into());
    ensure(type_size_u != 0 && type_size_t != 0, HOST, || {
        format!("typeSizeU = {type_size_u}, typeSizeT = {type_size_t}: neither can be 0")
    });
    ensure(src_shape.len() == 2, HOST, || {
        format!("srcShape = {src_shape:?} has {} dimensions; it must be [aLength, rLength]", src_shape.len())
    });
    let (a, r) = (src_shape[0], src_shape[1]);
    let rp = r.next_multiple_of(32 / type_size_t.min(32));
    let max = 2 * align_up(4 * rp, 32) + 2 * align_up(4 * a.next_multiple_of(8) * rp, 32);
    let k = if type_size_u == 4 { 2 } else { 4 };
    let min = align_up(4 * a, 32).max(k * align_up(4 * rp, 32));
    (max, min)
}

/// Normalizes `input_x`'s `[A, R]` rows with the given means and variances (AscendC
/// `Normalize<U, T, isReuseSource, config>(output, outputRstd, inputMean, inputVariance,
/// inputX, gamma, beta, sharedTmpBuffer, epsilon, para)`): `output_rstd = 1 / sqrt(variance +
/// epsilon)` (`A` floats) and `output = (x - mean) * rstd * gamma + beta` with `gamma` and
/// `beta` of type `U` over `R` and the `* gamma` / `+ beta` left out as `C` says; each
/// operation rounded as the vendor's instructions round it (see the [module](self)). The
/// rows' padding of `output` is written too, with values the vendor leaves undefined (the
/// padding of `x - mean` subtracts whatever the buffer held there).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 64 + 4 * 32 + 2 * 32);
/// let (_, min) = get_normalize_max_min_tmp_size(&[2, 8], 4, 4, false, true, false);
/// pipe.init_tbuf(&mut tmp, min);
/// let (x, y) = (q.get_with_offset::<f32>(16, 0), q.get_with_offset::<f32>(16, 64));
/// let t = |i: usize| q.get_with_offset::<f32>(8, 128 + 32 * i);
/// let (mean, var, rstd, gamma, beta) = (t(0), t(1), t(2), t(3), t(4));
/// x.copy_from_slice(&[1.0, 3.0, 1.0, 3.0, 1.0, 3.0, 1.0, 3.0, 0.0, 4.0, 0.0, 4.0, 0.0, 4.0, 0.0, 4.0]);
/// mean.copy_from_slice(&[2.0; 8]);
/// var.copy_from_slice(&[1.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
/// gamma.copy_from_slice(&[2.0; 8]);
/// beta.copy_from_slice(&[0.5; 8]);
/// let para = NormalizePara { a_length: 2, r_length: 8, r_length_with_padding: 8 };
/// normalize::<f32, f32, false, NlcfgNorm>(&y, &rstd, &mean, &var, &x, &gamma, &beta, &tmp.get::<u8>(), 0.0, &para);
/// assert_eq!(rstd.to_vec()[..2], [1.0, 0.5]);
/// assert_eq!(y.to_vec()[..4], [-1.5, 2.5, -1.5, 2.5]); // ((1 - 2) * 1) * 2 + 0.5, ((3 - 2) * 1) * 2 + 0.5
/// assert_eq!(y.to_vec()[8..12], [-1.5, 2.5, -1.5, 2.5]); // ((0 - 2) * 0.5) * 2 + 0.5, …
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910, Ascend310B); `IS_REUSE_SOURCE` is set
/// (the vendor's check requires false); a tensor is not in the Unified Buffer; `aLength` or
/// `rLength` is 0, `rLength` exceeds `rLengthWithPadding` or `rLengthWithPadding` is not a
/// multiple of 32 bytes of `T`; `input_x` or `output` holds fewer than `aLength *
/// rLengthWithPadding` elements, a mean, variance or `rstd` tensor fewer than `aLength`, or a
/// `gamma`/`beta` that takes part fewer than `rLength`; the buffer holds fewer `float`s than
/// `aLength` or than one round needs (two rows, and for `half` `gamma`/`beta` two more); an
/// output overlaps the other output or an input (the vendor's check), or the buffer overlaps
/// any tensor; or any instruction's own check fails.
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn normalize<
    U: LayerNormGammaType<T>,
    T: LayerNormElement,
    const IS_REUSE_SOURCE: bool,
    C: NormalizeConfig,
>(
    output: &LocalTensor<T>,
    output_rstd: &LocalTensor<f32>,
    input_mean: &LocalTensor<f32>,
    input_variance: &LocalTensor<f32>,
    input_x: &LocalTensor<T>,
    gamma: &LocalTensor<U>,
    beta: &LocalTensor<U>,
    shared_tmp_buffer: &LocalTensor<u8>,
    epsilon: f32,
    para: &NormalizePara,
) {
    check::<U, T, C>(
        IS_REUSE_SOURCE,
        [output, input_x],
        [output_rstd, input_mean, input_variance],
        [gamma, beta],
        shared_tmp_buffer,
        para,
    );
    let p = LayerNormPara {
        a_length: para.a_length,
        r_length: para.r_length,
        r_length_with_padding: para.r_length_with_padding,
    };
    super::layernorm::normalize_rows(
        output,
        output_rstd,
        input_mean,
        input_variance,
        input_x,
        gamma,
        beta,
        &shared_tmp_buffer.reinterpret_cast::<f32>(),
        epsilon,
        &p,
        (C::IS_NO_GAMMA, C::IS_NO_BETA),
    );
}

/// [`normalize`] with the stack buffer as scratch (AscendC `Normalize<U, T, isReuseSource,
/// config>(output, outputRstd, inputMean, inputVariance, inputX, gamma, beta, epsilon,
/// para)`): the Unified Buffer after the core's `TPipe` buffers (see
/// [`pop_stack_buffer`](super::pop_stack_buffer)).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 2 * 32 + 3 * 32);
/// let (x, y) = (q.get_with_offset::<f16>(16, 0), q.get_with_offset::<f16>(16, 32));
/// let t = |i: usize| q.get_with_offset::<f32>(8, 64 + 32 * i);
/// let (mean, var, rstd) = (t(0), t(1), t(2));
/// x.copy_from_slice(&[f16::from_f32(5.0); 16]);
/// mean.copy_from_slice(&[1.0; 8]);
/// var.copy_from_slice(&[16.0; 8]);
/// let para = NormalizePara { a_length: 1, r_length: 16, r_length_with_padding: 16 };
/// // Neither gamma nor beta (NLCFG_NOOPT): they are not read.
/// normalize_stack::<f16, f16, false, NlcfgNoOpt>(&y, &rstd, &mean, &var, &x, &x, &x, 0.0, &para);
/// assert_eq!((rstd.get_value(0), y.get_value(15).to_f32()), (0.25, 1.0)); // (5 - 1) / 4
/// ```
///
/// # Panics
/// As [`normalize`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn normalize_stack<
    U: LayerNormGammaType<T>,
    T: LayerNormElement,
    const IS_REUSE_SOURCE: bool,
    C: NormalizeConfig,
>(
    output: &LocalTensor<T>,
    output_rstd: &LocalTensor<f32>,
    input_mean: &LocalTensor<f32>,
    input_variance: &LocalTensor<f32>,
    input_x: &LocalTensor<T>,
    gamma: &LocalTensor<U>,
    beta: &LocalTensor<U>,
    epsilon: f32,
    para: &NormalizePara,
) {
    let tmp = stack_tensor(API);
    normalize::<U, T, IS_REUSE_SOURCE, C>(
        output,
        output_rstd,
        input_mean,
        input_variance,
        input_x,
        gamma,
        beta,
        &tmp,
        epsilon,
        para,
    );
}

/// `Normalize`'s checks (the vendor's `CheckFuncClassNormalize` and `GetNormalizeTensorInfo`'s
/// asserts), the sizes the instructions touch, and the overlaps.
#[track_caller]
fn check<U: LayerNormGammaType<T>, T: LayerNormElement, C: NormalizeConfig>(
    reuse: bool,
    [output, x]: [&LocalTensor<T>; 2],
    [rstd, mean, variance]: [&LocalTensor<f32>; 3],
    [gamma, beta]: [&LocalTensor<U>; 2],
    tmp: &LocalTensor<u8>,
    para: &NormalizePara,
) {
    check_chip(API, &V220_V200);
    ensure(!reuse, API, || {
        "isReuseSource = true is not supported (the vendor's check requires false)".into()
    });
    let on = |skip: bool| if skip { ArExtent::Unchecked } else { ArExtent::Cols };
    let ar = (para.a_length as usize, para.r_length as usize, para.r_length_with_padding as usize);
    let (a, r, rp) = check_ar_operands::<T>(
        API,
        para,
        ar,
        &[
            ("inputX", x.get_position(), x.get_size(), ArExtent::Full),
            ("output", output.get_position(), output.get_size(), ArExtent::Full),
            ("outputRstd", rstd.get_position(), rstd.get_size(), ArExtent::Rows),
            ("inputMean", mean.get_position(), mean.get_size(), ArExtent::Rows),
            ("inputVariance", variance.get_position(), variance.get_size(), ArExtent::Rows),
            ("gamma", gamma.get_position(), gamma.get_size(), on(C::IS_NO_GAMMA)),
            ("beta", beta.get_position(), beta.get_size(), on(C::IS_NO_BETA)),
            ("sharedTmpBuffer", tmp.get_position(), 0, ArExtent::Unchecked),
        ],
    );
    let used = [("gamma", gamma, !C::IS_NO_GAMMA), ("beta", beta, !C::IS_NO_BETA)];
    let floats = tmp.get_size() / 4;
    let rows = if U::DTYPE == DType::F16 { 4 * rp } else { 2 * rp };
    ensure(floats >= a && floats >= rows, API, || {
        format!(
            "sharedTmpBuffer has {} bytes ({floats} floats); it must hold aLength = {a} floats and one round's {rows} \
             (two rows{}; see GetNormalizeMaxMinTmpSize)",
            tmp.get_size(),
            if U::DTYPE == DType::F16 { ", and the widened gamma and beta" } else { "" }
        )
    });
    let (o, xs) = (span("output", output, a * rp), span("inputX", x, a * rp));
    let (s, m, v) =
        (span("outputRstd", rstd, a), span("inputMean", mean, a), span("inputVariance", variance, a));
    let mut ins = vec![m, v, xs];
    for (name, t, on) in used {
        if on {
            ins.push(span(name, t, r));
        }
    }
    let tw: Span = whole("sharedTmpBuffer", tmp);
    let mut pairs = vec![(o, s), (tw, o), (tw, s)];
    for i in ins {
        pairs.extend([(o, i), (s, i), (tw, i)]);
    }
    check_apart(API, &pairs);
}
