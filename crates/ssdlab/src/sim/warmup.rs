//! Aging by the workload itself (`ftl.precondition.warmup = "trace"`): before the
//! measured replay, every write of the trace is applied once, in order, in zero time,
//! after the fill and random overwrites of `[ftl.precondition]`.
//!
//! Each page goes where preconditioning puts it (the static order or the RAID layout)
//! and GC runs instantly in its plane when due, so the device starts with the valid-page
//! distribution the workload leaves: hot pages overwritten, their blocks cheap to
//! collect, cold data untouched. Under RAID-4/5 every stripe a request writes has its
//! parity page rewritten once per request (as a parity update would), under RAID-1 every
//! copy; the redundancy's content is set to the XOR of its stripe at the end, and verify
//! mode's record follows the FTL. The event counters are left as they were: a warm-up is
//! set-up, not part of the run.

use super::Simulation;
use crate::error::SimError;
use ssdlab_ftl::Warmup;
use ssdlab_nand::Lpn;
use ssdlab_raid::RaidLevel;
use ssdlab_trace::{IoRequest, Op, RequestStream};

/// What a warm-up did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WarmUp {
    /// Write requests replayed.
    pub requests: u64,
    /// Pages written (host pages and redundancy pages).
    pub pages: u64,
    /// Pages that found no room even after GC (their plane holds more valid data than
    /// it can): skipped.
    pub unplaced: u64,
}

impl Simulation {
    /// True when the configuration asks for a warm-up that has not been done
    /// ([`Simulation::warm_up`]).
    pub fn needs_warm_up(&self) -> bool {
        self.cfg.ftl.precondition.warmup == Warmup::Trace && !self.warmed_up
    }

    /// Replays the writes of `stream` (the trace the run will replay) in zero time, as
    /// `ftl.precondition.warmup = "trace"` asks; call it once, before the first step.
    ///
    /// # Errors
    /// A trace error, an address beyond capacity with `ftl.address_fold = "error"`, a
    /// warm-up not asked for or asked twice, or one called after the run started
    /// ([`SimError::Config`] naming `ftl.precondition.warmup`), or redundancy that finds
    /// no room.
    pub fn warm_up(&mut self, stream: Box<dyn RequestStream>) -> Result<WarmUp, SimError> {
        let key = "ftl.precondition.warmup";
        if !self.needs_warm_up() || self.primed {
            return Err(SimError::config(
                key,
                "a warm-up runs once, before the run, when ftl.precondition.warmup = \"trace\""
                    .into(),
            ));
        }
        let mut done = WarmUp::default();
        let mut stripes: Vec<u64> = Vec::new();
        for io in stream {
            let io = io?;
            if io.op != Op::Write {
                continue;
            }
            done.requests += 1;
            stripes.clear();
            let first = io.offset_bytes / u64::from(self.geom.page_size_bytes);
            for i in 0..self.pages_of(&io) {
                let lpn = self.warm_lpn(first + i, &io)?;
                let token = self.write_token(lpn, None);
                self.warm_write(lpn, token, &mut done);
                self.warm_redundancy(lpn, &mut stripes, &mut done);
            }
        }
        self.raid_fix_after_warm_up()?;
        self.verify_from_set_up();
        self.warmed_up = true;
        Ok(done)
    }

    /// Pages of request `io`.
    fn pages_of(&self, io: &IoRequest) -> u64 {
        let ps = u64::from(self.geom.page_size_bytes);
        let first = io.offset_bytes / ps;
        let last = (io.offset_bytes + io.size_bytes.max(1) - 1) / ps;
        last - first + 1
    }

    /// Host page `lpn` folded into capacity as admission folds it.
    fn warm_lpn(&self, lpn: u64, io: &IoRequest) -> Result<Lpn, SimError> {
        self.folded_lpn(lpn)
            .ok_or_else(|| SimError::AddressOutOfRange {
                offset_bytes: io.offset_bytes,
                size_bytes: io.size_bytes,
                capacity_bytes: self.logical_pages * u64::from(self.geom.page_size_bytes),
            })
    }

    /// Writes FTL page `lpn` where preconditioning puts it, in zero time.
    fn warm_write(&mut self, lpn: Lpn, token: u64, done: &mut WarmUp) {
        let map = self.raid.as_ref().map(|r| &r.map);
        let plane = self.placement.fill_plane(lpn, &self.geom, map);
        match self.ftl.write_now(lpn, plane, token) {
            Ok(_) => done.pages += 1,
            Err(_) => done.unplaced += 1,
        }
    }

