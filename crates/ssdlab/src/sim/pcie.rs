//! The PCIe link between host and device (`[host.pcie]`, docs/HOST.md §6): two
//! directions, full duplex, each a FIFO resource every request of every tenant shares.
//! A transfer waits for the direction to be free, then takes its bytes on the wire
//! (payload split into TLPs of at most the Max Payload Size, each with its overhead)
//! over the direction's bandwidth. Only the timing lives here; where the request path
//! crosses the link is `sim/host/pcie.rs`.

use crate::config::PcieConfig;
use rustc_hash::FxHashMap;

use super::txn::ReqId;

/// Bytes of the command overhead from host to device: the submission queue tail
/// doorbell write (4 B) and the 64-byte submission queue entry the device fetches, one
/// TLP each (NVM Express Base Specification 2.0, §3.3.3.1 and §4.1).
pub(crate) const COMMAND_IN: [u32; 2] = [4, 64];
/// Bytes of the command overhead from device to host: the 16-byte completion queue
/// entry (NVMe Base 2.0, §4.2.1) and the MSI-X interrupt message (a 4-byte memory
/// write), one TLP each.
pub(crate) const COMMAND_OUT: [u32; 2] = [16, 4];

/// The per-lane signalling rate (GT/s) and line-code efficiency of PCIe generation
/// `g` (PCI Express Base Specification 5.0, §4.2: 8b/10b for 2.5 and 5.0 GT/s,
/// 128b/130b from 8.0 GT/s on).
pub(crate) fn generation_rate(g: u32) -> (f64, f64) {
    match g {
        1 => (2.5, 8.0 / 10.0),
        2 => (5.0, 8.0 / 10.0),
        3 => (8.0, 128.0 / 130.0),
        4 => (16.0, 128.0 / 130.0),
        5 => (32.0, 128.0 / 130.0),
        _ => unreachable!("host.pcie.generation is 1 to 5 (validated)"),
    }
}

/// One direction of the link: when it is free again.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Direction {
    free_at_ns: u64,
}

/// The link, and the requests crossing it.
#[derive(Debug)]
pub(crate) struct Pcie {
    /// Bytes per nanosecond in one direction (GB/s).
    bytes_per_ns: f64,
    max_payload: u64,
    tlp_overhead: u64,
    /// Host to device: commands and write data.
    down: Direction,
    /// Device to host: completions and read data.
    up: Direction,
    /// Requests in the device: their time on the link so far, and whether their
    /// completion has crossed it.
    reqs: FxHashMap<ReqId, (u64, bool)>,
    /// The time on the link of the request that completed last.
    pub(crate) last_ns: u64,
}

impl Pcie {
    /// The link `cfg` describes, if it has one.
    pub(crate) fn new(cfg: &PcieConfig) -> Option<Pcie> {
        if !cfg.is_on() {
            return None;
        }
        let lane = if cfg.lane_gbytes_per_s > 0.0 {
            cfg.lane_gbytes_per_s
        } else {
            let (gt, code) = generation_rate(cfg.generation);
            gt * code / 8.0
        };
        Some(Pcie {
            bytes_per_ns: lane * f64::from(cfg.lanes),
            max_payload: u64::from(cfg.max_payload_bytes),
            tlp_overhead: u64::from(cfg.tlp_overhead_bytes),
            down: Direction::default(),
            up: Direction::default(),
            reqs: FxHashMap::default(),
            last_ns: 0,
        })
    }

    /// Bytes on the wire for `payload` data bytes: split into TLPs of at most the Max
    /// Payload Size, each adding its overhead (none for no data).
    pub(crate) fn wire_bytes(&self, payload: u64) -> u64 {
        payload + payload.div_ceil(self.max_payload) * self.tlp_overhead
    }

    /// Nanoseconds to send `wire` bytes (rounded up).
    pub(crate) fn wire_ns(&self, wire: u64) -> u64 {
        (wire as f64 / self.bytes_per_ns).ceil() as u64
    }

    /// Wire bytes of a command's messages `msgs` followed by `data` payload bytes.
    pub(crate) fn message_bytes(&self, msgs: &[u32], data: u64) -> u64 {
        let m: u64 = msgs.iter().map(|&b| self.wire_bytes(u64::from(b))).sum();
        m + self.wire_bytes(data)
    }

    /// A transfer of `wire` bytes asked for at `now`, up (device to host) or down: it
    /// starts when its direction is free and holds it until it ends. Returns its end.
    pub(crate) fn send(&mut self, up: bool, now: u64, wire: u64) -> u64 {
        let ns = self.wire_ns(wire);
        let d = if up { &mut self.up } else { &mut self.down };
        let end = now.max(d.free_at_ns) + ns;
        d.free_at_ns = end;
        end
    }

