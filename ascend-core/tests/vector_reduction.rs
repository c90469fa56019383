//! AscendC's reductions (`WholeReduce*`, `BlockReduce*`, `PairReduceSum`, level-2
//! `ReduceSum/Max/Min`, the registers): the vendor docs' examples, the documented f16 order
//! against a naive sum, a slow scalar reference over random masks, repeats, strides, types and
//! chips, and the checks.

use ascend_core::prelude::*;

use crate::common::util;
use util::{add_sat, assert_fails, h, in_order, mask_bits, on, on_bit, tree, ub, Rng, Ub};

use crate::common::prop as strat;
use proptest::prelude::*;

// ---- an independent, straightforward reference -------------------------------------------

/// Element index of lane `j` of repeat `r`.
fn at<T: Element>(r: usize, j: usize, blk: usize, rep: usize) -> usize {
    (r * rep + (j / T::EPB) * blk) * T::EPB + j % T::EPB
}

/// Repeat `r`'s lanes, disabled lanes zero.
fn lanes<T: Element>(src: &[T], m: [u64; 2], r: usize, blk: usize, rep: usize) -> Vec<T> {
    (0..T::PAR).map(|j| if on_bit(m, j) { src[at::<T>(r, j, blk, rep)] } else { T::ZERO }).collect()
}

/// The first extreme of the enabled lanes in `range` and its lane.
fn pick<T: Element>(l: &[T], m: [u64; 2], range: std::ops::Range<usize>, max: bool) -> Option<(T, usize)> {
    let mut best: Option<(T, usize)> = None;
    for j in range {
        if !on_bit(m, j) {
            continue;
        }
        let better = match best {
            None => true,
            Some((b, _)) => (max && l[j] > b) || (!max && l[j] < b),
        };
        if better {
            best = Some((l[j], j));
        }
    }
    best
}

/// One random call (each case function reads the fields it needs): chip, overflow mode,
/// mask, repeats, strides, which instruction, order, form, count, index flag and the seed of
/// the data. Shrinks towards the simplest call.
#[derive(Clone, Debug)]
struct RedCase {
    soc: Soc,
    sat: bool,
    mask: RawMask,
    repeats: usize,
    blk: usize,
    rep: usize,
    dst_rep: usize,
    which: u64,
    order: usize,
    count_form: bool,
    count: u64,
    cal_index: bool,
    data_seed: u64,
}

/// A mask before it is fitted to a type by [`random_mask`]: a count (taken modulo `PAR`), or
/// bits (the low word sparse with `0x0000_ffff_0000_00ff` one time in three).
#[derive(Clone, Copy, Debug)]
enum RawMask {
    Count(u64),
    Bits { lo: u64, hi: u64, sparse: bool },
}

fn red_case(
    repeats: BoxedStrategy<usize>,
    rep: std::ops::RangeInclusive<usize>,
    which: u64,
) -> impl Strategy<Value = RedCase> {
    let mask = prop_oneof![
        any::<u64>().prop_map(RawMask::Count),
        (strat::mask_word(), any::<u64>(), prop::bool::weighted(1.0 / 3.0))
            .prop_map(|(lo, hi, sparse)| RawMask::Bits { lo, hi, sparse }),
    ];
    (
        (strat::soc_of(Soc::ALL.to_vec()), prop::bool::weighted(1.0 / 3.0), mask),
        (repeats, 0..=3usize, rep, 0..=3usize),
        (0..which, 0..4usize, any::<bool>(), any::<u64>(), any::<bool>(), any::<u64>()),
    )
        .prop_map(
            |(
                (soc, sat, mask),
                (repeats, blk, rep, dst_rep),
                (which, order, count_form, count, cal_index, data_seed),
            )| {
                RedCase {
                    soc,
                    sat: sat && soc == Soc::Ascend910B,
                    mask,
                    repeats,
                    blk,
                    rep,
                    // Ascend910 needs a nonzero dst repeat stride.
                    dst_rep: if soc == Soc::Ascend910 { dst_rep.max(1) } else { dst_rep },
                    which,
                    order,
                    count_form,
                    count,
                    cal_index,
                    data_seed,
                }
            },
        )
}

/// The case's mask for `T`: a count or bits (never empty).
fn random_mask<T: Element>(c: &RedCase) -> Mask {
    match c.mask {
        RawMask::Count(n) => Mask::Count(1 + n % T::PAR as u64),
        RawMask::Bits { lo, hi, sparse } => {
            let lo = lo & if sparse { 0x0000_ffff_0000_00ff } else { u64::MAX };
            let hi = if T::SIZE >= 4 { 0 } else { hi };
            if lo == 0 && hi == 0 {
                Mask::Bits([1, 0])
            } else {
                Mask::Bits([lo, hi])
            }
        }
    }
}

/// Random values of `T` (small integers and fractions, with repeats so that ties occur).
fn random_vals<T: Element>(rng: &mut Rng, n: usize) -> Vec<T> {
    (0..n)
        .map(|_| T::from_f64((rng.below(64) as f64 - 32.0) * if rng.chance(3) { 0.37 } else { 1.0 }))
        .collect()
}

/// Bytes of a tensor.
fn bytes<T: Element>(t: &LocalTensor<T>) -> Vec<u8> {
    t.reinterpret_cast::<u8>().to_vec()
}

