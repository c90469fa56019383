//! The advanced API's `DropOut` (`adv/dropout.rs`) against a scalar reference restating the
//! vendor's steps (`divValue = T(1.0f / keepProb)`; byte mode `(T(mask byte) * x) * divValue`,
//! bit mode `(bit ? x : scalar) * divValue`, each product rounded to `T`), bit for bit: every
//! mode, both types, both chips, clean and dirty masks, widths that need padding, mask bytes
//! other than 0/1, buffers of one round up to the whole block, both forms; the page's worked
//! example; the mode inference; `isInitBitMode` with the compare-mask register loaded by the
//! kernel; the mask compacted in place on Ascend910B only; the host sizes; every error.

use ascend_core::prelude::*;

use crate::common::util;
use util::{assert_bits_ctx, expect_panic, on, ub, Fp, Rng};

/// Runs `drop_out` (or the stack form when `tmp` is `None`) with the const parameters chosen
/// at run time.
#[allow(clippy::too_many_arguments)]
fn call<T: DropOutElement>(
    mode: u32,
    init: bool,
    d: &LocalTensor<T>,
    s: &LocalTensor<T>,
    m: &LocalTensor<u8>,
    tmp: Option<&LocalTensor<u8>>,
    kp: f32,
    info: &DropOutShapeInfo,
) {
    macro_rules! go {
        ($($mode:literal),*) => {
            match (mode, init, tmp) {
                $(
                    ($mode, false, Some(k)) => drop_out::<T, false, $mode>(d, s, m, k, kp, info),
                    ($mode, true, Some(k)) => drop_out::<T, true, $mode>(d, s, m, k, kp, info),
                    ($mode, false, None) => drop_out_stack::<T, false, $mode>(d, s, m, kp, info),
                    ($mode, true, None) => drop_out_stack::<T, true, $mode>(d, s, m, kp, info),
                )*
                (_, _, Some(k)) => drop_out::<T, false, 5>(d, s, m, k, kp, info),
                (_, _, None) => drop_out_stack::<T, false, 5>(d, s, m, kp, info),
            }
        };
    }
    go!(0, 1, 2, 3, 4)
}

/// The mode `dropout_impl.h` runs.
fn run_mode(mode: u32, s: usize, m: usize) -> u32 {
    match mode {
        0 if s < m => 1,
        0 if s == m => 2,
        0 if s == 8 * m => 3,
        0 => 4,
        x => x,
    }
}

/// The reference: element `i` of row `r` from its mask value (byte modes) or bit.
#[allow(clippy::too_many_arguments)]
fn reference<T: Fp>(
    mode: u32,
    x: &[T],
    mask: &[u8],
    rows: usize,
    s: usize,
    m: usize,
    kp: f32,
    scalar: T,
) -> Vec<T> {
    let div = T::from32(1.0f32 / kp);
    let mut out = Vec::with_capacity(rows * s);
    for r in 0..rows {
        for j in 0..s {
            let i = r * s + j;
            let xi = x[i];
            let kept = match mode {
                1 | 2 => {
                    let b = if mode == 1 { mask[r * m + j] } else { mask[i] };
                    // `Cast` u8 → half (→ float): exact; `Mul` rounds to `T`.
                    T::from32(f32::from(b) * xi.to32())
                }
                _ => {
                    let bit = if mode == 4 {
                        mask[r * m + j / 8] >> (j % 8) & 1
                    } else {
                        mask[i / 8] >> (i % 8) & 1
                    };
                    if bit == 1 {
                        xi
                    } else {
                        scalar
                    }
                }
            };
            out.push(T::from32(kept.to32() * div.to32()));
        }
    }
    out
}

