//! `DropOut` (`adv_api/filter/dropout.h`: [`drop_out`], [`drop_out_stack`],
//! [`DropOutShapeInfo`], and the host helpers [`get_drop_out_max_min_tmp_size`],
//! [`get_drop_out_min_tmp_size`], [`get_drop_out_max_tmp_size`]): keeps the elements of a
//! `[firstAxis, srcLastAxis]` source whose mask value is set and scales them by `1 / keepProb`;
//! the others become 0.
//!
//! The computation is the vendor's, step by step (asc-devkit
//! `impl/adv_api/detail/filter/dropout/`):
//! - `dropout_impl.h`: `divValue = 1.0f / keepProb` in `float`, then `static_cast<T>` (rounded
//!   to nearest for `half`); `dropOutMode = 0` infers the mode from the shape: `srcLastAxis <
//!   maskLastAxis` is mode 1, `==` mode 2, `srcLastAxis == 8 * maskLastAxis` mode 3, anything
//!   else mode 4 (the page: where the inference is not what the kernel means, it names the
//!   mode).
//! - `dropout_membase_impl.h`, byte mode (modes 1, 2): in counter mode, over rounds of the
//!   buffer's size (`half`: `bytes / 2` rounded down to 32 elements; `float`: `bytes / 6`
//!   rounded down to 32, a `half` view then a `float` view of that many elements), `Cast` of
//!   the mask bytes `u8 → half` (`→ float` for `float`), `Mul` by the source, `Muls` by
//!   `divValue`, each followed by `PipeBarrier<PIPE_V>`. A mask byte other than 0 or 1
//!   multiplies by its value, as the chip does.
//! - bit mode (modes 3, 4): unless `isInitBitMode`, the init: `ResetMask`, `Muls` by 0 of the
//!   buffer's first 128 `int16` lanes and `SetCmpMask` from them (the compare-mask register
//!   holds 0); then in counter mode `Select` mode 1 against the register's scalar (bit `i` of
//!   the mask keeps `src[i]`, a clear bit takes the scalar) and `Muls` by `divValue`. With
//!   `isInitBitMode = true` the kernel loads the register itself; its low bytes are the value
//!   a dropped element takes before the `Muls`.
//! - `dropout_c220_impl.h` (Ascend910B), the modes with dirty mask data (1, 4): the valid mask
//!   bytes of each row are first compacted in place by `GatherMask<uint16_t>` with pattern 7
//!   in counter mode (`repeatTimes = firstAxis`, `mask = srcLastAxis / 2` (byte mode) or
//!   `srcLastAxis / 16` (bit mode) `uint16_t`s, `src0RepeatStride = maskLastAxis / 32`), then
//!   the clean mode runs on the whole block. **The mask tensor is modified**, as the page says.
//! - `dropout_m200_impl.h` (Ascend310P), the dirty modes: no compaction; byte mode runs the
//!   clean byte mode once per row (`srcLastAxis` elements, mask row at `i * maskLastAxis`), bit
//!   mode one `Select` per row then one `Muls` over the block. The mask is left as it is.
//!
//! Supported on Ascend910B and Ascend310P (AI Core), for `half` and `float` (the page; the
//! header also builds it for Ascend910, whose row of the page says "不支持", unsupported, and
//! not for Ascend310B).
//!
//! **Choices where the sources are silent.**
//! - The checks of `dropout_check_common.h` (the mode, `keepProb ∈ (0, 1)`, the three axes
//!   positive, `maskLastAxis` even in the dirty modes) apply to the mode the call runs, the
//!   inferred one included (the vendor's check reads the template argument only).
//! - The page's constraints on the dirty modes are checked too: the count of valid mask values
//!   per row (`srcLastAxis` bytes, or `srcLastAxis / 8` bytes in bit mode, so `srcLastAxis` a
//!   multiple of 16) is even and at most `maskLastAxis`, and `maskLastAxis` is a multiple of 32
//!   (the page pads the mask rows to 32 bytes; `src0RepeatStride = maskLastAxis / 32` would
//!   otherwise read the wrong rows).
//! - A buffer below the host's minimum (`GetDropOutMinTmpSize`, 2 × 256 bytes) is an error in
//!   every mode (the bit-mode init alone writes 256 bytes; the page sends the buffer size to the
//!   host helper).
//! - The buffer must not overlap `dst`, `src` or the mask; `dst` may be `src` (the page).
//! - `firstAxis` above 65535 is an error on Ascend910B in the dirty modes (`GatherMask`'s
//!   `repeatTimes` is 16 bits).

