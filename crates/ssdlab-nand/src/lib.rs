//! NAND flash model of ssdlab: what the flash is and how long it takes.
//!
//! * [`Geometry`]: channels × chips × dies × planes × blocks × pages, validated.
//! * Typed IDs ([`ChannelId`], [`ChipId`], [`DieId`], [`PlaneId`], [`BlockId`], [`Ppn`],
//!   [`Lpn`]) and [`PhysAddr`], the decomposed form of a physical page number.
//! * [`NandTiming`]: array and bus timing parameters, in nanoseconds and picoseconds.
//! * [`FlashOp`] and [`TxnReason`]: what a flash transaction does and why it exists.
//! * [`LpnOwners`]: the tenant whose namespace holds a logical page.
//! * [`NandConfig`]: cell type (SLC to QLC), page types and their latencies;
//!   [`SuspendConfig`] and [`Suspendable`]: program/erase suspend and resume;
//!   [`SlcCacheConfig`]: blocks used in SLC mode as a write cache;
//!   [`CacheMode`]: ONFI cache read and cache program.
//! * [`RberModel`], [`EccConfig`], [`ReadOutcome`], [`ErrorModel`]: raw bit errors, ECC and
//!   read retry.
//!
//! Global numbering: chips are numbered in *stripe order*, channel first
//! (`chip = way × channels + channel`), so consecutive chip IDs lie on consecutive
//! channels; dies, planes, blocks and pages are numbered contiguously inside their
//! parent (`plane = die × planes_per_die + plane_in_die`, …). A [`Ppn`] is a global page
//! index: `block × pages_per_block + page_in_block`.
#![warn(missing_docs)]

mod cache;
mod cell;
mod errors;
mod geometry;
mod ids;
mod op;
mod owners;
mod slc;
mod suspend;
mod timing;

pub use cache::CacheMode;
pub use cell::{CellError, CellType, NandConfig, PageOrder, ProgramModel};
pub use errors::{
    EccConfig, ErrorModel, ErrorsError, RberModel, ReadCharge, ReadOutcome, SoftTier, StepTimes,
};
pub use geometry::{Geometry, GeometryError, MAX_PAGES_PER_BLOCK};
pub use ids::{BlockId, ChannelId, ChipId, DieId, Lpn, PhysAddr, PlaneId, Ppn};
pub use op::{FlashOp, TxnReason};
pub use owners::LpnOwners;
pub use slc::{SlcCacheConfig, SlcMode, WhenFull};
pub use suspend::{SuspendConfig, SuspendOps, Suspendable};
pub use timing::{NandTiming, TimingError, Transfer, WriteAck};
