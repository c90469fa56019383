//! `GatherMask`: keep the elements of `src0` whose pattern bit is 1, packed from `dst[0]`
//! (AscendC `GatherMask`, the fixed patterns 1–7 and a user bit tensor, normal and counter
//! mode), returning the number kept (`rsvdCnt`).
//!
//! **Which lanes.** Normal mode (`reduce_mode = false`): `repeatTimes` repeats of `PAR` lanes
//! (`mask` is ignored). Counter mode (`reduce_mode = true`): on Ascend910B and Ascend310B every
//! repeat takes lanes `0..mask` (the vendor's "configuration 1": `repeatTimes × mask`
//! elements; a `mask` above `PAR` is not modelled and is an error); on Ascend310P `mask` is the
//! total element count and `repeatTimes` is ignored ("configuration 2"). Lane `j` of repeat
//! `r` is `src0` element `(r * src0RepeatStride + (j / EPB) * src0BlockStride) * EPB + j %
//! EPB`, walked by the shared engine.
//!
//! **Which bits.** A fixed pattern repeats every repeat: 1 even lanes, 2 odd lanes, 3/4/5/6
//! lane 0/1/2/3 of every 4, 7 every lane (not on Ascend310P). A user pattern tensor gives lane
//! `j` of repeat `r` bit `j % 8` of byte `r * src1RepeatStride * 32 + j / 8` (bits consumed
//! continuously inside a repeat).
//!
//! The call leaves the core in normal mask mode with `mask` in the low word of the mask
//! register, as the vendor's implementation does.

use crate::ctx::{get_soc, with_core, MaskMode};
use crate::element::Element;
use crate::error::ensure;
use crate::soc::Soc;
use crate::tensor::LocalTensor;
use crate::vector::engine::{apply, check_operand, span_of, Lanes, Operand};
use crate::vector::gather::GatherElement;
use crate::vector::mask::{prefix_bits, Plan};

const API: &str = "GatherMask";

/// Strides and repeats of [`gather_mask`] (AscendC `GatherMaskParams`, in its field order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GatherMaskParams {
    /// Blocks between consecutive blocks of one repeat of `src0`.
    pub src0_block_stride: u8,
    /// Repeats.
    pub repeat_times: u16,
    /// Blocks between the starts of consecutive repeats of `src0`.
    pub src0_repeat_stride: u16,
    /// Blocks between the starts of consecutive repeats of a user pattern.
    pub src1_repeat_stride: u8,
}

impl Default for GatherMaskParams {
    fn default() -> Self {
        GatherMaskParams {
            src0_block_stride: 1,
            repeat_times: 0,
            src0_repeat_stride: 8,
            src1_repeat_stride: 8,
        }
    }
}

impl GatherMaskParams {
    /// `{src0BlockStride, repeatTimes, src0RepeatStride, src1RepeatStride}`.
    pub const fn new(
        src0_block_stride: u8,
        repeat_times: u16,
        src0_repeat_stride: u16,
        src1_repeat_stride: u8,
    ) -> Self {
        GatherMaskParams { src0_block_stride, repeat_times, src0_repeat_stride, src1_repeat_stride }
    }
}

/// The gather mask: a fixed pattern or a user bit tensor.
#[derive(Clone, Copy, Debug)]
pub enum GatherPattern<'a, U: Element> {
    /// A fixed pattern `1..=7`.
    Fixed(u8),
    /// A user pattern tensor (`uint16_t` for 16-bit data, `uint32_t` for 32-bit data).
    Tensor(&'a LocalTensor<U>),
}

/// The engine kernel: appends every lane whose bit is set.
struct Keep<'a, T> {
    out: &'a mut Vec<T>,
    bit: &'a dyn Fn(usize) -> bool,
}

impl<T: Element> Lanes<T, 0> for Keep<'_, T> {
    const WRITES_DST: bool = false;

    unsafe fn run(&mut self, lane: usize, p: *mut T, _src: [*const T; 0], n: usize) {
        for i in 0..n {
            if (self.bit)(lane + i) {
                // SAFETY: the engine hands out `n` in-bounds elements of src0 at `p` (only read).
                self.out.push(unsafe { p.add(i).read() });
            }
        }
    }
}

