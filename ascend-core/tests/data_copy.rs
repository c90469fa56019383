//! DataCopy (count and DataCopyParams forms) and DataCopyPad, against a byte-level reference.

use ascend_core::prelude::*;
use ascend_core::sanitizer::LaunchSanitizer;
use bytemuck::Pod;

use crate::common::util;
use util::{expect_panic, gm, on, tensor, ub, Rng};

use crate::common::prop as strat;
use proptest::prelude::*;

fn ub_bytes<T: Element + Pod>(t: &LocalTensor<T>) -> Vec<u8> {
    bytemuck::cast_slice(&t.to_vec()).to_vec()
}

// ---------------------------------------------------------------- data_copy(count)

macro_rules! round_trip {
    ($($t:ident),*) => {$(paste::paste! {
        #[test]
        fn [<count_round_trip_ $t>]() {
            let n = 4 * 32 / core::mem::size_of::<$t>(); // 4 blocks
            let data: Vec<$t> = (0..2 * n).map(|i| <$t as Element>::from_f64((i % 100) as f64)).collect();
            let (_src_r, src) = gm(&data);
            let (dst_r, dst) = gm(&vec![<$t as Element>::ZERO; 2 * n]);
            let mut pipe = TPipe::new();
            let (a, b) = (tensor::<$t>(&mut pipe, n), tensor::<$t>(&mut pipe, n));
            data_copy(&a, &src.view(n), n); // GM -> UB
            data_copy(&b, &a, n); // UB -> UB
            data_copy(&dst, &b, n); // UB -> GM
            let out = dst_r.to_bytes();
            let want: &[u8] = bytemuck::cast_slice(&data[n..]);
            assert_eq!(&out[..n * core::mem::size_of::<$t>()], want);
            assert!(out[n * core::mem::size_of::<$t>()..].iter().all(|&x| x == 0));
        }
    })*};
}
round_trip!(u8, i8, u16, i16, u32, i32, u64, i64, f16, bf16, f32);

#[test]
fn count_copy_works_on_every_chip() {
    for soc in Soc::ALL {
        run_on_core(CoreConfig::single(soc), || {
            let data: Vec<f32> = (0..16).map(|i| i as f32).collect();
            let (_r, src) = gm(&data);
            let mut pipe = TPipe::new();
            let x = tensor::<f32>(&mut pipe, 16);
            data_copy(&x, &src, 16);
            assert_eq!(x.to_vec(), data, "{soc}");
        });
    }
}

#[test]
fn unaligned_count_fails() {
    let (_r, src) = gm(&[0f32; 16]);
    let mut pipe = TPipe::new();
    let x = tensor::<f32>(&mut pipe, 16);
    expect_panic(
        || data_copy(&x, &src, 7), &["DataCopy: count = 7 float elements is 28 bytes, not a multiple of 32 bytes (the hardware would silently \
         copy only 0 bytes"]);
    expect_panic(|| data_copy(&src, &x, 12), &["count = 12 float elements is 48 bytes, not a multiple of 32 bytes (the hardware would silently copy only 32 bytes"]);
}

#[test]
fn count_copy_bounds_are_checked_on_both_sides() {
    let (_r, src) = gm(&[0f32; 16]);
    let mut pipe = TPipe::new();
    let x = tensor::<f32>(&mut pipe, 32);
    let y = tensor::<f32>(&mut pipe, 8);
    expect_panic(|| data_copy(&x, &src, 24), &["DataCopy: count = 24 exceeds src's 16 float elements"]);
    expect_panic(|| data_copy(&y, &src, 16), &["DataCopy: count = 16 exceeds dst's 8 float elements"]);
    expect_panic(|| data_copy(&src, &x.view(24), 16), &["count = 16 exceeds src's 8 float elements"]);
    expect_panic(|| data_copy(&y, &x, 16), &["count = 16 exceeds dst's 8 float elements"]);
}

