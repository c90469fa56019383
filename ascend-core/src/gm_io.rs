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

/// Copies `len` bytes from global memory at `gm` to the plain memory at `dst`.
///
/// # Safety
/// `[gm, gm + len)` lies inside a live global-memory region (see the module doc); `dst` is
/// valid for `len` writes and is not global memory.
pub(crate) unsafe fn load(dst: *mut u8, gm: *const u8, len: usize) {
    let mut a = gm as usize;
    let end = a + len;
    let mut d = dst;
    while a < end {
        let base = a & !(W - 1);
        let shift = a - base;
        let n = (W - shift).min(end - a);
        // SAFETY: the word holding byte `a` lies inside the region (module doc).
        let v = unsafe { word(base) }.load(Relaxed).to_ne_bytes();
        // SAFETY: `d` has `n` bytes left to write; `v` is a stack array of 8 >= shift + n bytes.
        unsafe {
            if n == W {
                d.cast::<[u8; W]>().write_unaligned(v);
            } else {
                std::ptr::copy_nonoverlapping(v.as_ptr().add(shift), d, n);
            }
            d = d.add(n);
        }
        a += n;
    }
}

/// Copies `len` bytes from the plain memory at `src` to global memory at `gm`.
///
/// # Safety
/// `[gm, gm + len)` lies inside a live global-memory region (see the module doc); `src` is
/// valid for `len` reads and is not global memory.
pub(crate) unsafe fn store(gm: *mut u8, src: *const u8, len: usize) {
    let mut a = gm as usize;
    let end = a + len;
    let mut s = src;
    while a < end {
        let base = a & !(W - 1);
        let shift = a - base;
        let n = (W - shift).min(end - a);
        // SAFETY: the word holding byte `a` lies inside the region; `s` has `n` bytes left.
        unsafe {
            if n == W {
                word(base).store(u64::from_ne_bytes(s.cast::<[u8; W]>().read_unaligned()), Relaxed);
            } else {
                merge(base, shift, s, n);
            }
            s = s.add(n);
        }
        a += n;
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