fn put<T: Element>(buf: &mut [u8], off: usize, v: T) {
    buf[off..off + T::SIZE].copy_from_slice(&v.to_bits_u64().to_le_bytes()[..T::SIZE]);
}

fn put_idx(buf: &mut [u8], off: usize, i: usize, size: usize) {
    buf[off..off + size].copy_from_slice(&(i as u64).to_le_bytes()[..size]);
}

const SENT: u8 = 0xA5;

/// Every `ReduceOrder`.
const ORDERS: [ReduceOrder; 4] = [
    ReduceOrder::ORDER_VALUE_INDEX,
    ReduceOrder::ORDER_INDEX_VALUE,
    ReduceOrder::ORDER_ONLY_VALUE,
    ReduceOrder::ORDER_ONLY_INDEX,
];

// ---- vendor examples ------------------------------------------------------------------------

#[test]
fn doc_reduce_sum_examples() {
    for soc in Soc::ALL {
        on(soc, || {
            let u = ub(8320 * 2 + 64 + 512);
            let src = u.t::<f16>(0, 8320);
            let dst = u.t::<f16>(8320 * 2, 16);
            let work = u.t::<f16>(8320 * 2 + 64, 256);
            src.copy_from_slice(&vec![f16::ONE; 8320]);
            dst.copy_from_slice(&[f16::ZERO; 16]);
            reduce_sum_masked(&dst, &src, &work, 128u64, 65, 8);
            assert_eq!(dst.get_value(0).to_f32(), 8320.0, "{soc} mask form");
            assert!(dst.to_vec()[1..].iter().all(|x| x.to_bits() == 0));
            reduce_sum_masked(&dst, &src, &work, [u64::MAX, u64::MAX], 65, 8);
            assert_eq!(dst.get_value(0).to_f32(), 8320.0, "{soc} bit mask form");
            let src288 = src.view_len(0, 288);
            reduce_sum(&dst, &src288, &work, 288);
            assert_eq!(dst.get_value(0).to_f32(), 288.0, "{soc} count form");
        });
    }
}

#[test]
fn doc_reduce_repeat_example_max_with_every_order() {
    // 512 halfs: repeat r holds r + 1 except one peak (11 at lane 52, 12 at 100, 13 at 19 of
    // the last repeat); the docs print the index 52 as the half 3.09944e-06 (0x0034).
    let mut data: Vec<f16> = (0..512).map(|i| h((i / 128 + 1) as f32)).collect();
    data[52] = h(11.0);
    data[128 + 100] = h(12.0);
    data[384 + 19] = h(13.0);
    on(Soc::Ascend910B, || {
        let u = ub(1024 + 64);
        let src = u.t::<f16>(0, 512);
        let dst = u.t::<f16>(1024, 32);
        src.copy_from_slice(&data);
        for order in ORDERS {
            dst.copy_from_slice(&[f16::ZERO; 32]);
            whole_reduce_max::<f16, true>(&dst, &src, [u64::MAX, u64::MAX], 4, 1, 1, 8, order);
            let d = dst.to_vec();
            let raw = dst.reinterpret_cast::<u16>().to_vec();
            match order {
                ReduceOrder::ORDER_VALUE_INDEX => {
                    assert_eq!((d[0].to_f32(), raw[1]), (11.0, 52));
                    assert!((d[1].to_f32() - 3.09944e-06).abs() < 1e-10);
                    assert_eq!((d[2].to_f32(), raw[3], d[6].to_f32(), raw[7]), (12.0, 100, 13.0, 19));
                }
                ReduceOrder::ORDER_INDEX_VALUE => {
                    assert_eq!((raw[0], d[1].to_f32(), raw[2], d[3].to_f32()), (52, 11.0, 100, 12.0));
                    assert_eq!((raw[6], d[7].to_f32()), (19, 13.0));
                }
                ReduceOrder::ORDER_ONLY_VALUE => {
                    assert_eq!(
                        d[..4].iter().map(|x| x.to_f32()).collect::<Vec<_>>(),
                        [11.0, 12.0, 3.0, 13.0]
                    );
                    assert!(d[4..].iter().all(|x| x.to_bits() == 0));
                }
                ReduceOrder::ORDER_ONLY_INDEX => assert_eq!(raw[..8], [52, 0, 100, 0, 0, 0, 19, 0]),
            }
        }
    });
}

#[test]
fn doc_pair_reduce_example() {
    // [a1, a2, a3, a4, ...] -> [a1 + a2, a3 + a4, ...]
    on(Soc::Ascend910B, || {
        let u = ub(512 + 256);
        let src = u.t::<f32>(0, 128);
        let dst = u.t::<f32>(512, 64);
        src.copy_from_slice(&(0..128).map(|i| i as f32).collect::<Vec<_>>());
        pair_reduce_sum::<f32, true>(&dst, &src, 2, 64u64, 1, 1, 8);
        assert_eq!(dst.to_vec(), (0..64).map(|k| (4 * k + 1) as f32).collect::<Vec<_>>());
    });
}

