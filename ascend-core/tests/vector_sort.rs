//! The sorting family (`Sort32`, `MrgSort`, `GetMrgSortResult`, `MrgSort4`, `RpSort16`,
//! `ProposalConcat`, `ProposalExtract`, `GetSortLen`, `GetSortOffset`): the vendor docs' worked
//! examples as exact vectors, slow scalar references over random inputs and parameters per
//! type and chip, the NaN / signed-zero / tie order, the sanitizer hooks, and every checked
//! misuse with its message.

use ascend_core::prelude::*;

use crate::common::util;
use util::{assert_fails, h, on, ub, Rng};

use crate::common::prop as strat;
use proptest::prelude::*;

// ---- the reference -------------------------------------------------------------------------

/// The rank of a score, compared as a tuple: every NaN above every number (NaNs equal), then
/// the value, `-0` counted as `+0`.
fn rank(x: f64) -> (u8, f64) {
    if x.is_nan() {
        (1, 0.0)
    } else if x == 0.0 {
        (0, 0.0)
    } else {
        (0, x)
    }
}

/// Whether score `a` goes strictly before score `b`.
fn better(a: f64, b: f64) -> bool {
    rank(a) > rank(b)
}

/// A stable selection sort, largest first: repeatedly the first of the best remaining items.
fn ref_sort<R: Clone>(items: &[(f64, R)]) -> Vec<R> {
    let mut left: Vec<(f64, R)> = items.to_vec();
    let mut out = Vec::new();
    while !left.is_empty() {
        let mut best = 0;
        for i in 1..left.len() {
            if better(left[i].0, left[best].0) {
                best = i;
            }
        }
        out.push(left.remove(best).1);
    }
    out
}

/// The merge as the docs describe it: at every step the best head, ties to the lowest list;
/// with `suspend`, stop once a list is exhausted (one that starts empty: at once). Returns
/// the merged records and how many each list gave.
fn ref_merge(lists: &[List], suspend: bool) -> (Vec<u8>, [u16; 4]) {
    let mut pos = [0usize; 4];
    let mut out = Vec::new();
    if suspend && lists.iter().any(|l| l.is_empty()) {
        return (out, [0; 4]);
    }
    loop {
        let mut pick: Option<usize> = None;
        for (k, l) in lists.iter().enumerate() {
            if pos[k] == l.len() {
                continue;
            }
            match pick {
                Some(p) if !better(l[pos[k]].0, lists[p][pos[p]].0) => {}
                _ => pick = Some(k),
            }
        }
        let Some(p) = pick else { break };
        out.extend_from_slice(&lists[p][pos[p]].1);
        pos[p] += 1;
        if suspend && pos[p] == lists[p].len() {
            break;
        }
    }
    (out, pos.map(|n| n as u16))
}

/// The value of type `T` whose bits are the low bytes of `bits`.
fn from_bits<T: Element>(bits: u64) -> T {
    bytemuck::pod_read_unaligned::<T>(&bits.to_le_bytes()[..T::SIZE])
}

/// A score with many ties and special values: NaNs (either sign, any payload), ±inf, ±0,
/// small integers, and random finite values.
fn special<T: Element>(rng: &mut Rng) -> T {
    let sign = rng.below(2);
    match rng.below(16) {
        0 | 1 => {
            if T::SIZE == 2 {
                from_bits(0x7C00 | rng.range(1, 0x3FF) | sign << 15)
            } else {
                from_bits(0x7F80_0000 | rng.range(1, 0x7F_FFFF) | sign << 31)
            }
        }
        2 => T::from_f64(f64::INFINITY),
        3 => T::from_f64(f64::NEG_INFINITY),
        4 => T::from_f64(0.0),
        5 => T::from_f64(-0.0),
        6..=11 => T::from_f64(rng.below(9) as f64 - 4.0),
        _ => T::from_f64((rng.next() % 200_000) as f64 / 100.0 - 1000.0),
    }
}

/// The bytes of `v`.
fn bytes_of<T: Element>(v: &[T]) -> Vec<u8> {
    bytemuck::cast_slice(v).to_vec()
}

/// The bytes of a tensor.
fn tensor_bytes<T: Element>(t: &LocalTensor<T>) -> Vec<u8> {
    bytes_of(&t.to_vec())
}

/// `got == want` byte for byte; on failure names the first differing byte.
#[track_caller]
fn assert_bytes(got: &[u8], want: &[u8], ctx: &str) {
    assert_eq!(got.len(), want.len(), "length; {ctx}");
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        panic!("byte {i}: got {:#04x}, want {:#04x}; {ctx}", got[i], want[i]);
    }
}

/// A run of structures: each one's score (widened) and bytes.
type List = Vec<(f64, Vec<u8>)>;

/// A filler byte that no instruction writes by accident.
const FILL: u8 = 0xA5;

// ---- the docs' worked examples -------------------------------------------------------------

/// `ProposalConcat.md`, `ProposalExtract.md`: 32 half scores into the score field (mode 4) of
/// 32 proposals and back.
const CONCAT_DOC_IN: [f32; 32] = [
    33.3, 67.56, 68.5, -11.914, 25.19, -72.8, 11.79, -49.47, 49.44, 84.4, -14.36, 45.97, 52.47, -5.387,
    -13.12, -88.9, 54., -51.62, -20.67, 59.56, 35.72, -6.12, -39.4, -11.46, -7.066, 30.23, -11.18, -35.84,
    -40.88, 60.9, -73.3, 38.47,
];

/// The proposals the docs print for `values` concatenated at field 4: `[0, 0, 0, 0, v, 0, 0, 0]`.
fn proposals_of(values: &[f16]) -> Vec<f16> {
    values.iter().flat_map(|&v| [h(0.0), h(0.0), h(0.0), h(0.0), v, h(0.0), h(0.0), h(0.0)]).collect()
}

#[test]
fn doc_proposal_concat_and_extract_examples() {
    for soc in [Soc::Ascend910, Soc::Ascend310P] {
        on(soc, || {
            let u = ub(64 + 512 + 64);
            let (src, rp, back) = (u.t::<f16>(0, 32), u.t::<f16>(64, 256), u.t::<f16>(576, 32));
            let input: Vec<f16> = CONCAT_DOC_IN.iter().map(|&x| h(x)).collect();
            src.copy_from_slice(&input);
            // repeatTime = 2, modeNumber = 4: 32 values into 32 proposals' score field.
            proposal_concat(&rp, &src, 2, 4);
            util::assert_bits_ctx(&rp.to_vec(), &proposals_of(&input), soc);
            proposal_extract(&back, &rp, 2, 4);
            util::assert_bits_ctx(&back.to_vec(), &input, soc);
        });
    }
}

