//! Logical positions (`TPosition`) and the marker types that stand for them in type parameters.

use core::fmt;

use crate::soc::Soc;

/// Where a tensor lives (AscendC's `TPosition`, also spelled `QuePosition`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TPosition {
    /// Global memory.
    GM,
    /// L1 buffer, input of the cube unit (matrix A).
    A1,
    /// L0A buffer.
    A2,
    /// L1 buffer, input of the cube unit (matrix B).
    B1,
    /// L0B buffer.
    B2,
    /// L1 buffer for bias.
    C1,
    /// Bias table buffer.
    C2,
    /// L0C buffer, cube output.
    CO1,
    /// Cube output on its way out.
    CO2,
    /// Unified Buffer, vector input.
    VECIN,
    /// Unified Buffer, vector output.
    VECOUT,
    /// Unified Buffer, vector scratch.
    VECCALC,
}

/// AscendC's other name for [`TPosition`].
pub type QuePosition = TPosition;

impl TPosition {
    /// Whether the position lives in the Unified Buffer (the only memory vector instructions
    /// read and write).
    pub const fn is_ub(self) -> bool {
        matches!(self, TPosition::VECIN | TPosition::VECOUT | TPosition::VECCALC)
    }

    /// The on-chip memory a tensor at this position lives in on `soc` (the vendor's
    /// `GetPhyType`), or `None` for global memory and for the memories this emulator does not
    /// model (the bias table `C2` on Ascend310B, whose `DataCopy` into it the vendor does not
    /// support there; the fixpipe buffer). The mapping differs by chip: `C1` and `CO2` are
    /// Unified Buffer positions on the coupled chips (Ascend910, Ascend310P), `C2` is in L0C
    /// there and the bias table ([`Memory::BiasTable`]) on Ascend910B; on Ascend910B `CO2` is
    /// global memory.
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// assert_eq!(TPosition::A1.memory(Soc::Ascend910B), Some(Memory::L1));
    /// assert_eq!(TPosition::CO1.memory(Soc::Ascend910B), Some(Memory::L0C));
    /// assert_eq!(TPosition::CO2.memory(Soc::Ascend310P), Some(Memory::Ub));
    /// assert_eq!(TPosition::CO2.memory(Soc::Ascend910B), None);
    /// assert_eq!(TPosition::C2.memory(Soc::Ascend910B), Some(Memory::BiasTable));
    /// ```
    pub const fn memory(self, soc: Soc) -> Option<Memory> {
        let coupled = matches!(soc, Soc::Ascend910 | Soc::Ascend310P);
        match self {
            TPosition::GM => None,
            TPosition::VECIN | TPosition::VECOUT | TPosition::VECCALC => Some(Memory::Ub),
            TPosition::A1 | TPosition::B1 => Some(Memory::L1),
            TPosition::A2 => Some(Memory::L0A),
            TPosition::B2 => Some(Memory::L0B),
            TPosition::CO1 => Some(Memory::L0C),
            TPosition::C1 if coupled => Some(Memory::Ub),
            TPosition::C1 => Some(Memory::L1),
            TPosition::C2 if coupled => Some(Memory::L0C),
            TPosition::C2 if matches!(soc, Soc::Ascend910B) => Some(Memory::BiasTable),
            TPosition::C2 => None,
            TPosition::CO2 if matches!(soc, Soc::Ascend910B) => None,
            TPosition::CO2 => Some(Memory::Ub),
        }
    }
}

/// The logical source and destination of a queue between `src` and `dst`: a `TQue<pos>`'s are
/// the vendor's `GetBufferLogicPos(pos)` (the data stream it stands for: `A1` is GM → A1,
/// `A2` is A1 → A2, `CO1` is CO1 → CO2, `CO2` CO2 → GM, VECIN GM → VECIN, VECOUT VECOUT → GM);
/// a `TQueBind`'s are its own. `None` for a `VECCALC` queue (no stream).
pub(crate) const fn que_path(src: TPosition, dst: TPosition) -> Option<(TPosition, TPosition)> {
    use TPosition::*;
    if src as usize != dst as usize {
        return Some((src, dst));
    }
    Some(match src {
        A1 | B1 | C1 | VECIN => (GM, src),
        A2 => (A1, A2),
        B2 => (B1, B2),
        C2 => (C1, C2),
        CO1 => (CO1, CO2),
        CO2 | VECOUT => (src, GM),
        GM | VECCALC => return None,
    })
}

