//! Every public instruction under random, often invalid parameters (issue 35, item 7).
//!
//! [`cases`] names one case per public instruction (the vector instructions, the data movement,
//! the advanced API and the cube path); the runner drives each case `FUZZ_CASES` times
//! (default 24) with random operands in the first 32 KiB of the Unified Buffer — usually in
//! disjoint 4 KiB slots, one call in four anywhere (so they overlap, are misaligned, short or
//! empty) — random counts (sometimes zero, one past the operand, or huge), random masks in both
//! mask modes (continuous and bit masks, normal and counter mode, with and without
//! `IS_SET_MASK`), random strides and repeat counts. After every call the whole arena (the
//! Unified Buffer, or on the cube core L1, L0A, L0B and L0C, and a global-memory region) is
//! compared with its image from before the call: every byte outside the operands the
//! instruction writes is a guard byte and must not change. A call that fails must fail with a
//! [`Fault`](ascend_core::Fault) (never an index-out-of-bounds or arithmetic panic of the
//! emulator itself); a basic instruction that fails must leave every byte as it was (its checks
//! run before it writes); an advanced function may have written its outputs and its temporary
//! buffer before a later step's check failed, but nothing else.
//!
//! [`public_instructions`] reads the public instructions from the crate's sources (the
//! `pub fn`s of `src/vector`, `src/adv`, `src/cube`, `copy.rs`, `copy_tail.rs`, and the names
//! the declaration macros (`binary_instr!`, `unary_instr!`, …) generate, and the objects whose
//! methods are instructions, `Matmul`); the listing test
//! fails if one is neither driven here nor exempt (host-side size helpers, register-only calls).

use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use ascend_core::prelude::*;
use ascend_core::{take_last_fault, CoreConfig, GmRegion};

use crate::util::Rng;

/// The Unified Buffer bytes the pipe's buffer covers (compared after every call); the rest of
/// the UB is the stack buffer of the advanced API's `_stack` forms.
const ARENA: usize = 128 * 1024;
/// Operands are drawn from the first `SLOTS * SLOT` bytes.
const SLOT: usize = 4096;
const SLOTS: usize = 8;
const SPAN: usize = SLOT * SLOTS;
/// Temporary buffers are drawn from `[SPAN, SPAN + TMP)`.
const TMP: usize = 32 * 1024;
const GM_BYTES: usize = 1 << 16;

/// A byte range an instruction may write.
pub(crate) type Span = (usize, usize);

/// The byte range of a local tensor.
pub fn r<T: Element>(t: &LocalTensor<T>) -> Span {
    (t.get_phy_addr(), t.get_phy_addr() + t.get_length())
}

/// The state of the run: the arenas, the generator and the counts.
pub struct W {
    /// The compared memories: the UB (vector core) or L1, L0A, L0B, L0C (cube core).
    arenas: Vec<LocalTensor<u8>>,
    gm: Arc<GmRegion>,
    pub rng: Rng,
    slot: usize,
    /// Basic instructions must fail before writing; advanced functions may fail later.
    pub lenient: bool,
    ok: usize,
    faults: usize,
    /// The message of the last fault.
    last: String,
}

impl W {
    /// A random tensor of `T` in the UB: mostly its own 4 KiB slot (or a prefix of it), one in
    /// four anywhere in the first 32 KiB with a random length (overlapping, maybe misaligned).
    pub fn t<T: Element>(&mut self) -> LocalTensor<T> {
        self.t_at::<T>(TPosition::VECCALC, 0)
    }

    /// A tensor of `n` elements in its own slot (one call in five, a random one instead).
    pub fn tn<T: Element>(&mut self, n: usize) -> LocalTensor<T> {
        if self.rng.chance(5) || n * T::SIZE > SLOT {
            return self.t::<T>();
        }
        let s = self.slot;
        self.slot = (s + 1) % SLOTS;
        self.view(TPosition::VECCALC, s * SLOT, n)
    }

    /// `len` elements of `T` from byte `off` of the arena at `pos`.
    fn view<T: Element>(&self, pos: TPosition, off: usize, len: usize) -> LocalTensor<T> {
        let a = self.arenas.iter().find(|a| a.get_position() == pos).unwrap_or(&self.arenas[0]);
        a.view_len(off, len * T::SIZE).reinterpret_cast::<T>()
    }

