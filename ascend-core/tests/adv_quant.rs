//! The advanced API's quantization (`adv/quant.rs`): per-tensor `AscendQuant` against a slow
//! scalar reference that restates the vendor's steps one element at a time with the
//! instructions' roundings — `float` narrowed to `half`, `Muls(half(scale))` and
//! `Adds(half(offset))` each rounded to `half`, then `Cast<int8_t, half>` (`CAST_NONE`: to
//! nearest, ties to even, saturated). Both chips with the implementation (Ascend910B,
//! Ascend310P), `half` and `float`, both forms, counts with tails, scratch sizes that force many
//! rounds; then the scratch and mask state afterwards, `dst` sharing `src`'s memory, the host
//! tiling and every error.

use ascend_core::prelude::*;

use crate::common::util;
use util::{expect_panic, on, ub, Rng, SENTINEL};

const CHIPS: [Soc; 2] = [Soc::Ascend910B, Soc::Ascend310P];

/// The source types, with their narrowing to `half`.
trait Src: AscendQuantElement + Copy + std::fmt::Debug {
    fn of(x: f32) -> Self;
    fn half(self) -> f16;
}

impl Src for f16 {
    fn of(x: f32) -> f16 {
        f16::from_f32(x)
    }
    fn half(self) -> f16 {
        self
    }
}

impl Src for f32 {
    fn of(x: f32) -> f32 {
        x
    }
    fn half(self) -> f16 {
        f16::from_f32(self)
    }
}

/// `Cast<int8_t, half>` with `CAST_NONE`: to nearest, ties to even, saturated (NaN → 0).
fn r_int8(x: f16) -> i8 {
    let v = x.to_f64();
    if v.is_nan() {
        return 0;
    }
    v.round_ties_even().clamp(-128.0, 127.0) as i8
}

/// The vendor's per-tensor steps for one element: the `half` value left in the scratch and the
/// result.
fn r_quant<T: Src>(x: T, scale: f32, offset: f32) -> (f16, i8) {
    let (s, o) = (f16::from_f32(scale), f16::from_f32(offset));
    let m = f16::from_f64(x.half().to_f64() * s.to_f64());
    let a = f16::from_f64(m.to_f64() + o.to_f64());
    (a, r_int8(a))
}

/// Runs per-tensor `AscendQuant` on `soc` over `count` random elements in `[-80, 80]` with a
/// scratch of `tmp_bytes` (the stack buffer when `None`); checks `dst` bit for bit, the bytes
/// past `count` untouched, `src` unchanged, the scratch (the last round's `half` values, the
/// rest untouched) and the mask state afterwards.
fn check<T: Src>(soc: Soc, count: usize, tmp_bytes: Option<usize>, scale: f32, offset: f32, seed: u64) {
    on(soc, || {
        let mut rng = Rng(seed);
        let len = count.next_multiple_of(32) + 32;
        let (sbytes, dbytes) = (len * T::SIZE, len);
        let tmp_len = tmp_bytes.unwrap_or(0);
        let u = ub(sbytes + dbytes + tmp_len.next_multiple_of(32).max(32));
        let (src, dst) = (u.t::<T>(0, len), u.t::<i8>(sbytes, len));
        let tmp = u.t::<u8>(sbytes + dbytes, tmp_len);
        tmp.copy_from_slice(&vec![SENTINEL; tmp_len]);
        let xs: Vec<T> = (0..len).map(|_| T::of(rng.below(160_001) as f32 / 1000.0 - 80.0)).collect();
        src.copy_from_slice(&xs);
        dst.copy_from_slice(&vec![0x5A; len]);
        // A stale mode and mask, which the call must leave reset.
        set_mask_count();
        set_vector_mask::<T>(3u64);
        match tmp_bytes {
            Some(_) => ascend_quant::<T, false>(&dst, &src, &tmp, scale, offset, count),
            None => ascend_quant_stack::<T, false>(&dst, &src, scale, offset, count),
        }
        let ctx =
            format!("{soc}, {} count {count}, tmp {tmp_bytes:?}, scale {scale}, offset {offset}", T::DTYPE);
        let got = dst.to_vec();
        for i in 0..len {
            let want = if i < count { r_quant(xs[i], scale, offset).1 } else { 0x5A };
            assert_eq!(got[i], want, "element {i} (x = {:?}); {ctx}", xs[i]);
        }
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
        assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{ctx}");
        assert_eq!(
            src.to_vec().iter().map(|x| x.to_bits_u64()).collect::<Vec<_>>(),
            xs.iter().map(|x| x.to_bits_u64()).collect::<Vec<_>>(),
            "src is never written; {ctx}"
        );
        if let Some(bytes) = tmp_bytes {
            // Each round leaves its `half` values at the scratch's start; the rest is untouched.
            let split = bytes / 2 / 32 * 32;
            let mut want = vec![SENTINEL; bytes];
            for start in (0..count).step_by(split) {
                for i in start..count.min(start + split) {
                    let h = r_quant(xs[i], scale, offset).0.to_bits().to_le_bytes();
                    want[2 * (i - start)..2 * (i - start) + 2].copy_from_slice(&h);
                }
            }
            assert_eq!(tmp.to_vec(), want, "scratch; {ctx}");
        }
    });
}

#[test]
fn ascend_quant_matches_the_reference_on_both_chips_types_and_forms() {
    let mut rng = Rng(31);
    for soc in CHIPS {
        for case in 0..10 {
            let count = 1 + rng.index(3000);
            // From one split of 32 (many rounds and a tail) to more than needed.
            let tmp = 64 * (1 + rng.index(if case % 2 == 0 { 4 } else { 120 }))
                + if case % 3 == 0 { 30 } else { 0 };
            let scale = (rng.below(4000) as f32 - 2000.0) / 512.0;
            let offset = (rng.below(2000) as f32 - 1000.0) / 97.0;
            check::<f32>(soc, count, Some(tmp), scale, offset, rng.next());
            check::<f16>(soc, count, Some(tmp), scale, offset, rng.next());
        }
        check::<f32>(soc, 2000, None, 1.7, -0.3, 5);
        check::<f16>(soc, 4000, None, 0.35, 2.2, 6);
    }
}