#[test]
fn doc_block_reduce_saturation_example() {
    // The vendor's saturation example: [60000, 60000, -30000, 100]: 60000 + 60000 saturates to
    // 65504, -30000 + 100 = -29900 (rounded to the half -29904), and the docs print the exact
    // 65504 - 29900 = 35604; in half, 65504 - 29904 = 35600 rounds (ties to even) to 35584.
    on(Soc::Ascend310P, || {
        let u = ub(512 + 256);
        let src = u.t::<f16>(0, 128);
        let dst = u.t::<f16>(512, 64);
        let mut v = vec![f16::ZERO; 128];
        v[..4].copy_from_slice(&[h(60000.0), h(60000.0), h(-30000.0), h(100.0)]);
        src.copy_from_slice(&v);
        block_reduce_sum::<f16, true>(&dst, &src, 1, 4u64, 1, 1, 8);
        assert_eq!(dst.get_value(0).to_f32(), 35584.0);
        assert_eq!(f16::from_f32(65504.0 - 29904.0).to_f32(), 35584.0);
    });
}

// ---- the documented f16 order vs a naive sum --------------------------------------------------

#[test]
fn f16_order_differs_from_a_naive_sequential_sum() {
    // 256 halfs: 2048 then 255 ones. A sequential f16 sum never leaves 2048 (2048 + 1 rounds
    // back to 2048 by ties-to-even); the documented tree inside each repeat adds the ones among
    // themselves first.
    let mut data = vec![f16::ONE; 256];
    data[0] = h(2048.0);
    let naive = data[1..].iter().fold(data[0], |s, &x| f16::from_f32(s.to_f32() + x.to_f32()));
    for soc in Soc::ALL {
        on(soc, || {
            let u = ub(512 + 64 + 64);
            let src = u.t::<f16>(0, 256);
            let dst = u.t::<f16>(512, 16);
            let work = u.t::<f16>(576, 32);
            src.copy_from_slice(&data);
            reduce_sum(&dst, &src, &work, 256);
            let got = dst.get_value(0);
            // The model's order, computed independently: each repeat by the tree, then the two
            // repeat results added (in order on Ascend910B, by the group tree elsewhere: the
            // same single addition here).
            let r0 = tree(data[..128].to_vec(), false);
            let r1 = tree(data[128..].to_vec(), false);
            let want = add_sat(r0, r1, false);
            assert_eq!(got.to_bits(), want.to_bits(), "{soc}");
            assert_ne!(got.to_bits(), naive.to_bits(), "{soc}: the order must matter here");
            assert_eq!(naive.to_f32(), 2048.0);
            assert!(got.to_f32() > 2200.0, "{soc}: {got}");
        });
    }
}

#[test]
fn ascend910b_count_form_adds_repeats_in_order_others_by_tree() {
    // 4 repeats of f16 whose results are 2048, 1, 1, 1 (+ a tail): in order, 2048 + 1 + 1 + 1
    // stays 2048; the group tree makes (2048 + 1) + (1 + 1) = 2050.
    let mut data = vec![f16::ZERO; 512];
    data[0] = h(2048.0);
    data[128] = f16::ONE;
    data[256] = f16::ONE;
    data[384] = f16::ONE;
    for soc in Soc::ALL {
        on(soc, || {
            let u = ub(1024 + 64 + 64);
            let src = u.t::<f16>(0, 512);
            let dst = u.t::<f16>(1024, 16);
            let work = u.t::<f16>(1088, 32);
            src.copy_from_slice(&data);
            reduce_sum(&dst, &src, &work, 512);
            let want = if soc == Soc::Ascend910B { 2048.0 } else { 2050.0 };
            assert_eq!(dst.get_value(0).to_f32(), want, "{soc}");
            if soc == Soc::Ascend910B {
                assert_eq!(get_reduce_repeat_sum_spr::<f16>().to_f32(), 2048.0);
            } else {
                assert_eq!(
                    work.to_vec()[..4].iter().map(|x| x.to_f32()).collect::<Vec<_>>(),
                    [2050.0, 1.0, 1.0, 1.0]
                );
            }
            // The mask form uses the group tree on every chip.
            reduce_sum_masked(&dst, &src, &work, 128u64, 4, 8);
            assert_eq!(dst.get_value(0).to_f32(), 2050.0, "{soc} mask form");
        });
    }
}

// ---- random references -------------------------------------------------------------------------

fn supported_f32(soc: Soc) -> bool {
    soc != Soc::Ascend910
}

/// What [`whole_case`] and [`grouped_case`] start from: the case's mask and its lanes, `src`
/// holding random values for the case's repeats and strides, whether f16 sums saturate, and a
/// 4096-byte `dst` and its expected bytes `want`, both all `SENT`.
struct PerRepeat<T: Element> {
    _ub: Ub,
    mask: Mask,
    m: [u64; 2],
    data: Vec<T>,
    sat: bool,
    src: LocalTensor<T>,
    dst: LocalTensor<T>,
    want: Vec<u8>,
}

fn per_repeat<T: ReduceElement>(c: &RedCase) -> PerRepeat<T> {
    let rng = &mut Rng(c.data_seed ^ T::SIZE as u64);
    let mask = random_mask::<T>(c);
    let n_src = at::<T>(c.repeats - 1, T::PAR - 1, c.blk, c.rep) + 1;
    let data = random_vals::<T>(rng, n_src);
    let src_bytes = n_src.div_ceil(T::EPB) * 32;
    let u = ub(src_bytes + 4096);
    let src = u.t::<T>(0, n_src);
    let dst = u.t::<T>(src_bytes, 4096 / T::SIZE);
    src.copy_from_slice(&data);
    let want = vec![SENT; 4096];
    dst.reinterpret_cast::<u8>().copy_from_slice(&want);
    let sat = get_overflow_mode() == OverflowMode::Saturation;
    PerRepeat { _ub: u, mask, m: mask_bits(mask), data, sat, src, dst, want }
}

