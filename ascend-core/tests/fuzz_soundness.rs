//! Property test: random, often invalid parameters through every public instruction and copy.
//!
//! Every call must either fail a check with a [`Fault`] (and then leave every byte of the
//! Unified Buffer and of global memory as it was: checks run before any write), or succeed;
//! then no byte outside the destination operand may have changed (the whole arena and a
//! global-memory region around the tensor are compared, so the bytes around each operand are
//! guard bytes), and for the instructions with a scalar reference here (`Add`, `Sub`,
//! `Duplicate` in every mask mode, `DataCopy` in both forms and all directions) the
//! destination must equal the reference bit for bit.
//!
//! `FUZZ_ITERS` sets the number of calls (default 3000; `scripts/valgrind.sh` uses fewer).

#[path = "common/util.rs"]
mod util;

use std::panic::{catch_unwind, AssertUnwindSafe};

use ascend_core::prelude::*;
use ascend_core::{take_last_fault, CoreConfig, GmRegion};
use util::{prefix_bits, Rng};

const GM_BYTES: usize = 1 << 16;
/// Operands live in the first bytes of the UB, so they often overlap.
const SPAN: usize = 1 << 14;

/// What one call may write, and what it must have written.
enum Expect {
    /// Only UB bytes `[lo, hi)` may change; no reference.
    Ub(usize, usize),
    /// Only GM bytes `[lo, hi)` may change; no reference.
    Gm(usize, usize),
    /// The UB must equal this image if the call succeeds (`None`: the model says it must fail).
    UbImage(Option<Vec<u8>>),
    /// The GM must equal this image if the call succeeds.
    GmImage(Option<Vec<u8>>),
}

struct World {
    ub: LocalTensor<u8>,
    gm: std::sync::Arc<GmRegion>,
    rng: Rng,
    checked: usize,
    faults: usize,
}

impl World {
    fn fill(&mut self) {
        // Finite f32 values (exact sums) that are also arbitrary i32 bit patterns.
        let words: Vec<u8> = (0..self.ub.get_size() / 4)
            .flat_map(|_| ((self.rng.below(2000) as f32 - 1000.0).to_bits()).to_le_bytes())
            .collect();
        self.ub.copy_from_slice(&words);
        let g: Vec<u8> = (0..GM_BYTES).map(|_| self.rng.next() as u8).collect();
        self.gm.write_bytes(0, &g);
    }

    /// A random byte offset: mostly 32-byte aligned, sometimes only element aligned.
    fn off(&mut self, size: usize) -> usize {
        let o = self.rng.index(SPAN / 32) * 32;
        if self.rng.chance(8) {
            o + size * self.rng.range(1, 3) as usize
        } else {
            o
        }
    }

    /// A random tensor of `T` in the UB: offset and length random (sometimes empty).
    fn tensor<T: Element>(&mut self) -> LocalTensor<T> {
        let off = self.off(T::SIZE);
        let len = if self.rng.chance(10) { self.rng.index(4) } else { self.rng.index(SPAN / T::SIZE) };
        self.ub.view_len(off, len * T::SIZE).reinterpret_cast::<T>()
    }

    /// A random GM tensor of `T` and its byte offset in the region.
    fn global<T: Element>(&mut self) -> (GlobalTensor<T>, usize) {
        let off = self.rng.index(GM_BYTES / 2 / T::SIZE) * T::SIZE;
        let len = self.rng.index((GM_BYTES - off) / T::SIZE);
        let mut g = GlobalTensor::<T>::new();
        g.set_global_buffer(self.gm.addr().add::<u8>(off), len);
        (g, off)
    }

    /// A random 128-lane mask (continuous or bits, sometimes invalid).
    fn mask(&mut self, par: usize) -> Mask {
        match self.rng.below(6) {
            0 => Mask::Count(self.rng.below(200)),
            1 => Mask::Count(self.rng.next()),
            2 => Mask::Bits([self.rng.next(), if par > 64 { self.rng.next() } else { 0 }]),
            3 => Mask::Bits([self.rng.next(), self.rng.next()]),
            _ => Mask::Count(self.rng.range(1, par as u64)),
        }
    }

