//! `Fixpipe`: the cube's results from L0C to global memory, converted on the way (AscendC's
//! `Fixpipe(GlobalTensor, LocalTensor, FixpipeParamsV220)` on Ascend910B, pipe FIX).
//!
//! L0C holds `float` or `int32_t` results in NZ layout: 16-column "Z" columns, each `16`
//! elements per row, row after row. With `src_stride` (in 16-element units) between Z columns
//! and `src_nd_stride` (in 256-element fractals) between matrices, element `(m, n)` of matrix
//! `nd` is at
//!
//! ```text
//! src[nd * srcNdStride * 256 + (n / 16) * srcStride * 16 + m * 16 + n % 16]
//! ```
//!
//! [`fixpipe`] (the vendor's default `CFG_ROW_MAJOR`, NZ2ND on) writes row-major matrices:
//!
//! ```text
//! dst[nd * dstNdStride + m * dstStride + n] = out(src(nd, m, n))   for nd < ndNum, m < mSize, n < nSize
//! ```
//!
//! [`fixpipe_nz`] (`CFG_NZ`) keeps the NZ layout, `dst_stride` 32-byte blocks between Z
//! columns (`nd_num` and the ND strides are not used):
//!
//! ```text
//! dst[(n / 16) * dstStride * 32 / size_of::<D>() + m * 16 + n % 16] = out(src(0, m, n))
//! ```
//!
//! With `is_channel_split` (`float` to `float`, NZ only) the Z columns of the output are 8
//! wide (16 × 8 fractals of 512 bytes): `dst[(n / 8) * dstStride * 8 + m * 8 + n % 8]`.
//!
//! `out` is the conversion `quant_pre` selects, with ReLU when `relu_en`:
//!
//! | `quant_pre` | L0C → GM | conversion |
//! | --- | --- | --- |
//! | `NoQuant` | `float` → `float`, `int32_t` → `int32_t` | none |
//! | `F322F16` | `float` → `half` | round to nearest, ties to even |
//! | `F322BF16` | `float` → `bfloat16_t` | round to nearest, ties to even |
//! | `DEQF16`, `VDEQF16` | `int32_t` → `half` | dequantise (below) |
//! | `QF322B8_PRE`, `VQF322B8_PRE` | `float` → `int8_t`/`uint8_t` | quantise (below) |
//! | `REQ8`, `VREQ8` | `int32_t` → `int8_t`/`uint8_t` | requantise (below) |
//!
//! Out-of-range `half`/`bfloat16_t` results of `F322F16`/`F322BF16` follow the core's
//! overflow mode (`CTRL[48]`, [`get_overflow_mode`]) as `Cast` does: in saturation mode ±inf
//! and overflow become ±MAX and NaN becomes 0; in inf/nan mode they stay IEEE 754's.
//! `NoQuant` moves the bits unchanged.
//!
//! # The quantising modes
//!
//! The scalar modes (`DEQF16`, `QF322B8_PRE`, `REQ8`) take one 64-bit parameter,
//! [`deq_scalar`](FixpipeParamsV220::deq_scalar), for every column; the vector modes (`V…`,
//! through [`fixpipe_with_quant`] / [`fixpipe_nz_with_quant`]) one per column `j < nSize` of
//! the block, a `uint64_t` tensor in L1 (`cbufWorkspace`). Each parameter's bits (the "随路量化"
//! page, table 1, NPU architecture 2201):
//!
//! | bits | field | use |
//! | --- | --- | --- |
//! | 31..13 | `M1` | the scale: a `float` whose low 13 mantissa bits are dropped (a (1, 8, 10) float); bits 12..0 are ignored; not inf, NaN or denormal |
//! | 35..32 | `N` | the shift for `MCB`: `b0000` is 1, …, `b1111` is 16 (`DEQF16`, `REQ8`) |
//! | 36 | `MCB` | 1: shift the `int32_t` right by `N` and saturate it to `int16_t` first (`DEQF16`, `REQ8`; ignored by `QF322B8_PRE`) |
//! | 45..37 | `Offset` | an unsigned 9-bit integer added after the scaling (`REQ8`, `QF322B8_PRE`; ignored by `DEQF16`) |
//! | 46 | `Sign` | 1: `int8_t` result, 0: `uint8_t` (`REQ8`, `QF322B8_PRE`); must match the destination type here |
//!
//! With `M2 = M1`, or `M2 = 0` when `relu_en` (the "随路量化与随路ReLU场景组合" page: M2 is
//! the factor of negative values, 0 for Normal ReLU), each value `x` of column `j` becomes
//! (the vendor's reference scripts `gen_data_s322s8.py`, `gen_data_s322f16.py` and
//! `gen_data_f322s8.py` of the `fixpipe_l0c2gm` sample, in their order):
//!
//! ```text
//! x' = MCB ? clamp(x >> N, -32768, 32767) : x          (int32_t inputs)
//! f  = float(x')                                       (round to nearest even)
//! y  = f >= 0 ? f * M1 : f * M2                        (one float multiply, nearest even)
//! DEQF16:          half(clamp(y, -65504, 65504))                       (nearest even)
//! REQ8, QF322B8:   clamp(roundeven(clamp(y, -256, 255)) + Offset, lo, hi)
//!                  with [lo, hi] = [-128, 127] (Sign 1) or [0, 255] (Sign 0)
//! ```
//!
//! Where the page and the scripts differ this follows the page: `N`'s `b0000` is a shift by 1
//! (the scripts shift by the field's value), `DEQF16` ignores `Offset` and does not round its
//! result to an integer (the scripts' shared `saturation` helper does both; with their scale 2
//! and integer data the results agree), and `QF322B8_PRE` ignores `MCB`. A NaN `float` input
//! of `QF322B8_PRE` gives 0 before the offset (the scripts leave it undefined; the vendor asks
//! for no NaN in `Mmad`). `Offset` is read unsigned, as the scripts do. The overflow mode does
//! not change these modes: they saturate.
//!
//! ReLU without a quantising mode: a negative source value becomes zero before the conversion
//! (`max(0, x)` on the 32-bit value; the vendor applies it as a factor 0 on negative values).
//! `-0.0` and NaN are not negative and pass unchanged. With a quantising mode it is the factor
//! `M2 = 0` above (so a negative `int32_t` dequantises to `-0.0` in `half`).
//!
//! `unit_flag` (0, 2 or 3) lets the hardware overlap `Mmad` and `Fixpipe` fractal by fractal;
//! the emulator runs each instruction whole, so it is checked and changes nothing.
//!
//! [`get_overflow_mode`]: crate::ctx::get_overflow_mode

