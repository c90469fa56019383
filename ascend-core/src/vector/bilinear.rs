//! `BilinearInterpolation`: gather 32-byte blocks of `src0` by byte offset, multiply them by
//! weights from `src1`, sum each run of `hRepeat` repeats and write the sums `vROffset`
//! elements apart (the ISASI form; `half` only).
//!
//! On Ascend910B the vendor has no instruction for it: its implementation
//! (`impl/basic_api/dav_c220/kernel_operator_vec_bilinearinterpolation_impl.h`) composes
//! documented instructions, and [`bilinear_interpolation`] runs that composition step by step
//! through this crate's own instructions, so its results are theirs bit for bit:
//!
//! 1. `Gatherb` (as `uint16_t`) of `hRepeat * vRepeat` repeats into the start of
//!    `sharedTmpBuffer`: repeat `k`, block `b` is the 32 bytes of `src0` at byte
//!    `src0Offset[8k + b]`;
//! 2. `Brcb` of `src1` (`src1.GetSize() / 8` repeats) right after them: block `q` of that area
//!    holds `src1[q]` 16 times;
//! 3. `PipeBarrier<PIPE_V>`; in counter mode over `hRepeat * vRepeat * 128` elements,
//!    `Mul<half, false>` of the gathered data by the broadcast weights, in place: with
//!    `repeatMode = false` the weights' block stride is 0 and repeat stride 1 (repeat `k` is
//!    multiplied by `src1[k]`), with `repeatMode = true` the defaults (block `b` of repeat `k`
//!    by `src1[8k + b]`); then `SetMaskNorm`, `ResetMask`, `PipeBarrier<PIPE_V>`;
//! 4. for each vertical repeat `i` with `hRepeat > 1`, one `Add` of `hRepeat - 1` repeats with
//!    the call's mask whose `dst` and `src1` are the group's first repeat with a repeat stride
//!    of 0 and whose `src0` walks the group's other repeats: the repeats run in order, each
//!    reading the sum the previous one wrote, so the group is summed left to right, rounded to
//!    `half` after every addition; then `PipeBarrier<PIPE_V>`;
//! 5. `Adds` of `+0` with the call's mask and `vRepeat` repeats from each group's first repeat
//!    (`srcRepStride = hRepeat * 8`) into `dst` (`dstBlkStride`, `dstRepStride = vROffset / 16`
//!    blocks). A `-0` sum therefore comes out `+0`.
//!
//! Every product and sum is one `half` rounding, under the core's overflow mode. The call
//! leaves the core in normal mask mode with the call's mask in the mask register (the last
//! `Adds` loaded it), as the vendor's code does. The composed instructions report errors and
//! their sanitizer accesses as `BilinearInterpolation`.
//!
//! Ascend310P runs a native `vbi` instruction whose arithmetic (the products' and sums' order
//! and rounding) the vendor does not document, so it is not modelled; Ascend910 and
//! Ascend310B do not have the API. All three are run-time errors naming the chip.

use crate::element::{f16, BLOCKS_PER_REPEAT, BLOCK_BYTES};
use crate::kernel::ctx::get_soc;
use crate::kernel::error::{ensure, fail};
use crate::memory::tensor::LocalTensor;
use crate::soc::Soc;
use crate::sync::{event::PIPE_V, flags::pipe_barrier};
use crate::vector::binary::{binary_masked_as, AddElement, AddOp, MulElement, MulOp};
use crate::vector::brcb::{brcb_as, BrcbRepeatParams};
use crate::vector::gatherb::{gatherb_as, GatherRepeatParams};
use crate::vector::mask::{
    normal_bits, reset_mask, set_mask_count, set_mask_norm, set_vector_mask_hi_lo, Mask, MASK_PLACEHOLDER,
};
use crate::vector::params::{BinaryRepeatParams, UnaryRepeatParams};
use crate::vector::scalar::adds_masked_as;

const API: &str = "BilinearInterpolation";

/// `half` elements in one repeat (8 blocks of 32 bytes).
const PAR: usize = 128;
/// `half` elements in one 32-byte block.
const EPB: usize = 16;
/// The largest value of the 8-bit fields (`uint8_t`) the Ascend910B composition passes its
/// counts and strides through.
const U8_MAX: usize = u8::MAX as usize;