#[test]
fn rounds_ties_to_even_saturates_and_rounds_the_parameters_to_half() {
    on(Soc::Ascend910B, || {
        let u = ub(1024);
        let (src, dst, tmp) = (u.t::<f32>(0, 64), u.t::<i8>(256, 64), u.t::<u8>(512, 512));
        let xs = [0.25f32, 0.75, 1.25, -0.25, -1.25, 1000.0, -1000.0, 0.5];
        let mut v = vec![0.0f32; 64];
        v[..8].copy_from_slice(&xs);
        src.copy_from_slice(&v);
        ascend_quant::<_, false>(&dst, &src, &tmp, 2.0, 0.0, 64);
        assert_eq!(dst.to_vec()[..8], [0, 2, 2, 0, -2, 127, -128, 1]);
        // 0.1 in half is 0.0999755859375: 10 * it rounds to 0.99951171875 in half, and 1.
        ascend_quant::<_, false>(&dst, &src, &tmp, 0.1, 0.0, 64);
        let h = tmp.reinterpret_cast::<f16>();
        assert_eq!(h.get_value(0), f16::from_f32(0.25) * f16::from_f32(0.1));
        // The f32 source is narrowed to half first: 1.0001 is 1.0 in half.
        src.set_value(0, 1.0001);
        ascend_quant::<_, false>(&dst, &src, &tmp, 2.5, 0.0, 64);
        assert_eq!(dst.get_value(0), 2); // 2.5, ties to even
    });
}

#[test]
fn dst_may_share_the_sources_memory() {
    for soc in CHIPS {
        on(soc, || {
            let u = ub(1024);
            let src = u.t::<f16>(0, 128);
            let xs: Vec<f16> = (0..128).map(|i| f16::from_f32(i as f32 / 3.0 - 20.0)).collect();
            src.copy_from_slice(&xs);
            let dst = u.t::<i8>(0, 128);
            ascend_quant::<_, false>(&dst, &src, &u.t::<u8>(512, 256), 1.5, 0.5, 128);
            // Each round reads its 128 halves before its cast writes its first 128 bytes.
            let want: Vec<i8> = xs.iter().map(|&x| r_quant(x, 1.5, 0.5).1).collect();
            assert_eq!(dst.to_vec(), want);
        });
    }
}

#[test]
fn ascend_quant_reports_each_broken_constraint() {
    for (soc, needle) in [
        (Soc::Ascend310B, "AscendQuant: AscendQuant has no implementation on Ascend310B"),
        (Soc::Ascend910, "AscendQuant: AscendQuant on Ascend910 (the vendor's ascend_quant_v100_impl.h"),
    ] {
        expect_panic(
            || {
                on(soc, || {
                    let u = ub(1024);
                    ascend_quant::<_, false>(
                        &u.t::<i8>(0, 32),
                        &u.t::<f32>(32, 32),
                        &u.t::<u8>(512, 256),
                        1.0,
                        0.0,
                        32,
                    );
                })
            },
            &[needle],
        );
    }
    let run = |f: &dyn Fn(&util::Ub)| {
        on(Soc::Ascend910B, || {
            let u = ub(1024);
            f(&u)
        })
    };
    expect_panic(
        || run(&|u| ascend_quant::<f32, false>(&u.t(0, 16), &u.t(32, 32), &u.t(512, 256), 1.0, 0.0, 32)),
        &["AscendQuant: calCount = 32 exceeds dstTensor's 16 int8_t elements"],
    );
    expect_panic(
        || run(&|u| ascend_quant::<f16, false>(&u.t(0, 64), &u.t(64, 32), &u.t(512, 256), 1.0, 0.0, 64)),
        &["AscendQuant: calCount = 64 exceeds srcTensor's 32 half elements"],
    );
    expect_panic(
        || run(&|u| ascend_quant::<f16, false>(&u.t(0, 32), &u.t(64, 32), &u.t(512, 62), 1.0, 0.0, 32)),
        &[
            "AscendQuant: sharedTmpBuffer has 62 bytes; it must hold at least 64",
            "GetAscendQuantMaxMinTmpSize",
        ],
    );
    expect_panic(
        || run(&|u| ascend_quant::<f16, false>(&u.t(0, 32), &u.t(64, 32), &u.t(96, 256), 1.0, 0.0, 32)),
        &["AscendQuant: sharedTmpBuffer UB bytes [0x60, 0x160) overlap src UB bytes [0x40, 0x80)"],
    );
    expect_panic(
        || run(&|u| ascend_quant::<f16, false>(&u.t(0, 32), &u.t(64, 32), &u.t(0, 64), 1.0, 0.0, 32)),
        &["AscendQuant: sharedTmpBuffer UB bytes [0x0, 0x40) overlap dst UB bytes [0x0, 0x20)"],
    );
    on(Soc::Ascend910B, || {
        let mut pipe = TPipe::new();
        let (mut v, mut l1) = (TBuf::<VecCalc>::new(), TBuf::<A1>::new());
        pipe.init_tbuf(&mut v, 1024);
        pipe.init_tbuf(&mut l1, 1024);
        let (s, d, t) = (
            v.get_with_offset::<f16>(32, 0),
            v.get_with_offset::<i8>(32, 64),
            v.get_with_offset::<u8>(256, 256),
        );
        let (far_s, far_d, far_t) = (l1.get_with_len::<f16>(32), l1.get_with_len::<i8>(32), l1.get::<u8>());
        expect_panic(
            || ascend_quant::<_, false>(&far_d, &s, &t, 1.0, 0.0, 32),
            &["AscendQuant: dstTensor is at position A1"],
        );
        expect_panic(
            || ascend_quant::<_, false>(&d, &far_s, &t, 1.0, 0.0, 32),
            &["AscendQuant: srcTensor is at position A1"],
        );
        expect_panic(
            || ascend_quant::<_, false>(&d, &s, &far_t, 1.0, 0.0, 32),
            &["AscendQuant: sharedTmpBuffer is at position A1"],
        );
    });
    // The stack form needs a pipe with room after its buffers.
    expect_panic(
        || {
            on(Soc::Ascend310P, || {
                let mut pipe = TPipe::new();
                let mut b = TBuf::<VecCalc>::new();
                pipe.init_tbuf(&mut b, Soc::Ascend310P.ub_size());
                ascend_quant_stack::<_, false>(
                    &b.get::<i8>().view_len(0, 32),
                    &b.get::<f16>().view_len(32, 32),
                    1.0,
                    0.0,
                    32,
                );
            })
        },
        &["AscendQuant: no space left in the Unified Buffer for the stack buffer"],
    );
}