#[test]
fn ub_side_must_be_an_aligned_ub_position() {
    let (_r, src) = gm(&[0f32; 16]);
    let mut pipe = TPipe::new();
    // L0C is not a DataCopy destination (GM -> L1 is: see the cube tests).
    let l0c = LocalTensor::<f32>::new(TPosition::CO1, 0, 16);
    let x = tensor::<f32>(&mut pipe, 16);
    expect_panic(
        || data_copy(&l0c, &src, 8),
        &["DataCopy: dst is at position CO1: the Unified Buffer side must be VECIN, VECOUT or VECCALC"],
    );
    expect_panic(
        || data_copy(&x.view(1), &src, 8),
        &["DataCopy: dst UB address = 0x4 is not 32-byte aligned"],
    );
    expect_panic(
        || data_copy(&src, &x.view(2), 8),
        &["DataCopy: src UB address = 0x8 is not 32-byte aligned"],
    );
}

#[test]
fn unbound_global_tensor_fails() {
    let mut pipe = TPipe::new();
    let x = tensor::<f32>(&mut pipe, 16);
    let g = GlobalTensor::<f32>::new();
    expect_panic(|| data_copy(&x, &g, 8), &["DataCopy: the GlobalTensor is not bound"]);
}

#[test]
fn ub_to_ub_overlap_forward_moves_backward_fails_and_full_overlap_is_a_no_op() {
    let mut pipe = TPipe::new();
    let x = tensor::<i32>(&mut pipe, 32);
    let v: Vec<i32> = (0..32).collect();
    x.copy_from_slice(&v);
    data_copy(&x, &x, 16);
    assert_eq!(x.to_vec(), v);
    // dst after src: a front-to-back stream would read bytes it has already written
    expect_panic(
        || data_copy(&x.view(8), &x, 16),
        &["DataCopy: dst bytes [0x20, 0x60) overlap src bytes [0x0, 0x40) in the Unified Buffer with dst after src"],
    );
    // dst before src: every byte is read before it is overwritten
    data_copy(&x, &x.view(8), 16);
    let want: Vec<i32> = (8..24).chain(16..32).collect();
    assert_eq!(x.to_vec(), want);
}

/// The vendor's `ReduceSum` (`isReuseSource`) packs each row's first blocks to the front in
/// place: `DataCopy(tmp, tmp, {rows, blockLen, srcStride, 0})`. Rows move first to last, each
/// front to back; a `dst` advancing faster than `src` is an error.
#[test]
fn ub_to_ub_rows_packed_in_place() {
    let mut pipe = TPipe::new();
    let x = tensor::<i32>(&mut pipe, 96);
    let v: Vec<i32> = (0..96).collect();
    x.copy_from_slice(&v);
    // 4 rows of 3 blocks (24 ints), keep the first 2 blocks (16 ints) of each
    data_copy_params(&x, &x, &DataCopyParams::new(4, 2, 1, 0));
    let mut want = v.clone();
    for r in 0..4 {
        for j in 0..16 {
            want[r * 16 + j] = v[r * 24 + j];
        }
    }
    assert_eq!(x.to_vec(), want);
    expect_panic(
        || data_copy_params(&x, &x, &DataCopyParams::new(2, 2, 0, 1)),
        &["DataCopy: dst bytes [0x0, 0xa0) overlap src bytes [0x0, 0x80)", "advancing faster than src"],
    );
}

/// An in-place UB→UB copy is one V instruction for the sanitizer: under `auto_sync(false)` it
/// needs no barrier with itself, and a vector read of what it wrote needs one after it.
#[test]
fn ub_to_ub_in_place_copy_is_one_instruction_for_the_sanitizer() {
    let run = |barrier: bool| {
        on(Soc::Ascend910B, || {
            LaunchSanitizer::with_auto_sync(false).run_core(|| {
                let u = ub(1024);
                let (y, z) = (u.t::<i32>(0, 96), u.t::<i32>(512, 16));
                data_copy_params(&y, &y, &DataCopyParams::new(4, 2, 1, 0));
                if barrier {
                    pipe_barrier::<PIPE_V>();
                }
                adds(&z, &y.view(16), 1, 16);
                pipe_barrier::<PIPE_ALL>();
            })
        })
    };
    run(true);
    let msg = util::panic_message(|| run(false));
    assert!(msg.contains("DataCopy") && msg.contains("Adds") && msg.contains("PipeBarrier<PIPE_V>"), "{msg}");
}