/// One case; returns nothing, asserts everything.
#[allow(clippy::too_many_arguments)]
fn case<T: DropOutElement + Fp>(
    soc: Soc,
    mode: u32,
    rows: usize,
    s: usize,
    m: usize,
    tmp_bytes: Option<usize>,
    kp: f32,
    bytes_any: bool,
    rng: &mut Rng,
) {
    let run = run_mode(mode, s, m);
    let ctx = format!(
        "{soc} {:?} mode={mode} (runs {run}) {rows}x{s} mask {m} tmp={tmp_bytes:?} kp={kp}",
        T::DTYPE
    );
    let data = rows * s;
    let cap = data + 64; // room past the block, which must stay untouched
    let mask_len = match run {
        1 | 4 => rows * m,
        2 => data,
        _ => data.div_ceil(8),
    }
    .next_multiple_of(256);
    let x: Vec<T> = (0..cap).map(|_| T::from32((rng.below(20001) as f32 - 10000.0) / 97.0)).collect();
    let mask: Vec<u8> = (0..mask_len)
        .map(|_| match run {
            1 | 2 if !bytes_any => rng.below(2) as u8,
            _ => rng.below(256) as u8,
        })
        .collect();
    let sentinel = T::from32(-7777.0);
    let want = reference(run, &x, &mask, rows, s, m, kp, T::from32(0.0));
    on(soc, || {
        let fb = (cap * T::SIZE).next_multiple_of(32);
        let u = ub(2 * fb + mask_len + tmp_bytes.unwrap_or(0) + 64);
        let (d, src) = (u.t::<T>(0, cap), u.t::<T>(fb, cap));
        let mt = u.t::<u8>(2 * fb, mask_len);
        let k = tmp_bytes.map(|b| u.t::<u8>(2 * fb + mask_len, b));
        src.copy_from_slice(&x);
        mt.copy_from_slice(&mask);
        d.copy_from_slice(&vec![sentinel; cap]);
        let info =
            DropOutShapeInfo { first_axis: rows as u32, src_last_axis: s as u32, mask_last_axis: m as u32 };
        call::<T>(mode, false, &d, &src, &mt, k.as_ref(), kp, &info);
        let got = d.to_vec();
        assert_bits_ctx(&got[..data], &want, &ctx);
        assert_bits_ctx(&got[data..], &vec![sentinel; cap - data], format!("{ctx}: past the block"));
        assert_bits_ctx(&src.to_vec(), &x, format!("{ctx}: the source"));
        // The mask: compacted in place on Ascend910B in the dirty modes, else as it was.
        let mut mask_after = mask.clone();
        if soc == Soc::Ascend910B && (run == 1 || run == 4) {
            let valid = if run == 1 { s } else { s / 8 };
            for r in 0..rows {
                for j in 0..valid {
                    mask_after[r * valid + j] = mask[r * m + j];
                }
            }
        }
        assert_eq!(mt.to_vec(), mask_after, "{ctx}: the mask afterwards");
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
        assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{ctx}");
        if run >= 3 {
            assert_eq!(get_cmp_mask(), [0, 0], "{ctx}: the compare-mask register");
        }
    });
}

const CHIPS: [Soc; 2] = [Soc::Ascend910B, Soc::Ascend310P];

fn every_case<T: DropOutElement + Fp>(rng: &mut Rng) {
    let e = 32 / T::SIZE; // elements of one block
    for soc in CHIPS {
        // Clean byte mode (mode 2): one round, several rounds with a tail, the stack form.
        for (rows, s) in [(1, 32), (3, 40), (4, 100), (8, 256), (2, 1000), (1, 7)] {
            for tmp in [Some(512), Some(1024 + 64), Some(8 * rows * s + 512), None] {
                case::<T>(soc, 2, rows, s, s, tmp, 0.5, false, rng);
            }
            case::<T>(soc, 2, rows, s, s, Some(512), 0.55, true, rng); // 255 × 103 × 1.8 stays below half's max
        }
        // Clean bit mode (mode 3).
        for (rows, s) in [(1, 32), (3, 64), (2, 200), (5, 512), (1, 24)] {
            for tmp in [Some(512), None] {
                case::<T>(soc, 3, rows, s, s / 8, tmp, 0.7, true, rng);
            }
        }
        // Dirty byte mode (mode 1): rows padded to 32-byte mask rows; bytes other than 0/1.
        for (rows, s, m) in
            [(1, 2 * e, 64), (3, 2 * e, 32), (4, 6 * e, 128), (2, 16 * e, 256), (6, 4 * e, 96)]
        {
            for tmp in [Some(512), Some(4096), None] {
                case::<T>(soc, 1, rows, s, m, tmp, 0.9, false, rng);
            }
            case::<T>(soc, 1, rows, s, m, Some(512), 0.8, true, rng);
        }
        // Dirty bit mode (mode 4).
        for (rows, s, m) in [(1, 16, 32), (3, 64, 32), (4, 128, 64), (2, 272, 64), (7, 32, 32)] {
            for tmp in [Some(512), None] {
                case::<T>(soc, 4, rows, s, m, tmp, 0.6, true, rng);
            }
        }
    }
    // Ascend910B's dirty byte mode compacts the mask first, so a row needs no 32-byte width.
    for (rows, s, m) in [(3, 18, 32), (5, 34, 64), (2, 2, 32)] {
        case::<T>(Soc::Ascend910B, 1, rows, s, m, Some(512), 0.5, true, rng);
    }
}