    /// A random tensor at `pos` (L1, L0A, L0B or L0C on the cube core).
    pub fn t_pos<T: Element>(&mut self, pos: TPosition) -> LocalTensor<T> {
        self.t_at::<T>(pos, 0)
    }

    /// A random tensor in the bias table (`C2`, 1 KiB on Ascend910B): mostly 64-byte aligned
    /// within it, sometimes misaligned or short.
    pub fn t_bt<T: Element>(&mut self) -> LocalTensor<T> {
        let size =
            self.arenas.iter().find(|a| a.get_position() == TPosition::C2).map_or(0, |a| a.get_length());
        let mut off = self.rng.index(size / 64 + 1) * 64;
        if self.rng.chance(6) {
            off += T::SIZE * self.rng.range(1, 3) as usize;
        }
        let off = off.min(size);
        let len = self.rng.index((size - off) / T::SIZE + 1);
        self.view(TPosition::C2, off, len)
    }

    /// As [`W::t`], at another position (the arena for `pos` starts at `base`).
    fn t_at<T: Element>(&mut self, pos: TPosition, base: usize) -> LocalTensor<T> {
        let (off, len) = if self.rng.chance(4) {
            let mut off = self.rng.index(SPAN / 32) * 32;
            if self.rng.chance(6) {
                off += T::SIZE * self.rng.range(1, 3) as usize;
            }
            let len = if self.rng.chance(6) {
                self.rng.index(4)
            } else {
                self.rng.index((SPAN - off) / T::SIZE + 1)
            };
            (off, len)
        } else {
            let s = self.slot;
            self.slot = (self.slot + 1) % SLOTS;
            let len =
                if self.rng.chance(3) { self.rng.range(1, (SLOT / 32) as u64) as usize * 32 } else { SLOT };
            (s * SLOT, len / T::SIZE)
        };
        self.view(pos, base + off, len)
    }

    /// A random temporary buffer of bytes (sometimes short, sometimes overlapping the operands).
    pub fn tmp(&mut self) -> LocalTensor<u8> {
        let len = match self.rng.below(6) {
            0 => self.rng.index(256),
            1 => self.rng.index(TMP),
            _ => TMP,
        };
        if self.rng.chance(8) {
            return self.t::<u8>();
        }
        self.view(TPosition::VECCALC, SPAN, len)
    }

    /// A random element count for operands of `lens` elements: mostly within the shortest,
    /// sometimes 0, one past it, or huge.
    pub fn n(&mut self, lens: &[usize]) -> usize {
        let min = lens.iter().copied().min().unwrap_or(0);
        match self.rng.below(12) {
            0 => 0,
            1 => min + 1,
            2 => self.rng.next() as u32 as usize,
            3 => min,
            _ => self.rng.index(min + 1),
        }
    }

    /// A count for `ts`.
    pub fn cnt<T: Element>(&mut self, ts: &[&LocalTensor<T>]) -> usize {
        let lens: Vec<usize> = ts.iter().map(|t| t.get_size()).collect();
        self.n(&lens)
    }

    /// A random mask for `T` (continuous or bits, sometimes invalid); one call in four switches
    /// to counter mode first (the runner switches back after the call).
    pub fn mask<T: Element>(&mut self) -> Mask {
        let par = (256 / T::SIZE) as u64;
        if self.rng.chance(4) {
            set_mask_count();
        }
        match self.rng.below(16) {
            0 => Mask::Count(self.rng.below(300)),
            1 => Mask::Count(self.rng.next()),
            2 => Mask::Bits([self.rng.next(), self.rng.next()]),
            3 => Mask::Count(0),
            4..=7 => Mask::Bits([self.rng.next(), if par > 64 { self.rng.next() } else { 0 }]),
            _ => Mask::Count(self.rng.range(1, par)),
        }
    }

    /// A repeat count: mostly 0..8, sometimes up to 255.
    pub fn rep(&mut self) -> u8 {
        if self.rng.chance(6) {
            self.rng.below(256) as u8
        } else {
            self.rng.below(9) as u8
        }
    }

    /// A small value below `n`, sometimes anything up to `max`.
    pub fn small(&mut self, n: u64, max: u64) -> u64 {
        if self.rng.chance(10) {
            self.rng.range(0, max)
        } else {
            self.rng.below(n)
        }
    }

