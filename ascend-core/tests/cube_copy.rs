//! The cube's data paths in and out: `DataCopy` GM → L1 with ND → NZ, and `Fixpipe` L0C → GM,
//! against scalar references, the vendor's worked examples, and every error.

use ascend_core::prelude::*;
use bytemuck::Pod;
use std::collections::HashSet;

use crate::common::util;
use util::{expect_panic, gm, on, Rng};

// ---- ND2NZ ---------------------------------------------------------------------------------

/// The documented semantics, element by element.
fn ref_nd2nz<T: Copy>(dst: &mut [T], src: &[T], p: &Nd2NzParams, zero: T) {
    let c0 = 32 / std::mem::size_of::<T>();
    let d = p.d_value as usize;
    let padded = d.div_ceil(c0) * c0;
    for nd in 0..p.nd_num as usize {
        for r in 0..p.n_value as usize {
            for c in 0..padded {
                let at = nd * p.dst_nz_matrix_stride as usize
                    + (c / c0) * p.dst_nz_c0_stride as usize * c0
                    + r * p.dst_nz_n_stride as usize * c0
                    + c % c0;
                dst[at] = if c < d {
                    src[nd * p.src_nd_matrix_stride as usize + r * p.src_d_value as usize + c]
                } else {
                    zero
                };
            }
        }
    }
}

/// Whether two blocks of one destination matrix coincide, by brute force.
fn collide_brute(p: &Nd2NzParams, c0: usize) -> bool {
    let cols = (p.d_value as usize).div_ceil(c0);
    let mut seen = HashSet::new();
    for r in 0..p.n_value as usize {
        for j in 0..cols {
            if !seen.insert(r * p.dst_nz_n_stride as usize + j * p.dst_nz_c0_stride as usize) {
                return true;
            }
        }
    }
    false
}

/// The destination elements the parameters reach (exclusive end).
fn nd2nz_dst_end(p: &Nd2NzParams, c0: usize) -> usize {
    let cols = (p.d_value as usize).div_ceil(c0);
    (p.nd_num as usize - 1) * p.dst_nz_matrix_stride as usize
        + (cols - 1) * p.dst_nz_c0_stride as usize * c0
        + (p.n_value as usize - 1) * p.dst_nz_n_stride as usize * c0
        + c0
}

fn halfs(n: usize, from: f32) -> Vec<f16> {
    (0..n).map(|i| f16::from_f32(from + i as f32)).collect()
}

/// Runs ND2NZ into a fresh L1 tensor of `len` elements pre-filled with `fill`; returns its contents.
fn nd2nz_run<T: Nd2NzElement + Pod>(src: &[T], p: &Nd2NzParams, len: usize, fill: T) -> Vec<T> {
    let (_r, g) = gm(src);
    let mut l1 = LocalMemAllocator::<L1>::new();
    let a1 = l1.alloc::<T>(len);
    a1.copy_from_slice(&vec![fill; len]);
    data_copy_nd2nz(&a1, &g, p);
    a1.to_vec()
}

#[test]
fn nd2nz_continuous_doc_example() {
    // half, nValue 16, dValue 23, srcDValue 32, dstNzC0Stride 16, dstNzNStride 1
    let p = Nd2NzParams::new(1, 16, 23, 0, 32, 16, 1, 0);
    let src = halfs(16 * 32, 0.0);
    let fill = f16::from_f32(-7.0);
    let got = nd2nz_run(&src, &p, 2 * 256 + 16, fill);
    let mut want = vec![fill; 2 * 256 + 16];
    ref_nd2nz(&mut want, &src, &p, f16::ZERO);
    assert_eq!(got, want);
    // by hand: row 0 of the first Z column is source columns 0..16
    assert_eq!(&got[..16], &src[..16]);
    assert_eq!(got[16], src[32]); // row 1, column 0
    assert_eq!(got[256], src[16]); // second Z column, row 0: column 16
    assert_eq!(got[256 + 6], src[22]); // column 22, the last one
    assert_eq!(got[256 + 7], f16::ZERO); // padding up to the 32-byte block
    assert_eq!(got[256 + 15 * 16 + 6], src[15 * 32 + 22]);
    assert_eq!(got[512], fill); // nothing beyond
}

#[test]
fn nd2nz_non_continuous_doc_example() {
    // two 8 x 23 half matrices 384 elements apart in GM, 320 apart in L1,
    // Z columns 37 blocks apart, rows 2 blocks apart
    let p = Nd2NzParams::new(2, 8, 23, 384, 32, 37, 2, 320);
    let src = halfs(2 * 384, 1.0);
    let fill = f16::from_f32(-3.0);
    let len = 1200;
    let got = nd2nz_run(&src, &p, len, fill);
    let mut want = vec![fill; len];
    ref_nd2nz(&mut want, &src, &p, f16::ZERO);
    assert_eq!(got, want);
    assert_eq!(nd2nz_dst_end(&p, 16), 1152);
    assert_eq!(got[320], src[384]); // matrix 1, row 0, column 0
    assert_eq!(got[37 * 16 + 2 * 16 + 3], src[32 + 19]); // matrix 0, row 1, column 19
    assert_eq!(got[37 * 16 + 2 * 16 + 7], f16::ZERO); // its padding
    assert_eq!(got[16], fill); // the odd blocks between rows are not written
    assert_eq!(got[320 + 37 * 16 + 7 * 32 + 6], src[384 + 7 * 32 + 22]);
}

