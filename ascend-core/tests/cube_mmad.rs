//! `LoadData` (2D) and `Mmad`: the pseudo-code `load2d.py` and the docs' feature examples
//! against a scalar reference, random parameters, end-to-end L1 (NZ) → LoadData → Mmad runs
//! against a naive reference of the documented arithmetic (bit for bit), and every check.

use ascend_core::ctx::{CoreConfig, KernelType};
use ascend_core::cube::load_data::{load_data, LoadData2DParams, LoadDataElement};
use ascend_core::cube::mmad::{mmad, MmadParams, MmadTypes};
use ascend_core::prelude::*;

use crate::common::util;
use util::{assert_fails, bits, gm, on, Rng};

/// Runs `f` on the cube core (AIC) of an Ascend910B cube kernel.
fn aic(f: impl FnOnce()) {
    run_on_core(
        CoreConfig { kernel_type: Some(KernelType::AicOnly), ..CoreConfig::single(Soc::Ascend910B) },
        f,
    )
}

fn frac_elems<T: Element>() -> usize {
    512 / T::SIZE
}

/// `load2d.py`, element for element: repeat `i` copies source fractal `start + i * stride` to
/// destination fractal `i * (gap + 1)`, transposed (16 × 16) if asked.
fn ref_load2d<T: Copy>(src: &[T], dst: &mut [T], p: &LoadData2DParams, fe: usize) {
    for i in 0..p.repeat_times as usize {
        let s = (p.start_index as usize + i * p.src_stride as usize) * fe;
        let d = i * (p.dst_gap as usize + 1) * fe;
        for e in 0..fe {
            let from = if p.if_transpose { (e % 16) * 16 + e / 16 } else { e };
            dst[d + e] = src[s + from];
        }
    }
}

/// Loads `src_vals` (staged in L1 at `A1`) into L0A or L0B with `p` and compares the whole
/// destination (sentinel-filled before) with the reference.
fn check_load<T: LoadDataElement>(
    dst_pos: TPosition,
    src_vals: &[T],
    dst_len: usize,
    p: &LoadData2DParams,
    fill: T,
) {
    let src = LocalTensor::<T>::new(TPosition::A1, 0, src_vals.len());
    let dst = LocalTensor::<T>::new(dst_pos, 0, dst_len);
    src.copy_from_slice(src_vals);
    dst.copy_from_slice(&vec![fill; dst_len]);
    load_data(&dst, &src, p);
    let mut want = vec![fill; dst_len];
    ref_load2d(src_vals, &mut want, p, frac_elems::<T>());
    assert_eq!(bits(&dst.to_vec()), bits(&want), "{p:?}");
}

fn iota<T: Element>(n: usize) -> Vec<T> {
    (0..n).map(|i| T::from_f64((i % 97) as f64 + 1.0)).collect()
}

#[test]
fn load2d_py_main_and_doc_features() {
    aic(|| {
        // load2d.py's own run: b16, one fractal, stride 1.
        let src: Vec<i16> = (0..4096).map(|i| i as i16).collect();
        check_load(TPosition::A2, &src, 4096, &LoadData2DParams::new(0, 1, 1, 0, 0, false, 0), 0);
        // Non-continuous: four float fractals, srcStride 2, dstGap 2.
        let f: Vec<f32> = iota(16 * 128);
        check_load(TPosition::A2, &f, 16 * 128, &LoadData2DParams::new(0, 4, 2, 0, 2, false, 0), -1.0);
        // startIndex 1.
        check_load(TPosition::A2, &f, 16 * 128, &LoadData2DParams::new(1, 4, 2, 0, 2, false, 0), -1.0);
        // Transpose: half, repeat 2, srcStride 2, dstGap 2.
        let hv: Vec<f16> = iota(8 * 256);
        check_load(TPosition::A2, &hv, 8 * 256, &LoadData2DParams::new(0, 2, 2, 0, 2, true, 0), f16::ZERO);
        check_load(TPosition::B2, &hv, 8 * 256, &LoadData2DParams::new(0, 3, 2, 0, 1, true, 0), f16::ZERO);
        // srcStride 0 reads the same fractal every repeat.
        check_load(TPosition::B2, &hv, 8 * 256, &LoadData2DParams::new(3, 4, 0, 0, 0, false, 0), f16::ZERO);
    });
}

/// The docs' "six float fractals into L0A" example: three calls of repeat 2, srcStride 1,
/// dstGap 2, each moving the source by 2 fractals and the destination by 1.
#[test]
fn doc_six_float_fractals() {
    aic(|| {
        let fe = 128;
        let src = LocalTensor::<f32>::new(TPosition::A1, 0, 6 * fe);
        let dst = LocalTensor::<f32>::new(TPosition::A2, 0, 6 * fe);
        src.copy_from_slice(&(0..6 * fe).map(|i| (i / fe) as f32).collect::<Vec<_>>());
        for c in 0..3 {
            load_data(
                &dst.view(c * fe),
                &src.view(2 * c * fe),
                &LoadData2DParams::new(0, 2, 1, 0, 2, false, 0),
            );
        }
        let out = dst.to_vec();
        let order: Vec<f32> = (0..6).map(|d| out[d * fe]).collect();
        assert_eq!(order, [0.0, 2.0, 4.0, 1.0, 3.0, 5.0]);
        for d in 0..6 {
            assert!(out[d * fe..(d + 1) * fe].iter().all(|&x| x == order[d]));
        }
    });
}

