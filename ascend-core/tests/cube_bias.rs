//! The bias table: `DataCopy` L1 → BT (`data_copy_bias`) and `Mmad` with a bias row
//! (`mmad_with_bias`, and `mmad` with `cmatrix_source`), against a scalar reference of the
//! documented arithmetic (the bias as the accumulator's first value, then one f32 addition per
//! run of K0 depths), bit for bit; the `cmatrixInitVal` / `cmatrixSource` table; every check.

use ascend_core::ctx::{CoreConfig, KernelType};
use ascend_core::cube::bias_table::data_copy_bias;
use ascend_core::cube::mmad::{mmad, mmad_with_bias, MmadParams, MmadTypes};
use ascend_core::prelude::*;

use crate::common::util;
use util::{assert_fails, bits, on, Rng};

/// Runs `f` on the cube core (AIC) of an Ascend910B cube kernel.
fn aic(f: impl FnOnce()) {
    run_on_core(
        CoreConfig { kernel_type: Some(KernelType::AicOnly), ..CoreConfig::single(Soc::Ascend910B) },
        f,
    )
}

/// A (`m × k`, row-major) in L0A's Zz layout (a plain row for GEMV, `m = 1`) and B (`k × n`)
/// in L0B's Zn layout, as the Mmad module documents them; zero padding.
fn place<A: Element>(a: &[A], b: &[A], m: usize, n: usize, k: usize) -> (LocalTensor<A>, LocalTensor<A>) {
    let k0 = 32 / A::SIZE;
    let frac = 16 * k0;
    let (m1, n1, k1) = (m.div_ceil(16), n.div_ceil(16), k.div_ceil(k0));
    let mut za = vec![A::ZERO; m1 * k1 * frac];
    let mut zb = vec![A::ZERO; k1 * n1 * frac];
    for i in 0..m {
        for kk in 0..k {
            let at = if m == 1 { kk } else { ((i / 16) * k1 + kk / k0) * frac + (i % 16) * k0 + kk % k0 };
            za[at] = a[i * k + kk];
        }
    }
    for kk in 0..k {
        for j in 0..n {
            zb[((kk / k0) * n1 + j / 16) * frac + (j % 16) * k0 + kk % k0] = b[kk * n + j];
        }
    }
    let ta = LocalTensor::<A>::new(TPosition::A2, 0, za.len());
    let tb = LocalTensor::<A>::new(TPosition::B2, 0, zb.len());
    ta.copy_from_slice(&za);
    tb.copy_from_slice(&zb);
    (ta, tb)
}

/// C (`m × n`) out of L0C's NZ layout.
fn read_c<D: Element>(c: &LocalTensor<D>, m: usize, n: usize) -> Vec<D> {
    let all = c.to_vec();
    let m1 = m.div_ceil(16);
    (0..m * n).map(|x| all[((x % n / 16) * m1 + x / n / 16) * 256 + (x / n % 16) * 16 + x % n % 16]).collect()
}

/// The float reference: `acc = start[i][j]` (0 when `None`), then per run of `k0` depths an
/// f64 dot product rounded once to f32 and added in f32.
fn ref_f(
    a: &[f64],
    b: &[f64],
    start: impl Fn(usize, usize) -> f32,
    m: usize,
    n: usize,
    k: usize,
    k0: usize,
) -> Vec<f32> {
    let mut out = vec![0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut acc = start(i, j);
            for p in (0..k).step_by(k0) {
                let s: f64 = (p..(p + k0).min(k)).map(|kk| a[i * k + kk] * b[kk * n + j]).sum();
                acc += s as f32;
            }
            out[i * n + j] = acc;
        }
    }
    out
}

fn rand_f(rng: &mut Rng, scale: f64) -> f64 {
    (rng.next() as f64 / u64::MAX as f64 * 2.0 - 1.0) * scale
}