/// An on-chip memory of an AI core (AscendC's `Hardware` values for local memory).
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Memory {
    /// The Unified Buffer: vector instructions' operands.
    Ub,
    /// The L1 buffer: the cube unit's staging memory (positions `A1`, `B1`, `C1`).
    L1,
    /// L0A: the cube's left matrix (position `A2`).
    L0A,
    /// L0B: the cube's right matrix (position `B2`).
    L0B,
    /// L0C: the cube's result matrix (position `CO1`).
    L0C,
    /// The bias table (BT, the vendor's `Hardware::BIAS`; position `C2` on Ascend910B): 1 KiB
    /// holding the row `Mmad` initialises L0C with (see [`mmad_with_bias`]).
    ///
    /// [`mmad_with_bias`]: crate::cube::mmad::mmad_with_bias
    BiasTable,
}

// `CoreState` keeps the cube's arenas at `Memory as usize - 1`, and the allocators' bitmask
// has a bit per memory in a `u8`.
const _: () = assert!(
    Memory::Ub as u8 == 0
        && Memory::L1 as u8 == 1
        && Memory::L0A as u8 == 2
        && Memory::L0B as u8 == 3
        && Memory::L0C as u8 == 4
        && Memory::BiasTable as u8 == 5
);

impl Memory {
    /// Every memory, in `Memory as u8` order.
    pub(crate) const ALL: [Memory; 6] =
        [Memory::Ub, Memory::L1, Memory::L0A, Memory::L0B, Memory::L0C, Memory::BiasTable];

    /// The name of the memory's `Hardware` marker type (`Ub`, `L1`, …), as in
    /// `LocalMemAllocator<L1>`.
    pub(crate) const fn hardware_name(self) -> &'static str {
        match self {
            Memory::Ub => "Ub",
            Memory::L1 => "L1",
            Memory::L0A => "L0A",
            Memory::L0B => "L0B",
            Memory::L0C => "L0C",
            Memory::BiasTable => "BIAS",
        }
    }

    /// The memory's name in messages ("the L1 buffer").
    pub const fn name(self) -> &'static str {
        match self {
            Memory::Ub => "the Unified Buffer",
            Memory::L1 => "the L1 buffer",
            Memory::L0A => "the L0A buffer",
            Memory::L0B => "the L0B buffer",
            Memory::L0C => "the L0C buffer",
            Memory::BiasTable => "the bias table (BT)",
        }
    }

    /// Whether the memory belongs to the cube unit (L1, L0A, L0B, L0C, the bias table).
    pub const fn is_cube(self) -> bool {
        !matches!(self, Memory::Ub)
    }
}

impl fmt::Display for Memory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            Memory::Ub => "UB",
            Memory::L1 => "L1",
            Memory::L0A => "L0A",
            Memory::L0B => "L0B",
            Memory::L0C => "L0C",
            Memory::BiasTable => "BT",
        };
        f.write_str(s)
    }
}

impl fmt::Display for TPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A marker type standing for a [`TPosition`] in a type parameter (`TQue<VecIn, 2>`).
pub trait Position: sealed::Sealed + 'static {
    /// The position the marker stands for.
    const POS: TPosition;
}

macro_rules! positions {
    ($($(#[$doc:meta])* $name:ident => $pos:ident),* $(,)?) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name;
        impl sealed::Sealed for $name {}
        impl Position for $name {
            const POS: TPosition = TPosition::$pos;
        }
    )*};
}

positions! {
    /// `TPosition::GM`.
    Gm => GM,
    /// `TPosition::A1`.
    A1 => A1,
    /// `TPosition::A2`.
    A2 => A2,
    /// `TPosition::B1`.
    B1 => B1,
    /// `TPosition::B2`.
    B2 => B2,
    /// `TPosition::C1`.
    C1 => C1,
    /// `TPosition::C2`.
    C2 => C2,
    /// `TPosition::CO1`.
    Co1 => CO1,
    /// `TPosition::CO2`.
    Co2 => CO2,
    /// `TPosition::VECIN`.
    VecIn => VECIN,
    /// `TPosition::VECOUT`.
    VecOut => VECOUT,
    /// `TPosition::VECCALC`.
    VecCalc => VECCALC,
}
