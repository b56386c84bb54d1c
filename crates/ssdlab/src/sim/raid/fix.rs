//! Zero-time work on the array: redundancy after preconditioning, and never-written
//! pages that a read materializes with their stripe.

use crate::error::SimError;
use crate::layout::RaidMap;
use crate::placement::{PageToPlace, PlacementPolicy, Role};
use crate::sim::Simulation;
use ssdlab_ftl::{Ftl, LpnTokens};
use ssdlab_nand::{Geometry, Lpn, PlaneId};
use ssdlab_raid::{RaidLayout, RaidLevel};
use std::ops::Range;

/// Data pages whose stripes' parity [`fix_redundancy`] computes at once (whole rows of
/// them).
const FIX_BATCH_PAGES: u64 = 1 << 22;

/// The XOR of the tokens of each stripe's data pages (a page never written counts 0),
/// for the rows `rows`, row by row and group by group (parity order), computed on
/// `threads` threads.
fn parity_xors(
    tokens: LpnTokens<'_>,
    layout: &RaidLayout,
    rows: Range<u64>,
    threads: u64,
) -> Vec<u64> {
    let groups = layout.groups() as usize;
    let per_row = u64::from(layout.data_per_row());
    // A row's data pages are consecutive LPNs, and the group of its `k`-th is the same
    // in every row.
    let group_of: Vec<usize> = (0..per_row)
        .map(|k| layout.locate(k).group as usize)
        .collect();
    let xors = |part: Range<u64>| {
        let mut out = vec![0u64; (part.end - part.start) as usize * groups];
        let end = part.end;
        for (row, acc) in part.zip(out.chunks_exact_mut(groups)) {
            let first = row * per_row;
            // The pages lie all over the device: a row two rows ahead is asked for, so
            // that the misses of the pass overlap.
            if row + 2 < end {
                for x in first + 2 * per_row..first + 3 * per_row {
                    tokens.prefetch(Lpn(x as u32));
                }
            }
            for (k, &g) in group_of.iter().enumerate() {
                acc[g] ^= tokens.get(Lpn((first + k as u64) as u32)).unwrap_or(0);
            }
        }
        out
    };
    let per = (rows.end - rows.start).div_ceil(threads.max(1)).max(1);
    if per >= rows.end - rows.start {
        return xors(rows);
    }
    std::thread::scope(|scope| {
        let parts: Vec<_> = (rows.start..rows.end)
            .step_by(per as usize)
            .map(|a| scope.spawn(move || xors(a..rows.end.min(a + per))))
            .collect();
        parts
            .into_iter()
            .flat_map(|h| h.join().expect("a parity computation panicked"))
            .collect()
    })
}

/// After zero-time preconditioning, gives every redundancy page of `map` its real
/// content (the XOR of its stripe, or its primary's content) so that the array starts
/// consistent. A redundancy page not written by the preconditioning itself (with a fill
/// ratio below 1 the redundancy part of the map is not filled) is written now, in the
/// plane `placement` fills it into, with instant GC there. Redundancy pages below FTL
/// page `settled` already hold their content (an implicit fill laid it out:
/// [`crate::layout::RaidMap::filled_token`]) and are left alone.
///
/// Preparation runs it before an aged device is frozen (docs/SIMULATOR.md, "Shared
/// prepared devices"), so runs sharing the device share the work and the tables it
/// writes; a trace warm-up runs it again after its own writes.
///
/// # Errors
/// [`NoRoom`] if a redundancy page finds no room in its plane even after GC: the
/// preconditioned layout does not fit the device.
pub(in crate::sim) fn fix_redundancy(
    ftl: &mut Ftl,
    placement: &mut dyn PlacementPolicy,
    map: &RaidMap,
    geom: &Geometry,
    settled: u32,
) -> Result<(), NoRoom> {
    let host = map.host_pages;
    let first = u64::from(settled).saturating_sub(host);
    let mut set = |ftl: &mut Ftl, lpn: Lpn, token: u64| -> Result<(), NoRoom> {
        if ftl.set_lpn_token(lpn, token) || token == 0 {
            return Ok(());
        }
        let plane = placement.fill_plane(lpn, geom, Some(map));
        match ftl.write_now(lpn, plane, token) {
            Ok(_) => Ok(()),
            Err(_) => Err(NoRoom { plane, lpn }),
        }
    };
    match map.level {
        RaidLevel::Raid1 => {
            for x in first..host {
                let lpn = Lpn(x as u32);
                let token = ftl.lookup(lpn).map(|p| ftl.token(p));
                set(ftl, map.red_lpn(x), token.unwrap_or(0))?;
            }
        }
        RaidLevel::Raid4 | RaidLevel::Raid5 => {
            let layout = &map.layout;
            let (groups, per_row) = (u64::from(layout.groups()), u64::from(layout.data_per_row()));
            let rows = host / per_row;
            // Stripes in parity order (row by row), from the first one not settled, a
            // batch of rows at a time: the batch's XORs read the map on every core, then
            // its parity pages are set in order.
            let batch = (FIX_BATCH_PAGES / per_row).max(1);
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
            let mut row = first / groups;
            while row < rows {
                let end = rows.min(row + batch);
                // Threads only where each has a few thousand pages to read.
                let threads = cores.min(((end - row) * per_row).div_ceil(1 << 14));
                let xors = parity_xors(ftl.lpn_tokens(), layout, row..end, threads);
                for (i, xor) in (row * groups..).zip(xors).skip_while(|&(i, _)| i < first) {
                    debug_assert_eq!(i, layout.parity_index(i / groups, (i % groups) as u32));
                    set(ftl, map.red_lpn(i), xor)?;
                }
                row = end;
            }
        }
        RaidLevel::Raid0 | RaidLevel::None => {}
    }
    Ok(())
}

