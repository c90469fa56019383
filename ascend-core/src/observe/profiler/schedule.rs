//! The modelled schedule: the cores' records replayed on the chip's pipes.
//!
//! Per core, the scalar unit issues the records in program order, [`Costs::issue`] cycles
//! each. A record on a pipe starts when it has been issued, its pipe has finished the record
//! before it (each pipe is in order), and what it waits for has happened:
//! * `WaitFlag` (a queue's `DeQue` and `AllocTensor` too) holds its pipe until the matching
//!   `SetFlag` (`EnQue`, `FreeTensor`) — set when the setting pipe has finished what it was
//!   given before, plus [`Costs::flag_latency`]; flags of one key pair first in, first out;
//! * `PipeBarrier<PIPE_ALL>` holds the scalar unit until every pipe is idle (a barrier of one
//!   pipe changes nothing: the pipe is in order already);
//! * a scalar access of UB waits for the V, MTE2 and MTE3 pipes, one of GM for MTE3: the
//!   compiler's automatic synchronisation, taken conservatively;
//! * `SyncAll` holds every core until the last one arrives with its pipes idle, plus
//!   [`Costs::sync_all`];
//! * a `CrossCoreWaitFlag` waits for the round it took off its counter: the round's key is
//!   its mode, core group, flag id and number, as `cross_core` and the sanitizer key it (so
//!   that a mode-2 round of one block never releases a wait of another block, nor a mode-0
//!   round a mode-2 wait); the round completes when the last of its members has set it, one
//!   flag latency after that member's pipe finished what it was given before.
//!
//! A core ends when its pipes are idle; the launch takes its slowest core plus the launch
//! head overhead.

use std::collections::VecDeque;
use std::hash::{BuildHasherDefault, Hasher};

/// A multiplicative hasher for the schedule's `u64` keys (flag and round keys): the replay
/// looks one up for every queue operation, and SipHash's cost showed in the profiler's
/// overhead at small tiles.
#[derive(Default, Clone, Copy)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type HashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<KeyHasher>>;

use super::cost::Costs;
use super::{CoreLog, Op, Pipe, Spare};

/// One record's place on the timeline (24 bytes: a launch has one per record).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slice {
    /// Index of the record in its core's log.
    pub rec: u32,
    /// Its pipe.
    pub pipe: Pipe,
    /// First cycle.
    pub start: u64,
    /// Cycle after the last (equal to `start` for a flag).
    pub end: u64,
    /// Whether the pipe works (`false`: it waits, for a flag or in `SyncAll`).
    pub busy: bool,
}

/// A flag from one record to the record that waited for it (an arrow of the trace).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flow {
    /// Core and record that set it.
    pub from: (u32, u32),
    /// Pipe and cycle of the set.
    pub from_at: (Pipe, u64),
    /// Core and record that waited.
    pub to: (u32, u32),
    /// Pipe and cycle the wait ended.
    pub to_at: (Pipe, u64),
}

/// One core's schedule.
#[derive(Clone, Debug, Default)]
pub struct CoreSchedule {
    /// `GetBlockIdx()`.
    pub core: u32,
    /// Whether it is a cube core.
    pub aic: bool,
    /// The cycle its last pipe went idle.
    pub end: u64,
    /// Busy cycles per pipe, in [`Pipe::ALL`] order (the scalar unit's include issuing).
    pub busy: [u64; 7],
    /// The records' slices, in program order.
    pub slices: Vec<Slice>,
    /// The flags this core's pipes waited for (from its own records or, for a cross-core
    /// wait, another core's), in program order of the waits.
    pub flows: Vec<Flow>,
    /// Cycles spent waiting in `SyncAll` for the other cores.
    pub sync_idle: u64,
}

/// Slice buffers of dropped schedules (see [`super::Spare`]).
static SPARE_SLICES: Spare<Slice> = Spare::new(256 << 20);
/// Flow buffers of dropped schedules (see [`super::Spare`]).
static SPARE_FLOWS: Spare<Flow> = Spare::new(256 << 20);

impl Drop for CoreSchedule {
    /// Hands the slice and flow buffers to the next schedule.
    fn drop(&mut self) {
        SPARE_SLICES.give(std::mem::take(&mut self.slices));
        SPARE_FLOWS.give(std::mem::take(&mut self.flows));
    }
}