/// `RpSort16.md`: ProposalConcat(dst, src, 2, 4) then RpSort16(dst, dst, 2): two groups of 16
/// sorted separately.
#[test]
fn doc_rp_sort16_example() {
    let input = [
        -1.624, -42.3, -54.12, 91.25, -99.4, 36.72, 67.44, -66.3, -52.53, 3.377, -62.47, -15.85, -31.47,
        3.143, 58.47, -83.75, 21.58, 63.47, 7.234, 35.16, -39.72, 37.8, 73.06, -98.7, 44.1, -77.2, 67.2,
        19.62, -87.9, -14.875, 15.86, -77.75,
    ];
    let output = [
        91.25, 67.44, 58.47, 36.72, 3.377, 3.143, -1.624, -15.85, -31.47, -42.3, -52.53, -54.12, -62.47,
        -66.3, -83.75, -99.4, 73.06, 67.2, 63.47, 44.1, 37.8, 35.16, 21.58, 19.62, 15.86, 7.234, -14.875,
        -39.72, -77.2, -77.75, -87.9, -98.7,
    ];
    for soc in [Soc::Ascend910, Soc::Ascend310P] {
        on(soc, || {
            let u = ub(64 + 512);
            let (src, dst) = (u.t::<f16>(0, 32), u.t::<f16>(64, 256));
            src.copy_from_slice(&input.map(h));
            proposal_concat(&dst, &src, 2, 4);
            rp_sort16(&dst, &dst, 2);
            util::assert_bits_ctx(&dst.to_vec(), &proposals_of(&output.map(h)), soc);
        });
    }
}

/// `MrgSort4.md`: 64 half scores, ProposalConcat + RpSort16 per group of 16, then MrgSort4 of
/// the 4 groups ({16, 16, 16, 16}, no suspension, validBit 15, 1 repeat).
#[test]
fn doc_mrg_sort4_example() {
    let input = [
        -38.1, 82.7, -40.75, -54.62, 21.67, -58.53, 25.94, -79.5, -61.44, 26.7, -27.45, 48.78, 86.75, -18.1,
        -58.8, 62.38, 46.38, -78.94, -87.7, -13.81, -13.25, 46.94, -47.8, -50.44, 34.16, 20.3, 80.1, -94.1,
        52.4, -42.75, 83.4, 80.44, -66.8, -82.7, -91.44, -95.6, 66.2, -30.97, -36.53, 61.66, 24.92, -45.1,
        38.97, -34.62, -69.8, 59.1, 34.22, 11.695, -33.47, 52.1, -4.832, 46.88, 56.78, 71.4, 13.29, -35.78,
        52.44, -46.03, 83.8, 83.56, 71.3, -9.086, -65.06, 46.25,
    ];
    // The score fields of the printed output, in order.
    let output = [
        86.75, 83.8, 83.56, 83.4, 82.7, 80.44, 80.1, 71.4, 71.3, 66.2, 62.38, 61.66, 59.1, 56.78, 52.44,
        52.4, 52.1, 48.78, 46.94, 46.88, 46.38, 46.25, 38.97, 34.22, 34.16, 26.7, 25.94, 24.92, 21.67, 20.3,
        13.29, 11.695, -4.832, -9.086, -13.25, -13.81, -18.1, -27.45, -30.97, -33.47, -34.62, -35.78, -36.53,
        -38.1, -40.75, -42.75, -45.1, -46.03, -47.8, -50.44, -54.62, -58.53, -58.8, -61.44, -65.06, -66.8,
        -69.8, -78.94, -79.5, -82.7, -87.7, -91.44, -94.1, -95.6,
    ];
    for soc in [Soc::Ascend910, Soc::Ascend310P] {
        on(soc, || {
            let u = ub(128 + 1024 + 1024);
            let src = u.t::<f16>(0, 64);
            let (work, dst) = (u.t::<f16>(128, 512), u.t::<f16>(1152, 512));
            src.copy_from_slice(&input.map(h));
            for g in 0..4 {
                proposal_concat(&work.view(128 * g), &src.view(16 * g), 1, 4);
                rp_sort16(&work.view(128 * g), &work.view(128 * g), 1);
            }
            let list = MrgSortSrcList::new(&work.view(0), &work.view(128), &work.view(256), &work.view(384));
            mrg_sort4(&dst, &list, &MrgSort4Info::new([16; 4], false, 15, 1));
            util::assert_bits_ctx(&dst.to_vec(), &proposals_of(&output.map(h)), soc);
            if soc == Soc::Ascend310P {
                assert_eq!(get_mrg_sort_result(), (16, 16, 16, 16));
            }
        });
    }
}

/// `GetMrgSortResult.md` (with `MrgSort`): scores 1..=128 with index 0, sorted in 4 lists of
/// 32 by Sort32, merged. The page's printed dst is the full descending merge, which is what
/// `ifExhaustedSuspension = false` gives; with `true` (the call on the page) the merge stops
/// once the list holding 128..97 runs out, as the page's text says — 32 regions, counts
/// (0, 0, 0, 32).
#[test]
fn doc_get_mrg_sort_result_example() {
    for soc in [Soc::Ascend910B, Soc::Ascend310B] {
        on(soc, || {
            let u = ub(512 + 512 + 1024 + 1024);
            let (scores, index) = (u.t::<f32>(0, 128), u.t::<u32>(512, 128));
            let (work, dst) = (u.t::<f32>(1024, 256), u.t::<f32>(2048, 256));
            scores.copy_from_slice(&(1..=128).map(|i| i as f32).collect::<Vec<_>>());
            index.copy_from_slice(&[0; 128]);
            sort32(&work, &scores, &index, 4);
            let list = MrgSortSrcList::new(&work.view(0), &work.view(64), &work.view(128), &work.view(192));
            let printed: Vec<f32> = (0..128).rev().flat_map(|i| [(i + 1) as f32, 0.0]).collect();
            mrg_sort(&dst, &list, &MrgSort4Info::new([32; 4], false, 0b1111, 1));
            util::assert_bits_ctx(&dst.to_vec(), &printed, soc);
            assert_eq!(get_mrg_sort_result(), (32, 32, 32, 32));
            dst.copy_from_slice(&[-1.0; 256]);
            mrg_sort(&dst, &list, &MrgSort4Info::new([32; 4], true, 0b1111, 1));
            assert_eq!(get_mrg_sort_result(), (0, 0, 0, 32), "{soc}");
            let mut want = printed[..64].to_vec();
            want.resize(256, -1.0);
            util::assert_bits_ctx(&dst.to_vec(), &want, soc);
        });
    }
}

