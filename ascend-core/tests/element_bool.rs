//! `bool` as an element ([`Bool8`]): every byte pattern moves unchanged through `DataCopy`
//! (count and `DataCopyParams` forms, GM → UB, UB → UB, UB → GM), `DataCopyPad` (both
//! directions, with `bool` padding), `TQue`/`TBuf` tensors and `ReinterpretCast`; the
//! published kernels' way to compute on it (`ReinterpretCast<int8_t>` then `Cast` to `half`)
//! gives 0 and 1. Which instructions reject it at compile time is in `Bool8`'s doc tests.

use ascend_core::prelude::*;

use crate::common::prop as strat;
use crate::common::util::{expect_panic, gm, on, tensor, Rng};

/// The 256 byte patterns, each a `Bool8`.
fn every_byte() -> Vec<Bool8> {
    (0..=255u8).map(Bool8::from_byte).collect()
}

fn bytes(v: &[Bool8]) -> Vec<u8> {
    v.iter().map(|b| b.to_byte()).collect()
}

#[test]
fn truth_is_any_nonzero_byte() {
    for b in 0..=255u8 {
        assert_eq!(Bool8::from_byte(b).get(), b != 0, "byte {b:#x}");
        assert_eq!(bool::from(Bool8::from_byte(b)), b != 0);
    }
    assert_eq!((Bool8::from(true).to_byte(), Bool8::from(false).to_byte()), (1, 0));
    assert_eq!((Bool8::TRUE.to_byte(), Bool8::FALSE.to_byte(), Bool8::default().to_byte()), (1, 0, 0));
    assert_eq!(<Bool8 as Element>::DTYPE, DType::Bool);
    assert_eq!((DType::Bool.name(), DType::Bool.size(), <Bool8 as Element>::SIZE), ("bool", 1, 1));
    assert_eq!(
        (Bool8::from_byte(7).to_string(), Bool8::FALSE.to_string()),
        ("true".to_string(), "false".to_string())
    );
}

#[test]
fn every_byte_pattern_round_trips_through_data_copy_on_every_chip() {
    for soc in Soc::ALL {
        on(soc, || {
            let data = every_byte();
            let (_s, src) = gm(&data);
            let (dst_r, dst) = gm(&[Bool8::FALSE; 256]);
            let mut pipe = TPipe::new();
            let (a, b) = (tensor::<Bool8>(&mut pipe, 256), tensor::<Bool8>(&mut pipe, 256));
            data_copy(&a, &src, 256); // GM -> UB
            data_copy(&b, &a, 256); // UB -> UB
            data_copy(&dst, &b, 256); // UB -> GM
            assert_eq!(dst_r.to_bytes(), (0..=255u8).collect::<Vec<_>>(), "{soc}");
            assert_eq!(bytes(&b.to_vec()), (0..=255u8).collect::<Vec<_>>(), "{soc}");
        });
    }
}

#[test]
fn data_copy_params_moves_whole_blocks_with_strides() {
    let data = every_byte();
    let (_s, src) = gm(&data);
    let mut pipe = TPipe::new();
    let a = tensor::<Bool8>(&mut pipe, 256);
    a.copy_from_slice(&[Bool8::from_byte(0xEE); 256]);
    // 2 blocks of 32 bytes, 1 block apart in GM and 2 in UB
    data_copy_params(&a, &src, &DataCopyParams::new(2, 1, 1, 2));
    let got = bytes(&a.to_vec());
    let mut want = vec![0xEEu8; 256];
    want[..32].copy_from_slice(&(0..32).collect::<Vec<u8>>());
    want[96..128].copy_from_slice(&(64..96).collect::<Vec<u8>>());
    assert_eq!(got, want);
}

#[test]
fn data_copy_count_counts_bool_bytes() {
    let (_s, src) = gm(&[Bool8::TRUE; 64]);
    let mut pipe = TPipe::new();
    let a = tensor::<Bool8>(&mut pipe, 64);
    expect_panic(
        || data_copy(&a, &src, 31),
        &["DataCopy: count = 31 bool elements is 31 bytes, not a multiple of 32 bytes"],
    );
    expect_panic(|| data_copy(&a, &src, 96), &["count = 96 exceeds"]);
}

/// GM -> UB `DataCopyPad` with `isPad = true`, on bytes (one byte per element).
fn ref_pad_in(dst: &mut [u8], src: &[u8], p: &DataCopyExtParams, left: usize, right: usize, pad: u8) {
    let bl = p.block_len as usize;
    let width = (left + bl + right).div_ceil(32) * 32;
    for i in 0..p.block_count as usize {
        let s = i * (bl + p.src_stride as usize);
        let d = i * (width + 32 * p.dst_stride as usize);
        dst[d..d + width].fill(pad);
        dst[d + left..d + left + bl].copy_from_slice(&src[s..s + bl]);
    }
}

