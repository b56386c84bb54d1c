//! Verify mode: the token every logical page must hold, and the check of every host read
//! against it. Present only with `verify = true`; the request path reaches it through
//! [`Simulation::note_written`], [`Simulation::expected`] and [`Simulation::check_token`].
//!
//! What a page must hold is the token last written to it in the run or, for a page the
//! run has not written, the token it held at set-up. The run's tokens are kept in chunks
//! of [`CHUNK`] LPNs, allocated when the run first writes one of their pages; the set-up
//! tokens are a [`Snapshot`] of the FTL taken once set-up is over (preconditioning,
//! redundancy, warm-up), which costs no copy. So verify mode's memory follows the pages
//! the run writes, and its set-up does not walk the device.

use super::Simulation;
use crate::error::SimError;
use ssdlab_ftl::Snapshot;
use ssdlab_nand::Lpn;

/// LPNs per chunk of the run's tokens (4 KiB of tokens).
const CHUNK: usize = 512;

/// The run's tokens of [`CHUNK`] consecutive LPNs, with which of them it wrote and
/// which of them a trim cleared of their set-up data.
struct Chunk {
    tokens: [u64; CHUNK],
    written: [u64; CHUNK / 64],
    /// Trimmed since set-up: without a later write, the page holds nothing.
    trimmed: [u64; CHUNK / 64],
}

/// The token each logical page must hold.
pub(crate) struct Verifier {
    /// The run's writes, by chunk of LPNs (`None`: none written).
    chunks: Vec<Option<Box<Chunk>>>,
    /// The data at set-up, if the device held any.
    set_up: Option<Snapshot>,
    /// Logical pages.
    pages: u32,
}

impl Verifier {
    /// Expected tokens for `pages` logical pages of a device that holds no data yet.
    pub fn new(pages: u32) -> Self {
        Verifier {
            chunks: (0..(pages as usize).div_ceil(CHUNK))
                .map(|_| None)
                .collect(),
            set_up: None,
            pages,
        }
    }

    /// Expected tokens for a device whose data at set-up is `set_up` (what the run wrote
    /// so far is in it).
    pub fn over(pages: u32, set_up: Snapshot) -> Self {
        debug_assert!(set_up.map_entries() >= pages);
        Verifier {
            set_up: Some(set_up),
            ..Verifier::new(pages)
        }
    }

    /// The token last written to `lpn` in the run, if the run wrote it.
    #[inline]
    fn run_token(&self, lpn: Lpn) -> Option<u64> {
        let c = self.chunks[lpn.idx() / CHUNK].as_deref()?;
        let i = lpn.idx() % CHUNK;
        (c.written[i / 64] >> (i % 64) & 1 == 1).then(|| c.tokens[i])
    }

