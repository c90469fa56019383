//! `Select`: choose each lane from `src0` or from `src1` (a tensor or a scalar) by one bit of a
//! selection mask (AscendC `Select`, `SELMODE`).
//!
//! The bits of `selMask` are read little-endian whatever its element type: bit `k` is bit
//! `k % 8` of byte `k / 8`. A set bit takes `src0`; a clear bit takes `src1` (modes 0 and 2)
//! or the scalar (mode 1). Lanes disabled by the vector mask keep `dst`.
//!
//! | mode | bits used by repeat `r`, lane `j` | `src1` |
//! | --- | --- | --- |
//! | [`SelMode::VselCmpmaskSpr`] (0) | bit `j` of the 128-bit compare-mask register | tensor |
//! | [`SelMode::VselTensorScalarMode`] (1) | bit `r * PAR + j` of `selMask` | scalar |
//! | [`SelMode::VselTensorTensorMode`] (2) | bit `r * PAR + j` of `selMask` | tensor |
//!
//! As in AscendC, every form first loads the core's compare-mask register
//! (see [`set_cmp_mask`](crate::vector::mask::set_cmp_mask)): mode 0 with the first 16 bytes of
//! `selMask` (so every repeat reuses the same first `PAR` bits), mode 1 with the scalar repeated
//! over 128 bits, mode 2 with the UB address of `selMask` (a `u32`, repeated). The register
//! forms ([`select_reg`], [`select_scalar_reg`]) skip that step and use the register as the
//! kernel left it, together with the vector mask register.
//!
//! Modes 1 and 2 are not available on [`Soc::Ascend910`](crate::soc::Soc::Ascend910).

use crate::element::{f16, Element};
use crate::kernel::ctx::{get_soc, with_core};
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::vector::engine::{apply, apply_count, span_of, Lanes, Operand};
use crate::vector::mask::{resolve, Mask, Plan, MASK_PLACEHOLDER};
use crate::vector::params::BinaryRepeatParams;

const API: &str = "Select";

mod sealed {
    pub trait SelectSealed {}
    pub trait SelMaskSealed {}
}

/// Element types `Select` accepts for `dst`, `src0` and `src1`: `f16` and `f32` (on every chip).
///
/// Any other type is a compile error (`i32` and `bf16` among them: asserted at the end of
/// this module).
pub trait SelectElement: Element + sealed::SelectSealed {}

impl sealed::SelectSealed for f16 {}
impl SelectElement for f16 {}
impl sealed::SelectSealed for f32 {}
impl SelectElement for f32 {}

/// Element types of a `selMask` tensor: `u8`, `u16`, `u32`, `u64` (the page's list) and `i8`
/// (published operators pass the `int8_t` result of a `Compare`; the vendor's implementation
/// takes the mask by address and accepts any type, `impl/basic_api/dav_c220/kernel_operator_vec_cmpsel_impl.h`).
/// Only the bytes matter: the mask is always read as little-endian bits.
/// A float is not a mask type (asserted at the end of this module).
pub trait SelMaskElement: Element + sealed::SelMaskSealed {}

macro_rules! sel_mask_element {
    ($($t:ty),*) => {$(
        impl sealed::SelMaskSealed for $t {}
        impl SelMaskElement for $t {}
    )*};
}
sel_mask_element!(u8, i8, u16, u32, u64);

/// The selection mode (AscendC `SELMODE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum SelMode {
    /// `SELMODE::VSEL_CMPMASK_SPR`: two tensors; every repeat uses the same first `PAR` bits
    /// (the compare-mask register loaded from `selMask`).
    VselCmpmaskSpr = 0,
    /// `SELMODE::VSEL_TENSOR_SCALAR_MODE`: a tensor and a scalar; `selMask` bits are consumed
    /// contiguously, `PAR` per repeat.
    VselTensorScalarMode = 1,
    /// `SELMODE::VSEL_TENSOR_TENSOR_MODE`: two tensors; `selMask` bits are consumed
    /// contiguously, `PAR` per repeat.
    VselTensorTensorMode = 2,
}

