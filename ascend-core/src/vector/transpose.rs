//! Transposes: TIK's [`vec_trans`] (16×16 matrices of 16-bit elements, with repeats and
//! strides), AscendC's single-matrix [`transpose`], the enhanced `Transpose` with
//! `TransposeParamsExt` ([`transpose_ext`]: `[N,C,H,W]` ↔ `[N,H,W,C]`), and `TransDataTo5HD`
//! ([`trans_data_to_5hd`] and its two address forms: the NCHW → NC1HWC0 instruction). The
//! rest of this header is about the 16×16 matrix transposes; the others document their own
//! rules.
//!
//! One repeat reads a 16×16 matrix of 16-bit elements (512 bytes, row-major) and writes its
//! transpose: `dst[i * 16 + j] = src[j * 16 + i]`. Repeat `r` reads the matrix that starts
//! `r * src_rep_stride * 256` elements after `src` and writes the one that starts
//! `r * dst_rep_stride * 256` elements after `dst` (strides are in 512-byte units).
//!
//! **Overlap rule.** Let the *footprint* of an operand be the union of the 512-byte matrices
//! its repeats touch. A call is valid when either
//! - `dst` and `src` start at the same address **and** have the same repeat stride (full
//!   in-place overlap: every repeat transposes one matrix onto itself), or
//! - no byte of the `dst` footprint lies in the `src` footprint.
//!
//! Anything else (shared bytes with a different start or stride) is partial overlap and is
//! rejected, as the hardware does not support it.

use std::rc::Rc;

use crate::element::{f16, DType, Element, BLOCK_BYTES};
use crate::kernel::ctx::{get_soc, with_core};
use crate::kernel::error::{ensure, fail};
use crate::memory::tensor::LocalTensor;
use crate::memory::ub::Ub;
use crate::observe::sanitizer::UbSpan;
use crate::soc::Soc;
use crate::vector::engine::span_of;

/// Rows (and columns) of one matrix.
const SIDE: usize = 16;
/// Elements of one matrix.
const MATRIX: usize = SIDE * SIDE;
/// Bytes of one matrix (the unit of the repeat strides).
const MATRIX_BYTES: usize = MATRIX * 2;
/// Largest `repeat_times` and stride of `vec_trans`.
const MAX_REPEAT: u16 = 4095;
const MAX_STRIDE: u16 = 4095;

mod sealed {
    pub trait Sealed {}
}

/// An element type the transpose unit moves: the 16-bit types `i16`, `u16` and `f16`, on
/// every chip.
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// // 32-bit elements cannot be transposed: `f32` is not a `TransposeElement`.
/// fn call(dst: &LocalTensor<f32>, src: &LocalTensor<f32>) {
///     vec_trans(dst, src, 1, 1, 1);
/// }
/// ```
pub trait TransposeElement: Element + sealed::Sealed {}

impl sealed::Sealed for i16 {}
impl sealed::Sealed for u16 {}
impl sealed::Sealed for f16 {}
impl TransposeElement for i16 {}
impl TransposeElement for u16 {}
impl TransposeElement for f16 {}

/// Transposes `repeat_times` 16×16 matrices (TIK `vec_trans`).
///
/// Repeat `r` writes the transpose of the matrix at element `r * src_rep_stride * 256` of
/// `src` to element `r * dst_rep_stride * 256` of `dst`. Strides are in 512-byte units (one
/// matrix); 0 makes every repeat use the same matrix. Repeats run in order.
///
/// `dst` may be `src` itself (same address and the same stride): each matrix is transposed in
/// place. Any other sharing of bytes between the matrices of `dst` and those of `src` is
/// rejected (see the [module documentation](self) for the exact rule).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 512);
/// pipe.init_tbuf(&mut b, 512);
/// let (src, dst) = (a.get::<u16>(), b.get::<u16>());
/// src.copy_from_slice(&(0..256).collect::<Vec<u16>>());
/// vec_trans(&dst, &src, 1, 1, 1);
/// assert_eq!(&dst.to_vec()[..4], &[0, 16, 32, 48]);
/// // In place: transposing twice gives the original back.
/// vec_trans(&dst, &dst, 1, 1, 1);
/// assert_eq!(dst.to_vec(), src.to_vec());
/// ```
///
/// # Panics
/// Panics if `repeat_times` is outside `[1, 4095]`, a stride is outside `[0, 4095]`, an
/// operand is not a 32-byte aligned UB tensor, a matrix lies outside its tensor, or `dst`
/// and `src` partially overlap.
#[track_caller]
pub fn vec_trans<T: TransposeElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    repeat_times: u16,
    dst_rep_stride: u16,
    src_rep_stride: u16,
) {
    const API: &str = "vec_trans";
    ensure((1..=MAX_REPEAT).contains(&repeat_times), API, || {
        format!("repeat_times = {repeat_times} is out of range [1, {MAX_REPEAT}]")
    });
    ensure(dst_rep_stride <= MAX_STRIDE, API, || {
        format!("dst_rep_stride = {dst_rep_stride} is out of range [0, {MAX_STRIDE}] (512-byte units)")
    });
    ensure(src_rep_stride <= MAX_STRIDE, API, || {
        format!("src_rep_stride = {src_rep_stride} is out of range [0, {MAX_STRIDE}] (512-byte units)")
    });
    transpose_matrices(API, dst, src, repeat_times.into(), dst_rep_stride.into(), src_rep_stride.into());
}

/// Transposes one 16×16 matrix: `dst = src.T` (AscendC `Transpose(dst, src)`).
///
/// Reads elements `0..256` of `src` as a row-major 16×16 matrix and writes its transpose to
/// elements `0..256` of `dst`. `dst` may be `src` itself (in place); partial overlap is
/// rejected. Supported on every chip for `int16_t`, `uint16_t` and `half`.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut a = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut a, 512);
/// let m = a.get::<half::f16>();
/// m.copy_from_slice(&(0..256).map(|i| half::f16::from_f32(i as f32)).collect::<Vec<_>>());
/// transpose(&m, &m);
/// assert_eq!(m.get_value(1).to_f32(), 16.0);
/// assert_eq!(m.get_value(16).to_f32(), 1.0);
/// ```
///
/// # Panics
/// Panics if an operand is not a 32-byte aligned UB tensor, holds fewer than 256 elements, or
/// `dst` and `src` partially overlap.
#[track_caller]
pub fn transpose<T: TransposeElement>(dst: &LocalTensor<T>, src: &LocalTensor<T>) {
    transpose_matrices("Transpose", dst, src, 1, 1, 1);
}

