//! Race-free access to global memory.
//!
//! Every core of a launch (and the host, through `GmBuffer`) may touch the same global memory
//! at once, as on the chip. A racy kernel must give racy *values*, never undefined behaviour.
//!
//! # What a copy needs: byte-wise atomicity
//!
//! Races between cores are already errors (the sanitizer reports them) or declared atomic
//! (`SetAtomicAdd` and the other GM atomics, which go through [`update_elem`]). What the
//! copies themselves need is only that a race cannot be undefined behaviour: every byte of
//! the range is read (or written) exactly once, by an access the compiler can neither tear,
//! repeat nor invent. That is the *byte-wise atomic memcpy* of the C++ proposal P1478
//! (`atomic_load_per_byte_memcpy` / `atomic_store_per_byte_memcpy`) and of the
//! `atomic-memcpy` crate: a copy behaves as a sequence of relaxed atomic accesses of its
//! bytes, in no particular order.
//!
//! Rust's memory model (C++20's) defines racing atomic accesses but not racing atomic
//! accesses of *different sizes*, so in Rust terms every access here is one of the same size:
//! a relaxed `AtomicU64` operation on the 8-byte aligned word holding the bytes.
//!
//! - The portable path moves whole words with relaxed `AtomicU64` loads and stores; a partial
//!   word is read by loading the whole word, and written by a compare-exchange loop on it
//!   ([`merge`]), which keeps two cores' writes to different bytes of one word from losing
//!   each other's bytes.
//! - A region's allocation is 16-byte aligned and its size rounded up to a multiple of 8, so
//!   the word holding any byte of the region lies inside the allocation.
//! - Relaxed ordering is enough: cross-core ordering comes from `sync_all` (a mutex and a
//!   condition variable, which synchronise) and from the launch's start and end (thread
//!   spawn / join or the worker hand-off, likewise).
//!
//! Inline assembly is opaque to the compiler, and it is sound when its effect is one that
//! Rust code could have had. A machine access that reads a byte once is what a relaxed
//! `AtomicU64` load of the byte's word, keeping that byte, does; one that writes a byte once
//! is what [`merge`]'s compare-exchange of that byte into its word does. So *any* instruction
//! sequence that reads or writes each byte of the range once — `rep movsb`, 32- or 64-byte
//! vector moves, aligned or not — is sound for global memory, and the choice among them is
//! one of speed. x86 and AArch64 never tear an access below a byte.
//!
//! This module gives more than that: an aligned 8-byte word (a `u64` / `f64` element) is
//! never torn, on any path — the fast paths below use only accesses that their architecture
//! guarantees atomic per 8-byte word.
//!
//! # The fast path: 16-byte vector moves
//!
//! Relaxed 64-bit loads and stores compile to plain moves, but LLVM never merges atomics, so
//! the portable word loop moves 8 bytes per instruction. [`load`] and [`store`] of at least
//! [`FAST_MIN`] bytes copy the 16-byte aligned middle of the global-memory range with an
//! inline-assembly loop of 16-byte vector moves (four per iteration), and only the partial
//! blocks at either end take the word path:
//!
//! - x86-64, when the CPU enumerates AVX: aligned `vmovdqa` on the global side, `vmovdqu` on
//!   the plain side. Intel (SDM vol. 3, 9.1.1 "guaranteed atomic operations") and AMD (APM
//!   vol. 2, 7.3.2 "access atomicity") guarantee that every processor enumerating AVX
//!   performs a 16-byte aligned `vmovdqa` of cacheable memory as one atomic access (LLVM
//!   lowers 128-bit atomic loads and stores to it on such targets): two relaxed `AtomicU64`
//!   accesses of its words, and never a torn word. Neither vendor promises anything per word
//!   for 32-byte (`ymm`) moves, and byte-wise atomicity would allow them, but they measure
//!   no faster (below).
//! - AArch64: `LDP`/`STP` of `Q` registers, 16-byte aligned on the global side. The Arm ARM
//!   (B2.2.1, "single-copy atomicity") treats a read or write of a 128-bit SIMD&FP register
//!   that is 64-bit aligned as a pair of single-copy atomic 64-bit accesses.
//! - The assembly touches only whole 16-byte blocks inside `[gm, gm + len)` on the global
//!   side and the matching bytes on the plain side (a Rust buffer, never global memory), does
//!   not use the stack, and declares the registers it clobbers.
//!
//! Other architectures, x86-64 CPUs without AVX, Miri, and copies shorter than [`FAST_MIN`]
//! take the portable word path.
//!
//! # Speed
//!
//! Measured on the reference machine (AMD EPYC, Zen 1, 2 cores; best of many 16 KiB copies,
//! alternating), against glibc's `memcpy` (`__memmove_avx_unaligned_erms`): the 16-byte loop
//! runs at 0.98–1.00 of `memcpy` with the global side in L2 and 0.99–1.08 streaming from
//! DRAM, either direction; a 32-byte `ymm` loop at 0.98–1.06; `rep movsb` at 0.90–0.92 in
//! L2 (Zen 1 has no fast short `rep movsb`). A copy bound by the memory is bound by it
//! whatever the width of the moves, and Zen 1 splits a 32-byte move into two 16-byte ones.
//! On chips with 32- or 64-byte load/store paths a wider loop may win in cache; byte-wise
//! atomicity allows it (above), at the price of the per-word guarantee. The benchmark's "bulk GM copy" rows (`examples/bench.rs`) measure
//! the public path (`GmRegion::read_bytes` / `write_bytes`, as `DataCopy` uses it) against
//! `memcpy` and must stay at 0.9 or above.

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

