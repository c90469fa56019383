//! The vector mask: the argument form ([`Mask`]), the per-core mask register and mask mode,
//! and the compare-mask register.

use crate::element::Element;
use crate::kernel::ctx::{with_core, MaskMode};
use crate::kernel::error::fail;

/// The mask placeholder of `IS_SET_MASK = false` calls (AscendC `MASK_PLACEHOLDER`). The vendor's
/// page asks for it there, but the chip ignores the argument of such a call, and so does the
/// emulator: any value is accepted.
pub const MASK_PLACEHOLDER: u64 = 0;

/// A mask argument: continuous (`n` enables lanes `0..n`) or bit mode (bit `k` of `[0]`
/// enables lane `k`, bit `k` of `[1]` lane `64 + k`). In counter mode a continuous mask is the
/// total element count.
///
/// `u64` and `[u64; 2]` convert into it, so calls read like AscendC:
/// ```
/// use ascend_core::prelude::*;
/// let a: Mask = 128u64.into();
/// let b: Mask = [u64::MAX, 0].into();
/// assert_eq!(a, Mask::Count(128));
/// assert_eq!(b, Mask::Bits([u64::MAX, 0]));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mask {
    /// Continuous mode: the first `n` lanes (or, in counter mode, `n` elements in all).
    Count(u64),
    /// Bit mode: `[lanes 0..64, lanes 64..128]`.
    Bits([u64; 2]),
}

impl From<u64> for Mask {
    fn from(n: u64) -> Mask {
        Mask::Count(n)
    }
}

impl From<[u64; 2]> for Mask {
    fn from(b: [u64; 2]) -> Mask {
        Mask::Bits(b)
    }
}

impl From<&[u64; 2]> for Mask {
    fn from(b: &[u64; 2]) -> Mask {
        Mask::Bits(*b)
    }
}

impl Mask {
    fn is_placeholder(self) -> bool {
        matches!(self, Mask::Count(0) | Mask::Bits([0, 0]))
    }
}

/// Bits enabling lanes `0..n` (`n <= 128`).
#[inline]
pub(crate) const fn prefix_bits(n: usize) -> [u64; 2] {
    let lo = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    let hi = if n >= 128 {
        u64::MAX
    } else if n > 64 {
        (1u64 << (n - 64)) - 1
    } else {
        0
    };
    [lo, hi]
}

/// Switches the current core to counter mode (AscendC `SetMaskCount`).
#[track_caller]
pub fn set_mask_count() {
    crate::observe::events::on_mask("SetMaskCount");
    with_core(|c| c.mask_mode.set(MaskMode::Counter))
}

/// Switches the current core back to normal mode (AscendC `SetMaskNorm`).
#[track_caller]
pub fn set_mask_norm() {
    crate::observe::events::on_mask("SetMaskNorm");
    with_core(|c| c.mask_mode.set(MaskMode::Normal))
}

/// The current core's mask mode.
pub fn get_mask_mode() -> MaskMode {
    with_core(|c| c.mask_mode.get())
}

/// Loads the mask register (AscendC `SetVectorMask<T>`), used by calls with
/// `IS_SET_MASK = false`. In normal mode a continuous mask `n` must be in `1..=PAR` and a bit
/// mask must fit `T` (for 32-bit types `[1]` must be 0); in counter mode a continuous mask is
/// the element count.
///
/// ```
/// use ascend_core::prelude::*;
/// set_vector_mask::<f32>(64u64);
/// set_vector_mask::<half::f16>([u64::MAX, 1]);
/// ```
///
/// # Panics
/// Panics if the mask is out of range for `T` in the current mode.
#[track_caller]
pub fn set_vector_mask<T: Element>(mask: impl Into<Mask>) {
    crate::observe::events::on_mask("SetVectorMask");
    let mask = mask.into();
    let mode = get_mask_mode();
    let reg = match mode {
        MaskMode::Normal => normal_bits::<T>("SetVectorMask", mask),
        MaskMode::Counter => [counter_count("SetVectorMask", mask), 0],
    };
    with_core(|c| c.mask.set(reg))
}

/// AscendC's two-word `SetVectorMask<T>(maskHigh, maskLow)`.
///
/// # Panics
/// As [`set_vector_mask`].
#[track_caller]
pub fn set_vector_mask_hi_lo<T: Element>(mask_high: u64, mask_low: u64) {
    match get_mask_mode() {
        MaskMode::Normal => set_vector_mask::<T>([mask_low, mask_high]),
        MaskMode::Counter => set_vector_mask::<T>(Mask::Bits([mask_low, mask_high])),
    }
}

