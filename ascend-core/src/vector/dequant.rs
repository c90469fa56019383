//! Dequantisation: the `DEQSCALE` register (AscendC `SetDeqScale`, three forms), `CastDequant`,
//! `AddDeqRelu`, and the `int32_t → half` [`cast`](crate::vector::cast::cast) that reads the
//! register on Ascend910B and Ascend310P.
//!
//! **Chips.** The vendor lists `SetDeqScale`, `CastDequant` and `AddDeqRelu` for Ascend910B
//! (Atlas A2/A3) and Ascend310P (AI Core) only; on Ascend910 and Ascend310B every function of
//! this module fails, naming the chip. `CastDequant` converts `int16_t → int8_t/uint8_t` on both
//! chips and `int32_t → half` on Ascend910B only ([`CastDequantFrom`]).
//!
//! **The register.** One per core, 64 bits, read by the instruction that uses it, so a later
//! `SetDeqScale` changes what the next instruction computes. It holds one of three things:
//! - [`set_deq_scale`]: a `half` scale, for `AddDeqRelu`, the `int32_t → half` `Cast` and
//!   `CastDequant`;
//! - [`set_deq_scale_quant`]: a `float` scale, a 9-bit signed offset and a sign mode, for
//!   `CastDequant<.., IS_VEC_DEQ = false, ..>` from `int16_t` (the layout of
//!   [`make_deq_scale_config`]);
//! - [`set_deq_scale_vdeq`]: the address of a 16-entry table of such configurations in the
//!   Unified Buffer, for `CastDequant<.., IS_VEC_DEQ = true, ..>` from `int16_t`. The table is
//!   read when `CastDequant` runs (a vector read of its 128 bytes), so rewriting it in between
//!   changes the result.
//!
//! An instruction that finds the register unset, or set by the form it does not read, fails
//! with a message naming the form it needs (the vendor's mapping table of `CastDequant` and
//! `AddDeqRelu` to the `SetDeqScale` prototypes); on the chip it would read the bits as they are.
//!
//! **`int32_t → half` arithmetic** (`Cast`, `CastDequant`, `AddDeqRelu`): the vendor's formula
//! is `Cast(x × scale)`, rounded to nearest-even, with an "overflow protection" that divides by
//! 2^17 before the scale and multiplies by 2^17 after. The model is the sequence the vendor's
//! Ascend910B `AddDeqRelu` runs (`impl/basic_api/dav_c220`: `int32_t → float`, three `Muls` in
//! `float`, `float → half`): `x` rounded to `float`, times the scale rounded once to `float`
//! (the multiplications by 2^-17 and 2^17 are exact for every `int32_t` and `half` scale: no
//! underflow, no overflow), then rounded to `half` to nearest-even. Beyond ±65504 the core's
//! overflow mode decides, as for `Cast`: ±inf in inf/nan mode, ±65504 in saturation mode (the
//! vendor's boundary-value table 29: `MAX` gives `+inf` / `MAX`); a NaN (a NaN or infinite
//! scale) stays NaN in inf/nan mode and becomes 0 in saturation mode. `AddDeqRelu` adds the two
//! `int32_t` sources with wrap-around first and applies `max(·, +0)` last (`-0` becomes `+0`).
//!
//! **`int16_t → int8_t/uint8_t` arithmetic** (`CastDequant`): `dst = sat(round(x × scale +
//! offset))`. The scale is the register's `float` read as the hardware does, in a (1, 8, 10)
//! format: its 13 low mantissa bits are dropped (truncated). The product and the sum are exact,
//! rounded once to an integer, ties to even (the vendor does not name the rounding; ties to
//! even is `Cast`'s `CAST_NONE` for lossy conversions), then saturated to `-128..=127` when
//! the sign mode is signed and `0..=255` when it is not (the vendor's "the result overflows are
//! saturated"; an infinite product saturates, a NaN one gives 0). The sign mode must match the
//! destination type (`true` for `int8_t`, `false` for `uint8_t`), as the vendor requires; a
//! mismatch fails.
//!
//! **`int16_t → b8` layout.** The mask and the repeat count `int16_t` lanes (128 a repeat).
//! Every 32-byte block of the source (16 lanes) gives 16 bytes, written into one 32-byte block
//! of the destination: the block at the destination's own block and repeat strides (in 32-byte
//! blocks, so a contiguous walk is `UnaryRepeatParams::new(1, 1, 8, 8)`), in its upper half
//! (bytes 16..32) when `HALF_BLOCK` is `true` and its lower half (bytes 0..16) when it is
//! `false` — the vendor's worked example, whose output has 16 zero bytes then 16 results in every
//! block for `halfBlock = true`. The other half is not written, so two calls with opposite
//! `HALF_BLOCK` can fill both halves (the vendor's recipe for a contiguous result from the
//! even and the odd source blocks). With the vector table, lane `k` of each source block uses
//! entry `k` (`k = 0..16`). `dst` must hold the bytes written: `count` sources need
//! `ceil(count / 16)` blocks of 32 bytes (the last one up to the last byte written).
//!
//! Not modelled: on Ascend910B the vendor's `AddDeqRelu` is a sequence of vector instructions
//! that uses `src0` and `src1` as scratch space (and an 8 KiB reserve of the UB), so on the chip
//! the sources hold intermediate values afterwards; here they keep their values. Do not read a
//! source of `AddDeqRelu` after the call on Ascend910B.
//!
//! ```
//! use ascend_core::prelude::*;
//! let mut pipe = TPipe::new();
//! let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
//! pipe.init_tbuf(&mut a, 1024);
//! pipe.init_tbuf(&mut b, 256);
//! let (acc, out) = (a.get::<i32>(), b.get::<f16>());
//! acc.copy_from_slice(&[1000; 128]);
//! set_deq_scale(f16::from_f32(0.5));
//! cast(&out, &acc, RoundMode::CastNone, 128); // int32_t -> half through the scale
//! assert_eq!(out.get_value(0), f16::from_f32(500.0));
//! ```