use crate::cube::{check_extent, check_operand, check_range};
use crate::element::{bf16, f16, Element};
use crate::kernel::error::{ensure, fail};
use crate::memory::atomic::{store_to_gm, Rows};
use crate::memory::tensor::{GlobalTensor, LocalTensor};
use crate::observe::sanitizer::GmRows;
use crate::position::Memory;
use crate::soc::{OverflowMode, Soc};
use crate::sync::event::pipe_t;

const API: &str = "Fixpipe";

/// The conversion of [`fixpipe`] (AscendC `QuantMode_t`, Ascend910B's values).
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum QuantMode_t {
    /// No conversion: `float` → `float`, `int32_t` → `int32_t`.
    #[default]
    NoQuant,
    /// `float` → `half`, rounding to nearest-even.
    F322F16,
    /// `float` → `bfloat16_t`, rounding to nearest-even.
    F322BF16,
    /// `int32_t` → `half` with a scalar scale (`deq_scalar`).
    DEQF16,
    /// `int32_t` → `half` with a scale per column ([`fixpipe_with_quant`]).
    VDEQF16,
    /// `float` → `int8_t`/`uint8_t` with a scalar scale (`deq_scalar`).
    QF322B8_PRE,
    /// `float` → `int8_t`/`uint8_t` with a scale per column ([`fixpipe_with_quant`]).
    VQF322B8_PRE,
    /// `int32_t` → `int8_t`/`uint8_t` with a scalar scale (`deq_scalar`).
    REQ8,
    /// `int32_t` → `int8_t`/`uint8_t` with a scale per column ([`fixpipe_with_quant`]).
    VREQ8,
}

/// Parameters of [`fixpipe`] and [`fixpipe_nz`] (AscendC `FixpipeParamsV220`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FixpipeParamsV220 {
    /// Columns (N) to move, `0..=4095`; a multiple of 16 for NZ output (of 8 with channel
    /// split), any value for ND output; 0 moves nothing.
    pub n_size: u16,
    /// Rows (M) to move, `0..=8192` for ND output, `0..=65535` for NZ output; 0 moves nothing.
    pub m_size: u16,
    /// Distance between the source's Z columns in 16-element units (should be `m_size`
    /// rounded up to a multiple of 16).
    pub src_stride: u16,
    /// ND output: elements from one destination row to the next (at least `n_size`). NZ
    /// output: 32-byte blocks between the destination's Z columns. Never 0.
    pub dst_stride: u32,
    /// ReLU on the way out.
    pub relu_en: bool,
    /// The conversion.
    pub quant_pre: QuantMode_t,
    /// The parameter of the scalar quantising modes (`DEQF16`, `QF322B8_PRE`, `REQ8`): see
    /// the [module](self) docs for its bits; unused by the other modes.
    pub deq_scalar: u64,
    /// ND output: number of matrices, `0..=65535` (0 moves nothing).
    pub nd_num: u16,
    /// ND output: 256-element fractals between the source matrices, `0..=512` (at least 1
    /// when `nd_num > 1`).
    pub src_nd_stride: u16,
    /// ND output: elements between the destination matrices (at least 1 when `nd_num > 1`).
    pub dst_nd_stride: u16,
    /// 0, 2 or 3: fine-grained `Mmad`/`Fixpipe` overlap on the hardware; no effect here.
    pub unit_flag: u8,
    /// NZ `float` output in 16 × 8 fractals.
    pub is_channel_split: bool,
}

impl Default for FixpipeParamsV220 {
    /// AscendC's defaults: nothing to move, one ND matrix, no conversion.
    fn default() -> Self {
        FixpipeParamsV220 {
            n_size: 0,
            m_size: 0,
            src_stride: 0,
            dst_stride: 0,
            relu_en: false,
            quant_pre: QuantMode_t::NoQuant,
            deq_scalar: 0,
            nd_num: 1,
            src_nd_stride: 0,
            dst_nd_stride: 0,
            unit_flag: 0,
            is_channel_split: false,
        }
    }
}

impl FixpipeParamsV220 {
    /// The parameters in AscendC's constructor order (`is_channel_split` false; set the field
    /// for the vendor's twelve-argument form).
    #[allow(clippy::too_many_arguments)]
    pub const fn new(
        n_size: u16,
        m_size: u16,
        src_stride: u16,
        dst_stride: u32,
        relu_en: bool,
        quant_pre: QuantMode_t,
        deq_scalar: u64,
        nd_num: u16,
        src_nd_stride: u16,
        dst_nd_stride: u16,
        unit_flag: u8,
    ) -> Self {
        FixpipeParamsV220 {
            n_size,
            m_size,
            src_stride,
            dst_stride,
            relu_en,
            quant_pre,
            deq_scalar,
            nd_num,
            src_nd_stride,
            dst_nd_stride,
            unit_flag,
            is_channel_split: false,
        }
    }
}

mod sealed {
    use super::QuantMode_t;

    /// One decoded quantisation parameter (`QUANT_PRE`, or `Quant_PRE_ADDR[j]`): see the
    /// module docs of `fixpipe`.
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    pub struct QuantParam {
        pub m1: f32,
        pub m2: f32,
        /// `MCB`'s shift, `None` when off.
        pub shift: Option<u32>,
        pub offset: i32,
    }

