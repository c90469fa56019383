//! `Fixpipe`'s quantising modes (`DEQF16`/`VDEQF16`, `REQ8`/`VREQ8`, `QF322B8_PRE`/
//! `VQF322B8_PRE`): hand-worked values from the "随路量化" page's bit table and the vendor's
//! reference scripts (`fixpipe_l0c2gm/scripts/gen_data_*.py`), random cases against an
//! independent scalar reference (bit for bit, ND and NZ), ReLU as `M2 = 0`, and every check.

use ascend_core::cube::fixpipe::{
    fixpipe, fixpipe_nz, fixpipe_nz_with_quant, fixpipe_with_quant, FixpipeOut, FixpipeParamsV220,
    QuantMode_t,
};
use ascend_core::prelude::*;
use bytemuck::Pod;

use crate::common::util;
use util::{assert_fails, gm, on, Rng};

const SIGN: u64 = 1 << 46;

/// A parameter: scale `s` (its float bits), `N` field, `MCB`, offset, sign.
fn qp(s: f32, n_field: u64, mcb: bool, offset: u64, sign: bool) -> u64 {
    s.to_bits() as u64 | n_field << 32 | (mcb as u64) << 36 | offset << 37 | if sign { SIGN } else { 0 }
}

/// The reference, written from the module's formulas: returns the output as f64 (exact for
/// every result type).
fn reference(x: f64, raw: u64, mode: QuantMode_t, relu: bool, int_in: bool, lo: f64, hi: f64) -> f64 {
    let m1 = f32::from_bits(raw as u32 & 0xffff_e000);
    let m2 = if relu { 0.0 } else { m1 };
    let deq = matches!(mode, QuantMode_t::DEQF16 | QuantMode_t::VDEQF16);
    let b8_float = matches!(mode, QuantMode_t::QF322B8_PRE | QuantMode_t::VQF322B8_PRE);
    let f: f32 = if int_in {
        let mut xi = x as i64;
        if raw >> 36 & 1 == 1 && !b8_float {
            let n = (raw >> 32 & 0xf) + 1;
            xi = (xi >> n).clamp(-32768, 32767);
        }
        xi as i32 as f32
    } else {
        x as f32
    };
    let y = if f >= 0.0 { f * m1 } else { f * m2 };
    if deq {
        return f16::from_f32(y.clamp(-65504.0, 65504.0)).to_f64();
    }
    let r = if y.is_nan() { 0.0 } else { (y.clamp(-256.0, 255.0) as f64).round_ties_even() };
    let off = (raw >> 37 & 0x1ff) as f64;
    (r + off).clamp(lo, hi)
}

/// One 16 x 32 block (two Z columns, srcStride 16) with `params` per column (`None`: the
/// scalar `raw` of column 0) through `fixpipe` / `fixpipe_nz` (`nz`); returns the output.
fn run<D: FixpipeOut<S> + Pod, S: Element>(
    src: &[S],
    p: &FixpipeParamsV220,
    per_col: Option<&[u64]>,
    nz: bool,
) -> Vec<D> {
    let len = src.len();
    let c = LocalMemAllocator::<L0C>::new().alloc::<S>(len);
    c.copy_from_slice(src);
    let (r, g) = gm(&vec![D::ZERO; len]);
    match (per_col, nz) {
        (Some(v), _) => {
            let ws = LocalTensor::<u64>::new(TPosition::C1, 0, v.len());
            ws.copy_from_slice(v);
            if nz {
                fixpipe_nz_with_quant(&g, &c, &ws, p)
            } else {
                fixpipe_with_quant(&g, &c, &ws, p)
            }
        }
        (None, false) => fixpipe(&g, &c, p),
        (None, true) => fixpipe_nz(&g, &c, p),
    }
    bytemuck::cast_slice(&r.to_bytes()[..len * D::SIZE]).to_vec()
}

fn params(mode: QuantMode_t, raw: u64, relu: bool, nz: bool) -> FixpipeParamsV220 {
    // m = 16 rows, n = 32 columns; ND: dstStride 32 elements; NZ: Z columns 16 rows x 16
    // apart (dstStride in 32-byte blocks = 16 * 16 * size / 32).
    FixpipeParamsV220::new(32, 16, 16, if nz { 1 } else { 32 }, relu, mode, raw, 1, 0, 0, 0)
}

