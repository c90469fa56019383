//! `LocalTensor` (a typed view of the core's Unified Buffer) and `GlobalTensor` (a typed,
//! bounds-checked view of global memory).

use core::fmt;
use core::marker::PhantomData;
use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ptr::NonNull;
use std::rc::Rc;
use std::sync::Arc;

use crate::element::{Element, Int4b, TensorType, BLOCK_BYTES};
use crate::kernel::error::{check, ensure, fail};
use crate::memory::ub::Ub;
use crate::position::TPosition;

pub use crate::memory::gm_addr::GmAddr;

// The scalar unit's accesses (`GetValue`/`SetValue`), which the observers see.
mod scalar;

/// A typed view of the current core's Unified Buffer (AscendC `LocalTensor<T>`).
///
/// Clones share the same memory, as AscendC copies do. A tensor is pinned to the core that
/// made it: it is neither `Send` nor `Sync` (asserted at the end of this module).
pub struct LocalTensor<T: TensorType> {
    ub: Rc<Ub>,
    /// Byte offset from the UB base.
    off: usize,
    /// Length in elements.
    len: usize,
    pos: TPosition,
    /// The sanitizer's lifetime tag of a queue buffer handle (0: untracked).
    pub(crate) tag: u64,
    _t: PhantomData<T>,
}

impl<T: TensorType> Clone for LocalTensor<T> {
    fn clone(&self) -> Self {
        LocalTensor {
            ub: Rc::clone(&self.ub),
            off: self.off,
            len: self.len,
            pos: self.pos,
            tag: self.tag,
            _t: PhantomData,
        }
    }
}

impl<T: Element> fmt::Debug for LocalTensor<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LocalTensor<{}>({}, addr {:#x}, {} elements)", T::DTYPE, self.pos, self.off, self.len)?;
        debug_values(f, self.len, |i| self.get_value(i))
    }
}

/// How many leading values `Debug` of a tensor shows.
const DEBUG_VALUES: usize = 8;

/// Writes ` [v0, v1, …]`: the first [`DEBUG_VALUES`] of `len` values, `…` if there are more.
fn debug_values<T: Element>(
    f: &mut fmt::Formatter<'_>,
    len: usize,
    value: impl Fn(usize) -> T,
) -> fmt::Result {
    f.write_str(" [")?;
    for i in 0..len.min(DEBUG_VALUES) {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{}", value(i))?;
    }
    f.write_str(if len > DEBUG_VALUES { ", …]" } else { "]" })
}

impl<T: Element> LocalTensor<T> {
    /// A tensor of `tile_size` elements at byte address `addr` of the memory that holds `pos`
    /// on the current core (the Unified Buffer for VECIN, VECOUT and VECCALC; L1 for A1 and B1;
    /// L0A for A2; L0B for B2; L0C for CO1; the bias table for C2 on Ascend910B) (AscendC's static-tensor constructor
    /// `LocalTensor<T>(TPosition pos, uint32_t addr, uint32_t tileSize)`). The kernel places
    /// it: nothing keeps other tensors off those bytes, and it carries no queue's events (the
    /// sanitizer still checks every access to a Unified Buffer tensor).
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let x = LocalTensor::<f32>::new(TPosition::VECCALC, 0, 64);
    /// let y = LocalTensor::<f32>::new(TPosition::VECCALC, 64 * 4, 64);
    /// duplicate(&x, 1.5, 64);
    /// adds(&y, &x, 1.0, 64);
    /// assert_eq!(y.get_value(63), 2.5);
    /// let a2 = LocalTensor::<f16>::new(TPosition::A2, 0, 256); // in L0A
    /// assert_eq!(a2.get_position(), TPosition::A2);
    /// ```
    ///
    /// # Panics
    /// Panics if `pos` is not in an on-chip memory this emulator models (global memory, the
    /// bias table of Ascend310B), the core does not have that memory (see
    /// [`KernelType`](crate::ctx::KernelType)), `addr` is not 32-byte aligned, or the tensor
    /// would end beyond the memory.
    #[track_caller]
    pub fn new(pos: TPosition, addr: usize, tile_size: usize) -> Self {
        let api = "LocalTensor";
        let loc = core::panic::Location::caller();
        let ub = crate::kernel::ctx::with_core(|c| {
            let mem = pos.memory(c.soc);
            crate::kernel::error::ensure_at(mem.is_some(), api, loc, || {
                format!("pos = {pos} is not in an on-chip memory this emulator models on {}", c.soc)
            });
            c.arena(mem.unwrap_or(crate::position::Memory::Ub), api, loc)
        });
        ensure(addr % crate::element::BLOCK_BYTES == 0, api, || {
            format!("addr = {addr:#x} is not 32-byte aligned")
        });
        Self::from_raw(ub, addr, tile_size, pos)
    }

    /// A view of `len` elements at byte offset `off` of `ub`. Every caller checks the range
    /// with a clear message first; this check (once per tensor made, never per element) is
    /// what every raw access relies on, so it is a real check in every build.
    #[track_caller]
    #[inline]
    pub(crate) fn from_raw(ub: Rc<Ub>, off: usize, len: usize, pos: TPosition) -> Self {
        Self::from_raw_any(ub, off, len, pos)
    }