use core::mem::MaybeUninit;

use crate::element::{f16, Element, BLOCKS_PER_REPEAT};
use crate::kernel::ctx::{get_overflow_mode, get_soc, with_core};
use crate::kernel::error::{check, ensure, fail};
use crate::memory::tensor::LocalTensor;
use crate::soc::{OverflowMode, Soc};
use crate::vector::engine::{
    apply_count_mixed, apply_mixed, block_bits, check_operand, restore_mask_defaults, span_of,
    touched_blocks, MixedLanes, Operand,
};
use crate::vector::mask::{resolve, Mask, Plan};
use crate::vector::params::{BinaryRepeatParams, UnaryRepeatParams};

const SET_DEQ_SCALE: &str = "SetDeqScale";
const CAST_DEQUANT: &str = "CastDequant";
const ADD_DEQ_RELU: &str = "AddDeqRelu";

/// Entries of a vector dequantisation table (AscendC `VDEQ_TENSOR_SIZE`): one per lane of a
/// 32-byte block of `int16_t`.
pub const VDEQ_TENSOR_SIZE: usize = 16;

/// The smallest and the largest offset the register holds (9 bits, signed).
const OFFSET_RANGE: (i16, i16) = (-256, 255);

/// The `DEQSCALE` register of a core: which `SetDeqScale` form set it last.
#[derive(Clone, Debug, Default)]
pub(crate) enum DeqReg {
    /// Never set on this core.
    #[default]
    Unset,
    /// `SetDeqScale(half scale)`.
    Half(f16),
    /// `SetDeqScale(float scale, int16_t offset, bool signMode)`: the configuration word.
    Quant(u64),
    /// `SetDeqScale(vdeq, vdeqInfo)`: the table's first 16 elements.
    Vector(LocalTensor<u64>),
}

/// The current core's `DEQSCALE` register (kept in the core's context, which does not name
/// its type).
fn deq_reg() -> DeqReg {
    with_core(|c| {
        c.deq_scale.borrow().as_ref().and_then(|r| r.downcast_ref::<DeqReg>()).cloned().unwrap_or_default()
    })
}

/// Sets the current core's `DEQSCALE` register.
fn set_deq_reg(reg: DeqReg) {
    with_core(|c| *c.deq_scale.borrow_mut() = Some(Box::new(reg)));
}

impl DeqReg {
    /// The form that set the register, in AscendC's spelling.
    fn form(&self) -> &'static str {
        match self {
            DeqReg::Unset => "nothing (SetDeqScale was not called on this core)",
            DeqReg::Half(_) => "SetDeqScale(half scale)",
            DeqReg::Quant(_) => "SetDeqScale(float scale, int16_t offset, bool signMode)",
            DeqReg::Vector(_) => "SetDeqScale(vdeq, vdeqInfo)",
        }
    }
}

/// The sixteen parameter sets of a vector dequantisation table (AscendC `VdeqInfo`):
/// entry `k` converts lane `k` of every 32-byte source block.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VdeqInfo {
    /// The scales (`vdeqScale`).
    pub vdeq_scale: [f32; VDEQ_TENSOR_SIZE],
    /// The offsets (`vdeqOffset`), each in `-256..=255`.
    pub vdeq_offset: [i16; VDEQ_TENSOR_SIZE],
    /// The sign modes (`vdeqSignMode`): `true` for an `int8_t` result, `false` for `uint8_t`.
    pub vdeq_sign_mode: [bool; VDEQ_TENSOR_SIZE],
}

impl VdeqInfo {
    /// AscendC `VdeqInfo(vdeqScale, vdeqOffset, vdeqSignMode)`.
    pub const fn new(
        vdeq_scale: [f32; VDEQ_TENSOR_SIZE],
        vdeq_offset: [i16; VDEQ_TENSOR_SIZE],
        vdeq_sign_mode: [bool; VDEQ_TENSOR_SIZE],
    ) -> Self {
        VdeqInfo { vdeq_scale, vdeq_offset, vdeq_sign_mode }
    }
}

/// The 64-bit configuration word of `SetDeqScale(scale, offset, signMode)` and of each entry
/// of a vector table: the `float` scale's bits in bits 0..32, the offset's low 9 bits in bits
/// 37..46, the sign mode in bit 46 (the vendor's register layout).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(make_deq_scale_config(1.0, -1, true), 0x3F80_0000 | 0x1FF << 37 | 1 << 46);
/// ```
pub const fn make_deq_scale_config(scale: f32, offset: i16, sign_mode: bool) -> u64 {
    ((sign_mode as u64) << 46) | (((offset as u64) & 0x1FF) << 37) | scale.to_bits() as u64
}

/// Fails unless the chip has the dequantisation family.
#[track_caller]
fn require_chip(api: &'static str) {
    let soc = get_soc();
    ensure(matches!(soc, Soc::Ascend910B | Soc::Ascend310P), api, || {
        format!(
            "{api} is not supported on {soc} ({}): the vendor lists it for Ascend910B and Ascend310P",
            soc.product_line()
        )
    });
}

/// Fails unless `offset` fits the register's 9 bits; `what` names it.
#[track_caller]
fn check_offset(offset: i16, what: impl FnOnce() -> String) {
    let (lo, hi) = OFFSET_RANGE;
    check!(
        (lo..=hi).contains(&offset),
        SET_DEQ_SCALE,
        "{} = {offset} is out of range [{lo}, {hi}]: the register keeps 9 bits of it (a signed 9-bit integer)",
        what()
    );
}

