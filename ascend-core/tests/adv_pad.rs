//! The advanced API's data-layout functions (`adv/pad.rs`). `Broadcast` against a scalar
//! reference (each destination element is the source element its index maps to, bits
//! unchanged) for both types on both chips, both forms, every branch of the vendor's code:
//! equal shapes, a one-element source, the first axis in 8-row `Or`s and in per-row `Or`s
//! (rows of 255 blocks or more), the last axis aligned and unaligned (Ascend910B) and by
//! `Transpose` (Ascend310P), in one round and in several with a tail; the destination past
//! its shape untouched, the mask state afterwards; then the host sizes and every error.

use ascend_core::prelude::*;

use crate::common::util;
use util::{adv_io, assert_bits_ctx, expect_panic, on, ub, Rng};

const CHIPS: [Soc; 2] = [Soc::Ascend910B, Soc::Ascend310P];

// ---- Broadcast -------------------------------------------------------------------------------

/// The reference: `dst[i][j]` is `src[i][j]` with the broadcast axis' index 0.
fn brc_reference<T: Copy>(src: &[T], src_shape: &[u32], dst_shape: &[u32]) -> Vec<T> {
    let (m, k) = if dst_shape.len() == 2 {
        (dst_shape[0] as usize, dst_shape[1] as usize)
    } else {
        (1, dst_shape[0] as usize)
    };
    let (sm, sk) = if src_shape.len() == 2 {
        (src_shape[0] as usize, src_shape[1] as usize)
    } else {
        (1, src_shape[0] as usize)
    };
    (0..m * k)
        .map(|e| {
            let (i, j) = (e / k, e % k);
            src[(if sm == 1 { 0 } else { i }) * sk + if sk == 1 { 0 } else { j }]
        })
        .collect()
}

/// Random values with every bit pattern (NaNs included: the copy keeps their payloads).
fn rand_bits<T: Element>(rng: &mut Rng, n: usize) -> Vec<T> {
    let b = rng.bytes(n * T::SIZE);
    (0..n).map(|i| bytemuck::pod_read_unaligned(&b[i * T::SIZE..(i + 1) * T::SIZE])).collect()
}

/// The scratch a case gets.
#[derive(Clone, Copy, Debug)]
enum Tmp {
    /// The host's minimum.
    Min,
    /// The host's maximum (or its minimum when that is larger: on Ascend910B the vendor's
    /// maximum for the last axis is below its minimum when `m < 32 / sizeof(T)`).
    Max,
    /// `n` times `(32 / sizeof(T))²` elements: Ascend910B's last-axis rounds of `n` blocks of rows.
    Squares(usize),
    /// The stack form.
    Stack,
}

/// Calls `broadcast` (or `broadcast_stack`) with `DIM` and `AXIS` from the shapes.
fn call<T: BroadcastElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    dst_shape: &[u32],
    src_shape: &[u32],
    axis: usize,
    tmp: Option<&LocalTensor<u8>>,
) {
    match (dst_shape.len(), axis, tmp) {
        (1, _, Some(t)) => broadcast::<T, 1, 0, false>(dst, src, &[dst_shape[0]], &[src_shape[0]], t),
        (1, _, None) => broadcast_stack::<T, 1, 0, false>(dst, src, &[dst_shape[0]], &[src_shape[0]]),
        (_, 0, Some(t)) => broadcast::<T, 2, 0, false>(dst, src, &d2(dst_shape), &d2(src_shape), t),
        (_, 0, None) => broadcast_stack::<T, 2, 0, true>(dst, src, &d2(dst_shape), &d2(src_shape)),
        (_, _, Some(t)) => broadcast::<T, 2, 1, false>(dst, src, &d2(dst_shape), &d2(src_shape), t),
        (_, _, None) => broadcast_stack::<T, 2, 1, false>(dst, src, &d2(dst_shape), &d2(src_shape)),
    }
}

fn d2(s: &[u32]) -> [u32; 2] {
    [s[0], s[1]]
}

