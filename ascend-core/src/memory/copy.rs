//! Data movement between global memory and the Unified Buffer (AscendC `DataCopy`,
//! `DataCopyPad`, and `DataCopy` with `SliceInfo`).
//!
//! Every copy moves whole rows with `copy_nonoverlapping` on raw pointers; all checks
//! (positions, alignment, lengths, bounds of both sides, overlap) run once per call.
//!
//! | API | directions | unit of `block_len` | unit of strides |
//! | --- | --- | --- | --- |
//! | [`data_copy`] | GM→UB, UB→GM, UB→UB | (count in elements, multiple of 32 bytes) | — |
//! | [`data_copy_params`] | GM→UB, UB→GM, UB→UB | 32-byte blocks | 32-byte blocks, both sides |
//! | [`data_copy_pad`] | GM→UB | bytes | GM: bytes; UB: 32-byte blocks |
//! | [`data_copy_pad_to_gm`] | UB→GM | bytes | UB: 32-byte blocks; GM: bytes |
//! | [`data_copy_slice`] | GM→UB, UB→GM | 32-byte blocks ([`SliceInfo::burst_len`]) | elements ([`SliceInfo::stride`]) |
//!
//! A stride is always the gap from the end of one row (block run) to the start of the next.

use crate::element::{Element, TensorType, BLOCK_BYTES};
use crate::kernel::ctx::get_soc;
use crate::kernel::error::{check, ensure};
use crate::memory::atomic::{store_to_gm, Rows};
use crate::memory::tensor::{GlobalTensor, LocalTensor};
use crate::observe::events::on_copy;
use crate::observe::sanitizer::CopyShape;
use crate::soc::Soc;

/// Largest `block_count` of [`DataCopyParams`] and [`DataCopyExtParams`].
pub const MAX_BLOCK_COUNT: u16 = 4095;
/// Largest `block_len` (bytes) of [`DataCopyExtParams`].
pub const MAX_PAD_BLOCK_LEN: u32 = 2_097_151;

/// Parameters of a strided [`data_copy_params`] (AscendC `DataCopyParams`). All lengths and
/// strides are in 32-byte blocks, on the GM side as on the UB side.
///
/// Row `i` (`0..block_count`) of `block_len` blocks starts at block
/// `i * (block_len + src_stride)` of the source and `i * (block_len + dst_stride)` of the
/// destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DataCopyParams {
    /// Number of rows (block runs), `0..=4095`; 0 copies nothing.
    pub block_count: u16,
    /// Length of each row in 32-byte blocks; 0 copies nothing.
    pub block_len: u16,
    /// Gap between source rows, in 32-byte blocks.
    pub src_stride: u16,
    /// Gap between destination rows, in 32-byte blocks.
    pub dst_stride: u16,
}

impl Default for DataCopyParams {
    /// AscendC's defaults: one row, nothing to copy, no gaps.
    fn default() -> Self {
        DataCopyParams { block_count: 1, block_len: 0, src_stride: 0, dst_stride: 0 }
    }
}

impl DataCopyParams {
    /// The parameters in AscendC's field order.
    pub const fn new(block_count: u16, block_len: u16, src_stride: u16, dst_stride: u16) -> Self {
        DataCopyParams { block_count, block_len, src_stride, dst_stride }
    }
}

/// Parameters of [`data_copy_pad`] and [`data_copy_pad_to_gm`] (AscendC `DataCopyExtParams`).
///
/// `block_len` is in bytes. The stride on the GM side is in bytes, the stride on the UB side
/// in 32-byte blocks (so `src_stride` is in bytes for GM→UB and in blocks for UB→GM).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DataCopyExtParams {
    /// Number of rows, `0..=4095`; 0 copies nothing.
    pub block_count: u16,
    /// Bytes of data per row, `0..=2097151`, a multiple of the element size; 0 copies nothing.
    pub block_len: u32,
    /// Gap between source rows (bytes from GM, 32-byte blocks from UB).
    pub src_stride: u32,
    /// Gap between destination rows (32-byte blocks into UB, bytes into GM).
    pub dst_stride: u32,
    /// Reserved; ignored.
    pub rsv: u32,
}

impl Default for DataCopyExtParams {
    /// AscendC's defaults: one row, nothing to copy, no gaps.
    fn default() -> Self {
        DataCopyExtParams { block_count: 1, block_len: 0, src_stride: 0, dst_stride: 0, rsv: 0 }
    }
}

impl DataCopyExtParams {
    /// The parameters in AscendC's field order (`rsv` = 0).
    pub const fn new(block_count: u16, block_len: u32, src_stride: u32, dst_stride: u32) -> Self {
        DataCopyExtParams { block_count, block_len, src_stride, dst_stride, rsv: 0 }
    }
}

/// Padding of a GM→UB [`data_copy_pad`] (AscendC `DataCopyPadExtParams<T>`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DataCopyPadExtParams<T: TensorType> {
    /// Whether `padding_value` fills the padding (and the filler up to the 32-byte boundary).
    pub is_pad: bool,
    /// Elements of padding before each row's data; at most 32 bytes.
    pub left_padding: u8,
    /// Elements of padding after each row's data; at most 32 bytes.
    pub right_padding: u8,
    /// The padding value (must be zero for 64-bit types).
    pub padding_value: T,
}

impl<T: Element> Default for DataCopyPadExtParams<T> {
    /// No padding, `is_pad = false`, value zero (AscendC's defaults).
    fn default() -> Self {
        DataCopyPadExtParams { is_pad: false, left_padding: 0, right_padding: 0, padding_value: T::ZERO }
    }
}

impl<T: TensorType> DataCopyPadExtParams<T> {
    /// The parameters in AscendC's field order.
    pub const fn new(is_pad: bool, left_padding: u8, right_padding: u8, padding_value: T) -> Self {
        DataCopyPadExtParams { is_pad, left_padding, right_padding, padding_value }
    }
}

mod sealed {
    use super::*;

    /// One end of a copy, resolved and checked.
    #[derive(Clone, Copy)]
    pub struct Side {
        pub(crate) ptr: *mut u8,
        /// Bytes of the tensor.
        pub(crate) bytes: usize,
        /// Elements of the tensor.
        pub(crate) elems: usize,
        /// UB (or L1) byte address, or `None` for GM.
        pub(crate) ub_addr: Option<usize>,
    }

    /// Resolves a tensor to a [`Side`].
    pub trait Mem {
        /// The element type.
        type Elem: TensorType;
        /// Checks the tensor for `api` and returns its raw extent.
        #[track_caller]
        fn side(&self, api: &'static str, name: &'static str) -> Side;
        /// Whether the tensor is in L1 (`DataCopy`'s count and `DataCopyParams` forms also move
        /// GM → L1).
        #[inline(always)]
        fn in_l1(&self) -> bool {
            false
        }
        /// [`side`](Self::side) of a tensor in L1 (see [`in_l1`](Self::in_l1)).
        #[track_caller]
        fn l1_side(&self, api: &'static str, name: &'static str) -> Side {
            self.side(api, name)
        }
        /// Where the tensor is, for the sanitizer.
        fn san(&self) -> crate::observe::sanitizer::SanSide;
        /// [`san`](Self::san) of a tensor in L1 (see [`in_l1`](Self::in_l1)).
        fn san_l1(&self) -> crate::observe::sanitizer::SanSide {
            self.san()
        }
        /// The GM region behind a global tensor (`None` for a UB tensor).
        fn gm_region(&self) -> Option<std::sync::Arc<crate::memory::tensor::GmRegion>> {
            None
        }
    }

    impl<T: TensorType> Mem for LocalTensor<T> {
        type Elem = T;
        #[track_caller]
        fn side(&self, api: &'static str, name: &'static str) -> Side {
            local_side(self, api, name)
        }
        #[inline(always)]
        fn in_l1(&self) -> bool {
            // The position first (a field): the UB's are the common case, and only a cube
            // position may be in L1.
            !self.get_position().is_ub() && self.ub().mem() == crate::position::Memory::L1
        }
        #[track_caller]
        fn l1_side(&self, api: &'static str, name: &'static str) -> Side {
            l1_side(self, api, name)
        }
        fn san(&self) -> crate::observe::sanitizer::SanSide {
            crate::observe::sanitizer::SanSide::Ub(self.get_phy_addr(), self.tag)
        }
        fn san_l1(&self) -> crate::observe::sanitizer::SanSide {
            crate::observe::sanitizer::SanSide::L1(self.get_phy_addr(), self.tag)
        }
    }

    impl<T: TensorType> Mem for GlobalTensor<T> {
        type Elem = T;
        #[track_caller]
        fn side(&self, api: &'static str, _name: &'static str) -> Side {
            gm_side(self, api)
        }
        fn san(&self) -> crate::observe::sanitizer::SanSide {
            let (region, off) = self.san_loc();
            crate::observe::sanitizer::SanSide::Gm(region, off)
        }
        fn gm_region(&self) -> Option<std::sync::Arc<crate::memory::tensor::GmRegion>> {
            self.region_arc()
        }
    }
}
use sealed::{Mem, Side};

#[track_caller]
fn local_side<T: TensorType>(t: &LocalTensor<T>, api: &'static str, name: &'static str) -> Side {
    t.check_core(api);
    let pos = t.get_position();
    check!(
        pos.is_ub(),
        api,
        "{name} is at position {pos}: the Unified Buffer side must be VECIN, VECOUT or VECCALC"
    );
    let addr = t.get_phy_addr();
    check!(addr % BLOCK_BYTES == 0, api, "{name} UB address = {addr:#x} is not 32-byte aligned");
    Side { ptr: t.byte_ptr(), bytes: t.get_length(), elems: t.get_size(), ub_addr: Some(addr) }
}