/// Sets the `DEQSCALE` register to a `half` scale (AscendC `SetDeqScale(half scale)`), read by
/// [`add_deq_relu`], the `int32_t → half` [`cast`](crate::vector::cast::cast) and
/// [`cast_dequant`] from `int32_t`.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 512);
/// pipe.init_tbuf(&mut b, 256);
/// let (x, y) = (a.get::<i32>(), b.get::<f16>());
/// x.copy_from_slice(&[3; 128]);
/// set_deq_scale(f16::from_f32(0.25));
/// cast_dequant::<f16, i32, true, true>(&y, &x, 128);
/// assert_eq!(y.get_value(127), f16::from_f32(0.75));
/// ```
///
/// # Panics
/// Panics on Ascend910 and Ascend310B.
#[track_caller]
pub fn set_deq_scale(scale: f16) {
    require_chip(SET_DEQ_SCALE);
    set_deq_reg(DeqReg::Half(scale));
}

/// Sets the `DEQSCALE` register to one `int16_t → int8_t/uint8_t` configuration (AscendC
/// `SetDeqScale(float scale, int16_t offset, bool signMode)`), read by
/// [`cast_dequant`]`::<_, i16, false, _>`: `dst = sat(round(src × scale + offset))`, signed
/// when `sign_mode` (see the [module docs](self) for the arithmetic).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 256);
/// pipe.init_tbuf(&mut b, 256);
/// let (x, y) = (a.get::<i16>(), b.get::<i8>());
/// x.copy_from_slice(&[100; 128]);
/// y.copy_from_slice(&[-1; 256]);
/// set_deq_scale_quant(0.5, -3, true);
/// cast_dequant::<i8, i16, false, false>(&y, &x, 16);
/// assert_eq!(y.to_vec()[..17], [[47; 16].as_slice(), &[-1]].concat()); // the upper half is kept
/// ```
///
/// # Panics
/// Panics on Ascend910 and Ascend310B, or if `offset` is outside `-256..=255` (the vendor
/// keeps its low 9 bits; a value that does not fit is taken as a mistake).
#[track_caller]
pub fn set_deq_scale_quant(scale: f32, offset: i16, sign_mode: bool) {
    require_chip(SET_DEQ_SCALE);
    check_offset(offset, || "offset".to_string());
    let cfg = make_deq_scale_config(scale, offset, sign_mode);
    set_deq_reg(DeqReg::Quant(cfg));
}

/// Writes the sixteen configurations of `info` into `vdeq` (entry `k` as
/// [`make_deq_scale_config`] builds it, with scalar stores as the vendor does) and points the
/// `DEQSCALE` register at it (AscendC `SetDeqScale<uint64_t>(vdeq, vdeqInfo)`), for
/// [`cast_dequant`]`::<_, i16, true, _>`. `CastDequant` reads the table when it runs.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut t) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 256);
/// pipe.init_tbuf(&mut b, 256);
/// pipe.init_tbuf(&mut t, 128);
/// let (x, y, table) = (a.get::<i16>(), b.get::<u8>(), t.get::<u64>());
/// x.copy_from_slice(&[10; 128]);
/// // Lane k of every block is scaled by k.
/// let info = VdeqInfo::new(core::array::from_fn(|k| k as f32), [0; 16], [false; 16]);
/// set_deq_scale_vdeq(&table, &info);
/// cast_dequant::<u8, i16, true, true>(&y, &x, 16);
/// assert_eq!(y.to_vec()[16..32], (0..16).map(|k| 10 * k as u8).collect::<Vec<_>>());
/// ```
///
/// # Panics
/// Panics on Ascend910 and Ascend310B, if `vdeq` is not a VECIN/VECCALC/VECOUT tensor starting
/// on a 32-byte boundary or holds fewer than 16 elements (128 bytes), or if an offset is outside
/// `-256..=255`.
#[track_caller]
pub fn set_deq_scale_vdeq(vdeq: &LocalTensor<u64>, info: &VdeqInfo) {
    require_chip(SET_DEQ_SCALE);
    vdeq.check_vector_operand(SET_DEQ_SCALE, "vdeq");
    let n = vdeq.get_size();
    check!(
        n >= VDEQ_TENSOR_SIZE,
        SET_DEQ_SCALE,
        "vdeq holds {n} elements but the table has {VDEQ_TENSOR_SIZE} (128 bytes)"
    );
    for (k, &o) in info.vdeq_offset.iter().enumerate() {
        check_offset(o, || format!("vdeqOffset[{k}]"));
    }
    for k in 0..VDEQ_TENSOR_SIZE {
        vdeq.set_value(
            k,
            make_deq_scale_config(info.vdeq_scale[k], info.vdeq_offset[k], info.vdeq_sign_mode[k]),
        );
    }
    let table = vdeq.view_len(0, VDEQ_TENSOR_SIZE);
    set_deq_reg(DeqReg::Vector(table));
}

/// Fails: the register does not hold what `what` reads.
#[cold]
#[track_caller]
fn wrong_form(api: &'static str, what: &str, needs: &str, reg: &DeqReg) -> ! {
    fail(api, format!("{what} reads the DEQSCALE register as set by {needs}, but it holds {}", reg.form()))
}

/// The `half` scale of the register, for the `int32_t → half` forms of `api`.
#[track_caller]
pub(crate) fn half_scale(api: &'static str) -> f32 {
    let reg = deq_reg();
    match reg {
        DeqReg::Half(s) => s.to_f32(),
        other => wrong_form(api, "int32_t -> half", "SetDeqScale(half scale)", &other),
    }
}

// ---------------------------------------------------------------------------------------
// int32_t -> half through the scale
// ---------------------------------------------------------------------------------------

/// Lanes per stack chunk of the `float` intermediate.
const CHUNK: usize = 256;

