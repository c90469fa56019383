//! `int4b_t` (`Int4b`) in global memory and its data movement: `GlobalTensor<Int4b>` sizes
//! and offsets count 4-bit elements (a view starts on a byte), `DataCopy`'s `DataCopyParams`
//! form moves 32-byte blocks of them, `DataCopyPad` UB → GM takes `blockLen` in bytes (the
//! published FlatQuant operator's `count / 2`), and the count form of `DataCopy` is refused with
//! the reason (the vendor's implementation on these chips would read the count as bytes).

use ascend_core::prelude::*;

use crate::common::util::{expect_panic, on, tensor};

/// The nibbles of `bytes`, element `2k` the low nibble of byte `k`.
fn nibbles(bytes: &[u8]) -> Vec<i8> {
    bytes.iter().flat_map(|&b| [Int4b::from_nibble(b).value(), Int4b::from_nibble(b >> 4).value()]).collect()
}

/// A `GlobalTensor<Int4b>` over `bytes` (two elements each).
fn gm4(bytes: &[u8]) -> (std::sync::Arc<GmRegion>, GlobalTensor<Int4b>) {
    let region = GmRegion::from_bytes(bytes);
    let mut g = GlobalTensor::<Int4b>::new();
    g.set_global_buffer(region.addr(), 2 * bytes.len());
    (region, g)
}

#[test]
fn global_tensor_reads_and_writes_nibbles_of_every_byte() {
    let all: Vec<u8> = (0..=255).collect();
    let (region, g) = gm4(&all);
    assert_eq!(g.get_size(), 512);
    let got: Vec<i8> = (0..512).map(|i| g.get_value(i).value()).collect();
    assert_eq!(got, nibbles(&all));
    // Views start on a byte and count elements.
    let v = g.view(6);
    assert_eq!(
        (v.get_size(), v.get_value(0).value(), v.byte_offset()),
        (506, Int4b::from_nibble(3).value(), 3)
    );
    // SetValue keeps the other nibble of the byte.
    g.set_value(9, Int4b::new(-8)); // byte 4 = 0x04: high nibble becomes 8
    g.set_value(10, Int4b::new(7)); // byte 5 = 0x05: low nibble becomes 7
    assert_eq!(region.to_bytes()[4..6], [0x84, 0x07]);
    // A length without a whole last byte binds its bytes rounded up.
    let mut h = GlobalTensor::<Int4b>::new();
    h.set_global_buffer(region.addr(), 5);
    assert_eq!((h.get_size(), h.get_value(4).value()), (5, Int4b::from_nibble(0x02).value()));
}

#[test]
fn global_tensor_checks_name_int4b() {
    let (region, g) = gm4(&[0u8; 8]);
    expect_panic(
        || drop(g.view(3)),
        &["GlobalTensor::operator[]", "offset = 3 int4b_t elements does not start on a byte"],
    );
    expect_panic(
        || {
            let _ = g.get_value(16);
        },
        &["GlobalTensor::GetValue", "index = 16 is out of range: the tensor has 16 int4b_t elements"],
    );
    let mut h = GlobalTensor::<Int4b>::new();
    expect_panic(
        || h.set_global_buffer(region.addr(), 17),
        &["GlobalTensor::SetGlobalBuffer", "len = 17 int4b_t elements (9 bytes) exceeds the 8 bytes left"],
    );
    let u = GlobalTensor::<Int4b>::new();
    expect_panic(
        || {
            let _ = u.get_value(0);
        },
        &["not bound", "GlobalTensor<int4b_t>"],
    );
}

#[test]
fn data_copy_params_moves_int4b_blocks_on_every_chip() {
    for soc in Soc::ALL {
        on(soc, || {
            let all: Vec<u8> = (0..=255).collect();
            let (_s, src) = gm4(&all);
            let (dst_r, dst) = gm4(&[0u8; 256]);
            let mut pipe = TPipe::new();
            let a = tensor::<u8>(&mut pipe, 256).reinterpret_cast::<Int4b>();
            let b = tensor::<u8>(&mut pipe, 256).reinterpret_cast::<Int4b>();
            // GM -> UB: 4 rows of 2 blocks (128 elements each), 0 gaps; then UB -> UB; UB -> GM.
            data_copy_params(&a, &src, &DataCopyParams::new(4, 2, 0, 0));
            data_copy_params(&b, &a, &DataCopyParams::new(1, 8, 0, 0));
            assert_eq!(b.to_vec().iter().map(|x| x.value()).collect::<Vec<_>>(), nibbles(&all), "{soc}");
            // Out with a 1-block gap in GM after each 2-block row: blocks 0,1 and 3,4 of dst.
            data_copy_params(&dst, &b, &DataCopyParams::new(2, 2, 0, 1));
            let out = dst_r.to_bytes();
            assert_eq!(out[..64], all[..64], "{soc}");
            assert!(out[64..96].iter().all(|&x| x == 0), "{soc}");
            assert_eq!(out[96..160], all[64..128], "{soc}");
            // Views of the GM tensor start on a byte: element 64 is byte 32.
            data_copy_params(&a, &src.view(70), &DataCopyParams::new(1, 1, 0, 0));
            assert_eq!(
                (a.get_value(0), a.get_value(1)),
                (Int4b::from_nibble(35), Int4b::from_nibble(2)),
                "{soc}"
            );
        });
    }
}