/// WholeReduceSum/Max/Min against the reference: every byte of dst.
fn whole_case<T: ReduceElement>(c: &RedCase) {
    let PerRepeat { _ub, mask, m, data, sat, src, dst, mut want } = per_repeat::<T>(c);
    let (soc, repeats, blk, rep, dst_rep) = (c.soc, c.repeats, c.blk, c.rep, c.dst_rep);
    let which = c.which;
    let order = ORDERS[c.order];
    let ctx = format!(
        "{soc} {} op {which} mask {mask:?} repeats {repeats} blk {blk} rep {rep} dst_rep {dst_rep} {order:?}",
        T::DTYPE
    );
    if which == 0 {
        whole_reduce_sum::<T, true>(&dst, &src, mask, repeats as u8, dst_rep as u16, blk as u16, rep as u16);
        for r in 0..repeats {
            put(&mut want, r * dst_rep * T::SIZE, tree(lanes(&data, m, r, blk, rep), sat));
        }
    } else {
        let max = which == 1;
        if !order.supported_on(soc) {
            assert_fails("is not supported on", || {
                whole_reduce_max::<T, true>(&dst, &src, mask, 1, 1, 1, 8, order)
            });
            return;
        }
        if max {
            whole_reduce_max::<T, true>(
                &dst,
                &src,
                mask,
                repeats as u8,
                dst_rep as u16,
                blk as u16,
                rep as u16,
                order,
            );
        } else {
            whole_reduce_min::<T, true>(
                &dst,
                &src,
                mask,
                repeats as u8,
                dst_rep as u16,
                blk as u16,
                rep as u16,
                order,
            );
        }
        let mut overall: Option<(T, usize)> = None;
        for r in 0..repeats {
            let l = lanes(&data, m, r, blk, rep);
            let (v, j) = pick(&l, m, 0..T::PAR, max).unwrap();
            if overall.is_none_or(|(b, _)| (max && v > b) || (!max && v < b)) {
                overall = Some((v, j));
            }
            let s = T::SIZE;
            match order {
                ReduceOrder::ORDER_VALUE_INDEX => {
                    put(&mut want, r * dst_rep * 2 * s, v);
                    put_idx(&mut want, r * dst_rep * 2 * s + s, j, s);
                }
                ReduceOrder::ORDER_INDEX_VALUE => {
                    put_idx(&mut want, r * dst_rep * 2 * s, j, s);
                    put(&mut want, r * dst_rep * 2 * s + s, v);
                }
                ReduceOrder::ORDER_ONLY_VALUE => put(&mut want, r * dst_rep * s, v),
                ReduceOrder::ORDER_ONLY_INDEX => put_idx(&mut want, r * dst_rep * 4, j, 4),
            }
        }
        if soc == Soc::Ascend910B {
            let (v, i) = get_reduce_repeat_max_min_spr::<T>();
            let (wv, wj) = overall.unwrap();
            assert_eq!((v.to_bits_u64(), i.to_bits_u64()), (wv.to_bits_u64(), wj as u64), "{ctx}: register");
        }
    }
    assert_eq!(bytes(&dst), want, "{ctx}");
}

/// BlockReduce*/PairReduceSum against the reference.
fn grouped_case<T: ReduceElement>(c: &RedCase) {
    let PerRepeat { _ub, mask, m, data, sat, src, dst, mut want } = per_repeat::<T>(c);
    let (soc, repeats, blk, rep, dst_rep) = (c.soc, c.repeats, c.blk, c.rep, c.dst_rep);
    let which = c.which;
    let ctx = format!(
        "{soc} {} op {which} mask {mask:?} repeats {repeats} blk {blk} rep {rep} dst_rep {dst_rep}",
        T::DTYPE
    );
    let (r8, (rb, rp)) = (repeats as u8, (blk as u16, rep as u16));
    match which {
        0 => block_reduce_sum::<T, true>(&dst, &src, r8, mask, dst_rep as u16, rb, rp),
        1 => block_reduce_max::<T, true>(&dst, &src, r8, mask, dst_rep as u16, rb, rp),
        2 => block_reduce_min::<T, true>(&dst, &src, r8, mask, dst_rep as u16, rb, rp),
        _ => pair_reduce_sum::<T, true>(&dst, &src, r8, mask, dst_rep as u16, rb, rp),
    }
    let group = if which == 3 { 2 } else { T::EPB };
    let per = T::PAR / group;
    let big = if T::DTYPE == DType::F16 { 65504.0 } else { f64::INFINITY };
    for r in 0..repeats {
        let l = lanes(&data, m, r, blk, rep);
        for g in 0..per {
            let range = g * group..(g + 1) * group;
            let off = (r * dst_rep * per + g) * T::SIZE;
            if !range.clone().any(|j| on_bit(m, j)) {
                // Ascend310B writes a default for an empty block, and 0 for an empty pair.
                if soc == Soc::Ascend310B {
                    put(&mut want, off, T::from_f64([0.0, -big, big, 0.0][which as usize]));
                }
                continue;
            }
            let v = match which {
                1 | 2 => pick(&l, m, range, which == 1).unwrap().0,
                _ => tree(l[range].to_vec(), sat),
            };
            put(&mut want, off, v);
        }
    }
    assert_eq!(bytes(&dst), want, "{ctx}");
}