    /// What a conversion needs: ReLU, the saturation mode and, for the quantising modes, the
    /// parameters of the 16 columns of the Z column being converted.
    pub struct Conv<'a> {
        pub relu: bool,
        pub sat: bool,
        pub q: &'a [QuantParam; 16],
    }

    /// The conversion of one `(D, S)` pair.
    pub trait Out<S>: Sized {
        /// The modes the vendor accepts for the pair.
        const MODES: &'static [QuantMode_t];
        /// Whether the destination is a signed 8-bit type (the quantisation's `Sign` bit).
        const SIGNED: Option<bool> = None;
        /// Converts `src` (rows of 16 columns) into `dst` (same length).
        fn convert(src: &[S], dst: &mut [Self], cv: &Conv);
    }
}

/// Decodes parameter `raw` (named `what`) of `mode` for a destination that is `signed`
/// (8-bit modes), or fails naming the field.
#[track_caller]
fn decode(
    raw: u64,
    what: &dyn Fn() -> String,
    mode: QuantMode_t,
    relu: bool,
    signed: Option<bool>,
) -> QuantParam {
    use QuantMode_t::*;
    let bits = (raw as u32) & 0xFFFF_E000;
    let (exp, man) = ((bits >> 23) & 0xFF, (bits >> 13) & 0x3FF);
    ensure(exp != 0xFF, API, || {
        format!(
            "{} = {raw:#x}: its scale M1 (bits 31..13) is inf or NaN (the Fixpipe page: no inf/nan)",
            what()
        )
    });
    ensure(exp != 0 || man == 0, API, || {
        format!(
            "{} = {raw:#x}: its scale M1 (bits 31..13) is a denormal (the Fixpipe page: no denormals)",
            what()
        )
    });
    if let Some(signed) = signed {
        let sign = raw >> 46 & 1 == 1;
        ensure(sign == signed, API, || {
            format!(
                "{} = {raw:#x}: its Sign bit (46) is {} ({} result), but dst is {}",
                what(),
                u8::from(sign),
                if sign { "int8_t" } else { "uint8_t" },
                if signed { "int8_t" } else { "uint8_t" }
            )
        });
    }
    let m1 = f32::from_bits(bits);
    let mcb = raw >> 36 & 1 == 1 && matches!(mode, DEQF16 | VDEQF16 | REQ8 | VREQ8);
    let offset = if matches!(mode, DEQF16 | VDEQF16) { 0 } else { (raw >> 37 & 0x1FF) as i32 };
    QuantParam {
        m1,
        m2: if relu { 0.0 } else { m1 },
        shift: mcb.then_some((raw >> 32 & 0xF) as u32 + 1),
        offset,
    }
}

use sealed::{Conv, QuantParam};

/// A destination type `D` that [`fixpipe`] can write from L0C results of type `S`
/// (Ascend910B: `float` → `int8_t`, `uint8_t`, `half`, `bfloat16_t`, `float`; `int32_t` →
/// `int8_t`, `uint8_t`, `half`, `int32_t`). Sealed; other pairs do not compile:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// use ascend_core::cube::fixpipe::{fixpipe, FixpipeParamsV220};
/// fn f(d: &GlobalTensor<bf16>, s: &LocalTensor<i32>) { fixpipe(d, s, &FixpipeParamsV220::default()); }
/// ```
pub trait FixpipeOut<S: Element>: Element + sealed::Out<S> {}

/// ReLU of an L0C value.
trait Relu: Copy {
    fn relu(self) -> Self;
}
impl Relu for f32 {
    #[inline(always)]
    fn relu(self) -> f32 {
        if self < 0.0 {
            0.0
        } else {
            self
        }
    }
}
impl Relu for i32 {
    #[inline(always)]
    fn relu(self) -> i32 {
        self.max(0)
    }
}

/// The same type: a copy, with ReLU.
fn same<T: Relu>(src: &[T], dst: &mut [T], relu: bool) {
    if relu {
        for (d, s) in dst.iter_mut().zip(src) {
            *d = s.relu();
        }
    } else {
        dst.copy_from_slice(src);
    }
}

impl sealed::Out<f32> for f32 {
    const MODES: &'static [QuantMode_t] = &[QuantMode_t::NoQuant];
    fn convert(src: &[f32], dst: &mut [f32], cv: &Conv) {
        same(src, dst, cv.relu)
    }
}
impl sealed::Out<i32> for i32 {
    const MODES: &'static [QuantMode_t] = &[QuantMode_t::NoQuant];
    fn convert(src: &[i32], dst: &mut [i32], cv: &Conv) {
        same(src, dst, cv.relu)
    }
}
impl sealed::Out<f32> for f16 {
    const MODES: &'static [QuantMode_t] = &[QuantMode_t::F322F16];
    fn convert(src: &[f32], dst: &mut [f16], cv: &Conv) {
        let wide: Vec<f32> = src
            .iter()
            .map(|&x| {
                let x = if cv.relu { x.relu() } else { x };
                if cv.sat {
                    crate::vector::lane::saturate(x)
                } else {
                    x
                }
            })
            .collect();
        crate::f16conv::narrow_slice(&wide, dst);
    }
}
impl sealed::Out<f32> for bf16 {
    const MODES: &'static [QuantMode_t] = &[QuantMode_t::F322BF16];
    fn convert(src: &[f32], dst: &mut [bf16], cv: &Conv) {
        for (d, &x) in dst.iter_mut().zip(src) {
            let x = if cv.relu { x.relu() } else { x };
            let b = bf16::from_f32(x);
            *d = match cv.sat {
                true if x.is_nan() => bf16::ZERO,
                true if b.is_infinite() => bf16::MAX.copysign(b),
                _ => b,
            };
        }
    }
}

