//! `int4b_t` ([`Int4b`]): the tensor view (two elements per byte, element `2k` in the low
//! nibble) and `Cast` to and from `half`, bit for bit against a scalar reference: every byte
//! pattern in every mode each chip accepts, every `half` pattern into `int4b_t` in each mode,
//! the high-dimensional form with the vendor example's strides, a strided bit-mask walk, in
//! place, and every rule's error.

use ascend_core::prelude::*;

use crate::common::util;
use util::{expect_panic, on, ub};

/// The modes Ascend910B accepts for `half -> int4b_t` (the Cast page's table; `CAST_ODD` is
/// the `dav_c220` implementation's assert).
const F16_TO_INT4_910B: [RoundMode; 6] = [
    RoundMode::CastNone,
    RoundMode::CastRint,
    RoundMode::CastFloor,
    RoundMode::CastCeil,
    RoundMode::CastRound,
    RoundMode::CastTrunc,
];

/// The reference `half -> int4b_t`: round in f64 by the mode (`CAST_NONE` rounds as
/// `CAST_RINT`), saturate to -8..=7; NaN gives 0 and ±inf saturates.
fn want_int4(x: f16, mode: RoundMode) -> u8 {
    let v = x.to_f64();
    let r = if v.is_nan() {
        0.0
    } else {
        match mode {
            RoundMode::CastNone | RoundMode::CastRint => v.round_ties_even(),
            RoundMode::CastFloor => v.floor(),
            RoundMode::CastCeil => v.ceil(),
            RoundMode::CastRound => v.round(),
            RoundMode::CastTrunc => v.trunc(),
            RoundMode::CastOdd => unreachable!(),
        }
    };
    (r.clamp(-8.0, 7.0) as i8 as u8) & 0xF
}

/// The reference `int4b_t -> half` of a nibble: its two's-complement value, exactly.
fn want_half(nibble: u8) -> f16 {
    let v = if nibble >= 8 { nibble as i32 - 16 } else { nibble as i32 };
    f16::from_f32(v as f32)
}

/// The packed bytes of `xs` cast by the reference (element `2k` in the low nibble).
fn want_bytes(xs: &[f16], mode: RoundMode) -> Vec<u8> {
    xs.chunks(2).map(|p| want_int4(p[0], mode) | want_int4(p[1], mode) << 4).collect()
}

#[test]
fn tensor_view_packs_two_per_byte_low_nibble_first() {
    on(Soc::Ascend910B, || {
        let u = ub(1024);
        let b = u.t::<u8>(0, 64);
        b.copy_from_slice(&(0..64u8).map(|k| k.wrapping_mul(37)).collect::<Vec<_>>());
        let x = b.reinterpret_cast::<Int4b>();
        assert_eq!((x.get_size(), x.get_length(), x.get_phy_addr()), (128, 64, 0));
        let v = x.to_vec();
        for k in 0..64 {
            let byte = b.get_value(k);
            assert_eq!(v[2 * k].to_nibble(), byte & 0xF, "element {}", 2 * k);
            assert_eq!(v[2 * k + 1].to_nibble(), byte >> 4, "element {}", 2 * k + 1);
            assert_eq!(x.get_value(2 * k + 1), v[2 * k + 1]);
        }
        // SetValue keeps the other nibble.
        x.set_value(3, Int4b::new(-8));
        assert_eq!(b.get_value(1), (37 & 0x0F) | 0x80);
        // operator[] moves offset / 2 bytes; back to bytes: GetSize() / 2 elements.
        let w = x.view(10);
        assert_eq!((w.get_size(), w.get_phy_addr()), (118, 5));
        assert_eq!(w.get_value(0), x.get_value(10));
        assert_eq!(w.reinterpret_cast::<i8>().get_size(), 59);
        let s: Vec<Int4b> = (0..5).map(|i| Int4b::new(i - 2)).collect();
        x.copy_from_slice(&s);
        assert_eq!(x.to_vec()[..5], s[..]);
        assert_eq!(
            b.get_value(2) >> 4,
            (2u8 * 37) >> 4,
            "an odd-length copy keeps the last byte's high nibble"
        );
        expect_panic(|| drop(x.view(3)), &["operator[]", "offset = 3", "odd"]);
        expect_panic(
            || {
                let _ = x.get_value(128);
            },
            &["GetValue", "index = 128"],
        );
    });
}

