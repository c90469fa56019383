//! Logical positions (`TPosition`) and the marker types that stand for them in type parameters.

use core::fmt;

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
