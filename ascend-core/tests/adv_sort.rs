//! The advanced API's sorting (`adv/sort.rs`): `TopK` against a scalar reference that restates
//! the vendor's steps — the score of each element (negated by `Muls(-1)` for the smallest `k`,
//! an exact sign flip), a stable sort by score, largest first (`Sort32` and `MrgSort` are
//! stable, `-0 == +0`), the first `k` scores and their indices (given or `0..inner`), the
//! finished rows' indices set to `n`, and for the smallest `k` the sign flip over the
//! destination's first `maskOffset` elements (the padding of each row included) — for both
//! types, both modes, every `isInitIndex`/`isHasfinish`/`isLargest`, both forms, shapes that
//! take every merge path (no four-way merge, four-way merges of several sizes with a two-way
//! tail, `inner` 4096), several rows, bit for bit, the padding of the outputs kept. Then the
//! host helpers' numbers and every error.

use ascend_core::prelude::*;
use ascend_core::sanitizer::LaunchSanitizer;

use crate::common::util;
use util::{assert_bits_ctx, expect_panic, on, ub, Rng};

/// The element types, with what the reference needs.
trait Fp: TopKElement + std::fmt::Debug {
    fn to32(self) -> f32;
    fn from32(x: f32) -> Self;
    /// `x * -1`: the sign flipped.
    fn flip(self) -> Self;
}

impl Fp for f32 {
    fn to32(self) -> f32 {
        self
    }
    fn from32(x: f32) -> f32 {
        x
    }
    fn flip(self) -> f32 {
        -self
    }
}

impl Fp for f16 {
    fn to32(self) -> f32 {
        self.to_f32()
    }
    fn from32(x: f32) -> f16 {
        f16::from_f32(x)
    }
    fn flip(self) -> f16 {
        -self
    }
}

/// One `TopK` call.
#[derive(Clone, Copy, Debug)]
struct Case {
    mode: TopKMode,
    outter: usize,
    inner: usize,
    n: usize,
    k: usize,
    init: bool,
    finish: bool,
    largest: bool,
    stack: bool,
}

/// The reference: `dst_value` and `dst_index` after the call, from their contents before it.
fn reference<T: Fp>(
    c: &Case,
    t: &TopkTiling,
    src: &[T],
    src_index: &[i32],
    finish: &[u8],
    old_value: &[T],
    old_index: &[i32],
) -> (Vec<T>, Vec<i32>) {
    let (mut val, mut idx) = (old_value.to_vec(), old_index.to_vec());
    let small = c.mode == TopKMode::TopkNsmall;
    for j in 0..c.outter {
        let row = &src[j * c.inner..(j + 1) * c.inner];
        let score = |i: usize| if c.largest { row[i] } else { row[i].flip() };
        let mut order: Vec<usize> = (0..c.inner).collect();
        // Stable: equal scores keep their order.
        order.sort_by(|&a, &b| score(b).to32().partial_cmp(&score(a).to32()).unwrap());
        let (v_at, i_at) = if small {
            (j * c.k, j * c.k)
        } else {
            let kv = if T::SIZE == 4 { t.k_align_four_bytes } else { t.k_align_two_bytes } as usize;
            (j * kv, j * t.k_align_four_bytes as usize)
        };
        for (r, &i) in order[..c.k].iter().enumerate() {
            val[v_at + r] = score(i);
            idx[i_at + r] = match (c.init, small) {
                (false, _) => i as i32,
                (true, false) => src_index[i],
                (true, true) => src_index[j * c.inner + i],
            };
            if c.finish && finish[j] != 0 {
                idx[i_at + r] = c.n as i32;
            }
        }
    }
    if !c.largest {
        for v in &mut val[..t.mask_offset as usize] {
            *v = v.flip();
        }
    }
    (val, idx)
}

/// Runs `TopK` with the const flags of `c`.
#[allow(clippy::too_many_arguments)]
fn call<T: Fp>(
    c: &Case,
    dv: &LocalTensor<T>,
    di: &LocalTensor<i32>,
    src: &LocalTensor<T>,
    si: &LocalTensor<i32>,
    fin: &LocalTensor<u8>,
    tmp: &LocalTensor<u8>,
    t: &TopkTiling,
) {
    let info = TopKInfo::new(c.outter as i32, c.inner as i32, c.n as i32);
    let k = c.k as i32;
    macro_rules! go {
        ($i:literal, $f:literal) => {
            if c.stack {
                top_k_stack::<T, $i, $f, false>(dv, di, src, si, fin, k, t, &info, c.largest, c.mode)
            } else {
                top_k::<T, $i, $f, false>(dv, di, src, si, fin, tmp, k, t, &info, c.largest, c.mode)
            }
        };
    }
    match (c.init, c.finish) {
        (false, false) => go!(false, false),
        (false, true) => go!(false, true),
        (true, false) => go!(true, false),
        (true, true) => go!(true, true),
    }
}

