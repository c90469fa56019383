//! The advanced API's pattern reductions (`adv/reduce_xy.rs`): `ReduceMax`, `ReduceMin`,
//! `float` `ReduceAny`/`ReduceAll`, `ReduceSum`/`ReduceMean` (see [`ref_sum`]: the sums in the
//! vendor's order, each instruction's tree and `f32` rounding) and `ReduceProd` ([`ref_prod`])
//! against a scalar reference
//! of the vendor's steps. The
//! vendor's steps are `Max`/`Min` folds (of blocks, repeats or rows) and `BlockReduce*`/
//! `WholeReduce*` of the partial results: every one of them picks one of its inputs exactly, so
//! for values without NaN and without zeros of both signs any order of the folds gives the
//! same bits, and the reference is the row's (`AR`) or column's (`RA`) maximum or minimum.
//! Covered: both types, both patterns, both `IS_REUSE_SOURCE`s, both forms (the host's
//! scratch size exactly, and the stack), shapes that take every path (rows below, at and
//! above a block, below and at a repeat with and without a partial block or repeat, 255-row
//! chunks with a tail, rows past 255 blocks; `RA` with powers of two and not, one row), the
//! untouched `dst` past the result, `src` kept without reuse, the mask state afterwards, then
//! the host numbers and every error.

use ascend_core::prelude::*;

use crate::common::util;
use util::{assert_bits_ctx, expect_panic, on, tree, ub, Rng};

/// The element types, with the shared `f32` round trip ([`util::Fp`]).
trait Fp: util::Fp + ReduceMaxMinElement {}
impl<T: util::Fp + ReduceMaxMinElement> Fp for T {}

type Kernel<T> = fn(&LocalTensor<T>, &LocalTensor<T>, &LocalTensor<u8>, &[u32; 2], bool);
type Stack<T> = fn(&LocalTensor<T>, &LocalTensor<T>, &[u32; 2], bool);
type Host = fn(&[usize], DType, ReducePattern, bool, bool) -> (usize, usize);

/// The reference of a function: `dst`'s first `first` (`AR`) or `last` (`RA`) elements from
/// the padded source, [`DST_FILL`] where the call leaves `dst` as it was.
type Reference<T> = fn(&[T], (usize, usize, usize), bool) -> Vec<T>;

/// One function under test: its kernel and stack forms for a pattern and reuse, its host
/// helper and its reference.
struct Api<T: Element> {
    kernel: Kernel<T>,
    stack: Stack<T>,
    host: Host,
    reference: Reference<T>,
    /// Values near 1 (`±[0.75, 1.25)`, for products), not [`rand_vals`]'s.
    near_one: bool,
}

/// The value `dst` is filled with before a call, to tell the elements written.
const DST_FILL: f32 = 12345.0;

/// Random values of `T`, none zero (`±[1/64, 100)`), or `0`/`1` with `bools`.
fn rand_vals<T: Fp>(rng: &mut Rng, n: usize, bools: bool) -> Vec<T> {
    (0..n)
        .map(|_| {
            if bools {
                return T::from32(if rng.chance(4) { 1.0 } else { 0.0 });
            }
            let m = 1.0 / 64.0 + 99.0 * (rng.below(1 << 20) as f32 / (1 << 20) as f32);
            T::from32(if rng.chance(2) { -m } else { m })
        })
        .collect()
}

fn ref_max<T: Fp>(x: &[T], shape: (usize, usize, usize), ar: bool) -> Vec<T> {
    extreme(x, shape, ar, true)
}

fn ref_min<T: Fp>(x: &[T], shape: (usize, usize, usize), ar: bool) -> Vec<T> {
    extreme(x, shape, ar, false)
}

/// Each row's (`AR`) or column's (`RA`) maximum or minimum of the `first` rows of `last`
/// elements, `pad` apart.
fn extreme<T: Fp>(x: &[T], (first, last, pad): (usize, usize, usize), ar: bool, max: bool) -> Vec<T> {
    let pick = |a: T, b: T| if (b.to32() > a.to32()) == max { b } else { a };
    if ar {
        (0..first)
            .map(|i| x[i * pad + 1..i * pad + last].iter().fold(x[i * pad], |a, &b| pick(a, b)))
            .collect()
    } else {
        (0..last).map(|j| (1..first).fold(x[j], |a, i| pick(a, x[i * pad + j]))).collect()
    }
}

