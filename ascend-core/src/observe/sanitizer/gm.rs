//! The cross-core check: every core logs its global-memory accesses (coalesced byte ranges,
//! with the core, its phase — see below —, the API and the source line); after the launch the
//! logs are swept per region and `SyncAll` epoch for two cores touching the same bytes, at
//! least one writing, not both atomically, and neither ordered before the other by the
//! flag-based primitives (`IBSet`/`IBWait`, `NotifyNextBlock`/`WaitPreBlock`).
//!
//! **Phases.** A core's phase counts its `SyncAll`s and its cross-core releases and acquires;
//! each phase has the core's epoch and its cross-core vector clock (by core: how many of that
//! core's phases are known to have ended before this one). An access of core A in phase `p`
//! happens before an access of core B in the same epoch whose phase's clock has `[A] > p`.

use std::panic::Location;

use crate::element::BLOCK_BYTES;

/// One logged GM access (a coalesced run of calls from one source line).
#[derive(Clone, Copy, Debug)]
pub(crate) struct GmAcc {
    /// The region, by the address of its first byte.
    pub region: usize,
    /// Byte range, relative to the region.
    pub s: usize,
    pub e: usize,
    pub write: bool,
    /// A DMA write of whole 32-byte blocks (`DataCopy` to GM). A `DataCopyPad` to GM writes
    /// exactly its `blockLen` bytes a row and is logged without this flag.
    pub dma: bool,
    /// A scalar write through the core's data cache (`GlobalTensor::SetValue`): the cache
    /// writes back its whole 64-byte line (see [`LINE_BYTES`]).
    pub line: bool,
    /// Written in an atomic mode (`SetAtomicAdd` …), or a flag access that is no race: through
    /// the DCache-bypassing calls, a scalar read of a line the core had just invalidated
    /// (`DataCacheCleanAndInvalid`), a scalar write it then cleaned.
    pub atomic: bool,
    /// A plain write of `InitGlobalMemory`: the byte pattern it repeats (value bits and
    /// size, one byte when they are all equal). Two such writes of one pattern put the same
    /// bytes wherever they overlap, whichever lands last: no race with each other.
    pub fill: Option<u64>,
    /// A plain DMA write's hash of the bytes it wrote ([`hash_bytes`] of its source, combined
    /// over the calls its entry coalesces), 0 when unknown: two cores' writes of one range with
    /// one hash leave the same bytes whichever lands last, so they are no race.
    pub hash: u64,
    pub epoch: u32,
    /// The core's phase at the access (see the module documentation).
    pub phase: u32,
    pub core: u32,
    pub api: &'static str,
    pub loc: &'static Location<'static>,
}

/// Bytes of a line of the scalar data cache. A scalar write stays in the writing core's cache
/// until the line is cleaned (`DataCacheCleanAndInvalid`) or evicted, and then the whole line
/// goes back to GM: two cores writing one line, even different bytes of it, overwrite each
/// other at random (the vendor's `DataCacheCleanAndInvalid` page, its example 3).
pub(crate) const LINE_BYTES: usize = 64;

/// `[s, e)` widened to whole units of `unit` bytes.
fn widen(s: usize, e: usize, unit: usize) -> (usize, usize) {
    (s / unit * unit, e.div_ceil(unit) * unit)
}

impl GmAcc {
    /// The widest range of bytes this access can clobber or observe: a DMA write covers the
    /// 32-byte blocks it touches, a scalar write through the data cache its 64-byte lines.
    fn conflict_range(&self) -> (usize, usize) {
        match (self.write, self.dma, self.line) {
            (true, true, _) => widen(self.s, self.e, BLOCK_BYTES),
            (true, _, true) => widen(self.s, self.e, LINE_BYTES),
            _ => (self.s, self.e),
        }
    }

    /// The bytes this access can clobber or observe as `other` sees them: a scalar write's
    /// line write-back clobbers only the bytes another core writes (the rest it writes back
    /// unchanged).
    fn range_against(&self, other: &GmAcc) -> (usize, usize) {
        if self.write && self.line && !other.write {
            (self.s, self.e)
        } else {
            self.conflict_range()
        }
    }

    /// Whether `self` and `other` overlap once DMA writes are widened to their 32-byte blocks
    /// (and nothing else is widened): what a message blames for the race.
    pub(crate) fn overlap_by_blocks(&self, other: &GmAcc) -> bool {
        let r = |x: &GmAcc| if x.write && x.dma { widen(x.s, x.e, BLOCK_BYTES) } else { (x.s, x.e) };
        let (a, b) = (r(self), r(other));
        a.0 < b.1 && b.0 < a.1
    }

    /// Whether `self` and `other` are plain DMA writes of one range with the same bytes (see
    /// [`GmAcc::hash`]).
    fn same_bytes(&self, other: &GmAcc) -> bool {
        let plain = |x: &GmAcc| x.write && x.dma && !x.line && !x.atomic;
        plain(self)
            && plain(other)
            && self.hash != 0
            && self.hash == other.hash
            && (self.s, self.e) == (other.s, other.e)
    }

    /// Whether `self` and `other` (another core's) touch common bytes in a way that can race:
    /// at least one writing, and not both atomic — but two scalar writes through two data
    /// caches into one line clobber each other however they were made.
    fn clashes(&self, other: &GmAcc) -> bool {
        let (a, b) = (self.range_against(other), other.range_against(self));
        let (lo, hi) = (a.0.max(b.0), a.1.min(b.1));
        // Two fills of one pattern put the same bytes everywhere they both reach when their
        // own bytes there are the same: inside both, the pattern; outside both, what the
        // block held (a DMA write's widening to whole blocks writes no pattern).
        let own = |x: &GmAcc| {
            let (s, e) = (x.s.max(lo), x.e.min(hi));
            if s < e {
                (s, e)
            } else {
                (0, 0)
            }
        };
        let same_fill = self.fill.is_some() && self.fill == other.fill && own(self) == own(other);
        let exempt = (self.atomic && other.atomic && !(self.write && self.line && other.write && other.line))
            || same_fill
            || self.same_bytes(other);
        (self.write || other.write) && !exempt && lo < hi
    }
}