/// `MrgSort.md`: 8 sorted lists of 32 regions, `repeatTimes = 2`, stored contiguously: two
/// independent merges of 128, the second 256 floats further on in src and dst.
#[test]
fn doc_mrg_sort_repeat_example() {
    on(Soc::Ascend910B, || {
        let u = ub(6144);
        let (scores, index) = (u.t::<f32>(0, 256), u.t::<u32>(1024, 256));
        let (work, dst) = (u.t::<f32>(2048, 512), u.t::<f32>(4096, 512));
        let rng = &mut Rng(7);
        let s: Vec<f32> = (0..256).map(|_| (rng.below(1000) as f32) / 8.0).collect();
        scores.copy_from_slice(&s);
        index.copy_from_slice(&(0..256).collect::<Vec<u32>>());
        sort32(&work, &scores, &index, 8);
        let list = MrgSortSrcList::new(&work.view(0), &work.view(64), &work.view(128), &work.view(192));
        mrg_sort(&dst, &list, &MrgSort4Info::new([32; 4], false, 0b1111, 2));
        let got = dst.to_vec();
        for g in 0..2 {
            let items: Vec<(f64, u32)> =
                (0..128).map(|k| (s[128 * g + k] as f64, (128 * g + k) as u32)).collect();
            let order = ref_sort(&items);
            for (i, &k) in order.iter().enumerate() {
                assert_eq!(got[256 * g + 2 * i], s[k as usize]);
                assert_eq!(got[256 * g + 2 * i + 1].to_bits(), k);
            }
        }
    });
}

/// `VMS4_SR` belongs to a core: another core has not merged and reads zeros.
#[test]
fn get_mrg_sort_result_is_per_core() {
    let merge = || {
        let u = ub(512);
        let (src, dst) = (u.t::<f32>(0, 8), u.t::<f32>(256, 64));
        src.copy_from_slice(&[5.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0]);
        let list = MrgSortSrcList::new(&src.view(0), &src.view(2), &src, &src);
        mrg_sort(&dst, &list, &MrgSort4Info::new([1, 3, 0, 0], true, 3, 1));
    };
    on(Soc::Ascend910B, || {
        assert_eq!(get_mrg_sort_result(), (0, 0, 0, 0));
        merge();
        assert_eq!(get_mrg_sort_result(), (1, 0, 0, 0));
    });
    let other = CoreConfig { block_idx: 1, block_num: 2, ..CoreConfig::single(Soc::Ascend910B) };
    run_on_core(other, || assert_eq!(get_mrg_sort_result(), (0, 0, 0, 0)));
}

// ---- NaN, signed zeros, infinities, ties ---------------------------------------------------

/// Every NaN first (in input order, whatever its sign), `+inf`, the numbers (ties in input
/// order, `-0` and `+0` equal), `-inf` last.
#[test]
fn special_values_order() {
    fn run<T: SortElement>(soc: Soc) {
        let nan_neg = if T::SIZE == 2 { from_bits::<T>(0xFE01) } else { from_bits::<T>(0xFFC0_0001) };
        let nan = T::from_f64(f64::NAN);
        let specials = [
            T::from_f64(1.0),
            nan_neg,
            T::from_f64(-0.0),
            T::from_f64(f64::NEG_INFINITY),
            T::from_f64(0.0),
            T::from_f64(f64::INFINITY),
            nan,
            T::from_f64(1.0),
        ];
        // Input position of each, in the expected order (the 24 copies of -100 come between
        // +0 and -inf, in input order).
        let want: Vec<usize> = [1, 6, 5, 0, 7, 2, 4].into_iter().chain(8..32).chain([3]).collect();
        let mut s = vec![T::from_f64(-100.0); 32];
        s[..8].copy_from_slice(&specials);
        let u = ub(128 + 128 + 256);
        let (src0, src1, dst) = (u.t::<T>(0, 32), u.t::<u32>(128, 32), u.t::<T>(256, 256 / T::SIZE));
        src0.copy_from_slice(&s);
        src1.copy_from_slice(&(0..32).collect::<Vec<u32>>());
        sort32(&dst, &src0, &src1, 1);
        let out = tensor_bytes(&dst);
        for (i, &k) in want.iter().enumerate() {
            let region = &out[8 * i..8 * i + 8];
            assert_eq!(region[..T::SIZE], bytes_of(&[s[k]])[..], "{soc} {} position {i}", T::DTYPE);
            assert_eq!(u32::from_le_bytes(region[4..8].try_into().unwrap()), k as u32, "{soc} position {i}");
        }
    }
    for soc in [Soc::Ascend910B, Soc::Ascend310B] {
        on(soc, || {
            run::<f16>(soc);
            run::<f32>(soc);
        });
    }
}

/// Half regions: score in bytes 0..2, bytes 2..4 written as zeros, the index in bytes 4..8.
#[test]
fn half_region_layout() {
    on(Soc::Ascend910B, || {
        let u = ub(512);
        let (src0, src1, dst) = (u.t::<f16>(0, 32), u.t::<u32>(128, 32), u.t::<f16>(256, 128));
        src0.copy_from_slice(&(0..32).map(|i| h(i as f32)).collect::<Vec<_>>());
        src1.copy_from_slice(&(0..32).map(|i| 0xABCD_0000 + i).collect::<Vec<u32>>());
        dst.copy_from_slice(&[h(7.0); 128]);
        sort32(&dst, &src0, &src1, 1);
        let out = dst.to_vec();
        assert_eq!(out[0].to_f32(), 31.0);
        assert_eq!(out[1].to_bits(), 0);
        assert_eq!((out[2].to_bits(), out[3].to_bits()), (0x001F, 0xABCD));
    });
}

/// A merge takes whole 8-byte regions: the reserved bytes of half regions move with them.
#[test]
fn merge_moves_whole_regions() {
    on(Soc::Ascend310B, || {
        let u = ub(64 + 64);
        let (src, dst) = (u.t::<u16>(0, 16), u.t::<u16>(64, 16));
        // Two lists of 2 half regions: (score, reserved, index lo, index hi).
        let one = h(1.0).to_bits();
        let two = h(2.0).to_bits();
        src.copy_from_slice(&[two, 0x1111, 1, 0, one, 0x2222, 2, 0, two, 0x3333, 3, 0, one, 0x4444, 4, 0]);
        let s = src.reinterpret_cast::<f16>();
        let list = MrgSortSrcList::new(&s.view(0), &s.view(8), &s, &s);
        mrg_sort(&dst.reinterpret_cast::<f16>(), &list, &MrgSort4Info::new([2, 2, 0, 0], false, 3, 1));
        assert_eq!(
            dst.to_vec(),
            [two, 0x1111, 1, 0, two, 0x3333, 3, 0, one, 0x2222, 2, 0, one, 0x4444, 4, 0]
        );
    });
}

