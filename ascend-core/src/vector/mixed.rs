//! The mixed-precision elementwise forms, `half` operands into a `float` destination:
//! `Axpy` (`dst = src * scalar + dst`) and `MulAddDst` (`dst = src0 * src1 + dst`).
//!
//! The vendor lists `src = half, scalarValue = half, dst = float` (PAR 64) for `Axpy` on every
//! modelled chip, and `src0 = src1 = half, dst = float` (PAR 64) for `MulAddDst` on Ascend910B
//! and Ascend310P (Ascend310B lists only same-type `MulAddDst`; Ascend910 has no `MulAddDst`).
//! The mask and the repeat count `float` lanes (64 per repeat; the implementation sets the
//! mask with the `float` type): lane `j` of repeat `r` reads each source's `half` element with
//! that source's own block and repeat strides and updates `dst`'s `float` element with
//! `dst`'s, so a contiguous walk has `dst` repeat stride 8 and source repeat stride 4 — the
//! vendor's examples ("each repeat takes the first 4 data blocks of the source"). The walk is
//! the engine's two-type walk, the one `Cast` uses.
//!
//! Rounding: the same-type forms round the product to the type and then the sum. Here the
//! product of two `half` values is exact in `float` (at most 22 significant bits, no overflow
//! or underflow), so rounding it to `float` changes nothing and the result is
//! `a·b + dst` rounded once to `float` (nearest-even; `float` ignores the saturation mode, as
//! documented). The vendor's docs do not spell out the mixed forms' intermediate; this is the
//! model, and it agrees with "round the product to the destination type, then the sum".
//! Overlap: none at all between `dst` and a source (the docs: "src half, dst float: address
//! overlap is not supported"); the two `MulAddDst` sources may overlap each other.

use core::mem::MaybeUninit;

use crate::element::f16;
use crate::kernel::ctx::get_soc;
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::soc::Soc;
use crate::vector::engine::{apply_count_mixed, apply_mixed, MixedLanes, Operand};
use crate::vector::mask::{resolve, Mask};
use crate::vector::params::{BinaryRepeatParams, UnaryRepeatParams};

const AXPY: &str = "Axpy";
const MUL_ADD_DST: &str = "MulAddDst";

/// The lane operation `dst = a * b + dst` on `half` sources and a `float` destination: with
/// one source `b` is the scalar (kept in `f32`, exact), with two it is the second source.
struct MulAddMixed<const N: usize>(f32);

/// Lanes per stack chunk: the `half` sources are widened in bulk (F16C where the host has it).
const CHUNK: usize = 512;

impl<const N: usize> MulAddMixed<N> {
    /// # Safety
    /// `dst` is valid for `n` reads and writes, each `src[k]` for `n` reads, and `dst`
    /// overlaps no source (the engine rejects any overlap of different-size operands).
    #[inline(always)]
    unsafe fn go(&self, dst: *mut f32, src: [*const f16; N], n: usize) {
        const { assert!(N == 1 || N == 2) };
        let mut w = [[MaybeUninit::<f32>::uninit(); CHUNK]; N];
        let p: [*mut f32; N] = core::array::from_fn(|k| w[k].as_mut_ptr().cast::<f32>());
        let mut done = 0;
        while done < n {
            let len = CHUNK.min(n - done);
            for k in 0..N {
                // SAFETY: src[k] is valid for n reads; the scratch is a distinct stack buffer
                // of CHUNK >= len elements.
                unsafe { crate::f16conv::widen(src[k].add(done), p[k], len) };
            }
            // SAFETY: dst is valid for n reads and writes and overlaps neither a source nor the
            // stack scratch, so this is the only reference to these elements; the first len
            // elements of every scratch buffer were initialised by the widening.
            let (d, a, b) = unsafe {
                (
                    core::slice::from_raw_parts_mut(dst.add(done), len),
                    core::slice::from_raw_parts(p[0], len),
                    core::slice::from_raw_parts(p[N - 1], len),
                )
            };
            // `a * b + d` in two IEEE operations (Rust never contracts them into a fused one);
            // the product of two halves is exact in f32.
            if N == 1 {
                let s = self.0;
                for (d, &a) in d.iter_mut().zip(a) {
                    *d += a * s;
                }
            } else {
                for ((d, &a), &b) in d.iter_mut().zip(a).zip(b) {
                    *d += a * b;
                }
            }
            done += len;
        }
    }
}

impl MixedLanes<f32, f16, 1> for MulAddMixed<1> {
    #[inline(always)]
    unsafe fn run(&mut self, dst: *mut f32, src: [*const f16; 1], n: usize) {
        // SAFETY: the engine's contract is `go`'s.
        unsafe { self.go(dst, src, n) }
    }
}