#[test]
fn the_host_tiling_gives_the_vendors_sizes() {
    // The vendor's tiling test: 512 halves.
    assert_eq!(get_ascend_quant_max_min_tmp_size(512, 2), (1024, 512));
    assert_eq!(get_ascend_quant_max_min_tmp_size(1024, 4), (2048, 512));
    assert_eq!(get_ascend_quant_max_min_tmp_size(8, 4), (512, 512));
    assert_eq!(get_ascend_quant_max_min_tmp_size(272, 2), (544, 512));
    assert_eq!(get_ascend_quant_tmp_buffer_factor_size(), (2, 0));
    expect_panic(
        || {
            get_ascend_quant_max_min_tmp_size(0, 4);
        },
        &["GetAscendQuantMaxMinTmpSize: the source shape has no elements"],
    );
    expect_panic(
        || {
            get_ascend_quant_max_min_tmp_size(16, 1);
        },
        &["GetAscendQuantMaxMinTmpSize: typeSize = 1 is unsupported; it must be 2 or 4"],
    );
    expect_panic(
        || {
            get_ascend_quant_max_min_tmp_size(12, 2);
        },
        &["GetAscendQuantMaxMinTmpSize: the source shape's 12 elements of 2 bytes are 24 bytes, not 32-byte aligned"],
    );
    // The minimum is enough: one round of 256 elements.
    for soc in CHIPS {
        let (_, min) = get_ascend_quant_max_min_tmp_size(1024, 4);
        check::<f32>(soc, 1024, Some(min), 2.0, 0.9, 7);
    }
}

/// Runs per-channel `AscendQuant` (`T`) on `soc`: `rows` rows of `scale_count` random
/// elements, random scales and offsets (a tensor of them, or the scalar `offsets[0]`), a
/// scratch of `tmp_bytes` (the stack buffer when `None`); checks `dst` bit for bit against the
/// vendor's steps (for `float` the narrowing of the source, the scales and offsets to `half`;
/// `Mul`, `Adds`/`Add`, `Cast`, each rounded), the bytes past the count untouched, the scratch
/// (each round's `half` values at its start), the mask state, and the scale and offset tensors
/// afterwards (untouched for `half`, their first `scale_count` elements narrowed in place for
/// `float`).
fn check_channel<T: Src + AscendQuantPerChannelElement>(
    soc: Soc,
    scale_count: usize,
    rows: usize,
    tmp_bytes: Option<usize>,
    tensor_offset: bool,
    seed: u64,
) {
    on(soc, || {
        let mut rng = Rng(seed);
        let count = scale_count * rows;
        let len = count.next_multiple_of(32) + 32;
        let sc_len = scale_count.next_multiple_of(16);
        let tmp_len = tmp_bytes.unwrap_or(0);
        let (src_b, sc_b) = (len * T::SIZE, sc_len * T::SIZE);
        let u = ub(src_b + len + 2 * sc_b + tmp_len.next_multiple_of(32).max(32));
        let (src, dst) = (u.t::<T>(0, len), u.t::<i8>(src_b, len));
        let (scale, offset) = (u.t::<T>(src_b + len, sc_len), u.t::<T>(src_b + len + sc_b, sc_len));
        let tmp = u.t::<u8>(src_b + len + 2 * sc_b, tmp_len);
        tmp.copy_from_slice(&vec![SENTINEL; tmp_len]);
        let draw = |rng: &mut Rng, n: usize, span: f32| -> Vec<T> {
            (0..n).map(|_| T::of((rng.below(20_001) as f32 / 10_000.0 - 1.0) * span)).collect()
        };
        let (xs, ss, os) =
            (draw(&mut rng, len, 60.0), draw(&mut rng, sc_len, 4.0), draw(&mut rng, sc_len, 30.0));
        src.copy_from_slice(&xs);
        scale.copy_from_slice(&ss);
        offset.copy_from_slice(&os);
        dst.copy_from_slice(&vec![0x5A; len]);
        set_mask_count();
        set_vector_mask::<f16>(3u64);
        match (tmp_bytes, tensor_offset) {
            (Some(_), false) => {
                ascend_quant_per_channel::<_, false>(&dst, &src, &tmp, &scale, os[0], scale_count, count)
            }
            (None, false) => {
                ascend_quant_per_channel_stack::<_, false>(&dst, &src, &scale, os[0], scale_count, count)
            }
            (Some(_), true) => ascend_quant_per_channel_offset::<_, false>(
                &dst,
                &src,
                &tmp,
                &scale,
                &offset,
                scale_count,
                scale_count,
                count,
            ),
            (None, true) => ascend_quant_per_channel_offset_stack::<_, false>(
                &dst,
                &src,
                &scale,
                &offset,
                scale_count,
                scale_count,
                count,
            ),
        }
        let ctx = format!(
            "{} {soc}, scaleCount {scale_count} x {rows}, tmp {tmp_bytes:?}, offset tensor {tensor_offset}",
            T::DTYPE
        );
        let step = |i: usize| {
            let c = i % scale_count;
            let o = if tensor_offset { os[c] } else { os[0] };
            let m = f16::from_f64(xs[i].half().to_f64() * ss[c].half().to_f64());
            let a = f16::from_f64(m.to_f64() + o.half().to_f64());
            (a, r_int8(a))
        };
        for (i, got) in dst.to_vec().into_iter().enumerate() {
            let want = if i < count { step(i).1 } else { 0x5A };
            assert_eq!(got, want, "element {i}; {ctx}");
        }
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
        assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{ctx}");
        if let Some(bytes) = tmp_bytes {
            let split = bytes / 2 / 32 * 32;
            let mut want = vec![SENTINEL; bytes];
            for row in (0..count).step_by(scale_count) {
                for start in (0..scale_count).step_by(split) {
                    for j in start..scale_count.min(start + split) {
                        let h = step(row + j).0.to_bits().to_le_bytes();
                        want[2 * (j - start)..2 * (j - start) + 2].copy_from_slice(&h);
                    }
                }
            }
            assert_eq!(tmp.to_vec(), want, "scratch; {ctx}");
        }
        // The narrowed halves over the first scale_count * 2 bytes; the rest as it was.
        let after = |orig: &[T]| -> Vec<u8> {
            let mut b: Vec<u8> = bytemuck::cast_slice(orig).to_vec();
            if T::SIZE == 4 {
                for (c, v) in orig[..scale_count].iter().enumerate() {
                    b[2 * c..2 * c + 2].copy_from_slice(&v.half().to_bits().to_le_bytes());
                }
            }
            b
        };
        let bytes_of = |t: &LocalTensor<T>| t.reinterpret_cast::<u8>().to_vec();
        assert_eq!(bytes_of(&scale), after(&ss), "scaleTensor afterwards; {ctx}");
        let want_offset = if tensor_offset { after(&os) } else { bytemuck::cast_slice(&os).to_vec() };
        assert_eq!(bytes_of(&offset), want_offset, "offsetTensor afterwards; {ctx}");
    });
}

