//! The advanced API's `Sum` and `Mean` (`adv/reduce.rs`) against a scalar reference that
//! restates the vendor's `sum_common_impl.h` / `mean_common_impl.h` steps: each row's first
//! `n` elements reduced by passes of `RepeatReduceSum` (the binary tree over each repeat of
//! 128 `half` or 64 `float` lanes, rounded to the type at every level), pass after pass until
//! one value is left; for `Mean`, then times `(T)(1.0f / n)` in `T`, or for `half` summed in
//! `float`, the row widened exactly, summed in `float`, times `1.0f / n` in `float` and
//! narrowed to nearest, ties to even. Bit for bit on Ascend910B and Ascend310P, `half` and
//! `float`, one row and several, `n` in one repeat, in several, and needing three passes,
//! with padding (`n < inner`), the scratch exactly the host tiling's size, the stack form,
//! `dst` beyond `outter` left alone and the mask state afterwards. Then the host tiling
//! numbers, the chips without an implementation and every documented check. Last, `Arange`
//! (`adv/index.rs`) against the vendor's `ArithProgressionImpl` steps (the first block by the
//! scalar formula, then `Adds` block after block and repeat after repeat) for `float`, `half`,
//! `int16_t` and `int32_t`, `count` within a block, within a repeat and beyond with tails, the
//! elements after `count` rounded up to a block untouched, and its errors.

use ascend_core::prelude::*;

use crate::common::util;
use util::{adv_io, expect_panic, on, tree, Rng};

const CHIPS: [Soc; 2] = [Soc::Ascend910B, Soc::Ascend310P];

trait Fp: SumElement + std::fmt::Debug {
    fn draw(rng: &mut Rng) -> Self;
}
impl Fp for f32 {
    fn draw(rng: &mut Rng) -> f32 {
        (rng.below(1 << 16) as f32 - 32768.0) / 8192.0
    }
}
impl Fp for f16 {
    fn draw(rng: &mut Rng) -> f16 {
        f16::from_f32((rng.below(1 << 10) as f32 - 512.0) / 256.0)
    }
}

// ---- the reference -------------------------------------------------------------------------

/// One `RepeatReduceSum` pass: the tree of each repeat of `par` lanes.
fn pass<T: Element>(v: &[T], par: usize) -> Vec<T> {
    v.chunks(par).map(|c| tree(c.to_vec(), false)).collect()
}

/// The passes until one value is left.
fn passes<T: Element>(row: &[T]) -> T {
    let par = 256 / T::SIZE;
    let mut v = pass(row, par);
    while v.len() > 1 {
        v = pass(&v, par);
    }
    v[0]
}

fn ref_sum<T: Element>(src: &[T], (outter, inner, n): (usize, usize, usize)) -> Vec<T> {
    (0..outter).map(|r| passes(&src[r * inner..r * inner + n])).collect()
}

fn ref_mean<T: Element>(src: &[T], (outter, inner, n): (usize, usize, usize), widen: bool) -> Vec<T> {
    let k = 1.0f32 / n as f32;
    (0..outter)
        .map(|r| {
            let row = &src[r * inner..r * inner + n];
            if widen {
                let f: Vec<f32> = row.iter().map(|x| x.to_f64() as f32).collect();
                let m = passes(&f) * k;
                // `Cast<half, float>(CAST_NONE)`, then a one-lane `RepeatReduceSum<half>`.
                tree(vec![T::from_f64(f64::from(f16::from_f32(m).to_f32()))], false)
            } else {
                T::mul(passes(row), T::from_f64(f64::from(k)))
            }
        })
        .collect()
}

// ---- the runs ------------------------------------------------------------------------------

fn shape<T: Element>(outter: usize, n: usize) -> (usize, usize, usize) {
    let inner = (n * T::SIZE).div_ceil(32) * 32 / T::SIZE;
    (outter, inner, n)
}

const DST_FILL: f64 = 77.0;