// ---- random calls against the reference ----------------------------------------------------

/// One random `sort32` call: repeats and the seed of the data.
#[derive(Clone, Debug)]
struct Sort32Case {
    repeats: usize,
    seed: u64,
}

fn sort32_strategy() -> impl Strategy<Value = Sort32Case> {
    (1..=8usize, any::<u64>()).prop_map(|(repeats, seed)| Sort32Case { repeats, seed })
}

fn sort32_case<T: SortElement>(c: &Sort32Case, soc: Soc) {
    let rng = &mut Rng(c.seed);
    let n = c.repeats * 32;
    let scores: Vec<T> = (0..n).map(|_| special::<T>(rng)).collect();
    let index: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
    let s0 = (n * T::SIZE).div_ceil(256) * 256;
    let s1 = (s0 + n * 4).div_ceil(256) * 256;
    let dst_bytes = c.repeats * 256 + 256;
    let u = ub(s1 + dst_bytes);
    let (src0, src1) = (u.t::<T>(0, n), u.t::<u32>(s0, n));
    let dst = u.t::<u8>(s1, dst_bytes);
    src0.copy_from_slice(&scores);
    src1.copy_from_slice(&index);
    dst.copy_from_slice(&vec![FILL; dst_bytes]);
    sort32(&dst.reinterpret_cast::<T>(), &src0, &src1, c.repeats as i32);
    let mut want = Vec::new();
    for g in 0..c.repeats {
        let items: Vec<(f64, usize)> = (32 * g..32 * g + 32).map(|k| (scores[k].to_f64(), k)).collect();
        for k in ref_sort(&items) {
            want.extend_from_slice(&bytes_of(&[scores[k]]));
            want.resize(want.len() + 4 - T::SIZE, 0);
            want.extend_from_slice(&index[k].to_le_bytes());
        }
    }
    want.resize(dst_bytes, FILL);
    assert_bytes(&dst.to_vec(), &want, &format!("{soc} {} {c:?}", T::DTYPE));
}

/// One random merge: which lists are valid, their lengths, suspension, repeats, whether the
/// lists are sorted first, the gaps between them (in structures) and the data seed.
#[derive(Clone, Debug)]
struct MergeCase {
    valid_bit: u16,
    lens: [u16; 4],
    suspend: bool,
    repeats: u8,
    sorted: bool,
    gaps: [usize; 4],
    seed: u64,
}

fn merge_strategy() -> impl Strategy<Value = MergeCase> {
    (
        prop::sample::select(vec![3u16, 7, 15]),
        [0..=40u16, 0..=40u16, 0..=40u16, 0..=40u16],
        any::<bool>(),
        prop_oneof![3 => Just(1u8), 1 => 2..=4u8],
        any::<bool>(),
        [0..=3usize, 0..=3usize, 0..=3usize, 0..=3usize],
        any::<u64>(),
    )
        .prop_map(|(valid_bit, lens, suspend, repeats, sorted, gaps, seed)| {
            if repeats > 1 {
                // The conditions of the repeat mode: 4 contiguous lists of one length.
                MergeCase {
                    valid_bit: 15,
                    lens: [lens[0]; 4],
                    suspend: false,
                    repeats,
                    sorted,
                    gaps: [0; 4],
                    seed,
                }
            } else {
                MergeCase { valid_bit, lens, suspend, repeats, sorted, gaps, seed }
            }
        })
}

/// Runs one merge: `proposals` picks `mrg_sort4` (8-element proposals, score at element 4)
/// over `mrg_sort` (8-byte regions, score at byte 0).
fn merge_case<T: SortElement>(c: &MergeCase, soc: Soc, proposals: bool) {
    let rng = &mut Rng(c.seed);
    let (rec, score_at) = if proposals { (8 * T::SIZE, 4 * T::SIZE) } else { (8, 0) };
    let n_lists = match c.valid_bit {
        3 => 2,
        7 => 3,
        _ => 4,
    };
    let repeats = usize::from(c.repeats);
    // Each group's lists: random structures (random bytes, a special score), sorted by the
    // reference if `sorted`.
    let mut groups: Vec<Vec<List>> = Vec::new();
    for _ in 0..repeats {
        let mut lists = Vec::new();
        for &len in &c.lens[..n_lists] {
            let mut l: List = (0..usize::from(len))
                .map(|_| {
                    let mut b = rng.bytes(rec);
                    let s = special::<T>(rng);
                    b[score_at..score_at + T::SIZE].copy_from_slice(&bytes_of(&[s]));
                    (s.to_f64(), b)
                })
                .collect();
            if c.sorted {
                l = ref_sort(&l.iter().map(|x| (x.0, x.clone())).collect::<Vec<_>>());
            }
            lists.push(l);
        }
        groups.push(lists);
    }
    // Layout: the lists one after another (gaps between them when repeats = 1), then dst.
    let mut offs = [0usize; 4];
    let mut at = 0;
    for (k, off) in offs.iter_mut().enumerate().take(n_lists) {
        at += c.gaps[k] * rec;
        *off = at;
        at += usize::from(c.lens[k]) * rec;
    }
    let src_bytes = if repeats > 1 { repeats * at } else { at };
    let total: usize = c.lens[..n_lists].iter().map(|&l| usize::from(l)).sum();
    let out_bytes = repeats * total * rec;
    let dst_at = src_bytes.div_ceil(256) * 256;
    let u = ub(dst_at + out_bytes + 64);
    let area = u.t::<u8>(0, dst_at + out_bytes + 64);
    area.copy_from_slice(&vec![FILL; dst_at + out_bytes + 64]);
    for (g, lists) in groups.iter().enumerate() {
        for (k, l) in lists.iter().enumerate() {
            let bytes: Vec<u8> = l.iter().flat_map(|x| x.1.clone()).collect();
            area.view_len(g * at + offs[k], bytes.len()).copy_from_slice(&bytes);
        }
    }
    let whole = u.t::<T>(0, (dst_at + out_bytes + 64) / T::SIZE);
    let src_views: Vec<LocalTensor<T>> = (0..4)
        .map(|k| {
            if k < n_lists {
                let len = if k == 0 && repeats > 1 { src_bytes } else { usize::from(c.lens[k]) * rec };
                whole.view_len(offs[k] / T::SIZE, len / T::SIZE)
            } else {
                whole.view_len(0, 0)
            }
        })
        .collect();
    let list = MrgSortSrcList::new(&src_views[0], &src_views[1], &src_views[2], &src_views[3]);
    let dst = whole.view_len(dst_at / T::SIZE, out_bytes / T::SIZE);
    let params = MrgSort4Info::new(c.lens, c.suspend, c.valid_bit, c.repeats);
    if proposals {
        mrg_sort4(&dst, &list, &params);
    } else {
        mrg_sort(&dst, &list, &params);
    }
    let mut want = area.to_vec();
    want[dst_at..].fill(FILL);
    let mut counts = [0u16; 4];
    for (g, lists) in groups.iter().enumerate() {
        let (merged, n) = ref_merge(lists, c.suspend);
        if c.sorted && !c.suspend {
            // Sorted lists merged in full are the stable sort of their concatenation.
            let all: Vec<(f64, Vec<u8>)> = lists.iter().flatten().cloned().collect();
            let flat: Vec<u8> =
                ref_sort(&all.iter().map(|x| (x.0, x.1.clone())).collect::<Vec<_>>()).concat();
            assert_eq!(flat, merged, "the reference merge disagrees with the stable sort; {c:?}");
        }
        want[dst_at + g * total * rec..][..merged.len()].copy_from_slice(&merged);
        counts = n;
    }
    let ctx = format!("{soc} {} proposals {proposals} {c:?}", T::DTYPE);
    assert_bytes(&area.to_vec(), &want, &ctx);
    if soc != Soc::Ascend910 {
        let (a, b, cc, d) = get_mrg_sort_result();
        assert_eq!([a, b, cc, d], counts, "{ctx}");
    }
}

