//! The advanced API's transpose (`adv/transpose.rs`): `ConfusionTranspose` against a scalar
//! reference that restates each scenario's layouts element by element (the moves are exact,
//! so the comparison is bit for bit, padding included: `A2` and `A3` are taken rounded up to
//! 16 and the padding elements move with the data) — `TRANSPOSE_NZ2ND_0213`,
//! `TRANSPOSE_NZ2NZ_0213` and `TRANSPOSE_ND2ND_ONLY`, for all six types on both chips, both
//! forms, shapes with padded `A2` and `A3`, several batches, and scratch sizes that take
//! every round split (many rounds, rounds with a tail, one round, only a tail). Then the host
//! tiling's numbers and every error.

use ascend_core::prelude::*;

use crate::common::util;
use util::{assert_bits_ctx, expect_panic, on, ub, Rng};

const CHIPS: [Soc; 2] = [Soc::Ascend910B, Soc::Ascend310P];
const NZ2ND: TransposeType = TransposeType::TRANSPOSE_NZ2ND_0213;
const NZ2NZ: TransposeType = TransposeType::TRANSPOSE_NZ2NZ_0213;
const ONLY: TransposeType = TransposeType::TRANSPOSE_ND2ND_ONLY;
const ND012: TransposeType = TransposeType::TRANSPOSE_NZ2ND_012_WITHOUT_N;
const NZ012: TransposeType = TransposeType::TRANSPOSE_NZ2NZ_012_WITHOUT_N;

fn align16(v: usize) -> usize {
    v.div_ceil(16) * 16
}

/// Random bit patterns of `n` elements of `T`.
fn rand_vec<T: Element>(rng: &mut Rng, n: usize) -> Vec<T> {
    bytemuck::cast_slice::<u8, T>(&rng.bytes(n * T::SIZE)).to_vec()
}

/// Scenes 1 and 2: `src` NZ `[B, A1, A3'/16, A2'/16, 16, 16]` (`'`: rounded up to 16) to
/// `dst` ND `[B, A2', A1, A3']` or NZ `[B, A2', A3'/16, A1, 16]`.
fn reference_0213<T: Copy + Default>(src: &[T], [b, a1, a2, a3]: [usize; 4], nd: bool) -> Vec<T> {
    let (a2, a3) = (align16(a2), align16(a3));
    let mut dst = vec![T::default(); b * a1 * a2 * a3];
    for bi in 0..b {
        for i in 0..a1 {
            for s in 0..a2 {
                for h in 0..a3 {
                    let from = (((bi * a1 + i) * (a3 / 16) + h / 16) * (a2 / 16) + s / 16) * 256
                        + (s % 16) * 16
                        + h % 16;
                    let to = if nd {
                        ((bi * a2 + s) * a1 + i) * a3 + h
                    } else {
                        (((bi * a2 + s) * (a3 / 16) + h / 16) * a1 + i) * 16 + h % 16
                    };
                    dst[to] = src[from];
                }
            }
        }
    }
    dst
}

/// Scenes 5 and 6: `src` NZ `[B, N, hnDiv'/16, S'/16, 16, 16]` (origin `[B, N, S, hnDiv]`) to
/// `dst` ND `[B, S', H']` or NZ `[B, H'/16, S'/16, 16, 16]` with `H = N * hnDiv` (the heads'
/// padding dropped). `None` marks the padding columns `H..H'` of `dst`, which hold whatever
/// the scratch's second fractal held there.
fn reference_012<T: Copy>(src: &[T], [b, n, s, hn]: [usize; 4], nd: bool) -> Vec<Option<T>> {
    let (sa, hb, h) = (align16(s), hn.div_ceil(16), n * hn);
    let ha = align16(h);
    let mut dst = vec![None; b * sa * ha];
    for bi in 0..b {
        for head in 0..n {
            for d in 0..hn {
                for si in 0..sa {
                    let from = (((bi * n + head) * hb + d / 16) * (sa / 16) + si / 16) * 256
                        + (si % 16) * 16
                        + d % 16;
                    let hh = head * hn + d;
                    let to = if nd {
                        (bi * sa + si) * ha + hh
                    } else {
                        bi * sa * ha + (hh / 16) * sa * 16 + (si / 16) * 256 + (si % 16) * 16 + hh % 16
                    };
                    dst[to] = Some(src[from]);
                }
            }
        }
    }
    dst
}