impl SelMode {
    /// The AscendC name, e.g. `"VSEL_TENSOR_TENSOR_MODE"`.
    pub const fn ascendc_name(self) -> &'static str {
        match self {
            SelMode::VselCmpmaskSpr => "VSEL_CMPMASK_SPR",
            SelMode::VselTensorScalarMode => "VSEL_TENSOR_SCALAR_MODE",
            SelMode::VselTensorTensorMode => "VSEL_TENSOR_TENSOR_MODE",
        }
    }

    const fn from_u8(m: u8) -> SelMode {
        match m {
            0 => SelMode::VselCmpmaskSpr,
            1 => SelMode::VselTensorScalarMode,
            _ => SelMode::VselTensorTensorMode,
        }
    }
}

impl std::fmt::Display for SelMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.ascendc_name(), *self as u8)
    }
}

// ---------------------------------------------------------------------------------------------
// Checks shared by every form.

/// Fails unless the current chip supports `mode`.
#[track_caller]
fn check_chip(mode: SelMode) {
    let soc = get_soc();
    ensure(soc.supports_select_mode(mode as u8), API, || {
        format!(
            "selMode = {mode} is not supported on {soc} ({}): only VSEL_CMPMASK_SPR (0) is",
            soc.product_line()
        )
    });
}

/// Fails unless `mode` is valid for a form taking a tensor `src1` (`scalar = false`) or a
/// scalar one (`scalar = true`), then checks the chip.
#[track_caller]
fn check_mode(mode: SelMode, scalar: bool) {
    if scalar {
        ensure(mode == SelMode::VselTensorScalarMode, API, || {
            format!("selMode = {mode} takes a tensor src1; the scalar forms need VSEL_TENSOR_SCALAR_MODE (1)")
        });
    } else {
        ensure(mode != SelMode::VselTensorScalarMode, API, || {
            format!("selMode = {mode} takes a scalar src1; use the scalar form (select_scalar*)")
        });
    }
    check_chip(mode);
}

/// One past the highest global lane (`r * PAR + j`) the plan enables.
fn lanes_end<T: Element>(plan: &Plan) -> usize {
    let hi = |b: [u64; 2]| {
        if b[1] != 0 {
            128 - b[1].leading_zeros() as usize
        } else {
            64 - b[0].leading_zeros() as usize
        }
    };
    let last = (plan.repeats - 1) * T::PAR + hi(plan.last);
    if plan.repeats >= 2 {
        last.max((plan.repeats - 2) * T::PAR + hi(plan.bits))
    } else {
        last
    }
}

/// Checks `selMask` as an operand holding at least `bits` bits; returns it as bytes.
#[track_caller]
fn sel_bytes<U: SelMaskElement>(sel: &LocalTensor<U>, mode: SelMode, bits: usize) -> LocalTensor<u8> {
    sel.check_vector_operand(API, "selMask");
    let bytes = sel.reinterpret_cast::<u8>();
    let have = bytes.get_size() * 8;
    ensure(have >= bits, API, || {
        format!(
            "selMask holds {have} bits ({} bytes) but selMode = {mode} reads {bits} bits in this call",
            bytes.get_size()
        )
    });
    crate::observe::events::on_vector(API, &[span_of(&bytes, bits.div_ceil(8))], &[]);
    bytes
}

/// The 128 bits of the compare-mask register as 16 little-endian bytes.
fn cmp_mask_bytes() -> [u8; 16] {
    let r = with_core(|c| c.cmp_mask.get());
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&r[0].to_le_bytes());
    b[8..].copy_from_slice(&r[1].to_le_bytes());
    b
}

fn set_cmp_mask_bytes(b: [u8; 16]) {
    let lo = u64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
    let hi = u64::from_le_bytes(b[8..].try_into().expect("8 bytes"));
    with_core(|c| c.cmp_mask.set([lo, hi]));
}

/// Mode 0's preparation: load the compare-mask register from the first 16 bytes of `selMask`.
#[track_caller]
fn load_mode0<U: SelMaskElement>(sel: &LocalTensor<U>) -> [u8; 16] {
    let bytes = sel_bytes(sel, SelMode::VselCmpmaskSpr, 128);
    // Loading the compare-mask register (SetCmpMask) is a V-pipe read, recorded by `sel_bytes`.
    let mut b = [0u8; 16];
    // SAFETY: `sel_bytes` checked that selMask holds at least 128 bits (16 bytes).
    unsafe { std::ptr::copy_nonoverlapping(bytes.ptr() as *const u8, b.as_mut_ptr(), 16) };
    set_cmp_mask_bytes(b);
    b
}