/// An L1 side: 32-byte aligned, as the GM → L1 copy pages ask.
#[cold]
#[track_caller]
fn l1_side<T: TensorType>(t: &LocalTensor<T>, api: &'static str, name: &'static str) -> Side {
    t.check_core(api);
    let addr = t.get_phy_addr();
    check!(addr % BLOCK_BYTES == 0, api, "{name} L1 address = {addr:#x} is not 32-byte aligned");
    Side { ptr: t.byte_ptr(), bytes: t.get_length(), elems: t.get_size(), ub_addr: Some(addr) }
}

/// A copy with an L1 side: only GM → L1 exists (its pages: Ascend910, Ascend910B and
/// Ascend310P; the way out of the cube is `Fixpipe` from L0C).
/// Returns the sides.
#[cold]
#[inline(never)]
#[track_caller]
fn l1_sides<D: Mem, S: Mem>(api: &'static str, dst: &D, src: &S) -> (Side, Side) {
    let (d_l1, s_l1) = (dst.in_l1(), src.in_l1());
    let s = if s_l1 { src.l1_side(api, "src") } else { src.side(api, "src") };
    check!(
        d_l1 && !s_l1 && s.ub_addr.is_none(),
        api,
        "{}: DataCopy moves GM -> L1 only here (results leave the cube through L0C and Fixpipe; L1 -> the bias \
         table C2 is cube::bias_table::data_copy_bias)",
        if d_l1 { "src is not global memory" } else { "src is in L1" }
    );
    let soc = crate::kernel::ctx::get_soc();
    check!(
        matches!(soc, Soc::Ascend910 | Soc::Ascend910B | Soc::Ascend310P),
        api,
        "DataCopy GM -> L1 is not supported on {soc} (supported: Ascend910, Ascend910B, Ascend310P)"
    );
    (dst.l1_side(api, "dst"), s)
}

#[track_caller]
fn gm_side<T: TensorType>(t: &GlobalTensor<T>, api: &'static str) -> Side {
    let ptr = t.base_ptr(api).cast();
    // `bytes_for` cannot overflow: the bound length fits in its region.
    Side { ptr, bytes: T::bytes_for(t.get_size()).unwrap_or(usize::MAX), elems: t.get_size(), ub_addr: None }
}

/// The directions [`data_copy`] and [`data_copy_params`] support: `DataCopy<Src>` is
/// implemented by the destination type for each allowed source type — GM→UB
/// (`LocalTensor<T>: DataCopy<GlobalTensor<T>>`), UB→GM and UB→UB. GM→GM and copies between
/// element types do not compile:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// let (a, b) = (GlobalTensor::<f32>::new(), GlobalTensor::<f32>::new());
/// data_copy(&a, &b, 8);
/// ```
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(dst: &LocalTensor<f32>, src: &GlobalTensor<i32>) { data_copy(dst, src, 8) }
/// ```
pub trait DataCopy<Src: Mem<Elem = Self::Elem>>: Mem {}

impl<T: TensorType> DataCopy<GlobalTensor<T>> for LocalTensor<T> {}
impl<T: TensorType> DataCopy<LocalTensor<T>> for GlobalTensor<T> {}
impl<T: TensorType> DataCopy<LocalTensor<T>> for LocalTensor<T> {}

/// Copies `rows` rows of `row` bytes; row `i` is read at `src + i * src_pitch` and written at
/// `dst + i * dst_pitch`. The global-memory side (if any) is accessed through `gm_io`'s
/// atomic words, so cores racing on global memory never make undefined behaviour.
///
/// # Safety
/// Every row must lie inside live allocations on both sides (a `GlobalTensor`'s region for a
/// GM side), and no written row may overlap any row read.
#[inline]
unsafe fn copy_rows(
    d: &Side,
    s: &Side,
    dst_off: usize,
    rows: usize,
    row: usize,
    dst_pitch: usize,
    src_pitch: usize,
) {
    // SAFETY: `dst_off` lies in the destination (contract).
    let (dst, src) = (unsafe { d.ptr.add(dst_off) }, s.ptr.cast_const());
    let one = |dst: *mut u8, src: *const u8, n: usize| {
        // SAFETY: in bounds and disjoint per the contract; GM sides go through `gm_io`.
        unsafe {
            match (d.ub_addr, s.ub_addr) {
                (_, None) => crate::memory::gm_io::load(dst, src, n),
                (None, _) => crate::memory::gm_io::store(dst, src, n),
                _ => std::ptr::copy_nonoverlapping(src, dst, n),
            }
        }
    };
    if rows == 1 || (row == dst_pitch && row == src_pitch) {
        one(dst, src, rows * row);
        return;
    }
    for i in 0..rows {
        // SAFETY: row `i` lies in bounds on both sides (contract).
        unsafe { one(dst.add(i * dst_pitch), src.add(i * src_pitch), row) };
    }
}

/// Byte span `[0, (rows - 1) * pitch + last)` of a strided access, or `None` on overflow.
fn span(rows: usize, pitch: usize, last: usize) -> Option<usize> {
    (rows - 1).checked_mul(pitch)?.checked_add(last)
}

/// A span for an error message: its byte count, or a note that it overflowed.
fn show_span(sp: usize) -> String {
    if sp == usize::MAX {
        "more than usize::MAX".to_string()
    } else {
        sp.to_string()
    }
}

/// How the two ends of a UB→UB copy share bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum UbOverlap {
    /// No shared byte (or not both in the Unified Buffer).
    Apart,
    /// The same bytes with the same layout: nothing to move.
    Same,
    /// `dst` starts at or before `src` and advances no faster (`d_pitch <= s_pitch`): the
    /// hardware streams the rows first to last, each front to back, so every byte is read
    /// before it is overwritten (the vendor's `ReduceSum` packs rows in place this way).
    Forward,
}

/// For UB→UB: how `dst`'s span `d_span` (rows `d_pitch` apart) and `src`'s span `s_span`
/// (rows `s_pitch` apart) share bytes; fails on any overlap whose result would depend on
/// the order the hardware moves the blocks in (`dst` after `src`, or advancing faster).
#[track_caller]
#[inline]
fn check_ub_overlap(
    api: &'static str,
    d: &Side,
    s: &Side,
    (d_span, d_pitch): (usize, usize),
    (s_span, s_pitch): (usize, usize),
) -> UbOverlap {
    let (Some(da), Some(sa)) = (d.ub_addr, s.ub_addr) else { return UbOverlap::Apart };
    // Host addresses, not UB offsets: tensors of two arenas never overlap. The spans were
    // checked against their tensors, so these sums do not overflow.
    let (dh, sh) = (d.ptr as usize, s.ptr as usize);
    if dh + d_span <= sh || sh + s_span <= dh {
        return UbOverlap::Apart;
    }
    if dh == sh && d_pitch == s_pitch {
        return UbOverlap::Same;
    }
    ensure(dh <= sh && d_pitch <= s_pitch, api, move || {
        format!(
            "dst bytes [{da:#x}, {:#x}) overlap src bytes [{sa:#x}, {:#x}) in the Unified Buffer with dst {}: the \
             result would depend on the order the hardware moves the blocks in (an overlapping copy must start dst \
             at or before src and advance it no faster, rows {d_pitch} and {s_pitch} bytes apart here)",
            da + d_span,
            sa + s_span,
            if dh > sh { "after src" } else { "advancing faster than src" }
        )
    });
    UbOverlap::Forward
}

/// Moves `rows` UB rows of `row` bytes, `d_pitch` / `s_pitch` apart, whose ends may overlap as
/// [`UbOverlap::Forward`] allows: first row first, each as a forward copy.
///
/// # Safety
/// Every row lies inside the Unified Buffer on both sides, and the overlap is `Forward`.
unsafe fn move_rows_forward(d: &Side, s: &Side, rows: usize, row: usize, d_pitch: usize, s_pitch: usize) {
    for i in 0..rows {
        // SAFETY: row `i` lies in the Unified Buffer on both sides (contract); `ptr::copy`
        // allows the overlap, and with `dst <= src` it equals a front-to-back copy.
        unsafe { std::ptr::copy(s.ptr.add(i * s_pitch).cast_const(), d.ptr.add(i * d_pitch), row) };
    }
}