#[test]
fn data_copy_count_form_refuses_int4b_with_the_reason() {
    let (_r, src) = gm4(&[0u8; 64]);
    let mut pipe = TPipe::new();
    let a = tensor::<u8>(&mut pipe, 64).reinterpret_cast::<Int4b>();
    let msg = "count = 64 int4b_t elements: the count form does not take int4b_t on Ascend910B";
    expect_panic(|| data_copy(&a, &src, 64), &["DataCopy", msg, "use data_copy_params"]);
    expect_panic(|| data_copy(&src, &a, 64), &["DataCopy", msg]);
}

#[test]
fn data_copy_pad_writes_int4b_rows_as_the_flat_quant_operator_does() {
    for soc in [Soc::Ascend910B, Soc::Ascend310B] {
        on(soc, || {
            // Quantise 3 rows of 10 halves to int4b_t, then DataCopyPad each row out with
            // blockLen = 10 / 2 bytes to GM rows 6 bytes apart (dstStride 1 byte), UB rows one
            // block apart.
            let mut pipe = TPipe::new();
            let h = tensor::<f16>(&mut pipe, 192);
            let q = tensor::<u8>(&mut pipe, 96).reinterpret_cast::<Int4b>();
            let vals: Vec<f32> = (0..192).map(|i| ((i * 7) % 17) as f32 - 8.0).collect();
            h.copy_from_slice(&vals.iter().map(|&x| f16::from_f32(x)).collect::<Vec<_>>());
            if soc == Soc::Ascend910B {
                cast(&q, &h, RoundMode::CastRint, 192);
            } else {
                // Ascend310B has no int4b_t Cast: the same values by SetValue.
                for (i, &x) in vals.iter().enumerate() {
                    q.set_value(i, Int4b::new(x.clamp(-8.0, 7.0) as i8));
                }
            }
            let (r, g) = gm4(&[0xAA; 24]);
            data_copy_pad_to_gm(&g.view(2), &q, &DataCopyExtParams::new(3, 5, 0, 1));
            let mut want = vec![0xAAu8; 24];
            for row in 0..3 {
                for k in 0..5 {
                    let lo = Int4b::new(vals[row * 64 + 2 * k].clamp(-8.0, 7.0) as i8).to_nibble();
                    let hi = Int4b::new(vals[row * 64 + 2 * k + 1].clamp(-8.0, 7.0) as i8).to_nibble();
                    want[1 + row * 6 + k] = lo | hi << 4;
                }
            }
            assert_eq!(r.to_bytes(), want, "{soc}");
            expect_panic(
                || data_copy_pad_to_gm(&g, &q, &DataCopyExtParams::new(1, 25, 0, 0)),
                &["DataCopyPad", "blockLen = 25 bytes", "span 25 bytes of dst, which has 24 bytes"],
            );
        });
    }
}

