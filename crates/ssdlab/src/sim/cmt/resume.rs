//! A host read that waited for its translation page goes on as if admitted now: DRAM
//! first (a write may have put a newer version there meanwhile), then, when its page is
//! in a DS-FTL group, the group's record (groups.rs), then the flash read
//! its plans choose, each moving what it would have moved at admission (with
//! `timing.transfer = "sectors"`, only the request's sectors of a partial first or last
//! page).

use crate::sim::host::ReadOutcome;
use crate::sim::Simulation;

impl Simulation {
    /// The translation page of waiting reads arrived: their entries are cached and the
    /// reads go on.
    pub(super) fn map_read_done(&mut self, tpage: u32) {
        let waiters = self
            .cmt
            .as_mut()
            .expect("cached map")
            .reading
            .remove(&tpage)
            .unwrap_or_default();
        for w in &waiters {
            if w.key == w.lpn.0 {
                self.cmt_insert(w.lpn, false);
            } else {
                self.cmt_insert_key(w.key, false);
            }
        }
        for w in waiters {
            if self.dram.is_some() && self.dram_read(w.req, w.lpn) {
                // The host-DRAM transfer of a page served at admission.
                let short = self.dram_short_resumed(w.req, w.lpn);
                self.dram_pages_done(w.req, 1, short);
                continue;
            }
            if w.key == w.lpn.0 && self.cmt_group_wait(w.req, w.lpn, w.token) {
                // Its page is in a group whose record must be read too.
                continue;
            }
            match self.admit_read_mapped(w.req, w.lpn, w.token) {
                ReadOutcome::Txn(t) => {
                    if self.sectors.reads {
                        self.sector_read_resumed(w.req, w.lpn, t);
                    }
                    self.reqs[w.req].flash_txns += 1;
                    self.submit_txns(w.req, &[t]);
                }
                ReadOutcome::Done => self.sub_done(w.req, 0, 0),
                ReadOutcome::Deferred => {}
            }
        }
    }
}