/// Random parameters against the reference (and the overlap test against brute force).
fn nd2nz_random<T: Nd2NzElement + Pod>(seed: u64) {
    let mut rng = Rng(seed);
    let c0 = 32 / T::SIZE;
    let (mut compared, mut collided) = (0, 0);
    for _ in 0..150 {
        let nd_num = rng.range(1, 3) as u16;
        let n_value = rng.range(1, 12) as u16;
        let d_value = rng.range(1, 3 * c0 as u64 + 5) as u16;
        let src_d = d_value + rng.range(0, 9) as u16;
        let src_nd = n_value * src_d + rng.range(0, 20) as u16;
        let n_stride = rng.range(1, 4) as u16;
        let c0_stride = rng.range(1, n_value as u64 * n_stride as u64 + 3) as u16;
        let span =
            nd2nz_dst_end(&Nd2NzParams::new(1, n_value, d_value, 0, src_d, c0_stride, n_stride, 0), c0);
        let m_stride =
            (span + rng.range(0, 2 * c0 as u64) as usize * if rng.chance(3) { 0 } else { 1 }) as u16;
        let p = Nd2NzParams::new(nd_num, n_value, d_value, src_nd, src_d, c0_stride, n_stride, m_stride);
        let src: Vec<T> =
            bytemuck::cast_slice(&rng.bytes(nd_num as usize * src_nd as usize * T::SIZE)).to_vec();
        let len = nd2nz_dst_end(&p, c0) + 2 * c0;
        let fill: T = bytemuck::cast_slice(&rng.bytes(T::SIZE))[0];
        if collide_brute(&p, c0) {
            expect_panic(|| drop(nd2nz_run(&src, &p, len, fill)), &["DataCopy", "same 32-byte block"]);
            collided += 1;
            continue;
        }
        let got = nd2nz_run(&src, &p, len, fill);
        let mut want = vec![fill; len];
        ref_nd2nz(&mut want, &src, &p, T::ZERO);
        assert_eq!(bytemuck::cast_slice::<T, u8>(&got), bytemuck::cast_slice::<T, u8>(&want), "{p:?}");
        compared += 1;
    }
    assert!(compared > 50 && collided > 5, "compared {compared}, collided {collided}");
}

#[test]
fn nd2nz_random_i8() {
    nd2nz_random::<i8>(1);
}
#[test]
fn nd2nz_random_u16() {
    nd2nz_random::<u16>(2);
}
#[test]
fn nd2nz_random_bf16() {
    nd2nz_random::<bf16>(3);
}
#[test]
fn nd2nz_random_f32() {
    nd2nz_random::<f32>(4);
}
#[test]
fn nd2nz_random_i32_u32_u8_i16_f16() {
    nd2nz_random::<i32>(5);
    nd2nz_random::<u32>(6);
    nd2nz_random::<u8>(7);
    nd2nz_random::<i16>(8);
    nd2nz_random::<f16>(9);
}

#[test]
fn nd2nz_zero_counts_are_no_ops() {
    let src = halfs(64, 0.0);
    let fill = f16::from_f32(5.0);
    for p in [
        Nd2NzParams::new(0, 2, 16, 0, 32, 16, 1, 0),
        Nd2NzParams::new(1, 0, 16, 0, 32, 16, 1, 0),
        Nd2NzParams::new(1, 2, 0, 0, 32, 16, 1, 0),
    ] {
        assert_eq!(nd2nz_run(&src, &p, 64, fill), vec![fill; 64]);
    }
}

#[test]
fn nd2nz_matrix_stride_zero_keeps_the_last_matrix() {
    let p = Nd2NzParams::new(2, 1, 16, 16, 16, 1, 1, 0);
    let src = halfs(32, 0.0);
    assert_eq!(nd2nz_run(&src, &p, 16, f16::ZERO), src[16..].to_vec());
}

