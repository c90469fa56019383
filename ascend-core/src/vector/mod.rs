//! Vector instructions: the shared addressing engine and the instructions built on it.

pub mod binary;
pub mod compare;
pub mod duplicate;
pub(crate) mod engine;
pub mod lane;
pub mod mask;
pub mod params;
pub mod reduce;
pub mod scalar;
pub mod select;
pub mod transpose;
pub mod unary;