use bytemuck::{Pod, Zeroable};

use crate::element::{f16, Element};
use crate::kernel::ctx::get_soc;
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::soc::Soc;
use crate::sync::{event::PIPE_V, flags::pipe_barrier};
use crate::vector::binary::{mul_masked, MulElement};
use crate::vector::cast::{cast_masked, RoundMode};
use crate::vector::gather_mask::{gather_mask, GatherMaskParams, GatherPattern};
use crate::vector::mask::{reset_mask, set_cmp_mask, set_mask_count, set_mask_norm, MASK_PLACEHOLDER};
use crate::vector::params::{BinaryRepeatParams, UnaryRepeatParams};
use crate::vector::scalar::{muls_masked, MulsElement};
use crate::vector::select::{select_scalar_reg, SelectElement};

use super::{
    check_apart, count_mask, counter_rounds, span, stack_tensor, whole, ONE_BLK_SIZE, V220_V200, WIDEN,
};

const API: &str = "DropOut";
/// The vendor's page, cited by the errors.
const PAGE: &str = "asc-devkit docs/zh/api/SIMD-API/高阶API/数据过滤/DropOut.md";
/// `GetDropOutMinTmpSize`: `DROPOUT_TWO_TIMES * DROPOUT_ONE_REPEAT_BYTE_SIZE`.
const MIN_TMP: usize = 2 * 256;

/// `DropOut`'s shape (AscendC `DropOutShapeInfo`): `firstAxis` rows of `srcLastAxis` source
/// elements, each with a mask row of `maskLastAxis` bytes (dirty padding included).
/// `#[repr(C)]` and [`Pod`], so it travels in tiling data.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct DropOutShapeInfo {
    /// Rows of the source and of the mask (`firstAxis`).
    pub first_axis: u32,
    /// Elements of a source row (`srcLastAxis`).
    pub src_last_axis: u32,
    /// Bytes of a mask row, its dirty padding included (`maskLastAxis`).
    pub mask_last_axis: u32,
}

mod sealed {
    pub trait Sealed {}
}

/// Element types of [`drop_out`]: `f16` and `f32` (the page's list for Ascend910B and
/// Ascend310P).
/// Other types do not compile (asserted at the end of this module).
pub trait DropOutElement: SelectElement + MulElement + MulsElement + sealed::Sealed {}

impl sealed::Sealed for f16 {}
impl DropOutElement for f16 {}
impl sealed::Sealed for f32 {}
impl DropOutElement for f32 {}

#[track_caller]
fn host_check(api: &'static str, src_shape: &[usize], type_size: usize) {
    ensure(type_size == 2 || type_size == 4, api, || format!("typeSize = {type_size}; it should be 2 or 4"));
    ensure(!src_shape.is_empty(), api, || "srcShape has 0 dimensions; it should have more than 0".into());
}

fn max_tmp(src_shape: &[usize]) -> usize {
    (2 * src_shape.iter().product::<usize>() * 4).max(MIN_TMP)
}

/// The temporary buffer's `(max, min)` bytes for [`drop_out`] (AscendC
/// `GetDropOutMaxMinTmpSize(srcShape, typeSize, isReuseSource, maxValue, minValue)`), as the
/// vendor's host library computes them (`dropout_tiling_impl.cpp`): at most `max(2 × 4 ×
/// elements of srcShape, 512)`, at least 512. `is_reuse_source` is reserved (the vendor only
/// warns when it is set).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_drop_out_max_min_tmp_size(&[16, 64], 2, false), (8192, 512));
/// assert_eq!(get_drop_out_max_min_tmp_size(&[2, 16], 4, false), (512, 512));
/// ```
///
/// # Panics
/// Panics if `type_size` is neither 2 nor 4, or `src_shape` has no dimension (the vendor's
/// host checks).
#[track_caller]
pub fn get_drop_out_max_min_tmp_size(
    src_shape: &[usize],
    type_size: usize,
    is_reuse_source: bool,
) -> (usize, usize) {
    let _ = is_reuse_source;
    host_check("GetDropOutMaxMinTmpSize", src_shape, type_size);
    (max_tmp(src_shape), MIN_TMP)
}

