//! Golden data: files written by numpy (`tests/data/make_golden.py`) read back bit for bit,
//! and write → read round trips of every element type through `.npy` and `.bin`.

use std::path::PathBuf;

use ascend_core::{bf16, f16, Element};
use ascend_runtime::npy::{load, read_bin, read_npy, save, write_bin, write_npy, write_npy_nd, NpyErrorKind};
use ascend_runtime::testing::{assert_bits_eq, assert_close, Tolerance};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests").join("data").join(name)
}

/// A scratch directory unique to this test process and test name.
fn scratch(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ascend-golden-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `i * 0.5 - 3` for `i in 0..64`, as `make_golden.py` writes it.
fn expected_f16() -> Vec<f16> {
    (0..64).map(|i| f16::from_f64(i as f64 * 0.5 - 3.0)).collect()
}

#[test]
fn numpy_f16_exact_values() {
    let a = read_npy::<f16>(data("x_f16.npy")).unwrap();
    assert_eq!(a.shape, vec![64]);
    assert_bits_eq(&a.data, &expected_f16());
    // a few spelled out
    assert_eq!(a.data[0].to_bits(), 0xc200); // -3.0
    assert_eq!(a.data[6].to_bits(), 0x0000); // 0.0
    assert_eq!(a.data[7].to_bits(), 0x3800); // 0.5
    assert_eq!(a.data[63].to_bits(), 0x4f20); // 28.5
}

#[test]
fn numpy_f32_exact_values() {
    let a = read_npy::<f32>(data("x_f32.npy")).unwrap();
    assert_eq!(a.shape, vec![48]);
    // numpy computes i * 0.1 - 2 in float64 and rounds once to float32; so does `as f32`.
    let expected: Vec<f32> = (0..48).map(|i| (i as f64 * 0.1 - 2.0) as f32).collect();
    assert_bits_eq(&a.data, &expected);
    assert_eq!(a.data[0].to_bits(), 0xc000_0000); // -2.0
    assert_eq!(a.data[1].to_bits(), 0xbff3_3333); // -1.9
    assert_eq!(a.data[2].to_bits(), 0xbfe6_6666); // -1.8
    assert_eq!(a.data[3].to_bits(), 0xbfd9_999a); // -1.7
}

#[test]
fn numpy_tofile_bin() {
    let v = read_bin::<f16>(data("x_f16.bin")).unwrap();
    assert_bits_eq(&v, &expected_f16());
    assert_bits_eq(&load::<f16>(data("x_f16.bin")).unwrap(), &expected_f16());
    // the same bytes read as u16 are the f16 bit patterns
    let bits = read_bin::<u16>(data("x_f16.bin")).unwrap();
    assert_eq!(bits, expected_f16().iter().map(|v| v.to_bits()).collect::<Vec<_>>());
}

#[test]
fn numpy_2d_int32() {
    let a = read_npy::<i32>(data("m_i32.npy")).unwrap();
    assert_eq!(a.shape, vec![3, 4]);
    let expected: Vec<i32> = (0..12).map(|i| i * 7 - 5).collect();
    assert_eq!(a.data, expected);
    assert_eq!(a.data[4], 23); // row 1, column 0
}

#[test]
fn numpy_bf16_as_raw_bits() {
    let expected: Vec<bf16> = (0..32).map(|i| bf16::from_f32(i as f32 * 0.25 - 4.0)).collect();
    let a = read_npy::<bf16>(data("x_bf16.npy")).unwrap();
    assert_eq!(a.shape, vec![32]);
    assert_bits_eq(&a.data, &expected);
    assert_eq!(a.data[0].to_bits(), 0xc080); // -4.0
    let raw = read_npy::<u16>(data("x_bf16.npy")).unwrap();
    assert_eq!(raw.data, expected.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
}

#[test]
fn numpy_big_endian_f32() {
    let a = read_npy::<f32>(data("x_f32_be.npy")).unwrap();
    let expected: Vec<f32> = (0..8).map(|i| i as f32 * -1.5).collect();
    assert_bits_eq(&a.data, &expected);
}

#[test]
fn numpy_file_read_with_wrong_type_is_an_error() {
    let e = read_npy::<f32>(data("x_f16.npy")).unwrap_err();
    assert!(matches!(e.kind, NpyErrorKind::DType { .. }));
    assert!(e.to_string().contains("x_f16.npy"), "{e}");
}

/// Values of `T` covering the range, from a simple integer pattern.
fn pattern<T: Element>(n: usize) -> Vec<T> {
    (0..n)
        .map(|i| {
            let v = (i as f64 * 37.0) % 201.0 - 100.0;
            if T::IS_FLOAT {
                T::from_f64(v * 0.37)
            } else if T::MIN == T::ZERO {
                T::from_f64(v.abs())
            } else {
                T::from_f64(v)
            }
        })
        .collect()
}

fn round_trip<T: Element>() {
    let dir = scratch(&format!("rt-{}", T::DTYPE.name()));
    let v = pattern::<T>(100);
    let extremes = vec![T::MIN, T::MAX, T::ZERO, T::MIN, T::MAX, T::ZERO];

    write_npy(dir.join("a.npy"), &v).unwrap();
    let a = read_npy::<T>(dir.join("a.npy")).unwrap();
    assert_eq!(a.shape, vec![100]);
    assert_bits_eq(&a.data, &v);

    write_npy_nd(dir.join("b.npy"), &[2, 3], &extremes).unwrap();
    let b = read_npy::<T>(dir.join("b.npy")).unwrap();
    assert_eq!(b.shape, vec![2, 3]);
    assert_bits_eq(&b.data, &extremes);

    write_npy_nd(dir.join("c.npy"), &[5, 4, 5], &v).unwrap();
    let c = read_npy::<T>(dir.join("c.npy")).unwrap();
    assert_eq!(c.shape, vec![5, 4, 5]);
    assert_bits_eq(&c.data, &v);

    write_bin(dir.join("a.bin"), &v).unwrap();
    assert_eq!(std::fs::metadata(dir.join("a.bin")).unwrap().len(), (100 * T::SIZE) as u64);
    assert_bits_eq(&read_bin::<T>(dir.join("a.bin")).unwrap(), &v);

    save(dir.join("d.npy"), &extremes).unwrap();
    save(dir.join("d.bin"), &extremes).unwrap();
    assert_bits_eq(&load::<T>(dir.join("d.npy")).unwrap(), &extremes);
    assert_bits_eq(&load::<T>(dir.join("d.bin")).unwrap(), &extremes);
    assert_close(&load::<T>(dir.join("d.bin")).unwrap(), &extremes, Tolerance::of::<T>());

    std::fs::remove_dir_all(&dir).unwrap();
}

macro_rules! round_trips {
    ($($name:ident: $t:ty),* $(,)?) => {$(
        #[test]
        fn $name() {
            round_trip::<$t>();
        }
    )*};
}

round_trips! {
    round_trip_u8: u8, round_trip_i8: i8, round_trip_u16: u16, round_trip_i16: i16,
    round_trip_u32: u32, round_trip_i32: i32, round_trip_u64: u64, round_trip_i64: i64,
    round_trip_f16: f16, round_trip_bf16: bf16, round_trip_f32: f32,
}

#[test]
fn special_float_values_round_trip_bit_exact() {
    let dir = scratch("special");
    let v = vec![
        f16::NAN,
        f16::INFINITY,
        f16::NEG_INFINITY,
        f16::NEG_ZERO,
        f16::from_bits(1),
        f16::from_bits(0x7c01),
    ];
    write_npy(dir.join("s.npy"), &v).unwrap();
    assert_bits_eq(&read_npy::<f16>(dir.join("s.npy")).unwrap().data, &v);
    write_bin(dir.join("s.bin"), &v).unwrap();
    assert_bits_eq(&read_bin::<f16>(dir.join("s.bin")).unwrap(), &v);
    std::fs::remove_dir_all(&dir).unwrap();
}