/// Scores with many ties (steps of 0.5 in [-16, 16), signed zeros included).
fn scores<T: Fp>(rng: &mut Rng, n: usize) -> Vec<T> {
    (0..n)
        .map(|_| match rng.below(20) {
            0 => T::from32(-0.0),
            _ => T::from32(rng.below(64) as f32 * 0.5 - 16.0),
        })
        .collect()
}

/// Runs case `c` under the sanitizer on Ascend910B and checks it against the reference.
fn check_case<T: Fp>(c: Case, seed: u64) {
    let mut rng = Rng(seed);
    let size = T::SIZE as u32;
    let (inner, outter) = (c.inner as i32, c.outter as i32);
    let t = top_k_tiling_func(Soc::Ascend910B, inner, outter, c.k as i32, size, c.init, c.mode, c.largest);
    let (tmp_bytes, min) =
        get_top_k_max_min_tmp_size(Soc::Ascend910B, inner, outter, false, c.init, c.mode, c.largest, size);
    assert_eq!(tmp_bytes, min);
    // The host size counts the negated source of small mode in 4-byte elements for `half` too
    // (`inner * outter * TOPK_FLOAT_SIZE`), where the tiling lays out 2-byte ones: 64 bytes
    // per row to spare.
    let spare = if c.mode == TopKMode::TopkNsmall && !c.largest && T::SIZE == 2 { 64 * c.outter } else { 0 };
    assert_eq!(tmp_bytes as usize, t.tmp_local_size as usize * T::SIZE + spare, "{c:?}");
    let all = c.inner * c.outter;
    let (nv, ni) = if c.mode == TopKMode::TopkNsmall {
        (c.k * c.outter, c.k * c.outter)
    } else {
        let kv = if T::SIZE == 4 { t.k_align_four_bytes } else { t.k_align_two_bytes } as usize;
        (kv * c.outter, t.k_align_four_bytes as usize * c.outter)
    };
    let src: Vec<T> = scores(&mut rng, all);
    let si: Vec<i32> = (0..all).map(|_| rng.below(1 << 20) as i32 - (1 << 19)).collect();
    let fin: Vec<u8> =
        (0..c.outter.max(32)).map(|_| if rng.chance(2) { 1 + rng.below(255) as u8 } else { 0 }).collect();
    let old_v: Vec<T> = (0..nv).map(|i| T::from32(1000.0 + i as f32)).collect();
    let old_i: Vec<i32> = (0..ni).map(|i| -7 - i as i32).collect();
    let (want_v, want_i) = reference(&c, &t, &src, &si, &fin, &old_v, &old_i);
    let rup = |b: usize| b.div_ceil(256) * 256;
    LaunchSanitizer::new().run_core(|| {
        // The scratch first: Sort32's destination at its start needs 256-byte alignment.
        let tmp_len = if c.stack { 0 } else { rup(tmp_bytes as usize) };
        let offs =
            [tmp_len, rup(all * T::SIZE), rup(all * 4), rup(fin.len()), rup(nv * T::SIZE), rup(ni * 4)];
        let at = |i: usize| offs[..i].iter().sum::<usize>();
        let u = ub(at(6));
        let tmp = u.t::<u8>(0, tmp_len);
        tmp.copy_from_slice(&vec![util::SENTINEL; tmp_len]);
        let (s, sidx) = (u.t::<T>(at(1), all), u.t::<i32>(at(2), all));
        let (f, dv, di) = (u.t::<u8>(at(3), fin.len()), u.t::<T>(at(4), nv), u.t::<i32>(at(5), ni));
        s.copy_from_slice(&src);
        sidx.copy_from_slice(&si);
        f.copy_from_slice(&fin);
        dv.copy_from_slice(&old_v);
        di.copy_from_slice(&old_i);
        call(&c, &dv, &di, &s, &sidx, &f, &tmp, &t);
        assert_bits_ctx(&dv.to_vec(), &want_v, format!("values, {c:?}"));
        assert_eq!(di.to_vec(), want_i, "indices, {c:?}");
    });
}