/// One call on `soc`, compared bit for bit with the reference; `dst` past the shape keeps its
/// fill.
fn run_brc<T: BroadcastElement>(soc: Soc, src_shape: &[u32], dst_shape: &[u32], tmp: Tmp, seed: u64) {
    on(soc, || {
        let ss: Vec<usize> = src_shape.iter().map(|&d| d as usize).collect();
        let ds: Vec<usize> = dst_shape.iter().map(|&d| d as usize).collect();
        let (max, min) = get_broad_cast_max_min_tmp_size(soc, &ss, &ds, T::SIZE, false);
        let bytes = match tmp {
            Tmp::Min => min,
            Tmp::Max => max.max(min),
            Tmp::Squares(n) => n * 32 * 32 / T::SIZE,
            Tmp::Stack => 0,
        };
        let (src_n, dst_n): (usize, usize) = (ss.iter().product(), ds.iter().product());
        // src (Brcb reads whole groups of 8), dst with a tail of 64, the scratch.
        let (s_cap, d_cap) = (src_n.div_ceil(16) * 16, dst_n + 64);
        let (s_bytes, d_bytes) = (s_cap * T::SIZE, (d_cap * T::SIZE).div_ceil(32) * 32);
        let u = ub(s_bytes + d_bytes + bytes.div_ceil(32).max(1) * 32);
        let (src, dst, scratch) =
            (u.t::<T>(0, s_cap), u.t::<T>(s_bytes, d_cap), u.t::<u8>(s_bytes + d_bytes, bytes));
        let mut rng = Rng(seed);
        let x: Vec<T> = rand_bits(&mut rng, s_cap);
        let fill: Vec<T> = rand_bits(&mut rng, d_cap);
        src.copy_from_slice(&x);
        dst.copy_from_slice(&fill);
        let axis = usize::from(ss.len() == 2 && ss[1] == 1 && ds[1] != 1);
        call(&dst, &src, dst_shape, src_shape, axis, (!matches!(tmp, Tmp::Stack)).then_some(&scratch));
        let ctx = format!("{} on {soc}: {src_shape:?} -> {dst_shape:?}, {tmp:?} ({bytes} bytes)", T::DTYPE);
        let mut want = brc_reference(&x[..src_n], src_shape, dst_shape);
        want.extend_from_slice(&fill[dst_n..]);
        assert_bits_ctx(&dst.to_vec(), &want, &ctx);
        assert_bits_ctx(&src.to_vec(), &x, format!("src written; {ctx}"));
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
        assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{ctx}");
    })
}

/// `(src shape, dst shape, scratch)` cases of `T` (`obe` elements a block) on `soc`.
fn brc_cases(soc: Soc, obe: u32) -> Vec<(Vec<u32>, Vec<u32>, Tmp)> {
    let mut v = vec![
        // Equal shapes; one element.
        (vec![4 * obe], vec![4 * obe], Tmp::Max),
        (vec![3, 2 * obe], vec![3, 2 * obe], Tmp::Stack),
        (vec![1], vec![37], Tmp::Max),
        (vec![1, 1], vec![5, 7], Tmp::Stack),
        // The first axis: 8-row Ors with a tail; one row; long rows (one Or per row).
        (vec![1, 3 * obe], vec![21, 3 * obe], Tmp::Min),
        (vec![1, obe], vec![1 + 1, obe], Tmp::Stack),
        (vec![1, 255 * obe], vec![3, 255 * obe], Tmp::Max),
        (vec![1, 254 * obe], vec![9, 254 * obe], Tmp::Max),
    ];
    if soc == Soc::Ascend910B {
        v.extend([
            // Aligned rows: one round (max), rounds of obe rows with a tail (min), stack.
            (vec![37, 1], vec![37, 2 * obe], Tmp::Max),
            (vec![37, 1], vec![37, 2 * obe], Tmp::Min),
            (vec![100, 1], vec![100, 3 * obe], Tmp::Squares(3)),
            (vec![100, 1], vec![100, 7], Tmp::Squares(5)),
            (vec![20, 1], vec![20, obe], Tmp::Stack),
            // More than 255 rows per Copy, more than one Brcb.
            (vec![2040, 1], vec![2040, obe], Tmp::Max),
            // Unaligned rows: GatherMask.
            (vec![19, 1], vec![19, 3], Tmp::Max),
            (vec![19, 1], vec![19, obe + 5], Tmp::Min),
            (vec![300, 1], vec![300, 2 * obe + 1], Tmp::Max),
            (vec![7, 1], vec![7, 1 + 1], Tmp::Stack),
        ]);
    } else {
        v.extend([
            // Aligned m: one round (max; several rounds never fit, see `broadcast_errors`),
            // stack; long m (per-row Or).
            (vec![2 * obe, 1], vec![2 * obe, 24], Tmp::Max),
            (vec![3 * obe, 1], vec![3 * obe, 3], Tmp::Stack),
            (vec![255 * obe, 1], vec![255 * obe, 2], Tmp::Max),
        ]);
    }
    v
}

fn brc_all<T: BroadcastElement>() {
    let obe = 32 / T::SIZE as u32;
    for (n, soc) in CHIPS.into_iter().enumerate() {
        for (i, (s, d, tmp)) in brc_cases(soc, obe).into_iter().enumerate() {
            run_brc::<T>(soc, &s, &d, tmp, (n * 100 + i) as u64);
        }
    }
}

#[test]
fn broadcast_float() {
    brc_all::<f32>();
}

#[test]
fn broadcast_half() {
    brc_all::<f16>();
}

#[test]
fn broadcast_random_shapes() {
    let mut rng = Rng(7);
    for case in 0..60 {
        let soc = CHIPS[case % 2];
        let half = case % 4 >= 2;
        let obe = if half { 16 } else { 8 };
        let axis = rng.index(2);
        let (m, k) = if axis == 0 || soc == Soc::Ascend310P {
            let blocks = rng.range(1, 6) as u32;
            if axis == 0 {
                (rng.range(1, 40) as u32, blocks * obe)
            } else {
                (blocks * obe, rng.range(2, 40) as u32)
            }
        } else {
            (rng.range(2, 70) as u32, rng.range(2, 50) as u32)
        };
        let src = if axis == 0 { vec![1, k] } else { vec![m, 1] };
        let tmp = if rng.chance(2) { Tmp::Max } else { Tmp::Stack };
        if half {
            run_brc::<f16>(soc, &src, &[m, k], tmp, case as u64);
        } else {
            run_brc::<f32>(soc, &src, &[m, k], tmp, case as u64);
        }
    }
}