impl MixedLanes<f32, f16, 2> for MulAddMixed<2> {
    #[inline(always)]
    unsafe fn run(&mut self, dst: *mut f32, src: [*const f16; 2], n: usize) {
        // SAFETY: the engine's contract is `go`'s.
        unsafe { self.go(dst, src, n) }
    }
}

/// Checks that the chip has the mixed `MulAddDst`.
#[track_caller]
fn mul_add_dst_soc() {
    let soc = get_soc();
    ensure(matches!(soc, Soc::Ascend910B | Soc::Ascend310P), MUL_ADD_DST, || {
        format!(
            "src0/src1 = half with dst = float is not supported on {soc} ({}); the vendor lists it for Ascend910B and \
             Ascend310P",
            soc.product_line()
        )
    });
}

/// `dst[i] = src[i] * scalar + dst[i]` for `i in 0..count`, a `half` source and scalar into a
/// `float` destination (AscendC `Axpy<float, half>(dst, src, scalarValue, calCount)`).
///
/// The product is exact in `float`; the sum is rounded once to `float` (see the module docs).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 512);
/// pipe.init_tbuf(&mut b, 256);
/// let (dst, src) = (a.get::<f32>(), b.get::<f16>());
/// src.copy_from_slice(&[f16::from_f32(3.0); 128]);
/// dst.copy_from_slice(&[0.5; 128]);
/// // 2048 * 2048 overflows half but not float.
/// src.set_value(0, f16::from_f32(2048.0));
/// axpy_mixed(&dst, &src, f16::from_f32(2048.0), 128);
/// assert_eq!(dst.get_value(0), 4194304.5);
/// assert_eq!(dst.get_value(127), 6144.5);
/// ```
///
/// # Panics
/// Panics if an operand is not a 32-byte aligned VECIN/VECOUT/VECCALC tensor or holds fewer
/// than `count` elements, or if `dst` and `src` overlap at all.
#[track_caller]
pub fn axpy_mixed(dst: &LocalTensor<f32>, src: &LocalTensor<f16>, scalar: f16, count: usize) {
    apply_count_mixed(AXPY, count, dst, [(src, "src")], &mut MulAddMixed::<1>(scalar.to_f32()));
}

/// `dst = src * scalar + dst` over the `float` lanes a mask enables, for `repeat_times`
/// repeats, a `half` source and scalar into a `float` destination (AscendC
/// `Axpy<float, half, isSetMask>(dst, src, scalarValue, mask, repeatTime, repeatParams)`,
/// continuous and bit-mask forms).
///
/// The mask counts `float` lanes (at most 64 per repeat); each operand walks with its own
/// element size and strides, so a contiguous call is `UnaryRepeatParams::new(1, 1, 8, 4)`.
/// Disabled lanes keep their values. Counter mode, `IS_SET_MASK` and `MASK_PLACEHOLDER` work
/// as for every vector instruction ([`sub_masked`](crate::vector::binary::sub_masked)).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 2048);
/// pipe.init_tbuf(&mut b, 1024);
/// let (dst, src) = (a.get::<f32>(), b.get::<f16>());
/// src.copy_from_slice(&[f16::from_f32(1.5); 512]);
/// dst.copy_from_slice(&[1.0; 512]);
/// // The vendor's example: 8 repeats of 64 lanes, dst advances 8 blocks, src 4.
/// axpy_mixed_masked::<true>(&dst, &src, f16::from_f32(2.0), 64u64, 8, &UnaryRepeatParams::new(1, 1, 8, 4));
/// assert!(dst.to_vec().iter().all(|&v| v == 4.0));
/// ```
///
/// # Panics
/// Panics as [`axpy_mixed`], and if the mask is out of range for 64 lanes or breaks the
/// `IS_SET_MASK`/`MASK_PLACEHOLDER` rule, or a touched element lies outside its tensor.
#[track_caller]
pub fn axpy_mixed_masked<const IS_SET_MASK: bool>(
    dst: &LocalTensor<f32>,
    src: &LocalTensor<f16>,
    scalar: f16,
    mask: impl Into<Mask>,
    repeat_times: u8,
    params: &UnaryRepeatParams,
) {
    let Some(plan) = resolve::<f32, IS_SET_MASK>(AXPY, mask.into(), repeat_times as usize) else {
        return;
    };
    let d = Operand::new(dst, params.dst_blk_stride, params.dst_rep_stride, "dst");
    let s = Operand::new(src, params.src_blk_stride, params.src_rep_stride, "src");
    apply_mixed::<f32, f32, f16, 1, _>(AXPY, &plan, &d, [&s], &mut MulAddMixed::<1>(scalar.to_f32()));
}

