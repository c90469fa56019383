//! Checking kernel results: tolerance comparisons in the style of the vendor's verify scripts,
//! and bit-exact comparisons.
//!
//! The vendor samples verify a kernel's output against a numpy golden file with
//! `isclose(actual, golden, rtol, atol, equal_nan=True)` and accept the run when the fraction
//! of elements that are *not* close is at most an error ratio. [`compare_close`] does exactly
//! that, over slices of any [`Element`]:
//!
//! * an element is close when `|actual - expected| <= atol + rtol * |expected|` (computed in
//!   `f64`, which holds every 16- and 32-bit value exactly);
//! * NaN equals NaN, NaN against a number is a mismatch;
//! * an infinity matches only the infinity of the same sign;
//! * for integer types with a zero tolerance the comparison is exact on the bits (no `f64`
//!   rounding for 64-bit integers);
//! * the run passes when `mismatches <= max_mismatch_ratio * len`.
//!
//! [`assert_close`] panics with the report; [`assert_bits_eq`] requires identical bits.
//!
//! ```
//! use ascend_runtime::testing::{assert_close, compare_close, Tolerance};
//! use half::f16;
//!
//! let expected: Vec<f16> = (0..1000).map(|i| f16::from_f32(i as f32 * 0.5)).collect();
//! let mut actual = expected.clone();
//! actual[7] = f16::from_f32(100.0); // one element in 1000 may be off for f16 (0.1 %)
//! assert_close(&actual, &expected, Tolerance::for_dtype(ascend_core::DType::F16));
//!
//! actual[8] = f16::from_f32(100.0); // two are too many
//! let err = compare_close(&actual, &expected, Tolerance::of::<f16>()).unwrap_err();
//! assert_eq!(err.mismatches(), 2);
//! ```

use core::fmt;

use ascend_core::{DType, Element};

/// How many mismatching elements a report lists.
pub const REPORT_FIRST: usize = 8;

/// The acceptance criterion of a comparison: relative and absolute tolerance, and the
/// fraction of elements allowed to be outside them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// Relative tolerance (`rtol` of `numpy.isclose`).
    pub rtol: f64,
    /// Absolute tolerance (`atol` of `numpy.isclose`).
    pub atol: f64,
    /// The largest accepted fraction of mismatching elements, in `[0, 1]`.
    pub max_mismatch_ratio: f64,
}

impl Tolerance {
    /// A tolerance from its three parts.
    pub const fn new(rtol: f64, atol: f64, max_mismatch_ratio: f64) -> Self {
        Tolerance { rtol, atol, max_mismatch_ratio }
    }

    /// Every element must be equal (integers: identical; floats: equal values, so `0.0 == -0.0`,
    /// NaN == NaN). Use [`assert_bits_eq`] to also distinguish the zeros and NaN payloads.
    pub const fn exact() -> Self {
        Tolerance::new(0.0, 0.0, 0.0)
    }

    /// The default tolerance of a dtype:
    ///
    /// | dtype | rtol | atol | mismatch ratio | origin |
    /// | --- | --- | --- | --- | --- |
    /// | `f16` | 1e-3 | 1e-5 | 1e-3 (0.1 %) | the vendor verify script's half defaults |
    /// | `f32` | 1e-4 | 1e-5 | 1e-4 | the same convention one decimal tighter |
    /// | `bf16` | 4e-3 | 1e-5 | 4e-3 | bf16 has 8 significant bits (one rounding is off by at most 2^-8 ≈ 3.9e-3 relative), so it gets the "four per thousand" variant of the same convention |
    /// | integers | 0 | 0 | 0 | exact |
    pub const fn for_dtype(dtype: DType) -> Self {
        match dtype {
            DType::F16 => Tolerance::new(1e-3, 1e-5, 1e-3),
            DType::F32 => Tolerance::new(1e-4, 1e-5, 1e-4),
            DType::BF16 => Tolerance::new(4e-3, 1e-5, 4e-3),
            _ => Tolerance::exact(),
        }
    }

    /// [`Tolerance::for_dtype`] of `T`.
    pub const fn of<T: Element>() -> Self {
        Tolerance::for_dtype(T::DTYPE)
    }

    /// The same tolerance with another `rtol`.
    pub const fn with_rtol(self, rtol: f64) -> Self {
        Tolerance { rtol, ..self }
    }

