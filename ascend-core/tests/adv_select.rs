//! The advanced `Select` (`SelectWithBytesMask`, `adv/select.rs`) against a scalar restatement
//! of the vendor's steps (`selectwithbytesmask_common_impl.h`, `_v220_impl.h`, `_v200_impl.h`):
//! each mask element cast to `half` by its size (`uint8_t`, `int16_t`, or the bits as `float`
//! with `CAST_ODD`, saturating NaN to 0 on Ascend310P), compared with 0, and the tensor or the
//! scalar copied — for both types, every mask type, both operand orders, with and without
//! `isReuseMask`, random shapes (mask rows as long as the tensor's or longer) and scratch sizes
//! that force several rounds, on both chips; then what is left in the mask (packed rows on
//! Ascend910B with `isReuseMask`), the page's example, the host helpers' numbers and every
//! documented constraint as an error.

use ascend_core::prelude::*;
use bytemuck::Pod;

use crate::common::util;
use util::{assert_bits_ctx, expect_panic, on, ub, Rng};

const CHIPS: [Soc; 2] = [Soc::Ascend910B, Soc::Ascend310P];

// ---- the reference -------------------------------------------------------------------------

/// Whether the vendor's steps take the mask element `m` (its bytes) as 0.
fn is_zero<U: Element>(soc: Soc, m: U) -> bool {
    let b = m.to_bits_u64();
    match U::SIZE {
        1 => b as u8 == 0,
        // int16_t → half: every nonzero integer is nonzero.
        2 => b as u16 == 0,
        _ => {
            // The bits as float → half with CAST_ODD: a nonzero value never rounds to 0; NaN
            // stays NaN (≠ 0) unless the core saturates (Ascend310P), where it becomes 0.
            let f = f32::from_bits(b as u32);
            f == 0.0 || (f.is_nan() && soc == Soc::Ascend310P)
        }
    }
}

fn from_bits<T: Element + Pod>(b: u64) -> T {
    bytemuck::pod_read_unaligned(&b.to_le_bytes()[..T::SIZE])
}

/// Mask values: mostly 0 or small, then the edges of each size (the sign bit alone, NaN and
/// infinity patterns, all ones), then random bits.
fn mask_value<U: Element + Pod>(rng: &mut Rng) -> U {
    let edges: &[u64] = match U::SIZE {
        1 => &[0, 1, 0x80, 0xFF, 2],
        2 => &[0, 1, 0x8000, 0xFFFF, 0x7C00, 0x7E00, 2],
        _ => {
            &[0, 1, 0x8000_0000, 0xFFFF_FFFF, 0x7F80_0000, 0x7FC0_0000, 0xFF80_0001, 0x0080_0000, 0x3F80_0000]
        }
    };
    match rng.below(4) {
        0 | 1 => from_bits(0),
        2 => from_bits(edges[rng.index(edges.len())]),
        _ => from_bits(rng.next()),
    }
}

/// One call's operands and scratch, at 32-byte aligned offsets of one buffer.
struct Io<T: Element, U: Element> {
    src: LocalTensor<T>,
    dst: LocalTensor<T>,
    mask: LocalTensor<U>,
    tmp: LocalTensor<u8>,
    _ub: util::Ub,
}

fn lay<T: Element, U: Element>(n: usize, dst_extra: usize, mask_n: usize, tmp_bytes: usize) -> Io<T, U> {
    let a = |b: usize| b.div_ceil(32) * 32;
    let (s, d, m) = (a(n * T::SIZE), a((n + dst_extra) * T::SIZE), a(mask_n * U::SIZE));
    let u = ub(s + d + m + a(tmp_bytes));
    Io {
        src: u.t::<T>(0, n),
        dst: u.t::<T>(s, n + dst_extra),
        mask: u.t::<U>(s + d, mask_n),
        tmp: u.t::<u8>(s + d + m, tmp_bytes),
        _ub: u,
    }
}