#[test]
fn broadcast_host_sizes() {
    let f = get_broad_cast_max_min_tmp_size;
    // Copies and duplicates need nothing (int8: the two half copies and a block).
    assert_eq!(f(Soc::Ascend910B, &[8], &[8], 4, false), (0, 0));
    assert_eq!(f(Soc::Ascend310P, &[1, 1], &[4, 4], 2, false), (0, 0));
    assert_eq!(f(Soc::Ascend910B, &[1], &[20], 1, false), ((16 + 32) * 2 + 32, (16 + 32) * 2 + 32));
    // The first axis: a block.
    assert_eq!(f(Soc::Ascend310P, &[1, 16], &[7, 16], 2, false), (32, 32));
    // Ascend910B's last axis: aligned, unaligned.
    assert_eq!(f(Soc::Ascend910B, &[13, 1], &[13, 16], 2, true), (16 * 16 * 2, 16 * 16 * 2));
    assert_eq!(
        f(Soc::Ascend910B, &[13, 1], &[13, 10], 4, false),
        (16 * 8 * 4 + 13 * 16 * 4, (64 + 8 * 16) * 4)
    );
    // The vendor's maximum below its minimum for few rows.
    assert_eq!(
        f(Soc::Ascend910B, &[7, 1], &[7, 7], 2, false),
        (8 * 16 * 2 + 7 * 16 * 2, (256 + 16 * 16) * 2)
    );
    // Ascend310P's last axis.
    assert_eq!(f(Soc::Ascend310P, &[16, 1], &[16, 9], 4, false), (32 + 16 * 9 * 4, 32 + 8 * 2 * 4));
}

#[test]
fn broadcast_host_errors() {
    let api = "GetBroadCastMaxMinTmpSize";
    let f = |soc: Soc, s: &[usize], d: &[usize], ts: usize| {
        let _ = get_broad_cast_max_min_tmp_size(soc, s, d, ts, false);
    };
    expect_panic(|| f(Soc::Ascend910, &[1, 8], &[2, 8], 4), &[api, "Ascend910", "not supported"]);
    expect_panic(|| f(Soc::Ascend910B, &[1, 8], &[2, 8], 8), &[api, "typeSize = 8"]);
    expect_panic(|| f(Soc::Ascend910B, &[1, 1, 8], &[1, 2, 8], 4), &[api, "has 3 dimensions"]);
    expect_panic(|| f(Soc::Ascend910B, &[8], &[2, 8], 4), &[api, "different numbers of dimensions"]);
    expect_panic(|| f(Soc::Ascend910B, &[2, 8], &[4, 8], 4), &[api, "cannot broadcast"]);
    expect_panic(|| f(Soc::Ascend910B, &[0, 8], &[0, 8], 4), &[api, "no elements"]);
    expect_panic(|| f(Soc::Ascend910B, &[1, 9], &[2, 9], 4), &[api, "dim[1] is not 32-byte aligned"]);
    expect_panic(|| f(Soc::Ascend310P, &[9, 1], &[9, 8], 4), &[api, "dim[0] is not 32-byte aligned"]);
}