    /// Sets the number of elements (AscendC `SetSize`). The hardware takes any size; here the
    /// tensor must stay inside the Unified Buffer.
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut ub = LocalMemAllocator::<Ub>::new();
    /// let mut x = ub.alloc::<f16>(128);
    /// x.set_size(16);
    /// assert_eq!((x.get_size(), x.get_length()), (16, 32));
    /// ```
    ///
    /// # Panics
    /// Panics if `size` elements starting at the tensor's address exceed the Unified Buffer.
    #[track_caller]
    pub fn set_size(&mut self, size: usize) {
        let ub = self.ub.size();
        let fits = size.checked_mul(T::SIZE).and_then(|b| b.checked_add(self.off)).is_some_and(|e| e <= ub);
        ensure(fits, "LocalTensor::SetSize", || {
            let dtype = T::DTYPE;
            let addr = self.off;
            format!(
                "size = {size} {dtype} elements at UB address {addr:#x} would end beyond the Unified \
                 Buffer's {ub} bytes"
            )
        });
        self.len = size;
    }

    /// The view that starts `off` elements later, with the length reduced accordingly
    /// (AscendC `operator[]`).
    ///
    /// # Panics
    /// Panics if `off > get_size()`.
    #[track_caller]
    pub fn view(&self, off: usize) -> Self {
        ensure(off <= self.len, "LocalTensor::operator[]", || {
            format!("offset = {off} is beyond the tensor's {} elements", self.len)
        });
        LocalTensor::from_raw(Rc::clone(&self.ub), self.off + off * T::SIZE, self.len - off, self.pos)
            .with_tag(self.tag)
    }

    /// The view of `len` elements starting `off` elements later.
    ///
    /// # Panics
    /// Panics if `off + len > get_size()`.
    #[track_caller]
    pub fn view_len(&self, off: usize, len: usize) -> Self {
        ensure(off.checked_add(len).is_some_and(|e| e <= self.len), "LocalTensor::operator[]", || {
            format!("offset = {off} with length = {len} is beyond the tensor's {} elements", self.len)
        });
        LocalTensor::from_raw(Rc::clone(&self.ub), self.off + off * T::SIZE, len, self.pos).with_tag(self.tag)
    }

    /// Copies the elements out (a host-side convenience for tests and debugging).
    pub fn to_vec(&self) -> Vec<T> {
        let mut v = vec![T::ZERO; self.len];
        // SAFETY: the view is in bounds; `v` is a distinct allocation of `len` elements.
        unsafe { std::ptr::copy_nonoverlapping(self.ptr(), v.as_mut_ptr(), self.len) };
        v
    }

    /// Copies `src` into the first `src.len()` elements (a host-side convenience).
    ///
    /// # Panics
    /// Panics if `src` is longer than the tensor.
    #[track_caller]
    pub fn copy_from_slice(&self, src: &[T]) {
        ensure(src.len() <= self.len, "LocalTensor::copy_from_slice", || {
            format!("source length = {} exceeds the tensor's {} elements", src.len(), self.len)
        });
        // SAFETY: in bounds; `src` is a Rust slice, which cannot alias UB memory (UB memory
        // is never exposed as a reference).
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), self.ptr(), src.len()) };
    }

    /// Fails unless the tensor is in the Unified Buffer, the only local memory the scalar unit
    /// reads and writes.
    #[track_caller]
    #[inline(always)]
    fn check_scalar(&self, api: &'static str) {
        if self.ub.mem() != crate::position::Memory::Ub {
            fail(
                api,
                format!(
                    "the tensor is at position {} in {}: the scalar unit reads and writes only the Unified Buffer",
                    self.pos,
                    self.ub.mem().name()
                ),
            );
        }
    }

    /// The memory the tensor lives in (its position's memory on the chip; not an AscendC API).
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let mut q = TQue::<A1, 1>::new();
    /// pipe.init_buffer(&mut q, 1, 512);
    /// assert_eq!(q.alloc_tensor::<f16>().memory(), Memory::L1);
    /// ```
    #[inline(always)]
    pub fn memory(&self) -> crate::position::Memory {
        self.ub.mem()
    }

    /// Raw pointer to element 0.
    #[inline(always)]
    pub(crate) fn ptr(&self) -> *mut T {
        // SAFETY: `off` is within the allocation (checked at creation).
        unsafe { self.ub.base().add(self.off).cast::<T>() }
    }
}

impl<T: TensorType> LocalTensor<T> {
    /// Fails unless the tensor belongs to the current core, or if its launch was cancelled
    /// (see `ctx::check_tensor`): every instruction checks each tensor operand once.
    #[track_caller]
    #[inline(always)]
    pub(crate) fn check_core(&self, api: &'static str) {
        crate::kernel::ctx::check_tensor(&self.ub, api);
    }

    /// Fails unless the tensor is in the Unified Buffer and belongs to the current core.
    #[track_caller]
    fn check_scalar_any(&self, api: &'static str) {
        if self.ub.mem() != crate::position::Memory::Ub {
            fail(
                api,
                format!(
                    "the tensor is at position {} in {}: the scalar unit reads and writes only the Unified Buffer",
                    self.pos,
                    self.ub.mem().name()
                ),
            );
        }
        crate::kernel::ctx::check_tensor(&self.ub, api);
    }

    /// Raw pointer to byte 0.
    #[inline(always)]
    pub(crate) fn byte_ptr(&self) -> *mut u8 {
        // SAFETY: `off` is within the allocation (checked at creation).
        unsafe { self.ub.base().add(self.off) }
    }