/// Sets the mask register to all lanes (AscendC `ResetMask`).
#[track_caller]
pub fn reset_mask() {
    crate::observe::events::on_mask("ResetMask");
    with_core(|c| c.mask.set([u64::MAX, u64::MAX]))
}

/// The raw mask register `[low, high]`.
pub fn get_vector_mask() -> [u64; 2] {
    with_core(|c| c.mask.get())
}

/// AscendC's `AscendCUtils` helpers that kernels call directly (`AscendCUtils::SetMask`).
pub struct AscendCUtils;

impl AscendCUtils {
    /// Loads the mask register with `[mask_low, mask_high]` as it is (AscendC
    /// `AscendCUtils::SetMask<T, isSetMask>(maskHigh, maskLow)`); with `IS_SET_MASK = false`
    /// it does nothing.
    ///
    /// Unlike [`set_vector_mask`] nothing is checked: the vendor's implementation
    /// (`impl/basic_api/kernel_utils_base.h`) writes the register directly and checks the
    /// arguments only on chips this emulator does not model. An instruction on a 32-bit type
    /// reads only the low word, as on the chip.
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// AscendCUtils::set_mask::<f16, true>(0b1, u64::MAX);
    /// assert_eq!(get_vector_mask(), [u64::MAX, 1]);
    /// AscendCUtils::set_mask::<f16, false>(0, 0); // isSetMask = false: no change
    /// assert_eq!(get_vector_mask(), [u64::MAX, 1]);
    /// # reset_mask();
    /// ```
    ///
    /// # Panics
    /// Never (outside a core it runs on the thread's default core).
    pub fn set_mask<T: Element, const IS_SET_MASK: bool>(mask_high: u64, mask_low: u64) {
        if IS_SET_MASK {
            with_core(|c| c.mask.set([mask_low, mask_high]))
        }
    }

    /// Loads the mask register with the first `len` lanes (AscendC
    /// `AscendCUtils::SetMask<T, isSetMask>(int32_t len)`), as the vendor computes it: `len =
    /// 64` sets the low word; `len` equal to the lanes of a repeat of `T` or at least 128 sets
    /// both words; otherwise the low `len` bits (`len` above 64: the low word full and
    /// `len - 64` bits of the high word). With `IS_SET_MASK = false` it does nothing.
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// AscendCUtils::set_mask_len::<f16, true>(100);
    /// assert_eq!(get_vector_mask(), [u64::MAX, (1 << 36) - 1]);
    /// AscendCUtils::set_mask_len::<f32, true>(64); // a whole repeat of floats
    /// assert_eq!(get_vector_mask(), [u64::MAX, 0]);
    /// # reset_mask();
    /// ```
    ///
    /// # Panics
    /// Panics if `len` is negative (the vendor's shift would be undefined).
    #[track_caller]
    pub fn set_mask_len<T: Element, const IS_SET_MASK: bool>(len: i32) {
        if !IS_SET_MASK {
            return;
        }
        crate::kernel::error::ensure(len >= 0, "AscendCUtils::SetMask", || {
            format!("len = {len} must not be negative")
        });
        let len = len as u32;
        let (hi, lo) = if len == 64 {
            (0, u64::MAX)
        } else if len as usize == T::PAR || len >= 128 {
            (u64::MAX, u64::MAX)
        } else if len > 64 {
            ((1u64 << (len - 64)) - 1, u64::MAX)
        } else {
            (0, (1u64 << len) - 1)
        };
        Self::set_mask::<T, true>(hi, lo);
    }
}

/// The operand of `SetCmpMask`/`GetCmpMask`: a UB tensor on a 16-byte boundary holding the
/// register's 16 bytes.
#[track_caller]
fn check_cmp_mask_operand<T: Element>(
    api: &'static str,
    t: &crate::memory::tensor::LocalTensor<T>,
    name: &str,
) {
    let pos = t.get_position();
    crate::kernel::error::ensure(pos.is_ub(), api, || {
        format!("{name} is at position {pos}: {api} takes VECIN, VECOUT or VECCALC tensors")
    });
    let addr = t.get_phy_addr();
    crate::kernel::error::ensure(addr % 16 == 0, api, || {
        format!("{name} address = {addr:#x} is not 16-byte aligned")
    });
    let bytes = t.get_length();
    crate::kernel::error::ensure(bytes >= 16, api, || {
        format!("{name} holds {bytes} bytes but the 128-bit compare-mask register needs 16")
    });
}