/// Fails unless the current chip runs `BilinearInterpolation` here (Ascend910B).
#[track_caller]
fn check_soc() {
    let soc = get_soc();
    let why = match soc {
        Soc::Ascend910B => return,
        Soc::Ascend310P => {
            "the vendor runs it there as the native vbi instruction, whose arithmetic (the order and \
             rounding of its products and sums) is not documented, so it is not emulated; Ascend910B, where \
             the vendor composes it from Gatherb, Brcb, Mul, Add and Adds, is"
        }
        Soc::Ascend910 | Soc::Ascend310B => "the vendor does not support it on this chip",
    };
    fail(API, format!("BilinearInterpolation is not supported on {soc} ({}): {why}", soc.product_line()))
}

/// Fails if two of the byte ranges overlap (empty ranges overlap nothing).
#[track_caller]
fn check_disjoint(what: &[(&str, (usize, usize))], rule: &str) {
    for (i, &(a, (a0, a1))) in what.iter().enumerate() {
        for &(b, (b0, b1)) in &what[i + 1..] {
            ensure(a1 <= b0 || b1 <= a0 || a0 == a1 || b0 == b1, API, || {
                format!("{a} (bytes {a0:#x}..{a1:#x}) overlaps {b} (bytes {b0:#x}..{b1:#x}); {rule}")
            });
        }
    }
}

/// Fails if two vertical repeats of `dst` write the same 32-byte block: repeat `r` writes the
/// enabled blocks `b` of the mask at block `r * rep + b * blk` (the docs: "the destinations
/// of two vertical repeats may not overlap").
#[track_caller]
fn check_vertical_repeats(bits: [u64; 2], v_repeat: usize, blk: usize, v_r_offset: u16) {
    let rep = usize::from(v_r_offset) / EPB;
    let enabled: Vec<usize> =
        (0..BLOCKS_PER_REPEAT).filter(|&b| (bits[b / 4] >> (EPB * (b % 4))) & 0xFFFF != 0).collect();
    let mut marks: Vec<(usize, usize)> =
        (0..v_repeat).flat_map(|r| enabled.iter().map(move |&b| (r * rep + b * blk, r))).collect();
    marks.sort_unstable();
    for w in marks.windows(2) {
        let ((k, r0), (k1, r1)) = (w[0], w[1]);
        ensure(k != k1 || r0 == r1, API, || {
            format!(
                "vertical repeats {r0} and {r1} both write dst block {k} (elements {}..{}): with dstBlkStride = \
                 {blk} and the mask's blocks, vROffset = {v_r_offset} starts each repeat only {rep} blocks after the \
                 previous one; the destinations of two vertical repeats may not overlap",
                k * EPB,
                (k + 1) * EPB
            )
        });
    }
}