/// One core's logged GM access while the core runs: [`GmAcc`] without the core, and with the
/// instruction's site (interned API and line) instead of the two pointers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GmRec {
    pub region: usize,
    pub s: usize,
    pub e: usize,
    /// The site, the phase and the flags, packed by [`GmRec::key`]: entries with equal
    /// region and key and touching ranges coalesce.
    pub key: u64,
    /// A plain DMA write's hash of its bytes (see [`GmAcc::hash`]), 0 when unknown.
    pub hash: u64,
}

/// [`GmRec::key`]'s flag of a scalar write through the data cache ([`GmAcc::line`]).
const LINE: u64 = 8;
/// [`GmRec::key`]'s flag of an atomic access ([`GmAcc::atomic`]).
pub(crate) const ATOMIC: u64 = 1;

impl GmRec {
    /// Packs what must be equal for two accesses to coalesce.
    #[inline(always)]
    pub(crate) fn key(site: u32, phase: u32, write: bool, dma: bool, atomic: bool) -> u64 {
        // Sites are below 2^28 (`Sites::insert` checks).
        (u64::from(phase) << 32)
            | (u64::from(site) << 4)
            | (u64::from(write) << 2)
            | (u64::from(dma) << 1)
            | u64::from(atomic)
    }

    /// [`key`](Self::key) of a scalar write through the data cache.
    pub(crate) fn line_write_key(site: u32, phase: u32) -> u64 {
        GmRec::key(site, phase, true, false, false) | LINE
    }

    pub(crate) fn site(&self) -> u32 {
        (self.key as u32) >> 4
    }

    pub(crate) fn line(&self) -> bool {
        self.key & LINE != 0
    }

    pub(crate) fn phase(&self) -> u32 {
        (self.key >> 32) as u32
    }

    pub(crate) fn write(&self) -> bool {
        self.key & 4 != 0
    }

    pub(crate) fn dma(&self) -> bool {
        self.key & 2 != 0
    }

    pub(crate) fn atomic(&self) -> bool {
        self.key & 1 != 0
    }

    /// Widens this entry by `a` when `a` continues or overlaps it (same region and key);
    /// whether it did.
    #[inline(always)]
    fn absorb(&mut self, a: &GmRec) -> bool {
        let joins = self.key == a.key && self.region == a.region && a.s <= self.e && a.e >= self.s;
        if joins {
            self.s = self.s.min(a.s);
            self.e = self.e.max(a.e);
            self.hash = combine(self.hash, a.hash);
        }
        joins
    }
}

/// One core's GM log: accesses coalesced per site, so a tile loop streaming through a
/// region keeps one entry per instruction site and region.
///
/// An open entry's hash is not a number yet: while it is open, its writes' bytes go into its
/// site's [`Lanes`] (one pass over the bytes, no finishing rounds per write), and its `hash`
/// field only says whether they are known ([`STREAMING`]) or not (0, for good: a write of
/// unknown bytes joined it). Closing the entry folds the lanes into its hash ([`Lanes::fold`]),
/// once per entry instead of once per write (issue 35: the per-write hash was a twentieth of a
/// 128-element-tile launch).
#[derive(Default)]
pub(crate) struct GmLog {
    /// Closed entries.
    recs: Vec<GmRec>,
    /// By site: the entry the site is extending (`region == 0`: none).
    open: Vec<GmRec>,
    /// By site: the hash lanes of its open entry (meaningful while that entry's `hash` is
    /// [`STREAMING`]).
    lanes: Vec<Lanes>,
}

const NO_RUN: GmRec = GmRec { region: 0, s: 0, e: 0, key: 0, hash: 0 };

/// An open entry's `hash` while its bytes are known and being hashed into its site's lanes.
const STREAMING: u64 = 1;

/// What a logged write wrote, for its entry's hash (see [`GmAcc::hash`]).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) enum HashSrc {
    /// Not known (a read, an atomic write, a `DataCopyPad`): the entry's hash becomes 0.
    #[default]
    Unknown,
    /// The `len` bytes at address `at` (the copy's source, valid while the hook runs).
    Bytes { at: usize, len: usize },
    /// A hash of the bytes ([`hash_bytes`]), for a copy of several rows, each logged as a
    /// write of the whole source's bytes.
    Word(u64),
}

/// The running hash of an open entry's writes: eight 16-byte lanes. Each write's bytes go in
/// in [`hash_aes`]'s stripes (with AES-NI: one AES round per 16-byte word, the word as its
/// round key, from lane 0 for each write), then the write's length into the last lane, so that one entry's hash depends
/// on every byte of every write, their order and their lengths; without AES-NI the lanes'
/// first eight words run [`hash_mul`]'s multiply steps. [`Lanes::fold`] finishes it as
/// [`hash_aes`] does. Two cores' entries get one hash when they wrote the same bytes by the
/// same sequence of writes (the exemption needs no more: another sequence is reported, as
/// before).
#[derive(Clone, Copy)]
#[repr(C, align(16))]
pub(crate) struct Lanes([u64; 16]);

impl Lanes {
    /// The lanes before any byte ([`hash_aes`]'s starting values).
    const INIT: Lanes = {
        let mut l = [0u64; 16];
        let mut j = 0;
        while j < 8 {
            l[2 * j] = !(j as u64);
            l[2 * j + 1] = j as u64 + 1;
            j += 1;
        }
        Lanes(l)
    };

    /// Takes in what a write wrote (not [`HashSrc::Unknown`]).
    ///
    /// # Safety
    /// For [`HashSrc::Bytes`], its `len` bytes at `at` must be valid for reads.
    #[inline(always)]
    unsafe fn feed(&mut self, src: HashSrc) {
        let (p, n, tag) = match src {
            HashSrc::Unknown => return,
            HashSrc::Bytes { at, len } => (at as *const u8, len, len as u64),
            HashSrc::Word(ref w) => (w as *const u64 as *const u8, 8, 8 | 1 << 63),
        };
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        if std::arch::is_x86_feature_detected!("aes") {
            // SAFETY: the CPU has AES-NI (checked above); the caller vouches for the bytes.
            return unsafe { self.feed_aes(p, n, tag) };
        }
        // SAFETY: the caller's contract.
        unsafe { self.feed_mul(p, n, tag) }
    }

