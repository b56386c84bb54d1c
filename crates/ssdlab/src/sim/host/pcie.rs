//! Where the PCIe link (sim/pcie.rs) meets the request path: a request that takes its
//! device-queue slot sends its command, and a write its data, down the link before it
//! starts; a request that is done sends its completion, and a read its data, up the link
//! before it completes. Reached only when the simulation has a link (`host.pcie`).

use super::super::pcie::{COMMAND_IN, COMMAND_OUT};
use super::super::txn::ReqId;
use super::super::{Event, Simulation};
use ssdlab_engine::SimTime;
use ssdlab_trace::Op;

impl Simulation {
    /// Request `id` took its device-queue slot: its command and a write's data cross
    /// the link down; it starts when they are across ([`Event::PcieDown`]).
    #[inline(never)]
    pub(super) fn pcie_down(&mut self, id: ReqId) {
        let now = self.now().as_ns();
        let r = &mut self.reqs[id];
        r.admitted_ns = now;
        let data = if r.io.op == Op::Write {
            r.io.size_bytes
        } else {
            0
        };
        let p = self.pcie.as_mut().expect("a link");
        let wire = p.message_bytes(&COMMAND_IN, data);
        let end = p.send(false, now, wire);
        p.went_down(id, end - now);
        self.events
            .schedule(SimTime(end), Event::PcieDown(id))
            .expect("never in the past");
    }

    /// Request `id`'s command is across: the device starts it.
    pub(in crate::sim) fn on_pcie_down(&mut self, id: ReqId) {
        self.start_request(id);
    }

    /// Host request `id` is done in the device: true when its completion and a read's
    /// data must cross the link up first (it completes at [`Event::PcieUp`]); false
    /// when they have crossed (or `id` is a destage, which does not cross), and it
    /// completes now.
    #[inline(never)]
    pub(in crate::sim) fn pcie_up(&mut self, id: ReqId) -> bool {
        if self.dram.as_ref().is_some_and(|d| d.is_destage(id)) {
            return false;
        }
        let now = self.now().as_ns();
        let p = self.pcie.as_mut().expect("a link");
        if p.completion_crossed(id) {
            return false;
        }
        let r = &self.reqs[id];
        let data = if r.io.op == Op::Read {
            r.io.size_bytes
        } else {
            0
        };
        let wire = p.message_bytes(&COMMAND_OUT, data);
        let end = p.send(true, now, wire);
        p.went_up(id, end - now);
        self.events
            .schedule(SimTime(end), Event::PcieUp(id))
            .expect("never in the past");
        true
    }
}
