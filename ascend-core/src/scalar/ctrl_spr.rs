//! The CTRL special-purpose register's bit ranges (AscendC `SetCtrlSpr<startBit, endBit>(value)`,
//! `GetCtrlSpr<startBit, endBit>()`, `ResetCtrlSpr<startBit, endBit>()`).
//!
//! What the vendor's docs and implementations say, and what is modelled:
//!
//! - **Chips.** `SetCtrlSpr`/`GetCtrlSpr` exist on Atlas A2 (here [`Soc::Ascend910B`]), Atlas A3
//!   and Ascend 950PR/950DT; `ResetCtrlSpr` on Ascend 950PR/950DT only. Atlas A3 and Ascend 950
//!   are not modelled, so `ResetCtrlSpr` fails on every chip here, and all three fail on
//!   Ascend910, Ascend310P and Ascend310B — run-time errors naming the chip (the chip is chosen
//!   at launch, where AscendC fixes it at compile time).
//! - **Bits.** The checks every vendor implementation makes at compile time are compile errors
//!   here (`const { assert!(..) }` on the const generics): `0 <= startBit <= endBit <= 63`, and
//!   for `SetCtrlSpr`/`ResetCtrlSpr` a range inside `CTRL[10:6]` or one of the single bits 45,
//!   48, 50, 53, 59, 60 (the bits Ascend 950 has; `GetCtrlSpr` may read any range there). The
//!   chip's own, narrower list is checked at run time: Ascend910B (A2) has `CTRL[48]` only, for
//!   both `SetCtrlSpr` and `GetCtrlSpr`, as its implementation's static check says.
//! - **`CTRL[48]` is the `f16` overflow mode** ([`get_overflow_mode`]/[`set_overflow_mode`]):
//!   `0` is [`OverflowMode::Saturation`] (a float result or a conversion to `half`/`bfloat16_t`
//!   beyond the finite range becomes ±MAX, a NaN becomes 0), `1` is [`OverflowMode::InfNan`]
//!   (inf and NaN stay). One state, read and written through both names, so the vector
//!   instructions compute the same after `set_ctrl_spr::<48, 48>(1)` as after
//!   `set_overflow_mode(OverflowMode::InfNan)`. On A2 the bit always applies: the A2 table has
//!   no `CTRL[60]` (on Ascend 950, `CTRL[48]` takes effect only while the global switch
//!   `CTRL[60]` is 1, its default).
//! - **Default.** A core starts in its chip's default overflow mode, so on Ascend910B
//!   `GetCtrlSpr<48, 48>()` reads 1 at kernel start: the emulator follows the spec's inf/nan
//!   default there, where the A2 `SetCtrlSpr` table gives `1'b0` (see the fidelity guide,
//!   `docs/fidelity.md`).
//! - **`value`.** The docs call a value beyond the bit range a (compile) error; it is a run-time
//!   argument, so here it is a run-time error: `value` must lie in `[0, 2^(endBit - startBit +
//!   1) - 1]` (a negative value, which the chip would shift into the neighbouring bits, too).

use crate::kernel::ctx::{get_overflow_mode, set_overflow_mode, with_core};
use crate::kernel::error::{ensure, fail};
use crate::soc::{OverflowMode, Soc};

/// The bit of the CTRL register that holds the `f16` overflow (saturation) mode.
const CTRL_SATURATION_BIT: i8 = 48;

/// Whether `[start, end]` is a range every vendor implementation of `SetCtrlSpr` and
/// `ResetCtrlSpr` could accept: inside `CTRL[10:6]`, or one of the single bits 45, 48, 50, 53,
/// 59, 60.
const fn settable_range(start: i8, end: i8) -> bool {
    (6 <= start && start <= 10 && 6 <= end && end <= 10)
        || (start == end && matches!(start, 45 | 48 | 50 | 53 | 59 | 60))
}

/// The run-time checks shared by `SetCtrlSpr` and `GetCtrlSpr`: the chip has the API, and the
/// range is one the chip has (Ascend910B: `CTRL[48]` only).
#[track_caller]
fn check_chip_bits(api: &'static str, start: i8, end: i8) {
    let soc = with_core(|c| c.soc);
    ensure(soc == Soc::Ascend910B, api, || {
        format!(
            "not supported on {soc} ({}); it exists on {} (and on Atlas A3 and Ascend 950PR/Ascend 950DT, \
             chips not modelled)",
            soc.product_line(),
            Soc::Ascend910B
        )
    });
    ensure(start == CTRL_SATURATION_BIT && end == CTRL_SATURATION_BIT, api, || {
        format!(
            "startBit = {start}, endBit = {end}: {soc} has CTRL[48] only (startBit = endBit = 48); \
             the other bits exist on Ascend 950PR/Ascend 950DT, a chip not modelled"
        )
    });
}