/// One random case: `T`, `U`, `IS_REUSE_MASK = R`, the operand order (`scalar_first`), on
/// `soc`: `dst` bit for bit (and its elements past the source untouched), the mask afterwards,
/// the mask mode and mask register, and the compare-mask register holding the scalar.
fn check<T: Element + Pod + SelectWithBytesMaskElement, U: BytesMaskElement + Pod, const R: bool>(
    soc: Soc,
    scalar_first: bool,
    seed: u64,
) {
    on(soc, || {
        let mut rng = Rng(seed);
        let unit_src = 32 / T::SIZE;
        // maskLastAxis: a multiple of 16 and of 32 bytes.
        let unit_mask = 16usize.max(32 / U::SIZE);
        let first = rng.range(1, 5) as usize;
        let src_last = unit_src * rng.range(1, 12) as usize;
        let mask_last = if rng.chance(3) && src_last % unit_mask == 0 {
            src_last
        } else {
            src_last.div_ceil(unit_mask) * unit_mask + unit_mask * rng.range(0, 2) as usize
        };
        let n = first * src_last;
        let (max, min) =
            get_select_max_min_tmp_size(&[first, src_last], &[1], T::SIZE, &[first, mask_last], U::SIZE, R);
        let tmp_bytes = match rng.below(3) {
            0 => min,
            1 => max,
            _ => min + 32 * rng.range(0, 40) as usize,
        };
        let io = lay::<T, U>(n, 16, first * mask_last, tmp_bytes);
        let x: Vec<T> = (0..n).map(|_| from_bits(rng.next())).collect();
        let old: Vec<T> = (0..n + 16).map(|_| from_bits(rng.next())).collect();
        let m: Vec<U> = (0..first * mask_last).map(|_| mask_value(&mut rng)).collect();
        let s: T = from_bits(rng.next());
        io.src.copy_from_slice(&x);
        io.dst.copy_from_slice(&old);
        io.mask.copy_from_slice(&m);
        let info = SelectWithBytesMaskShapeInfo::new(first as u32, src_last as u32, mask_last as u32);
        if scalar_first {
            select_with_bytes_mask_scalar_tensor::<T, U, R>(&io.dst, s, &io.src, &io.mask, &io.tmp, &info);
        } else {
            select_with_bytes_mask::<T, U, R>(&io.dst, &io.src, s, &io.mask, &io.tmp, &info);
        }
        let ctx = format!(
            "Select<{}, {}, {R}> on {soc}, scalar first {scalar_first}, {first} x {src_last} (mask {mask_last}), tmp \
             {tmp_bytes}",
            T::DTYPE,
            U::DTYPE
        );
        let mut want = old.clone();
        for i in 0..first {
            for j in 0..src_last {
                let zero = is_zero(soc, m[i * mask_last + j]);
                // mask == 0 → src0, else src1.
                let tensor = zero != scalar_first;
                want[i * src_last + j] = if tensor { x[i * src_last + j] } else { s };
            }
        }
        assert_bits_ctx(&io.dst.to_vec(), &want, &ctx);
        assert_bits_ctx(&io.src.to_vec(), &x, format!("src; {ctx}"));
        // The mask: packed in place on Ascend910B with isReuseMask and longer mask rows.
        let mut want_m = m.clone();
        if R && soc == Soc::Ascend910B && mask_last != src_last {
            for i in 0..first {
                for j in 0..src_last {
                    want_m[i * src_last + j] = m[i * mask_last + j];
                }
            }
        }
        assert_bits_ctx(&io.mask.to_vec(), &want_m, format!("mask; {ctx}"));
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
        assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{ctx}");
        assert_eq!(get_cmp_mask()[0] & ((1u64 << (8 * T::SIZE)) - 1), s.to_bits_u64(), "{ctx}");
    });
}