#[test]
fn broadcast_errors() {
    let api = "Broadcast";
    // The chip.
    expect_panic(
        || {
            on(Soc::Ascend910, || {
                let io = adv_io::<f32>(64, 64);
                broadcast::<f32, 1, 0, false>(&io.dst, &io.src, &[8], &[1], &io.tmp);
            })
        },
        &[api, "no implementation on Ascend910"],
    );
    for soc in CHIPS {
        let run = |f: &dyn Fn(&util::AdvIo<f32>)| {
            on(soc, || {
                let io = adv_io::<f32>(256, 1024);
                f(&io);
            })
        };
        expect_panic(
            || run(&|io| broadcast::<f32, 2, 0, false>(&io.dst, &io.src, &[4, 8], &[2, 8], &io.tmp)),
            &[api, "srcShape = [2, 8] cannot broadcast to dstShape = [4, 8]", "srcShape[0] = 2"],
        );
        expect_panic(
            || run(&|io| broadcast::<f32, 2, 0, false>(&io.dst, &io.src, &[4, 0], &[1, 0], &io.tmp)),
            &[api, "a dimension is 0"],
        );
        expect_panic(
            || run(&|io| broadcast::<f32, 2, 1, false>(&io.dst, &io.src, &[4, 8], &[1, 8], &io.tmp)),
            &[api, "axis = 1, but srcShape = [1, 8] broadcasts axis 0"],
        );
        expect_panic(
            || run(&|io| broadcast::<f32, 2, 0, false>(&io.dst, &io.src, &[40, 8], &[1, 8], &io.tmp)),
            &[api, "dstLocal holds 256 elements, fewer than dstShape [40, 8]'s 320"],
        );
        expect_panic(
            || run(&|io| broadcast::<f32, 1, 0, false>(&io.dst, &io.src, &[264], &[264], &io.tmp)),
            &[api, "srcLocal holds 256 elements, fewer than srcShape [264]'s 264"],
        );
        expect_panic(
            || run(&|io| broadcast::<f32, 2, 0, false>(&io.src, &io.src, &[4, 8], &[1, 8], &io.tmp)),
            &[api, "dstLocal UB bytes", "overlap srcLocal"],
        );
        expect_panic(
            || {
                run(&|io| {
                    let tmp = io.dst.reinterpret_cast::<u8>();
                    broadcast::<f32, 2, 0, false>(&io.dst.view(128), &io.src, &[4, 8], &[1, 8], &tmp)
                })
            },
            &[api, "sharedTmpBuffer UB bytes", "overlap dstLocal"],
        );
        expect_panic(
            || run(&|io| broadcast::<f32, 2, 0, false>(&io.dst, &io.src, &[4, 12], &[1, 12], &io.tmp)),
            &[api, "axis = 0 with dstShape[1] = 12 float: Non-alignment is not supported"],
        );
        expect_panic(
            || {
                run(&|io| {
                    broadcast::<f32, 2, 0, false>(&io.dst, &io.src, &[4, 8], &[1, 8], &io.tmp.view_len(0, 16))
                })
            },
            &[api, "sharedTmpBuffer holds 16 bytes; it must hold 32"],
        );
        expect_panic(
            || {
                run(&|io| {
                    let gm_side = LocalTensor::<u8>::new(TPosition::A1, 0, 64);
                    broadcast::<f32, 2, 0, false>(&io.dst, &io.src, &[4, 8], &[1, 8], &gm_side)
                })
            },
            &[api, "sharedTmpBuffer is at position A1"],
        );
    }
    // Ascend910B's last axis: the vendor's minimum, Brcb's source.
    expect_panic(
        || {
            on(Soc::Ascend910B, || {
                let io = adv_io::<f32>(256, 255);
                broadcast::<f32, 2, 1, false>(&io.dst, &io.src, &[8, 16], &[8, 1], &io.tmp);
            })
        },
        &[api, "sharedTmpBuffer holds 63 float elements; axis = 1 with dstShape[1] = 16 needs at least 64"],
    );
    expect_panic(
        || {
            on(Soc::Ascend910B, || {
                let io = adv_io::<f32>(256, 4096);
                broadcast::<f32, 2, 1, false>(&io.dst, &io.src.view_len(0, 5), &[5, 16], &[5, 1], &io.tmp);
            })
        },
        &[api, "srcLocal holds 5 elements; Brcb reads dstShape[0] = 5 rounded up to 8"],
    );
    // Ascend310P's last axis: alignment, the vendor's minimum (which its host helper gives),
    // the round's real footprint.
    expect_panic(
        || {
            on(Soc::Ascend310P, || {
                let io = adv_io::<f32>(256, 4096);
                broadcast::<f32, 2, 1, false>(&io.dst, &io.src, &[12, 8], &[12, 1], &io.tmp);
            })
        },
        &[api, "axis = 1 with dstShape[0] = 12 float on Ascend310P: Non-alignment is not supported"],
    );
    expect_panic(
        || {
            on(Soc::Ascend310P, || {
                let (_, min) = get_broad_cast_max_min_tmp_size(Soc::Ascend310P, &[16, 1], &[16, 8], 4, false);
                let io = adv_io::<f32>(256, min);
                broadcast::<f32, 2, 1, false>(&io.dst, &io.src, &[16, 8], &[16, 1], &io.tmp);
            })
        },
        &[api, "sharedTmpBuffer holds 16 elements; less one block (8) it must hold more than minTmpBufferSize = 8"],
    );
    expect_panic(
        || {
            on(Soc::Ascend310P, || {
                let io = adv_io::<f32>(256, 4 * (8 + 24));
                broadcast::<f32, 2, 1, false>(&io.dst, &io.src, &[16, 8], &[16, 1], &io.tmp);
            })
        },
        &[api, "sharedTmpBuffer holds 128 bytes; it must hold 544 for a round's rows"],
    );
    // The stack form without a pipe.
    expect_panic(
        || {
            on(Soc::Ascend910B, || {
                let t = LocalTensor::<f32>::new(TPosition::VECCALC, 0, 8);
                broadcast_stack::<f32, 1, 0, false>(&t, &t, &[8], &[8]);
            })
        },
        &[api, "the core has no TPipe"],
    );
}

// ---- Pad and UnPad ---------------------------------------------------------------------------

/// The scratch of a Pad/UnPad case: the tiling's `stackBufferSize`.
#[derive(Clone, Copy, Debug)]
enum Buf {
    /// The host's minimum.
    Min,
    /// The host's maximum.
    Max,
    /// `n` times the minimum.
    Times(usize),
    /// The stack form, the tiling made for 4 times the minimum.
    Stack,
}