/// Runs `f(dst, src, tmp)` on `soc` over random rows of `shape` with `tmp_bytes` of scratch;
/// returns the source and `dst` (its first `outter` rounded up to a block, plus 16).
fn run<T: Fp>(
    soc: Soc,
    seed: u64,
    (outter, inner, n): (usize, usize, usize),
    tmp_bytes: usize,
    f: impl FnOnce(&LocalTensor<T>, &LocalTensor<T>, &LocalTensor<u8>),
) -> (Vec<T>, Vec<T>) {
    on(soc, || {
        let mut rng = Rng(seed);
        let dst_len = (outter * T::SIZE).div_ceil(32) * 32 / T::SIZE + 16;
        let io = adv_io::<T>((outter * inner).max(dst_len), tmp_bytes);
        let src: Vec<T> = (0..outter * inner)
            .map(|i| if i % inner < n { T::draw(&mut rng) } else { T::from_f64(9.0) })
            .collect();
        io.src.view_len(0, src.len()).copy_from_slice(&src);
        io.dst.copy_from_slice(&vec![T::from_f64(DST_FILL); io.dst.get_size()]);
        f(&io.dst.view_len(0, dst_len), &io.src.view_len(0, src.len()), &io.tmp);
        let dst: Vec<T> = (0..dst_len).map(|i| io.dst.get_value(i)).collect();
        (src, dst)
    })
}

fn check<T: Fp>(got: &[T], want: &[T], ctx: &str) {
    for (i, w) in want.iter().enumerate() {
        assert_eq!(got[i].to_bits_u64(), w.to_bits_u64(), "{ctx}: row {i}: got {:?}, want {w:?}", got[i]);
    }
    for (i, g) in got.iter().enumerate().skip(want.len()) {
        assert_eq!(g.to_f64(), DST_FILL, "{ctx}: dst[{i}] beyond outter was written");
    }
}

fn sum_cases<T: Fp>(ns: &[usize]) {
    for soc in CHIPS {
        for &n in ns {
            for outter in [1, 3].into_iter().filter(|&o| o == 1 || n <= 4096) {
                let sh = shape::<T>(outter, n);
                let (tmp, _) = get_sum_max_min_tmp_size(n, T::SIZE, false);
                let ctx = format!("Sum<{}> on {soc}, shape {sh:?}", T::DTYPE);
                let (src, dst) = run::<T>(soc, n as u64, sh, tmp, |d, s, t| {
                    let p = SumParams { outter: sh.0 as u32, inner: sh.1 as u32, n: sh.2 as u32 };
                    sum(d, s, t, &p);
                });
                check(&dst, &ref_sum(&src, sh), &ctx);
            }
        }
    }
}

#[test]
fn sum_half_matches_reference() {
    sum_cases::<f16>(&[1, 3, 16, 100, 128, 129, 300, 2000, 128 * 128 + 5]);
}

#[test]
fn sum_float_matches_reference() {
    sum_cases::<f32>(&[1, 7, 8, 64, 65, 200, 1000, 64 * 64 + 3]);
}

fn mean_cases<T: Fp + MeanElement<A>, A: SumElement>(ns: &[usize]) {
    let widen = T::SIZE == 2 && A::SIZE == 4;
    for soc in CHIPS {
        for &n in ns {
            for outter in [1, 4].into_iter().filter(|&o| o == 1 || n <= 4096) {
                let sh = shape::<T>(outter, n);
                let (vendor, _) = get_mean_max_min_tmp_size(n, T::SIZE, A::SIZE, false);
                // The vendor's size, or the bytes the passes write where it is less.
                let reps = n.div_ceil(256 / A::SIZE);
                let written = if widen {
                    sh.1 * 4 + (reps * 4).div_ceil(32) * 32
                } else {
                    (reps * T::SIZE).div_ceil(32) * 32
                };
                let tmp = vendor.max(if reps > 1 || widen { written } else { 0 });
                let ctx = format!("Mean<{}, {}> on {soc}, shape {sh:?}", T::DTYPE, A::DTYPE);
                let (src, dst) = run::<T>(soc, 7 * n as u64, sh, tmp, |d, s, t| {
                    let p = MeanParams { outter: sh.0 as u32, inner: sh.1 as u32, n: sh.2 as u32 };
                    mean::<T, A>(d, s, t, &p);
                });
                check(&dst, &ref_mean(&src, sh, widen), &ctx);
            }
        }
    }
}

