//! Reading and writing kernel data files: numpy `.npy` (through the `npyz` crate) and the raw
//! little-endian `.bin` files the vendor samples use (`numpy.ndarray.tofile` / `numpy.fromfile`).
//!
//! Every [`Element`] type is supported. The numpy type string of each:
//!
//! | element | `.npy` descr written | descrs accepted when reading |
//! | --- | --- | --- |
//! | `u8`, `i8` | `\|u1`, `\|i1` | `u1`, `i1` |
//! | `u16`, `i16`, `u32`, `i32`, `u64`, `i64` | `<u2` … `<i8` | the same kind and size, either byte order |
//! | `f16` | `<f2` | `f2` |
//! | `f32` | `<f4` | `f4` |
//! | `bf16` | `<u2` (the raw bits) | `u2`, `i2`, `V2` (raw bits) |
//!
//! numpy has no bfloat16 type: a bf16 array is stored as its raw 16-bit patterns, as `uint16`
//! (in numpy, `(x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)` for values
//! that are exact in bf16; `ml_dtypes.bfloat16` arrays saved with `np.save` carry `V2`,
//! which is read too). Reading such a file as `u16` gives the same bits.
//!
//! Arrays are returned flat in C (row-major) order with their shape; Fortran-ordered
//! multi-dimensional files are rejected with [`NpyErrorKind::FortranOrder`]. Big-endian files
//! are byte-swapped on reading. Errors are values ([`NpyError`]), never panics.
//!
//! ```
//! use ascend_runtime::npy::{read_npy, write_npy_nd};
//! use half::f16;
//!
//! let dir = std::env::temp_dir().join(format!("npy-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let path = dir.join("x.npy");
//! let data: Vec<f16> = (0..6).map(|i| f16::from_f32(i as f32 - 2.5)).collect();
//! write_npy_nd(&path, &[2, 3], &data).unwrap();
//! let back = read_npy::<f16>(&path).unwrap();
//! assert_eq!(back.shape, vec![2, 3]);
//! assert_eq!(back.data, data);
//! // the wrong element type is an error, not a panic
//! assert!(read_npy::<f32>(&path).is_err());
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```

use core::fmt;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use ascend_core::{bf16, f16, DType, Element};
use npyz::{Endianness, Order, TypeChar, TypeStr, WriterBuilder};

/// A numpy array read from a file: its shape and its elements, flat, in C order.
#[derive(Clone, Debug, PartialEq)]
pub struct NpyArray<T> {
    /// The dimensions (empty for a 0-d scalar array).
    pub shape: Vec<usize>,
    /// The elements in C (row-major) order; `data.len()` is the product of `shape`.
    pub data: Vec<T>,
}

impl<T> NpyArray<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// The elements, dropping the shape.
    pub fn into_vec(self) -> Vec<T> {
        self.data
    }
}

/// What went wrong reading or writing a data file.
#[derive(Debug)]
pub enum NpyErrorKind {
    /// An I/O error, or a malformed `.npy` header.
    Io(io::Error),
    /// The file's dtype does not hold the requested element type.
    DType {
        /// The element type asked for.
        expected: DType,
        /// The numpy descr found in the file.
        found: String,
    },
    /// A multi-dimensional array in Fortran order (not supported).
    FortranOrder {
        /// The array's shape.
        shape: Vec<usize>,
    },
    /// The shape given for writing does not match the number of elements.
    Shape {
        /// The shape given.
        shape: Vec<usize>,
        /// The number of elements given.
        len: usize,
    },
    /// A `.bin` file whose size is not a multiple of the element size.
    BinLength {
        /// The file size in bytes.
        bytes: u64,
        /// The element type asked for.
        dtype: DType,
    },
}

/// An error reading or writing a data file: what went wrong and, when known, which file.
#[derive(Debug)]
pub struct NpyError {
    /// The file concerned, for the path-based functions.
    pub path: Option<PathBuf>,
    /// What went wrong.
    pub kind: NpyErrorKind,
}

impl NpyError {
    fn new(kind: NpyErrorKind) -> Self {
        NpyError { path: None, kind }
    }

    fn at(mut self, path: &Path) -> Self {
        self.path = Some(path.to_path_buf());
        self
    }
}

impl From<io::Error> for NpyError {
    fn from(e: io::Error) -> Self {
        NpyError::new(NpyErrorKind::Io(e))
    }
}

impl From<NpyError> for io::Error {
    fn from(e: NpyError) -> Self {
        let kind = match &e.kind {
            NpyErrorKind::Io(inner) => inner.kind(),
            _ => io::ErrorKind::InvalidData,
        };
        io::Error::new(kind, e.to_string())
    }
}

impl fmt::Display for NpyErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NpyErrorKind::Io(e) => write!(f, "{e}"),
            NpyErrorKind::DType { expected, found } => write!(
                f,
                "the file holds dtype '{found}', which cannot be read as {expected} (expected '{}')",
                npy_descr(*expected)
            ),
            NpyErrorKind::FortranOrder { shape } => {
                write!(f, "Fortran-ordered array of shape {shape:?} is not supported (save it in C order)")
            }
            NpyErrorKind::Shape { shape, len } => {
                write!(
                    f,
                    "shape {shape:?} holds {} elements but {len} were given",
                    shape.iter().product::<usize>()
                )
            }
            NpyErrorKind::BinLength { bytes, dtype } => {
                write!(
                    f,
                    "file size {bytes} bytes is not a multiple of the size of {dtype} ({} bytes)",
                    dtype.size()
                )
            }
        }
    }
}

impl fmt::Display for NpyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(p) => write!(f, "{}: {}", p.display(), self.kind),
            None => write!(f, "{}", self.kind),
        }
    }
}

impl std::error::Error for NpyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            NpyErrorKind::Io(e) => Some(e),
            _ => None,
        }
    }
}

/// The numpy descr this module writes for `dtype` (`bf16` is written as its raw bits, `<u2`;
/// `bool` as numpy's `|b1`, a nonzero byte as 1).
///
/// ```
/// use ascend_runtime::npy::{npy_descr, read_npy_from, write_npy_to};
/// use ascend_runtime::prelude::*;
/// assert_eq!(npy_descr(DType::Bool), "|b1");
/// let mut file = Vec::new();
/// let mask = [Bool8::TRUE, Bool8::FALSE, Bool8::from_byte(7)];
/// write_npy_to(&mut file, &[3], &mask).unwrap();
/// let back = read_npy_from::<Bool8, _>(&file[..]).unwrap().into_vec();
/// assert_eq!(back.iter().map(|b| b.to_byte()).collect::<Vec<_>>(), [1, 0, 1]);
/// // A `|u1` file is read as bool keeping every byte.
/// let mut raw = Vec::new();
/// write_npy_to(&mut raw, &[2], &[0u8, 9]).unwrap();
/// let back = read_npy_from::<Bool8, _>(&raw[..]).unwrap().into_vec();
/// assert_eq!((back[0].get(), back[1].to_byte()), (false, 9));
/// ```
pub const fn npy_descr(dtype: DType) -> &'static str {
    match dtype {
        DType::U8 => "|u1",
        DType::I8 => "|i1",
        DType::U16 | DType::BF16 => "<u2",
        DType::I16 => "<i2",
        DType::U32 => "<u4",
        DType::I32 => "<i4",
        DType::U64 => "<u8",
        DType::I64 => "<i8",
        DType::F16 => "<f2",
        DType::F32 => "<f4",
        DType::Bool => "|b1",
    }
}