    /// Checks that the tensor can be an operand of a vector instruction: a UB position and a
    /// 32-byte aligned start.
    #[track_caller]
    pub(crate) fn check_vector_operand(&self, api: &'static str, name: &'static str) {
        crate::kernel::ctx::check_tensor(&self.ub, api);
        let (pos, off) = (self.pos, self.off);
        check!(
            pos.is_ub(),
            api,
            "{name} is at position {pos}: vector instructions take VECIN, VECOUT or VECCALC tensors"
        );
        check!(off % BLOCK_BYTES == 0, api, "{name} address = {off:#x} is not 32-byte aligned");
    }

    /// The byte range `[start, end)` of the first `n` elements, relative to the UB base.
    #[inline]
    pub(crate) fn byte_range(&self, n: usize) -> (usize, usize) {
        (self.off, self.off + T::bytes_for(n).unwrap_or(usize::MAX - self.off))
    }

    /// A view of `len` elements at byte offset `off` of `ub`, for any tensor type (see
    /// [`from_raw`](LocalTensor::from_raw)).
    #[track_caller]
    #[inline]
    pub(crate) fn from_raw_any(ub: Rc<Ub>, off: usize, len: usize, pos: TPosition) -> Self {
        let end = T::bytes_for(len).and_then(|b| b.checked_add(off));
        ensure(end.is_some_and(|e| e <= ub.size()), "LocalTensor", || {
            format!(
                "a tensor of len = {len} {} elements at {} address {off:#x} would end beyond {}'s {} bytes",
                T::NAME,
                ub.mem(),
                ub.mem().name(),
                ub.size()
            )
        });
        LocalTensor { ub, off, len, pos, tag: 0, _t: PhantomData }
    }

    /// The same view with the sanitizer tag `tag`.
    pub(crate) fn with_tag(mut self, tag: u64) -> Self {
        self.tag = tag;
        self
    }

    /// A tensor over `bytes` bytes at `off` of `ub` ([`TensorType::len_in`] elements), for a
    /// range the caller has already checked (a queue's buffer).
    ///
    /// # Safety
    /// `off + bytes` must not overflow and must be at most `ub.size()`.
    #[inline]
    pub(crate) unsafe fn from_bytes_unchecked(ub: Rc<Ub>, off: usize, bytes: usize, pos: TPosition) -> Self {
        debug_assert!(off.checked_add(bytes).is_some_and(|e| e <= ub.size()));
        LocalTensor { ub, off, len: T::len_in(bytes), pos, tag: 0, _t: PhantomData }
    }

    pub(crate) fn ub(&self) -> &Rc<Ub> {
        &self.ub
    }

    /// Number of elements (AscendC `GetSize`); for [`Int4b`], 4-bit elements (twice the
    /// bytes).
    #[inline]
    pub fn get_size(&self) -> usize {
        self.len
    }

    /// Length in bytes (AscendC `GetLength`); for [`Int4b`], the bytes its elements start in.
    #[inline]
    pub fn get_length(&self) -> usize {
        T::bytes_for(self.len).unwrap_or(usize::MAX)
    }

    /// The position the tensor was allocated for (AscendC `GetPosition`).
    #[inline]
    pub fn get_position(&self) -> TPosition {
        self.pos
    }

    /// Byte address relative to the start of the Unified Buffer (AscendC `GetPhyAddr`).
    #[inline]
    pub fn get_phy_addr(&self) -> usize {
        self.off
    }

    /// The same bytes seen as elements of `U` (AscendC `ReinterpretCast<U>`); the length
    /// becomes `get_length() / size_of::<U>()`. To [`Int4b`] a tensor of `n` bytes has `2n`
    /// elements; from it, a tensor of `2n` or `2n + 1` elements has `n` bytes (the vendor:
    /// `GetSize() / 2` `int8_t`).
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut ub = LocalMemAllocator::<Ub>::new();
    /// let bytes = ub.alloc::<i8>(32);
    /// let nibbles = bytes.reinterpret_cast::<Int4b>();
    /// assert_eq!(nibbles.get_size(), 64);
    /// assert_eq!(nibbles.reinterpret_cast::<i8>().get_size(), 32);
    /// ```
    ///
    /// # Panics
    /// Panics if the address is not aligned for `U`.
    #[track_caller]
    pub fn reinterpret_cast<U: TensorType>(&self) -> LocalTensor<U> {
        ensure(self.off % U::ALIGN == 0, "LocalTensor::ReinterpretCast", || {
            format!("address = {:#x} is not aligned to {} bytes for {}", self.off, U::ALIGN, U::NAME)
        });
        LocalTensor::from_raw_any(
            Rc::clone(&self.ub),
            self.off,
            U::len_in(T::whole_bytes(self.len)),
            self.pos,
        )
        .with_tag(self.tag)
    }
}

impl fmt::Debug for LocalTensor<Int4b> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LocalTensor<int4b_t>({}, addr {:#x}, {} elements)", self.pos, self.off, self.len)?;
        let v = self.to_vec();
        debug_values(f, self.len, |i| i16::from(v[i].value()))
    }
}

/// `LocalTensor<int4b_t>`: 4-bit elements two per byte, element `2k` in the low nibble of
/// byte `k` (see [`Int4b`]). Sizes and offsets count elements; a view starts on a byte.
impl LocalTensor<Int4b> {
    /// The byte holding element `i`, and the shift of its nibble.
    #[inline(always)]
    fn nibble_at(&self, i: usize) -> (usize, u32) {
        (self.off + i / 2, 4 * (i % 2) as u32)
    }