/// One random `rp_sort16` call: repeats, in place or not, and the data seed.
#[derive(Clone, Debug)]
struct RpSortCase {
    repeats: usize,
    in_place: bool,
    seed: u64,
}

fn rp_sort_strategy() -> impl Strategy<Value = RpSortCase> {
    (1..=6usize, any::<bool>(), any::<u64>()).prop_map(|(repeats, in_place, seed)| RpSortCase {
        repeats,
        in_place,
        seed,
    })
}

fn rp_sort_case<T: SortElement>(c: &RpSortCase, soc: Soc) {
    let rng = &mut Rng(c.seed);
    let rec = 8 * T::SIZE;
    let n = c.repeats * 16;
    let mut data = rng.bytes(n * rec);
    for p in 0..n {
        let s = special::<T>(rng);
        data[p * rec + 4 * T::SIZE..][..T::SIZE].copy_from_slice(&bytes_of(&[s]));
    }
    let u = ub(2 * n * rec + 64);
    let area = u.t::<u8>(0, 2 * n * rec + 64);
    area.copy_from_slice(&vec![FILL; 2 * n * rec + 64]);
    area.view_len(0, n * rec).copy_from_slice(&data);
    let whole = u.t::<T>(0, (2 * n * rec + 64) / T::SIZE);
    let src = whole.view_len(0, n * 8);
    let dst = if c.in_place { src.clone() } else { whole.view_len(n * 8, n * 8) };
    rp_sort16(&dst, &src, c.repeats as i32);
    let mut want = area.to_vec();
    let mut sorted = Vec::new();
    for g in 0..c.repeats {
        let items: Vec<(f64, usize)> = (16 * g..16 * g + 16)
            .map(|p| {
                (bytemuck::pod_read_unaligned::<T>(&data[p * rec + 4 * T::SIZE..][..T::SIZE]).to_f64(), p)
            })
            .collect();
        for p in ref_sort(&items) {
            sorted.extend_from_slice(&data[p * rec..(p + 1) * rec]);
        }
    }
    let at = if c.in_place { 0 } else { n * rec };
    want[at..at + n * rec].copy_from_slice(&sorted);
    assert_bytes(&area.to_vec(), &want, &format!("{soc} {} {c:?}", T::DTYPE));
}

/// One random `proposal_concat` + `proposal_extract` pair: repeats, field, data seed.
#[derive(Clone, Debug)]
struct FieldCase {
    repeats: usize,
    mode: i32,
    seed: u64,
}

fn field_strategy() -> impl Strategy<Value = FieldCase> {
    (1..=6usize, 0..=5i32, any::<u64>()).prop_map(|(repeats, mode, seed)| FieldCase { repeats, mode, seed })
}

fn field_case<T: SortElement>(c: &FieldCase, soc: Soc) {
    let rng = &mut Rng(c.seed);
    let n = c.repeats * 16;
    let vals: Vec<T> = (0..n).map(|_| special::<T>(rng)).collect();
    let before: Vec<T> = (0..n * 8).map(|_| special::<T>(rng)).collect();
    let (vb, rb) = ((n * T::SIZE).div_ceil(32) * 32, n * 8 * T::SIZE);
    let u = ub(2 * vb + rb);
    let (src, rp, back) = (u.t::<T>(0, n), u.t::<T>(vb, n * 8), u.t::<T>(vb + rb, n));
    src.copy_from_slice(&vals);
    rp.copy_from_slice(&before);
    let mode = c.mode as usize;
    proposal_concat(&rp, &src, c.repeats as i32, c.mode);
    let mut want = before.clone();
    for i in 0..n {
        want[8 * i + mode] = vals[i];
    }
    let ctx = format!("{soc} {} {c:?}", T::DTYPE);
    util::assert_bits_ctx(&rp.to_vec(), &want, &ctx);
    // Extract another field of the same proposals.
    let other = (mode + 1 + rng.index(5)) % 6;
    proposal_extract(&back, &rp, c.repeats as i32, other as i32);
    let want: Vec<T> = (0..n).map(|i| want[8 * i + other]).collect();
    util::assert_bits_ctx(&back.to_vec(), &want, &ctx);
}