#[test]
fn mean_matches_reference() {
    mean_cases::<f16, f16>(&[1, 5, 128, 129, 1000, 128 * 128 + 5]);
    mean_cases::<f16, f32>(&[1, 5, 64, 65, 1000, 64 * 64 + 3]);
    mean_cases::<f32, f32>(&[1, 3, 64, 65, 500, 64 * 64 + 3]);
}

#[test]
fn stack_forms_match_the_buffer_forms() {
    for soc in CHIPS {
        let sh = shape::<f16>(2, 300);
        let p = SumParams { outter: 2, inner: sh.1 as u32, n: 300 };
        let (src, dst) = run::<f16>(soc, 5, sh, 32, |d, s, _| sum_stack(d, s, &p));
        check(&dst, &ref_sum(&src, sh), "sum_stack");
        let m = MeanParams { outter: 2, inner: sh.1 as u32, n: 300 };
        let (src, dst) = run::<f16>(soc, 6, sh, 32, |d, s, _| mean_stack::<f16, f32>(d, s, &m));
        check(&dst, &ref_mean(&src, sh, true), "mean_stack");
    }
}

#[test]
fn mask_state_afterwards() {
    // One repeat: SetMaskNorm and ResetMask; several: the mask keeps the last pass's count.
    on(Soc::Ascend910B, || {
        let io = adv_io::<f32>(256, 64);
        sum(&io.dst, &io.src, &io.tmp, &SumParams { outter: 1, inner: 64, n: 64 });
        assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX]);
        sum(&io.dst, &io.src, &io.tmp, &SumParams { outter: 1, inner: 256, n: 256 });
        assert_eq!(get_vector_mask(), [4, 0]);
    });
}

// ---- host tiling ---------------------------------------------------------------------------

#[test]
fn host_tiling_numbers() {
    // ceil(n / per repeat) elements rounded up to a block, in bytes.
    assert_eq!(get_sum_max_min_tmp_size(128, 2, false), (32, 32));
    assert_eq!(get_sum_max_min_tmp_size(128 * 17, 2, true), (64, 64));
    assert_eq!(get_sum_max_min_tmp_size(64 * 9, 4, false), (64, 64));
    // The count rounded up to 32, taken as bytes; plus 4 * inner for half in float.
    assert_eq!(get_mean_max_min_tmp_size(128 * 40, 2, 2, false), (64, 64));
    assert_eq!(get_mean_max_min_tmp_size(64 * 40, 4, 4, false), (64, 64));
    assert_eq!(get_mean_max_min_tmp_size(100, 2, 4, false), (32 + 112 * 4, 32 + 112 * 4));
    assert_eq!(get_mean_tmp_buffer_factor_size(4), (1, 0));
    expect_panic(
        || {
            let _ = get_sum_max_min_tmp_size(0, 2, false);
        },
        &["GetSumMaxMinTmpSize", "greater than 0"],
    );
    expect_panic(
        || {
            let _ = get_sum_max_min_tmp_size(8, 8, false);
        },
        &["typeSize = 8"],
    );
    expect_panic(
        || {
            let _ = get_mean_max_min_tmp_size(8, 4, 2, false);
        },
        &["GetMeanMaxMinTmpSize", "(4, 2)"],
    );
    expect_panic(
        || {
            let _ = get_mean_max_min_tmp_size(0, 2, 2, false);
        },
        &["n = 0"],
    );
}

// ---- errors --------------------------------------------------------------------------------