/// The minimum of [`get_drop_out_max_min_tmp_size`] (AscendC `GetDropOutMinTmpSize(srcShape,
/// typeSize, isReuseSource)`): 512 bytes.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_drop_out_min_tmp_size(&[4, 32], 4, false), 512);
/// ```
///
/// # Panics
/// As [`get_drop_out_max_min_tmp_size`].
#[track_caller]
pub fn get_drop_out_min_tmp_size(src_shape: &[usize], type_size: usize, is_reuse_source: bool) -> usize {
    let _ = is_reuse_source;
    host_check("GetDropOutMinTmpSize", src_shape, type_size);
    MIN_TMP
}

/// The maximum of [`get_drop_out_max_min_tmp_size`] (AscendC `GetDropOutMaxTmpSize(srcShape,
/// typeSize, isReuseSource)`): `max(2 × 4 × elements, 512)` bytes.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_drop_out_max_tmp_size(&[8, 128], 2, false), 8192);
/// ```
///
/// # Panics
/// As [`get_drop_out_max_min_tmp_size`].
#[track_caller]
pub fn get_drop_out_max_tmp_size(src_shape: &[usize], type_size: usize, is_reuse_source: bool) -> usize {
    let _ = is_reuse_source;
    host_check("GetDropOutMaxTmpSize", src_shape, type_size);
    max_tmp(src_shape)
}

/// The mode `dropOutMode` names, or for 0 the one `dropout_impl.h` infers from the shape.
fn resolve_mode(mode: u32, info: &DropOutShapeInfo) -> u32 {
    let (s, m) = (info.src_last_axis, info.mask_last_axis);
    match mode {
        0 if s < m => 1,
        0 if s == m => 2,
        0 if u64::from(s) == 8 * u64::from(m) => 3,
        0 => 4,
        m => m,
    }
}

