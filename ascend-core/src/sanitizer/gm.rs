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
    /// A DMA write (`DataCopy`/`DataCopyPad` to GM): it writes whole 32-byte blocks.
    pub dma: bool,
    /// Written in an atomic mode (`SetAtomicAdd` …).
    pub atomic: bool,
    pub epoch: u32,
    /// The core's phase at the access (see the module documentation).
    pub phase: u32,
    pub core: u32,
    pub api: &'static str,
    pub loc: &'static Location<'static>,
}

impl GmAcc {
    /// The bytes this access can clobber or observe: a DMA write covers the 32-byte blocks it
    /// touches.
    fn conflict_range(&self) -> (usize, usize) {
        if self.write && self.dma {
            (self.s / BLOCK_BYTES * BLOCK_BYTES, self.e.div_ceil(BLOCK_BYTES) * BLOCK_BYTES)
        } else {
            (self.s, self.e)
        }
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
}

impl GmRec {
    /// Packs what must be equal for two accesses to coalesce.
    #[inline(always)]
    pub(crate) fn key(site: u32, phase: u32, write: bool, dma: bool, atomic: bool) -> u64 {
        // Sites are below 2^29 (`Sites::insert` checks).
        (u64::from(phase) << 32)
            | (u64::from(site) << 3)
            | (u64::from(write) << 2)
            | (u64::from(dma) << 1)
            | u64::from(atomic)
    }

    pub(crate) fn site(&self) -> u32 {
        (self.key as u32) >> 3
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
        }
        joins
    }
}

/// One core's GM log: accesses coalesced per site, so a tile loop streaming through a
/// region keeps one entry per instruction site and region.
#[derive(Default)]
pub(crate) struct GmLog {
    /// Closed entries.
    recs: Vec<GmRec>,
    /// By site: the entry the site is extending (`region == 0`: none).
    open: Vec<GmRec>,
}

const NO_RUN: GmRec = GmRec { region: 0, s: 0, e: 0, key: 0 };

impl GmLog {
    /// Appends `a`: extends its site's open entry when `a` continues or overlaps it, else
    /// closes that entry and opens `a`.
    #[inline(always)]
    pub(crate) fn log(&mut self, a: GmRec) {
        let site = a.site() as usize;
        if !self.open.get_mut(site).is_some_and(|r| r.absorb(&a)) {
            self.reopen(a);
        }
    }

    #[inline(never)]
    fn reopen(&mut self, a: GmRec) {
        let site = a.site() as usize;
        if site >= self.open.len() {
            self.open.resize(site + 1, NO_RUN);
        }
        let old = std::mem::replace(&mut self.open[site], a);
        if old.region != 0 {
            self.close(old);
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

    /// Every entry, the open ones closed.
    pub(crate) fn finish(mut self) -> Vec<GmRec> {
        for a in std::mem::take(&mut self.open) {
            if a.region != 0 {
                self.close(a);
            }
        }
        self.recs
    }
}

/// A conflict between two cores.
pub(crate) struct Conflict {
    pub first: GmAcc,
    pub second: GmAcc,
}

/// Sweeps all logs for the first conflict (lowest region, epoch and address). `ordered(a, b)`:
/// whether `a` happens before `b`, two accesses of different cores in one epoch.
pub(crate) fn find_conflict(
    mut all: Vec<GmAcc>,
    ordered: impl Fn(&GmAcc, &GmAcc) -> bool,
) -> Option<Conflict> {
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
        let (xs, xe) = x.conflict_range();
        writes.retain(|a| a.conflict_range().1 > xs);
        reads.retain(|a| a.conflict_range().1 > xs);
        let clash = |a: &GmAcc| {
            let (as_, ae) = a.conflict_range();
            a.core != x.core
                && !(a.atomic && x.atomic)
                && as_ < xe
                && xs < ae
                && !ordered(a, &x)
                && !ordered(&x, a)
        };
        if let Some(a) = writes.iter().find(|a| clash(a)) {
            return Some(Conflict { first: *a, second: x });
        }
        if x.write {
            if let Some(a) = reads.iter().find(|a| clash(a)) {
                return Some(Conflict { first: *a, second: x });
            }
            writes.push(x);
        } else {
            reads.push(x);
        }
    }
    None
}
