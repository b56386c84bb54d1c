//! The full redundancy check of the audit, and a test hook that breaks parity.

use crate::error::RedundancyError;
use crate::sim::Simulation;
use ssdlab_nand::Lpn;
use ssdlab_raid::RaidLevel;

/// How many rows of stripes ahead the redundancy check asks for the pages' tokens.
const AUDIT_ROWS_AHEAD: u64 = 2;

impl Simulation {
    /// Full redundancy check: every stripe without a job or open buffer has parity
    /// equal to the XOR of its data (under CR5M, of what it covers: the expired versions
    /// of mirrored pages); every mirror equals its primary; CR5M's mirror table agrees
    /// with the pages. Returns the number of stripes or mirrors checked.
    pub(in crate::sim) fn raid_audit(&self) -> Result<u64, RedundancyError> {
        let Some(r) = self.raid.as_ref() else {
            return Ok(0);
        };
        let mut checked = 0;
        match r.map.level {
            RaidLevel::Raid1 => {
                for x in 0..r.map.host_pages {
                    checked += u64::from(self.audit_mirror(x)?);
                }
            }
            RaidLevel::Raid4 | RaidLevel::Raid5 => {
                let groups = u64::from(r.map.layout.groups());
                let per_row = u64::from(r.map.layout.data_per_row());
                let rows = r.map.host_pages / per_row;
                let mut lpns = Vec::new();
                for row in 0..rows {
                    // The stripes lie all over the device: the tokens of a row some rows
                    // ahead are asked for, so that the misses of the pass overlap.
                    let ahead = row + AUDIT_ROWS_AHEAD;
                    if ahead < rows {
                        for x in ahead * per_row..(ahead + 1) * per_row {
                            self.ftl.prefetch_lpn_token(Lpn(x as u32));
                        }
                        for group in 0..groups as u32 {
                            let i = r.map.layout.parity_index(ahead, group);
                            self.ftl.prefetch_lpn_token(r.map.red_lpn(i));
                        }
                    }
                    for group in 0..groups as u32 {
                        checked += u64::from(self.audit_stripe(row, group, &mut lpns)?);
                    }
                }
            }
            RaidLevel::Raid0 | RaidLevel::None => {}
        }
        self.cr5m_audit()?;
        Ok(checked)
    }

    /// The redundancy check of [`Simulation::raid_audit`] for the stripes (or mirror
    /// pairs) that hold one of `lpns` (FTL LPNs, host or redundancy, in order).
    /// Returns the number of stripes or mirrors checked.
    pub(in crate::sim) fn raid_audit_of(&self, lpns: &[u32]) -> Result<u64, RedundancyError> {
        let Some(r) = self.raid.as_ref() else {
            return Ok(0);
        };
        let host = r.map.host_pages;
        let entries = u64::from(self.ftl.map_entries());
        let mut checked = 0;
        match r.map.level {
            RaidLevel::Raid1 => {
                let mut xs: Vec<u64> = (lpns.iter().map(|&l| u64::from(l)))
                    .filter(|&l| l < 2 * host && l < entries)
                    .map(|l| if l < host { l } else { l - host })
                    .collect();
                xs.sort_unstable();
                xs.dedup();
                for x in xs {
                    checked += u64::from(self.audit_mirror(x)?);
                }
            }
            RaidLevel::Raid4 | RaidLevel::Raid5 => {
                let rows = r.map.rows();
                let mut stripes: Vec<(u64, u32)> = (lpns.iter().map(|&l| u64::from(l)))
                    .filter(|&l| {
                        l < entries
                            && (l < host || l - host < rows * u64::from(r.map.layout.groups()))
                    })
                    .map(|l| {
                        let c = r.map.chunk_of(Lpn(l as u32));
                        (c.row, c.group)
                    })
                    .filter(|&(row, _)| row < rows)
                    .collect();
                stripes.sort_unstable();
                stripes.dedup();
                let mut members = Vec::new();
                for (row, group) in stripes {
                    checked += u64::from(self.audit_stripe(row, group, &mut members)?);
                }
            }
            RaidLevel::Raid0 | RaidLevel::None => {}
        }
        Ok(checked)
    }