/// Mode 2's preparation: the compare-mask register receives `selMask`'s UB address.
fn load_mode2_address(sel: &LocalTensor<u8>) {
    let a = sel.get_phy_addr() as u64;
    with_core(|c| c.cmp_mask.set([a | a << 32, a | a << 32]));
}

/// Mode 1's preparation: the compare-mask register receives the scalar, repeated.
fn load_mode1_scalar<T: Element>(scalar: T) {
    let one = bytemuck::bytes_of(&scalar);
    let mut b = [0u8; 16];
    for (i, v) in b.iter_mut().enumerate() {
        *v = one[i % T::SIZE];
    }
    set_cmp_mask_bytes(b);
}

// ---------------------------------------------------------------------------------------------
// Lane kernels.

/// Reads bit `k` (little-endian) of the bytes at `sel`.
///
/// # Safety
/// `sel` is valid for reading byte `k / 8`.
#[inline(always)]
unsafe fn bit(sel: *const u8, k: usize) -> bool {
    // SAFETY: function contract.
    unsafe { (*sel.add(k >> 3) >> (k & 7)) & 1 != 0 }
}

/// Two-tensor kernel (modes 0 and 2). `wrap = PAR` for mode 0 (bit = lane % PAR), `usize::MAX`
/// otherwise (bit = lane).
struct TensorTensor {
    sel: *const u8,
    wrap: usize,
}

impl<T: Element> Lanes<T, 2> for TensorTensor {
    #[inline]
    unsafe fn run(&mut self, lane: usize, dst: *mut T, src: [*const T; 2], n: usize) {
        let [a, b] = src;
        let mut i = 0;
        while i < n {
            let k0 = (lane + i) % self.wrap;
            let len = (self.wrap - k0).min(n - i);
            for j in 0..len {
                // SAFETY: lanes i + j < n are valid for every pointer (Lanes contract); the
                // selection bytes were checked to hold bit k0 + j.
                unsafe {
                    let (x, y, s) = (*a.add(i + j), *b.add(i + j), bit(self.sel, k0 + j));
                    *dst.add(i + j) = if s { x } else { y };
                }
            }
            i += len;
        }
    }
}

/// Tensor-scalar kernel (mode 1): bit = lane.
struct TensorScalar<T> {
    sel: *const u8,
    scalar: T,
}