/// Whether a file of type string `ts` can be read as `dtype`.
fn accepts(dtype: DType, ts: &TypeStr) -> bool {
    let size = ts.size_field();
    if size != dtype.size() as u64 {
        return false;
    }
    let c = ts.type_char();
    match dtype {
        DType::U8 | DType::U16 | DType::U32 | DType::U64 => c == TypeChar::Uint,
        DType::I8 | DType::I16 | DType::I32 | DType::I64 => c == TypeChar::Int,
        DType::F16 | DType::F32 => c == TypeChar::Float,
        DType::BF16 => matches!(c, TypeChar::Uint | TypeChar::Int | TypeChar::RawData),
        // numpy's `bool` (`|b1`) or raw bytes (`|u1`): every byte is kept as read.
        DType::Bool => matches!(c, TypeChar::Bool | TypeChar::Uint),
    }
}

/// Reads a `.npy` array of element type `T` from a reader positioned at the start of the file.
///
/// # Errors
///
/// A malformed header or short data ([`NpyErrorKind::Io`]), a dtype that does not hold `T`
/// ([`NpyErrorKind::DType`]), a Fortran-ordered multi-dimensional array
/// ([`NpyErrorKind::FortranOrder`]).
pub fn read_npy_from<T: Element, R: Read>(mut reader: R) -> Result<NpyArray<T>, NpyError> {
    let header = npyz::NpyHeader::from_reader(&mut reader)?;
    let found = header.dtype().descr();
    let ts = match header.dtype() {
        npyz::DType::Plain(ts) if accepts(T::DTYPE, &ts) => ts,
        _ => return Err(NpyError::new(NpyErrorKind::DType { expected: T::DTYPE, found })),
    };
    let shape: Vec<usize> = header.shape().iter().map(|&d| d as usize).collect();
    if header.order() == Order::Fortran && shape.iter().filter(|&&d| d > 1).count() > 1 {
        return Err(NpyError::new(NpyErrorKind::FortranOrder { shape }));
    }
    let n = header.len() as usize;
    let mut data = vec![T::ZERO; n];
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut data);
    reader.read_exact(bytes)?;
    let file_order = ts.endianness();
    if T::SIZE > 1 && file_order != Endianness::Irrelevant && file_order != Endianness::of_machine() {
        for e in bytes.chunks_exact_mut(T::SIZE) {
            e.reverse();
        }
    }
    Ok(NpyArray { shape, data })
}

