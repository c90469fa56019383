//! The shadow of one core's Unified Buffer: for every byte range, the last write and the last
//! read of each pipe, kept as sorted, non-overlapping segments (one per distinct range the
//! kernel touches, so a tile loop keeps a handful of segments).

use std::panic::Location;

use crate::sync::pipe_t;

/// Pipes that touch the Unified Buffer in this model: S, V, MTE2, MTE3.
pub(crate) const UB_PIPES: usize = 4;

pub(crate) fn ub_slot(p: pipe_t) -> usize {
    match p {
        pipe_t::PIPE_S => 0,
        pipe_t::PIPE_V => 1,
        pipe_t::PIPE_MTE2 => 2,
        _ => 3,
    }
}

/// One access: which instruction, where, on which pipe, at which point of that pipe.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Acc {
    pub loc: &'static Location<'static>,
    pub api: &'static str,
    pub clock: u32,
    pub pipe: pipe_t,
}

impl PartialEq for Acc {
    /// Identity of the location and API (pointers), not their text: compared on every access.
    #[inline]
    fn eq(&self, o: &Acc) -> bool {
        self.clock == o.clock
            && self.pipe == o.pipe
            && std::ptr::eq(self.loc, o.loc)
            && std::ptr::eq(self.api, o.api)
    }
}

impl Eq for Acc {}

/// What is known about a range of bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct SegState {
    pub w: Option<Acc>,
    pub r: [Option<Acc>; UB_PIPES],
}

#[derive(Clone, Copy, Debug)]
struct Seg {
    s: u32,
    e: u32,
    st: SegState,
}

/// A race found by [`Shadow::access`]: the earlier access and the overlapping bytes.
pub(crate) struct Race {
    pub kind: &'static str,
    pub prev: Acc,
    pub s: u32,
    pub e: u32,
}

/// Entries of [`Shadow`]'s segment cache.
const CACHE: usize = 32;

#[derive(Default)]
pub(crate) struct Shadow {
    segs: Vec<Seg>,
    scratch: Vec<Seg>,
    /// A direct-mapped cache from a range's start to the index of the segment that was
    /// exactly that range (a hint, validated on use: segments never overlap, so a segment
    /// with the same bounds is the one). Saves the binary search on the common access, a
    /// whole queue buffer, again and again.
    cache: [u32; CACHE],
}

#[inline]
fn cache_slot(s: u32) -> usize {
    (s.wrapping_mul(0x9E37_79B1) >> 27) as usize % CACHE
}

impl Shadow {
    /// Records an access of `[s, e)` by `cur`; `ordered(prev)` says whether `prev` happens
    /// before `cur`. Returns the first race found (the shadow is then left as it was).
    pub(crate) fn access(
        &mut self,
        s: u32,
        e: u32,
        write: bool,
        cur: Acc,
        ordered: impl Fn(&Acc) -> bool,
    ) -> Result<(), Race> {
        if s >= e {
            return Ok(());
        }
        let slot = ub_slot(cur.pipe);
        let check = |st: &SegState, a: u32, b: u32| -> Result<(), Race> {
            if let Some(w) = &st.w {
                if !ordered(w) {
                    let kind = if write { "write-after-write" } else { "read-after-write" };
                    return Err(Race { kind, prev: *w, s: a, e: b });
                }
            }
            if write {
                for r in st.r.iter().flatten() {
                    if !ordered(r) {
                        return Err(Race { kind: "write-after-read", prev: *r, s: a, e: b });
                    }
                }
            }
            Ok(())
        };
        let update = |st: &mut SegState| {
            if write {
                *st = SegState { w: Some(cur), r: [None; UB_PIPES] };
            } else {
                st.r[slot] = Some(cur);
            }
        };
        // Fastest path: the cache names a segment of exactly these bounds.
        let cslot = cache_slot(s);
        if let Some(g) = self.segs.get_mut(self.cache[cslot] as usize) {
            if g.s == s && g.e == e {
                check(&g.st, s, e)?;
                update(&mut g.st);
                return Ok(());
            }
        }
        let i = self.segs.partition_point(|g| g.e <= s);
        // Fast path: the access is exactly one existing segment.
        if let Some(g) = self.segs.get_mut(i) {
            if g.s == s && g.e == e {
                self.cache[cslot] = i as u32;
                // No merging here: the segment's bounds are unchanged, and equal neighbours
                // only cost a segment, not correctness.
                check(&g.st, s, e)?;
                update(&mut g.st);
                return Ok(());
            }
        }
        // General path: rebuild the segments overlapping [s, e) into `scratch`.
        let mut j = i;
        while j < self.segs.len() && self.segs[j].s < e {
            j += 1;
        }
        for g in &self.segs[i..j] {
            let (a, b) = (g.s.max(s), g.e.min(e));
            check(&g.st, a, b)?;
        }
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        let mut pos = s;
        for g in &self.segs[i..j] {
            if g.s < s {
                out.push(Seg { s: g.s, e: s, st: g.st });
            }
            let (a, b) = (g.s.max(s), g.e.min(e));
            if pos < a {
                let mut st = SegState::default();
                update(&mut st);
                out.push(Seg { s: pos, e: a, st });
            }
            let mut st = g.st;
            update(&mut st);
            out.push(Seg { s: a, e: b, st });
            pos = b;
            if g.e > e {
                out.push(Seg { s: e, e: g.e, st: g.st });
            }
        }
        if pos < e {
            let mut st = SegState::default();
            update(&mut st);
            // Keep the order: a trailing remainder of the last segment (if any) comes after.
            let at = out.iter().position(|g| g.s >= e).unwrap_or(out.len());
            out.insert(at, Seg { s: pos, e, st });
        }
        // Merge equal neighbours inside the new run.
        let mut merged: Vec<Seg> = Vec::with_capacity(out.len());
        for g in out.drain(..) {
            match merged.last_mut() {
                Some(m) if m.e == g.s && m.st == g.st => m.e = g.e,
                _ => merged.push(g),
            }
        }
        let n = merged.len();
        self.segs.splice(i..j, merged);
        self.scratch = out;
        self.merge_around(i, i + n);
        Ok(())
    }