/// The scaled `float` of an `int32_t` L0C value: `MCB`'s shift, the conversion to `float`
/// and the multiply by `M1` or `M2`.
#[inline(always)]
fn scale_int(x: i32, q: &QuantParam) -> f32 {
    let x = match q.shift {
        Some(n) => (x >> n).clamp(i16::MIN as i32, i16::MAX as i32),
        None => x,
    };
    scale_float(x as f32, q)
}

#[inline(always)]
fn scale_float(f: f32, q: &QuantParam) -> f32 {
    if f >= 0.0 {
        f * q.m1
    } else {
        f * q.m2
    }
}

/// The 8-bit result of a scaled value: clamp to [-256, 255], round to nearest even, add the
/// offset, saturate to `[lo, hi]`.
#[inline(always)]
fn to_b8(y: f32, q: &QuantParam, lo: i32, hi: i32) -> i32 {
    let r = if y.is_nan() { 0 } else { y.clamp(-256.0, 255.0).round_ties_even() as i32 };
    (r + q.offset).clamp(lo, hi)
}

impl sealed::Out<i32> for f16 {
    const MODES: &'static [QuantMode_t] = &[QuantMode_t::DEQF16, QuantMode_t::VDEQF16];
    fn convert(src: &[i32], dst: &mut [f16], cv: &Conv) {
        for (e, (d, &x)) in dst.iter_mut().zip(src).enumerate() {
            let y = scale_int(x, &cv.q[e % 16]);
            *d = f16::from_f32(y.clamp(-65504.0, 65504.0));
        }
    }
}

macro_rules! b8_out {
    ($($d:ty, $signed:expr;)*) => {$(
        impl sealed::Out<i32> for $d {
            const MODES: &'static [QuantMode_t] = &[QuantMode_t::REQ8, QuantMode_t::VREQ8];
            const SIGNED: Option<bool> = Some($signed);
            fn convert(src: &[i32], dst: &mut [$d], cv: &Conv) {
                for (e, (d, &x)) in dst.iter_mut().zip(src).enumerate() {
                    let q = &cv.q[e % 16];
                    *d = to_b8(scale_int(x, q), q, <$d>::MIN as i32, <$d>::MAX as i32) as $d;
                }
            }
        }
        impl sealed::Out<f32> for $d {
            const MODES: &'static [QuantMode_t] = &[QuantMode_t::QF322B8_PRE, QuantMode_t::VQF322B8_PRE];
            const SIGNED: Option<bool> = Some($signed);
            fn convert(src: &[f32], dst: &mut [$d], cv: &Conv) {
                for (e, (d, &x)) in dst.iter_mut().zip(src).enumerate() {
                    let q = &cv.q[e % 16];
                    *d = to_b8(scale_float(x, q), q, <$d>::MIN as i32, <$d>::MAX as i32) as $d;
                }
            }
        }
    )*};
}
b8_out! { i8, true; u8, false; }

macro_rules! fixpipe_pairs {
    ($($d:ty, $s:ty;)*) => {$( impl FixpipeOut<$s> for $d {} )*};
}
fixpipe_pairs! {
    f32, f32; f16, f32; bf16, f32; i8, f32; u8, f32;
    i32, i32; f16, i32; i8, i32; u8, i32;
}

/// Moves an `m_size × n_size` block of L0C results (or `nd_num` of them) to global memory as
/// row-major matrices, converting each value (AscendC `Fixpipe<T, U, CFG_ROW_MAJOR>(dst,
/// src, FixpipeParamsV220)`, pipe FIX): see the [module](self) for the layouts and the
/// conversions. Under [`set_atomic_add`](crate::atomic::set_atomic_add) the values are added
/// to global memory (the split-K accumulation of a matmul).
///
/// ```
/// use ascend_core::prelude::*;
/// use ascend_core::cube::fixpipe::{fixpipe, FixpipeParamsV220, QuantMode_t};
/// let mut l0c = LocalMemAllocator::<L0C>::new();
/// let c = l0c.alloc::<f32>(16 * 16); // one 16 x 16 fractal, row-major inside
/// c.copy_from_slice(&(0..256).map(|i| i as f32 - 100.0).collect::<Vec<_>>());
/// let region = GmRegion::zeroed(16 * 20 * 2);
/// let mut gm = GlobalTensor::<f16>::new();
/// gm.set_global_buffer(region.addr(), 16 * 20);
/// // 16 rows of 16 columns into rows of 20 halfs, negative values cut to 0
/// let p = FixpipeParamsV220::new(16, 16, 16, 20, true, QuantMode_t::F322F16, 0, 1, 0, 0, 0);
/// fixpipe(&gm, &c, &p);
/// assert_eq!(gm.get_value(0).to_f32(), 0.0); // -100 through ReLU
/// assert_eq!(gm.get_value(7 * 20 + 5).to_f32(), 17.0); // row 7, column 5: 7 * 16 + 5 - 100
/// ```
///
/// # Panics
/// Panics if the chip is not Ascend910B (Ascend310B's `FixpipeParamsM300` form is not
/// modelled; Ascend910 and Ascend310P move L0C with `DataCopy` instead), `src` is not in L0C
/// or not 64-byte aligned, `dst` is unbound, a parameter is outside its range (`n_size >
/// 4095`, `m_size > 8192`, `dst_stride` 0 or below `n_size`, `src_nd_stride > 512`, with
/// `nd_num > 1` a zero `src_nd_stride` or `dst_nd_stride`, `unit_flag` not 0, 2 or 3,
/// `is_channel_split`), `quant_pre` does not fit `(D, S)` or is a vector mode (those take
/// [`fixpipe_with_quant`]), `deq_scalar` is invalid for a scalar mode (an inf, NaN or
/// denormal scale, a `Sign` bit that does not match `D`), either extent exceeds its tensor, or
/// two destination matrices overlap.
#[track_caller]
pub fn fixpipe<D: FixpipeOut<S>, S: Element>(
    dst: &GlobalTensor<D>,
    src: &LocalTensor<S>,
    params: &FixpipeParamsV220,
) {
    run(dst, src, params, true, None)
}