/// The ReduceSum group stages, written out plainly: (total, work contents).
fn sum_stages<T: Element>(res: &[T], sat: bool) -> (T, Vec<T>) {
    let mut work = res.to_vec();
    if res.len() == 1 {
        return (res[0], work);
    }
    let g = res.len().div_ceil(T::PAR);
    for c in 0..g {
        let end = ((c + 1) * T::PAR).min(res.len());
        work[c] = tree(work[c * T::PAR..end].to_vec(), sat);
    }
    let total = if g == 1 { work[0] } else { tree(work[..g].to_vec(), sat) };
    (total, work)
}

/// Level-2 ReduceSum/Max/Min (mask and count forms) against the reference.
fn level2_case<T: ReduceElement>(c: &RedCase) {
    let (rng, soc) = (&mut Rng(c.data_seed ^ T::SIZE as u64), c.soc);
    let sat = get_overflow_mode() == OverflowMode::Saturation;
    let count_form = c.count_form;
    let (mask, repeats, rep) =
        if count_form { (Mask::Count(0), 0, 8) } else { (random_mask::<T>(c), c.repeats, c.rep) };
    let m = mask_bits(mask);
    let count = 1 + (c.count % (12 * T::PAR as u64)) as usize;
    let n_src = if count_form { count } else { at::<T>(repeats - 1, T::PAR - 1, 1, rep) + 1 };
    let data = random_vals::<T>(rng, n_src);
    let src_bytes = n_src.div_ceil(T::EPB) * 32;
    let work_n = 4096 / T::SIZE;
    let u = ub(src_bytes + 64 + 4096);
    let src = u.t::<T>(0, n_src);
    let dst = u.t::<T>(src_bytes, 64 / T::SIZE);
    let work = u.t::<T>(src_bytes + 64, work_n);
    src.copy_from_slice(&data);
    let sent = T::from_f64(-99.0);
    dst.copy_from_slice(&vec![sent; dst.get_size()]);
    work.copy_from_slice(&vec![sent; work_n]);
    let which = c.which;
    let cal_index = c.cal_index;
    let ctx = format!("{soc} {} op {which} count_form {count_form} count {count} mask {mask:?} repeats {repeats} rep {rep} idx {cal_index}", T::DTYPE);
    // The lanes of every repeat, as (values, mask).
    let reps: Vec<(Vec<T>, [u64; 2])> = if count_form {
        data.chunks(T::PAR)
            .map(|c| {
                let mut v = c.to_vec();
                v.resize(T::PAR, T::ZERO);
                (v, mask_bits(Mask::Count(c.len() as u64)))
            })
            .collect()
    } else {
        (0..repeats).map(|r| (lanes(&data, m, r, 1, rep), m)).collect()
    };
    let mut want_work = vec![sent; work_n];
    let mut want_dst = vec![sent; dst.get_size()];
    if which == 0 {
        let res: Vec<T> = reps.iter().map(|(v, _)| tree(v.clone(), sat)).collect();
        let total = if !count_form {
            reduce_sum_masked(&dst, &src, &work, mask, repeats as i32, rep as i32);
            let (t, w) = sum_stages(&res, sat);
            want_work[..w.len()].copy_from_slice(&w);
            t
        } else {
            reduce_sum(&dst, &src, &work, count as i32);
            if soc == Soc::Ascend910B {
                let t = in_order(&res, sat);
                assert_eq!(
                    get_reduce_repeat_sum_spr::<T>().to_bits_u64(),
                    t.to_bits_u64(),
                    "{ctx}: register"
                );
                t
            } else {
                let body_n = (count / T::PAR).max(1);
                let tail = count >= T::PAR && count % T::PAR != 0;
                let (b, mut w) = sum_stages(&res[..body_n], sat);
                if tail {
                    let t = res[body_n];
                    let total = add_sat(b, t, sat);
                    w[0] = total;
                    if w.len() < 2 {
                        w.push(t)
                    } else {
                        w[1] = t
                    }
                    want_work[..w.len()].copy_from_slice(&w);
                    total
                } else {
                    want_work[..w.len()].copy_from_slice(&w);
                    b
                }
            }
        };
        want_dst[0] = total;
    } else {
        let max = which == 1;
        match (count_form, max) {
            (true, true) => reduce_max(&dst, &src, &work, count as i32, cal_index),
            (true, false) => reduce_min(&dst, &src, &work, count as i32, cal_index),
            (false, true) => {
                reduce_max_masked(&dst, &src, &work, mask, repeats as i32, rep as i32, cal_index)
            }
            (false, false) => {
                reduce_min_masked(&dst, &src, &work, mask, repeats as i32, rep as i32, cal_index)
            }
        }
        let mut best: Option<(T, usize)> = None;
        for (r, (v, mm)) in reps.iter().enumerate() {
            let (x, j) = pick(v, *mm, 0..T::PAR, max).unwrap();
            if best.is_none_or(|(b, _)| (max && x > b) || (!max && x < b)) {
                best = Some((x, r * rep * T::EPB + j));
            }
        }
        let (v, i) = best.unwrap();
        want_dst[0] = v;
        if cal_index {
            let mut b = [0u8; 8];
            b[..T::SIZE].copy_from_slice(&(i as u64).to_le_bytes()[..T::SIZE]);
            want_dst[1] = bytemuck::pod_read_unaligned(&b[..T::SIZE]);
        }
    }
    assert_eq!(util::bits(&dst.to_vec()), util::bits(&want_dst), "{ctx}: dst");
    assert_eq!(util::bits(&work.to_vec()), util::bits(&want_work), "{ctx}: work");
    assert_eq!(util::bits(&src.to_vec()), util::bits(&data), "{ctx}: src changed");
}