/// Every check, once per call; returns the mode the call runs.
#[track_caller]
fn check<T: Element>(
    mode: u32,
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    mask: &LocalTensor<u8>,
    tmp: &LocalTensor<u8>,
    keep_prob: f32,
    info: &DropOutShapeInfo,
) -> u32 {
    let soc = get_soc();
    ensure(V220_V200.contains(&soc), API, || {
        format!(
            "DropOut is not supported on {soc} ({}): the vendor's page ({PAGE}) lists Ascend910B and Ascend310P \
             (AI Core) only",
            soc.product_line()
        )
    });
    ensure(mode <= 4, API, || {
        format!("the dropOutMode parameter cannot be {mode}, should be 0, 1, 2, 3 or 4")
    });
    for (name, pos) in [
        ("dstLocal", dst.get_position()),
        ("srcLocal", src.get_position()),
        ("maskLocal", mask.get_position()),
        ("sharedTmpBuffer", tmp.get_position()),
    ] {
        ensure(pos.is_ub(), API, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
    }
    ensure(keep_prob > 0.0 && keep_prob < 1.0, API, || {
        format!("the keepProb parameter cannot be {keep_prob}, should be in (0, 1)")
    });
    for (name, v) in [
        ("info.firstAxis", info.first_axis),
        ("info.srcLastAxis", info.src_last_axis),
        ("info.maskLastAxis", info.mask_last_axis),
    ] {
        ensure(v > 0, API, || format!("the {name} parameter ({v}) must be greater than 0"));
    }
    let run = resolve_mode(mode, info);
    let (rows, s, m) = (info.first_axis as usize, info.src_last_axis as usize, info.mask_last_axis as usize);
    let data = rows * s;
    if run == 1 || run == 4 {
        ensure(m % 2 == 0, API, || {
            format!("info.maskLastAxis is {m}, should be multiples of 2 when dropOutMode is 1 or 4 (mode {run} runs)")
        });
        let (valid, what) = if run == 1 { (s, "srcLastAxis") } else { (s / 8, "srcLastAxis / 8") };
        ensure(run == 1 || s % 8 == 0, API, || {
            format!(
                "info.srcLastAxis = {s} is not a multiple of 8: in bit mode each mask byte holds 8 values"
            )
        });
        ensure(valid % 2 == 0 && valid <= m, API, || {
            format!(
                "mode {run} (dirty mask data) has {valid} valid mask bytes per row ({what}); the page ({PAGE}) \
                 requires an even count, at most info.maskLastAxis = {m}"
            )
        });
        ensure(m % ONE_BLK_SIZE == 0, API, || {
            format!(
                "mode {run} (dirty mask data): info.maskLastAxis = {m} is not a multiple of 32; the page ({PAGE}) pads \
                 each mask row to 32 bytes"
            )
        });
        ensure(soc != Soc::Ascend910B || rows <= usize::from(u16::MAX), API, || {
            format!("info.firstAxis = {rows} exceeds 65535, GatherMask's 16-bit repeatTimes (mode {run} on {soc})")
        });
    }
    let mask_bytes = match run {
        1 | 4 => rows * m,
        2 => data,
        _ => data.div_ceil(8),
    };
    for (name, len, need) in [("srcLocal", src.get_size(), data), ("dstLocal", dst.get_size(), data)] {
        ensure(len >= need, API, || {
            format!("{name} holds {len} {} elements but info covers {rows} x {s} = {need}", T::DTYPE)
        });
    }
    ensure(mask.get_size() >= mask_bytes, API, || {
        format!("maskLocal holds {} bytes but mode {run} reads {mask_bytes}", mask.get_size())
    });
    ensure(tmp.get_size() >= MIN_TMP, API, || {
        format!(
            "sharedTmpBuffer has {} bytes, less than the minimum {MIN_TMP} (GetDropOutMinTmpSize)",
            tmp.get_size()
        )
    });
    let t = whole("sharedTmpBuffer", tmp);
    check_apart(
        API,
        &[
            (t, span("dstLocal", dst, data)),
            (t, span("srcLocal", src, data)),
            (t, span("maskLocal", mask, mask_bytes)),
        ],
    );
    run
}

/// Filters `src` by `mask` into `dst` and scales what is kept by `1 / keep_prob` (AscendC
/// `DropOut<T, isInitBitMode, dropOutMode>(dstLocal, srcLocal, maskLocal, sharedTmpBuffer,
/// keepProb, info)`). `DROP_OUT_MODE`: 0 infers the mode from `info`, 1 byte mode with dirty
/// mask data, 2 byte mode, 3 bit mode, 4 bit mode with dirty mask data. In byte mode `dst[i] =
/// src[i] * mask[i] * T(1 / keepProb)`; in bit mode `dst[i] = (bit i ? src[i] : 0) * T(1 /
/// keepProb)`, each product rounded to `T` as the vendor's instructions round it (see the
/// [module](self); on Ascend910B the dirty modes compact `mask` in place).
///
/// The page's worked example:
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut m, mut tmp) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 128);
/// pipe.init_tbuf(&mut m, 32);
/// pipe.init_tbuf(&mut tmp, get_drop_out_min_tmp_size(&[1, 32], 4, false));
/// let (x, y) = (q.get_with_offset::<f32>(32, 0), q.get_with_offset::<f32>(32, 128));
/// x.copy_from_slice(&(0..32).map(|i| i as f32).collect::<Vec<_>>());
/// let mask = m.get::<u8>();
/// mask.copy_from_slice(&[0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 0, 1, 1, 0, 0, 1, 0, 0, 1, 1, 1, 1, 0, 1, 0, 1, 1, 1, 0]);
/// let info = DropOutShapeInfo { first_axis: 1, src_last_axis: 32, mask_last_axis: 32 };
/// drop_out::<f32, false, 0>(&y, &x, &mask, &tmp.get::<u8>(), 0.5, &info);
/// assert_eq!(y.to_vec()[..12], [0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 16.0, 0.0, 20.0, 22.0]);
/// ```
///
/// # Panics
/// Panics on a chip other than Ascend910B and Ascend310P; if `DROP_OUT_MODE` exceeds 4; a
/// tensor is not in the Unified Buffer; `keep_prob` is not in (0, 1); an axis is 0; in the
/// dirty modes (1, 4, named or inferred) `maskLastAxis` is odd or not a multiple of 32, the
/// valid mask bytes of a row are odd or more than `maskLastAxis` (or, bit mode, `srcLastAxis`
/// is not a multiple of 8), or on Ascend910B `firstAxis` exceeds 65535; `src` or `dst` holds
/// fewer than `firstAxis * srcLastAxis` elements or `mask` fewer bytes than the mode reads;
/// the buffer holds fewer than 512 bytes or overlaps `dst`, `src` or `mask`; or any
/// instruction's own check fails.
#[track_caller]
pub fn drop_out<T: DropOutElement, const IS_INIT_BIT_MODE: bool, const DROP_OUT_MODE: u32>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    mask: &LocalTensor<u8>,
    shared_tmp_buffer: &LocalTensor<u8>,
    keep_prob: f32,
    info: &DropOutShapeInfo,
) {
    let mode = check(DROP_OUT_MODE, dst, src, mask, shared_tmp_buffer, keep_prob, info);
    // `float divValue = 1.0; divValue = divValue / keepProb; actualVal = static_cast<T>(divValue)`.
    let div = T::from_f64(f64::from(1.0f32 / keep_prob));
    let (rows, s, m) = (info.first_axis as usize, info.src_last_axis as usize, info.mask_last_axis as usize);
    let data = rows * s;
    let tmp = shared_tmp_buffer;
    let v220 = get_soc() == Soc::Ascend910B;
    match mode {
        1 if v220 => {
            compact(mask, rows, s / 2, m);
            byte_mode(dst, src, mask, tmp, div, data);
        }
        1 => {
            for i in 0..rows {
                byte_mode(&dst.view(i * s), &src.view(i * s), &mask.view(i * m), tmp, div, s);
            }
        }
        2 => byte_mode(dst, src, mask, tmp, div, data),
        3 => bit_mode(dst, src, mask, tmp, div, data, IS_INIT_BIT_MODE),
        _ if v220 => {
            if !IS_INIT_BIT_MODE {
                bit_init(tmp);
            }
            compact(mask, rows, s / 16, m);
            bit_mode(dst, src, mask, tmp, div, data, true);
        }
        _ => {
            if !IS_INIT_BIT_MODE {
                bit_init(tmp);
            }
            set_mask_count();
            count_mask::<u8>(s);
            for i in 0..rows {
                select_scalar_reg::<T, u8>(
                    &dst.view(i * s),
                    &mask.view(i * m),
                    &src.view(i * s),
                    1,
                    &BinaryRepeatParams::default(),
                );
                pipe_barrier::<PIPE_V>();
            }
            count_mask::<u8>(data);
            scale(dst, div);
        }
    }
}