/// Scene 7: `[H, W]` to `[W, H]`.
fn reference_only<T: Copy + Default>(src: &[T], h: usize, w: usize) -> Vec<T> {
    let mut dst = vec![T::default(); h * w];
    for r in 0..h {
        for c in 0..w {
            dst[c * h + r] = src[r * w + c];
        }
    }
    dst
}

/// Runs one call on a fresh core of `soc` and checks `dst` against the reference.
fn run<T: ConfusionTransposeElement>(
    soc: Soc,
    ty: TransposeType,
    shape: &[usize],
    tmp_bytes: usize,
    stack: bool,
    seed: u64,
) {
    let ctx = format!("{soc} {} {ty} {shape:?} tmp {tmp_bytes} stack {stack}", T::DTYPE);
    on(soc, || {
        let n = match ty {
            ONLY => shape[0] * shape[1],
            ND012 | NZ012 => {
                let (b, heads, s) = (shape[0], shape[1], align16(shape[2]));
                (b * heads * s * align16(shape[3])).max(b * s * align16(heads * shape[3]))
            }
            _ => shape[0] * shape[1] * align16(shape[2]) * align16(shape[3]),
        };
        let mut rng = Rng(seed);
        let x: Vec<T> = rand_vec(&mut rng, n);
        let tiling = if ty == ONLY {
            get_confusion_transpose_only_tiling_info(shape, tmp_bytes, T::SIZE)
        } else {
            get_confusion_transpose_tiling_info(shape, tmp_bytes, T::SIZE, ty)
        };
        let region = (n * T::SIZE).div_ceil(32) * 32;
        let u = ub(2 * region + tmp_bytes.div_ceil(32).max(1) * 32);
        let (src, dst) = (u.t::<T>(0, n), u.t::<T>(region, n));
        src.copy_from_slice(&x);
        if stack {
            confusion_transpose_stack(&dst, &src, ty, &tiling);
        } else {
            confusion_transpose(&dst, &src, &u.t::<u8>(2 * region, tmp_bytes), ty, &tiling);
        }
        if ty == ND012 || ty == NZ012 {
            let want = reference_012(&x, [shape[0], shape[1], shape[2], shape[3]], ty == ND012);
            let got = dst.to_vec();
            let got = &got[..want.len()];
            // The padding columns compare with themselves.
            let want: Vec<T> = got.iter().zip(&want).map(|(g, w)| w.unwrap_or(*g)).collect();
            assert_bits_ctx(got, &want, &ctx);
            return;
        }
        let want = match ty {
            ONLY => reference_only(&x, shape[0], shape[1]),
            _ => reference_0213(&x, [shape[0], shape[1], shape[2], shape[3]], ty == NZ2ND),
        };
        assert_bits_ctx(&dst.to_vec(), &want, &ctx);
    });
}

/// Every 0213 case: shapes with and without padding, the scratch at the minimum (one fractal
/// per round), three fractals (rounds with a tail), the maximum (one round) and above it
/// (only a tail).
fn all_0213<T: ConfusionTransposeElement>(seed: u64) {
    let shapes: [[usize; 4]; 4] = [[1, 2, 64, 32], [2, 3, 20, 20], [1, 1, 16, 16], [2, 2, 64, 48]];
    for soc in CHIPS {
        for ty in [NZ2ND, NZ2NZ] {
            for (k, shape) in shapes.iter().enumerate() {
                let (max, min) = get_confusion_transpose_max_min_tmp_size(shape, T::SIZE, ty);
                for (t, tmp) in [min, 3 * min, max, max + 2 * min].into_iter().enumerate() {
                    run::<T>(soc, ty, shape, tmp, false, seed + (10 * k + t) as u64);
                }
                run::<T>(soc, ty, shape, min, true, seed + 7);
            }
        }
    }
}

fn all_only<T: ConfusionTransposeElement>(seed: u64) {
    for soc in CHIPS {
        for (h, w) in [(16, 16), (32, 48), (48, 16), (16, 8 * 32), (64, 64)] {
            if w % (32 / T::SIZE) != 0 {
                continue;
            }
            run::<T>(soc, ONLY, &[h, w], 0, false, seed + (h * w) as u64);
            run::<T>(soc, ONLY, &[h, w], 0, true, seed + 1);
        }
    }
}

#[test]
fn nz_0213_half_and_float() {
    all_0213::<f16>(1);
    all_0213::<f32>(2);
}

#[test]
fn nz_0213_integers() {
    all_0213::<i16>(3);
    all_0213::<u16>(4);
    all_0213::<i32>(5);
    all_0213::<u32>(6);
}

