//! `Gather` and `Brcb`: the vendor docs' examples, a scalar reference over random offsets,
//! masks, repeats, strides, types and chips, and the checks.

use ascend_core::prelude::*;

use crate::common::util;
use util::{assert_fails, fit_mask, h, mask_bits, on, on_bit, ub, Rng};

use crate::common::prop as strat;
use proptest::prelude::*;

fn random_vals<T: Element>(rng: &mut Rng, n: usize) -> Vec<T> {
    (0..n).map(|_| T::from_f64(rng.below(2000) as f64 - 1000.0)).collect()
}

#[test]
fn doc_gather_example_reverses() {
    for soc in [Soc::Ascend910B, Soc::Ascend310P, Soc::Ascend310B] {
        on(soc, || {
            let u = ub(256 + 1024 + 512);
            let src = u.t::<f16>(0, 128);
            let dst = u.t::<f16>(256, 512);
            let off = u.t::<u32>(1280, 128);
            src.copy_from_slice(&(0..128).map(|i| h(i as f32)).collect::<Vec<_>>());
            off.copy_from_slice(&(0..128).map(|i| 254 - 2 * i).collect::<Vec<u32>>());
            gather(&dst, &src, &off, 0, 128);
            let want: Vec<f16> = (0..128).rev().map(|i| h(i as f32)).collect();
            assert_eq!(util::bits(&dst.to_vec()[..128]), util::bits(&want), "{soc}");
        });
    }
}

#[test]
fn doc_brcb_example() {
    // The vendor's pseudo-code: element 8i + j fills block j of repeat i.
    on(Soc::Ascend910B, || {
        let u = ub(64 + 1024);
        let src = u.t::<u16>(0, 16);
        let dst = u.t::<u16>(64, 512);
        src.copy_from_slice(&(1..=16).collect::<Vec<u16>>());
        brcb(&dst, &src, 2, &BrcbRepeatParams::new(1, 8));
        let want: Vec<u16> = (0..256).map(|k| (k / 16 + 1) as u16).collect();
        assert_eq!(dst.to_vec()[..256], want[..]);
        // Block stride 0 is treated as 1.
        dst.copy_from_slice(&[0; 512]);
        brcb(&dst, &src, 2, &BrcbRepeatParams::new(0, 8));
        assert_eq!(dst.to_vec()[..256], want[..]);
    });
}

#[test]
fn brcb_and_gatherb_leave_the_mask_register_as_the_vendors_do() {
    // Brcb: Ascend910B resets the mask register (the mode stays), Ascend310P also switches to
    // normal mode; Gatherb resets it on Ascend910B only.
    for (soc, repeats) in
        [(Soc::Ascend910B, 1u8), (Soc::Ascend910B, 0), (Soc::Ascend310P, 1), (Soc::Ascend310P, 0)]
    {
        on(soc, || {
            let u = ub(64 + 512);
            let (src, dst) = (u.t::<u16>(0, 16), u.t::<u16>(64, 256));
            set_mask_count();
            set_vector_mask_hi_lo::<u16>(0, 40);
            brcb(&dst, &src, repeats, &BrcbRepeatParams::new(1, 8));
            assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{soc} {repeats}");
            let mode = if soc == Soc::Ascend310P { MaskMode::Normal } else { MaskMode::Counter };
            assert_eq!(get_mask_mode(), mode, "{soc} {repeats}");
        });
    }
    for (soc, reset) in [(Soc::Ascend910B, true), (Soc::Ascend310B, false)] {
        on(soc, || {
            let u = ub(256 + 256 + 32);
            let (src, dst, off) = (u.t::<u16>(0, 128), u.t::<u16>(256, 128), u.t::<u32>(512, 8));
            off.copy_from_slice(&[0; 8]);
            set_vector_mask_hi_lo::<u16>(0, 0xFF);
            gatherb(&dst, &src, &off, 1, &GatherRepeatParams::default());
            let want = if reset { [u64::MAX, u64::MAX] } else { [0xFF, 0] };
            assert_eq!(get_vector_mask(), want, "{soc}");
        });
    }
}

/// One random `gather`/`gather_masked` call: source length, base (modulo the length), form,
/// mask (a count modulo `PAR`, or bits with lane 0 on), repeats, dst repeat stride, count and
/// the seed of the data and offsets.
#[derive(Clone, Debug)]
struct GatherCase {
    n_src: usize,
    base: u64,
    masked: bool,
    mask: Result<u64, [u64; 2]>,
    repeats: usize,
    dst_rep: usize,
    count: usize,
    data_seed: u64,
}

fn gather_strategy() -> impl Strategy<Value = GatherCase> {
    (
        (1..=300usize, any::<u64>(), any::<bool>()),
        strat::count_or_bits(),
        (1..=6usize, 0..=12usize, 1..=700usize, any::<u64>()),
    )
        .prop_map(|((n_src, base, masked), mask, (repeats, dst_rep, count, data_seed))| GatherCase {
            n_src,
            base,
            masked,
            mask,
            repeats,
            dst_rep,
            count,
            data_seed,
        })
}

fn gather_case<T: GatherElement>(c: &GatherCase, soc: Soc) {
    let rng = &mut Rng(c.data_seed);
    let n_src = c.n_src;
    let data = random_vals::<T>(rng, n_src);
    let base_elems = (c.base % n_src as u64) as usize;
    let base = (base_elems * T::SIZE) as u32;
    let masked = c.masked;
    let (mask, repeats, dst_rep) =
        if masked { (fit_mask::<T>(c.mask), c.repeats, c.dst_rep) } else { (Mask::Count(0), 0, 0) };
    let count = c.count;
    let lanes = if masked { repeats * T::PAR } else { count };
    let offs: Vec<u32> =
        (0..lanes).map(|_| (rng.below((n_src - base_elems) as u64) as usize * T::SIZE) as u32).collect();
    let dst_n = if masked { (repeats - 1) * dst_rep * T::EPB + T::PAR } else { count };
    let sb = n_src.div_ceil(T::EPB) * 32;
    let db = dst_n.div_ceil(T::EPB) * 32;
    let u = ub(sb + db + lanes.div_ceil(8) * 32);
    let src = u.t::<T>(0, n_src);
    let dst = u.t::<T>(sb, dst_n);
    let off = u.t::<u32>(sb + db, lanes);
    src.copy_from_slice(&data);
    off.copy_from_slice(&offs);
    let sent = T::from_f64(7.0);
    dst.copy_from_slice(&vec![sent; dst_n]);
    let mut want = vec![sent; dst_n];
    let pick = |l: usize| data[(base as usize + offs[l] as usize) / T::SIZE];
    let ctx = format!(
        "{soc} {} masked {masked} {mask:?} repeats {repeats} dst_rep {dst_rep} count {count}",
        T::DTYPE
    );
    if masked {
        gather_masked(&dst, &src, &off, base, mask, repeats as u8, dst_rep as u16);
        let m = mask_bits(mask);
        // Later repeats overwrite earlier ones where dst repeats overlap (dst_rep < 8).
        for r in 0..repeats {
            for j in (0..T::PAR).filter(|&j| on_bit(m, j)) {
                want[r * dst_rep * T::EPB + j] = pick(r * T::PAR + j);
            }
        }
    } else {
        gather(&dst, &src, &off, base, count as u32);
        for (i, w) in want.iter_mut().enumerate() {
            *w = pick(i);
        }
    }
    assert_eq!(util::bits(&dst.to_vec()), util::bits(&want), "{ctx}");
}

