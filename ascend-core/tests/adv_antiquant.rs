//! The advanced API's anti-quantization (`adv/antiquant.rs`): `AscendAntiQuant` from `int8_t` to
//! `half` against a slow scalar reference that restates the vendor's steps one element at a time
//! with the instructions' roundings — `Cast<half, int8_t>` (exact), then `Add`/`Adds` of the
//! offset and `Mul`/`Muls` by the scale, each rounded to `half` (to nearest, ties to even). Both
//! chips with the implementation (Ascend910B, Ascend310P), both forms, shapes with column tails
//! (`N % 128`) and more than 255 rows (several row blocks); the scratch, `src` and mask state
//! afterwards; the host helpers and every error.

use ascend_core::prelude::*;

use crate::common::util;
use util::{assert_bits_ctx, expect_panic, on, ub, Rng, SENTINEL};

const CHIPS: [Soc; 2] = [Soc::Ascend910B, Soc::Ascend310P];

/// `a + b` rounded to `half` (exact in f64, then one rounding).
fn h_add(a: f16, b: f16) -> f16 {
    f16::from_f64(a.to_f64() + b.to_f64())
}

/// `a * b` rounded to `half` (exact in f64, then one rounding).
fn h_mul(a: f16, b: f16) -> f16 {
    f16::from_f64(a.to_f64() * b.to_f64())
}

/// The vendor's per-channel steps for `[k, n]`: `Cast`, `Add(offset[j])`, `Mul(scale[j])`.
fn r_per_channel(x: &[i8], off: &[f16], sc: &[f16], n: usize) -> Vec<f16> {
    x.iter()
        .enumerate()
        .map(|(i, &v)| h_mul(h_add(f16::from_f32(f32::from(v)), off[i % n]), sc[i % n]))
        .collect()
}

/// The vendor's per-tensor steps: `Cast`, `Adds(offset)` (when given), `Muls(scale)`.
fn r_per_tensor(x: &[i8], off: Option<f16>, sc: f16) -> Vec<f16> {
    x.iter()
        .map(|&v| {
            let c = f16::from_f32(f32::from(v));
            h_mul(off.map_or(c, |o| h_add(c, o)), sc)
        })
        .collect()
}

/// Random `half` values in `[-10, 10)` with 3 decimals.
fn halves(rng: &mut Rng, n: usize) -> Vec<f16> {
    (0..n).map(|_| f16::from_f32(rng.below(20_000) as f32 / 1000.0 - 10.0)).collect()
}

/// Random `int8_t` over the whole range.
fn int8s(rng: &mut Rng, n: usize) -> Vec<i8> {
    (0..n).map(|_| rng.below(256) as u8 as i8).collect()
}

/// The Unified Buffer of one call: `src` (`len` int8), `dst` (`len` half, plus 16 guard
/// elements), `offset` and `scale` (`n` half each), a scratch of `tmp` bytes.
struct Io {
    src: LocalTensor<i8>,
    dst: LocalTensor<f16>,
    guard: LocalTensor<f16>,
    off: LocalTensor<f16>,
    sc: LocalTensor<f16>,
    tmp: LocalTensor<u8>,
    _u: util::Ub,
}

fn io(len: usize, n: usize, tmp: usize) -> Io {
    let a = |b: usize| b.next_multiple_of(32);
    let (s0, d0) = (0, a(len));
    let g0 = d0 + len * 2;
    let o0 = a(g0 + 32);
    let c0 = o0 + a(n * 2);
    let t0 = c0 + a(n * 2);
    let u = ub(t0 + a(tmp).max(32));
    let t = u.t::<u8>(t0, tmp);
    t.copy_from_slice(&vec![SENTINEL; tmp]);
    Io {
        src: u.t(s0, len),
        dst: u.t(d0, len),
        guard: u.t(g0, 16),
        off: u.t(o0, n),
        sc: u.t(c0, n),
        tmp: t,
        _u: u,
    }
}