    /// [`feed`](Self::feed) with AES-NI: each 16-byte word `w` of a lane's stripe taken in as
    /// the round key of one AES round, `lane = AESENC(lane, w)` (the round's output XOR `w`:
    /// the word goes through the next round, or the fold's; one instruction per word). The
    /// last stripe's words (and the zero-padded last 0–15 bytes) go into lanes 0, 1, … with the
    /// lanes' indices known at compile time, so the lanes stay in registers.
    ///
    /// A source on a 16-byte boundary (every copy's: the Unified Buffer is 64-byte aligned and
    /// a copy's UB address 32-byte aligned) is read by aligned loads, which the compiler folds
    /// into the AES instruction's memory operand (one instruction per word, not a load and a
    /// round); a length that is not a multiple of 128 ends out of line
    /// ([`feed_aes_tail`](Self::feed_aes_tail)), so the common path calls nothing and saves no
    /// register.
    ///
    /// # Safety
    /// The CPU has AES-NI; `p` must be valid for `n` bytes of reads.
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    #[target_feature(enable = "aes,sse2")]
    unsafe fn feed_aes(&mut self, p: *const u8, n: usize, tag: u64) {
        use std::arch::x86_64::{
            __m128i, _mm_aesenc_si128, _mm_load_si128, _mm_loadu_si128, _mm_set_epi64x, _mm_store_si128,
            _mm_xor_si128,
        };
        let k = _mm_set_epi64x(0x9E37_79B9_7F4A_7C15_u64 as i64, 0xC2B2_AE3D_27D4_EB4F_u64 as i64);
        let base = self.0.as_mut_ptr().cast::<__m128i>();
        // SAFETY: `self` is 128 bytes aligned to 16: eight aligned 16-byte lanes.
        let mut h: [__m128i; 8] = std::array::from_fn(|j| unsafe { _mm_load_si128(base.add(j)) });
        let full = n & !127;
        let mut i = 0;
        if p as usize % 16 == 0 {
            while i < full {
                for (j, lane) in h.iter_mut().enumerate() {
                    // SAFETY: `i + 16 * j + 16 <= full <= n`: inside the range the caller
                    // vouches for, and 16-byte aligned (`p` is, and `i + 16 * j` a multiple of 16).
                    *lane = _mm_aesenc_si128(*lane, unsafe { _mm_load_si128(p.add(i + 16 * j).cast()) });
                }
                i += 128;
            }
        } else {
            while i < full {
                for (j, lane) in h.iter_mut().enumerate() {
                    // SAFETY: `i + 16 * j + 16 <= full <= n`: inside the caller's range.
                    *lane = _mm_aesenc_si128(*lane, unsafe { _mm_loadu_si128(p.add(i + 16 * j).cast()) });
                }
                i += 128;
            }
        }
        if i < n {
            for (j, lane) in h.into_iter().enumerate() {
                // SAFETY: as the loads above.
                unsafe { _mm_store_si128(base.add(j), lane) };
            }
            // SAFETY: the caller's contract; `i < n`.
            return unsafe { self.feed_aes_tail(p, i, n, tag) };
        }
        h[7] = _mm_aesenc_si128(_mm_xor_si128(h[7], _mm_set_epi64x(tag as i64, 0x2545_F491_4F6C_DD1D)), k);
        for (j, lane) in h.into_iter().enumerate() {
            // SAFETY: as the loads above.
            unsafe { _mm_store_si128(base.add(j), lane) };
        }
    }

    /// The end of [`feed_aes`](Self::feed_aes) for a length that is not a multiple of 128:
    /// bytes `[i, n)` (less than a stripe) into lanes 0, 1, …, the last 0–15 zero-padded, then
    /// the tag. Out of line, so that the common path calls nothing and saves no register.
    ///
    /// # Safety
    /// As [`feed_aes`](Self::feed_aes); `i <= n`.
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    #[target_feature(enable = "aes,sse2")]
    #[cold]
    #[inline(never)]
    unsafe fn feed_aes_tail(&mut self, p: *const u8, mut i: usize, n: usize, tag: u64) {
        use std::arch::x86_64::{
            __m128i, _mm_aesenc_si128, _mm_load_si128, _mm_loadu_si128, _mm_set_epi64x, _mm_store_si128,
            _mm_xor_si128,
        };
        let k = _mm_set_epi64x(0x9E37_79B9_7F4A_7C15_u64 as i64, 0xC2B2_AE3D_27D4_EB4F_u64 as i64);
        let base = self.0.as_mut_ptr().cast::<__m128i>();
        // SAFETY: `self` is 128 bytes aligned to 16: eight aligned 16-byte lanes.
        let mut h: [__m128i; 8] = std::array::from_fn(|j| unsafe { _mm_load_si128(base.add(j)) });
        for lane in h.iter_mut() {
            let w = if i + 16 <= n {
                // SAFETY: `i + 16 <= n`.
                unsafe { _mm_loadu_si128(p.add(i).cast()) }
            } else if i < n {
                let mut last = [0u8; 16];
                // SAFETY: `[i, n)` is inside the caller's range; `last` holds `n - i < 16` bytes.
                unsafe { std::ptr::copy_nonoverlapping(p.add(i), last.as_mut_ptr(), n - i) };
                // SAFETY: `last` is 16 readable bytes.
                unsafe { _mm_loadu_si128(last.as_ptr().cast()) }
            } else {
                break;
            };
            *lane = _mm_aesenc_si128(*lane, w);
            i += 16;
        }
        h[7] = _mm_aesenc_si128(_mm_xor_si128(h[7], _mm_set_epi64x(tag as i64, 0x2545_F491_4F6C_DD1D)), k);
        for (j, lane) in h.into_iter().enumerate() {
            // SAFETY: as the loads above.
            unsafe { _mm_store_si128(base.add(j), lane) };
        }
    }