fn sweep<T: Element + Pod + SelectWithBytesMaskElement>(seed: u64) {
    fn each<T: Element + Pod + SelectWithBytesMaskElement, U: BytesMaskElement + Pod>(seed: u64) {
        for (k, soc) in CHIPS.into_iter().enumerate() {
            for case in 0..12u64 {
                let s = seed + 100 * k as u64 + case;
                check::<T, U, true>(soc, case % 2 == 0, s);
                check::<T, U, false>(soc, case % 2 == 1, s + 50);
            }
        }
    }
    each::<T, Bool8>(seed);
    each::<T, u8>(seed + 1000);
    each::<T, i8>(seed + 2000);
    each::<T, u16>(seed + 3000);
    each::<T, i16>(seed + 4000);
    each::<T, u32>(seed + 5000);
    each::<T, i32>(seed + 6000);
}

#[test]
fn select_half() {
    sweep::<f16>(1);
}

#[test]
fn select_float() {
    sweep::<f32>(70_001);
}

/// Large sources with the least scratch: many rounds of 384 elements, on Ascend310P row by
/// row, each row longer than a round.
#[test]
fn many_rounds() {
    for soc in CHIPS {
        on(soc, || {
            let mut rng = Rng(9);
            let (first, src_last, mask_last) = (3usize, 1008usize, 1024usize);
            let n = first * src_last;
            // Ascend910B: the packed mask takes 3040 bytes, leaving rounds of 384.
            let tmp = if soc == Soc::Ascend910B { 1024 + 3040 } else { 1024 };
            let io = lay::<f16, u8>(n, 0, first * mask_last, tmp);
            let x: Vec<f16> = (0..n).map(|i| f16::from_f32(i as f32)).collect();
            let m: Vec<u8> = (0..first * mask_last).map(|_| mask_value(&mut rng)).collect();
            io.src.copy_from_slice(&x);
            io.mask.copy_from_slice(&m);
            let info = SelectWithBytesMaskShapeInfo::new(3, 1008, 1024);
            select_with_bytes_mask::<f16, u8, false>(
                &io.dst,
                &io.src,
                f16::from_f32(-1.0),
                &io.mask,
                &io.tmp,
                &info,
            );
            let want: Vec<f16> =
                (0..n)
                    .map(|k| {
                        if m[k / src_last * mask_last + k % src_last] == 0 {
                            x[k]
                        } else {
                            f16::from_f32(-1.0)
                        }
                    })
                    .collect();
            assert_bits_ctx(&io.dst.to_vec(), &want, soc);
            assert_bits_ctx(&io.mask.to_vec(), &m, soc);
        });
    }
}

/// `dst` may be the source tensor (the page: "源操作数与目的操作数可以复用").
#[test]
fn in_place() {
    for soc in CHIPS {
        on(soc, || {
            let io = lay::<f32, i16>(64, 0, 4 * 32, 1024);
            let x: Vec<f32> = (0..64).map(|i| i as f32).collect();
            io.src.copy_from_slice(&x);
            let m: Vec<i16> = (0..128).map(|i| (i % 5) as i16 - 2).collect();
            io.mask.copy_from_slice(&m);
            let info = SelectWithBytesMaskShapeInfo::new(4, 16, 32);
            select_with_bytes_mask::<f32, i16, true>(&io.src, &io.src, 0.5, &io.mask, &io.tmp, &info);
            let want: Vec<f32> =
                (0..64).map(|k| if m[k / 16 * 32 + k % 16] == 0 { x[k] } else { 0.5 }).collect();
            assert_bits_ctx(&io.src.to_vec(), &want, soc);
        });
    }
}

/// The 4-byte masks that differ between the chips: NaN patterns select `src0` on Ascend310P
/// (the saturating `Cast` makes them 0) and `src1` on Ascend910B; `-0.0` selects `src0`.
#[test]
fn four_byte_masks_by_chip() {
    for (soc, nan_is_zero) in [(Soc::Ascend910B, false), (Soc::Ascend310P, true)] {
        on(soc, || {
            let io = lay::<f32, u32>(16, 0, 16, 1024);
            io.src.copy_from_slice(&[1.0; 16]);
            let mut m = [0u32; 16];
            m[..6].copy_from_slice(&[0x8000_0000, 0xFFFF_FFFF, 0x7FC0_0000, 1, 0x7F80_0000, 0x0000_0001]);
            io.mask.copy_from_slice(&m);
            let info = SelectWithBytesMaskShapeInfo::new(1, 16, 16);
            select_with_bytes_mask::<f32, u32, true>(&io.dst, &io.src, 9.0, &io.mask, &io.tmp, &info);
            let nan = if nan_is_zero { 1.0 } else { 9.0 };
            let mut want = [1.0f32; 16];
            want[..6].copy_from_slice(&[1.0, nan, nan, 9.0, 9.0, 9.0]);
            assert_eq!(io.dst.to_vec(), want, "{soc}");
        });
    }
}