/// Checks what every call leaves: the guard after `dst`, the scratch, `src` and the mask.
fn check_after(io: &Io, xs: &[i8], ctx: &str) {
    assert_bits_ctx(&io.guard.to_vec(), &[f16::from_f32(-1.0); 16], format!("guard after dst; {ctx}"));
    assert!(io.tmp.to_vec().iter().all(|&b| b == SENTINEL), "the scratch is untouched; {ctx}");
    assert_eq!(io.src.to_vec(), xs, "src is never written; {ctx}");
    assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
    assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{ctx}");
}

/// Runs the per-channel form on `soc` for a `[k, n]` source (the stack form when `tmp` is
/// `None`) and checks it bit for bit.
fn check_per_channel(soc: Soc, k: usize, n: usize, tmp: Option<usize>, seed: u64) {
    on(soc, || {
        let mut rng = Rng(seed);
        let io = io(k * n, n, tmp.unwrap_or(0));
        let (xs, os, ss) = (int8s(&mut rng, k * n), halves(&mut rng, n), halves(&mut rng, n));
        io.src.copy_from_slice(&xs);
        io.off.copy_from_slice(&os);
        io.sc.copy_from_slice(&ss);
        io.dst.copy_from_slice(&vec![f16::from_f32(-1.0); k * n]);
        io.guard.copy_from_slice(&[f16::from_f32(-1.0); 16]);
        set_mask_count();
        set_vector_mask::<f16>(3u64);
        let info = AntiQuantShapeInfo::default();
        match tmp {
            Some(_) => ascend_anti_quant::<_, _, false>(&io.dst, &io.src, &io.off, &io.sc, &io.tmp, k, &info),
            None => ascend_anti_quant_stack::<_, _, false>(&io.dst, &io.src, &io.off, &io.sc, k, &info),
        }
        let ctx = format!("{soc}, per channel [{k}, {n}], tmp {tmp:?}");
        assert_bits_ctx(&io.dst.to_vec(), &r_per_channel(&xs, &os, &ss, n), &ctx);
        check_after(&io, &xs, &ctx);
    });
}

#[test]
fn per_channel_matches_the_vendor_steps() {
    let shapes = [
        (1, 16),
        (2, 32),
        (8, 128),
        (3, 144),
        (5, 256),
        (4, 304),
        (7, 400),
        (256, 16),
        (300, 48),
        (520, 48),
        (20, 1040),
    ];
    for soc in CHIPS {
        for (i, &(k, n)) in shapes.iter().enumerate() {
            check_per_channel(soc, k, n, Some(32), i as u64);
        }
        check_per_channel(soc, 9, 272, None, 99);
        check_per_channel(soc, 256, 128, None, 98);
    }
}

#[test]
fn per_channel_extremes() {
    // Overflow to infinity and the int8 range's ends.
    on(Soc::Ascend910B, || {
        let (k, n) = (2, 16);
        let io = io(k * n, n, 32);
        let xs: Vec<i8> = (0..32).map(|i| if i % 2 == 0 { 127 } else { -128 }).collect();
        io.src.copy_from_slice(&xs);
        io.off.copy_from_slice(&[f16::from_f32(0.0); 16]);
        io.sc.copy_from_slice(&[f16::MAX; 16]);
        io.guard.copy_from_slice(&[f16::from_f32(-1.0); 16]);
        ascend_anti_quant::<_, _, false>(
            &io.dst,
            &io.src,
            &io.off,
            &io.sc,
            &io.tmp,
            k,
            &AntiQuantShapeInfo::default(),
        );
        let got = io.dst.to_vec();
        assert_eq!(got[0], f16::INFINITY);
        assert_eq!(got[1], f16::NEG_INFINITY);
        check_after(&io, &xs, "extremes");
    });
}