/// Checks the operands once, then transposes `repeats` matrices.
#[track_caller]
fn transpose_matrices<T: TransposeElement>(
    api: &'static str,
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    repeats: usize,
    dst_stride: usize,
    src_stride: usize,
) {
    const { assert!(T::SIZE == 2, "the transpose unit moves 16-bit elements") };
    for (t, name, stride) in [(dst, "dst", dst_stride), (src, "src", src_stride)] {
        t.check_vector_operand(api, name);
        let need = (repeats - 1) * stride * MATRIX + MATRIX;
        ensure(need <= t.get_size(), api, || {
            format!(
                "{name} would touch element {} but the tensor has {} elements (repeat_times = {repeats}, {name}_rep_stride = {stride})",
                need - 1,
                t.get_size()
            )
        });
    }
    let (d0, s0) = (dst.get_phy_addr(), src.get_phy_addr());
    // With one repeat the strides never apply: the same address is the same matrix.
    let in_place = d0 == s0 && (dst_stride == src_stride || repeats == 1);
    if !in_place {
        if let Some((rd, rs)) = first_shared_matrix(d0, dst_stride, s0, src_stride, repeats) {
            fail(
                api,
                format!(
                    "dst (address {d0:#x}, dst_rep_stride = {dst_stride}) and src (address {s0:#x}, src_rep_stride = {src_stride}) partially overlap: \
                     matrix {rd} of dst shares bytes with matrix {rs} of src; only a complete overlap (same address and stride) is allowed"
                ),
            );
        }
    }
    let span =
        |t: &LocalTensor<T>, stride: usize| span_of(t, ((repeats - 1) * stride * MATRIX + MATRIX) * T::SIZE);
    crate::observe::events::on_vector(api, &[span(src, src_stride)], &[span(dst, dst_stride)]);
    let (dp, sp) = (dst.ptr().cast::<u16>(), src.ptr().cast::<u16>());
    let mut tile = [0u16; MATRIX];
    let mut out = [0u16; MATRIX];
    for r in 0..repeats {
        // SAFETY: both matrices of repeat r lie inside their tensors (checked above); the
        // source is copied to the stack before the destination is written, so a matrix
        // transposed onto itself is read completely first. Every `T` is 16 bits wide, so the
        // elements are moved as `u16` bit patterns.
        unsafe {
            core::ptr::copy_nonoverlapping(sp.add(r * src_stride * MATRIX), tile.as_mut_ptr(), MATRIX);
            transpose_tile(&tile, &mut out);
            core::ptr::copy_nonoverlapping(out.as_ptr(), dp.add(r * dst_stride * MATRIX), MATRIX);
        }
    }
}

/// `out = tile.T` for one row-major 16×16 tile.
#[inline(always)]
fn transpose_tile(tile: &[u16; MATRIX], out: &mut [u16; MATRIX]) {
    for (i, row) in out.chunks_exact_mut(SIDE).enumerate() {
        for (j, o) in row.iter_mut().enumerate() {
            *o = tile[j * SIDE + i];
        }
    }
}

/// The first (dst repeat, src repeat) pair whose 512-byte matrices share a byte, if any.
/// Addresses are in bytes, strides in matrices.
fn first_shared_matrix(d0: usize, ds: usize, s0: usize, ss: usize, repeats: usize) -> Option<(usize, usize)> {
    let (ds, ss) = (ds * MATRIX_BYTES, ss * MATRIX_BYTES);
    let (d_end, s_end) = (d0 + (repeats - 1) * ds + MATRIX_BYTES, s0 + (repeats - 1) * ss + MATRIX_BYTES);
    if d_end <= s0 || s_end <= d0 {
        return None;
    }
    for rd in 0..repeats {
        let d = d0 + rd * ds;
        // Src matrix rs meets [d, d + 512) iff d - 512 < s0 + rs * ss < d + 512; find the
        // smallest rs with s0 + rs * ss > d - 512 and test it.
        let hit = if s0 + MATRIX_BYTES > d {
            (s0 < d + MATRIX_BYTES).then_some(0)
        } else {
            (d - s0 - MATRIX_BYTES)
                .checked_div(ss)
                .map(|q| q + 1)
                .filter(|&lo| lo < repeats && s0 + lo * ss < d + MATRIX_BYTES)
        };
        if let Some(rs) = hit {
            return Some((rd, rs));
        }
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Transpose with TransposeParamsExt: [N,C,H,W] <-> [N,H,W,C].

/// The conversion of [`transpose_ext`] (AscendC `TransposeType`), in the vendor's order.
///
/// Only [`TRANSPOSE_TYPE_NONE`](Self::TRANSPOSE_TYPE_NONE) (nothing happens),
/// [`TRANSPOSE_ND2ND_B16`](Self::TRANSPOSE_ND2ND_B16),
/// [`TRANSPOSE_NCHW2NHWC`](Self::TRANSPOSE_NCHW2NHWC) and
/// [`TRANSPOSE_NHWC2NCHW`](Self::TRANSPOSE_NHWC2NCHW) are implemented by the vendor for the
/// basic `Transpose`; the others are documented as "当前不支持" (not supported) and are
/// rejected.
#[allow(non_camel_case_types, clippy::upper_case_acronyms)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TransposeType {
    /// The API does nothing.
    TRANSPOSE_TYPE_NONE,
    /// Not supported.
    TRANSPOSE_NZ2ND_0213,
    /// Not supported.
    TRANSPOSE_NZ2NZ_0213,
    /// Not supported.
    TRANSPOSE_NZ2NZ_012_WITH_N,
    /// Not supported.
    TRANSPOSE_NZ2ND_012_WITH_N,
    /// Not supported.
    TRANSPOSE_NZ2ND_012_WITHOUT_N,
    /// Not supported.
    TRANSPOSE_NZ2NZ_012_WITHOUT_N,
    /// Not supported.
    TRANSPOSE_ND2ND_ONLY,
    /// Not supported.
    TRANSPOSE_ND_UB_GM,
    /// Not supported.
    TRANSPOSE_GRAD_ND_UB_GM,
    /// One 16×16 matrix of `uint16_t` (`hSize = wSize = 16`); the default.
    #[default]
    TRANSPOSE_ND2ND_B16,
    /// `[N, C, H, W]` → `[N, H, W, C]`.
    TRANSPOSE_NCHW2NHWC,
    /// `[N, H, W, C]` → `[N, C, H, W]`.
    TRANSPOSE_NHWC2NCHW,
}

impl std::fmt::Display for TransposeType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TransposeType::{self:?}")
    }
}

