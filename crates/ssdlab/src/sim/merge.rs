//! Read merging (`[scheduler.merge]`, off by default): a host read page whose chosen
//! page (or, `same-content`, whose content) is already being read by a host read that
//! waits in the same chip's queue joins that read instead of reading the flash again.
//!
//! ```text
//!  read page ─► plan chosen (page p on chip c) ─► a waiting read of p (or p's content) on c?
//!       no ─► flash read t of p; t becomes the waiting read of (c, key)  ── t starts ─► forgotten
//!       yes ─► a follower of it: completes with it (with-leader: its data, its service
//!              time) or fixed_ns after admission (fixed-ns, SSDsim's 1 µs)      (merged-reads)
//! ```
//!
//! A read that another joins moves its whole page over the bus, whatever sectors each
//! asked for (`timing.transfer = "sectors"`).
//!
//! Only reads that have not started on their die are merge targets. In verify mode a
//! follower is checked against the content the read it joined returned. The
//! configuration refuses merging with RAID, whose reconstructions take reads out of the
//! queues without starting them.

use super::txn::{ReqId, TxnId};
use super::{Event, Simulation};
use crate::sched::{MergeCompletion, MergeConfig, MergeReads};
use rustc_hash::FxHashMap;
use ssdlab_engine::SimDuration;
use ssdlab_nand::{Lpn, Ppn};

/// A read page that joined another read.
#[derive(Clone, Copy, Debug)]
struct Follower {
    req: ReqId,
    lpn: Lpn,
    /// Verify mode: the token its LPN last took.
    expect: u64,
    /// `fixed-ns`: the content it returns (known when it joined).
    token: u64,
}

/// Reads waiting in chip queues, and the reads that joined them.
pub(crate) struct MergeState {
    reads: MergeReads,
    completion: MergeCompletion,
    fixed_ns: u64,
    /// (chip, page or content) → the waiting host read.
    waiting: FxHashMap<(u32, u64), TxnId>,
    /// The key each waiting read is filed under.
    key_of: FxHashMap<TxnId, (u32, u64)>,
    /// With-leader followers of each waiting or running read.
    followers: FxHashMap<TxnId, Vec<Follower>>,
    /// Fixed-ns followers until their completion event (slot reused).
    timed: Vec<Option<Follower>>,
    merged: u64,
}

impl MergeState {
    /// The state of `cfg`, or None when merging is off.
    pub fn new(cfg: &MergeConfig) -> Option<MergeState> {
        (cfg.reads != MergeReads::Off).then(|| MergeState {
            reads: cfg.reads,
            completion: cfg.completion,
            fixed_ns: cfg.fixed_ns,
            waiting: FxHashMap::default(),
            key_of: FxHashMap::default(),
            followers: FxHashMap::default(),
            timed: Vec::new(),
            merged: 0,
        })
    }

    /// Read pages that joined another read.
    pub fn merged(&self) -> u64 {
        self.merged
    }
}

impl Simulation {
    /// The merge key of a read of `ppn`, under the configured rule.
    fn merge_key(&self, m: &MergeState, ppn: Ppn) -> (u32, u64) {
        let chip = self.geom.chip_of_page(ppn).0;
        match m.reads {
            MergeReads::SameContent => (chip, self.ftl.token(ppn)),
            _ => (chip, u64::from(ppn.0)),
        }
    }

    /// Host read page `lpn` of request `id`, which would read `ppn`: joins a waiting read
    /// when one matches (true: the page completes later, without a flash read of its own).
    pub(in crate::sim) fn try_merge_read(&mut self, id: ReqId, lpn: Lpn, ppn: Ppn) -> bool {
        let Some(m) = self.merge.as_ref() else {
            return false;
        };
        let key = self.merge_key(m, ppn);
        let Some(&leader) = m.waiting.get(&key) else {
            return false;
        };
        let f = Follower {
            req: id,
            lpn,
            expect: self.expected(lpn),
            token: self.ftl.token(ppn),
        };
        let m = self.merge.as_mut().expect("merging is on");
        m.merged += 1;
        match m.completion {
            MergeCompletion::WithLeader => {
                m.followers.entry(leader).or_default().push(f);
                // The follower's sectors come with the leader's: with
                // `timing.transfer = "sectors"`, the leader moves its whole page.
                self.txns[leader].bus_ns = 0;
            }
            MergeCompletion::FixedNs => {
                let slot = match m.timed.iter().position(Option::is_none) {
                    Some(i) => i,
                    None => {
                        m.timed.push(None);
                        m.timed.len() - 1
                    }
                };
                m.timed[slot] = Some(f);
                let at = SimDuration(m.fixed_ns);
                self.events.schedule_in(at, Event::MergedRead(slot as u32));
            }
        }
        true
    }

    /// Host read `t` of `ppn` was created: it is the waiting read of its key.
    pub(in crate::sim) fn note_waiting_read(&mut self, t: TxnId, ppn: Ppn) {
        let Some(m) = self.merge.as_ref() else { return };
        let key = self.merge_key(m, ppn);
        let m = self.merge.as_mut().expect("merging is on");
        m.waiting.insert(key, t);
        m.key_of.insert(t, key);
    }

    /// Transaction `t` started on its die (or its page changes): no longer a merge target.
    #[inline]
    pub(in crate::sim) fn forget_waiting_read(&mut self, t: TxnId) {
        if let Some(m) = self.merge.as_mut() {
            if let Some(key) = m.key_of.remove(&t) {
                m.waiting.remove(&key);
            }
        }
    }

    /// Whether host read `t` has with-leader followers.
    pub(in crate::sim) fn has_followers(&self, t: TxnId) -> bool {
        self.merge
            .as_ref()
            .is_some_and(|m| m.followers.contains_key(&t))
    }

    /// Host read `t` completed returning `token` after `service_ns` of bus and array time:
    /// its followers complete with it.
    pub(in crate::sim) fn finish_followers(&mut self, t: TxnId, token: u64, service_ns: u64) {
        let Some(fs) = self.merge.as_mut().and_then(|m| m.followers.remove(&t)) else {
            return;
        };
        for f in fs {
            self.finish_follower(f, token, service_ns);
        }
    }

    fn finish_follower(&mut self, f: Follower, token: u64, service_ns: u64) {
        if self.verify.is_some() {
            self.check_token(f.lpn, f.expect, token);
        }
        self.sub_done(f.req, service_ns, 0);
    }

    /// A fixed-ns follower's completion event.
    pub(in crate::sim) fn on_merged_read(&mut self, slot: u32) {
        let m = self.merge.as_mut().expect("merging is on");
        let f = m.timed[slot as usize].take().expect("a timed follower");
        let service = m.fixed_ns;
        self.finish_follower(f, f.token, service);
    }
}