fn normal(outter: usize, inner: usize, n: usize, k: usize) -> Case {
    let mode = TopKMode::TopkNormal;
    Case { mode, outter, inner, n, k, init: false, finish: false, largest: true, stack: false }
}

/// Every flag combination of `base` (small mode: without `isHasfinish`).
fn flag_cases(base: Case) -> Vec<Case> {
    let mut v = Vec::new();
    for bits in 0..16u32 {
        let finish = bits & 2 != 0;
        if finish && base.mode == TopKMode::TopkNsmall {
            continue;
        }
        v.push(Case { init: bits & 1 != 0, finish, largest: bits & 4 != 0, stack: bits & 8 != 0, ..base });
    }
    v
}

/// The shapes of normal mode: no four-way merge (32, 96), four-way merges of 32 with a
/// two-way tail (160), of 32 and 128 (512 + 128 + 32 = 672), `k` below and above one list,
/// `k` = `n`, several rows.
const NORMAL_SHAPES: [(usize, usize, usize, usize); 8] = [
    (1, 32, 32, 1),
    (2, 32, 20, 20),
    (3, 96, 90, 7),
    (2, 128, 128, 33),
    (1, 160, 150, 40),
    (2, 672, 670, 100),
    (1, 512, 500, 17),
    (1, 4096, 4096, 300),
];

fn run_normal<T: Fp>(seed: u64) {
    for (s, &(o, i, n, k)) in NORMAL_SHAPES.iter().enumerate() {
        for (f, c) in flag_cases(normal(o, i, n, k)).into_iter().enumerate() {
            if i == 4096 && f % 4 != 0 {
                continue; // the longest rows with a subset of the flags
            }
            check_case::<T>(c, seed + (s * 100 + f) as u64);
        }
    }
}

#[test]
fn top_k_normal_float() {
    run_normal::<f32>(1);
}

#[test]
fn top_k_normal_half() {
    run_normal::<f16>(2);
}

fn run_small<T: Fp>(seed: u64) {
    for (s, &(outter, k)) in [(1, 1), (2, 4), (3, 5), (1, 16), (5, 17), (2, 32), (4, 31)].iter().enumerate() {
        let base = Case { mode: TopKMode::TopkNsmall, ..normal(outter, 32, 32, k) };
        for (f, c) in flag_cases(base).into_iter().enumerate() {
            check_case::<T>(c, seed + (s * 100 + f) as u64);
        }
    }
}

#[test]
fn top_k_small_float() {
    run_small::<f32>(3);
}

#[test]
fn top_k_small_half() {
    run_small::<f16>(4);
}

#[test]
fn top_k_small_n_below_inner() {
    // n < inner: every inner element still takes part (the caller pads).
    let c = Case { mode: TopKMode::TopkNsmall, ..normal(2, 32, 20, 6) };
    check_case::<f32>(c, 9);
}

// ---- host helpers --------------------------------------------------------------------------

#[test]
fn host_tmp_sizes() {
    use TopKMode::{TopkNormal as N, TopkNsmall as S};
    let b = Soc::Ascend910B;
    let f = |soc, inner, outter, init, mode, largest, size| {
        get_top_k_max_min_tmp_size(soc, inner, outter, false, init, mode, largest, size).0
    };
    assert_eq!(f(b, 64, 3, true, N, true, 4), 1024);
    assert_eq!(f(b, 64, 3, false, N, false, 2), 1280);
    assert_eq!(f(b, 32, 3, true, S, true, 2), 3 * 256 + 64);
    assert_eq!(f(b, 32, 3, true, S, false, 2), 3 * 256 + 3 * 128 + 64);
    assert_eq!(f(b, 32, 3, false, S, true, 4), 3 * 256 + 64 + 3 * 128);
    let p = Soc::Ascend310P;
    assert_eq!(f(p, 64, 3, false, N, true, 2), 64 * 8 * 2 * 2 + 256);
    assert_eq!(f(p, 32, 3, false, S, true, 4), 32 * 3 * 8 * 4 * 2);
}