/// The shape and conversion of [`transpose_ext`] (AscendC `TransposeParamsExt`). The default
/// is all sizes 0 and [`TransposeType::TRANSPOSE_ND2ND_B16`], as in AscendC.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TransposeParamsExt {
    /// N (`nSize`), in `[0, 65535]`; ignored by `TRANSPOSE_ND2ND_B16`.
    pub n_size: u16,
    /// C (`cSize`), in `[0, 4095]`; ignored by `TRANSPOSE_ND2ND_B16`.
    pub c_size: u16,
    /// H (`hSize`); 16 for `TRANSPOSE_ND2ND_B16`.
    pub h_size: u16,
    /// W (`wSize`); 16 for `TRANSPOSE_ND2ND_B16`.
    pub w_size: u16,
    /// The conversion (`transposeType`).
    pub transpose_type: TransposeType,
}

impl TransposeParamsExt {
    /// `{nSize, cSize, hSize, wSize, transposeType}`.
    pub const fn new(
        n_size: u16,
        c_size: u16,
        h_size: u16,
        w_size: u16,
        transpose_type: TransposeType,
    ) -> Self {
        TransposeParamsExt { n_size, c_size, h_size, w_size, transpose_type }
    }
}

mod ext_sealed {
    pub trait Sealed {}
}

/// Element types [`transpose_ext`] accepts: `int8_t`, `uint8_t`, `int16_t`, `uint16_t`,
/// `half`, `int32_t`, `uint32_t`, `float` for `TRANSPOSE_NCHW2NHWC` / `TRANSPOSE_NHWC2NCHW`
/// (Ascend910B and Ascend310P), and `uint16_t` only for `TRANSPOSE_ND2ND_B16` (Ascend910B,
/// Ascend310P, Ascend310B); other chips, and other types with `TRANSPOSE_ND2ND_B16`, are
/// run-time errors naming the chip or type. Other types do not compile:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<bf16>, tmp: &LocalTensor<u8>) {
///     transpose_ext(t, t, tmp, &TransposeParamsExt::default());
/// }
/// ```
pub trait TransposeExtElement: Element + ext_sealed::Sealed {}

/// Element types of [`trans_data_to_5hd`] and its address forms: `int8_t`, `uint8_t`,
/// `int16_t`, `uint16_t`, `half` on every chip, and `int32_t`, `uint32_t`, `float` on all but
/// Ascend910 (a run-time error there). Other types do not compile:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(d: &[u64; 16], s: &[u64; 16]) {
///     trans_data_to_5hd_addr::<bf16>(d, s, &TransDataTo5HDParams::default());
/// }
/// ```
pub trait TransDataTo5HDElement: Element + ext_sealed::Sealed {
    /// Whether `TransDataTo5HD` on this type exists on `soc`.
    fn trans_data_to_5hd_supported(soc: Soc) -> bool;
}

macro_rules! ext_types {
    ($($t:ty => $all_chips:expr),* $(,)?) => {$(
        impl ext_sealed::Sealed for $t {}
        impl TransposeExtElement for $t {}
        impl TransDataTo5HDElement for $t {
            fn trans_data_to_5hd_supported(soc: Soc) -> bool {
                $all_chips || soc != Soc::Ascend910
            }
        }
    )*};
}
ext_types! {
    i8 => true, u8 => true, i16 => true, u16 => true, f16 => true,
    i32 => false, u32 => false, f32 => false,
}

/// `h0 * w0 * sizeof(T)` of the vendor's tmp-buffer formulas: one 16×(32 bytes) fractal, or
/// 32×32 bytes for 8-bit types.
const fn fractal_bytes(size: usize) -> usize {
    let h0 = if size == 1 { 32 } else { 16 };
    h0 * BLOCK_BYTES
}

/// The smallest `sharedTmpBuffer` (in bytes) [`transpose_ext`] accepts for `T` and `params`
/// on `soc` (a helper of this crate; AscendC documents the formulas):
/// - Ascend910B, `TRANSPOSE_NCHW2NHWC`: `(cSize + 2) * h0 * w0 * sizeof(T)`;
/// - Ascend910B, `TRANSPOSE_NHWC2NCHW`: `(cSize * 2 + 1) * h0 * w0 * sizeof(T)`;
///
/// with `h0 = 32` for 8-bit types and 16 otherwise, and `w0 = 32 / sizeof(T)`; 0 for every
/// other chip and type (Ascend310P converts without a buffer).
///
/// ```
/// use ascend_core::prelude::*;
/// let p = TransposeParamsExt::new(3, 3, 2, 8, TransposeType::TRANSPOSE_NCHW2NHWC);
/// assert_eq!(transpose_ext_tmp_size::<f16>(Soc::Ascend910B, &p), 2560);
/// assert_eq!(transpose_ext_tmp_size::<f16>(Soc::Ascend310P, &p), 0);
/// ```
pub fn transpose_ext_tmp_size<T: TransposeExtElement>(soc: Soc, params: &TransposeParamsExt) -> usize {
    let c = usize::from(params.c_size);
    match (soc, params.transpose_type) {
        (Soc::Ascend910B, TransposeType::TRANSPOSE_NCHW2NHWC) => (c + 2) * fractal_bytes(T::SIZE),
        (Soc::Ascend910B, TransposeType::TRANSPOSE_NHWC2NCHW) => (c * 2 + 1) * fractal_bytes(T::SIZE),
        _ => 0,
    }
}

/// Whether two byte ranges of tensors share a byte (tensors of different arenas never do).
fn ranges_meet<A: Element, B: Element>(
    a: &LocalTensor<A>,
    ra: (usize, usize),
    b: &LocalTensor<B>,
    rb: (usize, usize),
) -> bool {
    Rc::ptr_eq(a.ub(), b.ub()) && ra.0 < ra.1 && rb.0 < rb.1 && ra.0 < rb.1 && rb.0 < ra.1
}