/// Random `m × k` by `k × n` with a random bias through L1 → BT → `mmad_with_bias`, against
/// the reference; then the same product with L0C pre-filled with the bias and accumulated
/// (`cmatrix_init_val = false`, no bias), which must agree bit for bit.
fn float_bias_case<A: Element>(rng: &mut Rng, m: usize, n: usize, k: usize)
where
    (f32, A, A): MmadTypes,
{
    let a: Vec<A> = (0..m * k).map(|_| A::from_f64(rand_f(rng, 4.0))).collect();
    let b: Vec<A> = (0..k * n).map(|_| A::from_f64(rand_f(rng, 4.0))).collect();
    let bias: Vec<f32> = (0..n).map(|_| rand_f(rng, 1000.0) as f32).collect();
    let (ta, tb) = place(&a, &b, m, n, k);
    let n16 = n.div_ceil(16) * 16;
    let l1 = LocalTensor::<f32>::new(TPosition::C1, 0, n16);
    let mut padded = bias.clone();
    padded.resize(n16, 0.0);
    l1.copy_from_slice(&padded);
    let bt = LocalTensor::<f32>::new(TPosition::C2, 0, n16);
    data_copy_bias(&bt, &l1, &DataCopyParams::new(1, (n16 * 4 / 64) as u16, 0, 0));
    let cl = m.div_ceil(16) * n.div_ceil(16) * 256;
    let c = LocalTensor::<f32>::new(TPosition::CO1, 0, cl);
    c.copy_from_slice(&vec![-7.0; cl]);
    mmad_with_bias(&c, &ta, &tb, &bt, &MmadParams::new(m as u16, n as u16, k as u16, 0, false, false));
    let got = read_c(&c, m, n);
    let af: Vec<f64> = a.iter().map(|x| x.to_f64()).collect();
    let bf: Vec<f64> = b.iter().map(|x| x.to_f64()).collect();
    let want = ref_f(&af, &bf, |_, j| bias[j], m, n, k, 32 / A::SIZE);
    assert_eq!(bits(&got), bits(&want), "{} m={m} n={n} k={k}", A::DTYPE);
    // Padding of L0C kept its value.
    if m % 16 != 0 {
        assert_eq!(c.to_vec()[(m / 16) * 256 + (m % 16) * 16], -7.0, "row {m} is padding");
    }

    // The same through L0C pre-filled with the bias (what the Matmul did before).
    let c2 = LocalTensor::<f32>::new(TPosition::CO1, cl * 4 / 1024 * 1024 + 1024, cl);
    let m1 = m.div_ceil(16);
    let mut fill = vec![0f32; cl];
    for i in 0..m {
        for j in 0..n {
            fill[((j / 16) * m1 + i / 16) * 256 + (i % 16) * 16 + j % 16] = bias[j];
        }
    }
    c2.copy_from_slice(&fill);
    mmad(&c2, &ta, &tb, &MmadParams::new(m as u16, n as u16, k as u16, 0, false, false));
    assert_eq!(bits(&read_c(&c2, m, n)), bits(&got), "BT path == pre-filled L0C, m={m} n={n} k={k}");
}

#[test]
fn bias_table_float_types_bit_exact_and_equal_to_a_prefilled_l0c() {
    aic(|| {
        let mut rng = Rng(31);
        for &(m, n, k) in &[(16, 16, 16), (30, 40, 70), (1, 50, 37), (17, 3, 5), (33, 256, 24), (48, 32, 9)] {
            float_bias_case::<f16>(&mut rng, m, n, k);
            float_bias_case::<bf16>(&mut rng, m, n, k);
            float_bias_case::<f32>(&mut rng, m, n, k);
        }
    });
}

#[test]
fn bias_is_the_first_addend_not_the_last() {
    // bias 2^24, a run of products summing to 1 + 1: added to the bias one run at a time, each
    // 1 is lost (2^24 + 1 rounds to 2^24 under ties-to-even); a bias added last would keep 2.
    aic(|| {
        let (m, n, k) = (16, 16, 32);
        let a = vec![f16::ONE; m * k];
        let mut b = vec![f16::ZERO; k * n];
        b[0] = f16::ONE; // run 0 (depths 0..16): 1
        b[16 * n] = f16::ONE; // run 1 (depths 16..32): 1
        let (ta, tb) = place(&a, &b, m, n, k);
        let l1 = LocalTensor::<f32>::new(TPosition::C1, 0, 16);
        l1.copy_from_slice(&[16_777_216.0; 16]);
        let bt = LocalTensor::<f32>::new(TPosition::C2, 0, 16);
        data_copy_bias(&bt, &l1, &DataCopyParams::new(1, 1, 0, 0));
        let c = LocalTensor::<f32>::new(TPosition::CO1, 0, 256);
        mmad_with_bias(&c, &ta, &tb, &bt, &MmadParams::new(16, 16, 32, 0, false, false));
        assert_eq!(c.to_vec()[0], 16_777_216.0);
        assert_eq!(c.to_vec()[1], 16_777_216.0);
    });
}