/// Writes `value` into bits `[START_BIT, END_BIT]` of the core's CTRL register (AscendC
/// `SetCtrlSpr<startBit, endBit>(value)`).
///
/// On Ascend910B the only bit is `CTRL[48]`, the `f16` overflow mode: `1` selects
/// non-saturation ([`OverflowMode::InfNan`]: inf and NaN results stay), `0` saturation
/// ([`OverflowMode::Saturation`]: ±inf → ±65504, NaN → 0) — the same switch as
/// [`set_overflow_mode`], which it calls.
///
/// ```
/// use ascend_core::prelude::*;
/// // The calling thread's default core is an Ascend910B core.
/// set_ctrl_spr::<48, 48>(0);
/// assert_eq!(get_overflow_mode(), OverflowMode::Saturation);
/// set_ctrl_spr::<48, 48>(1);
/// assert_eq!(get_overflow_mode(), OverflowMode::InfNan);
/// ```
///
/// A range no chip can set does not compile:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// set_ctrl_spr::<11, 11>(1);
/// ```
/// ```compile_fail
/// use ascend_core::prelude::*;
/// set_ctrl_spr::<48, 47>(1);
/// ```
///
/// # Panics
/// Panics on a chip other than Ascend910B (Atlas A3 and Ascend 950 also have it, but are not
/// modelled), for a range other than `CTRL[48]` on Ascend910B (the others are Ascend 950's),
/// and if `value` does not fit the range (`[0, 1]` for one bit).
#[track_caller]
pub fn set_ctrl_spr<const START_BIT: i8, const END_BIT: i8>(value: i64) {
    const {
        assert!(
            0 <= START_BIT && START_BIT <= END_BIT && END_BIT <= 63,
            "SetCtrlSpr: startBit and endBit must satisfy 0 <= startBit <= endBit <= 63"
        );
        assert!(
            settable_range(START_BIT, END_BIT),
            "SetCtrlSpr: [startBit, endBit] must lie inside CTRL[10:6] or be one of the single bits \
             45, 48, 50, 53, 59, 60"
        );
    }
    let api = "SetCtrlSpr";
    check_chip_bits(api, START_BIT, END_BIT);
    let width = (END_BIT - START_BIT + 1) as u32;
    let max = (1i64 << width) - 1;
    ensure((0..=max).contains(&value), api, || {
        format!(
            "value = {value} does not fit CTRL[{END_BIT}:{START_BIT}] ({width} bit{}): it must lie in \
             [0, {max}]",
            if width == 1 { "" } else { "s" }
        )
    });
    // Only CTRL[48] gets here (checked above).
    set_overflow_mode(if value == 1 { OverflowMode::InfNan } else { OverflowMode::Saturation });
}

/// Reads bits `[START_BIT, END_BIT]` of the core's CTRL register, shifted down to bit 0
/// (AscendC `GetCtrlSpr<startBit, endBit>()`).
///
/// On Ascend910B the only bit is `CTRL[48]`, the `f16` overflow mode: `1` in inf/nan
/// (non-saturation) mode, `0` in saturation mode, whichever of [`set_ctrl_spr`] and
/// [`set_overflow_mode`] set it. A core starts in the chip's default mode, inf/nan on
/// Ascend910B (see the module docs), so the bit reads 1 until changed.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_ctrl_spr::<48, 48>(), 1);
/// set_overflow_mode(OverflowMode::Saturation);
/// assert_eq!(get_ctrl_spr::<48, 48>(), 0);
/// ```
///
/// A range outside the 64-bit register does not compile:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// let _ = get_ctrl_spr::<60, 64>();
/// ```
///
/// # Panics
/// Panics on a chip other than Ascend910B (Atlas A3 and Ascend 950 also have it, but are not
/// modelled) and for a range other than `CTRL[48]` on Ascend910B.
#[track_caller]
pub fn get_ctrl_spr<const START_BIT: i8, const END_BIT: i8>() -> i64 {
    const {
        assert!(
            0 <= START_BIT && START_BIT <= END_BIT && END_BIT <= 63,
            "GetCtrlSpr: startBit and endBit must satisfy 0 <= startBit <= endBit <= 63"
        );
    }
    check_chip_bits("GetCtrlSpr", START_BIT, END_BIT);
    i64::from(get_overflow_mode() == OverflowMode::InfNan)
}