/// One call on Ascend910B with the host's scratch (`stack = false`) or the stack, compared
/// bit for bit with the reference; `false` when it does not fit the Unified Buffer.
fn run_case<T: Fp, const AR: bool, const REUSE: bool>(
    api: &Api<T>,
    (first, last): (usize, usize),
    stack: bool,
    bools: bool,
    seed: u64,
) -> bool {
    on(Soc::Ascend910B, || {
        let pad = last.div_ceil(32 / T::SIZE) * (32 / T::SIZE);
        let out = if AR { first } else { last };
        let pattern = if AR { ReducePattern::AR } else { ReducePattern::RA };
        let (max_b, min_b) = (api.host)(&[first, last], T::DTYPE, pattern, true, REUSE);
        assert_eq!(max_b, min_b);
        let src_b = (first * pad * T::SIZE).div_ceil(32) * 32;
        let dst_len = out + 32 / T::SIZE;
        let dst_b = (dst_len * T::SIZE).div_ceil(32) * 32;
        let tmp_b = if stack { 0 } else { min_b };
        if src_b + dst_b + tmp_b.max(32) + if stack { min_b } else { 0 } + 64 > Soc::Ascend910B.ub_size() {
            return false;
        }
        let u = ub(src_b + dst_b + tmp_b.max(32));
        let (src, dst, tmp) =
            (u.t::<T>(0, first * pad), u.t::<T>(src_b, dst_len), u.t::<u8>(src_b + dst_b, tmp_b));
        let mut rng = Rng(seed);
        let x: Vec<T> = if api.near_one {
            (0..first * pad)
                .map(|_| {
                    let m = 0.75 + 0.5 * (rng.below(1 << 20) as f32 / (1 << 20) as f32);
                    T::from32(if rng.chance(2) { -m } else { m })
                })
                .collect()
        } else {
            rand_vals(&mut rng, first * pad, bools)
        };
        src.copy_from_slice(&x);
        dst.copy_from_slice(&vec![T::from32(DST_FILL); dst_len]);
        let shape = [first as u32, last as u32];
        if stack {
            (api.stack)(&dst, &src, &shape, true);
        } else {
            (api.kernel)(&dst, &src, &tmp, &shape, true);
        }
        let ctx =
            format!("{} AR {AR} reuse {REUSE} stack {stack} bools {bools}, [{first}, {last}]", T::DTYPE);
        let mut want = (api.reference)(&x, (first, last, pad), AR);
        want.extend(vec![T::from32(DST_FILL); dst_len - out]);
        assert_bits_ctx(&dst.to_vec(), &want, &ctx);
        if !REUSE {
            assert_bits_ctx(&src.to_vec(), &x, format!("src written; {ctx}"));
        }
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
        assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{ctx}");
        true
    })
}

/// `AR` shapes of a type with `e` elements a block: every path of `BlockReduceByLastAxis`.
/// For `half`, rows shorter than a block whose tail repeat or second 255-repeat chunk writes
/// its `BlockReduceMax` results at `dst[8 k]` for odd `k` (16 bytes from a 32-byte boundary,
/// which `ReduceDataBlock`'s page allows for half) are among them.
fn ar_shapes(e: usize) -> Vec<(usize, usize)> {
    let r = 8 * e;
    let short = if e == 8 {
        vec![(13, e - 2), (2045, 3), (2048, 2)]
    } else {
        vec![(17, e - 2), (33, 1), (13, e - 2), (2045, 3)]
    };
    let mut v = vec![(1, 1), (3, e - 1), (8, 3)];
    v.extend(short);
    v.extend([
        (5, e),
        (300, e),
        (3, e + 1),
        (7, 2 * e),
        (300, 3 * e + 5),
        (4, r),
        (3, r + 5),
        (2, 37 * e),
        (300, r + 3),
        (2, 255 * e),
        (3, 255 * e + 1),
        (2, 255 * e + r),
    ]);
    v
}

