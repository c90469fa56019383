//! `Mmad`: the cube unit's matrix multiply-accumulate, `C = A × B (+ C or + bias)` (AscendC
//! `Mmad(dst, fm, filter, MmadParams)` and, with a bias row, `Mmad(dst, fm, filter, bias,
//! MmadParams)`; pipe M).
//!
//! # Where C starts
//!
//! Three values can start the accumulation of `C[i][j]` (the Mmad page's `cmatrixInitVal` and
//! `cmatrixSource`; `kernel_operator_mm_base_impl.h` and `dav_c220/kernel_operator_mm_impl.h`):
//!
//! | form | `init` | C starts at |
//! | --- | --- | --- |
//! | [`mmad`] | `cmatrix_init_val && !is_bias` | 0 when `init`; else `bias[j]` from the bias table at address 0 when `cmatrix_source`; else the current `C[i][j]` |
//! | [`mmad_with_bias`], bias in the bias table (`C2`) | `cmatrix_init_val` | 0 when `init`; else `bias[j]` (`cmatrix_source` is ignored: the position decides) |
//! | [`mmad_with_bias`], bias in L0C (`CO1`) | `cmatrix_init_val` | 0 when `init`; else the current `C[i][j]` (the implementation passes `cmatrixSource = false`, "the C matrix is in L0C") |
//!
//! So the bias form needs `cmatrix_init_val = false` to add the bias, as the vendor's `mmad`
//! and `data_copy_gm2l1` samples set it ("带Bias且传入biasTensor的场景，该场景下cmatrixSource参数无效"). The
//! bias is one row of `n` values of C's type (`float` or `int32_t`), broadcast down the `m`
//! rows; it gets to the bias table from L1 with
//! [`data_copy_bias`](super::bias_table::data_copy_bias). The form without a bias tensor reads
//! it from address 0 of the bias table (the instruction has no bias address; the vendor's
//! `mmad` sample, scenario 1, puts the bias there). The bias table is Ascend910B's (1 KiB, so
//! `n <= 256`): the other chips reject the bias forms (Ascend910 and Ascend310P have none;
//! Ascend310B's is not modelled).
//!
//! # Layouts
//!
//! `A` is `m × k` in L0A (`fm`, position `A2`), `B` is `k × n` in L0B (`filter`, `B2`), `C`
//! is `m × n` in L0C (`dst`, `CO1`). With `K0 = 32 / size_of(input)` (16 for 16-bit inputs, 8
//! for `float`, 32 for 8-bit), a fractal of `FRAC = 16 × K0` input elements (512 bytes),
//! `M1 = ⌈m / 16⌉`, `N1 = ⌈n / 16⌉` and `K1 = ⌈k / K0⌉` (for `float` inputs with
//! [`k_direction_align`](MmadParams::k_direction_align): `K1 = ⌈k / 16⌉ × 2`, `k` padded to
//! a multiple of 16), the element offsets are:
//!
//! | matrix | format | element | offset |
//! | --- | --- | --- | --- |
//! | A | Zz: fractals row-major, each row-major (16 × K0) | `A[i][kk]` | `((i / 16) × K1 + kk / K0) × FRAC + (i % 16) × K0 + kk % K0` |
//! | B | Zn: fractals row-major, each column-major (K0 × 16) | `B[kk][j]` | `((kk / K0) × N1 + j / 16) × FRAC + (j % 16) × K0 + kk % K0` |
//! | C | NZ: fractals column-major, each a row-major 16 × 16 of the 32-bit result | `C[i][j]` | `((j / 16) × M1 + i / 16) × 256 + (i % 16) × 16 + j % 16` |
//!
//! These are the layouts the vendor's `matmul_basic_api` sample builds with
//! [`load_data`](super::load_data::load_data) from NZ data in L1 (A without, B with the
//! transpose) and hands to `Fixpipe` with a source stride of `M1 × 16` rows. With `m = 1`
//! the cube runs as GEMV (matrix-vector): `A` is read as a plain row, `A[0][kk]` at offset
//! `kk` (still 512-byte aligned), and `C[0][j]` stays where the table puts it (one 1 × 16
//! row of each 16 × 16 fractal).
//!
//! Padding (rows `i ≥ m`, columns `j ≥ n`, depths `kk ≥ k`) is never read and never written:
//! only the `m × n` valid elements of `C` change.
//!
//! # Arithmetic
//!
//! The hardware's internal order is not documented; this follows the vendor's reference
//! script `mmad.py` (the dot product taken `K0` depths at a time):
//!
//! * floating point (`float` result): `acc` starts at 0, at `bias[j]` or at the current
//!   `C[i][j]` (see above; the bias is the accumulator's first value, exactly as a C that
//!   holds it); for each run of `K0` depths `kk < k` in order, the run's dot
//!   product is computed in `f64` (each product exact: a product of two `half`, `bfloat16_t`
//!   or `float` values fits in 53 bits; the additions in order, exact for 16-bit inputs unless
//!   the products' magnitudes span more than 2^53 apart), rounded once to `float` and added
//!   to `acc` in `float` (round to nearest even);
//! * integers: exact, summed in 64 bits, and the result (`C` or the bias included)
//!   saturated to the `int32_t` (`uint32_t`) range, the vendor's "integers only saturate";
//! * special values: in saturation mode ([`get_overflow_mode`](crate::get_overflow_mode) is
//!   [`OverflowMode::Saturation`]) a final `±inf` becomes `±FLT_MAX` and `NaN` becomes 0; in
//!   inf/nan mode they are kept. The vendor asks for no NaN inputs.
//!
//! The synchronisation sanitizer does not model the cube memories yet.