/// Resets bits `[START_BIT, END_BIT]` of the core's CTRL register to their defaults (AscendC
/// `ResetCtrlSpr<startBit, endBit>()`).
///
/// The vendor has it on Ascend 950PR/Ascend 950DT only, a chip not modelled: on every chip
/// here it is a run-time error naming the chip. On Atlas A2 (Ascend910B), write the default
/// yourself: `set_ctrl_spr::<48, 48>(0)` (the A2 table's default of `CTRL[48]`, saturation).
///
/// ```
/// use ascend_core::prelude::*;
/// let r = std::panic::catch_unwind(|| reset_ctrl_spr::<48, 48>());
/// assert!(r.is_err());
/// let f = ascend_core::take_last_fault().unwrap();
/// assert_eq!(f.api, "ResetCtrlSpr");
/// assert!(f.message.starts_with("not supported on Ascend910B"), "{}", f.message);
/// ```
///
/// A range no chip can reset does not compile:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// reset_ctrl_spr::<5, 6>();
/// ```
///
/// # Panics
/// Always, on every modelled chip (the API exists on Ascend 950 only).
#[track_caller]
pub fn reset_ctrl_spr<const START_BIT: i8, const END_BIT: i8>() {
    const {
        assert!(
            0 <= START_BIT && START_BIT <= END_BIT && END_BIT <= 63,
            "ResetCtrlSpr: startBit and endBit must satisfy 0 <= startBit <= endBit <= 63"
        );
        assert!(
            settable_range(START_BIT, END_BIT),
            "ResetCtrlSpr: [startBit, endBit] must lie inside CTRL[10:6] or be one of the single bits \
             45, 48, 50, 53, 59, 60"
        );
    }
    let soc = with_core(|c| c.soc);
    fail(
        "ResetCtrlSpr",
        format!(
            "not supported on {soc} ({}); it exists on Ascend 950PR/Ascend 950DT only, a chip not modelled \
             (on {} write the default with SetCtrlSpr<48, 48>(0))",
            soc.product_line(),
            Soc::Ascend910B
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::ctx::{run_on_core, CoreConfig};
    use crate::kernel::error::take_last_fault;
    use crate::Fault;

    /// Runs `f` on a fresh single core of `soc`.
    fn on<R>(soc: Soc, f: impl FnOnce() -> R) -> R {
        run_on_core(CoreConfig::single(soc), f)
    }

    /// A call that must fail.
    type Call = Box<dyn FnOnce() + std::panic::UnwindSafe>;

    /// `GetCtrlSpr<S, E>()`, its value dropped.
    fn get<const S: i8, const E: i8>() {
        let _ = get_ctrl_spr::<S, E>();
    }

    /// Runs `f` on a fresh core of `soc`; it must fail: returns the fault.
    fn fault(soc: Soc, f: impl FnOnce() + std::panic::UnwindSafe) -> Fault {
        let r = std::panic::catch_unwind(|| on(soc, f));
        assert!(r.is_err(), "expected a failure on {soc}");
        take_last_fault().expect("a fault")
    }

    #[test]
    fn bit_48_starts_in_the_chips_default_mode() {
        assert_eq!(on(Soc::Ascend910B, get_ctrl_spr::<48, 48>), 1);
        assert_eq!(on(Soc::Ascend910B, get_overflow_mode), OverflowMode::InfNan);
    }

    #[test]
    fn bit_48_set_get_round_trip() {
        on(Soc::Ascend910B, || {
            for v in [0, 1, 1, 0, 0, 1] {
                set_ctrl_spr::<48, 48>(v);
                assert_eq!(get_ctrl_spr::<48, 48>(), v);
            }
        });
    }

    #[test]
    fn bit_48_is_the_overflow_mode_both_ways() {
        on(Soc::Ascend910B, || {
            set_ctrl_spr::<48, 48>(0);
            assert_eq!(get_overflow_mode(), OverflowMode::Saturation);
            set_ctrl_spr::<48, 48>(1);
            assert_eq!(get_overflow_mode(), OverflowMode::InfNan);
            set_overflow_mode(OverflowMode::Saturation);
            assert_eq!(get_ctrl_spr::<48, 48>(), 0);
            set_overflow_mode(OverflowMode::InfNan);
            assert_eq!(get_ctrl_spr::<48, 48>(), 1);
        });
    }

    #[test]
    fn each_core_has_its_own_register() {
        on(Soc::Ascend910B, || {
            set_ctrl_spr::<48, 48>(0);
            // A nested core starts from the chip's default, and the outer one keeps its value.
            assert_eq!(on(Soc::Ascend910B, get_ctrl_spr::<48, 48>), 1);
            assert_eq!(get_ctrl_spr::<48, 48>(), 0);
        });
    }

    #[test]
    fn set_rejects_values_beyond_the_bit() {
        for v in [2, -1, i64::MAX, i64::MIN] {
            let f = fault(Soc::Ascend910B, move || set_ctrl_spr::<48, 48>(v));
            assert_eq!(f.api, "SetCtrlSpr");
            assert_eq!(
                f.message,
                format!("value = {v} does not fit CTRL[48:48] (1 bit): it must lie in [0, 1]")
            );
        }
        // The failed call changed nothing.
        on(Soc::Ascend910B, || {
            let _ = std::panic::catch_unwind(|| set_ctrl_spr::<48, 48>(2));
            let _ = take_last_fault();
            assert_eq!(get_ctrl_spr::<48, 48>(), 1);
        });
    }

    #[test]
    fn ascend910b_has_bit_48_only() {
        let msg = |s: i8, e: i8| {
            format!(
                "startBit = {s}, endBit = {e}: Ascend910B has CTRL[48] only (startBit = endBit = 48); the \
                 other bits exist on Ascend 950PR/Ascend 950DT, a chip not modelled"
            )
        };
        let cases: Vec<(i8, i8, Call)> = vec![
            (60, 60, Box::new(|| set_ctrl_spr::<60, 60>(1))),
            (6, 8, Box::new(|| set_ctrl_spr::<6, 8>(2))),
            (9, 10, Box::new(|| set_ctrl_spr::<9, 10>(0))),
            (45, 45, Box::new(|| set_ctrl_spr::<45, 45>(1))),
            (50, 50, Box::new(|| set_ctrl_spr::<50, 50>(1))),
            (53, 53, Box::new(|| set_ctrl_spr::<53, 53>(1))),
            (59, 59, Box::new(|| set_ctrl_spr::<59, 59>(1))),
        ];
        for (s, e, f) in cases {
            let f = fault(Soc::Ascend910B, f);
            assert_eq!((f.api, f.message), ("SetCtrlSpr", msg(s, e)));
        }
        let cases: Vec<(i8, i8, Call)> = vec![
            (60, 60, Box::new(get::<60, 60>)),
            (0, 63, Box::new(get::<0, 63>)),
            (47, 48, Box::new(get::<47, 48>)),
            (3, 3, Box::new(get::<3, 3>)),
        ];
        for (s, e, f) in cases {
            let f = fault(Soc::Ascend910B, f);
            assert_eq!((f.api, f.message), ("GetCtrlSpr", msg(s, e)));
        }
    }

    #[test]
    fn the_bit_checks_come_before_the_value_check() {
        let f = fault(Soc::Ascend910B, || set_ctrl_spr::<60, 60>(5));
        assert!(f.message.starts_with("startBit = 60, endBit = 60:"), "{}", f.message);
    }

    #[test]
    fn other_chips_do_not_have_set_and_get() {
        for soc in Soc::ALL.into_iter().filter(|&s| s != Soc::Ascend910B) {
            let want = format!(
                "not supported on {soc} ({}); it exists on Ascend910B (and on Atlas A3 and \
                 Ascend 950PR/Ascend 950DT, chips not modelled)",
                soc.product_line()
            );
            let f = fault(soc, || set_ctrl_spr::<48, 48>(1));
            assert_eq!((f.api, &f.message), ("SetCtrlSpr", &want));
            let f = fault(soc, get::<48, 48>);
            assert_eq!((f.api, &f.message), ("GetCtrlSpr", &want));
            // The chip is checked first.
            let f = fault(soc, || set_ctrl_spr::<60, 60>(7));
            assert_eq!((f.api, &f.message), ("SetCtrlSpr", &want));
            // Their overflow mode is untouched.
            assert_eq!(on(soc, get_overflow_mode), OverflowMode::Saturation);
        }
    }

    #[test]
    fn no_chip_has_reset() {
        for soc in Soc::ALL {
            let want = format!(
                "not supported on {soc} ({}); it exists on Ascend 950PR/Ascend 950DT only, a chip not \
                 modelled (on Ascend910B write the default with SetCtrlSpr<48, 48>(0))",
                soc.product_line()
            );
            let cases: Vec<Call> = vec![
                Box::new(reset_ctrl_spr::<48, 48>),
                Box::new(reset_ctrl_spr::<60, 60>),
                Box::new(reset_ctrl_spr::<6, 10>),
                Box::new(reset_ctrl_spr::<45, 45>),
            ];
            for f in cases {
                let f = fault(soc, f);
                assert_eq!((f.api, &f.message), ("ResetCtrlSpr", &want));
            }
        }
    }

    #[test]
    fn the_settable_ranges_are_the_vendors() {
        let mut ok = Vec::new();
        for s in 0..64i8 {
            for e in s..64i8 {
                if settable_range(s, e) {
                    ok.push((s, e));
                }
            }
        }
        let mut want: Vec<(i8, i8)> = (6..=10).flat_map(|s| (s..=10).map(move |e| (s, e))).collect();
        want.extend([45, 48, 50, 53, 59, 60].map(|b| (b, b)));
        assert_eq!(ok, want);
    }
}
