//! Global-memory hazards between the pipes of one core: a `DataCopy` GM → UB or L1 (MTE2) of
//! bytes that this core's MTE3 (`DataCopy` UB → GM), S (`GlobalTensor::SetValue`) or FIX
//! (`Fixpipe` L0C → GM) wrote, with no event ordering MTE2 after the write. On the chip the two DMA queues run independently, so
//! such a read can see the bytes before the write lands (a workspace written and read back
//! needs `SetFlag`/`WaitFlag<HardEvent::MTE3_MTE2>` or `PipeBarrier<PIPE_ALL>`).
//!
//! Each writer pipe keeps its writes in clock order; a write MTE2 already knows of can never
//! race with a later MTE2 read, so the known prefix is dropped at each read that may overlap
//! the list (a read of a region none of the live writes is in skips it) and at each write: in
//! a tile loop, whose reads are of other regions than its writes, the live list stays the few
//! writes MTE2 has not heard of yet (the writes of the last tiles), not [`CAP`] of them. The
//! list is a flat `Vec` whose live part starts at an index (dropping the known prefix moves the
//! index; the dead prefix is cut off once it is as long as the live part), so a write appends
//! to a `Vec` and a read scans one slice (issue 35: the ring it replaces filled up to [`CAP`]
//! entries in a tile loop, a new cache line every other tile, and its appends were calls). Consecutive writes of one site coalesce while no clock of the writer was recorded (by
//! `SetFlag`, a queue event or a barrier) in between, so any pipe's view of the writer falls
//! before a whole entry or after it: the check is exact.
//! The live list holds the last [`CAP`] unordered writes; older ones are forgotten (a read of
//! them is not reported).

use crate::sync::event::pipe_t;

use super::shadow::{lane, Clock};

/// Live writes kept per writer pipe.
pub(crate) const CAP: usize = 256;

/// Dropped writes a list keeps before it cuts them off (see `Writes::push`).
const DEAD: usize = 16;

/// One write (or a run of writes of one site) to global memory.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Write {
    pub region: usize,
    pub s: usize,
    pub e: usize,
    /// The writer's clock at the first and the last write of the run.
    pub first: u32,
    pub last: u32,
    pub site: u32,
    /// The writer's recording mark when the run began.
    mark: u32,
    /// Written in an atomic mode (`SetAtomicAdd` …): two such writes of overlapping bytes
    /// land in either order with the same result, so they are no race with each other.
    atomic: bool,
}

#[derive(Default)]
struct Writes {
    /// The writes, oldest first; the live ones are `recs[head..]`, at most [`CAP`]. Writes
    /// MTE2 knows of are a prefix of them (the list is in clock order), dropped at a read of
    /// the list and at a write; the bound drops the oldest first either way: the newest
    /// [`CAP`] unknown writes are kept whether or not known ones were dropped in between.
    recs: Vec<Write>,
    /// The first live write of `recs`.
    head: usize,
    /// The region of every live write, when they share one ([`MIXED`] when they may not): a
    /// read of another region skips the list (a kernel writes one output region while it
    /// reads its inputs).
    region: usize,
}

impl Writes {
    /// The live writes, oldest first.
    #[inline(always)]
    fn live(&self) -> &[Write] {
        // (`head <= recs.len()`: it moves over live writes only, and to 0 when they shrink.)
        &self.recs[self.head..]
    }

    /// Drops the live writes MTE2 knows of (up to the writer's clock `known`): a prefix.
    #[inline(always)]
    fn drop_known(&mut self, known: u32) {
        while self.recs.get(self.head).is_some_and(|r| r.last <= known) {
            self.head += 1;
        }
        if self.head == self.recs.len() {
            // All known: empty, allocation kept.
            self.recs.clear();
            self.head = 0;
        }
    }

    /// Appends a write, dropping the oldest live one when [`CAP`] are live, and cutting off
    /// the dead prefix once it is [`DEAD`] writes and as long as the live part (so the `Vec`
    /// stays under twice [`CAP`] and each write is moved about once per cut).
    #[inline(always)]
    fn push(&mut self, w: Write) {
        if self.recs.len() - self.head >= CAP {
            self.head += 1;
        }
        if self.head >= DEAD && self.head * 2 >= self.recs.len() {
            self.compact();
        }
        self.recs.push(w);
    }

    #[cold]
    #[inline(never)]
    fn compact(&mut self) {
        self.recs.drain(..self.head);
        self.head = 0;
    }

    /// Empties the list, keeping its allocation.
    fn reset(&mut self) {
        self.recs.clear();
        self.head = 0;
        self.region = 0;
    }
}

