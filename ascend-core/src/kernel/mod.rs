//! The kernel layer: the logical core a host thread emulates ([`ctx`]: its index, chip,
//! Unified Buffer, registers and per-core state) and the faults it raises ([`error`]).
//!
//! Everything above imports this layer; it imports only the vocabulary at the crate root
//! (elements, positions, chips) and the per-core state types the other layers keep in a
//! core (each in a file of its own folder that imports nothing above this layer).

pub mod ctx;
pub mod error;