macro_rules! per_type {
    ($($t:ty),*) => {$(
        paste::paste! {
            #[test]
            fn [<sort32_matches_reference_ $t>]() {
                let socs = strat::socs_where(<$t>::sort32_supported);
                strat::check_cases(60, 0x5027_3200, (strat::soc_of(socs), sort32_strategy()), |(soc, c)| {
                    on(*soc, || sort32_case::<$t>(c, *soc));
                });
            }

            #[test]
            fn [<mrg_sort_matches_reference_ $t>]() {
                let socs = strat::socs_where(<$t>::mrg_sort_supported);
                strat::check_cases(150, 0x3E26_5047, (strat::soc_of(socs), merge_strategy()), |(soc, c)| {
                    on(*soc, || merge_case::<$t>(c, *soc, false));
                });
            }

            #[test]
            fn [<mrg_sort4_matches_reference_ $t>]() {
                let socs = strat::socs_where(<$t>::mrg_sort4_supported);
                strat::check_cases(150, 0x3E26_5048, (strat::soc_of(socs), merge_strategy()), |(soc, c)| {
                    on(*soc, || merge_case::<$t>(c, *soc, true));
                });
            }

            #[test]
            fn [<rp_sort16_matches_reference_ $t>]() {
                let socs = strat::socs_where(<$t>::rp_sort16_supported);
                strat::check_cases(60, 0x2950_2716, (strat::soc_of(socs), rp_sort_strategy()), |(soc, c)| {
                    on(*soc, || rp_sort_case::<$t>(c, *soc));
                });
            }

            #[test]
            fn [<proposal_fields_match_reference_ $t>]() {
                let socs = strat::socs_where(<$t>::proposal_concat_supported);
                strat::check_cases(60, 0x0C0C_A7E8, (strat::soc_of(socs), field_strategy()), |(soc, c)| {
                    on(*soc, || field_case::<$t>(c, *soc));
                });
            }

            #[test]
            fn [<chips_ $t>]() {
                use Soc::*;
                let t = <$t>::DTYPE;
                for soc in Soc::ALL {
                    let region = matches!(soc, Ascend910B | Ascend310B);
                    let proposal = soc == Ascend310P || (soc == Ascend910 && t == DType::F16);
                    assert_eq!(<$t>::sort32_supported(soc), region);
                    assert_eq!(<$t>::mrg_sort_supported(soc), region);
                    assert_eq!(<$t>::mrg_sort4_supported(soc), proposal);
                    assert_eq!(<$t>::rp_sort16_supported(soc), proposal);
                    assert_eq!(<$t>::proposal_concat_supported(soc), proposal);
                    assert_eq!(<$t>::proposal_extract_supported(soc), proposal);
                    // GetSortLen / GetSortOffset: elements of T per sorted element.
                    let per = if region { 8 / <$t>::SIZE as u32 } else { 8 };
                    on(soc, || {
                        assert_eq!(get_sort_len::<$t>(100), 100 * per);
                        assert_eq!(get_sort_offset::<$t>(7), 7 * per);
                    });
                }
            }
        }
    )*};
}
per_type!(f16, f32);

// ---- the sanitizer hooks -------------------------------------------------------------------

/// The instructions report their operands to the sanitizer on pipe V: a scalar write of a
/// source not ordered before the sort, or a scalar read of a merge's output not ordered after
/// it, is caught; bytes a suspended merge did not write are not part of its output.
#[test]
fn sanitizer_sees_the_operands() {
    use ascend_core::sanitizer::LaunchSanitizer;
    on(Soc::Ascend910B, || {
        let msg = util::panic_message(|| {
            LaunchSanitizer::with_auto_sync(false).run_core(|| {
                let u = ub(128 + 128 + 256);
                let (src0, src1, dst) = (u.t::<f32>(0, 32), u.t::<u32>(128, 32), u.t::<f32>(256, 64));
                src0.set_value(3, 1.0);
                sort32(&dst, &src0, &src1, 1);
            })
        });
        assert!(msg.contains("Sort32") && msg.contains("SetValue"), "{msg}");
    });
    on(Soc::Ascend910B, || {
        let merge = |u: &util::Ub| {
            let (src, dst) = (u.t::<f32>(0, 8), u.t::<f32>(256, 64));
            src.copy_from_slice(&[5.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0]);
            let list = MrgSortSrcList::new(&src.view(0), &src.view(2), &src, &src);
            mrg_sort(&dst, &list, &MrgSort4Info::new([1, 3, 0, 0], true, 3, 1));
            dst
        };
        // The suspended merge writes 1 region (list 1 has one): dst[2..] is not its output.
        LaunchSanitizer::with_auto_sync(false).run_core(|| {
            let u = ub(512);
            let dst = merge(&u);
            let _ = dst.get_value(2);
        });
        let msg = util::panic_message(|| {
            LaunchSanitizer::with_auto_sync(false).run_core(|| {
                let u = ub(512);
                let dst = merge(&u);
                let _ = dst.get_value(0);
            })
        });
        assert!(msg.contains("MrgSort") && msg.contains("GetValue"), "{msg}");
    });
}

// ---- misuse --------------------------------------------------------------------------------

#[test]
fn sort32_checks() {
    on(Soc::Ascend910, || {
        let u = ub(1024);
        let (a, i) = (u.t::<f16>(0, 128), u.t::<u32>(512, 128));
        assert_fails(
            "Sort32: T = half is not supported by Sort32 on Ascend910 (Atlas training series)",
            || sort32(&a, &a, &i, 1),
        );
    });
    on(Soc::Ascend310P, || {
        let u = ub(1024);
        let (a, i) = (u.t::<f32>(0, 128), u.t::<u32>(512, 128));
        assert_fails("T = float is not supported by Sort32 on Ascend310P", || sort32(&a, &a, &i, 1));
    });
    on(Soc::Ascend910B, || {
        let u = ub(4096);
        let (s0, s1, d) = (u.t::<f32>(0, 64), u.t::<u32>(256, 64), u.t::<f32>(512, 128));
        assert_fails("Sort32: repeatTime = 256 is out of range [0, 255]", || sort32(&d, &s0, &s1, 256));
        assert_fails("repeatTime = -1 is out of range [0, 255]", || sort32(&d, &s0, &s1, -1));
        assert_fails("dst address = 0x220 is not 256-byte aligned", || sort32(&d.view(8), &s0, &s1, 1));
        assert_fails("src0 address = 0x20 is not 128-byte aligned", || sort32(&d, &s0.view(8), &s1, 1));
        assert_fails("src1 address = 0x140 is not 128-byte aligned", || sort32(&d, &s0, &s1.view(16), 1));
        let h0 = u.t::<f16>(64, 32);
        let hd = u.t::<f16>(1024, 128);
        // Half scores need 64-byte alignment only: 0x40 passes, 0x20 does not.
        sort32(&hd, &h0, &s1, 1);
        assert_fails("src0 address = 0x20 is not 64-byte aligned", || {
            sort32(&hd, &u.t::<f16>(32, 32), &s1, 1)
        });
        assert_fails("src0 holds 64 elements but repeatTime = 3 reads 96", || sort32(&d, &s0, &s1, 3));
        let long0 = u.t::<f32>(0, 96);
        assert_fails("src1 holds 64 elements but repeatTime = 3 reads 96", || sort32(&d, &long0, &s1, 3));
        let long1 = u.t::<u32>(256, 96);
        assert_fails("dst holds 128 elements but repeatTime = 3 writes 768 bytes, that is 192", || {
            sort32(&d, &long0, &long1, 3)
        });
        assert_fails("Sort32: dst (bytes 0x0..0x100) overlaps src0 (bytes 0x0..0x80)", || {
            sort32(&u.t::<f32>(0, 64), &s0.view_len(0, 32), &s1, 1)
        });
        assert_fails("overlaps src1", || sort32(&u.t::<f32>(256, 64), &s0, &s1, 1));
        // repeatTime = 0: nothing happens, even with too small operands.
        sort32(&d, &s0.view_len(0, 0), &s1, 0);
    });
}