/// Reads a `.npy` file of element type `T`: its shape and its elements in C order.
///
/// # Errors
///
/// As [`read_npy_from`], plus failing to open the file; the error carries the path.
pub fn read_npy<T: Element>(path: impl AsRef<Path>) -> Result<NpyArray<T>, NpyError> {
    let path = path.as_ref();
    let run = || read_npy_from::<T, _>(BufReader::new(File::open(path)?));
    run().map_err(|e| e.at(path))
}

fn write_typed<U: npyz::Serialize + Copy, W: Write>(
    writer: W,
    descr: &str,
    shape: &[u64],
    data: &[U],
) -> Result<(), NpyError> {
    let ts: TypeStr = descr.parse().expect("npy_descr gives valid type strings");
    let mut w =
        npyz::WriteOptions::new().dtype(npyz::DType::Plain(ts)).shape(shape).writer(writer).begin_nd()?;
    w.extend(data.iter().copied())?;
    w.finish()?;
    Ok(())
}

/// Writes `data` as a `.npy` array of the given shape (C order) to a writer.
///
/// # Errors
///
/// [`NpyErrorKind::Shape`] when the product of `shape` is not `data.len()`; I/O errors.
pub fn write_npy_to<T: Element, W: Write>(writer: W, shape: &[usize], data: &[T]) -> Result<(), NpyError> {
    if shape.iter().product::<usize>() != data.len() {
        return Err(NpyError::new(NpyErrorKind::Shape { shape: shape.to_vec(), len: data.len() }));
    }
    let shape: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    let descr = npy_descr(T::DTYPE);
    match T::DTYPE {
        DType::U8 => write_typed::<u8, _>(writer, descr, &shape, bytemuck::cast_slice(data)),
        DType::I8 => write_typed::<i8, _>(writer, descr, &shape, bytemuck::cast_slice(data)),
        DType::U16 | DType::BF16 => write_typed::<u16, _>(writer, descr, &shape, bytemuck::cast_slice(data)),
        DType::I16 => write_typed::<i16, _>(writer, descr, &shape, bytemuck::cast_slice(data)),
        DType::U32 => write_typed::<u32, _>(writer, descr, &shape, bytemuck::cast_slice(data)),
        DType::I32 => write_typed::<i32, _>(writer, descr, &shape, bytemuck::cast_slice(data)),
        DType::U64 => write_typed::<u64, _>(writer, descr, &shape, bytemuck::cast_slice(data)),
        DType::I64 => write_typed::<i64, _>(writer, descr, &shape, bytemuck::cast_slice(data)),
        DType::F16 => write_typed::<f16, _>(writer, descr, &shape, bytemuck::cast_slice(data)),
        DType::F32 => write_typed::<f32, _>(writer, descr, &shape, bytemuck::cast_slice(data)),
        // numpy's `bool` holds 0 or 1: a nonzero byte is written as 1.
        DType::Bool => {
            let bytes: &[u8] = bytemuck::cast_slice(data);
            let bools: Vec<bool> = bytes.iter().map(|&b| b != 0).collect();
            write_typed::<bool, _>(writer, descr, &shape, &bools)
        }
    }
}

