//! The scalar unit's accesses of tensors — `LocalTensor::GetValue`/`SetValue` and the
//! element accesses behind `GlobalTensor::GetValue`/`SetValue` — with their hooks in the
//! instruction-event stream. A child of [`crate::tensor`], so that the tensors themselves
//! import nothing of the observers that inspect them.

use super::{GlobalTensor, LocalTensor};
use crate::element::{Element, Int4b};
use crate::kernel::error::ensure;

impl<T: Element> LocalTensor<T> {
    /// Reads element `i` (AscendC `GetValue`).
    ///
    /// # Panics
    /// Panics if `i >= get_size()`, or the tensor is not in the Unified Buffer (the scalar
    /// unit reads no cube memory; tests read those with [`to_vec`](Self::to_vec)).
    #[track_caller]
    #[inline]
    pub fn get_value(&self, i: usize) -> T {
        ensure(i < self.len, "LocalTensor::GetValue", || {
            format!("index = {i} is out of range: the tensor has {} elements", self.len)
        });
        self.check_scalar("LocalTensor::GetValue");
        crate::kernel::ctx::check_tensor(&self.ub, "LocalTensor::GetValue");
        let at = self.off + i * T::SIZE;
        crate::observe::events::on_scalar_ub("LocalTensor::GetValue", self.tag, at, at + T::SIZE, false);
        // SAFETY: `i < len` and the view lies inside the UB (checked at creation); UB memory
        // is only accessed through raw pointers, and the pointer is aligned for `T`.
        unsafe { self.ptr().add(i).read() }
    }

    /// Writes element `i` (AscendC `SetValue`).
    ///
    /// # Panics
    /// Panics if `i >= get_size()`, or the tensor is not in the Unified Buffer.
    #[track_caller]
    #[inline]
    pub fn set_value(&self, i: usize, v: T) {
        ensure(i < self.len, "LocalTensor::SetValue", || {
            format!("index = {i} is out of range: the tensor has {} elements", self.len)
        });
        self.check_scalar("LocalTensor::SetValue");
        crate::kernel::ctx::check_tensor(&self.ub, "LocalTensor::SetValue");
        let at = self.off + i * T::SIZE;
        crate::observe::events::on_scalar_ub("LocalTensor::SetValue", self.tag, at, at + T::SIZE, true);
        // SAFETY: as in `get_value`.
        unsafe { self.ptr().add(i).write(v) }
    }
}

impl LocalTensor<Int4b> {
    /// Reads element `i` (AscendC `GetValue`: the byte's nibble `i % 2`).
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut ub = LocalMemAllocator::<Ub>::new();
    /// let b = ub.alloc::<u8>(32);
    /// b.set_value(0, 0x8F);
    /// let x = b.reinterpret_cast::<Int4b>();
    /// assert_eq!((x.get_value(0).value(), x.get_value(1).value()), (-1, -8));
    /// ```
    ///
    /// # Panics
    /// Panics if `i >= get_size()`, or the tensor is not in the Unified Buffer.
    #[track_caller]
    pub fn get_value(&self, i: usize) -> Int4b {
        let api = "LocalTensor::GetValue";
        ensure(i < self.len, api, || {
            format!("index = {i} is out of range: the tensor has {} int4b_t elements", self.len)
        });
        self.check_scalar_any(api);
        let (at, sh) = self.nibble_at(i);
        crate::observe::events::on_scalar_ub(api, self.tag, at, at + 1, false);
        // SAFETY: `i < len`, so byte `i / 2` lies inside the view, which lies inside the UB
        // (checked at creation); UB memory is only accessed through raw pointers.
        let b = unsafe { self.byte_ptr().add(i / 2).read() };
        Int4b::from_nibble(b >> sh)
    }

    /// Writes element `i` (AscendC `SetValue`: the byte's other nibble is kept).
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut ub = LocalMemAllocator::<Ub>::new();
    /// let b = ub.alloc::<u8>(32);
    /// let x = b.reinterpret_cast::<Int4b>();
    /// x.set_value(1, Int4b::new(-2));
    /// x.set_value(0, Int4b::new(3));
    /// assert_eq!(b.get_value(0), 0xE3);
    /// ```
    ///
    /// # Panics
    /// Panics if `i >= get_size()`, or the tensor is not in the Unified Buffer.
    #[track_caller]
    pub fn set_value(&self, i: usize, v: Int4b) {
        let api = "LocalTensor::SetValue";
        ensure(i < self.len, api, || {
            format!("index = {i} is out of range: the tensor has {} int4b_t elements", self.len)
        });
        self.check_scalar_any(api);
        let (at, sh) = self.nibble_at(i);
        crate::observe::events::on_scalar_ub(api, self.tag, at, at + 1, true);
        // SAFETY: as in `get_value`.
        unsafe {
            let p = self.byte_ptr().add(i / 2);
            p.write((p.read() & !(0xF << sh)) | v.to_nibble() << sh);
        }
    }
}

impl<T: Element> GlobalTensor<T> {
    /// [`GlobalTensor::get_value`] of an [`Element`] tensor.
    #[track_caller]
    pub(crate) fn elem_get(&self, i: usize) -> T {
        let p = self.elem_ptr("GlobalTensor::GetValue", i);
        // SAFETY: `elem_ptr` checked the index against the bound region, and
        // `set_global_buffer` the alignment; an atomic word access, so cores racing on the
        // element get racy values, never undefined behaviour.
        let v = unsafe { crate::memory::gm_io::load_elem(p) };
        // The sanitizer after the load (a flag read acquires what the value's writer released
        // before its store: see `set_value`).
        std::sync::atomic::fence(std::sync::atomic::Ordering::Acquire);
        self.san_scalar("GlobalTensor::GetValue", i, Some(v));
        v
    }

    /// [`GlobalTensor::set_value`] of an [`Element`] tensor.
    #[track_caller]
    pub(crate) fn elem_set(&self, i: usize, v: T) {
        let p = self.elem_ptr("GlobalTensor::SetValue", i);
        self.san_scalar("GlobalTensor::SetValue", i, None);
        std::sync::atomic::fence(std::sync::atomic::Ordering::Release);
        // SAFETY: as in `get_value`.
        unsafe { crate::memory::gm_io::store_elem(p, v) }
    }

    /// The sanitizer's hook of a scalar access of element `i`: a write, or a read that found
    /// `found` (a read that makes the core's flag reads a poll blocks in it until another core
    /// changes a polled flag: see the sanitizer's `Poll`).
    #[track_caller]
    #[inline]
    fn san_scalar(&self, api: &'static str, i: usize, found: Option<T>) {
        let write = found.is_none();
        let (base, off) = self.san_loc();
        let at = off + i * T::SIZE;
        let found = found.as_ref().zip(self.region.as_deref());
        crate::observe::events::on_scalar_gm(api, base, at, at + T::SIZE, write, found);
    }

    #[track_caller]
    fn elem_ptr(&self, api: &'static str, i: usize) -> *mut T {
        crate::kernel::ctx::check_cancel();
        // Unbound first: an unbound tensor has 0 elements, but "not bound" is the error.
        let base = self.base_ptr(api);
        ensure(i < self.len, api, || {
            format!("index = {i} is out of range: the tensor has {} elements", self.len)
        });
        // SAFETY: i < len and the bound range lies inside the region.
        unsafe { base.add(i) }
    }
}