#[test]
fn host_tiling_numbers() {
    use TopKMode::{TopkNormal as N, TopkNsmall as S};
    let b = Soc::Ascend910B;
    let t = top_k_tiling_func(b, 128, 2, 9, 2, false, N, true);
    assert_eq!((t.tmp_local_size, t.inner_data_size, t.src_index_offset), (1280, 512, 1024));
    assert_eq!((t.k_align_two_bytes, t.k_align_four_bytes, t.mask_offset), (16, 16, 32));
    assert_eq!((t.mrg_sort_src1offset, t.mrg_sort_src3offset, t.mrg_sort_two_queue_src1_offset), (4, 12, 4));
    assert_eq!((t.copy_ub_to_ub_block_count, t.sort_repeat, t.mrg_sort_repeat), (32, 4, 32));
    assert_eq!((t.mask_vreducev2_four_bytes, t.mask_vreducev2_two_bytes), (18, 36));
    // Small mode's patterns: float k = 17 (16 scores in word 0, 1 in word 1), half k = 6.
    let t = top_k_tiling_func(b, 32, 2, 17, 4, false, S, false);
    assert_eq!((t.vreduce_val_mask0, t.vreduce_val_mask1), (0x5555_5555, 1));
    assert_eq!((t.vreduce_idx_mask0, t.vreduce_idx_mask1), (0xAAAA_AAAA, 2));
    assert_eq!(
        (t.topk_mrg_src1_mask_size_offset, t.topk_n_small_src_index_offset, t.tmp_local_size),
        (192, 208, 272)
    );
    let t = top_k_tiling_func(b, 32, 1, 6, 2, true, S, true);
    assert_eq!(
        (t.vreducehalf_val_mask0, t.vreducehalf_val_mask1, t.vreducehalf_val_mask2),
        (0x1111, 0x11, 0)
    );
    let t = top_k_tiling_func(b, 32, 1, 32, 2, true, S, true);
    assert!([t.vreducehalf_val_mask0, t.vreducehalf_val_mask7].iter().all(|&w| w == 0x1111));
    let t = top_k_tiling_func(Soc::Ascend310P, 32, 2, 20, 2, false, S, true);
    assert_eq!((t.vreduce_val_mask0, t.vreduce_val_mask1, t.vreduce_idx_mask0), (0xFFFF, 0xF, 0xF_FFFF));
    assert_eq!((t.src_index_offset, t.topk_n_small_src_index_offset, t.sort_repeat), (640, 576, 4));
}

#[test]
fn host_errors() {
    use TopKMode::{TopkNormal as N, TopkNsmall as S};
    let b = Soc::Ascend910B;
    let g = |soc, inner, outter, init, mode, size| {
        get_top_k_max_min_tmp_size(soc, inner, outter, false, init, mode, true, size);
    };
    expect_panic(|| g(Soc::Ascend310B, 32, 1, true, N, 4), &["GetTopKMaxMinTmpSize", "Ascend310B"]);
    expect_panic(|| g(b, 0, 1, true, N, 4), &["inner = 0", "greater than 0"]);
    expect_panic(|| g(b, 48, 1, true, N, 4), &["inner = 48", "multiple of 32"]);
    expect_panic(|| g(b, 64, 1, true, S, 4), &["inner = 64", "small mode", "must be 32"]);
    expect_panic(|| g(Soc::Ascend310P, 4096, 1, false, N, 2), &["inner = 4096", "at most 2048"]);
    expect_panic(|| g(b, 32, 0, true, N, 4), &["outter = 0"]);
    expect_panic(|| g(b, 32, 1, true, N, 8), &["dataTypeSize = 8"]);
    expect_panic(|| g(b, 32 * 1024, 2, true, N, 4), &["262144 bytes", "Unified Buffer"]);
    expect_panic(
        || _ = top_k_tiling_func(b, 32, 1, 33, 4, true, N, true),
        &["TopKTilingFunc", "k = 33", "[1, inner = 32]"],
    );
}

// ---- kernel errors -------------------------------------------------------------------------