    /// The view that starts `off` elements later (AscendC `operator[]`, which moves the
    /// address by `off / 2` bytes and asserts an even `off`).
    ///
    /// # Panics
    /// Panics if `off` is odd (the view would start inside a byte) or beyond the tensor.
    #[track_caller]
    pub fn view(&self, off: usize) -> Self {
        let api = "LocalTensor::operator[]";
        ensure(off <= self.len, api, || {
            format!("offset = {off} is beyond the tensor's {} int4b_t elements", self.len)
        });
        ensure(off % 2 == 0, api, || {
            format!("offset = {off} is odd: an int4b_t view must start on a byte (two elements per byte)")
        });
        LocalTensor::from_raw_any(Rc::clone(&self.ub), self.off + off / 2, self.len - off, self.pos)
            .with_tag(self.tag)
    }

    /// Copies the elements out (a host-side convenience for tests and debugging).
    pub fn to_vec(&self) -> Vec<Int4b> {
        let mut bytes = vec![0u8; self.len.div_ceil(2)];
        // SAFETY: the view's bytes are in bounds; `bytes` is a distinct allocation.
        unsafe { std::ptr::copy_nonoverlapping(self.byte_ptr(), bytes.as_mut_ptr(), bytes.len()) };
        (0..self.len).map(|i| Int4b::from_nibble(bytes[i / 2] >> (4 * (i % 2)))).collect()
    }

    /// Copies `src` into the first `src.len()` elements (a host-side convenience; with an odd
    /// length the last byte's high nibble is kept).
    ///
    /// # Panics
    /// Panics if `src` is longer than the tensor.
    #[track_caller]
    pub fn copy_from_slice(&self, src: &[Int4b]) {
        ensure(src.len() <= self.len, "LocalTensor::copy_from_slice", || {
            format!("source length = {} exceeds the tensor's {} int4b_t elements", src.len(), self.len)
        });
        for (k, pair) in src.chunks(2).enumerate() {
            // SAFETY: element 2k < len, so byte k lies inside the view.
            unsafe {
                let p = self.byte_ptr().add(k);
                let hi = if pair.len() == 2 { pair[1].to_nibble() << 4 } else { p.read() & 0xF0 };
                p.write(pair[0].to_nibble() | hi);
            }
        }
    }
}

/// A region of global memory allocated by the host; kernels reach it through [`GmAddr`].
///
/// Every core of a launch may read and write it concurrently, as on the hardware: two cores
/// writing the same bytes without a `sync_all` between them is a race in the kernel, as it
/// is on the chip.
pub struct GmRegion {
    base: NonNull<u8>,
    size: usize,
    /// The region's number in the registry [`GmAddr`]s are resolved through.
    id: u64,
}

/// Live regions by id, as weak references: a [`GmAddr`] is a plain `Copy` value (id, offset,
/// size) and is resolved here once per `set_global_buffer`, never per element.
fn registry() -> &'static std::sync::RwLock<std::collections::HashMap<u64, std::sync::Weak<GmRegion>>> {
    static REG: std::sync::OnceLock<
        std::sync::RwLock<std::collections::HashMap<u64, std::sync::Weak<GmRegion>>>,
    > = std::sync::OnceLock::new();
    REG.get_or_init(Default::default)
}

/// The next region id (never reused, so a freed region's address never reaches another).
static NEXT_REGION_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

// SAFETY: the region is plain bytes; it is only accessed through raw pointers with bounds
// checks, and the kernel model (like the hardware's) makes cross-core ordering the kernel's
// responsibility through `sync_all`.
unsafe impl Send for GmRegion {}
// SAFETY: as above.
unsafe impl Sync for GmRegion {}

/// Alignment of a region's base: enough for every element type (at most 8 bytes) and for the
/// 8-byte atomic words all accesses go through, and small enough that the system allocator
/// hands out lazily zeroed pages (`calloc`) instead of writing zeros over a large region.
const GM_ALIGN: usize = 16;

/// The allocation behind a region of `size` bytes: at least one byte, rounded up to whole
/// 8-byte words (every access is word-wise, see `gm_io`), aligned to [`GM_ALIGN`].
fn gm_layout(size: usize) -> Option<Layout> {
    let bytes = size.max(1).checked_next_multiple_of(8)?;
    Layout::from_size_align(bytes, GM_ALIGN).ok()
}

/// Why a [`GmRegion`] (or a `GmBuffer`) could not be allocated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GmAllocError {
    /// The size asked for, in bytes (`None` if the size itself overflowed).
    pub bytes: Option<usize>,
}

impl fmt::Display for GmAllocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.bytes {
            Some(b) => write!(f, "cannot allocate {b} bytes of global memory"),
            None => f.write_str("cannot allocate global memory: the size overflows the address space"),
        }
    }
}

impl std::error::Error for GmAllocError {}

impl GmRegion {
    /// A zero-filled region of `size` bytes.
    ///
    /// # Panics
    /// Panics (with a message, not an abort) if the memory cannot be allocated; see
    /// [`try_zeroed`](Self::try_zeroed).
    #[track_caller]
    pub fn zeroed(size: usize) -> Arc<GmRegion> {
        Self::try_zeroed(size).unwrap_or_else(|e| panic!("GmRegion::zeroed: {e}"))
    }

    /// A zero-filled region of `size` bytes, or an error if the memory cannot be had.
    ///
    /// # Errors
    /// [`GmAllocError`] if `size` exceeds what the allocator can provide.
    pub fn try_zeroed(size: usize) -> Result<Arc<GmRegion>, GmAllocError> {
        let err = GmAllocError { bytes: Some(size) };
        let layout = gm_layout(size).ok_or(err.clone())?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        let base = NonNull::new(ptr).ok_or(err)?;
        let id = NEXT_REGION_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let region = Arc::new(GmRegion { base, size, id });
        registry().write().unwrap_or_else(|e| e.into_inner()).insert(id, Arc::downgrade(&region));
        Ok(region)
    }

