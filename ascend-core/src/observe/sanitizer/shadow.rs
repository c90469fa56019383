//! The shadow of one core's Unified Buffer: for every byte range, the last write and the last
//! read of each pipe, kept as sorted, non-overlapping segments (one per distinct range the
//! kernel touches, so a tile loop keeps a handful of segments).
//!
//! An access is 8 bytes: the instruction's site (API and line, interned by the core's
//! sanitizer), its pipe and that pipe's clock. "No access" is clock 0, which every pipe's
//! view of every other pipe already reaches, so a check is one comparison per slot with no
//! branch on absence.

use crate::sync::event::{pipe_t, PIPE_NUM};

/// Lanes of a core's [`Clock`] while it runs only the pipes of a vector core: S, V, MTE2 and
/// MTE3 (see [`lane`]). A core's state starts with these (the hot path of every vector kernel:
/// a clock is one SSE2 register) and is widened to [`ALL_LANES`] the first time the core uses
/// the cube (see `CoreSan::widen`): the cube's pipes had no instruction until then, so their
/// lanes start at 0 everywhere and the widening is exact.
pub(crate) const VEC_LANES: usize = 4;

/// Lanes of a core's [`Clock`] once it uses the cube: also M, MTE1 and FIX (and a spare lane,
/// so that the count stays a power of two).
pub(crate) const ALL_LANES: usize = 8;

/// Rows of the core's vector clock: one per `pipe_t` value (`PIPE_ALL`'s row stays unused).
pub(crate) const ROWS: usize = 8;
const _: () = assert!(
    PIPE_NUM < ROWS
        && ROWS.is_power_of_two()
        && VEC_LANES.is_power_of_two()
        && ALL_LANES.is_power_of_two()
        && PIPE_NUM < ALL_LANES
);

/// The clock lane of a pipe: S 0, V 1, MTE2 2, MTE3 3 (the lanes of a vector core's clock),
/// M 4, MTE1 5, FIX 6. It is also the pipe's read slot in the shadow.
///
/// # Panics
/// Panics for `PIPE_ALL` (no instruction runs on it).
#[inline(always)]
pub(crate) const fn lane(p: pipe_t) -> usize {
    match p {
        pipe_t::PIPE_S => 0,
        pipe_t::PIPE_V => 1,
        pipe_t::PIPE_MTE2 => 2,
        pipe_t::PIPE_MTE3 => 3,
        pipe_t::PIPE_M => 4,
        pipe_t::PIPE_MTE1 => 5,
        pipe_t::PIPE_FIX => 6,
        pipe_t::PIPE_ALL => panic!("sanitizer: no instruction runs on PIPE_ALL"),
    }
}

/// The pipe of each lane (the inverse of [`lane`]; the spare lane 7 has none, and says
/// `PIPE_ALL`).
pub(crate) const LANE_PIPES: [pipe_t; ALL_LANES] = [
    pipe_t::PIPE_S,
    pipe_t::PIPE_V,
    pipe_t::PIPE_MTE2,
    pipe_t::PIPE_MTE3,
    pipe_t::PIPE_M,
    pipe_t::PIPE_MTE1,
    pipe_t::PIPE_FIX,
    pipe_t::PIPE_ALL,
];
const _: () = {
    let mut i = 0;
    while i < PIPE_NUM {
        assert!(lane(LANE_PIPES[i]) == i);
        i += 1;
    }
};

/// The lane of each clock row (a `pipe_t` value): `None` for `PIPE_ALL`'s.
pub(crate) const ROW_LANE: [Option<usize>; ROWS] = {
    let mut t = [None; ROWS];
    let mut i = 0;
    while i < PIPE_NUM {
        t[LANE_PIPES[i] as usize] = Some(i);
        i += 1;
    }
    t
};

/// A pipe's view of the clocks of the pipes (a row of the core's vector clock), indexed by
/// [`lane`]: `L` is [`VEC_LANES`] or [`ALL_LANES`].
pub(crate) type Clock<const L: usize> = [u32; L];

/// `c` in `M >= L` lanes, the new ones 0.
pub(crate) fn widen<const L: usize, const M: usize>(c: &[u32; L]) -> [u32; M] {
    const { assert!(M >= L) };
    let mut w = [0; M];
    w[..L].copy_from_slice(c);
    w
}