/// Loads the 128-bit compare-mask register that `Select`'s register forms read
/// (AscendC `SetCmpMask`), from the first 16 bytes of `src` read little-endian. A vector
/// instruction (pipe V), as the vendor implements it (`set_cmpmask`), so the sanitizer orders
/// it like one.
///
/// # Panics
/// Panics if `src` is not a UB tensor (VECIN, VECCALC, VECOUT), does not start on a 16-byte
/// boundary, or holds fewer than 16 bytes.
#[track_caller]
pub fn set_cmp_mask<U: Element>(src: &crate::memory::tensor::LocalTensor<U>) {
    const API: &str = "SetCmpMask";
    check_cmp_mask_operand(API, src, "src");
    crate::observe::events::on_vector(API, &[crate::vector::engine::span_of(src, 16)], &[]);
    let mut raw = [0u8; 16];
    // SAFETY: `src` holds at least 16 bytes (checked above) inside the UB; `raw` is a distinct
    // stack buffer.
    unsafe { std::ptr::copy_nonoverlapping(src.ptr().cast::<u8>(), raw.as_mut_ptr(), 16) };
    let word = |k: usize| u64::from_le_bytes(raw[8 * k..8 * k + 8].try_into().expect("8 bytes"));
    let reg = [word(0), word(1)];
    with_core(|c| c.cmp_mask.set(reg))
}

/// The 128-bit compare-mask register `[low, high]` (AscendC `GetCmpMask` reads it into a
/// tensor: [`get_cmp_mask_local`]).
pub fn get_cmp_mask() -> [u64; 2] {
    with_core(|c| c.cmp_mask.get())
}

mod cmp_mask_sealed {
    pub trait Sealed {}
}

/// Element types of [`get_cmp_mask_local`]'s `dst`: the 8-, 16- and 32-bit types (the
/// vendor's "b8、b16、b32"); only the bytes matter. Other types do not compile:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<u64>) { get_cmp_mask_local(t); }
/// ```
pub trait GetCmpMaskElement: Element + cmp_mask_sealed::Sealed {}

macro_rules! get_cmp_mask_types {
    ($($t:ty),*) => {$(
        impl cmp_mask_sealed::Sealed for $t {}
        impl GetCmpMaskElement for $t {}
    )*};
}
get_cmp_mask_types!(u8, i8, u16, i16, crate::element::f16, crate::element::bf16, u32, i32, f32);

/// Stores the 128-bit compare-mask register into the first 16 bytes of `dst` (AscendC
/// `GetCmpMask(dst)`): word `[0]` of [`get_cmp_mask`] little-endian in bytes `0..8`, word `[1]`
/// in bytes `8..16`, so bit `j` of the register (lane `j` of
/// [`compare_reg`](crate::vector::compare::compare_reg)) is bit `j % 8` of byte `j / 8` — the
/// layout [`set_cmp_mask`] loads back. A vector instruction (pipe V); the rest of `dst` is
/// left as it is.
///
/// Supported on Ascend910B and Ascend310P (AI Core), as the vendor lists; `dst` must be a UB
/// tensor (VECIN, VECCALC or VECOUT) starting on a 16-byte boundary.
///
/// **Size.** The vendor's page asks for "dst的空间大小不能少于128字节" (128 bytes), but the
/// register holds 128 bits, and the vendor's own example
/// (`examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/compare`, scenario 2)
/// calls `GetCmpMask` on a 32-byte `dstLocal`. The 128 is taken as bits: `dst` must hold at
/// least 16 bytes, and exactly 16 are written.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut b = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut b, 32);
/// let t = b.get::<u8>();
/// t.copy_from_slice(&(0..32).collect::<Vec<u8>>());
/// set_cmp_mask(&t);
/// let out = t.view(16);
/// get_cmp_mask_local(&out);
/// assert_eq!(t.to_vec()[16..], t.to_vec()[..16]);
/// ```
///
/// # Panics
/// Panics on Ascend910 and Ascend310B, or if `dst` is not a UB tensor, does not start on a
/// 16-byte boundary, or holds fewer than 16 bytes.
#[track_caller]
pub fn get_cmp_mask_local<T: GetCmpMaskElement>(dst: &crate::memory::tensor::LocalTensor<T>) {
    const API: &str = "GetCmpMask";
    let soc = crate::kernel::ctx::get_soc();
    crate::kernel::error::ensure(
        matches!(soc, crate::soc::Soc::Ascend910B | crate::soc::Soc::Ascend310P),
        API,
        || {
            format!(
                "GetCmpMask is not supported on {soc} ({}): only Ascend910B and Ascend310P have it",
                soc.product_line()
            )
        },
    );
    check_cmp_mask_operand(API, dst, "dst");
    let reg = get_cmp_mask();
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&reg[0].to_le_bytes());
    out[8..].copy_from_slice(&reg[1].to_le_bytes());
    crate::observe::events::on_vector(API, &[], &[crate::vector::engine::span_of(dst, 16)]);
    // SAFETY: `dst` holds at least 16 bytes (checked above) inside the UB; `out` is a distinct
    // stack buffer.
    unsafe { std::ptr::copy_nonoverlapping(out.as_ptr(), dst.ptr().cast::<u8>(), 16) };
}