#[test]
fn per_channel_matches_the_reference_on_both_chips_types_offsets_and_forms() {
    let mut rng = Rng(47);
    for soc in CHIPS {
        for case in 0..8 {
            // Rows start 32-byte aligned in dst (int8_t): several rows take multiples of 32.
            let rows = 1 + rng.index(5);
            let scale_count = if rows == 1 { 1 + rng.index(700) } else { 32 * (1 + rng.index(22)) };
            let tmp =
                64 * (1 + rng.index(if case % 2 == 0 { 3 } else { 40 })) + if case % 3 == 0 { 20 } else { 0 };
            check_channel::<f16>(soc, scale_count, rows, Some(tmp), false, rng.next());
            check_channel::<f16>(soc, scale_count, rows, Some(tmp), true, rng.next());
            check_channel::<f32>(soc, scale_count, rows, Some(tmp), false, rng.next());
            check_channel::<f32>(soc, scale_count, rows, Some(tmp), true, rng.next());
        }
        check_channel::<f16>(soc, 512, 3, None, false, 8);
        check_channel::<f16>(soc, 96, 7, None, true, 9);
        check_channel::<f32>(soc, 512, 3, None, false, 10);
        check_channel::<f32>(soc, 96, 7, None, true, 11);
    }
}

#[test]
fn per_channel_reports_each_broken_constraint() {
    expect_panic(
        || {
            on(Soc::Ascend910, || {
                let u = ub(1024);
                let s = u.t::<f16>(64, 32);
                ascend_quant_per_channel::<_, false>(&u.t(0, 32), &s, &u.t(512, 256), &s, f16::ZERO, 32, 32);
            })
        },
        &[
            "AscendQuant: per-channel quantization is not supported on Ascend910",
            "does not support per channel",
        ],
    );
    let run = |f: &dyn Fn(&util::Ub)| {
        on(Soc::Ascend310P, || {
            let u = ub(2048);
            f(&u)
        })
    };
    let d = |u: &util::Ub| u.t::<i8>(0, 64);
    let s = |u: &util::Ub| u.t::<f16>(64, 64);
    let t = |u: &util::Ub| u.t::<u8>(1024, 256);
    let sc = |u: &util::Ub| u.t::<f16>(256, 32);
    let of = |u: &util::Ub| u.t::<f16>(512, 16);
    expect_panic(
        || run(&|u| ascend_quant_per_channel::<_, false>(&d(u), &s(u), &t(u), &sc(u), f16::ZERO, 48, 64)),
        &["AscendQuant: scaleCount = 48 exceeds scaleTensor's 32 half elements"],
    );
    expect_panic(
        || run(&|u| ascend_quant_per_channel::<_, false>(&d(u), &s(u), &t(u), &sc(u), f16::ZERO, 0, 64)),
        &["AscendQuant: scaleCount = 0; it must not be 0"],
    );
    expect_panic(
        || run(&|u| ascend_quant_per_channel::<_, false>(&d(u), &s(u), &t(u), &sc(u), f16::ZERO, 24, 64)),
        &["AscendQuant: calCount = 64 is not a non-zero multiple of scaleCount = 24"],
    );
    expect_panic(
        || run(&|u| ascend_quant_per_channel::<_, false>(&d(u), &s(u), &t(u), &sc(u), f16::ZERO, 32, 0)),
        &["AscendQuant: calCount = 0 is not a non-zero multiple of scaleCount = 32"],
    );
    expect_panic(
        || {
            run(&|u| {
                ascend_quant_per_channel_offset::<_, false>(&d(u), &s(u), &t(u), &sc(u), &of(u), 32, 32, 64)
            })
        },
        &["AscendQuant: offsetCount = 32 exceeds offsetTensor's 16 half elements"],
    );
    expect_panic(
        || {
            run(&|u| {
                ascend_quant_per_channel_offset::<_, false>(&d(u), &s(u), &t(u), &sc(u), &of(u), 32, 16, 64)
            })
        },
        &["AscendQuant: scaleCount = 32 differs from offsetCount = 16; they must be equal"],
    );
    expect_panic(
        || {
            run(&|u| {
                ascend_quant_per_channel::<_, false>(&d(u), &s(u), &u.t(1024, 40), &sc(u), f16::ZERO, 32, 64)
            })
        },
        &["AscendQuant: sharedTmpBuffer has 40 bytes; it must hold at least 64"],
    );
    on(Soc::Ascend910B, || {
        let mut pipe = TPipe::new();
        let (mut v, mut l1) = (TBuf::<VecCalc>::new(), TBuf::<A1>::new());
        pipe.init_tbuf(&mut v, 1024);
        pipe.init_tbuf(&mut l1, 1024);
        let (s, d, t) = (
            v.get_with_offset::<f16>(32, 0),
            v.get_with_offset::<i8>(32, 64),
            v.get_with_offset::<u8>(256, 256),
        );
        let far = l1.get_with_len::<f16>(32);
        expect_panic(
            || ascend_quant_per_channel::<_, false>(&d, &s, &t, &far, f16::ZERO, 32, 32),
            &["AscendQuant: scaleTensor is at position A1"],
        );
        expect_panic(
            || ascend_quant_per_channel_offset::<_, false>(&d, &s, &t, &s, &far, 32, 32, 32),
            &["AscendQuant: offsetTensor is at position A1"],
        );
    });
}