/// Copies `count` elements from `src` to `dst` (AscendC `DataCopy(dst, src, count)`):
/// GM→UB, UB→GM or UB→UB.
///
/// `count * size_of::<T>()` must be a multiple of 32 bytes: the hardware moves whole 32-byte
/// blocks and silently drops the rest, which this emulator reports as an error (use
/// [`data_copy_pad`] / [`data_copy_pad_to_gm`] for other lengths). `count = 0` copies nothing.
///
/// ```
/// use ascend_core::prelude::*;
/// let data: Vec<f32> = (0..64).map(|i| i as f32).collect();
/// let region = GmRegion::from_bytes(bytemuck::cast_slice(&data));
/// let mut gm = GlobalTensor::<f32>::new();
/// gm.set_global_buffer(region.addr(), 64);
/// let mut pipe = TPipe::new();
/// let mut q = TQue::<VecIn, 1>::new();
/// pipe.init_buffer(&mut q, 1, 64 * 4);
/// let x = q.alloc_tensor::<f32>();
/// data_copy(&x, &gm.view(8), 56); // GM → UB, 56 * 4 = 224 bytes = 7 blocks
/// assert_eq!(x.get_value(0), 8.0);
/// data_copy(&gm, &x, 8); // UB → GM
/// assert_eq!(gm.get_value(7), 15.0);
/// ```
///
/// # Panics
/// Panics if `T` is [`Int4b`](crate::element::Int4b) (the vendor's count form reads an `int4b_t` count as bytes on
/// these chips; see [`Int4b`](crate::element::Int4b)), `count * size_of::<T>()` is not a multiple of 32, `count`
/// exceeds either tensor, a UB tensor is not at a UB position or not 32-byte aligned, a GM tensor is
/// unbound, or (UB→UB) the two ranges overlap with `dst` after `src` (an overlap with `dst`
/// before `src` is moved front to back, as the hardware streams it).
#[track_caller]
pub fn data_copy<D: DataCopy<S>, S: Mem<Elem = D::Elem>>(dst: &D, src: &S, count: usize) {
    let api = "DataCopy";
    let Some(dtype) = <D::Elem as TensorType>::ELEM_DTYPE else { int4b_count_form(api, count) };
    let size = dtype.size();
    let l1 = dst.in_l1() || src.in_l1();
    let (d, s) = if l1 { l1_sides(api, dst, src) } else { (dst.side(api, "dst"), src.side(api, "src")) };
    let Some(bytes) = count.checked_mul(size) else {
        let (s_elems, d_elems) = (s.elems, d.elems);
        crate::kernel::error::fail_with(api, move || {
            format!("count = {count} {dtype} elements overflows the address space (src has {s_elems}, dst {d_elems})")
        })
    };
    check!(
        bytes % BLOCK_BYTES == 0,
        api,
        "count = {count} {dtype} elements is {bytes} bytes, not a multiple of 32 bytes (the hardware would \
         silently copy only {} bytes; use DataCopyPad for unaligned lengths)",
        bytes / BLOCK_BYTES * BLOCK_BYTES
    );
    let (s_elems, d_elems) = (s.elems, d.elems);
    check!(count <= s_elems, api, "count = {count} exceeds src's {s_elems} {dtype} elements");
    check!(count <= d_elems, api, "count = {count} exceeds dst's {d_elems} {dtype} elements");
    let overlap =
        if count == 0 { UbOverlap::Same } else { check_ub_overlap(api, &d, &s, (bytes, 0), (bytes, 0)) };
    if overlap == UbOverlap::Same {
        return;
    }
    let shape =
        CopyShape { rows: 1, row: bytes, d_pitch: bytes, s_pitch: bytes, d_span: bytes, s_span: bytes };
    on_copy(api, if l1 { dst.san_l1() } else { dst.san() }, src.san(), &shape);
    if overlap == UbOverlap::Forward {
        // SAFETY: `bytes` fit in both UB tensors (checked above); the overlap is `Forward`.
        unsafe { move_rows_forward(&d, &s, 1, bytes, 0, 0) };
        return;
    }
    if d.ub_addr.is_none() {
        let rows = Rows { rows: 1, row: bytes, d_pitch: bytes, s_pitch: bytes };
        // SAFETY: as below; a GM destination is only touched by the atomic path.
        if unsafe { store_to_gm::<D::Elem>(api, || dst.gm_region(), d.ptr, s.ptr, rows) } {
            return;
        }
    }
    // SAFETY: `bytes` fit in both tensors (checked above), which lie inside their UB / GM
    // allocations; GM and UB are distinct allocations and UB→UB overlap was ruled out.
    unsafe { copy_rows(&d, &s, 0, 1, bytes, bytes, bytes) };
}

/// The count form of `DataCopy` with `int4b_t`: not on these chips.
#[cold]
#[track_caller]
fn int4b_count_form(api: &'static str, count: usize) -> ! {
    let soc = get_soc();
    crate::kernel::error::fail_with(api, move || {
        format!(
            "count = {count} int4b_t elements: the count form does not take int4b_t on {soc} (the DataCopy page does \
             not list int4b_t for it, and its implementation reads the count as sizeof(int4b_t) = 1-byte \
             elements, so it would move {count} bytes, twice the data); use data_copy_params (32-byte blocks) or \
             DataCopyPad (blockLen in bytes), or an int8_t view"
        )
    })
}

/// Strided copy of `params.block_count` rows of `params.block_len` 32-byte blocks (AscendC
/// `DataCopy(dst, src, DataCopyParams)`): GM→UB, UB→GM or UB→UB.
///
/// Row `i` is read at byte `32 * i * (block_len + src_stride)` of `src` and written at byte
/// `32 * i * (block_len + dst_stride)` of `dst`; the bytes in the gaps of `dst` keep their
/// values. `block_count = 0` or `block_len = 0` copies nothing (as on Atlas A2).
///
/// ```
/// use ascend_core::prelude::*;
/// let data: Vec<i32> = (0..48).collect();
/// let region = GmRegion::from_bytes(bytemuck::cast_slice(&data));
/// let mut gm = GlobalTensor::<i32>::new();
/// gm.set_global_buffer(region.addr(), 48);
/// let mut pipe = TPipe::new();
/// let mut buf = TBuf::<VecIn>::new();
/// pipe.init_tbuf(&mut buf, 16 * 4);
/// let x = buf.get::<i32>();
/// // two rows of one block (8 i32), skipping one block between source rows
/// data_copy_params(&x, &gm, &DataCopyParams::new(2, 1, 1, 0));
/// assert_eq!(x.get_value(7), 7);
/// assert_eq!(x.get_value(8), 16);
/// ```
///
/// # Panics
/// Panics if `block_count > 4095`, a side's rows do not fit in its tensor, a UB tensor is not
/// at a UB position or not 32-byte aligned, a GM tensor is unbound, or (UB→UB) the two
/// spans overlap unless `dst` starts at or before `src` and its rows are no farther apart
/// (then the rows are moved first to last, each front to back, as the hardware streams them).
#[track_caller]
pub fn data_copy_params<D: DataCopy<S>, S: Mem<Elem = D::Elem>>(dst: &D, src: &S, params: &DataCopyParams) {
    copy_params_as("DataCopy", dst, src, params);
}

/// [`data_copy_params`] on behalf of `api` (a primitive built on it), which its checks and
/// the sanitizer name.
#[track_caller]
pub(crate) fn copy_params_as<D: DataCopy<S>, S: Mem<Elem = D::Elem>>(
    api: &'static str,
    dst: &D,
    src: &S,
    params: &DataCopyParams,
) {
    let l1 = dst.in_l1() || src.in_l1();
    let (d, s) = if l1 { l1_sides(api, dst, src) } else { (dst.side(api, "dst"), src.side(api, "src")) };
    let DataCopyParams { block_count, block_len, src_stride, dst_stride } = *params;
    ensure(block_count <= MAX_BLOCK_COUNT, api, || {
        format!("blockCount = {block_count} is out of range [0, {MAX_BLOCK_COUNT}]")
    });
    if block_count == 0 || block_len == 0 {
        return;
    }
    let rows = usize::from(block_count);
    let row = usize::from(block_len) * BLOCK_BYTES;
    let s_pitch = row + usize::from(src_stride) * BLOCK_BYTES;
    let d_pitch = row + usize::from(dst_stride) * BLOCK_BYTES;
    let s_span = span(rows, s_pitch, row).unwrap_or(usize::MAX);
    let d_span = span(rows, d_pitch, row).unwrap_or(usize::MAX);
    for (side, name, stride_name, stride, sp) in
        [(&s, "src", "srcStride", src_stride, s_span), (&d, "dst", "dstStride", dst_stride, d_span)]
    {
        ensure(sp <= side.bytes, api, || {
            format!(
                "blockCount = {block_count}, blockLen = {block_len}, {stride_name} = {stride} (32-byte blocks) span \
                 {} bytes of {name}, which has {} bytes",
                show_span(sp),
                side.bytes
            )
        });
    }
    let overlap = check_ub_overlap(api, &d, &s, (d_span, d_pitch), (s_span, s_pitch));
    if overlap == UbOverlap::Same {
        return;
    }
    on_copy(
        api,
        if l1 { dst.san_l1() } else { dst.san() },
        src.san(),
        &CopyShape { rows, row, d_pitch, s_pitch, d_span, s_span },
    );
    if overlap == UbOverlap::Forward {
        // SAFETY: both spans were checked against their UB tensors; the overlap is `Forward`.
        unsafe { move_rows_forward(&d, &s, rows, row, d_pitch, s_pitch) };
        return;
    }
    if d.ub_addr.is_none() {
        let r = Rows { rows, row, d_pitch, s_pitch };
        // SAFETY: as below; a GM destination is only touched by the atomic path.
        if unsafe { store_to_gm::<D::Elem>(api, || dst.gm_region(), d.ptr, s.ptr, r) } {
            return;
        }
    }
    // SAFETY: both spans were checked against their tensors; GM and UB are distinct
    // allocations and UB→UB overlap was ruled out.
    unsafe { copy_rows(&d, &s, 0, rows, row, d_pitch, s_pitch) };
}

/// DataCopyPad runs on Atlas A2 and Atlas 200/500 A2 only; 64-bit types on Atlas A2 only.
#[track_caller]
fn check_pad_chip<T: TensorType>(api: &'static str) {
    let soc = get_soc();
    ensure(matches!(soc, Soc::Ascend910B | Soc::Ascend310B), api, || {
        format!("not supported on {soc} ({}): DataCopyPad needs Ascend910B or Ascend310B", soc.product_line())
    });
    ensure(!(soc == Soc::Ascend310B && T::ALIGN == 8), api, || {
        format!(
            "{} is not supported on {soc} ({}): 64-bit types need Ascend910B",
            T::NAME,
            soc.product_line()
        )
    });
}