use crate::cube::{check_extent, check_operand, check_range, FRACTAL_BYTES};
use crate::element::{bf16, f16, Element};
use crate::kernel::error::{check, ensure};
use crate::memory::tensor::LocalTensor;
use crate::observe::sanitizer::Span;
use crate::position::Memory;
use crate::soc::{OverflowMode, Soc};
use crate::sync::event::pipe_t;

const API: &str = "Mmad";

/// Largest `m`, `n` and `k` of [`MmadParams`].
pub const MAX_MMAD_DIM: u16 = 4095;

/// The bias table's bytes on Ascend910B (the DataCopy L1 → BiasTable page: 1 KB on Atlas A2/A3).
pub const MAX_BIAS_BYTES: usize = 1024;

/// Parameters of [`mmad`] (AscendC `MmadParams`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MmadParams {
    /// Rows of A and C, `0..=4095` (0: no operation; 1: GEMV, see the [module](self) docs).
    pub m: u16,
    /// Columns of B and C, `0..=4095` (0: no operation).
    pub n: u16,
    /// Columns of A, rows of B, `0..=4095` (0: no operation).
    pub k: u16,
    /// Deprecated: `true` accumulates into C (`C += A × B`), as `cmatrix_init_val = false`
    /// does (the vendor's implementations use `cmatrixInitVal && !isBias`).
    pub is_bias: bool,
    /// Deprecated, ignored (the vendor: not used on Atlas A2 and later; no implementation
    /// passes it to the instruction).
    pub fm_offset: i32,
    /// Deprecated, ignored (as `fm_offset`).
    pub en_ssparse: bool,
    /// Deprecated, ignored (as `fm_offset`).
    pub en_winograd_a: bool,
    /// Deprecated, ignored (as `fm_offset`).
    pub en_winograd_b: bool,
    /// Fine-grained `Mmad`/`Fixpipe` overlap: 0 (off), 2 (on, keep the unit flags) or 3 (on,
    /// reset them), Ascend910B only; 0 elsewhere. It changes timing only, so it has no
    /// effect here beyond the check.
    pub unit_flag: u8,
    /// For `float` inputs: A's rows of fractals are `⌈k / 16⌉ × 2` fractals apart instead of
    /// `⌈k / 8⌉` (what `LoadData` with the transpose leaves in L0A). Ascend910B only; no
    /// effect for the other input types (their `K0` is already 16 or 32).
    pub k_direction_align: bool,
    /// With `cmatrix_init_val = false`: `true` starts C at the bias row in the bias table
    /// (`C2`, address 0 for [`mmad`]), `false` at C's current values. Ascend910B only (false
    /// elsewhere); ignored by [`mmad_with_bias`], where the bias's position decides. See the
    /// [module](self) docs.
    pub cmatrix_source: bool,
    /// `true` (the default): C starts at 0, `C = A × B`; `false`: `C += A × B`.
    pub cmatrix_init_val: bool,
}