/// [`Writes::region`] of a list whose writes may be in several regions.
const MIXED: usize = usize::MAX;

/// The writer pipes checked: MTE3, S and FIX (the cube's, last: a vector core's clock has no
/// lane for it, and it never writes there).
pub(crate) const WRITERS: [pipe_t; 3] = [pipe_t::PIPE_MTE3, pipe_t::PIPE_S, pipe_t::PIPE_FIX];

/// One core's global-memory writes not yet known to its MTE2 pipe.
#[derive(Default)]
pub(crate) struct LocalGm {
    by: [Writes; 3],
}

impl LocalGm {
    /// Empties the lists (as [`Default`]), keeping their allocations.
    pub(crate) fn reset(&mut self) {
        self.by.iter_mut().for_each(Writes::reset);
    }

    /// Records a write by `pipe` (MTE3, S or FIX; others are ignored) of `[s, e)` of `region`, at
    /// the pipe's clock `clock`; `mark` counts the recordings of the pipe's clock so far, and
    /// MTE2 knows the pipe up to clock `known`: when it knows the newest live write, the list
    /// is emptied first, so in a tile loop whose events relay the writer's progress to MTE2
    /// the list stays a write long.
    ///
    /// The writer itself is ordered after its own writes up to clock `own` (a copy pipe
    /// finishes its copies in any order until a `PipeBarrier` or an event it sets): an
    /// earlier write of the pipe past `own` that overlaps this one is returned, a
    /// write-after-write race (the bytes may end up with either value) — unless both are
    /// `atomic` (accumulations land in either order with one result). Every pipe's knowledge
    /// of the writer comes from an event the writer set, which orders the writer too, so the
    /// writes dropped because MTE2 knows them are ones the writer is ordered after.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn write(
        &mut self,
        pipe: pipe_t,
        region: usize,
        s: usize,
        e: usize,
        clock: u32,
        site: u32,
        mark: u32,
        known: u32,
        own: u32,
        atomic: bool,
    ) -> Option<Write> {
        let k = match pipe {
            pipe_t::PIPE_MTE3 => 0,
            pipe_t::PIPE_S => 1,
            pipe_t::PIPE_FIX => 2,
            _ => return None,
        };
        let w = &mut self.by[k];
        // The writes MTE2 knows of: a prefix (they are in clock order), the writer ordered
        // after them too (see above).
        w.drop_known(known);
        // The live writes the writer is not ordered after are the newest ones (in a tile loop,
        // none: the events a copy pipe sets order it after its own copies).
        if w.live().last().is_some_and(|r| r.last > own) {
            if let Some(r) = unordered_overlap(w.live(), region, s, e, clock, own, atomic) {
                return Some(r);
            }
        }
        if let Some(r) = w.recs[w.head..].last_mut() {
            if r.region == region
                && r.site == site
                && r.mark == mark
                && r.atomic == atomic
                && s <= r.e
                && e >= r.s
            {
                r.s = r.s.min(s);
                r.e = r.e.max(e);
                r.last = clock;
                return None;
            }
        }
        w.region = if w.live().is_empty() || w.region == region { region } else { MIXED };
        w.push(Write { region, s, e, first: clock, last: clock, site, mark, atomic });
        None
    }

    /// A read by MTE2, whose view of the other pipes is `row`, of `[s, e)` of `region`: the
    /// first write it overlaps and is not ordered after, with the writer pipe.
    #[inline(always)]
    pub(crate) fn read<const L: usize>(
        &mut self,
        region: usize,
        s: usize,
        e: usize,
        row: &Clock<L>,
    ) -> Option<(pipe_t, Write)> {
        // A clock without FIX's lane belongs to a core that never used the cube: no FIX writes.
        let writers = if L > lane(pipe_t::PIPE_FIX) { WRITERS.len() } else { 2 };
        for (w, pipe) in self.by.iter_mut().zip(WRITERS).take(writers) {
            // A list of writes of another region is skipped before anything else (its known
            // prefix is dropped by a later read of its region, or by `write`'s bound).
            if w.region != region && w.region != MIXED {
                continue;
            }
            w.drop_known(row[lane(pipe)]);
            // `known` is below `first` of every live entry (no recording of the writer's
            // clock inside a run), so an overlap is a race.
            if let Some(r) = w.live().iter().find(|r| r.region == region && r.s < e && s < r.e) {
                debug_assert!(row[lane(pipe)] < r.first);
                return Some((pipe, *r));
            }
        }
        None
    }
}