/// Bilinear interpolation by gathered blocks (AscendC `BilinearInterpolation(dst, src0,
/// src0Offset, src1, mask, hRepeat, repeatMode, dstBlkStride, vROffset, vRepeat,
/// sharedTmpBuffer)`, continuous and bit-mask forms; Ascend910B).
///
/// With `n = hRepeat * vRepeat` gathered repeats — repeat `k`, block `b` being the 32 bytes of
/// `src0` at byte `src0_offset[8k + b]` — and the weight of block `b` of repeat `k` being
/// `src1[k]` (`repeat_mode = false`) or `src1[8k + b]` (`repeat_mode = true`): for each
/// vertical repeat `i` and each lane `j` the mask enables,
/// `dst[i * v_r_offset + (j / 16) * dst_blk_stride * 16 + j % 16]` becomes
/// `(((g[i h] · w) + g[i h + 1] · w) + …) + 0`, the sum of the `hRepeat` weighted repeats of
/// the group in order, every product and sum rounded to `half` (the module docs list the
/// instructions the vendor composes it from). Lanes the mask disables keep their values.
///
/// `mask` is a `u64` (lanes `0..mask`, `1..=128`) or a `[u64; 2]` (bit mode).
/// `shared_tmp_buffer` needs at least `(src0.get_size() + src1.get_size()) * 32` bytes, as the
/// vendor documents for Ascend910B; its contents afterwards are the composition's scratch.
/// The call leaves normal mask mode with `mask` in the mask register.
///
/// ```
/// use ascend_core::prelude::*;
/// // The vendor's worked example: src0 = 1..=512, 32 offsets 0, 32, …, 992 (the first 32
/// // blocks in order), src1 = 2..=17, hRepeat = vRepeat = 2, mask = 128, vROffset = 128.
/// let mut pipe = TPipe::new();
/// let mut b = [(); 5].map(|_| TBuf::<VecCalc>::new());
/// for (buf, bytes) in b.iter_mut().zip([512, 1024, 128, 32, 16896]) {
///     pipe.init_tbuf(buf, bytes);
/// }
/// let (dst, src0, src1) = (b[0].get::<f16>(), b[1].get::<f16>(), b[3].get::<f16>());
/// let (offsets, tmp) = (b[2].get::<u32>(), b[4].get::<u8>());
/// src0.copy_from_slice(&(1..=512).map(|i| f16::from_f32(i as f32)).collect::<Vec<_>>());
/// offsets.copy_from_slice(&(0..32).map(|i| 32 * i).collect::<Vec<u32>>());
/// src1.copy_from_slice(&(2..=17).map(|i| f16::from_f32(i as f32)).collect::<Vec<_>>());
/// bilinear_interpolation(&dst, &src0, &offsets, &src1, 128u64, 2, false, 1, 128, 2, &tmp);
/// // dst[j] = (j + 1) * 2 + (j + 129) * 3, dst[128 + j] = (j + 257) * 4 + (j + 385) * 5.
/// let head: Vec<f32> = dst.to_vec()[..4].iter().map(|v| v.to_f32()).collect();
/// assert_eq!(head, [389.0, 394.0, 399.0, 404.0]);
/// assert_eq!(dst.get_value(255).to_f32(), 4096.0);
/// ```
///
/// Only `half` exists; other element types do not compile:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<f32>, o: &LocalTensor<u32>, tmp: &LocalTensor<u8>) {
///     bilinear_interpolation(t, t, o, t, 64u64, 1, false, 1, 128, 1, tmp);
/// }
/// ```
///
/// # Panics
/// Panics (naming `BilinearInterpolation`, the parameter, its value and the limit):
/// - on Ascend310P (its native `vbi` is not documented), Ascend910 and Ascend310B;
/// - if an operand is not a VECIN/VECOUT/VECCALC tensor or not 32-byte aligned;
/// - if `h_repeat` or `v_repeat` is 0, or `v_r_offset` is below 128 or not a multiple of 16
///   (`vROffset * sizeof(half)` whole 32-byte blocks);
/// - if the mask is out of range (a count outside `1..=128`, a bit mask of zeros);
/// - where the Ascend910B implementation would pass a value through an 8-bit field and lose
///   it: `h_repeat * v_repeat` above 255, `h_repeat` above 31 (`Adds`'s `srcRepStride =
///   hRepeat * 8`), `v_r_offset` above 4080 (`dstRepStride = vROffset / 16`),
///   `src1.get_size() / 8` above 255 (`Brcb`'s `repeatTime`);
/// - if `src0_offset` holds fewer than `8 * h_repeat * v_repeat` offsets, or one of them is
///   not a multiple of 32 with its block inside `src0`;
/// - if `src1` (its whole groups of 8 elements, which `Brcb` broadcasts) holds fewer than
///   `h_repeat * v_repeat` weights (`repeat_mode = false`) or `8 * h_repeat * v_repeat`
///   (`repeat_mode = true`);
/// - if `shared_tmp_buffer` holds fewer than `(src0.get_size() + src1.get_size()) * 32` bytes
///   (the documented size) or than the composition uses: 256 bytes per gathered repeat plus
///   256 per `Brcb` repeat of `src1`;
/// - if `src0`, the used offsets and the used elements of `src1` overlap each other or the
///   used bytes of `shared_tmp_buffer`;
/// - if two vertical repeats write the same block of `dst`, a `dst` element lies outside
///   `dst`, or `dst` overlaps the summed blocks of `shared_tmp_buffer` other than completely.
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn bilinear_interpolation(
    dst: &LocalTensor<f16>,
    src0: &LocalTensor<f16>,
    src0_offset: &LocalTensor<u32>,
    src1: &LocalTensor<f16>,
    mask: impl Into<Mask>,
    h_repeat: u8,
    repeat_mode: bool,
    dst_blk_stride: u16,
    v_r_offset: u16,
    v_repeat: u8,
    shared_tmp_buffer: &LocalTensor<u8>,
) {
    check_soc();
    dst.check_vector_operand(API, "dst");
    src0.check_vector_operand(API, "src0");
    src0_offset.check_vector_operand(API, "src0Offset");
    src1.check_vector_operand(API, "src1");
    shared_tmp_buffer.check_vector_operand(API, "sharedTmpBuffer");

    // The documented ranges (the interface's checks).
    ensure(h_repeat >= 1, API, || format!("hRepeat = {h_repeat} is out of range [1, 255]"));
    ensure(v_repeat >= 1, API, || format!("vRepeat = {v_repeat} is out of range [1, 255]"));
    ensure(v_r_offset >= 128, API, || format!("vROffset = {v_r_offset} is out of range [128, 65535]"));
    ensure(usize::from(v_r_offset) % EPB == 0, API, || {
        format!(
            "vROffset = {v_r_offset} is not a multiple of 16: vROffset * sizeof(half) must be whole 32-byte blocks"
        )
    });
    let mask = mask.into();
    let bits = normal_bits::<f16>(API, mask);

    // What the Ascend910B composition can express: it passes these through 8-bit fields.
    let (h, v) = (usize::from(h_repeat), usize::from(v_repeat));
    let n = h * v;
    ensure(n <= U8_MAX, API, || {
        format!(
            "hRepeat * vRepeat = {h_repeat} * {v_repeat} = {n} exceeds 255: the Ascend910B implementation counts \
             the gathered repeats in a uint8_t (innerRepeatTimes)"
        )
    });
    ensure(h * BLOCKS_PER_REPEAT <= U8_MAX, API, || {
        format!(
            "hRepeat = {h_repeat} exceeds 31 on Ascend910B: the final Adds reads each vertical repeat's sum with \
             srcRepStride = hRepeat * 8 = {} blocks, beyond its uint8_t field (255)",
            h * BLOCKS_PER_REPEAT
        )
    });
    let dst_rep = usize::from(v_r_offset) / EPB;
    ensure(dst_rep <= U8_MAX, API, || {
        format!(
            "vROffset = {v_r_offset} exceeds 4080 on Ascend910B: the final Adds writes the vertical repeats with \
             dstRepStride = vROffset / 16 = {dst_rep} blocks, beyond its uint8_t field (255)"
        )
    });
    let brcb_repeats = src1.get_size() / BLOCKS_PER_REPEAT;
    ensure(brcb_repeats <= U8_MAX, API, || {
        format!(
            "src1 holds {} elements: the Ascend910B implementation broadcasts all of them with Brcb of \
             src1.GetSize() / 8 = {brcb_repeats} repeats, beyond its uint8_t repeatTime (255); src1 may hold at \
             most 2047 elements",
            src1.get_size()
        )
    });

    // The operands' sizes.
    let blocks = n * BLOCKS_PER_REPEAT;
    ensure(src0_offset.get_size() >= blocks, API, || {
        format!(
            "src0Offset holds {} offsets but hRepeat * vRepeat = {n} repeats gather 8 blocks each: {blocks} needed",
            src0_offset.get_size()
        )
    });
    let weights = brcb_repeats * BLOCKS_PER_REPEAT;
    let (need, per) =
        if repeat_mode { (blocks, "one per gathered block") } else { (n, "one per gathered repeat") };
    ensure(weights >= need, API, || {
        format!(
            "src1 holds {} elements, of which Brcb broadcasts {weights} (whole groups of 8), but repeatMode = \
             {repeat_mode} with hRepeat * vRepeat = {n} takes {need} weights ({per})",
            src1.get_size()
        )
    });
    let tmp_bytes = shared_tmp_buffer.get_size();
    let documented = (src0.get_size() + src1.get_size()) * BLOCK_BYTES;
    ensure(tmp_bytes >= documented, API, || {
        format!(
            "sharedTmpBuffer holds {tmp_bytes} bytes but needs at least (src0.GetSize() + src1.GetSize()) * 32 = \
             ({} + {}) * 32 = {documented} on Ascend910B",
            src0.get_size(),
            src1.get_size()
        )
    });
    let gathered_bytes = n * PAR * 2;
    let used = gathered_bytes + brcb_repeats * PAR * 2;
    ensure(tmp_bytes >= used, API, || {
        format!(
            "sharedTmpBuffer holds {tmp_bytes} bytes but the Ascend910B implementation uses {used}: {gathered_bytes} \
             for the {n} gathered repeats and {} for the {brcb_repeats} Brcb repeats of src1",
            used - gathered_bytes
        )
    });

    // Overlap: the sources may not overlap each other (documented), nor the scratch the
    // composition writes before it has read them.
    let (src0_r, src1_r) = (src0.byte_range(src0.get_size()), src1.byte_range(weights));
    let offset_r = src0_offset.byte_range(blocks);
    check_disjoint(
        &[("src0", src0_r), ("src1", src1_r), ("src0Offset", offset_r)],
        "src0, src1 and src0Offset may not overlap",
    );
    let tmp_r = (shared_tmp_buffer.get_phy_addr(), shared_tmp_buffer.get_phy_addr() + used);
    let rule = format!(
        "the Ascend910B implementation writes the first {used} bytes of sharedTmpBuffer, which may not overlap an input"
    );
    for (name, r) in [("src0", src0_r), ("src1", src1_r), ("src0Offset", offset_r)] {
        check_disjoint(&[("sharedTmpBuffer", tmp_r), (name, r)], &rule);
    }
    check_vertical_repeats(bits, v, usize::from(dst_blk_stride), v_r_offset);

    // The composition, step by step.
    let tmp = shared_tmp_buffer.reinterpret_cast::<f16>();
    let weights_at = n * PAR;
    let tmp_names = ["sharedTmpBuffer"; 3];
    gatherb_as::<u16>(
        API,
        ["sharedTmpBuffer", "src0", "src0Offset"],
        &tmp.reinterpret_cast::<u16>(),
        &src0.reinterpret_cast::<u16>(),
        src0_offset,
        n as u8,
        &GatherRepeatParams::default(),
    );
    brcb_as(
        API,
        ["sharedTmpBuffer", "src1"],
        &tmp.view(weights_at),
        src1,
        brcb_repeats as u8,
        &BrcbRepeatParams::default(),
    );
    pipe_barrier::<PIPE_V>();
    let mul_params = if repeat_mode {
        BinaryRepeatParams::default()
    } else {
        BinaryRepeatParams { src0_rep_stride: 1, src0_blk_stride: 0, ..BinaryRepeatParams::default() }
    };
    set_mask_count();
    set_vector_mask_hi_lo::<f16>(0, (n * PAR) as u64);
    binary_masked_as::<f16, MulOp, false>(
        API,
        <f16 as MulElement>::mul_supported,
        MulOp,
        tmp_names,
        [&tmp, &tmp.view(weights_at), &tmp],
        MASK_PLACEHOLDER.into(),
        n as u8,
        &mul_params,
    );
    set_mask_norm();
    reset_mask();
    pipe_barrier::<PIPE_V>();
    let add_params =
        BinaryRepeatParams { dst_rep_stride: 0, src1_rep_stride: 0, ..BinaryRepeatParams::default() };
    for i in 0..v {
        if h > 1 {
            let sum = tmp.view(i * h * PAR);
            let rest = tmp.view((i * h + 1) * PAR);
            binary_masked_as::<f16, AddOp, true>(
                API,
                <f16 as AddElement>::add_supported,
                AddOp,
                tmp_names,
                [&sum, &rest, &sum],
                mask,
                h_repeat - 1,
                &add_params,
            );
        }
    }
    pipe_barrier::<PIPE_V>();
    let adds_params = UnaryRepeatParams {
        src_rep_stride: (h * BLOCKS_PER_REPEAT) as u8,
        dst_blk_stride,
        dst_rep_stride: dst_rep as u8,
        ..UnaryRepeatParams::default()
    };
    adds_masked_as::<f16, true>(
        API,
        ["dst", "sharedTmpBuffer"],
        dst,
        &tmp,
        f16::ZERO,
        mask,
        v_repeat,
        &adds_params,
    );
}