// ---- AscendDequant ---------------------------------------------------------------------------

/// The `(dst, deqScale)` pairs, with the reference's conversions.
trait Deq: AscendDequantElement<Self::S> + std::fmt::Debug + PartialEq {
    type S: Element;
    fn scale(f: f32) -> Self::S;
    /// The last step: `Adds(0)` for `float`, `Cast<half, float>` (`CAST_NONE`, to nearest even).
    fn out(v: f32) -> Self;
    fn sentinel() -> Self;
}

impl Deq for f32 {
    type S = f32;
    fn scale(f: f32) -> f32 {
        f
    }
    fn out(v: f32) -> f32 {
        v + 0.0
    }
    fn sentinel() -> f32 {
        -7.5
    }
}

impl Deq for f16 {
    type S = u64;
    fn scale(f: f32) -> u64 {
        // The high half is noise the GatherMask drops.
        0xDEAD_BEEF_0000_0000 | u64::from(f.to_bits())
    }
    fn out(v: f32) -> f16 {
        f16::from_f32(v)
    }
    fn sentinel() -> f16 {
        f16::from_f32(-7.5)
    }
}

/// The vendor's steps per element: the single-row rewrite, then for each row and column
/// `float(src)` (to nearest even), times the column's scale below `calCount`, converted;
/// padding columns untouched.
fn r_dequant<D: Deq>(
    src: &[i32],
    scales: &[f32],
    p: DequantParams,
    mode: DeQuantMode,
    dst_len: usize,
) -> Vec<D> {
    let block = 32 / D::SIZE;
    let mut p = p;
    if mode == DeQuantMode::DequantWithSingleRow
        && p.m == 1
        && p.cal_count % block == 0
        && p.n % p.cal_count == 0
    {
        p = DequantParams { m: p.n / p.cal_count, n: p.cal_count, cal_count: p.cal_count };
    }
    let inner = p.n.div_ceil(block) * block;
    let mut out: Vec<D> = (0..dst_len).map(|_| D::sentinel()).collect();
    for r in 0..p.m {
        for c in 0..p.n {
            let mut v = src[r * p.n + c] as f32;
            if c < p.cal_count {
                v *= scales[c];
            }
            out[r * inner + c] = D::out(v);
        }
    }
    out
}