#[test]
fn int8_bias_is_exact_and_saturates() {
    aic(|| {
        let mut rng = Rng(7);
        let (m, n, k) = (20, 40, 70);
        let a: Vec<i8> = (0..m * k).map(|_| rng.next() as i8).collect();
        let b: Vec<i8> = (0..k * n).map(|_| rng.next() as i8).collect();
        let mut bias: Vec<i32> = (0..48).map(|_| (rng.next() as i32) >> 8).collect();
        bias[1] = i32::MAX - 10; // saturates upwards unless the sum is very negative
        let (ta, tb) = place(&a, &b, m, n, k);
        let l1 = LocalTensor::<i32>::new(TPosition::C1, 0, 48);
        l1.copy_from_slice(&bias);
        let bt = LocalTensor::<i32>::new(TPosition::C2, 256, 48);
        data_copy_bias(&bt, &l1, &DataCopyParams::new(1, 3, 0, 0));
        let c = LocalTensor::<i32>::new(TPosition::CO1, 0, 2 * 3 * 256);
        mmad_with_bias(&c, &ta, &tb, &bt, &MmadParams::new(m as u16, n as u16, k as u16, 0, false, false));
        let got = read_c(&c, m, n);
        for i in 0..m {
            for j in 0..n {
                let s: i64 = (0..k).map(|kk| a[i * k + kk] as i64 * b[kk * n + j] as i64).sum();
                let want = (bias[j] as i64 + s).clamp(i32::MIN as i64, i32::MAX as i64) as i32;
                assert_eq!(got[i * n + j], want, "({i}, {j})");
            }
        }
    });
}

#[test]
fn cmatrix_init_val_and_source_table() {
    aic(|| {
        let (m, n, k) = (16, 16, 16);
        let a = vec![f16::ONE; m * k];
        let b: Vec<f16> = (0..k * n).map(|x| f16::from_f32((x % n) as f32)).collect(); // B[kk][j] = j
        let (ta, tb) = place(&a, &b, m, n, k);
        let l1 = LocalTensor::<f32>::new(TPosition::C1, 0, 16);
        l1.copy_from_slice(&[100.0; 16]);
        let bt0 = LocalTensor::<f32>::new(TPosition::C2, 0, 16); // address 0: what `mmad` reads
        data_copy_bias(&bt0, &l1, &DataCopyParams::new(1, 1, 0, 0));
        let c = LocalTensor::<f32>::new(TPosition::CO1, 0, 256);
        let c_at = |i: usize, j: usize| c.to_vec()[i * 16 + j];
        let reset = || c.copy_from_slice(&[1000.0; 256]);
        // mmad: init_val -> 0; source -> BT address 0; neither -> C.
        reset();
        mmad(&c, &ta, &tb, &MmadParams::new(16, 16, 16, 0, true, true));
        assert_eq!(c_at(2, 3), 48.0, "cmatrixInitVal wins over cmatrixSource");
        reset();
        mmad(&c, &ta, &tb, &MmadParams::new(16, 16, 16, 0, true, false));
        assert_eq!(c_at(2, 3), 148.0, "bias table at address 0");
        reset();
        mmad(&c, &ta, &tb, &MmadParams::new(16, 16, 16, 0, false, false));
        assert_eq!(c_at(2, 3), 1048.0, "accumulate onto C");
        // The deprecated isBias turns cmatrixInitVal off in the form without bias.
        reset();
        let mut legacy = MmadParams::new_legacy(16, 16, 16, true, 0, false, false, false);
        mmad(&c, &ta, &tb, &legacy);
        assert_eq!(c_at(2, 3), 1048.0);
        legacy.cmatrix_source = true;
        reset();
        mmad(&c, &ta, &tb, &legacy);
        assert_eq!(c_at(2, 3), 148.0);
        // mmad_with_bias: the position decides, cmatrixSource is ignored, isBias too.
        let bt = LocalTensor::<f32>::new(TPosition::C2, 512, 16);
        l1.copy_from_slice(&[-5.0; 16]);
        data_copy_bias(&bt, &l1, &DataCopyParams::new(1, 1, 0, 0));
        for source in [false, true] {
            reset();
            mmad_with_bias(&c, &ta, &tb, &bt, &MmadParams::new(16, 16, 16, 0, source, false));
            assert_eq!(c_at(2, 3), 43.0, "bias in C2, cmatrixSource = {source}");
            reset();
            mmad_with_bias(&c, &ta, &tb, &bt, &MmadParams::new(16, 16, 16, 0, source, true));
            assert_eq!(c_at(2, 3), 48.0, "cmatrixInitVal = true starts at 0");
        }
        reset();
        mmad_with_bias(&c, &ta, &tb, &bt, &legacy); // isBias: cmatrix_init_val stays true
        assert_eq!(c_at(2, 3), 48.0);
        // A bias in L0C: C += A x B (cmatrixSource = false, "the C matrix is in L0C").
        let in_l0c = LocalTensor::<f32>::new(TPosition::CO1, 1024, 256);
        reset();
        mmad_with_bias(&c, &ta, &tb, &in_l0c, &MmadParams::new(16, 16, 16, 0, true, false));
        assert_eq!(c_at(2, 3), 1048.0);
    });
}