/// Validates a normal-mode mask for `T` and returns its lane bits (may be all zero only if
/// the caller accepts that).
#[track_caller]
pub(crate) fn normal_bits<T: Element>(api: &'static str, mask: Mask) -> [u64; 2] {
    let par = T::PAR.min(128);
    match mask {
        Mask::Count(n) => {
            if n == 0 || n > par as u64 {
                fail(api, format!("mask = {n} is out of range [1, {par}] for {} in normal mode", T::DTYPE));
            }
            prefix_bits(n as usize)
        }
        Mask::Bits(b) => {
            if b == [0, 0] {
                fail(api, "mask = [0, 0]: a bit mask must enable at least one lane".to_string());
            }
            if T::SIZE >= 4 && b[1] != 0 {
                fail(
                    api,
                    format!("mask[1] = {:#x} must be 0 for the {}-bit type {}", b[1], T::SIZE * 8, T::DTYPE),
                );
            }
            if T::SIZE == 8 && b[0] >> 32 != 0 {
                fail(
                    api,
                    format!("mask[0] = {:#x} must be below 2^32 for the 64-bit type {}", b[0], T::DTYPE),
                );
            }
            b
        }
    }
}

#[track_caller]
fn counter_count(api: &'static str, mask: Mask) -> u64 {
    match mask {
        Mask::Count(0) | Mask::Bits([0, _]) => {
            fail(api, "mask = 0: in counter mode the mask is an element count of at least 1".to_string())
        }
        Mask::Count(n) | Mask::Bits([n, 0]) if n > u64::from(u32::MAX) => fail(
            api,
            format!(
                "mask = {n}: in counter mode the element count is at most {} (32 bits, as calCount)",
                u32::MAX
            ),
        ),
        Mask::Count(n) | Mask::Bits([n, 0]) => n,
        Mask::Bits([_, hi]) => {
            fail(api, format!("mask[1] = {hi:#x} must be 0 in counter mode (mask[0] is the count)"))
        }
    }
}

/// How one high-dimensional call walks its repeats: how many, and which lanes each enables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Number of repeats (≥ 1).
    pub repeats: usize,
    /// Lanes of every repeat but the last.
    pub bits: [u64; 2],
    /// Lanes of the last repeat (differs from `bits` only in counter mode).
    pub last: [u64; 2],
}

impl Plan {
    /// The lanes of repeat `r`.
    #[inline(always)]
    pub fn mask_of(&self, r: usize) -> [u64; 2] {
        if r + 1 == self.repeats {
            self.last
        } else {
            self.bits
        }
    }

    /// A contiguous plan over `count` elements (`count >= 1`): full repeats and a prefix tail.
    pub fn contiguous<T: Element>(count: usize) -> Plan {
        let par = T::PAR;
        let repeats = count.div_ceil(par);
        let tail = count - (repeats - 1) * par;
        Plan { repeats, bits: prefix_bits(par), last: prefix_bits(tail) }
    }
}