/// Runs `AscendDequant` on `soc` with random sources and scales; checks `dst` bit for bit, the
/// mask state and the scales' `float` copy at the scratch's start.
fn check_dequant<D: Deq>(soc: Soc, p: DequantParams, mode: DeQuantMode, tmp_bytes: Option<usize>, seed: u64) {
    on(soc, || {
        let mut rng = Rng(seed);
        let block = 32 / D::SIZE;
        let src_len = (p.m * p.n).next_multiple_of(8) + 8;
        let dst_len = p.m * p.n.div_ceil(block) * block + block;
        let sc_len = p.n.next_multiple_of(8);
        let (sb, db, qb) = (src_len * 4, (dst_len * D::SIZE).next_multiple_of(32), sc_len * 8);
        let tmp_len = tmp_bytes.unwrap_or(0);
        let u = ub(sb + db + qb + tmp_len.next_multiple_of(32).max(32));
        let (src, dst) = (u.t::<i32>(0, src_len), u.t::<D>(sb, dst_len));
        let deq = u.t::<D::S>(sb + db, sc_len);
        let tmp = u.t::<u8>(sb + db + qb, tmp_len);
        let xs: Vec<i32> = (0..src_len).map(|_| rng.below(20_001) as i32 - 10_000).collect();
        let ss: Vec<f32> = (0..sc_len).map(|_| (rng.below(8001) as f32 - 4000.0) / 997.0).collect();
        src.copy_from_slice(&xs);
        deq.copy_from_slice(&ss.iter().map(|&f| D::scale(f)).collect::<Vec<_>>());
        dst.copy_from_slice(&(0..dst_len).map(|_| D::sentinel()).collect::<Vec<_>>());
        set_vector_mask::<f32>(3u64);
        match tmp_bytes {
            Some(_) => ascend_dequant(&dst, &src, &deq, &tmp, p, mode),
            None => ascend_dequant_stack(&dst, &src, &deq, p, mode),
        }
        let ctx = format!("{soc}, {:?} {p:?} {mode:?}, tmp {tmp_bytes:?}", D::DTYPE);
        let want = r_dequant::<D>(&xs, &ss, p, mode, dst_len);
        for (i, (g, w)) in dst.to_vec().iter().zip(&want).enumerate() {
            assert_eq!(g.to_bits_u64(), w.to_bits_u64(), "element {i}: {g:?}, want {w:?}; {ctx}");
        }
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
        assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{ctx}");
        if tmp_bytes.is_some() {
            let f = tmp.reinterpret_cast::<f32>().to_vec();
            let cal = p.cal_count;
            assert_eq!(f[..cal], ss[..cal], "the scales in float; {ctx}");
        }
    });
}

#[test]
fn dequant_matches_the_reference_on_both_chips_types_and_forms() {
    let mut rng = Rng(71);
    for soc in CHIPS {
        for case in 0..12 {
            let n = 8 * (1 + rng.index(if case % 4 == 0 { 60 } else { 12 }));
            let m = 1 + rng.index(6);
            let cal_count = 1 + rng.index(n);
            let mode = if case % 2 == 0 {
                DeQuantMode::DequantWithMultiRow
            } else {
                DeQuantMode::DequantWithSingleRow
            };
            // From the scales and one row (several rounds) to more than all rows.
            let min = (cal_count.next_multiple_of(8) + n) * 4;
            let tmp = min + 4 * n * rng.index(m + 2) + if case % 3 == 0 { 12 } else { 0 };
            let p = DequantParams { m, n, cal_count };
            check_dequant::<f32>(soc, p, mode, Some(tmp), rng.next());
            check_dequant::<f16>(soc, p, mode, Some(tmp), rng.next());
        }
        // The single-row rewrite: {1, 64, 16} becomes {4, 16, 16}, then as given.
        for mode in [DeQuantMode::DequantWithSingleRow, DeQuantMode::DequantWithMultiRow] {
            check_dequant::<f32>(soc, DequantParams { m: 1, n: 64, cal_count: 16 }, mode, Some(1024), 1);
            check_dequant::<f16>(soc, DequantParams { m: 1, n: 64, cal_count: 16 }, mode, Some(1024), 2);
        }
        // More than 255 rows in one buffer: the normal-mode Mul in two calls.
        check_dequant::<f32>(
            soc,
            DequantParams { m: 300, n: 8, cal_count: 5 },
            DeQuantMode::DequantWithMultiRow,
            Some(12_000),
            3,
        );
        // Rows longer than 2040: one counter-mode Mul per row.
        check_dequant::<f32>(
            soc,
            DequantParams { m: 2, n: 2056, cal_count: 2050 },
            DeQuantMode::DequantWithMultiRow,
            Some(2064 * 4 * 3),
            4,
        );
        // Half rows padded to 16: n = 8, 24.
        check_dequant::<f16>(
            soc,
            DequantParams { m: 5, n: 24, cal_count: 20 },
            DeQuantMode::DequantWithMultiRow,
            Some(256),
            5,
        );
        check_dequant::<f16>(
            soc,
            DequantParams { m: 3, n: 8, cal_count: 8 },
            DeQuantMode::default(),
            None,
            6,
        );
        check_dequant::<f32>(
            soc,
            DequantParams { m: 4, n: 72, cal_count: 70 },
            DeQuantMode::default(),
            None,
            7,
        );
    }
}

