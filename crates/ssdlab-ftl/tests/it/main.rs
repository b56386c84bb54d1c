//! Integration tests of ssdlab-ftl: the GC protocol driven like the controller drives it,
//! under random workloads (proptest), and preconditioning of a small device.

mod driver;
mod precondition;
mod protocol;
