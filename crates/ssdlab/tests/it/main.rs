//! Integration tests of the simulator: real-trace replays with GC active, determinism,
//! interleaved simulations, hand-worked timing, scheduler behaviour.

mod adversarial;
mod dgc;
mod fail;
mod raid;
mod replay;
mod sched_brr;
mod timing;
mod util;