/// Writes `data` as a `.npy` file of the given shape (C order).
///
/// # Errors
///
/// As [`write_npy_to`], plus failing to create the file; the error carries the path.
pub fn write_npy_nd<T: Element>(path: impl AsRef<Path>, shape: &[usize], data: &[T]) -> Result<(), NpyError> {
    let path = path.as_ref();
    let run = || {
        let mut w = BufWriter::new(File::create(path)?);
        write_npy_to(&mut w, shape, data)?;
        w.flush()?;
        Ok(())
    };
    run().map_err(|e: NpyError| e.at(path))
}

/// Writes `data` as a 1-D `.npy` file.
///
/// # Errors
///
/// I/O errors; the error carries the path.
pub fn write_npy<T: Element>(path: impl AsRef<Path>, data: &[T]) -> Result<(), NpyError> {
    write_npy_nd(path, &[data.len()], data)
}

/// Reads a raw little-endian `.bin` file (as written by `numpy.ndarray.tofile`) of element
/// type `T`.
///
/// # Errors
///
/// I/O errors, or [`NpyErrorKind::BinLength`] when the file size is not a multiple of
/// `T::SIZE`; the error carries the path.
pub fn read_bin<T: Element>(path: impl AsRef<Path>) -> Result<Vec<T>, NpyError> {
    let path = path.as_ref();
    let run = || {
        let mut f = File::open(path)?;
        let bytes = f.metadata()?.len();
        if bytes % T::SIZE as u64 != 0 {
            return Err(NpyError::new(NpyErrorKind::BinLength { bytes, dtype: T::DTYPE }));
        }
        let mut data = vec![T::ZERO; (bytes / T::SIZE as u64) as usize];
        let raw: &mut [u8] = bytemuck::cast_slice_mut(&mut data);
        f.read_exact(raw)?;
        if cfg!(target_endian = "big") {
            for e in raw.chunks_exact_mut(T::SIZE) {
                e.reverse();
            }
        }
        Ok(data)
    };
    run().map_err(|e: NpyError| e.at(path))
}

/// Writes `data` as a raw little-endian `.bin` file (readable with `numpy.fromfile`).
///
/// # Errors
///
/// I/O errors; the error carries the path.
pub fn write_bin<T: Element>(path: impl AsRef<Path>, data: &[T]) -> Result<(), NpyError> {
    let path = path.as_ref();
    let run = || {
        let mut w = BufWriter::new(File::create(path)?);
        if cfg!(target_endian = "big") {
            for v in data {
                let mut b = bytemuck::bytes_of(v).to_vec();
                b.reverse();
                w.write_all(&b)?;
            }
        } else {
            w.write_all(bytemuck::cast_slice(data))?;
        }
        w.flush()?;
        Ok(())
    };
    run().map_err(|e: NpyError| e.at(path))
}

fn is_npy(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("npy"))
}

/// Reads a data file by its extension: `.npy` with [`read_npy`] (flattened), anything else as
/// raw `.bin` with [`read_bin`].
///
/// # Errors
///
/// As [`read_npy`] or [`read_bin`].
pub fn load<T: Element>(path: impl AsRef<Path>) -> Result<Vec<T>, NpyError> {
    let path = path.as_ref();
    if is_npy(path) {
        read_npy(path).map(NpyArray::into_vec)
    } else {
        read_bin(path)
    }
}

/// Writes a data file by its extension: `.npy` with [`write_npy`] (1-D), anything else as raw
/// `.bin` with [`write_bin`].
///
/// # Errors
///
/// As [`write_npy`] or [`write_bin`].
pub fn save<T: Element>(path: impl AsRef<Path>, data: &[T]) -> Result<(), NpyError> {
    let path = path.as_ref();
    if is_npy(path) {
        write_npy(path, data)
    } else {
        write_bin(path, data)
    }
}