    /// [`feed`](Self::feed) without AES-NI: [`hash_mul`]'s steps on the first eight words.
    ///
    /// # Safety
    /// `p` must be valid for `n` bytes of reads.
    unsafe fn feed_mul(&mut self, p: *const u8, n: usize, tag: u64) {
        let h: &mut [u64; 8] = (&mut self.0[..8]).try_into().expect("eight lanes");
        // SAFETY: the caller vouches for `n` bytes at `p`.
        let tail = unsafe { mul_lanes(h, p, n) };
        h[0] = (h[0] ^ tail).wrapping_mul(MUL_K);
        h[7] = (h[7] ^ tag).wrapping_mul(MUL_K);
    }

    /// The hash of everything fed (never 0).
    fn fold(&self) -> u64 {
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        if std::arch::is_x86_feature_detected!("aes") {
            // SAFETY: the CPU has AES-NI (checked above).
            return unsafe { self.fold_aes() };
        }
        self.fold_mul()
    }

    /// [`fold`](Self::fold) without AES-NI.
    fn fold_mul(&self) -> u64 {
        fold_mul_lanes(0x2545_F491_4F6C_DD1D, &self.0[..8])
    }

    /// [`fold`](Self::fold) with AES-NI: [`hash_aes`]'s tree and two more rounds.
    ///
    /// # Safety
    /// The CPU has AES-NI.
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    #[target_feature(enable = "aes,sse2")]
    unsafe fn fold_aes(&self) -> u64 {
        use std::arch::x86_64::{
            __m128i, _mm_aesenc_si128, _mm_cvtsi128_si64, _mm_load_si128, _mm_set_epi64x, _mm_xor_si128,
        };
        let k = _mm_set_epi64x(0x9E37_79B9_7F4A_7C15_u64 as i64, 0xC2B2_AE3D_27D4_EB4F_u64 as i64);
        let base = self.0.as_ptr().cast::<__m128i>();
        // SAFETY: `self` is 128 bytes aligned to 16: eight aligned 16-byte lanes.
        let h: [__m128i; 8] = std::array::from_fn(|j| unsafe { _mm_load_si128(base.add(j)) });
        let f = |x: __m128i, y: __m128i| _mm_xor_si128(_mm_aesenc_si128(x, k), y);
        let (t0, t1, t2, t3) = (f(h[0], h[1]), f(h[2], h[3]), f(h[4], h[5]), f(h[6], h[7]));
        let x = f(f(t0, t1), f(t2, t3));
        let x = _mm_aesenc_si128(_mm_aesenc_si128(x, k), k);
        (_mm_cvtsi128_si64(x) as u64) | 1
    }
}

/// Two hashes of bytes written one after the other, as one (0 when either is unknown).
fn combine(a: u64, b: u64) -> u64 {
    if a == 0 || b == 0 {
        return 0;
    }
    (a.rotate_left(29) ^ b).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1
}

/// A hash of the `n` bytes at `p` (never 0): what a DMA write to GM wrote (see
/// [`GmAcc::hash`]). On x86-64 processors with AES-NI (every one since 2010), one AES round
/// per 16 bytes on eight independent lanes ([`hash_aes`]): it runs at the speed the loads
/// allow, so that hashing every logged write stays out of the sanitizer's cost (issue 35:
/// the multiply hash below was a tenth of a 16 KiB-tile launch); elsewhere eight
/// independent lanes of 64-bit multiplies ([`hash_mul`]). One process uses one of the two for
/// every write (the CPU's features do not change), so equal bytes always get equal hashes.
///
/// # Safety
/// `p` must be valid for `n` bytes of reads.
#[inline]
pub(crate) unsafe fn hash_bytes(p: *const u8, n: usize) -> u64 {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    if std::arch::is_x86_feature_detected!("aes") {
        // SAFETY: the CPU has AES-NI (checked above; `std` caches the CPUID result); the
        // caller vouches for the bytes.
        return unsafe { hash_aes(p, n) };
    }
    // SAFETY: the caller's contract.
    unsafe { hash_mul(p, n) }
}

/// The multiplier of the hash without AES-NI (the golden ratio's 64-bit fraction).
const MUL_K: u64 = 0x9E37_79B9_7F4A_7C15;

/// The steps [`hash_mul`] and [`Lanes::feed_mul`] share: each whole 64-byte chunk of the `n`
/// bytes at `p` goes into the eight lanes as `lane = (lane ^ word) * K`; returns the hash of the
/// tail of fewer than 64 bytes, byte by byte.
///
/// # Safety
/// `p` must be valid for `n` bytes of reads.
#[inline(always)]
unsafe fn mul_lanes(h: &mut [u64; 8], p: *const u8, n: usize) -> u64 {
    let mut i = 0;
    while i + 64 <= n {
        for (k, lane) in h.iter_mut().enumerate() {
            // SAFETY: `i + 8 * k + 8 <= n`: inside the range the caller vouches for.
            let w = unsafe { p.add(i + 8 * k).cast::<u64>().read_unaligned() };
            *lane = (*lane ^ w).wrapping_mul(MUL_K);
        }
        i += 64;
    }
    let mut tail = 0u64;
    while i < n {
        // SAFETY: `i < n`.
        tail = (tail ^ u64::from(unsafe { p.add(i).read() })).wrapping_mul(MUL_K);
        i += 1;
    }
    tail
}

/// [`hash_bytes`] without AES-NI: eight independent lanes of 8 bytes, each
/// `lane = (lane ^ word) * K`, folded with the length and the tail.
///
/// # Safety
/// `p` must be valid for `n` bytes of reads.
unsafe fn hash_mul(p: *const u8, n: usize) -> u64 {
    let mut h = [1u64, 2, 3, 4, 5, 6, 7, 8];
    // SAFETY: the caller vouches for `n` bytes at `p`.
    let tail = unsafe { mul_lanes(&mut h, p, n) };
    fold_mul_lanes((n as u64) ^ tail, &h)
}