/// Copies of at least this many bytes take the 16-byte fast path where it exists (module doc).
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
const FAST_MIN: usize = 48;

/// Splits `[a, a + len)` (with `len >= 15`) into the bytes before the first 16-byte aligned
/// address, whole 16-byte blocks, and the bytes after them: `(head_len, blocks, tail_len)`.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
#[inline(always)]
fn split16(a: usize, len: usize) -> (usize, usize, usize) {
    let head = a.wrapping_neg() % 16;
    let blocks = (len - head) / 16;
    (head, blocks, len - head - blocks * 16)
}

/// Copies `len` bytes from global memory at `gm` to the plain memory at `dst`.
///
/// # Safety
/// `[gm, gm + len)` lies inside a live global-memory region (see the module doc); `dst` is
/// valid for `len` writes and is not global memory.
pub(crate) unsafe fn load(dst: *mut u8, gm: *const u8, len: usize) {
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
    if len >= FAST_MIN && fast::wide_atomic() {
        let (head, blocks, tail) = split16(gm as usize, len);
        let mid = head + blocks * 16;
        // SAFETY: the three pieces partition `[gm, gm + len)` and `[dst, dst + len)` (caller's
        // contract); the middle starts 16-byte aligned and the CPU has AVX (checked above).
        // The edges are usually empty (aligned tiles): skip their calls then.
        unsafe {
            if head > 0 {
                load_words(dst, gm, head);
            }
            fast::load_blocks(dst.add(head), gm.add(head), blocks);
            if tail > 0 {
                load_words(dst.add(mid), gm.add(mid), tail);
            }
        }
        return;
    }
    // SAFETY: caller's contract.
    unsafe { load_words(dst, gm, len) }
}

/// Copies `len` bytes from the plain memory at `src` to global memory at `gm`.
///
/// # Safety
/// `[gm, gm + len)` lies inside a live global-memory region (see the module doc); `src` is
/// valid for `len` reads and is not global memory.
pub(crate) unsafe fn store(gm: *mut u8, src: *const u8, len: usize) {
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
    if len >= FAST_MIN && fast::wide_atomic() {
        let (head, blocks, tail) = split16(gm as usize, len);
        let mid = head + blocks * 16;
        // SAFETY: as in `load`, with `src` valid for `len` reads.
        unsafe {
            if head > 0 {
                store_words(gm, src, head);
            }
            fast::store_blocks(gm.add(head), src.add(head), blocks);
            if tail > 0 {
                store_words(gm.add(mid), src.add(mid), tail);
            }
        }
        return;
    }
    // SAFETY: caller's contract.
    unsafe { store_words(gm, src, len) }
}

/// The 16-byte vector copy loops of the fast path on x86-64 (module doc).
#[cfg(all(target_arch = "x86_64", not(miri)))]
use x86 as fast;

/// The 16-byte vector copy loops of the fast path on AArch64 (module doc).
#[cfg(all(target_arch = "aarch64", not(miri)))]
use arm as fast;

/// The 16-byte vector copy loops of the fast path on x86-64 (module doc).
#[cfg(all(target_arch = "x86_64", not(miri)))]
mod x86 {
    use std::arch::asm;