#[test]
fn nd2nz_errors() {
    let ok = Nd2NzParams::new(1, 2, 16, 0, 16, 2, 1, 0);
    let src = halfs(64, 0.0);
    let run = |p: Nd2NzParams| drop(nd2nz_run(&src, &p, 64, f16::ZERO));
    run(ok);
    let with = |f: fn(&mut Nd2NzParams)| {
        let mut p = ok;
        f(&mut p);
        p
    };
    let cases: [(Nd2NzParams, &[&str]); 8] = [
        (with(|p| p.nd_num = 4096), &["ndNum = 4096", "[0, 4095]"]),
        (with(|p| p.n_value = 16385), &["nValue = 16385", "[0, 16384]"]),
        (with(|p| p.src_d_value = 0), &["srcDValue = 0", "[1, 65535]"]),
        (with(|p| p.dst_nz_c0_stride = 0), &["dstNzC0Stride = 0", "[1, 16384]"]),
        (with(|p| p.dst_nz_c0_stride = 16385), &["dstNzC0Stride = 16385"]),
        (with(|p| p.dst_nz_n_stride = 0), &["dstNzNStride = 0", "[1, 16384]"]),
        (with(|p| p.dst_nz_matrix_stride = 16385), &["dstNzMatrixStride = 16385", "[0, 16384]"]),
        (with(|p| p.n_value = 5), &["the NZ destination spans 80", "dst has 64 elements"]),
    ];
    for (p, needles) in cases {
        expect_panic(|| run(p), needles);
    }
    // the source: 3 rows of 30 from 64 elements
    expect_panic(
        || run(Nd2NzParams::new(1, 3, 16, 0, 30, 2, 1, 0)),
        &["the ND source spans 76 half elements", "srcDValue = 30", "src has 64 elements"],
    );
    // row 1 of block column 0 on row 0 of block column 1
    expect_panic(
        || run(Nd2NzParams::new(1, 2, 32, 0, 32, 1, 1, 0)),
        &["dstNzNStride = 1 and dstNzC0Stride = 1", "row 1 of block column 0", "same 32-byte block"],
    );
    // operands
    expect_panic(
        || {
            let (_r, g) = gm(&src);
            let mut ub = LocalMemAllocator::<Ub>::new();
            data_copy_nd2nz(&ub.alloc::<f16>(64), &g, &ok);
        },
        &["DataCopy", "dst is at position VECCALC in the Unified Buffer", "takes it in the L1 buffer"],
    );
    expect_panic(
        || {
            let (_r, g) = gm(&src);
            let mut l1 = LocalMemAllocator::<L1>::new();
            data_copy_nd2nz(&l1.alloc::<f16>(128).view(8), &g, &ok);
        },
        &["dst address = 0x10 in the L1 buffer is not 32-byte aligned"],
    );
    expect_panic(
        || {
            let mut l1 = LocalMemAllocator::<L1>::new();
            data_copy_nd2nz(&l1.alloc::<f16>(64), &GlobalTensor::new(), &ok);
        },
        &["DataCopy", "not bound"],
    );
}

#[test]
fn nd2nz_chips() {
    let src = halfs(64, 0.0);
    let p = Nd2NzParams::new(1, 2, 16, 0, 16, 2, 1, 0);
    let msg = |soc| {
        let mut out = String::new();
        on(soc, || out = expect_panic(|| drop(nd2nz_run(&src, &p, 64, f16::ZERO)), &["DataCopy"]));
        out
    };
    assert!(msg(Soc::Ascend310P).contains("not modelled on Ascend310P"));
    assert!(msg(Soc::Ascend310P).contains("8 KiB"));
    assert!(msg(Soc::Ascend910).contains("not supported on Ascend910"));
    assert!(msg(Soc::Ascend310B).contains("not supported on Ascend310B"));
    run_on_core(
        CoreConfig { kernel_type: Some(KernelType::AicOnly), ..CoreConfig::single(Soc::Ascend910B) },
        || {
            assert_eq!(nd2nz_run(&src, &p, 32, f16::ZERO), src[..32].to_vec());
        },
    );
}

#[test]
fn l1_is_not_on_a_vector_core() {
    run_on_core(
        CoreConfig { kernel_type: Some(KernelType::AivOnly), ..CoreConfig::single(Soc::Ascend910B) },
        || {
            expect_panic(
                || drop(LocalMemAllocator::<L1>::new().alloc::<f16>(16)),
                &["the L1 buffer is a memory of the cube core (AIC)", "KernelType::AicOnly"],
            );
        },
    );
}

// ---- Fixpipe -------------------------------------------------------------------------------

/// The L0C index of element (nd, m, n).
fn l0c_at(p: &FixpipeParamsV220, nd: usize, m: usize, n: usize) -> usize {
    nd * p.src_nd_stride as usize * 256 + (n / 16) * p.src_stride as usize * 16 + m * 16 + n % 16
}

/// NZ2ND by the documented formula.
fn ref_nd<D: Copy, S: Copy>(dst: &mut [D], src: &[S], p: &FixpipeParamsV220, out: impl Fn(S) -> D) {
    for nd in 0..p.nd_num as usize {
        for m in 0..p.m_size as usize {
            for n in 0..p.n_size as usize {
                dst[nd * p.dst_nd_stride as usize + m * p.dst_stride as usize + n] =
                    out(src[l0c_at(p, nd, m, n)]);
            }
        }
    }
}