    /// Rewrites the redundancy of host page `lpn`: its stripe's parity once per request
    /// (`stripes` holds the stripes the request wrote so far), or its RAID-1 copy.
    fn warm_redundancy(&mut self, lpn: Lpn, stripes: &mut Vec<u64>, done: &mut WarmUp) {
        let Some(r) = self.raid.as_ref() else { return };
        let red = match r.map.level {
            RaidLevel::Raid1 => r.map.mirror_of(lpn).map(|(m, _)| m),
            RaidLevel::Raid4 | RaidLevel::Raid5 => {
                let stripe = r.map.stripe_of(&r.map.layout.locate(u64::from(lpn.0)));
                if stripes.contains(&stripe) {
                    None
                } else {
                    stripes.push(stripe);
                    Some(r.map.red_lpn(stripe))
                }
            }
            RaidLevel::Raid0 | RaidLevel::None => None,
        };
        if let Some(m) = red {
            // The content is set from the data at the end.
            self.warm_write(m, 0, done);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::config::ConfigBuilder;
    use crate::sim::stream::VecStream;
    use crate::sim::Simulation;
    use ssdlab_trace::{IoRequest, Op};

    fn writes(lpns: &[u64]) -> Vec<IoRequest> {
        lpns.iter()
            .enumerate()
            .map(|(i, &l)| IoRequest {
                arrival_ns: i as u64 * 500_000,
                op: Op::Write,
                fua: false,
                offset_bytes: l * 4096,
                size_bytes: 8192,
                content: None,
                stream: None,
            })
            .collect()
    }

    fn sim(warmup: bool, reqs: Vec<IoRequest>) -> Simulation {
        let text = "[geometry]\nchannels = 4\nchips_per_channel = 2\ndies_per_chip = 1\n\
                    planes_per_die = 2\nblocks_per_plane = 32\npages_per_block = 16\n\
                    [ftl.precondition]\nenabled = true\noverwrite_ratio = 0.0\n\
                    [raid]\nlevel = 5\ngroup_size = 4\n";
        let mut b = ConfigBuilder::new().text(text, "warm-up").unwrap();
        b = b.set("verify=true").unwrap();
        if warmup {
            b = b.set("ftl.precondition.warmup=\"trace\"").unwrap();
        }
        Simulation::new(b.build().unwrap(), Box::new(VecStream::new(reqs)), "-").unwrap()
    }

    #[test]
    fn a_warm_up_ages_the_device_with_the_trace_and_leaves_it_consistent() {
        // Hot pages written over and over: the warm-up leaves invalid pages behind them.
        let hot: Vec<u64> = (0..4_000).map(|i| (i * 7) % 64).collect();
        let mut s = sim(true, writes(&hot));
        assert!(s.needs_warm_up());
        let invalid_before = s.ftl.device_state().invalid_pages;
        let w = s.warm_up(Box::new(VecStream::new(writes(&hot)))).unwrap();
        assert_eq!((w.requests, w.unplaced), (4_000, 0));
        assert!(w.pages >= 8_000, "two pages and parity per request: {w:?}");
        assert!(s.ftl.device_state().invalid_pages > invalid_before);
        assert_eq!(s.ftl.counters().erases, 0, "set-up work is not counted");
        assert!(!s.needs_warm_up());
        s.audit().unwrap();
        s.run_to_end().unwrap();
        s.check_invariants();
        s.audit().unwrap();
        let again = s.warm_up(Box::new(VecStream::new(Vec::new())));
        assert!(again
            .unwrap_err()
            .to_string()
            .contains("ftl.precondition.warmup"));
    }

    #[test]
    fn a_run_that_asks_for_a_warm_up_does_not_start_without_it() {
        let mut s = sim(true, writes(&[1, 2]));
        let e = s.run_to_end().unwrap_err().to_string();
        assert!(e.contains("ftl.precondition.warmup"), "{e}");
        let mut s = sim(false, writes(&[1, 2]));
        assert!(!s.needs_warm_up());
        assert!(s.warm_up(Box::new(VecStream::new(Vec::new()))).is_err());
        s.run_to_end().unwrap();
    }
}