    /// Whether the CPU enumerates AVX, so that its 16-byte aligned vector moves are atomic
    /// (module doc). `std` caches the CPUID result: one relaxed load per call.
    #[inline(always)]
    pub(super) fn wide_atomic() -> bool {
        std::arch::is_x86_feature_detected!("avx")
    }

    /// Copies `blocks` 16-byte blocks from global memory at `gm` to plain memory at `dst`.
    ///
    /// # Safety
    /// The CPU has AVX; `gm` is 16-byte aligned and `[gm, gm + 16 * blocks)` lies inside a live
    /// global-memory region; `dst` is valid for `16 * blocks` writes and is not global memory.
    #[target_feature(enable = "avx")]
    pub(super) unsafe fn load_blocks(dst: *mut u8, gm: *const u8, blocks: usize) {
        // SAFETY: every global-memory access is an aligned 16-byte `vmovdqa` inside the range,
        // atomic on AVX processors and so equivalent to two relaxed `AtomicU64` loads of its
        // words (module doc); every plain-memory access is a `vmovdqu` inside `dst`'s
        // `16 * blocks` bytes. No stack use; the clobbered registers are declared.
        unsafe {
            asm!(
                "test {n4}, {n4}",
                "jz 3f",
                "2:",
                "vmovdqa xmm0, xmmword ptr [{s}]",
                "vmovdqa xmm1, xmmword ptr [{s} + 16]",
                "vmovdqa xmm2, xmmword ptr [{s} + 32]",
                "vmovdqa xmm3, xmmword ptr [{s} + 48]",
                "vmovdqu xmmword ptr [{d}], xmm0",
                "vmovdqu xmmword ptr [{d} + 16], xmm1",
                "vmovdqu xmmword ptr [{d} + 32], xmm2",
                "vmovdqu xmmword ptr [{d} + 48], xmm3",
                "add {s}, 64",
                "add {d}, 64",
                "dec {n4}",
                "jnz 2b",
                "3:",
                "test {n1}, {n1}",
                "jz 5f",
                "4:",
                "vmovdqa xmm0, xmmword ptr [{s}]",
                "vmovdqu xmmword ptr [{d}], xmm0",
                "add {s}, 16",
                "add {d}, 16",
                "dec {n1}",
                "jnz 4b",
                "5:",
                s = inout(reg) gm => _,
                d = inout(reg) dst => _,
                n4 = inout(reg) blocks / 4 => _,
                n1 = inout(reg) blocks % 4 => _,
                out("xmm0") _,
                out("xmm1") _,
                out("xmm2") _,
                out("xmm3") _,
                options(nostack),
            );
        }
    }

    /// Copies `blocks` 16-byte blocks from plain memory at `src` to global memory at `gm`.
    ///
    /// # Safety
    /// The CPU has AVX; `gm` is 16-byte aligned and `[gm, gm + 16 * blocks)` lies inside a live
    /// global-memory region; `src` is valid for `16 * blocks` reads and is not global memory.
    #[target_feature(enable = "avx")]
    pub(super) unsafe fn store_blocks(gm: *mut u8, src: *const u8, blocks: usize) {
        // SAFETY: as in `load_blocks`, with aligned 16-byte `vmovdqa` stores (two relaxed
        // `AtomicU64` stores each) to global memory and `vmovdqu` loads from `src`.
        unsafe {
            asm!(
                "test {n4}, {n4}",
                "jz 3f",
                "2:",
                "vmovdqu xmm0, xmmword ptr [{s}]",
                "vmovdqu xmm1, xmmword ptr [{s} + 16]",
                "vmovdqu xmm2, xmmword ptr [{s} + 32]",
                "vmovdqu xmm3, xmmword ptr [{s} + 48]",
                "vmovdqa xmmword ptr [{d}], xmm0",
                "vmovdqa xmmword ptr [{d} + 16], xmm1",
                "vmovdqa xmmword ptr [{d} + 32], xmm2",
                "vmovdqa xmmword ptr [{d} + 48], xmm3",
                "add {s}, 64",
                "add {d}, 64",
                "dec {n4}",
                "jnz 2b",
                "3:",
                "test {n1}, {n1}",
                "jz 5f",
                "4:",
                "vmovdqu xmm0, xmmword ptr [{s}]",
                "vmovdqa xmmword ptr [{d}], xmm0",
                "add {s}, 16",
                "add {d}, 16",
                "dec {n1}",
                "jnz 4b",
                "5:",
                s = inout(reg) src => _,
                d = inout(reg) gm => _,
                n4 = inout(reg) blocks / 4 => _,
                n1 = inout(reg) blocks % 4 => _,
                out("xmm0") _,
                out("xmm1") _,
                out("xmm2") _,
                out("xmm3") _,
                options(nostack),
            );
        }
    }
}