    /// A region holding a copy of `bytes`.
    pub fn from_bytes(bytes: &[u8]) -> Arc<GmRegion> {
        let r = GmRegion::zeroed(bytes.len());
        // SAFETY: fresh allocation of `bytes.len()` bytes, distinct from `bytes`.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), r.base.as_ptr(), bytes.len()) };
        r
    }

    /// Size in bytes.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Copies the region's bytes out.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = vec![0u8; self.size];
        self.read_bytes(0, &mut v);
        v
    }

    /// Copies `out.len()` bytes starting at byte `off` into `out`.
    ///
    /// # Panics
    /// Panics if the range is outside the region.
    #[track_caller]
    pub fn read_bytes(&self, off: usize, out: &mut [u8]) {
        assert!(
            off.checked_add(out.len()).is_some_and(|e| e <= self.size),
            "GmRegion::read_bytes: offset {off} + {} bytes is beyond the region of {} bytes",
            out.len(),
            self.size
        );
        // SAFETY: in bounds; `out` is a distinct Rust buffer. Atomic word accesses, so a host
        // read racing a running kernel sees racy values, not undefined behaviour.
        unsafe { crate::memory::gm_io::load(out.as_mut_ptr(), self.base.as_ptr().add(off), out.len()) };
    }

    /// Copies `data` to byte `off` of the region.
    ///
    /// # Panics
    /// Panics if the range is outside the region.
    #[track_caller]
    pub fn write_bytes(&self, off: usize, data: &[u8]) {
        assert!(
            off.checked_add(data.len()).is_some_and(|e| e <= self.size),
            "GmRegion::write_bytes: offset {off} + {} bytes is beyond the region of {} bytes",
            data.len(),
            self.size
        );
        // SAFETY: in bounds; `data` is a distinct Rust buffer; atomic word accesses (as above).
        unsafe { crate::memory::gm_io::store(self.base.as_ptr().add(off), data.as_ptr(), data.len()) };
    }

    /// The address of the region's first byte, for passing to a kernel.
    pub fn addr(self: &Arc<Self>) -> GmAddr {
        GmAddr { id: self.id, off: 0, size: self.size }
    }

    #[inline(always)]
    pub(crate) fn base(&self) -> *mut u8 {
        self.base.as_ptr()
    }
}

impl Drop for GmRegion {
    fn drop(&mut self) {
        registry().write().unwrap_or_else(|e| e.into_inner()).remove(&self.id);
        let layout = gm_layout(self.size).expect("the layout was valid at allocation");
        // SAFETY: allocated in `try_zeroed` with this layout; freed once.
        unsafe { dealloc(self.base.as_ptr(), layout) }
    }
}

impl fmt::Debug for GmRegion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GmRegion({} bytes)", self.size)
    }
}

impl GmAddr {
    /// The address `n` elements of `T` further (the C idiom `(__gm__ T*)addr + n`).
    ///
    /// # Panics
    /// Panics if the result lies beyond the end of the region.
    #[track_caller]
    pub fn add<T: Element>(&self, n: usize) -> GmAddr {
        let off = n.checked_mul(T::SIZE).and_then(|b| b.checked_add(self.off));
        match off {
            Some(o) if o <= self.size => GmAddr { off: o, ..*self },
            _ => fail(
                "GM_ADDR",
                format!(
                    "offset of {n} {} elements from byte {} is beyond the region of {} bytes",
                    T::DTYPE,
                    self.off,
                    self.size
                ),
            ),
        }
    }

    /// Bytes from this address to the end of its region.
    pub fn remaining_bytes(&self) -> usize {
        self.size - self.off
    }

    /// Reads the `T` at this address: the vendor examples' `*(__gm__ T*)addr`, for a scalar
    /// argument or a tiling copy loop. It is [`GlobalTensor::get_value`] on a one-element
    /// tensor bound here, so it goes through the same bounds checks, the sanitizer's
    /// data-cache model and its cross-core race log (where it is named
    /// `GlobalTensor::GetValue`).
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let region = GmRegion::from_bytes(bytemuck::cast_slice(&[7u32, 9, 11]));
    /// let addr = region.addr();
    /// assert_eq!(addr.read::<u32>(), 7);
    /// assert_eq!(addr.read_at::<u32>(2), 11);
    /// addr.add::<u32>(1).write::<u32>(42);
    /// addr.write_at::<u32>(2, addr.read_at::<u32>(1) + 1);
    /// assert_eq!(region.to_bytes(), bytemuck::cast_slice::<u32, u8>(&[7, 42, 43]));
    /// ```
    ///
    /// # Panics
    /// Panics if the address is not aligned to `T`, a `T` does not fit in what is left of the
    /// region, or the region was freed.
    #[track_caller]
    pub fn read<T: Element>(&self) -> T {
        self.scalar::<T>("GM_ADDR read").get_value(0)
    }

    /// Writes `v` at this address (`*(__gm__ T*)addr = v`): [`GlobalTensor::set_value`] on a
    /// one-element tensor bound here, with its checks, data-cache model and race log (see
    /// [`read`](Self::read)).
    ///
    /// # Panics
    /// As [`read`](Self::read).
    #[track_caller]
    pub fn write<T: Element>(&self, v: T) {
        self.scalar::<T>("GM_ADDR write").set_value(0, v)
    }