/// The page's example (`Select-95.md`): a 2 × 32 `half` tensor, the scalar 35.6 and a 2 × 32
/// `bool` mask.
#[test]
fn the_pages_example() {
    #[rustfmt::skip]
    let src = [
        -84.6, -24.38, 30.97, -30.25, 22.28, -92.56, 90.44, -58.72, -86.56, 5.74, 6.754, -86.3, -96.7, -37.38, -81.9, 46.9,
        -99.4, 94.2, -41.78, -60.3, -14.43, 78.6, 8.93, -65.2, 79.94, -46.88, 4.516, 20.03, -25.56, 24.73, 0.3223, 21.98,
        -87.4, -93.9, 46.22, -69.9, 90.8, -24.17, -96.2, -91., 90.44, 9.766, 68.25, -57.78, -75.44, -8.86, -91.56, 21.6,
        76., 82.1, -78., -23.75, 92., -66.44, 75., 94.9, 2.62, -90.9, 15.945, 38.16, 50.84, 96.94, -59.38, 44.22,
    ];
    #[rustfmt::skip]
    let mask = [
        0, 1, 0, 0, 1, 1, 0, 1, 1, 0, 0, 1, 0, 1, 0, 1,
        1, 0, 0, 0, 1, 1, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1,
        0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 0,
        1, 0, 1, 0, 1, 0, 1, 1, 1, 0, 0, 0, 1, 0, 1, 1,
    ];
    #[rustfmt::skip]
    let out = [
        -84.6, 35.6, 30.97, -30.25, 35.6, 35.6, 90.44, 35.6, 35.6, 5.74, 6.754, 35.6, -96.7, 35.6, -81.9, 35.6,
        35.6, 94.2, -41.78, -60.3, 35.6, 35.6, 35.6, 35.6, 35.6, -46.88, 35.6, 20.03, 35.6, 35.6, 35.6, 35.6,
        -87.4, -93.9, 35.6, -69.9, 35.6, -24.17, 35.6, -91., 35.6, 9.766, 35.6, -57.78, 35.6, 35.6, 35.6, 21.6,
        35.6, 82.1, 35.6, -23.75, 35.6, -66.44, 35.6, 35.6, 35.6, -90.9, 15.945, 38.16, 35.6, 96.94, 35.6, 35.6,
    ];
    for soc in CHIPS {
        on(soc, || {
            let io = lay::<f16, Bool8>(64, 0, 64, 1024);
            io.src.copy_from_slice(&util::halfs(src));
            io.mask.copy_from_slice(&mask.map(|b| Bool8::new(b == 1)));
            let info = SelectWithBytesMaskShapeInfo::new(2, 32, 32);
            select_with_bytes_mask::<f16, Bool8, true>(
                &io.dst,
                &io.src,
                f16::from_f32(35.6),
                &io.mask,
                &io.tmp,
                &info,
            );
            assert_bits_ctx(&io.dst.to_vec(), &util::halfs(out), soc);
        });
    }
}

