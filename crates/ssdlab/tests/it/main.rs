//! Integration tests of the simulator: real-trace replays with GC active, determinism,
//! interleaved simulations, hand-worked timing, scheduler behaviour.

mod raid;
mod replay;
mod timing;
mod util;