// ---------------------------------------------------------------- DataCopyParams

/// The SPEC's rule on bytes: row `i` of `bl` blocks from block `i*(bl+ss)` to `i*(bl+ds)`.
fn ref_params(dst: &mut [u8], src: &[u8], p: &DataCopyParams) {
    let (bl, ss, ds) = (p.block_len as usize * 32, p.src_stride as usize * 32, p.dst_stride as usize * 32);
    for i in 0..p.block_count as usize {
        let (s, d) = (i * (bl + ss), i * (bl + ds));
        dst[d..d + bl].copy_from_slice(&src[s..s + bl]);
    }
}

#[test]
fn strided_gm_to_ub_lands_exactly() {
    let data: Vec<f32> = (0..48).map(|i| i as f32).collect();
    let (_r, src) = gm(&data);
    let mut pipe = TPipe::new();
    let x = tensor::<f32>(&mut pipe, 64);
    x.copy_from_slice(&[-1.0; 64]);
    data_copy_params(&x, &src, &DataCopyParams::new(3, 1, 1, 2));
    let out = x.to_vec();
    for (i, v) in out.iter().enumerate() {
        let want = match i {
            0..=7 => i as f32,
            24..=31 => (i - 24 + 16) as f32,
            48..=55 => (i - 48 + 32) as f32,
            _ => -1.0,
        };
        assert_eq!(*v, want, "element {i}");
    }
}

#[test]
fn strided_ub_to_gm_lands_exactly() {
    let (r, dst) = gm(&[-1i16; 96]);
    let mut pipe = TPipe::new();
    let x = tensor::<i16>(&mut pipe, 64);
    x.copy_from_slice(&(0..64).collect::<Vec<i16>>());
    // 2 rows of 2 blocks (32 i16), no gap in UB, one block (16 i16) of gap in GM
    data_copy_params(&dst, &x, &DataCopyParams::new(2, 2, 0, 1));
    let out: Vec<i16> = (0..96).map(|i| dst.get_value(i)).collect();
    for (i, v) in out.iter().enumerate() {
        let want = match i {
            0..=31 => i as i16,
            48..=79 => (i - 16) as i16,
            _ => -1,
        };
        assert_eq!(*v, want, "element {i}");
    }
    drop(r);
}

#[test]
fn strided_ub_to_ub_lands_exactly() {
    let mut pipe = TPipe::new();
    let x = tensor::<u32>(&mut pipe, 64);
    let y = tensor::<u32>(&mut pipe, 64);
    x.copy_from_slice(&(0..64).collect::<Vec<u32>>());
    y.copy_from_slice(&[7; 64]);
    data_copy_params(&y, &x, &DataCopyParams::new(2, 1, 2, 3));
    let out = y.to_vec();
    for (i, v) in out.iter().enumerate() {
        let want = match i {
            0..=7 => i as u32,
            32..=39 => (i - 32 + 24) as u32,
            _ => 7,
        };
        assert_eq!(*v, want, "element {i}");
    }
}

#[test]
fn strided_copies_match_the_reference_randomly() {
    // Direction (GM->UB, UB->GM, UB->UB), block count, block length, src and dst stride, and
    // the seed of the data.
    let cases = (0..3usize, 1..=6u16, 1..=4u16, 0..4u16, 0..4u16, any::<u64>());
    strat::check_cases(
        300,
        0x9E37_79B9_7F4A_7C15,
        cases,
        |&(dir, count, len, src_stride, dst_stride, seed)| {
            let mut rng = Rng(seed);
            let mut pipe = TPipe::new();
            let a = tensor::<u16>(&mut pipe, 16 * 64); // 64 blocks
            let b = tensor::<u16>(&mut pipe, 16 * 64);
            let p = DataCopyParams::new(count, len, src_stride, dst_stride);
            let src_bytes = rng.bytes(64 * 32);
            let old = rng.bytes(64 * 32);
            let mut want = old.clone();
            ref_params(&mut want, &src_bytes, &p);
            let src_u16: Vec<u16> = bytemuck::cast_slice(&src_bytes).to_vec();
            let old_u16: Vec<u16> = bytemuck::cast_slice(&old).to_vec();
            match dir {
                0 => {
                    let (_r, g) = gm(&src_u16);
                    a.copy_from_slice(&old_u16);
                    data_copy_params(&a, &g, &p);
                    assert_eq!(ub_bytes(&a), want, "GM->UB {p:?}");
                }
                1 => {
                    let (r, g) = gm(&old_u16);
                    a.copy_from_slice(&src_u16);
                    data_copy_params(&g, &a, &p);
                    assert_eq!(r.to_bytes(), want, "UB->GM {p:?}");
                }
                _ => {
                    a.copy_from_slice(&src_u16);
                    b.copy_from_slice(&old_u16);
                    data_copy_params(&b, &a, &p);
                    assert_eq!(ub_bytes(&b), want, "UB->UB {p:?}");
                }
            }
        },
    );
}