#[test]
fn sort32_position_check() {
    on(Soc::Ascend910B, || {
        let (mut pipe, [s0]) = util::tensors::<f32, 1>(64);
        let s1 = util::tensor::<u32>(&mut pipe, 64);
        let l1 = LocalTensor::<f32>::new(TPosition::A1, 0, 256);
        assert_fails("Sort32: dst is at position A1: Sort32 takes VECIN, VECOUT or VECCALC tensors", || {
            sort32(&l1, &s0, &s1, 1)
        });
    });
}

#[test]
fn mrg_sort_checks() {
    on(Soc::Ascend310P, || {
        let u = ub(1024);
        let a = u.t::<f32>(0, 256);
        let list = MrgSortSrcList::new(&a, &a, &a, &a);
        assert_fails("T = float is not supported by MrgSort on Ascend310P", || {
            mrg_sort(&a, &list, &MrgSort4Info::new([1; 4], false, 15, 1))
        });
    });
    on(Soc::Ascend910B, || {
        let u = ub(8192);
        let work = u.t::<f32>(0, 512);
        let dst = u.t::<f32>(4096, 512);
        let list = MrgSortSrcList::new(&work.view(0), &work.view(64), &work.view(128), &work.view(192));
        let p = |l: [u16; 4], s: bool, v: u16, r: u8| MrgSort4Info::new(l, s, v, r);
        assert_fails("MrgSort: validBit = 5 is not 3, 7 or 15", || {
            mrg_sort(&dst, &list, &p([32; 4], false, 5, 1))
        });
        assert_fails("validBit = 0 is not 3, 7 or 15", || mrg_sort(&dst, &list, &MrgSort4Info::default()));
        assert_fails("elementLengths[2] = 4096 is out of range [0, 4095]", || {
            mrg_sort(&dst, &list, &p([1, 1, 4096, 1], false, 3, 1))
        });
        assert_fails("repeatTimes = 2 needs validBit = 15 (all 4 lists), not 7", || {
            mrg_sort(&dst, &list, &p([32; 4], false, 7, 2))
        });
        assert_fails("repeatTimes = 2 needs ifExhaustedSuspension = false", || {
            mrg_sort(&dst, &list, &p([32; 4], true, 15, 2))
        });
        assert_fails(
            "repeatTimes = 2 needs 4 lists of one length, not elementLengths = [32, 32, 32, 16]",
            || mrg_sort(&dst, &list, &p([32, 32, 32, 16], false, 15, 2)),
        );
        let gap = MrgSortSrcList::new(&work.view(0), &work.view(64), &work.view(136), &work.view(200));
        assert_fails("repeatTimes = 2 needs the 4 lists stored contiguously, but src3 starts at 0x220 and src2 ends at 0x200", || {
            mrg_sort(&dst, &gap, &p([32; 4], false, 15, 2))
        });
        let short1 =
            MrgSortSrcList::new(&work.view_len(0, 64), &work.view(64), &work.view(128), &work.view(192));
        assert_fails("src1 holds 64 elements but repeatTimes = 2 reads the 2 groups of 4 contiguous lists from it: 2048 bytes, that is 512", || {
            mrg_sort(&dst, &short1, &p([32; 4], false, 15, 2))
        });
        assert_fails("src2 holds 0 elements but elementLengths[1] = 32 regions of 8 bytes need 64", || {
            let l =
                MrgSortSrcList::new(&work.view(0), &work.view_len(64, 0), &work.view(128), &work.view(192));
            mrg_sort(&dst, &l, &p([32; 4], false, 15, 1))
        });
        assert_fails("src3 holds 0 elements but elementLengths[2] = 1 regions of 8 bytes need 2", || {
            // A default list's tensors are empty.
            let l = MrgSortSrcList::<f32> { src1: work.view(0), src2: work.view(2), ..Default::default() };
            mrg_sort(&dst, &l, &p([1, 1, 1, 0], false, 7, 1))
        });
        assert_fails(
            "dst holds 64 elements but the merge writes 128 regions of 8 bytes, that is 256",
            || mrg_sort(&dst.view_len(0, 64), &list, &p([32; 4], false, 15, 1)),
        );
        assert_fails("MrgSort: dst (bytes 0x100..0x300) overlaps src3 (bytes 0x200..0x300)", || {
            mrg_sort(&work.view(64), &list, &p([32, 0, 32, 0], false, 7, 1))
        });
        assert_fails("dst address = 0x1008 is not 32-byte aligned", || {
            mrg_sort(&dst.view(2), &list, &p([32; 4], false, 15, 1))
        });
        assert_fails("src2 address = 0x104 is not 8-byte aligned", || {
            let l = MrgSortSrcList::new(&work.view(0), &work.view(65), &work.view(128), &work.view(192));
            mrg_sort(&dst, &l, &p([32; 4], false, 15, 1))
        });
        // Lists beyond validBit are neither checked nor read; 8-byte aligned lists are fine.
        let l = MrgSortSrcList::new(&work.view(2), &work.view(66), &work.view(1), &work.view(1));
        mrg_sort(&dst, &l, &p([31, 31, 4095, 4095], false, 3, 1));
        // repeatTimes = 0: nothing happens.
        mrg_sort(&dst.view_len(0, 0), &list, &p([32; 4], false, 15, 0));
        // Empty lists: nothing is written, every count is 0.
        let empty = MrgSortSrcList::new(&work, &work, &work, &work);
        mrg_sort(&dst.view_len(0, 0), &empty, &p([0; 4], false, 15, 3));
        assert_eq!(get_mrg_sort_result(), (0, 0, 0, 0));
    });
}

