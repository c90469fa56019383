//! The chips (`Soc`) and the per-chip facts the emulator reproduces.

use core::fmt;

/// How `vec_reduce_add` combines the per-repeat results of one call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RepeatSumOrder {
    /// Repeat results summed as a pairwise tree (Ascend910, Ascend310P).
    PairwiseTree,
    /// In order within each run of 255 repeats, then the runs' sums pairwise (Ascend910B).
    InOrderGroupsOf255,
    /// Odd and even repeats accumulated lane by lane, then a tree over the lanes (Ascend310B).
    OddEvenAccumulate,
}

/// What an `f16` result beyond the finite range becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OverflowMode {
    /// Clamped to ±65504.
    Saturation,
    /// ±inf as IEEE 754 says (NaN stays NaN).
    InfNan,
}

/// An Ascend chip. Each logical core of a launch behaves as an AI core of this chip.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Soc {
    /// Atlas training series.
    Ascend910,
    /// Atlas A2 training series / Atlas 800I A2 inference (the default).
    #[default]
    Ascend910B,
    /// Atlas inference series, AI Core.
    Ascend310P,
    /// Atlas 200/500 A2 inference.
    Ascend310B,
}

impl Soc {
    /// Every chip, in a fixed order (for tests that sweep chips).
    pub const ALL: [Soc; 4] = [Soc::Ascend910, Soc::Ascend910B, Soc::Ascend310P, Soc::Ascend310B];

    /// The Unified Buffer size of one AI core, in bytes.
    pub const fn ub_size(self) -> usize {
        match self {
            Soc::Ascend910B => 196_608,
            Soc::Ascend910 | Soc::Ascend310P | Soc::Ascend310B => 262_144,
        }
    }

    /// Whether `Select` supports the given mode number (0, 1 or 2) on this chip.
    pub const fn supports_select_mode(self, mode: u8) -> bool {
        match self {
            Soc::Ascend910 => mode == 0,
            _ => mode <= 2,
        }
    }

    /// The cross-repeat order of `vec_reduce_add`.
    pub const fn reduce_order(self) -> RepeatSumOrder {
        match self {
            Soc::Ascend910 | Soc::Ascend310P => RepeatSumOrder::PairwiseTree,
            Soc::Ascend910B => RepeatSumOrder::InOrderGroupsOf255,
            Soc::Ascend310B => RepeatSumOrder::OddEvenAccumulate,
        }
    }

    /// The `f16` overflow mode a core starts in.
    pub const fn default_overflow_mode(self) -> OverflowMode {
        match self {
            Soc::Ascend910B => OverflowMode::InfNan,
            _ => OverflowMode::Saturation,
        }
    }

    /// Whether the overflow mode can be switched on this chip (only Ascend910B has inf/nan).
    pub const fn overflow_mode_settable(self) -> bool {
        matches!(self, Soc::Ascend910B)
    }

    /// The product line the vendor documents use for this chip.
    pub const fn product_line(self) -> &'static str {
        match self {
            Soc::Ascend910 => "Atlas training series",
            Soc::Ascend910B => "Atlas A2 training series / Atlas 800I A2 inference",
            Soc::Ascend310P => "Atlas inference series AI Core",
            Soc::Ascend310B => "Atlas 200/500 A2 inference",
        }
    }

    /// Parses a chip name as printed by `Display` (case-insensitive).
    pub fn parse(name: &str) -> Option<Soc> {
        Soc::ALL.into_iter().find(|s| s.to_string().eq_ignore_ascii_case(name))
    }
}

impl fmt::Display for Soc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}
