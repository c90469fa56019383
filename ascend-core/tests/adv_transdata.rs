//! The advanced `TransData` (`adv/transdata.rs`): each of the four conversions against a slow
//! scalar restatement of the layouts (bit for bit: the moves are exact), for the four element
//! types, both forms, and shapes that pad every axis the vendor pads (`C` and `N` not
//! multiples of 16, `H·W` not a multiple of 16, one of everything); the input's padding holds
//! random bits and must not reach the output. The elements the vendor leaves unwritten (the
//! `H·W` padding of an `NDC1HWC0 → NCDHW` output) are checked against what the scratch held.
//! Then the page's worked example as exact vectors, the host helper's numbers (worked by
//! hand from `transdata_tiling.cpp`), and every error.

use ascend_core::prelude::*;

use crate::common::util;
use util::{assert_bits_ctx, expect_panic, on, ub, Rng};

const TO_6HD: TransDataConfig = TransDataConfig::new(DataFormat::NCDHW, DataFormat::NDC1HWC0);
const FROM_6HD: TransDataConfig = TransDataConfig::new(DataFormat::NDC1HWC0, DataFormat::NCDHW);
const TO_FZ: TransDataConfig = TransDataConfig::new(DataFormat::NCDHW, DataFormat::FRACTAL_Z_3D);
const FROM_FZ: TransDataConfig = TransDataConfig::new(DataFormat::FRACTAL_Z_3D, DataFormat::NCDHW);

/// `[N, C, D, H, W]` shapes: the page's (as its data has it), no padding at all, padded `C`
/// and `H·W` with small `N`, two `N1` and two `C1` both partial, `H·W = 1` with three `C1`,
/// everything 1, and `D > 1` with `H·W` a multiple of 16 but `C`, `N` padded.
const SHAPES: [[usize; 5]; 7] = [
    [1, 32, 1, 2, 8],
    [16, 16, 1, 4, 4],
    [2, 5, 3, 3, 5],
    [17, 20, 1, 2, 3],
    [3, 33, 2, 1, 1],
    [1, 1, 1, 1, 1],
    [5, 7, 2, 4, 8],
];

fn a16(v: usize) -> usize {
    v.div_ceil(16) * 16
}

fn rand_vec<T: Element>(rng: &mut Rng, n: usize) -> Vec<T> {
    bytemuck::cast_slice::<u8, T>(&rng.bytes(n * T::SIZE)).to_vec()
}

/// The index of `[n][c][d][q]` in an `NCDHW` tensor with `H·W` padded to 16.
fn ncdhw_at([_, c, d, h, w]: [usize; 5], (ni, ci, di, q): (usize, usize, usize, usize)) -> usize {
    ((ni * c + ci) * d + di) * a16(h * w) + q
}

fn shape_6hd([n, c, d, h, w]: [usize; 5]) -> [usize; 6] {
    [n, d, c.div_ceil(16), h, w, 16]
}

fn shape_fz([n, c, d, h, w]: [usize; 5]) -> [usize; 7] {
    [d, c.div_ceil(16), h, w, n.div_ceil(16), 16, 16]
}

/// The index of `[n][d][c1][q][c0]` in an `NDC1HWC0` tensor.
fn nd6_at([_, c, d, h, w]: [usize; 5], (ni, di, c1, q, c0): (usize, usize, usize, usize, usize)) -> usize {
    (((ni * d + di) * c.div_ceil(16) + c1) * h * w + q) * 16 + c0
}

/// The index of `[d][c1][q][n1][n0][c0]` in a `FRACTAL_Z_3D` tensor.
fn fz_at(
    [n, c, _, h, w]: [usize; 5],
    (di, c1, q, n1, n0, c0): (usize, usize, usize, usize, usize, usize),
) -> usize {
    ((((di * c.div_ceil(16) + c1) * h * w + q) * n.div_ceil(16) + n1) * 16 + n0) * 16 + c0
}

/// `NCDHW → NDC1HWC0`: the padding channels are 0.
fn ref_to_6hd<T: Element>(src: &[T], s: [usize; 5]) -> Vec<T> {
    let [n, c, d, h, w] = s;
    let c1n = c.div_ceil(16);
    let mut out = vec![T::default(); n * d * c1n * h * w * 16];
    for ni in 0..n {
        for di in 0..d {
            for c1 in 0..c1n {
                for q in 0..h * w {
                    for c0 in 0..16 {
                        let ch = c1 * 16 + c0;
                        if ch < c {
                            out[nd6_at(s, (ni, di, c1, q, c0))] = src[ncdhw_at(s, (ni, ch, di, q))];
                        }
                    }
                }
            }
        }
    }
    out
}