#[test]
fn data_copy_bias_layouts() {
    aic(|| {
        // half -> float, two rows: blockLen counts 64-byte units of the source (32 halves),
        // srcGap 32-byte blocks, dstGap 64-byte blocks.
        let l1 = LocalTensor::<f16>::new(TPosition::C1, 0, 128);
        l1.copy_from_slice(&(0..128).map(|i| f16::from_f32(i as f32 - 60.25)).collect::<Vec<_>>());
        let bt = LocalTensor::<f32>::new(TPosition::C2, 0, 256);
        bt.copy_from_slice(&[9.0; 256]);
        data_copy_bias(&bt, &l1, &DataCopyParams::new(2, 1, 2, 1));
        let got = bt.to_vec();
        for i in 0..32 {
            assert_eq!(got[i], i as f32 - 60.25, "row 0, {i}");
            // row 1: source from half 32 + 32 (gap 2 blocks of 16 halves), dest at 32 + 16 floats
            assert_eq!(got[48 + i], (64 + i) as f32 - 60.25, "row 1, {i}");
        }
        assert!(got[32..48].iter().all(|&x| x == 9.0), "dstGap bytes keep their values");
        assert!(got[80..].iter().all(|&x| x == 9.0));
        // float -> float moves bits (a NaN payload and -0.0 survive).
        let l1f = LocalTensor::<f32>::new(TPosition::C1, 1024, 16);
        let mut v = vec![1.5f32; 16];
        v[3] = f32::from_bits(0x7fc0_1234);
        v[4] = -0.0;
        l1f.copy_from_slice(&v);
        data_copy_bias(&bt, &l1f, &DataCopyParams::new(1, 1, 0, 0));
        assert_eq!(bits(&bt.to_vec()[..16]), bits(&v));
        // blockCount 0 or blockLen 0: nothing.
        data_copy_bias(&bt, &l1f, &DataCopyParams::new(0, 1, 0, 0));
        data_copy_bias(&bt, &l1f, &DataCopyParams::new(1, 0, 0, 0));
        assert_eq!(bits(&bt.to_vec()[..16]), bits(&v));
    });
}