/// The docs' "eight float fractals into L0B": two calls of repeat 4, srcStride 2, dstGap 1,
/// each moving both sides by one fractal: an interleave.
#[test]
fn doc_eight_float_fractals_into_l0b() {
    aic(|| {
        let fe = 128;
        let src = LocalTensor::<f32>::new(TPosition::B1, 0, 8 * fe);
        let dst = LocalTensor::<f32>::new(TPosition::B2, 0, 8 * fe);
        src.copy_from_slice(&(0..8 * fe).map(|i| (i / fe) as f32).collect::<Vec<_>>());
        for c in 0..2 {
            load_data(&dst.view(c * fe), &src.view(c * fe), &LoadData2DParams::new(0, 4, 2, 0, 1, false, 0));
        }
        let order: Vec<f32> = (0..8).map(|d| dst.to_vec()[d * fe]).collect();
        assert_eq!(order, [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
    });
}

#[test]
fn transpose_moves_element_rc_to_cr() {
    aic(|| {
        let src = LocalTensor::<bf16>::new(TPosition::A1, 0, 256);
        let dst = LocalTensor::<bf16>::new(TPosition::B2, 0, 256);
        src.copy_from_slice(&(0..256).map(|i| bf16::from_f32(i as f32)).collect::<Vec<_>>());
        load_data(&dst, &src, &LoadData2DParams::new(0, 1, 0, 0, 0, true, 0));
        let out = dst.to_vec();
        for r in 0..16 {
            for c in 0..16 {
                assert_eq!(out[r * 16 + c].to_f32(), (c * 16 + r) as f32);
            }
        }
    });
}

#[test]
fn repeat_zero_is_a_no_op_and_gm_source_loads() {
    aic(|| {
        let dst = LocalTensor::<i8>::new(TPosition::A2, 0, 4 * 512);
        dst.copy_from_slice(&vec![7i8; 4 * 512]);
        let data: Vec<i8> = (0..6 * 512).map(|i| (i % 251) as i8).collect();
        let (_region, g) = gm(&data);
        load_data(&dst, &g, &LoadData2DParams::new(5, 0, 9, 0, 0, false, 0));
        assert!(dst.to_vec().iter().all(|&x| x == 7));
        let p = LoadData2DParams::new(1, 2, 3, 0, 1, false, 0);
        load_data(&dst, &g, &p);
        let mut want = vec![7i8; 4 * 512];
        ref_load2d(&data, &mut want, &p, 512);
        assert_eq!(dst.to_vec(), want);
    });
}

fn random_loads<T: LoadDataElement>(rng: &mut Rng, soc: Soc, cases: usize) {
    let fe = frac_elems::<T>();
    on(soc, || {
        for _ in 0..cases {
            let transpose = T::SIZE == 2 && rng.chance(3);
            let repeat = rng.range(0, 12) as u8;
            let stride = rng.range(0, 5) as u16;
            let start = rng.range(0, 6) as u16;
            let gap = if soc == Soc::Ascend910 { 0 } else { rng.range(0, 3) as u16 };
            let p = LoadData2DParams::new(start, repeat, stride, 0, gap, transpose, 0);
            let r = (repeat as usize).max(1);
            let src_fracs = start as usize + (r - 1) * stride as usize + 1 + rng.index(3);
            let dst_fracs = (r - 1) * (gap as usize + 1) + 1 + rng.index(3);
            let vals: Vec<T> = (0..src_fracs * fe).map(|_| T::from_f64(rng.range(0, 120) as f64)).collect();
            let pos = if rng.chance(2) { TPosition::A2 } else { TPosition::B2 };
            check_load(pos, &vals, dst_fracs * fe, &p, T::from_f64(1.0));
            if !transpose {
                // The same from global memory.
                let dst = LocalTensor::<T>::new(pos, 0, dst_fracs * fe);
                dst.copy_from_slice(&vec![T::ZERO; dst_fracs * fe]);
                let (_region, g) = gm(&vals);
                load_data(&dst, &g, &p);
                let mut want = vec![T::ZERO; dst_fracs * fe];
                ref_load2d(&vals, &mut want, &p, fe);
                assert_eq!(bits(&dst.to_vec()), bits(&want), "{soc} GM {p:?}");
            }
        }
    });
}

#[test]
fn random_parameters_match_the_reference() {
    let mut rng = Rng(0x10ad);
    for soc in Soc::ALL {
        random_loads::<u8>(&mut rng, soc, 40);
        random_loads::<i16>(&mut rng, soc, 40);
        random_loads::<f16>(&mut rng, soc, 40);
    }
    for soc in [Soc::Ascend910B, Soc::Ascend310B] {
        random_loads::<bf16>(&mut rng, soc, 40);
        random_loads::<f32>(&mut rng, soc, 40);
        random_loads::<i32>(&mut rng, soc, 40);
    }
}

// ---- Mmad ------------------------------------------------------------------------------

/// The documented float arithmetic, on logical matrices: per run of `k0` depths an f64 dot
/// product rounded once to f32, added to the f32 accumulator; saturation at the end.
#[allow(clippy::too_many_arguments)]
fn ref_mmad_f(
    a: &[f64],
    b: &[f64],
    c: Option<&[f32]>,
    m: usize,
    n: usize,
    k: usize,
    k0: usize,
    sat: bool,
) -> Vec<f32> {
    let mut out = vec![0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut acc = c.map_or(0.0, |c| c[i * n + j]);
            let mut p = 0;
            while p < k {
                let end = (p + k0).min(k);
                let mut s = 0f64;
                for kk in p..end {
                    s += a[i * k + kk] * b[kk * n + j];
                }
                acc += s as f32;
                p = end;
            }
            if sat && acc.is_nan() {
                acc = 0.0;
            } else if sat && acc.is_infinite() {
                acc = if acc > 0.0 { f32::MAX } else { -f32::MAX };
            }
            out[i * n + j] = acc;
        }
    }
    out
}

/// Integer reference: exact, saturated to `[lo, hi]`.
#[allow(clippy::too_many_arguments)]
fn ref_mmad_i(
    a: &[i64],
    b: &[i64],
    c: Option<&[i64]>,
    m: usize,
    n: usize,
    k: usize,
    lo: i64,
    hi: i64,
) -> Vec<i64> {
    (0..m * n)
        .map(|x| {
            let (i, j) = (x / n, x % n);
            let s: i64 = (0..k).map(|kk| a[i * k + kk] * b[kk * n + j]).sum();
            (c.map_or(0, |c| c[x]) + s).clamp(lo, hi)
        })
        .collect()
}

/// NZ in L1 of an `rows × cols` matrix with `c0` columns per fractal: element (r, c) at
/// `((c / c0) * R1 + r / 16) * 16 * c0 + (r % 16) * c0 + c % c0`, padding zero.
fn nz<T: Element>(v: &[T], rows: usize, cols: usize, c0: usize) -> Vec<T> {
    let r1 = rows.div_ceil(16);
    let cb = cols.div_ceil(c0);
    let mut out = vec![T::ZERO; r1 * cb * 16 * c0];
    for r in 0..rows {
        for c in 0..cols {
            out[((c / c0) * r1 + r / 16) * 16 * c0 + (r % 16) * c0 + c % c0] = v[r * cols + c];
        }
    }
    out
}

fn c_at(i: usize, j: usize, m1: usize) -> usize {
    ((j / 16) * m1 + i / 16) * 256 + (i % 16) * 16 + j % 16
}

/// Runs the `matmul_basic_api` flow for an `m × k` by `k × n` product: A staged in L1 as NZ
/// and loaded row block by row block (no transpose); B staged as NZ and loaded with the
/// transpose (16-bit types) or, for the other types, staged as NZ of Bᵀ and loaded as is
/// (the docs' "B transposed" case). With `m == 1` A is a plain row (GEMV). `c_init` (logical
/// `m × n`) is written to L0C first and accumulated with `cmatrix_init_val = false`. Returns
/// the logical C and checks that padding of L0C kept its sentinel.
fn run_e2e<D: Element, A: LoadDataElement>(
    a: &[A],
    b: &[A],
    c_init: Option<&[D]>,
    m: usize,
    n: usize,
    k: usize,
) -> Vec<D>
where
    (D, A, A): MmadTypes,
{
    let k0 = 32 / A::SIZE;
    let fe = 16 * k0;
    let (m1, n1, k1) = (m.div_ceil(16), n.div_ceil(16), k.div_ceil(k0));
    let mut l1 = LocalMemAllocator::<L1>::new();
    let mut l0a = LocalMemAllocator::<L0A>::new();
    let mut l0b = LocalMemAllocator::<L0B>::new();
    let mut l0c = LocalMemAllocator::<L0C>::new();
    let a2 = l0a.alloc::<A>(m1 * k1 * fe);
    let b2 = l0b.alloc::<A>(k1 * n1 * fe);
    let c1 = l0c.alloc::<D>(m1 * n1 * 256);
    if m == 1 {
        // GEMV: the row as is, loaded as whole fractals.
        let mut row = a.to_vec();
        row.resize(k1 * fe, A::ZERO);
        let a1 = l1.alloc_at::<A1, A>(row.len());
        a1.copy_from_slice(&row);
        load_data(&a2, &a1, &LoadData2DParams::new(0, k1 as u8, 1, 0, 0, false, 0));
    } else {
        let staged = nz(a, m, k, k0);
        let a1 = l1.alloc_at::<A1, A>(staged.len());
        a1.copy_from_slice(&staged);
        for i in 0..m1 {
            let p = LoadData2DParams::new(i as u16, k1 as u8, m1 as u16, 0, 0, false, 0);
            load_data(&a2.view(i * k1 * fe), &a1, &p);
        }
    }
    if A::SIZE == 2 {
        let staged = nz(b, k, n, 16);
        let b1 = l1.alloc_at::<B1, A>(staged.len());
        b1.copy_from_slice(&staged);
        for kb in 0..k1 {
            let p = LoadData2DParams::new(0, n1 as u8, k1 as u16, 0, 0, true, 0);
            load_data(&b2.view(kb * n1 * fe), &b1.view(kb * fe), &p);
        }
    } else {
        let bt: Vec<A> = (0..n * k).map(|x| b[(x % k) * n + x / k]).collect();
        let staged = nz(&bt, n, k, k0);
        let b1 = l1.alloc_at::<B1, A>(staged.len());
        b1.copy_from_slice(&staged);
        load_data(&b2, &b1, &LoadData2DParams::new(0, (k1 * n1) as u8, 1, 0, 0, false, 0));
    }
    let sentinel = D::from_f64(-7.0);
    let mut cv = vec![sentinel; m1 * n1 * 256];
    if let Some(ci) = c_init {
        for i in 0..m {
            for j in 0..n {
                cv[c_at(i, j, m1)] = ci[i * n + j];
            }
        }
    }
    c1.copy_from_slice(&cv);
    let params = MmadParams::new(m as u16, n as u16, k as u16, 0, false, c_init.is_none());
    mmad(&c1, &a2, &b2, &params);
    let out = c1.to_vec();
    let mut logical = Vec::with_capacity(m * n);
    let mut touched = vec![false; out.len()];
    for i in 0..m {
        for j in 0..n {
            logical.push(out[c_at(i, j, m1)]);
            touched[c_at(i, j, m1)] = true;
        }
    }
    for (x, t) in touched.iter().enumerate() {
        if !t {
            assert_eq!(out[x].to_bits_u64(), sentinel.to_bits_u64(), "padding of C at {x} was written");
        }
    }
    logical
}

fn rand_f(rng: &mut Rng, scale: f64) -> f64 {
    (rng.next() as f64 / u64::MAX as f64 * 2.0 - 1.0) * scale
}

fn float_case<A: LoadDataElement>(rng: &mut Rng, m: usize, n: usize, k: usize, acc: bool, scale: f64)
where
    (f32, A, A): MmadTypes,
{
    let a: Vec<A> = (0..m * k).map(|_| A::from_f64(rand_f(rng, scale))).collect();
    let b: Vec<A> = (0..k * n).map(|_| A::from_f64(rand_f(rng, scale))).collect();
    let c: Vec<f32> = (0..m * n).map(|_| rand_f(rng, 100.0) as f32).collect();
    let c_init = if acc { Some(&c[..]) } else { None };
    let got = run_e2e::<f32, A>(&a, &b, c_init, m, n, k);
    let af: Vec<f64> = a.iter().map(|x| x.to_f64()).collect();
    let bf: Vec<f64> = b.iter().map(|x| x.to_f64()).collect();
    let sat = get_overflow_mode() == OverflowMode::Saturation;
    let want = ref_mmad_f(&af, &bf, c_init, m, n, k, 32 / A::SIZE, sat);
    assert_eq!(bits(&got), bits(&want), "{} m={m} n={n} k={k} acc={acc}", A::DTYPE);
}

const SHAPES: [(usize, usize, usize); 7] =
    [(16, 16, 16), (30, 40, 70), (1, 50, 37), (1, 16, 256), (17, 3, 5), (33, 17, 64), (48, 32, 9)];

#[test]
fn e2e_float_types_bit_exact() {
    let mut rng = Rng(0x3a4d);
    aic(|| {
        for &(m, n, k) in &SHAPES {
            for acc in [false, true] {
                float_case::<f16>(&mut rng, m, n, k, acc, 4.0);
                float_case::<bf16>(&mut rng, m, n, k, acc, 4.0);
                float_case::<f32>(&mut rng, m, n, k, acc, 4.0);
            }
        }
    });
    // half inputs on the other chips (saturation mode is their default).
    for soc in [Soc::Ascend910, Soc::Ascend310P, Soc::Ascend310B] {
        on(soc, || float_case::<f16>(&mut rng, 30, 40, 70, true, 4.0));
    }
}

/// The K0-run blocking is observable: 1 + 2^-24 × 16 in one f64 run survives where a
/// per-product f32 sum would lose it.
#[test]
fn float_runs_are_summed_in_f64_then_rounded_once() {
    aic(|| {
        let k = 17;
        let mut a = vec![f32::EPSILON / 4.0; k];
        a[0] = 1.0;
        let b = vec![1.0f32; k];
        let c = run_e2e::<f32, f32>(&a, &b, None, 1, 1, k);
        // Run 0: 1 + 7 × 2^-25 rounds up to 1 + 2^-22; run 1 adds 2^-22; run 2's 2^-25 is
        // lost. Summed product by product in f32, every 2^-25 is lost: 1.0.
        let mut acc = 0f32;
        for run in a.chunks(8) {
            acc += run.iter().map(|&x| x as f64).sum::<f64>() as f32;
        }
        assert_eq!(c[0].to_bits(), acc.to_bits());
        let naive: f32 = a.iter().sum();
        assert_ne!(c[0].to_bits(), naive.to_bits());
    });
}

fn int_case<D: Element, A: Element, B: Element>(
    rng: &mut Rng,
    m: usize,
    n: usize,
    k: usize,
    c_init: Option<i64>,
) where
    (D, A, B): MmadTypes,
{
    // Direct staging in L0A (Zz) / L0B (Zn) for mixed-sign triples.
    let k0 = 32;
    let (m1, n1, k1) = (m.div_ceil(16), n.div_ceil(16), k.div_ceil(k0));
    let a: Vec<i64> =
        (0..m * k).map(|_| A::from_f64(rng.range(0, 255) as f64 - 128.0).to_f64() as i64).collect();
    let b: Vec<i64> =
        (0..k * n).map(|_| B::from_f64(rng.range(0, 255) as f64 - 128.0).to_f64() as i64).collect();
    let mut za = vec![A::ZERO; m1 * k1 * 512];
    for i in 0..m {
        for kk in 0..k {
            let at = if m == 1 { kk } else { ((i / 16) * k1 + kk / k0) * 512 + (i % 16) * k0 + kk % k0 };
            za[at] = A::from_f64(a[i * k + kk] as f64);
        }
    }
    let mut zb = vec![B::ZERO; k1 * n1 * 512];
    for kk in 0..k {
        for j in 0..n {
            zb[((kk / k0) * n1 + j / 16) * 512 + (j % 16) * k0 + kk % k0] = B::from_f64(b[kk * n + j] as f64);
        }
    }
    let fa = LocalTensor::<A>::new(TPosition::A2, 0, za.len());
    let fb = LocalTensor::<B>::new(TPosition::B2, 0, zb.len());
    let c = LocalTensor::<D>::new(TPosition::CO1, 0, m1 * n1 * 256);
    fa.copy_from_slice(&za);
    fb.copy_from_slice(&zb);
    let init: Vec<i64> = vec![c_init.unwrap_or(0); m * n];
    c.copy_from_slice(&vec![D::from_f64(c_init.unwrap_or(0) as f64); m1 * n1 * 256]);
    mmad(&c, &fa, &fb, &MmadParams::new(m as u16, n as u16, k as u16, 0, false, c_init.is_none()));
    let (lo, hi) = (D::MIN.to_f64() as i64, D::MAX.to_f64() as i64);
    let want = ref_mmad_i(&a, &b, c_init.map(|_| &init[..]), m, n, k, lo, hi);
    let out = c.to_vec();
    for i in 0..m {
        for j in 0..n {
            assert_eq!(out[c_at(i, j, m1)].to_f64() as i64, want[i * n + j], "({i}, {j}) m={m} n={n} k={k}");
        }
    }
}

#[test]
fn e2e_int8_exact() {
    let mut rng = Rng(0x18);
    aic(|| {
        for &(m, n, k) in &SHAPES {
            let a: Vec<i8> = (0..m * k).map(|_| rng.range(0, 255) as i8).collect();
            let b: Vec<i8> = (0..k * n).map(|_| rng.range(0, 255) as i8).collect();
            let got = run_e2e::<i32, i8>(&a, &b, None, m, n, k);
            let ai: Vec<i64> = a.iter().map(|&x| x as i64).collect();
            let bi: Vec<i64> = b.iter().map(|&x| x as i64).collect();
            let want = ref_mmad_i(&ai, &bi, None, m, n, k, i32::MIN as i64, i32::MAX as i64);
            assert_eq!(got.iter().map(|&x| x as i64).collect::<Vec<_>>(), want, "m={m} n={n} k={k}");
        }
    });
}

#[test]
fn integer_triples_per_chip_and_saturation() {
    let mut rng = Rng(0x1a7);
    on(Soc::Ascend310P, || {
        int_case::<i32, u8, i8>(&mut rng, 20, 18, 40, None);
        int_case::<i32, u8, u8>(&mut rng, 1, 33, 64, Some(5));
        int_case::<i32, i8, i8>(&mut rng, 16, 16, 32, Some(i32::MAX as i64 - 10));
    });
    on(Soc::Ascend910, || {
        int_case::<u32, u8, u8>(&mut rng, 17, 16, 33, Some(u32::MAX as i64 - 3));
        int_case::<i32, u8, i8>(&mut rng, 32, 20, 31, Some(i32::MIN as i64 + 2));
    });
}

#[test]
fn saturation_mode_clamps_inf_and_zeroes_nan() {
    for mode in [OverflowMode::InfNan, OverflowMode::Saturation] {
        aic(|| {
            set_overflow_mode(mode);
            // k = 16 float: run 0 overflows to +inf, run 1 to -inf (NaN at the end), and a
            // second column that only overflows (+inf).
            let (m, n, k) = (16, 2, 16);
            let mut a = vec![0f32; m * k];
            let mut b = vec![0f32; k * n];
            for i in 0..m {
                for kk in 0..k {
                    a[i * k + kk] = 3e38;
                }
            }
            for kk in 0..k {
                b[kk * n] = if kk < 8 { 3e38 } else { -3e38 };
                b[kk * n + 1] = -3e38;
            }
            let got = run_e2e::<f32, f32>(&a, &b, None, m, n, k);
            let sat = mode == OverflowMode::Saturation;
            for i in 0..m {
                if sat {
                    assert_eq!(got[i * n], 0.0);
                    assert_eq!(got[i * n + 1], -f32::MAX);
                } else {
                    assert!(got[i * n].is_nan());
                    assert_eq!(got[i * n + 1], f32::NEG_INFINITY);
                }
            }
        });
    }
    // Ascend310B has saturation mode only.
    on(Soc::Ascend310B, || {
        let a = vec![3e38f32; 8];
        let b = vec![3e38f32; 8];
        assert_eq!(run_e2e::<f32, f32>(&a, &b, None, 1, 1, 8)[0], f32::MAX);
    });
}

#[test]
fn k_direction_align_spaces_a_rows_by_sixteen() {
    aic(|| {
        // float, m = 32, k = 36: K1 = ceil(36/16) * 2 = 6 instead of 5.
        let (m, n, k) = (32usize, 16usize, 36usize);
        let mut rng = Rng(0xa11);
        let a: Vec<f32> = (0..m * k).map(|_| rand_f(&mut rng, 2.0) as f32).collect();
        let b: Vec<f32> = (0..k * n).map(|_| rand_f(&mut rng, 2.0) as f32).collect();
        let k1 = 6;
        let mut za = vec![f32::NAN; 2 * k1 * 128]; // the padding is never read
        for i in 0..m {
            for kk in 0..k {
                za[((i / 16) * k1 + kk / 8) * 128 + (i % 16) * 8 + kk % 8] = a[i * k + kk];
            }
        }
        let mut zb = vec![f32::NAN; 5 * 128];
        for kk in 0..k {
            for j in 0..n {
                zb[((kk / 8) + j / 16) * 128 + (j % 16) * 8 + kk % 8] = b[kk * n + j];
            }
        }
        let fa = LocalTensor::<f32>::new(TPosition::A2, 0, za.len());
        let fb = LocalTensor::<f32>::new(TPosition::B2, 0, zb.len());
        let c = LocalTensor::<f32>::new(TPosition::CO1, 0, 2 * 256);
        fa.copy_from_slice(&za);
        fb.copy_from_slice(&zb);
        let mut p = MmadParams::new(m as u16, n as u16, k as u16, 0, false, true);
        p.k_direction_align = true;
        mmad(&c, &fa, &fb, &p);
        let af: Vec<f64> = a.iter().map(|&x| x as f64).collect();
        let bf: Vec<f64> = b.iter().map(|&x| x as f64).collect();
        let want = ref_mmad_f(&af, &bf, None, m, n, k, 8, false);
        let out = c.to_vec();
        for i in 0..m {
            for j in 0..n {
                assert_eq!(out[c_at(i, j, 2)].to_bits(), want[i * n + j].to_bits());
            }
        }
    });
}

#[test]
fn is_bias_accumulates_and_zero_dims_are_no_ops() {
    aic(|| {
        let a = LocalTensor::<f16>::new(TPosition::A2, 0, 256);
        let b = LocalTensor::<f16>::new(TPosition::B2, 0, 256);
        let c = LocalTensor::<f32>::new(TPosition::CO1, 0, 256);
        a.copy_from_slice(&[f16::ONE; 256]);
        b.copy_from_slice(&[f16::ONE; 256]);
        c.copy_from_slice(&[1.0; 256]);
        mmad(&c, &a, &b, &MmadParams::new_legacy(16, 16, 16, true, 0, false, false, false));
        assert!(c.to_vec().iter().all(|&x| x == 17.0));
        for (m, n, k) in [(0, 16, 16), (16, 0, 16), (16, 16, 0)] {
            mmad(&c, &a, &b, &MmadParams::new(m, n, k, 0, false, true));
        }
        assert!(c.to_vec().iter().all(|&x| x == 17.0));
        // Deprecated fields and unit flags 2/3 change nothing.
        let mut p = MmadParams::new(16, 16, 16, 3, false, true);
        p.fm_offset = 5;
        p.en_ssparse = true;
        mmad(&c, &a, &b, &p);
        assert!(c.to_vec().iter().all(|&x| x == 16.0));
    });
}

#[test]
fn params_defaults_and_constructors() {
    let d = MmadParams::default();
    assert!(d.cmatrix_init_val && !d.cmatrix_source && !d.is_bias && d.unit_flag == 0);
    let p = MmadParams::new(1, 2, 3, 2, false, false);
    assert_eq!((p.m, p.n, p.k, p.unit_flag, p.cmatrix_init_val), (1, 2, 3, 2, false));
    let l = LoadData2DParams::new(1, 2, 3, 4, 5, true, 0);
    assert_eq!(
        (l.start_index, l.repeat_times, l.src_stride, l.sid, l.dst_gap, l.if_transpose),
        (1, 2, 3, 4, 5, true)
    );
    assert_eq!(LoadData2DParams::default(), LoadData2DParams::new(0, 0, 0, 0, 0, false, 0));
}

// ---- errors ----------------------------------------------------------------------------

#[test]
fn load_data_errors() {
    let one = LoadData2DParams::new(0, 1, 1, 0, 0, false, 0);
    on(Soc::Ascend910, || {
        let s = LocalTensor::<f32>::new(TPosition::A1, 0, 128);
        let d = LocalTensor::<f32>::new(TPosition::A2, 0, 128);
        assert_fails("LoadData: T = float is not supported on Ascend910", || load_data(&d, &s, &one));
        let s = LocalTensor::<f16>::new(TPosition::A1, 0, 512);
        let d = LocalTensor::<f16>::new(TPosition::A2, 0, 512);
        assert_fails("dst_gap = 1: Ascend910's load instruction has no destination gap", || {
            load_data(&d, &s, &LoadData2DParams::new(0, 1, 1, 0, 1, false, 0))
        });
    });
    aic(|| {
        let s = LocalTensor::<f16>::new(TPosition::A1, 0, 1024);
        let d = LocalTensor::<f16>::new(TPosition::A2, 0, 512);
        let l1_dst = LocalTensor::<f16>::new(TPosition::B1, 2048, 256);
        assert_fails(
            "dst is at position B1 in the L1 buffer: LoadData takes it in the L0A buffer or the L0B buffer",
            || load_data(&l1_dst, &s, &one),
        );
        let d_off = LocalTensor::<f16>::new(TPosition::B2, 32, 256);
        assert_fails("dst address = 0x20 in the L0B buffer is not 512-byte aligned", || {
            load_data(&d_off, &s, &one)
        });
        assert_fails("src is at position A2 in the L0A buffer: LoadData takes it in the L1 buffer", || {
            load_data(&d.view(256), &d, &one)
        });
        assert_fails("src address = 0x2 in the L1 buffer is not 32-byte aligned", || {
            load_data(&d, &s.view(1), &one)
        });
        assert_fails("addr_mode = 1: only 0", || {
            load_data(&d, &s, &LoadData2DParams::new(0, 1, 1, 0, 0, false, 1))
        });
        assert_fails(
            "src would be read over 2560 bytes (start_index = 3, repeat_times = 2, src_stride = 1)",
            || load_data(&d, &s, &LoadData2DParams::new(3, 2, 1, 0, 0, false, 0)),
        );
        assert_fails(
            "dst would be accessed over 1536 bytes, but the tensor has 512 half elements (1024 bytes)",
            || load_data(&d, &s, &LoadData2DParams::new(0, 2, 1, 0, 1, false, 0)),
        );
        let (_r, g) = gm(&[f16::ZERO; 256]);
        assert_fails("if_transpose = true: only loads from L1", || {
            load_data(&d, &g, &LoadData2DParams::new(0, 1, 1, 0, 0, true, 0))
        });
        assert_fails("but the GlobalTensor has 256 half elements (512 bytes)", || {
            load_data(&d, &g, &LoadData2DParams::new(0, 2, 1, 0, 0, false, 0))
        });
        assert_fails("the GlobalTensor is not bound", || load_data(&d, &GlobalTensor::<f16>::new(), &one));
        let s32 = LocalTensor::<f32>::new(TPosition::A1, 0, 128);
        let d32 = LocalTensor::<f32>::new(TPosition::A2, 0, 128);
        assert_fails("if_transpose = true with T = float: the transpose takes 16-bit types only", || {
            load_data(&d32, &s32, &LoadData2DParams::new(0, 1, 1, 0, 0, true, 0))
        });
    });
}

#[test]
fn mmad_errors() {
    let p = MmadParams::new(16, 16, 16, 0, false, true);
    on(Soc::Ascend910, || {
        let c = LocalTensor::<f32>::new(TPosition::CO1, 0, 256);
        let a = LocalTensor::<f32>::new(TPosition::A2, 0, 128);
        let b = LocalTensor::<f32>::new(TPosition::B2, 0, 128);
        assert_fails("Mmad: dst/fm/filter = float/float/float is not supported on Ascend910", || {
            mmad(&c, &a, &b, &p)
        });
        let a = LocalTensor::<f16>::new(TPosition::A2, 0, 256);
        let b = LocalTensor::<f16>::new(TPosition::B2, 0, 256);
        assert_fails("unit_flag = 2: Ascend910 has no unit flag", || {
            mmad(&c, &a, &b, &MmadParams::new(16, 16, 16, 2, false, true))
        });
        assert_fails("cmatrix_source = true is not supported on Ascend910", || {
            mmad(&c, &a, &b, &MmadParams::new(16, 16, 16, 0, true, true))
        });
        let c16 = LocalTensor::<f16>::new(TPosition::CO1, 0, 256);
        assert_fails("dst/fm/filter = half/half/half on Ascend910 is not modelled", || {
            mmad(&c16, &a, &b, &p)
        });
    });
    on(Soc::Ascend310B, || {
        let c = LocalTensor::<f32>::new(TPosition::CO1, 0, 256);
        let a = LocalTensor::<f32>::new(TPosition::A2, 0, 128);
        let b = LocalTensor::<f32>::new(TPosition::B2, 0, 128);
        let mut q = MmadParams::new(16, 16, 8, 0, false, true);
        q.k_direction_align = true;
        assert_fails("k_direction_align = true is not supported on Ascend310B", || mmad(&c, &a, &b, &q));
        assert_fails(
            "cmatrix_source = true (C from the bias table C2) is not modelled on Ascend310B",
            || mmad(&c, &a, &b, &MmadParams::new(16, 16, 8, 0, true, false)),
        );
    });
    aic(|| {
        let c = LocalTensor::<f32>::new(TPosition::CO1, 0, 256);
        let a = LocalTensor::<f16>::new(TPosition::A2, 0, 256);
        let b = LocalTensor::<f16>::new(TPosition::B2, 0, 256);
        let c_off = LocalTensor::<f32>::new(TPosition::CO1, 512, 256);
        assert_fails("dst address = 0x200 in the L0C buffer is not 1024-byte aligned", || {
            mmad(&c_off, &a, &b, &p)
        });
        let b_in_a = LocalTensor::<f16>::new(TPosition::A2, 512, 256);
        assert_fails("filter is at position A2 in the L0A buffer: Mmad takes it in the L0B buffer", || {
            mmad(&c, &a, &b_in_a, &p)
        });
        let a_off = LocalTensor::<f16>::new(TPosition::A2, 32, 256);
        assert_fails("fm address = 0x20 in the L0A buffer is not 512-byte aligned", || {
            mmad(&c, &a_off, &b, &p)
        });
        assert_fails("m = 4096 is out of range [0, 4095]", || {
            mmad(&c, &a, &b, &MmadParams::new(4096, 16, 16, 0, false, true))
        });
        assert_fails("k = 5000 is out of range [0, 4095]", || {
            mmad(&c, &a, &b, &MmadParams::new(16, 16, 5000, 0, false, true))
        });
        assert_fails("unit_flag = 1: must be 0 (off), 2 or 3 (on)", || {
            mmad(&c, &a, &b, &MmadParams::new(16, 16, 16, 1, false, true))
        });
        assert_fails(
            "fm would be accessed over 1024 bytes, but the tensor has 256 half elements (512 bytes)",
            || mmad(&c, &a, &b, &MmadParams::new(16, 16, 17, 0, false, true)),
        );
        assert_fails("filter would be accessed over 1024 bytes", || {
            mmad(&c, &a, &b, &MmadParams::new(16, 17, 16, 0, false, true))
        });
        let b2 = LocalTensor::<f16>::new(TPosition::B2, 0, 512);
        assert_fails("dst would be accessed over 2048 bytes", || {
            mmad(&c, &a, &b2, &MmadParams::new(1, 17, 16, 0, false, true))
        });
        // GEMV reads k elements of A only.
        assert_fails("fm would be accessed over 514 bytes", || {
            mmad(&c, &a, &b, &MmadParams::new(1, 16, 257, 0, false, true))
        });
    });
}

#[test]
fn a_vector_core_has_no_cube_memory() {
    let cfg = CoreConfig { kernel_type: Some(KernelType::AivOnly), ..CoreConfig::single(Soc::Ascend910B) };
    run_on_core(cfg, || {
        assert_fails("is a memory of the cube core (AIC)", || {
            let _ = LocalTensor::<f16>::new(TPosition::A2, 0, 256);
        });
    });
}
