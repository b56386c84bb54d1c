//! DS-FTL's content-aware page allocation (Nie et al. 2023, §4.2): the base allocation
//! picks a target; if the target's unit (channel, or chip) already holds the page's
//! content, the page moves round-robin to the next unit that does not, so identical
//! pages spread over units and a read can take whichever copy is idle.
//!
//! ```text
//!  page ─► base (static / dynamic / HIPA) ─► home ─► home unit's table: content held?
//!            no ─► home
//!            yes ─► units after home, round-robin: the same plane position there (or the
//!                   next plane of that unit with room); first unit whose table says
//!                   "not held" ─► that plane                       (redirected-writes)
//!                   every unit holds it ─► dsftl.on_saturated      (dsftl-saturated-writes)
//!                   no unit lacking it has room ─► home            (dsftl-no-room-writes)
//! ```
//!
//! The tables are the FTL's (exact, or Bloom filters); a filter's false "held" only moves
//! a page needlessly and is counted against the exact index. Every page is still
//! programmed: DS-FTL spreads duplicates, it does not remove them. The check runs before
//! the write invalidates the LPN's old page, so a rewrite of identical content finds its
//! own old copy and moves away from it (`dsftl.self_copy_counts`).

use super::{FillRun, PageToPlace, PlacementPolicy, Role};
use crate::config::{OnSaturated, RrStart, SimConfig};
use crate::device::DeviceView;
use crate::layout::RaidMap;
use ssdlab_ftl::{ContentUnit, Probe};
use ssdlab_nand::{ChannelId, ChipId, Geometry, Lpn, PlaneId};
use ssdlab_stats::Counter;

/// `ftl.allocation = "content-aware"` over a base policy.
#[derive(Clone)]
pub struct ContentAware {
    base: Box<dyn PlacementPolicy>,
    scope: ContentUnit,
    rr_start: RrStart,
    on_saturated: OnSaturated,
    self_copy_counts: bool,
    place_materialized: bool,
    /// A candidate plane needs more free pages than this.
    guard_pages: u64,
    /// `rr_start = "global-pointer"`: the next unit to try.
    pointer: u32,
    redirected: u64,
    saturated: u64,
    false_positives: u64,
    no_room: u64,
}

impl ContentAware {
    /// Content-aware placement over `base`, with `cfg.dsftl`'s settings.
    pub fn new(base: Box<dyn PlacementPolicy>, cfg: &SimConfig) -> Self {
        let d = &cfg.dsftl;
        ContentAware {
            base,
            scope: d.scope,
            rr_start: d.rr_start,
            on_saturated: d.on_saturated,
            self_copy_counts: d.self_copy_counts,
            place_materialized: d.place_materialized,
            guard_pages: u64::from(d.space_guard_blocks) * u64::from(cfg.geometry.pages_per_block),
            pointer: 0,
            redirected: 0,
            saturated: 0,
            false_positives: 0,
            no_room: 0,
        }
    }

    fn units(&self, g: &Geometry) -> u32 {
        match self.scope {
            ContentUnit::Channel => g.channels,
            ContentUnit::Chip => g.chips(),
        }
    }

    /// The chip holding plane `i` (in order) of unit `u`.
    fn chip_in_unit(&self, g: &Geometry, u: u32, i: u32) -> ChipId {
        let per_chip = g.dies_per_chip * g.planes_per_die;
        match self.scope {
            ContentUnit::Channel => g.chip_at(ChannelId(u), i / per_chip),
            ContentUnit::Chip => ChipId(u),
        }
    }

    /// `home`'s position inside its unit: its index among the unit's planes.
    fn position_in_unit(&self, g: &Geometry, home: PlaneId) -> u32 {
        let per_chip = g.dies_per_chip * g.planes_per_die;
        let chip = g.chip_of_die(g.die_of_plane(home));
        let in_chip = home.0 - chip.0 * per_chip;
        match self.scope {
            ContentUnit::Channel => g.way_of_chip(chip) * per_chip + in_chip,
            ContentUnit::Chip => in_chip,
        }
    }