#[test]
fn every_mode_matches_the_reference_f16() {
    every_case::<f16>(&mut Rng(0xd40f_0016));
}

#[test]
fn every_mode_matches_the_reference_f32() {
    every_case::<f32>(&mut Rng(0xd40f_0032));
}

#[test]
fn mode_zero_infers_the_mode_from_the_shape() {
    let mut rng = Rng(0xd40f_0000);
    for soc in CHIPS {
        // srcLastAxis < maskLastAxis: 1; ==: 2; 8 × maskLastAxis: 3; else: 4.
        case::<f32>(soc, 0, 3, 16, 32, Some(512), 0.5, true, &mut rng);
        case::<f32>(soc, 0, 3, 40, 40, Some(512), 0.5, true, &mut rng);
        case::<f16>(soc, 0, 3, 256, 32, Some(512), 0.5, true, &mut rng);
        case::<f16>(soc, 0, 2, 512, 96, Some(512), 0.5, true, &mut rng);
        // The same data through the named mode gives the same bits.
        for (mode, s, m) in [(1u32, 16usize, 32usize), (2, 40, 40), (3, 256, 32), (4, 512, 96)] {
            let mut a = Rng(7);
            let mut b = Rng(7);
            let got = |mode, rng: &mut Rng| {
                on(soc, || {
                    let u = ub(16384 + 4096 + 512);
                    let (d, x, mk, k) = (
                        u.t::<f32>(0, 2 * s),
                        u.t::<f32>(8192, 2 * s),
                        u.t::<u8>(16384, 4096),
                        u.t::<u8>(20480, 512),
                    );
                    x.copy_from_slice(&(0..2 * s).map(|_| rng.below(1000) as f32).collect::<Vec<_>>());
                    mk.copy_from_slice(&rng.bytes(4096));
                    let info =
                        DropOutShapeInfo { first_axis: 2, src_last_axis: s as u32, mask_last_axis: m as u32 };
                    call::<f32>(mode, false, &d, &x, &mk, Some(&k), 0.25, &info);
                    d.to_vec()
                })
            };
            assert_bits_ctx(&got(0, &mut a), &got(mode, &mut b), format!("{soc} mode {mode}"));
        }
    }
}

#[test]
fn the_pages_worked_example() {
    let x: Vec<f32> = (0..32).map(|i| i as f32).collect();
    let mask: [u8; 32] =
        [0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 0, 1, 1, 0, 0, 1, 0, 0, 1, 1, 1, 1, 0, 1, 0, 1, 1, 1, 0];
    let y: [f32; 32] = [
        0., 2., 0., 0., 0., 0., 0., 0., 16., 0., 20., 22., 24., 0., 28., 30., 0., 0., 36., 0., 0., 42., 44.,
        46., 48., 0., 52., 0., 56., 58., 60., 0.,
    ];
    fn run<T: DropOutElement + Fp>(soc: Soc, x: &[f32], mask: &[u8], y: &[f32]) {
        on(soc, || {
            let u = ub(128 + 128 + 32 + 512);
            let (d, s, m, k) = (u.t::<T>(0, 32), u.t::<T>(128, 32), u.t::<u8>(256, 32), u.t::<u8>(288, 512));
            s.copy_from_slice(&x.iter().map(|&v| T::from32(v)).collect::<Vec<_>>());
            m.copy_from_slice(mask);
            let info = DropOutShapeInfo { first_axis: 1, src_last_axis: 32, mask_last_axis: 32 };
            drop_out::<T, false, 0>(&d, &s, &m, &k, 0.5, &info);
            let want: Vec<T> = y.iter().map(|&v| T::from32(v)).collect();
            assert_bits_ctx(&d.to_vec(), &want, format!("{soc} {:?}", T::DTYPE));
        });
    }
    for soc in CHIPS {
        run::<f32>(soc, &x, &mask, &y);
        run::<f16>(soc, &x, &mask, &y);
    }
}