/// Keeps the elements of `src0` whose gather-mask bit is 1, packed from `dst[0]`, and returns
/// how many (AscendC `GatherMask(dst, src0, src1Pattern, reduceMode, mask, gatherMaskParams,
/// rsvdCnt)`, both pattern forms). See the [module documentation](self).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 512);
/// pipe.init_tbuf(&mut b, 512);
/// let (src, dst) = (a.get::<f32>(), b.get::<f32>());
/// src.copy_from_slice(&(0..128).map(|i| i as f32).collect::<Vec<_>>());
/// // Pattern 2: the odd lanes of 2 repeats.
/// let n = gather_mask::<f32, u32>(&dst, &src, GatherPattern::Fixed(2), false, 0, &GatherMaskParams::new(1, 2, 8, 0));
/// assert_eq!(n, 64);
/// assert_eq!(dst.to_vec()[..3], [1.0, 3.0, 5.0]);
/// ```
///
/// # Panics
/// Panics if the chip lacks `T`; a fixed pattern is outside `1..=7` (`1..=6` on Ascend310P);
/// the pattern tensor's element size differs from `T`'s or it holds too few bytes; counter
/// mode has `mask = 0` (or above `PAR` on Ascend910B/Ascend310B); an operand is not a
/// 32-byte aligned UB tensor; a lane lies outside `src0`; `dst` holds fewer elements than are
/// kept; or `dst`'s kept elements overlap `src0`.
#[track_caller]
pub fn gather_mask<T: GatherElement, U: Element>(
    dst: &LocalTensor<T>,
    src0: &LocalTensor<T>,
    src1_pattern: GatherPattern<'_, U>,
    reduce_mode: bool,
    mask: u32,
    params: &GatherMaskParams,
    // AscendC's `rsvdCnt` is an out-parameter; here it is the return value.
) -> u64 {
    let soc = get_soc();
    ensure(T::gather_supported(soc), API, || {
        format!("T = {} is not supported by GatherMask on {soc} ({})", T::DTYPE, soc.product_line())
    });
    src0.check_vector_operand(API, "src0");
    dst.check_vector_operand(API, "dst");
    let par = T::PAR;
    let plan = if !reduce_mode {
        (params.repeat_times > 0).then(|| Plan {
            repeats: params.repeat_times.into(),
            bits: prefix_bits(par),
            last: prefix_bits(par),
        })
    } else {
        ensure(mask >= 1, API, || "mask = 0: in counter mode the mask must be at least 1".to_string());
        if soc == Soc::Ascend310P {
            Some(Plan::contiguous::<T>(mask as usize))
        } else {
            ensure(mask as usize <= par, API, || {
                format!(
                    "mask = {mask} above {par} elements per repeat in counter mode is not modelled on {soc}"
                )
            });
            (params.repeat_times > 0).then(|| Plan {
                repeats: params.repeat_times.into(),
                bits: prefix_bits(mask as usize),
                last: prefix_bits(mask as usize),
            })
        }
    };
    let fixed_bit = |p: u8, j: usize| match p {
        1 => j % 2 == 0,
        2 => j % 2 == 1,
        3..=6 => j % 4 == usize::from(p - 3),
        _ => true,
    };
    let mut pattern_bytes = Vec::new();
    let rep1 = usize::from(params.src1_repeat_stride) * 32;
    match src1_pattern {
        GatherPattern::Fixed(p) => {
            let top = if soc == Soc::Ascend310P { 6 } else { 7 };
            ensure((1..=top).contains(&p), API, || {
                format!("src1Pattern = {p} is out of range [1, {top}] on {soc}")
            });
        }
        GatherPattern::Tensor(t) => {
            t.check_vector_operand(API, "src1Pattern");
            ensure(U::SIZE == T::SIZE, API, || {
                format!(
                    "src1Pattern holds {} but {} data needs a {}-bit pattern type",
                    U::DTYPE,
                    T::DTYPE,
                    T::SIZE * 8
                )
            });
            if let Some(plan) = &plan {
                let need = (plan.repeats - 1) * rep1 + par.div_ceil(8);
                ensure(t.get_length() >= need, API, || {
                    format!("src1Pattern holds {} bytes but this call reads {need}", t.get_length())
                });
                crate::sanitizer::on_vector(API, &[span_of(t, need)], &[]);
            }
            pattern_bytes = t.reinterpret_cast::<u8>().to_vec();
        }
    }
    let mut kept = Vec::new();
    if let Some(plan) = &plan {
        let s = Operand::new(src0, params.src0_block_stride, params.src0_repeat_stride, "src0");
        let ext = check_operand(API, &s, plan);
        let bit: &dyn Fn(usize) -> bool = match src1_pattern {
            GatherPattern::Fixed(p) => &move |lane: usize| fixed_bit(p, lane % par),
            GatherPattern::Tensor(_) => &|lane: usize| {
                let (r, j) = (lane / par, lane % par);
                pattern_bytes[r * rep1 + j / 8] >> (j % 8) & 1 == 1
            },
        };
        apply::<T, 0, _>(API, plan, &s, [], &mut Keep { out: &mut kept, bit });
        ensure(dst.get_size() >= kept.len(), API, || {
            format!("dst holds {} elements but {} are kept", dst.get_size(), kept.len())
        });
        let (d0, d1) = dst.byte_range(kept.len());
        let (s0, s1) = src0.byte_range(ext);
        ensure(d1 <= s0 || s1 <= d0 || kept.is_empty(), API, || {
            format!("dst (bytes {d0:#x}..{d1:#x}) overlaps src0 (bytes {s0:#x}..{s1:#x})")
        });
        crate::sanitizer::on_vector(API, &[], &[span_of(dst, kept.len() * T::SIZE)]);
        let p = dst.ptr();
        for (i, v) in kept.iter().enumerate() {
            // SAFETY: `i < kept.len() <= dst.get_size()` (checked above); no slice of UB
            // memory is alive during an instruction.
            unsafe { p.add(i).write(*v) };
        }
    }
    with_core(|c| {
        c.mask_mode.set(MaskMode::Normal);
        c.mask.set([u64::from(mask), 0]);
    });
    kept.len() as u64
}