impl<T: Element> Lanes<T, 1> for TensorScalar<T> {
    #[inline]
    unsafe fn run(&mut self, lane: usize, dst: *mut T, src: [*const T; 1], n: usize) {
        let [a] = src;
        let y = self.scalar;
        for j in 0..n {
            // SAFETY: lane j < n is valid for both pointers; the selection bytes hold bit
            // lane + j (checked by the caller).
            unsafe {
                let (x, s) = (*a.add(j), bit(self.sel, lane + j));
                *dst.add(j) = if s { x } else { y };
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Drivers.

/// Where the selection bits come from for one call.
enum Bits<'a, U: SelMaskElement> {
    /// Tensor forms: `selMask` (modes 0 and 2 load the compare-mask register from it first).
    Tensor(&'a LocalTensor<U>),
    /// Register forms: the compare-mask register as it stands.
    Register,
}

/// Holds whatever the bit pointer of a kernel points into for the duration of a call.
enum BitSource {
    Reg([u8; 16]),
    Ub(LocalTensor<u8>),
}

impl BitSource {
    fn ptr(&self) -> *const u8 {
        match self {
            BitSource::Reg(b) => b.as_ptr(),
            BitSource::Ub(t) => t.ptr(),
        }
    }
}

/// Resolves the bit source for a two-tensor call, given one past the last lane it reads
/// (`None` = nothing to do, only the preparation runs).
#[track_caller]
fn tensor_tensor_bits<U: SelMaskElement>(
    bits: Bits<'_, U>,
    mode: SelMode,
    lanes: Option<usize>,
) -> BitSource {
    match (mode, bits) {
        (SelMode::VselCmpmaskSpr, Bits::Tensor(sel)) => BitSource::Reg(load_mode0(sel)),
        (SelMode::VselCmpmaskSpr, Bits::Register) => BitSource::Reg(cmp_mask_bytes()),
        (_, Bits::Tensor(sel)) => {
            let b = sel_bytes(sel, mode, lanes.unwrap_or(0));
            load_mode2_address(&b);
            BitSource::Ub(b)
        }
        (_, Bits::Register) => BitSource::Ub(register_address(mode, lanes.unwrap_or(0))),
    }
}

/// Mode 2's register form: the `selMask` bytes at the UB address held in the low 32 bits of
/// the compare-mask register.
#[track_caller]
fn register_address(mode: SelMode, bits: usize) -> LocalTensor<u8> {
    let (reg, ub) = with_core(|c| (c.cmp_mask.get(), std::rc::Rc::clone(&c.ub)));
    let addr = (reg[0] & 0xFFFF_FFFF) as usize;
    let size = ub.size();
    ensure(addr < size && addr % 32 == 0, API, || {
        format!(
            "the compare-mask register holds selMask address = {addr:#x}, which is not a 32-byte aligned address below the UB size {size:#x} (load it with SetCmpMask first)"
        )
    });
    let t = LocalTensor::<u8>::from_raw(ub, addr, size - addr, crate::position::TPosition::VECCALC);
    ensure((size - addr) * 8 >= bits, API, || {
        format!(
            "selMask at address {addr:#x} (from the compare-mask register) would need {bits} bits but only {} bits of UB remain for selMode = {mode}",
            (size - addr) * 8
        )
    });
    crate::observe::events::on_vector(API, &[span_of(&t, bits.div_ceil(8))], &[]);
    t
}

#[track_caller]
#[allow(clippy::too_many_arguments)]
fn run_tensor_tensor<T: SelectElement, U: SelMaskElement>(
    dst: &LocalTensor<T>,
    bits: Bits<'_, U>,
    src0: &LocalTensor<T>,
    src1: &LocalTensor<T>,
    mode: SelMode,
    plan: Option<Plan>,
    params: &BinaryRepeatParams,
) {
    let lanes = plan.as_ref().map(lanes_end::<T>);
    let source = tensor_tensor_bits(bits, mode, lanes);
    let Some(plan) = plan else { return };
    let p = params;
    let d = Operand::new(dst, p.dst_blk_stride, p.dst_rep_stride, "dst");
    let s0 = Operand::new(src0, p.src0_blk_stride, p.src0_rep_stride, "src0");
    let s1 = Operand::new(src1, p.src1_blk_stride, p.src1_rep_stride, "src1");
    let wrap = if mode == SelMode::VselCmpmaskSpr { T::PAR } else { usize::MAX };
    apply(API, &plan, &d, [&s0, &s1], &mut TensorTensor { sel: source.ptr(), wrap });
}

#[track_caller]
fn run_tensor_scalar<T: SelectElement, U: SelMaskElement>(
    dst: &LocalTensor<T>,
    sel: &LocalTensor<U>,
    src0: &LocalTensor<T>,
    scalar: Option<T>,
    plan: Option<Plan>,
    params: &BinaryRepeatParams,
) {
    let mode = SelMode::VselTensorScalarMode;
    let lanes = plan.as_ref().map_or(0, lanes_end::<T>);
    let sel = sel_bytes(sel, mode, lanes);
    let scalar = match scalar {
        Some(v) => {
            load_mode1_scalar(v);
            v
        }
        None => scalar_from_register::<T>(),
    };
    let Some(plan) = plan else { return };
    let d = Operand::new(dst, params.dst_blk_stride, params.dst_rep_stride, "dst");
    let s0 = Operand::new(src0, params.src0_blk_stride, params.src0_rep_stride, "src0");
    apply(API, &plan, &d, [&s0], &mut TensorScalar { sel: sel.ptr(), scalar });
}

/// The mode-1 scalar held in the low `T::SIZE` bytes of the compare-mask register.
fn scalar_from_register<T: Element>() -> T {
    let b = cmp_mask_bytes();
    bytemuck::pod_read_unaligned(&b[..T::SIZE])
}

// ---------------------------------------------------------------------------------------------
// Public forms.

/// `Select` on the first `count` elements, modes 0 and 2 (AscendC
/// `Select(dst, selMask, src0, src1, selMode, calCount)`): `dst[i] = bit ? src0[i] : src1[i]`,
/// where the bit is `i % PAR` of the first `PAR` bits (mode 0, as AscendC's count form loads
/// the compare-mask register once and runs in counter mode) or bit `i` (mode 2).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut c, mut m) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// for t in [&mut a, &mut b, &mut c, &mut m] { pipe.init_tbuf(t, 256); }
/// let (dst, x, y, sel) = (a.get::<f32>(), b.get::<f32>(), c.get::<f32>(), m.get::<u8>());
/// x.copy_from_slice(&[1.0; 64]);
/// y.copy_from_slice(&[2.0; 64]);
/// sel.set_value(0, 0b0000_0101);
/// select(&dst, &sel, &x, &y, SelMode::VselTensorTensorMode, 8);
/// assert_eq!(dst.to_vec()[..8], [1.0, 2.0, 1.0, 2.0, 2.0, 2.0, 2.0, 2.0]);
/// ```
///
/// # Panics
/// Panics if `sel_mode` is mode 1 (use [`select_scalar`]) or unsupported on the chip (modes
/// 1 and 2 on Ascend910), if `selMask` holds too few bits (mode 0 reads 128 bits, mode 2
/// `count`), if an operand is not a 32-byte aligned UB tensor or holds fewer than `count`
/// elements, or if `dst` partially overlaps a source.
#[track_caller]
pub fn select<T: SelectElement, U: SelMaskElement>(
    dst: &LocalTensor<T>,
    sel_mask: &LocalTensor<U>,
    src0: &LocalTensor<T>,
    src1: &LocalTensor<T>,
    sel_mode: SelMode,
    count: usize,
) {
    check_mode(sel_mode, false);
    let lanes = (count > 0).then_some(count);
    let source = tensor_tensor_bits(Bits::Tensor(sel_mask), sel_mode, lanes);
    let wrap = if sel_mode == SelMode::VselCmpmaskSpr { T::PAR } else { usize::MAX };
    apply_count(
        API,
        count,
        (dst, "dst"),
        [(src0, "src0"), (src1, "src1")],
        &mut TensorTensor { sel: source.ptr(), wrap },
    );
}

/// `Select` on the first `count` elements, mode 1 (AscendC
/// `Select(dst, selMask, src0, scalar, selMode, calCount)`): `dst[i] = bit i ? src0[i] : scalar`.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut m) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// for t in [&mut a, &mut b, &mut m] { pipe.init_tbuf(t, 256); }
/// let (dst, x, sel) = (a.get::<f32>(), b.get::<f32>(), m.get::<u16>());
/// x.copy_from_slice(&[5.0; 64]);
/// sel.set_value(0, 0b11);
/// select_scalar(&dst, &sel, &x, 0.5f32, SelMode::VselTensorScalarMode, 4);
/// assert_eq!(dst.to_vec()[..4], [5.0, 5.0, 0.5, 0.5]);
/// ```
///
/// # Panics
/// Panics if `sel_mode` is not mode 1 or the chip lacks mode 1 (Ascend910), if `selMask`
/// holds fewer than `count` bits, if an operand is not a 32-byte aligned UB tensor or holds
/// fewer than `count` elements, or if `dst` partially overlaps `src0`.
#[track_caller]
pub fn select_scalar<T: SelectElement, U: SelMaskElement>(
    dst: &LocalTensor<T>,
    sel_mask: &LocalTensor<U>,
    src0: &LocalTensor<T>,
    src1: T,
    sel_mode: SelMode,
    count: usize,
) {
    check_mode(sel_mode, true);
    let sel = sel_bytes(sel_mask, sel_mode, count);
    load_mode1_scalar(src1);
    apply_count(
        API,
        count,
        (dst, "dst"),
        [(src0, "src0")],
        &mut TensorScalar { sel: sel.ptr(), scalar: src1 },
    );
}

/// High-dimensional `Select`, modes 0 and 2 (AscendC
/// `Select<T, U, isSetMask>(dst, selMask, src0, src1, selMode, mask, repeatTimes, repeatParams)`),
/// with a continuous (`u64`) or bit (`[u64; 2]`) mask. Lane `j` of repeat `r` uses bit `j`
/// (mode 0) or bit `r * PAR + j` (mode 2) of `selMask`; disabled lanes keep `dst`.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut c, mut m) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// for t in [&mut a, &mut b, &mut c] { pipe.init_tbuf(t, 512); }
/// pipe.init_tbuf(&mut m, 32);
/// let (dst, x, y, sel) = (a.get::<f32>(), b.get::<f32>(), c.get::<f32>(), m.get::<u64>());
/// x.copy_from_slice(&[1.0; 128]);
/// y.copy_from_slice(&[2.0; 128]);
/// sel.set_value(0, 1); // lane 0 of every repeat takes src0
/// let p = BinaryRepeatParams::default();
/// select_masked::<f32, u64, true>(&dst, &sel, &x, &y, SelMode::VselCmpmaskSpr, 64u64, 2, &p);
/// assert_eq!((dst.get_value(0), dst.get_value(1), dst.get_value(64)), (1.0, 2.0, 1.0));
/// ```
///
/// # Panics
/// Panics as [`select`] and additionally if the mask is out of range for `T`, if
/// `IS_SET_MASK = true` gets `MASK_PLACEHOLDER` (with `IS_SET_MASK = false` the argument is
/// ignored), or if
/// a touched element lies outside its tensor.
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn select_masked<T: SelectElement, U: SelMaskElement, const IS_SET_MASK: bool>(
    dst: &LocalTensor<T>,
    sel_mask: &LocalTensor<U>,
    src0: &LocalTensor<T>,
    src1: &LocalTensor<T>,
    sel_mode: SelMode,
    mask: impl Into<Mask>,
    repeat_times: u8,
    repeat_params: &BinaryRepeatParams,
) {
    check_mode(sel_mode, false);
    let plan = resolve::<T, IS_SET_MASK>(API, mask.into(), repeat_times as usize);
    run_tensor_tensor(dst, Bits::Tensor(sel_mask), src0, src1, sel_mode, plan, repeat_params);
}

/// High-dimensional `Select`, mode 1 (AscendC
/// `Select<T, U, isSetMask>(dst, selMask, src0, scalar, selMode, mask, repeatTimes, repeatParams)`).
/// The `src1` fields of `repeat_params` are unused.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut m) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// for t in [&mut a, &mut b, &mut m] { pipe.init_tbuf(t, 256); }
/// let (dst, x, sel) = (a.get::<f32>(), b.get::<f32>(), m.get::<u8>());
/// x.copy_from_slice(&[3.0; 64]);
/// sel.set_value(0, 0b10);
/// let p = BinaryRepeatParams::default();
/// select_scalar_masked::<f32, u8, true>(&dst, &sel, &x, -1.0, SelMode::VselTensorScalarMode, 2u64, 1, &p);
/// assert_eq!(dst.to_vec()[..2], [-1.0, 3.0]);
/// ```
///
/// # Panics
/// As [`select_masked`], for mode 1 only.
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn select_scalar_masked<T: SelectElement, U: SelMaskElement, const IS_SET_MASK: bool>(
    dst: &LocalTensor<T>,
    sel_mask: &LocalTensor<U>,
    src0: &LocalTensor<T>,
    src1: T,
    sel_mode: SelMode,
    mask: impl Into<Mask>,
    repeat_times: u8,
    repeat_params: &BinaryRepeatParams,
) {
    check_mode(sel_mode, true);
    let plan = resolve::<T, IS_SET_MASK>(API, mask.into(), repeat_times as usize);
    run_tensor_scalar(dst, sel_mask, src0, Some(src1), plan, repeat_params);
}

/// Register form of `Select`, modes 0 and 2 (AscendC
/// `Select<T, selMode>(dst, src0, src1, repeatTimes, repeatParams)`): uses the vector mask
/// register (as `IS_SET_MASK = false`) and the compare-mask register, which the kernel loads
/// with [`set_cmp_mask`](crate::vector::mask::set_cmp_mask) beforehand:
/// - `MODE = 0`: the register holds the selection bits themselves (lane `j` uses bit `j`);
/// - `MODE = 2`: its low 32 bits hold the UB address ([`LocalTensor::get_phy_addr`]) of the
///   `selMask` tensor, whose bits are then consumed contiguously as in the tensor forms.
///
/// `MODE` must be 0 or 2 (a compile error otherwise):
/// ```compile_fail
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut a = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut a, 256);
/// let t = a.get::<f32>();
/// select_reg::<f32, 1>(&t, &t, &t, 1, &BinaryRepeatParams::default());
/// ```
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut c, mut m, mut r) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// for t in [&mut a, &mut b, &mut c, &mut m, &mut r] { pipe.init_tbuf(t, 256); }
/// let (dst, x, y, sel, reg) = (a.get::<f32>(), b.get::<f32>(), c.get::<f32>(), m.get::<u8>(), r.get::<u32>());
/// x.copy_from_slice(&[1.0; 64]);
/// y.copy_from_slice(&[2.0; 64]);
/// sel.set_value(0, 0b01);
/// // Mode 2: the compare-mask register holds selMask's address.
/// for i in 0..4 { reg.set_value(i, sel.get_phy_addr() as u32); }
/// set_cmp_mask(&reg);
/// set_vector_mask::<f32>(64u64);
/// select_reg::<f32, 2>(&dst, &x, &y, 1, &BinaryRepeatParams::default());
/// assert_eq!(dst.to_vec()[..2], [1.0, 2.0]);
/// ```
///
/// # Panics
/// Panics if mode 2 is unsupported on the chip (Ascend910), if (mode 2) the register does not
/// hold a 32-byte aligned UB address with enough bytes after it, or as [`select_masked`] for
/// the operands.
#[track_caller]
pub fn select_reg<T: SelectElement, const MODE: u8>(
    dst: &LocalTensor<T>,
    src0: &LocalTensor<T>,
    src1: &LocalTensor<T>,
    repeat_times: u8,
    repeat_params: &BinaryRepeatParams,
) {
    const { assert!(MODE == 0 || MODE == 2, "select_reg takes MODE 0 or 2; mode 1 is select_scalar_reg") };
    let mode = SelMode::from_u8(MODE);
    check_chip(mode);
    let plan = resolve::<T, false>(API, Mask::Count(MASK_PLACEHOLDER), repeat_times as usize);
    run_tensor_tensor::<T, u8>(dst, Bits::Register, src0, src1, mode, plan, repeat_params);
}

/// Register form of `Select`, mode 1 (AscendC `Select<T, U>(dst, selMask, src0, repeatTimes,
/// repeatParams)`): uses the vector mask register and takes the scalar from the low
/// `size_of::<T>()` bytes of the compare-mask register, which the kernel loads beforehand with
/// [`set_cmp_mask`](crate::vector::mask::set_cmp_mask) from a tensor holding the scalar (the
/// tensor forms of mode 1 leave their scalar there too).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut m, mut r) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// for t in [&mut a, &mut b, &mut m, &mut r] { pipe.init_tbuf(t, 256); }
/// let (dst, x, sel, reg) = (a.get::<f32>(), b.get::<f32>(), m.get::<u8>(), r.get::<f32>());
/// x.copy_from_slice(&[1.0; 64]);
/// sel.set_value(0, 0b01);
/// reg.copy_from_slice(&[7.0; 4]);
/// set_cmp_mask(&reg);
/// set_vector_mask::<f32>(2u64);
/// select_scalar_reg::<f32, u8>(&dst, &sel, &x, 1, &BinaryRepeatParams::default());
/// assert_eq!(dst.to_vec()[..2], [1.0, 7.0]);
/// ```
///
/// # Panics
/// Panics on Ascend910 (no mode 1), or as [`select_scalar_masked`] for the operands.
#[track_caller]
pub fn select_scalar_reg<T: SelectElement, U: SelMaskElement>(
    dst: &LocalTensor<T>,
    sel_mask: &LocalTensor<U>,
    src0: &LocalTensor<T>,
    repeat_times: u8,
    repeat_params: &BinaryRepeatParams,
) {
    check_chip(SelMode::VselTensorScalarMode);
    let plan = resolve::<T, false>(API, Mask::Count(MASK_PLACEHOLDER), repeat_times as usize);
    run_tensor_scalar(dst, sel_mask, src0, None, plan, repeat_params);
}

static_assertions::assert_not_impl_any!(i32: SelectElement);
static_assertions::assert_not_impl_any!(crate::element::bf16: SelectElement);
static_assertions::assert_not_impl_any!(f32: SelMaskElement);
static_assertions::assert_not_impl_any!(crate::element::Bool8: SelectElement, SelMaskElement);
