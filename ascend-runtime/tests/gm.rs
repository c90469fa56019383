//! `GmBuffer`: host-side filling and reading, and what a kernel sees through its address.

use ascend_runtime::prelude::*;

#[test]
fn from_slice_and_to_vec_round_trip_bit_exact() {
    let data: Vec<f16> = (0..100).map(|i| f16::from_f32(i as f32 * 0.1 - 3.0)).collect();
    let b = GmBuffer::from_slice(&data);
    assert_eq!(b.len(), 100);
    assert!(!b.is_empty());
    let back = b.to_vec();
    assert!(back.iter().zip(&data).all(|(a, b)| a.to_bits_u64() == b.to_bits_u64()));
    assert_eq!(b.region().size(), 200);
}

#[test]
fn from_vec_and_from_conversions() {
    let b = GmBuffer::from_vec(vec![1i64, -2, 3]);
    assert_eq!(b.to_vec(), [1, -2, 3]);
    let c: GmBuffer<u8> = vec![9u8, 8].into();
    assert_eq!(c.to_vec(), [9, 8]);
    let d: GmBuffer<i16> = (&[5i16, 6][..]).into();
    assert_eq!(d.to_vec(), [5, 6]);
    assert_eq!(format!("{d:?}"), "GmBuffer<int16_t>(2 elements)");
}

#[test]
fn zeroed_and_empty() {
    let z = GmBuffer::<bf16>::zeroed(33);
    assert!(z.to_vec().iter().all(|v| v.to_bits_u64() == 0));
    let e = GmBuffer::<f32>::zeroed(0);
    assert!(e.is_empty());
    assert_eq!(e.to_vec(), Vec::<f32>::new());
    assert_eq!(e.addr().remaining_bytes(), 0);
}

#[test]
fn write_from_overwrites_a_prefix() {
    let b = GmBuffer::from_slice(&[1u32, 2, 3, 4]);
    b.write_from(&[10, 20]);
    assert_eq!(b.to_vec(), [10, 20, 3, 4]);
    b.write_from(&[]);
    assert_eq!(b.to_vec(), [10, 20, 3, 4]);
}

#[test]
#[should_panic(expected = "GmBuffer::write_from: data length = 3 exceeds the buffer's 2 elements")]
fn write_from_longer_than_the_buffer_panics() {
    GmBuffer::<u32>::zeroed(2).write_from(&[1, 2, 3]);
}

#[test]
fn the_kernel_reads_and_writes_through_the_address() {
    let x = GmBuffer::from_slice(&[1.5f32, 2.5, 3.5, 4.5]);
    // Each core writes its own 64-byte line: scalar writes go back to GM a whole data-cache
    // line at a time, so four cores writing four adjacent floats would clobber each other.
    const LINE: usize = 16;
    let y = GmBuffer::<f32>::zeroed(4 * LINE);
    let (xa, ya) = (x.addr(), y.addr());
    assert_eq!(xa.remaining_bytes(), 16);
    launch(Soc::Ascend910B, 4, move || {
        let i = get_block_idx() as usize;
        let (mut gx, mut gy) = (GlobalTensor::<f32>::new(), GlobalTensor::<f32>::new());
        gx.set_global_buffer(xa.add::<f32>(i), 1);
        gy.set_global_buffer(ya.add::<f32>(i * LINE), 1);
        gy.set_value(0, gx.get_value(0) * 2.0);
    })
    .unwrap();
    let v = y.to_vec();
    assert_eq!([v[0], v[LINE], v[2 * LINE], v[3 * LINE]], [3.0, 5.0, 7.0, 9.0]);
    assert!(v.iter().enumerate().all(|(k, &e)| k % LINE == 0 || e == 0.0));
    // The host-side tensor sees the same memory.
    let gt = y.global_tensor();
    assert_eq!(gt.get_size(), 4 * LINE);
    assert_eq!(gt.get_value(3 * LINE), 9.0);
}

#[test]
fn an_out_of_bounds_gm_access_in_a_kernel_is_a_launch_error() {
    let x = GmBuffer::<u32>::zeroed(4);
    let xa = x.addr();
    let err = launch(Soc::Ascend910B, 2, move || {
        let mut g = GlobalTensor::<u32>::new();
        g.set_global_buffer(xa, 5);
    })
    .unwrap_err();
    let p = err.primary().unwrap();
    assert_eq!(p.api, "GlobalTensor::SetGlobalBuffer");
    assert!(p.message.contains("len = 5"), "{}", p.message);
}