/// `RA` shapes: powers of two and not, one row, the vendor example's `[32, 136]`.
fn ra_shapes() -> Vec<(usize, usize)> {
    vec![
        (1, 1),
        (1, 20),
        (2, 5),
        (3, 8),
        (4, 67),
        (5, 136),
        (8, 1),
        (13, 300),
        (32, 136),
        (100, 33),
        (257, 40),
    ]
}

fn sweep<T: Fp>(api: impl Fn(bool, bool) -> Api<T>, bools: bool) -> usize {
    sweep_shapes(api, &ar_shapes(32 / T::SIZE), &ar_shapes(32 / T::SIZE), bools)
}

/// Every `AR` shape without reuse, `ar_reuse` with it, every `RA` shape both ways; both forms.
fn sweep_shapes<T: Fp>(
    api: impl Fn(bool, bool) -> Api<T>,
    ar: &[(usize, usize)],
    ar_reuse: &[(usize, usize)],
    bools: bool,
) -> usize {
    let mut n = 0;
    for (k, &s) in ar.iter().enumerate() {
        for stack in [false, true] {
            let seed = k as u64 * 7 + stack as u64;
            n += run_case::<T, true, false>(&api(true, false), s, stack, bools, seed) as usize;
            if ar_reuse.contains(&s) {
                n += run_case::<T, true, true>(&api(true, true), s, stack, bools, seed + 3) as usize;
            }
        }
    }
    for (k, &s) in ra_shapes().iter().enumerate() {
        for stack in [false, true] {
            let seed = 1000 + k as u64 * 7 + stack as u64;
            n += run_case::<T, false, false>(&api(false, false), s, stack, bools, seed) as usize;
            n += run_case::<T, false, true>(&api(false, true), s, stack, bools, seed + 3) as usize;
        }
    }
    n
}

macro_rules! api {
    ($k:ident, $s:ident, $h:ident, $r:ident) => {
        |ar: bool, reuse: bool| -> Api<_> {
            let (kernel, stack): (Kernel<_>, Stack<_>) = match (ar, reuse) {
                (true, false) => ($k::<_, pattern::AR, false>, $s::<_, pattern::AR, false>),
                (true, true) => ($k::<_, pattern::AR, true>, $s::<_, pattern::AR, true>),
                (false, false) => ($k::<_, pattern::RA, false>, $s::<_, pattern::RA, false>),
                (false, true) => ($k::<_, pattern::RA, true>, $s::<_, pattern::RA, true>),
            };
            Api { kernel, stack, host: $h, reference: $r, near_one: false }
        }
    };
}

#[test]
fn reduce_max_both_types_every_path() {
    let n = sweep::<f32>(
        api!(reduce_max_adv, reduce_max_adv_stack, get_reduce_max_max_min_tmp_size, ref_max),
        false,
    );
    let m = sweep::<f16>(
        api!(reduce_max_adv, reduce_max_adv_stack, get_reduce_max_max_min_tmp_size, ref_max),
        false,
    );
    assert!(n >= 110 && m >= 110, "{n} {m} cases ran");
}

#[test]
fn reduce_min_both_types_every_path() {
    let n = sweep::<f32>(
        api!(reduce_min_adv, reduce_min_adv_stack, get_reduce_min_max_min_tmp_size, ref_min),
        false,
    );
    let m = sweep::<f16>(
        api!(reduce_min_adv, reduce_min_adv_stack, get_reduce_min_max_min_tmp_size, ref_min),
        false,
    );
    assert!(n >= 110 && m >= 110, "{n} {m} cases ran");
}

#[test]
fn reduce_any_all_float() {
    for bools in [true, false] {
        let n =
            sweep::<f32>(api!(reduce_any, reduce_any_stack, get_reduce_any_max_min_tmp_size, ref_max), bools);
        let m =
            sweep::<f32>(api!(reduce_all, reduce_all_stack, get_reduce_all_max_min_tmp_size, ref_min), bools);
        assert!(n >= 110 && m >= 110, "{n} {m} cases ran");
    }
}

// ---- ReduceSum, ReduceMean -------------------------------------------------------------------