#[track_caller]
fn check_ext_params<T: TensorType>(api: &'static str, p: &DataCopyExtParams) {
    ensure(p.block_count <= MAX_BLOCK_COUNT, api, || {
        format!("blockCount = {} is out of range [0, {MAX_BLOCK_COUNT}]", p.block_count)
    });
    ensure(p.block_len <= MAX_PAD_BLOCK_LEN, api, || {
        format!("blockLen = {} bytes is out of range [0, {MAX_PAD_BLOCK_LEN}]", p.block_len)
    });
    ensure(p.block_len as usize % T::ALIGN == 0, api, || {
        format!(
            "blockLen = {} bytes is not a multiple of size_of::<{}>() = {}",
            p.block_len,
            T::NAME,
            T::ALIGN
        )
    });
}

/// Copies `block_count` rows of `block_len` bytes from GM into the Unified Buffer, padding
/// each row up to a 32-byte boundary (AscendC `DataCopyPad(dstLocal, srcGlobal,
/// DataCopyExtParams, DataCopyPadExtParams<T>)`, Atlas A2 semantics).
///
/// Row `i` is read at byte `i * (block_len + src_stride)` of `src` (GM stride in **bytes**).
/// In the UB it becomes `left_padding` elements of padding, the `block_len` data bytes,
/// `right_padding` elements of padding, then filler up to the next 32-byte boundary: a row
/// of `w = ceil((left + right) * size_of::<T>() + block_len, 32)` bytes, and row `i` starts
/// at byte `i * (w + 32 * dst_stride)` of `dst` (UB stride in **32-byte blocks**).
///
/// Padding and filler values:
/// - `is_pad = true`: `padding_value`.
/// - `is_pad = false`, no left/right padding: the filler repeats the row's first element
///   (as the vendor documents).
/// - `is_pad = false` with padding: the value in the core's padding register, which
///   [`set_pad_value`](crate::gm_api::set_pad_value) and every `is_pad = true` copy set (as
///   AscendC's implementation loads `paddingValue` into the same register); before either,
///   the hardware writes unspecified values, and here those bytes keep their contents.
///
/// `block_count = 0` or `block_len = 0` copies nothing.
///
/// ```
/// use ascend_core::prelude::*;
/// let data: Vec<f16> = (0..20).map(|i| f16::from_f32(i as f32)).collect();
/// let region = GmRegion::from_bytes(bytemuck::cast_slice(&data));
/// let mut gm = GlobalTensor::<f16>::new();
/// gm.set_global_buffer(region.addr(), 20);
/// let mut pipe = TPipe::new();
/// let mut buf = TBuf::<VecIn>::new();
/// pipe.init_tbuf(&mut buf, 64);
/// let x = buf.get::<f16>();
/// // two rows of 5 elements (10 bytes), 5 elements apart in GM, 2 elements of left padding
/// let pad = DataCopyPadExtParams::new(true, 2, 0, f16::from_f32(-1.0));
/// data_copy_pad(&x, &gm, &DataCopyExtParams::new(2, 10, 10, 0), &pad);
/// let v: Vec<f32> = x.to_vec().iter().map(|h| h.to_f32()).collect();
/// assert_eq!(&v[..8], &[-1.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0, -1.0]);
/// assert_eq!(&v[16..24], &[-1.0, -1.0, 10.0, 11.0, 12.0, 13.0, 14.0, -1.0]);
/// ```
///
/// `T` may be [`Int4b`](crate::element::Int4b), as in the vendor's implementation (its
/// `DataCopyPad` check lists `int4b_t`; `sizeof(int4b_t)` is 1): `block_len`, `left_padding`
/// and `right_padding` count bytes (two elements each), and a padding byte holds the padding
/// value's nibble in its low half and 0 in its high half (the `int4b_t` storage byte the
/// vendor loads into the padding register), so padding with `-1` gives the elements `-1, 0`.
///
/// ```
/// use ascend_core::prelude::*;
/// let region = GmRegion::from_bytes(&[0x21, 0x43, 0x65]); // elements 1, 2, 3, 4, 5, 6
/// let mut gm = GlobalTensor::<Int4b>::new();
/// gm.set_global_buffer(region.addr(), 6);
/// let mut pipe = TPipe::new();
/// let mut q = TQue::<VecIn, 1>::new();
/// pipe.init_buffer(&mut q, 1, 32);
/// let x = q.alloc_tensor::<Int4b>();
/// // 3 bytes of data after 1 byte of left padding with -1
/// data_copy_pad(&x, &gm, &DataCopyExtParams::new(1, 3, 0, 0), &DataCopyPadExtParams::new(true, 1, 0, Int4b::new(-1)));
/// let v: Vec<i8> = (0..10).map(|i| x.get_value(i).value()).collect();
/// assert_eq!(v, [-1, 0, 1, 2, 3, 4, 5, 6, -1, 0]);
/// ```
///
/// # Panics
/// Panics if the chip is not Ascend910B or Ascend310B (or `T` is 64-bit on Ascend310B),
/// `block_count > 4095`, `block_len > 2097151` or not a multiple of `size_of::<T>()`,
/// `left_padding` or `right_padding` exceeds 32 bytes, a 64-bit `padding_value` is not 0
/// with `is_pad`, `dst` is not a 32-byte aligned UB tensor, `src` is unbound, or either
/// side's rows do not fit in its tensor.
#[track_caller]
pub fn data_copy_pad<T: PadCopy>(
    dst: &LocalTensor<T>,
    src: &GlobalTensor<T>,
    params: &DataCopyExtParams,
    pad: &DataCopyPadExtParams<T>,
) {
    T::pad_copy(dst, src, params, pad)
}

/// How [`data_copy_pad`] moves a type GM→UB: an [`Element`] as itself, an
/// [`Int4b`](crate::element::Int4b) as the bytes it is packed in. Implemented for every
/// [`TensorType`].
#[doc(hidden)]
pub trait PadCopy: TensorType {
    /// [`data_copy_pad`] of this type.
    #[track_caller]
    fn pad_copy(
        dst: &LocalTensor<Self>,
        src: &GlobalTensor<Self>,
        params: &DataCopyExtParams,
        pad: &DataCopyPadExtParams<Self>,
    );
}

impl<T: Element> PadCopy for T {
    #[inline(always)]
    #[track_caller]
    fn pad_copy(
        dst: &LocalTensor<T>,
        src: &GlobalTensor<T>,
        params: &DataCopyExtParams,
        pad: &DataCopyPadExtParams<T>,
    ) {
        pad_from_gm(dst, src, params, pad)
    }
}

/// `int4b_t` takes the vendor's 8-bit path (`impl/basic_api/dav_c220/kernel_operator_data_copy_impl.h`
/// `DataCopyPadGm2UBImpl`: `sizeof(int4b_t)` is 1, so `copy_gm_to_ubuf_align_b8`): `blockLen`,
/// `leftPadding` and `rightPadding` count bytes, and the padding register takes the value's
/// storage byte (`GetScalarBitcodeValue` of the `integer_sub_type`: the nibble, high nibble 0).
impl PadCopy for crate::element::Int4b {
    #[track_caller]
    fn pad_copy(
        dst: &LocalTensor<Self>,
        src: &GlobalTensor<Self>,
        params: &DataCopyExtParams,
        pad: &DataCopyPadExtParams<Self>,
    ) {
        let byte = DataCopyPadExtParams::new(
            pad.is_pad,
            pad.left_padding,
            pad.right_padding,
            pad.padding_value.to_nibble(),
        );
        pad_from_gm(&dst.reinterpret_cast::<u8>(), &src.bytes(), params, &byte)
    }
}

/// [`data_copy_pad`] of an [`Element`].
#[track_caller]
fn pad_from_gm<T: Element>(
    dst: &LocalTensor<T>,
    src: &GlobalTensor<T>,
    params: &DataCopyExtParams,
    pad: &DataCopyPadExtParams<T>,
) {
    let api = "DataCopyPad";
    check_pad_chip::<T>(api);
    check_ext_params::<T>(api, params);
    let (left, right) = (usize::from(pad.left_padding) * T::SIZE, usize::from(pad.right_padding) * T::SIZE);
    ensure(left <= BLOCK_BYTES, api, || {
        format!(
            "leftPadding = {} {} elements is {left} bytes; the limit is 32 bytes",
            pad.left_padding,
            T::DTYPE
        )
    });
    ensure(right <= BLOCK_BYTES, api, || {
        format!(
            "rightPadding = {} {} elements is {right} bytes; the limit is 32 bytes",
            pad.right_padding,
            T::DTYPE
        )
    });
    ensure(!(pad.is_pad && T::SIZE == 8 && pad.padding_value.to_bits_u64() != 0), api, || {
        format!("paddingValue = {:?} must be 0 for the 64-bit type {}", pad.padding_value, T::DTYPE)
    });
    let d = local_side(dst, api, "dst");
    let s = gm_side(src, api);
    if params.block_count == 0 || params.block_len == 0 {
        return;
    }
    let rows = usize::from(params.block_count);
    let data = params.block_len as usize;
    let width = (left + data + right).div_ceil(BLOCK_BYTES) * BLOCK_BYTES;
    let s_pitch = data + params.src_stride as usize;
    let d_pitch = width + params.dst_stride as usize * BLOCK_BYTES;
    let s_span = span(rows, s_pitch, data).unwrap_or(usize::MAX);
    let d_span = span(rows, d_pitch, width).unwrap_or(usize::MAX);
    ensure(s_span <= s.bytes, api, || {
        format!(
            "blockCount = {}, blockLen = {data} bytes, srcStride = {} bytes span {} bytes of src, which has {} \
             bytes",
            params.block_count, params.src_stride, show_span(s_span), s.bytes
        )
    });
    ensure(d_span <= d.bytes, api, || {
        format!(
            "blockCount = {} rows of {width} bytes (leftPadding {left} + blockLen {data} + rightPadding {right}, \
             rounded up to 32) with dstStride = {} blocks span {} bytes of dst, which has {} bytes",
            params.block_count, params.dst_stride, show_span(d_span), d.bytes
        )
    });
    on_copy(api, dst.san(), src.san(), &CopyShape { rows, row: data, d_pitch, s_pitch, d_span, s_span });
    // SAFETY: the source rows lie inside `src` and the destination data bytes (`left..left +
    // data` of each row) inside `dst` (spans checked); GM and UB are distinct allocations.
    unsafe { copy_rows(&d, &s, left, rows, data, d_pitch, s_pitch) };

    let tail = width - left - data; // right padding plus filler, < 64 bytes
    let fill = if pad.is_pad {
        load_pad_register(pad.padding_value);
        Some(pad.padding_value)
    } else if left > 0 || right > 0 {
        pad_register::<T>()
    } else {
        None
    };
    if let Some(value) = fill {
        // 64 elements are at least 64 bytes: enough for the left part (<= 32 bytes) and the
        // tail (< 64 bytes).
        let pattern = [value; 64];
        let pat = pattern.as_ptr().cast::<u8>();
        for i in 0..rows {
            // SAFETY: row `i` (`width` bytes at `i * d_pitch`) lies inside `dst`; the pattern
            // holds at least 64 bytes, more than `left` and `tail`; distinct allocations.
            unsafe {
                let r = d.ptr.add(i * d_pitch);
                std::ptr::copy_nonoverlapping(pat, r, left);
                std::ptr::copy_nonoverlapping(pat, r.add(left + data), tail);
            }
        }
    } else if left == 0 && right == 0 && tail > 0 {
        let n = tail / T::SIZE;
        for i in 0..rows {
            // SAFETY: the row's first element and its filler (`n` elements after the data)
            // lie inside `dst`; every address is `T`-aligned (row starts are 32-byte aligned
            // and all lengths are multiples of `size_of::<T>()`).
            unsafe {
                let r = d.ptr.add(i * d_pitch);
                let first = r.cast::<T>().read();
                let filler = r.add(data).cast::<T>();
                for k in 0..n {
                    filler.add(k).write(first);
                }
            }
        }
    }
}