/// Converts `n` lanes: `dst[i] = half(float(x) × scale)` with `x = src0[i]` (`N = 1`) or
/// `src0[i] + src1[i]` wrapping (`N = 2`), then `max(·, +0)` when `RELU`; saturated to ±65504
/// (NaN to 0) when `sat`.
///
/// # Safety
/// `dst` is valid for `n` writes and each `src[k]` for `n` reads; `dst` overlaps no source.
#[inline(always)]
pub(crate) unsafe fn deq_to_half<const N: usize, const RELU: bool>(
    dst: *mut f16,
    src: [*const i32; N],
    n: usize,
    scale: f32,
    sat: bool,
) {
    const { assert!(N == 1 || N == 2) };
    let mut buf = [MaybeUninit::<f32>::uninit(); CHUNK];
    let mut done = 0;
    while done < n {
        let len = CHUNK.min(n - done);
        for (i, b) in buf[..len].iter_mut().enumerate() {
            // SAFETY: done + i < n, inside every source (the caller's contract).
            let x = unsafe {
                if N == 1 {
                    src[0].add(done + i).read()
                } else {
                    src[0].add(done + i).read().wrapping_add(src[N - 1].add(done + i).read())
                }
            };
            // `as f32` rounds to nearest-even; the product rounds once.
            let mut v = x as f32 * scale;
            if sat {
                v = crate::vector::binary::saturate(v);
            }
            if RELU && !(v > 0.0 || v.is_nan()) {
                v = 0.0;
            }
            b.write(v);
        }
        // SAFETY: the first len elements of buf were written above; dst is valid for n writes
        // and overlaps neither the sources nor the stack buffer.
        unsafe { crate::f16conv::narrow(buf.as_ptr().cast::<f32>(), dst.add(done), len) };
        done += len;
    }
}

/// The engine kernel of the `int32_t → half` forms.
struct DeqHalf<const N: usize, const RELU: bool> {
    scale: f32,
    sat: bool,
}

impl MixedLanes<f16, i32, 1> for DeqHalf<1, false> {
    #[inline(always)]
    unsafe fn run(&mut self, dst: *mut f16, src: [*const i32; 1], n: usize) {
        // SAFETY: the engine's contract; different element sizes never coincide, so dst
        // overlaps no source.
        unsafe { deq_to_half::<1, false>(dst, src, n, self.scale, self.sat) }
    }
}

impl MixedLanes<f16, i32, 2> for DeqHalf<2, true> {
    #[inline(always)]
    unsafe fn run(&mut self, dst: *mut f16, src: [*const i32; 2], n: usize) {
        // SAFETY: as above.
        unsafe { deq_to_half::<2, true>(dst, src, n, self.scale, self.sat) }
    }
}

/// The kernel of an `int32_t → half` call of `api`: the register's scale and the core's
/// overflow mode, read once.
#[track_caller]
fn deq_half_kernel<const N: usize, const RELU: bool>(api: &'static str) -> DeqHalf<N, RELU> {
    let scale = half_scale(api);
    DeqHalf { scale, sat: get_overflow_mode() == OverflowMode::Saturation }
}

// ---------------------------------------------------------------------------------------
// AddDeqRelu
// ---------------------------------------------------------------------------------------

/// `dst[i] = max(half((src0[i] + src1[i]) × scale), +0)` for `i in 0..count`, with the scale of
/// [`set_deq_scale`] (AscendC `AddDeqRelu(dst, src0, src1, count)`): `int32_t` sources (added
/// with wrap-around) into a `half` destination. See the [module docs](self) for the rounding.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 1024);
/// pipe.init_tbuf(&mut b, 256);
/// let (x, y, d) = (a.get_with_offset::<i32>(64, 0), a.get_with_offset::<i32>(64, 512), b.get::<f16>());
/// // The vendor's example: scale 0.1, the first inputs.
/// x.view_len(0, 4).copy_from_slice(&[70, 36, 43, -54]);
/// y.view_len(0, 4).copy_from_slice(&[19, 33, 34, 50]);
/// set_deq_scale(f16::from_f32(0.1));
/// add_deq_relu(&d, &x, &y, 64);
/// assert_eq!(d.to_vec()[..4], [8.9f32, 6.9, 7.7, 0.0].map(f16::from_f32));
/// ```
///
/// # Panics
/// Panics on Ascend910 and Ascend310B, if the register does not hold a `half` scale
/// ([`set_deq_scale`]), if an operand is not a 32-byte aligned VECIN/VECOUT/VECCALC tensor or
/// holds fewer than `count` elements, or if `dst` overlaps a source.
#[track_caller]
pub fn add_deq_relu(dst: &LocalTensor<f16>, src0: &LocalTensor<i32>, src1: &LocalTensor<i32>, count: usize) {
    require_chip(ADD_DEQ_RELU);
    let mut k = deq_half_kernel::<2, true>(ADD_DEQ_RELU);
    apply_count_mixed(ADD_DEQ_RELU, count, dst, [(src0, "src0"), (src1, "src1")], &mut k);
}