#[test]
fn host_helpers() {
    // The page's example: 64 × 128 half, a scalar, a 64 × 128 bool mask.
    assert_eq!(get_select_max_min_tmp_size(&[64, 128], &[1], 2, &[64, 128], 1, false), (16896, 8704));
    // Scalar first; small: at least 1024.
    assert_eq!(get_select_max_min_tmp_size(&[1], &[4, 16], 2, &[4, 16], 1, false), (1024, 1024));
    assert_eq!(get_select_max_min_tmp_size(&[], &[4, 16], 2, &[4, 16], 1, false), (1024, 1024));
    // Longer mask rows without isReuseMask: plus align32(n · maskTypeSize).
    assert_eq!(get_select_max_min_tmp_size(&[2, 16], &[1], 2, &[2, 32], 1, false), (1056, 1056));
    assert_eq!(get_select_max_min_tmp_size(&[2, 16], &[1], 2, &[2, 32], 1, true), (1024, 1024));
    assert_eq!(
        get_select_max_min_tmp_size(&[3, 1000], &[1], 2, &[3, 1024], 4, false),
        (6528 + 12000, 6528 + 12000)
    );
    // A mask of one column adds nothing.
    assert_eq!(get_select_max_min_tmp_size(&[64, 8], &[1], 4, &[64, 1], 4, false), (1536, 1536));
    assert_eq!(get_select_min_tmp_size(&[100, 100], &[1], 4, &[100, 112], 2, false), 8704 + 20000);
    assert_eq!(get_select_max_tmp_size(&[100, 100], &[1], 4, &[100, 112], 2, false), 20544 + 20000);
    // srcTypeSize is not used.
    assert_eq!(get_select_max_tmp_size(&[8, 8], &[1], 3, &[8, 16], 2, true), 1024);
    // The host checks.
    expect_panic(
        || {
            get_select_max_min_tmp_size(&[2, 16], &[1], 2, &[2, 32], 3, false);
        },
        &["GetSelectMaxMinTmpSize", "maskTypeSize = 3", "1, 2 or 4"],
    );
    expect_panic(
        || {
            get_select_min_tmp_size(&[32], &[1], 2, &[2, 32], 1, false);
        },
        &["GetSelectMinTmpSize", "src0Shape has 1 dimensions and src1Shape 1"],
    );
    expect_panic(
        || {
            get_select_max_tmp_size(&[2, 16], &[1], 2, &[64], 1, false);
        },
        &["GetSelectMaxTmpSize", "maskShape has 1 dimensions; it must have 2"],
    );
}

// ---- errors --------------------------------------------------------------------------------