/// Runs a per-tensor form on `soc` (`form`: 0 with scratch, 1 stack, 2 without offset).
fn check_per_tensor<const T: bool>(soc: Soc, len: usize, form: u8, seed: u64) {
    on(soc, || {
        let mut rng = Rng(seed);
        let io = io(len, 16, 64);
        let xs = int8s(&mut rng, len);
        let hs = halves(&mut rng, 2);
        let (o, s) = (hs[0], hs[1]);
        io.src.copy_from_slice(&xs);
        io.dst.copy_from_slice(&vec![f16::from_f32(-1.0); len]);
        io.guard.copy_from_slice(&[f16::from_f32(-1.0); 16]);
        set_mask_count();
        set_vector_mask::<f16>(5u64);
        let info = AntiQuantShapeInfo { offset_height: 3, ..Default::default() };
        let want = match form {
            0 => {
                ascend_anti_quant_per_tensor::<_, _, T>(&io.dst, &io.src, o, s, &io.tmp, 32, &info);
                r_per_tensor(&xs, Some(o), s)
            }
            1 => {
                ascend_anti_quant_per_tensor_stack::<_, _, T>(&io.dst, &io.src, o, s, 64, &info);
                r_per_tensor(&xs, Some(o), s)
            }
            _ => {
                ascend_anti_quant_per_tensor_no_offset::<_, _, T>(&io.dst, &io.src, s, &io.tmp, 96, &info);
                r_per_tensor(&xs, None, s)
            }
        };
        let ctx = format!("{soc}, per tensor {len}, transpose {T}, form {form}");
        assert_bits_ctx(&io.dst.to_vec(), &want, &ctx);
        check_after(&io, &xs, &ctx);
    });
}

#[test]
fn per_tensor_matches_the_vendor_steps() {
    for soc in CHIPS {
        for (i, len) in [32, 64, 160, 1024, 4000].into_iter().enumerate() {
            for form in 0..3 {
                check_per_tensor::<false>(soc, len, form, i as u64 * 7 + u64::from(form));
                check_per_tensor::<true>(soc, len, form, i as u64 * 11 + u64::from(form));
            }
        }
    }
}

#[test]
fn host_sizes() {
    let mm = get_ascend_anti_quant_max_min_tmp_size;
    let fs = get_ascend_anti_quant_tmp_buffer_factor_size;
    for t in [false, true] {
        assert_eq!(mm(&[64, 128], &[1, 128], t, DType::I8, DType::F16), (0, 0));
        assert_eq!(fs(&[64, 128], &[1, 128], t, DType::I8, DType::F16), (0, 0));
        assert_eq!(mm(&[64, 128], &[1], t, DType::I8, DType::BF16), (64 * 128 * 4, 1024));
        assert_eq!(fs(&[64, 128], &[1], t, DType::I8, DType::BF16), (1, 0));
    }
    let b = 128 * 2 * 4 + 64 * 64 * 4;
    assert_eq!(mm(&[64, 128], &[1, 128], false, DType::I8, DType::BF16), (b, b));
    assert_eq!(fs(&[64, 128], &[1, 128], false, DType::I8, DType::BF16), (0, b));
    let b = 80 * 64 * 4;
    assert_eq!(mm(&[64, 128], &[64], true, DType::I8, DType::BF16), (b, b));
    assert_eq!(fs(&[64, 128], &[64], true, DType::I8, DType::BF16), (0, b));
    // The example's 1-D shapes (the transposed check is the only reader of srcShape[1]).
    assert_eq!(mm(&[1024], &[128], false, DType::I8, DType::F16), (0, 0));
    // The vendor's transposed check multiplies K by DT_INT8's enum value, 2: K = 16 passes.
    assert_eq!(mm(&[4, 16], &[4], true, DType::I8, DType::F16), (0, 0));
    let api = "GetAscendAntiQuantMaxMinTmpSize: ";
    expect_panic(
        || {
            mm(&[4, 0], &[4], false, DType::I8, DType::F16);
        },
        &[api, "the source shape has no elements"],
    );
    expect_panic(
        || {
            mm(&[4, 8], &[4], true, DType::I8, DType::F16);
        },
        &[api, "K = 8: the vendor's test DT_INT8 (2) * K = 16 is not a multiple of 32"],
    );
    expect_panic(
        || {
            mm(&[64], &[4], true, DType::I8, DType::F16);
        },
        &[api, "isTranspose is true and srcShape has 1 dimension(s); it must be [N, K]"],
    );
    expect_panic(
        || {
            mm(&[64], &[4], false, DType::I16, DType::F16);
        },
        &[api, "inputDataType = I16 is unsupported"],
    );
    expect_panic(
        || {
            mm(&[64], &[4], false, DType::I8, DType::F32);
        },
        &[api, "outputDataType = F32 is unsupported"],
    );
    expect_panic(
        || {
            fs(&[], &[4], false, DType::I8, DType::BF16);
        },
        &["GetAscendAntiQuantTmpBufferFactorSize: srcShape has no dimensions"],
    );
}