/// An L0C tensor holding `data`.
fn l0c<S: Element>(data: &[S]) -> LocalTensor<S> {
    let t = LocalMemAllocator::<L0C>::new().alloc::<S>(data.len());
    t.copy_from_slice(data);
    t
}

/// Fixpipe (ND, or NZ with `nz`) of `src` into GM of `len` elements filled with `fill`.
fn fix_run<D: FixpipeOut<S> + Pod, S: Element>(
    src: &[S],
    p: &FixpipeParamsV220,
    len: usize,
    fill: D,
    nz: bool,
) -> Vec<D> {
    let c = l0c(src);
    let (r, g) = gm(&vec![fill; len]);
    if nz {
        fixpipe_nz(&g, &c, p);
    } else {
        fixpipe(&g, &c, p);
    }
    bytemuck::cast_slice(&r.to_bytes()[..len * D::SIZE]).to_vec()
}

fn ramp(n: usize) -> Vec<f32> {
    (0..n).map(|i| i as f32 * 0.5 - 100.0).collect()
}

#[test]
fn nz2nd_doc_example() {
    // ndNum 2, nSize 32, mSize 48, srcStride 64, dstStride 64, dstNdStride 4096. The doc's
    // srcNdStride = 256 fractals of 1 KiB would put the second matrix 256 KiB into a 128 KiB
    // L0C; the matrices here sit back to back: 2 Z columns of 64 * 16 elements = 8 fractals.
    let p = FixpipeParamsV220::new(32, 48, 64, 64, false, QuantMode_t::NoQuant, 0, 2, 8, 4096, 0);
    let src = ramp(2 * 2048);
    let fill = -1.0f32;
    let got = fix_run::<f32, f32>(&src, &p, 4096 + 48 * 64, fill, false);
    let mut want = vec![fill; 4096 + 48 * 64];
    ref_nd(&mut want, &src, &p, |x| x);
    assert_eq!(got, want);
    assert_eq!(got[4096 + 5 * 64 + 20], src[2048 + 1024 + 5 * 16 + 4]);
    assert_eq!(got[47 * 64 + 31], src[1024 + 47 * 16 + 15]);
    assert_eq!(got[47 * 64 + 32], fill); // the row's gap up to dstStride
}

#[test]
fn nz2nd_unaligned_n_and_random_cases() {
    let mut rng = Rng(11);
    for _ in 0..60 {
        let n = rng.range(1, 40) as u16;
        let m = rng.range(1, 20) as u16;
        let src_stride = m.div_ceil(16) * 16 + rng.range(0, 2) as u16 * 16;
        let cols = (n as usize).div_ceil(16);
        let frac = (cols * src_stride as usize * 16).div_ceil(256) as u16;
        let nd_num = rng.range(1, 3) as u16;
        let dst_stride = n as u32 + rng.range(0, 5) as u32;
        let dst_nd = ((m as u32 - 1) * dst_stride + n as u32 + rng.range(0, 7) as u32) as u16;
        let relu = rng.chance(2);
        let p = FixpipeParamsV220::new(
            n,
            m,
            src_stride,
            dst_stride,
            relu,
            QuantMode_t::NoQuant,
            0,
            nd_num,
            frac,
            dst_nd,
            0,
        );
        let src_i: Vec<i32> = (0..nd_num as usize * frac as usize * 256).map(|_| rng.next() as i32).collect();
        let len =
            (nd_num as usize - 1) * dst_nd as usize + (m as usize - 1) * dst_stride as usize + n as usize + 5;
        let got = fix_run::<i32, i32>(&src_i, &p, len, 77, false);
        let mut want = vec![77; len];
        ref_nd(&mut want, &src_i, &p, |x| if relu { x.max(0) } else { x });
        assert_eq!(got, want, "{p:?}");
    }
}

#[test]
fn f322f16_rounds_to_nearest_even_and_follows_the_overflow_mode() {
    let one = 1.0f32;
    let vals = [
        one + 2f32.powi(-11),                  // tie: to 1.0 (even)
        one + 3.0 * 2f32.powi(-11),            // tie: up to 1 + 2^-9 (even)
        one + 2f32.powi(-11) + 2f32.powi(-20), // above the tie: up
        -(one + 2f32.powi(-11)),               // tie, negative: to -1.0
        65519.0,                               // below the midpoint to inf: 65504
        65520.0,                               // the midpoint: inf (or MAX saturated)
        f32::INFINITY,
        f32::NAN,
    ];
    let mut src = vec![0.0f32; 256];
    src[..8].copy_from_slice(&vals);
    let p = FixpipeParamsV220::new(16, 16, 16, 16, false, QuantMode_t::F322F16, 0, 1, 0, 0, 0);
    on(Soc::Ascend910B, || {
        let got = fix_run::<f16, f32>(&src, &p, 256, f16::ZERO, false);
        let f = |x: f32| f16::from_f32(x);
        assert_eq!(
            &got[..6],
            &[f(1.0), f(1.0 + 2f32.powi(-9)), f(1.0 + 2f32.powi(-10)), f(-1.0), f(65504.0), f16::INFINITY]
        );
        assert_eq!(got[6], f16::INFINITY);
        assert!(got[7].is_nan());
        set_overflow_mode(OverflowMode::Saturation);
        let got = fix_run::<f16, f32>(&src, &p, 256, f16::ZERO, false);
        assert_eq!(&got[4..8], &[f16::MAX, f16::MAX, f16::MAX, f16::ZERO]);
    });
}

