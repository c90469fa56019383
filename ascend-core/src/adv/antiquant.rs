//! Anti-quantization of the advanced API (the vendor's `adv_api/quantization`):
//! `AscendAntiQuant`, `int8_t` to `half`, on the chips whose implementations are ported
//! (`__NPU_ARCH__` 2201 and 2002: Ascend910B and Ascend310P), and its host helpers.
//!
//! Written as the vendor's `ascend_antiquant_impl.h` for `half` output, which is the same on
//! both chips (`AntiQuantCheckPerformanceMode` is `true` for `half` in `ascend_antiquant_c220_impl.h`
//! and `ascend_antiquant_m200_impl.h`):
//! - per channel, not transposed (`AscendAntiQuantNoTranspose`): `PreCast` (`Cast<half,
//!   int8_t>` of the whole source into `dst`, counter mode), then per block of at most 255 rows
//!   (`ANTIQUANT_MAX_K`), `Add` of the offset row and `Mul` by the scale row over 128 columns at
//!   a time (counter mode, one repeat per row, `src1RepStride = 0`), and the last `N % 128`
//!   columns under a normal-mode mask;
//! - per channel without offset, not transposed: per row, `Cast<half, int8_t>` and `Mul` by
//!   the row's group of scales (counter mode, the row's `N` elements);
//! - per tensor (`AntiQuantOuterLoop` with scalars, transposed or not): `Cast<half, int8_t>`,
//!   `Adds(offset)`, `Muls(scale)` over the whole source in counter mode.
//!
//! Each instruction is followed by `PipeBarrier<PIPE_V>`; the mask is left in normal mode, all
//! lanes. The `half` output never touches the scratch (the host's sizes are 0 for it).
//!
//! Not here: `bfloat16_t` output (Ascend910B only: the `float` paths of
//! `ascend_antiquant_c220_impl.h`); the per-channel forms with `isTranspose = true` (`Brcb` on
//! Ascend910B, `TransDataTo5HD` on Ascend310P), with offset or without; `int4b_t` sources (no such
//! element type here); the Ascend 950 forms (`fp8_e8m0_t` scales, `AscendAntiQuantConfig` and
//! `AscendAntiQuantPolicy`).

use crate::element::{f16, DType, Element};
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::sync::{event::PIPE_V, flags::pipe_barrier};
use crate::vector::binary::{add_masked, mul_masked};
use crate::vector::cast::{cast_masked, RoundMode};
use crate::vector::mask::{
    reset_mask, set_mask_count, set_mask_norm, set_vector_mask, Mask, MASK_PLACEHOLDER,
};
use crate::vector::params::BinaryRepeatParams;

use super::steps::{adds, muls};
use super::{check_apart, check_chip, count_mask, span, stack_tensor, whole, ONE_BLK_SIZE, V220_V200, WIDEN};

mod sealed {
    pub trait Sealed {}
}

const API: &str = "AscendAntiQuant";
/// `ANTIQUANT_MAX_K`: rows per block of the per-channel path (a repeat count is 8 bits).
const MAX_K: usize = 255;
/// `ANTIQUANT_SINGLE_N_SIZE_FP16`: columns one repeat of the per-channel path computes.
const SINGLE_N_FP16: usize = 128;
/// `ANTIQUANT_SINGLE_N_SIZE`: `float` columns per row of the `bfloat16_t` buffers (host sizes).
const SINGLE_N: usize = 64;