/// `dst[i] = src0[i] * src1[i] + dst[i]` for `i in 0..count`, `half` sources into a `float`
/// destination (AscendC `MulAddDst<float, half>(dst, src0, src1, calCount)`).
///
/// The product is exact in `float`; the sum is rounded once to `float` (see the module docs).
///
/// ```
/// use ascend_core::prelude::*;
/// run_on_core(CoreConfig::single(Soc::Ascend910B), || {
///     let mut pipe = TPipe::new();
///     let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
///     pipe.init_tbuf(&mut a, 256);
///     pipe.init_tbuf(&mut b, 512);
///     let (x, y, dst) = (a.get_with_offset::<f16>(64, 0), a.get_with_offset::<f16>(64, 128), b.get::<f32>());
///     x.copy_from_slice(&[f16::from_f32(1000.0); 64]);
///     y.copy_from_slice(&[f16::from_f32(1000.0); 64]);
///     dst.copy_from_slice(&[0.25; 128]);
///     mul_add_dst_mixed(&dst, &x, &y, 64);
///     assert_eq!(dst.get_value(0), 1_000_000.25); // beyond half's range
///     assert_eq!(dst.get_value(64), 0.25);
/// });
/// ```
///
/// # Panics
/// Panics if the chip lacks the mixed form (it has it on Ascend910B and Ascend310P), if an
/// operand is not a 32-byte aligned VECIN/VECOUT/VECCALC tensor or holds fewer than `count`
/// elements, or if `dst` overlaps a source at all.
#[track_caller]
pub fn mul_add_dst_mixed(
    dst: &LocalTensor<f32>,
    src0: &LocalTensor<f16>,
    src1: &LocalTensor<f16>,
    count: usize,
) {
    mul_add_dst_soc();
    apply_count_mixed(MUL_ADD_DST, count, dst, [(src0, "src0"), (src1, "src1")], &mut MulAddMixed::<2>(0.0));
}

/// `dst = src0 * src1 + dst` over the `float` lanes a mask enables, for `repeat_times`
/// repeats, `half` sources into a `float` destination (AscendC
/// `MulAddDst<float, half, isSetMask>(dst, src0, src1, mask, repeatTime, repeatParams)`,
/// continuous and bit-mask forms).
///
/// The mask counts `float` lanes (at most 64 per repeat); each operand walks with its own
/// element size and strides, so a contiguous call is `BinaryRepeatParams::new(1, 1, 1, 8, 4,
/// 4)`. Disabled lanes keep their values. Counter mode, `IS_SET_MASK` and `MASK_PLACEHOLDER`
/// work as for every vector instruction ([`sub_masked`](crate::vector::binary::sub_masked)).
///
/// ```
/// use ascend_core::prelude::*;
/// run_on_core(CoreConfig::single(Soc::Ascend310P), || {
///     let mut pipe = TPipe::new();
///     let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
///     pipe.init_tbuf(&mut a, 1024);
///     pipe.init_tbuf(&mut b, 1024);
///     let (x, y, dst) = (a.get_with_offset::<f16>(256, 0), a.get_with_offset::<f16>(256, 512), b.get::<f32>());
///     x.copy_from_slice(&[f16::from_f32(1.5); 256]);
///     y.copy_from_slice(&[f16::from_f32(-2.0); 256]);
///     dst.copy_from_slice(&[1.0; 256]);
///     // The vendor's example: 4 repeats of 64 lanes, dst advances 8 blocks, the sources 4.
///     mul_add_dst_mixed_masked::<true>(&dst, &x, &y, 64u64, 4, &BinaryRepeatParams::new(1, 1, 1, 8, 4, 4));
///     assert!(dst.to_vec().iter().all(|&v| v == -2.0));
/// });
/// ```
///
/// # Panics
/// Panics as [`mul_add_dst_mixed`], and if the mask is out of range for 64 lanes or breaks the
/// `IS_SET_MASK`/`MASK_PLACEHOLDER` rule, or a touched element lies outside its tensor.
#[track_caller]
pub fn mul_add_dst_mixed_masked<const IS_SET_MASK: bool>(
    dst: &LocalTensor<f32>,
    src0: &LocalTensor<f16>,
    src1: &LocalTensor<f16>,
    mask: impl Into<Mask>,
    repeat_times: u8,
    params: &BinaryRepeatParams,
) {
    mul_add_dst_soc();
    let Some(plan) = resolve::<f32, IS_SET_MASK>(MUL_ADD_DST, mask.into(), repeat_times as usize) else {
        return;
    };
    let p = params;
    let d = Operand::new(dst, p.dst_blk_stride, p.dst_rep_stride, "dst");
    let a = Operand::new(src0, p.src0_blk_stride, p.src0_rep_stride, "src0");
    let b = Operand::new(src1, p.src1_blk_stride, p.src1_rep_stride, "src1");
    apply_mixed::<f32, f32, f16, 2, _>(MUL_ADD_DST, &plan, &d, [&a, &b], &mut MulAddMixed::<2>(0.0));
}