/// The 16-byte vector copy loops of the fast path on AArch64 (module doc).
#[cfg(all(target_arch = "aarch64", not(miri)))]
mod arm {
    use std::arch::asm;

    /// Every AArch64 processor reads and writes a 64-bit aligned 128-bit SIMD&FP register as
    /// two single-copy atomic 64-bit accesses (module doc).
    #[inline(always)]
    pub(super) fn wide_atomic() -> bool {
        true
    }

    /// Copies `blocks` 16-byte blocks from `src` to `dst` with `LDP`/`STP` of `Q` registers,
    /// 64 bytes per iteration.
    ///
    /// # Safety
    /// The global-memory side (`src` or `dst`) is 16-byte aligned and `16 * blocks` bytes of it
    /// lie inside a live global-memory region; the other side is plain memory (not global
    /// memory) valid for `16 * blocks` accesses.
    #[inline]
    unsafe fn copy_blocks(dst: *mut u8, src: *const u8, blocks: usize) {
        // SAFETY: every access is a 16-byte `Q` register load or store inside the two ranges
        // (caller's contract); on the global-memory side it is 16-byte aligned, so a pair of
        // single-copy atomic 64-bit accesses, the same as two relaxed `AtomicU64` accesses of
        // its words (module doc). No stack use; the clobbered registers (and flags) are
        // declared.
        unsafe {
            asm!(
                "cbz {n4}, 3f",
                "2:",
                "ldp q0, q1, [{s}]",
                "ldp q2, q3, [{s}, #32]",
                "add {s}, {s}, #64",
                "stp q0, q1, [{d}]",
                "stp q2, q3, [{d}, #32]",
                "add {d}, {d}, #64",
                "subs {n4}, {n4}, #1",
                "b.ne 2b",
                "3:",
                "cbz {n1}, 5f",
                "4:",
                "ldr q0, [{s}], #16",
                "str q0, [{d}], #16",
                "subs {n1}, {n1}, #1",
                "b.ne 4b",
                "5:",
                s = inout(reg) src => _,
                d = inout(reg) dst => _,
                n4 = inout(reg) blocks / 4 => _,
                n1 = inout(reg) blocks % 4 => _,
                out("v0") _,
                out("v1") _,
                out("v2") _,
                out("v3") _,
                options(nostack),
            );
        }
    }

    /// Copies `blocks` 16-byte blocks from global memory at `gm` (16-byte aligned) to plain
    /// memory at `dst`.
    ///
    /// # Safety
    /// As [`copy_blocks`], with `gm` the global-memory side.
    pub(super) unsafe fn load_blocks(dst: *mut u8, gm: *const u8, blocks: usize) {
        // SAFETY: caller's contract.
        unsafe { copy_blocks(dst, gm, blocks) }
    }

    /// Copies `blocks` 16-byte blocks from plain memory at `src` to global memory at `gm`
    /// (16-byte aligned).
    ///
    /// # Safety
    /// As [`copy_blocks`], with `gm` the global-memory side.
    pub(super) unsafe fn store_blocks(gm: *mut u8, src: *const u8, blocks: usize) {
        // SAFETY: caller's contract.
        unsafe { copy_blocks(gm, src, blocks) }
    }
}