#[test]
fn reports_each_broken_constraint() {
    let info = AntiQuantShapeInfo::default();
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        expect_panic(
            || {
                on(soc, || {
                    let io = io(64, 32, 32);
                    ascend_anti_quant::<_, _, false>(&io.dst, &io.src, &io.off, &io.sc, &io.tmp, 2, &info);
                })
            },
            &[&format!("AscendAntiQuant: AscendAntiQuant has no implementation on {soc}")],
        );
    }
    let run = |len: usize, n: usize, f: &dyn Fn(&Io)| {
        on(Soc::Ascend910B, || {
            let io = io(len, n, 32);
            f(&io)
        })
    };
    let api = "AscendAntiQuant: ";
    expect_panic(
        || {
            run(64, 32, &|io| {
                ascend_anti_quant::<_, _, true>(&io.dst, &io.src, &io.off, &io.sc, &io.tmp, 32, &info)
            })
        },
        &[api, "the per-channel form with isTranspose = true", "is not emulated"],
    );
    expect_panic(
        || {
            run(64, 32, &|io| {
                ascend_anti_quant::<_, _, false>(&io.dst, &io.src, &io.off, &io.sc, &io.tmp, 0, &info)
            })
        },
        &[api, "k = 0 does not divide src's 64 elements"],
    );
    expect_panic(
        || {
            run(64, 32, &|io| {
                ascend_anti_quant::<_, _, false>(&io.dst, &io.src, &io.off, &io.sc, &io.tmp, 3, &info)
            })
        },
        &[api, "k = 3 does not divide src's 64 elements"],
    );
    expect_panic(
        || {
            run(64, 16, &|io| {
                ascend_anti_quant::<_, _, false>(&io.dst, &io.src, &io.off, &io.sc, &io.tmp, 2, &info)
            })
        },
        &[api, "offset holds 16 half elements, fewer than N = 32 (src's 64 / k = 2)"],
    );
    expect_panic(
        || {
            run(64, 32, &|io| {
                ascend_anti_quant::<_, _, false>(
                    &io.dst,
                    &io.src,
                    &io.off,
                    &io.sc.view_len(0, 8),
                    &io.tmp,
                    2,
                    &info,
                )
            })
        },
        &[api, "scale holds 8 half elements, fewer than N = 32"],
    );
    expect_panic(
        || {
            run(64, 32, &|io| {
                ascend_anti_quant::<_, _, false>(&io.dst, &io.src, &io.off, &io.sc, &io.tmp, 8, &info)
            })
        },
        &[api, "N = 8 half elements per row are 16 bytes; they must be a multiple of 32"],
    );
    expect_panic(
        || {
            run(4096, 4096, &|io| {
                ascend_anti_quant::<_, _, false>(&io.dst, &io.src, &io.off, &io.sc, &io.tmp, 1, &info)
            })
        },
        &[api, "N = 4096 gives a row stride of 256 blocks, beyond the 255"],
    );
    expect_panic(
        || {
            run(64, 32, &|io| {
                ascend_anti_quant::<_, _, false>(
                    &io.dst.view_len(0, 32),
                    &io.src,
                    &io.off,
                    &io.sc,
                    &io.tmp,
                    2,
                    &info,
                )
            })
        },
        &[api, "dst holds 32 half elements, fewer than src's 64"],
    );
    expect_panic(
        || {
            run(64, 32, &|io| {
                ascend_anti_quant_per_tensor::<_, _, true>(
                    &io.dst,
                    &io.src,
                    f16::ONE,
                    f16::ONE,
                    &io.tmp,
                    48,
                    &info,
                )
            })
        },
        &[api, "isTranspose is true and K * sizeof(int8_t) = 48 bytes; it must be a multiple of 32"],
    );
    // Overlaps: dst over src, the scratch over src and over dst.
    on(Soc::Ascend310P, || {
        let u = ub(1024);
        let (s, d, t) = (u.t::<i8>(0, 64), u.t::<f16>(64, 64), u.t::<u8>(512, 64));
        expect_panic(
            || {
                ascend_anti_quant_per_tensor::<_, _, false>(
                    &u.t::<f16>(32, 64),
                    &s,
                    f16::ONE,
                    f16::ONE,
                    &t,
                    1,
                    &info,
                )
            },
            &[api, "dst UB bytes [0x20, 0xa0) overlap src UB bytes [0x0, 0x40)"],
        );
        expect_panic(
            || {
                ascend_anti_quant_per_tensor::<_, _, false>(
                    &d,
                    &s,
                    f16::ONE,
                    f16::ONE,
                    &u.t::<u8>(0, 32),
                    1,
                    &info,
                )
            },
            &[api, "sharedTmpBuffer UB bytes [0x0, 0x20) overlap src UB bytes [0x0, 0x40)"],
        );
        expect_panic(
            || {
                ascend_anti_quant_per_tensor_no_offset::<_, _, false>(
                    &d,
                    &s,
                    f16::ONE,
                    &u.t::<u8>(128, 32),
                    1,
                    &info,
                )
            },
            &[api, "sharedTmpBuffer UB bytes [0x80, 0xa0) overlap dst UB bytes [0x40, 0xc0)"],
        );
    });
    // Positions.
    on(Soc::Ascend910B, || {
        let mut pipe = TPipe::new();
        let (mut v, mut l1) = (TBuf::<VecCalc>::new(), TBuf::<A1>::new());
        pipe.init_tbuf(&mut v, 1024);
        pipe.init_tbuf(&mut l1, 1024);
        let (s, d, o, t) = (
            v.get_with_offset::<i8>(32, 0),
            v.get_with_offset::<f16>(32, 64),
            v.get_with_offset::<f16>(16, 128),
            v.get_with_offset::<u8>(32, 256),
        );
        let (far_s, far_d, far_t) = (l1.get_with_len::<i8>(32), l1.get_with_len::<f16>(32), l1.get::<u8>());
        let one = f16::ONE;
        expect_panic(
            || ascend_anti_quant_per_tensor::<_, _, false>(&far_d, &s, one, one, &t, 1, &info),
            &[api, "dst is at position A1"],
        );
        expect_panic(
            || ascend_anti_quant_per_tensor::<_, _, false>(&d, &far_s, one, one, &t, 1, &info),
            &[api, "src is at position A1"],
        );
        expect_panic(
            || ascend_anti_quant_per_tensor::<_, _, false>(&d, &s, one, one, &far_t, 1, &info),
            &[api, "sharedTmpBuffer is at position A1"],
        );
        let far_o = l1.get_with_len::<f16>(16);
        expect_panic(
            || ascend_anti_quant::<_, _, false>(&d, &s, &far_o, &o, &t, 2, &info),
            &[api, "offset is at position A1"],
        );
        expect_panic(
            || ascend_anti_quant::<_, _, false>(&d, &s, &o, &far_o, &t, 2, &info),
            &[api, "scale is at position A1"],
        );
    });
    // The stack forms need a pipe with room after its buffers.
    expect_panic(
        || {
            on(Soc::Ascend310P, || {
                let mut pipe = TPipe::new();
                let mut b = TBuf::<VecCalc>::new();
                pipe.init_tbuf(&mut b, Soc::Ascend310P.ub_size());
                let (s, d) = (b.get::<i8>().view_len(0, 32), b.get::<f16>().view_len(32, 32));
                ascend_anti_quant_per_tensor_stack::<_, _, false>(&d, &s, f16::ONE, f16::ONE, 1, &info);
            })
        },
        &[api, "no space left in the Unified Buffer for the stack buffer"],
    );
}