/// One random `brcb` call: repeats, block and repeat stride, and the seed of the data.
#[derive(Clone, Debug)]
struct BrcbCase {
    repeats: usize,
    blk: usize,
    rep: usize,
    data_seed: u64,
}

fn brcb_strategy() -> impl Strategy<Value = BrcbCase> {
    (1..=20usize, 0..=3usize, 0..=20usize, any::<u64>()).prop_map(|(repeats, blk, rep, data_seed)| BrcbCase {
        repeats,
        blk,
        rep,
        data_seed,
    })
}

fn brcb_case<T: BrcbElement>(c: &BrcbCase, soc: Soc) {
    let rng = &mut Rng(c.data_seed);
    let (repeats, blk, rep) = (c.repeats, c.blk, c.rep);
    let data = random_vals::<T>(rng, repeats * 8);
    let eff_blk = blk.max(1);
    let dst_n = ((repeats - 1) * rep + 7 * eff_blk + 1) * T::EPB;
    let u = ub(repeats * 8 * T::SIZE + 32 + dst_n * T::SIZE);
    let sb = (repeats * 8 * T::SIZE).div_ceil(32) * 32;
    let src = u.t::<T>(0, repeats * 8);
    let dst = u.t::<T>(sb, dst_n);
    src.copy_from_slice(&data);
    let sent = T::from_f64(3.0);
    dst.copy_from_slice(&vec![sent; dst_n]);
    brcb(&dst, &src, repeats as u8, &BrcbRepeatParams::new(blk as u16, rep as u16));
    let mut want = vec![sent; dst_n];
    for r in 0..repeats {
        for b in 0..8 {
            let start = (r * rep + b * eff_blk) * T::EPB;
            want[start..start + T::EPB].fill(data[r * 8 + b]);
        }
    }
    assert_eq!(
        util::bits(&dst.to_vec()),
        util::bits(&want),
        "{soc} {} repeats {repeats} blk {blk} rep {rep}",
        T::DTYPE
    );
}

/// `$per_chip` cases per chip drawn from `$seed`, each run for every type the chip supports.
macro_rules! per_type {
    ($name:ident, $case:ident, $strategy:expr, $supported:ident, [$($t:ty),*], $per_chip:literal, $seed:literal) => {
        #[test]
        fn $name() {
            let cases = (strat::soc_of(Soc::ALL.to_vec()), $strategy);
            strat::check_cases($per_chip * Soc::ALL.len() as u32, $seed, cases, |(soc, c)| {
                let soc = *soc;
                on(soc, || {
                    $( if <$t>::$supported(soc) { $case::<$t>(c, soc); } )*
                });
            });
        }
    };
}

per_type!(
    gather_matches_reference,
    gather_case,
    gather_strategy(),
    gather_supported,
    [u16, i16, f16, bf16, u32, i32, f32],
    30,
    0xB0C0_1234
);
per_type!(
    brcb_matches_reference,
    brcb_case,
    brcb_strategy(),
    brcb_supported,
    [u16, i16, f16, bf16, u32, i32, f32],
    30,
    0xB0C0_1234
);

#[test]
fn checks() {
    on(Soc::Ascend910, || {
        let u = ub(1024);
        let (a, o) = (u.t::<f16>(0, 128), u.t::<u32>(512, 128));
        assert_fails("T = half is not supported by Gather on Ascend910", || gather(&a, &a, &o, 0, 16));
        assert_fails("T = half is not supported by Brcb on Ascend910", || {
            brcb(&a, &a, 1, &BrcbRepeatParams::default())
        });
    });
    on(Soc::Ascend310P, || {
        let u = ub(1024);
        let b = u.t::<bf16>(0, 128);
        assert_fails("T = bfloat16_t is not supported by Brcb on Ascend310P", || {
            brcb(&b, &b, 1, &BrcbRepeatParams::default())
        });
    });
    on(Soc::Ascend910B, || {
        let u = ub(2048);
        let (src, dst, off) = (u.t::<f32>(0, 64), u.t::<f32>(256, 128), u.t::<u32>(1024, 128));
        off.copy_from_slice(&[0; 128]);
        off.set_value(5, 256);
        assert_fails("srcOffset[5] = 256", || gather(&dst, &src, &off, 0, 8));
        off.set_value(5, 2);
        assert_fails("must be a multiple of 4", || gather(&dst, &src, &off, 0, 8));
        off.set_value(5, 0);
        assert_fails("lane 128 needs srcOffset[128]", || gather_masked(&dst, &src, &off, 0, 64u64, 3, 1));
        assert_fails("srcBaseAddr = 256", || gather(&dst, &src, &off, 256, 8));
        // dst over the offsets is an error; in place over src is covered in chip_rules.rs.
        assert_fails("overlaps srcOffset", || gather(&off.reinterpret_cast::<f32>(), &src, &off, 0, 8));
        assert_fails("src holds 64 elements but repeatTime = 9 reads 72", || {
            brcb(&dst, &src, 9, &BrcbRepeatParams::default())
        });
        assert_fails("Brcb cannot work in place", || brcb(&src, &src, 1, &BrcbRepeatParams::new(1, 8)));
        assert_fails("dst would touch element", || brcb(&dst, &src, 3, &BrcbRepeatParams::new(2, 8)));
    });
}

// ---- GatherMask ---------------------------------------------------------------------------