    /// Runs `call` and checks it against `expect`.
    fn check(&mut self, what: &str, expect: Expect, call: impl FnOnce()) {
        let (ub0, gm0) = (self.ub.to_vec(), self.gm.to_bytes());
        let _ = take_last_fault();
        let r = catch_unwind(AssertUnwindSafe(call));
        set_mask_norm();
        let (ub1, gm1) = (self.ub.to_vec(), self.gm.to_bytes());
        if r.is_err() {
            let f = take_last_fault().unwrap_or_else(|| panic!("{what}: a panic that is not a Fault"));
            assert!(!f.message.is_empty() && !f.api.is_empty(), "{what}: {f}");
            assert!(ub0 == ub1 && gm0 == gm1, "{what}: failed ({f}) but wrote memory first");
            self.faults += 1;
            return;
        }
        let same_outside = |a: &[u8], b: &[u8], lo: usize, hi: usize| {
            let first = (0..a.len()).find(|&i| (i < lo || i >= hi) && a[i] != b[i]);
            assert!(first.is_none(), "{what}: byte {:#x} outside [{lo:#x}, {hi:#x}) changed", first.unwrap());
        };
        match expect {
            Expect::Ub(lo, hi) => {
                same_outside(&ub0, &ub1, lo, hi);
                assert_eq!(gm0, gm1, "{what}: GM changed");
            }
            Expect::Gm(lo, hi) => {
                same_outside(&gm0, &gm1, lo, hi);
                assert_eq!(ub0, ub1, "{what}: UB changed");
            }
            Expect::UbImage(img) => {
                let img = img.unwrap_or_else(|| panic!("{what}: succeeded where it must fail"));
                if let Some(i) = (0..img.len()).find(|&i| img[i] != ub1[i]) {
                    panic!("{what}: UB byte {i:#x} is {:#x}, the reference says {:#x}", ub1[i], img[i]);
                }
                assert_eq!(gm0, gm1, "{what}: GM changed");
                self.checked += 1;
            }
            Expect::GmImage(img) => {
                let img = img.unwrap_or_else(|| panic!("{what}: succeeded where it must fail"));
                if let Some(i) = (0..img.len()).find(|&i| img[i] != gm1[i]) {
                    panic!("{what}: GM byte {i:#x} is {:#x}, the reference says {:#x}", gm1[i], img[i]);
                }
                assert_eq!(ub0, ub1, "{what}: UB changed");
                self.checked += 1;
            }
        }
    }
}

fn dst_range<T: Element>(t: &LocalTensor<T>) -> (usize, usize) {
    (t.get_phy_addr(), t.get_phy_addr() + t.get_length())
}

// ---- the scalar reference of the vector addressing model ------------------------------------

/// The lanes of each repeat under `mask` (IS_SET_MASK = true), or `None` if the mask is
/// invalid. Counter mode: contiguous repeats covering the count.
fn plan(mask: Mask, repeats: usize, counter: bool, par: usize, size: usize) -> Option<Vec<[u64; 2]>> {
    if counter {
        let n = match mask {
            Mask::Count(n) | Mask::Bits([n, 0]) => n,
            _ => return None,
        };
        if n == 0 || n > u64::from(u32::MAX) {
            return None;
        }
        // (Counts of millions of repeats are never drawn: `mask` draws small or huge counts.)
        return Some(contiguous(n as usize, par));
    }
    let bits = match mask {
        Mask::Count(n) if (1..=par as u64).contains(&n) => prefix_bits(n as usize),
        Mask::Bits(b) if b != [0, 0] && !(size >= 4 && b[1] != 0) => b,
        _ => return None,
    };
    Some(vec![bits; repeats])
}