/// Resolves the mask argument of a high-dimensional call into a [`Plan`], following
/// `IS_SET_MASK`, the core's mask mode and the mask register. With `IS_SET_MASK = true` the
/// call's mask is loaded into the register (as AscendC does before issuing the instruction). `None` means the call does
/// nothing (`repeat_times == 0` in normal mode, or an all-zero mask register).
#[track_caller]
pub(crate) fn resolve<T: Element, const IS_SET_MASK: bool>(
    api: &'static str,
    mask: Mask,
    repeat_times: usize,
) -> Option<Plan> {
    const { assert!(T::SIZE >= 2, "vector instructions on 8-bit lanes are not modelled") };
    let mode = get_mask_mode();
    check_placeholder::<IS_SET_MASK>(api, mask);
    let full = prefix_bits(T::PAR);
    match mode {
        MaskMode::Normal => {
            let bits = if IS_SET_MASK {
                // Like AscendC's `SetMask<T, true>`, the call loads its mask into the register,
                // where later `IS_SET_MASK = false` calls find it.
                let bits = normal_bits::<T>(api, mask);
                with_core(|c| c.mask.set(bits));
                bits
            } else {
                let r = get_vector_mask();
                [r[0] & full[0], r[1] & full[1]]
            };
            if repeat_times == 0 || bits == [0, 0] {
                return None;
            }
            Some(Plan { repeats: repeat_times, bits, last: bits })
        }
        MaskMode::Counter => {
            let n = if IS_SET_MASK {
                let n = counter_count(api, mask);
                with_core(|c| c.mask.set([n, 0]));
                n
            } else {
                get_vector_mask()[0]
            };
            if n == 0 {
                return None;
            }
            Some(Plan::contiguous::<T>(n as usize))
        }
    }
}

/// The mask argument's rule: with `IS_SET_MASK = true` the call loads its mask, and
/// `MASK_PLACEHOLDER` (0, or `[0, 0]`) is out of range there; with `IS_SET_MASK = false` the
/// argument is ignored, whatever it is.
///
/// The vendor's page says a call with `isSetMask = false` "must" pass `MASK_PLACEHOLDER`, but
/// the implementation never reads the argument: `AscendCUtils::SetMask<T, false>` returns at
/// once (asc-devkit `impl/basic_api/kernel_utils_base.h`), as do the per-chip reductions
/// (`impl/basic_api/dav_c220/kernel_operator_vec_reduce_impl.h`), and published operators pass
/// other values (an RMS-norm operator passes 64 to `WholeReduceSum<T, false>`). The emulator
/// accepts and ignores it, as the chip does.
#[track_caller]
fn check_placeholder<const IS_SET_MASK: bool>(api: &'static str, mask: Mask) {
    if IS_SET_MASK && mask.is_placeholder() {
        fail(
            api,
            format!(
                "mask = {mask:?} is MASK_PLACEHOLDER, valid only with isSetMask = false; use a mask in range"
            ),
        );
    }
}

/// The mask of an instruction whose counter mode counts the elements of each repeat (`Copy`),
/// resolved by [`resolve_per_repeat`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PerRepeat {
    /// Normal mode: the plan [`resolve`] gives.
    Masked(Plan),
    /// Counter mode: `repeats` repeats of `count` elements each (`count` may exceed `PAR`).
    Counted {
        /// `repeatTime` (at least 1).
        repeats: usize,
        /// The mask register's count (at least 1).
        count: usize,
    },
}

/// Resolves the mask of an instruction whose counter mode differs from the general one: the
/// vendor's `Copy` page says that in counter mode the mask is "the number of elements each
/// repeat processes, and the repeat time is effective" (the general counter mode counts the
/// elements of the whole call and ignores the repeat time). Normal mode is [`resolve`]'s. In
/// counter mode `IS_SET_MASK = true` loads the count into the register, as [`resolve`] does;
/// `None` means nothing to do (`repeat_times == 0`, or a count of 0 in the register).
#[track_caller]
pub(crate) fn resolve_per_repeat<T: Element, const IS_SET_MASK: bool>(
    api: &'static str,
    mask: Mask,
    repeat_times: usize,
) -> Option<PerRepeat> {
    const { assert!(T::SIZE >= 2, "vector instructions on 8-bit lanes are not modelled") };
    match get_mask_mode() {
        MaskMode::Normal => resolve::<T, IS_SET_MASK>(api, mask, repeat_times).map(PerRepeat::Masked),
        MaskMode::Counter => {
            check_placeholder::<IS_SET_MASK>(api, mask);
            let n = if IS_SET_MASK {
                let n = counter_count(api, mask);
                with_core(|c| c.mask.set([n, 0]));
                n
            } else {
                get_vector_mask()[0]
            };
            if repeat_times == 0 || n == 0 {
                return None;
            }
            // The register holds at most 2^32 - 1 (`counter_count`), so `n` fits a usize.
            Some(PerRepeat::Counted { repeats: repeat_times, count: n as usize })
        }
    }
}