/// [`fixpipe`] with a quantisation parameter per column (AscendC `Fixpipe<T, U,
/// CFG_ROW_MAJOR>(dst, src, cbufWorkspace, FixpipeParamsV220)`): `quant_pre` is one of the
/// vector modes `VDEQF16`, `VQF322B8_PRE`, `VREQ8`, and `cbuf_workspace` (in L1, 32-byte
/// aligned) holds one 64-bit parameter per column `j < n_size`, laid out as
/// [`deq_scalar`](FixpipeParamsV220::deq_scalar) is (see the [module](self) docs).
///
/// ```
/// use ascend_core::prelude::*;
/// use ascend_core::cube::fixpipe::{fixpipe_with_quant, FixpipeParamsV220, QuantMode_t};
/// let mut l0c = LocalMemAllocator::<L0C>::new();
/// let c = l0c.alloc::<i32>(16 * 16);
/// c.copy_from_slice(&(0..256).map(|i| i - 128).collect::<Vec<i32>>());
/// // column j scaled by (j + 1) / 4, an int8 result (Sign bit 46 set)
/// let l1 = LocalTensor::<u64>::new(TPosition::C1, 0, 16);
/// let q: Vec<u64> = (0..16).map(|j| ((j as f32 + 1.0) / 4.0).to_bits() as u64 | 1 << 46).collect();
/// l1.copy_from_slice(&q);
/// let region = GmRegion::zeroed(256);
/// let mut gm = GlobalTensor::<i8>::new();
/// gm.set_global_buffer(region.addr(), 256);
/// let p = FixpipeParamsV220::new(16, 16, 16, 16, false, QuantMode_t::VREQ8, 0, 1, 0, 0, 0);
/// fixpipe_with_quant(&gm, &c, &l1, &p);
/// assert_eq!(gm.get_value(9 * 16 + 7), 46); // row 9, column 7: (151 - 128) * 2.0
/// assert_eq!(gm.get_value(1), -64); // row 0, column 1: -127 * 0.5 = -63.5, ties to even
/// ```
///
/// # Panics
/// As [`fixpipe`]; also if `quant_pre` is not a vector mode, `cbuf_workspace` is not in L1,
/// not 32-byte aligned or shorter than `n_size` values, or one of them is invalid (as
/// `deq_scalar` for the scalar modes; the message names the column).
#[track_caller]
pub fn fixpipe_with_quant<D: FixpipeOut<S>, S: Element>(
    dst: &GlobalTensor<D>,
    src: &LocalTensor<S>,
    cbuf_workspace: &LocalTensor<u64>,
    params: &FixpipeParamsV220,
) {
    run(dst, src, params, true, Some(cbuf_workspace))
}

/// [`fixpipe_nz`] with a quantisation parameter per column (AscendC `Fixpipe<T, U,
/// CFG_NZ>(dst, src, cbufWorkspace, FixpipeParamsV220)`): see [`fixpipe_with_quant`].
///
/// ```
/// use ascend_core::prelude::*;
/// use ascend_core::cube::fixpipe::{fixpipe_nz_with_quant, FixpipeParamsV220, QuantMode_t};
/// let mut l0c = LocalMemAllocator::<L0C>::new();
/// let c = l0c.alloc::<i32>(16 * 16);
/// c.copy_from_slice(&[1000; 256]);
/// let l1 = LocalTensor::<u64>::new(TPosition::C1, 0, 16);
/// l1.copy_from_slice(&(0..16).map(|j| (0.5f32 * (j + 1) as f32).to_bits() as u64).collect::<Vec<_>>());
/// let region = GmRegion::zeroed(512);
/// let mut gm = GlobalTensor::<f16>::new();
/// gm.set_global_buffer(region.addr(), 256);
/// let p = FixpipeParamsV220::new(16, 16, 16, 16, false, QuantMode_t::VDEQF16, 0, 1, 0, 0, 0);
/// fixpipe_nz_with_quant(&gm, &c, &l1, &p);
/// assert_eq!(gm.get_value(5 * 16 + 3).to_f32(), 2000.0); // row 5, column 3: 1000 * 0.5 * 4
/// ```
///
/// # Panics
/// As [`fixpipe_nz`] and [`fixpipe_with_quant`].
#[track_caller]
pub fn fixpipe_nz_with_quant<D: FixpipeOut<S>, S: Element>(
    dst: &GlobalTensor<D>,
    src: &LocalTensor<S>,
    cbuf_workspace: &LocalTensor<u64>,
    params: &FixpipeParamsV220,
) {
    run(dst, src, params, false, Some(cbuf_workspace))
}