/// The lanes of a contiguous run of `n` elements: full repeats and a prefix tail.
fn contiguous(n: usize, par: usize) -> Vec<[u64; 2]> {
    let reps = n.div_ceil(par);
    (0..reps).map(|r| prefix_bits(if r + 1 == reps { n - r * par } else { par })).collect()
}

/// Element offsets `(lane, offset)` of every enabled lane of repeat `r`.
fn lanes(bits: [u64; 2], r: usize, blk: usize, rep: usize, epb: usize, par: usize) -> Vec<(usize, usize)> {
    (0..par)
        .filter(|&j| bits[j / 64] >> (j % 64) & 1 == 1)
        .map(|j| (j, (r * rep + (j / epb) * blk) * epb + j % epb))
        .collect()
}

/// Applies `op` over the plan on a byte image of the UB; `None` if any lane is out of bounds.
#[allow(clippy::too_many_arguments)]
fn reference<T: Element>(
    img: &mut [u8],
    plan: &[[u64; 2]],
    dst: (&LocalTensor<T>, usize, usize),
    srcs: &[(&LocalTensor<T>, usize, usize)],
    op: impl Fn(&[T]) -> T,
) -> Option<()> {
    let (epb, par) = (32 / T::SIZE, 256 / T::SIZE);
    let at = |t: &LocalTensor<T>, e: usize| -> Option<usize> {
        (e < t.get_size()).then_some(t.get_phy_addr() + e * T::SIZE)
    };
    let read = |img: &[u8], a: usize| -> T { bytemuck::pod_read_unaligned(&img[a..a + T::SIZE]) };
    for (r, &bits) in plan.iter().enumerate() {
        // Every lane of a repeat is read before any is written.
        let mut out = Vec::new();
        for (j, e) in lanes(bits, r, dst.1, dst.2, epb, par) {
            let d = at(dst.0, e)?;
            let mut args = Vec::new();
            for s in srcs {
                let (_, es) = lanes(bits, r, s.1, s.2, epb, par).into_iter().find(|x| x.0 == j).unwrap();
                args.push(read(img, at(s.0, es)?));
            }
            out.push((d, op(&args)));
        }
        for (d, v) in out {
            img[d..d + T::SIZE].copy_from_slice(bytemuck::bytes_of(&v));
        }
    }
    Some(())
}

fn overlaps<T: Element>(a: &LocalTensor<T>, b: &LocalTensor<T>) -> bool {
    let (a0, a1) = dst_range(a);
    let (b0, b1) = dst_range(b);
    a0 < b1 && b0 < a1
}

// ---- the calls ------------------------------------------------------------------------------