/// `BlockReduceSum`'s/`WholeReduceSum`'s binary tree over `width` lanes, the lanes past `v` `+0`.
fn tree_of(v: &[f32], width: usize) -> f32 {
    let mut lanes = vec![0.0f32; width];
    lanes[..v.len()].copy_from_slice(v);
    tree(lanes, false)
}

/// `ReduceSum`'s row split for rows of more than 64: `(perRow, tailLen)`.
fn sum_split(last: usize, pad: usize) -> (usize, usize) {
    let k = 1usize << last.ilog2();
    let per_row = if k == last { k / 2 } else { k.max(8) };
    let tail_len = if last == k { pad - per_row } else { last - k };
    (per_row, tail_len)
}

/// The vendor's `ReduceSum` steps. `AR`: rows of up to 8 by the 8-lane tree (rows 2040 up to
/// the last whole 2040-row chunk's end unwritten, the vendor's loop); up to 64 by the 64-lane
/// tree; longer, the tail added onto the first `perRow`, pairs added while more than 64 remain,
/// then the 8-lane tree of each block and of the 8 block sums. `RA`: the rows past the largest
/// power of two added onto the first ones, then halves, each an `f32` add.
fn ref_sum(x: &[f32], (first, last, pad): (usize, usize, usize), ar: bool) -> Vec<f32> {
    if !ar {
        let mut acc: Vec<Vec<f32>> = (0..first).map(|i| x[i * pad..i * pad + last].to_vec()).collect();
        let mut split = 1usize << first.ilog2();
        let fold = |acc: &mut Vec<Vec<f32>>, r: usize, from: usize| {
            let add = acc[from].clone();
            acc[r].iter_mut().zip(add).for_each(|(a, b)| *a += b);
        };
        for r in 0..first - split {
            fold(&mut acc, r, split + r);
        }
        while split > 1 {
            split /= 2;
            for r in 0..split {
                fold(&mut acc, r, r + split);
            }
        }
        return acc.swap_remove(0);
    }
    (0..first)
        .map(|i| {
            let row = &x[i * pad..i * pad + last];
            if last <= 8 {
                let (n_max, chunk) = (first / 2040, 2040);
                if n_max >= 2 && (chunk..n_max * chunk).contains(&i) {
                    return DST_FILL;
                }
                return tree_of(row, 8);
            }
            if last <= 64 {
                return tree_of(row, 64);
            }
            let (per_row, tail_len) = sum_split(last, pad);
            let mut acc = x[i * pad..i * pad + per_row].to_vec();
            for j in 0..tail_len {
                acc[j] += x[i * pad + per_row + j];
            }
            while acc.len() > 64 {
                acc = acc.chunks(2).map(|c| c[0] + c[1]).collect();
            }
            let blocks: Vec<f32> = acc.chunks(8).map(|b| tree_of(b, 8)).collect();
            tree_of(&blocks, 8)
        })
        .collect()
}

/// [`ref_sum`] times `1.0f / n` (`n` the reduced axis), one `f32` multiply of every kept
/// element (the `Muls` also scales the rows `ReduceSum` leaves unwritten).
fn ref_mean(x: &[f32], shape: (usize, usize, usize), ar: bool) -> Vec<f32> {
    let n = if ar { shape.1 } else { shape.0 };
    let r = 1.0f32 / n as i32 as f32;
    ref_sum(x, shape, ar).into_iter().map(|v| v * r).collect()
}

/// `[first, last]` shapes.
type Shapes = Vec<(usize, usize)>;

/// `AR` shapes of `ReduceSum`: every path (the 8-lane rows with the vendor's unwritten rows, the
/// 248-row `WholeReduceSum` chunks, the packed rows by rows and by columns, pair passes), and
/// those that also run with reuse (not more than 248 rows of more than 64: the vendor's chunk
/// offsets are then wrong; not rows of more than 2040 by columns: its `uint8_t` strides).
fn sum_shapes() -> (Shapes, Shapes) {
    let both = vec![
        (3, 1),
        (5, 8),
        (17, 7),
        (300, 9),
        (3, 64),
        (250, 50),
        (1, 65),
        (2, 100),
        (3, 128),
        (5, 200),
        (1, 200),
        (3, 1000),
        (1, 2100),
        (2, 2048),
    ];
    let mut ar = both.clone();
    ar.extend([(4100, 3), (250, 72)]);
    // With reuse, rows of more than 64 are packed in place (`DataCopy(src, src, …)`, `dst`
    // before `src`, which the hardware streams front to back).
    (ar, both.into_iter().filter(|s| s.1 <= 2040).collect())
}