    /// Random unary strides: block strides mostly 1, repeat strides mostly 8.
    pub fn up(&mut self) -> UnaryRepeatParams {
        let b = |w: &mut W| if w.rng.chance(2) { 1 } else { w.small(4, 65535) as u16 };
        let rs = |w: &mut W| if w.rng.chance(2) { 8 } else { w.small(20, 255) as u8 };
        UnaryRepeatParams::new(b(self), b(self), rs(self), rs(self))
    }

    /// Random binary strides.
    pub fn bp(&mut self) -> BinaryRepeatParams {
        let b = |w: &mut W| if w.rng.chance(2) { 1 } else { w.small(4, 255) as u8 };
        let rs = |w: &mut W| if w.rng.chance(2) { 8 } else { w.small(20, 255) as u8 };
        BinaryRepeatParams::new(b(self), b(self), b(self), rs(self), rs(self), rs(self))
    }

    /// A random value of `T` in -100..100.
    pub fn v<T: Element>(&mut self) -> T {
        T::from_f64(self.rng.below(200) as f64 - 100.0)
    }

    /// A random GM tensor of `T` and its byte range in the region.
    pub fn g<T: Element>(&mut self) -> (GlobalTensor<T>, Span) {
        let off = self.rng.index(GM_BYTES / 2 / 32) * 32;
        let len = self.rng.index((GM_BYTES - off) / T::SIZE + 1);
        let mut g = GlobalTensor::<T>::new();
        g.set_global_buffer(self.gm.addr().add::<u8>(off), len);
        (g, (off, off + len * T::SIZE))
    }

    fn fill(&mut self) {
        for a in &self.arenas {
            // Finite f32 values that are also arbitrary 16-bit and 8-bit patterns.
            let words: Vec<u8> = (0..a.get_size() / 4)
                .flat_map(|_| ((self.rng.below(2000) as f32 - 1000.0) / 8.0).to_bits().to_le_bytes())
                .collect();
            a.copy_from_slice(&words);
        }
        let g: Vec<u8> = (0..GM_BYTES).map(|_| self.rng.next() as u8).collect();
        self.gm.write_bytes(0, &g);
    }

    /// Runs `call`; only the UB bytes in `ub` may change (in the first arena) and no GM byte.
    pub fn go(&mut self, ub: &[Span], call: impl FnOnce()) {
        self.go_in(&[ub], &[], call)
    }

    /// Runs `call`; only the bytes in `spans[i]` of arena `i`, and the GM bytes in `gm`, may
    /// change. A fault must be a [`Fault`]; on a basic instruction it must leave every byte.
    pub fn go_in(&mut self, spans: &[&[Span]], gm: &[Span], call: impl FnOnce()) {
        let before: Vec<Vec<u8>> = self.arenas.iter().map(|a| a.to_vec()).collect();
        let gm0 = self.gm.to_bytes();
        let _ = take_last_fault();
        let res = catch_unwind(AssertUnwindSafe(call));
        set_mask_norm();
        let after: Vec<Vec<u8>> = self.arenas.iter().map(|a| a.to_vec()).collect();
        let gm1 = self.gm.to_bytes();
        if let Err(p) = res {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            let f = take_last_fault().unwrap_or_else(|| panic!("a panic that is not a Fault: {msg}"));
            assert!(!f.message.is_empty() && !f.api.is_empty(), "an empty fault: {f}");
            self.last = f.to_string();
            if !self.lenient {
                for (i, (a, b)) in before.iter().zip(&after).enumerate() {
                    if let Some(k) = (0..a.len()).find(|&k| a[k] != b[k]) {
                        panic!("failed ({f}) but wrote byte {k:#x} of arena {i} first");
                    }
                }
                assert!(gm0 == gm1, "failed ({f}) but wrote global memory first");
            } else {
                self.compare(&before, &after, spans, &gm0, &gm1, gm);
            }
            self.faults += 1;
            return;
        }
        self.compare(&before, &after, spans, &gm0, &gm1, gm);
        self.ok += 1;
    }

    fn compare(
        &self,
        before: &[Vec<u8>],
        after: &[Vec<u8>],
        spans: &[&[Span]],
        gm0: &[u8],
        gm1: &[u8],
        gm: &[Span],
    ) {
        let inside = |k: usize, ok: &[Span]| ok.iter().any(|&(lo, hi)| (lo..hi).contains(&k));
        for (i, (a, b)) in before.iter().zip(after).enumerate() {
            let ok = spans.get(i).copied().unwrap_or(&[]);
            if let Some(k) = (0..a.len()).find(|&k| a[k] != b[k] && !inside(k, ok)) {
                panic!("byte {k:#x} of arena {i} changed: it is outside the operands written {ok:x?}");
            }
        }
        if let Some(k) = (0..gm0.len()).find(|&k| gm0[k] != gm1[k] && !inside(k, gm)) {
            panic!("GM byte {k:#x} changed: it is outside the operands written {gm:x?}");
        }
    }
}