fn fuzz_binary<T: Element + AddElement + SubElement>(w: &mut World, add_op: bool, f: fn(T, T, bool) -> T) {
    let (d, a, b) = (w.tensor::<T>(), w.tensor::<T>(), w.tensor::<T>());
    let (d, a, b) = match w.rng.below(4) {
        0 => (d.clone(), d, b), // in place
        _ => (d, a, b),
    };
    let counter = w.rng.chance(4);
    let count_form = w.rng.chance(3);
    let what = format!(
        "{}{} {} d={d:?} a={a:?} b={b:?}",
        if add_op { "add" } else { "sub" },
        if count_form { "" } else { "_masked" },
        T::DTYPE
    );
    let mut img = w.ub.to_vec();
    if count_form {
        let count = if w.rng.chance(8) { w.rng.next() as usize } else { w.rng.index(SPAN / T::SIZE) };
        let valid = [&d, &a, &b].iter().all(|t| count <= t.get_size() && t.get_phy_addr() % 32 == 0);
        let ok = valid
            && reference(
                &mut img,
                &contiguous(count, 256 / T::SIZE),
                (&d, 1, 8),
                &[(&a, 1, 8), (&b, 1, 8)],
                |x| f(x[0], x[1], add_op),
            )
            .is_some();
        let expect =
            if ok { Expect::UbImage(Some(img)) } else { Expect::Ub(dst_range(&d).0, dst_range(&d).1) };
        w.check(&what, expect, || if add_op { add(&d, &a, &b, count) } else { sub(&d, &a, &b, count) });
        return;
    }
    let mask = w.mask(256 / T::SIZE);
    let hi = if w.rng.chance(4) { 256 } else { 8 };
    let repeats = w.rng.below(hi) as u8;
    let p = BinaryRepeatParams::new(
        w.rng.below(10) as u8,
        w.rng.below(10) as u8,
        w.rng.below(10) as u8,
        w.rng.below(20) as u8,
        w.rng.below(20) as u8,
        w.rng.below(20) as u8,
    );
    let pl = plan(mask, repeats as usize, counter, 256 / T::SIZE, T::SIZE);
    let aligned = [&d, &a, &b].iter().all(|t| t.get_phy_addr() % 32 == 0);
    let expect = match &pl {
        None => Expect::UbImage(None),
        Some(pl) => {
            let ok = reference(
                &mut img,
                pl,
                (&d, p.dst_blk_stride as usize, p.dst_rep_stride as usize),
                &[
                    (&a, p.src0_blk_stride as usize, p.src0_rep_stride as usize),
                    (&b, p.src1_blk_stride as usize, p.src1_rep_stride as usize),
                ],
                |x| f(x[0], x[1], add_op),
            );
            // A partial overlap may be rejected; in bounds, aligned and disjoint, it must run.
            let disjoint = !overlaps(&d, &a) && !overlaps(&d, &b);
            match ok {
                Some(()) if aligned && disjoint => Expect::UbImage(Some(img)),
                Some(())
                    if aligned
                        && (disjoint
                            || (d.get_phy_addr() == a.get_phy_addr()
                                && !overlaps(&d, &b)
                                && p.dst_blk_stride == p.src0_blk_stride
                                && p.dst_rep_stride == p.src0_rep_stride)) =>
                {
                    Expect::UbImage(Some(img))
                }
                _ if pl.is_empty() || aligned => Expect::Ub(dst_range(&d).0, dst_range(&d).1),
                _ => Expect::UbImage(None),
            }
        }
    };
    if counter {
        set_mask_count();
    }
    w.check(&what, expect, || {
        if add_op {
            add_masked::<T, true>(&d, &a, &b, mask, repeats, &p)
        } else {
            sub_masked::<T, true>(&d, &a, &b, mask, repeats, &p)
        }
    });
}