#[test]
fn doc_gather_mask_figures() {
    // Figure 1: fixed pattern 2 (odd lanes), mask = 70, 2 repeats, counter mode configuration 1
    // (Ascend910B): lanes 0..70 of each repeat, the odd ones.
    on(Soc::Ascend910B, || {
        let u = ub(1024 + 1024 + 64);
        let src = u.t::<u16>(0, 512);
        let dst = u.t::<u16>(1024, 512);
        let pat = u.t::<u16>(2048, 16);
        src.copy_from_slice(&(0..512).map(|i| i as u16).collect::<Vec<_>>());
        let n = gather_mask::<u16, u16>(
            &dst,
            &src,
            GatherPattern::Fixed(2),
            true,
            70,
            &GatherMaskParams::new(1, 2, 8, 0),
        );
        let want: Vec<u16> =
            (0..2).flat_map(|r| (0..70).filter(|j| j % 2 == 1).map(move |j| r * 128 + j)).collect();
        assert_eq!(n, 70);
        assert_eq!(dst.to_vec()[..70], want[..]);
        assert_eq!(get_mask_mode(), MaskMode::Normal);
        // Figures 2 and 3: the user pattern 0x9999… keeps lanes 0 and 3 of every 4.
        pat.copy_from_slice(&[0x9999; 16]);
        let n = gather_mask(
            &dst,
            &src,
            GatherPattern::Tensor(&pat),
            true,
            70,
            &GatherMaskParams::new(1, 2, 8, 0),
        );
        let want: Vec<u16> = (0..2)
            .flat_map(|r| (0..70).filter(|j| j % 4 == 0 || j % 4 == 3).map(move |j| r * 128 + j))
            .collect();
        assert_eq!(n as usize, want.len());
        assert_eq!(dst.to_vec()[..want.len()], want[..]);
    });
    // Configuration 2 (Ascend310P): mask is the total, 70 elements.
    on(Soc::Ascend310P, || {
        let u = ub(2048);
        let src = u.t::<u16>(0, 512);
        let dst = u.t::<u16>(1024, 512);
        src.copy_from_slice(&(0..512).map(|i| i as u16).collect::<Vec<_>>());
        let n = gather_mask::<u16, u16>(
            &dst,
            &src,
            GatherPattern::Fixed(2),
            true,
            70,
            &GatherMaskParams::new(1, 2, 8, 0),
        );
        assert_eq!(n, 35);
        assert_eq!(dst.to_vec()[..35], (0..70).filter(|j| j % 2 == 1).collect::<Vec<u16>>()[..]);
    });
}

/// One random `gather_mask` call: repeats, block and repeat strides, counter mode, the mask
/// (modulo its per-chip limit), fixed or tensor pattern, the fixed pattern (modulo the chip's
/// count), the pattern's repeat stride and the seed of the data and the pattern tensor.
#[derive(Clone, Debug)]
struct GatherMaskCase {
    repeats: usize,
    blk: usize,
    rep: usize,
    counter: bool,
    mask: u64,
    fixed: bool,
    pattern: u8,
    rep1: usize,
    data_seed: u64,
}

fn gather_mask_strategy() -> impl Strategy<Value = GatherMaskCase> {
    (
        (1..=6usize, 1..=3usize, 0..=16usize, any::<bool>()),
        (any::<u64>(), any::<bool>(), any::<u8>(), 0..=2usize, any::<u64>()),
    )
        .prop_map(|((repeats, blk, rep, counter), (mask, fixed, pattern, rep1, data_seed))| {
            GatherMaskCase { repeats, blk, rep, counter, mask, fixed, pattern, rep1, data_seed }
        })
}

fn gather_mask_case<T: GatherElement, U: Element>(c: &GatherMaskCase, soc: Soc) {
    let rng = &mut Rng(c.data_seed);
    let (repeats, blk, rep, counter) = (c.repeats, c.blk, c.rep, c.counter);
    let limit = if soc == Soc::Ascend310P { 3 * T::PAR as u64 } else { T::PAR as u64 };
    let mask = (1 + c.mask % limit) as usize;
    let fixed = c.fixed;
    let top = if soc == Soc::Ascend310P { 6 } else { 7 };
    let p = 1 + c.pattern % top;
    let rep1 = c.rep1;
    // The lanes (r, j) the call walks.
    let walk: Vec<(usize, usize)> = if counter && soc == Soc::Ascend310P {
        (0..mask).map(|i| (i / T::PAR, i % T::PAR)).collect()
    } else {
        let per = if counter { mask } else { T::PAR };
        (0..repeats).flat_map(|r| (0..per).map(move |j| (r, j))).collect()
    };
    let last_r = walk.last().unwrap().0;
    let n_src = (last_r * rep + 7 * blk + 1) * T::EPB;
    let data = random_vals::<T>(rng, n_src);
    let pbytes = (last_r + 1) * rep1.max(1) * 32 + 32;
    let pattern: Vec<u8> = rng.bytes(pbytes);
    let sb = n_src.div_ceil(T::EPB) * 32;
    let u = ub(sb + walk.len() * T::SIZE + 32 + pbytes);
    let src = u.t::<T>(0, n_src);
    let dst = u.t::<T>(sb, walk.len().max(1));
    let pat = u.t::<U>(sb + (walk.len() * T::SIZE).div_ceil(32) * 32, pbytes / U::SIZE);
    src.copy_from_slice(&data);
    pat.reinterpret_cast::<u8>().copy_from_slice(&pattern);
    let params = GatherMaskParams::new(blk as u8, repeats as u16, rep as u16, rep1 as u8);
    let pattern_arg = if fixed { GatherPattern::Fixed(p) } else { GatherPattern::Tensor(&pat) };
    let n = gather_mask(&dst, &src, pattern_arg, counter, mask as u32, &params);
    let keep = |r: usize, j: usize| {
        if fixed {
            match p {
                1 => j % 2 == 0,
                2 => j % 2 == 1,
                3..=6 => j % 4 == (p - 3) as usize,
                _ => true,
            }
        } else {
            pattern[r * rep1 * 32 + j / 8] >> (j % 8) & 1 == 1
        }
    };
    let want: Vec<T> = walk
        .iter()
        .filter(|&&(r, j)| keep(r, j))
        .map(|&(r, j)| data[(r * rep + (j / T::EPB) * blk) * T::EPB + j % T::EPB])
        .collect();
    let ctx = format!("{soc} {} counter {counter} mask {mask} fixed {fixed} p {p} repeats {repeats} blk {blk} rep {rep} rep1 {rep1}", T::DTYPE);
    assert_eq!(n as usize, want.len(), "{ctx}");
    assert_eq!(util::bits(&dst.to_vec()[..want.len()]), util::bits(&want), "{ctx}");
}

