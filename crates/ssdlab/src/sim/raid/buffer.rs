//! Group buffers: new writes to a never-written stripe are programmed at once and its
//! parity is encoded when the stripe is complete or its timeout expires.

use super::{Captured, GroupBuffer, JobOrigin, JobPlan, StripeWrite};
use crate::sim::txn::{ReqId, TxnId, NONE};
use crate::sim::{Event, Simulation};
use ssdlab_nand::{FlashOp, Lpn, PlaneId, TxnReason};

impl Simulation {
    /// Adds new writes to stripe `stripe`'s group buffer, programming their data now.
    pub(super) fn buffer_writes(
        &mut self,
        id: ReqId,
        stripe: u64,
        ws: &[StripeWrite],
        txns: &mut Vec<TxnId>,
    ) {
        let g = self.raid().map.layout.group_size() as usize;
        let slot = match self.raid().buffers.get(&stripe) {
            Some(&s) => s,
            None => self.open_buffer(stripe, g),
        };
        for w in ws {
            let pos = w.pos as usize;
            let first = self.raid().buffer_slots[slot].positions & (1 << pos) == 0;
            if first {
                let mut old = std::mem::take(&mut self.raid_mut().buffer_slots[slot].old);
                let before = old.reads.len();
                self.capture(w.lpn, &mut old);
                for &p in &old.reads[before..] {
                    self.ftl.pin(p);
                }
                let b = &mut self.raid_mut().buffer_slots[slot];
                b.old = old;
                b.positions |= 1 << pos;
            } else {
                let b = &mut self.raid_mut().buffer_slots[slot];
                b.new_xor ^= b.tokens[pos];
            }
            let b = &mut self.raid_mut().buffer_slots[slot];
            b.tokens[pos] = w.token;
            b.new_xor ^= w.token;
            self.raid_place_data(id, w, txns);
        }
        let groups = u64::from(self.raid().map.layout.groups());
        let (row, group) = (stripe / groups, (stripe % groups) as u32);
        let parity_pos = self
            .raid()
            .map
            .layout
            .parity(row, group)
            .map_or(u32::MAX, |c| c.pos);
        let full: u64 = (0..g as u32)
            .filter(|&p| p != parity_pos)
            .map(|p| 1u64 << p)
            .sum();
        if self.raid().buffer_slots[slot].positions == full {
            self.encode(stripe);
        }
    }

    fn open_buffer(&mut self, stripe: u64, g: usize) -> usize {
        let r = self.raid_mut();
        let slot = match r.buffer_free.pop() {
            Some(s) => s,
            None => {
                r.buffer_slots.push(GroupBuffer::default());
                r.buffer_slots.len() - 1
            }
        };
        let b = &mut r.buffer_slots[slot];
        b.positions = 0;
        b.new_xor = 0;
        b.tokens.clear();
        b.tokens.resize(g, 0);
        b.old = Captured::default();
        b.generation = b.generation.wrapping_add(1);
        b.stripe = stripe;
        let generation = b.generation;
        r.buffers.insert(stripe, slot);
        let at = self.now() + ssdlab_engine::SimDuration(self.raid().encode_timeout_ns);
        self.events
            .schedule(at, Event::EncodeTimeout(slot as u32, generation))
            .expect("never in the past");
        slot
    }

    /// The encode timeout of buffer `slot` fired.
    pub(in crate::sim) fn on_encode_timeout(&mut self, slot: u32, generation: u32) {
        let r = self.raid();
        let b = &r.buffer_slots[slot as usize];
        let stripe = b.stripe;
        if b.generation != generation || r.buffers.get(&stripe) != Some(&(slot as usize)) {
            return;
        }
        self.raid_mut().counters.timeouts += 1;
        self.encode(stripe);
        self.run_gc_checks();
        self.wake_touched();
    }

    /// Closes stripe `stripe`'s group buffer into a parity job.
    fn encode(&mut self, stripe: u64) {
        let slot = self
            .raid_mut()
            .buffers
            .remove(&stripe)
            .expect("an open buffer");
        let groups = u64::from(self.raid().map.layout.groups());
        let (row, group) = (stripe / groups, (stripe % groups) as u32);
        let b = std::mem::take(&mut self.raid_mut().buffer_slots[slot]);
        let generation = b.generation;
        let g = self.raid().map.layout.group_size();
        let parity_pos = self.raid().map.layout.parity(row, group).map(|c| c.pos);
        let mut others = self.raid_mut().new_capture();
        for pos in 0..g {
            if Some(pos) == parity_pos || b.positions & (1 << pos) != 0 {
                continue;
            }
            if let Some(x) = self.raid().map.layout.lpn_at(row, group, pos) {
                self.capture(Lpn(x as u32), &mut others);
            }
        }
        let old_w = b.old.clone();
        // The buffer pinned the old versions; the job pins what it keeps.
        for &p in &old_w.reads {
            self.ftl.unpin(p);
            self.gc_page_released(p);
        }
        let parity_mapped = self.parity_ppn(row, group).is_some();
        let plan = JobPlan {
            stripe,
            row,
            group,
            known: b.new_xor,
            parity_mapped,
            req: NONE,
            origin: JobOrigin::Host,
        };
        let job = self.choose_job(plan, old_w, others);
        let r = self.raid_mut();
        r.buffer_slots[slot] = GroupBuffer {
            generation: generation.wrapping_add(1),
            old: Captured::default(),
            ..b
        };
        r.buffer_free.push(slot);
        self.enqueue_job(job);
    }

    /// A parity page that found no free page waits for the plane's next erase.
    pub(in crate::sim) fn park_parity(&mut self, j: usize, lpn: Lpn, plane: PlaneId, token: u64) {
        self.counters.parked_writes += 1;
        self.parked[plane.idx()].push(crate::sim::gc::Parked {
            req: NONE,
            lpn,
            token,
            reason: TxnReason::ParityWrite,
            job: j as u32,
            seq: 0,
        });
    }

    /// Places a parked parity page again; false if there is still no space.
    pub(in crate::sim) fn unpark_parity(
        &mut self,
        j: u32,
        lpn: Lpn,
        plane: PlaneId,
        token: u64,
    ) -> bool {
        match self.ftl.host_write(lpn, plane, token) {
            Ok(ppn) => {
                self.raid_mut().counters.parity_writes += 1;
                let reason = self.parity_reason(j as usize);
                self.raid_txn(FlashOp::Program, reason, ppn, lpn, j);
                true
            }
            Err(_) => false,
        }
    }
}