/// Runs the per-channel form without offset on `soc` for a `[k, n]` source with `g` groups.
fn check_no_offset(soc: Soc, k: usize, n: usize, g: usize, seed: u64) {
    on(soc, || {
        let mut rng = Rng(seed);
        let io = io(k * n, g * n, 32);
        let (xs, ss) = (int8s(&mut rng, k * n), halves(&mut rng, g * n));
        io.src.copy_from_slice(&xs);
        io.sc.copy_from_slice(&ss);
        io.dst.copy_from_slice(&vec![f16::from_f32(-1.0); k * n]);
        io.guard.copy_from_slice(&[f16::from_f32(-1.0); 16]);
        set_mask_count();
        set_vector_mask::<f16>(3u64);
        let info = AntiQuantShapeInfo { scale_height: g as u32, scale_width: n as u32, ..Default::default() };
        ascend_anti_quant_no_offset::<_, _, false>(&io.dst, &io.src, &io.sc, &io.tmp, k, &info);
        let group = k / g;
        let want: Vec<f16> = xs
            .iter()
            .enumerate()
            .map(|(i, &x)| h_mul(f16::from_f32(f32::from(x)), ss[(i / n / group) * n + i % n]))
            .collect();
        let ctx = format!("{soc}, no offset [{k}, {n}], {g} groups");
        assert_bits_ctx(&io.dst.to_vec(), &want, &ctx);
        check_after(&io, &xs, &ctx);
    });
}

