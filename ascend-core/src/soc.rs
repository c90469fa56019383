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

    /// The bytes of `mem` a kernel may use on one AI core: the vendor's `TOTAL_UB_SIZE`,
    /// `TOTAL_L1_SIZE`, `TOTAL_L0A_SIZE`, `TOTAL_L0B_SIZE` and `TOTAL_L0C_SIZE`, and the 1 KiB
    /// bias table (only Ascend910B's position `C2` is in it). On Ascend910B
    /// the last 128 bytes of the 512 KiB L1 are reserved for the matmul framework's messages
    /// (`KFC_L1_RESERVER_SIZE`) and are not counted.
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// assert_eq!(Soc::Ascend910B.memory_size(Memory::L1), 512 * 1024 - 128);
    /// assert_eq!(Soc::Ascend310P.memory_size(Memory::L0C), 256 * 1024);
    /// assert_eq!(Soc::Ascend910B.memory_size(Memory::Ub), Soc::Ascend910B.ub_size());
    /// ```
    pub const fn memory_size(self, mem: crate::position::Memory) -> usize {
        use crate::position::Memory;
        match (mem, self) {
            (Memory::Ub, _) => self.ub_size(),
            (Memory::L1, Soc::Ascend910B) => 512 * 1024 - 128,
            (Memory::L1, _) => 1024 * 1024,
            (Memory::L0A | Memory::L0B, _) => 64 * 1024,
            (Memory::L0C, Soc::Ascend910 | Soc::Ascend310P) => 256 * 1024,
            (Memory::L0C, _) => 128 * 1024,
            // The DataCopy (L1 -> BiasTable) page: "BiasTable Buffer总大小为1KB" (Atlas A2/A3).
            (Memory::BiasTable, _) => 1024,
        }
    }

    /// Whether the chip's cube and vector units are separate cores (Ascend910B: a cube core,
    /// AIC, with L1/L0A/L0B/L0C and no Unified Buffer, and vector cores, AIV, with a Unified
    /// Buffer only). On the other chips one AI core has every memory.
    pub const fn is_separated(self) -> bool {
        matches!(self, Soc::Ascend910B)
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