impl Default for MmadParams {
    /// The vendor's defaults: all zero and `false`, except `cmatrix_init_val = true`.
    fn default() -> Self {
        MmadParams {
            m: 0,
            n: 0,
            k: 0,
            is_bias: false,
            fm_offset: 0,
            en_ssparse: false,
            en_winograd_a: false,
            en_winograd_b: false,
            unit_flag: 0,
            k_direction_align: false,
            cmatrix_source: false,
            cmatrix_init_val: true,
        }
    }
}

impl MmadParams {
    /// The vendor's constructor `MmadParams(m, n, k, unitFlag, cmatrixSource,
    /// cmatrixInitVal)`; the other fields keep their defaults.
    pub const fn new(
        m: u16,
        n: u16,
        k: u16,
        unit_flag: u8,
        cmatrix_source: bool,
        cmatrix_init_val: bool,
    ) -> Self {
        MmadParams {
            m,
            n,
            k,
            is_bias: false,
            fm_offset: 0,
            en_ssparse: false,
            en_winograd_a: false,
            en_winograd_b: false,
            unit_flag,
            k_direction_align: false,
            cmatrix_source,
            cmatrix_init_val,
        }
    }

    /// The vendor's older constructor `MmadParams(m, n, k, isBias, fmOffset, enSsparse,
    /// enWinogradA, enWinogradB)`; the other fields keep their defaults.
    #[allow(clippy::too_many_arguments)]
    pub const fn new_legacy(
        m: u16,
        n: u16,
        k: u16,
        is_bias: bool,
        fm_offset: i32,
        en_ssparse: bool,
        en_winograd_a: bool,
        en_winograd_b: bool,
    ) -> Self {
        MmadParams {
            m,
            n,
            k,
            is_bias,
            fm_offset,
            en_ssparse,
            en_winograd_a,
            en_winograd_b,
            unit_flag: 0,
            k_direction_align: false,
            cmatrix_source: false,
            cmatrix_init_val: true,
        }
    }
}

mod sealed {
    /// How a type triple computes.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Kind {
        /// Exact integers, saturated.
        Int,
        /// Floats into a `float` result.
        Float,
        /// `half` into a `half` result (Ascend910, Ascend310P): not modelled.
        HalfOut,
    }

    pub trait Sealed {
        const KIND: Kind;
    }
}
use sealed::Kind;

/// The `(dst, fm, filter)` element types `Mmad` takes on some chip, implemented for the tuple
/// `(D, A, B)`:
///
/// | `(dst, fm, filter)` | Ascend910B, Ascend310B | Ascend310P | Ascend910 |
/// | --- | --- | --- | --- |
/// | `(i32, i8, i8)` | yes | yes | yes |
/// | `(f32, f16, f16)` | yes | yes | yes |
/// | `(f32, f32, f32)`, `(f32, bf16, bf16)` | yes | — | — |
/// | `(i32, u8, i8)` | — | yes | yes |
/// | `(i32, u8, u8)` | — | yes | — |
/// | `(u32, u8, u8)` | — | — | yes |
/// | `(f16, f16, f16)` | — | not modelled | not modelled |
///
/// A chip without the triple is a run-time error naming the chip; a triple no chip has does
/// not compile:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// use ascend_core::cube::mmad::{mmad, MmadParams};
/// fn f(c: &LocalTensor<f32>, a: &LocalTensor<i8>, b: &LocalTensor<i8>) {
///     mmad(c, a, b, &MmadParams::default());
/// }
/// ```
///
/// `(f16, f16, f16)` exists on Ascend910 and Ascend310P, where the vendor documents that it
/// misses a 1e-3 relative accuracy without saying how it rounds; it is an error here.
pub trait MmadTypes: sealed::Sealed {
    /// `"dst/fm/filter"` in the vendor's type names.
    const NAME: &'static str;
    /// Whether `soc` has the triple.
    fn mmad_supported(soc: Soc) -> bool;
}

