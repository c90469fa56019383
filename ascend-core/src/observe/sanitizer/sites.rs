//! Instruction sites: an API name and the source line that called it, interned per core as a
//! `u32`, so the shadow's records are small and compare as integers. Only an error message
//! turns a site back into its name and line.
//!
//! The table is an open-addressing hash set on the identity of the static data (the
//! `Location`'s address, the name's address and length): a kernel has a few dozen sites, each
//! found in one or two probes with no hashing of text.

use std::panic::Location;

/// One slot: the site's key and its id (`id == 0`: empty).
#[derive(Clone, Copy, Default)]
struct Slot {
    loc: usize,
    api: usize,
    len: usize,
    id: u32,
}

/// A core's table of sites. Id 0 is reserved (the shadow's "no access").
pub(crate) struct Sites {
    list: Vec<(&'static str, &'static Location<'static>)>,
    /// Power-of-two sized, at most half full.
    slots: Vec<Slot>,
    /// A two-way set-associative cache in front of `slots`, by the `Location`'s address
    /// (most recent first in each set): a tile loop's few hot sites each keep an entry, even
    /// when two of them land in one set.
    recent: Box<[Set; SETS]>,
}

/// Sets of [`Sites::recent`] (a power of two).
const SETS: usize = 64;

/// One set of [`Sites::recent`]: two slots, one cache line.
#[derive(Clone, Copy, Default)]
#[repr(align(64))]
struct Set([Slot; 2]);
const _: () = assert!(SETS.is_power_of_two() && std::mem::size_of::<Set>() == 64);

impl Default for Sites {
    fn default() -> Sites {
        Sites {
            list: vec![("", Location::caller())],
            slots: vec![Slot::default(); 64],
            recent: Box::new([Set::default(); SETS]),
        }
    }
}

impl Sites {
    /// Empties the table (as [`Default`]) keeping its allocations; free when no site was
    /// interned.
    pub(crate) fn reset(&mut self) {
        if self.list.len() > 1 {
            self.list.truncate(1);
            self.slots.clear();
            self.slots.resize(64, Slot::default());
            self.recent.fill(Set::default());
        }
    }
}

#[inline(always)]
fn hash(loc: usize, api: usize) -> usize {
    let key = (loc as u64) ^ (api as u64).rotate_left(29);
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize
}

impl Slot {
    /// The key of `api` called at `loc`, with `id`.
    #[inline(always)]
    fn of(api: &'static str, loc: &'static Location<'static>, id: u32) -> Slot {
        Slot { loc: loc as *const Location<'static> as usize, api: api.as_ptr() as usize, len: api.len(), id }
    }

    /// Whether `self` holds the site keyed by `k`.
    #[inline(always)]
    fn holds(&self, k: &Slot) -> bool {
        self.loc == k.loc && self.api == k.api && self.len == k.len
    }

    /// The set of [`Sites::recent`] for this key: Fibonacci hashing of the `Location`'s
    /// address (the sites of a kernel sit a few dozen bytes apart).
    #[inline(always)]
    fn recent_set(&self) -> usize {
        ((self.loc as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SETS.trailing_zeros())) as usize
    }
}

impl Sites {
    /// The id of `api` called at `loc` (by identity of the static data, not by text: the
    /// same line calling the same API is one site).
    #[inline(always)]
    pub(crate) fn id(&mut self, api: &'static str, loc: &'static Location<'static>) -> u32 {
        let k = Slot::of(api, loc, 0);
        let [a, b] = &self.recent[k.recent_set()].0;
        if a.holds(&k) {
            return a.id;
        }
        if b.holds(&k) {
            return b.id;
        }
        self.id_slow(api, loc)
    }

    #[inline(never)]
    fn id_slow(&mut self, api: &'static str, loc: &'static Location<'static>) -> u32 {
        let k = Slot::of(api, loc, 0);
        let mask = self.slots.len() - 1;
        let mut i = hash(k.loc, k.api) & mask;
        let id = loop {
            let s = self.slots[i];
            if s.id == 0 {
                break self.insert(api, loc, Slot { id: self.list.len() as u32, ..k }, i);
            }
            if s.holds(&k) {
                break s.id;
            }
            i = (i + 1) & mask;
        };
        let set = &mut self.recent[k.recent_set()].0;
        set[1] = set[0];
        set[0] = Slot { id, ..k };
        id
    }

    #[cold]
    #[inline(never)]
    fn insert(&mut self, api: &'static str, loc: &'static Location<'static>, slot: Slot, at: usize) -> u32 {
        // Distinct (API, source line) pairs of a program: never near the 2^28 that `GmRec::key`
        // packs.
        assert!(slot.id < 1 << 28, "sanitizer: more than 2^28 distinct instruction sites on one core");
        self.list.push((api, loc));
        self.slots[at] = slot;
        if self.list.len() * 2 > self.slots.len() {
            self.grow();
        }
        slot.id
    }

    fn grow(&mut self) {
        let n = self.slots.len() * 2;
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); n]);
        let mask = self.slots.len() - 1;
        for s in old.into_iter().filter(|s| s.id != 0) {
            let mut i = hash(s.loc, s.api) & mask;
            while self.slots[i].id != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
        }
    }

    /// The API and line of a site.
    pub(crate) fn get(&self, id: u32) -> (&'static str, &'static Location<'static>) {
        self.list[id as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_site_same_id_and_back() {
        let mut s = Sites::default();
        let here = Location::caller();
        let there = Location::caller();
        let a = s.id("Add", here);
        let b = s.id("Sub", here);
        let c = s.id("Add", there);
        assert_ne!(a, 0);
        assert_eq!(s.id("Add", here), a);
        assert_eq!(s.get(a).0, "Add");
        assert_eq!(s.get(b).0, "Sub");
        assert!(std::ptr::eq(s.get(c).1, there));
        assert!(a != b && a != c && b != c);
        // many sites: the table grows and still answers
        let names: Vec<&'static str> = (0..500).map(|i| &*format!("Api{i}").leak()).collect();
        let ids: Vec<u32> = names.iter().map(|n| s.id(n, here)).collect();
        for (n, id) in names.iter().zip(&ids) {
            assert_eq!(s.id(n, here), *id);
            assert_eq!(s.get(*id).0, *n);
        }
        assert_eq!(s.id("Add", here), a);
    }
}