#[test]
fn f322bf16_rounds_to_nearest_even_and_follows_the_overflow_mode() {
    let vals = [1.0 + 2f32.powi(-8), 1.0 + 3.0 * 2f32.powi(-8), -(1.0 + 2f32.powi(-8)), f32::MAX, f32::NAN];
    let mut src = vec![0.0f32; 256];
    src[..5].copy_from_slice(&vals);
    let p = FixpipeParamsV220::new(16, 16, 16, 16, false, QuantMode_t::F322BF16, 0, 1, 0, 0, 0);
    on(Soc::Ascend910B, || {
        let got = fix_run::<bf16, f32>(&src, &p, 256, bf16::ZERO, false);
        let b = |x: f32| bf16::from_f32(x);
        assert_eq!(&got[..3], &[b(1.0), b(1.0 + 2f32.powi(-6)), b(-1.0)]);
        assert_eq!(got[3], bf16::INFINITY); // f32::MAX rounds past bf16's largest value
        assert!(got[4].is_nan());
        set_overflow_mode(OverflowMode::Saturation);
        let got = fix_run::<bf16, f32>(&src, &p, 256, bf16::ZERO, false);
        assert_eq!(&got[3..5], &[bf16::MAX, bf16::ZERO]);
    });
}

#[test]
fn relu_cuts_negative_values() {
    let src: Vec<f32> = (0..256).map(|i| if i % 2 == 0 { -(i as f32) - 0.5 } else { i as f32 }).collect();
    let p = FixpipeParamsV220::new(16, 16, 16, 16, true, QuantMode_t::NoQuant, 0, 1, 0, 0, 0);
    let got = fix_run::<f32, f32>(&src, &p, 256, 9.0, false);
    let want: Vec<f32> = src.iter().map(|&x| x.max(0.0)).collect();
    assert_eq!(got, want);
    let p = FixpipeParamsV220 { quant_pre: QuantMode_t::F322F16, ..p };
    let got = fix_run::<f16, f32>(&src, &p, 256, f16::ZERO, false);
    assert_eq!(got, want.iter().map(|&x| f16::from_f32(x)).collect::<Vec<_>>());
    let srci: Vec<i32> = (0..256).map(|i| i - 128).collect();
    let p = FixpipeParamsV220 { quant_pre: QuantMode_t::NoQuant, ..p };
    let got = fix_run::<i32, i32>(&srci, &p, 256, 5, false);
    assert_eq!(got, srci.iter().map(|&x| x.max(0)).collect::<Vec<_>>());
}

#[test]
fn atomic_add_accumulates_into_gm() {
    let src = ramp(512);
    let p = FixpipeParamsV220::new(20, 16, 16, 24, false, QuantMode_t::NoQuant, 0, 1, 0, 0, 0);
    let c = l0c(&src);
    let (r, g) = gm(&vec![1.0f32; 16 * 24]);
    set_atomic_add::<f32>();
    fixpipe(&g, &c, &p);
    fixpipe(&g, &c, &p);
    set_atomic_none();
    let got: Vec<f32> = bytemuck::cast_slice(&r.to_bytes()).to_vec();
    let mut once = vec![0.0f32; 16 * 24];
    ref_nd(&mut once, &src, &p, |x| x);
    for (i, (&g, &o)) in got.iter().zip(&once).enumerate() {
        let written = i % 24 < 20;
        assert_eq!(g, if written { 1.0 + o + o } else { 1.0 }, "element {i}");
    }
    // the atomic type must be the destination's
    let (_r, gh) = gm(&vec![f16::ZERO; 256]);
    let ph = FixpipeParamsV220 { n_size: 16, dst_stride: 16, quant_pre: QuantMode_t::F322F16, ..p };
    set_atomic_add::<f32>();
    expect_panic(|| fixpipe(&gh, &c, &ph), &["Fixpipe", "SetAtomicAdd<float>", "half"]);
    set_atomic_none();
}

