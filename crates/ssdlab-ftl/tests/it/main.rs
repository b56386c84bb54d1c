//! Integration tests of ssdlab-ftl: the GC protocol driven like the controller drives it,
//! under random workloads (proptest), preconditioning of a small device, and the implicit
//! fill against the page-by-page one.

mod driver;
mod implicit;
mod precondition;
mod protocol;