    /// The LPNs the run wrote, in order.
    pub fn run_lpns(&self) -> impl Iterator<Item = u32> + '_ {
        self.lpns_where(|c, i| c.written[i / 64] >> (i % 64) & 1 == 1)
    }

    /// The LPNs of the allocated chunks whose page `i` of chunk `c` passes `keep`, in
    /// order.
    fn lpns_where(
        &self,
        keep: impl Fn(&Chunk, usize) -> bool + Copy + 'static,
    ) -> impl Iterator<Item = u32> + '_ {
        let chunks = self.chunks.iter().enumerate();
        chunks
            .filter_map(|(k, c)| Some((k, c.as_deref()?)))
            .flat_map(move |(k, c)| {
                (0..CHUNK)
                    .filter(move |&i| keep(c, i))
                    .map(move |i| (k * CHUNK + i) as u32)
            })
    }

    /// The token `lpn` must hold, if it must hold data (`None` beyond the host pages,
    /// and for a page trimmed and not written since).
    #[inline]
    pub fn must_hold(&self, lpn: Lpn) -> Option<u64> {
        if lpn.0 >= self.pages {
            return None;
        }
        self.run_token(lpn).or_else(|| {
            if self.is_trimmed(lpn) {
                return None;
            }
            self.set_up.as_ref().and_then(|s| s.token(lpn))
        })
    }

    /// Whether a trim cleared `lpn` and no write has been noted since.
    #[inline]
    pub fn is_trimmed(&self, lpn: Lpn) -> bool {
        let Some(c) = self.chunks[lpn.idx() / CHUNK].as_deref() else {
            return false;
        };
        let i = lpn.idx() % CHUNK;
        let bit = 1 << (i % 64);
        c.trimmed[i / 64] & bit != 0 && c.written[i / 64] & bit == 0
    }

    /// A trim of `lpn`: the page holds nothing until it is written again (a read of it
    /// must return what a read of a never-written page returns).
    pub fn trim(&mut self, lpn: Lpn) {
        let c = self.chunk_mut(lpn);
        let i = lpn.idx() % CHUNK;
        c.written[i / 64] &= !(1 << (i % 64));
        c.trimmed[i / 64] |= 1 << (i % 64);
    }

    fn chunk_mut(&mut self, lpn: Lpn) -> &mut Chunk {
        self.chunks[lpn.idx() / CHUNK].get_or_insert_with(|| {
            Box::new(Chunk {
                tokens: [0; CHUNK],
                written: [0; CHUNK / 64],
                trimmed: [0; CHUNK / 64],
            })
        })
    }

    /// The token `lpn` must hold (0: none).
    #[inline]
    pub fn expected(&self, lpn: Lpn) -> u64 {
        self.must_hold(lpn).unwrap_or(0)
    }

    /// The run wrote `token` to `lpn`.
    #[inline]
    pub fn note(&mut self, lpn: Lpn, token: u64) {
        let c = self.chunk_mut(lpn);
        let i = lpn.idx() % CHUNK;
        c.tokens[i] = token;
        c.written[i / 64] |= 1 << (i % 64);
    }

    /// The run's write of `lpn` never happened (a power loss lost it, and flash holds
    /// no version): the page holds what it held at set-up, if anything (nothing, if a
    /// trim cleared it before).
    pub fn forget(&mut self, lpn: Lpn) {
        if let Some(c) = self.chunks[lpn.idx() / CHUNK].as_deref_mut() {
            let i = lpn.idx() % CHUNK;
            c.written[i / 64] &= !(1 << (i % 64));
        }
    }

    /// The pages a trim left holding nothing (not written since), in order.
    pub fn trimmed_lpns(&self) -> impl Iterator<Item = Lpn> + '_ {
        self.lpns_where(|c, i| {
            let bit = 1 << (i % 64);
            c.trimmed[i / 64] & bit != 0 && c.written[i / 64] & bit == 0
        })
        .map(Lpn)
    }

    /// Every page that must hold data, with its token, in LPN order.
    pub fn written(&self) -> impl Iterator<Item = (Lpn, u64)> + '_ {
        self.chunks
            .iter()
            .enumerate()
            .filter(|(_, c)| c.is_some() || self.set_up.is_some())
            // A chunk of trimmed pages only holds nothing that must be checked, and
            // `must_hold` says so page by page.
            .flat_map(move |(k, _)| {
                let first = (k * CHUNK) as u32;
                let end = first.saturating_add(CHUNK as u32).min(self.pages);
                (first..end).filter_map(|l| self.must_hold(Lpn(l)).map(|t| (Lpn(l), t)))
            })
    }
}

impl Simulation {
    /// Host page `lpn` now holds `token` (verify mode keeps it; otherwise nothing).
    /// Without verify mode this is one test at the caller.
    #[inline(always)]
    pub(in crate::sim) fn note_written(&mut self, lpn: Lpn, token: u64) {
        if self.verify.is_some() {
            self.note_written_verified(lpn, token);
        }
    }

    /// [`Simulation::note_written`] in verify mode.
    #[inline(never)]
    fn note_written_verified(&mut self, lpn: Lpn, token: u64) {
        // While DRAM holds a version not yet programmed, that version is the page's
        // newest: a program or a zero-time write of an older one changes nothing.
        if self
            .dram
            .as_ref()
            .is_some_and(|d| d.stage.peek_dirty(lpn).is_some())
        {
            return;
        }
        if let Some(v) = self.verify.as_mut() {
            v.note(lpn, token);
        }
    }