/// The enhanced `Transpose` (AscendC `Transpose(dst, src, sharedTmpBuffer,
/// TransposeParamsExt)`): `[N,C,H,W]` ↔ `[N,H,W,C]`, or one 16×16 matrix.
///
/// - `TRANSPOSE_NCHW2NHWC`: `dst[n][h][w][c] = src[n][c][h][w]`
///   (`np.transpose(src, (0, 2, 3, 1))`); `TRANSPOSE_NHWC2NCHW`: `dst[n][c][h][w] =
///   src[n][h][w][c]` (`np.transpose(src, (0, 3, 1, 2))`). Ascend910B and Ascend310P; all
///   eight [`TransposeExtElement`] types. `cSize` in `[0, 4095]`, `hSize * wSize` in
///   `[0, 4095]` and `hSize * wSize * sizeof(T)` a multiple of 32 bytes; if any size is 0
///   nothing is written. `dst` and `src` may not overlap ("不支持src和dst复用"). Elements
///   `0 .. N*C*H*W` are read and written; the rest of `dst` is left as it is.
/// - `TRANSPOSE_ND2ND_B16`: [`transpose`] of one 16×16 `uint16_t` matrix (Ascend910B,
///   Ascend310P, Ascend310B); `hSize` and `wSize` must be 16, `nSize`/`cSize` are ignored, no
///   buffer is used, and `dst` may be `src`.
/// - `TRANSPOSE_TYPE_NONE`: nothing; every other type is rejected (not supported).
///
/// **`sharedTmpBuffer`.** On Ascend910B the vendor's algorithm stages data through it: it
/// must be a 32-byte aligned UB tensor of at least [`transpose_ext_tmp_size`] bytes, sharing
/// no byte with the used parts of `src` and `dst` (the docs are silent on overlap; a shared
/// byte would corrupt the staging). With `cSize = 1` the vendor's code copies without staging
/// (`impl/basic_api/kernel_operator_vec_transpose_intf_impl.h`), but the documented size is
/// still required. Its contents afterwards are unspecified (this emulation
/// leaves them unchanged; the chip does not). Ascend310P converts with a dedicated
/// instruction (`v4dtrans`, `impl/basic_api/dav_m200/kernel_operator_vec_transpose_impl.h`)
/// and neither checks nor touches the buffer, nor does `TRANSPOSE_ND2ND_B16`.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut t) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 64);
/// pipe.init_tbuf(&mut b, 64);
/// let p = TransposeParamsExt::new(1, 2, 2, 8, TransposeType::TRANSPOSE_NCHW2NHWC);
/// pipe.init_tbuf(&mut t, transpose_ext_tmp_size::<f16>(Soc::Ascend910B, &p));
/// let (src, dst, tmp) = (a.get::<f16>(), b.get::<f16>(), t.get::<u8>());
/// src.copy_from_slice(&(0..32).map(|i| f16::from_f32(i as f32)).collect::<Vec<_>>());
/// transpose_ext(&dst, &src, &tmp, &p);
/// // [C=2][HW=16] -> [HW=16][C=2]
/// assert_eq!(dst.to_vec()[..4], [0.0, 16.0, 1.0, 17.0].map(f16::from_f32));
/// ```
///
/// # Panics
/// Panics if the type is not supported (see [`TransposeType`]); the chip or `T` lacks it;
/// a size is out of range or `hSize * wSize * sizeof(T)` is not 32-byte aligned; `dst` or
/// `src` is not a 32-byte aligned UB tensor or holds fewer than `N*C*H*W` elements; `dst`
/// and `src` overlap; or (Ascend910B) `sharedTmpBuffer` is not a 32-byte aligned UB tensor,
/// is smaller than the formula, or overlaps `dst` or `src`. `TRANSPOSE_ND2ND_B16` panics as
/// [`transpose`] does, and if `hSize` or `wSize` is not 16.
#[track_caller]
pub fn transpose_ext<T: TransposeExtElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    transpose_params: &TransposeParamsExt,
) {
    const API: &str = "Transpose";
    let p = transpose_params;
    let soc = get_soc();
    match p.transpose_type {
        TransposeType::TRANSPOSE_TYPE_NONE => {}
        TransposeType::TRANSPOSE_ND2ND_B16 => {
            ensure(matches!(soc, Soc::Ascend910B | Soc::Ascend310P | Soc::Ascend310B), API, || {
                format!(
                    "transposeType = {} is not supported on {soc} ({}): use Transpose(dst, src)",
                    p.transpose_type,
                    soc.product_line()
                )
            });
            ensure(T::DTYPE == DType::U16, API, || {
                format!("T = {} is not supported with {}: only uint16_t is", T::DTYPE, p.transpose_type)
            });
            ensure(p.h_size == 16 && p.w_size == 16, API, || {
                format!(
                    "hSize = {}, wSize = {}: {} transposes one 16x16 matrix and takes hSize = wSize = 16",
                    p.h_size, p.w_size, p.transpose_type
                )
            });
            transpose_matrices(API, &dst.reinterpret_cast::<u16>(), &src.reinterpret_cast::<u16>(), 1, 1, 1);
        }
        TransposeType::TRANSPOSE_NCHW2NHWC | TransposeType::TRANSPOSE_NHWC2NCHW => {
            transpose_4d(API, soc, dst, src, shared_tmp_buffer, p)
        }
        other => fail(
            API,
            format!(
                "transposeType = {other} is not supported (documented as 当前不支持); use TRANSPOSE_ND2ND_B16, \
                 TRANSPOSE_NCHW2NHWC or TRANSPOSE_NHWC2NCHW"
            ),
        ),
    }
}