/// The largest clock value: a pipe's clock stops at it (an error), so that every clock fits
/// in an `i32`. Compared signed, clocks keep their order, and x86-64's baseline (SSE2) has a
/// four-lane signed comparison but no unsigned one: a join (lane-wise maximum) is then one
/// comparison and a blend.
pub(crate) const MAX_CLOCK: u32 = i32::MAX as u32;

/// One access: which instruction (its site), on which pipe (by its [`lane`]), at which point
/// of that pipe: the site and the lane packed in one word (sites stay below 2^28, see
/// `Sites::insert`), so that an access is two words and travels in one register (a 12-byte
/// access was copied through the stack, where loading it back stalled on the stores just
/// made — a third of the sanitizer's time in a vector instruction).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Acc {
    /// `site << 3 | lane`.
    tag: u32,
    pub clock: u32,
}
const _: () = assert!(std::mem::size_of::<Acc>() == 8 && ALL_LANES == 8);

impl Acc {
    /// No access (clock 0: ordered before everything).
    pub const NONE: Acc = Acc { tag: 0, clock: 0 };

    /// An access by `pipe` at `clock`.
    #[inline(always)]
    pub const fn new(site: u32, clock: u32, pipe: pipe_t) -> Acc {
        Acc { tag: site << 3 | lane(pipe) as u32, clock }
    }

    /// The instruction's site.
    #[inline(always)]
    pub const fn site(&self) -> u32 {
        self.tag >> 3
    }

    /// The pipe's lane.
    #[inline(always)]
    pub const fn lane(&self) -> u8 {
        (self.tag & 7) as u8
    }

    /// The pipe.
    #[inline(always)]
    pub const fn pipe(&self) -> pipe_t {
        LANE_PIPES[(self.tag & 7) as usize]
    }

    /// The same access at another site.
    pub const fn at_site(self, site: u32) -> Acc {
        Acc { tag: site << 3 | (self.tag & 7), clock: self.clock }
    }

    /// Whether this access happens before an access of a pipe whose view is `row`. A pipe's
    /// own entry is the last of its own instructions it is ordered after (its clock for a pipe
    /// that finishes in order), so the same comparison covers an access of the same pipe.
    #[inline(always)]
    fn before<const L: usize>(&self, row: &Clock<L>) -> bool {
        // Masked: a narrow state never holds an access of a lane it lacks (it is widened
        // before the cube's first access), and the mask spares the bounds check.
        debug_assert!((self.lane() as usize) < L);
        row[self.lane() as usize & (L - 1)] >= self.clock
    }
}

/// What is known about a range of bytes: the last write, and each pipe's last read (by lane:
/// clocks and sites apart, so "does a write follow every read" is one comparison of two
/// clocks).
///
/// Two writes of one pipe that nothing orders (two MTE2 copies into the same bytes with no
/// `PipeBarrier<PIPE_MTE2>` between them) leave the bytes holding either's data, which only
/// matters if something reads them. The later write is then recorded with the clock
/// [`UNDETERMINED`], which no view reaches, so the common checks stay one comparison and the
/// state its size. Every read of such bytes is an error, so none is ever recorded there: the
/// read slot of lane 0 holds the later write's real clock and the earlier write's site
/// meanwhile. A read is the error; a write ordered after the later one settles the bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SegState<const L: usize> {
    pub w: Acc,
    /// By lane: the clock of the pipe's last read (0: none since the last write).
    pub r_clock: Clock<L>,
    /// By lane: the site of that read (0 when there is none).
    pub r_site: [u32; L],
}

impl<const L: usize> SegState<L> {
    const EMPTY: SegState<L> = SegState { w: Acc::NONE, r_clock: [0; L], r_site: [0; L] };

    /// The same state in a wider clock (the new lanes' pipes never read these bytes).
    fn widen<const M: usize>(&self) -> SegState<M> {
        SegState { w: self.w, r_clock: widen(&self.r_clock), r_site: widen(&self.r_site) }
    }

    /// The read of `lane`, as an access.
    fn read(&self, lane: usize) -> Acc {
        Acc::new(self.r_site[lane], self.r_clock[lane], LANE_PIPES[lane])
    }

    /// The last write, with its real clock.
    pub(crate) fn later(&self) -> Acc {
        if self.w.clock == UNDETERMINED {
            Acc { clock: self.r_clock[0], ..self.w }
        } else {
            self.w
        }
    }