/// 60 cases per chip, each run for f16 and (where supported) f32.
fn random_reductions(seed: u64, cases: impl Strategy<Value = RedCase>, f16: fn(&RedCase), f32: fn(&RedCase)) {
    strat::check_cases(60 * Soc::ALL.len() as u32, seed, cases, |c| {
        on(c.soc, || {
            if c.sat {
                set_overflow_mode(OverflowMode::Saturation);
            }
            f16(c);
            if supported_f32(c.soc) {
                f32(c);
            }
        })
    });
}

#[test]
fn whole_reduce_matches_reference() {
    let cases = red_case((1..=12usize).boxed(), 0..=12, 3);
    random_reductions(0x5EED_0001, cases, whole_case::<f16>, whole_case::<f32>);
}

#[test]
fn block_and_pair_reduce_match_reference() {
    let cases = red_case((1..=10usize).boxed(), 0..=12, 4);
    random_reductions(0x5EED_0002, cases, grouped_case::<f16>, grouped_case::<f32>);
}

#[test]
fn level2_reduce_matches_reference() {
    // Mostly up to 20 repeats, one time in four up to 300.
    let repeats = prop_oneof![3 => 1..=20usize, 1 => 1..=300usize].boxed();
    random_reductions(0x5EED_0003, red_case(repeats, 0..=10, 3), level2_case::<f16>, level2_case::<f32>);
}

#[test]
fn counter_mode_and_register_mask() {
    on(Soc::Ascend910B, || {
        let u = ub(1024 + 256);
        let src = u.t::<f32>(0, 256);
        let dst = u.t::<f32>(1024, 64);
        src.copy_from_slice(&(0..256).map(|i| i as f32).collect::<Vec<_>>());
        // Counter mode: 100 elements = one full repeat and 36 lanes.
        set_mask_count();
        whole_reduce_sum::<f32, true>(&dst, &src, 100u64, 1, 1, 1, 8);
        set_mask_norm();
        assert_eq!(dst.get_value(0), (0..64).sum::<i32>() as f32);
        assert_eq!(dst.get_value(1), (64..100).sum::<i32>() as f32);
        // isSetMask = false takes the register.
        set_vector_mask::<f32>(4u64);
        whole_reduce_max::<f32, false>(
            &dst,
            &src,
            MASK_PLACEHOLDER,
            2,
            1,
            1,
            8,
            ReduceOrder::ORDER_ONLY_VALUE,
        );
        assert_eq!((dst.get_value(0), dst.get_value(1)), (3.0, 67.0));
    });
}

// ---- checks ----------------------------------------------------------------------------------

#[test]
fn errors_name_the_api_parameter_and_limit() {
    on(Soc::Ascend910, || {
        let u = ub(1024);
        let (a, b) = (u.t::<f32>(0, 128), u.t::<f32>(512, 128));
        assert_fails("T = float is not supported by WholeReduceSum on Ascend910", || {
            whole_reduce_sum::<f32, true>(&b, &a, 64u64, 1, 1, 1, 8)
        });
        let (x, y) = (u.t::<f16>(0, 256), u.t::<f16>(512, 256));
        assert_fails("dstRepStride = 0 is not supported on Ascend910", || {
            block_reduce_sum::<f16, true>(&y, &x, 1, 128u64, 0, 1, 8)
        });
        assert_fails("order = ORDER_ONLY_VALUE is not supported on Ascend910", || {
            whole_reduce_max::<f16, true>(&y, &x, 128u64, 1, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE)
        });
        assert_fails("GetReduceRepeatSumSpr: not supported on Ascend910", || {
            get_reduce_repeat_sum_spr::<f16>();
        });
    });
    on(Soc::Ascend910B, || {
        let u = ub(2048);
        let (src, dst, work) = (u.t::<f16>(0, 256), u.t::<f16>(512, 256), u.t::<f16>(1024, 8));
        assert_fails("sharedTmpBuffer holds 8 elements but this call needs at least 16", || {
            reduce_sum_masked(&dst, &src, &work, 128u64, 2, 8)
        });
        assert_fails("src would touch element 383", || reduce_sum_masked(&dst, &src, &dst, 128u64, 3, 8));
        assert_fails("dst (bytes", || whole_reduce_sum::<f16, true>(&src.view(64), &src, 128u64, 1, 1, 1, 8));
        assert_fails("repeatTime = -1 must not be negative", || {
            reduce_max_masked(&dst, &src, &dst, 128u64, -1, 8, false)
        });
        assert_fails("dst would be written up to byte 20", || {
            whole_reduce_sum::<f16, true>(&dst.view_len(0, 8), &src, 128u64, 2, 9, 1, 0)
        });
        assert_fails("is not 4-byte aligned", || {
            whole_reduce_max::<f16, true>(
                &dst.view(1),
                &src,
                128u64,
                1,
                1,
                1,
                8,
                ReduceOrder::ORDER_VALUE_INDEX,
            )
        });
        assert_fails("mask = 129 is out of range [1, 128]", || {
            whole_reduce_sum::<f16, true>(&dst, &src, 129u64, 1, 1, 1, 8)
        });
        assert_fails("reduceType = MAX: only SUM is supported", || {
            reduce_pair_elem::<f16, true>(ReduceType::MAX, &dst, &src, 128u64, 1, 1, 1, 8)
        });
    });
    on(Soc::Ascend310P, || {
        assert_fails("the (value, index) form is not supported on Ascend310P", || {
            get_reduce_repeat_max_min_spr::<f16>();
        });
    });
}