    /// The plane of unit `u` at `pos`, or the next one of the unit (cyclically) that is
    /// alive and has more free pages than the guard.
    fn candidate(&self, view: &DeviceView, u: u32, pos: u32) -> Option<PlaneId> {
        let g = view.geom;
        let per_chip = g.dies_per_chip * g.planes_per_die;
        let n = match self.scope {
            ContentUnit::Channel => per_chip * g.chips_per_channel,
            ContentUnit::Chip => per_chip,
        };
        (0..n).map(|k| (pos + k) % n).find_map(|i| {
            let chip = self.chip_in_unit(g, u, i);
            let p = PlaneId(chip.0 * per_chip + i % per_chip);
            let room = view.ftl.free_pages_in_plane(p) > self.guard_pages;
            (room && !view.dead.is_dead(chip)).then_some(p)
        })
    }

    /// The table's answer for `unit`, counting a false "held".
    fn held(&mut self, view: &DeviceView, page: &PageToPlace, unit: u32) -> bool {
        let own = (!self.self_copy_counts).then_some(page.lpn);
        let Probe { table, exact } = view.ftl.content_probe(page.token, unit, own);
        if table && !exact {
            self.false_positives += 1;
        }
        table
    }

    /// Where `page` goes when every unit holds its content; `found` lists the candidate
    /// planes with room, in round-robin order.
    fn saturated_plane(&self, view: &DeviceView, home: PlaneId, found: &[PlaneId]) -> PlaneId {
        match self.on_saturated {
            OnSaturated::Home => home,
            OnSaturated::LeastLoaded => {
                let g = view.geom;
                let load = |p: &PlaneId| view.load(g.chip_of_die(g.die_of_plane(*p)));
                let home_load = load(&home);
                found
                    .iter()
                    .copied()
                    .filter(|p| load(p) < home_load)
                    .min_by_key(load)
                    .unwrap_or(home)
            }
        }
    }
}

impl PlacementPolicy for ContentAware {
    fn boxed_clone(&self) -> Box<dyn PlacementPolicy> {
        Box::new(self.clone())
    }
    fn name(&self) -> &'static str {
        "content-aware"
    }

    fn place(&mut self, page: &PageToPlace, view: &DeviceView) -> PlaneId {
        let home = self.base.place(page, view);
        let applies = match page.role {
            Role::Data => true,
            Role::Materialize => self.place_materialized,
            _ => false,
        };
        if !applies {
            return home;
        }
        let g = view.geom;
        let home_chip = g.chip_of_die(g.die_of_plane(home));
        let home_unit = view.ftl.content_unit_of(home_chip);
        if !self.held(view, page, home_unit) {
            return home;
        }
        let data = page.role == Role::Data;
        let units = self.units(g);
        let pos = self.position_in_unit(g, home);
        let start = match self.rr_start {
            RrStart::AfterHome => home_unit + 1,
            RrStart::GlobalPointer => self.pointer,
        };
        let mut found = Vec::new();
        for j in 0..units {
            let u = (start + j) % units;
            if u == home_unit {
                continue;
            }
            let Some(p) = self.candidate(view, u, pos) else {
                continue;
            };
            if !self.held(view, page, u) {
                self.pointer = (u + 1) % units;
                self.redirected += u64::from(data);
                return p;
            }
            found.push(p);
        }
        if found.len() as u32 + 1 == units {
            self.saturated += u64::from(data);
            self.saturated_plane(view, home, &found)
        } else {
            self.no_room += u64::from(data);
            home
        }
    }

    fn fill_plane(&mut self, lpn: Lpn, geom: &Geometry, raid: Option<&RaidMap>) -> PlaneId {
        self.base.fill_plane(lpn, geom, raid)
    }

    fn fill_is_static(&self) -> bool {
        self.base.fill_is_static()
    }

    fn fill_period(&self, geom: &Geometry, raid: Option<&RaidMap>) -> Option<Vec<FillRun>> {
        self.base.fill_period(geom, raid)
    }

    fn skip_fill(&mut self, n: u32) {
        self.base.skip_fill(n);
    }

    fn counters(&self) -> Vec<(Counter, u64)> {
        let mut c = self.base.counters();
        c.extend([
            (Counter::RedirectedWrites, self.redirected),
            (Counter::DsftlSaturatedWrites, self.saturated),
            (Counter::DsftlBloomFalsePositives, self.false_positives),
            (Counter::DsftlNoRoomWrites, self.no_room),
        ]);
        c
    }
}
