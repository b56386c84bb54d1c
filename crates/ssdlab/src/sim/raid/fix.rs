//! Zero-time work on the array: redundancy after preconditioning, and never-written
//! pages that a read materializes with their stripe.

use crate::error::SimError;
use crate::placement::{PageToPlace, Role};
use crate::sim::Simulation;
use ssdlab_nand::{Lpn, PlaneId};
use ssdlab_raid::RaidLevel;

impl Simulation {
    /// After zero-time preconditioning, gives every redundancy page its real content
    /// (the XOR of its stripe, or its primary's content) so that the array starts
    /// consistent. A redundancy page not written by the preconditioning itself (with a
    /// fill ratio below 1 the redundancy part of the map is not filled) is written now,
    /// with instant GC in its plane. Redundancy pages below FTL page `settled` already
    /// hold their content (an implicit fill laid it out:
    /// [`crate::layout::RaidMap::filled_token`]) and
    /// are left alone.
    ///
    /// # Errors
    /// [`SimError::Config`] naming `ftl.precondition` if a redundancy page finds no room
    /// in its plane even after GC: the preconditioned layout does not fit the device.
    pub(in crate::sim) fn raid_fix_redundancy(&mut self, settled: u32) -> Result<(), SimError> {
        let Some(r) = self.raid.as_ref() else {
            return Ok(());
        };
        let level = r.map.level;
        let host = r.map.host_pages;
        let first = u64::from(settled).saturating_sub(host);
        match level {
            RaidLevel::Raid1 => {
                for x in first..host {
                    let lpn = Lpn(x as u32);
                    let token = self.ftl.lookup(lpn).map(|p| self.ftl.token(p));
                    self.set_redundancy(self.raid().map.red_lpn(x), token.unwrap_or(0))?;
                }
            }
            RaidLevel::Raid4 | RaidLevel::Raid5 => {
                let groups = u64::from(self.raid().map.layout.groups());
                let rows = host / u64::from(self.raid().map.layout.data_per_row());
                let mut lpns = Vec::new();
                // Stripes in parity order (row by row), from the first one not settled.
                for i in first..rows * groups {
                    let (row, group) = (i / groups, (i % groups) as u32);
                    self.raid().map.layout.stripe_lpns(row, group, &mut lpns);
                    let xor = lpns.iter().fold(0u64, |acc, &x| {
                        acc ^ self
                            .ftl
                            .lookup(Lpn(x as u32))
                            .map_or(0, |p| self.ftl.token(p))
                    });
                    debug_assert_eq!(i, self.raid().map.layout.parity_index(row, group));
                    self.set_redundancy(self.raid().map.red_lpn(i), xor)?;
                }
            }
            RaidLevel::Raid0 | RaidLevel::None => {}
        }
        Ok(())
    }

