//! 16×16 matrix transposes of 16-bit elements: TIK's [`vec_trans`] (with repeats and strides)
//! and AscendC's single-matrix [`transpose`].
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

use crate::element::{f16, Element};
use crate::error::{ensure, fail};
use crate::tensor::LocalTensor;
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
    let in_place = d0 == s0 && dst_stride == src_stride;
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
    crate::sanitizer::on_vector(api, &[span(src, src_stride)], &[span(dst, dst_stride)]);
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