    /// Reads element `i` of `T` from this address (`((__gm__ T*)addr)[i]`).
    ///
    /// # Panics
    /// As [`add`](Self::add) and [`read`](Self::read).
    #[track_caller]
    pub fn read_at<T: Element>(&self, i: usize) -> T {
        self.add::<T>(i).read::<T>()
    }

    /// Writes element `i` of `T` at this address (`((__gm__ T*)addr)[i] = v`).
    ///
    /// # Panics
    /// As [`add`](Self::add) and [`write`](Self::write).
    #[track_caller]
    pub fn write_at<T: Element>(&self, i: usize, v: T) {
        self.add::<T>(i).write::<T>(v)
    }

    /// A one-element tensor of `T` bound at this address, checked for `api` first.
    #[track_caller]
    fn scalar<T: Element>(&self, api: &'static str) -> GlobalTensor<T> {
        self.element::<T>(api);
        let mut g = GlobalTensor::<T>::new();
        g.set_global_buffer(*self, 1);
        g
    }

    /// The live region and byte offset of the element of `T` at this address (the scalar
    /// calls that take a `__gm__ T*`), failing for `api` if it is not aligned to `T` or does
    /// not fit in what is left of the region.
    #[track_caller]
    pub(crate) fn element<T: Element>(&self, api: &'static str) -> (Arc<GmRegion>, usize) {
        ensure(self.off % T::SIZE == 0, api, || {
            format!("addr = GM offset {:#x} is not aligned to {} bytes for {}", self.off, T::SIZE, T::DTYPE)
        });
        ensure(T::SIZE <= self.remaining_bytes(), api, || {
            format!(
                "addr = GM offset {:#x}: a {} element ({} bytes) exceeds the {} bytes left in its global buffer",
                self.off,
                T::DTYPE,
                T::SIZE,
                self.remaining_bytes()
            )
        });
        (self.resolve(api), self.off)
    }

    /// The live region this address points into, failing (for `api`) if it was freed.
    #[track_caller]
    fn resolve(&self, api: &'static str) -> Arc<GmRegion> {
        let region =
            registry().read().unwrap_or_else(|e| e.into_inner()).get(&self.id).and_then(|w| w.upgrade());
        match region {
            Some(r) => r,
            None => fail(
                api,
                format!(
                    "the global memory of this GM_ADDR (region #{}, {} bytes) was freed: keep its GmBuffer alive \
                     while kernels use it",
                    self.id, self.size
                ),
            ),
        }
    }
}

/// Whether a [`GlobalTensor`]'s global memory goes through the L2 cache (AscendC
/// `CacheMode`, see [`GlobalTensor::set_l2_cache_hint`]).
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CacheMode {
    /// Cached (the default).
    #[default]
    CACHE_MODE_NORMAL,
    /// Not cached: for data read once, so it does not evict data read again.
    CACHE_MODE_DISABLE,
    /// Kept in the cache with priority.
    CACHE_MODE_PERSISTENT,
}

/// A typed view of global memory (AscendC `GlobalTensor<T>`). Unlike the hardware's, every
/// access is bounds-checked against the region the address came from.
///
/// Kernels receive [`GmAddr`]s (which cross threads) and bind `GlobalTensor`s inside each
/// core; a `GlobalTensor` stays on the core that bound it (it is neither `Send` nor `Sync`;
/// asserted at the end of this module).
pub struct GlobalTensor<T: TensorType> {
    /// The region, behind a core-local `Rc`: views are taken per tile, and cloning an `Rc`
    /// costs no atomic operation (an `Arc` clone per view made the cores' host threads fight
    /// over one reference count). A `GlobalTensor` is therefore, like a `LocalTensor`,
    /// pinned to the thread (core) that bound it.
    #[allow(clippy::redundant_allocation)] // The extra `Rc` is the point: a non-atomic count.
    region: Option<Rc<Arc<GmRegion>>>,
    off: usize,
    len: usize,
    _t: PhantomData<T>,
}

impl<T: TensorType> Default for GlobalTensor<T> {
    fn default() -> Self {
        GlobalTensor { region: None, off: 0, len: 0, _t: PhantomData }
    }
}

impl<T: TensorType> Clone for GlobalTensor<T> {
    fn clone(&self) -> Self {
        GlobalTensor { region: self.region.clone(), off: self.off, len: self.len, _t: PhantomData }
    }
}

impl<T: Element> fmt::Debug for GlobalTensor<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GlobalTensor<{}>(+{:#x}, {} elements)", T::DTYPE, self.off, self.len)?;
        if self.region.is_some() {
            debug_values(f, self.len, |i| self.get_value(i))?;
        }
        Ok(())
    }
}

impl<T: TensorType> GlobalTensor<T> {
    /// An unbound tensor; bind it with [`set_global_buffer`](Self::set_global_buffer).
    pub fn new() -> Self {
        Self::default()
    }

    /// Binds the tensor to `len` elements starting at `addr` (AscendC `SetGlobalBuffer`).
    ///
    /// # Panics
    /// Panics if `len` elements do not fit between `addr` and the end of its region, or if
    /// `addr` is not aligned to the element size.
    #[track_caller]
    pub fn set_global_buffer(&mut self, addr: GmAddr, len: usize) {
        let api = "GlobalTensor::SetGlobalBuffer";
        ensure(addr.off % T::ALIGN == 0, api, || {
            format!("address offset = {} bytes is not aligned to {} for {}", addr.off, T::ALIGN, T::NAME)
        });
        ensure(T::bytes_for(len).is_some_and(|b| b <= addr.remaining_bytes()), api, || {
            format!(
                "len = {len} {} elements ({} bytes) exceeds the {} bytes left in the global buffer",
                T::NAME,
                T::bytes_for(len).unwrap_or(usize::MAX),
                addr.remaining_bytes()
            )
        });
        let region = addr.resolve(api);
        self.off = addr.off;
        self.region = Some(Rc::new(region));
        self.len = len;
    }