/// Copies `block_count` rows of `block_len` bytes from the Unified Buffer to GM (AscendC
/// `DataCopyPad(dstGlobal, srcLocal, DataCopyExtParams)`, Atlas A2 semantics).
///
/// Each UB row occupies `ceil(block_len, 32)` bytes and row `i` starts at byte
/// `i * (ceil(block_len, 32) + 32 * src_stride)` of `src` (UB stride in **32-byte blocks**);
/// exactly `block_len` bytes of it are written at byte `i * (block_len + dst_stride)` of
/// `dst` (GM stride in **bytes**). GM bytes outside the rows keep their values.
/// `block_count = 0` or `block_len = 0` copies nothing.
///
/// ```
/// use ascend_core::prelude::*;
/// let region = GmRegion::zeroed(40);
/// let mut gm = GlobalTensor::<u8>::new();
/// gm.set_global_buffer(region.addr(), 40);
/// let mut pipe = TPipe::new();
/// let mut buf = TBuf::<VecOut>::new();
/// pipe.init_tbuf(&mut buf, 64);
/// let y = buf.get::<u8>();
/// y.copy_from_slice(&(1..=64).collect::<Vec<u8>>());
/// // two rows of 3 bytes, the second UB row one 32-byte block later, 1 byte apart in GM
/// data_copy_pad_to_gm(&gm, &y, &DataCopyExtParams::new(2, 3, 0, 1));
/// assert_eq!(&region.to_bytes()[..8], &[1, 2, 3, 0, 33, 34, 35, 0]);
/// ```
///
/// `T` may be [`Int4b`](crate::element::Int4b): `block_len` counts bytes (two elements each, as the published
/// Atlas A2 operators pass `count / 2`; `sizeof(int4b_t)` is 1 in the vendor's headers).
///
/// ```
/// use ascend_core::prelude::*;
/// let region = GmRegion::zeroed(8);
/// let mut gm = GlobalTensor::<Int4b>::new();
/// gm.set_global_buffer(region.addr(), 16);
/// let mut pipe = TPipe::new();
/// let mut buf = TBuf::<VecOut>::new();
/// pipe.init_tbuf(&mut buf, 32);
/// let y = buf.get::<i8>().reinterpret_cast::<Int4b>();
/// for i in 0..6 { y.set_value(i, Int4b::new(i as i8 - 3)); }
/// // 6 elements are 3 bytes; they land at element 4 (byte 2) of the GM tensor
/// data_copy_pad_to_gm(&gm.view(4), &y, &DataCopyExtParams::new(1, 3, 0, 0));
/// assert_eq!(gm.get_value(4).value(), -3);
/// assert_eq!(gm.get_value(9).value(), 2);
/// assert_eq!(region.to_bytes()[2..5], [0xED, 0x0F, 0x21]);
/// ```
///
/// # Panics
/// Panics if the chip is not Ascend910B or Ascend310B (or `T` is 64-bit on Ascend310B),
/// `block_count > 4095`, `block_len > 2097151` or not a multiple of `size_of::<T>()`, `src`
/// is not a 32-byte aligned UB tensor, `dst` is unbound, or either side's rows do not fit
/// in its tensor (on the UB side, the data bytes of each row must).
#[track_caller]
pub fn data_copy_pad_to_gm<T: TensorType>(
    dst: &GlobalTensor<T>,
    src: &LocalTensor<T>,
    params: &DataCopyExtParams,
) {
    pad_to_gm_as("DataCopyPad", dst, src, params);
}

/// [`data_copy_pad_to_gm`] on behalf of `api` (a primitive built on it), which its checks and
/// the sanitizer name.
#[track_caller]
pub(crate) fn pad_to_gm_as<T: TensorType>(
    api: &'static str,
    dst: &GlobalTensor<T>,
    src: &LocalTensor<T>,
    params: &DataCopyExtParams,
) {
    check_pad_chip::<T>(api);
    check_ext_params::<T>(api, params);
    let d = gm_side(dst, api);
    let s = local_side(src, api, "src");
    if params.block_count == 0 || params.block_len == 0 {
        return;
    }
    let rows = usize::from(params.block_count);
    let data = params.block_len as usize;
    let s_pitch = data.div_ceil(BLOCK_BYTES) * BLOCK_BYTES + params.src_stride as usize * BLOCK_BYTES;
    let d_pitch = data + params.dst_stride as usize;
    let s_span = span(rows, s_pitch, data).unwrap_or(usize::MAX);
    let d_span = span(rows, d_pitch, data).unwrap_or(usize::MAX);
    ensure(s_span <= s.bytes, api, || {
        format!(
            "blockCount = {}, blockLen = {data} bytes, srcStride = {} blocks span {} bytes of src, which has {} \
             bytes",
            params.block_count, params.src_stride, show_span(s_span), s.bytes
        )
    });
    ensure(d_span <= d.bytes, api, || {
        format!(
            "blockCount = {}, blockLen = {data} bytes, dstStride = {} bytes span {} bytes of dst, which has {} \
             bytes",
            params.block_count, params.dst_stride, show_span(d_span), d.bytes
        )
    });
    if let crate::observe::sanitizer::SanSide::Gm(region, off) = dst.san() {
        // Exactly `blockLen` bytes a row reach GM (not whole blocks), for every race check.
        let shape = CopyShape { rows, row: data, d_pitch, s_pitch, d_span, s_span };
        crate::observe::events::on_copy_pad_to_gm(api, region, off, src.san(), &shape);
    }
    let r = Rows { rows, row: data, d_pitch, s_pitch };
    // SAFETY: as below; the destination is only touched by the atomic path.
    if unsafe { store_to_gm::<T>(api, || dst.region_arc(), d.ptr, s.ptr, r) } {
        return;
    }
    // SAFETY: both spans were checked against their tensors; GM and UB are distinct
    // allocations.
    unsafe { copy_rows(&d, &s, 0, rows, data, d_pitch, s_pitch) };
}

/// Padding of the [`DataCopyParams`] form of `DataCopyPad` (AscendC `DataCopyPadParams`):
/// as [`DataCopyPadExtParams`], but the value is raw bits, of which the low
/// `size_of::<T>()` bytes are the element.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DataCopyPadParams {
    /// Whether `padding_value` fills the padding (and the filler up to the 32-byte boundary).
    pub is_pad: bool,
    /// Elements of padding before each row's data; at most 32 bytes.
    pub left_padding: u8,
    /// Elements of padding after each row's data; at most 32 bytes.
    pub right_padding: u8,
    /// The padding value's bits (low bytes first).
    pub padding_value: u64,
}

impl DataCopyPadParams {
    /// The parameters in AscendC's field order.
    pub const fn new(is_pad: bool, left_padding: u8, right_padding: u8, padding_value: u64) -> Self {
        DataCopyPadParams { is_pad, left_padding, right_padding, padding_value }
    }

    /// The same padding with the value as an element of `T`.
    pub fn to_ext<T: Element>(&self) -> DataCopyPadExtParams<T> {
        let bytes = self.padding_value.to_le_bytes();
        let value: T = bytemuck::pod_read_unaligned(&bytes[..T::SIZE]);
        DataCopyPadExtParams::new(self.is_pad, self.left_padding, self.right_padding, value)
    }
}

impl DataCopyParams {
    /// The same rows as [`DataCopyExtParams`] (for `DataCopyPad`, where `block_len` is in
    /// bytes and the GM stride too).
    pub const fn to_ext(&self) -> DataCopyExtParams {
        DataCopyExtParams::new(
            self.block_count,
            self.block_len as u32,
            self.src_stride as u32,
            self.dst_stride as u32,
        )
    }
}