/// [`drop_out`] with the buffer taken from the stack (AscendC `DropOut<T, isInitBitMode,
/// dropOutMode>(dstLocal, srcLocal, maskLocal, keepProb, info)`): the Unified Buffer after the
/// core's `TPipe` buffers ([`pop_stack_buffer`](super::pop_stack_buffer)).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut q, mut m) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut q, 2 * 64);
/// pipe.init_tbuf(&mut m, 32);
/// let (x, y) = (q.get_with_offset::<f16>(32, 0), q.get_with_offset::<f16>(32, 64));
/// x.copy_from_slice(&[f16::from_f32(3.0); 32]);
/// let mask = m.get::<u8>();
/// mask.copy_from_slice(&[0b0000_0101, 0, 0, 0]); // bit mode: 32 values in 4 bytes
/// let info = DropOutShapeInfo { first_axis: 1, src_last_axis: 32, mask_last_axis: 4 };
/// drop_out_stack::<f16, false, 0>(&y, &x, &mask, 0.25, &info); // inferred: mode 3
/// assert_eq!(y.to_vec()[..4], [f16::from_f32(12.0), f16::ZERO, f16::from_f32(12.0), f16::ZERO]);
/// ```
///
/// # Panics
/// As [`drop_out`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn drop_out_stack<T: DropOutElement, const IS_INIT_BIT_MODE: bool, const DROP_OUT_MODE: u32>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    mask: &LocalTensor<u8>,
    keep_prob: f32,
    info: &DropOutShapeInfo,
) {
    let tmp = stack_tensor(API);
    drop_out::<T, IS_INIT_BIT_MODE, DROP_OUT_MODE>(dst, src, mask, &tmp, keep_prob, info);
}

/// Ascend910B's compaction of the dirty mask rows, in place (`dropout_c220_impl.h`):
/// `GatherMask<uint16_t>` pattern 7 in counter mode, `per_row` `uint16_t`s of each of `rows`
/// rows `mask_last_axis` bytes apart; then `SetMaskCount`.
#[track_caller]
fn compact(mask: &LocalTensor<u8>, rows: usize, per_row: usize, mask_last_axis: usize) {
    let m16 = mask.reinterpret_cast::<u16>();
    let params = GatherMaskParams {
        repeat_times: rows as u16,
        src0_repeat_stride: (mask_last_axis / ONE_BLK_SIZE) as u16,
        ..GatherMaskParams::default()
    };
    gather_mask::<u16, u16>(&m16, &m16, GatherPattern::Fixed(7), true, per_row as u32, &params);
    pipe_barrier::<PIPE_V>();
    set_mask_count();
}