#[test]
fn gather_mask_matches_reference() {
    let cases = (strat::soc_of(Soc::ALL.to_vec()), gather_mask_strategy());
    strat::check_cases(40 * Soc::ALL.len() as u32, 0x6A7E_4D51, cases, |(soc, c)| {
        let soc = *soc;
        on(soc, || {
            if f16::gather_supported(soc) {
                gather_mask_case::<f16, u16>(c, soc);
                gather_mask_case::<i16, u16>(c, soc);
                gather_mask_case::<f32, u32>(c, soc);
                gather_mask_case::<u32, u32>(c, soc);
            }
            if bf16::gather_supported(soc) {
                gather_mask_case::<bf16, u16>(c, soc);
            }
        });
    });
}

/// `gather_mask` over one repeat (block stride 1, repeat stride 8) with the pattern of `U`s.
fn gather_mask_once<T: GatherElement, U: Element>(
    d: &LocalTensor<T>,
    s: &LocalTensor<T>,
    pattern: GatherPattern<'_, U>,
    reduce_mode: bool,
    mask: u32,
) {
    gather_mask(d, s, pattern, reduce_mode, mask, &GatherMaskParams::new(1, 1, 8, 0));
}

#[test]
fn gather_mask_checks() {
    on(Soc::Ascend310P, || {
        let u = ub(1024);
        let (s, d) = (u.t::<f16>(0, 256), u.t::<f16>(512, 256));
        assert_fails("src1Pattern = 7 is out of range [1, 6] on Ascend310P", || {
            gather_mask_once::<f16, u16>(&d, &s, GatherPattern::Fixed(7), false, 0)
        });
    });
    on(Soc::Ascend910B, || {
        let u = ub(1024);
        let (s, d, p) = (u.t::<f32>(0, 128), u.t::<f32>(512, 32), u.t::<u16>(640, 16));
        assert_fails("src1Pattern holds uint16_t but float data needs a 32-bit pattern type", || {
            gather_mask_once(&d, &s, GatherPattern::Tensor(&p), false, 0)
        });
        assert_fails("dst holds 32 elements but 64 are kept", || {
            gather_mask_once::<f32, u32>(&d, &s, GatherPattern::Fixed(7), false, 0)
        });
        // Counter mode, 65 lanes of one repeat (above the 64 a repeat holds): 33 kept.
        assert_fails("dst holds 32 elements but 33 are kept", || {
            gather_mask_once::<f32, u32>(&d, &s, GatherPattern::Fixed(1), true, 65)
        });
    });
    on(Soc::Ascend910, || {
        let u = ub(1024);
        let (s, d) = (u.t::<f32>(0, 128), u.t::<f32>(512, 128));
        assert_fails("T = float is not supported by GatherMask on Ascend910", || {
            gather_mask_once::<f32, u32>(&d, &s, GatherPattern::Fixed(1), false, 0)
        });
    });
}

// ---- CreateVecIndex -----------------------------------------------------------------------

/// `first + k` the way the vendor's scalar code computes it.
fn seq_scalar<T: Element>(first: T, k: usize) -> T {
    if T::IS_FLOAT {
        T::from_f64(f64::from(first.to_f64() as f32 + k as f32))
    } else {
        let b = (first.to_f64() as i64 + k as i64).to_le_bytes();
        bytemuck::pod_read_unaligned(&b[..T::SIZE])
    }
}

/// Lane `j` of repeat `r`: the first block by scalar code, later blocks `+ EPB` each, later
/// repeats `+ PAR` each (bit masks: the whole first repeat by scalar code).
fn seq_value<T: Element>(first: T, r: usize, j: usize, bits: bool) -> T {
    let (b, e) = (j / T::EPB, j % T::EPB);
    let mut x = if bits { seq_scalar(first, j) } else { seq_scalar(first, e) };
    if !bits {
        for _ in 0..b {
            x = T::add(x, T::from_f64(T::EPB as f64));
        }
    }
    for _ in 0..r {
        x = T::add(x, T::from_f64(T::PAR as f64));
    }
    x
}

/// One random `create_vec_index` call: the first value (`-1000..4000`), the count form with
/// its count, or the masked form with its mask (bits with lane 0 on, or a count modulo `PAR`),
/// repeats, block and repeat stride.
#[derive(Clone, Debug)]
struct VecIndexCase {
    first: u16,
    count_form: bool,
    count: usize,
    mask: Result<u64, [u64; 2]>,
    repeats: usize,
    blk: usize,
    rep: usize,
}

fn vec_index_strategy() -> impl Strategy<Value = VecIndexCase> {
    (
        (0..5000u16, any::<bool>(), 1..=1500usize),
        strat::count_or_bits(),
        (1..=8usize, 1..=3usize, 24..=30usize),
    )
        .prop_map(|((first, count_form, count), mask, (repeats, blk, rep))| VecIndexCase {
            first,
            count_form,
            count,
            mask,
            repeats,
            blk,
            rep,
        })
}

fn vec_index_case<T: VecIndexElement>(c: &VecIndexCase, soc: Soc) {
    let first = T::from_f64(c.first as f64 - 1000.0);
    let sent = T::from_f64(-3.0);
    if c.count_form {
        let count = c.count;
        let u = ub(count.div_ceil(T::EPB) * 32);
        let dst = u.t::<T>(0, count);
        dst.copy_from_slice(&vec![sent; count]);
        create_vec_index(&dst, first, count as u32);
        let want: Vec<T> = (0..count).map(|i| seq_value(first, i / T::PAR, i % T::PAR, false)).collect();
        assert_eq!(
            util::bits(&dst.to_vec()),
            util::bits(&want),
            "{soc} {} count {count} first {first}",
            T::DTYPE
        );
    } else {
        let bits_mode = c.mask.is_err();
        let mask = fit_mask::<T>(c.mask);
        let m = mask_bits(mask);
        let (repeats, blk, rep) = (c.repeats, c.blk, c.rep);
        let n = (repeats - 1) * rep * T::EPB + 8 * blk * T::EPB;
        let u = ub(n * T::SIZE);
        let dst = u.t::<T>(0, n);
        dst.copy_from_slice(&vec![sent; n]);
        create_vec_index_masked::<T, true>(&dst, first, mask, repeats as u8, blk as u16, rep as u8);
        let mut want = vec![sent; n];
        for r in 0..repeats {
            for j in (0..T::PAR).filter(|&j| on_bit(m, j)) {
                want[(r * rep + (j / T::EPB) * blk) * T::EPB + j % T::EPB] =
                    seq_value(first, r, j, bits_mode);
            }
        }
        assert_eq!(util::bits(&dst.to_vec()), util::bits(&want), "{soc} {} {mask:?} first {first}", T::DTYPE);
    }
}