/// A UB of `src` (`n_src`), `dst` (`n_dst`, filled) and a scratch of `tmp` bytes.
fn pad_io<T: Element>(n_src: usize, n_dst: usize, tmp: usize) -> (util::Ub, [usize; 3]) {
    let r = |n: usize| (n * T::SIZE).div_ceil(32) * 32;
    let u = ub(r(n_src) + r(n_dst) + tmp.div_ceil(32).max(1) * 32);
    (u, [0, r(n_src), r(n_src) + r(n_dst)])
}

/// One `pad` of `[h, w]` (valid `ori` columns) on `soc`, compared bit for bit with the
/// reference; returns the tiling.
fn run_pad<T: PadElement>(soc: Soc, (h, w, ori): (usize, usize, usize), p: PadParams, buf: Buf, seed: u64) {
    on(soc, || {
        let epb = 32 / T::SIZE;
        let aligned = w % epb == 0;
        let total = if aligned { w } else { w.div_ceil(epb) * epb };
        let (max, min) = get_pad_max_min_tmp_size(&[h, w], T::SIZE);
        let bytes = match buf {
            Buf::Min => min,
            Buf::Max => max,
            Buf::Times(n) => n * min,
            Buf::Stack => 4 * min,
        };
        let tiling = pad_tiling_func(&[h, w], &[h, ori], bytes, T::SIZE);
        let tmp_bytes = if let Buf::Stack = buf { 0 } else { bytes };
        let (u, off) = pad_io::<T>(h * w, h * total + 64, tmp_bytes);
        let (src, dst, tmp) =
            (u.t::<T>(off[0], h * w), u.t::<T>(off[1], h * total + 64), u.t::<u8>(off[2], tmp_bytes));
        let mut rng = Rng(seed);
        let x: Vec<T> = rand_bits(&mut rng, h * w);
        let fill: Vec<T> = rand_bits(&mut rng, h * total + 64);
        src.copy_from_slice(&x);
        dst.copy_from_slice(&fill);
        if let Buf::Stack = buf {
            pad_stack(&dst, &src, &p, &tiling);
        } else {
            pad(&dst, &src, &p, &tmp, &tiling);
        }
        let v = T::from_pad_value(p.pad_value);
        let mut want = fill.clone();
        for j in 0..h {
            for c in 0..total {
                want[j * total + c] = if aligned {
                    if c >= ori && c < ori + usize::from(p.right_pad) {
                        v
                    } else {
                        x[j * w + c]
                    }
                } else if c < usize::from(p.left_pad) || c >= usize::from(p.left_pad) + w {
                    v
                } else {
                    x[j * w + c - usize::from(p.left_pad)]
                };
            }
        }
        let ctx = format!("Pad {} on {soc}: [{h}, {w}] of {ori}, {p:?}, {buf:?}, {tiling:?}", T::DTYPE);
        assert_bits_ctx(&dst.to_vec(), &want, &ctx);
        assert_bits_ctx(&src.to_vec(), &x, format!("src written; {ctx}"));
    })
}

/// One `un_pad` of `[h, w]` less `right` columns on `soc`, bit for bit.
fn run_un_pad<T: PadElement>(soc: Soc, (h, w, right): (usize, usize, u16), buf: Buf, seed: u64) {
    on(soc, || {
        let kept = w - usize::from(right);
        let (max, min) = get_un_pad_max_min_tmp_size(Soc::Ascend310P, &[h, w], T::SIZE);
        let bytes = match buf {
            Buf::Min => min,
            Buf::Max => max,
            Buf::Times(n) => n * min,
            Buf::Stack => 4 * min,
        };
        let tiling = un_pad_tiling_func(&[h, w], bytes, T::SIZE);
        let tmp_bytes = if let Buf::Stack = buf { 0 } else { bytes };
        let cap = h * w + 64;
        let (u, off) = pad_io::<T>(h * w, cap, tmp_bytes);
        let (src, dst, tmp) = (u.t::<T>(off[0], h * w), u.t::<T>(off[1], cap), u.t::<u8>(off[2], tmp_bytes));
        let mut rng = Rng(seed);
        let x: Vec<T> = rand_bits(&mut rng, h * w);
        src.copy_from_slice(&x);
        dst.copy_from_slice(&rand_bits::<T>(&mut rng, cap));
        let p = UnPadParams::new(0, right);
        if let Buf::Stack = buf {
            un_pad_stack(&dst, &src, &p, &tiling);
        } else {
            un_pad(&dst, &src, &p, &tmp, &tiling);
        }
        let want: Vec<T> = (0..h).flat_map(|j| x[j * w..j * w + kept].to_vec()).collect();
        let ctx = format!("UnPad {} on {soc}: [{h}, {w}] less {right}, {buf:?}, {tiling:?}", T::DTYPE);
        assert_bits_ctx(&dst.to_vec()[..h * kept], &want, &ctx);
        assert_bits_ctx(&src.to_vec(), &x, format!("src written; {ctx}"));
    })
}