/// `DataCopyPad(dstLocal, srcGlobal, DataCopyParams, DataCopyPadParams)`: the older form of
/// [`data_copy_pad`], with 16-bit `block_len` (bytes) and strides (GM in bytes, UB in
/// 32-byte blocks) and the padding value as raw bits; it behaves exactly as `data_copy_pad`
/// with the converted parameters.
///
/// ```
/// use ascend_core::prelude::*;
/// let data: Vec<i32> = (0..6).collect();
/// let region = GmRegion::from_bytes(bytemuck::cast_slice(&data));
/// let mut gm = GlobalTensor::<i32>::new();
/// gm.set_global_buffer(region.addr(), 6);
/// let mut pipe = TPipe::new();
/// let mut buf = TBuf::<VecIn>::new();
/// pipe.init_tbuf(&mut buf, 64);
/// let x = buf.get::<i32>();
/// // two rows of 3 elements (12 bytes), padded with -1 to 8 elements each
/// let pad = DataCopyPadParams::new(true, 0, 0, (-1i32) as u32 as u64);
/// data_copy_pad_params(&x, &gm, &DataCopyParams::new(2, 12, 0, 0), &pad);
/// assert_eq!(x.to_vec(), [0, 1, 2, -1, -1, -1, -1, -1, 3, 4, 5, -1, -1, -1, -1, -1]);
/// ```
///
/// # Panics
/// As [`data_copy_pad`].
#[track_caller]
pub fn data_copy_pad_params<T: Element>(
    dst: &LocalTensor<T>,
    src: &GlobalTensor<T>,
    params: &DataCopyParams,
    pad: &DataCopyPadParams,
) {
    data_copy_pad(dst, src, &params.to_ext(), &pad.to_ext::<T>())
}

/// `DataCopyPad(dstGlobal, srcLocal, DataCopyParams)`: the older form of
/// [`data_copy_pad_to_gm`] (16-bit `block_len` in bytes, UB stride in 32-byte blocks, GM
/// stride in bytes); it behaves exactly as `data_copy_pad_to_gm`, atomics included.
///
/// ```
/// use ascend_core::prelude::*;
/// let region = GmRegion::zeroed(8);
/// let mut gm = GlobalTensor::<u16>::new();
/// gm.set_global_buffer(region.addr(), 4);
/// let mut pipe = TPipe::new();
/// let mut buf = TBuf::<VecOut>::new();
/// pipe.init_tbuf(&mut buf, 32);
/// let y = buf.get::<u16>();
/// y.copy_from_slice(&[7, 8, 9]);
/// data_copy_pad_params_to_gm(&gm, &y, &DataCopyParams::new(1, 6, 0, 0));
/// assert_eq!(gm.get_value(2), 9);
/// ```
///
/// # Panics
/// As [`data_copy_pad_to_gm`].
#[track_caller]
pub fn data_copy_pad_params_to_gm<T: Element>(
    dst: &GlobalTensor<T>,
    src: &LocalTensor<T>,
    params: &DataCopyParams,
) {
    data_copy_pad_to_gm(dst, src, &params.to_ext())
}

// ---------------------------------------------------------------------------------------
// DataCopy with SliceInfo
// ---------------------------------------------------------------------------------------

/// Most dimensions of a [`data_copy_slice`] (AscendC `K_MAX_DIM`): the limit of `dim_value`.
pub const K_MAX_DIM: usize = 8;

/// Most row groups of one [`data_copy_slice`] (AscendC `MAX_SLICE_SIZE`, the length of the
/// offset lists the vendor's implementation keeps on the stack): the number of rows the
/// slice selects in dimensions 1 and up, all dimensions multiplied.
pub const MAX_SLICE_SIZE: usize = 6 * 256;

/// One dimension of a slice for [`data_copy_slice`] (AscendC `SliceInfo`).
///
/// In dimension 0 the indices count elements: the slice is pieces of `burst_len` 32-byte
/// blocks, the first at `start_index`, each `stride` elements after the end of the previous
/// one, the last ending at `end_index` (inclusive). In dimension `i > 0` they count rows (of
/// `shape_value` of every lower dimension, multiplied): the rows `start_index`,
/// `start_index + (1 + stride)`, … up to `end_index`, and `burst_len` must be 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SliceInfo {
    /// First element (dimension 0) or row (above) of the slice.
    pub start_index: u32,
    /// Last element or row of the slice, inclusive.
    pub end_index: u32,
    /// Elements (rows) skipped between two consecutive pieces (rows) of the slice.
    pub stride: u32,
    /// Length of one piece, in 32-byte blocks (dimension 0); 1 in the other dimensions.
    pub burst_len: u32,
    /// Length of the whole dimension, in elements (rows).
    pub shape_value: u32,
}

impl Default for SliceInfo {
    /// AscendC's defaults: `{startIndex 0, endIndex 31, stride 0, burstLen 32, shapeValue 0}`
    /// (`mirror-cann/asc-devkit`, `include/basic_api/kernel_struct_data_copy.h`). With
    /// `shapeValue = 0` this is not a valid slice by itself: set the fields.
    fn default() -> Self {
        SliceInfo {
            start_index: 0,
            end_index: BLOCK_BYTES as u32 - 1,
            stride: 0,
            burst_len: 32,
            shape_value: 0,
        }
    }
}

impl SliceInfo {
    /// The parameters in AscendC's field order.
    pub const fn new(
        start_index: u32,
        end_index: u32,
        stride: u32,
        burst_len: u32,
        shape_value: u32,
    ) -> Self {
        SliceInfo { start_index, end_index, stride, burst_len, shape_value }
    }
}

mod slice_sealed {
    pub trait Sealed {}
}

/// Element types of [`data_copy_slice`]: `int8_t`, `uint8_t`, `int16_t`, `uint16_t`, `half`,
/// `int32_t`, `uint32_t`, `float` on Ascend910B and Ascend310P, `bfloat16_t` on Ascend910B
/// only; Ascend910 and Ascend310B have no slice copy (run-time errors naming the chip). Other
/// types do not compile:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(dst: &LocalTensor<i64>, src: &GlobalTensor<i64>, s: &[SliceInfo]) {
///     data_copy_slice(dst, src, s, s, 1)
/// }
/// ```
pub trait DataCopySliceElement: Element + slice_sealed::Sealed {
    /// Whether the slice copy of this type exists on `soc`.
    fn slice_supported(soc: Soc) -> bool;
}

macro_rules! slice_types {
    ($($t:ty => |$soc:ident| $ok:expr),* $(,)?) => {$(
        impl slice_sealed::Sealed for $t {}
        impl DataCopySliceElement for $t {
            fn slice_supported($soc: Soc) -> bool {
                $ok
            }
        }
    )*};
}
slice_types! {
    i8 => |soc| matches!(soc, Soc::Ascend910B | Soc::Ascend310P),
    u8 => |soc| matches!(soc, Soc::Ascend910B | Soc::Ascend310P),
    i16 => |soc| matches!(soc, Soc::Ascend910B | Soc::Ascend310P),
    u16 => |soc| matches!(soc, Soc::Ascend910B | Soc::Ascend310P),
    crate::element::f16 => |soc| matches!(soc, Soc::Ascend910B | Soc::Ascend310P),
    crate::element::bf16 => |soc| soc == Soc::Ascend910B,
    i32 => |soc| matches!(soc, Soc::Ascend910B | Soc::Ascend310P),
    u32 => |soc| matches!(soc, Soc::Ascend910B | Soc::Ascend310P),
    f32 => |soc| matches!(soc, Soc::Ascend910B | Soc::Ascend310P),
}

/// The directions of [`data_copy_slice`]: GM→UB (`LocalTensor<T>: DataCopySlice<GlobalTensor<T>>`)
/// and UB→GM. UB→UB and GM→GM do not compile:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(a: &LocalTensor<f32>, b: &LocalTensor<f32>, s: &[SliceInfo]) { data_copy_slice(a, b, s, s, 1) }
/// ```
pub trait DataCopySlice<Src: Mem<Elem = Self::Elem>>: Mem {}

impl<T: DataCopySliceElement> DataCopySlice<GlobalTensor<T>> for LocalTensor<T> {}
impl<T: DataCopySliceElement> DataCopySlice<LocalTensor<T>> for GlobalTensor<T> {}

/// One side's slice, checked: where its pieces are, in elements.
struct SlicePlan {
    /// `{src,dst}SliceInfo`, for messages.
    name: &'static str,
    /// Pieces per row group in dimension 0 (the DataCopy `blockCount`).
    count0: u64,
    /// Element index of the first piece (AscendC `DataCopyGetPhyStartIndex`).
    start: u64,
    /// Element offset of each row group from `start` (AscendC `DataCopyGetOffsetList`):
    /// dimension 1 varies fastest.
    offsets: Vec<u64>,
}

/// `x` if it is known and fits the `uint32_t` the vendor computes slice offsets in.
#[track_caller]
fn fits_u32(api: &'static str, name: &'static str, x: Option<u64>) -> u64 {
    match x {
        Some(x) if x <= u64::from(u32::MAX) => x,
        _ => crate::kernel::error::fail_with(api, || {
            format!(
                "{name}: an element offset of the slice exceeds the uint32_t the vendor's implementation computes \
                 it in"
            )
        }),
    }
}