    /// Binds the tensor to `addr` without a length (AscendC `SetGlobalBuffer(addr)`): the
    /// length becomes the whole elements between `addr` and the end of its region.
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let region = GmRegion::zeroed(100);
    /// let mut gm = GlobalTensor::<f32>::new();
    /// gm.set_global_buffer_addr(region.addr().add::<u8>(8));
    /// assert_eq!(gm.get_size(), 23); // 92 bytes left
    /// ```
    ///
    /// # Panics
    /// Panics if `addr` is not aligned to the element size.
    #[track_caller]
    pub fn set_global_buffer_addr(&mut self, addr: GmAddr) {
        let len = T::len_in(addr.remaining_bytes());
        self.set_global_buffer(addr, len)
    }

    /// Number of elements (AscendC `GetSize`).
    pub fn get_size(&self) -> usize {
        self.len
    }

    /// Byte offset of element 0 in its global buffer (what `DumpTensor` prints as `addr`).
    pub fn byte_offset(&self) -> usize {
        self.off
    }

    /// Sets whether the tensor's global memory goes through the L2 cache (AscendC
    /// `SetL2CacheHint(CacheMode)`, with its reserved `rwMode` at the default). The emulator
    /// has no L2 cache, so the hint changes no result: it is checked and kept nowhere.
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut gm = GlobalTensor::<f32>::new();
    /// gm.set_l2_cache_hint(CacheMode::CACHE_MODE_DISABLE);
    /// ```
    ///
    /// # Panics
    /// Panics on a chip other than Ascend910B (the vendor lists the Atlas A2/A3 products
    /// only).
    #[track_caller]
    pub fn set_l2_cache_hint(&mut self, mode: CacheMode) {
        let soc = crate::kernel::ctx::get_soc();
        ensure(soc == crate::Soc::Ascend910B, "GlobalTensor::SetL2CacheHint", || {
            format!("mode = {mode:?}: not supported on {soc} ({})", soc.product_line())
        });
    }

    /// The address of element 0 (AscendC `GetPhyAddr()`), for the calls that take a
    /// `__gm__ T*` (`addr.add::<T>(1)` is the vendor's `addr + 1`).
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let region = GmRegion::from_bytes(bytemuck::cast_slice(&[1i32, 2, 3]));
    /// let mut gm = GlobalTensor::<i32>::new();
    /// gm.set_global_buffer(region.addr().add::<i32>(1), 2);
    /// assert_eq!(read_gm_by_pass_dcache::<i32>(gm.get_phy_addr().add::<i32>(1)), 3);
    /// ```
    ///
    /// # Panics
    /// Panics if the tensor is unbound.
    #[track_caller]
    pub fn get_phy_addr(&self) -> GmAddr {
        let api = "GlobalTensor::GetPhyAddr";
        match &self.region {
            Some(r) => Arc::clone(r).addr().add::<u8>(self.off),
            None => {
                self.base_ptr(api);
                unreachable!("base_ptr fails for an unbound tensor")
            }
        }
    }

    /// Reads element `i` (AscendC `GetValue`); of an [`Int4b`] tensor, the nibble `i % 2` of
    /// byte `i / 2`.
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let region = GmRegion::from_bytes(&[0xF7, 0x08]);
    /// let mut gm = GlobalTensor::<Int4b>::new();
    /// gm.set_global_buffer(region.addr(), 4);
    /// let v: Vec<i8> = (0..4).map(|i| gm.get_value(i).value()).collect();
    /// assert_eq!(v, [7, -1, -8, 0]);
    /// ```
    ///
    /// # Panics
    /// Panics if the tensor is unbound or `i >= get_size()`.
    #[track_caller]
    pub fn get_value(&self, i: usize) -> T
    where
        T: GmScalar,
    {
        T::gm_get(self, i)
    }

    /// Writes element `i` (AscendC `SetValue`); of an [`Int4b`] tensor, reads its byte,
    /// replaces the nibble and writes the byte back (the other element of the byte keeps its
    /// value).
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let region = GmRegion::zeroed(2);
    /// let mut gm = GlobalTensor::<Int4b>::new();
    /// gm.set_global_buffer(region.addr(), 4);
    /// gm.set_value(1, Int4b::new(-2));
    /// gm.set_value(2, Int4b::new(5));
    /// assert_eq!(region.to_bytes(), [0xE0, 0x05]);
    /// ```
    ///
    /// # Panics
    /// Panics if the tensor is unbound or `i >= get_size()`.
    #[track_caller]
    pub fn set_value(&self, i: usize, v: T)
    where
        T: GmScalar,
    {
        T::gm_set(self, i, v)
    }