#[test]
fn create_vec_index_matches_reference() {
    let socs = vec![Soc::Ascend910B, Soc::Ascend310P, Soc::Ascend310B];
    let cases = (strat::soc_of(socs), vec_index_strategy());
    strat::check_cases(30 * 3, 0xC0DE_1DE7, cases, |(soc, c)| {
        let soc = *soc;
        on(soc, || {
            vec_index_case::<i16>(c, soc);
            vec_index_case::<f16>(c, soc);
            vec_index_case::<i32>(c, soc);
            vec_index_case::<f32>(c, soc);
        });
    });
    on(Soc::Ascend910, || {
        let u = ub(64);
        assert_fails("CreateVecIndex: not supported on Ascend910", || {
            create_vec_index(&u.t::<i32>(0, 16), 0, 16)
        });
    });
}

#[test]
fn create_vec_index_half_order_is_the_vendors() {
    // From 32768 half values are spaced 32: each `+ 16` from block to block rounds back (ties
    // to even), so the vendor's block-by-block additions stay at 32768 inside a repeat, while
    // `32768 + i` rounded once climbs.
    on(Soc::Ascend910B, || {
        let u = ub(512);
        let dst = u.t::<f16>(0, 256);
        create_vec_index(&dst, h(32768.0), 256);
        let got = dst.to_vec();
        let once: Vec<f16> = (0..256).map(|i| h(32768.0 + i as f32)).collect();
        assert_ne!(util::bits(&got), util::bits(&once));
        let want: Vec<f16> = (0..256).map(|i| seq_value(h(32768.0), i / 128, i % 128, false)).collect();
        assert_eq!(util::bits(&got), util::bits(&want));
        assert_eq!((got[127].to_f32(), got[128].to_f32()), (32768.0, 32896.0));
    });
}

// ---- Gatherb / Scatter ------------------------------------------------------------------------

/// One random `gatherb` call: repeats, block and repeat stride, source blocks and the seed of
/// the data and offsets.
#[derive(Clone, Debug)]
struct GatherbCase {
    repeats: usize,
    blk: usize,
    rep: usize,
    src_blocks: usize,
    data_seed: u64,
}

fn gatherb_strategy() -> impl Strategy<Value = GatherbCase> {
    (1..=6usize, 0..=2usize, 8..=20usize, 1..=40usize, any::<u64>()).prop_map(
        |(repeats, blk, rep, src_blocks, data_seed)| GatherbCase { repeats, blk, rep, src_blocks, data_seed },
    )
}

fn gatherb_case<T: DiscreteElement>(c: &GatherbCase, soc: Soc) {
    let rng = &mut Rng(c.data_seed);
    let repeats = c.repeats;
    let (blk, rep) = (c.blk, c.rep);
    let src_blocks = c.src_blocks;
    let data = random_vals::<T>(rng, src_blocks * T::EPB);
    let offs: Vec<u32> = (0..repeats * 8).map(|_| (rng.below(src_blocks as u64) * 32) as u32).collect();
    let eb = blk.max(1);
    let dst_n = ((repeats - 1) * rep + 7 * eb + 1) * T::EPB;
    let u = ub(src_blocks * 32 + dst_n * T::SIZE + repeats * 32);
    let src = u.t::<T>(0, src_blocks * T::EPB);
    let dst = u.t::<T>(src_blocks * 32, dst_n);
    let off = u.t::<u32>(src_blocks * 32 + dst_n * T::SIZE, repeats * 8);
    src.copy_from_slice(&data);
    off.copy_from_slice(&offs);
    let sent = T::from_f64(1.0);
    dst.copy_from_slice(&vec![sent; dst_n]);
    gatherb(&dst, &src, &off, repeats as u8, &GatherRepeatParams::new(blk as u8, rep as u16));
    let mut want = vec![sent; dst_n];
    for (q, &o) in offs.iter().enumerate() {
        let (r, b) = (q / 8, q % 8);
        let d0 = (r * rep + b * eb) * T::EPB;
        let s0 = o as usize / T::SIZE;
        want[d0..d0 + T::EPB].copy_from_slice(&data[s0..s0 + T::EPB]);
    }
    assert_eq!(
        util::bits(&dst.to_vec()),
        util::bits(&want),
        "{soc} {} repeats {repeats} blk {blk} rep {rep}",
        T::DTYPE
    );
}

/// One random `scatter`/`scatter_masked` call: form, dst length, mask (a count modulo `PAR`),
/// repeats, repeat stride, count and the seed of the data and offsets.
#[derive(Clone, Debug)]
struct ScatterCase {
    masked: bool,
    dst_n: usize,
    mask: u64,
    repeats: usize,
    rep: usize,
    count: usize,
    data_seed: u64,
}

fn scatter_strategy() -> impl Strategy<Value = ScatterCase> {
    (any::<bool>(), 16..=600usize, any::<u64>(), 1..=4usize, 0..=10usize, 1..=300usize, any::<u64>())
        .prop_map(|(masked, dst_n, mask, repeats, rep, count, data_seed)| ScatterCase {
            masked,
            dst_n,
            mask,
            repeats,
            rep,
            count,
            data_seed,
        })
}

fn scatter_case<T: DiscreteElement>(c: &ScatterCase, soc: Soc) {
    let rng = &mut Rng(c.data_seed);
    let masked = c.masked;
    let dst_n = c.dst_n;
    let (mask, repeats, rep) = if masked {
        (Mask::Count(1 + c.mask % T::PAR as u64), c.repeats, c.rep)
    } else {
        (Mask::Count(0), 0, 0)
    };
    let count = c.count;
    let lanes = if masked { repeats * T::PAR } else { count };
    let n_src = if masked { (repeats - 1) * rep * T::EPB + T::PAR } else { count };
    let data = random_vals::<T>(rng, n_src);
    let offs: Vec<u32> = (0..lanes).map(|_| (rng.below(dst_n as u64) as usize * T::SIZE) as u32).collect();
    let (sb, db) = (n_src.div_ceil(T::EPB) * 32, dst_n.div_ceil(T::EPB) * 32);
    let u = ub(sb + db + lanes.div_ceil(8) * 32);
    let src = u.t::<T>(0, n_src);
    let dst = u.t::<T>(sb, dst_n);
    let off = u.t::<u32>(sb + db, lanes);
    src.copy_from_slice(&data);
    off.copy_from_slice(&offs);
    let sent = T::from_f64(2.0);
    dst.copy_from_slice(&vec![sent; dst_n]);
    let mut want = vec![sent; dst_n];
    if masked {
        scatter_masked(&dst, &src, &off, 0, mask, repeats as u8, rep as u8);
        let Mask::Count(m) = mask else { unreachable!() };
        for r in 0..repeats {
            for j in 0..m as usize {
                want[offs[r * T::PAR + j] as usize / T::SIZE] = data[r * rep * T::EPB + j];
            }
        }
    } else {
        scatter(&dst, &src, &off, 0, count as u32);
        for (&o, &v) in offs.iter().zip(&data).take(count) {
            want[o as usize / T::SIZE] = v;
        }
    }
    assert_eq!(util::bits(&dst.to_vec()), util::bits(&want), "{soc} {} masked {masked} {mask:?}", T::DTYPE);
}