/// One case: the public function it drives and how.
pub type Case = (&'static str, fn(&mut W));

/// Runs every case of `cases` `per_case` times on a fresh core of `cfg` with the arenas
/// its arenas; returns `(calls that succeeded, calls that failed, a fault if none succeeded)`
/// per case.
fn drive(cases: &[Case], soc: Soc, cube: bool, per_case: usize, seed: u64) -> Vec<(usize, usize, String)> {
    let cfg = if cube {
        CoreConfig { kernel_type: Some(KernelType::AicOnly), ..CoreConfig::single(soc) }
    } else {
        CoreConfig::single(soc)
    };
    let mut stats = vec![(0, 0, String::new()); cases.len()];
    run_on_core(cfg, || {
        let mut pipe = TPipe::new();
        let mut whole = TBuf::<VecCalc>::new();
        let arenas = if cube {
            let soc = get_soc();
            [
                (TPosition::A1, Memory::L1),
                (TPosition::A2, Memory::L0A),
                (TPosition::B2, Memory::L0B),
                (TPosition::CO1, Memory::L0C),
                (TPosition::C2, Memory::BiasTable),
            ]
            .into_iter()
            .filter(|&(_, m)| soc.memory_size(m) > 0)
            .map(|(p, m)| LocalTensor::<u8>::new(p, 0, soc.memory_size(m)))
            .collect()
        } else {
            pipe.init_tbuf(&mut whole, ARENA);
            vec![whole.get::<u8>()]
        };
        let mut w = W {
            arenas,
            gm: GmRegion::zeroed(GM_BYTES),
            rng: Rng(seed),
            slot: 0,
            lenient: false,
            ok: 0,
            faults: 0,
            last: String::new(),
        };
        for round in 0..per_case {
            if round % 2 == 0 {
                w.fill();
            }
            for (i, (name, case)) in cases.iter().enumerate() {
                let (ok0, f0) = (w.ok, w.faults);
                w.slot = w.rng.index(SLOTS);
                w.lenient = false;
                let _ = take_last_fault();
                let r = catch_unwind(AssertUnwindSafe(|| case(&mut w)));
                set_mask_norm();
                if let Err(p) = r {
                    // A host-side helper (a tiling function) rejecting the drawn shape is an
                    // error too; anything else (a guard byte, a panic that is no Fault) fails.
                    let Some(f) = take_last_fault() else {
                        let msg = p.downcast_ref::<String>().cloned().unwrap_or_default();
                        panic!("{name} (round {round}, seed {seed:#x}): {msg}");
                    };
                    w.last = f.to_string();
                    w.faults += 1;
                }
                stats[i].0 += w.ok - ok0;
                stats[i].1 += w.faults - f0;
                if stats[i].0 == 0 && w.faults > f0 {
                    stats[i].2 = std::mem::take(&mut w.last);
                }
            }
        }
        drop(pipe);
    });
    stats
}

/// The calls per instruction: `FUZZ_CASES`, default 24.
fn per_case() -> usize {
    std::env::var("FUZZ_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(24)
}

fn report(cases: &[Case], stats: &[(usize, usize, String)], per_case: usize) {
    let never: Vec<&str> = cases.iter().zip(stats).filter(|(_, s)| s.0 == 0).map(|(c, _)| c.0).collect();
    for (c, s) in cases.iter().zip(stats).filter(|(_, s)| s.0 == 0) {
        println!("{} never ran; a fault: {}", c.0, s.2);
    }
    let (ok, f): (usize, usize) = stats.iter().fold((0, 0), |a, s| (a.0 + s.0, a.1 + s.1));
    println!("{} instructions: {ok} calls ran, {f} failed a check; never ran: {never:?}", cases.len());
    // Not vacuous: both outcomes are common, and almost every instruction ran at least once
    // (with enough calls: the valgrind subset makes one call per instruction).
    if per_case < 12 {
        return;
    }
    assert!(ok > stats.len() && f > stats.len(), "{ok} calls ran, {f} failed");
    assert!(never.len() * 10 <= cases.len(), "{} instructions never ran: {never:?}", never.len());
}

/// Expected faults stay quiet; any other panic is reported as usual.
fn quiet_faults() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info.payload().downcast_ref::<String>().map(String::as_str).unwrap_or("");
        if !msg.starts_with("core 0: ") {
            previous(info)
        }
    }));
}