/// Scenes 5 and 6: heads narrower than, equal to and wider than 16, padded and not, several
/// batches and S blocks; the scratch at the size the host gives (two fractals) and above.
fn all_012<T: ConfusionTransposeElement>(seed: u64) {
    let shapes: [[usize; 4]; 6] =
        [[1, 2, 32, 16], [2, 3, 20, 24], [1, 2, 16, 8], [1, 4, 48, 20], [2, 1, 16, 40], [1, 3, 17, 48]];
    for soc in CHIPS {
        for ty in [ND012, NZ012] {
            for (k, shape) in shapes.iter().enumerate() {
                let (_, min) = get_confusion_transpose_max_min_tmp_size(shape, T::SIZE, ty);
                run::<T>(soc, ty, shape, min, false, seed + k as u64);
                run::<T>(soc, ty, shape, min + 64, false, seed + 20 + k as u64);
                run::<T>(soc, ty, shape, min, true, seed + 40 + k as u64);
            }
        }
    }
}

#[test]
fn nz_012_without_n_half_and_float() {
    all_012::<f16>(21);
    all_012::<f32>(22);
}

/// `H < 16`: the vendor's init overwrites `tmp2NeedRowCount = shapeH` with 16, so no 16
/// columns ever gather and `dst` is never written.
#[test]
fn nz_012_without_n_narrow_h_writes_nothing() {
    for soc in CHIPS {
        on(soc, || {
            let u = ub(4096);
            let (src, dst) = (u.t::<f16>(0, 256), u.t::<f16>(1024, 256));
            src.copy_from_slice(&vec![f16::from_f32(1.0); 256]);
            dst.copy_from_slice(&vec![f16::from_f32(7.0); 256]);
            let tiling = get_confusion_transpose_tiling_info(&[1, 1, 16, 8], 1024, 2, ND012);
            confusion_transpose(&dst, &src, &u.t::<u8>(2048, 1024), ND012, &tiling);
            assert!(dst.to_vec().iter().all(|v| v.to_f32() == 7.0), "{soc}");
        });
    }
}

#[test]
fn nz_012_without_n_integers() {
    all_012::<i16>(23);
    all_012::<u32>(24);
}

#[test]
fn nd2nd_only_all_types() {
    all_only::<f16>(11);
    all_only::<f32>(12);
    all_only::<i16>(13);
    all_only::<u16>(14);
    all_only::<i32>(15);
    all_only::<u32>(16);
}

#[test]
fn host_tiling_numbers() {
    // The vendor's formulas for [B, A1, A2, A3] = [2, 3, 20, 20], float, 3 fractals.
    let t = get_confusion_transpose_tiling_info(&[2, 3, 20, 20], 3 * 256 * 4, 4, NZ2NZ);
    let p: [u32; 18] = bytemuck::cast(t);
    assert_eq!(p[..16], [8, 2, 3, 32, 32, 2, 768, 48, 512, 0, 512, 1024, 3072, 96, 48, 0]);
    let t = get_confusion_transpose_tiling_info(&[1, 2, 64, 32], 512, 2, NZ2ND);
    let p: [u32; 18] = bytemuck::cast(t);
    assert_eq!(p[..16], [16, 1, 2, 32, 64, 2, 256, 16, 1024, 4, 0, 2048, 4096, 64, 32, 4 * 16 * 64]);
    assert_eq!(get_confusion_transpose_max_min_tmp_size(&[2, 3, 20, 20], 4, NZ2NZ), (2048, 1024));
    assert_eq!(get_confusion_transpose_max_min_tmp_size(&[16, 32], 4, ONLY), (0, 0));
    for ty in [
        TransposeType::TRANSPOSE_NZ2NZ_012_WITH_N,
        TransposeType::TRANSPOSE_NZ2ND_012_WITH_N,
        TransposeType::TRANSPOSE_NZ2ND_012_WITHOUT_N,
        TransposeType::TRANSPOSE_NZ2NZ_012_WITHOUT_N,
    ] {
        assert_eq!(get_confusion_transpose_max_min_tmp_size(&[1, 2, 20, 24], 2, ty), (1024, 1024));
    }
    // Scene 3, [B, N, S, H/N] = [2, 3, 20, 24], half: H = 72 (5 blocks), S 2 blocks.
    let p: [u32; 18] = bytemuck::cast(get_confusion_transpose_tiling_info(
        &[2, 3, 20, 24],
        0,
        2,
        TransposeType::TRANSPOSE_NZ2NZ_012_WITH_N,
    ));
    assert_eq!(p[..17], [16, 2, 3, 24, 1, 72, 5, 2, 80, 32, 2, 32, 8, 512, 6, 3 * 32 * 32, 80 * 32]);
    // Scene 4, float.
    let p: [u32; 18] = bytemuck::cast(get_confusion_transpose_tiling_info(
        &[2, 3, 20, 24],
        0,
        4,
        TransposeType::TRANSPOSE_NZ2ND_012_WITH_N,
    ));
    assert_eq!(p, [8, 2, 3, 24, 72, 5, 2, 2, 32, 8, 512, 6, 1024, 512, 256, 3072, 2560, 2]);
    // Scenes 5 and 6.
    let p: [u32; 18] = bytemuck::cast(get_confusion_transpose_tiling_info(
        &[2, 3, 20, 24],
        0,
        2,
        TransposeType::TRANSPOSE_NZ2ND_012_WITHOUT_N,
    ));
    assert_eq!(p[..15], [16, 2, 3, 24, 72, 5, 2, 2, 80, 512, 1280, 1280, 3 * 2 * 16 * 32, 80 * 32, 1]);
    let p: [u32; 18] = bytemuck::cast(get_confusion_transpose_only_tiling_info(&[48, 32], 0, 2));
    assert_eq!(p[..6], [16, 48, 32, 3, 48, 2]);
}