/// Checks `run` against the reference for one mode and destination type.
#[allow(clippy::too_many_arguments)]
fn check<D: FixpipeOut<S> + Pod, S: Element>(
    src: &[S],
    mode: QuantMode_t,
    raws: &[u64; 32],
    vector: bool,
    relu: bool,
    nz: bool,
    int_in: bool,
) {
    let mut p = params(mode, raws[0], relu, nz);
    if nz {
        p.dst_stride = (16 * 16 * D::SIZE / 32) as u32;
    }
    let got = run::<D, S>(src, &p, vector.then_some(&raws[..]), nz);
    let (lo, hi) = (D::MIN.to_f64(), D::MAX.to_f64());
    for m in 0..16 {
        for n in 0..32 {
            let x = src[(n / 16) * 256 + m * 16 + n % 16].to_f64();
            let raw = if vector { raws[n] } else { raws[0] };
            let want = reference(x, raw, mode, relu, int_in, lo, hi);
            let at = if nz { (n / 16) * 256 + m * 16 + n % 16 } else { m * 32 + n };
            let g = got[at].to_f64();
            // half results bit for bit (-0.0 included); integers by value.
            let same = if D::SIZE == 2 { g.to_bits() == want.to_bits() } else { g == want };
            assert!(
                same,
                "{mode:?} relu={relu} nz={nz} ({m}, {n}): x = {x}, raw = {raw:#x}: got {g}, want {want}"
            );
        }
    }
}

#[test]
fn hand_worked_values() {
    on(Soc::Ascend910B, || {
        // REQ8, M1 = 0.5: 3 -> 1.5 -> 2, 5 -> 2.5 -> 2 (ties to even), -3 -> -1.5 -> -2,
        // 1000 -> 500 -> clamp 255 -> int8 127, -1000 -> -256 -> -128.
        let mut src = vec![0i32; 512];
        src[..6].copy_from_slice(&[3, 5, -3, 1000, -1000, 7]);
        let p = params(QuantMode_t::REQ8, qp(0.5, 0, false, 0, true), false, false);
        let out = run::<i8, i32>(&src, &p, None, false);
        assert_eq!(&out[..6], &[2, 2, -2, 127, -128, 4]);
        // Offset 10 (bits 45..37), uint8 result (Sign 0): 5 -> 2 + 10; -1000 -> -256 + 10 -> 0.
        let p = params(QuantMode_t::REQ8, qp(0.5, 0, false, 10, false), false, false);
        let out = run::<u8, i32>(&src, &p, None, false);
        assert_eq!(&out[..6], &[12, 12, 8, 255, 0, 14]);
        // MCB with N = b0000 (a shift by 1): 7 >> 1 = 3; 1000 >> 1 = 500 -> 250.
        let p = params(QuantMode_t::REQ8, qp(0.5, 0, true, 0, true), false, false);
        let out = run::<i8, i32>(&src, &p, None, false);
        assert_eq!(&out[..6], &[0, 1, -1, 127, -128, 2]);
        // ReLU: M2 = 0, negative values give 0.
        let p = params(QuantMode_t::REQ8, qp(0.5, 0, false, 0, true), true, false);
        let out = run::<i8, i32>(&src, &p, None, false);
        assert_eq!(&out[..6], &[2, 2, 0, 127, 0, 4]);
        // M1 keeps bits 31..13 only: 1.0 with low mantissa bits set is 1.0.
        let raw = 0x3f80_1fffu64 | SIGN;
        let p = params(QuantMode_t::REQ8, raw, false, false);
        assert_eq!(&run::<i8, i32>(&src, &p, None, false)[..6], &[3, 5, -3, 127, -128, 7]);

        // DEQF16, M1 = 2 (the vendor sample's scale): 2x, exactly; ReLU gives -0.0.
        let p = params(QuantMode_t::DEQF16, qp(2.0, 0, false, 0, false), false, false);
        let out = run::<f16, i32>(&src, &p, None, false);
        assert_eq!(
            out[..6].iter().map(|h| h.to_f32()).collect::<Vec<_>>(),
            [6.0, 10.0, -6.0, 2000.0, -2000.0, 14.0]
        );
        let p = params(QuantMode_t::DEQF16, qp(2.0, 0, false, 0, false), true, false);
        let out = run::<f16, i32>(&src, &p, None, false);
        assert_eq!(out[2].to_bits(), 0x8000, "-3 * 0 = -0.0");
        // A fractional scale is not rounded to an integer: 1000 * 0.0009765625 (2^-10) = 0.9765625.
        let p = params(QuantMode_t::DEQF16, qp(2f32.powi(-10), 0, false, 0, false), false, false);
        assert_eq!(run::<f16, i32>(&src, &p, None, false)[3].to_f32(), 0.9765625);
        // Saturation at 65504: 40000 * 2.
        src[0] = 40_000;
        let p = params(QuantMode_t::DEQF16, qp(2.0, 0, false, 0, false), false, false);
        assert_eq!(run::<f16, i32>(&src, &p, None, false)[0].to_f32(), 65504.0);

        // QF322B8_PRE from float, M1 = 1: 2.5 -> 2, -0.5 -> -0 -> 0, 3.5 -> 4, NaN -> 0 (+ offset).
        let mut f = vec![0f32; 512];
        f[..5].copy_from_slice(&[2.5, -0.5, 3.5, f32::NAN, 300.0]);
        let p = params(QuantMode_t::QF322B8_PRE, qp(1.0, 0, true, 3, true), false, false);
        assert_eq!(&run::<i8, f32>(&f, &p, None, false)[..5], &[5, 3, 7, 3, 127]);
    });
}

