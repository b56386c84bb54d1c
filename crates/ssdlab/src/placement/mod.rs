//! Placement: the one decision of where a page the controller writes goes
//! (docs/ARCHITECTURE.md §7.3, §8).
//!
//! ```text
//!  host data ─┐                      ┌─► static order / dynamic (round-robin, least-busy)
//!  mirror     │                      │   / HIPA, possibly wrapped by DS-FTL's
//!  parity     ├─► Placement::place ──┤   content-aware placement; or the RAID layout
//!  rebuild    │   (PageToPlace,      │   (chip | channel domain), or SDA inside the
//!             │                      │   layout's channel (CR5)
//!  materialize│    DeviceView)       └─► the simulator wraps data pages with DGC's
//!  degraded ──┘                          redirection when `dgc.enabled`
//! ```
//!
//! Every page the controller programs gets its plane here, from a [`PageToPlace`] (the
//! logical page, its content token, its [`Role`], its RAID chunk) and a read-only
//! [`DeviceView`] (outstanding work per chip, queued reads, dead chips, free pages per
//! plane, each plane's GC, the RAID map). The FTL then takes the next free page of that
//! plane. Preconditioning asks [`PlacementPolicy::fill_plane`] (it runs before any device
//! state exists), or, for a policy whose fill layout is periodic
//! ([`PlacementPolicy::fill_period`]), takes it as a formula ([`fill_pattern`]). GC moves are not placement decisions: a move stays in its victim's plane
//! (docs/ARCHITECTURE.md §11), so a static LPN→chip map survives GC.
//!
//! With `placement.bind = "dispatch"` ([`crate::config::Bind`]) the plane a policy
//! returns for a host data page fixes only its die; the plane and page inside the die
//! are chosen when the die starts the program (`sim/bind.rs`).
//!
//! A policy is a [`PlacementPolicy`] that owns its state. Adding one is a new file
//! with the policy and one line in [`build`] naming the configuration that selects it.

mod content;
mod fill;
mod hipa;
mod order;
pub mod partition;
mod raid;
mod sda;
#[cfg(test)]
mod testutil;

pub use content::ContentAware;
pub use fill::{fill_pattern, FillRun};
pub use hipa::Hipa;
pub use order::{LeastBusy, RoundRobin, StaticOrder};
pub use partition::Partitioned;
pub use raid::RaidLayoutPolicy;
pub use sda::Sda;

use crate::config::{BaseAllocation, SimConfig};
use crate::device::DeviceView;
use crate::layout::RaidMap;
use ssdlab_ftl::{Allocation, DynamicPolicy};
use ssdlab_nand::{Geometry, Lpn, PlaneId};
use ssdlab_raid::{ChipChoice, Chunk, Domain, RaidLevel};

/// Why a page is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A host page.
    Data,
    /// RAID-1 copy of a host page, or its CR5M mirror copy on the mirror chip.
    Mirror,
    /// RAID-4/5 parity of a stripe.
    Parity,
    /// A page rewritten from redundancy onto a spare.
    Rebuild,
    /// A never-written page a read asks for, written in zero time.
    Materialize,
    /// A write whose page lives on a dead chip: recorded, not programmed.
    Degraded,
}

/// One page to place.
#[derive(Clone, Copy, Debug)]
pub struct PageToPlace {
    /// The FTL's logical page (host LPN, or a redundancy page's LPN under RAID).
    pub lpn: Lpn,
    /// Its content token.
    pub token: u64,
    /// Why it is written.
    pub role: Role,
    /// Its RAID chunk when the caller located it already (else the policy does).
    pub chunk: Option<Chunk>,
}

impl PageToPlace {
    /// A page of `role` with no chunk located yet.
    pub fn new(lpn: Lpn, token: u64, role: Role) -> Self {
        PageToPlace {
            lpn,
            token,
            role,
            chunk: None,
        }
    }

    /// The same page with its RAID chunk.
    pub fn with_chunk(mut self, chunk: Chunk) -> Self {
        self.chunk = Some(chunk);
        self
    }
}