/// The lanes of the hash without AES-NI folded into one word from `x`, never 0.
fn fold_mul_lanes(mut x: u64, lanes: &[u64]) -> u64 {
    for &lane in lanes {
        x = (x.rotate_left(23) ^ lane).wrapping_mul(MUL_K);
    }
    x | 1
}

/// [`hash_bytes`] with AES-NI: eight lanes of 16 bytes, each 16-byte word `w` of its stripe
/// taken in by `lane = AESENC(lane ^ w, K)` (one full AES round: every output byte depends on
/// four input bytes, and a change of any bit changes the lane); the last partial stripe goes
/// into the lanes 16 bytes at a time and its last 0–15 bytes zero-padded into one more word,
/// and the lanes folded pairwise by a round each, the length added and two more rounds run
/// (every bit of the result depends on every lane).
///
/// # Safety
/// The CPU has AES-NI; `p` must be valid for `n` bytes of reads.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[target_feature(enable = "aes,sse2")]
unsafe fn hash_aes(p: *const u8, n: usize) -> u64 {
    use std::arch::x86_64::{
        __m128i, _mm_aesenc_si128, _mm_cvtsi128_si64, _mm_loadu_si128, _mm_set_epi64x, _mm_xor_si128,
    };
    let k = _mm_set_epi64x(0x9E37_79B9_7F4A_7C15_u64 as i64, 0xC2B2_AE3D_27D4_EB4F_u64 as i64);
    let mut h: [__m128i; 8] = std::array::from_fn(|j| _mm_set_epi64x(j as i64 + 1, !(j as i64)));
    let mut i = 0;
    while i + 128 <= n {
        for (j, lane) in h.iter_mut().enumerate() {
            // SAFETY: `i + 16 * j + 16 <= n`: inside the range the caller vouches for.
            let w = unsafe { _mm_loadu_si128(p.add(i + 16 * j).cast()) };
            *lane = _mm_aesenc_si128(_mm_xor_si128(*lane, w), k);
        }
        i += 128;
    }
    let mut j = 0;
    while i + 16 <= n {
        // SAFETY: `i + 16 <= n`.
        let w = unsafe { _mm_loadu_si128(p.add(i).cast()) };
        h[j] = _mm_aesenc_si128(_mm_xor_si128(h[j], w), k);
        (i, j) = (i + 16, j + 1);
    }
    if i < n {
        let mut last = [0u8; 16];
        // SAFETY: `[i, n)` is inside the caller's range; `last` holds `n - i < 16` bytes.
        unsafe { std::ptr::copy_nonoverlapping(p.add(i), last.as_mut_ptr(), n - i) };
        // SAFETY: `last` is 16 readable bytes.
        let w = unsafe { _mm_loadu_si128(last.as_ptr().cast()) };
        h[j] = _mm_aesenc_si128(_mm_xor_si128(h[j], w), k);
    }
    // A tree, `(x, y) -> AESENC(x, K) ^ y` (not symmetric: lanes do not commute), so that the
    // fold's chain is three rounds deep, not eight.
    let f = |x: __m128i, y: __m128i| _mm_xor_si128(_mm_aesenc_si128(x, k), y);
    let (t0, t1, t2, t3) = (f(h[0], h[1]), f(h[2], h[3]), f(h[4], h[5]), f(h[6], h[7]));
    let x = f(f(t0, t1), f(t2, t3));
    let x = _mm_xor_si128(x, _mm_set_epi64x(n as i64, 0x2545_F491_4F6C_DD1D));
    let x = _mm_aesenc_si128(_mm_aesenc_si128(x, k), k);
    (_mm_cvtsi128_si64(x) as u64) | 1
}

impl GmLog {
    /// Appends `a` (its `hash` unused), which wrote what `src` says: extends its site's open
    /// entry when `a` continues or overlaps it, else closes that entry and opens `a`.
    ///
    /// # Safety
    /// As [`Lanes::feed`] for `src`.
    #[inline(always)]
    pub(crate) unsafe fn log(&mut self, a: GmRec, src: HashSrc) {
        let site = a.site() as usize;
        if let Some(r) = self.open.get_mut(site) {
            if r.key == a.key && r.region == a.region && a.s <= r.e && a.e >= r.s {
                r.s = r.s.min(a.s);
                r.e = r.e.max(a.e);
                if r.hash != 0 {
                    if let HashSrc::Unknown = src {
                        r.hash = 0;
                    } else {
                        // SAFETY: the caller's contract; `lanes` is as long as `open`.
                        unsafe { self.lanes[site].feed(src) };
                    }
                }
                return;
            }
        }
        // SAFETY: the caller's contract.
        unsafe { self.reopen(a.region, a.s, a.e, a.key, src) }
    }

    /// Opens the entry of `[s, e)` of `region` under `key` (its fields apart, so that the
    /// inlined [`log`](Self::log) builds no record in memory for this rarer path).
    ///
    /// # Safety
    /// As [`Lanes::feed`] for `src`.
    #[inline(never)]
    unsafe fn reopen(&mut self, region: usize, s: usize, e: usize, key: u64, src: HashSrc) {
        let mut a = GmRec { region, s, e, key, hash: 0 };
        let site = a.site() as usize;
        if site >= self.open.len() {
            self.open.resize(site + 1, NO_RUN);
            self.lanes.resize(site + 1, Lanes::INIT);
        }
        a.hash = if let HashSrc::Unknown = src { 0 } else { STREAMING };
        let old = std::mem::replace(&mut self.open[site], a);
        if old.region != 0 {
            self.close_open(old, site);
        }
        if a.hash != 0 {
            self.lanes[site] = Lanes::INIT;
            // SAFETY: the caller's contract.
            unsafe { self.lanes[site].feed(src) };
        }
    }

    /// Closes `a`, the open entry of `site` until now: its hash finished from the site's lanes.
    fn close_open(&mut self, mut a: GmRec, site: usize) {
        if a.hash != 0 {
            a.hash = self.lanes[site].fold();
        }
        self.close(a);
    }

    /// Closes every open entry.
    fn close_all(&mut self) {
        for (site, a) in std::mem::take(&mut self.open).into_iter().enumerate() {
            if a.region != 0 {
                self.close_open(a, site);
            }
        }
    }