#[test]
fn repeat_zero_is_a_no_op_and_aliases_match() {
    on(Soc::Ascend910B, || {
        let u = ub(1024);
        let (src, dst, other) = (u.t::<f16>(0, 256), u.t::<f16>(512, 128), u.t::<f16>(768, 128));
        src.copy_from_slice(&(0..256).map(|i| h((i % 37) as f32)).collect::<Vec<_>>());
        dst.copy_from_slice(&[h(5.0); 128]);
        whole_reduce_sum::<f16, true>(&dst, &src, 128u64, 0, 1, 1, 8);
        reduce_sum_masked(&dst, &src, &other, 128u64, 0, 8);
        assert!(dst.to_vec().iter().all(|x| x.to_f32() == 5.0));
        for t in [ReduceType::SUM, ReduceType::MAX, ReduceType::MIN] {
            dst.copy_from_slice(&[h(5.0); 128]);
            other.copy_from_slice(&[h(5.0); 128]);
            reduce_data_block::<f16, true>(t, &dst, &src, 100u64, 2, 1, 1, 8);
            match t {
                ReduceType::SUM => block_reduce_sum::<f16, true>(&other, &src, 2, 100u64, 1, 1, 8),
                ReduceType::MAX => block_reduce_max::<f16, true>(&other, &src, 2, 100u64, 1, 1, 8),
                ReduceType::MIN => block_reduce_min::<f16, true>(&other, &src, 2, 100u64, 1, 1, 8),
            }
            assert_eq!(util::bits(&dst.to_vec()[..16]), util::bits(&other.to_vec()[..16]), "{t:?}");
            reduce_repeat::<f16, true>(t, &dst, &src, 100u64, 2, 1, 1, 8, ReduceOrder::ORDER_VALUE_INDEX);
            match t {
                ReduceType::SUM => whole_reduce_sum::<f16, true>(&other, &src, 100u64, 2, 1, 1, 8),
                ReduceType::MAX => whole_reduce_max::<f16, true>(
                    &other,
                    &src,
                    100u64,
                    2,
                    1,
                    1,
                    8,
                    ReduceOrder::ORDER_VALUE_INDEX,
                ),
                ReduceType::MIN => whole_reduce_min::<f16, true>(
                    &other,
                    &src,
                    100u64,
                    2,
                    1,
                    1,
                    8,
                    ReduceOrder::ORDER_VALUE_INDEX,
                ),
            }
            assert_eq!(util::bits(&dst.to_vec()[..4]), util::bits(&other.to_vec()[..4]), "{t:?}");
        }
        repeat_reduce_sum::<f16, true>(&dst, &src, 2, 100, 1, 1, 1, 8);
        whole_reduce_sum::<f16, true>(&other, &src, 100u64, 2, 1, 1, 8);
        assert_eq!(util::bits(&dst.to_vec()[..2]), util::bits(&other.to_vec()[..2]));
    });
}

#[test]
fn in_place_per_repeat_reductions() {
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        on(soc, || {
            let u = ub(2048);
            let x = u.t::<f16>(0, 1024);
            let data: Vec<f16> = (0..1024).map(|i| h(((i * 7) % 61) as f32 - 30.0)).collect();
            // WholeReduceSum(x, x, …): repeat r's sum into x[r], before repeat r + 1's lanes.
            x.copy_from_slice(&data);
            whole_reduce_sum::<f16, true>(&x, &x, 128u64, 8, 1, 1, 8);
            for r in 0..8 {
                assert_eq!(
                    x.get_value(r).to_bits(),
                    tree(data[r * 128..(r + 1) * 128].to_vec(), false).to_bits(),
                    "{soc} r {r}"
                );
            }
            assert_eq!(util::bits(&x.to_vec()[8..]), util::bits(&data[8..]));
            // PairReduceSum(x, x, …): 64 results per repeat into x[64 r ..].
            x.copy_from_slice(&data);
            pair_reduce_sum::<f16, true>(&x, &x, 8, 128u64, 1, 1, 8);
            let want: Vec<f16> = data.chunks(2).map(|p| add_sat(p[0], p[1], false)).collect();
            assert_eq!(util::bits(&x.to_vec()[..512]), util::bits(&want));
            // With srcRepStride = 0 every repeat reads the same lanes: in place would feed a
            // result into the next repeat, so it is an error.
            assert_fails("overlaps src", || whole_reduce_sum::<f16, true>(&x, &x, 128u64, 2, 1, 1, 0));
            assert_fails("overlaps src", || block_reduce_max::<f16, true>(&x, &x, 2, 128u64, 1, 1, 0));
        });
    }
}