#[test]
fn chips_without_an_implementation() {
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        on(soc, || {
            let io = adv_io::<f32>(64, 64);
            let name = soc.to_string();
            expect_panic(
                || sum(&io.dst, &io.src, &io.tmp, &SumParams { outter: 1, inner: 8, n: 8 }),
                &["Sum", "no implementation", &name],
            );
            expect_panic(
                || mean::<f32, f32>(&io.dst, &io.src, &io.tmp, &MeanParams { outter: 1, inner: 8, n: 8 }),
                &["Mean", "not supported", &name],
            );
        });
    }
}

#[test]
fn documented_checks() {
    on(Soc::Ascend910B, || {
        let io = adv_io::<f16>(128 * 17, 256);
        let (d, s, t) = (&io.dst, &io.src, &io.tmp);
        let p = |outter, inner, n| SumParams { outter, inner, n };
        expect_panic(|| sum(d, s, t, &p(1, 0, 1)), &["Sum", "SumParams.inner = 0"]);
        expect_panic(|| sum(d, s, t, &p(1, 24, 1)), &["SumParams.inner = 24", "32 bytes"]);
        expect_panic(|| sum(d, s, t, &p(1, 16, 0)), &["SumParams.n = 0", "at most SumParams.inner = 16"]);
        expect_panic(|| sum(d, s, t, &p(1, 16, 17)), &["SumParams.n = 17"]);
        expect_panic(|| sum(d, s, t, &p(137, 16, 16)), &["srcTensor holds 2176", "137 * 16 = 2192"]);
        expect_panic(
            || sum(&d.view_len(0, 16), s, t, &p(17, 16, 16)),
            &["dstTensor holds 16", "fewer than 32"],
        );
        expect_panic(
            || sum(d, s, &t.view_len(0, 32), &p(1, 128 * 17, 128 * 17 - 3)),
            &["sharedTmpBuffer has 32", "64", "GetSumMaxMinTmpSize"],
        );
        expect_panic(|| sum(s, s, t, &p(1, 16, 16)), &["dst UB bytes", "overlap src"]);
        expect_panic(
            || sum(d, s, &s.reinterpret_cast::<u8>(), &p(1, 16, 16)),
            &["sharedTmpBuffer UB bytes", "overlap src"],
        );
        let m = |outter, inner, n| MeanParams { outter, inner, n };
        expect_panic(|| mean::<f16, f16>(d, s, t, &m(0, 16, 16)), &["Mean", "MeanParams.outter = 0"]);
        expect_panic(|| mean::<f16, f16>(d, s, t, &m(1, 8, 8)), &["MeanParams.inner = 8"]);
        expect_panic(|| mean::<f16, f16>(d, s, t, &m(1, 16, 20)), &["MeanParams.n = 20"]);
        expect_panic(
            || mean::<f16, f32>(d, s, t, &m(1, 64, 64)),
            &["sharedTmpBuffer has 256", "288", "GetMeanMaxMinTmpSize"],
        );
        expect_panic(|| mean::<f16, f16>(d, d, t, &m(1, 16, 16)), &["dst UB bytes", "overlap src"]);
    });
    on(Soc::Ascend910B, || {
        // The vendor's size for n = 64 * 40 floats is 64 bytes; the first pass writes 40 floats.
        let io = adv_io::<f32>(64 * 40, 64);
        let p = MeanParams { outter: 1, inner: 64 * 40, n: 64 * 40 };
        expect_panic(
            || mean::<f32, f32>(&io.dst, &io.src, &io.tmp, &p),
            &["sharedTmpBuffer has 64", "160", "write past"],
        );
        let gm_like = LocalTensor::<u8>::new(TPosition::A1, 0, 64);
        expect_panic(
            || sum(&io.dst, &io.src, &gm_like, &SumParams { outter: 1, inner: 8, n: 8 }),
            &["sharedTmpBuffer is at position"],
        );
    });
}

// ---- Arange (adv/index.rs) -------------------------------------------------------------------

