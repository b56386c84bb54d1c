//! A stand-in controller: drives an [`Ftl`] the way the event-driven controller does
//! (host writes with outstanding programs, pinned reads, per-plane GC as read → program →
//! erase steps), keeps the expected token of every LPN, and checks the FTL after each step.

use ssdlab_engine::SimRng;
use ssdlab_ftl::{token_for, ContentIndexConfig, Ftl, FtlConfig, StripeMap};
use ssdlab_nand::{BlockId, Geometry, Lpn, PlaneId, Ppn};

/// One step of the workload.
#[derive(Clone, Debug)]
pub enum Op {
    /// Host write of an LPN (index taken modulo the LPN space).
    Write(u32),
    /// Trim of an LPN.
    Trim(u32),
    /// Completion of one outstanding host program (index modulo their number).
    Complete(usize),
    /// Host read: look up, check the token, pin.
    Read(u32),
    /// Completion of one pinned read (index modulo their number).
    Unpin(usize),
    /// One step of the GC of a plane (modulo the planes); the number steers the choice
    /// between beginning and finishing a move.
    Gc(u32, usize),
    /// Give a plane's victim back (only done before a move out of it began).
    Abandon(u32),
}

/// One plane's GC in progress.
#[derive(Debug)]
struct GcRun {
    victim: BlockId,
    todo: Vec<(Ppn, Lpn)>,
    /// Whether a move out of the victim began (it may no longer be abandoned).
    moved: bool,
}

/// The controller stand-in.
pub struct Driver {
    pub ftl: Ftl,
    /// The plane of each LPN's writes.
    place: Box<dyn Fn(Lpn) -> PlaneId>,
    lpns: u32,
    /// Token last written to each LPN (None: never written or trimmed).
    pub expected: Vec<Option<u64>>,
    version: u32,
    programs: Vec<Ppn>,
    reads: Vec<(Ppn, u64)>,
    gc: Vec<Option<GcRun>>,
    /// Moves begun and not finished, of any plane (they may outlive their GC run: a
    /// victim whose last valid page was overwritten is erasable once no move is in flight).
    moves: Vec<(Ppn, Ppn)>,
    pub moves_begun: u64,
    /// Distinct contents writes draw from (0: every write unique).
    contents: u32,
    /// Erases before the driver began (preconditioning).
    erases_before: u64,
}

impl Driver {
    /// A driver over `lpns` LPNs placed by `cfg.static_order`.
    pub fn new(cfg: &FtlConfig, geom: &Geometry, lpns: u32, seed: u64) -> Driver {
        let ftl = Ftl::new(cfg, geom, lpns, SimRng::new(seed)).expect("valid test config");
        Driver {
            ftl,
            place: {
                let m: StripeMap = cfg.static_order.stripe_map(geom);
                Box::new(move |l| m.plane_of(l))
            },
            lpns,
            expected: vec![None; lpns as usize],
            version: 0,
            programs: Vec::new(),
            reads: Vec::new(),
            gc: (0..geom.planes()).map(|_| None).collect(),
            moves: Vec::new(),
            moves_begun: 0,
            contents: 0,
            erases_before: 0,
        }
    }

    /// A driver over `ftl` as it stands (e.g. preconditioned), writing with versions
    /// after `version` and placing by `place`: every mapped LPN is expected to keep the
    /// token it holds now.
    pub fn on(ftl: Ftl, place: Box<dyn Fn(Lpn) -> PlaneId>, version: u32) -> Driver {
        let lpns = ftl.map_entries();
        let planes = ftl.geometry().planes();
        let erases_before = (0..ftl.geometry().blocks())
            .map(|b| u64::from(ftl.erase_count(BlockId(b))))
            .sum();
        let expected = (0..lpns)
            .map(|l| ftl.lookup(Lpn(l)).map(|p| ftl.token(p)))
            .collect();
        Driver {
            ftl,
            place,
            lpns,
            expected,
            version,
            programs: Vec::new(),
            reads: Vec::new(),
            gc: (0..planes).map(|_| None).collect(),
            moves: Vec::new(),
            moves_begun: 0,
            contents: 0,
            erases_before,
        }
    }

