//! The controller's DRAM stage of ssdlab: a write buffer or data cache between the host
//! and the FTL.
//!
//! ```text
//!  host ──► DRAM stage ──(destage: pages to program)──► placement ──► FTL ──► flash
//!   ▲        │  write: absorbed | full (wait)                                    │
//!   │        │  read: hit (token) | miss ──────────────► flash read ──► fill ────┤
//!   └────────┘  flush / FUA: durable when their programs complete ◄─ destaged ◄──┘
//! ```
//!
//! Principal types:
//!
//! * [`CacheConfig`]: the `[cache]` section: mode, capacity, write policy, replacement,
//!   destage rule and watermarks, DRAM timing, power-loss protection.
//! * [`DramStage`]: the stage's state and decisions, sans I/O: the simulation tells it
//!   what happened and applies what it answers ([`WriteOutcome`], the [`Victim`]s to
//!   program, [`PowerLoss`]). Tested alone, without a simulation.
//! * [`DramStages`]: the stage as tenants share it (`cache.sharing`): one
//!   [`DramStage`], or one per tenant, each page in the stage of its namespace's tenant.
//! * [`Occupancy`]: the dirty pages over time, in bounded memory.
#![warn(missing_docs)]

mod config;
mod series;
mod share;
mod stage;

pub use config::{
    CacheConfig, CacheConfigError, CacheMode, CacheSharing, Destage, Replacement, WritePolicy,
};
pub use series::Occupancy;
pub use share::{DramStages, TenantDramCounts, TenantStages};
pub use stage::{DramCounters, DramStage, PowerLoss, Victim, WriteOutcome};