/// `dst = max(half((src0 + src1) × scale), +0)` over the lanes a mask enables, for
/// `repeat_times` repeats (AscendC `AddDeqRelu<isSetMask>(dst, src0, src1, mask, repeatTime,
/// repeatParams)`, continuous and bit-mask forms).
///
/// The mask counts `int32_t` lanes (at most 64 a repeat); each operand walks with its own
/// element size and strides, so a contiguous call is `BinaryRepeatParams::new(1, 1, 1, 4, 8,
/// 8)` (the vendor's example: a repeat writes 4 blocks of `dst`). Disabled lanes keep their
/// values. Counter mode, `IS_SET_MASK` and `MASK_PLACEHOLDER` work as for every vector
/// instruction ([`sub_masked`](crate::vector::binary::sub_masked)).
///
/// ```
/// use ascend_core::prelude::*;
/// run_on_core(CoreConfig::single(Soc::Ascend310P), || {
///     let mut pipe = TPipe::new();
///     let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
///     pipe.init_tbuf(&mut a, 2048);
///     pipe.init_tbuf(&mut b, 512);
///     let (x, y, d) = (a.get_with_offset::<i32>(256, 0), a.get_with_offset::<i32>(256, 1024), b.get::<f16>());
///     x.copy_from_slice(&[5; 256]);
///     y.copy_from_slice(&[-8; 256]);
///     y.set_value(255, 8);
///     set_deq_scale(f16::from_f32(2.0));
///     // The vendor's example: 4 repeats of 64 lanes.
///     add_deq_relu_masked::<true>(&d, &x, &y, 64u64, 4, &BinaryRepeatParams::new(1, 1, 1, 4, 8, 8));
///     assert_eq!((d.get_value(0), d.get_value(255)), (f16::ZERO, f16::from_f32(26.0)));
/// });
/// ```
///
/// # Panics
/// Panics as [`add_deq_relu`], and if the mask is out of range for 64 lanes or breaks the
/// `IS_SET_MASK`/`MASK_PLACEHOLDER` rule, or a touched element lies outside its tensor.
#[track_caller]
pub fn add_deq_relu_masked<const IS_SET_MASK: bool>(
    dst: &LocalTensor<f16>,
    src0: &LocalTensor<i32>,
    src1: &LocalTensor<i32>,
    mask: impl Into<Mask>,
    repeat_times: u8,
    params: &BinaryRepeatParams,
) {
    require_chip(ADD_DEQ_RELU);
    let mut k = deq_half_kernel::<2, true>(ADD_DEQ_RELU);
    let Some(plan) = resolve::<i32, IS_SET_MASK>(ADD_DEQ_RELU, mask.into(), repeat_times as usize) else {
        return;
    };
    let p = params;
    let d = Operand::new(dst, p.dst_blk_stride, p.dst_rep_stride, "dst");
    let a = Operand::new(src0, p.src0_blk_stride, p.src0_rep_stride, "src0");
    let b = Operand::new(src1, p.src1_blk_stride, p.src1_rep_stride, "src1");
    apply_mixed::<i32, f16, i32, 2, _>(ADD_DEQ_RELU, &plan, &d, [&a, &b], &mut k);
}

// ---------------------------------------------------------------------------------------
// CastDequant
// ---------------------------------------------------------------------------------------

mod sealed {
    pub trait Sealed<S> {}
}

/// `Self` can be the destination of `CastDequant` from `S` on at least one chip:
/// `int16_t → int8_t`, `int16_t → uint8_t` (Ascend910B, Ascend310P) and `int32_t → half`
/// (Ascend910B). Other pairs do not compile:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(d: &LocalTensor<i8>, s: &LocalTensor<i32>) { cast_dequant::<i8, i32, true, true>(d, s, 64); }
/// ```
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(d: &LocalTensor<f16>, s: &LocalTensor<i16>) { cast_dequant::<f16, i16, true, true>(d, s, 64); }
/// ```
pub trait CastDequantFrom<S: Element>: Element + sealed::Sealed<S> {
    /// Whether `soc` has `CastDequant` from `S` into this type.
    fn cast_dequant_supported(soc: Soc) -> bool;

    /// The count form.
    #[doc(hidden)]
    #[track_caller]
    fn count_form<const IS_VEC_DEQ: bool, const HALF_BLOCK: bool>(
        dst: &LocalTensor<Self>,
        src: &LocalTensor<S>,
        count: usize,
    );

    /// The high-dimensional form.
    #[doc(hidden)]
    #[track_caller]
    fn masked_form<const IS_SET_MASK: bool, const IS_VEC_DEQ: bool, const HALF_BLOCK: bool>(
        dst: &LocalTensor<Self>,
        src: &LocalTensor<S>,
        mask: Mask,
        repeat_times: u8,
        params: &UnaryRepeatParams,
    );
}

impl sealed::Sealed<i32> for f16 {}
impl CastDequantFrom<i32> for f16 {
    fn cast_dequant_supported(soc: Soc) -> bool {
        soc == Soc::Ascend910B
    }

    #[track_caller]
    fn count_form<const IS_VEC_DEQ: bool, const HALF_BLOCK: bool>(
        dst: &LocalTensor<f16>,
        src: &LocalTensor<i32>,
        count: usize,
    ) {
        let mut k = deq_half_kernel::<1, false>(CAST_DEQUANT);
        apply_count_mixed(CAST_DEQUANT, count, dst, [(src, "src")], &mut k);
    }

    #[track_caller]
    fn masked_form<const IS_SET_MASK: bool, const IS_VEC_DEQ: bool, const HALF_BLOCK: bool>(
        dst: &LocalTensor<f16>,
        src: &LocalTensor<i32>,
        mask: Mask,
        repeat_times: u8,
        p: &UnaryRepeatParams,
    ) {
        let mut k = deq_half_kernel::<1, false>(CAST_DEQUANT);
        let Some(plan) = resolve::<i32, IS_SET_MASK>(CAST_DEQUANT, mask, repeat_times as usize) else {
            return;
        };
        let d = Operand::new(dst, p.dst_blk_stride, p.dst_rep_stride, "dst");
        let s = Operand::new(src, p.src_blk_stride, p.src_rep_stride, "src");
        apply_mixed::<i32, f16, i32, 1, _>(CAST_DEQUANT, &plan, &d, [&s], &mut k);
    }
}

/// The 8-bit destinations of `int16_t` sources.
trait B8: Element {
    /// Whether the type is signed (the sign mode it needs).
    const SIGNED: bool;
}
impl B8 for i8 {
    const SIGNED: bool = true;
}
impl B8 for u8 {
    const SIGNED: bool = false;
}