// ---- the sanitizer -------------------------------------------------------------------------------

/// A reduction is one instruction of the V pipe: one in place (a row's partial sums into its
/// own first elements, as the vendor's `RmsNorm` reduces rows longer than 64) reads its source
/// before it writes, with no `PipeBarrier<PIPE_V>` needed even without the compiler's automatic
/// synchronisation; two dependent reductions still need one.
#[test]
fn an_in_place_reduction_is_one_instruction_for_the_sanitizer() {
    on(Soc::Ascend910B, || {
        ascend_core::sanitizer::LaunchSanitizer::with_auto_sync(false).run_core(|| {
            let mem = ub(1024);
            let row = mem.t::<f32>(0, 256);
            row.copy_from_slice(&(0..256).map(|i| i as f32).collect::<Vec<_>>());
            // 256 elements -> 4 partial sums in place -> 1, each ordered after the last.
            whole_reduce_sum::<f32, true>(&row, &row, [u64::MAX, 0], 4, 1, 1, 8);
            pipe_barrier::<PIPE_V>();
            repeat_reduce_sum::<f32, true>(&row, &row, 1, 4, 1, 1, 1, 8);
            // 64 elements -> 8 block sums in place -> 1.
            let row2 = mem.t::<f32>(1024 - 256, 64);
            row2.copy_from_slice(&(0..64).map(|i| i as f32).collect::<Vec<_>>());
            block_reduce_sum::<f32, true>(&row2, &row2, 1, [u64::MAX, 0], 1, 1, 8);
            pipe_barrier::<PIPE_V>();
            whole_reduce_sum::<f32, true>(&row2, &row2, [0xff, 0], 1, 1, 1, 8);
            set_flag::<HardEvent::V_S>(EVENT_ID0);
            wait_flag::<HardEvent::V_S>(EVENT_ID0);
            assert_eq!(row2.get_value(0), (0..64).sum::<i32>() as f32);
            assert_eq!(row.get_value(0), (0..256).sum::<i32>() as f32);
        });
        ascend_core::sanitizer::LaunchSanitizer::with_auto_sync(false).run_core(|| {
            let mem = ub(1024);
            let row = mem.t::<f32>(0, 256);
            whole_reduce_sum::<f32, true>(&row, &row, [u64::MAX, 0], 4, 1, 1, 8);
            assert_fails("RepeatReduceSum: sanitizer: write-after-read race", || {
                repeat_reduce_sum::<f32, true>(&row, &row, 1, 4, 1, 1, 1, 8)
            });
        });
    });
}

/// `ReduceDataBlock`'s page: `dst` 16-byte aligned for half and 32-byte aligned for float (the 8
/// results of one repeat); `ReducePairElem`'s: 32-byte aligned for both.
#[test]
fn block_reduce_dst_alignment_follows_the_type() {
    on(Soc::Ascend910B, || {
        let u = ub(2048);
        let (src, dst) = (u.t::<f16>(0, 128), u.t::<f16>(512, 32));
        src.copy_from_slice(&(0..128).map(|i| h(i as f32)).collect::<Vec<_>>());
        dst.copy_from_slice(&[h(-1.0); 32]);
        block_reduce_max::<f16, true>(&dst.view(8), &src, 1, 128u64, 1, 1, 8);
        let got: Vec<f32> = dst.to_vec().iter().map(|v| v.to_f32()).collect();
        let want: Vec<f32> =
            (0..32).map(|i| if (8..16).contains(&i) { (16 * (i - 8) + 15) as f32 } else { -1.0 }).collect();
        assert_eq!(got, want);
        assert_fails("BlockReduceMin: dst address = 0x208 is not 16-byte aligned", || {
            block_reduce_min::<f16, true>(&dst.view(4), &src, 1, 128u64, 1, 1, 8)
        });
        assert_fails("PairReduceSum: dst address = 0x210 is not 32-byte aligned", || {
            pair_reduce_sum::<f16, true>(&dst.view(8), &src, 1, 128u64, 1, 1, 8)
        });
        let (srcf, dstf) = (u.t::<f32>(1024, 64), u.t::<f32>(1536, 16));
        srcf.copy_from_slice(&(0..64).map(|i| i as f32).collect::<Vec<_>>());
        block_reduce_sum::<f32, true>(&dstf.view(8), &srcf, 1, 64u64, 1, 1, 8);
        assert_eq!(
            dstf.view(8).to_vec(),
            (0..8).map(|b| (8 * b..8 * b + 8).sum::<i32>() as f32).collect::<Vec<_>>()
        );
        assert_fails("BlockReduceSum: dst address = 0x610 is not 32-byte aligned", || {
            block_reduce_sum::<f32, true>(&dstf.view(4), &srcf, 1, 64u64, 1, 1, 8)
        });
    });
}