    /// The first earlier access an access `cur` (`write` or a read) by a pipe with view `row`
    /// is not ordered after — not `cur`'s own instruction's write: an instruction writes its
    /// destination after reading its sources, and its callers record its writes first, so an
    /// in-place instruction's read finds its own write. (An undetermined segment's `w` is
    /// never reached: the caller's error path asks [`relaxed`](Self::relaxed).)
    #[inline(always)]
    fn conflict(&self, write: bool, row: &Clock<L>, cur: Acc) -> Option<(&'static str, Acc)> {
        if !self.w.before(row) && self.w != cur {
            return Some((if write { "write-after-write" } else { "read-after-write" }, self.w));
        }
        if write {
            self.after_reads(row)
        } else {
            None
        }
    }

    /// The read a write with view `row` is not ordered after, if any.
    #[inline(always)]
    fn after_reads(&self, row: &Clock<L>) -> Option<(&'static str, Acc)> {
        let mut late = false;
        for (r, k) in self.r_clock.iter().zip(row) {
            // Signed, as `join_into` (see `MAX_CLOCK`): one SSE2 comparison, no sign flips.
            late |= (*r as i32) > (*k as i32);
        }
        if late {
            let l = (0..L).find(|&l| self.r_clock[l] > row[l]).unwrap_or(0);
            return Some(("write-after-read", self.read(l)));
        }
        None
    }

    /// [`conflict`](Self::conflict) with two writes of one pipe allowed: [`DEFER`] for a write
    /// of lane `lane` unordered after a write of its own pipe (record it with
    /// [`defer`](Self::defer)); [`UNORDERED_WRITES`] with the earlier write for a read of
    /// bytes two such writes left; an undetermined segment's later write at its real clock.
    fn relaxed(&self, write: bool, row: &Clock<L>, cur: Acc) -> Option<(&'static str, Acc)> {
        let lane = cur.lane();
        let later = self.later();
        if self.w.clock == UNDETERMINED {
            // No read is recorded here (the slots hold `later`): none to order a write after.
            return if !write {
                Some((UNORDERED_WRITES, later.at_site(self.r_site[0])))
            } else if later.before(row) {
                None
            } else if later.lane() == lane {
                Some((DEFER, later))
            } else {
                Some(("write-after-write", later))
            };
        }
        match self.conflict(write, row, cur) {
            Some(("write-after-write", w)) if w.lane() == lane => self.after_reads(row).or(Some((DEFER, w))),
            other => other,
        }
    }

    /// Records `cur`, a write unordered after the last write, of its own pipe: the bytes are
    /// undetermined until a write ordered after `cur`.
    #[cold]
    fn defer(&mut self, cur: Acc) {
        let earlier = self.later().site();
        self.record(true, cur);
        self.r_clock[0] = cur.clock;
        self.r_site[0] = earlier;
        self.w.clock = UNDETERMINED;
    }