impl CoreSchedule {
    /// `busy[p] / end` (0 for an empty core).
    pub fn ratio(&self, p: Pipe) -> f64 {
        if self.end == 0 {
            0.0
        } else {
            self.busy[p as usize] as f64 / self.end as f64
        }
    }

    /// The busiest pipe and its ratio.
    pub fn bound(&self) -> (Pipe, f64) {
        Pipe::ALL.iter().map(|&p| (p, self.ratio(p))).fold((Pipe::Scalar, -1.0), |a, b| {
            if b.1 > a.1 {
                b
            } else {
                a
            }
        })
    }
}

/// A launch's schedule.
#[derive(Clone, Debug)]
pub struct LaunchSchedule {
    /// By core number.
    pub cores: Vec<CoreSchedule>,
    /// Launch head overhead, cycles.
    pub head: u64,
    /// The slowest core's end plus the head, cycles.
    pub total: u64,
    /// The constants used.
    pub costs: Costs,
}

impl LaunchSchedule {
    /// [`total`](Self::total) in µs.
    pub fn total_us(&self) -> f64 {
        self.costs.us(self.total)
    }

    /// The flags a pipe waited for (a queue's `DeQue`/`AllocTensor`, `WaitFlag`, a cross-core
    /// wait), core by core ([`CoreSchedule::flows`]).
    pub fn flows(&self) -> impl Iterator<Item = &Flow> + Clone + '_ {
        self.cores.iter().flat_map(|c| &c.flows)
    }
}

/// Where a core stopped.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Stop {
    Done,
    /// At its n-th `SyncAll` (record not yet done).
    Sync(usize),
    /// At a cross-core wait of a round not complete yet.
    Cross(u64),
}

#[derive(Debug)]
pub(crate) struct CoreSim {
    /// `GetBlockIdx()` of the core.
    core: u32,
    /// The next record to replay.
    at: usize,
    s: u64,
    free: [u64; 7],
    /// When the core's share of the chip's GM bandwidth is taken: disjoint `[start, end)`
    /// slots, sorted.
    port: Vec<(u64, u64)>,
    /// Scratch space of [`CoreSim::port_take`].
    scratch: Vec<(u64, u64)>,
    /// Flags set and not yet waited for, by key: cycle, record, pipe.
    flags: Flags,
    /// The costs of the core's last GM copy shapes (see [`CoreSim::copy_cost`]).
    copies: [CopyCost; COPY_MEMO],
    /// The entry of [`CoreSim::copies`] the next new shape takes.
    copy_next: usize,
    syncs: usize,
    out: CoreSchedule,
    /// A core's share of the chip's GM bandwidth ([`Costs::gm_share`]).
    share: f64,
}

/// Fewest records in a launch for [`schedule`] to replay the cores' local parts on several
/// threads (below it, starting the threads costs more than it saves).
const PARALLEL_RECS: usize = 1 << 15;

/// Replays each core of `sims` up to its first record that reads or writes what other cores
/// share (a cross-core flag, `SyncAll`) or its end, on up to `threads` threads. Each core's
/// part is what a core-by-core replay does first, on the core's own state only, so the
/// schedule is the same as without it.
fn run_local_parts(sims: &mut [CoreSim], logs: &[CoreLog], costs: &Costs, active: u32, threads: usize) {
    let threads = threads.min(sims.len());
    if threads < 2 {
        return;
    }
    let per = sims.len().div_ceil(threads);
    std::thread::scope(|sc| {
        for (chunk, logs) in sims.chunks_mut(per).zip(logs.chunks(per)) {
            sc.spawn(move || {
                for (sim, log) in chunk.iter_mut().zip(logs) {
                    sim.run(&log.recs, costs, active, None);
                }
            });
        }
    });
}

/// A cross-core round as the replay met its sets: how many, and the latest one (its cycle,
/// core, record and pipe).
#[derive(Clone, Copy, Debug, Default)]
struct Round {
    sets: u32,
    members: u32,
    last: (u64, u32, u32, Option<Pipe>),
}