    /// The DRAM stage acknowledged a write of `lpn` with `token`: the page's newest.
    pub(in crate::sim) fn note_acknowledged(&mut self, lpn: Lpn, token: u64) {
        if let Some(v) = self.verify.as_mut() {
            v.note(lpn, token);
        }
    }

    /// A read of `lpn` found it unmapped, with nothing of it in the controller (verify
    /// mode): the page must hold no data, which is what a read of it returns (zeros, or
    /// materialized content). A page the run wrote, or set-up data not trimmed since, is
    /// a mismatch (expected its token, found 0).
    #[cold]
    pub(in crate::sim) fn verify_unmapped(&mut self, lpn: Lpn) {
        let Some(v) = self.verify.as_ref() else {
            return;
        };
        match v.must_hold(lpn) {
            Some(expected) => self.check_token(lpn, expected, 0),
            None if v.is_trimmed(lpn) => self.counters.verified_trimmed_reads += 1,
            None => {}
        }
    }

    /// The token a read of `lpn` must return (verify mode; else 0).
    #[inline]
    pub(in crate::sim) fn expected(&self, lpn: Lpn) -> u64 {
        self.verify.as_ref().map_or(0, |v| v.expected(lpn))
    }

    /// Compares a read's token with the one last written; a mismatch stops the run.
    pub(in crate::sim) fn check_token(&mut self, lpn: Lpn, expected: u64, found: u64) {
        self.counters.verified_reads += 1;
        if expected != found && self.error.is_none() {
            self.error = Some(SimError::VerifyMismatch {
                lpn: lpn.0,
                expected,
                found,
                at_ns: self.now().as_ns(),
            });
        }
    }

