//! CR5M's invariants: checked for one stripe after every mirror write and parity update
//! in debug builds, and for the whole device by the audit.
//!
//! * I1: a quiescent stripe's parity is the XOR of what it covers (expired versions of
//!   mirrored pages, current versions of the others).
//! * I2: every live mirror copy holds its page's current content, on the mirror chip of
//!   the page's channel.
//! * I3: mirror chips hold only mirror copies; expired versions stay on the data chips
//!   of their page's channel.
//! * I4: the per-channel counts of live copies match the table, and MA matches the
//!   entries.

use crate::error::RedundancyError;
use crate::sim::Simulation;
use ssdlab_ftl::PageOwner;
use ssdlab_nand::{ChannelId, Lpn, Ppn};

impl Simulation {
    /// The content of FTL page `lpn` now: the controller's copy of a write waiting for
    /// space, else its page's token (0 when unmapped).
    fn cr5m_token(&self, lpn: Lpn) -> u64 {
        match self.held_get(lpn) {
            Some(&(_, t)) => t,
            None => self.ftl.lookup(lpn).map_or(0, |p| self.ftl.token(p)),
        }
    }

    /// Debug builds: stripe (row, group), if quiescent and untouched by failures, obeys
    /// I1 and I2.
    pub(in crate::sim) fn debug_check_stripe(&self, row: u64, group: u32) {
        if !cfg!(debug_assertions) || self.dead.any() {
            return;
        }
        let r = self.raid();
        let stripe = r.map.layout.parity_index(row, group);
        if r.locks.contains_key(&stripe)
            || r.buffers.contains_key(&stripe)
            || r.parked_stripes.contains_key(&stripe)
        {
            return;
        }
        if let Err(e) = self.cr5m_check_stripe(row, group) {
            panic!("{e}");
        }
    }

    /// I1 and I2 for stripe (row, group).
    pub(in crate::sim) fn cr5m_check_stripe(
        &self,
        row: u64,
        group: u32,
    ) -> Result<(), RedundancyError> {
        let r = self.raid();
        let plity = r.map.red_lpn(r.map.layout.parity_index(row, group));
        let Some(p) = self.ftl.lookup(plity) else {
            return Ok(());
        };
        let mut xor = 0;
        for pos in 0..r.map.layout.group_size() {
            let Some(x) = r.map.layout.lpn_at(row, group, pos) else {
                continue;
            };
            let lpn = Lpn(x as u32);
            xor ^= self.cr5m_token(self.cr5m_covered(lpn));
            self.cr5m_check_copy(lpn)?;
        }
        RedundancyError::check_parity(row, group, self.ftl.token(p), xor)
    }

    /// I2 for host page `lpn`.
    fn cr5m_check_copy(&self, lpn: Lpn) -> Result<(), RedundancyError> {
        let Some(c) = self.cr5m.as_deref() else {
            return Ok(());
        };
        let Some(k) = c.entry_of(lpn) else {
            return Ok(());
        };
        let e = c.entries[k as usize];
        if !e.mirror_live {
            return Ok(());
        }
        let slot = c.mirror_slot(k);
        let (copy, current) = (self.cr5m_token(slot), self.cr5m_token(lpn));
        if copy != current {
            return Err(RedundancyError::MirrorTable(format!(
                "the copy of LPN {} holds {copy:#x}, its page {current:#x}",
                lpn.0
            )));
        }
        let want = self.cr5m_mirror_chip(e.channel);
        match self.ftl.lookup(slot) {
            Some(m) if self.geom.chip_of_page(m) != want => {
                Err(RedundancyError::MirrorTable(format!(
                    "the copy of LPN {} is on chip {}, not its channel's mirror chip {want}",
                    lpn.0,
                    self.geom.chip_of_page(m)
                )))
            }
            _ => Ok(()),
        }
    }

    /// I2, I3 and I4 over the whole device (I1 is the stripe check of the RAID audit).
    pub(in crate::sim) fn cr5m_audit(&self) -> Result<(), RedundancyError> {
        let Some(c) = self.cr5m.as_deref() else {
            return Ok(());
        };
        let bad = |s: String| Err(RedundancyError::MirrorTable(s));
        let has = |l: Lpn| self.ftl.lookup(l).is_some();
        let channels = self.geom.channels as usize;
        let (mut live, mut claimed) = (vec![0u64; channels], vec![0u64; channels]);
        for (k, e) in c.entries.iter().enumerate() {
            let k = k as u32;
            if !e.live {
                if has(c.mirror_slot(k)) || has(c.eppn_slot(k)) {
                    return bad(format!("free entry {k} still owns a page"));
                }
                continue;
            }
            if c.entry_of(Lpn(e.lpn)) != Some(k) {
                return bad(format!("entry {k} of LPN {} is not its MA", e.lpn));
            }
            if e.mirror_live {
                live[e.channel as usize] += 1;
                claimed[e.channel as usize] += u64::from(e.claimed);
                if !self.dead.any() {
                    self.cr5m_check_copy(Lpn(e.lpn))?;
                }
            }
            let stripe = self
                .raid()
                .map
                .stripe_of(&self.raid().map.layout.locate(u64::from(e.lpn)));
            if e.claimed && !self.raid().locks.contains_key(&stripe) {
                return bad(format!("entry {k} is claimed by no job"));
            }
            if let Some(p) = self.ftl.lookup(c.eppn_slot(k)) {
                let chip = self.geom.chip_of_page(p);
                if self.geom.channel_of_chip(chip) != ChannelId(e.channel)
                    || self.raid().map.is_mirror_chip(&self.geom, chip)
                {
                    return bad(format!(
                        "the expired page of LPN {} is on chip {chip}",
                        e.lpn
                    ));
                }
            }
        }
        if c.ma.len() != c.entries.iter().filter(|e| e.live).count() {
            return bad("MA and the live entries differ in number".into());
        }
        if live != c.live || claimed != c.claimed_live {
            return bad(format!(
                "live copies per channel {:?} (claimed {:?}), counted {:?} ({:?})",
                live, claimed, c.live, c.claimed_live
            ));
        }
        self.cr5m_audit_mirror_chips()
    }

    /// I3 on the mirror chips: every page holding data is a mirror copy.
    fn cr5m_audit_mirror_chips(&self) -> Result<(), RedundancyError> {
        let c = self.cr5m_state();
        let per_chip = self.geom.pages() / self.geom.chips();
        for ch in 0..self.geom.channels {
            let chip = self.cr5m_mirror_chip(ch);
            for p in chip.0 * per_chip..(chip.0 + 1) * per_chip {
                if let PageOwner::Lpn(l) = self.ftl.page_owner(Ppn(p)) {
                    if c.entry_of_mirror_slot(l).is_none() {
                        return Err(RedundancyError::MirrorTable(format!(
                            "mirror chip {chip} holds page {p} of LPN {}",
                            l.0
                        )));
                    }
                }
            }
        }
        Ok(())
    }
}
