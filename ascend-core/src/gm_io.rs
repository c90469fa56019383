//! Race-free access to global memory.
//!
//! Every core of a launch (and the host, through `GmBuffer`) may touch the same global memory
//! at once, as on the chip. A racy kernel must give racy *values*, never undefined behaviour,
//! so global memory is only ever read and written through relaxed atomic operations, in the
//! manner of the `atomic-memcpy` crate but with one access size everywhere: every access is
//! an `AtomicU64` operation on an 8-byte aligned word of the region.
//!
//! - Rust's memory model (C++20's) makes racing atomic accesses well defined; racing
//!   *mixed-size* atomic accesses are not, so no access of another size is ever made: a
//!   partial word is read by loading the whole word, and written by a compare-exchange loop
//!   on the whole word (which also keeps two cores' writes to different bytes of one word
//!   from losing each other's bytes).
//! - A region's allocation is 16-byte aligned and its size rounded up to a multiple of 8, so
//!   the word holding any byte of the region lies inside the allocation.
//! - Relaxed ordering is enough: cross-core ordering comes from `sync_all` (a mutex and a
//!   condition variable, which synchronise) and from the launch's start and end (thread
//!   spawn / join or the worker hand-off, likewise).
//!
//! Relaxed 64-bit loads and stores compile to plain moves on x86-64 and AArch64; the cost is
//! that a copy moves 8 bytes per instruction instead of a vectorised `memcpy`'s 32 or 64.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::element::Element;

const W: usize = 8;

/// The atomic word at `addr` (8-byte aligned).
///
/// # Safety
/// `addr` is 8-byte aligned and the word lies inside a live global-memory allocation, which is
/// only ever accessed through this module.
#[inline(always)]
unsafe fn word<'a>(addr: usize) -> &'a AtomicU64 {
    // SAFETY: aligned, live, and only accessed atomically (caller's contract).
    unsafe { &*(addr as *const AtomicU64) }
}

/// Replaces bytes `shift..shift + src.len()` of the word at `addr` with `src`, atomically.
///
/// # Safety
/// As [`word`]; `shift + len <= 8`, `src` valid for `len` reads.
#[inline]
unsafe fn merge(addr: usize, shift: usize, src: *const u8, len: usize) {
    // SAFETY: caller's contract.
    let w = unsafe { word(addr) };
    let mut old = w.load(Relaxed);
    loop {
        let mut bytes = old.to_ne_bytes();
        // SAFETY: `shift + len <= 8`; `src` is valid for `len` reads and is not the stack copy.
        unsafe { std::ptr::copy_nonoverlapping(src, bytes.as_mut_ptr().add(shift), len) };
        match w.compare_exchange_weak(old, u64::from_ne_bytes(bytes), Relaxed, Relaxed) {
            Ok(_) => return,
            Err(now) => old = now,
        }
    }
}

/// Splits `[a, a + len)` into a head inside one word, whole words, and a tail inside one word:
/// `(head_len, words, tail_len)`.
#[inline(always)]
fn split(a: usize, len: usize) -> (usize, usize, usize) {
    let head = ((W - a % W) % W).min(len);
    let words = (len - head) / W;
    (head, words, len - head - words * W)
}

/// Copies `len` bytes from global memory at `gm` to the plain memory at `dst`.
///
/// # Safety
/// `[gm, gm + len)` lies inside a live global-memory region (see the module doc); `dst` is
/// valid for `len` writes and is not global memory.
pub(crate) unsafe fn load(dst: *mut u8, gm: *const u8, len: usize) {
    let a = gm as usize;
    let (head, words, tail) = split(a, len);
    // SAFETY: every word touched holds a byte of `[gm, gm + len)`, so it lies inside the
    // region (module doc); `dst` has `len` bytes to write; the stack arrays `v` hold
    // 8 >= shift + n bytes.
    unsafe {
        if head > 0 {
            let base = a & !(W - 1);
            let v = word(base).load(Relaxed).to_ne_bytes();
            std::ptr::copy_nonoverlapping(v.as_ptr().add(a - base), dst, head);
        }
        let src = (a + head) as *const AtomicU64;
        let d = dst.add(head);
        for i in 0..words {
            let v = (*src.add(i)).load(Relaxed);
            d.add(i * W).cast::<u64>().write_unaligned(v);
        }
        if tail > 0 {
            let v = (*src.add(words)).load(Relaxed).to_ne_bytes();
            std::ptr::copy_nonoverlapping(v.as_ptr(), d.add(words * W), tail);
        }
    }
}

/// Copies `len` bytes from the plain memory at `src` to global memory at `gm`.
///
/// # Safety
/// `[gm, gm + len)` lies inside a live global-memory region (see the module doc); `src` is
/// valid for `len` reads and is not global memory.
pub(crate) unsafe fn store(gm: *mut u8, src: *const u8, len: usize) {
    let a = gm as usize;
    let (head, words, tail) = split(a, len);
    // SAFETY: as in `load`, with `src` valid for `len` reads.
    unsafe {
        if head > 0 {
            let base = a & !(W - 1);
            merge(base, a - base, src, head);
        }
        let dst = (a + head) as *const AtomicU64;
        let s = src.add(head);
        for i in 0..words {
            (*dst.add(i)).store(s.add(i * W).cast::<u64>().read_unaligned(), Relaxed);
        }
        if tail > 0 {
            merge(dst.add(words) as usize, 0, s.add(words * W), tail);
        }
    }
}

/// Reads one element of global memory.
///
/// # Safety
/// `p` is aligned for `T` and the element lies inside a live global-memory region.
#[inline]
pub(crate) unsafe fn load_elem<T: Element>(p: *const T) -> T {
    let mut v = T::ZERO;
    // SAFETY: caller's contract; `v` is a distinct stack value of `T::SIZE` bytes.
    unsafe { load((&mut v as *mut T).cast(), p.cast(), T::SIZE) };
    v
}

/// Writes one element of global memory.
///
/// # Safety
/// `p` is aligned for `T` and the element lies inside a live global-memory region.
#[inline]
pub(crate) unsafe fn store_elem<T: Element>(p: *mut T, v: T) {
    // SAFETY: caller's contract; `v` is a distinct stack value of `T::SIZE` bytes.
    unsafe { store(p.cast(), (&v as *const T).cast(), T::SIZE) };
}

/// Replaces the element at `p` with `f(old)` atomically (a compare-exchange loop on the word
/// holding it): the read-modify-write behind `SetAtomicAdd` / `Max` / `Min`.
///
/// # Safety
/// `p` is aligned for `T` and the element lies inside a live global-memory region.
#[inline]
pub(crate) unsafe fn update_elem<T: Element>(p: *mut T, f: impl Fn(T) -> T) {
    let a = p as usize;
    let base = a & !(W - 1);
    let shift = a - base;
    // SAFETY: an element aligned to its size (at most 8) never crosses a word, and its word
    // lies inside the region (module doc).
    let w = unsafe { word(base) };
    let mut old = w.load(Relaxed);
    loop {
        let mut bytes = old.to_ne_bytes();
        let cur: T = bytemuck::pod_read_unaligned(&bytes[shift..shift + T::SIZE]);
        bytes[shift..shift + T::SIZE].copy_from_slice(bytemuck::bytes_of(&f(cur)));
        match w.compare_exchange_weak(old, u64::from_ne_bytes(bytes), Relaxed, Relaxed) {
            Ok(_) => return,
            Err(now) => old = now,
        }
    }
}