#[test]
fn nd2nz_then_fixpipe_round_trip() {
    // the vendor's A matrix: m = 40, k = 56 halfs, Z columns ceil(40 / 16) * 16 = 48 rows apart
    let (m, k) = (40usize, 56usize);
    let a: Vec<f16> = (0..m * k).map(|i| f16::from_f32((i as f32 * 0.37).sin() * 100.0)).collect();
    let (_r, a_gm) = gm(&a);
    let mut l1 = LocalMemAllocator::<L1>::new();
    let a1 = l1.alloc::<f16>(48 * 64);
    data_copy_nd2nz(&a1, &a_gm, &Nd2NzParams::new(1, m as u16, k as u16, 0, k as u16, 48, 1, 0));
    // L1's half NZ and L0C's float NZ share the index layout (16-wide Z columns)
    let wide: Vec<f32> = a1.to_vec().iter().map(|x| x.to_f32()).collect();
    let c = l0c(&wide);
    let (r, c_gm) = gm(&vec![f16::ZERO; m * k]);
    fixpipe(
        &c_gm,
        &c,
        &FixpipeParamsV220::new(k as u16, m as u16, 48, k as u32, false, QuantMode_t::F322F16, 0, 1, 0, 0, 0),
    );
    assert_eq!(bytemuck::cast_slice::<u8, f16>(&r.to_bytes()), &a[..]);
}

#[test]
fn fixpipe_nz_and_channel_split() {
    let src = ramp(3 * 256);
    // NZ, f32 -> f16: 48 columns (3 Z columns of 16 rows), 20 blocks apart in GM
    let p = FixpipeParamsV220::new(48, 16, 16, 20, false, QuantMode_t::F322F16, 0, 1, 0, 0, 0);
    let len = 2 * 320 + 256 + 8;
    let got = fix_run::<f16, f32>(&src, &p, len, f16::from_f32(-9.0), true);
    let mut want = vec![f16::from_f32(-9.0); len];
    for m in 0..16 {
        for n in 0..48 {
            want[(n / 16) * 20 * 32 / 2 + m * 16 + n % 16] = f16::from_f32(src[l0c_at(&p, 0, m, n)]);
        }
    }
    assert_eq!(got, want);
    // channel split, f32: 24 columns become 3 Z columns of 8, 5 blocks (mSize 4 rows of 32 bytes + 1) apart
    let p = FixpipeParamsV220 {
        n_size: 24,
        m_size: 4,
        dst_stride: 5,
        quant_pre: QuantMode_t::NoQuant,
        is_channel_split: true,
        ..p
    };
    let len = 2 * 40 + 32 + 8;
    let got = fix_run::<f32, f32>(&src, &p, len, -9.0, true);
    let mut want = vec![-9.0; len];
    for m in 0..4 {
        for n in 0..24 {
            want[(n / 8) * 40 + m * 8 + n % 8] = src[l0c_at(&p, 0, m, n)];
        }
    }
    assert_eq!(got, want);
    assert_eq!(got[40 + 8 + 1], src[16 + 9]); // second 16 x 8 column, row 1, column 9
}

#[test]
fn fixpipe_zero_sizes_are_no_ops() {
    let src = ramp(256);
    let base = FixpipeParamsV220::new(16, 16, 16, 16, false, QuantMode_t::NoQuant, 0, 1, 0, 0, 0);
    for p in [
        FixpipeParamsV220 { n_size: 0, ..base },
        FixpipeParamsV220 { m_size: 0, ..base },
        FixpipeParamsV220 { nd_num: 0, ..base },
    ] {
        assert_eq!(fix_run::<f32, f32>(&src, &p, 256, 3.0, false), vec![3.0; 256]);
    }
}