macro_rules! triples {
    ($(($d:ty, $a:ty, $b:ty) => $name:literal, $kind:ident, |$soc:ident| $ok:expr;)*) => {$(
        impl sealed::Sealed for ($d, $a, $b) {
            const KIND: Kind = Kind::$kind;
        }
        impl MmadTypes for ($d, $a, $b) {
            const NAME: &'static str = $name;
            fn mmad_supported($soc: Soc) -> bool {
                $ok
            }
        }
    )*};
}

triples! {
    (i32, i8, i8) => "int32_t/int8_t/int8_t", Int, |_soc| true;
    (f32, f16, f16) => "float/half/half", Float, |_soc| true;
    (f32, f32, f32) => "float/float/float", Float, |soc| matches!(soc, Soc::Ascend910B | Soc::Ascend310B);
    (f32, bf16, bf16) => "float/bfloat16_t/bfloat16_t", Float, |soc| matches!(soc, Soc::Ascend910B | Soc::Ascend310B);
    (i32, u8, i8) => "int32_t/uint8_t/int8_t", Int, |soc| matches!(soc, Soc::Ascend910 | Soc::Ascend310P);
    (i32, u8, u8) => "int32_t/uint8_t/uint8_t", Int, |soc| soc == Soc::Ascend310P;
    (u32, u8, u8) => "uint32_t/uint8_t/uint8_t", Int, |soc| soc == Soc::Ascend910;
    (f16, f16, f16) => "half/half/half", HalfOut, |soc| matches!(soc, Soc::Ascend910 | Soc::Ascend310P);
}

/// The triples `soc` has, for messages.
fn triples_of(soc: Soc) -> &'static str {
    match soc {
        Soc::Ascend910B | Soc::Ascend310B => {
            "int32_t/int8_t/int8_t, float/half/half, float/float/float, float/bfloat16_t/bfloat16_t"
        }
        Soc::Ascend310P => {
            "int32_t/int8_t/int8_t, int32_t/uint8_t/int8_t, int32_t/uint8_t/uint8_t, half/half/half, float/half/half"
        }
        Soc::Ascend910 => {
            "uint32_t/uint8_t/uint8_t, int32_t/int8_t/int8_t, int32_t/uint8_t/int8_t, half/half/half, float/half/half"
        }
    }
}

/// Multiplies `fm` (A, `m × k`, in L0A) by `filter` (B, `k × n`, in L0B) into `dst` (C,
/// `m × n`, in L0C): `C = A × B`, or `C += A × B` with `cmatrix_init_val = false` (AscendC
/// `Mmad(dst, fm, filter, MmadParams)`). Layouts and arithmetic: see the [module](self) docs.
///
/// ```
/// use ascend_core::prelude::*;
/// use ascend_core::cube::mmad::{mmad, MmadParams};
/// // A = 16 x 16 of 1.0 (one Zz fractal), B = 16 x 16 with B[kk][j] = j (one Zn fractal:
/// // element (kk, j) at j * 16 + kk).
/// let a = LocalTensor::<f16>::new(TPosition::A2, 0, 256);
/// let b = LocalTensor::<f16>::new(TPosition::B2, 0, 256);
/// let c = LocalTensor::<f32>::new(TPosition::CO1, 0, 256);
/// a.copy_from_slice(&[f16::ONE; 256]);
/// b.copy_from_slice(&(0..256).map(|x| f16::from_f32((x / 16) as f32)).collect::<Vec<_>>());
/// mmad(&c, &a, &b, &MmadParams::new(16, 16, 16, 0, false, true));
/// let out = c.to_vec(); // C[i][j] at i * 16 + j
/// assert_eq!(out[3 * 16 + 5], 16.0 * 5.0);
/// mmad(&c, &a, &b, &MmadParams::new(16, 16, 16, 0, false, false)); // accumulate
/// assert_eq!(c.to_vec()[3 * 16 + 5], 2.0 * 16.0 * 5.0);
/// ```
///
/// # Panics
/// Panics if the chip does not have the type triple (or it is `half/half/half`, not
/// modelled); `dst` is not in L0C or not 1024-byte aligned, `fm` not in L0A or `filter` not in
/// L0B or either not 512-byte aligned; `m`, `n` or `k` exceeds 4095; `unit_flag` is not 0, 2
/// or 3 on Ascend910B or not 0 elsewhere; `k_direction_align` is set on a chip other than
/// Ascend910B; `cmatrix_source` is set (with `cmatrix_init_val` false) on a chip other than
/// Ascend910B or `n` bias values from address 0 exceed the bias table; or a fractal read or
/// written lies beyond its tensor.
#[track_caller]
pub fn mmad<D: Element, A: Element, B: Element>(
    dst: &LocalTensor<D>,
    fm: &LocalTensor<A>,
    filter: &LocalTensor<B>,
    params: &MmadParams,
) where
    (D, A, B): MmadTypes,
{
    mmad_impl::<D, A, B>(dst, fm, filter, params, <(D, A, B) as sealed::Sealed>::KIND, None)
}