    /// Adds a closed entry, merged into one of the last few when it continues it (a site
    /// alternating between regions).
    fn close(&mut self, a: GmRec) {
        let n = self.recs.len();
        if !self.recs[n.saturating_sub(4)..].iter_mut().rev().any(|g| g.absorb(&a)) {
            self.recs.push(a);
        }
    }

    /// A clean of the core's data cache (`DataCacheCleanAndInvalid`) over `[s, e)` of
    /// `region` (`None`: every line): the scalar writes through the cache there since phase
    /// `from` (the current epoch's first) reach GM now, as flag writes (atomic, see
    /// [`GmAcc::atomic`]); entries reaching out of the range are split. Returns the cleaned
    /// ranges (region and bytes). A cold path: it closes the open entries and scans the log.
    pub(crate) fn clean(
        &mut self,
        range: Option<(usize, usize, usize)>,
        from: u32,
    ) -> Vec<(usize, usize, usize)> {
        self.close_all();
        let mut found = Vec::new();
        let mut pieces = Vec::new();
        for r in &mut self.recs {
            if r.key & (LINE | ATOMIC) != LINE || r.phase() < from {
                continue;
            }
            let (s, e) = match range {
                None => (r.s, r.e),
                Some((region, s, e)) if region == r.region && s < r.e && r.s < e => (s.max(r.s), e.min(r.e)),
                Some(_) => continue,
            };
            found.push((r.region, s, e));
            if r.s < s {
                pieces.push(GmRec { e: s, ..*r });
            }
            if e < r.e {
                pieces.push(GmRec { s: e, ..*r });
            }
            *r = GmRec { s, e, key: r.key | ATOMIC, ..*r };
        }
        self.recs.extend(pieces);
        found
    }

    /// Every entry, the open ones closed.
    pub(crate) fn finish(mut self) -> Vec<GmRec> {
        self.close_all();
        self.recs
    }
}

/// A conflict between two cores.
pub(crate) struct Conflict {
    pub first: GmAcc,
    pub second: GmAcc,
}