/// [`fixpipe`] with NZ output (AscendC `Fixpipe<T, U, CFG_NZ>`): the destination keeps the
/// NZ layout, its Z columns `dst_stride` 32-byte blocks apart; `is_channel_split` (`float`
/// to `float`) makes them 8 columns wide. See the [module](self).
///
/// ```
/// use ascend_core::prelude::*;
/// use ascend_core::cube::fixpipe::{fixpipe_nz, FixpipeParamsV220, QuantMode_t};
/// let mut l0c = LocalMemAllocator::<L0C>::new();
/// let c = l0c.alloc::<i32>(2 * 256); // two Z columns of 16 rows
/// c.copy_from_slice(&(0..512).collect::<Vec<i32>>());
/// let region = GmRegion::zeroed(3 * 256 * 4);
/// let mut gm = GlobalTensor::<i32>::new();
/// gm.set_global_buffer(region.addr(), 3 * 256);
/// // Z columns 16 rows apart in L0C, 48 blocks (one fractal and a half) apart in GM
/// let p = FixpipeParamsV220::new(32, 16, 16, 48, false, QuantMode_t::NoQuant, 0, 1, 0, 0, 0);
/// fixpipe_nz(&gm, &c, &p);
/// assert_eq!(gm.get_value(384 + 17), 256 + 17); // second Z column, row 1, column 1
/// ```
///
/// # Panics
/// As [`fixpipe`], with NZ's limits: `n_size` a multiple of 16 (of 8 with channel split),
/// `m_size <= 65535`, the destination 32-byte aligned, its Z columns not overlapping
/// (`dst_stride` 32-byte blocks at least a column's bytes), channel split only for `float`
/// to `float` without `unit_flag`.
#[track_caller]
pub fn fixpipe_nz<D: FixpipeOut<S>, S: Element>(
    dst: &GlobalTensor<D>,
    src: &LocalTensor<S>,
    params: &FixpipeParamsV220,
) {
    run(dst, src, params, false, None)
}

/// The smallest `|x + k * step|` over `k` in `-(kmax)..=kmax` (`step > 0`, `x >= 0`).
fn closest(x: u64, step: u64, kmax: u64) -> u64 {
    let q = (x / step).min(kmax);
    let near = x - q * step;
    if q < kmax {
        near.min((q + 1) * step - x)
    } else {
        near
    }
}