/// Replays `logs` with `costs`: [`schedule_threads`] on the host's threads for a launch of
/// at least 2^15 records, on one below.
pub fn schedule(logs: &[CoreLog], costs: &Costs) -> LaunchSchedule {
    schedule_resumed(logs, costs, Vec::new())
}

/// [`schedule`], each core's replay going on from `started[i]` where one is given: a replay
/// of the core's first records, made with the same `costs` and as many active cores as
/// `logs` has (see [`CoreSim::run_local`]). The result is the same as without them.
pub(crate) fn schedule_resumed(
    logs: &[CoreLog],
    costs: &Costs,
    started: Vec<Option<CoreSim>>,
) -> LaunchSchedule {
    let at = |i: usize| started.get(i).and_then(Option::as_ref).map_or(0, |s| s.at);
    let recs: usize = logs.iter().enumerate().map(|(i, l)| l.recs.len() - at(i).min(l.recs.len())).sum();
    let threads =
        if recs < PARALLEL_RECS { 1 } else { std::thread::available_parallelism().map_or(1, usize::from) };
    schedule_from(logs, costs, threads, started)
}

/// Replays `logs` with `costs` as a live profiler does ([`super::LaunchProfiler::live`]):
/// each core's records in chunks of `chunk` as they came, up to its first record that other
/// cores share, then the rest after the launch. The result is [`schedule`]'s.
pub fn schedule_live(logs: &[CoreLog], costs: &Costs, chunk: usize) -> LaunchSchedule {
    let active = logs.len() as u32;
    let started = logs
        .iter()
        .map(|log| {
            let mut sim = CoreSim::new(log.core, log.aic, 0, costs, active);
            let mut end = chunk.max(1);
            while end <= log.recs.len() && sim.run_local(&log.recs[..end], costs, active) {
                end += chunk.max(1);
            }
            Some(sim)
        })
        .collect();
    schedule_resumed(logs, costs, started)
}

/// Replays `logs` with `costs`, each core's records up to the first that other cores share
/// (a cross-core flag, `SyncAll`) on up to `threads` threads, then core by core: the result
/// does not depend on `threads`.
pub fn schedule_threads(logs: &[CoreLog], costs: &Costs, threads: usize) -> LaunchSchedule {
    schedule_from(logs, costs, threads, Vec::new())
}

/// [`schedule_threads`], going on from the replays `started` (see [`schedule_resumed`]).
fn schedule_from(
    logs: &[CoreLog],
    costs: &Costs,
    threads: usize,
    mut started: Vec<Option<CoreSim>>,
) -> LaunchSchedule {
    let active = logs.len() as u32;
    started.resize_with(logs.len(), || None);
    let mut sims: Vec<CoreSim> = logs
        .iter()
        .zip(started)
        .map(|(log, sim)| match sim {
            Some(mut sim) if sim.core == log.core && sim.at <= log.recs.len() => {
                // (A core that ran an `Mmad` after its replay started.)
                sim.out.aic = log.aic;
                sim
            }
            _ => CoreSim::new(log.core, log.aic, log.recs.len(), costs, active),
        })
        .collect();
    run_local_parts(&mut sims, logs, costs, active, threads);
    // Cross-core rounds by key (mode, core group, flag id, round number).
    let mut cross: HashMap<u64, Round> = HashMap::default();
    let mut stops = vec![None; sims.len()];
    let mut first = true;
    loop {
        let mut progress = false;
        for (i, sim) in sims.iter_mut().enumerate() {
            if matches!(stops[i], Some(Stop::Done | Stop::Sync(_))) {
                continue;
            }
            // (The first round continues where the local part stopped.)
            let before = if first { 0 } else { sim.at };
            let stop = sim.run(&logs[i].recs, costs, active, Some(&mut cross)).expect("a full replay stops");
            progress |= sim.at != before || stops[i] != Some(stop);
            stops[i] = Some(stop);
        }
        first = false;
        if stops.iter().all(|s| *s == Some(Stop::Done)) {
            break;
        }
        // Every running core at a SyncAll: release them together.
        let waiting: Vec<usize> = (0..sims.len()).filter(|&i| stops[i] != Some(Stop::Done)).collect();
        if waiting.iter().all(|&i| matches!(stops[i], Some(Stop::Sync(_)))) {
            let arrive = |s: &CoreSim| s.free.iter().copied().fold(s.s, u64::max);
            let t = waiting.iter().map(|&i| arrive(&sims[i])).max().unwrap_or(0) + costs.sync_all;
            for &i in &waiting {
                let sim = &mut sims[i];
                sim.out.sync_idle += t - arrive(sim);
                sim.out.slices.push(Slice {
                    rec: sim.at as u32,
                    pipe: Pipe::Scalar,
                    start: arrive(sim),
                    end: t,
                    busy: false,
                });
                sim.s = t;
                sim.free = [t; 7];
                sim.syncs += 1;
                sim.at += 1;
                stops[i] = None;
            }
            continue;
        }
        if !progress {
            // A cross-core wait no set will satisfy: let the first one through.
            if let Some(&i) = waiting.iter().find(|&&i| matches!(stops[i], Some(Stop::Cross(_)))) {
                sims[i].at += 1;
                stops[i] = None;
            } else {
                break;
            }
        }
    }
    let cores: Vec<CoreSchedule> = sims
        .into_iter()
        .map(|mut s| {
            s.out.end = s.free.iter().copied().fold(s.s, u64::max);
            s.out
        })
        .collect();
    let head = costs.launch_cycles(active);
    let total = cores.iter().map(|c| c.end).max().unwrap_or(0) + head;
    LaunchSchedule { cores, head, total, costs: *costs }
}