per_type!(
    gatherb_matches_reference,
    gatherb_case,
    gatherb_strategy(),
    gatherb_supported,
    [u16, i16, f16, u32, f32],
    20,
    0xD15C_2E7E
);
per_type!(
    scatter_matches_reference,
    scatter_case,
    scatter_strategy(),
    scatter_supported,
    [u16, i16, f16, u32, f32],
    20,
    0xD15C_2E7E
);

#[test]
fn gatherb_scatter_checks() {
    on(Soc::Ascend910B, || {
        let u = ub(1024);
        let (s, d, o) = (u.t::<u16>(0, 128), u.t::<u16>(256, 128), u.t::<u32>(512, 8));
        o.copy_from_slice(&[0, 32, 64, 16, 0, 0, 0, 0]);
        assert_fails("offset[3] = 16 must be a multiple of 32", || {
            gatherb(&d, &s, &o, 1, &GatherRepeatParams::default())
        });
        assert_fails("T = uint16_t is not supported by Scatter on Ascend910B", || scatter(&d, &s, &o, 0, 8));
        let h16 = u.t::<f16>(0, 128);
        assert_fails("T = half is not supported by Gatherb on Ascend910B", || {
            gatherb(&h16, &h16, &o, 1, &GatherRepeatParams::default())
        });
    });
    on(Soc::Ascend310P, || {
        let u = ub(1024);
        let (s, d, o) = (u.t::<f32>(0, 64), u.t::<f32>(256, 16), u.t::<u32>(512, 64));
        o.copy_from_slice(&[0; 64]);
        o.set_value(3, 64);
        assert_fails("dstOffset[3] = 64", || scatter(&d, &s, &o, 0, 8));
    });
}

/// `GatherMask` in place and in counter mode above `PAR` lanes, against a slow scalar
/// reference (the vendor's general overlap rules and "configuration 1").
mod gather_mask_in_place_and_wide {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{Rng as _, SeedableRng};

    /// One past the highest `src0` element that `repeats` repeats of `lanes` lanes touch (any
    /// `lanes`, above `PAR` included), or `None` on overflow.
    fn wide_extent<T: Element>(repeats: usize, lanes: usize, blk: usize, rep: usize) -> Option<usize> {
        let epb = T::EPB;
        // With a block stride of 0 every block is the first one; otherwise the last block starts
        // highest.
        let span = if blk == 0 {
            lanes.min(epb)
        } else {
            ((lanes - 1) / epb).checked_mul(blk)?.checked_mul(epb)?.checked_add((lanes - 1) % epb + 1)?
        };
        (repeats - 1).checked_mul(rep)?.checked_mul(epb)?.checked_add(span)
    }

    fn bytes_of<T: Element>(t: &LocalTensor<T>) -> Vec<u8> {
        t.reinterpret_cast::<u8>().to_vec()
    }

    /// The gather mask, from the docs' list: 1 `0101…` (even lanes), 2 `1010…` (odd), 3/4/5/6
    /// lane 0/1/2/3 of every 4, 7 all; or bit `j % 8` of byte `r * rep1 * 32 + j / 8`.
    enum Pat<'a> {
        Fixed(u8),
        Bytes(&'a [u8]),
    }

    /// The slow scalar reference: `repeats` repeats of `lanes` lanes (each repeat taking
    /// lanes `0..lanes`, whatever `PAR`), lane `j` of repeat `r` at element `(r * rep + (j /
    /// epb) * blk) * epb + j % epb` of `src` (elements of `size` bytes), the kept elements'
    /// bytes packed in order.
    #[allow(clippy::too_many_arguments)]
    fn reference(
        src: &[u8],
        size: usize,
        pat: &Pat<'_>,
        repeats: usize,
        lanes: usize,
        blk: usize,
        rep: usize,
        rep1: usize,
    ) -> Vec<u8> {
        let epb = 32 / size;
        let mut out = Vec::new();
        for r in 0..repeats {
            for j in 0..lanes {
                let keep = match *pat {
                    Pat::Fixed(1) => j % 2 == 0,
                    Pat::Fixed(2) => j % 2 == 1,
                    Pat::Fixed(p @ 3..=6) => j % 4 == usize::from(p) - 3,
                    Pat::Fixed(_) => true,
                    Pat::Bytes(b) => b[r * rep1 * 32 + j / 8] & (1 << (j % 8)) != 0,
                };
                if keep {
                    let e = (r * rep + (j / epb) * blk) * epb + j % epb;
                    out.extend_from_slice(&src[e * size..(e + 1) * size]);
                }
            }
        }
        out
    }

    // ---- in place ---------------------------------------------------------------------------

    /// The docs' fixed-pattern example: `GatherMask(src0Local, src0Local, 2, false, 0, {1, 4,
    /// 8, 0}, rsvdCnt)` on `[1 2 … 256]` gives `[2 4 … 256, undefined…]` and rsvdCnt 128.
    #[test]
    fn in_place_docs_example() {
        on(Soc::Ascend910B, || {
            let u = ub(1024);
            let t = u.t::<u32>(0, 256);
            t.copy_from_slice(&(1..=256).collect::<Vec<u32>>());
            let n = gather_mask::<u32, u32>(
                &t,
                &t,
                GatherPattern::Fixed(2),
                false,
                0,
                &GatherMaskParams::new(1, 4, 8, 0),
            );
            assert_eq!(n, 128);
            assert_eq!(t.to_vec()[..128], (1..=128).map(|i| 2 * i).collect::<Vec<u32>>()[..]);
        });
    }

    /// In place, one instruction for the sanitizer: it reads `src0` before it writes `dst`, so
    /// even without the compiler's automatic synchronisation it needs no barrier with itself.
    #[test]
    fn in_place_needs_no_barrier_with_itself() {
        on(Soc::Ascend910B, || {
            ascend_core::sanitizer::LaunchSanitizer::with_auto_sync(false).run_core(|| {
                let u = ub(1024);
                let t = u.t::<u32>(0, 256);
                let n = gather_mask::<u32, u32>(
                    &t,
                    &t,
                    GatherPattern::Fixed(2),
                    false,
                    0,
                    &GatherMaskParams::new(1, 4, 8, 0),
                );
                assert_eq!(n, 128);
            })
        });
    }

