//! `Brcb`: broadcast each of 8 source elements per repeat to one 32-byte block of `dst`.
//!
//! Repeat `r` reads `src[8r .. 8r + 8]` (always contiguous) and fills block `b` of the repeat
//! — `dst` elements `(r * dstRepStride + b * dstBlkStride) * EPB ..` `+ EPB` — with
//! `src[8r + b]`. A block stride of 0 is treated as 1, as the vendor's reference code does. The
//! `dst` side goes through the shared addressing engine with a full mask.

use crate::element::{bf16, f16, Element, BLOCKS_PER_REPEAT};
use crate::kernel::ctx::get_soc;
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::soc::Soc;
use crate::vector::engine::{apply, check_operand, span_of, Lanes, Operand};
use crate::vector::mask::{prefix_bits, reset_mask, set_mask_norm, Plan};

mod sealed {
    pub trait Sealed {}
}

/// Strides of [`brcb`] (AscendC `BrcbRepeatParams`; the reserved fields are not modelled).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BrcbRepeatParams {
    /// Blocks between consecutive blocks of one repeat of `dst` (0 is treated as 1).
    pub dst_blk_stride: u16,
    /// Blocks between the starts of consecutive repeats of `dst`.
    pub dst_rep_stride: u16,
}

impl Default for BrcbRepeatParams {
    fn default() -> Self {
        BrcbRepeatParams { dst_blk_stride: 1, dst_rep_stride: 8 }
    }
}

impl BrcbRepeatParams {
    /// `{dstBlkStride, dstRepStride}`.
    pub const fn new(dst_blk_stride: u16, dst_rep_stride: u16) -> Self {
        BrcbRepeatParams { dst_blk_stride, dst_rep_stride }
    }
}

/// Element types `Brcb` accepts: `int16_t`, `uint16_t`, `half`, `int32_t`, `uint32_t`, `float`
/// on Ascend910B and Ascend310P, `bfloat16_t` on Ascend910B; Ascend910 and Ascend310B have no
/// `Brcb` (run-time errors naming the chip). Other types do not compile:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<u8>) { brcb(t, t, 1, &BrcbRepeatParams::default()); }
/// ```
pub trait BrcbElement: Element + sealed::Sealed {
    /// Whether `Brcb` on this type exists on `soc`.
    fn brcb_supported(soc: Soc) -> bool;
}

macro_rules! brcb_types {
    ($($t:ty => |$soc:ident| $ok:expr),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl BrcbElement for $t {
            fn brcb_supported($soc: Soc) -> bool {
                $ok
            }
        }
    )*};
}
brcb_types! {
    u16 => |soc| matches!(soc, Soc::Ascend910B | Soc::Ascend310P),
    i16 => |soc| matches!(soc, Soc::Ascend910B | Soc::Ascend310P),
    f16 => |soc| matches!(soc, Soc::Ascend910B | Soc::Ascend310P),
    u32 => |soc| matches!(soc, Soc::Ascend910B | Soc::Ascend310P),
    i32 => |soc| matches!(soc, Soc::Ascend910B | Soc::Ascend310P),
    f32 => |soc| matches!(soc, Soc::Ascend910B | Soc::Ascend310P),
    bf16 => |soc| soc == Soc::Ascend910B,
}

const API: &str = "Brcb";

/// The engine kernel: lane `l` (global) takes `src[l / EPB]`.
struct BrcbKernel<T>(*const T);

impl<T: Element> Lanes<T, 0> for BrcbKernel<T> {
    #[inline(always)]
    unsafe fn run(&mut self, lane: usize, dst: *mut T, _src: [*const T; 0], n: usize) {
        for i in 0..n {
            // SAFETY: lane `l < repeats * PAR`, so `l / EPB < 8 * repeats <= src.get_size()`
            // (checked by `brcb`); src does not overlap dst; dst is valid for `n` writes.
            unsafe { dst.add(i).write(self.0.add((lane + i) / T::EPB).read()) };
        }
    }
}