/// Checks the `name` slice of `dim` dimensions of `T` (`epb` elements per block) and lists
/// its row groups, as the vendor's `DataCopyGetPhyStartIndex` / `DataCopyGetOffsetList`
/// (`mirror-cann/asc-devkit`, `impl/basic_api/kernel_operator_data_copy_base_impl.h`) do, in
/// 64-bit arithmetic with every value checked to fit the `uint32_t` they use.
#[track_caller]
fn slice_plan(api: &'static str, name: &'static str, info: &[SliceInfo], epb: u64) -> SlicePlan {
    let mut counts = [0u64; K_MAX_DIM];
    for (i, si) in info.iter().enumerate() {
        let SliceInfo { start_index: s, end_index: e, stride, burst_len: b, shape_value: v } = *si;
        ensure(s < e && e <= v, api, || {
            format!(
                "{name}[{i}]: startIndex = {s}, endIndex = {e}, shapeValue = {v}; the rule is startIndex < endIndex \
                 <= shapeValue"
            )
        });
        let unit = if i == 0 {
            ensure(b >= 1, api, || {
                format!("{name}[0].burstLen = 0: a piece needs at least one 32-byte block")
            });
            u64::from(b) * epb
        } else {
            ensure(b == 1, api, || format!("{name}[{i}].burstLen = {b}: above dimension 0 it must be 1"));
            1
        };
        // endIndex - startIndex + 1 = (N - 1) * stride + N * unit, N >= 1 (the docs' rule).
        let span = u64::from(e - s) + 1;
        let period = unit + u64::from(stride);
        let n = (span + u64::from(stride)) / period;
        ensure(n >= 1 && n * period == span + u64::from(stride), api, || {
            let what = if i == 0 {
                format!("burstLen * 32 / sizeof(T) = {unit} elements")
            } else {
                "1 row".to_string()
            };
            format!(
                "{name}[{i}]: endIndex - startIndex + 1 = {span} is not (N - 1) * stride + N * {unit} for any N >= 1 \
                 (stride = {stride}, a piece is {what})"
            )
        });
        counts[i] = n;
    }
    let dim = info.len();
    let groups = counts[1..dim].iter().try_fold(1u64, |a, &c| a.checked_mul(c));
    ensure(groups.is_some_and(|g| g <= MAX_SLICE_SIZE as u64), api, || {
        format!(
            "{name} selects {} rows in dimensions 1 to {}; the limit is MAX_SLICE_SIZE = {MAX_SLICE_SIZE}",
            groups.map_or_else(|| "more than 2^64".to_string(), |g| g.to_string()),
            dim - 1
        )
    });
    // DataCopyGetPhyStartIndex and DataCopyGetOffsetList, with `slice` the size of the
    // dimensions below `i`.
    let mut start = u64::from(info[0].start_index);
    let mut offsets = Vec::with_capacity(groups.unwrap_or(1) as usize);
    offsets.push(0u64);
    let mut slice = 1u64;
    for i in 1..dim {
        slice = fits_u32(api, name, slice.checked_mul(u64::from(info[i - 1].shape_value)));
        start = fits_u32(
            api,
            name,
            slice.checked_mul(u64::from(info[i].start_index)).and_then(|x| x.checked_add(start)),
        );
        let step = fits_u32(api, name, slice.checked_mul(u64::from(info[i].stride) + 1));
        let pre = offsets.len();
        for iter in 1..counts[i] {
            let base = fits_u32(api, name, step.checked_mul(iter));
            for k in 0..pre {
                offsets.push(fits_u32(api, name, offsets[k].checked_add(base)));
            }
        }
    }
    SlicePlan { name, count0: counts[0], start, offsets }
}