#[test]
fn bias_errors() {
    let p = MmadParams::new(16, 16, 16, 0, false, false);
    aic(|| {
        let l1 = LocalTensor::<f32>::new(TPosition::C1, 0, 64);
        let bt = LocalTensor::<f32>::new(TPosition::C2, 0, 16);
        assert_fails(
            "DataCopy (L1 -> BiasTable): dst address = 0x20 in the bias table (BT) is not 64-byte aligned",
            || {
                data_copy_bias(
                    &LocalTensor::<f32>::new(TPosition::C2, 32, 8),
                    &l1,
                    &DataCopyParams::new(1, 1, 0, 0),
                )
            },
        );
        assert_fails(
            "src is at position A2 in the L0A buffer: DataCopy (L1 -> BiasTable) takes it in the L1 buffer",
            || {
                data_copy_bias(
                    &bt,
                    &LocalTensor::<f32>::new(TPosition::A2, 0, 64),
                    &DataCopyParams::new(1, 1, 0, 0),
                )
            },
        );
        assert_fails("dst is at position C1 in the L1 buffer", || {
            data_copy_bias(&l1, &l1, &DataCopyParams::new(1, 1, 0, 0))
        });
        assert_fails("blockCount = 4096 is out of range [0, 4095]", || {
            data_copy_bias(&bt, &l1, &DataCopyParams::new(4096, 1, 0, 0))
        });
        assert_fails(
            "blockLen = 2 (64-byte units of src), dstGap = 0 span 128 bytes of dst, which has 64 bytes",
            || data_copy_bias(&bt, &l1, &DataCopyParams::new(1, 2, 0, 0)),
        );
        assert_fails("srcGap = 8 span 384 bytes of src, which has 256 bytes", || {
            data_copy_bias(&bt, &l1, &DataCopyParams::new(2, 1, 8, 0))
        });
        assert_fails("would end beyond the bias table (BT)'s 1024 bytes", || {
            let _ = LocalTensor::<f32>::new(TPosition::C2, 1024, 1);
        });
        // Mmad with bias.
        let a = LocalTensor::<f16>::new(TPosition::A2, 0, 256);
        let b = LocalTensor::<f16>::new(TPosition::B2, 0, 256);
        let c = LocalTensor::<f32>::new(TPosition::CO1, 0, 256);
        assert_fails("Mmad with bias: bias is at position C1 in the L1 buffer: Mmad with bias takes it in the bias table (BT) or the L0C buffer", || {
            mmad_with_bias(&c, &a, &b, &l1, &p)
        });
        assert_fails("bias address = 0x20 in the bias table (BT) is not 64-byte aligned", || {
            mmad_with_bias(&c, &a, &b, &LocalTensor::<f32>::new(TPosition::C2, 32, 8), &p)
        });
        assert_fails("n = 16 bias values of float (64 bytes) exceed bias: 32 bytes", || {
            mmad_with_bias(&c, &a, &b, &LocalTensor::<f32>::new(TPosition::C2, 64, 8), &p)
        });
        let b2 = LocalTensor::<f16>::new(TPosition::B2, 0, 256 * 17);
        let c2 = LocalTensor::<f32>::new(TPosition::CO1, 0, 256 * 17);
        assert_fails("n = 257 bias values of float (1028 bytes) exceed the bias table from address 0 (cmatrix_source = true): 1024 bytes", || {
            mmad(&c2, &a, &b2, &MmadParams::new(16, 257, 16, 0, true, false))
        });
        assert_fails("Mmad with bias: filter would be accessed over 1536 bytes", || {
            let c16 = LocalTensor::<i32>::new(TPosition::CO1, 0, 256);
            let bi = LocalTensor::<i32>::new(TPosition::C2, 0, 64);
            let ai = LocalTensor::<i8>::new(TPosition::A2, 0, 512);
            let bb = LocalTensor::<i8>::new(TPosition::B2, 0, 512);
            // an i32/i8/i8 product with a too-short B: the triple is fine, the extent is not
            mmad_with_bias(&c16, &ai, &bb, &bi, &MmadParams::new(16, 48, 32, 0, false, false));
        });
    });
    for soc in [Soc::Ascend910, Soc::Ascend310P, Soc::Ascend310B] {
        on(soc, || {
            let c = LocalTensor::<f32>::new(TPosition::CO1, 0, 256);
            let a = LocalTensor::<f16>::new(TPosition::A2, 0, 256);
            let b = LocalTensor::<f16>::new(TPosition::B2, 0, 256);
            let bias = LocalTensor::<f32>::new(TPosition::CO1, 1024, 16);
            assert_fails(
                &format!("Mmad with bias is not supported on {soc} (supported here: Ascend910B)"),
                || mmad_with_bias(&c, &a, &b, &bias, &p),
            );
            let l1 = LocalTensor::<f32>::new(TPosition::A1, 0, 16);
            let dst = LocalTensor::<f32>::new(TPosition::A1, 1024, 16);
            assert_fails(&format!("DataCopy (L1 -> BiasTable) is not supported on {soc}"), || {
                data_copy_bias(&dst, &l1, &DataCopyParams::new(1, 1, 0, 0))
            });
        });
    }
    on(Soc::Ascend310B, || {
        assert_fails("pos = C2 is not in an on-chip memory this emulator models on Ascend310B", || {
            let _ = LocalTensor::<f32>::new(TPosition::C2, 0, 16);
        });
    });
}