#[test]
fn every_vector_and_advanced_instruction_keeps_its_guard_bytes() {
    quiet_faults();
    let cases = crate::cases::vector_cases();
    let stats = drive(&cases, Soc::Ascend910B, false, per_case(), 0x35_0007);
    report(&cases, &stats, per_case());
}

#[test]
fn every_instruction_of_the_older_chips_keeps_its_guard_bytes() {
    quiet_faults();
    let cases = crate::cases::ascend310p_cases();
    let stats = drive(&cases, Soc::Ascend310P, false, per_case() * 4, 0x35_0310);
    report(&cases, &stats, per_case());
}

#[test]
fn every_cube_instruction_keeps_its_guard_bytes() {
    quiet_faults();
    let cases = crate::cases::cube_cases();
    let stats = drive(&cases, Soc::Ascend910B, true, per_case() * 4, 0x35_0c0b);
    report(&cases, &stats, per_case());
}

// ---- the listing ----------------------------------------------------------------------------

/// Declaration macros that generate public functions, and which of their comma-separated
/// arguments (doc comments removed) are the names.
const DECL_MACROS: &[(&str, &[usize])] = &[
    ("binary_instr", &[3, 4]),
    ("unary_instr", &[3, 4]),
    ("scalar_instr", &[3, 4]),
    ("compound_instr", &[3, 4]),
    ("level2_max_min", &[0, 1]),
    ("max_min_api", &[0, 1]),
    ("sum_api", &[0, 1]),
    ("max_min_host", &[0]),
];

/// The source files the instructions live in.
fn sources() -> Vec<(String, String)> {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![src.join("memory/copy.rs"), src.join("memory/copy_tail.rs")];
    for dir in ["vector", "adv", "cube"] {
        for e in std::fs::read_dir(src.join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            // Comment lines out (doc comments hold commas and parentheses).
            let code: String = text
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .map(|l| format!("{l}\n"))
                .collect();
            (p.file_name().unwrap().to_string_lossy().into_owned(), code)
        })
        .collect()
}

/// The body of the bracketed group starting at `s[0]` (`(`, `[` or `{`), skipping strings.
fn group(s: &str) -> &str {
    let b = s.as_bytes();
    let (mut depth, mut in_str, mut i) = (0usize, false, 0);
    while i < b.len() {
        match (in_str, b[i]) {
            (true, b'\\') => i += 1,
            (true, b'"') => in_str = false,
            (false, b'"') => in_str = true,
            (false, b'(' | b'[' | b'{') => depth += 1,
            (false, b')' | b']' | b'}') => {
                depth -= 1;
                if depth == 0 {
                    return &s[1..i];
                }
            }
            _ => {}
        }
        i += 1;
    }
    panic!("unbalanced group");
}

/// `s` split at its top-level commas.
fn args(s: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth, mut in_str, mut esc) = (Vec::new(), String::new(), 0i32, false, false);
    for c in s.chars() {
        if in_str {
            in_str = c != '"' || esc;
            esc = c == '\\' && !esc;
        } else {
            match c {
                '"' => in_str = true,
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                ',' if depth == 0 => {
                    out.push(std::mem::take(&mut cur).trim().to_string());
                    continue;
                }
                _ => {}
            }
        }
        cur.push(c);
    }
    out.push(cur.trim().to_string());
    out
}

fn ident_at(s: &str) -> String {
    s.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect()
}

