//! Where the tenants' layer (sim/tenants) meets the request path: the merged arrivals,
//! the fetch into the device queue, and each completion. Reached only when the
//! simulation holds tenants.

use super::super::tenants::{TenantError, Tenants};
use super::super::txn::ReqId;
use super::super::Simulation;
use crate::error::SimError;
use ssdlab_trace::{IoRequest, Op, RequestStream};

impl Simulation {
    /// Feeds the run from the tenants of `host.tenant`, one stream each, in order,
    /// instead of its source.
    ///
    /// # Errors
    /// [`SimError::Config`] when the number of streams is not the number of tenants.
    pub fn set_tenants(&mut self, streams: Vec<Box<dyn RequestStream>>) -> Result<(), SimError> {
        if streams.len() != self.cfg.host.tenant.len() || streams.is_empty() {
            return Err(SimError::Config(crate::ConfigErrors(vec![
                crate::ConfigError::Invalid {
                    key: "host.tenant".into(),
                    message: format!(
                        "{} tenants configured, {} workloads given",
                        self.cfg.host.tenant.len(),
                        streams.len()
                    ),
                },
            ])));
        }
        self.tenants = Some(Box::new(Tenants::new(&self.cfg, streams)));
        Ok(())
    }

    /// The next request of the open-loop tenants, merged by arrival time.
    #[inline(never)]
    pub(super) fn pull_tenant(&mut self) -> Option<IoRequest> {
        let next = self.tenants.as_mut().expect("tenants").next();
        let io = self.take_tenant_request(next);
        if io.is_none() {
            self.source_done = true;
        }
        io
    }

    /// The next request of closed-loop tenant `i`, which it issues now (None when its
    /// workload is over or the run has stopped on an error).
    #[inline(never)]
    pub(super) fn pull_closed_tenant(&mut self, i: usize) -> Option<IoRequest> {
        if self.error.is_some() {
            return None;
        }
        let next = self.tenants.as_mut().expect("tenants").next_of(i);
        self.take_tenant_request(next)
    }

    /// A tenant's request counted, or its error recorded (which stops the run).
    fn take_tenant_request(
        &mut self,
        next: Option<Result<IoRequest, TenantError>>,
    ) -> Option<IoRequest> {
        match next? {
            Ok(io) => {
                self.counters.trace_requests += 1;
                Some(io)
            }
            Err(e) => {
                self.source_done = true;
                self.error = Some(match e {
                    TenantError::Trace(e) => SimError::Trace(e),
                    TenantError::Namespace(n) => SimError::TenantNamespace {
                        tenant: n.tenant,
                        size_bytes: n.size_bytes,
                        namespace_bytes: n.namespace_bytes,
                    },
                });
                None
            }
        }
    }

    /// The first requests of the tenants: the open-loop ones' first arrival scheduled,
    /// each closed-loop tenant's `queue_depth` requests issued at once.
    #[inline(never)]
    pub(super) fn prime_tenants(&mut self) {
        self.schedule_next_arrival();
        for (i, depth) in self.tenants.as_ref().expect("tenants").closed_loop() {
            self.issue_closed(depth, Some(i));
        }
        self.wake_touched();
    }

    /// Request `id` arrived at `now`: it joins its tenant's queue, and the device
    /// fetches while it has free slots.
    #[inline(never)]
    pub(super) fn tenant_arrived(&mut self, id: ReqId, now: u64) {
        self.tenants.as_mut().expect("tenants").arrived(id, now);
        self.tenant_fetch();
    }

    /// Fills the free device-queue slots from the tenants' queues, as the arbiter picks.
    #[inline(never)]
    pub(super) fn tenant_fetch(&mut self) {
        while self.outstanding < self.cfg.host.device_queue_depth {
            let Some(id) = self.tenants.as_mut().expect("tenants").fetch() else {
                break;
            };
            self.admit(id);
        }
    }

    /// Host request `id` completes at `now`: counted for its tenant, whose queue may
    /// now have another fetched. Returns the tenant if it runs closed loop (it issues
    /// its next request once the request has left).
    #[inline(never)]
    pub(super) fn tenant_left(&mut self, id: ReqId, now: u64) -> Option<usize> {
        let r = &self.reqs[id];
        let read = match r.io.op {
            Op::Read => Some(true),
            Op::Write => Some(false),
            Op::Flush | Op::Trim => None,
        };
        let (bytes, response) = (r.io.size_bytes, now - r.arrival_ns);
        let t = self.tenants.as_mut().expect("tenants");
        let (i, closed) = t.left(id);
        t.results.done(i, read, bytes, response, now);
        closed.then_some(i)
    }

    /// The request recorded next, `id`, is of its tenant (for the per-request CSV).
    #[inline(never)]
    pub(super) fn tenant_of_record(&mut self, id: ReqId) {
        let i = self.tenants.as_ref().expect("tenants").tenant_of(id);
        self.rec.next_tenant(i);
    }
}