#[test]
fn errors() {
    let info = SelectWithBytesMaskShapeInfo::new(2, 16, 32);
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        on(soc, || {
            let io = lay::<f16, u8>(32, 0, 64, 1024);
            expect_panic(
                || {
                    select_with_bytes_mask::<f16, u8, true>(
                        &io.dst,
                        &io.src,
                        f16::ZERO,
                        &io.mask,
                        &io.tmp,
                        &info,
                    )
                },
                &["Select", "no implementation", &soc.to_string()],
            );
        });
    }
    on(Soc::Ascend910B, || {
        let io = lay::<f16, u8>(32, 0, 64, 1056);
        let sel = |info: SelectWithBytesMaskShapeInfo| {
            select_with_bytes_mask::<f16, u8, false>(&io.dst, &io.src, f16::ZERO, &io.mask, &io.tmp, &info)
        };
        expect_panic(
            || sel(SelectWithBytesMaskShapeInfo::new(1, 16, 64)),
            &[
                "Select",
                "info.firstAxis * info.srcLastAxis is 1 * 16 = 16; it must equal the source tensor's size 32",
            ],
        );
        expect_panic(
            || sel(SelectWithBytesMaskShapeInfo::new(2, 16, 16)),
            &["Select", "info.firstAxis * info.maskLastAxis is 2 * 16 = 32; it must equal mask's size 64"],
        );
        let a1 = LocalTensor::<f16>::new(TPosition::A1, 0, 32);
        expect_panic(
            || select_with_bytes_mask::<f16, u8, false>(&a1, &io.src, f16::ZERO, &io.mask, &io.tmp, &info),
            &["Select", "dst is at position A1"],
        );
        let a1 = LocalTensor::<u8>::new(TPosition::A1, 0, 64);
        expect_panic(
            || select_with_bytes_mask::<f16, u8, false>(&io.dst, &io.src, f16::ZERO, &a1, &io.tmp, &info),
            &["Select", "mask is at position A1"],
        );
        // The packed mask's scratch.
        let short = io.tmp.view_len(0, 1024);
        expect_panic(
            || select_with_bytes_mask::<f16, u8, false>(&io.dst, &io.src, f16::ZERO, &io.mask, &short, &info),
            &[
                "Select",
                "sharedTmpBuffer has 1024 bytes; with isReuseMask = false",
                "at least 1056 (1024 + 32",
            ],
        );
        let short = io.tmp.view_len(0, 1023);
        expect_panic(
            || select_with_bytes_mask::<f16, u8, true>(&io.dst, &io.src, f16::ZERO, &io.mask, &short, &info),
            &["Select", "sharedTmpBuffer has 1023 bytes; it must be at least 1024"],
        );
        let over = LocalTensor::<u8>::new(TPosition::VECCALC, io.dst.get_phy_addr(), 1056);
        expect_panic(
            || select_with_bytes_mask::<f16, u8, true>(&io.dst, &io.src, f16::ZERO, &io.mask, &over, &info),
            &["Select", "overlap"],
        );
    });
    // On Ascend310P the longer mask rows need no extra scratch.
    on(Soc::Ascend310P, || {
        let io = lay::<f16, u8>(32, 0, 64, 1024);
        select_with_bytes_mask::<f16, u8, false>(&io.dst, &io.src, f16::ZERO, &io.mask, &io.tmp, &info);
    });
    on(Soc::Ascend910B, || {
        // maskLastAxis < srcLastAxis.
        let io = lay::<f32, u32>(64, 0, 32, 1024);
        expect_panic(
            || {
                select_with_bytes_mask::<f32, u32, true>(
                    &io.dst,
                    &io.src,
                    0.0,
                    &io.mask,
                    &io.tmp,
                    &SelectWithBytesMaskShapeInfo::new(2, 32, 16),
                )
            },
            &["Select", "info.maskLastAxis = 16 must be greater than or equal to info.srcLastAxis = 32"],
        );
        // maskLastAxis a multiple of 32 bytes, then of 16 elements.
        drop(io);
        let io = lay::<f32, u8>(16, 0, 16, 1024);
        expect_panic(
            || {
                select_with_bytes_mask::<f32, u8, true>(
                    &io.dst,
                    &io.src,
                    0.0,
                    &io.mask,
                    &io.tmp,
                    &SelectWithBytesMaskShapeInfo::new(2, 8, 8),
                )
            },
            &["Select", "info.maskLastAxis = 8 uint8_t elements is 8 bytes; it must be 32-byte aligned"],
        );
        drop(io);
        let io = lay::<f32, u32>(16, 0, 16, 1024);
        expect_panic(
            || {
                select_with_bytes_mask::<f32, u32, true>(
                    &io.dst,
                    &io.src,
                    0.0,
                    &io.mask,
                    &io.tmp,
                    &SelectWithBytesMaskShapeInfo::new(2, 8, 8),
                )
            },
            &["Select", "info.maskLastAxis = 8 must be an integer multiple of 16"],
        );
        // srcLastAxis a multiple of 32 bytes.
        drop(io);
        let io = lay::<f32, u8>(8, 0, 64, 1024);
        expect_panic(
            || {
                select_with_bytes_mask_scalar_tensor::<f32, u8, true>(
                    &io.dst,
                    0.0,
                    &io.src,
                    &io.mask,
                    &io.tmp,
                    &SelectWithBytesMaskShapeInfo::new(2, 4, 32),
                )
            },
            &["Select", "info.srcLastAxis = 4 float elements is 16 bytes; it must be 32-byte aligned"],
        );
        // dst shorter than the source.
        drop(io);
        let io = lay::<f32, u8>(16, 0, 32, 1024);
        let d = io.dst.view_len(0, 8);
        expect_panic(
            || {
                select_with_bytes_mask::<f32, u8, true>(
                    &d,
                    &io.src,
                    0.0,
                    &io.mask,
                    &io.tmp,
                    &SelectWithBytesMaskShapeInfo::new(1, 16, 32),
                )
            },
            &["Select", "dst has 8 float elements; it must hold the source tensor's 16"],
        );
    });
}