#[test]
fn reduce_sum_and_mean_every_path() {
    let (ar, both) = sum_shapes();
    let n = sweep_shapes::<f32>(
        api!(reduce_sum_adv, reduce_sum_adv_stack, get_reduce_sum_max_min_tmp_size, ref_sum),
        &ar,
        &both,
        false,
    );
    let m = sweep_shapes::<f32>(
        api!(reduce_mean, reduce_mean_stack, get_reduce_mean_max_min_tmp_size, ref_mean),
        &ar,
        &both,
        false,
    );
    assert!(n >= 80 && m >= 80, "{n} {m} cases ran");
}

// ---- ReduceProd ------------------------------------------------------------------------------

/// The vendor's `ReduceProd` steps, each `Mul` in `f32`. `AR`: the row's part past the largest
/// power of two `k` multiplied onto the first (from 8 elements on), halves down to 8 values,
/// then those 8 (for rows shorter than 8, the row's own power-of-two split) folded by halves;
/// `RA`: [`ref_sum`]'s fold with `*`.
fn ref_prod(x: &[f32], (first, last, pad): (usize, usize, usize), ar: bool) -> Vec<f32> {
    let halve = |v: &mut Vec<f32>, to: usize| {
        while v.len() > to {
            let h = v.len() / 2;
            for i in 0..h {
                v[i] *= v[i + h];
            }
            v.truncate(h);
        }
    };
    if !ar {
        let mut acc: Vec<Vec<f32>> = (0..first).map(|i| x[i * pad..i * pad + last].to_vec()).collect();
        let split = 1usize << first.ilog2();
        for r in 0..first - split {
            let add = acc[split + r].clone();
            acc[r].iter_mut().zip(add).for_each(|(a, b)| *a *= b);
        }
        acc.truncate(split);
        while acc.len() > 1 {
            let h = acc.len() / 2;
            for r in 0..h {
                let add = acc[r + h].clone();
                acc[r].iter_mut().zip(add).for_each(|(a, b)| *a *= b);
            }
            acc.truncate(h);
        }
        return acc.swap_remove(0);
    }
    (0..first)
        .map(|i| {
            let row = &x[i * pad..i * pad + last];
            let k = 1usize << last.ilog2();
            let mut v = row[..k].to_vec();
            if last >= 8 {
                for j in 0..last - k {
                    v[j] *= row[k + j];
                }
                halve(&mut v, 8);
            } else {
                for j in 0..last - k {
                    v[j] *= row[k + j];
                }
            }
            halve(&mut v, 1);
            v[0]
        })
        .collect()
}

#[test]
fn reduce_prod_every_path() {
    let ar: Shapes = vec![
        (1, 1),
        (3, 3),
        (2, 5),
        (4, 7),
        (5, 8),
        (3, 12),
        (2, 16),
        (3, 100),
        (2, 128),
        (1, 128),
        (17, 300),
        (300, 9),
        (3, 2000),
    ];
    let api = |ar: bool, reuse: bool| Api::<f32> {
        near_one: true,
        ..api!(reduce_prod, reduce_prod_stack, get_reduce_prod_max_min_tmp_size, ref_prod)(ar, reuse)
    };
    let n = sweep_shapes::<f32>(api, &ar, &ar, false);
    assert!(n >= 90, "{n} cases ran");
}