    /// In place against the out-of-place reference over patterns, strides, repeats and two
    /// element sizes; a call whose earlier repeats' output reaches a later repeat's lanes
    /// fails, as does one keeping more than the tensor holds.
    fn in_place_sweep<T: GatherElement>(rng: &mut SmallRng) {
        let (size, epb) = (T::SIZE, T::EPB);
        let mut checked = [0usize; 3];
        for repeats in 1..=4usize {
            for blk in 0..=2usize {
                for rep in [0usize, 2, 4, 7, 8, 9, 16] {
                    for p in 0..=7u8 {
                        let rep1 = rng.random_range(0..=1usize);
                        let pattern: Vec<u8> = (0..(repeats * rep1 + 1) * 32).map(|_| rng.random()).collect();
                        let pat = if p == 0 { Pat::Bytes(&pattern) } else { Pat::Fixed(p) };
                        let ext = (repeats - 1) * rep * epb + 7 * blk * epb + epb;
                        let src: Vec<u8> = (0..ext * size).map(|_| rng.random()).collect();
                        let want = reference(&src, size, &pat, repeats, T::PAR, blk, rep, rep1);
                        let n = want.len() / size;
                        // Elements kept before each repeat, against that repeat's first element.
                        let mut before = 0;
                        let mut clash = false;
                        for r in 0..repeats {
                            clash |= before > r * rep * epb;
                            before = reference(&src, size, &pat, r + 1, T::PAR, blk, rep, rep1).len() / size;
                        }
                        let u = ub(ext * size + pattern.len());
                        let t = u.t::<T>(0, ext);
                        let pt = u.t::<u8>(ext * size, pattern.len());
                        t.reinterpret_cast::<u8>().copy_from_slice(&src);
                        pt.copy_from_slice(&pattern);
                        let params = GatherMaskParams::new(blk as u8, repeats as u16, rep as u16, rep1 as u8);
                        let pt = pt.reinterpret_cast::<T>();
                        let call = || {
                            let arg =
                                if p == 0 { GatherPattern::Tensor(&pt) } else { GatherPattern::Fixed(p) };
                            gather_mask(&t, &t, arg, false, 0, &params)
                        };
                        let ctx = format!("{} repeats {repeats} blk {blk} rep {rep} p {p}", T::DTYPE);
                        if n > ext {
                            assert_fails("are kept", || {
                                call();
                            });
                            checked[0] += 1;
                        } else if clash {
                            assert_fails(
                                "an earlier repeat's output may not overlap a later repeat's source",
                                || {
                                    call();
                                },
                            );
                            checked[1] += 1;
                        } else {
                            assert_eq!(call() as usize, n, "{ctx}");
                            assert_eq!(bytes_of(&t)[..n * size], want[..], "{ctx}");
                            checked[2] += 1;
                        }
                    }
                }
            }
        }
        assert!(checked.iter().all(|&c| c > 0), "{checked:?}");
    }

    #[test]
    fn in_place_matches_reference() {
        let rng = &mut SmallRng::seed_from_u64(0x6A7E);
        for soc in [Soc::Ascend910B, Soc::Ascend310B] {
            on(soc, || {
                in_place_sweep::<u32>(rng);
                in_place_sweep::<f16>(rng);
            });
        }
    }

    #[test]
    fn partial_overlap_is_rejected() {
        on(Soc::Ascend910B, || {
            let u = ub(2048);
            let src = u.t::<u32>(0, 256);
            src.copy_from_slice(&(1..=256).collect::<Vec<u32>>());
            let params = GatherMaskParams::new(1, 4, 8, 0);
            // dst one block above src0: the docs allow no partial overlap.
            let dst = u.t::<u32>(32, 256);
            assert_fails("GatherMask: dst (bytes 0x20..0x220) overlaps src0 (bytes 0x0..0x400)", || {
                gather_mask::<u32, u32>(&dst, &src, GatherPattern::Fixed(2), false, 0, &params);
            });
            // dst below src0: 2 repeats end where src0 starts (fine), 3 reach into it.
            let (src, dst) = (u.t::<u32>(512, 256), u.t::<u32>(0, 256));
            let n = gather_mask::<u32, u32>(
                &dst,
                &src,
                GatherPattern::Fixed(7),
                false,
                0,
                &GatherMaskParams::new(1, 2, 8, 0),
            );
            assert_eq!(n, 128);
            assert_fails("GatherMask: dst (bytes 0x0..0x300) overlaps src0 (bytes 0x200..0x500)", || {
                gather_mask::<u32, u32>(
                    &dst,
                    &src,
                    GatherPattern::Fixed(7),
                    false,
                    0,
                    &GatherMaskParams::new(1, 3, 8, 0),
                );
            });
            // In place, but repeat 1 starts at block 4 and repeat 0 wrote 8 blocks.
            let t = u.t::<u32>(0, 256);
            assert_fails(
                "dst is src0 in place (address 0x0) but the 64 elements kept before repeat 1 (bytes 0x0..0x100) \
                 reach its lanes (from byte 0x80)",
                || {
                    gather_mask::<u32, u32>(&t, &t, GatherPattern::Fixed(7), false, 0, &GatherMaskParams::new(1, 2, 4, 0));
                },
            );
            // The same with pattern 2 keeps 32 elements, exactly up to repeat 1's first block.
            t.copy_from_slice(&(0..256).collect::<Vec<u32>>());
            let n = gather_mask::<u32, u32>(
                &t,
                &t,
                GatherPattern::Fixed(2),
                false,
                0,
                &GatherMaskParams::new(1, 2, 4, 0),
            );
            let want: Vec<u32> =
                (0..2).flat_map(|r| (0..64).filter(|j| j % 2 == 1).map(move |j| r * 32 + j)).collect();
            assert_eq!(n, 64);
            assert_eq!(t.to_vec()[..64], want[..]);
        });
    }

    // ---- counter mode, mask above PAR ----------------------------------------------------------