/// The vendor's `ArithProgressionImpl` restated: the first block (or all of a short `count`)
/// by the scalar formula, then block after block plus `diff * block`, then repeat after repeat
/// plus `diff * repeat`, each `Adds` in `T`; `count` rounded up to a block written.
fn ref_arange<T: ArangeElement>(first: T, diff: T, count: usize) -> Vec<T> {
    let block = 32 / T::SIZE;
    let rep = 8 * block;
    if count <= block {
        return (0..count).map(|i| T::base(first, diff, i)).collect();
    }
    let len =
        if count > rep { rep.max(count.div_ceil(block) * block) } else { count.div_ceil(block) * block };
    let mut v: Vec<T> = (0..block).map(|i| T::base(first, diff, i)).collect();
    let bs = T::step(diff, block);
    while v.len() < len.min(rep) {
        let k = v.len() - block;
        v.push(T::add(v[k], bs));
    }
    let rs = T::step(diff, rep);
    while v.len() < len {
        let k = v.len() - rep;
        v.push(T::add(v[k], rs));
    }
    v
}

fn arange_cases<T: ArangeElement + std::fmt::Debug>(first: T, diff: T) {
    for soc in CHIPS {
        let block = 32 / T::SIZE;
        for count in [
            1,
            block - 1,
            block,
            block + 1,
            3 * block,
            8 * block,
            8 * block + 1,
            8 * block + block + 3,
            37 * block + 5,
        ] {
            on(soc, || {
                let cap = 40 * block;
                let io = adv_io::<T>(cap, 32);
                let fill = T::from_f64(99.0);
                io.dst.copy_from_slice(&vec![fill; cap]);
                arange(&io.dst, first, diff, count as i32);
                let want = ref_arange(first, diff, count);
                for i in 0..cap {
                    let got = io.dst.get_value(i);
                    let w = want.get(i).copied().unwrap_or(fill);
                    assert_eq!(
                        got.to_bits_u64(),
                        w.to_bits_u64(),
                        "Arange<{}> on {soc}, count {count}: dst[{i}] = {got:?}, want {w:?}",
                        T::DTYPE
                    );
                }
            });
        }
    }
}

#[test]
fn arange_matches_reference() {
    arange_cases::<f32>(0.1, 0.3);
    arange_cases::<f16>(f16::from_f32(-3.3), f16::from_f32(0.7));
    arange_cases::<i16>(-100, 3);
    arange_cases::<i32>(7, 1001);
    // `arith_progression` is the same function; the tiling needs no scratch.
    on(Soc::Ascend310P, || {
        let io = adv_io::<f32>(64, 32);
        arith_progression(&io.dst, 2.0, 0.25, 64);
        assert_eq!(io.dst.get_value(63), 2.0 + 63.0 * 0.25);
    });
    assert_eq!(get_arange_max_min_tmp_size(), (0, 0));
    assert_eq!(get_arith_progression_max_min_tmp_size(), (0, 0));
}

#[test]
fn arange_errors() {
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        on(soc, || {
            let io = adv_io::<f32>(64, 32);
            expect_panic(|| arange(&io.dst, 0.0, 1.0, 8), &["Arange", "not supported", &soc.to_string()]);
        });
    }
    on(Soc::Ascend910B, || {
        let io = adv_io::<f32>(64, 32);
        expect_panic(|| arange(&io.dst, 0.0, 1.0, 0), &["Arange", "count = 0"]);
        expect_panic(|| arange(&io.dst, 0.0, 1.0, -4), &["count = -4"]);
        expect_panic(|| arange(&io.dst, 0.0, -1.0, 8), &["diffValue = -1"]);
        expect_panic(|| arange(&io.dst, 0.0, 1.0, 65), &["count = 65 exceeds dst's 64"]);
        let l1 = LocalTensor::<f32>::new(TPosition::A1, 0, 64);
        expect_panic(|| arange(&l1, 0.0, 1.0, 8), &["dst is at position"]);
        // The last Adds writes count rounded up to a block: it must lie in dst.
        expect_panic(
            || arange(&io.dst.view_len(0, 12), 0.0, 1.0, 12),
            &["Adds", "dst would touch element 7"],
        );
    });
}