#[test]
fn host_errors() {
    let t = |f: fn()| f;
    for (f, needles) in [
        (
            t(|| {
                get_confusion_transpose_max_min_tmp_size(&[1, 2, 3, 4], 2, TransposeType::TRANSPOSE_ND_UB_GM);
            }),
            &["GetConfusionTransposeMaxMinTmpSize", "TRANSPOSE_ND_UB_GM", "TRANSPOSE_NZ2ND_0213"][..],
        ),
        (
            t(|| {
                get_confusion_transpose_max_min_tmp_size(&[1, 2, 3], 2, NZ2ND);
            }),
            &["srcShape = [1, 2, 3] has 3 dimensions", "[B, A1, A2, A3]"],
        ),
        (
            t(|| {
                get_confusion_transpose_tiling_info(&[1, 0, 3, 4], 512, 2, NZ2NZ);
            }),
            &["GetConfusionTransposeTilingInfo", "srcShape = [1, 0, 3, 4] has a dimension of 0"],
        ),
        (
            t(|| {
                get_confusion_transpose_tiling_info(&[1, 2, 3, 4], 512, 1, NZ2NZ);
            }),
            &["typeSize = 1 is unsupported"],
        ),
        (
            t(|| {
                get_confusion_transpose_tiling_info(&[1, 2, 3, 4], 511, 2, NZ2NZ);
            }),
            &["stackBufferSize = 511 is below the minimum 512 bytes"],
        ),
        (
            t(|| {
                get_confusion_transpose_tiling_info(&[1, 2, 3, 4], 0, 2, TransposeType::TRANSPOSE_TYPE_NONE);
            }),
            &["transposeType = TransposeType::TRANSPOSE_TYPE_NONE is not supported"],
        ),
        (
            t(|| {
                get_confusion_transpose_only_tiling_info(&[16, 16, 1], 0, 4);
            }),
            &["GetConfusionTransposeOnlyTilingInfo", "[H, W]"],
        ),
    ] {
        expect_panic(f, needles);
    }
}