    /// The vendor's scenario 2: `GatherMask(dst, src0, src1, true, 70, {1, 2, 4, 0}, rsvdCnt)`
    /// on uint32 with the pattern `0x7E7C00A5` in every word: 70 lanes per repeat, bits
    /// consumed on past lane 64, the second repeat 4 blocks on.
    #[test]
    fn counter_mask_above_par_vendor_call() {
        for soc in [Soc::Ascend910B, Soc::Ascend310B] {
            on(soc, || {
                let u = ub(1024 + 128 + 1024);
                let src = u.t::<u32>(0, 256);
                let pat = u.t::<u32>(1024, 32);
                let dst = u.t::<u32>(1152, 256);
                let mut rng = SmallRng::seed_from_u64(2);
                let x: Vec<u32> = (0..256).map(|_| rng.random()).collect();
                src.copy_from_slice(&x);
                pat.copy_from_slice(&[0x7E7C_00A5; 32]);
                let n = gather_mask(
                    &dst,
                    &src,
                    GatherPattern::Tensor(&pat),
                    true,
                    70,
                    &GatherMaskParams::new(1, 2, 4, 0),
                );
                // 15 bits per word, so 30 in lanes 0..64 and 3 (0xA5's bits 0, 2, 5) in 64..70.
                assert_eq!(n, 66);
                let want = reference(&bytes_of(&src), 4, &Pat::Bytes(&bytes_of(&pat)), 2, 70, 1, 4, 0);
                assert_eq!(bytes_of(&dst)[..66 * 4], want[..]);
                assert_eq!(dst.to_vec()[30..33], [x[64], x[66], x[69]]);
                assert_eq!(get_mask_mode(), MaskMode::Normal);
            });
        }
    }

    /// Random counter-mode calls with `PAR < mask <= 3 * PAR` against the slow reference.
    fn wide_sweep<T: GatherElement>(rng: &mut SmallRng) {
        let size = T::SIZE;
        for _ in 0..60 {
            let lanes = rng.random_range(T::PAR + 1..=3 * T::PAR);
            let repeats = rng.random_range(1..=4usize);
            let blk = rng.random_range(0..=3usize);
            let rep = rng.random_range(0..=40usize);
            let rep1 = rng.random_range(0..=2usize);
            let p = rng.random_range(0..=7u8);
            let ext = wide_extent::<T>(repeats, lanes, blk, rep).unwrap();
            let pbytes = ((repeats - 1) * rep1 * 32 + lanes.div_ceil(8)).div_ceil(32) * 32;
            let pattern: Vec<u8> = (0..pbytes).map(|_| rng.random()).collect();
            let src: Vec<u8> = (0..ext * size).map(|_| rng.random()).collect();
            let pat = if p == 0 { Pat::Bytes(&pattern) } else { Pat::Fixed(p) };
            let want = reference(&src, size, &pat, repeats, lanes, blk, rep, rep1);
            let n = want.len() / size;
            let sb = (ext * size).div_ceil(32) * 32;
            let db = (n.max(1) * size).div_ceil(32) * 32;
            let u = ub(sb + db + pbytes);
            let s = u.t::<T>(0, ext);
            let d = u.t::<T>(sb, n.max(1));
            let pt = u.t::<u8>(sb + db, pbytes);
            s.reinterpret_cast::<u8>().copy_from_slice(&src);
            pt.copy_from_slice(&pattern);
            let pt = pt.reinterpret_cast::<T>();
            let arg = if p == 0 { GatherPattern::Tensor(&pt) } else { GatherPattern::Fixed(p) };
            let params = GatherMaskParams::new(blk as u8, repeats as u16, rep as u16, rep1 as u8);
            let got = gather_mask(&d, &s, arg, true, lanes as u32, &params);
            let ctx =
                format!("{} mask {lanes} repeats {repeats} blk {blk} rep {rep} rep1 {rep1} p {p}", T::DTYPE);
            assert_eq!(got as usize, n, "{ctx}");
            assert_eq!(bytes_of(&d)[..n * size], want[..], "{ctx}");
            // One element fewer in src0 is out of bounds.
            let short = u.t::<T>(0, ext - 1);
            assert_fails(
                &format!("src0 would touch element {} but the tensor has {}", ext - 1, ext - 1),
                || {
                    gather_mask(&d, &short, arg, true, lanes as u32, &params);
                },
            );
        }
    }

    #[test]
    fn counter_mask_above_par_matches_reference() {
        let rng = &mut SmallRng::seed_from_u64(0x51);
        for soc in [Soc::Ascend910B, Soc::Ascend310B] {
            on(soc, || {
                wide_sweep::<u32>(rng);
                wide_sweep::<f32>(rng);
                wide_sweep::<u16>(rng);
                wide_sweep::<f16>(rng);
            });
        }
    }

    #[test]
    fn counter_mask_above_par_checks() {
        on(Soc::Ascend910B, || {
            let u = ub(4096);
            let src = u.t::<f32>(0, 256);
            let dst = u.t::<f32>(1024, 64);
            let pat = u.t::<u32>(2048, 8);
            // Pattern 7 keeps 2 × 70 elements; dst holds 64, known before walking.
            assert_fails("dst holds 64 elements but 140 are kept", || {
                gather_mask::<f32, u32>(
                    &dst,
                    &src,
                    GatherPattern::Fixed(7),
                    true,
                    70,
                    &GatherMaskParams::new(1, 2, 8, 0),
                );
            });
            // 2 repeats 1 block apart read 32 + 9 bytes of pattern; 32 bytes are there.
            assert_fails("src1Pattern holds 32 bytes but this call reads 41", || {
                gather_mask(
                    &dst,
                    &src,
                    GatherPattern::Tensor(&pat),
                    true,
                    70,
                    &GatherMaskParams::new(1, 2, 8, 1),
                );
            });
            // A huge call (2^32 - 1 lanes in one block, 65535 repeats on it) fails before walking.
            assert_fails("dst holds 64 elements but 281470681677825 are kept", || {
                gather_mask::<f32, u32>(
                    &dst,
                    &src,
                    GatherPattern::Fixed(7),
                    true,
                    u32::MAX,
                    &GatherMaskParams::new(0, u16::MAX, 0, 0),
                );
            });
            // In place with mask above PAR: repeat 1 (8 blocks on) is reached by 70 elements.
            let t = u.t::<f32>(0, 256);
            assert_fails("the 70 elements kept before repeat 1", || {
                gather_mask::<f32, u32>(
                    &t,
                    &t,
                    GatherPattern::Fixed(7),
                    true,
                    70,
                    &GatherMaskParams::new(1, 2, 8, 0),
                );
            });
            // 9 blocks on it is not, and in place equals the reference.
            let x: Vec<f32> = (0..256).map(|i| i as f32).collect();
            t.copy_from_slice(&x);
            let want = reference(&bytes_of(&t), 4, &Pat::Fixed(7), 2, 70, 1, 9, 0);
            let n = gather_mask::<f32, u32>(
                &t,
                &t,
                GatherPattern::Fixed(7),
                true,
                70,
                &GatherMaskParams::new(1, 2, 9, 0),
            );
            assert_eq!(n, 140);
            assert_eq!(bytes_of(&t)[..140 * 4], want[..]);
        });
    }
}