#[test]
fn zero_block_count_or_len_copies_nothing() {
    let (_r, src) = gm(&[5u8; 64]);
    let mut pipe = TPipe::new();
    let x = tensor::<u8>(&mut pipe, 64);
    data_copy_params(&x, &src, &DataCopyParams::new(0, 1, 0, 0));
    data_copy_params(&x, &src, &DataCopyParams::new(2, 0, 0, 0));
    data_copy(&x, &src, 0);
    assert!(x.to_vec().iter().all(|&v| v == 0));
}

#[test]
fn block_count_above_4095_fails() {
    let (_r, src) = gm(&[0u8; 64]);
    let mut pipe = TPipe::new();
    let x = tensor::<u8>(&mut pipe, 64);
    expect_panic(
        || data_copy_params(&x, &src, &DataCopyParams::new(4096, 1, 0, 0)),
        &["DataCopy: blockCount = 4096 is out of range [0, 4095]"],
    );
}

#[test]
fn strided_bounds_are_checked_on_both_sides() {
    let (_r, src) = gm(&[0f32; 64]); // 256 bytes
    let mut pipe = TPipe::new();
    let x = tensor::<f32>(&mut pipe, 128); // 512 bytes
    let y = tensor::<f32>(&mut pipe, 16); // 64 bytes
                                          // src span: 3 rows of 2 blocks, gap 1: (3*2 + 2*1)*32 = 256 fits; gap 2 -> 320
    data_copy_params(&x, &src, &DataCopyParams::new(3, 2, 1, 0));
    expect_panic(
        || data_copy_params(&x, &src, &DataCopyParams::new(3, 2, 2, 0)), &["DataCopy: blockCount = 3, blockLen = 2, srcStride = 2 (32-byte blocks) span 320 bytes of src, which has 256 \
         bytes"]);
    expect_panic(
        || data_copy_params(&y, &src, &DataCopyParams::new(2, 1, 0, 1)), &["blockCount = 2, blockLen = 1, dstStride = 1 (32-byte blocks) span 96 bytes of dst, which has 64 bytes"]);
    expect_panic(
        || data_copy_params(&src, &x, &DataCopyParams::new(2, 4, 0, 1)),
        &["dstStride = 1 (32-byte blocks) span 288 bytes of dst, which has 256 bytes"],
    );
    expect_panic(
        || data_copy_params(&x, &y, &DataCopyParams::new(1, 3, 0, 0)),
        &["srcStride = 0 (32-byte blocks) span 96 bytes of src, which has 64 bytes"],
    );
}

// ---------------------------------------------------------------- DataCopyPad

#[test]
fn pad_gm_to_ub_with_padding_and_strides() {
    let data: Vec<i32> = (0..40).collect();
    let (_r, src) = gm(&data);
    let mut pipe = TPipe::new();
    let x = tensor::<i32>(&mut pipe, 32);
    x.copy_from_slice(&[99; 32]);
    // 2 rows of 5 i32 (20 bytes), 8 bytes apart in GM; UB rows of 4 + 20 + 4 -> 32 bytes,
    // one block apart
    let p = DataCopyExtParams::new(2, 20, 8, 1);
    data_copy_pad(&x, &src, &p, &DataCopyPadExtParams::new(true, 1, 1, -7));
    let want: Vec<i32> =
        [[-7, 0, 1, 2, 3, 4, -7, -7], [99; 8], [-7, 7, 8, 9, 10, 11, -7, -7], [99; 8]].concat();
    assert_eq!(x.to_vec(), want);
}