/// Every byte pattern, cast to `half` (count form and the high-dimensional form with the
/// reverse of the example's strides, `{1, 1, 8, 2}`), and back into `int4b_t` in every mode:
/// the round trip gives the same bytes.
#[test]
fn every_byte_pattern_in_every_mode() {
    on(Soc::Ascend910B, || {
        let u = ub(8192);
        let bytes = u.t::<u8>(0, 256);
        bytes.copy_from_slice(&(0..=255u8).collect::<Vec<_>>());
        let x = bytes.reinterpret_cast::<Int4b>();
        let h = u.t::<f16>(1024, 512);
        let want: Vec<u16> =
            (0..=255u8).flat_map(|b| [want_half(b & 0xF), want_half(b >> 4)]).map(|v| v.to_bits()).collect();

        cast(&h, &x, RoundMode::CastNone, 512);
        assert_eq!(h.to_vec().iter().map(|v| v.to_bits()).collect::<Vec<_>>(), want);

        duplicate(&h, f16::from_f32(99.0), 512);
        cast_masked::<f16, Int4b, true>(
            &h,
            &x,
            RoundMode::CastNone,
            128u64,
            4,
            &UnaryRepeatParams::new(1, 1, 8, 2),
        );
        assert_eq!(h.to_vec().iter().map(|v| v.to_bits()).collect::<Vec<_>>(), want);

        let back = u.t::<u8>(4096, 256);
        let y = back.reinterpret_cast::<Int4b>();
        for mode in F16_TO_INT4_910B {
            duplicate(&back.reinterpret_cast::<u16>(), 0x5A5A, 128);
            cast(&y, &h, mode, 512);
            assert_eq!(back.to_vec(), (0..=255u8).collect::<Vec<_>>(), "count form, {mode}");
            duplicate(&back.reinterpret_cast::<u16>(), 0x5A5A, 128);
            cast_masked::<Int4b, f16, true>(&y, &h, mode, 128u64, 4, &UnaryRepeatParams::new(1, 1, 2, 8));
            assert_eq!(back.to_vec(), (0..=255u8).collect::<Vec<_>>(), "high-dimensional form, {mode}");
        }
        // The only mode of int4b_t -> half is CAST_NONE.
        for mode in RoundMode::ALL.into_iter().filter(|m| *m != RoundMode::CastNone) {
            expect_panic(
                || cast(&h, &x, mode, 512),
                &["Cast", "int4b_t -> half", mode.name(), "Ascend910B", "supported modes there: CAST_NONE"],
            );
        }
    });
}

/// Every `half` bit pattern into `int4b_t`, in each mode Ascend910B accepts, bit for bit
/// against the reference (the count form, in chunks).
#[test]
fn every_half_pattern_into_int4_in_each_mode() {
    on(Soc::Ascend910B, || {
        const CHUNK: usize = 4096;
        let u = ub(CHUNK * 2 + CHUNK / 2);
        let (src, dst) = (u.t::<f16>(0, CHUNK), u.t::<u8>(CHUNK * 2, CHUNK / 2));
        let y = dst.reinterpret_cast::<Int4b>();
        let all: Vec<f16> = (0..=u16::MAX).map(f16::from_bits).collect();
        for mode in F16_TO_INT4_910B {
            let mut bad = 0;
            for c in all.chunks(CHUNK) {
                src.copy_from_slice(c);
                cast(&y, &src, mode, CHUNK);
                let (got, want) = (dst.to_vec(), want_bytes(c, mode));
                for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                    if g != w {
                        bad += 1;
                        assert!(bad < 5, "{mode}: too many mismatches");
                        eprintln!(
                            "{mode}: halves {:?} {:?} -> {g:#04x}, want {w:#04x}",
                            c[2 * k],
                            c[2 * k + 1]
                        );
                    }
                }
            }
            assert_eq!(bad, 0, "{mode}");
        }
        // Spot values: ties, saturation, inf and NaN.
        let v = [2.5f32, -2.5, 7.5, -8.5, 100.0, -100.0, f32::INFINITY, f32::NAN];
        let xs: Vec<f16> = v.iter().map(|&x| f16::from_f32(x)).collect();
        src.view_len(0, 8).copy_from_slice(&xs);
        cast(&y, &src, RoundMode::CastRint, 8);
        assert_eq!(
            y.to_vec()[..8].iter().map(|v| v.value()).collect::<Vec<_>>(),
            [2, -2, 7, -8, 7, -8, 7, 0]
        );
        cast(&y, &src, RoundMode::CastRound, 8);
        assert_eq!(
            y.to_vec()[..8].iter().map(|v| v.value()).collect::<Vec<_>>(),
            [3, -3, 7, -8, 7, -8, 7, 0]
        );
    });
}