#[test]
fn dequant_reports_each_broken_constraint() {
    expect_panic(
        || {
            on(Soc::Ascend910, || {
                let u = ub(1024);
                let p = DequantParams { m: 1, n: 8, cal_count: 8 };
                ascend_dequant(
                    &u.t::<f32>(0, 8),
                    &u.t::<i32>(32, 8),
                    &u.t::<f32>(64, 8),
                    &u.t::<u8>(512, 256),
                    p,
                    DeQuantMode::default(),
                );
            })
        },
        &["AscendDequant: AscendDequant has no implementation on Ascend910"],
    );
    let run = |p: DequantParams, dst_len: usize, tmp: usize, needle: &str| {
        expect_panic(
            || {
                on(Soc::Ascend910B, || {
                    let u = ub(4096);
                    ascend_dequant(
                        &u.t::<f32>(0, dst_len),
                        &u.t::<i32>(1024, 64),
                        &u.t::<f32>(1536, 16),
                        &u.t::<u8>(2048, tmp),
                        p,
                        DeQuantMode::DequantWithMultiRow,
                    );
                })
            },
            &[needle],
        );
    };
    run(
        DequantParams { m: 2, n: 12, cal_count: 8 },
        64,
        256,
        "AscendDequant: params.n = 12 is not a multiple of 8",
    );
    run(
        DequantParams { m: 5, n: 16, cal_count: 8 },
        128,
        256,
        "AscendDequant: params.m * params.n = 5 * 16 exceeds srcTensor's 64 int32_t elements",
    );
    run(
        DequantParams { m: 2, n: 16, cal_count: 0 },
        64,
        256,
        "AscendDequant: params.calCount = 0 is not in 1..=params.n (16)",
    );
    run(
        DequantParams { m: 2, n: 16, cal_count: 17 },
        64,
        256,
        "AscendDequant: params.calCount = 17 is not in 1..=params.n (16)",
    );
    run(
        DequantParams { m: 2, n: 24, cal_count: 20 },
        64,
        256,
        "AscendDequant: params.calCount = 20 exceeds deqScale's 16 float elements",
    );
    run(
        DequantParams { m: 2, n: 16, cal_count: 8 },
        24,
        256,
        "AscendDequant: dstTensor holds 24 float elements, fewer than params.m * 16",
    );
    run(DequantParams { m: 2, n: 16, cal_count: 8 }, 64, 92, "AscendDequant: sharedTmpBuffer has 92 bytes; it must hold the 8 float scales and one row of 16 floats (96 bytes");
    assert_eq!(get_ascend_dequant_max_min_tmp_size(&[4, 64], 4), ((64 + 256 + 72) * 4, (64 + 64 + 72) * 4));
    assert_eq!(get_ascend_dequant_max_min_tmp_size(&[64], 4), ((64 + 64 + 72) * 4, (64 + 64 + 72) * 4));
    expect_panic(
        || {
            get_ascend_dequant_max_min_tmp_size(&[0, 8], 4);
        },
        &["GetAscendDequantMaxMinTmpSize: the source shape has no elements"],
    );
    expect_panic(
        || {
            get_ascend_dequant_max_min_tmp_size(&[2, 2, 8], 4);
        },
        &["GetAscendDequantMaxMinTmpSize: the source shape has 3 dimensions; it must have 1 or 2"],
    );
    expect_panic(
        || {
            get_ascend_dequant_max_min_tmp_size(&[8], 2);
        },
        &["GetAscendDequantMaxMinTmpSize: typeSize = 2 is unsupported; it must be 4 (int32_t)"],
    );
}

/// Runs the `calCount` form of `AscendDequant` on `soc`: `src` of `rows · n` elements, `n`
/// scales, the first `count` elements; checks `dst` bit for bit (rows padded for `half`).
fn check_dequant_count<D: Deq>(
    soc: Soc,
    n: usize,
    rows: usize,
    count: usize,
    tmp_bytes: Option<usize>,
    seed: u64,
) {
    on(soc, || {
        let mut rng = Rng(seed);
        let block = 32 / D::SIZE;
        let inner = n.div_ceil(block) * block;
        let src_len = rows * n;
        let dst_len = rows * inner;
        let (sb, db, qb) =
            (src_len * 4, (dst_len * D::SIZE).next_multiple_of(32), (n * 8).next_multiple_of(32));
        let tmp_len = tmp_bytes.unwrap_or(0);
        let u = ub(sb.next_multiple_of(32) + db + qb + tmp_len.next_multiple_of(32).max(32));
        let sb = sb.next_multiple_of(32);
        let (src, dst) = (u.t::<i32>(0, src_len), u.t::<D>(sb, dst_len));
        let deq = u.t::<D::S>(sb + db, n);
        let tmp = u.t::<u8>(sb + db + qb, tmp_len);
        let xs: Vec<i32> = (0..src_len).map(|_| rng.below(20_001) as i32 - 10_000).collect();
        let ss: Vec<f32> = (0..n).map(|_| (rng.below(8001) as f32 - 4000.0) / 997.0).collect();
        src.copy_from_slice(&xs);
        deq.copy_from_slice(&ss.iter().map(|&f| D::scale(f)).collect::<Vec<_>>());
        dst.copy_from_slice(&(0..dst_len).map(|_| D::sentinel()).collect::<Vec<_>>());
        match tmp_bytes {
            Some(_) => ascend_dequant_count(&dst, &src, &deq, &tmp, count, DeQuantMode::default()),
            None => ascend_dequant_count_stack(&dst, &src, &deq, count, DeQuantMode::default()),
        }
        let mut want: Vec<D> = (0..dst_len).map(|_| D::sentinel()).collect();
        for i in 0..count {
            want[i / n * inner + i % n] = D::out(xs[i] as f32 * ss[i % n]);
        }
        let ctx = format!("{soc}, {:?} n {n} x {rows}, count {count}, tmp {tmp_bytes:?}", D::DTYPE);
        for (i, (g, w)) in dst.to_vec().iter().zip(&want).enumerate() {
            assert_eq!(g.to_bits_u64(), w.to_bits_u64(), "element {i}: {g:?}, want {w:?}; {ctx}");
        }
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
    });
}