/// `TRANSPOSE_NCHW2NHWC` / `TRANSPOSE_NHWC2NCHW` of [`transpose_ext`].
#[track_caller]
fn transpose_4d<T: TransposeExtElement>(
    api: &'static str,
    soc: Soc,
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: &LocalTensor<u8>,
    p: &TransposeParamsExt,
) {
    let ty = p.transpose_type;
    ensure(matches!(soc, Soc::Ascend910B | Soc::Ascend310P), api, || {
        format!(
            "transposeType = {ty} is not supported on {soc} ({}): only Ascend910B and Ascend310P convert between NCHW \
             and NHWC",
            soc.product_line()
        )
    });
    let (n, c, h, w) =
        (usize::from(p.n_size), usize::from(p.c_size), usize::from(p.h_size), usize::from(p.w_size));
    ensure(c <= 4095, api, || format!("cSize = {c} is out of range [0, 4095] for {ty}"));
    let hw = h * w;
    ensure(hw <= 4095, api, || {
        format!("hSize * wSize = {h} * {w} = {hw} is out of range [0, 4095] for {ty}")
    });
    ensure(hw * T::SIZE % BLOCK_BYTES == 0, api, || {
        format!(
            "hSize * wSize * sizeof(T) = {hw} * {} = {} bytes is not a multiple of 32 (required by {ty})",
            T::SIZE,
            hw * T::SIZE
        )
    });
    let total = n * c * hw;
    dst.check_vector_operand(api, "dst");
    src.check_vector_operand(api, "src");
    for (t, name) in [(dst, "dst"), (src, "src")] {
        ensure(t.get_size() >= total, api, || {
            format!(
                "{name} holds {} elements but nSize * cSize * hSize * wSize = {n} * {c} * {h} * {w} = {total}",
                t.get_size()
            )
        });
    }
    let (rd, rs) = (dst.byte_range(total), src.byte_range(total));
    ensure(!ranges_meet(dst, rd, src, rs), api, || {
        format!(
            "dst (bytes {:#x}..{:#x}) overlaps src (bytes {:#x}..{:#x}); {ty} does not support src and dst sharing \
             memory",
            rd.0, rd.1, rs.0, rs.1
        )
    });
    let need = transpose_ext_tmp_size::<T>(soc, p);
    // The vendor's Ascend910B algorithm stages through the buffer unless C == 1 (then it is
    // one UB-to-UB copy).
    let staged = soc == Soc::Ascend910B && c != 1;
    if soc == Soc::Ascend910B {
        tmp.check_vector_operand(api, "sharedTmpBuffer");
        ensure(tmp.get_size() >= need, api, || {
            let formula = if ty == TransposeType::TRANSPOSE_NCHW2NHWC {
                "(cSize + 2) * h0 * w0 * sizeof(T)"
            } else {
                "(cSize * 2 + 1) * h0 * w0 * sizeof(T)"
            };
            format!(
                "sharedTmpBuffer holds {} bytes but {ty} of {} with cSize = {c} needs {need} ({formula})",
                tmp.get_size(),
                T::DTYPE
            )
        });
        let rt = tmp.byte_range(need);
        for (name, t, r) in [("dst", dst, rd), ("src", src, rs)] {
            ensure(!ranges_meet(tmp, rt, t, r), api, || {
                format!(
                    "sharedTmpBuffer (bytes {:#x}..{:#x}) overlaps {name} (bytes {:#x}..{:#x})",
                    rt.0, rt.1, r.0, r.1
                )
            });
        }
    }
    if total == 0 {
        return;
    }
    let bytes = total * T::SIZE;
    if staged {
        let t = span_of(tmp, need);
        crate::observe::events::on_vector(api, &[span_of(src, bytes), t], &[span_of(dst, bytes), t]);
    } else {
        crate::observe::events::on_vector(api, &[span_of(src, bytes)], &[span_of(dst, bytes)]);
    }
    let (sp, dp) = (src.ptr() as *const T, dst.ptr());
    let to_nhwc = ty == TransposeType::TRANSPOSE_NCHW2NHWC;
    for b in 0..n {
        let base = b * c * hw;
        for ci in 0..c {
            for k in 0..hw {
                let (nchw, nhwc) = (base + ci * hw + k, base + k * c + ci);
                let (s, d) = if to_nhwc { (nchw, nhwc) } else { (nhwc, nchw) };
                // SAFETY: s, d < total <= the sizes of src and dst (checked above), and the
                // two ranges do not overlap.
                unsafe { dp.add(d).write(sp.add(s).read()) };
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// TransDataTo5HD.

/// Entries of `TransDataTo5HD`'s address lists (AscendC `NCHW_CONV_ADDR_LIST_SIZE`).
pub const NCHW_CONV_ADDR_LIST_SIZE: usize = 16;

/// Parameters of [`trans_data_to_5hd`] (AscendC `TransDataTo5HDParams`); the default is
/// `{false, false, 1, 0, 0}`, as in AscendC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TransDataTo5HDParams {
    /// 8-bit types: write the upper 16 bytes of each `dst` block (else the lower); must be
    /// `false` for other types.
    pub dst_high_half: bool,
    /// 8-bit types: read the upper 16 bytes of each `src` block (else the lower); must be
    /// `false` for other types.
    pub src_high_half: bool,
    /// Repeats (`repeatTimes`), 0 to 255; 0 does nothing.
    pub repeat_times: u8,
    /// Blocks (32 bytes) between the repeats of every `dst` entry (`dstRepStride`).
    pub dst_rep_stride: u16,
    /// Blocks (32 bytes) between the repeats of every `src` entry (`srcRepStride`).
    pub src_rep_stride: u16,
}

impl Default for TransDataTo5HDParams {
    fn default() -> Self {
        TransDataTo5HDParams {
            dst_high_half: false,
            src_high_half: false,
            repeat_times: 1,
            dst_rep_stride: 0,
            src_rep_stride: 0,
        }
    }
}

impl TransDataTo5HDParams {
    /// `{dstHighHalf, srcHighHalf, repeatTimes, dstRepStride, srcRepStride}`.
    pub const fn new(
        dst_high_half: bool,
        src_high_half: bool,
        repeat_times: u8,
        dst_rep_stride: u16,
        src_rep_stride: u16,
    ) -> Self {
        TransDataTo5HDParams { dst_high_half, src_high_half, repeat_times, dst_rep_stride, src_rep_stride }
    }
}

/// One side (the 16 `dst` or `src` entries) of a `TransDataTo5HD` call: UB byte addresses,
/// the end of the memory each entry may reach, and the sanitizer tags.
struct Side {
    addr: [usize; NCHW_CONV_ADDR_LIST_SIZE],
    limit: [usize; NCHW_CONV_ADDR_LIST_SIZE],
    tag: [u64; NCHW_CONV_ADDR_LIST_SIZE],
}

/// The block offset (in blocks) of repeat `r` of `repeats`: `stride` for a single repeat (the
/// vendor: "当repeatTimes为1时，有效起始位置为序列输入的起始位置加上RepStride"), `r * stride`
/// otherwise.
fn rep_offset(r: usize, repeats: usize, stride: usize) -> usize {
    if repeats == 1 {
        stride
    } else {
        r * stride
    }
}

/// Checks the element type against the chip and the half flags against the type.
#[track_caller]
fn check_5hd_params<T: TransDataTo5HDElement>(api: &'static str, soc: Soc, p: &TransDataTo5HDParams) {
    ensure(T::trans_data_to_5hd_supported(soc), api, || {
        format!("T = {} is not supported on {soc} ({})", T::DTYPE, soc.product_line())
    });
    if T::SIZE != 1 {
        for (flag, name) in [(p.dst_high_half, "dstHighHalf"), (p.src_high_half, "srcHighHalf")] {
            ensure(!flag, api, || {
                format!("{name} = true is only valid for int8_t / uint8_t, not {}", T::DTYPE)
            });
        }
    }
}

/// Runs `TransDataTo5HD` on checked-for-alignment addresses: bounds, the overlap rules, the
/// sanitizer (with `extra_reads`), then the repeats.
#[track_caller]
fn trans_data_core<T: TransDataTo5HDElement>(
    api: &'static str,
    ub: &Rc<Ub>,
    dst: &Side,
    src: &Side,
    p: &TransDataTo5HDParams,
    extra_reads: &[UbSpan],
) {
    const L: usize = NCHW_CONV_ADDR_LIST_SIZE;
    let repeats = usize::from(p.repeat_times);
    // The bytes of one entry in one repeat: a half block for 8-bit types, else a block.
    let (unit, d_half, s_half) = if T::SIZE == 1 {
        (16, 16 * usize::from(p.dst_high_half), 16 * usize::from(p.src_high_half))
    } else {
        (BLOCK_BYTES, 0, 0)
    };
    let (ds, ss) = (usize::from(p.dst_rep_stride), usize::from(p.src_rep_stride));
    if repeats == 0 {
        return;
    }
    // Bounds: the farthest repeat of every entry (offsets grow with the repeat).
    let last = repeats - 1;
    for (side, name, stride, half) in [(dst, "dstList", ds, d_half), (src, "srcList", ss, s_half)] {
        for k in 0..L {
            let end = side.addr[k] + rep_offset(last, repeats, stride) * BLOCK_BYTES + half + unit;
            ensure(end <= side.limit[k], api, || {
                format!(
                    "{name}[{k}] (address {:#x}) would touch bytes up to {end:#x} but its memory ends at {:#x} \
                     (repeatTimes = {repeats}, {}RepStride = {stride})",
                    side.addr[k],
                    side.limit[k],
                    if name == "dstList" { "dst" } else { "src" }
                )
            });
        }
    }
    let at = |side: &Side, k: usize, r: usize, stride: usize, half: usize| {
        side.addr[k] + rep_offset(r, repeats, stride) * BLOCK_BYTES + half
    };
    // Overlap (the vendor's general rule): inside a repeat, dst and src either share nothing
    // or are the same bytes; no repeat's dst may be a later repeat's src. Checked in 16-byte
    // units over the whole UB.
    let units = |side: &Side, r: usize, stride: usize, half: usize| {
        let mut v: Vec<usize> = Vec::with_capacity(2 * L);
        for k in 0..L {
            let a = at(side, k, r, stride, half) / 16;
            v.extend(a..a + unit / 16);
        }
        v.sort_unstable();
        v.dedup();
        v
    };
    let words = ub.size().div_ceil(16 * 64);
    let mut later_reads = vec![0u64; words];
    for r in (0..repeats).rev() {
        let (du, su) = (units(dst, r, ds, d_half), units(src, r, ss, s_half));
        let shared = du.iter().any(|u| su.binary_search(u).is_ok());
        ensure(!shared || du == su, api, || {
            format!(
                "in repeat {r}, the dst blocks and the src blocks partially overlap; inside one repeat they must be \
                 the same bytes or share none"
            )
        });
        if let Some(u) = du.iter().find(|&&u| later_reads[u / 64] >> (u % 64) & 1 == 1) {
            let at_byte = u * 16;
            fail(
                api,
                format!(
                    "repeat {r} writes dst bytes at {at_byte:#x} that a later repeat reads as src; a repeat's dst may \
                     not overlap a later repeat's src"
                ),
            );
        }
        for u in su {
            later_reads[u / 64] |= 1 << (u % 64);
        }
    }
    // The sanitizer: every touched range, merged where contiguous.
    let spans = |side: &Side, stride: usize, half: usize| {
        let mut v: Vec<UbSpan> = Vec::new();
        for k in 0..L {
            for r in 0..repeats {
                let a = at(side, k, r, stride, half);
                match v.last_mut() {
                    Some(l) if l.0 == side.tag[k] && l.2 == a => l.2 = a + unit,
                    _ => v.push((side.tag[k], a, a + unit)),
                }
            }
        }
        v
    };
    let mut reads = spans(src, ss, s_half);
    reads.extend_from_slice(extra_reads);
    crate::observe::events::on_vector(api, &reads, &spans(dst, ds, d_half));
    let base = ub.base();
    let size = T::SIZE;
    let mut tile = [[0u8; BLOCK_BYTES]; L];
    for r in 0..repeats {
        for (k, t) in tile.iter_mut().enumerate() {
            // SAFETY: every unit of every repeat lies inside the UB (bounds checked above:
            // each limit is at most the UB size).
            unsafe {
                std::ptr::copy_nonoverlapping(base.add(at(src, k, r, ss, s_half)), t.as_mut_ptr(), unit)
            };
        }
        for i in 0..L {
            let mut out = [0u8; BLOCK_BYTES];
            match size {
                // Byte k of entry i is byte i of (the chosen half of) src block k.
                1 => (0..L).for_each(|k| out[k] = tile[k][i]),
                // Element k of dst block i is element i of src block k.
                2 => (0..L).for_each(|k| out[2 * k..2 * k + 2].copy_from_slice(&tile[k][2 * i..2 * i + 2])),
                // dst blocks 2j and 2j + 1 hold element j of src blocks 0..8 and 8..16.
                _ => {
                    let (j, h) = (i / 2, i % 2);
                    for e in 0..8 {
                        out[4 * e..4 * e + 4].copy_from_slice(&tile[8 * h + e][4 * j..4 * j + 4]);
                    }
                }
            }
            // SAFETY: as above; `out` is a stack buffer. Entries are written in list order,
            // so of two entries naming the same block the later wins.
            unsafe { std::ptr::copy_nonoverlapping(out.as_ptr(), base.add(at(dst, i, r, ds, d_half)), unit) };
        }
    }
}

/// Checks that a list entry is a 32-byte aligned UB address.
#[track_caller]
fn check_entry(api: &'static str, name: &str, k: usize, addr: usize, ub_size: usize) {
    ensure(addr % BLOCK_BYTES == 0, api, || {
        format!("{name}[{k}] address = {addr:#x} is not 32-byte aligned")
    });
    ensure(addr < ub_size, api, || {
        format!("{name}[{k}] address = {addr:#x} is outside the Unified Buffer ({ub_size:#x} bytes)")
    });
}

/// `TransDataTo5HD` with lists of tensors (AscendC `TransDataTo5HD(dstList, srcList,
/// nchwconvParams)`): the NCHW → NC1HWC0 conversion instruction, a transpose of 16 data
/// blocks per repeat.
///
/// Entry `k` of a list names a 32-byte block; repeat `r` uses the block `off(r)` blocks after
/// it, where `off(r) = r * repStride` — except that with `repeatTimes = 1` the one repeat
/// uses `off = repStride` (the vendor documents this; pass a stride of 0 for the listed
/// blocks themselves). In each repeat, with `s_k` the 16 source blocks and `d_i` the 16
/// destination blocks:
/// - 16-bit types: element `k` of `d_i` is element `i` of `s_k` (a 16×16 transpose);
/// - 32-bit types: `d_{2j}` holds element `j` of `s_0 .. s_7` and `d_{2j+1}` element `j` of
///   `s_8 .. s_15` (a 16×8 matrix becomes 8 rows of 16);
/// - 8-bit types: byte `k` of the chosen half (`dstHighHalf`) of `d_i` is byte `i` of the
///   chosen half (`srcHighHalf`) of `s_k`; the other half of `d_i` is left as it is.
///
/// The blocks need not be contiguous. Overlap follows the vendor's general rule: inside a
/// repeat the source and destination bytes are either identical (in place) or disjoint, and
/// no repeat may write what a later repeat reads. Two destination entries naming the same
/// block: the later entry wins (the docs are silent; this is the order the emulation
/// writes). Supported on every chip (32-bit types not on Ascend910).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 512);
/// pipe.init_tbuf(&mut b, 512);
/// let (src, dst) = (a.get::<u16>(), b.get::<u16>());
/// src.copy_from_slice(&(0..256).collect::<Vec<u16>>());
/// let dst_list: [LocalTensor<u16>; 16] = std::array::from_fn(|i| dst.view(16 * i));
/// let src_list: [LocalTensor<u16>; 16] = std::array::from_fn(|i| src.view(16 * i));
/// trans_data_to_5hd(&dst_list, &src_list, &TransDataTo5HDParams::new(false, false, 1, 0, 0));
/// assert_eq!(dst.to_vec()[..3], [0, 16, 32]);
/// ```
///
/// # Panics
/// Panics if the chip lacks `T`; a high-half flag is set for a type wider than 8 bits; an
/// entry is not a 32-byte aligned UB tensor or a repeat reaches past its end; the tensors
/// are not in one Unified Buffer; or the overlap rule is broken.
#[track_caller]
pub fn trans_data_to_5hd<T: TransDataTo5HDElement>(
    dst_list: &[LocalTensor<T>; NCHW_CONV_ADDR_LIST_SIZE],
    src_list: &[LocalTensor<T>; NCHW_CONV_ADDR_LIST_SIZE],
    nchwconv_params: &TransDataTo5HDParams,
) {
    const API: &str = "TransDataTo5HD";
    check_5hd_params::<T>(API, get_soc(), nchwconv_params);
    let ub = Rc::clone(dst_list[0].ub());
    let side = |list: &[LocalTensor<T>; NCHW_CONV_ADDR_LIST_SIZE], name: &str| {
        for (k, t) in list.iter().enumerate() {
            let pos = t.get_position();
            ensure(pos.is_ub(), API, || {
                format!(
                    "{name}[{k}] is at position {pos}: TransDataTo5HD takes VECIN, VECOUT or VECCALC tensors"
                )
            });
            ensure(Rc::ptr_eq(t.ub(), &ub), API, || {
                format!("{name}[{k}] is in another Unified Buffer than {name}[0]")
            });
            check_entry(API, name, k, t.get_phy_addr(), ub.size());
        }
        Side {
            addr: std::array::from_fn(|k| list[k].get_phy_addr()),
            limit: std::array::from_fn(|k| list[k].byte_range(list[k].get_size()).1),
            tag: std::array::from_fn(|k| list[k].tag),
        }
    };
    let (d, s) = (side(dst_list, "dstList"), side(src_list, "srcList"));
    trans_data_core::<T>(API, &ub, &d, &s, nchwconv_params, &[]);
}

/// `TransDataTo5HD` with lists of UB addresses (AscendC `TransDataTo5HD<T>(uint64_t
/// dstList[16], uint64_t srcList[16], nchwconvParams)`), each the byte address a tensor's
/// `get_phy_addr()` gives. The semantics are [`trans_data_to_5hd`]'s; an entry may reach any
/// byte of the Unified Buffer.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 512);
/// pipe.init_tbuf(&mut b, 512);
/// let (src, dst) = (a.get::<i32>(), b.get::<i32>());
/// src.copy_from_slice(&(0..128).collect::<Vec<i32>>());
/// let dl: [u64; 16] = std::array::from_fn(|i| dst.view(8 * i).get_phy_addr() as u64);
/// let sl: [u64; 16] = std::array::from_fn(|i| src.view(8 * i).get_phy_addr() as u64);
/// trans_data_to_5hd_addr::<i32>(&dl, &sl, &TransDataTo5HDParams::new(false, false, 1, 0, 0));
/// // Row 0 of the 8x16 result: element 0 of the 16 source blocks.
/// assert_eq!(dst.to_vec()[..16], (0..16).map(|k| 8 * k).collect::<Vec<i32>>()[..]);
/// ```
///
/// # Panics
/// As [`trans_data_to_5hd`], with "outside the Unified Buffer" in place of a tensor's end.
#[track_caller]
pub fn trans_data_to_5hd_addr<T: TransDataTo5HDElement>(
    dst_list: &[u64; NCHW_CONV_ADDR_LIST_SIZE],
    src_list: &[u64; NCHW_CONV_ADDR_LIST_SIZE],
    nchwconv_params: &TransDataTo5HDParams,
) {
    const API: &str = "TransDataTo5HD";
    check_5hd_params::<T>(API, get_soc(), nchwconv_params);
    let ub = with_core(|c| Rc::clone(&c.ub));
    let (d, s) = (addr_side(API, &ub, dst_list, "dstList"), addr_side(API, &ub, src_list, "srcList"));
    trans_data_core::<T>(API, &ub, &d, &s, nchwconv_params, &[]);
}

/// The side of a list of raw addresses (untracked by the sanitizer's handle checks).
#[track_caller]
fn addr_side(api: &'static str, ub: &Rc<Ub>, list: &[u64; NCHW_CONV_ADDR_LIST_SIZE], name: &str) -> Side {
    let size = ub.size();
    let mut addr = [0usize; NCHW_CONV_ADDR_LIST_SIZE];
    for (k, &a) in list.iter().enumerate() {
        let a = usize::try_from(a).unwrap_or(usize::MAX);
        check_entry(api, name, k, a, size);
        addr[k] = a;
    }
    Side { addr, limit: [size; NCHW_CONV_ADDR_LIST_SIZE], tag: [0; NCHW_CONV_ADDR_LIST_SIZE] }
}

/// Packs addresses `4i .. 4i + 4` of an address tensor into the address-register format: the
/// 32-byte block number (13 bits) of each in 16 bits.
fn va_pack(a: &[u64]) -> u64 {
    a.iter().enumerate().fold(0, |acc, (j, &x)| acc | (((x >> 5) & 0x1fff) << (16 * j)))
}

/// `TransDataTo5HD` with the addresses in UB tensors (AscendC `TransDataTo5HD<T>(const
/// LocalTensor<uint64_t>& dst, const LocalTensor<uint64_t>& src, nchwconvParams)`): `dst` and
/// `src` hold the 16 byte addresses (as `get_phy_addr()` gives them); the semantics are
/// [`trans_data_to_5hd`]'s. Ascend910B, Ascend310P and Ascend310B (not Ascend910).
///
/// As the vendor's implementation does on the chip
/// (`impl/basic_api/kernel_operator_vec_transpose_intf_impl.h`), the call first rewrites
/// elements `0..4` of both tensors in place with scalar instructions (pipe S): element `i`
/// becomes the address-register word packing entries `4i .. 4i + 4`, each as its 13-bit
/// 32-byte block number in 16 bits. Then it synchronises S → V itself (`SetFlag`/`WaitFlag
/// <HardEvent::S_V>` on an id that is not pending — the vendor fetches one from the pipe) and
/// issues the vector instruction, which reads the packed words. So the tensors no longer hold
/// the addresses afterwards: fill them again before another call. Because of the rewrite,
/// `dst` and `src` must be different tensors (their 16 entries may not share a byte; the docs
/// are silent).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut l) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 512);
/// pipe.init_tbuf(&mut b, 512);
/// pipe.init_tbuf(&mut l, 256);
/// let (src, dst, lists) = (a.get::<f16>(), b.get::<f16>(), l.get::<u64>());
/// src.copy_from_slice(&(0..256).map(|i| f16::from_f32(i as f32)).collect::<Vec<_>>());
/// let (dl, sl) = (lists.view_len(0, 16), lists.view_len(16, 16));
/// for i in 0..16 {
///     dl.set_value(i, dst.view(16 * i).get_phy_addr() as u64);
///     sl.set_value(i, src.view(16 * i).get_phy_addr() as u64);
/// }
/// trans_data_to_5hd_addr_tensor::<f16>(&dl, &sl, &TransDataTo5HDParams::default());
/// assert_eq!(dst.get_value(1).to_f32(), 16.0);
/// ```
///
/// # Panics
/// Panics on Ascend910; if `dst` or `src` is not a 32-byte aligned UB tensor of at least 16
/// elements, or they share a byte among their 16 entries; and as
/// [`trans_data_to_5hd_addr`] for the addresses they hold.
#[track_caller]
pub fn trans_data_to_5hd_addr_tensor<T: TransDataTo5HDElement>(
    dst: &LocalTensor<u64>,
    src: &LocalTensor<u64>,
    nchwconv_params: &TransDataTo5HDParams,
) {
    const API: &str = "TransDataTo5HD";
    const L: usize = NCHW_CONV_ADDR_LIST_SIZE;
    let soc = get_soc();
    ensure(soc != Soc::Ascend910, API, || {
        format!(
            "TransDataTo5HD with the addresses in LocalTensor<uint64_t> is not supported on {soc} ({}); pass the \
             addresses as an array",
            soc.product_line()
        )
    });
    check_5hd_params::<T>(API, soc, nchwconv_params);
    for (t, name) in [(dst, "dst"), (src, "src")] {
        t.check_vector_operand(API, name);
        ensure(t.get_size() >= L, API, || {
            format!("{name} holds {} addresses but TransDataTo5HD reads {L}", t.get_size())
        });
    }
    let (rd, rs) = (dst.byte_range(L), src.byte_range(L));
    ensure(!ranges_meet(dst, rd, src, rs), API, || {
        format!(
            "dst (bytes {:#x}..{:#x}) and src (bytes {:#x}..{:#x}) share bytes; TransDataTo5HD rewrites both address \
             tensors in place, so they must be different",
            rd.0, rd.1, rs.0, rs.1
        )
    });
    // Pipe S: read the 16 addresses of each and write the 4 packed register words, in the
    // vendor's order.
    let (mut da, mut sa) = ([0u64; L], [0u64; L]);
    for i in 0..L / 4 {
        for j in 0..4 {
            da[4 * i + j] = dst.get_value(4 * i + j);
        }
        dst.set_value(i, va_pack(&da[4 * i..4 * i + 4]));
        for j in 0..4 {
            sa[4 * i + j] = src.get_value(4 * i + j);
        }
        src.set_value(i, va_pack(&sa[4 * i..4 * i + 4]));
    }
    let ub = with_core(|c| Rc::clone(&c.ub));
    let (d, s) = (addr_side(API, &ub, &da, "dst"), addr_side(API, &ub, &sa, "src"));
    // The vendor's S -> V synchronisation between the rewrite and the instruction.
    let e = <crate::sync::event::HardEvent::S_V as crate::sync::event::Event>::EVENT;
    let busy =
        with_core(|c| c.sync.borrow().pending().iter().filter(|p| p.0 == e).fold(0u32, |m, p| m | 1 << p.1));
    let max = crate::sync::event::que_max_event(soc) as u32;
    let id = busy.trailing_ones();
    ensure(id < max, API, || {
        format!("every id of {e} is set and not yet waited for; TransDataTo5HD needs one")
    });
    crate::sync::flags::set_flag_event(e, id as crate::sync::event::TEventID);
    crate::sync::flags::wait_flag_event(e, id as crate::sync::event::TEventID);
    // Pipe V: the instruction loads the packed words (32 bytes of each tensor).
    let extra = [span_of(dst, 32), span_of(src, 32)];
    trans_data_core::<T>(API, &ub, &d, &s, nchwconv_params, &extra);
}