    /// RAID-1: host LPN `x` equals its mirror (`false`: not checked, a copy is lost: on
    /// a dead chip, or written while its chip was dead and recorded nowhere).
    fn audit_mirror(&self, x: u64) -> Result<bool, RedundancyError> {
        let r = self.raid.as_ref().expect("RAID");
        let m = u64::from(r.map.red_lpn(x).0);
        let lost = |l: u64| self.audit_dead(l) || self.is_redundant_only(Lpn(l as u32));
        if lost(x) || lost(m) {
            return Ok(false);
        }
        let (a, b) = (self.audit_token(x), self.audit_token(m));
        if a != b {
            return Err(RedundancyError::Mirror {
                lpn: x,
                mirror: b,
                primary: a,
            });
        }
        Ok(true)
    }

    /// RAID-4/5: stripe (`row`, `group`) has parity equal to the XOR of its data
    /// (`false`: not checked, a job or buffer has it open or a page is lost). `lpns` is
    /// scratch space.
    fn audit_stripe(
        &self,
        row: u64,
        group: u32,
        lpns: &mut Vec<u64>,
    ) -> Result<bool, RedundancyError> {
        let r = self.raid.as_ref().expect("RAID");
        let i = r.map.layout.parity_index(row, group);
        if r.locks.contains_key(&i)
            || r.buffers.contains_key(&i)
            || r.parked_stripes.contains_key(&i)
        {
            return Ok(false);
        }
        r.map.layout.stripe_lpns(row, group, lpns);
        let lost = |x: u64| self.audit_dead(x) || self.is_redundant_only(Lpn(x as u32));
        let parity = r.map.red_lpn(i);
        let parity_lost = self.audit_dead(u64::from(parity.0))
            || (self.ftl.lookup(parity).is_none()
                && self.plane_dead(r.map.static_plane(&self.geom, parity)));
        if parity_lost || lpns.iter().any(|&x| lost(x)) {
            return Ok(false);
        }
        // Under CR5M the parity covers a mirrored page's expired version.
        let covered = |x: u64| u64::from(self.cr5m_covered(Lpn(x as u32)).0);
        let xor = lpns
            .iter()
            .fold(0, |acc, &x| acc ^ self.audit_token(covered(x)));
        let parity = self.audit_token(u64::from(parity.0));
        RedundancyError::check_parity(row, group, parity, xor)?;
        Ok(true)
    }

    /// The token FTL LPN `lpn` holds (0: unmapped).
    fn audit_token(&self, lpn: u64) -> u64 {
        self.ftl
            .lookup(Lpn(lpn as u32))
            .map_or(0, |p| self.ftl.token(p))
    }

    /// Whether FTL LPN `lpn`'s page is on a dead chip (lost; its redundancy is checked
    /// through reads).
    fn audit_dead(&self, lpn: u64) -> bool {
        self.ftl
            .lookup(Lpn(lpn as u32))
            .is_some_and(|p| self.on_dead_chip(p))
    }

    /// Test hook: flips bits of the parity page of `lpn`'s stripe, so that tests can
    /// show that verify mode catches a reconstruction from broken parity.
    pub fn corrupt_parity_for_test(&mut self, lpn: u32) -> bool {
        let Some(r) = self.raid.as_ref() else {
            return false;
        };
        if !matches!(r.map.level, RaidLevel::Raid4 | RaidLevel::Raid5) {
            return false;
        }
        let c = r.map.layout.locate(u64::from(lpn));
        let Some(p) = self.parity_ppn(c.row, c.group) else {
            return false;
        };
        let t = self.ftl.token(p);
        self.ftl.set_token(p, t ^ 0x5a5a_5a5a);
        true
    }
}