#[test]
fn host_numbers() {
    let f = get_reduce_max_max_min_tmp_size;
    let (ar, ra) = (ReducePattern::AR, ReducePattern::RA);
    // AR: 0 up to a block, a block a row below a repeat, a repeat a row from there on.
    assert_eq!(f(&[5, 8], DType::F32, ar, true, false), (0, 0));
    assert_eq!(f(&[5, 9], DType::F32, ar, true, false), (5 * 32, 5 * 32));
    assert_eq!(f(&[5, 63], DType::F32, ar, true, false), (5 * 32, 5 * 32));
    assert_eq!(f(&[5, 64], DType::F32, ar, true, false), (5 * 256, 5 * 256));
    assert_eq!(f(&[5, 5000], DType::F16, ar, true, false), (5 * 256, 5 * 256));
    assert_eq!(f(&[5, 16], DType::F16, ar, true, false), (0, 0));
    // RA: k padded rows, k the largest power of two below first (1 for one row).
    assert_eq!(f(&[1, 3], DType::F16, ra, true, false), (32, 32));
    assert_eq!(f(&[8, 3], DType::F32, ra, true, false), (4 * 32, 4 * 32));
    assert_eq!(f(&[9, 20], DType::F16, ra, true, false), (8 * 64, 8 * 64));
    // Reuse: nothing.
    assert_eq!(f(&[9, 20], DType::F16, ra, true, true), (0, 0));
    assert_eq!(f(&[9, 2000], DType::F32, ar, true, true), (0, 0));
    assert_eq!(get_reduce_min_max_min_tmp_size(&[9, 20], DType::F16, ra, true, false), (512, 512));
    assert_eq!(get_reduce_any_max_min_tmp_size(&[3, 70], DType::F32, ar, true, false), (768, 768));
    assert_eq!(get_reduce_all_max_min_tmp_size(&[3, 10], DType::F32, ar, true, false), (96, 96));
    // ReduceSum/ReduceMean: AR 0 up to 64, else first * k floats (k halved when it is last and
    // first > 1); RA as ReduceMax.
    let g = get_reduce_sum_max_min_tmp_size;
    assert_eq!(g(&[3, 64], DType::F32, ar, true, false), (0, 0));
    assert_eq!(g(&[3, 100], DType::F32, ar, true, false), (768, 768));
    assert_eq!(g(&[3, 128], DType::F32, ar, true, false), (768, 768));
    assert_eq!(g(&[1, 128], DType::F32, ar, true, false), (512, 512));
    assert_eq!(g(&[5, 8], DType::F32, ra, true, false), (128, 128));
    assert_eq!(g(&[5, 800], DType::F32, ar, true, true), (0, 0));
    assert_eq!(get_reduce_mean_max_min_tmp_size(&[8, 20], DType::F32, ra, true, false), (384, 384));
    // ReduceProd: AR 4 * (max(8, k) + 8 first) + 256 (256 with reuse); RA as ReduceMax.
    let p = get_reduce_prod_max_min_tmp_size;
    assert_eq!(p(&[3, 100], DType::F32, ar, true, false), ((64 + 24) * 4 + 256, (64 + 24) * 4 + 256));
    assert_eq!(p(&[3, 128], DType::F32, ar, true, false), ((64 + 24) * 4 + 256, (64 + 24) * 4 + 256));
    assert_eq!(p(&[1, 128], DType::F32, ar, true, false), ((128 + 8) * 4 + 256, (128 + 8) * 4 + 256));
    assert_eq!(p(&[3, 100], DType::F32, ar, true, true), (256, 256));
    assert_eq!(p(&[5, 8], DType::F32, ra, true, true), (0, 0));
    assert_eq!(p(&[5, 8], DType::F32, ra, true, false), (128, 128));
}