    #[inline(always)]
    fn record(&mut self, write: bool, cur: Acc) {
        if write {
            self.w = cur;
            self.r_clock = [0; L];
            self.r_site = [0; L];
        } else {
            let l = cur.lane() as usize;
            self.r_clock[l] = cur.clock;
            self.r_site[l] = cur.site();
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Seg<const L: usize> {
    s: u32,
    e: u32,
    st: SegState<L>,
}

/// The kind of [`Race`] of a read of bytes that two writes of one pipe left unordered: `prev`
/// is the earlier write ([`Shadow::last_write_at`] the later).
pub(crate) const UNORDERED_WRITES: &str = "unordered-writes";

/// What [`SegState::conflict`] answers for a write unordered after a write of its own pipe:
/// no race yet ([`SegState::defer`] records it).
const DEFER: &str = "defer";

/// The clock of an undetermined segment's last write (see [`SegState`]): above every clock
/// (they stop at [`MAX_CLOCK`]), so no view reaches it.
const UNDETERMINED: u32 = u32::MAX;
const _: () = assert!(UNDETERMINED > MAX_CLOCK);

/// A race found by [`Shadow::access`]: the earlier access and the overlapping bytes.
pub(crate) struct Race {
    pub kind: &'static str,
    pub prev: Acc,
    pub s: u32,
    pub e: u32,
}

/// Entries of [`Shadow`]'s segment cache: `2^CACHE_BITS`.
const CACHE_BITS: u32 = 7;
const CACHE: usize = 1 << CACHE_BITS;

pub(crate) struct Shadow<const L: usize> {
    segs: Vec<Seg<L>>,
    scratch: Vec<Seg<L>>,
    /// A two-way set-associative cache from a range's start to the index of the segment
    /// that was exactly that range (hints, validated on use: segments never overlap, so a
    /// segment with the same bounds is the one), the most recent first. Saves the binary
    /// search on the common access, a whole queue buffer, again and again; two ways keep two
    /// hot ranges whose starts share a set.
    cache: [[u32; 2]; CACHE],
}

impl<const L: usize> Default for Shadow<L> {
    fn default() -> Shadow<L> {
        Shadow { segs: Vec::new(), scratch: Vec::new(), cache: [[0; 2]; CACHE] }
    }
}

#[inline]
fn cache_slot(s: u32) -> usize {
    // Ranges start on 32-byte blocks mostly, and a kernel's buffers are equal-sized and
    // consecutive, so their block numbers step by a power of two often: Fibonacci hashing
    // of the block number spreads such strides over all the slots (the block number modulo
    // the slot count would put 2 KiB buffers into 2 slots).
    (((s >> 5).wrapping_mul(0x9E37_79B9)) >> (32 - CACHE_BITS)) as usize
}

impl<const L: usize> Shadow<L> {
    /// Empties the shadow (as [`Default`]) keeping its allocations; the cache keeps its
    /// stale hints, which are validated on use.
    pub(crate) fn reset(&mut self) {
        self.segs.clear();
        self.scratch.clear();
    }

    /// The same shadow in a wider clock.
    pub(crate) fn widen<const M: usize>(&self) -> Shadow<M> {
        let segs = self.segs.iter().map(|g| Seg { s: g.s, e: g.e, st: g.st.widen() }).collect();
        Shadow { segs, scratch: Vec::new(), cache: self.cache }
    }

    /// Records an access of `[s, e)` by `cur`, whose pipe's view of the others is `row`.
    /// Returns the first race found (the shadow is then left as it was).
    #[inline(always)]
    pub(crate) fn access(
        &mut self,
        s: u32,
        e: u32,
        write: bool,
        cur: Acc,
        row: &Clock<L>,
    ) -> Result<(), Race> {
        // Fastest path: the cache names a segment of exactly these bounds.
        let cslot = cache_slot(s);
        for way in self.cache[cslot] {
            if let Some(g) = self.segs.get_mut(way as usize) {
                if g.s == s && g.e == e {
                    if let Some((kind, prev)) = g.st.conflict(write, row, cur) {
                        return Err(Race { kind, prev, s, e });
                    }
                    g.st.record(write, cur);
                    return Ok(());
                }
            }
        }
        self.access_slow(s, e, write, cur, row, cslot, false)
    }

    /// The last write of the byte at `at`, with its real clock (see [`SegState`]).
    pub(crate) fn last_write_at(&self, at: u32) -> Acc {
        let i = self.segs.partition_point(|g| g.e <= at);
        self.segs.get(i).filter(|g| g.s <= at).map_or(Acc::NONE, |g| g.st.later())
    }

    /// [`access`](Self::access) for an access it found racing: again, with two writes of one
    /// pipe allowed (see [`SegState`]). The caller's error path, so [`access`](Self::access)
    /// itself pays nothing for them.
    #[cold]
    pub(crate) fn access_relaxed(
        &mut self,
        s: u32,
        e: u32,
        write: bool,
        cur: Acc,
        row: &Clock<L>,
    ) -> Result<(), Race> {
        self.access_slow(s, e, write, cur, row, cache_slot(s), true)
    }

    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn access_slow(
        &mut self,
        s: u32,
        e: u32,
        write: bool,
        cur: Acc,
        row: &Clock<L>,
        cslot: usize,
        relaxed: bool,
    ) -> Result<(), Race> {
        if s >= e {
            return Ok(());
        }
        let verdict = |st: &SegState<L>| {
            if relaxed {
                st.relaxed(write, row, cur)
            } else {
                st.conflict(write, row, cur)
            }
        };
        let check = |st: &SegState<L>, a: u32, b: u32| match verdict(st) {
            None | Some((DEFER, _)) => Ok(()),
            Some((kind, prev)) => Err(Race { kind, prev, s: a, e: b }),
        };
        // Only after every segment passed `check`: no race, or a write to defer.
        let update = |st: &mut SegState<L>| match verdict(st) {
            Some((DEFER, _)) => st.defer(cur),
            _ => st.record(write, cur),
        };
        let i = self.segs.partition_point(|g| g.e <= s);
        // Fast path: the access is exactly one existing segment.
        if let Some(g) = self.segs.get_mut(i) {
            if g.s == s && g.e == e {
                let set = &mut self.cache[cslot];
                *set = [i as u32, set[0]];
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
                let mut st = SegState::EMPTY;
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
            let mut st = SegState::EMPTY;
            update(&mut st);
            // Keep the order: a trailing remainder of the last segment (if any) comes after.
            let at = out.iter().position(|g| g.s >= e).unwrap_or(out.len());
            out.insert(at, Seg { s: pos, e, st });
        }
        // Merge equal neighbours inside the new run.
        let mut merged: Vec<Seg<L>> = Vec::with_capacity(out.len());
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
        Acc::new(1, clock, pipe)
    }

    /// A view that knows everything.
    const ALL: Clock<VEC_LANES> = [MAX_CLOCK; VEC_LANES];
    /// A view that knows nothing.
    const NONE: Clock<VEC_LANES> = [0; VEC_LANES];

    /// A view that knows everything but `p`.
    fn all_but(p: pipe_t) -> Clock<VEC_LANES> {
        let mut c = ALL;
        c[lane(p)] = 0;
        c
    }

    #[test]
    fn splits_and_merges() {
        let mut sh = Shadow::<VEC_LANES>::default();
        let v = acc(pipe_t::PIPE_V, 1);
        sh.access(0, 64, true, v, &ALL).ok().unwrap();
        sh.access(32, 96, true, v, &ALL).ok().unwrap();
        assert_eq!(sh.len(), 1);
        let m = acc(pipe_t::PIPE_MTE3, 1);
        sh.access(16, 48, false, m, &ALL).ok().unwrap();
        assert_eq!(sh.len(), 3);
        // an unordered write over the read range is a WAR race at the read's bytes
        let r = sh.access(0, 96, true, acc(pipe_t::PIPE_MTE2, 1), &all_but(pipe_t::PIPE_MTE3)).err().unwrap();
        assert_eq!((r.kind, r.s, r.e), ("write-after-read", 16, 48));
        // an unordered read after the write: RAW
        let r = sh.access(40, 41, false, acc(pipe_t::PIPE_S, 1), &NONE).err().unwrap();
        assert_eq!((r.kind, r.s, r.e), ("read-after-write", 40, 41));
        // gaps are filled
        sh.access(200, 264, false, m, &ALL).ok().unwrap();
        sh.access(150, 300, false, m, &ALL).ok().unwrap();
        assert!(sh.segs.windows(2).all(|w| w[0].e <= w[1].s));
        assert!(sh.segs.iter().all(|g| g.s < g.e));
    }

    #[test]
    fn a_write_names_the_unordered_read_of_each_pipe() {
        let mut sh = Shadow::<VEC_LANES>::default();
        sh.access(0, 64, true, acc(pipe_t::PIPE_MTE2, 1), &ALL).ok().unwrap();
        sh.access(0, 64, false, Acc::new(7, 3, pipe_t::PIPE_V), &ALL).ok().unwrap();
        sh.access(0, 64, false, Acc::new(9, 4, pipe_t::PIPE_S), &ALL).ok().unwrap();
        // MTE2 knows V's read but not S's: the race names S's read, its site and clock
        let mut row = ALL;
        row[lane(pipe_t::PIPE_S)] = 3;
        let r = sh.access(0, 64, true, acc(pipe_t::PIPE_MTE2, 2), &row).err().unwrap();
        assert_eq!((r.kind, r.prev), ("write-after-read", Acc::new(9, 4, pipe_t::PIPE_S)));
        // knowing S's clock 4 orders the write after both reads, and the write clears them
        row[lane(pipe_t::PIPE_S)] = 4;
        sh.access(0, 64, true, acc(pipe_t::PIPE_MTE2, 2), &row).ok().unwrap();
        let mut own = NONE;
        own[lane(pipe_t::PIPE_MTE2)] = 3;
        sh.access(0, 64, true, acc(pipe_t::PIPE_MTE2, 3), &own).ok().unwrap();
    }

    #[test]
    fn unordered_writes_of_one_pipe_are_an_error_only_when_read() {
        let mte2 = pipe_t::PIPE_MTE2;
        let mut sh = Shadow::<VEC_LANES>::default();
        // As the sanitizer does: a race found by the fast check is checked again, relaxed.
        fn go(
            sh: &mut Shadow<VEC_LANES>,
            s: u32,
            e: u32,
            write: bool,
            cur: Acc,
            row: &Clock<VEC_LANES>,
        ) -> Result<(), Race> {
            sh.access(s, e, write, cur, row).or_else(|_| sh.access_relaxed(s, e, write, cur, row))
        }
        // Two MTE2 writes, the second not ordered after the first (MTE2's own lane at 0).
        go(&mut sh, 0, 64, true, Acc::new(3, 1, mte2), &all_but(mte2)).ok().unwrap();
        go(&mut sh, 32, 96, true, Acc::new(4, 2, mte2), &all_but(mte2)).ok().unwrap();
        // A read of the overlap, ordered after both, is the error: it names both writes.
        let r = go(&mut sh, 40, 48, false, acc(pipe_t::PIPE_V, 1), &ALL).err().unwrap();
        assert_eq!((r.kind, r.prev.site(), r.s, r.e), (UNORDERED_WRITES, 3, 40, 48));
        assert_eq!((sh.last_write_at(40).site(), sh.last_write_at(40).clock), (4, 2));
        // Bytes only the first wrote were never in doubt.
        go(&mut sh, 0, 32, false, acc(pipe_t::PIPE_V, 1), &ALL).ok().unwrap();
        // Another pipe writing unordered is still a write-after-write race at once.
        let r = go(&mut sh, 32, 64, true, acc(pipe_t::PIPE_V, 2), &all_but(mte2)).err().unwrap();
        assert_eq!(r.kind, "write-after-write");
        // A write ordered after the later one settles the bytes.
        go(&mut sh, 32, 64, true, Acc::new(5, 3, mte2), &ALL).ok().unwrap();
        go(&mut sh, 32, 64, false, acc(pipe_t::PIPE_V, 3), &ALL).ok().unwrap();
        // Bytes only the second wrote were never in doubt.
        go(&mut sh, 64, 96, false, acc(pipe_t::PIPE_V, 3), &ALL).ok().unwrap();
    }

    #[test]
    fn two_ranges_whose_starts_share_a_cache_set_both_stay_cached() {
        let a = 0u32;
        let b = (1..1 << 14).map(|k| k * 32).find(|&s| cache_slot(s) == cache_slot(a)).unwrap();
        let mut sh = Shadow::<VEC_LANES>::default();
        let v = acc(pipe_t::PIPE_V, 1);
        for _ in 0..2 {
            sh.access(a, a + 32, true, v, &ALL).ok().unwrap();
            sh.access(b, b + 32, true, v, &ALL).ok().unwrap();
        }
        let ways = sh.cache[cache_slot(a)].map(|i| (sh.segs[i as usize].s, sh.segs[i as usize].e));
        assert_eq!(ways, [(b, b + 32), (a, a + 32)]);
    }

    #[test]
    fn cache_hints_survive_shifting_segments() {
        let mut sh = Shadow::<VEC_LANES>::default();
        let v = acc(pipe_t::PIPE_V, 1);
        let m = acc(pipe_t::PIPE_MTE2, 1);
        // [256, 512) is cached at index 0, then a segment before it shifts it to index 1.
        sh.access(256, 512, true, v, &ALL).ok().unwrap();
        sh.access(256, 512, false, m, &ALL).ok().unwrap();
        sh.access(0, 256, true, m, &ALL).ok().unwrap();
        assert_eq!(sh.len(), 2);
        // The stale hint (index 0, now [0, 256)) must not be taken for [256, 512): the write
        // by V, unordered for S, is still found there, and [0, 256) keeps MTE2's write.
        let r = sh.access(256, 512, false, acc(pipe_t::PIPE_S, 1), &all_but(pipe_t::PIPE_V)).err().unwrap();
        assert_eq!((r.kind, r.prev.pipe(), r.s, r.e), ("read-after-write", pipe_t::PIPE_V, 256, 512));
        let r = sh.access(0, 256, false, acc(pipe_t::PIPE_S, 1), &all_but(pipe_t::PIPE_MTE2)).err().unwrap();
        assert_eq!((r.kind, r.prev.pipe(), r.s, r.e), ("read-after-write", pipe_t::PIPE_MTE2, 0, 256));
        // A hit through the cache records like the search does: a later unordered write
        // over [256, 512) finds MTE2's read.
        let r = sh.access(256, 512, true, acc(pipe_t::PIPE_S, 2), &all_but(pipe_t::PIPE_MTE2)).err().unwrap();
        assert_eq!((r.kind, r.prev.pipe()), ("write-after-read", pipe_t::PIPE_MTE2));
    }
}