/// Broadcasts 8 elements of `src` per repeat, each to one 32-byte block of `dst` (AscendC
/// `Brcb(dst, src, repeatTime, repeatParams)`). `repeat_time = 0` broadcasts nothing. It leaves
/// a full mask register, as the vendor's implementations reset it (Ascend310P also switches
/// to normal mask mode).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 32);
/// pipe.init_tbuf(&mut b, 512);
/// let (src, dst) = (a.get::<f16>(), b.get::<f16>());
/// src.copy_from_slice(&(0..16).map(|i| f16::from_f32(i as f32)).collect::<Vec<_>>());
/// brcb(&dst, &src, 2, &BrcbRepeatParams::new(1, 8));
/// assert!(dst.to_vec()[16..32].iter().all(|v| v.to_f32() == 1.0));
/// assert_eq!(dst.get_value(255).to_f32(), 15.0);
/// ```
///
/// # Panics
/// Panics if the chip lacks `T`; an operand is not a 32-byte aligned UB tensor; `src` holds
/// fewer than `8 * repeat_time` elements; a `dst` block lies outside `dst`; or `dst`'s
/// footprint shares a byte with `src`'s used elements.
#[track_caller]
pub fn brcb<T: BrcbElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    repeat_time: u8,
    repeat_params: &BrcbRepeatParams,
) {
    brcb_as(API, ["dst", "src"], dst, src, repeat_time, repeat_params);
}

/// [`brcb`] on behalf of `api` (a primitive built on it), which its checks and the sanitizer
/// name; `names` are the `[dst, src]` operands as `api` calls them.
#[track_caller]
pub(crate) fn brcb_as<T: BrcbElement>(
    api: &'static str,
    names: [&'static str; 2],
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    repeat_time: u8,
    repeat_params: &BrcbRepeatParams,
) {
    let [dst_name, src_name] = names;
    let soc = get_soc();
    ensure(T::brcb_supported(soc), api, || {
        format!("T = {} is not supported by Brcb on {soc} ({})", T::DTYPE, soc.product_line())
    });
    src.check_vector_operand(api, src_name);
    if repeat_time == 0 {
        dst.check_vector_operand(api, dst_name);
        leave_mask(soc);
        return;
    }
    let repeats = usize::from(repeat_time);
    let need = repeats * BLOCKS_PER_REPEAT;
    ensure(src.get_size() >= need, api, || {
        format!("{src_name} holds {} elements but repeatTime = {repeats} reads {need}", src.get_size())
    });
    let full = prefix_bits(T::PAR);
    let plan = Plan { repeats, bits: full, last: full };
    let blk = repeat_params.dst_blk_stride.max(1);
    let d = Operand::new(dst, blk, repeat_params.dst_rep_stride, dst_name);
    let ext = check_operand(api, &d, &plan);
    let (d0, d1) = dst.byte_range(ext);
    let (s0, s1) = src.byte_range(need);
    ensure(d1 <= s0 || s1 <= d0, api, || {
        format!(
            "{dst_name} (bytes {d0:#x}..{d1:#x}) overlaps {src_name} (bytes {s0:#x}..{s1:#x}); Brcb cannot work in place"
        )
    });
    crate::observe::events::on_vector(api, &[span_of(src, need * T::SIZE)], &[]);
    apply(api, &plan, &d, [], &mut BrcbKernel(src.ptr() as *const T));
    leave_mask(soc);
}

/// The mask state the vendor's `Brcb` leaves (`impl/basic_api/dav_*/kernel_operator_vec_brcb_impl.h`):
/// Ascend910B calls `ResetMask()` (a full mask register, the mode unchanged); Ascend310P
/// starts with `SetMaskNorm()` and ends with `ResetMask()`.
fn leave_mask(soc: Soc) {
    if soc == Soc::Ascend310P {
        set_mask_norm();
    }
    reset_mask();
}