/// The newest of `recs` (in clock order) past clock `own` that overlaps `[s, e)` of `region`,
/// other than the rows of the copy at `clock` itself (one instruction), and not atomic when
/// this write is.
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn unordered_overlap(
    recs: &[Write],
    region: usize,
    s: usize,
    e: usize,
    clock: u32,
    own: u32,
    atomic: bool,
) -> Option<Write> {
    recs.iter()
        .rev()
        .take_while(|r| r.last > own)
        .find(|r| r.last != clock && r.region == region && r.s < e && s < r.e && !(atomic && r.atomic))
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::sanitizer::shadow::VEC_LANES;

    fn row(mte3: u32) -> Clock<VEC_LANES> {
        let mut c = [0; VEC_LANES];
        c[lane(pipe_t::PIPE_MTE3)] = mte3;
        c
    }

    #[test]
    fn unordered_overlap_is_found_and_known_writes_are_dropped() {
        let mut g = LocalGm::default();
        let m3 = pipe_t::PIPE_MTE3;
        // two runs of one site, split by a recording (mark 0 → 1)
        g.write(m3, 7, 0, 64, 1, 5, 0, 0, u32::MAX, false);
        g.write(m3, 7, 64, 128, 2, 5, 0, 0, u32::MAX, false);
        g.write(m3, 7, 128, 192, 3, 5, 1, 0, u32::MAX, false);
        assert_eq!(g.by[0].live().len(), 2);
        // another region, or no overlap: nothing
        assert!(g.read(8, 0, 64, &row(0)).is_none());
        assert!(g.read(7, 192, 256, &row(0)).is_none());
        // MTE2 knows clock 2: the first run is known, the second is not
        assert!(g.read(7, 0, 128, &row(2)).is_none());
        let (p, w) = g.read(7, 100, 140, &row(2)).unwrap();
        assert_eq!((p, w.s, w.e, w.first), (m3, 128, 192, 3));
        // knowing everything clears the list
        assert!(g.read(7, 0, 192, &row(3)).is_none());
        assert!(g.by[0].live().is_empty());
    }

    #[test]
    fn reads_of_other_regions_skip_the_list_and_mixed_lists_are_searched() {
        let mut g = LocalGm::default();
        let m3 = pipe_t::PIPE_MTE3;
        g.write(m3, 8, 0, 64, 1, 5, 0, 0, u32::MAX, false);
        assert_eq!(g.by[0].region, 8);
        assert!(g.read(7, 0, 64, &row(0)).is_none());
        assert!(g.read(8, 32, 96, &row(0)).is_some());
        // a second region: the list is searched for every read, and finds each region's write
        g.write(m3, 7, 0, 64, 2, 6, 0, 0, u32::MAX, false);
        assert_eq!(g.by[0].region, MIXED);
        let (_, w) = g.read(7, 0, 32, &row(0)).unwrap();
        assert_eq!((w.region, w.site), (7, 6));
        let (_, w) = g.read(8, 0, 32, &row(0)).unwrap();
        assert_eq!((w.region, w.site), (8, 5));
        // once MTE2 knows everything, the list restarts with the next write's region
        assert!(g.read(9, 0, 32, &row(2)).is_none());
        g.write(m3, 9, 0, 64, 3, 7, 1, 0, u32::MAX, false);
        assert_eq!(g.by[0].region, 9);
        assert!(g.read(9, 0, 32, &row(2)).is_some());
    }

    #[test]
    fn writes_mte2_knows_of_are_dropped_at_the_next_write() {
        let mut g = LocalGm::default();
        let m3 = pipe_t::PIPE_MTE3;
        for i in 0..1000u32 {
            // Each write a run of its own (a new mark); MTE2 knows every earlier one.
            let a = i as usize * 64;
            g.write(m3, 7, a, a + 64, i + 1, 5, i, i, u32::MAX, false);
        }
        assert_eq!(g.by[0].live().len(), 1);
        // The newest is still checked, and an earlier one MTE2 knows of is no race.
        assert!(g.read(7, 999 * 64, 1000 * 64, &row(999)).is_some());
        assert!(g.read(7, 0, 64, &row(999)).is_none());
        // MTE2 knowing only an older write drops that one: the newer ones are still live.
        let mut g = LocalGm::default();
        for i in 0..3u32 {
            g.write(m3, 7, i as usize * 64, i as usize * 64 + 64, i + 1, 5, i, 0, u32::MAX, false);
        }
        g.write(m3, 7, 192, 256, 4, 5, 3, 1, u32::MAX, false);
        assert_eq!(g.by[0].live().len(), 3);
        assert!(g.read(7, 0, 64, &row(1)).is_none());
        assert!(g.read(7, 64, 128, &row(1)).is_some());
        assert!(g.read(7, 192, 256, &row(3)).is_some());
    }

    #[test]
    fn a_tile_loop_keeps_the_writes_mte2_has_not_heard_of() {
        // A tile loop: MTE3 writes region 9 tile by tile, MTE2 reads regions 7 and 8 (which
        // skip the list) and hears of MTE3's writes two tiles late. The live list stays the
        // two unknown writes, and a read of region 9 still finds the newest.
        let mut g = LocalGm::default();
        let m3 = pipe_t::PIPE_MTE3;
        for i in 0..1000u32 {
            let a = i as usize * 64;
            assert!(g.read(7, a, a + 64, &row(i.saturating_sub(2))).is_none());
            assert!(g.read(8, a, a + 64, &row(i.saturating_sub(2))).is_none());
            g.write(m3, 9, a, a + 64, i + 1, 5, i, i.saturating_sub(1), i, false);
            assert!(g.by[0].live().len() <= 2);
            assert!(g.by[0].recs.len() <= 2 * DEAD, "the dead prefix is cut off");
        }
        let (p, w) = g.read(9, 0, 64 * 1000, &row(998)).expect("the unknown write is found");
        assert_eq!((p, w.s, w.e, w.first), (m3, 998 * 64, 999 * 64, 999));
        assert!(g.read(9, 0, 998 * 64, &row(998)).is_none());
    }

    #[test]
    fn the_live_list_is_bounded() {
        let mut g = LocalGm::default();
        for i in 0..10 * CAP {
            g.write(pipe_t::PIPE_MTE3, 1, i * 32, i * 32 + 32, i as u32 + 1, 1, i as u32, 0, u32::MAX, false);
        }
        let w = &g.by[0];
        assert_eq!(w.live().len(), CAP);
        // the newest writes are still checked, the oldest forgotten
        assert!(g.read(1, (10 * CAP - 1) * 32, 10 * CAP * 32, &row(0)).is_some());
        assert!(g.read(1, 0, 32, &row(0)).is_none());
    }

    #[test]
    fn an_overlapping_write_the_writer_is_not_ordered_after_is_returned() {
        let mut g = LocalGm::default();
        let m3 = pipe_t::PIPE_MTE3;
        assert!(g.write(m3, 7, 0, 64, 1, 5, 0, 0, 0, false).is_none());
        // touching is no overlap; another region neither
        assert!(g.write(m3, 7, 64, 128, 2, 6, 0, 0, 0, false).is_none());
        assert!(g.write(m3, 8, 0, 64, 3, 6, 0, 0, 0, false).is_none());
        // overlapping the first write, with the writer not ordered after it: a race
        let w = g.write(m3, 7, 32, 40, 4, 6, 0, 0, 0, false).expect("the overlap must be found");
        assert_eq!((w.s, w.e, w.first), (0, 64, 1));
        // once the writer is ordered after clock 3 (a PipeBarrier, an event it set), none
        assert!(g.write(m3, 7, 0, 128, 5, 7, 1, 0, 3, false).is_none());
        // the rows of one copy share its clock: no race with each other
        assert!(g.write(m3, 9, 0, 64, 6, 8, 2, 0, 5, false).is_none());
        assert!(g.write(m3, 9, 32, 96, 6, 8, 2, 0, 5, false).is_none());
    }

    #[test]
    fn atomic_writes_are_no_race_with_each_other_but_with_a_plain_one() {
        let mut g = LocalGm::default();
        let m3 = pipe_t::PIPE_MTE3;
        assert!(g.write(m3, 7, 0, 64, 1, 5, 0, 0, 0, true).is_none());
        assert!(g.write(m3, 7, 0, 64, 2, 6, 0, 0, 0, true).is_none());
        // a plain write over them: a race with the newest (atomic) one
        let w = g.write(m3, 7, 32, 64, 3, 7, 0, 0, 0, false).expect("plain after atomic");
        assert_eq!((w.first, w.atomic), (2, true));
        // an atomic write over a plain one: a race too
        let mut g = LocalGm::default();
        assert!(g.write(m3, 7, 0, 64, 3, 7, 0, 0, 0, false).is_none());
        let w = g.write(m3, 7, 40, 48, 4, 8, 0, 0, 0, true).expect("atomic after plain");
        assert_eq!((w.first, w.atomic), (3, false));
    }
}