#[test]
fn data_copy_pad_moves_bool_rows_with_bool_padding() {
    for soc in [Soc::Ascend910B, Soc::Ascend310B] {
        // left/right padding, blocks, block length (bytes = elements), strides, padding byte
        let cases = (
            (0..=31usize, 0..=31usize),
            (1..=4u16, 0..40usize, 0..40u32, 0..3u32),
            0..=255u8,
            proptest::prelude::any::<u64>(),
        );
        strat::check_cases(
            120,
            0xB001_u64 ^ soc as u64,
            cases,
            |&((left, right), (count, len, src_stride, dst_stride), pad, seed)| {
                // The padding fits one block: left + right < 32 elements each (the page's limit).
                on(soc, || {
                    let mut rng = Rng(seed);
                    let mut pipe = TPipe::new();
                    let a = tensor::<Bool8>(&mut pipe, 4096);
                    let src_bytes = rng.bytes(1024);
                    let old = rng.bytes(4096);
                    let p = DataCopyExtParams::new(count, len as u32, src_stride, dst_stride);
                    let mut want = old.clone();
                    if len > 0 {
                        ref_pad_in(&mut want, &src_bytes, &p, left, right, pad);
                    }
                    let src_vals: Vec<Bool8> = src_bytes.iter().map(|&b| Bool8::from_byte(b)).collect();
                    let (_r, g) = gm(&src_vals);
                    a.copy_from_slice(&old.iter().map(|&b| Bool8::from_byte(b)).collect::<Vec<_>>());
                    data_copy_pad(
                        &a,
                        &g,
                        &p,
                        &DataCopyPadExtParams::new(true, left as u8, right as u8, Bool8::from_byte(pad)),
                    );
                    assert_eq!(bytes(&a.to_vec()), want, "{soc} GM->UB {p:?} left {left} right {right}");

                    // UB -> GM writes exactly blockLen bytes per row.
                    let q = DataCopyExtParams::new(count, len as u32, dst_stride, src_stride);
                    let (r, g) = gm(&old[..1024].iter().map(|&b| Bool8::from_byte(b)).collect::<Vec<_>>());
                    a.copy_from_slice(&src_vals.iter().cycle().take(4096).copied().collect::<Vec<_>>());
                    data_copy_pad_to_gm(&g, &a, &q);
                    let mut want = old[..1024].to_vec();
                    let ub: Vec<u8> = src_bytes.iter().cycle().take(4096).copied().collect();
                    for i in 0..count as usize {
                        let s = i * (len.div_ceil(32) * 32 + 32 * q.src_stride as usize);
                        let d = i * (len + q.dst_stride as usize);
                        want[d..d + len].copy_from_slice(&ub[s..s + len]);
                    }
                    assert_eq!(r.to_bytes(), want, "{soc} UB->GM {q:?}");
                });
            },
        );
    }
}

#[test]
fn data_copy_pad_of_bool_follows_the_chip_rule() {
    for soc in [Soc::Ascend910, Soc::Ascend310P] {
        on(soc, || {
            let (_r, g) = gm(&[Bool8::TRUE; 32]);
            let mut pipe = TPipe::new();
            let a = tensor::<Bool8>(&mut pipe, 32);
            expect_panic(
                || {
                    data_copy_pad(
                        &a,
                        &g,
                        &DataCopyExtParams::new(1, 5, 0, 0),
                        &DataCopyPadExtParams::default(),
                    )
                },
                &["DataCopyPad", "DataCopyPad needs Ascend910B or Ascend310B"],
            );
        });
    }
}

#[test]
fn a_published_kernels_mask_path_counts_the_true_bytes() {
    // As ops-nn's MoE combine kernels do: DataCopyPad a bool mask in, ReinterpretCast it to
    // int8_t, Cast to half. C++ bools are 0 or 1, so the halves are 0.0 and 1.0.
    let mask: Vec<Bool8> = (0..40).map(|i| Bool8::from(i % 3 == 0)).collect();
    let (_r, g) = gm(&mask);
    let mut pipe = TPipe::new();
    let m = tensor::<Bool8>(&mut pipe, 64);
    let h = tensor::<f16>(&mut pipe, 64);
    data_copy_pad(
        &m,
        &g,
        &DataCopyExtParams::new(1, 40, 0, 0),
        &DataCopyPadExtParams::new(false, 0, 0, Bool8::FALSE),
    );
    let as_i8 = m.reinterpret_cast::<i8>();
    assert_eq!(as_i8.get_size(), 64);
    cast(&h, &as_i8, RoundMode::CastNone, 40);
    let got: Vec<f32> = h.to_vec()[..40].iter().map(|x| x.to_f32()).collect();
    let want: Vec<f32> = (0..40).map(|i| if i % 3 == 0 { 1.0 } else { 0.0 }).collect();
    assert_eq!(got, want);
    // And back: a byte tensor read as bool.
    as_i8.set_value(1, -3);
    let back = as_i8.reinterpret_cast::<Bool8>();
    assert_eq!(
        (back.get_value(0), back.get_value(1).to_byte(), back.get_value(1).get()),
        (Bool8::TRUE, 0xFD, true)
    );
}

#[test]
fn bool_tensors_live_in_queues_and_global_memory() {
    let mut pipe = TPipe::new();
    let mut q = TQue::<VecIn, 2>::new();
    pipe.init_buffer(&mut q, 2, 64);
    let t = q.alloc_tensor::<Bool8>();
    assert_eq!((t.get_size(), t.get_length()), (64, 64));
    t.set_value(3, Bool8::TRUE);
    q.enque(t);
    let t = q.deque::<Bool8>();
    assert_eq!((t.get_value(3), t.get_value(2)), (Bool8::TRUE, Bool8::FALSE));
    q.free_tensor(t);

    let (r, g) = gm(&[Bool8::FALSE; 8]);
    g.set_value(5, Bool8::from_byte(0x40));
    assert_eq!((g.get_value(5).to_byte(), g.get_value(4)), (0x40, Bool8::FALSE));
    assert_eq!(r.to_bytes()[5], 0x40);
}