fn pad_all<T: PadElement>() {
    let epb = 32 / T::SIZE;
    let mut seed = 0;
    for soc in CHIPS {
        // Aligned widths: 255-row Duplicates and a tail.
        for (shape, p) in [
            ((4, 2 * epb, 2 * epb - 3), PadParams::new(0, 3, 321)),
            ((300, epb, epb - 1), PadParams::new(0, 1, -7)),
            ((3, 3 * epb, 2 * epb), PadParams::new(0, epb as u16, 5)),
            ((510, epb, 2), PadParams::new(0, 4, 9)),
        ] {
            seed += 1;
            run_pad::<T>(soc, shape, p, Buf::Stack, seed);
        }
        // Unaligned widths: left and right pads, one load and many, fractals of a row.
        let (all, big) = (
            &[Buf::Max, Buf::Min, Buf::Times(3), Buf::Stack][..],
            &[Buf::Min, Buf::Times(3), Buf::Stack][..],
        );
        for ((h, w), (l, r), bufs) in [
            ((16, epb - 1), (0, 1), all),
            ((16, epb - 1), (1, 0), all),
            ((16, 3 * epb + 5), (1, epb - 6), all),
            ((32, 5), (epb - 8, 3), all),
            ((48, 2 * epb + 3), (0, epb - 3), all),
            ((16, 40 * epb + 1), (epb - 1, 0), big),
        ] {
            if h * w % epb != 0 {
                continue;
            }
            for &buf in bufs {
                seed += 1;
                run_pad::<T>(soc, (h, w, w), PadParams::new(l as u16, r as u16, 77), buf, seed);
            }
        }
    }
}

#[test]
fn pad_float_and_half() {
    pad_all::<f32>();
    pad_all::<f16>();
}

#[test]
fn pad_long_brcb_loads() {
    // Loads of more than 254 Brcb repeats (two instructions) and 16 fractals of a row.
    for soc in CHIPS {
        run_pad::<f16>(soc, (16, 255, 255), PadParams::new(0, 1, 3), Buf::Times(130), 5000);
        run_pad::<f32>(soc, (16, 255, 255), PadParams::new(1, 0, 3), Buf::Times(130), 5001);
    }
}

#[test]
fn pad_integers() {
    pad_all::<i16>();
    pad_all::<u32>();
    // padValue converted as C++ converts it.
    assert_eq!(i16::from_pad_value(70000), 70000i32 as i16);
    assert_eq!(u16::from_pad_value(-1), u16::MAX);
    assert_eq!(f16::from_pad_value(2049), f16::from_f32(2048.0));
}

fn un_pad_all<T: PadElement>() {
    let epb = 32 / T::SIZE;
    let mut seed = 1000;
    for soc in CHIPS {
        for (shape, bufs) in [
            ((16, epb, 1), &[Buf::Max, Buf::Min, Buf::Stack][..]),
            ((epb, 4 * epb, (epb - 3) as u16), &[Buf::Max, Buf::Min, Buf::Times(3)][..]),
            ((epb, 4 * epb, (epb + 3) as u16), &[Buf::Max][..]),
            ((33, 2 * epb, 0), &[Buf::Max, Buf::Times(2)][..]),
            ((16, 40 * epb, (epb - 1) as u16), &[Buf::Min, Buf::Times(3), Buf::Stack][..]),
        ] {
            for &buf in bufs {
                seed += 1;
                run_un_pad::<T>(soc, shape, buf, seed);
            }
        }
    }
}

#[test]
fn un_pad_all_types() {
    un_pad_all::<f32>();
    un_pad_all::<f16>();
    un_pad_all::<u16>();
    un_pad_all::<i32>();
}

#[test]
fn pad_host() {
    // GetPadMaxMinTmpSize: ceil(h*w / 16) * 16 blocks, twice, at most; 16 blocks twice at least.
    assert_eq!(get_pad_max_min_tmp_size(&[16, 31], 4), (31 * 16 * 8 * 2 * 4, 1024));
    assert_eq!(get_pad_max_min_tmp_size(&[3, 5], 2), (16 * 16 * 2 * 2, 1024));
    // PadTilingFunc: the aligned fields, then the scratch's.
    let t = pad_tiling_func(&[300, 16], &[300, 14], 0, 4);
    assert_eq!(
        (t.width_without_last_block, t.blocks_per_row, t.height_fractal, t.height_fractal_tail),
        (8, 2, 1, 45)
    );
    assert_eq!(
        (t.main_loop_offset, t.tail_block_offset, t.tmp_buffer1_block_num),
        (255 * 16, 255 * 16 + 8, 0)
    );
    let t = pad_tiling_func(&[16, 31], &[16, 31], 1024 * 3, 4);
    assert_eq!((t.tmp_buffer1_block_num, t.tmp_buffer1_row_num, t.tmp_buffer2_offset), (3, 48, 384));
    assert_eq!(
        (t.width_tiling, t.width_fractal, t.width_fractal_tail, t.width_fractal_tail_alingned),
        (48, 0, 31, 32)
    );
    assert_eq!((t.brcb_tiling, t.brcb_fractal, t.brcb_fractal_tail), (48, 10, 16));
    assert_eq!(
        (t.max_repeat_times, t.brcb_tiling_repeat_times, t.brcb_tiling_repeat_times_tail),
        (254, 0, 6)
    );
    assert_eq!((t.brcb_fractal_tail_repeat_times, t.brcb_fractal_tail_repeat_times_tail), (0, 2));
    // Brcb loads of more than 254 repeats.
    let t = pad_tiling_func(&[16, 255], &[16, 255], 1 << 17, 2);
    assert_eq!((t.brcb_tiling, t.brcb_tiling_repeat_times, t.brcb_tiling_repeat_times_tail), (2048, 1, 2));
    // UnPad.
    assert_eq!(get_un_pad_max_min_tmp_size(Soc::Ascend310P, &[16, 31], 4), (31 * 16 * 8 * 2 * 4, 1024));
    assert_eq!(get_un_pad_max_min_tmp_size(Soc::Ascend910B, &[16, 31], 4), (0, 0));
    let t = un_pad_tiling_func(&[8, 40], 1024, 4);
    assert_eq!((t.tmp_buffer1_block_num, t.tmp_buffer1_row_num, t.tmp_buffer2_offset), (1, 16, 128));
    assert_eq!((t.width_tiling, t.width_fractal, t.width_fractal_tail), (16, 3, 8));
    assert_eq!(
        un_pad_tiling_func(&[8, 40], 0, 4),
        UnPadTiling { src_height: 8, src_width: 40, ..Default::default() }
    );
}