#[test]
fn dst_may_be_src() {
    for soc in CHIPS {
        for mode in [2u32, 3] {
            on(soc, || {
                let u = ub(1024 + 256 + 512);
                let (x, m, k) = (u.t::<f16>(0, 512), u.t::<u8>(1024, 256), u.t::<u8>(1280, 512));
                let v: Vec<f16> = (0..512).map(|i| f16::from_f32(i as f32)).collect();
                x.copy_from_slice(&v);
                m.copy_from_slice(
                    &(0..256).map(|i| (i % 2) as u8 * if mode == 3 { 0xff } else { 1 }).collect::<Vec<_>>(),
                );
                let (s, mk) = if mode == 2 { (256, 256) } else { (512, 64) };
                let info = DropOutShapeInfo { first_axis: 1, src_last_axis: s, mask_last_axis: mk };
                call::<f16>(mode, false, &x, &x, &m, Some(&k), 0.5, &info);
                let got = x.to_vec();
                for (i, g) in got.iter().enumerate().take(s as usize) {
                    let keep = if mode == 2 { i % 2 == 1 } else { (i / 8) % 2 == 1 };
                    let want = if keep { f16::from_f32(2.0 * i as f32) } else { f16::ZERO };
                    assert_eq!(g.to_bits(), want.to_bits(), "{soc} mode {mode} element {i}");
                }
            });
        }
    }
}

#[test]
fn is_init_bit_mode_uses_the_kernels_compare_mask() {
    for soc in CHIPS {
        for mode in [3u32, 4] {
            on(soc, || {
                let u = ub(512 + 512 + 256 + 512 + 64);
                let (d, x, m, k, reg) = (
                    u.t::<f32>(0, 128),
                    u.t::<f32>(512, 128),
                    u.t::<u8>(1024, 256),
                    u.t::<u8>(1280, 512),
                    u.t::<f32>(1792, 4),
                );
                x.copy_from_slice(&(0..128).map(|i| i as f32).collect::<Vec<_>>());
                m.copy_from_slice(&[0b0101_0101u8; 256]);
                // The kernel loads the register: a dropped element takes 3.0 before the `Muls`.
                reg.copy_from_slice(&[3.0; 4]);
                set_cmp_mask(&reg);
                let (s, mk) = if mode == 3 { (128, 16) } else { (64, 32) };
                let rows = 128 / s;
                let info = DropOutShapeInfo { first_axis: rows, src_last_axis: s, mask_last_axis: mk };
                call::<f32>(mode, true, &d, &x, &m, Some(&k), 0.5, &info);
                let got = d.to_vec();
                for (i, g) in got.iter().enumerate() {
                    let want = if i % 2 == 0 { 2.0 * i as f32 } else { 6.0 };
                    assert_eq!(g.to_bits(), want.to_bits(), "{soc} mode {mode} element {i}");
                }
                assert_eq!(get_cmp_mask()[0], 0x4040_0000_4040_0000, "the register is the kernel's");
                // Without isInitBitMode the call zeroes the register first.
                call::<f32>(mode, false, &d, &x, &m, Some(&k), 0.5, &info);
                assert_eq!(d.to_vec()[1], 0.0);
                assert_eq!(get_cmp_mask(), [0, 0]);
            });
        }
    }
}

#[test]
fn host_sizes() {
    assert_eq!(get_drop_out_max_min_tmp_size(&[16, 64], 2, false), (8192, 512));
    assert_eq!(get_drop_out_max_min_tmp_size(&[16, 64, 64], 2, false), (524288, 512)); // the page's example shape
    assert_eq!(get_drop_out_max_min_tmp_size(&[1, 32], 4, true), (512, 512));
    assert_eq!(get_drop_out_max_min_tmp_size(&[0, 32], 4, false), (512, 512));
    assert_eq!(get_drop_out_min_tmp_size(&[100], 2, false), 512);
    assert_eq!(get_drop_out_max_tmp_size(&[100], 2, false), 800);
    assert_eq!(get_drop_out_max_tmp_size(&[3, 5], 4, false), 512);
    expect_panic(
        || {
            let _ = get_drop_out_max_min_tmp_size(&[4], 3, false);
        },
        &["GetDropOutMaxMinTmpSize", "typeSize = 3"],
    );
    expect_panic(
        || {
            let _ = get_drop_out_min_tmp_size(&[], 2, false);
        },
        &["GetDropOutMinTmpSize", "0 dimensions"],
    );
    expect_panic(
        || {
            let _ = get_drop_out_max_tmp_size(&[4], 8, false);
        },
        &["GetDropOutMaxTmpSize", "typeSize = 8"],
    );
}