/// [`mmad`] with a bias row (AscendC `Mmad(dst, fm, filter, bias, MmadParams)`): with
/// `cmatrix_init_val = false`, `C[i][j] = bias[j] + Σ A[i][kk] × B[kk][j]` when `bias` is in
/// the bias table (`C2`), `C += A × B` when it is in L0C (`CO1`); `cmatrix_source` is ignored
/// (see the [module](self) docs). `bias` holds `n` values of C's type; the triples are
/// [`mmad`]'s on Ascend910B.
///
/// ```
/// use ascend_core::prelude::*;
/// use ascend_core::cube::bias_table::data_copy_bias;
/// use ascend_core::cube::mmad::{mmad_with_bias, MmadParams};
/// let a = LocalTensor::<f16>::new(TPosition::A2, 0, 256); // 16 x 16 of 1.0
/// let b = LocalTensor::<f16>::new(TPosition::B2, 0, 256); // 16 x 16 of 0.5
/// let c = LocalTensor::<f32>::new(TPosition::CO1, 0, 256);
/// a.copy_from_slice(&[f16::ONE; 256]);
/// b.copy_from_slice(&[f16::from_f32(0.5); 256]);
/// // The bias row in L1, then the bias table: one 64-byte block of 16 floats.
/// let bias_l1 = LocalTensor::<f32>::new(TPosition::C1, 0, 16);
/// bias_l1.copy_from_slice(&(0..16).map(|j| j as f32).collect::<Vec<_>>());
/// let bias_bt = LocalTensor::<f32>::new(TPosition::C2, 0, 16);
/// data_copy_bias(&bias_bt, &bias_l1, &DataCopyParams::new(1, 1, 0, 0));
/// let mut p = MmadParams::new(16, 16, 16, 0, false, false); // cmatrixInitVal = false
/// mmad_with_bias(&c, &a, &b, &bias_bt, &p);
/// assert_eq!(c.to_vec()[3 * 16 + 5], 5.0 + 16.0 * 0.5); // bias[5] + row 3 · column 5
/// p.cmatrix_init_val = true; // starts at 0: the bias is not added
/// mmad_with_bias(&c, &a, &b, &bias_bt, &p);
/// assert_eq!(c.to_vec()[3 * 16 + 5], 8.0);
/// ```
///
/// # Panics
/// As [`mmad`]; also if the chip is not Ascend910B (the bias forms: Ascend910 and Ascend310P
/// do not have them, Ascend310B's bias table is not modelled), `bias` is not in the bias table
/// (`C2`, 64-byte aligned) or L0C (`CO1`), or holds fewer than `n` values.
#[track_caller]
pub fn mmad_with_bias<D: Element, A: Element, B: Element>(
    dst: &LocalTensor<D>,
    fm: &LocalTensor<A>,
    filter: &LocalTensor<B>,
    bias: &LocalTensor<D>,
    params: &MmadParams,
) where
    (D, A, B): MmadTypes,
{
    crate::cube::check_chip(API_BIAS, &[Soc::Ascend910B]);
    check_operand(bias, API_BIAS, "bias", &[Memory::BiasTable, Memory::L0C], 64);
    mmad_impl::<D, A, B>(dst, fm, filter, params, <(D, A, B) as sealed::Sealed>::KIND, Some(bias))
}

const API_BIAS: &str = "Mmad with bias";

