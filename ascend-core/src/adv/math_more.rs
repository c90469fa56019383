//! Bitwise math of the advanced API (the vendor's `adv_api/math`): `Xor` for 16-bit integers,
//! with its host tiling helpers.
//!
//! `Xor` is computed as the vendor writes it, `(x | y) & ~(x & y)`, with the basic `And`, `Or`
//! and `Not` over splits of the temporary buffer: in counter mode with `PipeBarrier<PIPE_V>`s
//! on Ascend910B (`__NPU_ARCH__` 2201) and Ascend310P (2002), with the instructions' count
//! forms on Ascend310B (3002). Ascend910 has no implementation and gets an error naming it.

use crate::ctx::get_soc;
use crate::element::Element;
use crate::error::ensure;
use crate::soc::Soc;
use crate::sync::{pipe_barrier, PIPE_V};
use crate::tensor::LocalTensor;
use crate::vector::binary::{and, and_masked, or, or_masked, AndElement, OrElement};
use crate::vector::mask::MASK_PLACEHOLDER;
use crate::vector::params::{BinaryRepeatParams, UnaryRepeatParams};
use crate::vector::unary::{not, not_masked, NotElement};

use super::{check_apart, counter_rounds, span, split_count, stack_tensor, whole};

mod sealed {
    pub trait Sealed {}
}
impl sealed::Sealed for i16 {}
impl sealed::Sealed for u16 {}

/// Element types of [`xor`]: `int16_t` and `uint16_t` (the vendor's `static_assert`).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<i32>, tmp: &LocalTensor<u8>) { xor::<_, false>(t, t, t, tmp, 8) }
/// ```
pub trait XorElement: Element + AndElement + OrElement + NotElement + sealed::Sealed {}
impl XorElement for i16 {}
impl XorElement for u16 {}

const XOR: &str = "Xor";

/// The chips whose build of the vendor's library implements `Xor` (`__NPU_ARCH__` 2201, 2002
/// and 3002).
const XOR_CHIPS: [Soc; 3] = [Soc::Ascend910B, Soc::Ascend310P, Soc::Ascend310B];

/// The checks of a function with two sources and a scratch: the chip, the operands' positions,
/// `count` against each tensor, and the overlaps the vendor's page forbids (`dst` with either
/// source, the scratch with any operand; the sources may overlap).
#[track_caller]
fn check_binary<T: Element>(
    api: &'static str,
    chips: &[Soc],
    dst: &LocalTensor<T>,
    src0: &LocalTensor<T>,
    src1: &LocalTensor<T>,
    tmp: &LocalTensor<u8>,
    count: usize,
) {
    let soc = get_soc();
    ensure(chips.contains(&soc), api, || {
        format!(
            "{api} has no implementation on {soc} ({}): the vendor's library compiles it to nothing there; it runs \
             on {}",
            soc.product_line(),
            chips.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", ")
        )
    });
    for (name, pos) in [
        ("dst", dst.get_position()),
        ("src0", src0.get_position()),
        ("src1", src1.get_position()),
        ("sharedTmpBuffer", tmp.get_position()),
    ] {
        ensure(pos.is_ub(), api, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
    }
    for (name, size) in
        [("dstTensor", dst.get_size()), ("src0Tensor", src0.get_size()), ("src1Tensor", src1.get_size())]
    {
        ensure(count <= size, api, || {
            format!("calCount = {count} exceeds {name}'s {size} {} elements", T::DTYPE)
        });
    }
    let (d, s0, s1) = (span("dst", dst, count), span("src0", src0, count), span("src1", src1, count));
    let t = whole("sharedTmpBuffer", tmp);
    check_apart(api, &[(d, s0), (d, s1), (t, s0), (t, s1), (t, d)]);
}

// ---------------------------------------------------------------------------------------
// Xor
// ---------------------------------------------------------------------------------------