/// Runs a call on `soc` with a 4 KiB destination and source, a 4 KiB mask and a buffer of
/// `tmp` bytes; it must fail with every one of `needles`.
#[track_caller]
fn fails(soc: Soc, mode: u32, info: (u32, u32, u32), kp: f32, tmp: usize, needles: &[&str]) {
    let msg = expect_panic(
        || {
            on(soc, || {
                let u = ub(3 * 4096 + tmp.max(32));
                let (d, s, m, k) = (
                    u.t::<f32>(0, 1024),
                    u.t::<f32>(4096, 1024),
                    u.t::<u8>(8192, 4096),
                    u.t::<u8>(12288, tmp),
                );
                let info =
                    DropOutShapeInfo { first_axis: info.0, src_last_axis: info.1, mask_last_axis: info.2 };
                call::<f32>(mode, false, &d, &s, &m, Some(&k), kp, &info);
            })
        },
        needles,
    );
    assert!(msg.contains("DropOut"), "{msg}");
}

#[test]
fn every_error() {
    let ok = (2, 32, 32);
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        fails(soc, 2, ok, 0.5, 512, &["not supported on", "DropOut.md"]);
    }
    let b = Soc::Ascend910B;
    fails(b, 5, ok, 0.5, 512, &["dropOutMode parameter cannot be 5"]);
    for kp in [0.0, 1.0, -0.5, 1.5, f32::NAN] {
        fails(b, 2, ok, kp, 512, &["keepProb parameter cannot be", "(0, 1)"]);
    }
    fails(b, 2, (0, 32, 32), 0.5, 512, &["info.firstAxis parameter (0)"]);
    fails(b, 2, (2, 0, 32), 0.5, 512, &["info.srcLastAxis parameter (0)"]);
    fails(b, 2, (2, 32, 0), 0.5, 512, &["info.maskLastAxis parameter (0)"]);
    for soc in CHIPS {
        fails(soc, 1, (2, 16, 33), 0.5, 512, &["maskLastAxis is 33", "multiples of 2"]);
        fails(soc, 0, (2, 16, 35), 0.5, 512, &["maskLastAxis is 35", "mode 1 runs"]); // inferred
        fails(soc, 1, (2, 15, 32), 0.5, 512, &["15 valid mask bytes", "even count"]);
        fails(soc, 1, (2, 64, 32), 0.5, 512, &["64 valid mask bytes", "at most info.maskLastAxis = 32"]);
        fails(soc, 4, (2, 16, 48), 0.5, 512, &["maskLastAxis = 48 is not a multiple of 32", "DropOut.md"]);
        fails(soc, 4, (2, 20, 32), 0.5, 512, &["srcLastAxis = 20 is not a multiple of 8"]);
        fails(soc, 4, (2, 8, 32), 0.5, 512, &["1 valid mask bytes", "even count"]);
        fails(soc, 2, (2, 600, 600), 0.5, 512, &["srcLocal holds 1024", "2 x 600 = 1200"]);
        fails(
            soc,
            3,
            (1, 1024, 128),
            0.5,
            511,
            &["sharedTmpBuffer has 511 bytes", "minimum 512", "GetDropOutMinTmpSize"],
        );
        fails(soc, 1, (64, 16, 128), 0.5, 512, &["maskLocal holds 4096 bytes", "mode 1 reads 8192"]);
    }
    fails(b, 1, (70000, 2, 32), 0.5, 512, &["firstAxis = 70000 exceeds 65535"]);
    // The buffer may not overlap an operand.
    expect_panic(
        || {
            on(b, || {
                let u = ub(4096);
                let (d, s, m) = (u.t::<f32>(0, 256), u.t::<f32>(1024, 256), u.t::<u8>(2048, 256));
                let info = DropOutShapeInfo { first_axis: 1, src_last_axis: 256, mask_last_axis: 256 };
                drop_out::<f32, false, 2>(&d, &s, &m, &u.t::<u8>(512, 1024), 0.5, &info);
            })
        },
        &["DropOut", "sharedTmpBuffer", "overlap"],
    );
    // Ascend310P's dirty modes work row by row: a row not 32-byte aligned fails in the instruction.
    expect_panic(
        || {
            on(Soc::Ascend310P, || {
                let u = ub(4096);
                let (d, s, m, k) =
                    (u.t::<f32>(0, 128), u.t::<f32>(1024, 128), u.t::<u8>(2048, 256), u.t::<u8>(3072, 512));
                let info = DropOutShapeInfo { first_axis: 3, src_last_axis: 18, mask_last_axis: 32 };
                drop_out::<f32, false, 1>(&d, &s, &m, &k, 0.5, &info);
            })
        },
        &["align"],
    );
}
