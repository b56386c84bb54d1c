//! Integration tests of the simulator: real-trace replays with GC active, determinism,
//! interleaved simulations, hand-worked timing, scheduler behaviour, and the shape of the
//! source tree and of the repository (crate layering, no machine paths).

mod adversarial;
mod bad_blocks;
mod bind;
mod cache_mode;
mod cmt;
mod cr5m;
mod dgc;
mod dram;
mod dsftl;
mod dsftl_cmt;
mod durability;
mod errors;
mod fail;
mod hostile;
mod liveness;
mod nand;
mod pcie;
mod placement;
mod placement_streams;
mod raid;
mod replay;
mod repo;
mod sched_brr;
mod sched_paq;
mod sectors;
mod send;
mod slc;
mod structure;
mod tenants;
mod tenants_cmt;
mod tenants_dram;
mod tenants_partition;
mod timing;
mod trace_flush;
mod trim;
mod util;