/// `dst[i] = src0[i] ^ src1[i]` for `i < count`, with `shared_tmp_buffer` as scratch (AscendC
/// `Xor<T, isReuseSource>(dstTensor, src0Tensor, src1Tensor, sharedTmpBuffer, calCount)`).
///
/// As the vendor's implementation, in splits of `stackSize = shared_tmp_buffer.get_size() / 2 /
/// 32 * 32` elements, each: `And(dst, src0, src1)`, `Or(scratch, src0, src1)`, then `Not(dst,
/// dst)` and `And(dst, scratch, dst)`. On Ascend910B and Ascend310P in counter mode (the mask
/// set to the split, then the tail) with `PipeBarrier<PIPE_V>` after the `Or`, the `Not` and the
/// last `And`, normal mode and a reset mask afterwards; on Ascend310B with the instructions'
/// count forms. The vendor's form without `count` is this call with `src0.get_size()`.
/// `IS_REUSE_SOURCE` is reserved: the sources are never written.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 3 * 64);
/// pipe.init_tbuf(&mut tmp, 256);
/// let (a, b, y) = (q.get_with_offset::<i16>(32, 0), q.get_with_offset::<i16>(32, 64), q.get_with_offset::<i16>(32, 128));
/// a.copy_from_slice(&[2, 3, 5, 7, 11, 13, 17, 19].repeat(4));
/// b.copy_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8].repeat(4));
/// xor::<_, false>(&y, &a, &b, &tmp.get::<u8>(), 8);
/// // The page's example (which prints 10 for 13 ^ 6).
/// assert_eq!(y.to_vec()[..8], [3, 1, 6, 3, 14, 11, 22, 27]);
/// ```
///
/// # Panics
/// Panics if the chip has no implementation (Ascend910); `count` exceeds `dst`, `src0` or
/// `src1`; a tensor is not in the Unified Buffer; `dst` overlaps a source or the scratch overlaps
/// any operand (the vendor's page); the scratch holds no split (less than 64 bytes, the vendor's
/// `CheckTmpBufferSize`); or an instruction's own check fails (operands not 32-byte aligned).
#[track_caller]
pub fn xor<T: XorElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src0: &LocalTensor<T>,
    src1: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    count: usize,
) {
    check_binary(XOR, &XOR_CHIPS, dst, src0, src1, shared_tmp_buffer, count);
    let split = split_count(XOR, shared_tmp_buffer, T::SIZE, 1);
    let tmp = shared_tmp_buffer.reinterpret_cast::<T>();
    if get_soc() == Soc::Ascend310B {
        let (loops, tail) = (count / split, count % split);
        let round = |off: usize, n: usize| {
            let (d, a, b) = (dst.view(off), src0.view(off), src1.view(off));
            and(&d, &a, &b, n);
            or(&tmp, &a, &b, n);
            not(&d, &d, n);
            and(&d, &tmp, &d, n);
        };
        for i in 0..loops {
            round(i * split, split);
        }
        if tail > 0 {
            round(loops * split, tail);
        }
        return;
    }
    let (bin, un) = (BinaryRepeatParams::default(), UnaryRepeatParams::default());
    counter_rounds::<T>(
        count,
        split,
        |t| t,
        |off, _| {
            let (d, a, b) = (dst.view(off), src0.view(off), src1.view(off));
            and_masked::<T, false>(&d, &a, &b, MASK_PLACEHOLDER, 1, &bin);
            or_masked::<T, false>(&tmp, &a, &b, MASK_PLACEHOLDER, 1, &bin);
            pipe_barrier::<PIPE_V>();
            not_masked::<T, false>(&d, &d, MASK_PLACEHOLDER, 1, &un);
            pipe_barrier::<PIPE_V>();
            and_masked::<T, false>(&d, &tmp, &d, MASK_PLACEHOLDER, 1, &bin);
            pipe_barrier::<PIPE_V>();
        },
    );
}

/// [`xor`] with the stack buffer as scratch (AscendC `Xor<T, isReuseSource>(dstTensor,
/// src0Tensor, src1Tensor, calCount)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 3 * 256);
/// let (a, b, y) = (q.get_with_offset::<u16>(128, 0), q.get_with_offset::<u16>(128, 256), q.get_with_offset::<u16>(128, 512));
/// a.copy_from_slice(&[0xFF00u16; 128]);
/// b.copy_from_slice(&[0x0FF0u16; 128]);
/// xor_stack::<_, false>(&y, &a, &b, 128);
/// assert_eq!(y.get_value(127), 0xF0F0);
/// ```
///
/// # Panics
/// As [`xor`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn xor_stack<T: XorElement, const IS_REUSE_SOURCE: bool>(
    dst: &LocalTensor<T>,
    src0: &LocalTensor<T>,
    src1: &LocalTensor<T>,
    count: usize,
) {
    xor::<T, IS_REUSE_SOURCE>(dst, src0, src1, &stack_tensor(XOR), count);
}

/// The scratch bytes `Xor` needs: `(max, min)` (AscendC `GetXorMaxMinTmpSize`): `min` is one
/// repeat, 256 bytes; `max` the source's bytes, at least `min`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_xor_max_min_tmp_size(1024, 2, false), (2048, 256));
/// assert_eq!(get_xor_max_min_tmp_size(16, 2, false), (256, 256));
/// ```
///
/// # Panics
/// Panics if `input_size` is 0 (the vendor's host check). `type_size` is not checked (the
/// vendor's helper takes any).
#[track_caller]
pub fn get_xor_max_min_tmp_size(
    input_size: usize,
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let _ = is_reuse_source;
    ensure(input_size > 0, "GetXorMaxMinTmpSize", || {
        "the source shape has no elements; its size must be greater than 0".into()
    });
    let min = 256;
    ((input_size * type_size).max(min), min)
}

/// `Xor`'s `(maxLiveNodeCount, extraBuf)` (AscendC `GetXorTmpBufferFactorSize`): `(1, 0)` for
/// any `type_size`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_xor_tmp_buffer_factor_size(2), (1, 0));
/// ```
///
/// # Panics
/// Never panics.
pub fn get_xor_tmp_buffer_factor_size(type_size: usize) -> (usize, usize) {
    let _ = type_size;
    (1, 0)
}
