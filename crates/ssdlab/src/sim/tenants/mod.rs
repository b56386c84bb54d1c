//! The host layer with several tenants: each a workload with its own submission queue,
//! queue depth, time scale and namespace; an arbiter picks the queue the shared device
//! queue fetches from next (docs/HOST.md). Absent with one workload: the simulation
//! holds `None` and never runs this code.

mod arbiter;
mod results;

pub use results::{TenantReport, TenantResults};

use super::txn::ReqId;
use crate::config::tenants::{fetch_limit, namespace};
use crate::config::{HostMode, SimConfig};
use arbiter::Arbiter;
use ssdlab_trace::{IoRequest, RequestStream, TraceError};
use std::collections::VecDeque;

/// One tenant's stream and queues.
struct Tenant {
    stream: Box<dyn RequestStream>,
    /// Its next request (addresses and time already mapped), once read.
    head: Option<IoRequest>,
    done: bool,
    /// Namespace start and size, bytes.
    ns: (u64, u64),
    time_scale: f64,
    queue_depth: u32,
    /// The most of its requests in the device at once (the fetch size).
    fetch_limit: u32,
    /// Closed loop: `queue_depth` requests outstanding, the next issued when one
    /// completes (its trace times ignored); else open loop.
    closed: bool,
    /// Arrived, not yet fetched, in order.
    waiting: VecDeque<ReqId>,
    /// Fetched into the device and not yet completed.
    fetched: u32,
}

/// The tenants of a run: their streams merged by arrival time, their submission queues
/// and the arbiter between them.
pub struct Tenants {
    tenants: Vec<Tenant>,
    arbiter: Arbiter,
    /// The tenant of the open-loop request pulled last (it arrives next).
    pulled: usize,
    /// The closed-loop tenant whose request arrives now, if one does.
    issuing: Option<usize>,
    /// The tenant of each request in the device or waiting, by request slot.
    of_req: Vec<u16>,
    /// Per-tenant results.
    pub(crate) results: TenantResults,
}

/// A request a tenant cannot place in its namespace.
#[derive(Debug)]
pub struct OutsideNamespace {
    /// The tenant.
    pub tenant: usize,
    /// The request's size.
    pub size_bytes: u64,
    /// Its namespace's size.
    pub namespace_bytes: u64,
}

impl Tenants {
    /// The tenants of `cfg` (`host.tenant`), fed by `streams` (one per tenant, in order).
    pub fn new(cfg: &SimConfig, streams: Vec<Box<dyn RequestStream>>) -> Self {
        let h = &cfg.host;
        assert_eq!(streams.len(), h.tenant.len(), "one stream per tenant");
        let page = u64::from(cfg.geometry.page_size_bytes);
        let bytes = u64::from(cfg.ftl.logical_pages(&cfg.geometry)) * page;
        let tenants = streams
            .into_iter()
            .enumerate()
            .map(|(i, stream)| Tenant {
                stream,
                head: None,
                done: false,
                ns: namespace(&h.tenant, i, page, bytes),
                time_scale: h.tenant[i].time_scale,
                queue_depth: h.tenant[i].queue_depth,
                fetch_limit: fetch_limit(&h.tenant[i], h.fetch_size),
                closed: h.tenant[i].mode.unwrap_or(h.mode) == HostMode::Closed,
                waiting: VecDeque::new(),
                fetched: 0,
            })
            .collect();
        let names = h
            .tenant
            .iter()
            .enumerate()
            .map(|(i, t)| {
                if t.name.is_empty() {
                    format!("t{i}")
                } else {
                    t.name.clone()
                }
            })
            .collect();
        let classes = h.tenant.iter().map(|t| t.class).collect();
        Tenants {
            tenants,
            arbiter: Arbiter::new(h.arbitration, h.arbitration_burst, h.weights, classes),
            pulled: 0,
            issuing: None,
            of_req: Vec::new(),
            results: TenantResults::new(names),
        }
    }

    /// The next request of the open-loop tenants by arrival time (ties to the lower
    /// tenant), with its time scaled and its address in its tenant's namespace.
    pub(crate) fn next(&mut self) -> Option<Result<IoRequest, TenantError>> {
        for i in 0..self.tenants.len() {
            if !self.tenants[i].closed {
                if let Err(e) = self.read_head(i) {
                    return Some(Err(e));
                }
            }
        }
        let (i, _) = self
            .tenants
            .iter()
            .enumerate()
            .filter(|(_, t)| !t.closed)
            .filter_map(|(i, t)| t.head.as_ref().map(|h| (i, h.arrival_ns)))
            .min_by_key(|&(i, at)| (at, i))?;
        self.pulled = i;
        self.tenants[i].head.take().map(Ok)
    }

    /// The next request of closed-loop tenant `i` (it arrives now).
    pub(crate) fn next_of(&mut self, i: usize) -> Option<Result<IoRequest, TenantError>> {
        if let Err(e) = self.read_head(i) {
            return Some(Err(e));
        }
        let io = self.tenants[i].head.take()?;
        self.issuing = Some(i);
        Some(Ok(io))
    }