/// Sweeps all logs for the first conflict (lowest region, epoch and address) — the first for
/// which `prefer(first, second)` holds, if any does (a race on a flag explains the races on
/// the data it failed to order). `ordered(a, b)`: whether `a` happens before `b`, two accesses
/// of different cores in one epoch.
pub(crate) fn find_conflict(
    mut all: Vec<GmAcc>,
    ordered: impl Fn(&GmAcc, &GmAcc) -> bool,
    prefer: impl Fn(&GmAcc, &GmAcc) -> bool,
) -> Option<Conflict> {
    let mut found: Option<Conflict> = None;
    let mut keep = |c: Conflict| {
        let preferred = prefer(&c.first, &c.second);
        if found.is_none() || preferred {
            found = Some(c);
        }
        preferred
    };
    all.sort_unstable_by_key(|a| (a.region, a.epoch, a.conflict_range().0, a.core));
    let mut writes: Vec<GmAcc> = Vec::new();
    let mut reads: Vec<GmAcc> = Vec::new();
    let mut group = None;
    for x in all {
        let key = (x.region, x.epoch);
        if group != Some(key) {
            group = Some(key);
            writes.clear();
            reads.clear();
        }
        let xs = x.conflict_range().0;
        writes.retain(|a| a.conflict_range().1 > xs);
        reads.retain(|a| a.conflict_range().1 > xs);
        let clash = |a: &GmAcc| a.core != x.core && a.clashes(&x) && !ordered(a, &x) && !ordered(&x, a);
        let with_write = writes.iter().find(|a| clash(a)).copied();
        let with_read = if x.write { reads.iter().find(|a| clash(a)).copied() } else { None };
        for a in [with_write, with_read].into_iter().flatten() {
            if keep(Conflict { first: a, second: x }) {
                return found;
            }
        }
        if x.write {
            writes.push(x);
        } else {
            reads.push(x);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Logs `r` with unknown bytes.
    fn log_rec(log: &mut GmLog, r: GmRec) {
        // SAFETY: no bytes are read for `Unknown`.
        unsafe { log.log(r, HashSrc::Unknown) }
    }

    fn acc(core: u32, s: usize, e: usize, write: bool, dma: bool, line: bool, atomic: bool) -> GmAcc {
        GmAcc {
            region: 0x1000,
            s,
            e,
            write,
            dma,
            line,
            atomic,
            fill: None,
            hash: 0,
            epoch: 0,
            phase: 0,
            core,
            api: "api",
            loc: std::panic::Location::caller(),
        }
    }

    #[test]
    fn a_scalar_write_clobbers_the_writes_of_its_line_but_not_the_reads() {
        let w = |core, s, line, atomic| acc(core, s, s + 4, true, false, line, atomic);
        // Two cores' scalar writes of different bytes of one 64-byte line: a race, even when
        // both were cleaned (flag writes); in two lines, none.
        assert!(w(0, 0, true, false).clashes(&w(1, 60, true, false)));
        assert!(w(0, 0, true, true).clashes(&w(1, 60, true, true)));
        assert!(!w(0, 0, true, false).clashes(&w(1, 64, true, false)));
        // A DMA write of other bytes of the line is clobbered too.
        assert!(w(0, 0, true, false).clashes(&acc(1, 32, 64, true, true, false, false)));
        // A read of other bytes of the line is not: the write-back leaves them as they were.
        assert!(!w(0, 0, true, false).clashes(&acc(1, 8, 12, false, false, false, false)));
        assert!(w(0, 0, true, false).clashes(&acc(1, 0, 4, false, false, false, false)));
        // A cleaned flag write and a flag read (of an invalidated line): no race; a plain read
        // of the flag, or a flag read of a write never cleaned, are.
        assert!(!w(0, 0, true, true).clashes(&acc(1, 0, 4, false, false, false, true)));
        assert!(w(0, 0, true, true).clashes(&acc(1, 0, 4, false, false, false, false)));
        assert!(w(0, 0, true, false).clashes(&acc(1, 0, 4, false, false, false, true)));
        // Two reads never race; direct writes (the DCache-bypassing ones) keep their bytes.
        assert!(!acc(0, 0, 4, false, false, false, false).clashes(&acc(1, 0, 4, false, false, false, false)));
        assert!(!acc(0, 0, 4, true, false, false, true).clashes(&acc(1, 4, 8, true, false, false, true)));
    }

    #[test]
    fn dma_writes_of_the_same_bytes_are_no_race() {
        let w = |core, s, e, hash| GmAcc { hash, ..acc(core, s, e, true, true, false, false) };
        assert!(!w(0, 0, 256, 7).clashes(&w(1, 0, 256, 7)), "one range, one hash");
        assert!(w(0, 0, 256, 7).clashes(&w(1, 0, 256, 8)), "other bytes");
        assert!(w(0, 0, 256, 7).clashes(&w(1, 32, 256, 7)), "other ranges: not known to be equal");
        assert!(w(0, 0, 256, 0).clashes(&w(1, 0, 256, 0)), "unknown bytes");
        assert!(w(0, 0, 256, 7).clashes(&acc(1, 0, 4, false, false, false, false)), "a read still races");
        let data: Vec<u8> = (1..=67).collect();
        // SAFETY: `d` is a live slice of `d.len()` bytes.
        let h = |d: &[u8]| unsafe { hash_bytes(d.as_ptr(), d.len()) };
        let (mut other, mut tail) = (data.clone(), data.clone());
        other[40] ^= 1;
        tail[66] ^= 1;
        assert_eq!(h(&data), h(&data.clone()), "the same bytes elsewhere");
        assert_ne!(h(&data), h(&other));
        assert_ne!(h(&data), h(&tail));
        assert_ne!(h(&data[..66]), h(&data));
    }

    /// Both hashes (the AES one where the CPU has AES-NI, the multiply one everywhere): equal
    /// bytes at any address hash equal; a flipped bit anywhere, a length one shorter, or two
    /// 16-byte words, two stripes or two lanes swapped hash differently.
    #[test]
    fn both_hashes_tell_every_small_change() {
        type Hash = unsafe fn(*const u8, usize) -> u64;
        let mut hashes: Vec<(&str, Hash)> = vec![("mul", hash_mul)];
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        if std::arch::is_x86_feature_detected!("aes") {
            hashes.push(("aes", hash_aes));
        }
        hashes.push(("hash_bytes", hash_bytes));
        let mut x = 0x1234_5678_9abc_def0u64;
        let data: Vec<u8> = (0..700)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        for (name, f) in hashes {
            // SAFETY: `d` is a live slice of `d.len()` bytes.
            let h = |d: &[u8]| unsafe { f(d.as_ptr(), d.len()) };
            for n in [0, 1, 15, 16, 17, 63, 64, 127, 128, 129, 255, 256, 300, 512, 640] {
                let d = &data[..n];
                let moved: Vec<u8> = [&[0u8; 3][..], d].concat();
                assert_eq!(h(d), h(&moved[3..]), "{name}: {n} bytes elsewhere");
                assert_ne!(h(d), 0, "{name}: never 0");
                if n > 0 {
                    assert_ne!(h(d), h(&d[..n - 1]), "{name}: {n} bytes vs one fewer");
                }
                for k in 0..n {
                    let mut e = d.to_vec();
                    e[k] ^= 1 << (k % 8);
                    assert_ne!(h(d), h(&e), "{name}: bit {} of byte {k} of {n}", k % 8);
                }
                for (a, b, len) in [(0, 16, 16), (0, 128, 128), (16, 32, 16), (0, 64, 64)] {
                    if b + len <= n && d[a..a + len] != d[b..b + len] {
                        let mut e = d.to_vec();
                        let (lo, hi) = e.split_at_mut(b);
                        lo[a..a + len].swap_with_slice(&mut hi[..len]);
                        assert_ne!(h(d), h(&e), "{name}: [{a}, +{len}) swapped with [{b}, +{len}) of {n}");
                    }
                }
            }
            // All zeros of different lengths differ (the length is in the hash).
            let z = [0u8; 256];
            assert_ne!(h(&z[..128]), h(&z[..144]), "{name}: zeros");
            assert_ne!(h(&z[..3]), h(&z[..4]), "{name}: zeros in the tail");
        }
    }

    /// An open entry's running hash (both kinds of lanes): the same writes give the same hash
    /// wherever their bytes sit; a changed bit in any write, another order, other lengths, or a
    /// hash word in place of the same 8 bytes give another; a write of unknown bytes makes the
    /// entry's hash unknown (0).
    #[test]
    fn an_entry_hashes_every_byte_of_its_writes() {
        type Feed = unsafe fn(&mut Lanes, *const u8, usize, u64);
        type Fold = fn(&Lanes) -> u64;
        let mut kinds: Vec<(&str, Feed, Fold)> = vec![("mul", Lanes::feed_mul, Lanes::fold_mul)];
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        if std::arch::is_x86_feature_detected!("aes") {
            // SAFETY: the CPU has AES-NI.
            kinds.push(("aes", Lanes::feed_aes, |l| unsafe { l.fold_aes() }));
        }
        let mut x = 0x0123_4567_89ab_cdefu64;
        let data: Vec<u8> = (0..1200)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        for (name, feed, fold) in kinds {
            let run = |writes: &[&[u8]]| {
                let mut l = Lanes::INIT;
                for w in writes {
                    // SAFETY: `w` is a live slice of `w.len()` bytes.
                    unsafe { feed(&mut l, w.as_ptr(), w.len(), w.len() as u64) };
                }
                fold(&l)
            };
            for n in [1, 15, 16, 17, 127, 128, 129, 300, 512] {
                let (a, b) = (&data[..n], &data[n..2 * n]);
                let moved = [&[0u8; 5][..], a, b].concat();
                let h = run(&[a, b]);
                assert_ne!(h, 0, "{name}");
                assert_eq!(h, run(&[&moved[5..5 + n], &moved[5 + n..]]), "{name}: {n} bytes elsewhere");
                assert_ne!(h, run(&[b, a]), "{name}: {n}: another order");
                assert_ne!(h, run(&[a]), "{name}: {n}: one write fewer");
                for k in 0..2 * n {
                    let mut e = data[..2 * n].to_vec();
                    e[k] ^= 1 << (k % 8);
                    assert_ne!(h, run(&[&e[..n], &e[n..]]), "{name}: bit {} of byte {k} of 2 x {n}", k % 8);
                }
                if n > 1 {
                    let ab = &data[..2 * n];
                    assert_ne!(h, run(&[&ab[..n - 1], &ab[n - 1..]]), "{name}: {n}: other lengths");
                }
            }
        }
        // Through the log: one entry per site, its hash finished when it closes.
        let w = |s: usize| GmRec {
            region: 0x1000,
            s,
            e: s + 300,
            key: GmRec::key(3, 0, true, true, false),
            hash: 0,
        };
        let src = |d: &[u8]| HashSrc::Bytes { at: d.as_ptr() as usize, len: d.len() };
        let hashes = |words: [HashSrc; 3]| {
            let mut log = GmLog::default();
            for (i, h) in words.into_iter().enumerate() {
                // SAFETY: every `Bytes` source is a live slice of `data`.
                unsafe { log.log(w(300 * i), h) };
            }
            let recs = log.finish();
            assert_eq!(recs.len(), 1);
            assert_eq!((recs[0].s, recs[0].e), (0, 900));
            recs[0].hash
        };
        let (a, b, c) = (&data[..300], &data[300..600], &data[600..900]);
        let h = hashes([src(a), src(b), src(c)]);
        assert_ne!(h, 0);
        let b_elsewhere = b.to_vec();
        assert_eq!(h, hashes([src(a), src(&b_elsewhere), src(c)]), "the same bytes elsewhere");
        assert_ne!(h, hashes([src(a), src(c), src(b)]));
        assert_eq!(hashes([src(a), HashSrc::Unknown, src(c)]), 0, "unknown bytes");
        let word = u64::from_le_bytes(data[..8].try_into().unwrap());
        let eight = |d| GmRec { e: 8, ..w(d) };
        let one = |h| {
            let mut log = GmLog::default();
            // SAFETY: the `Bytes` source is a live slice of `data`.
            unsafe { log.log(eight(0), h) };
            log.finish()[0].hash
        };
        assert_ne!(one(HashSrc::Word(word)), one(src(&data[..8])), "a hash word is not its bytes");
    }

    #[test]
    fn fills_of_one_pattern_are_no_race_where_they_write_the_same_bytes() {
        let fill =
            |core, s, e, pattern| GmAcc { fill: Some(pattern), ..acc(core, s, e, true, true, false, false) };
        // One range, a partial last block: both write the pattern in [0, 40) and leave [40, 64).
        assert!(!fill(0, 0, 40, 1).clashes(&fill(1, 0, 40, 1)));
        // Another value, or a plain write, does clash.
        assert!(fill(0, 0, 40, 1).clashes(&fill(1, 0, 40, 2)));
        assert!(fill(0, 0, 40, 1).clashes(&acc(1, 0, 40, true, true, false, false)));
        assert!(fill(0, 0, 40, 1).clashes(&acc(1, 0, 4, false, false, false, false)));
        // Adjacent ranges sharing a block: in [32, 64) one writes the pattern where the other
        // writes the block's old bytes back.
        assert!(fill(0, 0, 40, 1).clashes(&fill(1, 40, 80, 1)));
        // Nested ranges of whole blocks: the same bytes where both reach.
        assert!(!fill(0, 0, 64, 1).clashes(&fill(1, 32, 64, 1)));
        // An atomic write is no fill (`fill` is `None` for it): atomic with atomic only.
        let add = |core| acc(core, 0, 32, true, true, false, true);
        assert!(!add(0).clashes(&add(1)));
        assert!(fill(0, 0, 32, 1).clashes(&add(1)));
    }

    #[test]
    fn a_clean_marks_the_scalar_writes_of_its_range_as_flags_and_splits_runs() {
        let mut log = GmLog::default();
        let scalar = |s: usize, phase| GmRec {
            region: 0x1000,
            s,
            e: s + 4,
            key: GmRec::line_write_key(3, phase),
            hash: 0,
        };
        // One run of scalar writes over [0, 192): three lines.
        for i in 0..48 {
            log_rec(&mut log, scalar(i * 4, 1));
        }
        // A DMA write and an older epoch's scalar write are left alone.
        log_rec(
            &mut log,
            GmRec { region: 0x1000, s: 0, e: 64, key: GmRec::key(4, 1, true, true, false), hash: 0 },
        );
        log_rec(&mut log, GmRec { region: 0x2000, s: 0, e: 4, key: GmRec::line_write_key(5, 0), hash: 0 });
        let cleaned = log.clean(Some((0x1000, 64, 128)), 1);
        assert_eq!(cleaned, vec![(0x1000, 64, 128)]);
        let mut recs = log.finish();
        recs.sort_by_key(|r| (r.region, r.s, r.key));
        let got: Vec<_> = recs.iter().map(|r| (r.region, r.s, r.e, r.line(), r.atomic(), r.dma())).collect();
        assert_eq!(
            got,
            vec![
                (0x1000, 0, 64, true, false, false),
                (0x1000, 0, 64, false, false, true),
                (0x1000, 64, 128, true, true, false),
                (0x1000, 128, 192, true, false, false),
                (0x2000, 0, 4, true, false, false),
            ]
        );
        // Cleaning everything from phase 0 on takes the rest, the cleaned part once.
        let mut log = GmLog::default();
        log_rec(&mut log, scalar(0, 0));
        log_rec(&mut log, GmRec { region: 0x2000, s: 8, e: 12, key: GmRec::line_write_key(5, 0), hash: 0 });
        let mut all = log.clean(None, 0);
        all.sort();
        assert_eq!(all, vec![(0x1000, 0, 4), (0x2000, 8, 12)]);
        assert!(log.clean(None, 0).is_empty());
    }
}