#[test]
fn fixpipe_errors() {
    let src = ramp(512);
    let ok = FixpipeParamsV220::new(16, 16, 16, 16, false, QuantMode_t::NoQuant, 0, 1, 0, 0, 0);
    fix_run::<f32, f32>(&src, &ok, 256, 0.0, false);
    let nd = |p: FixpipeParamsV220, needles: &[&str]| {
        expect_panic(|| drop(fix_run::<f32, f32>(&src, &p, 256, 0.0, false)), needles);
    };
    let nz = |p: FixpipeParamsV220, needles: &[&str]| {
        expect_panic(|| drop(fix_run::<f32, f32>(&src, &p, 256, 0.0, true)), needles);
    };
    nd(FixpipeParamsV220 { n_size: 4096, ..ok }, &["Fixpipe", "nSize = 4096", "[0, 4095]"]);
    nz(FixpipeParamsV220 { n_size: 20, ..ok }, &["nSize = 20 is not a multiple of 16 for NZ output"]);
    nz(
        FixpipeParamsV220 { n_size: 20, is_channel_split: true, ..ok },
        &["nSize = 20 is not a multiple of 8 with isChannelSplit"],
    );
    nd(FixpipeParamsV220 { m_size: 8193, ..ok }, &["mSize = 8193", "[0, 8192]"]);
    nd(FixpipeParamsV220 { dst_stride: 0, ..ok }, &["dstStride = 0"]);
    nd(
        FixpipeParamsV220 { dst_stride: 15, ..ok },
        &["dstStride = 15 elements is below nSize = 16", "overlap"],
    );
    nd(FixpipeParamsV220 { src_nd_stride: 513, ..ok }, &["srcNdStride = 513", "[0, 512]"]);
    nd(
        FixpipeParamsV220 { nd_num: 2, src_nd_stride: 0, dst_nd_stride: 256, ..ok },
        &["srcNdStride = 0", "[1, 512]"],
    );
    nd(
        FixpipeParamsV220 { nd_num: 2, src_nd_stride: 1, dst_nd_stride: 0, ..ok },
        &["dstNdStride = 0", "[1, 65535]"],
    );
    nd(FixpipeParamsV220 { unit_flag: 1, ..ok }, &["unitFlag = 1 is not one of 0, 2, 3"]);
    nd(
        FixpipeParamsV220 { is_channel_split: true, ..ok },
        &["isChannelSplit = true cannot be combined with NZ2ND"],
    );
    nz(
        FixpipeParamsV220 { is_channel_split: true, unit_flag: 2, dst_stride: 32, ..ok },
        &["isChannelSplit = true cannot be combined with unitFlag = 2"],
    );
    nd(
        FixpipeParamsV220 { quant_pre: QuantMode_t::F322F16, ..ok },
        &["quantPre = F322F16 does not convert float (L0C) to float (GM)", "NoQuant"],
    );
    // the source: 2 Z columns of 16 rows, 32 rows apart, from 512 elements
    nd(
        FixpipeParamsV220 { n_size: 32, src_stride: 32, dst_stride: 32, ..ok },
        &["src", "would be accessed over 3072 bytes", "512 float elements"],
    );
    // the destinations
    nd(
        FixpipeParamsV220 { dst_stride: 17, ..ok },
        &["the ND destination spans 271 float elements", "dst has 256"],
    );
    nd(
        FixpipeParamsV220 { m_size: 2, nd_num: 2, src_nd_stride: 1, dst_nd_stride: 20, dst_stride: 24, ..ok },
        &["ND matrices 1 apart overlap"],
    );
    nz(
        FixpipeParamsV220 { n_size: 32, dst_stride: 31, ..ok },
        &["dstStride = 31 blocks (992 bytes) is below one Z column's 1024 bytes"],
    );
    nz(
        FixpipeParamsV220 { dst_stride: 17, m_size: 8, n_size: 32, ..ok },
        &["the NZ destination spans 1056 bytes", "dst has 1024 bytes"],
    );
    // operands
    expect_panic(
        || {
            let (_r, g) = gm(&[0.0f32; 256]);
            let c = l0c(&src);
            fixpipe_nz(&g.view(1), &c, &ok);
        },
        &["dst is at byte offset 4 of its buffer: NZ output needs 32-byte alignment"],
    );
    expect_panic(|| fixpipe(&GlobalTensor::<f32>::new(), &l0c(&src), &ok), &["Fixpipe", "not bound"]);
    expect_panic(
        || {
            let (_r, g) = gm(&[0.0f32; 256]);
            fixpipe(&g, &l0c(&src).view(8), &ok);
        },
        &["src address = 0x20 in the L0C buffer is not 64-byte aligned"],
    );
    expect_panic(
        || {
            let (_r, g) = gm(&[0.0f32; 256]);
            let t = LocalMemAllocator::<L1>::new().alloc::<f32>(256);
            fixpipe(&g, &t, &ok);
        },
        &["src is at position A1 in the L1 buffer", "takes it in the L0C buffer"],
    );
    // quantising modes
    let srci: Vec<i32> = vec![1; 256];
    expect_panic(
        || {
            let p = FixpipeParamsV220 { quant_pre: QuantMode_t::VDEQF16, deq_scalar: 0x3f80_0000, ..ok };
            drop(fix_run::<f16, i32>(&srci, &p, 256, f16::ZERO, false));
        },
        &["quantPre = VDEQF16 quantises per column: it takes the cbufWorkspace tensor of fixpipe_with_quant"],
    );
    expect_panic(
        || {
            let p = FixpipeParamsV220 { quant_pre: QuantMode_t::F322F16, ..ok };
            drop(fix_run::<i8, i32>(&srci, &p, 256, 0, false));
        },
        &["quantPre = F322F16 does not convert int32_t (L0C) to int8_t (GM): this pair takes REQ8 or VREQ8"],
    );
}

#[test]
fn fixpipe_chips() {
    let src = ramp(256);
    let p = FixpipeParamsV220::new(16, 16, 16, 16, false, QuantMode_t::NoQuant, 0, 1, 0, 0, 0);
    for (soc, needle) in [
        (Soc::Ascend310B, "Ascend310B takes FixpipeParamsM300, which is not modelled"),
        (Soc::Ascend910, "not supported on Ascend910"),
        (Soc::Ascend310P, "DataCopy from CO1 to CO2"),
    ] {
        on(soc, || {
            expect_panic(|| drop(fix_run::<f32, f32>(&src, &p, 256, 0.0, false)), &["Fixpipe", needle]);
        });
    }
    run_on_core(
        CoreConfig { kernel_type: Some(KernelType::AicOnly), ..CoreConfig::single(Soc::Ascend910B) },
        || {
            assert_eq!(fix_run::<f32, f32>(&src, &p, 256, 0.0, false), src);
        },
    );
}