/// A GM copy's cost by its shape: the cycles alone on its pipe ([`Costs::gm_copy`] on one
/// core) and the cycles it holds the core's GM share ([`Costs::gm_port`]).
#[derive(Clone, Copy, Debug)]
struct CopyCost {
    /// Rows and row bytes: `rows << 32 | row`.
    shape: u64,
    /// Latency and alignment: `head << 1 | (GM address 512-byte aligned)`.
    kind: u64,
    alone: u64,
    port: u64,
}

/// Entries of [`CoreSim::copies`] (a power of two).
const COPY_MEMO: usize = 8;

/// A core's flags set and not yet waited for: an open-addressing table of their keys (a core
/// has a few dozen: two per queue buffer, the `SetFlag` ids it uses), each key with its queue
/// of (cycle, record, pipe) in the order set. One multiply and one or two probes find a key.
#[derive(Debug, Default)]
struct Flags {
    /// Index + 1 into `keys`/`queues` (0: empty); a power of two, at most half full.
    slots: Vec<u32>,
    keys: Vec<u64>,
    queues: Vec<FlagQueue>,
}

/// A flag set: the cycle, the record that set it, and the pipe it follows.
type SetAt = (u64, u32, Pipe);

/// The sets of one flag not yet waited for, in the order set: the first inline (a queue's
/// flag has at most one pending in a tile loop, so most keys never touch `rest`).
#[derive(Debug, Default)]
struct FlagQueue {
    first: Option<SetAt>,
    /// The later ones (non-empty only while `first` is set).
    rest: VecDeque<SetAt>,
}

impl FlagQueue {
    #[inline]
    fn push_back(&mut self, set: SetAt) {
        if self.first.is_none() {
            self.first = Some(set);
        } else {
            self.rest.push_back(set);
        }
    }

    #[inline]
    fn pop_front(&mut self) -> Option<SetAt> {
        let set = self.first.take()?;
        if !self.rest.is_empty() {
            self.first = self.rest.pop_front();
        }
        Some(set)
    }
}