    /// Sets redundancy page `lpn` to `token` in zero time (writing it if needed).
    fn set_redundancy(&mut self, lpn: Lpn, token: u64) -> Result<(), SimError> {
        match self.ftl.lookup(lpn) {
            Some(p) => self.ftl.set_token(p, token),
            None if token == 0 => {}
            None => {
                let map = self.raid.as_ref().map(|r| &r.map);
                let plane = self.placement.fill_plane(lpn, &self.geom, map);
                if self.ftl.write_now(lpn, plane, token).is_err() {
                    return Err(SimError::config(
                        "ftl.precondition",
                        format!(
                            "the preconditioned data leaves no room in {plane} for redundancy page {lpn}; \
                             lower ftl.precondition.fill_ratio or overwrite_ratio"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Materializes a never-written host page under RAID: the unwritten pages of its
    /// stripe and the stripe's parity (RAID-4/5), or both copies (RAID-1), in zero time.
    /// False if the stripe is being updated (its parity is in motion) or space is short.
    pub(in crate::sim) fn raid_materialize(&mut self, lpn: Lpn) -> bool {
        let r = self.raid();
        let level = r.map.level;
        let chunk = r.map.layout.locate(u64::from(lpn.0));
        match level {
            RaidLevel::Raid4 | RaidLevel::Raid5 => {
                if !self.raid_materialize_feasible(lpn) {
                    return false;
                }
                let r = self.raid();
                let stripe = r.map.stripe_of(&chunk);
                if r.locks.contains_key(&stripe)
                    || r.buffers.contains_key(&stripe)
                    || r.parked_stripes.contains_key(&stripe)
                {
                    return false;
                }
                let mut lpns = Vec::new();
                r.map.layout.stripe_lpns(chunk.row, chunk.group, &mut lpns);
                let i = r.map.layout.parity_index(chunk.row, chunk.group);
                let plity = r.map.red_lpn(i);
                // The parity covers the pages written so far (under CR5M, their expired
                // versions): it takes the new pages in. Without a parity, it is the XOR
                // of every page.
                let parity = self.ftl.lookup(plity);
                let mut xor = parity.map_or(0, |p| self.ftl.token(p));
                for &x in &lpns {
                    let l = Lpn(x as u32);
                    let token = match self.ftl.lookup(l) {
                        Some(_) if parity.is_some() => continue,
                        Some(p) => self.ftl.token(p),
                        None => {
                            let t = ssdlab_ftl::token_for(l, 0);
                            let plane = self.place(PageToPlace::new(l, t, Role::Materialize));
                            if self.plane_dead(plane) {
                                if l == lpn {
                                    return false;
                                }
                                continue;
                            }
                            if !self.materialize_page(l, plane, t) {
                                return false;
                            }
                            self.note_written(l, t);
                            t
                        }
                    };
                    xor ^= token;
                }
                // A parity that exists is rewritten in its own plane (an in-channel chip
                // choice may have put it off the static way); a new one on the static way.
                let plane = match parity {
                    Some(p) => self.geom.plane_of_page(p),
                    None => self.place(PageToPlace::new(plity, xor, Role::Materialize)),
                };
                if self.plane_dead(plane) {
                    // A parity DGC redirected to a live chip is stale now.
                    self.dead_parity_write(plity, plane, xor);
                    return true;
                }
                self.materialize_page(plity, plane, xor)
            }
            RaidLevel::Raid1 => {
                let t = ssdlab_ftl::token_for(lpn, 0);
                let plane = self.place(PageToPlace::new(lpn, t, Role::Materialize));
                let (mlpn, _) = self.raid().map.mirror_of(lpn).expect("RAID-1");
                let mplane = self.place(PageToPlace::new(mlpn, t, Role::Materialize));
                if !self.materialize_page(lpn, plane, t) {
                    return false;
                }
                self.note_written(lpn, t);
                self.materialize_page(mlpn, mplane, t)
            }
            RaidLevel::Raid0 | RaidLevel::None => {
                let t = ssdlab_ftl::token_for(lpn, 0);
                let plane = self.place(PageToPlace::new(lpn, t, Role::Materialize));
                let ok = self.materialize_page(lpn, plane, t);
                if ok {
                    self.note_written(lpn, t);
                }
                ok
            }
        }
    }

    /// `raid.unwritten_stripes = "materialize"`: before a write to stripe (row, group),
    /// its never-written pages and its parity are written in zero time, so that the
    /// write is an update of a stripe that holds data (spec A6). Nothing happens to a
    /// stripe whose pages and parity all exist, or that cannot be materialized now.
    pub(in crate::sim) fn raid_materialize_for_write(&mut self, row: u64, group: u32, lpn: Lpn) {
        let r = self.raid();
        let plity = r.map.red_lpn(r.map.layout.parity_index(row, group));
        let d = r.map.layout.group_size();
        let complete = self.ftl.lookup(plity).is_some()
            && (0..d).all(|pos| match r.map.layout.lpn_at(row, group, pos) {
                Some(x) => {
                    let l = Lpn(x as u32);
                    self.ftl.lookup(l).is_some()
                        || self.held_get(l).is_some()
                        || self.is_redundant_only(l)
                        || self.is_lost(l)
                }
                None => true,
            });
        if !complete && self.raid_materialize(lpn) {
            self.raid_mut().counters.materialized_stripes += 1;
        }
    }

    /// True when the whole stripe of `lpn` can be materialized at once: its own page
    /// is on a live chip and every page to write has a free page in its plane.
    fn raid_materialize_feasible(&self, lpn: Lpn) -> bool {
        let r = self.raid();
        let c = r.map.layout.locate(u64::from(lpn.0));
        if self.plane_dead(self.raid_static_plane(lpn)) {
            return false;
        }
        let mut lpns = Vec::new();
        r.map.layout.stripe_lpns(c.row, c.group, &mut lpns);
        let parity = r.map.red_lpn(r.map.layout.parity_index(c.row, c.group));
        let mut planes: Vec<(PlaneId, u64)> = Vec::new();
        for l in lpns.iter().map(|&x| Lpn(x as u32)).chain([parity]) {
            let plane = match self.ftl.lookup(l) {
                Some(p) if l == parity => self.geom.plane_of_page(p),
                _ => self.raid_static_plane(l),
            };
            if self.plane_dead(plane) || (l != parity && self.ftl.lookup(l).is_some()) {
                continue;
            }
            match planes.iter_mut().find(|(p, _)| *p == plane) {
                Some((_, n)) => *n += 1,
                None => planes.push((plane, 1)),
            }
        }
        planes
            .iter()
            .all(|&(p, n)| self.ftl.free_pages_in_plane(p) >= n)
    }
}