/// A redundancy page [`fix_redundancy`] found no room for.
#[derive(Clone, Copy, Debug)]
pub(in crate::sim) struct NoRoom {
    plane: PlaneId,
    lpn: Lpn,
}

impl From<NoRoom> for SimError {
    fn from(e: NoRoom) -> SimError {
        SimError::config(
            "ftl.precondition",
            format!(
                "the preconditioned data leaves no room in {} for redundancy page {}; \
                 lower ftl.precondition.fill_ratio or overwrite_ratio",
                e.plane, e.lpn
            ),
        )
    }
}

impl Simulation {
    /// [`fix_redundancy`] of this simulation's device, every stripe (after a trace
    /// warm-up has rewritten the device).
    pub(in crate::sim) fn raid_fix_after_warm_up(&mut self) -> Result<(), SimError> {
        let Some(r) = self.raid.as_ref() else {
            return Ok(());
        };
        Ok(fix_redundancy(
            &mut self.ftl,
            &mut *self.placement,
            &r.map,
            &self.geom,
            0,
        )?)
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
                // choice may have put it off the static way); a new one, or one whose
                // chip died, on the static way (a spare that replaced the member).
                let plane = match parity.map(|p| self.geom.plane_of_page(p)) {
                    Some(own) if !self.plane_dead(own) => own,
                    _ => self.place(PageToPlace::new(plity, xor, Role::Materialize)),
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
                let need = if mplane == plane { 2 } else { 1 };
                if self.ftl.free_pages_in_plane(mplane) < need {
                    // Both copies or neither: a primary without its mirror would leave
                    // the pair unequal (the translation pages of a cached map can take
                    // the mirror plane's last free pages).
                    return false;
                }
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
    /// write is an update of a stripe that holds data (docs/CR5M.md A6). Nothing happens to a
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
            let plane = match self.ftl.lookup(l).map(|p| self.geom.plane_of_page(p)) {
                Some(own) if l == parity && !self.plane_dead(own) => own,
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

#[cfg(test)]
mod tests {
    use super::parity_xors;
    use crate::config::ConfigBuilder;
    use crate::sim::stream::VecStream;
    use crate::sim::Simulation;
    use ssdlab_nand::Lpn;

    /// An LCI RAID-5 array over 8 chips (groups of 4: two stripes per row), prepared
    /// with `fill` and `overwrite`.
    fn prepared(fill: f64, overwrite: f64) -> Simulation {
        let text = "[geometry]\nchannels = 8\nchips_per_channel = 1\ndies_per_chip = 1\n\
                    planes_per_die = 1\nblocks_per_plane = 48\npages_per_block = 8\n\
                    page_size_bytes = 4096\n\
                    [ftl]\nover_provisioning = 0.25\n\
                    [raid]\nlevel = 5\ndomain = \"chip\"\ngroup_size = 4\nlayout = \"lci\"\n";
        let fill = format!("ftl.precondition.fill_ratio={fill}");
        let overwrite = format!("ftl.precondition.overwrite_ratio={overwrite}");
        let cfg = ConfigBuilder::new()
            .text(text, "lci raid-5")
            .unwrap()
            .set("ftl.precondition.enabled=true")
            .unwrap()
            .set(&fill)
            .unwrap()
            .set(&overwrite)
            .unwrap()
            .build()
            .unwrap();
        Simulation::new(cfg, Box::new(VecStream::new(Vec::new())), "t").unwrap()
    }

    #[test]
    fn parity_on_any_number_of_threads_is_each_stripe_s_xor() {
        let sim = prepared(1.0, 0.5);
        assert!(sim.ftl.erase_count_summary().max > 0, "aging ran GC");
        let layout = &sim.raid().map.layout;
        assert_eq!(layout.groups(), 2);
        let rows = sim.raid().map.host_pages / u64::from(layout.data_per_row());
        let mut lpns = Vec::new();
        let mut want = Vec::new();
        for row in 0..rows {
            for group in 0..2 {
                layout.stripe_lpns(row, group, &mut lpns);
                let token = |x: &u64| sim.ftl.lookup(Lpn(*x as u32)).map(|p| sim.ftl.token(p));
                want.push(lpns.iter().fold(0, |acc, x| acc ^ token(x).unwrap()));
            }
        }
        for threads in [1, 2, 3, 64] {
            for range in [0..rows, 5..rows - 3] {
                let got = parity_xors(sim.ftl.lpn_tokens(), layout, range.clone(), threads);
                let part = &want[range.start as usize * 2..range.end as usize * 2];
                assert_eq!(got, part, "{threads} threads, rows {range:?}");
            }
        }
    }

    /// Aged, partly filled or with part of the parity settled by the implicit fill, the
    /// array starts with every stripe's parity its XOR.
    #[test]
    fn a_prepared_array_starts_consistent() {
        for (fill, overwrite) in [(1.0, 0.5), (0.7, 0.3), (0.995, 0.0), (1.0, 0.0)] {
            let sim = prepared(fill, overwrite);
            let r = sim.raid();
            let stripes = r.map.host_pages / u64::from(r.map.layout.data_per_row()) * 2;
            let checked = sim.raid_audit().unwrap();
            assert_eq!(checked, stripes, "fill {fill}, overwrite {overwrite}");
        }
    }
}