    /// Set-up is over (the device preconditioned or warmed up): what every page must
    /// hold from now on is what the FTL holds now, plus what the run writes. Takes a
    /// snapshot of the FTL, not a copy.
    pub(in crate::sim) fn verify_from_set_up(&mut self) {
        if self.verify.is_some() {
            let pages = self.logical_pages as u32;
            self.verify = Some(Verifier::over(pages, self.ftl.snapshot()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ConfigBuilder;
    use crate::SimConfig;
    use crate::VecStream;
    use ssdlab_trace::{IoRequest, Op};

    /// A verified run on a small preconditioned device (`overwrite` of it rewritten
    /// after the fill) that reads `reads`, one page each.
    fn preconditioned(overwrite: f64, reads: &[u32]) -> Simulation {
        let ops: Vec<_> = reads.iter().map(|&l| (Op::Read, l)).collect();
        small(overwrite, "", "", &ops)
    }

    /// A verified run on a small preconditioned device (`overwrite` of it rewritten
    /// after the fill; `ftl`: further lines of its `[ftl]` table, `more`: further
    /// tables) of one-page requests `ops`.
    fn small(overwrite: f64, ftl: &str, more: &str, ops: &[(Op, u32)]) -> Simulation {
        let reqs: Vec<IoRequest> = ops
            .iter()
            .enumerate()
            .map(|(i, &(op, l))| IoRequest {
                arrival_ns: i as u64 * 100_000,
                op,
                fua: false,
                offset_bytes: u64::from(l) * 4096,
                size_bytes: 4096,
                content: None,
                stream: None,
            })
            .collect();
        small_run(overwrite, ftl, more, reqs)
    }

    /// [`small`] with requests `reqs`.
    fn small_run(overwrite: f64, ftl: &str, more: &str, reqs: Vec<IoRequest>) -> Simulation {
        let cfg = small_config(overwrite, ftl, more, &[]);
        Simulation::new(cfg, Box::new(VecStream::new(reqs)), "-").unwrap()
    }

    /// The configuration of [`small_run`], with the overrides `sets` on top.
    fn small_config(overwrite: f64, ftl: &str, more: &str, sets: &[&str]) -> SimConfig {
        let text = format!(
            "verify = true\n[geometry]\nchannels = 2\nchips_per_channel = 2\n\
             dies_per_chip = 1\nplanes_per_die = 2\nblocks_per_plane = 32\n\
             pages_per_block = 16\n[ftl]\nover_provisioning = 0.25\n{ftl}\
             [ftl.precondition]\nenabled = true\noverwrite_ratio = {overwrite}\n{more}"
        );
        let mut b = ConfigBuilder::new().text(&text, "small").unwrap();
        for s in sets {
            b = b.set(s).unwrap();
        }
        b.build().unwrap()
    }

    /// `n` one-page requests scattered over the first `span` LPNs, every fourth a read.
    fn scattered(n: u32, span: u32) -> Vec<(Op, u32)> {
        (0..n)
            .map(|i| {
                let l = i.wrapping_mul(2_654_435_761) % span;
                (if i % 4 == 3 { Op::Read } else { Op::Write }, l)
            })
            .collect()
    }

    /// Flips a bit of the token on `lpn`'s page, as a device that lost data would.
    fn corrupt(sim: &mut Simulation, lpn: u32) {
        let ppn = sim.ftl.lookup(Lpn(lpn)).expect("preconditioned");
        let t = sim.ftl.token(ppn);
        sim.ftl.set_token(ppn, t ^ 1);
    }

    /// The set-up data is a snapshot, not the FTL's live tables: a preconditioned page
    /// that changes after set-up is caught by a read of it and, unread, by the audit;
    /// a clean run audits every preconditioned page.
    #[test]
    fn preconditioned_data_changed_after_set_up_is_caught() {
        for overwrite in [0.0, 0.5] {
            let mut sim = preconditioned(overwrite, &[3, 10]);
            corrupt(&mut sim, 3);
            match sim.run_to_end() {
                Err(SimError::VerifyMismatch { lpn: 3, .. }) => {}
                other => panic!("overwrite {overwrite}: {other:?}"),
            }

            let mut sim = preconditioned(overwrite, &[10]);
            corrupt(&mut sim, 7);
            sim.run_to_end().unwrap();
            match sim.audit() {
                Err(SimError::VerifyMismatch { lpn: 7, .. }) => {}
                other => panic!("overwrite {overwrite}: {other:?}"),
            }

            let mut sim = preconditioned(overwrite, &[10, 11]);
            let held = (0..sim.logical_pages as u32)
                .filter(|&l| sim.ftl.lookup(Lpn(l)).is_some())
                .count() as u64;
            assert!(held > 0);
            sim.run_to_end().unwrap();
            assert_eq!(sim.audit().unwrap(), held, "overwrite {overwrite}");
            assert_eq!(sim.counters.verified_reads, 2);
        }
    }

    /// The audit of the changes finds whatever the full audit finds after a run that
    /// writes, collects garbage and updates parity: a token changed on any page holding
    /// data, the run's or set-up's, moved by GC or not, and a broken parity page; and it
    /// passes a clean run, checking fewer pages than the full audit.
    #[test]
    fn the_audit_of_changes_finds_what_the_full_audit_finds() {
        // Rewrites of a quarter of the device, scattered, with reads between.
        let ops = scattered(400, 1_400);
        let raid5 = "[raid]\nlevel = 5\ngroup_size = 4\n";
        for (overwrite, more) in [(0.0, ""), (0.5, ""), (0.5, raid5), (0.0, raid5)] {
            let case = format!("overwrite {overwrite} {more:?}");
            let run = || {
                let mut sim = small(overwrite, "", more, &ops);
                sim.run_to_end().unwrap();
                sim
            };
            let sim = run();
            assert!(sim.counters.verified_reads > 0, "{case}");
            if overwrite > 0.0 {
                assert!(
                    sim.ftl.counters().gc_pages_moved > 0,
                    "{case}: GC moved pages"
                );
            }
            let (full, changes) = (sim.audit().unwrap(), sim.audit_changes().unwrap());
            assert!(changes > 0 && changes < full, "{case}: {changes} of {full}");
            let held: Vec<u32> = (0..sim.logical_pages as u32)
                .filter(|&l| sim.ftl.lookup(Lpn(l)).is_some())
                .collect();
            for &lpn in held.iter().step_by(37) {
                let mut sim = run();
                corrupt(&mut sim, lpn);
                for audit in [Simulation::audit, Simulation::audit_changes] {
                    match audit(&sim) {
                        Err(SimError::VerifyMismatch { lpn: l, .. }) if l == lpn => {}
                        other => panic!("{case}, LPN {lpn}: {other:?}"),
                    }
                }
            }
            if !more.is_empty() {
                for lpn in [0, 700, 1_399] {
                    let mut sim = run();
                    assert!(sim.corrupt_parity_for_test(lpn));
                    assert!(sim.audit().is_err(), "{case}, parity of {lpn}");
                    assert!(sim.audit_changes().is_err(), "{case}, parity of {lpn}");
                }
            }
        }
    }

    /// `n` requests of 1 to `max_pages` pages at LPNs below 2 900, one every `gap_ns`,
    /// a quarter of them reads, drawn from a fixed generator per `seed`.
    fn random_requests(seed: u64, n: u64, gap_ns: u64, max_pages: u32) -> Vec<IoRequest> {
        const A: u64 = 6_364_136_223_846_793_005;
        const C: u64 = 1_442_695_040_888_963_407;
        let mut x = seed.wrapping_mul(A).wrapping_add(C);
        (0..n)
            .map(|i| {
                x = x.wrapping_mul(A).wrapping_add(C);
                let r = x >> 33;
                let pages = 1 + r % u64::from(max_pages);
                IoRequest {
                    arrival_ns: i * gap_ns,
                    op: if (r >> 20).is_multiple_of(4) {
                        Op::Read
                    } else {
                        Op::Write
                    },
                    fua: false,
                    offset_bytes: ((r >> 6) % 2_900) * 4096,
                    size_bytes: pages * 4096,
                    content: None,
                    stream: None,
                }
            })
            .collect()
    }

    /// Runs `sim` to its end and checks that nothing was left waiting and every page
    /// holds what was last written.
    fn finishes_verified(mut sim: Simulation) -> Simulation {
        sim.run_to_end().unwrap();
        assert!(sim.held.is_empty(), "{} writes left parked", sim.held.len());
        sim.audit().unwrap();
        sim
    }

    /// A run stopped with writes still parked is reported stuck by both audits and by
    /// the report, not as a mismatch of the pages those writes never reached.
    #[test]
    fn a_stuck_run_is_reported_stuck_not_as_a_mismatch() {
        let dynamic = "allocation = \"dynamic\"\n";
        let mut sim = small(0.5, dynamic, "", &scattered(860, 2_000));
        while sim.held.is_empty() {
            assert!(sim.step().unwrap(), "the run parks a write");
        }
        for audit in [Simulation::audit, Simulation::audit_changes] {
            assert!(matches!(audit(&sim), Err(SimError::Stuck { .. })));
        }
        assert!(matches!(sim.into_report(), Err(SimError::Stuck { .. })));
    }

    #[test]
    fn writes_parked_on_a_plane_full_of_valid_data_move_to_another() {
        // Dynamic allocation piles more than its share of the data on one plane: its GC
        // finds no victim, and the writes it parked wait until placed elsewhere.
        let dynamic = "allocation = \"dynamic\"\n";
        let sim = finishes_verified(small(0.5, dynamic, "", &scattered(860, 2_000)));
        assert!(sim.counters.gc_starved > 0 && sim.counters.parked_moved > 0);
    }

    #[test]
    fn binding_at_dispatch_moves_writes_off_a_starved_plane() {
        let bind = "[placement]\nbind = \"dispatch\"\n";
        let reqs = random_requests(1, 1_500, 1_000, 32);
        let sim = finishes_verified(small_run(0.0, "", bind, reqs));
        assert!(sim.counters.gc_starved > 0 && sim.counters.parked_moved > 0);
    }

    #[test]
    fn under_sda_writes_parked_on_a_starved_plane_move_within_their_channel() {
        // CR5M on planes of 16 blocks: a data plane's invalid pages can all sit in its
        // open blocks, so that its GC has no victim. SDA fixes only a page's channel: the
        // data pages (first case) and parity pages (second) parked there take another
        // plane of the channel's data chip.
        let cr5m = "[host]\nmode = \"closed\"\nqueue_depth = 8\n[raid]\nlevel = 5\n\
                    domain = \"channel\"\ngroup_size = 2\nchip_in_channel = \"sda\"\n\
                    buffer_new_writes = false\nmirror_chips = true\nmirror_write = true\n";
        for (overwrite, dies, seed, n) in [(0.0, 1, 1, 1_000), (0.3, 2, 48, 848)] {
            let dies = format!("geometry.dies_per_chip={dies}");
            let cfg = small_config(
                overwrite,
                "",
                cr5m,
                &["geometry.blocks_per_plane=16", &dies],
            );
            let reqs = random_requests(seed, n, 1_000, 32);
            let sim = Simulation::new(cfg, Box::new(VecStream::new(reqs)), "-").unwrap();
            let sim = finishes_verified(sim);
            assert!(sim.counters.gc_starved > 0 && sim.counters.parked_moved > 0);
        }
    }

    #[test]
    fn an_admission_inside_an_admission_keeps_its_pages_done() {
        // CR5M losing channel 1's data chip: that channel's pages become degraded writes,
        // done at admission without a transaction. A GC check at the end of the
        // admission dropped a superseded parked write, which finished another request and
        // admitted the next one inside this admission; that admission zeroed this one's
        // count of pages done, and the request waited for them for ever.
        let cr5m = "[raid]\nlevel = 5\ndomain = \"channel\"\ngroup_size = 2\n\
                    chip_in_channel = \"sda\"\nbuffer_new_writes = false\n\
                    mirror_chips = true\nmirror_write = true\nfail = [\"chip:1@3ms\"]\n";
        let small_planes = ["geometry.blocks_per_plane=16", "geometry.dies_per_chip=2"];
        let cfg = small_config(0.2, "", cr5m, &small_planes);
        let reqs = random_requests(0, 600, 1_000, 32);
        let sim = Simulation::new(cfg, Box::new(VecStream::new(reqs)), "-").unwrap();
        let sim = finishes_verified(sim);
        assert_eq!(sim.outstanding, 0);
        assert!(sim.counters.parked_moved > 0);
    }

    #[test]
    fn a_victim_pinned_by_a_waiting_stripe_job_is_read_early() {
        // Large writes at short gaps queue stripe jobs behind each other; a victim held
        // by a waiting job's pin must not wait for that job's lock.
        let raid = "[raid]\nlevel = 5\ndomain = \"chip\"\ngroup_size = 4\n";
        let reqs = random_requests(1, 1_500, 20_000, 32);
        let sim = finishes_verified(small_run(0.2, "", raid, reqs));
        assert!(sim.raid.as_ref().unwrap().counters.early_reads > 0);
    }

    #[test]
    fn the_run_s_writes_are_kept_by_chunk_and_the_rest_is_unwritten() {
        let mut v = Verifier::new(2 * CHUNK as u32 + 7);
        assert_eq!(v.chunks.len(), 3);
        assert_eq!(v.expected(Lpn(5)), 0);
        assert_eq!(v.written().count(), 0);
        v.note(Lpn(5), 11);
        v.note(Lpn(2 * CHUNK as u32 + 6), 0); // a zero token is data too
        v.note(Lpn(5), 12);
        assert_eq!(v.expected(Lpn(5)), 12);
        assert_eq!(v.expected(Lpn(6)), 0);
        assert_eq!(
            v.written().collect::<Vec<_>>(),
            vec![(Lpn(5), 12), (Lpn(2 * CHUNK as u32 + 6), 0)]
        );
        assert_eq!(v.chunks.iter().filter(|c| c.is_some()).count(), 2);
    }
}