    /// The same tolerance with another `atol`.
    pub const fn with_atol(self, atol: f64) -> Self {
        Tolerance { atol, ..self }
    }

    /// The same tolerance with another accepted mismatch ratio.
    pub const fn with_max_mismatch_ratio(self, max_mismatch_ratio: f64) -> Self {
        Tolerance { max_mismatch_ratio, ..self }
    }

    fn is_zero(&self) -> bool {
        self.rtol == 0.0 && self.atol == 0.0
    }
}

impl fmt::Display for Tolerance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "rtol {:e}, atol {:e}, max mismatch ratio {:e}",
            self.rtol, self.atol, self.max_mismatch_ratio
        )
    }
}

/// One element that differs: its index, and both values (as `f64` and as raw bits).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ElemDiff {
    /// Index in the slices.
    pub index: usize,
    /// The expected value, widened to `f64`.
    pub expected: f64,
    /// The actual value, widened to `f64`.
    pub actual: f64,
    /// The expected value's bits, zero-extended.
    pub expected_bits: u64,
    /// The actual value's bits, zero-extended.
    pub actual_bits: u64,
}

impl ElemDiff {
    /// The difference at `index` between `expected` and `actual`.
    pub fn of<T: Element>(index: usize, expected: T, actual: T) -> ElemDiff {
        ElemDiff {
            index,
            expected: expected.to_f64(),
            actual: actual.to_f64(),
            expected_bits: expected.to_bits_u64(),
            actual_bits: actual.to_bits_u64(),
        }
    }
}

impl fmt::Display for ElemDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{}] expected {} (0x{:x}), actual {} (0x{:x})",
            self.index, self.expected, self.expected_bits, self.actual, self.actual_bits
        )
    }
}

/// The outcome of a comparison: how many elements were compared and how many were off.
#[derive(Clone, Debug, PartialEq)]
pub struct CloseReport {
    /// The element type compared.
    pub dtype: DType,
    /// Number of elements compared.
    pub len: usize,
    /// Number of elements outside the tolerance.
    pub mismatches: usize,
    /// `mismatches / len` (0 for empty slices).
    pub ratio: f64,
    /// The tolerance applied.
    pub tolerance: Tolerance,
    /// The largest `|actual - expected|` over elements where both are finite.
    pub max_abs_err: f64,
    /// The first [`REPORT_FIRST`] mismatching elements.
    pub first: Vec<ElemDiff>,
}

impl CloseReport {
    /// Whether the mismatch ratio is within the tolerance.
    pub fn passed(&self) -> bool {
        self.mismatches as f64 <= self.tolerance.max_mismatch_ratio * self.len as f64
    }
}

impl fmt::Display for CloseReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} of {} {} elements differ (ratio {:.6}, allowed {}; {}); max abs error {}",
            self.mismatches,
            self.len,
            self.dtype,
            self.ratio,
            self.tolerance.max_mismatch_ratio,
            self.tolerance,
            self.max_abs_err
        )?;
        if !self.first.is_empty() {
            f.write_str("; first:")?;
            for d in &self.first {
                write!(f, "\n  {d}")?;
            }
        }
        Ok(())
    }
}

/// Why a comparison failed.
#[derive(Clone, Debug, PartialEq)]
pub enum Mismatch {
    /// The slices have different lengths.
    Length {
        /// Length of the actual slice.
        actual: usize,
        /// Length of the expected slice.
        expected: usize,
    },
    /// Too many elements are outside the tolerance.
    Values(CloseReport),
}

impl Mismatch {
    /// Number of mismatching elements (0 for a length mismatch).
    pub fn mismatches(&self) -> usize {
        match self {
            Mismatch::Length { .. } => 0,
            Mismatch::Values(r) => r.mismatches,
        }
    }

    /// The value report, if the lengths matched.
    pub fn report(&self) -> Option<&CloseReport> {
        match self {
            Mismatch::Length { .. } => None,
            Mismatch::Values(r) => Some(r),
        }
    }
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::Length { actual, expected } => {
                write!(f, "length mismatch: actual has {actual} elements, expected {expected}")
            }
            Mismatch::Values(r) => write!(f, "values differ: {r}"),
        }
    }
}

impl std::error::Error for Mismatch {}

pub use ascend_core::element::Expected;