#[test]
fn pad_host_errors() {
    for api in ["GetPadMaxMinTmpSize", "PadTilingFunc", "GetUnPadMaxMinTmpSize", "UnPadTilingFunc"] {
        let f = |shape: &[usize], ts: usize| match api {
            "GetPadMaxMinTmpSize" => drop(get_pad_max_min_tmp_size(shape, ts)),
            "PadTilingFunc" => drop(pad_tiling_func(shape, shape, 1024, ts)),
            "GetUnPadMaxMinTmpSize" => drop(get_un_pad_max_min_tmp_size(Soc::Ascend310P, shape, ts)),
            _ => drop(un_pad_tiling_func(shape, 1024, ts)),
        };
        expect_panic(|| f(&[4, 16], 8), &[api, "typeSize = 8; it must be 2 or 4"]);
        expect_panic(|| f(&[64], 4), &[api, "srcShape = [64] has 1 dimensions; it must have 2"]);
        expect_panic(|| f(&[0, 16], 4), &[api, "has no elements"]);
    }
    expect_panic(
        || _ = pad_tiling_func(&[4, 15], &[4, 16], 1024, 4),
        &["PadTilingFunc", "oriSrcShape = [4, 16] has 64 elements, more than srcShape = [4, 15]'s 60"],
    );
    expect_panic(
        || _ = pad_tiling_func(&[4, 15], &[4], 1024, 4),
        &["PadTilingFunc", "oriSrcShape = [4] has 1 dimensions"],
    );
    expect_panic(
        || _ = pad_tiling_func(&[4, 15], &[4, 15], 1000, 4),
        &["PadTilingFunc", "stackBufferSize = 1000 bytes is below the minimum 1024"],
    );
    expect_panic(
        || _ = un_pad_tiling_func(&[4, 16], 512, 2),
        &["UnPadTilingFunc", "stackBufferSize = 512 bytes is below the minimum 1024"],
    );
}

#[test]
fn pad_errors() {
    let api = "Pad";
    /// A UB with src, dst (64 elements each) and a 4 KiB scratch.
    fn io(f: impl FnOnce(&LocalTensor<f32>, &LocalTensor<f32>, &LocalTensor<u8>)) {
        let (u, off) = pad_io::<f32>(64, 64, 4096);
        f(&u.t::<f32>(off[0], 64), &u.t::<f32>(off[1], 64), &u.t::<u8>(off[2], 4096));
    }
    expect_panic(
        || {
            on(Soc::Ascend910, || {
                io(|s, d, t| {
                    pad(d, s, &PadParams::new(0, 1, 0), t, &pad_tiling_func(&[4, 15], &[4, 15], 4096, 4))
                })
            })
        },
        &[api, "no implementation on Ascend910"],
    );
    for soc in CHIPS {
        let run = |shape: [usize; 2], ori: usize, p: PadParams, bytes: usize, needles: &[&str]| {
            let tiling = pad_tiling_func(&shape, &[shape[0], ori], bytes, 4);
            expect_panic(|| on(soc, || io(|s, d, t| pad(d, s, &p, t, &tiling))), needles);
        };
        // Aligned widths.
        run(
            [4, 16],
            14,
            PadParams::new(1, 1, 0),
            0,
            &[api, "leftPad = 1 with srcWidth = 16 32-byte aligned"],
        );
        run(
            [4, 16],
            7,
            PadParams::new(0, 1, 0),
            0,
            &[api, "srcOriWidth = 7 with srcWidth = 16", "at most one block"],
        );
        run([4, 16], 14, PadParams::new(0, 3, 0), 0, &[api, "rightPad = 3", "must be in [1, 2]"]);
        run([4, 16], 14, PadParams::new(0, 0, 0), 0, &[api, "rightPad = 0", "must be in [1, 2]"]);
        run(
            [5, 16],
            14,
            PadParams::new(0, 1, 0),
            0,
            &[api, "srcTensor holds 64 elements, fewer than srcHeight * srcWidth = 80"],
        );
        // Unaligned widths.
        run(
            [4, 15],
            15,
            PadParams::new(1, 1, 0),
            4096,
            &[api, "leftPad + srcWidth + rightPad = 1 + 15 + 1 = 17", "16"],
        );
        run(
            [3, 15],
            15,
            PadParams::new(0, 1, 0),
            4096,
            &[api, "srcHeight * srcWidth = 45 is not a whole number of blocks"],
        );
        expect_panic(
            || {
                on(soc, || {
                    let (u, off) = pad_io::<f32>(64, 64, 4096);
                    let (src, dst) = (u.t::<f32>(off[0], 64), u.t::<f32>(off[1], 64));
                    let tiling = pad_tiling_func(&[8, 7], &[8, 7], 1024, 4);
                    pad(&dst, &src, &PadParams::new(0, 1, 0), &u.t::<u8>(off[1], 4096), &tiling);
                })
            },
            &[api, "sharedTmpBuffer UB bytes", "overlap dstTensor"],
        );
        run([8, 7], 7, PadParams::new(0, 1, 0), 8192, &[api, "sharedTmpBuffer holds 4096 bytes; the tiling's two halves (tmpBuffer2Offset = 1024) take 8192"]);
        let mut zero = pad_tiling_func(&[8, 7], &[8, 7], 0, 4);
        zero.tmp_buffer1_block_num = 0;
        expect_panic(
            || on(soc, || io(|s, d, t| pad(d, s, &PadParams::new(0, 1, 0), t, &zero))),
            &[api, "tiling.tmpBuffer1BlockNum = 0; it must be in [1, 255]"],
        );
        expect_panic(
            || {
                on(soc, || {
                    io(|s, _, t| {
                        pad(s, s, &PadParams::new(0, 2, 0), t, &pad_tiling_func(&[4, 16], &[4, 14], 0, 4))
                    })
                })
            },
            &[api, "dstTensor UB bytes", "overlap srcTensor"],
        );
    }
}