#[test]
fn mrg_sort4_checks() {
    on(Soc::Ascend910, || {
        let u = ub(4096);
        let a = u.t::<f32>(0, 512);
        let list = MrgSortSrcList::new(&a, &a, &a, &a);
        assert_fails("T = float is not supported by MrgSort4 on Ascend910 (Atlas training series)", || {
            mrg_sort4(&a, &list, &MrgSort4Info::new([1; 4], false, 15, 1))
        });
        assert_fails("GetMrgSortResult is not supported on Ascend910 (Atlas training series)", || {
            let _ = get_mrg_sort_result();
        });
    });
    on(Soc::Ascend910B, || {
        let u = ub(1024);
        let a = u.t::<f16>(0, 256);
        let list = MrgSortSrcList::new(&a, &a, &a, &a);
        assert_fails("T = half is not supported by MrgSort4 on Ascend910B", || {
            mrg_sort4(&a, &list, &MrgSort4Info::new([1; 4], false, 15, 1))
        });
    });
    on(Soc::Ascend310P, || {
        let u = ub(8192);
        let work = u.t::<f16>(0, 1024);
        let dst = u.t::<f16>(2048, 1024);
        let list = MrgSortSrcList::new(&work.view(0), &work.view(128), &work.view(256), &work.view(384));
        assert_fails("MrgSort4: repeatTimes = 0 is out of range [1, 255]", || {
            mrg_sort4(&dst, &list, &MrgSort4Info::new([16; 4], false, 15, 0))
        });
        assert_fails("validBit = 1 is not 3, 7 or 15", || {
            mrg_sort4(&dst, &list, &MrgSort4Info::new([16; 4], false, 1, 1))
        });
        assert_fails("src2 address = 0x108 is not 16-byte aligned", || {
            let l = MrgSortSrcList::new(&work.view(0), &work.view(132), &work.view(256), &work.view(384));
            mrg_sort4(&dst, &l, &MrgSort4Info::new([16; 4], false, 15, 1))
        });
        assert_fails("dst address = 0x808 is not 16-byte aligned", || {
            mrg_sort4(&dst.view(4), &list, &MrgSort4Info::new([16; 4], false, 15, 1))
        });
    });
}

#[test]
fn mrg_sort4_alignment_of_float_proposals() {
    on(Soc::Ascend310P, || {
        let u = ub(8192);
        let work = u.t::<f32>(0, 1024);
        let dst = u.t::<f32>(4096, 1024);
        let l = MrgSortSrcList::new(&work.view(0), &work.view(4), &work.view(256), &work.view(384));
        assert_fails("src2 address = 0x10 is not 32-byte aligned", || {
            mrg_sort4(&dst, &l, &MrgSort4Info::new([0, 16, 0, 0], false, 3, 1))
        });
        assert_fails("src1 holds 8 elements but elementLengths[0] = 2 proposals of 32 bytes need 16", || {
            let l = MrgSortSrcList::new(&work.view_len(0, 8), &work.view(256), &work, &work);
            mrg_sort4(&dst, &l, &MrgSort4Info::new([2, 1, 0, 0], false, 3, 1))
        });
    });
}

#[test]
fn rp_sort16_checks() {
    on(Soc::Ascend910B, || {
        let u = ub(1024);
        let a = u.t::<f16>(0, 256);
        assert_fails("T = half is not supported by RpSort16 on Ascend910B", || rp_sort16(&a, &a, 1));
    });
    on(Soc::Ascend310P, || {
        let u = ub(4096);
        let (a, b) = (u.t::<f32>(0, 256), u.t::<f32>(1024, 256));
        assert_fails("RpSort16: repeatTime = 300 is out of range [0, 255]", || rp_sort16(&b, &a, 300));
        assert_fails("src holds 256 elements but repeatTime = 3 reads 384", || rp_sort16(&b, &a, 3));
        assert_fails("dst holds 127 elements but repeatTime = 1 writes 128", || {
            rp_sort16(&b.view_len(0, 127), &a, 1)
        });
        assert_fails("RpSort16: dst (bytes 0x20..0x220) overlaps src (bytes 0x0..0x200)", || {
            rp_sort16(&a.view(8), &a, 1)
        });
        assert_fails("dst address = 0x410 is not 32-byte aligned", || rp_sort16(&b.view(4), &a, 1));
        rp_sort16(&a, &a, 2); // in place
        rp_sort16(&b, &a, 0);
    });
}

#[test]
fn proposal_field_checks() {
    on(Soc::Ascend310B, || {
        let u = ub(1024);
        let a = u.t::<f32>(0, 128);
        assert_fails("T = float is not supported by ProposalConcat on Ascend310B", || {
            proposal_concat(&a, &a, 1, 4)
        });
        assert_fails("T = float is not supported by ProposalExtract on Ascend310B", || {
            proposal_extract(&a, &a, 1, 4)
        });
    });
    on(Soc::Ascend910, || {
        let u = ub(1024);
        let a = u.t::<f32>(0, 128);
        assert_fails("T = float is not supported by ProposalConcat on Ascend910", || {
            proposal_concat(&a, &a, 1, 4)
        });
    });
    on(Soc::Ascend310P, || {
        let u = ub(8192);
        let (v, rp) = (u.t::<f16>(0, 32), u.t::<f16>(64, 256));
        assert_fails("ProposalConcat: modeNumber = 6 is out of range [0, 5] (0 x1, 1 y1, 2 x2, 3 y2, 4 score, 5 label)", || {
            proposal_concat(&rp, &v, 1, 6)
        });
        assert_fails("ProposalExtract: modeNumber = -1 is out of range [0, 5]", || {
            proposal_extract(&v, &rp, 1, -1)
        });
        assert_fails("ProposalConcat: repeatTime = 256 is out of range [0, 255]", || {
            proposal_concat(&rp, &v, 256, 0)
        });
        assert_fails("ProposalConcat: src holds 32 elements but repeatTime = 3 reads 48", || {
            proposal_concat(&u.t::<f16>(1024, 512), &v, 3, 0)
        });
        assert_fails(
            "ProposalConcat: dst holds 256 elements but repeatTime = 3 writes into 48 proposals, that is 384",
            || proposal_concat(&rp, &u.t::<f16>(1024, 48), 3, 0),
        );
        assert_fails(
            "ProposalExtract: src holds 256 elements but repeatTime = 3 reads 48 proposals, that is 384",
            || proposal_extract(&u.t::<f16>(1024, 48), &rp, 3, 0),
        );
        assert_fails("ProposalExtract: dst holds 32 elements but repeatTime = 3 writes 48", || {
            proposal_extract(&v, &u.t::<f16>(1024, 384), 3, 0)
        });
        assert_fails("ProposalConcat: dst (bytes 0x0..0x200) overlaps src (bytes 0x40..0x80)", || {
            proposal_concat(&u.t::<f16>(0, 256), &rp.view_len(0, 32), 2, 0)
        });
        assert_fails("ProposalExtract: dst (bytes 0x40..0x80) overlaps src (bytes 0x40..0x240)", || {
            proposal_extract(&rp.view_len(0, 32), &rp, 2, 0)
        });
        assert_fails("ProposalConcat: src address = 0x10 is not 32-byte aligned", || {
            proposal_concat(&rp, &v.view(8), 1, 0)
        });
        proposal_concat(&rp, &v, 0, 5);
        proposal_extract(&v, &rp, 0, 5);
    });
}
