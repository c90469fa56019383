//! The cross-core check: every core logs its global-memory accesses (coalesced byte ranges,
//! with the core, the `SyncAll` epoch, the API and the source line); after the launch the
//! logs are swept per region and epoch for two cores touching the same bytes, at least one
//! writing and not both atomically.

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

    fn same_run(&self, o: &GmAcc) -> bool {
        self.region == o.region
            && self.write == o.write
            && self.dma == o.dma
            && self.atomic == o.atomic
            && self.epoch == o.epoch
            && std::ptr::eq(self.api, o.api)
            && std::ptr::eq(self.loc, o.loc)
    }
}

/// Appends `a` to a core's log, extending one of the last few entries when `a` continues it.
pub(crate) fn log(v: &mut Vec<GmAcc>, a: GmAcc) {
    let n = v.len();
    for g in v[n.saturating_sub(4)..].iter_mut().rev() {
        if g.same_run(&a) && a.s <= g.e && a.e >= g.s {
            g.s = g.s.min(a.s);
            g.e = g.e.max(a.e);
            return;
        }
    }
    v.push(a);
}

/// A conflict between two cores.
pub(crate) struct Conflict {
    pub first: GmAcc,
    pub second: GmAcc,
}

/// Sweeps all logs for the first conflict (lowest region, epoch and address).
pub(crate) fn find_conflict(mut all: Vec<GmAcc>) -> Option<Conflict> {
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
            a.core != x.core && !(a.atomic && x.atomic) && as_ < xe && xs < ae
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