/// Runs `TopK` on float with `info`, `k`, the flags and tensor sizes given, to fail.
#[allow(clippy::too_many_arguments)]
fn bad(soc: Soc, c: Case, info: TopKInfo, sizes: [usize; 5], tmp_bytes: usize, needles: &[&str]) {
    on(soc, || {
        let t = top_k_tiling_func(Soc::Ascend910B, 32, 1, 1, 4, c.init, c.mode, c.largest);
        let u = ub(16384);
        let tmp = u.t::<u8>(0, tmp_bytes);
        let (s, si, f) = (u.t::<f32>(4096, sizes[0]), u.t::<i32>(6144, sizes[1]), u.t::<u8>(8192, sizes[2]));
        let (dv, di) = (u.t::<f32>(10240, sizes[3]), u.t::<i32>(12288, sizes[4]));
        let k = c.k as i32;
        expect_panic(
            || match (c.init, c.finish) {
                (false, false) => {
                    top_k::<f32, false, false, false>(&dv, &di, &s, &si, &f, &tmp, k, &t, &info, true, c.mode)
                }
                (true, false) => {
                    top_k::<f32, true, false, false>(&dv, &di, &s, &si, &f, &tmp, k, &t, &info, true, c.mode)
                }
                _ => {
                    top_k::<f32, false, true, false>(&dv, &di, &s, &si, &f, &tmp, k, &t, &info, true, c.mode)
                }
            },
            needles,
        );
    });
}

#[test]
fn kernel_errors() {
    let ok = [64, 64, 32, 16, 16];
    let c = normal(1, 32, 32, 1);
    let info = TopKInfo::new(1, 32, 32);
    let b = Soc::Ascend910B;
    bad(Soc::Ascend310P, c, info, ok, 1024, &["TopK", "Ascend310P"]);
    bad(b, c, TopKInfo::new(0, 32, 32), ok, 1024, &["topKInfo.outter = 0"]);
    bad(b, Case { k: 0, ..c }, info, ok, 1024, &["k = 0", "[1, topKInfo.n = 32]"]);
    bad(b, Case { k: 5, ..c }, TopKInfo::new(1, 32, 4), ok, 1024, &["k = 5", "[1, topKInfo.n = 4]"]);
    bad(b, c, TopKInfo::new(1, 32, 33), ok, 1024, &["topKInfo.n = 33", "topKInfo.inner = 32"]);
    bad(b, c, TopKInfo::new(1, 40, 33), ok, 1024, &["topKInfo.inner = 40", "multiple of 32"]);
    bad(b, c, TopKInfo::new(1, 4128, 33), ok, 1024, &["topKInfo.inner = 4128", "at most 4096"]);
    let s = Case { mode: TopKMode::TopkNsmall, ..c };
    bad(b, s, TopKInfo::new(1, 64, 33), ok, 1024, &["topKInfo.inner = 64", "must be 32", "TOPK_NSMALL"]);
    bad(b, Case { finish: true, ..s }, info, ok, 1024, &["isHasfinish = true", "TOPK_NSMALL"]);
    bad(b, c, info, [31, 64, 32, 16, 16], 1024, &["srcLocal holds 31", "inner * outter = 32"]);
    bad(b, Case { init: true, ..c }, info, [64, 16, 32, 16, 16], 1024, &["srcIndexLocal holds 16", "= 32"]);
    bad(
        b,
        Case { finish: true, ..c },
        TopKInfo::new(2, 32, 32),
        [64, 64, 1, 16, 16],
        1024,
        &["finishLocal holds 1", "outter = 2"],
    );
    bad(b, c, info, [64, 64, 32, 7, 16], 1024, &["dstValueLocal holds 7", "= 8"]);
    bad(b, c, info, [64, 64, 32, 16, 7], 1024, &["dstIndexLocal holds 7", "= 8"]);
    bad(b, c, info, ok, 639, &["temporary buffer holds 639 bytes", "tmpLocalSize * sizeof(T) = 640"]);
    // Small mode writes k per row, packed.
    bad(
        b,
        Case { k: 3, ..s },
        TopKInfo::new(2, 32, 32),
        [64, 64, 32, 5, 16],
        2048,
        &["dstValueLocal holds 5", "= 6"],
    );
}

#[test]
fn stack_errors() {
    on(Soc::Ascend910B, || {
        let u = ub(get_soc().ub_size() - 64 - 256);
        let a = u.t::<f32>(0, 64);
        let t = top_k_tiling_func(Soc::Ascend910B, 32, 1, 1, 4, false, TopKMode::TopkNormal, true);
        let info = TopKInfo::new(1, 32, 32);
        expect_panic(
            || {
                top_k_stack::<f32, false, false, false>(
                    &a,
                    &a.reinterpret_cast(),
                    &a,
                    &a.reinterpret_cast(),
                    &a.reinterpret_cast(),
                    1,
                    &t,
                    &info,
                    true,
                    TopKMode::TopkNormal,
                )
            },
            &["stack buffer is insufficient", "tmpLocalSize = 160", "only 64"],
        );
    });
}