macro_rules! b8_dequant {
    ($($d:ty),*) => {$(
        impl sealed::Sealed<i16> for $d {}
        impl CastDequantFrom<i16> for $d {
            fn cast_dequant_supported(soc: Soc) -> bool {
                matches!(soc, Soc::Ascend910B | Soc::Ascend310P)
            }

            #[track_caller]
            fn count_form<const IS_VEC_DEQ: bool, const HALF_BLOCK: bool>(
                dst: &LocalTensor<$d>,
                src: &LocalTensor<i16>,
                count: usize,
            ) {
                b8_count::<$d, IS_VEC_DEQ, HALF_BLOCK>(dst, src, count)
            }

            #[track_caller]
            fn masked_form<const IS_SET_MASK: bool, const IS_VEC_DEQ: bool, const HALF_BLOCK: bool>(
                dst: &LocalTensor<$d>,
                src: &LocalTensor<i16>,
                mask: Mask,
                repeat_times: u8,
                p: &UnaryRepeatParams,
            ) {
                let table = b8_table::<$d, IS_VEC_DEQ>();
                let Some(plan) = resolve::<i16, IS_SET_MASK>(CAST_DEQUANT, mask, repeat_times as usize) else {
                    return;
                };
                b8_walk::<$d, HALF_BLOCK>(dst, src, &plan, p, &table)
            }
        }
    )*};
}
b8_dequant!(i8, u8);

/// One `int16_t → b8` parameter set, ready for the lane loop.
#[derive(Clone, Copy, Debug)]
struct B8Param {
    /// The scale with its 13 low mantissa bits dropped, exactly.
    scale: f64,
    offset: f64,
    lo: f64,
    hi: f64,
}

impl B8Param {
    /// Decodes a configuration word (the layout of [`make_deq_scale_config`]).
    fn decode(cfg: u64) -> (B8Param, bool) {
        let scale = f32::from_bits(cfg as u32 & !0x1FFF) as f64;
        // Bits 37..46, sign-extended from 9 bits.
        let offset = (((cfg >> 37) as u16 & 0x1FF) << 7) as i16 >> 7;
        let signed = cfg >> 46 & 1 == 1;
        let (lo, hi) = if signed { (-128.0, 127.0) } else { (0.0, 255.0) };
        (B8Param { scale, offset: offset as f64, lo, hi }, signed)
    }

    /// `sat(round(x × scale + offset))` as a byte. The product (at most 16 × 11 significant
    /// bits) is exact in `f64`, and so is the sum whenever a tie is possible.
    #[inline(always)]
    fn apply(&self, x: i16) -> u8 {
        let v = (x as f64 * self.scale + self.offset).round_ties_even();
        let v = if v.is_nan() { 0.0 } else { v.clamp(self.lo, self.hi) };
        v as i32 as u8
    }
}

/// The sixteen parameter sets a `CastDequant` into `D` uses (the scalar configuration
/// repeated, or the vector table as it is now), with the sign modes checked against `D`.
#[track_caller]
fn b8_table<D: B8, const IS_VEC_DEQ: bool>() -> ([B8Param; VDEQ_TENSOR_SIZE], Option<LocalTensor<u64>>) {
    let reg = deq_reg();
    let (words, vdeq): ([u64; VDEQ_TENSOR_SIZE], _) = match (IS_VEC_DEQ, reg) {
        (false, DeqReg::Quant(cfg)) => ([cfg; VDEQ_TENSOR_SIZE], None),
        (true, DeqReg::Vector(t)) => {
            let mut w = [0u64; VDEQ_TENSOR_SIZE];
            // SAFETY: the table view holds 16 elements inside the UB (checked when it was
            // set); the tensor keeps the arena alive; `w` is a distinct stack array.
            unsafe { std::ptr::copy_nonoverlapping(t.ptr(), w.as_mut_ptr(), VDEQ_TENSOR_SIZE) };
            (w, Some(t))
        }
        (false, other) => wrong_form(
            CAST_DEQUANT,
            "int16_t -> b8 with isVecDeq = false",
            "SetDeqScale(float scale, int16_t offset, bool signMode)",
            &other,
        ),
        (true, other) => wrong_form(
            CAST_DEQUANT,
            "int16_t -> b8 with isVecDeq = true",
            "SetDeqScale(vdeq, vdeqInfo)",
            &other,
        ),
    };
    let mut table = [B8Param { scale: 0.0, offset: 0.0, lo: 0.0, hi: 0.0 }; VDEQ_TENSOR_SIZE];
    for (k, w) in words.into_iter().enumerate() {
        let (p, signed) = B8Param::decode(w);
        check!(
            signed == D::SIGNED,
            CAST_DEQUANT,
            "{}signMode = {signed} does not match dst = {}: the sign mode must be {} for {}",
            if IS_VEC_DEQ { format!("vdeq entry {k}: ") } else { String::new() },
            D::DTYPE,
            D::SIGNED,
            D::DTYPE
        );
        table[k] = p;
    }
    (table, vdeq)
}

/// One past the highest destination byte a plan writes (`None` on address overflow): the
/// source lanes `k` of block `b` of repeat `r` go to byte `(r * rep + b * blk) * 32 + 16 *
/// HALF_BLOCK + k`.
fn b8_extent<const HALF_BLOCK: bool>(plan: &Plan, blk: usize, rep: usize) -> Option<usize> {
    let half = 16 * HALF_BLOCK as usize;
    let span = |m: [u64; 2]| {
        let mut span = 0usize;
        for b in 0..BLOCKS_PER_REPEAT {
            let bits = block_bits::<i16>(m, b);
            if bits != 0 {
                let hi = b
                    .checked_mul(blk)?
                    .checked_mul(32)?
                    .checked_add(half + 64 - bits.leading_zeros() as usize)?;
                span = span.max(hi);
            }
        }
        Some(span)
    };
    let rep_start = |r: usize| r.checked_mul(rep)?.checked_mul(32);
    let last = rep_start(plan.repeats - 1)?.checked_add(span(plan.last)?)?;
    if plan.repeats >= 2 {
        Some(last.max(rep_start(plan.repeats - 2)?.checked_add(span(plan.bits)?)?))
    } else {
        Some(last)
    }
}