#[track_caller]
fn mmad_impl<D: Element, A: Element, B: Element>(
    dst: &LocalTensor<D>,
    fm: &LocalTensor<A>,
    filter: &LocalTensor<B>,
    params: &MmadParams,
    kind: Kind,
    bias: Option<&LocalTensor<D>>,
) where
    (D, A, B): MmadTypes,
{
    let soc = crate::kernel::ctx::get_soc();
    let api = if bias.is_some() { API_BIAS } else { API };
    let name = <(D, A, B) as MmadTypes>::NAME;
    check!(
        <(D, A, B) as MmadTypes>::mmad_supported(soc),
        api,
        "dst/fm/filter = {name} is not supported on {soc} ({}): Mmad takes {} there",
        soc.product_line(),
        triples_of(soc)
    );
    check!(
        kind != Kind::HalfOut,
        api,
        "dst/fm/filter = {name} on {soc} is not modelled: the vendor documents that its half accumulation misses \
         a 1e-3 relative accuracy without documenting its rounding; use a float dst"
    );
    check_operand(dst, api, "dst", &[Memory::L0C], 1024);
    check_operand(fm, api, "fm", &[Memory::L0A], FRACTAL_BYTES);
    check_operand(filter, api, "filter", &[Memory::L0B], FRACTAL_BYTES);
    let p = *params;
    let max = MAX_MMAD_DIM as u64;
    check_range(api, "m", p.m as u64, 0, max);
    check_range(api, "n", p.n as u64, 0, max);
    check_range(api, "k", p.k as u64, 0, max);
    if soc == Soc::Ascend910B {
        ensure(matches!(p.unit_flag, 0 | 2 | 3), api, || {
            format!("unit_flag = {}: must be 0 (off), 2 or 3 (on)", p.unit_flag)
        });
    } else {
        ensure(p.unit_flag == 0, api, || {
            format!("unit_flag = {}: {soc} has no unit flag (it must be 0; Ascend910B only)", p.unit_flag)
        });
    }
    ensure(!p.k_direction_align || soc == Soc::Ascend910B, api, || {
        format!("k_direction_align = true is not supported on {soc} (only false; true on Ascend910B only)")
    });
    // Where C starts (see the module docs): the bias form passes `cmatrixInitVal` as it is and
    // takes the source from the bias's position; the other folds in the deprecated `isBias`.
    let init = if bias.is_some() { p.cmatrix_init_val } else { p.cmatrix_init_val && !p.is_bias };
    let from_bt = !init && bias.map_or(p.cmatrix_source, |b| b.memory() == Memory::BiasTable);
    if p.cmatrix_source && bias.is_none() {
        // The Mmad page: only false on Atlas training / inference (AI Core) products.
        ensure(soc == Soc::Ascend910B, api, || {
            if matches!(soc, Soc::Ascend910 | Soc::Ascend310P) {
                format!("cmatrix_source = true is not supported on {soc}: C cannot come from the bias table there")
            } else {
                format!("cmatrix_source = true (C from the bias table C2) is not modelled on {soc} (only Ascend910B)")
            }
        });
    }
    let (m, n, k) = (p.m as usize, p.n as usize, p.k as usize);
    if m == 0 || n == 0 || k == 0 {
        return;
    }
    // The bias row, when C starts from the bias table: `n` values of C's type.
    let bias_row = if from_bt {
        let t = match bias {
            Some(b) => b.clone(),
            None => LocalTensor::<D>::new(crate::position::TPosition::C2, 0, MAX_BIAS_BYTES / D::SIZE),
        };
        ensure(n * D::SIZE <= t.get_length(), api, || {
            let at =
                if bias.is_some() { "bias" } else { "the bias table from address 0 (cmatrix_source = true)" };
            format!(
                "n = {n} bias values of {} ({} bytes) exceed {at}: {} bytes",
                D::DTYPE,
                n * D::SIZE,
                t.get_length()
            )
        });
        Some(t)
    } else {
        None
    };

    // Geometry, once.
    let k0 = 32 / A::SIZE;
    let frac = 16 * k0;
    let (m1, n1, kv) = (m.div_ceil(16), n.div_ceil(16), k.div_ceil(k0));
    let k1 = if p.k_direction_align && A::SIZE == 4 { k.div_ceil(16) * 2 } else { kv };
    let gemv = m == 1;
    // Extents: the last fractal (GEMV: element) each operand is read or written at.
    let fm_bytes = if gemv { k * A::SIZE } else { ((m1 - 1) * k1 + kv) * frac * A::SIZE };
    check_extent(fm, api, "fm", fm_bytes);
    check_extent(filter, api, "filter", kv * n1 * frac * B::SIZE);
    check_extent(dst, api, "dst", n1 * m1 * 256 * D::SIZE);
    crate::observe::events::on_mmad::<A>(m, n, k);
    if crate::observe::events::is_on() {
        let c = Span::of(dst, n1 * m1 * 256 * D::SIZE);
        let (a_in, b_in) = (Span::of(fm, fm_bytes), Span::of(filter, kv * n1 * frac * B::SIZE));
        let third = bias_row.as_ref().map_or(c, |t| Span::of(t, n * D::SIZE));
        let reads = [a_in, b_in, third];
        let reads = if init { &reads[..2] } else { &reads[..] };
        // The Mmad page: from (m / 16) * (n / 16) >= 10 on, the hardware orders a later Mmad
        // after this one by itself (below, a PipeBarrier<PIPE_M> must).
        let settles = (m / 16) * (n / 16) >= 10;
        crate::observe::events::on_cube(api, pipe_t::PIPE_M, &[], reads, &[c], &[], settles);
    }

    // Gather A (m × k) and B (k × n) as exact f64 values.
    let a_at = |i: usize, kk: usize| {
        if gemv {
            kk
        } else {
            ((i / 16) * k1 + kk / k0) * frac + (i % 16) * k0 + kk % k0
        }
    };
    let b_at = |kk: usize, j: usize| ((kk / k0) * n1 + j / 16) * frac + (j % 16) * k0 + kk % k0;
    let c_at = |i: usize, j: usize| ((j / 16) * m1 + i / 16) * 256 + (i % 16) * 16 + j % 16;
    let (pa, pb, pc) = (fm.ptr() as *const A, filter.ptr() as *const B, dst.ptr());
    let mut a = Vec::with_capacity(m * k);
    for i in 0..m {
        // SAFETY: `a_at(i, kk) < fm_bytes / A::SIZE` for every `i < m`, `kk < k` (checked
        // above); the cube memories are only accessed through raw pointers.
        a.extend((0..k).map(|kk| unsafe { pa.add(a_at(i, kk)).read() }.to_f64()));
    }
    let mut bt = Vec::with_capacity(n * k); // B transposed: bt[j * k + kk]
    for j in 0..n {
        // SAFETY: as for A, against `filter`'s checked extent.
        bt.extend((0..k).map(|kk| unsafe { pb.add(b_at(kk, j)).read() }.to_f64()));
    }
    let saturate = crate::kernel::ctx::get_overflow_mode() == OverflowMode::Saturation;
    let pbias = bias_row.as_ref().map(|t| t.ptr() as *const D);
    for i in 0..m {
        let row = &a[i * k..(i + 1) * k];
        for j in 0..n {
            let col = &bt[j * k..(j + 1) * k];
            let at = c_at(i, j);
            let old = match (init, pbias) {
                (true, _) => None,
                // SAFETY: `j < n`, and `n` values fit in the bias tensor (checked above).
                (false, Some(pb)) => Some(unsafe { pb.add(j).read() }.to_f64()),
                // SAFETY: `at < n1 * m1 * 256`, checked against `dst` above.
                (false, None) => Some(unsafe { pc.add(at).read() }.to_f64()),
            };
            let v = match kind {
                Kind::Int => {
                    let mut acc = old.map_or(0i64, |c| c as i64);
                    for (x, y) in row.iter().zip(col) {
                        acc += (*x as i64) * (*y as i64);
                    }
                    acc.clamp(D::MIN.to_f64() as i64, D::MAX.to_f64() as i64) as f64
                }
                _ => {
                    let mut acc = old.map_or(0f32, |c| c as f32);
                    for (rc, cc) in row.chunks(k0).zip(col.chunks(k0)) {
                        let s: f64 = rc.iter().zip(cc).fold(0.0, |s, (x, y)| s + x * y);
                        acc += s as f32;
                    }
                    if saturate {
                        if acc.is_nan() {
                            acc = 0.0;
                        } else if acc.is_infinite() {
                            acc = f32::MAX.copysign(acc);
                        }
                    }
                    acc as f64
                }
            };
            // SAFETY: as above.
            unsafe { pc.add(at).write(D::from_f64(v)) };
        }
    }
}