#[track_caller]
fn run<D: FixpipeOut<S>, S: Element>(
    dst: &GlobalTensor<D>,
    src: &LocalTensor<S>,
    params: &FixpipeParamsV220,
    nd: bool,
    workspace: Option<&LocalTensor<u64>>,
) {
    crate::kernel::ctx::check_cancel();
    let soc = crate::kernel::ctx::get_soc();
    match soc {
        Soc::Ascend910B => {}
        Soc::Ascend310B => fail(
            API,
            "Fixpipe with FixpipeParamsV220 is Ascend910B's; Ascend310B takes FixpipeParamsM300, which is not \
             modelled",
        ),
        _ => fail(
            API,
            format!(
                "Fixpipe is not supported on {soc} (supported here: Ascend910B): that chip moves L0C results with \
                 DataCopy from CO1 to CO2"
            ),
        ),
    }
    let p = *params;
    let split = p.is_channel_split;
    check_operand(src, API, "src", &[Memory::L0C], 64);
    let dst_base = dst.base_ptr(API);
    // Parameters.
    check_range(API, "nSize", p.n_size.into(), 0, 4095);
    let unit = if split { 8 } else { 16 };
    ensure(nd || p.n_size % unit == 0, API, || {
        let why = if split { "with isChannelSplit" } else { "for NZ output" };
        format!("nSize = {} is not a multiple of {unit} {why}", p.n_size)
    });
    check_range(API, "mSize", p.m_size.into(), 0, if nd { 8192 } else { 65535 });
    ensure(p.dst_stride != 0, API, || "dstStride = 0: it must be at least 1".to_string());
    check_range(API, "srcNdStride", p.src_nd_stride.into(), if p.nd_num > 1 { 1 } else { 0 }, 512);
    check_range(API, "dstNdStride", p.dst_nd_stride.into(), if p.nd_num > 1 { 1 } else { 0 }, 65535);
    ensure(matches!(p.unit_flag, 0 | 2 | 3), API, || {
        format!("unitFlag = {} is not one of 0, 2, 3", p.unit_flag)
    });
    if split {
        ensure(S::DTYPE == crate::element::DType::F32 && D::DTYPE == crate::element::DType::F32, API, || {
            format!("isChannelSplit = true needs float to float, not {} to {}", S::DTYPE, D::DTYPE)
        });
        ensure(!nd, API, || {
            "isChannelSplit = true cannot be combined with NZ2ND (CFG_ROW_MAJOR)".to_string()
        });
        ensure(p.unit_flag == 0, API, || {
            format!("isChannelSplit = true cannot be combined with unitFlag = {}", p.unit_flag)
        });
    }
    let mode = p.quant_pre;
    ensure(<D as sealed::Out<S>>::MODES.contains(&mode), API, || {
        let modes: Vec<String> = <D as sealed::Out<S>>::MODES.iter().map(|m| format!("{m:?}")).collect();
        format!(
            "quantPre = {mode:?} does not convert {} (L0C) to {} (GM): this pair takes {}",
            S::DTYPE,
            D::DTYPE,
            modes.join(" or ")
        )
    });
    use QuantMode_t::*;
    let vector = matches!(mode, VDEQF16 | VQF322B8_PRE | VREQ8);
    let scalar = matches!(mode, DEQF16 | QF322B8_PRE | REQ8);
    match workspace {
        None => ensure(!vector, API, || {
            format!(
                "quantPre = {mode:?} quantises per column: it takes the cbufWorkspace tensor of fixpipe_with_quant / \
                 fixpipe_nz_with_quant"
            )
        }),
        Some(ws) => {
            ensure(vector, API, || {
                format!("quantPre = {mode:?} with a cbufWorkspace: it is used by VDEQF16, VQF322B8_PRE and VREQ8 only")
            });
            check_operand(ws, API, "cbufWorkspace", &[Memory::L1], 32);
        }
    }
    let (n, m) = (u64::from(p.n_size), u64::from(p.m_size));
    let nd_num = if nd { u64::from(p.nd_num) } else { 1 };
    // The quantisation parameters, one per column (decoded once per call).
    let signed = <D as sealed::Out<S>>::SIGNED;
    let mut qparams: Vec<QuantParam> = Vec::new();
    if scalar {
        let q = decode(p.deq_scalar, &|| "deqScalar".to_string(), mode, p.relu_en, signed);
        qparams = vec![q; 16];
    } else if let Some(ws) = workspace {
        check_extent(ws, API, "cbufWorkspace (one uint64_t per column of nSize)", n as usize * 8);
        let pw = ws.ptr() as *const u64;
        qparams = (0..n as usize)
            .map(|j| {
                // SAFETY: the `n` values lie inside `cbuf_workspace` (checked just above).
                let r = unsafe { pw.add(j).read() };
                decode(r, &|| format!("cbufWorkspace[{j}]"), mode, p.relu_en, signed)
            })
            .collect();
        qparams.resize(n.div_ceil(16) as usize * 16, QuantParam::default());
    }
    if n == 0 || m == 0 || nd_num == 0 {
        return;
    }
    let cols = n.div_ceil(16); // source Z columns
    let (src_stride, dst_stride) = (u64::from(p.src_stride) * 16, u64::from(p.dst_stride));
    let src_nd = u64::from(p.src_nd_stride) * 256;
    let src_end = (nd_num - 1) * src_nd + (cols - 1) * src_stride + m * 16;
    let src_bytes = usize::try_from(src_end).unwrap_or(usize::MAX).saturating_mul(S::SIZE);
    check_extent(
        src,
        API,
        "src (ndNum matrices srcNdStride * 256 elements apart, each mSize rows of ceil(nSize / 16) Z columns \
         srcStride * 16 elements apart)",
        src_bytes,
    );
    let sz = D::SIZE as u64;
    if nd {
        ensure(m == 1 || dst_stride >= n, API, || {
            format!("dstStride = {dst_stride} elements is below nSize = {n}: the ND rows would overlap")
        });
        let dst_nd = u64::from(p.dst_nd_stride);
        let dst_end = (nd_num - 1) * dst_nd + (m - 1) * dst_stride + n;
        ensure(dst_end <= dst.get_size() as u64, API, || {
            format!(
                "the ND destination spans {dst_end} {} elements (ndNum = {nd_num}, dstNdStride = {dst_nd}, mSize = \
                 {m}, dstStride = {dst_stride}, nSize = {n}), but dst has {} elements",
                D::DTYPE,
                dst.get_size()
            )
        });
        // Matrices `k` apart overlap iff some row difference `dm` (|dm| < m) brings
        // `k * dstNdStride + dm * dstStride` within `n` of 0 (one pass over `k`, not per element).
        if let Some(k) = (1..nd_num).find(|&k| closest(k * dst_nd, dst_stride, m - 1) < n) {
            fail(
                API,
                format!(
                    "dstNdStride = {dst_nd} with dstStride = {dst_stride}, mSize = {m}, nSize = {n}: ND matrices {k} \
                     apart overlap in the destination (ndNum = {nd_num})"
                ),
            );
        }
    } else {
        ensure(dst.byte_offset() % 32 == 0, API, || {
            format!(
                "dst is at byte offset {} of its buffer: NZ output needs 32-byte alignment",
                dst.byte_offset()
            )
        });
        let (out_cols, width) = if split { (n / 8, 8) } else { (cols, 16) };
        let col_bytes = m * width * sz;
        ensure(out_cols == 1 || dst_stride * 32 >= col_bytes, API, || {
            format!(
                "dstStride = {dst_stride} blocks ({} bytes) is below one Z column's {col_bytes} bytes (mSize = {m} \
                 rows of {width} {}): the columns would overlap",
                dst_stride * 32,
                D::DTYPE
            )
        });
        let dst_end = (out_cols - 1) * dst_stride * 32 + col_bytes;
        ensure(dst_end <= dst.get_size() as u64 * sz, API, || {
            format!(
                "the NZ destination spans {dst_end} bytes ({out_cols} Z columns of {col_bytes} bytes, dstStride = \
                 {dst_stride} blocks), but dst has {} bytes",
                dst.get_size() as u64 * sz
            )
        });
    }

    if crate::observe::events::is_on() {
        let (n, m, usz) = (n as usize, m as usize, D::SIZE);
        let gm: Vec<GmRows> = if nd {
            let dst_nd = usize::from(p.dst_nd_stride);
            (0..nd_num as usize)
                .map(|mat| GmRows::of(dst, mat * dst_nd * usz, m, n * usz, dst_stride as usize * usz))
                .collect()
        } else {
            let (out_cols, width) = if split { (n / 8, 8) } else { (cols as usize, 16) };
            vec![GmRows::of(dst, 0, out_cols, m * width * usz, dst_stride as usize * 32)]
        };
        // The Z columns read: per matrix, `cols` runs of `m` rows of 16, `srcStride` apart (one
        // run when they touch).
        let (src_nd, src_stride, cols) = (src_nd as usize, src_stride as usize, cols as usize);
        let runs = (0..nd_num as usize).flat_map(|mat| {
            (0..cols).map(move |k| ((mat * src_nd + k * src_stride) * S::SIZE, m * 16 * S::SIZE))
        });
        let mut reads = crate::observe::sanitizer::spans_of(src, nd_num as usize * cols, runs, src_bytes);
        if let Some(ws) = workspace {
            reads.push(crate::observe::sanitizer::Span::of(ws, n * 8));
        }
        crate::observe::events::on_cube(API, pipe_t::PIPE_FIX, &[], &reads, &[], &gm, false);
    }

    // The conversion, one source Z column (m rows of 16) at a time.
    let sat = crate::kernel::ctx::get_overflow_mode() == OverflowMode::Saturation;
    let (n, m, cols) = (n as usize, m as usize, cols as usize);
    let src_base = src.ptr();
    let mut zin = vec![S::ZERO; m * 16];
    let mut zout = vec![D::ZERO; m * 16];
    let none = [QuantParam::default(); 16];
    let mut convert_column = |mat: usize, k: usize, zout: &mut [D]| {
        let at = mat * src_nd as usize + k * src_stride as usize;
        // SAFETY: `at + m * 16 <= src_end` elements, checked against `src`; the host buffer
        // does not overlap the L0C arena.
        unsafe { std::ptr::copy_nonoverlapping(src_base.add(at), zin.as_mut_ptr(), m * 16) };
        let q: &[QuantParam; 16] = match qparams.len() {
            0 => &none,
            16 if scalar => qparams[..16].try_into().unwrap_or(&none),
            _ => qparams[k * 16..k * 16 + 16].try_into().unwrap_or(&none),
        };
        D::convert(&zin, zout, &Conv { relu: p.relu_en, sat, q });
    };
    let usz = D::SIZE;
    if nd {
        let mut out = vec![D::ZERO; m * n];
        for mat in 0..nd_num as usize {
            for k in 0..cols {
                convert_column(mat, k, &mut zout);
                let w = (n - k * 16).min(16);
                for (row, z) in out.chunks_exact_mut(n).zip(zout.chunks_exact(16)) {
                    row[k * 16..k * 16 + w].copy_from_slice(&z[..w]);
                }
            }
            let off = mat * usize::from(p.dst_nd_stride);
            let shape = Rows { rows: m, row: n * usz, d_pitch: dst_stride as usize * usz, s_pitch: n * usz };
            // SAFETY: the destination extent was checked against the bound tensor.
            unsafe { write_gm(dst, dst_base.add(off), &out, shape) };
        }
    } else {
        let width = if split { 8 } else { 16 };
        let out_cols = n / width;
        let mut out = vec![D::ZERO; out_cols * m * width];
        for k in 0..cols {
            convert_column(0, k, &mut zout);
            if split {
                // Each 16-wide source column feeds up to two 8-wide destination columns.
                for half in 0..2.min(out_cols - 2 * k) {
                    let col = &mut out[(2 * k + half) * m * 8..(2 * k + half + 1) * m * 8];
                    for (d, z) in col.chunks_exact_mut(8).zip(zout.chunks_exact(16)) {
                        d.copy_from_slice(&z[half * 8..half * 8 + 8]);
                    }
                }
            } else {
                out[k * m * 16..(k + 1) * m * 16].copy_from_slice(&zout);
            }
        }
        let col = m * width * usz;
        let shape = Rows { rows: out_cols, row: col, d_pitch: dst_stride as usize * 32, s_pitch: col };
        // SAFETY: the destination extent was checked against the bound tensor.
        unsafe { write_gm(dst, dst_base, &out, shape) };
    }
}