/// `DropOutBitModeInit`: the compare-mask register set to 0 from the buffer's first 128
/// `int16` lanes, zeroed by `Muls`.
#[track_caller]
fn bit_init(tmp: &LocalTensor<u8>) {
    reset_mask();
    let t = tmp.reinterpret_cast::<i16>();
    muls_masked::<i16, false>(&t, &t, 0, MASK_PLACEHOLDER, 1, &UnaryRepeatParams::default());
    pipe_barrier::<PIPE_V>();
    set_cmp_mask(&t);
    pipe_barrier::<PIPE_V>();
}

/// The clean bit mode over `data` elements (`DropOutBitMode` with `dataSize`).
#[track_caller]
fn bit_mode<T: DropOutElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    mask: &LocalTensor<u8>,
    tmp: &LocalTensor<u8>,
    div: T,
    data: usize,
    init_done: bool,
) {
    if !init_done {
        bit_init(tmp);
    }
    set_mask_count();
    count_mask::<u8>(data);
    select_scalar_reg::<T, u8>(dst, mask, src, 1, &BinaryRepeatParams::default());
    pipe_barrier::<PIPE_V>();
    scale(dst, div);
}

/// The bit mode's end: `Muls` of `dst` by `divValue` under the counter-mode mask the caller
/// set, then `SetMaskNorm` and `ResetMask`.
#[track_caller]
fn scale<T: DropOutElement>(dst: &LocalTensor<T>, div: T) {
    muls_masked::<T, false>(dst, dst, div, MASK_PLACEHOLDER, 1, &UnaryRepeatParams::default());
    pipe_barrier::<PIPE_V>();
    set_mask_norm();
    reset_mask();
}

/// The clean byte mode over `data` elements (`DropOutByteMode` with `dataSize`).
#[track_caller]
fn byte_mode<T: DropOutElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    mask: &LocalTensor<u8>,
    tmp: &LocalTensor<u8>,
    div: T,
    data: usize,
) {
    // `DropOutByteModeSetTmpBuffer`: one `half` view (`half`), or a `half` and a `float` view
    // of `bytes / 6` rounded down to 32 elements (`float`).
    let stack = if T::SIZE == 2 {
        tmp.get_size() / 2 / ONE_BLK_SIZE * ONE_BLK_SIZE
    } else {
        tmp.get_size() / 6 / ONE_BLK_SIZE * ONE_BLK_SIZE
    };
    let first = tmp.view_len(0, stack * 2).reinterpret_cast::<f16>();
    let second = (T::SIZE == 4).then(|| tmp.view_len(stack * 2, stack * 4).reinterpret_cast::<f32>());
    // `unaryParams.srcRepStride = DEFAULT_REPEAT_STRIDE / sizeof(half)`.
    let cast_params = WIDEN;
    counter_rounds::<u8>(
        data,
        stack,
        |t| t,
        |off, _| {
            let (d, s) = (dst.view(off), src.view(off));
            cast_masked::<f16, u8, false>(
                &first,
                &mask.view(off),
                RoundMode::CastNone,
                MASK_PLACEHOLDER,
                1,
                &cast_params,
            );
            pipe_barrier::<PIPE_V>();
            let factor = match &second {
                Some(second) => {
                    cast_masked::<f32, f16, false>(
                        second,
                        &first,
                        RoundMode::CastNone,
                        MASK_PLACEHOLDER,
                        1,
                        &cast_params,
                    );
                    pipe_barrier::<PIPE_V>();
                    second.reinterpret_cast::<T>()
                }
                None => first.reinterpret_cast::<T>(),
            };
            mul_masked::<T, false>(&d, &factor, &s, MASK_PLACEHOLDER, 1, &BinaryRepeatParams::default());
            pipe_barrier::<PIPE_V>();
            muls_masked::<T, false>(&d, &d, div, MASK_PLACEHOLDER, 1, &UnaryRepeatParams::default());
            pipe_barrier::<PIPE_V>();
        },
    );
}

static_assertions::assert_not_impl_any!(i16: DropOutElement);
static_assertions::assert_not_impl_any!(crate::element::bf16: DropOutElement);
