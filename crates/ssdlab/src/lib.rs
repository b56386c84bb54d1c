//! ssdlab: a fast, deterministic, trace-driven simulator of SSD internals.
//!
//! ```text
//! trace file ─► TraceReader ─► host ─► controller ──────────────────────► flash back end
//! (ssdlab-trace)              (arrivals, │ split into page sub-requests   (channel buses,
//!                              device    │ FTL: translate / allocate       dies, planes;
//!                              queue)    │   (ssdlab-ftl)                  timing)
//!                                        │ scheduler: chip queues, order        │
//!                                        ▼                                      ▼
//!                                      stats (ssdlab-stats) ◄──── completions ◄─┘
//! ```
//!
//! Principal types: [`SimConfig`] (strict TOML configuration with named presets, built
//! by [`ConfigBuilder`]), [`Simulation`] (owns the clock, the event queue and every
//! component of one run), [`sched::IoScheduler`] (the policy seam), and the
//! [`Report`] it returns.
#![warn(missing_docs)]

pub mod anchors;
mod arrivals;
pub mod config;
pub mod device;
pub mod error;
pub mod layout;
pub mod placement;
pub mod plans;
pub mod presets;
pub mod sched;
pub mod sim;

pub use config::{ConfigBuilder, ConfigError, ConfigErrors, HostMode, SchedulerKind, SimConfig};
pub use error::SimError;
pub use sim::{run, Simulation, VecStream, WarmUp};
pub use ssdlab_stats::Report;

/// The git revision this library was built from ("unknown" outside a checkout).
pub const GIT_REV: &str = env!("SSDLAB_GIT_REV");