/// The count form of `int16_t → b8`: elements `0..count` of `src`, contiguous blocks of `dst`.
#[track_caller]
fn b8_count<D: B8, const IS_VEC_DEQ: bool, const HALF_BLOCK: bool>(
    dst: &LocalTensor<D>,
    src: &LocalTensor<i16>,
    count: usize,
) {
    let table = b8_table::<D, IS_VEC_DEQ>();
    src.check_vector_operand(CAST_DEQUANT, "src");
    dst.check_vector_operand(CAST_DEQUANT, "dst");
    let n = src.get_size();
    check!(count <= n, CAST_DEQUANT, "count = {count} exceeds src's {n} elements");
    if count > 0 {
        let plan = Plan::contiguous::<i16>(count);
        let need = b8_extent::<HALF_BLOCK>(&plan, 1, 8).unwrap_or(usize::MAX);
        let have = dst.get_size();
        check!(
            need <= have,
            CAST_DEQUANT,
            "count = {count} int16_t sources write {need} bytes of dst (16 bytes into each 32-byte block, {} half) but dst has {have} elements",
            if HALF_BLOCK { "the upper" } else { "the lower" }
        );
        b8_walk::<D, HALF_BLOCK>(dst, src, &plan, &UnaryRepeatParams::default(), &table);
    }
    restore_mask_defaults();
}

/// Runs `int16_t → b8` over `plan`: checks once, then converts block by block.
#[track_caller]
fn b8_walk<D: B8, const HALF_BLOCK: bool>(
    dst: &LocalTensor<D>,
    src: &LocalTensor<i16>,
    plan: &Plan,
    p: &UnaryRepeatParams,
    (table, vdeq): &([B8Param; VDEQ_TENSOR_SIZE], Option<LocalTensor<u64>>),
) {
    let api = CAST_DEQUANT;
    let (dblk, drep) = (p.dst_blk_stride as usize, p.dst_rep_stride as usize);
    let s = Operand::new(src, p.src_blk_stride, p.src_rep_stride, "src");
    let es = check_operand(api, &s, plan);
    dst.check_vector_operand(api, "dst");
    let ed = b8_extent::<HALF_BLOCK>(plan, dblk, drep);
    let have = dst.get_size();
    ensure(ed.is_some_and(|e| e <= have), api, || {
        match ed {
        Some(e) => format!(
            "dst would touch byte {} but the tensor has {have} elements (repeats = {}, dstBlkStride = {dblk}, dstRepStride = {drep}, halfBlock = {HALF_BLOCK})",
            e - 1,
            plan.repeats
        ),
        None => format!(
            "dst: repeats = {}, dstBlkStride = {dblk}, dstRepStride = {drep} address beyond the address space (the tensor has {have} elements)",
            plan.repeats
        ),
    }
    });
    let ed = ed.unwrap_or(0);
    // Different element sizes: dst may share no 32-byte block with src.
    let (d0, d1) = dst.byte_range(ed);
    let (s0, s1) = src.byte_range(es);
    if std::rc::Rc::ptr_eq(dst.ub(), src.ub()) && d0 < s1 && s0 < d1 {
        let dst16 = LocalTensor::<i16>::from_raw(std::rc::Rc::clone(dst.ub()), d0, 0, dst.get_position());
        let db = touched_blocks(&Operand::new(&dst16, dblk, drep, "dst"), plan);
        let sb = touched_blocks(&s, plan);
        let shared = db.iter().find(|b| sb.binary_search(b).is_ok());
        if let Some(b) = shared {
            fail(
                api,
                format!(
                    "dst (address {d0:#x}) and src (address {s0:#x}) overlap at the 32-byte block at {:#x}; they have different element sizes, so no overlap is allowed",
                    b * 32
                ),
            );
        }
    }
    let mut reads = vec![(src.tag, s0, s1)];
    if let Some(t) = vdeq {
        reads.push(span_of(t, VDEQ_TENSOR_SIZE * 8));
    }
    crate::observe::events::on_vector(api, &reads, &[(dst.tag, d0, d1)]);

    let dp = dst.ptr().cast::<u8>();
    let sp = src.ptr() as *const i16;
    let (sblk, srep) = (p.src_blk_stride as usize, p.src_rep_stride as usize);
    let half = 16 * HALF_BLOCK as usize;
    for r in 0..plan.repeats {
        let m = plan.mask_of(r);
        for b in 0..BLOCKS_PER_REPEAT {
            let mut bits = block_bits::<i16>(m, b);
            if bits == 0 {
                continue;
            }
            let so = (r * srep + b * sblk) * 16;
            let dof = (r * drep + b * dblk) * 32 + half;
            if bits == 0xFFFF {
                for (k, prm) in table.iter().enumerate() {
                    // SAFETY: every lane of this source block is enabled, so bounds-checked;
                    // the byte is inside the checked destination extent; dst and src share no
                    // block (checked above).
                    unsafe { dp.add(dof + k).write(prm.apply(sp.add(so + k).read())) };
                }
            } else {
                while bits != 0 {
                    let k = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    // SAFETY: lane k of this block is enabled: as above.
                    unsafe { dp.add(dof + k).write(table[k].apply(sp.add(so + k).read())) };
                }
            }
        }
    }
}