/// The high-dimensional form over a strided walk with a paired bit mask: each enabled `half`
/// lane `j` of repeat `r` lands in nibble `(r * dstRep + (j / 64) * dstBlk) * 64 + j % 64`;
/// every other nibble keeps its value.
#[test]
fn high_dimensional_strided_bit_mask() {
    on(Soc::Ascend910B, || {
        let u = ub(8192);
        let h = u.t::<f16>(0, 1024);
        let xs: Vec<f16> = (0..1024).map(|i| f16::from_f32(((i * 7919) % 17) as f32 - 8.4)).collect();
        h.copy_from_slice(&xs);
        let bytes = u.t::<u8>(4096, 1024);
        bytes.copy_from_slice(&[0x5A; 1024]);
        let y = bytes.reinterpret_cast::<Int4b>();
        let mask = [0x0FF0_33CC_0000_F00Fu64, 0xC000_0000_0000_0003u64];
        let (repeats, p) = (3u8, UnaryRepeatParams::new(3, 2, 7, 16));
        let mode = RoundMode::CastFloor;
        cast_masked::<Int4b, f16, true>(&y, &h, mode, mask, repeats, &p);
        let mut want: Vec<u8> = y.to_vec().iter().map(|_| 0xA).collect();
        for (k, w) in want.iter_mut().enumerate() {
            *w = if k % 2 == 0 { 0xA } else { 0x5 };
        }
        for r in 0..repeats as usize {
            for j in 0..128 {
                if mask[j / 64] >> (j % 64) & 1 == 1 {
                    let s = (r * 16 + (j / 16) * 2) * 16 + j % 16;
                    let d = (r * 7 + (j / 64) * 3) * 64 + j % 64;
                    want[d] = want_int4(xs[s], mode);
                }
            }
        }
        let got: Vec<u8> = y.to_vec().iter().map(|v| v.to_nibble()).collect();
        assert_eq!(got, want);
        // Back to half with the same walk, mirrored strides.
        let h2 = u.t::<f16>(6144, 1024);
        h2.copy_from_slice(&[f16::from_f32(99.0); 1024]);
        cast_masked::<f16, Int4b, true>(
            &h2,
            &y,
            RoundMode::CastNone,
            mask,
            repeats,
            &UnaryRepeatParams::new(2, 3, 16, 7),
        );
        let out = h2.to_vec();
        for r in 0..repeats as usize {
            for j in 0..128 {
                let d = (r * 16 + (j / 16) * 2) * 16 + j % 16;
                if mask[j / 64] >> (j % 64) & 1 == 1 {
                    let s = (r * 7 + (j / 64) * 3) * 64 + j % 64;
                    assert_eq!(out[d].to_bits(), want_half(want[s]).to_bits(), "repeat {r} lane {j}");
                }
            }
        }
    });
}

/// In place: `half -> int4b_t` narrows into the first quarter of its source (each repeat reads
/// before it writes), giving the out-of-place bytes; widening in place is an error.
#[test]
fn narrowing_in_place_equals_out_of_place() {
    on(Soc::Ascend910B, || {
        let u = ub(8192);
        let h = u.t::<f16>(0, 1024);
        let xs: Vec<f16> = (0..1024).map(|i| f16::from_f32((i % 23) as f32 * 0.75 - 9.0)).collect();
        for form in 0..2 {
            h.copy_from_slice(&xs);
            let y = h.reinterpret_cast::<Int4b>();
            if form == 0 {
                cast(&y, &h, RoundMode::CastTrunc, 1000);
            } else {
                cast_masked::<Int4b, f16, true>(
                    &y,
                    &h,
                    RoundMode::CastTrunc,
                    128u64,
                    8,
                    &UnaryRepeatParams::new(1, 1, 2, 8),
                );
            }
            let n = if form == 0 { 500 } else { 512 };
            let got = h.reinterpret_cast::<u8>().to_vec();
            assert_eq!(got[..n], want_bytes(&xs, RoundMode::CastTrunc)[..n], "form {form}");
        }
        let x = h.reinterpret_cast::<Int4b>();
        expect_panic(|| cast(&h, &x, RoundMode::CastNone, 256), &["Cast", "overlap"]);
    });
}