    /// Merges the run `[lo, hi)` with equal, adjacent neighbours on both sides.
    fn merge_around(&mut self, lo: usize, hi: usize) {
        if hi < self.segs.len() && hi > 0 {
            let (a, b) = (self.segs[hi - 1], self.segs[hi]);
            if a.e == b.s && a.st == b.st {
                self.segs[hi - 1].e = b.e;
                self.segs.remove(hi);
            }
        }
        if lo > 0 && lo < self.segs.len() {
            let (a, b) = (self.segs[lo - 1], self.segs[lo]);
            if a.e == b.s && a.st == b.st {
                self.segs[lo - 1].e = b.e;
                self.segs.remove(lo);
            }
        }
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.segs.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acc(pipe: pipe_t, clock: u32) -> Acc {
        Acc { loc: Location::caller(), api: "X", clock, pipe }
    }

    #[test]
    fn splits_and_merges() {
        let mut sh = Shadow::default();
        let v = acc(pipe_t::PIPE_V, 1);
        sh.access(0, 64, true, v, |_| true).ok().unwrap();
        sh.access(32, 96, true, v, |_| true).ok().unwrap();
        assert_eq!(sh.len(), 1);
        let m = acc(pipe_t::PIPE_MTE3, 1);
        sh.access(16, 48, false, m, |_| true).ok().unwrap();
        assert_eq!(sh.len(), 3);
        // an unordered write over the read range is a WAR race at the read's bytes
        let r =
            sh.access(0, 96, true, acc(pipe_t::PIPE_MTE2, 1), |a| a.pipe != pipe_t::PIPE_MTE3).err().unwrap();
        assert_eq!((r.kind, r.s, r.e), ("write-after-read", 16, 48));
        // an unordered read after the write: RAW
        let r = sh.access(40, 41, false, acc(pipe_t::PIPE_S, 1), |_| false).err().unwrap();
        assert_eq!((r.kind, r.s, r.e), ("read-after-write", 40, 41));
        // gaps are filled
        sh.access(200, 264, false, m, |_| true).ok().unwrap();
        sh.access(150, 300, false, m, |_| true).ok().unwrap();
        assert!(sh.segs.windows(2).all(|w| w[0].e <= w[1].s));
        assert!(sh.segs.iter().all(|g| g.s < g.e));
    }

    #[test]
    fn cache_hints_survive_shifting_segments() {
        let mut sh = Shadow::default();
        let v = acc(pipe_t::PIPE_V, 1);
        let m = acc(pipe_t::PIPE_MTE2, 1);
        // [256, 512) is cached at index 0, then a segment before it shifts it to index 1.
        sh.access(256, 512, true, v, |_| true).ok().unwrap();
        sh.access(256, 512, false, m, |_| true).ok().unwrap();
        sh.access(0, 256, true, m, |_| true).ok().unwrap();
        assert_eq!(sh.len(), 2);
        // The stale hint (index 0, now [0, 256)) must not be taken for [256, 512): the write
        // by V, unordered for S, is still found there, and [0, 256) keeps MTE2's write.
        let r =
            sh.access(256, 512, false, acc(pipe_t::PIPE_S, 1), |a| a.pipe != pipe_t::PIPE_V).err().unwrap();
        assert_eq!((r.kind, r.prev.pipe, r.s, r.e), ("read-after-write", pipe_t::PIPE_V, 256, 512));
        let r =
            sh.access(0, 256, false, acc(pipe_t::PIPE_S, 1), |a| a.pipe != pipe_t::PIPE_MTE2).err().unwrap();
        assert_eq!((r.kind, r.prev.pipe, r.s, r.e), ("read-after-write", pipe_t::PIPE_MTE2, 0, 256));
        // A hit through the cache records like the search does: a later unordered write
        // over [256, 512) finds MTE2's read.
        let r =
            sh.access(256, 512, true, acc(pipe_t::PIPE_S, 2), |a| a.pipe != pipe_t::PIPE_MTE2).err().unwrap();
        assert_eq!((r.kind, r.prev.pipe), ("write-after-read", pipe_t::PIPE_MTE2));
    }
}