    /// Request `id`'s command (and data) went down, taking `ns` on the link.
    pub(crate) fn went_down(&mut self, id: ReqId, ns: u64) {
        self.reqs.insert(id, (ns, false));
    }

    /// Request `id` completes: true when its completion has crossed the link (then its
    /// time on the link is `last_ns` and it is forgotten), false when it must cross now.
    pub(crate) fn completion_crossed(&mut self, id: ReqId) -> bool {
        match self.reqs.get(&id) {
            Some(&(ns, true)) => {
                self.reqs.remove(&id);
                self.last_ns = ns;
                true
            }
            _ => false,
        }
    }

    /// Request `id`'s completion crosses the link, taking `ns`.
    pub(crate) fn went_up(&mut self, id: ReqId, ns: u64) {
        let e = self.reqs.entry(id).or_insert((0, false));
        e.0 += ns;
        e.1 = true;
    }
}

#[cfg(test)]
mod tests {
    use super::{Pcie, COMMAND_IN, COMMAND_OUT};
    use crate::config::PcieConfig;

    fn link(generation: u32, lanes: u32) -> Pcie {
        Pcie::new(&PcieConfig {
            generation,
            lanes,
            ..PcieConfig::default()
        })
        .unwrap()
    }

    #[test]
    fn no_generation_and_no_bandwidth_is_no_link() {
        assert!(Pcie::new(&PcieConfig::default()).is_none());
    }

    #[test]
    fn gen3_x4_moves_about_3_94_bytes_per_ns() {
        let l = link(3, 4);
        // 8 GT/s × 128/130 / 8 bits × 4 lanes = 3.938 GB/s.
        assert!(
            (l.bytes_per_ns - 3.938_461).abs() < 1e-5,
            "{}",
            l.bytes_per_ns
        );
        // 4 KiB: 16 TLPs of 256 B, 24 B each on top: 4480 B, 1137.5 ns → 1138.
        assert_eq!(l.wire_bytes(4096), 4096 + 16 * 24);
        assert_eq!(l.wire_ns(l.wire_bytes(4096)), 1138);
        let mut l = l;
        assert_eq!(l.send(false, 1000, 4480), 1000 + 1138);
    }

    #[test]
    fn gen1_uses_8b10b_and_the_override_replaces_the_generation() {
        assert!((link(1, 1).bytes_per_ns - 0.25).abs() < 1e-12);
        assert!((link(2, 16).bytes_per_ns - 8.0).abs() < 1e-12);
        let mq = Pcie::new(&PcieConfig {
            generation: 1,
            lanes: 4,
            lane_gbytes_per_s: 1.0,
            ..PcieConfig::default()
        })
        .unwrap();
        assert!((mq.bytes_per_ns - 4.0).abs() < 1e-12);
    }

    #[test]
    fn every_tlp_pays_its_overhead() {
        let l = link(3, 4);
        assert_eq!(l.wire_bytes(0), 0);
        assert_eq!(l.wire_bytes(1), 25);
        assert_eq!(l.wire_bytes(256), 280);
        assert_eq!(l.wire_bytes(257), 257 + 48);
        // The command messages are one TLP each.
        assert_eq!(l.message_bytes(&COMMAND_IN, 0), 68 + 48);
        assert_eq!(l.message_bytes(&COMMAND_OUT, 512), 20 + 48 + 512 + 48);
    }

    #[test]
    fn back_to_back_transfers_queue() {
        let mut l = link(1, 1);
        // 250 bytes at 0.25 B/ns: 1000 ns each.
        assert_eq!(l.send(false, 0, 250), 1000);
        assert_eq!(
            l.send(false, 0, 250),
            2000,
            "the second waits for the first"
        );
        assert_eq!(l.send(false, 500, 250), 3000);
        // An idle link starts at once.
        assert_eq!(l.send(false, 10_000, 250), 11_000);
    }

    #[test]
    fn the_two_directions_do_not_block_each_other() {
        let mut l = link(1, 1);
        assert_eq!(l.send(false, 0, 250), 1000);
        assert_eq!(l.send(true, 0, 250), 1000, "full duplex");
        assert_eq!(l.send(true, 0, 250), 2000);
        assert_eq!(l.send(false, 1000, 250), 2000);
    }

    #[test]
    fn a_request_is_remembered_until_its_completion_crossed() {
        let mut l = link(3, 4);
        l.went_down(7, 100);
        assert!(!l.completion_crossed(7));
        l.went_up(7, 50);
        assert!(l.completion_crossed(7));
        assert_eq!(l.last_ns, 150);
        assert!(!l.completion_crossed(7), "forgotten");
    }
}