/// Whether one element is within tolerance (NaN-aware, infinities must match exactly).
#[inline]
fn elem_close<T: Element, E: Expected<T>>(a: T, e: E, tol: &Tolerance) -> bool {
    if e.is_exactly(a) {
        return true;
    }
    if !T::IS_FLOAT && tol.is_zero() {
        return false;
    }
    let (af, ef) = (a.to_f64(), e.expected_f64());
    if af.is_nan() || ef.is_nan() {
        return af.is_nan() && ef.is_nan();
    }
    if af.is_infinite() || ef.is_infinite() {
        return af == ef;
    }
    (af - ef).abs() <= tol.atol + tol.rtol * ef.abs()
}

/// Compares `actual` with `expected` under `tol` and returns the report when the mismatch
/// ratio is acceptable.
///
/// See the [module docs](self) for the criterion.
///
/// # Errors
///
/// [`Mismatch::Length`] when the lengths differ; [`Mismatch::Values`] (with how many
/// elements differ, the ratio and the first few differences) when more than
/// `tol.max_mismatch_ratio` of the elements are outside the tolerance.
///
/// ```
/// use ascend_runtime::testing::{compare_close, Mismatch, Tolerance};
///
/// let r = compare_close(&[1.0f32, 2.0, f32::NAN], &[1.00001, 2.0, f32::NAN], Tolerance::of::<f32>()).unwrap();
/// assert_eq!(r.mismatches, 0);
/// let e = compare_close(&[1i32, 2], &[1, 2, 3], Tolerance::of::<i32>()).unwrap_err();
/// assert_eq!(e, Mismatch::Length { actual: 2, expected: 3 });
/// ```
pub fn compare_close<T: Element>(
    actual: &[T],
    expected: &[impl Expected<T>],
    tol: Tolerance,
) -> Result<CloseReport, Mismatch> {
    if actual.len() != expected.len() {
        return Err(Mismatch::Length { actual: actual.len(), expected: expected.len() });
    }
    let mut mismatches = 0usize;
    let mut first = Vec::new();
    let mut max_abs_err = 0.0f64;
    for (i, (&a, &e)) in actual.iter().zip(expected).enumerate() {
        if !elem_close(a, e, &tol) {
            mismatches += 1;
            if first.len() < REPORT_FIRST {
                first.push(ElemDiff {
                    index: i,
                    expected: e.expected_f64(),
                    actual: a.to_f64(),
                    expected_bits: e.expected_bits(),
                    actual_bits: a.to_bits_u64(),
                });
            }
        }
        let d = (a.to_f64() - e.expected_f64()).abs();
        if d.is_finite() && d > max_abs_err {
            max_abs_err = d;
        }
    }
    let len = actual.len();
    let ratio = if len == 0 { 0.0 } else { mismatches as f64 / len as f64 };
    let report = CloseReport { dtype: T::DTYPE, len, mismatches, ratio, tolerance: tol, max_abs_err, first };
    if report.passed() {
        Ok(report)
    } else {
        Err(Mismatch::Values(report))
    }
}

/// Asserts that `actual` is close to `expected` under `tol` (see [`compare_close`]).
///
/// # Panics
///
/// When [`compare_close`] fails, with its report: the lengths, or how many elements differ,
/// the ratio, and the first few `(index, expected, actual)`.
///
/// ```should_panic
/// use ascend_runtime::testing::{assert_close, Tolerance};
/// assert_close(&[1.0f32, 2.0], &[1.0, 2.1], Tolerance::of::<f32>());
/// ```
#[track_caller]
pub fn assert_close<T: Element>(actual: &[T], expected: &[impl Expected<T>], tol: Tolerance) {
    if let Err(m) = compare_close(actual, expected, tol) {
        panic!("assert_close failed: {m}");
    }
}