/// Source types of [`ascend_anti_quant`] (the vendor's `InputDataType`): `int8_t`.
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(d: &LocalTensor<f16>, s: &LocalTensor<i16>, tmp: &LocalTensor<u8>) {
///     ascend_anti_quant::<_, _, false>(d, s, d, d, tmp, 1, &AntiQuantShapeInfo::default())
/// }
/// ```
pub trait AntiQuantInput: Element + sealed::Sealed {}
impl sealed::Sealed for i8 {}
impl AntiQuantInput for i8 {}

/// Output types of [`ascend_anti_quant`] (the vendor's `OutputDataType`): `half`, on both chips.
/// (`bfloat16_t`, Ascend910B only, is not implemented here.)
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(d: &LocalTensor<f32>, s: &LocalTensor<i8>, tmp: &LocalTensor<u8>) {
///     ascend_anti_quant::<_, _, false>(d, s, d, d, tmp, 1, &AntiQuantShapeInfo::default())
/// }
/// ```
pub trait AntiQuantOutput: Element + sealed::Sealed {
    /// The tensor as `half`.
    #[doc(hidden)]
    fn as_half(t: &LocalTensor<Self>) -> LocalTensor<f16>;
    /// The scalar as `half`.
    #[doc(hidden)]
    fn half_of(x: Self) -> f16;
}
impl sealed::Sealed for f16 {}
impl AntiQuantOutput for f16 {
    fn as_half(t: &LocalTensor<f16>) -> LocalTensor<f16> {
        t.clone()
    }
    fn half_of(x: f16) -> f16 {
        x
    }
}

/// The shapes of `offset` and `scale` (AscendC `AntiQuantShapeInfo`): 0 means "take it from the
/// tensor's `ShapeInfo`". The paths ported here (`half` output) read neither: the vendor's
/// per-channel path takes `N = src.GetSize() / k` and the first `N` elements of both tensors.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AntiQuantShapeInfo {
    /// `offsetHeight`.
    pub offset_height: u32,
    /// `offsetWidth`.
    pub offset_width: u32,
    /// `scaleHeight`.
    pub scale_height: u32,
    /// `scaleWidth`.
    pub scale_width: u32,
}

/// The checks every form makes: the chip has the implementation, the tensors are in the
/// Unified Buffer, `dst` holds `src`'s elements, the transposed layout's `k` is a whole number
/// of 32-byte blocks (the vendor's `CheckAscendAntiQuantParams`), and `dst`, `src` and the
/// scratch are pairwise apart (the vendor's page).
#[track_caller]
fn check_operands<D: Element, S: Element>(
    dst: &LocalTensor<D>,
    src: &LocalTensor<S>,
    tmp: &LocalTensor<u8>,
    k: usize,
    transpose: bool,
) {
    check_chip(API, &V220_V200);
    for (name, pos) in
        [("dst", dst.get_position()), ("src", src.get_position()), ("sharedTmpBuffer", tmp.get_position())]
    {
        ensure(pos.is_ub(), API, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
    }
    let n = src.get_size();
    ensure(n <= dst.get_size(), API, || {
        format!("dst holds {} {} elements, fewer than src's {n}", dst.get_size(), D::DTYPE)
    });
    if transpose {
        ensure(k * S::SIZE % ONE_BLK_SIZE == 0, API, || {
            format!(
                "isTranspose is true and K * sizeof({}) = {} bytes; it must be a multiple of {ONE_BLK_SIZE}",
                S::DTYPE,
                k * S::SIZE
            )
        });
    }
    let (d, s, t) = (span("dst", dst, n), whole("src", src), whole("sharedTmpBuffer", tmp));
    check_apart(API, &[(d, s), (t, s), (t, d)]);
}

/// `Cast<half, int8_t>` (`CAST_NONE`, exact) of the counter-mode mask's elements, then
/// `PipeBarrier<PIPE_V>`.
#[track_caller]
fn to_half<S: AntiQuantInput>(dst: &LocalTensor<f16>, src: &LocalTensor<S>) {
    cast_masked::<f16, i8, false>(
        dst,
        &src.reinterpret_cast::<i8>(),
        RoundMode::CastNone,
        MASK_PLACEHOLDER,
        1,
        &WIDEN,
    );
    pipe_barrier::<PIPE_V>();
}

// ---- per channel ----------------------------------------------------------------------------

/// Per-channel anti-quantization: `dst[i][j] = (half(src[i][j]) + offset[j]) * scale[j]` in
/// `half` for the `[K, N]` source (`N = src.get_size() / k`), with `shared_tmp_buffer` as
/// scratch (AscendC `AscendAntiQuant<InputDataType, OutputDataType, isTranspose>(dst, src,
/// offset, scale, sharedTmpBuffer, k, shapeInfo)`).
///
/// As the vendor's implementation for `half` on Ascend910B and Ascend310P: counter mode,
/// `Cast<half, int8_t>` of the whole source into `dst`; then for each block of at most 255 rows,
/// `Add(dst, dst, offset)` and `Mul(dst, dst, scale)` over 128 columns at a time (counter mode,
/// `128 · rows` elements, one repeat per row: `dstRepStride = src0RepStride = N · 2 / 32`,
/// `src1RepStride = 0`), then for the last `N % 128` columns the same two under a normal-mode
/// mask of `N % 128` lanes; each instruction followed by `PipeBarrier<PIPE_V>`. Each step
/// rounds to `half` (to nearest, ties to even). Only the first `N` elements of `offset` and
/// `scale` are read (a grouped `[G, N]` offset uses its first row, as the vendor's path does);
/// `shape_info` is not read; the scratch is not touched. The mask is left in normal mode, all
/// lanes. `IS_TRANSPOSE = true` is not implemented (panics).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 64 + 64 * 2 + 2 * 32 * 2);
/// pipe.init_tbuf(&mut tmp, 32);
/// let x = q.get_with_offset::<i8>(64, 0); // [K = 2, N = 32]
/// let y = q.get_with_offset::<f16>(64, 64);
/// let (o, s) = (q.get_with_offset::<f16>(32, 192), q.get_with_offset::<f16>(32, 256));
/// x.copy_from_slice(&[3i8; 64]);
/// x.set_value(33, -7);
/// o.copy_from_slice(&[f16::from_f32(0.5); 32]);
/// s.copy_from_slice(&[f16::from_f32(2.0); 32]);
/// s.set_value(1, f16::from_f32(-1.0));
/// ascend_anti_quant::<_, _, false>(&y, &x, &o, &s, &tmp.get::<u8>(), 2, &AntiQuantShapeInfo::default());
/// assert_eq!(y.get_value(0), f16::from_f32(7.0)); // (3 + 0.5) * 2
/// assert_eq!(y.get_value(33), f16::from_f32(6.5)); // (-7 + 0.5) * -1
/// ```
///
/// # Panics
/// Panics on Ascend910, Ascend310B (no implementation); if `IS_TRANSPOSE` is true (not
/// implemented); a tensor is not in the Unified Buffer; `k` is 0 or does not divide
/// `src.get_size()`; `dst` holds fewer elements than `src`; `offset` or `scale` holds fewer than
/// `N`; `N` is not a multiple of 16 (a row of `half` is not whole 32-byte blocks) or its row
/// stride `N · 2 / 32` exceeds 255 blocks; `dst`, `src` and `shared_tmp_buffer` overlap; or any
/// instruction's own check fails.
#[track_caller]
pub fn ascend_anti_quant<S: AntiQuantInput, D: AntiQuantOutput, const IS_TRANSPOSE: bool>(
    dst: &LocalTensor<D>,
    src: &LocalTensor<S>,
    offset: &LocalTensor<D>,
    scale: &LocalTensor<D>,
    shared_tmp_buffer: &LocalTensor<u8>,
    k: usize,
    shape_info: &AntiQuantShapeInfo,
) {
    let _ = shape_info;
    check_operands(dst, src, shared_tmp_buffer, k, IS_TRANSPOSE);
    ensure(!IS_TRANSPOSE, API, || {
        "the per-channel form with isTranspose = true (Brcb on Ascend910B, TransDataTo5HD on Ascend310P) is not \
         emulated; it runs with isTranspose = false here"
            .into()
    });
    ensure(k > 0 && src.get_size() % k == 0, API, || {
        format!(
            "k = {k} does not divide src's {} elements (src is [K, N]); it must be a non-zero divisor",
            src.get_size()
        )
    });
    let n = src.get_size() / k;
    for (name, t) in [("offset", offset), ("scale", scale)] {
        let pos = t.get_position();
        ensure(pos.is_ub(), API, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
        ensure(t.get_size() >= n, API, || {
            format!(
                "{name} holds {} {} elements, fewer than N = {n} (src's {} / k = {k})",
                t.get_size(),
                D::DTYPE,
                src.get_size()
            )
        });
    }
    let row_bytes = n * f16::SIZE;
    ensure(row_bytes % ONE_BLK_SIZE == 0, API, || {
        format!("N = {n} half elements per row are {row_bytes} bytes; they must be a multiple of {ONE_BLK_SIZE} (N a multiple of 16)")
    });
    ensure(row_bytes / ONE_BLK_SIZE <= u8::MAX as usize, API, || {
        format!(
            "N = {n} gives a row stride of {} blocks, beyond the 255 of BinaryRepeatParams' uint8_t repeat strides",
            row_bytes / ONE_BLK_SIZE
        )
    });
    let (dst, offset, scale) = (D::as_half(dst), D::as_half(offset), D::as_half(scale));
    per_channel(&dst, src, &offset, &scale, k, n);
    set_mask_norm();
    reset_mask();
}

/// [`ascend_anti_quant`] with the stack buffer as scratch (AscendC `AscendAntiQuant<
/// InputDataType, OutputDataType, isTranspose>(dst, src, offset, scale, k, shapeInfo)`): the
/// Unified Buffer after the core's `TPipe` buffers (see
/// [`pop_stack_buffer`](super::pop_stack_buffer)).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 32 + 32 * 2 + 2 * 16 * 2);
/// let x = q.get_with_offset::<i8>(32, 0); // [K = 2, N = 16]
/// let y = q.get_with_offset::<f16>(32, 32);
/// let (o, s) = (q.get_with_offset::<f16>(16, 96), q.get_with_offset::<f16>(16, 128));
/// x.copy_from_slice(&[-128i8; 32]);
/// o.copy_from_slice(&[f16::from_f32(1.0); 16]);
/// s.copy_from_slice(&[f16::from_f32(0.25); 16]);
/// ascend_anti_quant_stack::<_, _, false>(&y, &x, &o, &s, 2, &AntiQuantShapeInfo::default());
/// assert_eq!(y.get_value(31), f16::from_f32(-31.75));
/// ```
///
/// # Panics
/// As [`ascend_anti_quant`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn ascend_anti_quant_stack<S: AntiQuantInput, D: AntiQuantOutput, const IS_TRANSPOSE: bool>(
    dst: &LocalTensor<D>,
    src: &LocalTensor<S>,
    offset: &LocalTensor<D>,
    scale: &LocalTensor<D>,
    k: usize,
    shape_info: &AntiQuantShapeInfo,
) {
    ascend_anti_quant::<S, D, IS_TRANSPOSE>(dst, src, offset, scale, &stack_tensor(API), k, shape_info);
}

/// The vendor's `AscendAntiQuantNoTranspose` for `half` (performance mode): `PreCast`, then the
/// blocks of at most 255 rows, each `AscendAntiQuantNoTransposePerformance` and, for the last
/// `N % 128` columns, `AscendAntiQuantNoTransposePerformanceTail`.
#[track_caller]
fn per_channel<S: AntiQuantInput>(
    dst: &LocalTensor<f16>,
    src: &LocalTensor<S>,
    offset: &LocalTensor<f16>,
    scale: &LocalTensor<f16>,
    k: usize,
    n: usize,
) {
    // PreCast: the whole source in counter mode.
    set_mask_count();
    count_mask::<f16>(src.get_size());
    to_half(dst, src);
    let n_tail = n % SINGLE_N_FP16;
    let n_align = n - n_tail;
    let stride = (n * f16::SIZE / ONE_BLK_SIZE) as u8;
    let params = BinaryRepeatParams::new(1, 1, 1, stride, stride, 0);
    let block = |row: usize, rows: usize| {
        let d = dst.view(row * n);
        // AscendAntiQuantNoTransposePerformance.
        set_mask_count();
        count_mask::<f16>(SINGLE_N_FP16 * rows);
        for c in (0..n_align).step_by(SINGLE_N_FP16) {
            add_rows(&d.view(c), &offset.view(c), rows, &params);
            mul_rows(&d.view(c), &scale.view(c), rows, &params);
        }
        set_mask_norm();
        reset_mask();
        // AscendAntiQuantNoTransposePerformanceTail.
        if n_tail > 0 {
            set_mask_norm();
            set_vector_mask::<f16>(Mask::Count(n_tail as u64));
            add_rows(&d.view(n_align), &offset.view(n_align), rows, &params);
            mul_rows(&d.view(n_align), &scale.view(n_align), rows, &params);
            reset_mask();
        }
    };
    for b in 0..k / MAX_K {
        block(b * MAX_K, MAX_K);
    }
    if k % MAX_K > 0 {
        block(k / MAX_K * MAX_K, k % MAX_K);
    }
}

/// `Add<half, false>(d, d, offset, MASK_PLACEHOLDER, rows, params)`, then `PipeBarrier<PIPE_V>`.
#[track_caller]
fn add_rows(d: &LocalTensor<f16>, offset: &LocalTensor<f16>, rows: usize, params: &BinaryRepeatParams) {
    add_masked::<f16, false>(d, d, offset, MASK_PLACEHOLDER, rows as u8, params);
    pipe_barrier::<PIPE_V>();
}

/// `Mul<half, false>(d, d, scale, MASK_PLACEHOLDER, rows, params)`, then `PipeBarrier<PIPE_V>`.
#[track_caller]
fn mul_rows(d: &LocalTensor<f16>, scale: &LocalTensor<f16>, rows: usize, params: &BinaryRepeatParams) {
    mul_masked::<f16, false>(d, d, scale, MASK_PLACEHOLDER, rows as u8, params);
    pipe_barrier::<PIPE_V>();
}

/// Per-channel anti-quantization without offset: `dst[i][j] = half(src[i][j]) · scale[i /
/// groupSize][j]` in `half` for the `[K, N]` source, with `shared_tmp_buffer` as scratch
/// (AscendC `AscendAntiQuant<InputDataType, OutputDataType, isTranspose>(dst, src, scale,
/// sharedTmpBuffer, k, shapeInfo)` with a scale tensor; the vendor has no form without the
/// scratch).
///
/// The scale's shape `[G, N]` comes from `shape_info.scale_height` and `.scale_width` (this
/// emulator's tensors carry no `ShapeInfo` to fall back on, so both must be set); `groupSize =
/// K / G`. As the vendor's `AscendAntiQuantNoTranspose` for `half`: counter mode; for each of the
/// `K` rows, the mask to `N`, `Cast<half, int8_t>` of the row into `dst`, `Mul(dst, scale row,
/// dst)`, each followed by `PipeBarrier<PIPE_V>`; then normal mode and the mask reset. Each
/// product rounds to `half`; the scratch is not touched. `IS_TRANSPOSE = true` is not
/// implemented (panics).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 128 + 128 * 2 + 2 * 32 * 2);
/// pipe.init_tbuf(&mut tmp, 32);
/// let x = q.get_with_offset::<i8>(128, 0); // [K = 4, N = 32], two groups of two rows
/// let y = q.get_with_offset::<f16>(128, 128);
/// let s = q.get_with_offset::<f16>(64, 384); // [G = 2, N = 32]
/// x.copy_from_slice(&[5i8; 128]);
/// let scales: Vec<f16> = (0..64).map(|i| f16::from_f32(if i < 32 { 1.5 } else { -2.0 })).collect();
/// s.copy_from_slice(&scales);
/// let info = AntiQuantShapeInfo { scale_height: 2, scale_width: 32, ..Default::default() };
/// ascend_anti_quant_no_offset::<_, _, false>(&y, &x, &s, &tmp.get::<u8>(), 4, &info);
/// assert_eq!(y.get_value(63), f16::from_f32(7.5)); // row 1, group 0
/// assert_eq!(y.get_value(64), f16::from_f32(-10.0)); // row 2, group 1
/// ```
///
/// # Panics
/// Panics on Ascend910, Ascend310B (no implementation); if `IS_TRANSPOSE` is true (not
/// implemented); `shape_info.scale_height` or `.scale_width` is 0; `k` is not a non-zero
/// multiple of `scale_height`; `src` holds fewer than `K · N` elements; `scale` fewer than `G ·
/// N`; a tensor is not in the Unified Buffer; `dst` holds fewer elements than `src`; `dst`,
/// `src` and `shared_tmp_buffer` overlap; or any instruction's own check fails (each row's start
/// must be 32-byte aligned: `N` a multiple of 32).
#[track_caller]
pub fn ascend_anti_quant_no_offset<S: AntiQuantInput, D: AntiQuantOutput, const IS_TRANSPOSE: bool>(
    dst: &LocalTensor<D>,
    src: &LocalTensor<S>,
    scale: &LocalTensor<D>,
    shared_tmp_buffer: &LocalTensor<u8>,
    k: usize,
    shape_info: &AntiQuantShapeInfo,
) {
    check_operands(dst, src, shared_tmp_buffer, k, IS_TRANSPOSE);
    ensure(!IS_TRANSPOSE, API, || {
        "the per-channel form without offset with isTranspose = true (Brcb on Ascend910B, TransDataTo5HD on \
         Ascend310P) is not emulated; it runs with isTranspose = false here"
            .into()
    });
    let (g, n) = (shape_info.scale_height as usize, shape_info.scale_width as usize);
    ensure(g > 0 && n > 0, API, || {
        format!(
            "shapeInfo.scaleHeight = {g} and scaleWidth = {n}; both must be set (this emulator's tensors have no \
             ShapeInfo to take the scale's [G, N] from)"
        )
    });
    ensure(k > 0 && k % g == 0, API, || {
        format!("k = {k} is not a non-zero multiple of shapeInfo.scaleHeight = {g} (groupSize = K / G)")
    });
    ensure(src.get_size() >= k * n, API, || {
        format!("src holds {} elements, fewer than K · N = {k} · {n}", src.get_size())
    });
    let pos = scale.get_position();
    ensure(pos.is_ub(), API, || format!("scale is at position {pos}; it must be VECIN, VECOUT or VECCALC"));
    ensure(scale.get_size() >= g * n, API, || {
        format!("scale holds {} {} elements, fewer than G · N = {g} · {n}", scale.get_size(), D::DTYPE)
    });
    let (dst, scale) = (D::as_half(dst), D::as_half(scale));
    let group = k / g;
    set_mask_count();
    for i in 0..g {
        for j in 0..group {
            // AntiQuantOuterLoop<SrcType, half, false> on one row.
            let row = (i * group + j) * n;
            let d = dst.view(row);
            count_mask::<f16>(n);
            to_half(&d, &src.view(row));
            mul_masked::<f16, false>(
                &d,
                &scale.view(i * n),
                &d,
                MASK_PLACEHOLDER,
                1,
                &BinaryRepeatParams::default(),
            );
            pipe_barrier::<PIPE_V>();
        }
    }
    set_mask_norm();
    reset_mask();
}

// ---- per tensor -----------------------------------------------------------------------------

/// The vendor's `AntiQuantOuterLoop` for `half` with scalars: counter mode over the whole
/// source, `Cast<half, int8_t>` into `dst`, `Adds(offset)` (when there is one), `Muls(scale)`,
/// each followed by `PipeBarrier<PIPE_V>`; then normal mode and the mask reset.
#[track_caller]
fn per_tensor<S: AntiQuantInput>(
    dst: &LocalTensor<f16>,
    src: &LocalTensor<S>,
    offset: Option<f16>,
    scale: f16,
) {
    set_mask_count();
    count_mask::<f16>(src.get_size());
    to_half(dst, src);
    if let Some(o) = offset {
        adds(dst, dst, o);
    }
    muls(dst, dst, scale);
    set_mask_norm();
    reset_mask();
}

/// Per-tensor anti-quantization: `dst[i] = (half(src[i]) + offset) * scale` in `half` for all
/// of `src`, with `shared_tmp_buffer` as scratch (AscendC `AscendAntiQuant<InputDataType,
/// OutputDataType, isTranspose>(dst, src, offset, scale, sharedTmpBuffer, k, shapeInfo)` with
/// scalar `offset` and `scale`).
///
/// As the vendor's implementation for `half` on Ascend910B and Ascend310P, transposed or not
/// (both paths are `AntiQuantOuterLoop`): counter mode over `src.get_size()` elements,
/// `Cast<half, int8_t>` into `dst`, `Adds(offset)`, `Muls(scale)`, each followed by
/// `PipeBarrier<PIPE_V>` and rounded to `half`. `k` is only checked (transposed: `k` bytes a
/// multiple of 32); `shape_info` is not read; the scratch is not touched. The mask is left in
/// normal mode, all lanes.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 64 + 64 * 2);
/// pipe.init_tbuf(&mut tmp, 32);
/// let (x, y) = (q.get_with_offset::<i8>(64, 0), q.get_with_offset::<f16>(64, 64));
/// x.copy_from_slice(&[100i8; 64]);
/// let (o, s) = (f16::from_f32(-0.5), f16::from_f32(0.1));
/// ascend_anti_quant_per_tensor::<_, _, true>(&y, &x, o, s, &tmp.get::<u8>(), 32, &AntiQuantShapeInfo::default());
/// assert_eq!(y.get_value(5), f16::from_f32(99.5) * s); // one rounding per step
/// ```
///
/// # Panics
/// Panics on Ascend910, Ascend310B (no implementation); if a tensor is not in the Unified
/// Buffer; `dst` holds fewer elements than `src`; `IS_TRANSPOSE` is true and `k` is not a
/// multiple of 32; `dst`, `src` and `shared_tmp_buffer` overlap; or any instruction's own check
/// fails.
#[track_caller]
pub fn ascend_anti_quant_per_tensor<S: AntiQuantInput, D: AntiQuantOutput, const IS_TRANSPOSE: bool>(
    dst: &LocalTensor<D>,
    src: &LocalTensor<S>,
    offset: D,
    scale: D,
    shared_tmp_buffer: &LocalTensor<u8>,
    k: usize,
    shape_info: &AntiQuantShapeInfo,
) {
    let _ = shape_info;
    check_operands(dst, src, shared_tmp_buffer, k, IS_TRANSPOSE);
    per_tensor(&D::as_half(dst), src, Some(D::half_of(offset)), D::half_of(scale));
}

/// [`ascend_anti_quant_per_tensor`] with the stack buffer as scratch (AscendC
/// `AscendAntiQuant<InputDataType, OutputDataType, isTranspose>(dst, src, offset, scale, k,
/// shapeInfo)` with scalars; see [`pop_stack_buffer`](super::pop_stack_buffer)).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 32 + 32 * 2);
/// let (x, y) = (q.get_with_offset::<i8>(32, 0), q.get_with_offset::<f16>(32, 32));
/// x.copy_from_slice(&[-3i8; 32]);
/// let (o, s) = (f16::from_f32(1.0), f16::from_f32(-4.0));
/// ascend_anti_quant_per_tensor_stack::<_, _, false>(&y, &x, o, s, 32, &AntiQuantShapeInfo::default());
/// assert_eq!(y.get_value(0), f16::from_f32(8.0));
/// ```
///
/// # Panics
/// As [`ascend_anti_quant_per_tensor`], and if the core has no `TPipe` or its buffers leave no
/// room.
#[track_caller]
pub fn ascend_anti_quant_per_tensor_stack<S: AntiQuantInput, D: AntiQuantOutput, const IS_TRANSPOSE: bool>(
    dst: &LocalTensor<D>,
    src: &LocalTensor<S>,
    offset: D,
    scale: D,
    k: usize,
    shape_info: &AntiQuantShapeInfo,
) {
    ascend_anti_quant_per_tensor::<S, D, IS_TRANSPOSE>(
        dst,
        src,
        offset,
        scale,
        &stack_tensor(API),
        k,
        shape_info,
    );
}

/// Per-tensor anti-quantization without offset: `dst[i] = half(src[i]) * scale` in `half`
/// (AscendC `AscendAntiQuant<InputDataType, OutputDataType, isTranspose>(dst, src, scale,
/// sharedTmpBuffer, k, shapeInfo)` with a scalar `scale`; the vendor has no form without the
/// scratch).
///
/// As [`ascend_anti_quant_per_tensor`] without the `Adds`: counter mode, `Cast<half, int8_t>`,
/// `Muls(scale)`, each followed by `PipeBarrier<PIPE_V>`.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 32 + 32 * 2);
/// pipe.init_tbuf(&mut tmp, 32);
/// let (x, y) = (q.get_with_offset::<i8>(32, 0), q.get_with_offset::<f16>(32, 32));
/// x.copy_from_slice(&[7i8; 32]);
/// let s = f16::from_f32(0.5);
/// ascend_anti_quant_per_tensor_no_offset::<_, _, false>(&y, &x, s, &tmp.get::<u8>(), 32, &AntiQuantShapeInfo::default());
/// assert_eq!(y.get_value(31), f16::from_f32(3.5));
/// ```
///
/// # Panics
/// As [`ascend_anti_quant_per_tensor`].
#[track_caller]
pub fn ascend_anti_quant_per_tensor_no_offset<
    S: AntiQuantInput,
    D: AntiQuantOutput,
    const IS_TRANSPOSE: bool,
>(
    dst: &LocalTensor<D>,
    src: &LocalTensor<S>,
    scale: D,
    shared_tmp_buffer: &LocalTensor<u8>,
    k: usize,
    shape_info: &AntiQuantShapeInfo,
) {
    let _ = shape_info;
    check_operands(dst, src, shared_tmp_buffer, k, IS_TRANSPOSE);
    per_tensor(&D::as_half(dst), src, None, D::half_of(scale));
}

// ---- host -----------------------------------------------------------------------------------

/// The host helpers' checks (the vendor's `CheckAntiQuantHostCommon` and type support): a
/// non-empty source; `int8_t` input, `half` or `bfloat16_t` output; transposed, a `[N, K]`
/// source whose `K` passes the vendor's test `DT_INT8 · K % 32 == 0` (it multiplies by the enum
/// value of `ge::DT_INT8`, 2, not by the type's size: `K` a multiple of 16).
#[track_caller]
fn host_checks(api: &'static str, src_shape: &[usize], transpose: bool, input: DType, output: DType) {
    ensure(src_shape.iter().product::<usize>() > 0, api, || {
        "the source shape has no elements; its size must be greater than 0".into()
    });
    ensure(input == DType::I8, api, || {
        format!("inputDataType = {input:?} is unsupported; it must be I8 (int8_t)")
    });
    ensure(matches!(output, DType::F16 | DType::BF16), api, || {
        format!("outputDataType = {output:?} is unsupported; it must be F16 (half) or BF16 (bfloat16_t)")
    });
    if transpose {
        ensure(src_shape.len() >= 2, api, || {
            format!(
                "isTranspose is true and srcShape has {} dimension(s); it must be [N, K]",
                src_shape.len()
            )
        });
        let k = src_shape[1];
        ensure(DT_INT8 * k % ONE_BLK_SIZE == 0, api, || {
            format!(
                "isTranspose is true and srcShape is [N, K] with K = {k}: the vendor's test DT_INT8 ({DT_INT8}) * K = {} \
                 is not a multiple of {ONE_BLK_SIZE}",
                DT_INT8 * k
            )
        });
    }
}

/// `ge::DT_INT8`, the enum value the vendor's host check multiplies `K` by.
const DT_INT8: usize = 2;

/// `(scaleSize, srcSize, perChannel)`: the products of the shapes, per channel unless the scale
/// has one element.
fn sizes(src_shape: &[usize], scale_shape: &[usize]) -> (usize, usize, bool) {
    let scale: usize = scale_shape.iter().product();
    (scale, src_shape.iter().product(), scale != 1)
}

/// The scratch bytes `AscendAntiQuant` takes for an `input_data_type` source of `src_shape`
/// (`[K, N]`, or `[N, K]` when transposed) and scales of `scale_shape`, giving
/// `output_data_type`: `(max, min)` (AscendC's host-side `GetAscendAntiQuantMaxMinTmpSize(
/// srcShape, scaleShape, isTranspose, inputDataType, outputDataType, maxValue, minValue)`).
///
/// As the vendor's: 0 for `half` output. For `bfloat16_t` (`S` the scale's elements, `K =
/// srcShape[0]`): per channel transposed `80 · S · 4` both; per channel not transposed `S · 2 ·
/// 4 + 64 · K · 4` both; per tensor all source elements as `float` (max) and 1024 (min).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_ascend_anti_quant_max_min_tmp_size(&[8, 128], &[1, 128], false, DType::I8, DType::F16), (0, 0));
/// assert_eq!(
///     get_ascend_anti_quant_max_min_tmp_size(&[8, 128], &[1, 128], false, DType::I8, DType::BF16),
///     (128 * 8 + 64 * 8 * 4, 128 * 8 + 64 * 8 * 4)
/// );
/// assert_eq!(get_ascend_anti_quant_max_min_tmp_size(&[64, 32], &[1], true, DType::I8, DType::BF16), (8192, 1024));
/// ```
///
/// # Panics
/// Panics if the source shape has no elements; `input_data_type` is not `I8` or
/// `output_data_type` not `F16`/`BF16`; or `is_transpose` is true and `src_shape` is not
/// `[N, K]` with `2 · K` a multiple of 32 (the vendor's host checks, which only log).
#[track_caller]
pub fn get_ascend_anti_quant_max_min_tmp_size(
    src_shape: &[usize],
    scale_shape: &[usize],
    is_transpose: bool,
    input_data_type: DType,
    output_data_type: DType,
) -> (usize, usize) {
    host_checks(
        "GetAscendAntiQuantMaxMinTmpSize",
        src_shape,
        is_transpose,
        input_data_type,
        output_data_type,
    );
    if output_data_type == DType::F16 {
        return (0, 0);
    }
    let (scale, src, per_channel) = sizes(src_shape, scale_shape);
    let f = f32::SIZE;
    match (is_transpose, per_channel) {
        (true, true) => {
            let b = (8 + 8 + SINGLE_N) * scale * f;
            (b, b)
        }
        (false, true) => {
            let b = scale * 2 * f + SINGLE_N * src_shape[0] * f;
            (b, b)
        }
        (_, false) => (src * f, ANTI_QUANT_MIN_TMP_SIZE),
    }
}

/// `ANTI_QUANT_MIN_TMP_SIZE`: the per-tensor `bfloat16_t` minimum.
const ANTI_QUANT_MIN_TMP_SIZE: usize = 1024;

/// `AscendAntiQuant`'s scratch per call: `(max_live_node_count, extra_buf)` (AscendC's
/// host-side `GetAscendAntiQuantTmpBufferFactorSize(srcShape, scaleShape, isTranspose,
/// inputDataType, outputDataType, maxLiveNodeCount, extraBuf)`).
///
/// As the vendor's: `(0, 0)` for `half` output; for `bfloat16_t`, per tensor `(1, 0)`, per
/// channel transposed `(0, 80 · S · 4)`, not transposed `(0, S · 2 · 4 + 64 · srcShape[0] · 4)`
/// (`S` the scale's elements). No checks, as the vendor's.
///
/// ```
/// use ascend_core::prelude::*;
/// let f = |t, o| get_ascend_anti_quant_tmp_buffer_factor_size(&[8, 128], &[1, 128], t, DType::I8, o);
/// assert_eq!(f(false, DType::F16), (0, 0));
/// assert_eq!(f(true, DType::BF16), (0, 80 * 128 * 4));
/// ```
///
/// # Panics
/// Panics if `src_shape` is empty for a per-channel, not transposed `bfloat16_t` query.
#[track_caller]
pub fn get_ascend_anti_quant_tmp_buffer_factor_size(
    src_shape: &[usize],
    scale_shape: &[usize],
    is_transpose: bool,
    input_data_type: DType,
    output_data_type: DType,
) -> (usize, usize) {
    let _ = input_data_type;
    let (scale, _, per_channel) = sizes(src_shape, scale_shape);
    let f = f32::SIZE;
    if output_data_type == DType::F16 {
        (0, 0)
    } else if is_transpose && per_channel {
        (0, 80 * scale * f)
    } else if !per_channel {
        (1, 0)
    } else {
        ensure(!src_shape.is_empty(), "GetAscendAntiQuantTmpBufferFactorSize", || {
            "srcShape has no dimensions; the per-channel size reads srcShape[0]".into()
        });
        (0, scale * 2 * f + SINGLE_N * src_shape[0] * f)
    }
}