    /// The same driver with a content index, whose writes draw their content from
    /// `contents` distinct tokens (so that pages share content).
    pub fn with_content(mut self, cfg: &ContentIndexConfig, contents: u32) -> Driver {
        self.ftl.enable_content_index(cfg);
        self.contents = contents;
        self
    }

    /// Applies one step, then checks every invariant.
    pub fn apply(&mut self, op: &Op) {
        let planes = self.ftl.geometry().planes();
        match *op {
            Op::Write(l) => self.write(Lpn(l % self.lpns)),
            Op::Trim(l) => {
                let lpn = Lpn(l % self.lpns);
                self.ftl.trim(lpn);
                self.expected[lpn.idx()] = None;
            }
            Op::Complete(i) if !self.programs.is_empty() => {
                let ppn = self.programs.swap_remove(i % self.programs.len());
                self.ftl.program_done(ppn);
            }
            Op::Read(l) => self.read(Lpn(l % self.lpns)),
            Op::Unpin(i) if !self.reads.is_empty() => {
                let (ppn, token) = self.reads.swap_remove(i % self.reads.len());
                self.unpin(ppn, token);
            }
            Op::Gc(p, k) => {
                self.gc_step(PlaneId(p % planes), k);
            }
            Op::Abandon(p) => {
                let p = (p % planes) as usize;
                if self.gc[p].as_ref().is_some_and(|run| !run.moved) {
                    let run = self.gc[p].take().unwrap();
                    self.ftl.gc_abandon(run.victim);
                }
            }
            Op::Complete(_) | Op::Unpin(_) => {}
        }
        self.ftl.check_invariants();
    }

    fn write(&mut self, lpn: Lpn) {
        self.version += 1;
        let token = match self.contents {
            0 => token_for(lpn, self.version),
            n => 1 + u64::from(self.version.wrapping_mul(2_654_435_761) % n),
        };
        let plane = (self.place)(lpn);
        for _ in 0..4 * self.ftl.geometry().blocks_per_plane {
            match self.ftl.host_write(lpn, plane, token) {
                Ok(ppn) => {
                    assert_eq!(self.ftl.lookup(lpn), Some(ppn));
                    self.programs.push(ppn);
                    self.expected[lpn.idx()] = Some(token);
                    return;
                }
                Err(e) => {
                    assert_eq!(e.plane, plane);
                    assert!(self.ftl.gc_needed(plane) || self.gc[plane.idx()].is_some());
                    self.make_room(plane);
                }
            }
        }
        panic!("plane {plane} never found room for lpn {lpn}");
    }

    /// What the controller does while a write is parked: completions arrive and the
    /// plane's GC runs to its erase.
    fn make_room(&mut self, plane: PlaneId) {
        self.drain_programs_and_reads();
        while !self.moves.is_empty() {
            self.finish_one_move(0);
        }
        if self.gc[plane.idx()].is_none() {
            let started = self.start_gc(plane);
            assert!(
                started,
                "plane {plane} is out of space but has no GC victim"
            );
        }
        let mut k = 0;
        while self.gc[plane.idx()].is_some() {
            self.gc_step(plane, k);
            self.ftl.check_invariants();
            k += 1;
            assert!(k < 10_000, "the GC of plane {plane} makes no progress");
        }
    }

    fn read(&mut self, lpn: Lpn) {
        let Some(ppn) = self.ftl.lookup(lpn) else {
            assert_eq!(self.expected[lpn.idx()], None, "lpn {lpn} lost");
            return;
        };
        let token = self.ftl.token(ppn);
        assert_eq!(
            Some(token),
            self.expected[lpn.idx()],
            "lpn {lpn} at {ppn}: stale token"
        );
        self.ftl.pin(ppn);
        self.reads.push((ppn, token));
    }

    fn unpin(&mut self, ppn: Ppn, token: u64) {
        assert_eq!(
            self.ftl.token(ppn),
            token,
            "page {ppn} changed under a pinned read"
        );
        self.ftl.unpin(ppn);
    }

    fn start_gc(&mut self, plane: PlaneId) -> bool {
        let Some(victim) = self.ftl.select_victim(plane) else {
            return false;
        };
        let mut todo = Vec::new();
        self.ftl.victim_valid_pages(victim, &mut todo);
        todo.reverse(); // pop from the back in page order
        self.gc[plane.idx()] = Some(GcRun {
            victim,
            todo,
            moved: false,
        });
        true
    }

