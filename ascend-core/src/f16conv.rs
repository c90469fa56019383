//! Bulk `f16` ⇄ `f32` conversion, as the vector kernels use it: F16C instructions when the
//! host has them (checked once per call), `half`'s scalar conversion otherwise. Both round to
//! nearest-even when narrowing, so results are the same bits either way for every non-NaN
//! value (NaN stays NaN). Public so that host code (references, benchmarks' native
//! baselines) can convert exactly as fast.
//!
//! ```
//! use ascend_core::f16conv::{narrow_slice, widen_slice};
//! use ascend_core::f16;
//! let h = [f16::from_f32(1.5), f16::from_f32(-2.0)];
//! let mut w = [0f32; 2];
//! widen_slice(&h, &mut w);
//! assert_eq!(w, [1.5, -2.0]);
//! let mut back = [f16::ZERO; 2];
//! narrow_slice(&w, &mut back);
//! assert_eq!(back, h);
//! ```

use half::f16;

/// Widens `src` into `dst` exactly.
///
/// # Panics
/// Panics if the lengths differ.
pub fn widen_slice(src: &[f16], dst: &mut [f32]) {
    assert_eq!(src.len(), dst.len(), "widen_slice: lengths differ");
    // SAFETY: both slices hold src.len() elements; a `&` and a `&mut` slice never overlap.
    unsafe { widen(src.as_ptr(), dst.as_mut_ptr(), src.len()) }
}

/// Narrows `src` into `dst`, each value rounded once to nearest-even.
///
/// # Panics
/// Panics if the lengths differ.
pub fn narrow_slice(src: &[f32], dst: &mut [f16]) {
    assert_eq!(src.len(), dst.len(), "narrow_slice: lengths differ");
    // SAFETY: both slices hold src.len() elements; a `&` and a `&mut` slice never overlap.
    unsafe { narrow(src.as_ptr(), dst.as_mut_ptr(), src.len()) }
}

/// Widens `n` values: `dst[i] = src[i] as f32` (exact).
///
/// # Safety
/// `src` is valid for `n` reads, `dst` for `n` writes, and they do not overlap.
#[inline]
pub(crate) unsafe fn widen(src: *const f16, dst: *mut f32, n: usize) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("f16c") && std::is_x86_feature_detected!("avx") {
        // SAFETY: the CPU supports F16C and AVX (checked above); the pointer contract is
        // forwarded.
        unsafe { x86::widen(src, dst, n) };
        return;
    }
    for i in 0..n {
        // SAFETY: i < n, within both ranges.
        unsafe { dst.add(i).write(src.add(i).read().to_f32()) };
    }
}

/// Narrows `n` values with one rounding to nearest-even: `dst[i] = f16::from_f32(src[i])`.
///
/// # Safety
/// `src` is valid for `n` reads, `dst` for `n` writes, and they do not overlap.
#[inline]
pub(crate) unsafe fn narrow(src: *const f32, dst: *mut f16, n: usize) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("f16c") && std::is_x86_feature_detected!("avx") {
        // SAFETY: the CPU supports F16C and AVX (checked above); the pointer contract is
        // forwarded.
        unsafe { x86::narrow(src, dst, n) };
        return;
    }
    for i in 0..n {
        // SAFETY: i < n, within both ranges.
        unsafe { dst.add(i).write(f16::from_f32(src.add(i).read())) };
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::x86_64::{
        __m128i, _mm256_cvtph_ps, _mm256_cvtps_ph, _mm256_loadu_ps, _mm256_storeu_ps, _mm_loadu_si128,
        _mm_storeu_si128, _MM_FROUND_TO_NEAREST_INT,
    };
    use half::f16;

    #[target_feature(enable = "avx,f16c")]
    pub(super) unsafe fn widen(src: *const f16, dst: *mut f32, n: usize) {
        let mut i = 0;
        while i + 8 <= n {
            // SAFETY: i + 8 <= n keeps the 16-byte load and 32-byte store in range; the
            // unaligned forms need no alignment.
            unsafe {
                let h = _mm_loadu_si128(src.add(i).cast::<__m128i>());
                _mm256_storeu_ps(dst.add(i), _mm256_cvtph_ps(h));
            }
            i += 8;
        }
        while i < n {
            // SAFETY: i < n.
            unsafe { dst.add(i).write(src.add(i).read().to_f32()) };
            i += 1;
        }
    }

    #[target_feature(enable = "avx,f16c")]
    pub(super) unsafe fn narrow(src: *const f32, dst: *mut f16, n: usize) {
        let mut i = 0;
        while i + 8 <= n {
            // SAFETY: as in `widen`.
            unsafe {
                let v = _mm256_loadu_ps(src.add(i));
                _mm_storeu_si128(
                    dst.add(i).cast::<__m128i>(),
                    _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(v),
                );
            }
            i += 8;
        }
        while i < n {
            // SAFETY: i < n.
            unsafe { dst.add(i).write(f16::from_f32(src.add(i).read())) };
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every f16 bit pattern widens, and narrows back, exactly as `half` does it; and f32
    /// values around every rounding boundary narrow as `half` rounds them.
    #[test]
    fn matches_half_bit_for_bit() {
        let all: Vec<f16> = (0..=u16::MAX).map(f16::from_bits).collect();
        let mut wide = vec![0f32; all.len()];
        // SAFETY: both buffers hold all.len() elements and are distinct.
        unsafe { widen(all.as_ptr(), wide.as_mut_ptr(), all.len()) };
        for (h, w) in all.iter().zip(&wide) {
            assert!(h.is_nan() && w.is_nan() || h.to_f32().to_bits() == w.to_bits(), "{h:?}");
        }
        let probes: Vec<f32> = all
            .iter()
            .filter(|h| h.is_finite())
            .flat_map(|h| {
                let b = h.to_f32().to_bits();
                [b.wrapping_sub(1), b, b + 1, b + 0x1000, b + 0xFFF].map(f32::from_bits)
            })
            .chain([65504.0, 65519.99, 65520.0, 1e9, -1e9, f32::INFINITY, f32::NEG_INFINITY])
            .collect();
        let mut narrow_out = vec![f16::ZERO; probes.len()];
        // SAFETY: both buffers hold probes.len() elements and are distinct.
        unsafe { narrow(probes.as_ptr(), narrow_out.as_mut_ptr(), probes.len()) };
        for (p, h) in probes.iter().zip(&narrow_out) {
            let want = f16::from_f32(*p);
            assert!(
                want.is_nan() && h.is_nan() || want.to_bits() == h.to_bits(),
                "{p} -> {h:?}, want {want:?}"
            );
        }
    }
}