/// Writes `data` (rows of `shape.row` bytes, `shape.s_pitch` apart) to global memory at `at`,
/// rows `shape.d_pitch` bytes apart, under the core's atomic mode if one is set.
///
/// # Safety
/// Every destination row lies inside `dst`'s bound range; `data` holds every source row.
#[track_caller]
unsafe fn write_gm<D: Element>(dst: &GlobalTensor<D>, at: *mut D, data: &[D], shape: Rows) {
    let (d, s) = (at.cast::<u8>(), data.as_ptr().cast::<u8>());
    // SAFETY: the caller's contract; `data` is a host buffer, not global memory.
    if unsafe { store_to_gm::<D>(API, || dst.region_arc(), d, s, shape) } {
        return;
    }
    for r in 0..shape.rows {
        // SAFETY: as above, row by row.
        unsafe { crate::memory::gm_io::store(d.add(r * shape.d_pitch), s.add(r * shape.s_pitch), shape.row) };
    }
}

/// Clears the unit flags of every L0C block (AscendC `SetFixPipeConfig<T, setRelu>(preData,
/// isUnitFlag)` with `preData` a `CO1` tensor): the hand-over marks `Mmad` and `Fixpipe` leave
/// with `unitFlag` 2 and 3. Unit flags only decide when the FIX pipe may take an L0C block
/// the M pipe is done with — timing, which is not modelled — so the call checks its operands
/// and changes nothing. The form that points the quantisation at a tensor in the Fixpipe
/// buffer (`C2PIPE2GM`) is not modelled (the Fixpipe buffer is not: [`fixpipe_with_quant`]
/// takes the per-column parameters from L1, as the vendor's `cbufWorkspace` overload does). `SET_RELU`
/// must be `false`, as the vendor supports only that:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// use ascend_core::cube::fixpipe::set_fix_pipe_config;
/// let mut l0c = LocalMemAllocator::<L0C>::new();
/// set_fix_pipe_config::<f32, true>(&l0c.alloc::<f32>(256), true);
/// ```
///
/// ```
/// use ascend_core::prelude::*;
/// use ascend_core::cube::fixpipe::set_fix_pipe_config;
/// let mut l0c = LocalMemAllocator::<L0C>::new();
/// let c = l0c.alloc::<f32>(16 * 16);
/// set_fix_pipe_config::<f32, false>(&c, true);
/// ```
///
/// # Panics
/// Panics if the chip is not Ascend910B or Ascend310B, or `pre_data` is not in L0C (the
/// quantisation-tensor form).
#[track_caller]
pub fn set_fix_pipe_config<T: Element, const SET_RELU: bool>(pre_data: &LocalTensor<T>, is_unit_flag: bool) {
    const { assert!(!SET_RELU, "SetFixPipeConfig: setRelu supports only false") };
    let api = "SetFixPipeConfig";
    let soc = crate::kernel::ctx::get_soc();
    ensure(matches!(soc, Soc::Ascend910B | Soc::Ascend310B), api, || {
        format!("SetFixPipeConfig is not supported on {soc} (supported: Ascend910B, Ascend310B)")
    });
    let mem = pre_data.memory();
    ensure(mem == Memory::L0C, api, || {
        format!(
            "preData is in {} (position {}): only the unit-flag reset with a CO1 (L0C) tensor is modelled; the \
             Fixpipe buffer (C2PIPE2GM) is not; fixpipe_with_quant takes the quantisation tensor from L1",
            mem.hardware_name(),
            pre_data.get_position()
        )
    });
    let _ = is_unit_flag;
}