fn fuzz_duplicate(w: &mut World) {
    let d = w.tensor::<f32>();
    let v = w.rng.below(100) as f32;
    let mut img = w.ub.to_vec();
    if w.rng.chance(3) {
        let count = if w.rng.chance(8) { w.rng.next() as usize } else { w.rng.index(SPAN / 4) };
        let ok = count <= d.get_size() && d.get_phy_addr() % 32 == 0;
        if ok {
            for i in 0..count {
                let a = d.get_phy_addr() + 4 * i;
                img[a..a + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
        w.check("duplicate", Expect::UbImage(ok.then_some(img)), || duplicate(&d, v, count));
        return;
    }
    let counter = w.rng.chance(4);
    let mask = w.mask(64);
    let hi = if w.rng.chance(4) { 256 } else { 8 };
    let repeats = w.rng.below(hi) as u8;
    let (blk, rep) = (w.rng.below(10) as u16, w.rng.below(20) as u8);
    let pl = plan(mask, repeats as usize, counter, 64, 4);
    let ok = pl.as_ref().and_then(|pl| reference(&mut img, pl, (&d, blk as usize, rep as usize), &[], |_| v));
    let aligned = d.get_phy_addr() % 32 == 0;
    let expect = match (pl, ok) {
        (None, _) => Expect::UbImage(None),
        (Some(_), Some(())) if aligned => Expect::UbImage(Some(img)),
        (Some(pl), None) if !pl.is_empty() && aligned => Expect::UbImage(None),
        _ => Expect::Ub(dst_range(&d).0, dst_range(&d).1),
    };
    if counter {
        set_mask_count();
    }
    w.check(
        &format!("duplicate_masked {d:?} {mask:?} r={repeats} {blk}/{rep} counter={counter}"),
        expect,
        || duplicate_masked::<f32, true>(&d, v, mask, repeats, blk, rep),
    );
}

fn fuzz_copy(w: &mut World) {
    let dir = w.rng.below(3);
    let (g, goff) = w.global::<i32>();
    let (u, v) = (w.tensor::<i32>(), w.tensor::<i32>());
    let strided = w.rng.chance(2);
    let params = DataCopyParams::new(
        if w.rng.chance(10) { w.rng.next() as u16 } else { w.rng.below(8) as u16 },
        w.rng.below(6) as u16,
        w.rng.below(4) as u16,
        w.rng.below(4) as u16,
    );
    let count = if w.rng.chance(8) {
        w.rng.next() as usize
    } else {
        w.rng.index(64) * 8 + if w.rng.chance(6) { 3 } else { 0 }
    };
    // Rows of (src byte, dst byte, len) relative to the tensors.
    let rows: Vec<(usize, usize, usize)> = if strided {
        let (n, l) = (params.block_count as usize, params.block_len as usize * 32);
        if n > 4095 {
            vec![(usize::MAX, 0, 1)]
        } else {
            (0..if l == 0 { 0 } else { n })
                .map(|i| {
                    (i * (l + params.src_stride as usize * 32), i * (l + params.dst_stride as usize * 32), l)
                })
                .collect()
        }
    } else if count.checked_mul(4).is_none_or(|b| b % 32 != 0) {
        vec![(usize::MAX, 0, 1)]
    } else {
        vec![(0, 0, count.saturating_mul(4))].into_iter().filter(|r| r.2 > 0).collect()
    };
    let fits = |rows: &[(usize, usize, usize)], src_bytes: usize, dst_bytes: usize| {
        rows.iter().all(|&(s, d, l)| s.checked_add(l).is_some_and(|e| e <= src_bytes) && d + l <= dst_bytes)
    };
    let what =
        format!("copy dir {dir} strided {strided} {params:?} count {count} g=+{goff} {g:?} u={u:?} v={v:?}");
    match dir {
        0 => {
            // GM -> UB
            let gm = w.gm.to_bytes();
            let mut img = w.ub.to_vec();
            let ok = u.get_phy_addr() % 32 == 0 && fits(&rows, g.get_size() * 4, u.get_length());
            if ok {
                for &(s, d, l) in &rows {
                    img[u.get_phy_addr() + d..][..l].copy_from_slice(&gm[goff + s..][..l]);
                }
            }
            w.check(&what, Expect::UbImage(ok.then_some(img)), || {
                if strided {
                    data_copy_params(&u, &g, &params)
                } else {
                    data_copy(&u, &g, count)
                }
            });
        }
        1 => {
            // UB -> GM
            let ub = w.ub.to_vec();
            let mut img = w.gm.to_bytes();
            let ok = u.get_phy_addr() % 32 == 0 && fits(&rows, u.get_length(), g.get_size() * 4);
            if ok {
                for &(s, d, l) in &rows {
                    img[goff + d..][..l].copy_from_slice(&ub[u.get_phy_addr() + s..][..l]);
                }
            }
            w.check(&what, Expect::GmImage(ok.then_some(img)), || {
                if strided {
                    data_copy_params(&g, &u, &params)
                } else {
                    data_copy(&g, &u, count)
                }
            });
        }
        _ => {
            // UB -> UB: overlapping spans may be rejected.
            let mut img = w.ub.to_vec();
            let ok = u.get_phy_addr() % 32 == 0
                && v.get_phy_addr() % 32 == 0
                && fits(&rows, v.get_length(), u.get_length());
            let span = |base: usize, f: fn(&(usize, usize, usize)) -> usize| {
                rows.iter().map(|r| base.saturating_add(f(r)).saturating_add(r.2)).max().map(|e| (base, e))
            };
            let disjoint = match (span(v.get_phy_addr(), |r| r.0), span(u.get_phy_addr(), |r| r.1)) {
                (Some((s0, s1)), Some((d0, d1))) => s1 <= d0 || d1 <= s0,
                _ => true,
            };
            if ok && disjoint {
                let src = img.clone();
                for &(s, d, l) in &rows {
                    img[u.get_phy_addr() + d..][..l].copy_from_slice(&src[v.get_phy_addr() + s..][..l]);
                }
                w.check(&what, Expect::UbImage(Some(img)), || {
                    if strided {
                        data_copy_params(&u, &v, &params)
                    } else {
                        data_copy(&u, &v, count)
                    }
                });
            } else {
                let (lo, hi) = dst_range(&u);
                let e = if ok { Expect::Ub(lo, hi) } else { Expect::UbImage(None) };
                w.check(&what, e, || {
                    if strided {
                        data_copy_params(&u, &v, &params)
                    } else {
                        data_copy(&u, &v, count)
                    }
                });
            }
        }
    }
}

fn fuzz_pad(w: &mut World) {
    let (g, goff) = w.global::<f16>();
    let u = w.tensor::<f16>();
    let p = DataCopyExtParams::new(
        w.rng.below(6) as u16,
        if w.rng.chance(8) { w.rng.next() as u32 } else { w.rng.below(200) as u32 },
        w.rng.below(100) as u32,
        w.rng.below(4) as u32,
    );
    let pad =
        DataCopyPadExtParams::new(w.rng.chance(2), w.rng.below(20) as u8, w.rng.below(20) as u8, f16::ONE);
    if w.rng.chance(2) {
        let (lo, hi) = dst_range(&u);
        w.check(&format!("data_copy_pad {p:?} {pad:?}"), Expect::Ub(lo, hi), || {
            data_copy_pad(&u, &g, &p, &pad)
        });
    } else {
        let (lo, hi) = (goff, goff + g.get_size() * 2);
        w.check(&format!("data_copy_pad_to_gm {p:?}"), Expect::Gm(lo, hi), || {
            data_copy_pad_to_gm(&g, &u, &p)
        });
    }
}

/// The instructions without a reference here: only their destination may change.
fn fuzz_others(w: &mut World) {
    let (d, a, b) = (w.tensor::<f16>(), w.tensor::<f16>(), w.tensor::<f16>());
    let bits = w.tensor::<u8>();
    let mask = w.mask(128);
    let hi = if w.rng.chance(4) { 256 } else { 8 };
    let repeats = w.rng.below(hi) as u8;
    let p = BinaryRepeatParams::new(
        w.rng.below(4) as u8,
        w.rng.below(4) as u8,
        w.rng.below(4) as u8,
        w.rng.below(16) as u8,
        w.rng.below(16) as u8,
        w.rng.below(16) as u8,
    );
    let count = if w.rng.chance(8) { w.rng.next() as usize } else { w.rng.index(2048) };
    let mode = [SelMode::VselCmpmaskSpr, SelMode::VselTensorScalarMode, SelMode::VselTensorTensorMode]
        [w.rng.index(3)];
    let (dlo, dhi) = dst_range(&d);
    let (blo, bhi) = dst_range(&bits);
    match w.rng.below(8) {
        0 => w.check("select", Expect::Ub(dlo, dhi), || select(&d, &bits, &a, &b, mode, count)),
        1 => w.check("select_masked", Expect::Ub(dlo, dhi), || {
            select_masked::<f16, u8, true>(&d, &bits, &a, &b, mode, mask, repeats, &p)
        }),
        2 => w.check("select_scalar", Expect::Ub(dlo, dhi), || {
            select_scalar(&d, &bits, &a, f16::ONE, mode, count)
        }),
        3 => w.check("compare", Expect::Ub(blo, bhi), || compare(&bits, &a, &b, CMPMODE::LT, count)),
        4 => w.check("compare_masked", Expect::Ub(blo, bhi), || {
            compare_masked::<f16, true>(&bits, &a, &b, CMPMODE::GE, mask, repeats, &p)
        }),
        5 => w.check("transpose", Expect::Ub(dlo, dhi), || transpose(&d, &a)),
        6 => {
            let (r, ds, ss) = (w.rng.below(20) as u16, w.rng.below(4) as u16, w.rng.below(4) as u16);
            w.check("vec_trans", Expect::Ub(dlo, dhi), || vec_trans(&d, &a, r, ds, ss))
        }
        _ => {
            // dst and the work tensor may change.
            let (r, st) = (w.rng.below(300) as u16, w.rng.below(12) as u16);
            let lo = dlo.min(b.get_phy_addr());
            let hi = dhi.max(dst_range(&b).1);
            w.check("vec_reduce_add", Expect::Ub(lo, hi), || vec_reduce_add(mask, &d, &a, &b, r, st))
        }
    }
}

fn add_f<T: Element + num_like::Arith>(x: T, y: T, add_op: bool) -> T {
    if add_op {
        x.plus(y)
    } else {
        x.minus(y)
    }
}

mod num_like {
    /// Exact lane arithmetic of the reference: f32 as IEEE, integers wrapping.
    pub trait Arith: Sized {
        fn plus(self, o: Self) -> Self;
        fn minus(self, o: Self) -> Self;
    }
    impl Arith for f32 {
        fn plus(self, o: Self) -> Self {
            self + o
        }
        fn minus(self, o: Self) -> Self {
            self - o
        }
    }
    impl Arith for i32 {
        fn plus(self, o: Self) -> Self {
            self.wrapping_add(o)
        }
        fn minus(self, o: Self) -> Self {
            self.wrapping_sub(o)
        }
    }
}

#[test]
fn random_parameters_give_a_fault_or_the_reference_result_and_never_touch_other_bytes() {
    // Expected faults stay quiet; any other panic is reported as usual.
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info.payload().downcast_ref::<String>().map(String::as_str).unwrap_or("");
        if !msg.starts_with("core 0: ") {
            previous(info)
        }
    }));
    let iters: usize = std::env::var("FUZZ_ITERS").ok().and_then(|s| s.parse().ok()).unwrap_or(3000);
    run_on_core(CoreConfig::single(Soc::Ascend910B), || {
        let mut pipe = TPipe::new();
        let mut whole = TBuf::<VecCalc>::new();
        pipe.init_tbuf(&mut whole, get_soc().ub_size());
        let mut w = World {
            ub: whole.get::<u8>(),
            gm: GmRegion::zeroed(GM_BYTES),
            rng: Rng(0x9E37_79B9_7F4A_7C15),
            checked: 0,
            faults: 0,
        };
        for i in 0..iters {
            if i % 64 == 0 {
                w.fill();
            }
            match w.rng.below(7) {
                0 => fuzz_binary::<f32>(&mut w, true, add_f),
                1 => fuzz_binary::<i32>(&mut w, false, add_f),
                2 => fuzz_duplicate(&mut w),
                3 | 4 => fuzz_copy(&mut w),
                5 => fuzz_pad(&mut w),
                _ => fuzz_others(&mut w),
            }
        }
        // The property must not hold vacuously: many calls ran and were compared.
        assert!(
            w.checked > iters / 10,
            "only {} of {iters} calls were compared with the reference",
            w.checked
        );
        assert!(w.faults > iters / 10, "only {} of {iters} calls failed a check", w.faults);
        println!("{iters} calls: {} compared with the reference, {} faults", w.checked, w.faults);
    });
}

// Every public instruction, and the listing of them (issue 35).
#[path = "fuzz/adv_cases.rs"]
mod adv_cases;
#[path = "fuzz/cases.rs"]
mod cases;
#[path = "fuzz/every.rs"]
mod every;
