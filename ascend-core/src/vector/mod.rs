//! Vector instructions: the shared addressing engine and the instructions built on it.

pub mod bilinear;
pub mod binary;
pub mod brcb;
pub mod cast;
pub mod compare;
pub mod compound;
pub mod copy;
pub mod create_vec_index;
pub mod dequant;
pub mod duplicate;
pub(crate) mod engine;
pub mod gather;
pub mod gather_mask;
pub mod gatherb;
pub mod lane;
pub mod mask;
pub mod mixed;
pub mod params;
pub mod reduce;
pub mod reduction;
pub mod scalar;
pub mod select;
pub mod sort;
pub mod transpose;
pub mod unary;