#[test]
fn host_errors() {
    let (ar, ra) = (ReducePattern::AR, ReducePattern::RA);
    let f = get_reduce_max_max_min_tmp_size;
    expect_panic(
        || {
            let _ = f(&[2, 8], DType::I32, ar, true, false);
        },
        &["GetReduceMaxMaxMinTmpSize", "int32_t", "float and half"],
    );
    expect_panic(
        || {
            let _ = f(&[2, 8, 3], DType::F32, ar, true, false);
        },
        &["srcShape has 3 dims", "must have 2"],
    );
    expect_panic(
        || {
            let _ = f(&[2, 8], DType::F32, ar, false, false);
        },
        &["isSrcInnerPad = false"],
    );
    expect_panic(
        || {
            let _ = f(&[2, 8], DType::F32, ReducePattern::ARA, true, false);
        },
        &["pattern = ARA", "AR and RA"],
    );
    expect_panic(
        || {
            let _ = f(&[0, 8], DType::F32, ra, true, false);
        },
        &["srcShape = [0, 8]", "greater than 0"],
    );
    expect_panic(
        || {
            let _ = get_reduce_min_max_min_tmp_size(&[2, 0], DType::F16, ra, true, false);
        },
        &["GetReduceMinMaxMinTmpSize", "srcShape = [2, 0]"],
    );
    expect_panic(
        || {
            let _ = get_reduce_any_max_min_tmp_size(&[2, 8], DType::F16, ar, true, false);
        },
        &["GetReduceAnyMaxMinTmpSize", "half", "float"],
    );
    expect_panic(
        || {
            let _ = get_reduce_all_max_min_tmp_size(&[2, 8], DType::I16, ar, true, false);
        },
        &["GetReduceAllMaxMinTmpSize", "int16_t"],
    );
    expect_panic(
        || {
            let _ = get_reduce_sum_max_min_tmp_size(&[2, 8], DType::F16, ar, true, false);
        },
        &["GetReduceSumMaxMinTmpSize", "dataType = half", "float type"],
    );
    expect_panic(
        || {
            let _ = get_reduce_mean_max_min_tmp_size(&[2, 8], DType::F32, ReducePattern::R, true, false);
        },
        &["GetReduceMeanMaxMinTmpSize", "pattern = R;"],
    );
    expect_panic(
        || {
            let _ = get_reduce_prod_max_min_tmp_size(&[2, 8], DType::F16, ar, true, false);
        },
        &["GetReduceProdMaxMinTmpSize", "dataType = half", "float type"],
    );
}

#[test]
fn chips_without_implementation() {
    for soc in [Soc::Ascend910, Soc::Ascend310P, Soc::Ascend310B] {
        on(soc, || {
            let u = ub(1024);
            let (s, d, t) = (u.t::<f32>(0, 64), u.t::<f32>(256, 64), u.t::<u8>(512, 512));
            let name = soc.to_string();
            let sh = [2, 8];
            expect_panic(
                || reduce_max_adv::<f32, pattern::AR, false>(&d, &s, &t, &sh, true),
                &["ReduceMax", "no implementation", &name],
            );
            expect_panic(
                || reduce_min_adv::<f32, pattern::RA, true>(&d, &s, &t, &sh, true),
                &["ReduceMin", "no implementation", &name],
            );
            expect_panic(
                || reduce_any::<f32, pattern::AR, false>(&d, &s, &t, &sh, true),
                &["ReduceAny", "no implementation", &name],
            );
            expect_panic(
                || reduce_all_stack::<f32, pattern::RA, false>(&d, &s, &sh, true),
                &["ReduceAll", "no implementation", &name],
            );
        });
    }
}