#[test]
fn random_cases_match_the_reference() {
    on(Soc::Ascend910B, || {
        let mut rng = Rng(2201);
        for case in 0..24 {
            let relu = case % 2 == 1;
            let nz = case % 4 >= 2;
            let vector = case % 8 >= 4;
            let mut raws = [0u64; 32];
            for r in raws.iter_mut() {
                let scale = (rng.next() % 2000) as f32 / 997.0 * if rng.chance(4) { -1.0 } else { 1.0 };
                *r = qp(scale, rng.next() % 16, rng.chance(3), rng.next() % 512, false)
                    | (rng.next() & 0x1fff);
            }
            let ints: Vec<i32> = (0..512)
                .map(|_| match rng.next() % 3 {
                    0 => (rng.next() as i32) >> 8,
                    1 => (rng.next() % 600) as i32 - 300,
                    _ => rng.next() as i32,
                })
                .collect();
            let floats: Vec<f32> =
                (0..512).map(|_| ((rng.next() % 100_000) as f32 - 50_000.0) / 97.0).collect();
            let (dq, rq, fq) = if vector {
                (QuantMode_t::VDEQF16, QuantMode_t::VREQ8, QuantMode_t::VQF322B8_PRE)
            } else {
                (QuantMode_t::DEQF16, QuantMode_t::REQ8, QuantMode_t::QF322B8_PRE)
            };
            check::<f16, i32>(&ints, dq, &raws, vector, relu, nz, true);
            check::<u8, i32>(&ints, rq, &raws, vector, relu, nz, true);
            check::<u8, f32>(&floats, fq, &raws, vector, relu, nz, false);
            let signed = raws.map(|r| r | SIGN);
            check::<i8, i32>(&ints, rq, &signed, vector, relu, nz, true);
            check::<i8, f32>(&floats, fq, &signed, vector, relu, nz, false);
        }
    });
}

#[test]
fn quant_errors() {
    on(Soc::Ascend910B, || {
        let src = vec![1i32; 512];
        let p = |mode, raw| params(mode, raw, false, false);
        assert_fails("Fixpipe: deqScalar = 0x7f800000: its scale M1 (bits 31..13) is inf or NaN", || {
            drop(run::<f16, i32>(&src, &p(QuantMode_t::DEQF16, 0x7f80_0000), None, false))
        });
        assert_fails("deqScalar = 0x400000002001: its scale M1 (bits 31..13) is a denormal", || {
            drop(run::<i8, i32>(&src, &p(QuantMode_t::REQ8, 0x2000 | SIGN | 1), None, false))
        });
        assert_fails(
            "deqScalar = 0x3f800000: its Sign bit (46) is 0 (uint8_t result), but dst is int8_t",
            || drop(run::<i8, i32>(&src, &p(QuantMode_t::REQ8, 0x3f80_0000), None, false)),
        );
        let mut raws = vec![qp(1.0, 0, false, 0, true); 32];
        raws[17] = qp(1.0, 0, false, 0, false);
        assert_fails("cbufWorkspace[17] = 0x3f800000: its Sign bit (46) is 0", || {
            drop(run::<i8, i32>(&src, &p(QuantMode_t::VREQ8, 0), Some(&raws), false))
        });
        assert_fails(
            "quantPre = REQ8 with a cbufWorkspace: it is used by VDEQF16, VQF322B8_PRE and VREQ8 only",
            || drop(run::<i8, i32>(&src, &p(QuantMode_t::REQ8, 0), Some(&raws), false)),
        );
        assert_fails("quantPre = VREQ8 quantises per column: it takes the cbufWorkspace tensor", || {
            drop(run::<i8, i32>(&src, &p(QuantMode_t::VREQ8, 0), None, false))
        });
        assert_fails(
            "cbufWorkspace (one uint64_t per column of nSize) would be accessed over 256 bytes",
            || drop(run::<i8, i32>(&src, &p(QuantMode_t::VREQ8, 0), Some(&raws[..16]), false)),
        );
        assert_fails(
            "cbufWorkspace is at position A2 in the L0A buffer: Fixpipe takes it in the L1 buffer",
            || {
                let c = LocalMemAllocator::<L0C>::new().alloc::<i32>(512);
                let (_r, g) = gm(&[0i8; 512]);
                let ws = LocalTensor::<u64>::new(TPosition::A2, 0, 32);
                fixpipe_with_quant(&g, &c, &ws, &p(QuantMode_t::VREQ8, 0));
            },
        );
        assert_fails(
            "quantPre = DEQF16 does not convert int32_t (L0C) to int8_t (GM): this pair takes REQ8 or VREQ8",
            || drop(run::<i8, i32>(&src, &p(QuantMode_t::DEQF16, 0), None, false)),
        );
        // A parameter is decoded even when nothing moves.
        let mut z = p(QuantMode_t::DEQF16, 0x7f80_0000);
        z.m_size = 0;
        assert_fails("is inf or NaN", || drop(run::<f16, i32>(&src, &z, None, false)));
    });
}