/// Copies a multi-dimensional slice of `src` into a slice of `dst` (AscendC `DataCopy(dst,
/// src, dstSliceInfo[], srcSliceInfo[], dimValue)`): GM→UB or UB→GM.
///
/// Each side's `SliceInfo` array describes, dimension by dimension, the part of its tensor
/// (seen as a `dim_value`-dimensional array of `shape_value[0] × shape_value[1] × …`
/// elements, dimension 0 contiguous) the copy touches; see [`SliceInfo`]. The source's
/// pieces are copied, in order, to the destination's: in each row group (one row index per
/// dimension above 0) `N` pieces of `burst_len * 32` bytes, and the row groups in order with
/// dimension 1 varying fastest. Destination bytes between the pieces keep their values.
///
/// As the vendor's implementation (`mirror-cann/asc-devkit`,
/// `impl/basic_api/kernel_operator_data_copy_intf_impl.h`), each row group is one DataCopy
/// instruction of `N` rows (on the MTE2 pipe GM→UB, MTE3 UB→GM; the sanitizer sees each one's
/// exact bytes); into GM, the core's atomic mode applies.
///
/// The documented rules (`docs/zh/api/SIMD-API/基础API/Memory矢量计算/数据搬运/DataCopy（GM与UB
/// 切片数据搬运）.md`), checked once per call:
/// - `1 <= dim_value <= K_MAX_DIM`, and both arrays have `dim_value` entries (as AscendC,
///   which receives them as pointers, only the first `dim_value` entries are read: the
///   vendor's own example passes arrays of `K_MAX_DIM` entries; fewer fails);
/// - in each dimension `startIndex < endIndex <= shapeValue`, and `endIndex - startIndex + 1
///   = (N - 1) * stride + N * unit` for some `N >= 1`, where `unit` is `burstLen * 32 /
///   sizeof(T)` elements in dimension 0 and 1 row above (where `burstLen` must be 1);
/// - `srcSliceInfo[i].burstLen == dstSliceInfo[i].burstLen`.
///
/// Where the docs are silent, this follows the vendor's Atlas A2 implementation (`dav_c220`):
/// - `shapeValue` is always taken from the arrays (the vendor falls back to the tensors'
///   `ShapeInfo` when `srcSliceInfo[0].shapeValue = 0`, which this emulator does not model;
///   the rule above rejects 0);
/// - both sides must have the same `N` in dimension 0 and the same number of row groups (the
///   implementation pairs the source's pieces and groups with the destination's by index);
/// - every piece on the Unified Buffer side starts 32-byte aligned (the UB-side
///   `stride * sizeof(T)` is a multiple of 32, as are the start and the row-group offsets in
///   bytes); the GM side may start anywhere;
/// - the DataCopy limits: `N <= 4095`, `burstLen <= 65535`, UB-side stride at most 65535
///   blocks; the GM-side stride at most 65535 blocks when `stride * sizeof(T)` is a multiple of
///   32, else at most 65535 bytes (then the vendor goes through `DataCopyPad`, with GM→UB a
///   burst of at most 65535 bytes: `burstLen <= 2047`); at most [`MAX_SLICE_SIZE`] row groups;
///   every element offset fits `uint32_t`;
/// - on Ascend310P a GM-side stride that is not a multiple of 32 bytes goes through a loop
///   (`impl/basic_api/dav_m200/kernel_operator_data_copy_impl.h`, `DataCopySliceGm2UBImpl` /
///   `DataCopySliceUB2GMImpl`) that places the pieces where the docs say only for at most two
///   pieces per group and a UB-side stride of 0; other cases fail, naming the chip.
///
/// ```
/// use ascend_core::prelude::*;
/// // The docs' example: a 3 x 87 f32 source, pieces of 24 elements (3 blocks) at columns
/// // 16..40 and 47..71 of rows 0 and 2, packed into a 2 x 48 destination.
/// let x: Vec<f32> = (0..3 * 87).map(|i| i as f32).collect();
/// let region = GmRegion::from_bytes(bytemuck::cast_slice(&x));
/// let mut gm = GlobalTensor::<f32>::new();
/// gm.set_global_buffer(region.addr(), 3 * 87);
/// let mut pipe = TPipe::new();
/// let mut buf = TBuf::<VecIn>::new();
/// pipe.init_tbuf(&mut buf, 96 * 4);
/// let y = buf.get::<f32>();
/// let src_info = [SliceInfo::new(16, 70, 7, 3, 87), SliceInfo::new(0, 2, 1, 1, 3)];
/// let dst_info = [SliceInfo::new(0, 47, 0, 3, 48), SliceInfo::new(0, 1, 0, 1, 2)];
/// data_copy_slice(&y, &gm, &dst_info, &src_info, 2);
/// assert_eq!((y.get_value(0), y.get_value(24), y.get_value(48)), (16.0, 47.0, 2.0 * 87.0 + 16.0));
/// ```
///
/// # Panics
/// Panics if the chip or `T` is not supported, any rule above is broken (the message names the
/// array, the dimension, the field and its value), a UB tensor is not at a UB position or not
/// 32-byte aligned, a GM tensor is unbound, or either side's slice reaches beyond its tensor.
#[track_caller]
pub fn data_copy_slice<D: DataCopySlice<S>, S: Mem<Elem = D::Elem>>(
    dst: &D,
    src: &S,
    dst_slice_info: &[SliceInfo],
    src_slice_info: &[SliceInfo],
    dim_value: u32,
) where
    D::Elem: DataCopySliceElement,
{
    let api = "DataCopy";
    let (size, epb, dtype) =
        (<D::Elem as Element>::SIZE as u64, <D::Elem as Element>::EPB as u64, <D::Elem as Element>::DTYPE);
    let soc = get_soc();
    ensure(matches!(soc, Soc::Ascend910B | Soc::Ascend310P), api, || {
        format!(
            "DataCopy with SliceInfo is not supported on {soc} ({}): it needs Ascend910B or Ascend310P",
            soc.product_line()
        )
    });
    ensure(<D::Elem as DataCopySliceElement>::slice_supported(soc), api, || {
        format!("T = {dtype} is not supported by DataCopy with SliceInfo on {soc} ({})", soc.product_line())
    });
    let d = dst.side(api, "dst");
    let s = src.side(api, "src");
    ensure((1..=K_MAX_DIM as u32).contains(&dim_value), api, || {
        format!("dimValue = {dim_value} is out of range [1, {K_MAX_DIM}]")
    });
    for (name, info) in [("dstSliceInfo", dst_slice_info), ("srcSliceInfo", src_slice_info)] {
        ensure(info.len() >= dim_value as usize, api, || {
            format!("{name} has {} entries but dimValue = {dim_value}: it needs dimValue entries", info.len())
        });
    }
    let (dst_slice_info, src_slice_info) =
        (&dst_slice_info[..dim_value as usize], &src_slice_info[..dim_value as usize]);
    let sp = slice_plan(api, "srcSliceInfo", src_slice_info, epb);
    let dp = slice_plan(api, "dstSliceInfo", dst_slice_info, epb);
    for (i, (a, b)) in src_slice_info.iter().zip(dst_slice_info).enumerate() {
        ensure(a.burst_len == b.burst_len, api, || {
            format!(
                "srcSliceInfo[{i}].burstLen = {} differs from dstSliceInfo[{i}].burstLen = {}; they must be equal",
                a.burst_len, b.burst_len
            )
        });
    }
    ensure(sp.count0 == dp.count0, api, || {
        format!(
            "srcSliceInfo[0] has {} pieces and dstSliceInfo[0] {}: the destination must take the source's pieces",
            sp.count0, dp.count0
        )
    });
    ensure(sp.offsets.len() == dp.offsets.len(), api, || {
        format!(
            "srcSliceInfo selects {} row groups in dimensions 1 and up and dstSliceInfo {}: they must be as many",
            sp.offsets.len(),
            dp.offsets.len()
        )
    });
    ensure(sp.count0 <= u64::from(MAX_BLOCK_COUNT), api, || {
        format!(
            "srcSliceInfo[0] has {} pieces: one DataCopy moves at most blockCount = {MAX_BLOCK_COUNT}",
            sp.count0
        )
    });
    let burst = src_slice_info[0].burst_len;
    ensure(burst <= u32::from(u16::MAX), api, || {
        format!("burstLen = {burst} blocks is out of range [1, 65535] (DataCopy's blockLen)")
    });

    // The UB side's pieces must all start 32-byte aligned; the GM side's stride bounds the
    // form of the DataCopy the vendor issues.
    let ub_is_dst = d.ub_addr.is_some();
    let (ub, ub_info, gm_info) =
        if ub_is_dst { (&dp, dst_slice_info, src_slice_info) } else { (&sp, src_slice_info, dst_slice_info) };
    let ub_stride = u64::from(ub_info[0].stride) * size;
    ensure(ub_stride % BLOCK_BYTES as u64 == 0, api, || {
        format!(
            "{}[0].stride = {} {dtype} elements is {ub_stride} bytes, not a multiple of 32: every piece in the \
             Unified Buffer must start 32-byte aligned",
            ub.name, ub_info[0].stride
        )
    });
    ensure(ub_stride / BLOCK_BYTES as u64 <= u64::from(u16::MAX), api, || {
        format!(
            "{}[0].stride = {} elements is {} blocks; DataCopy's limit is 65535",
            ub.name,
            ub_info[0].stride,
            ub_stride / BLOCK_BYTES as u64
        )
    });
    ensure((ub.start * size) % BLOCK_BYTES as u64 == 0, api, || {
        format!(
            "{} starts at element {} ({} bytes into the tensor), not 32-byte aligned",
            ub.name,
            ub.start,
            ub.start * size
        )
    });
    if let Some(&bad) = ub.offsets.iter().find(|&&o| (o * size) % BLOCK_BYTES as u64 != 0) {
        crate::kernel::error::fail_with(api, || {
            format!(
                "{}: a row group starts {bad} elements ({} bytes) after the first, not a multiple of 32 bytes: every \
                 piece in the Unified Buffer must start 32-byte aligned",
                ub.name,
                bad * size
            )
        });
    }
    let gm_name = if ub_is_dst { "srcSliceInfo" } else { "dstSliceInfo" };
    let gm_stride = u64::from(gm_info[0].stride) * size;
    let gm_aligned = gm_stride % BLOCK_BYTES as u64 == 0;
    if gm_aligned {
        ensure(gm_stride / BLOCK_BYTES as u64 <= u64::from(u16::MAX), api, || {
            format!(
                "{gm_name}[0].stride = {} elements is {} blocks; DataCopy's limit is 65535",
                gm_info[0].stride,
                gm_stride / BLOCK_BYTES as u64
            )
        });
    } else {
        ensure(gm_stride <= u64::from(u16::MAX), api, || {
            format!(
                "{gm_name}[0].stride = {} elements is {gm_stride} bytes, not a multiple of 32, so the stride is \
                 passed in bytes; the limit is 65535",
                gm_info[0].stride
            )
        });
        if ub_is_dst && soc == Soc::Ascend910B {
            ensure(u64::from(burst) * BLOCK_BYTES as u64 <= u64::from(u16::MAX), api, || {
                format!(
                    "burstLen = {burst} blocks is {} bytes: with a GM stride that is not a multiple of 32 bytes the \
                     vendor's implementation passes the piece length in bytes as uint16_t, so the limit is 2047 blocks",
                    u64::from(burst) * BLOCK_BYTES as u64
                )
            });
        }
        ensure(soc != Soc::Ascend310P || (sp.count0 <= 2 && ub_stride == 0), api, || {
            format!(
                "on {soc} ({}) a GM stride that is not a multiple of 32 bytes ({gm_name}[0].stride = {} elements) is \
                 copied where the docs say only with at most 2 pieces per row group and a Unified Buffer stride of 0 \
                 (here {} pieces, {}[0].stride = {}): the vendor's loop (impl/basic_api/dav_m200/\
                 kernel_operator_data_copy_impl.h) misplaces the others",
                soc.product_line(),
                gm_info[0].stride,
                sp.count0,
                ub.name,
                ub_info[0].stride
            )
        });
    }

    // The pieces: `rows` rows of `row` bytes, `s_pitch` / `d_pitch` apart, per row group.
    let rows = sp.count0 as usize;
    let row = burst as usize * BLOCK_BYTES;
    let s_pitch = row + src_slice_info[0].stride as usize * size as usize;
    let d_pitch = row + dst_slice_info[0].stride as usize * size as usize;
    let s_span = (rows - 1) * s_pitch + row;
    let d_span = (rows - 1) * d_pitch + row;
    for (plan, side, span, tensor) in [(&sp, &s, s_span, "src"), (&dp, &d, d_span, "dst")] {
        let last = plan.offsets.iter().copied().max().unwrap_or(0);
        let end = (plan.start + last) * size + span as u64;
        ensure(end <= side.bytes as u64, api, || {
            format!(
                "{} reaches byte {end} of {tensor} (element {}), which has {} bytes ({} {dtype} elements)",
                plan.name,
                end.div_ceil(size),
                side.bytes,
                side.elems
            )
        });
    }
    let shape = CopyShape { rows, row, d_pitch, s_pitch, d_span, s_span };
    let shifted = |side: &Side, plan: &SlicePlan, off: u64| {
        let bytes = ((plan.start + off) * size) as usize;
        // SAFETY: the row group lies inside the tensor (its extent was checked above).
        Side { ptr: unsafe { side.ptr.add(bytes) }, ub_addr: side.ub_addr.map(|a| a + bytes), ..*side }
    };
    let san_at = |san: crate::observe::sanitizer::SanSide, plan: &SlicePlan, off: u64| {
        let bytes = ((plan.start + off) * size) as usize;
        match san {
            crate::observe::sanitizer::SanSide::Ub(a, tag) => {
                crate::observe::sanitizer::SanSide::Ub(a + bytes, tag)
            }
            crate::observe::sanitizer::SanSide::L1(a, tag) => {
                crate::observe::sanitizer::SanSide::L1(a + bytes, tag)
            }
            crate::observe::sanitizer::SanSide::Gm(r, o) => {
                crate::observe::sanitizer::SanSide::Gm(r, o + bytes)
            }
        }
    };
    let (d_san, s_san) = (dst.san(), src.san());
    for (&so, &dof) in sp.offsets.iter().zip(&dp.offsets) {
        let (sg, dg) = (shifted(&s, &sp, so), shifted(&d, &dp, dof));
        on_copy(api, san_at(d_san, &dp, dof), san_at(s_san, &sp, so), &shape);
        if dg.ub_addr.is_none() {
            let r = Rows { rows, row, d_pitch, s_pitch };
            // SAFETY: as below; a GM destination is only touched by the atomic path.
            if unsafe { store_to_gm::<D::Elem>(api, || dst.gm_region(), dg.ptr, sg.ptr, r) } {
                continue;
            }
        }
        // SAFETY: each row group's rows lie inside their tensors (the largest offset's extent
        // was checked on both sides); GM and UB are distinct allocations.
        unsafe { copy_rows(&dg, &sg, 0, rows, row, d_pitch, s_pitch) };
    }
}

/// Loads `value`'s bits into the padding register.
pub(crate) fn load_pad_register<T: Element>(value: T) {
    let mut bytes = [0u8; 8];
    bytes[..T::SIZE].copy_from_slice(bytemuck::bytes_of(&value));
    crate::kernel::ctx::with_core(|c| c.pad_value.set(Some(u64::from_le_bytes(bytes))));
}

/// The padding register's low `size_of::<T>()` bytes as a `T`, if it was ever loaded.
pub(crate) fn pad_register<T: Element>() -> Option<T> {
    crate::kernel::ctx::with_core(|c| c.pad_value.get())
        .map(|bits| bytemuck::pod_read_unaligned(&bits.to_le_bytes()[..T::SIZE]))
}