#[test]
fn kernel_errors() {
    on(Soc::Ascend910B, || {
        let u = ub(4096);
        let (s, d, t) = (u.t::<f32>(0, 256), u.t::<f32>(1024, 64), u.t::<u8>(2048, 2048));
        let max_ar = reduce_max_adv::<f32, pattern::AR, false>;
        let max_ra = reduce_max_adv::<f32, pattern::RA, false>;
        expect_panic(
            || max_ar(&d, &s, &t, &[0, 8], true),
            &["ReduceMax", "srcShape = [0, 8]", "greater than 0"],
        );
        expect_panic(|| max_ra(&d, &s, &t, &[3, 0], true), &["srcShape = [3, 0]"]);
        expect_panic(
            || max_ar(&d, &s, &t, &[20, 13], true),
            &["srcTensor holds 256 float elements", "20 * 16 = 320"],
        );
        expect_panic(
            || max_ar(&d.view_len(0, 16), &s, &t, &[20, 3], true),
            &["dstTensor holds 16", "firstAxis = 20", "pattern AR"],
        );
        expect_panic(
            || max_ra(&d, &s, &t, &[2, 100], true),
            &["dstTensor holds 64", "lastAxis = 100", "pattern RA"],
        );
        expect_panic(|| max_ar(&d, &s, &t, &[2, 8], false), &["srcInnerPad = false", "must be true"]);
        expect_panic(
            || max_ar(&d, &s, &t.view_len(0, 32), &[2, 20], true),
            &[
                "sharedTmpBuffer has 32 bytes",
                "the 64 the reduction writes",
                "srcShape [2, 20]",
                "GetReduceMaxMaxMinTmpSize",
            ],
        );
        expect_panic(
            || max_ra(&d, &s, &t.view_len(0, 0), &[1, 8], true),
            &["sharedTmpBuffer has 0 bytes", "less than one float", "CheckTmpBufferSize"],
        );
        expect_panic(
            || reduce_min_adv::<f32, pattern::RA, false>(&d, &s, &t.view_len(0, 64), &[5, 8], true),
            &["ReduceMin", "sharedTmpBuffer has 64 bytes", "the 128", "GetReduceMinMaxMinTmpSize"],
        );
        // Reuse needs no scratch.
        reduce_max_adv::<f32, pattern::RA, true>(&d, &s, &t.view_len(0, 0), &[5, 8], true);
        expect_panic(|| max_ar(&s.view(8), &s, &t, &[2, 8], true), &["dst UB bytes", "overlap src"]);
        expect_panic(
            || max_ar(&d, &s, &s.reinterpret_cast::<u8>().view(32), &[2, 8], true),
            &["sharedTmpBuffer UB bytes", "overlap src"],
        );
        expect_panic(
            || max_ar(&d, &s, &d.reinterpret_cast::<u8>(), &[2, 8], true),
            &["sharedTmpBuffer UB bytes", "overlap dst"],
        );
        let l1 = LocalTensor::<u8>::new(TPosition::A1, 0, 64);
        expect_panic(|| max_ar(&d, &s, &l1, &[2, 8], true), &["sharedTmpBuffer is at position"]);
        let l1f = LocalTensor::<f32>::new(TPosition::A1, 0, 64);
        expect_panic(|| max_ar(&l1f, &s, &t, &[2, 8], true), &["dst is at position"]);
        expect_panic(|| max_ar(&d, &l1f, &t, &[2, 8], true), &["src is at position"]);
        expect_panic(
            || reduce_any::<f32, pattern::AR, false>(&d, &s, &t, &[2, 8], false),
            &["ReduceAny", "srcInnerPad = false"],
        );
        expect_panic(
            || reduce_all::<f32, pattern::RA, false>(&d, &s, &t, &[40, 8], true),
            &["ReduceAll", "srcTensor holds 256"],
        );
        expect_panic(
            || reduce_sum_adv::<f32, pattern::AR, false>(&d, &s, &t.view_len(0, 256), &[2, 100], true),
            &["ReduceSum", "sharedTmpBuffer has 256 bytes", "the 512", "GetReduceSumMaxMinTmpSize"],
        );
        expect_panic(
            || reduce_mean::<f32, pattern::RA, false>(&d, &s, &t.view_len(0, 64), &[5, 8], true),
            &["ReduceMean", "the 128", "GetReduceMeanMaxMinTmpSize"],
        );
        expect_panic(
            || reduce_mean::<f32, pattern::AR, false>(&d, &s, &t, &[2, 8], false),
            &["ReduceMean", "srcInnerPad"],
        );
        expect_panic(
            || reduce_prod::<f32, pattern::AR, true>(&d, &s, &t.view_len(0, 128), &[2, 8], true),
            &["ReduceProd", "sharedTmpBuffer has 128 bytes", "the 256", "GetReduceProdMaxMinTmpSize"],
        );
        // Rows of up to 64 need no scratch.
        reduce_sum_adv::<f32, pattern::AR, false>(&d, &s, &t.view_len(0, 0), &[3, 64], true);
    });
    on(Soc::Ascend910B, || {
        let l1 = LocalTensor::<f32>::new(TPosition::VECCALC, 0, 64);
        expect_panic(
            || reduce_max_adv_stack::<f32, pattern::AR, false>(&l1.view(32), &l1, &[2, 8], true),
            &["ReduceMax", "no TPipe"],
        );
    });
}