#[test]
fn dequant_count_form_matches_the_reference() {
    let mut rng = Rng(83);
    for soc in CHIPS {
        for case in 0..10 {
            let n = 8 * (1 + rng.index(if case % 3 == 0 { 40 } else { 8 }));
            let rows = 1 + rng.index(6);
            let count = 1 + rng.index(rows * n);
            let tmp = (n.next_multiple_of(8) + n) * 4 + 4 * n * rng.index(rows + 1);
            check_dequant_count::<f32>(soc, n, rows, count, Some(tmp), rng.next());
            check_dequant_count::<f16>(soc, n, rows, count, Some(tmp), rng.next());
        }
        check_dequant_count::<f32>(soc, 24, 5, 110, None, 1);
        check_dequant_count::<f16>(soc, 40, 3, 97, None, 2);
    }
    for (count, needle) in [
        (0, "AscendDequant: calCount = 0 is not in 1..=srcTensor's 64 elements"),
        (65, "AscendDequant: calCount = 65 is not in 1..=srcTensor's 64 elements"),
    ] {
        expect_panic(
            || {
                on(Soc::Ascend910B, || {
                    let u = ub(2048);
                    ascend_dequant_count(
                        &u.t::<f32>(0, 64),
                        &u.t::<i32>(256, 64),
                        &u.t::<f32>(512, 16),
                        &u.t::<u8>(1024, 512),
                        count,
                        DeQuantMode::default(),
                    );
                })
            },
            &[needle],
        );
    }
    expect_panic(
        || {
            on(Soc::Ascend310P, || {
                let u = ub(2048);
                ascend_dequant_count(
                    &u.t::<f32>(0, 64),
                    &u.t::<i32>(256, 64),
                    &u.t::<f32>(512, 24),
                    &u.t::<u8>(1024, 512),
                    64,
                    DeQuantMode::default(),
                );
            })
        },
        &["AscendDequant: srcTensor's 64 elements are not a multiple of deqScale's 24"],
    );
    expect_panic(
        || {
            on(Soc::Ascend310P, || {
                let u = ub(2048);
                ascend_dequant_count(&u.t::<f16>(0, 64), &u.t::<i32>(256, 64), &u.t::<u64>(512, 4), &u.t::<u8>(1024, 512), 64, DeQuantMode::default());
            })
        },
        &["AscendDequant: deqScale holds 4 uint64_t elements; without DequantParams it must hold a multiple of 8"],
    );
}

#[test]
fn dequant_scalar_form_matches_the_reference() {
    let mut rng = Rng(97);
    for soc in CHIPS {
        for case in 0..10 {
            let n = 8 * (1 + rng.index(if case % 3 == 0 { 40 } else { 8 }));
            let m = if case % 4 == 1 { 1 } else { 1 + rng.index(6) };
            let cal_count = if case % 4 == 1 { 8 } else { 1 + rng.index(n) };
            let mode = if case % 2 == 0 {
                DeQuantMode::DequantWithMultiRow
            } else {
                DeQuantMode::DequantWithSingleRow
            };
            let p = DequantParams { m, n, cal_count };
            let v = (rng.below(8001) as f32 - 4000.0) / 997.0;
            let tmp_bytes = (cal_count.next_multiple_of(8) + n) * 4 + 4 * n * rng.index(m + 1);
            on(soc, || {
                let len = m * n + 8;
                let u = ub(2 * len * 4 + tmp_bytes.next_multiple_of(32) + 64);
                let off = (len * 4).next_multiple_of(32);
                let (src, dst) = (u.t::<i32>(0, len), u.t::<f32>(off, len));
                let tmp = u.t::<u8>(2 * off, tmp_bytes);
                let xs: Vec<i32> = (0..len).map(|_| rng.below(20_001) as i32 - 10_000).collect();
                src.copy_from_slice(&xs);
                dst.copy_from_slice(&vec![f32::sentinel(); len]);
                if case == 9 {
                    ascend_dequant_scalar_stack(&dst, &src, v, p, mode);
                } else {
                    ascend_dequant_scalar(&dst, &src, v, &tmp, p, mode);
                }
                let want = r_dequant::<f32>(&xs, &vec![v; n], p, mode, len);
                let ctx = format!("{soc}, {p:?} {mode:?}, scale {v}, tmp {tmp_bytes}");
                for (i, (g, w)) in dst.to_vec().iter().zip(&want).enumerate() {
                    assert_eq!(g.to_bits(), w.to_bits(), "element {i}: {g}, want {w}; {ctx}");
                }
                assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
            });
        }
    }
    assert_eq!(get_ascend_dequant_tmp_buffer_factor_size(&[4, 64]), (1, 136));
    assert_eq!(get_ascend_dequant_tmp_buffer_factor_size(&[64]), (2, 72));
    assert_eq!(get_ascend_dequant_tmp_buffer_factor_size(&[2, 2, 8]), (0, 0));
}

#[test]
fn dequant_tensors_outside_the_unified_buffer_and_overlaps() {
    on(Soc::Ascend910B, || {
        let mut pipe = TPipe::new();
        let (mut v, mut l1) = (TBuf::<VecCalc>::new(), TBuf::<A1>::new());
        pipe.init_tbuf(&mut v, 2048);
        pipe.init_tbuf(&mut l1, 1024);
        let (s, d, q) = (
            v.get_with_offset::<i32>(16, 0),
            v.get_with_offset::<f32>(16, 64),
            v.get_with_offset::<f32>(8, 128),
        );
        let t = v.get_with_offset::<u8>(512, 1024);
        let p = DequantParams { m: 2, n: 8, cal_count: 8 };
        let mode = DeQuantMode::default();
        let (fs, fd, fq, ft) = (
            l1.get_with_len::<i32>(16),
            l1.get_with_len::<f32>(16),
            l1.get_with_len::<f32>(8),
            l1.get::<u8>(),
        );
        expect_panic(
            || ascend_dequant(&fd, &s, &q, &t, p, mode),
            &["AscendDequant: dstTensor is at position A1"],
        );
        expect_panic(
            || ascend_dequant(&d, &fs, &q, &t, p, mode),
            &["AscendDequant: srcTensor is at position A1"],
        );
        expect_panic(
            || ascend_dequant(&d, &s, &fq, &t, p, mode),
            &["AscendDequant: deqScale is at position A1"],
        );
        expect_panic(
            || ascend_dequant(&d, &s, &q, &ft, p, mode),
            &["AscendDequant: sharedTmpBuffer is at position A1"],
        );
        let over = v.get_with_offset::<u8>(256, 32);
        expect_panic(
            || ascend_dequant(&d, &s, &q, &over, p, mode),
            &["AscendDequant: sharedTmpBuffer UB bytes [0x20, 0x120) overlap src UB bytes [0x0, 0x40)"],
        );
    });
}