/// `SetFixPipeConfig`'s unit-flag reset takes an L0C tensor on Ascend910B and Ascend310B and
/// changes nothing; another memory (the quantisation-tensor form) or chip fails.
#[test]
fn set_fix_pipe_config_resets_unit_flags_only() {
    use ascend_core::cube::fixpipe::set_fix_pipe_config;
    for soc in [Soc::Ascend910B, Soc::Ascend310B] {
        on(soc, || {
            let mut l0c = LocalMemAllocator::<L0C>::new();
            let c = l0c.alloc::<f32>(256);
            c.copy_from_slice(&(0..256).map(|i| i as f32).collect::<Vec<_>>());
            set_fix_pipe_config::<f32, false>(&c, true);
            set_fix_pipe_config::<f32, false>(&c, false);
            assert_eq!(c.to_vec(), (0..256).map(|i| i as f32).collect::<Vec<_>>());
        });
    }
    expect_panic(
        || {
            on(Soc::Ascend910B, || {
                let mut l1 = LocalMemAllocator::<L1>::new();
                set_fix_pipe_config::<u64, false>(&l1.alloc::<u64>(16), false);
            })
        },
        &[
            "SetFixPipeConfig",
            "preData is in L1 (position A1)",
            "only the unit-flag reset with a CO1 (L0C) tensor",
        ],
    );
    for soc in [Soc::Ascend910, Soc::Ascend310P] {
        expect_panic(
            || {
                on(soc, || {
                    let mut l0c = LocalMemAllocator::<L0C>::new();
                    set_fix_pipe_config::<f32, false>(&l0c.alloc::<f32>(256), true);
                })
            },
            &["SetFixPipeConfig is not supported on", "(supported: Ascend910B, Ascend310B)"],
        );
    }
}

/// `DataCopy` GM → L1, count and `DataCopyParams` forms (the "GM to L1" pages): the bytes
/// land unchanged, gaps keep their values; every other direction with an L1 side, an
/// unaligned L1 address and Ascend310B fail.
#[test]
fn data_copy_moves_gm_to_l1() {
    let src: Vec<f16> = (0..256).map(|i| f16::from_f32(i as f32)).collect();
    on(Soc::Ascend910B, || {
        let (_r, g) = gm(&src);
        let mut l1 = LocalMemAllocator::<L1>::new();
        let a1 = l1.alloc_at::<A1, f16>(256);
        data_copy(&a1, &g.view(16), 128);
        assert_eq!(a1.to_vec()[..128], src[16..144]);
        assert!(a1.to_vec()[128..].iter().all(|x| x.to_f32() == 0.0));
        // two rows of one block (16 halves), one block skipped in the source and two in L1
        let b1 = l1.alloc_at::<B1, f16>(256);
        data_copy_params(&b1, &g, &DataCopyParams::new(2, 1, 1, 2));
        let got = b1.to_vec();
        assert_eq!(got[..16], src[..16]);
        assert_eq!(got[48..64], src[32..48]);
        assert!(got[16..48].iter().chain(&got[64..]).all(|x| x.to_f32() == 0.0));
    });
    for soc in [Soc::Ascend910, Soc::Ascend310P] {
        on(soc, || {
            let (_r, g) = gm(&src);
            let mut l1 = LocalMemAllocator::<L1>::new();
            let a1 = l1.alloc_at::<A1, f16>(256);
            data_copy(&a1, &g, 256);
            assert_eq!(a1.to_vec(), src);
        });
    }
    let (_r, g) = gm(&src);
    expect_panic(
        || {
            on(Soc::Ascend910B, || {
                let mut l1 = LocalMemAllocator::<L1>::new();
                data_copy(&g, &l1.alloc_at::<A1, f16>(256), 256);
            })
        },
        &["DataCopy", "src is in L1: DataCopy moves GM -> L1 only"],
    );
    expect_panic(
        || {
            on(Soc::Ascend910B, || {
                let mut l1 = LocalMemAllocator::<L1>::new();
                data_copy(&l1.alloc_at::<A1, f16>(256).view(8), &g, 16);
            })
        },
        &["DataCopy", "dst L1 address = 0x10 is not 32-byte aligned"],
    );
    expect_panic(
        || {
            on(Soc::Ascend310B, || {
                let mut l1 = LocalMemAllocator::<L1>::new();
                data_copy(&l1.alloc_at::<A1, f16>(256), &g, 256);
            })
        },
        &["DataCopy GM -> L1 is not supported on Ascend310B"],
    );
}