    /// One GC step in `plane`: start a GC if one is due; else erase the victim if it is
    /// erasable (even with moves in flight or pages listed but not yet moved, which are
    /// then invalid); else begin a move of the victim or finish any move in flight.
    pub fn gc_step(&mut self, plane: PlaneId, k: usize) {
        let Some(run) = self.gc[plane.idx()].as_mut() else {
            if self.ftl.gc_needed(plane) || self.ftl.bg_gc_wanted(plane) || k.is_multiple_of(5) {
                self.start_gc(plane);
            } else {
                self.finish_one_move(k);
            }
            return;
        };
        let victim = run.victim;
        if self.ftl.erasable(victim) && (run.todo.is_empty() || k.is_multiple_of(3)) {
            self.ftl.erase_done(victim);
            self.gc[plane.idx()] = None;
            assert_eq!(self.ftl.gc_victim(plane), None);
            return;
        }
        if !run.todo.is_empty() && (self.moves.is_empty() || k.is_multiple_of(2)) {
            let (src, lpn) = run.todo.pop().unwrap();
            if let Some(dst) = self.ftl.gc_begin_move(src) {
                run.moved = true;
                assert_eq!(
                    self.ftl.geometry().plane_of_page(dst),
                    plane,
                    "move left the plane"
                );
                assert_eq!(self.ftl.lookup(lpn), Some(src), "map moved before the copy");
                assert!(self.ftl.is_pending(dst));
                self.moves.push((src, dst));
                self.moves_begun += 1;
            }
        } else {
            self.finish_one_move(k);
        }
    }

    fn finish_one_move(&mut self, k: usize) {
        if !self.moves.is_empty() {
            let (src, dst) = self.moves.swap_remove(k % self.moves.len());
            self.ftl.gc_finish_move(src, dst);
        }
    }

    fn drain_programs_and_reads(&mut self) {
        for ppn in std::mem::take(&mut self.programs) {
            self.ftl.program_done(ppn);
        }
        for (ppn, token) in std::mem::take(&mut self.reads) {
            self.unpin(ppn, token);
        }
    }

    /// Completes everything outstanding and runs every started GC to its erase.
    pub fn drain(&mut self) {
        self.drain_programs_and_reads();
        while !self.moves.is_empty() {
            self.finish_one_move(0);
            self.ftl.check_invariants();
        }
        for p in 0..self.ftl.geometry().planes() {
            let mut k = 0;
            while self.gc[p as usize].is_some() {
                self.gc_step(PlaneId(p), k);
                k += 1;
                self.ftl.check_invariants();
                assert!(k < 10_000, "the GC of plane {p} never ends");
            }
        }
    }

    /// After [`Driver::drain`]: no LPN lost, every written LPN holds its last token in a
    /// valid, programmed page; erase counts add up.
    pub fn check_final(&self) {
        let f = &self.ftl;
        for l in 0..self.lpns {
            let lpn = Lpn(l);
            match (self.expected[l as usize], f.lookup(lpn)) {
                (None, None) => {}
                (Some(t), Some(ppn)) => {
                    assert_eq!(f.token(ppn), t, "lpn {l}: wrong data at {ppn}");
                    assert!(f.is_valid(ppn), "lpn {l}: page {ppn} not valid");
                    assert!(!f.is_pending(ppn), "lpn {l}: page {ppn} still pending");
                }
                (e, m) => panic!("lpn {l}: expected {e:?}, mapped {m:?}"),
            }
        }
        let c = f.counters();
        let erases: u64 = (0..f.geometry().blocks())
            .map(|b| u64::from(f.erase_count(BlockId(b))))
            .sum();
        assert_eq!(
            erases - self.erases_before,
            c.erases,
            "erase counts vs erases"
        );
        let folded = f.slc_counters().map_or(0, |s| s.fold_pages_moved);
        assert_eq!(
            c.gc_pages_moved + folded + c.gc_moves_dropped,
            self.moves_begun,
            "moves begun vs ended"
        );
        let written = self.expected.iter().filter(|t| t.is_some()).count() as u64;
        assert_eq!(
            f.device_state().valid_pages,
            written,
            "valid pages vs live LPNs"
        );
    }
}