/// Asserts that two slices are identical bit for bit (so `0.0 != -0.0`, and NaN payloads must
/// agree).
///
/// # Panics
///
/// On a length mismatch, or with the number of differing elements and the first few
/// `(index, expected, actual)` with their bits.
///
/// ```
/// use ascend_runtime::testing::assert_bits_eq;
/// use half::f16;
/// assert_bits_eq(&[f16::ONE, f16::NAN], &[f16::ONE, f16::NAN]);
/// ```
///
/// ```should_panic
/// use ascend_runtime::testing::assert_bits_eq;
/// assert_bits_eq(&[0.0f32], &[-0.0f32]);
/// ```
#[track_caller]
pub fn assert_bits_eq<T: Element>(actual: &[T], expected: &[T]) {
    if actual.len() != expected.len() {
        panic!(
            "assert_bits_eq failed: {}",
            Mismatch::Length { actual: actual.len(), expected: expected.len() }
        );
    }
    let mut count = 0usize;
    let mut first = Vec::new();
    for (i, (&a, &e)) in actual.iter().zip(expected).enumerate() {
        if a.to_bits_u64() != e.to_bits_u64() {
            count += 1;
            if first.len() < REPORT_FIRST {
                first.push(ElemDiff::of(i, e, a));
            }
        }
    }
    if count != 0 {
        let mut msg = format!(
            "assert_bits_eq failed: {count} of {} {} elements differ; first:",
            actual.len(),
            T::DTYPE
        );
        for d in &first {
            msg.push_str(&format!("\n  {d}"));
        }
        panic!("{msg}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::{bf16, f16};

    fn h(v: f32) -> f16 {
        f16::from_f32(v)
    }

    #[test]
    fn f64_references() {
        let x = [h(0.1), h(1000.0), h(f32::NAN), h(f32::INFINITY)];
        let exact = [0.1f64, 1000.0, f64::NAN, f64::INFINITY];
        // f16 0.1 is 0.0999755859375: off by 2.4e-4 relative, within f16's 1e-3
        assert!(compare_close(&x, &exact, Tolerance::of::<f16>().with_max_mismatch_ratio(0.0)).is_ok());
        let e = compare_close(&x, &exact, Tolerance::exact()).unwrap_err();
        let r = e.report().unwrap();
        assert_eq!(r.mismatches, 1);
        assert_eq!(
            (r.first[0].index, r.first[0].expected, r.first[0].expected_bits),
            (0, 0.1, 0.1f64.to_bits())
        );
        assert_eq!(r.first[0].actual, 0.0999755859375);
        assert!(compare_close(&[7u8, 255], &[7.0f64, 255.0], Tolerance::exact()).is_ok());
        assert!(compare_close(&[7u8], &[7.5f64], Tolerance::exact()).is_err());
        assert_close(&[1.5f32, -2.0], &[1.5f64, -2.0], Tolerance::exact());
        assert!(compare_close(&[h(1.0)], &[1.0f64, 2.0], Tolerance::exact()).is_err());
    }

    #[test]
    fn defaults_per_dtype() {
        assert_eq!(Tolerance::for_dtype(DType::F16), Tolerance::new(1e-3, 1e-5, 1e-3));
        assert_eq!(Tolerance::for_dtype(DType::F32), Tolerance::new(1e-4, 1e-5, 1e-4));
        assert_eq!(Tolerance::for_dtype(DType::BF16), Tolerance::new(4e-3, 1e-5, 4e-3));
        for d in
            [DType::U8, DType::I8, DType::U16, DType::I16, DType::U32, DType::I32, DType::U64, DType::I64]
        {
            assert_eq!(Tolerance::for_dtype(d), Tolerance::exact());
        }
        assert_eq!(Tolerance::of::<f16>(), Tolerance::for_dtype(DType::F16));
        let t = Tolerance::exact().with_rtol(1.0).with_atol(2.0).with_max_mismatch_ratio(0.5);
        assert_eq!(t, Tolerance::new(1.0, 2.0, 0.5));
    }

    #[test]
    fn relative_and_absolute_tolerance() {
        let tol = Tolerance::new(1e-3, 1e-5, 0.0);
        // |a - e| <= atol + rtol * |e|
        assert!(compare_close(&[1000.9f32], &[1000.0], tol).is_ok());
        assert!(compare_close(&[1001.1f32], &[1000.0], tol).is_err());
        assert!(compare_close(&[0.000009f32], &[0.0], tol).is_ok());
        assert!(compare_close(&[0.000011f32], &[0.0], tol).is_err());
        // rtol is relative to the expected value (asymmetric, like numpy)
        assert!(compare_close(&[0.0f32], &[0.00001], Tolerance::new(1.0, 0.0, 0.0)).is_ok());
        assert!(compare_close(&[0.00001f32], &[0.0], Tolerance::new(1.0, 0.0, 0.0)).is_err());
    }

    #[test]
    fn f16_default_accepts_one_ulp_at_one_but_not_two() {
        // at 1.0 an f16 ulp is 2^-10 ≈ 9.8e-4 < 1e-3 + 1e-5: close
        let one = h(1.0);
        let next = f16::from_bits(one.to_bits() + 1);
        assert!(compare_close(&[next], &[one], Tolerance::of::<f16>().with_max_mismatch_ratio(0.0)).is_ok());
        let two_ulps = f16::from_bits(one.to_bits() + 2);
        assert!(
            compare_close(&[two_ulps], &[one], Tolerance::of::<f16>().with_max_mismatch_ratio(0.0)).is_err()
        );
    }

    #[test]
    fn mismatch_ratio_is_inclusive() {
        let expected = vec![h(1.0); 1000];
        let mut actual = expected.clone();
        actual[3] = h(2.0);
        let r = compare_close(&actual, &expected, Tolerance::of::<f16>()).unwrap();
        assert_eq!(r.mismatches, 1);
        assert_eq!(r.len, 1000);
        assert!((r.ratio - 0.001).abs() < 1e-12);
        assert_eq!(r.first.len(), 1);
        actual[4] = h(2.0);
        let e = compare_close(&actual, &expected, Tolerance::of::<f16>()).unwrap_err();
        let r = e.report().unwrap();
        assert_eq!(r.mismatches, 2);
        assert!(!r.passed());
        assert_eq!(
            r.first[0],
            ElemDiff { index: 3, expected: 1.0, actual: 2.0, expected_bits: 0x3c00, actual_bits: 0x4000 }
        );
        assert_eq!(r.first[1].index, 4);
        assert_eq!(r.max_abs_err, 1.0);
    }

    #[test]
    fn report_lists_first_few() {
        let expected = vec![0i32; 100];
        let actual: Vec<i32> = (0..100).collect();
        let e = compare_close(&actual, &expected, Tolerance::of::<i32>()).unwrap_err();
        let r = e.report().unwrap();
        assert_eq!(r.mismatches, 99);
        assert_eq!(r.first.len(), REPORT_FIRST);
        assert_eq!(
            r.first.iter().map(|d| d.index).collect::<Vec<_>>(),
            (1..=REPORT_FIRST).collect::<Vec<_>>()
        );
        let text = e.to_string();
        assert!(text.contains("99 of 100 int32_t elements differ"), "{text}");
        assert!(text.contains("[1] expected 0 (0x0), actual 1 (0x1)"), "{text}");
    }

    #[test]
    fn nan_handling() {
        let tol = Tolerance::of::<f32>().with_max_mismatch_ratio(0.0);
        assert!(compare_close(&[f32::NAN], &[f32::NAN], tol).is_ok());
        // different NaN payloads are still NaN == NaN
        assert!(compare_close(&[f32::from_bits(0x7fc0_0001)], &[f32::NAN], tol).is_ok());
        assert!(compare_close(&[f32::NAN], &[1.0], tol).is_err());
        assert!(compare_close(&[1.0], &[f32::NAN], tol).is_err());
        assert!(compare_close(&[f16::NAN], &[f16::NAN], Tolerance::exact()).is_ok());
        assert!(compare_close(
            &[bf16::NAN],
            &[bf16::ZERO],
            Tolerance::of::<bf16>().with_max_mismatch_ratio(0.0)
        )
        .is_err());
    }

    #[test]
    fn infinities_must_match_sign() {
        let tol = Tolerance::new(1.0, 1e30, 0.0);
        assert!(compare_close(&[f32::INFINITY], &[f32::INFINITY], tol).is_ok());
        assert!(compare_close(&[f32::NEG_INFINITY], &[f32::NEG_INFINITY], tol).is_ok());
        assert!(compare_close(&[f32::INFINITY], &[f32::NEG_INFINITY], tol).is_err());
        assert!(compare_close(&[f32::INFINITY], &[f32::MAX], tol).is_err());
        assert!(compare_close(&[f16::MAX], &[f16::INFINITY], tol).is_err());
        assert!(compare_close(&[f16::NEG_INFINITY], &[f16::NEG_INFINITY], Tolerance::exact()).is_ok());
    }

    #[test]
    fn signed_zeros_are_close_but_not_bit_equal() {
        assert!(compare_close(&[0.0f32], &[-0.0], Tolerance::exact()).is_ok());
        let r = std::panic::catch_unwind(|| assert_bits_eq(&[0.0f32], &[-0.0]));
        assert!(r.is_err());
    }

    #[test]
    fn integers_are_exact() {
        assert!(compare_close(&[i64::MAX], &[i64::MAX - 1], Tolerance::of::<i64>()).is_err());
        assert!(compare_close(&[u64::MAX], &[u64::MAX], Tolerance::of::<u64>()).is_ok());
        assert!(compare_close(&[-5i8, 3], &[-5, 3], Tolerance::of::<i8>()).is_ok());
        assert!(compare_close(&[255u8], &[254], Tolerance::of::<u8>()).is_err());
        // a non-zero tolerance applies to integers too
        assert!(compare_close(&[100i16], &[101], Tolerance::new(0.0, 1.0, 0.0)).is_ok());
    }

    #[test]
    fn length_mismatch_is_an_error() {
        let e = compare_close(&[1.0f32], &[0.0f32; 0], Tolerance::of::<f32>()).unwrap_err();
        assert_eq!(e, Mismatch::Length { actual: 1, expected: 0 });
        assert_eq!(e.mismatches(), 0);
        assert!(e.report().is_none());
        assert_eq!(e.to_string(), "length mismatch: actual has 1 elements, expected 0");
        let r = std::panic::catch_unwind(|| assert_close(&[1u8, 2], &[1], Tolerance::exact()));
        let msg = *r.unwrap_err().downcast::<String>().unwrap();
        assert!(msg.contains("length mismatch: actual has 2 elements, expected 1"), "{msg}");
        let r = std::panic::catch_unwind(|| assert_bits_eq(&[1u8, 2], &[1]));
        let msg = *r.unwrap_err().downcast::<String>().unwrap();
        assert!(msg.contains("assert_bits_eq failed: length mismatch"), "{msg}");
    }

    #[test]
    fn empty_slices_pass() {
        let r = compare_close::<f16>(&[], &[f16::ZERO; 0], Tolerance::exact()).unwrap();
        assert_eq!((r.len, r.mismatches, r.ratio), (0, 0, 0.0));
        assert_bits_eq::<u32>(&[], &[]);
    }

    #[test]
    fn assert_close_panics_with_report() {
        let r = std::panic::catch_unwind(|| {
            assert_close(&[h(1.0), h(2.0), h(3.0)], &[h(1.0), h(2.5), h(3.0)], Tolerance::of::<f16>())
        });
        let msg = *r.unwrap_err().downcast::<String>().unwrap();
        assert!(msg.starts_with("assert_close failed: values differ: 1 of 3 half elements differ"), "{msg}");
        assert!(msg.contains("[1] expected 2.5 (0x4100), actual 2 (0x4000)"), "{msg}");
        assert_close(&[h(1.0)], &[h(1.0)], Tolerance::of::<f16>());
    }

    #[test]
    fn assert_bits_eq_reports_count_and_first() {
        let a: Vec<u16> = (0..20).collect();
        let mut b = a.clone();
        b[2] = 99;
        b[17] = 98;
        let r = std::panic::catch_unwind(|| assert_bits_eq(&a, &b));
        let msg = *r.unwrap_err().downcast::<String>().unwrap();
        assert!(msg.contains("2 of 20 uint16_t elements differ"), "{msg}");
        assert!(msg.contains("[2] expected 99 (0x63), actual 2 (0x2)"), "{msg}");
        assert!(msg.contains("[17] expected 98"), "{msg}");
        assert_bits_eq(&a, &a);
    }

    #[test]
    fn bf16_default_accepts_one_rounding() {
        // 255 = 1.9921875 * 2^7: the next bf16 is 256, 1/255 ≈ 3.9e-3 relative away
        let x = bf16::from_f32(255.0);
        let next = bf16::from_bits(x.to_bits() + 1);
        assert_eq!(next.to_f32(), 256.0);
        assert!(compare_close(&[next], &[x], Tolerance::of::<bf16>().with_max_mismatch_ratio(0.0)).is_ok());
        let far = bf16::from_bits(x.to_bits() + 3);
        assert!(compare_close(&[far], &[x], Tolerance::of::<bf16>().with_max_mismatch_ratio(0.0)).is_err());
    }
}