/// A placement policy with its state.
pub trait PlacementPolicy: Send {
    /// The policy's name.
    fn name(&self) -> &'static str;
    /// A copy of the policy in its present state (runs that share a prepared device
    /// each continue from the state its preconditioning left).
    fn boxed_clone(&self) -> Box<dyn PlacementPolicy>;
    /// The plane for `page`, seen against `view`.
    fn place(&mut self, page: &PageToPlace, view: &DeviceView) -> PlaneId;
    /// Where zero-time preconditioning lays FTL page `lpn` out (data, and under RAID its
    /// redundancy), before the run: no device state exists yet.
    fn fill_plane(&mut self, lpn: Lpn, geom: &Geometry, raid: Option<&RaidMap>) -> PlaneId;
    /// The stripe map [`PlacementPolicy::fill_plane`] follows when it places every LPN by
    /// it and nothing else (the planes then age independently). None by default.
    fn fill_map(&self) -> Option<ssdlab_ftl::StripeMap> {
        None
    }
    /// True if [`PlacementPolicy::fill_plane`] is a function of the LPN alone and keeps no
    /// state: every write of an LPN during preconditioning goes to one plane, so the
    /// planes age independently (the FTL may then write the overwrites plane by plane,
    /// [`ssdlab_ftl::Ftl::precondition_static`], or age sample planes for all,
    /// [`ssdlab_ftl::Ftl::precondition_sampled`]). By default: when it follows a stripe
    /// map ([`PlacementPolicy::fill_map`]).
    fn fill_is_static(&self) -> bool {
        self.fill_map().is_some()
    }
    /// The sequential fill's layout as a formula, if there is one: runs of LPNs in which
    /// the planes [`PlacementPolicy::fill_plane`] gives for LPNs `0, 1, 2, …`, asked in that
    /// order from the policy's present state, repeat with a period ([`FillRun`]). `None`
    /// (the default): no formula; the fill asks page by page. [`fill_pattern`] checks the
    /// claim against the policy's answers.
    fn fill_period(&self, _geom: &Geometry, _raid: Option<&RaidMap>) -> Option<Vec<FillRun>> {
        None
    }
    /// The fill placed the next `n` LPNs by the formula without asking
    /// [`PlacementPolicy::fill_plane`]: the policy moves any state it keeps on as if it had
    /// been asked for each, in order (nothing by default: `fill_plane` keeps no state).
    fn skip_fill(&mut self, _n: u32) {}
    /// The policy's own counters for the report (none by default).
    fn counters(&self) -> Vec<(ssdlab_stats::Counter, u64)> {
        Vec::new()
    }
    /// The transactions of every page placed so far are counted in the queues now (the
    /// controller calls this after queueing each admitted request, and after each
    /// event): a policy that counts its own placements as outstanding work until then
    /// may forget them.
    fn settle(&mut self) {}
    /// True if [`PlacementPolicy::settle`] does anything (the controller calls it only
    /// then); false by default, so a policy that overrides `settle` says true here.
    fn settles(&self) -> bool {
        false
    }
}

impl Clone for Box<dyn PlacementPolicy> {
    fn clone(&self) -> Self {
        self.boxed_clone()
    }
}

/// The policy the configuration selects: the RAID layout when RAID is on, else the
/// FTL's allocation (content-aware placement wraps `dsftl.base`), inside the tenants'
/// resource partitions when some tenant has one ([`Partitioned`]).
pub fn build(cfg: &SimConfig) -> Box<dyn PlacementPolicy> {
    let policy = build_unpartitioned(cfg);
    if partition::any(cfg) {
        return Box::new(Partitioned::new(policy, cfg));
    }
    policy
}

/// [`build`] without the tenants' partitions.
pub fn build_unpartitioned(cfg: &SimConfig) -> Box<dyn PlacementPolicy> {
    let r = &cfg.raid;
    if r.level != RaidLevel::None {
        if r.domain == Domain::Channel && r.chip_in_channel == ChipChoice::Sda {
            return Box::new(Sda::new(&cfg.geometry, r.sda_start));
        }
        return Box::new(RaidLayoutPolicy);
    }
    let base = match cfg.dsftl.base {
        BaseAllocation::Static => Allocation::Static,
        BaseAllocation::Dynamic => Allocation::Dynamic,
        BaseAllocation::Hipa => Allocation::Hipa,
    };
    match cfg.ftl.allocation {
        Allocation::ContentAware => Box::new(ContentAware::new(build_base(cfg, base), cfg)),
        a => build_base(cfg, a),
    }
}

/// The policy of allocation `a` (not content-aware).
fn build_base(cfg: &SimConfig, a: Allocation) -> Box<dyn PlacementPolicy> {
    let order = cfg.ftl.static_order;
    let g = &cfg.geometry;
    match (a, cfg.ftl.dynamic_policy) {
        (Allocation::Static, _) => Box::new(StaticOrder::new(order, g)),
        (Allocation::Dynamic, DynamicPolicy::RoundRobin) => Box::new(RoundRobin::new(order, g)),
        (Allocation::Dynamic, DynamicPolicy::LeastBusy) => Box::new(LeastBusy::new(order, g)),
        (Allocation::Hipa, _) => Box::new(Hipa::new(order, &cfg.ftl.hipa, g, &cfg.timing)),
        (Allocation::ContentAware, _) => unreachable!("content-aware wraps a base allocation"),
    }
}