    /// Reads tenant `i`'s next request into its head, if it has none and its stream
    /// has more.
    fn read_head(&mut self, i: usize) -> Result<(), TenantError> {
        let t = &mut self.tenants[i];
        if t.head.is_some() || t.done {
            return Ok(());
        }
        match t.stream.next() {
            None => t.done = true,
            Some(Err(e)) => return Err(TenantError::Trace(e)),
            Some(Ok(io)) => match map(io, t.ns, t.time_scale) {
                Ok(io) => t.head = Some(io),
                Err((size_bytes, namespace_bytes)) => {
                    return Err(TenantError::Namespace(OutsideNamespace {
                        tenant: i,
                        size_bytes,
                        namespace_bytes,
                    }))
                }
            },
        }
        Ok(())
    }

    /// The closed-loop tenants with their queue depths, in order.
    pub(crate) fn closed_loop(&self) -> Vec<(usize, u32)> {
        (self.tenants.iter().enumerate())
            .filter(|(_, t)| t.closed)
            .map(|(i, t)| (i, t.queue_depth))
            .collect()
    }

    /// Request `id`, pulled last, arrived at `now`: it waits in its tenant's queue.
    pub(crate) fn arrived(&mut self, id: ReqId, now: u64) {
        let i = self.issuing.take().unwrap_or(self.pulled);
        let slot = id as usize;
        if self.of_req.len() <= slot {
            self.of_req.resize(slot + 1, 0);
        }
        self.of_req[slot] = i as u16;
        self.tenants[i].waiting.push_back(id);
        self.results.arrived(i, now);
    }

    /// The next request to fetch into the device, as the arbiter picks it.
    pub(crate) fn fetch(&mut self) -> Option<ReqId> {
        let ts = &self.tenants;
        let q = self
            .arbiter
            .pick(|q| !ts[q].waiting.is_empty() && ts[q].fetched < ts[q].fetch_limit)?;
        let t = &mut self.tenants[q];
        t.fetched += 1;
        t.waiting.pop_front()
    }

    /// Request `id` completed: its tenant may fetch another. Returns the tenant and
    /// whether it runs closed loop (then it issues its next request).
    pub(crate) fn left(&mut self, id: ReqId) -> (usize, bool) {
        let i = usize::from(self.of_req[id as usize]);
        self.tenants[i].fetched -= 1;
        (i, self.tenants[i].closed)
    }

    /// The tenant of request `id` (in the device or waiting).
    pub(crate) fn tenant_of(&self, id: ReqId) -> usize {
        usize::from(self.of_req[id as usize])
    }

    /// Requests waiting in the tenants' queues.
    pub(crate) fn waiting(&self) -> usize {
        self.tenants.iter().map(|t| t.waiting.len()).sum()
    }
}

/// What stops the tenants' merged stream.
#[derive(Debug)]
pub(crate) enum TenantError {
    Trace(TraceError),
    Namespace(OutsideNamespace),
}

/// `io` with its arrival scaled by `scale` and its address folded into namespace
/// `(start, size)`: modulo the size, and to the namespace's first page (keeping the
/// offset inside the page) when it would run past the end. `Err((size, ns size))` for
/// a request larger than the namespace.
fn map(mut io: IoRequest, (start, size): (u64, u64), scale: f64) -> Result<IoRequest, (u64, u64)> {
    if scale != 1.0 {
        io.arrival_ns = (io.arrival_ns as f64 * scale) as u64;
    }
    let page = ssdlab_trace::PAGE_BYTES;
    let mut off = io.offset_bytes % size;
    if off + io.size_bytes > size {
        off %= page;
        if off + io.size_bytes > size {
            return Err((io.size_bytes, size));
        }
    }
    io.offset_bytes = start + off;
    Ok(io)
}

#[cfg(test)]
mod tests {
    use super::map;
    use ssdlab_trace::{IoRequest, Op};

    fn io(offset_bytes: u64, size_bytes: u64) -> IoRequest {
        IoRequest {
            arrival_ns: 1000,
            op: Op::Write,
            fua: false,
            offset_bytes,
            size_bytes,
            content: None,
            stream: None,
        }
    }

    #[test]
    fn addresses_fold_into_the_namespace() {
        let ns = (1 << 20, 64 << 10);
        assert_eq!(
            map(io(4096, 4096), ns, 1.0).unwrap().offset_bytes,
            (1 << 20) + 4096
        );
        // Modulo the namespace's size.
        let m = map(io((64 << 10) + 512, 1024), ns, 1.0).unwrap();
        assert_eq!(m.offset_bytes, (1 << 20) + 512);
        // Running past its end: to its first page, keeping the offset in the page.
        let m = map(io((60 << 10) + 100, 8192), ns, 1.0).unwrap();
        assert_eq!(m.offset_bytes, (1 << 20) + 100);
        assert!(m.offset_bytes + m.size_bytes <= (1 << 20) + (64 << 10));
        // Larger than the namespace: refused.
        assert_eq!(
            map(io(0, 128 << 10), ns, 1.0).unwrap_err(),
            (128 << 10, 64 << 10)
        );
    }

    #[test]
    fn arrival_times_scale() {
        assert_eq!(map(io(0, 4096), (0, 1 << 20), 0.5).unwrap().arrival_ns, 500);
    }
}