/// Fails unless the chip has `CastDequant` from `S` into `D`.
#[track_caller]
fn cast_dequant_chip<D: CastDequantFrom<S>, S: Element>() {
    let soc = get_soc();
    ensure(D::cast_dequant_supported(soc), CAST_DEQUANT, || {
        let has = match soc {
            Soc::Ascend910B => "int16_t -> int8_t, int16_t -> uint8_t, int32_t -> half",
            Soc::Ascend310P => "int16_t -> int8_t, int16_t -> uint8_t",
            _ => "none",
        };
        format!(
            "src = {} with dst = {} is not supported on {soc} ({}); it has: {has}",
            S::DTYPE,
            D::DTYPE,
            soc.product_line()
        )
    });
}

/// Dequantises elements `0..count` of `src` into `dst` (AscendC `CastDequant<T, U, isVecDeq,
/// halfBlock>(dst, src, count)`): `int16_t → int8_t/uint8_t` with the configuration of
/// [`set_deq_scale_quant`] (`IS_VEC_DEQ = false`) or the table of [`set_deq_scale_vdeq`]
/// (`IS_VEC_DEQ = true`), each source block's 16 results in the upper (`HALF_BLOCK`) or lower
/// half of a destination block; `int32_t → half` with the scale of [`set_deq_scale`] (the two
/// flags then have no effect). See the [module docs](self) for the arithmetic and the layout.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 64);
/// pipe.init_tbuf(&mut b, 64);
/// let (x, y) = (a.get::<i16>(), b.get::<u8>());
/// x.copy_from_slice(&(0..32).map(|v| v * 20).collect::<Vec<i16>>());
/// set_deq_scale_quant(1.0, 0, false);
/// // The even source blocks into the lower halves: 16 results, then the odd ones' place.
/// cast_dequant::<u8, i16, false, false>(&y, &x, 32);
/// assert_eq!(y.get_value(1), 20);
/// assert_eq!(y.get_value(32 + 15), 255); // 31 * 20 = 620 saturates
/// ```
///
/// # Panics
/// Panics if the chip lacks the pair ([`CastDequantFrom`]), if the register was not set by the
/// form this call reads, if a sign mode does not match `D`, if an operand is not a 32-byte
/// aligned VECIN/VECOUT/VECCALC tensor, `src` holds fewer than `count` elements or `dst` fewer
/// than the bytes written, or if `dst` overlaps `src`.
#[track_caller]
pub fn cast_dequant<D: CastDequantFrom<S>, S: Element, const IS_VEC_DEQ: bool, const HALF_BLOCK: bool>(
    dst: &LocalTensor<D>,
    src: &LocalTensor<S>,
    count: usize,
) {
    cast_dequant_chip::<D, S>();
    D::count_form::<IS_VEC_DEQ, HALF_BLOCK>(dst, src, count);
}

/// The high-dimensional `CastDequant` (AscendC `CastDequant<T, U, isSetMask, isVecDeq,
/// halfBlock>(dst, src, mask, repeatTime, repeatParams)`, continuous and bit-mask forms).
///
/// The mask and the repeat count lanes of the source (128 for `int16_t`, 64 for `int32_t`).
/// `int16_t → b8`: block `b` of repeat `r` of `src` (at its strides) writes 16 bytes of the
/// destination block at `dst`'s strides, in blocks of 32 bytes, so a contiguous call is
/// `UnaryRepeatParams::new(1, 1, 8, 8)`. `int32_t → half`: each operand walks with its own
/// element size, so a contiguous call is `UnaryRepeatParams::new(1, 1, 4, 8)`. Disabled lanes
/// keep their values. Counter mode, `IS_SET_MASK` and `MASK_PLACEHOLDER` work as for every
/// vector instruction ([`sub_masked`](crate::vector::binary::sub_masked)).
///
/// ```
/// use ascend_core::prelude::*;
/// run_on_core(CoreConfig::single(Soc::Ascend310P), || {
///     let mut pipe = TPipe::new();
///     let (mut a, mut b, mut t) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
///     pipe.init_tbuf(&mut a, 512);
///     pipe.init_tbuf(&mut b, 1024);
///     pipe.init_tbuf(&mut t, 128);
///     let (x, y) = (a.get::<i16>(), b.get::<u8>());
///     x.copy_from_slice(&[7; 256]);
///     y.copy_from_slice(&[0; 1024]);
///     // The vendor's example: scale 1, offset 0, unsigned; 2 repeats of 128 lanes.
///     set_deq_scale_vdeq(&t.get::<u64>(), &VdeqInfo::new([1.0; 16], [0; 16], [false; 16]));
///     cast_dequant_masked::<u8, i16, true, true, true>(&y, &x, 128u64, 2, &UnaryRepeatParams::new(1, 1, 8, 8));
///     let v = y.to_vec();
///     assert_eq!((v[15], v[16], v[511]), (0, 7, 7));
/// });
/// ```
///
/// # Panics
/// Panics as [`cast_dequant`], and if the mask is out of range for the source type or breaks
/// the `IS_SET_MASK`/`MASK_PLACEHOLDER` rule, or a touched element lies outside its tensor.
#[track_caller]
pub fn cast_dequant_masked<
    D: CastDequantFrom<S>,
    S: Element,
    const IS_SET_MASK: bool,
    const IS_VEC_DEQ: bool,
    const HALF_BLOCK: bool,
>(
    dst: &LocalTensor<D>,
    src: &LocalTensor<S>,
    mask: impl Into<Mask>,
    repeat_times: u8,
    repeat_params: &UnaryRepeatParams,
) {
    cast_dequant_chip::<D, S>();
    D::masked_form::<IS_SET_MASK, IS_VEC_DEQ, HALF_BLOCK>(dst, src, mask.into(), repeat_times, repeat_params);
}