#[test]
fn un_pad_errors() {
    let api = "UnPad";
    fn io(f: impl FnOnce(&LocalTensor<f32>, &LocalTensor<f32>, &LocalTensor<u8>)) {
        let (u, off) = pad_io::<f32>(64, 64, 4096);
        f(&u.t::<f32>(off[0], 64), &u.t::<f32>(off[1], 64), &u.t::<u8>(off[2], 4096));
    }
    expect_panic(
        || {
            on(Soc::Ascend310B, || {
                io(|s, d, t| un_pad(d, s, &UnPadParams::new(0, 1), t, &un_pad_tiling_func(&[4, 16], 0, 4)))
            })
        },
        &[api, "no implementation on Ascend310B"],
    );
    for soc in CHIPS {
        let run = |shape: [usize; 2], right: u16, bytes: usize, needles: &[&str]| {
            let tiling = un_pad_tiling_func(&shape, bytes, 4);
            expect_panic(
                || on(soc, || io(|s, d, t| un_pad(d, s, &UnPadParams::new(0, right), t, &tiling))),
                needles,
            );
        };
        run([4, 12], 1, 1024, &[api, "srcWidth = 12 float is not 32-byte aligned"]);
        run([4, 8], 8, 1024, &[api, "rightPad = 8; it must be less than srcWidth = 8"]);
        run([9, 8], 1, 1024, &[api, "srcTensor holds 64 elements, fewer than srcHeight * srcWidth = 72"]);
        expect_panic(
            || {
                on(soc, || {
                    io(|s, _, t| {
                        un_pad(s, s, &UnPadParams::new(0, 1), t, &un_pad_tiling_func(&[4, 16], 1024, 4))
                    })
                })
            },
            &[api, "dstTensor UB bytes", "overlap srcTensor"],
        );
    }
    // Ascend310P: the vendor's limits.
    let run = |shape: [usize; 2], right: u16, bytes: usize, needles: &[&str]| {
        let tiling = un_pad_tiling_func(&shape, bytes, 4);
        expect_panic(
            || on(Soc::Ascend310P, || io(|s, d, t| un_pad(d, s, &UnPadParams::new(0, right), t, &tiling))),
            needles,
        );
    };
    run(
        [5, 8],
        1,
        1024,
        &[api, "srcHeight * (srcWidth - rightPad) = 5 * 7 = 35 is not a whole number of blocks"],
    );
    expect_panic(
        || {
            on(Soc::Ascend310P, || {
                let (u, off) = pad_io::<f32>(512, 512, 1024);
                let (src, dst, tmp) =
                    (u.t::<f32>(off[0], 512), u.t::<f32>(off[1], 512), u.t::<u8>(off[2], 1024));
                un_pad(&dst, &src, &UnPadParams::new(0, 17), &tmp, &un_pad_tiling_func(&[8, 32], 1024, 4));
            })
        },
        &[api, "rightPad = 17 exceeds the last fractal's tiling.widthFractalTail = 16"],
    );
    run([8, 8], 1, 8192, &[api, "the tiling's two halves (tmpBuffer2Offset = 1024) take 8192"]);
    run([8, 8], 1, 0, &[api, "tiling.tmpBuffer1BlockNum = 0"]);
}