/// Every public function of the instruction modules, read from the sources, and the public
/// objects of [`OBJECTS`].
pub fn public_instructions() -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (file, code) in sources() {
        for line in code.lines() {
            if let Some(rest) = line.strip_prefix("pub fn ") {
                names.insert(ident_at(rest));
            }
            if let Some(rest) = line.strip_prefix("pub struct ") {
                let name = ident_at(rest);
                if OBJECTS.contains(&name.as_str()) {
                    names.insert(name);
                }
            }
        }
        // Macros that declare `pub fn $name` must be known.
        for (i, _) in code.match_indices("macro_rules! ") {
            let m = ident_at(&code[i + 13..]);
            let body = group(&code[i + code[i..].find('{').unwrap()..]);
            if body.contains("pub fn $") && m != "per_repeat_forms" {
                assert!(
                    DECL_MACROS.iter().any(|d| d.0 == m),
                    "{file}: macro {m}! declares public functions; add where its names are to DECL_MACROS"
                );
            }
        }
        for &(m, idx) in DECL_MACROS {
            let pat = format!("\n{m}!");
            for (i, _) in code.match_indices(&pat) {
                let at = i + pat.len();
                let open = at + code[at..].find(['(', '{', '[']).unwrap();
                let a = args(group(&code[open..]));
                for &k in idx {
                    let name = ident_at(a[k].trim_start_matches(|c: char| c == '#' || c.is_whitespace()));
                    assert!(!name.is_empty(), "{file}: {m}! argument {k} is not a name: {:?}", a[k]);
                    names.insert(name);
                }
            }
        }
        for (i, _) in code.match_indices("\nper_repeat_forms!") {
            let open = i + code[i..].find('{').unwrap();
            let body = group(&code[open..]);
            for (j, _) in body.match_indices("fn ") {
                names.insert(ident_at(&body[j + 3..]));
            }
        }
    }
    names
}

/// Public objects whose methods are instructions (the scan reads only free functions): each
/// must be declared (`pub struct` in the scanned sources) and a case named after it drives
/// its methods.
const OBJECTS: &[&str] = &["Matmul"];

/// Public functions that are not instructions over memory, with the reason.
const EXEMPT: &[(&str, &str)] = &[
    ("set_mask_count", "a mask-mode register write"),
    ("set_mask_norm", "a mask-mode register write"),
    ("get_mask_mode", "a register read"),
    ("set_vector_mask", "a register write (driven by the IS_SET_MASK = false calls)"),
    ("set_vector_mask_hi_lo", "a register write"),
    ("reset_mask", "a register write"),
    ("get_vector_mask", "a register read"),
    ("get_cmp_mask", "a register read"),
    ("set_deq_scale", "a register write"),
    ("set_deq_scale_quant", "a register write"),
    ("get_reduce_repeat_sum_spr", "a register read"),
    ("get_reduce_repeat_max_min_spr", "a register read"),
    ("get_reduce_repeat_max_min_spr_value", "a register read"),
    ("get_mrg_sort_result", "a register read"),
    ("get_sort_len", "arithmetic on its argument"),
    ("get_sort_offset", "arithmetic on its argument"),
    ("pop_stack_buffer", "hands out a tensor (driven by every _stack form)"),
];

/// Host-side helpers (tiling and temporary-buffer sizes): arithmetic, no memory.
fn host_helper(n: &str) -> bool {
    n.ends_with("_tmp_size")
        || n.ends_with("_factor_size")
        || n.ends_with("_tiling_info")
        || n.ends_with("_tiling_func")
        || n.starts_with("is_")
}

#[test]
fn the_fuzz_drives_every_public_instruction() {
    let public = public_instructions();
    // The scan sees the macro-generated names too (or the listing would be vacuous).
    for n in [
        "add_masked",
        "exp",
        "adds",
        "mul_cast_masked",
        "whole_reduce_sum",
        "reduce_max",
        "reduce_sum_adv_stack",
        "Matmul",
    ] {
        assert!(public.contains(n), "the source scan misses {n}");
    }
    for (n, _) in EXEMPT {
        assert!(public.contains(*n), "EXEMPT names {n}, which is not a public function");
    }
    let mut driven = BTreeSet::new();
    let all =
        [crate::cases::vector_cases(), crate::cases::ascend310p_cases(), crate::cases::cube_cases()].concat();
    for (n, _) in &all {
        assert!(driven.insert(*n), "two cases drive {n}");
        assert!(public.contains(*n), "a case drives {n}, which is not a public instruction");
    }
    let missing: Vec<&String> = public
        .iter()
        .filter(|n| {
            !driven.contains(n.as_str()) && !host_helper(n) && !EXEMPT.iter().any(|e| e.0 == n.as_str())
        })
        .collect();
    assert!(missing.is_empty(), "public instructions the fuzz does not drive: {missing:?}");
    println!("{} public functions, {} driven by the fuzz", public.len(), driven.len());
}