/// The portable path of [`load`]: word by word.
///
/// # Safety
/// As [`load`].
unsafe fn load_words(dst: *mut u8, gm: *const u8, len: usize) {
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

/// The portable path of [`store`]: word by word.
///
/// # Safety
/// As [`store`].
unsafe fn store_words(gm: *mut u8, src: *const u8, len: usize) {
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
    unsafe { load_words((&mut v as *mut T).cast(), p.cast(), T::SIZE) };
    v
}

/// Writes one element of global memory.
///
/// # Safety
/// `p` is aligned for `T` and the element lies inside a live global-memory region.
#[inline]
pub(crate) unsafe fn store_elem<T: Element>(p: *mut T, v: T) {
    // SAFETY: caller's contract; `v` is a distinct stack value of `T::SIZE` bytes.
    unsafe { store_words(p.cast(), (&v as *const T).cast(), T::SIZE) };
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in global-memory region: 16-byte aligned, a whole number of words.
    struct Region(Vec<u128>);

    impl Region {
        fn new(bytes: usize) -> Region {
            Region(vec![0; bytes.div_ceil(16)])
        }
        fn ptr(&mut self) -> *mut u8 {
            self.0.as_mut_ptr().cast()
        }
        fn fill(&mut self, f: impl Fn(usize) -> u8) {
            let n = self.0.len() * 16;
            let p = self.ptr();
            for i in 0..n {
                // SAFETY: inside the allocation; no other thread sees it.
                unsafe { p.add(i).write(f(i)) };
            }
        }
        fn bytes(&mut self) -> Vec<u8> {
            let n = self.0.len() * 16;
            // SAFETY: the whole allocation, initialised; no other thread sees it.
            unsafe { std::slice::from_raw_parts(self.ptr(), n).to_vec() }
        }
    }

    const GM: usize = 256;
    const PLAIN: usize = 256;
    // Lengths past 64 cover the unrolled 64-byte loop with every count of leftover blocks.
    const MAX_LEN: usize = 160;
    const PLAIN_OFFS: [usize; 5] = [0, 1, 7, 8, 13];

    fn pat_gm(i: usize) -> u8 {
        (i * 7 + 3) as u8
    }
    fn pat_plain(i: usize) -> u8 {
        (i * 13 + 101) as u8 ^ 0x5a
    }

    type Load = unsafe fn(*mut u8, *const u8, usize);
    type Store = unsafe fn(*mut u8, *const u8, usize);

    fn check_load(f: Load) {
        let mut gm = Region::new(GM);
        gm.fill(pat_gm);
        for off in 0..32 {
            for doff in PLAIN_OFFS {
                for len in 0..=MAX_LEN {
                    let mut out: Vec<u8> = (0..PLAIN).map(pat_plain).collect();
                    let mut want = out.clone();
                    want[doff..doff + len].copy_from_slice(&gm.bytes()[off..off + len]);
                    // SAFETY: both ranges are inside their buffers; `out` is not `gm`.
                    unsafe { f(out.as_mut_ptr().add(doff), gm.ptr().add(off), len) };
                    assert_eq!(out, want, "load: gm offset {off}, plain offset {doff}, {len} bytes");
                }
            }
        }
    }

    fn check_store(f: Store) {
        let mut gm = Region::new(GM);
        let src: Vec<u8> = (0..PLAIN).map(pat_plain).collect();
        for off in 0..32 {
            for soff in PLAIN_OFFS {
                for len in 0..=MAX_LEN {
                    gm.fill(pat_gm);
                    let mut want = gm.bytes();
                    want[off..off + len].copy_from_slice(&src[soff..soff + len]);
                    // SAFETY: both ranges are inside their buffers; `src` is not `gm`.
                    unsafe { f(gm.ptr().add(off), src.as_ptr().add(soff), len) };
                    assert_eq!(gm.bytes(), want, "store: gm offset {off}, plain offset {soff}, {len} bytes");
                }
            }
        }
    }

    #[test]
    fn load_matches_a_plain_copy_at_every_alignment_and_length() {
        check_load(load);
        check_load(load_words);
    }

    #[test]
    fn store_matches_a_plain_copy_at_every_alignment_and_length() {
        check_store(store);
        check_store(store_words);
    }

    /// While one thread stores whole buffers of all-zero or all-one words, another loads them:
    /// every 8-byte word it sees must be all zeros or all ones (a word is never torn), on
    /// whichever path (fast or portable) this CPU takes.
    #[test]
    fn racing_bulk_copies_never_tear_a_word() {
        const N: usize = 4096;
        let mut gm = Region::new(N);
        let base = gm.ptr() as usize;
        let stop = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|s| {
            s.spawn(|| {
                let bufs = [vec![0u8; N], vec![0xffu8; N]];
                for i in 0..2000 {
                    // SAFETY: the region's whole range; only accessed through this module.
                    unsafe { store(base as *mut u8, bufs[i % 2].as_ptr(), N) };
                }
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
            });
            let mut out = vec![0u8; N];
            loop {
                let last = stop.load(std::sync::atomic::Ordering::Relaxed);
                // SAFETY: as above; `out` is a distinct buffer.
                unsafe { load(out.as_mut_ptr(), base as *const u8, N) };
                for (i, w) in out.chunks_exact(8).enumerate() {
                    assert!(w == [0; 8] || w == [0xff; 8], "word {i} torn: {w:?}");
                }
                if last {
                    break;
                }
            }
        });
    }
}