    /// The view that starts `off` elements later (AscendC `operator[]`).
    ///
    /// For [`Int4b`] the offset counts 4-bit elements and must be even (a view starts on a
    /// byte: the vendor's `GlobalTensor<int4b_t>::operator[]` moves `offset / 2` bytes).
    ///
    /// # Panics
    /// Panics if `off > get_size()`, or (`Int4b`) if `off` is odd.
    #[track_caller]
    pub fn view(&self, off: usize) -> Self {
        let len = self.len;
        ensure(off <= len, "GlobalTensor::operator[]", move || {
            format!("offset = {off} is beyond the tensor's {len} elements")
        });
        ensure(T::bytes_for(off) == Some(T::whole_bytes(off)), "GlobalTensor::operator[]", move || {
            format!("offset = {off} {} elements does not start on a byte (it must be even)", T::NAME)
        });
        GlobalTensor {
            region: self.region.clone(),
            off: self.off + T::whole_bytes(off),
            len: self.len - off,
            _t: PhantomData,
        }
    }

    /// The region (by the address of its first byte) and the byte offset, for the sanitizer.
    pub(crate) fn san_loc(&self) -> (usize, usize) {
        (self.region.as_ref().map_or(0, |r| r.base() as usize), self.off)
    }

    /// The region the tensor is bound to (kept alive by atomic contributions still pending).
    pub(crate) fn region_arc(&self) -> Option<Arc<GmRegion>> {
        self.region.as_deref().cloned()
    }

    /// Pointer to element 0, failing if unbound.
    #[track_caller]
    pub(crate) fn base_ptr(&self, api: &'static str) -> *mut T {
        match &self.region {
            // SAFETY: `off <= region.size` (checked when bound).
            Some(r) => unsafe { r.base().add(self.off).cast::<T>() },
            None => fail(
                api,
                format!(
                    "the GlobalTensor is not bound: call set_global_buffer first (this GlobalTensor<{}> has no \
                     global memory)",
                    T::NAME
                ),
            ),
        }
    }
}

/// How [`GlobalTensor::get_value`] and [`GlobalTensor::set_value`] reach one element: its
/// bytes for an [`Element`], a nibble for [`Int4b`]. Implemented for every [`TensorType`]
/// (here, beside the tensors, so that the element vocabulary does not name them).
#[doc(hidden)]
pub trait GmScalar: TensorType {
    /// `GlobalTensor::get_value` of this type.
    #[track_caller]
    fn gm_get(g: &GlobalTensor<Self>, i: usize) -> Self;
    /// `GlobalTensor::set_value` of this type.
    #[track_caller]
    fn gm_set(g: &GlobalTensor<Self>, i: usize, v: Self);
}

impl<T: Element> GmScalar for T {
    #[inline(always)]
    #[track_caller]
    fn gm_get(g: &GlobalTensor<T>, i: usize) -> T {
        g.elem_get(i)
    }
    #[inline(always)]
    #[track_caller]
    fn gm_set(g: &GlobalTensor<T>, i: usize, v: T) {
        g.elem_set(i, v)
    }
}

impl GmScalar for Int4b {
    #[track_caller]
    fn gm_get(g: &GlobalTensor<Int4b>, i: usize) -> Int4b {
        g.i4_get(i)
    }
    #[track_caller]
    fn gm_set(g: &GlobalTensor<Int4b>, i: usize, v: Int4b) {
        g.i4_set(i, v)
    }
}

impl fmt::Debug for GlobalTensor<Int4b> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GlobalTensor<int4b_t>(+{:#x}, {} elements)", self.off, self.len)
    }
}

/// `GlobalTensor<int4b_t>`: two elements per byte, element `2k` in the low nibble of byte
/// `k`, as a `LocalTensor<Int4b>` (see [`Int4b`]). Sizes and offsets count 4-bit elements:
/// [`set_global_buffer`](GlobalTensor::set_global_buffer)`(addr, len)` binds `len.div_ceil(2)`
/// bytes and [`view`](GlobalTensor::view) takes even offsets (the vendor's
/// `impl/basic_api/kernel_tensor_base.h` moves `offset / 2` bytes). Data moves with
/// [`data_copy_params`](crate::copy::data_copy_params) and `DataCopyPad` (whose lengths are in
/// bytes); see [`data_copy`](crate::copy::data_copy) for why its count form does not take it.
impl GlobalTensor<Int4b> {
    /// The bytes the elements live in, as a `GlobalTensor<u8>`.
    pub(crate) fn bytes(&self) -> GlobalTensor<u8> {
        GlobalTensor {
            region: self.region.clone(),
            off: self.off,
            len: self.len.div_ceil(2),
            _t: PhantomData,
        }
    }

    #[track_caller]
    fn check_index(&self, api: &'static str, i: usize) {
        self.base_ptr(api);
        ensure(i < self.len, api, || {
            format!("index = {i} is out of range: the tensor has {} int4b_t elements", self.len)
        });
    }

    /// [`GlobalTensor::get_value`] of an `int4b_t` tensor.
    #[track_caller]
    pub(crate) fn i4_get(&self, i: usize) -> Int4b {
        self.check_index("GlobalTensor::GetValue", i);
        let b = self.bytes().get_value(i / 2);
        Int4b::from_nibble(b >> (4 * (i % 2)))
    }

    /// [`GlobalTensor::set_value`] of an `int4b_t` tensor.
    #[track_caller]
    pub(crate) fn i4_set(&self, i: usize, v: Int4b) {
        self.check_index("GlobalTensor::SetValue", i);
        let bytes = self.bytes();
        let sh = 4 * (i % 2);
        let b = bytes.get_value(i / 2);
        bytes.set_value(i / 2, (b & !(0xF << sh)) | (v.to_nibble() << sh));
    }
}

// A tensor stays on the core (host thread) that made or bound it.
static_assertions::assert_not_impl_any!(LocalTensor<f32>: Send, Sync);
static_assertions::assert_not_impl_any!(GlobalTensor<f32>: Send, Sync);