#[test]
fn pad_without_is_pad_fills_with_the_first_element_or_keeps_old_bytes() {
    let data: Vec<i32> = (10..40).collect();
    let (_r, src) = gm(&data);
    let mut pipe = TPipe::new();
    let x = tensor::<i32>(&mut pipe, 16);
    x.copy_from_slice(&[99; 16]);
    // no padding: the filler repeats the row's first element
    data_copy_pad(&x, &src, &DataCopyExtParams::new(2, 12, 0, 0), &DataCopyPadExtParams::default());
    assert_eq!(x.to_vec(), [[10, 11, 12, 10, 10, 10, 10, 10], [13, 14, 15, 13, 13, 13, 13, 13]].concat());
    // padding without is_pad: unspecified on hardware, kept here
    x.copy_from_slice(&[99; 16]);
    data_copy_pad(&x, &src, &DataCopyExtParams::new(1, 12, 0, 0), &DataCopyPadExtParams::new(false, 2, 1, 5));
    assert_eq!(x.to_vec(), [[99, 99, 10, 11, 12, 99, 99, 99], [99; 8]].concat());
}

#[test]
fn pad_f16_left_padding_fills_a_whole_block() {
    let data: Vec<f16> = (0..16).map(|i| f16::from_f32(i as f32)).collect();
    let (_r, src) = gm(&data);
    let mut pipe = TPipe::new();
    let x = tensor::<f16>(&mut pipe, 64);
    // 16 elements of left padding = 32 bytes (the limit), 3 elements of data
    let pad = DataCopyPadExtParams::new(true, 16, 0, f16::from_f32(0.5));
    data_copy_pad(&x, &src, &DataCopyExtParams::new(1, 6, 0, 0), &pad);
    let out: Vec<f32> = x.to_vec().iter().map(|h| h.to_f32()).collect();
    assert!(out[..16].iter().all(|&v| v == 0.5));
    assert_eq!(&out[16..19], &[0.0, 1.0, 2.0]);
    assert!(out[19..32].iter().all(|&v| v == 0.5));
    assert!(out[32..].iter().all(|&v| v == 0.0));
}

/// Reference for GM -> UB DataCopyPad on bytes, with is_pad = true.
fn ref_pad_in(dst: &mut [u8], src: &[u8], p: &DataCopyExtParams, left: usize, right: usize, pad: &[u8]) {
    let bl = p.block_len as usize;
    let width = (left + bl + right).div_ceil(32) * 32;
    for i in 0..p.block_count as usize {
        let s = i * (bl + p.src_stride as usize);
        let d = i * (width + 32 * p.dst_stride as usize);
        let row = &mut dst[d..d + width];
        for (k, b) in row.iter_mut().enumerate() {
            *b = pad[k % pad.len()];
        }
        row[left..left + bl].copy_from_slice(&src[s..s + bl]);
    }
}