#[test]
fn rules_and_chips() {
    on(Soc::Ascend910B, || {
        let u = ub(4096);
        let h = u.t::<f16>(0, 256);
        let y = u.t::<u8>(1024, 128).reinterpret_cast::<Int4b>();
        expect_panic(|| cast(&y, &h, RoundMode::CastRint, 255), &["Cast", "count = 255", "even"]);
        expect_panic(|| cast(&y, &h, RoundMode::CastRint, 258), &["Cast", "count = 258", "256"]);
        let h512 = u.t::<f16>(0, 512);
        expect_panic(|| cast(&h512, &y, RoundMode::CastNone, 258), &["Cast", "count = 258", "src's 256"]);
        expect_panic(
            || cast(&y, &h, RoundMode::CastOdd, 256),
            &["Cast", "half -> int4b_t with CAST_ODD", "Ascend910B", "CAST_NONE, CAST_RINT"],
        );
        let p = UnaryRepeatParams::new(1, 1, 2, 8);
        expect_panic(
            || cast_masked::<Int4b, f16, true>(&y, &h, RoundMode::CastRint, 127u64, 1, &p),
            &["Cast", "mask = Count(127)", "pairs"],
        );
        expect_panic(
            || cast_masked::<Int4b, f16, true>(&y, &h, RoundMode::CastRint, [0b01u64, 0], 1, &p),
            &["Cast", "pairs"],
        );
        expect_panic(
            || cast_masked::<Int4b, f16, true>(&y, &h, RoundMode::CastRint, 130u64, 1, &p),
            &["Cast", "mask = 130", "[1, 128]"],
        );
        // 3 repeats of 128 lanes write 192 bytes of a 128-byte dst.
        expect_panic(
            || cast_masked::<Int4b, f16, true>(&y, &h, RoundMode::CastRint, 128u64, 3, &p),
            &["Cast", "dst (int4b_t", "would touch"],
        );
        // Counter mode: the count must be even too.
        set_mask_count();
        expect_panic(
            || cast_masked::<Int4b, f16, true>(&y, &h, RoundMode::CastRint, 101u64, 1, &p),
            &["Cast", "pairs"],
        );
        set_mask_norm();
    });
    on(Soc::Ascend310P, || {
        let u = ub(4096);
        let h = u.t::<f16>(0, 256);
        let y = u.t::<u8>(1024, 128).reinterpret_cast::<Int4b>();
        h.copy_from_slice(&[f16::from_f32(-3.5); 256]);
        cast(&y, &h, RoundMode::CastNone, 256);
        assert!(y.to_vec().iter().all(|v| v.value() == -4));
        expect_panic(
            || cast(&y, &h, RoundMode::CastCeil, 256),
            &["Cast", "half -> int4b_t with CAST_CEIL", "Ascend310P", "supported modes there: CAST_NONE"],
        );
        expect_panic(|| cast(&h, &y, RoundMode::CastNone, 256), &["Cast", "int4b_t -> half", "none"]);
    });
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        on(soc, || {
            let u = ub(4096);
            let h = u.t::<f16>(0, 256);
            let y = u.t::<u8>(1024, 128).reinterpret_cast::<Int4b>();
            expect_panic(|| cast(&y, &h, RoundMode::CastNone, 256), &["Cast", "half -> int4b_t", "none"]);
            expect_panic(|| cast(&h, &y, RoundMode::CastNone, 256), &["Cast", "int4b_t -> half", "none"]);
        });
    }
    assert!(<Int4b as CastDst<f16>>::cast_dst_supported(Soc::Ascend910B, RoundMode::CastCeil));
    assert!(!<f16 as CastDst<Int4b>>::cast_dst_supported(Soc::Ascend310P, RoundMode::CastNone));
}
