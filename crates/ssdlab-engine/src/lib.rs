//! Discrete-event core of ssdlab. It knows nothing about SSDs.
//!
//! * [`SimTime`] / [`SimDuration`]: nanoseconds of simulated time as `u64` newtypes.
//! * [`EventQueue`]: a priority queue ordered by `(time, insertion sequence)`, so events
//!   that tie on time pop in FIFO order and every run is reproducible.
//! * [`SimRng`]: a seeded PCG stream; [`SimRng::fork`] derives independent streams per
//!   component from one seed.
#![warn(missing_docs)]

mod queue;
mod rng;
mod time;

pub use queue::{EventQueue, PastEventError};
pub use rng::SimRng;
pub use time::{SimDuration, SimTime};
