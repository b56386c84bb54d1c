//! Per-tenant results as requests complete.

use ssdlab_stats::{TenantAcc, TenantsReport};

pub use ssdlab_stats::TenantReport;

/// The tenants' accumulators.
pub struct TenantResults {
    names: Vec<String>,
    acc: Vec<TenantAcc>,
}

impl TenantResults {
    pub(crate) fn new(names: Vec<String>) -> Self {
        let acc = names.iter().map(|_| TenantAcc::default()).collect();
        TenantResults { names, acc }
    }

    /// The tenants' names, in order.
    pub(crate) fn names(&self) -> Vec<String> {
        self.names.clone()
    }

    pub(crate) fn arrived(&mut self, tenant: usize, now: u64) {
        self.acc[tenant].arrived(now);
    }

    pub(crate) fn done(
        &mut self,
        tenant: usize,
        read: Option<bool>,
        bytes: u64,
        response_ns: u64,
        now: u64,
    ) {
        self.acc[tenant].done(read, bytes, response_ns, now);
    }

    /// The report section, for a run under `arbitration`.
    pub(crate) fn report(&self, arbitration: &str) -> TenantsReport {
        TenantsReport {
            arbitration: arbitration.to_string(),
            tenants: self
                .names
                .iter()
                .zip(&self.acc)
                .map(|(n, a)| a.report(n))
                .collect(),
            fairness: None,
            cmt_sharing: None,
            dram_sharing: None,
        }
    }
}