/// `NDC1HWC0 → NCDHW`: `None` for the `H·W` padding (not written by the call).
fn ref_from_6hd<T: Element>(src: &[T], s: [usize; 5]) -> Vec<Option<T>> {
    let [n, c, d, h, w] = s;
    let mut out = vec![None; n * c * d * a16(h * w)];
    for ni in 0..n {
        for ch in 0..c {
            for di in 0..d {
                for q in 0..h * w {
                    out[ncdhw_at(s, (ni, ch, di, q))] = Some(src[nd6_at(s, (ni, di, ch / 16, q, ch % 16))]);
                }
            }
        }
    }
    out
}

/// `NCDHW → FRACTAL_Z_3D`: the padding batches and channels are 0.
fn ref_to_fz<T: Element>(src: &[T], s: [usize; 5]) -> Vec<T> {
    let [n, c, d, h, w] = s;
    let (c1n, n1n) = (c.div_ceil(16), n.div_ceil(16));
    let mut out = vec![T::default(); d * c1n * h * w * n1n * 256];
    for di in 0..d {
        for c1 in 0..c1n {
            for q in 0..h * w {
                for n1 in 0..n1n {
                    for n0 in 0..16 {
                        for c0 in 0..16 {
                            let (ni, ch) = (n1 * 16 + n0, c1 * 16 + c0);
                            if ni < n && ch < c {
                                out[fz_at(s, (di, c1, q, n1, n0, c0))] = src[ncdhw_at(s, (ni, ch, di, q))];
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

/// `FRACTAL_Z_3D → NCDHW`: the `H·W` padding is 0.
fn ref_from_fz<T: Element>(src: &[T], s: [usize; 5]) -> Vec<T> {
    let [n, c, d, h, w] = s;
    let mut out = vec![T::default(); n * c * d * a16(h * w)];
    for ni in 0..n {
        for ch in 0..c {
            for di in 0..d {
                for q in 0..h * w {
                    out[ncdhw_at(s, (ni, ch, di, q))] =
                        src[fz_at(s, (di, ch / 16, q, ni / 16, ni % 16, ch % 16))];
                }
            }
        }
    }
    out
}

/// The shapes of a conversion: `(src, dst)` as `params` takes them, and their element counts.
fn layouts(config: TransDataConfig, s: [usize; 5]) -> (Vec<usize>, Vec<usize>, usize, usize) {
    let [n, c, d, h, w] = s;
    let nc = n * c * d * a16(h * w);
    let n6 = n * d * c.div_ceil(16) * h * w * 16;
    let nf = d * c.div_ceil(16) * h * w * n.div_ceil(16) * 256;
    match (config.src_format, config.dst_format) {
        (DataFormat::NCDHW, DataFormat::NDC1HWC0) => (s.to_vec(), shape_6hd(s).to_vec(), nc, n6),
        (DataFormat::NDC1HWC0, _) => (shape_6hd(s).to_vec(), s.to_vec(), n6, nc),
        (DataFormat::NCDHW, _) => (s.to_vec(), shape_fz(s).to_vec(), nc, nf),
        _ => (shape_fz(s).to_vec(), s.to_vec(), nf, nc),
    }
}

fn round32(b: usize) -> usize {
    b.div_ceil(32) * 32
}

/// Runs one conversion on Ascend910B with random input bits (padding included), `dst` and the
/// scratch pre-filled with random bits, and checks `dst` against the reference. Returns the
/// scratch's bytes before the call and `dst` after it.
fn run<T: TransDataElement>(config: TransDataConfig, s: [usize; 5], stack: bool, seed: u64) {
    let ctx = format!("{} {:?} -> {:?} {s:?} stack {stack}", T::DTYPE, config.src_format, config.dst_format);
    on(Soc::Ascend910B, || {
        let (ls, ld, ns, nd) = layouts(config, s);
        let (_, tmp_bytes) = get_trans_data_max_min_tmp_size(Soc::Ascend910B, &ls, &ld, T::DTYPE, config);
        let mut rng = Rng(seed);
        let x: Vec<T> = rand_vec(&mut rng, ns);
        let (rs, rd) = (round32(ns * T::SIZE), round32(nd * T::SIZE));
        let u = ub(rs + rd + if stack { 0 } else { round32(tmp_bytes) });
        let (src, dst) = (u.t::<T>(0, ns), u.t::<T>(rs, nd));
        src.copy_from_slice(&x);
        dst.copy_from_slice(&rand_vec::<T>(&mut rng, nd));
        let params = TransDataParams::new(&ls, &ld);
        if stack {
            trans_data_stack(&dst, &src, config, &params);
        } else {
            let tmp = u.t::<u8>(rs + rd, tmp_bytes);
            tmp.copy_from_slice(&rng.bytes(tmp_bytes));
            trans_data(&dst, &src, &tmp, config, &params);
        }
        let got = dst.to_vec();
        let want = match (config.src_format, config.dst_format) {
            (DataFormat::NCDHW, DataFormat::NDC1HWC0) => ref_to_6hd(&x, s),
            (DataFormat::NDC1HWC0, _) => {
                // The padding compares with itself (see from_6hd_padding_is_the_scratch).
                ref_from_6hd(&x, s).iter().zip(&got).map(|(w, g)| w.unwrap_or(*g)).collect()
            }
            (DataFormat::NCDHW, _) => ref_to_fz(&x, s),
            _ => ref_from_fz(&x, s),
        };
        assert_bits_ctx(&got, &want, &ctx);
    });
}

fn all_shapes<T: TransDataElement>(seed: u64) {
    for (k, s) in SHAPES.into_iter().enumerate() {
        for (m, config) in [TO_6HD, FROM_6HD, TO_FZ, FROM_FZ].into_iter().enumerate() {
            run::<T>(config, s, false, seed + (4 * k + m) as u64);
        }
    }
}

#[test]
fn every_conversion_half() {
    all_shapes::<f16>(100);
}

#[test]
fn every_conversion_bfloat16() {
    all_shapes::<bf16>(200);
}

#[test]
fn every_conversion_int16_uint16() {
    all_shapes::<i16>(300);
    all_shapes::<u16>(400);
}

#[test]
fn stack_form() {
    for (k, config) in [TO_6HD, FROM_6HD, TO_FZ, FROM_FZ].into_iter().enumerate() {
        run::<f16>(config, [17, 20, 1, 2, 3], true, 500 + k as u64);
        run::<u16>(config, [2, 5, 3, 3, 5], true, 510 + k as u64);
    }
}

/// The page's example as exact vectors: 32 channels of `[2, 8]` (`0..512`) to NDC1HWC0. The
/// page's `params` line says `(1, 32, 2, 2, 8)`, but its 512 input values and its output are
/// `D = 1`; the data is followed.
#[test]
fn page_example() {
    on(Soc::Ascend910B, || {
        let u = ub(1024 * 3 + 2048);
        let (src, dst, tmp) = (u.t::<f16>(0, 512), u.t::<f16>(1024, 512), u.t::<u8>(2048, 2048));
        src.copy_from_slice(&(0..512).map(|i| f16::from_f32(i as f32)).collect::<Vec<_>>());
        trans_data(&dst, &src, &tmp, TO_6HD, &TransDataParams::new(&[1, 32, 1, 2, 8], &[1, 1, 2, 2, 8, 16]));
        // The page's output rows: row r of block b is r + 16k + 256b for k = 0..16.
        let mut want = Vec::new();
        for b in 0..2 {
            for r in 0..16 {
                want.extend((0..16).map(|k| f16::from_f32((r + 16 * k + 256 * b) as f32)));
            }
        }
        assert_bits_ctx(&dst.to_vec(), &want, "page example");
        // Its first printed row and the last.
        let out: Vec<f32> = dst.to_vec().iter().map(|v| v.to_f32()).collect();
        assert_eq!(
            out[..16],
            [0., 16., 32., 48., 64., 80., 96., 112., 128., 144., 160., 176., 192., 208., 224., 240.]
        );
        assert_eq!(
            out[496..],
            [271., 287., 303., 319., 335., 351., 367., 383., 399., 415., 431., 447., 463., 479., 495., 511.]
        );
    });
}

/// `NDC1HWC0 → NCDHW` leaves the `H·W` padding of `dst` unwritten by data: each padding
/// element is the scratch's element at the same place of its `[C1, D·padHW, C0]` stage (after
/// the 512-byte dummy area), which the call never writes. Here `C` is a multiple of 16, so no
/// dummy entry runs past its area.
#[test]
fn from_6hd_padding_is_the_scratch() {
    on(Soc::Ascend910B, || {
        let s = [2, 16, 2, 3, 5];
        let (ls, ld, ns, nd) = layouts(FROM_6HD, s);
        let (_, tmp_bytes) = get_trans_data_max_min_tmp_size(Soc::Ascend910B, &ls, &ld, DType::U16, FROM_6HD);
        assert_eq!(tmp_bytes, 2 * 16 * 16 * 2 + 512);
        let u = ub(round32(ns * 2) + round32(nd * 2) + tmp_bytes);
        let (src, dst) = (u.t::<u16>(0, ns), u.t::<u16>(round32(ns * 2), nd));
        let tmp = u.t::<u8>(round32(ns * 2) + round32(nd * 2), tmp_bytes);
        src.copy_from_slice(&(0..ns as u16).collect::<Vec<_>>());
        let before: Vec<u16> = (0..tmp_bytes as u16 / 2).map(|i| 40000 + i).collect();
        tmp.reinterpret_cast::<u16>().copy_from_slice(&before);
        trans_data(&dst, &src, &tmp, FROM_6HD, &TransDataParams::new(&ls, &ld));
        let got = dst.to_vec();
        let (d, pad) = (2, 16);
        for ni in 0..2 {
            for ch in 0..16 {
                for di in 0..d {
                    for q in 15..pad {
                        // Scratch element 256 (the dummy area) + [c1 = 0][di * padHW + q][ch].
                        let want = before[256 + (di * pad + q) * 16 + ch];
                        assert_eq!(got[ncdhw_at(s, (ni, ch, di, q))], want, "n {ni} c {ch} d {di} q {q}");
                    }
                }
            }
        }
        let want: Vec<u16> =
            ref_from_6hd(&src.to_vec(), s).iter().zip(&got).map(|(w, g)| w.unwrap_or(*g)).collect();
        assert_eq!(got, want);
    });
}

#[test]
fn host_sizes() {
    let f = |config, s: [usize; 5], ty| {
        let (ls, ld, _, _) = layouts(config, s);
        let (max, min) = get_trans_data_max_min_tmp_size(Soc::Ascend910B, &ls, &ld, ty, config);
        assert_eq!(max, min);
        max
    };
    // The page's example shape (1, 16, 2, 4, 4): padHW 16, C1 1.
    // D·padHW·2 + D·C1·C0·padHW·2 = 64 + 1024.
    assert_eq!(f(TO_6HD, [1, 16, 2, 4, 4], DType::F16), 1088);
    // D·C1·C0·padHW·2 + 512.
    assert_eq!(f(FROM_6HD, [1, 16, 2, 4, 4], DType::BF16), 1536);
    // [17, 20, 1, 2, 3]: padHW 16, N1 2, C1 2. max(C·D·padHW·2 = 640, D·H·W·N1·N0·2 = 384)
    // + N1·N0·D·C1·C0·padHW·2 = 32768.
    assert_eq!(f(TO_FZ, [17, 20, 1, 2, 3], DType::I16), 640 + 32768);
    // C and N padded: twice N1·N0·C1·C0·D·padHW·2.
    assert_eq!(f(FROM_FZ, [17, 20, 1, 2, 3], DType::U16), 65536);
    // Neither padded: once.
    assert_eq!(f(FROM_FZ, [16, 16, 1, 4, 4], DType::F16), 8192);
    // max(512, 512) + 8192.
    assert_eq!(f(TO_FZ, [16, 16, 1, 4, 4], DType::F16), 8704);
    // D·H·W·N1·N0 wins the max: [32, 1, 1, 4, 4] → max(32, 1·16·2·16·2 = 1024) + 2·16·1·16·16·2.
    assert_eq!(f(TO_FZ, [32, 1, 1, 4, 4], DType::F16), 1024 + 16384);
}

#[test]
fn host_errors() {
    let p = |s: &[usize], d: &[usize], ty: DType, c: TransDataConfig, soc: Soc| {
        let (s, d) = (s.to_vec(), d.to_vec());
        move || {
            get_trans_data_max_min_tmp_size(soc, &s, &d, ty, c);
        }
    };
    let (b, s6) = (Soc::Ascend910B, [1, 2, 1, 4, 4, 16]);
    expect_panic(
        p(&[1, 16, 2, 4, 4], &s6, DType::F32, TO_6HD, b),
        &[
            "GetTransDataMaxMinTmpSize",
            "dataType = float is not supported",
            "DT_FLOAT16/DT_BF16/DT_UINT16/DT_INT16",
        ],
    );
    let nchw = TransDataConfig::new(DataFormat::NCHW, DataFormat::NC1HWC0);
    expect_panic(
        p(&[1, 16, 4, 4], &[1, 1, 4, 4, 16], DType::F16, nchw, b),
        &["srcFormat/dstFormat is (NCHW, NC1HWC0)"],
    );
    expect_panic(
        p(&[1, 16, 2, 4, 4], &s6, DType::F16, TO_6HD, Soc::Ascend310P),
        &["unsupported NpuArch for TransData: Ascend310P"],
    );
    expect_panic(
        p(&[1, 16, 2, 4, 4], &[1, 2, 1, 4, 5, 16], DType::F16, TO_6HD, b),
        &["dims n, d, h, w", "(1, 2, 4, 4) / (1, 2, 4, 5)"],
    );
    expect_panic(
        p(&[1, 16, 2, 4, 4], &[1, 2, 1, 4, 4, 16, 1], DType::F16, TO_6HD, b),
        &["params.dstLayout has shape [1, 2, 1, 4, 4, 16, 1] of 7 dimensions", "has 6"],
    );
}

/// One call on `soc` with tensors of `ns`/`nd` elements at byte offsets `os`/`od` and a
/// scratch of `tb` bytes at `ot`, all in one 64 KiB buffer.
#[allow(clippy::too_many_arguments)]
fn call(
    soc: Soc,
    config: TransDataConfig,
    ls: &[usize],
    ld: &[usize],
    (os, ns): (usize, usize),
    (od, nd): (usize, usize),
    (ot, tb): (usize, usize),
) -> impl FnOnce() + use<> {
    let (ls, ld) = (ls.to_vec(), ld.to_vec());
    move || {
        on(soc, || {
            let u = ub(64 * 1024);
            trans_data(
                &u.t::<f16>(od, nd),
                &u.t::<f16>(os, ns),
                &u.t::<u8>(ot, tb),
                config,
                &TransDataParams::new(&ls, &ld),
            );
        })
    }
}

#[test]
fn kernel_errors() {
    let (nc, s6) = ([1, 16, 2, 4, 4], [1, 2, 1, 4, 4, 16]);
    // 512 elements each side, 1088 scratch bytes.
    let ok = |soc| call(soc, TO_6HD, &nc, &s6, (0, 512), (4096, 512), (8192, 1088));
    for soc in [Soc::Ascend910, Soc::Ascend310P, Soc::Ascend310B] {
        expect_panic(ok(soc), &[&format!("TransData is not supported on {soc}"), "TransData.md"]);
    }
    ok(Soc::Ascend910B)();
    let fz = TransDataConfig::new(DataFormat::FRACTAL_Z_3D, DataFormat::NDC1HWC0);
    expect_panic(
        call(Soc::Ascend910B, fz, &nc, &s6, (0, 512), (4096, 512), (8192, 1088)),
        &["srcFormat/dstFormat is (FRACTAL_Z_3D, NDC1HWC0)", "(NCDHW, FRACTAL_Z_3D)"],
    );
    let e = |ls: &[usize], ld: &[usize], src: (usize, usize), dst: (usize, usize), tmp: (usize, usize)| {
        call(Soc::Ascend910B, TO_6HD, ls, ld, src, dst, tmp)
    };
    let (src, dst, tmp) = ((0, 512), (4096, 512), (8192, 1088));
    expect_panic(
        e(&[1, 16, 8, 4], &s6, src, dst, tmp),
        &["params.srcLayout has shape [1, 16, 8, 4] of 4 dimensions"],
    );
    expect_panic(e(&[1, 16, 0, 4, 4], &[1, 0, 1, 4, 4, 16], src, dst, tmp), &["has a dimension of 0"]);
    expect_panic(
        e(&[2, 16, 2, 4, 4], &s6, src, dst, tmp),
        &["dims n, d, h, w", "(2, 2, 4, 4) / (1, 2, 4, 4)"],
    );
    expect_panic(
        e(&nc, &[1, 2, 2, 4, 4, 8], src, dst, tmp),
        &["c1 = 2, c0 = 8", "c1 = (c + c0 - 1) / c0 = 1"],
    );
    expect_panic(e(&nc, &[1, 2, 2, 4, 4, 16], src, dst, tmp), &["c1 = 2, c0 = 16"]);
    expect_panic(
        call(
            Soc::Ascend910B,
            TO_FZ,
            &[17, 16, 1, 4, 4],
            &[1, 1, 4, 4, 1, 16, 16],
            (0, 8192),
            (16384, 8192),
            (32768, 9000),
        ),
        &["n1 = 1, n0 = 16", "= 2 (n = 17)"],
    );
    expect_panic(
        call(
            Soc::Ascend910B,
            FROM_FZ,
            &[2, 1, 4, 4, 1, 16, 16],
            &[16, 16, 3, 4, 4],
            (0, 8192),
            (16384, 8192),
            (32768, 9000),
        ),
        &["dims d, h, w", "(3, 4, 4) / (2, 4, 4)"],
    );
    expect_panic(
        e(&nc, &s6, (0, 511), dst, tmp),
        &["srcTensor (NCDHW) has 511 half elements; it must hold at least 512"],
    );
    expect_panic(e(&nc, &s6, src, (4096, 500), tmp), &["dstTensor (NDC1HWC0) has 500 half elements"]);
    expect_panic(
        e(&nc, &s6, src, dst, (8192, 1056)),
        &["sharedTmpBuffer has 1056 bytes; this conversion needs at least 1088"],
    );
    expect_panic(
        || {
            on(Soc::Ascend910B, || {
                let u = ub(16384);
                let src = u.t::<f16>(0, 520).view(8);
                let p = TransDataParams::new(&nc, &s6);
                trans_data(&u.t::<f16>(4096, 512), &src, &u.t::<u8>(8192, 1088), TO_6HD, &p);
            })
        },
        &["srcTensor starts at UB byte 0x10, which is not 32-byte aligned"],
    );
    expect_panic(e(&nc, &s6, src, (512, 512), tmp), &["dstTensor UB bytes", "overlap srcTensor"]);
    expect_panic(
        e(&nc, &s6, src, dst, (4096 + 992, 1088)),
        &["sharedTmpBuffer UB bytes", "overlap dstTensor"],
    );
    // D = 256, H·W = 1: one TransDataTo5HD of 256 repeats per C1 (the vendor's uint8_t wraps to 0).
    expect_panic(
        move || {
            on(Soc::Ascend910B, || {
                let u = ub(160 * 1024);
                trans_data(
                    &u.t::<f16>(8192, 4096),
                    &u.t::<f16>(0, 4096),
                    &u.t::<u8>(16384, 139264),
                    TO_6HD,
                    &TransDataParams::new(&[1, 1, 256, 1, 1], &[1, 256, 1, 1, 1, 16]),
                );
            })
        },
        &["the repeatTimes of a TransDataTo5HD (8 bits) = 256 exceeds 255"],
    );
    expect_panic(
        || {
            on(Soc::Ascend910B, || {
                let u = ub(16384);
                let src = LocalTensor::<f16>::new(TPosition::A1, 0, 512);
                let p = TransDataParams::new(&nc, &s6);
                trans_data(&u.t::<f16>(4096, 512), &src, &u.t::<u8>(8192, 1088), TO_6HD, &p);
            })
        },
        &["srcTensor is at position A1; it must be VECIN, VECOUT or VECCALC"],
    );
    // The stack form needs a TPipe.
    expect_panic(
        || {
            on(Soc::Ascend910B, || {
                let u = ub(4096);
                let t = u.t::<f16>(0, 1024);
                drop(u);
                trans_data_stack(&t, &t, TO_6HD, &TransDataParams::new(&nc, &s6));
            })
        },
        &["the core has no TPipe"],
    );
}
