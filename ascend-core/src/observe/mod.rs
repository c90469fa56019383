//! What watches a kernel run: the one instruction-event stream ([`events`]) that the
//! engine, the copies and the synchronisation emit, its consumers — the synchronisation
//! sanitizer ([`sanitizer`]) and the profiler ([`profiler`]) — and the kernel's own output
//! (`printf`, `DumpTensor`: [`debug`]).

pub mod debug;
pub(crate) mod events;
pub mod profiler;
pub mod sanitizer;
pub mod tls;