#[test]
fn per_channel_without_offset_matches_the_vendor_steps() {
    for soc in CHIPS {
        for (i, &(k, n, g)) in
            [(1, 32, 1), (4, 32, 2), (6, 96, 3), (8, 160, 1), (300, 64, 4), (9, 288, 9)].iter().enumerate()
        {
            check_no_offset(soc, k, n, g, 40 + i as u64);
        }
    }
}

#[test]
fn per_channel_without_offset_reports_each_broken_constraint() {
    let api = "AscendAntiQuant: ";
    let run = |len: usize, n: usize, info: AntiQuantShapeInfo, k: usize, transpose: bool| {
        on(Soc::Ascend310P, || {
            let io = io(len, n, 32);
            if transpose {
                ascend_anti_quant_no_offset::<_, _, true>(&io.dst, &io.src, &io.sc, &io.tmp, k, &info)
            } else {
                ascend_anti_quant_no_offset::<_, _, false>(&io.dst, &io.src, &io.sc, &io.tmp, k, &info)
            }
        })
    };
    let i = |h: u32, w: u32| AntiQuantShapeInfo { scale_height: h, scale_width: w, ..Default::default() };
    expect_panic(
        || run(64, 32, i(1, 32), 32, true),
        &[api, "without offset with isTranspose = true", "not emulated"],
    );
    expect_panic(
        || run(64, 32, AntiQuantShapeInfo::default(), 2, false),
        &[api, "shapeInfo.scaleHeight = 0 and scaleWidth = 0; both must be set"],
    );
    expect_panic(
        || run(64, 32, i(2, 32), 3, false),
        &[api, "k = 3 is not a non-zero multiple of shapeInfo.scaleHeight = 2"],
    );
    expect_panic(
        || run(64, 32, i(1, 32), 4, false),
        &[api, "src holds 64 elements, fewer than K · N = 4 · 32"],
    );
    expect_panic(
        || run(64, 32, i(2, 32), 2, false),
        &[api, "scale holds 32 half elements, fewer than G · N = 2 · 32"],
    );
}