macro_rules! pad_random {
    ($($t:ident),*) => {$(paste::paste! {
        #[test]
        fn [<pad_matches_the_reference_randomly_ $t>]() {
            const SZ: usize = core::mem::size_of::<$t>();
            // Left and right padding, block count, block length in elements, src and dst
            // stride, padding value, and the seed of the data.
            let cases = (
                (0..=32 / SZ, 0..=32 / SZ),
                (1..=5u16, 0..20usize, 0..40u32, 0..3u32),
                0..100u8,
                any::<u64>(),
            );
            strat::check_cases(150, 0xD1B5_4A32_D192_ED03 ^ SZ as u64, cases, |&((left, right), (count, len, src_stride, dst_stride), value, seed)| {
                let mut rng = Rng(seed);
                let mut pipe = TPipe::new();
                let a = tensor::<$t>(&mut pipe, 4096 / SZ);
                let p = DataCopyExtParams::new(count, (len * SZ) as u32, src_stride, dst_stride);
                // 64-bit types only take 0 as padding value
                let value = <$t as Element>::from_f64(if SZ == 8 { 0.0 } else { value as f64 });
                let src_bytes = rng.bytes(4096);
                let old = rng.bytes(4096);
                let mut want = old.clone();
                let pad_bytes = bytemuck::bytes_of(&value).to_vec();
                if p.block_len > 0 {
                    ref_pad_in(&mut want, &src_bytes, &p, left * SZ, right * SZ, &pad_bytes);
                }
                let (_r, g) = gm::<$t>(bytemuck::cast_slice(&src_bytes[..1024]));
                a.copy_from_slice(bytemuck::cast_slice(&old));
                data_copy_pad(&a, &g, &p, &DataCopyPadExtParams::new(true, left as u8, right as u8, value));
                assert_eq!(ub_bytes(&a), want, "GM->UB {p:?} left {left} right {right}");

                // UB -> GM: rows of ceil(block_len, 32) bytes plus src_stride blocks in UB,
                // exactly block_len bytes plus dst_stride bytes in GM
                let q = DataCopyExtParams::new(p.block_count, p.block_len, p.dst_stride, p.src_stride);
                let (r, g) = gm::<$t>(bytemuck::cast_slice(&old[..1024]));
                a.copy_from_slice(bytemuck::cast_slice(&src_bytes));
                data_copy_pad_to_gm(&g, &a, &q);
                let mut want = old[..1024].to_vec();
                let bl = q.block_len as usize;
                for i in 0..q.block_count as usize {
                    let s = i * (bl.div_ceil(32) * 32 + 32 * q.src_stride as usize);
                    let d = i * (bl + q.dst_stride as usize);
                    want[d..d + bl].copy_from_slice(&src_bytes[s..s + bl]);
                }
                assert_eq!(r.to_bytes(), want, "UB->GM {q:?}");
            });
        }
    })*};
}
pad_random!(u8, i16, f16, f32, u64);

#[test]
fn pad_ub_to_gm_writes_exactly_block_len_bytes() {
    let (r, dst) = gm(&[-1i32; 16]);
    let mut pipe = TPipe::new();
    let x = tensor::<i32>(&mut pipe, 32);
    x.copy_from_slice(&(0..32).collect::<Vec<i32>>());
    data_copy_pad_to_gm(&dst, &x, &DataCopyExtParams::new(3, 12, 0, 4));
    let out: Vec<i32> = (0..16).map(|i| dst.get_value(i)).collect();
    assert_eq!(out, [0, 1, 2, -1, 8, 9, 10, -1, 16, 17, 18, -1, -1, -1, -1, -1]);
    // UB stride in blocks: rows 2 blocks apart
    data_copy_pad_to_gm(&dst, &x, &DataCopyExtParams::new(2, 4, 1, 0));
    assert_eq!((dst.get_value(0), dst.get_value(1)), (0, 16));
    drop(r);
}

#[test]
fn pad_is_rejected_on_chips_without_it() {
    for soc in [Soc::Ascend910, Soc::Ascend310P] {
        run_on_core(CoreConfig::single(soc), || {
            let (_r, g) = gm(&[0f32; 16]);
            let mut pipe = TPipe::new();
            let x = tensor::<f32>(&mut pipe, 16);
            let p = DataCopyExtParams::new(1, 4, 0, 0);
            let want = format!("DataCopyPad: not supported on {soc} ({})", soc.product_line());
            expect_panic(|| data_copy_pad(&x, &g, &p, &DataCopyPadExtParams::default()), &[&want]);
            expect_panic(|| data_copy_pad_to_gm(&g, &x, &p), &[&want]);
        });
    }
    run_on_core(CoreConfig::single(Soc::Ascend310B), || {
        let (_r, g) = gm(&[0i64; 8]);
        let mut pipe = TPipe::new();
        let x = tensor::<i64>(&mut pipe, 8);
        expect_panic(
            || data_copy_pad_to_gm(&g, &x, &DataCopyExtParams::new(1, 8, 0, 0)),
            &["DataCopyPad: int64_t is not supported on Ascend310B"],
        );
        let y = tensor::<f32>(&mut pipe, 8);
        let (_r2, h) = gm(&[1f32; 8]);
        data_copy_pad(&y, &h, &DataCopyExtParams::new(1, 4, 0, 0), &DataCopyPadExtParams::default());
        assert_eq!(y.get_value(7), 1.0);
    });
}