/// The bits of `bf16` values as `u16`, the way they are stored in `.npy` files.
pub fn bf16_to_bits(data: &[bf16]) -> Vec<u16> {
    data.iter().map(|v| v.to_bits()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn npy_bytes<T: Element>(shape: &[usize], data: &[T]) -> Vec<u8> {
        let mut v = Vec::new();
        write_npy_to(&mut v, shape, data).unwrap();
        v
    }

    #[test]
    fn header_descr_per_type() {
        fn descr_of<T: Element>() -> String {
            let bytes = npy_bytes::<T>(&[1], &[T::ZERO]);
            let header = npyz::NpyHeader::from_reader(&bytes[..]).unwrap();
            header.dtype().descr()
        }
        assert_eq!(descr_of::<u8>(), "'|u1'");
        assert_eq!(descr_of::<i8>(), "'|i1'");
        assert_eq!(descr_of::<f16>(), "'<f2'");
        assert_eq!(descr_of::<bf16>(), "'<u2'");
        assert_eq!(descr_of::<f32>(), "'<f4'");
        assert_eq!(descr_of::<i64>(), "'<i8'");
    }

    #[test]
    fn round_trip_in_memory_nd() {
        let data: Vec<i32> = (0..24).map(|i| i * 3 - 40).collect();
        let bytes = npy_bytes(&[2, 3, 4], &data);
        let a = read_npy_from::<i32, _>(&bytes[..]).unwrap();
        assert_eq!(a.shape, vec![2, 3, 4]);
        assert_eq!(a.ndim(), 3);
        assert_eq!(a.len(), 24);
        assert!(!a.is_empty());
        assert_eq!(a.data, data);
    }

    #[test]
    fn empty_and_scalar() {
        let bytes = npy_bytes::<f32>(&[0], &[]);
        let a = read_npy_from::<f32, _>(&bytes[..]).unwrap();
        assert!(a.is_empty());
        assert_eq!(a.shape, vec![0]);
        let bytes = npy_bytes::<f32>(&[], &[2.5]);
        let a = read_npy_from::<f32, _>(&bytes[..]).unwrap();
        assert_eq!(a.shape, Vec::<usize>::new());
        assert_eq!(a.data, vec![2.5]);
    }

    #[test]
    fn wrong_dtype_is_an_error() {
        let bytes = npy_bytes::<f32>(&[2], &[1.0, 2.0]);
        let e = read_npy_from::<f16, _>(&bytes[..]).unwrap_err();
        assert!(matches!(e.kind, NpyErrorKind::DType { expected: DType::F16, .. }));
        assert_eq!(
            e.to_string(),
            "the file holds dtype ''<f4'', which cannot be read as half (expected '<f2')"
        );
        assert!(read_npy_from::<i32, _>(&bytes[..]).is_err());
        assert!(read_npy_from::<u32, _>(&npy_bytes::<i32>(&[1], &[1])[..]).is_err());
        // bf16 reads uint16 and int16 bits
        let b = read_npy_from::<bf16, _>(&npy_bytes::<u16>(&[1], &[0x3f80])[..]).unwrap();
        assert_eq!(b.data, vec![bf16::ONE]);
        let b = read_npy_from::<bf16, _>(&npy_bytes::<i16>(&[1], &[0x4000])[..]).unwrap();
        assert_eq!(b.data, vec![bf16::from_f32(2.0)]);
        assert!(read_npy_from::<bf16, _>(&npy_bytes::<f16>(&[1], &[f16::ONE])[..]).is_err());
    }

    #[test]
    fn truncated_data_is_an_io_error() {
        let mut bytes = npy_bytes::<f32>(&[4], &[1.0, 2.0, 3.0, 4.0]);
        bytes.truncate(bytes.len() - 3);
        let e = read_npy_from::<f32, _>(&bytes[..]).unwrap_err();
        assert!(matches!(e.kind, NpyErrorKind::Io(ref io) if io.kind() == io::ErrorKind::UnexpectedEof));
        let e = read_npy_from::<f32, _>(&b"not an npy file at all"[..]).unwrap_err();
        assert!(matches!(e.kind, NpyErrorKind::Io(_)));
        let io: io::Error = e.into();
        assert!(!io.to_string().is_empty());
    }

    #[test]
    fn shape_mismatch_on_write() {
        let mut v = Vec::new();
        let e = write_npy_to::<u8, _>(&mut v, &[2, 2], &[1, 2, 3]).unwrap_err();
        assert_eq!(e.to_string(), "shape [2, 2] holds 4 elements but 3 were given");
        let io: io::Error = e.into();
        assert_eq!(io.kind(), io::ErrorKind::InvalidData);
    }

    /// Builds a .npy file by hand (format 1.0) with an arbitrary header dict.
    fn handmade(dict: &str, payload: &[u8]) -> Vec<u8> {
        let mut text = dict.to_string();
        while (10 + text.len() + 1) % 64 != 0 {
            text.push(' ');
        }
        text.push('\n');
        let mut v = b"\x93NUMPY\x01\x00".to_vec();
        v.extend_from_slice(&(text.len() as u16).to_le_bytes());
        v.extend_from_slice(text.as_bytes());
        v.extend_from_slice(payload);
        v
    }

    #[test]
    fn big_endian_is_swapped() {
        let payload: Vec<u8> = [1.5f32, -2.0].iter().flat_map(|v| v.to_be_bytes()).collect();
        let f = handmade("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", &payload);
        let a = read_npy_from::<f32, _>(&f[..]).unwrap();
        assert_eq!(a.data, vec![1.5, -2.0]);
    }

    #[test]
    fn fortran_order_rejected_unless_trivial() {
        let f = handmade("{'descr': '<i2', 'fortran_order': True, 'shape': (2, 2), }", &[0; 8]);
        let e = read_npy_from::<i16, _>(&f[..]).unwrap_err();
        assert!(matches!(e.kind, NpyErrorKind::FortranOrder { ref shape } if shape == &[2, 2]));
        let f = handmade("{'descr': '<i2', 'fortran_order': True, 'shape': (1, 3), }", &[1, 0, 2, 0, 3, 0]);
        assert_eq!(read_npy_from::<i16, _>(&f[..]).unwrap().data, vec![1, 2, 3]);
    }

    #[test]
    fn raw_void_reads_as_bf16() {
        let f =
            handmade("{'descr': '|V2', 'fortran_order': False, 'shape': (2,), }", &[0x80, 0x3f, 0x00, 0xc0]);
        let a = read_npy_from::<bf16, _>(&f[..]).unwrap();
        assert_eq!(a.data, vec![bf16::ONE, bf16::from_f32(-2.0)]);
    }

    #[test]
    fn files_and_errors_carry_the_path() {
        let dir = std::env::temp_dir().join(format!("ascend-npy-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("odd.bin");
        std::fs::write(&p, [1u8, 2, 3]).unwrap();
        let e = read_bin::<u16>(&p).unwrap_err();
        assert_eq!(e.path.as_deref(), Some(p.as_path()));
        assert!(e
            .to_string()
            .ends_with("file size 3 bytes is not a multiple of the size of uint16_t (2 bytes)"));
        let missing = dir.join("missing.npy");
        let e = read_npy::<f32>(&missing).unwrap_err();
        assert!(matches!(e.kind, NpyErrorKind::Io(ref io) if io.kind() == io::ErrorKind::NotFound));
        assert!(e.to_string().contains("missing.npy"));
        let e = load::<f32>(dir.join("missing.bin")).unwrap_err();
        assert!(matches!(e.kind, NpyErrorKind::Io(_)));

        save(dir.join("a.npy"), &[1u32, 2, 3]).unwrap();
        save(dir.join("a.bin"), &[1u32, 2, 3]).unwrap();
        assert_eq!(load::<u32>(dir.join("a.npy")).unwrap(), vec![1, 2, 3]);
        assert_eq!(load::<u32>(dir.join("a.bin")).unwrap(), vec![1, 2, 3]);
        assert_eq!(std::fs::metadata(dir.join("a.bin")).unwrap().len(), 12);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bf16_bits_helper() {
        assert_eq!(bf16_to_bits(&[bf16::ONE, bf16::from_f32(-2.0)]), vec![0x3f80, 0xc000]);
    }
}