#[test]
fn kernel_errors() {
    let tiling = get_confusion_transpose_tiling_info(&[1, 2, 32, 32], 512, 2, NZ2ND);
    let call = |soc: Soc,
                ty: TransposeType,
                n_src: usize,
                n_dst: usize,
                tmp: usize,
                tiling: ConfusionTransposeTiling| {
        on(soc, || {
            let u = ub(8192 * 4);
            let (src, dst) = (u.t::<f16>(0, n_src), u.t::<f16>(8192, n_dst));
            confusion_transpose(&dst, &src, &u.t::<u8>(16384, tmp), ty, &tiling);
        })
    };
    expect_panic(
        || call(Soc::Ascend910, NZ2ND, 2048, 2048, 512, tiling),
        &["ConfusionTranspose has no implementation on Ascend910"],
    );
    expect_panic(
        || call(Soc::Ascend310B, NZ2ND, 2048, 2048, 512, tiling),
        &["no implementation on Ascend310B"],
    );
    expect_panic(
        || call(Soc::Ascend910B, TransposeType::TRANSPOSE_NCHW2NHWC, 2048, 2048, 512, tiling),
        &["transposeType = TransposeType::TRANSPOSE_NCHW2NHWC is not supported"],
    );
    expect_panic(
        || call(Soc::Ascend910B, TransposeType::TRANSPOSE_NZ2ND_012_WITH_N, 2048, 2048, 512, tiling),
        &["TRANSPOSE_NZ2ND_012_WITH_N (scenes 3 and 4) is not emulated yet"],
    );
    expect_panic(
        || call(Soc::Ascend910B, NZ2ND, 2047, 2048, 512, tiling),
        &["srcTensor has 2047 half elements, less than the 2048"],
    );
    expect_panic(
        || call(Soc::Ascend310P, NZ2NZ, 2048, 1000, 512, tiling),
        &["dstTensor has 1000 half elements"],
    );
    expect_panic(
        || call(Soc::Ascend910B, NZ2ND, 2048, 2048, 480, tiling),
        &["sharedTmpBuffer has 480 bytes, less than the 512 of one round of 256 elements"],
    );
    let t4 = get_confusion_transpose_tiling_info(&[1, 2, 32, 32], 1024, 4, NZ2ND);
    expect_panic(
        || call(Soc::Ascend910B, NZ2ND, 2048, 2048, 512, t4),
        &["tiling.param0 (blockSize) = 8, but T = half has 16"],
    );
    // 16 * 4096 rows of A2 in one round: 4096 repeats.
    let big = get_confusion_transpose_tiling_info(&[1, 1, 4096 * 16, 16], 4096 * 512, 2, NZ2ND);
    expect_panic(
        || {
            on(Soc::Ascend910B, || {
                let u = ub(4096);
                let t = u.t::<f16>(0, 1024);
                let mut big = big;
                big.param8 = 256; // keep the operand checks out of the way: needSize
                big.param1 = 0; // and no batch, so only the parameters are built
                confusion_transpose(&t, &t, &u.t::<u8>(2048, 2048), NZ2ND, &big);
            })
        },
        &["a TransDataTo5HD of 4096 repeats", "at most 255"],
    );
    expect_panic(
        || {
            on(Soc::Ascend910B, || {
                let u = ub(4096);
                let t = u.t::<f16>(0, 1024);
                confusion_transpose(&t, &t, &u.t::<u8>(2048, 0), NZ2ND, &ConfusionTransposeTiling::default());
            })
        },
        &["blockSize) = 0"],
    );
    // The stack form needs a TPipe.
    expect_panic(
        || {
            on(Soc::Ascend910B, || {
                let u = ub(4096);
                let t = u.t::<f16>(0, 1024);
                drop(u);
                confusion_transpose_stack(&t, &t, NZ2ND, &tiling);
            })
        },
        &["the core has no TPipe"],
    );
    // Scenes 5 and 6 need two fractals of scratch and the tiling's shape.
    let t012 = get_confusion_transpose_tiling_info(&[1, 2, 32, 16], 1024, 2, ND012);
    expect_panic(
        || call(Soc::Ascend910B, NZ012, 2048, 2048, 992, t012),
        &["sharedTmpBuffer has 992 bytes, less than the 1024 of two 16x16 fractals"],
    );
    expect_panic(
        || call(Soc::Ascend310P, ND012, 2048, 1000, 1024, t012),
        &["dstTensor has 1000 half elements, less than the 1024"],
    );
    // Scene 7 checks its shape too.
    let only = get_confusion_transpose_only_tiling_info(&[32, 32], 0, 2);
    expect_panic(
        || call(Soc::Ascend910B, ONLY, 1000, 2048, 0, only),
        &["srcTensor has 1000 half elements, less than the 1024 of the tiling's [H, W]"],
    );
    // Its writes go through raw addresses: each field must be the host helper's for [H, W]
    // (a fuzz case found a spoiled repeat stride writing past dstTensor).
    for (k, bad) in [(3, 3), (4, 16), (5, 3)] {
        let mut t = only;
        let p = [&mut t.param3, &mut t.param4, &mut t.param5];
        *p[k - 3] = bad;
        let want = [2, 32, 2][k - 3];
        expect_panic(
            || call(Soc::Ascend910B, ONLY, 1024, 1024, 0, t),
            &[&format!("tiling.param{k} = {bad}, but GetConfusionTransposeOnlyTilingInfo makes {want} for [H, W] = [32, 32]")],
        );
    }
}