#[test]
fn pad_parameter_checks() {
    let (_r, g) = gm(&[0i32; 64]);
    let mut pipe = TPipe::new();
    let x = tensor::<i32>(&mut pipe, 64);
    let none = DataCopyPadExtParams::<i32>::default();
    expect_panic(
        || data_copy_pad(&x, &g, &DataCopyExtParams::new(1, 6, 0, 0), &none),
        &["DataCopyPad: blockLen = 6 bytes is not a multiple of size_of::<int32_t>() = 4"],
    );
    expect_panic(
        || data_copy_pad_to_gm(&g, &x, &DataCopyExtParams::new(4096, 4, 0, 0)),
        &["DataCopyPad: blockCount = 4096 is out of range [0, 4095]"],
    );
    expect_panic(
        || data_copy_pad(&x, &g, &DataCopyExtParams::new(1, 2_097_152, 0, 0), &none),
        &["blockLen = 2097152 bytes is out of range [0, 2097151]"],
    );
    for (pad, want) in [
        (
            DataCopyPadExtParams::new(true, 9, 0, 0),
            "DataCopyPad: leftPadding = 9 int32_t elements is 36 bytes; the limit is 32 bytes",
        ),
        (
            DataCopyPadExtParams::new(true, 0, 10, 0),
            "rightPadding = 10 int32_t elements is 40 bytes; the limit is 32 bytes",
        ),
    ] {
        expect_panic(|| data_copy_pad(&x, &g, &DataCopyExtParams::new(1, 4, 0, 0), &pad), &[want]);
    }
    let (_r64, g64) = gm(&[0u64; 8]);
    let x64 = tensor::<u64>(&mut pipe, 8);
    expect_panic(
        || {
            data_copy_pad(
                &x64,
                &g64,
                &DataCopyExtParams::new(1, 8, 0, 0),
                &DataCopyPadExtParams::new(true, 1, 0, 3),
            )
        },
        &["DataCopyPad: paddingValue = 3 must be 0 for the 64-bit type uint64_t"],
    );
    // zero counts are no-ops
    data_copy_pad(&x, &g, &DataCopyExtParams::new(0, 4, 0, 0), &none);
    data_copy_pad_to_gm(&g, &x, &DataCopyExtParams::new(3, 0, 0, 0));
}

#[test]
fn pad_bounds_are_checked_on_both_sides() {
    let (_r, g) = gm(&[0i32; 16]); // 64 bytes
    let mut pipe = TPipe::new();
    let x = tensor::<i32>(&mut pipe, 16); // 64 bytes
    let none = DataCopyPadExtParams::<i32>::default();
    // GM: 2 rows of 28 bytes, 12 bytes apart -> 68 bytes
    expect_panic(
        || data_copy_pad(&x, &g, &DataCopyExtParams::new(2, 28, 12, 0), &none), &["DataCopyPad: blockCount = 2, blockLen = 28 bytes, srcStride = 12 bytes span 68 bytes of src, which has 64 bytes"]);
    // UB: rows of 4 + 28 + 4 -> 64 bytes, two of them -> 128 bytes
    expect_panic(
        || data_copy_pad(&x, &g, &DataCopyExtParams::new(2, 28, 0, 0), &DataCopyPadExtParams::new(true, 1, 1, 0)), &["blockCount = 2 rows of 64 bytes (leftPadding 4 + blockLen 28 + rightPadding 4, rounded up to 32) with \
         dstStride = 0 blocks span 128 bytes of dst, which has 64 bytes"]);
    // UB -> GM: UB rows 32 bytes apart plus 1 block: 64 + 8 = 72 > 64
    expect_panic(
        || data_copy_pad_to_gm(&g, &x, &DataCopyExtParams::new(2, 8, 1, 0)), &["blockCount = 2, blockLen = 8 bytes, srcStride = 1 blocks span 72 bytes of src, which has 64 bytes"]);
    expect_panic(
        || data_copy_pad_to_gm(&g, &x, &DataCopyExtParams::new(2, 32, 0, 1)), &["blockCount = 2, blockLen = 32 bytes, dstStride = 1 bytes span 65 bytes of dst, which has 64 bytes"]);
}