/// GM → UB `DataCopyPad` of `int4b_t` takes the vendor's 8-bit path: `blockLen` and the
/// paddings in bytes, the padding byte the value's nibble (high nibble 0); without `isPad` and
/// padding, the filler repeats the row's first byte. Both chips with `DataCopyPad`, each
/// against the same copy of the bytes as `uint8_t` with the storage byte as its value.
#[test]
fn data_copy_pad_reads_int4b_rows_as_bytes() {
    let bytes: Vec<u8> = (0..40u8).map(|i| i.wrapping_mul(37) ^ 0x5A).collect();
    for soc in [Soc::Ascend910B, Soc::Ascend310B] {
        for (rows, len, src_stride, left, right, is_pad, value) in [
            (2u16, 5u32, 3u32, 2u8, 1u8, true, -3i8),
            (3, 7, 0, 0, 0, false, 0),
            (1, 9, 0, 0, 4, true, 7),
            (2, 4, 1, 32, 0, true, -8),
        ] {
            on(soc, || {
                let (_r, g) = gm4(&bytes);
                let mut pipe = TPipe::new();
                let mut q = TQue::<VecIn, 1>::new();
                pipe.init_buffer(&mut q, 1, 256);
                let raw = tensor::<u8>(&mut pipe, 256);
                let x = q.alloc_tensor::<Int4b>();
                assert_eq!(x.get_size(), 512);
                x.reinterpret_cast::<u8>().copy_from_slice(&[0xEE; 256]);
                raw.copy_from_slice(&[0xEE; 256]);
                let p = DataCopyExtParams::new(rows, len, src_stride, 0);
                let v = Int4b::new(value);
                data_copy_pad(&x, &g, &p, &DataCopyPadExtParams::new(is_pad, left, right, v));
                // The same copy of the bytes: the padding byte is the storage byte.
                let mut gb = GlobalTensor::<u8>::new();
                gb.set_global_buffer(g.get_phy_addr(), bytes.len());
                data_copy_pad(&raw, &gb, &p, &DataCopyPadExtParams::new(is_pad, left, right, v.to_nibble()));
                let ctx = format!(
                    "{soc} rows {rows} len {len} stride {src_stride} pad {left}/{right} {is_pad} {value}"
                );
                assert_eq!(x.reinterpret_cast::<u8>().to_vec(), raw.to_vec(), "{ctx}");
                if is_pad {
                    let first = x.get_value(2 * usize::from(left) + 2 * len as usize);
                    let second = x.get_value(2 * usize::from(left) + 2 * len as usize + 1);
                    assert_eq!(
                        (first, second),
                        (v, Int4b::new(0)),
                        "{ctx}: a padding byte is the nibble, then 0"
                    );
                }
                if left > 0 {
                    assert_eq!(x.get_value(0), v, "{ctx}");
                }
                // Row 0's data bytes in order.
                let got: Vec<u8> = x.reinterpret_cast::<u8>().to_vec()
                    [usize::from(left)..usize::from(left) + len as usize]
                    .to_vec();
                assert_eq!(got, bytes[..len as usize], "{ctx}");
            });
        }
    }
    on(Soc::Ascend910B, || {
        let (_r, g) = gm4(&bytes);
        let mut pipe = TPipe::new();
        let x = tensor::<u8>(&mut pipe, 64).reinterpret_cast::<Int4b>();
        let pad = DataCopyPadExtParams::new(true, 33, 0, Int4b::new(1));
        expect_panic(
            || data_copy_pad(&x, &g, &DataCopyExtParams::new(1, 4, 0, 0), &pad),
            &["DataCopyPad", "leftPadding = 33", "the limit is 32 bytes"],
        );
        expect_panic(
            || {
                data_copy_pad(
                    &x,
                    &g,
                    &DataCopyExtParams::new(1, 41, 0, 0),
                    &DataCopyPadExtParams::new(false, 0, 0, Int4b::new(0)),
                )
            },
            &["DataCopyPad", "blockLen = 41 bytes", "of src, which has 40 bytes"],
        );
    });
    on(Soc::Ascend310P, || {
        let (_r, g) = gm4(&bytes);
        let mut pipe = TPipe::new();
        let x = tensor::<u8>(&mut pipe, 64).reinterpret_cast::<Int4b>();
        let pad = DataCopyPadExtParams::new(false, 0, 0, Int4b::new(0));
        expect_panic(
            || data_copy_pad(&x, &g, &DataCopyExtParams::new(1, 4, 0, 0), &pad),
            &["DataCopyPad", "not supported on Ascend310P"],
        );
    });
}

/// `TQue::AllocTensor<int4b_t>`: twice the buffer's bytes in elements, and the queue's
/// round trip (`EnQue`, `DeQue`, `FreeTensor`) with it, as with any type.
#[test]
fn a_queue_hands_out_int4b_tensors() {
    let mut pipe = TPipe::new();
    let mut q = TQue::<VecIn, 2>::new();
    pipe.init_buffer(&mut q, 2, 96);
    let a = q.alloc_tensor::<Int4b>();
    let b = q.alloc_tensor::<Int4b>();
    assert_eq!((a.get_size(), b.get_size()), (192, 192));
    assert_eq!(b.get_phy_addr(), a.get_phy_addr() + 96);
    for i in 0..192 {
        a.set_value(i, Int4b::new((i % 16) as i8 - 8));
    }
    q.enque(a);
    q.enque(b);
    let a = q.deque::<Int4b>();
    assert_eq!(a.reinterpret_cast::<u8>().get_value(0), 0x98);
    assert_eq!(a.get_value(191).value(), 7);
    q.free_tensor(a);
    let b = q.deque::<u8>();
    q.free_tensor(b);
    assert!(q.has_idle_buffer());
}

#[test]
fn an_atomic_mode_does_not_take_int4b() {
    let (_r, g) = gm4(&[0u8; 32]);
    let mut pipe = TPipe::new();
    let a = tensor::<u8>(&mut pipe, 32).reinterpret_cast::<Int4b>();
    set_atomic_add::<i8>();
    expect_panic(
        || data_copy_params(&g, &a, &DataCopyParams::new(1, 1, 0, 0)),
        &["DataCopy", "the core's atomic mode is SetAtomicAdd<int8_t>, but this copy moves int4b_t elements"],
    );
    set_atomic_none();
}