impl Flags {
    /// The slot of `key`, and its index when present (the table is not empty).
    #[inline]
    fn find(&self, key: u64) -> (usize, Option<usize>) {
        let mask = self.slots.len() - 1;
        let mut i = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & mask;
        loop {
            match self.slots[i] {
                0 => return (i, None),
                n if self.keys[n as usize - 1] == key => return (i, Some(n as usize - 1)),
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// The queue of `key` (made empty the first time).
    #[inline]
    fn queue(&mut self, key: u64) -> &mut FlagQueue {
        if self.slots.is_empty() {
            self.slots = vec![0; 64];
        }
        let q = match self.find(key) {
            (_, Some(q)) => q,
            (i, None) => {
                self.keys.push(key);
                self.queues.push(FlagQueue::default());
                self.slots[i] = self.keys.len() as u32;
                if self.keys.len() * 2 > self.slots.len() {
                    self.slots = vec![0; self.slots.len() * 2];
                    for j in 0..self.keys.len() {
                        let (i, _) = self.find(self.keys[j]);
                        self.slots[i] = j as u32 + 1;
                    }
                }
                self.keys.len() - 1
            }
        };
        &mut self.queues[q]
    }

    /// The first flag of `key` not yet waited for, taken.
    #[inline]
    fn pop(&mut self, key: u64) -> Option<SetAt> {
        if self.slots.is_empty() {
            return None;
        }
        let q = self.find(key).1?;
        self.queues[q].pop_front()
    }
}

impl CoreSim {
    /// A replay of core `core` (a cube core when `aic`) from its first record, for a launch
    /// of `active` cores with `costs`; `recs` records expected (the buffers' first size).
    pub(crate) fn new(core: u32, aic: bool, recs: usize, costs: &Costs, active: u32) -> CoreSim {
        CoreSim {
            core,
            at: 0,
            s: 0,
            free: [0; 7],
            port: Vec::new(),
            scratch: Vec::new(),
            flags: Flags::default(),
            copies: [CopyCost { shape: 0, kind: u64::MAX, alone: 0, port: 0 }; COPY_MEMO],
            copy_next: 0,
            syncs: 0,
            share: costs.gm_share(active),
            out: CoreSchedule {
                core,
                aic,
                slices: {
                    let mut v = SPARE_SLICES.take();
                    v.reserve(recs);
                    v
                },
                // (At most one flow a record, a queue's wait; a tile loop of queues makes
                // one for two or three records: the buffer seldom grows by copying.)
                flows: {
                    let mut v = SPARE_FLOWS.take();
                    v.reserve(recs / 2);
                    v
                },
                ..CoreSchedule::default()
            },
        }
    }

    /// Records replayed so far.
    pub(crate) fn replayed(&self) -> usize {
        self.at
    }

    /// Replays `recs` (the core's records so far, the ones replayed before included) from
    /// where the replay stopped, up to the first record that other cores share (a cross-core
    /// flag, `SyncAll`) or their end: what [`schedule`] replays first, done while the core
    /// runs, on records still in the cache. Returns whether the replay can go on when more
    /// records come (it did not stop at a shared record).
    pub(crate) fn run_local(&mut self, recs: &[super::Rec], costs: &Costs, active: u32) -> bool {
        self.run(recs, costs, active, None).is_some()
    }

    /// The cycles of a GM copy of `rows` rows of `row` bytes at `gm` with latency `head` alone
    /// on its pipe, and the cycles it holds the core's GM share: [`Costs::gm_copy`] on one
    /// core and [`Costs::gm_port`], kept for the shape (a tile loop repeats a few: each costs
    /// three divisions).
    #[inline]
    fn copy_cost(&mut self, costs: &Costs, head: u64, rows: u64, row: u64, gm: u64) -> (u64, u64) {
        let shape = rows << 32 | row;
        let kind = head << 1 | u64::from(gm % 512 == 0);
        let hit = self.copies.iter().position(|e| e.shape == shape && e.kind == kind);
        let e = match hit {
            Some(i) => &self.copies[i],
            None => {
                // (Round robin: a loop's shapes stay while there are at most COPY_MEMO.)
                let i = self.copy_next % COPY_MEMO;
                self.copy_next += 1;
                let alone = costs.gm_copy(head, rows, row, gm, 1);
                let port = super::cost::ceil(Costs::gm_bytes(rows, row) as f64 / self.share);
                self.copies[i] = CopyCost { shape, kind, alone, port };
                &self.copies[i]
            }
        };
        (e.alone, e.port)
    }

    /// Takes `len` cycles of the core's GM bandwidth share from cycle `from` on, in the gaps
    /// the core's other copies left (the copies of MTE2 and MTE3 share it; the share is
    /// work-conserving: a copy later in program order fills a gap before an earlier one's).
    /// Returns the cycle the last of them ends.
    fn port_take(&mut self, from: u64, len: u64) -> u64 {
        if len == 0 {
            return from;
        }
        // No later copy starts before the scalar unit's cycle nor before its pipe is free
        // (each pipe is in order): slots that end before that are done with. (A pipe's first
        // copy is taken to come after the other pipe's: the bound stays tight and the list
        // short when the scalar unit runs far ahead of the pipes.)
        let used =
            [Pipe::Mte2, Pipe::Mte3].map(|p| self.free[p as usize]).into_iter().filter(|&f| f > 0).min();
        let now = self.s.max(used.unwrap_or(0));
        self.port.retain(|&(_, e)| e > now);
        let (mut t, mut need) = (from, len);
        let mut taken = std::mem::take(&mut self.scratch);
        taken.clear();
        for &(a, e) in &self.port {
            if e <= t {
                continue;
            }
            if a > t {
                let take = need.min(a - t);
                taken.push((t, t + take));
                need -= take;
                t += take;
                if need == 0 {
                    break;
                }
            }
            t = t.max(e);
        }
        if need > 0 {
            taken.push((t, t + need));
            t += need;
        }
        // (Usually the one slot taken is after every slot held: appended, or joined to the
        // last one it touches, the list stays sorted and coalesced.)
        if let [(a, e)] = *taken.as_slice() {
            let fast = match self.port.last_mut() {
                Some(l) if l.1 == a => {
                    l.1 = e;
                    true
                }
                Some(l) if l.1 > a => false,
                _ => {
                    self.port.push((a, e));
                    true
                }
            };
            if fast {
                self.scratch = taken;
                return t;
            }
        }
        self.port.extend_from_slice(&taken);
        self.port.sort_unstable();
        // Coalesce touching slots.
        self.port.dedup_by(|next, prev| {
            let touch = next.0 <= prev.1;
            if touch {
                prev.1 = prev.1.max(next.1);
            }
            touch
        });
        self.scratch = taken;
        t
    }

    /// Runs the core until it ends or blocks (`Some`), or without `cross` (its local part:
    /// see [`run_local_parts`]) until it ends or reaches a record that other cores share
    /// (`None` there, before the record).
    fn run(
        &mut self,
        recs: &[super::Rec],
        costs: &Costs,
        active: u32,
        mut cross: Option<&mut HashMap<u64, Round>>,
    ) -> Option<Stop> {
        let core = self.core;
        let issue = costs.issue;
        // One dispatch on the record's kind; every record but `SyncAll` and a cross-core
        // wait is issued first (`issue` cycles on the scalar unit, a count-form vector
        // instruction's own mask-register calls before it).
        while let Some(rec) = recs.get(self.at) {
            let i = self.at as u32;
            match rec.op {
                Op::SyncAll => {
                    cross.as_ref()?;
                    self.s = self.free.iter().copied().fold(self.s + issue, u64::max);
                    self.out.busy[0] += issue;
                    return Some(Stop::Sync(self.syncs));
                }
                Op::CrossWait { round, .. } => {
                    let cross = cross.as_deref()?;
                    let Some(&Round { last: (t, c, r, Some(p)), .. }) =
                        cross.get(&round).filter(|r| r.sets >= r.members)
                    else {
                        return Some(Stop::Cross(round));
                    };
                    self.s += issue;
                    self.out.busy[0] += issue;
                    if t > self.s {
                        self.out.slices.push(Slice {
                            rec: i,
                            pipe: Pipe::Scalar,
                            start: self.s,
                            end: t,
                            busy: false,
                        });
                        self.s = t;
                    }
                    self.out.flows.push(Flow {
                        from: (c, r),
                        from_at: (p, t),
                        to: (core, i),
                        to_at: (Pipe::Scalar, self.s),
                    });
                }
                Op::CrossSet { pipe, round, members, .. } => {
                    let cross = cross.as_deref_mut()?;
                    self.s += issue;
                    self.out.busy[0] += issue;
                    let t = self.free[pipe as usize].max(self.s) + costs.flag_latency;
                    let r = cross.entry(round).or_default();
                    r.sets += 1;
                    r.members = members.max(1);
                    if r.last.3.is_none() || t >= r.last.0 {
                        r.last = (t, core, i, Some(pipe));
                    }
                    self.out.slices.push(Slice { rec: i, pipe, start: t, end: t, busy: false });
                }
                Op::SetFlag { src, key, .. } => {
                    self.s += issue;
                    self.out.busy[0] += issue;
                    let t = self.free[src as usize].max(self.s) + costs.flag_latency;
                    self.flags.queue(key).push_back((t, i, src));
                    self.out.slices.push(Slice { rec: i, pipe: src, start: t, end: t, busy: false });
                }
                Op::WaitFlag { dst, key, .. } => {
                    self.s += issue;
                    self.out.busy[0] += issue;
                    let d = dst as usize;
                    if let Some((t, from, src)) = self.flags.pop(key) {
                        let ready = self.free[d].max(self.s);
                        if t > ready {
                            self.out.slices.push(Slice {
                                rec: i,
                                pipe: dst,
                                start: ready,
                                end: t,
                                busy: false,
                            });
                        }
                        let t = t.max(ready);
                        self.out.flows.push(Flow {
                            from: (core, from),
                            from_at: (src, t),
                            to: (core, i),
                            to_at: (dst, t),
                        });
                        if dst == Pipe::Scalar {
                            self.s = self.s.max(t);
                        } else {
                            self.free[d] = self.free[d].max(t);
                        }
                    }
                }
                Op::Barrier(p) => {
                    self.s += issue;
                    self.out.busy[0] += issue;
                    if p.is_none() {
                        self.s = self.free.iter().copied().fold(self.s, u64::max);
                        self.free = [self.s; 7];
                    }
                }
                Op::Mask => {
                    self.s += issue;
                    self.out.busy[0] += issue;
                    let end = self.s + costs.mask_call;
                    self.out.slices.push(Slice {
                        rec: i,
                        pipe: Pipe::Scalar,
                        start: self.s,
                        end,
                        busy: true,
                    });
                    self.out.busy[0] += costs.mask_call;
                    self.s = end;
                    self.free[0] = self.free[0].max(end);
                }
                Op::Scalar { gm, .. } => {
                    self.s += issue;
                    self.out.busy[0] += issue;
                    let deps: &[Pipe] =
                        if gm { &[Pipe::Mte3] } else { &[Pipe::Vector, Pipe::Mte2, Pipe::Mte3] };
                    let start = deps.iter().map(|&p| self.free[p as usize]).fold(self.s, u64::max);
                    let end = start + if gm { costs.scalar_gm } else { costs.scalar_ub };
                    self.out.slices.push(Slice { rec: i, pipe: Pipe::Scalar, start, end, busy: true });
                    self.out.busy[0] += end - start;
                    self.s = end;
                    self.free[0] = end;
                }
                Op::Vector { dtype, repeats, beats, mask } => {
                    // A count-form instruction sets the mask register itself first.
                    let own = issue + u64::from(mask) * costs.mask_call;
                    self.s += own;
                    self.out.busy[0] += own;
                    // (`Costs::cycles`, with the table row of the site's API looked up once
                    // per site.)
                    let p = Pipe::Vector as usize;
                    let start = self.free[p].max(self.s);
                    let end = start
                        + costs.vec_head
                        + repeats * rec.site.vector_repeat(dtype).max(u64::from(beats));
                    self.out.slices.push(Slice { rec: i, pipe: Pipe::Vector, start, end, busy: true });
                    self.out.busy[p] += end - start;
                    self.free[p] = end;
                }
                Op::Copy { .. } | Op::Mmad { .. } | Op::CubeMove { .. } => {
                    self.s += issue;
                    self.out.busy[0] += issue;
                    let pipe = rec.op.pipe();
                    let p = pipe as usize;
                    let start = self.free[p].max(self.s);
                    let end = match costs.gm_parts(&rec.op) {
                        // A GM copy: alone on its pipe, and holding the core's share of the
                        // chip's bandwidth (which MTE2 and MTE3 share) once its latency is over.
                        Some((head, rows, row, gm)) => {
                            let (alone, port) = self.copy_cost(costs, head, rows, row, gm);
                            (start + alone).max(self.port_take(start + head, port))
                        }
                        None => start + costs.cycles(&rec.op, rec.site.api, active),
                    };
                    self.out.slices.push(Slice { rec: i, pipe, start, end, busy: true });
                    self.out.busy[p] += end - start;
                    self.free[p] = end;
                }
            }
            self.at += 1;
        }
        Some(Stop::Done)
    }
}
